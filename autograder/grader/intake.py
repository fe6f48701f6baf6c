"""From an LMS download to one notebook per student and assignment, accounting for every file.

Accepted layouts (a zip file or a folder, read without extracting anything to disk; a zip
written on Windows with `\\` separators reads the same; one wrapper folder around an LMS
download, as a re-zipped download has, is looked through):

- Canvas, flat: `<name>_<id>_<attachment id>_<file>.ipynb` (also `<name>_LATE_<id>_...`);
- Moodle: `<Full Name>_<id>_assignsubmission_file_/<file>.ipynb`;
- plain folders: `<student>/<assignment>.ipynb` or `<student>/<assignment>/<file>.ipynb`.

Who a student is: in an LMS layout, the LMS id (so two students of one name stay two, and
one student is one whatever their name); in plain folders, the folder name. One LMS id that comes
with two names (two students' folders: a Moodle display name that spells another student's
id, or a re-packed download) is a collision: each folder is graded on its own. The nbgrader
student id is the LMS id itself (`1234`), or the folder name when it is a plain ASCII word
(`ada`), else an ASCII slug with a hash of the full name (`ivan-petrov-1a2b3c4d`,
`student-5e6f7a8b` for `张伟`). The readable name is kept in full Unicode. Two identities
that would get one id (in this download, or against a student of an earlier run) are both
graded, each under an id with its own hash, and the collision is reported.

A file is matched to an assignment by its name (`01_attention_scores.ipynb`, also with an LMS
suffix such as `-1` or ` (2)`), by its leading number (`01_attn.ipynb`), by the topic words of
an assignment (`attention_scores.ipynb`, `Transformer Block.ipynb`), or, when its name says
nothing, by the graded cells it holds; each but the first is noted. A file whose name says
one notebook but whose graded cells are another notebook's of the course (02_positions
uploaded as `01_attention_scores.ipynb`) is not graded as the named one: the blank notebook
is, with the reason (which notebook it holds, upload it under its own name) in the status,
the intake report and the banner of the feedback page. When a student has several
files for one assignment, the newest readable one wins (in a Canvas download the later
upload, by its attachment id: the zip's times are when Canvas zipped it). Every file of the
download ends in the report (`Intake.files`): graded, or ignored with the reason; so does a
student's folder with no file of theirs (plain folders, Moodle), whose notebook is blank.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import unicodedata
import zipfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

from grader.wire import json_shape

MAX_RAW_BYTES = 200 * 1024 * 1024  # a download file; honest notebooks with plots are far below
_CANVAS = re.compile(
    r"^(?P<name>[^_/]+?)(?:_late)?_(?P<uid>\d+)_(?P<sub>\d+)_(?P<file>.+)$", re.IGNORECASE
)
# Who wrote which part decides the anchor. Canvas writes `<name>_<id>_<subid>_` before the
# student's own file name, and its name has no `_`: the first id is the LMS's (a file named
# `x_4242_1_nb.ipynb` cannot take id 4242). Moodle writes `_<id>_assignsubmission_<plugin>_`
# after the student's display name, which may hold anything: the last id is the LMS's (a
# display name `Ada Lovelace_4242_assignsubmission_file_` cannot take Ada's id 4242).
_MOODLE = re.compile(r"^(?P<name>.+)_(?P<uid>\d+)_assignsubmission_[^_\W]*_?$", re.IGNORECASE)
_SUFFIX = re.compile(r"(-\d+|\s*\(\d+\)|\s+copy|_copy)+$", re.IGNORECASE)
_PLAIN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_JUNK_PARTS = ("__MACOSX", "__pycache__", ".ipynb_checkpoints")
# how good a match by name is: an exact name beats a topic, a topic beats the cells
EXACT, SUFFIXED, NUMBER, TOPIC, CELLS = 5, 4, 3, 2, 1


# A notebook's JSON is sized before it is parsed: json.loads makes a Python object of every
# value, so 114 MB of `{},` are 40 million dicts and 3 GB. An honest notebook (at most
# `grader.normalize.MAX_CELLS` cells, its outputs mostly long strings) holds far fewer.
MAX_JSON_CONTAINERS = 500_000  # objects and arrays
MAX_JSON_VALUES = 5_000_000  # values of objects and arrays (about the commas, plus one each)


def json_too_big(data: bytes) -> str:
    """Why a notebook's JSON is refused before it is parsed, or "" when it may be parsed."""
    containers, values = json_shape(data)
    if containers > MAX_JSON_CONTAINERS or values > MAX_JSON_VALUES:
        return (
            f"its JSON holds {containers:,} objects and arrays and {values:,} values, over "
            f"the limits of {MAX_JSON_CONTAINERS:,} and {MAX_JSON_VALUES:,} for a notebook "
            "(a notebook is mostly cells of text; this is not parsed)"
        )
    return ""


