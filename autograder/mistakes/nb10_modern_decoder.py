"""Notebook 10 catalogue: the mistakes students make, and correct answers written otherwise.

Classes have two solution regions, `__init__` and `forward`; a variant gives a body for each
(None keeps the reference body). Most block and decode-step variants are the reference body
with one line changed, so each shows exactly the slip it names.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from grader.catalogue import alternative, mistake  # noqa: E402

BLOCK_INIT = """
    self.norm1 = nn.RMSNorm(d_model, eps=eps)
    self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
    self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
    self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
    self.q_norm = nn.RMSNorm(d_k, eps=eps)
    self.k_norm = nn.RMSNorm(d_k, eps=eps)
    self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
    self.norm2 = nn.RMSNorm(d_model, eps=eps)
    self.mlp = SwiGLU(d_model, d_hidden)
"""

BLOCK_FORWARD = """
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
    return u + self.mlp(self.norm2(u)), (k, v)
"""

DECODER_INIT = """
    self.embed = nn.Embedding(vocab_size, d_model)
    self.blocks = nn.ModuleList(
        Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, eps) for _ in range(n_layers))
    self.norm = nn.RMSNorm(d_model, eps=eps)
    self.head = nn.Linear(d_model, vocab_size, bias=False)
    if tie_weights:
        self.head.weight = self.embed.weight
"""

DECODER_FORWARD = """
    L = idx.shape[1]
    rope = (self.rope_cos[:L], self.rope_sin[:L])
    h = self.embed(idx)
    for block in self.blocks:
        h, _ = block(h, rope)
    return self.head(self.norm(h))
"""

DECODE = """
    T = 0 if cache is None else cache[0][0].shape[2]
    L = token_ids.shape[1]
    rope = (model.rope_cos[T:T + L], model.rope_sin[T:T + L])
    h = model.embed(token_ids)
    new_cache = []
    for i, block in enumerate(model.blocks):
        h, kv = block(h, rope, None if cache is None else cache[i])
        new_cache.append(kv)
    return model.head(model.norm(h)), new_cache
"""


def block(old: str, new: str, init: str | None = None) -> tuple:
    """Qwen3Block's bodies with one piece of the reference forward replaced."""
    assert old in BLOCK_FORWARD, old
    return (init, BLOCK_FORWARD.replace(old, new))


def decoder(old: str = "", new: str = "", init: str | None = None) -> tuple:
    assert old in DECODER_FORWARD, old
    return (init, DECODER_FORWARD.replace(old, new) if old else None)


def decode(old: str, new: str) -> str:
    assert old in DECODE, old
    return DECODE.replace(old, new)


