"""The TA autograder of the attnbook workbook (the `attnbook-grader` distribution).

Its package data, `grader.reference` (the reference answers `make release` generates from the
solutions), `grader.mistakes` (the mistake catalogue) and `grader.sample_class`, lives beside
this folder in the course's `autograder/` (see `autograder/pyproject.toml`): the sandbox
mounts this folder into every student's kernel, and they must never be there. In a checkout
the package finds its own data there, so several checkouts on one machine never mix.
"""

from pathlib import Path

_HERE = Path(__file__).resolve().parent


def _in_a_checkout() -> bool:
    try:
        return (_HERE.parent / "reference" / "__init__.py").is_file()
    except OSError:  # a sandboxed kernel for which the answers are locked away
        return False


if _in_a_checkout():  # a checkout, not a wheel
    __path__.append(str(_HERE.parent))  # noqa: F821 - the package's own search path
