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
            hint="its own d_k"),
    mistake("answer_output_projection", "only for the shape", 'answer_output_projection = "A"',
            hint="mixes the blocks"),
    mistake("answer_broad_head", "thinks a zero query gives zero weights",
            'answer_broad_head = "A"', hint="softmax of equal scores"),
    mistake("answer_cost", "linear growth", 'answer_cost = "A"', hint="multiplies it by 9"),
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

# -- round 3: correct answers written the ways other students write them ------------------
_ROUND3_ALTERNATIVES = [
    # split_heads
    alternative("split_heads", "chunk the features, stack on a new head axis", """
        return torch.stack(x.chunk(n_heads, dim=-1), dim=1)
    """),
    alternative("split_heads", "split by d_k and swapaxes", """
        d_k = x.shape[-1] // n_heads
        return torch.stack(torch.split(x, d_k, dim=2), dim=0).swapaxes(0, 1)
    """),
    alternative("split_heads", "loop filling a new tensor of x's dtype and device", """
        B, L, d_model = x.shape
        d_k = d_model // n_heads
        out = torch.empty(B, n_heads, L, d_k, dtype=x.dtype, device=x.device)
        for r in range(n_heads):
            out[:, r] = x[:, :, r * d_k:(r + 1) * d_k]
        return out
    """),
    alternative("split_heads", "einsum on an unflattened view", """
        B, L, d_model = x.shape
        return torch.einsum("blhk->bhlk", x.reshape(B, L, n_heads, d_model // n_heads))
    """),
    alternative("split_heads", "through numpy and back (a non-contiguous tensor)", """
        B, L, d_model = x.shape
        arr = x.detach().cpu().numpy().reshape(B, L, n_heads, d_model // n_heads)
        return torch.as_tensor(arr.transpose(0, 2, 1, 3))
    """),
    alternative("split_heads", "numpy-style integer sizes from a tensor shape", """
        B, L, d_model = (int(s) for s in x.size())
        d_k = int(d_model / n_heads)
        return x.contiguous().view(B, L, n_heads, d_k).permute(0, 2, 1, 3).clone()
    """),
    # merge_heads
    alternative("merge_heads", "unbind the heads and concatenate", """
        return torch.cat(y.unbind(dim=1), dim=-1)
    """),
    alternative("merge_heads", "dstack of the per-head (B, L, d_k) blocks", """
        return torch.dstack([y[:, r] for r in range(y.size(1))])
    """),
    alternative("merge_heads", "movedim then flatten the last two axes", """
        return y.movedim(1, 2).flatten(-2)
    """),
    alternative("merge_heads", "loop writing into new_zeros", """
        B, h, L, d_k = y.shape
        out = y.new_zeros(B, L, h * d_k)
        for r in range(h):
            out[..., r * d_k:(r + 1) * d_k] = y[:, r]
        return out
    """),
    alternative("merge_heads", "through numpy and back", """
        B, h, L, d_k = y.shape
        arr = y.detach().cpu().numpy()
        return torch.from_numpy(arr.transpose(0, 2, 1, 3).reshape(B, L, h * d_k).copy())
    """),
    alternative("merge_heads", "unflatten-free: permute, reshape with -1", """
        return y.permute(0, 2, 1, 3).reshape(y.shape[0], y.shape[2], -1)
    """),
    # scaled_dot_product_attention
    alternative("scaled_dot_product_attention", "additive float32 bias built in the body", """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if allowed is not None:
            bias = torch.zeros(allowed.shape).masked_fill(~allowed, float("-inf"))  # float32
            scores = scores + bias
        weights = torch.softmax(scores, dim=-1)
        return torch.nan_to_num(weights, nan=0.0) @ v
    """),
    alternative("scaled_dot_product_attention", "finfo.min fill, empty rows zeroed by any()", """
        scores = torch.matmul(q, k.transpose(-1, -2)) * q.shape[-1] ** -0.5
        if allowed is None:
            return torch.softmax(scores, dim=-1) @ v
        scores = scores.masked_fill(allowed.logical_not(), torch.finfo(scores.dtype).min)
        weights = torch.softmax(scores, dim=-1) * allowed.any(dim=-1, keepdim=True)
        return weights @ v
    """),
    alternative("scaled_dot_product_attention", "keys scaled, 0-d float32 tensor for sqrt", """
        scale = torch.tensor(q.shape[-1]).sqrt()  # a 0-d float32 tensor
        scores = q @ (k / scale).mT
        if allowed is not None:
            scores = torch.where(allowed == 0, -torch.inf, scores)
        return torch.nan_to_num(scores.softmax(dim=-1)) @ v
    """),
    alternative("scaled_dot_product_attention", "a non-contiguous output (v^T A^T)^T", """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        weights = torch.softmax(scores, dim=-1).nan_to_num(nan=0.0)
        return (v.transpose(-2, -1) @ weights.transpose(-2, -1)).transpose(-2, -1)
    """),
    alternative("scaled_dot_product_attention", "float64 bias, result cast back to q's dtype", """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if allowed is not None:
            bias = torch.zeros(allowed.shape, dtype=torch.float64)
            bias[~allowed] = -math.inf
            scores = scores + bias  # float64 even when q is float32
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        return (weights @ v.to(weights.dtype)).to(q.dtype)
    """),
    alternative("scaled_dot_product_attention", "recursion over the leading axes", """
        if q.dim() > 2:
            lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2],
                                          () if allowed is None else allowed.shape[:-2])
            q, k, v = (t.expand(*lead, *t.shape[-2:]) for t in (q, k, v))
            if allowed is not None:
                allowed = allowed.expand(*lead, *allowed.shape[-2:])
            outs = []
            for i in range(lead[0]):
                outs.append(scaled_dot_product_attention(
                    q[i], k[i], v[i], None if allowed is None else allowed[i]))
            return torch.stack(outs)
        scores = q @ k.T / math.sqrt(q.shape[-1])
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        return torch.nan_to_num(torch.softmax(scores, dim=1), nan=0.0) @ v
    """),
    alternative("scaled_dot_product_attention", "a loop over the query rows", """
        L_q = q.shape[-2]
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        mask = None if allowed is None else allowed.expand(scores.shape)
        rows = []
        for i in range(L_q):
            s = scores[..., i, :]
            if mask is not None:
                s = s.masked_fill(~mask[..., i, :], float("-inf"))
            w = torch.softmax(s, dim=-1)
            w = torch.where(torch.isnan(w), torch.zeros_like(w), w)
            rows.append((w.unsqueeze(-2) @ v).squeeze(-2))
        return torch.stack(rows, dim=-2)
    """),
    alternative("scaled_dot_product_attention", "exp and normalise with a numpy sqrt", """
        import numpy as np
        scores = q @ k.transpose(-2, -1) / np.sqrt(q.shape[-1])
        if allowed is not None:
            scores = scores.masked_fill(~allowed.to(torch.bool), -np.inf)
        top = scores.max(dim=-1, keepdim=True).values
        top = top.masked_fill(torch.isinf(top), 0.0)
        e = (scores - top).exp()
        total = e.sum(dim=-1, keepdim=True)
        weights = torch.where(total > 0, e / torch.where(total > 0, total, 1.0), 0.0)
        return weights @ v
    """),
    alternative("scaled_dot_product_attention", "log_softmax, exp, mask on the device of q", """
        scores = torch.einsum("...id,...jd->...ij", q, k) / math.sqrt(q.shape[-1])
        if allowed is None:
            allowed = torch.ones(scores.shape[-2:], dtype=torch.bool, device=q.device)
        scores = scores.masked_fill(~allowed, -math.inf)
        weights = torch.log_softmax(scores, dim=-1).exp()
        weights = weights.masked_fill(~allowed.expand(weights.shape)
                                      | weights.isnan(), 0.0)
        return weights @ v
    """),
    # MultiHeadAttention
    alternative("MultiHeadAttention", "dropout with p=0 and a float scale attribute", ("""
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(p=0.0)
        self.scale = 1.0 / math.sqrt(self.d_k)
    """, """
        B, L, _ = x.shape
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
        scores = (q @ k.transpose(-2, -1)) * self.scale
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        weights = self.dropout(torch.nan_to_num(torch.softmax(scores, dim=-1)))
        return self.W_O(merge_heads(weights @ v))
    """)),
    alternative("MultiHeadAttention", "a float32 scale buffer and a cached bool buffer", ("""
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)
        self.register_buffer("scale", torch.tensor(self.d_k ** -0.5))
        self.register_buffer("no_mask", torch.ones(1, 1, dtype=torch.bool), persistent=False)
    """, """
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
        mask = self.no_mask if allowed is None else allowed
        scores = (q * self.scale) @ k.transpose(-2, -1)
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.nan_to_num(scores.softmax(dim=-1), nan=0.0)
        return self.W_O(merge_heads(weights @ v))
    """)),
    alternative("MultiHeadAttention", "layers kept in a ModuleList too, named aliases", ("""
        self.proj = nn.ModuleList(nn.Linear(d_model, d_model) for _ in range(4))
        self.W_Q, self.W_K, self.W_V, self.W_O = self.proj
    """, """
        q, k, v = (split_heads(layer(x), self.n_heads) for layer in self.proj[:3])
        return self.proj[3](merge_heads(scaled_dot_product_attention(q, k, v, allowed)))
    """)),
    alternative("MultiHeadAttention", "per-head loop accumulating into zeros_like(x)", (None, """
        B, L, d = x.shape
        q, k, v = self.W_Q(x), self.W_K(x), self.W_V(x)
        mask = allowed
        if mask is not None and mask.dim() == 4:
            mask = mask[:, 0]  # (B, L, L): the same mask for every head
        merged = torch.zeros_like(x)
        for r in range(self.n_heads):
            cols = slice(r * self.d_k, (r + 1) * self.d_k)
            merged[..., cols] = scaled_dot_product_attention(q[..., cols], k[..., cols],
                                                             v[..., cols], mask)
        return self.W_O(merged)
    """)),
    alternative("MultiHeadAttention", "mask unsqueezed to 4 axes, scores via baddbmm-free bmm",
                (None, """
        B, L, d = x.shape
        h, d_k = self.n_heads, self.d_k
        q, k, v = (split_heads(W(x), h).reshape(B * h, L, d_k)
                   for W in (self.W_Q, self.W_K, self.W_V))
        scores = torch.bmm(q, k.transpose(1, 2)).view(B, h, L, L) / math.sqrt(d_k)
        if allowed is not None:
            mask = allowed
            while mask.dim() < 4:
                mask = mask.unsqueeze(0)
            scores = scores.masked_fill(mask.logical_not(), float("-inf"))
        weights = torch.softmax(scores, dim=-1).nan_to_num(0.0).view(B * h, L, L)
        y = torch.bmm(weights, v).view(B, h, L, d_k)
        return self.W_O(merge_heads(y))
    """)),
    alternative("MultiHeadAttention", "keeps the last weights for plotting, 0-d float64 scale",
                (None, """
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
        scale = torch.tensor(float(self.d_k), dtype=torch.float64).rsqrt()
        scores = q @ k.transpose(-2, -1) * scale
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1))
        self.last_weights = weights.detach()
        return self.W_O(merge_heads(weights @ v))
    """)),
    alternative("MultiHeadAttention", "Xavier initialisation, zero biases, mask on x's device",
                ("""
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)
        for layer in (self.W_Q, self.W_K, self.W_V, self.W_O):
            nn.init.xavier_uniform_(layer.weight)
            nn.init.zeros_(layer.bias)
    """, """
        B, L, _ = x.shape
        if allowed is None:
            allowed = torch.ones(L, L, dtype=torch.bool, device=x.device)
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
        return self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed.to(x.device))))
    """)),
    alternative("MultiHeadAttention", "an nn.ModuleDict registered first, names as aliases",
                ("""
        self.layers = nn.ModuleDict({name: nn.Linear(d_model, d_model)
                                     for name in ("q", "k", "v", "o")})
        self.W_Q, self.W_K = self.layers["q"], self.layers["k"]
        self.W_V, self.W_O = self.layers["v"], self.layers["o"]
    """, """
        q, k, v = (split_heads(self.layers[n](x), self.n_heads) for n in "qkv")
        return self.layers["o"](merge_heads(scaled_dot_product_attention(q, k, v, allowed)))
    """)),
    alternative("MultiHeadAttention", "functional projections, weights created with setattr",
                ("""
        for name in ("W_O", "W_V", "W_K", "W_Q"):
            self.add_module(name, nn.Linear(d_model, d_model))
    """, """
        q = split_heads(F.linear(x, self.W_Q.weight, self.W_Q.bias), self.n_heads)
        k = split_heads(F.linear(x, self.W_K.weight, self.W_K.bias), self.n_heads)
        v = split_heads(F.linear(x, self.W_V.weight, self.W_V.bias), self.n_heads)
        y = scaled_dot_product_attention(q, k, v, allowed=allowed)
        return F.linear(merge_heads(y), self.W_O.weight, self.W_O.bias)
    """)),
]
ALTERNATIVES += _ROUND3_ALTERNATIVES

