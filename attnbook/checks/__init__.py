"""The shared check library: one check per graded function.

The same function serves the visible test cell (`check_softmax_rows(softmax_rows)`), the
hidden test (`check_softmax_rows(softmax_rows, reference=ref.softmax_rows)`) and pytest.
Each notebook's checks live in `attnbook/checks/nbNN.py`; every public `check_*` of those
modules is re-exported here, so `from attnbook.checks import check_softmax_rows` works, as
`public_check` makes it: remembering what failed, and failing without a traceback into the
library.

A check's own hints are its detectors: module-level `HINT_*` strings of `nbNN.py` (and of
`_core` for the hints every check shares, re-exported here) that its code gives (a crash, a
shape, a property of the code), which the mistake catalogue names in
`mistake(..., detects=nb01.HINT_SOFTMAX_AXIS)`; `detectors(module)` lists them. The cases
are tables (`CASES`, see `_cases`), and the known slips on them, each with the hint that its
catalogue entry gives (its own, `mistake(..., hint="...")`, or the detector it names), are
generated from the catalogue by `make release` into `slips/`.
"""

import importlib
import pkgutil

from attnbook.checks import concepts
from attnbook.checks._core import (
    HINT_BOOL_OPS,
    HINT_GIVEN_LINES,
    HINT_IN_PLACE,
    HINT_KEEP_GRAPH,
    HINT_LEFTOVER,
    HINT_NO_RETURN,
    HINT_NON_FINITE,
    CheckFailure,
    CheckRun,
    Mistake,
    detectors,
    public_check,
)

check_answer = public_check(concepts.check_answer)
check_choice = public_check(concepts.check_choice)

__all__ = [
    "HINT_BOOL_OPS",
    "HINT_GIVEN_LINES",
    "HINT_IN_PLACE",
    "HINT_KEEP_GRAPH",
    "HINT_LEFTOVER",
    "HINT_NO_RETURN",
    "HINT_NON_FINITE",
    "CheckFailure",
    "CheckRun",
    "Mistake",
    "check_answer",
    "check_choice",
    "detectors",
]

for _module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _module_info.name.startswith("nb"):
        _module = importlib.import_module(f"{__name__}.{_module_info.name}")
        for _name in getattr(_module, "__all__", []):
            _value = getattr(_module, _name)
            globals()[_name] = public_check(_value) if _name.startswith("check_") else _value
            __all__.append(_name)
