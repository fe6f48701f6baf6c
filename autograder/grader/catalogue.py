"""The mistake catalogue: realistic wrong answers and correct answers written differently.

Each notebook NN_topic has `autograder/mistakes/nbNN_topic.py` with two lists:
`MISTAKES` (every one must lose the points of its test cell, with its hint in the failure
message) and `ALTERNATIVES` (correct answers written another way: every one must pass).
A variant replaces the solution regions of one answer cell of the solution notebook with
its own code, exactly as a student's submission would.
"""

from __future__ import annotations

import contextlib
import copy
import importlib.util
import io
import linecache
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import nbformat

AUTOGRADER = Path(__file__).resolve().parents[1]
ROOT = AUTOGRADER.parent
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
_REGION = re.compile(r"^([ \t]*)### BEGIN SOLUTION\n.*?^[ \t]*### END SOLUTION[ \t]*\n?",
                     re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class Variant:
    """One way of filling in answer cell `cell`; `test` is the test cell it is judged by."""

    cell: str
    name: str
    bodies: tuple[str | None, ...]
    test: str
    hint: str = ""


def mistake(cell: str, name: str, body: str | tuple, hint: str, test: str | None = None):
    """A wrong answer that must lose `test`'s points with `hint` in the failure message."""
    bodies = body if isinstance(body, tuple) else (body,)
    return Variant(cell, name, bodies, test or f"test_{cell}", hint)


def alternative(cell: str, name: str, body: str | tuple, test: str | None = None):
    """A correct answer written differently from the reference; it must pass."""
    bodies = body if isinstance(body, tuple) else (body,)
    return Variant(cell, name, bodies, test or f"test_{cell}")


def notebooks() -> list[str]:
    """The notebooks that have a catalogue, e.g. ["01_attention_scores", ...]."""
    return sorted(p.stem[2:] for p in (AUTOGRADER / "mistakes").glob("nb*.py"))


def load_catalogue(notebook: str) -> ModuleType:
    """The catalogue of notebook `NN_topic`: the grader's package data `grader.mistakes`."""
    return importlib.import_module(f"grader.mistakes.nb{notebook}")


def solution_notebook(notebook: str) -> nbformat.NotebookNode:
    return nbformat.read(ROOT / "solutions" / notebook / f"{notebook}.ipynb", as_version=4)


def nbgrader_meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def replace_regions(source: str, bodies: tuple[str | None, ...]) -> str:
    """Replace each solution region of `source` by the matching body (None keeps it)."""
    regions = list(_REGION.finditer(source))
    if len(regions) != len(bodies):
        raise ValueError(f"the cell has {len(regions)} solution regions; the variant gives "
                         f"{len(bodies)} bodies")
    pieces, last = [], 0
    for match, body in zip(regions, bodies):
        pieces.append(source[last:match.start()])
        if body is None:
            inner = match.group(0).splitlines(keepends=True)[1:-1]
            pieces.append("".join(inner))
        else:
            text = textwrap.indent(textwrap.dedent(body).strip("\n"), match.group(1))
            pieces.append(text + "\n")
        last = match.end()
    pieces.append(source[last:])
    return "".join(pieces)


def apply_variant(nb: nbformat.NotebookNode, variant: Variant) -> nbformat.NotebookNode:
    """A copy of the solution notebook with `variant` written into its answer cell."""
    nb = copy.deepcopy(nb)
    cells = [c for c in nb.cells if nbgrader_meta(c).get("grade_id") == variant.cell]
    if len(cells) != 1:
        raise KeyError(f"no single answer cell with grade_id {variant.cell!r}")
    cells[0].source = replace_regions(cells[0].source, variant.bodies)
    return nb


def strip_solution_markers(source: str) -> str:
    return replace_regions(source, (None,) * len(_REGION.findall(source)))


def fill_in(release: nbformat.NotebookNode, answers: nbformat.NotebookNode,
            ) -> nbformat.NotebookNode:
    """A student's submission: the released notebook with every answer cell written as in
    `answers` (a solution notebook, perhaps with a variant applied), markers removed."""
    nb = copy.deepcopy(release)
    by_id = {nbgrader_meta(c).get("grade_id"): c for c in answers.cells}
    for cell in nb.cells:
        grade_id = nbgrader_meta(cell).get("grade_id")
        if nbgrader_meta(cell).get("solution") and grade_id in by_id:
            cell.source = strip_solution_markers(by_id[grade_id].source)
    return nb


@dataclass
class CellResult:
    grade_id: str
    error: BaseException | None
    stdout: str


def run_graded_cells(nb: nbformat.NotebookNode, only_test: str | None = None,
                     ) -> dict[str, CellResult]:
    """Run a notebook's setup, answer and test cells in this process (no kernel, no demos).

    Setup cells carry the tag "setup"; answer cells are nbgrader solution cells; test cells
    are nbgrader grade cells. Demonstration cells are skipped, so answer and test cells must
    depend only on setup and answer cells (a rule the project's tests enforce).
    """
    namespace: dict = {"__name__": "__main__"}
    results: dict[str, CellResult] = {}
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        meta = nbgrader_meta(cell)
        is_setup = "setup" in cell.get("metadata", {}).get("tags", [])
        is_answer = meta.get("solution", False)
        is_test = meta.get("grade", False) and not is_answer
        if not (is_setup or is_answer or is_test):
            continue
        if is_test and only_test is not None and meta["grade_id"] != only_test:
            continue
        out = io.StringIO()
        error = None
        source = strip_solution_markers(cell.source)
        filename = f"<cell {meta.get('grade_id', 'setup')} {len(results)}>"
        # as IPython does: the source stays readable (inspect.getsource) for the checks
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(source, filename, "exec"), namespace)
        except BaseException as err:  # a cell's failure is its result, not ours
            if isinstance(err, KeyboardInterrupt):
                raise
            error = err
            if is_setup:
                raise
        if is_test or is_answer:
            results[meta["grade_id"]] = CellResult(meta["grade_id"], error, out.getvalue())
    return results
