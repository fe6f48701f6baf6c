"""Regrading is deterministic and decided by what decides the grade.

Fast tests (no kernel): the fingerprint covers the instructor's notebook, the reference
answers, the check library and the grader's code, and only the assignment's own files of
them; a manual score is cleared (and reported) when the answers it was given for changed,
kept when they did not.

One slow test runs the TA's command on a small class (the solution, a catalogued mistake,
two students with manual scores) in a copy of the course: the same zip twice grades nothing
the second time; a resubmission with a changed answer clears its manual score and says so, an
unchanged one keeps it; a corrected reference answer regrades everyone.
"""

from __future__ import annotations

import copy
import csv
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT, grader_command
from grader import cli
from grader import course as course_module
from grader.course import Course, UsageError, default_db_url, grade_class, grading_inputs
from grader.normalize import answer_digests
from grader.sandbox import sandbox_available

NB = "01_attention_scores"


# -- the fingerprint -----------------------------------------------------------------------
def _fake_course(tmp_path: Path, monkeypatch) -> Course:
    """A course folder holding copies of every grading input of notebook 01 (and a file of
    notebook 05 that must not count)."""
    root = tmp_path / "course"
    (root / "solutions" / NB).mkdir(parents=True)
    shutil.copy(ROOT / "solutions" / NB / f"{NB}.ipynb", root / "solutions" / NB)
    (root / "autograder" / "reference").mkdir(parents=True)
    for name in ("nb01_attention_scores.py", "nb05_multihead.py"):
        shutil.copy(ROOT / "autograder" / "reference" / name, root / "autograder" / "reference")
    package = tmp_path / "attnbook"
    shutil.copytree(ROOT / "attnbook", package, ignore=shutil.ignore_patterns("__pycache__"))
    grader = tmp_path / "grader"
    shutil.copytree(
        ROOT / "autograder" / "grader", grader, ignore=shutil.ignore_patterns("__pycache__")
    )
    monkeypatch.setenv("ATTNBOOK_AUTOGRADER", str(root / "autograder"))
    monkeypatch.setattr(course_module, "package_dir", lambda: package)
    monkeypatch.setattr(course_module, "GRADER_DIR", grader)
    return Course(root=root, work=tmp_path / "work")


def test_the_fingerprint_inputs_are_the_assignments_own(tmp_path, monkeypatch):
    course = _fake_course(tmp_path, monkeypatch)
    labels = {label for label, _ in grading_inputs(course.root, NB)}
    for expected in (
        f"solutions/{NB}.ipynb",
        "reference/nb01_attention_scores.py",
        "attnbook/checks/nb01.py",
        "attnbook/checks/_core.py",
        "attnbook/grading.py",
        "grader/execute.py",
        "grader/course.py",
    ):
        assert expected in labels
    assert not {"reference/nb05_multihead.py", "attnbook/checks/nb05.py"} & labels


@pytest.mark.parametrize(
    ("changed", "regrades"),
    [
        ("attnbook/checks/nb01.py", True),
        ("attnbook/checks/_core.py", True),
        ("course/autograder/reference/nb01_attention_scores.py", True),
        (f"course/solutions/{NB}/{NB}.ipynb", True),
        ("grader/execute.py", True),
        ("grader/wire.py", True),
        ("attnbook/checks/nb05.py", False),
        ("course/autograder/reference/nb05_multihead.py", False),
    ],
)
def test_a_changed_grading_input_changes_the_fingerprint(tmp_path, monkeypatch, changed, regrades):
    course = _fake_course(tmp_path, monkeypatch)
    before = course.inputs_digest(NB)
    assert course.inputs_digest(NB) == before  # stable while nothing changes
    path = tmp_path / changed
    path.write_bytes(path.read_bytes() + b"\n# corrected\n")
    assert (course.inputs_digest(NB) != before) == regrades


