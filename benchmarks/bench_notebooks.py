"""How long each solution notebook takes top to bottom, as it runs when graded.

The notebook standard asks for 60 s on two CPU cores (the training notebook excepted, with a
small budget while graded). Run times depend on the machine and its load, so they are
measured here and recorded, not asserted in a test:

    .venv/bin/python benchmarks/bench_notebooks.py [-a 01_attention_scores ...] [--out FILE]

Each notebook runs in a fresh kernel in its own folder, kernel start included, with
`NBGRADER_EXECUTION=autograde` (what nbgrader sets), like `tests/test_notebooks.py`.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import nbformat
from _record import finish_record
from grader.course import assignments

ROOT = Path(__file__).resolve().parents[1]
BUDGET = 60.0


def run_seconds(name: str) -> float:
    from nbclient import NotebookClient

    path = ROOT / "solutions" / name / f"{name}.ipynb"
    nb = nbformat.read(path, as_version=4)
    saved = dict(os.environ)
    os.environ.update(NBGRADER_EXECUTION="autograde", MPLBACKEND="Agg")
    started = time.perf_counter()
    try:
        NotebookClient(
            nb,
            timeout=900,
            kernel_name="python3",
            resources={"metadata": {"path": str(path.parent)}},
        ).execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-a", "--assignment", action="append")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    names = args.assignment or assignments(ROOT)
    lines = [
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}; load average before {os.getloadavg()[0]:.1f}",
        "",
        "| notebook | seconds | within 60 s |",
        "|---|---|---|",
    ]
    for name in names:
        seconds = run_seconds(name)
        lines.append(f"| {name} | {seconds:.1f} | {'yes' if seconds <= BUDGET else 'no'} |")
        print(lines[-1], flush=True)
    finish_record(lines, args.out)


if __name__ == "__main__":
    main()
