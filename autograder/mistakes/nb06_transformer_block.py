"""Notebook 06's mistake catalogue, one section per graded function (see grader/catalogue.py)."""

from grader.catalogue import alternative, catalogue, delete, edit, explained, mistake, replace_line

from attnbook.checks import HINT_KEEP_GRAPH, HINT_LEFTOVER, HINT_NO_RETURN, nb06
from attnbook.checks._core import HINT_BACKWARD_IN_PLACE

WHY = explained("06_transformer_block")  # detects=WHY: the question's explanation

NORM, MLP, BLOCK, DECODER, COUNT = ("layer_norm", "MLP", "PreNormBlock", "Decoder",
                                    "count_parameters")

# Decoder.__init__, sinusoid buffer on one line: base of two entries (and of their like= kin)
DECODER_INIT = ("""
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
    self.head = nn.Linear(d_model, vocab_size)""", None)

# hints that several entries give
HINT_LAST_AXIS = ("normalise each token over its own d features: statistics along the last axis, "
                  "h.mean(dim=-1, keepdim=True) (BatchNorm is the one that uses the batch axis)")
HINT_FINAL_LAYERNORM_FORGOTTEN = ("apply self.ln_final to H_N before the head: Y = LN_final(H_N) "
                                  "W_vocab^T + 1 c^T")
# {positions}: the Decoder's option
HINT_POSITIONS_NOT_ADDED = ("positions='{positions}': add the position vectors to the token "
                            "embedding, H0 = E[w] + P")
HINT_POS_ROWS = ("token l gets row l of the position table: take the first L rows, "
                 "self.sinusoids[:L] or self.pos(torch.arange(L)), with L the length idx.shape[1]")
HINT_FIXED_TABLE_COUNTED = "only positions='learned' has a trainable (max_len, d) table"
HINT_EMBEDDING_NOT_COUNTED = ("the token embedding E and, without tying, the head's own weight "
                              "W_vocab each hold V * d numbers")


