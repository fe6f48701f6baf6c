"""Reference answers for notebook 05_multihead: generated, do not edit.

Made by scripts/release.py (`make release`) from the answer cells of
solutions/05_multihead/05_multihead.ipynb. Used by the hidden tests and the project's
own tests; never shipped to students.
"""


# ruff: noqa: E501, I001, F841, UP034
import math
import torch
import torch.nn.functional as F
from torch import nn
from attnbook.shapes import require_integer, require_min_ndim, require_ndim, require_same_size


# name: (options, correct letter, explanation shown when the answer is wrong)
ANSWERS = {
    'answer_head_shape': ('ABC', 'B', 'd_k = d_model / h = 64 / 8 = 8, and split_heads gives (B, h, L, d_k) = (2, 8, 10, 8).'),
    'answer_scale_per_head': ('ABC', 'A', "each head's score is a dot product over its own d_k = 256 / 4 = 64 features, so its spread grows like sqrt(64): divide by 8, not sqrt(d_model) or d_k."),
    'answer_output_projection': ('ABC', 'B', "after the merge, feature block r holds only head r's output; W_O mixes the blocks, so every output feature can combine every head."),
    'answer_broad_head': ('ABC', 'C', 'W_Q = 0 makes every score 0, and the softmax of equal scores is uniform over the allowed keys: `it` may read positions 0 to 7, so each gets 1/8.'),
    'answer_cost': ('ABC', 'C', 'the score tensor holds L x L entries per head: tripling L multiplies it by 9 (doubling it, by 4).'),
}


# -- from the answer cell split_heads
def split_heads(x, n_heads):
    """Give every head its own axis.

    Args:
        x: (B, L, d_model) tensor; features r*d_k .. (r+1)*d_k - 1 belong to head r.
        n_heads: the number of heads h; d_model must be divisible by it.

    Returns:
        (B, h, L, d_k) tensor with d_k = d_model // h; [b, r, l] is head r's slice of token l.
    """
    require_ndim("x", x, 3, "(B, L, d_model)")
    n_heads = require_integer("n_heads", n_heads, 1, "(the number of heads)")
    if x.shape[-1] % n_heads:
        raise ValueError(f"the last axis of x (shape {tuple(x.shape)}) must be divisible by "
                         f"n_heads = {n_heads}, a positive number of heads")
    # Key idea: Heads cut the feature axis into h slices of d_k: view (B, L, d_model) as (B, L, h,
    #   d_k), then move the head axis in front of the positions.
    B, L, d_model = x.shape
    d_k = d_model // n_heads
    return x.view(B, L, n_heads, d_k).transpose(1, 2)  # (B, L, h, d_k) -> (B, h, L, d_k)


# -- from the answer cell merge_heads
def merge_heads(y):
    """Concatenate the heads' outputs along the features: the inverse of split_heads.

    Args:
        y: (B, h, L, d_k) tensor, one (L, d_k) output per head.

    Returns:
        (B, L, h * d_k) tensor; features r*d_k .. (r+1)*d_k - 1 come from head r.
    """
    require_ndim("y", y, 4, "(B, h, L, d_k)")
    # Key idea: Undo the split in the reverse order: positions back in front of heads, then the
    #   heads side by side along the features.
    B, h, L, d_k = y.shape
    return y.transpose(1, 2).reshape(B, L, h * d_k)  # (B, L, h, d_k) -> (B, L, h * d_k)


# -- from the answer cell scaled_dot_product_attention
def scaled_dot_product_attention(q, k, v, allowed=None):
    """Batched scaled dot-product attention with an optional boolean mask.

    Args:
        q: (..., L_q, d_k) queries, e.g. (B, h, L, d_k).
        k: (..., L_k, d_k) keys; its leading axes broadcast against q's, e.g. (B, 1, L_k, d_k)
            for keys shared by every head of q (B, h, L_q, d_k).
        v: (..., L_k, d_v) values; leading axes like k's.
        allowed: None (every key allowed) or booleans broadcastable to (..., L_q, L_k);
            True = the query may read the key.

    Returns:
        (..., L_q, d_v) outputs; a query with no allowed key gets a row of zeros.
    """
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
    if allowed is not None and not isinstance(allowed, torch.Tensor):
        kind = f"{type(allowed).__module__}.{type(allowed).__name__}".removeprefix("builtins.")
        shape = getattr(allowed, "shape", None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may "
                         f"attend); got {kind}{'' if shape is None else f' of shape {shape}'}: "
                         "use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:  # a 0-d mask broadcasts to every score
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
    # Key idea: Notebook 01's attention for any number of leading axes: count axes from the end
    #   (transpose(-2, -1), dim=-1), fill blocked scores with -inf, and zero the rows that have no
    #   allowed key.
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., L_q, d_k) @ (..., d_k, L_k)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))  # (..., L_q, L_k)
    weights = torch.softmax(scores, dim=-1)  # (..., L_q, L_k); NaN where a row is all -inf
    weights = torch.nan_to_num(weights, nan=0.0)  # rows with no allowed key: zeros
    return weights @ v  # (..., L_q, L_k) @ (..., L_k, d_v) -> (..., L_q, d_v)


