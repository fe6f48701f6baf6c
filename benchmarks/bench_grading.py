"""How fast the TA grader grades: one submission, one and two workers, 10/20/40 students.

Every figure is wall time of `grader.course.grade_class` (intake, sandboxed kernel, tests
in the grader, nbgrader autograde and feedback, SQLite gradebook) on a fresh work folder:

1. median seconds to autograde one full submission (the solution of every notebook in
   solutions/, or those given with -a), over --repeat students, one worker;
2. class throughput on notebook 01 (the sample class, repeated to --class-size students)
   with one and with two worker processes (both started fresh, as a TA's run starts them),
   and their ratio (target: >= 1.7 on two cores);
3. grading time of 10, 20 and 40 submissions of notebook 01 with two workers.

    .venv/bin/python benchmarks/bench_grading.py [--quick] [--out benchmarks/results/grading.md]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

from _record import finish_record
from grader.course import Course, grade_class
from grader.sample import load_builder

ROOT = Path(__file__).resolve().parents[1]

NB01 = "01_attention_scores"


def _course(tag: str) -> Course:
    return Course(root=ROOT, work=Path(tempfile.mkdtemp(prefix=f"bench-{tag}-")), quiet=True)


def _class_folder(size: int) -> Path:
    build = load_builder()
    sample = build.sample_class(ROOT)
    names = sorted(sample)
    students = {
        f"s{i:03d}-{names[i % len(names)]}": {f"{NB01}.ipynb": sample[names[i % len(names)]][0]}
        for i in range(size)
    }
    return build.write_folder(Path(tempfile.mkdtemp(prefix="bench-in-")), students)


def _timed(course: Course, source: Path, assignments: list[str], workers: int) -> float:
    for assignment in assignments:
        course.ensure_assignment(assignment)  # nbgrader generate_assignment, not timed
    started = time.monotonic()
    outcomes = grade_class(course, source, assignments, workers=workers, pool=True)
    seconds = time.monotonic() - started
    failed = [o for o in outcomes if not o["ok"]]
    if failed:
        raise RuntimeError(
            f"grading {failed[0]['student']}/{failed[0]['assignment']} failed: {failed[0]['error']}"
        )
    return seconds


def full_submission(assignments: list[str], repeat: int) -> tuple[float, list[float]]:
    import nbformat

    build = load_builder()
    course = _course("full")
    for assignment in assignments:
        course.ensure_assignment(assignment)
    from grader.catalogue import solution_notebook

    times = []
    for number in range(repeat):
        folder = Path(tempfile.mkdtemp(prefix="bench-full-"))
        for assignment in assignments:
            nb = build.fill_in(course.release(assignment), solution_notebook(assignment))
            path = folder / f"student{number}" / f"{assignment}.ipynb"
            path.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, path)
        times.append(_timed(course, folder, assignments, workers=1))
    return statistics.median(times), times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-a", "--assignment", action="append")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--class-size", type=int, default=16)
    parser.add_argument("--no-full", action="store_true", help="skip the full-submission run")
    parser.add_argument("--sizes", default="10,20,40")
    parser.add_argument("--quick", action="store_true", help="notebook 01 only, small sizes")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    assignments = args.assignment or ([NB01] if args.quick else Course().assignments())
    sizes = [int(s) for s in ("4,8" if args.quick else args.sizes).split(",") if s]
    lines = [
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}; load average before: "
        f"{os.getloadavg()[0]:.1f}",
        "",
    ]

    if not args.no_full:
        median, times = full_submission(assignments, 1 if args.quick else args.repeat)
        lines.append(
            f"- one full submission ({len(assignments)} notebooks: "
            f"{', '.join(assignments)}), one worker: median {median:.1f} s "
            f"(runs: {', '.join(f'{t:.1f}' for t in times)})"
        )
        print(lines[-1], flush=True)
    _timed(_course("warm"), _class_folder(2), [NB01], workers=1)  # solution modes, caches

    folder = _class_folder(args.class_size)
    one = _timed(_course("w1"), folder, [NB01], workers=1)
    two = _timed(_course("w2"), folder, [NB01], workers=2)
    lines.append(
        f"- class of {args.class_size} on notebook 01: one worker {one:.1f} s "
        f"({60 * args.class_size / one:.1f} notebooks/min), two workers {two:.1f} s "
        f"({60 * args.class_size / two:.1f} notebooks/min): speed-up {one / two:.2f}x"
    )
    print(lines[-1], flush=True)

    for size in sizes:
        seconds = _timed(_course(f"n{size}"), _class_folder(size), [NB01], workers=2)
        lines.append(
            f"- {size} submissions of notebook 01, two workers: {seconds:.1f} s "
            f"({seconds / size:.2f} s per submission)"
        )
        print(lines[-1], flush=True)
    finish_record(lines, args.out)


if __name__ == "__main__":
    main()