# -- names ----------------------------------------------------------------------------------
def printable(text: str, limit: int = 200) -> str:
    """`text` safe to print and store: control and bidi characters and lone surrogates
    escaped (a file name must not drive the TA's terminal), cut to `limit` characters."""
    text = _UNSAFE.sub(
        lambda m: m.group().encode("unicode_escape", "backslashreplace").decode("ascii"), text
    )
    return text if len(text) <= limit else text[: limit - 1] + "…"


_LATE = re.compile(r"^[^_/]+?_late_\d+_\d+_", re.IGNORECASE)


def is_late(path: str) -> bool:
    """Whether an LMS marked the upload at `path` (inside the download) late: Canvas names
    a late file `<name>_LATE_<id>_<subid>_<file>`."""
    first = path.replace("\\", "/").split("/")
    return any(_LATE.match(part) for part in first[:2])


def slug(text: str) -> str:
    """ASCII letters, digits and dashes of `text` (accents dropped); may be empty."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:40]


def _short_hash(text: str, length: int = 8) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:length]


@dataclass
class Identity:
    """Who a file belongs to: `key` is what makes two files one student's."""

    key: str  # "lms:<id>" or "folder:<NFC folder name>"
    name: str  # readable, full Unicode
    lms_id: str = ""
    layout: str = "folder"  # canvas, moodle, folder

    def natural_id(self) -> str:
        if self.lms_id:
            return self.lms_id
        name = self.key.split(":", 1)[1]
        if _PLAIN_ID.match(name):
            return name
        return f"{slug(name) or 'student'}-{_short_hash(self.key)}"


def _identity(parts: list[str]) -> tuple[Identity, str] | None:
    """(identity, file name) from the path parts inside the download, or None (no student)."""
    canvas = _CANVAS.match(parts[0])
    if canvas:
        name = printable(unicodedata.normalize("NFC", canvas["name"]), 128)
        filename = canvas["file"] if len(parts) == 1 else parts[-1]
        return Identity(f"lms:{canvas['uid']}", name, canvas["uid"], "canvas"), filename
    if len(parts) == 1:
        return None
    moodle = _MOODLE.match(parts[0])
    if moodle:
        name = printable(unicodedata.normalize("NFC", moodle["name"]), 128)
        return Identity(f"lms:{moodle['uid']}", name, moodle["uid"], "moodle"), parts[-1]
    folder = unicodedata.normalize("NFC", parts[0])
    return Identity(f"folder:{folder}", printable(folder, 128)), parts[-1]


# -- assignments ----------------------------------------------------------------------------
def _words(text: str) -> list[str]:
    """Lower-case words of a file name: split at non-letters, digits and camelCase humps."""
    text = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text)
    return [w.lower() for w in re.findall(r"[A-Za-z]+|\d+", text)]


def _has_topic(words: list[str], topic: list[str]) -> bool:
    """Whether consecutive words of a file name spell the topic (`multi head`, `multihead`,
    `Transformer Block`), a trailing plural `s` aside."""
    wanted = "".join(topic).removesuffix("s")
    for start in range(len(words)):
        joined = ""
        for word in words[start:]:
            joined += word
            if joined.removesuffix("s") == wanted:
                return True
            if len(joined) > len(wanted) + 1:
                break
    return False


class NameMatch(NamedTuple):
    assignment: str  # "" when the name is ambiguous
    note: str  # how it was matched, or why it is ambiguous
    quality: int  # EXACT ... CELLS; 0 when ambiguous
    among: tuple[str, ...] = ()  # the assignments an ambiguous name fits


