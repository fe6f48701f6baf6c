"""Hostile and broken submissions, each a real notebook graded by the README's command.

One class (a folder of submissions, as an LMS download unpacks) is graded with
`python -m grader grade <folder> --workers 2` run from `autograder/`, in a work folder of
its own and with a block of sandbox user ids of its own, so other grading runs on the same
machine neither disturb it nor are counted by it. The class holds two honest students whose
grades are asserted exact (the solution, 14 of 14; one catalogued mistake, 11) and every case
of `autograder/sample_class/build.py:hostile_cases`, each stating the score it must get and
why: sabotage of classmates, answers that blank their inputs, hunts for the answer key, slow
concept answers, floods of output and of disk, as well as the older kernel-level attacks.
"""

from __future__ import annotations

import json
import re
import secrets
import socket
import threading
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT, grade_with_readme_command, read_grades
from grader import cgroups
from grader.sandbox import UID_BASE_ENV, UID_SLOTS, new_uid_base, sandbox_available

SANDBOX_OK, SANDBOX_WHY = sandbox_available()
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not SANDBOX_OK, reason=f"no sandbox: {SANDBOX_WHY}"),
]

NOTEBOOK = "01_attention_scores"
HONEST = {"ada": 14.0, "cleo": 11.0}  # the solution; attention weights transposed


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


def grade_beside_honest(build, cases, download: Path, work: Path, env: dict):
    """The HONEST students' sample notebooks and the hostile `cases`, written as a folder
    of submissions into `download` and graded into `work` by the README's command, 20
    seconds a test, with `env` added to the grader's environment."""
    sample = build.sample_class(ROOT)
    students = {s: {f"{NOTEBOOK}.ipynb": sample[s][0]} for s in HONEST}
    students.update({case.student: case.files for case in cases})
    inbox = build.write_folder(download, students)
    return grade_with_readme_command(inbox, work, "-a", NOTEBOOK, "--timeout", "20", env=env)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    build = _builder()
    listener = Listener()
    work = tmp_path_factory.mktemp("class")
    cases = build.hostile_cases(ROOT, work, listener.port)
    base = new_uid_base()
    token = secrets.token_hex(4)  # names this run's control groups
    try:
        done = grade_beside_honest(
            build,
            cases,
            tmp_path_factory.mktemp("download"),
            work,
            env={UID_BASE_ENV: str(base), cgroups.RUN_ENV: token},
        )
    finally:
        listener.close()
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return {
        "grades": read_grades(work),
        "work": work,
        "cases": {c.student: c for c in cases},
        "listener": listener,
        "uids": range(base, base + UID_SLOTS),
        "run": done,
        "cgroup_run": token,
    }


def _cells(graded, student) -> list:
    path = graded["work"] / "autograded" / student / NOTEBOOK / f"{NOTEBOOK}.ipynb"
    return [c for c in nbformat.read(path, 4).cells if c.cell_type == "code"]


def _text(cell) -> str:
    return "".join(
        o.get("text", "") + o.get("ename", "") + ": " + o.get("evalue", "") + str(o.get("data", ""))
        for o in cell.outputs
    )


def _row(graded, student) -> dict:
    """A student's row of grades.csv: under its LMS id for a case in a Moodle folder."""
    return graded["grades"][_builder().lms_student_id(student)]


def _score(graded, student) -> float:
    return float(_row(graded, student)["score"])


@pytest.mark.parametrize("student", sorted(HONEST))
def test_honest_students_get_their_exact_grades(graded, student):
    row = graded["grades"][student]
    assert _score(graded, student) == HONEST[student], row


def test_every_submission_was_graded(graded):
    ids = {_builder().lms_student_id(s) for s in [*graded["cases"], *HONEST]}
    assert ids <= set(graded["grades"])
    assert "FAILED" not in graded["run"].stderr, graded["run"].stderr[-3000:]


