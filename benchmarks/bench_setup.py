"""How long the README's first `make lab` / `make test` spends installing: `make setup` in a
fresh copy of this working tree, into a new virtual environment.

    python benchmarks/bench_setup.py                    # prints one Markdown row
    python benchmarks/bench_setup.py --record           # and appends it to results/setup.md
    python benchmarks/bench_setup.py --load 2 --record  # with 2 busy processes beside it

pip installs as this machine's pip is configured (`pip config list` is recorded with the
figure): the wheels on local disk where it finds them, the package index for the rest, and
its cache. The load average before and after says how busy the machine was; ``--load N``
adds N processes that spin on a core each, for a loaded figure on purpose.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "setup.md"
HEADER = (
    "| date (UTC) | python | cores | extra busy processes | load before | load after "
    "| make setup (s) | pip sources |\n|---|---|---:|---:|---:|---:|---:|---|\n"
)


def _copy_tree(dest: Path) -> None:
    """The working tree's tracked and new (not ignored) files, as a fresh clone has them."""
    listed = (
        subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard", "-z"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)


def _spin(until: float) -> None:
    while time.time() < until:
        pass


def _wheel_bytes(tree: Path, *requirements: str) -> tuple[int, int]:
    """(bytes, files) of the wheels pip resolves for `requirements` in `tree`'s .venv, as if
    nothing were installed: the download of a machine that has none of them. pip resolves
    them (a dry run), then fetches exactly those versions into a scratch folder (from its
    cache, a local wheel house or the index, as configured), and the files are weighed."""
    python = str(tree / ".venv" / "bin" / "python")
    done = subprocess.run(
        [python, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
         "--report", "-", *requirements],
        cwd=tree, capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0:
        sys.exit(f"pip's dry run failed:\n{done.stderr}")
    pins = [
        f"{item['metadata']['name']}=={item['metadata']['version']}"
        for item in json.loads(done.stdout)["install"]
        if not item["download_info"].get("dir_info")  # the workbook's own folders
    ]
    with tempfile.TemporaryDirectory(prefix="attnbook-wheels-") as scratch:
        fetched = subprocess.run(
            [python, "-m", "pip", "download", "--no-deps", "--quiet", "-d", scratch, *pins],
            cwd=tree, capture_output=True, text=True,
        )  # fmt: skip
        if fetched.returncode != 0:
            sys.exit(f"pip download failed:\n{fetched.stderr}")
        files = list(Path(scratch).iterdir())
        return sum(f.stat().st_size for f in files), len(files)


def _size(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file() and not f.is_symlink())


def measure_routes(python: str) -> dict:
    """`make setup` (a learner's) and then `make dev-setup` (tests, TA, instructor) in a fresh
    copy: each one's time, the .venv's size after it, and the wheels each downloads."""
    with tempfile.TemporaryDirectory(prefix="attnbook-setup-") as tmp:
        tree = Path(tmp)
        _copy_tree(tree)
        load_before = os.getloadavg()[0]
        out: dict = {"date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M"), "cores": os.cpu_count()}
        for target in ("setup", "dev-setup"):
            began = time.perf_counter()
            done = subprocess.run(["make", target, f"PYTHON={python}"], cwd=tree,
                                  capture_output=True, text=True)  # fmt: skip
            out[target] = time.perf_counter() - began
            if done.returncode != 0:
                sys.exit(f"make {target} failed:\n{done.stdout}\n{done.stderr}")
            out[f"{target} venv"] = _size(tree / ".venv")
            out[f"{target} log"] = done.stdout + done.stderr
        learner = _wheel_bytes(tree, "torch==2.13.0", "-e", ".[lab]")
        everything = _wheel_bytes(
            tree, "torch==2.13.0", "-e", ".[lab,dev,hf]", "-e", "./autograder"
        )
        out |= {"learner wheels": learner, "all wheels": everything}
        out["load"] = (load_before, os.getloadavg()[0])
    return out


def measure(python: str, busy: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="attnbook-setup-") as tmp:
        tree = Path(tmp)
        _copy_tree(tree)
        spinners = [multiprocessing.Process(target=_spin, args=(time.time() + 3600,))
                    for _ in range(busy)]  # fmt: skip
        for p in spinners:
            p.start()
        load_before = os.getloadavg()[0]
        began = time.perf_counter()
        done = subprocess.run(["make", "setup", f"PYTHON={python}"], cwd=tree,
                              capture_output=True, text=True)  # fmt: skip
        seconds = time.perf_counter() - began
        load_after = os.getloadavg()[0]
        for p in spinners:
            p.terminate()
        if done.returncode != 0:
            sys.exit(f"make setup failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    sources = subprocess.run([python, "-m", "pip", "config", "list"], capture_output=True,
                             text=True).stdout.splitlines()  # fmt: skip
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M"),
        "python": platform.python_version(),
        "cores": os.cpu_count(),
        "busy": busy,
        "load_before": load_before,
        "load_after": load_after,
        "seconds": seconds,
        "sources": "; ".join(
            s.split(".", 1)[-1] for s in sources if "index" in s or "find-links" in s
        )
        or "PyPI",
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--python", default="python3", help="the interpreter make setup uses")
    parser.add_argument("--load", type=int, default=0, help="busy processes to add beside it")
    parser.add_argument("--record", action="store_true", help=f"append to {RESULTS}")
    parser.add_argument("--routes", action="store_true",
                        help="time the learner's make setup and then make dev-setup, with the "
                        ".venv's size and the wheels' bytes after each")  # fmt: skip
    args = parser.parse_args(argv)
    if args.routes:
        r = measure_routes(args.python)
        mb = 1e6
        print(
            f"| {r['date']} | {r['cores']} | {r['load'][0]:.1f} / {r['load'][1]:.1f} "
            f"| {r['setup']:.0f} | {r['setup venv'] / mb:.0f} | {r['learner wheels'][0] / mb:.0f}"
            f" ({r['learner wheels'][1]} wheels) | {r['dev-setup']:.0f} "
            f"| {r['dev-setup venv'] / mb:.0f} | {r['all wheels'][0] / mb:.0f} "
            f"({r['all wheels'][1]} wheels) |"
        )
        torch_line = [x for x in r["setup log"].splitlines() if x.startswith("PyTorch (")]
        print(torch_line[0] if torch_line else "(no PyTorch line in make setup's output)")
        return
    r = measure(args.python, args.load)
    row = (f"| {r['date']} | {r['python']} | {r['cores']} | {r['busy']} | "
           f"{r['load_before']:.1f} | {r['load_after']:.1f} | {r['seconds']:.0f} "
           f"| {r['sources']} |")  # fmt: skip
    print(row)
    if args.record:
        if not RESULTS.exists():
            RESULTS.write_text("# Set-up time: `make setup` in a fresh copy\n\n" + HEADER)
        RESULTS.write_text(with_row(RESULTS.read_text(), row))


def with_row(text: str, row: str) -> str:
    """``text`` with ``row`` after the table's last row (the prose below the table stays
    below it)."""
    lines = text.splitlines(keepends=True)
    last = max((i for i, line in enumerate(lines) if line.startswith("|")), default=len(lines) - 1)
    return "".join(lines[: last + 1] + [row + "\n"] + lines[last + 1 :])


if __name__ == "__main__":
    main()
