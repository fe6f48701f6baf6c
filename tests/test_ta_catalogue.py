"""The catalogue report: mistakes graded as submissions through the TA pipeline.

A few mistakes of notebook 01 (the whole catalogue takes minutes: `python -m grader
catalogue`) must be caught by their own test, lose at least its points, and show the same
failure message as the in-process catalogue test, so the report can be trusted.
"""

from __future__ import annotations

import pytest
from conftest import ROOT, run_mistake
from grader.catalogue import apply_variant, load_catalogue, solution_notebook
from grader.course import Course
from grader.report import catalogue_report, markdown
from grader.sandbox import sandbox_available

NOTEBOOK = "01_attention_scores"
LIMIT = 3
SANDBOX_OK, SANDBOX_WHY = sandbox_available()
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not SANDBOX_OK, reason=f"no sandbox: {SANDBOX_WHY}"),
]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    course = Course(root=ROOT, work=tmp_path_factory.mktemp("catalogue"), cell_timeout=60)
    return catalogue_report(course, [NOTEBOOK], workers=2, limit=LIMIT)


def test_every_mistake_is_caught_by_its_test(report):
    assert len(report) == LIMIT
    for row in report:
        assert row["expected_test"] in row["caught_by"], row
        assert row["points_lost"] > 0


def test_hints_match_the_in_process_catalogue(report):
    for variant, row in zip(load_catalogue(NOTEBOOK).MISTAKES[:LIMIT], report):
        text = run_mistake(apply_variant(solution_notebook(NOTEBOOK), variant), variant.test).text
        assert row["hint_ok"] == (variant.hint in text), row
        assert row["hint"] and row["hint"] in text


def test_markdown_table_has_a_row_per_mistake(report):
    text = markdown(report)
    assert text.count("\n| 01_attention_scores |") == LIMIT
