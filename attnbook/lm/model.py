"""The reference decoder: a pre-norm causal transformer language model in one file.

Notebooks 07-09, the training command and the hidden tests all use this model. It follows
the course notation (README, "Notation"): ``B`` batch, ``L`` sequence length, ``d`` = ``d_model``,
``h`` heads of width ``d_k = d / h``, ``V`` vocabulary. Submodule names mirror the notebook
classes (``embed, blocks, ln_final, head``; ``ln1, attn, ln2, mlp``; ``W_Q, W_K, W_V, W_O``;
``fc_in, fc_out``), so a student's ``Decoder`` and this model share state_dict keys and weights
can be copied either way.

Attention goes through ``torch.nn.functional.scaled_dot_product_attention`` so that the fused
kernel of each device (CPU, CUDA, MPS) does the work. Queries, keys and values are computed by
``CausalSelfAttention.heads_qkv`` with RoPE already applied at given absolute positions, and
combined by ``CausalSelfAttention.attend``. A key/value cache for generation is passed into
the same blocks (`KVSlots`): `attnbook.lm.generation.decode_step` has no block of its own.
For one new token per row, with no hook on any module, the block's ``forward`` hands over to
its ``step`` method, which runs the same branches (`TransformerBlock._branches`,
`CausalSelfAttention.forward`, `FeedForward.forward`) with the modules' layers swapped for
callables packed once per cache (`BlockWeights`: `Affine`, `Norm`), on rows (B, d): at
batch 1 the per-call cost of modules outweighs the arithmetic.
"""

from __future__ import annotations

import contextlib
import math
import pickle
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import IO, NamedTuple, cast

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.modules import module as _module_hooks

__all__ = [
    "LMConfig",
    "TransformerLM",
    "TransformerBlock",
    "CausalSelfAttention",
    "FeedForward",
    "KVSlots",
    "BlockWeights",
    "EndWeights",
    "StepBuffers",
    "sinusoid_table",
    "rope_tables",
    "rotate_pairs",
    "turn_pairs",
    "qkv_turns",
    "Affine",
    "Norm",
    "save_checkpoint",
    "load_checkpoint",
    "pick_device",
    "autocast_context",
]

POSITION_OPTIONS = ("sinusoidal", "learned", "rope", "none")
# RoPE as the blocks take it: (cos, sin) tables, or a step's complex turns (`qkv_turns`)
Rope = tuple[torch.Tensor, torch.Tensor] | torch.Tensor
Layer = Callable[[torch.Tensor], torch.Tensor]  # a module, or a packed layer of a step
NORM_OPTIONS = ("pre", "post")


@dataclass
class LMConfig:
    """Hyperparameters of a `TransformerLM`; validated on construction."""

    vocab_size: int  # V: number of token ids, including padding and end-of-email tokens
    d_model: int = 128  # d: width of the residual stream
    n_heads: int = 4  # h: attention heads per block; d_k = d_model / n_heads
    n_layers: int = 4  # N: number of blocks
    max_len: int = 128  # longest sequence (context length) the model accepts
    positions: str = "rope"  # position signal: "sinusoidal", "learned", "rope" or "none"
    tie_weights: bool = False  # share the head's weight matrix with the token embedding
    dropout: float = 0.0  # on embeddings, attention weights and each residual branch
    d_hidden: int | None = None  # MLP hidden width; None means 4 * d_model
    norm: str = "pre"  # "pre": LN inside each residual branch; "post": LN after each sum
    causal: bool = True  # False only for the ablation that removes the causal mask
    rope_base: float = 10000.0  # theta_i = rope_base ** (-2i / d_k)
    # The original transformer's recipe for added sinusoids: token embeddings drawn with std
    # 1/sqrt(d_model) and multiplied by sqrt(d_model), so they start at unit scale, as large
    # as the position vectors. Off (GPT-2's N(0, 0.02), no factor), a sinusoid of amplitude 1
    # drowns a token vector of 0.02. Notebook 06's Decoder is the default, H0 = E[w] + P.
    embed_scale: bool = False

    def __post_init__(self) -> None:
        for name in ("vocab_size", "d_model", "n_heads", "n_layers", "max_len"):
            value = getattr(self, name)
            if not _is_positive_int(value):
                raise ValueError(f"LMConfig.{name}: expected a positive int, got {value!r}")
        if self.d_model % self.n_heads != 0:
            raise ValueError(
                f"LMConfig.d_model: expected a multiple of n_heads={self.n_heads}, "
                f"got d_model={self.d_model}"
            )
        if self.positions not in POSITION_OPTIONS:
            raise ValueError(
                f"LMConfig.positions: expected one of {POSITION_OPTIONS}, got {self.positions!r}"
            )
        if self.positions == "rope" and self.d_k % 2 != 0:
            raise ValueError(
                f"LMConfig.n_heads: rope rotates pairs, so the head width d_k = d_model / n_heads "
                f"must be even; got d_k={self.d_k} (d_model={self.d_model}, n_heads={self.n_heads})"
            )
        if self.positions == "sinusoidal" and self.d_model % 2 != 0:
            raise ValueError(
                f"LMConfig.d_model: sinusoids need an even width, got d_model={self.d_model}"
            )
        if self.norm not in NORM_OPTIONS:
            raise ValueError(f"LMConfig.norm: expected one of {NORM_OPTIONS}, got {self.norm!r}")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"LMConfig.dropout: expected a value in [0, 1), got {self.dropout!r}")
        if self.d_hidden is not None and not _is_positive_int(self.d_hidden):
            raise ValueError(
                f"LMConfig.d_hidden: expected None or a positive int, got {self.d_hidden!r}"
            )
        if not self.rope_base > 1.0:
            raise ValueError(f"LMConfig.rope_base: expected a value > 1, got {self.rope_base!r}")

    @property
    def d_k(self) -> int:
        """Width of one head."""
        return self.d_model // self.n_heads

    @property
    def hidden(self) -> int:
        """MLP hidden width with the default resolved."""
        return 4 * self.d_model if self.d_hidden is None else self.d_hidden


