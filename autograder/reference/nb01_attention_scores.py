"""Reference answers for notebook 01_attention_scores: generated, do not edit.

Made by scripts/release.py (`make release`) from the answer cells of
solutions/01_attention_scores/01_attention_scores.ipynb. Used by the hidden tests and the project's
own tests; never shipped to students.
"""


# ruff: noqa: E501, I001
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
    A = softmax_rows(score_matrix(Q, K))  # (L_q, L_k)
    Y = A @ V  # (L_q, L_k) @ (L_k, d_v) -> (L_q, d_v)
    return Y, A
