"""nbgrader's JupyterLab extensions: Validate on a student notebook, the formgrader for a TA.

Validate runs where a student presses it, on `make lab`; it saves the notebook first, and the
test answers that save itself so notebooks/ is never written. The formgrader runs on the
author server (JupyterLab on the repository root, working directory with the workbook's
nbgrader configuration), as a TA starts it.
"""

from __future__ import annotations

import os
import time
import urllib.request
from urllib.parse import urlsplit

import nbformat
import pytest

from .conftest import solution_notebooks, student_notebooks
from .lab import ROOT, SCREENSHOTS, open_notebook

# Validate executes the whole notebook (about 25 s each on two cores): by default the first
# student notebook, every one with ATTNBOOK_BROWSER_VALIDATE=all. That every released stub
# fails only with NotImplementedError is tested for all of them in tests/test_notebooks.py.
NOTEBOOKS = student_notebooks()
if os.environ.get("ATTNBOOK_BROWSER_VALIDATE", "first") != "all":
    NOTEBOOKS = NOTEBOOKS[:1]
VALIDATE_LIMIT = 240  # nbgrader executes the whole notebook


def graded_code_cells(path) -> list:
    return [
        c
        for c in nbformat.read(path, as_version=4).cells
        if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade")
    ]


def keep_the_file(server, saves: list):
    """A route handler that answers JupyterLab's saves (PUT /api/contents/...) itself.

    nbgrader's Validate saves the notebook before validating it; answering the save with the
    file's current model leaves the served copy untouched while the server validates the very file
    a student would have saved, unchanged.
    """

    def handle(route):
        request = route.request
        if request.method != "PUT":
            route.continue_()
            return
        saves.append(request.url)
        path = urlsplit(request.url).path.split("/api/contents/", 1)[1]
        url = server.url(f"api/contents/{path}", content="0")
        with urllib.request.urlopen(url, timeout=10) as response:
            route.fulfill(status=200, content_type="application/json", body=response.read())

    return handle


@pytest.mark.browser
@pytest.mark.timeout(VALIDATE_LIMIT + 120)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_validate_button_reports_the_failing_stubs(
    path, student_page, make_lab, screenshots, stop_kernels
):
    """On `make lab`, as a student: open the released notebook, press Validate."""
    page = student_page
    stop_kernels(make_lab)
    served = make_lab.root / path.relative_to(ROOT / "notebooks")  # the learner's copy
    before = served.read_bytes()
    saves: list[str] = []
    handler = keep_the_file(make_lab, saves)
    page.route("**/api/contents/**", handler)
    try:
        open_notebook(page, make_lab, path.relative_to(ROOT / "notebooks").as_posix())
        text = validate(page, path)
    finally:
        page.unroute("**/api/contents/**", handler)
    assert served.read_bytes() == before, f"{served} was written by the test"
    assert saves, "Validate did not save first (nbgrader 0.9 does): was the save intercepted?"
    check_validation_dialog(page, path, text)


def validate(page, path) -> str:
    page.locator(".validate-button").first.click()
    dialog = page.locator(".nbgrader-ErrorDialog, .nbgrader-SuccessDialog")
    dialog.first.wait_for(timeout=VALIDATE_LIMIT * 1000)
    text = dialog.first.inner_text()
    page.screenshot(path=str(SCREENSHOTS / f"validate-{path.stem}.png"))
    return text


def check_validation_dialog(page, path, text: str) -> None:
    assert page.locator(".nbgrader-ErrorDialog").count() == 1, (
        f"{path.stem}: Validate passed a notebook of unfilled stubs: {text[:1000]}"
    )
    # nbgrader's dialog: one "The following cell failed:" paragraph per failing graded cell,
    # then the cell's source and its traceback (#validation-message.validation-failed).
    message = page.locator("#validation-message.validation-failed")
    assert message.count() == 1, f"{path.stem}: no list of failing cells: {text[:1000]}"
    failed = message.locator("p", has_text="The following cell failed").count()
    graded = graded_code_cells(path)
    assert failed == len(graded), (
        f"{path.stem}: Validate reports {failed} failing cells, the notebook has "
        f"{len(graded)} graded test cells that should all fail on the stubs"
    )
    assert "NotImplementedError" in text, f"{path.stem}: no NotImplementedError in {text[:800]}"
    first_lines = [c.source.strip().splitlines()[0] for c in graded if c.source.strip()]
    missing = [line for line in first_lines if line not in text]
    assert not missing, f"{path.stem}: the dialog does not show the failing checks {missing}"


@pytest.mark.browser
@pytest.mark.timeout(240)
def test_formgrader_opens_for_a_ta(author_page, author_lab, screenshots):
    page = author_page  # JupyterLab on the author server, nothing open
    page.locator('#jp-MainMenu .lm-MenuBar-itemLabel:text-is("Nbgrader")').click()
    page.locator('#jp-mainmenu-nbgrader li[data-command="nbgrader:open-formgrader"]').click()
    tab = page.locator(
        "#jp-main-dock-panel .lm-TabBar-tab .lm-TabBar-tabLabel", has_text="Formgrader"
    )
    tab.first.wait_for()
    deadline = time.monotonic() + 60
    while not (frames := [f for f in page.frames if "/formgrader" in f.url]):
        assert time.monotonic() < deadline, f"no formgrader frame: {[f.url for f in page.frames]}"
        page.wait_for_timeout(250)
    frame = frames[0]
    frame.locator(".breadcrumb li").first.wait_for(timeout=60_000)
    assert "Assignments" in frame.locator(".breadcrumb").inner_text()
    expected = sorted(p.parent.name for p in solution_notebooks())
    frame.wait_for_function(
        """names => names.every(n => document.body.innerText.includes(n))""",
        arg=expected,
        timeout=60_000,
    )
    body = frame.locator("body").inner_text()
    page.screenshot(path=str(screenshots / "formgrader.png"))
    assert "formgrader/manage_assignments" in frame.url, frame.url
    assert "not a subdirectory" not in body and "error" not in body.lower()[:200], body[:500]
    missing = [n for n in expected if n not in body]
    assert not missing, f"the formgrader does not list {missing}: {body[:800]}"
