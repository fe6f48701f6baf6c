"""Intake into a course's work folder, without a kernel: the intake report, the students'
names in the gradebook, an unchanged download that changes nothing, a broken upload that
costs only itself, and every file the TA command writes under autograder/ kept out of git."""

from __future__ import annotations

import json
import subprocess
import zipfile

import nbformat
import pytest
from conftest import ROOT
from grader import course as course_module
from grader.course import Course
from grader.sample import load_builder

NB = "01_attention_scores"


@pytest.fixture(scope="module")
def build():
    return load_builder()


@pytest.fixture(scope="module")
def download(tmp_path_factory, build):
    nb = nbformat.writes(build.solved(ROOT)).encode()
    path = tmp_path_factory.mktemp("in") / "download.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"张伟_2001_1_{NB}.ipynb", nb)
        archive.writestr(f"smithjane_2002_2_{NB}.ipynb", nb)
        archive.writestr("smithjane_2003_3_attention_scores.ipynb", nb)
        archive.writestr(f"Иван Петров_77_assignsubmission_file_\\{NB}.ipynb", nb)
        archive.writestr(f"bad_2004_4_{NB}.ipynb", b'{"cells": [1, "x"], "metadata": []}')
        archive.writestr("bo_2005_5_notes.txt", b"forgot")
        archive.writestr("__MACOSX/._junk", b"junk")
    return path


@pytest.fixture(scope="module")
def taken(tmp_path_factory, download):
    course = Course(root=ROOT, work=tmp_path_factory.mktemp("work"))
    course.ensure_assignment(NB)
    intake = course.take_in(download, [NB])
    return course, intake


def test_the_intake_report_names_every_file(taken, download):
    course, _ = taken
    report = json.loads((course.work / "intake.json").read_text(encoding="utf-8"))
    with zipfile.ZipFile(download) as archive:
        assert len(report["files"]) == len(archive.namelist())
    by_student = {f["name"]: f for f in report["files"] if f["status"] == "graded"}
    assert set(by_student) == {"张伟", "smithjane", "Иван Петров", "bad"}
    assert [f["student"] for f in report["files"] if f["name"] == "smithjane"] == ["2002", "2003"]
    ignored = {f["path"]: f["reason"] for f in report["files"] if f["status"] == "ignored"}
    assert set(ignored) == {"bo_2005_5_notes.txt", "__MACOSX/._junk"}
    assert report["summary"]["students"] == 6


def test_every_student_gets_a_notebook_and_a_name(taken):
    from nbgrader.api import Gradebook

    course, _ = taken
    ids = {"2001", "2002", "2003", "77", "2004", "2005"}
    assert set(course.collected(NB)) == ids
    with Gradebook(course.db_url) as gb:
        names = {s.id: (s.first_name, s.lms_user_id) for s in gb.students}
    assert names["2001"] == ("张伟", "2001") and names["77"] == ("Иван Петров", "77")
    assert course.resolve_students(["Иван Петров", "2001"]) == ["77", "2001"]
    with pytest.raises(ValueError, match="SmithJane.*found 2 .2002, 2003"):
        course.resolve_students(["SmithJane"])
    topic = course.details("2003", NB)
    assert "matched by its topic" in topic["notes"] and topic["status"] == "ok"
    assert "is a int, not a cell" in course.status_of("2004", NB)
    bo = course.details("2005", NB)
    assert "ignored 'bo_2005_5_notes.txt': not a notebook" in bo["notes"]
    assert "no notebook submitted" in bo["status"] and "see blank" in bo["status"]
    assert bo["blank"] == "yes" and topic["blank"] == ""


def test_the_same_download_again_changes_no_byte(taken, download):
    course, _ = taken
    paths = sorted((course.work / "submitted").rglob("*.ipynb"))
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in paths}
    prints = {s: course.fingerprint(s, NB) for s in course.collected(NB)}
    course.take_in(download, [NB])
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in paths} == before
    assert {s: course.fingerprint(s, NB) for s in course.collected(NB)} == prints


def test_an_upload_that_breaks_intake_costs_only_itself(taken, download, monkeypatch, tmp_path):
    course, _ = taken
    course = Course(root=ROOT, work=tmp_path)
    course.ensure_assignment(NB)
    real = course_module.normalize

    def flaky(data, release):
        if data and b'cells": [1' in data:
            raise RuntimeError("boom \ud800")
        return real(data, release)

    monkeypatch.setattr(course_module, "normalize", flaky)
    course.take_in(download, [NB])
    assert "could not be taken in (RuntimeError: boom \\ud800)" in course.status_of("2004", NB)
    assert course.status_of("2001", NB) == "ok"


