"""`python -m grader catalogue`: every catalogued mistake graded as a submission; a report.

For each notebook with a catalogue (`autograder/mistakes/`), the solution and one student
per mistake (the released notebook filled in from the solution with that mistake) go
through the same pipeline as a class: intake, sandbox, nbgrader. The report has one row per
mistake: the test(s) that caught it, the points it lost against the solution, and the hint
the student sees in the feedback (checked against the hint the catalogue promises).
"""

from __future__ import annotations

import re
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from grader.catalogue import (
    apply_variant,
    fill_in,
    load_catalogue,
    nbgrader_meta,
    notebooks,
    solution_notebook,
)
from grader.course import (
    Course,
    Progress,
    UsageError,
    grade_class,
    gradebook_rows,
    outcome_line,
)
from grader.intake import printable


class CatalogueProgress(Progress):
    """What `catalogue` tells as it grades, on `stream` (stderr: stdout is the report; None:
    nothing): the notebook it is on, then a line per submission as it finishes, as `grade`
    prints them, with the mistake that submission carries; the time each notebook took."""

    def __init__(self, stream, notebook: str, place: str, mistakes: dict[str, str]):
        self.stream, self.notebook, self.place, self.mistakes = stream, notebook, place, mistakes
        self.total = self.count = 0
        self.started = time.monotonic()

    def tell(self, text: str) -> None:
        if self.stream is not None:
            print(text, file=self.stream, flush=True)

    def start(self, total: int) -> None:
        self.total, self.count = total, 0
        self.tell(f"catalogue {self.place} {self.notebook}: grading {total} notebook(s)")

    def done(self, outcome: dict) -> None:
        self.count += 1
        line = outcome_line(outcome, self.count, max(self.total, self.count))
        mistake = self.mistakes.get(outcome.get("student", ""), "")
        self.tell(f"{line} [{printable(mistake, 100)}]" if mistake else line)

    def close(self) -> None:
        seconds = time.monotonic() - self.started
        self.tell(f"catalogue {self.place} {self.notebook}: {self.count} graded in {seconds:.0f} s")


def _hint_of(course: Course, student: str, notebook: str, test: str) -> tuple[str, str]:
    """(the hint line the student sees, the whole failure message) of test `test`."""
    path = course.page_path(student, notebook)
    graded = course.work / "autograded" / student / notebook / f"{notebook}.ipynb"
    if not graded.exists():
        return "", ""
    for cell in nbformat.read(graded, 4).cells:
        if nbgrader_meta(cell).get("grade_id") == test:
            text = "".join(
                o.get("evalue", "")
                for o in cell.get("outputs", [])
                if o.get("output_type") == "error"
            )
            found = re.search(r"Hint: (.*)", text)
            shown = found.group(1).strip() if found else text.strip().splitlines()[-1:] or [""]
            if path.exists() and found and found.group(1)[:40] not in path.read_text():
                return "", text  # not in the feedback the student reads
            return (shown if isinstance(shown, str) else shown[0]), text
    return "", ""


def catalogue_report(
    course: Course,
    assignments: list[str] | None = None,
    workers: int = 1,
    limit: int | None = None,
    stream=None,
) -> list[dict]:
    """Grade every mistake of the catalogue; one dict per mistake. With a `stream`, tell the
    progress there as it goes (nothing else is written to it)."""
    rows = []
    chosen = assignments or notebooks()
    for index, notebook in enumerate(chosen):
        mistakes = list(load_catalogue(notebook).MISTAKES)[:limit]
        place = f"[{index + 1}/{len(chosen)}]"
        names = {f"m{n:02d}": f"{v.cell}: {v.name}" for n, v in enumerate(mistakes)}
        progress = CatalogueProgress(stream, notebook, place, names)
        progress.tell(
            f"catalogue {place} {notebook}: the solution and {len(mistakes)} mistake(s), each "
            "graded as a submission"
        )
        course.ensure_assignment(notebook)
        release = course.release(notebook)
        solution = solution_notebook(notebook)
        students = {"solution": fill_in(release, solution)}
        for number, variant in enumerate(mistakes):
            students[f"m{number:02d}"] = fill_in(release, apply_variant(solution, variant))
        with tempfile.TemporaryDirectory(prefix="attnbook-catalogue-") as scratch:
            inbox = Path(scratch)  # the class as a download; gone once it is graded
            for student, nb in students.items():
                (inbox / student).mkdir(parents=True)
                nbformat.write(nb, inbox / student / f"{notebook}.ipynb")
            outcomes = grade_class(course, inbox, [notebook], workers=workers, progress=progress)
        failed = {o["student"]: o.get("reason", "") for o in outcomes if not o["ok"]}
        if "solution" in failed:
            raise RuntimeError(
                f"catalogue: grading the solution of {notebook} failed, so no mistake can be "
                f"measured against it: {failed['solution']}"
            )
        graded = {r["student_id"]: r for r in gradebook_rows(course) if r["assignment"] == notebook}
        best = graded["solution"]["tests"]
        for number, variant in enumerate(mistakes):
            student = f"m{number:02d}"
            tests = graded[student]["tests"]
            lost = {t: best[t] - tests.get(t, 0.0) for t in best if tests.get(t, 0.0) < best[t]}
            hint, message = _hint_of(course, student, notebook, variant.test)
            if student in failed:  # its zeros say nothing about the mistake
                lost, hint, message = {}, f"GRADING FAILED: {failed[student]}", ""
            rows.append(
                {
                    "notebook": notebook,
                    "cell": variant.cell,
                    "mistake": variant.name,
                    "caught_by": sorted(lost),
                    "points_lost": sum(lost.values()),
                    "expected_test": variant.test,
                    "hint": hint,
                    "hint_ok": variant.hint in message,
                }
            )
    return rows


def markdown(rows: list[dict]) -> str:
    lines = [
        "| notebook | mistake | test that caught it | points lost | hint shown |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        caught = ", ".join(r["caught_by"]) or "**not caught**"
        hint = r["hint"].replace("|", "\\|") or "**no hint**"
        flag = "" if r["hint_ok"] else " (**the catalogue's hint is not in the message**)"
        lines.append(
            f"| {r['notebook']} | {r['cell']}: {r['mistake']} | {caught} | "
            f"{r['points_lost']:g} | {hint}{flag} |"
        )
    return "\n".join(lines)


def catalogue_command(args) -> int:
    if args.work:
        return _catalogue(args, Path(args.work))
    with tempfile.TemporaryDirectory(prefix="attnbook-cat-") as scratch:  # gone after the report
        return _catalogue(args, Path(scratch))


def _catalogue(args, work: Path) -> int:
    course = Course(
        root=Path(args.root),
        work=work,
        db_url=args.db_url or "",
        sandbox=args.sandbox,
        cell_timeout=args.timeout,
        memory_mb=args.memory_mb,
    )
    try:
        course.hold("catalogue")
        rows = catalogue_report(course, args.assignment, args.workers, args.limit, sys.stderr)
    except UsageError as err:  # the work folder is another command's
        print(f"error: {err}", file=sys.stderr)
        return 2
    except RuntimeError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    finally:
        course.let_go()
    text = markdown(rows)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    missed = [r for r in rows if not r["caught_by"] or not r["hint_ok"]]
    print(f"\n{len(rows)} mistakes graded, {len(missed)} not caught or without their hint")
    return 1 if missed else 0