def match_assignment(filename: str, assignments: list[str]) -> tuple[str, str] | None:
    """(assignment, note) for a notebook file name, or None (no match, or ambiguous)."""
    found = match_name(filename, assignments)
    return (found.assignment, found.note) if found and found.assignment else None


def match_name(filename: str, assignments: list[str]) -> NameMatch | None:
    """How a file name matches an assignment (an empty `assignment` when it is ambiguous),
    or None when the name says nothing."""
    stem = _SUFFIX.sub("", Path(filename).stem).strip()
    shown = printable(filename)
    for assignment in assignments:
        if stem == assignment:
            return NameMatch(assignment, "", EXACT if stem == Path(filename).stem else SUFFIXED)
    named = [a for a in assignments if a in stem]
    if len(named) == 1:
        return NameMatch(named[0], f"file named {shown!r}, matched by its name", SUFFIXED)
    number = re.match(r"^(\d{2})(?!\d)", stem)
    by_number = [a for a in assignments if number and a.startswith(number.group(1) + "_")]
    words = _words(stem)
    by_topic = [a for a in assignments if _has_topic(words, _words(a.split("_", 1)[-1]))]
    if by_number and by_topic and set(by_topic) != set(by_number):
        return NameMatch(
            "",
            f"ambiguous name {shown!r}: its number says "
            f"{', '.join(by_number)}, its topic {', '.join(by_topic)}",
            0,
            tuple(by_number + by_topic),
        )
    if len(by_number) == 1:
        return NameMatch(by_number[0], f"misnamed file {shown!r}, matched by its number", NUMBER)
    if len(by_topic) == 1:
        return NameMatch(by_topic[0], f"file named {shown!r}, matched by its topic", TOPIC)
    if len(by_topic) > 1:
        return NameMatch(
            "", f"ambiguous name {shown!r}: fits {', '.join(by_topic)}", 0, tuple(by_topic)
        )
    return None


def held_grade_ids(data: bytes) -> set[str] | None:
    """The grade_ids of the graded cells (nbgrader metadata) a notebook holds, or None when
    it is too big to parse or no notebook JSON."""
    if json_too_big(data):
        return None
    try:
        nb = json.loads(data.decode("utf-8", "replace"))
        cells = nb.get("cells") if isinstance(nb, dict) else None
        held = set()
        for cell in cells if isinstance(cells, list) else []:
            meta = cell.get("metadata") if isinstance(cell, dict) else None
            meta = meta.get("nbgrader") if isinstance(meta, dict) else None
            if isinstance(meta, dict) and isinstance(meta.get("grade_id"), str):
                held.add(meta["grade_id"])
    except (ValueError, RecursionError):
        return None
    return held


def match_cells(data: bytes, grade_ids: dict[str, set[str]], among: list[str] | None = None) -> str:
    """The assignment whose graded cells (nbgrader grade_ids) the notebook holds, at least
    half of them and more than any other's; "" when none or no clear winner."""
    held = held_grade_ids(data)
    return _best_by_cells(held, grade_ids, among) if held is not None else ""


def _best_by_cells(held: set[str], grade_ids: dict[str, set[str]], among=None) -> str:
    scores = sorted(
        (
            (len(held & ids) / len(ids), a)
            for a, ids in grade_ids.items()
            if ids and (among is None or a in among)
        ),
        reverse=True,
    )
    if not scores or scores[0][0] < 0.5 or (len(scores) > 1 and scores[1][0] == scores[0][0]):
        return ""
    return scores[0][1]


def other_notebook(data: bytes, assignment: str, grade_ids: dict[str, set[str]]) -> str:
    """The course notebook that a file taken as `assignment` holds instead (a student who
    uploaded 02_positions under 01's name), or "": its graded cells are at least half of
    another notebook's, clearly more than of any other, and under half of `assignment`'s.
    A notebook whose cells lost their metadata holds none and is never taken for another."""
    own = grade_ids.get(assignment) or set()
    held = held_grade_ids(data) if own else None
    if not held or len(held & own) * 2 >= len(own):
        return ""
    found = _best_by_cells(held, grade_ids)
    return found if found != assignment else ""


