"""How a student's kernel is started: bubblewrap, resource limits, a throwaway user.

The sandbox sees, read-only: the system's /usr (and /etc), the Python installation and the
virtual environment, the `attnbook` package, the course's public `assets/` (corpus,
checkpoints, figures) and this `grader` folder (for the kernel program). Its only writable
place is a private /tmp, a tmpfs of fixed size and number of files (`Limits.tmp_mb`,
`tmp_files`), which holds a copy of the student's own submission folder as working
directory. It does not see the repository (so neither
`solutions/` nor `autograder/reference/`), the gradebook, or any other student's files. It
has no network (a new network namespace holds only loopback), its own PID namespace, and
dies with the grader. Limits: address space, processes (per throwaway user id, so a fork
bomb stops at its own ceiling), file size, open files, CPU seconds; time and output size
are enforced by the grader that reads the kernel's replies. Where the machine offers control
groups, each sandbox also has one (`grader.cgroups`): a CPU share, memory and a process count
for all its processes together, and the CPU time its time limits count; where it does not,
its processes run at idle priority (`limit_resources`).

As root, a grading process starts one such sandbox for the kernel zygote (`grader.zygote`,
`KernelZygote` here) and forks each notebook's kernel from it into new namespaces, with the
same view, limits and throwaway user; see that module for what each fork gets afresh.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import functools
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from grader import lifetime
from grader.keyrings import DENY_KEYRINGS

GRADER_DIR = Path(__file__).resolve().parent
MiB = 1024 * 1024


@dataclass
class Limits:
    """Per-kernel limits; the defaults fit notebook 01-09 on a 2-core laptop."""

    memory_mb: int = 4096  # address space of the kernel process (torch maps a lot)
    processes: int = 256  # processes and threads of the sandbox's user
    file_mb: int = 64  # largest file the kernel may write
    cpu_s: int = 3600  # CPU seconds for the whole notebook
    cell_timeout_s: float = 300.0  # wall time of one cell, or of one test's calls
    notebook_timeout_s: float = 1800.0  # wall time of the whole notebook
    output_chars: int = 20000  # kept per stream per cell; the rest is counted, not kept
    tmp_mb: int = 256  # size of the sandbox's writable /tmp (a tmpfs, so RAM)
    tmp_files: int = 20000  # files and folders it may hold


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


NAMESPACE_FIX = (
    "allow unprivileged user namespaces (Ubuntu 23.10+: sudo sysctl "
    "kernel.apparmor_restrict_unprivileged_userns=0) or run as root; in Docker, start the "
    "container with --security-opt seccomp=unconfined --security-opt apparmor=unconfined "
    "--cap-add SYS_ADMIN"
)


@functools.lru_cache(maxsize=1)
def sandbox_available() -> tuple[bool, str]:
    """Whether bubblewrap can start a kernel here, and why not (the cause and the fix, one
    line). The probe starts a real sandbox, with the namespaces, mounts, launcher and user
    switch a kernel gets, and runs this Python in it: a bwrap that is installed but cannot
    make namespaces (Docker's seccomp profile, AppArmor's limit on user namespaces) fails
    here, before any student is graded, instead of in every student's kernel."""
    path = bwrap_path()
    if path is None:
        return False, (
            "bubblewrap (bwrap) is not installed or not on PATH: install it "
            "(sudo bash autograder/install_system_deps.sh, or apt-get install bubblewrap)"
        )
    hidden = under_tmp()
    if hidden:
        return False, (
            f"the sandbox mounts a /tmp of its own, which hides {hidden}: expected the course "
            "checkout and its Python outside /tmp (clone it elsewhere, e.g. in your home)"
        )
    outside = python_outside_binds()
    if outside:
        return False, outside
    if os.geteuid() == 0 and not shutil.which("setpriv"):
        return False, (
            "setpriv (util-linux) is missing: the kernel cannot drop root "
            "(sudo apt-get install util-linux)"
        )
    return _probe(path)