CASES = [
    "loop",
    "membomb",
    "osexit",
    "sysexit",
    "forkbomb",
    "flood",
    "deltest",
    "edittest",
    "dupcells",
    "celltype",
    "stripped",
    "truncated",
    "notjson",
    "missing",
    "misnamed",
    "monkey",
    "transformer",
    "helpers",
    "snoop",
    "vandal",
    "network",
    "saboteur",
    "blanker",
    "hunter",
    "slowanswer",
    "displays",
    "diskfill",
    # ---- issue #27 (helper `secret`): hidden cases drawn from the course's secret ----
    "lookuptable",
    # -- neighbours that take the machine (issue #27 item 1)
    "cpuhog",
    "forkstorm",
    "memhog",
    # issue #27 items 3, 5 and 7 (helper bounds)
    "rebinder",
    "rebinder2",
    "rebinder3",
    "bigname",
    "emptyobjects",
    "Grace Hopper_4242_assignsubmission_file_",
    "Grace Hopper_4242_assignsubmission_file__7777_assignsubmission_file_",
]


def test_every_case_is_listed():
    cases = {c.student for c in _builder().hostile_cases(ROOT, Path("/tmp"), 1)}
    assert cases == set(CASES)


@pytest.mark.parametrize("student", CASES)
def test_hostile_case_gets_its_expected_score(graded, student):
    case = graded["cases"][student]
    row = _row(graded, student)
    assert _score(graded, student) == case.expected, (
        f"{student} got {row['score']}, expected {case.expected}: {case.why}\n{row}"
    )


def test_infinite_loop_is_stopped_at_the_cell_limit(graded):
    assert "time limit" in graded["grades"]["loop"]["status"]


def test_memory_bomb_hits_the_memory_limit(graded):
    assert "MemoryError" in _text(_cells(graded, "membomb")[-1])


def test_os_exit_costs_only_the_tests_after_it(graded):
    row = graded["grades"]["osexit"]
    assert "died" in row["status"]
    assert float(row["01:test_score_matrix"]) == 2 and float(row["01:test_attention"]) == 0


def test_sys_exit_fails_only_its_cell(graded):
    assert any("SystemExit" in _text(c) for c in _cells(graded, "sysexit"))


def test_no_sandboxed_process_of_this_run_is_left(graded):
    leftovers = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            uid = int(
                next(
                    line for line in status.read_text().splitlines() if line.startswith("Uid:")
                ).split()[1]
            )
        except (OSError, StopIteration, ValueError):
            continue
        if uid in graded["uids"]:
            leftovers.append(status.parent.name)
    assert not leftovers, f"sandboxed processes of this run still running: {leftovers}"


def test_flood_is_truncated(graded):
    text = _text(_cells(graded, "flood")[-1])
    assert "output truncated" in text and len(text) < 100_000


def test_repairs_are_noted(graded):
    status = {s: graded["grades"][s]["status"] for s in graded["grades"]}
    assert "missing" in status["deltest"]
    assert "restored" in status["edittest"]
    assert "duplicated" in status["dupcells"]
    assert "markdown" in status["celltype"]
    assert "lost their nbgrader metadata" in status["stripped"]
    assert "unreadable" in status["truncated"] and "unreadable" in status["notjson"]
    assert "no notebook" in status["missing"]
    notes = {s: graded["grades"][s]["notes"] for s in graded["grades"]}
    assert "misnamed" in notes["misnamed"] and "misnamed" not in status["misnamed"]


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


def test_sabotage_is_named_as_an_in_place_change(graded):
    cells = _cells(graded, "saboteur")
    text = "".join(_text(c) for c in cells)
    assert "changed its input" in text and "in place" in text, text[-2000:]


def test_nothing_secret_is_in_the_kernel(graded):
    text = "".join(_text(c) for c in _cells(graded, "hunter"))
    assert "nothing to find" in text and "FOUND" not in text, text[-2000:]


def test_a_slow_concept_answer_costs_only_its_point(graded):
    row = graded["grades"]["slowanswer"]
    assert float(row["01:test_answer_scale"]) == 0 and "time limit" not in row["status"], row


def test_rich_outputs_are_capped(graded):
    path = graded["work"] / "autograded" / "displays" / NOTEBOOK / f"{NOTEBOOK}.ipynb"
    assert path.stat().st_size < 12_000_000
    last = _cells(graded, "displays")[-1]
    assert all("text/html" not in o.get("data", {}) for o in last.outputs)
    assert "not kept" in _text(last)
    feedback = graded["work"] / "feedback" / "displays" / NOTEBOOK / f"{NOTEBOOK}.html"
    assert feedback.stat().st_size < 15_000_000


