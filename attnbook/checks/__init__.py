"""The shared check library: one check per graded function.

The same function serves the visible test cell (`check_softmax_rows(softmax_rows)`), the
hidden test (`check_softmax_rows(softmax_rows, reference=ref.softmax_rows)`) and pytest.
"""

from attnbook.checks._core import CheckFailure, CheckRun, Mistake
from attnbook.checks.concepts import check_answer, check_choice
from attnbook.checks.nb01 import (
    check_attention,
    check_project_qkv,
    check_score_matrix,
    check_softmax_rows,
)

__all__ = [
    "CheckFailure",
    "CheckRun",
    "Mistake",
    "check_answer",
    "check_attention",
    "check_choice",
    "check_project_qkv",
    "check_score_matrix",
    "check_softmax_rows",
]
