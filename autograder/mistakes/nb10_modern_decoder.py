"""Notebook 10's mistake catalogue, one section per graded function (see grader/catalogue.py)."""

from grader.catalogue import (
    alternative,
    catalogue,
    delete,
    edit,
    insert_after,
    mistake,
    replace_line,
)

from attnbook.checks import nb05, nb06, nb10

RMS, SWIGLU, GQA, CACHE_BYTES, BLOCK, DECODER, DECODE = (
    "rms_norm", "SwiGLU", "grouped_query_attention", "kv_cache_bytes", "Qwen3Block",
    "Qwen3Decoder", "decode_step")

# hints that several entries give
HINT_RMS_STD = ("the divisor is the root MEAN SQUARE, sqrt((h ** 2).mean(dim=-1) + eps), not the "
                "standard deviation: RMSNorm never subtracts the mean")
HINT_RMS_SUM = "average the squares over the d features: .mean(dim=-1), not .sum(dim=-1)"
HINT_SILU = "the gate's activation is SiLU, z * sigmoid(z): F.silu"
HINT_NO_ROPE = ("rotate the queries and the keys: rotate_pairs(q, cos, sin), rotate_pairs(k, cos, "
                "sin)")


MISTAKES, ALTERNATIVES = catalogue([
    # -- rms_norm ----------------------------------------------------------------------------------
    mistake(RMS, "the mean subtracted (LayerNorm without beta)", """
        centred = h - h.mean(dim=-1, keepdim=True)
        return gamma * centred / torch.sqrt((centred ** 2).mean(dim=-1, keepdim=True) + eps)
    """, hint="RMSNorm does not centre the token: divide h itself by sqrt(mean(h ** 2) + eps)"),
    mistake(RMS, "divided by h.std (unbiased) instead of the RMS", edit("(h ** 2).sum", "h.var"),
            hint=HINT_RMS_STD, like="sum of squares instead of their mean"),
    mistake(RMS, "divided by the biased standard deviation",
            "return gamma * h / torch.sqrt(h.var(dim=-1, keepdim=True, unbiased=False) + eps)",
            hint=HINT_RMS_STD),
    mistake(RMS, "eps outside the square root", """
        rms = torch.sqrt((h ** 2).mean(dim=-1, keepdim=True))
        return gamma * h / (rms + eps)""",
            hint="eps goes inside the square root: h / sqrt(mean(h ** 2) + eps)"),
    mistake(RMS, "no square root", "return gamma * h / ((h ** 2).mean(dim=-1, keepdim=True) + eps)",
            hint="divide by the ROOT mean square: torch.sqrt(mean_square + eps)"),
    mistake(RMS, "sum of squares instead of their mean", edit(".mean(dim=0", ".sum(dim=-1"),
            hint=HINT_RMS_SUM, like="mean over the first axis"),
    mistake(RMS, "F.normalize (the L2 norm)", "return gamma * F.normalize(h, dim=-1)",
            hint=HINT_RMS_SUM),
    mistake(RMS, "gamma not applied", edit("gamma * h / (", "h / torch.sqrt("),
            hint="finish by multiplying with gamma: gamma * h / sqrt(mean(h ** 2) + eps)",
            like="no square root"),
    mistake(RMS, "gamma added like LayerNorm's beta", edit("eps)", "eps) + gamma"),
            hint="gamma scales: multiply by it; RMSNorm has no shift", like="gamma not applied"),
    mistake(RMS, "eps argument ignored (1e-6 written in)",
            "return gamma * h / torch.sqrt((h ** 2).mean(dim=-1, keepdim=True) + 1e-6)",
            detects=nb06.HINT_EPS_ARGUMENT_IGNORED),
    mistake(RMS, "mean over the first axis",
            "return gamma * h / torch.sqrt((h ** 2).mean(dim=0, keepdim=True) + eps)",
            detects=nb10.HINT_RMS_AXIS),
    mistake(RMS, "mean over the whole tensor",
            "return gamma * h / torch.sqrt((h ** 2).mean() + eps)", detects=nb10.HINT_RMS_AXIS),
    mistake(RMS, "keepdim forgotten", "return gamma * h / torch.sqrt((h ** 2).mean(dim=-1) + eps)",
            detects=nb10.HINT_KEEPDIM),
    mistake(RMS, "mean square divided by d - 1", """
        d = h.shape[-1]
        return gamma * h / torch.sqrt((h ** 2).sum(dim=-1, keepdim=True) / (d - 1) + eps)
    """, hint="average the squares: divide their sum by d, not d - 1"),
    mistake(RMS, "mean absolute value, squared", edit("(h ** 2).mean(dim=-1, keepdim=True)",
                                                      "h.abs().mean(dim=-1, keepdim=True) ** 2"),
            hint="square each feature, then average: (h ** 2).mean(dim=-1), not h.abs().mean(...)"),
    mistake(RMS, "square of the mean", edit("(h ** 2).mean(dim=-1, keepdim=True)",
                                            "h.mean(dim=-1, keepdim=True) ** 2"),
            hint="the MEAN of the squares, (h ** 2).mean(dim=-1), not the square of the mean"),
    mistake(RMS, "gamma inside the mean square", edit("(h ** 2).mean", "((gamma * h) ** 2).mean"),
            hint="normalise h itself, then scale: gamma * (h / rms(h)), not rms(gamma * h)"),
    mistake(RMS, "PyTorch's own F.rms_norm", "return F.rms_norm(h, (h.shape[-1],), gamma, eps)",
            detects=nb10.HINT_RMS_OWN),
    mistake(RMS, "divides h in place", """
        h /= torch.sqrt((h ** 2).mean(dim=-1, keepdim=True) + eps)
        return gamma * h""", detects=nb10.HINT_RMS_IN_PLACE),
    mistake(RMS, "tokens returned as the rows of an (N, d) view",
            edit("return gamma * h / torch.sqrt(mean_square + eps)",
                 "return (gamma * h / torch.sqrt(mean_square + eps)).view(-1, h.shape[-1])"),
            detects=nb10.HINT_RMS_SHAPE),
    mistake(RMS, "eps left out", edit(" + eps", ""), detects=nb10.HINT_RMS_ZERO_TOKEN),
    mistake(RMS, "returns a numpy array", edit("return gamma * h / torch.sqrt(mean_square + eps)",
                                               "return (gamma * h / torch.sqrt(mean_square + eps)"
                                               ").numpy()"), detects=nb10.HINT_TENSOR_RESULT),
    alternative(RMS, "rsqrt and pow",
                "return h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps) * gamma"),
    alternative(RMS, "the vector norm divided by sqrt(d)", """
        d = h.shape[-1]
        norm = torch.linalg.vector_norm(h, dim=-1, keepdim=True)
        return gamma * h / torch.sqrt(norm ** 2 / d + eps)"""),
    alternative(RMS, "einsum for the sum of squares", """
        squares = torch.einsum("...d,...d->...", h, h)[..., None]
        return gamma * h / (squares / h.shape[-1] + eps) ** 0.5"""),
    alternative(RMS, "a loop over the tokens of a flattened view", """
        d = h.shape[-1]
        rows = [gamma * row / torch.sqrt((row * row).sum() / d + eps) for row in h.reshape(-1, d)]
        return torch.stack(rows).reshape(h.shape)"""),
    alternative(RMS, "through numpy and back", """
        import numpy as np
        a = h.detach().cpu().numpy()
        out = a / np.sqrt((a ** 2).mean(axis=-1, keepdims=True) + eps)
        return torch.from_numpy(out).to(h.dtype) * gamma"""),
    # -- SwiGLU ------------------------------------------------------------------------------------
    mistake(SWIGLU, "GELU instead of SiLU", edit("F.silu", "F.gelu"), hint=HINT_SILU),
    mistake(SWIGLU, "ReLU instead of SiLU", edit("F.silu", "torch.relu"), hint=HINT_SILU),
    mistake(SWIGLU, "tanh instead of SiLU", edit("F.silu", "torch.tanh"), hint=HINT_SILU),
    mistake(SWIGLU, "SiLU of x before w_gate", edit("F.silu(self.w_gate(x))",
                                                    "self.w_gate(F.silu(x))"),
            hint="SiLU acts on the gate's projection: F.silu(self.w_gate(x)), not "
                 "w_gate(F.silu(x))"),
    mistake(SWIGLU, "sigmoid gate (GLU)", edit("F.silu", "torch.sigmoid"),
            hint="SwiGLU gates with SiLU(z) = z * sigmoid(z), not sigmoid(z) alone"),
    mistake(SWIGLU, "SiLU on the up branch", edit("F.silu", "self.w_gate(x) * F.silu"),
            hint="SiLU goes on w_gate(x); w_up(x) is the content it multiplies: "
                 "w_down(F.silu(w_gate(x)) * w_up(x))", like="no gate"),
    mistake(SWIGLU, "no gate", edit("self.w_gate(x)) * self.w_up(x", "self.w_up(x)"),
            hint="multiply the content w_up(x) by the gate F.silu(w_gate(x)) before w_down"),
    mistake(SWIGLU, "gate added instead of multiplied", edit("*", "+"),
            hint="the gate multiplies elementwise: F.silu(w_gate(x)) * w_up(x)"),
    mistake(SWIGLU, "SiLU after the product", edit(") * self.w_up(x", " * self.w_up(x)"),
            hint="apply SiLU to the gate alone, then multiply: F.silu(w_gate(x)) * w_up(x)"),
    mistake(SWIGLU, "SiLU on both branches", edit("self.w_up(x", "F.silu(self.w_up(x)"),
            hint="only the gate w_gate(x) goes through SiLU; w_up(x) enters as it is"),
    mistake(SWIGLU, "an extra SiLU at the output", (None, """
        return F.silu(self.w_down(F.silu(self.w_gate(x)) * self.w_up(x)))
    """), hint="w_down's output is the result: no activation after it"),
    mistake(SWIGLU, "residual added inside", edit("self.w_down(", "x + self.w_down("),
            hint="SwiGLU returns w_down(...) only; the block adds the residual"),
    mistake(SWIGLU, "linear layers with biases", edit(", bias=False", "", count=3),
            detects=nb10.HINT_NO_BIAS),
    mistake(SWIGLU, "w_down built the wrong way round",
            edit("d_hidden, d_model", "d_model, d_hidden"), detects=nb10.HINT_SWIGLU_SHAPES),
    mistake(SWIGLU, "an nn.Sequential instead of the named layers", ("""
        self.net = nn.Sequential(nn.Linear(d_model, d_hidden, bias=False), nn.SiLU(),
                                 nn.Linear(d_hidden, d_model, bias=False))""", """
        return self.net(x)"""), detects=nb10.HINT_SWIGLU_LAYER.format(name="w_gate")),
    mistake(SWIGLU, "the package's production MLP", ("""
        from attnbook.lm.qwen3 import GatedMLP, Qwen3LMConfig
        self.inner = GatedMLP(Qwen3LMConfig(vocab_size=1, d_model=d_model, d_hidden=d_hidden))
        self.w_gate, self.w_up, self.w_down = (self.inner.w_gate, self.inner.w_up,
                                               self.inner.w_down)""", """
        return self.inner(x)"""), detects=nb10.HINT_DELEGATE),
    mistake(SWIGLU, "w_down left out",
            edit("self.w_down(F.silu(self.w_gate(x)) * self.w_up(x))",
                 "F.silu(self.w_gate(x)) * self.w_up(x)"), detects=nb10.HINT_SWIGLU_SHAPE),
    mistake(SWIGLU, "tokens flattened to (B * L, d) and not reshaped back", (None, """
        x = x.reshape(-1, x.shape[-1])
        return self.w_down(F.silu(self.w_gate(x)) * self.w_up(x))"""),
            detects=nb10.HINT_SWIGLU_BATCH_SHAPE),
    alternative(SWIGLU, "sigmoid written out, nn.SiLU attribute", ("""
        self.w_gate = nn.Linear(d_model, d_hidden, bias=False)
        self.w_up = nn.Linear(d_model, d_hidden, bias=False)
        self.w_down = nn.Linear(d_hidden, d_model, bias=False)
        self.act = nn.SiLU()""", """
        gate = self.w_gate(x)
        return self.w_down(gate * torch.sigmoid(gate) * self.w_up(x))""")),
    alternative(SWIGLU, "weights applied by hand", (None, """
        gate = x @ self.w_gate.weight.T
        return (F.silu(gate) * (x @ self.w_up.weight.T)) @ self.w_down.weight.T""")),
    alternative(SWIGLU, "layers created in another order, torch.mul", ("""
        self.w_down = nn.Linear(d_hidden, d_model, bias=False)
        self.w_up = nn.Linear(d_model, d_hidden, bias=False)
        self.w_gate = nn.Linear(d_model, d_hidden, bias=False)""", """
        return self.w_down(torch.mul(self.w_up(x), nn.functional.silu(self.w_gate(x))))""")),
    # -- grouped_query_attention -------------------------------------------------------------------
    mistake(GQA, "key/value heads tiled with repeat", [
        replace_line("k, v = k.repeat_interleave",
                     "k = k.repeat(1, group, 1, 1)\nv = v.repeat(1, group, 1, 1)"),
        edit("allowed,", "~allowed,"),
    ], hint="consecutive query heads share a key/value head: k.repeat_interleave(h // h_kv, "
            "dim=1), not k.repeat(1, h // h_kv, 1, 1) (which gives query head r the key/value head "
            "r % h_kv)", like="mask inverted"),
    mistake(GQA, "key/value heads never repeated", [
        delete("group = k.shape[1] // q.shape[1]"), delete("k = k.repeat_interleave(group, dim=1)"),
        delete("v = v.repeat_interleave(group, dim=1)"),
    ], detects=nb10.HINT_REPEAT, like="group size upside down (h_kv // h)"),
    mistake(GQA, "group size upside down (h_kv // h)", [
        edit("q.shape[1] // k.shape", "k.shape[1] // q.shape"),
        replace_line("weights = torch.nan_to_num",
                     "return torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0) @ v"),
        delete("return weights @ v"),
    ], detects=nb10.HINT_REPEAT),
    mistake(GQA, "no 1/sqrt(d_k) scaling", edit(") / q.shape[-1]", ")"),
            detects=nb05.HINT_NO_SCALING, like="divided by d_k"),
    mistake(GQA, "divided by d_k", """
        group = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        scores = q @ k.transpose(-2, -1) / q.shape[-1]
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        return torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0) @ v
    """, detects=nb05.HINT_DIVIDED_BY_D_K),
    mistake(GQA, "scaled by sqrt(L_k), the number of keys",
            edit("math.sqrt(q.shape[-1])", "math.sqrt(k.shape[-2])"),
            detects=nb05.HINT_SCALED_BY_LENGTH),
    mistake(GQA, "scaled by sqrt(h * d_k), all the query heads' width",
            edit("math.sqrt(q.shape[-1])", "math.sqrt(q.shape[1] * q.shape[-1])"),
            hint="scale by sqrt(d_k), one head's width q.shape[-1], not sqrt(h * d_k): each "
                 "head's scores are dot products of d_k features"),
    mistake(GQA, "softmax over the query axis", [edit("allowed,", "~allowed,"), edit("=-1", "=-2")],
            detects=nb05.HINT_SOFTMAX_AXIS, like="mask inverted"),
    mistake(GQA, "mask applied after the softmax", [
        insert_after("scores = q @", "weights = torch.softmax(scores, dim=-1)"),
        replace_line("scores.masked_fill", "weights = weights * allowed"), delete("nan_to_num"),
    ], hint="set blocked scores to -inf BEFORE the softmax "
            "(scores.masked_fill(~allowed, float('-inf')))"),
    mistake(GQA, "mask inverted", [edit("q.shape[-1]", "math.sqrt(q.shape[-1])"), edit("~", "")],
            detects=nb05.HINT_MASK_INVERTED, like="divided by d_k"),
    mistake(GQA, "-1e9 instead of -inf", edit('float("-inf")', "-1e9"),
            detects=nb05.HINT_FINITE_FILL, like="rows without an allowed key left as NaN"),
    mistake(GQA, "rows without an allowed key left as NaN", [
        edit("q.shape[-1]", "math.sqrt(q.shape[-1])"),
        replace_line("return torch.nan_to_num", "return torch.softmax(scores, dim=-1) @ v"),
    ], detects=nb10.HINT_GQA_NAN, like="divided by d_k"),
    mistake(GQA, "allowed=None not handled", [
        replace_line("if allowed is not None:",
                     'scores = scores.masked_fill(~allowed, float("-inf"))'),
        delete('scores = scores.masked_fill(allowed, float("-inf"))'),
    ], detects=nb05.HINT_ALLOWED_NONE, like="mask inverted"),
    mistake(GQA, "the mask ignored", [
        delete("if allowed is not None:"),
        delete('scores = scores.masked_fill(~allowed, float("-inf"))'),
    ], hint="apply allowed: scores.masked_fill(~allowed, float('-inf'))",
       like="rows without an allowed key left as NaN"),
    mistake(GQA, "PyTorch's fused attention with enable_gqa",
            "return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, enable_gqa=True)",
            detects=nb10.HINT_GQA_OWN),
    mistake(GQA, "a helper of its own name that hands over to PyTorch's fused attention", """
        def scaled_dot_product_attention(q, k, v, allowed):
            return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
        group = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        return scaled_dot_product_attention(q, k, v, allowed)""", detects=nb10.HINT_GQA_OWN),
    mistake(GQA, "heads merged in the output (B, L_q, h * d_k)",
            edit("return weights @ v", "return (weights @ v).transpose(1, 2).flatten(2)"),
            detects=nb10.HINT_GQA_SHAPE),
    mistake(GQA, "queries scaled in place (q /= sqrt(d_k))", replace_line(
        "scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])",
        "q /= math.sqrt(q.shape[-1])\nscores = q @ k.transpose(-2, -1)"),
            detects=nb10.HINT_GQA_IN_PLACE),
    alternative(GQA, "notebook 05's attention pasted in as a helper of the same name", """
        def scaled_dot_product_attention(q, k, v, allowed):
            s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
            if allowed is not None:
                s = s.masked_fill(~allowed, float("-inf"))
            return torch.softmax(s, dim=-1).nan_to_num(0.0) @ v
        g = q.shape[1] // k.shape[1]
        return scaled_dot_product_attention(
            q, k.repeat_interleave(g, 1), v.repeat_interleave(g, 1), allowed)"""),
    alternative(GQA, "queries grouped instead of keys repeated", """
        B, h, L_q, d_k = q.shape
        h_kv, L_k = k.shape[1], k.shape[2]
        groups = q.reshape(B, h_kv, h // h_kv, L_q, d_k)
        scores = groups @ k[:, :, None].transpose(-2, -1) / d_k ** 0.5
        scores = scores.reshape(B, h, L_q, L_k)
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        weights = torch.nan_to_num(scores.softmax(dim=-1), nan=0.0)
        out = weights.reshape(B, h_kv, h // h_kv, L_q, L_k) @ v[:, :, None]
        return out.reshape(B, h, L_q, d_k)"""),
    alternative(GQA, "einsum with an index per head", """
        h, h_kv = q.shape[1], k.shape[1]
        index = torch.arange(h) // (h // h_kv)
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k[:, index]) / math.sqrt(q.shape[-1])
        if allowed is not None:
            scores = torch.where(allowed, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
        weights = torch.softmax(scores, dim=-1)
        weights = torch.where(torch.isnan(weights), torch.zeros_like(weights), weights)
        return torch.einsum("bhqk,bhkd->bhqd", weights, v[:, index])"""),
    alternative(GQA, "a loop over the query heads", """
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
        return torch.stack(outputs, dim=1)"""),
    alternative(GQA, "expand in the right order, finite fill, zeroed rows", """
        B, h_kv, L_k, d_k = k.shape
        group = q.shape[1] // h_kv
        k = k[:, :, None].expand(B, h_kv, group, L_k, d_k).reshape(B, -1, L_k, d_k)
        v = v[:, :, None].expand(B, h_kv, group, L_k, d_k).reshape(B, -1, L_k, d_k)
        scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
        if allowed is None:
            return torch.softmax(scores, dim=-1) @ v
        scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
        weights = torch.softmax(scores, dim=-1) * allowed
        return weights @ v"""),
    # -- kv_cache_bytes ----------------------------------------------------------------------------
    mistake(CACHE_BYTES, "keys only", edit("2", "n_layers"),
            hint="the cache holds a key AND a value per layer, head and token: multiply by 2",
            like="one layer"),
    mistake(CACHE_BYTES, "bits instead of bytes", edit("/ 2**30", "* 8"),
            hint="bytes_per_value is already in bytes: no factor 8", like="returned in GiB"),
    mistake(CACHE_BYTES, "bytes per token (length left out)",
            "return 2 * n_layers * n_kv_heads * d_k * bytes_per_value",
            hint="every cached token stores its keys and values: multiply by length"),
    mistake(CACHE_BYTES, "one layer", "return 2 * n_kv_heads * d_k * length * bytes_per_value",
            hint="every block has its own cache: multiply by n_layers"),
    mistake(CACHE_BYTES, "returned in GiB",
            "return 2 * n_layers * n_kv_heads * d_k * length * bytes_per_value / 2**30",
            hint="return bytes; divide by 2**30 only when printing GiB"),
    mistake(CACHE_BYTES, "bytes_per_value ignored (bfloat16 written in)",
            "return 2 * n_layers * n_kv_heads * d_k * length * 2",
            hint="use the bytes_per_value argument: 4 for float32, 2 for bfloat16"),
    mistake(CACHE_BYTES, "d_k left out",
            "return 2 * n_layers * n_kv_heads * length * bytes_per_value",
            hint="each key and each value has d_k numbers: multiply by d_k"),
    mistake(CACHE_BYTES, "the factor 2 counted twice",
            edit("return per_token", "return 2 * per_token"),
            hint="one factor 2 for keys and values, then bytes_per_value"),
    mistake(CACHE_BYTES, "returned in KiB", edit("* bytes_per_value", "* bytes_per_value / 1024"),
            hint="return bytes; divide by 1024 only when printing KiB"),
    mistake(CACHE_BYTES, "returned in a list",
            edit("return per_token * length * bytes_per_value",
                 "return [per_token * length * bytes_per_value]"), detects=nb10.HINT_KV_NUMBER),
    alternative(CACHE_BYTES, "math.prod",
                "return math.prod([2, n_layers, n_kv_heads, d_k, length, bytes_per_value])"),
    alternative(CACHE_BYTES, "layer by layer", """
        per_layer = 2 * n_kv_heads * d_k * length * bytes_per_value
        return sum(per_layer for _ in range(n_layers))"""),
    # -- Qwen3Block --------------------------------------------------------------------------------
    mistake(BLOCK, "QK-norm created but not applied", [
        edit("self.q_norm(q)", "q"), edit("self.k_norm(k)", "k"),
    ], hint="apply QK-norm to every head: q = self.q_norm(q), k = self.k_norm(k), after splitting "
            "the heads and before RoPE"),
    mistake(BLOCK, "QK-norm after RoPE", [
        edit("q)", "rotate_pairs(q, *rope))"), edit("(k)", "(rotate_pairs(k, *rope))"),
    ], hint="normalise first, then rotate: rotate_pairs(self.q_norm(q), cos, sin)",
       like="RoPE left out"),
    mistake(BLOCK, "q_norm used for the keys", edit("(self.k_norm(", "(self.q_norm("),
            hint="the keys have their own norm: k = self.k_norm(k)"),
    mistake(BLOCK, "RoPE left out", [
        edit("rotate_pairs(self.q_norm(q), *rope", "self.q_norm(q"),
        edit("rotate_pairs(self.k_norm(k), *rope", "self.k_norm(k"),
    ], hint=HINT_NO_ROPE),
    mistake(BLOCK, "RoPE on the values too",
            replace_line("v = self.k_norm(v)", "v = rotate_pairs(v, *rope)"),
            hint="RoPE rotates queries and keys only; the values are not rotated",
            like="the values normalised by k_norm"),
    mistake(BLOCK, "the values normalised by k_norm", [
        replace_line("k = rotate_pairs(self.k_norm(k), *rope)",
                     "k = rotate_pairs(self.k_norm(k), *rope)\nv = self.k_norm(v)"),
    ], hint="QK-norm is for queries and keys only; the values are not normalised"),
    mistake(BLOCK, "no causal mask", edit(", allowed", ""),
            hint="build the causal mask: allowed[i, j] = j <= T + i, so no query reads a later "
                 "token"),
    mistake(BLOCK, "causal mask aligned top-left", [
        edit("torch.arange(T + L)[None, :] <= positions",
             "torch.ones(L, T + L, dtype=torch.bool).tril()"),
    ], hint="with T cached tokens, new query i sits at position T + i: allowed[i, j] = j <= T + i, "
            "the triangle aligned to the bottom right of (L, T + L)"),
    mistake(BLOCK, "the cache put after the new tokens", [
        edit("past[0], k", "k, past[0]"), edit("past[1], v", "v, past[1]"),
    ], hint="the cache holds the EARLIER tokens: torch.cat([past[0], k], dim=2), past first"),
    mistake(BLOCK, "only the new keys and values returned", [
        replace_line("v = rotate_pairs(v, *rope)", "new = (k, v)"), edit(", (k, v)", ", new"),
    ], detects=nb10.HINT_CACHE_SHAPE, like="RoPE on the values too"),
    mistake(BLOCK, "keys cached before RoPE", [
        replace_line("k = rotate_pairs(self.k_norm(k), *rope)",
                     "k_plain = self.k_norm(k)\nk = rotate_pairs(k_plain, *rope)"),
        replace_line("return u + self.mlp(self.norm2(u)), (k, v)",
                     "cached = k_plain if past is None else torch.cat([past[0], k_plain],"
                     " dim=2)\n"
                     "return u + self.mlp(self.norm2(u)), (cached, v)"),
    ], hint="cache the keys after RoPE (and after QK-norm): later tokens compare with them as they "
            "are"),
    mistake(BLOCK, "no residual around the attention", edit("h + self.W_O", "self.W_O"),
            hint="add the residual: U = H + W_O(...)"),
    mistake(BLOCK, "no residual around the MLP", edit("u + self.mlp", "self.mlp"),
            hint="add the residual: H_out = U + mlp(norm2(U))"),
    mistake(BLOCK, "the attention's residual from the normalised x",
            edit("u = h + self.W_O", "u = x + self.W_O"),
            hint="the residual adds the block's input h, not its normalised copy: U = h + "
                 "W_O(...)"),
    mistake(BLOCK, "the MLP's residual from h", edit("return u + self.mlp", "return h + self.mlp"),
            hint="the MLP's residual starts from U, the attention step's output: U + mlp(...)"),
    mistake(BLOCK, "a token may not read itself", edit("<= positions", "< positions"),
            hint="a token may read itself: allowed[i, j] = j <= T + i (<=, not <)"),
    mistake(BLOCK, "positions counted from T + 1", edit("torch.arange(T, T + L)",
                                                         "torch.arange(T + 1, T + L + 1)"),
            hint="new query i sits at position T + i (positions count from 0): allowed[i, j] = j "
                 "<= T + i"),
    mistake(BLOCK, "the keys not rotated", edit("k = rotate_pairs(self.k_norm(k), *rope)",
                                                "k = self.k_norm(k)"), hint=HINT_NO_ROPE),
    mistake(BLOCK, "norm1 and norm2 swapped", [
        edit("= self.norm1", "= self.norm2"), edit("(self.norm2", "(self.norm1"),
    ], hint="norm1 before the attention, norm2 before the MLP"),
    mistake(BLOCK, "the MLP reads H", edit("(u", "(h"),
            hint="the MLP reads U, the output of the attention step: U + mlp(norm2(U))"),
    mistake(BLOCK, "heads merged without the transpose",
            edit("+ self.W_O(y.transpose(1, 2).reshape(B, L,", "+ self.W_O(y.reshape(B, L,"),
            hint="merge as in notebook 05: y.transpose(1, 2).reshape(B, L, n_heads * d_k)"),
    mistake(BLOCK, "heads split without the transpose", [
        edit("L, self.n_heads, self.d_k).transpose(1, 2", "self.n_heads, L, self.d_k"),
        edit("L, self.n_kv_heads, self.d_k).transpose(1, 2",
             "self.n_kv_heads, L, self.d_k",
             count=2),
    ], hint="split as in notebook 05: view(B, L, n, d_k), then .transpose(1, 2)"),
    mistake(BLOCK, "no norm before the attention", replace_line("x = self.norm1(h)", "x = h"),
            hint="normalise the attention's input: x = self.norm1(h)"),
    mistake(BLOCK, "LayerNorm instead of RMSNorm", [
        edit("self.norm1 = nn.RMSNorm(d_model, eps", "self.norm1 = nn.LayerNorm(d_model, eps"),
        edit("self.norm2 = nn.RMSNorm(d_model, eps", "self.norm2 = nn.LayerNorm(d_model, eps"),
    ], detects=nb10.HINT_NORM1_MISSING),
    mistake(BLOCK, "eps not passed to the norms", edit(", eps=eps", "", count=4),
            detects=nb10.HINT_BLOCK_EPS),
    mistake(BLOCK, "projections with biases", edit(", bias=False", "", count=4),
            detects=nb10.HINT_PROJECTIONS),
    mistake(BLOCK, "W_K and W_V sized for every query head", [
        edit("self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)",
             "self.W_K = nn.Linear(d_model, n_heads * d_k, bias=False)"),
        edit("d_model, n_kv_heads * d_k", "d_model, n_heads * d_k"),
    ], detects=nb10.HINT_W_KV_SHAPE),
    mistake(BLOCK, "QK-norm over the whole width d_model", [
        edit("self.q_norm = nn.RMSNorm(d_k", "self.q_norm = nn.RMSNorm(d_model"),
        edit("(d_k", "(d_model"),
    ], detects=nb10.HINT_QK_NORM_SHAPE),
    mistake(BLOCK, "the MLP 4 d_model wide (notebook 06's habit)", edit("d_hidden", "4 * d_model"),
            detects=nb10.HINT_MLP_SHAPE),
    mistake(BLOCK, "returns only the output", edit(", (k, v)", ""), detects=nb10.HINT_BLOCK_PAIR),
    mistake(BLOCK, "adds into h in place", [
        replace_line("u = h + self.W_O(y.transpose",
                     "u = h\n"
                     "u += self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))"),
    ], detects=nb10.HINT_BLOCK_IN_PLACE),
    mistake(BLOCK, "the package's production block", ("""
        from attnbook.lm.qwen3 import ModernBlock, Qwen3LMConfig
        self.inner = ModernBlock(Qwen3LMConfig(
            vocab_size=1, d_model=d_model, n_heads=n_heads, n_kv_heads=n_kv_heads, d_k=d_k,
            d_hidden=d_hidden, eps=eps))""", """
        return self.inner(h, rope, past)"""), detects=nb10.HINT_DELEGATE),
    mistake(BLOCK, "q_norm and k_norm swapped",
            [edit("self.q_norm(q)", "self.k_norm(q)"), edit("self.k_norm(k)", "self.q_norm(k)")],
            hint="q_norm goes on the queries, k_norm on the keys"),
    mistake(BLOCK, "QK-norms without a gamma (elementwise_affine=False)",
            edit("nn.RMSNorm(d_k, eps=eps)", "nn.RMSNorm(d_k, eps=eps, elementwise_affine=False)",
                 count=2), detects=nb10.HINT_QK_NORM_MISSING),
    mistake(BLOCK, "norm2 a LayerNorm",
            edit("self.norm2 = nn.RMSNorm", "self.norm2 = nn.LayerNorm"),
            detects=nb10.HINT_NORM2_MISSING),
    mistake(BLOCK, "a plain MLP (nn.Sequential) instead of SwiGLU", edit(
        "self.mlp = SwiGLU(d_model, d_hidden)",
        "self.mlp = nn.Sequential(nn.Linear(d_model, d_hidden, bias=False), nn.SiLU(),\n"
        "                         nn.Linear(d_hidden, d_model, bias=False))"),
            detects=nb10.HINT_MLP_MISSING),
    mistake(BLOCK, "W_Q sized d_model -> d_model",
            edit("W_Q = nn.Linear(d_model, n_heads * d_k", "W_Q = nn.Linear(d_model, d_model"),
            detects=nb10.HINT_W_Q_SHAPE),
    mistake(BLOCK, "W_O sized d_model -> d_model",
            edit("nn.Linear(n_heads * d_k, d_model", "nn.Linear(d_model, d_model"),
            detects=nb10.HINT_W_O_SHAPE),
    mistake(BLOCK, "keys and values split into n_heads heads",
            edit("view(B, L, self.n_kv_heads", "view(B, L, self.n_heads", count=2),
            detects=nb10.HINT_SIZES_FROM_INPUT),
    alternative(BLOCK, "unflatten, flatten and a shifted triangle", ("""
        self.mlp = SwiGLU(d_model, d_hidden)
        self.norm2 = nn.RMSNorm(d_model, eps=eps)
        self.W_O = nn.Linear(n_heads * d_k, d_model, bias=False)
        self.k_norm = nn.RMSNorm(d_k, eps=eps)
        self.q_norm = nn.RMSNorm(d_k, eps=eps)
        self.W_V = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_K = nn.Linear(d_model, n_kv_heads * d_k, bias=False)
        self.W_Q = nn.Linear(d_model, n_heads * d_k, bias=False)
        self.norm1 = nn.RMSNorm(d_model, eps=eps)""", """
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
        return out, (k, v)""")),
    alternative(BLOCK, "PyTorch's fused attention with an explicit bottom-right mask",
                edit("grouped_query_attention(q, k, v, allowed",
                     "F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, enable_gqa=True")),
    alternative(BLOCK, "the empty cache as a zero-length pair", (None, """
        B, L, _ = h.shape
        x = self.norm1(h)
        q = self.W_Q(x).view(B, L, self.n_heads, self.d_k).transpose(1, 2)
        k = self.W_K(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        v = self.W_V(x).view(B, L, self.n_kv_heads, self.d_k).transpose(1, 2)
        q = rotate_pairs(self.q_norm(q), *rope)
        k = rotate_pairs(self.k_norm(k), *rope)
        if past is None:
            past = (k[:, :, :0], v[:, :, :0])
        k = torch.cat([past[0], k], dim=2)
        v = torch.cat([past[1], v], dim=2)
        T = k.shape[2] - L
        positions = torch.arange(T, T + L)[:, None]
        allowed = torch.arange(T + L)[None, :] <= positions
        y = grouped_query_attention(q, k, v, allowed)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return u + self.mlp(self.norm2(u)), (k, v)""")),
    # -- Qwen3Decoder ------------------------------------------------------------------------------
    mistake(DECODER, "the final RMSNorm created, not applied", edit("self.norm(h)", "h"),
            hint="apply self.norm to H_N before the head: head(norm(h))"),
    mistake(DECODER, "the final RMSNorm applied after every block",
            insert_after("h, _ = block(h, rope)", "h = self.norm(h)"),
            hint="the final RMSNorm comes once, after the last block: head(norm(h_N))"),
    mistake(DECODER, "the final RMSNorm applied to the embeddings instead of H_N", [
        edit("h = self.embed(idx)", "h = self.norm(self.embed(idx))"),
        edit("self.head(self.norm(h))", "self.head(h)"),
    ], hint="the final RMSNorm goes after the last block, on H_N: head(norm(h_N)), not on the "
            "embeddings"),
    mistake(DECODER, "the RoPE tables passed as (sin, cos)",
            edit("rope = (self.rope_cos[:L], self.rope_sin[:L])",
                 "rope = (self.rope_sin[:L], self.rope_cos[:L])"),
            hint="rope is (cos, sin), in that order: (self.rope_cos[:L], self.rope_sin[:L])"),
    mistake(DECODER, "the head not tied", [
        delete("if tie_weights:"), delete("self.head.weight = self.embed.weight"),
    ], detects=nb10.HINT_HEAD_UNTIED),
    mistake(DECODER, "the head always tied", replace_line("if tie_weights:", "if True:"),
            detects=nb10.HINT_HEAD_OWN),
    mistake(DECODER, "a head with a bias", edit(", bias=False", ""), detects=nb10.HINT_HEAD_BIAS),
    mistake(DECODER, "a LayerNorm as the final norm",
            edit("nn.RMSNorm(d_model, eps=eps", "nn.LayerNorm(d_model"),
            detects=nb10.HINT_FINAL_NORM_LAYERNORM),
    mistake(DECODER, "one block repeated", [
        replace_line("Qwen3Block(d_model,",
                     "[Qwen3Block(d_model, n_heads, n_kv_heads, d_k, d_hidden, eps)] * n_layers)"),
    ], detects=nb10.HINT_BLOCKS_LIST),
    mistake(DECODER, "the block's pair not unpacked", edit(", _", ""),
            detects=nb10.HINT_UNPACK_BLOCK),
    mistake(DECODER, "the blocks' outputs discarded", edit("h, _ = block", "block"),
            hint="a block returns (h_out, (k, v)): keep h_out as the next hidden state"),
    mistake(DECODER, "softmax applied to the logits", edit("h))", "h)).softmax(dim=-1)"),
            detects=nb06.HINT_LOGITS_SOFTMAXED),
    mistake(DECODER, "embedding scaled by sqrt(d_model)",
            edit("idx)", "idx) * self.embed.embedding_dim ** 0.5"),
            hint="no sqrt(d_model) factor in Qwen3: H0 = E[w]"),
    mistake(DECODER, "the RoPE tables not sliced to L",
            edit("[:L], self.rope_sin[:L]", ", self.rope_sin"), detects=nb10.HINT_SIZE_MISMATCH),
    mistake(DECODER, "the eps argument not passed on", [edit(", eps)", ")"), edit(", eps=eps", "")],
            detects=nb10.HINT_DECODER_EPS),
    mistake(DECODER, "the last block skipped", edit("self.blocks:", "self.blocks[:-1]:"),
            hint="run every block: for block in self.blocks"),
    mistake(DECODER, "every block fed the embeddings", [
        replace_line("h = self.embed(idx)", "e = self.embed(idx)\nh = e"), edit("(h,", "(e,"),
    ], hint="feed each block the previous block's output, not the embeddings"),
    mistake(DECODER, "the package's production decoder", ("""
        from attnbook.lm.qwen3 import Qwen3LM, Qwen3LMConfig
        self.inner = Qwen3LM(Qwen3LMConfig(vocab_size, d_model, n_layers, n_heads, n_kv_heads,
                                           d_k, d_hidden, max_len, rope_base, eps, tie_weights))
        self.embed, self.blocks = self.inner.embed, self.inner.blocks
        self.norm, self.head = self.inner.norm, self.inner.head""", """
        return self.inner(idx)"""), detects=nb10.HINT_DELEGATE),
    mistake(DECODER, "the head a function of the embedding, not a module",
            edit("self.head = nn.Linear(d_model, vocab_size, bias=False)",
                 "self.head = lambda x: x @ self.embed.weight.T"), detects=nb10.HINT_TIED),
    mistake(DECODER, "the embedding named tok_embed", edit("self.embed", "self.tok_embed", count=3),
            detects=nb10.HINT_EMBEDDING_MISSING),
    mistake(DECODER, "the final norm named final_norm",
            edit("self.norm", "self.final_norm", count=2), detects=nb10.HINT_FINAL_NORM_MISSING),
    mistake(DECODER, "an extra persistent buffer (a mask) that the checkpoint lacks", replace_line(
        "self.embed = nn.Embedding(vocab_size, d_model)",
        "self.embed = nn.Embedding(vocab_size, d_model)\n"
        "self.register_buffer(\"mask\", torch.ones(max_len, max_len).tril())"),
            detects=nb10.HINT_ATTRIBUTE_NAMES),
    alternative(DECODER, "a list comprehension and the embedding tied the other way", [
        edit(")] * n_layers", "=eps) for _ in range(n_layers)]"),
        edit("self.head.weight = self.embed.weight", "self.embed.weight = self.head.weight"),
        replace_line("L = idx.shape[1]",
                     "rope = (self.rope_cos.narrow(0, 0, idx.shape[1]),"
                     " self.rope_sin.narrow(0, 0, idx.shape[1]))"),
        delete("rope = (self.rope_cos[:L], self.rope_sin[:L])"),
        edit("block in self.blocks", "i in range(len(self.blocks))"),
        edit(", _ = block(h, rope)", " = self.blocks[i](h, rope)[0]"),
    ], like="one block repeated"),
    alternative(DECODER, "the head as the embedding's matrix in forward", [
        replace_line("if True:", "if tie_weights:"),
        edit("self.head(self.norm(h))", "self.norm(h) @ self.head.weight.T"),
    ], like="the head always tied"),
    # -- decode_step -------------------------------------------------------------------------------
    mistake(DECODE, "positions not offset by the cache",
            edit("T:T + L], model.rope_sin[T:T + L", ":L], model.rope_sin[:L"),
            hint="the new tokens sit at positions T, T + 1, ...: use rows T .. T + L_new - 1 of "
                 "the tables, model.rope_cos[T:T + L_new], with T the cache's length "
                 "cache[0][0].shape[2]"),
    mistake(DECODE, "positions offset by one",
            edit(":T + L], model.rope_sin[T:T", " + 1:T + 1 + L], model.rope_sin[T + 1:T + 1"),
            hint="the first new token sits at position T (positions count from 0): "
                 "model.rope_cos[T:T + L_new]"),
    mistake(DECODE, "the cache not passed to the blocks",
            edit(", None if cache is None else cache[i]", ""),
            hint="give every block its own cached keys and values: block(h, rope, cache[i])"),
    mistake(DECODE, "the cache ignored entirely (the full model on the new tokens)", [
        edit("T:T + L], model.rope_sin[T:T + L", ":L], model.rope_sin[:L"),
        edit(", None if cache is None else cache[i]", ""),
    ], hint="give every block its own cached keys and values, block(h, rope, cache[i]), and the "
            "RoPE rows of positions T .. T + L_new - 1"),
    mistake(DECODE, "the first block's cache given to every block", edit("[i", "[0"),
            hint="block i gets cache[i], its own keys and values"),
    mistake(DECODE, "the old cache returned",
            edit(", new_cache", ", new_cache if cache is None else cache"),
            detects=nb10.HINT_DECODE_CACHE_LENGTH.format(T=5, L_new=1)),
    mistake(DECODE, "the final RMSNorm forgotten", edit("model.norm(h)", "h"),
            hint="apply model.norm before the head: model.head(model.norm(h))"),
    mistake(DECODE, "T read from the head axis", edit("2", "1"),
            hint="the cached tokens are on the third axis: T = cache[0][0].shape[2]"),
    mistake(DECODE, "T read as len(cache), the number of blocks",
            edit("cache[0][0].shape[2]", "len(cache)"),
            hint="len(cache) counts the blocks; the cached tokens are on the third axis of each "
                 "key tensor: T = cache[0][0].shape[2]"),
    mistake(DECODE, "only the last token's logits returned", edit("))", "))[:, -1]"),
            detects=nb10.HINT_DECODE_LAST_ONLY),
    mistake(DECODE, "cache=None not handled", edit("0 if cache is None else cache", "cache"),
            detects=nb10.HINT_DECODE_NO_CACHE),
    mistake(DECODE, "the caller's cache list updated in place", [
        replace_line("new_cache = []", "if cache is None:\n    cache = [None] * len(model.blocks)"),
        replace_line("h, kv = block", "h, cache[i] = block(h, rope, cache[i])"),
        delete("new_cache.append(kv)"), edit(", new_cache", ", cache"),
    ], detects=nb10.HINT_DECODE_IN_PLACE),
    mistake(DECODE, "each block's keys and values stacked into one tensor",
            edit("new_cache.append(kv)", "new_cache.append(torch.stack(kv))"),
            detects=nb10.HINT_DECODE_CACHE_LIST),
    mistake(DECODE, "the block's pair not unpacked (no cache collected)", [
        edit("h, kv = block", "h = block"), delete("new_cache.append(kv)"),
    ], detects=nb10.HINT_BLOCK_PAIR_CRASH),
    mistake(DECODE, "returns only the logits",
            edit("model.head(model.norm(h)), new_cache", "model.head(model.norm(h))"),
            detects=nb10.HINT_DECODE_PAIR),
    alternative(DECODE, "zip over blocks and caches, T from the values", [
        edit("0].shape[2]", "1].size(-2)"),
        edit("L = token_ids.shape[1]", "positions = torch.arange(T, T + token_ids.shape[1])"),
        edit("T:T + L], model.rope_sin[T:T + L", "positions], model.rope_sin[positions"),
        replace_line("h = model.embed(token_ids)",
                     "h = model.embed(token_ids)\n"
                     "pasts = [None] * len(model.blocks) if cache is None else cache"),
        edit("i, block in enumerate(model.blocks", "block, past in zip(model.blocks, pasts"),
        edit("kv = block(h, rope", "(k, v) = block(h, rope, past"), edit("kv", "(k, v)"),
    ], like="the cache not passed to the blocks"),
    alternative(DECODE, "its own length check with model.max_len, a while loop", """
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
        return model.head(model.norm(h)), new_cache"""),
    alternative(DECODE, "no_grad and a list comprehension over pairs", """
        with torch.no_grad():
            T = cache[0][0].shape[2] if cache else 0
            L = token_ids.shape[1]
            cos, sin = model.rope_cos[T:T + L], model.rope_sin[T:T + L]
            h = model.embed(token_ids)
            pairs = []
            for i, block in enumerate(model.blocks):
                h, pair = block(h, (cos, sin), cache[i] if cache else None)
                pairs.append(pair)
            return model.head(model.norm(h)), [tuple(p) for p in pairs]"""),
])
