"""Tests that must run in the student's kernel (their arguments are classes) still resist tricks.

Notebook 06 hands the student's nn.Module classes to its checks, so the grader runs those
tests in the sandboxed kernel after restoring numpy, torch and the check library, with the
instructor's setup names and references lent over the pipe. A catalogued MLP mistake must
cost the same with and without monkeypatching or an input transformer on top.
"""

from __future__ import annotations

import copy

import nbformat
import pytest
from conftest import ROOT
from grader.catalogue import apply_variant, load_catalogue, nbgrader_meta, solution_notebook
from grader.course import Course, grade_class, gradebook_rows
from grader.sample import load_builder
from grader.sandbox import sandbox_available

NOTEBOOK = "06_transformer_block"
MISTAKE = ("MLP", "ReLU instead of GELU")
SANDBOX_OK, SANDBOX_WHY = sandbox_available()
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not SANDBOX_OK, reason=f"no sandbox: {SANDBOX_WHY}"),
              pytest.mark.skipif(not (ROOT / "solutions" / NOTEBOOK).is_dir(),
                                 reason=f"{NOTEBOOK} is not written yet")]

PATCH = '''
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
'''
TRANSFORMER = '''
get_ipython().input_transformers_post.append(lambda lines: [])
'''


def _after(nb, grade_id, source):
    nb = copy.deepcopy(nb)
    where = next(i for i, c in enumerate(nb.cells)
                 if nbgrader_meta(c).get("grade_id") == grade_id) + 1
    nb.cells.insert(where, nbformat.v4.new_code_cell(source))
    return nb


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    build = load_builder()
    course = Course(root=ROOT, work=tmp_path_factory.mktemp("inkernel"), cell_timeout=120)
    course.ensure_assignment(NOTEBOOK)
    release, solution = course.release(NOTEBOOK), solution_notebook(NOTEBOOK)
    variant = next(v for v in load_catalogue(NOTEBOOK).MISTAKES if (v.cell, v.name) == MISTAKE)
    wrong = build.fill_in(release, apply_variant(solution, variant))
    last_answer = [nbgrader_meta(c)["grade_id"] for c in release.cells
                   if nbgrader_meta(c).get("solution")][-1]
    students = {"solved": build.fill_in(release, solution), "relu": wrong,
                "patcher": _after(wrong, "MLP", PATCH),
                "blanker": _after(wrong, last_answer, TRANSFORMER)}
    inbox = tmp_path_factory.mktemp("inkernel_in")
    for student, nb in students.items():
        (inbox / student).mkdir()
        nbformat.write(nb, inbox / student / f"{NOTEBOOK}.ipynb")
    outcomes = grade_class(course, inbox, [NOTEBOOK], workers=2)
    assert all(o["ok"] for o in outcomes), outcomes
    in_kernel = outcomes[0]["report"]["in_kernel"]
    assert "test_MLP" in in_kernel, f"test_MLP should run in the kernel: {in_kernel}"
    return {r["student_id"]: r for r in gradebook_rows(course)}


def test_solution_gets_full_marks_with_kernel_side_tests(rows):
    assert rows["solved"]["score"] == rows["solved"]["max_score"]


def test_mistake_costs_points(rows):
    assert rows["relu"]["tests"]["test_MLP"] == 0
    assert rows["relu"]["score"] < rows["relu"]["max_score"]


@pytest.mark.parametrize("student", ["patcher", "blanker"])
def test_tricks_gain_nothing(rows, student):
    assert rows[student]["tests"] == rows["relu"]["tests"], (
        f"{student}: {rows[student]['tests']} vs the plain mistake {rows['relu']['tests']}")
