"""A run of `grade --workers 2` that is stopped takes its processes and folders with it.

Killed (SIGTERM, as `kill` or a cluster's time limit does, or SIGKILL, which nothing can
handle) or interrupted (Ctrl-C, SIGINT to the terminal's process group), the run leaves no
worker, fork server, kernel zygote or kernel running, and none of their folders in the
temporary folder (`attnbook-zygote-*`, `attnbook-kernel-*`); Ctrl-C prints one line, how
many notebooks were graded and to run the command again, and exits 130, with no traceback,
and the notebooks it stopped are graded by that next run.

Each run is a class of notebooks that sleep, so it is still grading when it is stopped. Its
processes are told apart from everyone else's by an environment variable of this test (the
workers and fork servers inherit it) and by its own temporary folder (TMPDIR) in their
command lines (the sandboxes bind folders of it), and by being descendants of the run; only
those are ever signalled here.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT
from grader.course import Course

NB = "01_attention_scores"
MARK = "ATTNBOOK_TEST_RUN"
STUDENTS = 4

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
]


def _sleeping_class(path: Path) -> Path:
    from grader.sample import load_builder

    build = load_builder()
    nb = build.add_cell_after(build.release_notebook(ROOT), None, "import time\ntime.sleep(900)")
    data = nbformat.writes(nb).encode()
    return build.write_lms_zip(path, {f"s{i}": {f"{NB}.ipynb": data} for i in range(STUDENTS)})


def _processes() -> dict[int, tuple[int, str, str, bytes]]:
    """pid -> (parent pid, start time, state, command line and environment) of every
    process that can be read."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            text = (entry / "cmdline").read_bytes()
            try:
                text += (entry / "environ").read_bytes()
            except OSError:
                pass
        except OSError:
            continue
        found[int(entry.name)] = (int(fields[1]), fields[19], fields[0], text)
    return found


class Run:
    """`python -m grader grade` on the sleeping class in a session of its own."""

    def __init__(self, tmp_path: Path, workers: int = 2, command: tuple[str, ...] = ()):
        self.workers = workers
        self.tmp = tmp_path / "tmp"
        self.tmp.mkdir()
        self.work = tmp_path / "work"
        self.mark = f"{MARK}={uuid.uuid4().hex}".encode()
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(ROOT / "autograder"), str(ROOT)]),
            "TMPDIR": str(self.tmp),
            MARK: self.mark.decode().split("=", 1)[1],
        }
        env.pop("ATTNBOOK_AUTOGRADER", None)
        command = command or ("grade", str(_sleeping_class(tmp_path / "c.zip")))
        command += ("--workers", str(workers), "--work", str(self.work), "--sandbox", "auto")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "grader", *command],
            cwd=ROOT / "autograder",
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group, as a terminal's foreground job
        )
        self.seen: dict[int, str] = {}  # pid -> start time of each process of the run

    def ours(self) -> dict[int, str]:
        """The run's live processes (zombies aside): marked, naming its TMPDIR, or
        descended from one of those or from the run itself."""
        table = _processes()
        mine = {self.proc.pid} | {
            pid
            for pid, (_, _, _, text) in table.items()
            if self.mark in text or str(self.tmp).encode() in text
        }
        grown = True
        while grown:
            more = {pid for pid, (parent, *_) in table.items() if parent in mine} - mine
            mine |= more
            grown = bool(more)
        return {p: table[p][1] for p in mine if p in table and table[p][2] != "Z"}

    def wait_grading(self, timeout: float = 240) -> None:
        """Until each worker grades: a sandbox's folder each (a zygote, or a kernel)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            assert self.proc.poll() is None, self.proc.communicate()
            folders = [p for p in self.tmp.iterdir() if p.name.startswith("attnbook-")]
            if len(folders) >= self.workers and self.ours():
                time.sleep(3)  # the kernels start their notebooks
                self.seen = self.ours()
                return
            time.sleep(0.5)
        pytest.fail(f"the run did not start grading within {timeout} s")

    def left(self) -> list[str]:
        """What of the run is still there: processes (those seen before it was stopped,
        with the same start time, and any marked one) and folders in its TMPDIR."""
        now = _processes()
        alive = {p for p, start in self.seen.items() if p in now and now[p][1] == start}
        alive = {p for p in alive | set(self.ours()) if now.get(p, (0, "", "Z"))[2] != "Z"}
        alive.discard(self.proc.pid)
        names = [f"process {p}: {now[p][3][:120]!r}" for p in sorted(alive) if p in now]
        return names + [
            f"folder {p.name}" for p in self.tmp.iterdir() if p.name.startswith("attnbook")
        ]

    def close(self) -> None:
        """Kill whatever of the run is left (the test failed), its processes only."""
        for pid in self.ours():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.communicate()


def _gone(run: Run, within: float = 30) -> list[str]:
    end = time.monotonic() + within
    while (left := run.left()) and time.monotonic() < end:
        time.sleep(0.25)
    return left


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_killed_run_leaves_no_worker_sandbox_or_folder(tmp_path, how):
    run = Run(tmp_path)
    try:
        run.wait_grading()
        assert len(run.seen) >= 3, run.seen  # the run and its two workers, at least
        os.kill(run.proc.pid, how)  # the run alone, as `kill PID` or a scheduler does
        run.proc.wait(timeout=60)
        assert _gone(run) == []
    finally:
        run.close()


def test_the_folders_a_run_killed_with_sigkill_left_go_with_the_next_run(tmp_path):
    """Nothing runs in a process killed with SIGKILL (`kill -9`, the out-of-memory killer):
    with one worker, its sandboxes' folders stay. The next `grade` removes them, and keeps a
    live process's folder and any other."""
    run = Run(tmp_path, workers=1)
    try:
        run.wait_grading()
        os.kill(run.proc.pid, signal.SIGKILL)
        run.proc.wait(timeout=60)
    finally:
        run.close()
    left = {p.name for p in run.tmp.iterdir() if p.name.startswith("attnbook-")}
    assert left, "the killed run left no folder: nothing to sweep"
    live, other = f"attnbook-kernel-{os.getpid()}-live", "attnbook-kernel-notapid"
    (run.tmp / live).mkdir()
    (run.tmp / other).mkdir()
    empty = tmp_path / "empty"
    empty.mkdir()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "autograder"), str(ROOT)])}
    again = subprocess.run(
        [sys.executable, "-m", "grader", "grade", str(empty), "--work", str(run.work)],
        cwd=ROOT / "autograder",
        env={**env, "TMPDIR": str(run.tmp)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert f"removed {len(left)} temporary folder(s)" in again.stderr, again.stderr
    kept = sorted(p.name for p in run.tmp.iterdir() if p.name.startswith("attnbook-"))
    assert kept == sorted([live, other])


@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_stops_the_run_with_one_line_and_leaves_the_rest_to_the_next_run(tmp_path, workers):
    """With workers, as in one process: nbgrader's autograde takes any exception, Ctrl-C's
    too, for the notebook's failure; the run stops all the same."""
    run = Run(tmp_path, workers)
    try:
        run.wait_grading()
        os.killpg(run.proc.pid, signal.SIGINT)  # as the terminal sends Ctrl-C to its job
        out, err = run.proc.communicate(timeout=60)
        lines = err.decode().strip().splitlines()
        assert lines == [
            f"interrupted: 0 of {STUDENTS} notebooks graded; run the same command again to finish"
        ], err.decode()
        assert run.proc.returncode == 130
        assert "Traceback" not in out.decode() + err.decode()
        assert _gone(run) == []
        course = Course(root=ROOT, work=run.work)
        assert len(course.collected(NB)) == STUDENTS  # each regraded by the next run:
        assert not [s for s in course.collected(NB) if course.up_to_date(s, NB)]
    finally:
        run.close()


def test_ctrl_c_stops_the_catalogue_report_with_one_line_too(tmp_path):
    """Not only `grade`: the grader's other long commands end the same way on Ctrl-C."""
    run = Run(tmp_path, 1, ("catalogue", "-a", NB))
    try:
        run.wait_grading()
        os.killpg(run.proc.pid, signal.SIGINT)
        out, err = run.proc.communicate(timeout=60)
        assert run.proc.returncode == 130, err.decode()
        assert "Traceback" not in out.decode() + err.decode(), err.decode()
        assert err.decode().strip().splitlines()[-1].startswith("interrupted: "), err.decode()
        assert _gone(run) == []
    finally:
        run.close()


def _python(code: str, *, start_new_session: bool = False) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "autograder"), str(ROOT)])},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=start_new_session,
    )


