"""Grade a class: intake, normalise, autograde in parallel, feedback, CSV. Built on nbgrader.

Every step is an nbgrader step on the course's own configuration (`nbgrader_config.py`,
plus `grader.config.apply`): `generate_assignment` fills the gradebook, `autograde` grades
(executing with `SandboxedExecute`), `generate_feedback` writes the HTML. Workers are
processes, each with its own nbgrader API and database connections; SQLite copes with the
short write transactions of several workers thanks to a busy timeout, PostgreSQL natively.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import fcntl
import hashlib
import importlib.util
import json
import os
import re
import signal
import sys
import threading
import time
import warnings
from collections.abc import Set as AbstractSet
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path

import nbformat

from attnbook.grading import SECRET_FILE
from grader import lifetime
from grader.execute import close_spare, start_kernels_ahead
from grader.intake import Intake, Upload, collect, is_late, older_than, printable
from grader.normalize import answer_digests, normalize
from grader.sandbox import WORKER_ENV, close_zygotes, compile_mounted_code
from grader.status import FAILED, NOT_STARTED

AUTOGRADER = Path(__file__).resolve().parents[1]
GRADER_DIR = Path(__file__).resolve().parent
GRADER_VERSION = "2"
OWN_CODE = "<own code>"


def package_dir() -> Path:
    """The `attnbook` package graded notebooks import (found without importing it)."""
    spec = importlib.util.find_spec("attnbook")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("package_dir: expected an importable attnbook package, found none")
    return Path(spec.submodule_search_locations[0])


def grading_inputs(root: Path, assignment: str) -> list[tuple[str, Path]]:
    """(label, path) of every file that decides a grade of `assignment` besides the
    submission: the instructor's notebook, the reference answers, the `attnbook` package
    (checks, setup helpers), the grader's code and nbgrader's configuration. Files of other
    notebooks (`nbNN...`) are left out, so fixing notebook 05's key does not regrade 01."""
    number = assignment.split("_", 1)[0]

    def mine(path: Path) -> bool:
        other = re.match(r"nb(\d+)", path.name)
        return other is None or other.group(1) == number

    def listed(label: str, folder: Path, pattern: str) -> list[tuple[str, Path]]:
        return [
            (f"{label}/{p.relative_to(folder).as_posix()}", p)
            for p in sorted(folder.glob(pattern))
            if p.is_file() and mine(p) and not {"__pycache__", ".ipynb_checkpoints"} & set(p.parts)
        ]

    reference = Path(os.environ.get("ATTNBOOK_AUTOGRADER") or root / "autograder") / "reference"
    package = package_dir()
    config = root / "autograder" / "nbgrader_config.py"
    secret = reference.parent / SECRET_FILE  # the hidden cases' inputs (grader/secret.py)
    return (
        ([("course_secret", secret)] if secret.is_file() else [])
        + listed("solutions", root / "solutions" / assignment, "**/*")
        + listed("reference", reference, "*.py")
        + listed("attnbook", package, "**/*.py")
        + listed("grader", GRADER_DIR, "*.py")
        + ([("nbgrader_config.py", config)] if config.is_file() else [])
    )


BLANK = "graded as the blank notebook"  # what intake says of an upload it could not use
WHY_BLANK_ID = "why-graded-blank"  # the id of the cell that tells the student why


def without_why_blank(data: bytes) -> bytes:
    """A submitted notebook's bytes without the cell `why_blank` put first: the release's
    bytes, for an upload graded as the blank notebook."""
    nb = nbformat.reads(data.decode("utf-8"), as_version=4)
    nb.cells = [c for c in nb.cells if c.get("id") != WHY_BLANK_ID]
    return nbformat.writes(nb).encode("utf-8")


def why_blank(problems: list[str], notes: list[str]) -> nbformat.NotebookNode:
    """The first cell of the page of a student whose upload could not be used: why, and what
    to do (a Markdown cell of the submission: the page shows it as text)."""
    reasons = "\n".join(f"- {printable(p, 300)}" for p in [*problems, *notes])
    cell = nbformat.v4.new_markdown_cell(
        "YOUR UPLOAD COULD NOT BE GRADED AS YOU WROTE IT\n\n"
        f"{reasons}\n\n"
        "Below is the blank notebook, graded as such: no answer of yours is in it.\n"
        "What to do: open the .ipynb file you uploaded in Jupyter and check that it opens "
        "and holds your answers; save it (File > Save) and upload that .ipynb file again, "
        "named as the assignment's notebook. If it still fails, ask your TA: they have the "
        "file you uploaded and this reason."
    )
    cell["id"] = WHY_BLANK_ID  # the same upload gives the same bytes: no regrade
    return cell


