"""`make check` (scripts/check_notebook.py) is honest: concept answers are graded later, never
points; a failed check prints its hint; notebook 07 runs on its graded budget."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import nbformat
import pytest
from conftest import NOTEBOOKS, ROOT, SOLUTIONS, read, script_module
from grader.catalogue import apply_variant, fill_in, load_catalogue, nbgrader_meta

check_notebook = script_module("scripts/check_notebook.py")

NB01 = "01_attention_scores"


def _wrong_letters(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Every concept answer set to a letter: "C" where the solution says otherwise, else
    "A" (so at least most are wrong)."""
    for cell in nb.cells:
        grade_id = nbgrader_meta(cell).get("grade_id", "")
        if nbgrader_meta(cell).get("solution") and grade_id.startswith("answer_"):
            right = cell.source.split("### BEGIN SOLUTION")[-1]
            wrong = "A" if '"C"' in right else "C"
            cell.source = f'{grade_id} = "{wrong}"\n'
    return nb


def _submission(tmp_path, variant_name: str | None) -> tuple:
    """A learner's notebook 01 in tmp_path: the release filled in with the solutions, all
    concept letters changed, and one catalogued mistake if named."""
    solution = read(SOLUTIONS / NB01 / f"{NB01}.ipynb")
    variant = None
    if variant_name:
        variant = next(v for v in load_catalogue(NB01).MISTAKES if v.name == variant_name)
        solution = apply_variant(solution, variant)
    nb = _wrong_letters(fill_in(read(NOTEBOOKS / NB01 / f"{NB01}.ipynb"), solution))
    path = tmp_path / f"{NB01}.ipynb"
    nbformat.write(nb, path)
    return path, variant


def _run(path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "check_notebook.py"), str(path)],
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_wrong_letters_are_graded_later_and_a_wrong_function_shows_its_hint(tmp_path):
    path, variant = _submission(tmp_path, "softmax over the wrong axis")
    done = _run(path)
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "without encryption" not in done.stderr + out  # no kernel start-up noise
    concept_lines = [line for line in out.splitlines() if "answer_" in line]
    assert concept_lines and all("graded later" in line for line in concept_lines), out
    assert not any(check_notebook.PASS in line for line in concept_lines), out
    failed = [line for line in out.splitlines() if "test_softmax_rows" in line]
    assert failed and check_notebook.FAIL in failed[0], out
    after = out.split(failed[0], 1)[1].splitlines()[1]
    assert after.strip().startswith("Hint:") and variant.hint in after, out


