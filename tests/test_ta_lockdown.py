"""The course's private files on a machine students log in to (issue #27, grader/lockdown.py).

The grader writes with umask 077 into a 0700 work folder; on a shared machine (the exchange
route, a machine that holds the course's exchange, or $ATTNBOOK_SHARED_MACHINE=1) `collect`,
`grade` and `release-feedback` refuse to run while another account could read the reference
answers, the solutions, the course's secret or the work folder, naming each path and the
chmod that closes it; `--lock` closes them instead. A TA's own laptop is not stopped.
"""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import ROOT
from grader.lockdown import ExposedError, enforce, exposed, open_to_others, shared_reason

from attnbook.grading import SECRET_FILE

NOTEBOOK = "01_attention_scores"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def make_course(base: Path) -> Path:
    """A course folder as cloned (0755 folders, 0644 files): one notebook's solution, the
    configuration and its reference answers."""
    root = base / "course"
    (root / "solutions" / NOTEBOOK).mkdir(parents=True)
    shutil.copy(ROOT / "solutions" / NOTEBOOK / f"{NOTEBOOK}.ipynb", root / "solutions" / NOTEBOOK)
    (root / "autograder" / "reference").mkdir(parents=True)
    shutil.copy(ROOT / "autograder" / "nbgrader_config.py", root / "autograder")
    shutil.copy(
        ROOT / "autograder" / "reference" / "nb01_attention_scores.py",
        root / "autograder" / "reference",
    )
    for folder, _dirs, files in os.walk(base):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(Path(folder) / name, 0o644)
    return root


def fake_course(root: Path, work: Path):
    return SimpleNamespace(root=root, work=work, config=lambda: SimpleNamespace(Exchange={}))


@pytest.fixture
def tmp_path():
    """A folder other accounts can reach (pytest's own is 0700): in the checkout's scratch."""
    scratch = ROOT / ".test-artifacts"
    scratch.mkdir(exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix="lockdown-", dir=scratch))
    base.chmod(0o755)
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def laptop(monkeypatch, tmp_path):
    """No exchange on this machine, nothing set: a single-user machine."""
    monkeypatch.delenv("ATTNBOOK_SHARED_MACHINE", raising=False)
    monkeypatch.setenv("ATTNBOOK_EXCHANGE", str(tmp_path / "no-exchange-here"))
    monkeypatch.setenv("ATTNBOOK_AUTOGRADER", str(tmp_path / "course" / "autograder"))


def test_a_private_file_in_a_closed_folder_is_not_open(tmp_path):
    folder = tmp_path / "closed"
    folder.mkdir()
    folder.chmod(0o755)  # whatever this process's umask is
    (folder / "key.py").write_text("answer = 42")
    (folder / "key.py").chmod(0o644)
    tmp_path.chmod(0o755)
    assert open_to_others(folder / "key.py")
    folder.chmod(0o700)
    assert not open_to_others(folder / "key.py")  # others cannot pass through `closed`
    assert not open_to_others(folder)


def test_refuses_on_the_exchange_route_naming_each_path_and_the_fix(tmp_path, laptop):
    root = make_course(tmp_path)
    work = tmp_path / "work"
    work.mkdir(mode=0o755)
    work.chmod(0o755)
    course = fake_course(root, work)
    with pytest.raises(ExposedError) as caught:
        enforce(course, exchange_route=True, do_lock=False)
    message = str(caught.value)
    for path in (root / "solutions", root / "autograder" / "reference", work):
        assert str(path) in message
    assert "chmod -R go-rwx" in message and "--lock" in message
    assert "exchange gives every student an account" in message


def test_lock_closes_them_and_keeps_the_owner_able_to_read(tmp_path, laptop):
    root = make_course(tmp_path)
    course = fake_course(root, tmp_path / "work")
    done = enforce(course, exchange_route=True, do_lock=True)
    assert any("the solutions" in line for line in done)
    assert not exposed(course)
    solution = root / "solutions" / NOTEBOOK / f"{NOTEBOOK}.ipynb"
    assert _mode(root / "solutions") == 0o700 and _mode(solution) == 0o600
    assert _mode(root / "autograder" / "reference") == 0o700
    assert solution.read_bytes()  # still the owner's
    assert enforce(course, exchange_route=True, do_lock=False) == []  # nothing left to refuse


