"""The mistake catalogue: realistic wrong answers and correct answers written differently.

Each notebook NN_topic has `autograder/mistakes/nbNN_topic.py` with two lists:
`MISTAKES` (every one must lose the points of its test cell, with its hint in the failure
message) and `ALTERNATIVES` (correct answers written another way: every one must
pass). A variant replaces the solution regions of one answer cell of the solution notebook
with its own code, exactly as a student's submission would.

A variant is written in one of two ways:

- as edits of a base (the usual form): `mistake("softmax_rows", "softmax over the wrong
  axis", edit("axis=-1", "axis=0", count=2), detects=nb01.HINT_SOFTMAX_AXIS)`. The base is
  the reference body, i.e. the solution regions of the answer cell (what
  `autograder/reference/` holds), without its comments; or `base=` a shared body (a string,
  or a tuple with one item per region, None for the reference region) or another entry.
  Every edit names text that must occur exactly once (or `count` times) in the body it
  edits, else the variant fails loudly with a `CatalogueError` naming it;
- as a full body (a string, or a tuple with one body per solution region, None keeping the
  reference region), for an answer that is a rewrite rather than a slip.

A mistake may also change the cell's given code around the regions (`given=` edits: a
learner who changed notebook 11's given constructors); its text must occur there, not in a
region.

A mistake gives the hint its failure message must show, in one of two ways:

- its own, `hint="the text"`, for a function whose checks are case tables: the entry is the
  slip's one home. `make release` runs the mistake on the visible cases and writes its
  output and this hint into `attnbook/checks/slips/` (and the mistake itself, for hidden
  trials, into `autograder/reference/`), so a learner whose output matches it reads it;
- a detector of the checks, `detects=nbNN.HINT_*` (a template filled with `.format`): a hint
  that a check's own code gives (a crash, a shape, a property of the code or of many calls),
  which several slips may share; a concept question's mistake detects its explanation
  (`detects=explained("NN_topic")`).
"""

from __future__ import annotations

import ast
import contextlib
import copy
import dataclasses
import importlib.util
import io
import linecache
import re
import textwrap
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import nbformat

AUTOGRADER = Path(__file__).resolve().parents[1]
ROOT = AUTOGRADER.parent
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
_REGION = re.compile(
    r"^([ \t]*)### BEGIN SOLUTION\n.*?^[ \t]*### END SOLUTION[ \t]*\n?", re.DOTALL | re.MULTILINE
)


class CatalogueError(ValueError):
    """A catalogue entry that does not apply to the body it edits (or is ill-formed)."""


@dataclass(frozen=True)
class Edit:
    """One change of a body; `old` must occur exactly `count` times in it.

    kind "text" replaces the text `old` by `new` (both may span lines); the other kinds work
    on whole lines, the lines containing `old`: "line" replaces each by the lines of `new`,
    "after"/"before" insert the lines of `new` after/before each, "delete" removes each. New
    lines take the indentation of the line they replace or sit next to, plus their own.
    """

    kind: str
    old: str
    new: str = ""
    count: int = 1

    def __repr__(self) -> str:
        call = {
            "text": "edit",
            "line": "replace_line",
            "after": "insert_after",
            "before": "insert_before",
            "delete": "delete",
        }[self.kind]
        args = [repr(self.old)] + ([repr(self.new)] if self.kind != "delete" else [])
        return f"{call}({', '.join(args + ([f'count={self.count}'] if self.count != 1 else []))})"

    def found(self, body: str) -> int:
        if self.kind == "text":
            return body.count(self.old)
        return sum(self.old in line for line in body.split("\n"))

    def apply(self, body: str) -> str:
        if self.kind == "text":
            return body.replace(self.old, self.new)
        out = []
        for line in body.split("\n"):
            if self.old not in line:
                out.append(line)
                continue
            pad = line[: len(line) - len(line.lstrip())]
            new = [pad + n if n else n for n in self.new.split("\n")]
            out += {"line": new, "after": [line, *new], "before": [*new, line], "delete": []}[
                self.kind
            ]
        return "\n".join(out)


