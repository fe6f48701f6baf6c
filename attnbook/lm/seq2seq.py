"""The course's encoder-decoder: layers, model, training on the reply task, decoding.

Notebook 11 has students write the blocks and the model; this module is the production path
the notebook's demonstrations, the checks and the benchmark use. Names differ on purpose from
the graded exercises (CURRICULUM.md): the package never holds a student's answer.

The model is the pre-norm encoder-decoder of the decks (``torch.nn.Transformer`` with
``norm_first=True`` computes the same function, a test shows it). Notation: ``B`` batch,
``L_s`` source length, ``L_t`` target length, ``d`` = ``d_model``, ``h`` heads of width
``d_k = d / h``, ``V`` vocabulary (shared by source and target)::

    memory = LN_enc(encoder blocks(E[src] + P))           encoder: padding mask only
    logits = LN_final(decoder blocks(E[tgt] + P, memory)) W_vocab^T + 1 c^T

An encoder block is ``U = H + SelfAttn(LN1(H))``, ``H_out = U + MLP(LN2(U))`` with the
source padding mask; a decoder block adds cross-attention between the two:
``U = H + SelfAttn(LN1(H))`` (causal), ``C = U + CrossAttn(LN2(U), memory)`` (source padding
mask), ``H_out = C + MLP(LN3(C))``. Submodule names match the notebook's classes, so state
dicts load either way.
"""

from __future__ import annotations

import math
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

import torch
import torch.nn.functional as F
from torch import nn
from tqdm.auto import tqdm

from attnbook.lm.data import masked_cross_entropy, pad_batch
from attnbook.lm.model import FeedForward, LMConfig, sinusoid_table
from attnbook.lm.train import build_optimizer, learning_rate

__all__ = [
    "AttentionLayer",
    "DecoderLayer",
    "EncoderLayer",
    "ReplyTrainConfig",
    "Seq2SeqConfig",
    "Seq2SeqTransformer",
    "as_torch_transformer",
    "attention_layer",
    "beam_decode",
    "feed_forward",
    "greedy_decode",
    "initialise",
    "load_seq2seq",
    "pad_sources",
    "pairs_loss",
    "randomise",
    "save_seq2seq",
    "torch_transformer_logits",
    "train_replies",
]


