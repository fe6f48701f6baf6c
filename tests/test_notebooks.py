"""Solution notebooks pass every test in a real kernel; released notebooks are clean stubs."""

from __future__ import annotations

import time

import pytest
from conftest import (
    NOTEBOOKS,
    SOLUTIONS,
    errors_of,
    execute,
    grade_cells,
    notebook_names,
    read,
    stderr_of,
)
from grader.catalogue import nbgrader_meta

NAMES = notebook_names()
# Notebook 07 trains a model; it may take longer, with a small budget while graded.
TIME_LIMIT = {"07_training": 300}
GRADING_ENV = {"NBGRADER_EXECUTION": "autograde"}


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_solution_runs_top_to_bottom_and_passes_all_tests(name):
    start = time.perf_counter()
    nb = execute(SOLUTIONS / name / f"{name}.ipynb", allow_errors=True, env=GRADING_ENV)
    seconds = time.perf_counter() - start
    failures = {
        c.metadata.get("nbgrader", {}).get("grade_id", c.id): f"{e['ename']}: {e['evalue']}"
        for c in nb.cells
        for e in errors_of(c)
    }
    assert not failures, f"{name}: cells raised with the solutions filled in: {failures}"
    graded = grade_cells(nb)
    assert graded, f"{name} has no graded test cells"
    noisy = {nbgrader_meta(c)["grade_id"]: stderr_of(c) for c in graded if stderr_of(c)}
    assert not noisy, f"{name}: graded cells wrote to stderr (nbgrader scores them 0): {noisy}"
    hidden_ran = [c for c in graded if "BEGIN HIDDEN TESTS" in c.source]
    assert hidden_ran, f"{name}: no hidden tests"
    # The standard's 60 s on two CPU cores is measured, not asserted: a loaded machine would
    # fail a correct notebook. benchmarks/bench_notebooks.py records the figures.
    print(f"{name}: {seconds:.1f} s with solutions (budget {TIME_LIMIT.get(name, 60)} s)")


# Each released notebook, run top to bottom, stops only at its stubs (NotImplementedError in
# every graded cell): tests/test_kit.py runs the kit's copies, byte for byte these files, in
# the student's own environment (test_released_notebook_runs_in_the_kit_up_to_its_stubs).


@pytest.mark.parametrize("name", NAMES)
def test_released_notebook_holds_no_answer_no_hidden_test_no_output(name):
    nb = read(NOTEBOOKS / name / f"{name}.ipynb")
    text = "\n".join(c.source for c in nb.cells)
    for marker in (
        "BEGIN SOLUTION",
        "END SOLUTION",
        "BEGIN HIDDEN TESTS",
        "load_reference",
        "check_answer",
    ):
        assert marker not in text, f"{name}: released notebook contains {marker!r}"
    solution = read(SOLUTIONS / name / f"{name}.ipynb")
    answers = {
        nbgrader_meta(c)["grade_id"] for c in solution.cells if nbgrader_meta(c).get("solution")
    }
    for cell in nb.cells:
        if nbgrader_meta(cell).get("grade_id") in answers:
            assert "raise NotImplementedError()" in cell.source


@pytest.mark.parametrize("tree", ["solutions", "notebooks"])
def test_notebooks_are_stored_without_outputs(root, tree):
    paths = sorted((root / tree).glob("*/*.ipynb"))
    assert paths
    for path in paths:
        for cell in read(path).cells:
            if cell.cell_type == "code":
                assert not cell.outputs, f"{path}: cell {cell.id} is stored with outputs"
                assert cell.execution_count is None, f"{path}: cell {cell.id} has a count"


@pytest.mark.parametrize("name", NAMES)
def test_notebook_standard_structure(name):
    """Goals, prerequisites and time up front, a recap at the end, a concept check per
    section, a difficulty and time on each exercise, points on every test cell."""
    nb = read(SOLUTIONS / name / f"{name}.ipynb")
    first, last = nb.cells[0].source, nb.cells[-1].source
    for phrase in ("Learning goals", "Prerequisites", "Time"):
        assert phrase in first, f"{name}: the first cell lacks {phrase!r}"
    assert "Recap" in last, f"{name}: the last cell should be the recap"
    answers = [c for c in nb.cells if nbgrader_meta(c).get("solution")]
    tests = grade_cells(nb)
    assert all(nbgrader_meta(c).get("points", 0) > 0 for c in tests)
    ids = [nbgrader_meta(c)["grade_id"] for c in answers + tests]
    assert len(ids) == len(set(ids)), f"{name}: duplicate grade ids"
    functions = [c for c in answers if not nbgrader_meta(c)["grade_id"].startswith("answer_")]
    concepts = [c for c in answers if nbgrader_meta(c)["grade_id"].startswith("answer_")]
    sections = [
        c
        for c in nb.cells
        if c.cell_type == "markdown"
        and c.source.lstrip().startswith("## ")
        and "Recap" not in c.source
    ]
    assert len(concepts) >= max(1, len(sections) // 2), (
        f"{name}: {len(concepts)} concept checks for {len(sections)} sections"
    )
    for cell in functions:
        grade_id = nbgrader_meta(cell)["grade_id"]
        assert '"""' in cell.source.split("### BEGIN SOLUTION")[0], (
            f"{name}: {grade_id} needs its docstring outside the solution markers"
        )
        assert f"test_{grade_id}" in {nbgrader_meta(c)["grade_id"] for c in tests}
    exercise_heads = [
        c.source for c in nb.cells if c.cell_type == "markdown" and "### Exercise" in c.source
    ]
    assert len(exercise_heads) >= len(functions)
    for head in exercise_heads:
        assert "difficulty" in head and "minutes" in head, (
            f"{name}: exercise heading without difficulty and time: {head.splitlines()[0]}"
        )
