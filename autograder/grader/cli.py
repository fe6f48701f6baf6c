"""The TA's command line: grade a class, regrade one student, export, catalogue, sample; the
exchange (collect, release-feedback) and Gradescope (gradescope build) routes."""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

from grader import cgroups, lifetime
from grader.course import (
    AUTOGRADER,
    Course,
    Interrupted,
    Progress,
    UsageError,
    WorkFolderBusy,
    assignments,
    export_csv,
    grade_class,
    intake_summary,
    outcome_line,
    sqlite_file,
    table,
)
from grader.lockdown import ExposedError, private_umask
from grader.sandbox import NOT_RUN, UID_BASE_ENV, new_uid_base
from grader.shards import ShardError, parse_shard

PROBED = ("grade", "collect", "sample", "catalogue")  # the commands that lead to grading
NO_SANDBOX = 3  # the exit status of a command refused because the sandbox cannot start
INTERRUPTED = 130  # Ctrl-C, as a shell reports a process that SIGINT ended


def sandbox_refusal(command: str) -> str:
    """'' where bubblewrap starts a sandbox here; else the one line that refuses `command`:
    the cause, the fix and the explicit way to go without (before anything is written)."""
    from grader.sandbox import sandbox_available

    works, why = sandbox_available()
    if works:
        return ""
    if NOT_RUN in why:  # a path problem: neither namespaces nor going without fix it
        return f"error: {command}: refused, the sandbox cannot start: {why}"
    return (
        f"error: {command}: refused, the sandbox cannot start: {why}; or pass --sandbox auto "
        "to grade without it (every status then says NOT SANDBOXED)"
    )


def _course(args) -> Course:
    return Course(
        root=Path(args.root),
        work=Path(args.work or Path(args.root) / "autograder"),
        db_url=args.db_url or "",
        sandbox=getattr(args, "sandbox", "bwrap"),
        cell_timeout=getattr(args, "timeout", None),
        memory_mb=getattr(args, "memory_mb", None),
        shard_work=tuple(Path(p) for p in getattr(args, "shard_work", [])),
    )


class TerminalProgress(Progress):
    """The intake summary first, then a line per notebook as it finishes (student, notebook,
    score, status); on a terminal also a bar with counts and the time left (tqdm)."""

    def __init__(self, work: Path, stream=None):
        self.work = work
        self.stream = stream or sys.stdout
        self.bar = None
        self.total = self.count = 0

    def intake(self, intake) -> None:
        print(intake_summary(intake, self.work), file=self.stream, flush=True)

    def start(self, total: int) -> None:
        self.total, self.count = total, 0
        print(f"grading {total} notebook(s)", file=self.stream, flush=True)
        if sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="notebook", file=sys.stderr, dynamic_ncols=True)

    def done(self, outcome: dict) -> None:
        self.count += 1
        line = outcome_line(outcome, self.count, max(self.total, self.count))
        if self.bar is not None:
            self.bar.write(line, file=self.stream)
            self.bar.update(1)
        else:
            print(line, file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _at_least(least: int):
    """An argparse type: an int >= ``least``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = least - 1
        if value < least:
            raise argparse.ArgumentTypeError(f"expected an int >= {least}, got {text!r}")
        return value

    return parse


def _seconds(text: str) -> float:
    """An argparse type: a finite number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}")
    return value


