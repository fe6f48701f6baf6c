"""Notebook 04 helpers: the decks' mask toggle, the Message A / Message B batch, mask figures.

Nothing here builds a mask for the learner: the notebook passes in the masks that the
learner's own functions return, and the demonstrations take the learner's attention
function as an argument, so the project's tests can run the same demonstrations with the
autograder's reference.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap

from attnbook.ops import torch_softmax
from attnbook.widgets import LABELS, bars_html

#: The decks' running sentence, one token per word plus the full stop.
ROBOT_SENTENCE = "The robot picked up the cup because it was empty."
ROBOT_TOKENS = ["The", "robot", "picked", "up", "the", "cup", "because", "it", "was", "empty", "."]

#: The decks' two messages sharing a batch; Message B is right-padded to Message A's length.
PAD = "<PAD>"
MESSAGE_A = ["please", "send", "the", "report"]
MESSAGE_B = ["send", "report", PAD, PAD]

# Hand-set content matches of the toy scores: (query word index, key word index, boost).
_ROBOT_LINKS = [
    (1, 2, 1.5),  # robot -> picked (a future word: only visible without the mask)
    (2, 1, 2.0),  # picked -> robot: who picked
    (3, 2, 2.0),  # up -> picked: the phrase "picked up"
    (4, 5, 1.0),  # the -> cup (future)
    (5, 2, 1.5),  # cup -> picked: what was picked
    (6, 2, 1.0),  # because -> picked
    (7, 5, 3.0),  # it -> cup: the referent the decks highlight
    (7, 1, 1.5),  # it -> robot: the other candidate referent
    (7, 9, 2.5),  # it -> empty (future): the clue a decoder may not read yet
    (8, 7, 1.5),  # was -> it
    (9, 5, 2.0),  # empty -> cup: what was empty
    (9, 7, 1.5),  # empty -> it
    (10, 9, 1.0),  # . -> empty
]


def robot_scores() -> np.ndarray:
    """Toy attention scores (11, 11) for ROBOT_TOKENS; rows are queries, columns keys.

    A mild preference for nearby words plus hand-set content matches, chosen so that the
    query "it" puts its largest allowed weight on "cup", as in the decks.
    """
    L = len(ROBOT_TOKENS)
    index = np.arange(L)
    S = -0.3 * np.abs(index[:, None] - index[None, :])  # (L, L) locality
    for query, key, boost in _ROBOT_LINKS:
        S[query, key] += boost
    return S


# ---------------------------------------------------------------------------------------
# The mask toggle widget
# ---------------------------------------------------------------------------------------
def heatmap_row_html(
    labels: Sequence[str],
    weights: Sequence[float] | np.ndarray,
    allowed: Sequence[bool] | np.ndarray,
    title: str = "",
) -> str:
    """One query's weights as a row of coloured cells; blocked keys are grey with a dash.

    Each cell carries data-key, data-weight and data-allowed attributes, so tests and
    browsers can read exactly what the learner sees.
    """
    cells = []
    for label, weight, ok in zip(labels, weights, allowed):
        if ok:
            alpha = max(0.0, min(1.0, float(weight)))
            color = "white" if alpha > 0.55 else "black"
            style = f"background:rgba(59,111,182,{alpha:.3f});color:{color}"
            shown = f"{float(weight):.2f}"
        else:
            style = "background:#d9d9d9;color:#777"
            shown = "&ndash;"
        cells.append(
            f'<td class="attnbook-cell" data-key="{html.escape(str(label))}" '
            f'data-weight="{float(weight):.6f}" data-allowed="{str(bool(ok)).lower()}" '
            f'style="{style};padding:4px 6px;text-align:center;border:1px solid #fff">'
            f"{html.escape(str(label))}<br>{shown}</td>"
        )
    head = f"<b>{html.escape(title)}</b>" if title else ""
    return (
        f'<div class="attnbook-heatrow">{head}<table style="border-collapse:collapse">'
        f"<tr>{''.join(cells)}</tr></table></div>"
    )


class MaskToggleWidget(widgets.VBox):
    """The decks' live slide: switch the causal mask, pick a query word, watch its weights.

    With the mask on, the keys after the query are blocked (score -inf before the softmax)
    and the weights renormalise over the positions up to and including the query.
    """

    def __init__(
        self,
        tokens: Sequence[str] = tuple(ROBOT_TOKENS),
        scores=None,
        query: int = 7,
        causal: bool = True,
    ):
        self.tokens = list(tokens)
        L = len(self.tokens)
        self.S = robot_scores() if scores is None else np.asarray(scores, dtype=np.float64)
        if self.S.shape != (L, L):
            raise ValueError(
                f"scores must have shape ({L}, {L}) for {L} tokens; got {self.S.shape}"
            )
        self.mask_toggle = widgets.ToggleButton(
            value=causal, description="causal mask", style=LABELS, icon="eye-slash"
        )
        self.query = widgets.Dropdown(
            options=[(f"{i} · {tok}", i) for i, tok in enumerate(self.tokens)],
            value=query,
            description="query word",
            style=LABELS,
        )
        self.display = widgets.HTML()
        for control in (self.mask_toggle, self.query):
            control.observe(self._redraw, names="value")
        super().__init__([widgets.HBox([self.query, self.mask_toggle]), self.display])
        self._redraw()

    def allowed(self) -> np.ndarray:
        """The keys the current query may read: (L,) booleans."""
        keys = np.arange(len(self.tokens))
        if self.mask_toggle.value:
            return keys <= self.query.value  # the keys up to and including the query
        return np.ones(len(self.tokens), dtype=bool)

    def weights(self) -> np.ndarray:
        """The current query's weights: softmax of its scores with blocked keys at -inf."""
        row = np.where(self.allowed(), self.S[self.query.value], -np.inf)  # (L,)
        return torch_softmax(row)

    def _redraw(self, _change=None) -> None:
        allowed, weights = self.allowed(), self.weights()
        word = self.tokens[self.query.value]
        state = "on: future keys blocked" if self.mask_toggle.value else "off: both directions"
        title = (
            f"query '{word}' (position {self.query.value}), causal mask {state}; "
            f"weights sum to {weights.sum():.3f} over {int(allowed.sum())} allowed keys"
        )
        self.display.value = heatmap_row_html(self.tokens, weights, allowed, title) + bars_html(
            self.tokens, weights, muted=list(~allowed)
        )