def test_a_single_user_machine_is_not_stopped(tmp_path, laptop):
    root = make_course(tmp_path)
    course = fake_course(root, tmp_path / "work")
    assert shared_reason(course, exchange_route=False) == ""
    assert enforce(course, exchange_route=False, do_lock=False) == []
    assert exposed(course)  # open, but nobody else is here to read them


def test_a_machine_with_the_exchange_or_marked_shared_is_guarded(tmp_path, laptop, monkeypatch):
    root = make_course(tmp_path)
    course = fake_course(root, tmp_path / "work")
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    monkeypatch.setenv("ATTNBOOK_EXCHANGE", str(exchange))
    assert "holds nbgrader's exchange" in shared_reason(course, exchange_route=False)
    with pytest.raises(ExposedError):
        enforce(course, exchange_route=False, do_lock=False)
    monkeypatch.setenv("ATTNBOOK_EXCHANGE", str(tmp_path / "none"))
    monkeypatch.setenv("ATTNBOOK_SHARED_MACHINE", "1")
    with pytest.raises(ExposedError, match="ATTNBOOK_SHARED_MACHINE"):
        enforce(course, exchange_route=False, do_lock=False)


def _grader(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ATTNBOOK_")}
    return subprocess.run(
        [sys.executable, "-m", "grader", *args, "--root", str(root)],
        cwd=root / "autograder",
        capture_output=True,
        text=True,
        timeout=300,
        env={**clean, **env},
    )


def test_the_commands_refuse_then_lock_and_write_privately(tmp_path):
    root = make_course(tmp_path)
    exchange, work = tmp_path / "exchange", tmp_path / "work"
    (exchange / "attnbook" / "inbound").mkdir(parents=True)
    env = {"ATTNBOOK_EXCHANGE": str(exchange)}
    refused = _grader(root, "collect", "-a", NOTEBOOK, "--work", str(work), **env)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert f"the solutions: {root / 'solutions'}" in refused.stderr
    assert "chmod -R go-rwx" in refused.stderr
    assert _mode(root / "solutions") == 0o755  # refused: nothing changed
    upload = tmp_path / "upload" / "ada"
    upload.mkdir(parents=True)
    (upload / f"{NOTEBOOK}.ipynb").write_text("{}")
    graded = _grader(root, "grade", str(upload.parent), "--work", str(work), **env)
    assert graded.returncode == 2 and "the solutions" in graded.stderr  # a hub: `grade` too
    if os.geteuid() == 0:  # a submission of `nobody`'s, so that collect writes something
        handed = exchange / "attnbook" / "inbound" / f"nobody+{NOTEBOOK}+2030-01-01 10:00:00 UTC+r"
        handed.mkdir()
        (handed / f"{NOTEBOOK}.ipynb").write_text("{}")
        for path in (handed, handed / f"{NOTEBOOK}.ipynb"):
            os.chown(path, pwd.getpwnam("nobody").pw_uid, pwd.getpwnam("nobody").pw_gid)
    locked = _grader(root, "collect", "-a", NOTEBOOK, "--lock", "--work", str(work), **env)
    assert "locked the solutions" in locked.stdout, locked.stdout + locked.stderr
    assert _mode(root / "solutions") == 0o700
    assert _mode(work) == 0o700
    secret = root / "autograder" / SECRET_FILE
    assert _mode(secret) == 0o600
    written = [p for p in work.rglob("*") if p.is_file()]
    assert written and all(not _mode(p) & 0o077 for p in written), [
        (p, oct(_mode(p))) for p in written
    ]


def test_the_command_line_gives_an_in_process_caller_its_umask_back(tmp_path):
    """`python -m grader` writes with umask 077; called in-process (a test, a notebook) it
    must not leave that umask behind, or the caller's later files are closed to the
    sandbox's throwaway user."""
    from grader.cli import main

    before = os.umask(0o022)
    try:
        with pytest.raises(SystemExit):
            main(["grade", "--help"])
        assert os.umask(0o022) == 0o022
        assert main(["export", "--work", str(tmp_path / "work")]) != 0  # no gradebook there
        assert os.umask(0o022) == 0o022
    finally:
        os.umask(before)
