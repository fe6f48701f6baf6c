"""What a sandbox's control group costs (`grader.cgroups`): microseconds to make a group with
its limits and remove it, empty, and with one process that joined it and ended; and to read
its CPU time (what the grader does every 50 ms while a kernel runs a cell). Each kernel and
each test process gets one group, so these are the grader's overhead per notebook and per
test. Measured in isolation: it needs no quiet machine, though a loaded one reads higher.

    .venv/bin/python benchmarks/bench_cgroups.py [--repeat 200]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "autograder"))

from grader import cgroups  # noqa: E402


def _micro(samples: list[float]) -> str:
    p90 = sorted(samples)[len(samples) * 9 // 10]
    return f"median {statistics.median(samples) * 1e6:.0f} us, p90 {p90 * 1e6:.0f} us"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    found = cgroups.backend()
    print(cgroups.describe())
    if not found.kind:
        return
    print(f"hierarchies: {len(found.folders)}")
    empty, read, joined = [], [], []
    for _ in range(args.repeat):
        started = time.perf_counter()
        group = cgroups.Group(4096, 256)
        made = time.perf_counter()
        group.cpu_seconds()
        got = time.perf_counter()
        group.close()
        empty.append(time.perf_counter() - started)
        read.append(got - made)
    for _ in range(max(args.repeat // 10, 5)):
        group = cgroups.Group(4096, 256)
        subprocess.run(["true"], preexec_fn=group.joiner(), check=True)
        started = time.perf_counter()
        group.close()
        joined.append(time.perf_counter() - started)
    print(f"make and remove an empty group: {_micro(empty)}")
    print(f"read its CPU time: {_micro(read)}")
    print(f"remove a group a process joined and left: {_micro(joined)}")


if __name__ == "__main__":
    main()
