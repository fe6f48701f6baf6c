"""Checks for notebook 03, RoPE: rotation_2d, rope_frequencies, apply_rope.

Visible use: `check_apply_rope(apply_rope)` runs a stored worked example and the properties
RoPE must have (position 0 is the identity, lengths kept, scores depend only on the offset,
any leading axes). Hidden use: `check_apply_rope(apply_rope, reference=ref.apply_rope)` also
compares with the autograder's reference on random shapes and positions.
"""

from __future__ import annotations

import numpy as np

from attnbook.checks._core import CheckRun, Mistake, as_array, hidden_range, hidden_seed
from attnbook.tolerance import tolerance

__all__ = ["check_apply_rope", "check_rope_frequencies", "check_rotation_2d"]

#: R(pi/6), to 10 decimals.
STORED_R_30_DEGREES = np.array([[0.8660254038, -0.5], [0.5, 0.8660254038]])
#: rope_frequencies(6, 10000.0), to 10 decimals.
STORED_THETA_6 = np.array([1.0, 0.0464158883, 0.0021544347])
#: The worked example of apply_rope: X (3, 4) at positions [0, 1, 2], base 100.
WORKED_ROPE_X = np.array([[1.0, 0.0, 1.0, 0.0], [1.0, 0.0, 1.0, 0.0], [0.0, 2.0, 0.0, 1.0]])
STORED_ROPE_Y = np.array(
    [
        [1.0, 0.0, 1.0, 0.0],
        [0.5403023059, 0.8414709848, 0.9950041653, 0.0998334166],
        [-1.8185948537, -0.8322936731, -0.1986693308, 0.9800665778],
    ]
)
#: The worked examples above are float64 values written to 10 decimals, of size at most 2.
STORED_ATOL = tolerance(np.float64, magnitude=2.0, decimals=10).atol

HINT_PAIR_EXPONENT = (
    "the exponent is 2i/d_k with i the PAIR index: theta_i = base ** (-2 * i "
    "/ d_k) for i = 0 .. d_k/2 - 1 (a range with step 2 gives the 2i directly)"
)
HINT_ANGLES_SHAPE = (
    "the angles (an outer product of positions and theta) have shape (L, "
    "d_k/2): one row per token, one column per pair, lined up with X[..., 0::2]; "
    "theta[:, None] * positions[None, :] is (d_k/2, L), its transpose"
)
HINT_DIRECTION = (
    "R(a) = [[cos a, -sin a], [sin a, cos a]] turns counterclockwise: "
    "R(a) @ [1, 0] = [cos a, sin a]. Rotating by -a (or x @ R instead of R @ x) "
    "turns the wrong way"
)


# ---------------------------------------------------------------------------------------
# helpers that build the known wrong answers
# ---------------------------------------------------------------------------------------
def _turned(X, angles, layout="consecutive"):
    """X (..., L, d_k) with pair i of token l turned by angles[l, i]; pairs either
    consecutive (2i, 2i+1) or split in halves (i, i + d_k/2)."""
    X = np.asarray(X, dtype=np.float64)
    half = X.shape[-1] // 2
    if layout == "halves":
        first, second = np.arange(half), np.arange(half, 2 * half)
    else:
        first, second = np.arange(0, 2 * half, 2), np.arange(1, 2 * half, 2)
    c, s = np.cos(angles), np.sin(angles)  # (L, d_k/2)
    out = X.copy()
    out[..., first] = X[..., first] * c - X[..., second] * s
    out[..., second] = X[..., first] * s + X[..., second] * c
    return out