# -- round 4: default-dtype (float32) tensors built inside forward ---------------------------
# Right in the float32 world learners use; the float64 check falls back to float32 for them.
# The mistakes keep such a buffer and must still fail (the fallback must not hide them).
_ROUND4_ALTERNATIVES = [
    alternative("MultiHeadAttention", "preallocated torch.zeros output filled head by head",
                (None, """
        B, L, _ = x.shape
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
        y = scaled_dot_product_attention(q, k, v, allowed)  # (B, h, L, d_k)
        out = torch.zeros(B, L, self.d_model)
        for r in range(self.n_heads):
            out[:, :, r * self.d_k:(r + 1) * self.d_k] = y[:, r]
        return self.W_O(out)
    """)),
    alternative("MultiHeadAttention", "attention weights preallocated with torch.zeros",
                (None, """
        B, L, _ = x.shape
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
        weights = torch.zeros(B, self.n_heads, L, L)
        for r in range(self.n_heads):
            scores = q[:, r] @ k[:, r].transpose(-2, -1) / math.sqrt(self.d_k)
            if allowed is not None:
                mask = allowed.expand(B, self.n_heads, L, L)[:, r]
                scores = scores.masked_fill(~mask, float("-inf"))
            weights[:, r] = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        return self.W_O(merge_heads(weights @ v))
    """)),
    alternative("MultiHeadAttention", "float32 additive mask from torch.zeros, baddbmm scores",
                (None, """
        B, L, _ = x.shape
        h, d_k = self.n_heads, self.d_k
        q, k, v = (split_heads(W(x), h).reshape(B * h, L, d_k)
                   for W in (self.W_Q, self.W_K, self.W_V))
        bias = torch.zeros(B, h, L, L)
        if allowed is not None:
            bias = bias.masked_fill(~allowed, float("-inf"))
        scores = torch.baddbmm(bias.reshape(B * h, L, L), q, k.transpose(1, 2),
                               alpha=1 / math.sqrt(d_k))
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        return self.W_O(merge_heads((weights @ v).reshape(B, h, L, d_k)))
    """)),
    alternative("MultiHeadAttention", "float tril-style mask of ones, log-mask bias, torch.empty",
                (None, """
        B, L, _ = x.shape
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
        keep = torch.ones(L, L) if allowed is None else allowed.float()
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k) + torch.log(keep)
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        merged = torch.empty(B, L, self.d_model)
        merged.copy_(merge_heads(weights @ v))
        return self.W_O(merged)
    """)),
    alternative("MultiHeadAttention", "float32 buffer cast back with .to(x.dtype)", (None, """
        B, L, _ = x.shape
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
        y = scaled_dot_product_attention(q, k, v, allowed)
        out = torch.zeros(B, L, self.d_model)
        out += merge_heads(y)
        return self.W_O(out.to(x.dtype))
    """)),
    alternative("MultiHeadAttention", "output built in a python list, torch.tensor(0.) start",
                (None, """
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
        y = scaled_dot_product_attention(q, k, v, allowed)
        heads = [torch.zeros(y.shape[0], y.shape[2], self.d_k) + y[:, r]
                 for r in range(self.n_heads)]
        return self.W_O(torch.cat(heads, dim=-1).float())
    """)),
]
ALTERNATIVES += _ROUND4_ALTERNATIVES

