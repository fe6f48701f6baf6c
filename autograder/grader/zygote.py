"""The kernel zygote: runs inside the sandbox and forks one fresh kernel per notebook.

Starting a kernel in a new sandbox costs 3 to 4 s of CPU, nearly all of it imports (Python,
IPython, numpy, torch, pyplot, the check library). A grading process therefore starts one
bubblewrap sandbox that imports all of that once and then only forks; it runs no student code
and holds nothing a student may not see (it has the sandbox's view: no repository, no
reference, no gradebook). For each notebook (request `fork`, with the kernel's two pipe
descriptors passed over the control socket):

1. a child makes new mount, PID, IPC, network and UTS namespaces and forks the kernel's
   init, PID 1 of the new PID namespace, then exits (the zygote, a subreaper, adopts the init);
2. the init, still root inside the sandbox, mounts a fresh sized tmpfs on /tmp (the only
   place the kernel can write: bubblewrap's /dev/shm belongs to root) and a new /proc,
   copies that student's own files (from `/opt/submissions/<name>`, the grader's folder,
   read-only) into /tmp/work and hands them to the throwaway user, detaches
   `/opt/submissions` (so no other student's folder stays visible), applies the kernel's
   resource limits, and drops to the throwaway user id with no capabilities, no bounding
   set and no way to regain privileges (checked in /proc before going on), and installs
   the seccomp filter that refuses it the key system calls (`grader.keyrings`);
3. it forks the kernel (`grader.kernel.serve_forever`) and reaps orphans until the kernel
   exits; when it exits, every process left in that PID namespace dies with it.

So every notebook gets fresh namespaces, a fresh process that no earlier student touched and
an empty writable space, as with a new sandbox, without paying for the imports again. The
zygote's own control socket is closed in the child before anything else. Requests `kill`
(the whole PID namespace of a kernel, waited for) and `poll` act only on kernels this
zygote started and has not yet reaped, so a reused process id is never signalled.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import shutil
import signal
import socket
import sys
import traceback

from grader.keyrings import deny_keyrings

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP = 1, 4, 24
PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT = 36, 38, 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
CAP_VERSION_3 = 0x20080522
SUBMISSIONS = "/opt/submissions"  # the grader's folder of students' own files, read-only
WORK = "/tmp/work"
MAX_GROUP_FDS = 4  # as grader.sandbox.MAX_GROUP_FDS: a control group's cgroup.procs files

_libc = ctypes.CDLL(None, use_errno=True)


def _call(name: str, *args) -> None:
    if getattr(_libc, name)(*args) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{name}{args!r}: {os.strerror(errno)}")


def _mount(source: str, target: str, kind: str | None, flags: int, data: str | None) -> None:
    _call(
        "mount",
        source.encode(),
        target.encode(),
        None if kind is None else kind.encode(),
        ctypes.c_ulong(flags),
        None if data is None else data.encode(),
    )


def _prctl(option: int, arg: int = 0) -> None:
    _call("prctl", option, ctypes.c_ulong(arg), ctypes.c_ulong(0), ctypes.c_ulong(0), 0)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def drop_to(uid: int, gid: int) -> None:
    """Become `uid`:`gid` with no supplementary groups, no capabilities in any set (the
    bounding and ambient sets included) and no_new_privs; raise unless /proc confirms it."""
    if uid <= 0 or gid <= 0:
        raise ValueError(f"drop_to: expected throwaway ids above 0, got {uid}:{gid}")
    with open("/proc/sys/kernel/cap_last_cap") as f:
        last = int(f.read())
    _prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    for cap in range(last + 1):
        _prctl(PR_CAPBSET_DROP, cap)
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    header, data = _CapHeader(CAP_VERSION_3, 0), (_CapData * 2)()
    _call("capset", ctypes.byref(header), ctypes.byref(data))
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    _prctl(PR_SET_DUMPABLE, 1)  # as after an exec: the kernel may read its own /proc entries
    with open("/proc/self/status") as f:
        status = dict(line.split(":", 1) for line in f if ":" in line)
    ids = [str(uid)] * 4, [str(gid)] * 4
    if status["Uid"].split() != ids[0] or status["Gid"].split() != ids[1]:
        raise RuntimeError(f"drop_to: ids are {status['Uid'].split()} {status['Gid'].split()}")
    for field in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        if int(status[field], 16) != 0:
            raise RuntimeError(f"drop_to: {field} is {status[field].strip()}, expected 0")
    if status["NoNewPrivs"].strip() != "1" or status.get("Groups", "").strip():
        raise RuntimeError("drop_to: no_new_privs is not set or groups remain")


def _hand_over(folder: str, uid: int, gid: int) -> None:
    for parent, dirs, files in os.walk(folder):
        os.lchown(parent, uid, gid)
        for name in dirs + files:
            os.lchown(os.path.join(parent, name), uid, gid)


def _join(groups: list[int]) -> None:
    """Move this process (the kernel's init, before it starts anything) into the sandbox's
    control group: "0" written to each `cgroup.procs` the grader opened for it."""
    for fd in groups:
        os.write(fd, b"0")
        os.close(fd)


def _prepare(request: dict) -> None:
    """In the kernel's init, root in its new namespaces: its own /tmp and /proc,
    the student's files, then the limits and the throwaway user."""
    from grader.sandbox import Limits, limit_resources

    limits = Limits(**request["limits"])
    uid, gid = int(request["uid"]), int(request["gid"])
    _mount("none", "/", None, MS_REC | MS_PRIVATE, None)
    room = f"size={limits.tmp_mb}m,nr_inodes={limits.tmp_files},mode=1777"
    _mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, room)
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
    os.mkdir(WORK)
    name = str(request["own"])
    if name and "/" not in name and name not in (".", ".."):
        own = os.path.join(SUBMISSIONS, name)
        if os.path.isdir(own):
            try:  # a full /tmp keeps what fitted, as the launcher's copy does
                shutil.copytree(own, WORK, symlinks=True, dirs_exist_ok=True)
            except (OSError, shutil.Error):
                pass
    _hand_over(WORK, uid, gid)
    _call("umount2", SUBMISSIONS.encode(), MNT_DETACH)
    os.chdir(WORK)
    idle = bool(request.get("idle"))
    limit_resources(limits, idle=idle, own_uid=True, grouped=not idle)()
    drop_to(uid, gid)
    deny_keyrings()  # the kernel forked next inherits the filter


