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
import fcntl
import hashlib
import json
import os
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path

import nbformat

from grader.intake import collect
from grader.normalize import normalize

AUTOGRADER = Path(__file__).resolve().parents[1]
GRADER_VERSION = "1"


def default_db_url(work: Path) -> str:
    return f"sqlite:///{work / 'gradebook.db'}?timeout=120"


@dataclass
class Course:
    """A course folder (solutions/, autograder/nbgrader_config.py) and a work folder."""

    root: Path = AUTOGRADER.parent
    work: Path = AUTOGRADER
    db_url: str = ""
    sandbox: str = "auto"
    cell_timeout: float | None = None
    notebook_timeout: float | None = None
    memory_mb: int | None = None
    quiet: bool = False
    _api: object = field(default=None, repr=False)

    def __post_init__(self):
        self.root, self.work = Path(self.root).resolve(), Path(self.work).resolve()
        self.db_url = self.db_url or default_db_url(self.work)
        warnings.filterwarnings("ignore", message=".*not in session.*")  # nbgrader's models
        os.environ.setdefault("ATTNBOOK_AUTOGRADER", str(self.root / "autograder"))
        bin_dir = os.path.dirname(sys.executable)  # nbgrader runs alembic from PATH
        if bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
            os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")

    # -- nbgrader --------------------------------------------------------------------------
    def config(self):
        from traitlets.config.loader import PyFileConfigLoader

        from grader.config import apply

        c = PyFileConfigLoader("nbgrader_config.py", path=str(self.root / "autograder")
                               ).load_config()
        c.CourseDirectory.root = str(self.root)
        for name in ("submitted", "autograded", "feedback"):
            setattr(c.CourseDirectory, f"{name}_directory", str(self.work / name))
        c.CourseDirectory.release_directory = str(self.work / "release")
        c.CourseDirectory.db_url = self.db_url
        apply(c, report_directory=str(self.work / "reports"))
        c.SandboxedExecute.sandbox = self.sandbox
        for trait, value in (("cell_timeout", self.cell_timeout),
                             ("notebook_timeout", self.notebook_timeout),
                             ("memory_mb", self.memory_mb)):
            if value is not None:
                setattr(c.SandboxedExecute, trait, value)
        return c

    def api(self):
        if self._api is None:
            from nbgrader.apps import NbGraderAPI

            self._api = NbGraderAPI(config=self.config())
        return self._api

    def assignments(self) -> list[str]:
        return sorted(p.parent.name for p in (self.root / "solutions").glob("*/*.ipynb")
                      if p.stem == p.parent.name)

    def release(self, assignment: str) -> nbformat.NotebookNode:
        return nbformat.read(self.work / "release" / assignment / f"{assignment}.ipynb", 4)

    @contextlib.contextmanager
    def lock(self, name: str):
        """Held by one process at a time: of this machine (a file lock in the work folder)
        and, when the gradebook is PostgreSQL, of every machine sharing it (an advisory lock).

        Shards on several machines start against one fresh database at once; without the
        database lock two of them create nbgrader's tables and enum types concurrently and
        one fails with a duplicate-key error."""
        self.work.mkdir(parents=True, exist_ok=True)
        with open(self.work / f".{name}.lock", "w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            with self._database_lock(name):
                yield

    @contextlib.contextmanager
    def _database_lock(self, name: str):
        if not self.db_url.startswith("postgresql"):
            yield  # SQLite lives in the work folder: the file lock covers it
            return
        from sqlalchemy import create_engine, text

        key = int.from_bytes(hashlib.sha256(f"attnbook-grader:{name}".encode()).digest()[:8],
                             "big", signed=True)
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
            raise RuntimeError(f"nbgrader generate_assignment {assignment} failed:\n"
                               f"{result['log']}\n{result.get('error')}")

    # -- intake ----------------------------------------------------------------------------
    def submission_path(self, student: str, assignment: str) -> Path:
        return self.work / "submitted" / student / assignment / f"{assignment}.ipynb"

    def state_path(self, student: str, assignment: str) -> Path:
        return self.work / "state" / assignment / f"{student}.json"

    def take_in(self, source: Path, assignments: list[str]) -> tuple[list[str], list[str]]:
        """Write each student's normalised notebooks into submitted/; (students, ignored)."""
        intake = collect(Path(source), assignments)
        students = intake.students()
        for student in students:
            for assignment in assignments:
                upload = intake.uploads.get((student, assignment))
                data = upload.data if upload else None
                nb, notes = normalize(data, self.release(assignment))
                notes = (upload.notes if upload else []) + notes
                path = self.submission_path(student, assignment)
                path.parent.mkdir(parents=True, exist_ok=True)
                text = nbformat.writes(nb)
                if not path.exists() or path.read_text() != text:
                    path.write_text(text)
                notes_path = self.state_path(student, assignment).with_suffix(".intake.json")
                notes_path.parent.mkdir(parents=True, exist_ok=True)
                notes_path.write_text(json.dumps({"notes": notes}))
        return students, intake.ignored

    def collected(self, assignment: str) -> list[str]:
        folder = self.work / "submitted"
        return sorted(p.parent.parent.name for p in folder.glob(f"*/{assignment}/*.ipynb"))

    def fingerprint(self, student: str, assignment: str) -> str:
        digest = hashlib.sha256(GRADER_VERSION.encode())
        digest.update(self.submission_path(student, assignment).read_bytes())
        for path in sorted((self.root / "solutions" / assignment).glob("*.ipynb")):
            digest.update(path.read_bytes())
        return digest.hexdigest()

    def up_to_date(self, student: str, assignment: str) -> bool:
        state = self.state_path(student, assignment)
        graded = self.work / "autograded" / student / assignment / f"{assignment}.ipynb"
        if not (state.exists() and graded.exists()):
            return False
        return json.loads(state.read_text()).get("fingerprint") == self.fingerprint(
            student, assignment)

    # -- grading one ----------------------------------------------------------------------
    def grade_one(self, assignment: str, student: str) -> dict:
        started = time.monotonic()
        api = self.api()
        result = api.autograde(assignment, student, force=True, create=True)
        outcome = {"student": student, "assignment": assignment, "ok": result["success"],
                   "error": "" if result["success"] else (
                       (result.get("log") or "")[-3000:] + "\n" + (result.get("error") or "")
                       [-1000:])}
        if result["success"]:
            feedback = api.generate_feedback(assignment, student, force=True)
            if not feedback["success"]:
                outcome["error"] = "feedback failed: " + (feedback.get("error") or "")[-500:]
        report = self.work / "reports" / assignment / student / f"{assignment}.json"
        outcome["report"] = json.loads(report.read_text()) if report.exists() else {}
        outcome["seconds"] = round(time.monotonic() - started, 2)
        if outcome["ok"]:
            state = self.state_path(student, assignment)
            state.parent.mkdir(parents=True, exist_ok=True)
            state.write_text(json.dumps({"fingerprint": self.fingerprint(student, assignment),
                                         "status": outcome["report"].get("status", "")}))
        return outcome

    def status_of(self, student: str, assignment: str) -> str:
        notes = []
        intake = self.state_path(student, assignment).with_suffix(".intake.json")
        if intake.exists():
            notes += json.loads(intake.read_text()).get("notes", [])
        report = self.work / "reports" / assignment / student / f"{assignment}.json"
        if report.exists():
            status = json.loads(report.read_text()).get("status", "")
            if status != "complete":
                notes.append(status)
        return "; ".join(notes) or "ok"


# -- grading many ---------------------------------------------------------------------------
_WORKER: Course | None = None


def _init_worker(settings: dict) -> None:
    global _WORKER
    sys.path.insert(0, str(AUTOGRADER))
    _WORKER = Course(**settings)


def _work(job: tuple[str, str]) -> dict:
    return _WORKER.grade_one(*job)


def settings_of(course: Course) -> dict:
    return {"root": str(course.root), "work": str(course.work), "db_url": course.db_url,
            "sandbox": course.sandbox, "cell_timeout": course.cell_timeout,
            "notebook_timeout": course.notebook_timeout, "memory_mb": course.memory_mb,
            "quiet": course.quiet}


def grade_class(course: Course, source: Path | None, assignments: list[str] | None = None,
                students: list[str] | None = None, workers: int = 1, force: bool = False,
                shard: tuple[int, int] = (0, 1), pool: bool = False) -> list[dict]:
    """Grade every (or the given) student's notebooks; return one outcome per graded pair.

    One worker grades in this process unless `pool` (the benchmark compares like with like).
    """
    assignments = assignments or course.assignments()
    for assignment in assignments:
        course.ensure_assignment(assignment)
    if source is not None:
        with course.lock("intake"):
            course.take_in(Path(source), assignments)
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
    if workers <= 1 and not pool:
        return [course.grade_one(*job) for job in jobs]
    outcomes = []
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"),
                             initializer=_init_worker,
                             initargs=(settings_of(course),)) as pool:
        futures = [pool.submit(_work, job) for job in jobs]
        for future in as_completed(futures):
            outcomes.append(future.result())
    return sorted(outcomes, key=lambda o: (o["assignment"], o["student"]))


