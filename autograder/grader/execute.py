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

import atexit
import base64
import contextlib
import hashlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Container
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat

from grader import cgroups, lifetime, wire
from grader.borrowed import not_python, own_code
from grader.forkserver import ForkServer
from grader.remote import ANSWER_CHARS, KernelChannel, KernelLost, rebuild_exception
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
from grader.status import NOT_STARTED
from grader.testprocess import LOST, error_output, failed_checks, names_used

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

COPY_LIMIT = 50 * 1024 * 1024
GRACE_S = 15.0  # a test's own work beyond the time its kernel calls may take


def nbgrader_meta(cell) -> dict:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return meta if isinstance(meta, dict) else {}


def is_test_cell(cell) -> bool:
    meta = nbgrader_meta(cell)
    return bool(meta.get("grade")) and not meta.get("solution")


def replaced_test(cell, tests: Container[str]) -> bool:
    """Whether the grader runs `cell` as one of the course's `tests` (grade ids): its source
    is replaced by the instructor's and run outside the kernel. Any other cell, a student's
    cell that calls itself a test included, runs in the kernel as it is."""
    return is_test_cell(cell) and str(nbgrader_meta(cell).get("grade_id") or "") in tests


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
    live: set[StudentKernel] = set()  # not yet closed: `close_kernels` closes them at exit

    def __init__(
        self, files_from: Path | None, limits: Limits, use_sandbox: bool, wait: bool = True
    ):
        self.limits, self.dead, self.ready, self.sandboxed = limits, "", False, use_sandbox
        self.group: cgroups.Group | None = None
        self.reasons_seen = ""
        if cgroups.backend().kind:  # a control group of its own: made before the kernel
            try:
                self.group = cgroups.Group(limits.memory_mb, limits.processes)
            except RuntimeError as err:
                self.dead = f"{NOT_STARTED}: {err}"
        self.closed = False
        self.tmp = lifetime.run_folder("kernel")
        StudentKernel.live.add(self)
        ids = throwaway_ids(StudentKernel.started % 2) if use_sandbox else None
        StudentKernel.started += 1
        req_r, self.req_w = os.pipe()
        self.rep_r, rep_w = os.pipe()
        self.zygote: KernelZygote | None = None
        self.own: Path | None = None
        self.proc: subprocess.Popen | ForkedKernel
        idle = self.group is None and use_sandbox  # no group: students' code yields the CPU
        if self.dead:
            self.log = open(os.devnull, "wb")  # noqa: SIM115 - closed in close()
            self.proc = ForkedKernel(None, -1)
        elif ids is not None and forks_kernels(use_sandbox):
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
                preexec_fn=limit_resources(
                    limits,
                    join=None if self.group is None else self.group.joiner(),
                    idle=idle,
                    own_uid=ids is not None,
                ),
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
            group = self.group.open_procs() if self.group is not None else []
            try:
                pid = self.zygote.fork(
                    self.own, ids, self.limits, fds, tuple(group), self.group is None
                )
            finally:
                for fd in group:
                    os.close(fd)
            self.proc = ForkedKernel(self.zygote, pid)
        except (OSError, RuntimeError, ValueError) as err:
            self.dead = f"{NOT_STARTED}: {err}"
            self.proc = ForkedKernel(None, -1)

    def wait_ready(self) -> None:
        """Read the kernel's first frame (it has imported numpy and torch), or kill it."""
        if self.ready or self.dead:
            return
        try:
            wire.read_frame(self.rep_r, time.monotonic() + 120)
            self.ready = True
        except (wire.WireError, TimeoutError) as err:
            self.kill(f"{NOT_STARTED}: {err}; {self.log_tail()}")
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

    def limit_text(self) -> str:
        if self.group is None:
            return f" ({self.limits.cell_timeout_s:g} s for a cell)"
        seconds = self.limits.cell_timeout_s
        return f" ({seconds:g} s of CPU time for a cell, {wall_ceiling(seconds):g} s in all)"

    def channel(self, cpu_until: float | None = None) -> KernelChannel:
        channel = KernelChannel(self.req_w, self.rep_r, self.next_id, self.limit_text())
        if self.group is not None and cpu_until is not None:
            group = self.group
            channel.cpu_left = lambda: cpu_until - group.cpu_seconds()
        return channel

    def cpu_seconds(self) -> float | None:
        """The CPU time of the kernel's whole sandbox so far; None without a control group."""
        if self.group is None:
            return None
        try:
            return self.group.cpu_seconds()
        except (OSError, ValueError):
            return None

    def new_limit_reasons(self) -> str:
        """Which limits of the kernel's control group stopped something since the last call."""
        if self.group is None:
            return ""
        reasons = self.group.limit_reason()
        new = "" if reasons == self.reasons_seen else reasons
        self.reasons_seen = reasons
        return new

    def request(self, message: dict, deadline: float, cpu_until: float | None = None) -> dict:
        """Send `message` and wait for its reply until the wall-clock `deadline`, and, with a
        control group, until the sandbox has used CPU seconds up to `cpu_until`."""
        if self.dead:
            raise KernelLost(self.dead)
        channel = self.channel(cpu_until)
        try:
            return channel.request(message, deadline)
        except KernelLost as lost:
            code = self.proc.poll()
            why = str(lost) if code is None else f"{lost} (exit status {code})"
            reasons = self.new_limit_reasons()
            self.kill(f"{why}: {reasons}" if reasons else why)
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
        if self.group is not None:  # anything that left the process group or namespace
            self.group.kill()

    def close(self) -> None:
        if self.closed:  # once: its descriptor numbers may since be another file's
            return
        self.closed = True
        StudentKernel.live.discard(self)
        self.kill(self.dead or "closed")
        for fd in (self.req_w, self.rep_r):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.log.close()
        if self.group is not None:
            self.group.close()
        cgroups.finish_released()  # the groups of this notebook's test processes
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


