"""Checks for notebook 09, beyond attention: the linear recurrence, step by step and in parallel.

Both graded functions compute ``s_t = A s_{t-1} + B x_t`` for t = 0..L-1 with the start
convention ``s_{-1} = 0`` (so ``s_0 = B x_0``) and return the states as rows, (L, n).

Visible use: `check_linear_recurrence(linear_recurrence)` runs a worked example with stored
values and properties (A = 0 gives B x_t; A = I gives running sums). The expected states of
other inputs come from PyTorch's triangular solver applied to the whole recurrence at once,
a route neither exercise takes: stacking the L equations gives one block lower-bidiagonal
system (I - shift (x) A) s = (I (x) B) x. Hidden use: `reference=` also compares with the
autograder's reference on random sizes, seeds and edge cases.
"""

from __future__ import annotations

import numpy as np
import torch

from attnbook.checks._core import (
    CheckRun,
    Mistake,
    as_array,
    describe,
    hidden_range,
    hidden_seed,
    names_called,
)

__all__ = ["check_linear_recurrence", "check_linear_recurrence_parallel"]

# float32 level, relative to the largest state: a loop or scan run in float32 (torch's default
# dtype) is correct and lands within about 1e-6 of the scale; every catalogued mistake is off
# by far more.
RTOL, ATOL = 1e-5, 1e-5

# The worked example of the notebook: a 2-dimensional state, 2 input features, 4 steps.
WORKED_A = np.array([[0.5, 1.0], [0.0, 0.5]])
WORKED_B = np.array([[1.0, 0.0], [1.0, 2.0]])
WORKED_X = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0], [1.0, 1.0]])
# s_0 = B x_0 = (1, 1); s_1 = A s_0 + B x_1 = (1.5, 0.5) + (0, 2) = (1.5, 2.5);
# s_2 = A s_1 = (3.25, 1.25); s_3 = A s_2 + B x_3 = (2.875, 0.625) + (1, 3) = (3.875, 3.625).
WORKED_S = np.array([[1.0, 1.0], [1.5, 2.5], [3.25, 1.25], [3.875, 3.625]])

