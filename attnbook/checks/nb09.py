"""Checks for notebook 09, beyond attention: the linear recurrence, step by step and in parallel.

Both graded functions compute ``s_t = A s_{t-1} + B x_t`` for t = 0..L-1 with the start
convention ``s_{-1} = 0`` (so ``s_0 = B x_0``) and return the states as rows, (L, n).

Visible use: `check_linear_recurrence(linear_recurrence)` runs a table of cases (`CASES`): the
worked example with stored values, a larger system, one step, and the properties A = 0 (each
state is B x_t) and A = I (running sums). The expected states of the other inputs come from
PyTorch's triangular solver applied to the whole recurrence at once, a route neither exercise
takes: stacking the L equations gives one block lower-bidiagonal system (I - shift (x) A) s =
(I (x) B) x. The known slips on these cases are generated from the mistake catalogue into
`slips/nb09.py`. Hidden use: `reference=` also compares with the autograder's reference on
random sizes, spectral radii and edge cases, naming the catalogued slip a wrong answer matches.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import torch

from attnbook.checks._cases import (
    Case,
    Slips,
    run_cases,
    run_trials,
    sizes,
)
from attnbook.checks._core import CheckRun, as_array, describe, names_called

__all__ = ["check_linear_recurrence", "check_linear_recurrence_parallel"]

KNOWN = Slips("nb09")

# The worked example of the notebook: a 2-dimensional state, 2 input features, 4 steps.
WORKED_A = np.array([[0.5, 1.0], [0.0, 0.5]])
WORKED_B = np.array([[1.0, 0.0], [1.0, 2.0]])
WORKED_X = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0], [1.0, 1.0]])
# s_0 = B x_0 = (1, 1); s_1 = A s_0 + B x_1 = (1.5, 0.5) + (0, 2) = (1.5, 2.5);
# s_2 = A s_1 = (3.25, 1.25); s_3 = A s_2 + B x_3 = (2.875, 0.625) + (1, 3) = (3.875, 3.625).
WORKED_S = np.array([[1.0, 1.0], [1.5, 2.5], [3.25, 1.25], [3.875, 3.625]])

HINT_SHIFT = (
    "row t of the result must be s_t, the state AFTER reading x_t (s_0 = B x_0): "
    "store the state after the update, not before"
)
HINT_CAUSAL = "s_t may only depend on inputs x_j with j <= t: no future input"
HINT_ELEMENTWISE_STATE = (
    "A * s multiplies entry by entry (and broadcasts to (n, n)); the update is the matrix-vector "
    "product A @ s. A column state of shape (n, 1) plus a row B @ x_t of shape (n,) broadcasts to "
    "(n, n) too: keep s one-dimensional, np.zeros(n)"
)
HINT_SIZES = (
    "take every size from the arguments: n = A.shape[0] (the state), m = B.shape[1] "
    "(the input), L = len(X); nothing hard-coded from the worked example (2 and 4), "
    "and the output is (L, n), not X's shape (L, m)"
)
HINT_SINGULAR = ("A may be singular (A = 0 forgets the past): never invert A; step s_t = A "
                 "s_{t-1} + B x_t, or double with powers A^2, A^4, ...")  # fmt: skip
HINT_INTEGER = (
    "the states are real numbers: an integer array (dtype=int) truncates every "
    "value written into it; preallocate with np.zeros((L, n)) (float)"
)
HINT_VALUES = (
    "follow the worked example row by row: s_0 = B x_0 = (1, 1), s_1 = A s_0 + "
    "B x_1 = (1.5, 2.5), s_2 = A s_1 = (3.25, 1.25)"
)
HINT_CALLS_LOOP = (
    "the parallel form must not call linear_recurrence (the step-by-step "
    "loop): build it from the powers of A (a convolution) or a doubling scan"
)


def _solve_states(A: np.ndarray, B: np.ndarray, X: np.ndarray) -> np.ndarray:
    """The states of ``s_t = A s_{t-1} + B x_t`` by one block triangular solve, (L, n)."""
    A_t, B_t, X_t = (torch.as_tensor(np.ascontiguousarray(v, dtype=np.float64)) for v in (A, B, X))
    n, L = A_t.shape[0], X_t.shape[0]
    shift = torch.diag(torch.ones(L - 1, dtype=torch.float64), -1)  # (L, L), ones below
    M = torch.eye(L * n, dtype=torch.float64) - torch.kron(shift, A_t)  # (Ln, Ln)
    u = (X_t @ B_t.T).reshape(L * n, 1)  # (Ln, 1): the inputs B x_t, stacked
    s = torch.linalg.solve_triangular(M, u, upper=False)  # (Ln, 1)
    return s.reshape(L, n).numpy()  # (L, n)


def _stable_A(rng: np.random.Generator, n: int, radius: float) -> np.ndarray:
    A = rng.standard_normal((n, n))  # (n, n)
    return radius * A / max(np.abs(np.linalg.eigvals(A)).max(), 1e-12)


HINT_STATES_IN_PLACE = "compute new arrays (s = A @ s + ...) instead of writing into A, B or X"
HINT_KEEP_STATES = "keep every state: one row per time step t"
HINT_STATES_SHAPE = "one row per time step t and one column per state entry: (L, n). " + HINT_SIZES
HINT_STATES_FINITE = (
    "a stable A (all |eigenvalues| < 1) keeps every state finite: look for a "
    "division or an uninitialised array"
)


def _shape_hint(seen: tuple, expected: tuple) -> str:
    """A wrong shape of the states, read: (L, n, n) or (n, n) is an elementwise product that
    broadcast; (n,) is the final state alone."""
    L, n = expected
    if n > 1 and seen in ((L, n, n), (n, n)):
        return HINT_ELEMENTWISE_STATE
    if seen == (n,) and L > 1:
        return HINT_KEEP_STATES
    return HINT_STATES_SHAPE


def _integer_probe(run: CheckRun, case: Case, S, expected, slips) -> None:
    """Integer states where the right ones are not whole numbers: an integer array."""
    if as_array(S).dtype.kind in "biu" and not np.array_equal(expected, np.round(expected)):
        run.fail(
            f"{case.call} returned integers ({describe(S)}); the states are not whole numbers.",
            hint=HINT_INTEGER,
        )


def _case(case_id: str, call: str, A, B, X, expect=None, hint=HINT_VALUES) -> Case:
    """One call of a recurrence on (A, B, X); its states by the triangular solve unless given
    (a reference trial's come from the reference)."""
    return Case(case_id, call, (A, B, X),
                expect=_solve_states(A, B, X) if expect is None else expect, hint=hint,
                shape_hint=_shape_hint, finite=HINT_STATES_FINITE,
                # A = 0 is singular; any other crash: most often a size of the worked example
                crash_hints=((("Singular", "singular"), HINT_SINGULAR), ("", HINT_SIZES)),
                depth=len(X) + 2,  # a product and a sum per step
                what="states", probe=_integer_probe)  # fmt: skip


_rng = np.random.default_rng(9)
_A, _B, _X = _stable_A(_rng, 3, 0.8), _rng.standard_normal((3, 2)), _rng.standard_normal((6, 2))


def _table(name: str) -> tuple[Case, ...]:
    return (
        _case("worked", f"{name}(A, B, X) on the worked example (n = 2, m = 2, L = 4)",
              WORKED_A, WORKED_B, WORKED_X, expect=WORKED_S),
        _case("3 x 3", f"{name}(A, B, X) with A (3, 3), B (3, 2), X (6, 2)", _A, _B, _X),
        _case("one step", f"{name}(A, B, X) with a single time step, X (1, 2)", _A, _B, _X[:1]),
        _case("A = 0", f"{name}(0, B, X): A = 0 forgets the past, each state is B x_t",
              np.zeros((3, 3)), _B, _X, expect=_X @ _B.T),
        _case("A = I", f"{name}(I, B, X): A = I forgets nothing, each state is the running "
              "sum of B x_j", np.eye(3), _B, _X, expect=np.cumsum(_X @ _B.T, axis=0)),
        Case("A not square", f"{name} with A of shape (2, 3)",
             (np.zeros((2, 3)), WORKED_B, WORKED_X), raises=ValueError, mentions=("A", "(2, 3)")),
        Case("X too wide", f"{name} with B (2, 2) and X (4, 3)",
             (WORKED_A, WORKED_B, np.zeros((4, 3))), raises=ValueError,
             mentions=("X", "B", "(4, 3)", "(2, 2)")),
    )  # fmt: skip


# detectors raised from the code itself, not from an output (see scripts/release.py)
PROPERTY_DETECTORS = ("HINT_CALLS_LOOP",)

CASES = {
    "linear_recurrence": _table("linear_recurrence"),
    "linear_recurrence_parallel": _table("linear_recurrence_parallel"),
}


def _trial(name: str):
    def draw(rng: np.random.Generator, seed: int) -> Case:
        n, m = sizes(rng, 2, high=6)
        L = int(rng.integers(1, 40))
        radius = float(rng.choice([0.3, 0.9, 1.0, 1.1]))
        A, B, X = (
            _stable_A(rng, n, radius),
            rng.standard_normal((n, m)),
            rng.standard_normal((L, m)),
        )
        call = (
            f"{name} on random A ({n}, {n}) of spectral radius {radius}, X ({L}, {m}) (seed {seed})"
        )
        return _case("trial", call, A, B, X)

    return draw


def _edge_cases(rng: np.random.Generator, seed: int, name: str) -> list[Case]:
    """Two hidden cases beyond the trials: large inputs over many steps, a scalar state."""
    A, B = _stable_A(rng, 4, 0.99), rng.standard_normal((4, 3))
    X = 1e6 * rng.standard_normal((300, 3))
    a, b = np.array([[rng.uniform(0.2, 0.8)]]), np.array([[rng.uniform(1.0, 3.0)]])
    return [
        _case("large", f"{name} on large inputs (|x| ~ 1e6) over L = 300 steps", A, B, X),
        _case("scalar", f"{name} with a scalar state (n = m = 1)", a, b, np.ones((5, 1))),
    ]


def _check(fn, reference, trials: int, name: str) -> None:
    run = CheckRun(fn)
    # the student's function gets copies, so one that writes into its inputs cannot change
    # the stored worked example (or the inputs of the later calls)
    run.in_place_hint = HINT_STATES_IN_PLACE
    if name == "linear_recurrence_parallel" and "linear_recurrence" in names_called(fn):
        run.fail("calls linear_recurrence, the step-by-step loop.", hint=HINT_CALLS_LOOP)
    run_cases(run, name, CASES[name], KNOWN)
    run_trials(run, name, reference, trials, _trial(name), KNOWN)
    run_trials(run, name, reference, 1, partial(_edge_cases, name=name), KNOWN)
    run.done()


def check_linear_recurrence(linear_recurrence, reference=None, trials: int = 12) -> None:
    """The step-by-step loop: the table `CASES` (worked example, a 3 x 3 system, one step,
    A = 0, A = I, two input checks), then random trials and edge cases against the reference."""
    _check(linear_recurrence, reference, trials, "linear_recurrence")


def check_linear_recurrence_parallel(
    linear_recurrence_parallel, reference=None, trials: int = 12
) -> None:
    """The parallel form: the same table and trials as the loop, and it must not call the
    loop."""
    _check(linear_recurrence_parallel, reference, trials, "linear_recurrence_parallel")