def mask_toggle_widget(
    tokens: Sequence[str] = tuple(ROBOT_TOKENS), scores=None, query: int = 7, causal: bool = True
) -> MaskToggleWidget:
    """The decks' mask toggle on "The robot picked up the cup because it was empty."."""
    return MaskToggleWidget(tokens, scores, query, causal)


# ---------------------------------------------------------------------------------------
# Message A / Message B
# ---------------------------------------------------------------------------------------
def message_batch(d: int = 4, seed: int = 0) -> dict:
    """The decks' padded batch as vectors: X (2, 4, d), lengths [4, 2], and projections.

    Every word gets a fixed random embedding; <PAD> gets one too (padding holds *some*
    vector, and the masks must make it irrelevant). W_Q, W_K, W_V are (d, d).
    """
    rng = np.random.default_rng(seed)
    vocabulary = sorted(set(MESSAGE_A) | set(MESSAGE_B))
    table = {word: rng.standard_normal(d) for word in vocabulary}
    X = np.stack([[table[w] for w in MESSAGE_A], [table[w] for w in MESSAGE_B]])  # (2, 4, d)
    W_Q, W_K, W_V = (rng.standard_normal((d, d)) / np.sqrt(d) for _ in range(3))
    return {
        "tokens": [list(MESSAGE_A), list(MESSAGE_B)],
        "X": X,
        "lengths": np.array([4, 2]),
        "W_Q": W_Q,
        "W_K": W_K,
        "W_V": W_V,
    }


def padding_experiment(
    attend: Callable, batch_allowed, alone_allowed, batch: dict, message: int = 1
) -> dict:
    """Outputs of one message's real tokens inside the padded batch and on their own.

    `attend(Q, K, V, allowed) -> (Y, A)`; `batch_allowed` is (B, L, L) for the batch and
    `alone_allowed` is (n, n) for the message without its padding (n = its length). Also
    reruns the batch with garbage in the padded slots, which must change no real output.
    """
    X, n = batch["X"], int(batch["lengths"][message])
    W_Q, W_K, W_V = batch["W_Q"], batch["W_K"], batch["W_V"]
    Q, K, V = X @ W_Q.T, X @ W_K.T, X @ W_V.T  # (B, L, d) each
    Y, A = (np.asarray(a) for a in attend(Q, K, V, batch_allowed))  # (B, L, d), (B, L, L)
    X_alone = X[message, :n]  # (n, d)
    Y_alone, _ = attend(X_alone @ W_Q.T, X_alone @ W_K.T, X_alone @ W_V.T, alone_allowed)
    X_garbage = X.copy()
    X_garbage[message, n:] = 1e3 * np.random.default_rng(7).standard_normal(X[message, n:].shape)
    Qg, Kg, Vg = X_garbage @ W_Q.T, X_garbage @ W_K.T, X_garbage @ W_V.T
    Y_garbage, _ = attend(Qg, Kg, Vg, batch_allowed)
    real_rows = Y[message, :n]  # (n, d)
    return {
        "A": A[message],
        "Y_batch": real_rows,
        "Y_alone": np.asarray(Y_alone),
        "pad_weight": float(np.abs(A[message, :n, n:]).max()) if n < X.shape[1] else 0.0,
        "max_difference": float(np.abs(real_rows - np.asarray(Y_alone)).max()),
        "garbage_difference": float(np.abs(np.asarray(Y_garbage)[message, :n] - real_rows).max()),
    }


