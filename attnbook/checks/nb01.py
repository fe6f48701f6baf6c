"""Checks for notebook 01, attention scores: project_qkv, score_matrix, softmax_rows, attention.

Visible use: `check_softmax_rows(softmax_rows)` runs worked examples and properties.
Hidden use: `check_softmax_rows(softmax_rows, reference=ref.softmax_rows)` also compares
with the autograder's reference on random shapes and seeds.
"""

from __future__ import annotations

import numpy as np

from attnbook.checks._core import (
    CheckRun,
    Mistake,
    PrecisionAwareRun,
    as_array,
    hidden_range,
)
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

HINT_STABLE = (
    "exp overflows for large scores: subtract each row's own maximum "
    "(S.max(axis=-1, keepdims=True)) before exponentiating"
)
HINT_ALL_MASKED = (
    "a row whose scores are all -inf has maximum -inf, and -inf - (-inf) is "
    "NaN: give such rows all-zero weights (for example with np.where)"
)


def _random(seed: int, *shape) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


# ---------------------------------------------------------------------------------------
# project_qkv
# ---------------------------------------------------------------------------------------
HINT_WEIGHTS_NOT_TRANSPOSED = (
    "W_Q has shape (d_k, d): each ROW is one query direction, so Q = X @ W_Q.T"
)
HINT_QKV_ORDER = "return (Q, K, V) in that order"
HINT_ONE_WEIGHT_FOR_ALL = "use W_K for K and W_V for V"
HINT_W_Q_FOR_K = "use W_K for K: K = X @ W_K.T"
HINT_W_K_FOR_V = "use W_V for V: V = X @ W_V.T"
HINT_QUERIES_SCALED = (
    "the 1/sqrt(d_k) belongs to score_matrix: project_qkv returns the plain "
    "projections Q = X @ W_Q.T"
)


def _projection_mistakes(X, W_Q, W_K, W_V) -> list[Mistake]:
    out = []
    if W_Q.shape[0] == W_Q.shape[1] and W_V.shape[0] == W_V.shape[1]:
        out.append(
            Mistake(
                "weights not transposed (X @ W_Q instead of X @ W_Q.T)",
                (X @ W_Q, X @ W_K, X @ W_V),
                HINT_WEIGHTS_NOT_TRANSPOSED,
            )
        )
    out.append(
        Mistake(
            "results returned in the wrong order", (X @ W_K.T, X @ W_Q.T, X @ W_V.T), HINT_QKV_ORDER
        )
    )
    out.append(
        Mistake(
            "the same weight matrix used for Q, K and V",
            (X @ W_Q.T, X @ W_Q.T, X @ W_Q.T),
            HINT_ONE_WEIGHT_FOR_ALL,
        )
    )
    out.append(
        Mistake(
            "W_Q used for K as well (copy-paste)", (X @ W_Q.T, X @ W_Q.T, X @ W_V.T), HINT_W_Q_FOR_K
        )
    )
    if W_K.shape == W_V.shape:
        out.append(
            Mistake(
                "W_K used for V as well (copy-paste)",
                (X @ W_Q.T, X @ W_K.T, X @ W_K.T),
                HINT_W_K_FOR_V,
            )
        )
    out.append(
        Mistake(
            "queries already divided by sqrt(d_k)",
            (X @ W_Q.T / np.sqrt(W_Q.shape[0]), X @ W_K.T, X @ W_V.T),
            HINT_QUERIES_SCALED,
        )
    )
    return out


HINT_PROJECTION = (
    "{label} = X @ W_{label}.T: W_{label} has one row per output feature, so it "
    "is transposed"
)  # label: Q, K or V
HINT_RETURN_QKV = "return Q, K, V: three separate arrays, not one stacked array"
HINT_QKV_ROWS = "Q, K and V have one row per token"