def edit(old: str, new: str, count: int = 1) -> Edit:
    """Replace the text `old` (found `count` times) by `new`: `edit("axis=-1", "axis=0")`."""
    return Edit("text", old, new, count)


def replace_line(old: str, new: str, count: int = 1) -> Edit:
    """Replace the line containing `old` by the line(s) `new`, at its indentation."""
    return Edit("line", old, new, count)


def insert_after(old: str, new: str, count: int = 1) -> Edit:
    """Insert the line(s) `new` after the line containing `old`, at its indentation."""
    return Edit("after", old, new, count)


def insert_before(old: str, new: str, count: int = 1) -> Edit:
    """Insert the line(s) `new` before the line containing `old`, at its indentation."""
    return Edit("before", old, new, count)


def delete(old: str, count: int = 1) -> Edit:
    """Delete the line containing `old`."""
    return Edit("delete", old, "", count)


Bodies = tuple  # one item per solution region: its code, or None for the reference region


@dataclass(frozen=True)
class Variant:
    """One way of filling in answer cell `cell`; `test` is the test cell it is judged by.

    `bodies` is the full-body form (one per region, None keeps the reference region);
    `given` edits the cell's given code outside the regions (a learner who changed it);
    `edits` (applied to `base`: None for the reference body, a shared body, or another
    Variant, which `catalogue` links from `like`, the name of another entry of the cell) is
    the edit form. `hint` is the text the failure message must contain: the mistake's own
    or its detector's (`detects`).
    """

    cell: str
    name: str
    bodies: Bodies | None
    test: str
    hint: str = ""
    edits: tuple[Edit, ...] = ()
    base: object = None
    detects: str | None = field(default=None, compare=False)
    like: str | None = None
    given: tuple[Edit, ...] = ()  # edits of the given code around the regions (its constructors)

    def resolve(self, reference: Bodies) -> Bodies:
        """The bodies this variant writes into the cell whose solution regions (their text,
        dedented) are `reference`."""
        if self.bodies is not None:
            bodies = self.bodies
        elif self.like is not None and self.base is None:
            raise CatalogueError(
                f"{self.cell}: {self.name!r}: like={self.like!r} is not "
                "linked to its entry: build the lists with catalogue([...])"
            )
        else:
            bodies = _base_bodies(self.base, reference)
            for change in self.edits:
                bodies = _apply(change, bodies, reference, self)
        if len(bodies) != len(reference):
            raise CatalogueError(
                f"{self.cell}: {self.name!r}: the cell has {len(reference)} "
                f"solution regions; the variant gives {len(bodies)} bodies"
            )
        return bodies


def _base_bodies(base, reference: Bodies) -> Bodies:
    if base is None:
        return (None,) * len(reference)
    if isinstance(base, Variant):
        return base.resolve(reference)  # (a base of another cell fails on its region count)
    return base if isinstance(base, tuple) else (base,)


def _apply(change: Edit, bodies: Bodies, reference: Bodies, variant: Variant) -> Bodies:
    """`change` applied to every region whose text holds its `old` text; a region that is
    None (the reference) is edited as the reference body without its comments."""
    texts = [
        _code(reference[i]) if b is None else textwrap.dedent(b).strip("\n")
        for i, b in enumerate(bodies)
    ]
    found = [change.found(t) for t in texts]
    if sum(found) != change.count:
        where = "the reference body" if variant.base is None else "its base"
        raise CatalogueError(
            f"{variant.cell}: {variant.name!r}: {change!r} expects {change.count} "
            f"{'occurrence' if change.count == 1 else 'occurrences'} of {change.old!r} in "
            f"{where} (comments removed), found {sum(found)}; the body it edits has changed: "
            "update the entry"
        )
    return tuple(change.apply(t) if n else b for t, n, b in zip(texts, found, bodies))