def _is_positive_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def sinusoid_table(length: int, d: int) -> torch.Tensor:
    """Absolute sinusoids ``p[l, 2i] = sin(l w_i)``, ``p[l, 2i+1] = cos(l w_i)``, shape (L, d).

    For an odd ``d`` the last column is the sine of the last pair: still (L, d), so that a
    model given an odd width fails at its own check of the width, not at a shape."""
    l = torch.arange(length, dtype=torch.float64)[:, None]  # (L, 1)
    w = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)  # (d/2,)
    angles = l * w  # (L, d/2)
    table = torch.stack((angles.sin(), angles.cos()), dim=-1)  # (L, d/2, 2): pairs interleave
    return table.flatten(-2)[:, :d].float()  # (L, d)


def rope_tables(length: int, d_k: int, base: float = 10000.0) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin of the angles ``l * theta_i``, ``theta_i = base^(-2i/d_k)``, each (L, d_k/2)."""
    l = torch.arange(length, dtype=torch.float64)[:, None]  # (L, 1)
    theta = base ** (-torch.arange(0, d_k, 2, dtype=torch.float64) / d_k)  # (d_k/2,)
    angles = l * theta  # (L, d_k/2)
    return angles.cos().float(), angles.sin().float()


def rotate_pairs(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate consecutive pairs ``(2i, 2i+1)`` of the last axis of ``x`` by ``R(a_i)``.

    ``x`` is (..., L, d_k); ``cos`` and ``sin`` hold cos(a) and sin(a) and broadcast against
    (..., L, d_k/2). Returns a tensor shaped like ``x``.
    """
    if x.dtype in _COMPLEX and x.stride(-1) == 1:
        return turn_pairs(x, torch.complex(cos.to(x.dtype), sin.to(x.dtype)))
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)  # autocast hands in bf16 q/k; keep one dtype
    pairs = x.unflatten(-1, (-1, 2))  # (..., L, d_k/2, 2)
    x_even, x_odd = pairs[..., 0], pairs[..., 1]  # (..., L, d_k/2) each
    rotated = torch.stack(
        (x_even * cos - x_odd * sin, x_even * sin + x_odd * cos), dim=-1
    )  # (..., L, d_k/2, 2)
    return rotated.flatten(-2)  # (..., L, d_k)


_COMPLEX = {torch.float32: torch.complex64, torch.float64: torch.complex128}


def turn_pairs(x: torch.Tensor, turn: torch.Tensor) -> torch.Tensor:
    """`rotate_pairs` with the angles given as ``turn = cos(a) + i sin(a)`` (complex, broadcast
    against (..., L, d_k/2)), as a cache makes them once. Returns a tensor shaped like ``x``."""
    if _COMPLEX.get(x.dtype) == turn.dtype and x.stride(-1) == 1:
        # Each pair as one complex number x_even + i x_odd, turned by e^{i a}: the same
        # products and sums as R(a), in three kernels instead of eight.
        pairs = torch.view_as_complex(x.unflatten(-1, (-1, 2)))  # (..., L, d_k/2)
        return torch.view_as_real(pairs * turn).flatten(-2)  # (..., L, d_k)
    return rotate_pairs(x, turn.real, turn.imag)  # bf16 under autocast: the real formula