# ---------------------------------------------------------------------------------------------
# Layers
# ---------------------------------------------------------------------------------------------
class AttentionLayer(nn.Module):
    """Multi-head attention whose queries come from ``x`` and keys and values from ``source``.

    ``source`` is ``x`` itself for self-attention and the encoder's output for
    cross-attention. Linear layers ``W_Q, W_K, W_V, W_O`` (each ``d x d`` with a bias).
    """

    def __init__(self, d_model: int, n_heads: int) -> None:
        super().__init__()
        if n_heads < 1 or d_model % n_heads:
            raise ValueError(
                f"d_model: expected a multiple of n_heads={n_heads}, got d_model={d_model}"
            )
        self.n_heads, self.d_k = n_heads, d_model // n_heads
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)

    def _split(self, t: torch.Tensor) -> torch.Tensor:
        B, L, _ = t.shape
        return t.view(B, L, self.n_heads, self.d_k).transpose(1, 2)  # (B, h, L, d_k)

    def project(self, x: torch.Tensor, source: torch.Tensor | None = None):
        """Per-head queries (B, h, L_q, d_k) from x, keys and values (B, h, L_k, d_k) from
        source (x itself when None)."""
        source = x if source is None else source
        return (
            self._split(self.W_Q(x)),
            self._split(self.W_K(source)),
            self._split(self.W_V(source)),
        )

    def combine(self, y: torch.Tensor) -> torch.Tensor:
        """Heads (B, h, L_q, d_k) merged side by side, then W_O: (B, L_q, d)."""
        B, h, L, d_k = y.shape
        return self.W_O(y.transpose(1, 2).reshape(B, L, h * d_k))

    def weights(
        self,
        x: torch.Tensor,
        source: torch.Tensor | None = None,
        allowed: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """The attention weights (B, h, L_q, L_k); a query with no allowed key gets zeros."""
        q, k, _ = self.project(x, source)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k)  # (B, h, L_q, L_k)
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        return torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)

    def forward(
        self,
        x: torch.Tensor,
        source: torch.Tensor | None = None,
        allowed: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Attention of x (B, L_q, d) over source (B, L_k, d) -> (B, L_q, d).

        ``allowed``: bool, True = may attend, broadcastable to (B, h, L_q, L_k): a causal
        (L_q, L_k) mask, a source padding mask (B, 1, 1, L_k), or None for every key.
        """
        q, k, v = self.project(x, source)
        live = None
        if allowed is not None:
            live = allowed.any(dim=-1, keepdim=True)  # False for a query with no allowed key
            allowed = allowed | ~live  # opened to avoid NaN; its output is zeroed below
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)  # (B, h, L_q, d_k)
        if live is not None:
            y = y * live.to(y.dtype)
        return self.combine(y)  # (B, L_q, d)


def attention_layer(d_model: int, n_heads: int) -> AttentionLayer:
    """The attention layer the notebook's blocks use: ``layer(x, source, allowed)``."""
    return AttentionLayer(d_model, n_heads)


def feed_forward(d_model: int) -> FeedForward:
    """The token-wise MLP ``fc_out(GELU(fc_in(x)))`` with hidden width ``4 * d_model``."""
    return FeedForward(
        LMConfig(vocab_size=1, d_model=d_model, n_heads=1, n_layers=1, positions="none")
    )


def key_mask(src_allowed: torch.Tensor) -> torch.Tensor:
    """A source padding mask (B, L_s) as attention's ``allowed`` (B, 1, 1, L_s): every head
    and every query may read exactly the real source tokens."""
    return src_allowed[:, None, None, :]


def causal(L: int, device: torch.device | str | None = None) -> torch.Tensor:
    """The causal ``allowed`` mask (L, L): query i may read keys j <= i."""
    return torch.ones(L, L, dtype=torch.bool, device=device).tril()


class EncoderLayer(nn.Module):
    """Pre-norm encoder block: bidirectional self-attention over the real source tokens."""

    def __init__(self, d_model: int, n_heads: int) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h: torch.Tensor, src_allowed: torch.Tensor) -> torch.Tensor:
        """(B, L_s, d), (B, L_s) bool -> (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, key_mask(src_allowed))  # (B, L_s, d)
        return u + self.mlp(self.ln2(u))


class DecoderLayer(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model: int, n_heads: int) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(
        self, h: torch.Tensor, memory: torch.Tensor, src_allowed: torch.Tensor
    ) -> torch.Tensor:
        """(B, L_t, d), memory (B, L_s, d), (B, L_s) bool -> (B, L_t, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal(h.shape[1], h.device))  # (B, L_t, d)
        c = u + self.cross_attn(self.ln2(u), memory, key_mask(src_allowed))  # (B, L_t, d)
        return c + self.mlp(self.ln3(c))


# ---------------------------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------------------------
@dataclass
class Seq2SeqConfig:
    """Hyperparameters of a `Seq2SeqTransformer`; validated on construction."""

    vocab_size: int  # V: token ids of source and target (one shared vocabulary)
    d_model: int = 64  # d: width of both residual streams
    n_heads: int = 4  # h: heads per attention layer; d_k = d_model / n_heads
    n_layers: int = 2  # N: encoder blocks, and as many decoder blocks
    max_len: int = 32  # longest source and longest target the model accepts
    pad_id: int = 0  # the padding token of the sources
    positions: str = "sinusoidal"  # "none" only for the checks' lookup-table models

    def __post_init__(self) -> None:
        for name in ("vocab_size", "d_model", "n_heads", "n_layers", "max_len"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"Seq2SeqConfig.{name}: expected a positive int, got {value!r}")
        if self.d_model % self.n_heads or self.d_model % 2:
            raise ValueError(
                f"Seq2SeqConfig.d_model: expected an even multiple of n_heads="
                f"{self.n_heads}, got d_model={self.d_model}"
            )
        if self.positions not in ("sinusoidal", "none"):
            raise ValueError(
                f"Seq2SeqConfig.positions: expected 'sinusoidal' or 'none', got {self.positions!r}"
            )
        if not 0 <= self.pad_id < self.vocab_size:
            raise ValueError(
                f"Seq2SeqConfig.pad_id: expected an id in [0, "
                f"{self.vocab_size - 1}], got {self.pad_id!r}"
            )