# ---------------------------------------------------------------------------------------
# No peeking
# ---------------------------------------------------------------------------------------
def peeking_experiment(
    attend: Callable, allowed, L: int = 6, d: int = 4, changed: int = 4, seed: int = 0
) -> dict:
    """Change token `changed` of a random sequence; how much does each output row move?

    `attend(Q, K, V, allowed) -> (Y, A)`. Returns the largest absolute change of each output
    row and, per row, whether it is bit-for-bit unchanged.
    """
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((L, d))  # (L, d)
    W_Q, W_K, W_V = (rng.standard_normal((d, d)) for _ in range(3))
    X_changed = X.copy()
    X_changed[changed] = rng.standard_normal(d) * 5.0
    Y_before, _ = attend(X @ W_Q.T, X @ W_K.T, X @ W_V.T, allowed)
    Y_after, _ = attend(X_changed @ W_Q.T, X_changed @ W_K.T, X_changed @ W_V.T, allowed)
    Y_before, Y_after = np.asarray(Y_before), np.asarray(Y_after)
    return {
        "changed": changed,
        "change": np.abs(Y_after - Y_before).max(axis=-1),
        "identical": np.all(Y_after == Y_before, axis=-1),
    }


def plot_peeking(with_mask: dict, without_mask: dict, title: str = ""):
    """Bars: how much each output row moved when one later token changed, masked or not."""
    change_masked, change_open = with_mask["change"], without_mask["change"]
    L = len(change_masked)
    fig, ax = plt.subplots(figsize=(7, 3.4))
    positions = np.arange(L)
    ax.bar(positions - 0.2, change_open, width=0.4, color="#c8553d", label="no mask")
    ax.bar(positions + 0.2, change_masked, width=0.4, color="#3b6fb6", label="causal mask")
    ax.axvline(with_mask["changed"] - 0.5, color="k", ls=":", label="changed token")
    ax.set_xticks(positions)
    ax.set_xlabel("query position i (output row)")
    ax.set_ylabel("largest |change| of output row")
    ax.set_title(title or f"Changing token {with_mask['changed']}: which outputs move?")
    ax.legend()
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------------------
_ALLOWED_CMAP = ListedColormap(["#d9d9d9", "#3b6fb6"])


def _draw_allowed(ax, allowed, tokens, title, xlabel="key position j", ylabel="query position i"):
    allowed = np.asarray(allowed, dtype=bool)
    if allowed.ndim != 2:
        raise ValueError(f"allowed must be 2-D to draw; got shape {allowed.shape}")
    ax.imshow(allowed.astype(float), cmap=_ALLOWED_CMAP, vmin=0, vmax=1)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    rows = range(allowed.shape[0])
    cols = range(allowed.shape[1])
    ax.set_xticks(
        cols,
        tokens if tokens is not None and len(tokens) == len(cols) else cols,
        rotation=60 if tokens is not None else 0,
    )
    ax.set_yticks(rows, tokens if tokens is not None and len(tokens) == len(rows) else rows)
    if allowed.size <= 200:
        for (i, j), ok in np.ndenumerate(allowed):
            ax.text(j, i, "✓" if ok else "", ha="center", va="center", color="white", fontsize=8)


def plot_allowed(
    allowed,
    title: str,
    tokens: Sequence[str] | None = None,
    xlabel: str = "key position j",
    ylabel: str = "query position i",
):
    """A boolean mask as a grid: blue = may attend (True), grey = blocked (False)."""
    n = np.shape(allowed)[-1]
    fig, ax = plt.subplots(figsize=(1.5 + 0.45 * n, 1.2 + 0.4 * np.shape(allowed)[0]))
    _draw_allowed(ax, allowed, tokens, title, xlabel, ylabel)
    fig.tight_layout()
    return fig


def message_names(B: int) -> list[str]:
    """The decks' names of the messages of a batch: Message A, Message B, ..."""
    return [f"Message {chr(ord('A') + b)}" for b in range(B)]


