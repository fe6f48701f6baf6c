"""The machinery every check shares: calling the student's function, comparing, explaining.

A check tests shape, then NaN and infinities, then masks, then values. Every failure is a
`CheckFailure` (an AssertionError, so nbgrader scores the cell 0) whose message reads in five
seconds: its first line names the call and what failed, the hint comes next, then the known
mistake the output matches, then what was expected and what was seen, arrays shortened.

The public checks (`public_check`) also remember, for one notebook session, which subjects
failed, so that a later check or demonstration can say which one to fix first.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import hashlib
import inspect
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from attnbook.checks._source import _namespace, names_called, stub_state
from attnbook.tolerance import Tolerance

__all__ = [
    "CheckFailure",
    "CheckRun",
    "Mistake",
    "Observed",
    "as_array",
    "compose",
    "detectors",
    "describe",
    "hidden_seed",
    "hidden_range",
    "names_called",
    "observe",
    "public_check",
]

HINT_MODULE_SUBCLASS = "subclass nn.Module and call super().__init__() first"
HINT_KEEP_GRAPH = (
    "keep the graph: no torch.no_grad(), .detach(), numpy round trip or requires_grad=False in "
    "forward, in the functions it calls or on the parameters; the output must carry gradients "
    "back to the parameters, or the model cannot train"
)
HINT_BACKWARD_IN_PLACE = "build new tensors (u = h + ...), not +=: backward needs what a layer read"
HINT_DROPOUT = (
    "in eval mode the module must be deterministic: F.dropout(t, p) defaults to training=True, so "
    "use an nn.Dropout module (switched off by .eval()) or pass training=self.training"
)
HINT_IN_PLACE = (
    "build a new array or new tensor (x = x / ..., not x /= ...) instead of "
    "writing into the inputs in place: the caller still needs them as they were"
)
HINT_LEFTOVER = (
    "delete the `raise NotImplementedError()` line: the stub's placeholder "
    "still runs before your code (or instead of it)"
)
HINT_GIVEN_LINES = (
    "keep the given lines: the input checks the stub gives you (above the part you write) raise "
    "this error with the right message, so put them back as they were"
)
HINT_NO_RETURN = "end {where} with `return` and its result"  # where: the function's name
HINT_BOOL_OPS = "&, | and ~ combine bool masks: make each with dtype=torch.bool (or .bool())"
# crashes whose library message names the slip whatever the check: before a check's own hints
LIBRARY_CRASHES = (('"bitwise_', HINT_BOOL_OPS),)  # torch: "bitwise_or_cpu" not implemented for
KNOWN = "This looks like a known mistake"
SHOWN = 24  # arrays of at most this many numbers (and rows) are shown whole
CHECKS_DIR = str(Path(__file__).resolve().parent)

# (words in the error message, hint) pairs for CheckRun.call / CheckRun.invoke
CrashHints = Sequence[tuple[str | tuple[str, ...], str]]


# Hidden cases are drawn from seeds that the course's secret decides (`hidden_seed`). Each is
# congruent to its public twin modulo every number up to 16, so `seed % k` picks the same
# kind of case (dtype, mask, option) whatever the secret, and larger than any public seed.
HIDDEN_STRIDE = 720720  # lcm(1, ..., 16)


def hidden_seed(seed: int) -> int:
    """The seed a hidden case draws its inputs from, in place of `seed`.

    Without a course secret (`attnbook.grading.hidden_key()`: none where students run the
    checks) this is `seed` itself, the practice cases anyone can run. With one (the grader's
    trusted processes) it is `seed + HIDDEN_STRIDE * k`, `k >= 1` a hash of the secret, the
    submission and `seed`: the same at every regrade, other for any other submission, unknowable
    without the secret, never a seed the kit draws from (all are below HIDDEN_STRIDE)."""
    from attnbook.grading import hidden_key

    key = hidden_key()
    if key is None:
        return seed
    digest = hashlib.sha256(key + b"\0attnbook-hidden\0" + str(seed).encode()).digest()
    return seed + HIDDEN_STRIDE * (1 + int.from_bytes(digest[:4], "big"))


def hidden_range(trials: int) -> list[int]:
    """The seeds of a hidden check's `trials` random cases, `hidden_seed` of 0, 1, ..."""
    return [hidden_seed(seed) for seed in range(trials)]