class Seq2SeqTransformer(nn.Module):
    """Source ids (B, L_s) and target ids (B, L_t) -> next-token logits (B, L_t, V)."""

    sinusoids: torch.Tensor  # (max_len, d): a buffer, registered in __init__

    def __init__(self, config: Seq2SeqConfig) -> None:
        super().__init__()
        self.config = config
        d, h, N = config.d_model, config.n_heads, config.n_layers
        self.pad_id, self.max_len = config.pad_id, config.max_len
        self.embed = nn.Embedding(config.vocab_size, d)
        table = sinusoid_table(config.max_len, d)  # (max_len, d)
        if config.positions == "none":
            table = torch.zeros_like(table)
        self.register_buffer("sinusoids", table, persistent=False)
        self.encoder = nn.ModuleList(EncoderLayer(d, h) for _ in range(N))
        self.ln_enc = nn.LayerNorm(d)
        self.decoder = nn.ModuleList(DecoderLayer(d, h) for _ in range(N))
        self.ln_final = nn.LayerNorm(d)
        self.head = nn.Linear(d, config.vocab_size)
        initialise(self)

    def _ids(self, name: str, ids: torch.Tensor) -> int:
        if ids.dim() != 2 or ids.dtype not in (torch.int64, torch.int32):
            raise ValueError(
                f"{name}: expected an integer tensor of shape (B, L), got dtype "
                f"{ids.dtype} and shape {tuple(ids.shape)}"
            )
        if ids.shape[1] > self.max_len:
            raise ValueError(
                f"{name}: length {ids.shape[1]} (shape {tuple(ids.shape)}) "
                f"exceeds max_len={self.max_len}"
            )
        return ids.shape[1]

    def encode(self, src_ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(memory, src_allowed)``: the encoder's output (B, L_s, d) and the source
        padding mask (B, L_s), True on real tokens."""
        L = self._ids("src_ids", src_ids)
        src_allowed = src_ids != self.pad_id  # (B, L_s)
        h = self.embed(src_ids) + self.sinusoids[:L]  # (B, L_s, d)
        for layer in self.encoder:
            h = layer(h, src_allowed)  # (B, L_s, d)
        return self.ln_enc(h), src_allowed

    def decode(
        self, tgt_ids: torch.Tensor, memory: torch.Tensor, src_allowed: torch.Tensor
    ) -> torch.Tensor:
        """Logits (B, L_t, V) of the target, reading the encoder's ``memory``."""
        L = self._ids("tgt_ids", tgt_ids)
        h = self.embed(tgt_ids) + self.sinusoids[:L]  # (B, L_t, d)
        for layer in self.decoder:
            h = layer(h, memory, src_allowed)  # (B, L_t, d)
        return self.head(self.ln_final(h))  # (B, L_t, V)

    def forward(self, src_ids: torch.Tensor, tgt_ids: torch.Tensor) -> torch.Tensor:
        if src_ids.shape[:1] != tgt_ids.shape[:1]:
            raise ValueError(
                f"src_ids and tgt_ids: expected the same batch size, got shapes "
                f"{tuple(src_ids.shape)} and {tuple(tgt_ids.shape)}"
            )
        memory, src_allowed = self.encode(src_ids)
        return self.decode(tgt_ids, memory, src_allowed)

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())


def as_torch_transformer(model: Any) -> nn.Transformer:
    """PyTorch's ``nn.Transformer(norm_first=True)`` holding ``model``'s weights.

    ``model`` is the course's ``Seq2SeqTransformer`` or notebook 11's ``EncoderDecoder``:
    anything with ``encoder`` and ``decoder`` lists of blocks built from
    ``attention_layer`` and ``feed_forward`` and the LayerNorms ``ln_enc`` and
    ``ln_final``. PyTorch keeps the three input projections as one ``in_proj_weight``;
    the embeddings, positions and head stay outside it (see
    ``torch_transformer_logits``).

    Typed ``Any``: it is duck-typed over classes the learner writes, whose layers mypy
    cannot know (an ``nn.Module``'s submodules are dynamic attributes).
    """
    first = model.encoder[0]
    d, h = first.ln1.normalized_shape[0], first.self_attn.n_heads
    with warnings.catch_warnings():  # "enable_nested_tensor is True, but ... norm_first"
        warnings.filterwarnings("ignore", message="enable_nested_tensor", category=UserWarning)
        theirs = nn.Transformer(
            d,
            h,
            len(model.encoder),
            len(model.decoder),
            first.mlp.fc_in.out_features,
            dropout=0.0,
            activation="gelu",
            batch_first=True,
            norm_first=True,
        )

    def attention(dst: nn.MultiheadAttention, src: AttentionLayer) -> None:
        dst.in_proj_weight.copy_(torch.cat([src.W_Q.weight, src.W_K.weight, src.W_V.weight]))
        dst.in_proj_bias.copy_(torch.cat([src.W_Q.bias, src.W_K.bias, src.W_V.bias]))
        dst.out_proj.load_state_dict(src.W_O.state_dict())

    with torch.no_grad():
        for ours, layer in zip(model.encoder, theirs.encoder.layers):
            attention(layer.self_attn, ours.self_attn)
            layer.norm1.load_state_dict(ours.ln1.state_dict())
            layer.norm2.load_state_dict(ours.ln2.state_dict())
            layer.linear1.load_state_dict(ours.mlp.fc_in.state_dict())
            layer.linear2.load_state_dict(ours.mlp.fc_out.state_dict())
        for ours, layer in zip(model.decoder, theirs.decoder.layers):
            attention(layer.self_attn, ours.self_attn)
            attention(layer.multihead_attn, ours.cross_attn)
            for n in (1, 2, 3):
                getattr(layer, f"norm{n}").load_state_dict(getattr(ours, f"ln{n}").state_dict())
            layer.linear1.load_state_dict(ours.mlp.fc_in.state_dict())
            layer.linear2.load_state_dict(ours.mlp.fc_out.state_dict())
        theirs.encoder.norm.load_state_dict(model.ln_enc.state_dict())
        theirs.decoder.norm.load_state_dict(model.ln_final.state_dict())
    return theirs.eval()