def code_only(body: str) -> str:
    """`body` without comments: trailing comments cut, comment-only lines dropped."""
    lines: list[str | None] = list(body.split("\n"))
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(body + "\n").readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return body
    for token in reversed([t for t in tokens if t.type == tokenize.COMMENT]):
        row, col = token.start
        lines[row - 1] = (lines[row - 1] or "")[:col].rstrip() or None
    return "\n".join(line for line in lines if line is not None)


def _code(region: str) -> str:
    return code_only(textwrap.dedent(region).strip("\n"))


def mistake(
    cell: str,
    name: str,
    body=None,
    hint: str | None = None,
    test: str | None = None,
    *,
    detects: str | None = None,
    base=None,
    like: str | None = None,
    given: Edit | list[Edit] | None = None,
) -> Variant:
    """A wrong answer that must lose `test`'s points with its hint (its own, `hint=`, or its
    detector's, `detects=`) in the failure message. `body`: an edit, a list of edits, or a
    full body (see the module docstring); edits apply to the reference body, to `base`, or to
    the entry of this cell named `like`.
    `given`: edits of the cell's given code (a constructor changed), outside its regions."""
    if isinstance(detects, Explanations):
        if cell not in detects:
            raise CatalogueError(
                f"{cell}: {name!r}: detects= the explanations, but {cell!r} "
                "is no concept question of this notebook"
            )
        detects = detects[cell]
    if (hint is None) == (detects is None) or not (hint or detects):
        raise CatalogueError(
            f"{cell}: {name!r}: give exactly one of hint= (the slip's own hint) "
            "and detects= (a detector of the checks)"
        )
    variant = _variant(cell, name, body, test, detects or hint, base, detects, like)
    changes = (given,) if isinstance(given, Edit) else tuple(given or ())
    return dataclasses.replace(variant, given=changes) if changes else variant


def alternative(
    cell: str, name: str, body=None, test: str | None = None, *, base=None, like: str | None = None
) -> Variant:
    """A correct answer written differently from the reference; it must pass."""
    return _variant(cell, name, body, test, "", base, None, like)


def _variant(cell, name, body, test, hint, base, detects, like) -> Variant:
    test = test or f"test_{cell}"
    if isinstance(body, Edit):
        body = [body]
    if base is not None and like is not None:
        raise CatalogueError(f"{cell}: {name!r}: give base= or like=, not both")
    if isinstance(body, list) or body is None:
        edits = tuple(body or ())
        if not all(isinstance(e, Edit) for e in edits):
            raise CatalogueError(f"{cell}: {name!r}: a list body holds edits only")
        return Variant(cell, name, None, test, hint, edits, base, detects, like)
    if base is not None or like is not None:
        raise CatalogueError(f"{cell}: {name!r}: base= and like= go with edits, not a full body")
    bodies = body if isinstance(body, tuple) else (body,)
    return Variant(cell, name, bodies, test, hint, (), None, detects)


def catalogue(entries: list[Variant]) -> tuple[list[Variant], list[Variant]]:
    """(MISTAKES, ALTERNATIVES) from one list of entries, in order, each `like=` linked to
    the entry of its cell with that name (a CatalogueError names an entry that is missing,
    named twice, or part of a cycle)."""
    by_name: dict[tuple[str, str], Variant] = {}
    for entry in entries:
        if (entry.cell, entry.name) in by_name:
            raise CatalogueError(f"{entry.cell}: {entry.name!r} is the name of two entries")
        by_name[entry.cell, entry.name] = entry
    linked: dict[tuple[str, str], Variant] = {}

    def link(entry: Variant, seen: tuple = ()) -> Variant:
        key = (entry.cell, entry.name)
        if key in linked:
            return linked[key]
        if entry.like is None:
            linked[key] = entry
            return entry
        if key in seen:
            raise CatalogueError(f"{entry.cell}: {entry.name!r}: like= goes round in a circle")
        base = by_name.get((entry.cell, entry.like))
        if base is None:
            raise CatalogueError(
                f"{entry.cell}: {entry.name!r}: like={entry.like!r} names no "
                f"entry of the cell {entry.cell!r}"
            )
        linked[key] = dataclasses.replace(entry, base=link(base, (*seen, key)))
        return linked[key]

    done = [link(entry) for entry in entries]
    return [v for v in done if v.hint], [v for v in done if not v.hint]


