"""Grades and feedback pages back into the LMS, in the files each LMS imports (`python -m
grader lms canvas|moodle FILE -a NB`), written to WORK/lms/NB/.

- Canvas: the gradebook CSV the TA exported (Grades, Export). Its identity columns are
  `Student, ID, SIS User ID, SIS Login ID, Section` (some exports add more, such as
  `Integration ID`), then one column per assignment titled `Title (assignment id)`, and a
  `Points Possible` row under the header. Students are matched by `ID`, the Canvas user id
  that the submissions download puts in each file name (`ada_101_1_...`). The import file
  (`canvas_import.csv`) is the identity columns, the Points Possible row and the one
  assignment column: nothing else is changed. The score is scaled to the column's Points
  Possible (raw points, and a warning, when the export has none). The pages go back in
  `canvas_feedback.zip`, each under its submission's download name with `.html` (Canvas's
  "Re-Upload Submissions" matches a file to a submission by that name).
- Moodle: the assignment's offline grading worksheet (View all submissions, "Download
  grading worksheet"): `Identifier` (`Participant 1234567`), `Full name`, `Email address`,
  `Status`, `Grade`, `Maximum Grade`, `Grade can be changed`, `Last modified (submission)`,
  `Last modified (grade)`, `Feedback comments` (numbers in the site's language: `100,00`).
  Students are matched by the participant number, which the submissions download puts in
  each folder name (`Full Name_1234567_assignsubmission_file_`). `moodle_worksheet.csv` is
  the worksheet with `Grade` (the score on the worksheet's `Maximum Grade`, with a decimal
  point, which Moodle's import reads in every language) and `Feedback comments` (the score
  and what the tests found, link-free, after any comment written in Moodle) filled;
  `moodle_feedback.zip` holds each page in a folder named as Moodle names a student's
  folder in its downloads, `Full
  name_participant_assignsubmission_file_` with "_" in the name as a space ("Upload
  multiple feedback files in a zip").

Who is who across notebooks is kept by the LMS's user fields (Canvas user id, e-mail, login,
SIS id: the first that both records of an id have decides, so an export without the SIS
columns names the same people), never by display name alone: WORK/lms/people.csv has one
row per person with their student id in each notebook, and an id that is one person in one
notebook and another in the next (a Moodle participant number is per assignment) is
reported as a clash.

A notebook that the work folder's gradebook graded no submission of (a wrong -a or --work)
is refused, and nothing is written: its file would blank or zero the whole class.

Nothing is dropped silently: a student of the LMS file who was not graded keeps the cell
the LMS file has (`--missing-zero`: an empty one gets 0, unless the work folder's intake took
in an upload of theirs: then the grade is missing here, and they are listed, exit 1) and is
counted; a grade already in the file for such a student (a TA's, entered by hand for an
e-mailed notebook, say) is never overwritten and the command lists whose it kept; a graded
student's cell gets the gradebook's score, and the command lists each different grade it
replaced (an earlier import, before a regrade; a grade a TA means to stand goes in the
gradebook, with `adjust`); a graded student whom the LMS file lacks, or an id that
the LMS file holds twice, is listed and the command exits 1 after writing what it could. A
grading that failed, or whose kernel never started, is no grade: that student is left as
the LMS file has them and listed with why, and the command exits 1. A manual grade from the
formgrader wins over the autograde, as in grades.csv (the scores come from the gradebook); one
that a resubmission cleared is listed (exit 1): the automatic score went, until a TA grades it
again.
A cell that a spreadsheet would run as a formula is written as text.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from grader.course import Course, UsageError, _cell, gradebook_rows, sqlite_file
from grader.intake import match_name, printable
from grader.status import FAILED, NOT_STARTED

CANVAS_IDENTITY = (
    "Student",
    "ID",
    "SIS User ID",
    "SIS Login ID",
    "Integration ID",
    "Root Account",
    "Section",
)
CANVAS_ASSIGNMENT = re.compile(r"^(?P<title>.*\S)\s*\((?P<id>\d+)\)$")
MOODLE_COLUMNS = ("Identifier", "Grade", "Maximum Grade")
#: A grading worksheet's columns as Moodle exports them (the sample class's worksheet; a real
#: one may have more, fewer, or translated names: the fill needs only MOODLE_COLUMNS).
MOODLE_WORKSHEET = (
    "Identifier",
    "Full name",
    "Email address",
    "Status",
    "Grade",
    "Maximum Grade",
    "Grade can be changed",
    "Last modified (submission)",
    "Last modified (grade)",
    "Feedback comments",
)
MOODLE_COMMENTS = "Feedback comments"  # absent where the assignment has feedback comments off
MOODLE_PARTICIPANT = re.compile(r"^\s*\S+\s+(?P<id>\d+)\s*$")  # "Participant 1234567", any language


@dataclass
class Filled:
    """What a fill did: the file written, who got a grade, and who could not be placed."""

    written: list[Path] = field(default_factory=list)
    graded: int = 0
    blank: list[str] = field(default_factory=list)  # in the LMS file, not graded
    kept: list[str] = field(default_factory=list)  # of `blank`: a grade the LMS file held
    missing: list[str] = field(default_factory=list)  # graded, not in the LMS file
    twice: list[str] = field(default_factory=list)  # ids the LMS file holds more than once
    clashes: list[str] = field(default_factory=list)  # one id, two people across notebooks
    failed: list[str] = field(default_factory=list)  # graded, but no grade: left as it was
    # of `blank`: an upload this work folder's intake took in, with no grade in its gradebook
    # (a shard's own SQLite gradebook, or not graded yet): left as it was, never given 0
    taken_in: list[str] = field(default_factory=list)
    held: int = 0  # of `taken_in`: empty cells left empty (not given 0)
    cleared: list[str] = field(default_factory=list)  # exported; a TA's manual score cleared
    replaced: list[str] = field(default_factory=list)  # graded: another grade the file held
    warnings: list[str] = field(default_factory=list)  # written, but not as it should be
    notes: list[str] = field(default_factory=list)  # written as asked; worth knowing

    @property
    def ok(self) -> bool:
        return not (
            self.missing
            or self.twice
            or self.clashes
            or self.failed
            or self.warnings
            or self.taken_in
            or self.cleared
        )

    def new_file(self, path: Path) -> Path:
        """`path`, listed as written: an earlier export there (one the TA may have edited or
        not yet uploaded) is kept under its own time, e.g. canvas_import-20261207-1203.csv,
        and named in a note; it is never overwritten."""
        if path.exists():
            stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(path.stat().st_mtime))
            kept, n = path.with_name(f"{path.stem}-{stamp}{path.suffix}"), 1
            while kept.exists():
                kept, n = path.with_name(f"{path.stem}-{stamp}-{n}{path.suffix}"), n + 1
            path.rename(kept)
            self.notes.append(f"the earlier {path.name} is kept as {kept}")
        self.written.append(path)
        return path


def not_a_grade(row: dict) -> str:
    """Why a gradebook row's score is no grade to send to the LMS, or "": its grading failed
    (the grader's fault; nbgrader's record of it is a 0) or its kernel never started, so
    none of the student's cells ran."""
    status = str(row.get("status") or "")
    if FAILED in status:
        why = status.split(FAILED, 1)[1].lstrip(": ") or "no reason given"
        return f"grading failed ({printable(why, 200)}); grade it again, then run lms again"
    if NOT_STARTED in status:
        why = status.split(NOT_STARTED, 1)[1].lstrip(": ").split("; ")[0] or "no reason given"
        return (
            f"{NOT_STARTED} ({printable(why, 200)}), so no cell ran; grade it again, then run "
            "lms again"
        )
    return ""


