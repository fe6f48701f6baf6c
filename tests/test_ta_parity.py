"""The grader and the visible checks agree on every catalogued answer.

`test_catalogue.py` runs each catalogued mistake and correct alternative in this process, the
way a notebook's visible check does. Here the same answers go through the grader's own path:
the answer cell runs in a sandboxed kernel (`grader.execute.StudentKernel`) and the test in a
fresh trusted process (`grader.execute.run_test`), so functions cross as proxies, the
learner's modules as handles and the course's models by state. Every mistake must lose its
test with its hint there too, and every alternative must pass: no answer is refused by one
side and accepted by the other.

One kernel per notebook keeps this affordable: each variant's cell runs, its test runs, then
the solution's cell runs again, so later variants start from the correct answers.
"""

from __future__ import annotations

import time

import pytest
from conftest import notebook_names
from grader.catalogue import (
    apply_variant,
    load_catalogue,
    nbgrader_meta,
    solution_notebook,
    strip_solution_markers,
)
from grader.execute import StudentKernel, Template, run_test
from grader.sandbox import Limits, sandbox_available

pytestmark = pytest.mark.slow
SANDBOX_OK, _ = sandbox_available()


def _cells(nb) -> dict[str, str]:
    return {
        nbgrader_meta(c)["grade_id"]: strip_solution_markers(c.source)
        for c in nb.cells
        if c.cell_type == "code" and nbgrader_meta(c).get("solution")
    }


def _grade(notebook: str) -> dict[tuple[str, str, str], tuple[str, str]]:
    """(kind, answer cell, variant name) -> (verdict, failure message) through the grader's path."""
    source = solution_notebook(notebook)
    template = Template.from_notebook(source)
    answers = _cells(source)
    catalogue = load_catalogue(notebook)
    limits = Limits(cell_timeout_s=120)
    kernel = StudentKernel(None, limits, SANDBOX_OK)
    ran: list[str] = []

    def run(code: str) -> None:
        ran.append(code)
        kernel.request({"op": "run", "source": code}, time.monotonic() + 120)

    results = {}
    try:
        for cell in source.cells:
            if cell.cell_type == "code" and "setup" in cell.get("metadata", {}).get("tags", []):
                run(cell.source)
        for code in answers.values():
            run(code)
        for kind in ("MISTAKES", "ALTERNATIVES"):
            for variant in getattr(catalogue, kind):
                run(_cells(apply_variant(source, variant))[variant.cell])
                outputs, verdict = run_test(
                    template.tests[variant.test],
                    variant.test,
                    template,
                    kernel,
                    time.monotonic() + 120,
                    ran,
                )
                message = "".join(o.get("evalue", "") for o in outputs)
                results[(kind, variant.cell, variant.name)] = (verdict, message)
                run(answers[variant.cell])
                assert not kernel.dead, f"{notebook}: the kernel died: {kernel.dead}"
    finally:
        kernel.close()
    return results


@pytest.mark.parametrize("notebook", notebook_names())
def test_grader_agrees_with_the_catalogue(notebook):
    results = _grade(notebook)
    catalogue = load_catalogue(notebook)
    wrong = []
    for variant in catalogue.MISTAKES:
        verdict, message = results[("MISTAKES", variant.cell, variant.name)]
        if verdict != "failed" or variant.hint not in message:
            wrong.append(
                f"mistake {variant.name!r}: {verdict}, hint {variant.hint!r} "
                f"{'missing' if variant.hint not in message else 'shown'}: "
                f"{message[:300]}"
            )
    for variant in catalogue.ALTERNATIVES:
        verdict, message = results[("ALTERNATIVES", variant.cell, variant.name)]
        if verdict != "passed":
            wrong.append(f"alternative {variant.name!r}: {verdict}: {message[:300]}")
    assert not wrong, f"{notebook}: {len(wrong)} disagreement(s):\n" + "\n".join(wrong)
