"""Preprocessors for the pages made from a graded notebook: feedback, formgrader, exports.

A submission is written by a student who may be hostile, and its notebook becomes HTML in
pages that a TA opens while logged in to the Jupyter server (formgrader's submission view,
whose scripts may call formgrader's API and the server's contents and kernel APIs) and in
the feedback pages. nbgrader's templates render Markdown cells with `markdown2html` and no
sanitising, and nbconvert passes raw HTML, raw cells, attachments, `javascript:` links and
several output types straight through.

`NeutraliseStudentHTML` therefore rebuilds a notebook so that nothing a student wrote can
become markup:

- a Markdown or raw cell whose source is that of a cell of the instructor's notebook (the
  release, else the source) is the instructor's: kept, with that cell's attachments and
  metadata, never the submission's;
- any other Markdown or raw cell is the student's: it becomes a Markdown cell holding one
  fenced code block of its text, which every Markdown renderer escapes (MathJax skips
  `<pre>` and `<code>` too), with no attachments;
- code cells keep their source (always rendered through Pygments, which escapes it) and
  only plain outputs: stream text, errors, text/plain and base64-checked PNG and JPEG, no
  output metadata (nbconvert puts image width and alt text into attributes);
- cell metadata keeps nbgrader's fields (with a grade_id of safe characters, since the
  templates paste it into attributes) and safe tags; notebook metadata is the instructor's
  (no widget state: ipywidgets' HTML widget sets innerHTML).

It is idempotent (a neutralised cell is recognised and left alone) and fails safe: without
the instructor's notebook every Markdown cell is shown as text.
"""

from __future__ import annotations

import base64
import binascii
import copy
import re
from pathlib import Path

import nbformat
from nbconvert.preprocessors import Preprocessor
from nbgrader.preprocessors import ClearHiddenTests
from traitlets import Bool, Unicode

SAFE_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")  # grade ids, tags, cell ids
SAFE_CELL_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # nbformat's rule
NBGRADER_KEYS: dict[str, type | tuple[type, ...]] = {
    "grade": bool,
    "solution": bool,
    "locked": bool,
    "task": bool,
    "points": (int, float),
    "score": (int, float, type(None)),
    "schema_version": int,
    "checksum": str,
    "cell_type": str,
    "grade_id": str,
    "comment": (str, type(None)),
}  # comment: the grader's, set by GetGrades
BASE64 = re.compile(r"[A-Za-z0-9+/=\s]*")
TEXT_CELLS = ("markdown", "raw")


class HideHiddenTests(ClearHiddenTests):
    """For feedback: nbgrader's ClearHiddenTests on the test cells, and no tracebacks.

    nbgrader's feedback shows the autograded notebook, whose test cells hold the restored
    hidden tests; this leaves the visible part and, for a failure, only the check's message
    (which names the likely mistake). Only the instructor's test cells are cut: a student's
    own cell that merely contains the delimiter text stays as it is (and cannot make the
    page fail with nbgrader's "nested hidden tests" error).
    """

    enabled = Bool(True)  # nbconvert preprocessors are off unless enabled

    def preprocess_cell(self, cell, resources, index):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution"):
            self._remove_hidden_test_region(cell)
            cell.source = cell.source.rstrip() + "\n"
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    output["traceback"] = [f"{output.get('ename')}: {output.get('evalue')}"]
        return cell, resources


class NeutraliseStudentHTML(Preprocessor):
    """Rebuild a submitted notebook so that no student-written text is rendered as HTML.

    `release_root` and `source_root` are folders of `<assignment>/<notebook>.ipynb`: the
    instructor's notebooks, whose Markdown stays as written. The assignment and notebook
    come from nbgrader's resources (converters) or formgrader's (`assignment_id`).
    """

    enabled = Bool(True)  # nbconvert preprocessors are off unless enabled

    release_root = Unicode("", help="folder of the released <assignment>/<notebook>.ipynb").tag(
        config=True
    )
    source_root = Unicode("", help="folder of the instructor's <assignment>/<notebook>.ipynb").tag(
        config=True
    )

    def preprocess(self, nb, resources):
        instructor = self.instructor_notebooks(resources)
        trusted = trusted_cells(instructor)
        nb.metadata = notebook_metadata(nb.get("metadata", {}), instructor)
        with_ids = (nb.get("nbformat"), nb.get("nbformat_minor", 0)) >= (4, 5)
        nb.cells = [
            neutralise_cell(cell, index, trusted, with_ids)
            for index, cell in enumerate(nb.get("cells", []))
        ]
        return nb, resources

    def instructor_notebooks(self, resources) -> list:
        info = resources.get("nbgrader") or {}
        assignment = info.get("assignment") or resources.get("assignment_id")
        notebook = info.get("notebook") or resources.get("notebook_id")
        found = []
        for root in (self.release_root, self.source_root):
            if not (root and assignment and notebook):
                continue
            path = Path(root) / str(assignment) / f"{notebook}.ipynb"
            try:
                found.append(nbformat.read(path, as_version=4))
            except Exception:  # missing or unreadable: its cells are simply not trusted
                self.log.debug("no instructor notebook at %s", path)
        return found


def trusted_cells(instructor: list) -> dict:
    """{(cell type, source): instructor cell} for the Markdown and raw cells (release first)."""
    trusted: dict = {}
    for nb in instructor:
        for cell in nb.cells:
            if cell.cell_type in TEXT_CELLS:
                trusted.setdefault((cell.cell_type, _text(cell.get("source"))), cell)
    return trusted


