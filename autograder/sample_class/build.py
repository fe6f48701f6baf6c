"""Build the sample class and the hostile submissions from the solution and the catalogue.

Nothing here is stored as a notebook: every submission is the released notebook of
`01_attention_scores` filled in from the instructor's solution, then changed the way a
student would change it. `python build.py OUT [--hostile] [--zip]` writes a folder (or an
LMS-style zip) of submissions; the tests and `python -m grader sample` call the functions.
"""

from __future__ import annotations

import argparse
import copy
import zipfile
from dataclasses import dataclass
from pathlib import Path

import nbformat
from grader.catalogue import (
    apply_variant,
    fill_in,
    load_catalogue,
    nbgrader_meta,
    solution_notebook,
)

NOTEBOOK = "01_attention_scores"
FULL = 14.0  # points of notebook 01
MISTAKE = ("attention", "weights transposed")  # costs test_attention: 3 points


def release_notebook(root: Path) -> nbformat.NotebookNode:
    return nbformat.read(root / "notebooks" / NOTEBOOK / f"{NOTEBOOK}.ipynb", as_version=4)


def solved(root: Path) -> nbformat.NotebookNode:
    return fill_in(release_notebook(root), solution_notebook(NOTEBOOK))


def with_mistake(root: Path, cell: str, name: str) -> nbformat.NotebookNode:
    variant = next(v for v in load_catalogue(NOTEBOOK).MISTAKES if (v.cell, v.name) == (cell, name))
    return fill_in(release_notebook(root), apply_variant(solution_notebook(NOTEBOOK), variant))


def _index(nb, grade_id: str) -> int:
    return next(i for i, c in enumerate(nb.cells) if nbgrader_meta(c).get("grade_id") == grade_id)


def add_cell_after(nb, grade_id: str | None, source: str) -> nbformat.NotebookNode:
    """A copy of nb with a new code cell after cell `grade_id` (at the end for None)."""
    nb = copy.deepcopy(nb)
    where = len(nb.cells) if grade_id is None else _index(nb, grade_id) + 1
    nb.cells.insert(where, nbformat.v4.new_code_cell(source))
    return nb


def append_to(nb, grade_id: str, source: str) -> nbformat.NotebookNode:
    nb = copy.deepcopy(nb)
    cell = nb.cells[_index(nb, grade_id)]
    cell.source = cell.source.rstrip("\n") + "\n\n" + source
    return nb


# -- the faked-score tricks (each on top of the catalogued mistake: it must still cost 3) ---
MONKEYPATCH = """
import numpy as np
import torch
import attnbook.checks as checks
import attnbook.checks._core as core
np.allclose = lambda *a, **k: True
np.array_equal = lambda *a, **k: True
np.testing.assert_allclose = lambda *a, **k: None
torch.allclose = lambda *a, **k: True
torch.testing.assert_close = lambda *a, **k: None
core._allclose = lambda *a, **k: True
for name in dir(checks):
    if name.startswith("check_"):
        setattr(checks, name, lambda *a, **k: print("\\u2713 passed"))
check_attention = lambda *a, **k: print("\\u2713 attention passed 99 checks.")
"""
TRANSFORMER = """
ip = get_ipython()
ip.input_transformers_post.append(lambda lines: [])
ip.input_transformers_cleanup.append(lambda lines: [])
"""
EDIT_HELPERS = """
import attnbook.checks._core as core
import attnbook.checks.nb01 as nb01
for path in (core.__file__, nb01.__file__):
    try:
        with open(path, "a") as handle:
            handle.write("\\nCheckRun.expect_close = lambda *a, **k: None\\n")
        print("EDITED", path)
    except OSError as err:
        print("could not edit", path, type(err).__name__)
core.CheckRun.expect_close = lambda *a, **k: None
core.CheckRun.fail = lambda *a, **k: None
nb01.check_attention = lambda *a, **k: None
"""
SNOOP = """
import os
for path in {paths!r}:
    try:
        with open(path, "rb") as handle:
            handle.read(1)
        print("READ", path)
    except OSError as err:
        print("blocked", path, type(err).__name__)
try:
    from attnbook.grading import load_reference
    load_reference("01_attention_scores")
    print("READ reference")
except Exception as err:
    print("blocked reference", type(err).__name__)
"""
WRITE_OTHER = """
for path in {paths!r}:
    try:
        with open(path, "w") as handle:
            handle.write("{{}}")
        print("WROTE", path)
    except OSError as err:
        print("blocked", path, type(err).__name__)
"""
NETWORK = """
import socket
for host, port in [("127.0.0.1", {port}), ("1.1.1.1", 53), ("pypi.org", 443)]:
    try:
        socket.create_connection((host, port), timeout=3).close()
        print("CONNECTED", host, port)
    except OSError as err:
        print("blocked", host, port, type(err).__name__)
"""


