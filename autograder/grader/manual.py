"""Manual grading as commands: `adjust` sets a manual score and comment in the gradebook,
`feedback` rewrites the students' pages from it. Nothing runs a student's code.

A TA's score replaces the automatic one for that test (nbgrader's `manual_score`), in the
gradebook, the CSV and the page, until a resubmission changes the answers it was given for
(`Course.clear_stale_manual`). nbgrader keeps comments on answer cells only, so the comment
on a test goes on the answer cell that test checks: the last answer cell before it.
"""

from __future__ import annotations

import math
import sys
import warnings
from pathlib import Path

from grader.course import Course, UsageError, export_csv, table


def comment_cell(course: Course, assignment: str, test: str) -> str:
    """The answer cell whose comment the page shows for `test`: the test itself when it is
    an answer cell graded by hand, else the last answer cell before it ('' when none is)."""
    return course.comment_cells(assignment).get(test, "")


def adjust(
    course: Course,
    student: str,
    assignment: str,
    test: str,
    points: float,
    comment: str | None = None,
) -> tuple[dict, Path]:
    """Set the manual score of `test` (and the comment on its answer cell) for one student's
    notebook, rewrite that page and the CSV; return (the student's CSV row, the page)."""
    from nbgrader.api import Gradebook, MissingEntry

    (sid,) = course.resolve_students([student], "STUDENT")
    with warnings.catch_warnings(), Gradebook(course.db_url) as gb:
        warnings.simplefilter("ignore")
        try:
            notebook = gb.find_submission_notebook(assignment, assignment, sid)
        except MissingEntry:
            raise UsageError(
                f"adjust: expected a graded {assignment} of student {sid!r} in the gradebook, "
                f"found none (grade it first with `python -m grader grade`)"
            ) from None
        grades = {g.name: g for g in notebook.grades}
        if test not in grades:
            raise UsageError(
                f"adjust: TEST: expected one of {', '.join(sorted(grades))}, got {test!r}"
            )
        grade = grades[test]
        most = float(grade.max_score)
        if not (math.isfinite(points) and 0 <= points <= most):
            raise UsageError(
                f"adjust: POINTS: expected a number from 0 to {most:g}, got {points!r}"
            )
        grade.manual_score = float(points)
        if comment is not None:
            target = comment_cell(course, assignment, test)
            comments = {c.name: c for c in notebook.comments}
            if target not in comments:
                raise UsageError(
                    f"adjust: --comment: expected an answer cell before {test} to hold it, "
                    "found none"
                )
            comments[target].manual_comment = comment
        gb.db.commit()
    page = regenerate(course, sid, assignment)
    rows = export_csv(course, course.work / "grades.csv")
    row = next(r for r in rows if r["student_id"] == sid and r["assignment"] == assignment)
    return row, page


def regenerate(course: Course, student: str, assignment: str) -> Path:
    """Rewrite one student's feedback page from the graded notebook and the gradebook."""
    graded = course.work / "autograded" / student / assignment / f"{assignment}.ipynb"
    if not graded.exists():
        raise UsageError(
            f"feedback: expected a graded notebook of {student!r} for {assignment} at "
            f"{graded}, found none (grade it first)"
        )
    result = course.api().generate_feedback(assignment, student, force=True)
    page = course.page_path(student, assignment)
    if not result["success"] or not page.exists():
        raise RuntimeError(
            f"feedback: the page of {student} for {assignment} could not be written: "
            f"{(result.get('error') or result.get('log') or '')[-1000:]}"
        )
    return page


def graded_pairs(course: Course, assignments: list[str] | None, students: list[str] | None):
    """(student, assignment) of every graded notebook, or of the given ones."""
    folder = course.work / "autograded"
    pairs = sorted(
        (p.parent.parent.name, p.parent.name)
        for p in folder.glob("*/*/*.ipynb")
        if p.stem == p.parent.name
    )
    if assignments:
        pairs = [(s, a) for s, a in pairs if a in assignments]
    if students:
        wanted = course.resolve_students(students)
        missing = [s for s in wanted if s not in {p[0] for p in pairs}]
        if missing:
            raise UsageError(
                f"feedback: --student {missing[0]!r}: expected a student with a graded "
                f"notebook{' of ' + ', '.join(assignments) if assignments else ''}, found none"
            )
        pairs = [(s, a) for s, a in pairs if s in wanted]
    return pairs


def adjust_command(args, course: Course) -> int:
    try:
        row, page = adjust(
            course, args.student, args.assignment, args.test, args.points, args.comment
        )
    except UsageError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(table([row]))
    said = " with a comment" if args.comment else ""
    print(f"{args.test}: manual score {args.points:g}{said}")
    print(f"page: {page}")
    print(f"CSV: {course.work / 'grades.csv'}")
    return 0


def feedback_command(args, course: Course) -> int:
    try:
        pairs = graded_pairs(course, args.assignment, args.student)
    except UsageError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if not pairs:
        print(f"feedback: no graded notebook in {course.work / 'autograded'}: nothing to write")
        return 0
    failed = 0
    for student, assignment in pairs:
        try:
            print(f"{student} {assignment}: {regenerate(course, student, assignment)}")
        except (UsageError, RuntimeError) as err:
            failed += 1
            print(f"{student} {assignment}: FAILED: {err}", file=sys.stderr)
    export_csv(course, course.work / "grades.csv")
    print(f"feedback: {len(pairs) - failed} page(s) written; CSV: {course.work / 'grades.csv'}")
    return 1 if failed else 0
