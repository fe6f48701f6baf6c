"""Run one notebook's checks and print a score card: what a learner runs before submitting.

    python scripts/check_notebook.py 01                 # notebooks/01_*/01_*.ipynb
    python scripts/check_notebook.py path/to/mine.ipynb

Unlike `nbgrader validate`, it exits non-zero when a test fails, and it names each test,
its points and the first line of its failure message.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]


def find(arg: str) -> Path:
    path = Path(arg)
    if path.suffix == ".ipynb":
        if not path.is_file():
            raise SystemExit(f"no notebook at {path}")
        return path
    matches = sorted((ROOT / "notebooks").glob(f"{arg}*/*.ipynb"))
    if len(matches) != 1:
        names = [p.parent.name for p in sorted((ROOT / "notebooks").glob("*/*.ipynb"))]
        raise SystemExit(f"NB={arg!r} should name one notebook; choose from {names}")
    return matches[0]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        raise SystemExit("usage: check_notebook.py NN | path/to/notebook.ipynb")
    path = find(argv[0])
    nb = nbformat.read(path, as_version=4)
    os.environ.setdefault("MPLBACKEND", "Agg")
    NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    earned = total = 0.0
    failed = 0
    print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if not (meta.get("grade") and not meta.get("solution")):
            continue
        points = float(meta.get("points", 0))
        total += points
        errors = [o for o in cell.outputs if o.get("output_type") == "error"]
        if errors:
            failed += 1
            first = (errors[0]["evalue"].splitlines() or [""])[0]
            print(f"  \u2717 {meta['grade_id']:32s} 0/{points:g}  {errors[0]['ename']}: {first}")
        else:
            earned += points
            print(f"  \u2713 {meta['grade_id']:32s} {points:g}/{points:g}")
    print(f"visible checks: {earned:g}/{total:g} points"
          " (the autograder also runs hidden tests on random inputs)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
