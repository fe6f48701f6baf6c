"""Where the sandbox cannot start, nothing is graded; a grading that fails is never `ok`.

Fast tests: with `bwrap` missing from PATH, or a `bwrap` that exits 1 ("setting up uid map:
Permission denied", as under Docker's seccomp profile or AppArmor's limit on user
namespaces), every command that grades (`grade` on the sample class's LMS zip, `grade
--from-exchange`, `collect`, `sample`, `catalogue`) stops before anything is written, with
one line on stderr that names the cause and the fix, and exit status 3; the Gradescope
runner finds no isolation and grades nothing. A kernel frame 100,000 levels deep is a lost
kernel with its reason, not a RecursionError.

Slow tests (real kernels, `--sandbox auto`, so they run without bubblewrap too): a kernel
that sends a 100,000-deep frame gives a row that is not `ok` and says why; a regrade that
fails after a success leaves no earlier score, report or feedback page, says what failed in
the CSV, and the next run grades the notebook again.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT, fresh_sandbox_probe
from grader import sandbox, wire
from grader.course import FAILED, Course, export_csv, failure_reason, grade_class
from grader.remote import KernelChannel, KernelLost

NB = "01_attention_scores"
UID_MAP = "bwrap: setting up uid map: Permission denied"


def _builder():
    from grader.sample import load_builder

    return load_builder()


def _failing_bwrap(folder: Path) -> Path:
    """A folder with a `bwrap` that fails as bubblewrap does where it cannot map user ids."""
    folder.mkdir(parents=True, exist_ok=True)
    stub = folder / "bwrap"
    stub.write_text(f"#!/bin/sh\necho '{UID_MAP}' >&2\nexit 1\n")
    stub.chmod(0o755)
    return folder


def _path_without_bwrap(folder: Path) -> str:
    """PATH of folders none of which has a bwrap (the interpreter is run by its full path)."""
    kept = [
        d
        for d in os.environ.get("PATH", "").split(os.pathsep)
        if d and not os.path.exists(os.path.join(d, "bwrap"))
    ]
    folder.mkdir(parents=True, exist_ok=True)
    return os.pathsep.join([str(folder), *kept])


BROKEN = {
    # (PATH for the grader, words the one line must have: the cause, then the fix)
    "absent": (
        lambda tmp: _path_without_bwrap(tmp / "bin"),
        ["bubblewrap (bwrap) is not installed or not on PATH", "install_system_deps.sh"],
    ),
    "exits 1": (
        lambda tmp: f"{_failing_bwrap(tmp / 'bin')}{os.pathsep}{os.environ.get('PATH', '')}",
        ["setting up uid map: Permission denied", "apparmor_restrict_unprivileged_userns=0"],
    ),
}


def _commands(tmp: Path) -> dict[str, list[str]]:
    """Each command that grades, on the sample class (an LMS zip, as a TA downloads it)."""
    build = _builder()
    students = {s: {f"{NB}.ipynb": data} for s, (data, _, _) in build.sample_class(ROOT).items()}
    download = build.write_lms_zip(tmp / "moodle.zip", students)
    work = ["--work", str(tmp / "work")]
    exchange = ["--exchange", str(tmp / "exchange"), "--course-id", "attnbook"]
    return {
        "grade": ["grade", str(download), "-a", NB, *work],
        "grade --from-exchange": ["grade", "--from-exchange", "-a", NB, *exchange, *work],
        "collect": ["collect", "-a", NB, *exchange, *work],
        "sample": ["sample", "--out", str(tmp / "sample")],
        "catalogue": ["catalogue", "-a", NB, "--limit", "1", *work],
    }


def _files(folder: Path) -> dict[str, int]:
    return {
        str(p.relative_to(folder)): p.stat().st_size
        for p in folder.rglob("*")
        if p.is_file() and "bin" not in p.relative_to(folder).parts
    }


@pytest.mark.parametrize("broken", sorted(BROKEN))
@pytest.mark.parametrize(
    "command", ["grade", "grade --from-exchange", "collect", "sample", "catalogue"]
)
def test_without_a_working_sandbox_nothing_is_graded_or_written(tmp_path, broken, command):
    path_of, words = BROKEN[broken]
    path = path_of(tmp_path)
    argv = _commands(tmp_path)[command]
    before = _files(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "grader", *argv],
        cwd=ROOT / "autograder",
        env={**os.environ, "PATH": path},
        capture_output=True,
        text=True,
        timeout=300,
    )
    verb = argv[0]
    assert done.returncode == 3, done.stdout[-2000:] + done.stderr[-2000:]
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"error: {verb}: refused, the sandbox cannot start: "), lines
    for word in [*words, "--sandbox auto"]:
        assert word in lines[0], (word, lines[0])
    assert done.stdout == ""
    assert _files(tmp_path) == before  # no CSV, gradebook, feedback, intake or sample folder
    assert not (tmp_path / "work").exists() and not (tmp_path / "sample").exists()


def test_the_probe_starts_a_real_sandbox(tmp_path, monkeypatch):
    """An installed bwrap that cannot make namespaces is caught by the probe, with the fix."""
    monkeypatch.setenv("PATH", f"{_failing_bwrap(tmp_path)}{os.pathsep}{os.environ['PATH']}")
    with fresh_sandbox_probe(monkeypatch):
        works, why = sandbox.sandbox_available()
    assert not works
    assert "setting up uid map: Permission denied" in why and "exit 1" in why, why
    assert "seccomp=unconfined" in why and "\n" not in why, why


def test_the_probe_passes_where_grading_works():
    """Where bubblewrap is installed and this is not a container that forbids namespaces, the
    probe's sandbox runs Python (the kernel's own start); elsewhere it says why not."""
    sandbox.sandbox_available.cache_clear()
    works, why = sandbox.sandbox_available()
    if sandbox.bwrap_path() is None:
        assert not works and "not installed" in why
    else:
        assert works or why.startswith(sandbox.bwrap_path()), why


def test_a_python_reached_through_a_linked_folder_runs_in_the_sandbox(tmp_path):
    """A venv reached through a symbolic link (`ln -s .venv vlink; vlink/bin/python -m
    grader ...`, or a /home that is a link): the sandbox binds the environment at its real
    path, so the kernel is started by the resolved folder's python, the venv kept (its
    bin/python, itself a link to the base interpreter, is not resolved)."""
    sandbox.sandbox_available.cache_clear()
    if not sandbox.sandbox_available()[0]:
        pytest.skip("the sandbox cannot start here")
    venv = Path(sys.prefix)
    if venv == Path(sys.base_prefix):
        pytest.skip("the tests run outside a virtual environment")
    link = tmp_path / "vlink"
    link.symlink_to(venv.resolve(), target_is_directory=True)
    python = link / "bin" / Path(sys.executable).name
    code = (
        "import sys; from grader import sandbox; "
        "print(sys.prefix); print(sandbox._python()[0]); print(sandbox.sandbox_available())"
    )
    done = subprocess.run(
        [str(python), "-c", code],
        cwd=ROOT / "autograder",
        env={**os.environ, "PYTHONPATH": f"{ROOT / 'autograder'}{os.pathsep}{ROOT}"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    prefix, interpreter, answer = done.stdout.splitlines()
    assert prefix == str(link), done.stdout  # the interpreter was reached through the link
    assert interpreter == str(venv.resolve() / "bin" / python.name)
    assert answer == "(True, '')", done.stdout + done.stderr


def test_a_python_the_sandbox_cannot_run_is_a_path_problem(monkeypatch):
    """An exit 127 ("failed to execute ...") in the probe is no namespace problem, and going
    without the sandbox is no fix for it: the line names the path, not user namespaces."""
    from grader import cli

    sandbox.sandbox_available.cache_clear()
    if not sandbox.sandbox_available()[0]:
        pytest.skip("the sandbox cannot start here")
    missing = "/usr/lib/attnbook-no-such-python/python3"  # inside /usr, which is bound
    monkeypatch.setattr(sandbox, "interpreter", lambda: missing)
    with fresh_sandbox_probe(monkeypatch):
        works, why = sandbox.sandbox_available()
        line = cli.sandbox_refusal("grade")
    assert not works and "exit 127" in why and missing in why, why
    assert sandbox.NOT_RUN in line and "\n" not in line, line
    for wrong in ("user namespaces", "--sandbox auto", "seccomp"):
        assert wrong not in line, line


def test_a_python_outside_the_bound_folders_is_named(monkeypatch):
    monkeypatch.setattr(sandbox, "interpreter", lambda: "/opt/elsewhere/bin/python")
    with fresh_sandbox_probe(monkeypatch):
        works, why = sandbox.sandbox_available()
    if sandbox.bwrap_path() is not None and not sandbox.under_tmp():
        assert not works and "/opt/elsewhere/bin/python" in why and sandbox.NOT_RUN in why


def test_gradescope_finds_no_isolation_with_a_failing_bwrap(tmp_path, monkeypatch):
    """Not root (so no setpriv fallback) and a bwrap that exits 1: nothing runs, and the
    reason is bubblewrap's own message."""
    import grader.gradescope as gradescope

    monkeypatch.setenv("PATH", f"{_failing_bwrap(tmp_path)}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(gradescope.os, "geteuid", lambda: 1000)
    with fresh_sandbox_probe(monkeypatch):
        with pytest.raises(RuntimeError, match="setting up uid map: Permission denied"):
            gradescope.choose_isolation()


# -- frames from the kernel ------------------------------------------------------------------
DEEP = b"[" * 100_000 + b"]" * 100_000
# 2 million empty lists in 6 MB: about 150 MB once parsed, refused before
WIDE = b'{"id": 1, "outputs": [' + b"[]," * 2_000_000 + b"[]]}"


def _send(fd: int, body: bytes) -> threading.Thread:
    def write():
        os.write(fd, struct.pack(">Q", len(body)))
        view = memoryview(body)
        while view:
            view = view[os.write(fd, view) :]

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def test_a_deep_frame_is_a_wire_error_not_a_recursion_error():
    read, write = os.pipe()
    try:
        sender = _send(write, DEEP)
        with pytest.raises(wire.WireError, match="nests deeper"):
            wire.read_frame(read, time.monotonic() + 30)
        sender.join(10)
    finally:
        os.close(read)
        os.close(write)


def test_a_frame_of_too_many_values_is_refused_before_it_is_parsed(monkeypatch):
    def parse(*args, **kwargs):
        raise AssertionError("json.loads reached")

    monkeypatch.setattr(wire.json, "loads", parse)
    with pytest.raises(wire.WireError, match="frame holds 2,000,003 objects and arrays"):
        wire.parse_frame(WIDE)


@pytest.mark.parametrize(
    "body",
    [DEEP, WIDE, b'{"id": 1, "a": [', b"\xff\xfe not json", b"[1, 2]"],
    ids=lambda body: str(body[:40]),
)
def test_a_bad_frame_is_a_lost_kernel_with_the_reason(body):
    requests, replies = os.pipe(), os.pipe()
    try:
        sender = _send(replies[1], body)
        channel = KernelChannel(requests[1], replies[0], 0)
        with pytest.raises(
            KernelLost, match=r"the kernel died \(frame (nests deeper|is not|holds)"
        ):
            channel.request({"op": "ping"}, time.monotonic() + 30)
        sender.join(10)
    finally:
        for fd in (*requests, *replies):
            os.close(fd)


def test_a_kernel_that_stops_reading_its_requests_is_stopped_at_the_time_limit():
    """A kernel that forged a cell's reply and sleeps, its request pipe unread: the next
    request (a cell bigger than the pipe's buffer) must not block the grader in its write,
    past every limit, but end as a kernel that ran past its time limit."""
    requests, replies = os.pipe(), os.pipe()
    outcome: list[BaseException] = []

    def ask():
        channel = KernelChannel(requests[1], replies[0], 0)
        try:
            channel.request({"op": "run", "code": "#" + "x" * 400_000}, time.monotonic() + 1)
        except BaseException as err:  # noqa: BLE001 - KernelLost is what is expected
            outcome.append(err)

    try:
        started = time.monotonic()
        asking = threading.Thread(target=ask, daemon=True)
        asking.start()
        asking.join(30)
        assert not asking.is_alive(), "the grader is blocked writing a request nobody reads"
        assert time.monotonic() - started < 10
        assert isinstance(outcome[0], KernelLost) and outcome[0].timed_out, outcome
        assert os.get_blocking(requests[1])  # the descriptor is left as it was found
    finally:
        for fd in (*requests, *replies):
            os.close(fd)


def test_the_reason_of_a_failure_is_its_exception_line():
    log = (
        "[AutogradeApp | INFO] Converting notebook\nTraceback (most recent call last):\n"
        '  File "x.py", line 1, in f\n    raise RuntimeError("bwrap cannot start")\n'
        "RuntimeError: bwrap cannot start; or grade trusted notebooks only\n"
        "[AutogradeApp | ERROR] There was an error processing assignment\n"
        "nbgrader.converters.base.NbGraderException: Please see the the above traceback\n"
    )
    assert (
        failure_reason(log) == "RuntimeError: bwrap cannot start; or grade trusted notebooks only"
    )
    assert failure_reason("") == "no reason given"
    assert failure_reason("just this\n\n") == "just this"


# -- slow: real gradings -----------------------------------------------------------------------
# A cell that finds the kernel's reply pipe (a write-only pipe) and sends one frame of 100,000
# nested lists on it, as a kernel that has been taken over can.
DEEP_CELL = """import fcntl, os, stat, struct
body = b"[" * 100_000 + b"]" * 100_000
for fd in range(3, 256):
    try:
        if stat.S_ISFIFO(os.fstat(fd).st_mode) and (
            fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY
        ):
            os.write(fd, struct.pack(">Q", len(body)) + body)
    except OSError:
        pass
"""


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    build = _builder()
    solved = build.solved(ROOT)
    deep = build.add_cell_after(solved, "score_matrix", DEEP_CELL)
    inbox = build.write_folder(
        tmp_path_factory.mktemp("download"),
        {
            "ada": {f"{NB}.ipynb": nbformat.writes(solved).encode()},
            "deep": {f"{NB}.ipynb": nbformat.writes(deep).encode()},
        },
    )
    course = Course(root=ROOT, work=tmp_path_factory.mktemp("work"), sandbox="auto", quiet=True)
    outcomes = grade_class(course, inbox, [NB])
    rows = {r["student_id"]: r for r in export_csv(course, course.work / "grades.csv")}
    return {"course": course, "outcomes": outcomes, "rows": rows}


def _no_sandbox_note(status: str) -> str:
    """The status without the `--sandbox auto` note of a machine without bubblewrap."""
    return status.split("); ", 1)[1] if status.startswith("NOT SANDBOXED (") else status


@pytest.mark.slow
def test_a_deep_frame_from_the_kernel_is_a_lost_kernel_with_its_reason(graded):
    assert all(o["ok"] for o in graded["outcomes"]), graded["outcomes"]
    row = graded["rows"]["deep"]
    status = _no_sandbox_note(row["status"])
    assert status != "ok" and "kernel lost" in status, row
    assert "nests deeper than the grader parses" in status, row
    assert row["score"] < 14, row  # the tests after the cell ran without a kernel
    assert _no_sandbox_note(graded["rows"]["ada"]["status"]) == "ok"
    assert graded["rows"]["ada"]["score"] == 14


@pytest.mark.slow
def test_a_regrade_that_fails_leaves_nothing_of_the_earlier_grading(graded, monkeypatch):
    from grader import execute

    course: Course = graded["course"]
    work = course.work
    earlier = [
        work / "autograded" / "ada" / NB / f"{NB}.ipynb",
        work / "feedback" / "ada" / NB / f"{NB}.html",
        work / "reports" / NB / "ada" / f"{NB}.json",
    ]
    assert all(p.exists() for p in earlier)

    def broken(*args, **kwargs):
        raise RuntimeError("the grader broke here")

    monkeypatch.setattr(execute, "run_notebook", broken)
    outcomes = grade_class(course, None, [NB], ["ada"])
    assert [o["ok"] for o in outcomes] == [False]
    assert outcomes[0]["reason"] == "RuntimeError: the grader broke here", outcomes[0]
    rows = {r["student_id"]: r for r in export_csv(course, work / "grades.csv")}
    row = rows["ada"]
    assert row["score"] == 0 and row["feedback"] == "", row
    assert row["status"].startswith(FAILED) and "the grader broke here" in row["status"], row
    assert "the grader broke here" in (work / "grades.csv").read_text()
    assert not any(p.exists() for p in earlier), [p for p in earlier if p.exists()]
    assert "the grader broke here" in course.error_path("ada", NB).read_text()
    assert not course.up_to_date("ada", NB)

    monkeypatch.undo()  # the grader works again: the next run, without --force, regrades it
    outcomes = grade_class(course, None, [NB])
    assert [(o["student"], o["ok"]) for o in outcomes] == [("ada", True)]
    row = {r["student_id"]: r for r in export_csv(course, work / "grades.csv")}["ada"]
    assert row["score"] == 14 and _no_sandbox_note(row["status"]) == "ok", row
    assert all(p.exists() for p in earlier)
    assert not course.error_path("ada", NB).exists()


def test_plain_nbgrader_failure_leaves_a_failed_report_not_an_old_one(tmp_path, monkeypatch):
    """`nbgrader autograde` with the course's configuration: a run that fails replaces the
    earlier report with one whose status says why (what `nbgrader export` writes)."""
    from grader import execute
    from grader.preprocessors import SandboxedExecute

    folder = tmp_path / "reports" / NB / "ada"
    folder.mkdir(parents=True)
    (folder / f"{NB}.json").write_text('{"status": "complete", "tests": {"t": "passed"}}')

    def broken(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(execute, "run_notebook", broken)
    step = SandboxedExecute(
        source_root=str(ROOT / "solutions"), report_directory=str(tmp_path / "reports")
    )
    nb = nbformat.read(ROOT / "solutions" / NB / f"{NB}.ipynb", 4)
    resources = {"nbgrader": {"assignment": NB, "notebook": NB, "student": "ada"}}
    with pytest.raises(RecursionError):
        step.preprocess(nb, resources)
    status = json.loads((folder / f"{NB}.json").read_text())["status"]
    assert status == f"{FAILED}: RecursionError: maximum recursion depth exceeded", status


def test_gradescope_reports_a_failed_grading_as_the_autograders_failure(tmp_path, monkeypatch):
    """A grading that failed for the grader's reasons is not a score of 0 on Gradescope."""
    import grader.gradescope as gradescope

    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / f"{NB}.ipynb").write_text("{}")
    failed = {
        "student": "student",
        "assignment": NB,
        "ok": False,
        "error": "long log",
        "reason": "RuntimeError: the grader broke here",
        "report": {},
        "seconds": 1.0,
    }
    monkeypatch.setattr(gradescope, "grade_class", lambda *a, **k: [failed])
    with pytest.raises(RuntimeError, match="grading failed: RuntimeError: the grader broke here"):
        gradescope.grade_submission(tmp_path, {"assignment": NB}, "bwrap")


def test_a_fresh_kernel_after_a_time_limit_goes_on_with_the_notebooks_cpu_budget(monkeypatch):
    """The grader goes on in a fresh kernel after a cell ran past its limit: the notebook's
    CPU budget (1800 s) counts what the first kernel used, not a fresh 1800 s."""
    from grader import execute
    from grader.sandbox import Limits

    class Kernel:
        def __init__(self, cpu: float, dead: str = ""):
            self.cpu, self.dead = cpu, dead

        def cpu_seconds(self):
            return self.cpu

        def close(self):
            pass

        def request(self, *_):
            self.cpu += 1.0  # replaying the cells before the lost one

    first = Kernel(1800.0, "your code ran past the time limit (300 s of CPU time for a cell)")
    monkeypatch.setattr(execute, "take_kernel", lambda *_: Kernel(5.0))
    run = execute._Run(
        template=None, files_from=None, limits=Limits(), use_sandbox=True, borrowed_credit=0,
        report=execute.RunReport(), kernel=first, budget=None,
        notebook_deadline=time.monotonic() + 3600, cpu_start=100.0, sources=["x = 1", "loop()"],
    )  # fmt: skip
    run.count = 2
    run._stopped(nbformat.v4.new_code_cell("loop()"))
    assert run.restarted and run.kernel is not first
    # 1700 s used by the first kernel: 100 s are left, not the next cell's 300 s
    _, cpu_until = run._limits()  # the fresh kernel is at 6 s (replay included)
    assert cpu_until == pytest.approx(5.0 + Limits().notebook_timeout_s - 1700.0)
