"""Notebook 05's mistake catalogue, one section per graded function (see grader/catalogue.py)."""

from grader.catalogue import alternative, catalogue, delete, edit, explained, mistake, replace_line

from attnbook.checks import HINT_KEEP_GRAPH, HINT_NO_RETURN, nb05

WHY = explained("05_multihead")  # detects=WHY: the question's explanation

SPLIT, MERGE, SDPA, MHA = ("split_heads", "merge_heads", "scaled_dot_product_attention",
                           "MultiHeadAttention")

# hints that several entries give
HINT_SPLIT = ("reshaping (B, L, d_model) straight to (B, h, L, d_k) mixes positions and heads: "
              "view it as (B, L, h, d_k) first, then swap the L and h axes with .transpose(1, 2)")
HINT_MERGE = ("merge in the reverse order of the split: y.transpose(1, 2) gives (B, L, h, d_k), "
              "then .reshape(B, L, h * d_k) puts head 0's features first")
HINT_VALUES_FROM_W_K = "the values come from their own layer: v = split_heads(self.W_V(x), ...)"


MISTAKES, ALTERNATIVES = catalogue([
    # -- split_heads -------------------------------------------------------------------------------
    mistake(SPLIT, "reshape without the transpose", """
        B, L, d_model = x.shape
        return x.reshape(B, n_heads, L, d_model // n_heads)""", hint=HINT_SPLIT),
    mistake(SPLIT, "heads interleaved (d_k before h)",
            edit("n_heads, d_model // n_heads", "d_model // n_heads, n_heads).permute(0, 3, 1, 2"),
            hint="head r owns the contiguous features r*d_k .. (r+1)*d_k - 1: view as (B, L, h, "
                 "d_k), not (B, L, d_k, h)", like="forgot the transpose: (B, L, h, d_k)"),
    mistake(SPLIT, "forgot the transpose: (B, L, h, d_k)", """
        B, L, d_model = x.shape
        return x.view(B, L, n_heads, d_model // n_heads)""", detects=nb05.HINT_SPLIT_SHAPE),
    mistake(SPLIT, "d_k by true division (a float size)",
            edit("// n_heads", "/ n_heads).transpose(1, 2"),
            detects=nb05.HINT_INT_SIZES, like="forgot the transpose: (B, L, h, d_k)"),
    mistake(SPLIT, "two heads hard-coded (the worked example's h)", """
        B, L, d_model = x.shape
        return x.view(B, L, 2, d_model // 2).transpose(1, 2)""", detects=nb05.HINT_SPLIT_SHAPE),
    mistake(SPLIT, "numpy's reshape and transpose: an array, not a tensor",
            edit("return x.view(B, L, n_heads, d_k).transpose(1, 2)",
                 "return x.numpy().reshape(B, L, n_heads, d_k).transpose(0, 2, 1, 3)"),
            detects=nb05.HINT_STAY_IN_TORCH),
    alternative(SPLIT, "reshape, then permute", """
        B, L, d_model = x.shape
        return x.reshape(B, L, n_heads, -1).permute(0, 2, 1, 3)"""),
    alternative(SPLIT, "stack of feature slices, contiguous", """
        d_k = x.shape[-1] // n_heads
        return torch.stack([x[..., r * d_k:(r + 1) * d_k] for r in range(n_heads)], dim=1)"""),
    alternative(SPLIT, "features first, reshape, swap back", """
        B, L, d_model = x.shape
        return x.transpose(1, 2).reshape(B, n_heads, d_model // n_heads, L).transpose(2, 3)"""),
    alternative(SPLIT, "split by d_k and swapaxes", """
        d_k = x.shape[-1] // n_heads
        return torch.stack(torch.split(x, d_k, dim=2), dim=0).swapaxes(0, 1)"""),
    alternative(SPLIT, "loop filling a new tensor of x's dtype and device", """
        B, L, d_model = x.shape
        d_k = d_model // n_heads
        out = torch.empty(B, n_heads, L, d_k, dtype=x.dtype, device=x.device)
        for r in range(n_heads):
            out[:, r] = x[:, :, r * d_k:(r + 1) * d_k]
        return out"""),
    alternative(SPLIT, "through numpy and back (a non-contiguous tensor)", """
        B, L, d_model = x.shape
        arr = x.detach().cpu().numpy().reshape(B, L, n_heads, d_model // n_heads)
        return torch.as_tensor(arr.transpose(0, 2, 1, 3))"""),
    alternative(SPLIT, "numpy-style integer sizes from a tensor shape", """
        B, L, d_model = (int(s) for s in x.size())
        d_k = int(d_model / n_heads)
        return x.contiguous().view(B, L, n_heads, d_k).permute(0, 2, 1, 3).clone()"""),
    # -- merge_heads -------------------------------------------------------------------------------
    mistake(MERGE, "merge by reshaping without the transpose", edit("transpose(1, 2).", ""),
            hint=HINT_MERGE),
    mistake(MERGE, "merge with d_k before h", edit("y.transpose(1, 2", "y.permute(0, 2, 3, 1"),
            hint=HINT_MERGE),
    mistake(MERGE, "view on a non-contiguous tensor", edit(".reshape", ".view"),
            detects=nb05.HINT_VIEW_NOT_CONTIGUOUS),
    mistake(MERGE, "transposed L and d_k before the reshape", edit("1, 2", "2, 3"),
            hint=HINT_MERGE),
    mistake(MERGE, "heads summed instead of concatenated", "return y.sum(dim=1)",
            detects=nb05.HINT_MERGE_SUMMED),
    mistake(MERGE, "batch size hard-coded to 1", edit("(B", "(1"),
            detects=nb05.HINT_SIZES_FROM_INPUT),
    mistake(MERGE, "no return: the merged tensor computed and dropped", edit("return", "merged ="),
            detects=HINT_NO_RETURN.format(where="merge_heads")),
    alternative(MERGE, "concatenate the heads",
                "return torch.cat([y[:, r] for r in range(y.shape[1])], dim=-1)"),
    alternative(MERGE, "permute, contiguous, view", """
        B, h, L, d_k = y.shape
        return y.permute(0, 2, 1, 3).contiguous().view(B, L, -1)"""),
    alternative(MERGE, "transpose then flatten", "return y.transpose(1, 2).flatten(start_dim=2)"),
    alternative(MERGE, "einsum into a new tensor, loop-free",
                edit("y.transpose(1, 2", 'torch.einsum("bhld->blhd", y')),
    alternative(MERGE, "loop writing into new_zeros", """
        B, h, L, d_k = y.shape
        out = y.new_zeros(B, L, h * d_k)
        for r in range(h):
            out[..., r * d_k:(r + 1) * d_k] = y[:, r]
        return out"""),
    alternative(MERGE, "through numpy and back", """
        B, h, L, d_k = y.shape
        arr = y.detach().cpu().numpy()
        return torch.from_numpy(arr.transpose(0, 2, 1, 3).reshape(B, L, h * d_k).copy())"""),
    # -- scaled_dot_product_attention --------------------------------------------------------------
    mistake(SDPA, "mask applied after the softmax", [
        delete("if allowed"), delete("masked_fill"),
        replace_line("nan=0.0", "if allowed is not None:\n    weights = weights * allowed"),
    ], hint="set blocked scores to -inf BEFORE the softmax (masked_fill(~allowed, -inf)); "
            "zeroing weights after it leaves rows that do not sum to 1"),
    mistake(SDPA, "row maximum over blocked keys too, then zeroed and renormalised", """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        e = torch.exp(scores - scores.amax(-1, keepdim=True))
        if allowed is not None:
            e = e * allowed
        s = e.sum(-1, keepdim=True)
        return torch.where(s > 0, e / torch.where(s > 0, s, torch.ones_like(s)), 0.0) @ v""",
            hint="take each row's maximum over its ALLOWED scores (masked_fill(~allowed, -inf) "
                 "first): a blocked key that scores far higher makes the allowed ones underflow "
                 "to 0"),
    mistake(SDPA, "no scaling", [edit(") / math.sqrt(q.shape[-1])", ")"), edit("2)", "1)")],
            detects=nb05.HINT_NO_SCALING, like="softmax over the query axis"),
    mistake(SDPA, "mask inverted", [edit(", -1)", ", -1) / math.sqrt(q.shape[-1])"), edit("~", "")],
            detects=nb05.HINT_MASK_INVERTED, like="no scaling"),
    mistake(SDPA, "NaN for a row with no allowed key", edit("-1e9", 'float("-inf")'),
            detects=nb05.HINT_NAN, like="-1e9 leaves a fully masked row uniform"),
    mistake(SDPA, "-1e9 leaves a fully masked row uniform", """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if allowed is not None:
            scores = scores.masked_fill(~allowed, -1e9)
        return torch.softmax(scores, dim=-1) @ v""", detects=nb05.HINT_FINITE_FILL),
    mistake(SDPA, "softmax over the query axis",
            edit("softmax(scores, dim=-1", "nan_to_num(torch.softmax(scores, dim=-2)"),
            detects=nb05.HINT_SOFTMAX_AXIS, like="NaN for a row with no allowed key"),
    mistake(SDPA, "calls PyTorch's fused attention", """
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
        return torch.nan_to_num(out)""", detects=nb05.HINT_WRITE_IT_YOURSELF),
    mistake(SDPA, "scaled by sqrt(L_k), the number of keys", edit("v.shape[-1", "k.shape[-2"),
            detects=nb05.HINT_SCALED_BY_LENGTH, like="scaled by sqrt(d_v), the value width"),
    mistake(SDPA, "scaled by sqrt(d_v), the value width", [
        edit("q.shape", "v.shape"), edit("2)", "1)"),
    ], detects=nb05.HINT_SCALED_BY_D_V, like="softmax over the query axis"),
    mistake(SDPA, "scaled after the softmax", [
        delete("scores = q"), replace_line("d_k = q.shape[-1]", "scores = q @ k.transpose(-2, -1)"),
        edit(", nan=0.0", ") / math.sqrt(q.shape[-1]"),
    ], hint="divide the scores by sqrt(d_k) before the softmax; afterwards the weights no longer "
            "sum to 1", like="d_k ** 1/2 (precedence: d_k / 2)"),
    mistake(SDPA, "mask multiplied into the scores",
            edit('scores.masked_fill(~allowed, float("-inf"))', "scores * allowed"),
            hint="a blocked score must be -inf, not 0 (exp(0) = 1 still gives the key weight): "
                 "scores.masked_fill(~allowed, float('-inf'))",
            like="NaN for a row with no allowed key"),
    mistake(SDPA, "softmax without dim= (PyTorch's implicit axis)", [
        edit(", -1)", ", -1) / math.sqrt(q.shape[-1])"),
        replace_line("return torch.nan_to_num(torch.softmax(scores, dim=-1)) @ v",
                     "import warnings\n"
                     "with warnings.catch_warnings():\n"
                     '    warnings.simplefilter("ignore")\n'
                     "    weights = F.softmax(scores)\n"
                     "return torch.nan_to_num(weights) @ v"),
    ], hint="always name the axis: torch.softmax(scores, dim=-1); without dim= PyTorch guesses "
            "axis 1 for a 4-axis tensor", like="no scaling"),
    mistake(SDPA, "softmax without subtracting the row maximum", [
        replace_line("return torch.softmax(scores, dim=-1) @ v",
                     "e = torch.exp(scores)\n"
                     "return torch.nan_to_num(e / e.sum(dim=-1, keepdim=True)) @ v"),
    ], detects=nb05.HINT_OVERFLOW_LARGE, like="NaN for a row with no allowed key"),
    mistake(SDPA, "returns (Y, A) as in notebook 04", [
        delete("scores = q"),
        replace_line("d_k = q.shape[-1]",
                     "scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])"),
        edit(", nan=0.0", ""), edit("v", "v, weights"),
    ], detects=nb05.HINT_RETURN_OUTPUT_ONLY, like="d_k ** 1/2 (precedence: d_k / 2)"),
    mistake(SDPA, "boolean indexing that cannot broadcast the mask", [
        edit("scores = scores.masked_fill(~allowed, -1e9", 'scores[~allowed] = float("-inf"'),
        edit("torch.softmax(scores, dim=-1", "torch.nan_to_num(torch.softmax(scores, dim=-1)"),
    ], detects=nb05.HINT_BOOLEAN_INDEXING, like="-1e9 leaves a fully masked row uniform"),
    mistake(SDPA, "allowed=None not handled", [delete("scores = scores.masked_fill(allowed,"),
            replace_line("if allowed", 'scores = scores.masked_fill(~allowed, float("-inf"))')],
            detects=nb05.HINT_ALLOWED_NONE, like="mask inverted"),
    mistake(SDPA, "queries scaled in place (changes the caller's q)", [
        replace_line("scores = q @ k.transpose(-2, -1)",
                     "q /= math.sqrt(q.shape[-1])\nscores = q @ k.transpose(-2, -1)"),
    ], detects=nb05.HINT_SDPA_IN_PLACE, like="no scaling"),
    mistake(SDPA, "k.T (reverses every axis of a batch)",
            edit("k.transpose(-2, -1", "k.T / math.sqrt(q.shape[-1]"),
            detects=nb05.HINT_K_T, like="no scaling"),
    mistake(SDPA, "softmax over a hard-coded dim=3 (4-D inputs only)", [
        edit("torch.softmax(scores, dim=-1",
             "torch.nan_to_num(torch.softmax(scores, dim=3), nan=0.0"),
        delete("weights = torch.nan_to_num(weights, nan=0.0)")], detects=nb05.HINT_AXES),
    mistake(SDPA, "keys transposed with transpose(1, 2) (3-D only)", [
        edit("-2, -1", "1, 2"), edit("=3", "=-1"),
    ], detects=nb05.HINT_AXES, like="softmax over a hard-coded dim=3 (4-D inputs only)"),
    mistake(SDPA, "d_k read from q.shape[1] (right for 2-D q only)", [
        edit("[-", "["), edit("=3", "=-1"),
    ], detects=nb05.HINT_D_K_FROM_FRONT, like="softmax over a hard-coded dim=3 (4-D inputs only)"),
    mistake(SDPA, "d_k ** 1/2 (precedence: d_k / 2)", [
        edit("math.sqrt(d_k", "(d_k ** 1/2"), edit("allowed.transpose(-2, -1)", "allowed"),
    ], hint="** binds tighter than /: d_k ** 1/2 is d_k / 2; write d_k ** 0.5 or math.sqrt(d_k)",
       like="mask transposed (allowed.transpose(-2, -1))"),
    mistake(SDPA, "mask transposed (allowed.transpose(-2, -1))", [
        edit("~allowed", "~allowed.transpose(-2, -1)"),
        edit("torch.softmax(scores, dim=-1",
             "torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0"),
        delete("weights = torch.nan_to_num(weights, nan=0.0)")],
            hint="allowed[..., i, j] says whether query i may read key j: use the mask as given, "
                 "rows are queries; do not transpose it"),
    mistake(SDPA, "values multiplied on the left (v^T-free, A^T @ v)", [
        edit("(d_k ** 1/2", "math.sqrt(d_k"), edit("weights @ v", "weights.transpose(-2, -1) @ v"),
    ], hint="the output is weights @ v with weights (..., L_q, L_k): each query's row of weights "
            "mixes the values", like="d_k ** 1/2 (precedence: d_k / 2)"),
    mistake(SDPA, "scores q^T k (keys on the left)", [
        edit("[", "[-"), edit("q @ k.transpose", "k @ q.transpose"),
    ], hint="scores = q @ k.transpose(-2, -1): row i is query i, column j is key j",
       like="d_k read from q.shape[1] (right for 2-D q only)"),
    alternative(SDPA, "einsum, scale the queries, where", """
        q = q / q.shape[-1] ** 0.5
        scores = torch.einsum("...qd,...kd->...qk", q, k)
        if allowed is not None:
            scores = torch.where(allowed, scores, torch.full_like(scores, -torch.inf))
        weights = torch.softmax(scores, dim=-1)
        weights = torch.where(torch.isnan(weights), torch.zeros_like(weights), weights)
        return torch.einsum("...qk,...kv->...qv", weights, v)"""),
    alternative(SDPA, "own stable softmax", """
        scores = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(k.shape[-1]))
        if allowed is not None:
            scores = scores.masked_fill(allowed.logical_not(), -math.inf)
        row_max = scores.amax(dim=-1, keepdim=True)
        row_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max))
        e = torch.exp(scores - row_max)
        total = e.sum(dim=-1, keepdim=True)
        weights = e / total.clamp_min(torch.finfo(e.dtype).tiny)
        return weights @ v"""),
    alternative(SDPA, "mT, additive log-mask, masked weights", """
        scores = (q @ k.mT) / math.sqrt(q.size(-1))
        if allowed is not None:
            scores = scores + torch.log(allowed.to(scores.dtype))
        weights = torch.softmax(scores, dim=-1)
        if allowed is not None:
            weights = weights.masked_fill(~allowed, 0.0)
        return weights.to(v.dtype) @ v"""),
    alternative(SDPA, "in-place fill on a fresh score tensor", """
        scale = 1.0 / math.sqrt(q.shape[-1])
        scores = torch.matmul(q * scale, k.transpose(-1, -2))
        if allowed is not None:
            scores.masked_fill_(allowed == False, float("-inf"))  # noqa: E712
        weights = scores.softmax(-1)
        return torch.matmul(torch.where(weights.isnan(), 0.0, weights), v)"""),
    alternative(SDPA, "explicit expand and boolean indexing", """
        scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
        if allowed is not None:
            scores = scores.clone()
            scores[~allowed.expand_as(scores)] = -math.inf
        weights = F.softmax(scores, dim=-1).nan_to_num(0.0)
        return weights @ v"""),
    alternative(SDPA, "additive float32 bias built in the body", """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if allowed is not None:
            bias = torch.zeros(allowed.shape).masked_fill(~allowed, float("-inf"))  # float32
            scores = scores + bias
        weights = torch.softmax(scores, dim=-1)
        return torch.nan_to_num(weights, nan=0.0) @ v"""),
    alternative(SDPA, "finfo.min fill, empty rows zeroed by any()", """
        scores = torch.matmul(q, k.transpose(-1, -2)) * q.shape[-1] ** -0.5
        if allowed is None:
            return torch.softmax(scores, dim=-1) @ v
        scores = scores.masked_fill(allowed.logical_not(), torch.finfo(scores.dtype).min)
        weights = torch.softmax(scores, dim=-1) * allowed.any(dim=-1, keepdim=True)
        return weights @ v"""),
    alternative(SDPA, "keys scaled, 0-d float32 tensor for sqrt", """
        scale = torch.tensor(q.shape[-1]).sqrt()  # a 0-d float32 tensor
        scores = q @ (k / scale).mT
        if allowed is not None:
            scores = torch.where(allowed == 0, -torch.inf, scores)
        return torch.nan_to_num(scores.softmax(dim=-1)) @ v"""),
    alternative(SDPA, "a non-contiguous output (v^T A^T)^T", [
        replace_line("return torch.softmax(scores, dim=-1) @ v",
                     "weights = torch.softmax(scores, dim=-1).nan_to_num(nan=0.0)\n"
                     "return (v.transpose(-2, -1) @ weights.transpose(-2, -1)).transpose(-2, -1)"),
    ], like="NaN for a row with no allowed key"),
    alternative(SDPA, "float64 bias, result cast back to q's dtype", """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if allowed is not None:
            bias = torch.zeros(allowed.shape, dtype=torch.float64)
            bias[~allowed] = -math.inf
            scores = scores + bias  # float64 even when q is float32
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        return (weights @ v.to(weights.dtype)).to(q.dtype)"""),
    alternative(SDPA, "recursion over the leading axes", """
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
        return torch.nan_to_num(torch.softmax(scores, dim=1), nan=0.0) @ v"""),
    alternative(SDPA, "a loop over the query rows", """
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
        return torch.stack(rows, dim=-2)"""),
    alternative(SDPA, "exp and normalise with a numpy sqrt", """
        import numpy as np
        scores = q @ k.transpose(-2, -1) / np.sqrt(q.shape[-1])
        if allowed is not None:
            scores = scores.masked_fill(~allowed.to(torch.bool), -np.inf)
        top = scores.max(dim=-1, keepdim=True).values
        top = top.masked_fill(torch.isinf(top), 0.0)
        e = (scores - top).exp()
        total = e.sum(dim=-1, keepdim=True)
        weights = torch.where(total > 0, e / torch.where(total > 0, total, 1.0), 0.0)
        return weights @ v"""),
    alternative(SDPA, "log_softmax, exp, mask on the device of q", """
        scores = torch.einsum("...id,...jd->...ij", q, k) / math.sqrt(q.shape[-1])
        if allowed is None:
            allowed = torch.ones(scores.shape[-2:], dtype=torch.bool, device=q.device)
        scores = scores.masked_fill(~allowed, -math.inf)
        weights = torch.log_softmax(scores, dim=-1).exp()
        weights = weights.masked_fill(~allowed.expand(weights.shape)
                                      | weights.isnan(), 0.0)
        return weights @ v"""),
    mistake(SDPA, "each tensor flattened to (-1, L, d) for bmm", """
        lead = q.shape[:-2]
        qf, kf, vf = (t.reshape(-1, *t.shape[-2:]) for t in (q, k, v))
        scores = torch.bmm(qf, kf.transpose(1, 2)) / math.sqrt(q.shape[-1])
        if allowed is not None:
            mask = allowed.expand(*lead, *allowed.shape[-2:]).reshape(scores.shape)
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, -1).nan_to_num(0.0)
        return torch.bmm(weights, vf).reshape(*lead, q.shape[-2], v.shape[-1])""",
            detects=nb05.HINT_KV_SHARED),
    # -- MultiHeadAttention ------------------------------------------------------------------------
    mistake(MHA, "forgot W_O", [
        delete("x = x.transpose(0, 1)"), edit("y =", "return"),
        delete("return self.W_O(y).transpose(0, 1)"),
    ], hint="finish with self.W_O(merge_heads(...)): the output projection mixes the heads",
       like="sequence-first: x.transpose(0, 1) before the heads"),
    mistake(MHA, "scaled by d_model instead of d_k", [
        replace_line("y = scaled_dot_product_attention(q, k, v, allowed)",
                     "scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_model)\n"
                     "if allowed is not None:\n"
                     '    scores = scores.masked_fill(~allowed, float("-inf"))\n'
                     "y = torch.nan_to_num(torch.softmax(scores, dim=-1)) @ v"),
    ], hint="each head's scores are q.k over d_k = d_model / n_heads features: divide by "
            "sqrt(d_k), not sqrt(d_model)"),
    mistake(MHA, "its own attention, blocked scores filled with -1e9 (Annotated Transformer)", [
        replace_line("y = scaled_dot_product_attention(q, k, v, allowed)",
                     "scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k)\n"
                     "if allowed is not None:\n"
                     "    scores = scores.masked_fill(~allowed, -1e9)\n"
                     "y = torch.softmax(scores, dim=-1) @ v"),
    ], detects=nb05.HINT_FINITE_FILL),
    mistake(MHA, "its own attention, an additive mask (allowed.float() - 1) * 1e9",
            edit("scores.masked_fill(~allowed, -1e9)", "scores + (allowed.float() - 1) * 1e9"),
            detects=nb05.HINT_FINITE_FILL,
            like="its own attention, blocked scores filled with -1e9 (Annotated Transformer)"),
    mistake(MHA, "split by reshaping without the transpose", [
        edit("q = split", "B, L, _ = x.shape\nq = split"), edit("split_heads(", "", count=3),
        edit("(x), self.n_heads)", "(x).reshape(B, self.n_heads, L, self.d_k)", count=3),
    ], hint=HINT_SPLIT),
    mistake(MHA, "merged without the transpose", [
        edit("q = split", "B, L, _ = x.shape\nq = split"),
        edit("merge_heads(y)", "y.reshape(B, L, self.d_model)")], hint=HINT_MERGE),
    mistake(MHA, "mask inverted (nn.MultiheadAttention's convention, True = blocked)",
            edit("v, allowed)", "v, None if allowed is None else ~allowed)"),
            hint="here True means 'may attend': pass allowed on as it is; only "
                 "nn.MultiheadAttention's attn_mask takes True as blocked"),
    mistake(MHA, "mask not passed on", [edit("1", "self.n_heads"), edit("allowed", "None")],
            hint="pass allowed on to scaled_dot_product_attention",
            like="one head over the whole width"),
    mistake(MHA, "queries and keys detached: W_Q and W_K never train", [
        edit("self.W_Q(x), self.n_heads)", "self.W_Q(x), self.n_heads).detach()"),
        edit("self.W_K(x), self.n_heads)", "self.W_K(x), self.n_heads).detach()"),
    ], detects=HINT_KEEP_GRAPH),
    mistake(MHA, "W_Q and W_K frozen (requires_grad False)", replace_line("self.W_K = nn.Linear",
            "self.W_K = nn.Linear(d_model, d_model)\nself.W_Q.requires_grad_(False)\n"
            "self.W_K.requires_grad_(False)"), detects=HINT_KEEP_GRAPH),
    mistake(MHA, "linear layers without bias", edit("d_model)", "d_model, bias=False)", count=4),
            detects=nb05.HINT_LAYER_BIAS),
    mistake(MHA, "projection widths d_k instead of d_model", [
        edit("O = nn.Linear(d_model", "O = nn.Linear(self.d_k"),
        edit("d_model, d_model)", "d_model, self.d_k)", count=3)], detects=nb05.HINT_LAYER_WIDTHS),
    mistake(MHA, "layers under other names", [
        edit("self.W_Q", "self.query", count=2), edit("self.W_K", "self.key", count=2),
        edit("self.W_V", "self.value", count=2), edit("self.W_O", "self.out", count=2),
    ], detects=nb05.HINT_LAYER_NAMES),
    mistake(MHA, "one head over the whole width", edit("self.d_k", "1"),
            hint="split the projections into n_heads heads before attending",
            like="split into d_k heads of width n_heads"),
    mistake(MHA, "keys projected with W_Q (copy-paste)", [
        edit("(self.W_K", "(self.W_Q"), edit("x,", "self.W_V(x),"),
    ], hint="the keys come from their own layer: k = split_heads(self.W_K(x), ...)",
       like="values not projected (raw x split into heads)"),
    mistake(MHA, "values projected with W_K (copy-paste)", edit("x,", "self.W_K(x),"),
            hint=HINT_VALUES_FROM_W_K, like="values not projected (raw x split into heads)"),
    mistake(MHA, "a causal mask always applied", [
        edit("q = split", "L = x.shape[1]\n"
             "causal = torch.ones(L, L, dtype=torch.bool, device=x.device).tril()\n"
             "allowed = causal if allowed is None else causal & allowed\nq = split"),
    ], hint="apply only the mask it is given: allowed=None means every key is allowed; the "
            "caller decides about causality"),
    mistake(MHA, "residual added inside the attention layer", [
        edit("1", "self.n_heads"), edit("self.W_O(", "x + self.W_O("),
    ], hint="return W_O(merge_heads(...)) only: the block adds the residual, not the attention "
            "layer", like="one head over the whole width"),
    mistake(MHA, "split into d_k heads of width n_heads", (None, """
        q, k, v = (split_heads(W(x), self.d_k) for W in (self.W_Q, self.W_K, self.W_V))
        return self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed)))
    """), hint="split_heads(..., self.n_heads): n_heads heads of width d_k"),
    mistake(MHA, "one Linear shared by W_Q, W_K and W_V", ("""
        self.W_Q = self.W_K = self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)""", None), detects=nb05.HINT_FOUR_LAYERS),
    mistake(MHA, "W_O applied to the values before attending", [
        edit("W_V(x)", "W_O(self.W_V(x))"), replace_line("return", "return merge_heads(y)"),
    ], hint="the output projection W_O comes last, applied to the merged heads"),
    mistake(MHA, "F.dropout on the weights (training=True by default)", [
        replace_line("return self.W_O(merge_heads(weights @ v)), weights",
                     "weights = F.dropout(weights, 0.1)\n"
                     "return self.W_O(merge_heads(weights @ v))"),
    ], detects=nb05.HINT_DROPOUT, like="returns (output, weights)"),
    mistake(MHA, "x @ W.weight (the nn.Linear weight not transposed)", (None, """
        q = split_heads(x @ self.W_Q.weight + self.W_Q.bias, self.n_heads)
        k = split_heads(x @ self.W_K.weight + self.W_K.bias, self.n_heads)
        v = split_heads(x @ self.W_V.weight + self.W_V.bias, self.n_heads)
        y = scaled_dot_product_attention(q, k, v, allowed)
        return merge_heads(y) @ self.W_O.weight + self.W_O.bias
    """), hint="nn.Linear stores its weight as (out, in): call the layer, self.W_Q(x), or write x "
               "@ W.weight.T + W.bias (invisible in the shapes when the matrix is square)"),
    mistake(MHA, "two heads hard-coded in forward", [
        edit("self.n_heads", "2", count=3), edit("self.W_O(", "return self.W_O("),
    ], hint="split into self.n_heads heads, the number the module was built with, not the worked "
            "example's 2", like="forward without return"),
    mistake(MHA, "queries pre-scaled, then scaled again by the attention", [
        edit("self.W_Q(x), 2", "self.W_Q(x), self.n_heads) / math.sqrt(self.d_k"),
        edit("2", "self.n_heads", count=2),
    ], hint="scale once: scaled_dot_product_attention already divides the scores by sqrt(d_k)",
       like="two heads hard-coded in forward"),
    mistake(MHA, "returns (output, weights)", [
        edit("self.d_model", "self.d_k"),
        edit("y = torch.nan_to_num(torch.softmax(scores, dim=-1)) @ v",
             "weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)"),
        edit("y))", "weights @ v)), weights"),
    ], detects=nb05.HINT_RETURN_OUTPUT_ONLY, like="scaled by d_model instead of d_k"),
    mistake(MHA, "mask unsqueezed for the heads even when it has them", [
        replace_line("q = split_heads(self.W_Q(x), self.n_heads)",
                     "if allowed is not None:\n"
                     "    allowed = allowed.unsqueeze(1)\n"
                     "q = split_heads(self.W_Q(x), self.n_heads)"),
        edit("self.W_O(", "return self.W_O("),
    ], detects=nb05.HINT_MASK_AS_GIVEN, like="forward without return"),
    mistake(MHA, "values not projected (raw x split into heads)", [
        edit("self.W_V(x)", "x"), edit("self.W_O(", "return self.W_O("),
    ], hint=HINT_VALUES_FROM_W_K, like="forward without return"),
    mistake(MHA, "sequence-first: x.transpose(0, 1) before the heads", (None, """
        x = x.transpose(0, 1)
        q = split_heads(self.W_Q(x), self.n_heads)
        k = split_heads(self.W_K(x), self.n_heads)
        v = split_heads(self.W_V(x), self.n_heads)
        y = merge_heads(scaled_dot_product_attention(q, k, v, allowed))
        return self.W_O(y).transpose(0, 1)"""),
            hint="x is batch-first, (B, L, d_model): attend over its L axis and never transpose "
                 "the batch away (nn.MultiheadAttention's default is sequence-first; this course "
                 "is batch-first)"),
    mistake(MHA, "output projection W_O applied twice", [
        edit("merge_heads(scaled_dot_product_attention(q, k, v, allowed",
             "self.W_O(self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed))"),
    ], hint="apply W_O once, to the merged heads", like="forgot W_O"),
    mistake(MHA, "forward without return", [
        edit("y = scaled_dot_product_attention(q, k, v, allowed",
             "self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed))"),
        delete("return self.W_O(merge_heads(y))"),
    ], detects=HINT_NO_RETURN.format(where="MultiHeadAttention.forward")),
    alternative(MHA, "one fused projection of the stacked weights", (None, """
        B, L, d = x.shape
        W = torch.cat([self.W_Q.weight, self.W_K.weight, self.W_V.weight])
        b = torch.cat([self.W_Q.bias, self.W_K.bias, self.W_V.bias])
        q, k, v = F.linear(x, W, b).chunk(3, dim=-1)
        heads = [t.view(B, L, self.n_heads, self.d_k).transpose(1, 2) for t in (q, k, v)]
        y = scaled_dot_product_attention(*heads, allowed)
        return self.W_O(y.transpose(1, 2).reshape(B, L, d))""")),
    alternative(MHA, "einsum with per-head weight views", (None, """
        h, d_k = self.n_heads, self.d_k
        def project(layer):
            W = layer.weight.view(h, d_k, -1)
            return torch.einsum("bld,hkd->bhlk", x, W) + layer.bias.view(h, 1, d_k)
        y = scaled_dot_product_attention(project(self.W_Q), project(self.W_K),
                                         project(self.W_V), allowed)
        return self.W_O(merge_heads(y))""")),
    alternative(MHA, "dropout with p=0 and a float scale attribute", [
        replace_line("self.W_O = nn.Linear(d_model, d_model)",
                     "self.W_O = nn.Linear(d_model, d_model)\n"
                     "self.dropout = nn.Dropout(p=0.0)\n"
                     "self.scale = 1.0 / math.sqrt(self.d_k)"),
        edit("/ math.sqrt(self.d_model)", "* self.scale"),
        edit("y = torch.nan_to_num(", "y = self.dropout(torch.nan_to_num("), edit(") @", ")) @"),
    ], like="scaled by d_model instead of d_k"),
    alternative(MHA, "a float32 scale buffer and a cached bool buffer", ("""
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
        return self.W_O(merge_heads(weights @ v))""")),
    alternative(MHA, "layers kept in a ModuleList too, named aliases", ("""
        self.proj = nn.ModuleList(nn.Linear(d_model, d_model) for _ in range(4))
        self.W_Q, self.W_K, self.W_V, self.W_O = self.proj""", """
        q, k, v = (split_heads(layer(x), self.n_heads) for layer in self.proj[:3])
        return self.proj[3](merge_heads(scaled_dot_product_attention(q, k, v, allowed)))""")),
    alternative(MHA, "per-head loop accumulating into zeros_like(x)", (None, """
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
        return self.W_O(merged)""")),
    alternative(MHA, "mask unsqueezed to 4 axes, scores via baddbmm-free bmm", (None, """
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
        return self.W_O(merge_heads(y))""")),
    alternative(MHA, "keeps the last weights for plotting, 0-d float64 scale", (None, """
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
        scale = torch.tensor(float(self.d_k), dtype=torch.float64).rsqrt()
        scores = q @ k.transpose(-2, -1) * scale
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1))
        self.last_weights = weights.detach()
        return self.W_O(merge_heads(weights @ v))""")),
    alternative(MHA, "Xavier initialisation, zero biases, mask on x's device", ("""
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)
        for layer in (self.W_Q, self.W_K, self.W_V, self.W_O):
            nn.init.xavier_uniform_(layer.weight)
            nn.init.zeros_(layer.bias)""", """
        B, L, _ = x.shape
        if allowed is None:
            allowed = torch.ones(L, L, dtype=torch.bool, device=x.device)
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
        return self.W_O(merge_heads(scaled_dot_product_attention(q, k, v, allowed.to(x.device))))
    """)),
    alternative(MHA, "an nn.ModuleDict registered first, names as aliases", ("""
        self.layers = nn.ModuleDict({name: nn.Linear(d_model, d_model)
                                     for name in ("q", "k", "v", "o")})
        self.W_Q, self.W_K = self.layers["q"], self.layers["k"]
        self.W_V, self.W_O = self.layers["v"], self.layers["o"]""", """
        q, k, v = (split_heads(self.layers[n](x), self.n_heads) for n in "qkv")
        return self.layers["o"](merge_heads(scaled_dot_product_attention(q, k, v, allowed)))""")),
    alternative(MHA, "functional projections, weights created with setattr", ("""
        for name in ("W_O", "W_V", "W_K", "W_Q"):
            self.add_module(name, nn.Linear(d_model, d_model))""", """
        q = split_heads(F.linear(x, self.W_Q.weight, self.W_Q.bias), self.n_heads)
        k = split_heads(F.linear(x, self.W_K.weight, self.W_K.bias), self.n_heads)
        v = split_heads(F.linear(x, self.W_V.weight, self.W_V.bias), self.n_heads)
        y = scaled_dot_product_attention(q, k, v, allowed=allowed)
        return F.linear(merge_heads(y), self.W_O.weight, self.W_O.bias)""")),
    alternative(MHA, "preallocated torch.zeros output filled head by head", (None, """
        B, L, _ = x.shape
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
        y = scaled_dot_product_attention(q, k, v, allowed)  # (B, h, L, d_k)
        out = torch.zeros(B, L, self.d_model)
        for r in range(self.n_heads):
            out[:, :, r * self.d_k:(r + 1) * self.d_k] = y[:, r]
        return self.W_O(out)""")),
    alternative(MHA, "attention weights preallocated with torch.zeros", (None, """
        B, L, _ = x.shape
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
        weights = torch.zeros(B, self.n_heads, L, L)
        for r in range(self.n_heads):
            scores = q[:, r] @ k[:, r].transpose(-2, -1) / math.sqrt(self.d_k)
            if allowed is not None:
                mask = allowed.expand(B, self.n_heads, L, L)[:, r]
                scores = scores.masked_fill(~mask, float("-inf"))
            weights[:, r] = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        return self.W_O(merge_heads(weights @ v))""")),
    alternative(MHA, "float32 additive mask from torch.zeros, baddbmm scores", (None, """
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
        return self.W_O(merge_heads((weights @ v).reshape(B, h, L, d_k)))""")),
    alternative(MHA, "float tril-style mask of ones, log-mask bias, torch.empty", (None, """
        B, L, _ = x.shape
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
        keep = torch.ones(L, L) if allowed is None else allowed.float()
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k) + torch.log(keep)
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        merged = torch.empty(B, L, self.d_model)
        merged.copy_(merge_heads(weights @ v))
        return self.W_O(merged)""")),
    alternative(MHA, "float32 buffer cast back with .to(x.dtype)", [
        delete("return self.W_O(out)"), delete("out[:, :, r * self.d_k:(r + 1) * self.d_k] = y"),
        replace_line("for r in range(self.n_heads):",
                     "out += merge_heads(y)\nreturn self.W_O(out.to(x.dtype))"),
    ], like="preallocated torch.zeros output filled head by head"),
    alternative(MHA, "output built in a python list, torch.tensor(0.) start", (None, """
        q, k, v = (split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
        y = scaled_dot_product_attention(q, k, v, allowed)
        heads = [torch.zeros(y.shape[0], y.shape[2], self.d_k) + y[:, r]
                 for r in range(self.n_heads)]
        return self.W_O(torch.cat(heads, dim=-1).float())""")),
    # -- concept questions -------------------------------------------------------------------------
    mistake("answer_head_shape", "heads after the positions", edit("B", "A"), detects=WHY),
    mistake("answer_scale_per_head", "model width", 'answer_scale_per_head = "B"', detects=WHY),
    mistake("answer_output_projection", "only for the shape", edit("B", "A"), detects=WHY),
    mistake("answer_broad_head", "thinks a zero query gives zero weights",
            'answer_broad_head = "A"', detects=WHY),
    mistake("answer_cost", "linear growth", 'answer_cost = "A"', detects=WHY),
    alternative("answer_head_shape", "lower case", 'answer_head_shape = "b"'),
])
