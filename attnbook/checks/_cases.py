"""Checks as tables: a `Case` is one call of a graded function and what it must give.

A notebook's checks (`checks/nbNN.py`) declare their cases as data, `CASES[function]`, and
`CheckRun.case` runs each the same way: call, shape, finite, close, and on wrong values name
the known slip the output matches. Both the cases and the slips are data:

- the visible cases' slips are generated (`make release`, scripts/release.py): every
  mistake of the grader's catalogue is run on every visible case, and its
  output on the first case that tells it apart from the reference is stored in
  `checks/slips/nbNN.py` (outputs of wrong programs on visible inputs only);
- the hidden trials' slips are the catalogued mistakes themselves, written as functions into
  the grader's private reference answers (their `SLIPS`), run on each
  trial's inputs.

One tolerance policy (`case_tolerance`), one seed policy and one input generator per argument
kind (`trial_rng`, `sizes`, `normal`, `with_neg_inf`) serve every table.
"""

from __future__ import annotations

import copy
import functools
import importlib
import inspect
import warnings
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from attnbook.checks._core import (
    HINT_BACKWARD_IN_PLACE,
    HINT_DROPOUT,
    HINT_GIVEN_LINES,
    HINT_KEEP_GRAPH,
    HINT_MODULE_SUBCLASS,
    HINT_NON_FINITE,
    CheckRun,
    CrashHints,
    Mistake,
    _allclose,
    _matches,
    _shape_of,
    as_array,
    hidden_range,
    match_slip,
    matching_slips,
)
from attnbook.checks._source import borrowed, names_called
from attnbook.tolerance import Tolerance, magnitude_of, tolerance

__all__ = [
    "Build",
    "Case",
    "Part",
    "Returns",
    "Slips",
    "built",
    "built_locally",
    "call_local",
    "case_tolerance",
    "expect_deterministic",
    "fallback_hints",
    "forbid",
    "match_slip",
    "matching_slips",
    "normal",
    "one_number",
    "package_model",
    "probe_tolerance",
    "run_case",
    "run_cases",
    "run_reference_cases",
    "run_trials",
    "sizes",
    "token_wise_cases",
    "trial_rng",
    "weights_of",
    "with_neg_inf",
]

# The precision every check accepts: the docstrings ask for the mathematics, not a dtype, so
# an answer computed in float32 (torch.Tensor(X)) is right to about 7 digits, not 15.
ACCEPTED_DTYPE = "float32"


@dataclass(frozen=True)
class Part:
    """One array of a tuple a graded function returns, e.g. the A of `(Y, A)`."""

    label: str  # as messages name it: "A"
    index: int  # its place in the returned tuple
    what: str = "values"  # "wrong {what}"
    hint: str | None = None  # wrong values and no slip matches (a case's own hint wins)
    shape_hint: str | None = None


@dataclass(frozen=True)
class Returns:
    """A function that returns a tuple of arrays: its parts, in the order they are checked."""

    parts: tuple[Part, ...]
    hint: str  # the result is not a tuple of len(parts)
    order_hint: str | None = None  # the parts came back in another order

    @property
    def names(self) -> str:
        return ", ".join(p.label for p in sorted(self.parts, key=lambda p: p.index))


@dataclass(frozen=True)
class Build:
    """The module a module case calls: the class called with `args` and `kwargs` (`call` in
    messages), its
    structure checked by `inspect(run, call, view)`, then `tensors` set by name; it runs in
    eval mode unless `train`. Weights the case does not set are left as the class drew them."""

    call: str
    args: tuple = ()
    tensors: dict | None = None
    inspect: Callable | None = None
    train: bool = False
    kwargs: dict | None = None  # keyword arguments of the class call, after `args`


