"""Reference answers for notebook 10_modern_decoder: generated, do not edit.

Made by scripts/release.py (`make release`) from the answer cells of
solutions/10_modern_decoder/10_modern_decoder.ipynb. Used by the hidden tests and the project's
own tests; never shipped to students.
"""


# ruff: noqa: E501, I001, F841, UP034
import math
import torch
import torch.nn.functional as F
from torch import nn
from attnbook.demos.nb06 import require_last_axis
from attnbook.demos.nb10 import require_cache, require_gqa_inputs, require_head_counts, require_past, require_rope
from attnbook.lm.model import rope_tables, rotate_pairs
from attnbook.shapes import require_integer, require_min_ndim, require_ndim, require_number, require_same_size


# name: (options, correct letter, explanation shown when the answer is wrong)
ANSWERS = {
    'answer_rms_drops': ('ABC', 'A', "RMSNorm never subtracts the mean: it divides by sqrt(mean(x^2)) = 3. Zeros would be LayerNorm's answer; 0.5 divides by the L2 norm 6 instead of the root mean square."),
    'answer_swiglu_width': ('ABC', 'C', 'SwiGLU has three d x d_h matrices: 3 * 1024 * 3072 against 2 * 1024 * 4096, a ratio of 9/8; 3/4 forgets the gate, 3/2 gives all three matrices the width 4d.'),
    'answer_kv_group': ('ABC', 'B', 'consecutive query heads share a key/value head: head r reads r // (h / h_kv), here 5 // 2 = 2 (repeat_interleave), not r mod h_kv (which would be repeat).'),
    'answer_cache_32k': ('ABC', 'B', '2 * 28 * 8 * 128 * 32768 * 2 bytes = 3.5 GiB; 1.75 GiB forgets that keys and values are both kept, 7 GiB counts the 16 query heads.'),
    'answer_qk_norm': ('ABC', 'C', 'QK-norm is an RMSNorm over each query and key head, before RoPE: it divides a scaled query by its scaled root mean square, so a common factor cancels.'),
    'answer_rope_layout': ('ABC', 'A', 'feature 64 is the second of pair 0 (features 0 and 64) in the checkpoint; our pair 0 is features 0 and 1, so it goes to feature 1.'),
    'answer_cache_contents': ('ABC', 'B', 'a key is rotated by its own position only; the query at 100 carries the other angle, and the score sees their difference. So rotated keys can be cached as they are.'),
    'answer_shared_kv': ('ABC', 'A', 'heads of a group share keys and values but each has its own queries (its own rows of W_Q), so their weights, and outputs, differ unless the weights agree.'),
}


# -- from the answer cell rms_norm
def rms_norm(h, gamma, eps=1e-6):
    """RMSNorm over the last axis.

    Args:
        h: (..., d) tensor; each slice along the last axis is one token's features.
        gamma: (d,) scale.
        eps: small constant added to the mean square inside the square root.

    Returns:
        (..., d) tensor: gamma * h / sqrt(mean(h ** 2) + eps), the mean taken over each
        token's d features. h is not modified.
    """
    require_min_ndim("h", h, 1, "(..., d)")
    require_ndim("gamma", gamma, 1, "(d,)")
    require_same_size("gamma", gamma, 0, "h", h, -1, "the feature width d")
    # Key idea: LayerNorm without the centring: divide each token by the root of its mean square
    #   over the last axis (plus eps), then scale by gamma; no mean and no beta.
    mean_square = (h ** 2).mean(dim=-1, keepdim=True)  # (..., 1)
    return gamma * h / torch.sqrt(mean_square + eps)  # (..., d)


# -- from the answer cell SwiGLU
class SwiGLU(nn.Module):
    """Gated MLP: w_down(SiLU(w_gate(x)) * w_up(x)), every layer without bias.

    Attributes:
        w_gate: nn.Linear(d_model, d_hidden, bias=False).
        w_up: nn.Linear(d_model, d_hidden, bias=False).
        w_down: nn.Linear(d_hidden, d_model, bias=False).
    """

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        # Key idea: Two projections up side by side: one, through SiLU, gates the other
        #   elementwise; one projection down. No biases.
        self.w_gate = nn.Linear(d_model, d_hidden, bias=False)
        self.w_up = nn.Linear(d_model, d_hidden, bias=False)
        self.w_down = nn.Linear(d_hidden, d_model, bias=False)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis("x", x, self.d_model, "d_model")
        return self.w_down(F.silu(self.w_gate(x)) * self.w_up(x))  # (..., d_hidden) -> (..., d)


# -- from the answer cell grouped_query_attention
def grouped_query_attention(q, k, v, allowed=None):
    """Masked attention in which query head r reads key/value head r // (h / h_kv).

    Args:
        q: (B, h, L_q, d_k) queries.
        k: (B, h_kv, L_k, d_k) keys; h is a multiple of h_kv.
        v: (B, h_kv, L_k, d_k) values.
        allowed: None (every key allowed) or a bool tensor broadcastable to
            (B, h, L_q, L_k); True = query i may read key j.

    Returns:
        (B, h, L_q, d_k): each query's weighted sum of its group's values; a query with no
        allowed key gets zeros.
    """
    require_gqa_inputs(q, k, v, allowed)
    # Key idea: A group of query heads shares one key/value head: repeat each key/value head for
    #   its group (repeat_interleave on the head axis), then attend as before.
    group = q.shape[1] // k.shape[1]  # query heads per key/value head
    k = k.repeat_interleave(group, dim=1)  # (B, h, L_k, d_k)
    v = v.repeat_interleave(group, dim=1)  # (B, h, L_k, d_k)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, h, L_q, L_k)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)  # (B, h, L_q, L_k)
    return weights @ v  # (B, h, L_q, d_k)


# -- from the answer cell kv_cache_bytes
def kv_cache_bytes(n_layers, n_kv_heads, d_k, length, bytes_per_value):
    """Bytes of the key/value cache of one sequence.

    Args:
        n_layers: number of blocks N.
        n_kv_heads: key/value heads per block, h_kv.
        d_k: width of one head.
        length: number of cached tokens L.
        bytes_per_value: 4 for float32, 2 for bfloat16, 1 for int8.

    Returns:
        The number of bytes that the keys and values of every layer, key/value head and
        token take.
    """
    for name, value in (("n_layers", n_layers), ("n_kv_heads", n_kv_heads), ("d_k", d_k)):
        require_integer(name, value, 1)
    require_integer("length", length, 0, "(the number of cached tokens)")
    if require_number("bytes_per_value", bytes_per_value) <= 0:
        raise ValueError(f"bytes_per_value must be positive; got {bytes_per_value!r}")
    # Key idea: Each token keeps one key and one value vector per layer and key/value head: 2 x
    #   layers x kv heads x d_k numbers per token, times the length, times the bytes per number.
    per_token = 2 * n_layers * n_kv_heads * d_k  # a key and a value per layer and head
    return per_token * length * bytes_per_value


# -- from the answer cell Qwen3Block
class Qwen3Block(nn.Module):
    """A Qwen3 block: RMSNorm, GQA with QK-norm and RoPE, SwiGLU, two residual steps.

    Attributes:
        norm1, norm2: nn.RMSNorm(d_model, eps=eps).
        W_Q: nn.Linear(d_model, n_heads * d_k, bias=False).
        W_K, W_V: nn.Linear(d_model, n_kv_heads * d_k, bias=False).
        q_norm, k_norm: nn.RMSNorm(d_k, eps=eps), applied to every head.
        W_O: nn.Linear(n_heads * d_k, d_model, bias=False).
        mlp: SwiGLU(d_model, d_hidden).
    """

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-6):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = d_model, n_heads, n_kv_heads, d_k
        # Key idea: A pre-norm block with RMSNorm, grouped-query attention and SwiGLU: QK-norm on
        #   each head's queries and keys, then RoPE; cached keys and values go in front of the new
        #   ones, and the causal mask counts positions from the cache's length.
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim("h", h, 3, "(B, L, d)")
        require_last_axis("h", h, self.d_model, "d_model")
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)  # (B, L, d)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)  # (B, h, L, d_k)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)  # (B, h_kv, L, d_k)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)  # (B, h_kv, L, d_k)
        q = rotate_pairs(self.q_norm(q), *rope)  # QK-norm, then RoPE
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)  # (B, h_kv, T + L, d_k)
            v = torch.cat([past[1], v], dim=2)  # (B, h_kv, T + L, d_k)
        T = k.shape[2] - L  # tokens already cached
        positions = torch.arange(T, T + L)[:, None]  # (L, 1): where the new queries sit
        allowed = torch.arange(T + L)[None, :] <= positions  # (L, T + L)
        y = grouped_query_attention(q, k, v, allowed)  # (B, h, L, d_k)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))  # (B, L, d)
        return u + self.mlp(self.norm2(u)), (k, v)


# -- from the answer cell Qwen3Decoder
class Qwen3Decoder(nn.Module):
    """A Qwen3-style decoder: token ids (B, L) -> next-token logits (B, L, V).

    Attributes:
        embed: nn.Embedding(vocab_size, d_model).
        blocks: nn.ModuleList of n_layers Qwen3Block(d_model, n_heads, n_kv_heads, d_k,
            d_hidden, eps).
        norm: nn.RMSNorm(d_model, eps=eps).
        head: nn.Linear(d_model, vocab_size, bias=False); head.weight is embed.weight when
            tie_weights is true.
        rope_cos, rope_sin: buffers (max_len, d_k / 2), the RoPE angles of every position.
    """

    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, d_k, d_hidden,
                 max_len, rope_base=1e6, eps=1e-6, tie_weights=False):
        super().__init__()
        self.max_len = max_len
        cos, sin = rope_tables(max_len, d_k, rope_base)  # (max_len, d_k / 2) each
        self.register_buffer("rope_cos", cos, persistent=False)
        self.register_buffer("rope_sin", sin, persistent=False)
        # Key idea: Embed, run the blocks with the RoPE tables cut to the sequence's length, then a
        #   final RMSNorm and a head without bias; tying makes the embedding and the head one
        #   matrix.
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList(
            Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, eps) for _ in range(n_layers))
        self.norm = nn.RMSNorm(d_model, eps=eps)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        if tie_weights:
            self.head.weight = self.embed.weight

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim("idx", idx, 2, "(B, L)")
        if idx.shape[1] > self.max_len:
            raise ValueError(f"idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer "
                             f"than max_len = {self.max_len}")
        L = idx.shape[1]
        rope = (self.rope_cos[:L], self.rope_sin[:L])  # (L, d_k / 2) each
        h = self.embed(idx)  # (B, L, d)
        for block in self.blocks:
            h, _ = block(h, rope)  # (B, L, d)
        return self.head(self.norm(h))  # (B, L, V)


# -- from the answer cell decode_step
def decode_step(model, token_ids, cache):
    """Run new tokens through a Qwen3-style decoder after the cached ones.

    Args:
        model: a decoder with embed, blocks, norm, head, rope_cos and rope_sin.
        token_ids: (B, L_new) ids of the new tokens (the whole prompt for the prefill).
        cache: None, or one (k, v) pair per block, each (B, h_kv, T, d_k), for the T
            tokens before these.

    Returns:
        (logits, cache): logits (B, L_new, V) for the new tokens, and the cache extended to
        T + L_new tokens (one (k, v) pair per block).
    """
    require_ndim("token_ids", token_ids, 2, "(B, L_new)")
    require_cache(cache, len(model.blocks), model.rope_cos.shape[0], token_ids)
    # Key idea: Only the new tokens go through the model: their RoPE angles start at the cache's
    #   length, and each block returns its cache with their keys and values appended.
    T = 0 if cache is None else cache[0][0].shape[2]  # tokens already cached
    L = token_ids.shape[1]
    rope = (model.rope_cos[T:T + L], model.rope_sin[T:T + L])  # angles of positions T .. T+L-1
    h = model.embed(token_ids)  # (B, L, d)
    new_cache = []
    for i, block in enumerate(model.blocks):
        h, kv = block(h, rope, None if cache is None else cache[i])  # (B, L, d)
        new_cache.append(kv)
    return model.head(model.norm(h)), new_cache  # (B, L, V)


