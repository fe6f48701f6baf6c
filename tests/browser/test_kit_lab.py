"""The student kit's JupyterLab, opened as the kit's README says (`.venv/bin/jupyter lab
notebooks` in the unzipped, installed kit): a student sees the notebooks, nbgrader's Validate
button and Assignment List, and no instructor panel (no Formgrader, no Course List, no Create
Assignment), and the server has no formgrader to reach. The TA's route keeps the formgrader:
test_nbgrader.py::test_formgrader_opens_for_a_ta.
"""

from __future__ import annotations

import os
import secrets
import urllib.error
import urllib.request

import pytest

from .lab import LabServer, free_port, listed_names, open_lab, open_notebook

INSTRUCTOR_COMMANDS = (
    "nbgrader:open-formgrader",
    "nbgrader:open-formgrader-local",
    "nbgrader:open-course-list",
    "nbgrader:open-create-assignment",
)
CREATE_ASSIGNMENT_PANEL = "nbgrader-create_assignemnt"  # nbgrader 0.9's id, spelt so


@pytest.fixture(scope="module")
def kit_lab(browser_ready, kit_installed, kit_home):
    """The README's second command in the kit's folder, with the suite's private settings."""
    from kit import clean_env

    port, token = free_port(), secrets.token_hex(16)
    command = [
        str(kit_installed / ".venv" / "bin" / "jupyter"),
        "lab",
        "notebooks",
        *LabServer.lab_args("kit", port, token),
    ]
    if os.geteuid() == 0:
        command.append("--allow-root")
    server = LabServer(
        "kit", command, cwd=kit_installed, root=kit_installed / "notebooks", port=port, token=token
    )
    server.env = clean_env(kit_installed, kit_home)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def status_of(server: LabServer, path: str) -> int:
    try:
        with urllib.request.urlopen(server.url(path), timeout=20) as response:
            return response.status
    except urllib.error.HTTPError as err:
        return err.code


def lab_commands(page) -> dict[str, bool]:
    return page.evaluate(
        """names => Object.fromEntries(names.map(
        n => [n, window.jupyterapp.commands.hasCommand(n)]))""",
        [*INSTRUCTOR_COMMANDS, "nbgrader:open-assignment-list"],
    )


def panel_ids(page, area: str) -> list[str]:
    return page.evaluate("area => [...window.jupyterapp.shell.widgets(area)].map(w => w.id)", area)


@pytest.mark.browser
@pytest.mark.timeout(600)
def test_kit_lab_shows_a_student_no_instructor_panel(page, kit_lab, kit_installed, screenshots):
    open_lab(page, kit_lab)
    expected = sorted(p.name for p in (kit_installed / "notebooks").iterdir())
    shown = listed_names(page, expected)
    missing = [name for name in expected if name not in shown]
    assert not missing, f"the file browser does not list {missing}: {shown}"
    commands = lab_commands(page)
    assert commands == {
        **dict.fromkeys(INSTRUCTOR_COMMANDS, False),
        "nbgrader:open-assignment-list": True,
    }, commands
    assert CREATE_ASSIGNMENT_PANEL not in panel_ids(page, "right"), panel_ids(page, "right")
    page.locator('#jp-MainMenu .lm-MenuBar-itemLabel:text-is("Nbgrader")').click()
    menu = page.locator("#jp-mainmenu-nbgrader")
    menu.wait_for()
    page.screenshot(path=str(screenshots / "kit-lab-nbgrader-menu.png"))
    text = menu.inner_text()
    assert "Assignment List" in text, text
    for label in ("Formgrader", "Course List", "Create assignment"):
        assert label.lower() not in text.lower(), f"the Nbgrader menu offers {label}: {text}"
    page.keyboard.press("Escape")
    assert status_of(kit_lab, "formgrader") == 404
    assert status_of(kit_lab, "formgrader/api/assignments") == 404


@pytest.mark.browser
@pytest.mark.timeout(600)
def test_kit_notebook_has_validate_and_no_create_assignment(
    page, kit_lab, kit_installed, screenshots, stop_kernels
):
    stop_kernels(kit_lab)
    name = sorted(p.name for p in (kit_installed / "notebooks").iterdir())[0]
    panel = open_notebook(page, kit_lab, f"{name}/{name}.ipynb")
    panel.locator(".validate-button").first.wait_for()
    assert page.locator(".nbgrader-CreateAssignmentWidget").count() == 0
    assert CREATE_ASSIGNMENT_PANEL not in panel_ids(page, "right")
    page.screenshot(path=str(screenshots / f"kit-lab-{name}.png"))
