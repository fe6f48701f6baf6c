"""From an LMS download to one notebook per student and assignment.

Accepted layouts (a zip file or a folder, read without extracting anything to disk):

- `<student>/<assignment>.ipynb` or `<student>/<assignment>/<assignment>.ipynb`;
- Canvas: `<name>_<id>_<subid>_<file>.ipynb` (also `<name>_LATE_...`), flat;
- Moodle: `<Full Name>_<id>_assignsubmission_file_/<file>.ipynb`.

A file is matched to an assignment by its name (`01_attention_scores.ipynb`, also with an
LMS suffix such as `-1` or ` (2)`), else by its leading number (`01_attn.ipynb`), which is
noted as misnamed. Unmatched notebooks are reported and ignored. When a student has several
files for one assignment, the newest wins (also noted).
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024
_CANVAS = re.compile(r"^(?P<name>[^_/]+?)(?:_late)?_(?P<uid>\d+)_(?P<sub>\d+)_(?P<file>.+)$",
                     re.IGNORECASE)
_MOODLE = re.compile(r"^(?P<name>.+?)_(?P<uid>\d+)_assignsubmission_\w*$", re.IGNORECASE)
_SUFFIX = re.compile(r"(-\d+|\s*\(\d+\)|\s+copy|_copy)+$", re.IGNORECASE)


@dataclass
class Upload:
    student: str
    assignment: str
    name: str  # the path inside the download
    data: bytes | None
    stamp: float = 0.0
    notes: list[str] = field(default_factory=list)


@dataclass
class Intake:
    uploads: dict[tuple[str, str], Upload] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)  # every student with any file

    def students(self) -> list[str]:
        return sorted(self.seen | {student for student, _ in self.uploads})


def slug(text: str) -> str:
    text = re.sub(r"[^A-Za-z0-9_.-]+", "-", text.strip()).strip("-.").lower()
    return text or "unknown"


def _files(source: Path):
    """(relative path, size, timestamp, reader) for every file of a zip or a folder."""
    if source.is_file() and zipfile.is_zipfile(source):
        archive = zipfile.ZipFile(source)
        for info in archive.infolist():
            if not info.is_dir():
                yield (info.filename, info.file_size, float(
                    "".join(f"{part:02d}" for part in info.date_time)),
                    lambda info=info: archive.read(info))
    elif source.is_dir():
        for path in sorted(source.rglob("*")):
            if path.is_file() and not path.is_symlink():
                stat = path.stat()
                yield (path.relative_to(source).as_posix(), stat.st_size, stat.st_mtime,
                       path.read_bytes)
    else:
        raise FileNotFoundError(f"{source} is neither a zip file nor a folder")


def _student_and_file(relative: str) -> tuple[str, str] | None:
    parts = [p for p in relative.split("/") if p]
    if any(p.startswith(("__MACOSX", ".")) or p == ".ipynb_checkpoints" for p in parts):
        return None
    if len(parts) == 1:
        canvas = _CANVAS.match(parts[0])
        return (slug(canvas["name"]), canvas["file"]) if canvas else None
    moodle = _MOODLE.match(parts[0])
    student = slug(moodle["name"]) if moodle else slug(parts[0])
    return student, parts[-1]


def match_assignment(filename: str, assignments: list[str]) -> tuple[str, str] | None:
    """(assignment, note) for a notebook file name, or None."""
    stem = _SUFFIX.sub("", Path(filename).stem).strip()
    for assignment in assignments:
        if stem == assignment:
            return assignment, ""
    for assignment in assignments:
        if assignment in stem:
            return assignment, f"file named {filename!r}, matched by its name"
    number = re.match(r"^(\d{2})(?!\d)", stem)
    if number:
        hits = [a for a in assignments if a.startswith(number.group(1) + "_")]
        if len(hits) == 1:
            return hits[0], f"misnamed file {filename!r}, matched by its number"
    return None


def collect(source: Path, assignments: list[str]) -> Intake:
    intake = Intake()
    for relative, size, stamp, read in _files(Path(source)):
        found = _student_and_file(relative)
        if found is not None:
            intake.seen.add(found[0])
        if not relative.endswith(".ipynb"):
            continue
        if found is None:
            intake.ignored.append(f"{relative}: no student in its path")
            continue
        student, filename = found
        matched = match_assignment(filename, assignments)
        if matched is None:
            intake.ignored.append(f"{relative}: matches no assignment of {assignments}")
            continue
        assignment, note = matched
        data = read() if size <= MAX_NOTEBOOK_BYTES else None
        upload = Upload(student, assignment, relative, data, stamp, [note] if note else [])
        if data is None:
            upload.notes.append(f"file larger than {MAX_NOTEBOOK_BYTES} bytes, not graded")
        key = (student, assignment)
        previous = intake.uploads.get(key)
        if previous is not None:
            newer, older = (upload, previous) if stamp >= previous.stamp else (previous, upload)
            newer.notes.append(f"several files; graded {newer.name!r}, ignored {older.name!r}")
            upload = newer
        intake.uploads[key] = upload
    return intake
