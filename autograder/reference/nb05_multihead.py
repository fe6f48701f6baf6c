"""Reference answers for notebook 05, written the way the exercises ask (PyTorch).

Used by the hidden tests and the project's own tests; never shipped to students.
"""

import math

import torch
from torch import nn

from attnbook.shapes import require_min_ndim, require_ndim, require_same_size

ANSWERS = {
    # name: (options, correct letter, explanation shown when the answer is wrong)
    "answer_head_shape": ("ABC", "B", "d_k = d_model / h = 64 / 8 = 8, and split_heads gives (B, "
                          "h, L, d_k) = (2, 8, 10, 8)."),
    "answer_scale_per_head": ("ABC", "A", "each head's score is a dot product over its own d_k = "
                              "256 / 4 = 64 features, so its spread grows like sqrt(64): divide by "
                              "8, not sqrt(d_model) or d_k."),
    "answer_output_projection": ("ABC", "B", "after the merge, feature block r holds only head r's "
                                 "output; W_O mixes the blocks, so every output feature can "
                                 "combine every head."),
    "answer_broad_head": ("ABC", "C", "W_Q = 0 makes every score 0, and the softmax of equal "
                          "scores is uniform over the allowed keys: `it` may read positions 0 to "
                          "7, so each gets 1/8."),
    "answer_cost": ("ABC", "C", "the score tensor holds L x L entries per head: tripling L "
                    "multiplies it by 9 (doubling it, by 4)."),
}


def split_heads(x, n_heads):
    require_ndim("x", x, 3, "(B, L, d_model)")
    if n_heads < 1 or x.shape[-1] % n_heads:
        raise ValueError(f"the last axis of x (shape {tuple(x.shape)}) must be divisible by "
                         f"n_heads = {n_heads}, a positive number of heads")
    B, L, d_model = x.shape
    return x.view(B, L, n_heads, d_model // n_heads).transpose(1, 2)


def merge_heads(y):
    require_ndim("y", y, 4, "(B, h, L, d_k)")
    B, h, L, d_k = y.shape
    return y.transpose(1, 2).reshape(B, L, h * d_k)


def scaled_dot_product_attention(q, k, v, allowed=None):
    require_min_ndim("q", q, 2, "(..., L_q, d_k)")
    require_min_ndim("k", k, 2, "(..., L_k, d_k)")
    require_min_ndim("v", v, 2, "(..., L_k, d_v)")
    require_same_size("q", q, -1, "k", k, -1, "the query/key width d_k")
    require_same_size("k", k, -2, "v", v, -2, "the number of keys L_k")
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f"the leading axes of q, k and v do not broadcast: q has shape "
                         f"{tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}") from None
    if allowed is not None:
        require_same_size("allowed", allowed, -1, "k", k, -2, "the number of keys L_k")
        scores_shape = (*lead, q.shape[-2], k.shape[-2])  # (..., L_q, L_k)
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not "
                             f"broadcast to the scores' shape (..., L_q, L_k) = "
                             f"{scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f"allowed must be a bool tensor (True = may attend); got dtype "
                             f"{allowed.dtype} and shape {tuple(allowed.shape)}")
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return weights @ v


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        if n_heads < 1 or d_model % n_heads:
            raise ValueError(f"d_model = {d_model} must be divisible by n_heads = {n_heads}, "
                             "a positive number of heads")
        self.d_model, self.n_heads = d_model, n_heads
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        require_ndim("x", x, 3, "(B, L, d_model)")
        if x.shape[-1] != self.d_model:
            raise ValueError(f"x has shape {tuple(x.shape)}; its last axis must be d_model = "
                             f"{self.d_model}")
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
        return self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed)))