class CheckFailure(AssertionError):
    """A graded function gave a wrong answer; the message says which and why, hint first."""


def detectors(module) -> dict[str, str]:
    """The detectors of a check module (`nbNN`, or `_core` for the shared ones): its
    module-level `HINT_*` strings, name -> text. A text with `{fields}` is a template the
    check fills with `.format` (e.g. `HINT_NO_RETURN.format(where="score_matrix")`)."""
    return {
        name: value
        for name, value in vars(module).items()
        if name.startswith("HINT_") and isinstance(value, str)
    }


def compose(text: str, hint: str | None = None) -> str:
    """A failure message that reads in five seconds: the first line of `text` (what failed),
    then the hint, then the known mistake, then the rest of `text` (expected, seen)."""
    head, *rest = text.split("\n")
    known = [line for line in rest if line.startswith(KNOWN)]
    details = [line for line in rest if not line.startswith(KNOWN)]
    return "\n".join([head, *([f"Hint: {hint}"] if hint else []), *known, *details])


@dataclass(frozen=True)
class Mistake:
    """A known wrong answer: its output on the current inputs and the hint to show."""

    name: str
    output: object
    hint: str


def as_array(value) -> np.ndarray:
    """Turn a numpy array, torch tensor, list or scalar into a float64 numpy array."""
    if hasattr(value, "detach"):  # a torch tensor, possibly on a GPU or requiring grad
        value = value.detach().to("cpu")
        if value.dtype.is_floating_point and value.dtype != _torch_float64():
            value = value.double()
        value = value.numpy()
    return np.asarray(value)


def _torch_float64():
    import torch

    return torch.float64


def describe(value, limit: int = 6) -> str:
    """A short, readable rendering of an array-like for failure messages: a small array
    whole, a larger one as its shape and its first `limit` numbers, on one line."""
    if isinstance(value, str | bool | int | float | type(None)):
        return repr(value)
    try:
        arr = as_array(value)
    except Exception:  # an object we cannot turn into an array: show its repr
        return repr(value)[:200]
    if arr.dtype == object:
        return repr(value)[:200]
    if not arr.ndim and arr.dtype.kind == "f" and float(arr).is_integer() and abs(arr) < 2**53:
        return str(int(arr))  # a count computed in floats: every digit, as a whole number
    with np.printoptions(precision=4, suppress=True, threshold=SHOWN, edgeitems=3, linewidth=100):
        if not arr.ndim:
            return np.array2string(arr)
        if arr.size <= SHOWN and (arr.ndim == 1 or arr.shape[-2] <= 6) and arr.ndim <= 2:
            return (
                f"array of shape {tuple(arr.shape)}:\n"
                f"{_indent(np.array2string(arr, separator=', '))}"
            )
        first = np.array2string(arr.reshape(-1)[:limit], separator=", ")
    return f"array of shape {tuple(arr.shape)} starting {first[:-1]}, ...]"