def test_the_sandbox_disk_is_capped(graded):
    text = "".join(_text(c) for c in _cells(graded, "diskfill"))
    assert "WROTE" not in text, text[-2000:]
    blocked = re.findall(r"blocked (\S+) after (\d+) MB", text)
    assert [folder for folder, _ in blocked] == ["/tmp", ".", "/dev/shm"], text[-2000:]
    written = sum(int(mb) for _, mb in blocked)
    assert written <= 256, f"{written} MB written in all: the cap is 256 MB"


def test_every_test_verdict_is_reported(graded):
    reports = graded["work"] / "reports" / NOTEBOOK
    for student in HONEST:
        report = json.loads((reports / student / f"{NOTEBOOK}.json").read_text())
        assert set(report["tests"].values()) <= {"passed", "failed", "lost"}
        assert report["sandboxed"] is True


# ---- issue #27 (helper `secret`): hidden cases drawn from the course's secret -------------
def test_a_table_of_the_kits_answers_loses_every_function_test(graded):
    """Answers recorded by running the kit's checks at home (no course secret), no code: the
    grader's hidden cases are other inputs, so each function test fails on an input the
    table never saw; the four concept answers keep their points."""
    row = graded["grades"]["lookuptable"]
    for test in ("test_project_qkv", "test_score_matrix", "test_softmax_rows", "test_attention"):
        assert row[f"01:{test}"] == "0.0", (test, row)
    for test in ("test_answer_q_shape", "test_answer_scale", "test_answer_permutation"):
        assert row[f"01:{test}"] == "1.0", (test, row)


SPY = """
import numpy as _np

_SEEN = []


def _spy(name, f):
    def recording(*args):
        _SEEN.append([name, [(_np.asarray(a).dtype.str, list(_np.asarray(a).shape),
                               _np.asarray(a).tobytes().hex()) for a in args]])
        return f(*args)

    return recording
"""
SPY_DUMP = """
import base64 as _b64, json as _json, zlib as _zlib
_blob = _b64.b64encode(_zlib.compress(_json.dumps(_SEEN).encode(), 9)).decode()
"""
SPY_PIECE = 'print("SEEN", {i}, _blob[{i} * 15000:({i} + 1) * 15000])'  # a cell each: pages cap


def test_inputs_that_one_submission_printed_are_no_use_to_the_next(tmp_path):
    """The hidden cases' inputs reach the student's kernel, and its later cells may print
    them into the student's own graded notebook and page. A first submission (the solution,
    each graded function wrapped to record its inputs) prints every input it saw; a second
    hands in a table of the right answers to exactly those inputs and no code. The second
    draws other hidden inputs (they depend on the submission too), so each function test
    fails on an input the table never saw."""
    import base64
    import zlib

    import numpy as np

    from attnbook.grading import load_reference

    build = _builder()
    spy = build.solved(ROOT)
    spy.cells.insert(build._index(spy, "project_qkv"), nbformat.v4.new_code_cell(SPY))
    for name in build.LOOKUP_FUNCTIONS:
        spy = build.add_cell_after(spy, name, f"{name} = _spy({name!r}, {name})")
    spy = build.add_cell_after(spy, None, SPY_DUMP)
    for i in range(40):
        spy = build.add_cell_after(spy, None, SPY_PIECE.format(i=i))
    env = {UID_BASE_ENV: str(new_uid_base()), cgroups.RUN_ENV: secrets.token_hex(4)}

    def grade(student: str, nb) -> Path:
        work = tmp_path / student
        inbox = build.write_folder(tmp_path / f"{student}-download", {
            student: {f"{NOTEBOOK}.ipynb": nbformat.writes(nb).encode()}})  # fmt: skip
        done = grade_with_readme_command(inbox, work, "-a", NOTEBOOK, env=env)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        return work

    graded = nbformat.read(grade("spy", spy) / "autograded" / "spy" / NOTEBOOK /
                           f"{NOTEBOOK}.ipynb", 4)  # fmt: skip
    printed = "".join(_text(c) for c in graded.cells if c.cell_type == "code")
    pieces = sorted((int(i), blob) for i, blob in re.findall(r"SEEN (\d+) (\S*)", printed))
    seen = json.loads(zlib.decompress(base64.b64decode("".join(blob for _, blob in pieces))))
    reference = load_reference(NOTEBOOK)
    tables: dict[str, dict] = {name: {} for name in build.LOOKUP_FUNCTIONS}
    for name, raw in seen:
        args = [np.frombuffer(bytes.fromhex(h), np.dtype(d)).reshape(shape) for d, shape, h in raw]
        try:
            out = getattr(reference, name)(*args)
        except Exception as err:
            tables[name][build._recorded_key(name, args)] = {"raise": str(err)}
            continue
        many = isinstance(out, tuple)
        value = [np.asarray(v).tolist() for v in out] if many else np.asarray(out).tolist()
        tables[name][build._recorded_key(name, args)] = {"tuple": many, "value": value}
    assert all(len(t) > 10 for t in tables.values()), {n: len(t) for n, t in tables.items()}
    replay = build.solved(ROOT)
    for name, table in tables.items():
        replay.cells[build._index(replay, name)].source = build.LOOKUP_CELL.format(
            table=json.dumps(table), name=name)  # fmt: skip
    row = read_grades(grade("replay", replay))["replay"]
    for test in ("test_project_qkv", "test_score_matrix", "test_softmax_rows", "test_attention"):
        assert row[f"01:{test}"] == "0.0", (test, row)
    assert row["01:test_answer_scale"] == "1.0", row


