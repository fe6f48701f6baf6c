"""Run one submitted notebook: the student's cells in a sandboxed kernel, the tests here.

The trust boundary is a process boundary. Every code cell the student could have written
(setup, answers, demonstrations, cells they added) runs in the student's kernel
(`grader.kernel`, inside bubblewrap). Every test cell runs in this, the grader's, process:
its source is taken from the instructor's notebook by grade_id (never from the submission),
its names resolve first to the instructor's setup cells run here, then to the student's
kernel, where a function becomes a `RemoteFunction` whose calls cross as plain data.

So the student's code never shares an interpreter with a check: monkeypatching numpy or
torch, input transformers that blank later cells, edited check modules or frame tricks act
on the student's own process only. A test "ran to the end" exactly when its `exec` here
returned; the run report records that for every test. If the kernel dies, hangs past its
time, floods its channel or breaks the protocol, it is killed and every later cell gets an
error output: that notebook's remaining tests, nothing else.
"""

from __future__ import annotations

import base64
import builtins
import contextlib
import fcntl
import hashlib
import importlib
import io
import json
import logging
import os
import re
import secrets
import shutil
import subprocess
import tempfile
import time
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat

from grader import wire
from grader.sandbox import (
    Limits,
    kernel_command,
    kernel_env,
    limit_resources,
    sandbox_available,
    throwaway_ids,
)

LOST = "KernelStopped"
COPY_LIMIT = 50 * 1024 * 1024


class KernelLost(BaseException):  # noqa: N818 - not an Exception: checks must not catch it
    """The student's kernel is gone (exited, killed for a limit, or broke the protocol)."""


def nbgrader_meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def is_test_cell(cell) -> bool:
    meta = nbgrader_meta(cell)
    return bool(meta.get("grade")) and not meta.get("solution")


@dataclass
class Template:
    """What the grader trusts from the instructor's notebook: setup cells and test cells."""

    setup: list[str]
    tests: dict[str, str]

    @classmethod
    def from_notebook(cls, nb) -> Template:
        setup = [c.source for c in nb.cells if c.cell_type == "code"
                 and "setup" in c.get("metadata", {}).get("tags", [])]
        tests = {nbgrader_meta(c)["grade_id"]: c.source for c in nb.cells
                 if c.cell_type == "code" and is_test_cell(c)}
        return cls(setup, tests)

    @classmethod
    def from_path(cls, path: Path) -> Template:
        return cls.from_notebook(nbformat.read(path, as_version=4))


# -- the student's kernel -----------------------------------------------------------------
class StudentKernel:
    """A `grader.kernel` process in the sandbox, and the pipes to talk to it."""

    def __init__(self, files_from: Path | None, limits: Limits, use_sandbox: bool):
        self.limits, self.dead = limits, ""
        self.tmp = Path(tempfile.mkdtemp(prefix="attnbook-kernel-"))
        work = self.tmp / "work"
        work.mkdir()
        if files_from is not None:
            _copy_own_files(files_from, work)
        ids = throwaway_ids() if use_sandbox else None
        if ids:
            for path in [work, *work.rglob("*")]:
                os.chown(path, *ids, follow_symlinks=False)
        req_r, self.req_w = os.pipe()
        self.rep_r, rep_w = os.pipe()
        command = kernel_command(work, (req_r, rep_w), use_sandbox, ids)
        self.log = open(self.tmp / "sandbox.log", "wb")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(
            command, env=kernel_env(limits, use_sandbox), cwd=work, pass_fds=(req_r, rep_w),
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
            preexec_fn=limit_resources(limits),
            start_new_session=True)
        os.close(req_r)
        os.close(rep_w)
        try:
            wire.read_frame(self.rep_r, time.monotonic() + 120)
        except (wire.WireError, TimeoutError) as err:
            self.kill(f"the kernel did not start: {err}; {self.log_tail()}")

    def log_tail(self) -> str:
        self.log.flush()
        return (self.tmp / "sandbox.log").read_bytes()[-600:].decode(errors="replace")

    def request(self, message: dict, deadline: float) -> dict:
        if self.dead:
            raise KernelLost(self.dead)
        try:
            wire.write_frame(self.req_w, message)
            return wire.read_frame(self.rep_r, deadline)
        except TimeoutError:
            self.kill(f"your code ran past the time limit ({self.limits.cell_timeout_s:g} s "
                      "for a cell); the kernel was stopped")
        except (wire.WireError, BrokenPipeError, OSError) as err:
            code = self.proc.poll()
            why = f"exit status {code}" if code is not None else str(err)
            self.kill(f"the kernel died ({why}): os._exit, sys.exit outside a cell, a crash, "
                      "or a memory, process or output limit")
        raise KernelLost(self.dead)

    def kill(self, reason: str) -> None:
        self.dead = self.dead or reason
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
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


