"""Notebook 09 helpers: recurrence against attention, positions without position signals.

- `dependency_paths` and `gradient_reach`: how far an early token is from a late query in an
  RNN and in causal attention, counted on the dependency graph and measured by gradients;
- `time_recurrences`: the sequential loop against a parallel form as the length L grows;
- `hidden_states`, `position_probe`, `random_word_batch`: a linear probe of absolute position
  on a decoder's hidden states;
- `architecture_masks`: the masks of an encoder, a causal decoder and an encoder-decoder;
- figures for each (`plot_*`), built without pyplot so they never touch the backend.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

import numpy as np
import torch
from matplotlib.figure import Figure

from attnbook.lm.model import TransformerLM
from attnbook.plots import show_figure

__all__ = [
    "show_figure",
    "dependency_paths",
    "gradient_reach",
    "plot_paths",
    "time_recurrences",
    "plot_recurrence_timing",
    "hidden_states",
    "random_word_batch",
    "position_probe",
    "plot_position_probe",
    "architecture_masks",
    "plot_architectures",
]


# ---------------------------------------------------------------------------------------
# Path length and sequential steps
# ---------------------------------------------------------------------------------------
def _graph(kind: str, L: int) -> dict[str, list[str]]:
    """Edges of one layer's dependency graph: inputs x0..x{L-1}, outputs h0..h{L-1}."""
    edges: dict[str, list[str]] = {f"x{t}": [f"h{t}"] for t in range(L)}
    if kind == "rnn":  # h_t = f(h_{t-1}, x_t)
        for t in range(L - 1):
            edges.setdefault(f"h{t}", []).append(f"h{t + 1}")
    elif kind == "attention":  # causal: h_t reads every x_j with j <= t in one hop
        for j in range(L):
            edges[f"x{j}"] = [f"h{t}" for t in range(j, L)]
    else:
        raise ValueError(f"kind: expected 'rnn' or 'attention', got {kind!r}")
    return edges


def _hops(edges: dict[str, list[str]], source: str) -> dict[str, int]:
    """Breadth-first search: the fewest edges from ``source`` to every node it reaches."""
    dist, queue = {source: 0}, deque([source])
    while queue:
        node = queue.popleft()
        for nxt in edges.get(node, []):
            if nxt not in dist:
                dist[nxt] = dist[node] + 1
                queue.append(nxt)
    return dist


def _depth(edges: dict[str, list[str]], L: int) -> int:
    """Sequential steps: the longest chain of outputs that must wait for one another."""
    longest = {f"h{t}": 1 for t in range(L)}
    for t in range(L):  # outputs are numbered in a topological order
        for nxt in edges.get(f"h{t}", []):
            longest[nxt] = max(longest[nxt], longest[f"h{t}"] + 1)
    return max(longest.values())


def dependency_paths(L: int) -> dict:
    """Counted on the dependency graph of one layer, for an RNN and for causal attention.

    Returns ``hops_rnn`` and ``hops_attention`` (L,): edges from input x_0 to output h_t;
    ``steps_rnn`` and ``steps_attention``: the longest chain of outputs that wait for one
    another (the sequential steps); ``scores_attention``: query-key scores computed,
    L (L + 1) / 2 with the causal mask.
    """
    if L < 1:
        raise ValueError(f"L: expected a positive length, got {L}")
    out: dict[str, int | np.ndarray] = {"L": L}
    for kind in ("rnn", "attention"):
        edges = _graph(kind, L)
        dist = _hops(edges, "x0")
        out[f"hops_{kind}"] = np.array([dist[f"h{t}"] for t in range(L)])
        out[f"steps_{kind}"] = _depth(edges, L)
    out["scores_attention"] = L * (L + 1) // 2
    return out


