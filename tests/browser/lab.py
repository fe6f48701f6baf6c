"""JupyterLab servers and page helpers for the browser suite (see README.md beside this file).

Everything here is bounded in time: a server that does not answer within START_TIMEOUT is
stopped and reported, every wait has a deadline, and stopping a server ends its process group.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / ".test-artifacts"
SCRATCH = ARTIFACTS / "browser"
# Servers are session fixtures, one per pytest-xdist worker: each worker's servers keep their
# folders apart, or one worker's fresh start would delete what another is serving. So do its
# screenshots: a worker clears its own folder when it starts, never another's.
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")
SCREENSHOTS = ARTIFACTS / "screenshots" / WORKER
START_TIMEOUT = 150  # first start of `make lab` may build nothing, but two loaded cores are slow

# JupyterLab settings for the test servers (a private settings folder, never the user's):
# no autosave, so running a notebook in the browser never writes it back to the working tree;
# every cell kept in the DOM, so output checks see off-screen cells; no news pop-up.
LAB_SETTINGS = {
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {
        "windowingMode": "none",
        "recordTiming": True,
    },
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}

# An error output is rendered with this MIME type, as is a stderr stream; what tells them
# apart is the traceback text (checked in test_selfcheck.py against a failing cell).
STDERR_OUTPUT = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
# Top-level outputs of a cell (not those nested inside an ipywidgets Output widget).
CELL_OUTPUT = ".jp-Cell-outputArea > .jp-OutputArea-child > .jp-OutputArea-output"
WIDGET_OUTPUT = f"{CELL_OUTPUT}:has(.jupyter-widgets)"
# Controls of ipywidgets 8, as rendered in JupyterLab; a widget's "display" is what is left
# of it once these are removed (HTML, images, Output widgets, their data attributes).
CONTROL_SELECTORS = [
    ".widget-slider",
    ".widget-dropdown",
    ".widget-select",
    ".widget-toggle-button",
    ".widget-toggle-buttons",
    ".widget-checkbox",
    ".widget-radio",
    ".widget-button",
    ".widget-text",
    ".widget-textarea",
    ".widget-play",
    ".widget-colorpicker",
    ".widget-datepicker",
    ".widget-combobox",
    ".widget-tagsinput",
    ".widget-readout",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def write_settings(folder: Path) -> Path:
    for name, values in LAB_SETTINGS.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    return folder


class PortTaken(RuntimeError):
    """The server exited because another process had bound its port first."""


class LabServer:
    """One JupyterLab process (a process group), its URL, token and log."""

    def __init__(
        self,
        name: str,
        command: list[str],
        cwd: Path,
        root: Path,
        port: int,
        token: str,
        env: dict | None = None,
    ):
        self.name, self.command, self.cwd, self.root = name, command, cwd, root
        self.port, self.token = port, token
        self.env = {**os.environ, **(env or {})}
        self.log_path = SCRATCH / f"{name}-{WORKER}-server.log"
        self.process: subprocess.Popen | None = None

    @staticmethod
    def lab_args(name: str, port: int, token: str) -> list[str]:
        """Arguments that make a server private to this test run."""
        state = SCRATCH / f"{name}-{WORKER}"
        return [
            "--no-browser",
            f"--port={port}",
            "--ServerApp.port_retries=0",
            "--ServerApp.ip=127.0.0.1",
            f"--IdentityProvider.token={token}",
            f"--LabApp.user_settings_dir={write_settings(state / 'settings')}",
            f"--LabApp.workspaces_dir={state / 'workspaces'}",
            # JupyterLab checkpoints a notebook it runs: keep them out of the working tree
            f"--FileCheckpoints.checkpoint_dir={state / 'checkpoints'}",
            # window.jupyterapp: the notebook model (outputs, kernel status) for the checks
            "--LabApp.expose_app_in_browser=True",
        ]

    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str, **query: str) -> str:
        params = "&".join([f"token={self.token}", *(f"{k}={v}" for k, v in query.items())])
        return f"{self.base()}/{path.lstrip('/')}?{params}"

    def api(self, method: str, path: str, timeout: float = 10):
        request = urllib.request.Request(self.url(path), method=method)
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read().decode()
        return json.loads(body) if body else None

    def start(self, attempts: int = 3) -> LabServer:
        """Start the server and wait (bounded) until it answers. The port was free when it was
        picked, but is bound only seconds later; if another process took it meanwhile (the
        other pytest-xdist worker's browser or kernels), start again on a new free port."""
        for _ in range(attempts - 1):
            try:
                return self._start_once()
            except PortTaken:
                self._move_to(free_port())
        return self._start_once()

    def _move_to(self, port: int) -> None:
        old = f"--port={self.port}"
        self.command = [part.replace(old, f"--port={port}") for part in self.command]
        self.port = port

    def _start_once(self) -> LabServer:
        SCRATCH.mkdir(parents=True, exist_ok=True)
        log = self.log_path.open("w")
        self.process = subprocess.Popen(
            self.command,
            cwd=self.cwd,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                self.api("GET", "api/status", timeout=5)
                return self
            except (OSError, urllib.error.URLError):
                if self.process.poll() is not None:
                    if f"port {self.port} is" in self.log_tail():  # "... is already in use"
                        raise PortTaken(self.port) from None
                    raise RuntimeError(
                        f"{self.name}: `{' '.join(self.command)}` exited with "
                        f"{self.process.returncode}; log: {self.log_tail()}"
                    ) from None
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(
                        f"{self.name}: no answer within {START_TIMEOUT} s; log: {self.log_tail()}"
                    ) from None
                time.sleep(1)

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log_path.read_text()[-chars:]
        except OSError:
            return "(no log)"

    def shutdown_kernels(self) -> None:
        """Stop every kernel this server started (frees the two shared cores)."""
        try:
            for kernel in self.api("GET", "api/kernels"):
                self.api("DELETE", f"api/kernels/{kernel['id']}", timeout=20)
        except (OSError, urllib.error.URLError, ValueError):
            pass

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.shutdown_kernels()
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


def make_lab_server() -> LabServer:
    """The README's first command, `make lab`, on a free port with a token, serving a fresh
    learner's copy of notebooks/ (WORK, in the scratch folder, not the checkout's work/).

    Each server has its own WORK: pytest-xdist starts one per worker, and a shared folder
    made afresh by the second would delete the files the first is serving."""
    port, token = free_port(), secrets.token_hex(16)
    args = " ".join(LabServer.lab_args("make-lab", port, token))
    work = SCRATCH / f"make-lab-work-{WORKER}"
    shutil.rmtree(work, ignore_errors=True)
    return LabServer(
        "make-lab",
        ["make", "lab", f"LAB_ARGS={args}", f"WORK={work}"],
        cwd=ROOT,
        root=work,
        port=port,
        token=token,
    )


def author_server() -> LabServer:
    """JupyterLab on the repository root, as an instructor or TA runs it.

    It serves both trees (solutions/ and notebooks/) and the scratch folder; its working
    directory holds an nbgrader_config.py that loads autograder/nbgrader_config.py and only
    moves the gradebook into the scratch folder, so the formgrader and the Validate button
    see the workbook's real configuration without touching a TA's autograder/gradebook.db.
    Kernels get NBGRADER_EXECUTION=autograde, the autograder's short budgets (as in
    tests/test_notebooks.py), so the heavy notebooks finish within the suite's time.
    """
    port, token = free_port(), secrets.token_hex(16)
    cwd = SCRATCH / f"author-{WORKER}"
    cwd.mkdir(parents=True, exist_ok=True)
    (cwd / "nbgrader_config.py").write_text(
        "# Written by tests/browser/lab.py: the workbook's configuration, scratch gradebook.\n"
        f"load_subconfig({str(ROOT / 'autograder' / 'nbgrader_config.py')!r})  # noqa: F821\n"
        "c = get_config()  # noqa: F821\n"
        f"c.CourseDirectory.db_url = {'sqlite:///' + str(cwd / 'gradebook.db')!r}\n"
    )
    jupyter = ROOT / ".venv" / "bin" / "jupyter"
    command = [
        str(jupyter),
        "lab",
        f"--ServerApp.root_dir={ROOT}",
        "--ContentsManager.allow_hidden=True",
        *LabServer.lab_args("author", port, token),
    ]
    if os.geteuid() == 0:
        command.append("--allow-root")
    # As README tells a TA: the environment active (the formgrader runs `alembic` from PATH).
    path = f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    return LabServer(
        "author",
        command,
        cwd=cwd,
        root=ROOT,
        port=port,
        token=token,
        env={"NBGRADER_EXECUTION": "autograde", "PATH": path, "VIRTUAL_ENV": str(ROOT / ".venv")},
    )


# ---------------------------------------------------------------------------- page helpers


def open_lab(page, server: LabServer, path: str | None = None, timeout: float = 90) -> None:
    """Load JupyterLab in a fresh workspace, optionally with one file open."""
    workspace = f"t{secrets.token_hex(4)}"
    tail = f"/tree/{quote(path)}" if path else ""
    page.goto(server.url(f"lab/workspaces/{workspace}{tail}", reset=""), timeout=timeout * 1000)
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.shell", timeout=timeout * 1000
    )
    page.locator("#jp-main-dock-panel").wait_for(timeout=timeout * 1000)
    page.locator(".jp-DirListing-content").first.wait_for(timeout=timeout * 1000)


def listed_names(page, expected: list[str], timeout: float = 30) -> list[str]:
    """The file browser's item names, once it lists every one of ``expected`` (bounded wait).

    The listing fills only after JupyterLab has fetched the folder's contents, so reading it
    as soon as the page is up can find it still empty on a loaded machine. Past the timeout
    it returns what is shown, for the caller's assertion to name what is missing.
    """
    items = page.locator(".jp-DirListing-content .jp-DirListing-itemName")
    deadline = time.monotonic() + timeout
    while True:
        shown = [t.strip() for t in items.all_inner_texts()]
        if set(expected) <= set(shown) or time.monotonic() > deadline:
            return shown
        time.sleep(0.5)


KERNEL_STATUS = """() => {
  const w = window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return k ? k.status : null;
}"""


def lab_is_loaded(page, server: LabServer) -> bool:
    """Whether this tab shows a working JupyterLab of this server."""
    try:
        return page.url.startswith(server.base()) and page.evaluate(
            "() => !!(window.jupyterapp && window.jupyterapp.shell)"
        )
    except Exception:  # a crashed or closed page
        return False


def reset_lab(page, server: LabServer) -> None:
    """Make a shared tab clean: dialogs dismissed, every open document closed unsaved.

    A tab whose JupyterLab is gone (crash, timeout mid-load) is loaded again.
    """
    if not lab_is_loaded(page, server):
        open_lab(page, server)
        return
    for _ in range(3):
        if page.locator(".jp-Dialog").count() == 0:
            break
        page.keyboard.press("Escape")
        page.wait_for_timeout(300)
    page.evaluate("""() => {
      for (const w of [...window.jupyterapp.shell.widgets('main')]) {
        if (w.context && w.context.model) { w.context.model.dirty = false; }
        w.dispose();
      }
    }""")


def open_notebook(page, server: LabServer, path: str, timeout: float = 120):
    """Open a notebook; wait for its cells and an idle kernel. Returns the panel locator.

    In a tab that already shows this server's JupyterLab the notebook opens there
    (File > Open's command), otherwise JupyterLab is loaded with the notebook.
    """
    if lab_is_loaded(page, server):
        page.evaluate(
            "async p => { await window.jupyterapp.commands.execute("
            "'docmanager:open', {path: p}); }",
            path,
        )
    else:
        open_lab(page, server, path, timeout)
    page.wait_for_function(
        f"() => {{ const w = window.jupyterapp.shell.currentWidget;"
        f" return w && w.context && w.context.path === {json.dumps(path)}"
        f" && w.context.isReady; }}",
        timeout=timeout * 1000,
    )
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)").last
    panel.locator(".jp-Cell").first.wait_for(timeout=timeout * 1000)
    page.wait_for_function(f"() => ({KERNEL_STATUS})() === 'idle'", timeout=timeout * 1000)
    return panel