# -- the catalogued mistakes (autograder/mistakes/), resolved: the hidden trials run
# them on their inputs to name the slip a wrong output matches
# rms_norm: the mean subtracted (LayerNorm without beta)
def _slip_rms_norm_0(h, gamma, eps=1e-06):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    centred = h - h.mean(dim=-1, keepdim=True)
    return gamma * centred / torch.sqrt((centred ** 2).mean(dim=-1, keepdim=True) + eps)

# rms_norm: divided by h.std (unbiased) instead of the RMS
def _slip_rms_norm_1(h, gamma, eps=1e-06):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    return gamma * h / torch.sqrt(h.var(dim=-1, keepdim=True) + eps)

# rms_norm: divided by the biased standard deviation
def _slip_rms_norm_2(h, gamma, eps=1e-06):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    return gamma * h / torch.sqrt(h.var(dim=-1, keepdim=True, unbiased=False) + eps)

# rms_norm: eps outside the square root
def _slip_rms_norm_3(h, gamma, eps=1e-06):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    rms = torch.sqrt((h ** 2).mean(dim=-1, keepdim=True))
    return gamma * h / (rms + eps)

# rms_norm: no square root
def _slip_rms_norm_4(h, gamma, eps=1e-06):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    return gamma * h / ((h ** 2).mean(dim=-1, keepdim=True) + eps)

# rms_norm: sum of squares instead of their mean
def _slip_rms_norm_5(h, gamma, eps=1e-06):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    return gamma * h / torch.sqrt((h ** 2).sum(dim=-1, keepdim=True) + eps)

# rms_norm: F.normalize (the L2 norm)
def _slip_rms_norm_6(h, gamma, eps=1e-06):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    return gamma * F.normalize(h, dim=-1)

# rms_norm: gamma not applied
def _slip_rms_norm_7(h, gamma, eps=1e-06):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    return h / torch.sqrt((h ** 2).mean(dim=-1, keepdim=True) + eps)

# rms_norm: gamma added like LayerNorm's beta
def _slip_rms_norm_8(h, gamma, eps=1e-06):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    return h / torch.sqrt((h ** 2).mean(dim=-1, keepdim=True) + eps) + gamma

# rms_norm: eps argument ignored (1e-6 written in)
def _slip_rms_norm_9(h, gamma, eps=1e-06):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    return gamma * h / torch.sqrt((h ** 2).mean(dim=-1, keepdim=True) + 1e-06)

# rms_norm: mean over the first axis
def _slip_rms_norm_10(h, gamma, eps=1e-06):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    return gamma * h / torch.sqrt((h ** 2).mean(dim=0, keepdim=True) + eps)

# rms_norm: mean over the whole tensor
def _slip_rms_norm_11(h, gamma, eps=1e-06):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    return gamma * h / torch.sqrt((h ** 2).mean() + eps)

# rms_norm: keepdim forgotten
def _slip_rms_norm_12(h, gamma, eps=1e-06):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    return gamma * h / torch.sqrt((h ** 2).mean(dim=-1) + eps)

# rms_norm: mean square divided by d - 1
def _slip_rms_norm_13(h, gamma, eps=1e-06):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    d = h.shape[-1]
    return gamma * h / torch.sqrt((h ** 2).sum(dim=-1, keepdim=True) / (d - 1) + eps)

# rms_norm: mean absolute value, squared
def _slip_rms_norm_14(h, gamma, eps=1e-06):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    mean_square = h.abs().mean(dim=-1, keepdim=True) ** 2
    return gamma * h / torch.sqrt(mean_square + eps)

# rms_norm: square of the mean
def _slip_rms_norm_15(h, gamma, eps=1e-06):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    mean_square = h.mean(dim=-1, keepdim=True) ** 2
    return gamma * h / torch.sqrt(mean_square + eps)

# rms_norm: gamma inside the mean square
def _slip_rms_norm_16(h, gamma, eps=1e-06):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    mean_square = ((gamma * h) ** 2).mean(dim=-1, keepdim=True)
    return gamma * h / torch.sqrt(mean_square + eps)

# rms_norm: PyTorch's own F.rms_norm
def _slip_rms_norm_17(h, gamma, eps=1e-06):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    return F.rms_norm(h, (h.shape[-1],), gamma, eps)

# rms_norm: divides h in place
def _slip_rms_norm_18(h, gamma, eps=1e-06):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    h /= torch.sqrt((h ** 2).mean(dim=-1, keepdim=True) + eps)
    return gamma * h

# rms_norm: tokens returned as the rows of an (N, d) view
def _slip_rms_norm_19(h, gamma, eps=1e-06):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    mean_square = (h ** 2).mean(dim=-1, keepdim=True)
    return (gamma * h / torch.sqrt(mean_square + eps)).view(-1, h.shape[-1])

# rms_norm: eps left out
def _slip_rms_norm_20(h, gamma, eps=1e-06):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    mean_square = (h ** 2).mean(dim=-1, keepdim=True)
    return gamma * h / torch.sqrt(mean_square)

# rms_norm: returns a numpy array
def _slip_rms_norm_21(h, gamma, eps=1e-06):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    mean_square = (h ** 2).mean(dim=-1, keepdim=True)
    return (gamma * h / torch.sqrt(mean_square + eps)).numpy()

# SwiGLU: GELU instead of SiLU
class _slip_SwiGLU_0(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.w_gate = nn.Linear(d_model, d_hidden, bias=False)
        self.w_up = nn.Linear(d_model, d_hidden, bias=False)
        self.w_down = nn.Linear(d_hidden, d_model, bias=False)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.w_down(F.gelu(self.w_gate(x)) * self.w_up(x))

# SwiGLU: ReLU instead of SiLU
class _slip_SwiGLU_1(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.w_gate = nn.Linear(d_model, d_hidden, bias=False)
        self.w_up = nn.Linear(d_model, d_hidden, bias=False)
        self.w_down = nn.Linear(d_hidden, d_model, bias=False)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.w_down(torch.relu(self.w_gate(x)) * self.w_up(x))

# SwiGLU: tanh instead of SiLU
class _slip_SwiGLU_2(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.w_gate = nn.Linear(d_model, d_hidden, bias=False)
        self.w_up = nn.Linear(d_model, d_hidden, bias=False)
        self.w_down = nn.Linear(d_hidden, d_model, bias=False)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.w_down(torch.tanh(self.w_gate(x)) * self.w_up(x))

# SwiGLU: SiLU of x before w_gate
class _slip_SwiGLU_3(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.w_gate = nn.Linear(d_model, d_hidden, bias=False)
        self.w_up = nn.Linear(d_model, d_hidden, bias=False)
        self.w_down = nn.Linear(d_hidden, d_model, bias=False)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.w_down(self.w_gate(F.silu(x)) * self.w_up(x))

# SwiGLU: sigmoid gate (GLU)
class _slip_SwiGLU_4(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.w_gate = nn.Linear(d_model, d_hidden, bias=False)
        self.w_up = nn.Linear(d_model, d_hidden, bias=False)
        self.w_down = nn.Linear(d_hidden, d_model, bias=False)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.w_down(torch.sigmoid(self.w_gate(x)) * self.w_up(x))

# SwiGLU: SiLU on the up branch
class _slip_SwiGLU_5(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.w_gate = nn.Linear(d_model, d_hidden, bias=False)
        self.w_up = nn.Linear(d_model, d_hidden, bias=False)
        self.w_down = nn.Linear(d_hidden, d_model, bias=False)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.w_down(self.w_gate(x) * F.silu(self.w_up(x)))

# SwiGLU: no gate
class _slip_SwiGLU_6(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.w_gate = nn.Linear(d_model, d_hidden, bias=False)
        self.w_up = nn.Linear(d_model, d_hidden, bias=False)
        self.w_down = nn.Linear(d_hidden, d_model, bias=False)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.w_down(F.silu(self.w_up(x)))

# SwiGLU: gate added instead of multiplied
class _slip_SwiGLU_7(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.w_gate = nn.Linear(d_model, d_hidden, bias=False)
        self.w_up = nn.Linear(d_model, d_hidden, bias=False)
        self.w_down = nn.Linear(d_hidden, d_model, bias=False)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.w_down(F.silu(self.w_gate(x)) + self.w_up(x))

# SwiGLU: SiLU after the product
class _slip_SwiGLU_8(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.w_gate = nn.Linear(d_model, d_hidden, bias=False)
        self.w_up = nn.Linear(d_model, d_hidden, bias=False)
        self.w_down = nn.Linear(d_hidden, d_model, bias=False)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.w_down(F.silu(self.w_gate(x) * self.w_up(x)))

# SwiGLU: SiLU on both branches
class _slip_SwiGLU_9(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.w_gate = nn.Linear(d_model, d_hidden, bias=False)
        self.w_up = nn.Linear(d_model, d_hidden, bias=False)
        self.w_down = nn.Linear(d_hidden, d_model, bias=False)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.w_down(F.silu(self.w_gate(x)) * F.silu(self.w_up(x)))

# SwiGLU: an extra SiLU at the output
class _slip_SwiGLU_10(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.w_gate = nn.Linear(d_model, d_hidden, bias=False)
        self.w_up = nn.Linear(d_model, d_hidden, bias=False)
        self.w_down = nn.Linear(d_hidden, d_model, bias=False)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return F.silu(self.w_down(F.silu(self.w_gate(x)) * self.w_up(x)))

# SwiGLU: residual added inside
class _slip_SwiGLU_11(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.w_gate = nn.Linear(d_model, d_hidden, bias=False)
        self.w_up = nn.Linear(d_model, d_hidden, bias=False)
        self.w_down = nn.Linear(d_hidden, d_model, bias=False)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return x + self.w_down(F.silu(self.w_gate(x)) * self.w_up(x))

# SwiGLU: linear layers with biases
class _slip_SwiGLU_12(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.w_gate = nn.Linear(d_model, d_hidden)
        self.w_up = nn.Linear(d_model, d_hidden)
        self.w_down = nn.Linear(d_hidden, d_model)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.w_down(F.silu(self.w_gate(x)) * self.w_up(x))

# SwiGLU: w_down built the wrong way round
class _slip_SwiGLU_13(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.w_gate = nn.Linear(d_model, d_hidden, bias=False)
        self.w_up = nn.Linear(d_model, d_hidden, bias=False)
        self.w_down = nn.Linear(d_model, d_hidden, bias=False)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.w_down(F.silu(self.w_gate(x)) * self.w_up(x))

# SwiGLU: an nn.Sequential instead of the named layers
class _slip_SwiGLU_14(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.net = nn.Sequential(nn.Linear(d_model, d_hidden, bias=False), nn.SiLU(), nn.Linear(d_hidden, d_model, bias=False))

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.net(x)

# SwiGLU: the package's production MLP
class _slip_SwiGLU_15(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        from attnbook.lm.qwen3 import GatedMLP, Qwen3LMConfig
        self.inner = GatedMLP(Qwen3LMConfig(vocab_size=1, d_model=d_model, d_hidden=d_hidden))
        self.w_gate, self.w_up, self.w_down = (self.inner.w_gate, self.inner.w_up, self.inner.w_down)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.inner(x)

# SwiGLU: w_down left out
class _slip_SwiGLU_16(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.w_gate = nn.Linear(d_model, d_hidden, bias=False)
        self.w_up = nn.Linear(d_model, d_hidden, bias=False)
        self.w_down = nn.Linear(d_hidden, d_model, bias=False)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return F.silu(self.w_gate(x)) * self.w_up(x)

# SwiGLU: tokens flattened to (B * L, d) and not reshaped back
class _slip_SwiGLU_17(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.w_gate = nn.Linear(d_model, d_hidden, bias=False)
        self.w_up = nn.Linear(d_model, d_hidden, bias=False)
        self.w_down = nn.Linear(d_hidden, d_model, bias=False)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        x = x.reshape(-1, x.shape[-1])
        return self.w_down(F.silu(self.w_gate(x)) * self.w_up(x))

# grouped_query_attention: key/value heads tiled with repeat
def _slip_grouped_query_attention_0(q, k, v, allowed=None):
    require_gqa_inputs(q, k, v, allowed)
    group = q.shape[1] // k.shape[1]
    k = k.repeat(1, group, 1, 1)
    v = v.repeat(1, group, 1, 1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    return torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0) @ v

# grouped_query_attention: key/value heads never repeated
def _slip_grouped_query_attention_1(q, k, v, allowed=None):
    require_gqa_inputs(q, k, v, allowed)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    return torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0) @ v

# grouped_query_attention: group size upside down (h_kv // h)
def _slip_grouped_query_attention_2(q, k, v, allowed=None):
    require_gqa_inputs(q, k, v, allowed)
    group = k.shape[1] // q.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    return torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0) @ v

# grouped_query_attention: no 1/sqrt(d_k) scaling
def _slip_grouped_query_attention_3(q, k, v, allowed=None):
    require_gqa_inputs(q, k, v, allowed)
    group = q.shape[1] // k.shape[1]
    k, v = (k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1))
    scores = q @ k.transpose(-2, -1)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    return torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0) @ v

# grouped_query_attention: divided by d_k
def _slip_grouped_query_attention_4(q, k, v, allowed=None):
    require_gqa_inputs(q, k, v, allowed)
    group = q.shape[1] // k.shape[1]
    k, v = (k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1))
    scores = q @ k.transpose(-2, -1) / q.shape[-1]
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    return torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0) @ v

# grouped_query_attention: scaled by sqrt(L_k), the number of keys
def _slip_grouped_query_attention_5(q, k, v, allowed=None):
    require_gqa_inputs(q, k, v, allowed)
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(k.shape[-2])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return weights @ v

# grouped_query_attention: scaled by sqrt(h * d_k), all the query heads' width
def _slip_grouped_query_attention_6(q, k, v, allowed=None):
    require_gqa_inputs(q, k, v, allowed)
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[1] * q.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return weights @ v

# grouped_query_attention: softmax over the query axis
def _slip_grouped_query_attention_7(q, k, v, allowed=None):
    require_gqa_inputs(q, k, v, allowed)
    group = q.shape[1] // k.shape[1]
    k, v = (k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1))
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    return torch.nan_to_num(torch.softmax(scores, dim=-2), nan=0.0) @ v

# grouped_query_attention: mask applied after the softmax
def _slip_grouped_query_attention_8(q, k, v, allowed=None):
    require_gqa_inputs(q, k, v, allowed)
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    weights = torch.softmax(scores, dim=-1)
    if allowed is not None:
        weights = weights * allowed
    return weights @ v

# grouped_query_attention: mask inverted
def _slip_grouped_query_attention_9(q, k, v, allowed=None):
    require_gqa_inputs(q, k, v, allowed)
    group = q.shape[1] // k.shape[1]
    k, v = (k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1))
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(allowed, float('-inf'))
    return torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0) @ v

# grouped_query_attention: -1e9 instead of -inf
def _slip_grouped_query_attention_10(q, k, v, allowed=None):
    require_gqa_inputs(q, k, v, allowed)
    group = q.shape[1] // k.shape[1]
    k, v = (k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1))
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, -1000000000.0)
    return torch.softmax(scores, dim=-1) @ v

# grouped_query_attention: rows without an allowed key left as NaN
def _slip_grouped_query_attention_11(q, k, v, allowed=None):
    require_gqa_inputs(q, k, v, allowed)
    group = q.shape[1] // k.shape[1]
    k, v = (k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1))
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    return torch.softmax(scores, dim=-1) @ v

# grouped_query_attention: allowed=None not handled
def _slip_grouped_query_attention_12(q, k, v, allowed=None):
    require_gqa_inputs(q, k, v, allowed)
    group = q.shape[1] // k.shape[1]
    k, v = (k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1))
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~allowed, float('-inf'))
    return torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0) @ v

# grouped_query_attention: the mask ignored
def _slip_grouped_query_attention_13(q, k, v, allowed=None):
    require_gqa_inputs(q, k, v, allowed)
    group = q.shape[1] // k.shape[1]
    k, v = (k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1))
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return torch.softmax(scores, dim=-1) @ v

# grouped_query_attention: PyTorch's fused attention with enable_gqa
def _slip_grouped_query_attention_14(q, k, v, allowed=None):
    require_gqa_inputs(q, k, v, allowed)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, enable_gqa=True)

# grouped_query_attention: a helper of its own name that hands over to PyTorch's fused attention
def _slip_grouped_query_attention_15(q, k, v, allowed=None):
    require_gqa_inputs(q, k, v, allowed)

    def scaled_dot_product_attention(q, k, v, allowed):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    group = q.shape[1] // k.shape[1]
    k, v = (k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1))
    return scaled_dot_product_attention(q, k, v, allowed)

# grouped_query_attention: heads merged in the output (B, L_q, h * d_k)
def _slip_grouped_query_attention_16(q, k, v, allowed=None):
    require_gqa_inputs(q, k, v, allowed)
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return (weights @ v).transpose(1, 2).flatten(2)

# grouped_query_attention: queries scaled in place (q /= sqrt(d_k))
def _slip_grouped_query_attention_17(q, k, v, allowed=None):
    require_gqa_inputs(q, k, v, allowed)
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    q /= math.sqrt(q.shape[-1])
    scores = q @ k.transpose(-2, -1)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float('-inf'))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return weights @ v