def gradient_reach(L: int = 32, d: int = 16, seed: int = 0, gain: float = 1.0) -> dict:
    """|d h_t / d x_0| for a random tanh RNN and a random causal attention layer.

    Both start from the same inputs; the RNN is ``h_t = tanh(W h_{t-1} + U x_t)`` with
    ``W`` of spectral norm ``gain``: with ``gain <= 1`` it contracts by construction, since
    ``|tanh'| <= 1``. ``orthogonal`` is the reach of the linear recurrence
    ``h_t = Q h_{t-1} + U x_t`` with ``Q`` orthogonal (every eigenvalue has ``|lambda| = 1``),
    which neither fades nor grows. Returns arrays ``t``, ``rnn``, ``orthogonal`` and
    ``attention`` (L,).
    """
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(L, d, generator=g, dtype=torch.float64, requires_grad=True)  # (L, d)
    W = torch.randn(d, d, generator=g, dtype=torch.float64)
    W = gain * W / torch.linalg.matrix_norm(W, ord=2)  # (d, d), spectral norm = gain
    U = torch.randn(d, d, generator=g, dtype=torch.float64) / d**0.5  # (d, d)
    h = torch.zeros(d, dtype=torch.float64)
    rnn = []
    for t in range(L):
        h = torch.tanh(W @ h + U @ X[t])  # (d,)
        rnn.append(h)
    Q, _ = torch.linalg.qr(torch.randn(d, d, generator=g, dtype=torch.float64))  # orthogonal
    h = torch.zeros(d, dtype=torch.float64)
    linear = []
    for t in range(L):
        h = Q @ h + U @ X[t]  # (d,): no squashing, no contraction
        linear.append(h)
    W_Q, W_K, W_V = (torch.randn(d, d, generator=g, dtype=torch.float64) / d**0.5 for _ in "qkv")
    S = (X @ W_Q.T) @ (X @ W_K.T).T / d**0.5  # (L, L)
    allowed = torch.ones(L, L, dtype=torch.bool).tril()  # (L, L)
    A = S.masked_fill(~allowed, float("-inf")).softmax(-1)  # (L, L)
    Y = A @ (X @ W_V.T)  # (L, d)

    def reach(outputs) -> np.ndarray:
        values = []
        for t in range(L):
            (grad,) = torch.autograd.grad(outputs[t].sum(), X, retain_graph=True)
            values.append(float(grad[0].norm()))
        return np.array(values)

    return {
        "t": np.arange(L),
        "rnn": reach(rnn),
        "orthogonal": reach(linear),
        "attention": reach(Y),
    }


def plot_paths(paths: dict, reach: dict | None = None) -> Figure:
    """Hops from x_0 to h_t (left) and, if given, the gradient reach (right)."""
    fig = Figure(figsize=(10 if reach else 5.5, 3.6))
    axes = fig.subplots(1, 2 if reach else 1)
    axes = np.atleast_1d(np.asarray(axes, dtype=object))
    t = np.arange(paths["L"])
    axes[0].plot(
        t, paths["hops_rnn"], "o-", ms=3, label=f"RNN ({paths['steps_rnn']} sequential steps)"
    )
    axes[0].plot(t, paths["hops_attention"], "s-", ms=3,
                 label=f"causal attention ({paths['steps_attention']} step, "
                 f"{paths['scores_attention']} scores)")  # fmt: skip
    axes[0].set_xlabel("query position t")
    axes[0].set_ylabel("edges from x_0 to h_t")
    axes[0].set_title("path length from the first token")
    axes[0].legend(fontsize=8)
    if reach:
        axes[1].semilogy(reach["t"], reach["rnn"], "o-", ms=3, label="tanh RNN")
        axes[1].semilogy(reach["t"], reach["attention"], "s-", ms=3, label="causal attention")
        axes[1].set_xlabel("query position t")
        axes[1].set_ylabel("|d h_t / d x_0|")
        axes[1].set_title("how much x_0 still moves h_t")
        axes[1].legend(fontsize=8)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------
# Timing a recurrence
# ---------------------------------------------------------------------------------------
def time_recurrences(
    functions: dict[str, Callable],
    lengths: tuple[int, ...] = (16, 64, 256, 1024, 4096),
    n: int = 4,
    m: int = 3,
    seed: int = 0,
    repeats: int = 3,
) -> dict:
    """Best-of-``repeats`` seconds of each ``functions[name](A, B, X)`` for every length.

    ``A`` is (n, n) with spectral radius 0.9 (so the state stays bounded), ``B`` (n, m),
    ``X`` (L, m). Also records the largest disagreement between the first two functions.
    """
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    A = 0.9 * Q  # (n, n), an orthogonal matrix shrunk: every eigenvalue has modulus 0.9
    B = rng.standard_normal((n, m))  # (n, m)
    seconds: dict[str, list[float]] = {name: [] for name in functions}
    max_diff: list[float] = []
    out = {"lengths": list(lengths), "seconds": seconds, "max_diff": max_diff}
    for L in lengths:
        X = rng.standard_normal((L, m))  # (L, m)
        results = {}
        for name, fn in functions.items():
            best = np.inf
            for _ in range(repeats):
                start = time.perf_counter()
                results[name] = np.asarray(fn(A, B, X))
                best = min(best, time.perf_counter() - start)
            seconds[name].append(best)
        first, *rest = results.values()
        max_diff.append(float(np.abs(first - rest[0]).max()) if rest else 0.0)
    return out