def test_only_wrong_letters_report_them_ungraded_and_exit_zero(tmp_path):
    path, _ = _submission(tmp_path, None)
    done = _run(path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "concept questions:" in done.stdout and "graded later" in done.stdout
    total = [line for line in done.stdout.splitlines() if line.startswith("functions:")]
    functions = [
        c
        for c in read(path).cells
        if nbgrader_meta(c).get("grade")
        and not nbgrader_meta(c).get("solution")
        and not nbgrader_meta(c)["grade_id"].startswith("test_answer_")
    ]
    points = sum(nbgrader_meta(c)["points"] for c in functions)
    assert total and f"{points:g}/{points:g}" in total[0], done.stdout


def _fake(outputs: list, grade_id: str, points: float = 2, source: str = "check_x(x)"):
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["nbgrader"] = {
        "grade": True,
        "grade_id": grade_id,
        "points": points,
        "solution": False,
        "locked": True,
        "schema_version": 3,
        "task": False,
    }
    cell.outputs, cell.execution_count = outputs, 1
    return cell


def test_score_card_never_counts_concept_answers_as_points():
    error = nbformat.v4.new_output(
        "error",
        ename="CheckFailure",
        traceback=[],
        evalue="x: x(1) returned wrong values.\nHint: look here\n  expected 1\n  seen 2",
    )
    unanswered = nbformat.v4.new_output(
        "error", ename="NotImplementedError", traceback=[], evalue="answer_b is still None: set it"
    )
    nb = nbformat.v4.new_notebook(
        cells=[
            _fake([], "test_f"),
            _fake([error], "test_x"),
            _fake([], "test_answer_a", 1, 'check_choice("answer_a", answer_a, "ABC")'),
            _fake([unanswered], "test_answer_b", 1, 'check_choice("answer_b", answer_b, "ABC")'),
        ]
    )
    lines, status = check_notebook.score_card(nb)
    text = "\n".join(lines)
    assert status == 1
    assert "functions: 2/4 points" in text
    assert "answer_a" in text and "graded later" in text
    assert "Hint: look here" in text and "expected 1" not in text
    assert "1 not answered" in text


def test_score_card_keeps_the_line_that_names_the_slip():
    """The notebook shows the hint and the known mistake the output matched; so does the
    card, in that order, and nothing of the values."""
    error = nbformat.v4.new_output(
        "error",
        ename="CheckFailure",
        traceback=[],
        evalue=(
            "score_matrix: score_matrix(Q, K) returned wrong values.\n"
            "Hint: divide by sqrt(d_k)\n"
            "This looks like a known mistake: divided by d_k instead of sqrt(d_k).\n"
            "  expected 1.5\n  seen 0.5"
        ),
    )
    lines, status = check_notebook.score_card(nbformat.v4.new_notebook(cells=[_fake([error], "t")]))
    text = "\n".join(lines)
    assert status == 1
    assert text.index("Hint: divide by sqrt(d_k)") < text.index(
        "This looks like a known mistake: divided by d_k instead of sqrt(d_k)."
    )
    assert "expected 1.5" not in text and "seen 0.5" not in text


def test_a_copy_beside_a_notebook_is_not_a_second_notebook(tmp_path, monkeypatch):
    """JupyterLab's "Duplicate" leaves `01_x-Copy1.ipynb` beside `01_x.ipynb`: NB=01 still
    names the notebook itself, and a name that matches nothing lists each notebook once."""
    for name in ("01_x", "02_y"):
        (tmp_path / "notebooks" / name).mkdir(parents=True)
        (tmp_path / "notebooks" / name / f"{name}.ipynb").write_text("{}")
    (tmp_path / "notebooks" / "01_x" / "01_x-Copy1.ipynb").write_text("{}")
    monkeypatch.setattr(check_notebook, "ROOT", tmp_path)
    assert check_notebook.find("01") == tmp_path / "notebooks" / "01_x" / "01_x.ipynb"
    with pytest.raises(SystemExit) as refused:
        check_notebook.find("99")
    assert str(refused.value).count("'01_x'") == 1, refused.value


@pytest.mark.slow
def test_the_self_check_runs_a_notebook_on_its_graded_budget(tmp_path):
    """The self-check runs a notebook as nbgrader does, on the small graded budget that the
    training notebook reads (`being_graded`). Shown on notebook 01, the quickest: notebook
    07's own run on that budget is tests/test_notebooks.py's solution run."""
    name = "01_attention_scores"
    nb = fill_in(read(NOTEBOOKS / name / f"{name}.ipynb"), read(SOLUTIONS / name / f"{name}.ipynb"))
    seen = tmp_path / "being_graded.txt"  # a cell of the learner's own (not a graded test,
    # which the self-check takes from the release) writes what it saw
    probe = nbformat.v4.new_code_cell(
        "from attnbook.notebook import being_graded\n"
        f"open({str(seen)!r}, 'w').write(str(being_graded()))"
    )
    nb.cells.insert(1, probe)
    path = tmp_path / f"{name}.ipynb"
    nbformat.write(nb, path)
    done = _run(path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert seen.read_text() == "True", done.stdout
    first = done.stdout.splitlines()[0]
    assert first.startswith(str(path)) and "save the notebook in JupyterLab first" in first


def test_answers_are_graded_now_with_their_reasons_only_when_asked():
    """`--answers` grades concept answers against the clone's keys: a right letter shows its
    reason, a wrong one 0 points and the reason the key is best, and the card fails; without
    it the card says how to ask."""
    keys = check_notebook.reference_answers(NB01)
    assert keys and all(len(key) == 3 for key in keys.values())
    names = list(keys)
    right, wrong = names[0], names[1]
    letter = keys[wrong][1]
    other = next(o for o in keys[wrong][0] if o != letter)
    probe = nbformat.v4.new_code_cell("")
    shown = {right: f"({keys[right][1]})", wrong: other}
    probe.outputs = [
        nbformat.v4.new_output(
            "stream", name="stdout", text=f"{check_notebook.ANSWERS_SHOWN} {json.dumps(shown)}\n"
        )
    ]
    cells = [
        _fake([], f"test_{name}", 1, f'check_choice("{name}", {name}, "ABC")') for name in names[:2]
    ]
    nb = nbformat.v4.new_notebook(cells=[*cells, probe])
    lines, status = check_notebook.score_card(nb, keys)
    text = "\n".join(lines)
    assert status == 1, text
    assert f"{right}" in text and "1/1" in text and keys[right][2] in text
    assert f"0/1  {other} is not the best answer" in text and f"Why: {keys[wrong][2]}" in text
    assert "1 right, 1 wrong" in text
    lines, status = check_notebook.score_card(nb, None, "make check NB=01 ANSWERS=1")
    text = "\n".join(lines)
    assert status == 0 and "graded later" in text and "make check NB=01 ANSWERS=1" in text
    assert keys[right][2] not in text


def test_answers_need_the_clones_keys(tmp_path, monkeypatch):
    """Where no reference answers exist (the student kit), --answers is refused by name."""
    monkeypatch.setattr(check_notebook, "ROOT", tmp_path)
    assert check_notebook.reference_answers(NB01) is None
    (tmp_path / "mine.ipynb").write_text(nbformat.writes(nbformat.v4.new_notebook()))
    with pytest.raises(SystemExit, match="--answers: the keyed letters of mine live with"):
        check_notebook.main(["--answers", str(tmp_path / "mine.ipynb")])


def test_make_check_answers_names_a_wrong_concept_answer_with_its_reason(tmp_path):
    """What a learner alone types: the notebook runs, and each wrong letter is named with the
    reason the keyed option is the best one; `make check ... ANSWERS=1` passes --answers."""
    path, _ = _submission(tmp_path, None)
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "check_notebook.py"), "--answers", str(path)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    keys = check_notebook.reference_answers(NB01)
    wrong = [line for line in done.stdout.splitlines() if "is not the best answer" in line]
    assert wrong, done.stdout
    assert any(f"Why: {why}" in done.stdout for _, _, why in keys.values()), done.stdout
    dry = subprocess.run(
        ["make", "-n", "-o", ".venv/.installed", "check", "NB=01", "ANSWERS=1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert "--answers" in dry.stdout, dry.stdout + dry.stderr


def test_the_self_check_passes_the_kits_scan_for_answers():
    """The kit ships this script; what it says about answers must not look like answers."""
    import re

    build_kit = script_module("scripts/build_kit.py")
    text = (ROOT / "scripts" / "check_notebook.py").read_text()
    found = {
        why: re.findall(p, text) for p, why in build_kit.MARKERS.items() if re.findall(p, text)
    }
    assert not found, found


def test_progress_is_one_line_per_notebook_with_the_time_left(tmp_path):
    """`make progress`: notebook 01 filled in (every function right, the letters mostly
    wrong), the others untouched: 01 shows its functions passed and, graded with
    ANSWERS=1, how many letters are right, and the time left in proportion to what is not
    done; the rest are "not started" at their full estimate; the total is the sum of the
    notebooks' own estimates."""
    path, _ = _submission(tmp_path, None)
    (tmp_path / "work" / NB01).mkdir(parents=True)
    path.rename(tmp_path / "work" / NB01 / f"{NB01}.ipynb")
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "progress.py"), "--work", str(tmp_path / "work")]
        + ["--answers"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    estimates = {}
    for nb in sorted(NOTEBOOKS.glob("[0-9][0-9]_*")):
        text = "".join(c.source for c in read(nb / f"{nb.name}.ipynb").cells[:3])
        estimates[nb.name] = int(text.split("**Time.** About ")[1].split()[0])
    assert len(lines) == 2 + len(estimates)
    found = re.fullmatch(rf"{NB01} +4/4 passed +4/4 answered, (\d) right +(\d+) min", lines[1])
    assert found, lines[1]
    right, left = int(found[1]), int(found[2])
    assert right < 4 and left == 5 * round(estimates[NB01] * (1 - (4 + right) / 8) / 5)
    for line, (name, minutes) in zip(lines[2:-1], list(estimates.items())[1:]):
        assert re.fullmatch(rf"{name} +not started +{minutes} min", line), line
    total = sum(estimates.values())
    assert lines[-1].startswith("0 of 11 notebooks complete")
    assert f"left of {total // 60} h {total % 60:02d} min" in lines[-1]


@pytest.mark.slow
def test_solutions_html_is_an_executed_copy_with_its_figures(tmp_path):
    """`make solutions-html NB=01`: notebook 01's solution, run, as one HTML page in build/,
    its figures inside as images, its checks passed; nothing in solutions/ changed."""
    module = _solutions_html()
    (path,) = module.notebooks(["01"])
    before = path.read_bytes()
    page, ok = module.build(path, tmp_path)
    text = page.read_text(encoding="utf-8")
    assert ok and page == tmp_path / f"{NB01}.html"
    assert text.count("data:image/png;base64,") >= 3  # the notebook's figures
    assert "passed" in text and "Traceback" not in text
    assert path.read_bytes() == before


def _solutions_html():
    return script_module("scripts/solutions_html.py")


def test_solutions_html_names_a_notebook_as_make_check_does():
    """`make solutions-html NB=1` built notebooks 10 and 11 (a prefix of both) where
    `make check NB=1` refuses it: the same resolution, the same error; 01, a full name and
    several at once still work."""
    module = _solutions_html()
    for name in ("1", "0", "99", "attention"):
        with pytest.raises(SystemExit) as theirs:
            check_notebook.find(name)
        with pytest.raises(SystemExit) as ours:
            module.notebooks([name])
        assert ours.value.code == theirs.value.code, name
        assert f"NB={name!r} should name one notebook; choose from" in str(ours.value.code)
    solution = SOLUTIONS / NB01 / f"{NB01}.ipynb"
    assert module.notebooks(["01"]) == module.notebooks([NB01]) == [solution]
    chosen = module.notebooks(["10", "01", "10"])
    assert [p.parent.name for p in chosen] == ["10_modern_decoder", NB01]
    assert len(module.notebooks([])) == len(list(NOTEBOOKS.glob("[0-9][0-9]_*")))


def test_progress_refuses_a_work_folder_that_does_not_exist_and_has_help(tmp_path):
    """`make progress WORK=wrok` printed every notebook "not started" and exited 0;
    `--help` and `--bogus` printed the table too."""
    script = [sys.executable, str(ROOT / "scripts" / "progress.py")]
    missing = tmp_path / "wrok"
    done = subprocess.run(script + ["--work", str(missing)], capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 2 and "not started" not in done.stdout, done.stdout
    said = f"expected the folder of your notebooks, got {str(missing)!r}, which does not exist"
    assert f"argument --work: {said}" in done.stderr, done.stderr
    assert "`make lab`" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert not missing.exists()
    helped = subprocess.run(script + ["--help"], capture_output=True, text=True, timeout=120)
    assert helped.returncode == 0 and helped.stdout.startswith("usage: progress.py"), helped
    assert "--work" in helped.stdout and "not started" not in helped.stdout
    bogus = subprocess.run(script + ["--bogus"], capture_output=True, text=True, timeout=120)
    assert bogus.returncode == 2 and "unrecognized arguments: --bogus" in bogus.stderr
    assert "not started" not in bogus.stdout


def test_the_answers_probe_is_read_when_its_line_arrives_in_pieces():
    """ipykernel may send one print as several stream messages (a loaded machine made it do
    so in a full run): the probe's line is read from the cell's whole stdout."""
    cell = nbformat.v4.new_code_cell("probe")
    cell.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text=check_notebook.ANSWERS_SHOWN),
        nbformat.v4.new_output("stream", name="stdout", text=' {"answer_x": "B"}\n'),
    ]
    nb = nbformat.v4.new_notebook(cells=[cell])
    assert check_notebook.chosen(nb) == {"answer_x": "B"}


# -- a run that stops: the kernel dies, a cell hangs, the file is truncated ----------------------
def _stopping(tmp_path, middle: str):
    """A small graded notebook: a passing test, a cell running `middle`, a second test."""
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell("x = 1"),
            _fake([], "test_first", source="assert x == 1"),
            nbformat.v4.new_code_cell(middle),
            _fake([], "test_second", source="assert x == 1"),
        ]
    )
    for cell in nb.cells:
        cell.outputs, cell.execution_count = [], None
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "P", "language": "python"}
    path = tmp_path / "mine.ipynb"
    nbformat.write(nb, path)
    return path


