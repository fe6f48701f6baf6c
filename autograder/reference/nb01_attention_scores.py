"""Reference answers for notebook 01, written the way the exercises ask (numpy, float64).

Used by the hidden tests and the project's own tests; never shipped to students.
"""

import numpy as np

ANSWERS = {
    # name: (options, correct letter, explanation shown when the answer is wrong)
    "answer_q_shape": ("ABC", "A", "Q = X W_Q^T has one row per token (L = 4) and d_k = 2 "
                       "columns: (4, 3) @ (3, 2) -> (4, 2)."),
    "answer_scale": ("ABC", "A", "multiplying every score by 10 is like a temperature of 1/10: "
                     "softmax sharpens onto the largest score."),
    "answer_permutation": ("ABC", "B", "without positions each output row depends only on its "
                           "own query and the SET of keys and values, so the rows move with "
                           "the tokens."),
    "answer_keys_values": ("ABC", "B", "the weights come from the query-key scores; the values "
                           "decide what comes back once the weights are set."),
}


def project_qkv(X, W_Q, W_K, W_V):
    X, W_Q, W_K, W_V = (np.asarray(a, dtype=np.float64) for a in (X, W_Q, W_K, W_V))
    return X @ W_Q.T, X @ W_K.T, X @ W_V.T


def score_matrix(Q, K):
    Q, K = np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64)
    return Q @ K.T / np.sqrt(Q.shape[-1])


def softmax_rows(S):
    S = np.asarray(S, dtype=np.float64)
    row_max = S.max(axis=-1, keepdims=True)
    safe_max = np.where(np.isfinite(row_max), row_max, 0.0)
    e = np.exp(S - safe_max)
    total = e.sum(axis=-1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def attention(Q, K, V):
    V = np.asarray(V, dtype=np.float64)
    A = softmax_rows(score_matrix(Q, K))
    return A @ V, A
