"""A control group per sandbox: a CPU share, memory and a process count for the whole group,
and the CPU time its members used, so that a student's time limits count their own work and
not their neighbours'.

The grader makes one group for each kernel (every process the kernel starts inherits it) and
removes it with the kernel: it kills every member through `cgroup.procs`, then removes the
folder. What the machine offers is read once per process (`backend`):

- cgroup v2 (`/sys/fs/cgroup/cgroup.controllers`): `cpu.weight`, `memory.max` (and
  `memory.swap.max` 0), `pids.max`; CPU time from `cpu.stat`. The groups go under the
  grader's own group, which must be writable: as root, or a TA's process started in a
  delegated systemd scope (`systemd-run --user --scope -p Delegate=yes python -m grader ...`).
- cgroup v1 with the `cpu`, `cpuacct`, `memory` and `pids` controllers mounted read-write:
  `cpu.shares`, `memory.limit_in_bytes` (and `memory.memsw.limit_in_bytes` where swap is
  accounted), `pids.max`; CPU time from `cpuacct.usage`.
- neither (no root, no delegation, or `ATTNBOOK_CGROUPS=0`): no group; the sandbox keeps its
  per-process rlimits and its students' processes run at SCHED_IDLE and nice 19
  (`sandbox.limit_resources`), and time limits stay wall-clock time (`describe` says so).

Group names are unique per run and per process (`attnbook-<run>-<pid>-<n>`; the run's token is
$ATTNBOOK_CGROUP_RUN, drawn by `grader.cli` and inherited by its workers), so grading runs
sharing a machine never touch each other's groups; `sweep` removes whatever a run's processes
left (a worker killed before it could close its kernel), never a group whose maker still runs,
so even two runs that share a token (inherited from a parent that exported it) keep their
kernels.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import secrets
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
ENABLE_ENV = "ATTNBOOK_CGROUPS"  # "0": no groups (the fallback), whatever the machine offers
RUN_ENV = "ATTNBOOK_CGROUP_RUN"
PREFIX = "attnbook-"
LEAF = "attnbook.grader-"  # v2: where the grader moves itself so its group may have children
V1_CONTROLLERS = ("cpu", "cpuacct", "memory", "pids")
V2_CONTROLLERS = ("cpu", "memory", "pids")


@dataclass(frozen=True)
class Backend:
    """Where this process makes its groups: `kind` "v2" or "v1" with the parent folder of
    each hierarchy (controller -> folder), or "" with the reason there are none."""

    kind: str
    parents: dict[str, Path] = field(default_factory=dict)
    why: str = ""

    @property
    def folders(self) -> list[Path]:
        """The distinct parent folders (v1 may mount several controllers together)."""
        return sorted(set(self.parents.values()))


def _own_paths() -> dict[str, str]:
    """This process's group in each hierarchy: controller (or "" for v2) -> path."""
    paths: dict[str, str] = {}
    with open("/proc/self/cgroup") as f:
        for line in f:
            parts = line.rstrip("\n").split(":", 2)
            if len(parts) != 3:
                continue
            for controller in parts[1].split(",") if parts[1] else [""]:
                paths[controller] = parts[2]
    return paths


def _v1_mounts() -> dict[str, Path]:
    """controller -> mount point of each read-write cgroup v1 hierarchy."""
    mounts: dict[str, Path] = {}
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            if " - " not in line:
                continue
            after = line.split(" - ", 1)[1].split()
            if len(after) < 3 or after[0] != "cgroup":
                continue
            options = after[2].split(",")
            if "rw" not in options or "rw" not in fields[5].split(","):
                continue
            for option in options:
                if option in V1_CONTROLLERS:
                    mounts.setdefault(option, Path(fields[4]))
    return mounts


def _inside(mount: Path, path: str) -> Path:
    """The folder of group `path` under `mount` (a group outside the mount's view: the mount)."""
    folder = mount / path.lstrip("/")
    return folder if folder.is_dir() else mount