def _expect_triple(run: CheckRun, call_text: str, result, shapes, expected=None, mistakes=()):
    run.expect_true(
        isinstance(result, tuple | list) and len(result) == 3,
        f"{call_text} should return a tuple (Q, K, V); got {type(result).__name__}"
        + (f" of length {len(result)}" if isinstance(result, tuple | list) else ""),
        hint=HINT_RETURN_QKV,
    )
    if expected is not None:
        # Compare the triple first as a whole so a known mistake is named before any detail.
        seen = tuple(as_array(r) for r in result)
        if not all(s.shape == e.shape and np.allclose(s, e) for s, e in zip(seen, expected)):
            mistake = next(
                (
                    m
                    for m in mistakes
                    if all(
                        s.shape == np.shape(o) and np.allclose(s, o) for s, o in zip(seen, m.output)
                    )
                ),
                None,
            )
            if mistake is not None:
                run.fail(
                    f"{call_text} returned wrong values.\nThis looks like a known "
                    f"mistake: {mistake.name}.",
                    hint=mistake.hint,
                )
    for label, value, shape in zip("QKV", result, shapes):
        run.expect_shape(f"{call_text}: {label}", value, shape, hint=HINT_QKV_ROWS)
        run.expect_finite(f"{call_text}: {label}", value)
    if expected is not None:
        for label, value, exp in zip("QKV", result, expected):
            run.expect_close(
                f"{call_text}: {label}", value, exp, hint=HINT_PROJECTION.format(label=label)
            )


# Words of the errors a wrong matrix product raises (numpy and torch).
SHAPE_ERRORS = ("broadcast", "matmul", "not aligned", "mismatch")


HINT_MATMUL_QKV = (
    "Q = X @ W_Q.T is a matrix product: use @ (or np.matmul), not * "
    "(elementwise), and transpose the weights, which have one row per output "
    "feature"
)


HINT_TOKEN_QUERY = "token l's query is W_Q x_l, i.e. row l of X @ W_Q.T"


def check_project_qkv(project_qkv, reference=None, trials: int = 12) -> None:
    run = PrecisionAwareRun(project_qkv)
    call = "project_qkv(X, W_Q, W_K, W_V) on the worked 4x3 example"
    result = run.call(
        call,
        WORKED_X,
        WORKED_W_Q,
        WORKED_W_K,
        WORKED_W_V,
        crash_hints=[(SHAPE_ERRORS, HINT_MATMUL_QKV)],
    )
    _expect_triple(
        run,
        call,
        result,
        [(4, 3)] * 3,
        (WORKED_Q, WORKED_K, WORKED_V),
        _projection_mistakes(WORKED_X, WORKED_W_Q, WORKED_W_K, WORKED_W_V),
    )

    # Non-square weights: d = 3, d_k = 2, d_v = 5; only Q = X W_Q^T fits these shapes.
    X, W_Q, W_K, W_V = _random(1, 4, 3), _random(2, 2, 3), _random(3, 2, 3), _random(4, 5, 3)
    call = "project_qkv(X, W_Q, W_K, W_V) with X (4, 3), W_Q and W_K (2, 3), W_V (5, 3)"
    result = run.call(call, X, W_Q, W_K, W_V, crash_hints=[(SHAPE_ERRORS, HINT_MATMUL_QKV)])
    _expect_triple(run, call, result, [(4, 2), (4, 2), (4, 5)])
    Q = as_array(result[0])
    run.expect_close(f"{call}: Q[1] (token 1's query)", Q[1], W_Q @ X[1], hint=HINT_TOKEN_QUERY)

    run.expect_raises(
        "project_qkv with X (4, 3) and W_Q (2, 4)",
        ValueError,
        X,
        _random(5, 2, 4),
        W_K,
        W_V,
        mentions=("W_Q", "(2, 4)", "(4, 3)"),
    )
    if reference is not None:
        for seed in hidden_range(trials):
            rng = np.random.default_rng(100 + seed)
            L, d, d_k, d_v = (int(v) for v in rng.integers(1, 7, size=4))
            args = (
                rng.standard_normal((L, d)),
                rng.standard_normal((d_k, d)),
                rng.standard_normal((d_k, d)),
                rng.standard_normal((d_v, d)),
            )
            call = f"project_qkv on random X ({L}, {d}), d_k={d_k}, d_v={d_v} (seed {seed})"
            result = run.call(call, *args)
            expected = reference(*args)
            _expect_triple(
                run,
                call,
                result,
                [(L, d_k), (L, d_k), (L, d_v)],
                expected,
                _projection_mistakes(*args),
            )
    run.done()


