"""Regenerate from the instructor source in solutions/ everything that derives from it.

    python scripts/release.py            # normalise solutions/, regenerate notebooks/ and
                                         # autograder/reference/
    python scripts/release.py --check    # exit 1 if anything is not what this would write
    python scripts/release.py --out DIR  # write the release somewhere else (used by tests)
    python scripts/release.py --force    # overwrite notebooks/ even where someone changed it
                                         # (their files are kept in work/backups/ first)

The solution notebook is the one source of every answer. From it come:

- the student notebooks in notebooks/: nbgrader's own generate_assignment (solutions cut,
  hidden tests removed, outputs cleared, checksums recorded), then one canonical form: no
  outputs, no execution counts, only nbgrader metadata and tags, stable cell ids;
- the grader's reference answers, autograder/reference/nbNN_topic.py: the imports of the
  setup cells, every answer cell's code with the solution markers removed, and `ANSWERS`
  built from the concept cells (the options of the visible check, the letter the solution
  region sets, the `# Why:` lines above it). Generated files say so and are checked for
  staleness like notebooks/.

notebooks/ is the release, never anyone's work (`make lab` works in work/), but a clone from
before work/ existed, or a learner who opened notebooks/ directly, may hold answers there. So
a file in notebooks/ that this release would overwrite or delete must be one a release made:
the version git has committed or staged, or the one the last release here wrote (recorded in
the git-ignored .release-record.json). Any other is someone's work: the release refuses and
names it, or with --force copies it to work/backups/ before going on.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import replace
from pathlib import Path

import nbformat
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "solutions"
NOTEBOOKS = ROOT / "notebooks"
AUTOGRADER = ROOT / "autograder"
RECORD = ROOT / ".release-record.json"
BACKUPS = ROOT / "work" / "backups"  # as make reset's (scripts/workspace.py)
KEEP_CELL_METADATA = ("nbgrader", "tags", "deletable", "editable")
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def assignments() -> list[str]:
    """Every solutions/NN_topic folder holding NN_topic.ipynb, in order."""
    from grader.course import assignments as course_assignments

    return course_assignments(ROOT)


# -- the reference answers -----------------------------------------------------------------
REFERENCE = AUTOGRADER / "reference"
_REGION = re.compile(
    r"^[ \t]*### BEGIN SOLUTION\n(.*?)^[ \t]*### END SOLUTION[ \t]*\n?", re.DOTALL | re.MULTILINE
)
_OPTIONS = re.compile(r"check_choice\(\s*\"(answer_\w+)\",\s*answer_\w+,\s*\"([A-Z]+)\"\s*\)")


def _meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def _unmarked(source: str) -> str:
    """The cell as a student who wrote the solution would have it: markers removed."""
    return _REGION.sub(lambda m: m.group(1), source)


def _setup_imports(nb, used: set[str]) -> list[str]:
    """The setup cells' imports of the names in `used`, one statement per line."""
    lines = []
    for cell in nb.cells:
        if cell.cell_type != "code" or "setup" not in cell.get("metadata", {}).get("tags", []):
            continue
        for node in ast.parse(cell.source).body:
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            names = [a for a in node.names if (a.asname or a.name).split(".")[0] in used]
            if names:
                node.names = names
                lines.append(ast.unparse(node))
    return lines


def _names_read(sources: list[str]) -> set[str]:
    return {
        node.id
        for source in sources
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Name)
    }


def _names_imported(source: str) -> set[str]:
    """The names `source` binds by its own import statements (a mutant's `import torch`)."""
    return {
        (alias.asname or alias.name).split(".")[0]
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }


def _concept(cell, options: dict[str, str]) -> tuple[str, tuple[str, str, str]]:
    """(name, (options, letter, why)) of a concept answer cell."""
    name = _meta(cell)["grade_id"]
    body = _REGION.search(cell.source).group(1)
    letter = re.search(rf'^{name}\s*=\s*"([A-Z])"', body, re.MULTILINE)
    why = " ".join(
        line.lstrip("#").strip().removeprefix("Why:").strip()
        for line in body.splitlines()
        if line.lstrip().startswith("#")
    )
    if letter is None or not why or name not in options:
        raise ValueError(
            f"{name}: a concept cell needs its letter, a `# Why:` comment in its "
            "solution region and a check_choice test cell with its options"
        )
    return name, (options[name], letter.group(1), why)