def _first_difference(seen: np.ndarray, expected: np.ndarray, rtol: float, atol: float) -> str:
    """One line: where two same-shaped arrays first differ, and how many entries do (for two
    numbers, both to more digits where `describe` shows them alike)."""
    if seen.shape != expected.shape:
        return ""
    if not seen.ndim:
        if describe(seen) != describe(expected):
            return ""
        with np.printoptions(precision=17, suppress=True):
            return (
                f"  to more digits: expected {np.array2string(expected)}, "
                f"seen {np.array2string(seen)}"
            )
    with np.errstate(all="ignore"):
        try:
            close = np.isclose(seen, expected, rtol=rtol, atol=atol)
        except TypeError:  # booleans and the like: compare exactly
            close = seen == expected
    bad = ~np.asarray(close, dtype=bool)
    if not bad.any():
        return ""
    where = tuple(int(i) for i in np.argwhere(bad)[0])
    for precision in (4, 6, 8, 10, 17):  # enough digits that the two do not read the same
        with np.printoptions(precision=precision, suppress=True):
            want, got = np.array2string(expected[where]), np.array2string(seen[where])
        if want != got:
            break
    return (
        f"  first difference at index {list(where)}: expected {want}, seen {got} "
        f"({int(bad.sum())} of {bad.size} entries differ)"
    )


def _indent(text: str, pad: str = "    ") -> str:
    return "\n".join(pad + line for line in text.splitlines())


def _shape_of(value) -> tuple:
    return tuple(getattr(value, "shape", np.shape(value)))


HINT_NON_FINITE = (
    "NaN usually means 0 * inf or inf - inf, and inf an overflow: in a softmax, subtract the row "
    "maximum before exponentiating and handle rows where every score is -inf; elsewhere, work in "
    "float64"
)