def test_what_the_ta_command_writes_is_not_committed(taken):
    """Every path under the work folder, as it would be under autograder/, is git-ignored,
    with the grading outputs intake does not write yet."""
    course, _ = taken
    written = [p.relative_to(course.work).as_posix() for p in course.work.rglob("*") if p.is_file()]
    written += [
        "grades.csv",
        f"autograded/x/{NB}/{NB}.ipynb",
        f"feedback/x/{NB}/{NB}.html",
        f"reports/{NB}/x/{NB}.json",
        "gradebook.db",
    ]
    assert any(p.startswith("state/") for p in written) and "intake.json" in written
    paths = [f"autograder/{p}" for p in written]
    result = subprocess.run(
        ["git", "check-ignore", "--no-index", "-v", "-n", *paths],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    unignored = [
        line.split("\t")[1] for line in result.stdout.splitlines() if line.startswith("::")
    ]
    assert not unignored, f"would be committed: {unignored}"


# -- a file named as one notebook that holds another (review 5) --------------------------------
def test_a_file_that_holds_another_notebook_says_which_and_gets_the_banner(tmp_path):
    """cleo uploaded the released 02_positions under 01's name: its graded cells are 02's.
    It is graded as the blank 01, and the status, the intake report and the banner cell of
    the page say which notebook it is and what to do, instead of 16 cells put back."""
    other = (ROOT / "notebooks" / "02_positions" / "02_positions.ipynb").read_bytes()
    download = tmp_path / "download.zip"
    with zipfile.ZipFile(download, "w") as archive:
        archive.writestr(f"cleo_2006_6_{NB}.ipynb", other)
        archive.writestr("dan_2007_7_Untitled.ipynb", other)  # unnamed: not graded in this run
    course = Course(root=ROOT, work=tmp_path / "work")
    course.ensure_assignment(NB)
    course.take_in(download, [NB])
    why = f"this file holds notebook 02_positions, not {NB}: upload it under its own name"
    status = course.status_of("2006", NB)
    assert status.startswith(why) and "was missing: put back" not in status
    assert course_module.BLANK in status
    report = json.loads((course.work / "intake.json").read_text(encoding="utf-8"))
    reasons = {f["path"]: f["reason"] for f in report["files"]}
    assert reasons[f"cleo_2006_6_{NB}.ipynb"].startswith(why)
    dan = reasons["dan_2007_7_Untitled.ipynb"]
    assert "its cells are notebook 02_positions's, not graded in this run" in dan
    submitted = nbformat.read(course.submission_path("2006", NB), 4)
    banner = submitted.cells[0]
    assert banner.get("id") == course_module.WHY_BLANK_ID and why in banner.source


def test_an_empty_student_folder_gets_a_row_that_says_so(tmp_path):
    """class/erin/ with nothing in it: a student graded as the blank notebook whose notes
    name the empty folder, as a folder with only a text file is."""
    plain = tmp_path / "class"
    (plain / "ada").mkdir(parents=True)
    (plain / "ada" / f"{NB}.ipynb").write_bytes(
        (ROOT / "notebooks" / NB / f"{NB}.ipynb").read_bytes()
    )
    (plain / "erin").mkdir()
    course = Course(root=ROOT, work=tmp_path / "work")
    course.ensure_assignment(NB)
    course.take_in(plain, [NB])
    assert set(course.collected(NB)) == {"ada", "erin"}
    erin = course.details("erin", NB)
    assert "no notebook submitted" in erin["status"] and erin["blank"] == "yes"
    assert "ignored 'erin/': an empty folder" in erin["notes"]


# -- an earlier download run again (review 7) ------------------------------------------------
def _zip(path, members: dict[str, bytes]):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def _record_of(course: Course, student: str) -> list[tuple[str, str, str]]:
    """(path, status, download) of a student's files in intake.json's record of NB."""
    report = json.loads((course.work / "intake.json").read_text(encoding="utf-8"))
    files = report["notebooks"][NB]["files"]
    return sorted((f["path"], f["status"], f.get("download", "")) for f in files
                  if f["student"] == student)  # fmt: skip


def test_an_earlier_download_run_again_keeps_the_late_resubmission(tmp_path, build):
    """dev's late resubmission (Canvas attachment 5012) was taken in after the class's
    download (5003); that download run again (the README: re-running is safe) must not put
    the older file back: the late one stays, with its late flag and the same bytes (so no
    regrade and no manual score cleared), and the older file is listed as ignored, naming
    both. --replace-newer goes back to it on purpose."""
    from grader.course import intake_summary

    solved = nbformat.writes(build.solved(ROOT)).encode()
    wrong = nbformat.writes(build.with_mistake(ROOT, *build.MISTAKE)).encode()
    early = _zip(
        tmp_path / "download.zip",
        {f"ada_1000_5000_{NB}.ipynb": solved, f"dev_1003_5003_{NB}.ipynb": wrong},
    )
    late = _zip(tmp_path / "late2.zip", {f"dev_LATE_1003_5012_{NB}.ipynb": solved})
    course = Course(root=ROOT, work=tmp_path / "work")
    course.ensure_assignment(NB)
    course.take_in(early, [NB])
    course.take_in(late, [NB])
    path = course.submission_path("1003", NB)
    taken, fingerprint = path.read_bytes(), course.fingerprint("1003", NB)
    assert course.details("1003", NB)["late"] == "yes"

    for _ in range(2):  # twice: the record does not grow
        intake = course.take_in(early, [NB])
        assert path.read_bytes() == taken and course.fingerprint("1003", NB) == fingerprint
        assert course.details("1003", NB)["late"] == "yes"
        (record,) = [f for f in intake.files if f.student == "1003"]
        assert record.status == "ignored"
        assert record.reason.startswith(
            f"older than 'dev_LATE_1003_5012_{NB}.ipynb' (from {late}), the upload already "
            f"taken in for {NB}: a lower Canvas attachment id (5003 < 5012); that one is kept"
        )
        assert f"ignored dev_1003_5003_{NB}.ipynb: older than" in intake_summary(
            intake, course.work
        )
        assert intake.report()["summary"]["graded"] == 1  # ada's, unchanged
        assert _record_of(course, "1003") == [
            (f"dev_1003_5003_{NB}.ipynb", "ignored", ""),
            (f"dev_LATE_1003_5012_{NB}.ipynb", "graded", str(late)),
        ]
        report = json.loads((course.work / "intake.json").read_text(encoding="utf-8"))
        assert [(k["student"], k["upload"]["path"]) for k in report["kept"]] == [
            ("1003", f"dev_LATE_1003_5012_{NB}.ipynb")
        ]

    course.take_in(early, [NB], replace_newer=True)  # the TA goes back on purpose
    assert path.read_bytes() != taken and course.details("1003", NB)["late"] == ""
    assert _record_of(course, "1003") == [(f"dev_1003_5003_{NB}.ipynb", "graded", "")]
    course.take_in(late, [NB])  # and the newer upload replaces it again
    assert path.read_bytes() == taken


def test_without_an_lms_id_the_newer_file_by_its_time_is_kept(tmp_path, build):
    """Plain folders carry no upload id: of two takes, the file with the older modification
    time never replaces the newer one; a zip's member times count the same way."""
    import os

    solved = nbformat.writes(build.solved(ROOT)).encode()
    wrong = nbformat.writes(build.with_mistake(ROOT, *build.MISTAKE)).encode()
    course = Course(root=ROOT, work=tmp_path / "work")
    course.ensure_assignment(NB)
    for name, data, stamp in (("new", solved, 1_800_000_000), ("old", wrong, 1_700_000_000)):
        (tmp_path / name / "ada").mkdir(parents=True)
        (tmp_path / name / "ada" / f"{NB}.ipynb").write_bytes(data)
        os.utime(tmp_path / name / "ada" / f"{NB}.ipynb", (stamp, stamp))
    course.take_in(tmp_path / "new", [NB])
    path = course.submission_path("ada", NB)
    taken = path.read_bytes()
    intake = course.take_in(tmp_path / "old", [NB])
    assert path.read_bytes() == taken
    (record,) = intake.files
    assert record.status == "ignored" and "an older file time (2023-" in record.reason
    old_zip = tmp_path / "old.zip"  # zipped in 1980: older still
    with zipfile.ZipFile(old_zip, "w") as archive:
        archive.writestr(zipfile.ZipInfo(f"ada/{NB}.ipynb", (1980, 1, 1, 0, 0, 0)), wrong)
    course.take_in(old_zip, [NB])
    assert path.read_bytes() == taken


def test_a_download_without_a_students_notebook_keeps_the_one_taken_in_before(tmp_path):
    """Review of the change, round 7: a late download with ada's notebook 02 (and dev's 01)
    is taken in for 01 and 02, and ada, who has no 01 in it, had her on-time 01 replaced by
    the blank notebook. The upload taken in before stays, byte for byte, and is named as
    kept; a student with no upload before is still graded blank."""
    other = "02_positions"
    blank = {nb: (ROOT / "notebooks" / nb / f"{nb}.ipynb").read_bytes() for nb in (NB, other)}
    answered = blank[NB].replace(b"raise NotImplementedError()", b"pass  # ada's answer", 1)
    early = _zip(tmp_path / "download.zip", {f"ada_1000_5000_{NB}.ipynb": answered})
    late = _zip(
        tmp_path / "late.zip",
        {
            f"ada_LATE_1000_5100_{other}.ipynb": blank[other],
            f"dev_LATE_1003_5101_{NB}.ipynb": blank[NB],
        },
    )
    course = Course(root=ROOT, work=tmp_path / "work")
    for nb in (NB, other):
        course.ensure_assignment(nb)
    course.take_in(early, [NB])
    path = course.submission_path("1000", NB)
    before = path.read_bytes()
    assert b"ada's answer" in before
    intake = course.take_in(late, [NB, other])
    assert path.read_bytes() == before
    assert ("1000", NB) in intake.kept
    assert course.submission_path("1000", other).exists()  # her late 02 is taken in
