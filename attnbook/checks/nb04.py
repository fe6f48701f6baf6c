"""Checks for notebook 04, masks: causal_mask, padding_mask, attention_mask, masked_attention.

Masks are boolean "allowed" arrays (True = may attend). Expected masks are written out as
literal arrays or built with comparisons of index grids here, in the checks, never by a
function a student could import.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from attnbook.checks._cases import (
    Case,
    Part,
    Returns,
    Slips,
    normal,
    run_cases,
    run_reference_cases,
    run_table,
    sizes,
)
from attnbook.checks._core import (
    CheckRun,
    as_array,
    hidden_seed,
)
from attnbook.examples import WORKED_K, WORKED_Q, WORKED_V
from attnbook.ops import torch_attend, torch_softmax

__all__ = [
    "check_attention_mask",
    "check_causal_mask",
    "check_masked_attention",
    "check_padding_mask",
]

KNOWN = Slips("nb04")

HINT_BOOL = (
    "return booleans (True = may attend), not 0/1 numbers or an additive 0/-inf "
    "matrix: build it from a comparison such as j <= i, or with dtype=bool"
)
HINT_AFTER = (
    "the mask was applied after the softmax: blocked weights were zeroed but the "
    "row no longer sums to 1. Set blocked scores to -inf BEFORE the softmax"
)
HINT_L_COLUMNS = (
    "the mask has L columns (the padded length) even when every message is "
    "shorter than L: compare np.arange(L), not np.arange(max(lengths))"
)
HINT_OVERFLOW = (
    "subtract the row maximum of the allowed scores before np.exp: exp(1131) "
    "overflows to inf, and inf / inf is NaN"
)
HINT_Y = "the weights are right but Y is not: Y = A @ V with the masked weights A you return"
HINT_NAN = (
    "a row with no allowed key is all -inf; its maximum is -inf and -inf - (-inf) is NaN. Give "
    "such rows all-zero weights (np.where on the row maximum and the sum). Also 0 * -inf is NaN: "
    "build an additive mask with np.where(allowed, 0.0, -np.inf), never (~allowed) * -np.inf"
)
HINT_SIZES = (
    "take every size from the arguments (L, len(lengths), X.shape), never the worked "
    "example's sizes"
)
HINT_LEADING = (
    "with leading axes, allowed may broadcast over them (e.g. (B, 1, L, L) against (B, h, L, L)): "
    "use np.where(allowed, S, -np.inf), which broadcasts, not S[~allowed] = ...; and Q @ "
    "np.swapaxes(K, -1, -2), not np.dot or K.T, which mix up the leading axes"
)


# Words of the errors that wrong axes, broadcasts and boolean indexing raise.
SHAPE_ERRORS = ("broadcast", "shape mismatch", "boolean index", "could not be", "dimension")


def _grid(L: int) -> tuple[np.ndarray, np.ndarray]:
    """Row index i and column index j of an (L, L) grid."""
    return np.arange(L)[:, None], np.arange(L)[None, :]


def _lower(L: int) -> np.ndarray:
    i, j = _grid(L)
    return j <= i


HINT_ADDITIVE_MASK = (
    "this is the additive mask M (0 allowed, -inf blocked) that section 1 adds to the scores; the "
    "workbook's functions return the boolean allowed array instead. " + HINT_BOOL
)


def _bool_probe(run: CheckRun, case: Case, seen, expected, slips) -> None:
    """A mask is a boolean array (an additive -inf mask is named as such)."""
    arr = as_array(seen)
    if arr.dtype != bool:
        hint = HINT_BOOL
        if arr.dtype.kind == "f" and np.isneginf(arr).any():
            hint = HINT_ADDITIVE_MASK
        run.fail(f"{case.call} returned an array of dtype {arr.dtype}; expected dtype bool.",
                 hint=hint)  # fmt: skip
    run.passed += 1


# ---------------------------------------------------------------------------------------
# causal_mask
# ---------------------------------------------------------------------------------------


HINT_CAUSAL_SHAPE = "one row per query, one column per key: (L, L)"
HINT_CAUSAL_HARD_CODED = "build the (L, L) mask from L, not the worked example's size 4"
HINT_SINGLE_TOKEN = "a single token may read itself"


CAUSAL_CASES = (
    Case("4", "causal_mask(4)", (4,), expect=_lower(4), shape_hint=HINT_CAUSAL_SHAPE,
         probe=_bool_probe, finite=False, what="mask entries"),
    Case("1", "causal_mask(1) (a single token)", (1,), expect=np.array([[True]]),
         shape_hint=HINT_CAUSAL_HARD_CODED, hint=HINT_SINGLE_TOKEN),
    Case("0", "causal_mask(0)", (0,), raises=ValueError, mentions=("L",)),
)  # fmt: skip


def check_causal_mask(causal_mask, reference=None, trials: int = 8) -> None:
    """causal_mask(4) and (1) (table `CAUSAL_CASES`), the decks' entries M[2, 2] and
    M[1, 3], then `trials` random sizes against the reference."""
    run = CheckRun(causal_mask)
    M = as_array(run_cases(run, "causal_mask", CAUSAL_CASES, KNOWN)["4"])
    run.expect_true(
        bool(M[2, 2] and not M[1, 3]),
        f"{CAUSAL_CASES[0].call}: query 2 must see itself (M[2, 2] True) and query 1 must not "
        f"see key 3 (M[1, 3] False); seen M[2, 2]={M[2, 2]}, M[1, 3]={M[1, 3]}",
    )
    if reference is not None:
        rng = np.random.default_rng(hidden_seed(150))
        Ls = sorted({int(v) for v in rng.integers(2, 400, size=trials)})
        cases = [replace(CAUSAL_CASES[0], id="trial", call=f"causal_mask({L})", args=(L,),
                         expect=None, shape_hint=None) for L in Ls]  # fmt: skip
        run_reference_cases(run, "causal_mask", reference, cases, KNOWN)
    run.done()


# ---------------------------------------------------------------------------------------
# padding_mask
# ---------------------------------------------------------------------------------------


HINT_PADDING_BROADCAST = (
    "compare the positions np.arange(L) as a row (1, L) with the lengths "
    "as a column, lengths[:, None] (B, 1): broadcasting gives (B, L)"
)
HINT_PADDING_SHAPE = "one row per message, one column per position: (B, L)"
HINT_PADDING_SIZES = (
    "(B, L) with B = len(lengths) and L the argument L: not the worked "
    "example's 4. " + HINT_PADDING_BROADCAST
)
HINT_BATCH_AXIS = (
    "keep the batch axis: B = len(lengths) rows even for a single message (padding_mask([3], 5) "
    "is (1, 5), attention_mask([2], 3, True) is (1, 3, 3)); np.squeeze drops size-1 axes"
)


def _padding_shape_hint(got: tuple, want: tuple) -> str:
    if len(got) < len(want):
        return HINT_BATCH_AXIS
    return HINT_L_COLUMNS if got[:1] == want[:1] else HINT_PADDING_SIZES


_PADDING_CRASH = ((SHAPE_ERRORS, HINT_PADDING_BROADCAST),)
PADDING_CASES = (
    Case("[4, 2], 4",
         "padding_mask([4, 2], 4) (Message A: 4 tokens, Message B: 2 tokens + 2 <PAD>)",
         (np.array([4, 2]), 4),
         expect=np.array([[True, True, True, True], [True, True, False, False]]),
         shape_hint=HINT_PADDING_SHAPE, crash_hints=_PADDING_CRASH, probe=_bool_probe,
         finite=False, what="mask entries"),
    Case("[1, 3, 0], 3", "padding_mask([1, 3, 0], 3) (a list; one empty message)", ([1, 3, 0], 3),
         expect=np.array([[True, False, False], [True, True, True], [False, False, False]]),
         shape_hint=HINT_PADDING_SIZES, crash_hints=_PADDING_CRASH, probe=_bool_probe,
         finite=False, what="mask entries"),
    Case("[2, 1], 5", "padding_mask([2, 1], 5) (every message shorter than L)",
         (np.array([2, 1]), 5),
         expect=np.array([[True, True, False, False, False], [True, False, False, False, False]]),
         shape_hint=HINT_L_COLUMNS, probe=_bool_probe, finite=False, what="mask entries"),
    Case("[3], 5", "padding_mask([3], 5) (a single message)", (np.array([3]), 5),
         expect=np.array([[True, True, True, False, False]]), shape_hint=_padding_shape_hint,
         probe=_bool_probe, finite=False, what="mask entries"),
    Case("too long", "padding_mask([5, 2], 4) (a length longer than L)", (np.array([5, 2]), 4),
         raises=ValueError, mentions=("lengths", "4")),
    Case("2-D lengths", "padding_mask([[4, 2]], 4) (lengths must be 1-D)", (np.array([[4, 2]]), 4),
         raises=ValueError, mentions=("lengths", "(1, 2)")),
)  # fmt: skip


def _padding_trial(rng, seed):
    B, L = sizes(rng, 1)[0], sizes(rng, 1, high=25)[0]
    lengths = rng.integers(0, L + 1, size=B)
    call = f"padding_mask({lengths.tolist()}, {L}) (seed {seed})"
    return replace(PADDING_CASES[3], id="trial", call=call, args=(lengths, L), shape=(B, L))


def check_padding_mask(padding_mask, reference=None, trials: int = 10) -> None:
    """Three padding masks, one with an empty message (table `PADDING_CASES`), then `trials`
    random lengths against the reference."""
    run_table(CheckRun(padding_mask), "padding_mask", PADDING_CASES, KNOWN, reference, trials,
              _padding_trial)  # fmt: skip


# ---------------------------------------------------------------------------------------
# attention_mask
# ---------------------------------------------------------------------------------------


HINT_MASK_SHAPE = (
    "one (L, L) matrix per message: shape (B, L, L), with B = len(lengths), "
    "never a fixed number, and L the argument L"
)
HINT_PIECE_AXES = (
    "give each piece its axes: padding_mask(lengths, L)[:, None, :] is (B, 1, L) "
    "(one row of keys per message) and causal_mask(L)[None] is (1, L, L); " + HINT_SIZES
)


HINT_MASK_VALUES = (
    "allowed[b, i, j] is True when key j is one of message b's real tokens, j < lengths[b] (the "
    "batch is right-padded: the real tokens come first), and, if causal, j <= i"
)


def _mask_case(lengths, L: int, causal: bool, expected=None, label: str = "") -> Case:
    shown = list(np.asarray(lengths).tolist())
    return Case(f"{shown}, {L}, {causal}", f"attention_mask({shown}, {L}, causal={causal}){label}",
                (lengths, L, causal), expect=None if expected is None else np.array(expected),
                shape=(len(lengths), L, L), hint=HINT_MASK_VALUES,
                shape_hint=lambda got, want: HINT_BATCH_AXIS if len(got) < 3 else HINT_MASK_SHAPE,
                crash_hints=((SHAPE_ERRORS, HINT_PIECE_AXES),), probe=_bool_probe, finite=False,
                what="mask entries")  # fmt: skip


T, F = True, False
MASK_CASES = (
    _mask_case(np.array([4, 2]), 4, False, [[[T] * 4] * 4, [[T, T, F, F]] * 4],
               " (Message A and Message B, bidirectional encoder)"),
    _mask_case(
        np.array([4, 2]),
        4,
        True,
        [
            [[T, F, F, F], [T, T, F, F], [T, T, T, F], [T, T, T, T]],
            [[T, F, F, F], [T, T, F, F], [T, T, F, F], [T, T, F, F]],
        ],
        " (Message A and Message B, causal decoder)",
    ),
    _mask_case([0, 1], 2, True, [[[F, F], [F, F]], [[T, F], [T, F]]],
               " (an empty message and a one-token message)"),
    _mask_case(np.array([3, 0, 1]), 3, True,
               [[[T, F, F], [T, T, F], [T, T, T]], [[F, F, F]] * 3, [[T, F, F]] * 3],
               " (three messages)"),
    _mask_case(np.array([2]), 3, True, [[[T, F, F], [T, T, F], [T, T, F]]], " (a single message)"),
    Case("too long", "attention_mask([5], 4, True) (a length longer than L)",
         (np.array([5]), 4, True), raises=ValueError, mentions=("lengths",)),
    Case("L = 0", "attention_mask([0], 0, True) (no positions)", (np.array([0]), 0, True),
         raises=ValueError, mentions=("L",)),
)  # fmt: skip


def _mask_trial(rng, seed):
    B, L = sizes(rng, 1)[0], sizes(rng, 1, high=25)[0]
    lengths = rng.integers(0, L + 1, size=B)
    return replace(_mask_case(lengths, L, bool(seed % 2), label=f" (seed {seed})"), id="trial")


def check_attention_mask(attention_mask, reference=None, trials: int = 10) -> None:
    """Encoder and decoder masks of the decks' two messages, an empty message, three
    messages (table `MASK_CASES`), then `trials` random ones against the reference."""
    run_table(CheckRun(attention_mask), "attention_mask", MASK_CASES, KNOWN, reference, trials,
              _mask_trial)  # fmt: skip


# ---------------------------------------------------------------------------------------
# masked_attention
# ---------------------------------------------------------------------------------------
HINT_MASK_INVERTED = (
    "True means 'may attend': keep the scores where allowed is True and set "
    "the others to -inf (np.where(allowed, S, -np.inf))"
)
HINT_NO_SCALING = "scale the scores by 1/sqrt(d_k) before masking and the softmax"
HINT_DIVIDED_BY_D_K = "divide the scores by sqrt(d_k), not by d_k"
HINT_SOFTMAX_AXIS = "each query's weights (a row, the last axis) must sum to 1"
HINT_GLOBAL_MAX = (
    "subtract each ROW's maximum (axis=-1, keepdims=True), not the maximum of "
    "the whole array: a row far below the global maximum underflows to all zeros"
)


def _inverted(A, Q, K, allowed) -> bool:
    """Whether weights A with non-finite entries are those of an inverted mask
    (np.where(allowed, -np.inf, S)) under a plain softmax: NaN exactly in the rows where
    every key is allowed (all blocked by the inverted mask), its weights elsewhere."""
    A = as_array(A)
    S = as_array(Q) @ np.swapaxes(as_array(K), -1, -2) / np.sqrt(np.shape(Q)[-1])
    if A.dtype.kind not in "fc" or A.shape != S.shape or np.all(np.isfinite(A)):
        return False
    allowed = np.broadcast_to(np.asarray(allowed, dtype=bool), S.shape)
    open_rows = np.broadcast_to(allowed.all(axis=-1, keepdims=True), S.shape)
    if open_rows.all() or not np.array_equal(~np.isfinite(A), open_rows):
        return False
    with np.errstate(all="ignore"):
        flipped = torch_softmax(np.where(allowed, -np.inf, S))
    rest = ~open_rows
    scale = max(1.0, float(np.abs(flipped[rest]).max()))
    tol = 1e3 * np.finfo(np.float32).eps * scale  # float32 work passes; a different answer not
    return bool(np.all(np.abs(A[rest] - flipped[rest]) <= tol))


HINT_RETURN_Y_A = "return Y, A in that order: the outputs first, then the weights"
HINT_Y_SHAPE = "Y is (..., L_q, d_v)"
HINT_A_SHAPE = "A is (..., L_q, L_k)"
HINT_RETURN_PAIR = "return Y, A"
HINT_MASK_BEFORE_SOFTMAX = "set blocked scores to -inf before the softmax: exp(-inf) = 0 exactly"


HINT_ATTENTION_IN_PLACE = (
    "never write into Q, K, V or allowed (Q /= ... or S[...] = ... on a view changes the caller's "
    "array): compute new arrays instead (S = ... / np.sqrt(d_k) builds one)"
)
HINT_EMPTY_ROW = "a query with no allowed key returns a row of zeros"


def _nan_hint(hint: str) -> Callable:
    """The hint for NaN in the outputs: an inverted mask's (its NaN rows are those the mask
    leaves open), else `hint`."""

    def choose(case: Case, seen) -> str:
        Q, K, _, allowed = case.args
        A = seen[1] if isinstance(seen, tuple | list) and len(seen) == 2 else None
        return HINT_MASK_INVERTED if A is not None and _inverted(A, Q, K, allowed) else hint

    return choose


def _blocked_probe(run: CheckRun, case: Case, seen) -> None:
    """Blocked keys get weight exactly 0 (the mask comes before the softmax)."""
    A = as_array(seen[1])
    blocked = ~np.broadcast_to(np.asarray(case.args[3], dtype=bool), A.shape)
    run.expect_true(
        np.all(A[blocked] == 0.0),
        f"{case.call}: blocked keys must get weight exactly 0; largest blocked weight "
        f"{np.abs(A[blocked]).max() if blocked.any() else 0.0}",
        hint=HINT_MASK_BEFORE_SOFTMAX,
    )


MASKED = Returns(
    (
        Part("A", 1, what="attention weights", shape_hint=HINT_A_SHAPE),
        Part("Y", 0, hint=HINT_Y, shape_hint=HINT_Y_SHAPE),
    ),
    hint=HINT_RETURN_PAIR,
    order_hint=HINT_RETURN_Y_A,
)


HINT_MAX_OF_ALLOWED = (
    "take each row's maximum over its ALLOWED scores (set the blocked ones to -inf first): a "
    "blocked key that scores far higher makes exp(allowed score - that maximum) underflow to 0, "
    "and a row that has an allowed key comes out empty"
)


def _masked_case(id: str, call: str, args: tuple, **more) -> Case:
    more = {"finite": _nan_hint(HINT_NAN), **more}
    return Case(id, call, args, expect=torch_attend, returns=MASKED, then=_blocked_probe, **more)


_rng = np.random.default_rng(41)
_Q4, _K4, _V4 = (_rng.standard_normal((2, 3, 5, 4)) for _ in range(3))
_ALLOWED4 = np.broadcast_to(_lower(5), (2, 1, 5, 5)).copy()
_ALLOWED4[1, :, :, 3:] = False  # message 1 has 3 real tokens
_Q5, _K5_CHANGED, _V5_CHANGED = (_rng.standard_normal((5, 3)) for _ in range(3))
_K5_CHANGED[4], _V5_CHANGED[4] = 100.0, -100.0
_EMPTY_ROW = np.array(
    [[True, True, False, True], [False, False, False, False], [True, False, True, True]]
)
HINT_KV_SHARED = (
    "K and V may have size-1 leading axes where Q has more (one key/value head shared by every "
    "query head): Q @ np.swapaxes(K, -1, -2) and A @ V broadcast them; flattening or looping "
    "over each array's leading axes on its own does not"
)
_Q_HEADS, _K_SHARED, _V_SHARED = (_rng.standard_normal(shape) for shape in [(2, 3, 4, 4),
                                   (2, 1, 5, 4), (2, 1, 5, 3)])  # fmt: skip
MASKED_CASES = (
    _masked_case("worked",
                 "masked_attention(Q, K, V, allowed) on the worked example with a causal mask",
                 (WORKED_Q, WORKED_K, WORKED_V, _lower(4))),
    # Row 1 has no allowed key at all: its weights and output must be zeros, not NaN.
    _masked_case("empty row",
                 "masked_attention(Q, K, V, allowed) with 3 queries whose row 1 allows no key "
                 "(allowed[1] all False)", (WORKED_Q[:3], WORKED_K, WORKED_V, _EMPTY_ROW),
                 hint=HINT_EMPTY_ROW),
    # No peeking: token 4's key and value changed, with a causal mask.
    _masked_case("token 4 changed",
                 "masked_attention with a causal mask and token 4's key and value set to 100 and "
                 "-100 (no earlier query may read them)",
                 (_Q5, _K5_CHANGED, _V5_CHANGED, _lower(5)), hint=HINT_AFTER),
    # Leading batch axes: (B, h, L, d) with a (B, 1, L, L) mask broadcast over the heads.
    _masked_case("leading axes",
                 "masked_attention with leading axes: Q, K, V (2, 3, 5, 4), allowed (2, 1, 5, 5) "
                 "broadcast over the 3 heads", (_Q4, _K4, _V4, _ALLOWED4),
                 crash_hints=((SHAPE_ERRORS, HINT_LEADING),)),
    # K and V shared by the query heads: their size-1 head axis broadcasts against Q's.
    _masked_case("shared keys",
                 "masked_attention with Q (2, 3, 4, 4) and K, V (2, 1, 5, 4), (2, 1, 5, 3): one "
                 "key/value head for the 3 query heads, allowed (4, 5)",
                 (_Q_HEADS, _K_SHARED, _V_SHARED, _lower(5)[1:]), hint=HINT_KV_SHARED,
                 crash_hints=((SHAPE_ERRORS + ("out of bounds",), HINT_KV_SHARED),)),
    # Large scores must not overflow.
    _masked_case(
        "large",
        "masked_attention with large scores (q.k = 1600) and a causal mask",
        (
            np.array([[40.0, 0.0], [0.0, 40.0]]),
            np.array([[40.0, 0.0], [0.0, -40.0]]),
            np.eye(2),
            _lower(2),
        ),
        finite=_nan_hint(HINT_OVERFLOW),
    ),
    # A blocked key far ahead of the allowed one: query 0 still reads key 0 with weight 1.
    _masked_case(
        "blocked key far ahead",
        "masked_attention with a causal mask where query 0's blocked key scores 1131 above its "
        "allowed one (Q = [[0, 40], [0, 40]], K = 40 I)",
        (np.array([[0.0, 40.0], [0.0, 40.0]]), 40.0 * np.eye(2), np.eye(2), _lower(2)),
        hint=HINT_MAX_OF_ALLOWED,
    ),
    Case("V too short", "masked_attention with K (4, 3) and V (3, 3)",
         (WORKED_Q, WORKED_K, WORKED_V[:3], _lower(4)), raises=ValueError,
         mentions=("(4, 3)", "(3, 3)")),
    Case("allowed too narrow", "masked_attention with allowed (4, 3) for 4 keys",
         (WORKED_Q, WORKED_K, WORKED_V, _lower(4)[:, :3]), raises=ValueError,
         mentions=("allowed", "(4, 3)")),
)  # fmt: skip


def _masked_trial(rng, seed):
    lead = tuple(sizes(rng, int(rng.integers(0, 3)), high=4))
    L_q, L_k, d_k, d_v = sizes(rng, 4)
    Q = normal(rng, *lead, L_q, d_k, decades=(-1, 1))
    K, V = normal(rng, *lead, L_k, d_k), normal(rng, *lead, L_k, d_v)
    allowed = rng.random((*lead, L_q, L_k)) < 0.6
    if seed % 3 == 0:
        allowed[..., 0, :] = False  # the first query of every batch sees nothing
    call = (
        f"masked_attention on random Q {Q.shape}, K {K.shape}, V {V.shape}, "
        f"random allowed (seed {seed})"
    )
    return _masked_case("trial", call, (Q, K, V, allowed))


def check_masked_attention(masked_attention, reference=None, trials: int = 12) -> None:
    """The worked example with a causal mask, a query with no allowed key, a later token
    changed, leading axes and large scores (table `MASKED_CASES`: blocked keys get weight
    exactly 0), then `trials` random cases against the reference."""
    run_table(CheckRun(masked_attention, in_place_hint=HINT_ATTENTION_IN_PLACE), "masked_attention",
              MASKED_CASES, KNOWN, reference, trials, _masked_trial)  # fmt: skip


# The tables, by the function each checks: scripts/release.py runs the catalogued mistakes on
# these cases to generate slips/nb04.py.
CASES = {
    "causal_mask": CAUSAL_CASES,
    "padding_mask": PADDING_CASES,
    "attention_mask": MASK_CASES,
    "masked_attention": MASKED_CASES,
}