def notebook_state(page) -> dict:
    """What the open notebook's model holds: cells, execution counts, error outputs."""
    return page.evaluate("""() => {
      const w = window.jupyterapp.shell.currentWidget;
      const cells = w.content.widgets.map((cell, index) => {
        const m = cell.model;
        const outputs = m.type === 'code' ? m.outputs.toJSON() : [];
        const t = m.getMetadata ? m.getMetadata('execution') : null;
        const seconds = t && t['shell.execute_reply'] && t['iopub.execute_input'] ?
          (Date.parse(t['shell.execute_reply']) - Date.parse(t['iopub.execute_input'])) / 1000
          : null;
        return {index, type: m.type, count: m.type === 'code' ? m.executionCount : null,
                seconds,
                prompt: cell.promptNode ? cell.promptNode.textContent : '',
                source: m.sharedModel.getSource(),
                errors: outputs.filter(o => o.output_type === 'error')
                               .map(o => `${o.ename}: ${o.evalue}`)};
      });
      const k = w.sessionContext.session && w.sessionContext.session.kernel;
      return {cells, kernel: k ? k.status : null, dirty: w.context.model.dirty};
    }""")


def run_all_cells(page, timeout: float) -> dict:
    """Run > Run All Cells from the menu bar; wait (bounded) until the kernel is idle again."""
    page.locator('#jp-MainMenu .lm-MenuBar-itemLabel:text-is("Run")').click()
    page.locator('#jp-mainmenu-run li[data-command="runmenu:run-all"]').click()
    # Queued and running cells show [*]; the run is over when none does and the kernel idles.
    page.wait_for_function(
        """() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden)'
                 + ' .jp-CodeCell .jp-InputPrompt')].some(p => p.textContent.includes('['))""",
        timeout=30_000,
    )
    deadline = time.monotonic() + timeout
    quiet_since = None
    while True:
        state = notebook_state(page)
        busy = any("*" in c["prompt"] for c in state["cells"]) or state["kernel"] != "idle"
        if busy:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since > 1.5:  # idle and settled
            return state
        if time.monotonic() > deadline:
            raise TimeoutError(
                f"Run All Cells did not finish within {timeout:.0f} s "
                f"(kernel {state['kernel']}, running: "
                f"{[c['index'] for c in state['cells'] if '*' in c['prompt']]})"
            )
        time.sleep(0.5)


WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def rendered_widgets(page, timeout: float = 60):
    """The open notebook's widget outputs, once the page shows as many as its model holds.

    A widget view is drawn after its cell has finished (the widget manager fetches its
    model's state first), so on a loaded machine counting them as soon as the kernel is idle
    can find none. This waits (bounded) for the page to catch up with the model.
    """
    expected = page.evaluate(
        """mime => window.jupyterapp.shell.currentWidget.content.widgets
             .filter(c => c.model.type === 'code')
             .flatMap(c => c.model.outputs.toJSON())
             .filter(o => o.data && o.data[mime]).length""",
        WIDGET_MIME,
    )
    widgets = page.locator(f".jp-NotebookPanel:not(.lm-mod-hidden) {WIDGET_OUTPUT}")
    deadline = time.monotonic() + timeout
    while widgets.count() < expected and time.monotonic() < deadline:
        time.sleep(0.5)
    return widgets, expected


TRACEBACK = re.compile(r"Traceback|Error\b|Exception\b|-{5,}")


def dom_errors(page) -> list[str]:
    """Error outputs as the learner sees them: stderr-typed outputs that show a traceback."""
    found = []
    outputs = page.locator(f".jp-NotebookPanel:not(.lm-mod-hidden) {STDERR_OUTPUT}")
    for i in range(outputs.count()):
        text = outputs.nth(i).inner_text()
        if TRACEBACK.search(text):
            found.append(text.strip()[:400])
    return found


