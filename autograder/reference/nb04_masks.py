"""Reference answers for notebook 04_masks: generated, do not edit.

Made by scripts/release.py (`make release`) from the answer cells of
solutions/04_masks/04_masks.ipynb. Used by the hidden tests and the project's
own tests; never shipped to students.
"""


# ruff: noqa: E501, I001, F841, UP034
import numpy as np
from attnbook.shapes import require_integer, require_lengths, require_min_ndim, require_same_size


# name: (options, correct letter, explanation shown when the answer is wrong)
ANSWERS = {
    'answer_mask_controls': ('ABC', 'C', 'a causal mask only decides which earlier or current keys a query may read; it says nothing about where a token is or how far apart two are.'),
    'answer_mask_order': ('ABC', 'A', 'zeroing after the softmax keeps the other weights as they were, so the row sums to less than 1, and the blocked keys still sit in the denominator.'),
    'answer_padding_side': ('ABC', 'B', 'On the left the pads stand before every real token, so the causal mask lets both real queries read them; only right padding is hidden by the causal mask alone.'),
    'answer_loss_mask': ('ABC', 'B', 'A padded target is not a real next token: counting it would teach the model to predict <PAD>. The key padding mask acts on attention, not on the loss.'),
    'answer_encoder_decoder': ('ABC', 'A', 'A label is predicted from the whole text, so every token may read every other; next-word prediction and writing must not read the words they predict: causal.'),
    'answer_shuffled_prefix': ('ABC', 'C', 'the causal mask changes which keys a token may read: at position 0 it reads only itself, so its output changes, yet the mask tells it nothing about where it stands.'),
}


# -- from the answer cell causal_mask
def causal_mask(L):
    """The causal mask of a decoder: query i may read keys j <= i.

    Args:
        L: the number of tokens, a positive integer.

    Returns:
        allowed: (L, L) booleans; allowed[i, j] is True when j <= i.
    """
    L = require_integer("L", L, 1, "(the number of tokens)")
    # Key idea: Query i may see key j when j <= i: compare a row of positions with a column of
    #   positions, and broadcasting gives the lower triangle.
    positions = np.arange(L)
    return positions[None, :] <= positions[:, None]  # (1, L) <= (L, 1) -> (L, L)


# -- from the answer cell masked_attention
def masked_attention(Q, K, V, allowed):
    """Scaled dot-product attention in which each query reads only its allowed keys.

    Args:
        Q: (..., L_q, d_k) queries; any number of leading axes (batch, heads).
        K: (..., L_k, d_k) keys; its leading axes broadcast against Q's, e.g. (B, 1, L_k, d_k)
            for keys shared by every head of Q (B, h, L_q, d_k).
        V: (..., L_k, d_v) values, one row per key; leading axes like K's.
        allowed: booleans (..., L_q, L_k), or with size-1 axes that broadcast to it, such as
            (1, L_k) for every query; True = query may read the key.

    Returns:
        (Y, A): Y (..., L_q, d_v) outputs, A (..., L_q, L_k) weights. Blocked keys get weight
        exactly 0; a query with no allowed key gets a row of zeros in A and in Y, never NaN.
    """
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim("Q", Q, 2, "(..., L_q, d_k)")
    require_min_ndim("K", K, 2, "(..., L_k, d_k)")
    require_min_ndim("V", V, 2, "(..., L_k, d_v)")
    require_min_ndim("allowed", allowed, 2, "(..., L_q, L_k)")
    require_same_size("Q", Q, -1, "K", K, -1, "the query/key width d_k")
    require_same_size("K", K, -2, "V", V, -2, "the number of keys L_k")
    require_same_size("allowed", allowed, -1, "K", K, -2, "the number of keys L_k")
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f"allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to "
                         f"broadcast); got allowed of shape {allowed.shape} for Q of shape "
                         f"{Q.shape}")
    if allowed.dtype != bool:
        raise ValueError(f"allowed must hold booleans (True = may attend); got dtype "
                         f"{allowed.dtype} and shape {allowed.shape}")
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f"the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} "
                         f"and allowed {allowed.shape} do not broadcast together") from None
    # Key idea: Blocked keys score -inf before the softmax, so exp gives them weight exactly 0 and
    #   the rest of the row shares the mass. A query with no allowed key gets a row of zeros, not
    #   NaN.
    d_k = Q.shape[-1]
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)  # (..., L_q, d_k) @ (..., d_k, L_k)
    S = np.where(allowed, S, -np.inf)  # (..., L_q, L_k): blocked keys score -inf
    row_max = S.max(axis=-1, keepdims=True)  # (..., L_q, 1)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)  # rows with no allowed key
    e = np.exp(S - row_max)  # (..., L_q, L_k); exp(-inf) = 0 exactly
    total = e.sum(axis=-1, keepdims=True)  # (..., L_q, 1)
    A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)  # empty rows stay 0
    return A @ V, A  # (..., L_q, L_k) @ (..., L_k, d_v) -> (..., L_q, d_v)


# -- from the answer cell padding_mask
def padding_mask(lengths, L):
    """Which positions of each right-padded message hold real tokens.

    Args:
        lengths: (B,) integers, the number of real tokens of each message (0 <= length <= L);
            a list works too.
        L: the padded length of the batch.

    Returns:
        real: (B, L) booleans; real[b, t] is True when t < lengths[b].
    """
    L = require_integer("L", L, 0, "(the padded length)")
    lengths = require_lengths("lengths", lengths, L)  # (B,) whole numbers in 0 .. L
    # Key idea: Sequence b is real at the positions below its length: compare the positions (1, L)
    #   with the lengths (B, 1).
    positions = np.arange(L)  # (L,)
    return positions[None, :] < lengths[:, None]  # (1, L) < (B, 1) -> (B, L)