# -- names of the student's kernel, seen from a test ---------------------------------------
class RemoteFunction:
    """Stands for a function of the student's kernel; its calls carry plain data only."""

    def __init__(self, kernel: StudentKernel, name: str, deadline: list[float]):
        self._kernel, self._deadline = kernel, deadline
        self.__name__ = self.__qualname__ = name

    def __repr__(self):
        return f"<your function {self.__name__}>"

    def __call__(self, *args, **kwargs):
        try:
            message = {"op": "call", "name": self.__name__, "args": wire.encode(list(args)),
                       "kwargs": wire.encode(dict(kwargs))}
        except wire.Unsendable as why:
            raise TypeError(f"the grader cannot pass {why} to {self.__name__}") from None
        reply = self._kernel.request(message, self._deadline[0])
        if not reply.get("ok"):
            raise rebuild_exception(reply.get("exc"))
        try:
            result = wire.decode(reply.get("result"))
            _copy_back(args, wire.decode(reply.get("args_after") or []))
            _copy_back(list(kwargs.values()),
                       [wire.decode(v) for v in (reply.get("kwargs_after") or {}).values()])
        except wire.WireError as err:
            raise TypeError(f"{self.__name__} returned something the grader cannot read: "
                            f"{err}") from None
        return result


def _copy_back(originals, afters) -> None:
    """Apply the function's in-place changes to the grader's copies of the arguments."""
    import numpy as np

    for original, after in zip(originals, afters):
        if after is None or not hasattr(original, "shape"):
            continue
        if hasattr(original, "detach"):
            import torch

            after = torch.as_tensor(after)
            if after.shape == original.shape and not torch.equal(after.to(original.dtype),
                                                                  original.detach()):
                with torch.no_grad():
                    original.copy_(after)
        elif isinstance(original, np.ndarray) and np.shape(after) == original.shape:
            if not np.array_equal(original, after, equal_nan=True) and original.flags.writeable:
                original[...] = after


def rebuild_exception(exc) -> BaseException:
    """The student's exception as an instance of a class the grader knows."""
    exc = exc if isinstance(exc, dict) else {}
    message = str(exc.get("message", "an error"))[:20000]
    name, module = str(exc.get("type", "")), str(exc.get("module", ""))
    if module.startswith("attnbook."):
        with contextlib.suppress(Exception):
            cls = getattr(importlib.import_module(module), name)
            if isinstance(cls, type) and issubclass(cls, Exception):
                return cls(message)
    for candidate in [name, *(exc.get("mro") or [])]:
        cls = getattr(builtins, str(candidate), None)
        if isinstance(cls, type) and issubclass(cls, Exception):
            return cls(message)
        if cls is SystemExit:
            return RuntimeError(f"your function called sys.exit({message})")
    return RuntimeError(f"{name}: {message}")


class StudentNames(dict):
    """The locals of a test: its own names, else the instructor's setup, else the student's."""

    def __init__(self, trusted: dict, kernel: StudentKernel, deadline: list[float]):
        super().__init__()
        self.trusted, self.kernel, self.deadline = trusted, kernel, deadline

    def __missing__(self, name):
        if name in self.trusted or hasattr(builtins, name):
            raise KeyError(name)
        reply = self.kernel.request({"op": "describe", "name": name}, self.deadline[0])
        kind = reply.get("kind")
        if kind == "callable":
            return RemoteFunction(self.kernel, name, self.deadline)
        if kind == "data":
            try:
                return wire.decode(reply.get("value"))
            except wire.WireError as err:
                raise TypeError(f"{name} holds something the grader cannot read: {err}") from None
        if kind == "opaque":
            raise TypeError(f"{name} is {reply.get('type')}, which the grader cannot read")
        raise KeyError(name)


