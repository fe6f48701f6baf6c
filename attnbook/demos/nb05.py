"""Notebook 05 helpers: hand-built attention heads and the cost of attention as L grows.

The learner's own functions are passed in (the attention to time, the one that draws the
heads' patterns), so the project's tests can run the same experiments with the reference.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

#: The decks' sentence, and the content features each word carries in the hand-built heads.
HEAD_TOKENS = ["The", "robot", "picked", "up", "the", "cup", "because", "it", "was", "empty"]
CONTENT_FEATURES = ["determiner", "entity", "action", "object", "pronoun"]
_WORD_FEATURES = {
    "The": "determiner",
    "the": "determiner",
    "robot": "entity",
    "picked": "action",
    "up": "action",
    "cup": "object",
    "because": "determiner",
    "it": "pronoun",
    "was": "action",
    "empty": "object",
}


def hand_built_heads(strength: float = 20.0) -> dict:
    """Token vectors and three heads whose weights are set by hand, not learned.

    Each token vector is [one-hot position (L) | one-hot content feature (5)], so d = L + 5.
    - "previous token": W_Q maps position i to position i - 1 and W_K reads positions, so
      q_i . k_j is large exactly when j = i - 1.
    - "content match": W_Q sends the pronoun feature to the object feature and W_K reads the
      object feature, so "it" matches the objects before it ("cup").
    - "broad": zero queries give equal scores, so the weights spread over the prefix.
    Every head has d_k = d. Returns X (L, d) and, per head, W_Q and W_K of shape (d_k, d).
    """
    L, n_feat = len(HEAD_TOKENS), len(CONTENT_FEATURES)
    d = L + n_feat
    X = np.zeros((L, d))
    for i, word in enumerate(HEAD_TOKENS):
        X[i, i] = 1.0  # position i
        X[i, L + CONTENT_FEATURES.index(_WORD_FEATURES[word])] = 1.0  # content feature
    previous_Q = np.zeros((d, d))
    previous_Q[np.arange(L - 1), np.arange(1, L)] = strength  # q_i = strength * e_{i-1}
    previous_K = np.zeros((d, d))
    previous_K[np.arange(L), np.arange(L)] = 1.0  # k_j = e_j
    pronoun, obj = (L + CONTENT_FEATURES.index(f) for f in ("pronoun", "object"))
    content_Q = np.zeros((d, d))
    content_Q[obj, pronoun] = strength  # a pronoun asks for an object
    content_K = np.zeros((d, d))
    content_K[obj, obj] = 1.0  # an object advertises itself
    return {
        "tokens": list(HEAD_TOKENS),
        "X": X,
        "heads": {
            "previous token": (previous_Q, previous_K),
            "content match (it -> cup)": (content_Q, content_K),
            "broad (spread over the prefix)": (np.zeros((d, d)), np.zeros((d, d))),
        },
    }


def plot_heads(patterns: dict, tokens: Sequence[str]):
    """One heatmap per head: its attention weights, rows = queries, columns = keys."""
    fig, axes = plt.subplots(1, len(patterns), figsize=(4.6 * len(patterns), 4.4), squeeze=False)
    for ax, (name, A) in zip(axes[0], patterns.items()):
        A = np.asarray(A.detach() if hasattr(A, "detach") else A, dtype=float)
        ax.imshow(A, cmap="viridis", vmin=0.0, vmax=1.0)
        ax.set_title(f"head: {name}", fontsize=10)
        ax.set_xlabel("key token j")
        ax.set_ylabel("query token i")
        ax.set_xticks(range(len(tokens)), tokens, rotation=60)
        ax.set_yticks(range(len(tokens)), tokens)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------
# Cost of attention as L grows
# ---------------------------------------------------------------------------------------
class _CreatedTensors(TorchDispatchMode):
    """Counts the bytes of every new tensor storage the ops inside the block create.

    The new tensors are kept alive until the block ends, so the allocator cannot hand a
    freed address to a later tensor and hide it from the count.
    """

    def __init__(self, inputs: Sequence[torch.Tensor]):
        super().__init__()
        self.seen = {t.untyped_storage().data_ptr() for t in inputs}
        self.kept: list[torch.Tensor] = []
        self.total = 0
        self.largest = 0

    def __exit__(self, *exc):
        self.kept.clear()
        return super().__exit__(*exc)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for tensor in out if isinstance(out, tuple | list) else (out,):
            if isinstance(tensor, torch.Tensor):
                storage = tensor.untyped_storage()
                if storage.data_ptr() not in self.seen:
                    self.seen.add(storage.data_ptr())
                    self.kept.append(tensor)
                    self.total += storage.nbytes()
                    self.largest = max(self.largest, storage.nbytes())
        return out


def fused_attention(q, k, v, allowed=None):
    """PyTorch's fused kernel, the comparison for the learner's attention."""
    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)


def created_bytes(attend: Callable, q, k, v) -> tuple[int, int]:
    """(total, largest) bytes of the tensors `attend(q, k, v, None)` creates."""
    with torch.no_grad(), _CreatedTensors((q, k, v)) as record:
        attend(q, k, v, None)
    return record.total, record.largest


def _best_time(attend: Callable, q, k, v, repeats: int) -> float:
    best = float("inf")
    with torch.no_grad():
        attend(q, k, v, None)  # warm-up: first calls pay for allocation and dispatch
        for _ in range(repeats):
            start = time.perf_counter()
            attend(q, k, v, None)
            best = min(best, time.perf_counter() - start)
    return best


def attention_cost(
    naive: Callable,
    lengths: Sequence[int] = (64, 128, 256, 512, 1024),
    n_heads: int = 4,
    d_k: int = 16,
    repeats: int = 3,
    seed: int = 0,
) -> dict:
    """Time and memory of `naive(q, k, v, None)` against the fused kernel, for each L.

    One sequence (B = 1), `n_heads` heads of width `d_k`, float32, on one CPU thread (so a
    busy machine disturbs the timings less). Time is the best of `repeats` runs after a
    warm-up; memory is the bytes of the tensors each call creates (the naive path
    materialises the (L, L) scores and weights of every head, the fused one does not).
    """
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # one thread: no waiting on a busy sibling core in the timings
    try:
        return _attention_cost(naive, lengths, n_heads, d_k, repeats, seed)
    finally:
        torch.set_num_threads(threads)


def _attention_cost(
    naive: Callable, lengths: Sequence[int], n_heads: int, d_k: int, repeats: int, seed: int
) -> dict:
    generator = torch.Generator().manual_seed(seed)
    rows: dict[str, list[float]] = {
        "L": [],
        "naive_s": [],
        "fused_s": [],
        "naive_bytes": [],
        "fused_bytes": [],
        "naive_largest": [],
        "scores_bytes": [],
    }
    for L in lengths:
        q, k, v = (torch.randn(1, n_heads, L, d_k, generator=generator) for _ in range(3))
        naive_total, naive_largest = created_bytes(naive, q, k, v)
        fused_total, _ = created_bytes(fused_attention, q, k, v)
        rows["L"].append(L)
        rows["naive_s"].append(_best_time(naive, q, k, v, repeats))
        rows["fused_s"].append(_best_time(fused_attention, q, k, v, repeats))
        rows["naive_bytes"].append(naive_total)
        rows["fused_bytes"].append(fused_total)
        rows["naive_largest"].append(naive_largest)
        rows["scores_bytes"].append(n_heads * L * L * 4)  # one float32 score per head and pair
    return {key: np.asarray(value) for key, value in rows.items()} | {
        "n_heads": n_heads,
        "d_k": d_k,
    }


def plot_attention_cost(cost: dict):
    """Two log-log panels: time against L, and bytes created against L, with an L^2 guide."""
    L = cost["L"].astype(float)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    left.loglog(L, cost["naive_s"] * 1e3, "o-", label="your attention (naive)")
    left.loglog(L, cost["fused_s"] * 1e3, "s-", label="fused F.scaled_dot_product_attention")
    guide = cost["naive_s"][-1] * 1e3 * (L / L[-1]) ** 2
    left.loglog(L, guide, "k:", label="slope of L^2")
    left.set_xlabel("sequence length L")
    left.set_ylabel("time per call (ms, best of runs)")
    left.set_title("Time: both compute all L^2 scores")
    left.legend(fontsize=8)
    right.loglog(L, cost["naive_bytes"] / 2**20, "o-", label="your attention (naive)")
    right.loglog(L, cost["fused_bytes"] / 2**20, "s-", label="fused kernel")
    right.loglog(L, cost["scores_bytes"] / 2**20, "k:", label="one (h, L, L) score tensor")
    right.set_xlabel("sequence length L")
    right.set_ylabel("memory of tensors created (MiB)")
    right.set_title(f"Memory: naive stores (L, L) scores per head (h = {cost['n_heads']})")
    right.legend(fontsize=8)
    fig.tight_layout()
    return fig