HINT_HALF_SPLIT_PAIRING = (
    "our pairs are consecutive features (2i, 2i+1): X[..., 0::2] and "
    "X[..., 1::2], not the two halves X[..., :d_k//2] and X[..., d_k//2:]"
)
HINT_ROPE_ONE_FREQUENCY = (
    "pair i turns by l * theta_i with its own theta_i from "
    "rope_frequencies(d_k, base), d_k = X.shape[-1]"
)
HINT_POSITIONS_IGNORED = (
    "turn token l by positions[l] * theta_i: the positions argument need not be 0, 1, 2, ..."
)
HINT_PASS_BASE = "pass base on to rope_frequencies(d_k, base)"
HINT_SECOND_COMPONENT_COMPUTED_ALREADY = (
    "compute both new components from the ORIGINAL pair: "
    "keep X[..., 0::2] and X[..., 1::2] (or copies of "
    "them) and write the results into a new array; "
    "overwriting x_2i first and then reading it back uses "
    "the rotated value"
)
HINT_COMPONENTS_SWAPPED = (
    "the components are stored in swapped places: feature 2i gets x_2i * "
    "cos - x_2i+1 * sin and feature 2i+1 gets x_2i * sin + x_2i+1 * cos"
)
HINT_SIGN_TYPO_SECOND_COMPONENT = (
    "R(a) @ [x_2i, x_2i+1] = [x_2i * cos - x_2i+1 * sin, x_2i * "
    "sin + x_2i+1 * cos]: only the first component has a minus "
    "sign"
)
HINT_WRITTEN_AS_HALVES = (
    "interleave the results: pair i goes back to features 2i and 2i+1, "
    "e.g. np.stack([first, second], axis=-1).reshape(X.shape), not "
    "np.concatenate"
)
HINT_LAST_PAIR_LEFT_UNROTATED = (
    "rotate every pair i = 0 .. d_k/2 - 1: range(d_k // 2) pairs, the last one included"
)
HINT_POSITIONS_COUNTED_1 = (
    "use positions[l] as given: a token at position 0 is turned by 0, not by theta"
)
HINT_EVERY_TOKEN = (
    "rotate every token l = 0 .. L-1, the first and the last included: loop "
    "over range(L) (or better, no loop: angles (L, d_k/2) at once)"
)
HINT_COS_FOR_SIN = (
    "the off-diagonal terms use sin: x_2i * cos - x_2i+1 * sin and x_2i * sin + x_2i+1 * cos"
)
HINT_SECOND_COMPONENT_MISSING = (
    "write BOTH components of every pair: feature 2i+1 becomes x_2i * sin + x_2i+1 * cos"
)
HINT_POSITIONS_DIVIDED_THETA = "multiply: the angle is positions[l] * theta_i"
HINT_POSITIONS_MADE_RELATIVE_FIRST = (
    "turn token l by its absolute position positions[l]; the "
    "offset s - l appears in the score q~ . k~ by itself"
)