THOUSANDS = " \u00a0\u202f'\u2019"  # spaces (Moodle), no-break spaces, apostrophes (Swiss)
DIGITS = re.compile(r"[0-9]+")


def lms_number(text: str) -> float | None:
    """A number as an LMS writes it in any language, or None: "100", "100.00", "100,00",
    "1 000,00", "1.000,00", "1,000.00". The decimal separator is a lone "," or ".", or the
    last of the two when both are there (the other one then groups thousands); one of them
    several times groups thousands, as Canvas's import reads them; spaces and apostrophes
    group thousands too (Moodle's unformat_float drops spaces)."""
    value = "".join(c for c in str(text).strip() if c not in THOUSANDS)
    sign = value[0] if value.startswith(("-", "+")) else ""
    value = value[len(sign) :]
    marks = [c for c in value if c in ".,"]
    decimal = marks[-1] if len(marks) == 1 or len(set(marks)) == 2 else ""
    whole, _, fraction = value.rpartition(decimal) if decimal else (value, "", "")
    if decimal and not DIGITS.fullmatch(fraction):
        return None
    groups, separators = re.split(r"[.,]", whole), {c for c in whole if c in ".,"}
    if decimal in separators or len(separators) > 1:
        return None
    grouped = len(groups) == 1 or (len(groups[0]) <= 3 and all(len(g) == 3 for g in groups[1:]))
    if not grouped or not all(DIGITS.fullmatch(g) for g in groups):
        return None
    return float(f"{sign}{''.join(groups)}.{fraction or 0}")


