"""Figures, a widget and experiments of notebook 11, the encoder-decoder.

- `source_attention`: the cross-attention weights of every decoder block and head, each
  reply token over the source tokens, read from any model whose decoder blocks hold a
  ``cross_attn`` layer of `attnbook.lm.seq2seq` (the notebook's EncoderDecoder or
  `Seq2SeqTransformer`); `plot_source_attention` draws one map, `SourceAttentionExplorer`
  lets the learner pick the email, the block and the head.
- `plot_cross_mask`: which source positions each reply position may read, for a batch of
  padded sources (the decks' Message A / Message B).
- `influence`: how far the logits at each reply position move when one source token or one
  reply token changes; `plot_influence` draws both grids.
- `decode_table`, `plot_decoding`: greedy and beam decoding scored with the task's exact
  reply probabilities.
- `ablated_cross_head`, `greeting_under_ablation`: remove one cross-attention head (zeroed,
  uniform over the real source tokens, or replaced by its mean output over a batch) and
  measure whether the greeting still names the sender.

Every figure function returns its matplotlib Figure with labelled axes and a title.
"""

from __future__ import annotations

import contextlib
import html
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeAlias

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import torch

from attnbook.lm.replies import Email, ReplyTask
from attnbook.widgets import LABELS

__all__ = [
    "SourceAttentionExplorer",
    "ablated_cross_head",
    "cross_head_mean",
    "greeting_under_ablation",
    "decode_table",
    "influence",
    "plot_cross_mask",
    "plot_decoding",
    "plot_influence",
    "plot_reply_training",
    "plot_source_attention",
    "source_attention",
    "source_attention_explorer",
    "summarise",
]

#: notebook 11's ``EncoderDecoder`` (the learner's) or the course's ``Seq2SeqTransformer``:
#: duck-typed by the course's names (``decoder[i].cross_attn`` ...), which mypy cannot see
#: on an ``nn.Module`` (its submodules are dynamic attributes)
EncoderDecoderLike: TypeAlias = Any


# ---------------------------------------------------------------------------------------------
# Attention over the source
# ---------------------------------------------------------------------------------------------
def source_attention(
    model: EncoderDecoderLike, src_ids: Sequence[int], tgt_ids: Sequence[int]
) -> torch.Tensor:
    """Cross-attention weights (n_layers, h, L_t, L_s) of one (source, target) pair.

    A forward pre-hook catches what each decoder block passes to its ``cross_attn`` layer
    (queries' input, the memory, the mask); the weights are recomputed from it with the
    layer's own projections. The model is not modified.
    """
    src = torch.as_tensor(src_ids, dtype=torch.long).reshape(1, -1)  # (1, L_s)
    tgt = torch.as_tensor(tgt_ids, dtype=torch.long).reshape(1, -1)  # (1, L_t)
    captured: dict[int, dict[str, Any]] = {}

    def catch(layer: int):
        def hook(_module, args, kwargs):
            names = ("x", "source", "allowed")
            found = dict(zip(names, args))
            found.update({k: v for k, v in kwargs.items() if k in names})
            captured[layer] = found

        return hook

    hooks = [
        block.cross_attn.register_forward_pre_hook(catch(i), with_kwargs=True)
        for i, block in enumerate(model.decoder)
    ]
    try:
        with torch.no_grad():
            model(src, tgt)
            maps = [
                block.cross_attn.weights(
                    captured[i]["x"], captured[i].get("source"), captured[i].get("allowed")
                )[0]
                for i, block in enumerate(model.decoder)
            ]  # each (h, L_t, L_s)
    finally:
        for hook in hooks:
            hook.remove()
    return torch.stack(maps)  # (n_layers, h, L_t, L_s)