def _rope_mistakes(X, positions, base) -> list[Mistake]:
    X = np.asarray(X, dtype=np.float64)
    d_k = X.shape[-1]
    l = np.asarray(positions, dtype=np.float64)[:, None]  # (L, 1)
    i = np.arange(d_k // 2)
    theta = base ** (-2 * i / d_k)
    correct = _turned(X, l * theta)
    first, second = X[..., 0::2], X[..., 1::2]
    c, s = np.cos(l * theta), np.sin(l * theta)  # (L, d_k/2)
    y_first, y_second = first * c - second * s, first * s + second * c

    def interleaved(even, odd):
        return np.stack([even, odd], axis=-1).reshape(X.shape)

    last_left = l * theta * (np.arange(d_k // 2) < d_k // 2 - 1)
    mistakes = [
        Mistake(
            "half-split pairing (feature i with i + d_k/2) instead of consecutive pairs",
            _turned(X, l * theta, layout="halves"),
            HINT_HALF_SPLIT_PAIRING,
        ),
        Mistake(
            "exponent i/d_k instead of 2i/d_k",
            _turned(X, l * base ** (-i / d_k)),
            HINT_PAIR_EXPONENT,
        ),
        Mistake(
            "rotated by -l * theta (the wrong direction)", _turned(X, -l * theta), HINT_DIRECTION
        ),
        Mistake(
            "one frequency for all pairs",
            _turned(X, l * np.ones_like(theta)),
            HINT_ROPE_ONE_FREQUENCY,
        ),
        Mistake(
            "positions ignored (0, 1, 2, ... used instead)",
            _turned(X, np.arange(X.shape[-2])[:, None] * theta),
            HINT_POSITIONS_IGNORED,
        ),
        Mistake(
            "base ignored (10000 used whatever base is)",
            _turned(X, l * 10000.0 ** (-2 * i / d_k)),
            HINT_PASS_BASE,
        ),
        Mistake(
            "the second component computed from the already rotated first one",
            interleaved(y_first, y_first * s + second * c),
            HINT_SECOND_COMPONENT_COMPUTED_ALREADY,
        ),
        Mistake(
            "the two components of each rotated pair stored in swapped places",
            interleaved(y_second, y_first),
            HINT_COMPONENTS_SWAPPED,
        ),
        Mistake(
            "sign typo in the second component (-x_2i * sin + x_2i+1 * cos)",
            interleaved(y_first, -first * s + second * c),
            HINT_SIGN_TYPO_SECOND_COMPONENT,
        ),
        Mistake(
            "rotated pairs written back as two halves (all first components, then all second ones)",
            np.concatenate([y_first, y_second], axis=-1),
            HINT_WRITTEN_AS_HALVES,
        ),
        Mistake(
            "the last pair left unrotated (a loop over range(d_k // 2 - 1))",
            _turned(X, last_left),
            HINT_LAST_PAIR_LEFT_UNROTATED,
        ),
        Mistake(
            "positions counted from 1 (positions + 1)",
            _turned(X, (l + 1) * theta),
            HINT_POSITIONS_COUNTED_1,
        ),
    ]
    last_token_left = np.where(np.arange(X.shape[-2])[:, None] == X.shape[-2] - 1, 0.0, l * theta)
    first_token_left = np.where(np.arange(X.shape[-2])[:, None] == 0, 0.0, l * theta)
    mistakes += [
        Mistake(
            "the last token left unrotated (a loop over range(L - 1))",
            _turned(X, last_token_left),
            HINT_EVERY_TOKEN,
        ),
        Mistake(
            "the first token left unrotated (a loop from 1)",
            _turned(X, first_token_left),
            HINT_EVERY_TOKEN,
        ),
        Mistake(
            "cos written where sin belongs",
            interleaved(first * c - second * c, first * c + second * c),
            HINT_COS_FOR_SIN,
        ),
        Mistake(
            "the second component of each pair never written (left as x_2i+1)",
            interleaved(y_first, second),
            HINT_SECOND_COMPONENT_MISSING,
        ),
        Mistake("positions divided by theta", _turned(X, l / theta), HINT_POSITIONS_DIVIDED_THETA),
        Mistake(
            "positions made relative to the first token",
            _turned(X, (l - l[0]) * theta),
            HINT_POSITIONS_MADE_RELATIVE_FIRST,
        ),
        Mistake(
            "plus sign in the first component (x_2i * cos + x_2i+1 * sin)",
            interleaved(first * c + second * s, y_second),
            HINT_SIGN_TYPO_SECOND_COMPONENT,
        ),
    ]
    if X.shape[-2] == d_k // 2 and X.shape[-2] > 1:
        mistakes.append(
            Mistake(
                "angles built (d_k/2, L) instead of (L, d_k/2)",
                _turned(X, (l * theta).T),
                HINT_ANGLES_SHAPE,
            )
        )
    # A mistake that gives the right answer on these inputs (base 10000, positions 0..L-1)
    # is not a mistake here.
    return [m for m in mistakes if not np.allclose(m.output, correct)]


# ---------------------------------------------------------------------------------------
# rotation_2d
# ---------------------------------------------------------------------------------------
HINT_ANGLE_TREATED_DEGREES = "a is in radians: use np.cos(a) and np.sin(a) directly, no conversion"
HINT_SIN_COS_SWAPPED = "cos sits on the diagonal: [[cos a, -sin a], [sin a, cos a]]"
HINT_MINUS_SIGN_DROPPED = (
    "the minus sign belongs on the top-right sin: [[cos a, -sin a], [sin "
    "a, cos a]]; without it the matrix is no rotation (R^T R != I)"
)
HINT_BOTH_SIN_ENTRIES_NEGATIVE = (
    "only the top-right sin has a minus sign: [[cos a, -sin a], [sin a, cos a]]"
)
HINT_REFLECTION = (
    "cos a sits on BOTH diagonal entries, with a plus sign; -cos a in the corner "
    "makes a reflection (determinant -1), not a rotation"
)
HINT_HALF_ANGLE = "turn by a itself: np.cos(a), np.sin(a), no halving"
HINT_FACTOR_PI = "a is already in radians: no factor pi"
HINT_ANGLES_TRUNCATED_INTEGERS = (
    "keep the angles as floats: astype(int) or int(a) cuts pi/6 down to 0"
)


def _rotation_mistakes(a) -> list[Mistake]:
    a = np.asarray(a, dtype=np.float64)
    c, s = np.cos(a), np.sin(a)

    def matrix(a11, a12, a21, a22):
        return np.stack([np.stack([a11, a12], -1), np.stack([a21, a22], -1)], -2)

    c_deg, s_deg = np.cos(np.radians(a)), np.sin(np.radians(a))
    return [
        Mistake("transposed: R(-a) instead of R(a)", matrix(c, s, -s, c), HINT_DIRECTION),
        Mistake(
            "angle treated as degrees",
            matrix(c_deg, -s_deg, s_deg, c_deg),
            HINT_ANGLE_TREATED_DEGREES,
        ),
        Mistake("sin and cos swapped", matrix(s, -c, c, s), HINT_SIN_COS_SWAPPED),
        Mistake(
            "the minus sign dropped: [[cos a, sin a], [sin a, cos a]]",
            matrix(c, s, s, c),
            HINT_MINUS_SIGN_DROPPED,
        ),
        Mistake(
            "both sin entries negative: [[cos a, -sin a], [-sin a, cos a]]",
            matrix(c, -s, -s, c),
            HINT_BOTH_SIN_ENTRIES_NEGATIVE,
        ),
        Mistake(
            "a reflection: [[cos a, -sin a], [sin a, -cos a]]",
            matrix(c, -s, s, -c),
            HINT_REFLECTION,
        ),
        Mistake(
            "half the angle",
            matrix(np.cos(a / 2), -np.sin(a / 2), np.sin(a / 2), np.cos(a / 2)),
            HINT_HALF_ANGLE,
        ),
        Mistake(
            "angle read as turns (multiplied by pi)",
            matrix(np.cos(np.pi * a), -np.sin(np.pi * a), np.sin(np.pi * a), np.cos(np.pi * a)),
            HINT_FACTOR_PI,
        ),
        Mistake(
            "angles truncated to integers",
            matrix(
                np.cos(np.trunc(a)), -np.sin(np.trunc(a)), np.sin(np.trunc(a)), np.cos(np.trunc(a))
            ),
            HINT_ANGLES_TRUNCATED_INTEGERS,
        ),
    ]


HINT_ROTATION_SHAPE = "one angle gives one 2 x 2 matrix"
HINT_ROTATION_ORTHOGONAL = "a rotation keeps lengths: R^T R = I"
HINT_ROTATION_COMPOSES = "turning by a then by b turns by a + b"
HINT_MATH_COS = (
    "a may be an array of angles: use np.cos and np.sin, which work elementwise "
    "(math.cos and math.sin take a single number)"
)
HINT_ROTATION_AXES = (
    "keep the angles' axes first and put the 2 x 2 last, (..., 2, 2): build "
    "it with np.stack(..., axis=-1), not np.array([[c, -s], [s, c]])"
)
HINT_ROTATION_ENTRYWISE = "entry [j, k] must be rotation_2d(a[j, k])"


def check_rotation_2d(rotation_2d, reference=None, trials: int = 12) -> None:
    run = CheckRun(rotation_2d)
    for a, expected in (
        (np.pi / 2, [[0.0, -1.0], [1.0, 0.0]]),
        (np.pi / 6, STORED_R_30_DEGREES),
        (0.0, np.eye(2)),
    ):
        call = f"rotation_2d({a:.6g})"
        R = run.call(call, a)
        run.expect_shape(call, R, (2, 2), hint=HINT_ROTATION_SHAPE)
        run.expect_finite(call, R)
        run.expect_close(call, R, expected, mistakes=_rotation_mistakes(a), atol=STORED_ATOL)
    call = "rotation_2d(pi / 6) @ [1, 0]"
    R = as_array(run.call(call, np.pi / 6))
    run.expect_close(
        call, R @ np.array([1.0, 0.0]), [np.cos(np.pi / 6), np.sin(np.pi / 6)], hint=HINT_DIRECTION
    )
    call = "rotation_2d(0.7).T @ rotation_2d(0.7)"
    R = as_array(run.call(call, 0.7))
    run.expect_close(call, R.T @ R, np.eye(2), hint=HINT_ROTATION_ORTHOGONAL)
    call = "rotation_2d(0.3) @ rotation_2d(0.5) against rotation_2d(0.8)"
    product = as_array(run.call(call, 0.3)) @ as_array(run.call(call, 0.5))
    run.expect_close(call, product, as_array(run.call(call, 0.8)), hint=HINT_ROTATION_COMPOSES)

    angles = np.array([[0.0, 1.0, -2.0], [3.5, 10.0, np.pi]])
    call = "rotation_2d(a) with an array of angles of shape (2, 3)"
    R = run.call(call, angles, crash_hints=[("", HINT_MATH_COS)])
    run.expect_shape(call, R, (2, 3, 2, 2), hint=HINT_ROTATION_AXES)
    run.expect_close(
        call,
        R,
        [[as_array(run.call(call, float(a))) for a in row] for row in angles],
        mistakes=_rotation_mistakes(angles),
        hint=HINT_ROTATION_ENTRYWISE,
    )
    run.expect_raises("rotation_2d('30 degrees')", ValueError, "30 degrees", mentions=("radians",))
    if reference is not None:
        for seed in hidden_range(trials):
            rng = np.random.default_rng(800 + seed)
            shape = tuple(int(v) for v in rng.integers(1, 5, size=int(rng.integers(0, 3))))
            a = rng.standard_normal(shape) * 10.0 ** int(rng.integers(0, 6))
            call = f"rotation_2d on random angles of shape {shape} (seed {seed})"
            R = run.call(call, a)
            run.expect_shape(call, R, (*shape, 2, 2))
            run.expect_close(call, R, reference(a), mistakes=_rotation_mistakes(a))
    run.done()


# ---------------------------------------------------------------------------------------
# rope_frequencies
# ---------------------------------------------------------------------------------------
HINT_POSITIVE_EXPONENT = (
    "the frequencies shrink from 1: theta_i = base ** (-2i/d_k), with a minus sign"
)
HINT_BASE_HARD_CODED = "use the base argument, not a hard-coded 10000"
HINT_ONE_FREQUENCY = (
    "pair i has its own theta_i = base ** (-2i/d_k); beware integer division: "
    "2 * i // d_k is 0 for every pair, use / (true division)"
)
HINT_PARENTHESES_DIVIDE = (
    "put the whole exponent in parentheses, base ** (-2 * i / d_k): base "
    "** -two_i / d_k is read as (base ** -two_i) / d_k, because ** binds "
    "before /"
)
HINT_PAIR_INDEX_COUNTED_1 = "i counts from 0: the fastest pair has theta_0 = base ** 0 = 1"
HINT_EXPONENT_BY_PAIRS = (
    "divide by d_k, the width, not by the number of pairs d_k/2: theta_i "
    "= base ** (-2i/d_k); and np.arange(0, d_k, 2) already holds 2i, so "
    "do not multiply it by 2 again"
)
HINT_EXPONENT_LINSPACE = (
    "the exponent 2i/d_k starts at 0 and stops at (d_k - 2)/d_k, just "
    "short of 1: np.arange(0, d_k, 2) / d_k, not np.linspace(0, 1, d_k // "
    "2)"
)
HINT_EXPONENT_ODD = "the exponent uses the even numbers 0, 2, 4, ...: np.arange(0, d_k, 2) / d_k"
HINT_LOG10 = (
    "np.exp undoes np.log, the natural logarithm: exp(-log(base) * 2i/d_k); np.log10 "
    "goes with 10 ** (...)"
)
HINT_FREQUENCIES_REVERSED = (
    "theta_0 = 1 is the fastest pair and the frequencies decrease with i: no reversing"
)
HINT_FACTOR_2_PI = "theta_i is already in radians per position: no factor 2 pi"
HINT_PARENTHESES_RECIPROCAL = (
    "put the whole exponent in parentheses: 1 / base ** (2 * i / d_k); ** binds before * and /"
)


def _frequency_mistakes(d_k, base) -> list[Mistake]:
    i = np.arange(d_k // 2)
    return [
        Mistake("exponent i/d_k instead of 2i/d_k", base ** (-i / d_k), HINT_PAIR_EXPONENT),
        Mistake("positive exponent", base ** (2 * i / d_k), HINT_POSITIVE_EXPONENT),
        Mistake(
            "base ignored (10000 used whatever base is)",
            10000.0 ** (-2 * i / d_k),
            HINT_BASE_HARD_CODED,
        ),
        Mistake("one frequency for all pairs", np.full(d_k // 2, 1.0), HINT_ONE_FREQUENCY),
        Mistake(
            "missing parentheses: (base ** -2i) / d_k",
            base ** (-2.0 * i) / d_k,
            HINT_PARENTHESES_DIVIDE,
        ),
        Mistake(
            "pair index counted from 1", base ** (-2 * (i + 1) / d_k), HINT_PAIR_INDEX_COUNTED_1
        ),
        Mistake(
            "exponent divided by the number of pairs d_k/2 instead of d_k",
            base ** (-2 * i / (d_k // 2)),
            HINT_EXPONENT_BY_PAIRS,
        ),
        Mistake(
            "exponent spread over [0, 1] with np.linspace",
            base ** (-np.linspace(0.0, 1.0, d_k // 2)),
            HINT_EXPONENT_LINSPACE,
        ),
        Mistake(
            "odd numbers 1, 3, 5, ... in the exponent",
            base ** (-(2 * i + 1) / d_k),
            HINT_EXPONENT_ODD,
        ),
        Mistake("np.log10 paired with np.exp", np.exp(-np.log10(base) * 2 * i / d_k), HINT_LOG10),
        Mistake(
            "slowest pair first (reversed order)",
            (base ** (-2 * i / d_k))[::-1],
            HINT_FREQUENCIES_REVERSED,
        ),
        Mistake("multiplied by 2 pi", 2 * np.pi * base ** (-2 * i / d_k), HINT_FACTOR_2_PI),
        Mistake(
            "missing parentheses: 1 / base ** 2 * i / d_k",
            1 / base**2 * i / d_k,
            HINT_PARENTHESES_RECIPROCAL,
        ),
    ]


HINT_ONE_THETA_PER_PAIR = "one theta per PAIR: d_k/2 values, not d_k"


def check_rope_frequencies(rope_frequencies, reference=None, trials: int = 12) -> None:
    run = CheckRun(rope_frequencies)
    for d_k, base, expected in (
        (8, 10000.0, [1.0, 0.1, 0.01, 0.001]),
        (6, 10000.0, STORED_THETA_6),
        (4, 100.0, [1.0, 0.1]),
        (2, 10000.0, [1.0]),
    ):
        call = f"rope_frequencies({d_k}, {base:g})"
        theta = run.call(call, d_k, base)
        run.expect_shape(call, theta, (d_k // 2,), hint=HINT_ONE_THETA_PER_PAIR)
        run.expect_finite(call, theta)
        run.expect_close(
            call, theta, expected, mistakes=_frequency_mistakes(d_k, base), atol=STORED_ATOL
        )
    call = "rope_frequencies(64, 10000)"
    theta = as_array(run.call(call, 64, 10000.0))
    run.expect_true(
        theta.shape == (32,) and np.all(np.diff(theta) < 0) and abs(theta[0] - 1.0) <= 1e-12,
        f"{call}: expected 32 strictly decreasing frequencies starting at 1; got {theta}",
        hint=HINT_PAIR_EXPONENT,
    )
    for d_k in (5, 0):
        run.expect_raises(
            f"rope_frequencies({d_k}, 10000)", ValueError, d_k, 10000.0, mentions=(str(d_k),)
        )
    if reference is not None:
        rng = np.random.default_rng(hidden_seed(900))
        for trial in range(trials):
            d_k, base = 2 * int(rng.integers(1, 65)), float(rng.choice([10.0, 500.0, 1e4, 1e6]))
            call = f"rope_frequencies({d_k}, {base:g}) (random, trial {trial})"
            theta = run.call(call, d_k, base)
            run.expect_shape(call, theta, (d_k // 2,))
            run.expect_close(
                call, theta, reference(d_k, base), mistakes=_frequency_mistakes(d_k, base)
            )
    run.done()


# ---------------------------------------------------------------------------------------
# apply_rope
# ---------------------------------------------------------------------------------------
HINT_ROPE_SHAPE = "RoPE returns an array shaped like X"
HINT_ROPE_BROADCAST = (
    HINT_ANGLES_SHAPE + "; take d_k from X.shape[-1] and L from len(positions), "
    "never the worked example's sizes"
)


def _expect_rope(run: CheckRun, call: str, Y, X, positions, base, expected=None, atol=1e-8):
    X = np.asarray(X, dtype=np.float64)
    run.expect_shape(call, Y, X.shape, hint=HINT_ROPE_SHAPE)
    run.expect_finite(call, Y)
    if expected is not None:
        run.expect_close(call, Y, expected, mistakes=_rope_mistakes(X, positions, base), atol=atol)


def _score(q, k):
    return float(np.asarray(q, dtype=np.float64).ravel() @ np.asarray(k, dtype=np.float64).ravel())


HINT_ROPE_IN_PLACE = "write the rotated pairs into a new array"
HINT_POSITION_ZERO = "position 0 turns every pair by 0: X comes back as it was"
HINT_PAIR_LENGTHS = (
    "RoPE rotates each consecutive pair (2i, 2i+1); a rotation keeps the pair's length"
)
HINT_TOKEN_AT_ZERO = "a token at position 0 is not rotated"
HINT_RELATIVE = (
    "rotate queries and keys by the SAME angles per position; then the score "
    "depends only on the offset s - l"
)
HINT_LEADING_AXES = (
    "keep every leading axis: X is (..., L, d_k), so index pairs with X[..., "
    "0::2] and read d_k from X.shape[-1]"
)


def check_apply_rope(apply_rope, reference=None, trials: int = 12) -> None:
    run = CheckRun(apply_rope, in_place_hint=HINT_ROPE_IN_PLACE)

    def call_rope(call, *args):  # broadcast: angles (d_k/2, L) against pairs (..., L, d_k/2)
        return run.call(call, *args, crash_hints=[("broadcast", HINT_ROPE_BROADCAST)])

    X = WORKED_ROPE_X.copy()
    call = "apply_rope(X, [0, 1, 2], 100.0) on the worked (3, 4) example"
    Y = call_rope(call, X, np.array([0, 1, 2]), 100.0)
    _expect_rope(run, call, Y, X, [0, 1, 2], 100.0, STORED_ROPE_Y, atol=STORED_ATOL)

    rng = np.random.default_rng(31)
    X = rng.standard_normal((5, 8))
    call = "apply_rope(X, [0, 0, 0, 0, 0], 10000.0) (every token at position 0)"
    Y = call_rope(call, X, np.zeros(5, dtype=int), 10000.0)
    _expect_rope(run, call, Y, X, np.zeros(5), 10000.0)
    run.expect_close(
        call, Y, X, mistakes=_rope_mistakes(X, np.zeros(5), 10000.0), hint=HINT_POSITION_ZERO
    )

    positions = np.array([7, 0, 3, 12, 5])
    call = "apply_rope(X, [7, 0, 3, 12, 5], 10000.0) with X of shape (5, 8)"
    Y = call_rope(call, X, positions, 10000.0)
    _expect_rope(run, call, Y, X, positions, 10000.0)
    Y = as_array(Y)
    mistake = run.match_mistake(Y, _rope_mistakes(X, positions, 10000.0))
    if mistake is not None:
        run.fail(
            f"{call} returned wrong values.\nThis looks like a known mistake: {mistake.name}.",
            hint=mistake.hint,
        )
    run.expect_close(
        f"{call}: length of every pair (2i, 2i+1)",
        np.hypot(Y[:, 0::2], Y[:, 1::2]),
        np.hypot(X[:, 0::2], X[:, 1::2]),
        hint=HINT_PAIR_LENGTHS,
    )
    run.expect_close(f"{call}: row 1 (position 0)", Y[1], X[1], hint=HINT_TOKEN_AT_ZERO)

    # The score between a query at l and a key at s depends only on s - l.
    q, k = rng.standard_normal((1, 8)), rng.standard_normal((1, 8))
    scores = []
    for l, s in ((1, 3), (2, 4), (11, 13), (100, 102)):
        q_rot = call_rope(f"apply_rope(q, [{l}], 10000.0)", q, np.array([l]), 10000.0)
        k_rot = call_rope(f"apply_rope(k, [{s}], 10000.0)", k, np.array([s]), 10000.0)
        scores.append(_score(q_rot, k_rot))
    run.expect_close(
        "scores q~_l . k~_s for (l, s) = (1, 3), (2, 4), (11, 13), (100, 102)",
        scores,
        [scores[0]] * 4,
        hint=HINT_RELATIVE,
    )

    X4 = rng.standard_normal((2, 3, 4, 6))
    positions = np.array([0, 2, 5, 9])
    call = "apply_rope(X, [0, 2, 5, 9], 500.0) with leading axes, X of shape (2, 3, 4, 6)"
    Y = run.call(call, X4, positions, 500.0, crash_hints=[("", HINT_LEADING_AXES)])
    run.expect_shape(call, Y, X4.shape, hint=HINT_LEADING_AXES)
    per_slice = np.stack(
        [
            [as_array(call_rope(call, X4[b, h], positions, 500.0)) for h in range(3)]
            for b in range(2)
        ]
    )
    run.expect_close(
        f"{call}: against each (L, d_k) slice rotated alone",
        Y,
        per_slice,
        mistakes=_rope_mistakes(X4, positions, 500.0),
        hint=HINT_LEADING_AXES,
    )

    call = "apply_rope(X, positions as a Python list [3], 10000.0) with X of shape (1, 2)"
    Y = call_rope(call, np.array([[1.0, 0.0]]), [3], 10000.0)
    _expect_rope(run, call, Y, np.array([[1.0, 0.0]]), [3], 10000.0, [[np.cos(3.0), np.sin(3.0)]])

    run.expect_raises(
        "apply_rope with X (5, 8) and 4 positions",
        ValueError,
        X,
        np.arange(4),
        10000.0,
        mentions=("(5, 8)", "(4,)"),
    )
    run.expect_raises(
        "apply_rope with X of odd width (3, 5)",
        ValueError,
        np.zeros((3, 5)),
        np.arange(3),
        10000.0,
        mentions=("(3, 5)",),
    )
    if reference is not None:
        for seed in hidden_range(trials):
            rng = np.random.default_rng(1000 + seed)
            lead = tuple(int(v) for v in rng.integers(1, 4, size=int(rng.integers(0, 3))))
            L, d_k = int(rng.integers(1, 9)), 2 * int(rng.integers(1, 9))
            X = rng.standard_normal((*lead, L, d_k))
            positions = rng.integers(0, 50 if seed % 3 else 100000, size=L)
            base = float(rng.choice([100.0, 10000.0]))
            call = (
                f"apply_rope on random X of shape {X.shape}, positions {positions.tolist()}, "
                f"base {base:g} (seed {seed})"
            )
            Y = call_rope(call, X, positions, base)
            _expect_rope(run, call, Y, X, positions, base, reference(X, positions, base), atol=1e-7)
    run.done()
