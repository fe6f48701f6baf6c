"""Hostile and broken submissions, each a real notebook through the real pipeline.

One class run (two workers, bubblewrap sandbox, 10 s per cell) holds three ordinary
students (solution, blank, one catalogued mistake) and every case of
`autograder/sample_class/build.py:hostile_cases`. Each case states the score it must get
and why; the ordinary students must get exactly what they get when graded alone.
"""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT
from grader.course import Course, grade_class, gradebook_rows
from grader.sandbox import sandbox_available

SANDBOX_OK, SANDBOX_WHY = sandbox_available()
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not SANDBOX_OK, reason=f"no sandbox: {SANDBOX_WHY}")]

NOTEBOOK = "01_attention_scores"
ORDINARY = ("ada", "ben", "cleo")


def _builder():
    from grader.sample import load_builder

    return load_builder()


class Listener:
    """A TCP server on the grader's loopback that counts who connects to it."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.5)
        self.port, self.connections, self.running = self.server.getsockname()[1], 0, True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while self.running:
            try:
                connection, _ = self.server.accept()
            except OSError:
                continue
            self.connections += 1
            connection.close()

    def close(self):
        self.running = False
        self.thread.join(timeout=5)
        self.server.close()


def _course(work: Path) -> Course:
    return Course(root=ROOT, work=work, cell_timeout=10, notebook_timeout=300, quiet=True)


def _by_student(course) -> dict:
    return {row["student_id"]: row for row in gradebook_rows(course)}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    build = _builder()
    sample = build.sample_class(ROOT)
    ordinary = {s: {f"{NOTEBOOK}.ipynb": sample[s][0]} for s in ORDINARY}

    alone = _course(tmp_path_factory.mktemp("alone"))
    grade_class(alone, build.write_folder(tmp_path_factory.mktemp("alone_in"), ordinary),
                [NOTEBOOK], workers=2)

    listener = Listener()
    work = tmp_path_factory.mktemp("class")
    cases = build.hostile_cases(ROOT, work, listener.port)
    students = dict(ordinary)
    students.update({case.student: case.files for case in cases})
    course = _course(work)
    try:
        outcomes = grade_class(course, build.write_folder(tmp_path_factory.mktemp("class_in"),
                                                          students), [NOTEBOOK], workers=2)
    finally:
        listener.close()
    return {"alone": _by_student(alone), "class": _by_student(course), "course": course,
            "cases": {case.student: case for case in cases}, "outcomes": outcomes,
            "listener": listener}


def _cells(graded, student) -> list:
    path = graded["course"].work / "autograded" / student / NOTEBOOK / f"{NOTEBOOK}.ipynb"
    return [c for c in nbformat.read(path, 4).cells if c.cell_type == "code"]


def _text(cell) -> str:
    return "".join(o.get("text", "") + o.get("ename", "") + ": " + o.get("evalue", "")
                   + str(o.get("data", "")) for o in cell.outputs)


def test_every_notebook_was_graded(graded):
    failed = [o for o in graded["outcomes"] if not o["ok"]]
    assert not failed, f"nbgrader failed on: {[(o['student'], o['error']) for o in failed]}"
    assert set(graded["cases"]) | set(ORDINARY) <= set(graded["class"])


@pytest.mark.parametrize("student", ORDINARY)
def test_ordinary_students_get_what_they_get_alone(graded, student):
    alone, together = graded["alone"][student], graded["class"][student]
    assert together["score"] == alone["score"], (
        f"{student}: {together['score']} next to the hostile class, {alone['score']} alone")
    assert together["tests"] == alone["tests"]


CASES = ["loop", "membomb", "osexit", "sysexit", "forkbomb", "flood", "deltest", "edittest",
         "dupcells", "celltype", "stripped", "truncated", "notjson", "missing", "misnamed",
         "monkey", "transformer", "helpers", "snoop", "vandal", "network"]


@pytest.mark.parametrize("student", CASES)
def test_hostile_case_gets_its_expected_score(graded, student):
    case = graded["cases"][student]
    row = graded["class"][student]
    assert row["score"] == case.expected, (
        f"{student} got {row['score']}, expected {case.expected}: {case.why}\n"
        f"status: {row['status']}\ntests: {row['tests']}")


def test_infinite_loop_is_stopped_at_the_cell_limit(graded):
    assert "time limit" in graded["class"]["loop"]["status"]


def test_memory_bomb_hits_the_memory_limit(graded):
    assert "MemoryError" in _text(_cells(graded, "membomb")[-1])


def test_os_exit_costs_only_the_tests_after_it(graded):
    row = graded["class"]["osexit"]
    assert "died" in row["status"]
    assert row["tests"]["test_score_matrix"] == 2 and row["tests"]["test_attention"] == 0


def test_sys_exit_fails_only_its_cell(graded):
    assert any("SystemExit" in _text(c) for c in _cells(graded, "sysexit"))


def test_fork_bomb_leaves_no_process_behind(graded):
    leftovers = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            uid = int(next(line for line in status.read_text().splitlines()
                           if line.startswith("Uid:")).split()[1])
        except (OSError, StopIteration, ValueError):
            continue
        if 200000 <= uid < 250000:
            leftovers.append(status.parent.name)
    assert not leftovers, f"sandboxed processes still running: {leftovers}"


def test_flood_is_truncated(graded):
    text = _text(_cells(graded, "flood")[-1])
    assert "output truncated" in text and len(text) < 100_000


def test_repairs_are_noted(graded):
    status = {s: graded["class"][s]["status"] for s in graded["class"]}
    assert "missing" in status["deltest"]
    assert "restored" in status["edittest"]
    assert "duplicated" in status["dupcells"]
    assert "markdown" in status["celltype"]
    assert "lost their nbgrader metadata" in status["stripped"]
    assert "unreadable" in status["truncated"] and "unreadable" in status["notjson"]
    assert "no notebook" in status["missing"]
    assert "misnamed" in status["misnamed"]


def test_check_modules_on_disk_are_untouched(graded):
    # other work may change these files during the run, so look for the student's line
    for path in (ROOT / "attnbook" / "checks").glob("*.py"):
        assert "CheckRun.expect_close = lambda" not in path.read_text(), path
    text = "".join(_text(c) for c in _cells(graded, "helpers"))
    assert "EDITED" not in text and text.count("could not edit") == 2, text[-2000:]


def test_solutions_reference_and_gradebook_are_out_of_reach(graded):
    text = "".join(_text(c) for c in _cells(graded, "snoop"))
    assert "blocked reference" in text and "READ" not in text, text[-2000:]


def test_other_students_files_are_out_of_reach(graded):
    text = "".join(_text(c) for c in _cells(graded, "vandal"))
    assert "WROTE" not in text and text.count("blocked") == 3, text[-2000:]
    assert not (ROOT / "attnbook" / "pwned.py").exists()


def test_no_network(graded):
    text = "".join(_text(c) for c in _cells(graded, "network"))
    assert "CONNECTED" not in text and text.count("blocked") == 3, text[-2000:]
    assert graded["listener"].connections == 0
