"""How long the class report takes for a class of 200 on one notebook (target: under 10 s).

The report reads only what grading stored, so the class is made by grading the sample class
once (`python -m grader sample`: six students) and copying what grading stored for them
into 200 students: gradebook rows with their scores (nbgrader's API), run reports and
autograded notebooks. Then `grader.classreport.write_report` is timed, SQLite gradebook
read included. Nothing is executed again.

    .venv/bin/python benchmarks/bench_report.py [--students 200] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from grader.classreport import write_report
from grader.course import Course

ROOT = Path(__file__).resolve().parents[1]
NB = "01_attention_scores"


def graded_sample(out: Path) -> Course:
    done = subprocess.run(
        [sys.executable, "-m", "grader", "sample", "--out", str(out), "--workers", "2"],
        cwd=ROOT / "autograder",
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "autograder")},
    )
    if done.returncode != 0:
        sys.exit(f"the sample class did not grade:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return Course(root=ROOT, work=out / "work", quiet=True)


def grow(course: Course, size: int) -> None:
    """The graded students copied into `size` students, in the gradebook and on disk."""
    from nbgrader.api import Gradebook

    with Gradebook(course.db_url) as gb:
        sample = [s.student.id for s in gb.find_assignment(NB).submissions]
        for i in range(size - len(sample)):
            source, new = sample[i % len(sample)], f"9{i:04d}"
            gb.add_student(new, first_name=f"student {new}")
            gb.add_submission(NB, new)
            old = gb.find_submission(NB, source)
            mine = gb.find_submission(NB, new)
            for notebook, theirs in zip(mine.notebooks, old.notebooks):
                scores = {g.name: g.auto_score for g in theirs.grades}
                for grade in notebook.grades:
                    grade.auto_score = scores.get(grade.name)
            gb.db.commit()
            for folder in ("reports", "autograded"):
                parts = (NB, source) if folder == "reports" else (source, NB)
                target = (NB, new) if folder == "reports" else (new, NB)
                shutil.copytree(
                    course.work.joinpath(folder, *parts), course.work.joinpath(folder, *target)
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    out = Path(tempfile.mkdtemp(prefix="bench-report-"))
    course = graded_sample(out)
    grow(course, args.students)
    times = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        page = write_report(course, NB)
        times.append(time.perf_counter() - started)
    rows = (page.with_suffix(".csv")).read_text(encoding="utf-8")
    counted = next(line for line in rows.splitlines() if line.startswith("notebook,"))
    print(f"class report of {args.students} students on {NB}: {counted}")
    print(
        f"seconds: median {statistics.median(times):.2f} (runs: "
        + ", ".join(f"{t:.2f}" for t in times)
        + f"); target under 10 s; machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"
    )
    shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
