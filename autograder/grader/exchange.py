"""nbgrader's exchange (JupyterHub): collect submissions safely, release feedback through it.

The flow a course follows (autograder/README.md, "JupyterHub with nbgrader's exchange"): the
instructor runs `nbgrader release_assignment`; students fetch and submit from the
Assignments tab; the TA runs `python -m grader collect` (or `grade --from-exchange`, which
collects and grades), then `python -m grader release-feedback`; students fetch their
feedback. Grading is the TA command's own: the collected folder of an assignment
(`WORK/collected/<assignment>/<student>/<notebook>.ipynb`) goes through the same intake,
sandbox and report as an LMS download of it. (`python -m grader grade` also reads nbgrader's
own `submitted/` layout, `<student>/<assignment>/<notebook>.ipynb`.)

Why not `nbgrader collect`: a submission folder in the exchange's inbound belongs to the
student who made it, and its name says who it is for. nbgrader's collect trusts the name
(a mismatched owner is only a warning), so a student can hand in as a classmate; it copies
with `shutil.copytree`, which follows symbolic links as the TA, who can read the solutions;
and a name like `..+ps1+...` makes it write outside `submitted/`. Here a folder is taken
only when its owner is the student it names (unless `trust_names`, for an exchange where
every student shares one Unix account), names must be plain, and files are copied by
`grader.safecopy` (no link followed, only regular files, bounded). The time a folder claims
is the student's; a change after it (a file's ctime, which nobody can set back) is noted.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import pwd
import re
import shutil
import stat
import time
import unicodedata
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat

from grader.course import UsageError, without_why_blank
from grader.intake import match_name, printable
from grader.normalize import normalize
from grader.safecopy import copy_untrusted

NBGRADER_FILES = frozenset({"timestamp.txt", "submission_secret.txt"})
SECRET = re.compile(r"[0-9a-f]{16,256}")  # nbgrader writes secrets.token_hex(64)
SLACK_S = 120.0  # seconds between a submission's stated time and its last change that pass
DEFAULT_ROOT = "/usr/local/share/nbgrader/exchange"  # nbgrader's default Exchange.root


@dataclass
class ExchangeFolder:
    """An nbgrader exchange (its `root`) and the course in it."""

    root: Path
    course_id: str

    @property
    def inbound(self) -> Path:
        return self.root / self.course_id / "inbound"


def exchange_of(course, root: str | None = None, course_id: str | None = None) -> ExchangeFolder:
    """The exchange the course's nbgrader configuration names, unless overridden."""
    config = course.config()
    root = root or (config.Exchange.root if "root" in config.Exchange else DEFAULT_ROOT)
    course_id = course_id or config.CourseDirectory.get("course_id") or ""
    if not course_id:
        raise UsageError(
            "course id: expected CourseDirectory.course_id in "
            "nbgrader_config.py or --course-id, found none"
        )
    return ExchangeFolder(Path(root), course_id)


@dataclass
class Entry:
    """One folder of the inbound and what became of it."""

    name: str
    student: str = ""
    assignment: str = ""
    timestamp: str = ""
    owner: str = ""
    status: str = "refused"  # collected, kept (collected before), superseded, refused
    reason: str = ""
    notes: list[str] = field(default_factory=list)
    stamp: float = 0.0