# kv_cache_bytes: keys only
def _slip_kv_cache_bytes_0(n_layers, n_kv_heads, d_k, length, bytes_per_value):
    for name, value in (('n_layers', n_layers), ('n_kv_heads', n_kv_heads), ('d_k', d_k)):
        require_integer(name, value, 1)
    require_integer('length', length, 0, '(the number of cached tokens)')
    if require_number('bytes_per_value', bytes_per_value) <= 0:
        raise ValueError(f'bytes_per_value must be positive; got {bytes_per_value!r}')
    return n_layers * n_kv_heads * d_k * length * bytes_per_value

# kv_cache_bytes: bits instead of bytes
def _slip_kv_cache_bytes_1(n_layers, n_kv_heads, d_k, length, bytes_per_value):
    for name, value in (('n_layers', n_layers), ('n_kv_heads', n_kv_heads), ('d_k', d_k)):
        require_integer(name, value, 1)
    require_integer('length', length, 0, '(the number of cached tokens)')
    if require_number('bytes_per_value', bytes_per_value) <= 0:
        raise ValueError(f'bytes_per_value must be positive; got {bytes_per_value!r}')
    return 2 * n_layers * n_kv_heads * d_k * length * bytes_per_value * 8

# kv_cache_bytes: bytes per token (length left out)
def _slip_kv_cache_bytes_2(n_layers, n_kv_heads, d_k, length, bytes_per_value):
    for name, value in (('n_layers', n_layers), ('n_kv_heads', n_kv_heads), ('d_k', d_k)):
        require_integer(name, value, 1)
    require_integer('length', length, 0, '(the number of cached tokens)')
    if require_number('bytes_per_value', bytes_per_value) <= 0:
        raise ValueError(f'bytes_per_value must be positive; got {bytes_per_value!r}')
    return 2 * n_layers * n_kv_heads * d_k * bytes_per_value

# kv_cache_bytes: one layer
def _slip_kv_cache_bytes_3(n_layers, n_kv_heads, d_k, length, bytes_per_value):
    for name, value in (('n_layers', n_layers), ('n_kv_heads', n_kv_heads), ('d_k', d_k)):
        require_integer(name, value, 1)
    require_integer('length', length, 0, '(the number of cached tokens)')
    if require_number('bytes_per_value', bytes_per_value) <= 0:
        raise ValueError(f'bytes_per_value must be positive; got {bytes_per_value!r}')
    return 2 * n_kv_heads * d_k * length * bytes_per_value

# kv_cache_bytes: returned in GiB
def _slip_kv_cache_bytes_4(n_layers, n_kv_heads, d_k, length, bytes_per_value):
    for name, value in (('n_layers', n_layers), ('n_kv_heads', n_kv_heads), ('d_k', d_k)):
        require_integer(name, value, 1)
    require_integer('length', length, 0, '(the number of cached tokens)')
    if require_number('bytes_per_value', bytes_per_value) <= 0:
        raise ValueError(f'bytes_per_value must be positive; got {bytes_per_value!r}')
    return 2 * n_layers * n_kv_heads * d_k * length * bytes_per_value / 2 ** 30

# kv_cache_bytes: bytes_per_value ignored (bfloat16 written in)
def _slip_kv_cache_bytes_5(n_layers, n_kv_heads, d_k, length, bytes_per_value):
    for name, value in (('n_layers', n_layers), ('n_kv_heads', n_kv_heads), ('d_k', d_k)):
        require_integer(name, value, 1)
    require_integer('length', length, 0, '(the number of cached tokens)')
    if require_number('bytes_per_value', bytes_per_value) <= 0:
        raise ValueError(f'bytes_per_value must be positive; got {bytes_per_value!r}')
    return 2 * n_layers * n_kv_heads * d_k * length * 2

# kv_cache_bytes: d_k left out
def _slip_kv_cache_bytes_6(n_layers, n_kv_heads, d_k, length, bytes_per_value):
    for name, value in (('n_layers', n_layers), ('n_kv_heads', n_kv_heads), ('d_k', d_k)):
        require_integer(name, value, 1)
    require_integer('length', length, 0, '(the number of cached tokens)')
    if require_number('bytes_per_value', bytes_per_value) <= 0:
        raise ValueError(f'bytes_per_value must be positive; got {bytes_per_value!r}')
    return 2 * n_layers * n_kv_heads * length * bytes_per_value

# kv_cache_bytes: the factor 2 counted twice
def _slip_kv_cache_bytes_7(n_layers, n_kv_heads, d_k, length, bytes_per_value):
    for name, value in (('n_layers', n_layers), ('n_kv_heads', n_kv_heads), ('d_k', d_k)):
        require_integer(name, value, 1)
    require_integer('length', length, 0, '(the number of cached tokens)')
    if require_number('bytes_per_value', bytes_per_value) <= 0:
        raise ValueError(f'bytes_per_value must be positive; got {bytes_per_value!r}')
    per_token = 2 * n_layers * n_kv_heads * d_k
    return 2 * per_token * length * bytes_per_value

# kv_cache_bytes: returned in KiB
def _slip_kv_cache_bytes_8(n_layers, n_kv_heads, d_k, length, bytes_per_value):
    for name, value in (('n_layers', n_layers), ('n_kv_heads', n_kv_heads), ('d_k', d_k)):
        require_integer(name, value, 1)
    require_integer('length', length, 0, '(the number of cached tokens)')
    if require_number('bytes_per_value', bytes_per_value) <= 0:
        raise ValueError(f'bytes_per_value must be positive; got {bytes_per_value!r}')
    per_token = 2 * n_layers * n_kv_heads * d_k
    return per_token * length * bytes_per_value / 1024