# -- results --------------------------------------------------------------------------------
def gradebook_rows(course: Course) -> list[dict]:
    """One row per submission, from the gradebook (so manual grades are included)."""
    from nbgrader.api import Gradebook

    rows = []
    with warnings.catch_warnings(), Gradebook(course.db_url) as gb:
        warnings.simplefilter("ignore")  # SQLAlchemy autoflush notes from nbgrader's models
        for assignment in gb.assignments:
            for submission in assignment.submissions:
                student = submission.student.id
                tests, manual = {}, False
                for notebook in submission.notebooks:
                    for grade in notebook.grades:
                        tests[grade.name] = grade.score
                        manual = manual or grade.manual_score is not None
                feedback = (course.work / "feedback" / student / assignment.name
                            / f"{assignment.name}.html")
                rows.append({
                    "student_id": student, "assignment": assignment.name,
                    "score": round(float(submission.score), 3),
                    "max_score": round(float(submission.max_score), 3),
                    "manual": "yes" if manual else "",
                    "status": course.status_of(student, assignment.name),
                    "feedback": str(feedback.relative_to(course.work)) if feedback.exists()
                    else "", "tests": tests})
    return sorted(rows, key=lambda r: (r["assignment"], r["student_id"]))


def export_csv(course: Course, path: Path) -> list[dict]:
    rows = gradebook_rows(course)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tests = sorted({t for r in rows for t in r["tests"]})
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student_id", "assignment", "score", "max_score", "manual", "status",
                         "feedback", *tests])
        for r in rows:
            writer.writerow([r["student_id"], r["assignment"], r["score"], r["max_score"],
                             r["manual"], r["status"], r["feedback"],
                             *[r["tests"].get(t, "") for t in tests]])
    return rows


def table(rows: list[dict]) -> str:
    """The grades as a fixed-width text table."""
    header = ("student", "assignment", "score", "status")
    lines = [(r["student_id"], r["assignment"], f"{r['score']:g} / {r['max_score']:g}",
              r["status"][:90]) for r in rows]
    widths = [max(len(str(x[i])) for x in [header, *lines]) for i in range(3)]
    out = []
    for line in [header, *lines]:
        out.append("  ".join(str(v).ljust(w) for v, w in zip(line[:3], widths)) + "  "
                   + line[3])
    return "\n".join(out)
