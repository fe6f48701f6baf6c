"""Checks for notebook 03, RoPE: rotation_2d, rope_frequencies, apply_rope.

Visible use: `check_apply_rope(apply_rope)` runs a stored worked example and the properties
RoPE must have (position 0 is the identity, lengths kept, scores depend only on the offset,
any leading axes). Hidden use: `check_apply_rope(apply_rope, reference=ref.apply_rope)` also
compares with the autograder's reference on random shapes and positions.
"""

from __future__ import annotations

import numpy as np

from attnbook.checks._cases import (
    ACCEPTED_DTYPE,
    Case,
    Slips,
    case_tolerance,
    normal,
    probe_tolerance,
    run_cases,
    run_table,
    run_trials,
    sizes,
)
from attnbook.checks._core import CheckRun, as_array
from attnbook.tolerance import magnitude_of, tolerance

__all__ = ["check_apply_rope", "check_rope_frequencies", "check_rotation_2d"]

KNOWN = Slips("nb03")

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

#: apply_rope(X, [7, 0, 3, 12, 5], 10000.0) for the X of the "positions" case, to 10 decimals.
STORED_ROPE_SHUFFLED = np.array(
    [
        [-0.4714070753, -0.0607416223, 1.0906398509, -0.3524260584,
         0.7479447523, 0.3081261082, 0.7810537756, 0.2778923742],
        [1.1620081255, -0.9377563788, 1.7760997338, 1.2023898441,
         -0.5999578485, 0.6601663131, 0.4447673845, -1.7457635656],
        [-0.5066480884, 0.6635376586, -0.0608296864, -0.6493657970,
         -0.4300431017, 0.0588618297, 0.1013961373, -1.5588546683],
        [-0.9483378918, -0.9906438299, -0.1371018945, -1.3101359619,
         0.7736282756, 0.7287096691, -0.5960896673, -0.7176253967],
        [-0.0978278385, 0.8339134380, 0.8133341782, 0.4648941891,
         0.6761370092, 0.3496387781, 1.5142002744, -1.9991447560],
    ]
)  # fmt: skip

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
    "R(a) = [[cos a, -sin a], [sin a, cos a]] turns counterclockwise: R(a) @ [1, 0] = [cos a, sin "
    "a]. Rotating by -a (or x @ R instead of R @ x) turns the wrong way"
)


# ---------------------------------------------------------------------------------------
# rotation_2d
# ---------------------------------------------------------------------------------------


HINT_ROTATION_SHAPE = "one angle gives one 2 x 2 matrix"
HINT_ROTATION_ORTHOGONAL = "a rotation keeps lengths: R^T R = I"
HINT_MATH_COS = (
    "a may be an array of angles: use np.cos and np.sin, which work elementwise "
    "(math.cos and math.sin take a single number)"
)
HINT_ROTATION_AXES = (
    "keep the angles' axes first and put the 2 x 2 last, (..., 2, 2): build "
    "it with np.stack(..., axis=-1), not np.array([[c, -s], [s, c]])"
)
HINT_ROTATION_ENTRYWISE = "entry [j, k] must be rotation_2d(a[j, k])"


def _entrywise_probe(run: CheckRun, case: Case, R, expected, slips) -> None:
    """An array of angles gives one matrix per angle: each as rotation_2d of that angle alone
    (the learner's own answers, so no expected matrix is written here)."""
    (angles,) = case.args
    own = [[as_array(run.call(case.call, float(a))) for a in row] for row in angles]
    tol = case_tolerance(case, R)
    run.expect_close(case.call, R, own, mistakes=slips, tol=tol, hint=HINT_ROTATION_ENTRYWISE)


def _rotation_case(a: float, expected) -> Case:
    return Case(
        f"{a:.6g}",
        f"rotation_2d({a:.6g})",
        (a,),
        expect=expected,
        shape_hint=HINT_ROTATION_SHAPE,
        decimals=10,
    )


