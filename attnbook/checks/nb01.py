"""Checks for notebook 01, attention scores: project_qkv, score_matrix, softmax_rows, attention.

Visible use: `check_softmax_rows(softmax_rows)` runs worked examples and properties.
Hidden use: `check_softmax_rows(softmax_rows, reference=ref.softmax_rows)` also compares
with the autograder's reference on random shapes and seeds.

Each check is a table of cases (`CASES[function]`, see `_cases`): the known slips on them are
generated from the mistake catalogue into `slips/nb01.py`; a check keeps only the probes a
table cannot say.
"""

from __future__ import annotations

import numpy as np

from attnbook.checks._cases import (
    Case,
    Part,
    Returns,
    Slips,
    normal,
    probe_tolerance,
    run_cases,
    run_table,
    run_trials,
    sizes,
    with_neg_inf,
)
from attnbook.checks._core import CheckRun, as_array
from attnbook.examples import (
    WORKED_K,
    WORKED_Q,
    WORKED_QK,
    WORKED_V,
    WORKED_W_K,
    WORKED_W_Q,
    WORKED_W_V,
    WORKED_X,
)
from attnbook.ops import torch_attend, torch_softmax

__all__ = ["check_attention", "check_project_qkv", "check_score_matrix", "check_softmax_rows"]

KNOWN = Slips("nb01")

HINT_STABLE = (
    "exp overflows for large scores: subtract each row's own maximum "
    "(S.max(axis=-1, keepdims=True)) before exponentiating"
)
HINT_ALL_MASKED = (
    "a row whose scores are all -inf has maximum -inf, and -inf - (-inf) is "
    "NaN: give such rows all-zero weights (for example with np.where)"
)
SHAPE_ERRORS = ("broadcast", "matmul", "not aligned", "mismatch")


def _random(seed: int, *shape) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


# ---------------------------------------------------------------------------------------
# project_qkv
# ---------------------------------------------------------------------------------------
HINT_PROJECTION = (
    "{label} = X @ W_{label}.T: W_{label} has one row per output feature, so it "
    "is transposed"
)  # label: Q, K or V
HINT_RETURN_QKV = "return Q, K, V: three separate arrays, not one stacked array"
HINT_QKV_ROWS = "Q, K and V have one row per token"
HINT_MATMUL_QKV = (
    "Q = X @ W_Q.T is a matrix product: use @ (or np.matmul), not * (elementwise), with X as it "
    "is on the left (one row per token) and the weights transposed (one row per output feature)"
)
HINT_TOKEN_QUERY = "token l's query is W_Q x_l, i.e. row l of X @ W_Q.T"

QKV = Returns(
    tuple(
        Part(label, i, hint=HINT_PROJECTION.format(label=label), shape_hint=HINT_QKV_ROWS)
        for i, label in enumerate("QKV")
    ),
    hint=HINT_RETURN_QKV,
)
_QKV_CRASH = ((SHAPE_ERRORS, HINT_MATMUL_QKV),)
# Non-square weights: d = 3, d_k = 2, d_v = 5; only Q = X W_Q^T fits these shapes.
_X, _W_Q, _W_K, _W_V = _random(1, 4, 3), _random(2, 2, 3), _random(3, 2, 3), _random(4, 5, 3)
QKV_CASES = (
    Case("worked", "project_qkv(X, W_Q, W_K, W_V) on the worked 4x3 example",
         (WORKED_X, WORKED_W_Q, WORKED_W_K, WORKED_W_V), expect=(WORKED_Q, WORKED_K, WORKED_V),
         returns=QKV, whole=True, crash_hints=_QKV_CRASH),
    Case("non-square",
         "project_qkv(X, W_Q, W_K, W_V) with X (4, 3), W_Q and W_K (2, 3), W_V (5, 3)",
         (_X, _W_Q, _W_K, _W_V), expect=(_X @ _W_Q.T, _X @ _W_K.T, _X @ _W_V.T),
         hint=HINT_TOKEN_QUERY, returns=QKV, whole=True, crash_hints=_QKV_CRASH),
    Case("W_Q too wide", "project_qkv with X (4, 3) and W_Q (2, 4)",
         (_X, _random(5, 2, 4), _W_K, _W_V), raises=ValueError,
         mentions=("W_Q", "(2, 4)", "(4, 3)")),
)  # fmt: skip


