"""How long the test suite takes: `pytest` (what `make test` runs) timed, with its ten slowest
setups and its ten slowest calls, the load average before and after, and the command.

    python benchmarks/bench_tests.py                       # the whole suite (`make test`)
    python benchmarks/bench_tests.py --workers 1           # on one process (PYTEST_WORKERS=1)
    python benchmarks/bench_tests.py -- -m "not slow and not browser"   # pytest's own arguments
    python benchmarks/bench_tests.py --record              # and appends it to results/tests.md

Prints a ready-to-paste Markdown record. The figure means something only on a quiet machine:
the load average before and after says how busy it was (two cores: above 2, the suite shared
them). Runs with `-p no:cacheprovider`, so pytest's cache neither reorders nor skips tests.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shlex
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "tests.md"
DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s (setup|call|teardown)\s+(\S.*?)\s*$")
SUMMARY = re.compile(
    r"^=*\s*(\d+ (?:passed|failed|skipped|error|deselected)\b.*\bin [\d.]+s.*?)\s*=*$"
)
TOP = 10
HEADER = """# Test-suite wall time

`python benchmarks/bench_tests.py` (see its docstring): the wall time of the suite, and its ten
slowest setups and calls (pytest's `--durations`; a session fixture's setup is charged to the
first test that uses it). Two cores; the load averages say how busy the machine was.
"""


def parse(output: str) -> dict:
    """pytest's output -> {"setup": [(seconds, test)], "call": [...], "summary": str}."""
    found: dict = {"setup": [], "call": [], "teardown": [], "summary": ""}
    for line in output.splitlines():
        match = DURATION.match(line)
        if match:
            found[match[2]].append((float(match[1]), match[3]))
            continue
        match = SUMMARY.match(line.strip())
        if match:
            found["summary"] = match[1]
    for phase in ("setup", "call", "teardown"):
        found[phase].sort(key=lambda entry: -entry[0])
    return found


def worker_args(workers: int) -> list[str]:
    """pytest-xdist's options for `workers` processes, as the Makefile's PYTEST_WORKER_ARGS."""
    return (
        []
        if workers <= 1
        else ["-n", str(workers), "--dist", "loadscope", "--no-loadscope-reorder"]
    )


def measure(pytest_args: list[str], workers: int = 2) -> dict:
    command = [
        sys.executable,
        "-m",
        "pytest",
        *worker_args(workers),
        *pytest_args,
        "--durations=0",
        "--durations-min=1.0",
        "-p",
        "no:cacheprovider",
        "-q",
    ]
    before = os.getloadavg()
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    after = os.getloadavg()
    return {
        "command": " ".join(["python", *(shlex.quote(a) for a in command[1:])]),
        "returncode": done.returncode,
        "seconds": seconds,
        "load_before": before,
        "load_after": after,
        "workers": workers,
        **parse(done.stdout),
        "tail": done.stdout[-2000:] + done.stderr[-2000:],
    }


def markdown(result: dict) -> str:
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M")
    load = "{:.1f} / {:.1f} / {:.1f}"
    lines = [
        f"## {when} UTC: {result['seconds']:.0f} s ({result['seconds'] / 60:.1f} min)",
        "",
        f"- command: `{result['command']}` (from the repository root)",
        f"- result: {result['summary'] or 'no summary line'} (exit {result['returncode']})",
        f"- workers: {result['workers']} pytest process(es)",
        f"- machine: {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.machine()}",
        f"- load average (1, 5, 15 min) before: {load.format(*result['load_before'])}; "
        f"after: {load.format(*result['load_after'])}",
        "",
    ]
    for phase in ("setup", "call"):
        lines += [f"| slowest {phase}s (s) | test |", "|---:|---|"]
        lines += [f"| {s:.1f} | `{name}` |" for s, name in result[phase][:TOP]]
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help=f"append the record to {RESULTS}")
    parser.add_argument(
        "--workers", type=int, default=2, help="pytest processes, as make test's PYTEST_WORKERS"
    )
    parser.add_argument("pytest_args", nargs="*", help="pytest's arguments, after `--`")
    args = parser.parse_args(argv)
    result = measure(args.pytest_args, args.workers)
    record = markdown(result)
    print(record)
    if result["returncode"] not in (0, 5):
        print(f"pytest exited {result['returncode']}:\n{result['tail']}", file=sys.stderr)
    if args.record:
        text = RESULTS.read_text() if RESULTS.is_file() else HEADER
        RESULTS.write_text(text.rstrip("\n") + "\n\n" + record)
        print(f"appended to {RESULTS.relative_to(ROOT)}")
    return 0 if result["returncode"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