def _not_graded_here(
    done: Filled, who: str, cell: str, missing_zero: bool, upload: str | None = None
) -> str:
    """The cell of a student whom the LMS file has and this work folder graded no notebook
    of: the grade the file holds stays (a TA's grade entered in the LMS, listed in
    `done.kept`); an empty cell ("", or an LMS's "-") gets 0 with --missing-zero, unless
    this work folder's intake took in an `upload` of theirs (its path): then the grade is
    missing here, not the submission (another shard's gradebook has it, or its grading has
    not run), and the cell stays as the file has it, listed in `done.taken_in`."""
    done.blank.append(who)
    if upload:
        done.taken_in.append(
            f"{who}: no grade in this work folder's gradebook, though its intake took in an "
            f"upload ({upload}): graded in another gradebook (a shard's) or not yet; the "
            "cell is left as the LMS file has it"
            + (", not given 0 (--missing-zero)" if missing_zero else "")
        )
    if cell.strip() not in ("", "-"):
        done.kept.append(f"{who}: {cell.strip()}")
        return cell
    if upload:
        done.held += 1
        return cell
    return "0" if missing_zero else cell


def _note_cleared(done: Filled, who: str, row: dict) -> None:
    """List an exported grade whose manual score a resubmission cleared (`manual`:
    `cleared`): the LMS gets the automatic score until a TA grades it again."""
    if row.get("manual") == "cleared":
        cells = [
            part.split(" cleared", 1)[0].removeprefix("manual score ")
            for part in str(row.get("status") or "").split("; ")
            if part.startswith("manual score ")
        ]
        done.cleared.append(
            f"{who}: exported with the automatic score; the manual score "
            f"({', '.join(cells) or 'see its status'}) was cleared by a resubmission: grade "
            "it again (python -m grader adjust, or formgrader), then run lms again"
        )


def _replacing(done: Filled, who: str, cell: str, grade: str) -> str:
    """`grade`, the gradebook's, for a graded student's cell; a different grade the LMS file
    held there (an earlier import, before a regrade; or one entered in the LMS) is listed in
    `done.replaced` with both values. A TA's grade that should stand goes in the gradebook
    (`python -m grader adjust`), where the next export keeps it."""
    before = cell.strip()
    if before not in ("", "-") and lms_number(before) != lms_number(grade):
        done.replaced.append(f"{who}: {before} replaced by {grade}")
    return grade


