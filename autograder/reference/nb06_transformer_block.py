"""Reference answers for notebook 06_transformer_block: generated, do not edit.

Made by scripts/release.py (`make release`) from the answer cells of
solutions/06_transformer_block/06_transformer_block.ipynb. Used by the hidden tests and the project's
own tests; never shipped to students.
"""


# ruff: noqa: E501, I001, F841, UP034
import math
import torch
import torch.nn.functional as F
from torch import nn
from attnbook.demos.nb06 import POSITION_OPTIONS, causal_self_attention, require_last_axis
from attnbook.lm.model import rope_tables, sinusoid_table
from attnbook.shapes import require_min_ndim, require_ndim, require_same_size


# name: (options, correct letter, explanation shown when the answer is wrong)
ANSWERS = {
    'answer_residual_shape': ('ABC', 'A', 'H + F(H) adds elementwise, so F must return the (L, d) shape it received; (L, 4d) does not broadcast against (L, d), whatever L is.'),
    'answer_norm_axis': ('ABC', 'A', 'LayerNorm normalises one token over its own d features, the last axis of [B, L, d]; BatchNorm would use one feature across the batch.'),
    'answer_layernorm_token': ('ABC', 'C', 'mean 5, biased variance (9 + 1 + 1 + 9) / 4 = 5: (8 - 5) / sqrt(5) = 1.342, as for [1, 2, 3, 4]; 1.162 divides the variance by d - 1, 0.600 divides by the variance.'),
    'answer_norm_eval': ('ABC', 'B', 'LayerNorm keeps no running statistics: in evaluation, as in training, each token is normalised with its own mean and variance.'),
    'answer_mlp_mixing': ('ABC', 'C', "the MLP acts on each token's vector separately (token-wise): only attention moves information between positions."),
    'answer_bypass': ('ABC', 'A', "pre-norm normalises only each branch's input, so the bypass is untouched and a silent block is the identity; post-norm puts a LayerNorm on the main path."),
    'answer_causal_gradients': ('ABC', 'B', 'attention is causal in every block and all else is token-wise, so no path from input s reaches the logits at l < s, whatever the weights: blocked keys get weight exactly 0.'),
    'answer_block_params': ('ABC', 'B', 'attention 4 * (16 * 16 + 16) = 1088, MLP (16 * 64 + 64) + (64 * 16 + 16) = 2128, two LayerNorms 64: 3280. Biases count, and heads add no weights.'),
    'answer_tied': ('ABC', 'C', "tying makes the head's weight W_vocab the same (V, d) matrix as the embedding E, stored once; the head's bias c stays separate."),
}


# -- from the answer cell layer_norm
def layer_norm(h, gamma, beta, eps=1e-5):
    """LayerNorm over the last axis.

    Args:
        h: (..., d) tensor; each slice along the last axis is one token's features.
        gamma: (d,) scale.
        beta: (d,) shift.
        eps: small constant added to the variance inside the square root.

    Returns:
        (..., d) tensor: gamma * (h - mean) / sqrt(var + eps) + beta, with the mean and the
        biased variance of each token over its d features. h is not modified.
    """
    require_min_ndim("h", h, 1, "(..., d)")
    require_ndim("gamma", gamma, 1, "(d,)")
    require_ndim("beta", beta, 1, "(d,)")
    require_same_size("gamma", gamma, 0, "h", h, -1, "the feature width d")
    require_same_size("beta", beta, 0, "h", h, -1, "the feature width d")
    # Key idea: Normalise each token on its own: subtract its mean over the last axis, divide by
    #   the square root of its biased variance plus eps, then scale by gamma and shift by beta.
    mean = h.mean(dim=-1, keepdim=True)  # (..., 1)
    var = ((h - mean) ** 2).mean(dim=-1, keepdim=True)  # (..., 1), biased: divide by d
    return gamma * (h - mean) / torch.sqrt(var + eps) + beta  # (..., d)


# -- from the answer cell MLP
class MLP(nn.Module):
    """Token-wise feed-forward network: fc_out(GELU(fc_in(x))).

    Attributes:
        fc_in: nn.Linear(d_model, d_hidden), with bias.
        fc_out: nn.Linear(d_hidden, d_model), with bias.
    """

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        # Key idea: Widen, bend, narrow: d_model to d_hidden, GELU, d_hidden back to d_model, at
        #   each position on its own.
        self.fc_in = nn.Linear(d_model, d_hidden)
        self.fc_out = nn.Linear(d_hidden, d_model)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis("x", x, self.d_model, "d_model")
        return self.fc_out(F.gelu(self.fc_in(x)))  # (..., d) -> (..., d_hidden) -> (..., d)


# -- from the answer cell PreNormBlock
class PreNormBlock(nn.Module):
    """Pre-norm transformer block: U = H + MHA(LN1(H)), H_out = U + MLP(LN2(U)).

    Attributes:
        ln1, ln2: nn.LayerNorm(d_model).
        attn: causal_self_attention(d_model, n_heads).
        mlp: MLP(d_model, 4 * d_model).
    """

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        # Key idea: Normalise the input of each sublayer and add its output to the stream: u = h +
        #   attention(LN1(h)), then u + MLP(LN2(u)). The residual stream itself is never
        #   normalised.
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim("h", h, 3, "(B, L, d)")
        require_last_axis("h", h, self.d_model, "d_model")
        u = h + self.attn(self.ln1(h), rope)  # (B, L, d): communicate
        return u + self.mlp(self.ln2(u))  # (B, L, d): compute


