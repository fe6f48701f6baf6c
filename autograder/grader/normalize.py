"""Turn whatever a student uploaded into a notebook nbgrader can grade fairly.

The released notebook is the skeleton. From the submission we take, by grade_id, the source
of each answer cell, and every cell the student added. Test cells always come from the
release (nbgrader then restores their hidden part), whatever the student did to them:

- unreadable or truncated JSON, or no file: the blank release is graded (zero points), with
  a note;
- malformed parts (a cell that is not an object, a `source` that is not text, metadata of
  the wrong type, a missing `cell_type`, a `grade_id` that is not text, lone surrogates,
  invalid UTF-8): that part is dropped or repaired, with a note; the rest is graded;
- a deleted test or answer cell: put back from the release at its place;
- an edited test cell: replaced by the release's;
- a duplicated answer cell: as in nbgrader (`DeduplicateIds`), the last copy keeps the
  grade_id and earlier copies run as the student's own cells (so the last definition wins,
  as in their kernel); a duplicated test cell is dropped;
- a changed cell type: the release's type is restored (an answer written in a Markdown cell
  is run as code);
- nbgrader metadata on a cell the release does not have: removed;
- cells that lost their nbgrader metadata (an editor that drops it, answers pasted into a
  fresh notebook): a graded cell missing from the submission is recognised in a cell without
  metadata by its cell id, by the source of an unchanged test cell, or by the line that
  defines the answer (`def attention(`, `class Decoder(`, `answer_scale =`).

Only sources are kept: outputs and attachments never reach the graded notebook, so the size
limits apply to what is graded (MAX_SOURCE_BYTES, MAX_CELLS). The result depends on the
input bytes alone: the same upload gives the same notebook, byte for byte (cell ids too), so
an unchanged submission is not regraded.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from dataclasses import dataclass

import nbformat

from grader.intake import json_too_big

MAX_SOURCE_BYTES = 5 * 1024 * 1024  # code and text of one notebook, outputs not counted
MAX_CELLS = 2000
MAX_OUTSIDE_CELLS = 16 * 1024 * 1024  # JSON outside the cells (metadata, unknown fields)
CELL_TYPES = ("code", "markdown", "raw")
_SURROGATE = re.compile("[\ud800-\udfff]")
_CELL_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass
class Cell:
    """A submitted cell reduced to what grading uses, every field of a known type."""

    cell_type: str  # code, markdown, raw; "" when the upload's was missing or unknown
    source: str
    grade_id: str  # "" when none (or not text)
    id: str  # "" when none (or not text)


def _meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def _clean_text(text: str) -> tuple[str, bool]:
    """`text` with lone surrogates (valid in JSON, not in UTF-8) replaced; whether any were."""
    cleaned = _SURROGATE.sub("\ufffd", text)
    return cleaned, cleaned != text


def _source(value, where: str, notes: list[str]) -> str:
    if isinstance(value, list) and all(isinstance(s, str) for s in value):
        value = "".join(value)
    if not isinstance(value, str):
        if value is not None:
            notes.append(
                f"{where}: its source is a {type(value).__name__}, not text: taken as empty"
            )
        return ""
    value, replaced = _clean_text(value)
    if replaced:
        notes.append(f"{where}: invalid characters (lone surrogates) replaced by \ufffd")
    return value


def _text_field(value, what: str, where: str, notes: list[str]) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        notes.append(f"{where}: its {what} is a {type(value).__name__}, not text: ignored")
        return ""
    return _clean_text(value)[0]


def _nbgrader_of(cell: dict, where: str, notes: list[str]) -> dict:
    meta = cell.get("metadata")
    if meta is not None and not isinstance(meta, dict):
        notes.append(f"{where}: its metadata is a {type(meta).__name__}, not an object: ignored")
        return {}
    meta = (meta or {}).get("nbgrader")
    if meta is not None and not isinstance(meta, dict):
        notes.append(
            f"{where}: its nbgrader metadata is a {type(meta).__name__}, not an object: ignored"
        )
        return {}
    return meta or {}


def _cell(raw, number: int, notes: list[str]) -> Cell | None:
    where = f"cell {number}"
    if not isinstance(raw, dict):
        notes.append(f"{where} is a {type(raw).__name__}, not a cell: dropped")
        return None
    cell_type = raw.get("cell_type")
    if cell_type not in CELL_TYPES:
        shown = repr(cell_type)[:40] if cell_type is not None else "missing"
        notes.append(
            f"{where}: cell_type {shown} is not code, markdown or raw: kept as "
            "text, not run (a graded cell gets the release's type back)"
        )
        cell_type = ""
    grade_id = _text_field(
        _nbgrader_of(raw, where, notes).get("grade_id"), "nbgrader grade_id", where, notes
    )
    cell_id = raw.get("id")
    cell_id = cell_id if isinstance(cell_id, str) else ""
    return Cell(
        cell_type, _source(raw.get("source"), where, notes), grade_id, _clean_text(cell_id)[0]
    )


def _load(data: bytes | None) -> tuple[dict | None, list[str], str]:
    """(notebook JSON, notes, "") or (None, notes, the problem)."""
    if data is None:
        return None, [], "no notebook submitted"
    if not data.strip():  # saved before it was written, or an upload that broke off
        return None, [], f"empty file ({'0 bytes' if not data else 'white space only'})"
    too_big = json_too_big(data)
    if too_big:
        return None, [], f"refused notebook: {too_big}"
    notes = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", "replace")
        notes.append("invalid UTF-8 bytes replaced by \ufffd")
    try:
        raw = json.loads(text.lstrip("\ufeff"))
    except (ValueError, RecursionError) as err:
        return None, notes, f"unreadable notebook ({type(err).__name__}: {str(err)[:120]})"
    if not isinstance(raw, dict):
        return None, notes, f"unreadable notebook (a JSON {type(raw).__name__}, not a notebook)"
    if "cells" not in raw and isinstance(raw.get("worksheets"), list):
        raw = _upgrade_v3(raw)
    if not isinstance(raw.get("cells"), list):
        return None, notes, "unreadable notebook (no list of cells)"
    outside = len(json.dumps({k: v for k, v in raw.items() if k != "cells"}))
    if outside > max(MAX_OUTSIDE_CELLS, len(data) // 2):
        return (
            None,
            notes,
            (
                f"refused notebook: {outside / 2**20:.1f} MB of its {len(data) / 2**20:.1f} MB "
                "are outside its cells (metadata or unknown fields; a notebook is mostly cells)"
            ),
        )
    return raw, notes, ""


def _upgrade_v3(raw: dict) -> dict:
    """An nbformat 3 notebook (cells in worksheets) as nbformat 4, or {} when it fails."""
    try:
        return json.loads(nbformat.writes(nbformat.reads(json.dumps(raw), as_version=4)))
    except Exception:  # noqa: BLE001 - any failure means unreadable; _load says so
        return {}


def read_submission(data: bytes | None) -> tuple[list[Cell] | None, list[str], str]:
    """(cells, notes on repaired parts, "") or (None, notes, why it cannot be graded)."""
    raw, notes, problem = _load(data)
    if raw is None:
        return None, notes, problem
    if len(raw["cells"]) > MAX_CELLS:
        return None, notes, (f"{len(raw['cells'])} cells, over the limit of {MAX_CELLS}")
    cells = [c for n, r in enumerate(raw["cells"], 1) if (c := _cell(r, n, notes)) is not None]
    size = sum(len(c.source.encode("utf-8")) for c in cells)
    if size > MAX_SOURCE_BYTES:
        return (
            None,
            notes,
            (
                f"its code and text are {size / 2**20:.1f} MB, over the "
                f"{MAX_SOURCE_BYTES // 2**20} MB limit (outputs not counted)"
            ),
        )
    return cells, notes, ""


# -- recognising cells that lost their metadata ---------------------------------------------
def _anchor(cell) -> re.Pattern | None:
    """The line that identifies an answer cell: where it defines its function, class or
    concept-answer variable (outside the solution region, so every student's copy has it)."""
    match = re.search(r"^(?:def|class)\s+(\w+)|^(answer_\w+)\s*=", cell.source, re.MULTILINE)
    if match is None:
        return None
    if match.group(1):
        return re.compile(rf"^(?:def|class)\s+{match.group(1)}\b", re.MULTILINE)
    return re.compile(rf"^{match.group(2)}\s*=", re.MULTILINE)


def _recognise(student_cells: list[Cell], graded: dict) -> dict[int, tuple[str, str]]:
    """{index of a student cell without nbgrader metadata: (grade_id, how it was known)} for
    the graded cells that appear nowhere in the submission with their metadata."""
    present = {c.grade_id for c in student_cells}
    wanted = [g for g in graded if g not in present]
    orphans = [i for i, c in enumerate(student_cells) if c.grade_id not in graded]
    found: dict[int, tuple[str, str]] = {}

    def claim(grade_id: str, test, how: str) -> None:
        for i in orphans:
            if i not in found and test(student_cells[i]):
                found[i] = (grade_id, how)
                wanted.remove(grade_id)
                return

    for grade_id in list(wanted):  # 1. the cell id, kept by most editors
        cell_id = graded[grade_id].get("id")
        if cell_id:
            claim(grade_id, lambda c, cell_id=cell_id: c.id == cell_id, "cell id")
    for grade_id in list(wanted):  # 2. an unchanged test cell
        original = graded[grade_id]
        if not _meta(original).get("solution"):
            text = original.source.strip()
            claim(grade_id, lambda c, text=text: c.source.strip() == text, "unchanged test source")
    for grade_id in list(wanted):  # 3. the line that defines the answer
        original = graded[grade_id]
        anchor = _anchor(original) if _meta(original).get("solution") else None
        if anchor is not None:
            claim(
                grade_id,
                lambda c, anchor=anchor: (
                    c.cell_type in ("code", "markdown") and anchor.search(c.source) is not None
                ),
                "the line that defines the answer",
            )
    return found


# -- building the graded notebook -----------------------------------------------------------
def _own(cell: Cell) -> nbformat.NotebookNode | None:
    """A student's own cell rebuilt from its source alone (no outputs, no nbgrader data);
    a cell of unknown type is kept as Markdown, so it is shown and never run."""
    maker = {"code": nbformat.v4.new_code_cell, "raw": nbformat.v4.new_raw_cell}.get(
        cell.cell_type, nbformat.v4.new_markdown_cell
    )
    new = maker(source=cell.source)
    new["id"] = cell.id  # replaced by _give_ids; nbformat's own would be random
    return new


def _give_ids(cells: list) -> None:
    """Unique cell ids that depend on the upload alone: the release's for graded cells, the
    student's own where valid and free, else `cell-<position>`."""
    taken = {c["id"] for c in cells if _meta(c).get("grade_id")}
    for position, cell in enumerate(cells):
        if _meta(cell).get("grade_id"):
            continue
        wanted = cell.get("id") or ""
        if not _CELL_ID.match(wanted) or wanted in taken:
            wanted = f"cell-{position}"
            while wanted in taken:
                wanted += "-own"
        cell["id"] = wanted
        taken.add(wanted)


def normalize(
    data: bytes | None, release: nbformat.NotebookNode
) -> tuple[nbformat.NotebookNode, list[str]]:
    """The notebook to grade and the notes explaining what was repaired."""
    student, notes, problem = read_submission(data)
    if student is None:
        return copy.deepcopy(release), notes + [problem + "; graded as the blank notebook"]
    graded = {_meta(c)["grade_id"]: c for c in release.cells if _meta(c).get("grade_id")}
    order = [_meta(c)["grade_id"] for c in release.cells if _meta(c).get("grade_id")]
    recognised = _recognise(student, graded)
    for how in dict.fromkeys(h for _, h in recognised.values()):
        names = ", ".join(g for g, h in recognised.values() if h == how)
        notes.append(f"cells that had lost their nbgrader metadata, recognised by {how}: {names}")
    ids = [recognised[i][0] if i in recognised else cell.grade_id for i, cell in enumerate(student)]
    last = {grade_id: i for i, grade_id in enumerate(ids)}  # nbgrader keeps the last copy
    cells, seen = [], set[str]()
    for index, (cell, grade_id) in enumerate(zip(student, ids)):
        if grade_id not in graded:
            cells.append(_own(cell))
        elif last[grade_id] != index:
            _take_copy(cell, graded[grade_id], grade_id, cells, notes)
        else:
            _take_graded(cell, graded[grade_id], grade_id, seen, cells, notes)
    _put_back_missing(order, graded, seen, cells, notes)
    _give_ids(cells)
    nb = copy.deepcopy(release)
    nb.cells = cells
    return nb, notes


def _take_copy(cell: Cell, original, grade_id: str, cells: list, notes: list[str]) -> None:
    """An earlier copy of a graded cell: an answer runs as the student's own code, a test
    copy is dropped."""
    if _meta(original).get("solution") and cell.cell_type == "code":
        cells.append(_own(cell))
        notes.append(f"duplicated answer cell {grade_id}: the earlier copy runs as your code")
    else:
        notes.append(f"duplicated cell {grade_id}: the earlier copy was dropped")


def _take_graded(
    cell: Cell, original, grade_id: str, seen: set, cells: list, notes: list[str]
) -> None:
    """Append the graded cell `grade_id` as submitted: a test from the release, an answer
    with the student's source."""
    is_answer = bool(_meta(original).get("solution"))
    seen.add(grade_id)
    if not is_answer:
        if cell.source != original.source or cell.cell_type != original.cell_type:
            notes.append(f"test cell {grade_id} was changed: restored")
        cells.append(copy.deepcopy(original))
        return
    if cell.cell_type != original.cell_type:
        notes.append(
            f"answer cell {grade_id} was a {cell.cell_type or 'typeless'} cell: run "
            f"as {original.cell_type}"
        )
    new = copy.deepcopy(original)
    new.source = cell.source
    cells.append(new)


def _put_back_missing(
    order: list[str], graded: dict, seen: set, cells: list, notes: list[str]
) -> None:
    for position, grade_id in enumerate(order):
        if grade_id in seen:
            continue
        notes.append(f"cell {grade_id} was missing: put back from the release")
        before = order[:position]
        index = 0
        for i, cell in enumerate(cells):
            if _meta(cell).get("grade_id") in before:
                index = i + 1
        cells.insert(index, copy.deepcopy(graded[grade_id]))
        seen.add(grade_id)


def answer_digests(nb: nbformat.NotebookNode) -> dict[str, str]:
    """{grade_id: digest of its source} for every answer cell of a graded notebook, and
    "<own code>": digest of every other cell the student wrote; what a manual score was given
    for."""
    answers, own = {}, hashlib.sha256()
    for cell in nb.cells:
        meta = _meta(cell)
        if meta.get("grade_id") and meta.get("solution"):
            answers[meta["grade_id"]] = hashlib.sha256(cell.source.encode()).hexdigest()
        elif not meta.get("grade_id"):
            own.update(json.dumps([cell.cell_type, cell.source]).encode())
    answers["<own code>"] = own.hexdigest()
    return answers
