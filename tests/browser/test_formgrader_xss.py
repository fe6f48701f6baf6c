"""Chromium proof: a hostile submission's HTML runs in no page a TA or student opens.

mallory hands in the blank notebook 01 with Markdown and raw cells full of payloads
(tests/test_ta_html.py), among them a <script> that, run in formgrader's page with the TA's
session, gives mallory full marks, ada 0 and writes a file through the server's contents
API. The class (ada: the solution) is graded through `grader.course`, then, in headless
Chromium:

1. mallory's feedback page (file://) runs nothing: the title stays, the listener hears
   nothing, and the notebook's DOM holds no script, handler, frame or `javascript:` URL;
2. formgrader (JupyterLab with nbgrader's formgrader on the graded course, as
   `make formgrader` starts it) shows mallory's submission and nothing runs: no request,
   the grades in the gradebook unchanged, no file written; nor when the stored notebook
   is the raw submission (graded before this configuration): formgrader neutralises it;
3. the control: the same pages rendered by nbgrader's templates without the project's
   configuration, opened at the same addresses, do run the payloads (title changed, the
   listener called, the grades swapped and the file written), so 1 and 2 are not vacuous.
   It changes the gradebook, so it runs last.
"""

from __future__ import annotations

import os
import secrets
import shutil
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import nbformat
import pytest

from .lab import ROOT, SCRATCH, LabServer, free_port

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTEBOOK = "01_attention_scores"
SETTLE_MS = 3000  # after load: images fail, handlers fire, fetches go out


class Listener:
    """An HTTP server on loopback that records every path requested of it."""

    def __init__(self):
        hits = self.hits = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                hits.append(self.path)
                self.send_response(204)
                self.end_headers()

            do_POST = do_GET

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def _formgrader_server(work, db_url: str) -> LabServer:
    """JupyterLab with nbgrader's formgrader on the graded course, as `make formgrader` runs
    it (the project's nbgrader_config.py), with the course's work folder and gradebook."""
    cwd = work.parent / "server"
    cwd.mkdir(parents=True, exist_ok=True)
    folders = "".join(
        f"c.CourseDirectory.{name}_directory = {str(work / name)!r}\n"
        for name in ("submitted", "autograded", "feedback", "release")
    )
    (cwd / "nbgrader_config.py").write_text(
        f"load_subconfig({str(ROOT / 'autograder' / 'nbgrader_config.py')!r})  # noqa: F821\n"
        "c = get_config()  # noqa: F821\n"
        f"c.CourseDirectory.db_url = {db_url!r}\n{folders}"
    )
    port, token = free_port(), secrets.token_hex(16)
    bin_dir = os.path.dirname(sys.executable)
    command = [
        os.path.join(bin_dir, "jupyter"),
        "lab",
        f"--ServerApp.root_dir={ROOT}",
        "--ContentsManager.allow_hidden=True",
        *LabServer.lab_args("formgrader-xss", port, token),
    ]
    if os.geteuid() == 0:
        command.append("--allow-root")
    env = dict(
        os.environ,
        PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        VIRTUAL_ENV=os.path.dirname(bin_dir),
    )
    return LabServer("formgrader-xss", command, cwd=cwd, root=ROOT, port=port, token=token, env=env)


@pytest.fixture(scope="module")
def graded(browser_ready):
    from grader.course import Course, grade_class
    from grader.sample import load_builder
    from grader.sandbox import sandbox_available
    from test_ta_html import formgrader_attack, hostile_notebook

    if not sandbox_available()[0]:
        pytest.skip(f"no sandbox: {sandbox_available()[1]}")
    from grader.catalogue import fill_in, solution_notebook

    listener = Listener()
    scratch = SCRATCH / f"xss-{secrets.token_hex(4)}"  # inside the server's root
    target = scratch / "pwned.txt"
    release = nbformat.read(ROOT / "notebooks" / NOTEBOOK / f"{NOTEBOOK}.ipynb", 4)
    mallory = hostile_notebook(
        release,
        listener.url,
        formgrader_attack(listener.url, target.relative_to(ROOT).as_posix()),
        invalid=False,
    )
    students = {"ada": fill_in(release, solution_notebook(NOTEBOOK)), "mallory": mallory}
    course = Course(root=ROOT, work=scratch / "work", cell_timeout=30, quiet=True)
    folder = load_builder().write_folder(
        scratch / "in",
        {s: {f"{NOTEBOOK}.ipynb": nbformat.writes(nb).encode()} for s, nb in students.items()},
    )
    outcomes = grade_class(course, folder, [NOTEBOOK])
    assert all(o["ok"] for o in outcomes), outcomes
    server = _formgrader_server(course.work, course.db_url).start()
    try:
        yield {
            "course": course,
            "listener": listener,
            "target": target,
            "server": server,
            "mallory": mallory,
            "release": release,
        }
    finally:
        server.stop()
        listener.close()
        shutil.rmtree(scratch, ignore_errors=True)  # the server's log stays in SCRATCH


def _scores(course) -> dict:
    from grader.course import gradebook_rows

    return {r["student_id"]: r["score"] for r in gradebook_rows(course)}


def _submission_url(graded) -> str:
    from nbgrader.api import Gradebook

    with Gradebook(graded["course"].db_url) as gb:
        submission = gb.find_submission_notebook(NOTEBOOK, NOTEBOOK, "mallory").id
    return graded["server"].url(f"formgrader/submissions/{submission}/")