# -- neighbours that take the machine (issue #27 item 1) -------------------------------------
def test_the_run_names_how_sandboxes_are_limited_and_leaves_no_control_group(graded):
    found = cgroups.backend()
    line = cgroups.describe()
    assert line in graded["run"].stdout, graded["run"].stdout[-2000:]
    if found.kind:
        assert cgroups.leftovers(graded["cgroup_run"]) == []


@pytest.mark.parametrize("student", ["cpuhog", "forkstorm", "memhog"])
def test_a_neighbour_that_takes_the_machine_is_stopped_by_its_own_limits(graded, student):
    status = graded["grades"][student]["status"]
    assert "time limit" in status or "memory limit" in status, status


# -- issue #27 items 3, 5 and 7 (helper bounds) ----------------------------------------------
def test_a_graded_name_bound_at_run_time_is_a_borrowed_answer(graded):
    for student in ("rebinder", "rebinder2", "rebinder3"):
        row = graded["grades"][student]
        assert float(row["01:test_attention"]) == 0, row
        assert "borrowed answers: test_attention" in row["status"], row["status"]
    assert "attnbook.ops.torch_attend" in graded["grades"]["rebinder"]["status"]
    assert "attnbook.ops.torch_attend" in graded["grades"]["rebinder2"]["status"]
    assert "none of your cells" in graded["grades"]["rebinder3"]["status"]


def test_an_exception_with_an_8_mb_name_stays_small(graded):
    path = graded["work"] / "autograded" / "bigname" / NOTEBOOK / f"{NOTEBOOK}.ipynb"
    assert path.stat().st_size < 1_000_000, path.stat().st_size
    feedback = graded["work"] / "feedback" / "bigname" / NOTEBOOK / f"{NOTEBOOK}.html"
    assert feedback.stat().st_size < 2_000_000, feedback.stat().st_size
    assert "EEEE" in "".join(_text(c) for c in _cells(graded, "bigname"))  # named, cut


def test_a_notebook_of_empty_objects_is_refused_with_the_reason(graded):
    status = graded["grades"]["emptyobjects"]["status"]
    assert "refused notebook" in status and "objects and arrays" in status, status


def test_a_display_name_cannot_take_another_students_lms_id(graded):
    grades = graded["grades"]
    assert float(grades["4242"]["score"]) == 14.0 and grades["4242"]["name"] == "Grace Hopper"
    assert float(grades["7777"]["score"]) == 0.0
    intake = json.loads((graded["work"] / "intake.json").read_text())
    assert not any("superseded" in f["reason"] for f in intake["files"]), intake["files"]
