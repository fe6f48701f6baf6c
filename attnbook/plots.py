"""Figures the notebooks draw. Every function labels its axes and titles its figure.

Functions return the matplotlib Figure so tests can inspect what was drawn.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np


def plot_heatmap(
    M,
    title: str,
    row_labels: Sequence[str] | None = None,
    col_labels: Sequence[str] | None = None,
    xlabel: str = "key position",
    ylabel: str = "query position",
    annotate: bool = True,
    cmap: str = "viridis",
    ax=None,
    vmin=None,
    vmax=None,
):
    """A labelled heatmap of a 2-D array, e.g. attention weights (rows: queries)."""
    M = np.asarray(M, dtype=float)
    if M.ndim != 2:
        raise ValueError(f"M must be 2-D to draw a heatmap; got shape {M.shape}")
    # at least about 550 x 300 px: a 4 x 4 matrix's numbers stay readable at a notebook's width
    size = (max(5.5, 1.4 + 0.7 * M.shape[1]), max(3.0, 0.9 + 0.5 * M.shape[0]))
    fig, ax = (ax.figure, ax) if ax is not None else plt.subplots(figsize=size)
    image = ax.imshow(M, cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_xticks(range(M.shape[1]), col_labels if col_labels is not None else range(M.shape[1]))
    ax.set_yticks(range(M.shape[0]), row_labels if row_labels is not None else range(M.shape[0]))
    if annotate and M.size <= 100:
        for (i, j), value in np.ndenumerate(M):
            ax.text(
                j,
                i,
                f"{value:.2f}",
                ha="center",
                va="center",
                fontsize=9,
                color=text_colour(image.cmap(image.norm(value))),
            )
    fig.colorbar(image, ax=ax)
    fig.tight_layout()
    return fig


def text_colour(rgba) -> str:
    """Black on a light cell, white on a dark one, by the cell colour's luminance."""
    red, green, blue = rgba[:3]
    return "black" if 0.299 * red + 0.587 * green + 0.114 * blue > 0.5 else "white"


def score_variance_experiment(
    d_ks: Sequence[int] = (2, 4, 8, 16, 32, 64, 128, 256),
    n_pairs: int = 4000,
    L: int = 8,
    seed: int = 0,
) -> dict:
    """Variance of q.k for random unit-variance q, k, with and without 1/sqrt(d_k).

    Also records how peaked a softmax over L such scores is (mean of the largest weight),
    which shows why unscaled scores saturate the softmax as d_k grows.
    """
    rng = np.random.default_rng(seed)
    raw_var: list[float] = []
    scaled_var: list[float] = []
    raw_peak: list[float] = []
    scaled_peak: list[float] = []
    for d_k in d_ks:
        q = rng.standard_normal((n_pairs, 1, d_k))  # one query per trial
        k = rng.standard_normal((n_pairs, L, d_k))  # L keys per trial
        dots = np.einsum("nqd,nkd->nk", q, k)  # (n_pairs, L) raw q.k
        raw_var.append(dots.var())
        scaled_var.append((dots / np.sqrt(d_k)).var())
        for scores, store in ((dots, raw_peak), (dots / np.sqrt(d_k), scaled_peak)):
            e = np.exp(scores - scores.max(axis=1, keepdims=True))
            store.append((e.max(axis=1) / e.sum(axis=1)).mean())
    return {
        "d_k": np.asarray(d_ks),
        "raw_var": np.asarray(raw_var),
        "scaled_var": np.asarray(scaled_var),
        "raw_peak": np.asarray(raw_peak),
        "scaled_peak": np.asarray(scaled_peak),
        "L": L,
    }


def plot_score_variance(result: dict):
    """Two panels: variance of q.k against d_k, and the largest softmax weight against d_k."""
    d_k = result["d_k"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    left.loglog(d_k, result["raw_var"], "o-", label="q.k (unscaled)")
    left.loglog(d_k, result["scaled_var"], "s-", label="q.k / sqrt(d_k)")
    left.loglog(d_k, d_k, "k:", label="y = d_k")
    left.set_xlabel("d_k (query/key width)")
    left.set_ylabel("variance of the score")
    left.set_title("Scores spread like sqrt(d_k) unless scaled")
    left.legend()
    right.semilogx(d_k, result["raw_peak"], "o-", label="unscaled")
    right.semilogx(d_k, result["scaled_peak"], "s-", label="scaled by 1/sqrt(d_k)")
    right.axhline(1.0 / result["L"], color="k", ls=":", label=f"uniform (1/{result['L']})")
    right.set_xlabel("d_k (query/key width)")
    right.set_ylabel("mean largest softmax weight")
    right.set_title(f"Softmax over {result['L']} keys saturates without scaling")
    right.set_ylim(0, 1.05)
    right.legend()
    fig.tight_layout()
    return fig


def score_entry_markdown(Q, K, i: int, j: int, d_k: int | None = None) -> str:
    """LaTeX for one score entry written out as its sum of products (0-based i, j)."""
    Q, K = np.asarray(Q), np.asarray(K)
    d_k = d_k or Q.shape[-1]
    terms = " + ".join(f"({Q[i, t]:g})({K[j, t]:g})" for t in range(Q.shape[-1]))
    dot = float(Q[i] @ K[j])
    return (
        f"$$s_{{{i + 1}{j + 1}}} = \\frac{{\\mathbf q_{i + 1}^\\top \\mathbf k_{j + 1}}}"
        f"{{\\sqrt{{{d_k}}}}} = \\frac{{{terms}}}{{\\sqrt{{{d_k}}}}} = "
        f"\\frac{{{dot:g}}}{{\\sqrt{{{d_k}}}}} \\approx {dot / np.sqrt(d_k):.4f}$$"
    )


def show_figure(fig, dpi: int = 100) -> None:
    """Show a figure in the notebook as a PNG image, whatever the matplotlib backend.

    Helpers that build a `Figure` without pyplot (so they never change a notebook's backend)
    have no inline display of their own in a kernel; a PNG shows in every frontend.
    """
    from IPython.display import Image, display

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    display(Image(data=buffer.getvalue(), format="png"))
