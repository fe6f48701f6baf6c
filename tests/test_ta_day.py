"""A TA's day (issue 30): progress while grading, statuses that tell the truth, manual grades
that reach the page.

The slow part grades a class of 10 like the issue's (a Canvas zip with a `_LATE_` upload, a
blank notebook, a syntax error, an infinite loop, a "Copy of" rename, a truncated upload,
catalogued mistakes) with the README's command and `--workers 2`, reading its output line by
line as it comes. Then a TA adjusts a score with `python -m grader adjust` and rewrites pages
with `python -m grader feedback`, as the README shows.
"""

from __future__ import annotations

import ast
import csv
import io
import json
import os
import re
import subprocess
import sys
import time
import zipfile

import nbformat
import pytest
from conftest import ROOT, grader_command
from grader.cli import TerminalProgress, main
from grader.course import outcome_line, table
from grader.execute import is_stub
from grader.intake import Intake, is_late
from grader.sandbox import sandbox_available

NB = "01_attention_scores"
SANDBOX_OK, SANDBOX_WHY = sandbox_available()


# -- fast: the parts ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("path", "late"),
    [
        (f"smithjane_LATE_2005_6_{NB}.ipynb", True),
        (f"smithjane_late_2005_6_{NB}.ipynb", True),
        (f"submissions/ann_LATE_7_8_{NB}.ipynb", True),  # re-zipped with a wrapper folder
        (f"smithjane_2005_6_{NB}.ipynb", False),
        (f"smithjane_2005_6_{NB}_LATE_.ipynb", False),  # the student's own file name
        (f"Late Lee_12_assignsubmission_file_/{NB}.ipynb", False),  # Moodle marks nothing
        (f"latecomer/{NB}.ipynb", False),
    ],
)
def test_late_is_what_canvas_marks(path, late):
    assert is_late(path) is late


def test_a_stub_is_the_release_raise_at_the_end():
    assert is_stub("def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()\n")
    assert is_stub('answer = None  # "A"\n# YOUR CODE HERE\nraise NotImplementedError()')
    assert not is_stub("def f(x):\n    return x\n")
    assert not is_stub("raise NotImplementedError()\nanswer = 'B'")
    assert not is_stub("")


def test_the_progress_prints_the_intake_first_then_a_line_per_notebook():
    out = io.StringIO()
    progress = TerminalProgress(ROOT / "w", stream=out)
    progress.intake(Intake())
    progress.start(2)
    row = {"score": 11.0, "max_score": 14.0, "status": "see late"}
    progress.done({"student": "1003", "assignment": NB, "ok": True, "row": row})
    progress.done({"student": "1004", "assignment": NB, "ok": False, "reason": "Boom: x"})
    progress.close()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("intake: 0 file(s)")
    assert lines[1] == "grading 2 notebook(s)"
    assert lines[2] == f"[1/2] 1003 {NB}: 11 / 14, see late"
    assert lines[3].startswith(f"[2/2] 1004 {NB}: GRADING FAILED") and "Boom: x" in lines[3]


def test_the_table_has_the_late_blank_and_errors_columns():
    rows = [
        {
            "student_id": "1",
            "name": "a",
            "assignment": NB,
            "score": 0.0,
            "max_score": 14.0,
            "status": "see late, blank",
            "late": "yes",
            "blank": "yes",
            "errors": "",
            "notes": "renamed",
        }
    ]
    header, line = table(rows).splitlines()
    assert header.split() == [
        "student",
        "name",
        "assignment",
        "score",
        "late",
        "blank",
        "errors",
        "status",
    ]
    assert line.split()[6:8] == ["yes", "yes"] and line.endswith("(notes: renamed)")
    assert outcome_line({"student": "1", "assignment": NB, "ok": True, "row": {}}, 1, 1) == (
        f"[1/1] 1 {NB}: graded, ok"
    )