def torch_transformer_logits(
    model: Any, src_ids: torch.Tensor, tgt_ids: torch.Tensor, pad_id: int = 0
) -> torch.Tensor:
    """The logits (B, L_t, V) that ``nn.Transformer(norm_first=True)`` computes with
    ``model``'s weights: the same embeddings and sinusoids in, the same head out, and
    PyTorch's own masks (``True`` = blocked, the opposite of ours)."""
    theirs = as_torch_transformer(model)
    L_s, L_t = src_ids.shape[1], tgt_ids.shape[1]
    padding = src_ids == pad_id  # (B, L_s): True on <PAD>
    with torch.no_grad():
        out = theirs(
            model.embed(src_ids) + model.sinusoids[:L_s],
            model.embed(tgt_ids) + model.sinusoids[:L_t],
            tgt_mask=nn.Transformer.generate_square_subsequent_mask(L_t, dtype=torch.bool),
            src_key_padding_mask=padding,
            memory_key_padding_mask=padding,
        )  # (B, L_t, d), after PyTorch's final decoder norm
        return model.head(out)


def initialise(model: nn.Module) -> nn.Module:
    """Random weights by module type: embeddings N(0, 1), so that a token's identity is as
    loud as its position signal from the first step; linear weights N(0, 0.02), biases zero,
    LayerNorms the identity. Any module with the same layers in the same order (the
    notebook's EncoderDecoder and `Seq2SeqTransformer`) gets the same numbers from one seed."""
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.Embedding):
                nn.init.normal_(module.weight, mean=0.0, std=1.0)
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if isinstance(module, nn.Linear) and module.bias is not None:
                nn.init.zeros_(module.bias)
            if isinstance(module, nn.LayerNorm):
                nn.init.ones_(module.weight)
                nn.init.zeros_(module.bias)
    return model


_M = TypeVar("_M", bound=nn.Module)


def randomise(model: _M, seed: int) -> _M:
    """Random weights of unit scale by module type, so that every path carries a visible
    signal (the checks and the notebook's probes): embeddings N(0, 1), linear weights
    N(0, 1 / fan_in), biases N(0, 0.2^2), LayerNorm scales 1 + N(0, 0.3^2) and shifts
    N(0, 0.2^2). In place; returns the model."""
    g = torch.Generator().manual_seed(seed)

    def noise(t: torch.Tensor) -> torch.Tensor:
        return torch.randn(t.shape, generator=g, dtype=t.dtype)

    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.Embedding):
                module.weight.copy_(noise(module.weight))
            elif isinstance(module, nn.Linear):
                module.weight.copy_(noise(module.weight) / math.sqrt(module.in_features))
                if module.bias is not None:
                    module.bias.copy_(0.2 * noise(module.bias))
            elif isinstance(module, nn.LayerNorm):
                module.weight.copy_(1.0 + 0.3 * noise(module.weight))
                module.bias.copy_(0.2 * noise(module.bias))
    return model


def save_seq2seq(model: Seq2SeqTransformer, path: str | Path, **extra) -> None:
    """Write the config, the weights and any ``extra`` (plain data) to ``path``."""
    torch.save(
        {"config": asdict(model.config), "state_dict": model.state_dict(), "extra": extra}, path
    )