# ---------------------------------------------------------------------------------------
# score_matrix
# ---------------------------------------------------------------------------------------
HINT_NO_SCALING = "divide Q K^T by sqrt(d_k), the query/key width Q.shape[-1]"
HINT_DIVIDED_BY_D_K = "the variance of q.k grows like d_k, so its spread grows like sqrt(d_k)"
HINT_SCALED_BY_TOKENS = (
    "d_k is Q.shape[-1], the number of features: not Q.shape[0] (the "
    "number of queries), and not the number of keys K.shape[0]"
)
HINT_SCALED_BY_KEYS = (
    "d_k is Q.shape[-1], the number of features, not the number of keys K.shape[0]"
)
HINT_SCORES_TRANSPOSED = "row l of S belongs to query l: S = Q @ K.T / sqrt(d_k)"
HINT_MULTIPLIED_BY_SQRT = "scaling by 1/sqrt(d_k) shrinks the scores"
HINT_OPERATOR_PRECEDENCE = (
    "** binds tighter than /, so d_k ** 1/2 means (d_k ** 1) / 2: write d_k ** 0.5 or np.sqrt(d_k)"
)
HINT_FLOOR_DIVISION = "divide with /, not // (floor division rounds every score down)"
HINT_COSINE_SIMILARITY = (
    "the score is the plain dot product q.k divided by sqrt(d_k); do not divide by the vector norms"
)
HINT_SOFTMAX_ALREADY_APPLIED = (
    "score_matrix returns the raw scaled scores S = Q K^T / "
    "sqrt(d_k); the softmax is the next exercise"
)


def _score_mistakes(Q, K) -> list[Mistake]:
    QK = Q @ K.T  # (L_q, L_k)
    L, d_k = Q.shape
    out = [
        Mistake("no 1/sqrt(d_k) scaling", QK, HINT_NO_SCALING),
        Mistake("divided by d_k instead of sqrt(d_k)", QK / d_k, HINT_DIVIDED_BY_D_K),
        Mistake(
            "scaled by the wrong dimension (sqrt of the number of tokens)",
            QK / np.sqrt(L),
            HINT_SCALED_BY_TOKENS,
        ),
        Mistake(
            "scaled by the wrong dimension (sqrt of the number of keys)",
            QK / np.sqrt(K.shape[0]),
            HINT_SCALED_BY_KEYS,
        ),
        Mistake(
            "scores transposed (K Q^T: rows are keys)", QK.T / np.sqrt(d_k), HINT_SCORES_TRANSPOSED
        ),
        Mistake(
            "multiplied by sqrt(d_k) instead of dividing",
            QK * np.sqrt(d_k),
            HINT_MULTIPLIED_BY_SQRT,
        ),
        Mistake(
            "operator precedence: d_k ** 1/2 is d_k / 2, not sqrt(d_k)",
            QK / d_k / 2,
            HINT_OPERATOR_PRECEDENCE,
        ),
        Mistake(
            "floor division // instead of /", np.floor_divide(QK, np.sqrt(d_k)), HINT_FLOOR_DIVISION
        ),
        Mistake(
            "cosine similarity instead of the dot product",
            (Q / np.linalg.norm(Q, axis=-1, keepdims=True))
            @ (K / np.linalg.norm(K, axis=-1, keepdims=True)).T
            / np.sqrt(d_k),
            HINT_COSINE_SIMILARITY,
        ),
        Mistake(
            "softmax already applied (weights instead of scores)",
            torch_softmax(QK / np.sqrt(d_k)),
            HINT_SOFTMAX_ALREADY_APPLIED,
        ),
    ]
    return out


HINT_SCORES = "S is Q @ K.T divided by sqrt(d_k), where d_k is the query/key width Q.shape[-1]"
HINT_TRANSPOSE_K = (
    "S = Q @ K.T: transpose the keys so that (L_q, d_k) @ (d_k, L_k) gives (L_q, L_k)"
)


def _call_scores(run: CheckRun, call: str, *args):
    """Call score_matrix; a matmul shape error gets the hint a student needs."""
    return run.call(
        call, *args, crash_hints=[(("matmul", "not aligned", "mismatch"), HINT_TRANSPOSE_K)]
    )