def _qkv_trial(rng, seed):
    L, d, d_k, d_v = sizes(rng, 4)
    args = tuple(normal(rng, *shape) for shape in [(L, d), (d_k, d), (d_k, d), (d_v, d)])
    call = f"project_qkv on random X ({L}, {d}), d_k={d_k}, d_v={d_v} (seed {seed})"
    return Case("trial", call, args, returns=QKV, whole=True)


def check_project_qkv(project_qkv, reference=None, trials: int = 12) -> None:
    """project_qkv on the worked example and non-square weights (table `QKV_CASES`), then
    `trials` random cases against the reference."""
    run_table(CheckRun(project_qkv), "project_qkv", QKV_CASES, KNOWN, reference, trials, _qkv_trial)


# ---------------------------------------------------------------------------------------
# score_matrix
# ---------------------------------------------------------------------------------------
HINT_NO_SCALING = "divide Q K^T by sqrt(d_k), the query/key width Q.shape[-1]"
HINT_DIVIDED_BY_D_K = "the variance of q.k grows like d_k, so its spread grows like sqrt(d_k)"
HINT_SCALED_BY_TOKENS = (
    "d_k is Q.shape[-1], the number of features: not Q.shape[0] (the "
    "number of queries), and not the number of keys K.shape[0]"
)
HINT_SCORES = "S is Q @ K.T divided by sqrt(d_k), where d_k is the query/key width Q.shape[-1]"
HINT_TRANSPOSE_K = (
    "S = Q @ K.T: transpose the keys so that (L_q, d_k) @ (d_k, L_k) gives (L_q, L_k)"
)
HINT_SCORES_SHAPE = "S has one row per query and one column per key"

_SCORES_CRASH = ((("matmul", "not aligned", "mismatch"), HINT_TRANSPOSE_K),)
_Q, _K = _random(11, 2, 4), _random(12, 5, 4)
SCORE_CASES = (
    Case("worked", "score_matrix(Q, K) on the worked example (L = 4, d_k = 3)",
         (WORKED_Q, WORKED_K), expect=WORKED_QK / np.sqrt(3.0), hint=HINT_SCORES,
         shape_hint=HINT_SCORES_SHAPE, crash_hints=_SCORES_CRASH),
    Case("2 queries, 5 keys", "score_matrix(Q, K) with 2 queries and 5 keys, d_k = 4", (_Q, _K),
         expect=_Q @ _K.T / 2.0, hint=HINT_SCORES, shape_hint=HINT_SCORES_SHAPE,
         crash_hints=_SCORES_CRASH),
    Case("widths differ", "score_matrix with Q (4, 3) and K (4, 2)", (WORKED_Q, WORKED_K[:, :2]),
         raises=ValueError, mentions=("(4, 3)", "(4, 2)")),
)  # fmt: skip


def _scores_trial(rng, seed):
    L_q, L_k, d_k = sizes(rng, 3, high=8)
    Q, K = normal(rng, L_q, d_k, decades=(-2, 2)), normal(rng, L_k, d_k)
    call = f"score_matrix on random Q ({L_q}, {d_k}), K ({L_k}, {d_k}) (seed {seed})"
    return Case("trial", call, (Q, K), hint=HINT_SCORES, crash_hints=_SCORES_CRASH)


def check_score_matrix(score_matrix, reference=None, trials: int = 12) -> None:
    """score_matrix on the worked example and a 2 x 5 one (table `SCORE_CASES`), the decks'
    entry S[1, 2], then `trials` random cases against the reference."""
    run = CheckRun(score_matrix)
    seen = run_cases(run, "score_matrix", SCORE_CASES, KNOWN)
    # Entry (2, 3) of the decks, in 1-based counting: query 2 against key 3.
    run.expect_close(
        f"{SCORE_CASES[0].call}: entry S[1, 2]",
        as_array(seen["worked"])[1, 2],
        float(WORKED_Q[1] @ WORKED_K[2]) / np.sqrt(3.0),
        tol=probe_tolerance(WORKED_Q, WORKED_K),
    )
    run_trials(run, "score_matrix", reference, trials, _scores_trial, KNOWN)
    run.done()


