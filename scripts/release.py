"""Regenerate the student notebooks in notebooks/ from the instructor source in solutions/.

    python scripts/release.py            # normalise solutions/, regenerate notebooks/
    python scripts/release.py --check    # exit 1 if either tree is not what this would write
    python scripts/release.py --out DIR  # write the release somewhere else (used by tests)

The release runs nbgrader's own generate_assignment (solutions cut, hidden tests removed,
outputs cleared, checksums recorded) and then stores every notebook in one canonical form:
no outputs, no execution counts, only nbgrader metadata and tags, stable cell ids.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "solutions"
NOTEBOOKS = ROOT / "notebooks"
AUTOGRADER = ROOT / "autograder"
KEEP_CELL_METADATA = ("nbgrader", "tags", "deletable", "editable")
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def assignments() -> list[str]:
    """Every solutions/NN_topic folder holding NN_topic.ipynb, in order."""
    return sorted(p.parent.name for p in SOLUTIONS.glob("*/*.ipynb")
                  if p.stem == p.parent.name and ".ipynb_checkpoints" not in p.parts)


def canonical(nb: nbformat.NotebookNode) -> str:
    """The one stored form of a notebook, as text."""
    nb.metadata = nbformat.from_dict({
        "kernelspec": KERNELSPEC,
        "language_info": {"name": "python"},
    })
    nb.nbformat, nb.nbformat_minor = 4, 5
    for index, cell in enumerate(nb.cells):
        cell.metadata = nbformat.from_dict(
            {k: v for k, v in cell.metadata.items() if k in KEEP_CELL_METADATA})
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        cell["id"] = grade_id or f"cell-{index:03d}"
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    nbformat.validate(nb)
    text = nbformat.writes(nb, version=4)
    return text if text.endswith("\n") else text + "\n"


def normalise(path: Path, check: bool) -> bool:
    """Rewrite `path` in canonical form; with check, only report. True if it changed."""
    text = path.read_text()
    new = canonical(nbformat.reads(text, as_version=4))
    if new == text:
        return False
    if not check:
        path.write_text(new)
    return True


def generate(out: Path) -> None:
    """Run nbgrader generate_assignment for every assignment into `out`."""
    for assignment in assignments():
        subprocess.run(
            [sys.executable, "-m", "nbgrader", "generate_assignment", assignment, "--force",
             "--no-db", f"--CourseDirectory.release_directory={out}", "--log-level=WARN"],
            cwd=AUTOGRADER, check=True,
        )
    for path in out.glob("*/*.ipynb"):
        normalise(path, check=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 if solutions/ or notebooks/ is stale")
    parser.add_argument("--out", type=Path, default=None,
                        help="write the release here instead of notebooks/")
    args = parser.parse_args(argv)

    stale = [p for p in sorted(SOLUTIONS.glob("*/*.ipynb")) if normalise(p, args.check)]
    if args.check and stale:
        print("solutions not in canonical form (run `make release`):",
              *[str(p.relative_to(ROOT)) for p in stale], sep="\n  ")
        return 1
    target = args.out or NOTEBOOKS
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "release"
        generate(fresh)
        if args.check:
            differ = _differences(fresh, NOTEBOOKS)
            if differ:
                print("notebooks/ is stale (run `make release`):", *differ, sep="\n  ")
                return 1
            print(f"notebooks/ is up to date ({len(assignments())} notebooks).")
            return 0
        _sync(fresh, target)
    print(f"released {len(assignments())} notebooks into {target}")
    return 0


def _sync(fresh: Path, target: Path) -> None:
    """Make `target` equal to `fresh`, writing only what changed, one file at a time, so a
    notebook open or running in notebooks/ is never deleted from under it."""
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(fresh.rglob("*")):
        dest = target / path.relative_to(fresh)
        if path.is_dir():
            dest.mkdir(exist_ok=True)
        elif not dest.is_file() or dest.read_bytes() != path.read_bytes():
            tmp = dest.with_name(dest.name + ".tmp")
            shutil.copyfile(path, tmp)
            tmp.replace(dest)
    for path in sorted(target.rglob("*"), reverse=True):
        if ".ipynb_checkpoints" in path.parts:
            continue
        if not (fresh / path.relative_to(target)).exists():
            shutil.rmtree(path) if path.is_dir() else path.unlink()


def _differences(fresh: Path, stored: Path) -> list[str]:
    names = {p.relative_to(fresh) for p in fresh.rglob("*") if p.is_file()}
    names |= {p.relative_to(stored) for p in stored.rglob("*") if p.is_file()
              and ".ipynb_checkpoints" not in p.parts}
    return sorted(str(n) for n in names
                  if not (fresh / n).is_file() or not (stored / n).is_file()
                  or (fresh / n).read_bytes() != (stored / n).read_bytes())


if __name__ == "__main__":
    sys.exit(main())