def qkv_turns(cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """The RoPE turns of stacked queries, keys and values at each position: (L, 3, 1, 1, 1,
    d_k/2) complex from cos and sin (L, d_k/2), q and k turned by the angle, v by 0 (times 1),
    so one product turns a token's (3, B, h, 1, d_k/2) pairs (`CausalSelfAttention.heads_qkv`)
    and leaves its key and value side by side. Made once per cache (`KVSlots.turn`)."""
    dtype = cos.dtype if cos.dtype in _COMPLEX else torch.float32
    turn = torch.complex(cos.to(dtype), sin.to(dtype))  # (L, d_k/2)
    stacked = torch.stack((turn, turn, torch.ones_like(turn)), dim=1)  # (L, 3, d_k/2)
    return stacked[:, :, None, None, None]  # (L, 3, 1, 1, 1, d_k/2): over B, heads, one token


class Affine(partial):
    """A linear map packed for rows x (B, d): ``Affine(bias, weight_t)(x, out=None)`` is
    ``torch.addmm(bias, x, weight_t)``, the product ``F.linear`` computes for rows, without
    its own transpose per call. ``weight_t`` is ``weight.t()``, a view of the parameter. A
    `functools.partial`, so that a call costs no Python frame; ``[0]`` and ``[1]`` read the
    bias and ``weight_t`` back."""

    __slots__ = ()

    def __new__(cls, bias: torch.Tensor, weight_t: torch.Tensor) -> Affine:
        return super().__new__(cls, torch.addmm, bias, mat2=weight_t)

    @property
    def bias(self) -> torch.Tensor:
        return self.args[0]  # (d_out,)

    @property
    def weight_t(self) -> torch.Tensor:
        return self.keywords["mat2"]  # (d_in, d_out)

    def __getitem__(self, index: int) -> torch.Tensor:
        return (self.bias, self.weight_t)[index]


class Norm(partial):
    """A LayerNorm packed as a call of ``torch.layer_norm``, the op ``F.layer_norm`` calls
    after reading a backend flag, which costs as much as the op itself on one row."""

    __slots__ = ()

    def __new__(cls, ln: nn.LayerNorm) -> Norm:
        return super().__new__(
            cls,
            torch.layer_norm,
            normalized_shape=tuple(ln.normalized_shape),
            weight=ln.weight,
            bias=ln.bias,
            eps=ln.eps,
        )


class BlockWeights(NamedTuple):
    """One block's layers packed once per cache for the one-token step (`TransformerBlock.
    step`): each a callable on rows (B, d) that reads no module attribute, so that the
    block's own branches run on them in place of its modules. The tensors are the parameters
    themselves (``.t()`` is a view), except ``qkv``, `CausalSelfAttention.qkv_projection`
    made at packing time: a cache belongs to the weights that filled it."""

    ln1: Norm
    qkv: Affine  # stacked W_Q, W_K, W_V: bias (3d,), weight.t() (d, 3d)
    out: Affine  # W_O: (d,), (d, d)
    ln2: Norm
    fc_in: Affine  # (d_hidden,), (d, d_hidden)
    act: Layer  # the MLP's GELU, with its ``approximate``
    fc_out: Affine  # (d,), (d_hidden, d)
    # What `TransformerBlock._branches` runs in a step: (ln1, the attention's forward, ln2,
    # the MLP's forward on fc_in, act and fc_out, no dropout), bound once.
    layers: tuple[Layer, Callable[..., torch.Tensor], Layer, Layer, Layer]

    @property
    def projection(self) -> tuple[torch.Tensor, torch.Tensor]:
        """``qkv`` as `CausalSelfAttention.qkv_projection` returns it: (weight, bias)."""
        return self.qkv.weight_t.t(), self.qkv.bias


class EndWeights(NamedTuple):
    """The model's ends packed like `BlockWeights` for the one-token step (`TransformerLM.
    inputs` and `TransformerLM.logits` with ``ends``)."""

    embed: torch.Tensor  # (V, d): the token embedding's table
    ln_final: Norm
    head: Affine  # (V,), (d, V)


class StepBuffers(NamedTuple):
    """Preallocated outputs of a one-token step's stacked q, k, v product and of its RoPE
    turn, shared by the blocks of one cache (float32 or float64, outside autocast): the
    product and the turn write into them (``out=``), and q, k and v are views made once,
    so a step builds no view of its own (`CausalSelfAttention.step_buffers`)."""

    qkv: torch.Tensor  # (B, 3d): the stacked product
    pairs: torch.Tensor | None  # complex view of qkv, (3, B, h, 1, d_k/2); None without RoPE
    turned: torch.Tensor | None  # complex (3, B, h, 1, d_k/2): pairs times the turn
    q: torch.Tensor  # (B, h, 1, d_k) view of the turned (or, without RoPE, the plain) product
    k: torch.Tensor  # (B, h, 1, d_k), as q
    v: torch.Tensor  # (B, h, 1, d_k), as q
    kv: torch.Tensor  # (B, 2, h, 1, d_k): k and v, as a cache slot holds them


class KVSlots(NamedTuple):
    """One block's key/value cache for one call: preallocated keys and values ``kv`` (B, 2, h,
    capacity, d_k), keys at ``[:, 0]`` and values at ``[:, 1]``, of which the call writes
    slots ``[start, end)`` (its new tokens) and attends over ``[0, end)``. ``projection``:
    the block's stacked query, key and value weights, `CausalSelfAttention.qkv_projection`,
    made once for the whole cache (None: made at this call).

    ``weights`` given: the one-token step. Each row feeds one new token (``end = start + 1``)
    over an unpadded cache, no module carries a hook, the token vectors travel as rows
    (B, d), and the block's branches run on its packed `BlockWeights`: the same arithmetic
    as its modules, without their per-call cost. ``turn``: that token's `qkv_turns` row
    (3, 1, 1, 1, d_k/2), None without RoPE. ``buffers``: the cache's `StepBuffers`, written
    in place (None: fresh tensors, as under autocast).
    """

    kv: torch.Tensor
    start: int
    end: int
    projection: tuple[torch.Tensor, torch.Tensor] | None = None
    weights: BlockWeights | None = None
    turn: torch.Tensor | None = None
    buffers: StepBuffers | None = None

    def store(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Write keys and values (B, h, end - start, d_k) into the slots; returns every cached
        key and value, (B, h, end, d_k) each."""
        slots = self.kv.narrow(3, self.start, self.end - self.start)  # (B, 2, h, new, d_k)
        if self.buffers is not None and self.weights is not None:
            slots.copy_(self.buffers.kv)  # a step's k and v are views of it: one copy
        else:
            slots[:, 0], slots[:, 1] = k, v
        keys, values = self.kv.narrow(3, 0, self.end).unbind(1)
        return keys, values


class CausalSelfAttention(nn.Module):
    """Multi-head self-attention with output projection; causal unless the config says not."""

    def __init__(self, config: LMConfig) -> None:
        super().__init__()
        d = config.d_model
        self.n_heads = config.n_heads
        self.d_k = config.d_k
        self.causal = config.causal
        self.dropout = config.dropout
        self.W_Q = nn.Linear(d, d, bias=True)
        self.W_K = nn.Linear(d, d, bias=True)
        self.W_V = nn.Linear(d, d, bias=True)
        self.W_O = nn.Linear(d, d, bias=True)

    def qkv_projection(self) -> tuple[torch.Tensor, torch.Tensor]:
        """``W_Q``, ``W_K`` and ``W_V`` stacked: weight (3d, d) and bias (3d,), so that one
        matrix product gives all three (the same numbers as three, at a third of the calls).
        The three layers stay the parameters (and the state_dict keys); this is made from
        them, differentiably, at each call. A KV cache makes it once (`KVSlots`)."""
        weight = torch.cat((self.W_Q.weight, self.W_K.weight, self.W_V.weight))  # (3d, d)
        bias = torch.cat((self.W_Q.bias, self.W_K.bias, self.W_V.bias))  # (3d,)
        return weight, bias

    def heads_qkv(
        self,
        x: torch.Tensor,
        rope: Rope | None = None,
        projection: tuple[torch.Tensor, torch.Tensor] | None = None,
        step: KVSlots | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Queries, keys and values per head, each (B, h, L, d_k), RoPE applied to q and k.

        ``rope`` is (cos, sin) already gathered at the tokens' absolute positions, each
        broadcastable to (B, 1, L, d_k/2), or a step's turns (`qkv_turns`).
        ``projection``: `qkv_projection` if already made. ``step``: a one-token step's slots
        (`KVSlots.weights` given): x is rows (B, d), multiplied by the packed stacked weights,
        into the step's buffers when it has them (L = 1). A KV cache stores the k and v
        returned here.
        """
        B, h, d_k = x.shape[0], self.n_heads, self.d_k
        weights = None if step is None else step.weights
        buffers = None if step is None else step.buffers
        if weights is not None and buffers is not None:
            # Written in place, read through views the cache made once.
            weights.qkv(x, out=buffers.qkv)  # (B, 3d)
            if buffers.pairs is not None and isinstance(rope, torch.Tensor):
                torch.mul(buffers.pairs, rope, out=buffers.turned)  # q and k turned, v as it was
            return buffers.q, buffers.k, buffers.v
        if weights is not None:
            qkv = weights.qkv(x)  # (B, 3d): one row per sequence
        elif _has_hooks(self.W_Q, self.W_K, self.W_V):
            # A hook on one of the layers (notebook 07's head ablation hooks W_V) sees it called.
            qkv = torch.cat((self.W_Q(x), self.W_K(x), self.W_V(x)), dim=-1)  # (B, L, 3d)
        else:
            weight, bias = self.qkv_projection() if projection is None else projection
            qkv = F.linear(x, weight, bias)  # (B, L, 3d): one product for q, k and v
        heads = qkv.view(B, -1, 3, h, d_k).permute(2, 0, 3, 1, 4)  # (3, B, h, L, d_k)
        if rope is None:
            return heads[0], heads[1], heads[2]
        if isinstance(rope, torch.Tensor):  # a step's `qkv_turns`: q and k turned, v as it was
            heads = turn_pairs(heads, rope)  # (3, B, h, 1, d_k)
            return heads[0], heads[1], heads[2]
        qk = rotate_pairs(heads[:2], *rope)  # (2, B, h, L, d_k): q and k turned in one call
        return qk[0], qk[1], heads[2]

    def attend(
        self,
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        allowed: torch.Tensor | None = None,
        live_rows: torch.Tensor | None = None,
        causal: bool | None = None,
    ) -> torch.Tensor:
        """Attention of q (B, h, Lq, d_k) over k, v (B, h, Lk, d_k), heads merged: (B, Lq, d).

        ``allowed`` is a bool mask (True = may attend) broadcastable to (B, h, Lq, Lk); None
        means the causal mask when ``causal`` (default: the model's), else no mask, which lets
        SDPA use its fastest kernel. ``is_causal`` aligns the triangle top-left, so a cached
        decode with 1 < Lq < Lk must pass ``allowed`` explicitly (one new query reads every
        cached key: ``causal=False``). Rows with no allowed key must be opened in ``allowed``
        (to avoid NaN) and listed False in ``live_rows`` (B, 1, Lq, 1): they are zeroed, as the
        course defines.
        """
        B, _, Lq, _ = q.shape
        y = F.scaled_dot_product_attention(
            q,
            k,
            v,
            attn_mask=allowed,
            dropout_p=self.dropout if self.training else 0.0,
            is_causal=allowed is None and (self.causal if causal is None else causal),
            scale=1.0 / math.sqrt(self.d_k),
        )  # (B, h, Lq, d_k)
        if live_rows is not None:
            y = y * live_rows.to(y.dtype)  # (B, h, Lq, d_k): empty rows become zeros
        return y.transpose(1, 2).reshape(B, Lq, self.n_heads * self.d_k)  # (B, Lq, d)

    def forward(
        self,
        x: torch.Tensor,
        rope: Rope | None = None,
        allowed: torch.Tensor | None = None,
        live_rows: torch.Tensor | None = None,
        cache: KVSlots | None = None,
        causal: bool | None = None,
    ) -> torch.Tensor:
        """Self-attention of x (B, L, d) -> (B, L, d); see `heads_qkv` and `attend`. With a
        ``cache`` the new keys and values are stored in its slots and the queries attend over
        every cached token; with its packed ``weights``, x and the result are rows (B, d) and
        the products are those weights' (`TransformerBlock.step`)."""
        weights = None if cache is None else cache.weights
        projection = None if cache is None else cache.projection
        q, k, v = self.heads_qkv(x, rope, projection, cache if weights is not None else None)
        if cache is not None:
            k, v = cache.store(k, v)  # (B, h, end, d_k) each
        y = self.attend(q, k, v, allowed, live_rows, causal)  # (B, L, d)
        return self.W_O(y) if weights is None else weights.out(y.view(x.shape))  # rows (B, d)

    def step_buffers(self, batch_size: int, rope: bool, like: torch.Tensor) -> StepBuffers | None:
        """`StepBuffers` for ``batch_size`` rows in the dtype and on the device of ``like``;
        None where the turn cannot be one complex product (a dtype other than float32 or
        float64)."""
        if like.dtype not in _COMPLEX:
            return None
        h, d_k = self.n_heads, self.d_k
        qkv = like.new_empty(batch_size, 3 * h * d_k)  # (B, 3d)
        heads = qkv.view(batch_size, 1, 3, h, d_k).permute(2, 0, 3, 1, 4)  # as `heads_qkv`
        pairs = turned = None
        if rope:
            pairs = torch.view_as_complex(heads.unflatten(-1, (-1, 2)))  # (3, B, h, 1, d_k/2)
            turned = torch.empty_like(pairs)
            heads = torch.view_as_real(turned).flatten(-2)  # (3, B, h, 1, d_k)
        kv = heads[1:].transpose(0, 1)  # (B, 2, h, 1, d_k)
        return StepBuffers(qkv, pairs, turned, heads[0], kv[:, 0], kv[:, 1], kv)


class FeedForward(nn.Module):
    """The token-wise MLP: ``fc_out(GELU(fc_in(x)))`` with exact (erf) GELU."""

    def __init__(self, config: LMConfig) -> None:
        super().__init__()
        self.fc_in = nn.Linear(config.d_model, config.hidden)
        self.act = nn.GELU()
        self.fc_out = nn.Linear(config.hidden, config.d_model)

    def forward(
        self, x: torch.Tensor, layers: tuple[Layer, Layer, Layer] | None = None
    ) -> torch.Tensor:
        """(B, L, d) -> (B, L, d_hidden) -> (B, L, d); with ``layers`` (a one-token step's
        packed fc_in, act and fc_out, `BlockWeights`), rows (B, d) through them."""
        fc_in, act, fc_out = (self.fc_in, self.act, self.fc_out) if layers is None else layers
        return fc_out(act(fc_in(x)))


class TransformerBlock(nn.Module):
    """Attention then MLP, each in a residual branch, with pre- or post-norm."""

    def __init__(self, config: LMConfig) -> None:
        super().__init__()
        self.pre_norm = config.norm == "pre"
        self.ln1 = nn.LayerNorm(config.d_model, eps=1e-5)
        self.attn = CausalSelfAttention(config)
        self.ln2 = nn.LayerNorm(config.d_model, eps=1e-5)
        self.mlp = FeedForward(config)
        self.drop = nn.Dropout(config.dropout)

    def forward(
        self,
        h: torch.Tensor,
        rope: Rope | None = None,
        allowed: torch.Tensor | None = None,
        live_rows: torch.Tensor | None = None,
        cache: KVSlots | None = None,
        causal: bool | None = None,
    ) -> torch.Tensor:
        """(B, L, d) -> (B, L, d); ``cache`` and ``causal`` as in `CausalSelfAttention`. A
        cache with packed weights goes to `step`."""
        if cache is not None and cache.weights is not None:
            return self.step(h, cache)
        drop = self.drop if self.training else _unchanged  # one call less per branch and token
        layers = (self.ln1, self.attn, self.ln2, self.mlp, drop)
        return self._branches(h, layers, (rope, allowed, live_rows, cache, causal))

    def step(self, h: torch.Tensor, cache: KVSlots) -> torch.Tensor:
        """`forward` of one new token per row, rows h (B, d) -> (B, d), on the packed weights
        of ``cache`` (`KVSlots.weights`): the same branches (`_branches`), evaluation only,
        with the packed layers and the submodules' ``forward`` called directly (the caller
        made sure that no hook would run)."""
        weights = cache.weights
        assert weights is not None, "cache: step needs KVSlots.weights"
        return self._branches(h, weights.layers, (cache.turn, None, None, cache, False))

    def _branches(
        self,
        h: torch.Tensor,
        layers: tuple[Layer, Callable[..., torch.Tensor], Layer, Layer, Layer],
        attn_args: tuple,
    ) -> torch.Tensor:
        """The two residual branches of the block on h, given its layers ``(ln1, attn, ln2,
        mlp, drop)`` and the arguments of ``attn`` after its input (positional, as forward
        hooks on the attention see them: rope, allowed, live_rows, cache, causal)."""
        ln1, attn, ln2, mlp, drop = layers
        if self.pre_norm:
            # U = H + MHA(LN1(H)), H_out = U + MLP(LN2(U)): the bypass carries H untouched.
            u = h + drop(attn(ln1(h), *attn_args))
            return u + drop(mlp(ln2(u)))
        # Post-norm, U = LN1(H + MHA(H)), H_out = LN2(U + MLP(U)), kept for the ablation.
        u = ln1(h + drop(attn(h, *attn_args)))
        return ln2(u + drop(mlp(u)))

    def packed_weights(self) -> BlockWeights:
        """This block's `BlockWeights`, which a cache makes once for its one-token steps."""
        attn, mlp = self.attn, self.mlp
        ln1, ln2 = Norm(self.ln1), Norm(self.ln2)
        fc_in = _for_addmm(mlp.fc_in.weight, mlp.fc_in.bias, "fc_in")
        act = partial(F.gelu, approximate=mlp.act.approximate)
        fc_out = _for_addmm(mlp.fc_out.weight, mlp.fc_out.bias, "fc_out")
        mlp_step = partial(mlp.forward, layers=(fc_in, act, fc_out))
        return BlockWeights(
            ln1=ln1,
            qkv=_for_addmm(*attn.qkv_projection(), "W_Q, W_K, W_V"),
            out=_for_addmm(attn.W_O.weight, attn.W_O.bias, "W_O"),
            ln2=ln2,
            fc_in=fc_in,
            act=act,
            fc_out=fc_out,
            layers=(ln1, attn.forward, ln2, mlp_step, _unchanged),
        )


def _for_addmm(weight: torch.Tensor, bias: torch.Tensor | None, name: str) -> Affine:
    """The linear map ``name`` as `BlockWeights` holds it: ``Affine(bias, weight.t())``."""
    if bias is None:
        raise ValueError(
            f"{name}: the one-token step expected a linear map with a bias "
            f"(torch.addmm adds it in the product), got bias=None"
        )
    return Affine(bias, weight.t())


def _unchanged(x: torch.Tensor) -> torch.Tensor:
    return x


def _has_hooks(*modules: nn.Module) -> bool:
    """Whether calling any of ``modules`` would run a hook (its own or a global one): the test
    `nn.Module.__call__` makes before its fast path."""
    return any(_hook_tables(*modules)) or _global_hooks()


def _hook_tables(*modules: nn.Module) -> tuple[dict, ...]:
    """The dicts of ``modules`` in which `nn.Module.__call__` looks for hooks. Registering or
    removing a hook edits them in place, so a cache gathers them once and tests them at each
    step (`any(tables) or _global_hooks()`) without walking the modules."""
    return tuple(
        table
        for m in modules
        for table in (
            m._forward_hooks,
            m._forward_pre_hooks,
            m._backward_hooks,
            m._backward_pre_hooks,
        )
    )


def _global_hooks() -> bool:
    """Whether a hook registered for every module exists."""
    return bool(
        _module_hooks._global_forward_hooks
        or _module_hooks._global_forward_pre_hooks
        or _module_hooks._global_backward_hooks
        or _module_hooks._global_backward_pre_hooks
    )


class TransformerLM(nn.Module):
    """Token ids (B, L) -> next-token logits (B, L, V), float32 on every device."""

    # buffers registered in __init__ for the configured positions
    sinusoids: torch.Tensor
    rope_cos: torch.Tensor
    rope_sin: torch.Tensor

    def __init__(self, config: LMConfig) -> None:
        super().__init__()
        self.config = config
        d = config.d_model
        self.embed = nn.Embedding(config.vocab_size, d)
        if config.positions == "learned":
            self.pos = nn.Embedding(config.max_len, d)
        if config.positions == "sinusoidal":
            # Non-persistent: derived from the config, so checkpoints stay free of it.
            self.register_buffer("sinusoids", sinusoid_table(config.max_len, d), persistent=False)
        if config.positions == "rope":
            cos, sin = rope_tables(config.max_len, config.d_k, config.rope_base)
            self.register_buffer("rope_cos", cos, persistent=False)  # (max_len, d_k/2)
            self.register_buffer("rope_sin", sin, persistent=False)  # (max_len, d_k/2)
        self.drop = nn.Dropout(config.dropout)
        self.blocks = nn.ModuleList(TransformerBlock(config) for _ in range(config.n_layers))
        self.ln_final = nn.LayerNorm(d, eps=1e-5)
        self.head = nn.Linear(d, config.vocab_size, bias=True)
        self.reset_parameters()
        if config.tie_weights:
            self.head.weight = self.embed.weight

    def reset_parameters(self) -> None:
        """GPT-2 initialisation, by module type: linear and embedding weights N(0, 0.02), zero
        biases, LayerNorms at gain 1 and shift 0; the linear maps that end a residual branch
        (attention's ``W_O``, the MLP's ``fc_out``) at std 0.02 / sqrt(2 N), which keeps the
        residual stream's variance from growing with depth. With ``embed_scale`` the token
        embedding is drawn with std 1/sqrt(d_model) instead, so that ``sqrt(d_model) E[w]``
        starts at unit scale (see `LMConfig.embed_scale`)."""
        residual_std = 0.02 / math.sqrt(2 * self.config.n_layers)
        blocks = cast("list[TransformerBlock]", list(self.blocks))  # __init__ puts only these
        ends_a_branch = {id(m) for block in blocks for m in (block.attn.W_O, block.mlp.fc_out)}
        for module in self.modules():
            if isinstance(module, nn.Linear):
                std = residual_std if id(module) in ends_a_branch else 0.02
                nn.init.normal_(module.weight, mean=0.0, std=std)
                if module.bias is not None:
                    nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                scaled = module is self.embed and self.config.embed_scale
                std = self.config.d_model**-0.5 if scaled else 0.02
                nn.init.normal_(module.weight, mean=0.0, std=std)
            elif isinstance(module, nn.LayerNorm):
                nn.init.ones_(module.weight)
                nn.init.zeros_(module.bias)

    def embed_tokens(self, idx: torch.Tensor, ends: EndWeights | None = None) -> torch.Tensor:
        """Token vectors (B, L, d) of ids (B, L), times sqrt(d_model) with ``embed_scale``;
        ``ends``: the packed table of a one-token step, looked up without the module."""
        h = self.embed(idx) if ends is None else F.embedding(idx, ends.embed)  # (B, L, d)
        return h * math.sqrt(self.config.d_model) if self.config.embed_scale else h

    def num_parameters(self) -> int:
        """Number of distinct trainable numbers (a tied matrix counts once)."""
        return sum(p.numel() for p in self.parameters())

    def forward(
        self,
        idx: torch.Tensor,
        key_padding_mask: torch.Tensor | None = None,
        positions: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Logits (B, L, V) in float32 for token ids ``idx`` (B, L).

        ``key_padding_mask``: optional bool (B, L), True where the token is real; padded
        tokens are never attended to. ``positions``: optional absolute positions, (B, L) or
        (L,), default 0..L-1; left-padded batches pass each row's own positions.
        """
        B, L = self._check_idx(idx)
        where = self._check_positions(positions, B, L, idx.device)  # (B or 1, L), or a start
        h, rope = self.inputs(idx, where)  # (B, L, d)
        allowed, live_rows = self._mask(key_padding_mask, B, L, idx.device)
        for block in self.blocks:
            h = block(h, rope, allowed, live_rows)  # (B, L, d)
        return self.logits(h)  # (B, L, V)

    def inputs(
        self, idx: torch.Tensor, positions: torch.Tensor | int, ends: EndWeights | None = None
    ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor] | None]:
        """The first block's input (B, L, d) and the RoPE tables, for ids (B, L) at absolute
        ``positions``: a tensor (B or 1, L), or an int ``start`` for positions start .. start
        + L - 1 in every row. Returns the token embedding plus the absolute position signal,
        or the (cos, sin) tables gathered once for every block (None without RoPE).
        ``ends``: a one-token step's `EndWeights` (see `embed_tokens`), whose RoPE turns come
        from its cache (`qkv_turns`) instead of the tables."""
        h = self.embed_tokens(idx, ends)  # (B, L, d)
        rope = None
        kind = self.config.positions
        if isinstance(positions, int):
            # Shared positions: slices of the tables (views), no index tensor to build.
            end = positions + idx.shape[1]
            if kind == "learned":
                h = h + self.pos(torch.arange(positions, end, device=idx.device)[None])
            elif kind == "sinusoidal":
                h = h + self.sinusoids[positions:end]  # (B, L, d) + (L, d)
            elif kind == "rope" and ends is None:  # a step's turns come from its cache
                rope = (self.rope_cos[positions:end], self.rope_sin[positions:end])  # (L, d_k/2)
        elif kind == "learned":
            h = h + self.pos(positions)  # (B, L, d) + (B or 1, L, d)
        elif kind == "sinusoidal":
            h = h + self.sinusoids[positions]  # (B, L, d) + (B or 1, L, d)
        elif kind == "rope":
            # Gathered once here rather than in every block; the head axis broadcasts.
            rope = (
                self.rope_cos[positions].unsqueeze(1),  # (B or 1, 1, L, d_k/2)
                self.rope_sin[positions].unsqueeze(1),  # (B or 1, 1, L, d_k/2)
            )
        return (self.drop(h) if self.training else h), rope

    def logits(self, h: torch.Tensor, ends: EndWeights | None = None) -> torch.Tensor:
        """The last block's output (B, L, d) -> next-token logits (B, L, V) in float32; with
        ``ends`` (a one-token step's `EndWeights`), rows (B, d) -> (B, V)."""
        if ends is None:
            return self.head(self.ln_final(h)).float()
        return ends.head(ends.ln_final(h)).float()

    def packed_ends(self) -> EndWeights:
        """The token table, final LayerNorm and head as `EndWeights`, made once per cache."""
        return EndWeights(
            embed=self.embed.weight,
            ln_final=Norm(self.ln_final),
            head=_for_addmm(self.head.weight, self.head.bias, "head"),
        )

    def _check_idx(self, idx: torch.Tensor) -> tuple[int, int]:
        if idx.dim() != 2 or idx.dtype not in (torch.int64, torch.int32):
            raise ValueError(
                f"idx: expected an integer tensor of shape (B, L), "
                f"got dtype {idx.dtype} and shape {tuple(idx.shape)}"
            )
        B, L = idx.shape
        if L > self.config.max_len:
            raise ValueError(
                f"idx: sequence length L={L} exceeds the model's max_len={self.config.max_len}"
            )
        # Values are read only where that costs no device sync: on an accelerator the batches
        # were checked where they were made (`attnbook.lm.data`, `generate_tokens`).
        if idx.numel() > 0 and idx.device.type == "cpu":
            low, high = int(idx.min()), int(idx.max())
            if low < 0 or high >= self.config.vocab_size:
                raise ValueError(
                    f"idx: token ids must lie in [0, {self.config.vocab_size - 1}] "
                    f"(vocab_size={self.config.vocab_size}), got values in [{low}, {high}]"
                )
        return B, L

    def _check_positions(
        self, positions: torch.Tensor | None, B: int, L: int, device: torch.device
    ) -> torch.Tensor | int:
        """Absolute positions as (B, L) or (1, L), checked against max_len; None gives 0, the
        start of 0 .. L - 1 in every row (see `inputs`)."""
        if positions is None:
            return 0
        if positions.dim() == 1:
            positions = positions[None, :]  # (1, L)
        if positions.dim() != 2 or positions.shape[1] != L or positions.shape[0] not in (1, B):
            raise ValueError(
                f"positions: expected shape ({B}, {L}) or ({L},), got {tuple(positions.shape)}"
            )
        if (
            self.config.positions in ("learned", "sinusoidal", "rope")
            and positions.numel() > 0
            and positions.device.type == "cpu"
        ):
            low, high = int(positions.min()), int(positions.max())
            if low < 0 or high >= self.config.max_len:
                raise ValueError(
                    f"positions: expected values in [0, {self.config.max_len - 1}] "
                    f"(max_len={self.config.max_len}), got values in [{low}, {high}]"
                )
        return positions.to(device=device, dtype=torch.long)

    def _mask(
        self, key_padding_mask: torch.Tensor | None, B: int, L: int, device: torch.device
    ) -> tuple[torch.Tensor | None, torch.Tensor | None]:
        """The bool ``allowed`` mask (B, 1, L, L) and ``live_rows`` (B, 1, L, 1), or Nones.

        Without padding the mask stays None so SDPA can take its is_causal fast path.
        """
        if key_padding_mask is None:
            return None, None
        if key_padding_mask.shape != (B, L) or key_padding_mask.dtype != torch.bool:
            raise ValueError(
                f"key_padding_mask: expected a bool tensor of shape ({B}, {L}), "
                f"got dtype {key_padding_mask.dtype} and shape {tuple(key_padding_mask.shape)}"
            )
        allowed = key_padding_mask.to(device)[:, None, None, :]  # (B, 1, 1, L)
        if self.config.causal:
            causal = torch.ones(L, L, dtype=torch.bool, device=device).tril()  # (L, L)
            allowed = allowed & causal  # (B, 1, L, L)
        else:
            allowed = allowed.expand(B, 1, L, L)  # (B, 1, L, L)
        live_rows = allowed.any(dim=-1, keepdim=True)  # (B, 1, L, 1)
        # A row with no allowed key would be softmax over all -inf (NaN): open it, zero it later.
        return allowed | ~live_rows, live_rows


def save_checkpoint(model: TransformerLM, path: str | Path | IO[bytes], **extra) -> None:
    """Write the config, the weights and any ``extra`` (plain data or tensors) to ``path``."""
    model = getattr(model, "_orig_mod", model)  # unwrap torch.compile so keys stay plain
    torch.save(
        {"config": asdict(model.config), "state_dict": model.state_dict(), "extra": extra},
        path,
    )


def load_checkpoint(
    path: str | Path, map_location: str | torch.device | None = None
) -> tuple[TransformerLM, dict]:
    """Rebuild the model saved by `save_checkpoint`; returns ``(model, extra)``.

    The model is in eval mode, on ``map_location`` when one is given (else the CPU). A file
    that cannot be opened raises the usual `OSError`; one that opens but that torch.load
    cannot read (some other file, cut short) raises a `ValueError` naming it.
    """
    try:
        payload = torch.load(path, map_location=map_location, weights_only=True)
    except OSError:
        raise  # no such file, a folder, no permission: the error names the file already
    except Exception as error:  # torch.load fails in many ways on a file it did not write
        if isinstance(error, EOFError):
            reason = "it is empty or cut short"
        elif isinstance(error, pickle.UnpicklingError):
            reason = "it is not a file torch.save wrote, or it holds more than tensors"
        elif isinstance(error, RuntimeError | ValueError):
            reason = (str(error).strip().splitlines() or [type(error).__name__])[0][:120]
        else:  # a text file can stop the unpickler anywhere: IndexError, KeyError, ...
            reason = f"it is not a file torch.save wrote ({type(error).__name__} in torch.load)"
        raise ValueError(
            f"path: expected a checkpoint written by save_checkpoint (`attnbook train` writes "
            f"them), got {str(path)!r}, which torch.load cannot read: {reason}"
        ) from None
    if not isinstance(payload, dict) or not {"config", "state_dict", "extra"} <= payload.keys():
        found = sorted(payload)[:6] if isinstance(payload, dict) else type(payload).__name__
        raise ValueError(
            f"path: expected a checkpoint written by save_checkpoint, with the keys config, "
            f"state_dict and extra; {str(path)!r} holds {found}"
        )
    model = TransformerLM(LMConfig(**payload["config"]))
    model.load_state_dict(payload["state_dict"])
    if (
        map_location is not None
        and not callable(map_location)
        and not isinstance(map_location, dict)
    ):
        model.to(map_location)
    return model.eval(), payload["extra"]


def pick_device(preference: str | None = None) -> torch.device:
    """``preference`` if given (and available), else CUDA, then Apple MPS, then the CPU."""
    if preference is not None:
        device = torch.device(preference)
        if device.type == "cuda" and not torch.cuda.is_available():
            raise ValueError(f"preference: asked for {preference!r}, but CUDA is not available")
        if device.type == "mps" and not torch.backends.mps.is_available():
            raise ValueError(f"preference: asked for {preference!r}, but MPS is not available")
        return device
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def autocast_context(device: str | torch.device) -> contextlib.AbstractContextManager:
    """bf16 autocast on CUDA; elsewhere a no-op context, since CPU and MPS gain little."""
    device = torch.device(device)
    if device.type == "cuda":
        return torch.autocast(device_type="cuda", dtype=torch.bfloat16)
    return contextlib.nullcontext()