# -- from the answer cell MultiHeadAttention
class MultiHeadAttention(nn.Module):
    """Multi-head self-attention: Y = Concat(Y_1, ..., Y_h) W_O^T.

    Args:
        d_model: model width, divisible by n_heads.
        n_heads: number of heads h; each has width d_k = d_model // n_heads.

    Layers: W_Q, W_K, W_V, W_O, each nn.Linear(d_model, d_model) with a bias.
    forward(x, allowed=None): x (B, L, d_model); allowed None or booleans broadcastable to
    (B, h, L, L), for example (L, L) or (B, 1, L, L). Returns (B, L, d_model).
    """

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer("d_model", d_model, 1, "(the model width)")
        n_heads = require_integer("n_heads", n_heads, 1, "(the number of heads)")
        if d_model % n_heads:
            raise ValueError(f"d_model = {d_model} must be divisible by n_heads = {n_heads}, "
                             "a positive number of heads")
        self.d_model, self.n_heads, self.d_k = d_model, n_heads, d_model // n_heads
        # Key idea: One projection each for Q, K and V holds every head's weights: split, attend in
        #   each head on its own, merge, and let W_O mix what the heads found.
        self.W_Q = nn.Linear(d_model, d_model)  # every head's query weights, stacked
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)  # mixes the concatenated heads

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim("x", x, 3, "(B, L, d_model)")
        if x.shape[-1] != self.d_model:
            raise ValueError(f"x has shape {tuple(x.shape)}; its last axis must be d_model = "
                             f"{self.d_model}")
        q = split_heads(self.W_Q(x), self.n_heads)  # (B, h, L, d_k)
        k = split_heads(self.W_K(x), self.n_heads)  # (B, h, L, d_k)
        v = split_heads(self.W_V(x), self.n_heads)  # (B, h, L, d_k)
        y = scaled_dot_product_attention(q, k, v, allowed)  # (B, h, L, d_k)
        return self.W_O(merge_heads(y))  # (B, L, d_model)


