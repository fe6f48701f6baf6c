"""Reference answers for notebook 01_attention_scores: generated, do not edit.

Made by scripts/release.py (`make release`) from the answer cells of
solutions/01_attention_scores/01_attention_scores.ipynb. Used by the hidden tests and the project's
own tests; never shipped to students.
"""


# ruff: noqa: E501, I001, F841, UP034
import numpy as np
from attnbook.shapes import require_min_ndim, require_ndim, require_same_size


# name: (options, correct letter, explanation shown when the answer is wrong)
ANSWERS = {
    'answer_q_shape': ('ABC', 'B', 'Q = X W_Q^T is (4, 3) @ (3, 2) -> (4, 2): one row per token, d_k = 2 columns; (2, 4) would be W_Q X^T, one column per token.'),
    'answer_score_entry': ('ABC', 'A', "q_2 = (0, 2, 0) and k_3 = (1, 1, 0) give q_2 . k_3 = 2, divided by sqrt(3): about 1.155; 2.000 forgets the scaling, 2.887 is numpy's S[2, 3]."),
    'answer_scale': ('ABC', 'C', 'multiplying the scores by 10 is a temperature of 1/10: the gaps between scores grow tenfold, so softmax sharpens onto the largest score. Only adding a constant leaves it unchanged.'),
    'answer_permutation': ('ABC', 'B', 'without positions an output row depends only on its own query and the SET of keys and values, so report keeps its vector: the rows move with the tokens.'),
}


# -- from the answer cell project_qkv
def project_qkv(X, W_Q, W_K, W_V):
    """Project a sequence into queries, keys and values.

    Args:
        X: (L, d) sequence matrix; row l is token l.
        W_Q: (d_k, d) query weights.
        W_K: (d_k, d) key weights.
        W_V: (d_v, d) value weights.

    Returns:
        (Q, K, V) of shapes (L, d_k), (L, d_k), (L, d_v).
    """
    X, W_Q, W_K, W_V = (np.asarray(a, dtype=np.float64) for a in (X, W_Q, W_K, W_V))
    require_ndim("X", X, 2, "(L, d)")
    for name, W in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V)):
        require_ndim(name, W, 2, "(d_out, d)")
        require_same_size(name, W, 1, "X", X, 1, "the feature width d")
    require_same_size("W_Q", W_Q, 0, "W_K", W_K, 0, "the query/key width d_k")
    # Key idea: Q, K and V are the same tokens X seen through three sets of weights: one matrix
    #   product per projection, X times the transposed weight, so each row stays one token.
    Q = X @ W_Q.T  # (L, d) @ (d, d_k) -> (L, d_k)
    K = X @ W_K.T  # (L, d_k)
    V = X @ W_V.T  # (L, d_v)
    return Q, K, V


# -- from the answer cell score_matrix
def score_matrix(Q, K):
    """Scaled dot-product scores between every query and every key.

    Args:
        Q: (L_q, d_k) queries, one row per query token.
        K: (L_k, d_k) keys, one row per key token.

    Returns:
        S: (L_q, L_k) with S[l, j] = q_l . k_j / sqrt(d_k).
    """
    Q, K = np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64)
    require_ndim("Q", Q, 2, "(L_q, d_k)")
    require_ndim("K", K, 2, "(L_k, d_k)")
    require_same_size("Q", Q, -1, "K", K, -1, "the query/key width d_k")
    # Key idea: One product compares every query with every key: Q K^T has a row per query and a
    #   column per key. Dividing by sqrt(d_k) keeps the scores' spread near 1 whatever the width.
    d_k = Q.shape[-1]
    return Q @ K.T / np.sqrt(d_k)  # (L_q, d_k) @ (d_k, L_k) -> (L_q, L_k)


# -- from the answer cell softmax_rows
def softmax_rows(S):
    """Numerically stable softmax along the last axis.

    Args:
        S: (..., L_k) scores; entries may be -inf. Any number of leading axes.

    Returns:
        A: same shape as S; each row (last axis) is non-negative and sums to 1, except a row
        whose scores are all -inf, which is all zeros. S itself is not modified.
    """
    S = np.asarray(S, dtype=np.float64)
    require_min_ndim("S", S, 1, "(..., L_k)")
    # Key idea: Work along the last axis, row by row: subtract the row's maximum (the weights do
    #   not change and exp cannot overflow), exponentiate, divide by the row's sum. A row of only
    #   -inf scores has no maximum to subtract: give it zeros.
    row_max = S.max(axis=-1, keepdims=True)  # (..., 1)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)  # all -inf rows: shift by 0
    e = np.exp(S - row_max)  # (..., L_k), every exponent <= 0
    total = e.sum(axis=-1, keepdims=True)  # (..., 1)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


# -- from the answer cell attention
def attention(Q, K, V):
    """Single-head scaled dot-product attention.

    Args:
        Q: (L_q, d_k) queries.
        K: (L_k, d_k) keys.
        V: (L_k, d_v) values, one row per key.

    Returns:
        (Y, A): Y of shape (L_q, d_v), the outputs; A of shape (L_q, L_k), the weights.
    """
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    require_ndim("Q", Q, 2, "(L_q, d_k)")
    require_ndim("K", K, 2, "(L_k, d_k)")
    require_ndim("V", V, 2, "(L_k, d_v)")
    require_same_size("Q", Q, -1, "K", K, -1, "the query/key width d_k")
    require_same_size("K", K, -2, "V", V, -2, "the number of keys L_k")
    # Key idea: Compose the two functions above: the weights are the softmax of the scores, and
    #   each output row is the weighted average of the value rows, A V.
    A = softmax_rows(score_matrix(Q, K))  # (L_q, L_k)
    Y = A @ V  # (L_q, L_k) @ (L_k, d_v) -> (L_q, d_v)
    return Y, A


# -- the catalogued mistakes (autograder/mistakes/), resolved: the hidden trials run
# them on their inputs to name the slip a wrong output matches
# project_qkv: weights not transposed (X @ W_Q instead of X @ W_Q.T)
def _slip_project_qkv_0(X, W_Q, W_K, W_V):
    X, W_Q, W_K, W_V = (np.asarray(a, dtype=np.float64) for a in (X, W_Q, W_K, W_V))
    require_ndim('X', X, 2, '(L, d)')
    for name, W in (('W_Q', W_Q), ('W_K', W_K), ('W_V', W_V)):
        require_ndim(name, W, 2, '(d_out, d)')
        require_same_size(name, W, 1, 'X', X, 1, 'the feature width d')
    require_same_size('W_Q', W_Q, 0, 'W_K', W_K, 0, 'the query/key width d_k')
    return (X @ W_Q, X @ W_K, X @ W_V)

# project_qkv: only W_K not transposed (K = X @ W_K)
def _slip_project_qkv_1(X, W_Q, W_K, W_V):
    X, W_Q, W_K, W_V = (np.asarray(a, dtype=np.float64) for a in (X, W_Q, W_K, W_V))
    require_ndim('X', X, 2, '(L, d)')
    for name, W in (('W_Q', W_Q), ('W_K', W_K), ('W_V', W_V)):
        require_ndim(name, W, 2, '(d_out, d)')
        require_same_size(name, W, 1, 'X', X, 1, 'the feature width d')
    require_same_size('W_Q', W_Q, 0, 'W_K', W_K, 0, 'the query/key width d_k')
    return (X @ W_Q.T, X @ W_K, X @ W_V.T)

# project_qkv: only W_V not transposed (V = X @ W_V)
def _slip_project_qkv_2(X, W_Q, W_K, W_V):
    X, W_Q, W_K, W_V = (np.asarray(a, dtype=np.float64) for a in (X, W_Q, W_K, W_V))
    require_ndim('X', X, 2, '(L, d)')
    for name, W in (('W_Q', W_Q), ('W_K', W_K), ('W_V', W_V)):
        require_ndim(name, W, 2, '(d_out, d)')
        require_same_size(name, W, 1, 'X', X, 1, 'the feature width d')
    require_same_size('W_Q', W_Q, 0, 'W_K', W_K, 0, 'the query/key width d_k')
    return (X @ W_Q.T, X @ W_K.T, X @ W_V)

# project_qkv: weight times X instead of X times weight transposed
def _slip_project_qkv_3(X, W_Q, W_K, W_V):
    X, W_Q, W_K, W_V = (np.asarray(a, dtype=np.float64) for a in (X, W_Q, W_K, W_V))
    require_ndim('X', X, 2, '(L, d)')
    for name, W in (('W_Q', W_Q), ('W_K', W_K), ('W_V', W_V)):
        require_ndim(name, W, 2, '(d_out, d)')
        require_same_size(name, W, 1, 'X', X, 1, 'the feature width d')
    require_same_size('W_Q', W_Q, 0, 'W_K', W_K, 0, 'the query/key width d_k')
    return (W_Q @ X.T, W_K @ X.T, W_V @ X.T)

# project_qkv: results returned in the wrong order
def _slip_project_qkv_4(X, W_Q, W_K, W_V):
    X, W_Q, W_K, W_V = (np.asarray(a, dtype=np.float64) for a in (X, W_Q, W_K, W_V))
    require_ndim('X', X, 2, '(L, d)')
    for name, W in (('W_Q', W_Q), ('W_K', W_K), ('W_V', W_V)):
        require_ndim(name, W, 2, '(d_out, d)')
        require_same_size(name, W, 1, 'X', X, 1, 'the feature width d')
    require_same_size('W_Q', W_Q, 0, 'W_K', W_K, 0, 'the query/key width d_k')
    return (X @ W_K.T, X @ W_Q.T, X @ W_V.T)

# project_qkv: the same weight matrix used for Q, K and V
def _slip_project_qkv_5(X, W_Q, W_K, W_V):
    X, W_Q, W_K, W_V = (np.asarray(a, dtype=np.float64) for a in (X, W_Q, W_K, W_V))
    require_ndim('X', X, 2, '(L, d)')
    for name, W in (('W_Q', W_Q), ('W_K', W_K), ('W_V', W_V)):
        require_ndim(name, W, 2, '(d_out, d)')
        require_same_size(name, W, 1, 'X', X, 1, 'the feature width d')
    require_same_size('W_Q', W_Q, 0, 'W_K', W_K, 0, 'the query/key width d_k')
    Q = X @ W_Q.T
    return (Q, Q, Q)

# project_qkv: W_K used for V as well (copy-paste)
def _slip_project_qkv_6(X, W_Q, W_K, W_V):
    X, W_Q, W_K, W_V = (np.asarray(a, dtype=np.float64) for a in (X, W_Q, W_K, W_V))
    require_ndim('X', X, 2, '(L, d)')
    for name, W in (('W_Q', W_Q), ('W_K', W_K), ('W_V', W_V)):
        require_ndim(name, W, 2, '(d_out, d)')
        require_same_size(name, W, 1, 'X', X, 1, 'the feature width d')
    require_same_size('W_Q', W_Q, 0, 'W_K', W_K, 0, 'the query/key width d_k')
    return (X @ W_Q.T, X @ W_K.T, X @ W_K.T)

# project_qkv: W_Q used for K as well (copy-paste)
def _slip_project_qkv_7(X, W_Q, W_K, W_V):
    X, W_Q, W_K, W_V = (np.asarray(a, dtype=np.float64) for a in (X, W_Q, W_K, W_V))
    require_ndim('X', X, 2, '(L, d)')
    for name, W in (('W_Q', W_Q), ('W_K', W_K), ('W_V', W_V)):
        require_ndim(name, W, 2, '(d_out, d)')
        require_same_size(name, W, 1, 'X', X, 1, 'the feature width d')
    require_same_size('W_Q', W_Q, 0, 'W_K', W_K, 0, 'the query/key width d_k')
    return (X @ W_Q.T, X @ W_Q.T, X @ W_V.T)

# project_qkv: queries already divided by sqrt(d_k)
def _slip_project_qkv_8(X, W_Q, W_K, W_V):
    X, W_Q, W_K, W_V = (np.asarray(a, dtype=np.float64) for a in (X, W_Q, W_K, W_V))
    require_ndim('X', X, 2, '(L, d)')
    for name, W in (('W_Q', W_Q), ('W_K', W_K), ('W_V', W_V)):
        require_ndim(name, W, 2, '(d_out, d)')
        require_same_size(name, W, 1, 'X', X, 1, 'the feature width d')
    require_same_size('W_Q', W_Q, 0, 'W_K', W_K, 0, 'the query/key width d_k')
    d_k = W_Q.shape[0]
    return (X @ W_Q.T / np.sqrt(d_k), X @ W_K.T, X @ W_V.T)

# project_qkv: returns one stacked array
def _slip_project_qkv_9(X, W_Q, W_K, W_V):
    X, W_Q, W_K, W_V = (np.asarray(a, dtype=np.float64) for a in (X, W_Q, W_K, W_V))
    require_ndim('X', X, 2, '(L, d)')
    for name, W in (('W_Q', W_Q), ('W_K', W_K), ('W_V', W_V)):
        require_ndim(name, W, 2, '(d_out, d)')
        require_same_size(name, W, 1, 'X', X, 1, 'the feature width d')
    require_same_size('W_Q', W_Q, 0, 'W_K', W_K, 0, 'the query/key width d_k')
    return np.stack([X @ W_Q.T, X @ W_K.T, X @ W_V.T])

# project_qkv: float32 and the queries scaled by 1/sqrt(d_k)
def _slip_project_qkv_10(X, W_Q, W_K, W_V):
    X, W_Q, W_K, W_V = (np.asarray(a, dtype=np.float64) for a in (X, W_Q, W_K, W_V))
    require_ndim('X', X, 2, '(L, d)')
    for name, W in (('W_Q', W_Q), ('W_K', W_K), ('W_V', W_V)):
        require_ndim(name, W, 2, '(d_out, d)')
        require_same_size(name, W, 1, 'X', X, 1, 'the feature width d')
    require_same_size('W_Q', W_Q, 0, 'W_K', W_K, 0, 'the query/key width d_k')
    import torch
    x = torch.Tensor(X)
    q = x @ torch.Tensor(W_Q).T / W_Q.shape[0] ** 0.5
    return (q, x @ torch.Tensor(W_K).T, x @ torch.Tensor(W_V).T)

# project_qkv: elementwise * instead of the matrix product
def _slip_project_qkv_11(X, W_Q, W_K, W_V):
    X, W_Q, W_K, W_V = (np.asarray(a, dtype=np.float64) for a in (X, W_Q, W_K, W_V))
    require_ndim('X', X, 2, '(L, d)')
    for name, W in (('W_Q', W_Q), ('W_K', W_K), ('W_V', W_V)):
        require_ndim(name, W, 2, '(d_out, d)')
        require_same_size(name, W, 1, 'X', X, 1, 'the feature width d')
    require_same_size('W_Q', W_Q, 0, 'W_K', W_K, 0, 'the query/key width d_k')
    return (X * W_Q, X * W_K, X * W_V)

# project_qkv: V left as X (no value projection)
def _slip_project_qkv_12(X, W_Q, W_K, W_V):
    X, W_Q, W_K, W_V = (np.asarray(a, dtype=np.float64) for a in (X, W_Q, W_K, W_V))
    require_ndim('X', X, 2, '(L, d)')
    for name, W in (('W_Q', W_Q), ('W_K', W_K), ('W_V', W_V)):
        require_ndim(name, W, 2, '(d_out, d)')
        require_same_size(name, W, 1, 'X', X, 1, 'the feature width d')
    require_same_size('W_Q', W_Q, 0, 'W_K', W_K, 0, 'the query/key width d_k')
    return (X @ W_Q.T, X @ W_K.T, X)

# score_matrix: no 1/sqrt(d_k)
def _slip_score_matrix_0(Q, K):
    Q, K = (np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    return Q @ K.T

# score_matrix: divided by d_k instead of sqrt(d_k)
def _slip_score_matrix_1(Q, K):
    Q, K = (np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    return Q @ K.T / Q.shape[-1]

# score_matrix: scaled by the wrong dimension (sqrt of the number of tokens)
def _slip_score_matrix_2(Q, K):
    Q, K = (np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    return Q @ K.T / np.sqrt(Q.shape[0])

# score_matrix: scores transposed (K Q^T: rows are keys)
def _slip_score_matrix_3(Q, K):
    Q, K = (np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    return K @ Q.T / np.sqrt(Q.shape[-1])

# score_matrix: multiplied by sqrt(d_k) instead of dividing
def _slip_score_matrix_4(Q, K):
    Q, K = (np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    return Q @ K.T * np.sqrt(Q.shape[-1])

# score_matrix: keys not transposed (Q @ K)
def _slip_score_matrix_5(Q, K):
    Q, K = (np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    return Q @ K / np.sqrt(Q.shape[-1])

# score_matrix: Q.T @ K (feature by feature)
def _slip_score_matrix_6(Q, K):
    Q, K = (np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    return Q.T @ K / np.sqrt(Q.shape[-1])

# score_matrix: operator precedence: d_k ** 1/2 is d_k / 2, not sqrt(d_k)
def _slip_score_matrix_7(Q, K):
    Q, K = (np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    return Q @ K.T / Q.shape[-1] ** 1 / 2

# score_matrix: softmax already applied (weights instead of scores)
def _slip_score_matrix_8(Q, K):
    Q, K = (np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    S = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)

# score_matrix: float32 and no 1/sqrt(d_k)
def _slip_score_matrix_9(Q, K):
    Q, K = (np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    import torch
    return torch.Tensor(Q) @ torch.Tensor(K).T

# score_matrix: floor division // instead of /
def _slip_score_matrix_10(Q, K):
    Q, K = (np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    return Q @ K.T // np.sqrt(Q.shape[-1])

# score_matrix: cosine similarity instead of the dot product
def _slip_score_matrix_11(Q, K):
    Q, K = (np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    Qn = Q / np.linalg.norm(Q, axis=-1, keepdims=True)
    Kn = K / np.linalg.norm(K, axis=-1, keepdims=True)
    return Qn @ Kn.T / np.sqrt(Q.shape[-1])

# score_matrix: hard-coded sqrt(3) (the worked example's d_k)
def _slip_score_matrix_12(Q, K):
    Q, K = (np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    return Q @ K.T / np.sqrt(3)

# score_matrix: no return: the scores computed and dropped
def _slip_score_matrix_13(Q, K):
    Q, K = (np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    S = Q @ K.T / np.sqrt(Q.shape[-1])

# score_matrix: scales Q in place
def _slip_score_matrix_14(Q, K):
    Q, K = (np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    Q /= np.sqrt(Q.shape[-1])
    return Q @ K.T

# softmax_rows: softmax over the wrong axis
def _slip_softmax_rows_0(S):
    S = np.asarray(S, dtype=np.float64)
    require_min_ndim('S', S, 1, '(..., L_k)')
    e = np.exp(S - S.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)

# softmax_rows: overflows on large scores (no max subtraction)
def _slip_softmax_rows_1(S):
    S = np.asarray(S, dtype=np.float64)
    require_min_ndim('S', S, 1, '(..., L_k)')
    e = np.exp(S)
    return e / e.sum(axis=-1, keepdims=True)

# softmax_rows: NaN for a row of -inf
def _slip_softmax_rows_2(S):
    S = np.asarray(S, dtype=np.float64)
    require_min_ndim('S', S, 1, '(..., L_k)')
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)

# softmax_rows: global maximum instead of each row's
def _slip_softmax_rows_3(S):
    S = np.asarray(S, dtype=np.float64)
    require_min_ndim('S', S, 1, '(..., L_k)')
    e = np.exp(S - S.max())
    return e / e.sum(axis=-1, keepdims=True)

# softmax_rows: keepdims forgotten: the row maxima and sums broadcast along the wrong axis
def _slip_softmax_rows_4(S):
    S = np.asarray(S, dtype=np.float64)
    require_min_ndim('S', S, 1, '(..., L_k)')
    m = S.max(axis=-1)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(S - m)
    return e / e.sum(axis=-1)

# softmax_rows: normalised by the sum of the whole array, not of each row
def _slip_softmax_rows_5(S):
    S = np.asarray(S, dtype=np.float64)
    require_min_ndim('S', S, 1, '(..., L_k)')
    e = np.exp(S - S.max())
    return e / e.sum()

# softmax_rows: changes its input in place
def _slip_softmax_rows_6(S):
    S = np.asarray(S, dtype=np.float64)
    require_min_ndim('S', S, 1, '(..., L_k)')
    m = S.max(axis=-1, keepdims=True)
    S -= np.where(np.isfinite(m), m, 0.0)
    np.exp(S, out=S)
    total = S.sum(axis=-1, keepdims=True)
    return np.divide(S, total, out=np.zeros_like(S), where=total > 0)

# softmax_rows: only works on 2-D input
def _slip_softmax_rows_7(S):
    S = np.asarray(S, dtype=np.float64)
    require_min_ndim('S', S, 1, '(..., L_k)')
    out = np.zeros_like(S)
    for i in range(S.shape[0]):
        row = S[i]
        m = row.max() if np.isfinite(row.max()) else 0.0
        e = np.exp(row - m)
        out[i] = e / e.sum() if e.sum() > 0 else 0.0
    return out

# softmax_rows: axis=1 instead of the last axis
def _slip_softmax_rows_8(S):
    S = np.asarray(S, dtype=np.float64)
    require_min_ndim('S', S, 1, '(..., L_k)')
    m = S.max(axis=1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(S - m)
    total = e.sum(axis=1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)

# softmax_rows: subtracts the row minimum
def _slip_softmax_rows_9(S):
    S = np.asarray(S, dtype=np.float64)
    require_min_ndim('S', S, 1, '(..., L_k)')
    m = S.min(axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(S - m)
    total = e.sum(axis=-1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)

# softmax_rows: -inf replaced by -1e9 (masked row becomes uniform)
def _slip_softmax_rows_10(S):
    S = np.asarray(S, dtype=np.float64)
    require_min_ndim('S', S, 1, '(..., L_k)')
    S = np.where(np.isneginf(S), -1000000000.0, S)
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)

# softmax_rows: transpose trick that only works in 2-D
def _slip_softmax_rows_11(S):
    S = np.asarray(S, dtype=np.float64)
    require_min_ndim('S', S, 1, '(..., L_k)')
    m = S.max(axis=-1)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(S.T - m).T
    total = e.sum(axis=-1)
    return np.divide(e.T, total, out=np.zeros_like(e.T), where=total > 0).T

# softmax_rows: plain exp normalised, NaN turned into zeros
def _slip_softmax_rows_12(S):
    S = np.asarray(S, dtype=np.float64)
    require_min_ndim('S', S, 1, '(..., L_k)')
    e = np.exp(S)
    return np.nan_to_num(e / e.sum(axis=-1, keepdims=True))

# softmax_rows: float32 and softmax over the wrong axis
def _slip_softmax_rows_13(S):
    S = np.asarray(S, dtype=np.float64)
    require_min_ndim('S', S, 1, '(..., L_k)')
    import torch
    return torch.nan_to_num(torch.softmax(torch.Tensor(S), dim=0), nan=0.0)

# softmax_rows: each row shifted by its maximum, then divided by the column sums
def _slip_softmax_rows_14(S):
    S = np.asarray(S, dtype=np.float64)
    require_min_ndim('S', S, 1, '(..., L_k)')
    row_max = S.max(axis=-1, keepdims=True)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    e = np.exp(S - row_max)
    total = e.sum(axis=0, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)

# softmax_rows: maximum over axis=1 (right only for 2-D input)
def _slip_softmax_rows_15(S):
    S = np.asarray(S, dtype=np.float64)
    require_min_ndim('S', S, 1, '(..., L_k)')
    row_max = S.max(axis=1, keepdims=True)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    e = np.exp(S - row_max)
    total = e.sum(axis=-1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)

# softmax_rows: log-softmax returned
def _slip_softmax_rows_16(S):
    S = np.asarray(S, dtype=np.float64)
    require_min_ndim('S', S, 1, '(..., L_k)')
    row_max = S.max(axis=-1, keepdims=True)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    e = np.exp(S - row_max)
    total = e.sum(axis=-1, keepdims=True)
    with np.errstate(divide='ignore'):
        return np.where(total > 0, S - row_max - np.log(np.where(total > 0, total, 1.0)), 0.0)

# softmax_rows: the exponentials never divided by the row sum
def _slip_softmax_rows_17(S):
    S = np.asarray(S, dtype=np.float64)
    require_min_ndim('S', S, 1, '(..., L_k)')
    row_max = S.max(axis=-1, keepdims=True)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    e = np.exp(S - row_max)
    total = e.sum(axis=-1, keepdims=True)
    return e

# softmax_rows: -inf scores replaced by 0 before exp
def _slip_softmax_rows_18(S):
    S = np.asarray(S, dtype=np.float64)
    require_min_ndim('S', S, 1, '(..., L_k)')
    S = np.where(np.isinf(S), 0.0, S)
    row_max = S.max(axis=-1, keepdims=True)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    e = np.exp(S - row_max)
    total = e.sum(axis=-1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)

# softmax_rows: the stub's raise left above the written body
def _slip_softmax_rows_19(S):
    S = np.asarray(S, dtype=np.float64)
    require_min_ndim('S', S, 1, '(..., L_k)')
    raise NotImplementedError()
    row_max = S.max(axis=-1, keepdims=True)
    e = np.exp(S - np.where(np.isfinite(row_max), row_max, 0.0))
    total = e.sum(axis=-1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)

# softmax_rows: exp2 instead of exp
def _slip_softmax_rows_20(S):
    S = np.asarray(S, dtype=np.float64)
    require_min_ndim('S', S, 1, '(..., L_k)')
    row_max = S.max(axis=-1, keepdims=True)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    e = np.exp2(S - row_max)
    total = e.sum(axis=-1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)

# attention: no 1/sqrt(d_k) scaling
def _slip_attention_0(Q, K, V):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_ndim('V', V, 2, '(L_k, d_v)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    A = softmax_rows(Q @ K.T)
    return (A @ V, A)

# attention: weights transposed
def _slip_attention_1(Q, K, V):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_ndim('V', V, 2, '(L_k, d_v)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    A = softmax_rows(score_matrix(Q, K))
    return (A.T @ V, A)

# attention: returns (A, Y)
def _slip_attention_2(Q, K, V):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_ndim('V', V, 2, '(L_k, d_v)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    A = softmax_rows(score_matrix(Q, K))
    return (A, A @ V)

# attention: softmax over the key axis (columns)
def _slip_attention_3(Q, K, V):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_ndim('V', V, 2, '(L_k, d_v)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    S = score_matrix(Q, K)
    e = np.exp(S - S.max(axis=0, keepdims=True))
    A = e / e.sum(axis=0, keepdims=True)
    return (A @ V, A)

# attention: divided by d_k instead of sqrt(d_k) (or scaled twice)
def _slip_attention_4(Q, K, V):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_ndim('V', V, 2, '(L_k, d_v)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    A = softmax_rows(Q @ K.T / Q.shape[-1])
    return (A @ V, A)

# attention: the scores S returned instead of the weights A
def _slip_attention_5(Q, K, V):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_ndim('V', V, 2, '(L_k, d_v)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    A = softmax_rows(score_matrix(Q, K))
    Y = A @ V
    return (Y, score_matrix(Q, K))

# attention: keys used as values (A @ K)
def _slip_attention_6(Q, K, V):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_ndim('V', V, 2, '(L_k, d_v)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    A = softmax_rows(score_matrix(Q, K))
    return (A @ K, A)

# attention: queries matched against themselves (score_matrix(Q, Q))
def _slip_attention_7(Q, K, V):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_ndim('V', V, 2, '(L_k, d_v)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    A = softmax_rows(score_matrix(Q, Q))
    return (A @ V, A)

# attention: normalised over the whole score matrix
def _slip_attention_8(Q, K, V):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_ndim('V', V, 2, '(L_k, d_v)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    S = score_matrix(Q, K)
    e = np.exp(S - S.max())
    A = e / e.sum()
    return (A @ V, A)

# attention: returns only Y
def _slip_attention_9(Q, K, V):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_ndim('V', V, 2, '(L_k, d_v)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    return softmax_rows(score_matrix(Q, K)) @ V

# attention: float32 and weights transposed
def _slip_attention_10(Q, K, V):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_ndim('V', V, 2, '(L_k, d_v)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    import torch
    q, k, v = (torch.Tensor(Q), torch.Tensor(K), torch.Tensor(V))
    A = torch.softmax(q @ k.T / q.shape[-1] ** 0.5, dim=-1)
    return (A.T @ v, A)

# attention: V @ A instead of A @ V
def _slip_attention_11(Q, K, V):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_ndim('V', V, 2, '(L_k, d_v)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    A = softmax_rows(score_matrix(Q, K))
    return (V @ A, A)

# attention: score_matrix(K, Q): arguments swapped
def _slip_attention_12(Q, K, V):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_ndim('V', V, 2, '(L_k, d_v)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    A = softmax_rows(score_matrix(K, Q))
    return (A @ V, A)

# attention: Y transposed
def _slip_attention_13(Q, K, V):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_ndim('V', V, 2, '(L_k, d_v)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    A = softmax_rows(score_matrix(Q, K))
    return ((A @ V).T, A)

# attention: A returned transposed
def _slip_attention_14(Q, K, V):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_ndim('V', V, 2, '(L_k, d_v)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    A = softmax_rows(score_matrix(Q, K))
    Y = A @ V
    return (Y, A.T)

# attention: softmax applied twice
def _slip_attention_15(Q, K, V):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    require_ndim('Q', Q, 2, '(L_q, d_k)')
    require_ndim('K', K, 2, '(L_k, d_k)')
    require_ndim('V', V, 2, '(L_k, d_v)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    A = softmax_rows(softmax_rows(score_matrix(Q, K)))
    return (A @ V, A)


# function: [(mistake, its hint, the mistake as a function)]
SLIPS = {
    'project_qkv': [
        ('weights not transposed (X @ W_Q instead of X @ W_Q.T)', 'W_Q has shape (d_k, d): each ROW is one query direction, so Q = X @ W_Q.T', _slip_project_qkv_0),
        ('only W_K not transposed (K = X @ W_K)', 'W_K has shape (d_k, d): each ROW is one key direction, so K = X @ W_K.T', _slip_project_qkv_1),
        ('only W_V not transposed (V = X @ W_V)', 'W_V has shape (d_v, d): each ROW is one value direction, so V = X @ W_V.T', _slip_project_qkv_2),
        ('weight times X instead of X times weight transposed', 'Q, K and V have one row per token', _slip_project_qkv_3),
        ('results returned in the wrong order', 'return (Q, K, V) in that order', _slip_project_qkv_4),
        ('the same weight matrix used for Q, K and V', 'use W_K for K and W_V for V', _slip_project_qkv_5),
        ('W_K used for V as well (copy-paste)', 'use W_V for V: V = X @ W_V.T', _slip_project_qkv_6),
        ('W_Q used for K as well (copy-paste)', 'use W_K for K: K = X @ W_K.T', _slip_project_qkv_7),
        ('queries already divided by sqrt(d_k)', 'the 1/sqrt(d_k) belongs to score_matrix: project_qkv returns the plain projections Q = X @ W_Q.T', _slip_project_qkv_8),
        ('returns one stacked array', 'return Q, K, V: three separate arrays, not one stacked array', _slip_project_qkv_9),
        ('float32 and the queries scaled by 1/sqrt(d_k)', 'the 1/sqrt(d_k) belongs to score_matrix: project_qkv returns the plain projections Q = X @ W_Q.T', _slip_project_qkv_10),
        ('elementwise * instead of the matrix product', 'Q = X @ W_Q.T is a matrix product: use @ (or np.matmul), not * (elementwise), with X as it is on the left (one row per token) and the weights transposed (one row per output feature)', _slip_project_qkv_11),
        ('V left as X (no value projection)', 'V = X @ W_V.T: W_V has one row per output feature, so it is transposed', _slip_project_qkv_12),
    ],
    'score_matrix': [
        ('no 1/sqrt(d_k)', 'divide Q K^T by sqrt(d_k), the query/key width Q.shape[-1]', _slip_score_matrix_0),
        ('divided by d_k instead of sqrt(d_k)', 'the variance of q.k grows like d_k, so its spread grows like sqrt(d_k)', _slip_score_matrix_1),
        ('scaled by the wrong dimension (sqrt of the number of tokens)', 'd_k is Q.shape[-1], the number of features: not Q.shape[0] (the number of queries), and not the number of keys K.shape[0]', _slip_score_matrix_2),
        ('scores transposed (K Q^T: rows are keys)', 'row l of S belongs to query l: S = Q @ K.T / sqrt(d_k)', _slip_score_matrix_3),
        ('multiplied by sqrt(d_k) instead of dividing', 'scaling by 1/sqrt(d_k) shrinks the scores', _slip_score_matrix_4),
        ('keys not transposed (Q @ K)', 'S = Q @ K.T: transpose the keys so that (L_q, d_k) @ (d_k, L_k) gives (L_q, L_k)', _slip_score_matrix_5),
        ('Q.T @ K (feature by feature)', 'S has one row per query and one column per key', _slip_score_matrix_6),
        ('operator precedence: d_k ** 1/2 is d_k / 2, not sqrt(d_k)', '** binds tighter than /, so d_k ** 1/2 means (d_k ** 1) / 2: write d_k ** 0.5 or np.sqrt(d_k)', _slip_score_matrix_7),
        ('softmax already applied (weights instead of scores)', 'score_matrix returns the raw scaled scores S = Q K^T / sqrt(d_k); the softmax is the next exercise', _slip_score_matrix_8),
        ('float32 and no 1/sqrt(d_k)', 'divide Q K^T by sqrt(d_k), the query/key width Q.shape[-1]', _slip_score_matrix_9),
        ('floor division // instead of /', 'divide with /, not // (floor division rounds every score down)', _slip_score_matrix_10),
        ('cosine similarity instead of the dot product', 'the score is the plain dot product q.k divided by sqrt(d_k); do not divide by the vector norms', _slip_score_matrix_11),
        ("hard-coded sqrt(3) (the worked example's d_k)", 'S is Q @ K.T divided by sqrt(d_k), where d_k is the query/key width Q.shape[-1]', _slip_score_matrix_12),
        ('no return: the scores computed and dropped', 'end score_matrix with `return` and its result', _slip_score_matrix_13),
        ('scales Q in place', 'build a new array or new tensor (x = x / ..., not x /= ...) instead of writing into the inputs in place: the caller still needs them as they were', _slip_score_matrix_14),
    ],
    'softmax_rows': [
        ('softmax over the wrong axis', 'normalise along the last axis: axis=-1', _slip_softmax_rows_0),
        ('overflows on large scores (no max subtraction)', "exp overflows for large scores: subtract each row's own maximum (S.max(axis=-1, keepdims=True)) before exponentiating", _slip_softmax_rows_1),
        ('NaN for a row of -inf', 'a row whose scores are all -inf has maximum -inf, and -inf - (-inf) is NaN: give such rows all-zero weights (for example with np.where)', _slip_softmax_rows_2),
        ("global maximum instead of each row's", "subtract each row's OWN maximum, not the maximum of the whole array: a row far below it underflows to 0 / 0", _slip_softmax_rows_3),
        ('keepdims forgotten: the row maxima and sums broadcast along the wrong axis', 'use keepdims=True so a (L, 1) column broadcasts over each row', _slip_softmax_rows_4),
        ('normalised by the sum of the whole array, not of each row', 'sum over axis=-1 with keepdims=True', _slip_softmax_rows_5),
        ('changes its input in place', 'compute S - max into a new array instead of S -= ...', _slip_softmax_rows_6),
        ('only works on 2-D input', 'softmax_rows must work with any leading axes: normalise along the last axis only', _slip_softmax_rows_7),
        ('axis=1 instead of the last axis', 'normalise along the last axis: axis=-1', _slip_softmax_rows_8),
        ('subtracts the row minimum', "subtract each row's MAXIMUM: then every exponent is <= 0 and exp cannot overflow (after subtracting the row minimum or mean, exp(800) is still inf)", _slip_softmax_rows_9),
        ('-inf replaced by -1e9 (masked row becomes uniform)', '-inf scores get weight exactly 0; a row of only -inf is all zeros', _slip_softmax_rows_10),
        ('transpose trick that only works in 2-D', 'softmax_rows must work with any leading axes: normalise along the last axis only', _slip_softmax_rows_11),
        ('plain exp normalised, NaN turned into zeros', "exp overflows for large scores: subtract each row's own maximum (S.max(axis=-1, keepdims=True)) before exponentiating", _slip_softmax_rows_12),
        ('float32 and softmax over the wrong axis', 'normalise along the last axis: axis=-1', _slip_softmax_rows_13),
        ('each row shifted by its maximum, then divided by the column sums', 'reduce over the last axis, axis=-1 with keepdims=True, for the sum as well as the max (axis=0 or axis=1 is another axis once S has leading axes)', _slip_softmax_rows_14),
        ('maximum over axis=1 (right only for 2-D input)', 'reduce over the last axis, axis=-1 with keepdims=True, for the sum as well as the max (axis=0 or axis=1 is another axis once S has leading axes)', _slip_softmax_rows_15),
        ('log-softmax returned', 'return the weights exp(S - max) / sum, not their logarithms', _slip_softmax_rows_16),
        ('the exponentials never divided by the row sum', 'divide by the sum of its own row, so every row sums to 1', _slip_softmax_rows_17),
        ('-inf scores replaced by 0 before exp', 'a -inf score must get weight exactly 0 (exp(-inf) = 0): leave it as -inf and only fix the maximum of an all -inf row', _slip_softmax_rows_18),
        ("the stub's raise left above the written body", "delete the `raise NotImplementedError()` line: the stub's placeholder still runs before your code (or instead of it)", _slip_softmax_rows_19),
        ('exp2 instead of exp', 'A = exp(S - row max) divided by the sum of its own row (axis=-1)', _slip_softmax_rows_20),
    ],
    'attention': [
        ('no 1/sqrt(d_k) scaling', 'scale the scores by 1/sqrt(d_k) before the softmax', _slip_attention_0),
        ('weights transposed', "Y = A @ V: row l of Y mixes the values with query l's weights", _slip_attention_1),
        ('returns (A, Y)', 'return Y, A in that order', _slip_attention_2),
        ('softmax over the key axis (columns)', "each query's weights (a row of A) must sum to 1: softmax along axis=-1", _slip_attention_3),
        ('divided by d_k instead of sqrt(d_k) (or scaled twice)', 'divide by sqrt(d_k), not d_k: score_matrix already scales the scores, so do not scale them again', _slip_attention_4),
        ('the scores S returned instead of the weights A', 'return the softmax weights A (each row sums to 1), not the scores', _slip_attention_5),
        ('keys used as values (A @ K)', 'Y = A @ V: the output mixes the values, not the keys', _slip_attention_6),
        ('queries matched against themselves (score_matrix(Q, Q))', 'the scores compare the queries against the keys: score_matrix(Q, K)', _slip_attention_7),
        ('normalised over the whole score matrix', "each query's weights (a row of A) must sum to 1: normalise every row on its own, not the whole matrix", _slip_attention_8),
        ('returns only Y', 'return Y, A', _slip_attention_9),
        ('float32 and weights transposed', "Y = A @ V: row l of Y mixes the values with query l's weights", _slip_attention_10),
        ('V @ A instead of A @ V', 'Y = A @ V: (L_q, L_k) @ (L_k, d_v); the weights come first and V as it is, not V @ A or V.T', _slip_attention_11),
        ('score_matrix(K, Q): arguments swapped', 'score_matrix(Q, K): queries first, so row l of S belongs to query l', _slip_attention_12),
        ('Y transposed', 'Y has one row per query, d_v columns', _slip_attention_13),
        ('A returned transposed', 'A has one row per query, one column per key', _slip_attention_14),
        ('softmax applied twice', 'the weights A are the row-wise softmax of the scores of Q against K (your score_matrix and softmax_rows), then Y = A @ V; return Y, A', _slip_attention_15),
    ],
}
