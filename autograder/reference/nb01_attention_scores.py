"""Reference answers for notebook 01, written the way the exercises ask (numpy, float64).

Used by the hidden tests and the project's own tests; never shipped to students.
"""

import numpy as np

ANSWERS = {
    # name: (options, correct letter, explanation shown when the answer is wrong)
    "answer_q_shape": ("ABC", "B", "Q = X W_Q^T is (4, 3) @ (3, 2) -> (4, 2): one row per token, "
                       "d_k = 2 columns; (2, 4) would be W_Q X^T, one column per token."),
    "answer_score_entry": ("ABC", "A", "q_2 = (0, 2, 0) and k_3 = (1, 1, 0) give q_2 . k_3 = 2, "
                           "divided by sqrt(3): about 1.155; 2.000 forgets the scaling, 2.887 is "
                           "numpy's S[2, 3]."),
    "answer_scale": ("ABC", "C", "multiplying the scores by 10 is a temperature of 1/10: the gaps "
                     "between scores grow tenfold, so softmax sharpens onto the largest score. "
                     "Only adding a constant leaves it unchanged."),
    "answer_permutation": ("ABC", "B", "without positions an output row depends only on its own "
                           "query and the SET of keys and values, so report keeps its vector: the "
                           "rows move with the tokens."),
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