@dataclass
class CheckRun:
    """One check of one graded function: counts what passed, explains what failed.

    `name` is the function's own name, so pass and failure messages never drift from it.
    """

    func: Callable
    name: str = ""
    passed: int = 0
    notes: list[str] = field(default_factory=list)
    crash_hint: str = ""  # shown when the student's code raises and no crash_hints match
    in_place_hint: str = HINT_IN_PLACE  # shown when the student's code changes an input
    none_ok: bool = False  # whether a call may return None (no graded function does)
    # during a module case (attnbook.checks._cases): the learner's module, as a module view,
    # for what the case's probe or then asks of it beyond the one call
    module: Any = None

    def __post_init__(self):
        if not callable(self.func):
            raise CheckFailure(
                f"expected a function to check, got {type(self.func).__name__} "
                f"({describe(self.func)}). Pass the function itself, without calling it."
            )
        self.name = self.name or getattr(self.func, "__name__", "function")

    # -- calling -----------------------------------------------------------------------
    def call(self, call_text: str, *args, crash_hints: CrashHints = (), **kwargs):
        """Call the student's function; an unexpected exception becomes a clear failure.

        NotImplementedError passes through untouched: it means "not written yet".
        `crash_hints` as in `invoke`.
        """
        return self.invoke(call_text, self.func, *args, crash_hints=crash_hints, **kwargs)

    def invoke(self, call_text: str, fn: Callable, *args, crash_hints: CrashHints = (), **kwargs):
        """Call `fn`, the checked function or a part of it (a module's forward), the same way.

        `crash_hints` are (words, hint) pairs: when the student's code raises, the first pair
        whose words (a string, or a tuple of strings any of which will do) occur in the
        error message gives the hint; words "" match any error. Without a match the run's
        `crash_hint`, if any, is shown.
        """
        return self.observe(call_text, fn, *args, crash_hints=crash_hints, **kwargs).result

    def call_observed(
        self, call_text: str, *args, crash_hints: CrashHints = (), **kwargs
    ) -> Observed:
        """`call`, also returning the arguments as the function left them (copies: the
        caller's objects never change), e.g. a model after `train_step`."""
        return self.observe(call_text, self.func, *args, crash_hints=crash_hints, **kwargs)

    def observe(
        self,
        call_text: str,
        fn: Callable,
        *args,
        crash_hints: CrashHints = (),
        backward: bool = False,
        **kwargs,
    ) -> Observed:
        """`invoke` returning everything `observe` sees; an input changed in place fails."""
        try:
            seen = observe(fn, args, kwargs, backward=backward)
        except CheckFailure:
            raise
        except Exception as err:  # any bug in the student's code is reported, not hidden
            if type(err) is NotImplementedError and not str(err):  # a stub's bare raise; torch's
                raise self.unfinished(call_text, fn) from None  # has a message (bool | float)
            first, *more = str(err).strip().split("\n") or [""]
            message = "\n".join(
                [
                    f"{call_text} raised {type(err).__name__}: {first}",
                    *(f"  {line}" for line in more[:3]),
                ]
            )
            text = str(err)
            hint = next((h for ws, h in (*LIBRARY_CRASHES, *crash_hints)
                         if any(w in text for w in ((ws,) if isinstance(ws, str) else ws))),
                        self.crash_hint)  # fmt: skip
            raise CheckFailure(compose(f"{self.name}: {message}", hint or None)) from err
        if seen.result is None and not self.none_ok:
            where = (
                self.name
                if fn is self.func
                else (
                    f"{self.name}.forward" if _is_view(fn) else getattr(fn, "__name__", self.name)
                )
            )
            self.fail(
                f"{call_text} returned None: {where} has no `return` (or never reaches one).",
                hint=HINT_NO_RETURN.format(where=where),
            )
        if seen.changed:
            self.fail(
                f"{call_text} changed its input {', '.join(seen.changed)} in place.",
                hint=self.in_place_hint,
            )
        return seen

    def unfinished(self, call_text: str, fn: Callable) -> Exception:
        """What to raise when `fn` raised a bare NotImplementedError: "not written yet", or
        a failure when the learner's code sits beside a leftover `raise` of the stub."""
        owner = type(fn.module) if _is_view(fn) and hasattr(fn, "module") else fn
        state = stub_state(owner)
        if state == "leftover":
            return CheckFailure(
                compose(
                    f"{self.name}: {call_text} stopped at a `raise NotImplementedError()` left "
                    f"in {self.name} beside your code.",
                    HINT_LEFTOVER,
                )
            )
        if state == "stub":
            return NotImplementedError(
                f"{self.name} is not written yet: replace `raise NotImplementedError()` in "
                "its cell with your code, then run this check again."
            )
        if state == "elsewhere":
            missing = [
                h
                for h, (_, kind) in FAILED.items()
                if kind == UNWRITTEN and h != self.name and h in names_called(owner)
            ]
            return NotImplementedError(
                f"{self.name}: {call_text} raised NotImplementedError from "
                f"{'your ' + missing[0] if missing else 'a function it calls'}, which is not "
                "written yet: write that first."
            )
        return NotImplementedError(
            f"{self.name}: {call_text} raised NotImplementedError: {self.name}, or something "
            f"it calls, is not written yet. If you have written it, {HINT_LEFTOVER}."
        )

    def expect_raises(
        self,
        call_text: str,
        error: type[BaseException],
        *args,
        mentions: tuple[str, ...] = (),
        **kwargs,
    ) -> None:
        """The call must raise `error`, and its message must mention each of `mentions`."""
        try:
            observe(self.func, args, kwargs)
        except NotImplementedError as err:
            if not str(err):
                raise self.unfinished(call_text, self.func) from None
            self.fail(f"{call_text} raised NotImplementedError: {_short(str(err))}.")
        except error as err:
            missing = [word for word in mentions if word not in str(err)]
            if missing:
                self.fail(
                    f"{call_text} raised {error.__name__}, but not the given lines' "
                    f"one: its message {_short(str(err), 80)!r} does not mention {missing}.",
                    hint=HINT_GIVEN_LINES,
                )
            self.passed += 1
            return
        except Exception as err:
            self.fail(
                f"{call_text} raised {type(err).__name__}: {_short(str(err))}; "
                f"expected {error.__name__} from the given input checks.",
                hint=HINT_GIVEN_LINES,
            )
        self.fail(
            f"{call_text} returned normally; expected it to raise {error.__name__}.",
            hint=HINT_GIVEN_LINES,
        )

    # -- failing -----------------------------------------------------------------------
    def fail(self, message: str, hint: str | None = None):
        raise CheckFailure(compose(f"{self.name}: {message}", hint))

    # -- comparing ---------------------------------------------------------------------
    def expect_shape(
        self, call_text: str, seen, shape: tuple, hint: str | None = None, expected=None
    ):
        """The output's shape; given the `expected` value, a wrong shape of a few numbers
        (token ids, say) shows both values too."""
        seen_shape = _shape_of(seen)
        if tuple(seen_shape) != tuple(shape):
            message = f"{call_text} returned shape {tuple(seen_shape)}; expected {tuple(shape)}."
            if expected is not None and _few(seen) and _few(expected):
                wanted, got = describe(as_array(expected)), describe(as_array(seen))
                message += f"\n  expected {wanted}\n  seen     {got}"
            self.fail(message, hint=hint)
        self.passed += 1

    def expect_finite(self, call_text: str, seen, hint: str | None = None):
        arr = as_array(seen)
        if arr.dtype.kind in "fc" and not np.all(np.isfinite(arr)):
            bad = np.argwhere(~np.isfinite(arr))
            where = tuple(int(i) for i in bad[0])
            self.fail(
                f"{call_text} returned {int(len(bad))} non-finite value(s), the first at index "
                f"{where} ({arr[where]}).",
                hint=hint or HINT_NON_FINITE,
            )
        self.passed += 1

    def expect_close(
        self,
        call_text: str,
        seen,
        expected,
        *,
        mistakes: Sequence[Mistake] = (),
        rtol: float = 1e-6,
        atol: float = 1e-8,
        what: str = "values",
        hint: str | None = None,
        tol: Tolerance | None = None,
    ):
        """Compare values; on a mismatch, name the known mistake the output matches. `tol`
        (attnbook.tolerance) replaces `rtol` and `atol`."""
        if tol is not None:
            rtol, atol = tol.rtol, tol.atol
        seen_arr = as_array(seen)
        expected_arr = as_array(expected)
        if seen_arr.shape != expected_arr.shape:
            self.expect_shape(call_text, seen_arr, expected_arr.shape)
        if _allclose(seen_arr, expected_arr, rtol, atol):
            self.passed += 1
            return
        found = matching_slips(seen_arr, expected_arr, mistakes, Tolerance(rtol, atol))
        message = (
            f"{call_text} returned wrong {what}.\n  expected {describe(expected_arr)}\n"
            f"  seen     {describe(seen_arr)}"
        )
        difference = _first_difference(seen_arr, expected_arr, rtol, atol)
        message += f"\n{difference}" if difference else ""
        self.fail_as_known(message, found)
        self.fail(message, hint=hint)

    def fail_as_known(self, message: str, found: Sequence[Mistake]) -> None:
        """Fail with `message`, naming the known slips `found` (those whose output the learner's
        is): one by its name and hint; several of different hints (the case cannot tell which
        it saw) each, with each hint. Nothing when none was found."""
        hints = list(dict.fromkeys(m.hint for m in found))
        if len(hints) > 1:
            self.fail(
                f"{message}\nThis is what each of these known mistakes gives here: "
                f"{'; '.join(m.name for m in found)}.",
                hint=". Or: ".join(h for h in hints if h),
            )
        if found:
            self.fail(f"{message}\nThis looks like a known mistake: {found[0].name}.",
                      hint=found[0].hint)  # fmt: skip

    def expect_true(self, condition: object, message: str, hint: str | None = None):
        if not bool(condition):
            self.fail(message, hint=hint)
        self.passed += 1

    # -- passing -----------------------------------------------------------------------
    def done(self, extra: str = "") -> None:
        """Print the pass line, built from the function's own name."""
        suffix = f" ({extra})" if extra else ""
        print(f"\u2713 {self.name} passed {self.passed} checks{suffix}.")


