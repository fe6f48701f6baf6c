"""Reference answers for notebook 02_positions: generated, do not edit.

Made by scripts/release.py (`make release`) from the answer cells of
solutions/02_positions/02_positions.ipynb. Used by the hidden tests and the project's
own tests; never shipped to students.
"""


# ruff: noqa: E501, I001
import numpy as np
from attnbook.shapes import require_integer, require_ndim, require_same_size


# name: (options, correct letter, explanation shown when the answer is wrong)
ANSWERS = {
    'answer_bag_of_words': ('ABC', 'A', "without positions a score depends only on the query and the key's content, and `because` meets the same set of keys in both orders, so `dog` keeps its weight."),
    'answer_position_signal': ('ABC', 'A', 'a mask only decides which tokens may be read, and more heads only add ways to read them; a position vector added to the embedding states where the token is. Masks and heads carry no location.'),
    'answer_sinusoid_slice': ('ABC', 'C', 'w_0 = 1 and w_1 = 10000^(-2/4) = 0.01, so p_2 = (sin 2, cos 2, sin 0.02, cos 0.02); 0.20 and 0.98 come from 10000^(-1/4), the second row from angles in degrees.'),
    'answer_fast_pair': ('ABC', 'B', 'w_i = 10000^(-2i/d) is largest for i = 0 (1 radian per position), so pair 0 turns fastest; pair 15 barely moves.'),
    'answer_same_token': ('ABC', 'C', 'x_l = E[w_l] + p_l: the embedding row is the same, but p_0 and p_2 differ, so the two vectors differ; E has one row per word, not per position.'),
    'answer_offset': ('ABC', 'B', 'p_l . p_(l+k) = sum_i cos(k w_i): the l cancels, so the similarity depends on the offset k only.'),
}


# -- from the answer cell sinusoidal_positions
def sinusoidal_positions(L, d):
    """The fixed sinusoidal position table.

    Args:
        L: number of positions (rows), positions 0 .. L-1.
        d: model width, a positive even number.

    Returns:
        P: (L, d) float64 with P[l, 2i] = sin(l w_i), P[l, 2i+1] = cos(l w_i),
        w_i = 10000 ** (-2i / d).
    """
    L = require_integer("L", L, 0, "(the number of positions)")
    d = require_integer("d", d, 1, "(the model width)")
    if d % 2 != 0:
        raise ValueError(f"d must be a positive even number (sin/cos pairs); got d={d}")
    l = np.arange(L, dtype=np.float64)[:, None]  # (L, 1)
    w = 10000.0 ** (-np.arange(0, d, 2) / d)  # (d/2,): 2i for i = 0 .. d/2-1
    P = np.zeros((L, d))
    P[:, 0::2] = np.sin(l * w)  # (L, d/2) broadcast from (L, 1) * (d/2,)
    P[:, 1::2] = np.cos(l * w)
    return P


# -- from the answer cell embed
def embed(token_ids, E, P):
    """Token embeddings plus absolute position vectors.

    Args:
        token_ids: (L,) integer ids, token l at position l (a list is fine).
        E: (V, d) embedding table, one row per vocabulary entry.
        P: (L_max, d) position table with L_max >= L.

    Returns:
        X: (L, d) with X[l] = E[token_ids[l]] + P[l].
    """
    token_ids = np.asarray(token_ids)
    if token_ids.size == 0:  # an empty list has a float dtype
        token_ids = token_ids.astype(np.int64)
    E, P = np.asarray(E, dtype=np.float64), np.asarray(P, dtype=np.float64)
    require_ndim("token_ids", token_ids, 1, "(L,)")
    require_ndim("E", E, 2, "(V, d)")
    require_ndim("P", P, 2, "(L_max, d)")
    require_same_size("E", E, 1, "P", P, 1, "the model width d")
    if len(token_ids) > P.shape[0]:
        raise ValueError(f"P has shape {tuple(P.shape)}: too few positions for "
                         f"token_ids of shape {token_ids.shape}")
    if token_ids.dtype.kind not in "iu":
        raise ValueError(f"token_ids must be integer ids; got dtype {token_ids.dtype}")
    if token_ids.size and (token_ids.min() < 0 or token_ids.max() >= E.shape[0]):
        raise ValueError(f"token_ids must lie in 0 .. {E.shape[0] - 1} for E of shape "
                         f"{tuple(E.shape)}; got ids from {token_ids.min()} to "
                         f"{token_ids.max()}")
    L = len(token_ids)
    return E[token_ids] + P[:L]  # (L, d) + (L, d)


# -- from the answer cell shift_matrix
def shift_matrix(k, d):
    """The linear map taking every position vector p_l to p_(l+k).

    Args:
        k: integer step (negative moves back).
        d: model width, a positive even number.

    Returns:
        M: (d, d) float64, block diagonal with block i =
        [[cos(k w_i), sin(k w_i)], [-sin(k w_i), cos(k w_i)]] on rows/columns (2i, 2i+1),
        so that M @ p_l == p_(l+k).
    """
    d = require_integer("d", d, 1, "(the model width)")
    if d % 2 != 0:
        raise ValueError(f"d must be a positive even number (sin/cos pairs); got d={d}")
    w = 10000.0 ** (-np.arange(0, d, 2) / d)  # (d/2,)
    c, s = np.cos(k * w), np.sin(k * w)  # (d/2,) each
    M = np.zeros((d, d))
    for i in range(d // 2):
        M[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c[i], s[i]], [-s[i], c[i]]]
    return M
