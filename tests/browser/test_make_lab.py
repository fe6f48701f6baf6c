"""The README's first command, `make lab`, serves the student notebooks in a real browser.

Each student notebook (notebooks/*/*.ipynb, found when the tests run) opens with all its
cells, a kernel that starts, no error output, and nbgrader's Validate button in its toolbar;
the lab has none of nbgrader's instructor panels and no Nbgrader menu.
Nothing is saved: the test servers run with autosave off.
"""

from __future__ import annotations

import json

import nbformat
import pytest

from .conftest import student_notebooks
from .lab import (
    ROOT,
    STDERR_OUTPUT,
    exercise_widget,
    listed_names,
    notebook_state,
    open_lab,
    open_notebook,
    rendered_widgets,
    run_all_cells,
)

NOTEBOOKS = student_notebooks()


@pytest.mark.browser
@pytest.mark.timeout(240)
def test_make_lab_shows_the_notebook_list(page, make_lab, screenshots):
    open_lab(page, make_lab)
    expected = sorted(p.parent.name for p in NOTEBOOKS)
    assert expected, "no student notebooks in notebooks/"
    shown = listed_names(page, expected)
    page.screenshot(path=str(screenshots / "make-lab-file-browser.png"))
    assert set(expected) <= set(shown), f"file browser shows {shown}, expected {expected}"
    # Into the first folder: the notebook itself is listed.
    first = NOTEBOOKS[0]
    page.locator(".jp-DirListing-item", has_text=first.parent.name).first.dblclick()
    page.locator(".jp-DirListing-itemName", has_text=first.name).first.wait_for()
    page.screenshot(path=str(screenshots / "make-lab-file-browser-folder.png"))
    # a learner's lab: the menu bar is JupyterLab's own, without nbgrader's instructor menu
    page.locator('#jp-MainMenu .lm-MenuBar-itemLabel:text-is("Help")').wait_for()
    assert page.locator('#jp-MainMenu .lm-MenuBar-itemLabel:text-is("Nbgrader")').count() == 0
    commands = page.evaluate(
        """names => names.map(n => window.jupyterapp.commands.hasCommand(n))""",
        ["nbgrader:open-formgrader", "nbgrader:open-course-list", "nbgrader:open-assignment-list"],
    )
    assert commands == [False, False, False], commands


@pytest.mark.browser
@pytest.mark.timeout(240)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_student_notebook_opens(path, student_page, make_lab, screenshots, stop_kernels):
    page = student_page
    stop_kernels(make_lab)
    relative = path.relative_to(ROOT / "notebooks").as_posix()
    panel = open_notebook(page, make_lab, relative)
    cells = nbformat.read(path, as_version=4).cells
    state = notebook_state(page)
    page.screenshot(path=str(screenshots / f"student-{path.stem}.png"))
    assert len(state["cells"]) == len(cells), (
        f"{relative}: the browser shows {len(state['cells'])} cells, the file has {len(cells)}"
    )
    assert panel.locator(".jp-Cell").count() == len(cells)
    errors = [c for c in state["cells"] if c["errors"]]
    assert not errors, f"{relative}: error outputs on opening: {json.dumps(errors)[:1000]}"
    assert panel.locator(STDERR_OUTPUT).count() == 0, f"{relative}: stderr shown on opening"
    assert panel.locator(".validate-button").count() == 1, (
        f"{relative}: nbgrader's Validate button is missing from the notebook toolbar"
    )


@pytest.mark.browser
@pytest.mark.timeout(480)
def test_the_learners_lab_reaches_the_solutions_and_their_widgets_respond(
    student_page, make_lab, screenshots, stop_kernels
):
    """A learner alone, stuck: `work/solutions/` (the read-only copy `make lab` makes) opens in
    the same lab, runs, and its widget answers its controls; the lab is still the learner's,
    with no Nbgrader menu."""
    page = student_page
    stop_kernels(make_lab)
    name = NOTEBOOKS[0].stem
    open_notebook(page, make_lab, f"solutions/{name}/{name}.ipynb")
    try:
        state = run_all_cells(page, timeout=150)
    finally:
        page.screenshot(path=str(screenshots / f"make-lab-solution-{name}.png"))
    errors = {c["index"]: c["errors"] for c in state["cells"] if c["errors"]}
    assert not errors, f"solutions/{name}: cells show errors in the learner's lab: {errors}"
    widgets, expected = rendered_widgets(page)
    assert expected >= 1, f"solutions/{name}: no cell displayed a widget in the learner's lab"
    assert widgets.count() == expected, (
        f"solutions/{name}: {widgets.count()} of {expected} widgets drawn in the learner's lab"
    )
    report = exercise_widget(page, widgets.nth(0), screenshots / f"make-lab-widget-{name}")
    assert report["rendered"] and report["controls"] and report["changed"], report
    assert page.locator('#jp-MainMenu .lm-MenuBar-itemLabel:text-is("Nbgrader")').count() == 0