# -- one notebook -------------------------------------------------------------------------
@dataclass
class RunReport:
    status: str = "complete"  # or "kernel lost at cell N: why"
    seconds: float = 0.0
    tests: dict[str, str] = field(default_factory=dict)  # grade_id -> passed/failed/lost
    sandboxed: bool = True
    in_kernel: list[str] = field(default_factory=list)  # tests run in the student's kernel

    def to_json(self) -> dict:
        return asdict(self)


def _trusted_setup(template: Template) -> dict:
    namespace: dict = {"__name__": "__main__"}
    saved_showwarning = warnings.showwarning
    root = logging.getLogger()
    saved_handlers, saved_level = root.handlers[:], root.level
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            for source in template.setup:
                exec(compile(source, "<instructor setup>", "exec"), namespace)
    finally:
        warnings.showwarning = saved_showwarning
        root.handlers[:] = saved_handlers
        root.setLevel(saved_level)
    return namespace


def _error(ename: str, evalue: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_output("error", ename=ename, evalue=evalue,
                                  traceback=[f"{ename}: {evalue}"])


def _run_test(source: str, grade_id: str, trusted: dict, kernel: StudentKernel,
              deadline: float) -> tuple[list, str]:
    """Run an instructor's test cell here; outputs as nbformat outputs, and its verdict."""
    names = StudentNames(trusted, kernel, [deadline])
    out = io.StringIO()
    outputs, verdict = [], "passed"
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            exec(compile(source, f"<test {grade_id}>", "exec"), dict(trusted), names)
    except KernelLost as lost:
        verdict = "lost"
        error = _error(LOST, str(lost))
    except Exception as err:  # a failing check is the expected way to lose points
        verdict = "failed"
        error = _error(type(err).__name__, str(err))
    else:
        error = None
    if out.getvalue():
        outputs.append(nbformat.v4.new_output("stream", name="stdout", text=out.getvalue()))
    if error is not None:
        outputs.append(error)
    return outputs, verdict


def _clean_outputs(raw) -> list:
    """The kernel's outputs rebuilt from plain strings: no HTML or scripts reach feedback."""
    outputs = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, dict):
            continue
        kind = item.get("output_type")
        if kind == "stream":
            outputs.append(nbformat.v4.new_output(
                "stream", name="stderr" if item.get("name") == "stderr" else "stdout",
                text=str(item.get("text", ""))))
        elif kind == "display_data" and isinstance(item.get("data"), dict):
            data = {}
            if isinstance(item["data"].get("text/plain"), str):
                data["text/plain"] = item["data"]["text/plain"]
            png = item["data"].get("image/png")
            if isinstance(png, str):
                with contextlib.suppress(ValueError):
                    base64.b64decode(png, validate=True)
                    data["image/png"] = png
            if data:
                outputs.append(nbformat.v4.new_output("display_data", data=data))
        elif kind == "error":
            tb = item.get("traceback")
            outputs.append(nbformat.v4.new_output(
                "error", ename=str(item.get("ename", "Error")), evalue=str(item.get("evalue", "")),
                traceback=[str(t) for t in tb][:60] if isinstance(tb, list) else []))
    return outputs


def _references_for(source: str) -> dict[str, str]:
    from attnbook.grading import autograder_dir

    names = set(re.findall(r"load_reference\(\s*[\"']([\w.-]+)[\"']", source))
    return {n: (autograder_dir() / "reference" / f"nb{n}.py").read_text() for n in names}


def _run_test_in_kernel(source: str, template: Template, kernel: StudentKernel,
                        deadline: float) -> tuple[list, str]:
    nonce = secrets.token_hex(16)
    try:
        reply = kernel.request({"op": "test", "source": source, "setup": template.setup,
                                "references": _references_for(source), "nonce": nonce},
                               deadline)
    except KernelLost as lost:
        return [_error(LOST, str(lost))], "lost"
    outputs = _clean_outputs(reply.get("outputs"))
    errors = [o for o in outputs if o.output_type == "error"]
    if reply.get("ok") is True and reply.get("nonce") == nonce and not errors:
        return outputs, "passed"
    if not errors:
        outputs.append(_error("GraderRefused", "the test did not report that it ran to the end"))
    return outputs, "failed"


