"""A control group per sandbox, and every limit of a sandbox tested from both sides.

- `grader.cgroups`: a group gets its CPU share, memory and process limits, holds every
  process its member starts (new sessions included), and leaves nothing behind when closed
  or swept; names are unique per run and per process; without groups the run says so.
- each limit (CPU time, wall time, memory of the whole sandbox, processes, disk, output): a
  student program just under it passes, one just over it is stopped with that limit's reason,
  on the zygote path and on the per-kernel path (`ATTNBOOK_KERNEL_ZYGOTE=0`), with small
  limits set through `Limits` so that each side takes seconds.
- an honest student graded with `--workers 2` beside a CPU hog, a fork storm and a memory hog
  gets exactly the grade they get alone, on both paths (the zygote path's run is the hostile
  suite's, `tests/test_ta_hostile.py`; the per-kernel path's is here).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import nbformat
import pytest
from grader import cgroups
from grader.execute import Template, run_notebook, wall_ceiling
from grader.sandbox import (
    FALLBACK_PROCESSES,
    ZYGOTE_ENV,
    Limits,
    close_zygotes,
    limit_resources,
    sandbox_available,
)

SANDBOX_OK, SANDBOX_WHY = sandbox_available()
GROUPS = cgroups.backend()
needs_groups = pytest.mark.skipif(not GROUPS.kind, reason=f"no control groups: {GROUPS.why}")
needs_root_sandbox = pytest.mark.skipif(
    not (SANDBOX_OK and os.geteuid() == 0 and GROUPS.kind),
    reason=f"needs root, bubblewrap and control groups ({SANDBOX_WHY or GROUPS.why})",
)


def _read(folder, name: str) -> str:
    return (folder / name).read_text().strip()


# -- the groups themselves -----------------------------------------------------------------
@needs_groups
def test_a_group_has_its_limits_holds_every_process_and_leaves_nothing():
    group = cgroups.Group(256, 16)
    folders = list(group.folders)
    assert folders and all(f.is_dir() for f in folders)
    if GROUPS.kind == "v1":
        assert _read(GROUPS.parents["memory"] / group.name, "memory.limit_in_bytes") == str(
            256 * 1024 * 1024
        )
        assert _read(GROUPS.parents["cpu"] / group.name, "cpu.shares") == "1024"
    else:
        assert _read(GROUPS.parents["memory"] / group.name, "memory.max") == str(256 * 1024 * 1024)
        assert _read(GROUPS.parents["cpu"] / group.name, "cpu.weight") == "100"
    assert _read(GROUPS.parents["pids"] / group.name, "pids.max") == "16"
    # a member that starts children in sessions of their own, which then outlive it
    script = (
        "import os, time\n"
        "for _ in range(3):\n"
        "    if os.fork() == 0:\n"
        "        os.setsid(); time.sleep(600)\n"
        "print('started', flush=True)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, preexec_fn=group.joiner()
    )
    assert proc.stdout is not None and proc.stdout.readline() == b"started\n"
    proc.wait(timeout=30)
    members = group.members()
    assert len(members) == 3, members  # the three sleepers in their own sessions
    assert group.cpu_seconds() > 0
    group.close()
    assert not any(f.exists() for f in folders)
    assert not any(os.path.exists(f"/proc/{pid}") and _alive(pid) for pid in members)
    assert cgroups.leftovers() == []
    group.close()  # a second close does nothing


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@needs_groups
def test_group_limits_stop_a_fork_storm_and_a_memory_hog_and_say_which():
    group = cgroups.Group(64, 8)
    try:
        script = (
            "import os\n"
            "refused = 0\n"
            "for _ in range(20):\n"
            "    try:\n"
            "        if os.fork() == 0:\n"
            "            os.close(1); os.close(2); import time; time.sleep(600)\n"
            "    except OSError:\n"
            "        refused += 1\n"
            "print(refused, flush=True)\n"
            "x = bytearray(200 << 20)\n"
        )
        proc = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            preexec_fn=group.joiner(),
            timeout=60,
        )
        assert int(proc.stdout.split()[0]) >= 12, proc.stdout  # at most 8 in the group
        assert proc.returncode == -9  # the 200 MiB are over the group's 64 MiB: OOM-killed
        events = group.events()
        assert events["oom_kill"] >= 1 and events["pids_max"] >= 12, events
        reason = group.limit_reason()
        assert "memory limit (64 MiB for all its processes)" in reason
        assert "limit of 8 processes" in reason
    finally:
        group.close()
    assert cgroups.leftovers() == []


@needs_groups
def test_group_names_are_unique_and_a_sweep_touches_only_its_own_run(monkeypatch):
    first, second = cgroups.Group(64, 4), cgroups.Group(64, 4)
    try:
        assert first.name != second.name
        token = cgroups.run_token()
        assert first.name.startswith(f"attnbook-{token}-{os.getpid()}-")
        # a group the process forgot (a worker killed before closing its kernel)
        cgroups.Group.live.discard(second)
        sleeper = subprocess.Popen(["sleep", "600"], preexec_fn=second.joiner())
        assert cgroups.sweep("someoneelse") == 0
        assert len(cgroups.leftovers()) == 2 * len(GROUPS.folders)
        first.close()
        assert cgroups.sweep() == len(GROUPS.folders)
        assert sleeper.wait(timeout=10) == -9
        assert cgroups.leftovers() == []
    finally:
        first.close()
        second.close()


_OTHER_RUN = r"""
import os, subprocess, sys
from grader import cgroups
group = cgroups.Group(64, 4)
sleeper = subprocess.Popen(["sleep", "600"], preexec_fn=group.joiner())
print(group.name, sleeper.pid, flush=True)
sys.stdin.readline()  # grading on, until told to end
os._exit(0)  # ends without closing its group, as a killed worker does
"""


@needs_groups
def test_a_sweep_spares_the_groups_of_a_live_run_that_shares_its_token(monkeypatch):
    """Two grading runs with one token (a parent that exported $ATTNBOOK_CGROUP_RUN, or a
    scheduler copying the submitter's environment to each task): the one that ends first
    sweeps, and must not kill the kernel the other is grading with. The PostgreSQL shards
    lost the tests of a student this way, with status ok, in full runs of the suite."""
    from conftest import ROOT

    token = "shared" + os.urandom(3).hex()
    monkeypatch.setenv(cgroups.RUN_ENV, token)
    other = subprocess.Popen(
        [sys.executable, "-c", _OTHER_RUN],
        env=dict(os.environ, PYTHONPATH=str(ROOT / "autograder")),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        name, sleeper = other.stdout.readline().split()
        assert name.startswith(f"attnbook-{token}-{other.pid}-")
        assert len(cgroups.leftovers(token)) == len(GROUPS.folders)
        assert cgroups.sweep(token) == 0  # its maker is alive: not this run's to sweep
        assert cgroups.leftovers(token) and os.path.exists(f"/proc/{sleeper}")
        other.stdin.write("end\n")
        other.stdin.flush()
        assert other.wait(timeout=30) == 0
        assert cgroups.sweep(token) == len(GROUPS.folders)  # its maker ended: swept
        assert cgroups.leftovers(token) == []
    finally:
        if other.poll() is None:
            other.kill()
        other.wait(timeout=30)
        cgroups.sweep(token)


def test_a_group_refuses_bad_sizes_with_the_values():
    with pytest.raises(ValueError, match=r"memory_mb and processes >= 1, got 0, 5"):
        cgroups.Group(0, 5)


def test_without_groups_the_run_says_so_and_students_run_at_idle_priority(monkeypatch):
    monkeypatch.setenv(cgroups.ENABLE_ENV, "0")
    found = cgroups.detect()
    assert found.kind == "" and cgroups.ENABLE_ENV in found.why
    monkeypatch.setattr(cgroups, "backend", lambda: found)
    assert cgroups.describe().startswith("sandboxes: NO control groups")
    with pytest.raises(RuntimeError, match="offers no control groups"):
        cgroups.Group(64, 4)
    probe = (
        "import os, resource\n"
        "print(os.sched_getscheduler(0) == os.SCHED_IDLE, os.getpriority(os.PRIO_PROCESS, 0),"
        " resource.getrlimit(resource.RLIMIT_NPROC)[0])"
    )
    limits = Limits()
    for own_uid, processes in ((True, FALLBACK_PROCESSES), (False, limits.processes)):
        done = subprocess.run(
            [sys.executable, "-c", probe],
            capture_output=True,
            text=True,
            preexec_fn=limit_resources(limits, idle=True, own_uid=own_uid),
            timeout=60,
        )
        assert done.stdout.split() == ["True", "19", str(processes)], done


# -- every limit from both sides, on both paths ---------------------------------------------
def _notebook(*sources: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    return nb


def _text(cell) -> str:
    return "".join(str(o.get("text", "")) + str(o.get("evalue", "")) for o in cell.outputs)


@pytest.fixture(params=["zygote", "per-kernel"])
def path(request, monkeypatch):
    monkeypatch.setenv(ZYGOTE_ENV, "1" if request.param == "zygote" else "0")
    yield request.param
    close_zygotes()
    assert cgroups.leftovers() == []


def _run(*sources: str, **limits):
    nb = _notebook(*sources)
    report = run_notebook(nb, Template([], {}), limits=Limits(**limits))
    return report, [_text(c) for c in nb.cells]


BUSY = (
    "import time\nt = time.process_time()\nwhile time.process_time() - t < {s}: pass\nprint('ok')"
)


@pytest.mark.slow
@needs_root_sandbox
def test_cpu_time_just_under_passes_and_just_over_is_stopped(path):
    report, texts = _run(BUSY.format(s=1.0), "while True: pass", cell_timeout_s=3)
    # Asked before anything else: on a machine this loaded even the first cell can be stopped.
    if "7 s in all): wall-clock time" in report.status:  # under 3 of 7 s of a core
        pytest.skip("this machine is too loaded to give the sandbox 3 s of CPU in 7 s")
    assert texts[0] == "ok\n", texts
    assert "ran past the time limit (3 s of CPU time for a cell, 7 s in all): CPU time" in (
        report.status
    ), report.status
    assert report.status.startswith("kernel lost at cell 2:")  # the second cell, as numbered


@pytest.mark.slow
@needs_root_sandbox
def test_wall_time_counts_only_past_its_ceiling(path):
    # sleeping uses no CPU: past the 2 s of CPU time, within the 5 s ceiling, it passes (with
    # 2.5 s to spare for a loaded machine's round trip)
    started = time.monotonic()
    report, texts = _run(
        "import time\ntime.sleep(2.5)\nprint('ok')", "time.sleep(60)", cell_timeout_s=2
    )
    assert texts[0] == "ok\n", texts
    assert f"{wall_ceiling(2):g} s in all): wall-clock time" in report.status, report.status
    assert time.monotonic() - started < 60


MEMORY = (
    "import subprocess, sys\n"
    'hold = \'x = bytearray({mb} << 20)\\nx[::4096] = b"1" * len(x[::4096])\\n'
    "print(1, flush=True)\\nimport time; time.sleep(600)'\n"
    "children = [subprocess.Popen([sys.executable, '-c', hold], stdout=subprocess.PIPE)"
    " for _ in range({n})]\n"
    "held = sum(c.stdout.readline() == b'1\\n' for c in children)\n"
    "for c in children: c.kill(); c.wait()\n"
    "print('held', held)"
)


@pytest.mark.slow
@needs_root_sandbox
def test_memory_of_the_whole_sandbox_just_under_passes_and_just_over_is_stopped(path):
    # 1024 MiB for the sandbox: each child alone is far under the per-process limit
    report, texts = _run(
        MEMORY.format(mb=150, n=3), MEMORY.format(mb=150, n=8), memory_mb=1024, cell_timeout_s=60
    )
    assert texts[0] == "held 3\n", texts
    why = "the sandbox reached its memory limit (1024 MiB for all its processes)"
    assert why in texts[1] + report.status, (texts, report.status)
    assert "held 8" not in texts[1]


PROCESSES = (
    "import subprocess\n"
    "started = []\n"
    "try:\n"
    "    for _ in range({n}):\n"
    "        started.append(subprocess.Popen(['sleep', '600']))\n"
    "finally:\n"
    "    for p in started: p.kill(); p.wait()\n"
    "print('started', len(started))"
)
DISK = "open('/tmp/work/big', 'wb').write(b'x' * ({mb} << 20))\nprint('wrote')"
OUTPUT = "print('y' * {n})"


@pytest.mark.slow
@needs_root_sandbox
def test_processes_disk_and_output_just_under_pass_and_just_over_are_stopped(path):
    report, texts = _run(
        PROCESSES.format(n=20),
        PROCESSES.format(n=80),
        DISK.format(mb=24),
        "import os\nos.remove('/tmp/work/big')\n" + DISK.format(mb=40),
        OUTPUT.format(n=900),
        OUTPUT.format(n=1100),
        processes=64,
        tmp_mb=32,
        output_chars=1000,
        cell_timeout_s=60,
    )
    assert report.status == "complete", report.status
    assert texts[0] == "started 20\n", texts[0]
    assert "Resource temporarily unavailable" in texts[1], texts[1]
    assert "the sandbox reached its limit of 64 processes and threads" in texts[1], texts[1]
    assert texts[2] == "wrote\n", texts[2]
    assert "No space left on device" in texts[3], texts[3]
    assert texts[4] == "y" * 900 + "\n"
    assert texts[5].startswith("y" * 1000) and "y" * 1001 not in texts[5], texts[5][-200:]


# -- an honest student beside neighbours that take the machine, per-kernel path -------------
NEIGHBOURS = ("cpuhog", "forkstorm", "memhog")


@pytest.mark.slow
@needs_root_sandbox
def test_honest_students_keep_their_grades_beside_hogs_on_the_per_kernel_path(tmp_path):
    from conftest import ROOT, read_grades
    from grader.sample import load_builder
    from test_ta_hostile import HONEST, grade_beside_honest

    build = load_builder()
    work = tmp_path / "work"
    cases = [c for c in build.hostile_cases(ROOT, work, 1) if c.student in NEIGHBOURS]
    token = "percase" + os.urandom(3).hex()
    done = grade_beside_honest(
        build, cases, tmp_path / "download", work, env={ZYGOTE_ENV: "0", cgroups.RUN_ENV: token}
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    grades = read_grades(work)
    for student, score in HONEST.items():
        assert float(grades[student]["score"]) == score, grades[student]
    for case in cases:
        assert float(grades[case.student]["score"]) == case.expected, grades[case.student]
    assert cgroups.describe() in done.stdout
    assert cgroups.leftovers(token) == []


def test_a_channel_names_the_limit_that_stopped_it():
    from grader.remote import KernelChannel, KernelLost

    request_r, request_w = os.pipe()
    reply_r, reply_w = os.pipe()  # nobody answers
    try:
        for cpu_left, deadline, which in (
            (lambda: -0.1, 60.0, ": CPU time"),  # the sandbox's CPU time is spent
            (lambda: 1e9, 0.2, ": wall-clock time"),  # the ceiling passed first
        ):
            channel = KernelChannel(request_w, reply_r, 0, " (1 s of CPU time for a cell)")
            channel.cpu_left = cpu_left
            started = time.monotonic()
            with pytest.raises(KernelLost, match=f"time limit .*{which}; the kernel was stopped"):
                channel.request({"op": "ping"}, time.monotonic() + deadline)
            assert time.monotonic() - started < 30
        channel = KernelChannel(request_w, reply_r, 0, " (1 s for a cell)")  # no group
        with pytest.raises(KernelLost) as lost:
            channel.request({"op": "ping"}, time.monotonic() + 0.2)
        assert str(lost.value).endswith("(1 s for a cell); the kernel was stopped")
    finally:
        for fd in (request_r, request_w, reply_r, reply_w):
            os.close(fd)


def test_cpu_time_is_read_from_either_version(tmp_path):
    v1, v2 = tmp_path / "cpuacct.usage", tmp_path / "cpu.stat"
    v1.write_text("2500000000\n")
    v2.write_text("usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\n")
    assert cgroups.read_cpu_seconds(str(v1)) == 2.5
    assert cgroups.read_cpu_seconds(str(v2)) == 1.5
    v2.write_text("user_usec 1\n")
    with pytest.raises(ValueError, match="no usage_usec line"):
        cgroups.read_cpu_seconds(str(v2))


UNIFIED = cgroups.ROOT / "unified"


UNIFIED_HAS = (
    (UNIFIED / "cgroup.controllers").read_text().split()
    if (UNIFIED / "cgroup.controllers").is_file()
    else None
)


@pytest.mark.skipif(
    UNIFIED_HAS is None or all(c in UNIFIED_HAS for c in cgroups.V2_CONTROLLERS),
    reason="needs a cgroup v2 hierarchy beside v1 without the cpu, memory or pids controller "
    "(as CI mounts at /sys/fs/cgroup/unified)",
)
def test_a_v2_hierarchy_without_the_controllers_is_refused_with_the_reason(monkeypatch):
    monkeypatch.setattr(cgroups, "ROOT", UNIFIED)
    monkeypatch.setattr(cgroups, "_own_paths", lambda: {"": "/"})
    found = cgroups.detect()
    assert found.kind == ""
    if os.access(UNIFIED / "cgroup.subtree_control", os.W_OK):
        missing = [c for c in cgroups.V2_CONTROLLERS if c not in (UNIFIED_HAS or [])]
        assert found.why == f"cgroup v2 group {UNIFIED} lacks the {', '.join(missing)} controller"
    else:
        assert "is not writable" in found.why and "Delegate=yes" in found.why


@needs_groups
def test_the_cpu_limit_counts_the_groups_cpu_time_whatever_the_wall_clock():
    """The CPU side of the time limit on a real group, with a wall ceiling far away (the
    kernel-level test above needs a machine that gives the sandbox 3 s of CPU in 7 s)."""
    from grader.remote import KernelChannel, KernelLost

    group = cgroups.Group(256, 16)
    request_r, request_w = os.pipe()
    reply_r, reply_w = os.pipe()
    spinner = subprocess.Popen(
        [sys.executable, "-c", "while True: pass"], preexec_fn=group.joiner()
    )
    try:
        start = group.cpu_seconds()
        channel = KernelChannel(request_w, reply_r, 0, " (0.5 s of CPU time for a cell)")
        channel.cpu_left = lambda: start + 0.5 - group.cpu_seconds()
        with pytest.raises(KernelLost, match=r"\(0.5 s of CPU time for a cell\): CPU time"):
            channel.request({"op": "ping"}, time.monotonic() + 300)
        assert group.cpu_seconds() - start >= 0.5
    finally:
        spinner.kill()
        spinner.wait()
        group.close()
        for fd in (request_r, request_w, reply_r, reply_w):
            os.close(fd)


@needs_groups
def test_a_released_group_is_removed_once_its_members_have_exited():
    group = cgroups.Group(256, 16)
    spinner = subprocess.Popen(
        [sys.executable, "-c", "while True: pass"], preexec_fn=group.joiner()
    )
    folders = list(group.folders)
    group.release()  # kills, does not wait
    assert spinner.wait(timeout=30) == -9
    cgroups.finish_released()
    assert not any(f.exists() for f in folders) and group not in cgroups.Group.live
    assert cgroups.leftovers() == []


def test_the_v2_layout_on_a_stand_in_hierarchy(tmp_path, monkeypatch):
    """cgroup v2 as far as a machine without it allows (this one and CI mount v1): on a folder
    laid out like a delegated v2 group (its controllers listed, `cgroup.subtree_control`
    writable), detection enables cpu, memory and pids for the children; a sandbox's group
    gets v2's files (`cpu.weight`, `memory.max`, `pids.max`), is joined through its
    `cgroup.procs`, counts CPU time from `cpu.stat`, and names its limit from
    `memory.events` and `pids.events`. That the kernel enforces them needs a v2 machine.
    cgroupfs has every file from the start; the stand-in makes them on the first write."""

    def write(path, text):
        with open(path, "w") as f:
            f.write(text)

    monkeypatch.setattr(cgroups, "_write", write)
    own = tmp_path / "grader.scope"
    own.mkdir()
    (own / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (own / "cgroup.subtree_control").write_text("")
    found = cgroups._detect_v2(own)
    assert (found.kind, found.why) == ("v2", "")
    assert found.folders == [own]
    assert (own / "cgroup.subtree_control").read_text().split() == ["+cpu", "+memory", "+pids"]

    group = cgroups.Group(64, 32, found=found)
    try:
        folder = own / group.name
        assert (folder / "cpu.weight").read_text() == "100"
        assert (folder / "memory.max").read_text() == str(64 * 1024 * 1024)
        assert (folder / "pids.max").read_text() == "32"
        assert group.procs_files == [str(folder / "cgroup.procs")]
        assert group.cpu_file == str(folder / "cpu.stat")
        (folder / "cpu.stat").write_text("usage_usec 2500000\nuser_usec 2000000\n")
        assert group.cpu_seconds() == 2.5
        assert group.limit_reason() == ""
        (folder / "memory.events").write_text("low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n")
        (folder / "pids.events").write_text("max 3\n")
        reason = group.limit_reason()
        assert "memory limit (64 MiB" in reason and "limit of 32 processes" in reason, reason
    finally:
        cgroups.Group.live.discard(group)