@pytest.mark.parametrize(
    ("middle", "said"),
    [
        ("import os\nos._exit(3)", "ended the kernel"),
        ("import time\ntime.sleep(60)", "ran past 2 s, the autograder's time limit"),
    ],
    ids=["dead kernel", "hang"],
)
def test_a_run_that_stops_prints_the_card_with_where_and_why(
    tmp_path, monkeypatch, capsys, middle, said
):
    """The kernel dies (os._exit in an answer) or a cell runs past the cell time limit (the
    autograder's, CELL_TIMEOUT): no traceback, the card of what ran, the file, the cell and
    what happened, the tests after it not run, exit 1."""
    assert check_notebook.CELL_TIMEOUT == 300  # the autograder's limit for one cell
    monkeypatch.setattr(check_notebook, "CELL_TIMEOUT", 2)
    path = _stopping(tmp_path, middle)
    assert check_notebook.main([str(path)]) == 1
    out = capsys.readouterr().out
    first = next(line for line in out.splitlines() if "test_first" in line)
    second = next(line for line in out.splitlines() if "test_second" in line)
    assert check_notebook.PASS in first and check_notebook.FAIL in second, out
    assert "did not run" in second, out
    assert f"{path}: cell 3 of 4 ({middle.splitlines()[0]!r}) {said}" in out, out