def detect() -> Backend:
    """What this machine offers to this process, without caching (see `backend`)."""
    if os.environ.get(ENABLE_ENV, "1") == "0":
        return Backend("", why=f"{ENABLE_ENV}=0")
    try:
        own = _own_paths()
        if (ROOT / "cgroup.controllers").is_file():
            folder = ROOT / own.get("", "/").lstrip("/")
            if folder.name.startswith(LEAF):  # a worker of a run whose process moved there
                folder = folder.parent
            return _detect_v2(folder)
        mounts = _v1_mounts()
    except OSError as err:
        return Backend("", why=f"cannot read this process's control groups: {err}")
    missing = [c for c in V1_CONTROLLERS if c not in mounts]
    if missing:
        return Backend("", why=f"no cgroup v2 and no writable cgroup v1 {', '.join(missing)}")
    parents = {c: _inside(mounts[c], own.get(c, "/")) for c in V1_CONTROLLERS}
    for folder in set(parents.values()):
        if not os.access(folder / "cgroup.procs", os.W_OK) or not os.access(folder, os.W_OK):
            return Backend("", why=f"cgroup v1 {folder} is not writable by uid {os.geteuid()}")
    if not (parents["pids"] / "pids.max").exists() and not _probe_v1(parents["pids"]):
        return Backend("", why=f"cgroup v1 pids at {parents['pids']} has no pids.max")
    return Backend("v1", parents)


def _probe_v1(folder: Path) -> bool:
    """Whether a child group of `folder` gets a pids.max (the root group has none)."""
    probe = folder / f"{PREFIX}probe-{os.getpid()}-{secrets.token_hex(3)}"
    try:
        probe.mkdir()
    except OSError:
        return False
    try:
        return (probe / "pids.max").exists()
    finally:
        with contextlib.suppress(OSError):
            probe.rmdir()


def _detect_v2(own: Path) -> Backend:
    """The grader's own v2 group, if it can hold sandboxes: writable, with the cpu, memory
    and pids controllers available. A group that holds processes cannot give its children
    controllers, so the grader first moves itself into a leaf of its own (`LEAF`; its
    workers start there and make their groups beside it). The empty leaf stays after the
    run, until the delegated scope ends."""
    if not os.access(own, os.W_OK) or not os.access(own / "cgroup.subtree_control", os.W_OK):
        return Backend(
            "",
            why=(
                f"cgroup v2 group {own} is not writable by uid {os.geteuid()} (start the "
                "grader in a delegated scope: systemd-run --user --scope -p Delegate=yes ...)"
            ),
        )
    available = (own / "cgroup.controllers").read_text().split()
    missing = [c for c in V2_CONTROLLERS if c not in available]
    if missing:
        return Backend("", why=f"cgroup v2 group {own} lacks the {', '.join(missing)} controller")
    enabled = (own / "cgroup.subtree_control").read_text().split()
    if all(c in enabled for c in V2_CONTROLLERS):
        return Backend("v2", {c: own for c in V2_CONTROLLERS})
    try:
        _write(own / "cgroup.subtree_control", " ".join(f"+{c}" for c in V2_CONTROLLERS))
    except OSError:  # processes in `own`: move this one into a leaf, then try again
        try:
            leaf = own / f"{LEAF}{os.getpid()}-{secrets.token_hex(3)}"
            leaf.mkdir()
            _write(leaf / "cgroup.procs", "0")
            _write(own / "cgroup.subtree_control", " ".join(f"+{c}" for c in V2_CONTROLLERS))
        except OSError as err:
            return Backend("", why=f"cannot enable cpu, memory and pids under {own}: {err}")
    return Backend("v2", {c: own for c in V2_CONTROLLERS})


@functools.lru_cache(maxsize=1)
def backend() -> Backend:
    """`detect`, once per process."""
    return detect()


def describe() -> str:
    """One line for a run's summary: how each sandbox's resources are limited."""
    found = backend()
    if found.kind:
        return (
            f"sandboxes: one control group each (cgroup {found.kind}): CPU share, memory and "
            "processes per sandbox; time limits count the sandbox's CPU time"
        )
    return (
        f"sandboxes: NO control groups ({found.why}): per-process limits only, students' "
        "processes at idle priority, time limits in wall-clock time"
    )


def run_token() -> str:
    """This run's token ($ATTNBOOK_CGROUP_RUN, else one drawn now and exported, so that
    processes this one starts share it)."""
    token = os.environ.get(RUN_ENV, "")
    if not (token.isalnum() and 4 <= len(token) <= 32):
        token = os.environ[RUN_ENV] = secrets.token_hex(4)
    return token


