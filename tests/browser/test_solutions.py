"""Every solution notebook runs in the browser without an error; every widget responds.

The notebooks and their widgets are discovered when the tests run: a new
solutions/NN_topic/NN_topic.ipynb is covered without editing this file, and a widget is any
top-level cell output that renders a `.jupyter-widgets` element.
"""

from __future__ import annotations

import json

import pytest

from .conftest import solution_notebooks
from .lab import (
    ROOT,
    dom_errors,
    exercise_widget,
    open_notebook,
    rendered_widgets,
    run_all_cells,
)

# Seconds for Run All Cells (kernels run with NBGRADER_EXECUTION=autograde, the autograder's
# budgets); the standard is under a minute per notebook on two cores, notebook 07 trains.
RUN_LIMIT = {"07_training": 360}
DEFAULT_RUN_LIMIT = 150


def run_limit(path) -> int:
    return RUN_LIMIT.get(path.stem, DEFAULT_RUN_LIMIT)


NOTEBOOKS = solution_notebooks()


@pytest.mark.browser
@pytest.mark.parametrize(
    "path",
    [pytest.param(p, id=p.stem, marks=pytest.mark.timeout(run_limit(p) + 240)) for p in NOTEBOOKS],
)
def test_solution_runs_in_the_browser_and_its_widgets_respond(
    path, author_page, author_lab, screenshots, stop_kernels
):
    page = author_page
    limit = run_limit(path)
    stop_kernels(author_lab)
    name = path.stem
    relative = path.relative_to(ROOT).as_posix()
    open_notebook(page, author_lab, relative)
    try:
        state = run_all_cells(page, timeout=limit)
    finally:
        page.screenshot(path=str(screenshots / f"solution-{name}-ran.png"))

    timed = sorted((c for c in state["cells"] if c.get("seconds")), key=lambda c: -c["seconds"])
    print(
        f"{name}: slowest cells (index: seconds) "
        + ", ".join(f"{c['index']}: {c['seconds']:.1f}" for c in timed[:5])
    )
    errors = {c["index"]: c["errors"] for c in state["cells"] if c["errors"]}
    assert not errors, f"{relative}: cells show errors after Run All Cells: {errors}"
    shown = dom_errors(page)
    assert not shown, f"{relative}: error outputs on the page: {shown}"
    code = [c for c in state["cells"] if c["type"] == "code" and c["source"].strip()]
    not_run = [c["index"] for c in code if c["count"] is None]
    assert not not_run, f"{relative}: cells not run by Run All Cells: {not_run}"

    widgets, expected = rendered_widgets(page)
    assert widgets.count() == expected, (
        f"{relative}: {widgets.count()} of the {expected} widgets its cells displayed are drawn"
    )
    reports = [
        exercise_widget(page, widgets.nth(i), screenshots / f"widget-{name}-{i + 1}")
        for i in range(widgets.count())
    ]
    summary = [
        {
            k: r.get(k)
            for k in ("rendered", "controls", "moved", "changed", "data_before", "data_after")
        }
        for r in reports
    ]
    (screenshots / f"widgets-{name}.json").write_text(json.dumps(summary, indent=1))
    print(
        f"{name}: {len(code)} code cells ran; {len(reports)} widgets: "
        + json.dumps([{k: r[k] for k in ("controls", "moved", "changed")} for r in reports])
    )
    for i, report in enumerate(reports, start=1):
        assert report["rendered"], f"{relative}: widget {i} failed to render: {report}"
        assert report["shows_something"], f"{relative}: widget {i} shows nothing: {report}"
        if report["controls"]:
            assert report["changed"], (
                f"{relative}: widget {i}: moving its controls {report['controls']} did not "
                f"change what it shows: {json.dumps(report, indent=1)[:2000]}"
            )
    after = dom_errors(page)
    assert not after, f"{relative}: errors appeared while using the widgets: {after}"