def close_kernels() -> None:
    """Close every kernel of this process, the one started ahead and one a notebook was
    using when the process was told to stop (`grader.lifetime`): its sandbox and folder."""
    close_spare()
    for kernel in list(StudentKernel.live):
        try:
            kernel.close()
        except Exception:  # noqa: BLE001 - one stopped while it started: its folders still go
            StudentKernel.live.discard(kernel)
            shutil.rmtree(kernel.tmp, ignore_errors=True)


atexit.register(close_kernels)


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


def _own_files(source: Path) -> list[Path]:
    """The student's own files that a kernel gets (data they saved, modules they wrote): every
    regular file but the notebooks, no link, in path order, up to COPY_LIMIT bytes in all."""
    found, total = [], 0
    for path in sorted(source.rglob("*")):
        if path.is_symlink() or not path.is_file() or path.suffix == ".ipynb":
            continue
        total += path.stat().st_size
        if total > COPY_LIMIT:
            break
        found.append(path)
    return found


def own_modules(source: Path | None) -> dict[str, str]:
    """The text of the student's own modules (the `.py` files among `_own_files`), which
    the kernel imports and the grader reads (`grader.borrowed.own_code`)."""
    if source is None:
        return {}
    files = [p for p in _own_files(source) if p.suffix == ".py"]
    return own_code({p.relative_to(source).as_posix(): p.read_bytes() for p in files})


def _copy_own_files(source: Path, dest: Path) -> None:
    for path in _own_files(source):
        target = dest / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)


