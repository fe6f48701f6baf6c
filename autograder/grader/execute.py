"""Run one submitted notebook: the student's cells in a sandboxed kernel, each test in a
fresh trusted process.

The trust boundary is a process boundary, and nothing trusted shares a process with student
code:

- every code cell the student could have written (setup, answers, demonstrations, cells
  they added) runs in the student's kernel (`grader.kernel`, inside bubblewrap);
- every test cell runs in a new process forked from a pre-warmed fork server (numpy, torch
  and the check library already imported), so no object, cache or constant survives from
  one test, or one student, to the next. Its source is the instructor's (by grade_id, never
  the submission's); its names resolve to the instructor's setup, run in that process, then
  to the student's kernel through `grader.remote`: values cross as copies, an object the
  student made is driven by value through a handle, and nothing is written back into an
  object the grader owns.

Every step has a wall-clock limit. A test whose check runs past it (a crafted answer that
makes some grader-side work slow) is killed with its process and scores 0 with a status; a
kernel that dies, hangs, floods its channel or breaks the protocol is killed with its
sandbox, and only that notebook's later tests are lost.
"""

from __future__ import annotations

import ast
import atexit
import base64
import contextlib
import io
import json
import logging
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat

from grader import wire
from grader.forkserver import ForkServer
from grader.remote import KernelChannel, KernelLost, StudentNames, rebuild_exception
from grader.sandbox import (
    ForkedKernel,
    KernelZygote,
    Limits,
    forks_kernels,
    kernel_command,
    kernel_env,
    limit_resources,
    sandbox_available,
    throwaway_ids,
)

__all__ = [
    "Template",
    "close_spare",
    "names_used",
    "rebuild_exception",
    "run_notebook",
    "run_test",
    "start_kernels_ahead",
    "take_kernel",
]

LOST = "KernelStopped"
COPY_LIMIT = 50 * 1024 * 1024
GRACE_S = 15.0  # a test's own work beyond the time its kernel calls may take
SOURCE_LIMIT = 2_000_000  # characters of student code the grader parses for names


def nbgrader_meta(cell) -> dict:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return meta if isinstance(meta, dict) else {}


def is_test_cell(cell) -> bool:
    meta = nbgrader_meta(cell)
    return bool(meta.get("grade")) and not meta.get("solution")


@dataclass
class Template:
    """What the grader trusts from the instructor's notebook: setup cells and test cells,
    each test's points, and the notebook's name (which `grader.borrowed` rules apply)."""

    setup: list[str]
    tests: dict[str, str]
    name: str = ""
    points: dict[str, float] = field(default_factory=dict)

    @classmethod
    def from_notebook(cls, nb, name: str = "") -> Template:
        setup = [
            c.source
            for c in nb.cells
            if c.cell_type == "code" and "setup" in c.get("metadata", {}).get("tags", [])
        ]
        cells = [c for c in nb.cells if c.cell_type == "code" and is_test_cell(c)]
        tests = {nbgrader_meta(c)["grade_id"]: c.source for c in cells}
        points = {
            nbgrader_meta(c)["grade_id"]: float(nbgrader_meta(c).get("points") or 0) for c in cells
        }
        return cls(setup, tests, name, points)

    @classmethod
    def from_path(cls, path: Path) -> Template:
        return cls.from_notebook(nbformat.read(path, as_version=4), Path(path).stem)