def test_the_limits_a_grade_was_given_under_are_part_of_its_fingerprint(tmp_path):
    """A run with too little memory gave every student 0: the next run, with the right limit,
    must regrade them, and a limit written out at its default changes nothing."""
    default = Course(root=ROOT, work=tmp_path).limits()
    assert Course(root=ROOT, work=tmp_path, memory_mb=4096).limits() == default
    for changed in ({"memory_mb": 10}, {"cell_timeout": 0.5}, {"sandbox": "none"}):
        assert Course(root=ROOT, work=tmp_path, **changed).limits() != default, changed
    folder = tmp_path / "submitted" / "s" / NB
    folder.mkdir(parents=True)
    shutil.copy(ROOT / "solutions" / NB / f"{NB}.ipynb", folder)
    fingerprints = {
        Course(root=ROOT, work=tmp_path, **limit).fingerprint("s", NB)
        for limit in ({}, {"memory_mb": 4096}, {"memory_mb": 10})
    }
    assert len(fingerprints) == 2


def test_a_kernel_that_did_not_start_is_the_graders_failure_not_a_zero(tmp_path, monkeypatch):
    """The kernel dies before any of the student's code (a memory limit too small to import
    torch, a broken sandbox): the notebook's grading failed, to be regraded, not graded 0."""
    course = Course(root=ROOT, work=tmp_path)
    folder = tmp_path / "submitted" / "s" / NB
    folder.mkdir(parents=True)
    shutil.copy(ROOT / "solutions" / NB / f"{NB}.ipynb", folder)
    status = "kernel lost at cell 1: the kernel did not start: out of memory"

    class Api:
        def autograde(self, assignment, student, **_):
            report = tmp_path / "reports" / assignment / student / f"{assignment}.json"
            report.parent.mkdir(parents=True)
            report.write_text(json.dumps({"status": status}))
            return {"success": True}

        def generate_feedback(self, *_, **__):
            return {"success": True}

    monkeypatch.setattr(course, "api", Api)
    outcome = course.grade_one(NB, "s")
    assert not outcome["ok"]
    assert "could not start a kernel" in outcome["reason"] and "out of memory" in outcome["reason"]
    assert course.state("s", NB)["failed"] == outcome["reason"]
    assert not course.up_to_date("s", NB)


# -- manual scores -------------------------------------------------------------------------
@pytest.fixture
def manual_course(tmp_path):
    """A gradebook where student s has a manual score on test_attention of notebook 01."""
    from nbgrader.api import Gradebook

    course = Course(root=ROOT, work=tmp_path)
    with Gradebook(course.db_url) as gb:
        gb.add_assignment(NB)
        gb.add_notebook(NB, NB)
        gb.add_grade_cell("test_attention", NB, NB, max_score=3, cell_type="code")
        gb.add_grade_cell("test_softmax_rows", NB, NB, max_score=3, cell_type="code")
        gb.add_student("s")
        gb.add_submission(NB, "s")
        gb.find_grade("test_attention", NB, NB, "s").manual_score = 2.0
        gb.db.commit()
    return course


def _manual(course) -> dict:
    from nbgrader.api import Gradebook

    with Gradebook(course.db_url) as gb:
        return {g.name: g.manual_score for g in gb.find_submission_notebook(NB, NB, "s").grades}


def test_a_manual_score_on_changed_answers_is_cleared_and_reported(manual_course):
    before = {"attention": "a", "softmax_rows": "b", "<own code>": "c"}
    now = dict(before, attention="changed")
    cleared = manual_course.clear_stale_manual(NB, "s", {"answers": before}, now)
    assert _manual(manual_course) == {"test_attention": None, "test_softmax_rows": None}
    assert cleared["test_attention"]["score"] == 2.0
    assert "attention" in cleared["test_attention"]["why"]
    manual_course._write_state("s", NB, {"manual_cleared": cleared})
    status = manual_course.status_of("s", NB)
    assert "manual score 2.0 on test_attention cleared" in status
    assert "formgrader" in status
    # once a TA grades it by hand again, the note goes
    assert "cleared" not in manual_course.status_of("s", NB, {"test_attention"})