# -- from the answer cell Decoder
class Decoder(nn.Module):
    """Causal decoder: token ids (B, L) -> next-token logits (B, L, V).

    Attributes:
        embed: nn.Embedding(vocab_size, d_model), the token embedding E.
        pos: nn.Embedding(max_len, d_model), only when positions == "learned".
        sinusoids: buffer (max_len, d_model), only when positions == "sinusoidal".
        rope_cos, rope_sin: buffers (max_len, d_k / 2), only when positions == "rope".
        blocks: nn.ModuleList of n_layers PreNormBlock(d_model, n_heads).
        ln_final: nn.LayerNorm(d_model).
        head: nn.Linear(d_model, vocab_size) with bias: W_vocab and c.
    """

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f"positions must be one of {POSITION_OPTIONS}; got {positions!r}")
        if positions == "rope" and n_heads > 0 and (d_model // n_heads) % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must "
                             f"be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == "sinusoidal" and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = "
                             f"{d_model}")
        self.max_len, self.positions = max_len, positions
        # Key idea: Embed the tokens, add the positions (or, for RoPE, hand their angles to the
        #   blocks), run the blocks in order, then a final LayerNorm and a linear head: one score
        #   per vocabulary entry at each position.
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == "learned":
            self.pos = nn.Embedding(max_len, d_model)
        if positions == "sinusoidal":
            self.register_buffer("sinusoids", sinusoid_table(max_len, d_model),
                                 persistent=False)  # (max_len, d)
        if positions == "rope":
            cos, sin = rope_tables(max_len, d_model // n_heads)  # (max_len, d_k/2) each
            self.register_buffer("rope_cos", cos, persistent=False)
            self.register_buffer("rope_sin", sin, persistent=False)
        self.blocks = nn.ModuleList(PreNormBlock(d_model, n_heads) for _ in range(n_layers))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim("idx", idx, 2, "(B, L)")
        if idx.shape[1] > self.max_len:
            raise ValueError(f"idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer "
                             f"than max_len = {self.max_len}")
        L = idx.shape[1]
        h = self.embed(idx)  # (B, L, d)
        rope = None
        if self.positions == "learned":
            h = h + self.pos(torch.arange(L, device=idx.device))  # (B, L, d) + (L, d)
        elif self.positions == "sinusoidal":
            h = h + self.sinusoids[:L]  # (B, L, d) + (L, d)
        elif self.positions == "rope":
            rope = (self.rope_cos[:L], self.rope_sin[:L])  # (L, d_k/2) each
        for block in self.blocks:
            h = block(h, rope)  # (B, L, d)
        return self.head(self.ln_final(h))  # (B, L, d) -> (B, L, V)


# -- from the answer cell count_parameters
def count_parameters(vocab_size, d_model, n_heads, n_layers, max_len, positions,
                     d_hidden=None, tie_weights=False):
    """Number of trainable parameters of the decoder, in closed form.

    Args:
        vocab_size, d_model, n_heads, n_layers, max_len, positions: as for Decoder.
        d_hidden: the MLP's hidden width; None means 4 * d_model.
        tie_weights: True when the head's weight matrix is the token embedding.

    Returns:
        int: the count, a shared (tied) matrix counted once.
    """
    if positions not in POSITION_OPTIONS:
        raise ValueError(f"positions must be one of {POSITION_OPTIONS}; got {positions!r}")
    # Key idea: Add up each layer's weights and biases: the embedding; per block four attention
    #   projections, two MLP layers and two LayerNorms; the final LayerNorm and the head. Learned
    #   positions and an untied head add a matrix each.
    d, V = d_model, vocab_size
    hidden = 4 * d if d_hidden is None else d_hidden
    attention = 4 * (d * d + d)  # W_Q, W_K, W_V, W_O with biases
    mlp = (d * hidden + hidden) + (hidden * d + d)  # fc_in, fc_out
    block = attention + mlp + 2 * (2 * d)  # plus LN1 and LN2
    total = V * d + n_layers * block + 2 * d + V  # embedding, blocks, LN_final, head bias
    total += max_len * d if positions == "learned" else 0
    total += 0 if tie_weights else V * d  # the head's own weight matrix
    return total


# -- the catalogued mistakes (autograder/mistakes/), resolved: the hidden trials run
# them on their inputs to name the slip a wrong output matches
# layer_norm: unbiased variance
def _slip_layer_norm_0(h, gamma, beta, eps=1e-05):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_ndim('beta', beta, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    require_same_size('beta', beta, 0, 'h', h, -1, 'the feature width d')
    mean = h.mean(dim=-1, keepdim=True)
    var = h.var(dim=-1, keepdim=True)
    return gamma * (h - mean) / torch.sqrt(var + eps) + beta

# layer_norm: eps outside the square root
def _slip_layer_norm_1(h, gamma, beta, eps=1e-05):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_ndim('beta', beta, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    require_same_size('beta', beta, 0, 'h', h, -1, 'the feature width d')
    mean = h.mean(dim=-1, keepdim=True)
    std = h.std(dim=-1, keepdim=True, unbiased=False)
    return gamma * (h - mean) / (std + eps) + beta

# layer_norm: no eps at all
def _slip_layer_norm_2(h, gamma, beta, eps=1e-05):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_ndim('beta', beta, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    require_same_size('beta', beta, 0, 'h', h, -1, 'the feature width d')
    mean = h.mean(dim=-1, keepdim=True)
    var = ((h - mean) ** 2).mean(dim=-1, keepdim=True)
    return gamma * (h - mean) / torch.sqrt(var) + beta

# layer_norm: normalising over the batch axis
def _slip_layer_norm_3(h, gamma, beta, eps=1e-05):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_ndim('beta', beta, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    require_same_size('beta', beta, 0, 'h', h, -1, 'the feature width d')
    mean = h.mean(dim=0, keepdim=True)
    var = ((h - mean) ** 2).mean(dim=0, keepdim=True)
    return gamma * (h - mean) / torch.sqrt(var + eps) + beta

# layer_norm: statistics over the whole tensor
def _slip_layer_norm_4(h, gamma, beta, eps=1e-05):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_ndim('beta', beta, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    require_same_size('beta', beta, 0, 'h', h, -1, 'the feature width d')
    mean = h.mean()
    var = ((h - mean) ** 2).mean()
    return gamma * (h - mean) / torch.sqrt(var + eps) + beta

# layer_norm: sqrt of the standard deviation
def _slip_layer_norm_5(h, gamma, beta, eps=1e-05):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_ndim('beta', beta, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    require_same_size('beta', beta, 0, 'h', h, -1, 'the feature width d')
    mean = h.mean(dim=-1, keepdim=True)
    std = h.std(dim=-1, keepdim=True, unbiased=False)
    return gamma * (h - mean) / torch.sqrt(std + eps) + beta

# layer_norm: eps argument ignored
def _slip_layer_norm_6(h, gamma, beta, eps=1e-05):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_ndim('beta', beta, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    require_same_size('beta', beta, 0, 'h', h, -1, 'the feature width d')
    mean = h.mean(dim=-1, keepdim=True)
    var = ((h - mean) ** 2).mean(dim=-1, keepdim=True)
    return gamma * (h - mean) / torch.sqrt(var + 1e-05) + beta

# layer_norm: gamma and beta swapped
def _slip_layer_norm_7(h, gamma, beta, eps=1e-05):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_ndim('beta', beta, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    require_same_size('beta', beta, 0, 'h', h, -1, 'the feature width d')
    mean = h.mean(dim=-1, keepdim=True)
    var = ((h - mean) ** 2).mean(dim=-1, keepdim=True)
    return beta * (h - mean) / torch.sqrt(var + eps) + gamma

# layer_norm: gamma and beta ignored
def _slip_layer_norm_8(h, gamma, beta, eps=1e-05):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_ndim('beta', beta, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    require_same_size('beta', beta, 0, 'h', h, -1, 'the feature width d')
    mean = h.mean(dim=-1, keepdim=True)
    var = ((h - mean) ** 2).mean(dim=-1, keepdim=True)
    return (h - mean) / torch.sqrt(var + eps)

# layer_norm: RMS normalisation (mean not subtracted)
def _slip_layer_norm_9(h, gamma, beta, eps=1e-05):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_ndim('beta', beta, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    require_same_size('beta', beta, 0, 'h', h, -1, 'the feature width d')
    return gamma * h / torch.sqrt((h ** 2).mean(dim=-1, keepdim=True) + eps) + beta

# layer_norm: keepdim forgotten
def _slip_layer_norm_10(h, gamma, beta, eps=1e-05):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_ndim('beta', beta, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    require_same_size('beta', beta, 0, 'h', h, -1, 'the feature width d')
    mean = h.mean(dim=-1)
    var = ((h - mean) ** 2).mean(dim=-1)
    return gamma * (h - mean) / torch.sqrt(var + eps) + beta

# layer_norm: changes h in place
def _slip_layer_norm_11(h, gamma, beta, eps=1e-05):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_ndim('beta', beta, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    require_same_size('beta', beta, 0, 'h', h, -1, 'the feature width d')
    h -= h.mean(dim=-1, keepdim=True)
    var = (h ** 2).mean(dim=-1, keepdim=True)
    return gamma * h / torch.sqrt(var + eps) + beta

# layer_norm: statistics over a hard-coded dim=1
def _slip_layer_norm_12(h, gamma, beta, eps=1e-05):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_ndim('beta', beta, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    require_same_size('beta', beta, 0, 'h', h, -1, 'the feature width d')
    mean = h.mean(dim=1, keepdim=True)
    var = ((h - mean) ** 2).mean(dim=1, keepdim=True)
    return gamma * (h - mean) / torch.sqrt(var + eps) + beta

# layer_norm: variance of h around zero (mean of h^2)
def _slip_layer_norm_13(h, gamma, beta, eps=1e-05):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_ndim('beta', beta, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    require_same_size('beta', beta, 0, 'h', h, -1, 'the feature width d')
    mean = h.mean(dim=-1, keepdim=True)
    var = (h ** 2).mean(dim=-1, keepdim=True)
    return gamma * (h - mean) / torch.sqrt(var + eps) + beta

# layer_norm: E[h^2] - E[h]: the mean not squared
def _slip_layer_norm_14(h, gamma, beta, eps=1e-05):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_ndim('beta', beta, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    require_same_size('beta', beta, 0, 'h', h, -1, 'the feature width d')
    mean = h.mean(dim=-1, keepdim=True)
    var = (h ** 2).mean(dim=-1, keepdim=True) - mean
    return gamma * (h - mean) / torch.sqrt(var + eps) + beta

# layer_norm: variance as E[h^2] - mean^2 (cancels in float32)
def _slip_layer_norm_15(h, gamma, beta, eps=1e-05):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_ndim('beta', beta, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    require_same_size('beta', beta, 0, 'h', h, -1, 'the feature width d')
    mean = h.mean(dim=-1, keepdim=True)
    var = (h * h).mean(dim=-1, keepdim=True) - mean ** 2
    return gamma * (h - mean) / torch.sqrt(var + eps) + beta

# layer_norm: mean absolute deviation instead of the variance
def _slip_layer_norm_16(h, gamma, beta, eps=1e-05):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_ndim('beta', beta, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    require_same_size('beta', beta, 0, 'h', h, -1, 'the feature width d')
    mean = h.mean(dim=-1, keepdim=True)
    var = (h - mean).abs().mean(dim=-1, keepdim=True)
    return gamma * (h - mean) / torch.sqrt(var + eps) + beta

# layer_norm: divided by the L2 norm of the centred token
def _slip_layer_norm_17(h, gamma, beta, eps=1e-05):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_ndim('beta', beta, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    require_same_size('beta', beta, 0, 'h', h, -1, 'the feature width d')
    centred = h - h.mean(dim=-1, keepdim=True)
    return gamma * centred / torch.sqrt((centred ** 2).sum(dim=-1, keepdim=True) + eps) + beta

# layer_norm: beta added before scaling by gamma
def _slip_layer_norm_18(h, gamma, beta, eps=1e-05):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_ndim('beta', beta, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    require_same_size('beta', beta, 0, 'h', h, -1, 'the feature width d')
    mean = h.mean(dim=-1, keepdim=True)
    var = ((h - mean) ** 2).mean(dim=-1, keepdim=True)
    return gamma * ((h - mean) / torch.sqrt(var + eps) + beta)

# layer_norm: calls PyTorch's own layer norm
def _slip_layer_norm_19(h, gamma, beta, eps=1e-05):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_ndim('beta', beta, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    require_same_size('beta', beta, 0, 'h', h, -1, 'the feature width d')
    return torch.nn.functional.layer_norm(h, h.shape[-1:], gamma, beta, eps)

# layer_norm: variance over a hard-coded dim=1 (right for 2-D only)
def _slip_layer_norm_20(h, gamma, beta, eps=1e-05):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_ndim('beta', beta, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    require_same_size('beta', beta, 0, 'h', h, -1, 'the feature width d')
    mean = h.mean(dim=-1, keepdim=True)
    var = ((h - mean) ** 2).mean(dim=1, keepdim=True)
    return gamma * (h - mean) / torch.sqrt(var + eps) + beta

# layer_norm: variance divided by h.shape[0] instead of d
def _slip_layer_norm_21(h, gamma, beta, eps=1e-05):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_ndim('beta', beta, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    require_same_size('beta', beta, 0, 'h', h, -1, 'the feature width d')
    mean = h.mean(dim=-1, keepdim=True)
    var = ((h - mean) ** 2).sum(dim=-1, keepdim=True) / h.shape[0]
    return gamma * (h - mean) / torch.sqrt(var + eps) + beta

# layer_norm: eps added after the division
def _slip_layer_norm_22(h, gamma, beta, eps=1e-05):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_ndim('beta', beta, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    require_same_size('beta', beta, 0, 'h', h, -1, 'the feature width d')
    mean = h.mean(dim=-1, keepdim=True)
    var = ((h - mean) ** 2).mean(dim=-1, keepdim=True)
    return gamma * (h - mean) / torch.sqrt(var) + eps + beta

# layer_norm: subtracts the mean with a sign slip (h + mean)
def _slip_layer_norm_23(h, gamma, beta, eps=1e-05):
    require_min_ndim('h', h, 1, '(..., d)')
    require_ndim('gamma', gamma, 1, '(d,)')
    require_ndim('beta', beta, 1, '(d,)')
    require_same_size('gamma', gamma, 0, 'h', h, -1, 'the feature width d')
    require_same_size('beta', beta, 0, 'h', h, -1, 'the feature width d')
    mean = h.mean(dim=-1, keepdim=True)
    var = ((h - mean) ** 2).mean(dim=-1, keepdim=True)
    return gamma * (h + mean) / torch.sqrt(var + eps) + beta

# MLP: tanh approximation of GELU
class _slip_MLP_0(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.fc_in = nn.Linear(d_model, d_hidden)
        self.fc_out = nn.Linear(d_hidden, d_model)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.fc_out(F.gelu(self.fc_in(x), approximate='tanh'))

# MLP: ReLU instead of GELU
class _slip_MLP_1(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.fc_in = nn.Linear(d_model, d_hidden)
        self.fc_out = nn.Linear(d_hidden, d_model)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.fc_out(torch.relu(self.fc_in(x)))

# MLP: forward under torch.no_grad() (copied from inference code)
class _slip_MLP_2(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.fc_in = nn.Linear(d_model, d_hidden)
        self.fc_out = nn.Linear(d_hidden, d_model)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        with torch.no_grad():
            return self.fc_out(F.gelu(self.fc_in(x)))

# MLP: hidden activations detached: fc_in never trains
class _slip_MLP_3(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.fc_in = nn.Linear(d_model, d_hidden)
        self.fc_out = nn.Linear(d_hidden, d_model)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.fc_out(F.gelu(self.fc_in(x)).detach())

# MLP: no activation
class _slip_MLP_4(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.fc_in = nn.Linear(d_model, d_hidden)
        self.fc_out = nn.Linear(d_hidden, d_model)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.fc_out(self.fc_in(x))

# MLP: an extra GELU at the output
class _slip_MLP_5(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.fc_in = nn.Linear(d_model, d_hidden)
        self.fc_out = nn.Linear(d_hidden, d_model)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return F.gelu(self.fc_out(F.gelu(self.fc_in(x))))

# MLP: residual added inside the MLP
class _slip_MLP_6(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.fc_in = nn.Linear(d_model, d_hidden)
        self.fc_out = nn.Linear(d_hidden, d_model)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return x + self.fc_out(F.gelu(self.fc_in(x)))

# MLP: layer sizes swapped
class _slip_MLP_7(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.fc_in = nn.Linear(d_hidden, d_model)
        self.fc_out = nn.Linear(d_model, d_hidden)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.fc_out(F.gelu(self.fc_in(x)))

# MLP: linear layers without bias
class _slip_MLP_8(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.fc_in = nn.Linear(d_model, d_hidden, bias=False)
        self.fc_out = nn.Linear(d_hidden, d_model, bias=False)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.fc_out(F.gelu(self.fc_in(x)))

# MLP: an nn.Sequential instead of the named layers
class _slip_MLP_9(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.net = nn.Sequential(nn.Linear(d_model, d_hidden), nn.GELU(), nn.Linear(d_hidden, d_model))

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.net(x)

# MLP: SiLU instead of GELU
class _slip_MLP_10(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.fc_in = nn.Linear(d_model, d_hidden)
        self.fc_out = nn.Linear(d_hidden, d_model)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.fc_out(F.silu(self.fc_in(x)))

# MLP: sigmoid approximation of GELU, x * sigmoid(1.702 x)
class _slip_MLP_11(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.fc_in = nn.Linear(d_model, d_hidden)
        self.fc_out = nn.Linear(d_hidden, d_model)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        a = self.fc_in(x)
        return self.fc_out(a * torch.sigmoid(1.702 * a))

# MLP: GELU applied to the input before fc_in
class _slip_MLP_12(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.fc_in = nn.Linear(d_model, d_hidden)
        self.fc_out = nn.Linear(d_hidden, d_model)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.fc_out(self.fc_in(F.gelu(x)))

# MLP: F.dropout on the hidden layer (training=True by default)
class _slip_MLP_13(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.fc_in = nn.Linear(d_model, d_hidden)
        self.fc_out = nn.Linear(d_hidden, d_model)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.fc_out(F.dropout(F.gelu(self.fc_in(x)), 0.1))

# MLP: a LayerNorm inside the MLP
class _slip_MLP_14(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.fc_in = nn.Linear(d_model, d_hidden)
        self.fc_out = nn.Linear(d_hidden, d_model)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.fc_out(F.gelu(self.fc_in(F.layer_norm(x, (self.d_model,)))))

# MLP: tokens flattened and not reshaped back
class _slip_MLP_15(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.fc_in = nn.Linear(d_model, d_hidden)
        self.fc_out = nn.Linear(d_hidden, d_model)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        return self.fc_out(F.gelu(self.fc_in(x.reshape(-1, self.d_model))))

# MLP: forward without return
class _slip_MLP_16(nn.Module):

    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.d_model = d_model
        self.fc_in = nn.Linear(d_model, d_hidden)
        self.fc_out = nn.Linear(d_hidden, d_model)

    def forward(self, x):
        """x: (..., d_model) -> (..., d_model); every token is transformed on its own."""
        require_last_axis('x', x, self.d_model, 'd_model')
        h = self.fc_out(F.gelu(self.fc_in(x)))

# PreNormBlock: post-norm where pre-norm is asked
class _slip_PreNormBlock_0(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        u = self.ln1(h + self.attn(h, rope))
        return self.ln2(u + self.mlp(u))

# PreNormBlock: missing residual around the attention
class _slip_PreNormBlock_1(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        u = self.attn(self.ln1(h), rope)
        return u + self.mlp(self.ln2(u))

# PreNormBlock: missing residual around the MLP
class _slip_PreNormBlock_2(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        u = h + self.attn(self.ln1(h), rope)
        return self.mlp(self.ln2(u))

# PreNormBlock: residual taken from the normalised input
class _slip_PreNormBlock_3(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        u = self.ln1(h) + self.attn(self.ln1(h), rope)
        return self.ln2(u) + self.mlp(self.ln2(u))

# PreNormBlock: attention and MLP in parallel
class _slip_PreNormBlock_4(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        return h + self.attn(self.ln1(h), rope) + self.mlp(self.ln2(h))

# PreNormBlock: LN1 reused before the MLP
class _slip_PreNormBlock_5(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        u = h + self.attn(self.ln1(h), rope)
        return u + self.mlp(self.ln1(u))

# PreNormBlock: no LayerNorm in the branches
class _slip_PreNormBlock_6(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        u = h + self.attn(h, rope)
        return u + self.mlp(u)

# PreNormBlock: MLP before attention
class _slip_PreNormBlock_7(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        u = h + self.mlp(self.ln2(h))
        return u + self.attn(self.ln1(u), rope)

# PreNormBlock: no residual connections at all
class _slip_PreNormBlock_8(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        u = self.attn(self.ln1(h), rope)
        return self.mlp(self.ln2(u))

# PreNormBlock: rope not passed to the attention
class _slip_PreNormBlock_9(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        u = h + self.attn(self.ln1(h))
        return u + self.mlp(self.ln2(u))

# PreNormBlock: MLP hidden width d_model
class _slip_PreNormBlock_10(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        u = h + self.attn(self.ln1(h), rope)
        return u + self.mlp(self.ln2(u))

# PreNormBlock: attention built from nn.MultiheadAttention
class _slip_PreNormBlock_11(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = nn.MultiheadAttention(d_model, n_heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        u = h + self.attn(self.ln1(h), rope)
        return u + self.mlp(self.ln2(u))

# PreNormBlock: adds into h in place
class _slip_PreNormBlock_12(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        h += self.attn(self.ln1(h), rope)
        return h + self.mlp(self.ln2(h))

# PreNormBlock: LN1 and LN2 swapped
class _slip_PreNormBlock_13(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        u = h + self.attn(self.ln2(h), rope)
        return u + self.mlp(self.ln1(u))

# PreNormBlock: second residual adds H instead of U
class _slip_PreNormBlock_14(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        u = h + self.attn(self.ln1(h), rope)
        return h + self.mlp(self.ln2(u))

# PreNormBlock: LayerNorm on the branch outputs instead of inputs
class _slip_PreNormBlock_15(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        u = h + self.ln1(self.attn(h, rope))
        return u + self.ln2(self.mlp(u))

# PreNormBlock: the output normalised again
class _slip_PreNormBlock_16(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        u = h + self.attn(self.ln1(h), rope)
        return self.ln2(u + self.mlp(self.ln2(u)))

# PreNormBlock: one LayerNorm shared by both branches
class _slip_PreNormBlock_17(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        u = h + self.attn(self.ln(h), rope)
        return u + self.mlp(self.ln(u))

# PreNormBlock: LN1 built without its bias
class _slip_PreNormBlock_18(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model, bias=False)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        u = h + self.attn(self.ln1(h), rope)
        return u + self.mlp(self.ln2(u))

# PreNormBlock: ln2 never created: ln1 normalises both branches
class _slip_PreNormBlock_19(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        u = h + self.attn(self.ln1(h), rope)
        return u + self.mlp(self.ln1(u))

# PreNormBlock: the MLP written inline as an nn.Sequential, not the MLP class
class _slip_PreNormBlock_20(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        u = h + self.attn(self.ln1(h), rope)
        return u + self.mlp(self.ln2(u))

# PreNormBlock: LayerScale on the MLP branch: a parameter the reference lacks
class _slip_PreNormBlock_21(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)
        self.scale = nn.Parameter(torch.ones(d_model))

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        u = h + self.attn(self.ln1(h), rope)
        return u + self.scale * self.mlp(self.ln2(u))

# PreNormBlock: residual branches scaled by 1/2 (averaged with the input)
class _slip_PreNormBlock_22(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        u = (h + self.attn(self.ln1(h), rope)) / 2
        return (u + self.mlp(self.ln2(u))) / 2

# PreNormBlock: F.dropout on both branches (training=True by default)
class _slip_PreNormBlock_23(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        u = h + F.dropout(self.attn(self.ln1(h), rope), 0.1)
        return u + F.dropout(self.mlp(self.ln2(u)), 0.1)

# PreNormBlock: returns U (the MLP half computed, not returned)
class _slip_PreNormBlock_24(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        u = h + self.attn(self.ln1(h), rope)
        out = u + self.mlp(self.ln2(u))
        return u

# PreNormBlock: LayerNorm eps 1e-6 (a hard-coded constant)
class _slip_PreNormBlock_25(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model, eps=1e-06)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model, eps=1e-06)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        u = h + self.attn(self.ln1(h), rope)
        return u + self.mlp(self.ln2(u))

# PreNormBlock: in place on a clone of h: ln2 reads out, then += changes it (no backward)
class _slip_PreNormBlock_26(nn.Module):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_model = d_model
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = causal_self_attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, h, rope=None):
        """h: (B, L, d) -> (B, L, d). rope: None or (cos, sin) for the attention layer."""
        require_ndim('h', h, 3, '(B, L, d)')
        require_last_axis('h', h, self.d_model, 'd_model')
        out = h.clone()
        out += self.attn(self.ln1(h), rope)
        out += self.mlp(self.ln2(out))
        return out

# Decoder: ln_final with another eps (1e-6)
class _slip_Decoder_0(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model, eps=1e-06)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L, device=idx.device))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h, rope)
        return self.head(self.ln_final(h))

# Decoder: the final LayerNorm forgotten (created, not applied)
class _slip_Decoder_1(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h, rope)
        return self.head(h)

# Decoder: the final LayerNorm forgotten (never created)
class _slip_Decoder_2(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h, rope)
        return self.head(h)

# Decoder: the head without its bias
class _slip_Decoder_3(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L, device=idx.device))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h, rope)
        return self.head(self.ln_final(h))

# Decoder: the RoPE tables kept as plain attributes, not buffers
class _slip_Decoder_4(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.rope_cos = cos
            self.rope_sin = sin
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L, device=idx.device))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h, rope)
        return self.head(self.ln_final(h))

# Decoder: the blocks under torch.no_grad(): only ln_final and the head train
class _slip_Decoder_5(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L, device=idx.device))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            with torch.no_grad():
                h = block(h, rope)
        return self.head(self.ln_final(h))

# Decoder: softmax applied to the logits
class _slip_Decoder_6(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h, rope)
        return self.head(self.ln_final(h)).softmax(dim=-1)

# Decoder: learned positions never added
class _slip_Decoder_7(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            pass
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h, rope)
        return self.head(self.ln_final(h))

# Decoder: sinusoids never added
class _slip_Decoder_8(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L))
        elif self.positions == 'sinusoidal':
            pass
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h, rope)
        return self.head(self.ln_final(h))

# Decoder: positions looked up with the token ids
class _slip_Decoder_9(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(idx)
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h, rope)
        return self.head(self.ln_final(h))

# Decoder: RoPE tables not passed to the blocks
class _slip_Decoder_10(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h)
        return self.head(self.ln_final(h))

# Decoder: token embedding scaled by sqrt(d_model)
class _slip_Decoder_11(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx) * self.embed.embedding_dim ** 0.5
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h, rope)
        return self.head(self.ln_final(h))

# Decoder: one block repeated n_layers times
class _slip_Decoder_12(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList([PreNormBlock(d_model, n_heads)] * n_layers)
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L, device=idx.device))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h, rope)
        return self.head(self.ln_final(h))

# Decoder: a trainable position table for every option
class _slip_Decoder_13(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if True:
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L, device=idx.device))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h, rope)
        return self.head(self.ln_final(h))

# Decoder: RoPE tables built for the full width d_model
class _slip_Decoder_14(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L, device=idx.device))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h, rope)
        return self.head(self.ln_final(h))

# Decoder: block outputs discarded (block(h) not assigned)
class _slip_Decoder_15(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            block(h, rope)
        return self.head(self.ln_final(h))

# Decoder: final LayerNorm applied after every block
class _slip_Decoder_16(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = self.ln_final(block(h, rope))
        return self.head(h)

# Decoder: positions added before every block
class _slip_Decoder_17(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            pass
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h + self.pos(torch.arange(L)) if self.positions == 'learned' else h, rope)
        return self.head(self.ln_final(h))

# Decoder: sinusoid table not sliced to the sequence length
class _slip_Decoder_18(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h, rope)
        return self.head(self.ln_final(h))

# Decoder: blocks in a plain Python list
class _slip_Decoder_19(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = [PreNormBlock(d_model, n_heads) for _ in range(n_layers)]
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L, device=idx.device))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h, rope)
        return self.head(self.ln_final(h))

# Decoder: sinusoid table stored as a trainable nn.Parameter
class _slip_Decoder_20(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.sinusoids = nn.Parameter(sinusoid_table(max_len, d_model))
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L, device=idx.device))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h, rope)
        return self.head(self.ln_final(h))

# Decoder: sinusoid table as a frozen nn.Parameter
class _slip_Decoder_21(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.sinusoids = nn.Parameter(sinusoid_table(max_len, d_model), requires_grad=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L, device=idx.device))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h, rope)
        return self.head(self.ln_final(h))

# Decoder: sinusoid table built with torch.zeros, final LayerNorm forgotten
class _slip_Decoder_22(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            pass
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L))
        elif self.positions == 'sinusoidal':
            d = h.shape[-1]
            pe = torch.zeros(L, d)
            where = torch.arange(L).unsqueeze(1)
            div = torch.exp(torch.arange(0, d, 2) * (-math.log(10000.0) / d))
            pe[:, 0::2] = torch.sin(where * div)
            pe[:, 1::2] = torch.cos(where * div)
            h = h + pe
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h, rope)
        return self.head(h)

# Decoder: sinusoids sliced from the wrong end ([-L:])
class _slip_Decoder_23(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L, device=idx.device))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[-L:]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h, rope)
        return self.head(self.ln_final(h))

# Decoder: learned positions off by one (arange(1, L + 1))
class _slip_Decoder_24(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(1, L + 1, device=idx.device) % self.max_len)
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h, rope)
        return self.head(self.ln_final(h))

# Decoder: L read from idx.shape[0] (the batch size)
class _slip_Decoder_25(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[0]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L, device=idx.device))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h, rope)
        return self.head(self.ln_final(h))

# Decoder: the last block skipped (blocks[:-1])
class _slip_Decoder_26(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L, device=idx.device))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks[:-1]:
            h = block(h, rope)
        return self.head(self.ln_final(h))

# Decoder: rope given to the first block only
class _slip_Decoder_27(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L, device=idx.device))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for i, block in enumerate(self.blocks):
            h = block(h, rope if i == 0 else None)
        return self.head(self.ln_final(h))

# Decoder: logits from the embedding matrix (tied though a head was made)
class _slip_Decoder_28(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L, device=idx.device))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h, rope)
        return self.ln_final(h) @ self.embed.weight.T + self.head.bias

# Decoder: no head: logits from the embedding matrix
class _slip_Decoder_29(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L, device=idx.device))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h, rope)
        return self.ln_final(h) @ self.embed.weight.T

# Decoder: the token embedding named tok_emb (nanoGPT's wte)
class _slip_Decoder_30(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.tok_emb = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.tok_emb(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L, device=idx.device))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h, rope)
        return self.head(self.ln_final(h))

# Decoder: every block fed the embeddings (h never updated in the loop)
class _slip_Decoder_31(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L, device=idx.device))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        out = h
        for block in self.blocks:
            out = block(h, rope)
        h = out
        return self.head(self.ln_final(h))

# Decoder: the stub's raise left above the written forward
class _slip_Decoder_32(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, positions):
        super().__init__()
        if positions not in POSITION_OPTIONS:
            raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
        if positions == 'rope' and n_heads > 0 and d_model // n_heads % 2:
            raise ValueError(f"positions='rope' rotates pairs, so d_k = d_model // n_heads must be even; got d_model = {d_model}, n_heads = {n_heads}")
        if positions == 'sinusoidal' and d_model % 2:
            raise ValueError(f"positions='sinusoidal' needs an even d_model; got d_model = {d_model}")
        self.max_len, self.positions = (max_len, positions)
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == 'learned':
            self.pos = nn.Embedding(max_len, d_model)
        if positions == 'sinusoidal':
            self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        if positions == 'rope':
            cos, sin = rope_tables(max_len, d_model // n_heads)
            self.register_buffer('rope_cos', cos, persistent=False)
            self.register_buffer('rope_sin', sin, persistent=False)
        self.blocks = nn.ModuleList((PreNormBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx):
        """idx: (B, L) integer token ids, L <= max_len -> logits (B, L, V)."""
        require_ndim('idx', idx, 2, '(B, L)')
        if idx.shape[1] > self.max_len:
            raise ValueError(f'idx has shape {tuple(idx.shape)}: L = {idx.shape[1]} is longer than max_len = {self.max_len}')
        raise NotImplementedError()
        L = idx.shape[1]
        h = self.embed(idx)
        rope = None
        if self.positions == 'learned':
            h = h + self.pos(torch.arange(L))
        elif self.positions == 'sinusoidal':
            h = h + self.sinusoids[:L]
        elif self.positions == 'rope':
            rope = (self.rope_cos[:L], self.rope_sin[:L])
        for block in self.blocks:
            h = block(h, rope)
        return self.head(self.ln_final(h))

# count_parameters: attention biases forgotten
def _slip_count_parameters_0(vocab_size, d_model, n_heads, n_layers, max_len, positions, d_hidden=None, tie_weights=False):
    if positions not in POSITION_OPTIONS:
        raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
    d, V = (d_model, vocab_size)
    hidden = 4 * d if d_hidden is None else d_hidden
    block = 4 * d * d + (d * hidden + hidden) + (hidden * d + d) + 4 * d
    total = V * d + n_layers * block + 2 * d + V
    total += max_len * d if positions == 'learned' else 0
    return total + (0 if tie_weights else V * d)

# count_parameters: LayerNorm parameters forgotten
def _slip_count_parameters_1(vocab_size, d_model, n_heads, n_layers, max_len, positions, d_hidden=None, tie_weights=False):
    if positions not in POSITION_OPTIONS:
        raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
    d, V = (d_model, vocab_size)
    hidden = 4 * d if d_hidden is None else d_hidden
    block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d)
    total = V * d + n_layers * block + V
    total += max_len * d if positions == 'learned' else 0
    return total + (0 if tie_weights else V * d)

# count_parameters: the final LayerNorm forgotten
def _slip_count_parameters_2(vocab_size, d_model, n_heads, n_layers, max_len, positions, d_hidden=None, tie_weights=False):
    if positions not in POSITION_OPTIONS:
        raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
    d, V = (d_model, vocab_size)
    hidden = 4 * d if d_hidden is None else d_hidden
    block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
    total = V * d + n_layers * block + V
    total += max_len * d if positions == 'learned' else 0
    return total + (0 if tie_weights else V * d)

# count_parameters: the head's bias forgotten
def _slip_count_parameters_3(vocab_size, d_model, n_heads, n_layers, max_len, positions, d_hidden=None, tie_weights=False):
    if positions not in POSITION_OPTIONS:
        raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
    d, V = (d_model, vocab_size)
    hidden = 4 * d if d_hidden is None else d_hidden
    block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
    total = V * d + n_layers * block + 2 * d
    total += max_len * d if positions == 'learned' else 0
    return total + (0 if tie_weights else V * d)

# count_parameters: tied head weight counted twice
def _slip_count_parameters_4(vocab_size, d_model, n_heads, n_layers, max_len, positions, d_hidden=None, tie_weights=False):
    if positions not in POSITION_OPTIONS:
        raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
    d, V = (d_model, vocab_size)
    hidden = 4 * d if d_hidden is None else d_hidden
    block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
    total = 2 * V * d + n_layers * block + 2 * d + V
    return total + (max_len * d if positions == 'learned' else 0)

# count_parameters: position table counted for every option
def _slip_count_parameters_5(vocab_size, d_model, n_heads, n_layers, max_len, positions, d_hidden=None, tie_weights=False):
    if positions not in POSITION_OPTIONS:
        raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
    d, V = (d_model, vocab_size)
    hidden = 4 * d if d_hidden is None else d_hidden
    block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
    total = V * d + max_len * d + n_layers * block + 2 * d + V
    return total + (0 if tie_weights else V * d)

# count_parameters: attention counted once per head
def _slip_count_parameters_6(vocab_size, d_model, n_heads, n_layers, max_len, positions, d_hidden=None, tie_weights=False):
    if positions not in POSITION_OPTIONS:
        raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
    d, V = (d_model, vocab_size)
    hidden = 4 * d if d_hidden is None else d_hidden
    block = n_heads * 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
    total = V * d + n_layers * block + 2 * d + V
    total += max_len * d if positions == 'learned' else 0
    return total + (0 if tie_weights else V * d)

# count_parameters: d_hidden ignored
def _slip_count_parameters_7(vocab_size, d_model, n_heads, n_layers, max_len, positions, d_hidden=None, tie_weights=False):
    if positions not in POSITION_OPTIONS:
        raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
    d, V = (d_model, vocab_size)
    hidden = 4 * d
    block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
    total = V * d + n_layers * block + 2 * d + V
    total += max_len * d if positions == 'learned' else 0
    return total + (0 if tie_weights else V * d)

# count_parameters: only one block counted
def _slip_count_parameters_8(vocab_size, d_model, n_heads, n_layers, max_len, positions, d_hidden=None, tie_weights=False):
    if positions not in POSITION_OPTIONS:
        raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
    d, V = (d_model, vocab_size)
    hidden = 4 * d if d_hidden is None else d_hidden
    block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
    total = V * d + block + 2 * d + V
    total += max_len * d if positions == 'learned' else 0
    return total + (0 if tie_weights else V * d)

# count_parameters: token embedding not counted
def _slip_count_parameters_9(vocab_size, d_model, n_heads, n_layers, max_len, positions, d_hidden=None, tie_weights=False):
    if positions not in POSITION_OPTIONS:
        raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
    d, V = (d_model, vocab_size)
    hidden = 4 * d if d_hidden is None else d_hidden
    block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
    total = n_layers * block + 2 * d + V + V * d
    return total + (max_len * d if positions == 'learned' else 0)

# count_parameters: LayerNorm counted with gamma only
def _slip_count_parameters_10(vocab_size, d_model, n_heads, n_layers, max_len, positions, d_hidden=None, tie_weights=False):
    if positions not in POSITION_OPTIONS:
        raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
    d, V = (d_model, vocab_size)
    hidden = 4 * d if d_hidden is None else d_hidden
    block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 2 * d
    total = V * d + n_layers * block + d + V
    total += max_len * d if positions == 'learned' else 0
    return total + (0 if tie_weights else V * d)

# count_parameters: MLP biases forgotten
def _slip_count_parameters_11(vocab_size, d_model, n_heads, n_layers, max_len, positions, d_hidden=None, tie_weights=False):
    if positions not in POSITION_OPTIONS:
        raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
    d, V = (d_model, vocab_size)
    hidden = 4 * d if d_hidden is None else d_hidden
    block = 4 * (d * d + d) + 2 * d * hidden + 4 * d
    total = V * d + n_layers * block + 2 * d + V
    total += max_len * d if positions == 'learned' else 0
    return total + (0 if tie_weights else V * d)

# count_parameters: fc_in's bias counted as d instead of d_hidden
def _slip_count_parameters_12(vocab_size, d_model, n_heads, n_layers, max_len, positions, d_hidden=None, tie_weights=False):
    if positions not in POSITION_OPTIONS:
        raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
    d, V = (d_model, vocab_size)
    hidden = 4 * d if d_hidden is None else d_hidden
    attention = 4 * (d * d + d)
    mlp = d * hidden + d + (hidden * d + d)
    block = attention + mlp + 2 * (2 * d)
    total = V * d + n_layers * block + 2 * d + V
    total += max_len * d if positions == 'learned' else 0
    total += 0 if tie_weights else V * d
    return total

# count_parameters: W_O forgotten (three projections)
def _slip_count_parameters_13(vocab_size, d_model, n_heads, n_layers, max_len, positions, d_hidden=None, tie_weights=False):
    if positions not in POSITION_OPTIONS:
        raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
    d, V = (d_model, vocab_size)
    hidden = 4 * d if d_hidden is None else d_hidden
    block = 3 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
    total = V * d + n_layers * block + 2 * d + V
    total += max_len * d if positions == 'learned' else 0
    return total + (0 if tie_weights else V * d)

# count_parameters: n_layers written in as 2
def _slip_count_parameters_14(vocab_size, d_model, n_heads, n_layers, max_len, positions, d_hidden=None, tie_weights=False):
    if positions not in POSITION_OPTIONS:
        raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
    d, V = (d_model, vocab_size)
    hidden = 4 * d if d_hidden is None else d_hidden
    block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
    total = V * d + 2 * block + 2 * d + V
    total += max_len * d if positions == 'learned' else 0
    total += 0 if tie_weights else V * d
    return total

# count_parameters: learned position table counted as max_len (no d)
def _slip_count_parameters_15(vocab_size, d_model, n_heads, n_layers, max_len, positions, d_hidden=None, tie_weights=False):
    if positions not in POSITION_OPTIONS:
        raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
    d, V = (d_model, vocab_size)
    hidden = 4 * d if d_hidden is None else d_hidden
    block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
    total = V * d + n_layers * block + 2 * d + V
    total += max_len if positions == 'learned' else 0
    total += 0 if tie_weights else V * d
    return total

# count_parameters: one bias vector for all four projections
def _slip_count_parameters_16(vocab_size, d_model, n_heads, n_layers, max_len, positions, d_hidden=None, tie_weights=False):
    if positions not in POSITION_OPTIONS:
        raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
    d, V = (d_model, vocab_size)
    hidden = 4 * d if d_hidden is None else d_hidden
    block = 4 * d * d + d + (d * hidden + hidden) + (hidden * d + d) + 4 * d
    total = V * d + n_layers * block + 2 * d + V
    total += max_len * d if positions == 'learned' else 0
    total += 0 if tie_weights else V * d
    return total

# count_parameters: one LayerNorm per block
def _slip_count_parameters_17(vocab_size, d_model, n_heads, n_layers, max_len, positions, d_hidden=None, tie_weights=False):
    if positions not in POSITION_OPTIONS:
        raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
    d, V = (d_model, vocab_size)
    hidden = 4 * d if d_hidden is None else d_hidden
    block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 2 * d
    total = V * d + n_layers * block + 2 * d + V
    total += max_len * d if positions == 'learned' else 0
    total += 0 if tie_weights else V * d
    return total

# count_parameters: fc_out forgotten (one MLP layer)
def _slip_count_parameters_18(vocab_size, d_model, n_heads, n_layers, max_len, positions, d_hidden=None, tie_weights=False):
    if positions not in POSITION_OPTIONS:
        raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
    d, V = (d_model, vocab_size)
    hidden = 4 * d if d_hidden is None else d_hidden
    block = 4 * (d * d + d) + (d * hidden + hidden) + 4 * d
    total = V * d + n_layers * block + 2 * d + V
    total += max_len * d if positions == 'learned' else 0
    total += 0 if tie_weights else V * d
    return total

# count_parameters: RoPE tables counted as parameters
def _slip_count_parameters_19(vocab_size, d_model, n_heads, n_layers, max_len, positions, d_hidden=None, tie_weights=False):
    if positions not in POSITION_OPTIONS:
        raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
    d, V = (d_model, vocab_size)
    hidden = 4 * d if d_hidden is None else d_hidden
    block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
    total = V * d + n_layers * block + 2 * d + V
    total += max_len * d if positions == 'learned' else 0
    total += max_len * (d // n_heads) if positions == 'rope' else 0
    total += 0 if tie_weights else V * d
    return total

# count_parameters: a position table counted for rope too
def _slip_count_parameters_20(vocab_size, d_model, n_heads, n_layers, max_len, positions, d_hidden=None, tie_weights=False):
    if positions not in POSITION_OPTIONS:
        raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
    d, V = (d_model, vocab_size)
    hidden = 4 * d if d_hidden is None else d_hidden
    block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
    total = V * d + n_layers * block + 2 * d + V
    total += max_len * d if positions in ('learned', 'rope') else 0
    total += 0 if tie_weights else V * d
    return total

# count_parameters: tying subtracts 2 V d (embedding and head both dropped)
def _slip_count_parameters_21(vocab_size, d_model, n_heads, n_layers, max_len, positions, d_hidden=None, tie_weights=False):
    if positions not in POSITION_OPTIONS:
        raise ValueError(f'positions must be one of {POSITION_OPTIONS}; got {positions!r}')
    d, V = (d_model, vocab_size)
    hidden = 4 * d if d_hidden is None else d_hidden
    block = 4 * (d * d + d) + (d * hidden + hidden) + (hidden * d + d) + 4 * d
    total = 2 * V * d + n_layers * block + 2 * d + V
    total += max_len * d if positions == 'learned' else 0
    total -= 2 * V * d if tie_weights else 0
    return total


# function: [(mistake, its hint, the mistake as a function)]
SLIPS = {
    'layer_norm': [
        ('unbiased variance', 'LayerNorm uses the biased variance, the mean of (h - mean)^2 over the d features: h.var(dim=-1, unbiased=False) or correction=0', _slip_layer_norm_0),
        ('eps outside the square root', 'eps goes inside the square root: (h - mean) / sqrt(var + eps)', _slip_layer_norm_1),
        ('no eps at all', 'a token whose features are all equal has variance 0: eps inside the square root, sqrt(var + eps), keeps it finite', _slip_layer_norm_2),
        ('normalising over the batch axis', 'normalise each token over its own d features: statistics along the last axis, h.mean(dim=-1, keepdim=True) (BatchNorm is the one that uses the batch axis)', _slip_layer_norm_3),
        ('statistics over the whole tensor', 'normalise each token over its own d features: statistics along the last axis, h.mean(dim=-1, keepdim=True) (BatchNorm is the one that uses the batch axis)', _slip_layer_norm_4),
        ('sqrt of the standard deviation', 'divide by sqrt(var + eps), where var is the mean squared deviation', _slip_layer_norm_5),
        ('eps argument ignored', 'use the eps argument the caller passes, not a constant', _slip_layer_norm_6),
        ('gamma and beta swapped', 'gamma scales (multiplies) the normalised value, beta shifts (adds)', _slip_layer_norm_7),
        ('gamma and beta ignored', 'finish with gamma * normalised + beta', _slip_layer_norm_8),
        ('RMS normalisation (mean not subtracted)', "subtract each token's mean before dividing by its standard deviation", _slip_layer_norm_9),
        ('keepdim forgotten', 'a mean over dim=-1 without keepdim=True drops the feature axis and no longer broadcasts against h: use keepdim=True (and use gamma and beta as they are: (d,) already lines up with the last axis, no gamma[:, None])', _slip_layer_norm_10),
        ('changes h in place', 'compute h - mean into a new tensor instead of h -= ...', _slip_layer_norm_11),
        ('statistics over a hard-coded dim=1', 'normalise each token over its own d features: statistics along the last axis, h.mean(dim=-1, keepdim=True) (BatchNorm is the one that uses the batch axis)', _slip_layer_norm_12),
        ('variance of h around zero (mean of h^2)', "the variance is the mean squared deviation from the token's mean: ((h - mean) ** 2).mean(dim=-1, keepdim=True)", _slip_layer_norm_13),
        ('E[h^2] - E[h]: the mean not squared', 'var = E[h^2] - E[h]^2 squares the mean too; better, centre first (float32 cancels E[h^2] - E[h]^2): ((h - mean) ** 2).mean(dim=-1, keepdim=True)', _slip_layer_norm_14),
        ('variance as E[h^2] - mean^2 (cancels in float32)', "E[h^2] - mean^2 subtracts two large, nearly equal numbers when a token's mean is large and its spread small, and float32 loses the variance in the cancellation: centre first, the variance is the mean of (h - mean) ** 2", _slip_layer_norm_15),
        ('mean absolute deviation instead of the variance', 'the variance is the mean of the SQUARED deviations, ((h - mean) ** 2).mean(dim=-1, keepdim=True), not the mean absolute deviation |h - mean|', _slip_layer_norm_16),
        ('divided by the L2 norm of the centred token', 'the variance is the mean, not the sum, of the squared deviations: divide by d', _slip_layer_norm_17),
        ('beta added before scaling by gamma', 'finish with gamma * normalised + beta: scale first, then shift', _slip_layer_norm_18),
        ("calls PyTorch's own layer norm", 'write the mean, the variance and the normalisation yourself; the checks compare with torch.nn.LayerNorm for you', _slip_layer_norm_19),
        ('variance over a hard-coded dim=1 (right for 2-D only)', 'take both the mean and the variance over the last axis, dim=-1: dim=1 is the token axis once h has a batch axis', _slip_layer_norm_20),
        ('variance divided by h.shape[0] instead of d', 'the variance is the mean over the d features: divide the sum by h.shape[-1] (or use .mean(dim=-1))', _slip_layer_norm_21),
        ('eps added after the division', 'a token whose features are all equal has variance 0: eps inside the square root, sqrt(var + eps), keeps it finite', _slip_layer_norm_22),
        ('subtracts the mean with a sign slip (h + mean)', 'centre each token: h - mean, then divide by sqrt(var + eps)', _slip_layer_norm_23),
    ],
    'MLP': [
        ('tanh approximation of GELU', "use the exact GELU, x * Phi(x): nn.GELU() or F.gelu(x) with the default approximate='none'", _slip_MLP_0),
        ('ReLU instead of GELU', 'the activation is GELU, not ReLU', _slip_MLP_1),
        ('forward under torch.no_grad() (copied from inference code)', 'keep the graph: no torch.no_grad(), .detach(), numpy round trip or requires_grad=False in forward, in the functions it calls or on the parameters; the output must carry gradients back to the parameters, or the model cannot train', _slip_MLP_2),
        ('hidden activations detached: fc_in never trains', 'keep the graph: no torch.no_grad(), .detach(), numpy round trip or requires_grad=False in forward, in the functions it calls or on the parameters; the output must carry gradients back to the parameters, or the model cannot train', _slip_MLP_3),
        ('no activation', 'apply GELU between fc_in and fc_out; without it two linear layers collapse into one', _slip_MLP_4),
        ('an extra GELU at the output', 'GELU goes between the layers only: fc_out(GELU(fc_in(x)))', _slip_MLP_5),
        ('residual added inside the MLP', 'the MLP returns fc_out(GELU(fc_in(x))); the block adds the residual', _slip_MLP_6),
        ('layer sizes swapped', 'fc_in maps d_model -> d_hidden and fc_out maps d_hidden -> d_model', _slip_MLP_7),
        ('linear layers without bias', 'keep the bias of nn.Linear (bias=True, the default)', _slip_MLP_8),
        ('an nn.Sequential instead of the named layers', 'create self.fc_in = nn.Linear(...) in __init__; the autograder and the reference model find layers by these names', _slip_MLP_9),
        ('SiLU instead of GELU', 'the activation is GELU, x * Phi(x), not SiLU x * sigmoid(x)', _slip_MLP_10),
        ('sigmoid approximation of GELU, x * sigmoid(1.702 x)', 'use the exact GELU, x * Phi(x) with Phi the normal CDF: F.gelu(x) or nn.GELU()', _slip_MLP_11),
        ('GELU applied to the input before fc_in', 'apply GELU between fc_in and fc_out: fc_out(GELU(fc_in(x)))', _slip_MLP_12),
        ('F.dropout on the hidden layer (training=True by default)', 'in eval mode the module must be deterministic: F.dropout(t, p) defaults to training=True, so use an nn.Dropout module (switched off by .eval()) or pass training=self.training', _slip_MLP_13),
        ('a LayerNorm inside the MLP', 'the MLP is fc_out(GELU(fc_in(x))) and nothing more: the block applies LN2 before it', _slip_MLP_14),
        ('tokens flattened and not reshaped back', "the MLP keeps x's shape (..., d_model): nn.Linear acts on the last axis, so there is no need to flatten the tokens (and a flattened result must be reshaped back)", _slip_MLP_15),
        ('forward without return', 'end MLP.forward with `return` and its result', _slip_MLP_16),
    ],
    'PreNormBlock': [
        ('post-norm where pre-norm is asked', 'pre-norm normalises only the branch input: U = H + MHA(LN1(H)), H_out = U + MLP(LN2(U)); the bypass H must reach the sum untouched', _slip_PreNormBlock_0),
        ('missing residual around the attention', 'add the residual: U = H + MHA(LN1(H))', _slip_PreNormBlock_1),
        ('missing residual around the MLP', 'add the residual: H_out = U + MLP(LN2(U))', _slip_PreNormBlock_2),
        ('residual taken from the normalised input', 'the bypass carries H itself, not LN1(H): U = H + MHA(LN1(H))', _slip_PreNormBlock_3),
        ('attention and MLP in parallel', 'the MLP reads U, the output of the attention step: H_out = U + MLP(LN2(U))', _slip_PreNormBlock_4),
        ('LN1 reused before the MLP', 'each branch has its own LayerNorm: MLP(LN2(U))', _slip_PreNormBlock_5),
        ('no LayerNorm in the branches', 'normalise the input of each branch: MHA(LN1(H)) and MLP(LN2(U))', _slip_PreNormBlock_6),
        ('MLP before attention', 'attention first (communicate), then the MLP (compute)', _slip_PreNormBlock_7),
        ('no residual connections at all', 'each branch is added to its input: U = H + ..., H_out = U + ...', _slip_PreNormBlock_8),
        ('rope not passed to the attention', 'pass the rope tables on: self.attn(self.ln1(h), rope)', _slip_PreNormBlock_9),
        ('MLP hidden width d_model', "the MLP's hidden width is 4 * d_model", _slip_PreNormBlock_10),
        ('attention built from nn.MultiheadAttention', 'use the given layer causal_self_attention(d_model, n_heads) as self.attn', _slip_PreNormBlock_11),
        ('adds into h in place', 'write u = h + ..., not h += ...', _slip_PreNormBlock_12),
        ('LN1 and LN2 swapped', 'each branch has its own LayerNorm: ln1 before the attention, ln2 before the MLP', _slip_PreNormBlock_13),
        ('second residual adds H instead of U', 'the second sum starts from U, which already holds the attention output: H_out = U + MLP(LN2(U))', _slip_PreNormBlock_14),
        ('LayerNorm on the branch outputs instead of inputs', 'normalise the input of each branch, not its output: MHA(LN1(H)) and MLP(LN2(U))', _slip_PreNormBlock_15),
        ('the output normalised again', 'pre-norm returns U + MLP(LN2(U)) as it is: nothing may touch the bypass, so no LayerNorm after the sum', _slip_PreNormBlock_16),
        ('one LayerNorm shared by both branches', 'create self.ln1 = nn.LayerNorm(d_model), with its weight and bias (the defaults)', _slip_PreNormBlock_17),
        ('LN1 built without its bias', 'create self.ln1 = nn.LayerNorm(d_model), with its weight and bias (the defaults)', _slip_PreNormBlock_18),
        ('ln2 never created: ln1 normalises both branches', 'create self.ln2 = nn.LayerNorm(d_model), with its weight and bias (the defaults)', _slip_PreNormBlock_19),
        ('the MLP written inline as an nn.Sequential, not the MLP class', 'create self.mlp, your MLP with a hidden width of 4 * d_model', _slip_PreNormBlock_20),
        ('LayerScale on the MLP branch: a parameter the reference lacks', "use the attribute names of the exercise; they let the reference model's weights load into yours", _slip_PreNormBlock_21),
        ('residual branches scaled by 1/2 (averaged with the input)', 'add each branch to the stream unscaled: U = H + MHA(LN1(H)), H_out = U + MLP(LN2(U))', _slip_PreNormBlock_22),
        ('F.dropout on both branches (training=True by default)', 'in eval mode the module must be deterministic: F.dropout(t, p) defaults to training=True, so use an nn.Dropout module (switched off by .eval()) or pass training=self.training', _slip_PreNormBlock_23),
        ('returns U (the MLP half computed, not returned)', 'return U + MLP(LN2(U)), the output after both sublayers', _slip_PreNormBlock_24),
        ('LayerNorm eps 1e-6 (a hard-coded constant)', "keep nn.LayerNorm(d_model)'s default eps = 1e-5: another eps changes the output whenever a token's variance is small", _slip_PreNormBlock_25),
        ('in place on a clone of h: ln2 reads out, then += changes it (no backward)', 'build new tensors (u = h + ...), not +=: backward needs what a layer read', _slip_PreNormBlock_26),
    ],
    'Decoder': [
        ('ln_final with another eps (1e-6)', "self.ln_final = nn.LayerNorm(d_model), with its default eps = 1e-5 like the blocks' LayerNorms: on a stream of tiny spread eps decides the output", _slip_Decoder_0),
        ('the final LayerNorm forgotten (created, not applied)', 'apply self.ln_final to H_N before the head: Y = LN_final(H_N) W_vocab^T + 1 c^T', _slip_Decoder_1),
        ('the final LayerNorm forgotten (never created)', 'create self.ln_final = nn.LayerNorm(d_model) and apply it to H_N before the head', _slip_Decoder_2),
        ('the head without its bias', 'the head is nn.Linear(d_model, vocab_size) WITH its bias c: Y = LN_final(H_N) W_vocab^T + 1 c^T', _slip_Decoder_3),
        ('the RoPE tables kept as plain attributes, not buffers', 'a fixed table is a buffer: self.register_buffer(name, table, persistent=False), so that model.to(...) moves it with the weights (a plain attribute stays behind)', _slip_Decoder_4),
        ('the blocks under torch.no_grad(): only ln_final and the head train', 'keep the graph: no torch.no_grad(), .detach(), numpy round trip or requires_grad=False in forward, in the functions it calls or on the parameters; the output must carry gradients back to the parameters, or the model cannot train', _slip_Decoder_5),
        ('softmax applied to the logits', 'return the logits themselves; the softmax belongs to the loss and the sampler', _slip_Decoder_6),
        ('learned positions never added', "positions='learned': add the position vectors to the token embedding, H0 = E[w] + P", _slip_Decoder_7),
        ('sinusoids never added', "positions='sinusoidal': add the position vectors to the token embedding, H0 = E[w] + P", _slip_Decoder_8),
        ('positions looked up with the token ids', 'the position of token l is l: index with torch.arange(L), not with the ids', _slip_Decoder_9),
        ('RoPE tables not passed to the blocks', "positions='rope': pass rope = (cos[:L], sin[:L]) to every block", _slip_Decoder_10),
        ('token embedding scaled by sqrt(d_model)', 'no sqrt(d_model) factor in this model: H0 = E[w] + P', _slip_Decoder_11),
        ('one block repeated n_layers times', 'build n_layers distinct PreNormBlock(d_model, n_heads), each with its own weights, in an nn.ModuleList: a list like [block] * n_layers repeats ONE block', _slip_Decoder_12),
        ('a trainable position table for every option', "only positions='learned' has position parameters (a frozen nn.Parameter is one too: model.parameters() and the state_dict list it); sinusoids and RoPE are fixed tables: self.register_buffer(..., persistent=False)", _slip_Decoder_13),
        ('RoPE tables built for the full width d_model', "RoPE rotates the pairs of each head's queries and keys: rope_tables(max_len, d_model // n_heads)", _slip_Decoder_14),
        ('block outputs discarded (block(h) not assigned)', 'a block returns a new tensor: keep it, h = block(h, ...), and pass it on', _slip_Decoder_15),
        ('final LayerNorm applied after every block', 'apply ln_final once, after the last block, just before the head', _slip_Decoder_16),
        ('positions added before every block', 'add the position vectors once, to the token embedding: H0 = E[w] + P; the residual stream carries them on', _slip_Decoder_17),
        ('sinusoid table not sliced to the sequence length', 'slice the position tables to the sequence length, e.g. self.sinusoids[:L] and the RoPE tables [:L] (ids can be shorter than max_len; L is idx.shape[1], idx.shape[0] is the batch size), and check every shape on the way', _slip_Decoder_18),
        ('blocks in a plain Python list', 'build n_layers distinct PreNormBlock(d_model, n_heads), each with its own weights, in an nn.ModuleList: a list like [block] * n_layers repeats ONE block', _slip_Decoder_19),
        ('sinusoid table stored as a trainable nn.Parameter', "only positions='learned' has position parameters (a frozen nn.Parameter is one too: model.parameters() and the state_dict list it); sinusoids and RoPE are fixed tables: self.register_buffer(..., persistent=False)", _slip_Decoder_20),
        ('sinusoid table as a frozen nn.Parameter', "only positions='learned' has position parameters (a frozen nn.Parameter is one too: model.parameters() and the state_dict list it); sinusoids and RoPE are fixed tables: self.register_buffer(..., persistent=False)", _slip_Decoder_21),
        ('sinusoid table built with torch.zeros, final LayerNorm forgotten', 'apply self.ln_final to H_N before the head: Y = LN_final(H_N) W_vocab^T + 1 c^T', _slip_Decoder_22),
        ('sinusoids sliced from the wrong end ([-L:])', 'token l gets row l of the position table: take the first L rows, self.sinusoids[:L] or self.pos(torch.arange(L)), with L the length idx.shape[1]', _slip_Decoder_23),
        ('learned positions off by one (arange(1, L + 1))', 'token l gets row l of the position table: take the first L rows, self.sinusoids[:L] or self.pos(torch.arange(L)), with L the length idx.shape[1]', _slip_Decoder_24),
        ('L read from idx.shape[0] (the batch size)', 'slice the position tables to the sequence length, e.g. self.sinusoids[:L] and the RoPE tables [:L] (ids can be shorter than max_len; L is idx.shape[1], idx.shape[0] is the batch size), and check every shape on the way', _slip_Decoder_25),
        ('the last block skipped (blocks[:-1])', 'run every block: for block in self.blocks (no [:-1], no range(n_layers - 1))', _slip_Decoder_26),
        ('rope given to the first block only', "every block's attention rotates its queries and keys: pass the same rope to every block", _slip_Decoder_27),
        ('logits from the embedding matrix (tied though a head was made)', 'this Decoder does not tie: the logits come from self.head, nn.Linear(d_model, vocab_size) with its own weight', _slip_Decoder_28),
        ('no head: logits from the embedding matrix', 'create self.head, an nn.Linear from the d_model features to the vocab_size logits', _slip_Decoder_29),
        ("the token embedding named tok_emb (nanoGPT's wte)", 'create self.embed, an nn.Embedding with one row of d_model numbers per token of the vocabulary', _slip_Decoder_30),
        ('every block fed the embeddings (h never updated in the loop)', "feed each block the previous block's output: h = block(h, ...)", _slip_Decoder_31),
        ("the stub's raise left above the written forward", "delete the `raise NotImplementedError()` line: the stub's placeholder still runs before your code (or instead of it)", _slip_Decoder_32),
    ],
    'count_parameters': [
        ('attention biases forgotten', 'each of W_Q, W_K, W_V, W_O is nn.Linear(d, d) with a bias: 4 (d^2 + d)', _slip_count_parameters_0),
        ('LayerNorm parameters forgotten', 'every LayerNorm has gamma and beta, d numbers each: 2 per block plus the final one', _slip_count_parameters_1),
        ('the final LayerNorm forgotten', 'add 2 d for LN_final', _slip_count_parameters_2),
        ("the head's bias forgotten", 'the head has a bias c of V numbers, tied or not', _slip_count_parameters_3),
        ('tied head weight counted twice', 'with tie_weights the head reuses the embedding matrix: count V * d once', _slip_count_parameters_4),
        ('position table counted for every option', "only positions='learned' has a trainable (max_len, d) table", _slip_count_parameters_5),
        ('attention counted once per head', 'the heads split d into h slices of d_k = d / h; the projections are still d x d in total', _slip_count_parameters_6),
        ('d_hidden ignored', 'use d_hidden for the MLP width when it is given', _slip_count_parameters_7),
        ('only one block counted', 'multiply one block by n_layers', _slip_count_parameters_8),
        ('token embedding not counted', "the token embedding E and, without tying, the head's own weight W_vocab each hold V * d numbers", _slip_count_parameters_9),
        ('LayerNorm counted with gamma only', 'every LayerNorm has gamma and beta, d numbers each: 2 d per LayerNorm', _slip_count_parameters_10),
        ('MLP biases forgotten', 'fc_in and fc_out have biases too: d * hidden + hidden and hidden * d + d', _slip_count_parameters_11),
        ("fc_in's bias counted as d instead of d_hidden", "fc_in = nn.Linear(d, hidden) has one bias per hidden unit: d * hidden + hidden (only fc_out's bias has d numbers)", _slip_count_parameters_12),
        ('W_O forgotten (three projections)', 'attention has four d x d projections with biases, W_Q, W_K, W_V and W_O: 4 (d^2 + d)', _slip_count_parameters_13),
        ('n_layers written in as 2', 'multiply one block by the n_layers argument, not a number from an example', _slip_count_parameters_14),
        ('learned position table counted as max_len (no d)', 'a learned position table is nn.Embedding(max_len, d): max_len * d numbers', _slip_count_parameters_15),
        ('one bias vector for all four projections', 'each of W_Q, W_K, W_V, W_O has its own bias of d numbers: 4 (d^2 + d)', _slip_count_parameters_16),
        ('one LayerNorm per block', 'a pre-norm block has two LayerNorms (LN1 and LN2), 2 d numbers each: 4 d per block', _slip_count_parameters_17),
        ('fc_out forgotten (one MLP layer)', 'the MLP has two layers: fc_in (d * hidden + hidden) and fc_out (hidden * d + d)', _slip_count_parameters_18),
        ('RoPE tables counted as parameters', "RoPE's cos and sin tables are fixed buffers, not trainable parameters", _slip_count_parameters_19),
        ('a position table counted for rope too', "only positions='learned' has a trainable (max_len, d) table", _slip_count_parameters_20),
        ('tying subtracts 2 V d (embedding and head both dropped)', "the token embedding E and, without tying, the head's own weight W_vocab each hold V * d numbers", _slip_count_parameters_21),
    ],
}