HINT_SCORES_SHAPE = "S has one row per query and one column per key"


def check_score_matrix(score_matrix, reference=None, trials: int = 12) -> None:
    run = PrecisionAwareRun(score_matrix)
    call = "score_matrix(Q, K) on the worked example (L = 4, d_k = 3)"
    S = _call_scores(run, call, WORKED_Q, WORKED_K)
    run.expect_shape(call, S, (4, 4), hint=HINT_SCORES_SHAPE)
    run.expect_finite(call, S)
    run.expect_close(
        call,
        S,
        WORKED_QK / np.sqrt(3.0),
        mistakes=_score_mistakes(WORKED_Q, WORKED_K),
        hint=HINT_SCORES,
    )
    # Entry (2, 3) of the decks, in 1-based counting: query 2 against key 3.
    run.expect_close(
        f"{call}: entry S[1, 2]", as_array(S)[1, 2], float(WORKED_Q[1] @ WORKED_K[2]) / np.sqrt(3.0)
    )

    Q, K = _random(11, 2, 4), _random(12, 5, 4)
    call = "score_matrix(Q, K) with 2 queries and 5 keys, d_k = 4"
    S = _call_scores(run, call, Q, K)
    run.expect_shape(call, S, (2, 5), hint=HINT_SCORES_SHAPE)
    run.expect_close(call, S, (Q @ K.T) / 2.0, mistakes=_score_mistakes(Q, K), hint=HINT_SCORES)

    run.expect_raises(
        "score_matrix with Q (4, 3) and K (4, 2)",
        ValueError,
        WORKED_Q,
        WORKED_K[:, :2],
        mentions=("(4, 3)", "(4, 2)"),
    )
    if reference is not None:
        for seed in hidden_range(trials):
            rng = np.random.default_rng(200 + seed)
            L_q, L_k, d_k = (int(v) for v in rng.integers(1, 8, size=3))
            scale = 10.0 ** rng.integers(-2, 3)
            Q, K = scale * rng.standard_normal((L_q, d_k)), rng.standard_normal((L_k, d_k))
            call = f"score_matrix on random Q ({L_q}, {d_k}), K ({L_k}, {d_k}) (seed {seed})"
            S = _call_scores(run, call, Q, K)
            run.expect_shape(call, S, (L_q, L_k))
            run.expect_close(
                call, S, reference(Q, K), mistakes=_score_mistakes(Q, K), hint=HINT_SCORES
            )
    run.done()


# ---------------------------------------------------------------------------------------
# softmax_rows
# ---------------------------------------------------------------------------------------
HINT_SOFTMAX_AXIS = "normalise along the last axis: axis=-1"
HINT_SUM_WHOLE_ARRAY = "sum over axis=-1 with keepdims=True"
HINT_REDUCE_OVER_LAST_AXIS = (
    "reduce over the last axis, axis=-1 with keepdims=True, for the "
    "sum as well as the max (axis=0 or axis=1 is another axis once S "
    "has leading axes)"
)
HINT_NOT_NORMALISED = "divide by the sum of its own row, so every row sums to 1"
HINT_LOG_SOFTMAX = "return the weights exp(S - max) / sum, not their logarithms"
HINT_NEG_INF_REPLACED = (
    "a -inf score must get weight exactly 0 (exp(-inf) = 0): leave it as "
    "-inf and only fix the maximum of an all -inf row"
)
HINT_KEEPDIMS_FORGOTTEN = "use keepdims=True so a (L, 1) column broadcasts over each row"