def plot_mask_batch(
    allowed, tokens: Sequence[Sequence[str]], title: str, names: Sequence[str] | None = None
):
    """One panel per message of a (B, L, L) batch of masks, labelled with its tokens.

    Panels are titled with `names`, by default the decks' Message A, Message B, ...
    """
    allowed = np.asarray(allowed, dtype=bool)
    if allowed.ndim != 3:
        raise ValueError(f"allowed must have shape (B, L, L); got {allowed.shape}")
    B, L, _ = allowed.shape
    names = list(names) if names is not None else message_names(B)
    fig, axes = plt.subplots(1, B, figsize=(1.0 + 3.4 * B, 3.6), squeeze=False)
    for b, ax in enumerate(axes[0]):
        _draw_allowed(ax, allowed[b], tokens[b], names[b])
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_encoder_decoder(encoder_allowed, decoder_allowed, tokens: Sequence[str]):
    """The decks' two common masks side by side: bidirectional encoder, causal decoder."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.4))
    _draw_allowed(left, encoder_allowed, tokens, "Bidirectional encoder (BERT-style)")
    _draw_allowed(right, decoder_allowed, tokens, "Causal decoder (GPT-style): j <= i")
    fig.tight_layout()
    return fig


def plot_mask_order(S, allowed, tokens: Sequence[str] | None = None):
    """Mask before the softmax (right) versus zeroing weights after it (wrong), row sums shown.

    S: (L, L) scores; allowed: (L, L) booleans.
    """
    S = np.asarray(S, dtype=np.float64)
    allowed = np.asarray(allowed, dtype=bool)
    before = torch_softmax(np.where(allowed, S, -np.inf))  # (L, L), the right order
    after = torch_softmax(S) * allowed  # (L, L), the wrong order
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.4))
    for ax, A, name in (
        (axes[0], before, "mask, then softmax (right)"),
        (axes[1], after, "softmax, then zero the blocked weights (wrong)"),
    ):
        ax.imshow(A, cmap="viridis", vmin=0, vmax=1)
        labels = tokens if tokens is not None else range(A.shape[0])
        ax.set_xticks(range(A.shape[1]), labels, rotation=60 if tokens is not None else 0)
        ax.set_yticks(
            range(A.shape[0]), [f"{lab} (sum {s:.2f})" for lab, s in zip(labels, A.sum(axis=-1))]
        )
        ax.set_xlabel("key position j")
        ax.set_ylabel("query position i (row sum)")
        ax.set_title(name)
    fig.tight_layout()
    return fig


def plot_loss_mask(
    losses, loss_mask, targets: Sequence[Sequence[str]], names: Sequence[str] | None = None
):
    """Per-target losses of a padded batch; padded targets (loss mask False) drawn grey.

    losses: (B, T) per-target losses; loss_mask: (B, T) booleans; targets: the target words;
    names: one label per row, by default the decks' Message A, Message B, ...
    The title gives the mean over real targets, the one a training loop should use.
    """
    losses = np.asarray(losses, dtype=np.float64)
    loss_mask = np.asarray(loss_mask, dtype=bool)
    if losses.shape != loss_mask.shape or losses.ndim != 2:
        raise ValueError(
            f"losses and loss_mask must share a (B, T) shape; got {losses.shape} "
            f"and {loss_mask.shape}"
        )
    B, T = losses.shape
    fig, ax = plt.subplots(figsize=(1.8 + 1.4 * T, 1.4 + 0.7 * B))
    shown = np.ma.masked_array(losses, mask=~loss_mask)
    cmap = plt.get_cmap("magma_r").with_extremes(bad="#d9d9d9")
    image = ax.imshow(shown, cmap=cmap, vmin=0.0, vmax=float(losses.max()) or 1.0, aspect="auto")
    for (b, t), value in np.ndenumerate(losses):
        word = targets[b][t] if t < len(targets[b]) else ""
        text = f"{word}\n{value:.2f}" if loss_mask[b, t] else f"{word}\n(ignored)"
        dark = loss_mask[b, t] and value > 0.6 * losses.max()
        ax.text(
            t, b, text, ha="center", va="center", fontsize=8, color="white" if dark else "black"
        )
    masked_mean = losses[loss_mask].mean() if loss_mask.any() else 0.0
    ax.set_title(
        f"Loss per target: mean over real targets {masked_mean:.3f}, "
        f"over every slot {losses.mean():.3f}"
    )
    ax.set_xlabel("target position t (predicts token t + 1)")
    ax.set_ylabel("message")
    ax.set_xticks(range(T))
    ax.set_yticks(range(B), list(names) if names is not None else message_names(B))
    fig.colorbar(image, ax=ax, label="cross-entropy (nats)")
    fig.tight_layout()
    return fig