def submission_digest(nb, files_from: Path | None, tests: Container[str] = ()) -> str:
    """What the hidden cases of one submission draw from, besides the course's secret
    (`attnbook.grading.hidden_key`): a digest of all its kernel can read of the student's:
    the text of every code cell but the tests, `tests` (their grade ids: the grader replaces
    them and runs them outside the kernel), and its own files (`_own_files`). Comments count:
    a kernel reads its cells' text (linecache, inspect), so a comment could carry a table.
    Prose, outputs and metadata never reach the kernel and do not count. A regrade draws the
    same inputs; other code, such as a table that answers the inputs an earlier submission
    printed into its page, draws others."""
    digest = hashlib.sha256()
    for cell in nb.cells:
        if cell.get("cell_type") == "code" and not replaced_test(cell, tests):
            digest.update(f"{cell.get('source', '')}\0".encode("utf-8", errors="surrogatepass"))
    if files_from is not None:
        for path in _own_files(files_from):
            name = path.relative_to(files_from).as_posix()
            digest.update(f"\0{name}\0".encode(errors="surrogatepass"))
            digest.update(path.read_bytes())
    return digest.hexdigest()


NOT_PYTHON = ("SyntaxError", "IndentationError", "TabError")  # a cell the kernel cannot compile


def borrowed_note(borrowed: list[str], score: float, points: float) -> str:
    return (
        f"{'; '.join(borrowed)}. This test scores {score:g} of {points:g} points: the "
        "course's setting for borrowed answers."
    )


TEST_PROCESSES = 64  # a test's process runs the instructor's check: torch's threads, no more


def _test_group(limits: Limits) -> cgroups.Group | None:
    """A control group for one test's process, where the machine offers them: the memory
    of the sandbox's limit and a CPU share of its own, so that a test process weighs as
    much as a kernel against its neighbours; None where there are none."""
    if not cgroups.backend().kind:
        return None
    try:
        return cgroups.Group(limits.memory_mb, TEST_PROCESSES)
    except RuntimeError:
        return None  # the test still runs, under the fork server's own limits


def _test_outcome(job: dict, kernel: StudentKernel, deadline: float) -> tuple[object, object]:
    """One test process for `job`: the outcome it wrote (a dict, unless it wrote nothing
    readable), and the bytes it wrote (None when it ran past the deadline)."""
    group = _test_group(kernel.limits)
    result_r, result_w = os.pipe()
    fds = [os.dup(kernel.req_w), os.dup(kernel.rep_r), result_w]
    try:
        fds += group.open_procs() if group is not None else []
        pid = ForkServer.get().start(job, fds)
    except BaseException:
        os.close(result_r)
        if group is not None:
            group.close()
        raise
    finally:
        for fd in fds:
            os.close(fd)
    try:
        data = wire.read_at_most(result_r, 64 * 1024 * 1024, deadline + GRACE_S)
    finally:
        os.close(result_r)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
        if group is not None:  # and anything it started; removed once they have exited
            group.release()
    try:
        outcome = json.loads(data.decode("utf-8", errors="replace")) if data else None
    except (ValueError, RecursionError):
        outcome = None
    return outcome, data


def _settle(kernel: StudentKernel, outcome: object) -> None:
    """The kernel after one test process: its request ids past the process's last, stopped if
    the process stopped it; after a process that wrote no outcome (past its deadline), its
    late replies dropped."""
    if not isinstance(outcome, dict):
        kernel.resync(kernel.next_id + 1_000_000)
        return
    kernel.next_id = max(kernel.next_id, int(outcome.get("id") or 0))
    if outcome.get("kill"):
        kernel.kill(str(outcome["kill"]))