def _softmax_mistakes(S) -> list[Mistake]:
    S = np.asarray(S, dtype=np.float64)
    out = []
    if S.ndim >= 2:
        out.append(
            Mistake(
                "softmax over the wrong axis (columns sum to 1, not rows)",
                torch_softmax(S, axis=-2),
                HINT_SOFTMAX_AXIS,
            )
        )
    e = np.exp(S - S.max())
    out.append(
        Mistake(
            "normalised by the sum of the whole array, not of each row",
            e / e.sum(),
            HINT_SUM_WHOLE_ARRAY,
        )
    )
    with np.errstate(all="ignore"):
        row_max = S.max(axis=-1, keepdims=True)
        row_max = np.where(np.isfinite(row_max), row_max, 0.0)
        e = np.exp(S - row_max)
        total = e.sum(axis=-1, keepdims=True)
        out.append(Mistake("the exponentials never divided by the row sum", e, HINT_NOT_NORMALISED))
        log_total = np.log(np.where(total > 0, total, 1.0))
        out.append(
            Mistake(
                "log-softmax returned",
                np.where(total > 0, S - row_max - log_total, 0.0),
                HINT_LOG_SOFTMAX,
            )
        )
        if S.ndim >= 2:
            column = e.sum(axis=0, keepdims=True)
            out.append(
                Mistake(
                    "each row shifted by its maximum, then divided by the column sums",
                    e / column,
                    HINT_REDUCE_OVER_LAST_AXIS,
                )
            )
        if S.ndim >= 3:
            m1 = S.max(axis=1, keepdims=True)
            e1 = np.exp(S - np.where(np.isfinite(m1), m1, 0.0))
            out.append(
                Mistake(
                    "maximum over axis=1 (right only for 2-D input)",
                    e1 / e1.sum(axis=-1, keepdims=True),
                    HINT_REDUCE_OVER_LAST_AXIS,
                )
            )
        if np.isneginf(S).any():
            S0 = np.where(np.isinf(S), 0.0, S)
            e0 = np.exp(S0 - S0.max(axis=-1, keepdims=True))
            out.append(
                Mistake(
                    "-inf scores replaced by 0 before exp",
                    e0 / e0.sum(axis=-1, keepdims=True),
                    HINT_NEG_INF_REPLACED,
                )
            )
    if S.ndim == 2 and S.shape[0] == S.shape[1]:
        with np.errstate(all="ignore"):
            e = np.exp(S - S.max(axis=-1))
            out.append(
                Mistake(
                    "keepdims forgotten: the row maxima and sums broadcast along the wrong axis",
                    e / e.sum(axis=-1),
                    HINT_KEEPDIMS_FORGOTTEN,
                )
            )
    return out


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