def _probe(bwrap: str) -> tuple[bool, str]:
    """Start one sandbox as `kernel_command` starts a kernel, running `python -c pass` (after
    the kernel's seccomp filter, `grader.keyrings`, where the kernel would install it)."""
    own = lifetime.run_folder("probe")
    try:
        ids = (65534, 65534) if os.geteuid() == 0 else None  # nobody: any id without files
        command = kernel_command(own, (0, 1), True, ids, Limits(tmp_mb=1, tmp_files=64))
        start = len(command) - command[::-1].index("-m") - 1
        filtered = command[-1] == DENY_KEYRINGS
        run = "from grader.keyrings import deny_keyrings; deny_keyrings()" if filtered else "pass"
        command[start:] = ["-c", run]  # in place of `-m grader.kernel FD FD ...`
        probe = subprocess.run(
            command,
            env=kernel_env(Limits(), True),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        return False, f"{bwrap} did not start a sandbox within 60 s: {NAMESPACE_FIX}"
    except OSError as err:
        return False, f"{bwrap} cannot be run ({err.strerror or err}): reinstall bubblewrap"
    finally:
        shutil.rmtree(own, ignore_errors=True)
    if probe.returncode != 0:
        said = " ".join(probe.stderr.decode("utf-8", errors="replace").split())[:200]
        if "deny_keyrings:" in said:
            return False, f"the kernel's seccomp filter cannot be installed here: {said}"
        if probe.returncode == 127 or "failed to execute" in said or "execvp" in said:
            return False, (
                f"{bwrap} started a sandbox, but {NOT_RUN} (exit {probe.returncode}: "
                f"{said or 'no message'}): expected this Python, {interpreter()}, and its "
                f"environment inside the folders the sandbox shows ({', '.join(bound_roots())}); "
                "run the grader with the environment's own bin/python"
            )
        return False, (
            f"{bwrap} cannot start a sandbox here (exit {probe.returncode}: "
            f"{said or 'no message'}): {NAMESPACE_FIX}"
        )
    return True, ""


def under_tmp() -> str:
    """The first of the folders the sandbox shows at their own paths (Python, the virtual
    environment, the package and its assets) that lies under /tmp, where the kernel's own /tmp
    hides it; ''. (The grader is shown at /opt/attnbook-grader wherever it is.)"""
    for path in (*_python_roots(), _package_root()):  # sys.prefix: the environment
        if os.path.realpath(path).startswith("/tmp/"):
            return path
    return ""


NOT_RUN = "a path in it could not be run"  # a path problem: no namespace fix, no fallback


def interpreter() -> str:
    """This Python as the sandbox shows it: its folder resolved (the sandbox binds the
    environment at its real path, so a link to a venv, or a /home that is a link, would not
    be found there), its own name kept (a venv's bin/python is itself a link to the base
    interpreter: resolved, Python would no longer find the venv's pyvenv.cfg)."""
    path = os.path.abspath(sys.executable)
    return os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))


def bound_roots() -> list[str]:
    """The folders at their own paths in the sandbox that can hold Python: /usr and Python's
    roots (the environment's, the base interpreter's), resolved."""
    return ["/usr", *(r for r in _python_roots() if not r.startswith("/usr/"))]


def python_outside_binds() -> str:
    """Why `interpreter()` cannot be run in the sandbox (it lies outside every folder that
    `bound_roots` names), or ''."""
    python = interpreter()
    if any(python.startswith(root.rstrip("/") + "/") for root in bound_roots()):
        return ""
    return (
        f"this Python, {sys.executable} (resolved: {python}), lies outside the folders the "
        f"sandbox shows ({', '.join(bound_roots())}), so {NOT_RUN}: run the grader with the "
        "environment's own bin/python"
    )


def _python_roots() -> list[str]:
    roots = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    return sorted(roots)


def _package_root() -> str:
    import attnbook

    return str(Path(attnbook.__file__).resolve().parent)