# kv_cache_bytes: returned in a list
def _slip_kv_cache_bytes_9(n_layers, n_kv_heads, d_k, length, bytes_per_value):
    for name, value in (('n_layers', n_layers), ('n_kv_heads', n_kv_heads), ('d_k', d_k)):
        require_integer(name, value, 1)
    require_integer('length', length, 0, '(the number of cached tokens)')
    if require_number('bytes_per_value', bytes_per_value) <= 0:
        raise ValueError(f'bytes_per_value must be positive; got {bytes_per_value!r}')
    per_token = 2 * n_layers * n_kv_heads * d_k
    return [per_token * length * bytes_per_value]

# Qwen3Block: QK-norm created but not applied
class _slip_Qwen3Block_0(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(q, *rope)
        k = rotate_pairs(k, *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: QK-norm after RoPE
class _slip_Qwen3Block_1(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = self.q_norm(rotate_pairs(q, *rope))
        k = self.k_norm(rotate_pairs(k, *rope))
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: q_norm used for the keys
class _slip_Qwen3Block_2(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.q_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: RoPE left out
class _slip_Qwen3Block_3(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = self.q_norm(q)
        k = self.k_norm(k)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: RoPE on the values too
class _slip_Qwen3Block_4(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        v = rotate_pairs(v, *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: the values normalised by k_norm
class _slip_Qwen3Block_5(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        v = self.k_norm(v)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: no causal mask
class _slip_Qwen3Block_6(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: causal mask aligned top-left
class _slip_Qwen3Block_7(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.ones(L, T + L, dtype=torch.bool).tril()
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: the cache put after the new tokens
class _slip_Qwen3Block_8(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([k, past[0]], dim=2)
            v = torch.cat([v, past[1]], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: only the new keys and values returned
class _slip_Qwen3Block_9(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        new = (k, v)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), new)

# Qwen3Block: keys cached before RoPE
class _slip_Qwen3Block_10(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k_plain = self.k_norm(k)
        k = rotate_pairs(k_plain, *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        cached = k_plain if past is None else torch.cat([past[0], k_plain], dim=2)
        return (u + self.mlp(self.norm2(u)), (cached, v))

# Qwen3Block: no residual around the attention
class _slip_Qwen3Block_11(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: no residual around the MLP
class _slip_Qwen3Block_12(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: the attention's residual from the normalised x
class _slip_Qwen3Block_13(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = x + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: the MLP's residual from h
class _slip_Qwen3Block_14(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (h + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: a token may not read itself
class _slip_Qwen3Block_15(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] < positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: positions counted from T + 1
class _slip_Qwen3Block_16(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T + 1, T + L + 1)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: the keys not rotated
class _slip_Qwen3Block_17(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = self.k_norm(k)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: norm1 and norm2 swapped
class _slip_Qwen3Block_18(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm2(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm1(u)), (k, v))

# Qwen3Block: the MLP reads H
class _slip_Qwen3Block_19(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(h)), (k, v))

# Qwen3Block: heads merged without the transpose
class _slip_Qwen3Block_20(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: heads split without the transpose
class _slip_Qwen3Block_21(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, self.n_heads, L, self.d_k)
        k = self.W_K(x).view(B, self.n_kv_heads, L, self.d_k)
        v = self.W_V(x).view(B, self.n_kv_heads, L, self.d_k)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: no norm before the attention
class _slip_Qwen3Block_22(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = h
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: LayerNorm instead of RMSNorm
class _slip_Qwen3Block_23(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.LayerNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.LayerNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: eps not passed to the norms
class _slip_Qwen3Block_24(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k)
        self.k_norm = nn.RMSNorm(d_k)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: projections with biases
class _slip_Qwen3Block_25(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: W_K and W_V sized for every query head
class _slip_Qwen3Block_26(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: QK-norm over the whole width d_model
class _slip_Qwen3Block_27(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_model, eps=eps)
        self.k_norm = nn.RMSNorm(d_model, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: the MLP 4 d_model wide (notebook 06's habit)
class _slip_Qwen3Block_28(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, 4 * d_model)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: returns only the output
class _slip_Qwen3Block_29(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return u + self.mlp(self.norm2(u))

# Qwen3Block: adds into h in place
class _slip_Qwen3Block_30(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h
        u += self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: the package's production block
class _slip_Qwen3Block_31(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        from attnbook.lm.qwen3 import ModernBlock, Qwen3LMConfig
        self.inner = ModernBlock(Qwen3LMConfig(vocab_size=1, d_model=d_model, n_heads=n_heads, n_kv_heads=n_kv_heads, d_k=d_k, d_hidden=d_hidden, eps=eps))

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        return self.inner(h, rope, past)

# Qwen3Block: q_norm and k_norm swapped
class _slip_Qwen3Block_32(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.k_norm(q), *rope)
        k = rotate_pairs(self.q_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: QK-norms without a gamma (elementwise_affine=False)
class _slip_Qwen3Block_33(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps, elementwise_affine=False)
        self.k_norm = nn.RMSNorm(d_k, eps=eps, elementwise_affine=False)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: norm2 a LayerNorm
class _slip_Qwen3Block_34(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.LayerNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: a plain MLP (nn.Sequential) instead of SwiGLU
class _slip_Qwen3Block_35(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = nn.Sequential(nn.Linear(d_model, d_hidden, bias=False), nn.SiLU(), nn.Linear(d_hidden, d_model, bias=False))

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: W_Q sized d_model -> d_model
class _slip_Qwen3Block_36(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, d_model, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: W_O sized d_model -> d_model
class _slip_Qwen3Block_37(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(d_model, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Block: keys and values split into n_heads heads
class _slip_Qwen3Block_38(nn.Module):

    def __init__(self, d_model, n_heads, n_kv_heads, d_k, d_hidden, eps=1e-06):
        super().__init__()
        require_head_counts(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = (d_model, n_heads, n_kv_heads, d_k)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.mlp = SwiGLU(d_model, d_hidden)

    def forward(self, h, rope, past=None):
        """h: (B, L, d); rope: (cos, sin), each (L, d_k / 2), at the new tokens' positions;
        past: None or (k, v) of T earlier tokens, each (B, h_kv, T, d_k).

        Returns (h_out, (k, v)): h_out (B, L, d) and the keys and values over all T + L
        tokens, each (B, h_kv, T + L, d_k), keys after RoPE.
        """
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        require_past(past, h, self.n_kv_heads, self.d_k)
        require_rope(rope, h, self.d_k)
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return (u + self.mlp(self.norm2(u)), (k, v))

# Qwen3Decoder: the final RMSNorm created, not applied
class _slip_Qwen3Decoder_0(nn.Module):

    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, d_k, d_hidden, max_len, rope_base=1000000.0, eps=1e-06, tie_weights=False):
        super().__init__()
        self.max_len = max_len
        cos, sin = rope_tables(max_len, d_k, rope_base)
        self.register_buffer('rope_cos', cos, persistent=False)
        self.register_buffer('rope_sin', sin, persistent=False)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList((Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, eps) for _ in range(n_layers)))
        self.norm = nn.RMSNorm(d_model, eps=eps)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        if tie_weights:
            self.head.weight = self.embed.weight

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        rope = (self.rope_cos[:L], self.rope_sin[:L])
        h = self.embed(idx)
        for block in self.blocks:
            h, _ = block(h, rope)
        return self.head(h)

# Qwen3Decoder: the final RMSNorm applied after every block
class _slip_Qwen3Decoder_1(nn.Module):

    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, d_k, d_hidden, max_len, rope_base=1000000.0, eps=1e-06, tie_weights=False):
        super().__init__()
        self.max_len = max_len
        cos, sin = rope_tables(max_len, d_k, rope_base)
        self.register_buffer('rope_cos', cos, persistent=False)
        self.register_buffer('rope_sin', sin, persistent=False)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList((Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, eps) for _ in range(n_layers)))
        self.norm = nn.RMSNorm(d_model, eps=eps)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        if tie_weights:
            self.head.weight = self.embed.weight

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        rope = (self.rope_cos[:L], self.rope_sin[:L])
        h = self.embed(idx)
        for block in self.blocks:
            h, _ = block(h, rope)
            h = self.norm(h)
        return self.head(self.norm(h))

# Qwen3Decoder: the final RMSNorm applied to the embeddings instead of H_N
class _slip_Qwen3Decoder_2(nn.Module):

    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, d_k, d_hidden, max_len, rope_base=1000000.0, eps=1e-06, tie_weights=False):
        super().__init__()
        self.max_len = max_len
        cos, sin = rope_tables(max_len, d_k, rope_base)
        self.register_buffer('rope_cos', cos, persistent=False)
        self.register_buffer('rope_sin', sin, persistent=False)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList((Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, eps) for _ in range(n_layers)))
        self.norm = nn.RMSNorm(d_model, eps=eps)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        if tie_weights:
            self.head.weight = self.embed.weight

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        rope = (self.rope_cos[:L], self.rope_sin[:L])
        h = self.norm(self.embed(idx))
        for block in self.blocks:
            h, _ = block(h, rope)
        return self.head(h)

# Qwen3Decoder: the RoPE tables passed as (sin, cos)
class _slip_Qwen3Decoder_3(nn.Module):

    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, d_k, d_hidden, max_len, rope_base=1000000.0, eps=1e-06, tie_weights=False):
        super().__init__()
        self.max_len = max_len
        cos, sin = rope_tables(max_len, d_k, rope_base)
        self.register_buffer('rope_cos', cos, persistent=False)
        self.register_buffer('rope_sin', sin, persistent=False)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList((Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, eps) for _ in range(n_layers)))
        self.norm = nn.RMSNorm(d_model, eps=eps)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        if tie_weights:
            self.head.weight = self.embed.weight

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        rope = (self.rope_sin[:L], self.rope_cos[:L])
        h = self.embed(idx)
        for block in self.blocks:
            h, _ = block(h, rope)
        return self.head(self.norm(h))

# Qwen3Decoder: the head not tied
class _slip_Qwen3Decoder_4(nn.Module):

    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, d_k, d_hidden, max_len, rope_base=1000000.0, eps=1e-06, tie_weights=False):
        super().__init__()
        self.max_len = max_len
        cos, sin = rope_tables(max_len, d_k, rope_base)
        self.register_buffer('rope_cos', cos, persistent=False)
        self.register_buffer('rope_sin', sin, persistent=False)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList((Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, eps) for _ in range(n_layers)))
        self.norm = nn.RMSNorm(d_model, eps=eps)
        self.head = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        rope = (self.rope_cos[:L], self.rope_sin[:L])
        h = self.embed(idx)
        for block in self.blocks:
            h, _ = block(h, rope)
        return self.head(self.norm(h))

# Qwen3Decoder: the head always tied
class _slip_Qwen3Decoder_5(nn.Module):

    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, d_k, d_hidden, max_len, rope_base=1000000.0, eps=1e-06, tie_weights=False):
        super().__init__()
        self.max_len = max_len
        cos, sin = rope_tables(max_len, d_k, rope_base)
        self.register_buffer('rope_cos', cos, persistent=False)
        self.register_buffer('rope_sin', sin, persistent=False)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList((Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, eps) for _ in range(n_layers)))
        self.norm = nn.RMSNorm(d_model, eps=eps)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        if True:
            self.head.weight = self.embed.weight

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        rope = (self.rope_cos[:L], self.rope_sin[:L])
        h = self.embed(idx)
        for block in self.blocks:
            h, _ = block(h, rope)
        return self.head(self.norm(h))

# Qwen3Decoder: a head with a bias
class _slip_Qwen3Decoder_6(nn.Module):

    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, d_k, d_hidden, max_len, rope_base=1000000.0, eps=1e-06, tie_weights=False):
        super().__init__()
        self.max_len = max_len
        cos, sin = rope_tables(max_len, d_k, rope_base)
        self.register_buffer('rope_cos', cos, persistent=False)
        self.register_buffer('rope_sin', sin, persistent=False)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList((Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, eps) for _ in range(n_layers)))
        self.norm = nn.RMSNorm(d_model, eps=eps)
        self.head = nn.Linear(d_model, vocab_size)
        if tie_weights:
            self.head.weight = self.embed.weight

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        rope = (self.rope_cos[:L], self.rope_sin[:L])
        h = self.embed(idx)
        for block in self.blocks:
            h, _ = block(h, rope)
        return self.head(self.norm(h))

# Qwen3Decoder: a LayerNorm as the final norm
class _slip_Qwen3Decoder_7(nn.Module):

    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, d_k, d_hidden, max_len, rope_base=1000000.0, eps=1e-06, tie_weights=False):
        super().__init__()
        self.max_len = max_len
        cos, sin = rope_tables(max_len, d_k, rope_base)
        self.register_buffer('rope_cos', cos, persistent=False)
        self.register_buffer('rope_sin', sin, persistent=False)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList((Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, eps) for _ in range(n_layers)))
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        if tie_weights:
            self.head.weight = self.embed.weight

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        rope = (self.rope_cos[:L], self.rope_sin[:L])
        h = self.embed(idx)
        for block in self.blocks:
            h, _ = block(h, rope)
        return self.head(self.norm(h))

# Qwen3Decoder: one block repeated
class _slip_Qwen3Decoder_8(nn.Module):

    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, d_k, d_hidden, max_len, rope_base=1000000.0, eps=1e-06, tie_weights=False):
        super().__init__()
        self.max_len = max_len
        cos, sin = rope_tables(max_len, d_k, rope_base)
        self.register_buffer('rope_cos', cos, persistent=False)
        self.register_buffer('rope_sin', sin, persistent=False)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList([Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, eps)] * n_layers)
        self.norm = nn.RMSNorm(d_model, eps=eps)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        if tie_weights:
            self.head.weight = self.embed.weight

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        rope = (self.rope_cos[:L], self.rope_sin[:L])
        h = self.embed(idx)
        for block in self.blocks:
            h, _ = block(h, rope)
        return self.head(self.norm(h))

# Qwen3Decoder: the block's pair not unpacked
class _slip_Qwen3Decoder_9(nn.Module):

    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, d_k, d_hidden, max_len, rope_base=1000000.0, eps=1e-06, tie_weights=False):
        super().__init__()
        self.max_len = max_len
        cos, sin = rope_tables(max_len, d_k, rope_base)
        self.register_buffer('rope_cos', cos, persistent=False)
        self.register_buffer('rope_sin', sin, persistent=False)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList((Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, eps) for _ in range(n_layers)))
        self.norm = nn.RMSNorm(d_model, eps=eps)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        if tie_weights:
            self.head.weight = self.embed.weight

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        rope = (self.rope_cos[:L], self.rope_sin[:L])
        h = self.embed(idx)
        for block in self.blocks:
            h = block(h, rope)
        return self.head(self.norm(h))

# Qwen3Decoder: the blocks' outputs discarded
class _slip_Qwen3Decoder_10(nn.Module):

    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, d_k, d_hidden, max_len, rope_base=1000000.0, eps=1e-06, tie_weights=False):
        super().__init__()
        self.max_len = max_len
        cos, sin = rope_tables(max_len, d_k, rope_base)
        self.register_buffer('rope_cos', cos, persistent=False)
        self.register_buffer('rope_sin', sin, persistent=False)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList((Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, eps) for _ in range(n_layers)))
        self.norm = nn.RMSNorm(d_model, eps=eps)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        if tie_weights:
            self.head.weight = self.embed.weight

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        rope = (self.rope_cos[:L], self.rope_sin[:L])
        h = self.embed(idx)
        for block in self.blocks:
            block(h, rope)
        return self.head(self.norm(h))

# Qwen3Decoder: softmax applied to the logits
class _slip_Qwen3Decoder_11(nn.Module):

    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, d_k, d_hidden, max_len, rope_base=1000000.0, eps=1e-06, tie_weights=False):
        super().__init__()
        self.max_len = max_len
        cos, sin = rope_tables(max_len, d_k, rope_base)
        self.register_buffer('rope_cos', cos, persistent=False)
        self.register_buffer('rope_sin', sin, persistent=False)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList((Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, eps) for _ in range(n_layers)))
        self.norm = nn.RMSNorm(d_model, eps=eps)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        if tie_weights:
            self.head.weight = self.embed.weight

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        rope = (self.rope_cos[:L], self.rope_sin[:L])
        h = self.embed(idx)
        for block in self.blocks:
            h, _ = block(h, rope)
        return self.head(self.norm(h)).softmax(dim=-1)

# Qwen3Decoder: embedding scaled by sqrt(d_model)
class _slip_Qwen3Decoder_12(nn.Module):

    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, d_k, d_hidden, max_len, rope_base=1000000.0, eps=1e-06, tie_weights=False):
        super().__init__()
        self.max_len = max_len
        cos, sin = rope_tables(max_len, d_k, rope_base)
        self.register_buffer('rope_cos', cos, persistent=False)
        self.register_buffer('rope_sin', sin, persistent=False)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList((Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, eps) for _ in range(n_layers)))
        self.norm = nn.RMSNorm(d_model, eps=eps)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        if tie_weights:
            self.head.weight = self.embed.weight

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        rope = (self.rope_cos[:L], self.rope_sin[:L])
        h = self.embed(idx) * self.embed.embedding_dim ** 0.5
        for block in self.blocks:
            h, _ = block(h, rope)
        return self.head(self.norm(h))

# Qwen3Decoder: the RoPE tables not sliced to L
class _slip_Qwen3Decoder_13(nn.Module):

    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, d_k, d_hidden, max_len, rope_base=1000000.0, eps=1e-06, tie_weights=False):
        super().__init__()
        self.max_len = max_len
        cos, sin = rope_tables(max_len, d_k, rope_base)
        self.register_buffer('rope_cos', cos, persistent=False)
        self.register_buffer('rope_sin', sin, persistent=False)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList((Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, eps) for _ in range(n_layers)))
        self.norm = nn.RMSNorm(d_model, eps=eps)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        if tie_weights:
            self.head.weight = self.embed.weight

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        rope = (self.rope_cos, self.rope_sin)
        h = self.embed(idx)
        for block in self.blocks:
            h, _ = block(h, rope)
        return self.head(self.norm(h))

# Qwen3Decoder: the eps argument not passed on
class _slip_Qwen3Decoder_14(nn.Module):

    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, d_k, d_hidden, max_len, rope_base=1000000.0, eps=1e-06, tie_weights=False):
        super().__init__()
        self.max_len = max_len
        cos, sin = rope_tables(max_len, d_k, rope_base)
        self.register_buffer('rope_cos', cos, persistent=False)
        self.register_buffer('rope_sin', sin, persistent=False)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList((Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden) for _ in range(n_layers)))
        self.norm = nn.RMSNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        if tie_weights:
            self.head.weight = self.embed.weight

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        rope = (self.rope_cos[:L], self.rope_sin[:L])
        h = self.embed(idx)
        for block in self.blocks:
            h, _ = block(h, rope)
        return self.head(self.norm(h))

# Qwen3Decoder: the last block skipped
class _slip_Qwen3Decoder_15(nn.Module):

    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, d_k, d_hidden, max_len, rope_base=1000000.0, eps=1e-06, tie_weights=False):
        super().__init__()
        self.max_len = max_len
        cos, sin = rope_tables(max_len, d_k, rope_base)
        self.register_buffer('rope_cos', cos, persistent=False)
        self.register_buffer('rope_sin', sin, persistent=False)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList((Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, eps) for _ in range(n_layers)))
        self.norm = nn.RMSNorm(d_model, eps=eps)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        if tie_weights:
            self.head.weight = self.embed.weight

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        rope = (self.rope_cos[:L], self.rope_sin[:L])
        h = self.embed(idx)
        for block in self.blocks[:-1]:
            h, _ = block(h, rope)
        return self.head(self.norm(h))

# Qwen3Decoder: every block fed the embeddings
class _slip_Qwen3Decoder_16(nn.Module):

    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, d_k, d_hidden, max_len, rope_base=1000000.0, eps=1e-06, tie_weights=False):
        super().__init__()
        self.max_len = max_len
        cos, sin = rope_tables(max_len, d_k, rope_base)
        self.register_buffer('rope_cos', cos, persistent=False)
        self.register_buffer('rope_sin', sin, persistent=False)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList((Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, eps) for _ in range(n_layers)))
        self.norm = nn.RMSNorm(d_model, eps=eps)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        if tie_weights:
            self.head.weight = self.embed.weight

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        rope = (self.rope_cos[:L], self.rope_sin[:L])
        e = self.embed(idx)
        h = e
        for block in self.blocks:
            h, _ = block(e, rope)
        return self.head(self.norm(h))

# Qwen3Decoder: the package's production decoder
class _slip_Qwen3Decoder_17(nn.Module):

    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, d_k, d_hidden, max_len, rope_base=1000000.0, eps=1e-06, tie_weights=False):
        super().__init__()
        self.max_len = max_len
        cos, sin = rope_tables(max_len, d_k, rope_base)
        self.register_buffer('rope_cos', cos, persistent=False)
        self.register_buffer('rope_sin', sin, persistent=False)
        from attnbook.lm.qwen3 import Qwen3LM, Qwen3LMConfig
        self.inner = Qwen3LM(Qwen3LMConfig(vocab_size, d_model, n_layers, n_heads, n_kv_heads, d_k, d_hidden, max_len, rope_base, eps, tie_weights))
        self.embed, self.blocks = (self.inner.embed, self.inner.blocks)
        self.norm, self.head = (self.inner.norm, self.inner.head)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        return self.inner(idx)