MISTAKES += [
    mistake("MultiHeadAttention", "forgot W_O, preallocated torch.zeros output", (None, """
        B, L, _ = x.shape
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
        y = scaled_dot_product_attention(q, k, v, allowed)
        out = torch.zeros(B, L, self.d_model)
        for r in range(self.n_heads):
            out[:, :, r * self.d_k:(r + 1) * self.d_k] = y[:, r]
        return out
    """), hint="output projection"),
    mistake("MultiHeadAttention", "sqrt(d_model) scale, attention weights in torch.zeros",
            (None, """
        B, L, _ = x.shape
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
        weights = torch.zeros(B, self.n_heads, L, L)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_model)
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        weights[:] = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        return self.W_O(merge_heads(weights @ v))
    """), hint="not sqrt(d_model)"),
    mistake("MultiHeadAttention", "heads merged without the transpose into a torch.zeros buffer",
            (None, """
        B, L, _ = x.shape
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
        out = torch.zeros(B, L, self.d_model)
        out[:] = scaled_dot_product_attention(q, k, v, allowed).reshape(B, L, self.d_model)
        return self.W_O(out)
    """), hint="merge in the reverse order"),
]

# round 3: batch-only, hard-coded sizes, transposes invisible for square inputs
MISTAKES += [
    mistake("split_heads", "two heads hard-coded (the worked example's h)", """
        B, L, d_model = x.shape
        return x.view(B, L, 2, d_model // 2).transpose(1, 2)
    """, hint='come from the arguments'),
    mistake("split_heads", "d_k from the sequence length (x.shape[1])", """
        B, L, d_model = x.shape
        d_k = x.shape[1] // n_heads
        return x.reshape(B, L, n_heads, -1)[..., :d_k].transpose(1, 2)
    """, hint='come from the arguments'),
    mistake("split_heads", "only the first batch element (x[0]), batch axis re-added", """
        B, L, d_model = x.shape
        return x[0].view(L, n_heads, d_model // n_heads).transpose(0, 1).unsqueeze(0)
    """, hint='the batch axis B stays first'),
    mistake("split_heads", "transpose(0, 2) swaps the batch axis in", """
        B, L, d_model = x.shape
        return x.view(B, L, n_heads, d_model // n_heads).transpose(0, 2)
    """, hint='the batch axis B stays first'),
    mistake("merge_heads", "batch size hard-coded to 1", """
        B, h, L, d_k = y.shape
        return y.transpose(1, 2).reshape(1, L, h * d_k)
    """, hint='take every size from the input itself'),
    mistake("merge_heads", "concatenated along the positions (dim=1 after unbind)", """
        return torch.cat(y.unbind(1), dim=1)
    """, hint='take the sizes from y.shape in that order'),
    mistake("merge_heads", "shape unpacked in the wrong order (B, L, h, d_k)", """
        B, L, h, d_k = y.shape
        return y.transpose(1, 2).reshape(B, L, h * d_k)
    """, hint='take the sizes from y.shape in that order'),
    mistake("merge_heads", "iterated over the batch instead of the heads", """
        return torch.cat(list(y), dim=-1).transpose(0, 1)
    """, hint='take the sizes from y.shape in that order'),
    mistake("scaled_dot_product_attention", "softmax over a hard-coded dim=3 (4-D inputs only)", """
        d_k = q.shape[-1]
        scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        weights = torch.nan_to_num(torch.softmax(scores, dim=3), nan=0.0)
        return weights @ v
    """, hint='count axes from the end'),
    mistake("scaled_dot_product_attention", "keys transposed with transpose(1, 2) (3-D only)",
            """
        d_k = q.shape[-1]
        scores = q @ k.transpose(1, 2) / math.sqrt(d_k)
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        return weights @ v
    """, hint='count axes from the end'),
    mistake("scaled_dot_product_attention", "d_k read from q.shape[1] (right for 2-D q only)", """
        d_k = q.shape[1]
        scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        return weights @ v
    """, hint='d_k is q.shape[-1], the last axis'),
    mistake("scaled_dot_product_attention", "d_k ** 1/2 (precedence: d_k / 2)", """
        d_k = q.shape[-1]
        scores = q @ k.transpose(-2, -1) / (d_k ** 1/2)
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        return weights @ v
    """, hint='** binds tighter than /'),
    mistake("scaled_dot_product_attention", "scaled by sqrt(L_q), the number of queries", """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-2])
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        return weights @ v
    """, hint='square root of a sequence length'),
    mistake("scaled_dot_product_attention", "mask transposed (allowed.transpose(-2, -1))", """
        d_k = q.shape[-1]
        scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
        if allowed is not None:
            scores = scores.masked_fill(~allowed.transpose(-2, -1), float("-inf"))
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        return weights @ v
    """, hint='do not transpose it'),
    mistake("scaled_dot_product_attention", "values multiplied on the left (v^T-free, A^T @ v)", """
        d_k = q.shape[-1]
        scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        return weights.transpose(-2, -1) @ v
    """, hint="each query's row of weights mixes the values"),
    mistake("scaled_dot_product_attention", "scores q^T k (keys on the left)", """
        d_k = q.shape[-1]
        scores = k @ q.transpose(-2, -1) / math.sqrt(d_k)
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        return weights @ v
    """, hint='row i is query i, column j is key j'),
    mistake("MultiHeadAttention", "F.dropout on the weights (training=True by default)", (None, """
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k)
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        weights = F.dropout(weights, 0.1)
        return self.W_O(merge_heads(weights @ v))
    """), hint='F.dropout(t, p) defaults to training=True'),
    mistake("MultiHeadAttention", "x @ W.weight (the nn.Linear weight not transposed)", (None, """
        q = split_heads(x @ self.W_Q.weight + self.W_Q.bias, self.n_heads)
        k = split_heads(x @ self.W_K.weight + self.W_K.bias, self.n_heads)
        v = split_heads(x @ self.W_V.weight + self.W_V.bias, self.n_heads)
        y = scaled_dot_product_attention(q, k, v, allowed)
        return merge_heads(y) @ self.W_O.weight + self.W_O.bias
    """), hint='nn.Linear stores its weight as (out, in)'),
    mistake("MultiHeadAttention", "two heads hard-coded in forward", (None, """
        q = split_heads(self.W_Q(x), 2)
        k = split_heads(self.W_K(x), 2)
        v = split_heads(self.W_V(x), 2)
        return self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed)))
    """), hint="not the worked example's 2"),
    mistake("MultiHeadAttention", "queries pre-scaled, then scaled again by the attention",
            (None, """
        q = split_heads(self.W_Q(x), self.n_heads) / math.sqrt(self.d_k)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        return self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed)))
    """), hint='scale once'),
    mistake("MultiHeadAttention", "a causal mask used when no mask is given", (None, """
        L = x.shape[1]
        if allowed is None:
            allowed = torch.ones(L, L, dtype=torch.bool, device=x.device).tril()
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        return self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed)))
    """), hint='allowed=None means every key is allowed'),
    mistake("MultiHeadAttention", "returns (output, weights)", (None, """
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k)
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        return self.W_O(merge_heads(weights @ v)), weights
    """), hint='return only the output'),
    mistake("MultiHeadAttention", "mask unsqueezed for the heads even when it has them", (None, """
        if allowed is not None:
            allowed = allowed.unsqueeze(1)
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        return self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed)))
    """), hint='pass allowed on unchanged'),
    mistake("MultiHeadAttention", "values not projected (raw x split into heads)", (None, """
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(x, self.n_heads)
        return self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed)))
    """), hint='the values come from their own layer'),
    mistake("MultiHeadAttention", "sequence-first: x.transpose(0, 1) before the heads", (None, """
        x = x.transpose(0, 1)
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        y = merge_heads(scaled_dot_product_attention(q, k, v, allowed))
        return self.W_O(y).transpose(0, 1)
    """), hint='x is batch-first'),
    mistake("MultiHeadAttention", "output projection W_O applied twice", (None, """
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        return self.W_O(self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed))))
    """), hint='apply W_O once'),
]

# Structural slips: the body written, but no `return`, or the stub's raise left in place.
MISTAKES += [
    mistake("merge_heads", "no return: the merged tensor computed and dropped", """
        B, h, L, d_k = y.shape
        merged = y.transpose(1, 2).reshape(B, L, h * d_k)
    """, hint="returned None"),
    mistake("MultiHeadAttention", "forward without return", (None, """
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed)))
    """), hint="returned None"),
]