def test_a_cleared_manual_score_takes_its_comment_off_the_page_and_keeps_its_text(tmp_path):
    """Review 10: a resubmission cleared the TA's score on test_attention but left the TA's
    comment on the page (and in the LMS's zip), under the new automatic score. The comment
    on the answer cell the test's comment goes on is cleared with it, its text kept in the
    state file and quoted by the status, which names the command to grade it again; a
    comment on a cell whose own manual score stands is kept."""
    import nbformat
    from nbgrader.api import Gradebook

    course = Course(root=ROOT, work=tmp_path)
    meta = [
        {"solution": True, "grade": True, "grade_id": "attention", "points": 1},
        {"grade": True, "grade_id": "test_attention", "points": 3},
        {"solution": True, "grade_id": "softmax_rows"},
        {"grade": True, "grade_id": "test_softmax_rows", "points": 3},
    ]
    release = tmp_path / "release" / NB / f"{NB}.ipynb"
    release.parent.mkdir(parents=True)
    cells = [nbformat.v4.new_code_cell("", metadata={"nbgrader": m}) for m in meta]
    nbformat.write(nbformat.v4.new_notebook(cells=cells), release)
    with Gradebook(course.db_url) as gb:
        gb.add_assignment(NB)
        gb.add_notebook(NB, NB)
        gb.add_grade_cell("attention", NB, NB, max_score=1, cell_type="code")
        for name in ("attention", "softmax_rows"):
            gb.add_solution_cell(name, NB, NB)
        for name in ("test_attention", "test_softmax_rows"):
            gb.add_grade_cell(name, NB, NB, max_score=3, cell_type="code")
        gb.add_student("s")
        gb.add_submission(NB, "s")
        gb.find_grade("attention", NB, NB, "s").manual_score = 1.0  # stands: unchanged
        gb.find_grade("test_softmax_rows", NB, NB, "s").manual_score = 2.0
        gb.find_comment("softmax_rows", NB, NB, "s").manual_comment = "rows: see the hint"
        gb.find_comment("attention", NB, NB, "s").manual_comment = "good scaling"
        gb.db.commit()
    before = {"attention": "a", "softmax_rows": "b", "<own code>": "c"}
    now = dict(before, softmax_rows="changed")
    cleared = course.clear_stale_manual(NB, "s", {"answers": before}, now)
    assert cleared["test_softmax_rows"]["comment"] == "rows: see the hint"
    with Gradebook(course.db_url) as gb:
        assert gb.find_comment("softmax_rows", NB, NB, "s").manual_comment is None
        assert gb.find_comment("attention", NB, NB, "s").manual_comment == "good scaling"
    course._write_state("s", NB, {"manual_cleared": cleared})
    status = course.status_of("s", NB, {"attention"})
    assert "manual score 2.0 on test_softmax_rows cleared, and its comment" in status
    assert "'rows: see the hint'" in status
    assert f"python -m grader adjust s -a {NB} test_softmax_rows POINTS --comment" in status


@pytest.mark.parametrize(
    "state",
    [
        {"answers": {"attention": "a", "<own code>": "c"}},  # unchanged resubmission
        {},
    ],
)  # graded before answers were recorded: nothing to compare, nothing cleared
def test_a_manual_score_on_unchanged_answers_is_kept(manual_course, state):
    now = {"attention": "a", "<own code>": "c"}
    assert manual_course.clear_stale_manual(NB, "s", state, now) == {}
    assert _manual(manual_course)["test_attention"] == 2.0


def test_answer_digests_see_answers_and_own_code_not_tests():
    release = nbformat.read(ROOT / "notebooks" / NB / f"{NB}.ipynb", 4)
    base = answer_digests(release)
    test_edit = copy.deepcopy(release)
    next(c for c in test_edit.cells if c.get("id") == "test_attention").source += "\n# x"
    assert answer_digests(test_edit) == base
    answer_edit = copy.deepcopy(release)
    next(c for c in answer_edit.cells if c.get("id") == "attention").source += "\n# x"
    assert {k for k in base if answer_digests(answer_edit)[k] != base[k]} == {"attention"}
    own = copy.deepcopy(release)
    own.cells.append(nbformat.v4.new_code_cell("x = 1"))
    assert {k for k in base if answer_digests(own)[k] != base[k]} == {"<own code>"}


# -- the TA's command: values that name nothing ----------------------------------------------
NOT_AN_ASSIGNMENT = "argument -a/--assignment: expected one of 01_attention_scores, 02_positions"