ROTATION_CASES = (
    _rotation_case(np.pi / 2, np.array([[0.0, -1.0], [1.0, 0.0]])),
    _rotation_case(np.pi / 6, STORED_R_30_DEGREES),
    _rotation_case(0.0, np.eye(2)),
    Case("angles (2, 3)", "rotation_2d(a) with an array of angles of shape (2, 3)",
         (np.array([[0.0, 1.0, -2.0], [3.5, 10.0, np.pi]]),), shape=(2, 3, 2, 2),
         shape_hint=HINT_ROTATION_AXES, crash_hints=(("", HINT_MATH_COS),), probe=_entrywise_probe),
    Case("0.7", "rotation_2d(0.7)", (0.7,), expect=np.eye(2), shape=(2, 2),
         hint=HINT_ROTATION_ORTHOGONAL,
         view=("R^T R (a rotation keeps lengths)", lambda R: R.T @ R)),
    Case("degrees", "rotation_2d('30 degrees')", ("30 degrees",), raises=ValueError,
         mentions=("radians",)),
)  # fmt: skip


def _rotation_trial(rng, seed):
    shape = tuple(sizes(rng, int(rng.integers(0, 3)), high=5))
    a = normal(rng, *shape, decades=(0, 5))
    call = f"rotation_2d on random angles of shape {shape} (seed {seed})"
    return Case("trial", call, (a,), shape=(*shape, 2, 2))


def check_rotation_2d(rotation_2d, reference=None, trials: int = 12) -> None:
    """Three stored rotations and an array of angles (table `ROTATION_CASES`), the direction
    of R @ [1, 0], R^T R = I at another angle, then `trials` random arrays of angles."""
    run = CheckRun(rotation_2d)
    run_cases(run, "rotation_2d", ROTATION_CASES, KNOWN)
    call = "rotation_2d(pi / 6) @ [1, 0]"
    turned = as_array(run.call(call, np.pi / 6)) @ np.array([1.0, 0.0])
    wanted = [np.cos(np.pi / 6), np.sin(np.pi / 6)]
    run.expect_close(call, turned, wanted, tol=probe_tolerance(1.0), hint=HINT_DIRECTION)
    run_trials(run, "rotation_2d", reference, trials, _rotation_trial, KNOWN)
    run.done()


# ---------------------------------------------------------------------------------------
# rope_frequencies
# ---------------------------------------------------------------------------------------


HINT_ONE_THETA_PER_PAIR = "one theta per PAIR: d_k/2 values, not d_k"


FREQUENCY_CASES = (
    *(Case(f"{d_k}, {base:g}", f"rope_frequencies({d_k}, {base:g})", (d_k, base),
           expect=np.asarray(expected), shape_hint=HINT_ONE_THETA_PER_PAIR, decimals=10)
      for d_k, base, expected in ((8, 10000.0, [1.0, 0.1, 0.01, 0.001]),
                                  (6, 10000.0, STORED_THETA_6), (4, 100.0, [1.0, 0.1]),
                                  (2, 10000.0, [1.0]))),
    *(Case(f"{d_k}", f"rope_frequencies({d_k}, 10000)", (d_k, 10000.0), raises=ValueError,
           mentions=(str(d_k),)) for d_k in (5, 0)),
    Case("base nan", "rope_frequencies(8, nan)", (8, float("nan")), raises=ValueError,
         mentions=("base", "nan")),
    Case("base 0-d", "rope_frequencies(4, np.array(100.0)) (a 0-d array base)",
         (4, np.array(100.0)), expect=np.array([1.0, 0.1]), decimals=10),
)  # fmt: skip