# Qwen3Decoder: the head a function of the embedding, not a module
class _slip_Qwen3Decoder_18(nn.Module):

    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, d_k, d_hidden, max_len, rope_base=1000000.0, eps=1e-06, tie_weights=False):
        super().__init__()
        self.max_len = max_len
        cos, sin = rope_tables(max_len, d_k, rope_base)
        self.register_buffer('rope_cos', cos, persistent=False)
        self.register_buffer('rope_sin', sin, persistent=False)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList((Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, eps) for _ in range(n_layers)))
        self.norm = nn.RMSNorm(d_model, eps=eps)
        self.head = lambda x: x @ self.embed.weight.T
        if tie_weights:
            self.head.weight = self.embed.weight

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        rope = (self.rope_cos[:L], self.rope_sin[:L])
        h = self.embed(idx)
        for block in self.blocks:
            h, _ = block(h, rope)
        return self.head(self.norm(h))

# Qwen3Decoder: the embedding named tok_embed
class _slip_Qwen3Decoder_19(nn.Module):

    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, d_k, d_hidden, max_len, rope_base=1000000.0, eps=1e-06, tie_weights=False):
        super().__init__()
        self.max_len = max_len
        cos, sin = rope_tables(max_len, d_k, rope_base)
        self.register_buffer('rope_cos', cos, persistent=False)
        self.register_buffer('rope_sin', sin, persistent=False)
        self.tok_embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList((Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, eps) for _ in range(n_layers)))
        self.norm = nn.RMSNorm(d_model, eps=eps)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        if tie_weights:
            self.head.weight = self.tok_embed.weight

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        rope = (self.rope_cos[:L], self.rope_sin[:L])
        h = self.tok_embed(idx)
        for block in self.blocks:
            h, _ = block(h, rope)
        return self.head(self.norm(h))

