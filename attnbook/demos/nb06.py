"""Helpers and figures for notebook 06, the transformer block.

What a student does not write while assembling a decoder: the causal multi-head attention
layer (from the reference model, so notebook 06 never depends on a notebook-05 answer), a
width check, and the experiments and figures of the notebook: LayerNorm against BatchNorm on
a ``[B, L, d]`` tensor, pre-norm against post-norm at depth, the causality of a whole stack
shown with gradients, the walk of shapes from ``[B, L]`` ids to ``[B, L, V]`` logits, and
keys and values that become contextual from the second block on.

Every figure function returns its matplotlib Figure with labelled axes and a title.
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn.functional as F
from matplotlib.patches import FancyBboxPatch, Rectangle
from torch import nn

from attnbook.lm.model import CausalSelfAttention, LMConfig, TransformerBlock, TransformerLM
from attnbook.plots import plot_heatmap
from attnbook.typed import all_of

__all__ = [
    "POSITION_OPTIONS",
    "batch_dependence",
    "causal_self_attention",
    "causality_gradients",
    "context_shuffle",
    "depth_profile",
    "keys_and_values",
    "norm_axes_demo",
    "plot_causality",
    "plot_depth_profiles",
    "plot_norm_axes",
    "plot_shape_walk",
    "require_last_axis",
    "shape_walk",
    "zero_branches",
]

POSITION_OPTIONS = ("sinusoidal", "learned", "rope", "none")


# ---------------------------------------------------------------------------------------
# Building blocks given to the student
# ---------------------------------------------------------------------------------------
def causal_self_attention(d_model: int, n_heads: int) -> CausalSelfAttention:
    """The reference model's causal multi-head attention, ``(B, L, d) -> (B, L, d)``.

    Its linear layers are named ``W_Q, W_K, W_V, W_O`` (each ``d x d`` with a bias). Call it
    as ``attn(x)`` or, with RoPE, ``attn(x, (cos, sin))`` where cos and sin hold the angles
    of each position and pair, shape ``(L, d_k/2)``.
    """
    config = LMConfig(vocab_size=1, d_model=d_model, n_heads=n_heads, n_layers=1, positions="none")
    return CausalSelfAttention(config)


def require_last_axis(name: str, x, size: int, meaning: str) -> None:
    """Require ``x.shape[-1] == size``, naming the argument, its shape and the size."""
    shape = tuple(getattr(x, "shape", ()))
    if len(shape) < 1 or shape[-1] != size:
        raise ValueError(f"{name} must end with an axis of {meaning} = {size}; got shape {shape}")


def zero_branches(block: Any) -> Any:
    """Zero the output layers of both residual branches (``attn.W_O`` and ``mlp.fc_out``).

    Each branch then adds exactly zero, so whatever the block still does to its input comes
    from the path around the branches. Works in place on any block with those names
    (typed ``Any``: the learner's blocks are duck-typed).
    """
    with torch.no_grad():
        for layer in (block.attn.W_O, block.mlp.fc_out):
            layer.weight.zero_()
            if layer.bias is not None:
                layer.bias.zero_()
    return block


# ---------------------------------------------------------------------------------------
# LayerNorm against BatchNorm
# ---------------------------------------------------------------------------------------
def norm_axes_demo(B: int = 3, L: int = 4, d: int = 6, seed: int = 0) -> dict:
    """A ``[B, L, d]`` tensor with features on different scales, and both normalisations.

    LayerNorm normalises each token over its d features (the last axis); BatchNorm (in
    training mode) normalises each feature over the B * L tokens of the batch.
    """
    g = torch.Generator().manual_seed(seed)
    scales = torch.linspace(0.5, 4.0, d)  # (d,): features on different scales
    offsets = torch.linspace(-3.0, 3.0, d)  # (d,)
    h = torch.randn(B, L, d, generator=g) * scales + offsets  # (B, L, d)
    layer = nn.LayerNorm(d)(h).detach()  # (B, L, d)
    batch = nn.BatchNorm1d(d)(h.reshape(B * L, d)).detach().reshape(B, L, d)  # (B, L, d)
    return {"h": h, "layer": layer, "batch": batch}


def batch_dependence(
    norm: nn.Module, train: bool, B: int = 4, L: int = 5, d: int = 8, seed: int = 0
) -> float:
    """How much example 0's output moves when the OTHER examples of its batch change.

    ``norm`` is ``nn.LayerNorm(d)`` or ``nn.BatchNorm1d(d)``, applied to ``[B, L, d]`` (the
    BatchNorm sees ``[B * L, d]``). Returns the largest absolute change of example 0's output.
    In evaluation mode BatchNorm uses its running statistics, first gathered on a few
    training batches here.
    """
    g = torch.Generator().manual_seed(seed)
    h = torch.randn(B, L, d, generator=g) * 2.0 + 1.0  # (B, L, d)
    h_other = h.clone()
    h_other[1:] = torch.randn(B - 1, L, d, generator=g) * 5.0 - 3.0  # new companions

    def apply(x):  # (B, L, d) -> (B, L, d)
        if isinstance(norm, nn.LayerNorm):
            return norm(x)
        return norm(x.reshape(-1, d)).reshape(x.shape)

    norm.train()
    with torch.no_grad():
        for _ in range(20):  # running statistics for evaluation mode
            apply(torch.randn(B, L, d, generator=g) * 2.0 + 1.0)
        norm.train(train)
        change = (apply(h)[0] - apply(h_other)[0]).abs().max()
    return float(change)


def plot_norm_axes(demo: dict):
    """Three heatmaps of a ``[B, L, d]`` tensor laid out as ``B*L`` token rows by ``d``
    feature columns: the input, LayerNorm (one row normalised at a time) and BatchNorm (one
    column normalised at a time). A box marks one group of numbers each normalises together.
    """
    h, layer, batch = (demo[k].detach().numpy() for k in ("h", "layer", "batch"))
    B, L, d = h.shape
    rows = [f"b{b} l{l}" for b in range(B) for l in range(L)]
    fig, axes = plt.subplots(1, 3, figsize=(12, 0.9 + 0.32 * B * L), sharey=True)
    panels = [
        (h, "input h, shape [B, L, d]", None),
        (layer, "LayerNorm: each token over its d features", "row"),
        (batch, "BatchNorm: each feature over all B*L tokens", "col"),
    ]
    for ax, (values, title, group) in zip(axes, panels):
        flat = values.reshape(B * L, d)  # (B*L, d): one row per token
        image = ax.imshow(
            flat, cmap="coolwarm", aspect="auto", vmin=-np.abs(flat).max(), vmax=np.abs(flat).max()
        )
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("feature j (last axis, size d)")
        ax.set_xticks(range(d))
        ax.set_yticks(range(B * L), rows)
        if group == "row":
            ax.add_patch(Rectangle((-0.5, -0.5), d, 1, fill=False, lw=2.5, ec="black"))
        if group == "col":
            ax.add_patch(Rectangle((-0.5, -0.5), 1, B * L, fill=False, lw=2.5, ec="black"))
        fig.colorbar(image, ax=ax, fraction=0.046)
    axes[0].set_ylabel("token (batch b, position l)")
    fig.suptitle("Which numbers share one mean and one standard deviation (black box)")
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------
# Pre-norm against post-norm at depth
# ---------------------------------------------------------------------------------------
def depth_profile(
    norm: str,
    n_layers: int = 32,
    d_model: int = 32,
    n_heads: int = 4,
    vocab_size: int = 64,
    B: int = 2,
    L: int = 16,
    seed: int = 0,
) -> dict:
    """Residual-stream norm and gradient norm at every depth of a freshly initialised model.

    Builds the reference decoder with ``norm="pre"`` or ``"post"`` and PyTorch's default
    initialisation (what an ``nn.Linear`` gets before training), runs one batch of random
    tokens, and backpropagates the cross-entropy against random targets. Depth 0 is the
    embedding that enters block 1; depth l is the output of block l. Returns a dict with
    ``depth``, ``stream_norm`` (mean norm of one token's vector h_l) and ``grad_norm`` (mean
    norm of dloss/dh_l per token, times B*L so it does not depend on the batch size).
    """
    torch.manual_seed(seed)
    config = LMConfig(
        vocab_size=vocab_size,
        d_model=d_model,
        n_heads=n_heads,
        n_layers=n_layers,
        max_len=L,
        positions="learned",
        norm=norm,
    )
    model = TransformerLM(config)
    for module in model.modules():
        if isinstance(module, nn.Linear | nn.Embedding | nn.LayerNorm):
            module.reset_parameters()
    states = []

    def keep(tensor):
        tensor.retain_grad()
        states.append(tensor)

    hooks = [model.blocks[0].register_forward_pre_hook(lambda m, args: keep(args[0]))]
    hooks += [b.register_forward_hook(lambda m, args, out: keep(out)) for b in model.blocks]
    g = torch.Generator().manual_seed(seed + 1)
    idx = torch.randint(0, vocab_size, (B, L), generator=g)  # (B, L)
    targets = torch.randint(0, vocab_size, (B, L), generator=g)  # (B, L)
    logits = model(idx)  # (B, L, V)
    F.cross_entropy(logits.flatten(0, 1), targets.flatten()).backward()
    for hook in hooks:
        hook.remove()
    stream = [float(h.detach().norm(dim=-1).mean()) for h in states]
    grads = [float(h.grad.norm(dim=-1).mean()) * B * L for h in states]
    return {
        "norm": norm,
        "depth": np.arange(len(states)),
        "stream_norm": np.array(stream),
        "grad_norm": np.array(grads),
        "d_model": d_model,
    }


def plot_depth_profiles(profiles: list[dict]):
    """Two panels against depth: the residual-stream norm and the gradient norm."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    for profile, marker in zip(profiles, "os^v"):
        label = f"{profile['norm']}-norm"
        left.plot(profile["depth"], profile["stream_norm"], marker + "-", ms=3, label=label)
        right.plot(profile["depth"], profile["grad_norm"], marker + "-", ms=3, label=label)
    d = profiles[0]["d_model"]
    left.axhline(np.sqrt(d), color="k", ls=":", label=f"sqrt(d) = {np.sqrt(d):.1f}")
    left.set_xlabel("depth l (0 = embedding, l = after block l)")
    left.set_ylabel("mean norm of a token's h_l")
    left.set_title("Residual stream at initialisation")
    left.legend()
    right.set_xlabel("depth l (0 = embedding, l = after block l)")
    right.set_ylabel("mean norm of dloss/dh_l (x B*L)")
    right.set_title("Gradient reaching each depth")
    right.set_ylim(bottom=0)
    right.legend()
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------
# Causality of a whole stack, by gradients
# ---------------------------------------------------------------------------------------
def causality_gradients(model: Any, idx: torch.Tensor, seed: int = 0) -> np.ndarray:
    """``G[l, s]``: size of the gradient of the logits at position l with respect to the
    input vector at position s (the output of ``model.embed``), for ids ``idx`` (B, L).

    A causal model has ``G[l, s] == 0`` exactly for every s > l. The logits at l are reduced
    to one number with a fixed random vocabulary direction before backpropagating.
    """
    captured = {}

    def keep(module, inputs, output):
        output.retain_grad()
        captured["x"] = output

    hook = model.embed.register_forward_hook(keep)
    try:
        logits = model(idx)  # (B, L, V)
    finally:
        hook.remove()
    x = captured["x"]  # (B, L, d)
    B, L, V = logits.shape
    direction = torch.randn(V, generator=torch.Generator().manual_seed(seed))  # (V,)
    G = np.zeros((L, L))
    for l in range(L):
        x.grad = None
        (logits[:, l] @ direction).sum().backward(retain_graph=l < L - 1)
        G[l] = x.grad.norm(dim=(0, 2)).detach().numpy()  # (L,): one entry per input position
    model.zero_grad(set_to_none=True)
    return G


def plot_causality(G: np.ndarray, tokens: list[str] | None = None):
    """Heatmap of ``G[l, s]`` (see `causality_gradients`); exact zeros above the diagonal."""
    L = G.shape[0]
    labels = [f"{s}:{t}" for s, t in enumerate(tokens)] if tokens else [str(s) for s in range(L)]
    fig = plot_heatmap(
        G,
        "Gradient of the logits at l with respect to the input at s",
        row_labels=labels,
        col_labels=labels,
        xlabel="input position s",
        ylabel="logit position l",
        cmap="magma",
    )
    ax = fig.axes[0]
    ax.tick_params(axis="x", labelrotation=45)
    for l in range(L):
        for s in range(l + 1, L):
            if G[l, s] == 0.0:
                ax.add_patch(Rectangle((s - 0.5, l - 0.5), 1, 1, fill=True, color="0.85"))
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------
# Shape walk
# ---------------------------------------------------------------------------------------
def shape_walk(model: Any, idx: torch.Tensor) -> list[tuple[str, tuple[int, ...]]]:
    """The shape of every stage on the way from ids ``(B, L)`` to logits ``(B, L, V)``.

    Works with any decoder whose submodules follow the course names (``embed``, optional
    ``pos``, ``blocks`` of ``ln1, attn, ln2, mlp.fc_in, mlp.fc_out``, ``ln_final``,
    ``head``). Inside the first block every stage is listed; later blocks only by output.
    Returns ``[(stage name, shape), ...]`` in the order the forward pass visits them.
    """
    stages: list[tuple[str, tuple[int, ...]]] = [("token ids", tuple(idx.shape))]
    watch = [("embed", "token embedding E[w]")]
    if isinstance(getattr(model, "pos", None), nn.Module):
        watch.append(("pos", "learned positions P"))
    first = "blocks.0"
    watch += [
        (f"{first}.ln1", "block 1: LN1(H)"),
        (f"{first}.attn", "block 1: MHA(LN1(H))"),
        (f"{first}.ln2", "block 1: LN2(U)"),
        (f"{first}.mlp.fc_in", "block 1: fc_in"),
        (f"{first}.mlp.fc_out", "block 1: MLP out"),
    ]
    watch += [(f"blocks.{i}", f"block {i + 1}: H_out") for i in range(len(model.blocks))]
    watch += [("ln_final", "final LayerNorm"), ("head", "vocabulary head: logits")]
    modules = dict(model.named_modules())
    hooks = []
    for name, label in watch:
        if name in modules:
            hooks.append(
                modules[name].register_forward_hook(
                    lambda m, args, out, label=label: stages.append((label, tuple(out.shape)))
                )
            )
    try:
        with torch.no_grad():
            model(idx)
    finally:
        for hook in hooks:
            hook.remove()
    return stages


def _symbolic(shape: tuple[int, ...], sizes: dict[str, int]) -> str:
    """``(2, 5, 16)`` -> ``[B, L, d]``: each axis takes the first unused name of its size."""
    names, used = [], set()
    for n in shape:
        name = next((k for k, v in sizes.items() if v == n and k not in used), str(n))
        used.add(name)
        names.append(name)
    return "[" + ", ".join(names) + "]"


def plot_shape_walk(
    stages: list[tuple[str, tuple[int, ...]]],
    sizes: dict[str, int],
    title: str = "Shape walk: [B, L] token ids to [B, L, V] logits",
):
    """A column of boxes, bottom to top, one per stage: its name, shape and symbolic shape.

    ``sizes`` names the widths, e.g. ``{"d": 16, "4d": 64, "V": 30}``; B and L are read
    from the first stage, the token ids.
    """
    n = len(stages)
    B, L = stages[0][1][:2]  # the first stage is the ids, (B, L)
    sizes = {"B": B, "L": L, **sizes}
    fig, ax = plt.subplots(figsize=(7.5, 0.55 * n + 1.0))
    for i, (label, shape) in enumerate(stages):
        y = i
        ax.add_patch(
            FancyBboxPatch(
                (0.05, y - 0.32), 0.9, 0.64, boxstyle="round,pad=0.02", fc="#dce8f7", ec="#3b6fb6"
            )
        )
        ax.text(0.08, y, label, va="center", ha="left", fontsize=9)
        ax.text(
            0.92,
            y,
            f"{shape}  {_symbolic(shape, sizes)}",
            va="center",
            ha="right",
            fontsize=9,
            family="monospace",
        )
        if i + 1 < n:
            ax.annotate(
                "",
                xy=(0.5, y + 0.66),
                xytext=(0.5, y + 0.34),
                arrowprops={"arrowstyle": "->", "color": "0.4"},
            )
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.6, n - 0.4)
    ax.set_xticks([])
    ax.set_yticks(range(n), [str(i) for i in range(n)])
    ax.set_ylabel("stage (forward pass goes up)")
    ax.set_xlabel("each box: stage, shape (numbers), shape (symbols)")
    ax.set_title(title)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------
