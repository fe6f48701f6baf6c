"""`python -m grader sample`: grade the embedded sample class end to end and print it.

The class (autograder/sample_class/build.py) is written as a Canvas-style LMS zip, graded
with the same command a TA runs on a real download, and printed with the expected score
of each student next to the one the grader gave.
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
import time
from pathlib import Path

from grader.course import Course, UsageError, export_csv, grade_class, table


def load_builder():
    """The sample class and hostile submissions: the grader's package data."""
    return importlib.import_module("grader.sample_class.build")


def sample_command(args) -> int:
    build = load_builder()
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="attnbook-sample-"))
    out.mkdir(parents=True, exist_ok=True)
    root = Path(args.root)
    course = Course(
        root=root,
        work=out / "work",
        db_url=args.db_url or "",
        sandbox=args.sandbox,
        cell_timeout=args.timeout,
        memory_mb=args.memory_mb,
    )
    try:
        course.hold("sample")  # before its download is written
    except UsageError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    try:
        return _sample(args, build, course, out)
    finally:
        course.let_go()


def _sample(args, build, course: Course, out: Path) -> int:
    students = build.sample_class(course.root)
    download = build.write_lms_zip(
        out / "lms_download.zip",
        {s: {f"{build.NOTEBOOK}.ipynb": data} for s, (data, _, _) in students.items()},
    )
    started = time.monotonic()
    outcomes = grade_class(course, download, [build.NOTEBOOK], workers=args.workers)
    seconds = time.monotonic() - started
    rows = export_csv(course, course.work / "grades.csv")
    print(f"sample class: {len(students)} students, LMS zip {download}")
    print(f"graded {len(outcomes)} notebook(s) with {args.workers} worker(s) in {seconds:.1f} s\n")
    print(table(rows))
    lines, wrong = expected_lines(rows, students)
    print("\n" + "\n".join(lines))
    print(f"\nCSV: {course.work / 'grades.csv'}\nfeedback: {course.work / 'feedback'}")
    wrong += not _lms_files(course, build.NOTEBOOK, rows, out)
    from grader.classreport import write_report

    print(f"class report: {write_report(course, build.NOTEBOOK)}")
    failed = [o for o in outcomes if not o["ok"]]
    for outcome in failed:
        print(f"FAILED {outcome['student']}: {outcome.get('reason', '')}", file=sys.stderr)
    return 1 if wrong or failed else 0


def expected_lines(rows: list[dict], students: dict) -> tuple[list[str], int]:
    """The block that sets each student's score beside the one the sample class expects, and
    how many differ. Its words are "as expected" and "DIFFERENT", never a status's ("ok"),
    so a student whose status is `see blank` does not read as ok."""
    lines, wrong = ["expected score (the grader's score: as expected, or DIFFERENT):"], 0
    for row in rows:
        expected, what = students[row["name"]][1:]  # the LMS id is the student id
        same = row["score"] == expected
        wrong += not same
        mark = "as expected" if same else f"DIFFERENT (got {row['score']:g})"
        lines.append(f"  {row['name']:6s} {expected:5g}  {mark:11s}  {what}")
    return lines, wrong


def _lms_files(course: Course, assignment: str, rows: list[dict], out: Path) -> bool:
    """The class's grades back into Canvas and Moodle: example exports of each LMS for these
    students, filled as `python -m grader lms` fills a TA's; whether every student fit."""
    from grader.lms import fill_canvas, fill_moodle, write_example_exports

    people = [(r["student_id"], r["name"]) for r in rows if r["assignment"] == assignment]
    most = max((r["max_score"] for r in rows), default=0.0)
    canvas, moodle = write_example_exports(out / "lms_exports", assignment, people, most)
    done = [fill_canvas(course, assignment, canvas, None, False)]
    done.append(fill_moodle(course, assignment, moodle, False))
    print("LMS files: " + ", ".join(str(p) for d in done for p in d.written))
    return all(d.ok and d.graded == len(people) for d in done)


if __name__ == "__main__":
    sys.exit("run as: python -m grader sample")
