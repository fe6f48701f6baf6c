"""A full nbgrader round trip in a temporary course, with the project's own configuration.

Four students submit notebook 01: the solution, the blank release, the solution with one
catalogued mistake, and a correct solution that writes to stderr. Autograding must give full
marks, zero, full marks less exactly the points of the test that catches the mistake, and
full marks again; the exported CSV holds all four.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys

import nbformat
import pytest
from conftest import ROOT, SOLUTIONS
from grader.catalogue import (
    Variant,
    apply_variant,
    fill_in,
    load_catalogue,
    nbgrader_meta,
    solution_notebook,
)

# A full round trip (generate, four sandboxed autogrades, export): minutes on two loaded cores.
pytestmark = pytest.mark.slow

NOTEBOOK = "01_attention_scores"
MISTAKE = ("attention", "weights transposed")  # affects test_attention alone
# A correct answer that writes to stderr when called, as torch's C++ warnings do.
NOISY_ATTENTION = Variant(
    "attention",
    "correct, but noisy on stderr",
    (
        """
    import sys
    sys.stderr.write("UserWarning: something harmless\\n")
    A = softmax_rows(score_matrix(Q, K))
    return A @ V, A
""",
    ),
    "test_attention",
)


def nbgrader(course, *args):
    # nbgrader runs `alembic` from PATH to create the gradebook: use this environment's.
    path = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
    env = dict(
        os.environ, ATTNBOOK_AUTOGRADER=str(course / "autograder"), MPLBACKEND="Agg", PATH=path
    )
    result = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args, "--log-level=WARN"],
        cwd=course / "autograder",
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, f"nbgrader {args} failed:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    course = tmp_path_factory.mktemp("course")
    shutil.copytree(SOLUTIONS / NOTEBOOK, course / "solutions" / NOTEBOOK)
    shutil.copytree(
        ROOT / "autograder",
        course / "autograder",
        ignore=shutil.ignore_patterns(
            "gradebook.db", "submitted", "autograded", "feedback", "__pycache__"
        ),
    )
    nbgrader(course, "generate_assignment", NOTEBOOK, "--force")
    released = nbformat.read(course / "notebooks" / NOTEBOOK / f"{NOTEBOOK}.ipynb", 4)
    solution = solution_notebook(NOTEBOOK)
    variant = next(v for v in load_catalogue(NOTEBOOK).MISTAKES if (v.cell, v.name) == MISTAKE)
    submissions = {
        "alice": fill_in(released, solution),
        "bob": released,
        "carol": fill_in(released, apply_variant(solution, variant)),
        "dave": fill_in(released, apply_variant(solution, NOISY_ATTENTION)),
    }
    for student, nb in submissions.items():
        folder = course / "autograder" / "submitted" / student / NOTEBOOK
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / f"{NOTEBOOK}.ipynb")
    nbgrader(course, "autograde", NOTEBOOK, "--create", "--force")
    nbgrader(course, "export", f"--to={course / 'grades.csv'}")
    with open(course / "grades.csv") as handle:
        grades = {row["student_id"]: row for row in csv.DictReader(handle)}
    return course, grades, variant, released


def _points(nb, grade_id):
    return next(
        float(nbgrader_meta(c)["points"])
        for c in nb.cells
        if nbgrader_meta(c).get("grade_id") == grade_id
    )


def test_csv_holds_all_four_students(course):
    _, grades, _, _ = course
    assert set(grades) == {"alice", "bob", "carol", "dave"}
    assert all(row["assignment"] == NOTEBOOK for row in grades.values())


def test_solution_scores_full_marks(course):
    _, grades, _, _ = course
    alice = grades["alice"]
    assert float(alice["max_score"]) > 0
    assert float(alice["score"]) == float(alice["max_score"])


def test_blank_release_scores_zero(course):
    _, grades, _, _ = course
    assert float(grades["bob"]["score"]) == 0.0


def test_one_mistake_loses_exactly_its_tests_points(course):
    _, grades, variant, released = course
    carol = grades["carol"]
    lost = float(carol["max_score"]) - float(carol["score"])
    assert lost == _points(released, variant.test), (
        f"carol lost {lost} points; the mistake {variant.name!r} should cost exactly {variant.test}"
    )


def test_hint_reaches_the_autograded_notebook(course):
    course_dir, _, variant, _ = course
    graded = nbformat.read(
        course_dir / "autograder" / "autograded" / "carol" / NOTEBOOK / f"{NOTEBOOK}.ipynb", 4
    )
    cell = next(c for c in graded.cells if nbgrader_meta(c).get("grade_id") == variant.test)
    text = "".join(o.get("evalue", "") for o in cell.outputs if o.output_type == "error")
    assert variant.hint in text


def test_stderr_output_does_not_zero_a_correct_answer(course):
    course_dir, grades, _, _ = course
    dave = grades["dave"]
    assert float(dave["score"]) == float(dave["max_score"]), (
        "a correct answer that writes to stderr lost points"
    )
    graded = nbformat.read(
        course_dir / "autograder" / "autograded" / "dave" / NOTEBOOK / f"{NOTEBOOK}.ipynb", 4
    )
    # The warning stays visible, on stdout. With SandboxedExecute (nbgrader_config.py applies
    # it) a test calls the student's function from the grader, so the text shows in the
    # student's own cells that call it rather than in the test cell.
    texts = [
        (o.get("name"), o.get("text", ""))
        for c in graded.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.output_type == "stream" and "something harmless" in o.get("text", "")
    ]
    assert texts and all(name == "stdout" for name, _ in texts), texts
