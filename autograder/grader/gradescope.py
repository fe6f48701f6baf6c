"""Gradescope's autograder: `python -m grader gradescope build` makes its zip; in Gradescope's
container `run_autograder` calls `python -m grader gradescope run`, which grades the one
submission with the TA command's pipeline (intake, sandbox, tests in trusted processes) and
writes `results/results.json` in Gradescope's format.

Gradescope unpacks the zip into /autograder/source (setup.sh runs there once, as root, when
the image is built) and, for each submission, runs /autograder/run_autograder as root with
the upload in /autograder/submission. `ATTNBOOK_GRADESCOPE_ROOT` moves that folder (tests).

Isolation (autograder/README.md, "Gradescope"): the student's kernel runs in bubblewrap when
the container lets it make namespaces, exactly as for the TA command. Where it cannot
(Docker's default seccomp profile forbids them), it runs as a throwaway user id with no
capabilities (`grader.sandbox.fallback_command`), after `lock_down` has made everything under
/autograder unreadable to other users except the package, its public assets and the kernel's
own code: the solutions, the reference answers, the gradebook, the results and the upload
stay out of its reach. With neither, nothing runs and results.json says so.
"""

from __future__ import annotations

import contextlib
import copy
import importlib.metadata
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import traceback
import zipfile
from pathlib import Path

import nbformat

from grader.course import AUTOGRADER, Course, UsageError, grade_class, gradebook_rows
from grader.intake import printable
from grader.secret import ensure_secret

ROOT_ENV = "ATTNBOOK_GRADESCOPE_ROOT"
FORCE_ENV = "ATTNBOOK_GRADESCOPE_SANDBOX"  # "setpriv": as if bubblewrap could not run here
TEMPLATES = AUTOGRADER / "gradescope"
PINNED = (
    "torch",
    "numpy",
    "matplotlib",
    "ipywidgets",
    "tqdm",
    "ipykernel",
    "ipython",
    "nbgrader",
    "nbformat",
    "nbconvert",
    "nbclient",
    "traitlets",
)
PUBLIC = ("attnbook", "assets", "autograder/grader")  # what the kernel may read
OUTPUT_CHARS = 8000  # per test: Gradescope shows it in a box, the feedback page has it all


# -- build -----------------------------------------------------------------------------------
def _tree(root: Path, relative: str, suffix: str = "") -> list[tuple[str, Path]]:
    folder = root / relative
    return [
        (p.relative_to(root).as_posix(), p)
        for p in sorted(folder.rglob(f"*{suffix}"))
        if p.is_file() and not {"__pycache__", ".ipynb_checkpoints"} & set(p.parts)
    ]


def zip_members(root: Path, assignment: str) -> list[tuple[str, Path]]:
    """(name in the zip, file) of everything one assignment's autograder needs: the
    package, its public assets, the grader, nbgrader's configuration, this notebook's
    instructor version and reference answers; no other notebook's, no mistake catalogue."""
    reference = root / "autograder" / "reference" / f"nb{assignment}.py"
    solution = root / "solutions" / assignment / f"{assignment}.ipynb"
    for path in (reference, solution):
        if not path.is_file():
            raise UsageError(f"--assignment {assignment}: expected {path}, found none")
    return (
        [("setup.sh", TEMPLATES / "setup.sh"), ("run_autograder", TEMPLATES / "run_autograder")]
        + _tree(root, "attnbook")
        + _tree(root, "assets")
        + _tree(root, "autograder/grader", ".py")
        + [
            ("autograder/nbgrader_config.py", root / "autograder" / "nbgrader_config.py"),
            (f"autograder/reference/{reference.name}", reference),
            ("autograder/course_secret", ensure_secret(root / "autograder")),
        ]
        + _tree(root, f"solutions/{assignment}")
    )


def requirements() -> str:
    """The versions this checkout runs (and its tests passed with), one pin a line."""
    lines = []
    for name in PINNED:
        version = importlib.metadata.version(name).split("+", 1)[0]  # torch's +cpu
        lines.append(f"{name}=={version}")
    return "\n".join(lines) + "\n"


CONCEPT_CALL = "check_choice("  # a concept question's test: one letter out of a few


