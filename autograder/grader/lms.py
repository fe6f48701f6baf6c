"""Grades and feedback pages back into the LMS, in the files each LMS imports (`python -m
grader lms canvas|moodle FILE -a NB`), written to WORK/lms/NB/.

- Canvas: the gradebook CSV the TA exported (Grades, Export). Its identity columns are
  `Student, ID, SIS User ID, SIS Login ID, Section` (some exports add more, such as
  `Integration ID`), then one column per assignment titled `Title (assignment id)`, and a
  `Points Possible` row under the header. Students are matched by `ID`, the Canvas user id
  that the submissions download puts in each file name (`ada_101_1_...`). The import file
  (`canvas_import.csv`) is the identity columns, the Points Possible row and the one
  assignment column: nothing else is changed. The pages go back in `canvas_feedback.zip`,
  each under its submission's download name with `.html` (Canvas's "Re-Upload
  Submissions" matches a file to a submission by that name).
- Moodle: the assignment's offline grading worksheet (View all submissions, "Download
  grading worksheet"): `Identifier` (`Participant 1234567`), `Full name`, `Email address`,
  `Status`, `Grade`, `Maximum Grade`, `Grade can be changed`, `Last modified (submission)`,
  `Last modified (grade)`, `Feedback comments`. Students are matched by the participant
  number, which the submissions download puts in each folder name
  (`Full Name_1234567_assignsubmission_file_`). `moodle_worksheet.csv` is the worksheet
  with `Grade` (the score on the worksheet's `Maximum Grade`) and `Feedback comments` (the
  score and what the tests found, link-free) filled; `moodle_feedback.zip` holds each
  page in a folder named as Moodle names a student's folder in its downloads, `Full
  name_participant_assignsubmission_file_` ("Upload multiple feedback files in a zip").

Who is who across notebooks is kept by the LMS's user fields (e-mail, login, SIS id, Canvas
user id), never by display name alone: WORK/lms/people.csv has one row per person with their
student id in each notebook, and an id that is one person in one notebook and another in
the next (a Moodle participant number is per assignment) is reported as a clash.

Nothing is dropped silently: a student of the LMS file who was not graded stays blank
(`--missing-zero`: 0) and is counted; a graded student whom the LMS file lacks, or an id that
the LMS file holds twice, is listed and the command exits 1 after writing what it could. A
manual grade from the formgrader wins over the autograde, as in grades.csv (the scores come
from the gradebook). A cell that a spreadsheet would run as a formula is written as text.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from grader.course import Course, UsageError, _cell, gradebook_rows
from grader.intake import match_name

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
MOODLE_COLUMNS = ("Identifier", "Grade", "Maximum Grade", "Feedback comments")
MOODLE_PARTICIPANT = re.compile(r"^\s*\S+\s+(?P<id>\d+)\s*$")  # "Participant 1234567", any language


@dataclass
class Filled:
    """What a fill did: the file written, who got a grade, and who could not be placed."""

    written: list[Path] = field(default_factory=list)
    graded: int = 0
    blank: list[str] = field(default_factory=list)  # in the LMS file, not graded
    missing: list[str] = field(default_factory=list)  # graded, not in the LMS file
    twice: list[str] = field(default_factory=list)  # ids the LMS file holds more than once
    clashes: list[str] = field(default_factory=list)  # one id, two people across notebooks

    @property
    def ok(self) -> bool:
        return not (self.missing or self.twice or self.clashes)


def read_lms_csv(path: Path, what: str) -> tuple[list[str], list[list[str]]]:
    """The header and rows of an LMS export (UTF-8 with or without a byte-order mark)."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise UsageError(
            f"{what}: expected an exported CSV file, found nothing at {path}"
        ) from None
    except UnicodeDecodeError as err:
        raise UsageError(f"{what}: expected a UTF-8 CSV file, {path} is not ({err})") from None
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or not rows[0]:
        raise UsageError(f"{what}: expected a header row, {path} is empty")
    return [h.strip() for h in rows[0]], rows[1:]


