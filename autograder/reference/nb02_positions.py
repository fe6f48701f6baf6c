"""Reference answers for notebook 02, written the way the exercises ask (numpy, float64).

Used by the hidden tests and the project's own tests; never shipped to students.
"""

import numpy as np

ANSWERS = {
    # name: (options, correct letter, explanation shown when the answer is wrong)
    "answer_bag_of_words": ("ABC", "A", "without positions a score depends only on the query and "
                            "the key's content, and `because` meets the same set of keys in both "
                            "orders, so `dog` keeps its weight."),
    "answer_position_signal": ("ABC", "A", "a mask only decides which tokens may be read, and more "
                               "heads only add ways to read them; a position vector added to the "
                               "embedding states where the token is. Masks and heads carry no "
                               "location."),
    "answer_fast_pair": ("ABC", "B", "w_i = 10000^(-2i/d) is largest for i = 0 (1 radian per "
                         "position), so pair 0 turns fastest; pair 15 barely moves."),
    "answer_same_token": ("ABC", "C", "x_l = E[w_l] + p_l: the embedding row is the same, but p_0 "
                          "and p_2 differ, so the two vectors differ; E has one row per word, not "
                          "per position."),
    "answer_offset": ("ABC", "B", "p_l . p_(l+k) = sum_i cos(k w_i): the l cancels, so the "
                      "similarity depends on the offset k only."),
}


def sinusoidal_positions(L, d):
    l = np.arange(L, dtype=np.float64)[:, None]  # (L, 1)
    w = 10000.0 ** (-np.arange(0, d, 2) / d)  # (d/2,)
    P = np.zeros((L, d))
    P[:, 0::2] = np.sin(l * w)
    P[:, 1::2] = np.cos(l * w)
    return P


def embed(token_ids, E, P):
    token_ids = np.asarray(token_ids, dtype=np.int64)
    E, P = np.asarray(E, dtype=np.float64), np.asarray(P, dtype=np.float64)
    return E[token_ids] + P[: len(token_ids)]


def shift_matrix(k, d):
    w = 10000.0 ** (-np.arange(0, d, 2) / d)  # (d/2,)
    M = np.zeros((d, d))
    c, s = np.cos(k * w), np.sin(k * w)
    M[0::2, 0::2] = np.diag(c)
    M[0::2, 1::2] = np.diag(s)
    M[1::2, 0::2] = np.diag(-s)
    M[1::2, 1::2] = np.diag(c)
    return M
