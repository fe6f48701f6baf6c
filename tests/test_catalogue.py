"""Every catalogued mistake loses its test's points with its hint; every
alternative passes; every entry still applies; every detector of the checks is catalogued.

Runs the solution notebook's setup, answer and test cells in this process, with one answer
cell replaced by the variant, exactly as the student would have written it.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SOLUTIONS, grade_cells, read, run_mistake
from grader.catalogue import (
    CatalogueError,
    alternative,
    apply_variant,
    catalogue,
    delete,
    edit,
    explained,
    insert_after,
    load_catalogue,
    mistake,
    nbgrader_meta,
    notebooks,
    replace_line,
    run_graded_cells,
    solution_notebook,
    strip_solution_markers,
    variant_source,
)

import attnbook.checks as checks
from attnbook.checks import detectors
from attnbook.checks._cases import fallback_hints

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
    answer_cells = {
        nbgrader_meta(c)["grade_id"] for c in nb.cells if nbgrader_meta(c).get("solution")
    }
    functions = {cell for cell in answer_cells if not cell.startswith("answer_")}
    with_mistakes = {m.cell for m in catalogue.MISTAKES}
    with_alternatives = {a.cell for a in catalogue.ALTERNATIVES}
    assert functions <= with_mistakes, f"no mistakes for {functions - with_mistakes}"
    assert functions <= with_alternatives, f"no alternatives for {functions - with_alternatives}"
    tests = {nbgrader_meta(c)["grade_id"] for c in grade_cells(nb)}
    unknown = {v.test for v in [*catalogue.MISTAKES, *catalogue.ALTERNATIVES]} - tests
    assert not unknown, f"variants name test cells that do not exist: {unknown}"


@pytest.mark.parametrize("notebook", CATALOGUED)
def test_every_entry_still_applies(notebook):
    """Each edit finds its text in the body it edits: a reference that changed under an entry
    fails here, naming the entry, before anything runs."""
    nb = solution_notebook(notebook)
    broken = []
    for variant in [*load_catalogue(notebook).MISTAKES, *load_catalogue(notebook).ALTERNATIVES]:
        try:
            apply_variant(nb, variant)
        except CatalogueError as err:
            broken.append(str(err))
    assert not broken, f"{notebook}: entries that no longer apply:\n" + "\n".join(broken)


@pytest.mark.parametrize(("notebook", "variant"), list(_variants("MISTAKES")))
def test_mistake_loses_points_with_its_hint(notebook, variant):
    # one run per session (conftest.run_mistake): test_feedback.py reads the same run
    run = run_mistake(apply_variant(solution_notebook(notebook), variant), variant.test)
    assert run.error_type is not None, f"{variant.name!r} passed {variant.test}; it must fail"
    assert issubclass(run.error_type, AssertionError), (
        f"{variant.name!r} failed with {run.error_type.__name__}, not a check failure: {run.text}"
    )
    what = "its detector's text" if variant.detects else "the hint"
    assert variant.hint in run.text, (
        f"{variant.name!r}: the message does not contain {what} {variant.hint!r}:\n{run.text}"
    )


HIDDEN_TESTS = re.compile(
    r"^[ \t]*### BEGIN HIDDEN TESTS.*?^[ \t]*### END HIDDEN TESTS[ \t]*\n?", re.S | re.M
)


@pytest.mark.parametrize("notebook", CATALOGUED)
def test_every_catalogued_code_mistake_fails_a_visible_check(notebook):
    """The hidden trials draw from the course's secret and the submission's code, so they are
    not the same for every student: a mistake caught only there would lose its points in one
    submission and keep them in another. Every catalogued mistake of a graded function fails
    the test cell's visible checks alone, which are the same for everyone (a concept
    question's answer is read by its hidden test, whatever the draw)."""
    base = solution_notebook(notebook)
    for cell in base.cells:
        if nbgrader_meta(cell).get("grade") and not nbgrader_meta(cell).get("solution"):
            cell.source = HIDDEN_TESTS.sub("", cell.source)
    passed = [
        f"{v.cell}: {v.name}"
        for v in load_catalogue(notebook).MISTAKES
        if not v.cell.startswith("answer_")
        and run_graded_cells(apply_variant(base, v), only_test=v.test)[v.test].error is None
    ]
    assert not passed, "caught by hidden trials only (add a visible case): " + "; ".join(passed)


