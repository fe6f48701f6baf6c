"""A pre-warmed fork server: a fresh trusted process for every test, for the price of a fork.

`python -m grader.forkserver FD` imports numpy, torch and the check library once (no torch
operation runs, so no thread pool exists yet and forking is safe), then waits on the Unix
socket FD. Each request is a test job (JSON) with three descriptors: the student kernel's
request and reply pipes and a pipe for the result. The server forks; the child runs the
job (`grader.testprocess.test_process`) and exits; the server answers with the child's pid, so
the grader can kill it at its deadline. Nothing survives from one test to the next: each
child starts from the server's clean state, and the server never runs a test itself.

The server exits when the grader closes its end of the socket (the grader ended or died).

Why not the standard library's `multiprocessing` forkserver (`set_forkserver_preload`)? It
was considered (issue 28) and this one kept, because: its server is one per interpreter and
its preload list is global to `multiprocessing`, shared with any other user in the grader's
process; each child runs `multiprocessing`'s bootstrap, which unpickles the target from the
parent and prepares the parent's `__main__` (the grader's command line or pytest), so the
trusted child would import the caller's main module for every test; and failures of the
preload are swallowed, where here a failed start is an error the grader reports. Here a job
is JSON and three descriptors, the child joins the test's control group before any test
code runs, and the server's only import of grader code is `grader.testprocess` (which does
not import `grader.execute` back). A switch would have to pass tests/test_ta_boundary.py
and match this server's time per test; that comparison has not been made.
"""

from __future__ import annotations

import array
import atexit
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading

PRELOAD = (
    "numpy",
    "torch",
    "torch._dynamo",  # the first optimizer a process builds imports it: 2 s, once here
    "matplotlib",
    "attnbook.checks",
    "attnbook.notebook",
    "grader.remote",
    "grader.testprocess",
    "grader.borrowed",
)
MAX_JOB = 64 * 1024 * 1024
MAX_FDS = 3 + 4  # the kernel's two pipes, the result pipe, a control group's cgroup.procs
STARTUP_S = 300.0  # importing torch on a loaded machine


def _recv_job(sock: socket.socket) -> tuple[dict, list[int]] | None:
    size = int.from_bytes(_recv_exact(sock, 8) or b"\0" * 8, "big")
    if size == 0:
        return None
    fds = array.array("i")
    data, ancillary, _, _ = sock.recvmsg(
        min(size, 1 << 20), socket.CMSG_SPACE(MAX_FDS * fds.itemsize)
    )
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
    while len(data) < size:
        chunk = sock.recv(min(size - len(data), 1 << 20))
        if not chunk:
            return None
        data += chunk
    return json.loads(data), list(fds)


def _recv_exact(sock: socket.socket, n: int) -> bytes | None:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def serve(fd: int) -> None:
    import logging

    # Ctrl-C reaches the terminal's whole process group, this server too, even while it
    # imports: the grading process that started it handles it (`grader.lifetime`), and this
    # server and its tests end when that one closes the socket
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in PRELOAD:
        with contextlib.suppress(ImportError):
            __import__(name)
    with contextlib.suppress(ImportError):
        from grader.borrowed import warm

        warm()  # the package modules its rules name, imported once
    logging.getLogger().handlers[:] = []
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    sock = socket.socket(fileno=fd)
    from grader.testprocess import test_process

    try:
        sock.sendall(b"ready\0\0\0")  # the imports are done: tests start at fork speed
    except OSError:  # the grading process ended while this one started
        os._exit(0)

    while True:
        try:
            received = _recv_job(sock)
        except OSError:  # the grading process ended (Ctrl-C): no traceback on the TA's screen
            received = None
        if received is None:
            os._exit(0)
        job, fds = received
        pid = os.fork()
        if pid == 0:
            sock.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            code = 0
            try:
                for group_fd in fds[3:]:  # the test's control group (grader.cgroups): join it
                    os.write(group_fd, b"0")
                    os.close(group_fd)
                test_process(job, *fds[:3])
            except BaseException:  # noqa: BLE001 - the grader reads the missing result
                code = 1
            os._exit(code)
        for received_fd in fds:
            os.close(received_fd)
        sock.sendall(pid.to_bytes(8, "big"))


class ForkServer:
    """The grader's side: starts the server once per process, sends it jobs."""

    _instance: ForkServer | None = None
    _lock = threading.Lock()

    def __init__(self):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env = dict(
            os.environ,
            PYTHONPATH=os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH", "")) if p),
            OMP_NUM_THREADS="1",
            MKL_NUM_THREADS="1",
        )
        self.proc = subprocess.Popen(
            [sys.executable, "-s", "-B", "-m", "grader.forkserver", str(theirs.fileno())],
            pass_fds=(theirs.fileno(),),
            env=env,
            stdin=subprocess.DEVNULL,
        )
        theirs.close()
        self.sock = ours
        atexit.register(self.close)
        ours.settimeout(STARTUP_S)
        try:
            ready = _recv_exact(ours, 8)
        except TimeoutError:
            ready = None
        ours.settimeout(None)
        if ready != b"ready\0\0\0":
            self.close()
            raise RuntimeError("the grader's fork server did not start")

    @classmethod
    def get(cls) -> ForkServer:
        with cls._lock:
            if cls._instance is None or cls._instance.proc.poll() is not None:
                cls._instance = cls()
            return cls._instance

    def start(self, job: dict, fds: list[int]) -> int:
        """Fork a child that runs `job` with `fds`; its pid."""
        data = json.dumps(job).encode("utf-8", errors="surrogatepass")
        if len(data) > MAX_JOB:
            raise ValueError(f"a test job of {len(data)} bytes exceeds {MAX_JOB}")
        with self._lock:
            self.sock.sendall(len(data).to_bytes(8, "big"))
            first, rest = data[: 1 << 20], data[1 << 20 :]
            self.sock.sendmsg(
                [first], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))]
            )
            if rest:
                self.sock.sendall(rest)
            reply = _recv_exact(self.sock, 8)
        if reply is None:
            raise RuntimeError("the grader's fork server stopped")
        return int.from_bytes(reply, "big")

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        if self.proc.poll() is None:
            self.proc.kill()


if __name__ == "__main__":
    serve(int(sys.argv[1]))