def neutralise_cell(cell, index: int, trusted: dict, with_ids: bool = True):
    kind = cell.get("cell_type")
    source = _text(cell.get("source"))
    if kind == "code":
        new = nbformat.v4.new_code_cell(
            source, execution_count=_count(cell), outputs=safe_outputs(cell.get("outputs"))
        )
        new.metadata = safe_cell_metadata(cell.get("metadata"))
    elif kind in TEXT_CELLS and (kind, source) in trusted:
        new = _instructor_cell(cell, trusted[(kind, source)])
    else:
        new = nbformat.v4.new_markdown_cell(source if is_shown_as_text(source) else as_text(source))
        # a raw cell turned into Markdown is never graded; a Markdown answer keeps its grade
        new.metadata = safe_cell_metadata(cell.get("metadata") if kind == "markdown" else {})
    _keep_id(new, cell, index, with_ids)
    return new


def _instructor_cell(cell, original):
    new = copy.deepcopy(original)
    new.metadata = {
        k: v for k, v in copy.deepcopy(original.get("metadata", {})).items() if k != "nbgrader"
    }
    new.metadata.update(safe_cell_metadata(cell.get("metadata")))
    new.metadata = nbformat.from_dict(new.metadata)
    return new


def as_text(source: str) -> str:
    """Markdown that renders `source` verbatim: one fenced code block no line can close."""
    source = source.replace("\r\n", "\n").replace("\r", "\n")
    longest = max((len(run) for run in re.findall(r"`+", source)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{source}\n{fence}"


def is_shown_as_text(source: str) -> bool:
    """Whether `source` is exactly what `as_text` makes of some text (already neutralised)."""
    lines = source.split("\n")
    if len(lines) < 2 or lines[0] != lines[-1] or not re.fullmatch(r"`{3,}", lines[0]):
        return False
    return as_text("\n".join(lines[1:-1])) == source


def safe_cell_metadata(meta) -> dict:
    """nbgrader's fields of plain types and a safe grade_id; tags of safe characters."""
    meta = meta if isinstance(meta, dict) else {}
    safe: dict = {}
    grader = meta.get("nbgrader")
    if isinstance(grader, dict) and SAFE_NAME.fullmatch(str(grader.get("grade_id", "x"))):
        safe["nbgrader"] = {k: v for k, v in grader.items() if _plain_field(k, v)}
    tags = meta.get("tags")
    if isinstance(tags, list):
        safe["tags"] = [t for t in tags if isinstance(t, str) and SAFE_NAME.fullmatch(t)]
    return nbformat.from_dict(copy.deepcopy(safe))


def _plain_field(key, value) -> bool:
    kind = NBGRADER_KEYS.get(key)
    if kind is None or not isinstance(value, kind):
        return False
    return kind is bool or not isinstance(value, bool)  # True is an int too


def safe_outputs(outputs) -> list:
    kept = []
    for output in outputs if isinstance(outputs, list) else []:
        new = _safe_output(output) if isinstance(output, dict) else None
        if new is not None:
            kept.append(new)
    return kept


def _safe_output(output):
    kind = output.get("output_type")
    if kind == "stream":
        name = "stderr" if output.get("name") == "stderr" else "stdout"
        return nbformat.v4.new_output("stream", name=name, text=_text(output.get("text")))
    if kind == "error":
        trace = output.get("traceback")
        return nbformat.v4.new_output(
            "error",
            ename=_text(output.get("ename")),
            evalue=_text(output.get("evalue")),
            traceback=[_text(t) for t in trace] if isinstance(trace, list) else [],
        )
    if kind in ("display_data", "execute_result"):
        data = _safe_data(output.get("data"))
        if not data:
            return None
        if kind == "execute_result":
            return nbformat.v4.new_output(kind, data=data, execution_count=_count(output))
        return nbformat.v4.new_output(kind, data=data)
    return None


def _safe_data(data) -> dict:
    data = data if isinstance(data, dict) else {}
    safe = {}
    if "text/plain" in data:
        safe["text/plain"] = _text(data["text/plain"])
    for mime in ("image/png", "image/jpeg"):
        value = _text(data.get(mime))
        if value and BASE64.fullmatch(value):
            try:  # the template pastes it into src="data:...": only base64 may go there
                base64.b64decode("".join(value.split()), validate=True)
            except (binascii.Error, ValueError):
                continue
            safe[mime] = value
    return safe


def notebook_metadata(meta, instructor: list) -> dict:
    """The instructor's notebook metadata; without it, the kernel's name and language only."""
    if instructor:
        return copy.deepcopy(instructor[0].metadata)
    meta = meta if isinstance(meta, dict) else {}
    safe = {}
    for key, fields in (
        ("kernelspec", ("name", "display_name", "language")),
        ("language_info", ("name",)),
    ):
        part = meta.get(key)
        if isinstance(part, dict):
            safe[key] = {
                f: part[f]
                for f in fields
                if isinstance(part.get(f), str) and re.fullmatch(r"[\w .+()-]{1,100}", part[f])
            }
    return nbformat.from_dict(safe)


def _keep_id(new, cell, index: int, with_ids: bool) -> None:
    """The cell's id when it is a valid one (templates put it in attributes); none before
    nbformat 4.5."""
    cell_id = cell.get("id")
    if not with_ids:
        new.pop("id", None)
    elif isinstance(cell_id, str) and SAFE_CELL_ID.fullmatch(cell_id):
        new["id"] = cell_id
    else:
        new["id"] = f"cell-{index}"


def _count(node):
    count = node.get("execution_count")
    return count if isinstance(count, int) and not isinstance(count, bool) else None


def _text(value) -> str:
    if isinstance(value, list):
        return "".join(v if isinstance(v, str) else "" for v in value)
    return value if isinstance(value, str) else ""
