"""Reference answers for notebook 04, written the way the exercises ask (numpy, float64).

Used by the hidden tests and the project's own tests; never shipped to students.
"""

import numpy as np

ANSWERS = {
    # name: (options, correct letter, explanation shown when the answer is wrong)
    "answer_mask_controls": ("ABC", "C", "a causal mask only decides which earlier or current keys "
                             "a query may read; it says nothing about where a token is or how far "
                             "apart two are."),
    "answer_mask_order": ("ABC", "A", "zeroing after the softmax keeps the other weights as they "
                          "were, so the row sums to less than 1, and the blocked keys still sit in "
                          "the denominator."),
    "answer_padding_side": ("ABC", "B", "with right padding the pads come after every real token, "
                            "so the causal mask already hides them from real queries; an encoder "
                            "needs the key mask."),
    "answer_loss_mask": ("ABC", "B", "a padded target is not a real next token: counting it would "
                         "teach the model to predict <PAD>. The key padding mask acts on "
                         "attention, not on the loss."),
    "answer_encoder_decoder": ("ABC", "A", "generation predicts the next token from the prefix, so "
                               "a query may read only positions j <= i: the causal mask."),
    "answer_shuffled_prefix": ("ABC", "C", "the causal mask changes which keys a token may read: "
                               "at position 0 it reads only itself, so its output changes, yet the "
                               "mask tells it nothing about where it stands."),
}


def causal_mask(L):
    return np.tril(np.ones((L, L), dtype=bool))


def padding_mask(lengths, L):
    lengths = np.asarray(lengths)
    return np.arange(L)[None, :] < lengths[:, None]


def attention_mask(lengths, L, causal):
    keys = padding_mask(lengths, L)[:, None, :]  # (B, 1, L)
    allowed = keys & causal_mask(L) if causal else keys
    return np.broadcast_to(allowed, (len(keys), L, L)).copy()


def masked_attention(Q, K, V, allowed):
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    S = np.where(allowed, S, -np.inf)
    row_max = S.max(axis=-1, keepdims=True)
    e = np.exp(S - np.where(np.isfinite(row_max), row_max, 0.0))
    total = e.sum(axis=-1, keepdims=True)
    A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return A @ V, A