def test_a_worker_whose_parent_ended_before_it_was_armed_stops_at_once():
    done = _python("from grader import lifetime; lifetime.die_with_parent(1); input()")
    out, err = done.communicate(timeout=60)
    assert done.returncode == 128 + signal.SIGTERM, err.decode()


def _alive(pid: int) -> bool:
    """Whether process `pid` runs (a zombie, ended and not yet reaped, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


@pytest.mark.parametrize("death_signal", [True, False], ids=["prctl", "getppid"])
def test_a_worker_ends_when_its_parent_does(tmp_path, death_signal):
    """Linux's parent-death signal, and where there is none the thread that watches the
    parent's id: a worker whose parent ends (here a process that exits) runs `stop`."""
    pid_file = tmp_path / "pid"
    worker = "\n".join(
        [
            "import os, time",
            "from grader import lifetime",
            "" if death_signal else "lifetime._parent_death_signal = lambda signum: False",
            "lifetime.die_with_parent(os.getppid())",
            f"open({str(pid_file)!r}, 'w').write(str(os.getpid()))",
            "time.sleep(60)",
        ]
    )
    parent = _python(
        "\n".join(
            [
                "import pathlib, subprocess, sys, time",
                f"subprocess.Popen([sys.executable, '-c', {worker!r}], stdout=subprocess.DEVNULL)",
                f"while not pathlib.Path({str(pid_file)!r}).exists(): time.sleep(0.05)",
                "time.sleep(0.2)",
            ]
        ),
        start_new_session=True,
    )
    out, err = parent.communicate(timeout=60)  # the parent has ended; the worker ran
    pid = int(pid_file.read_text())
    end = time.monotonic() + 15
    while _alive(pid) and time.monotonic() < end:
        time.sleep(0.1)
    try:
        assert not _alive(pid), err.decode()
    finally:
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_a_run_started_with_nohup_outlives_its_terminal():
    """Review of the change, round 7: the SIGTERM/SIGHUP cleanup took SIGHUP even where the
    TA had set it to be ignored (nohup), so closing the terminal ended a long run. A signal
    that is ignored stays ignored; SIGTERM still stops the run."""
    code = "\n".join(
        [
            "import os, signal, time",
            "from grader import lifetime",
            "signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as nohup leaves it",
            "lifetime.stop_on_signals()",
            "os.kill(os.getpid(), signal.SIGHUP)",
            "time.sleep(0.2)",
            "print('still running')",
        ]
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'autograder'}"},
    )
    assert done.returncode == 0 and "still running" in done.stdout, done.stderr