# -- reading the download -------------------------------------------------------------------
def _member_name(info: zipfile.ZipInfo) -> str:
    """A zip member's name as its writer meant it: UTF-8 written without the UTF-8 flag (most
    tools) is recovered from zipfile's cp437 reading; `\\` separators become `/`."""
    name = info.filename
    if not info.flag_bits & 0x800:
        try:
            name = name.encode("cp437").decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            pass
    return name.replace("\\", "/")


def _files(source: Path):
    """(relative path, size, timestamp, reader, refusal) for every file of a zip or a folder;
    refusal is why an entry of a folder is not read ("" for a file that is): a symbolic link
    (never followed: it may point at anything of the machine's) or no regular file (a FIFO,
    whose read would never end, a socket, a device)."""
    if source.is_file() and zipfile.is_zipfile(source):
        archive = zipfile.ZipFile(source)
        for info in archive.infolist():
            name = _member_name(info)
            if not name.endswith("/"):
                yield (
                    name,
                    info.file_size,
                    _zip_time(info.date_time),
                    lambda info=info: archive.read(info),
                    "",
                )
    elif source.is_dir():
        for path in sorted(source.rglob("*")):
            if path.is_dir() and not path.is_symlink():
                continue
            relative = path.relative_to(source).as_posix()
            # names that are not UTF-8 on disk: keep them distinct and printable
            relative = relative.encode("utf-8", "surrogateescape").decode(
                "utf-8", "backslashreplace"
            )
            if path.is_symlink() or not path.is_file():
                what = "a symbolic link" if path.is_symlink() else "no regular file (a FIFO?)"
                yield relative, 0, 0.0, _refuse(f"{what}: not read"), f"{what}: not read"
                continue
            stat = path.stat()
            yield relative, stat.st_size, stat.st_mtime, path.read_bytes, ""
    else:
        found = "a file that is not a zip archive" if source.is_file() else "nothing there"
        raise FileNotFoundError(
            f"source={str(source)!r}: expected a zip file or a folder, found {found}"
        )


def _zip_time(date_time: tuple) -> float:
    """A zip member's time (local, as zip tools write and extract it) in seconds since the
    epoch, as a folder's modification times are: a download graded as a zip and its
    extracted copy order their files alike, within a run and against an earlier one."""
    try:
        return time.mktime((*date_time, 0, 0, -1))
    except (OverflowError, ValueError):
        return 0.0


def _refuse(why: str):
    """A reader for an entry that is not read: it raises, saying why (a notebook so named is
    then graded as blank with that reason, as one over the size limit is)."""

    def read() -> bytes:
        raise OSError(why)

    return read


def _is_junk(parts: list[str]) -> bool:
    return any(p.startswith(".") or p in _JUNK_PARTS for p in parts)


def _names_student(parts: list[str]) -> bool:
    """Whether a path starts with an LMS student: a Canvas file or a Moodle folder."""
    return bool(_CANVAS.match(parts[0])) or (len(parts) > 1 and bool(_MOODLE.match(parts[0])))


def _wrapper_depth(paths: list[list[str]], assignments: list[str]) -> int:
    """How many leading folders every path shares around the students' files; 0 when there is
    none. A re-zipped LMS download (`submissions/<name>_<id>_...`) may sit in one or two;
    plain folders in one (`submissions/<student>/...`), seen as two or more folders under it
    that are not notebooks' folders (`ada/01_attention_scores/...` is one student's)."""
    for depth in (1, 2):
        if (
            not paths
            or any(len(p) <= depth for p in paths)
            or len({tuple(p[:depth]) for p in paths}) != 1
            or _names_student(paths[0][depth - 1 :])
        ):
            break
        if any(_names_student(p[depth:]) for p in paths):
            return depth
    if not paths or len({p[0] for p in paths}) != 1 or any(len(p) < 3 for p in paths):
        return 0  # not one wrapper folder around students' folders
    if _names_student(paths[0]):
        return 0  # one LMS student's folder, with folders of their own inside
    inner = {p[1] for p in paths}
    return int(len(inner) > 1 and not any(match_name(name, assignments) for name in inner))


