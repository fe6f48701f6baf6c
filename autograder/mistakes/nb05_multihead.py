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
    # -- added in the adversarial review --------------------------------------------------
    mistake("split_heads", "d_k by true division (a float size)", """
        B, L, d_model = x.shape
        return x.view(B, L, n_heads, d_model / n_heads).transpose(1, 2)
    """, hint="integer division"),
    mistake("split_heads", "heads stacked on the first axis (h, B, L, d_k)", """
        return torch.stack(torch.chunk(x, n_heads, dim=-1), dim=0)
    """, hint="(B, L, d_model) -> (B, h, L, d_k)"),
    mistake("split_heads", "transposed the wrong axes: (B, L, d_k, h) -> ...", """
        B, L, d_model = x.shape
        return x.view(B, L, d_model // n_heads, n_heads).transpose(1, 3).transpose(2, 3)
    """, hint="contiguous features"),
    mistake("merge_heads", "transposed L and d_k before the reshape", """
        B, h, L, d_k = y.shape
        return y.transpose(2, 3).reshape(B, L, h * d_k)
    """, hint="merge in the reverse order"),
    mistake("merge_heads", "heads summed instead of concatenated", """
        return y.sum(dim=1)
    """, hint="concatenate"),
    mistake("merge_heads", "heads averaged instead of concatenated", """
        return y.mean(dim=1)
    """, hint="concatenate"),
    mistake("scaled_dot_product_attention", "scaled by sqrt(L_k), the number of keys", """
        scores = q @ k.transpose(-2, -1) / math.sqrt(k.shape[-2])
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        return torch.nan_to_num(torch.softmax(scores, dim=-1)) @ v
    """, hint="sqrt(d_k)"),
    mistake("scaled_dot_product_attention", "scaled by sqrt(d_v), the value width", """
        scores = q @ k.transpose(-2, -1) / math.sqrt(v.shape[-1])
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        return torch.nan_to_num(torch.softmax(scores, dim=-1)) @ v
    """, hint="sqrt(d_k)"),
    mistake("scaled_dot_product_attention", "scaled after the softmax", """
        scores = q @ k.transpose(-2, -1)
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1)) / math.sqrt(q.shape[-1])
        return weights @ v
    """, hint="before the softmax"),
    mistake("scaled_dot_product_attention", "mask multiplied into the scores", """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if allowed is not None:
            scores = scores * allowed
        return torch.softmax(scores, dim=-1) @ v
    """, hint="-inf"),
    mistake("scaled_dot_product_attention", "softmax without dim= (PyTorch's implicit axis)", """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            weights = F.softmax(scores)
        return torch.nan_to_num(weights) @ v
    """, hint="dim=-1"),
    mistake("scaled_dot_product_attention", "nan_to_num on the scores (-inf becomes finite)", """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        return torch.softmax(torch.nan_to_num(scores), dim=-1) @ v
    """, hint="came out uniform"),
    mistake("scaled_dot_product_attention", "softmax without subtracting the row maximum", """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        e = torch.exp(scores)
        return torch.nan_to_num(e / e.sum(dim=-1, keepdim=True)) @ v
    """, hint="subtract each row's maximum"),
    mistake("scaled_dot_product_attention", "returns (Y, A) as in notebook 04", """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1))
        return weights @ v, weights
    """, hint="only the output"),
    mistake("scaled_dot_product_attention", "boolean indexing that cannot broadcast the mask", """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if allowed is not None:
            scores[~allowed] = float("-inf")
        return torch.nan_to_num(torch.softmax(scores, dim=-1)) @ v
    """, hint="masked_fill"),
    mistake("scaled_dot_product_attention", "allowed=None not handled", """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        scores = scores.masked_fill(~allowed, float("-inf"))
        return torch.nan_to_num(torch.softmax(scores, dim=-1)) @ v
    """, hint="allowed=None"),
    mistake("scaled_dot_product_attention", "queries scaled in place (changes the caller's q)", """
        q /= math.sqrt(q.shape[-1])
        scores = q @ k.transpose(-2, -1)
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        return torch.nan_to_num(torch.softmax(scores, dim=-1)) @ v
    """, hint="in place"),
    mistake("scaled_dot_product_attention", "k.T (reverses every axis of a batch)", """
        scores = q @ k.T / math.sqrt(q.shape[-1])
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        return torch.nan_to_num(torch.softmax(scores, dim=-1)) @ v
    """, hint="k.transpose(-2, -1)"),
    mistake("MultiHeadAttention", "keys projected with W_Q (copy-paste)", (None, """
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_Q(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        return self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed)))
    """), hint="W_K"),
    mistake("MultiHeadAttention", "values projected with W_K (copy-paste)", (None, """
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_K(x), self.n_heads)
        return self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed)))
    """), hint="W_V"),
    mistake("MultiHeadAttention", "a causal mask always applied", (None, """
        L = x.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=x.device).tril()
        mask = causal if allowed is None else causal & allowed
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
        return self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, mask)))
    """), hint="only the mask it is given"),
    mistake("MultiHeadAttention", "residual added inside the attention layer", (None, """
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
        return x + self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed)))
    """), hint="the block adds the residual"),
    mistake("MultiHeadAttention", "split into d_k heads of width n_heads", (None, """
        q, k, v = (split_heads(W(x), self.d_k) for W in (self.W_Q, self.W_K, self.W_V))
        return self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed)))
    """), hint="split_heads(..., self.n_heads)"),
    mistake("MultiHeadAttention", "one Linear shared by W_Q, W_K and W_V", ("""
        self.W_Q = self.W_K = self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)
    """, None), hint="exactly four nn.Linear"),
    mistake("MultiHeadAttention", "W_O applied to the values before attending", (None, """
        q, k = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K))
        v = split_heads(self.W_O(self.W_V(x)), self.n_heads)
        return merge_heads(scaled_dot_product_attention(q, k, v, allowed))
    """), hint="output projection"),
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
    # -- added in the adversarial review --------------------------------------------------
    alternative("split_heads", "unflatten the features, then movedim", """
        return x.unflatten(-1, (n_heads, -1)).movedim(2, 1)
    """),
    alternative("split_heads", "features first, reshape, swap back", """
        B, L, d_model = x.shape
        return x.transpose(1, 2).reshape(B, n_heads, d_model // n_heads, L).transpose(2, 3)
    """),
    alternative("split_heads", "einops-style rearrange by hand with contiguous", """
        B, L, d_model = x.shape
        return x.reshape(B, L, n_heads, d_model // n_heads).permute(0, 2, 1, 3).contiguous()
    """),
    alternative("merge_heads", "transpose then flatten", """
        return y.transpose(1, 2).flatten(start_dim=2)
    """),
    alternative("merge_heads", "einsum into a new tensor, loop-free", """
        B, h, L, d_k = y.shape
        return torch.einsum("bhld->blhd", y).reshape(B, L, h * d_k)
    """),
    alternative("scaled_dot_product_attention", "mT, additive log-mask, masked weights", """
        scores = (q @ k.mT) / math.sqrt(q.size(-1))
        if allowed is not None:
            scores = scores + torch.log(allowed.to(scores.dtype))
        weights = torch.softmax(scores, dim=-1)
        if allowed is not None:
            weights = weights.masked_fill(~allowed, 0.0)
        return weights.to(v.dtype) @ v
    """),
    alternative("scaled_dot_product_attention", "in-place fill on a fresh score tensor", """
        scale = 1.0 / math.sqrt(q.shape[-1])
        scores = torch.matmul(q * scale, k.transpose(-1, -2))
        if allowed is not None:
            scores.masked_fill_(allowed == False, float("-inf"))  # noqa: E712
        weights = scores.softmax(-1)
        return torch.matmul(torch.where(weights.isnan(), 0.0, weights), v)
    """),
    alternative("scaled_dot_product_attention", "explicit expand and boolean indexing", """
        scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
        if allowed is not None:
            scores = scores.clone()
            scores[~allowed.expand_as(scores)] = -math.inf
        weights = F.softmax(scores, dim=-1).nan_to_num(0.0)
        return weights @ v
    """),
    alternative("MultiHeadAttention", "one fused projection of the stacked weights", (None, """
        B, L, d = x.shape
        W = torch.cat([self.W_Q.weight, self.W_K.weight, self.W_V.weight])
        b = torch.cat([self.W_Q.bias, self.W_K.bias, self.W_V.bias])
        q, k, v = F.linear(x, W, b).chunk(3, dim=-1)
        heads = [t.view(B, L, self.n_heads, self.d_k).transpose(1, 2) for t in (q, k, v)]
        y = scaled_dot_product_attention(*heads, allowed)
        return self.W_O(y.transpose(1, 2).reshape(B, L, d))
    """)),
    alternative("MultiHeadAttention", "einsum with per-head weight views", (None, """
        h, d_k = self.n_heads, self.d_k
        def project(layer):
            W = layer.weight.view(h, d_k, -1)
            return torch.einsum("bld,hkd->bhlk", x, W) + layer.bias.view(h, 1, d_k)
        y = scaled_dot_product_attention(project(self.W_Q), project(self.W_K),
                                         project(self.W_V), allowed)
        return self.W_O(merge_heads(y))
    """)),
    alternative("answer_head_shape", "lower case", 'answer_head_shape = "b"'),
]
