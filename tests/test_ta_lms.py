"""Grades back into the LMS (`python -m grader lms`, grader/lms.py): Canvas's gradebook CSV and
Moodle's grading worksheet, in each LMS's documented layout, filled from the gradebook; and
the feedback pages in one zip each. The gradebook is stood in for here (the sample class's
end-to-end run is in test_ta_sample.py)."""

from __future__ import annotations

import csv
import subprocess
import sys
import zipfile

import pytest
from conftest import ROOT
from grader import lms
from grader.course import Course, UsageError

NB = "01_attention_scores"
CANVAS_HEADER = [
    "Student",
    "ID",
    "SIS User ID",
    "SIS Login ID",
    "Section",
    "01 Attention scores (2001)",
    "02 Positions (2002)",
    "Current Score",
]
MOODLE_HEADER = [
    "Identifier",
    "Full name",
    "Email address",
    "Status",
    "Grade",
    "Maximum Grade",
    "Grade can be changed",
    "Last modified (submission)",
    "Last modified (grade)",
    "Feedback comments",
    "A column this test made up",
]


def _row(score: float, manual: str = "") -> dict:
    return {"score": score, "max_score": 14.0, "manual": manual, "tests": {"t1": 2.0, "t2": 0.0}}


@pytest.fixture
def course(tmp_path, monkeypatch):
    """A course whose gradebook holds 101 (11/14), 102 (14/14, a TA's grade) and 104, who
    is in neither LMS file; each has a feedback page, and the download named 101 and 102."""
    graded = {"101": _row(11.0), "102": _row(14.0, "yes"), "104": _row(3.0)}
    monkeypatch.setattr(lms, "_graded", lambda course, nb: graded)
    names = {"101": "Smith, Ann_101_7_01_attention_scores.ipynb", "102": "bo_102_8_nb.ipynb"}
    monkeypatch.setattr(lms, "_download_names", lambda course, nb: names)
    work = tmp_path / "work"
    for student in graded:
        page = work / "feedback" / student / NB / f"{NB}.html"
        page.parent.mkdir(parents=True)
        page.write_text(f"<p>page of {student}</p>")
    return Course(root=ROOT, work=work)


