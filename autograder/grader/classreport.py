"""What a class got wrong, by named slip: `python -m grader report -a NB` (and the last step of
`grade`) writes WORK/reports/NB/class_report.html and class_report.csv.

It reads only what grading stored: the gradebook (SQLite or PostgreSQL, so a sharded class
reports as one), each notebook's run report (verdicts, the option each concept answer chose,
the kernel's status) and the autograded notebooks' test outputs (the slip a failing check
named). Nothing is executed again.

Item statistics follow Moodle's quiz statistics, per test cell, over the students graded:

- facility: the mean score as a share of the cell's points;
- standard deviation: of the score as a share of the points (n - 1 in the denominator);
- discrimination index: the correlation of the cell's score with the rest of the total
  (the total without this cell); flagged red below 0.30 and amber from 0.30 to 0.50;
- discriminative efficiency: that covariance over the largest covariance the two lists of
  scores allow (each sorted, then paired); flagged below 15%;
- quintile facilities: the facility within each fifth of the class ranked by total;
- Cronbach's alpha for the notebook: k/(k-1) * (1 - sum of the cells' variances / the
  total's variance); above 0.75 is fine, below 0.64 poor.

A failing test counts under the slip its check named ("This looks like a known mistake:
..."), else under its hint line, else as "unrecognised"; an answer left as the stub is "not
answered" and a kernel that stopped is "kernel stopped". Student names appear only in the
section "Students behind the figures", which `--anonymous` leaves out; every text that came
from a submission or an LMS is escaped, and the page runs no script.
"""

from __future__ import annotations

import base64
import csv
import html
import io
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from grader.course import Course, gradebook_rows, tests_in_order

KNOWN = "This looks like a known mistake:"
SMALL_CLASS = 20  # below this, a figure rests on too few students to mean much
RED, AMBER, EFFICIENCY_FLAG = 0.30, 0.50, 0.15
ALPHA_FINE, ALPHA_POOR = 0.75, 0.64


# -- statistics --------------------------------------------------------------------------------
def facility(scores: np.ndarray, points: float) -> float:
    return float(scores.mean() / points) if points and len(scores) else float("nan")


def spread(scores: np.ndarray, points: float) -> float:
    if not points or len(scores) < 2:
        return float("nan")
    return float((scores / points).std(ddof=1))


def discrimination(item: np.ndarray, rest: np.ndarray) -> float:
    """The correlation of an item's scores with the rest of the total; nan when either is
    constant (no student differs from another)."""
    if len(item) < 2 or item.std() == 0 or rest.std() == 0:
        return float("nan")
    return float(np.corrcoef(item, rest)[0, 1])


def efficiency(item: np.ndarray, rest: np.ndarray) -> float:
    """cov(item, rest) over the largest covariance that these two lists of values allow."""
    if len(item) < 2:
        return float("nan")
    most = np.cov(np.sort(item), np.sort(rest))[0, 1]
    return float(np.cov(item, rest)[0, 1] / most) if most > 0 else float("nan")


def cronbach_alpha(table: np.ndarray) -> float:
    """table: students x items (scores)."""
    n, k = table.shape
    if n < 2 or k < 2:
        return float("nan")
    total = table.sum(axis=1).var(ddof=1)
    if total == 0:
        return float("nan")
    return float(k / (k - 1) * (1 - table.var(axis=0, ddof=1).sum() / total))


def quintiles(item: np.ndarray, totals: np.ndarray, points: float) -> list[float]:
    """The item's facility in each fifth of the class, ranked by total from the lowest."""
    order = np.argsort(totals, kind="stable")
    return [facility(item[part], points) for part in np.array_split(order, 5) if len(part)]


def discrimination_flag(value: float) -> str:
    if value != value:
        return ""
    return "red" if value < RED else ("amber" if value < AMBER else "")


# -- what grading stored -------------------------------------------------------------------------
@dataclass
class Student:
    id: str
    name: str
    score: float
    tests: dict[str, float]
    verdicts: dict[str, str] = field(default_factory=dict)
    answers: dict[str, str] = field(default_factory=dict)
    slips: dict[str, str] = field(default_factory=dict)  # grade_id -> slip (failed tests)
    status: str = "complete"