def run_notebook(nb, template: Template, files_from: Path | None = None,
                 limits: Limits | None = None, sandbox: str = "auto",
                 in_kernel: frozenset[str] = frozenset()) -> RunReport:
    """Execute `nb` in place (outputs filled in); return what happened.

    Tests in `in_kernel` (decided by `kernel_tests` from the instructor's solution) run in
    the student's kernel after it restores the check library; all others run here.
    """
    limits = limits or Limits()
    use_sandbox = _use_sandbox(sandbox)
    started = time.monotonic()
    report = RunReport(sandboxed=use_sandbox)
    notebook_deadline = started + limits.notebook_timeout_s
    trusted = _trusted_setup(template)
    kernel = StudentKernel(files_from, limits, use_sandbox)
    count = 0
    try:
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            count += 1
            cell.execution_count, cell.outputs = count, []
            deadline = min(time.monotonic() + limits.cell_timeout_s, notebook_deadline)
            grade_id = nbgrader_meta(cell).get("grade_id")
            if is_test_cell(cell) and grade_id in template.tests:
                cell.source = template.tests[grade_id]
                if kernel.dead:
                    cell.outputs, verdict = [_error(LOST, kernel.dead)], "lost"
                elif grade_id in in_kernel:
                    report.in_kernel.append(grade_id)
                    cell.outputs, verdict = _run_test_in_kernel(cell.source, template, kernel,
                                                                deadline)
                else:
                    cell.outputs, verdict = _run_test(cell.source, grade_id, trusted, kernel,
                                                      deadline)
                report.tests[grade_id] = verdict
                continue
            if kernel.dead:
                cell.outputs = [_error(LOST, kernel.dead)]
                continue
            try:
                reply = kernel.request({"op": "run", "source": cell.source}, deadline)
                cell.outputs = _clean_outputs(reply.get("outputs"))
            except KernelLost as lost:
                cell.outputs = [_error(LOST, str(lost))]
            if kernel.dead and report.status == "complete":
                report.status = f"kernel lost at cell {index}: {kernel.dead}"
    finally:
        if kernel.dead and report.status == "complete":
            report.status = f"kernel lost: {kernel.dead}"
        kernel.close()
    report.seconds = round(time.monotonic() - started, 3)
    return report


def solution_as_submission(source_nb) -> nbformat.NotebookNode:
    """The instructor's notebook with its solution markers removed, as a student's."""
    from grader.catalogue import strip_solution_markers

    nb = nbformat.reads(nbformat.writes(source_nb), as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code" and nbgrader_meta(cell).get("solution"):
            cell.source = strip_solution_markers(cell.source)
    return nb


def kernel_tests(source_path: Path, cache: Path, limits: Limits, sandbox: str) -> frozenset:
    """The tests the grader cannot run in its own process: those the solution fails there.

    Decided from the instructor's solution alone (so no submission can choose), cached by
    the solution's hash. Typically tests that hand the student's classes to the check.
    """
    digest = hashlib.sha256(Path(source_path).read_bytes())
    for name in ("execute.py", "kernel.py", "sandbox.py", "wire.py"):
        digest.update((Path(__file__).parent / name).read_bytes())
    digest = digest.hexdigest()[:20]
    path = Path(cache) / f"{Path(source_path).stem}-{digest}-{sandbox}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one worker computes, the others wait and read
        if path.exists():
            return frozenset(json.loads(path.read_text()))
        source_nb = nbformat.read(source_path, as_version=4)
        report = run_notebook(solution_as_submission(source_nb),
                              Template.from_notebook(source_nb), None, limits, sandbox)
        tests = sorted(t for t, verdict in report.tests.items() if verdict != "passed")
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(tests))
        os.replace(tmp, path)
    return frozenset(tests)


def _use_sandbox(sandbox: str) -> bool:
    if sandbox == "none":
        return False
    ok, why = sandbox_available()
    if sandbox == "bwrap" and not ok:
        raise RuntimeError(why)
    return ok