@dataclass(frozen=True)
class Case:
    """One call of the checked function and what it must give.

    `id` names the case in the generated slips (stable: renaming it regenerates them);
    `expect` is the expected value, a function of the arguments giving it, or None (shape
    and finiteness only); `shape` defaults to the expected value's (a tuple of shapes when the
    function `returns` several arrays). A case with `raises` must raise that error, its
    message mentioning each of `mentions` (the input checks the stub gives).
    """

    id: str
    call: str
    args: tuple
    expect: Any = None
    kwargs: dict | None = None  # keyword arguments of the call, after `args`
    build: Build | None = None  # a module case: the module whose forward is called
    shape: Any = None
    hint: str | None = None
    # or a function (the output's shape, the expected one) -> the hint, for a shape it reads
    shape_hint: str | Callable | None = None
    # check for NaN and inf; a str: the hint to show; a function (case, output) -> the hint
    finite: bool | str | Callable = True
    crash_hints: CrashHints = ()
    returns: Returns | None = None
    raises: type[BaseException] | None = None
    mentions: tuple[str, ...] = ()
    depth: int = 2  # reductions in a row (see attnbook.tolerance)
    # a fixed tolerance where the float policy does not apply (a count of bytes: exact)
    tolerance: Tolerance | None = None
    # the output does not grow with the inputs (a normalisation): float32 precision for values
    # as large as the output alone, not as the inputs
    scale_free: bool = False
    # the largest angle the output takes sin and cos of (l * w_0 of a position table): float32
    # rounds it by about eps * angle, which sin and cos carry out (attnbook.tolerance)
    angle: float = 0.0
    decimals: int | None = None  # `expect` written out with this many decimal places
    what: str = "values"
    # what the raw output must be before its shape is read (a tensor, not a tuple):
    # before(run, case, seen)
    before: Callable | None = None
    # what a table cannot say: probe(run, case, seen, expected, slips), after the finite check
    probe: Callable | None = None
    # compare a view of the output, (words for the message, function of the output)
    view: tuple[str, Callable] | None = None
    # what a table cannot say once the values are right: then(run, case, seen)
    then: Callable | None = None
    # the output is one number: a float, a 0-d or one-element array or tensor (`shape_hint`
    # says so otherwise), compared as a float
    scalar: bool = False
    # name a known slip from the whole output (all parts of a tuple at once) before its shapes
    # are read: the release stores such slips whatever their shapes (a generation that stops
    # too early, a cache one token short), and the parts they get right as None
    whole: bool = False
    # (function, hint): the raw output as the value compared, e.g. (y, (k, v)) flattened to
    # (y, k, v); the function raises ValueError(what was expected[, a hint of its own]) on
    # another form
    unpack: tuple[Callable, str] | None = None
    # another right answer, a function of the arguments: an output equal to it is compared
    # with it (a batch padded whole and then sliced)
    also: Callable | None = None
    # several calls: drive(step, *args) makes them, step(*a) calling the function once and
    # giving (its result, the arguments as the call left them); drive's result is the output
    # (a model after three training steps). drive must not change `args`
    drive: Callable | None = None

    @property
    def compares_values(self) -> bool:
        return self.expect is not None or self.probe is not None

    def expected(self):
        return self.expect(*self.args, **self.keywords) if callable(self.expect) else self.expect

    @property
    def keywords(self) -> dict:
        return self.kwargs or {}


def built(run: CheckRun, call: str, *args, **kwargs):
    """The learner's module made by `call`, as a module view; not a module fails."""
    from attnbook.checks._modules import module_view

    made = run.call(call, *args, **kwargs)
    view = module_view(made)
    if view is None:
        run.fail(f"{call} is not an nn.Module (got {type(made).__name__}).",
                 hint=HINT_MODULE_SUBCLASS)  # fmt: skip
    return view


def _build(run: CheckRun, build: Build):
    """A module case's module, as the learner's class makes it: built, inspected, weights set."""
    view = built(run, build.call, *build.args, **(build.kwargs or {}))
    if build.inspect is not None:
        build.inspect(run, build.call, view)
    if build.tensors:
        try:
            view.set_tensors(build.tensors)
        except Exception as err:  # a structure its inspection let through
            run.fail(f"{build.call}: its weights could not be set ({type(err).__name__}: {err}).")
    view.train(build.train)
    return view


def expect_deterministic(
    run: CheckRun, call: str, view, *args, crash_hints: CrashHints = ()
) -> None:
    """Two calls of the module `view` in eval mode on the same input must agree exactly (no
    live dropout). The first input is repeated 16 times along its first axis, so that dropout
    left on, even at p = 0.1 on a tiny layer, all but surely drops something in one call."""
    import torch

    was_training = view.info()["modules"][""][1]
    view.eval()
    args = (torch.cat([args[0]] * 16, dim=0), *args[1:])
    first = run.invoke(call, view, *args, crash_hints=crash_hints)
    second = run.invoke(call, view, *args, crash_hints=crash_hints)
    view.train(was_training)
    tensors = all(isinstance(t, torch.Tensor) for t in (first, second))
    run.expect_true(not tensors or first.shape != second.shape or torch.equal(first, second),
                    f"{call}: two calls on the same input in eval mode gave different outputs.",
                    hint=HINT_DROPOUT)  # fmt: skip