@pytest.mark.parametrize(("notebook", "variant"), list(_variants("ALTERNATIVES")))
def test_correct_answer_written_otherwise_passes(notebook, variant):
    nb = apply_variant(solution_notebook(notebook), variant)
    result = run_graded_cells(nb, only_test=variant.test)[variant.test]
    assert result.error is None, f"{variant.name!r} is correct but failed:\n{result.error}"


# Rules a resolved entry must pass: syntax errors, undefined names and the like (flake8's
# "serious" set). Style and unused results are not checked: a mistake may be a dropped result.
RESOLVED_RULES = "E9,F63,F7,F82"


def _lint_entries(notebook: str, entries, folder: Path) -> list[str]:
    """Each entry written into its answer cell, after the notebook's setup and answer cells:
    what does not parse, and what ruff finds (RESOLVED_RULES), named by entry."""
    nb = solution_notebook(notebook)
    cells = [c for c in nb.cells if c.cell_type == "code"]
    setup = [c.source for c in cells if "setup" in c.get("metadata", {}).get("tags", [])]
    answers = [
        strip_solution_markers(c.source)
        for c in cells
        if nbgrader_meta(c).get("solution")
        and not nbgrader_meta(c)["grade_id"].startswith("answer_")
    ]
    prefix = "\n\n".join([*setup, *answers]) + "\n\n"
    names, found = {}, []
    for index, variant in enumerate(entries):
        resolved = apply_variant(nb, variant)
        (cell,) = [c for c in resolved.cells if nbgrader_meta(c).get("grade_id") == variant.cell]
        source = strip_solution_markers(cell.source)
        try:
            ast.parse(source)
        except SyntaxError as err:
            found.append(f"{variant.cell}: {variant.name!r} does not parse: {err}")
            continue
        path = folder / f"entry_{index}.py"
        path.write_text(prefix + source + "\n")
        names[path.name] = f"{variant.cell}: {variant.name!r}"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--isolated",
            "--select",
            RESOLVED_RULES,
            "--output-format=concise",
            str(folder),
        ],
        capture_output=True,
        text=True,
    )
    found += [
        f"{names.get(Path(line.split(':')[0]).name, '?')}: {line.split(': ', 1)[-1]}"
        for line in result.stdout.splitlines()
        if line.startswith(str(folder))
    ]
    if result.returncode not in (0, 1):
        found.append(f"ruff failed: {result.stderr}")
    return found


@pytest.mark.parametrize("notebook", CATALOGUED)
def test_every_resolved_body_parses_and_passes_the_linter(notebook, tmp_path):
    """Each entry written into its answer cell is Python, and ruff finds no undefined name
    (a typo in a body fails here, not as a check failure that happens to show the hint)."""
    catalogue = load_catalogue(notebook)
    found = _lint_entries(notebook, [*catalogue.MISTAKES, *catalogue.ALTERNATIVES], tmp_path)
    assert not found, "\n".join(found)


def test_the_linter_names_an_entry_with_a_typo_or_a_syntax_error(tmp_path):
    typo = mistake("score_matrix", "typo", "return Q @ K.T / np.sqrt(d_kk)", hint="x")
    broken = alternative("score_matrix", "broken", "return Q @ K.T /")
    found = _lint_entries("01_attention_scores", [typo, broken], tmp_path)
    assert len(found) == 2, found
    assert "'broken' does not parse" in found[0]
    assert "score_matrix: 'typo': " in found[1] and "d_kk" in found[1]