# Keys and values become contextual in deeper layers
# ---------------------------------------------------------------------------------------
@torch.no_grad()
def keys_and_values(model: TransformerLM, idx: torch.Tensor, t: int) -> list[tuple]:
    """Per block, the key and the value of token ``t`` of ``idx`` (1, L) as that block's
    attention computes them (RoPE applied to the key): a list of ``(k, v)``, each (h, d_k)."""
    found = []

    def grab(attention, args):
        q, k, v = attention.heads_qkv(args[0], args[1] if len(args) > 1 else None)
        found.append((k[0, :, t].clone(), v[0, :, t].clone()))  # (h, d_k) each

    blocks = all_of(model.blocks, TransformerBlock, "model.blocks")
    handles = [block.attn.register_forward_pre_hook(grab) for block in blocks]
    try:
        model.eval()(idx)
    finally:
        for handle in handles:
            handle.remove()
    return found


def context_shuffle(model: TransformerLM, idx: torch.Tensor, t: int, seed: int = 0) -> dict:
    """Shuffle the tokens between the first (``<BOS>``) and token ``t`` of ``idx`` (1, L), keep
    token ``t`` and its position, and measure how far token ``t``'s key and value move in each
    block: ``||k' - k|| / ||k||`` over all heads. Returns the shuffled ids and one row per
    block, ``(block, key_change, value_change)``."""
    if idx.dim() != 2 or idx.shape[0] != 1:
        raise ValueError(f"idx: expected shape (1, L), got {tuple(idx.shape)}")
    if not 2 < t < idx.shape[1]:
        raise ValueError(
            f"t: expected a token with at least two before it after <BOS> "
            f"(3 <= t < {idx.shape[1]}), got {t}"
        )
    generator = torch.Generator().manual_seed(seed)
    earlier = idx[0, 1:t]
    order = torch.randperm(len(earlier), generator=generator)
    while torch.equal(earlier[order], earlier):  # a shuffle that changes nothing shows nothing
        order = torch.randperm(len(earlier), generator=generator)
    shuffled = idx.clone()
    shuffled[0, 1:t] = earlier[order]
    rows = []
    pairs = zip(keys_and_values(model, idx, t), keys_and_values(model, shuffled, t))
    for block, ((k, v), (k2, v2)) in enumerate(pairs, start=1):
        rows.append((block, float((k2 - k).norm() / k.norm()), float((v2 - v).norm() / v.norm())))
    return {"shuffled": shuffled, "rows": rows}
