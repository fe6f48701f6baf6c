"""The course's secret: the seed material of every hidden case's random inputs.

The check library is public (students run it in every notebook), so inputs drawn from fixed
seeds are public too: a student who runs a hidden check at home with the package's own
functions as the reference records every input and can hand in a table of answers. The
hidden cases therefore draw from `attnbook.checks._core.hidden(seed)`, which mixes in this
secret; without it (the kit) the checks draw practice cases the grader never sends.

The secret is a file, `course_secret`, beside the reference answers (`$ATTNBOOK_AUTOGRADER`,
by default the checkout's `autograder/`), mode 0600, git-ignored, created on first use.
Every machine that grades a course must see the same file (a shared checkout, or the
Gradescope zip, which carries it): the same secret gives the same hidden cases, so a regrade
gives the same grade. `$ATTNBOOK_HIDDEN_SECRET`, when set, is used instead (a cluster's
secret store). Losing or changing the secret changes which random cases are drawn, not what
a correct answer scores; the grade digest includes it, so a new secret regrades.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from attnbook.grading import AUTOGRADER_ENV, SECRET_FILE


def secret_path(autograder: Path | str | None = None) -> Path:
    """Where the course's secret lives: `autograder/course_secret` of this course."""
    folder = autograder or os.environ.get(AUTOGRADER_ENV)
    if not folder:
        raise RuntimeError(
            f"secret_path: expected an autograder folder or ${AUTOGRADER_ENV}, found neither"
        )
    return Path(folder) / SECRET_FILE


def ensure_secret(autograder: Path | str | None = None) -> Path:
    """The course's secret file, created (0600, 32 random bytes as hex) when missing.
    Two processes creating it at once agree: the file appears whole or not at all."""
    path = secret_path(autograder)
    if path.is_file() and path.read_bytes().strip():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = path.with_name(f".{SECRET_FILE}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_hex(32) + "\n")
        try:
            os.link(scratch, path)  # never replaces a secret another process wrote
        except FileExistsError:
            pass
    finally:
        scratch.unlink(missing_ok=True)
    return path
