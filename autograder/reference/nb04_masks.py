"""Reference answers for notebook 04_masks: generated, do not edit.

Made by scripts/release.py (`make release`) from the answer cells of
solutions/04_masks/04_masks.ipynb. Used by the hidden tests and the project's
own tests; never shipped to students.
"""


# ruff: noqa: E501, I001
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
    positions = np.arange(L)
    return positions[None, :] <= positions[:, None]  # (1, L) <= (L, 1) -> (L, L)


# -- from the answer cell masked_attention
def masked_attention(Q, K, V, allowed):
    """Scaled dot-product attention in which each query reads only its allowed keys.

    Args:
        Q: (..., L_q, d_k) queries; any number of leading axes (batch, heads).
        K: (..., L_k, d_k) keys.
        V: (..., L_k, d_v) values, one row per key.
        allowed: booleans broadcastable to (..., L_q, L_k); True = query may read the key.

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
    positions = np.arange(L)  # (L,)
    return positions[None, :] < lengths[:, None]  # (1, L) < (B, 1) -> (B, L)


# -- from the answer cell attention_mask
def attention_mask(lengths, L, causal):
    """The allowed matrices of a right-padded batch: key padding, plus causal if asked.

    Args:
        lengths: (B,) integers, real tokens per message (0 <= length <= L); a list works too.
        L: the padded length of the batch.
        causal: True for a decoder (query i reads keys j <= i), False for a bidirectional
            encoder.

    Returns:
        allowed: (B, L, L) booleans; allowed[b, i, j] is True when key j is a real token of
        message b and, if causal, j <= i. Padded query rows are not blocked.
    """
    L = require_integer("L", L, 0, "(the padded length)")
    lengths = require_lengths("lengths", lengths, L)  # (B,) whole numbers in 0 .. L
    keys = padding_mask(lengths, L)[:, None, :]  # (B, 1, L): the same row for every query
    if causal:
        keys = keys & causal_mask(L)[None, :, :]  # (B, 1, L) & (1, L, L) -> (B, L, L)
    return np.broadcast_to(keys, (len(lengths), L, L)).copy()  # (B, L, L)