# -- from the answer cell attention_mask
def attention_mask(lengths, L, causal):
    """The allowed matrices of a right-padded batch: key padding, plus causal if asked.

    Args:
        lengths: (B,) integers, real tokens per message (0 <= length <= L); a list works too.
        L: the padded length of the batch, at least 1.
        causal: True for a decoder (query i reads keys j <= i), False for a bidirectional
            encoder.

    Returns:
        allowed: (B, L, L) booleans; allowed[b, i, j] is True when key j is a real token of
        message b and, if causal, j <= i. Padded query rows are not blocked.
    """
    L = require_integer("L", L, 1, "(the padded length)")
    lengths = require_lengths("lengths", lengths, L)  # (B,) whole numbers in 0 .. L
    # Key idea: A key is allowed when it is a real token of that sequence and, with causal, not in
    #   the future: AND the padding row (the same for every query) with the causal triangle,
    #   broadcast to (B, L, L).
    keys = padding_mask(lengths, L)[:, None, :]  # (B, 1, L): the same row for every query
    if causal:
        keys = keys & causal_mask(L)[None, :, :]  # (B, 1, L) & (1, L, L) -> (B, L, L)
    return np.broadcast_to(keys, (len(lengths), L, L)).copy()  # (B, L, L)


# -- the catalogued mistakes (autograder/mistakes/), resolved: the hidden trials run
# them on their inputs to name the slip a wrong output matches
# causal_mask: diagonal excluded (j < i)
def _slip_causal_mask_0(L):
    L = require_integer('L', L, 1, '(the number of tokens)')
    return np.tril(np.ones((L, L), dtype=bool), k=-1)

# causal_mask: mask transposed (j >= i): each query reads the future, not the past
def _slip_causal_mask_1(L):
    L = require_integer('L', L, 1, '(the number of tokens)')
    return np.triu(np.ones((L, L), dtype=bool))

# causal_mask: True and False swapped (True marks the blocked future)
def _slip_causal_mask_2(L):
    L = require_integer('L', L, 1, '(the number of tokens)')
    i = np.arange(L)
    return i[None, :] > i[:, None]

# causal_mask: additive 0 / -inf matrix instead of booleans
def _slip_causal_mask_3(L):
    L = require_integer('L', L, 1, '(the number of tokens)')
    return np.triu(np.full((L, L), -np.inf), k=1)

# causal_mask: 0/1 floats instead of booleans
def _slip_causal_mask_4(L):
    L = require_integer('L', L, 1, '(the number of tokens)')
    return np.tril(np.ones((L, L)))

# causal_mask: every entry True: nothing is blocked
def _slip_causal_mask_5(L):
    L = require_integer('L', L, 1, '(the number of tokens)')
    return np.ones((L, L), dtype=bool)

# causal_mask: only the diagonal (each query reads only itself)
def _slip_causal_mask_6(L):
    L = require_integer('L', L, 1, '(the number of tokens)')
    return np.eye(L, dtype=bool)

# causal_mask: np.tril(..., k=1): each query also reads the next token
def _slip_causal_mask_7(L):
    L = require_integer('L', L, 1, '(the number of tokens)')
    return np.tril(np.ones((L, L), dtype=bool), k=1)

# causal_mask: comparison without new axes gives a vector
def _slip_causal_mask_8(L):
    L = require_integer('L', L, 1, '(the number of tokens)')
    i = np.arange(L)
    return i <= i

# causal_mask: hard-coded 4 x 4 (the worked example's size)
def _slip_causal_mask_9(L):
    L = require_integer('L', L, 1, '(the number of tokens)')
    return np.tril(np.ones((4, 4), dtype=bool))

# causal_mask: the last row left all False (a loop over range(L - 1))
def _slip_causal_mask_10(L):
    L = require_integer('L', L, 1, '(the number of tokens)')
    M = np.zeros((L, L), dtype=bool)
    for i in range(L - 1):
        M[i, :i + 1] = True
    return M

