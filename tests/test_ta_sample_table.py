"""`python -m grader sample`'s block of expected scores (grader/sample.py), without grading:
its words must not read as a grading status."""

from __future__ import annotations

from grader.sample import expected_lines

STUDENTS = {"ada": (b"", 14.0, "all correct"), "ben": (b"", 0.0, "the blank release, untouched")}


def test_a_score_as_expected_does_not_read_as_status_ok():
    """ben's status is `see blank`; his score 0 is the expected one, which the block says
    without the word "ok" that a status uses."""
    rows = [{"name": "ada", "score": 14.0}, {"name": "ben", "score": 0.0}]
    lines, wrong = expected_lines(rows, STUDENTS)
    assert wrong == 0
    assert lines[0] == "expected score (the grader's score: as expected, or DIFFERENT):"
    assert lines[2].split() == [
        "ben",
        "0",
        "as",
        "expected",
        "the",
        "blank",
        "release,",
        "untouched",
    ]
    assert not any(" ok " in f" {line} " for line in lines)


def test_a_different_score_is_counted_and_shows_what_the_grader_gave():
    rows = [{"name": "ada", "score": 11.0}, {"name": "ben", "score": 0.0}]
    lines, wrong = expected_lines(rows, STUDENTS)
    assert wrong == 1 and "DIFFERENT (got 11)" in lines[1]


def test_sample_refuses_work_and_its_help_says_where_its_work_folder_is(capsys):
    """Review 10: `sample --work DIR` was taken and ignored (the class went to a temporary
    folder), and its help gave --work the default ROOT/autograder and --out a temporary
    folder. --work is refused, naming --out; the help says OUT/work."""
    import pytest
    from grader import cli

    with pytest.raises(SystemExit) as stop:
        cli._main(["sample", "--work", "/somewhere/else"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "argument --work: expected --out OUT with sample" in err
    assert "got --work '/somewhere/else'" in err
    with pytest.raises(SystemExit):
        cli._main(["sample", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "OUT/work" in text and "ROOT/autograder" not in text