def _write(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8-sig") as handle:  # as the LMS writes it
        csv.writer(handle).writerows([header, *rows])
    return path


def _read(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def _canvas(tmp_path, extra=()):
    return _write(
        tmp_path / "canvas.csv",
        CANVAS_HEADER,
        [
            ["    Points Possible", "", "", "", "", "14", "10", "(read only)"],
            ["Smith, Ann", "101", "S1", "ann", "A", "", "7", "50"],
            ['Bo "the" Ng', "102", "", "bo", "A", "", "", ""],
            ["=HYPERLINK(1)", "103", "", "eve", "B", "", "", ""],
            *extra,
        ],
    )


def test_canvas_fills_only_its_column_and_keeps_the_identity_columns(course, tmp_path):
    done = lms.fill_canvas(course, NB, _canvas(tmp_path), None, missing_zero=False)
    rows = _read(course.work / "lms" / NB / "canvas_import.csv")
    assert rows[0] == CANVAS_HEADER[:6]  # identity columns and the one assignment column
    assert rows[1] == ["    Points Possible", "", "", "", "", "14"]
    assert rows[2] == ["Smith, Ann", "101", "S1", "ann", "A", "11"]
    assert rows[3] == ['Bo "the" Ng', "102", "", "bo", "A", "14"]  # the TA's grade
    assert rows[4] == ["'=HYPERLINK(1)", "103", "", "eve", "B", ""]  # text, not a formula
    assert (done.graded, done.blank, done.missing) == (2, ["=HYPERLINK(1) (103)"], ["104"])
    assert not done.ok  # 104 was graded but is not in the gradebook


def test_canvas_gives_zero_to_the_ungraded_only_when_asked(course, tmp_path):
    lms.fill_canvas(course, NB, _canvas(tmp_path), None, missing_zero=True)
    rows = _read(course.work / "lms" / NB / "canvas_import.csv")
    assert rows[4][-1] == "0" and rows[2][-1] == "11"


def test_canvas_pages_go_back_under_the_download_names(course, tmp_path):
    done = lms.fill_canvas(course, NB, _canvas(tmp_path), None, missing_zero=False)
    assert done.written[-1].name == "canvas_feedback.zip"
    with zipfile.ZipFile(done.written[-1]) as archive:
        assert sorted(archive.namelist()) == [
            "Smith, Ann_101_7_01_attention_scores.html",
            "bo_102_8_nb.html",
        ]
        assert archive.read("bo_102_8_nb.html") == b"<p>page of 102</p>"


def test_canvas_reports_an_id_that_is_there_twice(course, tmp_path):
    twice = _canvas(tmp_path, extra=[["Ann again", "101", "", "ann2", "A", "", "", ""]])
    done = lms.fill_canvas(course, NB, twice, None, missing_zero=False)
    assert done.twice == ["101"] and not done.ok


def test_canvas_column_is_chosen_by_title_or_named(course, tmp_path):
    header = CANVAS_HEADER[:5] + ["01 Attention scores (2001)", "Attention scores redo (2003)"]
    path = _write(tmp_path / "two.csv", header, [["Ann", "101", "", "", "", "", ""]])
    with pytest.raises(UsageError, match="found 2 .*name it with --column"):
        lms.fill_canvas(course, NB, path, None, missing_zero=False)
    with pytest.raises(UsageError, match="--column: expected one of .*got 'Quiz 1'"):
        lms.fill_canvas(course, NB, path, "Quiz 1", missing_zero=False)
    lms.fill_canvas(course, NB, path, "Attention scores redo (2003)", missing_zero=False)
    rows = _read(course.work / "lms" / NB / "canvas_import.csv")
    assert rows[0][-1] == "Attention scores redo (2003)" and rows[1][-1] == "11"


def test_a_file_that_is_no_canvas_gradebook_is_named(course, tmp_path):
    path = _write(tmp_path / "x.csv", ["Name", "Score"], [["Ann", "3"]])
    with pytest.raises(UsageError, match="expected Canvas's gradebook export"):
        lms.fill_canvas(course, NB, path, None, missing_zero=False)


def _worksheet(tmp_path, maximum="100.00"):
    def row(uid, name):
        return [f"Participant {uid}", name, f"{uid}@x.edu", "Submitted", "", maximum, "Yes"]

    return _write(
        tmp_path / "worksheet.csv",
        MOODLE_HEADER,
        [
            row("101", "Ann Smith") + ["-", "-", "", "kept"],
            row("102", "Bo, Ng") + ["-", "-", "", ""],
        ]
        + [row("105", "=cmd|' /C calc'!A0") + ["-", "-", "", ""]],
    )


def test_moodle_fills_grade_on_its_scale_and_a_comment(course, tmp_path):
    done = lms.fill_moodle(course, NB, _worksheet(tmp_path), missing_zero=False)
    rows = _read(course.work / "lms" / NB / "moodle_worksheet.csv")
    assert rows[0] == MOODLE_HEADER  # every column kept, an unknown one too
    at = {name: i for i, name in enumerate(MOODLE_HEADER)}
    ann, bo, unknown = rows[1], rows[2], rows[3]
    assert ann[at["Grade"]] == "78.57" and bo[at["Grade"]] == "100"  # 11/14 and 14/14 of 100
    assert ann[at["Feedback comments"]].startswith("Autograded: 11 / 14")
    assert "http" not in ann[at["Feedback comments"]] and ann[-1] == "kept"
    assert ann[at["Last modified (grade)"]] == "-"  # Moodle's own "-": not text-quoted
    assert "by hand" in bo[at["Feedback comments"]]
    assert unknown[at["Full name"]].startswith("'=") and unknown[at["Grade"]] == ""
    assert done.missing == ["104"] and done.blank == ["Participant 105"]


def test_moodle_pages_go_back_in_the_folders_moodle_names(course, tmp_path):
    done = lms.fill_moodle(course, NB, _worksheet(tmp_path), missing_zero=True)
    with zipfile.ZipFile(done.written[-1]) as archive:
        assert sorted(archive.namelist()) == [
            f"Ann Smith_101_assignsubmission_file_/{NB}.html",
            f"Bo, Ng_102_assignsubmission_file_/{NB}.html",
        ]
    rows = _read(course.work / "lms" / NB / "moodle_worksheet.csv")
    assert rows[3][4] == "0"  # --missing-zero


def test_a_worksheet_without_moodle_columns_is_named(course, tmp_path):
    path = _write(tmp_path / "w.csv", ["Identifier", "Grade"], [["Participant 1", ""]])
    with pytest.raises(UsageError, match="lacks Maximum Grade, Feedback comments"):
        lms.fill_moodle(course, NB, path, missing_zero=False)


def test_the_command_refuses_a_canvas_option_for_moodle(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "grader", "lms", "moodle", str(tmp_path / "w.csv"), "-a", NB]
        + ["--column", "X", "--work", str(tmp_path)],
        cwd=ROOT / "autograder",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "argument --column: expected only with canvas" in done.stderr


def test_people_are_matched_across_notebooks_by_email_and_a_clash_is_named(course, tmp_path):
    """Moodle numbers participants per assignment: Ann is 101 in notebook 01 and 7 in 04,
    matched by e-mail; in 04, participant 101 is someone else, which is a clash."""
    lms.fill_moodle(course, NB, _worksheet(tmp_path), missing_zero=False)
    later = _write(
        tmp_path / "worksheet04.csv",
        MOODLE_HEADER,
        [
            ["Participant 7", "Ann Smith", "101@x.edu", "", "", "100", "Yes", "-", "-", "", ""],
            ["Participant 101", "Cy Bo", "cy@x.edu", "", "", "100", "Yes", "-", "-", "", ""],
        ],
    )
    done = lms.fill_moodle(course, "04_masks", later, missing_zero=False)
    assert done.clashes == [
        "student id 101 is email:cy@x.edu in 04_masks and email:101@x.edu in "
        "01_attention_scores: two people under one id; grade these notebooks in separate "
        "work folders"
    ]
    assert not done.ok
    people = {r[0]: r for r in _read(course.work / "lms" / "people.csv")}
    assert people["person"] == ["person", "name", "01_attention_scores", "04_masks"]
    assert people["email:101@x.edu"][1:] == ["Ann Smith", "101", "7"]  # one person, two ids
    assert people["email:cy@x.edu"][2:] == ["", "101"]