HINT_ORDER = (
    "the new state is A s_{t-1} + B x_t: A multiplies the previous state only, "
    "so x_j reaches s_t as A^(t-j) B x_j (A^0 = I for j = t); A^(t-j+1) is one "
    "step too many"
)
HINT_TRANSPOSE = (
    "with states as column vectors the update is A @ s; s @ A (a row vector "
    "times A) computes A.T @ s"
)
HINT_SHIFT = (
    "row t of the result must be s_t, the state AFTER reading x_t (s_0 = B x_0): "
    "store the state after the update, not before"
)
HINT_START = (
    "start from s_{-1} = 0 and let the loop read x_0 once; starting from B x_0 and "
    "then looping from t = 0 counts x_0 twice (a start state of ones adds a term "
    "that is not there, too)"
)
HINT_B = "map each input into the state with B: the term is B @ x_t, shape (n,)"
HINT_B_TRANSPOSE = "B has shape (n, m), so the input term is B @ x_t (not x_t @ B)"
HINT_ALIAS = (
    "every row equals the last state: the same array was updated in place and "
    "stored L times; store a new array each step (s = ... builds one; s[:] = ... or "
    "s += ... writes into the one already stored)"
)
HINT_DIAGONAL = "j runs up to and including t: the j = t term is A^0 B x_t = B x_t"
HINT_ELEMENTWISE = (
    "A ** k raises each ENTRY to the power k (and A ** 0 is all ones); the "
    "matrix power is np.linalg.matrix_power(A, k) or repeated A @ ..."
)
HINT_FLIPPED = "the power counts the steps from j to t: A^(t-j), not A^j"
HINT_INPUT_ONCE = "add the input term B x_t at every step, not only at t = 0"
HINT_SCAN_POWER = (
    "in round k a block travels offset = 2^k steps, so move it by A^offset: "
    "square the power after each round"
)
HINT_CAUSAL = "s_t may only depend on inputs x_j with j <= t: no future input"
HINT_ZERO_START = "start from s_{-1} = 0, np.zeros(n): nothing has been read before x_0"
HINT_SCAN_IN_PLACE = (
    "compute every row of a round from the states of the PREVIOUS round: "
    "build the new S from the old one (np.concatenate or a copy), not row "
    "by row in place"
)
HINT_SCAN_ROUNDS = (
    "keep doubling while offset < L: after the last round every row must "
    "have gathered all of its past inputs"
)
HINT_ELEMENTWISE_STATE = (
    "A * s multiplies entry by entry (and broadcasts to (n, n)); the "
    "update is the matrix-vector product A @ s. A column state of shape "
    "(n, 1) plus a row B @ x_t of shape (n,) broadcasts to (n, n) too: "
    "keep s one-dimensional, np.zeros(n)"
)
HINT_SIGN = "the input term is added, not subtracted: s_t = A s_{t-1} + B x_t"
HINT_REVERSED = (
    "row t is s_t, in time order: append each new state at the end (not "
    "insert(0, ...)) and do not reverse the result"
)
HINT_SIZES = (
    "take every size from the arguments: n = A.shape[0] (the state), m = B.shape[1] "
    "(the input), L = len(X); nothing hard-coded from the worked example (2 and 4), "
    "and the output is (L, n), not X's shape (L, m)"
)
HINT_INTEGER = (
    "the states are real numbers: an integer array (dtype=int) truncates every "
    "value written into it; preallocate with np.zeros((L, n)) (float)"
)
HINT_SCAN_LINEAR_POWER = (
    "in round k a block travels offset = 2^k steps, so move it by "
    "A^offset: square the power after each round (power @ power, not "
    "power @ A)"
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


def _elementwise_power_states(A, B, X) -> np.ndarray:
    """sum_j (A elementwise-to-the (t-j)) B x_j: what ``A ** (t - j)`` computes in numpy."""
    L = X.shape[0]
    U = X @ B.T  # (L, n)
    out = np.zeros((L, A.shape[0]))
    for t in range(L):
        for j in range(t + 1):
            out[t] += (A ** (t - j)) @ U[j]
    return out


def _flipped_states(A, B, X) -> np.ndarray:
    L = X.shape[0]
    U = X @ B.T  # (L, n)
    powers = [np.linalg.matrix_power(A, k) for k in range(L)]
    return np.array([sum(powers[j] @ U[j] for j in range(t + 1)) for t in range(L)])


def _noncausal_states(A, B, X) -> np.ndarray:
    """Every input counted with A^|t-j|: a two-sided convolution."""
    L = X.shape[0]
    U = X @ B.T  # (L, n)
    powers = [np.linalg.matrix_power(A, k) for k in range(L)]
    return np.array([sum(powers[abs(t - j)] @ U[j] for j in range(L)) for t in range(L)])


def _scan_with_plain_A(A, B, X) -> np.ndarray:
    S = X @ B.T  # (L, n)
    offset = 1
    while offset < len(S):
        S = np.concatenate([S[:offset], S[offset:] + S[:-offset] @ A.T])
        offset *= 2
    return S


def _scan_in_place(A, B, X) -> np.ndarray:
    """Doubling scan whose rows are updated in place in increasing t: later rows read rows
    that this round already updated."""
    S = X @ B.T  # (L, n)
    power, offset = A, 1
    while offset < len(S):
        for t in range(offset, len(S)):
            S[t] = S[t] + power @ S[t - offset]
        power, offset = power @ power, offset * 2
    return S


def _scan_variant(A, B, X, squared_first: bool = False, rounds_short: int = 0) -> np.ndarray:
    S = X @ B.T  # (L, n)
    power, offset = A, 1
    rounds = 0
    while offset < len(S):
        rounds += 1
        power = power @ power if squared_first else power
        S = np.concatenate([S[:offset], S[offset:] + S[:-offset] @ power.T])
        power = power if squared_first else power @ power
        offset *= 2
    if rounds_short:  # redo with one round fewer
        S, power, offset = X @ B.T, A, 1
        for _ in range(max(rounds - rounds_short, 0)):
            S = np.concatenate([S[:offset], S[offset:] + S[:-offset] @ power.T])
            power, offset = power @ power, offset * 2
    return S


def _scan_linear_power(A, B, X) -> np.ndarray:
    """Doubling scan whose power grows by one factor A per round (A, A^2, A^3, ...)."""
    S = X @ B.T  # (L, n)
    power, offset = A, 1
    while offset < len(S):
        S = np.concatenate([S[:offset], S[offset:] + S[:-offset] @ power.T])
        power, offset = power @ A, offset * 2
    return S


def _anticausal_states(A, B, X) -> np.ndarray:
    """s_t = sum_{j >= t} A^(j-t) B x_j: the convolution run backwards in time."""
    return _solve_states(A, B, X[::-1].copy())[::-1].copy()


def _recurrence_mistakes(A, B, X, parallel: bool) -> list[Mistake]:
    S = _solve_states(A, B, X)  # (L, n)
    n, m = B.shape
    first_only = np.zeros_like(X)
    first_only[0] = X[0]
    out = [
        Mistake(
            "A applied once too often: s_t = A (s_{t-1} + B x_t), the same as A^(t-j+1) "
            "in the unrolled sum",
            _solve_states(A, A @ B, X),
            HINT_ORDER,
        ),
        Mistake("A transposed (s @ A, or A.T @ s)", _solve_states(A.T, B, X), HINT_TRANSPOSE),
        Mistake(
            "off by one: row t holds the state before x_t was read",
            np.vstack([np.zeros((1, n)), S[:-1]]),
            HINT_SHIFT,
        ),
        Mistake(
            "x_0 counted twice (start state B x_0, then the loop from t = 0)",
            S + _solve_states(A, B, first_only) @ A.T,
            HINT_START,
        ),
        Mistake(
            "only x_0 enters: the input term is missing after the first step",
            _solve_states(A, B, first_only),
            HINT_INPUT_ONCE,
        ),
        Mistake(
            "every row is the final state (one array updated in place, stored L times)",
            np.tile(S[-1], (len(S), 1)),
            HINT_ALIAS,
        ),
        Mistake(
            "start state s_{-1} = 1 (np.ones) instead of 0",
            S
            + np.array([np.linalg.matrix_power(A, t + 1).sum(1) for t in range(len(S))]).reshape(
                S.shape
            ),
            HINT_ZERO_START,
        ),
        Mistake(
            "A applied to the input instead of the state (s_t = s_{t-1} + A B x_t)",
            np.cumsum(X @ (A @ B).T, axis=0),
            HINT_ORDER,
        ),
        Mistake("the input term subtracted (s_t = A s_{t-1} - B x_t)", -S, HINT_SIGN),
        Mistake("the states in reverse time order (row t holds s_{L-1-t})", S[::-1], HINT_REVERSED),
    ]
    if n == m:
        out.append(
            Mistake(
                "input term without B (s_t = A s_{t-1} + x_t)",
                _solve_states(A, np.eye(n), X),
                HINT_B,
            )
        )
        out.append(
            Mistake(
                "B transposed (x_t @ B instead of B @ x_t)",
                _solve_states(A, B.T, X),
                HINT_B_TRANSPOSE,
            )
        )
    if parallel:
        out += [
            Mistake("the j = t term left out (sum over j < t only)", S - X @ B.T, HINT_DIAGONAL),
            Mistake(
                "elementwise powers (A ** k) instead of matrix powers",
                _elementwise_power_states(A, B, X),
                HINT_ELEMENTWISE,
            ),
            Mistake(
                "powers counted from the start (A^j instead of A^(t-j))",
                _flipped_states(A, B, X),
                HINT_FLIPPED,
            ),
            Mistake(
                "scan that moves every block by A instead of A^offset",
                _scan_with_plain_A(A, B, X),
                HINT_SCAN_POWER,
            ),
            Mistake(
                "future inputs included (a two-sided convolution)",
                _noncausal_states(A, B, X),
                HINT_CAUSAL,
            ),
            Mistake(
                "the convolution runs backwards: s_t sums the inputs j >= t",
                _anticausal_states(A, B, X),
                HINT_CAUSAL,
            ),
            Mistake(
                "scan rows updated in place, in increasing t (a round reads rows it "
                "already updated)",
                _scan_in_place(A, B, X),
                HINT_SCAN_IN_PLACE,
            ),
            Mistake(
                "scan that squares the power before using it (round 0 moves by A^2)",
                _scan_variant(A, B, X, squared_first=True),
                HINT_SCAN_POWER,
            ),
            Mistake(
                "scan stops one round early",
                _scan_variant(A, B, X, rounds_short=1),
                HINT_SCAN_ROUNDS,
            ),
            Mistake(
                "scan whose power grows by A each round (A, A^2, A^3) while the offset doubles",
                _scan_linear_power(A, B, X),
                HINT_SCAN_LINEAR_POWER,
            ),
        ]
    return out


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


def _expect_states(
    run: CheckRun, call_text: str, fn, A, B, X, parallel: bool, expected=None
) -> np.ndarray:
    # the student's function gets copies, so one that writes into its inputs cannot change
    # the stored worked example (or the inputs of the later calls)
    run.in_place_hint = HINT_STATES_IN_PLACE
    # a crash: most often a size taken from the worked example
    S = run.call(call_text, A, B, X, crash_hints=[("", HINT_SIZES)])
    L, n = X.shape[0], A.shape[0]
    if n > 1 and np.shape(S) != (L, n) and np.shape(S) in ((L, n, n), (n, n)):
        run.fail(
            f"{call_text} returned shape {np.shape(S)}; expected {(L, n)}.",
            hint=HINT_ELEMENTWISE_STATE,
        )
    if np.shape(S) == (n,) and (L, n) != (n,) and L > 1:
        run.fail(
            f"{call_text} returned shape (n,) = {(n,)}: only the final state; expected "
            f"every state, {(L, n)}.",
            hint=HINT_KEEP_STATES,
        )
    run.expect_shape(call_text, S, (L, n), hint=HINT_STATES_SHAPE)
    run.expect_finite(call_text, S, hint=HINT_STATES_FINITE)
    expected = _solve_states(A, B, X) if expected is None else expected
    if as_array(S).dtype.kind in "biu" and not np.array_equal(expected, np.round(expected)):
        run.fail(
            f"{call_text} returned integers ({describe(S)}); the states are not whole numbers.",
            hint=HINT_INTEGER,
        )
    scale = max(1.0, float(np.abs(expected).max()))
    run.expect_close(call_text, S, expected, rtol=RTOL, atol=ATOL * scale, what="states",
                     mistakes=_recurrence_mistakes(np.asarray(A), np.asarray(B), np.asarray(X),
                                                   parallel),
                     hint=HINT_VALUES)  # fmt: skip
    return as_array(S)


def _check(fn, reference, trials: int, parallel: bool) -> None:
    run = CheckRun(fn)
    name = run.name
    if parallel and "linear_recurrence" in names_called(fn):
        run.fail("calls linear_recurrence, the step-by-step loop.", hint=HINT_CALLS_LOOP)
    call = f"{name}(A, B, X) on the worked example (n = 2, m = 2, L = 4)"
    _expect_states(run, call, fn, WORKED_A, WORKED_B, WORKED_X, parallel, WORKED_S)

    rng = np.random.default_rng(9)
    A, B, X = _stable_A(rng, 3, 0.8), rng.standard_normal((3, 2)), rng.standard_normal((6, 2))
    _expect_states(run, f"{name}(A, B, X) with A (3, 3), B (3, 2), X (6, 2)", fn, A, B, X, parallel)
    _expect_states(
        run, f"{name}(A, B, X) with a single time step, X (1, 2)", fn, A, B, X[:1], parallel
    )
    zero = np.zeros((3, 3))
    S = _expect_states(run, f"{name}(0, B, X): A = 0 forgets the past", fn, zero, B, X, parallel)
    run.expect_close(
        f"{name}(0, B, X): each state is B x_t",
        S,
        X @ B.T,
        rtol=RTOL,
        atol=ATOL * max(1.0, float(np.abs(X @ B.T).max())),
    )
    S = _expect_states(
        run, f"{name}(I, B, X): A = I keeps everything", fn, np.eye(3), B, X, parallel
    )
    sums = np.cumsum(X @ B.T, axis=0)
    run.expect_close(
        f"{name}(I, B, X): each state is the running sum of B x_j",
        S,
        sums,
        rtol=RTOL,
        atol=ATOL * max(1.0, float(np.abs(sums).max())),
    )
    run.expect_raises(
        f"{name} with A of shape (2, 3)",
        ValueError,
        np.zeros((2, 3)),
        WORKED_B,
        WORKED_X,
        mentions=("A", "(2, 3)"),
    )
    run.expect_raises(
        f"{name} with B (2, 2) and X (4, 3)",
        ValueError,
        WORKED_A,
        WORKED_B,
        np.zeros((4, 3)),
        mentions=("X", "B", "(4, 3)", "(2, 2)"),
    )
    if reference is not None:
        for seed in hidden_range(trials):
            rng = np.random.default_rng(900 + seed)
            n, m = (int(v) for v in rng.integers(1, 6, size=2))
            L = int(rng.integers(1, 40))
            radius = float(rng.choice([0.3, 0.9, 1.0, 1.1]))
            A, B, X = (
                _stable_A(rng, n, radius),
                rng.standard_normal((n, m)),
                rng.standard_normal((L, m)),
            )
            call = (
                f"{name} on random A ({n}, {n}) of spectral radius {radius}, X ({L}, {m}) "
                f"(seed {seed})"
            )
            _expect_states(run, call, fn, A, B, X, parallel, np.asarray(reference(A, B, X)))
        rng = np.random.default_rng(hidden_seed(990))
        A, B = _stable_A(rng, 4, 0.99), rng.standard_normal((4, 3))
        X = 1e6 * rng.standard_normal((300, 3))
        _expect_states(
            run,
            f"{name} on large inputs (|x| ~ 1e6) over L = 300 steps",
            fn,
            A,
            B,
            X,
            parallel,
            np.asarray(reference(A, B, X)),
        )
        A, B = np.array([[rng.uniform(0.2, 0.8)]]), np.array([[rng.uniform(1.0, 3.0)]])
        X = np.ones((5, 1))
        _expect_states(
            run,
            f"{name} with a scalar state (n = m = 1)",
            fn,
            A,
            B,
            X,
            parallel,
            np.asarray(reference(A, B, X)),
        )
    run.done()


def check_linear_recurrence(linear_recurrence, reference=None, trials: int = 12) -> None:
    """The step-by-step loop: worked example, properties, shapes, validation, reference."""
    _check(linear_recurrence, reference, trials, parallel=False)


def check_linear_recurrence_parallel(
    linear_recurrence_parallel, reference=None, trials: int = 12
) -> None:
    """The parallel form: the same states as the loop, with the mistakes of powers added."""
    _check(linear_recurrence_parallel, reference, trials, parallel=True)