def _write(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def read_cpu_seconds(path: str) -> float:
    """CPU seconds in a group's `cpuacct.usage` (v1, ns) or `cpu.stat` (v2, usage_usec)."""
    with open(path) as f:
        text = f.read()
    if path.endswith("cpu.stat"):
        for line in text.splitlines():
            if line.startswith("usage_usec "):
                return int(line.split()[1]) / 1e6
        raise ValueError(f"{path}: no usage_usec line")
    return int(text.strip()) / 1e9


class Group:
    """One sandbox's control group (a folder per hierarchy), made with its limits."""

    made = 0  # groups this process has made: the last part of the name
    live: set[Group] = set()
    released: set[Group] = set()  # killed, to be removed once their members have exited

    def __init__(self, memory_mb: int, processes: int, found: Backend | None = None):
        if memory_mb < 1 or processes < 1:
            raise ValueError(
                f"Group: expected memory_mb and processes >= 1, got {memory_mb}, {processes}"
            )
        self.backend = found or backend()
        if not self.backend.kind:
            raise RuntimeError(f"Group: this machine offers no control groups: {self.backend.why}")
        Group.made += 1
        self.name = f"{PREFIX}{run_token()}-{os.getpid()}-{Group.made}"
        self.memory_mb, self.processes = memory_mb, processes
        self.folders: list[Path] = []
        Group.live.add(self)
        try:
            for parent in self.backend.folders:
                folder = parent / self.name
                folder.mkdir()
                self.folders.append(folder)
            self._set_limits()
        except OSError as err:
            self.close()
            raise RuntimeError(f"Group: cannot make {self.name}: {err}") from None

    def _folder(self, controller: str) -> Path:
        return self.backend.parents[controller] / self.name

    def _set_limits(self) -> None:
        memory = self.memory_mb * 1024 * 1024
        if self.backend.kind == "v2":
            _write(self._folder("cpu") / "cpu.weight", "100")
            _write(self._folder("memory") / "memory.max", str(memory))
            with contextlib.suppress(FileNotFoundError):  # no swap accounting
                _write(self._folder("memory") / "memory.swap.max", "0")
            _write(self._folder("pids") / "pids.max", str(self.processes))
            return
        _write(self._folder("cpu") / "cpu.shares", "1024")
        _write(self._folder("memory") / "memory.limit_in_bytes", str(memory))
        memsw = self._folder("memory") / "memory.memsw.limit_in_bytes"
        if memsw.exists():  # swap is accounted: the same ceiling for memory and swap
            _write(memsw, str(memory))
        _write(self._folder("pids") / "pids.max", str(self.processes))

    @property
    def procs_files(self) -> list[str]:
        return [str(folder / "cgroup.procs") for folder in self.folders]

    @property
    def cpu_file(self) -> str:
        if self.backend.kind == "v2":
            return str(self._folder("cpu") / "cpu.stat")
        return str(self._folder("cpuacct") / "cpuacct.usage")

    def joiner(self):
        """A function that moves the calling process into the group (a preexec function:
        it runs in the child between fork and exec)."""
        files = self.procs_files

        def join() -> None:
            for path in files:
                fd = os.open(path, os.O_WRONLY)
                try:
                    os.write(fd, b"0")
                finally:
                    os.close(fd)

        return join

    def open_procs(self) -> list[int]:
        """Descriptors of each `cgroup.procs`, opened for writing here: a process that
        receives them (the zygote's kernel, root in its sandbox) joins by writing "0"."""
        return [os.open(path, os.O_WRONLY | os.O_CLOEXEC) for path in self.procs_files]

    def cpu_seconds(self) -> float:
        """CPU seconds every member used, the ended ones included."""
        return read_cpu_seconds(self.cpu_file)

    def members(self) -> set[int]:
        pids: set[int] = set()
        for path in self.procs_files:
            with contextlib.suppress(OSError), open(path) as f:
                pids.update(int(line) for line in f if line.strip().isdigit())
        return pids

    def events(self) -> dict[str, int]:
        """What the group's limits did: `oom_kill` (processes the memory limit killed) and
        `pids_max` (forks the process limit refused)."""
        found = {"oom_kill": 0, "pids_max": 0}
        memory = self._folder("memory")
        name = "memory.events" if self.backend.kind == "v2" else "memory.oom_control"
        with contextlib.suppress(OSError, ValueError):
            for line in (memory / name).read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    found["oom_kill"] = int(value)
        with contextlib.suppress(OSError, ValueError):
            for line in (self._folder("pids") / "pids.events").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "max":
                    found["pids_max"] = int(value)
        return found

    def limit_reason(self) -> str:
        """Which of the group's limits stopped something, in words; '' if none."""
        events = self.events()
        reasons = []
        if events["oom_kill"]:
            reasons.append(
                f"the sandbox reached its memory limit ({self.memory_mb} MiB for all its "
                "processes) and a process was killed"
            )
        if events["pids_max"]:
            reasons.append(
                f"the sandbox reached its limit of {self.processes} processes and threads "
                "(a new one was refused)"
            )
        return "; ".join(reasons)

    def kill(self, wait_s: float = 10.0) -> None:
        """SIGKILL every member until the group is empty (new ones may be forked meanwhile)."""
        end = time.monotonic() + wait_s
        while True:
            pids = self.members()
            if not pids or time.monotonic() > end:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.005)

    def close(self) -> None:
        """Kill every member and remove the group's folders (retried while the kernel lets
        the last members go). Idempotent."""
        if self.folders:
            self.kill()
        for folder in reversed(self.folders):
            _remove(folder)
        self.folders = []
        Group.live.discard(self)
        Group.released.discard(self)

    def release(self) -> None:
        """Kill every member now and remove the group once they have exited, without waiting
        for them (a test's process may take tens of milliseconds to unmap torch): at the next
        `release`, at `finish_released` or at exit."""
        for pid in self.members():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        Group.released.add(self)
        finish_released(wait=False)

    def _try_remove(self) -> bool:
        while self.folders:
            try:
                self.folders[-1].rmdir()
            except FileNotFoundError:
                pass
            except OSError:
                return False
            self.folders.pop()
        Group.live.discard(self)
        Group.released.discard(self)
        return True


