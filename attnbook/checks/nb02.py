"""Checks for notebook 02, positions: sinusoidal_positions, embed, shift_matrix.

Visible use: `check_sinusoidal_positions(sinusoidal_positions)` runs stored worked examples
and properties. Hidden use: `check_sinusoidal_positions(f, reference=ref.sinusoidal_positions)`
also compares with the autograder's reference on random sizes.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from attnbook.checks._cases import (
    Case,
    Slips,
    case_tolerance,
    match_slip,
    matching_slips,
    normal,
    run_cases,
    run_table,
    run_trials,
    sizes,
)
from attnbook.checks._core import CheckRun, as_array, describe

__all__ = ["check_embed", "check_shift_matrix", "check_sinusoidal_positions"]

KNOWN = Slips("nb02")

#: The position table for L = 6, d = 4 (notebook 02's d = 4 curves), to 10 decimals.
STORED_P_6_4 = np.array(
    [
        [0.0, 1.0, 0.0, 1.0],
        [0.8414709848, 0.5403023059, 0.0099998333, 0.9999500004],
        [0.9092974268, -0.4161468365, 0.0199986667, 0.9998000067],
        [0.1411200081, -0.9899924966, 0.0299955002, 0.9995500337],
        [-0.7568024953, -0.6536436209, 0.0399893342, 0.9992001067],
        [-0.9589242747, 0.2836621855, 0.0499791693, 0.9987502604],
    ]
)
#: The position table for L = 4, d = 8, to 10 decimals.
STORED_P_4_8 = np.array(
    [
        [0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0],
        [
            0.8414709848,
            0.5403023059,
            0.0998334166,
            0.9950041653,
            0.0099998333,
            0.9999500004,
            0.0009999998,
            0.9999995000,
        ],
        [
            0.9092974268,
            -0.4161468365,
            0.1986693308,
            0.9800665778,
            0.0199986667,
            0.9998000067,
            0.0019999987,
            0.9999980000,
        ],
        [
            0.1411200081,
            -0.9899924966,
            0.2955202067,
            0.9553364891,
            0.0299955002,
            0.9995500337,
            0.0029999955,
            0.9999955000,
        ],
    ]
)
#: shift_matrix(1, 4): one 2 x 2 block per pair, to 10 decimals.
STORED_SHIFT_1_4 = np.array(
    [
        [0.5403023059, 0.8414709848, 0.0, 0.0],
        [-0.8414709848, 0.5403023059, 0.0, 0.0],
        [0.0, 0.0, 0.9999500004, 0.0099998333],
        [0.0, 0.0, -0.0099998333, 0.9999500004],
    ]
)

HINT_PAIR_EXPONENT = (
    "the exponent is 2i/d with i the PAIR index: w_i = 10000 ** (-2 * i / d) "
    "for i = 0 .. d/2 - 1, shared by features 2i and 2i+1"
)
HINT_BLOCK = (
    "the block of pair i is [[cos kw, sin kw], [-sin kw, cos kw]]: cos on the "
    "diagonal, +sin above it and -sin below it"
)
HINT_BLOCK_PLACE = (
    "pair i occupies rows and columns 2i and 2i+1: M[2*i:2*i+2, 2*i:2*i+2], "
    "and M is zero outside these blocks"
)


# ---------------------------------------------------------------------------------------
# sinusoidal_positions
# ---------------------------------------------------------------------------------------
HINT_ONE_ROW_PER_POSITION = "one row per position, one column per feature"
HINT_TABLE_FINITE = (
    "sin and cos are finite for every position: NaN or inf comes from an angle or a power that "
    "overflowed (work in float64: 10000.0 ** (-2 * i / d), not an integer power) or from 0 * inf"
)
HINT_TABLE_FLOAT64 = (
    "build the table in float64 (np.zeros((L, d)) and np.arange(L, "
    "dtype=np.float64) are float64): float32 keeps only about 7 digits"
)
HINT_FIRST_ROW = "sin(0) = 0 and cos(0) = 1, so p_0 = [0, 1, 0, 1, ...]"
HINT_FIRST_COLUMNS = (
    "row l is position l = 0, 1, ..., L-1 (np.arange(L)) and pair 0 has w_0 = "
    "1: P[l, 0] = sin(l), P[l, 1] = cos(l)"
)


def _table_probe(run: CheckRun, case: Case, P, expected, slips) -> None:
    """A table is float64; when it is wrong and no known slip matches it (or when there is
    no stored table to compare with), say which property fails: row 0, sin^2 + cos^2, the
    angle of pair 0 at each position, the frequencies read from row 1."""
    L, d = case.args
    dtype = str(getattr(P, "dtype", ""))
    run.expect_true(
        not any(low in dtype for low in ("float32", "float16", "bfloat16")),
        f"{case.call} returned {dtype} values; the table must be float64.",
        hint=HINT_TABLE_FLOAT64,
    )
    P = as_array(P)
    tol = case_tolerance(case, P)
    if expected is not None and (
        np.allclose(P, expected, rtol=tol.rtol, atol=tol.atol)
        or match_slip(P, expected, slips, tol) is not None
    ):
        return  # right, or a known slip the comparison names
    w = 10000.0 ** (-np.arange(0, d, 2) / d)  # (d/2,)
    properties = [
        (f"{case.call}: row 0 (position 0)", P[0], np.tile([0.0, 1.0], d // 2), HINT_FIRST_ROW),
        (
            f"{case.call}: sin^2 + cos^2 of every pair",
            P[:, 0::2] ** 2 + P[:, 1::2] ** 2,
            np.ones((L, d // 2)),
            "each pair (2i, 2i+1) is a point on the unit circle: sin and "
            "cos of the same angle l * w_i",
        ),
    ]
    if L > 1:  # w_0 = 1 for every d, so pair 0 turns by exactly l radians at position l
        properties.append(
            (
                f"{case.call}: angle of pair 0 (features 0 and 1) at each position l",
                np.angle(np.exp(1j * (np.arctan2(P[:, 0], P[:, 1]) - np.arange(L)))),
                np.zeros(L),
                HINT_FIRST_COLUMNS,
            )
        )
        properties.append(  # the angle of each pair at l = 1 is its frequency w_i
            (
                f"{case.call}: frequencies w_i read from row 1",
                np.arctan2(P[1, 0::2], P[1, 1::2]),
                w,
                HINT_PAIR_EXPONENT,
            )
        )
    for what, seen, wanted, hint in properties:
        if expected is None and not np.allclose(seen, wanted, rtol=tol.rtol, atol=tol.atol):
            run.fail_as_known(f"{case.call} returned wrong values (seen {describe(P)}).",
                              matching_slips(P, None, slips, tol))  # fmt: skip
        run.expect_close(what, seen, wanted, tol=tol, hint=hint)


HINT_FREQUENCY_PER_PAIR = (
    "P[:, 0::2] has d/2 columns: one frequency per PAIR, so w has length d/2 (w_i = 10000 ** (-2 * "
    "i / d), i = 0 .. d/2 - 1), with d the argument, never the worked example's d = 4; and the "
    "angles np.arange(L)[:, None] * w are (L, d/2), one row per position"
)


def _table_case(L: int, d: int, call: str = "", expect=None, decimals=None) -> Case:
    return Case(
        f"{L}x{d}",
        f"sinusoidal_positions({L}, {d}){call}",
        (L, d),
        expect=expect,
        shape=(L, d),
        shape_hint=HINT_ONE_ROW_PER_POSITION,
        finite=HINT_TABLE_FINITE,
        crash_hints=(("broadcast", HINT_FREQUENCY_PER_PAIR),),
        decimals=decimals,
        probe=_table_probe,
        angle=float(max(L - 1, 0)),  # the largest angle, (L - 1) * w_0
    )


TABLE_CASES = (
    _table_case(6, 4, " (the d = 4 curves of the figure)", STORED_P_6_4, decimals=10),
    _table_case(4, 8, "", STORED_P_4_8, decimals=10),
    _table_case(1, 6, " (a single position)"),
    _table_case(50, 16),
    *(
        Case(
            f"d={d}", f"sinusoidal_positions(3, {d})", (3, d), raises=ValueError, mentions=(str(d),)
        )
        for d in (5, 0, -4)
    ),
)  # fmt: skip


def _table_trial(rng: np.random.Generator, seed: int) -> Case:
    L, d = int(rng.integers(1, 40)), 2 * int(rng.integers(1, 17))
    return replace(_table_case(L, d, f" (random size, seed {seed})"), id="trial")


def _long_table_trial(rng: np.random.Generator, seed: int) -> Case:
    """A long sequence: angles near 5,000 rad, where float32 work is still right."""
    return replace(
        _table_case(4900 + int(rng.integers(0, 200)), 64, " (long sequence)"), id="trial"
    )


def check_sinusoidal_positions(sinusoidal_positions, reference=None, trials: int = 12) -> None:
    """The stored tables for (6, 4) and (4, 8), the properties of (1, 6) and (50, 16) (table
    `TABLE_CASES`), then `trials` random sizes and a long sequence against the reference."""
    run = CheckRun(sinusoidal_positions)
    run_cases(run, "sinusoidal_positions", TABLE_CASES, KNOWN)
    run_trials(run, "sinusoidal_positions", reference, trials, _table_trial, KNOWN)
    run_trials(run, "sinusoidal_positions", reference, 1, _long_table_trial, KNOWN)
    run.done()


# ---------------------------------------------------------------------------------------
# embed
# ---------------------------------------------------------------------------------------


HINT_EMBED_SHAPES = (
    "X[l] = E[token_ids[l]] + P[l]: take each token's row of E with E[token_ids] (shape (L, d)), "
    "and only the first L rows of P, P[:L] (P may hold more positions than the sequence)"
)


HINT_EMBED_IN_PLACE = (
    "P[:L] and E[t] are views: X += ... or E[t] += ... writes into the "
    "tables. Build a new array from E[token_ids] and P[:L] with +, not +="
)
HINT_EMBED_SHAPE = "one row per token: (L, d)"
HINT_EMBED_VALUES = "X[l] = E[token_ids[l]] + P[l]: the token's row of E plus row l of P"


_E = np.array(
    [
        [1.0, 0.0, 2.0, 0.0],
        [0.0, 3.0, 0.0, 1.0],
        [2.0, 2.0, 0.0, 0.0],
        [0.0, 1.0, 1.0, 4.0],
        [5.0, 0.0, 0.0, 1.0],
    ]
)  # (V=5, d=4)
_P = 10.0 * np.arange(6)[:, None] + np.arange(4)[None, :] / 10  # (6, 4): p[l, j] = 10l + j/10
_EMBED_CRASH = (("broadcast", HINT_EMBED_SHAPES),)
EMBED_CASES = (
    Case("worked", "embed([3, 1, 3], E, P) with E (5, 4) and P (6, 4), P[l, j] = 10 l + j / 10",
         (np.array([3, 1, 3]), _E, _P),
         expect=[[0.0, 1.1, 1.2, 4.3], [10.0, 13.1, 10.2, 11.3], [20.0, 21.1, 21.2, 24.3]],
         hint=HINT_EMBED_VALUES, shape_hint=HINT_EMBED_SHAPE, crash_hints=_EMBED_CRASH),
    Case("list", "embed(token_ids, E, P) with token_ids given as a Python list [4, 0]",
         ([4, 0], _E, _P), expect=[[5.0, 0.1, 0.2, 1.3], [11.0, 10.1, 12.2, 10.3]],
         crash_hints=_EMBED_CRASH),
    Case("single", "embed([2], E, P) (a single token)", (np.array([2]), _E, _P),
         expect=[[2.0, 2.1, 0.2, 0.3]], crash_hints=_EMBED_CRASH),
    Case("too long", "embed with 7 tokens but P of shape (6, 4)", (np.zeros(7, dtype=int), _E, _P),
         raises=ValueError, mentions=("P", "(6, 4)")),
    Case("widths differ", "embed with E (5, 4) and P (6, 3)", (np.array([3, 1, 3]), _E, _P[:, :3]),
         raises=ValueError, mentions=("(5, 4)", "(6, 3)")),
)  # fmt: skip


def _embed_trial(rng, seed):
    V, d, L = sizes(rng, 3, high=9)
    L_max = L + int(rng.integers(0, 5))
    E, P, ids = normal(rng, V, d), normal(rng, L_max, d), rng.integers(0, V, size=L)
    call = f"embed on random ids ({L},), E ({V}, {d}), P ({L_max}, {d}) (seed {seed})"
    return Case("trial", call, (ids, E, P), shape=(L, d), crash_hints=_EMBED_CRASH)


def check_embed(embed, reference=None, trials: int = 12) -> None:
    """embed on a worked example, a list of ids and a single token (table `EMBED_CASES`),
    then `trials` random cases against the reference."""
    run_table(CheckRun(embed, in_place_hint=HINT_EMBED_IN_PLACE), "embed", EMBED_CASES, KNOWN,
              reference, trials, _embed_trial)  # fmt: skip


# ---------------------------------------------------------------------------------------
# shift_matrix
# ---------------------------------------------------------------------------------------


def _shift_probe(run: CheckRun, case: Case, M, expected, slips) -> None:
    """Say which part of a wrong shift matrix no known slip explains is wrong: placement,
    block form or angles."""
    (k, d), call, M = case.args, case.call, as_array(M)
    tol = case_tolerance(case, expected)
    if np.allclose(M, expected, rtol=tol.rtol, atol=tol.atol) or match_slip(
        M, expected, slips, tol
    ):
        return
    inside = np.kron(np.eye(d // 2), np.ones((2, 2))) > 0
    run.expect_true(
        np.allclose(M[~inside], 0.0, atol=tol.atol),
        f"{call} has nonzero entries outside the 2 x 2 blocks on (2i, 2i+1): {describe(M)}",
        hint=HINT_BLOCK_PLACE,
    )
    a, b = M[0::2, 0::2].diagonal(), M[0::2, 1::2].diagonal()
    c, e = M[1::2, 0::2].diagonal(), M[1::2, 1::2].diagonal()
    run.expect_true(
        np.allclose(a, e, atol=tol.atol)
        and np.allclose(b, -c, atol=tol.atol)
        and np.allclose(a**2 + b**2, 1.0, atol=tol.atol),
        f"{call}: a block is not of the form [[cos, sin], [-sin, cos]]: {describe(M)}",
        hint=HINT_BLOCK,
    )
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    angle_error = np.angle(np.exp(1j * (np.arctan2(b, a) - k * w)))
    run.expect_true(
        np.allclose(angle_error, 0.0, atol=tol.atol),
        f"{call}: the blocks turn by the angles {np.arctan2(b, a)}; expected k * w_i "
        f"= {np.angle(np.exp(1j * k * w))} (modulo 2 pi)",
        hint=HINT_PAIR_EXPONENT,
    )


HINT_SHIFT_SHAPE = "a (d, d) matrix acting on a position vector"
HINT_SHIFT_HARD_CODED = "a (d, d) matrix with d the argument, not the worked example's 4"
HINT_SHIFT_ZERO = "shifting by 0 leaves every position vector alone: the identity"
HINT_SHIFT_ROTATION = "each block is a rotation: [[cos, sin], [-sin, cos]]"
HINT_SHIFT_TAKES = "the matrix must take p_l to p_(l{k}) for every l"  # k: the shift, signed


def _on_table(k: int, d: int, table: np.ndarray) -> Case:
    """shift_matrix(k, d) judged by what it does: M @ p_l must be p_(l+k) on the stored table."""
    rows = range(max(0, -k), len(table) - max(0, k))
    return Case(
        f"k={k}, d={d} on p_l",
        f"shift_matrix({k}, {d}) applied to the stored p_l",
        (k, d),
        expect=np.stack([table[l + k] for l in rows]),
        shape=(d, d),
        shape_hint=HINT_SHIFT_HARD_CODED,
        hint=HINT_SHIFT_TAKES.format(k=f"{k:+d}"),
        decimals=10,
        angle=float(abs(k)),  # the largest angle, |k| * w_0
        view=(
            f"shift_matrix({k}, {d}) @ p_l for l in {list(rows)}",
            lambda M: np.stack([M @ table[l] for l in rows]),
        ),
    )


SHIFT_CASES = (
    Case("k=1, d=4", "shift_matrix(1, 4)", (1, 4), expect=STORED_SHIFT_1_4,
         shape_hint=HINT_SHIFT_SHAPE, decimals=10, probe=_shift_probe),
    _on_table(2, 4, STORED_P_6_4),
    _on_table(3, 8, STORED_P_4_8),
    _on_table(-2, 4, STORED_P_6_4),
    Case("k=0", "shift_matrix(0, 6) (no shift)", (0, 6), expect=np.eye(6), hint=HINT_SHIFT_ZERO),
    Case("rotation", "shift_matrix(7, 10)", (7, 10), expect=np.eye(10), shape=(10, 10),
         hint=HINT_SHIFT_ROTATION, view=("M^T M (a rotation keeps lengths)", lambda M: M.T @ M)),
    *(
        Case(f"d={d}", f"shift_matrix(1, {d})", (1, d), raises=ValueError, mentions=(str(d),))
        for d in (3, 0)
    ),
    Case("k=2.5", "shift_matrix(2.5, 4) (k is a whole step)", (2.5, 4), raises=ValueError,
         mentions=("k", "2.5")),
)  # fmt: skip


def _shift_trial(rng: np.random.Generator, seed: int) -> Case:
    k, d = int(rng.integers(-50, 51)), 2 * int(rng.integers(1, 13))
    call = f"shift_matrix({k}, {d}) (random, seed {seed})"
    return Case("trial", call, (k, d), shape=(d, d), angle=float(abs(k)))


def _large_shift_trial(rng: np.random.Generator, seed: int) -> Case:
    k = 100000 + int(rng.integers(0, 1000))
    return Case("trial", f"shift_matrix({k}, 8) (a large shift)", (k, 8), angle=float(k))


def check_shift_matrix(shift_matrix, reference=None, trials: int = 12) -> None:
    """The stored shift_matrix(1, 4), shifts of the stored tables, no shift, a rotation
    (table `SHIFT_CASES`), then `trials` random shifts and a large
    one against the reference."""
    run = CheckRun(shift_matrix)
    run_cases(run, "shift_matrix", SHIFT_CASES, KNOWN)
    run_trials(run, "shift_matrix", reference, trials, _shift_trial, KNOWN)
    run_trials(run, "shift_matrix", reference, 1, _large_shift_trial, KNOWN)
    run.done()


# Every table, by the function it checks: scripts/release.py runs the catalogued mistakes on
# these cases to generate slips/nb02.py.
CASES = {
    "sinusoidal_positions": TABLE_CASES,
    "embed": EMBED_CASES,
    "shift_matrix": SHIFT_CASES,
}