@pytest.mark.parametrize("option", ["--workers=2", "--sandbox=none", "--timeout=5", "--quiet"])
def test_adjust_and_feedback_refuse_options_they_would_ignore(option, capsys):
    for argv in (["adjust", "1", "-a", NB, "test_attention", "1"], ["feedback"]):
        with pytest.raises(SystemExit) as stop:
            main([*argv, option])
        assert stop.value.code == 2
        assert "unrecognized arguments" in capsys.readouterr().err


def test_adjust_without_a_gradebook_says_where_it_looked(tmp_path, capsys):
    code = main(["adjust", "1", "-a", NB, "test_attention", "1", "--work", str(tmp_path)])
    assert code == 2
    assert f"expected a gradebook at {tmp_path / 'gradebook.db'}" in capsys.readouterr().err


def test_adjust_names_its_student_argument_for_an_unknown_student(tmp_path, capsys):
    from grader.course import Course
    from nbgrader.api import Gradebook

    with Gradebook(Course(work=tmp_path).db_url):  # Course puts alembic on PATH for nbgrader
        pass
    code = main(["adjust", "9999", "-a", NB, "test_attention", "1", "--work", str(tmp_path)])
    assert code == 2
    err = capsys.readouterr().err
    assert "STUDENT '9999': expected a student id or the name of one student" in err, err
    assert f"found 0 in {tmp_path} (a sharded class: the --work of the machine" in err, err
    assert "--student" not in err


@pytest.mark.parametrize("points", ["-1", "nan", "inf", "two"])
def test_adjust_refuses_points_that_are_no_score(points, capsys):
    with pytest.raises(SystemExit):
        main(["adjust", "1", "-a", NB, "test_attention", points])
    err = capsys.readouterr().err
    assert "argument points: expected a number of points >= 0" in err and repr(points) in err