def compile_mounted_code() -> None:
    """Write the bytecode of the `attnbook` package and of this `grader` folder next to their
    sources, where the TA can write (the sandbox mounts them read-only and its Python writes
    none): without it every kernel compiles the package from source again. Quiet; a folder
    that cannot be written is left as it is."""
    import compileall

    for folder in (_package_root(), str(GRADER_DIR)):
        with contextlib.suppress(OSError):
            compileall.compile_dir(folder, quiet=2, force=False)


def _dirs_for(path: str, made: set[str]) -> list[str]:
    """bwrap makes missing parents of a mount point mode 0700; make them 0755 first."""
    args, parts = [], Path(path).parents
    for parent in reversed(list(parts)[:-1]):
        if str(parent) not in made:
            made.add(str(parent))
            args += ["--perms", "0755", "--dir", str(parent)]
    return args


# Runs first inside the sandbox, with the one capability it needs: mount the sized tmpfs,
# copy the student's files in, hand them to the throwaway user, then drop every privilege.
LAUNCHER = """set -e
mount -t tmpfs -o "size=$1m,nr_inodes=$2,mode=1777,nosuid,nodev" tmpfs /tmp
mkdir -p /tmp/work
cp -R /opt/submission/. /tmp/work/ 2>/dev/null || true
if [ -n "$3" ]; then chown -R "$3" /tmp/work; fi
cd /tmp/work
shift 3
exec "$@"
"""


def kernel_command(
    own: Path,
    fds: tuple[int, int],
    use_sandbox: bool,
    ids: tuple[int, int] | None = None,
    limits: Limits | None = None,
) -> list[str]:
    """The argv that starts `grader.kernel` with its request and reply descriptors.

    As root, bubblewrap sets up the mounts and namespaces, then `setpriv` drops to a
    throwaway user id with no capabilities and no way to regain them; otherwise bubblewrap
    runs unprivileged in a new user namespace, and `setpriv` drops the CAP_SYS_ADMIN that the
    launcher's mount needed before the kernel starts (kept, it would let the learner's code
    remount the read-only package and environment writable, as the grader's own user). `own`
    holds the student's own files.
    """
    limits = limits or Limits()
    program = ["-m", "grader.kernel", str(fds[0]), str(fds[1])]
    kernel = [*_python(), *program]
    # a kernel that refuses the key calls (`grader.keyrings`: a throwaway user's keyrings
    # outlive its kernel, and the grader's own user's kernel would hold the session keyring of
    # the TA's login) is started with -P: `python -m` would otherwise import from its working
    # folder, the student's files, before the filter is in place
    denying = [*_python(), "-P", *program, DENY_KEYRINGS]
    if not use_sandbox:
        if os.environ.get(FALLBACK_ENV) != "setpriv":
            return kernel
        return fallback_command(denying)
    kernel = denying
    owner = f"{ids[0]}:{ids[1]}" if ids is not None else ""
    launch = [
        "/bin/sh",
        "-c",
        LAUNCHER,
        "launcher",
        str(limits.tmp_mb),
        str(limits.tmp_files),
        owner,
    ]
    setpriv = shutil.which("setpriv") or "/usr/bin/setpriv"
    launch += without_capabilities(setpriv) if ids is None else as_throwaway_user(setpriv, ids)
    return _bwrap(own, "/opt/submission", user_namespace=ids is None) + launch + kernel


def zygote_command(folder: Path, control_fd: int) -> list[str]:
    """The argv that starts `grader.zygote` (root only) in a sandbox like a kernel's, with
    `folder`, which will hold each student's own files in a subfolder, at /opt/submissions."""
    return _bwrap(folder, "/opt/submissions", user_namespace=False) + [
        *_python(),
        "-m",
        "grader.zygote",
        str(control_fd),
    ]


def _python() -> list[str]:
    return [interpreter(), "-s", "-B"]