@pytest.mark.parametrize(
    "args, message",
    [
        (["grade", "--workers", "0"], "argument --workers: expected an int >= 1, got '0'"),
        (["grade", "--workers", "two"], "argument --workers: expected an int >= 1, got 'two'"),
        (["grade", "--timeout", "-5"], "argument --timeout: expected a number of seconds > 0"),
        (["grade", "--timeout", "nan"], "argument --timeout: expected a number of seconds > 0"),
        (["grade", "--memory-mb", "0"], "argument --memory-mb: expected an int >= 1, got '0'"),
        (["catalogue", "--limit", "0"], "argument --limit: expected an int >= 1, got '0'"),
        (["grade", "-a", "99_nothing"], NOT_AN_ASSIGNMENT),
        (["grade", "-a", "01_attention_scores", "-a", "1"], NOT_AN_ASSIGNMENT),
        (["catalogue", "-a", "99_nothing"], NOT_AN_ASSIGNMENT),
        (["collect", "-a", "99_nothing"], NOT_AN_ASSIGNMENT),
        (["release-feedback", "-a", "99_nothing"], NOT_AN_ASSIGNMENT),
        (["gradescope", "build", "-a", "99_nothing"], NOT_AN_ASSIGNMENT),
        (["adjust", "s", "-a", "99_nothing", "test_attention", "1"], NOT_AN_ASSIGNMENT),
        (["feedback", "-a", "99_nothing"], NOT_AN_ASSIGNMENT),
        *(  # review 10: SQLAlchemy's traceback
            (
                [command, "--db-url", "sqlite:///nothere-ta/x.db"],
                "argument --db-url: expected a SQLite file in an existing folder, got "
                "'sqlite:///nothere-ta/x.db': the folder 'nothere-ta' does not exist",
            )
            for command in ("grade", "export", "sample")
        ),
    ],
)
def test_a_command_line_value_that_names_nothing_is_a_usage_error(args, message, tmp_path, capsys):
    work = tmp_path / "work"
    where = ["--out" if args[0] == "gradescope" else "--work", str(work)]  # build: no --work
    with pytest.raises(SystemExit) as stop:
        cli.main([*args, *where])
    assert stop.value.code == 2
    assert message in capsys.readouterr().err
    assert not work.exists()  # refused before anything was written


def test_grade_class_refuses_an_assignment_the_course_does_not_have(tmp_path):
    with pytest.raises(UsageError, match=r"assignment: expected one of 01_attention_scores, .*"
                       r"got '01_attention'"):  # fmt: skip
        grade_class(Course(work=tmp_path), None, ["01_attention"])


def test_a_source_that_is_neither_zip_nor_folder_says_what_it_found(tmp_path, capsys):
    notes = tmp_path / "grades.zip"
    notes.write_text("not a zip")
    for source, found in (
        (notes, "a file that is not a zip archive"),
        (tmp_path / "gone", "nothing there"),
    ):
        assert cli.main(["grade", str(source), "--work", str(tmp_path / "work")]) == 2
        err = capsys.readouterr().err
        assert f"source={str(source)!r}: expected a zip file or a folder, found {found}" in err