# Qwen3Decoder: the final norm named final_norm
class _slip_Qwen3Decoder_20(nn.Module):

    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, d_k, d_hidden, max_len, rope_base=1000000.0, eps=1e-06, tie_weights=False):
        super().__init__()
        self.max_len = max_len
        cos, sin = rope_tables(max_len, d_k, rope_base)
        self.register_buffer('rope_cos', cos, persistent=False)
        self.register_buffer('rope_sin', sin, persistent=False)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList((Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, eps) for _ in range(n_layers)))
        self.final_norm = nn.RMSNorm(d_model, eps=eps)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        if tie_weights:
            self.head.weight = self.embed.weight

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        rope = (self.rope_cos[:L], self.rope_sin[:L])
        h = self.embed(idx)
        for block in self.blocks:
            h, _ = block(h, rope)
        return self.head(self.final_norm(h))

# Qwen3Decoder: an extra persistent buffer (a mask) that the checkpoint lacks
class _slip_Qwen3Decoder_21(nn.Module):

    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, d_k, d_hidden, max_len, rope_base=1000000.0, eps=1e-06, tie_weights=False):
        super().__init__()
        self.max_len = max_len
        cos, sin = rope_tables(max_len, d_k, rope_base)
        self.register_buffer('rope_cos', cos, persistent=False)
        self.register_buffer('rope_sin', sin, persistent=False)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('mask', torch.ones(max_len, max_len).tril())
        self.blocks = nn.ModuleList((Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, eps) for _ in range(n_layers)))
        self.norm = nn.RMSNorm(d_model, eps=eps)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        if tie_weights:
            self.head.weight = self.embed.weight

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        rope = (self.rope_cos[:L], self.rope_sin[:L])
        h = self.embed(idx)
        for block in self.blocks:
            h, _ = block(h, rope)
        return self.head(self.norm(h))

# decode_step: positions not offset by the cache
def _slip_decode_step_0(model, token_ids, cache):
    require_ndim('token_ids', token_ids, 2, '(B, L_new)')
    require_cache(cache, len(model.blocks), model.rope_cos.shape[0], token_ids)
    T = 0 if cache is None else cache[0][0].shape[2]
    L = token_ids.shape[1]
    rope = (model.rope_cos[:L], model.rope_sin[:L])
    h = model.embed(token_ids)
    new_cache = []
    for i, block in enumerate(model.blocks):
        h, kv = block(h, rope, None if cache is None else cache[i])
        new_cache.append(kv)
    return (model.head(model.norm(h)), new_cache)

# decode_step: positions offset by one
def _slip_decode_step_1(model, token_ids, cache):
    require_ndim('token_ids', token_ids, 2, '(B, L_new)')
    require_cache(cache, len(model.blocks), model.rope_cos.shape[0], token_ids)
    T = 0 if cache is None else cache[0][0].shape[2]
    L = token_ids.shape[1]
    rope = (model.rope_cos[T + 1:T + 1 + L], model.rope_sin[T + 1:T + 1 + L])
    h = model.embed(token_ids)
    new_cache = []
    for i, block in enumerate(model.blocks):
        h, kv = block(h, rope, None if cache is None else cache[i])
        new_cache.append(kv)
    return (model.head(model.norm(h)), new_cache)

# decode_step: the cache not passed to the blocks
def _slip_decode_step_2(model, token_ids, cache):
    require_ndim('token_ids', token_ids, 2, '(B, L_new)')
    require_cache(cache, len(model.blocks), model.rope_cos.shape[0], token_ids)
    T = 0 if cache is None else cache[0][0].shape[2]
    L = token_ids.shape[1]
    rope = (model.rope_cos[T:T + L], model.rope_sin[T:T + L])
    h = model.embed(token_ids)
    new_cache = []
    for i, block in enumerate(model.blocks):
        h, kv = block(h, rope)
        new_cache.append(kv)
    return (model.head(model.norm(h)), new_cache)

# decode_step: the cache ignored entirely (the full model on the new tokens)
def _slip_decode_step_3(model, token_ids, cache):
    require_ndim('token_ids', token_ids, 2, '(B, L_new)')
    require_cache(cache, len(model.blocks), model.rope_cos.shape[0], token_ids)
    T = 0 if cache is None else cache[0][0].shape[2]
    L = token_ids.shape[1]
    rope = (model.rope_cos[:L], model.rope_sin[:L])
    h = model.embed(token_ids)
    new_cache = []
    for i, block in enumerate(model.blocks):
        h, kv = block(h, rope)
        new_cache.append(kv)
    return (model.head(model.norm(h)), new_cache)

# decode_step: the first block's cache given to every block
def _slip_decode_step_4(model, token_ids, cache):
    require_ndim('token_ids', token_ids, 2, '(B, L_new)')
    require_cache(cache, len(model.blocks), model.rope_cos.shape[0], token_ids)
    T = 0 if cache is None else cache[0][0].shape[2]
    L = token_ids.shape[1]
    rope = (model.rope_cos[T:T + L], model.rope_sin[T:T + L])
    h = model.embed(token_ids)
    new_cache = []
    for i, block in enumerate(model.blocks):
        h, kv = block(h, rope, None if cache is None else cache[0])
        new_cache.append(kv)
    return (model.head(model.norm(h)), new_cache)

# decode_step: the old cache returned
def _slip_decode_step_5(model, token_ids, cache):
    require_ndim('token_ids', token_ids, 2, '(B, L_new)')
    require_cache(cache, len(model.blocks), model.rope_cos.shape[0], token_ids)
    T = 0 if cache is None else cache[0][0].shape[2]
    L = token_ids.shape[1]
    rope = (model.rope_cos[T:T + L], model.rope_sin[T:T + L])
    h = model.embed(token_ids)
    new_cache = []
    for i, block in enumerate(model.blocks):
        h, kv = block(h, rope, None if cache is None else cache[i])
        new_cache.append(kv)
    return (model.head(model.norm(h)), new_cache if cache is None else cache)

# decode_step: the final RMSNorm forgotten
def _slip_decode_step_6(model, token_ids, cache):
    require_ndim('token_ids', token_ids, 2, '(B, L_new)')
    require_cache(cache, len(model.blocks), model.rope_cos.shape[0], token_ids)
    T = 0 if cache is None else cache[0][0].shape[2]
    L = token_ids.shape[1]
    rope = (model.rope_cos[T:T + L], model.rope_sin[T:T + L])
    h = model.embed(token_ids)
    new_cache = []
    for i, block in enumerate(model.blocks):
        h, kv = block(h, rope, None if cache is None else cache[i])
        new_cache.append(kv)
    return (model.head(h), new_cache)

# decode_step: T read from the head axis
def _slip_decode_step_7(model, token_ids, cache):
    require_ndim('token_ids', token_ids, 2, '(B, L_new)')
    require_cache(cache, len(model.blocks), model.rope_cos.shape[0], token_ids)
    T = 0 if cache is None else cache[0][0].shape[1]
    L = token_ids.shape[1]
    rope = (model.rope_cos[T:T + L], model.rope_sin[T:T + L])
    h = model.embed(token_ids)
    new_cache = []
    for i, block in enumerate(model.blocks):
        h, kv = block(h, rope, None if cache is None else cache[i])
        new_cache.append(kv)
    return (model.head(model.norm(h)), new_cache)

# decode_step: T read as len(cache), the number of blocks
def _slip_decode_step_8(model, token_ids, cache):
    require_ndim('token_ids', token_ids, 2, '(B, L_new)')
    require_cache(cache, len(model.blocks), model.rope_cos.shape[0], token_ids)
    T = 0 if cache is None else len(cache)
    L = token_ids.shape[1]
    rope = (model.rope_cos[T:T + L], model.rope_sin[T:T + L])
    h = model.embed(token_ids)
    new_cache = []
    for i, block in enumerate(model.blocks):
        h, kv = block(h, rope, None if cache is None else cache[i])
        new_cache.append(kv)
    return (model.head(model.norm(h)), new_cache)

# decode_step: only the last token's logits returned
def _slip_decode_step_9(model, token_ids, cache):
    require_ndim('token_ids', token_ids, 2, '(B, L_new)')
    require_cache(cache, len(model.blocks), model.rope_cos.shape[0], token_ids)
    T = 0 if cache is None else cache[0][0].shape[2]
    L = token_ids.shape[1]
    rope = (model.rope_cos[T:T + L], model.rope_sin[T:T + L])
    h = model.embed(token_ids)
    new_cache = []
    for i, block in enumerate(model.blocks):
        h, kv = block(h, rope, None if cache is None else cache[i])
        new_cache.append(kv)
    return (model.head(model.norm(h))[:, -1], new_cache)

# decode_step: cache=None not handled
def _slip_decode_step_10(model, token_ids, cache):
    require_ndim('token_ids', token_ids, 2, '(B, L_new)')
    require_cache(cache, len(model.blocks), model.rope_cos.shape[0], token_ids)
    T = cache[0][0].shape[2]
    L = token_ids.shape[1]
    rope = (model.rope_cos[T:T + L], model.rope_sin[T:T + L])
    h = model.embed(token_ids)
    new_cache = []
    for i, block in enumerate(model.blocks):
        h, kv = block(h, rope, None if cache is None else cache[i])
        new_cache.append(kv)
    return (model.head(model.norm(h)), new_cache)

# decode_step: the caller's cache list updated in place
def _slip_decode_step_11(model, token_ids, cache):
    require_ndim('token_ids', token_ids, 2, '(B, L_new)')
    require_cache(cache, len(model.blocks), model.rope_cos.shape[0], token_ids)
    T = 0 if cache is None else cache[0][0].shape[2]
    L = token_ids.shape[1]
    rope = (model.rope_cos[T:T + L], model.rope_sin[T:T + L])
    h = model.embed(token_ids)
    if cache is None:
        cache = [None] * len(model.blocks)
    for i, block in enumerate(model.blocks):
        h, cache[i] = block(h, rope, cache[i])
    return (model.head(model.norm(h)), cache)

# decode_step: each block's keys and values stacked into one tensor
def _slip_decode_step_12(model, token_ids, cache):
    require_ndim('token_ids', token_ids, 2, '(B, L_new)')
    require_cache(cache, len(model.blocks), model.rope_cos.shape[0], token_ids)
    T = 0 if cache is None else cache[0][0].shape[2]
    L = token_ids.shape[1]
    rope = (model.rope_cos[T:T + L], model.rope_sin[T:T + L])
    h = model.embed(token_ids)
    new_cache = []
    for i, block in enumerate(model.blocks):
        h, kv = block(h, rope, None if cache is None else cache[i])
        new_cache.append(torch.stack(kv))
    return (model.head(model.norm(h)), new_cache)

# decode_step: the block's pair not unpacked (no cache collected)
def _slip_decode_step_13(model, token_ids, cache):
    require_ndim('token_ids', token_ids, 2, '(B, L_new)')
    require_cache(cache, len(model.blocks), model.rope_cos.shape[0], token_ids)
    T = 0 if cache is None else cache[0][0].shape[2]
    L = token_ids.shape[1]
    rope = (model.rope_cos[T:T + L], model.rope_sin[T:T + L])
    h = model.embed(token_ids)
    new_cache = []
    for i, block in enumerate(model.blocks):
        h = block(h, rope, None if cache is None else cache[i])
    return (model.head(model.norm(h)), new_cache)

# decode_step: returns only the logits
def _slip_decode_step_14(model, token_ids, cache):
    require_ndim('token_ids', token_ids, 2, '(B, L_new)')
    require_cache(cache, len(model.blocks), model.rope_cos.shape[0], token_ids)
    T = 0 if cache is None else cache[0][0].shape[2]
    L = token_ids.shape[1]
    rope = (model.rope_cos[T:T + L], model.rope_sin[T:T + L])
    h = model.embed(token_ids)
    new_cache = []
    for i, block in enumerate(model.blocks):
        h, kv = block(h, rope, None if cache is None else cache[i])
        new_cache.append(kv)
    return model.head(model.norm(h))