def build(
    root: Path,
    assignment: str,
    out: Path,
    visibility: str = "visible",
    concept_visibility: str = "after_due_date",
) -> Path:
    """Write `out/attnbook-<assignment>-gradescope.zip`; the same inputs give the same bytes.
    `visibility` is that of the code tests (their hints help a student on to the answer),
    `concept_visibility` that of the concept questions' tests (seen at once, their result
    gives the letter away to a student who resubmits)."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"attnbook-{assignment}-gradescope.zip"
    settings = {
        "assignment": assignment,
        "visibility": visibility,
        "concept_visibility": concept_visibility,
    }
    generated = {
        "gradescope/settings.json": json.dumps(settings, indent=1) + "\n",
        "gradescope/requirements.txt": requirements(),
    }
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, source in zip_members(root, assignment):
            executable = source.stat().st_mode & 0o100
            private = name == "autograder/course_secret"  # root-only once unpacked, too
            _add(
                archive,
                name,
                source.read_bytes(),
                0o600 if private else 0o755 if executable else 0o644,
            )
        for name, text in generated.items():
            _add(archive, name, text.encode(), 0o644)
    return path


def _add(archive: zipfile.ZipFile, name: str, data: bytes, mode: int) -> None:
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.external_attr = (stat.S_IFREG | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


# -- run: isolation --------------------------------------------------------------------------
def choose_isolation() -> str:
    """ "bwrap" where bubblewrap works, else "setpriv" where the fallback can run; raises
    when neither can (then no student code runs at all)."""
    from grader.sandbox import sandbox_available

    works, why = sandbox_available()
    if works and os.environ.get(FORCE_ENV) != "setpriv":
        return "bwrap"
    if os.geteuid() == 0 and shutil.which("setpriv"):
        return "setpriv"
    raise RuntimeError(
        f"no isolation for student code: bubblewrap cannot run here ({why}) and "
        f"the fallback needs root and setpriv (uid {os.geteuid()})"
    )


def lock_down(root: Path) -> None:
    """Nothing under `root` readable or writable by other users, except the package, its
    assets and the kernel's code (read-only), and the folders on the way to them (their
    names listed, nothing in them readable). Links are never followed (the upload is the
    student's)."""
    source = root / "source"
    for path in [root, *root.iterdir()]:
        if path != source:
            _chmod(path, 0o700 if path.is_dir() else 0o600)
    for folder, dirs, files in os.walk(source):
        for name in [*dirs, *files]:
            _chmod(Path(folder) / name, 0o700 if name in dirs else 0o600)
    _chmod(root, 0o711)
    for path in (source, source / "autograder"):  # on the kernel's import path: Python
        _chmod(path, 0o755)  # imports only from folders it can list
    for relative in PUBLIC:
        for folder, _dirs, files in os.walk(source / relative):
            _chmod(Path(folder), 0o755)
            for name in files:
                _chmod(Path(folder) / name, 0o644)


def refuse_an_interpreter_with_the_grader() -> None:
    """The fallback locks the answers under /autograder/source, but the kernel runs this
    interpreter with the rest of the machine in view: if the grader were installed into it
    (an editable install points at a readable checkout, reference answers and all), a
    student could import them. Gradescope's image (`setup.sh`) installs only libraries."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    probe = subprocess.run(
        [
            sys.executable,
            "-s",
            "-c",
            "import importlib.util as u, sys; "
            "sys.exit(u.find_spec('grader') is not None or u.find_spec('attnbook') is not None)",
        ],
        env=env,
        cwd="/",
        capture_output=True,
        timeout=120,
    )
    if probe.returncode != 0:
        raise RuntimeError(
            f"the fallback cannot run student code with {sys.executable}: the "
            "course's grader or package is installed into it, where a student "
            "could read the reference answers; use an environment with the "
            "libraries only (gradescope/setup.sh)"
        )


def _chmod(path: Path, mode: int) -> None:
    info = os.lstat(path)
    if not stat.S_ISLNK(info.st_mode):
        os.chmod(path, mode)


def end_student_processes() -> None:
    """Kill every process of this run's throwaway user id (one the kernel left behind, out
    of its process group) and remove its working folders. Fallback only: in bubblewrap the
    PID namespace ends them."""
    from grader.sandbox import throwaway_ids

    ids = throwaway_ids()
    if ids is None:
        raise RuntimeError(
            "end_student_processes: expected to run as root, with a throwaway "
            f"user id to end, but the effective user id is {os.geteuid()}"
        )
    uid, gid = ids
    pid = os.fork()
    if pid == 0:  # the child becomes the throwaway user and signals all of its processes
        try:
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            with contextlib.suppress(ProcessLookupError):
                os.kill(-1, 9)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    for folder in Path("/tmp").glob("attnbook-student-*"):
        if os.lstat(folder).st_uid == uid:
            shutil.rmtree(folder, ignore_errors=True)


# -- run: grading and results ----------------------------------------------------------------
def _output_text(cell) -> str:
    """What a student sees of a test: its printed lines and, when it failed, the check's
    message with the hint; never the hidden test's code or a traceback into it."""
    from grader.feedback import HideHiddenTests

    cell = copy.deepcopy(cell)
    HideHiddenTests().preprocess_cell(cell, {}, 0)
    parts = []
    for output in cell.get("outputs", []):
        kind = output.get("output_type")
        if kind == "stream":
            parts.append(output.get("text", ""))
        elif kind == "error":
            parts.append(f"{output.get('ename')}: {output.get('evalue')}\n")
        elif "text/plain" in output.get("data", {}):
            parts.append(str(output["data"]["text/plain"]) + "\n")
    text = "".join(parts).strip()
    return text if len(text) <= OUTPUT_CHARS else text[:OUTPUT_CHARS] + "\n... (cut)"