def private_folder(folder: Path) -> None:
    """Make `folder` (the work folder: gradebook, grades.csv, submissions, feedback) and
    keep it 0700 when this user owns it: other accounts cannot even list it."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    if folder.stat().st_uid == os.geteuid() and folder.stat().st_mode & 0o077:
        folder.chmod(0o700)


class UsageError(ValueError):
    """A command-line value that names nothing (the message says which and why)."""


class WorkFolderBusy(UsageError):
    """Another grader command holds the work folder (`Course.hold`)."""


def _taken_before(notes_path: Path) -> dict | None:
    """The upload an earlier run took in for a student's notebook (`Upload.origin`, kept
    in its intake notes), None where it took in none (graded blank) or none is recorded."""
    try:
        taken = json.loads(notes_path.read_text()).get("upload")
    except (OSError, ValueError, AttributeError):
        return None
    return taken if isinstance(taken, dict) else None


def assignments(root: Path = AUTOGRADER.parent) -> list[str]:
    """The course's assignments, in order: every solutions/NN_topic/NN_topic.ipynb. The one
    list the release, the grader, the catalogue and the tests all use."""
    return sorted(
        p.parent.name
        for p in (Path(root) / "solutions").glob("*/*.ipynb")
        if p.stem == p.parent.name and ".ipynb_checkpoints" not in p.parts
    )


def default_db_url(work: Path) -> str:
    return f"sqlite:///{work / 'gradebook.db'}?timeout=120"


def sqlite_file(db_url: str) -> Path | None:
    """The file of a SQLite ``db_url`` (None for another database)."""
    if not db_url.startswith("sqlite:///"):
        return None
    return Path(db_url.removeprefix("sqlite:///").split("?")[0])


@dataclass
class Course:
    """A course folder (solutions/, autograder/nbgrader_config.py) and a work folder."""

    root: Path = AUTOGRADER.parent
    work: Path = AUTOGRADER
    db_url: str = ""
    sandbox: str = "bwrap"
    cell_timeout: float | None = None
    notebook_timeout: float | None = None
    memory_mb: int | None = None
    quiet: bool = False
    # other machines' work folders (a sharded class): where the pages and run reports are of
    # the notebooks graded there, for `export`
    shard_work: tuple[Path, ...] = ()
    _api: object = field(default=None, repr=False)
    _digests: dict = field(default_factory=dict, repr=False)
    _limits: str = field(default="", repr=False)
    last_intake: Intake | None = field(default=None, repr=False)
    _held: object = field(default=None, init=False, repr=False)  # `hold`'s open lock file

    def __post_init__(self):
        self.root, self.work = Path(self.root).resolve(), Path(self.work).resolve()
        self.db_url = self.db_url or default_db_url(self.work)
        warnings.filterwarnings("ignore", message=".*not in session.*")  # nbgrader's models
        os.environ.setdefault("ATTNBOOK_AUTOGRADER", str(self.root / "autograder"))
        if self.work.is_dir():
            private_folder(self.work)
        bin_dir = os.path.dirname(sys.executable)  # nbgrader runs alembic from PATH
        if bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
            os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")

    # -- nbgrader --------------------------------------------------------------------------
    def config(self):
        from traitlets.config.loader import PyFileConfigLoader

        from grader.config import apply

        c = PyFileConfigLoader(
            "nbgrader_config.py", path=str(self.root / "autograder")
        ).load_config()
        c.CourseDirectory.root = str(self.root)
        for name in ("submitted", "autograded", "feedback"):
            setattr(c.CourseDirectory, f"{name}_directory", str(self.work / name))
        c.CourseDirectory.release_directory = str(self.work / "release")
        c.CourseDirectory.db_url = self.db_url
        apply(c, report_directory=str(self.work / "reports"))
        c.SandboxedExecute.sandbox = self.sandbox
        for trait, value in (
            ("cell_timeout", self.cell_timeout),
            ("notebook_timeout", self.notebook_timeout),
            ("memory_mb", self.memory_mb),
        ):
            if value is not None:
                setattr(c.SandboxedExecute, trait, value)
        return c

    def api(self):
        if self._api is None:
            from nbgrader.apps import NbGraderAPI

            self._api = NbGraderAPI(config=self.config())
        return self._api

    def assignments(self) -> list[str]:
        return assignments(self.root)

    def release(self, assignment: str) -> nbformat.NotebookNode:
        return nbformat.read(self.work / "release" / assignment / f"{assignment}.ipynb", 4)

    @contextlib.contextmanager
    def lock(self, name: str):
        """Held by one process at a time: of this machine (a file lock in the work folder)
        and, when the gradebook is PostgreSQL, of every machine sharing it (an advisory lock).

        Shards on several machines start against one fresh database at once; without the
        database lock two of them create nbgrader's tables and enum types concurrently and
        one fails with a duplicate-key error."""
        private_folder(self.work)
        with open(self.work / f".{name}.lock", "w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            with self._database_lock(name):
                yield

    def hold(self, command: str) -> None:
        """Take the work folder for this process until `let_go` (or its end): one command
        that writes it at a time (two `grade`s would both grade everything, and each other's
        reports would vanish under the first one's table). A second is refused at once
        (WorkFolderBusy, naming the work folder and the process that holds it); the lock
        (flock on WORK/.grader.lock) goes with its process however that ends."""
        if self._held is not None:
            return
        self.work.mkdir(parents=True, exist_ok=True)
        private_folder(self.work)
        handle = open(self.work / ".grader.lock", "a+", encoding="utf-8")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "?"
            handle.close()
            raise WorkFolderBusy(
                f"{command}: refused, the work folder {self.work} is in use by another grader "
                f"command (PID {holder}); wait for it to end, or give another --work"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}, {command}\n")
        handle.flush()
        self._held = handle

    def let_go(self) -> None:
        """Give back the work folder `hold` took (closing the file frees its lock)."""
        if self._held is not None:
            self._held.close()  # type: ignore[attr-defined]
            self._held = None

    @contextlib.contextmanager
    def _database_lock(self, name: str):
        if not self.db_url.startswith("postgresql"):
            yield  # SQLite lives in the work folder: the file lock covers it
            return
        from sqlalchemy import create_engine, text

        key = int.from_bytes(
            hashlib.sha256(f"attnbook-grader:{name}".encode()).digest()[:8], "big", signed=True
        )
        engine = create_engine(self.db_url)
        try:
            with engine.connect() as connection:
                connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": key})
                try:
                    yield
                finally:
                    connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": key})
        finally:
            engine.dispose()

    def ensure_assignment(self, assignment: str) -> None:
        """The assignment in the gradebook and its release in work/release (nbgrader's own)."""
        from nbgrader.api import Gradebook, MissingEntry

        with self.lock("generate"):
            release = self.work / "release" / assignment / f"{assignment}.ipynb"
            with Gradebook(self.db_url) as gb:
                try:
                    known = bool(gb.find_assignment(assignment).notebooks)
                except MissingEntry:
                    known = False
            if known and release.exists():
                return
            for attempt in range(3):  # shards on other machines may create it at the same time
                result = self.api().generate_assignment(assignment, force=True, create=True)
                if result["success"]:
                    return
                time.sleep(1 + attempt)
            raise RuntimeError(
                f"nbgrader generate_assignment {assignment} failed:\n"
                f"{result['log']}\n{result.get('error')}"
            )

    # -- intake ----------------------------------------------------------------------------
    def page_path(self, student: str, assignment: str) -> Path:
        """The feedback page of one student's notebook (nbgrader's generate_feedback)."""
        return self.work / "feedback" / student / assignment / f"{assignment}.html"

    def submission_path(self, student: str, assignment: str) -> Path:
        return self.work / "submitted" / student / assignment / f"{assignment}.ipynb"

    def state_path(self, student: str, assignment: str) -> Path:
        return self.work / "state" / assignment / f"{student}.json"

    def grade_ids(self, assignments: list[str]) -> dict[str, set[str]]:
        """assignment -> the grade_ids of its graded cells (from the instructor's notebook),
        to recognise a notebook by its cells when its name says nothing."""
        found = {}
        for assignment in assignments:
            path = self.root / "solutions" / assignment / f"{assignment}.ipynb"
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"] if path.exists() else []
            found[assignment] = {
                c["metadata"]["nbgrader"]["grade_id"]
                for c in cells
                if c.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            }
        return found

    def known_students(self) -> dict[str, dict]:
        """Student id -> {key, name, lms_id, layout} of every student taken in so far."""
        path = self.work / "state" / "students.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}

    def collect(self, source: Path, assignments: list[str], owned: bool = False) -> Intake:
        """`source` read as a download (`grader.intake.collect`); `owned`: each top folder is
        one student's own, as the exchange and Gradescope hand them in (see `grade_class`)."""
        known = {sid: who["key"] for sid, who in self.known_students().items()}
        every = sorted({*assignments, *self.assignments()})  # another notebook is named
        return collect(Path(source), assignments, self.grade_ids(every), known, wrapped=not owned)

    def take_in(
        self,
        source: Path,
        assignments: list[str],
        intake: Intake | None = None,
        replace_newer: bool = False,
    ) -> Intake:
        """Write each student's normalised notebooks into submitted/, the students' names
        into the gradebook and the intake report (every file, graded or why not) into
        WORK/intake.json. One upload that cannot be taken in costs only itself.

        An upload older than the one an earlier run took in for that student and notebook
        (`grader.intake.older_than`: an earlier download run again after the late
        submissions') replaces nothing: the newer one stays, with its grade, its manual
        scores and its late flag, and this one is ignored, saying so; unless
        `replace_newer` (the TA going back to an earlier upload on purpose)."""
        intake = intake or self.collect(source, assignments)
        for student in intake.students():
            for assignment in assignments:
                self._take_one(intake, student, assignment, Path(source), replace_newer)
        self._remember(intake)
        write_intake_report(self.work / "intake.json", Path(source), assignments, intake)
        self.last_intake = intake
        return intake

    def _take_one(
        self,
        intake: Intake,
        student: str,
        assignment: str,
        source: Path,
        replace_newer: bool = False,
    ) -> None:
        upload = intake.uploads.get((student, assignment))
        notes_path = self.state_path(student, assignment).with_suffix(".intake.json")
        if (
            upload is not None
            and not replace_newer
            and self._kept_newer(intake, upload, notes_path, source)
        ):
            return
        taken = _taken_before(notes_path) if upload is None else None
        if taken is not None and self.submission_path(student, assignment).exists():
            # this download holds none of the student's for this notebook (a late download
            # with another notebook of theirs): the upload taken in before stays, graded
            intake.kept[(student, assignment)] = taken
            return
        try:
            if upload is not None and upload.refused:
                nb, notes = (
                    self.release(assignment),
                    [f"{upload.refused}; {BLANK}"],
                )
            else:
                nb, notes = normalize(upload.data if upload else None, self.release(assignment))
            text = nbformat.writes(nb)
        except Exception as err:  # a bug on one upload must not stop the class
            nb, notes = (
                self.release(assignment),
                [
                    f"this upload could not be taken in ({type(err).__name__}: "
                    f"{printable(str(err))}); {BLANK}"
                ],
            )
            text = nbformat.writes(nb)
        problems = notes  # what went wrong with the notebook itself: the status says it
        notes = upload.notes if upload else self._ignored_of(intake, student)
        if any(BLANK in p for p in problems):
            nb = nbformat.reads(text, as_version=4)
            nb.cells.insert(0, why_blank(problems, notes))
            text = nbformat.writes(nb)
        late = bool(upload is not None and is_late(upload.name))
        path = self.submission_path(student, assignment)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8")
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
        notes_path.parent.mkdir(parents=True, exist_ok=True)
        origin = upload.origin(source) if upload is not None else None
        notes_path.write_text(
            json.dumps({"notes": notes, "problems": problems, "late": late, "upload": origin})
        )

    @staticmethod
    def _kept_newer(intake: Intake, upload: Upload, notes_path: Path, source: Path) -> bool:
        """Whether an earlier run took in a newer upload of this student and notebook than
        `upload` (its record in `notes_path`): then that one is kept and `upload`'s file is
        ignored, naming both (`Intake.kept`)."""
        taken = _taken_before(notes_path)
        if taken is None or not (why := older_than(upload.origin(source), taken)):
            return False
        intake.kept[(upload.student, upload.assignment)] = taken
        for record in intake.files:
            if record.path == upload.name and record.student == upload.student:
                record.status = "ignored"
                record.reason = (
                    f"older than {printable(str(taken.get('path')))!r} (from "
                    f"{printable(str(taken.get('download')))}), the upload already taken in for "
                    f"{upload.assignment}: {why}; that one is kept, with its grade, and nothing "
                    "is graded again (grade with --replace-newer to take this one instead)"
                )
        return True

    @staticmethod
    def _ignored_of(intake: Intake, student: str) -> list[str]:
        """The student's own ignored files, for a notebook graded blank: so the status says
        `Untitled.ipynb` was there and why it was not graded."""
        return [
            f"ignored {f.path!r}: {f.reason}"
            for f in intake.files
            if f.student == student and f.status == "ignored" and not f.assignment
        ]

    def _remember(self, intake: Intake) -> None:
        """Keep who each student id is (for the next run's ids) and their readable name in
        the gradebook (first_name, full Unicode; lms_user_id), without overwriting a name a
        TA set."""
        from nbgrader.api import Gradebook, MissingEntry

        known = self.known_students()
        for sid, who in intake.people.items():
            known[sid] = {
                "key": who.key,
                "name": who.name,
                "lms_id": who.lms_id,
                "layout": who.layout,
            }
        path = self.work / "state" / "students.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            json.dumps(known, indent=1, ensure_ascii=False, sort_keys=True), encoding="utf-8"
        )
        with warnings.catch_warnings(), Gradebook(self.db_url) as gb:
            warnings.simplefilter("ignore")
            for sid, who in sorted(intake.people.items()):
                try:
                    student = gb.find_student(sid)
                except MissingEntry:
                    gb.add_student(sid, first_name=who.name[:128], lms_user_id=who.lms_id or None)
                    continue
                if not student.first_name:
                    student.first_name = who.name[:128]
                if who.lms_id and not student.lms_user_id:
                    student.lms_user_id = who.lms_id
                gb.db.commit()

    def collected(self, assignment: str) -> list[str]:
        folder = self.work / "submitted"
        return sorted(p.parent.parent.name for p in folder.glob(f"*/{assignment}/*.ipynb"))

    def inputs_digest(self, assignment: str) -> str:
        """Digest of every grading input of `assignment` (see `grading_inputs`), recomputed
        when one of them changes on disk."""
        inputs = grading_inputs(self.root, assignment)
        stamp = tuple((label, p.stat().st_mtime_ns, p.stat().st_size) for label, p in inputs)
        cached = self._digests.get(assignment)
        if cached is None or cached[0] != stamp:
            digest = hashlib.sha256(GRADER_VERSION.encode())
            for label, path in inputs:
                digest.update(f"\0{label}\0{path.stat().st_size}\0".encode())
                digest.update(path.read_bytes())
            self._digests[assignment] = cached = (stamp, digest.hexdigest())
        return cached[1]

    def limits(self) -> str:
        """The settings that decide a grade, as the configuration and the command line set
        them: the sandbox and the kernel's time, memory and output limits. A run with other
        limits regrades, so a run with a mistaken limit (zeros for a kernel with too little
        memory) does not stand."""
        if not self._limits:
            from grader.preprocessors import SandboxedExecute

            run = SandboxedExecute(config=self.config())
            names = ("sandbox", "cell_timeout", "notebook_timeout", "memory_mb", "output_chars")
            self._limits = json.dumps({name: getattr(run, name) for name in names})
        return self._limits

    def fingerprint(self, student: str, assignment: str) -> str:
        digest = hashlib.sha256(self.inputs_digest(assignment).encode())
        digest.update(self.limits().encode())
        digest.update(self.submission_path(student, assignment).read_bytes())
        return digest.hexdigest()

    def state(self, student: str, assignment: str) -> dict:
        path = self.state_path(student, assignment)
        try:
            return json.loads(path.read_text()) if path.exists() else {}
        except ValueError:
            return {}

    def up_to_date(self, student: str, assignment: str) -> bool:
        graded = self.work / "autograded" / student / assignment / f"{assignment}.ipynb"
        if not graded.exists():
            return False
        return self.state(student, assignment).get("fingerprint") == self.fingerprint(
            student, assignment
        )

    def resolve_students(self, wanted: list[str], argument: str = "--student") -> list[str]:
        """Student ids for the values of `argument` (`--student`, or `adjust`'s STUDENT): an
        id, or a readable name (any case) that names exactly one student."""
        known = self.known_students()
        ids = set(known) | {p.name for p in (self.work / "submitted").glob("*") if p.is_dir()}
        found = []
        for value in wanted:
            if value in ids:
                found.append(value)
                continue
            named = sorted(
                sid
                for sid, who in known.items()
                if who.get("name", "").casefold() == value.casefold()
            )
            if len(named) != 1:
                where = (
                    f" ({', '.join(named)})"
                    if named
                    else f" in {self.work} (a sharded class: the --work of the machine that "
                    "graded them)"
                )
                raise UsageError(
                    f"{argument} {value!r}: expected a student id or the name of "
                    f"one student, found {len(named)}{where}"
                )
            found.append(named[0])
        return found

    # -- grading one ----------------------------------------------------------------------
    def grade_one(self, assignment: str, student: str) -> dict:
        """Autograde and write feedback for one notebook; never raises (a failure is the
        outcome's `error`, so one notebook cannot stop the class)."""
        started = time.monotonic()
        try:
            outcome = self._grade_one(assignment, student)
        except Exception as err:
            outcome = {
                "student": student,
                "assignment": assignment,
                "ok": False,
                "error": f"{type(err).__name__}: {printable(str(err), 2000)}",
                "report": {},
            }
        if not outcome["ok"]:
            outcome["reason"] = failure_reason(outcome["error"])
            try:
                self.record_failure(student, assignment, outcome["reason"], outcome["error"])
            except Exception as err:  # the outcome still says it failed
                outcome["reason"] += f" (and recording it failed: {type(err).__name__}: {err})"
        outcome["seconds"] = round(time.monotonic() - started, 2)
        if outcome["ok"]:
            try:
                outcome["row"] = self.row_of(student, assignment)
            except Exception:  # only the progress line lacks it; the CSV is written later
                outcome["row"] = {}
        return outcome

    def row_of(self, student: str, assignment: str) -> dict:
        """The CSV row of one notebook, from the gradebook (manual grades included)."""
        from nbgrader.api import Gradebook

        with warnings.catch_warnings(), Gradebook(self.db_url) as gb:
            warnings.simplefilter("ignore")
            return _row(self, assignment, gb.find_submission(assignment, student))

    def results_of(self, student: str, assignment: str) -> list[Path]:
        """What grading one notebook writes besides the gradebook: the graded notebook, the
        run report and the feedback page (each a folder of this student's notebook)."""
        return [self.work / name / student / assignment for name in ("autograded", "feedback")] + [
            self.work / "reports" / assignment / student
        ]

    def error_path(self, student: str, assignment: str) -> Path:
        """Where the whole error of a failed grading is kept (nbgrader's log, traceback)."""
        return self.state_path(student, assignment).with_suffix(".error.txt")

    def record_failure(self, student: str, assignment: str, reason: str, error: str = "") -> None:
        """A notebook whose grading failed for the grader's own reasons: its status says so
        until it is graded again (it is regraded on the next run), and nothing of an earlier
        grading stands in for it: no graded notebook, report or feedback page, and no
        automatic score (manual scores a TA gave stay, with the answers they were given for)."""
        import shutil

        from nbgrader.api import Gradebook, MissingEntry

        state = self.state(student, assignment)
        state.pop("fingerprint", None)
        state["failed"] = reason
        self._write_state(student, assignment, state)
        if error:
            self.error_path(student, assignment).write_text(error, encoding="utf-8")
        for folder in self.results_of(student, assignment):
            shutil.rmtree(folder, ignore_errors=True)
        with warnings.catch_warnings(), Gradebook(self.db_url) as gb:
            warnings.simplefilter("ignore")
            try:
                notebook = gb.find_submission_notebook(assignment, assignment, student)
            except MissingEntry:  # failed before nbgrader made the row: the CSV needs one
                with contextlib.suppress(Exception):
                    gb.update_or_create_submission(assignment, student)
                return
            for grade in notebook.grades:
                if grade.auto_score is not None:
                    grade.auto_score = 0.0
            gb.db.commit()

    def _grade_one(self, assignment: str, student: str) -> dict:
        fingerprint = self.fingerprint(student, assignment)
        answers = answer_digests(nbformat.read(self.submission_path(student, assignment), 4))
        state = self.state(student, assignment)
        state["manual_cleared"] = self.clear_stale_manual(assignment, student, state, answers)
        state.pop("fingerprint", None)  # up to date again only once this grading succeeds
        self._write_state(student, assignment, state)  # the clearing is recorded even if
        api = self.api()  # autograde fails below
        report = self.work / "reports" / assignment / student / f"{assignment}.json"
        report.unlink(missing_ok=True)  # an earlier run's must not stand in for this one
        result = api.autograde(assignment, student, force=True, create=True)
        outcome = {
            "student": student,
            "assignment": assignment,
            "ok": result["success"],
            "error": ""
            if result["success"]
            else ((result.get("log") or "")[-3000:] + "\n" + (result.get("error") or "")[-1000:]),
        }
        if result["success"]:
            feedback = api.generate_feedback(assignment, student, force=True)
            if not feedback["success"]:
                outcome["ok"] = False
                outcome["error"] = "the feedback page could not be written: " + (
                    (feedback.get("log") or "")[-2000:] + "\n" + (feedback.get("error") or "")
                )
        outcome["report"] = json.loads(report.read_text()) if report.exists() else {}
        status = str(outcome["report"].get("status", ""))
        if outcome["ok"] and NOT_STARTED in status:  # before any of the student's code
            outcome["ok"] = False
            outcome["error"] = f"GraderError: the grader could not start a kernel ({status})"
        if outcome["ok"]:
            state.pop("failed", None)
            self.error_path(student, assignment).unlink(missing_ok=True)
            state.update(
                fingerprint=fingerprint, answers=answers, status=outcome["report"].get("status", "")
            )
            self._write_state(student, assignment, state)
        return outcome

    def _write_state(self, student: str, assignment: str, state: dict) -> None:
        path = self.state_path(student, assignment)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(state, sort_keys=True))

    def clear_stale_manual(
        self, assignment: str, student: str, state: dict, answers: dict[str, str]
    ) -> dict:
        """Clear the manual scores the new submission has made stale; return every cleared
        one ({grade: {score, extra_credit, why}}, earlier ones included).

        A manual score was given for the answers graded last time (`state["answers"]`). On
        a manually graded answer cell it is stale when that cell changed; on a test it is
        stale when any answer or the student's own code changed (a test sees all of them).
        Unchanged answers keep their manual scores."""
        from nbgrader.api import Gradebook, MissingEntry

        cleared = dict(state.get("manual_cleared", {}))
        before = state.get("answers")
        if not before or before == answers:
            return cleared
        changed = sorted(g for g in set(before) | set(answers) if before.get(g) != answers.get(g))
        with warnings.catch_warnings(), Gradebook(self.db_url) as gb:
            warnings.simplefilter("ignore")
            try:
                notebook = gb.find_submission_notebook(assignment, assignment, student)
            except MissingEntry:
                return cleared
            for grade in notebook.grades:
                if grade.manual_score is None and grade.extra_credit is None:
                    continue
                own = grade.name in answers and grade.name != OWN_CODE
                if own and grade.name not in changed:
                    continue
                why = (
                    f"answer {grade.name} changed"
                    if own
                    else f"the answers changed ({', '.join(changed)})"
                )
                cleared[grade.name] = {
                    "score": grade.manual_score,
                    "extra_credit": grade.extra_credit,
                    "why": why,
                }
                grade.manual_score = grade.extra_credit = None
            self._clear_stale_comments(assignment, notebook, cleared)
            gb.db.commit()
        return cleared

    def _clear_stale_comments(self, assignment: str, notebook, cleared: dict) -> None:
        """Take off the page the TA's comment that went with each manual score just cleared
        (on the answer cell the page shows it under: see `comment_cells`), so it does not
        stand under the new automatic score; its text is kept in `cleared` (the state file)
        and the status quotes it. A comment on a cell whose own manual score stands is kept."""
        targets = self.comment_cells(assignment)
        standing = {
            targets.get(g.name, "")
            for g in notebook.grades
            if g.manual_score is not None or g.extra_credit is not None
        }
        comments = {c.name: c for c in notebook.comments}
        for name, info in cleared.items():
            comment = comments.get(targets.get(name, ""))
            if comment is None or not comment.manual_comment or comment.name in standing:
                continue
            info["comment"] = comment.manual_comment
            comment.manual_comment = None

    def comment_cells(self, assignment: str) -> dict[str, str]:
        """grade id -> the answer cell whose comment the page shows for it: the cell itself
        for an answer cell, else the last answer cell before it (nbgrader keeps comments on
        answer cells only); {} without the released notebook."""
        try:
            cells = self.release(assignment).cells
        except (OSError, ValueError):
            return {}
        found, last = {}, ""
        for cell in cells:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if meta.get("solution"):
                last = meta.get("grade_id", "")
            if meta.get("grade_id"):
                found[meta["grade_id"]] = last
        return found

    def status_of(
        self, student: str, assignment: str, manual: AbstractSet[str] = frozenset()
    ) -> str:
        """The `status` of one notebook (see `details`)."""
        return self.details(student, assignment, manual)["status"]

    def details(
        self, student: str, assignment: str, manual: AbstractSet[str] = frozenset()
    ) -> dict[str, str]:
        """What happened to one notebook, as the CSV's columns:

        - `status`: `ok` only when nothing went wrong; else each thing that did: a failed
          grading, repairs and unreadable uploads, the kernel's status, manual scores
          cleared by a resubmission, and a pointer to `late`, `blank` and `errors`;
        - `late`: `yes` when the LMS marked the upload late (Canvas's `_LATE_`);
        - `blank`: `yes` when no answer cell differs from the released notebook;
        - `errors`: the student's cells that raised, with the first one's number;
        - `notes`: what intake noticed that needs nothing done: renames, drafts superseded,
          other files the student uploaded."""
        problems: list[str] = []
        notes: list[str] = []
        late = False
        intake = self.state_path(student, assignment).with_suffix(".intake.json")
        if intake.exists():
            record = json.loads(intake.read_text())
            if "problems" in record:
                problems += record.get("problems", [])
                notes += record.get("notes", [])
                late = bool(record.get("late"))
            else:  # written before the notes had their own column
                problems += record.get("notes", [])
        failed = self.state(student, assignment).get("failed")
        if failed:
            problems.insert(0, f"{FAILED}: {failed}")
        report = self.work / "reports" / assignment / student / f"{assignment}.json"
        errors = ""
        if report.exists() and not failed:
            run = json.loads(report.read_text())
            status = run.get("status", "")
            if status != "complete":
                problems.append(status)
            raised = run.get("errors") or []
            if raised:
                first, ename = raised[0]
                errors = (
                    f"{len(raised)} cell(s) raised; the first: cell {first} ({printable(ename)})"
                )
        for grade, info in sorted(self.stale_manual(student, assignment, manual).items()):
            said = (
                f", and its comment ({printable(info['comment'], 80)!r}) taken off the page"
                if info.get("comment")
                else ""
            )
            problems.append(
                f"manual score {info['score']} on {grade} cleared{said}: {info['why']} "
                f"since it was given; grade it again (`python -m grader adjust {student} -a "
                f"{assignment} {grade} POINTS --comment ...`, or in formgrader)"
            )
        blank = self.is_blank(student, assignment)
        flags = [
            name for name, on in (("late", late), ("blank", blank), ("errors", bool(errors))) if on
        ]
        if flags:
            problems.append("see " + ", ".join(flags))
        return {
            "status": "; ".join(problems) or "ok",
            "late": "yes" if late else "",
            "blank": "yes" if blank else "",
            "errors": errors,
            "notes": "; ".join(notes),
        }

    def is_blank(self, student: str, assignment: str) -> bool:
        """Whether no answer cell of the student's notebook differs from the release."""
        path = self.submission_path(student, assignment)
        release = self.work / "release" / assignment / f"{assignment}.ipynb"
        if not path.exists() or not release.exists():
            return False
        try:
            mine = answer_digests(nbformat.read(path, 4))
            theirs = answer_digests(nbformat.read(release, 4))
        except Exception:  # an unreadable file is reported by intake, not here
            return False
        mine.pop(OWN_CODE, None)
        theirs.pop(OWN_CODE, None)
        return mine == theirs

    def stale_manual(self, student: str, assignment: str, manual: AbstractSet[str]) -> dict:
        """The cleared manual scores that no TA has given again (`manual`: grades that have a
        manual score now)."""
        cleared = self.state(student, assignment).get("manual_cleared", {})
        return {g: info for g, info in cleared.items() if g not in manual}