# -- the result -----------------------------------------------------------------------------
@dataclass
class FileRecord:
    """One file of the download and what became of it."""

    path: str
    size: int
    status: str = "ignored"  # graded or ignored
    reason: str = ""  # why ignored, or how it was matched
    student: str = ""  # the nbgrader student id
    name: str = ""  # the student's readable name
    assignment: str = ""


NOT_A_NOTEBOOK = "not a notebook (.ipynb)"


@dataclass
class Upload:
    student: str  # the nbgrader student id
    assignment: str
    name: str  # the path inside the download
    read: Callable[[], bytes] | None  # None when refused
    stamp: float = 0.0
    notes: list[str] = field(default_factory=list)
    refused: str = ""  # why the file was not read (too big, unreadable in the zip)
    quality: int = EXACT
    # Canvas's attachment id, 0 elsewhere: a Canvas download names a file `<name>_<user
    # id>_<attachment id>_<file>` (lib/content_zipper.rb: `"#{filename}_#{file.id}_..."`,
    # `file` an Attachment). Canvas numbers attachments as they are uploaded, so of one
    # student's files the higher id is the later upload, while the zip's times are when
    # Canvas zipped each file.
    attachment: int = 0

    @property
    def data(self) -> bytes | None:
        """The file's bytes, read from the download now (None when refused)."""
        return self.read() if self.read is not None else None

    def origin(self, source: Path | str) -> dict:
        """Where this upload came from and how new it is, kept with the notebook taken in
        from it, for `older_than` on a later run."""
        return {
            "path": self.name,
            "download": str(source),
            "attachment": self.attachment,
            "stamp": self.stamp,
        }


def older_than(upload: dict, taken: dict) -> str:
    """Why `upload` (an `Upload.origin`) is an older upload than `taken`, the one already
    taken in for that student and notebook, or "" when it is not (newer, the same, or no
    order known). Ordered as `_choose` orders one download's files: by the Canvas attachment
    id where both have one, else by the file's time."""

    def number(origin: dict, name: str) -> float:
        value = origin.get(name)
        return float(value) if isinstance(value, int | float) and value > 0 else 0.0

    mine, theirs = number(upload, "attachment"), number(taken, "attachment")
    if mine and theirs:
        return f"a lower Canvas attachment id ({mine:.0f} < {theirs:.0f})" if mine < theirs else ""
    mine, theirs = number(upload, "stamp"), number(taken, "stamp")
    if mine and theirs and mine < theirs:
        return f"an older file time ({_when(mine)} < {_when(theirs)})"
    return ""


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp))


@dataclass
class Intake:
    uploads: dict[tuple[str, str], Upload] = field(default_factory=dict)
    files: list[FileRecord] = field(default_factory=list)
    people: dict[str, Identity] = field(default_factory=dict)  # student id -> identity
    collisions: list[str] = field(default_factory=list)
    collided: set[str] = field(default_factory=set)  # student ids given a hash for a clash
    # (student id, assignment) -> the upload an earlier run took in, newer than this run's
    # (`grader.course.Course.take_in`): kept, this run's upload ignored
    kept: dict[tuple[str, str], dict] = field(default_factory=dict)

    def students(self) -> list[str]:
        return sorted(self.people)

    @property
    def ignored(self) -> list[str]:
        return [f"{f.path}: {f.reason}" for f in self.files if f.status == "ignored"]

    def report(self) -> dict:
        graded = sum(f.status == "graded" for f in self.files)
        return {
            "files": [asdict(f) for f in self.files],
            "students": [{"id": sid, **asdict(who)} for sid, who in sorted(self.people.items())],
            "collisions": self.collisions,
            "kept": [
                {"student": sid, "assignment": assignment, "upload": taken}
                for (sid, assignment), taken in sorted(self.kept.items())
            ],
            "summary": {
                "files": len(self.files),
                "graded": graded,
                "ignored": len(self.files) - graded,
                "students": len(self.people),
            },
        }