def display_signature(widget) -> str:
    """What a widget shows, without its controls: the HTML of its displays and their data."""
    return widget.evaluate(
        """(node, controls) => {
             const copy = node.cloneNode(true);
             copy.querySelectorAll(controls).forEach(c => c.remove());
             return copy.innerHTML;
           }""",
        ", ".join(CONTROL_SELECTORS),
    )


def data_values(widget) -> list[str]:
    """The data-* attributes its displays expose (e.g. .attnbook-bar[data-value]), no controls."""
    return widget.evaluate(
        """(node, controls) => {
             const copy = node.cloneNode(true);
             copy.querySelectorAll(controls).forEach(c => c.remove());
             return [...copy.querySelectorAll('*')].flatMap(e => [...e.attributes]
               .filter(a => a.name.startsWith('data-') && a.name !== 'data-mime-type')
               .map(a => `${e.className}[${a.name}=${a.value}]`));
           }""",
        ", ".join(CONTROL_SELECTORS),
    )


def controls_of(widget) -> list[tuple[str, object]]:
    """Every control of a widget, with how to move it (a list of (kind, locator))."""
    found = []
    for kind, selector in [
        ("slider", ".widget-slider .noUi-handle"),
        ("dropdown", ".widget-dropdown select"),
        ("select", ".widget-select select"),
        ("toggle", ".widget-toggle-button"),
        ("toggles", ".widget-toggle-buttons"),
        ("checkbox", ".widget-checkbox input[type=checkbox]"),
        ("radio", ".widget-radio-box"),
        ("button", ".widget-button:not(.widget-toggle-button)"),
    ]:
        items = widget.locator(selector)
        found += [(kind, items.nth(i)) for i in range(items.count())]
    return found