# -- the student's kernel -----------------------------------------------------------------
class StudentKernel:
    """A `grader.kernel` process in the sandbox, and the pipes to talk to it. With `wait`
    false the constructor returns as soon as the process is started (a kernel started ahead,
    `take_kernel`); `adopt` then waits for it and hands it the student's files."""

    started = 0  # kernels this process has started; the parity is the throwaway-id slot

    def __init__(
        self, files_from: Path | None, limits: Limits, use_sandbox: bool, wait: bool = True
    ):
        self.limits, self.dead, self.ready, self.sandboxed = limits, "", False, use_sandbox
        self.tmp = Path(tempfile.mkdtemp(prefix="attnbook-kernel-"))
        ids = throwaway_ids(StudentKernel.started % 2) if use_sandbox else None
        StudentKernel.started += 1
        req_r, self.req_w = os.pipe()
        self.rep_r, rep_w = os.pipe()
        self.zygote: KernelZygote | None = None
        self.own: Path | None = None
        self.proc: subprocess.Popen | ForkedKernel
        if ids is not None and forks_kernels(use_sandbox):
            self._fork(files_from, ids, (req_r, rep_w))
        else:
            own = self.tmp / "own"
            own.mkdir()
            if files_from is not None:
                _copy_own_files(files_from, own)
            command = kernel_command(own, (req_r, rep_w), use_sandbox, ids, limits)
            self.log = open(self.tmp / "sandbox.log", "wb")  # noqa: SIM115 - closed in close()
            self.proc = subprocess.Popen(
                command,
                env=kernel_env(limits, use_sandbox),
                cwd=own,
                pass_fds=(req_r, rep_w),
                stdin=subprocess.DEVNULL,
                stdout=self.log,
                stderr=self.log,
                preexec_fn=limit_resources(limits),
                start_new_session=True,
            )
        os.close(req_r)
        os.close(rep_w)
        self.next_id = 0
        if wait:
            self.wait_ready()

    def _fork(self, files_from: Path | None, ids: tuple[int, int], fds: tuple[int, int]) -> None:
        """Fork the kernel from this process's zygote, with the student's files in a folder of
        the zygote's that the kernel copies at its start (removed once it has started)."""
        self.log = open(os.devnull, "wb")  # noqa: SIM115 - the zygote keeps the log
        try:
            self.zygote = KernelZygote.get(self.limits)
            self.own = Path(tempfile.mkdtemp(dir=self.zygote.folder))
            if files_from is not None:
                _copy_own_files(files_from, self.own)
            self.proc = ForkedKernel(self.zygote, self.zygote.fork(self.own, ids, self.limits, fds))
        except (OSError, RuntimeError, ValueError) as err:
            self.dead = f"the kernel did not start: {err}"
            self.proc = ForkedKernel(None, -1)

    def wait_ready(self) -> None:
        """Read the kernel's first frame (it has imported numpy and torch), or kill it."""
        if self.ready or self.dead:
            return
        try:
            wire.read_frame(self.rep_r, time.monotonic() + 120)
            self.ready = True
        except (wire.WireError, TimeoutError) as err:
            self.kill(f"the kernel did not start: {err}; {self.log_tail()}")
        if self.zygote is not None and self.own is not None:  # the kernel has copied them
            shutil.rmtree(self.own, ignore_errors=True)

    def adopt(self, files_from: Path | None) -> None:
        """Give a kernel started without files the student's own files, before any cell."""
        self.wait_ready()
        if files_from is None or self.dead:
            return
        own = self.tmp / "own"
        _copy_own_files(files_from, own)
        if self.sandboxed and any(own.iterdir()):  # the sandbox shows `own` read-only
            with contextlib.suppress(KernelLost):  # a lost kernel is reported by its cells
                self.request({"op": "adopt"}, time.monotonic() + self.limits.cell_timeout_s)

    def log_tail(self) -> str:
        if self.zygote is not None:
            return self.zygote.log_tail()
        self.log.flush()
        return (self.tmp / "sandbox.log").read_bytes()[-600:].decode(errors="replace")

    def channel(self) -> KernelChannel:
        limit = f" ({self.limits.cell_timeout_s:g} s for a cell)"
        return KernelChannel(self.req_w, self.rep_r, self.next_id, limit)

    def request(self, message: dict, deadline: float) -> dict:
        if self.dead:
            raise KernelLost(self.dead)
        channel = self.channel()
        try:
            return channel.request(message, deadline)
        except KernelLost as lost:
            code = self.proc.poll()
            self.kill(str(lost) if code is None else f"{lost} (exit status {code})")
            raise KernelLost(self.dead) from None
        finally:
            self.next_id = channel.next_id

    def resync(self, after_id: int) -> None:
        """After a test process was stopped mid-request: drop late replies, or give up."""
        self.next_id = max(self.next_id, after_id) + 1_000_000
        with contextlib.suppress(KernelLost):
            self.request({"op": "ping"}, time.monotonic() + 10)

    def kill(self, reason: str) -> None:
        self.dead = self.dead or reason
        if isinstance(self.proc, ForkedKernel):
            self.proc.kill()
        elif self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, 9)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=10)

    def close(self) -> None:
        self.kill(self.dead or "closed")
        for fd in (self.req_w, self.rep_r):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)
        if self.zygote is not None and self.own is not None:
            shutil.rmtree(self.own, ignore_errors=True)