# -- collecting -----------------------------------------------------------------------------
def collect(
    source: Path,
    assignments: list[str],
    grade_ids: dict[str, set[str]] | None = None,
    known: dict[str, str] | None = None,
    wrapped: bool = True,
) -> Intake:
    """Every file of `source` to an upload of a student and assignment, or to a reason.

    `grade_ids` (assignment -> its graded cells' ids; it may hold more of the course's
    notebooks than `assignments`) recognises notebooks whose name says nothing, and a file
    named as one notebook that holds another (graded as the blank notebook, saying so);
    `known` (student id -> identity key, from earlier runs) keeps ids stable and
    catches a new identity that would take an id already given to someone else. `wrapped`:
    the files may sit in a wrapper folder around the students' (`_wrapper_depth`); False
    where each top folder is one student's own (the exchange, Gradescope), so nothing a
    student put inside theirs is read as another student's."""
    intake, candidates, identities, owners = Intake(), defaultdict(list), dict[str, Identity](), []
    entries = list(_files(Path(source)))
    split = [[p for p in name.split("/") if p] for name, *_ in entries]
    files = [p for p, e in zip(split, entries) if p and not e[4] and not _is_junk(p)]
    depth = _wrapper_depth(files, assignments) if wrapped else 0
    folders = _folders_of_ids([p[depth:] if len(p) > depth else p for p in split])
    named: set[str] = set()  # the students' folders that a file of theirs named
    for (relative, size, stamp, read, refusal), parts in zip(entries, split):
        record = FileRecord(printable(relative, 1000), size)
        intake.files.append(record)
        if refusal and not relative.lower().endswith(".ipynb"):  # with its student, unread
            record.reason = refusal
            found = _identity(parts[depth:]) if len(parts) > depth else None
            if found is not None and ".." not in parts and not _is_junk(parts):
                record.name = found[0].name
                identities.setdefault(found[0].key, found[0])
                owners.append((record, found[0].key))
                named.add(_top_folder(parts, depth))
            continue
        try:
            found = _classify(
                record,
                parts[depth:] if len(parts) > depth else parts,
                assignments,
                grade_ids or {},
                size,
                read,
            )
        except Exception as err:  # a file must never stop the class: report it, go on
            record.reason = f"could not be read ({type(err).__name__}: {printable(str(err))})"
            continue
        if found is None:
            continue
        who, upload = found
        if len(folders.get(who.lms_id, ())) > 1:  # one LMS id, several students' folders
            who = replace(who, key=f"{who.key}:{_short_hash(who.name)}")
        identities.setdefault(who.key, who)
        owners.append((record, who.key))
        named.add(_top_folder(parts, depth))
        if upload is not None:
            upload.stamp = stamp
            candidates[(who.key, upload.assignment)].append((upload, record))
    if wrapped:  # a student's folder with no file of theirs is listed too, graded blank
        wrapper = files[0][:depth] if files else []
        for record, who in _empty_folders(Path(source), wrapper, named, identities):
            intake.files.append(record)
            identities[who.key] = who
            owners.append((record, who.key))
    for lms_id, names in sorted(folders.items()):
        if len(names) > 1:
            intake.collisions.append(
                f"LMS id {lms_id} is in {len(names)} folders or names of the download ("
                + ", ".join(repr(printable(n)) for n in sorted(names))
                + "): each is graded on its own, none under the bare id"
            )
    ids = _assign_ids(identities, known or {}, intake)
    intake.people = {ids[key]: who for key, who in identities.items()}
    for record, key in owners:
        record.student = ids[key]
    _choose(intake, candidates, ids)
    _note_other_files(intake, [(record, ids[key]) for record, key in owners])
    return intake


def _note_other_files(intake: Intake, owned: list) -> None:
    """A student's files that are no notebooks, named in the notes of each of their
    notebooks (grades.csv's `notes`)."""
    for record, student in owned:
        if record.reason == NOT_A_NOTEBOOK:
            for (sid, _), upload in intake.uploads.items():
                if sid == student:
                    upload.notes.append(f"ignored {record.path!r}: {record.reason}")