def _graded(course: Course, assignment: str) -> dict[str, dict]:
    """student id -> its gradebook row (manual grades included) for one notebook."""
    return {r["student_id"]: r for r in gradebook_rows(course) if r["assignment"] == assignment}


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
    characters (Moodle matches the folder by the participant number that follows it)."""
    return "".join(c for c in text if c.isprintable() and c not in "/\\:")[:100].strip()


def _number(value: float) -> str:
    return f"{value:g}"


def _comment(row: dict) -> str:
    """A short, link-free feedback comment: the score and what the tests found."""
    tests = row.get("tests") or {}
    full = sum(1 for v in tests.values() if v)
    text = f"Autograded: {_number(row['score'])} / {_number(row['max_score'])}"
    text += f" ({full} of {len(tests)} tests scored)."
    if row.get("manual") == "yes":
        text += " Includes a grade given by hand."
    return text + " Your feedback page is attached."


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
            page = course.work / "feedback" / student / assignment / f"{assignment}.html"
            if page.is_file():
                archive.write(page, name)
                count += 1
    return count


# who is who across notebooks: the LMS's user fields, never a display name alone
PERSON_FIELDS = ("email", "login", "sis", "canvas")


def _person(fields: dict[str, str]) -> str:
    """The key that names a person in the LMS: e-mail, login, SIS id or Canvas user id."""
    return next((f"{k}:{fields[k]}" for k in PERSON_FIELDS if fields.get(k)), "")


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
            if other != assignment and me and them and me != them:
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
        [key, entry["name"], *(entry.get(n, "") for n in notebooks)]
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
    graded, done = _graded(course, assignment), Filled()
    seen: dict[str, int] = {}
    people: dict[str, dict[str, str]] = {}
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
        if uid in graded:
            row[target] = _number(graded[uid]["score"])
            done.graded += 1
        else:
            row[target] = "0" if missing_zero else ""
            done.blank.append(f"{row[header.index('Student')]} ({uid})")
        out_rows.append([row[i] for i in keep])
    done.twice = sorted(u for u, n in seen.items() if n > 1)
    done.missing = sorted(s for s in graded if s not in seen)
    done.clashes = remember_people(course, assignment, people)
    folder = course.work / "lms" / assignment
    done.written.append(folder / "canvas_import.csv")
    _write_csv(done.written[-1], [header[i] for i in keep], out_rows)
    names = {
        s: Path(p).with_suffix(".html").name
        for s, p in _download_names(course, assignment).items()
        if s in seen
    }
    if names:
        done.written.append(folder / "canvas_feedback.zip")
        _pages_zip(course, assignment, done.written[-1], names)
    return done


def fill_moodle(course: Course, assignment: str, worksheet: Path, missing_zero: bool) -> Filled:
    header, rows = read_lms_csv(worksheet, "WORKSHEET")
    lacking = [c for c in MOODLE_COLUMNS if c not in header]
    if lacking:
        raise UsageError(
            f"WORKSHEET: expected Moodle's grading worksheet, whose columns include "
            f"{', '.join(MOODLE_COLUMNS)}; it lacks {', '.join(lacking)}"
        )
    at = {c: header.index(c) for c in MOODLE_COLUMNS}
    graded, done = _graded(course, assignment), Filled()
    seen: dict[str, int] = {}
    folders: dict[str, str] = {}  # participant -> its folder in Moodle's feedback zip
    people: dict[str, dict[str, str]] = {}
    full_name = header.index("Full name") if "Full name" in header else None
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
            row[at["Grade"]] = "0" if missing_zero else row[at["Grade"]]
            done.blank.append(row[at["Identifier"]])
            continue
        mine = graded[uid]
        try:
            scale = float(row[at["Maximum Grade"]]) / float(mine["max_score"] or 1)
        except ValueError:
            scale = 1.0
        row[at["Grade"]] = f"{round(mine['score'] * scale, 2):g}"
        row[at["Feedback comments"]] = _comment(mine)
        done.graded += 1
    done.twice = sorted(u for u, n in seen.items() if n > 1)
    done.missing = sorted(s for s in graded if s not in seen)
    done.clashes = remember_people(course, assignment, people)
    folder = course.work / "lms" / assignment
    done.written.append(folder / "moodle_worksheet.csv")
    _write_csv(done.written[-1], header, rows)
    names = {s: f"{folders[s]}/{assignment}.html" for s in graded if s in folders}
    if names:
        done.written.append(folder / "moodle_feedback.zip")
        _pages_zip(course, assignment, done.written[-1], names)
    return done


def lms_command(args, course: Course) -> int:
    """`python -m grader lms canvas|moodle FILE -a NB`: print what was written and who could
    not be placed; exit 1 when a graded student is missing from the file or an id is twice."""
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
    print(
        f"{done.graded} graded; {len(done.blank)} in the LMS file without a grade here "
        f"({'0 given' if args.missing_zero else 'left blank'})"
    )
    for student in done.missing:
        print(f"graded here, not in the LMS file: {student}", file=sys.stderr)
    for uid in done.twice:
        print(f"in the LMS file more than once: {uid}", file=sys.stderr)
    for clash in done.clashes:
        print(f"clash: {clash}", file=sys.stderr)
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
        [
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
        ],
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