def _bwrap(own: Path, own_at: str, user_namespace: bool) -> list[str]:
    """bubblewrap's arguments up to the command: the namespaces, the read-only system,
    Python, package, assets and grader, a plain /tmp, and `own` read-only at `own_at`."""
    bwrap = bwrap_path()
    if bwrap is None:
        raise RuntimeError("kernel_command: expected bubblewrap (bwrap) on PATH for the sandbox")
    args = [
        bwrap,
        "--unshare-ipc",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--perms",
        "1777",
        "--tmpfs",
        "/tmp",
        "--ro-bind",
        "/usr",
        "/usr",
        "--ro-bind",
        "/etc",
        "/etc",
        "--cap-add",
        "CAP_SYS_ADMIN",
    ]
    if user_namespace:
        args.insert(1, "--unshare-user")
    for link in ("bin", "sbin", "lib", "lib64", "lib32"):
        target = Path("/") / link
        if target.is_symlink():
            args += ["--symlink", os.readlink(target), str(target)]
        elif target.is_dir():
            args += ["--ro-bind", str(target), str(target)]
    made: set[str] = {"/", "/usr", "/etc", "/tmp"}
    binds = [r for r in _python_roots() if not r.startswith("/usr/")]
    venv = os.path.realpath(sys.prefix)
    if venv not in binds and not venv.startswith("/usr/"):
        binds.append(venv)
    binds.append(_package_root())
    assets = Path(_package_root()).parent / "assets"  # public data: corpus, checkpoints
    if assets.is_dir():
        binds.append(str(assets))
    for path in binds:
        args += _dirs_for(path, made) + ["--ro-bind", path, path]
    return args + [
        "--perms",
        "0755",
        "--dir",
        "/opt",
        "--perms",
        "0755",
        "--dir",
        "/opt/attnbook-grader",
        "--ro-bind",
        str(GRADER_DIR),
        "/opt/attnbook-grader/grader",
        *hide_answer_key(),
        "--ro-bind",
        str(own),
        own_at,
        # the package the grader imported, ahead of any editable install's pointer
        "--setenv",
        "PYTHONPATH",
        f"/opt/attnbook-grader:{Path(_package_root()).parent}",
        "--",
    ]


# The grader's package data that no kernel may read: the reference answers, the catalogue and
# the sample class. An editable install keeps them beside grader/; a wheel (`pip install
# ./autograder`) puts them inside it, in the folder every kernel gets.
PRIVATE_DATA = ("reference", "mistakes", "sample_class")


def hide_answer_key() -> list[str]:
    """bubblewrap arguments that put an empty tmpfs over each of the grader's private folders
    found inside grader/ (none in an editable install), both where every kernel gets grader/
    and where it lies: a wheel installs it into the environment, which is mounted too."""
    return [
        arg
        for name in PRIVATE_DATA
        if (GRADER_DIR / name).is_dir()
        for path in (f"/opt/attnbook-grader/grader/{name}", os.path.realpath(GRADER_DIR / name))
        for arg in ("--tmpfs", path)
    ]


def without_capabilities(setpriv: str) -> list[str]:
    """`setpriv` arguments that run the rest of a command as the same user with no
    capabilities: bubblewrap run unprivileged raises the ones it was asked for (CAP_SYS_ADMIN,
    for the launcher's mount) into the ambient set, which an exec keeps. No bounding set is
    dropped (that takes CAP_SETPCAP, which the user namespace does not give); no_new_privs
    means none can be regained."""
    return [setpriv, "--inh-caps=-all", "--ambient-caps=-all", "--no-new-privs"]


def as_throwaway_user(setpriv: str, ids: tuple[int, int]) -> list[str]:
    """`setpriv` arguments that run the rest of a command as `ids`, with no groups, no
    capabilities and no way to gain privileges."""
    return [
        setpriv,
        f"--reuid={ids[0]}",
        f"--regid={ids[1]}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
    ]