def _empty_folders(source: Path, wrapper: list[str], named: set[str], identities: dict):
    """(its record, identity) of each student's folder under `wrapper` that no file of
    theirs named, and whose student is not known already. Only where folders are students:
    in a plain-folder or Moodle download, as the students found so far are (in a Canvas
    download, where each student's files lie flat, a folder is nobody's)."""
    layouts = {who.layout for who in identities.values()}
    if "canvas" in layouts:
        return
    for folder in _student_folders(source, wrapper):
        found = _identity([folder, ""])
        if folder in named or found is None or found[0].key in identities:
            continue
        if layouts and found[0].layout not in layouts:  # "old/" among Moodle's folders
            continue
        path = "".join(f"{p}/" for p in [*wrapper, folder])
        record = FileRecord(printable(path, 1000), 0, name=found[0].name)
        record.reason = (
            "an empty folder (no file, or only hidden or system files): no notebook submitted"
        )
        yield record, found[0]


def _top_folder(parts: list[str], depth: int) -> str:
    """The student's folder (NFC) a path under `depth` wrapper folders sits in, or ""."""
    return unicodedata.normalize("NFC", parts[depth]) if len(parts) > depth + 1 else ""


def _student_folders(source: Path, wrapper: list[str]) -> list[str]:
    """The names (NFC) of the folders under `wrapper` in a zip or a folder: each is a
    student's in a plain-folder or Moodle download, empty ones too (a zip lists a folder
    as an entry of its own, a file system as a directory); junk and links left out."""
    found = set()
    if source.is_file() and zipfile.is_zipfile(source):
        with zipfile.ZipFile(source) as archive:
            for info in archive.infolist():
                parts = [p for p in _member_name(info).split("/") if p]
                is_dir = _member_name(info).endswith("/")
                if ".." in parts:  # an unsafe path: its record says so, it names no one
                    continue
                if parts[: len(wrapper)] == wrapper and len(parts) > len(wrapper) + (not is_dir):
                    found.add(parts[len(wrapper)])
    elif source.is_dir():
        base = source.joinpath(*wrapper)
        for path in base.iterdir() if base.is_dir() and not base.is_symlink() else ():
            if path.is_dir() and not path.is_symlink():
                found.add(
                    path.name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
                )
    folders = {unicodedata.normalize("NFC", f) for f in found}
    return sorted(f for f in folders if f != ".." and not _is_junk([f]))


def _folders_of_ids(paths: list[list[str]]) -> dict[str, set[str]]:
    """LMS id -> the readable names it comes with in the download (an id whose files carry
    two names is two students' folders mapped to one id: a display name that spells
    another's id, or a re-packed download)."""
    found: dict[str, set[str]] = defaultdict(set)
    for parts in paths:
        if not parts or _is_junk(parts) or ".." in parts:
            continue
        who = _identity(parts)
        if who is not None and who[0].lms_id:
            found[who[0].lms_id].add(who[0].name)
    return found


def _classify(
    record: FileRecord,
    parts: list[str],
    assignments: list[str],
    grade_ids: dict[str, set[str]],
    size: int,
    read,
):
    """(identity, upload or None) for a file, or None with `record.reason` saying why."""
    if ".." in parts or not parts:
        record.reason = "unsafe path (`..`): not read"
        return None
    if _is_junk(parts):
        record.reason = "system or hidden file (macOS metadata, checkpoint, dot file)"
        return None
    found = _identity(parts)
    if found is None:
        record.reason = "no student in its path (a loose file at the top of the download)"
        return None
    who, filename = found
    record.name = who.name
    if not filename.lower().endswith(".ipynb"):
        record.reason = NOT_A_NOTEBOOK
        return who, None
    data, refused = _read_checked(filename, size, read)
    matched = match_name(filename, assignments)
    if matched is None or not matched.assignment:
        among = list(matched.among) if matched else assignments
        chosen = match_cells(data, grade_ids, among) if data is not None else ""
        if not chosen:
            elsewhere = match_cells(data, grade_ids) if data is not None and not matched else ""
            record.reason = (
                matched.note + " (and its cells do not settle it)"
                if matched
                else f"matches no assignment of {', '.join(assignments)} (by its name or its cells)"
            )
            if elsewhere:
                record.reason += f"; its cells are notebook {elsewhere}'s, not graded in this run"
            return who, None
        how = matched.note + "; " if matched else f"file named {printable(filename)!r}, "
        matched = NameMatch(chosen, f"{how}recognised as {chosen} by its cells", CELLS)
    assignment, note, quality, _ = matched
    canvas = _CANVAS.match(parts[0]) if who.layout == "canvas" else None
    other = other_notebook(data, assignment, grade_ids) if data is not None else ""
    if other:  # graded as the blank notebook, with this reason on the page and in the status
        refused = (
            f"this file holds notebook {other}, not {assignment}: upload it under its own "
            f"name ({other}.ipynb)"
        )
    return who, Upload(
        "",
        assignment,
        record.path,
        None if refused else read,
        notes=[note] if note else [],
        refused=refused,
        quality=quality,
        attachment=int(canvas["sub"]) if canvas else 0,
    )