def load_seq2seq(path: str | Path) -> tuple[Seq2SeqTransformer, dict]:
    """``(model, extra)`` from `save_seq2seq`'s file; the model is in eval mode on the CPU."""
    payload = torch.load(path, map_location="cpu", weights_only=True)
    model = Seq2SeqTransformer(Seq2SeqConfig(**payload["config"]))
    model.load_state_dict(payload["state_dict"])
    return model.eval(), payload["extra"]


# ---------------------------------------------------------------------------------------------
# Training on (source, target) id pairs
# ---------------------------------------------------------------------------------------------
@dataclass
class ReplyTrainConfig:
    """A training run on the reply task; `attnbook.lm.train`'s schedule and optimizer."""

    steps: int = 600  # length of the learning-rate schedule
    batch_size: int = 64  # pairs per step
    lr: float = 3e-3
    min_lr_ratio: float = 0.05  # cosine decay ends at lr * min_lr_ratio
    warmup_steps: int = 40
    weight_decay: float = 0.01
    grad_clip: float = 1.0
    n_train: int = 20_000  # pairs sampled from the task, seed `data_seed`
    n_val: int = 1_000  # pairs from a separate stream, seed `data_seed + 1`
    data_seed: int = 0
    seed: int = 0  # initialisation and batch order
    eval_every: int = 200
    budget_seconds: float | None = None  # stop early once this much time has passed
    progress: bool = True


def pad_sources(sources: Sequence[Sequence[int]], pad_id: int = 0) -> torch.Tensor:
    """Source id lists as one (B, L_s) tensor, padded on the right with ``pad_id``."""
    L = max(len(s) for s in sources)
    out = torch.full((len(sources), L), pad_id, dtype=torch.long)
    for row, ids in enumerate(sources):
        out[row, : len(ids)] = torch.as_tensor(ids, dtype=torch.long)
    return out


def _batch(pairs: Sequence[tuple[list[int], list[int]]], pad_id: int):
    """(src (B, L_s), tgt_in (B, L_t), tgt_out (B, L_t), loss_mask (B, L_t))."""
    target = pad_batch([t for _, t in pairs], pad_id)
    return (
        pad_sources([s for s, _ in pairs], pad_id),
        target.inputs,
        target.targets,
        target.loss_mask,
    )


@torch.no_grad()
def pairs_loss(
    model: nn.Module,
    pairs: Sequence[tuple[list[int], list[int]]],
    pad_id: int = 0,
    batch_size: int = 250,
) -> float:
    """Mean cross-entropy (nats per real target token) of ``model`` on id pairs."""
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    for start in range(0, len(pairs), batch_size):
        src, tgt_in, tgt_out, mask = _batch(pairs[start : start + batch_size], pad_id)
        n = int(mask.sum())
        total += float(masked_cross_entropy(model(src, tgt_in), tgt_out, mask)) * n
        count += n
    model.train(was_training)
    return total / count


def train_replies(
    model: nn.Module,
    train: Sequence[tuple[list[int], list[int]]],
    val: Sequence[tuple[list[int], list[int]]],
    config: ReplyTrainConfig,
    pad_id: int = 0,
    on_eval: Callable[[dict], None] | None = None,
) -> dict:
    """Train any ``model(src_ids, tgt_ids) -> logits`` with teacher forcing on id pairs.

    Each pair is (source ids, target ids ``<BOS> ... <EOS>``). AdamW with warm-up and
    cosine decay (`attnbook.lm.train`), gradient clipping, seeded batch order; validation every
    ``eval_every`` steps and at the end. Returns the log (one row per step) and metrics.
    """
    generator = torch.Generator().manual_seed(config.seed)
    optimizer = build_optimizer(model, config)
    rows, start = [], time.perf_counter()
    model.train()
    bar = tqdm(
        total=config.steps,
        desc="train",
        disable=not config.progress,
        dynamic_ncols=True,
        file=sys.stdout,
    )
    for step in range(1, config.steps + 1):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(config, step - 1)
        picks = torch.randint(len(train), (config.batch_size,), generator=generator)
        src, tgt_in, tgt_out, mask = _batch([train[i] for i in picks.tolist()], pad_id)
        loss = masked_cross_entropy(model(src, tgt_in), tgt_out, mask)  # mean over real
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
        optimizer.step()
        elapsed = time.perf_counter() - start
        row = {
            "step": step,
            "train_loss": float(loss.detach()),
            "val_loss": None,
            "elapsed_s": elapsed,
        }
        rows.append(row)
        bar.update(1)
        out_of_time = config.budget_seconds is not None and elapsed >= config.budget_seconds
        if step % config.eval_every == 0 or step == config.steps or out_of_time:
            row["val_loss"] = pairs_loss(model, val, pad_id)
            bar.set_postfix(val=f"{row['val_loss']:.4f}")
            if on_eval is not None:
                on_eval(row)
        if out_of_time:
            break
    bar.close()
    model.eval()
    return {
        "log": rows,
        "steps": len(rows),
        "wall_s": time.perf_counter() - start,
        "val_loss": rows[-1]["val_loss"],
    }


