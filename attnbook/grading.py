"""How the hidden tests reach the reference answers: the grader's package data.

The reference answers are not part of this package. `make release` generates them from the
solution notebooks into the grader's package (`attnbook-grader`, `grader.reference`), which
a course installs where it grades and never hands to students. One explicit setting
overrides where they are read from: $ATTNBOOK_AUTOGRADER, an autograder folder whose
`reference/` holds them (a course copy being graded from another checkout, say).

The hidden cases' random inputs come from the course's secret (`hidden_secret`), kept with
the reference answers and created by the grader on first use (`grader/secret.py`), and from
the submission being graded (`hidden_key`): the kit's checks, run at home, draw the practice
cases, which the grader never sends, and what one submission's code saw fits no other.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from pathlib import Path
from types import ModuleType

AUTOGRADER_ENV = "ATTNBOOK_AUTOGRADER"
SECRET_ENV = "ATTNBOOK_HIDDEN_SECRET"  # the secret itself (tests, a cluster's secret store)
SECRET_FILE = "course_secret"  # in $ATTNBOOK_AUTOGRADER, beside reference/, mode 0600
# The digest of one submission (its cells and own files), set in the grader's test process:
# hidden cases draw from the secret and it, so inputs one submission saw fit no other
SUBMISSION_ENV = "ATTNBOOK_SUBMISSION_KEY"


def hidden_secret() -> bytes | None:
    """The course's secret that the hidden cases' inputs are drawn from: $ATTNBOOK_HIDDEN_SECRET,
    else the file `course_secret` of $ATTNBOOK_AUTOGRADER (which the grader sets and creates),
    else None (no grader here: the public practice cases)."""
    value = os.environ.get(SECRET_ENV)
    if value:
        return value.encode()
    folder = os.environ.get(AUTOGRADER_ENV)
    if folder:
        path = Path(folder) / SECRET_FILE
        if path.is_file():
            secret = path.read_bytes().strip()
            if secret:
                return secret
    return None


def hidden_key() -> bytes | None:
    """What a hidden case's seed is drawn from: the course's secret (`hidden_secret`) and the
    digest of the submission being graded (`SUBMISSION_ENV`, which the grader sets for each
    notebook's tests), so a regrade of the same submission draws the same inputs and any
    other submission draws others; None without a secret (the practice cases). With no
    submission named, the secret alone."""
    secret, submission = hidden_secret(), os.environ.get(SUBMISSION_ENV, "")
    if secret is None or not submission:
        return secret
    return secret + b"\0" + submission.encode()


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
    if spec is None or spec.loader is None:
        raise FileNotFoundError(
            f"{AUTOGRADER_ENV}: expected a Python module at {path}, found nothing importable"
        )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