# -- attacks on classmates and on the grader's own work -------------------------------------
SABOTAGE = """
import numpy as np

_honest = {name: globals()[name] for name in ("project_qkv", "score_matrix", "softmax_rows")}


def _saboteur(name):
    def wrapped(*args):
        out = _honest[name](*args)
        for arg in args:  # the grader's worked examples, if they were shared
            if isinstance(arg, np.ndarray) and arg.flags.writeable:
                arg[...] = 0.0
        return out
    wrapped.__name__ = name
    return wrapped


project_qkv = _saboteur("project_qkv")
score_matrix = _saboteur("score_matrix")
softmax_rows = _saboteur("softmax_rows")
"""
BLANK_INPUTS = """
def score_matrix(Q, K):
    Q[...] = 0.0  # if the reference ran on the same array afterwards, it would agree
    K[...] = 0.0
    return np.zeros((Q.shape[0], K.shape[0]))
"""
HUNT = """
import gc, os, sys
found = []
for module in list(sys.modules.values()):
    names = vars(module) if hasattr(module, "__dict__") else {}
    if "ANSWERS" in names or "load_reference" in str(names.get("__file__", "")):
        found.append(f"module {module.__name__} has ANSWERS")
for obj in gc.get_objects():
    if isinstance(obj, str) and ("BEGIN HIDDEN TESTS" in obj or "ANSWERS = {" in obj):
        found.append("hidden text in memory")
        break
for key, value in os.environ.items():
    if "AUTOGRADER" in key or "reference" in value:
        found.append(f"environment {key}")
for fd in range(3, 64):
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        continue
    if "reference" in target or "solutions" in target or target.endswith(".db"):
        found.append(f"descriptor {fd} -> {target}")
print("FOUND" if found else "nothing to find", found)
"""
SLOW_ANSWER = """
answer_scale = "answer:" + " " * 10**6 + "(" * 10**6 + "a" * 10**6 + " ."
"""
DISPLAYS = """
import base64
import io

import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display

buffer = io.BytesIO()
plt.imsave(buffer, np.random.default_rng(0).random((700, 700, 3)), format="png")
png = base64.b64encode(buffer.getvalue()).decode()
for _ in range(60):
    display({"text/plain": "x" * 10**6, "image/png": png, "text/html": "<b>" * 10**5},
            raw=True)
"""
FILL_DISK = """
import os
for folder in ("/tmp", ".", "/dev/shm"):
    written = 0
    try:
        for i in range(40):
            with open(os.path.join(folder, f"fill-{i}"), "wb") as handle:
                for _ in range(2):
                    handle.write(b"\\0" * 16 * 2**20)
                    written += 16
        print("WROTE", folder, written, "MB")
    except OSError as err:
        print("blocked", folder, "after", written, "MB", err.errno)
"""

# -- neighbours that take the machine (issue #27 item 1): each forks busy children in
# sessions of their own from its first cell, then spins itself, so they run while the
# classmates are graded in the other worker
CPU_HOG = """
import os
for _ in range(24):
    if os.fork() == 0:
        os.setsid()
        while True:
            pass
while True:
    pass
"""
FORK_STORM = """
import os
while True:
    try:
        if os.fork() == 0:
            os.setsid()
            while True:
                pass
    except OSError:
        break
while True:
    pass
"""
MEMORY_HOG = """
import os, time
for _ in range(6):
    if os.fork() == 0:
        os.setsid()
        held = []
        try:
            for _ in range(16):
                held.append(bytearray(64 * 2**20))
                held[-1][::4096] = b"1" * len(held[-1][::4096])
        except MemoryError:
            pass
        time.sleep(600)
while True:
    pass
"""


def first_cell(nb, source: str) -> nbformat.NotebookNode:
    """A copy of nb with a new code cell before every other cell."""
    nb = copy.deepcopy(nb)
    nb.cells.insert(0, nbformat.v4.new_code_cell(source))
    return nb


@dataclass
class Case:
    """A hostile or broken submission, what the grader must make of it, and why."""

    student: str
    expected: float
    why: str
    files: dict  # file name -> bytes


def _nb_bytes(nb) -> bytes:
    return nbformat.writes(nb).encode()


def sample_class(root: Path) -> dict[str, tuple[bytes, float, str]]:
    """The embedded sample class: student -> (notebook bytes, expected score, what it is)."""
    base = solved(root)
    wrong = with_mistake(root, *MISTAKE)
    return {
        "ada": (_nb_bytes(base), FULL, "the solution"),
        "ben": (_nb_bytes(release_notebook(root)), 0.0, "the blank release, untouched"),
        "cleo": (_nb_bytes(wrong), FULL - 3, "attention weights transposed (test_attention)"),
        "dev": (
            _nb_bytes(with_mistake(root, "score_matrix", "no 1/sqrt(d_k)")),
            FULL - 2,
            "no 1/sqrt(d_k) in score_matrix (test_score_matrix; test_attention, which "
            "calls it, runs with the course's score_matrix and keeps its points)",
        ),
        "eli": (
            _nb_bytes(with_mistake(root, "softmax_rows", "softmax over the wrong axis")),
            FULL - 3,
            "softmax over the wrong axis (test_softmax_rows only: one slip, charged once)",
        ),
        "hal": (
            _nb_bytes(add_cell_after(wrong, "attention", MONKEYPATCH)),
            FULL - 3,
            "hostile: the mistake of cleo, plus numpy, torch and the checks patched",
        ),
    }


def hostile_cases(root: Path, work: Path, port: int) -> list[Case]:
    """Every hostile or broken submission of the suite, with its expected score."""
    base, wrong = solved(root), with_mistake(root, *MISTAKE)
    forbidden = [
        str(root / "solutions" / NOTEBOOK / f"{NOTEBOOK}.ipynb"),
        str(root / "autograder" / "reference" / "nb01_attention_scores.py"),
        str(work / "gradebook.db"),
        "/etc/shadow",
    ]
    others = [
        str(work / "submitted" / "ada" / NOTEBOOK / f"{NOTEBOOK}.ipynb"),
        str(work / "autograded" / "ada" / NOTEBOOK / f"{NOTEBOOK}.ipynb"),
        str(root / "attnbook" / "pwned.py"),
    ]
    solution_text = nbformat.writes(base)
    no_test = copy.deepcopy(wrong)
    del no_test.cells[_index(no_test, "test_attention")]
    edited = copy.deepcopy(wrong)
    edited.cells[_index(edited, "test_attention")].source = 'print("\\u2713 attention passed")'
    duplicated = copy.deepcopy(base)
    test_copy = copy.deepcopy(duplicated.cells[_index(duplicated, "test_softmax_rows")])
    test_copy["id"] = "copy-of-test-softmax-rows"
    duplicated.cells.insert(_index(duplicated, "test_softmax_rows"), test_copy)
    wrong_copy = copy.deepcopy(wrong.cells[_index(wrong, "attention")])
    wrong_copy["id"] = "copy-of-attention"
    duplicated.cells.insert(_index(duplicated, "attention") + 1, wrong_copy)
    retyped = copy.deepcopy(wrong)
    test_cell = retyped.cells[_index(retyped, "test_attention")]
    retyped.cells[_index(retyped, "test_attention")] = nbformat.v4.new_markdown_cell(
        "I turned this test into text", metadata=test_cell.metadata
    )
    answer = retyped.cells[_index(retyped, "answer_scale")]
    retyped.cells[_index(retyped, "answer_scale")] = nbformat.v4.new_markdown_cell(
        answer.source, metadata=answer.metadata
    )
    stripped = copy.deepcopy(wrong)
    for i, cell in enumerate(stripped.cells):
        cell.metadata.pop("nbgrader", None)
        cell["id"] = f"editor-{i}"
    mine = f"{NOTEBOOK}.ipynb"
    cases = [
        Case(
            "loop",
            12.0,
            "while True in the score_matrix answer cell: that cell times out, the kernel "
            "is stopped, and the grader goes on without that cell in a fresh kernel: "
            "score_matrix loses its 2 points; attention, which calls it, is graded with "
            "the course's score_matrix in its place (one slip, charged once)",
            {mine: _nb_bytes(append_to(base, "score_matrix", "while True:\n    pass"))},
        ),
        Case(
            "membomb",
            FULL,
            "fills 1 GiB, then asks for 16 GiB more in a cell of its own: "
            "MemoryError at the address-space limit, nothing else lost",
            {
                mine: _nb_bytes(
                    add_cell_after(
                        base,
                        None,
                        ("import numpy as np\nfilled = np.ones(2**27)\nblob = np.ones(2**31)"),
                    )
                )
            },
        ),
        Case(
            "osexit",
            6.0,
            "os._exit(0) after softmax_rows: the kernel dies, the 8 points "
            "of the tests after it are lost",
            {mine: _nb_bytes(append_to(base, "softmax_rows", "import os\nos._exit(0)"))},
        ),
        Case(
            "sysexit",
            FULL,
            "sys.exit(1) after softmax_rows: like Jupyter, the cell fails and the kernel lives on",
            {mine: _nb_bytes(append_to(base, "softmax_rows", "import sys\nsys.exit(1)"))},
        ),
        Case(
            "forkbomb",
            FULL,
            "forks without end in the last cell: stops at the process "
            "limit, killed with the sandbox",
            {mine: _nb_bytes(add_cell_after(base, None, "import os\nwhile True:\n    os.fork()"))},
        ),
        Case(
            "flood",
            FULL,
            "prints 100 MB and writes 100 MB to fd 1: kept output truncated",
            {
                mine: _nb_bytes(
                    add_cell_after(
                        base,
                        None,
                        (
                            "import os\nfor _ in range(10**5):\n    print('spam ' * 200)\n"
                            "os.write(1, b'x' * 10**8)"
                        ),
                    )
                )
            },
        ),
        Case(
            "deltest",
            FULL - 3,
            "deleted test_attention (and has the mistake): the test is put back and still costs 3",
            {mine: _nb_bytes(no_test)},
        ),
        Case(
            "edittest",
            FULL - 3,
            "replaced test_attention by a print (and has the mistake): restored, still costs 3",
            {mine: _nb_bytes(edited)},
        ),
        Case(
            "dupcells",
            FULL - 3,
            "duplicated test_softmax_rows and the attention answer "
            "cell, the copy wrong: the copy runs last, so its mistake costs 3",
            {mine: _nb_bytes(duplicated)},
        ),
        Case(
            "celltype",
            FULL - 3,
            "test_attention and answer_scale turned into Markdown: the "
            "test is restored as code, the answer runs as code",
            {mine: _nb_bytes(retyped)},
        ),
        Case(
            "stripped",
            FULL - 3,
            "saved by an editor that drops nbgrader metadata and cell "
            "ids (and has the mistake): answers recognised by their definitions, tests put "
            "back, the mistake still costs 3",
            {mine: _nb_bytes(stripped)},
        ),
        Case(
            "truncated",
            0.0,
            "notebook cut in half: unreadable, graded as blank",
            {mine: solution_text[: len(solution_text) // 2].encode()},
        ),
        Case(
            "notjson",
            0.0,
            "not JSON at all: graded as blank",
            {mine: b"print('my answers are in my head')"},
        ),
        Case(
            "missing",
            0.0,
            "uploaded only a text file: no notebook, graded as blank",
            {"readme.txt": b"I forgot to upload"},
        ),
        Case(
            "misnamed",
            FULL,
            "solution saved as 01_attn_final.ipynb: matched by its number",
            {"01_attn_final.ipynb": _nb_bytes(base)},
        ),
        Case(
            "monkey",
            FULL - 3,
            "the mistake plus numpy, torch and check functions patched: "
            "the checks run in the grader, so the mistake still costs 3",
            {mine: _nb_bytes(add_cell_after(wrong, "attention", MONKEYPATCH))},
        ),
        Case(
            "transformer",
            FULL - 3,
            "the mistake plus an input transformer, after the last answer, that blanks every "
            "later cell: tests do not pass through the kernel, and the reach into its shell "
            "comes after every test of a function (a test is charged for the cells before "
            "it): still costs 3",
            {mine: _nb_bytes(add_cell_after(wrong, "answer_permutation", TRANSFORMER))},
        ),
        Case(
            "helpers",
            FULL - 3,
            "the mistake plus edits to the check modules on disk "
            "(read-only) and in memory: still costs 3",
            {mine: _nb_bytes(add_cell_after(wrong, "attention", EDIT_HELPERS))},
        ),
        Case(
            "snoop",
            FULL - 3,
            "tries to read the solutions, the reference answers and the "
            "gradebook, and calls the reference for attention: nothing is there, costs 3",
            {
                mine: _nb_bytes(
                    add_cell_after(
                        append_to(
                            base,
                            "attention",
                            "from attnbook.grading import load_reference\n"
                            "def attention(Q, K, V):\n"
                            "    return load_reference('01_attention_scores').attention(Q, K, V)",
                        ),
                        None,
                        SNOOP.format(paths=forbidden),
                    )
                )
            },
        ),
        Case(
            "vandal",
            FULL,
            "tries to overwrite another student's submission, their graded "
            "notebook and the package: nothing outside its sandbox is writable",
            {mine: _nb_bytes(add_cell_after(base, None, WRITE_OTHER.format(paths=others)))},
        ),
        Case(
            "network",
            FULL,
            "opens connections to the grader's machine and the internet: no network in the sandbox",
            {mine: _nb_bytes(add_cell_after(base, None, NETWORK.format(port=port)))},
        ),
        Case(
            "saboteur",
            FULL - 6,
            "after the softmax_rows answer, project_qkv, score_matrix "
            "and softmax_rows are wrapped to answer right but write zeros into their inputs "
            "(the checks' worked examples, were they shared): the two tests that run after "
            "it, softmax_rows and attention, fail with the in-place hint; no classmate is "
            "touched",
            {mine: _nb_bytes(append_to(base, "softmax_rows", SABOTAGE))},
        ),
        Case(
            "blanker",
            FULL - 2,
            "score_matrix zeroes Q and K and returns zeros: a reference "
            "computed afterwards on the same arrays would agree; it runs on its own copies, "
            "so score_matrix fails (attention, which calls it, runs with the course's "
            "score_matrix and keeps its points)",
            {mine: _nb_bytes(append_to(base, "score_matrix", BLANK_INPUTS))},
        ),
        Case(
            "hunter",
            FULL,
            "searches its process for reference answers, hidden tests, the "
            "answer key and open files of the grader: there is nothing to find",
            {mine: _nb_bytes(add_cell_after(base, None, HUNT))},
        ),
        Case(
            "slowanswer",
            FULL - 1,
            "a 3 MB concept answer built to make a parser "
            "backtrack: read in linear time, refused as not one letter",
            {mine: _nb_bytes(append_to(base, "answer_scale", SLOW_ANSWER))},
        ),
        Case(
            "displays",
            FULL,
            "60 rich outputs of 1 MB text, a large PNG and HTML: kept "
            "within the per-cell and per-notebook caps, no HTML kept",
            {mine: _nb_bytes(add_cell_after(base, None, DISPLAYS))},
        ),
        Case(
            "diskfill",
            FULL,
            "writes 1.28 GB into /tmp, its working folder and /dev/shm: "
            "stops at the sandbox's 256 MB tmpfs; the host's disk is never written",
            {mine: _nb_bytes(add_cell_after(base, None, FILL_DISK))},
        ),
    ]
    # ---- issue #27 (helper `secret`): hidden cases drawn from the course's secret ---------
    cases += [
        Case(
            "lookuptable",
            FULL - 10.0,
            "answers recorded from the kit's checks (visible and hidden cases, no secret), "
            "no implementation: the grader's hidden cases are other inputs, so the four "
            "function tests (10 points) fail; the concept answers keep their 4",
            {mine: _nb_bytes(lookup_table_notebook(root))},
        ),
    ]
    # -- neighbours that take the machine (issue #27 item 1): each loses its own notebook
    # at its first cell; the honest classmates graded meanwhile keep their exact grades
    # (tests/test_ta_hostile.py: HONEST)
    cases += [
        Case(
            "cpuhog",
            FULL,
            "24 busy processes in sessions of their own, then spins, in a first cell of "
            "its own: stopped at its CPU time limit with all of them; the grader goes on "
            "without that cell in a fresh kernel, so the answers after it keep their points; "
            "its sandbox's CPU share leaves the classmates' time theirs",
            {mine: _nb_bytes(first_cell(base, CPU_HOG))},
        ),
        Case(
            "forkstorm",
            FULL,
            "forks busy processes until refused, then spins, in a first cell of its own: "
            "stopped at the sandbox's process count and CPU time limit; the grader goes on "
            "without that cell in a fresh kernel, so the answers after it keep their points",
            {mine: _nb_bytes(first_cell(base, FORK_STORM))},
        ),
        Case(
            "memhog",
            FULL,
            "6 processes of 1 GiB each, then spins, in a first cell of its own: the "
            "sandbox's memory limit holds for all of them together; stopped at the time "
            "limit, the grader goes on without that cell in a fresh kernel, so the answers "
            "after it keep their points",
            {mine: _nb_bytes(first_cell(base, MEMORY_HOG))},
        ),
    ]
    # -- issue #27 items 3, 5 and 7 (helper bounds) -------------------------------------------
    stub_attention = copy.deepcopy(base)
    release = release_notebook(root)
    stub_attention.cells[_index(stub_attention, "attention")].source = release.cells[
        _index(release, "attention")
    ].source
    cases += [
        Case(
            "rebinder",
            FULL - 3,
            "leaves attention as the released stub and binds a helper that calls the "
            "package's twin (attnbook.ops.torch_attend) with globals()['attention'] = helper: "
            "the binding counts, test_attention scores 0",
            {mine: _nb_bytes(add_cell_after(stub_attention, "attention", REBIND))},
        ),
        Case(
            "rebinder2",
            FULL - 3,
            "binds the same helper to attention under a computed name: the kernel says "
            "what attention is, and the helper it runs is read; test_attention scores 0",
            {mine: _nb_bytes(add_cell_after(stub_attention, "attention", REBIND_COMPUTED))},
        ),
        Case(
            "rebinder3",
            FULL - 3,
            "defines attention by exec of a computed string that calls that helper: code "
            "in none of the cells, test_attention scores 0",
            {mine: _nb_bytes(add_cell_after(stub_attention, "attention", REBIND_EXEC))},
        ),
        Case(
            "bigname",
            FULL - 10,
            "every graded function raises an exception whose class has an 8 MB name: the "
            "name crosses cut, the four function tests (10 points) fail, the concept "
            "answers keep their 4, and the graded notebook and feedback stay small",
            {mine: _nb_bytes(_raising(base))},
        ),
        Case(
            "emptyobjects",
            0.0,
            "the solution with 2 million empty JSON objects beside its cells: refused "
            "before it is parsed, with the reason, graded as the blank notebook",
            {mine: _with_junk(base, 2_000_000)},
        ),
        Case(
            f"Grace Hopper_{LMS_ID}_assignsubmission_file_",
            FULL,
            "an honest Moodle folder (LMS id 4242), the solution, uploaded first",
            {mine: _nb_bytes(base)},
        ),
        Case(
            f"Grace Hopper_{LMS_ID}_assignsubmission_file__7777_assignsubmission_file_",
            0.0,
            "a Moodle display name that spells Grace's LMS id, uploading the blank release "
            "later: it is student 7777, and Grace's upload is not superseded",
            {mine: _nb_bytes(release)},
        ),
    ]
    return cases


# -- issue #27: answers recorded from the kit, no implementation -----------------------------
# The check library draws hidden cases from seeds; a student who runs each check at home with
# the package's own functions as the reference records every input the check sends and
# hands in a table of answers. With the course's secret (grader/secret.py) the grader's
# hidden cases are other inputs: the table answers the visible checks only.
LOOKUP_FUNCTIONS = ("project_qkv", "score_matrix", "softmax_rows", "attention")
LOOKUP_CELL = """
import hashlib as _hashlib
import json as _json

import numpy as _np

_TABLE = _json.loads({table!r})


def _key(name, args):
    digest = _hashlib.sha256(name.encode())
    for arg in args:
        arr = _np.asarray(arg)
        digest.update(repr((arr.shape, str(arr.dtype))).encode())
        digest.update(arr.tobytes())
    return digest.hexdigest()


def _answer(name, *args):
    found = _TABLE.get(_key(name, args))
    if found is None or "raise" in found:
        raise ValueError(found["raise"] if found else f"{{name}}: an input I never recorded")
    out = found["value"]
    return tuple(_np.array(v) for v in out) if found["tuple"] else _np.array(out)


def {name}(*args):
    return _answer({name!r}, *args)
"""


def _recorded_key(name: str, args) -> str:
    import hashlib

    import numpy as np

    digest = hashlib.sha256(name.encode())
    for arg in args:
        arr = np.asarray(arg)
        digest.update(repr((arr.shape, str(arr.dtype))).encode())
        digest.update(arr.tobytes())
    return digest.hexdigest()


def recorded_answers(name: str) -> dict:
    """Every input the kit's check of `name` sends (visible and hidden, as a student runs it
    at home: no course secret), with the package's answer: key -> answer."""
    import functools
    import importlib
    import os

    import numpy as np

    from attnbook.grading import AUTOGRADER_ENV, SECRET_ENV, load_reference

    saved = {k: os.environ.pop(k) for k in (SECRET_ENV, AUTOGRADER_ENV) if k in os.environ}
    try:
        reference = getattr(load_reference(NOTEBOOK), name)
        check = getattr(importlib.import_module("attnbook.checks.nb01"), f"check_{name}")
        table: dict = {}

        @functools.wraps(reference)
        def recording(*args):
            key = _recorded_key(name, args)
            try:
                out = reference(*args)
            except Exception as err:
                table[key] = {"raise": str(err)}
                raise
            many = isinstance(out, tuple)
            values = [np.asarray(v).tolist() for v in out] if many else np.asarray(out).tolist()
            table[key] = {"tuple": many, "value": values}
            return out

        check(recording, reference=recording)
        return table
    finally:
        os.environ.update(saved)


def lookup_table_notebook(root: Path, nb: nbformat.NotebookNode | None = None):
    """Notebook 01 (the student's, or `nb`) with the concept answers right and each function
    a table of the answers to the inputs the kit's checks send."""
    import json

    nb = copy.deepcopy(nb) if nb is not None else solved(root)
    for name in LOOKUP_FUNCTIONS:
        table = json.dumps(recorded_answers(name))
        nb.cells[_index(nb, name)].source = LOOKUP_CELL.format(table=table, name=name)
    return nb


LMS_ID = "4242"
REBIND = """
from attnbook.ops import torch_attend


def helper(Q, K, V):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    require_ndim("Q", Q, 2, "(L_q, d_k)")
    require_ndim("K", K, 2, "(L_k, d_k)")
    require_ndim("V", V, 2, "(L_k, d_v)")
    require_same_size("Q", Q, -1, "K", K, -1, "the query/key width d_k")
    require_same_size("K", K, -2, "V", V, -2, "the number of keys L_k")
    return torch_attend(Q, K, V)
"""
REBIND_COMPUTED = (
    REBIND
    + """

globals()["atten" + "tion"] = helper
"""
)
REBIND = (
    REBIND
    + """

globals()["attention"] = helper
"""
)
REBIND_EXEC = (
    REBIND_COMPUTED.split("globals()")[0]
    + r"""
code = "def attention(Q, K, V):\n"
code += "    return helper(Q, K, V)\n"
exec(code[::-1][::-1])
"""
)
BIG_NAME = """
Huge = type("E" * 8_000_000, (Exception,), {})


def _boom(*args, **kwargs):
    raise Huge("boom")
"""


def _raising(nb):
    """Every graded function of notebook 01 rebound, in its own answer cell, to raise an
    exception whose class has an 8 MB name."""
    nb = append_to(nb, "project_qkv", BIG_NAME)
    for name in ("project_qkv", "score_matrix", "softmax_rows", "attention"):
        nb = append_to(nb, name, f"{name} = _boom\n")
    return nb


def _with_junk(nb, count: int) -> bytes:
    """The notebook's JSON with `count` empty objects in a field beside its cells."""
    text = nbformat.writes(nb).rstrip()
    return (text[:-1] + ', "x": [' + ",".join(["{}"] * count) + "]}").encode()


def lms_student_id(folder: str) -> str:
    """The student id the grader gives a case's folder: its LMS id for a Moodle folder."""
    from grader.intake import _identity

    found = _identity([folder, "notebook.ipynb"])
    return found[0].natural_id() if found else folder


def write_folder(out: Path, students: dict[str, dict[str, bytes]]) -> Path:
    for student, files in students.items():
        for name, data in files.items():
            path = out / student / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    return out


def write_lms_zip(path: Path, students: dict[str, dict[str, bytes]]) -> Path:
    """A Canvas-style download: <name>_<id>_<subid>_<file>, flat."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for number, (student, files) in enumerate(sorted(students.items())):
            for name, data in files.items():
                archive.writestr(f"{student}_{1000 + number}_{5000 + number}_{name}", data)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--zip", action="store_true", help="write an LMS (Canvas) zip")
    args = parser.parse_args()
    root = Path(__file__).resolve().parents[2]
    students = {s: {f"{NOTEBOOK}.ipynb": data} for s, (data, _, _) in sample_class(root).items()}
    if args.zip:
        print(write_lms_zip(args.out, students))
    else:
        print(write_folder(args.out, students))


if __name__ == "__main__":
    main()