def move(page, kind: str, control, attempt: int) -> str:
    """Move one control the way a learner would; returns what was done."""
    if kind == "slider":
        control.focus()
        key = "ArrowRight" if attempt == 0 else "ArrowLeft"
        for _ in range(1 if attempt == 0 else 2):
            page.keyboard.press(key)
        return f"slider: {key}"
    if kind in ("dropdown", "select"):
        options = control.locator("option")
        current = control.evaluate("s => s.selectedIndex")
        count = options.count()
        target = (current + 1 + attempt) % count if count else 0
        control.select_option(index=target)
        return f"{kind}: option {current} -> {target}"
    if kind == "toggles":
        buttons = control.locator("button:not(.mod-active)")
        buttons.nth(min(attempt, buttons.count() - 1)).click()
        return "toggle buttons: picked another"
    if kind == "radio":
        radios = control.locator("input:not(:checked)")
        radios.nth(min(attempt, radios.count() - 1)).check()
        return "radio: picked another"
    control.click()
    return f"{kind}: clicked"


WIDGET_FAILED = re.compile(
    r"Error displaying widget|Failed to (load|render)|model not found", re.IGNORECASE
)


def wait_for_change(page, widget, before: str, seconds: float) -> str | None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        now = display_signature(widget)
        if now != before:
            page.wait_for_timeout(300)  # let the rest of the redraw land
            return display_signature(widget)
        page.wait_for_timeout(200)
    return None


def exercise_widget(page, widget, shot: Path, settle: float = 8.0) -> dict:
    """Check one widget renders; move its controls one at a time until what it shows changes.

    Screenshots `<shot>-before.png` and `<shot>-after.png`. Returns a report: the controls
    found, what was moved, whether the display changed, the data-* values before and after.
    """
    widget.scroll_into_view_if_needed()
    widget.locator(".jupyter-widgets").first.wait_for(state="visible")
    text = widget.inner_text()
    report = {
        "rendered": not WIDGET_FAILED.search(text),
        "text": text[:300],
        "controls": [],
        "moved": None,
        "changed": False,
    }
    before = display_signature(widget)
    report["data_before"] = data_values(widget)
    report["shows_something"] = bool(before.strip()) and widget.bounding_box()["height"] > 10
    widget.screenshot(path=str(shot.with_name(shot.name + "-before.png")))
    controls = controls_of(widget)
    report["controls"] = [kind for kind, _ in controls]
    for kind, control in controls:
        for attempt in (0, 1):
            try:
                action = move(page, kind, control, attempt)
            except Exception as error:  # a disabled or hidden control: try the next one
                report.setdefault("skipped", []).append(f"{kind}: {type(error).__name__}")
                break
            after = wait_for_change(page, widget, before, settle)
            if after is not None:
                report.update(moved=action, changed=True, data_after=data_values(widget))
                widget.screenshot(path=str(shot.with_name(shot.name + "-after.png")))
                return report
    return report