MISTAKES = [
    # rms_norm
    mistake("rms_norm", "the mean subtracted (LayerNorm without beta)", """
        centred = h - h.mean(dim=-1, keepdim=True)
        return gamma * centred / torch.sqrt((centred ** 2).mean(dim=-1, keepdim=True) + eps)
    """, hint="RMSNorm does not centre the token"),
    mistake("rms_norm", "divided by h.std (unbiased) instead of the RMS", """
        return gamma * h / torch.sqrt(h.var(dim=-1, keepdim=True) + eps)
    """, hint="RMSNorm never subtracts the mean"),
    mistake("rms_norm", "divided by the biased standard deviation", """
        return gamma * h / torch.sqrt(h.var(dim=-1, keepdim=True, unbiased=False) + eps)
    """, hint="RMSNorm never subtracts the mean"),
    mistake("rms_norm", "eps outside the square root", """
        rms = torch.sqrt((h ** 2).mean(dim=-1, keepdim=True))
        return gamma * h / (rms + eps)
    """, hint="eps goes inside the square root"),
    mistake("rms_norm", "no square root", """
        return gamma * h / ((h ** 2).mean(dim=-1, keepdim=True) + eps)
    """, hint="ROOT mean square"),
    mistake("rms_norm", "sum of squares instead of their mean", """
        return gamma * h / torch.sqrt((h ** 2).sum(dim=-1, keepdim=True) + eps)
    """, hint=".mean(dim=-1), not .sum(dim=-1)"),
    mistake("rms_norm", "F.normalize (the L2 norm)", """
        return gamma * F.normalize(h, dim=-1)
    """, hint=".mean(dim=-1), not .sum(dim=-1)"),
    mistake("rms_norm", "gamma not applied", """
        return h / torch.sqrt((h ** 2).mean(dim=-1, keepdim=True) + eps)
    """, hint="multiplying with gamma"),
    mistake("rms_norm", "gamma added like LayerNorm's beta", """
        return h / torch.sqrt((h ** 2).mean(dim=-1, keepdim=True) + eps) + gamma
    """, hint="gamma scales"),
    mistake("rms_norm", "eps argument ignored (1e-6 written in)", """
        return gamma * h / torch.sqrt((h ** 2).mean(dim=-1, keepdim=True) + 1e-6)
    """, hint="use the eps argument"),
    mistake("rms_norm", "mean over the first axis", """
        return gamma * h / torch.sqrt((h ** 2).mean(dim=0, keepdim=True) + eps)
    """, hint="the last axis"),
    mistake("rms_norm", "mean over the whole tensor", """
        return gamma * h / torch.sqrt((h ** 2).mean() + eps)
    """, hint="the last axis"),
    mistake("rms_norm", "keepdim forgotten", """
        return gamma * h / torch.sqrt((h ** 2).mean(dim=-1) + eps)
    """, hint="keepdim=True"),
    mistake("rms_norm", "mean square divided by d - 1", """
        d = h.shape[-1]
        return gamma * h / torch.sqrt((h ** 2).sum(dim=-1, keepdim=True) / (d - 1) + eps)
    """, hint="not d - 1"),
    mistake("rms_norm", "PyTorch's own F.rms_norm", """
        return F.rms_norm(h, (h.shape[-1],), gamma, eps)
    """, hint="write the mean square and the division yourself"),
    mistake("rms_norm", "divides h in place", """
        h /= torch.sqrt((h ** 2).mean(dim=-1, keepdim=True) + eps)
        return gamma * h
    """, hint="h must stay as it was"),
    # SwiGLU
    mistake("SwiGLU", "GELU instead of SiLU", (None, """
        return self.w_down(F.gelu(self.w_gate(x)) * self.w_up(x))
    """), hint="F.silu"),
    mistake("SwiGLU", "ReLU instead of SiLU", (None, """
        return self.w_down(torch.relu(self.w_gate(x)) * self.w_up(x))
    """), hint="F.silu"),
    mistake("SwiGLU", "sigmoid gate (GLU)", (None, """
        return self.w_down(torch.sigmoid(self.w_gate(x)) * self.w_up(x))
    """), hint="not sigmoid(z) alone"),
    mistake("SwiGLU", "SiLU on the up branch", (None, """
        return self.w_down(self.w_gate(x) * F.silu(self.w_up(x)))
    """), hint="SiLU goes on w_gate(x)"),
    mistake("SwiGLU", "no gate", (None, """
        return self.w_down(F.silu(self.w_up(x)))
    """), hint="multiply the content w_up(x) by the gate"),
    mistake("SwiGLU", "gate added instead of multiplied", (None, """
        return self.w_down(F.silu(self.w_gate(x)) + self.w_up(x))
    """), hint="the gate multiplies elementwise"),
    mistake("SwiGLU", "SiLU after the product", (None, """
        return self.w_down(F.silu(self.w_gate(x) * self.w_up(x)))
    """), hint="apply SiLU to the gate alone"),
    mistake("SwiGLU", "SiLU on both branches", (None, """
        return self.w_down(F.silu(self.w_gate(x)) * F.silu(self.w_up(x)))
    """), hint="only the gate w_gate(x) goes through SiLU"),
    mistake("SwiGLU", "an extra SiLU at the output", (None, """
        return F.silu(self.w_down(F.silu(self.w_gate(x)) * self.w_up(x)))
    """), hint="no activation after it"),
    mistake("SwiGLU", "residual added inside", (None, """
        return x + self.w_down(F.silu(self.w_gate(x)) * self.w_up(x))
    """), hint="the block adds the residual"),
    mistake("SwiGLU", "linear layers with biases", ("""
        self.w_gate = nn.Linear(d_model, d_hidden)
        self.w_up = nn.Linear(d_model, d_hidden)
        self.w_down = nn.Linear(d_hidden, d_model)
    """, None), hint="bias=False"),
    mistake("SwiGLU", "w_down built the wrong way round", ("""
        self.w_gate = nn.Linear(d_model, d_hidden, bias=False)
        self.w_up = nn.Linear(d_model, d_hidden, bias=False)
        self.w_down = nn.Linear(d_model, d_hidden, bias=False)
    """, None), hint="w_down maps d_hidden"),
    mistake("SwiGLU", "an nn.Sequential instead of the named layers", ("""
        self.net = nn.Sequential(nn.Linear(d_model, d_hidden, bias=False), nn.SiLU(),
                                 nn.Linear(d_hidden, d_model, bias=False))
    """, """
        return self.net(x)
    """), hint="self.w_gate = nn.Linear"),
    mistake("SwiGLU", "the package's production MLP", ("""
        from attnbook.qwen3 import GatedMLP, Qwen3LMConfig
        self.inner = GatedMLP(Qwen3LMConfig(vocab_size=1, d_model=d_model, d_hidden=d_hidden))
        self.w_gate, self.w_up, self.w_down = (self.inner.w_gate, self.inner.w_up,
                                               self.inner.w_down)
    """, """
        return self.inner(x)
    """), hint="production model (attnbook.qwen3)"),
    # grouped_query_attention
    mistake("grouped_query_attention", "key/value heads tiled with repeat", """
        group = q.shape[1] // k.shape[1]
        k = k.repeat(1, group, 1, 1)
        v = v.repeat(1, group, 1, 1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        return torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0) @ v
    """, hint="repeat_interleave(h // h_kv, dim=1), not k.repeat"),
    mistake("grouped_query_attention", "groups built with expand in the wrong order", """
        B, h_kv, L_k, d_k = k.shape
        group = q.shape[1] // h_kv
        k = k[:, None].expand(B, group, h_kv, L_k, d_k).reshape(B, group * h_kv, L_k, d_k)
        v = v[:, None].expand(B, group, h_kv, L_k, d_k).reshape(B, group * h_kv, L_k, d_k)
        scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        return torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0) @ v
    """, hint="repeat_interleave(h // h_kv, dim=1), not k.repeat"),
    mistake("grouped_query_attention", "key/value heads never repeated", """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        return torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0) @ v
    """, hint="repeat each key/value head"),
    mistake("grouped_query_attention", "group size upside down (h_kv // h)", """
        group = k.shape[1] // q.shape[1]
        k = k.repeat_interleave(group, dim=1)
        v = v.repeat_interleave(group, dim=1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        return torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0) @ v
    """, hint="repeat each key/value head"),
    mistake("grouped_query_attention", "no 1/sqrt(d_k) scaling", """
        group = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        scores = q @ k.transpose(-2, -1)
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        return torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0) @ v
    """, hint="divide the scores by sqrt(d_k)"),
    mistake("grouped_query_attention", "divided by d_k", """
        group = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        scores = q @ k.transpose(-2, -1) / q.shape[-1]
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        return torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0) @ v
    """, hint="not d_k"),
    mistake("grouped_query_attention", "softmax over the query axis", """
        group = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        return torch.nan_to_num(torch.softmax(scores, dim=-2), nan=0.0) @ v
    """, hint="must sum to 1"),
    mistake("grouped_query_attention", "mask applied after the softmax", """
        group = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
        if allowed is not None:
            weights = weights * allowed
        return weights @ v
    """, hint="BEFORE the softmax"),
    mistake("grouped_query_attention", "mask inverted", """
        group = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if allowed is not None:
            scores = scores.masked_fill(allowed, float("-inf"))
        return torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0) @ v
    """, hint="True means 'may attend'"),
    mistake("grouped_query_attention", "-1e9 instead of -inf", """
        group = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if allowed is not None:
            scores = scores.masked_fill(~allowed, -1e9)
        return torch.softmax(scores, dim=-1) @ v
    """, hint="use -inf"),
    mistake("grouped_query_attention", "rows without an allowed key left as NaN", """
        group = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        return torch.softmax(scores, dim=-1) @ v
    """, hint="torch.nan_to_num"),
    mistake("grouped_query_attention", "allowed=None not handled", """
        group = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        scores = scores.masked_fill(~allowed, float("-inf"))
        return torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0) @ v
    """, hint="allowed=None means no mask"),
    mistake("grouped_query_attention", "the mask ignored", """
        group = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        return torch.softmax(scores, dim=-1) @ v
    """, hint="apply allowed"),
    mistake("grouped_query_attention", "PyTorch's fused attention with enable_gqa", """
        return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, enable_gqa=True)
    """, hint="write the grouping, the scores"),
    # kv_cache_bytes
    mistake("kv_cache_bytes", "keys only", """
        return n_layers * n_kv_heads * d_k * length * bytes_per_value
    """, hint="a key AND a value"),
    mistake("kv_cache_bytes", "bits instead of bytes", """
        return 2 * n_layers * n_kv_heads * d_k * length * bytes_per_value * 8
    """, hint="no factor 8"),
    mistake("kv_cache_bytes", "bytes per token (length left out)", """
        return 2 * n_layers * n_kv_heads * d_k * bytes_per_value
    """, hint="multiply by length"),
    mistake("kv_cache_bytes", "one layer", """
        return 2 * n_kv_heads * d_k * length * bytes_per_value
    """, hint="multiply by n_layers"),
    mistake("kv_cache_bytes", "returned in GiB", """
        return 2 * n_layers * n_kv_heads * d_k * length * bytes_per_value / 2**30
    """, hint="divide by 2**30 only when printing"),
    mistake("kv_cache_bytes", "bytes_per_value ignored (bfloat16 written in)", """
        return 2 * n_layers * n_kv_heads * d_k * length * 2
    """, hint="use the bytes_per_value argument"),
    mistake("kv_cache_bytes", "d_k left out", """
        return 2 * n_layers * n_kv_heads * length * bytes_per_value
    """, hint="multiply by d_k"),
    # Qwen3Block
    mistake("Qwen3Block", "QK-norm created but not applied",
            block("q = rotate_pairs(self.q_norm(q), *rope)\n    k = rotate_pairs(self.k_norm(k), "
                  "*rope)", "q = rotate_pairs(q, *rope)\n    k = rotate_pairs(k, *rope)"),
            hint="apply QK-norm to every head"),
    mistake("Qwen3Block", "QK-norm after RoPE",
            block("q = rotate_pairs(self.q_norm(q), *rope)\n    k = rotate_pairs(self.k_norm(k), "
                  "*rope)", "q = self.q_norm(rotate_pairs(q, *rope))\n    "
                  "k = self.k_norm(rotate_pairs(k, *rope))"),
            hint="normalise first, then rotate"),
    mistake("Qwen3Block", "q_norm used for the keys",
            block("rotate_pairs(self.k_norm(k), *rope)", "rotate_pairs(self.q_norm(k), *rope)"),
            hint="the keys have their own norm"),
    mistake("Qwen3Block", "RoPE left out",
            block("q = rotate_pairs(self.q_norm(q), *rope)\n    k = rotate_pairs(self.k_norm(k), "
                  "*rope)", "q = self.q_norm(q)\n    k = self.k_norm(k)"),
            hint="rotate the queries and the keys"),
    mistake("Qwen3Block", "RoPE on the values too",
            block("    if past is not None:", "    v = rotate_pairs(v, *rope)\n"
                  "    if past is not None:"),
            hint="the values are not rotated"),
    mistake("Qwen3Block", "the values normalised by k_norm",
            block("    if past is not None:", "    v = self.k_norm(v)\n    if past is not None:"),
            hint="the values are not normalised"),
    mistake("Qwen3Block", "no causal mask",
            block("y = grouped_query_attention(q, k, v, allowed)",
                  "y = grouped_query_attention(q, k, v)"),
            hint="build the causal mask"),
    mistake("Qwen3Block", "causal mask aligned top-left",
            block("allowed = torch.arange(T + L)[None, :] <= positions",
                  "allowed = torch.ones(L, T + L, dtype=torch.bool).tril()"),
            hint="bottom right"),
    mistake("Qwen3Block", "PyTorch's fused attention with is_causal=True",
            block("y = grouped_query_attention(q, k, v, allowed)",
                  "y = F.scaled_dot_product_attention(q, k, v, is_causal=True, "
                  "enable_gqa=True)"),
            hint="bottom right"),
    mistake("Qwen3Block", "the cache put after the new tokens",
            block("k = torch.cat([past[0], k], dim=2)\n        v = torch.cat([past[1], v], dim=2)",
                  "k = torch.cat([k, past[0]], dim=2)\n        v = torch.cat([v, past[1]], dim=2)"),
            hint="past first"),
    mistake("Qwen3Block", "only the new keys and values returned", (None, BLOCK_FORWARD.replace(
        "    if past is not None:", "    new = (k, v)\n    if past is not None:").replace(
        "self.mlp(self.norm2(u)), (k, v)", "self.mlp(self.norm2(u)), new")),
            hint="ALL T + L tokens"),
    mistake("Qwen3Block", "keys cached before RoPE", (None, BLOCK_FORWARD.replace(
        "k = rotate_pairs(self.k_norm(k), *rope)",
        "k_plain = self.k_norm(k)\n    k = rotate_pairs(k_plain, *rope)").replace(
        "return u + self.mlp(self.norm2(u)), (k, v)",
        "cached = k_plain if past is None else torch.cat([past[0], k_plain], dim=2)\n"
        "    return u + self.mlp(self.norm2(u)), (cached, v)")),
        hint="cache the keys after RoPE"),
    mistake("Qwen3Block", "no residual around the attention",
            block("u = h + self.W_O(", "u = self.W_O("), hint="add the residual: U = H"),
    mistake("Qwen3Block", "no residual around the MLP",
            block("return u + self.mlp(", "return self.mlp("), hint="H_out = U + mlp"),
    mistake("Qwen3Block", "norm1 and norm2 swapped", (None, BLOCK_FORWARD.replace(
        "x = self.norm1(h)", "x = self.norm2(h)").replace("self.mlp(self.norm2(u))",
                                                        "self.mlp(self.norm1(u))")),
            hint="norm1 before the attention"),
    mistake("Qwen3Block", "the MLP reads H", block("self.mlp(self.norm2(u))",
                                                   "self.mlp(self.norm2(h))"),
            hint="the MLP reads U"),
    mistake("Qwen3Block", "heads merged without the transpose",
            block("y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k)",
                  "y.reshape(B, L, self.n_heads * self.d_k)"),
            hint="merge as in notebook 05"),
    mistake("Qwen3Block", "heads split without the transpose",
            block("q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)\n"
                  "    k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)\n"
                  "    v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)",
                  "q = self.W_Q(x).view(B, self.n_heads, L, self.d_k)\n"
                  "    k = self.W_K(x).view(B, self.n_kv_heads, L, self.d_k)\n"
                  "    v = self.W_V(x).view(B, self.n_kv_heads, L, self.d_k)"),
            hint="split as in notebook 05"),
    mistake("Qwen3Block", "no norm before the attention",
            block("x = self.norm1(h)", "x = h"), hint="normalise the attention's input"),
    mistake("Qwen3Block", "LayerNorm instead of RMSNorm",
            (BLOCK_INIT.replace("self.norm1 = nn.RMSNorm(d_model, eps=eps)",
                                "self.norm1 = nn.LayerNorm(d_model, eps=eps)")
             .replace("self.norm2 = nn.RMSNorm(d_model, eps=eps)",
                      "self.norm2 = nn.LayerNorm(d_model, eps=eps)"), None),
            hint="nn.RMSNorm(d_model, eps=eps)"),
    mistake("Qwen3Block", "eps not passed to the norms",
            (BLOCK_INIT.replace(", eps=eps)", ")"), None), hint="pass the eps argument on"),
    mistake("Qwen3Block", "projections with biases",
            (BLOCK_INIT.replace(", bias=False)", ")"), None), hint="no biases"),
    mistake("Qwen3Block", "W_K and W_V sized for every query head",
            (BLOCK_INIT.replace("nn.Linear(d_model, n_kv_heads * d_k, bias=False)",
                                "nn.Linear(d_model, n_heads * d_k, bias=False)"), None),
            hint="n_kv_heads * d_k"),
    mistake("Qwen3Block", "QK-norm over the whole width d_model",
            (BLOCK_INIT.replace("nn.RMSNorm(d_k, eps=eps)", "nn.RMSNorm(d_model, eps=eps)"),
             None), hint="QK-norm works on one head"),
    mistake("Qwen3Block", "the MLP 4 d_model wide (notebook 06's habit)",
            (BLOCK_INIT.replace("SwiGLU(d_model, d_hidden)", "SwiGLU(d_model, 4 * d_model)"),
             None), hint="the hidden width is the d_hidden argument"),
    mistake("Qwen3Block", "returns only the output",
            block("return u + self.mlp(self.norm2(u)), (k, v)",
                  "return u + self.mlp(self.norm2(u))"),
            hint="expected a pair (h_out, (k, v))"),
    mistake("Qwen3Block", "adds into h in place",
            block("u = h + self.W_O(", "u = h\n    u += self.W_O("), hint="not h += ..."),
    mistake("Qwen3Block", "the package's production block", ("""
        from attnbook.qwen3 import ModernBlock, Qwen3LMConfig
        self.inner = ModernBlock(Qwen3LMConfig(
            vocab_size=1, d_model=d_model, n_heads=n_heads, n_kv_heads=n_kv_heads, d_k=d_k,
            d_hidden=d_hidden, eps=eps))
    """, """
        return self.inner(h, rope, past)
    """), hint="production model (attnbook.qwen3)"),
    # Qwen3Decoder
    mistake("Qwen3Decoder", "the final RMSNorm created, not applied",
            decoder("return self.head(self.norm(h))", "return self.head(h)"),
            hint="apply self.norm"),
    mistake("Qwen3Decoder", "the head not tied",
            (DECODER_INIT.replace("    if tie_weights:\n        self.head.weight = "
                                  "self.embed.weight\n", ""), None),
            hint="self.head.weight = self.embed.weight"),
    mistake("Qwen3Decoder", "the head always tied",
            (DECODER_INIT.replace("    if tie_weights:\n        self.head.weight",
                                  "    if True:\n        self.head.weight"), None),
            hint="with its own weight when tie_weights is false"),
    mistake("Qwen3Decoder", "a head with a bias",
            (DECODER_INIT.replace("nn.Linear(d_model, vocab_size, bias=False)",
                                  "nn.Linear(d_model, vocab_size)"), None),
            hint="no bias in the head"),
    mistake("Qwen3Decoder", "a LayerNorm as the final norm",
            (DECODER_INIT.replace("nn.RMSNorm(d_model, eps=eps)", "nn.LayerNorm(d_model)"),
             None), hint="the final norm is RMSNorm"),
    mistake("Qwen3Decoder", "one block repeated",
            (DECODER_INIT.replace(
                "nn.ModuleList(\n        Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, "
                "eps) for _ in range(n_layers))",
                "nn.ModuleList(\n        [Qwen3Block(d_model, n_heads, n_kv_heads, d_k, "
                "d_hidden, eps)] * n_layers)"), None),
            hint="repeats ONE block"),
    mistake("Qwen3Decoder", "the block's pair not unpacked",
            decoder("h, _ = block(h, rope)", "h = block(h, rope)"), hint="unpack it"),
    mistake("Qwen3Decoder", "the blocks' outputs discarded",
            decoder("h, _ = block(h, rope)", "block(h, rope)"), hint="keep its output"),
    mistake("Qwen3Decoder", "softmax applied to the logits",
            decoder("return self.head(self.norm(h))",
                    "return self.head(self.norm(h)).softmax(dim=-1)"),
            hint="return the logits themselves"),
    mistake("Qwen3Decoder", "embedding scaled by sqrt(d_model)",
            decoder("h = self.embed(idx)", "h = self.embed(idx) * self.embed.embedding_dim ** 0.5"),
            hint="no sqrt(d_model)"),
    mistake("Qwen3Decoder", "the RoPE tables not sliced to L",
            decoder("rope = (self.rope_cos[:L], self.rope_sin[:L])",
                    "rope = (self.rope_cos, self.rope_sin)"),
            hint="the RoPE tables (L, d_k / 2)"),
    mistake("Qwen3Decoder", "the eps argument not passed on",
            (DECODER_INIT.replace("d_hidden, eps)", "d_hidden)")
             .replace("nn.RMSNorm(d_model, eps=eps)", "nn.RMSNorm(d_model)"), None),
            hint="must get the eps argument"),
    mistake("Qwen3Decoder", "the last block skipped",
            decoder("for block in self.blocks:", "for block in self.blocks[:-1]:"),
            hint="run every block"),
    mistake("Qwen3Decoder", "every block fed the embeddings",
            decoder("h = self.embed(idx)\n    for block in self.blocks:\n        h, _ = block(h, "
                    "rope)", "e = self.embed(idx)\n    h = e\n    for block in self.blocks:\n"
                    "        h, _ = block(e, rope)"),
            hint="feed each block the previous block's output"),
    mistake("Qwen3Decoder", "the package's production decoder", ("""
        from attnbook.qwen3 import Qwen3LM, Qwen3LMConfig
        self.inner = Qwen3LM(Qwen3LMConfig(vocab_size, d_model, n_layers, n_heads, n_kv_heads,
                                           d_k, d_hidden, max_len, rope_base, eps, tie_weights))
        self.embed, self.blocks = self.inner.embed, self.inner.blocks
        self.norm, self.head = self.inner.norm, self.inner.head
    """, """
        return self.inner(idx)
    """), hint="production model (attnbook.qwen3)"),
    # decode_step
    mistake("decode_step", "positions not offset by the cache",
            decode("rope = (model.rope_cos[T:T + L], model.rope_sin[T:T + L])",
                   "rope = (model.rope_cos[:L], model.rope_sin[:L])"),
            hint="the new tokens sit at positions T, T + 1"),
    mistake("decode_step", "positions offset by one",
            decode("rope = (model.rope_cos[T:T + L], model.rope_sin[T:T + L])",
                   "rope = (model.rope_cos[T + 1:T + 1 + L], model.rope_sin[T + 1:T + 1 + L])"),
            hint="positions count from 0"),
    mistake("decode_step", "the cache not passed to the blocks",
            decode("h, kv = block(h, rope, None if cache is None else cache[i])",
                   "h, kv = block(h, rope)"),
            hint="give every block its own cached keys and values"),
    mistake("decode_step", "the cache ignored entirely (the full model on the new tokens)",
            decode("rope = (model.rope_cos[T:T + L], model.rope_sin[T:T + L])",
                   "rope = (model.rope_cos[:L], model.rope_sin[:L])")
            .replace("block(h, rope, None if cache is None else cache[i])", "block(h, rope)"),
            hint="give every block its own cached keys and values"),
    mistake("decode_step", "the first block's cache given to every block",
            decode("None if cache is None else cache[i])", "None if cache is None else cache[0])"),
            hint="block i gets cache[i]"),
    mistake("decode_step", "the old cache returned",
            decode("return model.head(model.norm(h)), new_cache",
                   "return model.head(model.norm(h)), new_cache if cache is None else cache"),
            hint="return the new list"),
    mistake("decode_step", "the final RMSNorm forgotten",
            decode("model.head(model.norm(h))", "model.head(h)"), hint="apply model.norm"),
    mistake("decode_step", "T read from the head axis",
            decode("cache[0][0].shape[2]", "cache[0][0].shape[1]"), hint="the third axis"),
    mistake("decode_step", "only the last token's logits returned",
            decode("return model.head(model.norm(h)), new_cache",
                   "return model.head(model.norm(h))[:, -1], new_cache"),
            hint="not only the last one"),
    mistake("decode_step", "cache=None not handled",
            decode("T = 0 if cache is None else cache[0][0].shape[2]",
                   "T = cache[0][0].shape[2]"),
            hint="cache is None before the prefill"),
    mistake("decode_step", "the caller's cache list updated in place", """
        T = 0 if cache is None else cache[0][0].shape[2]
        L = token_ids.shape[1]
        rope = (model.rope_cos[T:T + L], model.rope_sin[T:T + L])
        h = model.embed(token_ids)
        if cache is None:
            cache = [None] * len(model.blocks)
        for i, block in enumerate(model.blocks):
            h, cache[i] = block(h, rope, cache[i])
        return model.head(model.norm(h)), cache
    """, hint="build a new list for the cache"),
]

