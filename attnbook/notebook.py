"""What the first cell of every notebook calls: quiet, deterministic, readable output.

nbgrader scores a test cell 0 when anything reaches stderr, so warnings from numpy, torch
or matplotlib are shown on stdout instead: still visible to the learner, harmless to grades.

A failed check shows its message, hint first, and no traceback into the check library (whose
lines hold the expected values): in a notebook through IPython's custom exception display, in
plain Python through `sys.excepthook`. A later cell that stops because it uses a function
whose check failed says, in one line, which one to fix first.
"""

from __future__ import annotations

import ast
import logging
import os
import random
import re
import sys
import sysconfig
import warnings
from pathlib import Path

import numpy as np

GRADING_ENV = "NBGRADER_EXECUTION"
MARK = "\u2717"  # the cross a failure line starts with
SHOWN_LINES = 16  # lines of a failure message shown; the rest are details
PACKAGE_DIR = str(Path(__file__).resolve().parent)
LIBRARY_DIRS = tuple({sysconfig.get_paths()[k] for k in ("stdlib", "purelib", "platlib")})
_CELL = {"source": ""}  # the cell IPython is running, for the names it uses
_WATCHED: set[int] = set()  # the shells that tell us each cell's source


def _warning_to_stdout(message, category, filename, lineno, file=None, line=None):
    text = warnings.formatwarning(message, category, filename, lineno, line)
    print(f"(warning) {text.strip()}", file=sys.stdout)


def being_graded() -> bool:
    """True while nbgrader validates or autogrades this notebook (it sets NBGRADER_EXECUTION)."""
    return bool(os.environ.get(GRADING_ENV))


def setup(seed: int = 0) -> None:
    """Seed every generator, route warnings and logs to stdout, set print and plot defaults,
    and show failed checks briefly (see the module docstring)."""
    warnings.showwarning = _warning_to_stdout
    logging.basicConfig(stream=sys.stdout, level=logging.WARNING, force=True)
    random.seed(seed)
    np.random.seed(seed)
    np.set_printoptions(precision=4, suppress=True, linewidth=100)
    try:
        import torch

        torch.manual_seed(seed)
    except ImportError:  # torch is a dependency, but numpy notebooks run without it
        pass
    import matplotlib

    if "ipykernel" not in sys.modules:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update(
        {"figure.figsize": (6.0, 3.6), "figure.dpi": 100, "axes.grid": False, "font.size": 10}
    )
    from attnbook.checks._core import forget_outcomes

    forget_outcomes()
    show_failures_briefly()


# -- how a failure is shown ----------------------------------------------------------------
def failure_lines(err: BaseException, source: str = "", tb=None) -> list[str] | None:
    """The lines shown for `err` raised by a cell with `source` (traceback `tb`) instead of a
    traceback, or None when a traceback is the better display.

    A check's failure shows its message (hint first); an error in a cell that uses a
    function whose check failed names that check in one line; a state_dict that does not
    load names the keys, and for a buffer, `persistent=False`.
    """
    if getattr(err, "attnbook_check", None) is not None:
        return _check_lines(err)
    return _blocked_line(err, source, tb) or _state_dict_lines(err)


def _check_lines(err: BaseException) -> list[str]:
    lines = str(err).strip().split("\n")
    shown = [f"{MARK} {lines[0]}", *lines[1:SHOWN_LINES]]
    if len(lines) > SHOWN_LINES:
        shown.append(f"  ({len(lines) - SHOWN_LINES} more lines of detail)")
    where = _learner_frame(err.__cause__)
    if where:
        shown.append(where)
    return shown


def _learner_frame(err: BaseException | None) -> str:
    """ "  in your code: <function>, line N: <source line>" for the deepest frame of `err`'s
    traceback that is the learner's (not this package, not an installed library)."""
    import linecache

    tb = getattr(err, "__traceback__", None)
    found = None
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if not name.startswith((PACKAGE_DIR, *LIBRARY_DIRS)):
            found = tb
        tb = tb.tb_next
    if found is None:
        return ""
    code = found.tb_frame.f_code
    text = linecache.getline(code.co_filename, found.tb_lineno).strip()
    return f"  in your code: {code.co_name}, line {found.tb_lineno}: {text}"