# masked_attention: mask applied after the softmax
def _slip_masked_attention_0(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    A = e / e.sum(axis=-1, keepdims=True) * allowed
    return (A @ V, A)

# masked_attention: large finite negative number leaves a fully masked row uniform
def _slip_masked_attention_1(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    S = np.where(allowed, S, -1000000000.0)
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    A = e / e.sum(axis=-1, keepdims=True)
    return (A @ V, A)

# masked_attention: blocked scores set to -100, which leaves them a tiny weight
def _slip_masked_attention_2(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    d_k = Q.shape[-1]
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)
    S = np.where(allowed, S, -100.0)
    row_max = S.max(axis=-1, keepdims=True)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    e = np.exp(S - row_max)
    total = e.sum(axis=-1, keepdims=True)
    A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return (A @ V, A)

# masked_attention: NaN for a row with no allowed key
def _slip_masked_attention_3(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    S = np.where(allowed, S, -np.inf)
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    A = e / e.sum(axis=-1, keepdims=True)
    return (A @ V, A)

# masked_attention: mask inverted
def _slip_masked_attention_4(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    S = np.where(allowed, -np.inf, S)
    m = S.max(axis=-1, keepdims=True)
    e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
    total = e.sum(axis=-1, keepdims=True)
    A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return (A @ V, A)

# masked_attention: mask multiplied into the scores
def _slip_masked_attention_5(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1]) * allowed
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    A = e / e.sum(axis=-1, keepdims=True)
    return (A @ V, A)

# masked_attention: no 1/sqrt(d_k)
def _slip_masked_attention_6(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    S = np.where(allowed, Q @ np.swapaxes(K, -1, -2), -np.inf)
    m = S.max(axis=-1, keepdims=True)
    e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
    total = e.sum(axis=-1, keepdims=True)
    A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return (A @ V, A)

# masked_attention: K.T breaks leading axes
def _slip_masked_attention_7(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    S = np.where(allowed, Q @ K.T / np.sqrt(Q.shape[-1]), -np.inf)
    m = S.max(axis=-1, keepdims=True)
    e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
    total = e.sum(axis=-1, keepdims=True)
    A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return (A @ V, A)

# masked_attention: divided by d_k instead of sqrt(d_k)
def _slip_masked_attention_8(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    S = np.where(allowed, Q @ np.swapaxes(K, -1, -2) / Q.shape[-1], -np.inf)
    m = S.max(axis=-1, keepdims=True)
    e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
    total = e.sum(axis=-1, keepdims=True)
    A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return (A @ V, A)

# masked_attention: scaled by the number of keys instead of d_k
def _slip_masked_attention_9(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    S = np.where(allowed, Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-2]), -np.inf)
    m = S.max(axis=-1, keepdims=True)
    e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
    total = e.sum(axis=-1, keepdims=True)
    A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return (A @ V, A)

# masked_attention: scaled by the number of queries instead of d_k
def _slip_masked_attention_10(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    S = np.where(allowed, Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-2]), -np.inf)
    m = S.max(axis=-1, keepdims=True)
    e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
    total = e.sum(axis=-1, keepdims=True)
    A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return (A @ V, A)

# masked_attention: scaled by sqrt(d_v), the value width
def _slip_masked_attention_11(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    S = np.where(allowed, Q @ np.swapaxes(K, -1, -2) / np.sqrt(V.shape[-1]), -np.inf)
    m = S.max(axis=-1, keepdims=True)
    e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
    total = e.sum(axis=-1, keepdims=True)
    A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return (A @ V, A)

# masked_attention: softmax over the query axis
def _slip_masked_attention_12(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    S = np.where(allowed, S, -np.inf)
    m = S.max(axis=-2, keepdims=True)
    e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
    total = e.sum(axis=-2, keepdims=True)
    A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return (A @ V, A)

# masked_attention: returns (A, Y) instead of (Y, A)
def _slip_masked_attention_13(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    S = np.where(allowed, S, -np.inf)
    m = S.max(axis=-1, keepdims=True)
    e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
    total = e.sum(axis=-1, keepdims=True)
    A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return (A, A @ V)

# masked_attention: no max subtraction: large scores overflow
def _slip_masked_attention_14(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    e = np.exp(S) * allowed
    total = e.sum(axis=-1, keepdims=True)
    A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return (A @ V, A)

# masked_attention: allowed transposed (rows read as keys)
def _slip_masked_attention_15(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    S = np.where(np.swapaxes(allowed, -1, -2), S, -np.inf)
    m = S.max(axis=-1, keepdims=True)
    e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
    total = e.sum(axis=-1, keepdims=True)
    A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return (A @ V, A)

# masked_attention: weights returned but Y from the unmasked softmax
def _slip_masked_attention_16(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    Y = e / e.sum(axis=-1, keepdims=True) @ V
    S = np.where(allowed, S, -np.inf)
    m = S.max(axis=-1, keepdims=True)
    e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
    total = e.sum(axis=-1, keepdims=True)
    A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return (Y, A)

# masked_attention: float32 and -1e9 instead of -inf
def _slip_masked_attention_17(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    import torch
    q, k, v = (torch.Tensor(Q), torch.Tensor(K), torch.Tensor(V))
    s = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
    s = s.masked_fill(~torch.as_tensor(np.broadcast_to(allowed, s.shape).copy()), -1000000000.0)
    a = torch.softmax(s, dim=-1)
    return (a @ v, a)

# masked_attention: float32 and the mask applied after the softmax
def _slip_masked_attention_18(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    import torch
    q, k, v = (torch.Tensor(Q), torch.Tensor(K), torch.Tensor(V))
    a = torch.softmax(q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5, dim=-1)
    a = a * torch.as_tensor(np.broadcast_to(allowed, a.shape).copy())
    return (a @ v, a)

# masked_attention: maximum of the whole array instead of each row
def _slip_masked_attention_19(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    d_k = Q.shape[-1]
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)
    S = np.where(allowed, S, -np.inf)
    row_max = np.max(S[np.isfinite(S)]) if np.isfinite(S).any() else 0.0
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    e = np.exp(S - row_max)
    total = e.sum(axis=-1, keepdims=True)
    A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return (A @ V, A)

# masked_attention: row maximum without keepdims
def _slip_masked_attention_20(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    d_k = Q.shape[-1]
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)
    S = np.where(allowed, S, -np.inf)
    row_max = S.max(axis=-1)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    e = np.exp(S - row_max)
    total = e.sum(axis=-1, keepdims=True)
    A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return (A @ V, A)

# masked_attention: row sum without keepdims
def _slip_masked_attention_21(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    d_k = Q.shape[-1]
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)
    S = np.where(allowed, S, -np.inf)
    row_max = S.max(axis=-1, keepdims=True)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    e = np.exp(S - row_max)
    total = e.sum(axis=-1)
    A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return (A @ V, A)

# masked_attention: boolean indexing S[~allowed] breaks a broadcast mask
def _slip_masked_attention_22(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    S[~allowed] = -np.inf
    row_max = S.max(axis=-1, keepdims=True)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    e = np.exp(S - row_max)
    total = e.sum(axis=-1, keepdims=True)
    A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return (A @ V, A)

# masked_attention: Q scaled in place (Q /= sqrt(d_k))
def _slip_masked_attention_23(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    Q /= np.sqrt(Q.shape[-1])
    S = np.where(allowed, Q @ np.swapaxes(K, -1, -2), -np.inf)
    row_max = S.max(axis=-1, keepdims=True)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    e = np.exp(S - row_max)
    total = e.sum(axis=-1, keepdims=True)
    A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return (A @ V, A)

# masked_attention: d_k read from Q.shape[1]
def _slip_masked_attention_24(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    d_k = Q.shape[-1]
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[1])
    S = np.where(allowed, S, -np.inf)
    row_max = S.max(axis=-1, keepdims=True)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    e = np.exp(S - row_max)
    total = e.sum(axis=-1, keepdims=True)
    A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return (A @ V, A)

# masked_attention: weights never divided by the row sum
def _slip_masked_attention_25(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    d_k = Q.shape[-1]
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)
    S = np.where(allowed, S, -np.inf)
    row_max = S.max(axis=-1, keepdims=True)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    e = np.exp(S - row_max)
    total = e.sum(axis=-1, keepdims=True)
    A = e
    return (A @ V, A)

# masked_attention: additive mask built as (~allowed) * -inf
def _slip_masked_attention_26(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    d_k = Q.shape[-1]
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)
    S = S + ~allowed * -np.inf
    row_max = S.max(axis=-1, keepdims=True)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    e = np.exp(S - row_max)
    total = e.sum(axis=-1, keepdims=True)
    A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return (A @ V, A)

# masked_attention: A returned transposed
def _slip_masked_attention_27(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    d_k = Q.shape[-1]
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)
    S = np.where(allowed, S, -np.inf)
    row_max = S.max(axis=-1, keepdims=True)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    e = np.exp(S - row_max)
    total = e.sum(axis=-1, keepdims=True)
    A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return (A @ V, np.swapaxes(A, -1, -2))

# masked_attention: Y returned transposed
def _slip_masked_attention_28(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    d_k = Q.shape[-1]
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)
    S = np.where(allowed, S, -np.inf)
    row_max = S.max(axis=-1, keepdims=True)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    e = np.exp(S - row_max)
    total = e.sum(axis=-1, keepdims=True)
    A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return (np.swapaxes(A @ V, -1, -2), A)

# masked_attention: row maximum over blocked keys too, then zeroed and renormalised
def _slip_masked_attention_29(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    S = S - S.max(axis=-1, keepdims=True)
    e = np.exp(S) * allowed
    total = e.sum(axis=-1, keepdims=True)
    A = np.where(total > 0, e / np.where(total > 0, total, 1.0), 0.0)
    return (A @ V, A)

# masked_attention: a loop over Q's flattened leading axes, K and V indexed alike
def _slip_masked_attention_30(Q, K, V, allowed):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    allowed = np.asarray(allowed)
    require_min_ndim('Q', Q, 2, '(..., L_q, d_k)')
    require_min_ndim('K', K, 2, '(..., L_k, d_k)')
    require_min_ndim('V', V, 2, '(..., L_k, d_v)')
    require_min_ndim('allowed', allowed, 2, '(..., L_q, L_k)')
    require_same_size('Q', Q, -1, 'K', K, -1, 'the query/key width d_k')
    require_same_size('K', K, -2, 'V', V, -2, 'the number of keys L_k')
    require_same_size('allowed', allowed, -1, 'K', K, -2, 'the number of keys L_k')
    if allowed.shape[-2] not in (1, Q.shape[-2]):
        raise ValueError(f'allowed must have one row per query (L_q = {Q.shape[-2]}, or 1 to broadcast); got allowed of shape {allowed.shape} for Q of shape {Q.shape}')
    if allowed.dtype != bool:
        raise ValueError(f'allowed must hold booleans (True = may attend); got dtype {allowed.dtype} and shape {allowed.shape}')
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    except ValueError:
        raise ValueError(f'the leading (batch) axes of Q {Q.shape}, K {K.shape}, V {V.shape} and allowed {allowed.shape} do not broadcast together') from None
    lead = np.broadcast_shapes(Q.shape[:-2], np.shape(allowed)[:-2])
    Qf, Kf, Vf = (t.reshape(-1, *t.shape[-2:]) for t in (Q, K, V))
    Mf = np.broadcast_to(allowed, (*lead, Q.shape[-2], K.shape[-2])).reshape(-1, Q.shape[-2], K.shape[-2])
    Ys, As = ([], [])
    for b in range(Qf.shape[0]):
        S = np.where(Mf[b], Qf[b] @ Kf[b].T / np.sqrt(Q.shape[-1]), -np.inf)
        m = S.max(-1, keepdims=True)
        e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
        t = e.sum(-1, keepdims=True)
        a = np.divide(e, t, out=np.zeros_like(e), where=t > 0)
        As.append(a)
        Ys.append(a @ Vf[b])
    return (np.array(Ys).reshape(*lead, Q.shape[-2], V.shape[-1]), np.array(As).reshape(*lead, Q.shape[-2], K.shape[-2]))

# padding_mask: lengths off by one (position <= length)
def _slip_padding_mask_0(lengths, L):
    L = require_integer('L', L, 0, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    return np.arange(L)[None, :] <= lengths[:, None]

# padding_mask: True and False swapped (True marks the padding)
def _slip_padding_mask_1(lengths, L):
    L = require_integer('L', L, 0, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    return np.arange(L)[None, :] >= lengths[:, None]

# padding_mask: padding at the front (left) instead of the end
def _slip_padding_mask_2(lengths, L):
    L = require_integer('L', L, 0, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    return np.arange(L)[None, :] >= L - lengths[:, None]

# padding_mask: shape (L, B)
def _slip_padding_mask_3(lengths, L):
    L = require_integer('L', L, 0, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    return np.arange(L)[:, None] < lengths[None, :]

# padding_mask: lengths off by one (position < length - 1)
def _slip_padding_mask_4(lengths, L):
    L = require_integer('L', L, 0, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    return np.arange(L)[None, :] < lengths[:, None] - 1

# padding_mask: 0/1 integers
def _slip_padding_mask_5(lengths, L):
    L = require_integer('L', L, 0, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    return (np.arange(L)[None, :] < lengths[:, None]).astype(int)

# padding_mask: width taken from the longest message instead of L
def _slip_padding_mask_6(lengths, L):
    L = require_integer('L', L, 0, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    return np.arange(lengths.max())[None, :] < lengths[:, None]

# padding_mask: every row built from the first message's length
def _slip_padding_mask_7(lengths, L):
    L = require_integer('L', L, 0, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    return np.broadcast_to(np.arange(L) < lengths[0], (len(lengths), L))

# padding_mask: comparison without new axes
def _slip_padding_mask_8(lengths, L):
    L = require_integer('L', L, 0, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    return np.arange(L) < lengths

# padding_mask: the last message left all False (a loop over range(B - 1))
def _slip_padding_mask_9(lengths, L):
    L = require_integer('L', L, 0, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    M = np.zeros((len(lengths), L), dtype=bool)
    for b in range(len(lengths) - 1):
        M[b, :lengths[b]] = True
    return M

# padding_mask: hard-coded 4 columns (the worked example's L)
def _slip_padding_mask_10(lengths, L):
    L = require_integer('L', L, 0, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    return np.arange(4)[None, :] < lengths[:, None]

# padding_mask: np.squeeze drops the batch axis of a single message
def _slip_padding_mask_11(lengths, L):
    L = require_integer('L', L, 0, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    return np.squeeze(np.arange(L)[None, :] < lengths[:, None])

# attention_mask: padding taken from the query side instead of the key side
def _slip_attention_mask_0(lengths, L, causal):
    L = require_integer('L', L, 1, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    keys = padding_mask(lengths, L)[:, :, None]
    if causal:
        keys = keys & causal_mask(L)[None, :, :]
    return np.broadcast_to(keys, (len(lengths), L, L)).copy()

# attention_mask: padded query rows masked as well as padded keys (only the keys are masked here)
def _slip_attention_mask_1(lengths, L, causal):
    L = require_integer('L', L, 1, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    keys = padding_mask(lengths, L)[:, None, :] & padding_mask(lengths, L)[:, :, None]
    if causal:
        keys = keys & causal_mask(L)[None, :, :]
    return np.broadcast_to(keys, (len(lengths), L, L)).copy()

# attention_mask: the causal flag ignored: causal part always applied
def _slip_attention_mask_2(lengths, L, causal):
    L = require_integer('L', L, 1, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    return padding_mask(lengths, L)[:, None, :] & causal_mask(L)

# attention_mask: causal and padding combined with OR instead of AND
def _slip_attention_mask_3(lengths, L, causal):
    L = require_integer('L', L, 1, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    keys = padding_mask(lengths, L)[:, None, :]
    allowed = keys | causal_mask(L) if causal else keys
    return np.broadcast_to(allowed, (len(lengths), L, L)).copy()

# attention_mask: lengths off by one (position <= length)
def _slip_attention_mask_4(lengths, L, causal):
    L = require_integer('L', L, 1, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    keys = (np.arange(L)[None, :] <= lengths[:, None])[:, None, :]
    allowed = keys & causal_mask(L) if causal else keys
    return np.broadcast_to(allowed, (len(lengths), L, L)).copy()

# attention_mask: np.squeeze drops the batch axis of a single message
def _slip_attention_mask_5(lengths, L, causal):
    L = require_integer('L', L, 1, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    keys = padding_mask(lengths, L)[:, None, :]
    if causal:
        keys = keys & causal_mask(L)[None, :, :]
    return np.broadcast_to(keys, (len(lengths), L, L)).squeeze()

# attention_mask: broadcast shape (B, 1, L) returned for the encoder
def _slip_attention_mask_6(lengths, L, causal):
    L = require_integer('L', L, 1, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    keys = padding_mask(lengths, L)[:, None, :]
    return keys & causal_mask(L) if causal else keys

# attention_mask: padding forgotten in the causal branch
def _slip_attention_mask_7(lengths, L, causal):
    L = require_integer('L', L, 1, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    keys = padding_mask(lengths, L)[:, None, :]
    if causal:
        keys = causal_mask(L)[None, :, :]
    return np.broadcast_to(keys, (len(lengths), L, L)).copy()

# attention_mask: diagonal excluded from the causal part (j < i)
def _slip_attention_mask_8(lengths, L, causal):
    L = require_integer('L', L, 1, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    keys = padding_mask(lengths, L)[:, None, :]
    tri = np.tril(np.ones((L, L), dtype=bool), k=-1)
    allowed = keys & tri if causal else keys
    return np.broadcast_to(allowed, (len(lengths), L, L)).copy()

# attention_mask: 0/1 integers from a product
def _slip_attention_mask_9(lengths, L, causal):
    L = require_integer('L', L, 1, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    keys = padding_mask(lengths, L)[:, None, :].astype(int)
    allowed = keys * causal_mask(L) if causal else keys
    return np.broadcast_to(allowed, (len(lengths), L, L)).copy()

# attention_mask: causal part transposed (j >= i)
def _slip_attention_mask_10(lengths, L, causal):
    L = require_integer('L', L, 1, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    keys = padding_mask(lengths, L)[:, None, :]
    allowed = keys & causal_mask(L).T if causal else keys
    return np.broadcast_to(allowed, (len(lengths), L, L)).copy()

# attention_mask: causal and padding masks combined without new axes
def _slip_attention_mask_11(lengths, L, causal):
    L = require_integer('L', L, 1, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    keys = padding_mask(lengths, L)
    if causal:
        return causal_mask(L) & keys
    return np.broadcast_to(keys[:, None, :], (len(lengths), L, L)).copy()

# attention_mask: batch size hard-coded to 2 (Message A and Message B)
def _slip_attention_mask_12(lengths, L, causal):
    L = require_integer('L', L, 1, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    keys = padding_mask(lengths, L)[:, None, :]
    if causal:
        keys = keys & causal_mask(L)[None]
    return np.broadcast_to(keys, (2, L, L)).copy()

# attention_mask: the last message left all False (a loop over range(B - 1))
def _slip_attention_mask_13(lengths, L, causal):
    L = require_integer('L', L, 1, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    out = np.zeros((len(lengths), L, L), dtype=bool)
    for b in range(len(lengths) - 1):
        out[b, :, :lengths[b]] = True
        if causal:
            out[b] &= causal_mask(L)
    return out

# attention_mask: size taken from max(lengths) instead of L
def _slip_attention_mask_14(lengths, L, causal):
    L = require_integer('L', L, 1, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    n = int(max(lengths)) if len(lengths) else L
    keys = padding_mask(lengths, n)[:, None, :]
    if causal:
        keys = keys & causal_mask(n)[None] if n else keys
    return np.broadcast_to(keys, (len(lengths), n, n)).copy()

# attention_mask: padding mask inverted (True on the pads)
def _slip_attention_mask_15(lengths, L, causal):
    L = require_integer('L', L, 1, '(the padded length)')
    lengths = require_lengths('lengths', lengths, L)
    keys = ~padding_mask(lengths, L)[:, None, :]
    if causal:
        keys = keys & causal_mask(L)[None]
    return np.broadcast_to(keys, (len(lengths), L, L)).copy()


# function: [(mistake, its hint, the mistake as a function)]
SLIPS = {
    'causal_mask': [
        ('diagonal excluded (j < i)', 'the diagonal must be True: query i may read keys j <= i, itself included', _slip_causal_mask_0),
        ('mask transposed (j >= i): each query reads the future, not the past', 'row i is query i; it may read columns j <= i (lower triangle, np.tril)', _slip_causal_mask_1),
        ('True and False swapped (True marks the blocked future)', "True means 'may attend': the allowed keys are j <= i", _slip_causal_mask_2),
        ('additive 0 / -inf matrix instead of booleans', "this is the additive mask M (0 allowed, -inf blocked) that section 1 adds to the scores; the workbook's functions return the boolean allowed array instead. return booleans (True = may attend), not 0/1 numbers or an additive 0/-inf matrix: build it from a comparison such as j <= i, or with dtype=bool", _slip_causal_mask_3),
        ('0/1 floats instead of booleans', 'return booleans (True = may attend), not 0/1 numbers or an additive 0/-inf matrix: build it from a comparison such as j <= i, or with dtype=bool', _slip_causal_mask_4),
        ('every entry True: nothing is blocked', 'nothing is blocked: query i may read only keys j <= i; the future keys j > i must be False', _slip_causal_mask_5),
        ('only the diagonal (each query reads only itself)', 'query i may read every earlier key and itself (j <= i), not only itself', _slip_causal_mask_6),
        ('np.tril(..., k=1): each query also reads the next token', 'k=1 lets each query read one token into the future; the causal mask is np.tril(..., k=0) (the default), i.e. j <= i', _slip_causal_mask_7),
        ('comparison without new axes gives a vector', 'one row per query, one column per key: (L, L)', _slip_causal_mask_8),
        ("hard-coded 4 x 4 (the worked example's size)", "build the (L, L) mask from L, not the worked example's size 4", _slip_causal_mask_9),
        ('the last row left all False (a loop over range(L - 1))', 'fill every row i = 0 .. L-1, the last included (range(L)); the last query reads all L keys', _slip_causal_mask_10),
    ],
    'masked_attention': [
        ('mask applied after the softmax', 'the mask was applied after the softmax: blocked weights were zeroed but the row no longer sums to 1. Set blocked scores to -inf BEFORE the softmax', _slip_masked_attention_0),
        ('large finite negative number leaves a fully masked row uniform', 'a fully masked row came out uniform: a large finite negative number (like -1e9) is still a number, so the softmax spreads the row evenly. Use -inf and give a row with no allowed key all-zero weights', _slip_masked_attention_1),
        ('blocked scores set to -100, which leaves them a tiny weight', 'set blocked scores to -inf before the softmax: exp(-inf) = 0 exactly', _slip_masked_attention_2),
        ('NaN for a row with no allowed key', 'a row with no allowed key is all -inf; its maximum is -inf and -inf - (-inf) is NaN. Give such rows all-zero weights (np.where on the row maximum and the sum). Also 0 * -inf is NaN: build an additive mask with np.where(allowed, 0.0, -np.inf), never (~allowed) * -np.inf', _slip_masked_attention_3),
        ('mask inverted', "True means 'may attend': keep the scores where allowed is True and set the others to -inf (np.where(allowed, S, -np.inf))", _slip_masked_attention_4),
        ('mask multiplied into the scores', 'a blocked score of 0 still gets weight; blocked scores must be -inf', _slip_masked_attention_5),
        ('no 1/sqrt(d_k)', 'scale the scores by 1/sqrt(d_k) before masking and the softmax', _slip_masked_attention_6),
        ('K.T breaks leading axes', 'with leading axes, allowed may broadcast over them (e.g. (B, 1, L, L) against (B, h, L, L)): use np.where(allowed, S, -np.inf), which broadcasts, not S[~allowed] = ...; and Q @ np.swapaxes(K, -1, -2), not np.dot or K.T, which mix up the leading axes', _slip_masked_attention_7),
        ('divided by d_k instead of sqrt(d_k)', 'divide the scores by sqrt(d_k), not by d_k', _slip_masked_attention_8),
        ('scaled by the number of keys instead of d_k', 'scale by sqrt(d_k), where d_k is the query/key width Q.shape[-1], not the number of keys K.shape[-2]', _slip_masked_attention_9),
        ('scaled by the number of queries instead of d_k', 'scale by sqrt(d_k), where d_k is the query/key width Q.shape[-1], not the number of queries Q.shape[-2]', _slip_masked_attention_10),
        ('scaled by sqrt(d_v), the value width', 'scale by sqrt(d_k), where d_k is the query/key width Q.shape[-1], not the value width V.shape[-1]', _slip_masked_attention_11),
        ('softmax over the query axis', "each query's weights (a row, the last axis) must sum to 1", _slip_masked_attention_12),
        ('returns (A, Y) instead of (Y, A)', 'return Y, A in that order: the outputs first, then the weights', _slip_masked_attention_13),
        ('no max subtraction: large scores overflow', 'subtract the row maximum of the allowed scores before np.exp: exp(1131) overflows to inf, and inf / inf is NaN', _slip_masked_attention_14),
        ('allowed transposed (rows read as keys)', 'allowed[..., i, j] says whether query i may read key j (row i is query i): use allowed as given, not its transpose', _slip_masked_attention_15),
        ('weights returned but Y from the unmasked softmax', 'the weights are right but Y is not: Y = A @ V with the masked weights A you return', _slip_masked_attention_16),
        ('float32 and -1e9 instead of -inf', 'a fully masked row came out uniform: a large finite negative number (like -1e9) is still a number, so the softmax spreads the row evenly. Use -inf and give a row with no allowed key all-zero weights', _slip_masked_attention_17),
        ('float32 and the mask applied after the softmax', 'the mask was applied after the softmax: blocked weights were zeroed but the row no longer sums to 1. Set blocked scores to -inf BEFORE the softmax', _slip_masked_attention_18),
        ('maximum of the whole array instead of each row', "subtract each ROW's maximum (axis=-1, keepdims=True), not the maximum of the whole array: a row far below the global maximum underflows to all zeros", _slip_masked_attention_19),
        ('row maximum without keepdims', "reduce each row with keepdims=True (S.max(axis=-1, keepdims=True), e.sum(axis=-1, keepdims=True)): without it the (..., L_q) result lines up with the KEY axis and every column is shifted or divided by another row's value", _slip_masked_attention_20),
        ('row sum without keepdims', "reduce each row with keepdims=True (S.max(axis=-1, keepdims=True), e.sum(axis=-1, keepdims=True)): without it the (..., L_q) result lines up with the KEY axis and every column is shifted or divided by another row's value", _slip_masked_attention_21),
        ('boolean indexing S[~allowed] breaks a broadcast mask', 'with leading axes, allowed may broadcast over them (e.g. (B, 1, L, L) against (B, h, L, L)): use np.where(allowed, S, -np.inf), which broadcasts, not S[~allowed] = ...; and Q @ np.swapaxes(K, -1, -2), not np.dot or K.T, which mix up the leading axes', _slip_masked_attention_22),
        ('Q scaled in place (Q /= sqrt(d_k))', "never write into Q, K, V or allowed (Q /= ... or S[...] = ... on a view changes the caller's array): compute new arrays instead (S = ... / np.sqrt(d_k) builds one)", _slip_masked_attention_23),
        ('d_k read from Q.shape[1]', 'd_k is Q.shape[-1], the last axis; with leading axes Q.shape[1] is another axis (the heads or the queries)', _slip_masked_attention_24),
        ('weights never divided by the row sum', "divide by each row's sum so that every row of A sums to 1", _slip_masked_attention_25),
        ('additive mask built as (~allowed) * -inf', 'every row came out empty although its query has allowed keys: 0 * -inf is NaN, so (~allowed) * -np.inf poisons the allowed scores too; mask with np.where(allowed, S, -np.inf)', _slip_masked_attention_26),
        ('A returned transposed', 'A is (..., L_q, L_k)', _slip_masked_attention_27),
        ('Y returned transposed', 'Y is (..., L_q, d_v)', _slip_masked_attention_28),
        ('row maximum over blocked keys too, then zeroed and renormalised', "take each row's maximum over its ALLOWED scores (set the blocked ones to -inf first): a blocked key that scores far higher makes exp(allowed score - that maximum) underflow to 0, and a row that has an allowed key comes out empty", _slip_masked_attention_29),
        ("a loop over Q's flattened leading axes, K and V indexed alike", "K and V may have size-1 leading axes where Q has more (one key/value head shared by every query head): Q @ np.swapaxes(K, -1, -2) and A @ V broadcast them; flattening or looping over each array's leading axes on its own does not", _slip_masked_attention_30),
    ],
    'padding_mask': [
        ('lengths off by one (position <= length)', 'positions count from 0: a message of length n has real tokens 0 .. n-1, so position < length', _slip_padding_mask_0),
        ('True and False swapped (True marks the padding)', 'True marks a real token, which may be attended to; padding is False', _slip_padding_mask_1),
        ('padding at the front (left) instead of the end', 'messages are right-padded: the real tokens come first', _slip_padding_mask_2),
        ('shape (L, B)', 'one row per message, one column per position: (B, L)', _slip_padding_mask_3),
        ('lengths off by one (position < length - 1)', 'positions count from 0: a message of length n has real tokens 0 .. n-1, so position < length', _slip_padding_mask_4),
        ('0/1 integers', 'return booleans (True = may attend), not 0/1 numbers or an additive 0/-inf matrix: build it from a comparison such as j <= i, or with dtype=bool', _slip_padding_mask_5),
        ('width taken from the longest message instead of L', 'the mask has L columns (the padded length) even when every message is shorter than L: compare np.arange(L), not np.arange(max(lengths))', _slip_padding_mask_6),
        ("every row built from the first message's length", 'each message (row b) uses its own length lengths[b]: compare the positions with lengths[:, None]', _slip_padding_mask_7),
        ('comparison without new axes', 'compare the positions np.arange(L) as a row (1, L) with the lengths as a column, lengths[:, None] (B, 1): broadcasting gives (B, L)', _slip_padding_mask_8),
        ('the last message left all False (a loop over range(B - 1))', 'fill every message b = 0 .. B-1, the last included: range(len(lengths))', _slip_padding_mask_9),
        ("hard-coded 4 columns (the worked example's L)", "(B, L) with B = len(lengths) and L the argument L: not the worked example's 4. compare the positions np.arange(L) as a row (1, L) with the lengths as a column, lengths[:, None] (B, 1): broadcasting gives (B, L)", _slip_padding_mask_10),
        ('np.squeeze drops the batch axis of a single message', 'keep the batch axis: B = len(lengths) rows even for a single message (padding_mask([3], 5) is (1, 5), attention_mask([2], 3, True) is (1, 3, 3)); np.squeeze drops size-1 axes', _slip_padding_mask_11),
    ],
    'attention_mask': [
        ('padding taken from the query side instead of the key side', 'padding belongs on the KEY side: mask the columns j of padded tokens (real[:, None, :]), so no query reads a <PAD> key', _slip_attention_mask_0),
        ('padded query rows masked as well as padded keys (only the keys are masked here)', 'mask only the key side: a padded query row may still read the real keys (its output is discarded later by the loss mask)', _slip_attention_mask_1),
        ('the causal flag ignored: causal part always applied', 'with causal=False the mask is bidirectional: only padding is blocked; with causal=True also block the future (j <= i)', _slip_attention_mask_2),
        ('causal and padding combined with OR instead of AND', 'a key is allowed only if BOTH masks allow it: use &', _slip_attention_mask_3),
        ('lengths off by one (position <= length)', 'positions count from 0: real keys are j < length', _slip_attention_mask_4),
        ('np.squeeze drops the batch axis of a single message', 'keep the batch axis: B = len(lengths) rows even for a single message (padding_mask([3], 5) is (1, 5), attention_mask([2], 3, True) is (1, 3, 3)); np.squeeze drops size-1 axes', _slip_attention_mask_5),
        ('broadcast shape (B, 1, L) returned for the encoder', 'one (L, L) matrix per message: shape (B, L, L), with B = len(lengths), never a fixed number, and L the argument L', _slip_attention_mask_6),
        ('padding forgotten in the causal branch', 'padded keys must be blocked in the decoder too: combine the causal part and the key mask with &', _slip_attention_mask_7),
        ('diagonal excluded from the causal part (j < i)', 'a query may read itself: the causal part is j <= i, diagonal included', _slip_attention_mask_8),
        ('0/1 integers from a product', 'return booleans (True = may attend), not 0/1 numbers or an additive 0/-inf matrix: build it from a comparison such as j <= i, or with dtype=bool', _slip_attention_mask_9),
        ('causal part transposed (j >= i)', 'row i is query i; it may read columns j <= i', _slip_attention_mask_10),
        ('causal and padding masks combined without new axes', "give each piece its axes: padding_mask(lengths, L)[:, None, :] is (B, 1, L) (one row of keys per message) and causal_mask(L)[None] is (1, L, L); take every size from the arguments (L, len(lengths), X.shape), never the worked example's sizes", _slip_attention_mask_11),
        ('batch size hard-coded to 2 (Message A and Message B)', "give each piece its axes: padding_mask(lengths, L)[:, None, :] is (B, 1, L) (one row of keys per message) and causal_mask(L)[None] is (1, L, L); take every size from the arguments (L, len(lengths), X.shape), never the worked example's sizes", _slip_attention_mask_12),
        ('the last message left all False (a loop over range(B - 1))', 'fill every message b = 0 .. B-1, the last included: range(len(lengths))', _slip_attention_mask_13),
        ('size taken from max(lengths) instead of L', 'one (L, L) matrix per message: shape (B, L, L), with B = len(lengths), never a fixed number, and L the argument L', _slip_attention_mask_14),
        ('padding mask inverted (True on the pads)', 'True marks a real key, which may be read; the <PAD> keys are False', _slip_attention_mask_15),
    ],
}