def _read_checked(filename: str, size: int, read) -> tuple[bytes | None, str]:
    """(the file's bytes, "") or (None, why it is refused): too big, or unreadable in the
    download (a zip member's CRC or size is checked by reading it to the end). The bytes
    are read again when the notebook is taken in, so only one file is in memory at once."""
    if size > MAX_RAW_BYTES:
        return None, (
            f"{printable(filename)!r} is {size / 2**20:.0f} MB, over the "
            f"{MAX_RAW_BYTES // 2**20} MB limit for one file: not read"
        )
    try:
        return read(), ""
    except Exception as err:  # a corrupt zip member (CRC, truncated): this file only
        return None, (
            f"{printable(filename)!r} could not be read from the download "
            f"({type(err).__name__}: {printable(str(err))})"
        )


def _assign_ids(
    identities: dict[str, Identity], known: dict[str, str], intake: Intake
) -> dict[str, str]:
    """identity key -> a student id unique in this download and against earlier runs
    (compared without case, for case-insensitive file systems). An identity keeps the id an
    earlier run gave it; identities that would share an id each get their own hash on it."""
    earlier = {key: sid for sid, key in known.items()}
    ids = {key: earlier.get(key) or who.natural_id() for key, who in identities.items()}
    groups = defaultdict(list)
    for key in sorted(ids):
        groups[ids[key].casefold()].append(key)
    owner_of = {sid.casefold(): key for sid, key in known.items()}
    for folded, keys in groups.items():
        owner = owner_of.get(folded)
        if keys == [owner] or (owner is None and len(keys) == 1):
            continue
        shared = ids[keys[0]]
        for key in keys:
            if key != owner:
                ids[key] = f"{shared}-{_short_hash(key)}"
        names = ", ".join(f"{identities[k].name!r} ({k})" for k in keys)
        earlier_note = f" and {owner!r} of an earlier run" if owner and owner not in keys else ""
        intake.collisions.append(
            f"{names}{earlier_note} would share student id {shared!r}: "
            f"graded as {', '.join(ids[k] for k in keys)}"
        )
        intake.collided.update(ids[k] for k in keys)
    return ids


def _choose(intake: Intake, candidates: dict, ids: dict[str, str]) -> None:
    """One upload per student and assignment: the newest readable file (the later Canvas
    upload by its attachment id, else the newer time; then the best name, then the path);
    every other file is reported as superseded."""
    for (key, assignment), found in sorted(candidates.items()):
        sid = ids[key]
        ranked = sorted(
            found,
            key=lambda f: (
                f[0].refused == "",
                f[0].attachment,
                f[0].stamp,
                f[0].quality,
                f[1].path,
            ),
            reverse=True,
        )
        upload, record = ranked[0]
        upload.student = sid
        for other, other_record in ranked[1:]:
            other_record.assignment = assignment
            why = other.refused or (
                "an earlier upload: a lower Canvas attachment id"
                if other.attachment < upload.attachment
                else "an older file, or the same age with a less exact name"
            )
            other_record.reason = f"superseded by {record.path!r} ({why})"
            upload.notes.append(
                f"several files for {assignment}: graded {record.path!r}, "
                f"ignored {other_record.path!r}"
            )
        record.assignment = assignment
        if upload.refused:
            record.reason = upload.refused + "; the blank notebook is graded"
        else:
            record.status, record.reason = "graded", "; ".join(upload.notes)
        if sid in intake.collided:
            upload.notes.append(
                f"student id {sid}: another student would have had the same "
                "id (see the collisions in intake.json)"
            )
        intake.uploads[(sid, assignment)] = upload