def plot_source_attention(
    weights,
    src_tokens: Sequence[str],
    tgt_tokens: Sequence[str],
    title: str = "Attention of each reply word over the source",
):
    """One map: rows are reply positions (the word each one predicts), columns source
    tokens; a darker cell is more weight."""
    weights = np.asarray(weights, dtype=float)
    if weights.shape != (len(tgt_tokens), len(src_tokens)):
        raise ValueError(
            f"weights must have shape (L_t, L_s) = ({len(tgt_tokens)}, "
            f"{len(src_tokens)}); got {weights.shape}"
        )
    fig, ax = plt.subplots(figsize=(1.5 + 0.32 * len(src_tokens), 1.2 + 0.3 * len(tgt_tokens)))
    image = ax.imshow(weights, cmap="Blues", vmin=0.0, vmax=1.0, aspect="auto")
    ax.set_xticks(range(len(src_tokens)), src_tokens, rotation=70)
    ax.set_yticks(range(len(tgt_tokens)), tgt_tokens)
    ax.set_xlabel("source token (key)")
    ax.set_ylabel("reply position (query), labelled by the word it writes")
    ax.set_title(title)
    fig.colorbar(image, ax=ax, fraction=0.03)
    fig.tight_layout()
    return fig


class SourceAttentionExplorer(widgets.VBox):
    """Pick an email, a decoder block and a head (or their mean); see where every reply word
    looks in the source.

    The display is an `ipywidgets.HTML` table: one row per reply word, one column per source
    token, each cell shaded by its weight and carrying ``data-weight``; the title names, for
    the chosen reply word, the source token it weighs most.
    """

    def __init__(
        self,
        model: EncoderDecoderLike,
        tokenizer,
        emails: Sequence[Email],
        replies: Sequence[Sequence[str]],
        word: str | None = None,
    ) -> None:
        if len(emails) != len(replies):
            raise ValueError(
                f"emails and replies must pair up; got {len(emails)} emails and "
                f"{len(replies)} replies"
            )
        self.model, self.tokenizer = model, tokenizer
        self.emails, self.replies = list(emails), [list(r) for r in replies]
        self._maps: dict[int, torch.Tensor] = {}
        self._updating = False
        n_layers, n_heads = len(model.decoder), model.decoder[0].cross_attn.n_heads
        self.email = widgets.Dropdown(
            options=[(e.text()[:70], i) for i, e in enumerate(self.emails)],
            value=0,
            description="email",
            style=LABELS,
            layout={"width": "95%"},
        )
        self.layer = widgets.Dropdown(
            options=list(range(n_layers)), value=n_layers - 1, description="block", style=LABELS
        )
        self.head = widgets.Dropdown(
            options=[("mean", -1), *((str(h), h) for h in range(n_heads))],
            value=-1,
            description="head",
            style=LABELS,
        )
        self.word = widgets.Dropdown(description="reply word", style=LABELS)
        self.display = widgets.HTML()
        self._set_words(word)
        self.email.observe(self._email_changed, names="value")
        for control in (self.layer, self.head, self.word):
            control.observe(self._redraw, names="value")
        super().__init__(
            [self.email, widgets.HBox([self.layer, self.head, self.word]), self.display]
        )
        self._redraw()

    def source_tokens(self) -> list[str]:
        ids = self.tokenizer.encode(self.emails[self.email.value].words())
        return [self.tokenizer.id_to_token[i] for i in ids]

    def reply_tokens(self) -> list[str]:
        """The word each reply position writes: the reply, then <EOS>."""
        return [*self.replies[self.email.value], "<EOS>"]

    def maps(self) -> torch.Tensor:
        """(n_layers, h, L_t, L_s) for the chosen email, computed once per email."""
        index = self.email.value
        if index not in self._maps:
            src = self.tokenizer.encode(self.emails[index].words())
            tgt = self.tokenizer.encode(self.replies[index], add_eos=False)
            self._maps[index] = source_attention(self.model, src, tgt)
        return self._maps[index]

    def grid(self) -> np.ndarray:
        """The weights shown: (L_t, L_s) of the chosen block, one head or their mean."""
        maps = self.maps()[self.layer.value]  # (h, L_t, L_s)
        chosen = maps.mean(0) if self.head.value == -1 else maps[self.head.value]
        return chosen.numpy()

    def _set_words(self, prefer: str | None) -> None:
        """Offer every reply position; open on the first that writes ``prefer``, else on
        position 1 (the greeting's name, copied from the source's sign-off)."""
        words = self.reply_tokens()
        chosen = next((t for t, w in enumerate(words) if w == prefer), 1)
        self._updating = True  # options first, then the value: draw once, at the end
        try:
            self.word.options = [(f"{t}: {w}", t) for t, w in enumerate(words)]
            self.word.value = min(chosen, len(words) - 1)
        finally:
            self._updating = False

    def _email_changed(self, _change=None) -> None:
        self._set_words(None)
        self._redraw()

    def _redraw(self, _change=None) -> None:
        if self._updating or self.word.value is None:
            return
        grid, src, tgt = self.grid(), self.source_tokens(), self.reply_tokens()
        t = self.word.value
        top = int(np.argmax(grid[t]))
        head = "the mean of the heads" if self.head.value == -1 else f"head {self.head.value}"
        title = (
            f"block {self.layer.value}, {head}: the position that writes '{tgt[t]}' puts "
            f"{grid[t, top]:.2f} on source token {top} '{src[top]}'"
        )
        self.display.value = _grid_html(grid, src, tgt, t, title, self.layer.value, self.head.value)