# -- the catalogued mistakes (autograder/mistakes/), resolved: the hidden trials run
# them on their inputs to name the slip a wrong output matches
# split_heads: reshape without the transpose
def _slip_split_heads_0(x, n_heads):
    require_ndim('x', x, 3, '(B, L, d_model)')
    n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
    if x.shape[-1] % n_heads:
        raise ValueError(f'the last axis of x (shape {tuple(x.shape)}) must be divisible by n_heads = {n_heads}, a positive number of heads')
    B, L, d_model = x.shape
    return x.reshape(B, n_heads, L, d_model // n_heads)

# split_heads: heads interleaved (d_k before h)
def _slip_split_heads_1(x, n_heads):
    require_ndim('x', x, 3, '(B, L, d_model)')
    n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
    if x.shape[-1] % n_heads:
        raise ValueError(f'the last axis of x (shape {tuple(x.shape)}) must be divisible by n_heads = {n_heads}, a positive number of heads')
    B, L, d_model = x.shape
    return x.view(B, L, d_model // n_heads, n_heads).permute(0, 3, 1, 2)

# split_heads: forgot the transpose: (B, L, h, d_k)
def _slip_split_heads_2(x, n_heads):
    require_ndim('x', x, 3, '(B, L, d_model)')
    n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
    if x.shape[-1] % n_heads:
        raise ValueError(f'the last axis of x (shape {tuple(x.shape)}) must be divisible by n_heads = {n_heads}, a positive number of heads')
    B, L, d_model = x.shape
    return x.view(B, L, n_heads, d_model // n_heads)

# split_heads: d_k by true division (a float size)
def _slip_split_heads_3(x, n_heads):
    require_ndim('x', x, 3, '(B, L, d_model)')
    n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
    if x.shape[-1] % n_heads:
        raise ValueError(f'the last axis of x (shape {tuple(x.shape)}) must be divisible by n_heads = {n_heads}, a positive number of heads')
    B, L, d_model = x.shape
    return x.view(B, L, n_heads, d_model / n_heads).transpose(1, 2)

# split_heads: two heads hard-coded (the worked example's h)
def _slip_split_heads_4(x, n_heads):
    require_ndim('x', x, 3, '(B, L, d_model)')
    n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
    if x.shape[-1] % n_heads:
        raise ValueError(f'the last axis of x (shape {tuple(x.shape)}) must be divisible by n_heads = {n_heads}, a positive number of heads')
    B, L, d_model = x.shape
    return x.view(B, L, 2, d_model // 2).transpose(1, 2)

# split_heads: numpy's reshape and transpose: an array, not a tensor
def _slip_split_heads_5(x, n_heads):
    require_ndim('x', x, 3, '(B, L, d_model)')
    n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
    if x.shape[-1] % n_heads:
        raise ValueError(f'the last axis of x (shape {tuple(x.shape)}) must be divisible by n_heads = {n_heads}, a positive number of heads')
    B, L, d_model = x.shape
    d_k = d_model // n_heads
    return x.numpy().reshape(B, L, n_heads, d_k).transpose(0, 2, 1, 3)

# merge_heads: merge by reshaping without the transpose
def _slip_merge_heads_0(y):
    require_ndim('y', y, 4, '(B, h, L, d_k)')
    B, h, L, d_k = y.shape
    return y.reshape(B, L, h * d_k)

# merge_heads: merge with d_k before h
def _slip_merge_heads_1(y):
    require_ndim('y', y, 4, '(B, h, L, d_k)')
    B, h, L, d_k = y.shape
    return y.permute(0, 2, 3, 1).reshape(B, L, h * d_k)

# merge_heads: view on a non-contiguous tensor
def _slip_merge_heads_2(y):
    require_ndim('y', y, 4, '(B, h, L, d_k)')
    B, h, L, d_k = y.shape
    return y.transpose(1, 2).view(B, L, h * d_k)

# merge_heads: transposed L and d_k before the reshape
def _slip_merge_heads_3(y):
    require_ndim('y', y, 4, '(B, h, L, d_k)')
    B, h, L, d_k = y.shape
    return y.transpose(2, 3).reshape(B, L, h * d_k)

# merge_heads: heads summed instead of concatenated
def _slip_merge_heads_4(y):
    require_ndim('y', y, 4, '(B, h, L, d_k)')
    return y.sum(dim=1)

# merge_heads: batch size hard-coded to 1
def _slip_merge_heads_5(y):
    require_ndim('y', y, 4, '(B, h, L, d_k)')
    B, h, L, d_k = y.shape
    return y.transpose(1, 2).reshape(1, L, h * d_k)

# merge_heads: no return: the merged tensor computed and dropped
def _slip_merge_heads_6(y):
    require_ndim('y', y, 4, '(B, h, L, d_k)')
    B, h, L, d_k = y.shape
    merged = y.transpose(1, 2).reshape(B, L, h * d_k)

# scaled_dot_product_attention: mask applied after the softmax
def _slip_scaled_dot_product_attention_0(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    weights = torch.softmax(scores, dim=-1)
    if allowed is not None:
        weights = weights * allowed
    return weights @ v

# scaled_dot_product_attention: row maximum over blocked keys too, then zeroed and renormalised
def _slip_scaled_dot_product_attention_1(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    e = torch.exp(scores - scores.amax(-1, keepdim=True))
    if allowed is not None:
        e = e * allowed
    s = e.sum(-1, keepdim=True)
    return torch.where(s > 0, e / torch.where(s > 0, s, torch.ones_like(s)), 0.0) @ v

# scaled_dot_product_attention: no scaling
def _slip_scaled_dot_product_attention_2(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    scores = q @ k.transpose(-2, -1)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    return torch.nan_to_num(torch.softmax(scores, dim=-1)) @ v

# scaled_dot_product_attention: mask inverted
def _slip_scaled_dot_product_attention_3(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(allowed, float('-inf'))
    return torch.nan_to_num(torch.softmax(scores, dim=-1)) @ v

# scaled_dot_product_attention: NaN for a row with no allowed key
def _slip_scaled_dot_product_attention_4(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    return torch.softmax(scores, dim=-1) @ v

# scaled_dot_product_attention: -1e9 leaves a fully masked row uniform
def _slip_scaled_dot_product_attention_5(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, -1000000000.0)
    return torch.softmax(scores, dim=-1) @ v

# scaled_dot_product_attention: softmax over the query axis
def _slip_scaled_dot_product_attention_6(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    return torch.nan_to_num(torch.softmax(scores, dim=-2)) @ v

# scaled_dot_product_attention: calls PyTorch's fused attention
def _slip_scaled_dot_product_attention_7(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return torch.nan_to_num(out)

# scaled_dot_product_attention: scaled by sqrt(L_k), the number of keys
def _slip_scaled_dot_product_attention_8(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(k.shape[-2])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    return torch.nan_to_num(torch.softmax(scores, dim=-1)) @ v

# scaled_dot_product_attention: scaled by sqrt(d_v), the value width
def _slip_scaled_dot_product_attention_9(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(v.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    return torch.nan_to_num(torch.softmax(scores, dim=-1)) @ v

# scaled_dot_product_attention: scaled after the softmax
def _slip_scaled_dot_product_attention_10(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    scores = q @ k.transpose(-2, -1)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1)) / math.sqrt(q.shape[-1])
    return weights @ v

# scaled_dot_product_attention: mask multiplied into the scores
def _slip_scaled_dot_product_attention_11(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if allowed is not None:
        scores = scores * allowed
    return torch.softmax(scores, dim=-1) @ v

# scaled_dot_product_attention: softmax without dim= (PyTorch's implicit axis)
def _slip_scaled_dot_product_attention_12(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        weights = F.softmax(scores)
    return torch.nan_to_num(weights) @ v

# scaled_dot_product_attention: softmax without subtracting the row maximum
def _slip_scaled_dot_product_attention_13(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    e = torch.exp(scores)
    return torch.nan_to_num(e / e.sum(dim=-1, keepdim=True)) @ v

# scaled_dot_product_attention: returns (Y, A) as in notebook 04
def _slip_scaled_dot_product_attention_14(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1))
    return (weights @ v, weights)

# scaled_dot_product_attention: boolean indexing that cannot broadcast the mask
def _slip_scaled_dot_product_attention_15(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if allowed is not None:
        scores[~allowed] = float('-inf')
    return torch.nan_to_num(torch.softmax(scores, dim=-1)) @ v

# scaled_dot_product_attention: allowed=None not handled
def _slip_scaled_dot_product_attention_16(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~allowed, float('-inf'))
    return torch.nan_to_num(torch.softmax(scores, dim=-1)) @ v

# scaled_dot_product_attention: queries scaled in place (changes the caller's q)
def _slip_scaled_dot_product_attention_17(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    q /= math.sqrt(q.shape[-1])
    scores = q @ k.transpose(-2, -1)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    return torch.nan_to_num(torch.softmax(scores, dim=-1)) @ v

# scaled_dot_product_attention: k.T (reverses every axis of a batch)
def _slip_scaled_dot_product_attention_18(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    scores = q @ k.T / math.sqrt(q.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    return torch.nan_to_num(torch.softmax(scores, dim=-1)) @ v

# scaled_dot_product_attention: softmax over a hard-coded dim=3 (4-D inputs only)
def _slip_scaled_dot_product_attention_19(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    weights = torch.nan_to_num(torch.softmax(scores, dim=3), nan=0.0)
    return weights @ v

# scaled_dot_product_attention: keys transposed with transpose(1, 2) (3-D only)
def _slip_scaled_dot_product_attention_20(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    d_k = q.shape[-1]
    scores = q @ k.transpose(1, 2) / math.sqrt(d_k)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return weights @ v

# scaled_dot_product_attention: d_k read from q.shape[1] (right for 2-D q only)
def _slip_scaled_dot_product_attention_21(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    d_k = q.shape[1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return weights @ v

# scaled_dot_product_attention: d_k ** 1/2 (precedence: d_k / 2)
def _slip_scaled_dot_product_attention_22(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / (d_k ** 1 / 2)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return weights @ v

# scaled_dot_product_attention: mask transposed (allowed.transpose(-2, -1))
def _slip_scaled_dot_product_attention_23(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    if allowed is not None:
        scores = scores.masked_fill(~allowed.transpose(-2, -1), float('-inf'))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return weights @ v

# scaled_dot_product_attention: values multiplied on the left (v^T-free, A^T @ v)
def _slip_scaled_dot_product_attention_24(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return weights.transpose(-2, -1) @ v

# scaled_dot_product_attention: scores q^T k (keys on the left)
def _slip_scaled_dot_product_attention_25(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    d_k = q.shape[-1]
    scores = k @ q.transpose(-2, -1) / math.sqrt(d_k)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return weights @ v

# scaled_dot_product_attention: each tensor flattened to (-1, L, d) for bmm
def _slip_scaled_dot_product_attention_26(q, k, v, allowed=None):
    require_min_ndim('q', q, 2, '(..., L_q, d_k)')
    require_min_ndim('k', k, 2, '(..., L_k, d_k)')
    require_min_ndim('v', v, 2, '(..., L_k, d_v)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of keys L_k')
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(f'the leading axes of q, k and v do not broadcast: q has shape {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}') from None
    if allowed is not None and (not isinstance(allowed, torch.Tensor)):
        kind = f'{type(allowed).__module__}.{type(allowed).__name__}'.removeprefix('builtins.')
        shape = getattr(allowed, 'shape', None)
        raise ValueError(f"allowed must be None or a torch.Tensor of booleans (True = may attend); got {kind}{('' if shape is None else f' of shape {shape}')}: use torch.as_tensor(allowed)")
    if allowed is not None:
        if allowed.dim() > 0:
            require_same_size('allowed', allowed, -1, 'k', k, -2, 'the number of keys L_k')
        scores_shape = (*lead, q.shape[-2], k.shape[-2])
        try:
            torch.broadcast_shapes(allowed.shape, scores_shape)
        except RuntimeError:
            raise ValueError(f"allowed has shape {tuple(allowed.shape)}, which does not broadcast to the scores' shape (..., L_q, L_k) = {scores_shape}") from None
        if allowed.dtype != torch.bool:
            raise ValueError(f'allowed must be a bool tensor (True = may attend); got dtype {allowed.dtype} and shape {tuple(allowed.shape)}')
    lead = q.shape[:-2]
    qf, kf, vf = (t.reshape(-1, *t.shape[-2:]) for t in (q, k, v))
    scores = torch.bmm(qf, kf.transpose(1, 2)) / math.sqrt(q.shape[-1])
    if allowed is not None:
        mask = allowed.expand(*lead, *allowed.shape[-2:]).reshape(scores.shape)
        scores = scores.masked_fill(~mask, float('-inf'))
    weights = torch.softmax(scores, -1).nan_to_num(0.0)
    return torch.bmm(weights, vf).reshape(*lead, q.shape[-2], v.shape[-1])

# MultiHeadAttention: forgot W_O
class _slip_MultiHeadAttention_0(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        return merge_heads(scaled_dot_product_attention(q, k, v, allowed))

# MultiHeadAttention: scaled by d_model instead of d_k
class _slip_MultiHeadAttention_1(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_model)
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float('-inf'))
        y = torch.nan_to_num(torch.softmax(scores, dim=-1)) @ v
        return self.W_O(merge_heads(y))

# MultiHeadAttention: its own attention, blocked scores filled with -1e9 (Annotated Transformer)
class _slip_MultiHeadAttention_2(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k)
        if allowed is not None:
            scores = scores.masked_fill(~allowed, -1000000000.0)
        y = torch.softmax(scores, dim=-1) @ v
        return self.W_O(merge_heads(y))

# MultiHeadAttention: its own attention, an additive mask (allowed.float() - 1) * 1e9
class _slip_MultiHeadAttention_3(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k)
        if allowed is not None:
            scores = scores + (allowed.float() - 1) * 1000000000.0
        y = torch.softmax(scores, dim=-1) @ v
        return self.W_O(merge_heads(y))

# MultiHeadAttention: split by reshaping without the transpose
class _slip_MultiHeadAttention_4(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        B, L, _ = x.shape
        q = self.W_Q(x).reshape(B, self.n_heads, L, self.d_k)
        k = self.W_K(x).reshape(B, self.n_heads, L, self.d_k)
        v = self.W_V(x).reshape(B, self.n_heads, L, self.d_k)
        y = scaled_dot_product_attention(q, k, v, allowed)
        return self.W_O(merge_heads(y))

# MultiHeadAttention: merged without the transpose
class _slip_MultiHeadAttention_5(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        B, L, _ = x.shape
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        y = scaled_dot_product_attention(q, k, v, allowed)
        return self.W_O(y.reshape(B, L, self.d_model))

# MultiHeadAttention: mask inverted (nn.MultiheadAttention's convention, True = blocked)
class _slip_MultiHeadAttention_6(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        y = scaled_dot_product_attention(q, k, v, None if allowed is None else ~allowed)
        return self.W_O(merge_heads(y))

# MultiHeadAttention: mask not passed on
class _slip_MultiHeadAttention_7(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
        return self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, None)))

# MultiHeadAttention: queries and keys detached: W_Q and W_K never train
class _slip_MultiHeadAttention_8(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q = split_heads(self.W_Q(x), self.n_heads).detach()
        k = split_heads(self.W_K(x), self.n_heads).detach()
        v = split_heads(self.W_V(x), self.n_heads)
        y = scaled_dot_product_attention(q, k, v, allowed)
        return self.W_O(merge_heads(y))

# MultiHeadAttention: W_Q and W_K frozen (requires_grad False)
class _slip_MultiHeadAttention_9(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_Q.requires_grad_(False)
        self.W_K.requires_grad_(False)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        y = scaled_dot_product_attention(q, k, v, allowed)
        return self.W_O(merge_heads(y))

# MultiHeadAttention: linear layers without bias
class _slip_MultiHeadAttention_10(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model, bias=False)
        self.W_K = nn.Linear(d_model, d_model, bias=False)
        self.W_V = nn.Linear(d_model, d_model, bias=False)
        self.W_O = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        y = scaled_dot_product_attention(q, k, v, allowed)
        return self.W_O(merge_heads(y))

# MultiHeadAttention: projection widths d_k instead of d_model
class _slip_MultiHeadAttention_11(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, self.d_k)
        self.W_K = nn.Linear(d_model, self.d_k)
        self.W_V = nn.Linear(d_model, self.d_k)
        self.W_O = nn.Linear(self.d_k, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        y = scaled_dot_product_attention(q, k, v, allowed)
        return self.W_O(merge_heads(y))

# MultiHeadAttention: layers under other names
class _slip_MultiHeadAttention_12(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.query = nn.Linear(d_model, d_model)
        self.key = nn.Linear(d_model, d_model)
        self.value = nn.Linear(d_model, d_model)
        self.out = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q = split_heads(self.query(x), self.n_heads)
        k = split_heads(self.key(x), self.n_heads)
        v = split_heads(self.value(x), self.n_heads)
        y = scaled_dot_product_attention(q, k, v, allowed)
        return self.out(merge_heads(y))

# MultiHeadAttention: one head over the whole width
class _slip_MultiHeadAttention_13(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q, k, v = (split_heads(W(x), 1) for W in (self.W_Q, self.W_K, self.W_V))
        return self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed)))

# MultiHeadAttention: keys projected with W_Q (copy-paste)
class _slip_MultiHeadAttention_14(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_Q(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        return self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed)))

# MultiHeadAttention: values projected with W_K (copy-paste)
class _slip_MultiHeadAttention_15(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_K(x), self.n_heads)
        return self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed)))

# MultiHeadAttention: a causal mask always applied
class _slip_MultiHeadAttention_16(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        L = x.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=x.device).tril()
        allowed = causal if allowed is None else causal & allowed
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        y = scaled_dot_product_attention(q, k, v, allowed)
        return self.W_O(merge_heads(y))

# MultiHeadAttention: residual added inside the attention layer
class _slip_MultiHeadAttention_17(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
        return x + self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed)))

# MultiHeadAttention: split into d_k heads of width n_heads
class _slip_MultiHeadAttention_18(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q, k, v = (split_heads(W(x), self.d_k) for W in (self.W_Q, self.W_K, self.W_V))
        return self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed)))

# MultiHeadAttention: one Linear shared by W_Q, W_K and W_V
class _slip_MultiHeadAttention_19(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = self.W_K = self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        y = scaled_dot_product_attention(q, k, v, allowed)
        return self.W_O(merge_heads(y))

# MultiHeadAttention: W_O applied to the values before attending
class _slip_MultiHeadAttention_20(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_O(self.W_V(x)), self.n_heads)
        y = scaled_dot_product_attention(q, k, v, allowed)
        return merge_heads(y)

# MultiHeadAttention: F.dropout on the weights (training=True by default)
class _slip_MultiHeadAttention_21(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k)
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float('-inf'))
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        weights = F.dropout(weights, 0.1)
        return self.W_O(merge_heads(weights @ v))

# MultiHeadAttention: x @ W.weight (the nn.Linear weight not transposed)
class _slip_MultiHeadAttention_22(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q = split_heads(x @ self.W_Q.weight + self.W_Q.bias, self.n_heads)
        k = split_heads(x @ self.W_K.weight + self.W_K.bias, self.n_heads)
        v = split_heads(x @ self.W_V.weight + self.W_V.bias, self.n_heads)
        y = scaled_dot_product_attention(q, k, v, allowed)
        return merge_heads(y) @ self.W_O.weight + self.W_O.bias

# MultiHeadAttention: two heads hard-coded in forward
class _slip_MultiHeadAttention_23(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q = split_heads(self.W_Q(x), 2)
        k = split_heads(self.W_K(x), 2)
        v = split_heads(self.W_V(x), 2)
        return self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed)))

# MultiHeadAttention: queries pre-scaled, then scaled again by the attention
class _slip_MultiHeadAttention_24(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q = split_heads(self.W_Q(x), self.n_heads) / math.sqrt(self.d_k)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        return self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed)))

# MultiHeadAttention: returns (output, weights)
class _slip_MultiHeadAttention_25(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k)
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float('-inf'))
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        return (self.W_O(merge_heads(weights @ v)), weights)

# MultiHeadAttention: mask unsqueezed for the heads even when it has them
class _slip_MultiHeadAttention_26(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        if allowed is not None:
            allowed = allowed.unsqueeze(1)
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        return self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed)))

# MultiHeadAttention: values not projected (raw x split into heads)
class _slip_MultiHeadAttention_27(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(x, self.n_heads)
        return self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed)))

# MultiHeadAttention: sequence-first: x.transpose(0, 1) before the heads
class _slip_MultiHeadAttention_28(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        x = x.transpose(0, 1)
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        y = merge_heads(scaled_dot_product_attention(q, k, v, allowed))
        return self.W_O(y).transpose(0, 1)

# MultiHeadAttention: output projection W_O applied twice
class _slip_MultiHeadAttention_29(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        return self.W_O(self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed))))

# MultiHeadAttention: forward without return
class _slip_MultiHeadAttention_30(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        d_model = require_integer('d_model', d_model, 1, '(the model width)')
        n_heads = require_integer('n_heads', n_heads, 1, '(the number of heads)')
        if d_model % n_heads:
            raise ValueError(f'd_model = {d_model} must be divisible by n_heads = {n_heads}, a positive number of heads')
        self.d_model, self.n_heads, self.d_k = (d_model, n_heads, d_model // n_heads)
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def forward(self, x, allowed=None):
        """x: (B, L, d_model) -> (B, L, d_model); allowed as in the class docstring."""
        require_ndim('x', x, 3, '(B, L, d_model)')
        if x.shape[-1] != self.d_model:
            raise ValueError(f'x has shape {tuple(x.shape)}; its last axis must be d_model = {self.d_model}')
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed)))


# function: [(mistake, its hint, the mistake as a function)]
SLIPS = {
    'split_heads': [
        ('reshape without the transpose', 'reshaping (B, L, d_model) straight to (B, h, L, d_k) mixes positions and heads: view it as (B, L, h, d_k) first, then swap the L and h axes with .transpose(1, 2)', _slip_split_heads_0),
        ('heads interleaved (d_k before h)', 'head r owns the contiguous features r*d_k .. (r+1)*d_k - 1: view as (B, L, h, d_k), not (B, L, d_k, h)', _slip_split_heads_1),
        ('forgot the transpose: (B, L, h, d_k)', '(B, L, d_model) -> (B, h, L, d_k): h is n_heads and d_k is d_model // n_heads; both come from the arguments (not the worked example), and the batch axis B stays first', _slip_split_heads_2),
        ('d_k by true division (a float size)', 'sizes must be ints: d_k is d_model // n_heads (integer division), not d_model / n_heads', _slip_split_heads_3),
        ("two heads hard-coded (the worked example's h)", '(B, L, d_model) -> (B, h, L, d_k): h is n_heads and d_k is d_model // n_heads; both come from the arguments (not the worked example), and the batch axis B stays first', _slip_split_heads_4),
        ("numpy's reshape and transpose: an array, not a tensor", 'stay in PyTorch: use tensor methods (.view, .transpose, @), not numpy', _slip_split_heads_5),
    ],
    'merge_heads': [
        ('merge by reshaping without the transpose', "merge in the reverse order of the split: y.transpose(1, 2) gives (B, L, h, d_k), then .reshape(B, L, h * d_k) puts head 0's features first", _slip_merge_heads_0),
        ('merge with d_k before h', "merge in the reverse order of the split: y.transpose(1, 2) gives (B, L, h, d_k), then .reshape(B, L, h * d_k) puts head 0's features first", _slip_merge_heads_1),
        ('view on a non-contiguous tensor', 'after a transpose the tensor is no longer contiguous, so .view cannot regroup its axes: use .reshape (or .contiguous() before .view)', _slip_merge_heads_2),
        ('transposed L and d_k before the reshape', "merge in the reverse order of the split: y.transpose(1, 2) gives (B, L, h, d_k), then .reshape(B, L, h * d_k) puts head 0's features first", _slip_merge_heads_3),
        ('heads summed instead of concatenated', '(B, h, L, d_k) -> (B, L, h * d_k): take the sizes from y.shape in that order and concatenate the heads side by side along the features (summing or averaging them loses the h axis)', _slip_merge_heads_4),
        ('batch size hard-coded to 1', 'take every size from the input itself (B, h, L, d_k = y.shape; d_k is d_model // n_heads): numbers from the worked example break other sizes', _slip_merge_heads_5),
        ('no return: the merged tensor computed and dropped', 'end merge_heads with `return` and its result', _slip_merge_heads_6),
    ],
    'scaled_dot_product_attention': [
        ('mask applied after the softmax', 'set blocked scores to -inf BEFORE the softmax (masked_fill(~allowed, -inf)); zeroing weights after it leaves rows that do not sum to 1', _slip_scaled_dot_product_attention_0),
        ('row maximum over blocked keys too, then zeroed and renormalised', "take each row's maximum over its ALLOWED scores (masked_fill(~allowed, -inf) first): a blocked key that scores far higher makes the allowed ones underflow to 0", _slip_scaled_dot_product_attention_1),
        ('no scaling', 'divide the scores by sqrt(d_k) = sqrt(q.shape[-1])', _slip_scaled_dot_product_attention_2),
        ('mask inverted', "True means 'may attend': fill -inf where allowed is False, i.e. ~allowed", _slip_scaled_dot_product_attention_3),
        ('NaN for a row with no allowed key', 'a query with no allowed key has only -inf scores and torch.softmax returns NaN for it: give such rows zero weights (for example torch.nan_to_num or torch.where on the row)', _slip_scaled_dot_product_attention_4),
        ('-1e9 leaves a fully masked row uniform', 'a row with no allowed key came out uniform: use -inf and give such rows zero weights', _slip_scaled_dot_product_attention_5),
        ('softmax over the query axis', "each query's weights (the last axis, dim=-1) must sum to 1", _slip_scaled_dot_product_attention_6),
        ("calls PyTorch's fused attention", "write the scores, the mask, the softmax and the weighted sum yourself; the checks compare with PyTorch's kernel for you", _slip_scaled_dot_product_attention_7),
        ('scaled by sqrt(L_k), the number of keys', 'divide by sqrt(d_k) = sqrt(q.shape[-1]), the width of a query, not by the square root of a sequence length', _slip_scaled_dot_product_attention_8),
        ('scaled by sqrt(d_v), the value width', 'divide by sqrt(d_k) = sqrt(q.shape[-1]), the query/key width; d_v = v.shape[-1] may differ', _slip_scaled_dot_product_attention_9),
        ('scaled after the softmax', 'divide the scores by sqrt(d_k) before the softmax; afterwards the weights no longer sum to 1', _slip_scaled_dot_product_attention_10),
        ('mask multiplied into the scores', "a blocked score must be -inf, not 0 (exp(0) = 1 still gives the key weight): scores.masked_fill(~allowed, float('-inf'))", _slip_scaled_dot_product_attention_11),
        ("softmax without dim= (PyTorch's implicit axis)", 'always name the axis: torch.softmax(scores, dim=-1); without dim= PyTorch guesses axis 1 for a 4-axis tensor', _slip_scaled_dot_product_attention_12),
        ('softmax without subtracting the row maximum', "exp of a large score overflows: subtract each row's maximum before exponentiating (torch.softmax does this for you)", _slip_scaled_dot_product_attention_13),
        ('returns (Y, A) as in notebook 04', 'return only the output (a single tensor), not (Y, A) as masked_attention did in notebook 04', _slip_scaled_dot_product_attention_14),
        ('boolean indexing that cannot broadcast the mask', "boolean indexing scores[~allowed] needs a mask of the scores' own shape; scores.masked_fill(~allowed, -inf) broadcasts allowed for you", _slip_scaled_dot_product_attention_15),
        ('allowed=None not handled', 'allowed=None means no mask: only fill -inf when allowed is not None', _slip_scaled_dot_product_attention_16),
        ("queries scaled in place (changes the caller's q)", "work on new tensors (q = q / ..., not q /= ...): the caller's q, k, v and allowed must stay as they were", _slip_scaled_dot_product_attention_17),
        ('k.T (reverses every axis of a batch)', 'k.T reverses EVERY axis of a batched tensor: use k.transpose(-2, -1) (or k.mT) to swap only the last two', _slip_scaled_dot_product_attention_18),
        ('softmax over a hard-coded dim=3 (4-D inputs only)', 'the inputs may have any number of leading axes (2-D, 3-D or 4-D): count axes from the end (dim=-1, k.transpose(-2, -1), q.shape[-1]), never from the front', _slip_scaled_dot_product_attention_19),
        ('keys transposed with transpose(1, 2) (3-D only)', 'the inputs may have any number of leading axes (2-D, 3-D or 4-D): count axes from the end (dim=-1, k.transpose(-2, -1), q.shape[-1]), never from the front', _slip_scaled_dot_product_attention_20),
        ('d_k read from q.shape[1] (right for 2-D q only)', 'd_k is q.shape[-1], the last axis: the inputs may have any number of leading axes (2-D, 3-D or 4-D): count axes from the end (dim=-1, k.transpose(-2, -1), q.shape[-1]), never from the front', _slip_scaled_dot_product_attention_21),
        ('d_k ** 1/2 (precedence: d_k / 2)', '** binds tighter than /: d_k ** 1/2 is d_k / 2; write d_k ** 0.5 or math.sqrt(d_k)', _slip_scaled_dot_product_attention_22),
        ('mask transposed (allowed.transpose(-2, -1))', 'allowed[..., i, j] says whether query i may read key j: use the mask as given, rows are queries; do not transpose it', _slip_scaled_dot_product_attention_23),
        ('values multiplied on the left (v^T-free, A^T @ v)', "the output is weights @ v with weights (..., L_q, L_k): each query's row of weights mixes the values", _slip_scaled_dot_product_attention_24),
        ('scores q^T k (keys on the left)', 'scores = q @ k.transpose(-2, -1): row i is query i, column j is key j', _slip_scaled_dot_product_attention_25),
        ('each tensor flattened to (-1, L, d) for bmm', 'k and v may have size-1 leading axes where q has more (one key/value head shared by every query head): q @ k.transpose(-2, -1) and weights @ v broadcast them; reshaping each tensor to (-1, L, d) for bmm does not', _slip_scaled_dot_product_attention_26),
    ],
    'MultiHeadAttention': [
        ('forgot W_O', 'finish with self.W_O(merge_heads(...)): the output projection mixes the heads', _slip_MultiHeadAttention_0),
        ('scaled by d_model instead of d_k', "each head's scores are q.k over d_k = d_model / n_heads features: divide by sqrt(d_k), not sqrt(d_model)", _slip_MultiHeadAttention_1),
        ('its own attention, blocked scores filled with -1e9 (Annotated Transformer)', 'a row with no allowed key came out uniform: use -inf and give such rows zero weights', _slip_MultiHeadAttention_2),
        ('its own attention, an additive mask (allowed.float() - 1) * 1e9', 'a row with no allowed key came out uniform: use -inf and give such rows zero weights', _slip_MultiHeadAttention_3),
        ('split by reshaping without the transpose', 'reshaping (B, L, d_model) straight to (B, h, L, d_k) mixes positions and heads: view it as (B, L, h, d_k) first, then swap the L and h axes with .transpose(1, 2)', _slip_MultiHeadAttention_4),
        ('merged without the transpose', "merge in the reverse order of the split: y.transpose(1, 2) gives (B, L, h, d_k), then .reshape(B, L, h * d_k) puts head 0's features first", _slip_MultiHeadAttention_5),
        ("mask inverted (nn.MultiheadAttention's convention, True = blocked)", "here True means 'may attend': pass allowed on as it is; only nn.MultiheadAttention's attn_mask takes True as blocked", _slip_MultiHeadAttention_6),
        ('mask not passed on', 'pass allowed on to scaled_dot_product_attention', _slip_MultiHeadAttention_7),
        ('queries and keys detached: W_Q and W_K never train', 'keep the graph: no torch.no_grad(), .detach(), numpy round trip or requires_grad=False in forward, in the functions it calls or on the parameters; the output must carry gradients back to the parameters, or the model cannot train', _slip_MultiHeadAttention_8),
        ('W_Q and W_K frozen (requires_grad False)', 'keep the graph: no torch.no_grad(), .detach(), numpy round trip or requires_grad=False in forward, in the functions it calls or on the parameters; the output must carry gradients back to the parameters, or the model cannot train', _slip_MultiHeadAttention_9),
        ('linear layers without bias', 'nn.Linear(d_model, d_model, bias=True) (the default)', _slip_MultiHeadAttention_10),
        ('projection widths d_k instead of d_model', 'nn.Linear(d_model, d_model)', _slip_MultiHeadAttention_11),
        ('layers under other names', 'create self.W_Q, self.W_K, self.W_V and self.W_O as nn.Linear(d_model, d_model) in __init__', _slip_MultiHeadAttention_12),
        ('one head over the whole width', 'split the projections into n_heads heads before attending', _slip_MultiHeadAttention_13),
        ('keys projected with W_Q (copy-paste)', 'the keys come from their own layer: k = split_heads(self.W_K(x), ...)', _slip_MultiHeadAttention_14),
        ('values projected with W_K (copy-paste)', 'the values come from their own layer: v = split_heads(self.W_V(x), ...)', _slip_MultiHeadAttention_15),
        ('a causal mask always applied', 'apply only the mask it is given: allowed=None means every key is allowed; the caller decides about causality', _slip_MultiHeadAttention_16),
        ('residual added inside the attention layer', 'return W_O(merge_heads(...)) only: the block adds the residual, not the attention layer', _slip_MultiHeadAttention_17),
        ('split into d_k heads of width n_heads', 'split_heads(..., self.n_heads): n_heads heads of width d_k', _slip_MultiHeadAttention_18),
        ('one Linear shared by W_Q, W_K and W_V', 'exactly four nn.Linear(d_model, d_model) layers and nothing else with parameters', _slip_MultiHeadAttention_19),
        ('W_O applied to the values before attending', 'the output projection W_O comes last, applied to the merged heads', _slip_MultiHeadAttention_20),
        ('F.dropout on the weights (training=True by default)', 'in eval mode the module must be deterministic: F.dropout(t, p) defaults to training=True, so use an nn.Dropout module (switched off by .eval()) or pass training=self.training', _slip_MultiHeadAttention_21),
        ('x @ W.weight (the nn.Linear weight not transposed)', 'nn.Linear stores its weight as (out, in): call the layer, self.W_Q(x), or write x @ W.weight.T + W.bias (invisible in the shapes when the matrix is square)', _slip_MultiHeadAttention_22),
        ('two heads hard-coded in forward', "split into self.n_heads heads, the number the module was built with, not the worked example's 2", _slip_MultiHeadAttention_23),
        ('queries pre-scaled, then scaled again by the attention', 'scale once: scaled_dot_product_attention already divides the scores by sqrt(d_k)', _slip_MultiHeadAttention_24),
        ('returns (output, weights)', 'return only the output (a single tensor), not (Y, A) as masked_attention did in notebook 04', _slip_MultiHeadAttention_25),
        ('mask unsqueezed for the heads even when it has them', 'pass allowed on unchanged: an (L, L) or (B, 1, L, L) mask already broadcasts against the scores (B, h, L, L)', _slip_MultiHeadAttention_26),
        ('values not projected (raw x split into heads)', 'the values come from their own layer: v = split_heads(self.W_V(x), ...)', _slip_MultiHeadAttention_27),
        ('sequence-first: x.transpose(0, 1) before the heads', "x is batch-first, (B, L, d_model): attend over its L axis and never transpose the batch away (nn.MultiheadAttention's default is sequence-first; this course is batch-first)", _slip_MultiHeadAttention_28),
        ('output projection W_O applied twice', 'apply W_O once, to the merged heads', _slip_MultiHeadAttention_29),
        ('forward without return', 'end MultiHeadAttention.forward with `return` and its result', _slip_MultiHeadAttention_30),
    ],
}