def test_a_truncated_notebook_is_named_with_what_is_wrong(tmp_path, capsys):
    path = _stopping(tmp_path, "y = 2")
    path.write_text(path.read_text()[:200])
    assert check_notebook.main([str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}: could not be read as a notebook (NotJSONError" in out, out
    assert "truncated" in out and "Traceback" not in out


def test_progress_goes_on_past_a_notebook_that_cannot_run(tmp_path):
    """`make progress` with notebook 01 truncated: its line says so, with the file; every
    other notebook's line is still printed, and the exit status is 1."""
    mine = tmp_path / "work" / NB01 / f"{NB01}.ipynb"
    mine.parent.mkdir(parents=True)
    mine.write_text((NOTEBOOKS / NB01 / f"{NB01}.ipynb").read_text()[:500])
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "progress.py"), "--work", str(tmp_path / "work")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stdout.splitlines()
    assert f"{mine}: could not be read as a notebook" in done.stdout, done.stdout
    names = sorted(p.name for p in NOTEBOOKS.glob("[0-9][0-9]_*"))
    assert all(any(line.startswith(name) for line in lines) for name in names), done.stdout
    assert "notebooks complete" in done.stdout and NB01 in lines[-1], done.stdout


# -- the self-check agrees with the autograder -------------------------------------------------
def test_a_deleted_test_cell_is_put_back_from_the_release_and_scored(tmp_path):
    """The autograder puts a deleted test cell back from the release and runs it: a learner
    whose wrong attention lost its test cell got 7/7 from the self-check and 0 for it from the
    grader. The self-check scores the release's graded cells, naming the one put back."""
    path, _ = _submission(tmp_path, "returns (A, Y)")
    nb = read(path)
    nb.cells = [c for c in nb.cells if nbgrader_meta(c).get("grade_id") != "test_attention"]
    nbformat.write(nb, path)
    done = _run(path)
    assert done.returncode == 1, done.stdout + done.stderr
    line = next((x for x in done.stdout.splitlines() if "test_attention" in x), "")
    assert check_notebook.FAIL in line and "0/3" in line, done.stdout
    assert "missing from your notebook: put back from the release" in done.stdout
    total = next(x for x in done.stdout.splitlines() if x.startswith("functions:"))
    assert "7/10 points" in total, done.stdout


def test_a_concept_answer_is_read_at_its_test_cell_as_the_grader_reads_it(tmp_path):
    """`answer_scale = <wrong>` in its cell, then the right letter set in a cell at the end:
    the autograder's test cell sees the wrong one (0 points), so `--answers` says wrong."""
    path, _ = _submission(tmp_path, None)
    right = check_notebook.reference_answers(NB01)["answer_scale"][1]
    wrong = "A" if right != "A" else "B"
    nb = read(path)
    for cell in nb.cells:
        if nbgrader_meta(cell).get("grade_id") == "answer_scale":
            cell.source = f'answer_scale = "{wrong}"\n'
    nb.cells.append(nbformat.v4.new_code_cell(f'answer_scale = "{right}"'))
    nbformat.write(nb, path)
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "check_notebook.py"), "--answers", str(path)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    line = next((x for x in done.stdout.splitlines() if " answer_scale " in x), "")
    assert check_notebook.FAIL in line and f"{wrong} is not the best answer" in line, done.stdout
    assert done.returncode == 1


