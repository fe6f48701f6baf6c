"""The catalogue report: mistakes graded as submissions through the TA pipeline.

A few mistakes of notebook 01 (the whole catalogue takes minutes: `python -m grader
catalogue`) must be caught by their own test, lose at least its points, and show the same
failure message as the in-process catalogue test, so the report can be trusted.
"""

from __future__ import annotations

import argparse
import tempfile

import nbformat
import pytest
from conftest import ROOT, run_mistake
from grader import report as catalogue
from grader.catalogue import apply_variant, load_catalogue, solution_notebook
from grader.course import Course
from grader.report import catalogue_report, markdown
from grader.sandbox import sandbox_available

NOTEBOOK = "01_attention_scores"
LIMIT = 3
SANDBOX_OK, SANDBOX_WHY = sandbox_available()


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    if not SANDBOX_OK:
        pytest.skip(f"no sandbox: {SANDBOX_WHY}")
    course = Course(root=ROOT, work=tmp_path_factory.mktemp("catalogue"), cell_timeout=60)
    return catalogue_report(course, [NOTEBOOK], workers=2, limit=LIMIT)


@pytest.mark.slow
def test_every_mistake_is_caught_by_its_test(report):
    assert len(report) == LIMIT
    for row in report:
        assert row["expected_test"] in row["caught_by"], row
        assert row["points_lost"] > 0


@pytest.mark.slow
def test_hints_match_the_in_process_catalogue(report):
    for variant, row in zip(load_catalogue(NOTEBOOK).MISTAKES[:LIMIT], report):
        text = run_mistake(apply_variant(solution_notebook(NOTEBOOK), variant), variant.test).text
        assert row["hint_ok"] == (variant.hint in text), row
        assert row["hint"] and row["hint"] in text


@pytest.mark.slow
def test_markdown_table_has_a_row_per_mistake(report):
    text = markdown(report)
    assert text.count("\n| 01_attention_scores |") == LIMIT


def test_the_catalogue_tells_its_progress_as_it_grades(tmp_path, monkeypatch, capsys):
    """`catalogue` grades every mistake of every notebook (minutes): it says which notebook
    it grades and a line per graded submission as it goes, on stderr, so that stdout stays
    the Markdown table. Grading is stood in for (the tests above grade for real)."""

    def grade_class(course, inbox, notebooks, workers=1, progress=None):
        assert progress is not None, "grade_class was given no progress to tell"
        students = sorted(p.name for p in inbox.iterdir())
        progress.start(len(students))
        outcomes = []
        for student in students:
            row = {"score": 14.0, "max_score": 14.0, "status": "ok"}
            outcomes.append(
                {"student": student, "assignment": notebooks[0], "ok": True, "row": row}
            )
            progress.done(outcomes[-1])
        progress.close()
        return outcomes

    blank = nbformat.v4.new_notebook()
    monkeypatch.setattr(catalogue, "grade_class", grade_class)
    monkeypatch.setattr(Course, "ensure_assignment", lambda self, notebook: None)
    monkeypatch.setattr(Course, "release", lambda self, notebook: blank)
    monkeypatch.setattr(catalogue, "solution_notebook", lambda notebook: blank)
    monkeypatch.setattr(catalogue, "fill_in", lambda release, nb: blank)
    monkeypatch.setattr(catalogue, "apply_variant", lambda nb, variant: blank)
    rows = [
        {"student_id": s, "assignment": NOTEBOOK, "tests": {"t": 1.0}}
        for s in ("solution", "m00", "m01")
    ]
    monkeypatch.setattr(catalogue, "gradebook_rows", lambda course: rows)
    args = argparse.Namespace(
        work=str(tmp_path), root=str(ROOT), db_url="", sandbox="none", timeout=None,
        memory_mb=None, assignment=[NOTEBOOK], workers=1, limit=2, out=None,
    )  # fmt: skip
    catalogue.catalogue_command(args)
    out, err = capsys.readouterr()
    assert out.startswith("| notebook | mistake |")  # stdout: the report only
    lines = err.splitlines()
    assert lines[0].startswith(f"catalogue [1/1] {NOTEBOOK}: ")
    assert "the solution and 2 mistake(s)" in lines[0]
    done = [line for line in lines if line.startswith("[")]
    assert [line.split()[0] for line in done] == ["[1/3]", "[2/3]", "[3/3]"]
    first = load_catalogue(NOTEBOOK).MISTAKES[0].name
    assert done[0].startswith(f"[1/3] m00 {NOTEBOOK}: 14 / 14, ok") and first[:40] in done[0]
    # without --work: the class it grades and its work folder are gone once it has reported
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    catalogue.catalogue_command(argparse.Namespace(**{**vars(args), "work": None}))
    assert capsys.readouterr().out.startswith("| notebook | mistake |")
    assert not list(scratch.iterdir()), list(scratch.iterdir())
