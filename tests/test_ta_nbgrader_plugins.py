"""Plain nbgrader speaks the grader's formats through nbgrader's own extension points.

`nbgrader zip_collect` (with `grader.nbgrader_plugins.LMSFileNames`, selected by
`autograder/nbgrader_config.py`) takes a Canvas download apart as the TA command does: each
student under their LMS id, the notebook matched by its name; `nbgrader export` (with
`GradesCsv`) writes the TA command's grades.csv. Run with the environment's `nbgrader` in a
copy of the working tree, from its autograder/ folder.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys

import pytest
from conftest import ROOT
from grader.catalogue import fill_in, solution_notebook
from grader.sample import load_builder
from grader.sandbox import sandbox_available
from test_ta_plain_nbgrader import copy_of_the_working_tree

NOTEBOOK = "01_attention_scores"
SANDBOX_OK, SANDBOX_WHY = sandbox_available()
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not SANDBOX_OK, reason=f"no sandbox: {SANDBOX_WHY}"),
]


def _nbgrader(folder, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATTNBOOK")}
    env["PATH"] = f"{os.path.dirname(sys.executable)}{os.pathsep}{env.get('PATH', '')}"
    done = subprocess.run(
        ["nbgrader", *args], cwd=folder, env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, f"{args}:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    import nbformat

    clone = copy_of_the_working_tree(tmp_path_factory.mktemp("clone"))
    folder = clone / "autograder"
    build = load_builder()
    release = nbformat.read(ROOT / "notebooks" / NOTEBOOK / f"{NOTEBOOK}.ipynb", 4)
    students = {
        "Ada Lovelace": {
            f"{NOTEBOOK}.ipynb": nbformat.writes(
                fill_in(release, solution_notebook(NOTEBOOK))
            ).encode()
        },
        "Cleo": {
            "attention_scores_final.ipynb": nbformat.writes(
                build.with_mistake(ROOT, *build.MISTAKE)
            ).encode()
        },
    }
    archive = folder / "downloaded" / NOTEBOOK / "archive"
    archive.mkdir(parents=True)
    build.write_lms_zip(archive / "submissions.zip", students)
    _nbgrader(
        folder,
        "generate_assignment",
        NOTEBOOK,
        "--force",
        "--CourseDirectory.release_directory=autograder/release",
    )
    _nbgrader(folder, "zip_collect", NOTEBOOK)
    _nbgrader(folder, "autograde", NOTEBOOK, "--create")
    _nbgrader(folder, "export")
    return folder


def test_zip_collect_files_students_under_their_lms_ids(course):
    submitted = sorted(
        p.relative_to(course / "submitted").as_posix()
        for p in (course / "submitted").glob("*/*/*.ipynb")
    )
    # write_lms_zip numbers the students in name order: Ada Lovelace 1000, Cleo 1001
    assert submitted == [f"1000/{NOTEBOOK}/{NOTEBOOK}.ipynb", f"1001/{NOTEBOOK}/{NOTEBOOK}.ipynb"]


def test_export_writes_the_grader_csv_with_exact_grades(course):
    with open(course / "grades.csv", newline="") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert float(rows["1000"]["score"]) == 14.0 and float(rows["1001"]["score"]) == 11.0
    # the TA command's columns (plain zip_collect records no readable names: they stay empty)
    assert {"name", "status", "feedback", "01:test_attention"} <= set(rows["1001"])
