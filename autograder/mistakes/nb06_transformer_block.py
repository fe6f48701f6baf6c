"""Notebook 06 catalogue: the mistakes students make, and correct answers written otherwise.

Classes have two solution regions, `__init__` and `forward`; a variant gives a body for each
(None keeps the reference body).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from grader.catalogue import alternative, mistake  # noqa: E402

REFERENCE_FORWARD = """
    L = idx.shape[1]
    h = self.embed(idx)
    rope = None
    if self.positions == "learned":
        h = h + self.pos(torch.arange(L))
    elif self.positions == "sinusoidal":
        h = h + self.sinusoids[:L]
    elif self.positions == "rope":
        rope = (self.rope_cos[:L], self.rope_sin[:L])
    for block in self.blocks:
        h = block(h, rope)
    {tail}
"""


def decoder_forward(tail="return self.head(self.ln_final(h))"):
    """The reference forward body of Decoder with its last line replaced by `tail`."""
    return REFERENCE_FORWARD.replace("{tail}", tail)


DECODER_INIT = """
    self.embed = nn.Embedding(vocab_size, d_model)
    if positions == "learned":
        self.pos = nn.Embedding(max_len, d_model)
    if positions == "sinusoidal":
        self.register_buffer("sinusoids", sinusoid_table(max_len, d_model), persistent=False)
    if positions == "rope":
        cos, sin = rope_tables(max_len, d_model // n_heads)
        self.register_buffer("rope_cos", cos, persistent=False)
        self.register_buffer("rope_sin", sin, persistent=False)
    self.blocks = nn.ModuleList(PreNormBlock(d_model, n_heads) for _ in range(n_layers))
    self.ln_final = nn.LayerNorm(d_model)
    self.head = nn.Linear(d_model, vocab_size)
"""

MISTAKES = [
    # layer_norm
    mistake("layer_norm", "unbiased variance", """
        mean = h.mean(dim=-1, keepdim=True)
        var = h.var(dim=-1, keepdim=True)
        return gamma * (h - mean) / torch.sqrt(var + eps) + beta
    """, hint="biased variance"),
    mistake("layer_norm", "eps outside the square root", """
        mean = h.mean(dim=-1, keepdim=True)
        std = h.std(dim=-1, keepdim=True, unbiased=False)
        return gamma * (h - mean) / (std + eps) + beta
    """, hint="eps goes inside the square root"),
    mistake("layer_norm", "no eps at all", """
        mean = h.mean(dim=-1, keepdim=True)
        var = ((h - mean) ** 2).mean(dim=-1, keepdim=True)
        return gamma * (h - mean) / torch.sqrt(var) + beta
    """, hint="eps inside the square root"),
    mistake("layer_norm", "normalising over the batch axis", """
        mean = h.mean(dim=0, keepdim=True)
        var = ((h - mean) ** 2).mean(dim=0, keepdim=True)
        return gamma * (h - mean) / torch.sqrt(var + eps) + beta
    """, hint="the last axis"),
    mistake("layer_norm", "BatchNorm statistics: every axis but the features", """
        dims = tuple(range(h.dim() - 1)) or (0,)
        mean = h.mean(dim=dims, keepdim=True)
        var = ((h - mean) ** 2).mean(dim=dims, keepdim=True)
        return gamma * (h - mean) / torch.sqrt(var + eps) + beta
    """, hint="the last axis"),
    mistake("layer_norm", "statistics over the whole tensor", """
        mean = h.mean()
        var = ((h - mean) ** 2).mean()
        return gamma * (h - mean) / torch.sqrt(var + eps) + beta
    """, hint="the last axis"),
    mistake("layer_norm", "sqrt of the standard deviation", """
        mean = h.mean(dim=-1, keepdim=True)
        std = h.std(dim=-1, keepdim=True, unbiased=False)
        return gamma * (h - mean) / torch.sqrt(std + eps) + beta
    """, hint="sqrt(var + eps)"),
    mistake("layer_norm", "eps argument ignored", """
        mean = h.mean(dim=-1, keepdim=True)
        var = ((h - mean) ** 2).mean(dim=-1, keepdim=True)
        return gamma * (h - mean) / torch.sqrt(var + 1e-5) + beta
    """, hint="use the eps argument"),
    mistake("layer_norm", "gamma and beta swapped", """
        mean = h.mean(dim=-1, keepdim=True)
        var = ((h - mean) ** 2).mean(dim=-1, keepdim=True)
        return beta * (h - mean) / torch.sqrt(var + eps) + gamma
    """, hint="gamma scales"),
    mistake("layer_norm", "gamma and beta ignored", """
        mean = h.mean(dim=-1, keepdim=True)
        var = ((h - mean) ** 2).mean(dim=-1, keepdim=True)
        return (h - mean) / torch.sqrt(var + eps)
    """, hint="gamma * normalised + beta"),
    mistake("layer_norm", "RMS normalisation (mean not subtracted)", """
        return gamma * h / torch.sqrt((h ** 2).mean(dim=-1, keepdim=True) + eps) + beta
    """, hint="subtract each token's mean"),
    mistake("layer_norm", "keepdim forgotten", """
        mean = h.mean(dim=-1)
        var = ((h - mean) ** 2).mean(dim=-1)
        return gamma * (h - mean) / torch.sqrt(var + eps) + beta
    """, hint="keepdim=True"),
    mistake("layer_norm", "changes h in place", """
        h -= h.mean(dim=-1, keepdim=True)
        var = (h ** 2).mean(dim=-1, keepdim=True)
        return gamma * h / torch.sqrt(var + eps) + beta
    """, hint="new tensor"),
    # MLP
    mistake("MLP", "tanh approximation of GELU", (None, """
        return self.fc_out(F.gelu(self.fc_in(x), approximate="tanh"))
    """), hint="exact GELU"),
    mistake("MLP", "ReLU instead of GELU", (None, """
        return self.fc_out(torch.relu(self.fc_in(x)))
    """), hint="not ReLU"),
    mistake("MLP", "no activation", (None, """
        return self.fc_out(self.fc_in(x))
    """), hint="apply GELU between fc_in and fc_out"),
    mistake("MLP", "an extra GELU at the output", (None, """
        return F.gelu(self.fc_out(F.gelu(self.fc_in(x))))
    """), hint="GELU goes between the layers only"),
    mistake("MLP", "residual added inside the MLP", (None, """
        return x + self.fc_out(F.gelu(self.fc_in(x)))
    """), hint="the block adds the residual"),
    mistake("MLP", "layer sizes swapped", ("""
        self.fc_in = nn.Linear(d_hidden, d_model)
        self.fc_out = nn.Linear(d_model, d_hidden)
    """, None), hint="fc_in maps d_model -> d_hidden"),
    mistake("MLP", "linear layers without bias", ("""
        self.fc_in = nn.Linear(d_model, d_hidden, bias=False)
        self.fc_out = nn.Linear(d_hidden, d_model, bias=False)
    """, None), hint="keep the bias"),
    mistake("MLP", "an nn.Sequential instead of the named layers", ("""
        self.net = nn.Sequential(nn.Linear(d_model, d_hidden), nn.GELU(),
                                 nn.Linear(d_hidden, d_model))
    """, """
        return self.net(x)
    """), hint="self.fc_in = nn.Linear"),
    # PreNormBlock
    mistake("PreNormBlock", "post-norm where pre-norm is asked", (None, """
        u = self.ln1(h + self.attn(h, rope))
        return self.ln2(u + self.mlp(u))
    """), hint="bypass"),
    mistake("PreNormBlock", "missing residual around the attention", (None, """
        u = self.attn(self.ln1(h), rope)
        return u + self.mlp(self.ln2(u))
    """), hint="U = H + MHA(LN1(H))"),
    mistake("PreNormBlock", "missing residual around the MLP", (None, """
        u = h + self.attn(self.ln1(h), rope)
        return self.mlp(self.ln2(u))
    """), hint="H_out = U + MLP(LN2(U))"),
    mistake("PreNormBlock", "residual taken from the normalised input", (None, """
        x = self.ln1(h)
        u = x + self.attn(x, rope)
        y = self.ln2(u)
        return y + self.mlp(y)
    """), hint="not LN1(H)"),
    mistake("PreNormBlock", "attention and MLP in parallel", (None, """
        return h + self.attn(self.ln1(h), rope) + self.mlp(self.ln2(h))
    """), hint="the MLP reads U"),
    mistake("PreNormBlock", "the MLP branch reads H instead of U", (None, """
        u = h + self.attn(self.ln1(h), rope)
        return u + self.mlp(self.ln2(h))
    """), hint="the MLP reads U"),
    mistake("PreNormBlock", "LN1 reused before the MLP", (None, """
        u = h + self.attn(self.ln1(h), rope)
        return u + self.mlp(self.ln1(u))
    """), hint="its own LayerNorm"),
    mistake("PreNormBlock", "no LayerNorm in the branches", (None, """
        u = h + self.attn(h, rope)
        return u + self.mlp(u)
    """), hint="normalise the input of each branch"),
    mistake("PreNormBlock", "rope not passed to the attention", (None, """
        u = h + self.attn(self.ln1(h))
        return u + self.mlp(self.ln2(u))
    """), hint="pass the rope tables on"),
    mistake("PreNormBlock", "MLP hidden width d_model", ("""
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, d_model)
    """, None), hint="4 * d_model"),
    mistake("PreNormBlock", "attention built from nn.MultiheadAttention", ("""
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = nn.MultiheadAttention(d_model, n_heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)
    """, None), hint="causal_self_attention(d_model, n_heads)"),
    mistake("PreNormBlock", "adds into h in place", (None, """
        h += self.attn(self.ln1(h), rope)
        return h + self.mlp(self.ln2(h))
    """), hint="not h += ..."),
    # Decoder
    mistake("Decoder", "the final LayerNorm forgotten (created, not applied)",
            (None, decoder_forward(tail="return self.head(h)")), hint="apply self.ln_final"),
    mistake("Decoder", "the final LayerNorm forgotten (never created)", (
        DECODER_INIT.replace("    self.ln_final = nn.LayerNorm(d_model)\n", ""),
        decoder_forward(tail="return self.head(h)")), hint="create self.ln_final"),
    mistake("Decoder", "the head without its bias", (
        DECODER_INIT.replace("nn.Linear(d_model, vocab_size)",
                             "nn.Linear(d_model, vocab_size, bias=False)"), None),
            hint="WITH its bias"),
    mistake("Decoder", "softmax applied to the logits",
            (None, decoder_forward(tail="return self.head(self.ln_final(h)).softmax(dim=-1)")),
            hint="return the logits themselves"),
    mistake("Decoder", "learned positions never added",
            (None, decoder_forward().replace("h = h + self.pos(torch.arange(L))", "pass")),
            hint="add the position vectors"),
    mistake("Decoder", "sinusoids never added",
            (None, decoder_forward().replace("h = h + self.sinusoids[:L]", "pass")),
            hint="add the position vectors"),
    mistake("Decoder", "positions looked up with the token ids",
            (None, decoder_forward().replace("self.pos(torch.arange(L))", "self.pos(idx)")),
            hint="torch.arange(L)"),
    mistake("Decoder", "RoPE tables not passed to the blocks",
            (None, decoder_forward().replace("h = block(h, rope)", "h = block(h)")),
            hint="pass rope"),
    mistake("Decoder", "token embedding scaled by sqrt(d_model)",
            (None, decoder_forward().replace(
                "h = self.embed(idx)", "h = self.embed(idx) * self.embed.embedding_dim ** 0.5")),
            hint="no sqrt(d_model)"),
    mistake("Decoder", "one block repeated n_layers times", (
        DECODER_INIT.replace(
            "nn.ModuleList(PreNormBlock(d_model, n_heads) for _ in range(n_layers))",
            "nn.ModuleList([PreNormBlock(d_model, n_heads)] * n_layers)"), None),
            hint="repeats ONE block"),
    mistake("Decoder", "a trainable position table for every option", (
        DECODER_INIT.replace('    if positions == "learned":\n        self.pos',
                             '    if True:\n        self.pos'), None),
            hint="only positions='learned' has trainable"),
    mistake("Decoder", "RoPE tables built for the full width d_model", (
        DECODER_INIT.replace("rope_tables(max_len, d_model // n_heads)",
                             "rope_tables(max_len, d_model)"), None),
            hint="d_model // n_heads"),
    # count_parameters
    mistake("count_parameters", "attention biases forgotten", """
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        block = 4 * d * d + (d * hidden + hidden) + (hidden * d + d) + 4 * d
        total = V * d + n_layers * block + 2 * d + V
        total += max_len * d if positions == "learned" else 0
        return total + (0 if tie_weights else V * d)
    """, hint="4 (d^2 + d)"),
    mistake("count_parameters", "LayerNorm parameters forgotten", """
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d)
        total = V * d + n_layers * block + V
        total += max_len * d if positions == "learned" else 0
        return total + (0 if tie_weights else V * d)
    """, hint="gamma and beta"),
    mistake("count_parameters", "the final LayerNorm forgotten", """
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
        total = V * d + n_layers * block + V
        total += max_len * d if positions == "learned" else 0
        return total + (0 if tie_weights else V * d)
    """, hint="LN_final"),
    mistake("count_parameters", "the head's bias forgotten", """
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
        total = V * d + n_layers * block + 2 * d
        total += max_len * d if positions == "learned" else 0
        return total + (0 if tie_weights else V * d)
    """, hint="bias c of V numbers"),
    mistake("count_parameters", "tied head weight counted twice", """
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
        total = 2 * V * d + n_layers * block + 2 * d + V
        return total + (max_len * d if positions == "learned" else 0)
    """, hint="count V * d once"),
    mistake("count_parameters", "position table counted for every option", """
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
        total = V * d + max_len * d + n_layers * block + 2 * d + V
        return total + (0 if tie_weights else V * d)
    """, hint="only positions='learned'"),
    mistake("count_parameters", "attention counted once per head", """
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        block = n_heads * 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
        total = V * d + n_layers * block + 2 * d + V
        total += max_len * d if positions == "learned" else 0
        return total + (0 if tie_weights else V * d)
    """, hint="the heads split d"),
    mistake("count_parameters", "d_hidden ignored", """
        d, V = d_model, vocab_size
        hidden = 4 * d
        block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
        total = V * d + n_layers * block + 2 * d + V
        total += max_len * d if positions == "learned" else 0
        return total + (0 if tie_weights else V * d)
    """, hint="use d_hidden"),
    mistake("count_parameters", "only one block counted", """
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
        total = V * d + block + 2 * d + V
        total += max_len * d if positions == "learned" else 0
        return total + (0 if tie_weights else V * d)
    """, hint="multiply one block by n_layers"),
    mistake("count_parameters", "token embedding not counted", """
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
        total = n_layers * block + 2 * d + V + V * d
        return total + (max_len * d if positions == "learned" else 0)
    """, hint="each hold V * d numbers"),
    # -- added in the adversarial review --------------------------------------------------
    mistake("layer_norm", "statistics over a hard-coded dim=1", """
        mean = h.mean(dim=1, keepdim=True)
        var = ((h - mean) ** 2).mean(dim=1, keepdim=True)
        return gamma * (h - mean) / torch.sqrt(var + eps) + beta
    """, hint="the last axis"),
    mistake("layer_norm", "variance of h around zero (mean of h^2)", """
        mean = h.mean(dim=-1, keepdim=True)
        var = (h ** 2).mean(dim=-1, keepdim=True)
        return gamma * (h - mean) / torch.sqrt(var + eps) + beta
    """, hint="mean squared deviation"),
    mistake("layer_norm", "divided by the L2 norm of the centred token", """
        centred = h - h.mean(dim=-1, keepdim=True)
        return gamma * centred / torch.sqrt((centred ** 2).sum(dim=-1, keepdim=True) + eps) + beta
    """, hint="mean, not the sum"),
    mistake("layer_norm", "beta added before scaling by gamma", """
        mean = h.mean(dim=-1, keepdim=True)
        var = ((h - mean) ** 2).mean(dim=-1, keepdim=True)
        return gamma * ((h - mean) / torch.sqrt(var + eps) + beta)
    """, hint="gamma * normalised + beta"),
    mistake("layer_norm", "calls PyTorch's own layer norm", """
        return torch.nn.functional.layer_norm(h, h.shape[-1:], gamma, beta, eps)
    """, hint="write the mean"),
    mistake("MLP", "SiLU instead of GELU", (None, """
        return self.fc_out(F.silu(self.fc_in(x)))
    """), hint="the activation is GELU"),
    mistake("MLP", "sigmoid approximation of GELU, x * sigmoid(1.702 x)", (None, """
        a = self.fc_in(x)
        return self.fc_out(a * torch.sigmoid(1.702 * a))
    """), hint="exact GELU"),
    mistake("MLP", "GELU applied to the input before fc_in", (None, """
        return self.fc_out(self.fc_in(F.gelu(x)))
    """), hint="between fc_in and fc_out"),
    mistake("MLP", "hidden width ignored (d_model -> d_model)", ("""
        self.fc_in = nn.Linear(d_model, d_model)
        self.fc_out = nn.Linear(d_model, d_model)
    """, None), hint="fc_in maps d_model -> d_hidden"),
    mistake("PreNormBlock", "LN1 and LN2 swapped", (None, """
        u = h + self.attn(self.ln2(h), rope)
        return u + self.mlp(self.ln1(u))
    """), hint="its own LayerNorm"),
    mistake("PreNormBlock", "second residual adds H instead of U", (None, """
        u = h + self.attn(self.ln1(h), rope)
        return h + self.mlp(self.ln2(u))
    """), hint="H_out = U + MLP(LN2(U))"),
    mistake("PreNormBlock", "LayerNorm on the branch outputs instead of inputs", (None, """
        u = h + self.ln1(self.attn(h, rope))
        return u + self.ln2(self.mlp(u))
    """), hint="normalise the input of each branch"),
    mistake("PreNormBlock", "the output normalised again", (None, """
        u = h + self.attn(self.ln1(h), rope)
        return self.ln2(u + self.mlp(self.ln2(u)))
    """), hint="nothing may touch the bypass"),
    mistake("PreNormBlock", "one LayerNorm shared by both branches", ("""
        self.ln = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.mlp = MLP(d_model, 4 * d_model)
    """, """
        u = h + self.attn(self.ln(h), rope)
        return u + self.mlp(self.ln(u))
    """), hint="create self.ln1"),
    mistake("Decoder", "block outputs discarded (block(h) not assigned)",
            (None, decoder_forward().replace("h = block(h, rope)", "block(h, rope)")),
            hint="h = block(h"),
    mistake("Decoder", "final LayerNorm applied after every block",
            (None, decoder_forward(tail="return self.head(h)").replace(
                "h = block(h, rope)", "h = self.ln_final(block(h, rope))")),
            hint="once, after the last block"),
    mistake("Decoder", "positions added before every block",
            (None, decoder_forward().replace(
                "h = h + self.pos(torch.arange(L))", "pass").replace(
                "h = block(h, rope)",
                "h = block(h + self.pos(torch.arange(L)) if self.positions == 'learned' "
                "else h, rope)")),
            hint="once, to the token embedding"),
    mistake("Decoder", "sinusoid table not sliced to the sequence length",
            (None, decoder_forward().replace("self.sinusoids[:L]", "self.sinusoids")),
            hint="[:L]"),
    mistake("Decoder", "blocks in a plain Python list", (
        DECODER_INIT.replace(
            "nn.ModuleList(PreNormBlock(d_model, n_heads) for _ in range(n_layers))",
            "[PreNormBlock(d_model, n_heads) for _ in range(n_layers)]"), None),
            hint="nn.ModuleList"),
    mistake("Decoder", "sinusoid table stored as a trainable nn.Parameter", (
        DECODER_INIT.replace(
            'self.register_buffer("sinusoids", sinusoid_table(max_len, d_model), '
            'persistent=False)',
            "self.sinusoids = nn.Parameter(sinusoid_table(max_len, d_model))"), None),
            hint="fixed tables"),
    mistake("count_parameters", "LayerNorm counted with gamma only", """
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 2 * d
        total = V * d + n_layers * block + d + V
        total += max_len * d if positions == "learned" else 0
        return total + (0 if tie_weights else V * d)
    """, hint="gamma and beta"),
    mistake("count_parameters", "MLP biases forgotten", """
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        block = 4 * (d * d + d) + 2 * d * hidden + 4 * d
        total = V * d + n_layers * block + 2 * d + V
        total += max_len * d if positions == "learned" else 0
        return total + (0 if tie_weights else V * d)
    """, hint="fc_in and fc_out have biases"),
    mistake("count_parameters", "W_O forgotten (three projections)", """
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        block = 3 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
        total = V * d + n_layers * block + 2 * d + V
        total += max_len * d if positions == "learned" else 0
        return total + (0 if tie_weights else V * d)
    """, hint="W_O"),
    mistake("count_parameters", "sinusoids counted as parameters", """
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
        total = V * d + n_layers * block + 2 * d + V
        total += max_len * d if positions in ("learned", "sinusoidal") else 0
        return total + (0 if tie_weights else V * d)
    """, hint="trainable (max_len, d) table"),
    # concept checks
    mistake("answer_residual_shape", "picks the hidden width", 'answer_residual_shape = "A"',
            hint="same (L, d) shape"),
    mistake("answer_norm_axis", "thinks LayerNorm uses the batch", 'answer_norm_axis = "B"',
            hint="last axis"),
    mistake("answer_norm_eval", "thinks LayerNorm keeps running statistics",
            'answer_norm_eval = "A"', hint="no running statistics"),
    mistake("answer_mlp_mixing", "thinks the MLP mixes tokens", 'answer_mlp_mixing = "A"',
            hint="token-wise"),
    mistake("answer_bypass", "thinks pre-norm normalises block outputs", 'answer_bypass = "B"',
            hint="untouched"),
    mistake("answer_causal_gradients", "thinks training can open the future",
            'answer_causal_gradients = "A"', hint="whatever the weights"),
    mistake("answer_block_params", "counts every head's projections",
            'answer_block_params = "C"', hint="heads add no weights"),
    mistake("answer_tied", "thinks tying shares the blocks", 'answer_tied = "A"',
            hint="same (V, d)"),
]

ALTERNATIVES = [
    alternative("layer_norm", "torch.var with unbiased=False and rsqrt", """
        mean = torch.mean(h, dim=-1, keepdim=True)
        var = torch.var(h, dim=-1, unbiased=False, keepdim=True)
        return (h - mean) * torch.rsqrt(var + eps) * gamma + beta
    """),
    alternative("layer_norm", "E[h^2] - E[h]^2 and correction=0 spelled out", """
        d = h.shape[-1]
        mean = h.sum(dim=-1, keepdim=True) / d
        var = (h * h).sum(dim=-1, keepdim=True) / d - mean ** 2
        normalised = (h - mean) / (var + eps) ** 0.5
        return normalised * gamma.reshape(*([1] * (h.dim() - 1)), d) + beta
    """),
    alternative("layer_norm", "var with correction=0, gamma and beta via addcmul", """
        mean = h.mean(-1, keepdim=True)
        var = h.var(-1, keepdim=True, correction=0)
        return torch.addcmul(beta, gamma, (h - mean) / torch.sqrt(var + eps))
    """),
    alternative("MLP", "nn.GELU module attribute", ("""
        self.fc_in = nn.Linear(d_model, d_hidden)
        self.act = nn.GELU()
        self.fc_out = nn.Linear(d_hidden, d_model)
    """, """
        return self.fc_out(self.act(self.fc_in(x)))
    """)),
    alternative("MLP", "GELU from erf, weights applied by hand", (None, """
        a = x @ self.fc_in.weight.T + self.fc_in.bias
        g = 0.5 * a * (1.0 + torch.erf(a / math.sqrt(2.0)))
        return g @ self.fc_out.weight.T + self.fc_out.bias
    """)),
    alternative("PreNormBlock", "named steps and keyword rope", (None, """
        attended = self.attn(self.ln1(h), rope=rope)
        u = torch.add(h, attended)
        transformed = self.mlp(self.ln2(u))
        return u + transformed
    """)),
    alternative("PreNormBlock", "layers created in another order, rope branch", ("""
        self.mlp = MLP(d_model, 4 * d_model)
        self.ln2 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln1 = nn.LayerNorm(d_model, eps=1e-5)
    """, """
        x = self.ln1(h)
        u = h + (self.attn(x) if rope is None else self.attn(x, rope))
        return u + self.mlp(self.ln2(u))
    """)),
    alternative("Decoder", "list comprehension, batch-shaped positions, persistent buffer", (
        DECODER_INIT.replace(
            "nn.ModuleList(PreNormBlock(d_model, n_heads) for _ in range(n_layers))",
            "nn.ModuleList([PreNormBlock(d_model, n_heads) for _ in range(n_layers)])")
        .replace('sinusoid_table(max_len, d_model), persistent=False)',
                 'sinusoid_table(max_len, d_model))'),
        decoder_forward().replace("self.pos(torch.arange(L))",
                                  "self.pos(torch.arange(L).unsqueeze(0).expand_as(idx))")
        .replace("self.sinusoids[:L]", "self.sinusoids[:L].unsqueeze(0)"))),
    alternative("Decoder", "tables computed in forward, positions via if-chain", ("""
        self.n_heads, self.d_k = n_heads, d_model // n_heads
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == "learned":
            self.pos = nn.Embedding(max_len, d_model)
        self.blocks = nn.ModuleList()
        for _ in range(n_layers):
            self.blocks.append(PreNormBlock(d_model, n_heads))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=True)
    """, """
        B, L = idx.shape
        x = self.embed(idx)
        rope = None
        if self.positions == "learned":
            x = x + self.pos.weight[:L]
        if self.positions == "sinusoidal":
            x = x + sinusoid_table(L, x.shape[-1])
        if self.positions == "rope":
            rope = rope_tables(L, self.d_k)
        for block in self.blocks:
            x = block(x, rope=rope)
        x = self.ln_final(x)
        return x @ self.head.weight.T + self.head.bias
    """)),
    alternative("count_parameters", "component dictionary, summed", """
        d, V, N = d_model, vocab_size, n_layers
        d_h = d_hidden if d_hidden is not None else 4 * d
        parts = {
            "embedding": V * d,
            "positions": max_len * d if positions == "learned" else 0,
            "attention": N * 4 * (d * d + d),
            "mlp": N * (2 * d * d_h + d_h + d),
            "layer norms": N * 2 * 2 * d + 2 * d,
            "head": V + (0 if tie_weights else V * d),
        }
        return float(sum(parts.values()))
    """),
    alternative("count_parameters", "a loop over the layers", """
        hidden = d_hidden or 4 * d_model
        total = vocab_size * d_model
        if positions == "learned":
            total += max_len * d_model
        for _ in range(n_layers):
            total += 2 * d_model + 4 * d_model * (d_model + 1)
            total += hidden * (d_model + 1) + d_model * (hidden + 1) + 2 * d_model
        total += 2 * d_model
        total += vocab_size * (1 if tie_weights else d_model + 1)
        return total
    """),
    # -- added in the adversarial review --------------------------------------------------
    alternative("layer_norm", "var_mean with correction=0, eps folded into the mean", """
        var, mean = torch.var_mean(h, dim=-1, keepdim=True, correction=0)
        x_hat = (h - mean) / (((h - mean) ** 2 + eps).mean(dim=-1, keepdim=True)).sqrt()
        return x_hat * gamma + beta
    """),
    alternative("layer_norm", "einsum for the mean, float64 internally", """
        d = h.shape[-1]
        work = h.double()
        mean = torch.einsum("...d->...", work)[..., None] / d
        centred = work - mean
        var = torch.einsum("...d,...d->...", centred, centred)[..., None] / d
        out = centred / torch.sqrt(var + eps) * gamma.double() + beta.double()
        return out.to(torch.promote_types(h.dtype, gamma.dtype))
    """),
    alternative("layer_norm", "in place on a copy", """
        out = h.clone()
        out -= out.mean(dim=-1, keepdim=True)
        out /= torch.sqrt(out.pow(2).mean(dim=-1, keepdim=True) + eps)
        out = out * gamma
        out += beta
        return out
    """),
    alternative("MLP", "F.linear with the layers' weights and functional gelu", (None, """
        hidden = F.linear(x, self.fc_in.weight, self.fc_in.bias)
        return F.linear(nn.functional.gelu(hidden, approximate="none"), self.fc_out.weight,
                        self.fc_out.bias)
    """)),
    alternative("MLP", "layers created with keyword arguments, GELU module inline", ("""
        self.fc_in = nn.Linear(in_features=d_model, out_features=d_hidden, bias=True)
        self.fc_out = nn.Linear(in_features=d_hidden, out_features=d_model, bias=True)
    """, """
        return self.fc_out(nn.GELU()(self.fc_in(x)))
    """)),
    alternative("PreNormBlock", "sum written out in one expression", (None, """
        a = self.attn(self.ln1(h), rope)
        return h + a + self.mlp(self.ln2(h + a))
    """)),
    alternative("PreNormBlock", "in place on a clone of h", (None, """
        out = h.clone()
        out += self.attn(self.ln1(h), rope)
        out += self.mlp(self.ln2(out))
        return out
    """)),
    alternative("Decoder", "nn.Sequential of blocks, iterated; F.embedding and F.linear", (
        DECODER_INIT.replace(
            "nn.ModuleList(PreNormBlock(d_model, n_heads) for _ in range(n_layers))",
            "nn.Sequential(*[PreNormBlock(d_model, n_heads) for _ in range(n_layers)])"),
        """
        B, L = idx.shape
        h = F.embedding(idx, self.embed.weight)
        rope = None
        if self.positions == "learned":
            h = h + F.embedding(torch.arange(L).expand(B, L), self.pos.weight)
        elif self.positions == "sinusoidal":
            h = h + self.sinusoids[None, :L, :]
        elif self.positions == "rope":
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for i in range(len(self.blocks)):
            h = self.blocks[i](h, rope)
        return F.linear(self.ln_final(h), self.head.weight, self.head.bias)
    """)),
    alternative("count_parameters", "collected per layer with integer arithmetic", """
        d, V = d_model, vocab_size
        hidden = d_hidden if d_hidden is not None else 4 * d
        per_block = 4 * d * d + 2 * d * hidden + hidden + 9 * d
        embeddings = V * d + (max_len * d if positions == "learned" else 0)
        head = V if tie_weights else V * (d + 1)
        return int(embeddings + n_layers * per_block + 2 * d + head)
    """),
    alternative("answer_tied", "lower case", 'answer_tied = "c"'),
]

# -- round 3: correct answers written the ways other students write them ------------------
_ROUND3_ALTERNATIVES = [
    # layer_norm
    alternative("layer_norm", "std_mean with correction=0, squared back", """
        std, mean = torch.std_mean(h, dim=-1, keepdim=True, correction=0)
        return gamma * (h - mean) / torch.sqrt(std ** 2 + eps) + beta
    """),
    alternative("layer_norm", "a loop over the tokens of a flattened view", """
        d = h.shape[-1]
        rows = []
        for token in h.reshape(-1, d):
            mu = token.sum() / d
            var = ((token - mu) ** 2).sum() / d
            rows.append((token - mu) / (var + eps) ** 0.5 * gamma + beta)
        return torch.stack(rows).reshape(h.shape)
    """),
    alternative("layer_norm", "recursion: one token vector at a time", """
        if h.dim() > 1:
            rows = []
            for row in h:
                rows.append(layer_norm(row, gamma, beta, eps))
            return torch.stack(rows)
        mean = h.mean()
        var = ((h - mean) ** 2).mean()
        return gamma * (h - mean) / torch.sqrt(var + eps) + beta
    """),
    alternative("layer_norm", "through numpy and back", """
        import numpy as np
        a = h.detach().cpu().numpy()
        mean = a.mean(axis=-1, keepdims=True)
        var = a.var(axis=-1, keepdims=True)
        out = (a - mean) / np.sqrt(var + eps)
        return torch.from_numpy(out).to(h.dtype) * gamma + beta
    """),
    alternative("layer_norm", "method chain, eps as a 0-d float32 tensor", """
        eps_t = torch.tensor(eps)  # float32, 0-d: it does not lower h's dtype
        mean = h.mean(-1, keepdim=True)
        var = h.sub(mean).square().mean(-1, keepdim=True)
        return h.sub(mean).mul(var.add(eps_t).rsqrt()).mul(gamma).add(beta)
    """),
    alternative("layer_norm", "returns float64 even for a float32 input", """
        x = h.to(torch.float64)
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, keepdim=True, unbiased=False)
        return (x - mean) / torch.sqrt(var + eps) * gamma.double() + beta.double()
    """),
    alternative("layer_norm", "gamma and beta as numpy arrays turned into tensors", """
        gamma = torch.as_tensor(gamma, dtype=h.dtype, device=h.device)
        beta = torch.as_tensor(beta, dtype=h.dtype, device=h.device)
        centred = h - h.mean(dim=-1, keepdim=True)
        std = torch.sqrt(centred.pow(2).mean(dim=-1, keepdim=True) + eps)
        return torch.addcdiv(beta, centred * gamma, std)
    """),
    # MLP
    alternative("MLP", "an nn.Sequential that reuses fc_in and fc_out", ("""
        self.fc_in = nn.Linear(d_model, d_hidden)
        self.fc_out = nn.Linear(d_hidden, d_model)
        self.net = nn.Sequential(self.fc_in, nn.GELU(), self.fc_out)
    """, """
        return self.net(x)
    """)),
    alternative("MLP", "Sequential built first, names as aliases, dropout p=0", ("""
        self.net = nn.Sequential(nn.Linear(d_model, d_hidden), nn.GELU(),
                                 nn.Linear(d_hidden, d_model), nn.Dropout(0.0))
        self.fc_in, self.fc_out = self.net[0], self.net[2]
    """, """
        return self.net(x)
    """)),
    alternative("MLP", "own initialisation in __init__, GELU module created in forward", ("""
        self.fc_in = nn.Linear(d_model, d_hidden)
        self.fc_out = nn.Linear(d_hidden, d_model)
        nn.init.normal_(self.fc_in.weight, std=0.02)
        nn.init.zeros_(self.fc_in.bias)
        nn.init.normal_(self.fc_out.weight, std=0.02)
        nn.init.zeros_(self.fc_out.bias)
    """, """
        return self.fc_out(torch.nn.GELU(approximate="none")(self.fc_in(x)))
    """)),
    alternative("MLP", "GELU as x * Phi(x) with torch.special.ndtr", (None, """
        a = self.fc_in(x)
        return self.fc_out(a * torch.special.ndtr(a))
    """)),
    alternative("MLP", "GELU from a float32 Normal distribution's cdf", (None, """
        a = self.fc_in(x)
        phi = torch.distributions.Normal(0.0, 1.0).cdf(a)
        return self.fc_out(a * phi)
    """)),
    alternative("MLP", "addmm on flattened tokens, reshaped back", (None, """
        shape = x.shape
        flat = x.reshape(-1, shape[-1])
        hidden = torch.addmm(self.fc_in.bias, flat, self.fc_in.weight.t())
        out = torch.addmm(self.fc_out.bias, F.gelu(hidden), self.fc_out.weight.t())
        return out.reshape(*shape[:-1], -1)
    """)),
    alternative("MLP", "einsum with the layers' weights, erfc form of Phi", (None, """
        a = torch.einsum("...i,oi->...o", x, self.fc_in.weight) + self.fc_in.bias
        g = a * 0.5 * torch.erfc(-a / math.sqrt(2.0))
        return torch.einsum("...i,oi->...o", g, self.fc_out.weight) + self.fc_out.bias
    """)),
    # PreNormBlock
    alternative("PreNormBlock", "dropout p=0 on both branches", ("""
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)
        self.drop = nn.Dropout(p=0.0)
    """, """
        u = h + self.drop(self.attn(self.ln1(h), rope))
        return u + self.drop(self.mlp(self.ln2(u)))
    """)),
    alternative("PreNormBlock", "norms also kept in a ModuleList created first", ("""
        self.norms = nn.ModuleList([nn.LayerNorm(d_model), nn.LayerNorm(d_model)])
        self.ln1, self.ln2 = self.norms
        self.attn = causal_self_attention(d_model, n_heads)
        self.mlp = MLP(d_model, 4 * d_model)
    """, None)),
    alternative("PreNormBlock", "F.layer_norm with the modules' own parameters", (None, """
        d = h.shape[-1]
        x = F.layer_norm(h, (d,), self.ln1.weight, self.ln1.bias, self.ln1.eps)
        u = h + self.attn(x, rope)
        y = F.layer_norm(u, (d,), self.ln2.weight, self.ln2.bias, self.ln2.eps)
        return u + self.mlp(y)
    """)),
    alternative("PreNormBlock", "the learner's own layer_norm from exercise 1", (None, """
        u = h + self.attn(layer_norm(h, self.ln1.weight, self.ln1.bias, self.ln1.eps), rope)
        return u + self.mlp(layer_norm(u, self.ln2.weight, self.ln2.bias, self.ln2.eps))
    """)),
    alternative("PreNormBlock", "a cached causal-mask buffer it never needs, forward()", ("""
        self.ln1 = nn.LayerNorm(d_model)
        self.ln2 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.mlp = MLP(d_model, 4 * d_model)
        self.register_buffer("mask", torch.ones(64, 64, dtype=torch.bool).tril())
    """, """
        branch = self.attn.forward(self.ln1(h), rope) if rope else self.attn.forward(self.ln1(h))
        u = torch.add(h, branch)
        return torch.add(u, self.mlp.forward(self.ln2(u)))
    """)),
    alternative("PreNormBlock", "two sublayers in a loop over (norm, branch) pairs", (None, """
        out = h
        for norm, branch in ((self.ln1, lambda z: self.attn(z, rope)), (self.ln2, self.mlp)):
            out = out + branch(norm(out))
        return out
    """)),
    # Decoder
    alternative("Decoder", "embedding output updated in place, dropout p=0", (
        DECODER_INIT + "    self.drop = nn.Dropout(0.0)\n",
        """
        B, L = idx.shape
        h = self.embed(idx)
        rope = None
        if self.positions == "learned":
            h += self.pos(torch.arange(L, device=idx.device))
        elif self.positions == "sinusoidal":
            h += self.sinusoids[:L].to(h.dtype)
        elif self.positions == "rope":
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        h = self.drop(h)
        for block in self.blocks:
            h = block(h, rope=rope)
        return self.head(self.ln_final(h))
    """)),
    alternative("Decoder", "own sinusoid table built with math in a loop", (
        DECODER_INIT.replace(
            'self.register_buffer("sinusoids", sinusoid_table(max_len, d_model), persistent=False)',
            """table = torch.zeros(max_len, d_model)
        for l in range(max_len):
            for i in range(d_model // 2):
                w = 10000.0 ** (-2 * i / d_model)
                table[l, 2 * i] = math.sin(l * w)
                table[l, 2 * i + 1] = math.cos(l * w)
        self.register_buffer("sinusoids", table, persistent=False)"""),
        None)),
    alternative("Decoder", "blocks added with add_module, a cached mask buffer", (
        DECODER_INIT.replace(
            "self.blocks = nn.ModuleList(PreNormBlock(d_model, n_heads) for _ in range(n_layers))",
            """self.blocks = nn.ModuleList()
    for i in range(n_layers):
        self.blocks.add_module(str(i), PreNormBlock(d_model, n_heads))
    self.register_buffer("causal", torch.ones(max_len, max_len, dtype=torch.bool).tril(),
                         persistent=False)"""),
        None)),
    alternative("Decoder", "embedding rows indexed, reduce over the blocks, einsum head", (
        None, """
        from functools import reduce
        B, L = idx.shape
        h = self.embed.weight[idx]
        rope = None
        if self.positions == "learned":
            h = h + self.pos(torch.arange(L, device=idx.device))[None].expand(B, -1, -1)
        elif self.positions == "sinusoidal":
            h = h + self.sinusoids[:L].unsqueeze(0).expand(B, -1, -1)
        elif self.positions == "rope":
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        h = reduce(lambda acc, block: block(acc, rope), self.blocks, h)
        h = self.ln_final(h)
        return torch.einsum("bld,vd->blv", h, self.head.weight) + self.head.bias
    """)),
    alternative("Decoder", "a persistent buffer of position ids, sliced in forward", (
        DECODER_INIT + "    self.register_buffer(\"position_ids\", torch.arange(max_len))\n",
        decoder_forward().replace("self.pos(torch.arange(L))", "self.pos(self.position_ids[:L])"))),
    alternative("Decoder", "positions dispatched through a dict of functions", (None, """
        L = idx.shape[1]
        h = self.embed(idx)
        add = {
            "learned": lambda: self.pos.weight[:L],
            "sinusoidal": lambda: self.sinusoids[:L],
        }
        if self.positions in add:
            h = h + add[self.positions]()
        rope = (self.rope_cos[:L], self.rope_sin[:L]) if self.positions == "rope" else None
        for i, block in enumerate(self.blocks):
            h = block(h, rope) if rope is not None else block(h)
        return self.head(self.ln_final(h))
    """)),
    alternative("Decoder", "RoPE tables as a float64 pair stored then cast in forward", (
        DECODER_INIT.replace(
            "cos, sin = rope_tables(max_len, d_model // n_heads)",
            """d_k = d_model // n_heads
        theta = 10000.0 ** (-torch.arange(0, d_k, 2, dtype=torch.float64) / d_k)
        angles = torch.arange(max_len, dtype=torch.float64)[:, None] * theta
        cos, sin = angles.cos(), angles.sin()"""),
        decoder_forward().replace(
            "rope = (self.rope_cos[:L], self.rope_sin[:L])",
            "rope = (self.rope_cos[:L].to(h.dtype), self.rope_sin[:L].to(h.dtype))"))),
    # count_parameters
    alternative("count_parameters", "a numpy int64 from np.sum of the parts", """
        import numpy as np
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        parts = [V * d, max_len * d * (positions == "learned"),
                 n_layers * (4 * d * (d + 1) + d * hidden + hidden + hidden * d + d + 4 * d),
                 2 * d, V, 0 if tie_weights else V * d]
        return np.sum(np.array(parts, dtype=np.int64))
    """),
    alternative("count_parameters", "a 0-d torch tensor", """
        d, V = d_model, vocab_size
        hidden = d_hidden if d_hidden is not None else 4 * d
        block = 4 * (d * d + d) + 2 * d * hidden + hidden + d + 2 * 2 * d
        total = V * d + n_layers * block + 2 * d + V * (1 + d * (not tie_weights))
        if positions == "learned":
            total += max_len * d
        return torch.tensor(total, dtype=torch.int64)
    """),
    alternative("count_parameters", "shapes listed and multiplied with math.prod", """
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        shapes = [(V, d)]
        if positions == "learned":
            shapes.append((max_len, d))
        per_block = [(d, d), (d,)] * 4 + [(hidden, d), (hidden,), (d, hidden), (d,)]
        per_block += [(d,)] * 4
        shapes += per_block * n_layers
        shapes += [(d,), (d,), (V,)]
        if not tie_weights:
            shapes.append((V, d))
        return sum(math.prod(s) for s in shapes)
    """),
    alternative("count_parameters", "float arithmetic with a float hidden width", """
        hidden = 4.0 * d_model if d_hidden is None else float(d_hidden)
        d = float(d_model)
        block = 4.0 * d * (d + 1.0) + hidden * (d + 1.0) + d * (hidden + 1.0) + 4.0 * d
        head = vocab_size * (1.0 if tie_weights else d + 1.0)
        pos = max_len * d if positions == "learned" else 0.0
        return round(vocab_size * d + pos + n_layers * block + 2.0 * d + head)
    """),
    alternative("count_parameters", "counted on a meta-device copy of the reference shapes", """
        d, V = d_model, vocab_size
        hidden = d_hidden or 4 * d
        with torch.device("meta"):
            layers = [nn.Linear(d, d) for _ in range(4)]
            layers += [nn.Linear(d, hidden), nn.Linear(hidden, d)]
            layers += [nn.LayerNorm(d), nn.LayerNorm(d)]
            per_block = sum(p.numel() for m in layers for p in m.parameters())
        total = V * d + n_layers * per_block + 2 * d + V
        total += max_len * d if positions == "learned" else 0
        return total + (0 if tie_weights else V * d)
    """),
]
ALTERNATIVES += _ROUND3_ALTERNATIVES

# -- round 4: default-dtype (float32) tensors built inside forward ---------------------------
# Right in the float32 world learners use (and the module checks of this notebook run in
# float32); the mistakes keep such a tensor and must still fail.
_SINUSOIDS_IN_FORWARD = """
    L = idx.shape[1]
    h = self.embed(idx)
    rope = None
    if self.positions == "learned":
        h = h + self.pos(torch.arange(L))
    elif self.positions == "sinusoidal":
        d = h.shape[-1]
        pe = torch.zeros(L, d)
        where = torch.arange(L).unsqueeze(1)
        div = torch.exp(torch.arange(0, d, 2) * (-math.log(10000.0) / d))
        pe[:, 0::2] = torch.sin(where * div)
        pe[:, 1::2] = torch.cos(where * div)
        h = h + pe
    elif self.positions == "rope":
        rope = (self.rope_cos[:L], self.rope_sin[:L])
    for block in self.blocks:
        h = block(h, rope)
    {tail}
"""
_NO_SINUSOID_BUFFER = DECODER_INIT.replace(
    'self.register_buffer("sinusoids", sinusoid_table(max_len, d_model), persistent=False)',
    "pass  # the table is built in forward")

_ROUND4_ALTERNATIVES = [
    alternative("MLP", "GELU with a default-dtype sqrt(2) tensor, torch.zeros accumulator",
                (None, """
        a = self.fc_in(x)
        g = 0.5 * a * (1.0 + torch.erf(a / torch.sqrt(torch.tensor(2.0))))
        out = torch.zeros(*x.shape[:-1], self.fc_out.out_features)
        out += self.fc_out(g)
        return out
    """)),
    alternative("MLP", "hidden activations times a torch.ones gate", (None, """
        gate = torch.ones(self.fc_in.out_features)
        return self.fc_out(F.gelu(self.fc_in(x)) * gate)
    """)),
    alternative("PreNormBlock", "results written into torch.zeros and torch.empty buffers",
                (None, """
        B, L, d = h.shape
        u = torch.zeros(B, L, d)
        u[:] = h + self.attn(self.ln1(h), rope)
        out = torch.empty(B, L, d)
        out.copy_(u + self.mlp(self.ln2(u)))
        return out
    """)),
    alternative("PreNormBlock", "a float tril mask built and checked, a ones gate", (None, """
        B, L, d = h.shape
        mask = torch.ones(L, L).tril()  # what the attention layer does inside, for show
        assert float(mask.sum()) == L * (L + 1) / 2
        gate = torch.ones(1, 1, d)
        u = h + gate * self.attn(self.ln1(h), rope)
        return u + gate * self.mlp(self.ln2(u))
    """)),
    alternative("Decoder", "sinusoid table built in forward with torch.zeros", (
        _NO_SINUSOID_BUFFER,
        _SINUSOIDS_IN_FORWARD.format(tail="return self.head(self.ln_final(h))"))),
    alternative("Decoder", "RoPE tables filled into torch.zeros in forward, h from zeros", ("""
        self.d_k = d_model // n_heads
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == "learned":
            self.pos = nn.Embedding(max_len, d_model)
        if positions == "sinusoidal":
            self.register_buffer("sinusoids", sinusoid_table(max_len, d_model),
                                 persistent=False)
        self.blocks = nn.ModuleList(PreNormBlock(d_model, n_heads) for _ in range(n_layers))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)
    """, """
        B, L = idx.shape
        h = torch.zeros(B, L, self.embed.embedding_dim) + self.embed(idx)
        rope = None
        if self.positions == "learned":
            h = h + self.pos(torch.arange(L))
        elif self.positions == "sinusoidal":
            h = h + self.sinusoids[:L]
        elif self.positions == "rope":
            cos, sin = torch.zeros(L, self.d_k // 2), torch.zeros(L, self.d_k // 2)
            for l in range(L):
                for i in range(self.d_k // 2):
                    angle = l * 10000.0 ** (-2 * i / self.d_k)
                    cos[l, i], sin[l, i] = math.cos(angle), math.sin(angle)
            rope = (cos, sin)
        for block in self.blocks:
            h = block(h, rope)
        return self.head(self.ln_final(h))
    """)),
]
ALTERNATIVES += _ROUND4_ALTERNATIVES

MISTAKES += [
    mistake("MLP", "ReLU as torch.maximum with a torch.zeros floor", (None, """
        a = self.fc_in(x)
        return self.fc_out(torch.maximum(a, torch.zeros(a.shape)))
    """), hint="not ReLU"),
    mistake("PreNormBlock", "missing residual around the MLP, torch.zeros buffer", (None, """
        u = torch.zeros(h.shape)
        u[:] = h + self.attn(self.ln1(h), rope)
        return self.mlp(self.ln2(u))
    """), hint="H_out = U + MLP(LN2(U))"),
    mistake("Decoder", "sinusoid table built with torch.zeros, final LayerNorm forgotten", (
        _NO_SINUSOID_BUFFER, _SINUSOIDS_IN_FORWARD.format(tail="return self.head(h)")),
        hint="apply self.ln_final"),
]

# round 3: batch-only axes, hard-coded sizes, off-by-one slices, live dropout
_R3_DEC_FWD = """
    L = idx.shape[1]
    h = self.embed(idx)
    rope = None
    if self.positions == "learned":
        h = h + self.pos(torch.arange(L, device=idx.device))
    elif self.positions == "sinusoidal":
        h = h + self.sinusoids[:L]
    elif self.positions == "rope":
        rope = (self.rope_cos[:L], self.rope_sin[:L])
    for block in self.blocks:
        h = block(h, rope)
    return self.head(self.ln_final(h))
"""


def _r3_dec(old: str, new: str) -> tuple:
    """The reference Decoder.forward body with one piece of text replaced."""
    assert old in _R3_DEC_FWD, old
    return (None, _R3_DEC_FWD.replace(old, new))


MISTAKES += [
    mistake("layer_norm", "variance over a hard-coded dim=1 (right for 2-D only)", """
        mean = h.mean(dim=-1, keepdim=True)
        var = ((h - mean) ** 2).mean(dim=1, keepdim=True)
        return gamma * (h - mean) / torch.sqrt(var + eps) + beta
    """, hint='dim=1 is the token axis'),
    mistake("layer_norm", "variance divided by h.shape[0] instead of d", """
        mean = h.mean(dim=-1, keepdim=True)
        var = ((h - mean) ** 2).sum(dim=-1, keepdim=True) / h.shape[0]
        return gamma * (h - mean) / torch.sqrt(var + eps) + beta
    """, hint='divide the sum by h.shape[-1]'),
    mistake("layer_norm", "eps added after the division", """
        mean = h.mean(dim=-1, keepdim=True)
        var = ((h - mean) ** 2).mean(dim=-1, keepdim=True)
        return gamma * (h - mean) / torch.sqrt(var) + eps + beta
    """, hint='eps inside the square root'),
    mistake("layer_norm", "gamma broadcast along the tokens (gamma[:, None])", """
        mean = h.mean(dim=-1, keepdim=True)
        var = ((h - mean) ** 2).mean(dim=-1, keepdim=True)
        return gamma[:, None] * (h - mean) / torch.sqrt(var + eps) + beta[:, None]
    """, hint='no gamma[:, None]'),
    mistake("layer_norm", "eps hard-coded to 1e-6", """
        mean = h.mean(dim=-1, keepdim=True)
        var = ((h - mean) ** 2).mean(dim=-1, keepdim=True)
        return gamma * (h - mean) / torch.sqrt(var + 1e-6) + beta
    """, hint='use the eps argument'),
    mistake("layer_norm", "subtracts the mean with a sign slip (h + mean)", """
        mean = h.mean(dim=-1, keepdim=True)
        var = ((h - mean) ** 2).mean(dim=-1, keepdim=True)
        return gamma * (h + mean) / torch.sqrt(var + eps) + beta
    """, hint='centre each token: h - mean'),
    mistake("MLP", "F.dropout on the hidden layer (training=True by default)", (None, """
        return self.fc_out(F.dropout(F.gelu(self.fc_in(x)), 0.1))
    """), hint='F.dropout(t, p) defaults to training=True'),
    mistake("MLP", "hidden width 4 * d_model written in (d_hidden ignored)", ("""
        self.fc_in = nn.Linear(d_model, 4 * d_model)
        self.fc_out = nn.Linear(4 * d_model, d_model)
    """, None), hint='fc_in maps d_model -> d_hidden'),
    mistake("MLP", "a LayerNorm inside the MLP", (None, """
        return self.fc_out(F.gelu(self.fc_in(F.layer_norm(x, (self.d_model,)))))
    """), hint='the block applies LN2 before it'),
    mistake("MLP", "tokens flattened and not reshaped back", (None, """
        return self.fc_out(F.gelu(self.fc_in(x.reshape(-1, self.d_model))))
    """), hint='no need to flatten the tokens'),
    mistake("PreNormBlock", "residual branches scaled by 1/2 (averaged with the input)", (None, """
        u = (h + self.attn(self.ln1(h), rope)) / 2
        return (u + self.mlp(self.ln2(u))) / 2
    """), hint='add each branch to the stream unscaled'),
    mistake("PreNormBlock", "F.dropout on both branches (training=True by default)", (None, """
        u = h + F.dropout(self.attn(self.ln1(h), rope), 0.1)
        return u + F.dropout(self.mlp(self.ln2(u)), 0.1)
    """), hint='F.dropout(t, p) defaults to training=True'),
    mistake("PreNormBlock", "LayerNorm without gamma and beta (elementwise_affine=False)", ("""
        self.ln1 = nn.LayerNorm(d_model, elementwise_affine=False)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model, elementwise_affine=False)
        self.mlp = MLP(d_model, 4 * d_model)
    """, None), hint='nn.LayerNorm(d_model)'),
    mistake("PreNormBlock", "returns U (the MLP half computed, not returned)", (None, """
        u = h + self.attn(self.ln1(h), rope)
        out = u + self.mlp(self.ln2(u))
        return u
    """), hint='return U + MLP(LN2(U))'),
    mistake("PreNormBlock", "MLP hidden width d_model * n_heads", ("""
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, n_heads * d_model)
    """, None), hint="the MLP's hidden width is 4 * d_model"),
    mistake("PreNormBlock", "LayerNorm eps 1e-6 (a hard-coded constant)", ("""
        self.ln1 = nn.LayerNorm(d_model, eps=1e-6)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model, eps=1e-6)
        self.mlp = MLP(d_model, 4 * d_model)
    """, None), hint='default eps = 1e-5'),
    mistake("Decoder", "sinusoids sliced from the wrong end ([-L:])",
            _r3_dec("self.sinusoids[:L]", "self.sinusoids[-L:]"),
            hint="take the first L rows"),
    mistake("Decoder", "learned positions off by one (arange(1, L + 1))",
            _r3_dec("torch.arange(L, device=idx.device)",
                    "torch.arange(1, L + 1, device=idx.device) % self.max_len"),
            hint="token l gets row l"),
    mistake("Decoder", "L read from idx.shape[0] (the batch size)",
            _r3_dec("L = idx.shape[1]", "L = idx.shape[0]"),
            hint="idx.shape[0] is the batch size"),
    mistake("Decoder", "the last block skipped (blocks[:-1])",
            _r3_dec("for block in self.blocks:", "for block in self.blocks[:-1]:"),
            hint="run every block"),
    mistake("Decoder", "rope given to the first block only",
            _r3_dec("    for block in self.blocks:\n        h = block(h, rope)",
                    "    for i, block in enumerate(self.blocks):\n"
                    "        h = block(h, rope if i == 0 else None)"),
            hint="pass the same rope to every block"),
    mistake("Decoder", "logits from the embedding matrix (tied though a head was made)",
            _r3_dec("return self.head(self.ln_final(h))",
                    "return self.ln_final(h) @ self.embed.weight.T + self.head.bias"),
            hint="this Decoder does not tie"),
    mistake("Decoder", "every block fed the embeddings (h never updated in the loop)",
            _r3_dec("    for block in self.blocks:\n        h = block(h, rope)",
                    "    out = h\n    for block in self.blocks:\n"
                    "        out = block(h, rope)\n    h = out"),
            hint="feed each block the previous block's output"),
    mistake("count_parameters", "n_layers written in as 2", """
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
        total = V * d + 2 * block + 2 * d + V
        total += max_len * d if positions == "learned" else 0
        total += 0 if tie_weights else V * d
        return total
    """, hint='not a number from an example'),
    mistake("count_parameters", "tying also drops the head's bias", """
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
        total = V * d + n_layers * block + 2 * d
        total += max_len * d if positions == "learned" else 0
        total += 0 if tie_weights else V * d + V
        return total
    """, hint='the head has a bias c of V numbers, tied or not'),
    mistake("count_parameters", "learned position table counted as max_len (no d)", """
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
        total = V * d + n_layers * block + 2 * d + V
        total += max_len if positions == "learned" else 0
        total += 0 if tie_weights else V * d
        return total
    """, hint='max_len * d numbers'),
    mistake("count_parameters", "one bias vector for all four projections", """
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        block = (4 * d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
        total = V * d + n_layers * block + 2 * d + V
        total += max_len * d if positions == "learned" else 0
        total += 0 if tie_weights else V * d
        return total
    """, hint='its own bias of d numbers'),
    mistake("count_parameters", "one LayerNorm per block", """
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 2 * d
        total = V * d + n_layers * block + 2 * d + V
        total += max_len * d if positions == "learned" else 0
        total += 0 if tie_weights else V * d
        return total
    """, hint='two LayerNorms (LN1 and LN2)'),
    mistake("count_parameters", "fc_out forgotten (one MLP layer)", """
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        block = 4 * (d * d + d) + (d * hidden + hidden) + 4 * d
        total = V * d + n_layers * block + 2 * d + V
        total += max_len * d if positions == "learned" else 0
        total += 0 if tie_weights else V * d
        return total
    """, hint='the MLP has two layers'),
    mistake("count_parameters", "RoPE tables counted as parameters", """
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
        total = V * d + n_layers * block + 2 * d + V
        total += max_len * d if positions == "learned" else 0
        total += max_len * (d // n_heads) if positions == "rope" else 0
        total += 0 if tie_weights else V * d
        return total
    """, hint='fixed buffers, not trainable parameters'),
    mistake("count_parameters", "a position table counted for rope too", """
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
        total = V * d + n_layers * block + 2 * d + V
        total += max_len * d if positions in ("learned", "rope") else 0
        total += 0 if tie_weights else V * d
        return total
    """, hint="only positions='learned' has a trainable"),
    mistake("count_parameters", "tying subtracts 2 V d (embedding and head both dropped)", """
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
        total = 2 * V * d + n_layers * block + 2 * d + V
        total += max_len * d if positions == "learned" else 0
        total -= 2 * V * d if tie_weights else 0
        return total
    """, hint='each hold V * d numbers'),
]

# Structural slips: the body written, but no `return`, or the stub's raise left in place.
MISTAKES += [
    mistake("MLP", "forward without return", (None, """
        h = self.fc_out(F.gelu(self.fc_in(x)))
    """), hint="returned None"),
    mistake("Decoder", "the stub's raise left above the written forward", (
        None, "\n    raise NotImplementedError()" + decoder_forward()),
        hint="delete the `raise NotImplementedError()` line"),
]