def forbid(run: CheckRun, banned: set[str], what: str, hint: str) -> None:
    """The checked function calls none of `banned` (names the learner defines are theirs:
    `borrowed`); `what` says what it calls, "{used}" standing for the names found."""
    used = ", ".join(sorted(borrowed(names_called(run.func), banned)))
    run.expect_true(not used, f"{run.name} calls {what.format(used=used)}.", hint=hint)


@functools.cache
def package_model(make: Callable, args: tuple, seed: int | None = None,
                  randomise: Callable | None = None):  # fmt: skip
    """The package's model `make(*args)` in eval mode, made once per arguments and seed (so
    `args` are hashable: sizes, a config's items): drawn without touching torch's global
    random state (the checks make some when they are imported), then given random weights by
    `randomise(model, seed)` when a seed is given. Its parameters name and shape what a
    learner's module must have, and hold the weights a case sets; it is shared, so never
    change it (a case that needs other weights takes `weights_of` and changes those)."""
    import torch

    with torch.random.fork_rng(devices=[]):
        model = make(*args)
    if seed is not None and randomise is not None:
        randomise(model, seed)
    return model.eval()


def weights_of(model) -> dict:
    """A model's parameters by name, as copies: the `tensors` of a `Build`."""
    return {name: p.detach().clone() for name, p in model.named_parameters()}


def built_locally(cls: Callable, build: Build):
    """`_build` for a class of ours (the reference, a catalogued mistake): weights the case
    does not set are drawn from a fixed seed, so what it gives is the same every time."""
    import torch

    from attnbook.checks._modules import LocalModule

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        view = LocalModule(cls(*build.args, **(build.kwargs or {})))
    if build.tensors:
        view.set_tensors(build.tensors)
    return view.train(build.train)


def call_local(fn: Callable, case: Case, args: tuple | None = None, kwargs: dict | None = None):
    """`fn` (the reference, or a catalogued mistake; a class for a module case) called on the
    case's inputs: `args` and `kwargs` if given, else copies of the case's."""
    args = copy.deepcopy(case.args) if args is None else args
    kwargs = copy.deepcopy(case.keywords) if kwargs is None else kwargs
    if case.build is not None:
        fn = built_locally(fn, case.build)
    if case.drive is not None:
        output = case.drive(lambda *a: (fn(*a), a), *args)
    else:
        output = fn(*args, **kwargs)
    return output if case.unpack is None else case.unpack[0](output)


def token_wise_cases(
    name: str, build: Build, x, expect: Callable, hints: tuple[str, str, str], **more
) -> tuple[Case, ...]:
    """The cases of a module that acts on each token alone (an MLP), on x of shape (B, 5, d):
    the batch, its tokens reordered, one token alone, and x two features narrower (the input
    check the stub gives). `hints`: for a wrong shape, a wrong reordered batch and a wrong
    lone token; `expect(x)` is the right output."""
    shape_hint, order_hint, alone_hint = hints

    def case(case_id: str, words: str, inputs, **extra) -> Case:
        return Case(case_id, f"{name} {words}", (inputs,), expect(inputs), build=build,
                    depth=3, **more, **extra)  # fmt: skip

    narrow = x[..., 2:] * 0
    width = tuple(narrow.shape)
    return (
        case("batch", f"with random weights on x of shape [B, L, d] = {tuple(x.shape)}", x,
             shape_hint=shape_hint),
        case("reordered", "on the same x with its 5 tokens reordered", x[:, [3, 0, 4, 1, 2]],
             hint=order_hint),
        case("one token", "on one token of it, x of shape (1, 1, d)", x[:1, :1], hint=alone_hint),
        Case("narrow", f"{name} on x of shape {width}", (narrow,), build=build,
             raises=ValueError, mentions=("x", str(width))),
    )  # fmt: skip


def case_tolerance(case: Case, expected) -> Tolerance:
    """The one tolerance of the case tables: float32 precision (`ACCEPTED_DTYPE`) for values
    as large as the case's array inputs (not sizes such as L or d; none when `scale_free`),
    expected output, `case.depth` reductions deep, and `case.angle`."""
    if case.tolerance is not None:
        return case.tolerance
    arrays = [a for a in case.args if hasattr(a, "shape") and not case.scale_free]
    size = _magnitude(expected, *arrays)
    return tolerance(ACCEPTED_DTYPE, size, case.depth, case.decimals, case.angle)