# -- slow: a class of 10 --------------------------------------------------------------------
def _class_of_ten(build) -> dict[str, tuple[str, nbformat.NotebookNode | bytes]]:
    """Canvas file name prefix -> (what it is, the notebook or raw bytes)."""
    base = build.solved(ROOT)
    text = nbformat.writes(base)
    return {
        "ada_101_1": ("the solution", base),
        "ben_102_2": ("blank", build.release_notebook(ROOT)),
        "cleo_103_3": ("weights transposed", build.with_mistake(ROOT, *build.MISTAKE)),
        "dev_104_4": (
            "loops twice: in score_matrix's cell, then in attention's",
            build.append_to(
                build.append_to(base, "score_matrix", "while True:\n    pass"),
                "attention",
                "while True:\n    pass",
            ),
        ),
        "eli_LATE_105_5": ("late, the solution", base),
        "fay_106_6": (
            "a syntax error in score_matrix",
            build.append_to(base, "score_matrix", "def oops(:\n    pass"),
        ),
        "gus_107_7": ("loops forever", build.append_to(base, "attention", "while True:\n    pass")),
        "hal_108_8": ("renamed 'Copy of'", base),
        "ivy_109_9": ("truncated", text[: len(text) // 2].encode()),
        "jo_LATE_110_10": ("late and blank", build.release_notebook(ROOT)),
    }


@pytest.fixture(scope="module")
def day(tmp_path_factory):
    from grader.sample import load_builder

    build = load_builder()
    folder = tmp_path_factory.mktemp("day")
    download, work = folder / "canvas.zip", folder / "work"
    with zipfile.ZipFile(download, "w") as archive:
        for prefix, (_, nb) in _class_of_ten(build).items():
            name = f"Copy of {NB}.ipynb" if prefix.startswith("hal") else f"{NB}.ipynb"
            data = nb if isinstance(nb, bytes) else nbformat.writes(nb).encode()
            archive.writestr(f"{prefix}_{name}", data)
    command = [sys.executable, "-m", "grader", "grade", str(download), "--workers", "2"]
    command += ["--work", str(work), "--timeout", "20"]
    started = time.monotonic()
    process = subprocess.Popen(
        command,
        cwd=ROOT / "autograder",
        env={**os.environ, "PYTHONPATH": str(ROOT / "autograder")},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    lines = [(time.monotonic() - started, line.rstrip("\n")) for line in process.stdout]
    err = process.stderr.read() if process.stderr else ""
    code = process.wait(timeout=1800)
    return {
        "code": code,
        "lines": lines,
        "err": err,
        "rows": _rows(work),
        "work": work,
        "download": download,
    }


@pytest.mark.slow
@pytest.mark.skipif(not SANDBOX_OK, reason=f"no sandbox: {SANDBOX_WHY}")
def test_a_line_per_notebook_as_it_finishes(day):
    assert day["code"] == 0, [t for _, t in day["lines"]][-20:] + [day["err"][-2000:]]
    texts = [t for _, t in day["lines"]]
    assert texts[0].startswith("intake: 11 file(s), 10 graded") or texts[0].startswith(
        "intake: 10 file(s), 10 graded"
    ), texts[:3]
    progress = [(at, t) for at, t in day["lines"] if t.startswith("[")]
    assert [t.split("]")[0] for _, t in progress] == [f"[{k}/10" for k in range(1, 11)]
    assert {t.split()[1] for _, t in progress} == {str(i) for i in range(101, 111)}
    end = next(at for at, t in day["lines"] if t.startswith("graded 10 notebook(s)"))
    # the loop runs to the 20 s limit: the first lines came well before grading ended
    assert progress[0][0] < end - 10, progress
    gus = next(t for _, t in progress if t.split()[1] == "107")
    assert "time limit" in gus


@pytest.mark.slow
@pytest.mark.skipif(not SANDBOX_OK, reason=f"no sandbox: {SANDBOX_WHY}")
def test_grading_the_same_download_again_grades_nothing(day):
    """What intake adds (the first cell of an unreadable upload's page) is the same bytes
    every run, so nothing is regraded."""
    again = grader_command(
        "grade", day["download"], "--workers", "2", "--work", day["work"], "--timeout", "20"
    )  # the limit of the first run: another one regrades
    assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-2000:]
    assert "graded 0 notebook(s)" in again.stdout, again.stdout[-2000:]


@pytest.mark.slow
@pytest.mark.skipif(not SANDBOX_OK, reason=f"no sandbox: {SANDBOX_WHY}")
def test_the_csv_says_late_blank_and_errors(day):
    rows = day["rows"]
    late = {name for name, row in rows.items() if row["late"] == "yes"}
    assert late == {"eli", "jo"}
    blank = {name for name, row in rows.items() if row["blank"] == "yes"}
    assert blank == {"ben", "ivy", "jo"}
    errors = {name: row["errors"] for name, row in rows.items() if row["errors"]}
    # a stub's NotImplementedError is no error; the loops' skipped cells leave names undefined
    assert set(errors) == {"fay", "gus", "dev"}, errors
    assert "(NameError)" in errors["gus"] and "(NameError)" in errors["dev"]
    assert "(SyntaxError)" in errors["fay"] and "the first: cell " in errors["fay"]
    assert rows["ada"]["status"] == rows["cleo"]["status"] == "ok"
    assert rows["hal"]["status"] == "ok" and "Copy of" in rows["hal"]["notes"]
    assert rows["eli"]["status"] == "see late" and float(rows["eli"]["score"]) == 14
    assert "see errors" in rows["fay"]["status"] and float(rows["fay"]["score"]) < 14
    assert "unreadable" in rows["ivy"]["status"] and "see blank" in rows["ivy"]["status"]
    assert "time limit" in rows["gus"]["status"]


@pytest.mark.slow
@pytest.mark.skipif(not SANDBOX_OK, reason=f"no sandbox: {SANDBOX_WHY}")
def test_a_blank_test_is_unanswered_not_failed(day):
    ben = day["rows"]["ben"]["student_id"]
    report = day["work"] / "reports" / NB / ben / f"{NB}.json"
    assert set(json.loads(report.read_text())["tests"].values()) == {"unanswered"}
    cleo = day["rows"]["cleo"]["student_id"]
    tests = json.loads((day["work"] / "reports" / NB / cleo / f"{NB}.json").read_text())["tests"]
    assert tests["test_attention"] == "failed" and tests["test_score_matrix"] == "passed"


@pytest.mark.slow
@pytest.mark.skipif(not SANDBOX_OK, reason=f"no sandbox: {SANDBOX_WHY}")
def test_a_ta_adjusts_a_score_and_the_page_says_it(day):
    work = day["work"]
    comment = "Weights transposed, but the idea is right: 2 of 3."
    result = grader_command("adjust", "cleo", "-a", NB, "test_attention", "2", "--comment", comment,
                     "--work", work)  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "13 / 14" in result.stdout and "page: " in result.stdout
    row = _rows(work)["cleo"]
    assert (row["score"], row["manual"], row["01:test_attention"]) == ("13.0", "yes", "2.0")
    page = (work / row["feedback"]).read_text(encoding="utf-8")
    assert comment.replace("'", "&#39;") in page or comment in page
    assert "13.0 / 14.0" in page
    again = grader_command("feedback", "-s", "cleo", "--work", work)
    assert again.returncode == 0 and "1 page(s) written" in again.stdout, again.stderr
    assert "13.0 / 14.0" in (work / row["feedback"]).read_text(encoding="utf-8")
    too_many = grader_command("adjust", "cleo", "-a", NB, "test_attention", "4", "--work", work)
    assert too_many.returncode == 2
    assert "POINTS: expected a number from 0 to 3, got 4.0" in too_many.stderr
    nobody = grader_command("feedback", "-s", "nobody", "--work", work)
    assert nobody.returncode == 2 and "'nobody'" in nobody.stderr


def _rows(work):
    with open(work / "grades.csv", newline="", encoding="utf-8") as handle:
        return {row["name"]: row for row in csv.DictReader(handle)}


# -- Gradescope: concept answers cannot be farmed by resubmitting ------------------------------
def test_gradescope_holds_concept_results_back_and_keeps_code_hints(tmp_path, monkeypatch):
    import grader.gradescope as gradescope
    from grader.catalogue import nbgrader_meta, solution_notebook
    from grader.course import Course

    course = Course(root=ROOT, work=tmp_path)
    graded = tmp_path / "autograded" / "s" / NB / f"{NB}.ipynb"
    graded.parent.mkdir(parents=True)
    nb = solution_notebook(NB)
    nbformat.write(nb, graded)
    ids = [nbgrader_meta(c)["grade_id"] for c in nb.cells if nbgrader_meta(c).get("points")]
    scores = {g: (0.0 if g == "test_attention" else 1.0, 1.0) for g in ids}
    monkeypatch.setattr(gradescope, "_grades", lambda *a: scores)
    row = {"student_id": "s", "assignment": NB, "score": 7.0, "max_score": 8.0, "status": "ok"}
    monkeypatch.setattr(gradescope, "gradebook_rows", lambda c: [row])
    results = gradescope._results(course, NB, "visible", [], "after_due_date")
    seen = {t["name"]: t["visibility"] for t in results["tests"]}
    concepts = {g for g in seen if g.startswith("test_answer_")}
    assert len(concepts) == 4 and {seen[g] for g in concepts} == {"after_due_date"}
    assert {v for g, v in seen.items() if g not in concepts} == {"visible"}
    code = len(seen) - len(concepts)
    assert results["output"].startswith(
        f"{NB}: {code - 1} / {code} points for the code; the 4 concept question(s) are shown "
        "after the due date."
    )
    assert "7 / 8" not in results["output"]  # the sum would give the concept points away
    same = gradescope._results(course, NB, "visible", [], "visible")
    assert {t["visibility"] for t in same["tests"]} == {"visible"}
    assert same["output"].startswith(f"{NB}: 7 / 8 points.")


# -- the quick start works from where it says ----------------------------------------------------
def test_the_quick_start_line_works_from_the_top_folder():
    text = (ROOT / "autograder" / "README.md").read_text(encoding="utf-8")
    block = text.split("```bash\n", 1)[1].split("```", 1)[0]
    (line,) = [ln for ln in block.splitlines() if ln.startswith("source ")]
    command, said = (part.strip() for part in line.split("#", 1))
    assert "from the top folder" in said
    assert "make setup" in block  # a headless TA is told how the environment is made
    if not (ROOT / ".venv" / "bin" / "activate").exists():
        pytest.skip("no .venv in this checkout (make setup)")
    done = subprocess.run(
        ["bash", "-c", f"{command} && python -m grader --help && pwd"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "adjust" in done.stdout and done.stdout.strip().endswith("/autograder")


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["export"], "--workers=2"),
        (["export"], "--timeout=5"),
        (["export"], "--memory-mb=100"),
        (["export"], "--sandbox=none"),
        (["gradescope", "build"], "--workers=2"),
        (["gradescope", "build"], "--sandbox=none"),
        (["gradescope", "build"], "--work=x"),
    ],
)
def test_commands_refuse_options_they_would_ignore(argv, option, capsys):
    with pytest.raises(SystemExit) as stop:
        main([*argv, option])
    assert stop.value.code == 2 and "unrecognized arguments" in capsys.readouterr().err


def test_gradescope_build_writes_to_the_top_level_dist(tmp_path, monkeypatch):
    import grader.gradescope as gradescope

    built = []
    monkeypatch.setattr(gradescope, "build", lambda root, a, out, *rest: built.append(out))
    assert main(["gradescope", "build", "-a", NB, "--root", str(ROOT)]) == 0
    assert built == [ROOT / "dist"]
    assert main(["gradescope", "build", "-a", NB, "--out", str(tmp_path)]) == 0
    assert built[-1] == tmp_path


# -- pages that say why ------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.skipif(not SANDBOX_OK, reason=f"no sandbox: {SANDBOX_WHY}")
def test_an_unreadable_upload_page_says_so_first(day):
    row = day["rows"]["ivy"]
    page = (day["work"] / row["feedback"]).read_text(encoding="utf-8")
    first = page.index("YOUR UPLOAD COULD NOT BE GRADED AS YOU WROTE IT")
    notebook = page.index('id="notebook"')  # after the summary of scores, the cells
    assert notebook < first < page.index("01 · Attention scores", notebook)  # the first cell
    assert "unreadable notebook" in page[first : first + 2000]
    assert "upload that .ipynb file again" in page
    for name in ("ada", "ben", "cleo"):  # a readable upload, even a blank one, has no such cell
        other = (day["work"] / day["rows"][name]["feedback"]).read_text(encoding="utf-8")
        assert "COULD NOT BE GRADED" not in other


def _errors(day, name):
    row = day["rows"][name]
    graded = day["work"] / "autograded" / row["student_id"] / NB / f"{NB}.ipynb"
    cells = [c for c in nbformat.read(graded, 4).cells if c.cell_type == "code"]
    return [(c.execution_count, o) for c in cells for o in c.outputs if o.get("ename")]


def _report(day, name):
    sid = day["rows"][name]["student_id"]
    return json.loads((day["work"] / "reports" / NB / sid / f"{NB}.json").read_text())


@pytest.mark.slow
@pytest.mark.skipif(not SANDBOX_OK, reason=f"no sandbox: {SANDBOX_WHY}")
def test_a_stopped_kernel_costs_only_the_cell_that_stopped_it(day):
    """gus loops in attention's answer cell: that cell is stopped at the limit and said so
    once; the grader goes on in a fresh kernel without it, so the later concept answer
    (answer_permutation) keeps its point and only attention's 3 points are lost."""
    errors = _errors(day, "gus")
    stopped = [(n, o) for n, o in errors if o["ename"] == "KernelStopped"]
    assert len(stopped) == 1, stopped
    at, why = stopped[0]
    assert "time limit" in why["evalue"] and "20" in why["evalue"]
    assert "went on without this cell, in a fresh kernel" in why["evalue"]
    assert not [o for _, o in errors if o["ename"] == "NotRun"]
    tests = _report(day, "gus")["tests"]
    assert tests["test_answer_permutation"] == "passed" and tests["test_attention"] == "failed"
    row = day["rows"]["gus"]
    assert float(row["score"]) == 11.0 and float(row["01:test_answer_permutation"]) == 1.0
    assert f"kernel lost at cell {at}:" in row["status"]


@pytest.mark.slow
@pytest.mark.skipif(not SANDBOX_OK, reason=f"no sandbox: {SANDBOX_WHY}")
def test_a_second_stop_ends_the_notebook_and_names_the_cell_once(day):
    """dev loops in score_matrix's cell, then again in attention's: the second stop ends the
    notebook as before; that cell says why once, each later cell says 'not run'."""
    errors = _errors(day, "dev")
    stopped = [n for n, o in errors if o["ename"] == "KernelStopped"]
    assert len(stopped) == 2, errors
    second = stopped[1]
    later = [o for n, o in errors if n > second]
    assert later and {o["ename"] for o in later} == {"NotRun"}
    assert {o["evalue"] for o in later} == {
        f"not run: the kernel stopped at cell {second} (that cell says why)"
    }
    tests = _report(day, "dev")["tests"]
    assert tests["test_softmax_rows"] == "passed"  # after the first stop: graded
    assert tests["test_answer_permutation"] == "lost"  # after the second: not run
    assert f"then kernel lost at cell {second}:" in day["rows"]["dev"]["status"]


@pytest.mark.slow
@pytest.mark.skipif(not SANDBOX_OK, reason=f"no sandbox: {SANDBOX_WHY}")
def test_each_stop_costs_its_time_limit_and_no_more(day):
    """A notebook costs the time limit of each stop (one for gus, two for dev; on the wall
    clock at most `wall_ceiling` of it, where a control group counts CPU time) on top of
    what running it takes: at most twice the time of the solution (one replay)."""
    from grader.execute import wall_ceiling

    clean = _report(day, "ada")["seconds"]
    for name, stops in (("gus", 1), ("dev", 2)):
        spent = _report(day, name)["seconds"]
        assert spent - stops * wall_ceiling(20) <= 2 * clean + 10, (name, spent, clean)


# -- the silent no-ops say what they found -----------------------------------------------------
def test_release_feedback_with_nothing_collected_says_so(tmp_path, capsys, monkeypatch):
    import grader.lockdown as lockdown

    monkeypatch.setattr(lockdown, "enforce", lambda *a: [])  # the checkout's modes: not here
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    argv = ["release-feedback", "-a", NB, "--exchange", str(exchange), "--course-id", "attnbook"]
    assert main([*argv, "--work", str(tmp_path / "work")]) == 0
    out = capsys.readouterr().out
    assert f"{NB}: nothing released: no submission of it was collected" in out
    assert f"python -m grader collect -a {NB} first" in out


@pytest.mark.slow  # nbgrader's generate_assignment
def test_grading_a_student_absent_from_the_notebook_says_so(tmp_path):
    from grader.course import Course, UsageError, grade_class

    course = Course(root=ROOT, work=tmp_path, sandbox="none")
    for student, notebook in (("ann", NB), ("bob", "02_positions")):
        path = course.submission_path(student, notebook)
        path.parent.mkdir(parents=True)
        path.write_text("{}")
    with pytest.raises(UsageError, match=f"--student 'bob': expected a submission of {NB}"):
        grade_class(course, None, [NB], ["bob"])


# -- the Kubernetes image ----------------------------------------------------------------------
def test_the_kubernetes_image_is_built_by_a_file_in_the_repository():
    """As far as this machine allows (no registry, no network for a base image): the
    manifest names the Containerfile, which makes the environment and the sandbox's tools
    and leaves grading data and this machine's .venv out of the image."""
    k8s = ROOT / "autograder" / "k8s"
    manifest = (k8s / "grade-job.yaml").read_text(encoding="utf-8")
    assert "k8s/Containerfile" in manifest
    recipe = (k8s / "Containerfile").read_text(encoding="utf-8")
    steps = [ln for ln in recipe.splitlines() if ln and not ln.startswith("#")]
    base = re.match(r"FROM python:(\d+)\.(\d+)", steps[0])
    assert base and (int(base[1]), int(base[2])) >= (3, 11), steps[0]
    assert "bubblewrap" in recipe and "util-linux" in recipe and "make setup" in recipe
    assert "WORKDIR /course/autograder" in recipe  # the manifest's workingDir
    assert "workingDir: /course/autograder" in manifest
    assert "ATTNBOOK_PYTHON=/course/.venv/bin/python" in recipe
    ignored = {
        ln.strip()
        for ln in (k8s / "Containerfile.dockerignore").read_text().splitlines()
        if ln.strip() and not ln.startswith("#")
    }
    for path in (".venv", "autograder/gradebook.db", "autograder/submitted", "autograder/feedback"):
        assert path in ignored, path
    assert "autograder/course_secret" not in ignored  # every pod draws the same hidden cases
    build = re.search(r"docker build (.*)", recipe)
    assert build and "-f autograder/k8s/Containerfile" in build[1] and build[1].endswith(" .")


@pytest.mark.slow
@pytest.mark.skipif(not SANDBOX_OK, reason=f"no sandbox: {SANDBOX_WHY}")
def test_csv_tests_follow_the_notebook_and_the_report_keeps_each_chosen_option(day):
    """grades.csv's test columns are the notebook's tests in its order, each named with the
    notebook's number; the run report keeps the option each concept answer chose."""
    from grader.catalogue import nbgrader_meta, solution_notebook
    from grader.course import COLUMNS

    solution = solution_notebook(NB)
    order = [
        nbgrader_meta(c)["grade_id"]
        for c in solution.cells
        if nbgrader_meta(c).get("grade") and not nbgrader_meta(c).get("solution")
    ]
    with open(day["work"] / "grades.csv", newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle))
    assert header[: len(COLUMNS)] == COLUMNS
    assert header[len(COLUMNS) :] == [f"01:{t}" for t in order]
    keyed = {}  # the solution's letters, read from its answer cells
    for cell in solution.cells:
        for node in ast.walk(ast.parse(cell.source)) if cell.cell_type == "code" else ():
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                for target in node.targets:
                    if isinstance(target, ast.Name) and target.id.startswith("answer_"):
                        keyed[target.id] = node.value.value
    assert keyed and _report(day, "ada")["answers"] == keyed
    assert _report(day, "ben")["answers"] == {}  # blank: no answer was given