def _short(text: str, limit: int = 160) -> str:
    """The first line of an error message, cut to `limit` characters."""
    first = (text.strip().split("\n") or [""])[0]
    return first if len(first) <= limit else first[: limit - 3] + "..."


def _few(value, most: int = 16) -> bool:
    """Whether `value` is an array of at most `most` numbers, short enough to print."""
    try:
        array = as_array(value)
    except Exception:  # not array-like
        return False
    return array.dtype.kind in "biuf" and 0 < array.size <= most


def _allclose(
    a: np.ndarray, b: np.ndarray, rtol: float, atol: float, equal_nan: bool = False
) -> bool:
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "biu" and b.dtype.kind in "biu" or a.dtype == bool or b.dtype == bool:
        return bool(np.array_equal(a, b))
    try:
        return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))
    except TypeError:
        return False


def _matches(seen, slip_output, expected, tol: Tolerance) -> bool:
    """Whether `seen` (a tuple's parts, or one array) is the slip's output; a part the slip
    stored as None is the expected one."""
    if isinstance(slip_output, tuple | list) and isinstance(expected, tuple | list):
        if not isinstance(seen, tuple | list) or len(seen) != len(slip_output):
            return False
        return all(
            _matches(s, e if o is None else o, e, tol)
            for s, o, e in zip(seen, slip_output, expected)
        )
    try:
        a, b = as_array(seen), as_array(slip_output)
    except Exception:  # not array-like: not this slip
        return False
    return _allclose(a, b, tol.rtol, tol.atol)


