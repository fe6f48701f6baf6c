"""How the hidden tests reach the reference answers: the grader's package data.

The reference answers are not part of this package. `make release` generates them from the
solution notebooks into the grader's package (`attnbook-grader`, `grader.reference`), which
a course installs where it grades and never hands to students. One explicit setting
overrides where they are read from: $ATTNBOOK_AUTOGRADER, an autograder folder whose
`reference/` holds them (a course copy being graded from another checkout, say).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from pathlib import Path
from types import ModuleType

AUTOGRADER_ENV = "ATTNBOOK_AUTOGRADER"


def load_reference(notebook: str) -> ModuleType:
    """The reference answers of notebook `NN_topic` (module `grader.reference.nbNN_topic`)."""
    folder = os.environ.get(AUTOGRADER_ENV)
    if folder:
        return _from_file(Path(folder) / "reference" / f"nb{notebook}.py", notebook)
    try:
        return importlib.import_module(f"grader.reference.nb{notebook}")
    except ModuleNotFoundError as err:
        raise FileNotFoundError(
            f"the hidden tests need the reference answers of {notebook!r}, which come with "
            "the course's grader (pip install -e autograder, where the course grades) or "
            f"from ${AUTOGRADER_ENV}; they are not in what students get ({err})"
        ) from None


def _from_file(path: Path, notebook: str) -> ModuleType:
    if not path.is_file():
        raise FileNotFoundError(
            f"{AUTOGRADER_ENV}: no reference answers for notebook {notebook!r} at {path}"
        )
    spec = importlib.util.spec_from_file_location(f"attnbook_reference_nb{notebook}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