def reference_source(notebook: str) -> str:
    """The text of autograder/reference/nb<notebook>.py, made from the solution notebook."""
    nb = nbformat.read(SOLUTIONS / notebook / f"{notebook}.ipynb", as_version=4)
    options = dict(
        m
        for c in nb.cells
        if c.cell_type == "code" and _meta(c).get("grade")
        for m in _OPTIONS.findall(c.source)
    )
    answers, code = {}, []
    for cell in nb.cells:
        meta = _meta(cell)
        if cell.cell_type != "code" or not meta.get("solution"):
            continue
        if meta["grade_id"].startswith("answer_"):
            name, entry = _concept(cell, options)
            answers[name] = entry
        else:
            code.append(
                f"# -- from the answer cell {meta['grade_id']}\n"
                + _unmarked(cell.source).strip()
                + "\n"
            )
    entries = "".join(f"    {name!r}: {entry!r},\n" for name, entry in answers.items())
    mutants = mutant_source(notebook)[0]
    parts = [
        f'"""Reference answers for notebook {notebook}: generated, do not edit.\n\n'
        f"Made by scripts/release.py (`make release`) from the answer cells of\n"
        f"solutions/{notebook}/{notebook}.ipynb. Used by the hidden tests and the project's\n"
        f'own tests; never shipped to students.\n"""',
        # the resolved mistakes (`mutant_source`) are wrong on purpose: unused results and such
        f"# ruff: noqa: E501, I001{', F841, UP034' if mutants else ''}\n"
        # the setup's imports the answers read, and the mistakes too (F in a mutant of 05)
        + "\n".join(
            _setup_imports(
                nb, _names_read(code) | (_names_read([mutants]) - _names_imported(mutants))
            )
        ),
        "# name: (options, correct letter, explanation shown when the answer is wrong)\n"
        f"ANSWERS = {{\n{entries}}}",
        *code,
    ]
    parts += [mutants] if mutants else []
    return "\n\n\n".join(part.strip("\n") for part in parts) + "\n"


# -- the known slips: every catalogued mistake run on every visible case --------------------
SLIP_DATA = ROOT / "attnbook" / "checks" / "slips"


class UntoldSlip(ValueError):
    """A catalogued mistake that no visible case of the checks tells apart from the reference."""


def _checks_module(notebook: str):
    """attnbook.checks.nbNN of `NN_topic`, if its checks are case tables (`CASES`)."""
    import importlib

    module = importlib.import_module(f"attnbook.checks.nb{notebook[:2]}")
    return module if hasattr(module, "CASES") else None


def mutant_source(notebook: str) -> tuple[str, list[tuple[str, str, str, str]]]:
    """The catalogued mistakes of the functions with case tables, resolved: the source of each
    as a function `_slip_<function>_<n>`, and the `SLIPS` table that lists them."""
    from grader.catalogue import load_catalogue, solution_notebook, variant_source

    module = _checks_module(notebook)
    if module is None:
        return "", []
    cells = {_meta(c).get("grade_id"): c.source for c in solution_notebook(notebook).cells}
    defs, table = [], []
    counts: dict[str, int] = {}
    for variant in load_catalogue(notebook).MISTAKES:
        if variant.cell not in module.CASES:
            continue
        source = cells[variant.cell]
        tree = ast.parse(variant_source(variant, source))
        number = counts[variant.cell] = counts.get(variant.cell, -1) + 1
        slip = f"_slip_{variant.cell}_{number}"
        fn, *helpers = _renamed(tree, variant.cell, slip)
        defs.append(
            f"# {variant.cell}: {variant.name}\n"
            + "\n\n".join(ast.unparse(d) for d in (*helpers, fn))
        )
        table.append((variant.cell, variant.name, variant.hint, fn.name))
    by_cell: dict[str, list[str]] = {}
    for cell, name, hint, slip in table:
        by_cell.setdefault(cell, []).append(f"        ({name!r}, {hint!r}, {slip}),\n")
    entries = "".join(f"    {cell!r}: [\n{''.join(r)}    ],\n" for cell, r in by_cell.items())
    text = (
        "# -- the catalogued mistakes (autograder/mistakes/), resolved: the hidden trials run\n"
        "# them on their inputs to name the slip a wrong output matches\n"
        + "\n\n".join(defs)
        + "\n\n\n# function: [(mistake, its hint, the mistake as a function)]\n"
        + f"SLIPS = {{\n{entries}}}\n"
    )
    return text, table