# -- a kernel started ahead ------------------------------------------------------------------
# A kernel's start (Python, IPython, numpy, torch, in bubblewrap) takes seconds. A process
# that grades notebook after notebook (the TA command's workers) starts the next notebook's
# kernel while the current one runs. It is a sandbox of its own: a new process from the
# grader, not a fork of anything a student touched, with the other throwaway id; it runs no
# code but the kernel's own until its notebook takes it, and receives its student's files
# then. Its start-up does not count against that notebook's time limits.
@dataclass
class _Ahead:
    enabled: bool = False
    spare: StudentKernel | None = None


_ahead = _Ahead()


def start_kernels_ahead(enabled: bool) -> None:
    """Whether `take_kernel` starts a kernel for the next notebook of this process (one
    already started is still taken; `close_spare` ends it)."""
    _ahead.enabled = bool(enabled)


def close_spare() -> None:
    spare, _ahead.spare = _ahead.spare, None
    if spare is not None:
        spare.close()


atexit.register(close_spare)


def take_kernel(files_from: Path | None, limits: Limits, use_sandbox: bool) -> StudentKernel:
    """A fresh kernel with the student's files: the one started ahead when there is one for
    these limits (and, while enabled, a new one started for the next notebook), else a new
    one. Only sandboxed kernels are started ahead."""
    if forks_kernels(use_sandbox):  # a fork from the zygote is cheap: nothing to start ahead
        close_spare()
        return StudentKernel(files_from, limits, use_sandbox)
    kernel, _ahead.spare = _ahead.spare, None
    if kernel is not None and (
        not use_sandbox or kernel.limits != limits or kernel.proc.poll() is not None
    ):
        kernel.close()
        kernel = None
    if not (use_sandbox and (kernel is not None or _ahead.enabled)):
        return StudentKernel(files_from, limits, use_sandbox)
    if kernel is None:
        kernel = StudentKernel(None, limits, use_sandbox, wait=False)
    if _ahead.enabled:
        _ahead.spare = StudentKernel(None, limits, use_sandbox, wait=False)
    kernel.adopt(files_from)
    return kernel


def _copy_own_files(source: Path, dest: Path) -> None:
    """The student's own files (data they saved, modules they wrote), but no notebook."""
    total = 0
    for path in sorted(source.rglob("*")):
        if path.is_symlink() or not path.is_file() or path.suffix == ".ipynb":
            continue
        total += path.stat().st_size
        if total > COPY_LIMIT:
            break
        target = dest / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)


# -- the names a student's function uses, from its source ----------------------------------
def names_used(sources: list[str], name: str) -> set[str] | None:
    """The names `name`'s last definition in `sources` uses, and those of the student's own
    functions and classes it reaches; None when there is no readable definition.

    Read from the source text, in the grader: the kernel is never asked (see
    `attnbook.checks._source`, which the visible checks share).
    """
    from attnbook.checks._source import definitions, names_reached

    text = "\n\n".join(sources)
    if len(text) > SOURCE_LIMIT:
        return None
    defs: dict[str, ast.AST] = {}
    for source in sources:
        with contextlib.suppress(SyntaxError, ValueError, RecursionError, MemoryError):
            defs.update(definitions(ast.parse(source)))
    if name not in defs:
        return None
    return names_reached(name, defs)


# -- one test, in a fresh trusted process --------------------------------------------------
def _trusted_setup(setup: list[str]) -> dict:
    namespace: dict = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        for source in setup:
            exec(compile(source, "<instructor setup>", "exec"), namespace)
    logging.getLogger().handlers[:] = []
    return namespace


def _error(ename: str, evalue: str) -> dict:
    return {
        "output_type": "error",
        "ename": ename,
        "evalue": evalue,
        "traceback": [f"{ename}: {evalue}"],
    }


def _borrowed(job: dict) -> list[str]:
    """What the test's subjects borrow (`grader.borrowed`), read from the submission's
    source: one message per call, naming it."""
    from grader.borrowed import borrowed_in_test

    try:
        found = borrowed_in_test(job.get("notebook", ""), job["source"], job["sources"])
    except (RecursionError, MemoryError, ValueError):
        return []
    return [b.message() for b in found]


