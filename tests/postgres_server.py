"""A throwaway local PostgreSQL for the tests of a shared gradebook.

initdb in a temporary folder as the `postgres` user, a random loopback port, trust
authentication, stopped (immediate mode) and removed afterwards. `tests/conftest.py` offers
it as the module-scoped `postgres_url` fixture; a test module that needs more databases
creates them with `fresh_database`.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path


def pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


def skip_reason() -> str:
    """Why a throwaway server cannot run here ("" when it can)."""
    if pg_bin() is None:
        return "PostgreSQL is not installed: run autograder/install_system_deps.sh"
    if os.geteuid() != 0 or shutil.which("runuser") is None:
        return "starting a throwaway PostgreSQL needs root (to run it as the postgres user)"
    try:
        import pwd

        pwd.getpwnam("postgres")
    except KeyError:
        return "no postgres system user"
    try:
        import psycopg2  # noqa: F401
    except ImportError:
        return "psycopg2 is not installed (pip install psycopg2-binary)"
    return ""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def as_postgres(*args, timeout=120) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["runuser", "-u", "postgres", "--", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
    )


@contextlib.contextmanager
def throwaway_server(database: str = "gradebook") -> Iterator[str]:
    """Start a server holding one empty database; yield its SQLAlchemy URL."""
    bin_dir = pg_bin()
    folder = Path(tempfile.mkdtemp(prefix="attnbook-pg-"))
    shutil.chown(folder, "postgres", "postgres")
    data, port = folder / "data", free_port()
    as_postgres(bin_dir / "initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync")
    as_postgres(
        bin_dir / "pg_ctl",
        "-D",
        data,
        "-l",
        folder / "server.log",
        "-w",
        "-t",
        "60",
        "-o",
        f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off",
        "start",
    )
    try:
        as_postgres(bin_dir / "createdb", "-h", "127.0.0.1", "-p", port, "-U", "postgres", database)
        yield f"postgresql+psycopg2://postgres@127.0.0.1:{port}/{database}"
    finally:
        subprocess.run(
            [
                "runuser",
                "-u",
                "postgres",
                "--",
                str(bin_dir / "pg_ctl"),
                "-D",
                str(data),
                "-m",
                "immediate",
                "-w",
                "-t",
                "60",
                "stop",
            ],
            capture_output=True,
            timeout=120,
        )
        shutil.rmtree(folder, ignore_errors=True)


def fresh_database(postgres_url: str, name: str) -> str:
    """Another empty database on the server of `postgres_url`; its URL."""
    port = postgres_url.rsplit(":", 1)[1].split("/")[0]
    as_postgres(pg_bin() / "createdb", "-h", "127.0.0.1", "-p", port, "-U", "postgres", name)
    return postgres_url.rsplit("/", 1)[0] + f"/{name}"