def _with_comment(done: Filled, who: str, cell: str, ours: str) -> str:
    """`ours` for a graded student's feedback comment; a comment someone wrote in the LMS
    (what the cell holds before an earlier export's `Autograded: ...`) is kept in front of
    it and listed in `done.notes`, never overwritten."""
    theirs = cell.split(COMMENT_START, 1)[0].strip()
    if not theirs:
        return ours
    done.notes.append(f"{who}: the comment the file held is kept, the autograder's after it")
    return f"{theirs}\n\n{ours}"


def _decimal(value: float) -> str:
    """A grade with at most 2 decimals and a decimal point, which the imports of Canvas (any
    language) and Moodle (unformat_float: a point in every language) read."""
    text = f"{round(value, 2):.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def read_lms_csv(path: Path, what: str) -> tuple[list[str], list[list[str]]]:
    """The header and rows of an LMS export (UTF-8 with or without a byte-order mark), its
    fields separated by commas or by semicolons (Canvas's "use semicolons" setting, or a
    file saved again by a spreadsheet in a locale with a decimal comma); what this module
    writes back always uses commas, which both imports read."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise UsageError(
            f"{what}: expected an exported CSV file, found nothing at {path}"
        ) from None
    except UnicodeDecodeError as err:
        raise UsageError(f"{what}: expected a UTF-8 CSV file, {path} is not ({err})") from None
    first = text.split("\n", 1)[0]
    by = {d: len(next(csv.reader([first], delimiter=d), [])) for d in ",;"}
    rows = list(csv.reader(io.StringIO(text), delimiter=max(by, key=lambda d: (by[d], d == ","))))
    if not rows or not rows[0]:
        raise UsageError(f"{what}: expected a header row, {path} is empty")
    return [h.strip() for h in rows[0]], rows[1:]


def _graded(course: Course, assignment: str) -> dict[str, dict]:
    """student id -> its gradebook row (manual grades included) for one notebook."""
    return {r["student_id"]: r for r in gradebook_rows(course) if r["assignment"] == assignment}


def graded_or_refuse(course: Course, assignment: str) -> dict[str, dict]:
    """`_graded`, or a UsageError when the work folder's gradebook graded no submission of
    `assignment`: a wrong -a or --work would otherwise blank (or, with --missing-zero, zero)
    the whole class in the LMS."""
    graded = _graded(course, assignment)
    if not graded:
        db = sqlite_file(course.db_url)  # another database's URL may hold a password
        where = f"gradebook {db}" if db else "its --db-url gradebook"
        raise UsageError(
            f"-a {assignment}: expected a notebook graded in the work folder {course.work} "
            f"({where}), found no graded submission of {assignment} there; check -a and "
            "--work (or grade the class first); nothing written"
        )
    return graded


def _download_names(course: Course, assignment: str) -> dict[str, str]:
    """student id -> the path of the file graded for `assignment` in the LMS download."""
    try:
        report = json.loads((course.work / "intake.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    record = (report.get("notebooks") or {}).get(assignment) or {}
    return {
        str(f["student"]): str(f["path"])
        for f in record.get("files", [])
        if f.get("status") == "graded" and f.get("student")
    }


def _safe_name(text: str) -> str:
    """A worksheet's full name as a folder name in a zip: no separators or control
    characters, and "_" written as a space, as Moodle's own downloads write it: its import
    (mod/assign/feedback/file/importziplib.php) splits a folder name on "_" and reads the
    participant number as the second part, so "Anne_Marie_1234567_..." would match no one."""
    text = text.replace("_", " ")
    return "".join(c for c in text if c.isprintable() and c not in "/\\:")[:100].strip()


def _number(value: float) -> str:
    return f"{value:g}"


COMMENT_START = "Autograded: "


def _comment(row: dict, attached: bool) -> str:
    """A short, link-free feedback comment: the score and what the tests found."""
    tests = row.get("tests") or {}
    full = sum(1 for v in tests.values() if v)
    text = f"{COMMENT_START}{_number(row['score'])} / {_number(row['max_score'])}"
    text += f" ({full} of {len(tests)} tests scored)."
    if row.get("manual") == "yes":
        text += " Includes a grade given by hand."
    return text + (" Your feedback page is attached." if attached else "")


PLAIN = re.compile(r"[-+]?\d+(\.\d+)?|-")  # a number, or Moodle's "-" for no date


def _text(value: str) -> str:
    """A cell a spreadsheet shows as text (see grader.course._cell); numbers and a lone
    "-" are left as the LMS wrote them."""
    return value if PLAIN.fullmatch(value) else _cell(value)


def _write_csv(path: Path, header: list[str], rows: list[list[str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows([[_text(v) for v in row] for row in rows])


def _pages_zip(course: Course, assignment: str, path: Path, names: dict[str, str]) -> int:
    """A zip of the feedback pages: student id -> name inside it; how many pages went in."""
    count = 0
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for student, name in sorted(names.items()):
            page = course.page_path(student, assignment)
            if page.is_file():
                archive.write(page, name)
                count += 1
    return count


# who is who across notebooks: the LMS's user fields, never a display name alone. Canvas's
# user id comes first: every Canvas export has it, while its login and SIS columns depend on
# the permissions of whoever exported (a TA may see no SIS Login ID), so one person must not
# be keyed by them in one export and by the id in another.
PERSON_FIELDS = ("canvas", "email", "login", "sis")


def _person(fields: dict[str, str]) -> str:
    """The key that names a person in the LMS: Canvas user id, e-mail, login or SIS id."""
    return next((f"{k}:{fields[k]}" for k in PERSON_FIELDS if fields.get(k)), "")


def _same_person(mine: dict[str, str], theirs: dict[str, str]) -> bool:
    """Whether two records of one student id are one person: the first field both have
    (in PERSON_FIELDS' order) agrees. Records with no field in common are two people, as
    an id that is a Canvas user in one notebook and a Moodle participant in another may be."""
    shared = next((k for k in PERSON_FIELDS if mine.get(k) and theirs.get(k)), None)
    return shared is not None and mine[shared] == theirs[shared]


def remember_people(
    course: Course, assignment: str, people: dict[str, dict[str, str]]
) -> list[str]:
    """Record who each student id of `assignment` is (WORK/lms/people.json) and write
    WORK/lms/people.csv: one row per person, their student id in each notebook. Returns the
    clashes: a student id that is one person in this notebook and another in an earlier
    one (Moodle numbers participants per assignment, so one gradebook id may be two
    people), each as a line that names both."""
    path = course.work / "lms" / "people.json"
    try:
        known = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    clashes = []
    for uid, fields in sorted(people.items()):
        me = _person(fields)
        for other, theirs in sorted(known.items()):
            them = _person(theirs.get(uid, {}))
            if other != assignment and me and them and not _same_person(fields, theirs[uid]):
                clashes.append(
                    f"student id {uid} is {me} in {assignment} and {them} in {other}: two "
                    "people under one id; grade these notebooks in separate work folders"
                )
    known[assignment] = people
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(known, indent=1, ensure_ascii=False), encoding="utf-8")
    notebooks = sorted(known)
    persons: dict[str, dict[str, str]] = {}
    for notebook in notebooks:
        for uid, fields in known[notebook].items():
            entry = persons.setdefault(
                _person(fields) or f"id:{uid}", {"name": fields.get("name", "")}
            )
            entry[notebook] = uid
    rows = [
        [printable(key), printable(entry["name"]), *(entry.get(n, "") for n in notebooks)]
        for key, entry in sorted(persons.items())
    ]
    _write_csv(path.with_suffix(".csv"), ["person", "name", *notebooks], rows)
    return clashes


def canvas_column(header: list[str], assignment: str, column: str | None) -> int:
    """The index of the assignment column to fill: the one named `column`, or the only one
    whose title names the notebook."""
    titled = [(i, h) for i, h in enumerate(header) if CANVAS_ASSIGNMENT.match(h)]
    if column is not None:
        found = [i for i, h in enumerate(header) if h == column.strip()]
        if not found:
            raise UsageError(
                f"--column: expected one of the gradebook's assignment columns "
                f"({', '.join(h for _, h in titled) or 'none'}), got {column!r}"
            )
        return found[0]
    matches = []
    for i, h in titled:
        title = CANVAS_ASSIGNMENT.match(h)["title"]  # type: ignore[index]
        named = match_name(title.replace(" ", "_") + ".ipynb", [assignment])
        if named is not None and named.assignment == assignment:
            matches.append(i)
    if len(matches) != 1:
        raise UsageError(
            f"-a {assignment}: expected one assignment column whose title names the notebook, "
            f"found {len(matches)} ({', '.join(header[i] for i in matches) or 'none'}); "
            "name it with --column"
        )
    return matches[0]


def fill_canvas(
    course: Course, assignment: str, gradebook: Path, column: str | None, missing_zero: bool
) -> Filled:
    header, rows = read_lms_csv(gradebook, "GRADEBOOK")
    if "ID" not in header or "Student" not in header:
        raise UsageError(
            f"GRADEBOOK: expected Canvas's gradebook export (columns Student, ID, ...), "
            f"found the columns {', '.join(header[:8])}"
        )
    target = canvas_column(header, assignment, column)
    keep = [i for i, h in enumerate(header) if h in CANVAS_IDENTITY] + [target]
    graded, done = graded_or_refuse(course, assignment), Filled()
    points = _points_possible(header, rows, target, "--column" if column else f"-a {assignment}")
    if isinstance(points, str):
        done.warnings.append(points)
    exported: set[str] = set()
    seen: dict[str, int] = {}
    people: dict[str, dict[str, str]] = {}
    uploads = _download_names(course, assignment)
    out_rows = []
    for row in rows:
        row = row + [""] * (len(header) - len(row))
        uid = row[header.index("ID")].strip()
        if not uid:  # "Points Possible" and Canvas's other rows without a student
            out_rows.append([row[i] for i in keep])
            continue
        seen[uid] = seen.get(uid, 0) + 1
        people[uid] = {
            "name": row[header.index("Student")],
            "login": row[header.index("SIS Login ID")] if "SIS Login ID" in header else "",
            "sis": row[header.index("SIS User ID")] if "SIS User ID" in header else "",
            "canvas": uid,
        }
        who = f"{row[header.index('Student')]} ({uid})"
        why = not_a_grade(graded[uid]) if uid in graded else ""
        if why:  # left as Canvas exported it
            done.failed.append(f"{who}: {why}")
        elif uid in graded:
            mine = graded[uid]
            if isinstance(points, float):
                grade = _decimal(mine["score"] * points / (mine["max_score"] or 1))
            else:
                grade = _number(mine["score"])
            row[target] = _replacing(done, who, row[target], grade)
            exported.add(uid)
            done.graded += 1
            _note_cleared(done, who, mine)
        else:
            row[target] = _not_graded_here(done, who, row[target], missing_zero, uploads.get(uid))
        out_rows.append([row[i] for i in keep])
    done.twice = sorted(u for u, n in seen.items() if n > 1)
    done.missing = sorted(s for s in graded if s not in seen)
    done.clashes = remember_people(course, assignment, people)
    folder = course.work / "lms" / assignment
    _write_csv(done.new_file(folder / "canvas_import.csv"), [header[i] for i in keep], out_rows)
    names = {s: Path(p).with_suffix(".html").name for s, p in uploads.items() if s in exported}
    if names:
        _pages_zip(course, assignment, done.new_file(folder / "canvas_feedback.zip"), names)
    return done


def _points_possible(header: list[str], rows: list[list[str]], target: int, option: str):
    """The points of the assignment column in Canvas's `Points Possible` row (the row under
    the header, or under Canvas's "Manual Posting" row, whose first cell says so): a float,
    or why there is none (a warning: the raw points are written). A read-only column (a
    total) is refused: Canvas's import ignores it."""
    name = header[target]
    found = next((r for r in rows if r and "Points Possible" in r[0]), None)
    if found is None:
        return (
            f"GRADEBOOK has no 'Points Possible' row (Canvas writes it under the header): "
            f"the raw points are written in {name!r}, not scaled to the assignment's points"
        )
    cell = found[target].strip() if target < len(found) else ""
    if re.search(r"read\s*only", cell, re.IGNORECASE):
        raise UsageError(
            f"{option}: expected an assignment column, which Canvas imports; {name!r} is read "
            f"only (its 'Points Possible' says {cell!r})"
        )
    points = lms_number(cell)
    if points is None or points <= 0:
        return (
            f"GRADEBOOK's 'Points Possible' row: expected a number of points > 0 in {name!r}, "
            f"found {cell!r}: the raw points are written, not scaled to the assignment's points"
        )
    return points


def fill_moodle(course: Course, assignment: str, worksheet: Path, missing_zero: bool) -> Filled:
    header, rows = read_lms_csv(worksheet, "WORKSHEET")
    lacking = [c for c in MOODLE_COLUMNS if c not in header]
    if lacking:
        raise UsageError(
            f"WORKSHEET: expected Moodle's grading worksheet, whose columns include "
            f"{', '.join(MOODLE_COLUMNS)}; it lacks {', '.join(lacking)}"
        )
    at = {c: header.index(c) for c in MOODLE_COLUMNS}
    graded, done = graded_or_refuse(course, assignment), Filled()
    comments = header.index(MOODLE_COMMENTS) if MOODLE_COMMENTS in header else None
    if comments is None:
        done.notes.append(
            f"WORKSHEET has no {MOODLE_COMMENTS!r} column (the assignment's feedback comments "
            "are off): grades written without a comment"
        )
    seen: dict[str, int] = {}
    folders: dict[str, str] = {}  # participant -> its folder in Moodle's feedback zip
    people: dict[str, dict[str, str]] = {}
    full_name = header.index("Full name") if "Full name" in header else None
    exported: set[str] = set()
    uploads = _download_names(course, assignment)
    for row in rows:
        row += [""] * (len(header) - len(row))
        found = MOODLE_PARTICIPANT.match(row[at["Identifier"]])
        if found is None:
            continue
        uid = found["id"]
        seen[uid] = seen.get(uid, 0) + 1
        who = row[full_name].strip() if full_name is not None else ""
        folders[uid] = f"{_safe_name(who) or 'Participant'}_{uid}_assignsubmission_file_"
        email = row[header.index("Email address")] if "Email address" in header else ""
        people[uid] = {"name": who, "email": email.strip().lower()}
        if uid not in graded:
            cell, who = row[at["Grade"]], row[at["Identifier"]]
            row[at["Grade"]] = _not_graded_here(done, who, cell, missing_zero, uploads.get(uid))
            continue
        label = row[at["Identifier"]].strip() + (f" ({who})" if who else "")
        mine = graded[uid]
        why = not_a_grade(mine)
        if why:  # Grade and Feedback comments left as Moodle wrote them
            done.failed.append(f"{label}: {why}")
            continue
        maximum = lms_number(row[at["Maximum Grade"]])
        if maximum is None or maximum <= 0:
            raise UsageError(
                f"WORKSHEET: column Maximum Grade of {label}: expected a number of points > 0 "
                f"(as Moodle writes it, such as 100.00 or 100,00), found "
                f"{row[at['Maximum Grade']]!r}; nothing written"
            )
        grade = _decimal(mine["score"] * maximum / (mine["max_score"] or 1))
        row[at["Grade"]] = _replacing(done, label, row[at["Grade"]], grade)
        if comments is not None:
            ours = _comment(mine, course.page_path(uid, assignment).is_file())
            row[comments] = _with_comment(done, label, row[comments], ours)
        exported.add(uid)
        done.graded += 1
        _note_cleared(done, label, mine)
    done.twice = sorted(u for u, n in seen.items() if n > 1)
    done.missing = sorted(s for s in graded if s not in seen)
    done.clashes = remember_people(course, assignment, people)
    folder = course.work / "lms" / assignment
    _write_csv(done.new_file(folder / "moodle_worksheet.csv"), header, rows)
    names = {s: f"{folders[s]}/{assignment}.html" for s in exported}
    if names:
        _pages_zip(course, assignment, done.new_file(folder / "moodle_feedback.zip"), names)
    return done


def lms_command(args, course: Course) -> int:
    """`python -m grader lms canvas|moodle FILE -a NB`: print what was written and who could
    not be placed; exit 1 when a graded student is missing from the file, an id is twice, a
    grading failed (not exported) or the grades are written other than asked (raw points)."""
    try:
        if args.lms == "canvas":
            done = fill_canvas(
                course, args.assignment, Path(args.file), args.column, args.missing_zero
            )
        else:
            done = fill_moodle(course, args.assignment, Path(args.file), args.missing_zero)
    except UsageError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    for path in done.written:
        print(f"wrote {path}")
    failed = f"{len(done.failed)} not exported (their grading failed); " if done.failed else ""
    empty = len(done.blank) - len(done.kept) - done.held
    kept = f"{len(done.kept)} kept the grade the LMS file holds, " if done.kept else ""
    held = (
        f"{done.held} left blank: an upload was taken in but has no grade here, "
        if done.held
        else ""
    )
    cleared = "".join(
        f", {len(lines)} {what}"
        for lines, what in (
            (done.replaced, "replacing another grade the LMS file held"),
            (done.cleared, "with a manual score a resubmission cleared"),
        )
        if lines
    )
    cleared = f" ({cleared[2:]})" if cleared else ""
    print(
        f"{done.graded} graded{cleared}; {failed}{len(done.blank)} in the LMS file without a "
        "grade here "
        f"({kept}{held}{empty} {'given 0' if args.missing_zero else 'left blank'})"
    )
    for label, lines, stream in (
        ("kept the LMS file's grade (no graded notebook here)", done.kept, sys.stdout),
        ("replaced the LMS file's grade", done.replaced, sys.stdout),
        ("grade missing here, upload taken in", done.taken_in, sys.stderr),
        ("manual grade cleared", done.cleared, sys.stderr),
        ("not exported", done.failed, sys.stderr),
        ("warning", done.warnings, sys.stderr),
        ("note", done.notes, sys.stdout),
        ("graded here, not in the LMS file", done.missing, sys.stderr),
        ("in the LMS file more than once", done.twice, sys.stderr),
        ("clash", done.clashes, sys.stderr),
    ):
        for line in lines:  # names from the LMS file: its control characters shown, not run
            print(f"{label}: {printable(line, 1000)}", file=stream)
    return 0 if done.ok else 1


def write_example_exports(
    folder: Path, assignment: str, people: list[tuple[str, str]], max_score: float
) -> tuple[Path, Path]:
    """What Canvas and Moodle would export for a class of `people` ((LMS id, name), as the
    download names them): a gradebook CSV and a grading worksheet in each LMS's layout, with
    nothing graded yet. `python -m grader sample` fills these, as a TA fills the real ones."""
    folder.mkdir(parents=True, exist_ok=True)
    number, topic = (assignment.split("_", 1) + [""])[:2]
    column = f"{number} {topic.replace('_', ' ').capitalize()} (10{number})"
    canvas = folder / "canvas_gradebook_export.csv"
    _write_csv(
        canvas,
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", column, "Current Score"],
        [["    Points Possible", "", "", "", "", _number(max_score), "(read only)"]]
        + [[name, uid, "", name, "Sample class", "", ""] for uid, name in people],
    )
    moodle = folder / "moodle_grading_worksheet.csv"
    _write_csv(
        moodle,
        list(MOODLE_WORKSHEET),
        [
            [
                f"Participant {uid}",
                name,
                f"{name}@example.edu",
                "Submitted for grading",
                "",
                f"{max_score:.2f}",
                "Yes",
                "-",
                "-",
                "",
            ]
            for uid, name in people
        ],
    )
    return canvas, moodle