@pytest.mark.parametrize(
    ("members", "argv", "expected"),
    [
        ({}, [], "expected a download holding students' notebooks, found no file in it"),
        (
            {"__MACOSX/._x": b"", "readme.txt": b"hi"},
            [],
            "found 2 file(s), none of them one: __MACOSX/._x (",
        ),
        (
            {f"ada_1_1_{NB}.ipynb": b"{}"},
            ["-a", "02_positions"],
            "--assignment '02_positions': expected a notebook the download holds, found none "
            f"of it (ignored: ada_1_1_{NB}.ipynb (matches no assignment of 02_positions",
        ),
    ],
)
def test_a_download_without_the_notebooks_asked_for_is_refused_and_writes_nothing(
    tmp_path, capsys, members, argv, expected
):
    """An empty zip, or the wrong -a, would grade every student blank or nothing, status ok:
    refused with the reason, before anything is written."""
    import zipfile

    source = tmp_path / "download.zip"
    with zipfile.ZipFile(source, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    work = tmp_path / "work"
    assert cli.main(["grade", str(source), "--work", str(work), *argv]) == 2
    assert expected in capsys.readouterr().err
    assert not (work / "intake.json").exists() and not (work / "submitted").exists()


def test_export_without_a_gradebook_says_where_it_looked(tmp_path, capsys):
    assert cli.main(["export", "--work", str(tmp_path / "nowhere")]) == 2
    expected = f"expected a gradebook at {tmp_path / 'nowhere' / 'gradebook.db'}"
    assert expected in capsys.readouterr().err
    assert not (tmp_path / "nowhere").exists()


def _gradebook(work: Path) -> None:
    """An empty nbgrader gradebook in a new work folder (the commands after grading want
    one)."""
    work.mkdir(parents=True)
    from nbgrader.api import Gradebook

    Gradebook(Course(work=work).db_url).close()  # Course: nbgrader's alembic on PATH


def test_report_of_a_notebook_not_graded_here_is_refused_and_writes_nothing(tmp_path, capsys):
    """`report -a 03_rope` where nothing of 03 was graded (a wrong -a or --work) wrote an
    empty "0 students graded" report and exited 0; it is refused as `lms` refuses it."""
    work = tmp_path / "work"
    _gradebook(work)
    assert cli.main(["report", "-a", "03_rope", "--work", str(work)]) == 2
    err = capsys.readouterr().err
    assert f"-a 03_rope: expected a notebook graded in the work folder {work}" in err
    assert "check -a and --work (or grade the class first); nothing written" in err
    assert not (work / "reports").exists()


# another grader command, as `Course.hold` takes the work folder: flock on WORK/.grader.lock,
# which names the process
_HOLD = """
import fcntl, os, sys
with open(os.path.join(sys.argv[1], ".grader.lock"), "a+") as handle:
    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    handle.truncate(0)
    handle.write(f"{os.getpid()}, grade\\n")
    handle.flush()
    print("held", flush=True)
    sys.stdin.read()
"""


@pytest.mark.parametrize(
    "argv",
    [
        ["grade", "{download}", "--sandbox", "none"],
        ["adjust", "1003", "-a", NB, "test_attention", "1"],
        ["feedback"],
        ["export"],
        ["report", "-a", NB],
        ["lms", "canvas", "{download}", "-a", NB],
    ],
)
def test_a_second_command_on_a_work_folder_in_use_is_refused_at_once(tmp_path, capsys, argv):
    """Two grader commands writing one work folder at once (two `grade`s both graded
    everything, and the first one's table then said a student had no run report): the
    second is refused at once, naming the work folder and the process that holds it; the
    lock goes with that process, however it ends."""
    work, download = tmp_path / "work", tmp_path / "download.zip"
    _gradebook(work)
    with zipfile.ZipFile(download, "w") as archive:
        archive.writestr(f"dev_1003_5003_{NB}.ipynb", "{}")
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(work)],
        env={**os.environ, "PYTHONPATH": str(ROOT / "autograder")},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline() == "held\n"
        args = [a.format(download=download) for a in argv]
        assert cli.main([*args, "--work", str(work)]) == 2
        err = capsys.readouterr().err
        assert (
            f"error: {args[0]}: refused, the work folder {work} is in use by another grader "
            f"command (PID {holder.pid}, grade); wait for it to end, or give another --work"
        ) in err
        assert not (work / "intake.json").exists() and not (work / "reports").exists()
    finally:
        holder.kill()  # no clean exit: the lock goes with the process
        holder.wait()
    held = Course(work=work)
    held.hold("export")  # free again, and named for the next one refused
    assert (work / ".grader.lock").read_text() == f"{os.getpid()}, export\n"
    held.let_go()


# -- the TA's command, twice and more ------------------------------------------------------
SANDBOX_OK, SANDBOX_WHY = sandbox_available()


def read_csv(path) -> dict:
    with open(path, encoding="utf-8") as handle:
        return {row["name"]: row for row in csv.DictReader(handle)}


def _package_stamp() -> dict:
    """The attnbook the grading subprocesses import (an installed one may be another
    checkout's, edited while this test runs: its checks are grading inputs)."""
    script = (
        "import importlib.util, json, pathlib; p = pathlib.Path(importlib.util."
        "find_spec('attnbook').origin).parent; print(json.dumps({str(f): "
        "f.stat().st_mtime_ns for f in p.rglob('*.py')}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT / "autograder",
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out)


def _course_copy(tmp: Path) -> Path:
    """The parts of the course grading reads, so a test can correct its reference."""
    root = tmp / "course"
    (root / "autograder").mkdir(parents=True)
    shutil.copytree(ROOT / "solutions" / NB, root / "solutions" / NB)
    shutil.copytree(ROOT / "autograder" / "reference", root / "autograder" / "reference")
    shutil.copy(ROOT / "autograder" / "nbgrader_config.py", root / "autograder")
    return root