def finish_released(wait: bool = True) -> None:
    """Remove the released groups whose members have exited; with `wait`, all of them
    (killing any member left)."""
    for group in list(Group.released):
        if not group._try_remove() and wait:
            group.close()


def _remove(folder: Path, wait_s: float = 5.0) -> bool:
    end = time.monotonic() + wait_s
    while True:
        try:
            folder.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError:
            if time.monotonic() > end:
                return False
            with contextlib.suppress(OSError):
                for line in (folder / "cgroup.procs").read_text().split():
                    with contextlib.suppress(ProcessLookupError, PermissionError, ValueError):
                        os.kill(int(line), signal.SIGKILL)
            time.sleep(0.01)


def close_groups() -> None:
    finish_released()
    for group in list(Group.live):
        group.close()


atexit.register(close_groups)


def leftovers(token: str | None = None) -> list[Path]:
    """The folders of groups a run (this one by default) still has, in every hierarchy."""
    found = backend()
    start = f"{PREFIX}{token or run_token()}-"
    return sorted(
        child
        for parent in found.folders
        if parent.is_dir()
        for child in parent.iterdir()
        if child.is_dir() and child.name.startswith(start)
    )


def _maker_alive(folder: Path) -> bool:
    """Whether the process that made this group (the `<pid>` of its name) is another process
    still running: a grading process of another run that shares the token (a token inherited
    from a parent that exported it, or a scheduler that copies the submitter's environment
    to every task), whose kernel in that group is working now."""
    try:
        pid = int(folder.name.rsplit("-", 2)[-2])
    except (IndexError, ValueError):
        return False
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep(token: str | None = None) -> int:
    """Kill the members of and remove every group a run left (made by this process or by one
    that has ended: a worker killed before it could close its kernel); how many folders it
    removed. A group whose maker still runs is never touched: two runs that share a token
    (inherited, or copied by a scheduler) would otherwise kill each other's kernels."""
    removed = 0
    for folder in leftovers(token):
        if _maker_alive(folder):
            continue
        with contextlib.suppress(OSError):
            for line in (folder / "cgroup.procs").read_text().split():
                with contextlib.suppress(ProcessLookupError, PermissionError, ValueError):
                    os.kill(int(line), signal.SIGKILL)
        removed += _remove(folder)
    return removed