def plot_recurrence_timing(timing: dict) -> Figure:
    """Seconds against L (log-log) for each recurrence, with the sequential-step counts."""
    fig = Figure(figsize=(10, 3.6))
    ax_time, ax_steps = fig.subplots(1, 2)
    L = np.array(timing["lengths"])
    for name, seconds in timing["seconds"].items():
        ax_time.loglog(L, seconds, "o-", label=name)
    ax_time.set_xlabel("sequence length L")
    ax_time.set_ylabel("seconds (best of repeats)")
    ax_time.set_title("one pass over the sequence")
    ax_time.legend(fontsize=8)
    ax_steps.loglog(L, L, "o-", label="step by step: L dependent steps")
    ax_steps.loglog(L, np.ceil(np.log2(L)), "s-", label="doubling scan: log2 L rounds")
    ax_steps.set_xlabel("sequence length L")
    ax_steps.set_ylabel("rounds that must wait for each other")
    ax_steps.set_title("sequential depth")
    ax_steps.legend(fontsize=8)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------
# Position probe
# ---------------------------------------------------------------------------------------
@torch.no_grad()
def hidden_states(model: TransformerLM, idx: torch.Tensor) -> list[torch.Tensor]:
    """The residual stream after the embedding and after each block: N + 1 tensors (B, L, d)."""
    if model.config.positions != "none":
        raise ValueError(
            f"model: the probe expects a decoder without position signal, got "
            f"positions={model.config.positions!r}"
        )
    model.eval()
    captured: list[torch.Tensor] = []
    hooks = [block.register_forward_hook(lambda _m, _i, out: captured.append(out))
             for block in model.blocks]  # fmt: skip
    try:
        embedded = model.embed_tokens(idx)  # (B, L, d); "none" adds no position
        model(idx)
    finally:
        for hook in hooks:
            hook.remove()
    return [embedded, *captured]


def random_word_batch(n: int, L: int, vocab_size: int, seed: int = 0, first_word: int = 3):
    """``n`` sequences of ``<BOS>`` followed by ``L - 1`` words drawn uniformly: (n, L) ids.

    In shuffled words no word says where it is ("thanks" no longer sits near the end), so
    any position a probe finds must come from the architecture.
    """
    g = torch.Generator().manual_seed(seed)
    words = torch.randint(first_word, vocab_size, (n, L - 1), generator=g)  # (n, L-1)
    return torch.cat([torch.ones(n, 1, dtype=torch.long), words], dim=1)  # (n, L), BOS = 1


def position_probe(
    model: TransformerLM, L: int = 32, n: int = 256, seed: int = 0, ridge: float = 1e-3
) -> dict:
    """Least-squares probe of absolute position from each layer's hidden states.

    Fit on half of ``n`` random-word sequences, scored on the other half (positions 1..L-1;
    the ``<BOS>`` token at 0 is given away by its identity). Returns per layer ``r2`` (the
    share of the variance of the position explained on held-out sequences), and for the
    last layer the held-out ``true`` and ``predicted`` positions.
    """
    idx = random_word_batch(n, L, model.config.vocab_size, seed)
    states = hidden_states(model, idx)
    positions = np.broadcast_to(np.arange(L), (n, L))[:, 1:].astype(float)  # (n, L-1)
    half = n // 2
    r2, predicted = [], None
    for h in states:
        H = h[:, 1:].double().numpy()  # (n, L-1, d)
        design = np.concatenate([H, np.ones(H.shape[:2] + (1,))], axis=-1)  # (n, L-1, d+1)
        fit_X, fit_y = design[:half].reshape(-1, design.shape[-1]), positions[:half].ravel()
        gram = fit_X.T @ fit_X + ridge * len(fit_y) * np.eye(fit_X.shape[1])  # (d+1, d+1)
        w = np.linalg.solve(gram, fit_X.T @ fit_y)  # (d+1,)
        test_X, test_y = design[half:].reshape(-1, design.shape[-1]), positions[half:].ravel()
        predicted = test_X @ w
        r2.append(1.0 - np.mean((predicted - test_y) ** 2) / np.var(test_y))
    return {"r2": np.array(r2), "true": test_y, "predicted": predicted, "L": L}