def matching_slips(seen, expected, slips: Sequence[Mistake], tol: Tolerance) -> list[Mistake]:
    """The one matcher: the slips whose output is `seen` within `tol` (`CheckRun.fail_as_known`
    names them)."""
    return [m for m in slips if _matches(seen, m.output, expected, tol)]


def match_slip(seen, expected, slips: Sequence[Mistake], tol: Tolerance) -> Mistake | None:
    """The first slip whose output is `seen` within `tol`: whether `seen` is a known slip."""
    return next(iter(matching_slips(seen, expected, slips, tol)), None)


# -- calling the learner's code: copies in, copies out -------------------------------------
@dataclass
class Observed:
    """One call of the learner's code: its result, its arguments as the call left them
    (copies), the names of plain-data arguments it changed, and (with `backward`) each
    argument's gradient."""

    result: object
    args_after: list
    kwargs_after: dict
    changed: list[str]
    grads: list | None = None


def _is_view(value) -> bool:
    """A module under test (see `_modules`): shared with the learner's code, not copied."""
    return hasattr(value, "__wire_handle__") or hasattr(value, "__module_view__")


def private_copies(args: tuple, kwargs: dict) -> tuple[list, dict]:
    """Deep copies of the arguments, made together (an optimizer keeps pointing at the
    copied model's parameters); modules under test are passed as they are."""

    def swap(value):
        if _is_view(value):
            return value
        if hasattr(value, "detach") and not getattr(value, "is_leaf", True):
            return value.detach().clone().requires_grad_(bool(value.requires_grad))
        if isinstance(value, list | tuple):
            return (
                type(value)(swap(v) for v in value)
                if not hasattr(value, "_fields")
                else type(value)(*(swap(v) for v in value))
            )
        if isinstance(value, dict):
            return {k: swap(v) for k, v in value.items()}
        return value

    views: dict[int, object] = {}
    memo = {}
    for value in [*args, *kwargs.values()]:
        if _is_view(value):
            views[id(value)] = value
            memo[id(value)] = value
    prepared = (list(swap(a) for a in args), {k: swap(v) for k, v in kwargs.items()})
    try:
        copied = copy.deepcopy(prepared, memo)
    except Exception:  # an argument that cannot be copied is passed as it is
        return prepared
    for value in [*args, *kwargs.values()]:
        if _is_view(value):
            continue
        for p in getattr(value, "parameters", lambda: ())():  # deepcopy drops .grad
            if p.grad is not None and id(p) in memo:
                memo[id(p)].grad = p.grad.detach().clone()
        log = getattr(value, "forward_log", None)
        if isinstance(log, list) and id(value) in memo:  # the copy keeps a log of its own
            memo[id(value)].forward_log = type(log)(log)
    return copied