def _magnitude(*values) -> float:
    """The largest finite number among arrays, numbers and tuples of them (0.0 for none)."""
    sizes = [0.0]
    for value in values:
        if isinstance(value, tuple | list) and any(hasattr(v, "shape") for v in value):
            sizes.append(_magnitude(*value))
        elif value is not None and not isinstance(value, str | bool):
            try:
                sizes.append(magnitude_of(value))
            except (TypeError, ValueError):  # not numbers: no size
                continue
    return max(sizes)


# -- the known slips ---------------------------------------------------------------------------
class Slips:
    """The known slips of one notebook's checks, each with its hint: the generated outputs on
    the visible cases (`attnbook.checks.slips.nbNN`) and, for hidden trials, the reference's
    resolved mistakes."""

    def __init__(self, module_name: str):
        self.module_name = module_name  # "nb01"

    def visible(self, function: str, case_id: str) -> list[Mistake]:
        try:
            data = importlib.import_module(f"attnbook.checks.slips.{self.module_name}").SLIPS
        except ModuleNotFoundError:
            return []
        return [
            Mistake(name, output, hint)
            for name, hint, output in data.get(function, {}).get(case_id, ())
        ]

    def hidden(self, function: str, reference: Callable, case: Case) -> list[Mistake]:
        """The reference module's resolved mistakes of `function` run on the case's inputs (a
        mistake that raises, or returns nothing comparable, is left out)."""
        table = _namespace_of(reference).get("SLIPS", {})
        out = []
        for name, hint, mutant in table.get(function, ()):
            try:
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # a wrong program's warnings: not news
                    output = call_local(mutant, case)
            except Exception:  # a mistake that fails on these inputs is not what we see
                continue
            out.append(Mistake(name, output, hint))
        return out


def _namespace_of(reference: Callable) -> dict:
    """The globals of the module that defines `reference` (a function, or a class)."""
    target = inspect.unwrap(reference)
    functions = [target] if inspect.isfunction(target) else list(vars(target).values())
    return next((f.__globals__ for f in functions if inspect.isfunction(f)), {})


def _parts(output, index: int | None):
    if index is None:
        return output
    return output[index] if isinstance(output, tuple | list) and len(output) > index else None


def _run_single(run: CheckRun, case: Case, seen, expected, slips: Sequence[Mistake]):
    """The rest of `run_case` for a function that returns one value: shape, finite, probe,
    close (on a view of the output, if the case names one), then what is left."""
    shape = case.shape if case.shape is not None else _shape_of(expected)
    if case.shape is not None or expected is not None:
        run.expect_shape(case.call, seen, shape, hint=_shape_hint(case, seen, shape),
                         expected=expected)  # fmt: skip
    if case.finite:
        if expected is not None:
            _name_non_finite(run, case, seen, expected, slips)
        run.expect_finite(case.call, seen, hint=_finite_hint(case, seen))
    if case.probe is not None:
        case.probe(run, case, seen, expected, slips)
    if expected is not None and case.view is not None:
        words, view = case.view
        seen_view = view(as_array(seen))
        on_view = [Mistake(m.name, view(as_array(m.output)), m.hint) for m in slips]
        call = f"{case.call}: {words}"
        _close(run, case, call, seen_view, expected, on_view, case.hint, case.what)
    elif expected is not None:
        _close(run, case, case.call, seen, expected, slips, case.hint, case.what)
    if case.then is not None:
        case.then(run, case, seen)
    return seen


def _name_non_finite(run: CheckRun, case: Case, seen, expected, slips: Sequence[Mistake]) -> None:
    """An output with NaN or an infinity that a known slip gives too (NaN where it has NaN):
    named before the finiteness check says only that it is not finite."""
    try:
        array = as_array(seen)
    except Exception:  # not array-like: the shape check says so
        return
    if array.dtype.kind not in "fc" or np.all(np.isfinite(array)):
        return
    tol = case_tolerance(case, expected)
    for slip in slips:
        try:
            same = _allclose(array, as_array(slip.output), tol.rtol, tol.atol, equal_nan=True)
        except Exception:  # an output of another kind: not this slip
            continue
        if same:
            run.fail(f"{case.call} returned non-finite values.\nThis looks like a known "
                     f"mistake: {slip.name}.", hint=slip.hint)  # fmt: skip


