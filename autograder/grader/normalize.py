"""Turn whatever a student uploaded into a notebook nbgrader can grade fairly.

The released notebook is the skeleton. From the submission we take, by grade_id, the source
of each answer cell, and every cell the student added. Test cells always come from the
release (nbgrader then restores their hidden part), whatever the student did to them:

- unreadable or truncated JSON, or no file: the blank release is graded (zero points), with
  a note;
- a deleted test or answer cell: put back from the release at its place;
- an edited test cell: replaced by the release's;
- a duplicated answer cell: the first keeps the grade_id, copies run as the student's own
  cells (so the last definition wins, as in their kernel); a duplicated test cell is dropped;
- a changed cell type: the release's type is restored (an answer written in a Markdown cell
  is run as code);
- nbgrader metadata on a cell the release does not have: removed;
- cells that lost their nbgrader metadata (an editor that drops it, answers pasted into a
  fresh notebook): a graded cell missing from the submission is recognised in a cell without
  metadata by its cell id, by the source of an unchanged test cell, or by the line that
  defines the answer (`def attention(`, `class Decoder(`, `answer_scale =`).
"""

from __future__ import annotations

import copy
import json
import re

import nbformat


def _meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def _plain(cell):
    """A student's own cell rebuilt from its source alone (no outputs, no nbgrader data)."""
    makers = {"code": nbformat.v4.new_code_cell, "markdown": nbformat.v4.new_markdown_cell,
              "raw": nbformat.v4.new_raw_cell}
    maker = makers.get(cell.get("cell_type"))
    known = isinstance(cell.get("source"), (str, list))
    return maker(source=_text(cell)) if maker and known else None


def _anchor(cell) -> re.Pattern | None:
    """The line that identifies an answer cell: where it defines its function, class or
    concept-answer variable (outside the solution region, so every student's copy has it)."""
    match = re.search(r"^(?:def|class)\s+(\w+)|^(answer_\w+)\s*=", cell.source, re.MULTILINE)
    if match is None:
        return None
    if match.group(1):
        return re.compile(rf"^(?:def|class)\s+{match.group(1)}\b", re.MULTILINE)
    return re.compile(rf"^{match.group(2)}\s*=", re.MULTILINE)


def _text(cell) -> str:
    source = cell.get("source")
    if isinstance(source, list):
        source = "".join(str(s) for s in source)
    return source if isinstance(source, str) else ""


def _recognise(student_cells: list, graded: dict) -> dict[int, tuple[str, str]]:
    """{index of a student cell without nbgrader metadata: (grade_id, how it was known)} for
    the graded cells that appear nowhere in the submission with their metadata."""
    present = {_meta(c).get("grade_id") for c in student_cells}
    wanted = [g for g in graded if g not in present]
    orphans = [i for i, c in enumerate(student_cells) if _meta(c).get("grade_id") not in graded]
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
            claim(grade_id, lambda c, cell_id=cell_id: c.get("id") == cell_id, "cell id")
    for grade_id in list(wanted):  # 2. an unchanged test cell
        original = graded[grade_id]
        if not _meta(original).get("solution"):
            text = original.source.strip()
            claim(grade_id, lambda c, text=text: _text(c).strip() == text,
                  "unchanged test source")
    for grade_id in list(wanted):  # 3. the line that defines the answer
        original = graded[grade_id]
        anchor = _anchor(original) if _meta(original).get("solution") else None
        if anchor is not None:
            claim(grade_id, lambda c, anchor=anchor: c.get("cell_type") in ("code", "markdown")
                  and anchor.search(_text(c)) is not None, "the line that defines the answer")
    return found


def read_submission(data: bytes | None) -> tuple[nbformat.NotebookNode | None, str]:
    if data is None:
        return None, "no notebook submitted"
    try:
        nb = nbformat.reads(data.decode("utf-8"), as_version=4)
    except (UnicodeDecodeError, json.JSONDecodeError, ValueError) as err:
        return None, f"unreadable notebook ({type(err).__name__}: {str(err)[:120]})"
    except Exception as err:  # nbformat raises assorted errors on structurally odd files
        return None, f"unreadable notebook ({type(err).__name__}: {str(err)[:120]})"
    if not isinstance(nb.get("cells"), list):
        return None, "unreadable notebook (no cells)"
    return nb, ""


def normalize(data: bytes | None, release: nbformat.NotebookNode
              ) -> tuple[nbformat.NotebookNode, list[str]]:
    """The notebook to grade and the notes explaining what was repaired."""
    student, problem = read_submission(data)
    if student is None:
        return copy.deepcopy(release), [problem + "; graded as the blank notebook"]
    graded = {_meta(c)["grade_id"]: c for c in release.cells if _meta(c).get("grade_id")}
    order = [_meta(c)["grade_id"] for c in release.cells if _meta(c).get("grade_id")]
    notes: list[str] = []
    seen: set[str] = set()
    cells = []
    recognised = _recognise(student.cells, graded)
    for how in dict.fromkeys(h for _, h in recognised.values()):
        names = ", ".join(g for g, h in recognised.values() if h == how)
        notes.append(f"cells that had lost their nbgrader metadata, recognised by {how}: "
                     f"{names}")
    for index, cell in enumerate(student.cells):
        grade_id = _meta(cell).get("grade_id")
        if index in recognised:
            grade_id = recognised[index][0]
        if grade_id not in graded:
            own = _plain(cell)
            if own is not None:
                cells.append(own)
            continue
        original = graded[grade_id]
        is_answer = bool(_meta(original).get("solution"))
        if grade_id in seen:
            if is_answer and cell.cell_type == "code":
                cells.append(_plain(cell))
                notes.append(f"duplicated answer cell {grade_id}: the copy runs as your code")
            else:
                notes.append(f"duplicated cell {grade_id}: the copy was dropped")
            continue
        seen.add(grade_id)
        if not is_answer:
            if cell.get("source") != original.source or cell.cell_type != original.cell_type:
                notes.append(f"test cell {grade_id} was changed: restored")
            cells.append(copy.deepcopy(original))
            continue
        source = _text(cell)
        if cell.cell_type != original.cell_type:
            notes.append(f"answer cell {grade_id} was a {cell.cell_type} cell: run as "
                         f"{original.cell_type}")
        new = copy.deepcopy(original)
        new.source = source
        cells.append(new)
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
    nb = copy.deepcopy(release)
    nb.cells = cells
    return nb, notes