def test_solutions_html_works_without_the_grader(tmp_path, monkeypatch):
    """A learner's set-up (`make setup`) has no grader, so no reference answers: the page is
    still made, run through, its figures inside (the hidden tests, which need the reference,
    are left out of the run: they are no part of what the page shows)."""
    monkeypatch.setenv("ATTNBOOK_AUTOGRADER", str(tmp_path / "no-grader-here"))
    module = _solutions_html()
    (path,) = module.notebooks(["01"])
    page, ok = module.build(path, tmp_path)
    text = page.read_text(encoding="utf-8")
    assert ok and "FileNotFoundError" not in text and "Traceback" not in text
    assert text.count("data:image/png;base64,") >= 3  # the notebook's figures
    assert "load_reference" not in text and "HIDDEN TESTS" not in text


def test_an_answer_that_calls_the_packages_own_version_is_flagged_as_the_grader_does(tmp_path):
    """softmax_rows returning attnbook.ops.torch_softmax(S) passes its visible check, but the
    autograder gives it 0 ("borrowed"): the self-check says the same, naming the call."""
    path, _ = _submission(tmp_path, None)
    nb = read(path)
    for cell in nb.cells:
        if nbgrader_meta(cell).get("grade_id") == "softmax_rows":
            cell.source = (
                "def softmax_rows(S):\n"
                "    from attnbook.ops import torch_softmax\n"
                "    return torch_softmax(np.asarray(S, dtype=np.float64))\n"
            )
    nbformat.write(nb, path)
    done = _run(path)
    line = next((x for x in done.stdout.splitlines() if "test_softmax_rows" in x), "")
    assert check_notebook.FAIL in line and "0/3" in line, done.stdout
    assert "attnbook.ops.torch_softmax" in done.stdout and "borrowed" in line, done.stdout
    assert done.returncode == 1
