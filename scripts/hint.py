"""Help with one exercise, one level at a time: what a learner alone runs when stuck.

    python scripts/hint.py 01 score_matrix            # the next level for this exercise
    python scripts/hint.py --level 2 01 score_matrix  # a given level (1, 2 or 3)
    python scripts/hint.py 01                         # the notebook's exercises and levels

(`make hint NB=01 EX=score_matrix`, with LEVEL=2 for a given level.) Three levels, each
written once, beside the solution in solutions/:

1. what the check says about your code: your notebook, as last saved, runs as `make check`
   runs it, and this exercise's check prints its verdict and hint;
2. the key idea: the `# Key idea:` lines at the top of the solution in the solution cell;
3. the solution: that exercise's solution cell alone.

Each call moves one level on (kept in WORK/.hints.json), so asking again gives more help;
a passing check stays at level 1 unless a level is asked for. Concept questions have no
levels: `make check ANSWERS=1` grades them with their reasons. This needs a clone of the
workbook (the student kit has no solutions).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_notebook import FAIL, PASS, _failure, find, run  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LEVELS = ("what the check says", "the key idea", "the solution")
KEY_IDEA = "# Key idea:"
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"


def solution_notebook(name: str) -> nbformat.NotebookNode:
    path = ROOT / "solutions" / name / f"{name}.ipynb"
    if not path.is_file():
        raise SystemExit(
            f"no solution notebook for {name} at {path.relative_to(ROOT)}: hints need a clone "
            "of the workbook (the student kit has no solutions)"
        )
    return nbformat.read(path, as_version=4)


def exercises(nb: nbformat.NotebookNode) -> dict[str, nbformat.NotebookNode]:
    """The graded code exercises of a solution notebook: grade id -> solution cell (concept
    questions, `answer_*`, are not exercises)."""
    out = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        grade_id = meta.get("grade_id", "")
        if meta.get("solution") and cell.cell_type == "code" and not grade_id.startswith("answer_"):
            out[grade_id] = cell
    return out


def key_idea(cell) -> str:
    """The `# Key idea:` comment at the top of the cell's first solution, as prose."""
    lines = cell.source.split("\n")
    start = next((i for i, line in enumerate(lines) if line.strip().startswith(KEY_IDEA)), None)
    if start is None:
        return ""
    words = [lines[start].strip()[len(KEY_IDEA) :].strip()]
    for line in lines[start + 1 :]:
        text = line.strip()
        if not text.startswith("#") or text.startswith(("###", KEY_IDEA)):
            break
        words.append(text.lstrip("#").strip())
    return " ".join(words)


def solution_text(cell) -> str:
    """The solution cell as the learner would write it: the markers and the key idea gone."""
    out, skipping = [], False
    for line in cell.source.split("\n"):
        text = line.strip()
        if text in (BEGIN, END):
            skipping = False
            continue
        if text.startswith(KEY_IDEA):
            skipping = True
            continue
        if skipping and text.startswith("#") and not text.startswith("###"):
            continue
        skipping = False
        out.append(line)
    return "\n".join(out).strip("\n")


def check_says(path: Path, exercise: str) -> tuple[bool, str]:
    """(passed?, what the check of `exercise` says) on the learner's notebook as saved; when
    the run stopped (the kernel died, a cell ran past the time limit, an unreadable file),
    that first, then what the check said if it ran."""
    nb, stopped = run(path)
    if stopped:
        said = check_says_in(nb, path, exercise)[1] if nb is not None else ""
        return False, "\n".join(filter(None, [f"{FAIL} the run stopped: {stopped}", said]))
    return check_says_in(nb, path, exercise)


def check_says_in(nb, path: Path, exercise: str) -> tuple[bool, str]:
    """(passed?, what the check of `exercise` says) in the run notebook `nb`."""
    test_id = f"test_{exercise}"
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == test_id:
            failure = _failure(cell)
            if failure is None:
                return True, f"{PASS} {exercise} passes its checks."
            first, helpful = failure
            return False, "\n".join(filter(None, [f"\u2717 {exercise}: {first}", helpful]))
    return False, f"{path.name} has no test cell {test_id!r}: is it the workbook's notebook?"


def _state_path(work: Path) -> Path:
    return work / ".hints.json"


def _load(work: Path) -> dict:
    try:
        return json.loads(_state_path(work).read_text())
    except (OSError, ValueError):
        return {}


def _save(work: Path, state: dict) -> None:
    work.mkdir(parents=True, exist_ok=True)
    _state_path(work).write_text(json.dumps(state, indent=1, sort_keys=True) + "\n")


def listing(name: str, found: dict, state: dict) -> str:
    lines = [f"{name}: exercises (make hint NB={name[:2]} EX=<name>), help given so far"]
    for exercise in found:
        level = state.get(name, {}).get(exercise, 0)
        lines.append(f"  {exercise:<30} level {level} of {len(LEVELS)}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    work, level = ROOT / "work", None
    while argv and argv[0] in ("--work", "--level"):
        if len(argv) < 2:
            raise SystemExit(f"{argv[0]} needs a value")
        if argv[0] == "--work":
            work = Path(argv[1]).absolute()
        else:
            if argv[1] not in ("1", "2", "3"):
                raise SystemExit(f"--level (LEVEL) should be 1, 2 or 3; got {argv[1]!r}")
            level = int(argv[1])
        argv = argv[2:]
    if len(argv) not in (1, 2):
        raise SystemExit("usage: hint.py [--work DIR] [--level 1|2|3] NN [EXERCISE]")
    path = find(argv[0], work)
    name = path.stem
    found = exercises(solution_notebook(name))
    state = _load(work)
    if len(argv) == 1:
        print(listing(name, found, state))
        return 0
    exercise = argv[1]
    if exercise not in found:
        if re.fullmatch(r"answer_\w+", exercise):
            raise SystemExit(
                f"{exercise} is a concept question: make check NB={argv[0]} ANSWERS=1 says "
                "whether your answer is right, and why"
            )
        raise SystemExit(f"EX={exercise!r} is not an exercise of {name}; choose from {list(found)}")
    cell = found[exercise]
    given = state.get(name, {}).get(exercise, 0)
    wanted = level if level is not None else min(given + 1, len(LEVELS))
    print(f"{exercise}, level {wanted} of {len(LEVELS)}: {LEVELS[wanted - 1]}")
    if wanted == 1:
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        print(f"(running {shown} as last saved: save it in JupyterLab first)")
        passed, said = check_says(path, exercise)
        print(said)
        if said.startswith(f"{FAIL} the run stopped"):
            return 1  # no level of help used up: fix the notebook, then ask again
        if passed and level is None:
            print("Nothing to help with; LEVEL=2 or 3 still shows the key idea or the solution.")
            return 0
    elif wanted == 2:
        print(key_idea(cell) or "(this exercise has no key idea written; LEVEL=3 shows the cell)")
    else:
        print(solution_text(cell))
    state.setdefault(name, {})[exercise] = max(given, wanted)
    _save(work, state)
    if wanted < len(LEVELS):
        print(f"\nMore help: make hint NB={argv[0]} EX={exercise} (level {wanted + 1}).")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
