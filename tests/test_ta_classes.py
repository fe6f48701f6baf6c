"""The tests of learners' classes resist tricks: a class is driven by value, never trusted.

Notebook 06 grades nn.Module classes (MLP, PreNormBlock, Decoder). Their instances live in
the learner's sandboxed kernel; the grader builds them there, sets and reads their
parameters and runs their forward pass through a handle, moving values only
(`grader.remote.RemoteModule`). So nothing the learner's kernel does can reach a check: a
catalogued MLP mistake costs exactly its points whatever is added around it. Graded with the
README's command (`python -m grader grade`), next to honest students whose grades are exact.
"""

from __future__ import annotations

import copy

import nbformat
import pytest
from conftest import ROOT, grade_with_readme_command, read_grades
from grader.catalogue import apply_variant, load_catalogue, nbgrader_meta, solution_notebook
from grader.sample import load_builder
from grader.sandbox import sandbox_available

NOTEBOOK = "06_transformer_block"
MISTAKE = ("MLP", "ReLU instead of GELU")
SANDBOX_OK, SANDBOX_WHY = sandbox_available()
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not SANDBOX_OK, reason=f"no sandbox: {SANDBOX_WHY}"),
]

PATCH = """
import numpy as np
import torch
import attnbook.checks as checks
import attnbook.checks._core as core
torch.allclose = lambda *a, **k: True
torch.testing.assert_close = lambda *a, **k: None
np.allclose = lambda *a, **k: True
core.CheckRun.fail = lambda *a, **k: None
core.CheckRun.expect_close = lambda *a, **k: None
for name in dir(checks):
    if name.startswith("check_"):
        setattr(checks, name, lambda *a, **k: None)
check_MLP = check_PreNormBlock = check_Decoder = lambda *a, **k: None
"""
TRANSFORMER = """
get_ipython().input_transformers_post.append(lambda lines: [])
"""
# Reports the reference model's parameter names and a well-behaved state, but still runs
# the ReLU forward pass: the structure it claims gains nothing.
LIAR = """
_RealMLP = MLP


class MLP(_RealMLP):
    def named_parameters(self, *args, **kwargs):
        yield from super().named_parameters(*args, **kwargs)

    def state_dict(self, *args, **kwargs):
        return {k: v.clone() for k, v in super().state_dict(*args, **kwargs).items()}

    def load_state_dict(self, state, strict=True, **kwargs):
        return super().load_state_dict(state, strict=False)

    def train(self, mode=True):
        return super().train(False)
"""
# Hands the grader the package's own block instead of writing one: the outputs would be
# right, so only the names it calls give it away.
BORROW_NORM = """
import torch.nn.functional as F


def layer_norm(h, gamma, beta, eps=1e-5):
    return F.layer_norm(h, (h.shape[-1],), gamma, beta, eps)
"""


def _after(nb, grade_id, source):
    nb = copy.deepcopy(nb)
    where = (
        next(i for i, c in enumerate(nb.cells) if nbgrader_meta(c).get("grade_id") == grade_id) + 1
    )
    nb.cells.insert(where, nbformat.v4.new_code_cell(source))
    return nb


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    build = load_builder()
    release = nbformat.read(ROOT / "notebooks" / NOTEBOOK / f"{NOTEBOOK}.ipynb", 4)
    solution = solution_notebook(NOTEBOOK)
    variant = next(v for v in load_catalogue(NOTEBOOK).MISTAKES if (v.cell, v.name) == MISTAKE)
    wrong = build.fill_in(release, apply_variant(solution, variant))
    last_answer = [
        nbgrader_meta(c)["grade_id"] for c in release.cells if nbgrader_meta(c).get("solution")
    ][-1]
    students = {
        "solved": build.fill_in(release, solution),
        "relu": wrong,
        "patcher": _after(wrong, "MLP", PATCH),
        "blanker": _after(wrong, last_answer, TRANSFORMER),
        "liar": _after(wrong, "MLP", LIAR),
        "borrower": _after(build.fill_in(release, solution), "layer_norm", BORROW_NORM),
    }
    inbox = tmp_path_factory.mktemp("classes_in")
    for student, nb in students.items():
        (inbox / student).mkdir()
        nbformat.write(nb, inbox / student / f"{NOTEBOOK}.ipynb")
    work = tmp_path_factory.mktemp("classes")
    done = grade_with_readme_command(inbox, work, "-a", NOTEBOOK, "--timeout", "120")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return read_grades(work)


def test_solution_gets_full_marks(rows):
    assert rows["solved"]["score"] == rows["solved"]["max_score"]


def test_mistake_costs_exactly_its_points(rows):
    # the block and the decoder call MLP: they run with the course's MLP in place of the
    # learner's failed one (grader.standins), so the slip costs MLP's 2 points only
    scores = {
        t: float(rows["relu"][f"06:{t}"]) for t in ("test_MLP", "test_PreNormBlock", "test_Decoder")
    }
    assert scores == {"test_MLP": 0.0, "test_PreNormBlock": 3.0, "test_Decoder": 4.0}
    assert float(rows["relu"]["score"]) == float(rows["relu"]["max_score"]) - 2


@pytest.mark.parametrize("student", ["patcher", "blanker", "liar"])
def test_tricks_gain_nothing(rows, student):
    tests = {k: v for k, v in rows[student].items() if k.startswith("06:test_")}
    expected = {k: v for k, v in rows["relu"].items() if k.startswith("06:test_")}
    assert len(expected) == 14 and tests == expected, f"{student}: {tests} vs {expected}"


def test_a_forbidden_library_call_loses_its_points_in_the_grader(rows):
    assert float(rows["borrower"]["06:test_layer_norm"]) == 0
    assert float(rows["borrower"]["score"]) == float(rows["borrower"]["max_score"]) - 3
