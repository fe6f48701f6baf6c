"""Chromium proof: the class report (grader/classreport.py) runs nothing a student wrote and
its histogram loads. Student names from an LMS download are the student's own text; here
they carry payloads."""

from __future__ import annotations

import pytest
from grader import classreport as cr
from test_ta_class_report import class_report

pytestmark = [pytest.mark.browser]

PAYLOADS = [
    "<script>alert('script')</script>",
    "<img src=x onerror=alert('img')>",
    "\"><svg onload=alert('svg')>",
]


def _report() -> cr.ClassReport:
    students = [
        cr.Student(
            str(100 + i),
            PAYLOADS[i % len(PAYLOADS)],
            float(i % 3),
            {"test_f": float(i % 2), "test_answer_q": 1.0},
            {"test_f": "passed" if i % 2 else "failed", "test_answer_q": "passed"},
            {"answer_q": "B" if i % 2 else "<b>A</b>"},
            {} if i % 2 else {"test_f": PAYLOADS[1]},
            "complete" if i else "kernel lost: <script>alert('status')</script>",
        )
        for i in range(6)
    ]
    return class_report(students)


def test_the_report_runs_no_payload_and_its_histogram_loads(page, tmp_path):
    html, _ = cr.render(_report(), anonymous=False)
    path = tmp_path / "class_report.html"
    path.write_text(html, encoding="utf-8")
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(path.as_uri(), wait_until="load")
    page.wait_for_timeout(1000)
    assert dialogs == []
    assert page.title() == "Class report: 01_attention_scores"
    assert page.locator("script, svg, iframe, [onerror], [onload]").count() == 0
    images = page.eval_on_selector_all("img", "imgs => imgs.map(i => [i.alt, i.naturalWidth])")
    assert images == [["score histogram", 600]], images
    assert "<script>alert('script')</script>" in page.inner_text("body")  # shown as text
