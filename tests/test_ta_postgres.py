"""A PostgreSQL gradebook: a real local server, two workers grading into it at once.

The server is a throwaway one (`postgres_url` in conftest.py, from tests/postgres_server.py):
initdb in a temporary folder as the `postgres` user, a random loopback port, stopped
(immediate mode) after the module. Two `python -m grader grade --shard i/2` processes, as
two machines (two workers) would run them, grade one class concurrently into the same
database, each creating the assignment if it is not there yet.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT
from grader.course import Course, gradebook_rows
from grader.sandbox import UID_BASE_ENV, new_uid_base, sandbox_available
from postgres_server import fresh_database

NOTEBOOK = "01_attention_scores"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def graded(postgres_url, tmp_path_factory):
    from grader.sample import load_builder

    build = load_builder()
    sample = build.sample_class(ROOT)
    cases = {c.student: c for c in build.hostile_cases(ROOT, Path("/nonexistent"), 9)}
    students = {s: {f"{NOTEBOOK}.ipynb": sample[s][0]} for s in ("ada", "ben", "cleo")}
    students["osexit"] = cases["osexit"].files
    expected = {"ada": 14.0, "ben": 0.0, "cleo": 11.0, "osexit": cases["osexit"].expected}
    source = build.write_folder(tmp_path_factory.mktemp("pg_in"), students)
    sandbox = "auto" if sandbox_available()[0] else "none"
    works = [tmp_path_factory.mktemp(f"machine{i}") for i in range(2)]
    env = dict(os.environ, PYTHONPATH=str(ROOT / "autograder"))
    # Both machines share one run token, as a parent that exported $ATTNBOOK_CGROUP_RUN or a
    # scheduler that copies the submitter's environment gives them: the machine that ends
    # first sweeps its run's groups, and must spare the kernel the other is grading with
    # (before that was so, cleo lost the tests after the sweep, with status ok).
    env["ATTNBOOK_CGROUP_RUN"] = "pgshared" + os.urandom(3).hex()
    bases = [new_uid_base() for _ in works]  # and has its own block of sandbox ids
    machines = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "grader",
                "grade",
                str(source),
                "-a",
                NOTEBOOK,
                "--shard",
                f"{i}/2",
                "--workers",
                "1",
                "--db-url",
                postgres_url,
                "--work",
                str(work),
                "--sandbox",
                sandbox,
                "--timeout",
                "30",
            ],
            cwd=ROOT / "autograder",
            env={**env, UID_BASE_ENV: str(bases[i])},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for i, work in enumerate(works)
    ]
    logs = [m.communicate(timeout=900)[0] for m in machines]
    for machine, log in zip(machines, logs):
        assert machine.returncode == 0, log[-3000:]
    course = Course(root=ROOT, work=works[0], db_url=postgres_url)
    graded_here = [
        sorted(p.parent.name for p in (w / "autograded").glob(f"*/{NOTEBOOK}")) for w in works
    ]
    return {
        "rows": gradebook_rows(course),
        "views": [gradebook_rows(Course(root=ROOT, work=w, db_url=postgres_url)) for w in works],
        "graded": graded_here,
        "expected": expected,
        "logs": logs,
    }


def test_two_machines_graded_every_student_once(graded):
    first, second = graded["graded"]
    assert first and second, f"one shard graded nothing: {graded['graded']}"
    assert sorted(first + second) == sorted(graded["expected"])


def test_postgres_gradebook_holds_the_expected_grades(graded):
    scores = {r["student_id"]: r["score"] for r in graded["rows"]}
    assert scores == graded["expected"]


_FIRST_OPEN = r"""
import sys, time, warnings
from pathlib import Path
from grader.course import Course
from nbgrader.api import Gradebook

url, work, start, use_lock, log = sys.argv[1:6]
course = Course(root=Path(work), work=Path(work), db_url=url)
while time.time() < float(start):  # every process opens the fresh database at one instant
    time.sleep(0.001)
warnings.simplefilter("ignore")
if use_lock == "1":
    with course.lock("generate"):
        with open(log, "a") as handle:
            handle.write("enter\n")
        Gradebook(url).close()
        time.sleep(0.05)
        with open(log, "a") as handle:
            handle.write("exit\n")
else:
    Gradebook(url).close()
"""


def _open_at_once(url: str, tmp_path: Path, count: int, use_lock: bool):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "autograder"))
    start, log = time.time() + 8, tmp_path / "lock.log"
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                _FIRST_OPEN,
                url,
                str(tmp_path / f"machine{i}"),
                str(start),
                "1" if use_lock else "0",
                str(log),
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for i in range(count)
    ]
    return [(p.wait(timeout=300), p.stdout.read()) for p in procs], log


def test_machines_opening_a_fresh_gradebook_at_once_take_turns(postgres_url, tmp_path):
    """Shards start together on separate machines (separate work folders, one database):
    under `Course.lock` they create nbgrader's tables one at a time and all succeed."""
    url = fresh_database(postgres_url, "race_locked")
    results, log = _open_at_once(url, tmp_path, 8, use_lock=True)
    for code, out in results:
        assert code == 0, out[-3000:]
    assert log.read_text().split() == ["enter", "exit"] * 8  # never two inside at once


def test_a_status_is_ok_only_on_the_machine_that_saw_the_grading_go_well(graded):
    """Each machine's view of the shared gradebook: the students it graded carry what happened
    (osexit's kernel lost, ben's blank notebook, ok for the others); a student graded on the
    other machine is never `ok` here, for its kernel may have died there (as cleo's did when
    the other machine swept its control group), or its grading failed."""
    from grader.course import NO_REPORT

    for here, rows in zip(graded["graded"], graded["views"]):
        status = {r["student_id"]: r["status"] for r in rows}
        assert sorted(status) == sorted(graded["expected"])
        for student, text in status.items():
            if student not in here:
                assert text.startswith(NO_REPORT), (student, text)
            elif student == "osexit":
                assert text.startswith("kernel lost at cell"), text
            elif student == "ben":
                assert text == "see blank", text
            else:
                assert text == "ok", (student, text)