def borrowed_note(borrowed: list[str], score: float, points: float) -> str:
    return (
        f"{'; '.join(borrowed)}. This test scores {score:g} of {points:g} points: the "
        "course's setting for borrowed answers."
    )


def test_process(job: dict, request_fd: int, reply_fd: int, result_fd: int) -> None:
    """Runs in a child of the fork server: one instructor test against the student's kernel;
    writes its outcome (JSON) to `result_fd`, with what its subjects borrow
    (`grader.borrowed`)."""
    import torch

    torch.set_num_threads(1)
    channel = KernelChannel(request_fd, reply_fd, job["id"], job["limit_text"])
    channel.deadline = job["deadline_wall"] - time.time() + time.monotonic()
    out = io.StringIO()
    outcome: dict[str, object] = {"verdict": "passed", "error": None, "kill": "", "borrowed": []}
    try:
        sources = job["sources"]
        outcome["borrowed"] = _borrowed(job)
        trusted = _trusted_setup(job["setup"])
        names = StudentNames(trusted, channel, lambda name: names_used(sources, name))
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            exec(compile(job["source"], f"<test {job['grade_id']}>", "exec"), dict(trusted), names)
    except KernelLost as lost:
        outcome.update(verdict="lost", error=_error(LOST, str(lost)), kill=str(lost))
    except Exception as err:  # a failing check is the expected way to lose points
        outcome.update(verdict="failed", error=_error(type(err).__name__, str(err)))
    outcome["stdout"] = out.getvalue()[:200_000]
    outcome["id"] = channel.next_id
    data = json.dumps(outcome).encode("utf-8", errors="surrogatepass")
    view = memoryview(data)
    while view:
        view = view[os.write(result_fd, view) :]
    os.close(result_fd)


def _read_all(fd: int, deadline: float, limit: int = 64 * 1024 * 1024) -> bytes | None:
    """Everything written to `fd` until its writer closes it, or None at the deadline."""
    chunks, size = list[bytes](), 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return None
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)


def run_test(
    source: str,
    grade_id: str,
    template: Template,
    kernel: StudentKernel,
    deadline: float,
    sources: list[str],
    borrowed_credit: float = 0.0,
    borrowed: dict[str, str] | None = None,
) -> tuple[list, str]:
    """Run an instructor's test in a fresh process; its outputs and its verdict. A borrowed
    answer (`grader.borrowed`) is noted in `borrowed` (grade_id -> message) and gets
    `borrowed_credit` of the test's points: none (an error naming the call, after the
    check's own outputs) by default, else that fraction if the test passes (nbgrader's
    partial credit)."""
    if kernel.dead:
        return [_new_output(_error(LOST, kernel.dead))], "lost"
    points = template.points.get(grade_id, 0.0)
    job = {
        "source": source,
        "grade_id": grade_id,
        "setup": template.setup,
        "deadline_wall": time.time() + deadline - time.monotonic(),
        "sources": sources,
        "id": kernel.next_id,
        "limit_text": f" ({kernel.limits.cell_timeout_s:g} s for a cell)",
        "notebook": template.name,
        "credit": borrowed_credit,
        "points": points,
    }
    result_r, result_w = os.pipe()
    fds = [os.dup(kernel.req_w), os.dup(kernel.rep_r), result_w]
    try:
        pid = ForkServer.get().start(job, fds)
    finally:
        for fd in fds:
            os.close(fd)
    try:
        data = _read_all(result_r, deadline + GRACE_S)
    finally:
        os.close(result_r)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    try:
        outcome = json.loads(data.decode("utf-8", errors="replace")) if data else None
    except (ValueError, RecursionError):
        outcome = None
    if not isinstance(outcome, dict):
        kernel.resync(kernel.next_id + 1_000_000)
        why = (
            "the check of this test ran past the grader's time limit"
            if data is None
            else "the check stopped unexpectedly"
        )
        return [_new_output(_error("GraderTimeout", f"{why}; the test scores 0"))], "failed"
    kernel.next_id = max(kernel.next_id, int(outcome.get("id") or 0))
    if outcome.get("kill"):
        kernel.kill(str(outcome["kill"]))
    outputs = []
    if outcome.get("stdout"):
        outputs.append(nbformat.v4.new_output("stream", name="stdout", text=str(outcome["stdout"])))
    verdict = str(outcome.get("verdict"))
    found = [str(m) for m in outcome.get("borrowed") or []]
    if found and borrowed is not None:
        borrowed[grade_id] = "; ".join(found)
    if isinstance(outcome.get("error"), dict):
        outputs.append(_new_output(outcome["error"]))
    if found and borrowed_credit <= 0:  # after the check's own outputs: its hint stays
        outputs.append(_new_output(_error("BorrowedAnswer", borrowed_note(found, 0, points))))
        verdict = "failed" if verdict == "passed" else verdict
    elif found:
        score = round(min(borrowed_credit, 1.0) * points, 6) if verdict == "passed" else 0
        outputs.append(
            nbformat.v4.new_output(
                "stream",
                name="stdout",
                text="Borrowed answer: " + borrowed_note(found, score, points) + "\n",
            )
        )
        if verdict == "passed":  # nbgrader reads a number as the cell's partial credit
            outputs.append(
                nbformat.v4.new_output(
                    "execute_result", execution_count=None, data={"text/plain": f"{score:g}"}
                )
            )
    return outputs, verdict


