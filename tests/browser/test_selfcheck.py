"""The suite's own detectors, checked against a notebook made to fail.

A cell that raises must be reported (in the model and on the page), a warning on stderr must
not count as an error, Run All Cells must be seen to end when a cell raises, and a widget
whose controls change nothing must be told apart from one that responds. Without this a
selector that matches nothing would let every other test pass. And a server whose port
another process took while it started must start on another, not fail a session's tests.
"""

from __future__ import annotations

import os
import secrets
import socket

import nbformat
import pytest

from .lab import (
    ROOT,
    SCRATCH,
    STDERR_OUTPUT,
    LabServer,
    dom_errors,
    exercise_widget,
    free_port,
    open_notebook,
    rendered_widgets,
    run_all_cells,
)

LIVE = """import ipywidgets as w
slider = w.IntSlider(value=3, min=0, max=10, description="n")
shown = w.HTML()
def redraw(_=None):
    shown.value = f'<div class="probe" data-value="{slider.value}">n = {slider.value}</div>'
slider.observe(redraw, names="value")
redraw()
w.VBox([slider, shown])"""
DEAD = """dead = w.IntSlider(value=3, min=0, max=10, description="dead")
w.VBox([dead, w.HTML('<div class="probe" data-value="fixed">fixed</div>')])"""
CELLS = [
    "print('fine')",
    "import sys\nprint('only a warning', file=sys.stderr)",
    LIVE,
    DEAD,
    # Run All sends every request at once, and the kernel aborts only those that reached it
    # before the error; on a loaded machine the last one can arrive a moment late and run.
    # The pause lets it arrive, so the cell after the error is reliably aborted.
    "import time\ntime.sleep(2)\n1 / 0",
    "print('never runs')",
]


@pytest.mark.browser
@pytest.mark.timeout(300)
def test_detectors_see_a_failing_cell_and_a_dead_widget(
    author_page, author_lab, screenshots, stop_kernels
):
    page = author_page
    stop_kernels(author_lab)
    folder = SCRATCH / "selfcheck"
    folder.mkdir(parents=True, exist_ok=True)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, folder / "failing.ipynb")
    open_notebook(page, author_lab, (folder / "failing.ipynb").relative_to(ROOT).as_posix())
    state = run_all_cells(page, timeout=120)
    page.screenshot(path=str(screenshots / "selfcheck-failing-notebook.png"))

    errors = {c["index"]: c["errors"] for c in state["cells"] if c["errors"]}
    assert list(errors) == [4] and "ZeroDivisionError" in errors[4][0], errors
    shown = dom_errors(page)
    assert len(shown) == 1 and "ZeroDivisionError" in shown[0], shown
    # The stderr line is rendered with the same MIME type but is not an error.
    assert page.locator(STDERR_OUTPUT).count() == 2
    counts = [c["count"] for c in state["cells"]]
    assert counts[:5] == [1, 2, 3, 4, 5] and counts[5] is None, counts

    widgets, expected = rendered_widgets(page)
    assert expected == 2 and widgets.count() == 2, (expected, widgets.count())
    live = exercise_widget(page, widgets.nth(0), screenshots / "selfcheck-live-widget")
    assert live["rendered"] and live["changed"], live
    assert live["data_before"] != live["data_after"], live
    dead = exercise_widget(page, widgets.nth(1), screenshots / "selfcheck-dead-widget", settle=2.0)
    assert dead["rendered"] and dead["controls"] == ["slider"] and not dead["changed"], dead


@pytest.mark.browser
@pytest.mark.timeout(300)
def test_a_server_whose_port_was_taken_starts_on_another(browser_ready, tmp_path):
    """A port is picked free and bound seconds later; one taken meanwhile is not a failure."""
    taken, token = free_port(), secrets.token_hex(16)
    command = [str(ROOT / ".venv" / "bin" / "jupyter"), "lab", f"--ServerApp.root_dir={tmp_path}",
               *LabServer.lab_args("port-taken", taken, token)]  # fmt: skip
    if os.geteuid() == 0:
        command.append("--allow-root")
    server = LabServer("port-taken", command, tmp_path, tmp_path, taken, token)
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", taken))
        blocker.listen()
        try:
            server.start()
            assert server.port != taken, server.port
            assert server.api("GET", "api/status")["started"], server.log_tail()
            assert f"--port={server.port}" in server.command, server.command
        finally:
            server.stop()