@pytest.mark.slow
@pytest.mark.skipif(not SANDBOX_OK, reason=f"no sandbox: {SANDBOX_WHY}")
def test_the_class_report_adds_up_to_the_class(day):
    """A class with loops, a syntax error, a truncated upload, blanks and late uploads: for
    every test, the passed and each slip's students make the whole class, and the runs that
    did not end well are the kernels that stopped."""
    texts = [t for _, t in day["lines"]]
    assert any(t.startswith("class report: ") for t in texts), texts[-5:]
    report = day["work"] / "reports" / NB / "class_report.csv"
    with open(report, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    n = len(day["rows"])
    by_test: dict[str, int] = {}
    for row in rows:
        if row[0] == "slip":
            by_test[row[1]] = by_test.get(row[1], 0) + int(row[3])
    for test, failing in by_test.items():
        passed = sum(1 for r in day["rows"].values() if float(r[f"01:{test}"] or 0) > 0)
        assert passed + failing == n, (test, passed, failing)
    stopped = sum("kernel" in r["status"] for r in day["rows"].values())
    runs = next(r for r in rows if r[0] == "runs")
    assert int(runs[3]) == stopped >= 2, (runs, stopped)
    options = [r for r in rows if r[0] == "option" and r[1] == "answer_permutation"]
    assert sum(int(r[3]) for r in options) == n