def _new_output(error: dict) -> nbformat.NotebookNode:
    return nbformat.v4.new_output(
        "error", ename=error["ename"], evalue=error["evalue"], traceback=error["traceback"]
    )


# -- outputs of student cells -------------------------------------------------------------
@dataclass
class OutputBudget:
    """Caps on what a notebook's outputs may hold, per output type, per cell and in all."""

    text_chars: int = 20_000  # one stream, one text/plain, one error message
    displays: int = 20  # rich outputs per cell
    png_chars: int = 1_500_000  # one image, base64
    cell_chars: int = 2_000_000  # everything of one cell
    notebook_chars: int = 8_000_000  # everything of the notebook
    used: int = 0

    def clean(self, raw) -> list:
        """The kernel's outputs rebuilt from plain strings within the caps: no HTML, no
        scripts, no oversized images reach the autograded notebook or the feedback."""
        outputs, cell, displays, dropped = [], 0, 0, 0
        for item in raw if isinstance(raw, list) else []:
            output = self._one(item) if isinstance(item, dict) else None
            if output is None:
                continue
            if output.output_type == "display_data":
                displays += 1
                if displays > self.displays:
                    dropped += 1
                    continue
            size = len(json.dumps(output))
            if cell + size > self.cell_chars or self.used + size > self.notebook_chars:
                dropped += 1
                continue
            cell += size
            self.used += size
            outputs.append(output)
        if dropped:
            outputs.append(
                nbformat.v4.new_output(
                    "stream",
                    name="stdout",
                    text=f"[{dropped} output(s) not kept: over the "
                    "limit of outputs per cell or per notebook]\n",
                )
            )
        return outputs

    def _one(self, item: dict):
        kind, limit = item.get("output_type"), self.text_chars
        if kind == "stream":
            name = "stderr" if item.get("name") == "stderr" else "stdout"
            return nbformat.v4.new_output(
                "stream", name=name, text=_capped(str(item.get("text", "")), limit)
            )
        if kind == "display_data" and isinstance(item.get("data"), dict):
            data = {}
            if isinstance(item["data"].get("text/plain"), str):
                data["text/plain"] = item["data"]["text/plain"][:limit]
            png = item["data"].get("image/png")
            if isinstance(png, str) and len(png) <= self.png_chars and _is_png(png):
                data["image/png"] = png
            return nbformat.v4.new_output("display_data", data=data) if data else None
        if kind == "error":
            tb = item.get("traceback")
            lines = [str(t)[:2000] for t in tb][:40] if isinstance(tb, list) else []
            return nbformat.v4.new_output(
                "error",
                ename=str(item.get("ename", "Error"))[:200],
                evalue=str(item.get("evalue", ""))[:limit],
                traceback=lines,
            )
        return None