def check_softmax_rows(softmax_rows, reference=None, trials: int = 12) -> None:
    run = PrecisionAwareRun(softmax_rows, in_place_hint=HINT_SOFTMAX_IN_PLACE)
    S = WORKED_QK / np.sqrt(3.0)
    call = "softmax_rows(S) on the worked 4x4 scores"
    A = run.call(call, S)
    run.expect_shape(call, A, (4, 4))
    run.expect_finite(call, A)
    run.expect_close(
        call, A, torch_softmax(S), mistakes=_softmax_mistakes(S), hint=HINT_SOFTMAX_VALUES
    )
    A = as_array(A)
    run.expect_true(
        np.allclose(A.sum(axis=-1), 1.0) and np.all(A >= 0),
        f"{call}: every row must be non-negative and sum to 1; row sums {A.sum(axis=-1)}",
    )

    S = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    call = "softmax_rows(S) with S = [[1, 2, 3], [0, 0, 0]] (2 rows, 3 columns)"
    run.expect_close(
        call,
        run.call(call, S),
        [[0.09003057317038046, 0.24472847105479767, 0.6652409557748219], [1 / 3, 1 / 3, 1 / 3]],
        mistakes=_softmax_mistakes(S),
    )

    S = np.array([[1000.0, 1001.0, 1002.0], [1002.0, 1001.0, 1000.0]])
    call = "softmax_rows(S) with large scores S = [[1000, 1001, 1002], [1002, 1001, 1000]]"
    A = run.call(call, S)
    run.expect_finite(call, A, hint=HINT_STABLE)
    run.expect_close(call, A, torch_softmax(S), mistakes=_softmax_mistakes(S), hint=HINT_STABLE)

    S = np.array([[0.0, 1.0], [-1000.0, -999.0], [-1001.0, -1002.0]])
    call = (
        "softmax_rows(S) with rows on different scales S = [[0, 1], [-1000, -999], [-1001, -1002]]"
    )
    A = run.call(call, S)
    run.expect_finite(call, A, hint=HINT_GLOBAL_MAX)
    run.expect_close(call, A, torch_softmax(S), mistakes=_softmax_mistakes(S))

    S = np.array([[-800.0, 0.0, 800.0], [2.0, -800.0, 0.0]])
    call = "softmax_rows(S) with a wide spread in each row S = [[-800, 0, 800], [2, -800, 0]]"
    A = run.call(call, S)
    hint = HINT_ROW_MAXIMUM
    run.expect_finite(call, A, hint=hint)
    run.expect_close(call, A, torch_softmax(S), mistakes=_softmax_mistakes(S), hint=hint)

    S = np.array([[0.0, -np.inf, 1.0], [-np.inf, -np.inf, -np.inf]])
    call = "softmax_rows(S) with -inf scores S = [[0, -inf, 1], [-inf, -inf, -inf]]"
    A = run.call(call, S)
    run.expect_finite(call, A, hint=HINT_ALL_MASKED)
    run.expect_close(
        call,
        A,
        [[0.2689414213699951, 0.0, 0.7310585786300049], [0.0, 0.0, 0.0]],
        mistakes=_softmax_mistakes(S),
        hint=HINT_MASKED_ROW_ZEROS,
    )

    S = _random(21, 2, 3, 5)
    call = "softmax_rows(S) with leading axes, S of shape (2, 3, 5)"
    A = run.call(call, S, crash_hints=[("broadcast", HINT_LEADING_AXES)])
    run.expect_shape(call, A, (2, 3, 5), hint=HINT_LEADING_AXES)
    run.expect_close(
        call, A, torch_softmax(S), mistakes=_softmax_mistakes(S), hint=HINT_LEADING_AXES
    )

    if reference is not None:
        for seed in hidden_range(trials):
            rng = np.random.default_rng(300 + seed)
            shape = tuple(int(v) for v in rng.integers(1, 6, size=int(rng.integers(1, 4))))
            S = rng.standard_normal(shape) * 10.0 ** int(rng.integers(-1, 3))
            if seed % 3 == 0 and S.size:
                S[rng.random(shape) < 0.3] = -np.inf
            call = f"softmax_rows on random S of shape {shape} (seed {seed})"
            A = run.call(call, S)
            run.expect_shape(call, A, shape)
            run.expect_finite(call, A, hint=HINT_ALL_MASKED)
            run.expect_close(call, A, reference(S), mistakes=_softmax_mistakes(S))
    run.done()


# ---------------------------------------------------------------------------------------
# attention
# ---------------------------------------------------------------------------------------
def _global_softmax(S):
    e = np.exp(S - S.max())
    return e / e.sum()


HINT_ATTENTION_NO_SCALING = "scale the scores by 1/sqrt(d_k) before the softmax"
HINT_ATTENTION_BY_D_K = (
    "divide by sqrt(d_k), not d_k: score_matrix already scales the scores, "
    "so do not scale them again"
)
HINT_ATTENTION_BY_TOKENS = "d_k is Q.shape[-1]"
HINT_ATTENTION_AXIS = "each query's weights (a row of A) must sum to 1: softmax along axis=-1"
HINT_ATTENTION_WHOLE_MATRIX = (
    "each query's weights (a row of A) must sum to 1: normalise "
    "every row on its own, not the whole matrix"
)
HINT_SCORES_RETURNED = "return the softmax weights A (each row sums to 1), not the scores"
HINT_QUERIES_AGAINST_QUERIES = "the scores compare the queries against the keys: score_matrix(Q, K)"
HINT_ARGUMENTS_SWAPPED = "score_matrix(Q, K): queries first, so row l of S belongs to query l"
HINT_KEYS_AS_VALUES = "Y = A @ V: the output mixes the values, not the keys"
HINT_WEIGHTS_TRANSPOSED = "Y = A @ V: row l of Y mixes the values with query l's weights"


def _attention_mistakes(Q, K, V) -> tuple[list[Mistake], list[Mistake]]:
    """Known wrong (A, Y) pairs for these inputs: mistakes on the weights and on the output."""
    L_q, d_k = Q.shape
    QK = Q @ K.T  # (L_q, L_k)
    on_A, on_Y = [], []
    for name, A, hint in [
        ("no 1/sqrt(d_k) scaling", torch_softmax(QK), HINT_ATTENTION_NO_SCALING),
        (
            "divided by d_k instead of sqrt(d_k) (or scaled twice)",
            torch_softmax(QK / d_k),
            HINT_ATTENTION_BY_D_K,
        ),
        (
            "scaled by the wrong dimension (sqrt of the number of tokens)",
            torch_softmax(QK / np.sqrt(L_q)),
            HINT_ATTENTION_BY_TOKENS,
        ),
        (
            "softmax over the wrong axis",
            torch_softmax(QK / np.sqrt(d_k), axis=-2),
            HINT_ATTENTION_AXIS,
        ),
        (
            "normalised over the whole score matrix",
            _global_softmax(QK / np.sqrt(d_k)),
            HINT_ATTENTION_WHOLE_MATRIX,
        ),
        ("the scores S returned instead of the weights A", QK / np.sqrt(d_k), HINT_SCORES_RETURNED),
    ] + (
        [
            (
                "queries matched against themselves (score_matrix(Q, Q))",
                torch_softmax(Q @ Q.T / np.sqrt(d_k)),
                HINT_QUERIES_AGAINST_QUERIES,
            )
        ]
        if Q.shape == K.shape
        else []
    ):
        on_A.append(Mistake(name, A, hint))
        if A.shape[1] == V.shape[0]:
            on_Y.append(Mistake(name, A @ V, hint))
    if Q.shape == K.shape:
        swapped = torch_softmax(QK.T / np.sqrt(d_k))
        on_A.append(
            Mistake("score_matrix(K, Q): arguments swapped", swapped, HINT_ARGUMENTS_SWAPPED)
        )
        on_Y.append(
            Mistake("score_matrix(K, Q): arguments swapped", swapped @ V, HINT_ARGUMENTS_SWAPPED)
        )
    A = torch_softmax(QK / np.sqrt(d_k))
    if K.shape == V.shape:
        on_Y.append(Mistake("keys used as values (A @ K)", A @ K, HINT_KEYS_AS_VALUES))
    if A.shape[0] == A.shape[1]:
        on_Y.append(Mistake("weights transposed (A^T V)", A.T @ V, HINT_WEIGHTS_TRANSPOSED))
    return on_A, on_Y


HINT_ATTENTION = (
    "the weights A are the row-wise softmax of the scores of Q against K (your "
    "score_matrix and softmax_rows), then Y = A @ V; return Y, A"
)


HINT_V_TIMES_A = "Y = A @ V: (L_q, L_k) @ (L_k, d_v); the weights come first, not V @ A"
HINT_RETURN_PAIR = "return Y, A"
HINT_RETURN_Y_A = "return Y, A in that order"
HINT_Y_SHAPE = "Y has one row per query, d_v columns"
HINT_A_SHAPE = "A has one row per query, one column per key"
HINT_Y_FROM_A = "Y must be the returned weights applied to the values: Y = A @ V"
HINT_PERMUTATION = "permuting the tokens should permute the rows of Y the same way"