def _owner(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def _parse(entry: Entry, exchange: ExchangeFolder, trust_names: bool) -> bool:
    """Fill in who, what and when from the folder's name (nbgrader's `user+assignment+
    timestamp+random`); False, with the reason, when it is not taken."""
    parts = entry.name.rsplit("+", 3)
    if len(parts) < 3:
        entry.reason = "not a submission folder name (student+assignment+time)"
        return False
    entry.student, entry.assignment, entry.timestamp = parts[0], parts[1], parts[2]
    if not entry.student or entry.student.startswith(".") or "\x00" in entry.student:
        entry.reason = f"student name {printable(entry.student)!r} is not a user name"
        return False
    try:
        from nbgrader.utils import parse_utc

        when = parse_utc(entry.timestamp)
        entry.stamp = when.replace(tzinfo=dt.UTC).timestamp()
    except Exception as err:  # the name is the student's: anything can be in it
        entry.reason = f"unreadable time {printable(entry.timestamp)!r} ({type(err).__name__})"
        return False
    try:
        info = os.stat(exchange.inbound / entry.name, follow_symlinks=False)
    except OSError as err:
        entry.reason = f"could not be read ({type(err).__name__})"
        return False
    entry.owner = _owner(info.st_uid)
    if not stat.S_ISDIR(info.st_mode):
        entry.reason = "not a folder (a link or a file)"
        return False
    if entry.owner != entry.student and not trust_names:
        entry.reason = (
            f"owned by {entry.owner}, but named for {printable(entry.student)}: "
            "not taken (a submission must be made by the student it names)"
        )
        return False
    return True


def read_inbound(
    exchange: ExchangeFolder, assignments: set[str] | None, trust_names: bool = False
) -> list[Entry]:
    """Every folder of the inbound for `assignments` (all when None), each taken or refused
    with the reason; of a student's taken folders the latest stated time wins."""
    if not exchange.inbound.is_dir():
        raise FileNotFoundError(
            f"exchange inbound: expected a folder at {exchange.inbound} "
            "(nbgrader release_assignment makes it), found none"
        )
    entries = []
    for name in sorted(os.listdir(exchange.inbound)):
        entry = Entry(printable(name, 300))
        if entry.name != name:
            entry.reason = "a name with control characters or undecodable bytes: not read"
            entries.append(entry)
            continue
        if not _parse(entry, exchange, trust_names):
            if assignments is None or entry.assignment in assignments:
                entries.append(entry)
            continue
        if assignments is not None and entry.assignment not in assignments:
            continue
        entry.status = "collected"
        entries.append(entry)
    latest: dict[tuple[str, str], Entry] = {}
    for entry in entries:
        if entry.status != "collected":
            continue
        key = (entry.student, entry.assignment)
        if key not in latest or (entry.stamp, entry.name) > (latest[key].stamp, latest[key].name):
            latest[key] = entry
    for entry in entries:
        if entry.status != "collected":
            continue
        chosen = latest[(entry.student, entry.assignment)]  # every collected entry has one
        if entry is not chosen:
            entry.status, entry.reason = "superseded", f"a later submission: {chosen.name}"
    return entries


# -- collecting ----------------------------------------------------------------------------
def collected_folder(course, assignment: str) -> Path:
    """WORK/collected/<assignment>: one folder per student holding their files, what
    `python -m grader grade` takes as a download of that assignment."""
    return course.work / "collected" / assignment


def state_folder(course, assignment: str) -> Path:
    """WORK/state/exchange/<assignment>: collect.json (the last collect, every inbound
    folder), students/<user>.json (time and secret of what was collected), release/."""
    return course.work / "state" / "exchange" / assignment


def _meta_path(course, assignment: str, student: str) -> Path:
    return state_folder(course, assignment) / "students" / f"{student}.json"


def _read_meta(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def collect(
    course,
    exchange: ExchangeFolder,
    assignments: list[str] | None = None,
    trust_names: bool = False,
    recollect: bool = False,
) -> list[Entry]:
    """Copy each student's latest submission into WORK/collected/<assignment>/<student>/
    and record its time and secret; return every inbound folder with what became of it.

    A folder collected before is kept as it was then (a student can still change files in
    their own inbound folder after submitting; the snapshot taken at the deadline is what
    is graded) unless `recollect`; a new submission replaces it."""
    wanted = set(assignments) if assignments else set(course.assignments())
    entries = read_inbound(exchange, wanted, trust_names)
    for entry in entries:
        if entry.status == "collected":
            _take(course, exchange, entry, recollect)
    for assignment in sorted({e.assignment for e in entries if e.assignment in wanted}):
        report = state_folder(course, assignment) / "collect.json"
        report.parent.mkdir(parents=True, exist_ok=True)
        report.write_text(
            json.dumps(
                {
                    "exchange": str(exchange.inbound),
                    "collected_at": _now(),
                    "entries": [asdict(e) for e in entries if e.assignment == assignment],
                },
                indent=1,
                ensure_ascii=False,
            ),
            encoding="utf-8",
        )
    return entries


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def _take(course, exchange: ExchangeFolder, entry: Entry, recollect: bool) -> None:
    meta_path = _meta_path(course, entry.assignment, entry.student)
    target = collected_folder(course, entry.assignment) / entry.student
    earlier = _read_meta(meta_path)
    if earlier.get("inbound") == entry.name and target.is_dir() and not recollect:
        entry.status, entry.reason = "kept", f"collected before, at {earlier.get('collected_at')}"
        entry.notes = earlier.get("notes", [])
        return
    staging = target.parent / f".collecting-{entry.student}"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        copied = copy_untrusted(exchange.inbound / entry.name, staging, NBGRADER_FILES)
        secret = _secret(exchange.inbound / entry.name)
    except OSError as err:
        shutil.rmtree(staging, ignore_errors=True)
        entry.status, entry.reason = "refused", f"could not be copied ({type(err).__name__})"
        return
    entry.notes = copied.notes + _time_notes(entry, copied.newest_change)
    if not secret:
        entry.notes.append(
            "no nbgrader submission secret: its feedback cannot go back "
            "through the exchange (send the feedback page yourself)"
        )
    _replace(staging, target)
    meta_path.parent.mkdir(parents=True, exist_ok=True)
    meta_path.write_text(
        json.dumps(
            {
                "inbound": entry.name,
                "timestamp": entry.timestamp,
                "owner": entry.owner,
                "secret": secret,
                "collected_at": _now(),
                "notes": entry.notes,
            },
            indent=1,
        ),
        encoding="utf-8",
    )


def _replace(staging: Path, target: Path) -> None:
    old = target.parent / f".replaced-{target.name}"
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        target.rename(old)
    staging.rename(target)
    shutil.rmtree(old, ignore_errors=True)


def _secret(folder: Path) -> str:
    """The submission's nbgrader secret, if it is one (the file is the student's)."""
    try:
        fd = os.open(folder / "submission_secret.txt", os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return ""
    try:
        text = os.read(fd, 1024).decode("ascii", "replace").strip()
    finally:
        os.close(fd)
    return text if SECRET.fullmatch(text) else ""


def _time_notes(entry: Entry, newest_change: float) -> list[str]:
    notes = []
    if newest_change > entry.stamp + SLACK_S:
        notes.append(
            f"changed after its submission time {entry.timestamp}: last change at "
            f"{_utc(newest_change)}"
        )
    if entry.stamp > time.time() + SLACK_S:
        notes.append(f"states a submission time in the future ({entry.timestamp})")
    return notes


def _utc(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def collect_summary(entries: list[Entry], exchange: ExchangeFolder) -> str:
    counts = {
        s: sum(e.status == s for e in entries)
        for s in ("collected", "kept", "superseded", "refused")
    }
    lines = [
        f"exchange: {len(entries)} folder(s) in {exchange.inbound}: "
        + ", ".join(f"{n} {s}" for s, n in counts.items())
    ]
    for entry in entries:
        if entry.status in ("refused", "superseded"):
            lines.append(f"  {entry.status} {printable(entry.name, 160)}: {entry.reason}")
        lines += [
            f"  note {entry.student}/{entry.assignment}: {printable(n, 200)}" for n in entry.notes
        ]
    return "\n".join(lines)


# -- feedback back through the exchange ----------------------------------------------------
def _student_ids(course) -> dict[str, str]:
    """Exchange user name -> nbgrader student id (a user name that is not a plain word gets
    an id with a hash, `grader.intake.Identity`)."""
    return {
        who["key"].split(":", 1)[1]: sid
        for sid, who in course.known_students().items()
        if who.get("key", "").startswith("folder:")
    }


def _graded_notebooks(course, assignment: str, user: str, sid: str) -> list[str]:
    """Notebook ids (file stems) of the collected submission whose normalised form is what
    was graded, when that grading is up to date; nbgrader keys feedback by them."""
    submitted = course.submission_path(sid, assignment)
    if not submitted.exists() or not course.up_to_date(sid, assignment):
        return []
    graded, release = without_why_blank(submitted.read_bytes()), course.release(assignment)
    folder = collected_folder(course, assignment) / user
    candidates = [
        p
        for p in sorted(folder.rglob("*.ipynb"))
        if not any(part.startswith(".") for part in p.relative_to(folder).parts)
        and (match_name(p.name, [assignment]) or (None,))[0] == assignment
    ]
    if not candidates:  # graded as the blank notebook; the student's cache names it so
        return [assignment] if graded == nbformat.writes(release).encode("utf-8") else []
    found = []
    for path in candidates:
        nb, _ = normalize(path.read_bytes(), release)
        if nbformat.writes(nb).encode("utf-8") == graded:
            found.append(path.stem)
    return found


def release_feedback(course, exchange: ExchangeFolder, assignment: str) -> list[str]:
    """Put each collected student's feedback page for `assignment` in the exchange, where
    only that student's `nbgrader fetch_feedback` finds it (its name is a hash of the
    submission's secret). Returns one line per student: released, or why not."""
    stage = state_folder(course, assignment) / "release"
    shutil.rmtree(stage, ignore_errors=True)
    ids, lines, staged = _student_ids(course), [], 0
    for meta_path in sorted((state_folder(course, assignment) / "students").glob("*.json")):
        user, meta = meta_path.stem, _read_meta(meta_path)
        why = _stage_one(
            course, assignment, user, ids.get(unicodedata.normalize("NFC", user)), meta, stage
        )
        staged += why == ""
        lines.append(
            f"{'released' if not why else 'not released'} {user}: "
            f"{why or 'feedback of the submission of ' + meta.get('timestamp', '?')}"
        )
    if staged:
        _nbgrader_release(stage, exchange, assignment)
    return lines


def _stage_one(course, assignment: str, user: str, sid: str | None, meta: dict, stage: Path) -> str:
    """Lay out one student's feedback as nbgrader's release_feedback reads it; "" when
    staged, else why not."""
    if sid is None:
        return "not graded yet (python -m grader grade --from-exchange)"
    page = course.page_path(sid, assignment)
    if not meta.get("secret"):
        return f"no submission secret; send {page} yourself"
    if not page.exists():
        return "no feedback page yet (python -m grader grade --from-exchange)"
    notebooks = _graded_notebooks(course, assignment, user, sid)
    if not notebooks:
        return (
            "its feedback is not for the submission collected last: grade again "
            "(python -m grader grade --from-exchange)"
        )
    folder = stage / "feedback" / user / assignment
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "timestamp.txt").write_text(meta["timestamp"])
    (folder / "submission_secret.txt").write_text(meta["secret"])
    for notebook in notebooks:
        shutil.copyfile(page, folder / f"{notebook}.html")
    return ""


def _nbgrader_release(stage: Path, exchange: ExchangeFolder, assignment: str) -> None:
    """nbgrader's own ExchangeReleaseFeedback on the staged folder: it names each page by
    the hash of its secret and notebook, in the course's feedback outbound."""
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange.default import ExchangeReleaseFeedback
    from traitlets.config import Config

    config = Config()
    config.CourseDirectory.root = str(stage)
    config.CourseDirectory.feedback_directory = "feedback"
    config.CourseDirectory.course_id = exchange.course_id
    config.CourseDirectory.assignment_id = assignment
    config.Exchange.root = str(exchange.root)
    coursedir = CourseDirectory(config=config)
    releaser = ExchangeReleaseFeedback(
        coursedir=coursedir, authenticator=Authenticator(config=config), config=config
    )
    # The grader writes with umask 077 (grader/lockdown.py); a page in the exchange must be
    # readable by its student, whose fetch_feedback finds it by the hash of their secret
    # (nbgrader copies the staged file's mode).
    for page in stage.rglob("*.html"):
        page.chmod(0o644)
    previous = os.umask(0o022)
    try:
        releaser.start()
    finally:
        os.umask(previous)
