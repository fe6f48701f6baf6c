"""Notebook 02, positions: demo data (the decks' order sentences) and figures of the
learner's position table P.

Every figure takes the array the learner's own function returned, so the pictures show
their work.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np

__all__ = [
    "DEMO_SENTENCES",
    "OrderDemo",
    "offset_similarity",
    "order_demo",
    "plot_offset_similarity",
    "plot_position_heatmap",
    "plot_sinusoid_curves",
]

#: The decks' order examples, as lists of words.
DEMO_SENTENCES = {
    "report_first": "send the report before the slides .".split(),
    "slides_first": "send the slides before the report .".split(),
    "dog_bites_man": "dog bites man because".split(),
    "man_bites_dog": "man bites dog because".split(),
}


# ---------------------------------------------------------------------------------------
# demo data: a small seeded embedding table and projections
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class OrderDemo:
    """A tiny vocabulary with a seeded embedding table E (V, d) and projections (d, d)."""

    vocab: tuple[str, ...]
    E: np.ndarray  # (V, d)
    W_Q: np.ndarray  # (d, d)
    W_K: np.ndarray  # (d, d)
    W_V: np.ndarray  # (d, d)

    def ids(self, words: Sequence[str]) -> np.ndarray:
        """Token ids of `words`, e.g. ids(["dog", "bites", "man"]); unknown words raise."""
        index = {word: i for i, word in enumerate(self.vocab)}
        missing = [w for w in words if w not in index]
        if missing:
            raise KeyError(f"words not in the demo vocabulary {list(self.vocab)}: {missing}")
        return np.array([index[w] for w in words], dtype=np.int64)


def order_demo(d: int = 8, seed: int = 0) -> OrderDemo:
    """The seeded toy setting of notebook 02: every word of DEMO_SENTENCES gets a row of E.

    Projections are scaled by 1/sqrt(d) so that scores stay of order one.
    """
    if d <= 0:
        raise ValueError(f"d must be positive; got {d}")
    vocab = tuple(dict.fromkeys(w for words in DEMO_SENTENCES.values() for w in words))
    rng = np.random.default_rng(seed)
    E = rng.standard_normal((len(vocab), d))  # (V, d)
    W_Q, W_K, W_V = (rng.standard_normal((d, d)) / np.sqrt(d) for _ in range(3))
    return OrderDemo(vocab, E, W_Q, W_K, W_V)


# ---------------------------------------------------------------------------------------
# notebook 02 figures
# ---------------------------------------------------------------------------------------
def plot_sinusoid_curves(P, slices: Sequence[int] = (0, 2, 5)):
    """Each column of P drawn against position, with the rows at `slices` printed beside.

    P: (L, d) position table, row l = p_l. Vertical lines mark the sliced positions.
    """
    P = np.asarray(P, dtype=float)
    if P.ndim != 2:
        raise ValueError(f"P must be (L, d); got shape {P.shape}")
    L, d = P.shape
    bad = [s for s in slices if not 0 <= s < L]
    if bad:
        raise ValueError(f"slices {bad} fall outside the {L} positions of P")
    fig, (ax, text_ax) = plt.subplots(
        1, 2, figsize=(10, 3.8), gridspec_kw={"width_ratios": [2.2, 1]}
    )
    positions = np.arange(L)
    for j in range(d):
        kind = "sin" if j % 2 == 0 else "cos"
        ax.plot(positions, P[:, j], "o-", ms=3, label=f"feature {j} ({kind}, pair {j // 2})")
    for s in slices:
        ax.axvline(s, color="k", ls=":", lw=1)
    ax.set_xlabel("position l")
    ax.set_ylabel("p[l, j]")
    ax.set_title(f"Sinusoidal position features, d = {d}")
    ax.legend(fontsize=7, loc="lower left")
    text_ax.axis("off")
    lines = [f"p_{s} = [" + ", ".join(f"{v:+.3f}" for v in P[s]) + "]" for s in slices]
    text_ax.text(-0.05, 0.5, "\n\n".join(lines), family="monospace", fontsize=7.5, va="center")
    text_ax.set_title("position vectors at the slices")
    fig.tight_layout()
    return fig


def plot_position_heatmap(P):
    """P as an image: one row per position, one column per feature."""
    P = np.asarray(P, dtype=float)
    if P.ndim != 2:
        raise ValueError(f"P must be (L, d); got shape {P.shape}")
    fig, ax = plt.subplots(figsize=(6.0, 4.5))
    image = ax.imshow(P, cmap="RdBu_r", vmin=-1, vmax=1, aspect="auto", interpolation="nearest")
    ax.set_xlabel("feature j (pairs: sin at 2i, cos at 2i+1)")
    ax.set_ylabel("position l")
    ax.set_title(f"Position table P, L = {P.shape[0]}, d = {P.shape[1]}")
    fig.colorbar(image, ax=ax, label="p[l, j]")
    fig.tight_layout()
    return fig


def offset_similarity(P, starts: Sequence[int], max_offset: int) -> np.ndarray:
    """Dot products p_l . p_(l+k) for each start l and k = 0..max_offset: (len(starts), K+1)."""
    P = np.asarray(P, dtype=float)
    if max(starts) + max_offset >= P.shape[0]:
        raise ValueError(
            f"P has {P.shape[0]} rows; start {max(starts)} + offset {max_offset} does not fit"
        )
    return np.stack([P[l : l + max_offset + 1] @ P[l] for l in starts])  # (S, K+1)


def plot_offset_similarity(P, starts: Sequence[int] = (0, 10, 30), max_offset: int = 40):
    """p_l . p_(l+k) against the offset k, one curve per start l (they coincide)."""
    sims = offset_similarity(P, starts, max_offset)
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    offsets = np.arange(max_offset + 1)
    for l, sim, style in zip(starts, sims, ["-", "--", ":", "-."] * len(starts)):
        ax.plot(offsets, sim, style, lw=2, label=f"start l = {l}")
    ax.set_xlabel("offset k")
    ax.set_ylabel("p_l . p_(l+k)")
    ax.set_title("Similarity of two position vectors depends only on their offset")
    ax.legend()
    fig.tight_layout()
    return fig