# Where bubblewrap cannot make namespaces (Gradescope's Docker container) the Gradescope runner
# opts in to a weaker isolation, `ATTNBOOK_KERNEL_FALLBACK=setpriv`, after it has made every
# grader file unreadable to other users (grader/gradescope.py, `lock_down`): the kernel runs as
# the throwaway user id, without capabilities, in a folder of its own under /tmp, with the same
# rlimits; it shares the machine's file system, network and process table.
FALLBACK_ENV = "ATTNBOOK_KERNEL_FALLBACK"
FALLBACK_LAUNCHER = """set -e
work=$(mktemp -d /tmp/attnbook-student-XXXXXXXX)
cp -R ./. "$work"/ 2>/dev/null || true
chown -R "$1" "$work"
chmod 0700 "$work"
cd "$work"
path="$2"
shift 2
exec env HOME="$work" MPLCONFIGDIR="$work/.matplotlib" PYTHONPATH="$path" "$@"
"""


def fallback_command(kernel: list[str]) -> list[str]:
    """`kernel` started as the throwaway user id without bubblewrap (root and setpriv only)."""
    ids = throwaway_ids()
    setpriv = shutil.which("setpriv")
    if ids is None or setpriv is None:
        raise RuntimeError(
            f"{FALLBACK_ENV}=setpriv: expected root and setpriv to start the "
            f"kernel as a throwaway user, found uid {os.geteuid()} and setpriv "
            f"{'missing' if setpriv is None else 'present'}"
        )
    path = f"{GRADER_DIR.parent}:{Path(_package_root()).parent}"
    return [
        "/bin/sh",
        "-c",
        FALLBACK_LAUNCHER,
        "launcher",
        f"{ids[0]}:{ids[1]}",
        path,
        *as_throwaway_user(setpriv, ids),
        *kernel,
    ]


def kernel_env(limits: Limits, use_sandbox: bool) -> dict[str, str]:
    env = {
        "PATH": os.path.dirname(interpreter()) + ":/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "MPLBACKEND": "Agg",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "NBGRADER_EXECUTION": "autograde",
        "ATTNBOOK_OUTPUT_LIMIT": str(limits.output_chars),
        "MPLCONFIGDIR": "/tmp/mpl",
        "HOME": "/tmp/work",
    }
    if not use_sandbox:
        env["PYTHONPATH"] = str(GRADER_DIR.parent)
        env.pop("MPLCONFIGDIR")
        env["HOME"] = os.environ.get("HOME", "/tmp")
    return env


UID_BASE_ENV = "ATTNBOOK_SANDBOX_UID_BASE"
UID_SLOTS = 1000  # throwaway ids per grading run: two per worker process
# the grading worker's number in its pool (0, 1, ...), so that no two workers of a run share
# an id (the process id modulo the slots could: their kernels would share a process count
# and keyrings); a process outside a pool falls back on its process id
WORKER_ENV = "ATTNBOOK_GRADING_WORKER"


def uid_base() -> int:
    """The first throwaway id of this grading run: $ATTNBOOK_SANDBOX_UID_BASE, set once per
    run (`grader.cli` draws it at random) and inherited by its workers, so two runs on one
    machine use disjoint ids and can tell their sandboxes apart."""
    value = os.environ.get(UID_BASE_ENV, "")
    if value.isdigit() and 100_000 <= int(value) < 2**31 - UID_SLOTS:
        return int(value)
    return 200_000


def new_uid_base() -> int:
    """A random base for a new run, from 1000 disjoint blocks above 300000."""
    import secrets

    return 300_000 + UID_SLOTS * secrets.randbelow(1000)


