"""Notebook 05 catalogue: the mistakes students make, and correct answers written otherwise."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from grader.catalogue import alternative, mistake  # noqa: E402

_RIGHT_INIT = """
    self.W_Q = nn.Linear(d_model, d_model)
    self.W_K = nn.Linear(d_model, d_model)
    self.W_V = nn.Linear(d_model, d_model)
    self.W_O = nn.Linear(d_model, d_model)
"""

MISTAKES = [
    # split_heads
    mistake("split_heads", "reshape without the transpose", """
        B, L, d_model = x.shape
        return x.reshape(B, n_heads, L, d_model // n_heads)
    """, hint="mixes positions and heads"),
    mistake("split_heads", "heads interleaved (d_k before h)", """
        B, L, d_model = x.shape
        return x.view(B, L, d_model // n_heads, n_heads).permute(0, 3, 1, 2)
    """, hint="contiguous features"),
    mistake("split_heads", "forgot the transpose: (B, L, h, d_k)", """
        B, L, d_model = x.shape
        return x.view(B, L, n_heads, d_model // n_heads)
    """, hint="(B, L, d_model) -> (B, h, L, d_k)"),
    # merge_heads
    mistake("merge_heads", "merge by reshaping without the transpose", """
        B, h, L, d_k = y.shape
        return y.reshape(B, L, h * d_k)
    """, hint="merge in the reverse order"),
    mistake("merge_heads", "merge with d_k before h", """
        B, h, L, d_k = y.shape
        return y.permute(0, 2, 3, 1).reshape(B, L, h * d_k)
    """, hint="merge in the reverse order"),
    mistake("merge_heads", "view on a non-contiguous tensor", """
        B, h, L, d_k = y.shape
        return y.transpose(1, 2).view(B, L, h * d_k)
    """, hint="raised RuntimeError"),
    # scaled_dot_product_attention
    mistake("scaled_dot_product_attention", "mask applied after the softmax", """
        weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
        if allowed is not None:
            weights = weights * allowed
        return weights @ v
    """, hint="BEFORE the softmax"),
    mistake("scaled_dot_product_attention", "no scaling", """
        scores = q @ k.transpose(-2, -1)
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        return torch.nan_to_num(torch.softmax(scores, dim=-1)) @ v
    """, hint="sqrt(d_k)"),
    mistake("scaled_dot_product_attention", "mask inverted", """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if allowed is not None:
            scores = scores.masked_fill(allowed, float("-inf"))
        return torch.nan_to_num(torch.softmax(scores, dim=-1)) @ v
    """, hint="True means 'may attend'"),
    mistake("scaled_dot_product_attention", "NaN for a row with no allowed key", """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        return torch.softmax(scores, dim=-1) @ v
    """, hint="torch.nan_to_num"),
    mistake("scaled_dot_product_attention", "-1e9 leaves a fully masked row uniform", """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if allowed is not None:
            scores = scores.masked_fill(~allowed, -1e9)
        return torch.softmax(scores, dim=-1) @ v
    """, hint="came out uniform"),
    mistake("scaled_dot_product_attention", "softmax over the query axis", """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        return torch.nan_to_num(torch.softmax(scores, dim=-2)) @ v
    """, hint="dim=-1"),
    mistake("scaled_dot_product_attention", "calls PyTorch's fused attention", """
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
        return torch.nan_to_num(out)
    """, hint="write the scores"),
    # MultiHeadAttention
    mistake("MultiHeadAttention", "forgot W_O", (None, """
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        return merge_heads(scaled_dot_product_attention(q, k, v, allowed))
    """), hint="output projection"),
    mistake("MultiHeadAttention", "scaled by d_model instead of d_k", (None, """
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_model)
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        y = torch.nan_to_num(torch.softmax(scores, dim=-1)) @ v
        return self.W_O(merge_heads(y))
    """), hint="not sqrt(d_model)"),
    mistake("MultiHeadAttention", "split by reshaping without the transpose", (None, """
        B, L, _ = x.shape
        q, k, v = (W(x).reshape(B, self.n_heads, L, self.d_k)
                   for W in (self.W_Q, self.W_K, self.W_V))
        return self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed)))
    """), hint="mixes positions and heads"),
    mistake("MultiHeadAttention", "merged without the transpose", (None, """
        B, L, _ = x.shape
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
        y = scaled_dot_product_attention(q, k, v, allowed)
        return self.W_O(y.reshape(B, L, self.d_model))
    """), hint="merge in the reverse order"),
    mistake("MultiHeadAttention", "mask not passed on", (None, """
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
        return self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, None)))
    """), hint="pass allowed on"),
    mistake("MultiHeadAttention", "linear layers without bias", ("""
        self.W_Q = nn.Linear(d_model, d_model, bias=False)
        self.W_K = nn.Linear(d_model, d_model, bias=False)
        self.W_V = nn.Linear(d_model, d_model, bias=False)
        self.W_O = nn.Linear(d_model, d_model, bias=False)
    """, None), hint="bias=True"),
    mistake("MultiHeadAttention", "projection widths d_k instead of d_model", ("""
        self.W_Q = nn.Linear(d_model, self.d_k)
        self.W_K = nn.Linear(d_model, self.d_k)
        self.W_V = nn.Linear(d_model, self.d_k)
        self.W_O = nn.Linear(self.d_k, d_model)
    """, None), hint="nn.Linear(d_model, d_model)"),
    mistake("MultiHeadAttention", "layers under other names", ("""
        self.query = nn.Linear(d_model, d_model)
        self.key = nn.Linear(d_model, d_model)
        self.value = nn.Linear(d_model, d_model)
        self.out = nn.Linear(d_model, d_model)
    """, """
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.query, self.key, self.value))
        return self.out(merge_heads(scaled_dot_product_attention(q, k, v, allowed)))
    """), hint="create self.W_Q"),
    mistake("MultiHeadAttention", "one head over the whole width", (None, """
        q, k, v = (split_heads(W(x), 1) for W in (self.W_Q, self.W_K, self.W_V))
        return self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed)))
    """), hint="split the projections into n_heads"),
    # concept checks
    mistake("answer_head_shape", "heads after the positions", 'answer_head_shape = "A"',
            hint="(B, h, L, d_k)"),
    mistake("answer_scale_per_head", "model width", 'answer_scale_per_head = "B"',
            hint="own d_k features"),
    mistake("answer_output_projection", "only for the shape", 'answer_output_projection = "A"',
            hint="mixes the blocks"),
    mistake("answer_head_evidence", "attention as proof", 'answer_head_evidence = "A"',
            hint="needs more evidence"),
    mistake("answer_cost", "linear growth", 'answer_cost = "A"', hint="multiplies it by 4"),
]

ALTERNATIVES = [
    alternative("split_heads", "reshape, then permute", """
        B, L, d_model = x.shape
        return x.reshape(B, L, n_heads, -1).permute(0, 2, 1, 3)
    """),
    alternative("split_heads", "stack of feature slices, contiguous", """
        d_k = x.shape[-1] // n_heads
        return torch.stack([x[..., r * d_k:(r + 1) * d_k] for r in range(n_heads)], dim=1)
    """),
    alternative("merge_heads", "concatenate the heads", """
        return torch.cat([y[:, r] for r in range(y.shape[1])], dim=-1)
    """),
    alternative("merge_heads", "permute, contiguous, view", """
        B, h, L, d_k = y.shape
        return y.permute(0, 2, 1, 3).contiguous().view(B, L, -1)
    """),
    alternative("scaled_dot_product_attention", "einsum, scale the queries, where", """
        q = q / q.shape[-1] ** 0.5
        scores = torch.einsum("...qd,...kd->...qk", q, k)
        if allowed is not None:
            scores = torch.where(allowed, scores, torch.full_like(scores, -torch.inf))
        weights = torch.softmax(scores, dim=-1)
        weights = torch.where(torch.isnan(weights), torch.zeros_like(weights), weights)
        return torch.einsum("...qk,...kv->...qv", weights, v)
    """),
    alternative("scaled_dot_product_attention", "own stable softmax", """
        scores = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(k.shape[-1]))
        if allowed is not None:
            scores = scores.masked_fill(allowed.logical_not(), -math.inf)
        row_max = scores.amax(dim=-1, keepdim=True)
        row_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max))
        e = torch.exp(scores - row_max)
        total = e.sum(dim=-1, keepdim=True)
        weights = e / total.clamp_min(torch.finfo(e.dtype).tiny)
        return weights @ v
    """),
    alternative("MultiHeadAttention", "a loop over heads with slices of the weights", (None, """
        q, k, v = self.W_Q(x), self.W_K(x), self.W_V(x)
        outputs = []
        for r in range(self.n_heads):
            part = slice(r * self.d_k, (r + 1) * self.d_k)
            outputs.append(scaled_dot_product_attention(q[..., part], k[..., part],
                                                        v[..., part],
                                                        None if allowed is None
                                                        else allowed[:, 0]
                                                        if allowed.dim() == 4 else allowed))
        return self.W_O(torch.cat(outputs, dim=-1))
    """)),
    alternative("MultiHeadAttention", "layers in a loop with setattr", ("""
        for name in ("W_Q", "W_K", "W_V", "W_O"):
            setattr(self, name, nn.Linear(d_model, d_model, bias=True))
    """, """
        heads = [split_heads(layer(x), self.n_heads) for layer in (self.W_Q, self.W_K, self.W_V)]
        return self.W_O(merge_heads(scaled_dot_product_attention(*heads, allowed)))
    """)),
    alternative("answer_head_shape", "lower case", 'answer_head_shape = "b"'),
]