MISTAKES, ALTERNATIVES = catalogue([
    # -- layer_norm --------------------------------------------------------------------------------
    mistake(NORM, "unbiased variance", edit("((h - mean) ** 2).mean", "h.var"),
            hint="LayerNorm uses the biased variance, the mean of (h - mean)^2 over the d "
                 "features: h.var(dim=-1, unbiased=False) or correction=0"),
    mistake(NORM, "eps outside the square root", edit("torch.sqrt", ""),
            hint="eps goes inside the square root: (h - mean) / sqrt(var + eps)",
            like="sqrt of the standard deviation"),
    mistake(NORM, "no eps at all", edit("var + eps", "var"), detects=nb06.HINT_CONSTANT_TOKEN),
    mistake(NORM, "normalising over the batch axis", edit("=-1", "=0", count=2),
            hint=HINT_LAST_AXIS),
    mistake(NORM, "statistics over the whole tensor", edit("dim=-1, keepdim=True", "", count=2),
            hint=HINT_LAST_AXIS),
    mistake(NORM, "sqrt of the standard deviation", """
        mean = h.mean(dim=-1, keepdim=True)
        std = h.std(dim=-1, keepdim=True, unbiased=False)
        return gamma * (h - mean) / torch.sqrt(std + eps) + beta""",
            hint="divide by sqrt(var + eps), where var is the mean squared deviation"),
    mistake(NORM, "eps argument ignored", edit("eps", "1e-5"),
            detects=nb06.HINT_EPS_ARGUMENT_IGNORED),
    mistake(NORM, "gamma and beta swapped", [
        edit("gamma * (h - mean) / torch.sqrt(var + eps) + beta",
             "beta * (h - mean) / torch.sqrt(var + eps) + gamma"),
    ], hint="gamma scales (multiplies) the normalised value, beta shifts (adds)"),
    mistake(NORM, "gamma and beta ignored", [
        edit("gamma * (h - mean) / torch.sqrt(var) + beta", "(h - mean) / torch.sqrt(var + eps)"),
    ], hint="finish with gamma * normalised + beta", like="no eps at all"),
    mistake(NORM, "RMS normalisation (mean not subtracted)",
            "return gamma * h / torch.sqrt((h ** 2).mean(dim=-1, keepdim=True) + eps) + beta",
            hint="subtract each token's mean before dividing by its standard deviation"),
    mistake(NORM, "keepdim forgotten", edit(", keepdim=True", "", count=2),
            detects=nb06.HINT_KEEPDIM),
    mistake(NORM, "changes h in place", [edit("mean =", "h -="), edit("(h - mean)", "h", count=2)],
            detects=nb06.HINT_LAYER_NORM_IN_PLACE),
    mistake(NORM, "statistics over a hard-coded dim=1", edit("=-", "=", count=2),
            hint=HINT_LAST_AXIS),
    mistake(NORM, "variance of h around zero (mean of h^2)", edit("((h - mean)", "(h"),
            hint="the variance is the mean squared deviation from the token's mean: ((h - mean) ** "
                 "2).mean(dim=-1, keepdim=True)"),
    mistake(NORM, "E[h^2] - E[h]: the mean not squared",
            edit("((h - mean) ** 2).mean(dim=-1, keepdim=True)",
                 "(h ** 2).mean(dim=-1, keepdim=True) - mean"),
            hint="var = E[h^2] - E[h]^2 squares the mean too; better, centre first (float32 "
                 "cancels E[h^2] - E[h]^2): ((h - mean) ** 2).mean(dim=-1, keepdim=True)"),
    mistake(NORM, "variance as E[h^2] - mean^2 (cancels in float32)",
            edit("((h - mean) ** 2).mean(dim=-1, keepdim=True)",
                 "(h * h).mean(dim=-1, keepdim=True) - mean ** 2"),
            hint="E[h^2] - mean^2 subtracts two large, nearly equal numbers when a token's mean "
                 "is large and its spread small, and float32 loses the variance in the "
                 "cancellation: centre first, the variance is the mean of (h - mean) ** 2"),
    mistake(NORM, "mean absolute deviation instead of the variance",
            edit("((h - mean) ** 2).mean", "(h - mean).abs().mean"),
            hint="the variance is the mean of the SQUARED deviations, ((h - mean) ** 2).mean("
                 "dim=-1, keepdim=True), not the mean absolute deviation |h - mean|"),
    mistake(NORM, "divided by the L2 norm of the centred token", """
        centred = h - h.mean(dim=-1, keepdim=True)
        return gamma * centred / torch.sqrt((centred ** 2).sum(dim=-1, keepdim=True) + eps) + beta
    """, hint="the variance is the mean, not the sum, of the squared deviations: divide by d"),
    mistake(NORM, "beta added before scaling by gamma", [
        edit("h - mean) / torch.sqrt(var) + beta", "(h - mean) / torch.sqrt(var + eps) + beta)"),
    ], hint="finish with gamma * normalised + beta: scale first, then shift", like="no eps at all"),
    mistake(NORM, "calls PyTorch's own layer norm",
            "return torch.nn.functional.layer_norm(h, h.shape[-1:], gamma, beta, eps)",
            detects=nb06.HINT_WRITE_IT_YOURSELF),
    mistake(NORM, "variance over a hard-coded dim=1 (right for 2-D only)",
            edit(").mean(dim=-", ").mean(dim="),
            hint="take both the mean and the variance over the last axis, dim=-1: dim=1 is the "
                 "token axis once h has a batch axis"),
    mistake(NORM, "variance divided by h.shape[0] instead of d",
            edit(").mean(dim=-1, keepdim=True)", ").sum(dim=-1, keepdim=True) / h.shape[0]"),
            hint="the variance is the mean over the d features: divide the sum by h.shape[-1] (or "
                 "use .mean(dim=-1))"),
    mistake(NORM, "eps added after the division", edit("var + eps)", "var) + eps"),
            detects=nb06.HINT_CONSTANT_TOKEN),
    mistake(NORM, "subtracts the mean with a sign slip (h + mean)", edit("* (h -", "* (h +"),
            hint="centre each token: h - mean, then divide by sqrt(var + eps)"),
    alternative(NORM, "torch.var with unbiased=False and rsqrt", """
        mean = torch.mean(h, dim=-1, keepdim=True)
        var = torch.var(h, dim=-1, unbiased=False, keepdim=True)
        return (h - mean) * torch.rsqrt(var + eps) * gamma + beta"""),
    alternative(NORM, "E[h^2] - E[h]^2 in float64 and correction=0 spelled out", """
        d = h.shape[-1]
        x = h.double()  # in float32, E[h^2] - E[h]^2 cancels for a large mean
        mean = x.sum(dim=-1, keepdim=True) / d
        var = (x * x).sum(dim=-1, keepdim=True) / d - mean ** 2
        normalised = ((x - mean) / (var + eps) ** 0.5).to(h.dtype)
        return normalised * gamma.reshape(*([1] * (h.dim() - 1)), d) + beta"""),
    alternative(NORM, "var_mean with correction=0, eps folded into the mean", """
        var, mean = torch.var_mean(h, dim=-1, keepdim=True, correction=0)
        x_hat = (h - mean) / (((h - mean) ** 2 + eps).mean(dim=-1, keepdim=True)).sqrt()
        return x_hat * gamma + beta"""),
    alternative(NORM, "einsum for the mean, float64 internally", """
        d = h.shape[-1]
        work = h.double()
        mean = torch.einsum("...d->...", work)[..., None] / d
        centred = work - mean
        var = torch.einsum("...d,...d->...", centred, centred)[..., None] / d
        out = centred / torch.sqrt(var + eps) * gamma.double() + beta.double()
        return out.to(torch.promote_types(h.dtype, gamma.dtype))"""),
    alternative(NORM, "in place on a copy", [
        edit("x = h.to(torch.float64", "out = h.clone("), edit("mean = x.mean", "out -= out.mean"),
        edit("var = x.var(dim=-1, keepdim=True, unbiased=False",
             "out /= torch.sqrt(out.pow(2).mean(dim=-1, keepdim=True) + eps"),
        replace_line("return (x - mean) /", "out = out * gamma\nout += beta\nreturn out"),
    ], like="returns float64 even for a float32 input"),
    alternative(NORM, "a loop over the tokens of a flattened view", """
        d = h.shape[-1]
        rows = []
        for token in h.reshape(-1, d):
            mu = token.sum() / d
            var = ((token - mu) ** 2).sum() / d
            rows.append((token - mu) / (var + eps) ** 0.5 * gamma + beta)
        return torch.stack(rows).reshape(h.shape)"""),
    alternative(NORM, "recursion: one token vector at a time", """
        if h.dim() > 1:
            rows = []
            for row in h:
                rows.append(layer_norm(row, gamma, beta, eps))
            return torch.stack(rows)
        mean = h.mean()
        var = ((h - mean) ** 2).mean()
        return gamma * (h - mean) / torch.sqrt(var + eps) + beta"""),
    alternative(NORM, "through numpy and back", """
        import numpy as np
        a = h.detach().cpu().numpy()
        mean = a.mean(axis=-1, keepdims=True)
        var = a.var(axis=-1, keepdims=True)
        out = (a - mean) / np.sqrt(var + eps)
        return torch.from_numpy(out).to(h.dtype) * gamma + beta"""),
    alternative(NORM, "method chain, eps as a 0-d float32 tensor", """
        eps_t = torch.tensor(eps)  # float32, 0-d: it does not lower h's dtype
        mean = h.mean(-1, keepdim=True)
        var = h.sub(mean).square().mean(-1, keepdim=True)
        return h.sub(mean).mul(var.add(eps_t).rsqrt()).mul(gamma).add(beta)"""),
    alternative(NORM, "returns float64 even for a float32 input", """
        x = h.to(torch.float64)
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, keepdim=True, unbiased=False)
        return (x - mean) / torch.sqrt(var + eps) * gamma.double() + beta.double()"""),
    alternative(NORM, "gamma and beta as numpy arrays turned into tensors", """
        gamma = torch.as_tensor(gamma, dtype=h.dtype, device=h.device)
        beta = torch.as_tensor(beta, dtype=h.dtype, device=h.device)
        centred = h - h.mean(dim=-1, keepdim=True)
        std = torch.sqrt(centred.pow(2).mean(dim=-1, keepdim=True) + eps)
        return torch.addcdiv(beta, centred * gamma, std)"""),
    # -- MLP ---------------------------------------------------------------------------------------
    mistake(MLP, "tanh approximation of GELU", edit("x)", 'x), approximate="tanh"'),
            hint="use the exact GELU, x * Phi(x): nn.GELU() or F.gelu(x) with the default "
                 "approximate='none'"),
    mistake(MLP, "ReLU instead of GELU", edit("F.gelu", "torch.relu"),
            hint="the activation is GELU, not ReLU"),
    mistake(MLP, "forward under torch.no_grad() (copied from inference code)",
            replace_line("return self.fc_out(", "with torch.no_grad():\n"
                         "    return self.fc_out(F.gelu(self.fc_in(x)))"), detects=HINT_KEEP_GRAPH),
    mistake(MLP, "hidden activations detached: fc_in never trains",
            edit("F.gelu(self.fc_in(x))", "F.gelu(self.fc_in(x)).detach()"),
            detects=HINT_KEEP_GRAPH),
    mistake(MLP, "no activation", (None, """
        return self.fc_out(self.fc_in(x))"""),
            hint="apply GELU between fc_in and fc_out; without it two linear layers collapse into "
                 "one"),
    mistake(MLP, "an extra GELU at the output", (None, """
        return F.gelu(self.fc_out(F.gelu(self.fc_in(x))))"""),
            hint="GELU goes between the layers only: fc_out(GELU(fc_in(x)))"),
    mistake(MLP, "residual added inside the MLP", edit("self.fc_out(", "x + self.fc_out("),
            hint="the MLP returns fc_out(GELU(fc_in(x))); the block adds the residual"),
    mistake(MLP, "layer sizes swapped", ("""
        self.fc_in = nn.Linear(d_hidden, d_model)
        self.fc_out = nn.Linear(d_model, d_hidden)""", None), detects=nb06.HINT_MLP_WIDTHS),
    mistake(MLP, "linear layers without bias", [
        edit("d_hidden)", "d_hidden, bias=False)"), edit("d_model)", "d_model, bias=False)"),
    ], detects=nb06.HINT_MLP_BIAS),
    mistake(MLP, "an nn.Sequential instead of the named layers", ("""
        self.net = nn.Sequential(nn.Linear(d_model, d_hidden), nn.GELU(),
                                 nn.Linear(d_hidden, d_model))""", """
        return self.net(x)"""), detects=nb06.HINT_LINEAR_NAMED.format(name="fc_in")),
    mistake(MLP, "SiLU instead of GELU", edit("F.gelu", "F.silu"),
            hint="the activation is GELU, x * Phi(x), not SiLU x * sigmoid(x)"),
    mistake(MLP, "sigmoid approximation of GELU, x * sigmoid(1.702 x)", (None, """
        a = self.fc_in(x)
        return self.fc_out(a * torch.sigmoid(1.702 * a))"""),
            hint="use the exact GELU, x * Phi(x) with Phi the normal CDF: F.gelu(x) or nn.GELU()"),
    mistake(MLP, "GELU applied to the input before fc_in", (None, """
        return self.fc_out(self.fc_in(F.gelu(x)))"""),
            hint="apply GELU between fc_in and fc_out: fc_out(GELU(fc_in(x)))"),
    mistake(MLP, "F.dropout on the hidden layer (training=True by default)", (None, """
        return self.fc_out(F.dropout(F.gelu(self.fc_in(x)), 0.1))"""), detects=nb06.HINT_DROPOUT),
    mistake(MLP, "a LayerNorm inside the MLP", edit("x", "F.layer_norm(x, (self.d_model,))"),
            hint="the MLP is fc_out(GELU(fc_in(x))) and nothing more: the block applies LN2 before "
                 "it"),
    mistake(MLP, "tokens flattened and not reshaped back", edit("x", "x.reshape(-1, self.d_model)"),
            detects=nb06.HINT_MLP_LEADING_AXES),
    mistake(MLP, "forward without return", edit("return", "h ="),
            detects=HINT_NO_RETURN.format(where="MLP.forward")),
    alternative(MLP, "nn.GELU module attribute", ("""
        self.fc_in = nn.Linear(d_model, d_hidden)
        self.act = nn.GELU()
        self.fc_out = nn.Linear(d_hidden, d_model)""", """
        return self.fc_out(self.act(self.fc_in(x)))""")),
    alternative(MLP, "GELU from erf, weights applied by hand", (None, """
        a = x @ self.fc_in.weight.T + self.fc_in.bias
        g = 0.5 * a * (1.0 + torch.erf(a / math.sqrt(2.0)))
        return g @ self.fc_out.weight.T + self.fc_out.bias""")),
    alternative(MLP, "an nn.Sequential that reuses fc_in and fc_out", ("""
        self.fc_in = nn.Linear(d_model, d_hidden)
        self.fc_out = nn.Linear(d_hidden, d_model)
        self.net = nn.Sequential(self.fc_in, nn.GELU(), self.fc_out)""", """
        return self.net(x)""")),
    alternative(MLP, "Sequential built first, names as aliases, dropout p=0", ("""
        self.net = nn.Sequential(nn.Linear(d_model, d_hidden), nn.GELU(),
                                 nn.Linear(d_hidden, d_model), nn.Dropout(0.0))
        self.fc_in, self.fc_out = self.net[0], self.net[2]""", """
        return self.net(x)""")),
    alternative(MLP, "own initialisation in __init__, GELU module created in forward", ("""
        self.fc_in = nn.Linear(d_model, d_hidden)
        self.fc_out = nn.Linear(d_hidden, d_model)
        nn.init.normal_(self.fc_in.weight, std=0.02)
        nn.init.zeros_(self.fc_in.bias)
        nn.init.normal_(self.fc_out.weight, std=0.02)
        nn.init.zeros_(self.fc_out.bias)""", """
        return self.fc_out(torch.nn.GELU(approximate="none")(self.fc_in(x)))""")),
    alternative(MLP, "GELU as x * Phi(x) with torch.special.ndtr", (None, """
        a = self.fc_in(x)
        return self.fc_out(a * torch.special.ndtr(a))""")),
    alternative(MLP, "GELU from a float32 Normal distribution's cdf", (None, """
        a = self.fc_in(x)
        phi = torch.distributions.Normal(0.0, 1.0).cdf(a)
        return self.fc_out(a * phi)""")),
    alternative(MLP, "addmm on flattened tokens, reshaped back", (None, """
        shape = x.shape
        flat = x.reshape(-1, shape[-1])
        hidden = torch.addmm(self.fc_in.bias, flat, self.fc_in.weight.t())
        out = torch.addmm(self.fc_out.bias, F.gelu(hidden), self.fc_out.weight.t())
        return out.reshape(*shape[:-1], -1)""")),
    alternative(MLP, "einsum with the layers' weights, erfc form of Phi", (None, """
        a = torch.einsum("...i,oi->...o", x, self.fc_in.weight) + self.fc_in.bias
        g = a * 0.5 * torch.erfc(-a / math.sqrt(2.0))
        return torch.einsum("...i,oi->...o", g, self.fc_out.weight) + self.fc_out.bias""")),
    alternative(MLP, "GELU with a default-dtype sqrt(2) tensor, torch.zeros accumulator", (None, """
        a = self.fc_in(x)
        g = 0.5 * a * (1.0 + torch.erf(a / torch.sqrt(torch.tensor(2.0))))
        out = torch.zeros(*x.shape[:-1], self.fc_out.out_features)
        out += self.fc_out(g)
        return out""")),
    alternative(MLP, "hidden activations times a torch.ones gate", (None, """
        gate = torch.ones(self.fc_in.out_features)
        return self.fc_out(F.gelu(self.fc_in(x)) * gate)""")),
    # -- PreNormBlock ------------------------------------------------------------------------------
    mistake(BLOCK, "post-norm where pre-norm is asked", (None, """
        u = self.ln1(h + self.attn(h, rope))
        return self.ln2(u + self.mlp(u))"""),
            hint="pre-norm normalises only the branch input: U = H + MHA(LN1(H)), H_out = U + "
                 "MLP(LN2(U)); the bypass H must reach the sum untouched"),
    mistake(BLOCK, "missing residual around the attention", edit("h + self.attn", "self.attn"),
            hint="add the residual: U = H + MHA(LN1(H))"),
    mistake(BLOCK, "missing residual around the MLP", edit("u + self.mlp", "self.mlp"),
            hint="add the residual: H_out = U + MLP(LN2(U))"),
    mistake(BLOCK, "residual taken from the normalised input",
            [edit("u = h", "u = self.ln1(h)"), edit("return u", "return self.ln2(u)")],
            hint="the bypass carries H itself, not LN1(H): U = H + MHA(LN1(H))"),
    mistake(BLOCK, "attention and MLP in parallel", (None, """
        return h + self.attn(self.ln1(h), rope) + self.mlp(self.ln2(h))
    """), hint="the MLP reads U, the output of the attention step: H_out = U + MLP(LN2(U))"),
    mistake(BLOCK, "LN1 reused before the MLP", edit("(self.ln2", "(self.ln1"),
            hint="each branch has its own LayerNorm: MLP(LN2(U))"),
    mistake(BLOCK, "no LayerNorm in the branches", (None, """
        u = h + self.attn(h, rope)
        return u + self.mlp(u)"""),
            hint="normalise the input of each branch: MHA(LN1(H)) and MLP(LN2(U))"),
    mistake(BLOCK, "MLP before attention", (None, """
        u = h + self.mlp(self.ln2(h))
        return u + self.attn(self.ln1(u), rope)"""),
            hint="attention first (communicate), then the MLP (compute)"),
    mistake(BLOCK, "no residual connections at all", [
        edit("u = h + self.attn", "u = self.attn"), edit("return u + self.mlp", "return self.mlp"),
    ], hint="each branch is added to its input: U = H + ..., H_out = U + ..."),
    mistake(BLOCK, "rope not passed to the attention", edit(", rope", ""),
            hint="pass the rope tables on: self.attn(self.ln1(h), rope)"),
    mistake(BLOCK, "MLP hidden width d_model", edit("4 * d_model", "d_model"),
            detects=nb06.HINT_HIDDEN_WIDTH),
    mistake(BLOCK, "attention built from nn.MultiheadAttention", [
        edit("causal_self_attention(d_model, n_heads",
             "nn.MultiheadAttention(d_model, n_heads, batch_first=True")], detects=nb06.HINT_ATTN),
    mistake(BLOCK, "adds into h in place",
            [edit("(u", "(h"), edit("u = h +", "h +="), edit("u +", "h +")],
            detects=nb06.HINT_BLOCK_IN_PLACE),
    mistake(BLOCK, "LN1 and LN2 swapped", edit("self.attn(self.ln1", "self.attn(self.ln2"),
            hint="each branch has its own LayerNorm: ln1 before the attention, ln2 before the MLP",
            like="LN1 reused before the MLP"),
    mistake(BLOCK, "second residual adds H instead of U", edit("u +", "h +"),
            hint="the second sum starts from U, which already holds the attention output: H_out = "
                 "U + MLP(LN2(U))"),
    mistake(BLOCK, "LayerNorm on the branch outputs instead of inputs", (None, """
        u = h + self.ln1(self.attn(h, rope))
        return u + self.ln2(self.mlp(u))"""),
            hint="normalise the input of each branch, not its output: MHA(LN1(H)) and MLP(LN2(U))"),
    mistake(BLOCK, "the output normalised again", (None, """
        u = h + self.attn(self.ln1(h), rope)
        return self.ln2(u + self.mlp(self.ln2(u)))"""),
            hint="pre-norm returns U + MLP(LN2(U)) as it is: nothing may touch the bypass, so no "
                 "LayerNorm after the sum"),
    mistake(BLOCK, "one LayerNorm shared by both branches", [
        edit("self.ln1 = nn.LayerNorm", "self.ln = nn.LayerNorm"),
        delete("self.ln2 = nn.LayerNorm(d_model)"), edit("self.ln1", "self.ln", count=2),
    ], detects=nb06.HINT_LN1, like="LN1 reused before the MLP"),
    mistake(BLOCK, "LN1 built without its bias", edit("self.ln1 = nn.LayerNorm(d_model)",
            "self.ln1 = nn.LayerNorm(d_model, bias=False)"), detects=nb06.HINT_LN1),
    mistake(BLOCK, "ln2 never created: ln1 normalises both branches",
            [delete("self.ln2 = nn.LayerNorm(d_model)"), edit("(self.ln2", "(self.ln1")],
            detects=nb06.HINT_LN2),
    mistake(BLOCK, "the MLP written inline as an nn.Sequential, not the MLP class",
            edit("MLP(d_model, 4 * d_model)", "nn.Sequential(nn.Linear(d_model, 4 * d_model), "
                 "nn.GELU(), nn.Linear(4 * d_model, d_model))"), detects=nb06.HINT_MLP),
    mistake(BLOCK, "LayerScale on the MLP branch: a parameter the reference lacks",
            [replace_line("self.mlp = MLP(d_model, 4 * d_model)",
                          "self.mlp = MLP(d_model, 4 * d_model)\n"
                          "self.scale = nn.Parameter(torch.ones(d_model))"),
             edit("u + self.mlp", "u + self.scale * self.mlp")], detects=nb06.HINT_ATTRIBUTE_NAMES),
    mistake(BLOCK, "residual branches scaled by 1/2 (averaged with the input)", (None, """
        u = (h + self.attn(self.ln1(h), rope)) / 2
        return (u + self.mlp(self.ln2(u))) / 2"""),
            hint="add each branch to the stream unscaled: U = H + MHA(LN1(H)), H_out = U + "
                 "MLP(LN2(U))"),
    mistake(BLOCK, "F.dropout on both branches (training=True by default)", (None, """
        u = h + F.dropout(self.attn(self.ln1(h), rope), 0.1)
        return u + F.dropout(self.mlp(self.ln2(u)), 0.1)"""), detects=nb06.HINT_DROPOUT),
    mistake(BLOCK, "returns U (the MLP half computed, not returned)", [
        replace_line("return self.mlp(self.ln2(u))", "out = u + self.mlp(self.ln2(u))\nreturn u"),
    ], hint="return U + MLP(LN2(U)), the output after both sublayers",
       like="missing residual around the MLP"),
    mistake(BLOCK, "LayerNorm eps 1e-6 (a hard-coded constant)", [
        edit("self.ln1 = nn.LayerNorm(d_model", "self.ln1 = nn.LayerNorm(d_model, eps=1e-6"),
        edit("(d_model)", "(d_model, eps=1e-6)")], detects=nb06.HINT_NORM_EPS),
    alternative(BLOCK, "named steps and keyword rope", (None, """
        attended = self.attn(self.ln1(h), rope=rope)
        u = torch.add(h, attended)
        transformed = self.mlp(self.ln2(u))
        return u + transformed""")),
    alternative(BLOCK, "layers created in another order, rope branch", ("""
        self.mlp = MLP(d_model, 4 * d_model)
        self.ln2 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln1 = nn.LayerNorm(d_model, eps=1e-5)""", """
        x = self.ln1(h)
        u = h + (self.attn(x) if rope is None else self.attn(x, rope))
        return u + self.mlp(self.ln2(u))""")),
    mistake(BLOCK, "in place on a clone of h: ln2 reads out, then += changes it (no backward)",
            (None, """
        out = h.clone()
        out += self.attn(self.ln1(h), rope)
        out += self.mlp(self.ln2(out))
        return out"""), detects=HINT_BACKWARD_IN_PLACE),
    alternative(BLOCK, "dropout p=0 on both branches", [
        replace_line("self.mlp = MLP(d_model, 4 * d_model)",
                     "self.mlp = MLP(d_model, 4 * d_model)\nself.drop = nn.Dropout(p=0.0)"),
        edit("self.attn(self.ln1(h), rope", "self.drop(self.attn(self.ln1(h), rope)"),
        edit("self.mlp(self.ln2(u", "self.drop(self.mlp(self.ln2(u)")]),
    alternative(BLOCK, "norms also kept in a ModuleList created first", ("""
        self.norms = nn.ModuleList([nn.LayerNorm(d_model), nn.LayerNorm(d_model)])
        self.ln1, self.ln2 = self.norms
        self.attn = causal_self_attention(d_model, n_heads)
        self.mlp = MLP(d_model, 4 * d_model)""", None)),
    alternative(BLOCK, "F.layer_norm with the modules' own parameters", (None, """
        d = h.shape[-1]
        x = F.layer_norm(h, (d,), self.ln1.weight, self.ln1.bias, self.ln1.eps)
        u = h + self.attn(x, rope)
        y = F.layer_norm(u, (d,), self.ln2.weight, self.ln2.bias, self.ln2.eps)
        return u + self.mlp(y)""")),
    alternative(BLOCK, "the learner's own layer_norm from exercise 1", (None, """
        u = h + self.attn(layer_norm(h, self.ln1.weight, self.ln1.bias, self.ln1.eps), rope)
        return u + self.mlp(layer_norm(u, self.ln2.weight, self.ln2.bias, self.ln2.eps))""")),
    alternative(BLOCK, "a cached causal-mask buffer it never needs, forward()", ("""
        self.ln1 = nn.LayerNorm(d_model)
        self.ln2 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.mlp = MLP(d_model, 4 * d_model)
        self.register_buffer("mask", torch.ones(64, 64, dtype=torch.bool).tril())""", """
        branch = self.attn.forward(self.ln1(h), rope) if rope else self.attn.forward(self.ln1(h))
        u = torch.add(h, branch)
        return torch.add(u, self.mlp.forward(self.ln2(u)))""")),
    alternative(BLOCK, "two sublayers in a loop over (norm, branch) pairs", (None, """
        out = h
        for norm, branch in ((self.ln1, lambda z: self.attn(z, rope)), (self.ln2, self.mlp)):
            out = out + branch(norm(out))
        return out""")),
    alternative(BLOCK, "results written into torch.zeros and torch.empty buffers", (None, """
        B, L, d = h.shape
        u = torch.zeros(B, L, d)
        u[:] = h + self.attn(self.ln1(h), rope)
        out = torch.empty(B, L, d)
        out.copy_(u + self.mlp(self.ln2(u)))
        return out""")),
    alternative(BLOCK, "a float tril mask built and checked, a ones gate", (None, """
        B, L, d = h.shape
        mask = torch.ones(L, L).tril()  # what the attention layer does inside, for show
        assert float(mask.sum()) == L * (L + 1) / 2
        gate = torch.ones(1, 1, d)
        u = h + gate * self.attn(self.ln1(h), rope)
        return u + gate * self.mlp(self.ln2(u))""")),
    # -- Decoder -----------------------------------------------------------------------------------
    mistake(DECODER, "ln_final with another eps (1e-6)",
            edit("self.ln_final = nn.LayerNorm(d_model)",
                 "self.ln_final = nn.LayerNorm(d_model, eps=1e-6)"),
            detects=nb06.HINT_LN_FINAL_EPS),
    mistake(DECODER, "the final LayerNorm forgotten (created, not applied)", [
        edit(", device=idx.device", ""), edit("self.ln_final(h)", "h"),
    ], hint=HINT_FINAL_LAYERNORM_FORGOTTEN),
    mistake(DECODER, "the final LayerNorm forgotten (never created)", [
        edit("self.ln_final = nn.LayerNorm(d_model", "self.head = nn.Linear(d_model, vocab_size"),
        delete("self.head = nn.Linear(d_model, vocab_size, bias=False)"),
        edit(", device=idx.device", ""), edit("self.ln_final(h)", "h"),
    ], detects=nb06.HINT_LN_FINAL, like="the head without its bias"),
    mistake(DECODER, "the head without its bias", edit("vocab_size)", "vocab_size, bias=False)"),
            base=DECODER_INIT, detects=nb06.HINT_HEAD_BIAS),
    mistake(DECODER, "the RoPE tables kept as plain attributes, not buffers", [
        edit('self.register_buffer("rope_cos", cos, persistent=False)', "self.rope_cos = cos"),
        edit('self.register_buffer("rope_sin", sin, persistent=False)', "self.rope_sin = sin"),
    ], base=DECODER_INIT, detects=nb06.HINT_TABLE_BUFFER),
    mistake(DECODER, "the blocks under torch.no_grad(): only ln_final and the head train",
            replace_line("h = block(h, rope)", "with torch.no_grad():\n    h = block(h, rope)"),
            detects=HINT_KEEP_GRAPH),
    mistake(DECODER, "softmax applied to the logits", [
        edit(", device=idx.device", ""), edit("h))", "h)).softmax(dim=-1)"),
    ], detects=nb06.HINT_LOGITS_SOFTMAXED),
    mistake(DECODER, "learned positions never added",
            replace_line("h = h + self.pos(torch.arange(L, device=idx.device))", "pass"),
            hint=HINT_POSITIONS_NOT_ADDED.format(positions="learned")),
    mistake(DECODER, "sinusoids never added", [
        edit(", device=idx.device", ""), replace_line("h = h + self.sinusoids[:L]", "pass"),
    ], hint=HINT_POSITIONS_NOT_ADDED.format(positions="sinusoidal")),
    mistake(DECODER, "positions looked up with the token ids",
            edit("torch.arange(L, device=idx.device)", "idx"),
            hint="the position of token l is l: index with torch.arange(L), not with the ids"),
    mistake(DECODER, "RoPE tables not passed to the blocks", [
        edit(", device=idx.device", ""), edit(", rope", ""),
    ], hint="positions='rope': pass rope = (cos[:L], sin[:L]) to every block"),
    mistake(DECODER, "token embedding scaled by sqrt(d_model)", [
        edit("idx)", "idx) * self.embed.embedding_dim ** 0.5"), edit(", device=idx.device", ""),
    ], hint="no sqrt(d_model) factor in this model: H0 = E[w] + P"),
    mistake(DECODER, "one block repeated n_layers times",
            edit("(PreNormBlock(d_model, n_heads) for _ in range(n_layers))",
                 "([PreNormBlock(d_model, n_heads)] * n_layers)"),
            base=DECODER_INIT, detects=nb06.HINT_BLOCKS),
    mistake(DECODER, "a trainable position table for every option", [
        replace_line('if positions == "learned":', "if True:"), edit(", bias=False", ""),
    ], detects=nb06.HINT_LEARNED_ONLY, like="the head without its bias"),
    mistake(DECODER, "RoPE tables built for the full width d_model", [
        edit("d_model // n_heads", "d_model"), edit(", bias=False", ""),
    ], detects=nb06.HINT_ROPE_HEAD_WIDTH, like="the head without its bias"),
    mistake(DECODER, "block outputs discarded (block(h) not assigned)", [
        edit(", device=idx.device", ""), edit("h = block", "block"),
    ], hint="a block returns a new tensor: keep it, h = block(h, ...), and pass it on"),
    mistake(DECODER, "final LayerNorm applied after every block", [
        edit("block(h", "self.ln_final(block(h, rope)"), edit("self.ln_final(h)", "h"),
    ], hint="apply ln_final once, after the last block, just before the head",
       like="RoPE tables not passed to the blocks"),
    mistake(DECODER, "positions added before every block", [
        replace_line("h = h + self.pos(torch.arange(L))", "pass"),
        edit("h,", "h + self.pos(torch.arange(L)) if self.positions == 'learned' else h,"),
        edit(".softmax(dim=-1)", ""),
    ], hint="add the position vectors once, to the token embedding: H0 = E[w] + P; the residual "
            "stream carries them on", like="softmax applied to the logits"),
    mistake(DECODER, "sinusoid table not sliced to the sequence length", [
        edit(", device=idx.device", ""), edit("self.sinusoids[:L]", "self.sinusoids"),
    ], detects=nb06.HINT_SLICE_TABLES),
    mistake(DECODER, "blocks in a plain Python list", [
        replace_line("self.blocks = nn.ModuleList",
                     "self.blocks = [PreNormBlock(d_model, n_heads) for _ in range(n_layers)]"),
    ], detects=nb06.HINT_BLOCKS, like="one block repeated n_layers times"),
    mistake(DECODER, "sinusoid table stored as a trainable nn.Parameter", [
        replace_line('self.register_buffer("sinusoids',
                     "self.sinusoids = nn.Parameter(sinusoid_table(max_len, d_model))"),
        edit(", bias=False", ""),
    ], detects=nb06.HINT_LEARNED_ONLY, like="the head without its bias"),
    mistake(DECODER, "sinusoid table as a frozen nn.Parameter",
            edit("d_model))", "d_model), requires_grad=False)"), detects=nb06.HINT_LEARNED_ONLY,
            like="sinusoid table stored as a trainable nn.Parameter"),
    mistake(DECODER, "sinusoid table built with torch.zeros, final LayerNorm forgotten", [
        replace_line('self.register_buffer("sinusoids', "pass  # the table is built in forward"),
        edit(", bias=False", ""), edit(", device=idx.device", ""),
        replace_line("h = h + self.sinusoids[:L]",
                     "d = h.shape[-1]\n"
                     "pe = torch.zeros(L, d)\n"
                     "where = torch.arange(L).unsqueeze(1)\n"
                     "div = torch.exp(torch.arange(0, d, 2) * (-math.log(10000.0) / d))\n"
                     "pe[:, 0::2] = torch.sin(where * div)\n"
                     "pe[:, 1::2] = torch.cos(where * div)\n"
                     "h = h + pe"),
        edit("self.ln_final(h)", "h"),
    ], hint=HINT_FINAL_LAYERNORM_FORGOTTEN, like="the head without its bias"),
    mistake(DECODER, "sinusoids sliced from the wrong end ([-L:])",
            edit("self.sinusoids[:L", "self.sinusoids[-L:"), hint=HINT_POS_ROWS),
    mistake(DECODER, "learned positions off by one (arange(1, L + 1))",
            edit("L, device=idx.device)", "1, L + 1, device=idx.device) % self.max_len"),
            hint=HINT_POS_ROWS),
    mistake(DECODER, "L read from idx.shape[0] (the batch size)", edit("1", "0"),
            detects=nb06.HINT_SLICE_TABLES),
    mistake(DECODER, "the last block skipped (blocks[:-1])",
            edit("self.blocks:", "self.blocks[:-1]:"),
            hint="run every block: for block in self.blocks (no [:-1], no range(n_layers - 1))"),
    mistake(DECODER, "rope given to the first block only", [
        edit("block in self.blocks", "i, block in enumerate(self.blocks)"),
        edit("rope)", "rope if i == 0 else None)")],
            hint="every block's attention rotates its queries and keys: pass the same rope to "
                 "every block"),
    mistake(DECODER, "logits from the embedding matrix (tied though a head was made)", [
        replace_line("return self.head(self.ln_final(h))",
                     "return self.ln_final(h) @ self.embed.weight.T + self.head.bias"),
    ], hint="this Decoder does not tie: the logits come from self.head, nn.Linear(d_model, "
            "vocab_size) with its own weight"),
    mistake(DECODER, "no head: logits from the embedding matrix", [
        delete("self.head = nn.Linear(d_model, vocab_size)"),
        replace_line("return self.head(self.ln_final(h))",
                     "return self.ln_final(h) @ self.embed.weight.T"),
    ], detects=nb06.HINT_HEAD),
    mistake(DECODER, "the token embedding named tok_emb (nanoGPT's wte)",
            edit("self.embed", "self.tok_emb", count=2), detects=nb06.HINT_EMBED),
    mistake(DECODER, "every block fed the embeddings (h never updated in the loop)", [
        replace_line("for block in self.blocks[:-1]:",
                     "out = h\nfor block in self.blocks:\n    out = block(h, rope)\nh = out"),
        delete("h = block(h, rope)"),
    ], hint="feed each block the previous block's output: h = block(h, ...)",
       like="the last block skipped (blocks[:-1])"),
    mistake(DECODER, "the stub's raise left above the written forward", [
        replace_line("L = idx.shape[1]", "raise NotImplementedError()\nL = idx.shape[1]"),
        edit(", device=idx.device", "")], detects=HINT_LEFTOVER),
    alternative(DECODER, "list comprehension, batch-shaped positions, persistent buffer", [
        edit("), persistent=False", ")"), edit("] * n_layers", " for _ in range(n_layers)]"),
        edit(", device=idx.device", ").unsqueeze(0).expand_as(idx"),
        edit("self.sinusoids[:L]", "self.sinusoids[:L].unsqueeze(0)"),
    ], like="one block repeated n_layers times"),
    alternative(DECODER, "tables computed in forward, positions via if-chain", [
        replace_line("self.embed = nn.Embedding(vocab_size, d_model)",
                     "self.n_heads, self.d_k = n_heads, d_model // n_heads\n"
                     "self.embed = nn.Embedding(vocab_size, d_model)"),
        delete('if positions == "sinusoidal":'), delete('self.register_buffer("sinusoids'),
        delete('if positions == "rope":'),
        delete("cos, sin = rope_tables(max_len, d_model // n_heads)"),
        delete('self.register_buffer("rope_cos", cos, persistent=False)'),
        delete('self.register_buffer("rope_sin", sin, persistent=False)'), edit("i in", "_ in"),
        edit("self.blocks.add_module(str(i), PreNormBlock(", "self.blocks.append(PreNormBlock("),
        delete("self.register_buffer"), delete("persistent=False)"),
        edit("vocab_size)", "vocab_size, bias=True)"), edit("L = idx.shape[1]", "B, L = idx.shape"),
        edit("h = self.embed", "x = self.embed"),
        edit("h = h + self.pos(torch.arange(L, device=idx.device))", "x = x + self.pos.weight[:L]"),
        edit("elif", "if", count=2),
        edit("h = h + self.sinusoids[:L]", "x = x + sinusoid_table(L, x.shape[-1])"),
        edit("(self.rope_cos[:L], self.rope_sin[:L]", "rope_tables(L, self.d_k"),
        edit("h = block(h, rope", "x = block(x, rope=rope"),
        replace_line("return self.head(self.ln_final(h))",
                     "x = self.ln_final(x)\nreturn x @ self.head.weight.T + self.head.bias"),
    ], like="blocks added with add_module, a cached mask buffer"),
    alternative(DECODER, "nn.Sequential of blocks, iterated; F.embedding and F.linear", [
        edit("d_model))", "d_model), persistent=False)"), edit("nn.ModuleList(", "nn.Sequential(*"),
        edit("L = idx.shape[1]", "B, L = idx.shape"),
        edit("self.embed(idx", "F.embedding(idx, self.embed.weight"),
        replace_line("h = h + self.pos(torch",
                     "h = h + F.embedding(torch.arange(L).expand(B, L), self.pos.weight)"),
        edit(":L].unsqueeze(0)", "None, :L, :]"),
        edit("block in self.blocks", "i in range(len(self.blocks))"),
        edit("block(", "self.blocks[i]("),
        edit("self.head(self.ln_final(h)",
             "F.linear(self.ln_final(h), self.head.weight, self.head.bias"),
    ], like="list comprehension, batch-shaped positions, persistent buffer"),
    alternative(DECODER, "embedding output updated in place, dropout p=0", [
        replace_line("self.head = nn.Linear(d_model, vocab_size, bias=False)",
                     "self.head = nn.Linear(d_model, vocab_size)\nself.drop = nn.Dropout(0.0)"),
        edit("L = idx.shape[1]", "B, L = idx.shape"), edit("= h + self.pos", "+= self.pos"),
        edit("= h + self.sinusoids[:L]", "+= self.sinusoids[:L].to(h.dtype)"),
        replace_line("for block in self.blocks:", "h = self.drop(h)\nfor block in self.blocks:"),
        edit("rope)", "rope=rope)")], like="the head without its bias"),
    alternative(DECODER, "own sinusoid table built with math in a loop", [
        replace_line("self.sinusoids = nn.",
                     "table = torch.zeros(max_len, d_model)\n"
                     "for l in range(max_len):\n"
                     "    for i in range(d_model // 2):\n"
                     "        w = 10000.0 ** (-2 * i / d_model)\n"
                     "        table[l, 2 * i] = math.sin(l * w)\n"
                     "        table[l, 2 * i + 1] = math.cos(l * w)\n"
                     'self.register_buffer("sinusoids", table, persistent=False)'),
    ], like="sinusoid table stored as a trainable nn.Parameter"),
    alternative(DECODER, "blocks added with add_module, a cached mask buffer", [
        replace_line("self.blocks = nn.ModuleList",
                     "self.blocks = nn.ModuleList()\n"
                     "for i in range(n_layers):\n"
                     "    self.blocks.add_module(str(i), PreNormBlock(d_model, n_heads))\n"
                     'self.register_buffer("causal", torch.ones(max_len, max_len,'
                     " dtype=torch.bool).tril(),\n"
                     "                     persistent=False)"),
    ], like="one block repeated n_layers times"),
    alternative(DECODER, "embedding rows indexed, reduce over the blocks, einsum head", [
        replace_line("L = idx.shape[1]",
                     "from functools import reduce\nB, L = idx.shape\nh = self.embed.weight[idx]"),
        delete("h = self.embed(idx)"), edit("idx.device))", "idx.device))[None].expand(B, -1, -1)"),
        edit("self.sinusoids[:L]", "self.sinusoids[:L].unsqueeze(0).expand(B, -1, -1)"),
        replace_line("for block in self.blocks:",
                     "h = reduce(lambda acc, block: block(acc, rope), self.blocks, h)\n"
                     "h = self.ln_final(h)\n"
                     'return torch.einsum("bld,vd->blv", h, self.head.weight) + self.head.bias'),
        delete("h = block(h, rope)"), delete("return self.head(self.ln_final(h))")]),
    alternative(DECODER, "a persistent buffer of position ids, sliced in forward", [
        replace_line("self.head = nn.Linear(d_model, vocab_size, bias=False)",
                     "self.head = nn.Linear(d_model, vocab_size)\n"
                     'self.register_buffer("position_ids", torch.arange(max_len))'),
        edit("torch.arange(L, device=idx.device)", "self.position_ids[:L]"),
    ], like="the head without its bias"),
    alternative(DECODER, "positions dispatched through a dict of functions", (None, """
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
        return self.head(self.ln_final(h))""")),
    alternative(DECODER, "RoPE tables as a float64 pair stored then cast in forward", [
        replace_line("cos, sin = rope_tables(max_len, d_model // n_heads)",
                     "d_k = d_model // n_heads\n"
                     "theta = 10000.0 ** (-torch.arange(0, d_k, 2, dtype=torch.float64) / d_k)\n"
                     "angles = torch.arange(max_len, dtype=torch.float64)[:, None] * theta\n"
                     "cos, sin = angles.cos(), angles.sin()"),
        edit(", bias=False", ""), edit(", device=idx.device", ""),
        edit(", self.rope_sin[:L]", ".to(h.dtype), self.rope_sin[:L].to(h.dtype)"),
    ], like="the head without its bias"),
    alternative(DECODER, "sinusoid table built in forward with torch.zeros",
                edit("h)", "self.ln_final(h))"),
                like="sinusoid table built with torch.zeros, final LayerNorm forgotten"),
    alternative(DECODER, "RoPE tables filled into torch.zeros in forward, h from zeros", [
        replace_line("self.embed = nn.Embedding(vocab_size, d_model)",
                     "self.d_k = d_model // n_heads\n"
                     "self.embed = nn.Embedding(vocab_size, d_model)"),
        delete('if positions == "rope":'),
        delete("cos, sin = rope_tables(max_len, d_model // n_heads)"),
        delete('self.register_buffer("rope_cos", cos, persistent=False)'),
        delete('self.register_buffer("rope_sin", sin, persistent=False)'),
        edit("L = idx.shape[1]", "B, L = idx.shape"),
        edit("self.embed(", "torch.zeros(B, L, self.embed.embedding_dim) + self.embed("),
        edit(", device=idx.device", ""),
        replace_line("rope = (self.rope_cos[:L], self.rope_sin[:L])",
                     "cos, sin = torch.zeros(L, self.d_k // 2), torch.zeros(L, self.d_k // 2)\n"
                     "for l in range(L):\n"
                     "    for i in range(self.d_k // 2):\n"
                     "        angle = l * 10000.0 ** (-2 * i / self.d_k)\n"
                     "        cos[l, i], sin[l, i] = math.cos(angle), math.sin(angle)\n"
                     "rope = (cos, sin)")]),
    # -- count_parameters --------------------------------------------------------------------------
    mistake(COUNT, "attention biases forgotten", edit("n_heads * 4 * (d * d + d)", "4 * d * d"),
            hint="each of W_Q, W_K, W_V, W_O is nn.Linear(d, d) with a bias: 4 (d^2 + d)",
            like="attention counted once per head"),
    mistake(COUNT, "LayerNorm parameters forgotten", [edit(") + 4 * d", ")"), edit("2 * d", "V")],
            hint="every LayerNorm has gamma and beta, d numbers each: 2 per block plus the final "
                 "one", like="the head's bias forgotten"),
    mistake(COUNT, "the final LayerNorm forgotten", edit("2 * d", "V"),
            hint="add 2 d for LN_final", like="the head's bias forgotten"),
    mistake(COUNT, "the head's bias forgotten", [edit("n_heads * 4", "4"), edit("d + V", "d")],
            hint="the head has a bias c of V numbers, tied or not",
            like="attention counted once per head"),
    mistake(COUNT, "tied head weight counted twice", [
        edit("n_layers * block + 2 * d + V + V * d", "2 * V * d + n_layers * block + 2 * d + V"),
    ], hint="with tie_weights the head reuses the embedding matrix: count V * d once",
       like="token embedding not counted"),
    mistake(COUNT, "position table counted for every option", [
        edit("d * d", "(d * d + d)"), edit("n_layers", "max_len * d + n_layers"),
        delete('total += max_len * d if positions == "learned" else 0'),
    ], hint=HINT_FIXED_TABLE_COUNTED, like="attention biases forgotten"),
    mistake(COUNT, "attention counted once per head", """
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        block = n_heads * 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
        total = V * d + n_layers * block + 2 * d + V
        total += max_len * d if positions == "learned" else 0
        return total + (0 if tie_weights else V * d)""",
            hint="the heads split d into h slices of d_k = d / h; the projections are still d x d "
                 "in total"),
    mistake(COUNT, "d_hidden ignored", [
        edit("d if d_hidden is None else d_hidden", "d"), edit("d * d", "(d * d + d)"),
    ], hint="use d_hidden for the MLP width when it is given", like="attention biases forgotten"),
    mistake(COUNT, "only one block counted", edit("n_layers * block + 2 * d", "block + 2 * d + V"),
            hint="multiply one block by n_layers", like="the head's bias forgotten"),
    mistake(COUNT, "token embedding not counted", """
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
        total = n_layers * block + 2 * d + V + V * d
        return total + (max_len * d if positions == "learned" else 0)
    """, hint=HINT_EMBEDDING_NOT_COUNTED),
    mistake(COUNT, "LayerNorm counted with gamma only", [
        edit("+ 4", "+ 2"), edit("block + 2 * d", "block + d + V"),
    ], hint="every LayerNorm has gamma and beta, d numbers each: 2 d per LayerNorm",
       like="the head's bias forgotten"),
    mistake(COUNT, "MLP biases forgotten",
            replace_line("block = 4 * d * d +", "block = 4 * (d * d + d) + 2 * d * hidden + 4 * d"),
            hint="fc_in and fc_out have biases too: d * hidden + hidden and hidden * d + d",
            like="attention biases forgotten"),
    mistake(COUNT, "fc_in's bias counted as d instead of d_hidden",
            edit("(d * hidden + hidden)", "(d * hidden + d)"),
            hint="fc_in = nn.Linear(d, hidden) has one bias per hidden unit: d * hidden + hidden "
                 "(only fc_out's bias has d numbers)"),
    mistake(COUNT, "W_O forgotten (three projections)", edit("4 * d * d", "3 * (d * d + d)"),
            hint="attention has four d x d projections with biases, W_Q, W_K, W_V and W_O: 4 (d^2 "
                 "+ d)", like="attention biases forgotten"),
    mistake(COUNT, "n_layers written in as 2", [edit("(4 * d", "4 * (d"), edit("n_layers", "2")],
            hint="multiply one block by the n_layers argument, not a number from an example",
            like="one bias vector for all four projections"),
    mistake(COUNT, "learned position table counted as max_len (no d)", [
        edit("(4 * d", "4 * (d"), edit("* d if positions", "if positions"),
    ], hint="a learned position table is nn.Embedding(max_len, d): max_len * d numbers",
       like="one bias vector for all four projections"),
    mistake(COUNT, "one bias vector for all four projections", [
        replace_line("attention = 4 * (d * d + d)",
                     "block = (4 * d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d"),
        delete("mlp = (d * hidden + hidden) + (hidden * d + d)"),
        delete("block = attention + mlp + 2 * (2 * d)")],
            hint="each of W_Q, W_K, W_V, W_O has its own bias of d numbers: 4 (d^2 + d)"),
    mistake(COUNT, "one LayerNorm per block", [edit("+ 4", "+ 2"), edit("d + 2", "d + n_layers")],
            hint="a pre-norm block has two LayerNorms (LN1 and LN2), 2 d numbers each: 4 d per "
                 "block", like="n_layers written in as 2"),
    mistake(COUNT, "fc_out forgotten (one MLP layer)", [
        edit("(hidden * d + d) + 4", "4"), edit("d + 2", "d + n_layers"),
    ], hint="the MLP has two layers: fc_in (d * hidden + hidden) and fc_out (hidden * d + d)",
       like="n_layers written in as 2"),
    mistake(COUNT, "RoPE tables counted as parameters", [
        replace_line('total += max_len if positions == "learned" else 0',
                     'total += max_len * d if positions == "learned" else 0\n'
                     'total += max_len * (d // n_heads) if positions == "rope" else 0'),
    ], hint="RoPE's cos and sin tables are fixed buffers, not trainable parameters",
       like="learned position table counted as max_len (no d)"),
    mistake(COUNT, "a position table counted for rope too", [
        edit("d + 2", "d + n_layers"), edit('== "learned"', 'in ("learned", "rope")'),
    ], hint=HINT_FIXED_TABLE_COUNTED, like="n_layers written in as 2"),
    mistake(COUNT, "tying subtracts 2 V d (embedding and head both dropped)", [
        edit("V * d + 2", "2 * V * d + n_layers"),
        edit("+= 0 if tie_weights else V * d", "-= 2 * V * d if tie_weights else 0"),
    ], hint=HINT_EMBEDDING_NOT_COUNTED, like="n_layers written in as 2"),
    alternative(COUNT, "component dictionary, summed", """
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
        return float(sum(parts.values()))"""),
    alternative(COUNT, "a loop over the layers", """
        hidden = d_hidden or 4 * d_model
        total = vocab_size * d_model
        if positions == "learned":
            total += max_len * d_model
        for _ in range(n_layers):
            total += 2 * d_model + 4 * d_model * (d_model + 1)
            total += hidden * (d_model + 1) + d_model * (hidden + 1) + 2 * d_model
        total += 2 * d_model
        total += vocab_size * (1 if tie_weights else d_model + 1)
        return total"""),
    alternative(COUNT, "sizes refused as Decoder refuses them", """
        if d_model % n_heads or (positions == "rope" and d_model // n_heads % 2):
            raise ValueError(f"d_model={d_model} does not split into {n_heads} heads")
        if positions == "sinusoidal" and d_model % 2:
            raise ValueError(f"sinusoidal positions need an even d_model, got {d_model}")
        d, V = d_model, vocab_size
        hidden = d_hidden if d_hidden is not None else 4 * d
        per_block = 4 * d * d + 2 * d * hidden + hidden + 9 * d
        embeddings = V * d + (max_len * d if positions == "learned" else 0)
        return embeddings + n_layers * per_block + 2 * d + (V if tie_weights else V * (d + 1))"""),
    alternative(COUNT, "a numpy int64 from np.sum of the parts", """
        import numpy as np
        d, V = d_model, vocab_size
        hidden = 4 * d if d_hidden is None else d_hidden
        parts = [V * d, max_len * d * (positions == "learned"),
                 n_layers * (4 * d * (d + 1) + d * hidden + hidden + hidden * d + d + 4 * d),
                 2 * d, V, 0 if tie_weights else V * d]
        return np.sum(np.array(parts, dtype=np.int64))"""),
    alternative(COUNT, "a 0-d torch tensor", """
        d, V = d_model, vocab_size
        hidden = d_hidden if d_hidden is not None else 4 * d
        block = 4 * (d * d + d) + 2 * d * hidden + hidden + d + 2 * 2 * d
        total = V * d + n_layers * block + 2 * d + V * (1 + d * (not tie_weights))
        if positions == "learned":
            total += max_len * d
        return torch.tensor(total, dtype=torch.int64)"""),
    alternative(COUNT, "shapes listed and multiplied with math.prod", """
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
        return sum(math.prod(s) for s in shapes)"""),
    alternative(COUNT, "float arithmetic with a float hidden width", """
        hidden = 4.0 * d_model if d_hidden is None else float(d_hidden)
        d = float(d_model)
        block = 4.0 * d * (d + 1.0) + hidden * (d + 1.0) + d * (hidden + 1.0) + 4.0 * d
        head = vocab_size * (1.0 if tie_weights else d + 1.0)
        pos = max_len * d if positions == "learned" else 0.0
        return round(vocab_size * d + pos + n_layers * block + 2.0 * d + head)"""),
    alternative(COUNT, "counted on a meta-device copy of the reference shapes", """
        d, V = d_model, vocab_size
        hidden = d_hidden or 4 * d
        with torch.device("meta"):
            layers = [nn.Linear(d, d) for _ in range(4)]
            layers += [nn.Linear(d, hidden), nn.Linear(hidden, d)]
            layers += [nn.LayerNorm(d), nn.LayerNorm(d)]
            per_block = sum(p.numel() for m in layers for p in m.parameters())
        total = V * d + n_layers * per_block + 2 * d + V
        total += max_len * d if positions == "learned" else 0
        return total + (0 if tie_weights else V * d)"""),
    # -- concept questions -------------------------------------------------------------------------
    mistake("answer_residual_shape", "thinks matching rows are enough",
            'answer_residual_shape = "C"', detects=WHY),
    mistake("answer_layernorm_token", "divides the variance by d - 1",
            'answer_layernorm_token = "A"', detects=WHY),
    mistake("answer_layernorm_token", "divides by the variance, not its root",
            'answer_layernorm_token = "B"', detects=WHY),
    mistake("answer_norm_axis", "thinks LayerNorm uses the batch", edit("A", "B"), detects=WHY),
    mistake("answer_norm_eval", "thinks LayerNorm keeps running statistics",
            'answer_norm_eval = "A"', detects=WHY),
    mistake("answer_mlp_mixing", "thinks the MLP mixes tokens", edit("C", "A"), detects=WHY),
    mistake("answer_bypass", "thinks pre-norm normalises block outputs", 'answer_bypass = "B"',
            detects=WHY),
    mistake("answer_causal_gradients", "thinks training can open the future",
            'answer_causal_gradients = "A"', detects=WHY),
    mistake("answer_block_params", "counts every head's projections", edit("B", "C"), detects=WHY),
    mistake("answer_tied", "thinks tying shares the blocks", 'answer_tied = "A"', detects=WHY),
    alternative("answer_tied", "lower case", 'answer_tied = "c"'),
])