def _renamed(tree: ast.Module, graded: str, slip: str) -> list:
    """The edited cell's definitions as a slip's: the graded one named `slip` (its docstring
    dropped), first; the cell's other classes and functions (the blocks an EncoderDecoder
    uses) named `slip_<name>`, and every use of them in the cell renamed to match, so the slip
    runs its own edited helpers."""
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)]
    names = {d.name: slip if d.name == graded else f"{slip}_{d.name}" for d in defs}

    class Rename(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.Name:
            node.id = names.get(node.id, node.id)
            return node

    for d in defs:
        Rename().visit(d)
        d.name = names[d.name]
    (fn,) = [d for d in defs if d.name == slip]
    if fn.body and isinstance(fn.body[0], ast.Expr) and isinstance(fn.body[0].value, ast.Constant):
        fn.body = fn.body[1:] or [ast.Pass()]
    return [fn, *(d for d in defs if d is not fn)]


def _comparable(seen, reference) -> bool:
    """Same structure and shapes: a value a check compares (NaN and infinities included: the
    checks name a slip whose output holds them)."""
    if isinstance(reference, tuple | list):
        return (
            isinstance(seen, tuple | list)
            and len(seen) == len(reference)
            and all(_comparable(s, r) for s, r in zip(seen, reference))
        )
    from attnbook.checks._core import as_array

    try:
        a, b = as_array(seen), as_array(reference)
    except Exception:
        return False
    return a.dtype.kind in "fiub" and a.shape == b.shape


def _differs(seen, reference, tol) -> bool:
    from attnbook.checks._core import _allclose, as_array

    if isinstance(reference, tuple | list):
        return any(_differs(s, r, tol) for s, r in zip(seen, reference))
    return not _allclose(as_array(seen), as_array(reference), tol.rtol, tol.atol)


def _outcome(fn, case):
    """(what a call of `fn` on the case's inputs gave, error or None, arguments changed)."""
    import copy as _copy

    from attnbook.checks._cases import call_local
    from attnbook.checks._core import same_value

    args, kwargs = _copy.deepcopy(case.args), _copy.deepcopy(case.keywords)
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a wrong program's deprecations are not news
            result = call_local(fn, case, args, kwargs)
    except Exception as err:
        return None, err, False
    changed = not all(same_value(a, b) for a, b in zip(case.args, args))
    return result, None, changed or not same_value(case.keywords, kwargs)


def _fails_inspection(cls, case) -> bool:
    """Whether a module case's check of the module's structure (`Build.inspect`) fails on
    the module `cls` makes."""
    from attnbook.checks._cases import built_locally
    from attnbook.checks._core import CheckRun

    build = case.build
    try:
        build.inspect(CheckRun(cls), build.call, built_locally(cls, replace(build, tensors=None)))
    except Exception:  # a CheckFailure, or a module the inspection cannot read
        return True
    return False


def _fails_before(fn, case, seen) -> bool:
    """Whether the case's check of the raw output (`Case.before`) fails on `seen`."""
    from attnbook.checks._core import CheckFailure, CheckRun

    run = CheckRun(fn)
    try:
        case.before(run, case, seen)  # a failed expectation raises at once
    except CheckFailure:
        return True
    return False


def _told_apart(mutant, reference, case):
    """How the first visible case tells a mistake apart: None (it does not), "value" with the
    wrong output, or "other" (it raises, changes its input, or returns another shape)."""
    from attnbook.checks._cases import case_tolerance

    if case.build is not None and case.build.inspect is not None:
        if _fails_inspection(mutant, case):
            return "other", None  # e.g. a layer with a bias, or another layer's name
    ref, ref_error, _ = _outcome(reference, case)
    seen, error, changed = _outcome(mutant, case)
    if changed or (error is None) != (ref_error is None):
        return "other", None
    if error is not None:
        return (None, None) if type(error) is type(ref_error) else ("other", None)
    if case.before is not None and _fails_before(mutant, case, seen):
        return "other", None  # e.g. a numpy array where the case wants a tensor
    if case.scalar:  # one number, whatever holds it (a float, a 0-d or 1-element tensor)
        from attnbook.checks._cases import one_number

        seen, ref = (v if (n := one_number(v)) is None else n for v in (seen, ref))
    if case.whole:  # stored whatever its shapes: the check names it before reading them
        single = case.returns is None
        seen_parts, ref_parts = ((seen,), (ref,)) if single else (seen, ref)
        if _parts_comparable(seen_parts, ref_parts):
            how, parts = _whole_slip(seen_parts, ref_parts, case)
            return (how, parts[0] if single and parts is not None else parts)
    if not _comparable(seen, ref):
        shown = case.compares_values or case.shape is not None
        return ("other", None) if shown else (None, None)
    if not case.compares_values or not _differs(seen, ref, case_tolerance(case, ref)):
        dtype = str(getattr(seen, "dtype", "")) != str(getattr(ref, "dtype", ""))
        return ("other", None) if dtype and case.probe is not None else (None, None)
    if isinstance(ref, tuple | list):  # the parts a slip gets right are not stored
        seen = tuple(
            s if _differs(s, r, case_tolerance(case, r)) else None for s, r in zip(seen, ref)
        )
    return "value", seen


def _parts_comparable(seen, ref) -> bool:
    """A tuple of as many numeric arrays as the reference's, whatever their shapes."""
    from attnbook.checks._core import as_array

    if not (isinstance(seen, tuple | list) and isinstance(ref, tuple | list)):
        return False
    try:
        return len(seen) == len(ref) and all(as_array(s).dtype.kind in "fiub" for s in seen)
    except Exception:  # a part that is not an array
        return False


def _whole_slip(seen, ref, case):
    """A slip a check names from all parts at once (`Case.whole`), before reading their
    shapes: its parts of another shape or value are stored, the right ones as None."""
    from attnbook.checks._cases import case_tolerance

    parts = tuple(
        None if _comparable(s, r) and not _differs(s, r, case_tolerance(case, r)) else s
        for s, r in zip(seen, ref)
    )
    return (None, None) if all(p is None for p in parts) else ("value", parts)


def slip_data(notebook: str, namespace: dict) -> dict:
    """function -> case id -> [(mistake, its hint, its output)]: each catalogued mistake's output
    on the first visible case that tells it apart from the reference (when that case compares
    values); a mistake that none tells apart raises UntoldSlip ("add a case")."""
    module = _checks_module(notebook)
    data: dict = {}
    untold = []
    # detectors a check raises from a property of the code (e.g. "calls the loop") or of
    # many calls (sampling), not from one output: their mistakes need no case that tells them
    # apart by value
    from attnbook.checks._core import HINT_BACKWARD_IN_PLACE, HINT_KEEP_GRAPH  # by property

    by_property = {getattr(module, name) for name in getattr(module, "PROPERTY_DETECTORS", ())}
    by_property |= {HINT_KEEP_GRAPH, HINT_BACKWARD_IN_PLACE}
    for function, cases in module.CASES.items():
        data[function] = {}
        for name, hint, mutant in namespace["SLIPS"].get(function, ()):
            if hint in by_property:
                continue
            for case in cases:
                how, output = _told_apart(namespace[mutant.__name__], namespace[function], case)
                if how is None:
                    continue
                stored = data[function].setdefault(case.id, [])
                if how == "value" and not any(
                    h == hint and _same_output(o, output, case, _output_tolerance)
                    for _, h, o in stored
                ):  # a float32 twin of a stored slip is named by it
                    stored.append((name, hint, output))
                break
            else:
                untold.append(f"{function}: {name!r}")
    if untold:
        raise UntoldSlip(
            f"{notebook}: no visible case of attnbook/checks/nb{notebook[:2]}.py tells these "
            "catalogued mistakes apart from the reference (add a case):\n  " + "\n  ".join(untold)
        )
    return {f: {c: s for c, s in d.items() if s} for f, d in data.items() if any(d.values())}


def _output_tolerance(case, expected):
    from attnbook.checks._cases import case_tolerance

    return case_tolerance(case, expected)


def _literal(value, indent: str) -> str:
    """A stored output as Python literals: floats by repr, one innermost row per line."""
    if value is None:
        return "None"
    if (
        isinstance(value, tuple | list)
        and not hasattr(value, "shape")
        and any(v is None or hasattr(v, "shape") or isinstance(v, tuple) for v in value)
    ):
        inner = indent + "    "
        return "(\n" + "".join(f"{inner}{_literal(v, inner)},\n" for v in value) + indent + ")"
    from attnbook.checks._core import as_array

    array = as_array(value)
    kind = bool if array.dtype == bool else float  # masks stay booleans
    array = array.astype(kind if kind is bool else np.float64)
    if array.ndim <= 1:
        return repr([kind(x) for x in np.atleast_1d(array)]) if array.ndim else repr(kind(array))
    inner = indent + "    "
    return "[\n" + "".join(f"{inner}{_literal(row, inner)},\n" for row in array) + indent + "]"


def slip_source(notebook: str, data: dict) -> str:
    lines = [
        f'"""The known slips of notebook {notebook}\'s visible checks: generated, do not edit.\n\n'
        f"Made by scripts/release.py (`make release`): each mistake of the grader's catalogue\n"
        f"of notebook {notebook[:2]}, run on the visible cases of\n"
        f"attnbook/checks/nb{notebook[:2]}.py; its output (a wrong program's, on visible inputs)\n"
        "on the first case that tells it apart from the reference, None for a part it gets\n"
        'right. A check names the slip whose output a learner\'s matches.\n"""\n',
        "# ruff: noqa: E501\n",
        *(
            ["from math import inf, nan  # noqa: F401 (outputs that hold them)\n"]
            if _non_finite(data)
            else []
        ),
        "# function: {case id: [(mistake, its hint, its output)]}",
        "SLIPS = {",
    ]
    for function, cases in data.items():
        lines.append(f"    {function!r}: {{")
        for case_id, slips in cases.items():
            lines.append(f"        {case_id!r}: [")
            for name, hint, output in slips:
                lines.append(f"            ({name!r}, {hint!r}, {_literal(output, ' ' * 12)}),")
            lines.append("        ],")
        lines.append("    },")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _non_finite(value) -> bool:
    """Whether a stored output (or a table of them) holds NaN or an infinity."""
    from attnbook.checks._core import as_array

    if isinstance(value, dict):
        return any(_non_finite(v) for v in value.values())
    if isinstance(value, tuple | list) and not hasattr(value, "shape"):
        if value and isinstance(value[0], str):  # (mistake, hint, output)
            return _non_finite(value[-1])
        if any(v is None or hasattr(v, "shape") or isinstance(v, tuple | list) for v in value):
            return any(_non_finite(v) for v in value if v is not None)
    if value is None or isinstance(value, str):
        return False
    array = as_array(value)
    return array.dtype.kind in "fc" and not bool(np.all(np.isfinite(array)))


def _same_slips(stored: dict, fresh: dict, notebook: str) -> bool:
    """Stored and freshly generated slips agree: the same mistakes, hints and cases, the
    outputs within the checks' tolerance (another machine's last bits are not staleness)."""
    from attnbook.checks._cases import case_tolerance

    module = _checks_module(notebook)
    cases = {(f, c.id): c for f, table in module.CASES.items() for c in table}
    if stored.keys() != fresh.keys():
        return False
    for function in fresh:
        if stored[function].keys() != fresh[function].keys():
            return False
        for case_id, slips in fresh[function].items():
            old = stored[function][case_id]
            if [(n, h) for n, h, _ in old] != [(n, h) for n, h, _ in slips]:
                return False
            for (_, _, a), (_, _, b) in zip(old, slips):
                if not _same_output(a, b, cases[function, case_id], case_tolerance):
                    return False
    return True


def _same_output(a, b, case, tol_of) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(b, tuple):
        return (
            isinstance(a, tuple)
            and len(a) == len(b)
            and all(_same_output(x, y, case, tol_of) for x, y in zip(a, b))
        )
    from attnbook.checks._core import _allclose, as_array

    x, y = as_array(a).astype(np.float64), as_array(b).astype(np.float64)
    tol = tol_of(case, y)  # from y's finite values
    return _allclose(x, y, tol.rtol, tol.atol, equal_nan=True)  # NaN where the other has NaN


class _NonFinite(ast.NodeTransformer):
    """The names `nan` and `inf` of the generated data as the floats they stand for."""

    def visit_Name(self, node: ast.Name) -> ast.AST:  # noqa: N802 (the visitor's name)
        if node.id in ("nan", "inf"):
            return ast.copy_location(ast.Constant(float(node.id)), node)
        return node


def _literal_value(node: ast.expr):
    """A stored SLIPS table: Python literals, NaN and infinities written as nan and inf."""
    return ast.literal_eval(_NonFinite().visit(node))


def write_slips(check: bool, references: dict[str, str]) -> list[str]:
    """Regenerate attnbook/checks/slips/ from the references' mistakes; the files that were
    (or, with check, would be) changed, added or removed."""
    import types

    changed, wanted = [], set()
    for notebook, text in references.items():
        if _checks_module(notebook) is None:
            continue
        namespace = types.ModuleType(f"attnbook_release_nb{notebook}").__dict__
        exec(compile(text, f"<reference {notebook}>", "exec"), namespace)
        data = slip_data(notebook, namespace)
        path = SLIP_DATA / f"nb{notebook[:2]}.py"
        wanted.add(path.name)
        stored = None
        if path.is_file():
            try:
                tree = ast.parse(path.read_text())
                stored = next(
                    _literal_value(node.value)
                    for node in tree.body
                    if isinstance(node, ast.Assign)
                    and [getattr(t, "id", None) for t in node.targets] == ["SLIPS"]
                )
            except (SyntaxError, ValueError, StopIteration):
                stored = None
        text = slip_source(notebook, data)
        head = text.split("\nSLIPS = {")[0]  # the words around the data, compared as text
        if stored is not None and path.read_text().startswith(head + "\nSLIPS = {"):
            if _same_slips(stored, data, notebook):
                continue
        changed.append(f"attnbook/checks/slips/{path.name}")
        if not check:
            path.write_text(text)
    for path in SLIP_DATA.glob("nb*.py"):
        if path.name not in wanted:
            changed.append(f"attnbook/checks/slips/{path.name}")
            if not check:
                path.unlink()
    return changed


def write_references(check: bool) -> list[str]:
    """Regenerate autograder/reference/ and, from its mistakes, attnbook/checks/slips/; the
    files that were (or, with check, would be) changed, added or removed."""
    texts = {a: reference_source(a) for a in assignments()}
    wanted = {f"nb{a}.py": text for a, text in texts.items()}
    changed = write_slips(check, texts)
    for name, text in wanted.items():
        path = REFERENCE / name
        if not path.is_file() or path.read_text() != text:
            changed.append(name)
            if not check:
                path.write_text(text)
    for path in REFERENCE.glob("nb*.py"):
        if path.name not in wanted:
            changed.append(path.name)
            if not check:
                path.unlink()
    return changed


def canonical(nb: nbformat.NotebookNode) -> str:
    """The one stored form of a notebook, as text."""
    nb.metadata = nbformat.from_dict(
        {
            "kernelspec": KERNELSPEC,
            "language_info": {"name": "python"},
        }
    )
    nb.nbformat, nb.nbformat_minor = 4, 5
    for index, cell in enumerate(nb.cells):
        cell.metadata = nbformat.from_dict(
            {k: v for k, v in cell.metadata.items() if k in KEEP_CELL_METADATA}
        )
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        cell["id"] = grade_id or f"cell-{index:03d}"
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    nbformat.validate(nb)
    text = nbformat.writes(nb, version=4)
    return text if text.endswith("\n") else text + "\n"


def normalise(path: Path, check: bool) -> bool:
    """Rewrite `path` in canonical form; with check, only report. True if it changed."""
    text = path.read_text()
    new = canonical(nbformat.reads(text, as_version=4))
    if new == text:
        return False
    if not check:
        path.write_text(new)
    return True


# A tree that `generate` made before from the same inputs, to be copied instead of running
# nbgrader again (the test suite sets it: its session's release, for `make release` in a
# clone); used only when the digest written beside it (`<tree>.inputs`) is `inputs_digest()`.
REUSE_ENV = "ATTNBOOK_RELEASE_REUSE"


def inputs_digest() -> str:
    """What `generate` reads, by its bytes: every file of solutions/ (nbgrader copies an
    assignment's whole folder), the nbgrader configuration, this script, nbgrader's version."""
    import nbgrader

    digest = hashlib.sha256(f"nbgrader {nbgrader.__version__}\0".encode())
    inputs = [
        (f"solutions/{path.relative_to(SOLUTIONS).as_posix()}", path)
        for path in sorted(SOLUTIONS.rglob("*"))
        if path.is_file() and not {".ipynb_checkpoints", "__pycache__"} & set(path.parts)
    ]
    inputs += [
        ("autograder/nbgrader_config.py", AUTOGRADER / "nbgrader_config.py"),
        ("scripts/release.py", Path(__file__)),
    ]
    for name, path in inputs:
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def reusable_tree() -> Path | None:
    """The tree $ATTNBOOK_RELEASE_REUSE names, if it was made from this checkout's inputs."""
    named = os.environ.get(REUSE_ENV, "")
    if not named:
        return None
    tree = Path(named)
    stamp = tree.with_name(tree.name + ".inputs")
    if tree.is_dir() and stamp.is_file() and stamp.read_text().strip() == inputs_digest():
        return tree
    return None


def generate(out: Path) -> None:
    """Run nbgrader generate_assignment for every assignment into `out`."""
    reuse = reusable_tree()
    if reuse is not None:
        shutil.copytree(reuse, out)
        return
    for assignment in assignments():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "nbgrader",
                "generate_assignment",
                assignment,
                "--force",
                "--no-db",
                f"--CourseDirectory.release_directory={out}",
                "--log-level=WARN",
            ],
            cwd=AUTOGRADER,
            check=True,
        )
    for path in out.glob("*/*.ipynb"):
        normalise(path, check=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check",
        action="store_true",
        help="change nothing; exit 1 if solutions/ or notebooks/ is stale",
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="write the release here instead of notebooks/"
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="overwrite files in notebooks/ that no release made (kept in work/backups/)",
    )
    args = parser.parse_args(argv)

    stale = [p for p in sorted(SOLUTIONS.glob("*/*.ipynb")) if normalise(p, args.check)]
    if args.check and stale:
        print(
            "solutions not in canonical form (run `make release`):",
            *[str(p.relative_to(ROOT)) for p in stale],
            sep="\n  ",
        )
        return 1
    references = write_references(args.check and args.out is None)
    if args.check and args.out is None and references:
        print(
            "autograder/reference/ or attnbook/checks/slips/ is stale (run `make release`):",
            *references,
            sep="\n  ",
        )
        return 1
    target = args.out or NOTEBOOKS
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "release"
        generate(fresh)
        if args.check:
            differ = _differences(fresh, NOTEBOOKS)
            if differ:
                print("notebooks/ is stale (run `make release`):", *differ, sep="\n  ")
                return 1
            print(f"notebooks/ is up to date ({len(assignments())} notebooks).")
            return 0
        if args.out is None:
            theirs = learner_changes(fresh, target)
            if theirs and not args.force:
                print(
                    "release: refusing to overwrite files in notebooks/ that no release made; "
                    "they may hold someone's work:",
                    *theirs,
                    sep="\n  ",
                    file=sys.stderr,
                )
                print(
                    "Your own notebooks belong in work/ (`make lab` copies notebooks/ there, "
                    "these changes included, and never overwrites a file). Then run "
                    "`make release FORCE=1`: it keeps a copy of each file above in "
                    "work/backups/ and releases.",
                    file=sys.stderr,
                )
                return 1
            for name in theirs:
                kept = backup(target / name)
                print(f"kept {name} as {kept.relative_to(ROOT)}")
        _sync(fresh, target)
        if args.out is None:
            record(target)
    print(f"released {len(assignments())} notebooks into {target}")
    return 0