# ---------------------------------------------------------------------------------------
# softmax_rows
# ---------------------------------------------------------------------------------------
HINT_SOFTMAX_AXIS = "normalise along the last axis: axis=-1"
HINT_SOFTMAX_IN_PLACE = "compute S - max into a new array instead of S -= ..."
HINT_SOFTMAX_VALUES = "A = exp(S - row max) divided by the sum of its own row (axis=-1)"
HINT_GLOBAL_MAX = (
    "subtract each row's OWN maximum, not the maximum of the whole array: a row "
    "far below it underflows to 0 / 0"
)
HINT_ROW_MAXIMUM = (
    "subtract each row's MAXIMUM: then every exponent is <= 0 and exp cannot "
    "overflow (after subtracting the row minimum or mean, exp(800) is still inf)"
)
HINT_MASKED_ROW_ZEROS = "-inf scores get weight exactly 0; a row of only -inf is all zeros"
HINT_LEADING_AXES = (
    "softmax_rows must work with any leading axes: normalise along the last axis only"
)

_WORKED_S = WORKED_QK / np.sqrt(3.0)
SOFTMAX_CASES = (
    Case("worked", "softmax_rows(S) on the worked 4x4 scores", (_WORKED_S,), expect=torch_softmax,
         hint=HINT_SOFTMAX_VALUES),
    Case(
        "small",
        "softmax_rows(S) with S = [[1, 2, 3], [0, 0, 0]] (2 rows, 3 columns)",
        (np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]),),
        expect=[
            [0.09003057317038046, 0.24472847105479767, 0.6652409557748219],
            [1 / 3, 1 / 3, 1 / 3],
        ],
    ),
    Case("large", "softmax_rows(S) with large scores S = [[1000, 1001, 1002], [1002, 1001, 1000]]",
         (np.array([[1000.0, 1001.0, 1002.0], [1002.0, 1001.0, 1000.0]]),), expect=torch_softmax,
         hint=HINT_STABLE, finite=HINT_STABLE),
    Case(
        "scales",
        "softmax_rows(S) with rows on different scales S = [[0, 1], [-1000, -999], [-1001, -1002]]",
        (np.array([[0.0, 1.0], [-1000.0, -999.0], [-1001.0, -1002.0]]),),
        expect=torch_softmax,
        finite=HINT_GLOBAL_MAX,
    ),
    Case("spread",
         "softmax_rows(S) with a wide spread in each row S = [[-800, 0, 800], [2, -800, 0]]",
         (np.array([[-800.0, 0.0, 800.0], [2.0, -800.0, 0.0]]),), expect=torch_softmax,
         hint=HINT_ROW_MAXIMUM, finite=HINT_ROW_MAXIMUM),
    Case("-inf", "softmax_rows(S) with -inf scores S = [[0, -inf, 1], [-inf, -inf, -inf]]",
         (np.array([[0.0, -np.inf, 1.0], [-np.inf, -np.inf, -np.inf]]),),
         expect=[[0.2689414213699951, 0.0, 0.7310585786300049], [0.0, 0.0, 0.0]],
         hint=HINT_MASKED_ROW_ZEROS, finite=HINT_ALL_MASKED),
    Case("leading axes", "softmax_rows(S) with leading axes, S of shape (2, 3, 5)",
         (_random(21, 2, 3, 5),), expect=torch_softmax, hint=HINT_LEADING_AXES,
         shape_hint=HINT_LEADING_AXES, crash_hints=(("broadcast", HINT_LEADING_AXES),)),
)  # fmt: skip


def _softmax_trial(rng, seed):
    shape = tuple(sizes(rng, int(rng.integers(1, 4)), high=6))
    S = normal(rng, *shape, decades=(-1, 2))
    S = with_neg_inf(rng, S) if seed % 3 == 0 else S
    call = f"softmax_rows on random S of shape {shape} (seed {seed})"
    return Case("trial", call, (S,), finite=HINT_ALL_MASKED)


def check_softmax_rows(softmax_rows, reference=None, trials: int = 12) -> None:
    """softmax_rows on worked, large, spread, -inf and 3-D scores (table `SOFTMAX_CASES`),
    rows non-negative summing to 1, then `trials` random cases against the reference."""
    run = CheckRun(softmax_rows, in_place_hint=HINT_SOFTMAX_IN_PLACE)
    A = as_array(run_cases(run, "softmax_rows", SOFTMAX_CASES, KNOWN)["worked"])
    run.expect_true(
        bool(np.allclose(A.sum(axis=-1), 1.0) and np.all(A >= 0)),
        f"{SOFTMAX_CASES[0].call}: every row must be non-negative and sum to 1; row sums "
        f"{A.sum(axis=-1)}",
    )
    run_trials(run, "softmax_rows", reference, trials, _softmax_trial, KNOWN)
    run.done()