def _grid_html(
    grid: np.ndarray,
    src: Sequence[str],
    tgt: Sequence[str],
    chosen: int,
    title: str,
    layer: int,
    head: int,
) -> str:
    header = "".join(
        f'<th style="writing-mode:vertical-rl;font-weight:normal">{html.escape(w)}</th>'
        for w in src
    )
    rows = []
    for t, word in enumerate(tgt):
        cells = "".join(
            f'<td data-weight="{w:.6f}" title="{w:.3f}" style="width:14px;height:14px;'
            f'background:rgba(59,111,182,{w:.3f})"></td>'
            for w in grid[t]
        )
        mark = "font-weight:bold" if t == chosen else ""
        rows.append(
            f'<tr data-row="{t}" data-word="{html.escape(word)}">'
            f'<td style="text-align:right;{mark}">{html.escape(word)}</td>{cells}</tr>'
        )
    return (
        f'<div class="attnbook-source-attention" data-layer="{layer}" data-head="{head}" '
        f'data-word="{chosen}"><b>{html.escape(title)}</b>'
        f'<table style="border-collapse:collapse"><tr><th></th>{header}</tr>'
        f"{''.join(rows)}</table></div>"
    )


def source_attention_explorer(
    model: EncoderDecoderLike,
    tokenizer,
    emails: Sequence[Email],
    replies: Sequence[Sequence[str]],
    word: str | None = None,
) -> SourceAttentionExplorer:
    """The attention-over-source widget of notebook 11."""
    return SourceAttentionExplorer(model, tokenizer, emails, replies, word)


# ---------------------------------------------------------------------------------------------
# Masks and dependencies
# ---------------------------------------------------------------------------------------------
def plot_cross_mask(
    src_tokens: Sequence[Sequence[str]],
    tgt_tokens: Sequence[Sequence[str]],
    pad: str = "<PAD>",
    names: Sequence[str] = ("Message A", "Message B"),
):
    """Cross-attention's allowed grid per message: every reply position may read every real
    source token, never a padded one, and no causal triangle."""
    width = max(len(src) for src in src_tokens)
    rows = sum(len(tgt) for tgt in tgt_tokens)
    fig, axes = plt.subplots(
        len(src_tokens),
        1,
        figsize=(2.0 + 0.36 * width, 1.6 + 0.34 * rows + 0.9 * len(src_tokens)),
        squeeze=False,
    )
    for ax, src, tgt, name in zip(axes[:, 0], src_tokens, tgt_tokens, names):
        allowed = np.array([[s != pad for s in src] for _ in tgt], dtype=float)  # (L_t, L_s)
        ax.imshow(allowed, cmap="Blues", vmin=0.0, vmax=1.2)
        ax.set_xticks(range(len(src)), src, rotation=60)
        ax.set_yticks(range(len(tgt)), tgt)
        ax.set_xlabel("source token (key, value)")
        ax.set_ylabel("reply position (query)")
        ax.set_title(f"{name}: blue = may read")
    fig.suptitle("Cross-attention mask: the source padding mask, repeated for every query")
    fig.tight_layout()
    return fig