def notebooks() -> list[str]:
    """The notebooks that have a catalogue, e.g. ["01_attention_scores", ...]."""
    return sorted(p.stem[2:] for p in (AUTOGRADER / "mistakes").glob("nb*.py"))


class Explanations(dict):
    """Concept question -> the explanation shown when its answer is wrong (the detector of a
    concept mistake). `mistake("answer_x", ..., detects=WHY)` takes the entry's own."""


def explained(notebook: str) -> Explanations:
    """The concept questions' explanations, from `ANSWERS` in
    autograder/reference/nb<notebook>.py (generated from the solution's `# Why:` lines)."""
    tree = ast.parse((AUTOGRADER / "reference" / f"nb{notebook}.py").read_text())
    answers = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        and [getattr(t, "id", None) for t in node.targets] == ["ANSWERS"]
    )
    return Explanations({name: why for name, (_, _, why) in answers.items()})


def load_catalogue(notebook: str) -> ModuleType:
    """The catalogue of notebook `NN_topic`: the grader's package data `grader.mistakes`."""
    return importlib.import_module(f"grader.mistakes.nb{notebook}")


def solution_notebook(notebook: str) -> nbformat.NotebookNode:
    return nbformat.read(ROOT / "solutions" / notebook / f"{notebook}.ipynb", as_version=4)


def nbgrader_meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def regions(source: str) -> Bodies:
    """The text of each solution region of `source` (markers removed, dedented)."""
    return tuple(
        textwrap.dedent("".join(m.group(0).splitlines(keepends=True)[1:-1]))
        for m in _REGION.finditer(source)
    )


def replace_regions(source: str, bodies: tuple[str | None, ...]) -> str:
    """Replace each solution region of `source` by the matching body (None keeps it)."""
    regions = list(_REGION.finditer(source))
    if len(regions) != len(bodies):
        raise ValueError(
            f"the cell has {len(regions)} solution regions; the variant gives {len(bodies)} bodies"
        )
    pieces, last = [], 0
    for match, body in zip(regions, bodies):
        pieces.append(source[last : match.start()])
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
    cells[0].source = variant_source(variant, cells[0].source)
    return nb


def variant_source(variant: Variant, source: str) -> str:
    """The answer cell `source` as `variant` writes it: its bodies in the solution regions,
    and its `given` edits (after those of the entry it is `like`) applied to the code around
    them."""
    chain: list[Edit] = []
    base: object = variant
    while isinstance(base, Variant):
        chain[:0] = base.given
        base = base.base
    for change in chain:
        outside = change.found(_REGION.sub("", source))
        inside = change.found(source) - outside
        if outside != change.count or inside:
            raise CatalogueError(
                f"{variant.cell}: {variant.name!r}: given={change!r} expects {change.count} "
                f"{'occurrence' if change.count == 1 else 'occurrences'} of {change.old!r} in "
                f"the given code of the cell (outside its solution regions), found {outside} "
                f"there and {inside} in a region"
            )
        source = change.apply(source)
    return replace_regions(source, variant.resolve(regions(source)))


def strip_solution_markers(source: str) -> str:
    return replace_regions(source, (None,) * len(_REGION.findall(source)))


def fill_in(
    release: nbformat.NotebookNode,
    answers: nbformat.NotebookNode,
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


def run_graded_cells(
    nb: nbformat.NotebookNode,
    only_test: str | None = None,
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