def plot_position_probe(probes: dict[str, dict]) -> Figure:
    """Held-out R^2 per layer (left) and predicted against true position, last layer (right)."""
    fig = Figure(figsize=(10, 3.8))
    ax_r2, ax_scatter = fig.subplots(1, 2)
    for i, (label, probe) in enumerate(probes.items()):
        layers = np.arange(len(probe["r2"]))
        ax_r2.plot(layers, probe["r2"], "o-", color=f"C{i}", label=label)
        ax_scatter.scatter(probe["true"] + 0.15 * (i - 0.5), probe["predicted"], s=3,
                           alpha=0.3, color=f"C{i}", label=label)  # fmt: skip
    ax_r2.axhline(0.0, color="black", lw=1, ls="--")
    ax_r2.set_xticks(layers, ["embedding"] + [f"block {k}" for k in layers[1:]])
    ax_r2.set_ylim(-0.1, 1.0)
    ax_r2.set_xlabel("hidden state after")
    ax_r2.set_ylabel("held-out R^2 of the position")
    ax_r2.set_title("linear probe of absolute position")
    ax_r2.legend(fontsize=8)
    L = next(iter(probes.values()))["L"]
    ax_scatter.plot([1, L - 1], [1, L - 1], color="black", lw=1, ls="--")
    ax_scatter.set_xlabel("true position")
    ax_scatter.set_ylabel("probe's position (held out)")
    ax_scatter.set_title("last block")
    ax_scatter.legend(fontsize=8, markerscale=4)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------
# Encoder, decoder, encoder-decoder
# ---------------------------------------------------------------------------------------
def architecture_masks(L_src: int = 5, L_tgt: int = 4) -> dict[str, np.ndarray]:
    """The allowed matrices (True = may attend; rows are queries, columns keys).

    ``encoder`` (L_src, L_src): every token sees every token; ``decoder`` (L_tgt, L_tgt):
    position i sees j <= i; ``cross`` (L_tgt, L_src): every target query sees every source
    key (the encoder-decoder also uses ``encoder`` on the source and ``decoder`` on the
    target).
    """
    return {
        "encoder": np.ones((L_src, L_src), dtype=bool),
        "decoder": np.tril(np.ones((L_tgt, L_tgt), dtype=bool)),
        "cross": np.ones((L_tgt, L_src), dtype=bool),
    }


def plot_architectures(src: list[str], tgt: list[str]) -> Figure:
    """Encoder-only, causal decoder and encoder-decoder: who may read whom, as masks."""
    masks = architecture_masks(len(src), len(tgt))
    panels = [
        ("encoder-only: self-attention", masks["encoder"], src, src),
        ("causal decoder: self-attention", masks["decoder"], tgt, tgt),
        ("encoder-decoder: target self-attention", masks["decoder"], tgt, tgt),
        ("encoder-decoder: cross-attention", masks["cross"], tgt, src),
    ]
    fig = Figure(figsize=(13, 3.6))
    axes = fig.subplots(1, 4)
    for ax, (title, allowed, rows, cols) in zip(axes, panels, strict=True):
        ax.imshow(allowed, cmap="Greens", vmin=0, vmax=1.4)
        for (i, j), ok in np.ndenumerate(allowed):
            ax.text(j, i, "✓" if ok else "·", ha="center", va="center", fontsize=9)
        ax.set_xticks(range(len(cols)), cols, rotation=45, fontsize=8)
        ax.set_yticks(range(len(rows)), rows, fontsize=8)
        ax.set_xlabel("key (read from)")
        ax.set_ylabel("query (reads)")
        ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig
