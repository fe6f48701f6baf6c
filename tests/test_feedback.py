"""Every hint is read in five seconds: a failed check shows its message, hint first, with no
traceback into the check library; no hint or failure message is an answer line; the common
structural slips (no `return`, a leftover `raise NotImplementedError()`, dropped input
checks, a module on a wrong helper, a persistent buffer, a demo after a failed check) each
get a plain message."""

from __future__ import annotations

import ast
import io
import itertools
import json
import linecache
import os
import re
import subprocess
import sys
import textwrap
import tokenize
import types
from functools import cache

import nbformat
import pytest
from conftest import (
    NOTEBOOKS,
    ROOT,
    SOLUTIONS,
    errors_of,
    execute,
    grade_in_kernel,
    read,
    run_mistake,
)
from grader.catalogue import (
    _REGION,
    apply_variant,
    fill_in,
    load_catalogue,
    nbgrader_meta,
    notebooks,
    solution_notebook,
    strip_solution_markers,
)
from grader.remote import RemoteFunction
from grader.testprocess import FAILED_LIMIT, failed_checks

from attnbook.checks import CheckFailure
from attnbook.checks._core import FAILED, HINT_BOOL_OPS, HINT_LEFTOVER
from attnbook.notebook import failure_lines

CHECKS = ROOT / "attnbook" / "checks"


# -- answer lines ---------------------------------------------------------------------------
def _logical_lines(source: str) -> list[str]:
    """The comment-free logical lines of `source`, tokens joined by single spaces."""
    lines, line = [], []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return lines
    for token in tokens:
        if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            if line:
                lines.append(" ".join(line))
            line = []
        elif token.type not in (tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT):
            line.append(token.string)
    return lines


def _simple(node) -> bool:
    """A name, constant or attribute, or a call of one with at most one such argument."""
    if node is None or isinstance(node, ast.Name | ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp):  # -1
        return isinstance(node.operand, ast.Constant)
    if isinstance(node, ast.Attribute):
        return _simple(node.value)
    if isinstance(node, ast.Tuple):
        return all(
            isinstance(e, ast.Name | ast.Constant | ast.Attribute) and _simple(e) for e in node.elts
        )
    if isinstance(node, ast.Call):
        args = [*node.args, *(k.value for k in node.keywords)]
        return (
            _simple(node.func)
            and len(args) <= 1
            and all(
                isinstance(a, ast.Name | ast.Constant | ast.UnaryOp) and _simple(a) for a in args
            )
        )
    return False


def _trivial(line: str) -> bool:
    """`return x`, `model.eval()`, `with torch.no_grad():`, `for block in self.blocks:`:
    lines every answer and every hint may share."""
    if len(re.sub(r"\s", "", line)) < 10:
        return True
    try:
        node = ast.parse(line + (" pass" if line.endswith(":") else "")).body[0]
    except SyntaxError:
        return False
    if isinstance(node, ast.Pass | ast.Break | ast.Continue):
        return True
    if isinstance(node, ast.Return | ast.Expr | ast.Assign):
        return _simple(node.value)
    if isinstance(node, ast.With):
        return all(_simple(item.context_expr) for item in node.items)
    if isinstance(node, ast.For):
        return _simple(node.iter)
    return False


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


@cache
def answer_lines() -> dict[str, str]:
    """Squashed answer line (and its expression, for `return ...`) -> where it comes from:
    the solution regions of each notebook and the autograder's reference bodies, without the
    lines the released notebook gives (signatures, input checks) and without trivial ones."""
    found: dict[str, str] = {}
    for name in notebooks():
        given = {
            line
            for c in read(NOTEBOOKS / name / f"{name}.ipynb").cells
            if c.cell_type == "code"
            for line in _logical_lines(c.source)
        }
        bodies = []
        for cell in read(SOLUTIONS / name / f"{name}.ipynb").cells:
            grade_id = nbgrader_meta(cell).get("grade_id", "")
            if nbgrader_meta(cell).get("solution") and not grade_id.startswith("answer_"):
                bodies += [
                    (grade_id, textwrap.dedent("\n".join(r.group(0).split("\n")[1:-1])))
                    for r in _REGION.finditer(cell.source)
                ]
        reference = (ROOT / "autograder" / "reference" / f"nb{name}.py").read_text()
        bodies += [
            (node.name, textwrap.dedent(ast.get_source_segment(reference, node)))
            for node in ast.parse(reference).body
            if isinstance(node, ast.FunctionDef | ast.ClassDef)
            and not node.name.startswith("_slip_")  # the catalogued mistakes: wrong programs
        ]
        for owner, body in bodies:
            for line in _logical_lines(body):
                if line in given or line.startswith(("def ", "class ", "@")) or _trivial(line):
                    continue
                forms = [line] + ([line[len("return ") :]] if line.startswith("return ") else [])
                for form in forms:
                    if not _trivial(form):
                        found.setdefault(_squash(form), f"{name}: {owner}: {line}")
    return found


def answers_in(text: str) -> list[str]:
    squashed = _squash(text)
    return [where for line, where in answer_lines().items() if line in squashed]


def _check_strings() -> list[tuple[str, int, str]]:
    """Every string the check library writes (docstrings aside), with file and line."""
    out = []
    for path in sorted(CHECKS.glob("*.py")):
        tree = ast.parse(path.read_text())
        docs = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(getattr(node, "body", None), list)
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        out += [
            (path.name, node.lineno, node.value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docs
        ]
    return out


def test_the_answer_line_finder_finds_answer_lines():
    lines = answer_lines()
    assert _squash("return Q @ K.T / np.sqrt(d_k)") in lines
    assert _squash("Q @ K.T / np.sqrt(d_k)") in lines
    assert _squash("model.eval()") not in lines and _squash("return Y, A") not in lines
    assert answers_in("Hint: A = softmax_rows(score_matrix(Q, K))")


def test_no_hint_of_the_check_library_is_an_answer_line():
    leaks = [
        f"{file}:{line}: {where}"
        for file, line, text in _check_strings()
        for where in answers_in(text)
    ]
    assert not leaks, "hints that write out an answer line:\n" + "\n".join(leaks)


@pytest.mark.slow
def test_every_catalogued_failure_reads_hint_first_and_is_no_answer_line():
    """The whole catalogue: each message has its hint in its first 6 lines (as displayed:
    `failure_lines`), and no answer line anywhere."""
    late, leaks = [], []
    for name in notebooks():
        solution = solution_notebook(name)
        for variant in load_catalogue(name).MISTAKES:
            # the run test_catalogue.py made of the same bytes (conftest.run_mistake)
            run = run_mistake(apply_variant(solution, variant), variant.test)
            if variant.hint not in "\n".join(run.shown[:6]):
                late.append(f"{name}: {variant.name}")
            leaks += [f"{name}: {variant.name}: {where}" for where in answers_in(run.text)]
    assert not late, "hints after the sixth line:\n" + "\n".join(late)
    assert not leaks, "failure messages that write out an answer line:\n" + "\n".join(leaks)


# -- how a failure is displayed ---------------------------------------------------------------
SHELL_SCRIPT = r"""
import json, sys
from IPython.core.interactiveshell import InteractiveShell
from grader.catalogue import apply_variant, load_catalogue, nbgrader_meta, solution_notebook
from grader.catalogue import strip_solution_markers

shell = InteractiveShell.instance(colors="NoColor", history_length=0)
shown = []
shell._showtraceback = lambda etype, value, stb: shown.append(list(stb))
out = {}
for notebook, name in json.loads(sys.argv[2]):
    variant = next(v for v in load_catalogue(notebook).MISTAKES if v.name == name)
    for cell in apply_variant(solution_notebook(notebook), variant).cells:
        meta = nbgrader_meta(cell)
        if cell.cell_type == "code" and ("setup" in cell.metadata.get("tags", [])
                                         or meta.get("solution")
                                         or meta.get("grade_id") == variant.test):
            shown.clear()
            shell.run_cell(strip_solution_markers(cell.source), store_history=False)
            if meta.get("grade_id") == variant.test:
                out[f"{notebook}:{name}"] = shown[-1] if shown else None
print(json.dumps(out))
"""
SAMPLED = {  # a few mistakes of each kind: wrong values, a crash, in place, a module
    "01_attention_scores": [
        "softmax over the wrong axis",
        "changes its input in place",
        "transpose trick that only works in 2-D",
        "V @ A instead of A @ V",
    ],
    "04_masks": ["diagonal excluded (j < i)", "mask applied after the softmax"],
    "05_multihead": ["mask inverted", "view on a non-contiguous tensor", "forgot W_O"],
    "06_transformer_block": [
        "unbiased variance",
        "ReLU instead of GELU",
        "the final LayerNorm forgotten (never created)",
    ],
}


def _catalogued(notebook: str, name: str):
    return next(v for v in load_catalogue(notebook).MISTAKES if v.name == name)


@pytest.fixture(scope="module")
def displayed() -> dict:
    """What IPython shows for each sampled mistake's test cell, with attnbook's setup()."""
    pairs = [[nb, name] for nb, names in SAMPLED.items() for name in names]
    done = subprocess.run(
        [sys.executable, "-c", SHELL_SCRIPT, str(ROOT), json.dumps(pairs)],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=ROOT,
        env={
            **os.environ,
            "MPLBACKEND": "Agg",
            "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'autograder'}",
        },
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _no_library_frames(lines: list[str]) -> bool:
    text = "\n".join(lines)
    return "attnbook/checks" not in text and "Traceback" not in text and 'File "' not in text


@pytest.mark.parametrize(
    ("notebook", "name"), [(nb, name) for nb, names in SAMPLED.items() for name in names]
)
def test_a_failed_check_shows_its_hint_first_and_no_library_frames(displayed, notebook, name):
    lines = displayed[f"{notebook}:{name}"]
    variant = _catalogued(notebook, name)
    assert lines, f"nothing was displayed for {name!r}"
    text = "\n".join(lines)
    assert lines[0].startswith("\u2717 "), text
    assert variant.hint in "\n".join(lines[:6]), f"hint {variant.hint!r} not in:\n{text}"
    assert _no_library_frames(lines), text
    assert len(lines) <= 17, f"{len(lines)} lines:\n{text}"


def test_a_failed_check_in_a_real_kernel_shows_the_hint_and_a_demo_names_its_check(tmp_path):
    """A learner's notebook 01 run by Jupyter: softmax_rows wrong, project_qkv not written.
    The check's error output is the short display; a demo using project_qkv says, in one
    line, to write it first; nothing reaches into the check library."""
    name = "01_attention_scores"
    release = read(NOTEBOOKS / name / f"{name}.ipynb")
    wrong = apply_variant(solution_notebook(name), _catalogued(name, "softmax over the wrong axis"))
    nb = fill_in(release, wrong)
    stub = next(c for c in release.cells if nbgrader_meta(c).get("grade_id") == "project_qkv")
    next(
        c for c in nb.cells if nbgrader_meta(c).get("grade_id") == "project_qkv"
    ).source = stub.source
    path = tmp_path / f"{name}.ipynb"
    nbformat.write(nb, path)
    done = execute(path, allow_errors=True, env={"PYTHONPATH": str(ROOT)})
    errors = {c.source: e for c in done.cells for e in errors_of(c)}
    check = errors["check_softmax_rows(softmax_rows)"]
    assert check["ename"] == "CheckFailure"
    assert check["traceback"][0].startswith("\u2717 softmax_rows:"), check["traceback"]
    assert "axis=-1" in "\n".join(check["traceback"][:6]) and _no_library_frames(check["traceback"])
    demo = next(e for source, e in errors.items() if source.startswith("Q, K, V = project_qkv"))
    assert demo["ename"] == "NotImplementedError"  # what nbgrader and the release test read
    assert len(demo["traceback"]) == 1 and "write project_qkv first" in demo["traceback"][0]


def test_plain_python_shows_the_message_alone():
    script = textwrap.dedent("""
        import numpy as np
        from attnbook.checks import check_softmax_rows
        from attnbook.notebook import setup

        setup()

        def softmax_rows(S):
            e = np.exp(S - S.max(axis=0, keepdims=True))
            return e / e.sum(axis=0, keepdims=True)

        check_softmax_rows(softmax_rows)
    """)
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and lines, done.stderr
    assert lines[0].startswith("\u2717 softmax_rows:") and lines[1].startswith("Hint:")
    assert _no_library_frames(lines), done.stderr


# -- the structural slips ---------------------------------------------------------------------
SETUP_01 = """
import numpy as np
from attnbook.checks import check_project_qkv, check_score_matrix, check_softmax_rows
from attnbook.notebook import setup
from attnbook.shapes import require_ndim, require_same_size
setup()
"""


CELL_NUMBERS = itertools.count()


def _cells(*sources: str, namespace: dict | None = None) -> dict:
    """Run `sources` as notebook cells are run: one namespace, each cell's source readable
    by `inspect` (IPython keeps it in linecache too)."""
    namespace = {"__name__": "__main__"} if namespace is None else namespace
    for source in sources:
        source = textwrap.dedent(source)
        filename = f"<test cell {next(CELL_NUMBERS)}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(compile(source, filename, "exec"), namespace)
    return namespace


def _notebook(name: str, variant=None) -> dict:
    """The namespace of a solution notebook's setup and answer cells, `variant` applied."""
    nb = (
        solution_notebook(name)
        if variant is None
        else apply_variant(solution_notebook(name), variant)
    )
    return _cells(
        *[
            strip_solution_markers(c.source)
            for c in nb.cells
            if c.cell_type == "code"
            and ("setup" in c.metadata.get("tags", []) or nbgrader_meta(c).get("solution"))
        ]
    )


def _failure(check, *args) -> BaseException:
    with pytest.raises((CheckFailure, NotImplementedError)) as info:
        check(*args)
    return info.value


def test_a_missing_return_is_named():
    ns = _cells(
        SETUP_01,
        """
        def score_matrix(Q, K):
            S = Q @ K.T / np.sqrt(Q.shape[-1])
    """,
    )
    err = _failure(ns["check_score_matrix"], ns["score_matrix"])
    head, hint = str(err).splitlines()[:2]
    assert isinstance(err, CheckFailure)
    assert "returned None" in head and "no `return`" in head and hint.startswith("Hint: end")


STUB = '''
    def score_matrix(Q, K):
        """Scores."""
        Q, K = np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64)
        require_ndim("Q", Q, 2, "(L_q, d_k)")
        # YOUR CODE HERE
        raise NotImplementedError()
'''


@pytest.mark.parametrize(
    "written",
    [
        STUB + "        return Q @ K.T / np.sqrt(Q.shape[-1])\n",  # below the raise
        STUB.replace("        raise", "        d_k = Q.shape[-1]\n        raise"),  # above it
    ],
)
def test_code_beside_a_leftover_raise_says_delete_the_raise(written):
    ns = _cells(SETUP_01, written)
    err = _failure(ns["check_score_matrix"], ns["score_matrix"])
    assert isinstance(err, CheckFailure), err
    assert str(err).splitlines()[1] == f"Hint: {HINT_LEFTOVER}"


def test_an_untouched_stub_is_not_written_yet():
    ns = _cells(SETUP_01, STUB)
    err = _failure(ns["check_score_matrix"], ns["score_matrix"])
    assert type(err) is NotImplementedError  # the release's cells fail with this and only this
    assert "score_matrix is not written yet" in str(err) and "delete" not in str(err)


def test_a_class_with_a_leftover_raise_in_forward_says_delete_the_raise():
    variant = _catalogued("06_transformer_block", "the stub's raise left above the written forward")
    ns = _notebook("06_transformer_block", variant)
    err = _failure(ns["check_decoder"], ns["Decoder"])
    assert isinstance(err, CheckFailure) and HINT_LEFTOVER in str(err).splitlines()[1]


def test_without_source_the_grader_says_both_possibilities():
    """The grader's stand-in has no source to read: the message covers both cases."""

    class Channel:
        def request(self, message, deadline=None):
            return {
                "ok": False,
                "exc": {"type": "NotImplementedError", "module": "builtins", "message": ""},
            }

    remote = RemoteFunction(Channel(), "score_matrix", ["Q", "K"], False)
    ns = _cells(SETUP_01)
    err = _failure(ns["check_score_matrix"], remote)
    assert type(err) is NotImplementedError
    assert "not written yet" in str(err) and "delete the `raise NotImplementedError()` line" in str(
        err
    )


def test_a_library_not_implemented_error_is_a_crash_of_the_written_code_not_a_stub():
    """torch raises NotImplementedError, with a message, for `bool | float` masks: that is the
    learner's bug, named with its call and a hint, not "not written yet"."""
    ns = _cells(
        SETUP_01,
        """
        import torch
        def score_matrix(Q, K):
            allowed = torch.ones(2, 2).tril() | torch.eye(2, dtype=torch.bool)  # float | bool
            return Q @ K.T / np.sqrt(Q.shape[-1])
    """,
    )
    err = _failure(ns["check_score_matrix"], ns["score_matrix"])
    assert isinstance(err, CheckFailure), err
    head, hint = str(err).splitlines()[:2]
    assert "raised NotImplementedError" in head and "not implemented for" in head, head
    assert hint == f"Hint: {HINT_BOOL_OPS}"
    assert "not written" not in str(err)


def test_a_stub_reached_through_a_written_function_is_named():
    ns = _notebook("01_attention_scores")
    _cells(
        """
        def softmax_rows(S):
            S = np.asarray(S, dtype=np.float64)
            # YOUR CODE HERE
            raise NotImplementedError()
    """,
        namespace=ns,
    )
    _failure(ns["check_softmax_rows"], ns["softmax_rows"])  # remembered as not written
    err = _failure(ns["check_attention"], ns["attention"])
    assert type(err) is NotImplementedError
    assert "from your softmax_rows, which is not written yet" in str(err)


def test_dropped_input_checks_say_keep_the_given_lines():
    ns = _cells(
        SETUP_01,
        """
        def project_qkv(X, W_Q, W_K, W_V):
            return X @ W_Q.T, X @ W_K.T, X @ W_V.T
    """,
    )
    err = _failure(ns["check_project_qkv"], ns["project_qkv"])
    assert isinstance(err, CheckFailure)
    assert str(err).splitlines()[1].startswith("Hint: keep the given lines")
    assert "name the offending argument" not in str(err)


# (notebook, a catalogued mistake of the helper, the helper, a graded subject that calls it):
# every graded function or class of notebooks 01-11 that uses another one graded before it
BLAMED_HELPERS = [
    ("01_attention_scores", "softmax over the wrong axis", "softmax_rows", "attention"),
    ("01_attention_scores", "no 1/sqrt(d_k)", "score_matrix", "attention"),
    ("03_rope", "exponent i/d_k instead of 2i/d_k", "rope_frequencies", "apply_rope"),
    ("04_masks", "diagonal excluded (j < i)", "causal_mask", "attention_mask"),
    ("04_masks", "lengths off by one (position <= length)", "padding_mask", "attention_mask"),
    ("05_multihead", "reshape without the transpose", "split_heads", "MultiHeadAttention"),
    ("06_transformer_block", "ReLU instead of GELU", "MLP", "PreNormBlock"),
    ("06_transformer_block", "post-norm where pre-norm is asked", "PreNormBlock", "Decoder"),
    ("07_training", "padding counted in the loss", "lm_loss", "train_step"),
    ("07_training", "padding counted in the loss", "lm_loss", "evaluate"),
    ("08_generation", "top-p drops the token that crosses p", "next_token_probs", "sample_next"),
    ("08_generation", "generator not passed on", "sample_next", "generate"),
    ("10_modern_decoder", "GELU instead of SiLU", "SwiGLU", "Qwen3Block"),
    ("10_modern_decoder", "key/value heads tiled with repeat", "grouped_query_attention",
     "Qwen3Block"),
    ("10_modern_decoder", "QK-norm created but not applied", "Qwen3Block", "Qwen3Decoder"),
]  # fmt: skip


def _check_of(ns: dict, name: str):
    """The notebook's check of `name`: check_multi_head_attention for MultiHeadAttention."""
    wanted = f"check{name}".replace("_", "").lower()
    return next(v for k, v in ns.items() if k.replace("_", "").lower() == wanted)


@pytest.mark.parametrize(("notebook", "mistake", "helper", "subject"), BLAMED_HELPERS)
def test_a_right_answer_on_a_wrong_helper_names_the_helper(notebook, mistake, helper, subject):
    ns = _notebook(notebook, _catalogued(notebook, mistake))
    assert isinstance(_failure(_check_of(ns, helper), ns[helper]), CheckFailure)
    err = _failure(_check_of(ns, subject), ns[subject])
    second = str(err).splitlines()[1]
    assert second.startswith(f"Hint: {subject} uses your {helper}"), str(err)
    assert f"fix {helper} first" in second


@pytest.mark.parametrize(("notebook", "mistake", "helper", "subject"), BLAMED_HELPERS)
def test_a_slip_in_a_graded_helper_is_charged_once(notebook, mistake, helper, subject):
    """Through the grader's path (a sandboxed kernel, each test in a fresh trusted process):
    the helper's test fails, and the subject, the reference answer, is graded with the
    course's version of the helper in place of the student's (grader.standins, a function or
    a class) and passes, with a line that says so. The notebook's self-check, which has no
    reference, tells the same student to fix the helper first: the subject may be right."""
    variant = _catalogued(notebook, mistake)
    ns = _notebook(notebook, variant)
    _failure(_check_of(ns, helper), ns[helper])
    in_notebook = str(_failure(_check_of(ns, subject), ns[subject])).splitlines()[1]
    FAILED.clear()
    assert f"fix {helper} first; {subject} itself may be right" in in_notebook

    source = apply_variant(solution_notebook(notebook), variant)
    graded = grade_in_kernel(source, notebook, [f"test_{helper}", f"test_{subject}"])
    assert graded[f"test_{helper}"][0] == "failed", graded
    verdict, text = graded[f"test_{subject}"]
    assert verdict == "passed", text
    assert f"Graded with the course's {helper} in place of yours" in text, text


def test_failed_checks_between_test_processes_are_plain_bounded_strings():
    """What one test process says failed reaches the next one as names only: anything else
    is dropped, long names are cut, and there is a limit to how many."""
    assert failed_checks(None) == {} and failed_checks([["x", "y"]]) == {}
    long = "x" * 300
    read = failed_checks({"softmax_rows": ["check_softmax_rows", "failed"], "a": ["b"],
                          "c": [1, "failed"], 7: ["d", "e"], long: [long, long]})  # fmt: skip
    assert read == {
        "softmax_rows": ("check_softmax_rows", "failed"),
        long[:200]: (long[:200], long[:50]),
    }
    many = failed_checks({f"f{i}": ["check", "failed"] for i in range(FAILED_LIMIT + 10)})
    assert len(many) == FAILED_LIMIT


def test_a_helper_fixed_without_rerunning_its_check_is_no_longer_blamed():
    """The learner fixes softmax_rows and re-runs its definition but not its check cell: a
    later failing check and a later failing demo do not send them back to softmax_rows."""
    right = _notebook("01_attention_scores")["softmax_rows"]  # (a notebook's setup forgets)
    mistake = _catalogued("01_attention_scores", "softmax over the wrong axis")
    ns = _notebook("01_attention_scores", mistake)
    assert isinstance(_failure(ns["check_softmax_rows"], ns["softmax_rows"]), CheckFailure)
    wrong = ns["softmax_rows"]
    ns["softmax_rows"] = types.FunctionType(wrong.__code__, ns, "softmax_rows")
    # a new object from the same wrong code, as running the unchanged cell again makes: the
    # blame stands
    unscaled = "def attention(Q, K, V):\n    A = softmax_rows(Q @ K.T)\n    return A @ V, A\n"
    _cells(unscaled, namespace=ns)
    err = _failure(ns["check_attention"], ns["attention"])
    assert str(err).splitlines()[1].startswith("Hint: attention uses your softmax_rows"), str(err)
    ns["softmax_rows"] = types.FunctionType(right.__code__, ns, "softmax_rows")
    # the fixed definition, its check cell not run again
    err = _failure(ns["check_attention"], ns["attention"])  # unscaled: attention's own slip
    assert "softmax_rows" not in str(err).splitlines()[1], str(err)
    assert "softmax_rows" not in FAILED
    demo = "A = softmax_rows(np.zeros((2, 3)))\nraise ValueError('a plot of a bad A')\n"
    with pytest.raises(ValueError) as info:
        _cells(demo, namespace=ns)
    assert failure_lines(info.value, demo, info.tb) is None  # the usual traceback


def test_a_persistent_buffer_gets_a_note_and_its_load_state_dict_a_clear_message(capsys):
    variant = next(
        v
        for v in load_catalogue("06_transformer_block").ALTERNATIVES
        if v.name == "list comprehension, batch-shaped positions, persistent buffer"
    )
    ns = _notebook("06_transformer_block", variant)
    ns["check_decoder"](ns["Decoder"])  # a right answer: it passes
    out = capsys.readouterr().out
    assert "sinusoids" in out and "persistent=False" in out
    demo = next(
        c.source
        for c in solution_notebook("06_transformer_block").cells
        if "reference_model.load_state_dict(yours.state_dict())" in c.source
    )
    with pytest.raises(RuntimeError) as info:
        _cells(demo, namespace=ns)
    lines = failure_lines(info.value, demo, info.tb)
    assert lines and "sinusoids" in lines[0] and "persistent=False" in lines[1], lines


def test_a_demo_after_a_failed_check_names_the_check_in_one_line():
    ns = _notebook(
        "01_attention_scores", _catalogued("01_attention_scores", "softmax over the wrong axis")
    )
    _failure(ns["check_softmax_rows"], ns["softmax_rows"])
    demo = "A = softmax_rows(np.zeros((2, 3)))\nraise ValueError('a plot of a bad A')\n"
    with pytest.raises(ValueError) as info:
        _cells(demo, namespace=ns)
    lines = failure_lines(info.value, demo, info.tb)
    assert lines and len(lines) == 1
    assert "fix softmax_rows first" in lines[0] and "check_softmax_rows" in lines[0]
    again = "answer_x = None\nraise NotImplementedError()\n"  # an answer cell run again
    FAILED["answer_x"] = ("check_choice", "not written")
    with pytest.raises(NotImplementedError) as info:
        _cells(again, namespace=ns)
    assert failure_lines(info.value, again, info.tb) is None
    unrelated = "x = 1 / 0\n"
    with pytest.raises(ZeroDivisionError) as info:
        _cells(unrelated, namespace=ns)
    assert failure_lines(info.value, unrelated, info.tb) is None  # the usual traceback
