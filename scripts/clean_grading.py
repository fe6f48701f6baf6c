"""Delete the TA's grading data, all of it together, and only after a yes.

    python3 scripts/clean_grading.py            # list it, ask y/N (make clean-grading)
    python3 scripts/clean_grading.py --force    # no question (make clean-grading FORCE=1)
    python3 scripts/clean_grading.py --work DIR # the grader's --work folder, not autograder/

The gradebook, the students' submissions, the manual grades in it, the feedback, grades.csv,
intake.json and the files filled for the LMS (lms/: the class's names and e-mails in
people.csv, the import files and the feedback zips) are one state: deleting part of it
leaves the rest out of step (a grades.csv naming submissions that are gone). This deletes
every part, after listing it. Without a terminal to ask on and without --force it refuses
and deletes nothing. Only the standard library: it runs after `make clean` removed .venv.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AUTOGRADER = ROOT / "autograder"
# Everything `python -m grader` and nbgrader write into the work folder (all git-ignored).
GRADING = (
    "gradebook.db",
    "submitted",
    "autograded",
    "feedback",
    "downloaded",
    "exports",
    "collected",
    "release",
    "state",
    "reports",
    "grades.csv",
    "intake.json",
    "lms",  # python -m grader lms: people.csv/.json, the LMS import files and feedback zips
)


def grading_data(work: Path) -> list[Path]:
    """The grading data present in `work`, with intake.json's kept-aside copies and
    nbgrader's SQLite journal files."""
    found = [work / name for name in GRADING if (work / name).exists()]
    found += sorted(work.glob("intake.json.unreadable-*"))
    found += sorted(work.glob("gradebook.db-*"))  # -journal, -wal, -shm
    return found


def _size(path: Path) -> str:
    if path.is_dir():
        files = [p for p in path.rglob("*") if p.is_file()]
        return f"{len(files)} file{'s' if len(files) != 1 else ''}"
    return f"{path.stat().st_size} bytes"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="delete without asking")
    parser.add_argument(
        "--work", type=Path, default=AUTOGRADER, help="the grading folder (default: autograder/)"
    )
    args = parser.parse_args(argv)
    found = grading_data(args.work)
    if not found:
        print(f"no grading data in {args.work}; nothing to delete")
        return 0
    print(f"grading data in {args.work} (manual grades are in the gradebook):")
    for path in found:
        print(f"  {path.name}{'/' if path.is_dir() else ''}  ({_size(path)})")
    if not args.force:
        if not sys.stdin.isatty():
            print(
                "clean-grading: refusing to delete: no terminal to ask on; run "
                "`make clean-grading FORCE=1` (or --force) to delete without asking",
                file=sys.stderr,
            )
            return 1
        try:
            answer = input("Delete all of it? This cannot be undone. [y/N] ")
        except EOFError:
            answer = ""
        if answer.strip().lower() not in ("y", "yes"):
            print("nothing deleted")
            return 1
    for path in found:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    print(f"deleted {len(found)} item(s) from {args.work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