def throwaway_ids(slot: int = 0) -> tuple[int, int] | None:
    """A user and group id owned by nobody, unique to this grading process (its number in the
    pool, `WORKER_ENV`) and `slot` (0 or 1: the kernel that runs and the one started ahead
    for the next notebook never share an id, so neither counts against the other's process
    limit); root only."""
    if slot not in (0, 1):
        raise ValueError(f"throwaway_ids: expected slot 0 or 1, got {slot!r}")
    if os.geteuid() != 0:
        return None
    worker = os.environ.get(WORKER_ENV, "")
    index = int(worker) if worker.isdigit() else os.getpid()
    uid = uid_base() + (index % (UID_SLOTS // 2)) * 2 + slot
    return uid, uid


FALLBACK_PROCESSES = 64  # a throwaway user's processes where no control group counts them


def limit_resources(
    limits: Limits,
    join=None,
    idle: bool = False,
    own_uid: bool = False,
    grouped: bool = False,
):
    """A preexec function that applies the kernel's rlimits in the child before exec; first
    `join` (`cgroups.Group.joiner`: the sandbox's control group). `grouped` (or `join`): the
    group's pids.max counts the sandbox's processes, and RLIMIT_NPROC, per user id, is only a
    backstop at twice that. `idle` (no control group on this machine): the process and all it
    starts run at SCHED_IDLE and nice 19, and with `own_uid` (a throwaway user id, so
    RLIMIT_NPROC counts the sandbox's processes only) at most `FALLBACK_PROCESSES`."""
    if idle and own_uid:
        processes = min(limits.processes, FALLBACK_PROCESSES)
    elif grouped or join is not None:
        processes = 2 * limits.processes
    else:
        processes = limits.processes

    def apply():
        if join is not None:
            join()
        if idle:
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
            os.setpriority(os.PRIO_PROCESS, 0, 19)
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_mb * MiB,) * 2)
        resource.setrlimit(resource.RLIMIT_NPROC, (processes,) * 2)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_mb * MiB,) * 2)
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 5))

    return apply


# -- the kernel zygote (root with bubblewrap) -------------------------------------------------
ZYGOTE_ENV = "ATTNBOOK_KERNEL_ZYGOTE"
MAX_GROUP_FDS = 4  # cgroup v1: cpu, cpuacct, memory and pids, each mounted on its own


def forks_kernels(use_sandbox: bool) -> bool:
    """Whether sandboxed kernels are forked from a `KernelZygote` (root with bubblewrap, the
    TA command's setting) rather than each started in a sandbox of its own (without root a
    process cannot give each kernel another user id; `ATTNBOOK_KERNEL_ZYGOTE=0` turns it off)."""
    return use_sandbox and os.geteuid() == 0 and os.environ.get(ZYGOTE_ENV, "1") != "0"


