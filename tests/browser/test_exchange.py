"""A student fetches and submits through nbgrader's Assignments tab, and the TA collects it.

As on a JupyterHub: a local exchange folder, the instructor's `nbgrader release_assignment`,
and one throwaway student account whose own JupyterLab (run as that user, in their home,
with the course's student settings `autograder/exchange/student_nbgrader_config.py`) shows
Nbgrader > Assignment List. The student clicks Fetch, the notebook appears in their home,
they answer it (the test writes the solved notebook, as the student), click Submit, and the
submission is listed. The exchange's inbound then holds one folder owned by the student with
their notebook, and `python -m grader collect` takes exactly it.

Screenshots: `exchange-fetched.png`, `exchange-submitted.png`.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from .lab import ROOT, LabServer, free_port, open_lab, write_settings

NOTEBOOK = "01_attention_scores"
AUTOGRADER = ROOT / "autograder"
VENV_BIN = Path(sys.executable).parent


@pytest.fixture
def course(browser_ready):
    from accounts import Account, accounts_skip_reason, release_assignment

    reason = accounts_skip_reason()
    if reason:
        pytest.skip(reason)
    base = Path(tempfile.mkdtemp(prefix="attnbook-exchange-lab-"))
    base.chmod(0o755)
    exchange = base / "exchange"
    exchange.mkdir()
    exchange.chmod(0o777)
    student = Account(f"atb{secrets.token_hex(3)}lab", base / "home" / "student")
    config = student.home / ".jupyter" / "nbgrader_config.py"
    config.parent.mkdir()
    shutil.copyfile(AUTOGRADER / "exchange" / "student_nbgrader_config.py", config)
    write_settings(student.home / ".lab-test" / "settings")
    student.own(student.home)
    release_assignment(NOTEBOOK, exchange)
    try:
        yield {"student": student, "exchange": exchange, "base": base}
    finally:
        student.remove()
        shutil.rmtree(base, ignore_errors=True)


def student_lab(student, exchange: Path) -> LabServer:
    """The student's own JupyterLab, as their hub server would run: their user, their home."""
    port, token = free_port(), secrets.token_hex(16)
    state = student.home / ".lab-test"
    command = student.argv(
        str(VENV_BIN / "jupyter"),
        "lab",
        "--no-browser",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        "--ServerApp.ip=127.0.0.1",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={student.home}",
        f"--LabApp.user_settings_dir={state / 'settings'}",
        f"--LabApp.workspaces_dir={state / 'workspaces'}",
        "--LabApp.expose_app_in_browser=True",
    )
    return LabServer(
        "exchange-student",
        command,
        cwd=student.home,
        root=student.home,
        port=port,
        token=token,
        env=student.env(ATTNBOOK_EXCHANGE=str(exchange)),
    )


@pytest.mark.browser
@pytest.mark.timeout(600)
def test_fetch_and_submit_through_the_assignments_tab(course, page, screenshots, tmp_path):
    from grader.sample import load_builder

    student, exchange = course["student"], course["exchange"]
    server = student_lab(student, exchange).start()
    try:
        open_lab(page, server)
        page.locator('#jp-MainMenu .lm-MenuBar-itemLabel:text-is("Nbgrader")').click()
        page.locator(
            '#jp-mainmenu-nbgrader li[data-command="nbgrader:open-assignment-list"]'
        ).click()
        released = page.locator("#released_assignments_list .list_item", has_text=NOTEBOOK)
        released.locator("button", has_text="Fetch").click(timeout=90_000)
        fetched = page.locator("#fetched_assignments_list .list_item", has_text=NOTEBOOK)
        submit = fetched.locator("button", has_text="Submit").first
        submit.wait_for(timeout=90_000)
        page.screenshot(path=str(screenshots / "exchange-fetched.png"))
        copy = student.home / NOTEBOOK / f"{NOTEBOOK}.ipynb"
        assert (
            copy.read_bytes() == (ROOT / "notebooks" / NOTEBOOK / f"{NOTEBOOK}.ipynb").read_bytes()
        )
        assert os.stat(copy).st_uid == student.uid
        answer = load_builder().sample_class(ROOT)["ada"][0]
        copy.write_bytes(answer)  # what the student saved after working the notebook
        student.own(copy)
        submit.click()
        page.locator("#submitted_assignments_list .list_item", has_text=NOTEBOOK).first.wait_for(
            timeout=90_000
        )
        page.screenshot(path=str(screenshots / "exchange-submitted.png"))
    finally:
        server.stop()
    (folder,) = (exchange / "attnbook" / "inbound").iterdir()
    assert folder.name.startswith(f"{student.name}+{NOTEBOOK}+")
    assert os.stat(folder).st_uid == student.uid
    assert (folder / f"{NOTEBOOK}.ipynb").read_bytes() == answer
    work = tmp_path / "work"
    collected = subprocess.run(
        # --lock: the exchange route refuses where students could read the solutions
        [sys.executable, "-m", "grader", "collect", "-a", NOTEBOOK, "--lock", "--work", str(work)],
        cwd=AUTOGRADER,
        env={**os.environ, "ATTNBOOK_EXCHANGE": str(exchange)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert collected.returncode == 0, collected.stderr
    assert "1 collected" in collected.stdout
    taken = work / "collected" / NOTEBOOK / student.name / f"{NOTEBOOK}.ipynb"
    assert taken.read_bytes() == answer