def _agreeing(seen, form, case: Case) -> float:
    """How much of `seen` is the right output `form`: infinity when all of it is; otherwise,
    for a tuple, the number of its parts that match (so a slip in one part is compared with
    the form the other parts follow), and 0 for anything else."""
    if _matches(seen, form, form, case_tolerance(case, form)):
        return float("inf")
    if not (isinstance(form, tuple | list) and isinstance(seen, tuple | list)):
        return 0.0
    return float(sum(_matches(s, f, f, case_tolerance(case, f)) for s, f in zip(seen, form)))


# -- running a case ----------------------------------------------------------------------------
def run_case(run: CheckRun, case: Case, slips: Sequence[Mistake] = ()):
    """Call, shape, finite, close (naming the slip the output matches), then a module's graph:
    every parameter trains, none frozen or cut off by torch.no_grad() or .detach() (after the
    values, so that a wrong output gets its own hint); the output."""
    seen, module = _checked(run, case, slips), run.module
    if module is not None and case.raises is None and case.drive is None:  # each param reached
        lost = run.invoke(f"{case.call}, then a backward from its output", lambda *a, **k:
                          module.unreached(a, k), *case.args, **case.keywords,
                          crash_hints=(("inplace operation", HINT_BACKWARD_IN_PLACE),))  # fmt: skip
        named = ", ".join(lost[:3]) + (" ..." if len(lost) > 3 else "")
        run.expect_true(not lost, f"{case.call}: {named} never train: frozen (requires_grad "
                        "False), or out of the output's graph.", hint=HINT_KEEP_GRAPH)  # fmt: skip
    return seen


def _checked(run: CheckRun, case: Case, slips: Sequence[Mistake]):
    module = None if case.build is None else _build(run, case.build)
    run.module = module
    if case.raises is not None:
        raising = run if module is None else CheckRun(module, name=run.name, passed=run.passed)
        raising.expect_raises(case.call, case.raises, *case.args, mentions=case.mentions,
                              **case.keywords)  # fmt: skip
        run.passed = raising.passed
        return None
    fn = run.func if module is None else module
    if case.drive is not None:
        seen = case.drive(functools.partial(_observed_step, run, case, fn), *case.args)
    else:
        seen = run.invoke(case.call, fn, *case.args, crash_hints=case.crash_hints,
                          **case.keywords)  # fmt: skip
    if case.unpack is not None:
        seen = _unpacked(run, case, seen)
    if case.before is not None:
        case.before(run, case, seen)
    if case.scalar:
        seen = _one_number(run, case, seen)
    expected = case.expected()
    if case.also is not None and expected is not None:
        other = case.also(*case.args, **case.keywords)
        if _agreeing(seen, other, case) > _agreeing(seen, expected, case):
            expected = other  # the other right form, which more of the output follows
    if case.whole and expected is not None:
        _name_whole_slip(run, case, seen, expected, slips)
    if case.returns is None:
        return _run_single(run, case, seen, expected, slips)
    returns = case.returns
    shapes = case.shape or tuple(_shape_of(e) for e in expected)
    n = len(returns.parts)
    length = f" of length {len(seen)}" if isinstance(seen, tuple | list) else ""
    run.expect_true(isinstance(seen, tuple | list) and len(seen) == n, f"{case.call} should "
                    f"return a tuple ({returns.names}); got {type(seen).__name__}{length}",
                    hint=returns.hint)  # fmt: skip
    got = [tuple(_shape_of(s)) for s in seen]
    if returns.order_hint and got != [tuple(s) for s in shapes]:
        if sorted(got) == sorted(tuple(s) for s in shapes) and len(set(got)) == n:
            order = [next(p.label for p in returns.parts if shapes[p.index] == g) for g in got]
            run.fail(f"{case.call} returned ({', '.join(order)}) instead of ({returns.names}).",
                     hint=returns.order_hint)  # fmt: skip
    for part in returns.parts:
        label = f"{case.call}: {part.label}"
        run.expect_shape(label, seen[part.index], shapes[part.index], hint=part.shape_hint,
                         expected=None if expected is None else expected[part.index])  # fmt: skip
    if case.finite:
        for part in returns.parts:
            hint = _finite_hint(case, seen)
            run.expect_finite(f"{case.call}: {part.label}", seen[part.index], hint)
    if expected is None:
        return seen
    for part in returns.parts:
        on_part = [
            Mistake(m.name, o, m.hint)
            for m in slips
            if (o := _parts(m.output, part.index)) is not None
        ]
        _close(run, case, f"{case.call}: {part.label}", seen[part.index], expected[part.index],
               on_part, case.hint or part.hint, part.what)  # fmt: skip
    if case.then is not None:
        case.then(run, case, seen)
    return seen