# ---------------------------------------------------------------------------------------------
# Decoding (the production path; notebook 11 has students write beam search themselves)
# ---------------------------------------------------------------------------------------------
@torch.no_grad()
def _next_log_probs(model: nn.Module, src_ids: torch.Tensor, prefixes: torch.Tensor):
    """log p(next | src, prefix) for each row of prefixes (n, t): (n, V), float64."""
    src = src_ids[None, :].expand(prefixes.shape[0], -1)  # (n, L_s)
    return torch.log_softmax(model(src, prefixes)[:, -1].double(), dim=-1)  # (n, V)


def greedy_decode(
    model: nn.Module,
    src_ids: Sequence[int] | torch.Tensor,
    max_len: int,
    eos_id: int,
    bos_id: int = 1,
) -> tuple[list[int], float]:
    """The most likely next token at every step: ``(ids from <BOS>, log-probability)``."""
    return beam_decode(model, src_ids, 1, max_len, eos_id, bos_id)


def beam_decode(
    model: nn.Module,
    src_ids: Sequence[int] | torch.Tensor,
    beam_size: int,
    max_len: int,
    eos_id: int,
    bos_id: int = 1,
    alpha: float = 0.0,
) -> tuple[list[int], float]:
    """Beam search: ``(ids from <BOS>, total log-probability)`` of the best reply found.

    Every step extends each live prefix by every token and keeps the ``beam_size`` best
    candidates by total log-probability (no length normalisation); a kept candidate that
    ends in ``eos_id`` is finished and leaves the beam. The search ends when no prefix is
    live or after ``max_len`` new tokens, and returns the best finished hypothesis, or the
    best live one when none finished. ``beam_size=1`` is greedy decoding.

    ``alpha > 0`` ranks the finished hypotheses by the length-normalised score of Wu et al.
    (2016), ``log p / ((5 + n) / 6) ** alpha`` with ``n`` the tokens written after <BOS>
    (Vaswani et al. decoded with ``alpha = 0.6``); the live prefixes all have one length,
    so their ranking is unchanged. The returned score is still the total log-probability.
    """
    if not isinstance(alpha, (int, float)) or isinstance(alpha, bool) or alpha < 0:
        raise ValueError(f"alpha: expected a number >= 0 (0 = no length penalty), got {alpha!r}")

    def penalty(n: int) -> float:
        return ((5 + n) / 6) ** alpha

    was_training = model.training
    model.eval()
    src = torch.as_tensor(src_ids, dtype=torch.long)
    live = torch.tensor([[bos_id]])  # (n, t): every live prefix has the same length
    scores = torch.zeros(1, dtype=torch.float64)  # (n,)
    finished: list[tuple[float, list[int]]] = []
    for _ in range(max_len):
        if finished and max(f[0] / penalty(len(f[1]) - 1) for f in finished) >= float(
            scores.max()
        ) / penalty(max_len):
            break  # no live prefix can still beat the best finished reply
        total = scores[:, None] + _next_log_probs(model, src, live)  # (n, V)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = flat // total.shape[1], flat % total.shape[1]
        ended = tokens == eos_id
        for score, row, token in zip(best[ended], rows[ended], tokens[ended]):
            finished.append((float(score), [*live[row].tolist(), int(token)]))
        live = torch.cat((live[rows[~ended]], tokens[~ended, None]), dim=1)  # (n', t + 1)
        scores = best[~ended]
        if len(live) == 0:
            break
    model.train(was_training)
    if finished:
        score, ids = max(finished, key=lambda f: f[0] / penalty(len(f[1]) - 1))
        return ids, score
    return live[int(scores.argmax())].tolist(), float(scores.max())