def run_test(
    source: str,
    grade_id: str,
    template: Template,
    kernel: StudentKernel,
    deadline: float,
    sources: list[str],
    borrowed_credit: float = 0.0,
    borrowed: dict[str, str] | None = None,
    cpu_until: float | None = None,
    answers: dict[str, str] | None = None,
    failed: dict | None = None,
    submission: str = "",
    files: dict[str, str] | None = None,
) -> tuple[list, str]:
    """Run an instructor's test in a fresh process; its outputs and its verdict. A borrowed
    answer (`grader.borrowed`) is noted in `borrowed` (grade_id -> message) and gets
    `borrowed_credit` of the test's points: none (an error naming the call, after the
    check's own outputs) by default, else that fraction if the test passes (nbgrader's
    partial credit). `cpu_until`: with a control group, the kernel's calls also stop once its
    sandbox has used that many CPU seconds (`deadline` is then the wall-clock ceiling).
    `answers` gets the concept answers the test read, as the student left them. `failed`
    holds the subjects whose checks failed in the earlier tests (the test's own failure is
    added): a test whose subject calls one of them names it, as the self-check does.
    `submission`: its digest (`submission_digest`), which the hidden cases draw from;
    `files`: its own modules (`own_modules`), which the grader reads as it reads the cells."""
    if kernel.dead:
        return [_new_output(error_output(LOST, kernel.dead))], "lost"
    points = template.points.get(grade_id, 0.0)
    job = {
        "source": source,
        "grade_id": grade_id,
        "setup": template.setup,
        "deadline_wall": time.time() + deadline - time.monotonic(),
        "sources": sources,
        "id": kernel.next_id,
        "limit_text": kernel.limit_text(),
        "cpu_file": kernel.group.cpu_file if kernel.group is not None else "",
        "cpu_until": cpu_until if kernel.group is not None else None,
        "notebook": template.name,
        "credit": borrowed_credit,
        "points": points,
        "failed": dict(failed or {}),
        "submission": submission,
        "files": dict(files or {}),
    }
    outcome, data = _test_outcome(job, kernel, deadline)
    _settle(kernel, outcome)
    if (
        isinstance(outcome, dict)
        and outcome.get("verdict") == "failed"
        and outcome.get("stood_in")
        and not outcome.get("kill")
    ):  # failed with the course's helpers in place: an answer right with the student's own
        # helpers (written for their interface) is right too, so try those once more; the
        # first run's verdict and message stand unless the retry passes
        again, _ = _test_outcome({**job, "id": kernel.next_id, "stand_ins": False}, kernel,
                                 deadline)  # fmt: skip
        _settle(kernel, again)
        if isinstance(again, dict) and again.get("verdict") == "passed":
            outcome = again
    if not isinstance(outcome, dict):
        why = (
            "the check of this test ran past the grader's time limit"
            if data is None
            else "the check stopped unexpectedly"
        )
        return [_new_output(error_output("GraderTimeout", f"{why}; the test scores 0"))], "failed"
    outputs = []
    if outcome.get("stdout"):
        outputs.append(nbformat.v4.new_output("stream", name="stdout", text=str(outcome["stdout"])))
    verdict = str(outcome.get("verdict"))
    chosen = outcome.get("answers")
    if isinstance(chosen, dict) and answers is not None:
        answers.update(
            (str(k)[:100], str(v)[:ANSWER_CHARS])
            for k, v in list(chosen.items())[:100]
            if str(k).startswith("answer_")
        )
    if failed is not None and "failed" in outcome:
        failed.clear()
        failed.update(failed_checks(outcome["failed"]))
    found = [str(m) for m in outcome.get("borrowed") or []]
    if found and borrowed is not None:
        borrowed[grade_id] = "; ".join(found)
    if isinstance(outcome.get("error"), dict):
        outputs.append(_new_output(outcome["error"]))
    if found and borrowed_credit <= 0:  # after the check's own outputs: its hint stays
        outputs.append(_new_output(error_output("BorrowedAnswer", borrowed_note(found, 0, points))))
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
def _with_dropped_note(outputs: list, dropped: int, what: str) -> list:
    """`outputs`, and a line saying how many were left out for the caps, if any."""
    if dropped:
        outputs.append(
            nbformat.v4.new_output(
                "stream",
                name="stdout",
                text=f"[{dropped} {what} not kept: over the "
                "limit of outputs per cell or per notebook]\n",
            )
        )
    return outputs


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
        outputs, displays, dropped = [], 0, 0
        for item in raw if isinstance(raw, list) else []:
            output = self._one(item) if isinstance(item, dict) else None
            if output is None:
                continue
            if output.output_type == "display_data":
                displays += 1
                if displays > self.displays:
                    dropped += 1
                    continue
            outputs.append(output)
        return self._within_room(outputs, dropped, "output(s)")

    def clean_test(self, raw: list) -> list:
        """A test's outputs within the same caps: each text cut as a cell's is, streams kept
        while the cell's and the notebook's room lasts; the error and the partial-credit
        result, which decide the test's grade in nbgrader, are always kept (cut)."""
        outputs = []
        for item in raw if isinstance(raw, list) else []:
            item = dict(item) if isinstance(item, dict) else {}
            if item.get("output_type") == "execute_result":
                data = item.get("data")
                text = str(data.get("text/plain", "") if isinstance(data, dict) else "")[:100]
                output = nbformat.v4.new_output(
                    "execute_result", execution_count=None, data={"text/plain": text}
                )
            else:
                output = self._one(item)
            if output is not None:
                outputs.append(output)
        return self._within_room(outputs, 0, "output(s) of this test", ("error", "execute_result"))

    def _within_room(self, outputs: list, dropped: int, what: str, always: tuple = ()) -> list:
        """One cell's `outputs`, in order, kept while the cell's and the notebook's room lasts
        (an output of a type in `always` is kept even past it), and the note of how many were
        dropped (`dropped` of them before this)."""
        kept, cell = [], 0
        for output in outputs:
            size = len(json.dumps(output))
            over = cell + size > self.cell_chars or self.used + size > self.notebook_chars
            if over and output.output_type not in always:
                dropped += 1
                continue
            cell += size
            self.used += size
            kept.append(output)
        return _with_dropped_note(kept, dropped, what)

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
    # each concept answer a test read, as the student left it (the option chosen): for the
    # class report
    answers: dict[str, str] = field(default_factory=dict)

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
    submission = submission_digest(nb, files_from, template.tests)  # before a cell runs
    ForkServer.get()  # started (once per process) before any time limit runs
    started = time.monotonic()
    kernel = take_kernel(files_from, limits, use_sandbox)
    cpu_start = kernel.cpu_seconds()  # with a control group: limits count its CPU time
    run = _Run(
        template=template,
        files_from=files_from,
        limits=limits,
        use_sandbox=use_sandbox,
        borrowed_credit=borrowed_credit,
        report=RunReport(sandboxed=use_sandbox),
        kernel=kernel,
        budget=OutputBudget(text_chars=limits.output_chars),
        notebook_deadline=started
        + (
            limits.notebook_timeout_s
            if cpu_start is None
            else wall_ceiling(limits.notebook_timeout_s)
        ),
        cpu_start=cpu_start,
        submission=submission,
        files=own_modules(files_from),
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
    cpu_start: float | None = None  # the kernel's CPU seconds at its start (control group)
    sources: list[str] = field(default_factory=list)
    count: int = 0
    stubs_only: bool | None = None  # the answer cells since the last test: all still stubs?
    stopped_at: int = 0  # the cell (In [n]) where the kernel stopped for good, once it has
    restarted: bool = False
    failed: dict = field(default_factory=dict)  # subjects whose checks failed (run_test)
    submission: str = ""  # its digest, which the hidden cases draw from (submission_digest)
    files: dict[str, str] = field(default_factory=dict)  # its own modules (own_modules)

    def cell(self, cell) -> None:
        self.count += 1
        cell.execution_count, cell.outputs = self.count, []
        grade_id = str(nbgrader_meta(cell).get("grade_id") or "")
        is_test = replaced_test(cell, self.template.tests)
        if is_test:
            cell.source = self.template.tests[grade_id]
        if self.kernel.dead and self.stopped_at:  # said once, at the cell where it stopped
            if is_test:
                self.report.tests[grade_id] = "lost"
            cell.outputs = [_new_output(error_output(NOT_RUN, not_run(self.stopped_at)))]
            return
        if self.kernel.dead:  # it stopped before this cell, not in a cell of the notebook
            self.stopped_at = self.count
        if is_test:
            self._test(cell, grade_id)
        else:
            self._answer(cell)
        if self.kernel.dead:
            self._stopped(cell)

    def _limits(self) -> tuple[float, float | None]:
        """This cell's wall-clock deadline and CPU-time limit (see `_cell_limits`)."""
        return _cell_limits(self.kernel, self.limits, self.notebook_deadline, self.cpu_start)

    def _test(self, cell, grade_id: str) -> None:
        deadline, cpu_until = self._limits()
        cell.outputs, verdict = run_test(
            cell.source,
            grade_id,
            self.template,
            self.kernel,
            deadline,
            list(self.sources),
            self.borrowed_credit,
            self.report.borrowed,
            cpu_until,
            answers=self.report.answers,
            failed=self.failed,
            submission=self.submission,
            files=self.files,
        )
        cell.outputs = self.budget.clean_test(cell.outputs)
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
            cell.outputs = [_new_output(error_output(LOST, self.kernel.dead))]
            return
        self.sources.append(cell.source)
        deadline, cpu_until = self._limits()
        try:
            reply = self.kernel.request({"op": "run", "source": cell.source}, deadline, cpu_until)
        except KernelLost as lost:
            cell.outputs = [_new_output(error_output(LOST, str(lost)))]
            return
        cell.outputs = self.budget.clean(reply.get("outputs"))
        reasons = self.kernel.new_limit_reasons()
        if reasons:  # e.g. a fork refused: the cell's error says EAGAIN, this says why
            cell.outputs.append(
                nbformat.v4.new_output("stream", name="stderr", text=f"[{reasons}]\n")
            )
        raised = [
            o
            for o in cell.outputs
            if o.get("output_type") == "error" and o.get("ename") != UNWRITTEN
        ]  # a stub's NotImplementedError (or a call of one) says "unanswered"
        if raised and not stub:
            self.report.errors.append([self.count, str(raised[0].get("ename", "Error"))])
        if any(o.get("ename") in NOT_PYTHON for o in raised) and not_python(cell.source):
            self.sources[-1] = ""  # the kernel could not compile it either: it ran nothing

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
        used = 0.0  # CPU seconds of the notebook so far: its budget goes on in the fresh kernel
        if self.cpu_start is not None:
            used = max(0.0, (self.kernel.cpu_seconds() or self.cpu_start) - self.cpu_start)
        self.kernel.close()
        self.kernel = take_kernel(self.files_from, self.limits, self.use_sandbox)
        if self.cpu_start is not None:  # the fresh kernel's control group counts from 0
            fresh = self.kernel.cpu_seconds()
            self.cpu_start = None if fresh is None else fresh - used
        for source in self.sources:
            if self.kernel.dead:
                break
            with contextlib.suppress(KernelLost):
                self.kernel.request({"op": "run", "source": source}, *self._limits())
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


def wall_ceiling(cpu_s: float) -> float:
    """The wall-clock ceiling of a limit of `cpu_s` CPU seconds (as CMS: twice, plus 1 s)."""
    return 2 * cpu_s + 1


def _cell_limits(
    kernel: StudentKernel, limits: Limits, notebook_deadline: float, cpu_start: float | None
) -> tuple[float, float | None]:
    """A cell's wall-clock deadline and the sandbox CPU time at which its time is up (None
    without a control group: then the wall clock is the limit, as the fallback has it)."""
    now = time.monotonic()
    cpu_now = kernel.cpu_seconds() if cpu_start is not None else None
    if cpu_start is None or cpu_now is None:
        return min(now + limits.cell_timeout_s, notebook_deadline), None
    cpu_until = min(cpu_now + limits.cell_timeout_s, cpu_start + limits.notebook_timeout_s)
    return min(now + wall_ceiling(limits.cell_timeout_s), notebook_deadline), cpu_until


def _use_sandbox(sandbox: str) -> bool:
    if sandbox == "none":
        return False
    ok, why = sandbox_available()
    if sandbox == "bwrap" and not ok:
        raise RuntimeError(f"{why}; or grade trusted notebooks only with --sandbox none")
    return ok