@torch.no_grad()
def influence(
    model: EncoderDecoderLike, src_ids: torch.Tensor, tgt_ids: torch.Tensor, vocab_size: int
) -> tuple[np.ndarray, np.ndarray]:
    """How far the logits move when one token changes: ``(G_src, G_tgt)``.

    ``G_src[t, s]`` is the largest change of the logits at reply position t when source
    token s is replaced by another id; ``G_tgt[t, u]`` the same for reply token u. Ids are
    (1, L_s) and (1, L_t); padded source positions are left alone (their column is 0).
    """
    base = model(src_ids, tgt_ids)  # (1, L_t, V)
    pad = getattr(model, "pad_id", 0)

    def moved(src, tgt) -> np.ndarray:
        return (model(src, tgt) - base).abs().amax(dim=(0, 2)).double().numpy()  # (L_t,)

    G_src = np.zeros((tgt_ids.shape[1], src_ids.shape[1]))
    for s in range(src_ids.shape[1]):
        if int(src_ids[0, s]) == pad:
            continue
        changed = src_ids.clone()
        changed[0, s] = 3 + (int(changed[0, s]) - 2) % (vocab_size - 3)  # another real id
        G_src[:, s] = moved(changed, tgt_ids)
    G_tgt = np.zeros((tgt_ids.shape[1], tgt_ids.shape[1]))
    for u in range(tgt_ids.shape[1]):
        changed = tgt_ids.clone()
        changed[0, u] = 3 + (int(changed[0, u]) - 2) % (vocab_size - 3)
        G_tgt[:, u] = moved(src_ids, changed)
    return G_src, G_tgt