def _capped(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[output truncated: {len(text) - limit} more characters not kept]\n"


def _is_png(data: str) -> bool:
    try:
        return base64.b64decode(data[:64] + "=" * (-len(data[:64]) % 4), validate=True).startswith(
            b"\x89PNG\r\n\x1a\n"
        )
    except ValueError:
        return False


# -- one notebook -------------------------------------------------------------------------
@dataclass
class RunReport:
    status: str = "complete"  # or "kernel lost at cell N: why"
    seconds: float = 0.0
    tests: dict[str, str] = field(default_factory=dict)  # grade_id -> passed/failed/lost
    sandboxed: bool = True
    grader_timeouts: list[str] = field(default_factory=list)  # tests whose check was stopped
    borrowed: dict[str, str] = field(default_factory=dict)  # grade_id -> the calls it borrows
    # the student's cells that raised: [cell number as the page shows it (In [n]), exception]
    errors: list[list] = field(default_factory=list)

    def to_json(self) -> dict:
        return asdict(self)


def run_notebook(
    nb,
    template: Template,
    files_from: Path | None = None,
    limits: Limits | None = None,
    sandbox: str = "bwrap",
    borrowed_credit: float = 0.0,
) -> RunReport:
    """Execute `nb` in place (outputs filled in); return what happened. `borrowed_credit`:
    the fraction of a test's points that a borrowed answer gets (see `run_test`)."""
    if not 0.0 <= borrowed_credit <= 1.0:
        raise ValueError(
            f"borrowed_credit: expected a fraction of the points from 0 to 1, "
            f"got {borrowed_credit!r}"
        )
    limits = limits or Limits()
    use_sandbox = _use_sandbox(sandbox)
    ForkServer.get()  # started (once per process) before any time limit runs
    started = time.monotonic()
    run = _Run(
        template=template,
        files_from=files_from,
        limits=limits,
        use_sandbox=use_sandbox,
        borrowed_credit=borrowed_credit,
        report=RunReport(sandboxed=use_sandbox),
        kernel=take_kernel(files_from, limits, use_sandbox),
        budget=OutputBudget(text_chars=limits.output_chars),
        notebook_deadline=started + limits.notebook_timeout_s,
    )
    try:
        for cell in nb.cells:
            if cell.cell_type == "code":
                run.cell(cell)
    finally:
        if run.kernel.dead and run.report.status == "complete":
            run.report.status = f"kernel lost: {run.kernel.dead}"
        run.kernel.close()
    _final_status(run.report, use_sandbox, sandbox)
    run.report.seconds = round(time.monotonic() - started, 3)
    return run.report


RESTARTED = (
    "; the grader went on without this cell, in a fresh kernel that ran the cells before it again"
)


@dataclass
class _Run:
    """One notebook's execution, cell by cell: the kernel, the cells it has run, where it
    stopped. The first time a cell runs past its time limit (an answer cell, or a test that
    calls a function that loops), the grader goes on in a fresh kernel that runs the cells
    before it again and skips that one, so later answers are still graded. A second stop
    ends the notebook: every later cell is `not run`."""

    template: Template
    files_from: Path | None
    limits: Limits
    use_sandbox: bool
    borrowed_credit: float
    report: RunReport
    kernel: StudentKernel
    budget: OutputBudget
    notebook_deadline: float
    sources: list[str] = field(default_factory=list)
    count: int = 0
    stubs_only: bool | None = None  # the answer cells since the last test: all still stubs?
    stopped_at: int = 0  # the cell (In [n]) where the kernel stopped for good, once it has
    restarted: bool = False

    def cell(self, cell) -> None:
        self.count += 1
        cell.execution_count, cell.outputs = self.count, []
        grade_id = str(nbgrader_meta(cell).get("grade_id") or "")
        is_test = is_test_cell(cell) and grade_id in self.template.tests
        if is_test:
            cell.source = self.template.tests[grade_id]
        if self.kernel.dead and self.stopped_at:  # said once, at the cell where it stopped
            if is_test:
                self.report.tests[grade_id] = "lost"
            cell.outputs = [_new_output(_error(NOT_RUN, not_run(self.stopped_at)))]
            return
        if self.kernel.dead:  # it stopped before this cell, not in a cell of the notebook
            self.stopped_at = self.count
        if is_test:
            self._test(cell, grade_id)
        else:
            self._answer(cell)
        if self.kernel.dead:
            self._stopped(cell)

    def _deadline(self) -> float:
        return min(time.monotonic() + self.limits.cell_timeout_s, self.notebook_deadline)

    def _test(self, cell, grade_id: str) -> None:
        cell.outputs, verdict = run_test(
            cell.source,
            grade_id,
            self.template,
            self.kernel,
            self._deadline(),
            list(self.sources),
            self.borrowed_credit,
            self.report.borrowed,
        )
        if any(o.get("ename") == "GraderTimeout" for o in cell.outputs):
            self.report.grader_timeouts.append(grade_id)
        if verdict == "failed" and self.stubs_only:
            verdict = "unanswered"  # nothing written in the answers it tests
        self.report.tests[grade_id] = verdict
        self.stubs_only = None

    def _answer(self, cell) -> None:
        stub = False
        if nbgrader_meta(cell).get("solution"):
            stub = is_stub(cell.source)
            self.stubs_only = stub if self.stubs_only is None else self.stubs_only and stub
        if self.kernel.dead:
            cell.outputs = [_new_output(_error(LOST, self.kernel.dead))]
            return
        self.sources.append(cell.source)
        try:
            reply = self.kernel.request({"op": "run", "source": cell.source}, self._deadline())
        except KernelLost as lost:
            cell.outputs = [_new_output(_error(LOST, str(lost)))]
            return
        cell.outputs = self.budget.clean(reply.get("outputs"))
        raised = [
            o
            for o in cell.outputs
            if o.get("output_type") == "error" and o.get("ename") != UNWRITTEN
        ]  # a stub's NotImplementedError (or a call of one) says "unanswered"
        if raised and not stub:
            self.report.errors.append([self.count, str(raised[0].get("ename", "Error"))])

    def _stopped(self, cell) -> None:
        """The kernel stopped in this cell: go on in a fresh one the first time it ran past
        its time limit, else stop here (later cells are not run)."""
        why = self.kernel.dead
        note = f"kernel lost at cell {self.count}: {why}"
        timed_out = "ran past the time limit" in why
        if self.restarted or not timed_out or time.monotonic() >= self.notebook_deadline:
            self.stopped_at = self.count
            if self.report.status == "complete":
                self.report.status = note
            elif self.restarted:
                self.report.status += f"; then {note}"
            return
        self.restarted = True
        if not is_test_cell(cell) and self.sources:
            self.sources.pop()  # this cell is skipped in the fresh kernel
        self.report.status = note + RESTARTED.replace("this cell", f"cell {self.count}")
        for output in cell.outputs:
            if output.get("ename") == LOST:
                output["evalue"] = str(output.get("evalue", "")) + RESTARTED
        self.kernel.close()
        self.kernel = take_kernel(self.files_from, self.limits, self.use_sandbox)
        for source in self.sources:
            if self.kernel.dead:
                break
            with contextlib.suppress(KernelLost):
                self.kernel.request({"op": "run", "source": source}, self._deadline())
        if self.kernel.dead:
            self.stopped_at = self.count
            self.report.status += f"; the fresh kernel stopped too: {self.kernel.dead}"


def _final_status(report: RunReport, use_sandbox: bool, sandbox: str) -> None:
    """The run's status with what it must say besides the kernel's: no sandbox, checks
    stopped by the grader's own limit, borrowed answers."""
    if not use_sandbox and sandbox != "none":
        report.status = f"NOT SANDBOXED ({sandbox_available()[1]}); {report.status}"
    if report.grader_timeouts and report.status == "complete":
        report.status = (
            "the grader's check of "
            + ", ".join(report.grader_timeouts)
            + " ran past its time limit (0 points for those tests)"
        )
    if report.borrowed:
        note = "borrowed answers: " + "; ".join(
            f"{grade_id}: {message}" for grade_id, message in report.borrowed.items()
        )
        report.status = note if report.status == "complete" else f"{report.status}; {note}"


STUB = "raise NotImplementedError()"  # what nbgrader's release leaves in an answer cell
UNWRITTEN = "NotImplementedError"
NOT_RUN = "NotRun"  # a cell after the one that stopped the kernel


def not_run(stopped_at: int) -> str:
    """What a cell after a stopped kernel says: where it stopped (that cell says why)."""
    return f"not run: the kernel stopped at cell {stopped_at} (that cell says why)"


def is_stub(source: str) -> bool:
    """Whether an answer cell still ends with the release's `raise NotImplementedError()`:
    the student has not (or not finished) writing it, whatever else the cell holds."""
    lines = [line.strip() for line in source.strip().splitlines() if line.strip()]
    return bool(lines) and lines[-1] == STUB


def _use_sandbox(sandbox: str) -> bool:
    if sandbox == "none":
        return False
    ok, why = sandbox_available()
    if sandbox == "bwrap" and not ok:
        raise RuntimeError(f"{why}; or grade trusted notebooks only with --sandbox none")
    return ok
