"""Every catalogued mistake loses its test's points with its hint; every alternative passes.

Runs the solution notebook's setup, answer and test cells in this process, with one answer
cell replaced by the variant, exactly as the student would have written it.
"""

from __future__ import annotations

import pytest
from conftest import SOLUTIONS, grade_cells, read
from grader.catalogue import (
    apply_variant,
    load_catalogue,
    nbgrader_meta,
    notebooks,
    run_graded_cells,
    solution_notebook,
)

CATALOGUED = notebooks()


def _variants(kind: str):
    for notebook in CATALOGUED:
        for variant in getattr(load_catalogue(notebook), kind):
            yield pytest.param(notebook, variant, id=f"{notebook}:{variant.cell}:{variant.name}")


def test_every_notebook_has_a_catalogue():
    names = sorted(p.parent.name for p in SOLUTIONS.glob("*/*.ipynb"))
    assert names, "no solution notebooks found"
    missing = [n for n in names if n not in CATALOGUED]
    assert not missing, f"notebooks without autograder/mistakes/nb<name>.py: {missing}"


@pytest.mark.parametrize("notebook", CATALOGUED)
def test_solution_passes_every_test_in_process(notebook):
    results = run_graded_cells(solution_notebook(notebook))
    failed = {k: repr(r.error) for k, r in results.items() if r.error is not None}
    assert not failed, f"{notebook}: cells failed with the reference solution: {failed}"


@pytest.mark.parametrize("notebook", CATALOGUED)
def test_every_graded_function_has_mistakes_and_an_alternative(notebook):
    nb = read(SOLUTIONS / notebook / f"{notebook}.ipynb")
    catalogue = load_catalogue(notebook)
    answer_cells = {nbgrader_meta(c)["grade_id"] for c in nb.cells
                    if nbgrader_meta(c).get("solution")}
    functions = {cell for cell in answer_cells if not cell.startswith("answer_")}
    with_mistakes = {m.cell for m in catalogue.MISTAKES}
    with_alternatives = {a.cell for a in catalogue.ALTERNATIVES}
    assert functions <= with_mistakes, f"no mistakes for {functions - with_mistakes}"
    assert functions <= with_alternatives, f"no alternatives for {functions - with_alternatives}"
    tests = {nbgrader_meta(c)["grade_id"] for c in grade_cells(nb)}
    unknown = {v.test for v in [*catalogue.MISTAKES, *catalogue.ALTERNATIVES]} - tests
    assert not unknown, f"variants name test cells that do not exist: {unknown}"


@pytest.mark.parametrize(("notebook", "variant"), list(_variants("MISTAKES")))
def test_mistake_loses_points_with_its_hint(notebook, variant):
    nb = apply_variant(solution_notebook(notebook), variant)
    result = run_graded_cells(nb, only_test=variant.test)[variant.test]
    assert result.error is not None, f"{variant.name!r} passed {variant.test}; it must fail"
    assert isinstance(result.error, AssertionError), (
        f"{variant.name!r} failed with {type(result.error).__name__}, not a check failure: "
        f"{result.error}")
    assert variant.hint in str(result.error), (
        f"{variant.name!r}: the message does not contain the hint {variant.hint!r}:\n"
        f"{result.error}")


@pytest.mark.parametrize(("notebook", "variant"), list(_variants("ALTERNATIVES")))
def test_correct_answer_written_otherwise_passes(notebook, variant):
    nb = apply_variant(solution_notebook(notebook), variant)
    result = run_graded_cells(nb, only_test=variant.test)[variant.test]
    assert result.error is None, f"{variant.name!r} is correct but failed:\n{result.error}"
