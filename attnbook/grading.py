"""Hooks the hidden tests use to reach the autograder's reference answers.

The reference answers are not part of this package: they live in the repository's
`autograder/reference/` folder, next to the TA tooling. A student's copy of the workbook
has no such folder, so hidden tests can only run where the course staff grade.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from types import ModuleType

AUTOGRADER_ENV = "ATTNBOOK_AUTOGRADER"


def autograder_dir() -> Path:
    """The folder holding `reference/`: $ATTNBOOK_AUTOGRADER, else found next to the package
    or above the current folder."""
    candidates = []
    if os.environ.get(AUTOGRADER_ENV):
        candidates.append(Path(os.environ[AUTOGRADER_ENV]))
    candidates.append(Path(__file__).resolve().parents[1] / "autograder")
    here = Path.cwd().resolve()
    candidates.extend(parent / "autograder" for parent in (here, *here.parents))
    for folder in candidates:
        if (folder / "reference").is_dir():
            return folder
    raise FileNotFoundError(
        "the hidden tests need the course's autograder/reference folder, which is not "
        f"here; set {AUTOGRADER_ENV} to the autograder folder (looked in: "
        + ", ".join(str(c) for c in candidates[:3]) + ")"
    )


def load_reference(notebook: str) -> ModuleType:
    """Import `autograder/reference/nbNN_topic.py` for notebook `NN_topic`."""
    path = autograder_dir() / "reference" / f"nb{notebook}.py"
    if not path.is_file():
        raise FileNotFoundError(f"no reference answers for notebook {notebook!r} at {path}")
    spec = importlib.util.spec_from_file_location(f"attnbook_reference_nb{notebook}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
