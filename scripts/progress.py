"""Where a learner stands across the workbook: one line per notebook (`make progress`).

    python scripts/progress.py [--work DIR] [--answers]

For each notebook: its functions whose visible checks pass, its concept questions answered
(with `--answers`, in a clone: right and wrong, graded against the keys), and the time left by
the notebook's own estimate (its "**Time.** About N minutes" line), in proportion to what is
not done yet. A notebook with no copy in work/, or whose answer cells are still the
release's, is "not started" and is not run; the others run as `make check` runs them
(scripts/check_notebook.py), one after the other, with a line as each finishes. A notebook
that cannot run to the end (unreadable, a kernel that died, a cell past the time limit) gets
its line and what stopped it, the others go on, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_notebook import (  # noqa: E402
    FAIL,
    ROOT,
    NotebookStopped,
    _failure,
    _graded_now,
    _is_concept,
    borrowed_calls,
    chosen,
    read_notebook,
    reference_answers,
    run,
)

TIME = re.compile(r"\*\*Time\.\*\*\s+About\s+(\d+)\s+minutes")


def minutes(nb: nbformat.NotebookNode) -> int:
    """The notebook's own time estimate, from its first cell that states one."""
    for cell in nb.cells:
        found = TIME.search(cell.source) if cell.cell_type == "markdown" else None
        if found:
            return int(found[1])
    return 0


def _answer_cells(nb: nbformat.NotebookNode) -> list[str]:
    return [
        c.source
        for c in nb.cells
        if c.cell_type == "code" and c.get("metadata", {}).get("nbgrader", {}).get("solution")
    ]


def _items(nb: nbformat.NotebookNode) -> list[tuple[str, bool]]:
    """(grade_id, is a concept question) of every graded test cell, in order."""
    found = []
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution"):
            found.append((meta["grade_id"], _is_concept(cell, meta["grade_id"])))
    return found


def standing(release: Path, mine: Path | None, answers: bool) -> dict:
    """One notebook's line: functions passed, questions answered (right), time left."""
    released = nbformat.read(release, as_version=4)
    items = _items(released)
    functions = sum(not concept for _, concept in items)
    questions = len(items) - functions
    total = minutes(released)
    line = {"notebook": release.stem, "functions": 0, "of_functions": functions}
    line |= {"questions": 0, "right": None, "of_questions": questions, "minutes": total}
    if mine is None:
        return line | {"started": False, "left": total}
    try:
        if _answer_cells(read_notebook(mine)) == _answer_cells(released):
            return line | {"started": False, "left": total}
    except NotebookStopped as unreadable:
        return line | {"started": True, "left": total, "stopped": str(unreadable)}
    keys = reference_answers(release.stem) if answers else None
    nb, stopped = run(mine, answers=keys is not None)
    if nb is None:
        return line | {"started": True, "left": total, "stopped": stopped}
    line["stopped"] = stopped
    given = chosen(nb) if keys is not None else {}
    borrowed = borrowed_calls(nb, release.stem)  # the autograder gives these tests 0
    right = 0
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.cell_type != "code" or not meta.get("grade") or meta.get("solution"):
            continue
        passed = _failure(cell) is None and meta["grade_id"] not in borrowed
        if not _is_concept(cell, meta["grade_id"]):
            line["functions"] += passed
            continue
        line["questions"] += passed
        name = meta["grade_id"].removeprefix("test_")
        if passed and keys is not None and name in keys:
            right += _graded_now(name, 0, given.get(name), keys[name])[0]
    if keys is not None:
        line["right"] = right
    done = line["functions"] + (right if keys is not None else line["questions"])
    left = total * (1 - done / max(len(items), 1))
    left_min = int(5 * round(left / 5))
    return line | {"started": True, "left": left_min, "complete": done == len(items)}


def _shown(line: dict) -> str:
    if line.get("stopped"):
        return _counts(line) + f"\n  {FAIL} {line['stopped']}"
    return _counts(line)


def _counts(line: dict) -> str:
    if not line["started"]:
        return f"{line['notebook']:24s} not started{'':22s}{line['left']:4d} min"
    questions = f"{line['questions']}/{line['of_questions']} answered"
    if line["right"] is not None:
        questions += f", {line['right']} right"
    functions = f"{line['functions']}/{line['of_functions']} passed"
    return f"{line['notebook']:24s} {functions:12s} {questions:21s}{line['left']:4d} min"


def _hours(total: int) -> str:
    return f"{total // 60} h {total % 60:02d} min"


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="progress.py",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    parser.add_argument("--work", type=Path, default=ROOT / "work",
                        help="your notebooks' folder (default: work/, which `make lab` "
                        "makes; make progress WORK=DIR for another)")  # fmt: skip
    parser.add_argument("--answers", action="store_true",
                        help="grade the concept answers against the keys (in a clone)")  # fmt: skip
    args = parser.parse_args(argv)
    if not args.work.is_dir():
        why = "is a file" if args.work.exists() else "does not exist"
        parser.error(
            f"argument --work: expected the folder of your notebooks, got {str(args.work)!r}, "
            f"which {why}; `make lab` copies the notebooks into work/ (`make lab WORK=DIR` "
            "into another folder: give the same WORK to make progress)"
        )
    return args


def main(argv: list[str]) -> int:
    args = _arguments(argv)
    answers, work = args.answers, args.work
    releases = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*/[0-9][0-9]_*.ipynb"))
    releases = [r for r in releases if r.parent.name == r.stem]
    print(f"{'notebook':24s} {'functions':12s} {'questions':21s}time left")
    lines = []
    for release in releases:
        copy = work / release.parent.name / release.name
        lines.append(standing(release, copy if copy.is_file() else None, answers))
        print(_shown(lines[-1]), flush=True)
    done = sum(1 for x in lines if x.get("complete"))
    left, total = sum(x["left"] for x in lines), sum(x["minutes"] for x in lines)
    print(
        f"{done} of {len(lines)} notebooks complete; about {_hours(left)} left of "
        f"{_hours(total)} (the notebooks' own estimates)"
    )
    stopped = [x["notebook"] for x in lines if x.get("stopped")]
    if stopped:
        print(f"{FAIL} could not run to the end: {', '.join(stopped)} (see its line above)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