# ---------------------------------------------------------------------------------------
# attention
# ---------------------------------------------------------------------------------------
HINT_ATTENTION = (
    "the weights A are the row-wise softmax of the scores of Q against K (your "
    "score_matrix and softmax_rows), then Y = A @ V; return Y, A"
)
HINT_V_TIMES_A = (
    "Y = A @ V: (L_q, L_k) @ (L_k, d_v); the weights come first and V as it is, not V @ A or V.T"
)
HINT_RETURN_PAIR = "return Y, A"
HINT_RETURN_Y_A = "return Y, A in that order"
HINT_Y_SHAPE = "Y has one row per query, d_v columns"
HINT_A_SHAPE = "A has one row per query, one column per key"
HINT_PERMUTATION = "permuting the tokens should permute the rows of Y the same way"

ATTENTION = Returns(
    (
        Part("A", 1, what="attention weights", shape_hint=HINT_A_SHAPE),
        Part("Y", 0, shape_hint=HINT_Y_SHAPE),
    ),
    hint=HINT_RETURN_PAIR,
    order_hint=HINT_RETURN_Y_A,
)
_Q2, _K2, _V2 = _random(31, 2, 4), _random(32, 5, 4), _random(33, 5, 3)
_PERM = np.array([2, 0, 3, 1])
ATTENTION_CASES = (
    Case("worked", "attention(Q, K, V) on the worked example", (WORKED_Q, WORKED_K, WORKED_V),
         expect=torch_attend, hint=HINT_ATTENTION, returns=ATTENTION,
         crash_hints=((SHAPE_ERRORS, HINT_V_TIMES_A),)),
    # Cross-attention shapes: 2 queries, 5 keys, d_k = 4, d_v = 3.
    Case("cross", "attention(Q, K, V) with Q (2, 4), K (5, 4), V (5, 3)", (_Q2, _K2, _V2),
         expect=torch_attend, hint=HINT_ATTENTION, returns=ATTENTION),
    # Without positions, reordering the tokens only reorders the outputs.
    Case("reordered", "attention on the worked example with its tokens reordered",
         (WORKED_Q[_PERM], WORKED_K[_PERM], WORKED_V[_PERM]), expect=torch_attend,
         hint=HINT_PERMUTATION, returns=ATTENTION),
    Case("large", "attention(Q, K, V) with large scores (q.k = 2500)",
         (np.array([[50.0, 0.0], [0.0, 0.0]]), np.array([[50.0, 0.0], [-50.0, 0.0]]), np.eye(2)),
         expect=torch_attend, returns=ATTENTION, finite=HINT_STABLE),
    Case("V too short", "attention with K (4, 3) and V (3, 3)", (WORKED_Q, WORKED_K, WORKED_V[:3]),
         raises=ValueError, mentions=("(4, 3)", "(3, 3)")),
)  # fmt: skip


def _attention_trial(rng, seed):
    L_q, L_k, d_k, d_v = sizes(rng, 4)
    Q = normal(rng, L_q, d_k, decades=(-1, 1))
    K, V = normal(rng, L_k, d_k), normal(rng, L_k, d_v)
    call = f"attention on random Q ({L_q}, {d_k}), K ({L_k}, {d_k}), V ({L_k}, {d_v}) (seed {seed})"
    return Case("trial", call, (Q, K, V), returns=ATTENTION)


def check_attention(attention, reference=None, trials: int = 12) -> None:
    """attention on the worked, cross-attention, reordered and large cases (table
    `ATTENTION_CASES`), then `trials` random cases against the reference."""
    run_table(CheckRun(attention), "attention", ATTENTION_CASES, KNOWN,
              reference, trials, _attention_trial)  # fmt: skip


# Every table, by the function it checks: scripts/release.py runs the catalogued mistakes on
# these cases to generate slips/nb01.py.
CASES = {
    "project_qkv": QKV_CASES,
    "score_matrix": SCORE_CASES,
    "softmax_rows": SOFTMAX_CASES,
    "attention": ATTENTION_CASES,
}