def same_value(a, b) -> bool:
    """Plain data equal in type, shape, dtype and values (NaN equals NaN); modules equal in
    their weights and buffers."""
    if hasattr(a, "detach") and hasattr(b, "detach"):
        a, b = a.detach(), b.detach()
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.dtype.is_floating_point or a.dtype.is_complex:
            return bool(((a == b) | (a.isnan() & b.isnan())).all())
        return bool((a == b).all())
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return (
            type(a) is type(b) and len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if callable(getattr(a, "state_dict", None)) and callable(getattr(b, "state_dict", None)):
        return same_value(dict(a.state_dict()), dict(b.state_dict()))  # modules: their weights
    try:
        return bool(a == b) or (a != a and b != b)
    except Exception:  # objects that do not compare: not plain data
        return True


def _plain(value) -> bool:
    if isinstance(value, np.ndarray | list | tuple | dict):
        return True
    return hasattr(value, "detach") and hasattr(value, "shape")


def _labels(fn) -> list[str]:
    try:
        return [p.name for p in inspect.signature(fn).parameters.values()]
    except (TypeError, ValueError):
        return []


def observe(fn: Callable, args: tuple, kwargs: dict, backward: bool = False) -> Observed:
    """Call `fn` on private copies of `args`; see `Observed`. When `fn` raises, its
    exception carries those copies as they were left, as `attnbook_args_after`.

    The grader's stand-in for a learner's function (`__attnbook_call__`) does the same across
    the sandbox: its arguments go as values and come back as new objects.
    """
    remote = getattr(fn, "__attnbook_call__", None)
    if remote is not None:
        done = remote(tuple(args), dict(kwargs), backward)
        return Observed(done.result, done.args_after, done.kwargs_after, done.changed, done.grads)
    mine, mine_kw = private_copies(tuple(args), dict(kwargs))
    try:
        result = fn(*mine, **mine_kw)
    except BaseException as err:  # the arguments as the failed call left them, for a check
        err.attnbook_args_after = mine  # type: ignore[attr-defined]
        raise
    grads = None
    if backward:
        if getattr(result, "requires_grad", False) and result.numel() == 1:
            result.backward()
        grads = [getattr(a, "grad", None) if hasattr(a, "detach") else None for a in mine]
    labels = _labels(fn)
    changed = [
        labels[i] if i < len(labels) else f"argument {i + 1}"
        for i, (a, b) in enumerate(zip(args, mine))
        if _plain(a) and not same_value(a, b)
    ]
    changed += [k for k in kwargs if _plain(kwargs[k]) and not same_value(kwargs[k], mine_kw[k])]
    return Observed(result, mine, mine_kw, changed, grads)


# -- what this notebook session's checks found ---------------------------------------------
FAILED_CHECK, UNWRITTEN = "failed", "not written"
# subject (the checked function or class, or a concept answer) -> (its check, how it failed),
# in the order they failed; cleared by `forget_outcomes` when a notebook starts
FAILED: dict[str, tuple[str, str]] = {}
# helpers whose course version stood in for the learner's during this test, when the grader
# runs it (autograder: grader.standins): a failure of the test is then not theirs to blame
STOOD_IN: set[str] = set()


# subject -> (the object that failed, its check undecorated, the check's other arguments), so
# that a failure can be re-checked once the learner has redefined the subject
_FAILED_CALL: dict[str, tuple[object, Callable, tuple, dict]] = {}


def forget_outcomes() -> None:
    """A new notebook session (`attnbook.notebook.setup`): no check has run yet."""
    FAILED.clear()
    _FAILED_CALL.clear()
    STOOD_IN.clear()


def still_failed(name: str, namespace: dict) -> bool:
    """Whether `name`'s earlier failure still holds for the `name` now in `namespace`.

    A learner who fixes a helper and re-runs its definition, but not its check cell, has a
    new object under the old name: its check runs again here, quietly, and a pass clears the
    old failure, so a later check no longer blames a helper that is now right."""
    if name not in FAILED:
        return False
    failed = _FAILED_CALL.get(name)
    current = namespace.get(name)
    if failed is None or current is None or current is failed[0]:
        return True
    _, check, rest, kwargs = failed
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            check(current, *rest, **kwargs)
    except NotImplementedError:
        FAILED[name] = (FAILED[name][0], UNWRITTEN)
    except CheckFailure:
        FAILED[name] = (FAILED[name][0], FAILED_CHECK)
    except Exception:  # the redefinition breaks in another way: it is still to be fixed
        pass
    else:
        FAILED.pop(name, None)
        _FAILED_CALL.pop(name, None)
        return False
    _FAILED_CALL[name] = (current, check, rest, kwargs)
    return True


def _subject(args: tuple) -> str:
    """The name a check call is about: its function's or class's name, or a concept
    answer's name (`check_choice(name, ...)`, `check_answer(reference, name, ...)`)."""
    for value in args[:2]:
        if isinstance(value, str):
            return value
    return str(getattr(args[0], "__name__", "")) if args else ""


def _blame_helper(failure: CheckFailure, subject, name: str) -> CheckFailure:
    """A failure of `name` that also names the learner's own helper it calls whose check
    failed earlier in this session: the helper is the one to fix first."""
    if not FAILED or isinstance(subject, str):
        return failure
    used, namespace = names_called(subject), _namespace(subject)
    helpers = [
        h
        for h in list(FAILED)
        if h != name and h in used and h not in STOOD_IN and still_failed(h, namespace)
    ]
    if not helpers:
        return failure
    helper, (check, kind) = helpers[0], FAILED[helpers[0]]
    head, *rest = str(failure).split("\n")
    unwritten = kind == UNWRITTEN
    blame = (
        f"Hint: {name} uses your {helper}, whose check ({check}) "
        f"{'says it is not written yet' if unwritten else 'failed above'}: "
        f"{'write' if unwritten else 'fix'} {helper} first; {name} itself may be right (a "
        f"course's grader runs {name} with its own {helper}, so {name} earns its points on its "
        "own)."
    )
    blamed = CheckFailure("\n".join([head, blame, *rest]))
    blamed.__cause__ = failure.__cause__
    return blamed


def _without_library_frames(tb):
    """A traceback from its first frame outside this library (the learner's code)."""
    while tb is not None and tb.tb_frame.f_code.co_filename.startswith(CHECKS_DIR):
        tb = tb.tb_next
    return tb


def public_check(check: Callable) -> Callable:
    """`check` as notebooks call it: it records whether its subject passed, names a failed
    helper the subject calls, and fails with its message alone, no traceback into this
    library (whose lines would show the expected values)."""

    @functools.wraps(check)
    def run_check(*args, **kwargs):
        name = _subject(args)
        try:
            result = check(*args, **kwargs)
        except (CheckFailure, NotImplementedError) as err:
            failure = _blame_helper(err, args[0], name) if isinstance(err, CheckFailure) else err
            FAILED[name] = (
                check.__name__,
                UNWRITTEN if isinstance(err, NotImplementedError) else FAILED_CHECK,
            )  # a name failing again keeps its place
            if args and not isinstance(args[0], str):
                _FAILED_CALL[name] = (args[0], check, args[1:], kwargs)
            failure.attnbook_check = check.__name__  # type: ignore[union-attr]
            cause = failure.__cause__
            if cause is not None:
                cause.__traceback__ = _without_library_frames(cause.__traceback__)
            raise failure.with_traceback(None) from cause
        FAILED.pop(name, None)
        _FAILED_CALL.pop(name, None)
        return result

    return run_check
