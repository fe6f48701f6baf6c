"""The course's private files, closed to the other accounts of a shared machine.

On a JupyterHub with nbgrader's exchange every student has a Unix account on the machine
the grader runs on. A checkout as cloned (folders 0755, files 0644) and a work folder made
under the default umask let any of them read the reference answers, the solutions, the
course's secret (grader/secret.py), `grades.csv`, the gradebook and a classmate's feedback.

What the grader does on every route:

- it runs with umask 077 (`private_umask`), so everything it writes is its own, and its work
  folder is made, or set, 0700 (`Course`);
- before `collect`, `grade` and `release-feedback` touch a submission, `enforce` looks at
  the reference answers, the solutions, the secret and the work folder. Where other
  accounts could read them it refuses, naming each path and the command that closes it
  (`chmod -R go-rwx PATH`), or, given `--lock`, closes them itself.

"Where other accounts could read them" is decided by `shared_reason`: always on the
exchange route (`collect`, `grade --from-exchange`, `release-feedback`), which exists to
give students accounts here; for `grade` when this machine holds the course's nbgrader
exchange folder (a hub) or `$ATTNBOOK_SHARED_MACHINE` is 1. A TA grading an LMS zip on a
laptop of their own is not stopped. A path counts as readable by others when every folder
above it can be passed through by group or other and it has a group or other permission
bit itself: a 0644 file in a 0700 folder is private.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

SHARED_ENV = "ATTNBOOK_SHARED_MACHINE"
OTHERS = 0o077  # group and other: read, write, execute (pass through)


def private_umask() -> int:
    """Make everything this process and its children write readable by its owner only."""
    return os.umask(0o077)


def _passable(folder: Path) -> bool:
    """Whether a user other than the owner may pass through `folder` (group or other x)."""
    try:
        return bool(folder.stat().st_mode & (stat.S_IXGRP | stat.S_IXOTH))
    except OSError:
        return False


def open_to_others(path: Path) -> bool:
    """Whether another account could reach `path` and read, list or change it."""
    path = Path(os.path.abspath(path))
    try:
        mode = path.lstat().st_mode
    except OSError:
        return False
    if not mode & OTHERS:
        return False
    return all(_passable(parent) for parent in path.parents)


def private_paths(course) -> list[tuple[str, Path]]:
    """(what, path) of everything of `course` that no student may read."""
    from attnbook.grading import SECRET_FILE

    autograder = Path(os.environ.get("ATTNBOOK_AUTOGRADER") or course.root / "autograder")
    return [
        ("the reference answers", autograder / "reference"),
        ("the course's secret", autograder / SECRET_FILE),
        ("the solutions", course.root / "solutions"),
        ("the work folder (gradebook, grades.csv, submissions, feedback)", course.work),
    ]


def exposed(course) -> list[tuple[str, Path]]:
    """The private paths of `course` that another account could read now."""
    return [(what, path) for what, path in private_paths(course) if open_to_others(path)]


def exchange_roots(course) -> list[Path]:
    """The exchange folders the course's configuration names (for a hub test)."""
    roots = {os.environ.get("ATTNBOOK_EXCHANGE") or "/usr/local/share/nbgrader/exchange"}
    try:
        config = course.config()
        if "root" in config.Exchange:
            roots.add(str(config.Exchange.root))
    except Exception:  # a configuration that does not load is reported by the command itself
        pass
    return [Path(r) for r in sorted(roots)]


def shared_reason(course, exchange_route: bool) -> str:
    """Why other accounts may be on this machine ("" when nothing says so)."""
    if exchange_route:
        return "nbgrader's exchange gives every student an account on this machine"
    if os.environ.get(SHARED_ENV) == "1":
        return f"${SHARED_ENV} is 1"
    for root in exchange_roots(course):
        if root.is_dir():
            return f"this machine holds nbgrader's exchange ({root}): students have accounts here"
    return ""


def lock(paths: list[Path]) -> None:
    """`chmod -R go-rwx` each path, following no link."""
    for top in paths:
        if top.is_symlink() or not top.exists():
            continue
        _close(top)
        if top.is_dir():
            for folder, dirs, files in os.walk(top):
                for name in [*dirs, *files]:
                    path = Path(folder) / name
                    if not path.is_symlink():
                        _close(path)


def _close(path: Path) -> None:
    mode = stat.S_IMODE(path.lstat().st_mode)
    if mode & OTHERS:
        os.chmod(path, mode & ~OTHERS, follow_symlinks=False)


class ExposedError(RuntimeError):
    """The course's private files are readable by other accounts on a shared machine."""


def enforce(course, exchange_route: bool, do_lock: bool) -> list[str]:
    """Refuse (ExposedError) when, on a shared machine, another account could read the
    course's private files; with `do_lock`, close them instead. Returns what was locked."""
    reason = shared_reason(course, exchange_route)
    if not reason:
        return []
    found = exposed(course)
    if not found:
        return []
    if do_lock:
        lock([path for _what, path in found])
        still = exposed(course)
        if not still:
            return [f"locked {what}: {path}" for what, path in found]
        found = still
    listing = "\n".join(f"  {what}: {path}" for what, path in found)
    paths = " ".join(f"'{path}'" for _what, path in found)
    raise ExposedError(
        f"other accounts on this machine could read the course's private files ({reason}):\n"
        f"{listing}\n"
        f"Close them with `chmod -R go-rwx {paths}` (as their owner), or run again with "
        "--lock to have the grader do it; students need none of them."
    )
