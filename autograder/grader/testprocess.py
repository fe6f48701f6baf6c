"""One instructor test, in a process of its own: the body the fork server's children run.

`grader.forkserver` forks a child per test and calls `test_process` there; `grader.execute`
sends the job and reads the outcome. This module imports neither of them, so the three form
no import circle: execute -> forkserver -> testprocess, and execute -> testprocess.

The test cell's names resolve to the instructor's setup (run here), then to the student's
kernel through `grader.remote`; `names_used` tells the remote side which of the student's
names a function reaches, read from the submission's source.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import logging
import os
import time
import warnings

from grader import cgroups, standins
from grader.remote import KernelChannel, KernelLost, StudentNames

__all__ = ["LOST", "SOURCE_LIMIT", "error_output", "failed_checks", "names_used", "test_process"]

LOST = "KernelStopped"
FAILED_LIMIT = 500  # subjects a notebook's failed checks may name
SOURCE_LIMIT = 2_000_000  # characters of student code the grader parses for names


# -- the names a student's function uses, from its source ----------------------------------
def names_used(sources: list[str], name: str, origin: dict | None = None) -> set[str] | None:
    """The names `name`'s last definition in `sources` uses, and those of the student's own
    functions and classes it reaches; None when there is no readable definition.

    Read from the source text, in the grader (see `attnbook.checks._source`, which the
    visible checks share). Every other binding of the name counts too (`globals()["name"]
    = helper`, see `grader.borrowed.dynamic_bindings`), and so does what the kernel says the
    name holds when the tests run (`origin`, see `grader.borrowed.follow`): the student's
    code it points at is read the same way, code outside the cells adds its path's names.
    """
    from attnbook.checks._source import definitions, names_reached, rebound
    from grader.borrowed import dynamic_bindings, follow

    text = "\n\n".join(sources)
    if len(text) > SOURCE_LIMIT:
        return None
    defs: dict[str, ast.AST] = {}
    shadowed: set[str] = set()  # bound some other way too: a bare read of it counts
    for source in sources:
        with contextlib.suppress(SyntaxError, ValueError, RecursionError, MemoryError):
            tree = ast.parse(source)
            defs.update(definitions(tree))
            shadowed |= rebound(tree)
    found = names_reached(name, defs, shadowed) if name in defs else None
    bound = dynamic_bindings(sources).get(name, [])
    extra: list[ast.AST] = [value for _kind, value in bound if isinstance(value, ast.AST)]
    followed = follow(origin, sources) if origin is not None else None
    if followed is not None:
        extra += followed.nodes
    for index, node in enumerate(extra):
        key = f"<binding {index} of {name}>"
        reached = names_reached(key, {**defs, key: node}, shadowed)
        found = reached if found is None else found | reached
    for path in followed.paths if followed is not None else []:
        found = (found or set()) | set(path.split("."))
    return found


# -- one test, in a fresh trusted process --------------------------------------------------
def _trusted_setup(setup: list[str]) -> dict:
    namespace: dict = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        for source in setup:
            exec(compile(source, "<instructor setup>", "exec"), namespace)
    logging.getLogger().handlers[:] = []
    return namespace


def error_output(ename: str, evalue: str) -> dict:
    """An error output cell (nbformat's shape) saying `ename: evalue`."""
    return {
        "output_type": "error",
        "ename": ename,
        "evalue": evalue,
        "traceback": [f"{ename}: {evalue}"],
    }


def _origins(job: dict, channel: KernelChannel) -> dict[str, dict]:
    """What the kernel says each graded name the test checks holds (op `origin`): subject ->
    reply. A kernel that is lost raises KernelLost, as any call would."""
    from grader.borrowed import RULES, subjects_of

    if job.get("notebook", "") not in RULES:
        return {}
    return {
        subject: channel.request({"op": "origin", "name": subject})
        for subject in subjects_of(job.get("notebook", ""), job["source"])
    }


def _borrowed(job: dict, origins: dict | None = None) -> list[str]:
    """What the test's subjects borrow (`grader.borrowed`), read from the submission's
    source and following what the kernel runs: one message per call, naming it. Code the
    reading cannot finish (nested past its recursion, say) is charged as unreadable: what
    it holds is not known."""
    from grader.borrowed import UNREADABLE, Borrowed, borrowed_in_test, subjects_of

    notebook = job.get("notebook", "")
    try:
        found = borrowed_in_test(notebook, job["source"], job["sources"], origins, job.get("files"))
    except (RecursionError, MemoryError, ValueError) as err:
        why = f"code the grader could not read to the end ({type(err).__name__})"
        found = [Borrowed(s, why, UNREADABLE) for s in subjects_of(notebook, job["source"])]
    return [b.message() for b in found]


def failed_checks(value) -> dict[str, tuple[str, str]]:
    """The subjects whose checks failed in the notebook's earlier tests, as a test process
    reports them (`outcome["failed"]`: name -> [check, kind]), read as plain strings. A test
    of a function that calls one of them runs it with the course's version in their place
    (`grader.standins`); one the course does not offer is named, as the self-check does in a
    notebook (`attnbook.checks._core`): "fix score_matrix first; attention itself may be
    right"."""
    if not isinstance(value, dict):
        return {}
    out = {}
    for name, how in list(value.items())[:FAILED_LIMIT]:
        if (
            isinstance(name, str)
            and isinstance(how, list | tuple)
            and len(how) == 2
            and all(isinstance(part, str) for part in how)
        ):
            out[name[:200]] = (how[0][:200], how[1][:50])
    return out


def unbound_subjects(source: str, unbound: set[str]) -> dict[str, str]:
    """The test's subjects that the student's kernel does not hold (their cell did not
    compile, or deleted the name): name -> the check the test passes it to. The test failed
    before its check could record them, so they are recorded here as a stub's check records
    its own (not written): a later test of a function that calls one runs it with the
    course's version in its place (`grader.standins`), exactly as beside a stub."""
    if not unbound:
        return {}
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute):
            check = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
            for arg in node.args:
                if isinstance(arg, ast.Name) and arg.id in unbound:
                    found.setdefault(arg.id, check)
    return found