# function: [(mistake, its hint, the mistake as a function)]
SLIPS = {
    'rms_norm': [
        ('the mean subtracted (LayerNorm without beta)', 'RMSNorm does not centre the token: divide h itself by sqrt(mean(h ** 2) + eps)', _slip_rms_norm_0),
        ('divided by h.std (unbiased) instead of the RMS', 'the divisor is the root MEAN SQUARE, sqrt((h ** 2).mean(dim=-1) + eps), not the standard deviation: RMSNorm never subtracts the mean', _slip_rms_norm_1),
        ('divided by the biased standard deviation', 'the divisor is the root MEAN SQUARE, sqrt((h ** 2).mean(dim=-1) + eps), not the standard deviation: RMSNorm never subtracts the mean', _slip_rms_norm_2),
        ('eps outside the square root', 'eps goes inside the square root: h / sqrt(mean(h ** 2) + eps)', _slip_rms_norm_3),
        ('no square root', 'divide by the ROOT mean square: torch.sqrt(mean_square + eps)', _slip_rms_norm_4),
        ('sum of squares instead of their mean', 'average the squares over the d features: .mean(dim=-1), not .sum(dim=-1)', _slip_rms_norm_5),
        ('F.normalize (the L2 norm)', 'average the squares over the d features: .mean(dim=-1), not .sum(dim=-1)', _slip_rms_norm_6),
        ('gamma not applied', 'finish by multiplying with gamma: gamma * h / sqrt(mean(h ** 2) + eps)', _slip_rms_norm_7),
        ("gamma added like LayerNorm's beta", 'gamma scales: multiply by it; RMSNorm has no shift', _slip_rms_norm_8),
        ('eps argument ignored (1e-6 written in)', 'use the eps argument the caller passes, not a constant', _slip_rms_norm_9),
        ('mean over the first axis', "take the mean of h ** 2 over each token's own d features: the last axis, (h ** 2).mean(dim=-1, keepdim=True)", _slip_rms_norm_10),
        ('mean over the whole tensor', "take the mean of h ** 2 over each token's own d features: the last axis, (h ** 2).mean(dim=-1, keepdim=True)", _slip_rms_norm_11),
        ('keepdim forgotten', "take the mean of h ** 2 over each token's own d features: the last axis, (h ** 2).mean(dim=-1, keepdim=True); use gamma as it is: (d,) already lines up with the last axis, no gamma[:, None]", _slip_rms_norm_12),
        ('mean square divided by d - 1', 'average the squares: divide their sum by d, not d - 1', _slip_rms_norm_13),
        ('mean absolute value, squared', 'square each feature, then average: (h ** 2).mean(dim=-1), not h.abs().mean(...)', _slip_rms_norm_14),
        ('square of the mean', 'the MEAN of the squares, (h ** 2).mean(dim=-1), not the square of the mean', _slip_rms_norm_15),
        ('gamma inside the mean square', 'normalise h itself, then scale: gamma * (h / rms(h)), not rms(gamma * h)', _slip_rms_norm_16),
        ("PyTorch's own F.rms_norm", 'write the mean square and the division yourself; the check compares with F.rms_norm for you', _slip_rms_norm_17),
        ('divides h in place', 'build a new tensor (h / ..., not h /= ...): h must stay as it was', _slip_rms_norm_18),
        ('tokens returned as the rows of an (N, d) view', 'RMSNorm keeps the shape of h', _slip_rms_norm_19),
        ('eps left out', 'a token of zeros has mean square 0: eps inside the square root, sqrt(mean_square + eps), keeps it finite', _slip_rms_norm_20),
        ('returns a numpy array', 'stay in PyTorch: tensor operations, not numpy', _slip_rms_norm_21),
    ],
    'SwiGLU': [
        ('GELU instead of SiLU', "the gate's activation is SiLU, z * sigmoid(z): F.silu", _slip_SwiGLU_0),
        ('ReLU instead of SiLU', "the gate's activation is SiLU, z * sigmoid(z): F.silu", _slip_SwiGLU_1),
        ('tanh instead of SiLU', "the gate's activation is SiLU, z * sigmoid(z): F.silu", _slip_SwiGLU_2),
        ('SiLU of x before w_gate', "SiLU acts on the gate's projection: F.silu(self.w_gate(x)), not w_gate(F.silu(x))", _slip_SwiGLU_3),
        ('sigmoid gate (GLU)', 'SwiGLU gates with SiLU(z) = z * sigmoid(z), not sigmoid(z) alone', _slip_SwiGLU_4),
        ('SiLU on the up branch', 'SiLU goes on w_gate(x); w_up(x) is the content it multiplies: w_down(F.silu(w_gate(x)) * w_up(x))', _slip_SwiGLU_5),
        ('no gate', 'multiply the content w_up(x) by the gate F.silu(w_gate(x)) before w_down', _slip_SwiGLU_6),
        ('gate added instead of multiplied', 'the gate multiplies elementwise: F.silu(w_gate(x)) * w_up(x)', _slip_SwiGLU_7),
        ('SiLU after the product', 'apply SiLU to the gate alone, then multiply: F.silu(w_gate(x)) * w_up(x)', _slip_SwiGLU_8),
        ('SiLU on both branches', 'only the gate w_gate(x) goes through SiLU; w_up(x) enters as it is', _slip_SwiGLU_9),
        ('an extra SiLU at the output', "w_down's output is the result: no activation after it", _slip_SwiGLU_10),
        ('residual added inside', 'SwiGLU returns w_down(...) only; the block adds the residual', _slip_SwiGLU_11),
        ('linear layers with biases', "Qwen3's linear layers have no bias: nn.Linear(..., bias=False)", _slip_SwiGLU_12),
        ('w_down built the wrong way round', 'w_gate and w_up map d_model -> d_hidden, w_down maps d_hidden -> d_model', _slip_SwiGLU_13),
        ('an nn.Sequential instead of the named layers', "create self.w_gate = nn.Linear(..., bias=False) in __init__; the checkpoint's weights load by these names", _slip_SwiGLU_14),
        ("the package's production MLP", "write the module yourself from nn.Linear, nn.RMSNorm and your own classes; the package's production model (attnbook.lm.qwen3) is what the check compares with", _slip_SwiGLU_15),
        ('w_down left out', 'SwiGLU maps d_model features back to d_model', _slip_SwiGLU_16),
        ('tokens flattened to (B * L, d) and not reshaped back', "SwiGLU keeps x's shape (..., d_model): nn.Linear acts on the last axis", _slip_SwiGLU_17),
    ],
    'grouped_query_attention': [
        ('key/value heads tiled with repeat', 'consecutive query heads share a key/value head: k.repeat_interleave(h // h_kv, dim=1), not k.repeat(1, h // h_kv, 1, 1) (which gives query head r the key/value head r % h_kv)', _slip_grouped_query_attention_0),
        ('key/value heads never repeated', 'k and v have h_kv heads and q has h: repeat each key/value head h // h_kv times along dim=1 with repeat_interleave before the product', _slip_grouped_query_attention_1),
        ('group size upside down (h_kv // h)', 'k and v have h_kv heads and q has h: repeat each key/value head h // h_kv times along dim=1 with repeat_interleave before the product', _slip_grouped_query_attention_2),
        ('no 1/sqrt(d_k) scaling', 'divide the scores by sqrt(d_k) = sqrt(q.shape[-1])', _slip_grouped_query_attention_3),
        ('divided by d_k', 'divide by sqrt(d_k), not d_k', _slip_grouped_query_attention_4),
        ('scaled by sqrt(L_k), the number of keys', 'divide by sqrt(d_k) = sqrt(q.shape[-1]), the width of a query, not by the square root of a sequence length', _slip_grouped_query_attention_5),
        ("scaled by sqrt(h * d_k), all the query heads' width", "scale by sqrt(d_k), one head's width q.shape[-1], not sqrt(h * d_k): each head's scores are dot products of d_k features", _slip_grouped_query_attention_6),
        ('softmax over the query axis', "each query's weights (the last axis, dim=-1) must sum to 1", _slip_grouped_query_attention_7),
        ('mask applied after the softmax', "set blocked scores to -inf BEFORE the softmax (scores.masked_fill(~allowed, float('-inf')))", _slip_grouped_query_attention_8),
        ('mask inverted', "True means 'may attend': fill -inf where allowed is False, i.e. ~allowed", _slip_grouped_query_attention_9),
        ('-1e9 instead of -inf', 'a row with no allowed key came out uniform: use -inf and give such rows zero weights', _slip_grouped_query_attention_10),
        ('rows without an allowed key left as NaN', 'a query with no allowed key has only -inf scores and torch.softmax returns NaN for it: give such rows zero weights (torch.nan_to_num)', _slip_grouped_query_attention_11),
        ('allowed=None not handled', 'allowed=None means no mask: only fill -inf when allowed is not None', _slip_grouped_query_attention_12),
        ('the mask ignored', "apply allowed: scores.masked_fill(~allowed, float('-inf'))", _slip_grouped_query_attention_13),
        ("PyTorch's fused attention with enable_gqa", "write the grouping, the scores, the mask, the softmax and the weighted sum yourself; the check compares with PyTorch's kernel for you", _slip_grouped_query_attention_14),
        ("a helper of its own name that hands over to PyTorch's fused attention", "write the grouping, the scores, the mask, the softmax and the weighted sum yourself; the check compares with PyTorch's kernel for you", _slip_grouped_query_attention_15),
        ('heads merged in the output (B, L_q, h * d_k)', 'the output has one row per query head: (B, h, L_q, d_k)', _slip_grouped_query_attention_16),
        ('queries scaled in place (q /= sqrt(d_k))', "work on new tensors (k = k.repeat_interleave(...), not writing into k): the caller's q, k, v and allowed must stay as they were", _slip_grouped_query_attention_17),
    ],
    'kv_cache_bytes': [
        ('keys only', 'the cache holds a key AND a value per layer, head and token: multiply by 2', _slip_kv_cache_bytes_0),
        ('bits instead of bytes', 'bytes_per_value is already in bytes: no factor 8', _slip_kv_cache_bytes_1),
        ('bytes per token (length left out)', 'every cached token stores its keys and values: multiply by length', _slip_kv_cache_bytes_2),
        ('one layer', 'every block has its own cache: multiply by n_layers', _slip_kv_cache_bytes_3),
        ('returned in GiB', 'return bytes; divide by 2**30 only when printing GiB', _slip_kv_cache_bytes_4),
        ('bytes_per_value ignored (bfloat16 written in)', 'use the bytes_per_value argument: 4 for float32, 2 for bfloat16', _slip_kv_cache_bytes_5),
        ('d_k left out', 'each key and each value has d_k numbers: multiply by d_k', _slip_kv_cache_bytes_6),
        ('the factor 2 counted twice', 'one factor 2 for keys and values, then bytes_per_value', _slip_kv_cache_bytes_7),
        ('returned in KiB', 'return bytes; divide by 1024 only when printing KiB', _slip_kv_cache_bytes_8),
        ('returned in a list', 'return the number of bytes, not a tensor or a list', _slip_kv_cache_bytes_9),
    ],
    'Qwen3Block': [
        ('QK-norm created but not applied', 'apply QK-norm to every head: q = self.q_norm(q), k = self.k_norm(k), after splitting the heads and before RoPE', _slip_Qwen3Block_0),
        ('QK-norm after RoPE', 'normalise first, then rotate: rotate_pairs(self.q_norm(q), cos, sin)', _slip_Qwen3Block_1),
        ('q_norm used for the keys', 'the keys have their own norm: k = self.k_norm(k)', _slip_Qwen3Block_2),
        ('RoPE left out', 'rotate the queries and the keys: rotate_pairs(q, cos, sin), rotate_pairs(k, cos, sin)', _slip_Qwen3Block_3),
        ('RoPE on the values too', 'RoPE rotates queries and keys only; the values are not rotated', _slip_Qwen3Block_4),
        ('the values normalised by k_norm', 'QK-norm is for queries and keys only; the values are not normalised', _slip_Qwen3Block_5),
        ('no causal mask', 'build the causal mask: allowed[i, j] = j <= T + i, so no query reads a later token', _slip_Qwen3Block_6),
        ('causal mask aligned top-left', 'with T cached tokens, new query i sits at position T + i: allowed[i, j] = j <= T + i, the triangle aligned to the bottom right of (L, T + L)', _slip_Qwen3Block_7),
        ('the cache put after the new tokens', 'the cache holds the EARLIER tokens: torch.cat([past[0], k], dim=2), past first', _slip_Qwen3Block_8),
        ('only the new keys and values returned', 'return the keys and values over ALL T + L tokens, (B, n_kv_heads, T + L, d_k): the concatenation, past first', _slip_Qwen3Block_9),
        ('keys cached before RoPE', 'cache the keys after RoPE (and after QK-norm): later tokens compare with them as they are', _slip_Qwen3Block_10),
        ('no residual around the attention', 'add the residual: U = H + W_O(...)', _slip_Qwen3Block_11),
        ('no residual around the MLP', 'add the residual: H_out = U + mlp(norm2(U))', _slip_Qwen3Block_12),
        ("the attention's residual from the normalised x", "the residual adds the block's input h, not its normalised copy: U = h + W_O(...)", _slip_Qwen3Block_13),
        ("the MLP's residual from h", "the MLP's residual starts from U, the attention step's output: U + mlp(...)", _slip_Qwen3Block_14),
        ('a token may not read itself', 'a token may read itself: allowed[i, j] = j <= T + i (<=, not <)', _slip_Qwen3Block_15),
        ('positions counted from T + 1', 'new query i sits at position T + i (positions count from 0): allowed[i, j] = j <= T + i', _slip_Qwen3Block_16),
        ('the keys not rotated', 'rotate the queries and the keys: rotate_pairs(q, cos, sin), rotate_pairs(k, cos, sin)', _slip_Qwen3Block_17),
        ('norm1 and norm2 swapped', 'norm1 before the attention, norm2 before the MLP', _slip_Qwen3Block_18),
        ('the MLP reads H', 'the MLP reads U, the output of the attention step: U + mlp(norm2(U))', _slip_Qwen3Block_19),
        ('heads merged without the transpose', 'merge as in notebook 05: y.transpose(1, 2).reshape(B, L, n_heads * d_k)', _slip_Qwen3Block_20),
        ('heads split without the transpose', 'split as in notebook 05: view(B, L, n, d_k), then .transpose(1, 2)', _slip_Qwen3Block_21),
        ('no norm before the attention', "normalise the attention's input: x = self.norm1(h)", _slip_Qwen3Block_22),
        ('LayerNorm instead of RMSNorm', "norm1 is an RMSNorm over the d_model features, with the block's eps", _slip_Qwen3Block_23),
        ('eps not passed to the norms', 'pass the eps argument on to every RMSNorm: nn.RMSNorm(d_model, eps=eps) and nn.RMSNorm(d_k, eps=eps)', _slip_Qwen3Block_24),
        ('projections with biases', 'W_Q = nn.Linear(d_model, n_heads * d_k, bias=False); W_K and W_V map d_model to n_kv_heads * d_k; W_O maps n_heads * d_k back to d_model; no biases', _slip_Qwen3Block_25),
        ('W_K and W_V sized for every query head', 'W_K and W_V map d_model to n_kv_heads * d_k (the key/value heads, fewer than the query heads)', _slip_Qwen3Block_26),
        ('QK-norm over the whole width d_model', 'QK-norm works on one head: its RMSNorm has d_k features, not d_model', _slip_Qwen3Block_27),
        ("the MLP 4 d_model wide (notebook 06's habit)", 'build the MLP from your SwiGLU class; its hidden width is the d_hidden argument', _slip_Qwen3Block_28),
        ('returns only the output', "return a pair: the block's output, and the keys and values the attention used (for the cache)", _slip_Qwen3Block_29),
        ('adds into h in place', "write u = h + ..., not h += ...: the caller's h must stay as it was", _slip_Qwen3Block_30),
        ("the package's production block", "write the module yourself from nn.Linear, nn.RMSNorm and your own classes; the package's production model (attnbook.lm.qwen3) is what the check compares with", _slip_Qwen3Block_31),
        ('q_norm and k_norm swapped', 'q_norm goes on the queries, k_norm on the keys', _slip_Qwen3Block_32),
        ('QK-norms without a gamma (elementwise_affine=False)', "create q_norm and k_norm as RMSNorms over one head's d_k features, with the block's eps: one gamma of d_k numbers each", _slip_Qwen3Block_33),
        ('norm2 a LayerNorm', "norm2 is an RMSNorm over the d_model features, with the block's eps", _slip_Qwen3Block_34),
        ('a plain MLP (nn.Sequential) instead of SwiGLU', 'the MLP is your SwiGLU class, from d_model through d_hidden and back', _slip_Qwen3Block_35),
        ('W_Q sized d_model -> d_model', 'W_Q = nn.Linear(d_model, n_heads * d_k, bias=False): one block of d_k rows per query head', _slip_Qwen3Block_36),
        ('W_O sized d_model -> d_model', 'W_O = nn.Linear(n_heads * d_k, d_model, bias=False) maps the merged heads back to d_model', _slip_Qwen3Block_37),
        ('keys and values split into n_heads heads', 'take every size from the tensors and the module (B, L = h.shape[:2], self.n_heads, self.n_kv_heads, self.d_k), not from the worked example', _slip_Qwen3Block_38),
    ],
    'Qwen3Decoder': [
        ('the final RMSNorm created, not applied', 'apply self.norm to H_N before the head: head(norm(h))', _slip_Qwen3Decoder_0),
        ('the final RMSNorm applied after every block', 'the final RMSNorm comes once, after the last block: head(norm(h_N))', _slip_Qwen3Decoder_1),
        ('the final RMSNorm applied to the embeddings instead of H_N', 'the final RMSNorm goes after the last block, on H_N: head(norm(h_N)), not on the embeddings', _slip_Qwen3Decoder_2),
        ('the RoPE tables passed as (sin, cos)', 'rope is (cos, sin), in that order: (self.rope_cos[:L], self.rope_sin[:L])', _slip_Qwen3Decoder_3),
        ('the head not tied', "with tie_weights true the head's weight IS the embedding: self.head.weight = self.embed.weight", _slip_Qwen3Decoder_4),
        ('the head always tied', 'the head is a bias-free linear map from d_model to vocab_size, with its own weight when tie_weights is false', _slip_Qwen3Decoder_5),
        ('a head with a bias', 'no bias in the head: nn.Linear(d_model, vocab_size, bias=False)', _slip_Qwen3Decoder_6),
        ('a LayerNorm as the final norm', 'the final norm is an RMSNorm over d_model features: it has a gamma and no bias', _slip_Qwen3Decoder_7),
        ('one block repeated', 'self.blocks = nn.ModuleList(Qwen3Block(...) for _ in range(n_layers)): a list like [block] * n_layers repeats ONE block', _slip_Qwen3Decoder_8),
        ("the block's pair not unpacked", 'a Qwen3Block returns (h_out, (k, v)): unpack the pair in the loop and keep h_out', _slip_Qwen3Decoder_9),
        ("the blocks' outputs discarded", 'a block returns (h_out, (k, v)): keep h_out as the next hidden state', _slip_Qwen3Decoder_10),
        ('softmax applied to the logits', 'return the logits themselves; the softmax belongs to the loss and the sampler', _slip_Qwen3Decoder_11),
        ('embedding scaled by sqrt(d_model)', 'no sqrt(d_model) factor in Qwen3: H0 = E[w]', _slip_Qwen3Decoder_12),
        ('the RoPE tables not sliced to L', 'check every shape on the way: heads are (B, n, L, d_k), the RoPE tables (L, d_k / 2) for the L new tokens, and the keys and values grow along dim=2, the token axis', _slip_Qwen3Decoder_13),
        ('the eps argument not passed on', "this config has eps = 0.05: every RMSNorm (the blocks' and the final one) must get the eps argument", _slip_Qwen3Decoder_14),
        ('the last block skipped', 'run every block: for block in self.blocks', _slip_Qwen3Decoder_15),
        ('every block fed the embeddings', "feed each block the previous block's output, not the embeddings", _slip_Qwen3Decoder_16),
        ("the package's production decoder", "write the module yourself from nn.Linear, nn.RMSNorm and your own classes; the package's production model (attnbook.lm.qwen3) is what the check compares with", _slip_Qwen3Decoder_17),
        ('the head a function of the embedding, not a module', 'self.head.weight = self.embed.weight when tie_weights is true, and only then', _slip_Qwen3Decoder_18),
        ('the embedding named tok_embed', 'create the token embedding: one row of d_model numbers per vocabulary id', _slip_Qwen3Decoder_19),
        ('the final norm named final_norm', 'create the final norm: an RMSNorm over d_model features, with eps', _slip_Qwen3Decoder_20),
        ('an extra persistent buffer (a mask) that the checkpoint lacks', 'use the attribute names of the exercise', _slip_Qwen3Decoder_21),
    ],
    'decode_step': [
        ('positions not offset by the cache', "the new tokens sit at positions T, T + 1, ...: use rows T .. T + L_new - 1 of the tables, model.rope_cos[T:T + L_new], with T the cache's length cache[0][0].shape[2]", _slip_decode_step_0),
        ('positions offset by one', 'the first new token sits at position T (positions count from 0): model.rope_cos[T:T + L_new]', _slip_decode_step_1),
        ('the cache not passed to the blocks', 'give every block its own cached keys and values: block(h, rope, cache[i])', _slip_decode_step_2),
        ('the cache ignored entirely (the full model on the new tokens)', 'give every block its own cached keys and values, block(h, rope, cache[i]), and the RoPE rows of positions T .. T + L_new - 1', _slip_decode_step_3),
        ("the first block's cache given to every block", 'block i gets cache[i], its own keys and values', _slip_decode_step_4),
        ('the old cache returned', 'after this step the cache covers 5 + 1 tokens, (B, h_kv, T + L_new, d_k): return the new list of the (k, v) pairs the blocks returned', _slip_decode_step_5),
        ('the final RMSNorm forgotten', 'apply model.norm before the head: model.head(model.norm(h))', _slip_decode_step_6),
        ('T read from the head axis', 'the cached tokens are on the third axis: T = cache[0][0].shape[2]', _slip_decode_step_7),
        ('T read as len(cache), the number of blocks', 'len(cache) counts the blocks; the cached tokens are on the third axis of each key tensor: T = cache[0][0].shape[2]', _slip_decode_step_8),
        ("only the last token's logits returned", 'return the logits of every new token, (B, L_new, V), not only the last one', _slip_decode_step_9),
        ('cache=None not handled', 'cache is None before the prefill: take T = 0 then, and give the blocks past=None', _slip_decode_step_10),
        ("the caller's cache list updated in place", "build a new list for the cache (new_cache.append(kv)) and return it: the caller's cache must stay as it was (a second sample or a beam search starts from it again)", _slip_decode_step_11),
        ("each block's keys and values stacked into one tensor", 'collect what every block returns: h, kv = block(...); new_cache.append(kv)', _slip_decode_step_12),
        ("the block's pair not unpacked (no cache collected)", 'a Qwen3Block returns (h_out, (k, v)): unpack the pair and keep the keys and values for the new cache', _slip_decode_step_13),
        ('returns only the logits', 'return the logits (the final norm, then the head) and the new cache, as a pair', _slip_decode_step_14),
    ],
}
