"""Reference answers for notebook 02_positions: generated, do not edit.

Made by scripts/release.py (`make release`) from the answer cells of
solutions/02_positions/02_positions.ipynb. Used by the hidden tests and the project's
own tests; never shipped to students.
"""


# ruff: noqa: E501, I001, F841, UP034
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
    # Key idea: Pair i turns at its own frequency w_i = 10000^(-2i/d): its even feature holds sin(l
    #   w_i) and its odd one cos(l w_i). Broadcast the positions (L, 1) against the frequencies
    #   (d/2,) to fill every pair at once.
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
    # Key idea: Look each token up (row token_ids[l] of E) and add the first L rows of the position
    #   table: meaning plus place, one row per token.
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
    k = require_integer("k", k, meaning="(the step; negative moves back)")
    d = require_integer("d", d, 1, "(the model width)")
    if d % 2 != 0:
        raise ValueError(f"d must be a positive even number (sin/cos pairs); got d={d}")
    # Key idea: Moving k positions turns pair i by the angle k w_i, wherever it starts: M is block
    #   diagonal, one 2 x 2 rotation per pair, made of cos(k w_i) and sin(k w_i).
    w = 10000.0 ** (-np.arange(0, d, 2) / d)  # (d/2,)
    c, s = np.cos(k * w), np.sin(k * w)  # (d/2,) each
    M = np.zeros((d, d))
    for i in range(d // 2):
        M[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c[i], s[i]], [-s[i], c[i]]]
    return M