# -- detectors: the hints of the checks, named by the catalogue -----------------------------
def _detector_texts() -> dict[str, str]:
    """Every detector of attnbook/checks: "nb01.HINT_SOFTMAX_AXIS" (or "HINT_LEFTOVER" for the
    shared ones) -> its text."""
    found = {name: text for name, text in detectors(checks._core).items()}
    for info in pkgutil.iter_modules(checks.__path__):
        if info.name.startswith("nb"):
            module = importlib.import_module(f"attnbook.checks.{info.name}")
            found |= {f"{info.name}.{name}": text for name, text in detectors(module).items()}
    return found


def _pattern(text: str) -> re.Pattern:
    """A detector's text as a pattern: a template's `{fields}` match any text."""
    return re.compile(re.sub(r"\\\{\w+(?:![rs])?\\\}", ".+?", re.escape(text)), re.DOTALL)


def _table_fallbacks() -> set[str]:
    """The detectors a case table gives when no known slip matches (`fallback_hints`): they
    are reached by construction, not by a catalogued mistake."""
    texts = set()
    for info in pkgutil.iter_modules(checks.__path__):
        if info.name.startswith("nb"):
            module = importlib.import_module(f"attnbook.checks.{info.name}")
            for cases in getattr(module, "CASES", {}).values():
                texts |= fallback_hints(cases)
    return {
        name
        for name, text in _detector_texts().items()
        if any(_pattern(text).fullmatch(given) for given in texts)
    }


@pytest.mark.parametrize("notebook", CATALOGUED)
def test_every_mistake_gives_a_hint_its_check_can_show(notebook):
    """`detects=` is a hint constant of the checks (a template filled in) or, for a concept
    question, its explanation. An own `hint=` belongs to a function whose checks are case
    tables (its known slips, generated from the entry, carry it), and is written once: a
    detector's text is named by `detects=`, entries that share a hint share a name at the top
    of the file, and a name there is given by more than one entry."""
    texts = _detector_texts()
    why = set(explained(notebook).values())
    patterns = [_pattern(t) for t in texts.values() if re.search(r"\{\w+(?:![rs])?\}", t)]
    tables = getattr(importlib.import_module(f"attnbook.checks.nb{notebook[:2]}"), "CASES", {})
    loose = []
    for v in load_catalogue(notebook).MISTAKES:
        named = v.hint in texts.values() or any(p.fullmatch(v.hint) for p in patterns)
        if v.detects is not None and not (named or v.detects in why):
            loose.append(f"{v.cell}: {v.name!r}: detects {v.detects!r}, no detector's text")
        elif v.detects is None and v.cell not in tables:
            loose.append(f"{v.cell}: {v.name!r}: an own hint= for a check without case tables")
        elif v.detects is None and named:
            loose.append(f"{v.cell}: {v.name!r}: hint= a detector's text (name it: detects=)")
    tree = ast.parse(Path(load_catalogue(notebook).__file__).read_text())
    shared = {  # HINT_X = "..." at the top of the file: a hint that several entries give
        node.targets[0].id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id.startswith("HINT_")
        and isinstance(node.value, ast.Constant)
    }
    own = [
        k.value.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        for k in node.keywords
        if k.arg == "hint" and isinstance(k.value, ast.Constant)
    ]
    written = [*shared.values(), *own]
    loose += [
        f"hint written twice: {t!r}" for t in sorted({t for t in written if written.count(t) > 1})
    ]
    uses = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    loose += [
        f"{name} is given by one entry: write it there" for name in shared if uses.count(name) < 2
    ]
    assert not loose, f"{notebook}: mistakes whose hint the checks cannot show:\n" + "\n".join(
        loose
    )


def test_every_detector_is_triggered_by_a_catalogued_mistake():
    """Each HINT_* of attnbook/checks is what some mistake detects (alone, filled in, or as
    part of a longer hint), and that mistake's failure shows it
    (test_mistake_loses_points_with_its_hint), or a case table falls back on it: no detector
    goes untested."""
    detected = [
        v.detects for notebook in CATALOGUED for v in load_catalogue(notebook).MISTAKES if v.detects
    ]
    untriggered = {
        name
        for name, text in _detector_texts().items()
        if not any(_pattern(text).search(d) for d in detected)
    } - _table_fallbacks()
    assert not untriggered, (
        "detectors no catalogued mistake triggers and no table falls back on (catalogue a "
        "mistake that shows each, or delete the probe):\n" + "\n".join(sorted(untriggered))
    )


