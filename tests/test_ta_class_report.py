"""The class report (`python -m grader report`, grader/classreport.py): Moodle's item
statistics computed here independently, slips and options counted, names kept out when
asked, and nothing a student wrote read as markup. The sample class's report, whose slips
are the catalogue mistakes it was built from, is checked in test_ta_sample.py."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from grader import classreport as cr

# five students, three items of 1, 2 and 1 points
TABLE = np.array([[1, 2, 1], [1, 2, 0], [0, 1, 1], [1, 0, 0], [0, 0, 0]], dtype=float)
POINTS = [1.0, 2.0, 1.0]


def _pearson(x, y):
    mx, my = sum(x) / len(x), sum(y) / len(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy)


def test_facility_and_spread_are_shares_of_the_points():
    item = TABLE[:, 1]
    assert cr.facility(item, 2.0) == pytest.approx(5 / 10)  # (2 + 2 + 1 + 0 + 0) / (5 * 2)
    shares = [1, 1, 0.5, 0, 0]
    mean = sum(shares) / 5
    sd = math.sqrt(sum((s - mean) ** 2 for s in shares) / 4)
    assert cr.spread(item, 2.0) == pytest.approx(sd)


def test_discrimination_is_the_item_against_the_rest_of_the_total():
    totals = TABLE.sum(axis=1)
    for j in range(3):
        rest = totals - TABLE[:, j]
        expected = _pearson(list(TABLE[:, j]), list(rest))
        assert cr.discrimination(TABLE[:, j], rest) == pytest.approx(expected)
    assert math.isnan(cr.discrimination(np.ones(5), totals))  # everyone scored it: no figure


def test_efficiency_is_one_when_the_item_orders_as_the_rest_does():
    rest = np.array([0.0, 1, 2, 3, 4])
    assert cr.efficiency(np.array([0.0, 0, 1, 1, 1]), rest) == pytest.approx(1.0)
    backwards = cr.efficiency(np.array([1.0, 1, 1, 0, 0]), rest)
    assert backwards < 0
    item = np.array([0.0, 1, 0, 1, 1])
    cov = np.cov(item, rest)[0, 1]
    best = np.cov(np.sort(item), np.sort(rest))[0, 1]
    assert cr.efficiency(item, rest) == pytest.approx(cov / best)


def test_cronbach_alpha_by_its_formula():
    k = TABLE.shape[1]
    item_var = sum(np.var(TABLE[:, j], ddof=1) for j in range(k))
    total_var = np.var(TABLE.sum(axis=1), ddof=1)
    assert cr.cronbach_alpha(TABLE) == pytest.approx(k / (k - 1) * (1 - item_var / total_var))
    assert math.isnan(cr.cronbach_alpha(TABLE[:1]))


def test_quintiles_rank_by_total():
    totals = np.arange(10.0)
    item = (totals >= 5).astype(float)  # only the top half scored it
    assert cr.quintiles(item, totals, 1.0) == [0.0, 0.0, 0.5, 1.0, 1.0]


def test_flags_follow_moodle():
    assert cr.discrimination_flag(0.1) == "red" and cr.discrimination_flag(0.4) == "amber"
    assert cr.discrimination_flag(0.6) == "" and cr.discrimination_flag(float("nan")) == ""


def test_a_slip_is_the_known_mistake_else_the_hint():
    known = "f: wrong\nHint: Y = A @ V\nThis looks like a known mistake: weights transposed.\n"
    assert cr.slip_of([{"evalue": known}]) == "weights transposed"
    assert cr.slip_of([{"evalue": "f: wrong\nHint: keep the scale\n"}]) == "keep the scale"
    assert cr.slip_of([{"evalue": "AssertionError"}]) == "unrecognised"


def class_report(students: list[cr.Student]) -> cr.ClassReport:
    """Notebook 01's report of `students` on two items of 1 point: the function test `test_f`
    and `test_answer_q`, the test of question `answer_q` (options A, B, C; B is right)."""
    return cr.ClassReport(
        "01_attention_scores",
        students,
        ["test_f", "test_answer_q"],
        {"test_f": 1.0, "test_answer_q": 1.0},
        {"answer_q": ("ABC", "B")},
    )


def _student(i, score, verdicts, answers=None, slips=None, status="complete", name=None):
    tests = {t: (1.0 if v == "passed" else 0.0) for t, v in verdicts.items()}
    return cr.Student(
        str(100 + i), name or f"s{i}", score, tests, verdicts, answers or {}, slips or {}, status
    )


@pytest.fixture
def report():
    """Ten students: 3 divided by d_k, 2 unrecognised, 1 unanswered, 4 right; on the
    question, 5 chose B (keyed), 3 A, 1 C, 1 nothing; one kernel stopped."""
    students = []
    for i in range(10):
        if i < 3:
            verdict, slip = "failed", {"test_f": "divided by d_k"}
        elif i < 5:
            verdict, slip = "failed", {"test_f": "unrecognised"}
        elif i == 5:
            verdict, slip = "unanswered", {}
        else:
            verdict, slip = "passed", {}
        chosen = "BBBBBAAAC"[i] if i < 9 else ""
        students.append(
            _student(
                i,
                float(i),
                {"test_f": verdict, "test_answer_q": "passed" if chosen == "B" else "failed"},
                {"answer_q": chosen} if chosen else {},
                slip,
                "kernel lost at cell 4: time" if i == 3 else "complete",
                "<script>alert(1)</script>" if i == 4 else None,
            )
        )
    return class_report(students)


def test_slips_and_options_are_counted_and_add_up(report):
    slips = report.slips("test_f")
    assert [(s, len(w)) for s, w in slips] == [
        ("divided by d_k", 3),
        ("unrecognised", 2),
        ("not answered", 1),
    ]
    choices = {o: len(w) for o, w in report.choices("answer_q").items()}
    assert choices == {"A": 3, "B": 5, "C": 1, "no answer": 1}
    assert sum(choices.values()) == report.n
    page, rows = cr.render(report, anonymous=False)
    assert ["slip", "test_f", "divided by d_k", "3", "30%", ""] in rows
    assert ["option", "answer_q", "B (keyed)", "5", "50%", ""] in rows
    assert ["option", "answer_q", "A (most chosen distractor)", "3", "30%", ""] in rows
    assert ["runs", "01_attention_scores", "did not end well", "1", "10%", ""] in rows
    assert "too small" in page  # ten students


def test_names_only_outside_the_anonymous_report_and_never_as_markup(report):
    page, _ = cr.render(report, anonymous=False)
    assert "Students behind the figures" in page and "s2 (102)" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert not re.search(r"<script", page, re.IGNORECASE)
    assert "Content-Security-Policy" in page and "data:image/png;base64," in page
    anonymous, _ = cr.render(report, anonymous=True)
    assert "Students behind the figures" not in anonymous
    assert "s2 (102)" not in anonymous and "&lt;script&gt;" not in anonymous