def _init(request: dict, fds: list[int]) -> None:
    """PID 1 of the kernel's namespace: prepare, fork the kernel, reap until it exits."""
    code = 71
    try:
        _join(fds[2:])
        fds = fds[:2]
        _prepare(request)
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        for name in os.listdir("/proc/self/fd"):  # nothing of the zygote's stays open
            if int(name) > 2 and int(name) not in fds:
                with contextlib.suppress(OSError):
                    os.close(int(name))
        kernel = os.fork()
        if kernel == 0:
            from grader import kernel as program

            sys.path.insert(0, os.getcwd())  # the student's own modules, as `python -m` does
            program.serve_forever(fds[0], fds[1], reseed=True)
            os._exit(0)
        for fd in fds:
            os.close(fd)
        while True:
            pid, status = os.wait()
            if pid == kernel:
                code = os.waitstatus_to_exitcode(status)
                break
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(code if 0 <= code < 256 else 1)


def _fork(request: dict, fds: list[int], control: socket.socket) -> int:
    """The new kernel's init, as a process id of this namespace (a child of this zygote)."""
    groups = request.get("groups", 0)
    if not isinstance(groups, int) or not 0 <= groups <= MAX_GROUP_FDS or len(fds) != 2 + groups:
        raise ValueError(
            f"fork: expected the kernel's 2 pipe descriptors and {groups!r} group files "
            f"(at most {MAX_GROUP_FDS}), got {len(fds)} descriptors"
        )
    report_r, report_w = os.pipe()
    child = os.fork()
    if child == 0:
        code = 70
        try:
            control.close()
            os.close(report_r)
            _call(
                "unshare", CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWUTS
            )
            init = os.fork()
            if init == 0:
                os.close(report_w)
                _init(request, fds)
            os.write(report_w, str(init).encode())
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code)
    os.close(report_w)
    os.waitpid(child, 0)
    with os.fdopen(report_r, "rb") as report:
        text = report.read(32)
    if not text.isdigit():
        raise RuntimeError("fork: the kernel's namespaces could not be made (see the log)")
    return int(text)


class Zygote:
    def __init__(self, control: socket.socket):
        self.control = control
        self.live: set[int] = set()  # inits started and not yet reaped
        self.ended: dict[int, int] = {}  # init -> exit code, reaped

    def reap(self) -> None:
        """Collect every child that has ended (inits, and anything else adopted), keeping
        the exit codes of inits: a reaped id is never signalled again."""
        while True:
            try:
                done, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if not done:
                return
            if done in self.live:
                self.live.discard(done)
                self.ended[done] = os.waitstatus_to_exitcode(status)

    def handle(self, request: dict, fds: list[int]) -> dict:
        op = request.get("op")
        if op == "fork":
            pid = _fork(request, fds, self.control)
            self.live.add(pid)
            return {"pid": pid}
        pid = int(request.get("pid", 0))
        if op == "poll":
            if pid in self.ended:
                return {"exit": self.ended[pid]}
            return {"exit": None if pid in self.live else -1}
        if op == "kill":
            if pid in self.live:
                os.kill(pid, signal.SIGKILL)  # PID 1 of its namespace: all of it dies
                _, status = os.waitpid(pid, 0)  # returns once the namespace is empty
                self.live.discard(pid)
                self.ended[pid] = os.waitstatus_to_exitcode(status)
            return {"exit": self.ended.get(pid, -1)}
        raise ValueError(f"unknown op {op!r}")

    def serve(self) -> None:
        while True:
            message, fds, _flags, _addr = socket.recv_fds(self.control, 65536, 2 + MAX_GROUP_FDS)
            if not message:  # the grader closed its end
                return
            try:
                self.reap()
                reply = self.handle(json.loads(message), list(fds))
            except Exception as err:  # the grader reads it as a kernel that did not start
                reply = {"error": f"{type(err).__name__}: {err}"[:2000]}
            finally:
                for fd in fds:
                    os.close(fd)
            self.control.send(json.dumps(reply).encode())
            if len(self.ended) > 10_000:
                self.ended.clear()


def main() -> None:
    control = socket.socket(fileno=int(sys.argv[1]))
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    from grader import kernel

    kernel.preload()
    control.send(json.dumps({"ready": True}).encode())
    Zygote(control).serve()


if __name__ == "__main__":
    main()
