"""The shared check library: one check per graded function.

The same function serves the visible test cell (`check_softmax_rows(softmax_rows)`), the
hidden test (`check_softmax_rows(softmax_rows, reference=ref.softmax_rows)`) and pytest.
Each notebook's checks live in `attnbook/checks/nbNN.py`; every public `check_*` of those
modules is re-exported here, so `from attnbook.checks import check_softmax_rows` works.
"""

import importlib
import pkgutil

from attnbook.checks._core import CheckFailure, CheckRun, Mistake
from attnbook.checks.concepts import check_answer, check_choice

__all__ = ["CheckFailure", "CheckRun", "Mistake", "check_answer", "check_choice"]

for _module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _module_info.name.startswith("nb"):
        _module = importlib.import_module(f"{__name__}.{_module_info.name}")
        for _name in getattr(_module, "__all__", []):
            globals()[_name] = getattr(_module, _name)
            __all__.append(_name)