# -- the entry form --------------------------------------------------------------------------
def _body(variant, notebook="01_attention_scores"):
    nb = apply_variant(solution_notebook(notebook), variant)
    return next(c.source for c in nb.cells if nbgrader_meta(c).get("grade_id") == variant.cell)


def test_edits_change_the_reference_body_without_its_comments():
    axis = mistake(
        "softmax_rows",
        "axis",
        edit("axis=-1", "axis=0", count=2),
        detects="normalise along the last axis: axis=-1",
    )
    source = _body(axis)
    assert "S.max(axis=0, keepdims=True)\n" in source and "e.sum(axis=0, keepdims=True)\n" in source
    assert "# (..., 1)" not in source  # the edited region loses the reference's comments
    lines = _body(
        alternative(
            "attention",
            "lines",
            [
                replace_line("Y = A @ V", "Y = A @ V\nY = Y + 0.0"),
                delete("A = softmax_rows"),
                insert_after("Y = Y + 0.0", "A = softmax_rows(score_matrix(Q, K))"),
            ],
        )
    )
    assert "    Y = A @ V\n    Y = Y + 0.0\n    A = softmax_rows(score_matrix(Q, K))\n" in lines


@pytest.mark.parametrize(
    "change",
    [
        edit("axis=7", "axis=0"),
        edit("axis=-1", "axis=0"),
        delete("row_max"),
        replace_line("no such line", "x"),
    ],
)
def test_an_edit_that_does_not_apply_fails_loudly_naming_the_entry(change):
    variant = mistake("softmax_rows", "a stale entry", change, hint="anything")
    with pytest.raises(
        CatalogueError,
        match=r"softmax_rows: 'a stale entry': .* expects 1 "
        r"occurrence.* found \d",
    ):
        _body(variant)


def test_given_edits_change_the_code_around_the_regions_only():
    """`given=` is a learner who changed the given code (notebook 11's constructors): it
    edits the cell outside its solution regions, and text inside a region is no target."""
    region = "    ### BEGIN SOLUTION\n    return x + y\n    ### END SOLUTION\n"
    source = "def f(x):\n    y = 2\n" + region
    changed = mistake("f", "given changed", given=edit("y = 2", "y = 3"), hint="y")
    assert variant_source(changed, source) == "def f(x):\n    y = 3\n    return x + y\n"
    (_, later), _ = catalogue([changed, mistake("f", "later", edit("x + y", "x * y"),
                                                like="given changed", hint="y")])  # fmt: skip
    assert variant_source(later, source) == "def f(x):\n    y = 3\n    return x * y\n"
    inside = mistake("f", "inside", given=edit("x + y", "x - y"), hint="y")
    wrong = r"f: 'inside': given=.*outside its solution regions\), found 0 there and 1 in a region"
    with pytest.raises(CatalogueError, match=wrong):
        variant_source(inside, source)


def test_like_names_another_entry_of_the_cell():
    base = alternative("score_matrix", "one line", "return Q @ K.T / np.sqrt(Q.shape[-1])")
    slip = mistake(
        "score_matrix",
        "no scaling",
        edit(" / np.sqrt(Q.shape[-1])", ""),
        like="one line",
        hint="sqrt",
    )
    mistakes, alternatives = catalogue([slip, base])
    assert [v.name for v in mistakes] == ["no scaling"] and alternatives == [base]
    assert "    return Q @ K.T\n" in _body(mistakes[0])
    with pytest.raises(CatalogueError, match="like='missing' names no entry"):
        catalogue([mistake("score_matrix", "x", edit("a", "b"), like="missing", hint="y")])
    with pytest.raises(CatalogueError, match="not linked"):
        _body(slip)  # like= without catalogue([...])