def _observed_step(run: CheckRun, case: Case, fn: Callable, *args):
    """One call of a driven case: (its result, the arguments as it left them)."""
    done = run.observe(case.call, fn, *args, crash_hints=case.crash_hints)
    return done.result, done.args_after


def _unpacked(run: CheckRun, case: Case, seen):
    """The output as `case.unpack` reads it; one of another form fails with its hint."""
    assert case.unpack is not None  # run_case calls this only for a case with one
    unpack, hint = case.unpack
    try:
        return unpack(seen)
    except (TypeError, ValueError, IndexError) as err:
        words, *named = err.args if isinstance(err, ValueError) and err.args else (err,)
        run.fail(f"{case.call} returned {type(seen).__name__}; {words}", hint=(named or [hint])[0])


def _name_whole_slip(run: CheckRun, case: Case, seen, expected, slips) -> None:
    """An output (or tuple) that is a known slip's as a whole, its shapes not yet read. When
    several slips of different hints give it on this case, each is named."""
    tol = case_tolerance(case, expected)
    if _matches(seen, expected, expected, tol):
        return
    run.fail_as_known(f"{case.call} returned wrong values.",
                      matching_slips(seen, expected, slips, tol))  # fmt: skip


def one_number(value) -> float | None:
    """`value` as a float when it is one number (a float, a 0-d or one-element array or
    tensor), else None."""
    try:
        array = as_array(value)
    except Exception:  # not array-like
        return None
    if array.size != 1 or array.dtype.kind not in "biufc":
        return None
    return float(array.reshape(-1)[0].real)


def _one_number(run: CheckRun, case: Case, seen) -> float:
    """A scalar case's output as a float; one that holds more or fewer numbers fails."""
    number = one_number(seen)
    if number is None:
        try:
            shape = f" of shape {tuple(np.shape(seen))}"
        except ValueError:  # a ragged list
            shape = ""
        run.fail(f"{case.call} returned {type(seen).__name__}{shape}; expected one number.",
                 hint=_shape_hint(case, seen, ()) if case.shape_hint else None)  # fmt: skip
    assert number is not None  # run.fail raised otherwise
    run.passed += 1
    return number


def _finite_hint(case: Case, seen=None) -> str | None:
    if callable(case.finite):
        return case.finite(case, seen)
    return case.finite if isinstance(case.finite, str) else None


def _shape_hint(case: Case, seen, shape) -> str | None:
    """The case's shape hint; one that is a function reads the wrong shape it was given."""
    if not callable(case.shape_hint):
        return case.shape_hint
    try:
        got = tuple(_shape_of(seen))
    except Exception:  # a ragged list or such: no shape to read
        got = ()
    return case.shape_hint(got, tuple(shape))


def _close(run, case, call, seen, expected, slips, hint, what) -> None:
    tol = case_tolerance(case, expected)
    run.expect_close(call, seen, expected, mistakes=slips, tol=tol, what=what, hint=hint)


# -- hidden trials: one seed policy, one input generator per argument kind --------------------
def trial_rng(function: str, seed: int) -> np.random.Generator:
    """The generator of trial `seed` of `function`'s check: a seed from `hidden_range` (the
    course secret's, in the grader) and the function's name, nothing else."""
    return np.random.default_rng([seed, zlib.crc32(function.encode())])


def sizes(rng: np.random.Generator, count: int, high: int = 7) -> list[int]:
    """`count` sizes in 1..high-1."""
    return [int(v) for v in rng.integers(1, high, size=count)]


def normal(rng: np.random.Generator, *shape: int, decades: tuple[int, int] = (0, 0)) -> np.ndarray:
    """Standard normal values times 10**k, k drawn from `decades` (inclusive)."""
    low, high = decades
    return rng.standard_normal(shape) * 10.0 ** int(rng.integers(low, high + 1))