@pytest.mark.slow
@pytest.mark.skipif(not SANDBOX_OK, reason=f"no sandbox: {SANDBOX_WHY}")
def test_regrading_a_class(tmp_path):
    from grader.sample import load_builder
    from nbgrader.api import Gradebook

    build = load_builder()
    solved, wrong = build.solved(ROOT), build.with_mistake(ROOT, *build.MISTAKE)
    root, work = _course_copy(tmp_path), tmp_path / "work"
    first = {
        name: {f"{NB}.ipynb": nbformat.writes(nb).encode()}
        for name, nb in [("ada", solved), ("cleo", wrong), ("mia", wrong), ("noa", wrong)]
    }
    download = build.write_lms_zip(tmp_path / "first.zip", first)
    common = ["-a", NB, "--work", work, "--root", root, "--workers", "2", "--timeout", "30"]

    stamps = [_package_stamp()]

    def grade(source):
        """(stdout, CSV rows by name, steady): steady when the installed attnbook did not
        change since the previous run ended (another checkout may be editing it; its checks
        are grading inputs, so a change there rightly regrades everyone)."""
        before = _package_stamp()
        result = grader_command("grade", source, *common)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        stamps.append(_package_stamp())
        return result.stdout, read_csv(work / "grades.csv"), stamps[-2] == before == stamps[-1]

    out, rows, _ = grade(download)
    assert "graded 4 notebook(s)" in out
    assert {n: r["score"] for n, r in rows.items()} == {
        "ada": "14.0",
        "cleo": "11.0",
        "mia": "11.0",
        "noa": "11.0",
    }
    assert rows["ada"]["student_id"] == "1000" and rows["noa"]["student_id"] == "1003"

    for _ in range(3):  # (a) the same download again: nothing to do
        out, again, steady = grade(download)
        if steady:
            break
    else:
        pytest.skip("the installed attnbook kept changing under the test")
    assert "graded 0 notebook(s)" in out and again == rows

    from grader.manual import comment_cell

    target = comment_cell(Course(root=root, work=work), NB, "test_attention")
    with Gradebook(default_db_url(work)) as gb:  # a TA gives part marks by hand
        for sid in ("1002", "1003"):  # mia, noa
            gb.find_grade("test_attention", NB, NB, sid).manual_score = 2.0
            gb.find_comment(target, NB, NB, sid).manual_comment = "TA-COMMENT scale by sqrt"
        gb.db.commit()
    resaved = copy.deepcopy(wrong)  # noa saves again: outputs, same answers
    for cell in resaved.cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.v4.new_output("stream", text="ran\n")]
    second = dict(
        first,
        mia={
            f"{NB}.ipynb": nbformat.writes(build.release_notebook(ROOT)).encode()
        },  # (c) mia's resubmission is blank
        noa={f"{NB}.ipynb": nbformat.writes(resaved).encode()},
    )
    out, rows, steady = grade(build.write_lms_zip(tmp_path / "second.zip", second))
    assert "graded 1 notebook(s)" in out or not steady  # mia only: noa's answers are the same
    assert rows["mia"]["score"] == "0.0" and rows["mia"]["manual"] == "cleared"
    assert "manual score 2.0 on test_attention cleared" in rows["mia"]["status"]
    assert "TA-COMMENT" in rows["mia"]["status"]  # quoted, as the page no longer shows it
    assert "TA-COMMENT" not in (work / "feedback" / "1002" / NB / f"{NB}.html").read_text()
    with Gradebook(default_db_url(work)) as gb:  # noa's answers unchanged: comment stands
        assert gb.find_comment(target, NB, NB, "1003").manual_comment.startswith("TA-COMMENT")
    assert rows["noa"]["score"] == "13.0" and rows["noa"]["manual"] == "yes"

    reference = root / "autograder" / "reference" / "nb01_attention_scores.py"
    reference.write_text(reference.read_text() + "\n# answer key corrected\n")
    out, rows, _ = grade(build.write_lms_zip(tmp_path / "third.zip", second))  # (b)
    assert "graded 4 notebook(s)" in out
    assert {n: r["score"] for n, r in rows.items()} == {
        "ada": "14.0",
        "cleo": "11.0",
        "mia": "0.0",
        "noa": "13.0",
    }
    assert rows["noa"]["manual"] == "yes"  # unchanged answers keep their manual score