class KernelZygote:
    """The grader's side of `grader.zygote`: a sandbox, started once per grading process and
    set of limits, that has imported the kernel's modules and forks each notebook's kernel
    into new namespaces as a throwaway user. Each student's own files go into a subfolder of
    `folder` (shown read-only in the zygote's sandbox only) before the fork."""

    _running: dict[tuple, KernelZygote] = {}
    _made: set[KernelZygote] = set()  # not yet closed, one still starting too

    @classmethod
    def get(cls, limits: Limits) -> KernelZygote:
        key = dataclasses.astuple(limits)
        zygote = cls._running.get(key)
        if zygote is None or zygote.proc.poll() is not None:
            if zygote is not None:
                zygote.close()
            zygote = cls._running[key] = cls(limits)
        return zygote

    def __init__(self, limits: Limits):
        self.home = lifetime.run_folder("zygote")
        KernelZygote._made.add(self)
        self.folder = self.home / "own"
        self.folder.mkdir()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock = ours
        self.log = open(self.home / "zygote.log", "wb")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(
            zygote_command(self.folder, theirs.fileno()),
            env=kernel_env(limits, True),
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=self.log,
            start_new_session=True,
        )
        theirs.close()
        try:
            self._receive(120)
        except (OSError, RuntimeError, ValueError) as err:
            self.close()
            raise RuntimeError(f"the kernel zygote did not start: {err}") from None

    def _receive(self, timeout: float) -> dict:
        self.sock.settimeout(timeout)
        message = self.sock.recv(65536)
        if not message:
            raise RuntimeError(f"the kernel zygote ended; {self.log_tail()}")
        reply = json.loads(message)
        if not isinstance(reply, dict) or "error" in reply:
            raise RuntimeError(f"the kernel zygote refused: {reply}; {self.log_tail()}")
        return reply

    def _ask(self, message: dict, fds: tuple[int, ...] = (), timeout: float = 60) -> dict:
        self.sock.settimeout(timeout)
        socket.send_fds(self.sock, [json.dumps(message).encode()], list(fds))
        return self._receive(timeout)

    def fork(
        self,
        own: Path,
        ids: tuple[int, int],
        limits: Limits,
        fds: tuple[int, int],
        group: tuple[int, ...] = (),
        idle: bool = False,
    ) -> int:
        """Start a kernel on pipe descriptors `fds` with the files in `own` (a subfolder of
        `folder`); its init's process id in the zygote (for `kill` and `poll`). `group`:
        descriptors of its control group's `cgroup.procs` files (`cgroups.Group.open_procs`),
        which the init writes itself into before anything else; `idle`: no group, so the
        kernel runs at idle priority with fewer processes (`limit_resources`)."""
        if own.parent != self.folder:
            raise ValueError(f"fork: expected a folder in {self.folder}, got {own}")
        if len(group) > MAX_GROUP_FDS:
            raise ValueError(f"fork: expected at most {MAX_GROUP_FDS} group files, got {group}")
        request = {
            "op": "fork",
            "own": own.name,
            "uid": ids[0],
            "gid": ids[1],
            "limits": dataclasses.asdict(limits),
            "groups": len(group),
            "idle": idle,
        }
        return int(self._ask(request, (*fds, *group))["pid"])

    def kill(self, pid: int) -> int | None:
        """Kill that kernel's whole PID namespace and wait for it; its exit code."""
        return self._ask({"op": "kill", "pid": pid})["exit"]

    def poll(self, pid: int) -> int | None:
        return self._ask({"op": "poll", "pid": pid})["exit"]

    def log_tail(self) -> str:
        self.log.flush()
        return (self.home / "zygote.log").read_bytes()[-600:].decode(errors="replace")

    def close(self) -> None:
        """End the zygote and its kernels and remove its folder; also one stopped (by a
        signal, `grader.lifetime`) before its start was done."""
        KernelZygote._made.discard(self)
        proc = getattr(self, "proc", None)
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, 9)  # bubblewrap's namespace: every kernel in it too
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)
        for name in ("sock", "log"):
            with contextlib.suppress(AttributeError, OSError):
                getattr(self, name).close()
        shutil.rmtree(self.home, ignore_errors=True)
        for key, zygote in list(KernelZygote._running.items()):
            if zygote is self:
                del KernelZygote._running[key]


def close_zygotes() -> None:
    for zygote in list(KernelZygote._made):
        zygote.close()


atexit.register(close_zygotes)


class ForkedKernel:
    """A kernel forked by a `KernelZygote`, with the parts of `subprocess.Popen` the grader
    uses: `pid`, `poll()`, `kill()` (the kernel's whole namespace, waited for). Without a
    zygote: a kernel that could not be forked, ended from the start."""

    def __init__(self, zygote: KernelZygote | None, pid: int):
        self.zygote, self.pid = zygote, pid
        self.code: int | None = None if zygote is not None else -1

    def poll(self) -> int | None:
        if self.code is None and self.zygote is not None:
            try:
                self.code = self.zygote.poll(self.pid)
            except (OSError, RuntimeError, ValueError):
                self.code = -1  # the zygote is gone, and every kernel with it
        return self.code

    def kill(self) -> None:
        if self.code is None and self.zygote is not None:
            try:
                self.code = self.zygote.kill(self.pid)
            except (OSError, RuntimeError, ValueError):
                self.zygote.close()  # a zygote that cannot kill is ended with its kernels
                self.code = -1