# A score in the gradebook without this work folder's run report: graded by a shard on another
# machine (a shared PostgreSQL gradebook) or before reports were kept. Its kernel may have died
# or its grading failed there (that machine's record_failure leaves the score 0 here), so its
# status cannot be `ok` from here.
NO_REPORT = (
    "no run report in this work folder (graded on another machine or by an older grader): "
    "its status is in the grades.csv of the work folder that graded it"
)


def failure_reason(error: str) -> str:
    """One line of a failed grading's error (nbgrader's log and traceback): the last line
    that names an exception (other than nbgrader's "see the above traceback"), else the
    last line."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    named = [
        line
        for line in lines
        if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Lost)\b:?", line)
        and "NbGraderException" not in line
    ]
    return printable((named or lines or ["no reason given"])[-1], 300)


# -- grading many ---------------------------------------------------------------------------
class Progress:
    """What `grade_class` tells as it goes; this one tells nothing (scripts, `--quiet`)."""

    def intake(self, intake: Intake) -> None:
        """The download was taken in (before any grading)."""

    def start(self, total: int) -> None:
        """`total` notebooks are about to be graded."""

    def done(self, outcome: dict) -> None:
        """One notebook finished (its outcome; `row` holds its CSV row when it was graded)."""

    def close(self) -> None:
        """Grading is over (also after an error)."""


_WORKER: Course | None = None


def _init_worker(settings: dict, ahead: bool, numbers, parent: int) -> None:
    global _WORKER
    lifetime.die_with_parent(parent)  # and Ctrl-C is the parent's to handle
    os.environ[WORKER_ENV] = str(numbers.get())  # this worker's own throwaway ids
    _WORKER = Course(**settings)
    start_kernels_ahead(ahead)  # a worker grades notebook after notebook; closed at its exit


def idle_core(workers: int) -> bool:
    """Whether `workers` grading processes leave a core free for the next notebook's kernel
    to start on while the current one runs (with every core busy it only competes)."""
    return workers < (os.cpu_count() or 1)


def _work(job: tuple[str, str]) -> dict:
    if _WORKER is None:
        raise RuntimeError("_work: expected the pool's initializer to have built the course")
    return _WORKER.grade_one(*job)  # never raises: a failure is the outcome's error


def settings_of(course: Course) -> dict:
    return {
        "root": str(course.root),
        "work": str(course.work),
        "db_url": course.db_url,
        "sandbox": course.sandbox,
        "cell_timeout": course.cell_timeout,
        "notebook_timeout": course.notebook_timeout,
        "memory_mb": course.memory_mb,
        "quiet": course.quiet,
    }


def grade_class(
    course: Course,
    source: Path | None,
    assignments: list[str] | None = None,
    students: list[str] | None = None,
    workers: int = 1,
    force: bool = False,
    shard: tuple[int, int] = (0, 1),
    pool: bool = False,
    progress: Progress | None = None,
    owned: bool = False,
    replace_newer: bool = False,
) -> list[dict]:
    """Grade every (or the given) student's notebooks; return one outcome per graded pair.

    Without `assignments`: those the download holds (every file is matched against all of
    the course's), or, without a download, those submitted/ holds. `students` are ids or
    readable names (`Course.resolve_students`). One worker grades in this process unless
    `pool` (the benchmark compares like with like). `progress` hears of the intake, then of
    each notebook as it finishes.

    `owned`: each top folder of `source` is one student's own, as the exchange's collected
    folder (also when given as WORK/collected/NB) and a Gradescope upload are: never looked
    through as a wrapper (what the student put inside it cannot name another student), and
    one without the notebook asked for is graded blank, saying why. A TA's download (`owned`
    False) that holds no notebook asked for is refused instead (`_expect_notebooks`).

    `replace_newer`: an upload older than the one taken in before replaces it (see
    `Course.take_in`; by default it is ignored, saying so).
    """
    progress = progress or Progress()
    owned = owned or (source is not None and _collected(course, Path(source)))
    try:
        return _grade_class(
            course,
            source,
            assignments,
            students,
            workers,
            force,
            shard,
            pool,
            progress,
            owned,
            replace_newer,
        )
    finally:
        progress.close()


def _collected(course: Course, source: Path) -> bool:
    """Whether `source` is what the exchange's `collect` wrote (WORK/collected/...), where
    each top folder is one student's own: `grade collected/NB` (the README's command) reads
    it as `grade --from-exchange` does."""
    try:
        return source.resolve().is_relative_to((course.work / "collected").resolve())
    except OSError:
        return False


def _expect_notebooks(intake: Intake, source: Path, assignments: list[str] | None) -> None:
    """Refuse, before anything is written, a download that holds no notebook of the course
    or none of a notebook asked for: an empty zip or the wrong `-a` would otherwise grade
    every student blank (0 points, status ok) or nothing, and say nothing."""
    held = sorted({a for _, a in intake.uploads})
    absent = [a for a in assignments or () if a not in held]
    if held and not absent:
        return
    ignored = "; ".join(f"{printable(f.path, 80)} ({f.reason})" for f in intake.files[:5])
    if absent:
        what = f"it holds {', '.join(held)}" if held else f"ignored: {ignored}"
        raise UsageError(
            f"--assignment {absent[0]!r}: expected a notebook the download holds, found none "
            f"of it ({what}; leave out -a to grade what it holds)"
        )
    found = f"{len(intake.files)} file(s), none of them one: {ignored}"
    raise UsageError(
        f"source={str(source)!r}: expected a download holding students' notebooks, found "
        + (found if intake.files else "no file in it")
    )


def _grade_class(
    course: Course,
    source: Path | None,
    assignments: list[str] | None,
    students: list[str] | None,
    workers: int,
    force: bool,
    shard: tuple[int, int],
    pool: bool,
    progress: Progress,
    owned: bool,
    replace_newer: bool = False,
) -> list[dict]:
    if swept := lifetime.sweep_left_folders():
        print(f"note: removed {swept} temporary folder(s) a killed run left", file=sys.stderr)
    known = course.assignments()
    unknown = [a for a in assignments or () if a not in known]
    if unknown:
        raise UsageError(f"assignment: expected one of {', '.join(known)}, got {unknown[0]!r}")
    if source is not None:
        with course.lock("intake"):
            intake = course.collect(Path(source), assignments or course.assignments(), owned)
            if not owned:
                _expect_notebooks(intake, Path(source), assignments)
            assignments = assignments or sorted({a for _, a in intake.uploads})
            for assignment in assignments:
                course.ensure_assignment(assignment)
            course.take_in(Path(source), assignments, intake, replace_newer)
        progress.intake(intake)
    else:
        assignments = assignments or sorted(
            {p.name for p in (course.work / "submitted").glob("*/*") if p.is_dir()}
        )
        for assignment in assignments:
            course.ensure_assignment(assignment)
    students = course.resolve_students(students) if students else None
    if students:
        have = {s for a in assignments for s in course.collected(a)}
        absent = [s for s in students if s not in have]
        if absent:
            raise UsageError(
                f"--student {absent[0]!r}: expected a submission of {', '.join(assignments)} "
                f"(in the download or in {course.work / 'submitted'}), found none"
            )
    jobs = []
    for assignment in assignments:
        for student in course.collected(assignment):
            if students and student not in students:
                continue
            if int(hashlib.sha256(student.encode()).hexdigest(), 16) % shard[1] != shard[0]:
                continue
            if force or students or not course.up_to_date(student, assignment):
                jobs.append((assignment, student))
    if not jobs:
        return []
    progress.start(len(jobs))
    compile_mounted_code()  # once, not in every kernel
    if workers <= 1 and not pool:
        return _grade_here(course, jobs, progress)
    return _grade_in_pool(course, jobs, workers, progress)


def _grade_here(course: Course, jobs: list[tuple[str, str]], progress: Progress) -> list[dict]:
    """`jobs` graded one after the other in this process."""
    outcomes: list[dict] = []
    try:
        with lifetime.noting_interrupts() as interrupted:
            for index, job in enumerate(jobs):
                start_kernels_ahead(index + 1 < len(jobs) and idle_core(1))  # the next one's
                outcome = course.grade_one(*job)  # Ctrl-C in it: recorded as its failure
                if interrupted.is_set():
                    raise KeyboardInterrupt
                outcomes.append(outcome)
                progress.done(outcome)
    except KeyboardInterrupt:
        raise Interrupted(len(outcomes), len(jobs)) from None
    finally:
        start_kernels_ahead(False)
        close_spare()
        close_zygotes()
    return outcomes


def _grade_in_pool(
    course: Course, jobs: list[tuple[str, str]], workers: int, progress: Progress
) -> list[dict]:
    """`jobs` graded by `workers` processes, which end with this one (`grader.lifetime`)."""
    outcomes: list[dict] = []
    numbers = get_context("spawn").SimpleQueue()
    for number in range(workers):
        numbers.put(number)
    executor = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=get_context("spawn"),
        initializer=_init_worker,
        initargs=(settings_of(course), idle_core(workers), numbers, os.getpid()),
    )
    try:
        futures = [executor.submit(_work, job) for job in jobs]
        for future in as_completed(futures):
            outcomes.append(future.result())
            progress.done(outcomes[-1])
    except KeyboardInterrupt:  # Ctrl-C: the workers, which ignore it, are stopped now
        with _ignoring_interrupts():
            lifetime.stop_workers()
            executor.shutdown(wait=True, cancel_futures=True)
        raise Interrupted(len(outcomes), len(jobs)) from None
    except BaseException:
        lifetime.stop_workers()
        executor.shutdown(wait=True, cancel_futures=True)
        raise
    executor.shutdown(wait=True)
    return sorted(outcomes, key=lambda o: (o["assignment"], o["student"]))


class Interrupted(KeyboardInterrupt):
    """Ctrl-C while grading: `graded` of `total` notebooks were graded (the rest, those
    stopped midway included, are graded by the next run of the same command)."""

    def __init__(self, graded: int, total: int):
        super().__init__(f"{graded} of {total} notebooks graded")
        self.graded, self.total = graded, total


@contextlib.contextmanager
def _ignoring_interrupts():
    """A block that a second Ctrl-C does not cut short (the workers' stop and cleanup)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


# -- results --------------------------------------------------------------------------------
def gradebook_rows(course: Course) -> list[dict]:
    """One row per submission, from the gradebook (so manual grades are included)."""
    from nbgrader.api import Gradebook

    rows = []
    with warnings.catch_warnings(), Gradebook(course.db_url) as gb:
        warnings.simplefilter("ignore")  # SQLAlchemy autoflush notes from nbgrader's models
        for assignment in gb.assignments:
            for submission in assignment.submissions:
                rows.append(_row(course, assignment.name, submission))
    return sorted(rows, key=lambda r: (r["assignment"], r["student_id"]))


def _graded_in(course: Course, student: str, assignment: str) -> Course:
    """`course` as seen from the work folder that graded this notebook last: of this one and
    `course.shard_work`, the one whose record of it (its state, run report or page) is the
    newest. Two may hold one: a student moved to another shard when the array was renumbered
    or the number of machines changed, and the older page would contradict the grade."""

    def last(work: Path) -> float | None:
        paths = (
            work / "state" / assignment / f"{student}.json",
            work / "reports" / assignment / student / f"{assignment}.json",
            work / "feedback" / student / assignment / f"{assignment}.html",
        )
        stamps = [p.stat().st_mtime for p in paths if p.exists()]
        return max(stamps) if stamps else None

    folders = [course.work, *(Path(f).resolve() for f in course.shard_work)]
    held = [(stamp, -i) for i, work in enumerate(folders) if (stamp := last(work)) is not None]
    if not held:
        return course
    work = folders[-max(held)[1]]
    return course if work == course.work else dataclasses.replace(course, work=work, shard_work=())


def _row(course: Course, assignment: str, submission) -> dict:
    student = submission.student.id
    tests, manual = {}, set()
    for notebook in submission.notebooks:
        for grade in notebook.grades:
            tests[grade.name] = grade.score
            if grade.manual_score is not None or grade.extra_credit is not None:
                manual.add(grade.name)
    home = _graded_in(course, student, assignment)
    feedback = home.page_path(student, assignment)
    cleared = home.stale_manual(student, assignment, manual)
    details = home.details(student, assignment, manual)
    report = home.work / "reports" / assignment / student / f"{assignment}.json"
    if not report.exists() and not home.state(student, assignment).get("failed"):
        # what happened is known only where it was graded (a kernel lost, a failed grading)
        details["status"] = "; ".join(p for p in (NO_REPORT, details["status"]) if p and p != "ok")
    return {
        "student_id": student,
        "name": submission.student.first_name or "",
        "assignment": assignment,
        "score": round(float(submission.score), 3),
        "max_score": round(float(submission.max_score), 3),
        "manual": "yes" if manual else ("cleared" if cleared else ""),
        **details,
        "feedback": os.path.relpath(feedback, course.work) if feedback.exists() else "",
        "tests": tests,
    }


COLUMNS = [
    "student_id",
    "name",
    "assignment",
    "score",
    "max_score",
    "manual",
    "status",
    "late",
    "blank",
    "errors",
    "notes",
    "feedback",
]


def column_of_test(assignment: str, grade_id: str) -> str:
    """A test's column in grades.csv: the notebook's number (or name), a colon, the test, so
    that tests of one name in several notebooks never share a column (`07:test_answer_x`)."""
    number = assignment.split("_", 1)[0]
    return f"{number if number.isdigit() else assignment}:{grade_id}"


def tests_in_order(course: Course, assignment: str) -> list[str]:
    """The grade_ids of an assignment's tests in the notebook's order (the instructor's
    notebook, solutions/NB/NB.ipynb); [] when it is not there."""
    path = course.root / "solutions" / assignment / f"{assignment}.ipynb"
    if not path.exists():
        return []
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    meta = [c.get("metadata", {}).get("nbgrader", {}) for c in cells]
    return [m["grade_id"] for m in meta if m.get("grade") and not m.get("solution")]


def export_csv(course: Course, path: Path) -> list[dict]:
    """grades.csv: one row per submission, the COLUMNS then one column per test (UTF-8):
    notebook by notebook, each notebook's tests in its own order (`column_of_test` names them)."""
    rows = gradebook_rows(course)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    columns: list[tuple[str, str]] = []
    for assignment in sorted({r["assignment"] for r in rows}):
        graded = {t for r in rows if r["assignment"] == assignment for t in r["tests"]}
        ordered = [t for t in tests_in_order(course, assignment) if t in graded]
        columns += [(assignment, t) for t in ordered + sorted(graded - set(ordered))]
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow([*COLUMNS, *(column_of_test(a, t) for a, t in columns)])
        for r in rows:
            tests = [r["tests"].get(t, "") if r["assignment"] == a else "" for a, t in columns]
            writer.writerow([_cell(r[c]) for c in COLUMNS] + tests)
    return rows


def _cell(value):
    """A CSV field a spreadsheet shows as text: a name or status that starts like a formula
    (=, +, -, @) would otherwise run when the TA opens the file."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def _notebook_record(report: dict, assignment: str) -> dict:
    """One notebook's part of an intake report: its own files, and the files matched to no
    notebook (an `Untitled.ipynb` may be the one a student meant to hand in)."""
    files = [f for f in report["files"] if f.get("assignment") in (assignment, "")]
    ids = {f["student"] for f in files if f.get("student")}
    return {
        "source": report.get("source", ""),
        "taken_in": report.get("taken_in", ""),
        "files": files,
        "students": [s for s in report.get("students", []) if s.get("id") in ids],
        "collisions": report.get("collisions", []),
        "summary": _files_summary(files),
    }


def _files_summary(files: list[dict]) -> dict:
    """The counts of a record's files: all, graded, ignored, and the students they are of."""
    graded = sum(f.get("status") == "graded" for f in files)
    return {
        "files": len(files),
        "graded": graded,
        "ignored": len(files) - graded,
        "students": len({f["student"] for f in files if f.get("student")}),
    }


def _merged_record(old: dict | None, report: dict, assignment: str) -> dict:
    """A notebook's record after this run: this run's files, and the files of the students
    it did not take in, kept from the earlier record (each with the `download` it came from):
    their notebooks, grades and pages still stand, so a later, smaller download (the late
    submissions) must not drop them from the record the LMS files name pages from."""
    record = _notebook_record(report, assignment)
    if not isinstance(old, dict) or not isinstance(old.get("files"), list):
        return record
    # a student whose newer upload of an earlier run was kept (`Course.take_in`) keeps its
    # files too, beside this run's older one (once: not again from the same download)
    newer = {k["student"] for k in report.get("kept", []) if k["assignment"] == assignment}
    taken = {f["student"] for f in record["files"] if f.get("student")} - newer
    again = {(report["source"], f["path"]) for f in record["files"] if f.get("student") in newer}
    kept = [
        {"download": old.get("source", ""), **f}
        for f in old["files"]
        if isinstance(f, dict) and f.get("student") and f["student"] not in taken
    ]
    kept = [f for f in kept if (f["download"], f.get("path")) not in again]
    ids = {f["student"] for f in kept}
    record["files"] += kept
    record["students"] += [s for s in old.get("students", []) if s.get("id") in ids]
    record["summary"] = _files_summary(record["files"])
    return record


def write_intake_report(path: Path, source: Path, assignments: list[str], intake: Intake) -> dict:
    """Write WORK/intake.json: the latest run at the top level (source, taken_in,
    assignments, files, students, collisions, summary) and, under "notebooks", one record
    per notebook ever taken in, merged: this run replaces its notebooks' files of the students
    it took in and keeps the rest, so taking in notebook 02 never loses notebook 01's report,
    nor a download of late submissions the record of everyone else. A report
    that cannot be read is kept beside it as intake.json.unreadable-<time>, never dropped."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    report = {
        "source": str(source),
        "taken_in": stamp,
        "assignments": list(assignments),
        **intake.report(),
    }
    notebooks: dict[str, dict] = {}
    if path.exists():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(old, dict):
                raise ValueError(f"expected a JSON object, got {type(old).__name__}")
            if isinstance(old.get("notebooks"), dict):
                notebooks = dict(old["notebooks"])
            elif isinstance(old.get("files"), list):  # a report from before per-notebook records
                for assignment in old.get("assignments") or []:
                    notebooks[assignment] = _notebook_record(old, assignment)
            else:
                raise ValueError("neither per-notebook records nor a run's files")
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError):
            path.replace(path.with_name(f"{path.name}.unreadable-{time.strftime('%Y%m%dT%H%M%S')}"))
            notebooks = {}
    for assignment in assignments:
        notebooks[assignment] = _merged_record(notebooks.get(assignment), report, assignment)
    report["notebooks"] = dict(sorted(notebooks.items()))
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    partial.write_text(json.dumps(report, indent=1, ensure_ascii=False), encoding="utf-8")
    partial.replace(path)
    return report


def table(rows: list[dict]) -> str:
    """The grades as a fixed-width text table: the CSV's columns but the tests'."""
    header = ("student", "name", "assignment", "score", "late", "blank", "errors", "status")
    lines = [
        (
            r["student_id"],
            printable(r.get("name", ""), 30),
            r["assignment"],
            f"{r['score']:g} / {r['max_score']:g}",
            r.get("late", ""),
            r.get("blank", ""),
            printable(r.get("errors", ""), 60),
            printable(r["status"], 90)
            + (f" (notes: {printable(r['notes'], 90)})" if r.get("notes") else ""),
        )
        for r in rows
    ]
    fixed = len(header) - 1
    widths = [max(len(str(x[i])) for x in [header, *lines]) for i in range(fixed)]
    out = []
    for line in [header, *lines]:
        cells = "  ".join(str(v).ljust(w) for v, w in zip(line[:fixed], widths))
        out.append(cells + "  " + line[fixed])
    return "\n".join(out)


def outcome_line(outcome: dict, done: int, total: int) -> str:
    """One line for a notebook as it finishes: student, notebook, score, status."""
    counts = f"[{done}/{total}]"
    who = f"{outcome['student']} {outcome['assignment']}"
    if not outcome.get("ok"):
        return f"{counts} {who}: {FAILED}: {outcome.get('reason') or outcome.get('error', '')}"
    row = outcome.get("row") or {}
    score = f"{row['score']:g} / {row['max_score']:g}" if row else "graded"
    return f"{counts} {who}: {score}, {printable(row.get('status', 'ok'), 120)}"


def intake_summary(intake: Intake, work: Path, limit: int = 30) -> str:
    """What the TA reads about the download: counts, every ignored file with its reason (up
    to `limit`), collisions, and where the full report is."""
    summary = intake.report()["summary"]
    lines = [
        f"intake: {summary['files']} file(s), {summary['graded']} graded, "
        f"{summary['ignored']} ignored, {summary['students']} student(s); every file "
        f"in {work / 'intake.json'}"
    ]
    ignored = [f for f in intake.files if f.status == "ignored"]
    for record in ignored[:limit]:
        lines.append(f"  ignored {printable(record.path, 120)}: {record.reason}")
    if len(ignored) > limit:
        lines.append(f"  ... and {len(ignored) - limit} more ignored file(s)")
    lines += [f"  collision: {c}" for c in intake.collisions]
    return "\n".join(lines)