def _grades(course: Course, student: str, assignment: str) -> dict[str, tuple[float, float]]:
    from nbgrader.api import Gradebook

    with Gradebook(course.db_url) as gb:
        notebook = gb.find_submission_notebook(assignment, assignment, student)
        return {g.name: (float(g.score), float(g.max_score)) for g in notebook.grades}


def is_concept(cell) -> bool:
    """Whether a graded cell is a concept question's test (it checks one letter)."""
    return CONCEPT_CALL in str(cell.get("source", ""))


def tests_of(
    course: Course,
    student: str,
    assignment: str,
    visibility: str,
    concept_visibility: str | None = None,
) -> list[dict]:
    """One Gradescope test per graded cell, in the notebook's order; a concept question's
    test has `concept_visibility` (default: `visibility`)."""
    concept_visibility = concept_visibility or visibility
    grades = _grades(course, student, assignment)
    graded = course.work / "autograded" / student / assignment / f"{assignment}.ipynb"
    cells: dict[str, dict] = {}
    for cell in nbformat.read(graded, 4).cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id in grades:
            cells.setdefault(grade_id, cell)
    tests = []
    for name in [*cells, *(g for g in grades if g not in cells)]:
        score, most = grades[name]
        tests.append(
            {
                "name": name,
                "score": score,
                "max_score": most,
                "status": "passed" if score >= most else "failed",
                "output": _output_text(cells[name]) if name in cells else "",
                "visibility": concept_visibility
                if name in cells and is_concept(cells[name])
                else visibility,
            }
        )
    return tests