def slip_of(outputs: list[dict]) -> str:
    """The slip a failing test's check named: its known mistake, else its hint line."""
    text = "\n".join(
        str(o.get("evalue", "")) + "\n" + str(o.get("text", "")) for o in outputs or []
    )
    lines = [line.strip() for line in text.splitlines()]
    known = [line for line in lines if line.startswith(KNOWN)]
    if known:
        return known[0][len(KNOWN) :].strip().rstrip(".")
    hints = [line for line in lines if line.startswith("Hint:")]
    return hints[0][len("Hint:") :].strip() if hints else "unrecognised"


def _test_outputs(path: Path) -> dict[str, list[dict]]:
    """grade_id -> the outputs of its test cell in an autograded notebook."""
    try:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    found = {}
    for cell in cells:
        meta = (cell.get("metadata") or {}).get("nbgrader") or {}
        if meta.get("grade") and not meta.get("solution") and meta.get("grade_id"):
            found[str(meta["grade_id"])] = cell.get("outputs") or []
    return found


def students_of(course: Course, assignment: str) -> list[Student]:
    """Every student graded on `assignment`, with what grading stored about them."""
    from grader.course import _graded_in

    found = []
    for row in gradebook_rows(course):
        if row["assignment"] != assignment:
            continue
        student = Student(row["student_id"], row["name"], row["score"], dict(row["tests"]))
        home = _graded_in(course, student.id, assignment)
        run_path = home.work / "reports" / assignment / student.id / f"{assignment}.json"
        try:
            run = json.loads(run_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            run = {"status": "no run report (graded elsewhere, or the grading failed)"}
        student.status = str(run.get("status", ""))
        student.verdicts = {str(k): str(v) for k, v in (run.get("tests") or {}).items()}
        student.answers = {str(k): str(v) for k, v in (run.get("answers") or {}).items()}
        failed = [g for g, v in student.verdicts.items() if v == "failed"]
        if failed:
            graded = home.work / "autograded" / student.id / assignment / f"{assignment}.ipynb"
            outputs = _test_outputs(graded)
            student.slips = {g: slip_of(outputs.get(g, [])) for g in failed}
        found.append(student)
    return sorted(found, key=lambda s: s.id)


def _points(course: Course, assignment: str) -> dict[str, float]:
    path = course.root / "solutions" / assignment / f"{assignment}.ipynb"
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    meta = [(c.get("metadata") or {}).get("nbgrader") or {} for c in cells]
    return {m["grade_id"]: float(m.get("points") or 0) for m in meta if m.get("grade_id")}


def _keys(assignment: str) -> dict[str, tuple[str, str]]:
    """answer name -> (options, keyed letter), from the private reference."""
    from attnbook.grading import load_reference

    try:
        answers = load_reference(assignment).ANSWERS
    except (ImportError, AttributeError, FileNotFoundError):
        return {}
    return {name: (str(v[0]), str(v[1])) for name, v in answers.items()}


# -- the report ----------------------------------------------------------------------------------
@dataclass
class ClassReport:
    assignment: str
    students: list[Student]
    order: list[str]
    points: dict[str, float]
    keys: dict[str, tuple[str, str]]
    rows: list[dict] = field(default_factory=list)  # the CSV's rows

    @property
    def n(self) -> int:
        return len(self.students)

    def table(self) -> np.ndarray:
        return np.array([[s.tests.get(t, 0.0) for t in self.order] for s in self.students])

    def items(self) -> list[dict]:
        table = self.table().reshape(self.n, len(self.order))
        totals = table.sum(axis=1) if self.n else np.zeros(0)
        found = []
        for j, test in enumerate(self.order):
            item, points = table[:, j], self.points.get(test, 0.0)
            rest = totals - item
            d, e = discrimination(item, rest), efficiency(item, rest)
            found.append(
                {
                    "test": test,
                    "points": points,
                    "facility": facility(item, points),
                    "sd": spread(item, points),
                    "discrimination": d,
                    "efficiency": e,
                    "flag": discrimination_flag(d)
                    + (" low efficiency" if e == e and e < EFFICIENCY_FLAG else ""),
                    "quintiles": quintiles(item, totals, points),
                }
            )
        return found

    def slips(self, test: str) -> list[tuple[str, list[Student]]]:
        """The slips of one test, most students first: (slip, its students)."""
        by_slip: dict[str, list[Student]] = {}
        for s in self.students:
            verdict = s.verdicts.get(test, "")
            if verdict == "failed":
                by_slip.setdefault(s.slips.get(test, "unrecognised"), []).append(s)
            elif verdict == "unanswered":
                by_slip.setdefault("not answered", []).append(s)
            elif verdict == "lost":
                by_slip.setdefault("kernel stopped before or in this test", []).append(s)
        return sorted(by_slip.items(), key=lambda kv: (-len(kv[1]), kv[0]))

    def choices(self, answer: str) -> dict[str, list[Student]]:
        options = self.keys.get(answer, ("", ""))[0]
        counts: dict[str, list[Student]] = {o: [] for o in options}
        for s in self.students:
            chosen = s.answers.get(answer, "").strip().upper()
            counts.setdefault(chosen if chosen in options and chosen else "no answer", []).append(s)
        return counts

    def troubled(self) -> list[Student]:
        return [s for s in self.students if s.status != "complete"]


def build(course: Course, assignment: str) -> ClassReport:
    points = _points(course, assignment)
    order = [t for t in tests_in_order(course, assignment) if t in points]
    return ClassReport(
        assignment, students_of(course, assignment), order, points, _keys(assignment)
    )


def _percent(value: float) -> str:
    return "—" if value != value else f"{100 * value:.0f}%"


def _decimal(value: float) -> str:
    return "—" if value != value else f"{value:.2f}"


def histogram_png(report: ClassReport) -> str:
    """The score distribution as a PNG, base64."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    most = sum(report.points.get(t, 0.0) for t in report.order) or 1.0
    figure, axes = plt.subplots(figsize=(6.0, 2.6), dpi=100)
    edges = [i - 0.5 for i in range(int(most) + 2)]
    axes.hist([s.score for s in report.students], bins=edges, color="#4c72b0")
    axes.set_xlabel(f"score (of {most:g})")
    axes.set_ylabel("students")
    axes.set_title(f"{report.assignment}: {report.n} students")
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    plt.close(figure)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


STYLE = (
    "body{font-family:sans-serif;max-width:60em;margin:2em auto;line-height:1.4}"
    "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .5em;"
    "text-align:left}.red{background:#f8d0d0}.amber{background:#fbe6c2}.key{font-weight:bold}"
)


def _table(head: list[str], body: list[tuple[str, list[str]]]) -> str:
    """An HTML table: `head` cells, then (row class, cells) rows; cells already escaped."""
    cells = "".join(f"<th>{h}</th>" for h in head)
    rows = "".join(
        f"<tr class='{kind}'>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>"
        for kind, row in body
    )
    return f"<table><tr>{cells}</tr>{rows}</table>"


def _items_section(report: ClassReport, rows: list[list[str]]) -> str:
    body = []
    for item in report.items():
        flag = item["flag"].split()[0] if item["flag"] else ""
        body.append(
            (
                flag,
                [
                    html.escape(item["test"]),
                    f"{item['points']:g}",
                    _percent(item["facility"]),
                    _percent(item["sd"]),
                    f"{_decimal(item['discrimination'])} {html.escape(item['flag'])}",
                    _percent(item["efficiency"]),
                    ", ".join(_percent(q) for q in item["quintiles"]),
                ],
            )
        )
        figures = (
            f"sd {_decimal(item['sd'])}; discrimination {_decimal(item['discrimination'])}; "
            f"efficiency {_decimal(item['efficiency'])}; {item['flag'].strip() or 'no flag'}"
        )
        rows.append(["test", item["test"], "facility", str(report.n), "", figures])
        rows[-1][4] = _percent(item["facility"])
    head = ["test", "points", "facility", "SD", "discrimination", "efficiency"]
    head.append("quintile facilities (lowest fifth first)")
    return "<h2>Test cells</h2>" + _table(head, body)


def _slips_section(report: ClassReport, rows: list[list[str]], named: list[str]) -> str:
    parts, n = ["<h2>Slips, by test</h2>"], max(report.n, 1)
    concept = _concept_tests(report)
    for test in report.order:
        slips = report.slips(test) if test not in concept else []
        if not slips:
            continue
        body = []
        for slip, who in slips:
            body.append(("", [html.escape(slip), str(len(who)), _percent(len(who) / n)]))
            rows.append(["slip", test, slip, str(len(who)), _percent(len(who) / n), ""])
            named.append(f"{test}: {slip}: " + ", ".join(_who(s) for s in who))
        parts.append(f"<h3>{html.escape(test)}</h3>" + _table(["slip", "students", "share"], body))
    return "".join(parts)


def _concepts_section(report: ClassReport, rows: list[list[str]]) -> str:
    parts, n = ["<h2>Concept questions</h2>"], max(report.n, 1)
    for answer in _concept_tests(report).values():
        options, key = report.keys.get(answer, ("", ""))
        counts = report.choices(answer)
        wrong = [(len(w), o) for o, w in counts.items() if o in options and o != key and w]
        top = max(wrong)[1] if wrong else ""
        body = []
        for option, who in counts.items():
            mark = " (keyed)" if option == key else ""
            mark = " (most chosen distractor)" if option == top else mark
            share = _percent(len(who) / n)
            body.append(
                ("key" if option == key else "", [html.escape(option + mark), str(len(who)), share])
            )
            rows.append(["option", answer, option + mark, str(len(who)), share, ""])
        parts.append(
            f"<h3>{html.escape(answer)}</h3>" + _table(["option", "students", "share"], body)
        )
    return "".join(parts)


def render(report: ClassReport, anonymous: bool) -> tuple[str, list[list[str]]]:
    """The page and the CSV rows."""
    e = html.escape
    rows: list[list[str]] = [["section", "item", "label", "count", "share", "value"]]
    small = (
        f" A class of fewer than {SMALL_CLASS} students is too small for these statistics to "
        "mean much: read them as a sketch."
        if report.n < SMALL_CLASS
        else ""
    )
    image = f"data:image/png;base64,{histogram_png(report)}" if report.n else ""
    alpha = cronbach_alpha(report.table().reshape(report.n, len(report.order)))
    verdict = "fine" if alpha > ALPHA_FINE else ("poor" if alpha < ALPHA_POOR else "fair")
    rows.append(
        ["notebook", report.assignment, "cronbach_alpha", str(report.n), "", _decimal(alpha)]
    )
    named: list[str] = []
    troubled = report.troubled()
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; "
        "img-src data:; style-src 'unsafe-inline'\">",
        f"<title>Class report: {e(report.assignment)}</title><style>{STYLE}</style></head><body>",
        f"<h1>Class report: {e(report.assignment)}</h1>",
        f"<p>{report.n} students graded.{small}</p>",
        f"<img alt='score histogram' src='{image}'>" if image else "",
        f"<p>Cronbach's alpha: {_decimal(alpha)} {verdict if alpha == alpha else ''}</p>",
        _items_section(report, rows),
        _slips_section(report, rows, named),
        _concepts_section(report, rows),
        f"<h2>Runs that did not end well</h2><p>{len(troubled)} of {report.n} students: a "
        "kernel stopped (time, memory, a crash) or the grading failed; their tests count "
        "above as what the run reached.</p>",
    ]
    share = _percent(len(troubled) / max(report.n, 1))
    rows.append(["runs", report.assignment, "did not end well", str(len(troubled)), share, ""])
    if not anonymous:
        parts.append("<h2>Students behind the figures</h2><ul>")
        parts += [f"<li>{e(_who(s))}: {e(s.status)}</li>" for s in troubled]
        parts += [f"<li>{e(line)}</li>" for line in named]
        parts.append("</ul>")
    parts.append("</body></html>")
    return "\n".join(parts), rows


def _who(student: Student) -> str:
    return f"{student.name} ({student.id})" if student.name else student.id


def _concept_tests(report: ClassReport) -> dict[str, str]:
    """test grade_id -> the concept answer it grades (test_answer_x -> answer_x)."""
    return {
        t: t.removeprefix("test_") for t in report.order if t.removeprefix("test_") in report.keys
    }


def write_report(course: Course, assignment: str, anonymous: bool = False) -> Path:
    report = build(course, assignment)
    page, rows = render(report, anonymous)
    folder = course.work / "reports" / assignment
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "class_report.html").write_text(page, encoding="utf-8")
    with open(folder / "class_report.csv", "w", newline="", encoding="utf-8") as handle:
        from grader.course import _cell

        csv.writer(handle).writerows([[_cell(v) for v in row] for row in rows])
    return folder / "class_report.html"


def report_command(args, course: Course) -> int:
    """`python -m grader report -a NB`: a notebook that the work folder's gradebook graded no
    submission of (a wrong -a or --work) is refused as `lms` refuses it: exit 2, nothing
    written (an empty "0 students" report would look like a class that scored nothing)."""
    from grader.course import UsageError
    from grader.lms import graded_or_refuse

    try:
        graded_or_refuse(course, args.assignment)
    except UsageError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    path = write_report(course, args.assignment, anonymous=args.anonymous)
    print(f"class report: {path} (and {path.with_suffix('.csv').name} beside it)")
    return 0