def _names_used(source: str, tb) -> set[str]:
    """Names a cell's source reads but does not define (an answer cell run again is not a
    user of its own answer), and the functions its traceback passed through."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        tree = None
    if tree is None:
        names = set(re.findall(r"[A-Za-z_]\w*", source))
    else:
        defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}
        defined |= {
            n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        names = {
            n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
        } - defined
    while tb is not None:
        names.add(tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    return names


def _globals_with(tb, name: str) -> dict:
    """The globals of the first frame of `tb` that defines `name` (the notebook's), or {}."""
    while tb is not None:
        if name in tb.tb_frame.f_globals:
            return tb.tb_frame.f_globals
        tb = tb.tb_next
    return {}


def _blocked_line(err: BaseException, source: str, tb) -> list[str] | None:
    """One line naming the first failed check whose subject this cell uses, if any."""
    from attnbook.checks._core import FAILED, UNWRITTEN, still_failed

    if not FAILED:
        return None
    tb = tb or err.__traceback__
    used = _names_used(source, tb)
    subject = next(
        (s for s in list(FAILED) if s in used and still_failed(s, _globals_with(tb, s))), None
    )
    if subject is None:
        return None
    check, kind = FAILED[subject]
    why = "says it is not written yet" if kind == UNWRITTEN else "failed above"
    verb = "write" if kind == UNWRITTEN else "fix"
    return [
        f"{MARK} {verb} {subject} first: this cell uses it and stopped "
        f"({type(err).__name__}), and {check}({subject}) {why}."
    ]


_KEYS = re.compile(r'(Unexpected|Missing) key\(s\) in state_dict: ((?:"[^"]*"(?:, )?)+)')


def _state_dict_lines(err: BaseException) -> list[str] | None:
    """A load_state_dict that failed on keys: which keys, and for a buffer what to do."""
    text = str(err)
    if not isinstance(err, RuntimeError) or "loading state_dict for" not in text:
        return None
    target = text.split("loading state_dict for", 1)[1].split(":", 1)[0].strip()
    keys = {kind: re.findall(r'"([^"]*)"', found) for kind, found in _KEYS.findall(text)}
    extra, missing = keys.get("Unexpected", []), keys.get("Missing", [])
    if not (extra or missing):
        return None
    lines = [
        f"{MARK} {target}.load_state_dict stopped: "
        + "; ".join(
            part
            for part in (
                f"it got keys it does not have: {', '.join(extra[:4])}" if extra else "",
                f"keys are missing: {', '.join(missing[:4])}" if missing else "",
            )
            if part
        )
    ]
    buffers = [k for k in extra + missing if k.rsplit(".", 1)[-1] not in ("weight", "bias")]
    if buffers:
        name = buffers[0].rsplit(".", 1)[-1]
        lines.append(
            f"Hint: {buffers[0]} is a fixed table, not a weight: register it with "
            f'self.register_buffer("{name}", table, persistent=False) so that it '
            "stays out of state_dict()"
        )
    else:
        lines.append(
            "Hint: use the attribute names of the exercise, so that the weights "
            "of one model load into the other"
        )
    return lines


# -- where it is shown ---------------------------------------------------------------------
def _show(shell, etype, value, tb, tb_offset=None):
    """IPython's custom exception handler: `failure_lines`, or the usual traceback."""
    try:
        lines = failure_lines(value, _CELL["source"], tb)
    except Exception:  # showing an error must never hide it
        lines = None
    if lines is None:
        if issubclass(etype, SyntaxError):
            shell.showsyntaxerror()
        else:
            shell.showtraceback((etype, value, tb), tb_offset=tb_offset, running_compiled_code=True)
    else:
        shell._showtraceback(etype, value, lines)


def _remember_cell(info) -> None:
    _CELL["source"] = getattr(info, "raw_cell", "") or ""


class _PlainHook:
    """`sys.excepthook` for plain Python: `failure_lines`, or `previous` when they fail.
    Its `attnbook` attribute says it is installed already."""

    attnbook = True

    def __init__(self, previous) -> None:
        self.previous = previous

    def __call__(self, etype, value, tb) -> None:
        try:
            lines = failure_lines(value, "", tb)
        except Exception:  # showing an error must never hide it
            lines = None
        if lines is None:
            self.previous(etype, value, tb)
        else:
            print("\n".join(lines), file=sys.stderr)


def _plain_hook(previous) -> _PlainHook:
    return _PlainHook(previous)


def show_failures_briefly() -> None:
    """Show failures as `failure_lines` says: in IPython (a notebook, nbgrader, the grader's
    kernel) with a custom exception display, in plain Python with `sys.excepthook`."""
    try:
        from IPython import get_ipython
    except ImportError:  # IPython is a dependency; plain Python still gets the hook
        get_ipython = None
    shell = get_ipython() if get_ipython else None
    if shell is None:
        if not getattr(sys.excepthook, "attnbook", False):
            sys.excepthook = _plain_hook(sys.excepthook)
        return
    shell.set_custom_exc((Exception,), _show)
    if id(shell) not in _WATCHED:
        shell.events.register("pre_run_cell", _remember_cell)
        _WATCHED.add(id(shell))
