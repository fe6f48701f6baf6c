"""Throwaway Unix accounts, and this environment's Python run as them.

Tests of nbgrader's exchange need real students (the exchange tells them apart by owner),
and the Gradescope fallback runs student code as an unprivileged user id. The interpreter of
the test environment may live where other users cannot enter (the shared environment's
Python is under /root, mode 0700), while on a JupyterHub or in Gradescope's image it is in a
system path. `in_view` therefore runs a command in a private mount namespace (bubblewrap, as
root) where each such folder is replaced by an empty one that holds only the interpreter,
read-only; the rest of the machine is the same, and nothing on it changes.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

VENV_BIN = Path(sys.executable).parent
AUTOGRADER = Path(__file__).resolve().parents[1] / "autograder"


def accounts_skip_reason() -> str:
    """Why throwaway accounts cannot be made here ("" when they can)."""
    if os.geteuid() != 0:
        return "needs root: the test makes throwaway Unix accounts"
    missing = [t for t in ("useradd", "userdel", "setpriv", "bwrap") if not shutil.which(t)]
    return f"needs {', '.join(missing)}" if missing else ""


def _closed_ancestors() -> list[tuple[Path, Path]]:
    """(folder others cannot enter, interpreter folder inside it) for this Python."""
    found = []
    roots = {Path(os.path.realpath(p)) for p in (sys.base_prefix, sys.prefix)}
    for root in sorted(roots):
        for folder in [*reversed(root.parents), root]:
            if not os.stat(folder).st_mode & 0o001:
                found.append((folder, root))
                break
    return found


def view_prefix() -> list[str]:
    """bubblewrap arguments that show the machine as it is, except that folders hiding the
    interpreter hold only the interpreter (empty when nothing hides it)."""
    hidden = _closed_ancestors()
    if not hidden:
        return []
    args, made = [shutil.which("bwrap"), "--dev-bind", "/", "/"], set()
    for closed, root in hidden:
        if closed not in made:
            args += ["--tmpfs", str(closed)]
            made.add(closed)
        for parent in reversed(root.relative_to(closed).parents[:-1]):
            path = closed / parent
            if path not in made:
                args += ["--perms", "0755", "--dir", str(path)]
                made.add(path)
        args += ["--ro-bind", str(root), str(root)]
    return [*args, "--"]


class Account:
    """A throwaway user with a home of their own; `remove()` deletes both."""

    def __init__(self, name: str, home: Path):
        self.name, self.home = name, home
        subprocess.run(
            [
                "useradd",
                "--create-home",
                "--home-dir",
                str(home),
                "--shell",
                "/bin/bash",
                "--user-group",
                name,
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
        entry = pwd.getpwnam(name)
        self.uid, self.gid = entry.pw_uid, entry.pw_gid

    def own(self, path: Path) -> None:
        """Give `path` (and all under it) to this user, as a file they made."""
        for item in [path, *(path.rglob("*") if path.is_dir() else [])]:
            os.chown(item, self.uid, self.gid, follow_symlinks=False)

    def env(self, **extra: str) -> dict[str, str]:
        return {
            "HOME": str(self.home),
            "USER": self.name,
            "LOGNAME": self.name,
            "PATH": f"{VENV_BIN}:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            **extra,
        }

    def argv(self, *command: str) -> list[str]:
        """`command` as this user, with the interpreter visible."""
        drop = [
            shutil.which("setpriv"),
            f"--reuid={self.uid}",
            f"--regid={self.gid}",
            "--init-groups",
            "--",
        ]
        return [*view_prefix(), *drop, *command]

    def run(
        self, *command: str, env: dict | None = None, check: bool = True, timeout: float = 300
    ) -> subprocess.CompletedProcess:
        result = subprocess.run(
            self.argv(*command),
            cwd=self.home,
            env=env or self.env(),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if check:
            assert result.returncode == 0, (
                f"{self.name}: {command}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
            )
        return result

    def remove(self) -> None:
        subprocess.run(["userdel", "--remove", self.name], capture_output=True, timeout=60)


def release_assignment(notebook: str, exchange: Path) -> None:
    """The instructor's `nbgrader release_assignment notebook` into the local exchange
    folder `exchange`, as the course's configuration in autograder/ runs it."""
    subprocess.run(
        [str(VENV_BIN / "nbgrader"), "release_assignment", notebook],
        cwd=AUTOGRADER,
        env={**os.environ, "ATTNBOOK_EXCHANGE": str(exchange)},
        check=True,
        capture_output=True,
        timeout=300,
    )