def _points(text: str) -> float:
    """An argparse type: a finite number of points >= 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value < math.inf:
        raise argparse.ArgumentTypeError(f"expected a number of points >= 0, got {text!r}")
    return value


def _where(parser: argparse.ArgumentParser, work: str = "ROOT/autograder") -> None:
    """--root, --work and --db-url: where a command finds the course and its gradebook
    (`work`: the default work folder, as the help says it)."""
    parser.add_argument(
        "--root",
        default=str(AUTOGRADER.parent),
        help="course folder with solutions/ and autograder/ (default: this repo)",
    )
    parser.add_argument(
        "--work",
        help="where gradebook, submitted/, autograded/, feedback/ "
        f"and grades.csv go (default: {work})",
    )
    parser.add_argument(
        "--db-url",
        help="nbgrader db_url, e.g. postgresql://user@host/db (default: sqlite "
        f"{'WORK' if work.startswith('ROOT') else 'the work folder'}/gradebook.db)",
    )


def _common(parser: argparse.ArgumentParser, work: str = "ROOT/autograder") -> None:
    _where(parser, work)
    _running(parser)


def _running(parser: argparse.ArgumentParser) -> None:
    """The options of the commands that run notebooks."""
    parser.add_argument(
        "--workers", type=_at_least(1), default=1, help="parallel grading processes"
    )
    parser.add_argument(
        "--sandbox",
        choices=("bwrap", "auto", "none"),
        default="bwrap",
        help="bwrap (the default: refuse to grade without it), auto (bwrap if "
        "usable, else unsandboxed, said in every status), none (trusted "
        "notebooks only)",
    )
    parser.add_argument("--timeout", type=_seconds, help="seconds per cell (default: config, 300)")
    parser.add_argument("--memory-mb", type=_at_least(1), help="kernel address-space limit (4096)")


def _lock_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lock",
        action="store_true",
        help="on a machine students log in to, chmod -R go-rwx the reference answers, "
        "the solutions, the course's secret and the work folder instead of refusing "
        "(grader/lockdown.py)",
    )


def _locked(args, course: Course) -> None:
    """Refuse (ExposedError) when other accounts could read the course's private files."""
    from grader.lockdown import enforce

    exchange_route = args.command in ("collect", "release-feedback") or bool(
        getattr(args, "from_exchange", False)
    )
    for line in enforce(course, exchange_route, args.lock):
        print(line)


def _exchange_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--exchange",
        help="nbgrader's exchange folder (default: Exchange.root "
        "of nbgrader_config.py, else nbgrader's default)",
    )
    parser.add_argument(
        "--course-id",
        help="course in the exchange (default: CourseDirectory.course_id of nbgrader_config.py)",
    )


def _collect_options(parser: argparse.ArgumentParser) -> None:
    _exchange_options(parser)
    parser.add_argument(
        "--trust-exchange-names",
        action="store_true",
        help="take a submission named for a student whatever its owner (only "
        "where every student shares one Unix account)",
    )
    parser.add_argument(
        "--recollect",
        action="store_true",
        help="copy a submission again even if it was collected before (it may have changed since)",
    )


def _collect(args, course: Course) -> list[str]:
    """Collect from the exchange into WORK/collected/<assignment>; print what happened;
    return the assignments that have something collected."""
    from grader.exchange import collect, collect_summary, exchange_of

    exchange = exchange_of(course, args.exchange, args.course_id)
    entries = collect(course, exchange, args.assignment, args.trust_exchange_names, args.recollect)
    print(collect_summary(entries, exchange))
    taken = sorted({e.assignment for e in entries if e.status in ("collected", "kept")})
    if not taken:
        raise UsageError(
            f"exchange: no submission of {', '.join(args.assignment or ['any'])} "
            f"to collect in {exchange.inbound}"
        )
    return taken


def _grade_from_exchange(
    args, course: Course, shard: tuple[int, int], progress: Progress
) -> list[dict]:
    """Collect, then grade each assignment's collected folder as its download."""
    from grader.exchange import collected_folder

    outcomes = []
    for assignment in _collect(args, course):
        outcomes += grade_class(
            course,
            collected_folder(course, assignment),
            [assignment],
            args.student,
            args.workers,
            args.force,
            shard,
            progress=progress,
            owned=True,  # each collected folder is its owner's own
            replace_newer=getattr(args, "replace_newer", False),
        )
        if course.last_intake is None:  # grade_class takes in the folder it is given
            raise RuntimeError(f"grade: expected an intake of {assignment}, got none")
        if args.quiet:  # else the progress printed it before grading
            print(intake_summary(course.last_intake, course.work))
    course.last_intake = None  # printed above, one per assignment
    return outcomes


def _release(args, course: Course) -> int:
    from grader.exchange import exchange_of, release_feedback

    exchange = exchange_of(course, args.exchange, args.course_id)
    for assignment in args.assignment:
        lines = release_feedback(course, exchange, assignment)
        for line in lines:
            print(f"{assignment}: {line}")
        if not lines:
            print(
                f"{assignment}: nothing released: no submission of it was collected into "
                f"{course.work} (python -m grader collect -a {assignment} first)"
            )
    return 0