def _sync(fresh: Path, target: Path) -> None:
    """Make `target` equal to `fresh`, writing only what changed, one file at a time, so a
    notebook open or running in notebooks/ is never deleted from under it."""
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(fresh.rglob("*")):
        dest = target / path.relative_to(fresh)
        if path.is_dir():
            dest.mkdir(exist_ok=True)
        elif not dest.is_file() or dest.read_bytes() != path.read_bytes():
            tmp = dest.with_name(dest.name + ".tmp")
            shutil.copyfile(path, tmp)
            tmp.replace(dest)
    for path in sorted(target.rglob("*"), reverse=True):
        if ".ipynb_checkpoints" in path.parts:
            continue
        if not (fresh / path.relative_to(target)).exists():
            shutil.rmtree(path) if path.is_dir() else path.unlink()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _git_versions(target: Path) -> dict[str, set[str]]:
    """Path under `target` -> the git blob ids of its versions in HEAD and in the index
    (empty when this is no git checkout)."""
    versions: dict[str, set[str]] = {}
    for command in (["ls-tree", "-r", "--full-name", "HEAD"], ["ls-files", "--stage"]):
        try:
            listing = subprocess.run(
                ["git", *command, "--", str(target)],
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        except (OSError, subprocess.CalledProcessError):
            continue
        for line in listing.splitlines():
            info, _, name = line.partition("\t")
            fields = info.split()
            if len(fields) == 3 and name:
                blob = fields[2] if command[0] == "ls-tree" else fields[1]
                key = (ROOT / name).relative_to(target).as_posix()
                versions.setdefault(key, set()).add(blob)
    return versions


def _git_blob_ids(paths: list[Path]) -> list[str]:
    """The ids git would give these files' contents (its filters applied), or "" each."""
    try:
        return subprocess.run(
            ["git", "hash-object", "--", *map(str, paths)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        return [""] * len(paths)


def _recorded() -> dict[str, str]:
    """relative path -> sha256 of what the last release here wrote into notebooks/."""
    try:
        record = json.loads(RECORD.read_text(encoding="utf-8"))
        return {k: v for k, v in record.get("files", {}).items() if isinstance(v, str)}
    except (OSError, ValueError, AttributeError):
        return {}


def record(target: Path) -> None:
    """Remember what this release wrote into `target` (.release-record.json)."""
    files = {
        path.relative_to(target).as_posix(): _sha256(path.read_bytes())
        for path in sorted(target.rglob("*"))
        if path.is_file() and ".ipynb_checkpoints" not in path.parts
    }
    partial = RECORD.with_name(RECORD.name + ".tmp")
    partial.write_text(json.dumps({"files": files}, indent=1) + "\n", encoding="utf-8")
    partial.replace(RECORD)


def learner_changes(fresh: Path, target: Path) -> list[str]:
    """The files under `target` that releasing `fresh` would overwrite or delete and that
    no release made: neither git's committed or staged version, nor what the last release
    here wrote. Jupyter's checkpoints are never touched, so never counted."""
    recorded, candidates = _recorded(), []
    for path in sorted(target.rglob("*")):
        if not path.is_file() or ".ipynb_checkpoints" in path.parts:
            continue
        name = path.relative_to(target).as_posix()
        new = fresh / name
        data = path.read_bytes()
        if new.is_file() and new.read_bytes() == data:
            continue  # the release writes what is there: nothing to lose
        if recorded.get(name) != _sha256(data):
            candidates.append((name, path))
    if not candidates:
        return []
    versions = _git_versions(target)
    ids = _git_blob_ids([path for _, path in candidates])
    if len(ids) != len(candidates):  # git said something else: trust none of it
        ids = [""] * len(candidates)
    return [
        name
        for (name, _), blob in zip(candidates, ids, strict=True)
        if not blob or blob not in versions.get(name, set())
    ]


def backup(path: Path) -> Path:
    """Copy `path` to work/backups/<name>-<YYYY-MM-DDTHHMM>[-n]<suffix>; return the copy."""
    stamp = time.strftime("%Y-%m-%dT%H%M")
    BACKUPS.mkdir(parents=True, exist_ok=True)
    kept, count = BACKUPS / f"{path.stem}-{stamp}{path.suffix}", 2
    while kept.exists():
        kept, count = BACKUPS / f"{path.stem}-{stamp}-{count}{path.suffix}", count + 1
    shutil.copy2(path, kept)
    return kept


def _differences(fresh: Path, stored: Path) -> list[str]:
    names = {p.relative_to(fresh) for p in fresh.rglob("*") if p.is_file()}
    names |= {
        p.relative_to(stored)
        for p in stored.rglob("*")
        if p.is_file() and ".ipynb_checkpoints" not in p.parts
    }
    return sorted(
        str(n)
        for n in names
        if not (fresh / n).is_file()
        or not (stored / n).is_file()
        or (fresh / n).read_bytes() != (stored / n).read_bytes()
    )


if __name__ == "__main__":
    sys.exit(main())
