"""`make hint` (scripts/hint.py): one exercise's help, one level at a time, each level
written once beside the solution: the check's verdict, the key idea, the solution cell."""

from __future__ import annotations

import json
import subprocess
import sys

import nbformat
import pytest
from conftest import NOTEBOOKS, ROOT, SOLUTIONS, read, script_module
from grader.catalogue import apply_variant, fill_in, load_catalogue, nbgrader_meta

hint = script_module("scripts/hint.py")

NB01 = "01_attention_scores"
SLIP = "divided by d_k instead of sqrt(d_k)"


def _hint(work, *args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "hint.py"), "--work", str(work), *args],
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.parametrize("path", sorted(SOLUTIONS.glob("*/*.ipynb")), ids=lambda p: p.stem)
def test_every_exercise_has_a_key_idea_that_no_student_copy_holds(path):
    """Level 2 is written beside each solution, inside the solution markers, so the release
    strips it: the released notebook has none."""
    found = hint.exercises(read(path))
    assert found, path
    for exercise, cell in found.items():
        idea = hint.key_idea(cell)
        assert len(idea) > 40, f"{path.stem}: {exercise} has no key idea"
        solution = cell.source.split(hint.BEGIN, 1)[1].split(hint.END, 1)[0]
        assert hint.KEY_IDEA in solution, f"{path.stem}: {exercise}'s key idea is outside it"
        text = hint.solution_text(cell)
        assert hint.KEY_IDEA not in text and hint.BEGIN not in text and hint.END not in text
    released = (NOTEBOOKS / path.parent.name / path.name).read_text()
    assert hint.KEY_IDEA not in released


@pytest.mark.slow
def test_levels_come_one_at_a_time_and_the_first_is_what_the_check_says(tmp_path):
    solution = read(SOLUTIONS / NB01 / f"{NB01}.ipynb")
    variant = next(v for v in load_catalogue(NB01).MISTAKES if v.name == SLIP)
    nb = fill_in(read(NOTEBOOKS / NB01 / f"{NB01}.ipynb"), apply_variant(solution, variant))
    path = tmp_path / f"{NB01}.ipynb"
    nbformat.write(nb, path)
    work = tmp_path / "work"

    first = _hint(work, str(path), "score_matrix")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "level 1 of 3" in first.stdout and "\u2717 score_matrix" in first.stdout
    assert SLIP in first.stdout and variant.hint in first.stdout, first.stdout
    assert "np.sqrt(d_k)" not in first.stdout  # no solution yet

    second = _hint(work, str(path), "score_matrix")
    idea = hint.key_idea(hint.exercises(solution)["score_matrix"])
    assert "level 2 of 3" in second.stdout and idea in second.stdout.replace("\n", " ")
    assert "return Q @ K.T" not in second.stdout

    third = _hint(work, str(path), "score_matrix")
    assert "level 3 of 3" in third.stdout and "return Q @ K.T / np.sqrt(d_k)" in third.stdout
    assert "BEGIN SOLUTION" not in third.stdout and "Key idea" not in third.stdout
    assert "def project_qkv" not in third.stdout  # that exercise's cell alone
    again = _hint(work, str(path), "score_matrix")
    assert "level 3 of 3" in again.stdout
    assert json.loads((work / ".hints.json").read_text()) == {NB01: {"score_matrix": 3}}

    passing = _hint(work, str(path), "project_qkv")  # right: the check says so, no level gone
    assert "\u2713 project_qkv passes" in passing.stdout, passing.stdout
    assert "project_qkv" not in json.loads((work / ".hints.json").read_text())[NB01]
    chosen = _hint(work, "--level", "2", str(path), "project_qkv")
    assert "level 2 of 3" in chosen.stdout


def test_a_concept_question_or_an_unknown_name_is_refused_with_what_to_do(tmp_path):
    concept = _hint(tmp_path, "01", "answer_scale")
    assert concept.returncode != 0 and "ANSWERS=1" in concept.stderr
    unknown = _hint(tmp_path, "01", "scores")
    assert unknown.returncode != 0 and "score_matrix" in unknown.stderr
    level = _hint(tmp_path, "--level", "4", "01", "score_matrix")
    assert level.returncode != 0 and "'4'" in level.stderr
    listing = _hint(tmp_path, "01")
    assert listing.returncode == 0 and "softmax_rows" in listing.stdout
    assert not (tmp_path / ".hints.json").exists()


def test_the_graded_cells_are_the_exercises():
    """Every graded solution cell that is not a concept question has a level-3 answer."""
    for path in sorted(SOLUTIONS.glob("*/*.ipynb")):
        nb = read(path)
        graded = {
            nbgrader_meta(c)["grade_id"][len("test_") :]
            for c in nb.cells
            if nbgrader_meta(c).get("grade_id", "").startswith("test_")
            and not nbgrader_meta(c)["grade_id"].startswith("test_answer_")
        }
        assert graded == set(hint.exercises(nb)), path.stem


def test_level_one_says_where_the_run_stopped_and_uses_up_no_level(tmp_path):
    """A notebook whose kernel dies (os._exit in a cell): the first level names the file, the
    cell and what happened, instead of a traceback, exits 1 and records no help given."""
    nb = read(NOTEBOOKS / NB01 / f"{NB01}.ipynb")
    nb.cells.insert(0, nbformat.v4.new_code_cell("import os\nos._exit(3)"))
    work = tmp_path / "work"
    mine = work / NB01 / f"{NB01}.ipynb"
    mine.parent.mkdir(parents=True)
    nbformat.write(nb, mine)
    done = _hint(work, "01", "score_matrix")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    said = f"the run stopped: {mine}: cell 1 of {len(nb.cells)} ('import os') ended the kernel"
    assert said in done.stdout, done.stdout
    assert not (work / ".hints.json").exists()
