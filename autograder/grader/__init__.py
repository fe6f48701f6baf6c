"""The TA autograder of the attnbook workbook (the `attnbook-grader` distribution).

Its package data, `grader.reference` (the reference answers `make release` generates from the
solutions), `grader.mistakes` (the mistake catalogue) and `grader.sample_class`, lives beside
this folder in the course's `autograder/` (see `autograder/pyproject.toml`): the sandbox
mounts this folder into every student's kernel, and they must never be there. In a checkout
the package finds its own data there, so several checkouts on one machine never mix.
"""

import sys
from pathlib import Path

# nbformat validates with jsonschema, which imports `rfc3987_syntax` when it is installed (a
# dependency of jupyter-events) only to check the "iri" string format, which no notebook
# schema uses; that import builds a grammar, 2 s of CPU in every grader process (the command,
# each worker, the fork server). Left out here, before anything imports nbformat; jsonschema
# skips that one format check when the module is missing.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]

_HERE = Path(__file__).resolve().parent


def _in_a_checkout() -> bool:
    try:
        return (_HERE.parent / "reference" / "__init__.py").is_file()
    except OSError:  # a sandboxed kernel for which the answers are locked away
        return False


if _in_a_checkout():  # a checkout, not a wheel
    __path__.append(str(_HERE.parent))  # noqa: F821 - the package's own search path