ALTERNATIVES = [
    # rms_norm
    alternative("rms_norm", "rsqrt and pow", """
        return h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps) * gamma
    """),
    alternative("rms_norm", "the vector norm divided by sqrt(d)", """
        d = h.shape[-1]
        norm = torch.linalg.vector_norm(h, dim=-1, keepdim=True)
        return gamma * h / torch.sqrt(norm ** 2 / d + eps)
    """),
    alternative("rms_norm", "einsum for the sum of squares", """
        squares = torch.einsum("...d,...d->...", h, h)[..., None]
        return gamma * h / (squares / h.shape[-1] + eps) ** 0.5
    """),
    alternative("rms_norm", "a loop over the tokens of a flattened view", """
        d = h.shape[-1]
        rows = [gamma * row / torch.sqrt((row * row).sum() / d + eps) for row in h.reshape(-1, d)]
        return torch.stack(rows).reshape(h.shape)
    """),
    alternative("rms_norm", "through numpy and back", """
        import numpy as np
        a = h.detach().cpu().numpy()
        out = a / np.sqrt((a ** 2).mean(axis=-1, keepdims=True) + eps)
        return torch.from_numpy(out).to(h.dtype) * gamma
    """),
    # SwiGLU
    alternative("SwiGLU", "sigmoid written out, nn.SiLU attribute", ("""
        self.w_gate = nn.Linear(d_model, d_hidden, bias=False)
        self.w_up = nn.Linear(d_model, d_hidden, bias=False)
        self.w_down = nn.Linear(d_hidden, d_model, bias=False)
        self.act = nn.SiLU()
    """, """
        gate = self.w_gate(x)
        return self.w_down(gate * torch.sigmoid(gate) * self.w_up(x))
    """)),
    alternative("SwiGLU", "weights applied by hand", (None, """
        gate = x @ self.w_gate.weight.T
        return (F.silu(gate) * (x @ self.w_up.weight.T)) @ self.w_down.weight.T
    """)),
    alternative("SwiGLU", "layers created in another order, torch.mul", ("""
        self.w_down = nn.Linear(d_hidden, d_model, bias=False)
        self.w_up = nn.Linear(d_model, d_hidden, bias=False)
        self.w_gate = nn.Linear(d_model, d_hidden, bias=False)
    """, """
        return self.w_down(torch.mul(self.w_up(x), nn.functional.silu(self.w_gate(x))))
    """)),
    # grouped_query_attention
    alternative("grouped_query_attention", "queries grouped instead of keys repeated", """
        B, h, L_q, d_k = q.shape
        h_kv, L_k = k.shape[1], k.shape[2]
        groups = q.reshape(B, h_kv, h // h_kv, L_q, d_k)
        scores = groups @ k[:, :, None].transpose(-2, -1) / d_k ** 0.5
        scores = scores.reshape(B, h, L_q, L_k)
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        weights = torch.nan_to_num(scores.softmax(dim=-1), nan=0.0)
        out = weights.reshape(B, h_kv, h // h_kv, L_q, L_k) @ v[:, :, None]
        return out.reshape(B, h, L_q, d_k)
    """),
    alternative("grouped_query_attention", "einsum with an index per head", """
        h, h_kv = q.shape[1], k.shape[1]
        index = torch.arange(h) // (h // h_kv)
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k[:, index]) / math.sqrt(q.shape[-1])
        if allowed is not None:
            scores = torch.where(allowed, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
        weights = torch.softmax(scores, dim=-1)
        weights = torch.where(torch.isnan(weights), torch.zeros_like(weights), weights)
        return torch.einsum("bhqk,bhkd->bhqd", weights, v[:, index])
    """),
    alternative("grouped_query_attention", "a loop over the query heads", """
        h, h_kv = q.shape[1], k.shape[1]
        outputs = []
        for r in range(h):
            j = r // (h // h_kv)
            scores = q[:, r] @ k[:, j].transpose(-2, -1) / math.sqrt(q.shape[-1])
            if allowed is not None:
                mask = allowed.expand(q.shape[0], h, q.shape[2], k.shape[2])[:, r]
                scores = scores.masked_fill(~mask, float("-inf"))
            weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
            outputs.append(weights @ v[:, j])
        return torch.stack(outputs, dim=1)
    """),
    alternative("grouped_query_attention", "expand in the right order, finite fill, zeroed rows",
                """
        B, h_kv, L_k, d_k = k.shape
        group = q.shape[1] // h_kv
        k = k[:, :, None].expand(B, h_kv, group, L_k, d_k).reshape(B, -1, L_k, d_k)
        v = v[:, :, None].expand(B, h_kv, group, L_k, d_k).reshape(B, -1, L_k, d_k)
        scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
        if allowed is None:
            return torch.softmax(scores, dim=-1) @ v
        scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
        weights = torch.softmax(scores, dim=-1) * allowed
        return weights @ v
    """),
    # kv_cache_bytes
    alternative("kv_cache_bytes", "math.prod", """
        return math.prod([2, n_layers, n_kv_heads, d_k, length, bytes_per_value])
    """),
    alternative("kv_cache_bytes", "layer by layer", """
        per_layer = 2 * n_kv_heads * d_k * length * bytes_per_value
        return sum(per_layer for _ in range(n_layers))
    """),
    # Qwen3Block
    alternative("Qwen3Block", "unflatten, flatten and a shifted triangle", ("""
        self.mlp = SwiGLU(d_model, d_hidden)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)
    """, """
        x = self.norm1(h)
        q = self.q_norm(self.W_Q(x).unflatten(-1, (self.n_heads, self.d_k)).transpose(1, 2))
        k = self.k_norm(self.W_K(x).unflatten(-1, (self.n_kv_heads, self.d_k)).transpose(1, 2))
        v = self.W_V(x).unflatten(-1, (self.n_kv_heads, self.d_k)).transpose(1, 2)
        cos, sin = rope
        q, k = rotate_pairs(q, cos, sin), rotate_pairs(k, cos, sin)
        if past is not None:
            k, v = torch.cat((past[0], k), dim=-2), torch.cat((past[1], v), dim=-2)
        L, total = h.shape[1], k.shape[-2]
        allowed = torch.ones(L, total, dtype=torch.bool).tril(diagonal=total - L)
        y = grouped_query_attention(q, k, v, allowed).transpose(1, 2).flatten(-2)
        u = h + self.W_O(y)
        out = u + self.mlp(self.norm2(u))
        return out, (k, v)
    """)),
    alternative("Qwen3Block", "PyTorch's fused attention with an explicit bottom-right mask",
                block("y = grouped_query_attention(q, k, v, allowed)",
                      "y = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, "
                      "enable_gqa=True)")),
    alternative("Qwen3Block", "the empty cache as a zero-length pair",
                block("    if past is not None:\n        k = torch.cat([past[0], k], dim=2)\n"
                      "        v = torch.cat([past[1], v], dim=2)",
                      "    if past is None:\n        past = (k[:, :, :0], v[:, :, :0])\n"
                      "    k = torch.cat([past[0], k], dim=2)\n"
                      "    v = torch.cat([past[1], v], dim=2)")),
    # Qwen3Decoder
    alternative("Qwen3Decoder", "a list comprehension and the embedding tied the other way", (
        DECODER_INIT.replace(
            "nn.ModuleList(\n        Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, "
            "eps) for _ in range(n_layers))",
            "nn.ModuleList(\n        [Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, "
            "eps=eps) for _ in range(n_layers)])")
        .replace("self.head.weight = self.embed.weight", "self.embed.weight = self.head.weight"),
        """
        rope = (self.rope_cos.narrow(0, 0, idx.shape[1]), self.rope_sin.narrow(0, 0, idx.shape[1]))
        h = self.embed(idx)
        for i in range(len(self.blocks)):
            h = self.blocks[i](h, rope)[0]
        return self.head(self.norm(h))
    """)),
    alternative("Qwen3Decoder", "the head as the embedding's matrix in forward", (
        DECODER_INIT, DECODER_FORWARD.replace(
            "return self.head(self.norm(h))",
            "return self.norm(h) @ self.head.weight.T"))),
    # decode_step
    alternative("decode_step", "zip over blocks and caches, T from the values", """
        T = 0 if cache is None else cache[0][1].size(-2)
        positions = torch.arange(T, T + token_ids.shape[1])
        rope = (model.rope_cos[positions], model.rope_sin[positions])
        h = model.embed(token_ids)
        pasts = [None] * len(model.blocks) if cache is None else cache
        new_cache = []
        for block, past in zip(model.blocks, pasts):
            h, (k, v) = block(h, rope, past)
            new_cache.append((k, v))
        return model.head(model.norm(h)), new_cache
    """),
    alternative("decode_step", "its own length check with model.max_len, a while loop", """
        T = 0 if cache is None else int(cache[0][0].shape[-2])
        L = token_ids.size(1)
        if T + L > model.max_len:
            raise ValueError(f"token_ids: {T} + {L} tokens exceed max_len = {model.max_len}")
        rope = (model.rope_cos[T:T + L], model.rope_sin[T:T + L])
        h, new_cache, i = model.embed(token_ids), [], 0
        while i < len(model.blocks):
            block = model.blocks[i]
            h, (k, v) = block(h, rope, cache[i] if cache is not None else None)
            assert k.shape[1] == block.n_kv_heads and k.shape[-1] == block.d_k
            new_cache.append((k, v))
            i += 1
        return model.head(model.norm(h)), new_cache
    """),
    alternative("decode_step", "no_grad and a list comprehension over pairs", """
        with torch.no_grad():
            T = cache[0][0].shape[2] if cache else 0
            L = token_ids.shape[1]
            cos, sin = model.rope_cos[T:T + L], model.rope_sin[T:T + L]
            h = model.embed(token_ids)
            pairs = []
            for i, block in enumerate(model.blocks):
                h, pair = block(h, (cos, sin), cache[i] if cache else None)
                pairs.append(pair)
            return model.head(model.norm(h)), [tuple(p) for p in pairs]
    """),
]
