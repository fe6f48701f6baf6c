"""The grader's processes end with the run that started them.

A grading process cleans up at exit (`atexit`): its kernels, its kernel zygote and fork
server, their folders in /tmp (`attnbook-zygote-*`, `attnbook-kernel-*`) and its control
groups. A stop signal (SIGTERM, SIGHUP: `kill`, a closed terminal, a cluster's time limit)
would end it without that, so `stop_on_signals` makes each of them run the same cleanup and
then exit. A worker of `grade --workers N` also ends with the run: Linux sends it SIGTERM
when its parent ends, even by SIGKILL (`die_with_parent`, PR_SET_PDEATHSIG; elsewhere a
thread watches `os.getppid()`); it ignores Ctrl-C, which the run handles by stopping its
workers itself (one line, no worker tracebacks).

Only SIGKILL (the out-of-memory killer, `kill -9`) ends a process before any cleanup: its
folders are named with its process id (`run_folder`), and the next run removes those whose
process is gone (`sweep_left_folders`).
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import multiprocessing
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
PR_SET_PDEATHSIG = 1  # linux/prctl.h
CLEANUP_S = 30  # a cleanup that takes longer is cut short (SIGALRM's default: the end)
WATCH_S = 1.0  # how often a worker without PR_SET_PDEATHSIG looks for its parent


_LEFT = re.compile(r"attnbook-(?:kernel|zygote|probe)-(\d+)-")


def run_folder(kind: str) -> Path:
    """A new folder of this process's in the temporary folder, for a `kind` of sandbox
    (kernel, zygote, probe): its name holds the process id (`sweep_left_folders`)."""
    return Path(tempfile.mkdtemp(prefix=f"attnbook-{kind}-{os.getpid()}-"))


def sweep_left_folders(root: Path | None = None) -> int:
    """Remove the `run_folder`s of this user's processes that are gone: a run killed with
    SIGKILL left them. Returns how many were removed; a live process's folders stay."""
    removed = 0
    for folder in Path(root or tempfile.gettempdir()).glob("attnbook-*"):
        match = _LEFT.match(folder.name)
        try:
            if not match or folder.lstat().st_uid != os.getuid() or folder.is_symlink():
                continue
            os.kill(int(match[1]), 0)
            continue  # alive (or reused by another process: its folders wait)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
            removed += not folder.exists()
        except OSError:
            continue  # another user's process, or the folder went meanwhile
    return removed


def stop_workers(timeout: float = 10.0) -> None:
    """Send SIGTERM to this process's multiprocessing children (a pool's workers: each cleans
    up as `stop` does) and wait for them, at most `timeout` seconds in all (then SIGKILL)."""
    children = multiprocessing.active_children()
    for child in children:
        with contextlib.suppress(OSError):
            child.terminate()
    end = time.monotonic() + timeout
    for child in children:
        child.join(max(0.0, end - time.monotonic()))
        if child.is_alive():
            with contextlib.suppress(OSError):
                child.kill()
            child.join(1)


def stop(signum: int, frame=None) -> None:
    """A stop signal's handler: the workers stopped, this process's exit cleanup run
    (`atexit`), then the exit a process killed by `signum` reports to a shell (128 + it)."""
    for each in (*STOP_SIGNALS, signal.SIGINT):
        with contextlib.suppress(ValueError, OSError):
            signal.signal(each, signal.SIG_IGN)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.alarm(CLEANUP_S)  # a cleanup stuck on a lock the interrupted code holds
    try:
        stop_workers()
        atexit._run_exitfuncs()  # noqa: SLF001 - the cleanup a normal exit would run
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(128 + signum)


def stop_on_signals() -> dict[int, object]:
    """Make SIGTERM and SIGHUP run `stop` in this process (the main thread only); the
    handlers they had, for `restore`. A signal set to be ignored stays ignored: a run
    started with `nohup` goes on when the terminal closes."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    kept = [each for each in STOP_SIGNALS if signal.getsignal(each) is not signal.SIG_IGN]
    return {each: signal.signal(each, stop) for each in kept}


def restore(previous: dict[int, object]) -> None:
    for each, handler in previous.items():
        signal.signal(each, handler)  # type: ignore[arg-type]


@contextlib.contextmanager
def noting_interrupts():
    """A block in which Ctrl-C raises KeyboardInterrupt as usual and is also noted
    (`seen`): code that takes any exception for a failure (nbgrader's autograde records it
    as the notebook's) cannot hide it from the caller."""
    noted = threading.Event()

    def note(signum, frame):
        noted.set()
        signal.default_int_handler(signum, frame)

    if threading.current_thread() is not threading.main_thread():
        yield noted
        return
    previous = signal.signal(signal.SIGINT, note)
    try:
        yield noted
    finally:
        signal.signal(signal.SIGINT, previous)


def die_with_parent(parent: int) -> None:
    """In a worker (a pool's initializer): SIGTERM, handled by `stop`, when `parent` ends;
    Ctrl-C ignored (the parent stops its workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    stop_on_signals()
    if not _parent_death_signal(signal.SIGTERM):
        threading.Thread(target=_watch, args=(parent,), name="watch-parent", daemon=True).start()
    if os.getppid() != parent:  # it ended before the signal was asked for
        stop(signal.SIGTERM)


def _parent_death_signal(signum: int) -> bool:
    """Ask Linux to send `signum` to this process when its parent ends; whether it will."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signum), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_S)
    os.kill(os.getpid(), signal.SIGTERM)  # `stop` runs in the main thread