# -- the catalogued mistakes (autograder/mistakes/), resolved: the hidden trials run
# them on their inputs to name the slip a wrong output matches
# sinusoidal_positions: exponent i/d instead of 2i/d
def _slip_sinusoidal_positions_0(L, d):
    L = require_integer('L', L, 0, '(the number of positions)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    l = np.arange(L)[:, None]
    w = 10000.0 ** (-np.arange(d // 2) / d)
    P = np.zeros((L, d))
    P[:, 0::2] = np.sin(l * w)
    P[:, 1::2] = np.cos(l * w)
    return P

# sinusoidal_positions: frequency taken from the feature index j (10000^(-j/d)) for cos as well
def _slip_sinusoidal_positions_1(L, d):
    L = require_integer('L', L, 0, '(the number of positions)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    P = np.zeros((L, d))
    for l in range(L):
        for j in range(d):
            w = 10000.0 ** (-j / d)
            P[l, j] = np.sin(l * w) if j % 2 == 0 else np.cos(l * w)
    return P

# sinusoidal_positions: sin and cos swapped
def _slip_sinusoidal_positions_2(L, d):
    L = require_integer('L', L, 0, '(the number of positions)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    l = np.arange(L)[:, None]
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    P = np.zeros((L, d))
    P[:, 0::2] = np.cos(l * w)
    P[:, 1::2] = np.sin(l * w)
    return P

# sinusoidal_positions: sin and cos in two halves instead of interleaved
def _slip_sinusoidal_positions_3(L, d):
    L = require_integer('L', L, 0, '(the number of positions)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    l = np.arange(L, dtype=np.float64)[:, None]
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    P = np.zeros((L, d))
    P[:, :d // 2] = np.sin(l * w)
    P[:, d // 2:] = np.cos(l * w)
    return P

# sinusoidal_positions: positions starting at 1
def _slip_sinusoidal_positions_4(L, d):
    L = require_integer('L', L, 0, '(the number of positions)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    l = np.arange(1, L + 1)[:, None]
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    P = np.zeros((L, d))
    P[:, 0::2] = np.sin(l * w)
    P[:, 1::2] = np.cos(l * w)
    return P

# sinusoidal_positions: positive exponent (10000^(+2i/d))
def _slip_sinusoidal_positions_5(L, d):
    L = require_integer('L', L, 0, '(the number of positions)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    l = np.arange(L)[:, None]
    w = 10000.0 ** (np.arange(0, d, 2) / d)
    P = np.zeros((L, d))
    P[:, 0::2] = np.sin(l * w)
    P[:, 1::2] = np.cos(l * w)
    return P

# sinusoidal_positions: exponent 4i/d: the step of 2 counted twice
def _slip_sinusoidal_positions_6(L, d):
    L = require_integer('L', L, 0, '(the number of positions)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    l = np.arange(L)[:, None]
    i = np.arange(0, d, 2)
    w = 1.0 / 10000.0 ** (2 * i / d)
    P = np.zeros((L, d))
    P[:, 0::2] = np.sin(l * w)
    P[:, 1::2] = np.cos(l * w)
    return P

# sinusoidal_positions: exponents spread with np.linspace(0, 1, d // 2) (the last one 1, not (d-2)/d)
def _slip_sinusoidal_positions_7(L, d):
    L = require_integer('L', L, 0, '(the number of positions)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    l = np.arange(L, dtype=np.float64)[:, None]
    w = 10000.0 ** (-np.linspace(0, 1, d // 2))
    P = np.zeros((L, d))
    P[:, 0::2] = np.sin(l * w)
    P[:, 1::2] = np.cos(l * w)
    return P

# sinusoidal_positions: table transposed (d, L)
def _slip_sinusoidal_positions_8(L, d):
    L = require_integer('L', L, 0, '(the number of positions)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    l = np.arange(L)[None, :]
    w = 10000.0 ** (-np.arange(0, d, 2) / d)[:, None]
    P = np.zeros((d, L))
    P[0::2] = np.sin(w * l)
    P[1::2] = np.cos(w * l)
    return P

# sinusoidal_positions: sin in every column
def _slip_sinusoidal_positions_9(L, d):
    L = require_integer('L', L, 0, '(the number of positions)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    l = np.arange(L)[:, None]
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    P = np.zeros((L, d))
    P[:, 0::2] = np.sin(l * w)
    P[:, 1::2] = np.sin(l * w)
    return P

# sinusoidal_positions: one frequency per feature (w of length d)
def _slip_sinusoidal_positions_10(L, d):
    L = require_integer('L', L, 0, '(the number of positions)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    l = np.arange(L)[:, None]
    w = 10000.0 ** (-np.arange(d) / d)
    P = np.zeros((L, d))
    P[:, 0::2] = np.sin(l * w)
    P[:, 1::2] = np.cos(l * w)
    return P

# sinusoidal_positions: built in float32
def _slip_sinusoidal_positions_11(L, d):
    L = require_integer('L', L, 0, '(the number of positions)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    l = np.arange(L, dtype=np.float32)[:, None]
    w = (10000.0 ** (-np.arange(0, d, 2) / d)).astype(np.float32)
    P = np.zeros((L, d), dtype=np.float32)
    P[:, 0::2] = np.sin(l * w)
    P[:, 1::2] = np.cos(l * w)
    return P

# sinusoidal_positions: base 1000 instead of 10000
def _slip_sinusoidal_positions_12(L, d):
    L = require_integer('L', L, 0, '(the number of positions)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    l = np.arange(L)[:, None]
    w = 1000.0 ** (-np.arange(0, d, 2) / d)
    P = np.zeros((L, d))
    P[:, 0::2] = np.sin(l * w)
    P[:, 1::2] = np.cos(l * w)
    return P

# sinusoidal_positions: positions normalised to [0, 1) (l / L)
def _slip_sinusoidal_positions_13(L, d):
    L = require_integer('L', L, 0, '(the number of positions)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    l = (np.arange(L) / L)[:, None]
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    P = np.zeros((L, d))
    P[:, 0::2] = np.sin(l * w)
    P[:, 1::2] = np.cos(l * w)
    return P

# sinusoidal_positions: L instead of d in the exponent
def _slip_sinusoidal_positions_14(L, d):
    L = require_integer('L', L, 0, '(the number of positions)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    l = np.arange(L)[:, None]
    w = 10000.0 ** (-np.arange(0, d, 2) / L)
    P = np.zeros((L, d))
    P[:, 0::2] = np.sin(l * w)
    P[:, 1::2] = np.cos(l * w)
    return P

# sinusoidal_positions: hard-coded d = 4 (the lecture's curves)
def _slip_sinusoidal_positions_15(L, d):
    L = require_integer('L', L, 0, '(the number of positions)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    l = np.arange(L, dtype=np.float64)[:, None]
    w = 10000.0 ** (-np.arange(0, 4, 2) / d)
    P = np.zeros((L, d))
    P[:, 0::2] = np.sin(l * w)
    P[:, 1::2] = np.cos(l * w)
    return P

# sinusoidal_positions: the last position row left zero (a loop over range(L - 1))
def _slip_sinusoidal_positions_16(L, d):
    L = require_integer('L', L, 0, '(the number of positions)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    P = np.zeros((L, d))
    for l in range(L - 1):
        P[l, 0::2], P[l, 1::2] = (np.sin(l * w), np.cos(l * w))
    return P

# sinusoidal_positions: the last pair left zero (a loop over range(d // 2 - 1))
def _slip_sinusoidal_positions_17(L, d):
    L = require_integer('L', L, 0, '(the number of positions)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    P = np.zeros((L, d))
    l = np.arange(L)
    for i in range(d // 2 - 1):
        w = 10000.0 ** (-2 * i / d)
        P[:, 2 * i], P[:, 2 * i + 1] = (np.sin(l * w), np.cos(l * w))
    return P

# sinusoidal_positions: missing parentheses: 1 / 10000 ** (2i) / d
def _slip_sinusoidal_positions_18(L, d):
    L = require_integer('L', L, 0, '(the number of positions)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    l = np.arange(L, dtype=np.float64)[:, None]
    w = 1 / 10000.0 ** np.arange(0, d, 2) / d
    P = np.zeros((L, d))
    P[:, 0::2] = np.sin(l * w)
    P[:, 1::2] = np.cos(l * w)
    return P

# sinusoidal_positions: positions from np.linspace(0, L, L)
def _slip_sinusoidal_positions_19(L, d):
    L = require_integer('L', L, 0, '(the number of positions)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    l = np.linspace(0, L, L)[:, None]
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    P = np.zeros((L, d))
    P[:, 0::2] = np.sin(l * w)
    P[:, 1::2] = np.cos(l * w)
    return P

# sinusoidal_positions: sin(l) * w instead of sin(l * w)
def _slip_sinusoidal_positions_20(L, d):
    L = require_integer('L', L, 0, '(the number of positions)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    l = np.arange(L, dtype=np.float64)[:, None]
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    P = np.zeros((L, d))
    P[:, 0::2] = np.sin(l) * w
    P[:, 1::2] = np.cos(l) * w
    return P

# embed: positions not added
def _slip_embed_0(token_ids, E, P):
    token_ids = np.asarray(token_ids)
    if token_ids.size == 0:
        token_ids = token_ids.astype(np.int64)
    E, P = (np.asarray(E, dtype=np.float64), np.asarray(P, dtype=np.float64))
    require_ndim('token_ids', token_ids, 1, '(L,)')
    require_ndim('E', E, 2, '(V, d)')
    require_ndim('P', P, 2, '(L_max, d)')
    require_same_size('E', E, 1, 'P', P, 1, 'the model width d')
    if len(token_ids) > P.shape[0]:
        raise ValueError(f'P has shape {tuple(P.shape)}: too few positions for token_ids of shape {token_ids.shape}')
    if token_ids.dtype.kind not in 'iu':
        raise ValueError(f'token_ids must be integer ids; got dtype {token_ids.dtype}')
    if token_ids.size and (token_ids.min() < 0 or token_ids.max() >= E.shape[0]):
        raise ValueError(f'token_ids must lie in 0 .. {E.shape[0] - 1} for E of shape {tuple(E.shape)}; got ids from {token_ids.min()} to {token_ids.max()}')
    return E[token_ids]

# embed: the whole table P added
def _slip_embed_1(token_ids, E, P):
    token_ids = np.asarray(token_ids)
    if token_ids.size == 0:
        token_ids = token_ids.astype(np.int64)
    E, P = (np.asarray(E, dtype=np.float64), np.asarray(P, dtype=np.float64))
    require_ndim('token_ids', token_ids, 1, '(L,)')
    require_ndim('E', E, 2, '(V, d)')
    require_ndim('P', P, 2, '(L_max, d)')
    require_same_size('E', E, 1, 'P', P, 1, 'the model width d')
    if len(token_ids) > P.shape[0]:
        raise ValueError(f'P has shape {tuple(P.shape)}: too few positions for token_ids of shape {token_ids.shape}')
    if token_ids.dtype.kind not in 'iu':
        raise ValueError(f'token_ids must be integer ids; got dtype {token_ids.dtype}')
    if token_ids.size and (token_ids.min() < 0 or token_ids.max() >= E.shape[0]):
        raise ValueError(f'token_ids must lie in 0 .. {E.shape[0] - 1} for E of shape {tuple(E.shape)}; got ids from {token_ids.min()} to {token_ids.max()}')
    return E[token_ids] + P

# embed: P indexed by the token ids instead of the positions
def _slip_embed_2(token_ids, E, P):
    token_ids = np.asarray(token_ids)
    if token_ids.size == 0:
        token_ids = token_ids.astype(np.int64)
    E, P = (np.asarray(E, dtype=np.float64), np.asarray(P, dtype=np.float64))
    require_ndim('token_ids', token_ids, 1, '(L,)')
    require_ndim('E', E, 2, '(V, d)')
    require_ndim('P', P, 2, '(L_max, d)')
    require_same_size('E', E, 1, 'P', P, 1, 'the model width d')
    if len(token_ids) > P.shape[0]:
        raise ValueError(f'P has shape {tuple(P.shape)}: too few positions for token_ids of shape {token_ids.shape}')
    if token_ids.dtype.kind not in 'iu':
        raise ValueError(f'token_ids must be integer ids; got dtype {token_ids.dtype}')
    if token_ids.size and (token_ids.min() < 0 or token_ids.max() >= E.shape[0]):
        raise ValueError(f'token_ids must lie in 0 .. {E.shape[0] - 1} for E of shape {tuple(E.shape)}; got ids from {token_ids.min()} to {token_ids.max()}')
    return E[token_ids] + P[token_ids]

# embed: positions starting at 1
def _slip_embed_3(token_ids, E, P):
    token_ids = np.asarray(token_ids)
    if token_ids.size == 0:
        token_ids = token_ids.astype(np.int64)
    E, P = (np.asarray(E, dtype=np.float64), np.asarray(P, dtype=np.float64))
    require_ndim('token_ids', token_ids, 1, '(L,)')
    require_ndim('E', E, 2, '(V, d)')
    require_ndim('P', P, 2, '(L_max, d)')
    require_same_size('E', E, 1, 'P', P, 1, 'the model width d')
    if len(token_ids) > P.shape[0]:
        raise ValueError(f'P has shape {tuple(P.shape)}: too few positions for token_ids of shape {token_ids.shape}')
    if token_ids.dtype.kind not in 'iu':
        raise ValueError(f'token_ids must be integer ids; got dtype {token_ids.dtype}')
    if token_ids.size and (token_ids.min() < 0 or token_ids.max() >= E.shape[0]):
        raise ValueError(f'token_ids must lie in 0 .. {E.shape[0] - 1} for E of shape {tuple(E.shape)}; got ids from {token_ids.min()} to {token_ids.max()}')
    L = len(token_ids)
    return E[token_ids] + P[1:L + 1]

# embed: embedding and position concatenated
def _slip_embed_4(token_ids, E, P):
    token_ids = np.asarray(token_ids)
    if token_ids.size == 0:
        token_ids = token_ids.astype(np.int64)
    E, P = (np.asarray(E, dtype=np.float64), np.asarray(P, dtype=np.float64))
    require_ndim('token_ids', token_ids, 1, '(L,)')
    require_ndim('E', E, 2, '(V, d)')
    require_ndim('P', P, 2, '(L_max, d)')
    require_same_size('E', E, 1, 'P', P, 1, 'the model width d')
    if len(token_ids) > P.shape[0]:
        raise ValueError(f'P has shape {tuple(P.shape)}: too few positions for token_ids of shape {token_ids.shape}')
    if token_ids.dtype.kind not in 'iu':
        raise ValueError(f'token_ids must be integer ids; got dtype {token_ids.dtype}')
    if token_ids.size and (token_ids.min() < 0 or token_ids.max() >= E.shape[0]):
        raise ValueError(f'token_ids must lie in 0 .. {E.shape[0] - 1} for E of shape {tuple(E.shape)}; got ids from {token_ids.min()} to {token_ids.max()}')
    L = len(token_ids)
    return np.concatenate([E[token_ids], P[:L]], axis=1)

# embed: E indexed by the positions 0 .. L-1 instead of the token ids
def _slip_embed_5(token_ids, E, P):
    token_ids = np.asarray(token_ids)
    if token_ids.size == 0:
        token_ids = token_ids.astype(np.int64)
    E, P = (np.asarray(E, dtype=np.float64), np.asarray(P, dtype=np.float64))
    require_ndim('token_ids', token_ids, 1, '(L,)')
    require_ndim('E', E, 2, '(V, d)')
    require_ndim('P', P, 2, '(L_max, d)')
    require_same_size('E', E, 1, 'P', P, 1, 'the model width d')
    if len(token_ids) > P.shape[0]:
        raise ValueError(f'P has shape {tuple(P.shape)}: too few positions for token_ids of shape {token_ids.shape}')
    if token_ids.dtype.kind not in 'iu':
        raise ValueError(f'token_ids must be integer ids; got dtype {token_ids.dtype}')
    if token_ids.size and (token_ids.min() < 0 or token_ids.max() >= E.shape[0]):
        raise ValueError(f'token_ids must lie in 0 .. {E.shape[0] - 1} for E of shape {tuple(E.shape)}; got ids from {token_ids.min()} to {token_ids.max()}')
    L = len(token_ids)
    return E[:L] + P[:L]

# embed: one position row P[L] added to every token
def _slip_embed_6(token_ids, E, P):
    token_ids = np.asarray(token_ids)
    if token_ids.size == 0:
        token_ids = token_ids.astype(np.int64)
    E, P = (np.asarray(E, dtype=np.float64), np.asarray(P, dtype=np.float64))
    require_ndim('token_ids', token_ids, 1, '(L,)')
    require_ndim('E', E, 2, '(V, d)')
    require_ndim('P', P, 2, '(L_max, d)')
    require_same_size('E', E, 1, 'P', P, 1, 'the model width d')
    if len(token_ids) > P.shape[0]:
        raise ValueError(f'P has shape {tuple(P.shape)}: too few positions for token_ids of shape {token_ids.shape}')
    if token_ids.dtype.kind not in 'iu':
        raise ValueError(f'token_ids must be integer ids; got dtype {token_ids.dtype}')
    if token_ids.size and (token_ids.min() < 0 or token_ids.max() >= E.shape[0]):
        raise ValueError(f'token_ids must lie in 0 .. {E.shape[0] - 1} for E of shape {tuple(E.shape)}; got ids from {token_ids.min()} to {token_ids.max()}')
    L = len(token_ids)
    return E[token_ids] + P[L]

# embed: the last L rows of P
def _slip_embed_7(token_ids, E, P):
    token_ids = np.asarray(token_ids)
    if token_ids.size == 0:
        token_ids = token_ids.astype(np.int64)
    E, P = (np.asarray(E, dtype=np.float64), np.asarray(P, dtype=np.float64))
    require_ndim('token_ids', token_ids, 1, '(L,)')
    require_ndim('E', E, 2, '(V, d)')
    require_ndim('P', P, 2, '(L_max, d)')
    require_same_size('E', E, 1, 'P', P, 1, 'the model width d')
    if len(token_ids) > P.shape[0]:
        raise ValueError(f'P has shape {tuple(P.shape)}: too few positions for token_ids of shape {token_ids.shape}')
    if token_ids.dtype.kind not in 'iu':
        raise ValueError(f'token_ids must be integer ids; got dtype {token_ids.dtype}')
    if token_ids.size and (token_ids.min() < 0 or token_ids.max() >= E.shape[0]):
        raise ValueError(f'token_ids must lie in 0 .. {E.shape[0] - 1} for E of shape {tuple(E.shape)}; got ids from {token_ids.min()} to {token_ids.max()}')
    L = len(token_ids)
    return E[token_ids] + P[-L:]

# embed: embedding multiplied by the position instead of added
def _slip_embed_8(token_ids, E, P):
    token_ids = np.asarray(token_ids)
    if token_ids.size == 0:
        token_ids = token_ids.astype(np.int64)
    E, P = (np.asarray(E, dtype=np.float64), np.asarray(P, dtype=np.float64))
    require_ndim('token_ids', token_ids, 1, '(L,)')
    require_ndim('E', E, 2, '(V, d)')
    require_ndim('P', P, 2, '(L_max, d)')
    require_same_size('E', E, 1, 'P', P, 1, 'the model width d')
    if len(token_ids) > P.shape[0]:
        raise ValueError(f'P has shape {tuple(P.shape)}: too few positions for token_ids of shape {token_ids.shape}')
    if token_ids.dtype.kind not in 'iu':
        raise ValueError(f'token_ids must be integer ids; got dtype {token_ids.dtype}')
    if token_ids.size and (token_ids.min() < 0 or token_ids.max() >= E.shape[0]):
        raise ValueError(f'token_ids must lie in 0 .. {E.shape[0] - 1} for E of shape {tuple(E.shape)}; got ids from {token_ids.min()} to {token_ids.max()}')
    L = len(token_ids)
    return E[token_ids] * P[:L]

# embed: adds into P in place (P[:L] is a view)
def _slip_embed_9(token_ids, E, P):
    token_ids = np.asarray(token_ids)
    if token_ids.size == 0:
        token_ids = token_ids.astype(np.int64)
    E, P = (np.asarray(E, dtype=np.float64), np.asarray(P, dtype=np.float64))
    require_ndim('token_ids', token_ids, 1, '(L,)')
    require_ndim('E', E, 2, '(V, d)')
    require_ndim('P', P, 2, '(L_max, d)')
    require_same_size('E', E, 1, 'P', P, 1, 'the model width d')
    if len(token_ids) > P.shape[0]:
        raise ValueError(f'P has shape {tuple(P.shape)}: too few positions for token_ids of shape {token_ids.shape}')
    if token_ids.dtype.kind not in 'iu':
        raise ValueError(f'token_ids must be integer ids; got dtype {token_ids.dtype}')
    if token_ids.size and (token_ids.min() < 0 or token_ids.max() >= E.shape[0]):
        raise ValueError(f'token_ids must lie in 0 .. {E.shape[0] - 1} for E of shape {tuple(E.shape)}; got ids from {token_ids.min()} to {token_ids.max()}')
    X = P[:len(token_ids)]
    X += E[token_ids]
    return X

# embed: token ids shifted by one (E[token_ids - 1])
def _slip_embed_10(token_ids, E, P):
    token_ids = np.asarray(token_ids)
    if token_ids.size == 0:
        token_ids = token_ids.astype(np.int64)
    E, P = (np.asarray(E, dtype=np.float64), np.asarray(P, dtype=np.float64))
    require_ndim('token_ids', token_ids, 1, '(L,)')
    require_ndim('E', E, 2, '(V, d)')
    require_ndim('P', P, 2, '(L_max, d)')
    require_same_size('E', E, 1, 'P', P, 1, 'the model width d')
    if len(token_ids) > P.shape[0]:
        raise ValueError(f'P has shape {tuple(P.shape)}: too few positions for token_ids of shape {token_ids.shape}')
    if token_ids.dtype.kind not in 'iu':
        raise ValueError(f'token_ids must be integer ids; got dtype {token_ids.dtype}')
    if token_ids.size and (token_ids.min() < 0 or token_ids.max() >= E.shape[0]):
        raise ValueError(f'token_ids must lie in 0 .. {E.shape[0] - 1} for E of shape {tuple(E.shape)}; got ids from {token_ids.min()} to {token_ids.max()}')
    L = len(token_ids)
    return E[np.asarray(token_ids) - 1] + P[:L]

# embed: float32 and the positions starting at 1
def _slip_embed_11(token_ids, E, P):
    token_ids = np.asarray(token_ids)
    if token_ids.size == 0:
        token_ids = token_ids.astype(np.int64)
    E, P = (np.asarray(E, dtype=np.float64), np.asarray(P, dtype=np.float64))
    require_ndim('token_ids', token_ids, 1, '(L,)')
    require_ndim('E', E, 2, '(V, d)')
    require_ndim('P', P, 2, '(L_max, d)')
    require_same_size('E', E, 1, 'P', P, 1, 'the model width d')
    if len(token_ids) > P.shape[0]:
        raise ValueError(f'P has shape {tuple(P.shape)}: too few positions for token_ids of shape {token_ids.shape}')
    if token_ids.dtype.kind not in 'iu':
        raise ValueError(f'token_ids must be integer ids; got dtype {token_ids.dtype}')
    if token_ids.size and (token_ids.min() < 0 or token_ids.max() >= E.shape[0]):
        raise ValueError(f'token_ids must lie in 0 .. {E.shape[0] - 1} for E of shape {tuple(E.shape)}; got ids from {token_ids.min()} to {token_ids.max()}')
    import torch
    X = torch.Tensor(E[token_ids]) + torch.Tensor(P[1:len(token_ids) + 1])
    return X

# embed: hard-coded 3 positions (the worked example's length)
def _slip_embed_12(token_ids, E, P):
    token_ids = np.asarray(token_ids)
    if token_ids.size == 0:
        token_ids = token_ids.astype(np.int64)
    E, P = (np.asarray(E, dtype=np.float64), np.asarray(P, dtype=np.float64))
    require_ndim('token_ids', token_ids, 1, '(L,)')
    require_ndim('E', E, 2, '(V, d)')
    require_ndim('P', P, 2, '(L_max, d)')
    require_same_size('E', E, 1, 'P', P, 1, 'the model width d')
    if len(token_ids) > P.shape[0]:
        raise ValueError(f'P has shape {tuple(P.shape)}: too few positions for token_ids of shape {token_ids.shape}')
    if token_ids.dtype.kind not in 'iu':
        raise ValueError(f'token_ids must be integer ids; got dtype {token_ids.dtype}')
    if token_ids.size and (token_ids.min() < 0 or token_ids.max() >= E.shape[0]):
        raise ValueError(f'token_ids must lie in 0 .. {E.shape[0] - 1} for E of shape {tuple(E.shape)}; got ids from {token_ids.min()} to {token_ids.max()}')
    return E[token_ids] + P[:3]

# embed: embedding scaled by sqrt(d)
def _slip_embed_13(token_ids, E, P):
    token_ids = np.asarray(token_ids)
    if token_ids.size == 0:
        token_ids = token_ids.astype(np.int64)
    E, P = (np.asarray(E, dtype=np.float64), np.asarray(P, dtype=np.float64))
    require_ndim('token_ids', token_ids, 1, '(L,)')
    require_ndim('E', E, 2, '(V, d)')
    require_ndim('P', P, 2, '(L_max, d)')
    require_same_size('E', E, 1, 'P', P, 1, 'the model width d')
    if len(token_ids) > P.shape[0]:
        raise ValueError(f'P has shape {tuple(P.shape)}: too few positions for token_ids of shape {token_ids.shape}')
    if token_ids.dtype.kind not in 'iu':
        raise ValueError(f'token_ids must be integer ids; got dtype {token_ids.dtype}')
    if token_ids.size and (token_ids.min() < 0 or token_ids.max() >= E.shape[0]):
        raise ValueError(f'token_ids must lie in 0 .. {E.shape[0] - 1} for E of shape {tuple(E.shape)}; got ids from {token_ids.min()} to {token_ids.max()}')
    return E[token_ids] * np.sqrt(E.shape[1]) + P[:len(token_ids)]

# embed: embedding and position averaged
def _slip_embed_14(token_ids, E, P):
    token_ids = np.asarray(token_ids)
    if token_ids.size == 0:
        token_ids = token_ids.astype(np.int64)
    E, P = (np.asarray(E, dtype=np.float64), np.asarray(P, dtype=np.float64))
    require_ndim('token_ids', token_ids, 1, '(L,)')
    require_ndim('E', E, 2, '(V, d)')
    require_ndim('P', P, 2, '(L_max, d)')
    require_same_size('E', E, 1, 'P', P, 1, 'the model width d')
    if len(token_ids) > P.shape[0]:
        raise ValueError(f'P has shape {tuple(P.shape)}: too few positions for token_ids of shape {token_ids.shape}')
    if token_ids.dtype.kind not in 'iu':
        raise ValueError(f'token_ids must be integer ids; got dtype {token_ids.dtype}')
    if token_ids.size and (token_ids.min() < 0 or token_ids.max() >= E.shape[0]):
        raise ValueError(f'token_ids must lie in 0 .. {E.shape[0] - 1} for E of shape {tuple(E.shape)}; got ids from {token_ids.min()} to {token_ids.max()}')
    return (E[token_ids] + P[:len(token_ids)]) / 2

# embed: position subtracted
def _slip_embed_15(token_ids, E, P):
    token_ids = np.asarray(token_ids)
    if token_ids.size == 0:
        token_ids = token_ids.astype(np.int64)
    E, P = (np.asarray(E, dtype=np.float64), np.asarray(P, dtype=np.float64))
    require_ndim('token_ids', token_ids, 1, '(L,)')
    require_ndim('E', E, 2, '(V, d)')
    require_ndim('P', P, 2, '(L_max, d)')
    require_same_size('E', E, 1, 'P', P, 1, 'the model width d')
    if len(token_ids) > P.shape[0]:
        raise ValueError(f'P has shape {tuple(P.shape)}: too few positions for token_ids of shape {token_ids.shape}')
    if token_ids.dtype.kind not in 'iu':
        raise ValueError(f'token_ids must be integer ids; got dtype {token_ids.dtype}')
    if token_ids.size and (token_ids.min() < 0 or token_ids.max() >= E.shape[0]):
        raise ValueError(f'token_ids must lie in 0 .. {E.shape[0] - 1} for E of shape {tuple(E.shape)}; got ids from {token_ids.min()} to {token_ids.max()}')
    return E[token_ids] - P[:len(token_ids)]

# embed: its own sinusoidal table instead of the argument P
def _slip_embed_16(token_ids, E, P):
    token_ids = np.asarray(token_ids)
    if token_ids.size == 0:
        token_ids = token_ids.astype(np.int64)
    E, P = (np.asarray(E, dtype=np.float64), np.asarray(P, dtype=np.float64))
    require_ndim('token_ids', token_ids, 1, '(L,)')
    require_ndim('E', E, 2, '(V, d)')
    require_ndim('P', P, 2, '(L_max, d)')
    require_same_size('E', E, 1, 'P', P, 1, 'the model width d')
    if len(token_ids) > P.shape[0]:
        raise ValueError(f'P has shape {tuple(P.shape)}: too few positions for token_ids of shape {token_ids.shape}')
    if token_ids.dtype.kind not in 'iu':
        raise ValueError(f'token_ids must be integer ids; got dtype {token_ids.dtype}')
    if token_ids.size and (token_ids.min() < 0 or token_ids.max() >= E.shape[0]):
        raise ValueError(f'token_ids must lie in 0 .. {E.shape[0] - 1} for E of shape {tuple(E.shape)}; got ids from {token_ids.min()} to {token_ids.max()}')
    return E[token_ids] + sinusoidal_positions(len(token_ids), E.shape[1])

# embed: the positions added twice
def _slip_embed_17(token_ids, E, P):
    token_ids = np.asarray(token_ids)
    if token_ids.size == 0:
        token_ids = token_ids.astype(np.int64)
    E, P = (np.asarray(E, dtype=np.float64), np.asarray(P, dtype=np.float64))
    require_ndim('token_ids', token_ids, 1, '(L,)')
    require_ndim('E', E, 2, '(V, d)')
    require_ndim('P', P, 2, '(L_max, d)')
    require_same_size('E', E, 1, 'P', P, 1, 'the model width d')
    if len(token_ids) > P.shape[0]:
        raise ValueError(f'P has shape {tuple(P.shape)}: too few positions for token_ids of shape {token_ids.shape}')
    if token_ids.dtype.kind not in 'iu':
        raise ValueError(f'token_ids must be integer ids; got dtype {token_ids.dtype}')
    if token_ids.size and (token_ids.min() < 0 or token_ids.max() >= E.shape[0]):
        raise ValueError(f'token_ids must lie in 0 .. {E.shape[0] - 1} for E of shape {tuple(E.shape)}; got ids from {token_ids.min()} to {token_ids.max()}')
    L = len(token_ids)
    return E[token_ids] + 2 * P[:L]

# shift_matrix: blocks transposed: the matrix takes p_l to p_(l-k)
def _slip_shift_matrix_0(k, d):
    k = require_integer('k', k, meaning='(the step; negative moves back)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    M = np.zeros((d, d))
    for i in range(d // 2):
        a = k * w[i]
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]
    return M

# shift_matrix: one frequency (w = 1) for every pair
def _slip_shift_matrix_1(k, d):
    k = require_integer('k', k, meaning='(the step; negative moves back)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    M = np.zeros((d, d))
    for i in range(d // 2):
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(k), np.sin(k)], [-np.sin(k), np.cos(k)]]
    return M

# shift_matrix: exponent i/d instead of 2i/d
def _slip_shift_matrix_2(k, d):
    k = require_integer('k', k, meaning='(the step; negative moves back)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    w = 10000.0 ** (-np.arange(d // 2) / d)
    M = np.zeros((d, d))
    for i in range(d // 2):
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(k * w[i]), np.sin(k * w[i])], [-np.sin(k * w[i]), np.cos(k * w[i])]]
    return M

# shift_matrix: pairs laid out in two halves instead of (2i, 2i+1)
def _slip_shift_matrix_3(k, d):
    k = require_integer('k', k, meaning='(the step; negative moves back)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    c, s = (np.cos(k * w), np.sin(k * w))
    M = np.zeros((d, d))
    for i in range(d // 2):
        M[i::d // 2, i::d // 2] = [[c[i], s[i]], [-s[i], c[i]]]
    return M

# shift_matrix: shift by one step whatever k is
def _slip_shift_matrix_4(k, d):
    k = require_integer('k', k, meaning='(the step; negative moves back)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    M = np.zeros((d, d))
    for i in range(d // 2):
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(w[i]), np.sin(w[i])], [-np.sin(w[i]), np.cos(w[i])]]
    return M

# shift_matrix: minus sign missing: [[cos, sin], [sin, cos]]
def _slip_shift_matrix_5(k, d):
    k = require_integer('k', k, meaning='(the step; negative moves back)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    M = np.zeros((d, d))
    for i in range(d // 2):
        c, s = (np.cos(k * w[i]), np.sin(k * w[i]))
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[c, s], [s, c]]
    return M

# shift_matrix: sin and cos swapped in the block: [[sin, cos], [-cos, sin]]
def _slip_shift_matrix_6(k, d):
    k = require_integer('k', k, meaning='(the step; negative moves back)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    M = np.zeros((d, d))
    for i in range(d // 2):
        c, s = (np.cos(k * w[i]), np.sin(k * w[i]))
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[s, c], [-c, s]]
    return M

# shift_matrix: blocks placed at [i:i+2] instead of [2i:2i+2] (they overlap)
def _slip_shift_matrix_7(k, d):
    k = require_integer('k', k, meaning='(the step; negative moves back)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    M = np.zeros((d, d))
    for i in range(d // 2):
        c, s = (np.cos(k * w[i]), np.sin(k * w[i]))
        M[i:i + 2, i:i + 2] = [[c, s], [-s, c]]
    return M

# shift_matrix: exponent 4i/d: the step of 2 counted twice
def _slip_shift_matrix_8(k, d):
    k = require_integer('k', k, meaning='(the step; negative moves back)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    w = 10000.0 ** (-2 * np.arange(0, d, 2) / d)
    M = np.zeros((d, d))
    for i in range(d // 2):
        c, s = (np.cos(k * w[i]), np.sin(k * w[i]))
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[c, s], [-s, c]]
    return M

# shift_matrix: exponents spread with np.linspace(0, 1, d // 2) (the last one 1, not (d-2)/d)
def _slip_shift_matrix_9(k, d):
    k = require_integer('k', k, meaning='(the step; negative moves back)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    w = 10000.0 ** (-np.linspace(0, 1, d // 2))
    c, s = (np.cos(k * w), np.sin(k * w))
    M = np.zeros((d, d))
    for i in range(d // 2):
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[c[i], s[i]], [-s[i], c[i]]]
    return M

# shift_matrix: missing parentheses: k * 10000 ** -2 * i / d
def _slip_shift_matrix_10(k, d):
    k = require_integer('k', k, meaning='(the step; negative moves back)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    M = np.zeros((d, d))
    for i in range(d // 2):
        a = k * 10000.0 ** (-2) * i / d
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]]
    return M

# shift_matrix: frequency picked by the feature index j
def _slip_shift_matrix_11(k, d):
    k = require_integer('k', k, meaning='(the step; negative moves back)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    M = np.zeros((d, d))
    for j in range(0, d, 2):
        a = k * w[j // 2] if j == 0 else k * 10000.0 ** (-(j + 1) / d)
        M[j:j + 2, j:j + 2] = [[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]]
    return M

# shift_matrix: the identity whatever k is
def _slip_shift_matrix_12(k, d):
    k = require_integer('k', k, meaning='(the step; negative moves back)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    return np.eye(d)

# shift_matrix: the last block left zero (a loop over range(d // 2 - 1))
def _slip_shift_matrix_13(k, d):
    k = require_integer('k', k, meaning='(the step; negative moves back)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    M = np.zeros((d, d))
    for i in range(d // 2 - 1):
        a = k * w[i]
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]]
    return M

# shift_matrix: an integer matrix (cos and sin truncated to whole numbers)
def _slip_shift_matrix_14(k, d):
    k = require_integer('k', k, meaning='(the step; negative moves back)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    M = np.zeros((d, d), dtype=int)
    for i in range(d // 2):
        a = k * w[i]
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]]
    return M

# shift_matrix: positive exponent (10000^(+2i/d))
def _slip_shift_matrix_15(k, d):
    k = require_integer('k', k, meaning='(the step; negative moves back)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    w = 10000.0 ** (np.arange(0, d, 2) / d)
    M = np.zeros((d, d))
    for i in range(d // 2):
        a = k * w[i]
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]]
    return M

# shift_matrix: shift by k + 1
def _slip_shift_matrix_16(k, d):
    k = require_integer('k', k, meaning='(the step; negative moves back)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    M = np.zeros((d, d))
    for i in range(d // 2):
        a = (k + 1) * w[i]
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]]
    return M

# shift_matrix: cos(k) * w and sin(k) * w instead of cos(k * w) and sin(k * w)
def _slip_shift_matrix_17(k, d):
    k = require_integer('k', k, meaning='(the step; negative moves back)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    c, s = (np.cos(k) * w, np.sin(k) * w)
    M = np.zeros((d, d))
    for i in range(d // 2):
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[c[i], s[i]], [-s[i], c[i]]]
    return M

# shift_matrix: hard-coded 4 x 4 (the worked example's d)
def _slip_shift_matrix_18(k, d):
    k = require_integer('k', k, meaning='(the step; negative moves back)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    M = np.zeros((4, 4))
    for i in range(2):
        a = k * w[i]
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]]
    return M

# shift_matrix: the d/2 blocks returned stacked, not placed in a (d, d) matrix
def _slip_shift_matrix_19(k, d):
    k = require_integer('k', k, meaning='(the step; negative moves back)')
    d = require_integer('d', d, 1, '(the model width)')
    if d % 2 != 0:
        raise ValueError(f'd must be a positive even number (sin/cos pairs); got d={d}')
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    c, s = (np.cos(k * w), np.sin(k * w))
    return np.stack([[c, s], [-s, c]]).transpose(2, 0, 1)


# function: [(mistake, its hint, the mistake as a function)]
SLIPS = {
    'sinusoidal_positions': [
        ('exponent i/d instead of 2i/d', 'the exponent is 2i/d with i the PAIR index: w_i = 10000 ** (-2 * i / d) for i = 0 .. d/2 - 1, shared by features 2i and 2i+1', _slip_sinusoidal_positions_0),
        ('frequency taken from the feature index j (10000^(-j/d)) for cos as well', 'the exponent is 2i/d with i the PAIR index: w_i = 10000 ** (-2 * i / d) for i = 0 .. d/2 - 1, shared by features 2i and 2i+1', _slip_sinusoidal_positions_1),
        ('sin and cos swapped', 'sin goes in the even features 2i and cos in the odd features 2i+1', _slip_sinusoidal_positions_2),
        ('sin and cos in two halves instead of interleaved', 'interleave the pairs: P[:, 0::2] = sin, P[:, 1::2] = cos (not all sines first, then all cosines)', _slip_sinusoidal_positions_3),
        ('positions starting at 1', 'positions start at 0: row 0 is p_0 = [0, 1, 0, 1, ...], use np.arange(L)', _slip_sinusoidal_positions_4),
        ('positive exponent (10000^(+2i/d))', 'the frequencies shrink: w_i = 10000 ** (-2i/d), with a minus sign', _slip_sinusoidal_positions_5),
        ('exponent 4i/d: the step of 2 counted twice', 'np.arange(0, d, 2) already gives 2i (0, 2, 4, ...): do not multiply it by 2 again; w_i = 10000 ** (-2 * i / d) with i = 0 .. d/2 - 1', _slip_sinusoidal_positions_6),
        ('exponents spread with np.linspace(0, 1, d // 2) (the last one 1, not (d-2)/d)', 'the exponents 2i/d stop at (d-2)/d, short of 1: use np.arange(0, d, 2) / d, not np.linspace(0, 1, d // 2), which ends at 1', _slip_sinusoidal_positions_7),
        ('table transposed (d, L)', 'one row per position, one column per feature', _slip_sinusoidal_positions_8),
        ('sin in every column', 'sin(0) = 0 and cos(0) = 1, so p_0 = [0, 1, 0, 1, ...]', _slip_sinusoidal_positions_9),
        ('one frequency per feature (w of length d)', "P[:, 0::2] has d/2 columns: one frequency per PAIR, so w has length d/2 (w_i = 10000 ** (-2 * i / d), i = 0 .. d/2 - 1), with d the argument, never the worked example's d = 4; and the angles np.arange(L)[:, None] * w are (L, d/2), one row per position", _slip_sinusoidal_positions_10),
        ('built in float32', 'build the table in float64 (np.zeros((L, d)) and np.arange(L, dtype=np.float64) are float64): float32 keeps only about 7 digits', _slip_sinusoidal_positions_11),
        ('base 1000 instead of 10000', 'the exponent is 2i/d with i the PAIR index: w_i = 10000 ** (-2 * i / d) for i = 0 .. d/2 - 1, shared by features 2i and 2i+1', _slip_sinusoidal_positions_12),
        ('positions normalised to [0, 1) (l / L)', 'row l is position l = 0, 1, ..., L-1 (np.arange(L)) and pair 0 has w_0 = 1: P[l, 0] = sin(l), P[l, 1] = cos(l)', _slip_sinusoidal_positions_13),
        ('L instead of d in the exponent', 'the exponent is 2i/d with i the PAIR index: w_i = 10000 ** (-2 * i / d) for i = 0 .. d/2 - 1, shared by features 2i and 2i+1', _slip_sinusoidal_positions_14),
        ("hard-coded d = 4 (the lecture's curves)", "P[:, 0::2] has d/2 columns: one frequency per PAIR, so w has length d/2 (w_i = 10000 ** (-2 * i / d), i = 0 .. d/2 - 1), with d the argument, never the worked example's d = 4; and the angles np.arange(L)[:, None] * w are (L, d/2), one row per position", _slip_sinusoidal_positions_15),
        ('the last position row left zero (a loop over range(L - 1))', 'fill every position l = 0 .. L-1, the last included: range(L)', _slip_sinusoidal_positions_16),
        ('the last pair left zero (a loop over range(d // 2 - 1))', 'fill every pair i = 0 .. d/2-1, the last included: range(d // 2)', _slip_sinusoidal_positions_17),
        ('missing parentheses: 1 / 10000 ** (2i) / d', 'put the whole exponent in parentheses: 10000 ** (-2 * i / d); ** binds before / and *', _slip_sinusoidal_positions_18),
        ('positions from np.linspace(0, L, L)', 'the positions are the whole numbers 0, 1, ..., L-1: np.arange(L), not np.linspace(0, L, L)', _slip_sinusoidal_positions_19),
        ('sin(l) * w instead of sin(l * w)', 'take sin and cos of the angle l * w_i: np.sin(l * w), not np.sin(l) * w', _slip_sinusoidal_positions_20),
    ],
    'embed': [
        ('positions not added', 'x_l = E[w_l] + p_l: add row l of P to each embedding row', _slip_embed_0),
        ('the whole table P added', "X[l] = E[token_ids[l]] + P[l]: take each token's row of E with E[token_ids] (shape (L, d)), and only the first L rows of P, P[:L] (P may hold more positions than the sequence)", _slip_embed_1),
        ('P indexed by the token ids instead of the positions', 'the position vector of token number l is P[l], whatever the token is: add P[:L], not P[token_ids]', _slip_embed_2),
        ('positions starting at 1', 'the first token sits at position 0: add P[:L], not P[1:L+1]', _slip_embed_3),
        ('embedding and position concatenated', 'one row per token: (L, d)', _slip_embed_4),
        ('E indexed by the positions 0 .. L-1 instead of the token ids', 'the row of E is chosen by the token id: E[token_ids], not E[:L]', _slip_embed_5),
        ('one position row P[L] added to every token', 'each token gets its own position: add P[:L] (a slice), not P[L] (one row)', _slip_embed_6),
        ('the last L rows of P', 'use the first L rows of P, P[:L], not P[-L:]', _slip_embed_7),
        ('embedding multiplied by the position instead of added', 'x_l = E[w_l] + p_l: add the position vector, do not multiply', _slip_embed_8),
        ('adds into P in place (P[:L] is a view)', 'P[:L] and E[t] are views: X += ... or E[t] += ... writes into the tables. Build a new array from E[token_ids] and P[:L] with +, not +=', _slip_embed_9),
        ('token ids shifted by one (E[token_ids - 1])', 'token id t selects row t of E (ids count from 0): E[token_ids]', _slip_embed_10),
        ('float32 and the positions starting at 1', 'the first token sits at position 0: add P[:L], not P[1:L+1]', _slip_embed_11),
        ("hard-coded 3 positions (the worked example's length)", "X[l] = E[token_ids[l]] + P[l]: take each token's row of E with E[token_ids] (shape (L, d)), and only the first L rows of P, P[:L] (P may hold more positions than the sequence)", _slip_embed_12),
        ('embedding scaled by sqrt(d)', 'x_l = E[w_l] + p_l exactly: no sqrt(d) scaling in this workbook', _slip_embed_13),
        ('embedding and position averaged', 'x_l = E[w_l] + p_l: add, do not average', _slip_embed_14),
        ('position subtracted', 'x_l = E[w_l] + p_l: add the position vector, do not subtract it', _slip_embed_15),
        ('its own sinusoidal table instead of the argument P', 'use the P you are given (it may be learned or random): add its first L rows, P[:L]; do not build a new table', _slip_embed_16),
        ('the positions added twice', "X[l] = E[token_ids[l]] + P[l]: the token's row of E plus row l of P", _slip_embed_17),
    ],
    'shift_matrix': [
        ('blocks transposed: the matrix takes p_l to p_(l-k)', 'check the first row on p_l = [sin, cos]: sin((l+k)w) = sin(lw) cos(kw) + cos(lw) sin(kw), so the block is [[cos kw, sin kw], [-sin kw, cos kw]]', _slip_shift_matrix_0),
        ('one frequency (w = 1) for every pair', 'pair i turns by k * w_i with its own w_i = 10000 ** (-2i/d)', _slip_shift_matrix_1),
        ('exponent i/d instead of 2i/d', 'the exponent is 2i/d with i the PAIR index: w_i = 10000 ** (-2 * i / d) for i = 0 .. d/2 - 1, shared by features 2i and 2i+1', _slip_shift_matrix_2),
        ('pairs laid out in two halves instead of (2i, 2i+1)', 'pair i is features 2i and 2i+1, the same interleaved layout as P', _slip_shift_matrix_3),
        ('shift by one step whatever k is', 'the angle of pair i is k * w_i: use k', _slip_shift_matrix_4),
        ('minus sign missing: [[cos, sin], [sin, cos]]', 'the block of pair i is [[cos kw, sin kw], [-sin kw, cos kw]]: cos on the diagonal, +sin above it and -sin below it', _slip_shift_matrix_5),
        ('sin and cos swapped in the block: [[sin, cos], [-cos, sin]]', 'the block of pair i is [[cos kw, sin kw], [-sin kw, cos kw]]: cos on the diagonal, +sin above it and -sin below it', _slip_shift_matrix_6),
        ('blocks placed at [i:i+2] instead of [2i:2i+2] (they overlap)', 'pair i occupies rows and columns 2i and 2i+1: M[2*i:2*i+2, 2*i:2*i+2], and M is zero outside these blocks', _slip_shift_matrix_7),
        ('exponent 4i/d: the step of 2 counted twice', 'np.arange(0, d, 2) already gives 2i (0, 2, 4, ...): do not multiply it by 2 again; w_i = 10000 ** (-2 * i / d) with i = 0 .. d/2 - 1', _slip_shift_matrix_8),
        ('exponents spread with np.linspace(0, 1, d // 2) (the last one 1, not (d-2)/d)', 'the exponents 2i/d stop at (d-2)/d, short of 1: use np.arange(0, d, 2) / d, not np.linspace(0, 1, d // 2), which ends at 1', _slip_shift_matrix_9),
        ('missing parentheses: k * 10000 ** -2 * i / d', 'put the whole exponent in parentheses: 10000 ** (-2 * i / d); ** binds before / and *', _slip_shift_matrix_10),
        ('frequency picked by the feature index j', 'the exponent is 2i/d with i the PAIR index: w_i = 10000 ** (-2 * i / d) for i = 0 .. d/2 - 1, shared by features 2i and 2i+1', _slip_shift_matrix_11),
        ('the identity whatever k is', 'the angle of pair i is k * w_i: use k', _slip_shift_matrix_12),
        ('the last block left zero (a loop over range(d // 2 - 1))', 'fill every pair i = 0 .. d/2-1, the last included: range(d // 2)', _slip_shift_matrix_13),
        ('an integer matrix (cos and sin truncated to whole numbers)', 'make M a float array (np.zeros((d, d)) is float64; dtype=int truncates cos and sin to 0 or +-1)', _slip_shift_matrix_14),
        ('positive exponent (10000^(+2i/d))', 'the frequencies shrink: w_i = 10000 ** (-2i/d), with a minus sign', _slip_shift_matrix_15),
        ('shift by k + 1', 'the angle of pair i is k * w_i, not (k + 1) * w_i', _slip_shift_matrix_16),
        ('cos(k) * w and sin(k) * w instead of cos(k * w) and sin(k * w)', 'take cos and sin of the angle k * w_i: np.sin(k * w), not np.sin(k) * w', _slip_shift_matrix_17),
        ("hard-coded 4 x 4 (the worked example's d)", "a (d, d) matrix with d the argument, not the worked example's 4", _slip_shift_matrix_18),
        ('the d/2 blocks returned stacked, not placed in a (d, d) matrix', 'a (d, d) matrix acting on a position vector', _slip_shift_matrix_19),
    ],
}