def check_attention(attention, reference=None, trials: int = 12) -> None:
    run = PrecisionAwareRun(attention)
    call = "attention(Q, K, V) on the worked example"
    result = run.call(
        call, WORKED_Q, WORKED_K, WORKED_V, crash_hints=[(SHAPE_ERRORS, HINT_V_TIMES_A)]
    )
    run.expect_true(
        isinstance(result, tuple | list) and len(result) == 2,
        f"{call} should return a tuple (Y, A); got {type(result).__name__}",
        hint=HINT_RETURN_PAIR,
    )
    Y, A = result
    Y_expected, A_expected = torch_attend(WORKED_Q, WORKED_K, WORKED_V)
    if np.shape(Y) == (4, 4) and np.shape(A) == (4, 3):
        run.fail(f"{call} returned (A, Y) instead of (Y, A).", hint=HINT_RETURN_Y_A)
    run.expect_shape(f"{call}: Y", Y, (4, 3), hint=HINT_Y_SHAPE)
    run.expect_shape(f"{call}: A", A, (4, 4), hint=HINT_A_SHAPE)
    run.expect_finite(f"{call}: A", A)
    run.expect_finite(f"{call}: Y", Y)
    on_A, on_Y = _attention_mistakes(WORKED_Q, WORKED_K, WORKED_V)
    run.expect_close(
        f"{call}: A", A, A_expected, what="attention weights", mistakes=on_A, hint=HINT_ATTENTION
    )
    run.expect_close(f"{call}: Y", Y, Y_expected, mistakes=on_Y, hint=HINT_ATTENTION)

    # Cross-attention shapes: 2 queries, 5 keys, d_k = 4, d_v = 3.
    Q, K, V = _random(31, 2, 4), _random(32, 5, 4), _random(33, 5, 3)
    call = "attention(Q, K, V) with Q (2, 4), K (5, 4), V (5, 3)"
    Y, A = run.call(call, Q, K, V)
    run.expect_shape(f"{call}: Y", Y, (2, 3))
    run.expect_shape(f"{call}: A", A, (2, 5))
    Y_expected, A_expected = torch_attend(Q, K, V)
    on_A, on_Y = _attention_mistakes(Q, K, V)
    run.expect_close(
        f"{call}: A", A, A_expected, what="attention weights", mistakes=on_A, hint=HINT_ATTENTION
    )
    run.expect_close(f"{call}: Y", Y, Y_expected, mistakes=on_Y, hint=HINT_ATTENTION)
    run.expect_true(
        np.allclose(as_array(A).sum(axis=-1), 1.0), f"{call}: each row of A must sum to 1"
    )
    run.expect_close(f"{call}: Y against A @ V", Y, as_array(A) @ V, hint=HINT_Y_FROM_A)

    # Without positions, reordering the tokens only reorders the outputs.
    perm = np.array([2, 0, 3, 1])
    call = "attention on the worked example with its tokens reordered"
    Y_perm, _ = run.call(call, WORKED_Q[perm], WORKED_K[perm], WORKED_V[perm])
    Y, _ = run.call("attention(Q, K, V) on the worked example", WORKED_Q, WORKED_K, WORKED_V)
    run.expect_close(call, Y_perm, as_array(Y)[perm], hint=HINT_PERMUTATION)

    Q = np.array([[50.0, 0.0], [0.0, 0.0]])
    K = np.array([[50.0, 0.0], [-50.0, 0.0]])
    V = np.array([[1.0, 0.0], [0.0, 1.0]])
    call = "attention(Q, K, V) with large scores (q.k = 2500)"
    Y, A = run.call(call, Q, K, V)
    run.expect_finite(f"{call}: A", A, hint=HINT_STABLE)
    run.expect_close(f"{call}: Y", Y, torch_attend(Q, K, V)[0])

    run.expect_raises(
        "attention with K (4, 3) and V (3, 3)",
        ValueError,
        WORKED_Q,
        WORKED_K,
        WORKED_V[:3],
        mentions=("(4, 3)", "(3, 3)"),
    )
    if reference is not None:
        for seed in hidden_range(trials):
            rng = np.random.default_rng(400 + seed)
            L_q, L_k, d_k, d_v = (int(v) for v in rng.integers(1, 7, size=4))
            Q = rng.standard_normal((L_q, d_k)) * 10.0 ** int(rng.integers(-1, 2))
            K, V = rng.standard_normal((L_k, d_k)), rng.standard_normal((L_k, d_v))
            call = (
                f"attention on random Q ({L_q}, {d_k}), K ({L_k}, {d_k}), V ({L_k}, {d_v}) "
                f"(seed {seed})"
            )
            Y, A = run.call(call, Q, K, V)
            Y_ref, A_ref = reference(Q, K, V)
            run.expect_shape(f"{call}: Y", Y, (L_q, d_v))
            run.expect_shape(f"{call}: A", A, (L_q, L_k))
            on_A, on_Y = _attention_mistakes(Q, K, V)
            run.expect_close(f"{call}: A", A, A_ref, what="attention weights", mistakes=on_A)
            run.expect_close(f"{call}: Y", Y, Y_ref, mistakes=on_Y)
    run.done()
