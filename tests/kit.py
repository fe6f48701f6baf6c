"""The student kit as the tests see it: built once per test session by `scripts/build_kit.py`
(or taken from $ATTNBOOK_KIT_ZIP, a kit built by `make kit`), unzipped, installed offline by
its own `install.py` into a fresh virtual environment, and run there with nothing of this
checkout on the path. Used by tests/test_kit.py and tests/browser/test_kit_lab.py."""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
KIT_ZIP_ENV = "ATTNBOOK_KIT_ZIP"
INSTALL_TIMEOUT = 1200  # torch and JupyterLab from wheels, on two loaded cores
REGION = re.compile(
    r"^[ \t]*### BEGIN SOLUTION\n(.*?)^[ \t]*### END SOLUTION", re.DOTALL | re.MULTILINE
)
MIN_CHARS = 20  # shorter lines (`return Q, K, V`, `else:`) are not an answer on their own
COMMENT = re.compile(r"\s+#(\s.*)?$")  # a trailing comment: two spaces and # (PEP 8)


def code_of(line: str) -> str:
    """A solution line without its trailing comment: a copy that only says something else in
    its comment is the same line of code."""
    return COMMENT.sub("", line.strip()) if not line.lstrip().startswith("#") else line.strip()


@functools.cache
def build_kit_module():
    """scripts/build_kit.py as a module (its markers, asset list and scanners)."""
    spec = importlib.util.spec_from_file_location("build_kit", ROOT / "scripts" / "build_kit.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(out: Path) -> Path:
    """The kit's zip: $ATTNBOOK_KIT_ZIP if set, else built into `out` as `make kit` builds it
    (the release check is left to tests/test_release.py)."""
    given = os.environ.get(KIT_ZIP_ENV)
    if given:
        return Path(given).resolve()
    done = subprocess.run(
        [sys.executable, "scripts/build_kit.py", "--skip-release-check", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, f"build_kit.py failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    zips = sorted(out.glob("attnbook-kit-*.zip"))
    assert len(zips) == 1, f"expected one kit in {out}, found {zips}"
    return zips[0]


def unzip(archive: Path, into: Path) -> Path:
    """The zip extracted into `into`; returns its one top folder."""
    with zipfile.ZipFile(archive) as kit:
        tops = {name.split("/", 1)[0] for name in kit.namelist()}
        assert tops == {archive.stem}, f"{archive.name}: top folders {tops}, expected one"
        kit.extractall(into)
    return into / archive.stem


def _is_venv_bin(entry: str) -> bool:
    return bool(entry) and (Path(entry).parent / "pyvenv.cfg").is_file()


def clean_env(kit: Path, home: Path) -> dict[str, str]:
    """The environment of a student's shell in the kit's folder: no virtual environment of
    this checkout, no PYTHONPATH, no pip or Jupyter settings of this machine; the kit's
    .venv/bin first on PATH once installed."""
    dropped = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "CONDA_PREFIX", "NBGRADER_EXECUTION")
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in dropped and not k.startswith(("PIP_", "JUPYTER_", "ATTNBOOK_"))
    }
    path = [p for p in env.get("PATH", "").split(os.pathsep) if not _is_venv_bin(p)]
    env["PATH"] = os.pathsep.join([str(kit / ".venv" / "bin"), *path])
    env.update(
        HOME=str(home),
        JUPYTER_CONFIG_DIR=str(home / ".jupyter"),
        JUPYTER_DATA_DIR=str(home / ".local" / "share" / "jupyter"),
        IPYTHONDIR=str(home / ".ipython"),
        MPLCONFIGDIR=str(home / ".matplotlib"),
    )
    return env


@functools.cache
def can_unshare_network() -> bool:
    try:
        return (
            subprocess.run(["unshare", "--net", "true"], capture_output=True, timeout=30).returncode
            == 0
        )
    except (OSError, subprocess.TimeoutExpired):
        return False


def offline(command: list[str], env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """`command` without a network: in a new network namespace where that is allowed, else
    behind a proxy that refuses every connection."""
    if can_unshare_network():
        return ["unshare", "--net", *command], env
    dead = "http://127.0.0.1:9"
    return command, {
        **env,
        "http_proxy": dead,
        "https_proxy": dead,
        "HTTP_PROXY": dead,
        "HTTPS_PROXY": dead,
        "no_proxy": "",
        "NO_PROXY": "",
    }


def install(kit: Path, home: Path) -> subprocess.CompletedProcess:
    """`python3 install.py` in the kit's folder, offline, with the interpreter a student has
    (this one's base, not this checkout's virtual environment)."""
    python = getattr(sys, "_base_executable", sys.executable)
    command, env = offline([python, "install.py"], clean_env(kit, home))
    return subprocess.run(
        command, cwd=kit, env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT
    )


def kit_python(kit: Path) -> Path:
    return kit / ".venv" / "bin" / "python"


# -- answers ------------------------------------------------------------------------------------
def solution_lines(solutions: Path, names: list[str]) -> dict[str, str]:
    """line -> notebook, for every line of at least MIN_CHARS characters (and every concept
    answer) in a solution region that no solution notebook shows outside its regions; each
    line as its code, without a trailing comment (`code_of`)."""
    shown, lines = [], {}
    for name in names:
        for cell in nbformat.read(solutions / name / f"{name}.ipynb", as_version=4).cells:
            shown.append(REGION.sub("", cell.source))
            for body in REGION.findall(cell.source):
                for line in (code_of(raw) for raw in body.splitlines()):
                    if len(line) >= MIN_CHARS or line.startswith("answer_"):
                        lines.setdefault(line, name)
    visible = "\n".join(shown)
    return {line: name for line, name in lines.items() if line not in visible}


def found_in(tree: Path, lines: dict[str, str]) -> dict[str, list[str]]:
    """Line -> the files of the kit `tree` (wheel members included) that hold it."""
    found: dict[str, list[str]] = {}
    for name, text in build_kit_module().kit_texts(tree):
        for line in lines:
            if line in text:
                found.setdefault(line, []).append(name)
    return found