def grade_submission(root: Path, settings: dict, isolation: str) -> dict:
    """Grade /autograder/submission with the TA command's pipeline; Gradescope's results."""
    from grader.safecopy import copy_untrusted
    from grader.sandbox import FALLBACK_ENV

    assignment, visibility = settings["assignment"], settings.get("visibility", "visible")
    concepts = settings.get("concept_visibility", visibility)
    work = Path(tempfile.mkdtemp(prefix="attnbook-gradescope-"))
    try:
        copied = copy_untrusted(root / "submission", work / "upload" / "student")
        if isolation == "setpriv":
            os.environ[FALLBACK_ENV] = "setpriv"
        course = Course(
            root=root / "source",
            work=work / "work",
            quiet=True,
            sandbox="bwrap" if isolation == "bwrap" else "none",
        )
        try:
            outcomes = grade_class(course, work / "upload", [assignment], owned=True)
        finally:
            if isolation == "setpriv":
                end_student_processes()
        for outcome in outcomes:
            status = outcome["report"].get("status", "")
            print(
                f"graded {outcome['assignment']} in {outcome['seconds']} s: {status} "
                f"{outcome['error'][-2000:]}"
            )
            if not outcome["ok"]:  # the grader's failure (a kernel that did not start too, see
                # Course._grade_one): never a score of 0 that looks real
                raise RuntimeError(f"grading failed: {outcome.get('reason') or outcome['error']}")
        return _results(course, assignment, visibility, copied.notes, concepts)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _results(
    course: Course,
    assignment: str,
    visibility: str,
    notes: list[str],
    concept_visibility: str | None = None,
) -> dict:
    concept_visibility = concept_visibility or visibility
    rows = [r for r in gradebook_rows(course) if r["assignment"] == assignment]
    skipped = "".join(f"\n- {printable(n, 200)}" for n in notes)
    if not rows:
        return {
            "score": 0.0,
            "visibility": visibility,
            "tests": [],
            "output": f"No notebook for {assignment} was found in your submission: "
            f"upload {assignment}.ipynb.{skipped}",
        }
    row = rows[0]
    status = "" if row["status"] == "ok" else f"\n{printable(row['status'], 2000)}"
    # the status points to these columns ("see blank"); a Gradescope student sees no CSV
    status += "".join(
        f"\n{name}: {printable(str(row[name]), 1000)}"
        for name in ("late", "blank", "errors", "notes")
        if row.get(name)
    )
    tests = tests_of(course, row["student_id"], assignment, visibility, concept_visibility)
    held = [t for t in tests if t["visibility"] != visibility]
    if held:  # the sum would tell the concept points: the summary counts the others only
        shown = [t for t in tests if t["visibility"] == visibility]
        got, most = sum(t["score"] for t in shown), sum(t["max_score"] for t in shown)
        when = WHEN.get(concept_visibility, concept_visibility)
        summary = (
            f"{assignment}: {got:g} / {most:g} points for the code; the "
            f"{len(held)} concept question(s) are shown {when}."
        )
    else:
        summary = f"{assignment}: {row['score']:g} / {row['max_score']:g} points."
    return {
        "score": row["score"],
        "visibility": visibility,
        "output": f"{summary}{status}{skipped}",
        "tests": tests,
    }


WHEN = {
    "after_due_date": "after the due date",
    "after_published": "once the grades are published",
    "hidden": "never to students",
}


def write_results(root: Path, results: dict) -> Path:
    folder = root / "results"
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / "results.json"
    with tempfile.NamedTemporaryFile(
        "w", dir=folder, delete=False, suffix=".tmp", encoding="utf-8"
    ) as handle:
        json.dump(results, handle, indent=1, ensure_ascii=False)
    os.replace(handle.name, final)
    return final


def run(root: Path) -> int:
    """Grade the submission under `root`; always leaves a results.json (exit 1 when the
    autograder itself failed, so the course staff see it)."""
    started, code = time.monotonic(), 0
    try:
        settings = json.loads((root / "source" / "gradescope" / "settings.json").read_text())
        isolation = choose_isolation()
        print(f"isolation: {isolation}", flush=True)
        if isolation == "setpriv":
            refuse_an_interpreter_with_the_grader()
            lock_down(root)
        results = grade_submission(root, settings, isolation)
    except Exception:
        traceback.print_exc(file=sys.stdout)  # the autograder output: course staff only
        results = {
            "score": 0.0,
            "tests": [],
            "output": "The autograder could not grade this submission; the course "
            "staff can see why in the autograder output.",
        }
        code = 1
    results.update(execution_time=round(time.monotonic() - started), stdout_visibility="hidden")
    write_results(root, results)
    return code


def gradescope_command(args) -> int:
    if args.action == "run":
        root = Path(args.gradescope_root or os.environ.get(ROOT_ENV) or "/autograder")
        return run(root)
    root = Path(args.root)
    from grader.course import assignments as course_assignments

    assignments = args.assignment or course_assignments(root)
    try:
        for assignment in assignments:
            out = Path(args.out) if args.out else root / "dist"
            print(build(root, assignment, out, args.visibility, args.concept_visibility))
    except UsageError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0