def _frequency_trial(rng: np.random.Generator, seed: int) -> Case:
    d_k, base = 2 * int(rng.integers(1, 65)), round(float(10 ** rng.uniform(1, 6)), 2)
    call = f"rope_frequencies({d_k}, {base:g}) (random, seed {seed})"
    return Case("trial", call, (d_k, base), shape=(d_k // 2,))


def check_rope_frequencies(rope_frequencies, reference=None, trials: int = 12) -> None:
    """Four frequency vectors (table `FREQUENCY_CASES`), 32 strictly decreasing ones from 1
    for d_k = 64, then `trials` random widths and bases against the reference."""
    run = CheckRun(rope_frequencies)
    run_cases(run, "rope_frequencies", FREQUENCY_CASES, KNOWN)
    call = "rope_frequencies(64, 10000)"
    theta = as_array(run.call(call, 64, 10000.0))
    run.expect_true(
        theta.shape == (32,) and bool(np.all(np.diff(theta) < 0)) and abs(theta[0] - 1.0) <= 1e-12,
        f"{call}: expected 32 strictly decreasing frequencies starting at 1; got {theta}",
        hint=HINT_PAIR_EXPONENT,
    )
    run_trials(run, "rope_frequencies", reference, trials, _frequency_trial, KNOWN)
    run.done()


# ---------------------------------------------------------------------------------------
# apply_rope
# ---------------------------------------------------------------------------------------
HINT_ROPE_SHAPE = "RoPE returns an array shaped like X"
HINT_ROPE_BROADCAST = (
    HINT_ANGLES_SHAPE + "; take d_k from X.shape[-1] and L from len(positions), "
    "never the worked example's sizes"
)


def _score_changes(Y) -> np.ndarray:
    """Rows (q, k, q, k, ...) rotated: each pair's score q~ . k~ minus the first pair's."""
    Y = np.asarray(Y, dtype=np.float64)
    scores = np.einsum("nd,nd->n", Y[0::2], Y[1::2])
    return scores[1:] - scores[0]


HINT_WORKED = (
    "pair i (features 2i and 2i+1) of token l turns by positions[l] * theta_i, theta = "
    "rope_frequencies(d_k, base) in its order (theta_0 = 1 for features 0 and 1)"
)
HINT_ROPE_IN_PLACE = "write the rotated pairs into a new array"
HINT_POSITION_ZERO = "position 0 turns every pair by 0: X comes back as it was"
HINT_OWN_POSITION = (
    "token l turns by its own position, positions[l], in the order given: pair i by "
    "positions[l] * theta_i"
)
HINT_RELATIVE = (
    "rotate queries and keys by the SAME angles per position; then the score "
    "depends only on the offset s - l"
)
HINT_LEADING_AXES = (
    "keep every leading axis: X is (..., L, d_k), so index pairs with X[..., "
    "0::2] and read d_k from X.shape[-1]"
)


def _per_slice_probe(run: CheckRun, case: Case, Y, expected, slips) -> None:
    """Leading axes: the same as each (L, d_k) slice rotated alone (the learner's own)."""
    X, positions, base = case.args
    own = np.stack([[as_array(run.call(case.call, X[b, h], positions, base,
                                       crash_hints=_ROPE_CRASH)) for h in range(X.shape[1])]
                    for b in range(X.shape[0])])  # fmt: skip
    run.expect_close(
        f"{case.call}: against each (L, d_k) slice rotated alone",
        Y,
        own,
        mistakes=slips,
        tol=case_tolerance(case, own),
        hint=HINT_LEADING_AXES,
    )


_ROPE_CRASH = (("broadcast", HINT_ROPE_BROADCAST),)
_rng = np.random.default_rng(31)
_X = _rng.standard_normal((5, 8))
_q, _k = _rng.standard_normal((1, 8)), _rng.standard_normal((1, 8))
_X4 = _rng.standard_normal((2, 3, 4, 6))
ROPE_CASES = (
    Case("worked", "apply_rope(X, [0, 1, 2], 100.0) on the worked (3, 4) example",
         (WORKED_ROPE_X, np.array([0, 1, 2]), 100.0), expect=STORED_ROPE_Y, hint=HINT_WORKED,
         shape_hint=HINT_ROPE_SHAPE, crash_hints=_ROPE_CRASH, decimals=10),
    Case("position 0", "apply_rope(X, [0, 0, 0, 0, 0], 10000.0) (every token at position 0)",
         (_X, np.zeros(5, dtype=int), 10000.0), expect=_X, hint=HINT_POSITION_ZERO,
         shape_hint=HINT_ROPE_SHAPE, crash_hints=_ROPE_CRASH),
    Case("positions", "apply_rope(X, [7, 0, 3, 12, 5], 10000.0) with X of shape (5, 8)",
         (_X, np.array([7, 0, 3, 12, 5]), 10000.0), expect=STORED_ROPE_SHUFFLED,
         hint=HINT_OWN_POSITION, shape_hint=HINT_ROPE_SHAPE, crash_hints=_ROPE_CRASH, decimals=10),
    # The score between a query at l and a key at s depends only on s - l.
    Case(
        "relative",
        "apply_rope on a query and a key at positions (l, s) = (1, 3), (2, 4), (11, 13), "
        "(100, 102)",
        (
            np.tile(np.concatenate([_q, _k]), (4, 1)),
            np.array([1, 3, 2, 4, 11, 13, 100, 102]),
            10000.0,
        ),
        expect=np.zeros(3),
        shape=(8, 8),
        hint=HINT_RELATIVE,
        crash_hints=_ROPE_CRASH,
        depth=4,
        view=("the scores q~_l . k~_s, each minus the first", _score_changes),
    ),
    Case("leading axes",
         "apply_rope(X, [0, 2, 5, 9], 500.0) with leading axes, X of shape (2, 3, 4, 6)",
         (_X4, np.array([0, 2, 5, 9]), 500.0), shape=_X4.shape, shape_hint=HINT_LEADING_AXES,
         crash_hints=(("", HINT_LEADING_AXES),), probe=_per_slice_probe),
    Case("list", "apply_rope(X, positions as a Python list [3], 10000.0) with X of shape (1, 2)",
         (np.array([[1.0, 0.0]]), [3], 10000.0), expect=[[np.cos(3.0), np.sin(3.0)]],
         shape_hint=HINT_ROPE_SHAPE, crash_hints=_ROPE_CRASH),
    Case("too few positions", "apply_rope with X (5, 8) and 4 positions",
         (_X, np.arange(4), 10000.0), raises=ValueError, mentions=("(5, 8)", "(4,)")),
    Case("odd width", "apply_rope with X of odd width (3, 5)",
         (np.zeros((3, 5)), np.arange(3), 10000.0), raises=ValueError, mentions=("(3, 5)",)),
)  # fmt: skip


def _rope_trial(rng, seed):
    lead = tuple(sizes(rng, int(rng.integers(0, 3)), high=4))
    L, d_k = sizes(rng, 1, high=9)[0], 2 * sizes(rng, 1, high=9)[0]
    X = normal(rng, *lead, L, d_k)
    positions = rng.integers(0, 50 if seed % 3 else 100000, size=L)
    base = float(rng.choice([100.0, 10000.0]))
    call = (
        f"apply_rope on random X of shape {X.shape}, positions {positions.tolist()}, "
        f"base {base:g} (seed {seed})"
    )
    # float32 precision for outputs of X's size that turn by angles up to max(positions)
    tol = tolerance(ACCEPTED_DTYPE, magnitude_of(X), 2, angle=float(positions.max()))
    return Case(
        "trial", call, (X, positions, base), shape=X.shape, crash_hints=_ROPE_CRASH, tolerance=tol
    )


def check_apply_rope(apply_rope, reference=None, trials: int = 12) -> None:
    """The worked example, position 0, shuffled positions, scores that depend only on the
    offset, leading axes and a list of positions (table `ROPE_CASES`), then `trials` random
    cases against the reference."""
    run_table(CheckRun(apply_rope, in_place_hint=HINT_ROPE_IN_PLACE), "apply_rope", ROPE_CASES,
              KNOWN, reference, trials, _rope_trial)  # fmt: skip


# Every table, by the function it checks: scripts/release.py runs the catalogued mistakes on
# these cases to generate slips/nb03.py.
CASES = {
    "rotation_2d": ROTATION_CASES,
    "rope_frequencies": FREQUENCY_CASES,
    "apply_rope": ROPE_CASES,
}