def plot_influence(
    G_src: np.ndarray, G_tgt: np.ndarray, src_tokens: Sequence[str], tgt_tokens: Sequence[str]
):
    """The two grids of `influence`, white where a change moves nothing."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, G, cols, title, xlabel in [
        (left, G_src, src_tokens, "Changing a source token", "source token changed"),
        (right, G_tgt, tgt_tokens, "Changing a reply token", "reply token changed"),
    ]:
        ax.imshow(G > 1e-6, cmap="Blues", vmin=0.0, vmax=1.2)
        ax.set_xticks(range(len(cols)), cols, rotation=60)
        ax.set_yticks(range(len(tgt_tokens)), tgt_tokens)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("reply position whose logits move")
        ax.set_title(f"{title}: blue = the logits move")
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------------
# Training against the floor
# ---------------------------------------------------------------------------------------------
def plot_reply_training(log: Sequence[dict], floor: float, title: str = ""):
    """Training loss per step (light), its running mean over 25 steps, the validation
    losses (points) and the conditional-entropy floor (dashed)."""
    steps = np.array([r["step"] for r in log])
    train = np.array([r["train_loss"] for r in log], dtype=float)
    fig, ax = plt.subplots(figsize=(7, 3.8))
    ax.plot(steps, train, color="tab:blue", alpha=0.25, lw=0.8)
    window = min(25, len(train))
    smooth = np.convolve(train, np.ones(window) / window, mode="valid")
    ax.plot(
        steps[window - 1 :],
        smooth,
        color="tab:blue",
        lw=1.6,
        label=f"training loss (mean of {window} steps)",
    )
    val = [(r["step"], r["val_loss"]) for r in log if r["val_loss"] is not None]
    if val:
        ax.plot(*zip(*val), "o-", color="tab:orange", label="validation loss")
    ax.axhline(
        floor, color="black", ls="--", lw=1, label=f"conditional entropy {floor:.3f} (the floor)"
    )
    ax.set_ylim(0.0, max(1.0, float(np.quantile(train, 0.9))))
    ax.set_xlabel("step")
    ax.set_ylabel("cross-entropy (nats per reply token)")
    ax.set_title(title or "Training on the reply task")
    ax.legend()
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------------
# Decoding scored with exact probabilities
# ---------------------------------------------------------------------------------------------
DecodeFn = Callable[[torch.Tensor, int], tuple]


def decode_table(
    task: ReplyTask,
    tokenizer,
    emails: Sequence[Email],
    decode: DecodeFn,
    beam_sizes: Sequence[int] = (1, 2, 3),
) -> list[dict]:
    """One row per (beam size, email): the decoded reply and how it scores.

    ``decode(src_ids, beam_size)`` returns ``(ids from <BOS>, log-probability)``, e.g. a
    learner's beam search with the model and lengths bound. Each row holds the email's kinds,
    the reply's words, its true log-probability, whether it is valid and the true mode, and
    the regret ``log p(mode) - log p(reply)``.
    """
    rows = []
    for k in beam_sizes:
        for index, email in enumerate(emails):
            ids, model_log_p = decode(torch.tensor(tokenizer.encode(email.words())), k)
            ids = [int(i) for i in ids]
            words = tokenizer.decode(ids).split()
            judged = task.judge(email, words)
            rows.append(
                {
                    "beam": k,
                    "email": index,
                    "kinds": email.kinds,
                    "reply": words,
                    "model_log_p": float(model_log_p),
                    "true_log_p": judged.log_prob,
                    "valid": judged.valid,
                    "mode": judged.is_mode,
                    "regret": judged.regret,
                }
            )
    return rows


def summarise(rows: Sequence[dict], key: Callable[[dict], object]) -> dict:
    """Mean validity, mode rate and true log-probability of rows grouped by ``key``."""
    groups: dict[object, list[dict]] = {}
    for row in rows:
        groups.setdefault(key(row), []).append(row)
    out = {}
    for name, group in groups.items():
        valid = [r for r in group if r["valid"]]
        out[name] = {
            "n": len(group),
            "valid": len(valid) / len(group),
            "mode": sum(r["mode"] for r in group) / len(group),
            "true_p": float(np.mean([math.exp(r["true_log_p"]) for r in group])),
            "regret": float(np.mean([r["regret"] for r in valid])) if valid else math.inf,
        }
    return out


def plot_decoding(rows: Sequence[dict]):
    """Share of emails whose decoded reply is the true mode, by sentence kind and beam size
    (one-sentence emails), and the mean true probability of the decoded reply overall."""
    single = [r for r in rows if len(r["kinds"]) == 1]
    kinds = sorted({r["kinds"][0] for r in single})
    beams = sorted({r["beam"] for r in rows})
    by = summarise(single, lambda r: (r["kinds"][0], r["beam"]))
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8), gridspec_kw={"width_ratios": [3, 1]})
    width = 0.8 / len(beams)
    for i, k in enumerate(beams):
        share = [by.get((kind, k), {}).get("mode", 0.0) for kind in kinds]
        left.bar(
            np.arange(len(kinds)) + i * width,
            share,
            width,
            label="greedy" if k == 1 else f"beam {k}",
        )
    left.set_xticks(np.arange(len(kinds)) + width * (len(beams) - 1) / 2, kinds)
    left.set_xlabel("kind of the email's one sentence")
    left.set_ylabel("share decoded to the true mode")
    left.set_ylim(0, 1.05)
    left.set_title("Where beam search finds the most likely reply")
    left.legend()
    overall = summarise(rows, lambda r: r["beam"])
    right.bar([str(k) for k in beams], [overall[k]["true_p"] for k in beams], color="tab:gray")
    right.set_xlabel("beam size (1 = greedy)")
    right.set_ylabel("mean true p(reply | email)")
    right.set_title("All emails")
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------------
# Ablating one cross-attention head
# ---------------------------------------------------------------------------------------------
CROSS_ABLATIONS = ("zero", "uniform", "mean")


@contextlib.contextmanager
def ablated_cross_head(
    model: EncoderDecoderLike, layer: int, head: int, mode: str, mean: torch.Tensor | None = None
) -> Iterator[None]:
    """Inside the ``with``, head ``head`` of decoder block ``layer``'s cross-attention is
    removed; the hooks come off on leaving, even after an error.

    ``mode``: ``"zero"`` sets the head's output (its ``d_k`` columns of ``W_O``'s input) to
    0; ``"uniform"`` makes its weights uniform over the real source tokens, so its output is
    the mean of its values over them; ``"mean"`` replaces its output with ``mean`` (``d_k``,),
    its average output over a batch of emails (`cross_head_mean`).
    """
    if mode not in CROSS_ABLATIONS:
        raise ValueError(f"mode: expected one of {CROSS_ABLATIONS}, got {mode!r}")
    if mode == "mean" and mean is None:
        raise ValueError("mean: the 'mean' ablation needs the head's mean output, got None")
    blocks = model.decoder
    if not (isinstance(layer, int) and 0 <= layer < len(blocks)):
        raise ValueError(f"layer: expected an int in 0..{len(blocks) - 1}, got {layer!r}")
    attn = blocks[layer].cross_attn
    if not (isinstance(head, int) and 0 <= head < attn.n_heads):
        raise ValueError(f"head: expected an int in 0..{attn.n_heads - 1}, got {head!r}")
    cols = slice(head * attn.d_k, (head + 1) * attn.d_k)
    seen: dict[str, torch.Tensor] = {}

    def catch(_module, args, kwargs):
        found = dict(zip(("x", "source", "allowed"), args))
        found.update(kwargs)
        v = attn.W_V(found["source"])[..., cols]  # (B, L_s, d_k): this head's values
        real = found["allowed"].reshape(v.shape[0], -1).to(v.dtype)  # (B, L_s)
        seen["uniform"] = (real[..., None] * v).sum(1) / real.sum(1, keepdim=True)  # (B, d_k)

    def replace(_module, inputs):
        y = inputs[0].clone()  # (B, L_t, d): the heads' outputs side by side
        if mode == "zero":
            y[..., cols] = 0.0
        elif mode == "uniform":
            y[..., cols] = seen["uniform"][:, None, :]
        else:
            assert mean is not None  # checked on entry
            y[..., cols] = mean.to(y.dtype)
        return (y,)

    hooks = [attn.register_forward_pre_hook(catch, with_kwargs=True)]
    try:
        hooks.append(attn.W_O.register_forward_pre_hook(replace))
        yield
    finally:
        for hook in hooks:
            hook.remove()


def cross_head_mean(model: EncoderDecoderLike, tokenizer, pairs, layer: int, head: int):
    """The head's output (d_k,), averaged over every real reply position of ``pairs``
    ((email, reply words), teacher-forced): the replacement of the "mean" ablation."""
    attn = model.decoder[layer].cross_attn
    cols = slice(head * attn.d_k, (head + 1) * attn.d_k)
    outputs = []

    def keep(_module, inputs):
        outputs.append(inputs[0][0, :, cols])  # (L_t, d_k)

    hook = attn.W_O.register_forward_pre_hook(keep)
    try:
        with torch.no_grad():
            for email, reply in pairs:
                src = torch.tensor([tokenizer.encode(email.words())])
                model(src, torch.tensor([tokenizer.encode(list(reply), add_eos=False)]))
    finally:
        hook.remove()
    return torch.cat(outputs).mean(0)  # (d_k,)


def greeting_under_ablation(
    model: EncoderDecoderLike,
    tokenizer,
    emails: Sequence[Email],
    layer: int,
    heads,
    mode: str,
    mean: dict | None = None,
    max_len: int = 30,
) -> dict:
    """Greedy replies to ``emails`` with the cross-attention heads ``heads`` of block
    ``layer`` ablated together. Returns the share whose greeting names the sender, the share
    that still writes the clean model's greedy reply word for word, and the mean change of
    the log-probability of the sender's name at the greeting (teacher-forced, nats)."""
    from attnbook.lm.seq2seq import greedy_decode

    def greet(ids: list[int]) -> str:
        words = tokenizer.decode(ids).split()
        return words[1] if len(words) > 1 else ""

    def name_log_p(src, email) -> float:
        tgt = torch.tensor([tokenizer.encode(["hi", email.sender], add_eos=False)])
        with torch.no_grad():
            log_p = torch.log_softmax(model(src, tgt[:, :-1])[0, -1], dim=-1)
        return float(log_p[tgt[0, -1]])

    named = same = 0
    shift = []
    for email in emails:
        src_ids = tokenizer.encode(email.words())
        src = torch.tensor([src_ids])
        clean_ids, _ = greedy_decode(model, src_ids, max_len, tokenizer.eos_id)
        clean_lp = name_log_p(src, email)
        with contextlib.ExitStack() as stack:
            for h in heads:
                stack.enter_context(
                    ablated_cross_head(model, layer, h, mode, (mean or {}).get((layer, h)))
                )
            ids, _ = greedy_decode(model, src_ids, max_len, tokenizer.eos_id)
            shift.append(name_log_p(src, email) - clean_lp)
        named += greet(ids) == email.sender
        same += ids == clean_ids
    n = len(emails)
    return {"named": named / n, "same": same / n, "name_shift": float(np.mean(shift))}
