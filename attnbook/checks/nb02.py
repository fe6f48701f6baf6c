"""Checks for notebook 02, positions: sinusoidal_positions, embed, shift_matrix.

Visible use: `check_sinusoidal_positions(sinusoidal_positions)` runs stored worked examples
and properties. Hidden use: `check_sinusoidal_positions(f, reference=ref.sinusoidal_positions)`
also compares with the autograder's reference on random sizes.
"""

from __future__ import annotations

import numpy as np

from attnbook.checks._core import (
    CheckRun,
    Mistake,
    PrecisionAwareRun,
    as_array,
    describe,
    hidden_range,
    hidden_seed,
)
from attnbook.tolerance import tolerance

__all__ = ["check_embed", "check_shift_matrix", "check_sinusoidal_positions"]

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
#: The worked examples above are float64 values written to 10 decimals, of size at most 1.
STORED_ATOL = tolerance(np.float64, magnitude=1.0, decimals=10).atol

HINT_PAIR_EXPONENT = (
    "the exponent is 2i/d with i the PAIR index: w_i = 10000 ** (-2 * i / d) "
    "for i = 0 .. d/2 - 1, shared by features 2i and 2i+1"
)
HINT_STEP_TWICE = (
    "np.arange(0, d, 2) already gives 2i (0, 2, 4, ...): do not multiply it by 2 "
    "again; w_i = 10000 ** (-2 * i / d) with i = 0 .. d/2 - 1"
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
# helpers that build the known wrong answers
# ---------------------------------------------------------------------------------------
def _wrong_table(positions, w_sin, w_cos=None, layout="interleaved", swap=False):
    """A sin/cos table with the given frequencies and layout: the raw material of mistakes."""
    w_cos = w_sin if w_cos is None else w_cos
    l = np.asarray(positions, dtype=np.float64)[:, None]  # (L, 1)
    first, second = np.sin(l * w_sin), np.cos(l * w_cos)  # (L, d/2) each
    if swap:
        first, second = np.cos(l * w_sin), np.sin(l * w_cos)
    if layout == "halves":
        return np.concatenate([first, second], axis=1)  # (L, d)
    return np.stack([first, second], axis=-1).reshape(len(l), -1)  # (L, d), interleaved


HINT_SIN_COS_SWAPPED = "sin goes in the even features 2i and cos in the odd features 2i+1"
HINT_SIN_COS_TWO_HALVES = (
    "interleave the pairs: P[:, 0::2] = sin, P[:, 1::2] = cos (not all "
    "sines first, then all cosines)"
)
HINT_POSITIONS_STARTING_1 = (
    "positions start at 0: row 0 is p_0 = [0, 1, 0, 1, ...], use np.arange(L)"
)
HINT_POSITIVE_EXPONENT_10000 = "the frequencies shrink: w_i = 10000 ** (-2i/d), with a minus sign"
HINT_LAST_POSITION_ROW_LEFT = "fill every position l = 0 .. L-1, the last included: range(L)"
HINT_LAST_PAIR_LEFT_ZERO = "fill every pair i = 0 .. d/2-1, the last included: range(d // 2)"
HINT_MISSING_PARENTHESES = (
    "put the whole exponent in parentheses: 10000 ** (-2 * i / d); ** binds before / and *"
)
HINT_POSITIONS_NP_LINSPACE = (
    "the positions are the whole numbers 0, 1, ..., L-1: np.arange(L), not np.linspace(0, L, L)"
)
HINT_SIN_TIMES_W = "take sin and cos of the angle l * w_i: np.sin(l * w), not np.sin(l) * w"
HINT_ANGLES_TRANSPOSED = (
    "angles = np.arange(L)[:, None] * w has shape (L, d/2): one row per "
    "position, one column per pair; w[:, None] * np.arange(L) is its "
    "transpose"
)


def _sinusoid_mistakes(L: int, d: int) -> list[Mistake]:
    i = np.arange(d // 2)
    w = 10000.0 ** (-2 * i / d)
    l = np.arange(L)
    mistakes = [
        Mistake(
            "exponent i/d instead of 2i/d", _wrong_table(l, 10000.0 ** (-i / d)), HINT_PAIR_EXPONENT
        ),
        Mistake(
            "frequency taken from the feature index j (10000^(-j/d)) for cos as well",
            _wrong_table(l, w, 10000.0 ** (-(2 * i + 1) / d)),
            HINT_PAIR_EXPONENT,
        ),
        Mistake("sin and cos swapped", _wrong_table(l, w, swap=True), HINT_SIN_COS_SWAPPED),
        Mistake(
            "sin and cos in two halves instead of interleaved",
            _wrong_table(l, w, layout="halves"),
            HINT_SIN_COS_TWO_HALVES,
        ),
        Mistake("positions starting at 1", _wrong_table(l + 1, w), HINT_POSITIONS_STARTING_1),
        Mistake(
            "positive exponent (10000^(+2i/d))",
            _wrong_table(l, 10000.0 ** (2 * i / d)),
            HINT_POSITIVE_EXPONENT_10000,
        ),
        Mistake(
            "exponent 4i/d: the step of 2 counted twice",
            _wrong_table(l, 10000.0 ** (-4 * i / d)),
            HINT_STEP_TWICE,
        ),
        Mistake(
            "the last position row left zero (a loop over range(L - 1))",
            np.where(l[:, None] == L - 1, 0.0, _wrong_table(l, w)),
            HINT_LAST_POSITION_ROW_LEFT,
        ),
        Mistake(
            "the last pair left zero (a loop over range(d // 2 - 1))",
            np.where(np.arange(d)[None, :] >= d - 2, 0.0, _wrong_table(l, w)),
            HINT_LAST_PAIR_LEFT_ZERO,
        ),
        Mistake(
            "missing parentheses: 1 / 10000 ** (2i) / d",
            _wrong_table(l, 1 / 10000.0 ** (2.0 * i) / d),
            HINT_MISSING_PARENTHESES,
        ),
        Mistake(
            "positions from np.linspace(0, L, L)",
            _wrong_table(np.linspace(0, L, L), w),
            HINT_POSITIONS_NP_LINSPACE,
        ),
        Mistake(
            "sin(l) * w instead of sin(l * w)",
            np.stack([np.sin(l)[:, None] * w, np.cos(l)[:, None] * w], axis=-1).reshape(L, -1),
            HINT_SIN_TIMES_W,
        ),
    ]
    if L == d // 2 and L > 1:
        mistakes = [
            *mistakes,
            Mistake(
                "angles built (d/2, L) instead of (L, d/2)",
                np.stack([np.sin(l[:, None] * w).T, np.cos(l[:, None] * w).T], axis=-1).reshape(
                    L, -1
                ),
                HINT_ANGLES_TRANSPOSED,
            ),
        ]
    return mistakes


# ---------------------------------------------------------------------------------------
# sinusoidal_positions
# ---------------------------------------------------------------------------------------
HINT_ONE_ROW_PER_POSITION = "one row per position, one column per feature"
HINT_TABLE_FINITE = "sin and cos are finite for every position"
HINT_TABLE_FLOAT64 = (
    "build the table in float64 (np.zeros((L, d)) and np.arange(L, "
    "dtype=np.float64) are float64): float32 keeps only about 7 digits"
)
HINT_FIRST_ROW = "sin(0) = 0 and cos(0) = 1, so p_0 = [0, 1, 0, 1, ...]"
HINT_FIRST_COLUMNS = (
    "row l is position l = 0, 1, ..., L-1 (np.arange(L)) and pair 0 has w_0 = "
    "1: P[l, 0] = sin(l), P[l, 1] = cos(l)"
)


def _check_table(run: CheckRun, call: str, P, L: int, d: int, expected=None, atol=1e-8):
    run.expect_shape(call, P, (L, d), hint=HINT_ONE_ROW_PER_POSITION)
    run.expect_finite(call, P, hint=HINT_TABLE_FINITE)
    dtype = str(getattr(P, "dtype", ""))
    run.expect_true(
        not any(low in dtype for low in ("float32", "float16", "bfloat16")),
        f"{call} returned {dtype} values; the table must be float64.",
        hint=HINT_TABLE_FLOAT64,
    )
    mistakes = _sinusoid_mistakes(L, d)
    if expected is not None:
        seen = as_array(P)
        if seen.shape == np.shape(expected) and not np.allclose(
            seen, expected, rtol=1e-6, atol=atol
        ):
            # Name a known mistake, else let the properties below say what is wrong.
            mistake = run.match_mistake(seen, mistakes)
            if mistake is None:
                _check_table(run, call, P, L, d)
        run.expect_close(call, P, expected, mistakes=mistakes, atol=atol)
        return
    P = as_array(P)
    w = 10000.0 ** (-np.arange(0, d, 2) / d)  # (d/2,)
    properties = [
        (f"{call}: row 0 (position 0)", P[0], np.tile([0.0, 1.0], d // 2), HINT_FIRST_ROW),
        (
            f"{call}: sin^2 + cos^2 of every pair",
            P[:, 0::2] ** 2 + P[:, 1::2] ** 2,
            np.ones((L, d // 2)),
            "each pair (2i, 2i+1) is a point on the unit circle: sin and "
            "cos of the same angle l * w_i",
        ),
    ]
    if L > 1:  # w_0 = 1 for every d, so pair 0 turns by exactly l radians at position l
        properties.append(
            (
                f"{call}: angle of pair 0 (features 0 and 1) at each position l",
                np.angle(np.exp(1j * (np.arctan2(P[:, 0], P[:, 1]) - np.arange(L)))),
                np.zeros(L),
                HINT_FIRST_COLUMNS,
            )
        )
    if L > 1:  # the angle of each pair at l = 1 is its frequency w_i
        properties.append(
            (
                f"{call}: frequencies w_i read from row 1",
                np.arctan2(P[1, 0::2], P[1, 1::2]),
                w,
                HINT_PAIR_EXPONENT,
            )
        )
    for what, seen, expected, hint in properties:
        if not np.allclose(seen, expected, rtol=1e-6, atol=1e-8):
            mistake = run.match_mistake(P, mistakes)
            if mistake is not None:
                run.fail(
                    f"{call} returned wrong values (seen {describe(P)}).\nThis looks like "
                    f"a known mistake: {mistake.name}.",
                    hint=mistake.hint,
                )
        run.expect_close(what, seen, expected, hint=hint)


HINT_FREQUENCY_PER_PAIR = (
    "P[:, 0::2] has d/2 columns: one frequency per PAIR, so w has length "
    "d/2 (w_i = 10000 ** (-2 * i / d), i = 0 .. d/2 - 1), with d the "
    "argument, never the worked example's d = 4; and the angles "
    "np.arange(L)[:, None] * w are (L, d/2), one row per position"
)


def _call_table(run: CheckRun, call: str, *args):
    """Call sinusoidal_positions; a broadcasting error gets the hint a student needs."""
    return run.call(call, *args, crash_hints=[("broadcast", HINT_FREQUENCY_PER_PAIR)])


def check_sinusoidal_positions(sinusoidal_positions, reference=None, trials: int = 12) -> None:
    run = CheckRun(sinusoidal_positions)
    call = "sinusoidal_positions(6, 4) (the d = 4 curves of the figure)"
    _check_table(run, call, _call_table(run, call, 6, 4), 6, 4, STORED_P_6_4, atol=STORED_ATOL)
    call = "sinusoidal_positions(4, 8)"
    _check_table(run, call, _call_table(run, call, 4, 8), 4, 8, STORED_P_4_8, atol=STORED_ATOL)
    call = "sinusoidal_positions(1, 6) (a single position)"
    _check_table(run, call, _call_table(run, call, 1, 6), 1, 6)
    call = "sinusoidal_positions(50, 16)"
    _check_table(run, call, _call_table(run, call, 50, 16), 50, 16)

    for d in (5, 0, -4):
        run.expect_raises(f"sinusoidal_positions(3, {d})", ValueError, 3, d, mentions=(str(d),))
    if reference is not None:
        rng = np.random.default_rng(hidden_seed(500))
        for seed in hidden_range(trials):
            L, d = int(rng.integers(1, 40)), 2 * int(rng.integers(1, 17))
            call = f"sinusoidal_positions({L}, {d}) (random size, trial {seed})"
            _check_table(run, call, _call_table(run, call, L, d), L, d, reference(L, d))
        L = 4900 + int(rng.integers(0, 200))
        call = f"sinusoidal_positions({L}, 64) (long sequence)"
        _check_table(run, call, _call_table(run, call, L, 64), L, 64, reference(L, 64), atol=1e-7)
    run.done()


# ---------------------------------------------------------------------------------------
# embed
# ---------------------------------------------------------------------------------------
HINT_POSITIONS_NOT_ADDED = "x_l = E[w_l] + p_l: add row l of P to each embedding row"
HINT_P_INDEXED_TOKEN_IDS = (
    "the position vector of token number l is P[l], whatever the token "
    "is: add P[:L], not P[token_ids]"
)
HINT_POSITIONS_REVERSED = "the first token gets p_0: add P[:L] in order"
HINT_EMBED_FROM_1 = "the first token sits at position 0: add P[:L], not P[1:L+1]"
HINT_ONE_POSITION_ROW_P = (
    "each token gets its own position: add P[:L] (a slice), not P[L] (one row)"
)
HINT_LAST_L_ROWS_P = "use the first L rows of P, P[:L], not P[-L:]"
HINT_E_BY_POSITION = "the row of E is chosen by the token id: E[token_ids], not E[:L]"
HINT_TOKEN_IDS_SHIFTED_ONE = "token id t selects row t of E (ids count from 0): E[token_ids]"
HINT_EMBEDDING_SCALED_SQRT = "x_l = E[w_l] + p_l exactly: no sqrt(d) scaling in this workbook"
HINT_EMBEDDING_POSITION_AVERAGED = "x_l = E[w_l] + p_l: add, do not average"
HINT_POSITION_SUBTRACTED = "x_l = E[w_l] + p_l: add the position vector, do not subtract it"
HINT_OWN_SINUSOIDAL_TABLE = (
    "use the P you are given (it may be learned or random): add its "
    "first L rows, P[:L]; do not build a new table"
)
HINT_EMBEDDING_MULTIPLIED_POSITION = "x_l = E[w_l] + p_l: add the position vector, do not multiply"


def _embed_mistakes(ids, E, P) -> list[Mistake]:
    ids = np.asarray(ids)
    L = len(ids)
    out = [
        Mistake("positions not added", E[ids], HINT_POSITIONS_NOT_ADDED),
        Mistake(
            "P indexed by the token ids instead of the positions",
            E[ids] + P[np.minimum(ids, len(P) - 1)],
            HINT_P_INDEXED_TOKEN_IDS,
        ),
        Mistake("positions reversed", E[ids] + P[:L][::-1], HINT_POSITIONS_REVERSED),
    ]
    if len(P) > L:
        out.append(Mistake("positions starting at 1", E[ids] + P[1 : L + 1], HINT_EMBED_FROM_1))
        out.append(
            Mistake(
                "one position row P[L] added to every token", E[ids] + P[L], HINT_ONE_POSITION_ROW_P
            )
        )
        out.append(Mistake("the last L rows of P", E[ids] + P[-L:], HINT_LAST_L_ROWS_P))
    if len(E) >= L:
        out.append(
            Mistake(
                "E indexed by the positions 0 .. L-1 instead of the token ids",
                E[:L] + P[:L],
                HINT_E_BY_POSITION,
            )
        )
    if L and np.min(ids) >= 1:
        out.append(
            Mistake(
                "token ids shifted by one (E[token_ids - 1])",
                E[ids - 1] + P[:L],
                HINT_TOKEN_IDS_SHIFTED_ONE,
            )
        )
    d = E.shape[1]
    out.append(
        Mistake(
            "embedding scaled by sqrt(d)", E[ids] * np.sqrt(d) + P[:L], HINT_EMBEDDING_SCALED_SQRT
        )
    )
    out.append(
        Mistake(
            "embedding and position averaged",
            (E[ids] + P[:L]) / 2,
            HINT_EMBEDDING_POSITION_AVERAGED,
        )
    )
    out.append(Mistake("position subtracted", E[ids] - P[:L], HINT_POSITION_SUBTRACTED))
    if d % 2 == 0:
        table = _wrong_table(np.arange(L), 10000.0 ** (-np.arange(0, d, 2) / d))
        out.append(
            Mistake(
                "its own sinusoidal table instead of the argument P",
                E[ids] + table,
                HINT_OWN_SINUSOIDAL_TABLE,
            )
        )
    out.append(
        Mistake(
            "embedding multiplied by the position instead of added",
            E[ids] * P[:L],
            HINT_EMBEDDING_MULTIPLIED_POSITION,
        )
    )
    return out


HINT_EMBED_SHAPES = (
    "X[l] = E[token_ids[l]] + P[l]: take each token's row of E with "
    "E[token_ids] (shape (L, d)), and only the first L rows of P, P[:L] (P may "
    "hold more positions than the sequence)"
)


def _call_embed(run: CheckRun, call: str, *args):
    return run.call(call, *args, crash_hints=[("broadcast", HINT_EMBED_SHAPES)])


HINT_EMBED_IN_PLACE = (
    "P[:L] and E[t] are views: X += ... or E[t] += ... writes into the "
    "tables. Build a new array from E[token_ids] and P[:L] with +, not +="
)
HINT_EMBED_SHAPE = "one row per token: (L, d)"
HINT_EMBED_VALUES = "X[l] = E[token_ids[l]] + P[l]: the token's row of E plus row l of P"
HINT_SAME_TOKEN_TWO_POSITIONS = "the same token at two positions must get different vectors"


def check_embed(embed, reference=None, trials: int = 12) -> None:
    # float32 answers judged at float32 precision
    run = PrecisionAwareRun(embed, in_place_hint=HINT_EMBED_IN_PLACE)
    E = np.array(
        [
            [1.0, 0.0, 2.0, 0.0],
            [0.0, 3.0, 0.0, 1.0],
            [2.0, 2.0, 0.0, 0.0],
            [0.0, 1.0, 1.0, 4.0],
            [5.0, 0.0, 0.0, 1.0],
        ]
    )  # (V=5, d=4)
    P = 10.0 * np.arange(6)[:, None] + np.arange(4)[None, :] / 10  # (6, 4): p[l, j] = 10l + j/10
    ids = np.array([3, 1, 3])
    call = "embed([3, 1, 3], E, P) with E (5, 4) and P (6, 4), P[l, j] = 10 l + j / 10"
    X = _call_embed(run, call, ids, E, P)
    run.expect_shape(call, X, (3, 4), hint=HINT_EMBED_SHAPE)
    run.expect_finite(call, X)
    run.expect_close(
        call,
        X,
        [[0.0, 1.1, 1.2, 4.3], [10.0, 13.1, 10.2, 11.3], [20.0, 21.1, 21.2, 24.3]],
        mistakes=_embed_mistakes(ids, E, P),
        hint=HINT_EMBED_VALUES,
    )
    X = as_array(X)
    run.expect_true(
        not np.allclose(X[0], X[2]),
        f"{call}: token 3 at positions 0 and 2 got the same vector {X[0]}.",
        hint=HINT_SAME_TOKEN_TWO_POSITIONS,
    )

    call = "embed(token_ids, E, P) with token_ids given as a Python list [4, 0]"
    X = _call_embed(run, call, [4, 0], E, P)
    run.expect_close(
        call,
        X,
        [[5.0, 0.1, 0.2, 1.3], [11.0, 10.1, 12.2, 10.3]],
        mistakes=_embed_mistakes(np.array([4, 0]), E, P),
    )

    call = "embed([2], E, P) (a single token)"
    X = _call_embed(run, call, np.array([2]), E, P)
    run.expect_close(call, X, [[2.0, 2.1, 0.2, 0.3]], mistakes=_embed_mistakes([2], E, P))

    run.expect_raises(
        "embed with 7 tokens but P of shape (6, 4)",
        ValueError,
        np.zeros(7, dtype=int),
        E,
        P,
        mentions=("P", "(6, 4)"),
    )
    run.expect_raises(
        "embed with E (5, 4) and P (6, 3)",
        ValueError,
        ids,
        E,
        P[:, :3],
        mentions=("(5, 4)", "(6, 3)"),
    )
    if reference is not None:
        for seed in hidden_range(trials):
            rng = np.random.default_rng(600 + seed)
            V, d, L = (int(v) for v in rng.integers(1, 9, size=3))
            L_max = L + int(rng.integers(0, 5))
            E, P = rng.standard_normal((V, d)), rng.standard_normal((L_max, d))
            ids = rng.integers(0, V, size=L)
            call = f"embed on random ids ({L},), E ({V}, {d}), P ({L_max}, {d}) (seed {seed})"
            X = _call_embed(run, call, ids, E, P)
            run.expect_shape(call, X, (L, d))
            run.expect_close(call, X, reference(ids, E, P), mistakes=_embed_mistakes(ids, E, P))
    run.done()


# ---------------------------------------------------------------------------------------
# shift_matrix
# ---------------------------------------------------------------------------------------
def _blocks(c, s, layout="interleaved"):
    """A (d, d) matrix with one [[c, s], [-s, c]] block per pair, or that map laid out in
    halves (pair i on features i and i + d/2)."""
    half = len(c)
    M = np.zeros((2 * half, 2 * half))
    first, second = (np.arange(0, 2 * half, 2), np.arange(1, 2 * half, 2))
    if layout == "halves":
        first, second = np.arange(half), np.arange(half, 2 * half)
    M[first, first], M[first, second] = c, s
    M[second, first], M[second, second] = -s, c
    return M


HINT_BLOCKS_TRANSPOSED = (
    "check the first row on p_l = [sin, cos]: sin((l+k)w) = sin(lw) "
    "cos(kw) + cos(lw) sin(kw), so the block is [[cos kw, sin kw], [-sin "
    "kw, cos kw]]"
)
HINT_SHIFT_ONE_FREQUENCY = "pair i turns by k * w_i with its own w_i = 10000 ** (-2i/d)"
HINT_SHIFT_HALVES = "pair i is features 2i and 2i+1, the same interleaved layout as P"
HINT_SHIFT_USE_K = "the angle of pair i is k * w_i: use k"
HINT_INTEGER_MATRIX = (
    "make M a float array (np.zeros((d, d)) is float64; dtype=int truncates "
    "cos and sin to 0 or +-1)"
)
HINT_SHIFT_K_PLUS_1 = "the angle of pair i is k * w_i, not (k + 1) * w_i"


def _shift_mistakes(k, d) -> list[Mistake]:
    i = np.arange(d // 2)
    w = 10000.0 ** (-2 * i / d)
    c, s = np.cos(k * w), np.sin(k * w)
    return [
        Mistake(
            "blocks transposed: the matrix takes p_l to p_(l-k)",
            _blocks(c, s).T,
            HINT_BLOCKS_TRANSPOSED,
        ),
        Mistake(
            "one frequency (w = 1) for every pair",
            _blocks(np.cos(k + 0 * w), np.sin(k + 0 * w)),
            HINT_SHIFT_ONE_FREQUENCY,
        ),
        Mistake(
            "exponent i/d instead of 2i/d",
            _blocks(np.cos(k * 10000.0 ** (-i / d)), np.sin(k * 10000.0 ** (-i / d))),
            HINT_PAIR_EXPONENT,
        ),
        Mistake(
            "pairs laid out in two halves instead of (2i, 2i+1)",
            _blocks(c, s, layout="halves"),
            HINT_SHIFT_HALVES,
        ),
        Mistake("shift by one step whatever k is", _blocks(np.cos(w), np.sin(w)), HINT_SHIFT_USE_K),
        Mistake("the identity whatever k is", np.eye(d), HINT_SHIFT_USE_K),
        Mistake(
            "minus sign missing: [[cos, sin], [sin, cos]]",
            _blocks(c, s) * _signs(d, -1),
            HINT_BLOCK,
        ),
        Mistake(
            "sin and cos swapped in the block: [[sin, cos], [-cos, sin]]", _blocks(s, c), HINT_BLOCK
        ),
        Mistake(
            "blocks placed at [i:i+2] instead of [2i:2i+2] (they overlap)",
            _overlapping_blocks(c, s),
            HINT_BLOCK_PLACE,
        ),
        Mistake(
            "exponent 4i/d: the step of 2 counted twice",
            _blocks(np.cos(k * 10000.0 ** (-4 * i / d)), np.sin(k * 10000.0 ** (-4 * i / d))),
            HINT_STEP_TWICE,
        ),
        Mistake(
            "the last block left zero (a loop over range(d // 2 - 1))",
            _blocks(np.where(i == d // 2 - 1, 0.0, c), np.where(i == d // 2 - 1, 0.0, s)),
            HINT_LAST_PAIR_LEFT_ZERO,
        ),
        Mistake(
            "an integer matrix (cos and sin truncated to whole numbers)",
            np.trunc(_blocks(c, s)),
            HINT_INTEGER_MATRIX,
        ),
        Mistake(
            "positive exponent (10000^(+2i/d))",
            _blocks(np.cos(k * 10000.0 ** (2 * i / d)), np.sin(k * 10000.0 ** (2 * i / d))),
            HINT_POSITIVE_EXPONENT_10000,
        ),
        Mistake(
            "shift by k + 1", _blocks(np.cos((k + 1) * w), np.sin((k + 1) * w)), HINT_SHIFT_K_PLUS_1
        ),
    ]


def _signs(d, lower):
    """+1 everywhere except `lower` on the below-diagonal entry of each 2 x 2 block."""
    out = np.ones((d, d))
    out[np.arange(1, d, 2), np.arange(0, d, 2)] = lower
    return out


def _overlapping_blocks(c, s):
    d = 2 * len(c)
    M = np.zeros((d, d))
    for i in range(len(c)):
        M[i : i + 2, i : i + 2] = [[c[i], s[i]], [-s[i], c[i]]]
    return M


def _diagnose_shift(run: CheckRun, call: str, M, k, d) -> None:
    """Say which part of a wrong shift matrix is wrong: placement, block form or angles."""
    M = as_array(M)
    if M.shape != (d, d):
        return
    inside = np.kron(np.eye(d // 2), np.ones((2, 2))) > 0
    run.expect_true(
        np.allclose(M[~inside], 0.0, atol=1e-9),
        f"{call} has nonzero entries outside the 2 x 2 blocks on (2i, 2i+1): {describe(M)}",
        hint=HINT_BLOCK_PLACE,
    )
    a, b = M[0::2, 0::2].diagonal(), M[0::2, 1::2].diagonal()
    c, e = M[1::2, 0::2].diagonal(), M[1::2, 1::2].diagonal()
    run.expect_true(
        np.allclose(a, e, atol=1e-9)
        and np.allclose(b, -c, atol=1e-9)
        and np.allclose(a**2 + b**2, 1.0, atol=1e-9),
        f"{call}: a block is not of the form [[cos, sin], [-sin, cos]]: {describe(M)}",
        hint=HINT_BLOCK,
    )
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    angle_error = np.angle(np.exp(1j * (np.arctan2(b, a) - k * w)))
    run.expect_true(
        np.allclose(angle_error, 0.0, atol=1e-7),
        f"{call}: the blocks turn by the angles {np.arctan2(b, a)}; expected k * w_i "
        f"= {np.angle(np.exp(1j * k * w))} (modulo 2 pi)",
        hint=HINT_PAIR_EXPONENT,
    )


HINT_SHIFT_SHAPE = "a (d, d) matrix acting on a position vector"
HINT_SHIFT_HARD_CODED = "a (d, d) matrix with d the argument, not the worked example's 4"
HINT_SHIFT_ZERO = "shifting by 0 leaves every position vector alone: the identity"
HINT_SHIFT_INVERSE = "shifting forward then back by the same k must give the identity"
HINT_SHIFT_ROTATION = "each block is a rotation: [[cos, sin], [-sin, cos]]"
HINT_SHIFT_TAKES = "the matrix must take p_l to p_(l+{k}) for every l"  # k: the shift


def check_shift_matrix(shift_matrix, reference=None, trials: int = 12) -> None:
    run = CheckRun(shift_matrix)
    call = "shift_matrix(1, 4)"
    M = run.call(call, 1, 4)
    run.expect_shape(call, M, (4, 4), hint=HINT_SHIFT_SHAPE)
    run.expect_finite(call, M)
    if run.match_mistake(as_array(M), _shift_mistakes(1, 4)) is None:
        if not np.allclose(as_array(M), STORED_SHIFT_1_4, atol=STORED_ATOL):
            _diagnose_shift(run, call, M, 1, 4)
    run.expect_close(call, M, STORED_SHIFT_1_4, mistakes=_shift_mistakes(1, 4), atol=STORED_ATOL)

    for k, d, table in ((2, 4, STORED_P_6_4), (3, 8, STORED_P_4_8), (-2, 4, STORED_P_6_4)):
        call = f"shift_matrix({k}, {d}) applied to the stored p_l"
        M = as_array(run.call(call, k, d))
        run.expect_shape(call, M, (d, d), hint=HINT_SHIFT_HARD_CODED)
        run.expect_finite(call, M)
        rows = range(max(0, -k), len(table) - max(0, k))
        seen = np.stack([M @ table[l] for l in rows])  # (n, d)
        expected = np.stack([table[l + k] for l in rows])
        mapped = [
            Mistake(m.name, np.stack([as_array(m.output) @ table[l] for l in rows]), m.hint)
            for m in _shift_mistakes(k, d)
        ]
        run.expect_close(
            f"{call}: shift_matrix({k}, {d}) @ p_l for l in {list(rows)}",
            seen,
            expected,
            mistakes=mapped,
            atol=1e-9,
            hint=HINT_SHIFT_TAKES.format(k=k),
        )

    call = "shift_matrix(0, 6) (no shift)"
    run.expect_close(call, run.call(call, 0, 6), np.eye(6), hint=HINT_SHIFT_ZERO)
    call = "shift_matrix(5, 6) @ shift_matrix(-5, 6)"
    product = as_array(run.call(call, 5, 6)) @ as_array(run.call(call, -5, 6))
    run.expect_close(call, product, np.eye(6), hint=HINT_SHIFT_INVERSE)
    call = "shift_matrix(7, 10)"
    M = as_array(run.call(call, 7, 10))
    run.expect_close(
        f"{call}: M^T M (a rotation keeps lengths)",
        M.T @ M,
        np.eye(10),
        mistakes=[],
        hint=HINT_SHIFT_ROTATION,
    )

    for d in (3, 0):
        run.expect_raises(f"shift_matrix(1, {d})", ValueError, 1, d, mentions=(str(d),))
    if reference is not None:
        rng = np.random.default_rng(hidden_seed(700))
        for trial in range(trials):
            k, d = int(rng.integers(-50, 51)), 2 * int(rng.integers(1, 13))
            call = f"shift_matrix({k}, {d}) (random, trial {trial})"
            M = run.call(call, k, d)
            run.expect_shape(call, M, (d, d))
            run.expect_close(call, M, reference(k, d), mistakes=_shift_mistakes(k, d))
        k = 100000 + int(rng.integers(0, 1000))
        call = f"shift_matrix({k}, 8) (a large shift)"
        run.expect_close(
            call, run.call(call, k, 8), reference(k, 8), atol=1e-7, mistakes=_shift_mistakes(k, 8)
        )
    run.done()