# What of the notebook could run or load something, as the browser built it.
DANGER = """() => {
  const root = document.querySelector('#notebook-container') || document.body;
  const found = [];
  for (const el of root.querySelectorAll('*')) {
    const tag = el.tagName.toLowerCase();
    if (['script', 'iframe', 'frame', 'object', 'embed', 'svg', 'math', 'form', 'base',
         'link', 'meta', 'style', 'video', 'audio', 'template'].includes(tag)) found.push(tag);
    for (const a of el.attributes) {
      const v = a.value.replace(/[\\x00-\\x20]/g, '').toLowerCase();
      if (a.name.startsWith('on') || a.name === 'srcdoc') found.push(tag + ' ' + a.name);
      if (/^(javascript|vbscript|data):/.test(v) && !(tag === 'img' && a.name === 'src'
          && /^data:image\\/(png|jpeg);base64,/.test(v))) found.push(tag + ' ' + a.name + '=' + v);
    }
  }
  return found;
}"""


def _open(page, url: str, events: list, listener: Listener) -> None:
    """Load url; dialogs go to `events`, and every request for the listener's address goes
    to its hits even when Chromium refuses to send it (a page on 127.0.0.1:A may not call
    127.0.0.1:B: local network access), since that a payload ran is what counts."""
    page.on("dialog", lambda dialog: (events.append(dialog.message), dialog.dismiss()))
    page.on(
        "request",
        lambda request: (
            listener.hits.append(request.url[len(listener.url) :])
            if request.url.startswith(listener.url)
            else None
        ),
    )
    page.goto(url, wait_until="load")
    page.wait_for_timeout(SETTLE_MS)


def _log_in(page, server: LabServer) -> None:
    """The TA's session, as JupyterLab's login with the token leaves it: a login cookie."""
    page.goto(server.url("api/status"))
    assert any(c["name"].startswith("username-") for c in page.context.cookies())


def _markers_shown(page) -> list[str]:
    from test_ta_html import TEXT_MARKERS

    text = page.locator("body").inner_text()
    return [m for m in TEXT_MARKERS if m not in text]


def test_feedback_page_runs_no_payload(graded, page, screenshots):
    path = graded["course"].work / "feedback" / "mallory" / NOTEBOOK / f"{NOTEBOOK}.html"
    dialogs: list = []
    _open(page, path.as_uri(), dialogs, graded["listener"])
    page.screenshot(path=str(screenshots / "xss-feedback.png"), full_page=False)
    assert page.title() == NOTEBOOK
    assert graded["listener"].hits == [] and dialogs == []
    assert page.evaluate(DANGER) == []
    assert _markers_shown(page) == []  # the student's text is there, as text


def test_formgrader_submission_runs_no_payload(graded, page, screenshots):
    course, before = graded["course"], _scores(graded["course"])
    assert before["ada"] > 0 and before["mallory"] == 0, before
    dialogs: list = []
    _log_in(page, graded["server"])
    _open(page, _submission_url(graded), dialogs, graded["listener"])
    page.locator("#notebook-container .nbgrader_cell").first.wait_for()
    page.wait_for_timeout(SETTLE_MS)
    page.screenshot(path=str(screenshots / "xss-formgrader.png"), full_page=False)
    assert "PWNED" not in page.title()
    assert graded["listener"].hits == [] and dialogs == []
    assert page.evaluate(DANGER) == []
    assert _markers_shown(page) == []
    assert _scores(course) == before
    assert not graded["target"].exists()


def test_formgrader_neutralises_a_notebook_autograded_without_the_configuration(graded, page):
    """As if mallory had been autograded before this configuration: the stored notebook is
    what she handed in, and formgrader's own exporter must neutralise it."""
    course, before = graded["course"], _scores(graded["course"])
    stored = course.work / "autograded" / "mallory" / NOTEBOOK / f"{NOTEBOOK}.ipynb"
    nbformat.write(graded["mallory"], stored)
    dialogs: list = []
    _log_in(page, graded["server"])
    _open(page, _submission_url(graded), dialogs, graded["listener"])
    page.locator("#notebook-container .nbgrader_cell").first.wait_for()
    page.wait_for_timeout(SETTLE_MS)
    assert "PWNED" not in page.title()
    assert graded["listener"].hits == [] and dialogs == []
    assert page.evaluate(DANGER) == []
    assert _scores(course) == before
    assert not graded["target"].exists()


def test_control_the_same_pages_without_the_configuration_run_the_payloads(graded, page):
    """nbgrader's own templates, unconfigured, on what mallory handed in: the payloads run
    (served at formgrader's address, so with the TA's session, as a real page would be)."""
    from test_ta_html import export

    course, listener = graded["course"], graded["listener"]
    unsafe = course.work.parent / "unsafe-feedback.html"
    unsafe.write_text(export(graded["mallory"], "feedback", None))
    _open(page, unsafe.as_uri(), [], listener)
    assert page.title().startswith("PWNED"), page.title()
    assert _wait_for(lambda: listener.hits), "the feedback payloads called nobody"
    listener.hits.clear()

    url = _submission_url(graded)
    html = export(graded["mallory"], "formgrade", None)
    page.route(
        lambda u: "/formgrader/submissions/" in u,
        lambda route: route.fulfill(status=200, content_type="text/html", body=html),
    )
    _log_in(page, graded["server"])
    _open(page, url, [], listener)
    assert _wait_for(lambda: "/api-done" in listener.hits), listener.hits
    assert _scores(course) == {"ada": 0.0, "mallory": 14.0}  # 14: the notebook's points
    assert graded["target"].read_text() == "pwned"


def _wait_for(condition, seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.25)
    return False