def stood_in_note(helpers: list[str]) -> str:
    """The page's line for a test that ran with the course's helpers (`grader.standins`)."""
    names = " and ".join(helpers)
    if len(helpers) == 1:
        return (
            f"Graded with the course's {names} in place of yours, whose check failed above: "
            f"this test scores your own code, and the slip costs {names}'s points only.\n"
        )
    return (
        f"Graded with the course's {names} in place of yours, whose checks failed above: "
        "this test scores your own code, and each slip costs its own function's points only.\n"
    )


def test_process(job: dict, request_fd: int, reply_fd: int, result_fd: int) -> None:
    """Runs in a child of the fork server: one instructor test against the student's kernel;
    writes its outcome (JSON) to `result_fd`, with what its subjects borrow
    (`grader.borrowed`)."""
    import torch

    from attnbook.checks._core import FAILED, STOOD_IN, UNWRITTEN
    from attnbook.grading import SUBMISSION_ENV

    torch.set_num_threads(1)
    os.environ[SUBMISSION_ENV] = str(job.get("submission", ""))  # what hidden cases draw from
    channel = KernelChannel(request_fd, reply_fd, job["id"], job["limit_text"])
    channel.deadline = job["deadline_wall"] - time.time() + time.monotonic()
    if job.get("cpu_file") and job.get("cpu_until") is not None:  # the kernel's CPU time
        cpu_file, cpu_until = str(job["cpu_file"]), float(job["cpu_until"])
        channel.cpu_left = lambda: cpu_until - cgroups.read_cpu_seconds(cpu_file)
    out = io.StringIO()
    outcome: dict[str, object] = {"verdict": "passed", "error": None, "kill": "", "borrowed": []}
    names: StudentNames | None = None
    try:
        sources = job["sources"]
        origins = _origins(job, channel)
        outcome["borrowed"] = _borrowed(job, origins)
        trusted = _trusted_setup(job["setup"])
        names = StudentNames(
            trusted, channel, lambda name: names_used(sources, name, origins.get(name))
        )
        FAILED.update(failed_checks(job.get("failed")))  # the earlier tests' failed subjects
        # the course's versions of the failed ones, for the calls of this test's subject
        # (`stand_ins` False: the run with the student's own, after one that failed with them)
        if job.get("stand_ins", True):
            channel.stand_ins = standins.for_test(
                job.get("notebook", ""), FAILED, job["source"], STOOD_IN
            )
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            exec(compile(job["source"], f"<test {job['grade_id']}>", "exec"), dict(trusted), names)
    except KernelLost as lost:
        outcome.update(verdict="lost", error=error_output(LOST, str(lost)), kill=str(lost))
    except Exception as err:  # a failing check is the expected way to lose points
        outcome.update(verdict="failed", error=error_output(type(err).__name__, str(err)))
        if names is not None:  # a subject its cell left unbound: failed, as a stub does
            for name, check in unbound_subjects(job["source"], names.unbound).items():
                FAILED[name] = (check, UNWRITTEN)
    outcome["answers"] = dict(names.answers) if names is not None else {}
    outcome["failed"] = {name: list(how) for name, how in FAILED.items()}
    if STOOD_IN and outcome["verdict"] != "lost":
        out.write(stood_in_note(sorted(STOOD_IN)))
    outcome["stood_in"] = sorted(STOOD_IN)
    outcome["stdout"] = out.getvalue()[:200_000]
    outcome["id"] = channel.next_id
    data = json.dumps(outcome).encode("utf-8", errors="surrogatepass")
    view = memoryview(data)
    while view:
        view = view[os.write(result_fd, view) :]
    os.close(result_fd)