def _exchange_command(args, course: Course) -> int:
    from nbgrader.exchange import ExchangeError  # nbgrader's release says why it failed

    try:
        _locked(args, course)
        course.hold(args.command)
        if args.command == "collect":
            _collect(args, course)
            return 0
        return _release(args, course)
    except (UsageError, FileNotFoundError, ExchangeError, ExposedError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    """The command line. Everything the grader writes is the TA's alone (umask 077,
    grader/lockdown.py) while it runs; an in-process caller gets its own umask back. A run
    draws its block of throwaway user ids (inherited by its workers, so runs side by side on
    one machine never share a sandbox id) and its control groups' token, however it was
    started: `python -m grader` or the `attnbook-grader` script."""
    os.environ.setdefault(UID_BASE_ENV, str(new_uid_base()))
    cgroups.run_token()
    previous = private_umask()
    handlers = lifetime.stop_on_signals()  # SIGTERM, SIGHUP: workers and sandboxes end too
    try:
        return _main(argv)
    except KeyboardInterrupt as stop:  # Ctrl-C in any command: one line, no traceback
        print(f"\ninterrupted: {_stopped(stop)}", file=sys.stderr)
        return INTERRUPTED
    finally:
        lifetime.restore(handlers)
        os.umask(previous)


def _stopped(stop: KeyboardInterrupt) -> str:
    """What a run that Ctrl-C stopped tells: how far grading got, and what to do next."""
    done = (
        f"{stop.graded} of {stop.total} notebooks graded; " if isinstance(stop, Interrupted) else ""
    )
    return f"{done}run the same command again to finish"


def _add_grade(sub) -> None:
    """`grade`: an LMS zip or a folder of submissions into pages and grades.csv."""
    grade = sub.add_parser("grade", help="grade an LMS zip or a folder of submissions")
    grade.add_argument(
        "source", nargs="?", help="LMS zip or folder; omit to regrade what submitted/ already holds"
    )
    grade.add_argument(
        "-a",
        "--assignment",
        action="append",
        help="assignment to grade, e.g. 01_attention_scores (default: all)",
    )
    grade.add_argument(
        "-s",
        "--student",
        action="append",
        help="regrade only this student, by id or readable name (always re-run)",
    )
    grade.add_argument("--force", action="store_true", help="re-run unchanged submissions too")
    grade.add_argument(
        "--replace-newer",
        action="store_true",
        help="take in an upload even where an earlier run took in a newer one of that student "
        "and notebook (by default the newer one is kept and the older upload ignored, saying "
        "so): to go back to an earlier upload on purpose",
    )
    grade.add_argument(
        "--shard",
        default="0/1",
        help="I/N: grade shard I of N, I counted from 0 (0/2 and 1/2 on two machines; "
        "several machines, one PostgreSQL gradebook); auto: from a Slurm job "
        "array or a Kubernetes Indexed Job (grader/shards.py)",
    )
    grade.add_argument("--csv", help="CSV path (default: WORK/grades.csv)")
    grade.add_argument(
        "--quiet",
        action="store_true",
        help="print nothing while grading (no progress lines or bar): the summary, the table "
        "and the CSV's path at the end, for scripts",
    )
    grade.add_argument(
        "--from-exchange",
        action="store_true",
        help="collect from nbgrader's exchange first (as `collect`), then grade what was collected",
    )
    _collect_options(grade)
    _lock_option(grade)
    _common(grade)


def _add_exchange(sub) -> None:
    """`collect` and `release-feedback`: nbgrader's exchange."""
    collect = sub.add_parser(
        "collect",
        help="copy the latest submissions from nbgrader's "
        "exchange into WORK/collected/ASSIGNMENT (grade it with `grade "
        "WORK/collected/ASSIGNMENT -a ASSIGNMENT` or `grade "
        "--from-exchange`)",
    )
    collect.add_argument(
        "-a",
        "--assignment",
        action="append",
        help="assignment to collect (default: every one in the exchange)",
    )
    _collect_options(collect)
    _lock_option(collect)
    _common(collect)
    release = sub.add_parser(
        "release-feedback",
        help="put the feedback of collected "
        "submissions into nbgrader's exchange (students fetch_feedback)",
    )
    release.add_argument("-a", "--assignment", action="append", required=True)
    _exchange_options(release)
    _lock_option(release)
    _common(release)


def _add_gradescope(sub) -> None:
    """`gradescope build` and `gradescope run`."""
    gradescope = sub.add_parser(
        "gradescope",
        help="Gradescope's autograder: build its zip, or run it (inside Gradescope's container)",
    )
    gradescope.add_argument("action", choices=("build", "run"))
    gradescope.add_argument(
        "-a", "--assignment", action="append", help="build: one zip per assignment (default: all)"
    )
    gradescope.add_argument(
        "--out", help="build: where the zips go (default: ROOT/dist, the top-level dist/)"
    )
    gradescope.add_argument(
        "--visibility",
        default="visible",
        choices=("visible", "after_due_date", "after_published", "hidden"),
        help="build: when students see the result of each code test (with its hint)",
    )
    gradescope.add_argument(
        "--concept-visibility",
        default="after_due_date",
        choices=("visible", "after_due_date", "after_published", "hidden"),
        help="build: when students see the result of each concept question's test (default: "
        "after the due date, so resubmitting cannot find the letter)",
    )
    gradescope.add_argument(
        "--gradescope-root",
        help="run: Gradescope's folder (default: $ATTNBOOK_GRADESCOPE_ROOT, else /autograder)",
    )
    gradescope.add_argument(
        "--root",
        default=str(AUTOGRADER.parent),
        help="build: course folder with solutions/ and autograder/ (default: this repo)",
    )


def _add_gradebook(sub) -> None:
    """`export`, `adjust` and `feedback`: from the gradebook, running nothing."""
    export = sub.add_parser("export", help="write the CSV from the gradebook and print it")
    export.add_argument("--csv", help="CSV path (default: WORK/grades.csv)")
    export.add_argument(
        "--shard-work",
        nargs="+",
        default=[],
        metavar="DIR",
        help="a sharded class: the other machines' work folders (e.g. work/task-*), where the "
        "pages and run reports of the notebooks graded there are",
    )
    _where(export)
    adjust = sub.add_parser(
        "adjust",
        help="set a TA's score (and comment) for one test of one student's notebook; rewrites "
        "that page and grades.csv and prints both",
    )
    adjust.add_argument("student", help="student id or readable name")
    adjust.add_argument("-a", "--assignment", required=True, help="e.g. 01_attention_scores")
    adjust.add_argument("test", help="the graded cell, e.g. test_attention")
    adjust.add_argument("points", type=_points, help="the score it gets (0 to its points)")
    adjust.add_argument("--comment", help="shown on the page under the answer cell the test checks")
    _where(adjust)
    feedback = sub.add_parser(
        "feedback",
        help="rewrite the feedback pages (and grades.csv) from the gradebook, running nothing",
    )
    feedback.add_argument("-a", "--assignment", action="append", help="(default: all)")
    feedback.add_argument(
        "-s", "--student", action="append", help="id or readable name (default: all)"
    )
    _where(feedback)


def _add_after_deadline(sub) -> None:
    """`lms` and `report`: grades back into the LMS, and the class report."""
    lms = sub.add_parser(
        "lms",
        help="grades and feedback pages back into Canvas or Moodle: fills the file the LMS "
        "exported (Canvas's gradebook CSV, Moodle's grading worksheet) into WORK/lms/NB/",
    )
    lms.add_argument("lms", choices=["canvas", "moodle"], help="which LMS the file is from")
    lms.add_argument("file", help="the gradebook CSV (Canvas) or grading worksheet (Moodle)")
    lms.add_argument("-a", "--assignment", required=True, help="e.g. 01_attention_scores")
    lms.add_argument(
        "--column",
        help="Canvas: the assignment column to fill, as the gradebook titles it "
        "(default: the only one whose title names the notebook)",
    )
    lms.add_argument(
        "--missing-zero",
        action="store_true",
        help="a student of the LMS file with no graded notebook and an empty grade cell gets 0 "
        "(default: left as it is; a grade the LMS file holds is always kept)",
    )
    _where(lms)
    report = sub.add_parser(
        "report",
        help="the class report of one notebook: score histogram, item statistics, slips by "
        "test, concept options (WORK/reports/NB/class_report.html and .csv)",
    )
    report.add_argument("-a", "--assignment", required=True, help="e.g. 01_attention_scores")
    report.add_argument(
        "--anonymous",
        action="store_true",
        help="leave out the section that names students (to share with a lecturer)",
    )
    report.add_argument(
        "--shard-work",
        nargs="+",
        default=[],
        metavar="DIR",
        help="a sharded class: the other machines' work folders (see export)",
    )
    _where(report)


def _add_checks(sub) -> None:
    """`catalogue` and `sample`: the grader checking itself."""
    catalogue = sub.add_parser("catalogue", help="grade every catalogued mistake; report")
    catalogue.add_argument("-a", "--assignment", action="append")
    catalogue.add_argument("--out", help="write the Markdown report here too")
    catalogue.add_argument(
        "--limit", type=_at_least(1), help="only the first N mistakes per notebook"
    )
    _common(catalogue, "a temporary folder, removed after the report")
    sample = sub.add_parser("sample", help="grade the embedded sample class and print it")
    sample.add_argument(
        "--out",
        help="where the sample's LMS zip and its work folder, OUT/work, go (default: a "
        "temporary folder, kept)",
    )
    _common(sample, "not for sample: give --out OUT, and the work folder is OUT/work")


def _parser() -> tuple[argparse.ArgumentParser, Any]:
    """The command line: the parser and its subcommands' parsers (by name, `.choices`)."""
    parser = argparse.ArgumentParser(prog="python -m grader", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for add in (_add_grade, _add_exchange, _add_gradescope, _add_gradebook, _add_after_deadline,
                _add_checks):  # fmt: skip
        add(sub)
    return parser, sub


def _main(argv: list[str] | None) -> int:
    parser, sub = _parser()
    args = parser.parse_args(argv)
    known = assignments(Path(args.root))
    _refuse_values(args, sub.choices[args.command], known)
    if args.command in PROBED and args.sandbox == "bwrap":
        refusal = sandbox_refusal(args.command)
        if refusal:
            print(refusal, file=sys.stderr)
            return NO_SANDBOX
    if args.command == "catalogue":
        from grader.report import catalogue_command

        return catalogue_command(args)
    if args.command == "sample":
        from grader.sample import sample_command

        return sample_command(args)
    if args.command == "gradescope":
        from grader.gradescope import gradescope_command

        return gradescope_command(args)
    course = _course(args)
    try:
        return _in_work_folder(args, course, known)
    finally:
        course.let_go()


def _in_work_folder(args, course: Course, known: list[str]) -> int:
    """The commands that read and write a work folder, each holding it (`Course.hold`) from
    before it writes anything to its end: `grade` once its --shard and the lockdown are
    checked, the others at once."""
    if args.command in ("collect", "release-feedback"):
        return _exchange_command(args, course)
    gradebook = sqlite_file(course.db_url)
    if args.command != "grade" and gradebook is not None and not gradebook.is_file():
        print(
            f"error: {args.command}: expected a gradebook at {gradebook} (grade a class "
            "first, or give --work or --db-url), found none",
            file=sys.stderr,
        )
        return 2
    if args.command != "grade":
        try:
            course.hold(args.command)
        except WorkFolderBusy as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
    if args.command == "lms":
        from grader.lms import lms_command

        return lms_command(args, course)
    if args.command == "report":
        from grader.classreport import report_command

        return report_command(args, course)
    if args.command in ("adjust", "feedback"):
        from grader.manual import adjust_command, feedback_command

        return (adjust_command if args.command == "adjust" else feedback_command)(args, course)
    csv_path = Path(args.csv) if args.csv else course.work / "grades.csv"
    failed: list[dict] = []
    if args.command == "grade":
        graded = _grade(args, course)
        if isinstance(graded, int):
            return graded
        failed = [o for o in graded if not o["ok"]]
    rows = export_csv(course, csv_path)
    print(table(rows))
    print(f"CSV: {csv_path}")
    if args.command == "grade" and not isinstance(graded, int):
        from grader.classreport import write_report

        for assignment in sorted({str(o.get("assignment")) for o in graded} & set(known)):
            print(f"class report: {write_report(course, assignment)}")
    return 1 if failed else 0


def _refuse_values(args, command: argparse.ArgumentParser, known: list[str]) -> None:
    """Stop with the command's usage and a line naming the argument, the expected and the
    actual value, for a value the parser took but that names nothing here."""
    named = getattr(args, "assignment", None) or ()
    for name in [named] if isinstance(named, str) else named:
        if name not in known:
            command.error(
                f"argument -a/--assignment: expected one of {', '.join(known)}, got {name!r}"
            )
    db = sqlite_file(getattr(args, "db_url", None) or "")
    if db is not None and not db.parent.is_dir():
        command.error(
            f"argument --db-url: expected a SQLite file in an existing folder, got "
            f"{args.db_url!r}: the folder {str(db.parent)!r} "
            f"{'is not a folder' if db.parent.exists() else 'does not exist'}"
            + ("" if db.is_absolute() else f" (relative to {os.getcwd()})")
        )
    if args.command == "sample" and args.work is not None:
        command.error(
            "argument --work: expected --out OUT with sample (its work folder is OUT/work, "
            f"beside the LMS zip it writes), got --work {args.work!r}"
        )
    if args.command == "lms" and args.lms == "moodle" and args.column is not None:
        command.error("argument --column: expected only with canvas (a Moodle worksheet has one)")
    for folder in getattr(args, "shard_work", []):
        if not (Path(folder) / "feedback").is_dir() and not (Path(folder) / "reports").is_dir():
            command.error(
                f"argument --shard-work: expected a work folder that graded notebooks "
                f"(feedback/ or reports/ in it), found {folder!r}"
            )


def _grade(args, course: Course) -> list[dict] | int:
    """`grade`: the outcomes, or the exit status of a command refused before grading."""
    try:
        index, count, origin = parse_shard(args.shard)
    except ShardError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if count > 1:
        print(f"shard {index}/{count} (from {origin})")
        db = sqlite_file(course.db_url)
        if db is not None:
            print(
                f"warning: --shard {index}/{count}: this machine's grades go to the SQLite "
                f"gradebook {db}, which only it sees: the other {count - 1} shard(s)' grades "
                "will not be in it, so grades.csv, export and lms here hold this shard's "
                "students alone (lms leaves the others' cells as the LMS file has them, never "
                "0); give every machine one shared --db-url postgresql+psycopg2://... "
                '(autograder/README.md, "Several machines")',
                file=sys.stderr,
            )
    started = time.monotonic()
    progress = Progress() if args.quiet else TerminalProgress(course.work)
    cgroups.backend()  # found once, before any worker starts (cgroup v2 moves this process)
    try:
        _locked(args, course)  # before anything is read or written
        course.hold("grade")  # until the table and the class report are written
        if args.from_exchange and args.source:
            raise UsageError(
                f"grade: expected SOURCE or --from-exchange, found both (SOURCE {args.source!r})"
            )
        if args.from_exchange:
            outcomes = _grade_from_exchange(args, course, (index, count), progress)
        else:
            outcomes = grade_class(
                course,
                Path(args.source) if args.source else None,
                args.assignment,
                args.student,
                args.workers,
                args.force,
                (index, count),
                progress=progress,
                replace_newer=args.replace_newer,
            )
    except (UsageError, FileNotFoundError, ExposedError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    finally:
        cgroups.sweep()  # the groups of a worker that ended without closing its kernel
    if course.last_intake is not None and args.quiet:  # else printed before grading
        print(intake_summary(course.last_intake, course.work))
    print(cgroups.describe())
    failed = [o for o in outcomes if not o["ok"]]
    for outcome in failed:
        print(
            f"FAILED {outcome['student']}/{outcome['assignment']}: "
            f"{outcome.get('reason') or outcome['error']} (the whole error: "
            f"{course.error_path(outcome['student'], outcome['assignment'])})",
            file=sys.stderr,
        )
    print(
        f"graded {len(outcomes)} notebook(s) with {args.workers} worker(s) in "
        f"{time.monotonic() - started:.1f} s"
        + (f"; grading FAILED for {len(failed)}: their status says why" if failed else "")
    )
    return outcomes
