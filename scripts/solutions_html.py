"""Executed HTML copies of the solution notebooks, to see the expected figures and outputs
without running anything yourself (`make solutions-html`, or `NB=01` for one).

    python scripts/solutions_html.py            # every notebook in solutions/
    python scripts/solutions_html.py 01 07      # notebooks 01 and 07 (a number or a full name)

Each solutions/NN_topic/NN_topic.ipynb runs top to bottom in a fresh kernel, in its folder,
on the budgets the autograder uses (NBGRADER_EXECUTION, so notebook 07 trains for seconds,
not minutes), and is written as build/solutions-html/NN_topic.html, figures inside. build/
is ignored by git: the copies are made on demand, never committed. The hidden tests are left
out of the run (they need the grader's reference answers, which a learner's `make setup`
does not install, and they show nothing); the visible checks run. A notebook that stops
with an error is still written, with the error where it stopped, and the command exits 1.
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from nbconvert import HTMLExporter

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_notebook import find  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "build" / "solutions-html"
SOLUTIONS = ROOT / "solutions"


def notebooks(names: list[str]) -> list[Path]:
    """The solution notebooks ``names`` name (all when none), each resolved as `make check`
    resolves NB (scripts/check_notebook.py: 01 or 01_attention_scores; NB=1, which would
    be 10 and 11 at once, is refused with the notebooks to choose from)."""
    found = sorted(SOLUTIONS.glob("[0-9][0-9]_*/[0-9][0-9]_*.ipynb"))
    if not names:
        return [p for p in found if p.parent.name == p.stem]
    chosen = []
    for name in names:
        folder = find(name, work=SOLUTIONS).parent.name  # the released one, or its solution
        solution = SOLUTIONS / folder / f"{folder}.ipynb"
        if not solution.is_file():
            raise SystemExit(f"NB={name!r}: no solution notebook at {solution}")
        chosen += [solution] if solution not in chosen else []
    return chosen


HIDDEN = re.compile(
    r"^[ \t]*### BEGIN HIDDEN TESTS\n.*?^[ \t]*### END HIDDEN TESTS[ \t]*\n?", re.M | re.S
)


def without_hidden_tests(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """`nb` with each test cell's hidden part cut, as the release cuts it: the hidden tests
    read the reference answers, which only the grader has (a learner's `make setup` does
    not), and they show nothing the page is for."""
    for cell in nb.cells:
        if cell.cell_type == "code" and "### BEGIN HIDDEN TESTS" in cell.source:
            cell.source = HIDDEN.sub("", cell.source).rstrip("\n")
    return nb


def build(path: Path, out: Path = OUT) -> tuple[Path, bool]:
    """Run one solution notebook, its hidden tests left out, and write its HTML; (the page,
    whether it ran through)."""
    nb = without_hidden_tests(nbformat.read(path, as_version=4))
    # the kernel's own inline backend draws the figures into the outputs (Agg would drop them)
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    env["NBGRADER_EXECUTION"] = "autograde"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    ok = True
    try:
        NotebookClient(
            nb,
            timeout=600,
            kernel_name="python3",
            resources={"metadata": {"path": str(path.parent)}},
            extra_arguments=["--IPKernelApp.log_level=ERROR"],
        ).execute(env=env)
    except CellExecutionError:
        ok = False
    out.mkdir(parents=True, exist_ok=True)
    page = out / f"{path.stem}.html"
    body, _ = HTMLExporter().from_notebook_node(nb)
    page.write_text(body, encoding="utf-8")
    return page, ok


def main(argv: list[str]) -> int:
    chosen = notebooks(argv)
    failed = 0
    for i, path in enumerate(chosen, 1):
        started = time.monotonic()
        page, ok = build(path)
        failed += not ok
        status = "" if ok else " (stopped with an error: see the page)"
        print(
            f"[{i}/{len(chosen)}] {page.relative_to(ROOT)} in "
            f"{time.monotonic() - started:.0f} s{status}",
            flush=True,
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
