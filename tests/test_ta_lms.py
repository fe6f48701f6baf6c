"""Grades back into the LMS (`python -m grader lms`, grader/lms.py): Canvas's gradebook CSV and
Moodle's grading worksheet, in each LMS's documented layout, filled from the gradebook; and
the feedback pages in one zip each. The gradebook is stood in for here (the sample class's
end-to-end run is in test_ta_sample.py)."""

from __future__ import annotations

import argparse
import csv
import re
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
MOODLE_HEADER = [*lms.MOODLE_WORKSHEET, "A column this test made up"]


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


def _canvas(tmp_path, extra=(), points="14"):
    """Canvas's export: the header, the Points Possible row (none if `points` is None), and
    a row per student."""
    possible = [["    Points Possible", "", "", "", "", points, "10", "(read only)"]]
    return _write(
        tmp_path / "canvas.csv",
        CANVAS_HEADER,
        [
            *(possible if points is not None else []),
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


@pytest.mark.parametrize("kind", ["canvas", "moodle"])
def test_a_second_export_keeps_the_first_and_says_where(course, tmp_path, kind):
    def export():
        if kind == "canvas":
            return lms.fill_canvas(course, NB, _canvas(tmp_path), None, missing_zero=False)
        return lms.fill_moodle(course, NB, _worksheet(tmp_path), missing_zero=False)

    first = export()
    assert not [n for n in first.notes if "earlier" in n]
    edited = first.written[0]
    edited.write_text(edited.read_text() + "edited by hand\n")  # as a TA may, before upload
    second = export()
    assert [p.name for p in second.written] == [p.name for p in first.written]
    kept = {w.name: [p for p in w.parent.glob(f"{w.stem}-*{w.suffix}")] for w in first.written}
    assert all(len(k) == 1 for k in kept.values()), kept  # the csv and the zip, each kept once
    assert kept[edited.name][0].read_text().endswith("edited by hand\n")
    assert second.notes[-len(kept) :] == [
        f"the earlier {name} is kept as {k[0]}" for name, k in kept.items()
    ]
    assert not edited.read_text().endswith("edited by hand\n")  # the new export is fresh


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
    with pytest.raises(UsageError, match="lacks Maximum Grade$"):
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


# -- a failed grading is no grade (review 3) --------------------------------------------------
FAILED_STATUS = (
    "GRADING FAILED (the grader's fault, not the student's; it is regraded next run): "
    "NotADirectoryError: [Errno 20] Not a directory"
)
NOT_STARTED = (
    "kernel lost at cell 1: the kernel did not start: the kernel closed its channel (it "
    "exited or was killed); "
)


@pytest.fixture
def failed_course(course, monkeypatch):
    """The course above, and 105 whose grading failed and 106 whose kernel never started:
    both 0 / 14 in the gradebook, both with a page on disk."""
    graded = dict(lms._graded(course, NB))
    graded["105"] = {**_row(0.0), "tests": {"t1": 0.0}, "status": FAILED_STATUS}
    graded["106"] = {**_row(0.0), "tests": {"t1": 0.0}, "status": NOT_STARTED}
    graded["101"] = {**graded["101"], "status": "see errors"}  # a student's own error: a grade
    monkeypatch.setattr(lms, "_graded", lambda course, nb: graded)
    names = dict(lms._download_names(course, NB))
    names.update({"105": "cy_105_9_nb.ipynb", "106": "di_106_9_nb.ipynb"})
    monkeypatch.setattr(lms, "_download_names", lambda course, nb: names)
    for student in ("105", "106"):
        page = course.work / "feedback" / student / NB / f"{NB}.html"
        page.parent.mkdir(parents=True)
        page.write_text("<p>0 / 14</p>")
    return course


@pytest.mark.parametrize("missing_zero", [False, True])
def test_canvas_leaves_a_failed_grading_as_it_was_and_names_it(
    failed_course, tmp_path, missing_zero
):
    extra = [["Cy", "105", "", "cy", "A", "", "", ""], ["Di", "106", "", "di", "A", "9", "", ""]]
    done = lms.fill_canvas(failed_course, NB, _canvas(tmp_path, extra), None, missing_zero)
    rows = {r[1]: r for r in _read(failed_course.work / "lms" / NB / "canvas_import.csv")}
    assert rows["105"][-1] == "" and rows["106"][-1] == "9"  # as Canvas exported them
    assert rows["101"][-1] == "11"
    assert done.graded == 2 and not done.ok
    assert [f.split(":")[0] for f in done.failed] == ["Cy (105)", "Di (106)"]
    assert "grading failed" in done.failed[0] and "kernel did not start" in done.failed[1]
    with zipfile.ZipFile(done.written[-1]) as archive:  # no page saying 0 / 14
        assert sorted(archive.namelist()) == [
            "Smith, Ann_101_7_01_attention_scores.html",
            "bo_102_8_nb.html",
        ]


def _worksheet_rows(tmp_path, rows, name="worksheet.csv"):
    return _write(
        tmp_path / name,
        MOODLE_HEADER,
        [
            [f"Participant {uid}", who, f"{uid}@x.edu", "Submitted", grade, maximum, "Yes"]
            + ["-", "-", comment, ""]
            for uid, who, grade, maximum, comment in rows
        ],
    )


def test_moodle_keeps_a_comment_a_ta_wrote_in_the_worksheet(course, tmp_path):
    """Review 10: a graded student's `Feedback comments` was overwritten, so a TA's comment
    typed in Moodle was lost on the next import. It is kept, the autograder's comment after
    it, and listed; run again on that output, the comment is not repeated."""
    path = _worksheet_rows(
        tmp_path, [("101", "Ann", "", "100.00", "See me about question 3."),
                   ("102", "Bo", "", "100.00", "Autograded: 9 / 14 (old export).")],
    )  # fmt: skip
    done = lms.fill_moodle(course, NB, path, missing_zero=False)
    at = MOODLE_HEADER.index("Feedback comments")
    rows = {r[0]: r for r in _read(course.work / "lms" / NB / "moodle_worksheet.csv")}
    ann, bo = rows["Participant 101"][at], rows["Participant 102"][at]
    assert ann.startswith("See me about question 3.\n\nAutograded: 11 / 14"), ann
    assert bo.startswith("Autograded: 14 / 14") and "old export" not in bo, bo
    assert any(n.startswith("Participant 101 (Ann): the comment the file held is kept")
               for n in done.notes), done.notes  # fmt: skip
    again = lms.fill_moodle(course, NB, course.work / "lms" / NB / "moodle_worksheet.csv", False)
    rows = {r[0]: r for r in _read(again.written[0])}
    assert rows["Participant 101"][at] == ann  # the TA's comment once, ours once


def test_moodle_leaves_a_failed_grading_as_it_was_and_names_it(failed_course, tmp_path):
    path = _worksheet_rows(
        tmp_path,
        [
            ("101", "Ann Smith", "", "100.00", ""),
            ("105", "Cy", "", "100.00", ""),
            ("106", "Di", "50.00", "100.00", "seen by hand"),
        ],
    )
    done = lms.fill_moodle(failed_course, NB, path, missing_zero=True)
    rows = {r[0]: r for r in _read(failed_course.work / "lms" / NB / "moodle_worksheet.csv")}
    at = {name: i for i, name in enumerate(MOODLE_HEADER)}
    assert rows["Participant 105"][at["Grade"]] == ""
    assert rows["Participant 105"][at["Feedback comments"]] == ""
    assert rows["Participant 106"][at["Grade"]] == "50.00"
    assert rows["Participant 106"][at["Feedback comments"]] == "seen by hand"
    assert rows["Participant 101"][at["Grade"]] == "78.57"
    assert done.graded == 1 and not done.ok
    assert [f.split(":")[0] for f in done.failed] == [
        "Participant 105 (Cy)",
        "Participant 106 (Di)",
    ]
    with zipfile.ZipFile(done.written[-1]) as archive:
        assert archive.namelist() == [f"Ann Smith_101_assignsubmission_file_/{NB}.html"]


def test_the_command_lists_who_was_not_exported_and_exits_1(failed_course, tmp_path, capsys):
    lms._graded(failed_course, NB).pop("104")  # every other student is placed: exit 1 for 105
    extra = [["Cy", "105", "", "cy", "A", "", "", ""], ["Di", "106", "", "di", "A", "", "", ""]]
    args = argparse.Namespace(
        lms="canvas",
        assignment=NB,
        file=str(_canvas(tmp_path, extra)),
        column=None,
        missing_zero=False,
    )
    assert lms.lms_command(args, failed_course) == 1
    out, err = capsys.readouterr()
    assert "2 graded; 2 not exported (their grading failed)" in out
    assert "not exported: Cy (105): grading failed" in err
    assert "not exported: Di (106): the kernel did not start" in err


def test_a_moodle_comment_says_a_page_is_attached_only_when_it_is(course, tmp_path):
    (course.work / "feedback" / "102" / NB / f"{NB}.html").unlink()
    lms.fill_moodle(course, NB, _worksheet(tmp_path), missing_zero=False)
    rows = _read(course.work / "lms" / NB / "moodle_worksheet.csv")
    assert rows[1][9].endswith("Your feedback page is attached.")
    assert "attached" not in rows[2][9]


# -- Canvas: the column's Points Possible --------------------------------------------------------
@pytest.mark.parametrize("points", ["100", "100.00", "100,00"])
def test_canvas_scales_to_the_columns_points_possible(course, tmp_path, points):
    done = lms.fill_canvas(course, NB, _canvas(tmp_path, points=points), None, False)
    out = _read(course.work / "lms" / NB / "canvas_import.csv")
    assert out[1][-1] == points  # the row as Canvas wrote it
    assert out[2][-1] == "78.57" and out[3][-1] == "100"  # 11/14 and 14/14 of 100
    assert done.warnings == []


@pytest.mark.parametrize("points", [None, "", "lots"])
def test_canvas_without_points_possible_writes_points_and_says_so(course, tmp_path, points):
    done = lms.fill_canvas(course, NB, _canvas(tmp_path, points=points), None, False)
    out = {r[1]: r for r in _read(course.work / "lms" / NB / "canvas_import.csv")}
    assert out["101"][-1] == "11"  # raw points, as the gradebook has them
    assert len(done.warnings) == 1 and not done.ok
    assert "01 Attention scores (2001)" in done.warnings[0]
    assert "Points Possible" in done.warnings[0] and "raw points" in done.warnings[0]


def test_canvas_refuses_a_read_only_column(course, tmp_path):
    with pytest.raises(UsageError, match=r"--column: .*'Current Score' is read only"):
        lms.fill_canvas(course, NB, _canvas(tmp_path), "Current Score", missing_zero=False)


# -- Moodle: Maximum Grade in any locale ----------------------------------------------------------
@pytest.mark.parametrize(
    ("maximum", "ann"),
    [("100,00", "78.57"), ("1.000,00", "785.71"), ("1 000,00", "785.71"), ("1,000.00", "785.71")],
)
def test_moodle_reads_a_decimal_comma_and_thousands_separators(course, tmp_path, maximum, ann):
    lms.fill_moodle(course, NB, _worksheet(tmp_path, maximum), missing_zero=False)
    rows = _read(course.work / "lms" / NB / "moodle_worksheet.csv")
    assert rows[1][4] == ann  # with a point: Moodle's import reads it in every language
    assert rows[1][5] == maximum  # as Moodle wrote it


@pytest.mark.parametrize("maximum", ["n/a", "", "0,00", "-3"])
def test_moodle_refuses_a_maximum_grade_it_cannot_read(course, tmp_path, maximum):
    with pytest.raises(UsageError, match=r"WORKSHEET: column Maximum Grade of Participant 101 "):
        lms.fill_moodle(course, NB, _worksheet(tmp_path, maximum), missing_zero=False)
    assert not (course.work / "lms" / NB / "moodle_worksheet.csv").exists()


def test_moodle_folder_names_survive_moodles_split_on_underscores(course, tmp_path):
    """Moodle's importer (mod/assign/feedback/file/importziplib.php) splits each folder name
    on "_" (at most 5 parts) and takes the second part as the participant number; its own
    downloads write a full name's "_" as a space."""
    path = _worksheet_rows(
        tmp_path,
        [("101", "Anne_Marie Smith", "", "100", ""), ("102", "Bo_", "", "100", "")],
    )
    done = lms.fill_moodle(course, NB, path, missing_zero=False)
    with zipfile.ZipFile(done.written[-1]) as archive:
        names = sorted(archive.namelist())
    assert names[0] == f"Anne Marie Smith_101_assignsubmission_file_/{NB}.html"
    assert [n.split("/")[0].split("_", 4)[1] for n in names] == ["101", "102"]


def _with_semicolons(path):
    """The same export saved with semicolons between fields (Canvas's "use semicolons"
    setting, or a spreadsheet in a locale with a decimal comma)."""
    with open(path, newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.reader(handle))
    with open(path, "w", newline="", encoding="utf-8-sig") as handle:
        csv.writer(handle, delimiter=";").writerows(rows)
    return path


@pytest.mark.parametrize("kind", ["canvas", "moodle"])
def test_an_export_separated_by_semicolons_is_read_as_one_with_commas(course, tmp_path, kind):
    def fill(path):
        if kind == "canvas":
            lms.fill_canvas(course, NB, path, None, missing_zero=False)
            return _read(course.work / "lms" / NB / "canvas_import.csv")
        lms.fill_moodle(course, NB, path, missing_zero=False)
        return _read(course.work / "lms" / NB / "moodle_worksheet.csv")

    make = _canvas if kind == "canvas" else _worksheet
    (tmp_path / "commas").mkdir()
    (tmp_path / "semicolons").mkdir()
    with_commas = fill(make(tmp_path / "commas"))
    assert len(with_commas[0]) > 5
    assert fill(_with_semicolons(make(tmp_path / "semicolons"))) == with_commas


def test_a_worksheet_without_feedback_comments_gets_grades_and_a_note(course, tmp_path, capsys):
    """Moodle leaves the column out where the assignment's feedback comments are off: the
    grades go in all the same, and the command says there is no comment."""
    with open(_worksheet(tmp_path), newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.reader(handle))
    at = rows[0].index("Feedback comments")
    path = _write(tmp_path / "w.csv", rows[0][:at] + rows[0][at + 1 :],
                  [r[:at] + r[at + 1 :] for r in rows[1:]])  # fmt: skip
    args = argparse.Namespace(
        lms="moodle", assignment=NB, file=str(path), column=None, missing_zero=False
    )
    code = lms.lms_command(args, course)
    out = capsys.readouterr().out
    written = _read(course.work / "lms" / NB / "moodle_worksheet.csv")
    assert written[1][written[0].index("Grade")] == "78.57"
    assert "note: WORKSHEET has no 'Feedback comments' column" in out and code == 1  # 104


# -- a wrong -a or --work, and exports with other columns (review 5) ------------------------
@pytest.mark.parametrize("kind", ["canvas", "moodle"])
@pytest.mark.parametrize("missing_zero", [False, True])
def test_a_notebook_with_nothing_graded_is_refused_and_nothing_written(
    course, tmp_path, monkeypatch, capsys, kind, missing_zero
):
    """A wrong -a or --work: the gradebook holds no grading of the notebook. Writing the
    file would blank, or with --missing-zero zero, the whole class in the LMS."""
    monkeypatch.setattr(lms, "_graded", lambda course, nb: {})
    args = argparse.Namespace(
        lms=kind,
        assignment="02_positions",
        file=str(_canvas(tmp_path) if kind == "canvas" else _worksheet(tmp_path)),
        column=None,
        missing_zero=missing_zero,
    )
    if kind == "canvas":  # the export's column for 02
        args.column = "02 Positions (2002)"
    assert lms.lms_command(args, course) == 2
    err = capsys.readouterr().err
    assert "-a 02_positions: expected a notebook graded in the work folder" in err
    assert str(course.work) in err and "found no graded submission of 02_positions" in err
    assert "nothing written" in err
    assert not (course.work / "lms").exists()


def test_one_canvas_user_in_exports_with_other_columns_is_one_person(course, tmp_path):
    """A TA without the SIS permission exports no SIS columns: Canvas user 101 is the same
    person in both exports (keyed by the Canvas id, which every export has), no clash."""
    lms.fill_canvas(course, NB, _canvas(tmp_path), None, missing_zero=False)
    header = ["Student", "ID", "Section", "02 Positions (2002)"]
    rows = [["    Points Possible", "", "", "10"], ["Smith, Ann", "101", "A", ""]]
    bare = _write(tmp_path / "bare.csv", header, rows + [["Bo", "102", "A", ""]])
    done = lms.fill_canvas(course, "02_positions", bare, None, missing_zero=False)
    assert done.clashes == []
    people = {r[0]: r for r in _read(course.work / "lms" / "people.csv")}
    assert people["canvas:101"][1:] == ["Smith, Ann", "101", "101"]  # one row, both notebooks


def test_a_canvas_id_that_is_a_moodle_participant_elsewhere_is_still_a_clash(course, tmp_path):
    """Records with no field in common (a Canvas user, a Moodle participant) under one id
    are two people: the clash stays."""
    lms.fill_canvas(course, NB, _canvas(tmp_path), None, missing_zero=False)
    done = lms.fill_moodle(course, "04_masks", _worksheet(tmp_path), missing_zero=False)
    assert any(c.startswith("student id 101 is email:101@x.edu in 04_masks") for c in done.clashes)


# -- a grade the LMS file already holds (review 7) --------------------------------------------
@pytest.mark.parametrize("kind", ["canvas", "moodle"])
@pytest.mark.parametrize("missing_zero", [False, True])
def test_a_grade_the_lms_file_holds_for_an_ungraded_student_is_kept_and_listed(
    course, tmp_path, capsys, kind, missing_zero
):
    """A TA's grade entered in the LMS by hand (an e-mailed notebook: nothing graded here)
    is no missing grade: --missing-zero zeroes only the empty cells, and the summary names
    whose grade it kept."""
    if kind == "canvas":
        extra = [
            ["Cy", "105", "", "cy", "A", "9.00", "", ""],
            ["Di", "106", "", "di", "A", "", "", ""],
        ]
        path, cell = _canvas(tmp_path, extra), 5
    else:
        path = _worksheet_rows(
            tmp_path,
            [("101", "Ann", "", "100.00", ""), ("105", "Cy", "9.00", "100.00", "by e-mail"),
             ("106", "Di", "", "100.00", "")],
        )  # fmt: skip
        cell = MOODLE_HEADER.index("Grade")
    args = argparse.Namespace(
        lms=kind, assignment=NB, file=str(path), column=None, missing_zero=missing_zero
    )
    lms.lms_command(args, course)
    out = capsys.readouterr().out
    name = "canvas_import.csv" if kind == "canvas" else "moodle_worksheet.csv"
    rows = {r[1] if kind == "canvas" else r[0]: r for r in _read(course.work / "lms" / NB / name)}
    cy, di = ("105", "106") if kind == "canvas" else ("Participant 105", "Participant 106")
    assert rows[cy][cell] == "9.00"  # the LMS file's grade, kept
    assert rows[di][cell] == ("0" if missing_zero else "")
    assert "1 kept the grade the LMS file holds" in out
    assert re.search(r"kept the LMS file's grade .*105.*: 9\.00", out)


def test_a_name_with_terminal_controls_is_printed_and_stored_escaped(course, tmp_path, capsys):
    """A display name from the LMS file (a hostile review's) must not drive the TA's
    terminal, printed or in people.csv: its control characters are shown, not sent."""
    evil = "Eve\x1b]0;PWNED\x07\x1b[2J"
    path = _canvas(tmp_path, [[evil, "105", "", "eve2", "A", "9.00", "", ""]])
    args = argparse.Namespace(lms="canvas", assignment=NB, file=str(path), column=None,
                              missing_zero=False)  # fmt: skip
    lms.lms_command(args, course)
    out = capsys.readouterr().out
    people = (course.work / "lms" / "people.csv").read_text(encoding="utf-8")
    assert "Eve\\x1b]0;PWNED\\x07" in out and "\x1b" not in out, out
    assert "Eve\\x1b]0;PWNED\\x07" in people and "\x1b" not in people and "\x07" not in people


# -- an upload taken in, graded in another gradebook (review 10) -------------------------------
def _lms_args(tmp_path, kind: str, missing_zero: bool) -> argparse.Namespace:
    """`lms KIND FILE -a NB` on the test's Canvas export or Moodle worksheet."""
    path = _canvas(tmp_path) if kind == "canvas" else _worksheet(tmp_path)
    return argparse.Namespace(
        lms=kind, assignment=NB, file=str(path), column=None, missing_zero=missing_zero
    )


@pytest.mark.parametrize("kind", ["canvas", "moodle"])
def test_missing_zero_never_zeroes_a_student_whose_upload_was_taken_in(
    course, tmp_path, monkeypatch, capsys, kind
):
    """A shard graded into its own SQLite gradebook: the intake took in 103's (or 105's)
    upload, but another shard graded it. --missing-zero must not give them 0: the grade is
    missing here, not the submission; the student is named and the command exits 1."""
    names = {"101": "a_101_7_nb.ipynb", "102": "b_102_8_nb.ipynb", "103": "e_103_9_nb.ipynb"}
    names["105"] = "x_105_1_nb.ipynb"
    monkeypatch.setattr(lms, "_download_names", lambda course, nb: names)
    assert lms.lms_command(_lms_args(tmp_path, kind, missing_zero=True), course) == 1
    captured = capsys.readouterr()
    if kind == "canvas":
        rows = {r[1]: r for r in _read(course.work / "lms" / NB / "canvas_import.csv")}
        assert rows["103"][-1] == "" and rows["101"][-1] == "11"
        who = "(103)"
    else:
        rows = {r[0]: r for r in _read(course.work / "lms" / NB / "moodle_worksheet.csv")}
        assert rows["Participant 105"][MOODLE_HEADER.index("Grade")] == ""
        who = "Participant 105"
    assert re.search(
        rf"grade missing here, upload taken in: .*{re.escape(who)}: no grade in this work "
        r"folder's gradebook, though its intake took in an upload \(\S+_nb\.ipynb\)",
        captured.err,
    ), captured.err
    assert "1 left blank: an upload was taken in but has no grade here, 0 given 0" in captured.out


@pytest.mark.parametrize("kind", ["canvas", "moodle"])
def test_a_grade_whose_manual_score_was_cleared_is_listed(
    course, tmp_path, monkeypatch, capsys, kind
):
    """A resubmission cleared the TA's manual score (review 10): the LMS gets the automatic
    score, and the summary names that student so the TA grades them again; exit 1."""
    cleared = dict(_row(11.0, "cleared"), status="manual score 2.0 on test_attention cleared: x")
    graded = {"101": cleared, "102": _row(14.0, "yes")}
    monkeypatch.setattr(lms, "_graded", lambda course, nb: graded)
    assert lms.lms_command(_lms_args(tmp_path, kind, missing_zero=False), course) == 1
    captured = capsys.readouterr()
    assert "2 graded (1 with a manual score a resubmission cleared);" in captured.out
    lines = [line for line in captured.err.splitlines() if line.startswith("manual grade cleared")]
    assert len(lines) == 1 and "101" in lines[0] and "2.0 on test_attention" in lines[0]
    assert "python -m grader adjust" in lines[0]


@pytest.mark.parametrize("kind", ["canvas", "moodle"])
def test_a_graded_students_grade_that_the_lms_file_held_is_listed_when_replaced(
    course, tmp_path, capsys, kind
):
    """Review 10: Moodle's `Grade "9,50"` became `10` without a word. A graded student's
    cell gets the gradebook's score (a regrade must reach the LMS), and the summary lists
    each different grade it replaced, with both values; the same grade written again (an
    earlier import, "78,57" for 78.57) is no replacement."""
    if kind == "canvas":
        extra = [["Cy", "105", "", "cy", "A", "9.00", "", ""]]
        path = _canvas(tmp_path, extra)
        rows = _read(path)
        rows[0][0] = rows[0][0].lstrip("\ufeff")  # the byte-order mark _write puts back
        rows[2][5], rows[3][5] = "9,50", "14.00"  # 101 (11 of 14 points), 102 (14)
        path = _write(path, rows[0], rows[1:])
        ann, bo = "Smith, Ann (101)", "(102)"
    else:
        path = _worksheet_rows(
            tmp_path,
            [("101", "Ann", "9,50", "100.00", ""), ("102", "Bo", "100,00", "100.00", ""),
             ("105", "Cy", "9.00", "100.00", "")],
        )  # fmt: skip
        ann, bo = "Participant 101 (Ann)", "Participant 102"
    args = argparse.Namespace(
        lms=kind, assignment=NB, file=str(path), column=None, missing_zero=False
    )
    lms.lms_command(args, course)
    out = capsys.readouterr().out
    new = "11" if kind == "canvas" else "78.57"
    assert f"replaced the LMS file's grade: {ann}: 9,50 replaced by {new}" in out, out
    assert "(1 replacing another grade the LMS file held)" in out
    assert not re.search(rf"replaced the LMS file's grade: .*{re.escape(bo)}", out)
    assert re.search(r"kept the LMS file's grade .*105.*: 9\.00", out)  # ungraded: kept