def with_neg_inf(rng: np.random.Generator, S: np.ndarray, share: float = 0.3) -> np.ndarray:
    """`S` with about `share` of its entries set to -inf (masked scores)."""
    S = S.copy()
    if S.size:
        S[rng.random(S.shape) < share] = -np.inf
    return S


def run_trials(
    run: CheckRun,
    function: str,
    reference: Callable | None,
    trials: int,
    draw: Callable[[np.random.Generator, int], Case | Sequence[Case]],
    slips: Slips,
) -> None:
    """Compare with the reference on `trials` random cases; `draw(rng, seed)` makes each
    (its call text, arguments and checks; the expected value is the reference's), or a
    list of cases that share one draw (a model and its ids)."""
    if reference is None:
        return
    drawn = [draw(trial_rng(function, seed), seed) for seed in hidden_range(trials)]
    cases = [c for d in drawn for c in (d if isinstance(d, list | tuple) else (d,))]
    run_reference_cases(run, function, reference, cases, slips)


def run_table(
    run: CheckRun,
    function: str,
    cases: Sequence[Case],
    slips: Slips,
    reference: Callable | None = None,
    trials: int = 0,
    draw: Callable[[np.random.Generator, int], Case | Sequence[Case]] | None = None,
) -> None:
    """A check that is its table: `cases`, then `trials` hidden trials drawn by `draw`
    against the reference (none without one), and the run's verdict."""
    run_cases(run, function, cases, slips)
    if draw is not None:
        run_trials(run, function, reference, trials, draw, slips)
    run.done()


def run_reference_cases(
    run: CheckRun, function: str, reference: Callable, cases: Sequence[Case], slips: Slips
) -> None:
    """Run `cases`, each expecting the reference's output and naming the slip whose output
    (the reference's resolved mistakes, run on the case's inputs) the learner's matches."""
    prepared = []
    for case in cases:
        expected = call_local(reference, case)
        mistakes = slips.hidden(function, reference, case)
        prepared.append((_coinciding(mistakes, expected, case_tolerance(case, expected)), case,
                         expected, mistakes))  # fmt: skip
    # A case on which two slips give one output (a 1-query trial: scaling by the number of
    # tokens is no scaling) cannot say which one it saw; the cases that can go first, so the
    # first failure reported names the slip whenever any case can.
    for _, case, expected, mistakes in sorted(prepared, key=lambda p: p[0]):
        run_case(run, replace(case, expect=expected), mistakes)


def _coinciding(mistakes: Sequence[Mistake], expected, tol: Tolerance) -> int:
    """How many pairs of `mistakes` give one output (within `tol`) on a case."""
    return sum(_matches(a.output, b.output, expected, tol)
               for i, a in enumerate(mistakes) for b in mistakes[i + 1 :])  # fmt: skip


def fallback_hints(cases: Sequence[Case]) -> set[str]:
    """The hints a table gives when no known slip matches (a wrong shape, wrong values, a
    crash, an output of another form): each case's and each part's own, and the runner's
    own for a case that must raise, build a module or be finite. A slip's hint comes from the
    catalogue; these are what is left when the output is no known slip's."""
    texts: list = []
    for case in cases:
        texts += [case.hint, case.shape_hint, case.finite, *(h for _, h in case.crash_hints)]
        texts += [HINT_NON_FINITE] if case.finite is True else []
        texts += [HINT_GIVEN_LINES] if case.raises is not None else []
        texts += [HINT_MODULE_SUBCLASS, HINT_KEEP_GRAPH, HINT_BACKWARD_IN_PLACE] * bool(case.build)
        texts += [case.unpack[1]] if case.unpack else []
        if case.returns is not None:
            texts += [case.returns.hint, case.returns.order_hint]
            texts += [h for p in case.returns.parts for h in (p.hint, p.shape_hint)]
    return {t for t in texts if isinstance(t, str)}


def run_cases(run: CheckRun, function: str, cases: Sequence[Case], slips: Slips) -> dict:
    """Run a check's table in order, each case with its generated slips; outputs by case id."""
    return {case.id: run_case(run, case, slips.visible(function, case.id)) for case in cases}


def probe_tolerance(*values, depth: int = 2) -> Tolerance:
    """The tolerance of a check's own probe (a property of the output), by the same policy as
    the cases: float32 precision for values as large as `values`."""
    return tolerance(ACCEPTED_DTYPE, _magnitude(*values), depth)
