"""The TA's first five minutes: `python -m grader sample`, then re-runs, a manual grade, a regrade.

The sample class is written as a Canvas-style LMS zip and graded by the TA's command with
two workers into the default SQLite gradebook. Then: a re-run grades nothing and changes
nothing; a manual grade survives re-autograding; one student can be regraded alone; the
feedback shows the visible tests and hints but never a hidden test's code.
"""

from __future__ import annotations

import csv
import zipfile

import numpy as np
import pytest
from conftest import grader_command
from grader.catalogue import nbgrader_meta, solution_notebook
from grader.sandbox import sandbox_available

NOTEBOOK = "01_attention_scores"
SANDBOX_OK, SANDBOX_WHY = sandbox_available()
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not SANDBOX_OK, reason=f"no sandbox: {SANDBOX_WHY}"),
]


def read_csv(path):
    """Rows by readable name (the student id is the LMS id of the Canvas zip)."""
    with open(path, encoding="utf-8") as handle:
        return {row["name"]: row for row in csv.DictReader(handle)}


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    out = tmp_path_factory.mktemp("sample")
    result = grader_command("sample", "--out", out, "--workers", "2", "--timeout", "60")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return out, result.stdout


def test_sample_prints_the_table_and_every_score_is_as_expected(sample):
    _, stdout = sample
    assert "student" in stdout and "score" in stdout
    assert "DIFFERENT (got" not in stdout and "  ben        0  as expected" in stdout
    for student in ("ada", "ben", "cleo", "dev", "eli", "hal"):
        assert f"  {student}" in stdout


def test_csv_has_every_student(sample):
    out, _ = sample
    rows = read_csv(out / "work" / "grades.csv")
    assert sorted(rows) == ["ada", "ben", "cleo", "dev", "eli", "hal"]
    assert rows["ada"]["score"] == "14.0" and rows["ben"]["score"] == "0.0"
    assert rows["hal"]["score"] == rows["cleo"]["score"] == "11.0"


def test_feedback_shows_hints_never_hidden_tests(sample):
    out, _ = sample
    cleo = read_csv(out / "work" / "grades.csv")["cleo"]
    assert cleo["student_id"] == "1002"  # its Canvas id
    html = (out / "work" / cleo["feedback"]).read_text()
    assert "check_attention" in html  # the visible test
    assert "Hint" in html and "Y = A @ V" in html  # the catalogue's hint for this mistake
    for secret in ("BEGIN HIDDEN TESTS", "load_reference", "reference="):
        assert secret not in html, f"feedback reveals {secret!r}"


def test_rerun_is_idempotent_and_keeps_manual_grades(sample):
    out, _ = sample
    work = out / "work"
    before = read_csv(work / "grades.csv")
    # the same limit as the sample run: another one is a change of what decides a grade
    again = grader_command("grade", "-a", NOTEBOOK, "--work", work, "--timeout", "60")
    assert again.returncode == 0, again.stderr[-3000:]
    assert "graded 0 notebook(s)" in again.stdout
    assert read_csv(work / "grades.csv") == before

    from grader.course import default_db_url
    from nbgrader.api import Gradebook

    with Gradebook(default_db_url(work)) as gb:
        grade = gb.find_grade("test_attention", NOTEBOOK, NOTEBOOK, before["cleo"]["student_id"])
        grade.manual_score = 2.0  # a TA gives part marks by hand
        gb.db.commit()
    forced = grader_command(
        "grade",
        "-a",
        NOTEBOOK,
        "--work",
        work,
        "--student",
        "cleo",  # by name
        "--timeout",
        "60",
    )
    assert forced.returncode == 0, forced.stderr[-3000:]
    after = read_csv(work / "grades.csv")
    assert after["cleo"]["score"] == "13.0" and after["cleo"]["manual"] == "yes"
    assert {s: r["score"] for s, r in after.items() if s != "cleo"} == {
        s: r["score"] for s, r in before.items() if s != "cleo"
    }


def test_regrade_one_student(sample):
    out, _ = sample
    work = out / "work"
    ids = {name: row["student_id"] for name, row in read_csv(work / "grades.csv").items()}
    ada, ben = (
        work / "autograded" / ids[s] / NOTEBOOK / f"{NOTEBOOK}.ipynb" for s in ("ada", "ben")
    )
    stamp, other = ada.stat().st_mtime, ben.stat().st_mtime
    result = grader_command("grade", "-a", NOTEBOOK, "--work", work, "--student", ids["ada"])
    assert result.returncode == 0, result.stderr[-3000:]
    assert "graded 1 notebook(s)" in result.stdout
    assert ada.stat().st_mtime > stamp and ben.stat().st_mtime == other


def test_sample_writes_the_classes_canvas_and_moodle_files(sample):
    """The sample class's grades in Canvas's import file and Moodle's worksheet, each page
    in each LMS's feedback zip: every student placed, the scores those of grades.csv."""
    out, stdout = sample
    folder = out / "work" / "lms" / "01_attention_scores"
    assert f"LMS files: {folder / 'canvas_import.csv'}" in stdout
    for lms, export in (
        ("canvas", "canvas_gradebook_export"),
        ("moodle", "moodle_grading_worksheet"),
    ):
        # again, by the TA's command, after the other tests' manual grades
        done = grader_command(
            "lms",
            lms,
            out / "lms_exports" / f"{export}.csv",
            "-a",
            NOTEBOOK,
            "--work",
            out / "work",
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert "6 graded; 0 in the LMS file without a grade here" in done.stdout
    grades = {
        r["student_id"]: float(r["score"]) for r in read_csv(out / "work" / "grades.csv").values()
    }
    with open(folder / "canvas_import.csv", encoding="utf-8") as handle:
        canvas = list(csv.DictReader(handle))
    column = next(c for c in canvas[0] if c.startswith("01 "))
    assert {r["ID"]: float(r[column]) for r in canvas if r["ID"]} == grades
    with open(folder / "moodle_worksheet.csv", encoding="utf-8") as handle:
        moodle = {r["Identifier"].split()[-1]: r for r in csv.DictReader(handle)}
    assert {i: float(r["Grade"]) for i, r in moodle.items()} == grades  # Maximum Grade 14
    for name in ("canvas_feedback.zip", "moodle_feedback.zip"):
        with zipfile.ZipFile(folder / name) as archive:
            assert len(archive.namelist()) == len(grades), archive.namelist()


def test_sample_report_counts_the_mistakes_the_class_was_built_from(sample):
    """The sample class's report: cleo and hal transposed the weights, dev left out the
    scale, eli took the softmax over the wrong axis, ben handed in the release."""
    out, stdout = sample
    folder = out / "work" / "reports" / NOTEBOOK
    assert f"class report: {folder / 'class_report.html'}" in stdout
    with open(folder / "class_report.csv", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    slips = {(r[1], r[2]): int(r[3]) for r in rows if r[0] == "slip"}
    assert slips[("test_attention", "weights transposed")] == 2
    assert slips[("test_score_matrix", "no 1/sqrt(d_k)")] == 1
    assert sum(n for (t, _), n in slips.items() if t == "test_softmax_rows") == 2  # eli, ben
    assert all(n == 1 for (_, s), n in slips.items() if s == "not answered")  # ben alone
    assert not [s for s in slips if s[1] == "unrecognised"], slips
    # facility and discrimination of each test, computed here from grades.csv
    grades = list(read_csv(out / "work" / "grades.csv").values())
    points = {
        nbgrader_meta(c)["grade_id"]: float(nbgrader_meta(c)["points"])
        for c in solution_notebook(NOTEBOOK).cells
        if nbgrader_meta(c).get("grade") and not nbgrader_meta(c).get("solution")
    }
    table = np.array([[float(g[f"01:{t}"]) for t in points] for g in grades])
    for j, (test, most) in enumerate(points.items()):
        row = next(r for r in rows if r[0] == "test" and r[1] == test)
        assert row[4] == f"{100 * table[:, j].mean() / most:.0f}%", (test, row)
        rest = table.sum(axis=1) - table[:, j]
        if table[:, j].std() and rest.std():
            expected = np.corrcoef(table[:, j], rest)[0, 1]
            assert f"discrimination {expected:.2f};" in row[5], (test, row, expected)
    options = {(r[1], r[2].split()[0]): int(r[3]) for r in rows if r[0] == "option"}
    assert options[("answer_permutation", "B")] == 5  # all but ben, who answered nothing
    assert options[("answer_permutation", "no")] == 1
    page = (folder / "class_report.html").read_text(encoding="utf-8")
    assert "data:image/png;base64," in page and "<script" not in page
    for mine in (out / "work" / "feedback").rglob("*.html"):  # no class figure on a page
        text = mine.read_text(encoding="utf-8")
        assert "Class report" not in text and "most chosen distractor" not in text, mine
