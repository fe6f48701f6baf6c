"""Notebook 07's demonstrations: parallel scoring against an RNN's chain, the causal-mask
experiment, loss curves against the entropy floor, and an attention explorer on a trained
decoder.

- `chain_timing`: one forward pass of the reference decoder scores every shifted target of a
  batch in a chain of one step per layer; a recurrent layer needs one step per position. The
  counts come first; then the same decoder is timed in one pass and walking the positions
  one at a time (the same arithmetic, chained), for several lengths; `plot_chain_timing`
  draws both.
- `causal_mask_experiment`: two tiny decoders trained identically, one with the causal mask
  and one without. The unmasked one drives its training loss towards zero by reading the
  target it is asked to predict, and then cannot write an email, because at generation time
  the future it learned to copy does not exist. `plot_causal_experiment` draws both curves.
- `plot_losses_against_floor`: any number of loss curves with the corpus entropy as a floor.
- `attention_maps` and `AttentionExplorer`: the attention weights of every layer and head of
  the reference decoder, recomputed from `CausalSelfAttention.heads_qkv` through forward
  pre-hooks (the model itself is unchanged), and a widget to pick an email, a layer, a head
  and a query word and read that query's attention row over its allowed prefix.
- `head_survey`, `contrasting_heads` and `plot_head_survey`: every head's attention weights
  set against what removing it costs, measured with the learner's own `ablate_head`
  (passed in; nothing here ablates a head).

Names differ on purpose from the graded exercises of notebook 07: nothing
here builds a batch, computes the loss, takes an optimizer step or evaluates a model the way
the exercises ask.
"""

from __future__ import annotations

import contextlib
import html
import math
import time
from collections.abc import Iterator, Sequence

import ipywidgets as widgets
import numpy as np
import torch
from matplotlib.figure import Figure

from attnbook.lm.corpus import DEFAULT_GRAMMAR, EmailGrammar, make_splits
from attnbook.lm.data import batch_iterator, pad_batch, validation_loss
from attnbook.lm.generation import KVCache, decode_step
from attnbook.lm.model import LMConfig, TransformerBlock, TransformerLM
from attnbook.lm.tokenizer import WordTokenizer
from attnbook.lm.train import draw_floor, fit_batch
from attnbook.plots import show_figure
from attnbook.typed import all_of, one_of
from attnbook.widgets import LABELS, bars_html

__all__ = [
    "AttentionExplorer",
    "attention_explorer",
    "attention_maps",
    "batch_table_markdown",
    "causal_mask_experiment",
    "chain_timing",
    "contrasting_heads",
    "head_survey",
    "mean_ablation_changes",
    "plot_causal_experiment",
    "plot_chain_timing",
    "plot_head_survey",
    "plot_losses_against_floor",
    "rank_correlation",
    "show_figure",
    "single_thread",
]

EXPLORER_EMAILS = (
    "hello david , my binder did not fit in the bag because it was too wide . thank you , david .",
    "hello david , my binder did not fit in the bag because it was too small . thank you , david .",
    "hi anna , please send the report before the slides . report first , slides second . "
    "thanks , anna .",
    "please send the report today .",
)


@contextlib.contextmanager
def single_thread() -> Iterator[None]:
    """Run torch on one CPU thread inside the block (tiny models run faster and steadier)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def batch_table_markdown(
    inputs, targets, loss_mask, tokenizer, row_names: Sequence[str] | None = None
) -> str:
    """A Markdown table of a teacher-forcing batch: per row, the input, target and mask.

    ``inputs``, ``targets`` and ``loss_mask`` are (B, L) (tensors, arrays or lists). Each
    column is a position t; a masked target is struck through, so the padding the loss skips
    is visible at a glance.
    """
    inputs, targets, loss_mask = (
        np.asarray(torch.as_tensor(v)) for v in (inputs, targets, loss_mask)
    )
    B, L = inputs.shape
    names = list(row_names) if row_names is not None else [f"row {b}" for b in range(B)]
    head = "| | | " + " | ".join(f"t = {t}" for t in range(L)) + " |"
    lines = [head, "|---|---|" + "---|" * L]
    for b in range(B):
        words_in = [html.escape(tokenizer.id_to_token[int(i)]) for i in inputs[b]]
        words_out = [html.escape(tokenizer.id_to_token[int(i)]) for i in targets[b]]
        shown = [w if m else f"~~{w}~~" for w, m in zip(words_out, loss_mask[b])]
        lines.append(f"| {names[b]} | input | " + " | ".join(words_in) + " |")
        lines.append("| | target | " + " | ".join(shown) + " |")
        lines.append(
            "| | loss mask | " + " | ".join("1" if m else "0" for m in loss_mask[b]) + " |"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------
# One forward pass against a recurrent chain
# ---------------------------------------------------------------------------------------
def _best_time(fn, x: torch.Tensor, repeats: int) -> float:
    """The fastest of ``repeats`` calls ``fn(x)``, in seconds."""
    fn(x)  # warm-up: first calls allocate
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(x)
        times.append(time.perf_counter() - start)
    return min(times)


def _cached_chain(model: TransformerLM, idx: torch.Tensor) -> torch.Tensor:
    """The decoder's logits computed one position at a time with a key/value cache."""
    cache = KVCache.empty(model, idx.shape[0], idx.shape[1])
    return torch.cat(
        [decode_step(model, idx[:, t : t + 1], cache) for t in range(idx.shape[1])], dim=1
    )  # (B, L, V)


def chain_timing(
    model: TransformerLM,
    lengths: Sequence[int] = (8, 16, 32, 64),
    batch_size: int = 32,
    repeats: int = 5,
    seed: int = 0,
) -> dict:
    """Count the steps that wait for each other, then time one pass against a chain.

    Counted: a causal decoder scores every position of a (batch_size, L) batch with a chain
    of one step per layer ("decoder_steps"); a recurrent layer, h_t = f(h_{t-1}, x_t), needs
    one step per position ("rnn_steps": L). Measured, on the same random token ids and the
    same decoder, so that only the order of the work differs: the next-token logits of every
    position in one forward pass ("decoder_ms"), and the same logits one position at a time,
    each step reusing the cached keys and values of the earlier ones ("decoder_chain_ms":
    the same arithmetic, chained like a recurrence). Also returns "L" and "max_logit_gap"
    (one pass against the chain: equal up to rounding). The fastest of ``repeats`` runs
    counts, on one CPU thread, so a busy machine disturbs it less.
    """
    vocab = model.config.vocab_size
    generator = torch.Generator().manual_seed(seed)
    device = next(model.parameters()).device
    keys = ("L", "decoder_ms", "decoder_chain_ms", "decoder_steps", "rnn_steps", "max_logit_gap")
    result: dict[str, list] = {key: [] for key in keys}
    was_training = model.training
    model.eval()
    with torch.no_grad(), single_thread():
        for L in lengths:
            idx = torch.randint(3, vocab, (batch_size, L), generator=generator).to(device)
            gap = (model(idx) - _cached_chain(model, idx)).abs().max()
            result["L"].append(int(L))
            result["decoder_ms"].append(1e3 * _best_time(model, idx, repeats))
            result["decoder_chain_ms"].append(
                1e3 * _best_time(lambda x: _cached_chain(model, x), idx, repeats)
            )
            result["decoder_steps"].append(model.config.n_layers)
            result["rnn_steps"].append(int(L))
            result["max_logit_gap"].append(float(gap))
    model.train(was_training)
    return result


def plot_chain_timing(result: dict) -> Figure:
    """Sequential steps (left), then the measured time of one pass against the chain."""
    fig = Figure(figsize=(9, 3.6))
    panels = (
        (
            "steps that must wait for the previous one",
            "Length of the dependency chain",
            [
                ("decoder_steps", "o-", "tab:blue", "causal decoder (one per layer)"),
                ("rnn_steps", "s-", "tab:green", "recurrent layer (one per position)"),
            ],
        ),
        (
            "time for the batch (ms)",
            "Same decoder, same arithmetic: measured time",
            [
                ("decoder_ms", "o-", "tab:blue", "one forward pass"),
                ("decoder_chain_ms", "^-", "tab:orange", "L chained steps (cache)"),
            ],
        ),
    )
    for ax, (ylabel, title, lines) in zip(fig.subplots(1, 2), panels, strict=True):
        for key, style, color, label in lines:
            ax.plot(result["L"], result[key], style, color=color, label=label)
        ax.set_xlabel("sequence length L")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.legend()
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------
# Removing the causal mask
# ---------------------------------------------------------------------------------------
def _tiny_decoder(vocab_size: int, causal: bool, seed: int) -> TransformerLM:
    torch.manual_seed(seed)
    return TransformerLM(
        LMConfig(
            vocab_size=vocab_size, d_model=32, n_heads=2, n_layers=1, max_len=80, causal=causal
        )
    )


def _prefix_only_loss(model: TransformerLM, sequences: Sequence[Sequence[int]]) -> float:
    """Mean loss when position t may read only tokens 0..t, as during generation.

    Each position is scored from a forward pass over its own prefix, so a model without the
    causal mask gets no glimpse of the token it predicts.
    """
    batch = pad_batch(sequences)
    total, count = 0.0, 0
    for t in range(batch.inputs.shape[1]):
        logits = model(batch.inputs[:, : t + 1])[:, -1]  # (B, V): predicts target t
        nll = torch.nn.functional.cross_entropy(logits, batch.targets[:, t], reduction="none")
        total += float((nll * batch.loss_mask[:, t]).sum())
        count += int(batch.loss_mask[:, t].sum())
    return total / count


def _greedy_emails(
    model: TransformerLM, tokenizer: WordTokenizer, n: int, max_new: int, seed: int
) -> list[str]:
    """Emails written token by token: each step samples from the model's last position."""
    generator = torch.Generator().manual_seed(seed)
    ids = torch.full((n, 1), tokenizer.bos_id, dtype=torch.long)  # (n, 1)
    done = torch.zeros(n, dtype=torch.bool)
    for _ in range(max_new):
        probs = torch.softmax(model(ids)[:, -1], dim=-1)  # (n, V)
        nxt = torch.multinomial(probs, 1, generator=generator)[:, 0]  # (n,)
        nxt = torch.where(done, torch.full_like(nxt, tokenizer.pad_id), nxt)
        ids = torch.cat([ids, nxt[:, None]], dim=1)  # (n, t + 1)
        done |= nxt == tokenizer.eos_id
        if bool(done.all()):
            break
    texts = []
    for row in ids.tolist():
        words = [tokenizer.id_to_token[i] for i in row[1:]]
        finished = tokenizer.id_to_token[tokenizer.eos_id] in words
        words = words[: words.index("<EOS>")] if finished else words
        texts.append(" ".join(w for w in words if w != "<PAD>") + ("" if finished else " …"))
    return texts


def causal_mask_experiment(
    steps: int = 100,
    batch_size: int = 32,
    n_train: int = 2000,
    n_val: int = 64,
    n_samples: int = 12,
    lr: float = 1e-2,
    seed: int = 0,
    grammar: EmailGrammar | None = None,
) -> dict:
    """Train a tiny decoder with and without the causal mask on the same batches.

    For each of "causal" and "no mask" returns the training losses per step, the validation
    loss as in training (teacher forcing, every position sees what its mask allows), the
    validation loss when each position may read only its prefix (the situation of
    generation), a few emails written by the model and the share of them the grammar can
    produce. Seconds on a CPU.
    """
    grammar = grammar or DEFAULT_GRAMMAR
    tokenizer = WordTokenizer()
    splits = make_splits(seed, n_train, n_val, n_test=0, grammar=grammar)
    train = [tokenizer.encode(e) for e in splits["train"]]
    val = [tokenizer.encode(e) for e in splits["val"]]
    out = {}
    with single_thread():
        for name, causal in (("causal", True), ("no mask", False)):
            model = _tiny_decoder(tokenizer.vocab_size, causal, seed)
            optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
            batches = batch_iterator(train, batch_size, seed=seed)
            losses = []
            model.train()
            for _ in range(steps):  # the trainer's step (attnbook.lm.train.fit_batch)
                batch, n_tokens = next(batches)
                loss = fit_batch(model, optimizer, batch, n_tokens, 1.0, contextlib.nullcontext())
                losses.append(loss.item())
            model.eval()
            teacher = validation_loss(model, val)  # the trainer's validation loss
            with torch.no_grad():
                prefix = _prefix_only_loss(model, val)
                emails = _greedy_emails(model, tokenizer, n_samples, max_new=40, seed=seed)
            valid = [math.isfinite(grammar.log_prob(e.split())) for e in emails]
            out[name] = {
                "losses": losses,
                "val_teacher_forced": teacher,
                "val_prefix_only": prefix,
                "emails": emails,
                "valid_share": float(np.mean(valid)),
            }
    return out


def plot_losses_against_floor(
    curves: dict[str, Sequence[float]],
    floor: float | None = None,
    floor_se: float | None = None,
    title: str = "Training loss against the corpus entropy",
    smooth: int = 1,
    validation: dict[int, float] | None = None,
) -> Figure:
    """One line per named loss curve (a loss per step), the entropy floor dashed.

    ``smooth`` > 1 draws a running mean over that many steps beside the raw values;
    ``validation`` maps steps to validation losses, drawn as points.
    """
    fig = Figure(figsize=(7, 3.8))
    ax = fig.subplots()
    for label, losses in curves.items():
        values = np.asarray(list(losses), dtype=float)
        steps = np.arange(1, len(values) + 1)
        if smooth > 1 and len(values) >= smooth:
            (line,) = ax.plot(steps, values, alpha=0.25, lw=0.8)
            running = np.convolve(values, np.ones(smooth) / smooth, mode="valid")
            ax.plot(steps[smooth - 1 :], running, color=line.get_color(), lw=1.6, label=label)
        else:
            ax.plot(steps, values, lw=1.4, label=label)
    if validation:
        ax.plot(
            list(validation),
            list(validation.values()),
            "o-",
            color="tab:orange",
            label="validation loss",
        )
    draw_floor(ax, floor, floor_se)
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    return fig


def plot_causal_experiment(result: dict, floor: float | None = None) -> Figure:
    """Training loss with and without the causal mask, and the entropy floor."""
    curves = {f"{name} (training loss)": r["losses"] for name, r in result.items()}
    return plot_losses_against_floor(
        curves, floor, title="Removing the causal mask: the training loss", smooth=10
    )


# ---------------------------------------------------------------------------------------
# Attention of the trained decoder
# ---------------------------------------------------------------------------------------
def attention_maps(model: TransformerLM, ids: Sequence[int] | torch.Tensor) -> torch.Tensor:
    """Attention weights A of every layer and head for one sequence: (n_layers, h, L, L).

    Forward pre-hooks catch each block's attention input and its RoPE tables; queries and
    keys are recomputed with ``heads_qkv``, scored with 1/sqrt(d_k), masked (causal unless
    the model is not) and normalised by a row softmax. The model is not modified.
    """
    ids = torch.as_tensor(ids, dtype=torch.long).reshape(1, -1)  # (1, L)
    device = next(model.parameters()).device
    captured: dict[int, tuple] = {}
    blocks = all_of(model.blocks, TransformerBlock, "model.blocks")
    hooks = [
        block.attn.register_forward_pre_hook(
            lambda _module, args, layer=layer: captured.__setitem__(layer, args)
        )
        for layer, block in enumerate(blocks)
    ]
    try:
        with torch.no_grad():
            model(ids.to(device))
            maps = []
            for layer, block in enumerate(blocks):
                x, rope = captured[layer][0], captured[layer][1]
                q, k, _ = block.attn.heads_qkv(x, rope)  # (1, h, L, d_k) each
                scores = q.float() @ k.float().transpose(-1, -2) / math.sqrt(q.shape[-1])
                if model.config.causal:
                    L = ids.shape[1]
                    allowed = torch.ones(L, L, dtype=torch.bool, device=device).tril()
                    scores = scores.masked_fill(~allowed, float("-inf"))  # (1, h, L, L)
                maps.append(torch.softmax(scores, dim=-1)[0].cpu())  # (h, L, L)
    finally:
        for hook in hooks:
            hook.remove()
    return torch.stack(maps)  # (n_layers, h, L, L)


class AttentionExplorer(widgets.VBox):
    """Pick an email, a layer, a head and a query word; read the query's attention row.

    The row covers the allowed prefix (the query and every earlier token); the future
    positions the causal mask blocks are counted in the title but not drawn. The display is
    an `ipywidgets.HTML` child built by `attnbook.widgets.bars_html` (one element per key
    with data-label and data-value attributes).
    """

    def __init__(
        self,
        model: TransformerLM,
        tokenizer,
        emails: Sequence[str] = EXPLORER_EMAILS,
        query_word: str = "too",
    ) -> None:
        self.model, self.tokenizer = model, tokenizer
        self.emails = list(emails)
        self._maps: dict[int, torch.Tensor] = {}
        self._updating = False
        self._query_word = query_word
        self.email = widgets.Dropdown(
            options=[(self._short(e), i) for i, e in enumerate(self.emails)],
            value=0,
            description="email",
            style=LABELS,
            layout={"width": "95%"},
        )
        self.layer = widgets.Dropdown(
            options=list(range(model.config.n_layers)), value=0, description="layer", style=LABELS
        )
        self.head = widgets.Dropdown(
            options=list(range(model.config.n_heads)), value=0, description="head", style=LABELS
        )
        self.query = widgets.Dropdown(description="query word", style=LABELS)
        self.display = widgets.HTML()
        self._set_queries(query_word)
        self.email.observe(self._email_changed, names="value")
        for control in (self.layer, self.head, self.query):
            control.observe(self._redraw, names="value")
        super().__init__(
            [self.email, widgets.HBox([self.layer, self.head, self.query]), self.display]
        )
        self._redraw()

    @staticmethod
    def _short(email: str, width: int = 70) -> str:
        return email if len(email) <= width else email[: width - 1] + "…"

    def tokens(self) -> list[str]:
        """The tokens the model reads for the chosen email: <BOS> then its words."""
        return self._tokens_of(self.email.value)

    def _tokens_of(self, index: int) -> list[str]:
        ids = self.tokenizer.encode(self.emails[index], add_eos=False)
        return [self.tokenizer.id_to_token[i] for i in ids]

    def maps(self) -> torch.Tensor:
        """(n_layers, h, L, L) attention of the chosen email, computed once per email."""
        index = self.email.value
        if index not in self._maps:
            ids = self.tokenizer.encode(self.emails[index], add_eos=False)
            self._maps[index] = attention_maps(self.model, ids)
        return self._maps[index]

    def row(self) -> np.ndarray:
        """The weights currently shown: the query's row over keys 0..query."""
        q = self.query.value
        return self.maps()[self.layer.value, self.head.value, q, : q + 1].numpy()

    def _set_queries(self, prefer: str | None = None) -> None:
        """Offer every token of the email as a query; open on the last occurrence of
        ``prefer`` (the word shown before the email changed), else of the widget's query
        word, else on the last token."""
        tokens = self.tokens()
        options = [(f"{t}: {w}", t) for t, w in enumerate(tokens)]
        chosen = len(tokens) - 1
        for word in (self._query_word, prefer):
            chosen = max((t for t, w in enumerate(tokens) if w == word), default=chosen)
        self._updating = True  # options first, then the value: draw once, at the end
        try:
            self.query.options = options
            self.query.value = chosen
        finally:
            self._updating = False

    def _email_changed(self, change=None) -> None:
        old = change["old"] if change else None
        previous = self._tokens_of(old)[self.query.value] if old is not None else None
        self._set_queries(previous)
        self._redraw()

    def _redraw(self, _change=None) -> None:
        if self._updating or self.query.value is None:
            return
        tokens, q = self.tokens(), self.query.value
        weights = self.row()
        labels = [f"{t}: {w}" for t, w in enumerate(tokens[: q + 1])]
        blocked = len(tokens) - q - 1
        top = int(np.argmax(weights))
        title = (
            f"layer {self.layer.value}, head {self.head.value}: query {q} "
            f"'{tokens[q]}' puts {weights[top]:.2f} on {top} '{tokens[top]}' "
            f"({blocked} future positions blocked by the causal mask)"
        )
        self.display.value = (
            f'<div class="attnbook-attention" data-layer="{self.layer.value}" '
            f'data-head="{self.head.value}" data-query="{q}" '
            f'data-query-word="{html.escape(tokens[q])}">'
            + bars_html(labels, weights, title=title)
            + "</div>"
        )


def attention_explorer(
    model: TransformerLM,
    tokenizer,
    emails: Sequence[str] = EXPLORER_EMAILS,
    query_word: str = "too",
) -> AttentionExplorer:
    """The decks' "real attention in a decoder" slide on our trained email model."""
    return AttentionExplorer(model, tokenizer, emails, query_word)


# ---------------------------------------------------------------------------------------
# Attention weights against ablation: does a decisive-looking head matter?
# ---------------------------------------------------------------------------------------
def head_survey(
    model: TransformerLM, sequences: Sequence[Sequence[int]], ablate, min_keys: int = 5
) -> list[dict]:
    """For every (layer, head): how decisive its attention looks and what removing it costs.

    ``ablate(model, ids, layer, head, mode)`` is an ``ablate_head`` (notebook 07's exercise):
    the change in log-probability of each target, (1, L - 1). Each row of the result holds
    ``layer``, ``head``, ``max_weight`` (over the queries with at least ``min_keys`` allowed
    keys, the mean of the largest weight of the query's attention row) and ``cost_zero``,
    ``cost_uniform``, ``cost_mean`` (minus the mean change over every target of every
    sequence: nats per token lost when the head is zeroed, made uniform, or replaced by its
    mean output, `mean_ablation_changes`), and ``zero_by_email`` (the zeroing cost of each
    sequence on its own).
    """
    maps = [attention_maps(model, seq) for seq in sequences]  # each (n_layers, h, L, L)
    rows = []
    for layer in range(model.config.n_layers):
        for head in range(model.config.n_heads):
            peaks = torch.cat([m[layer, head, min_keys - 1 :].max(dim=-1).values for m in maps])
            row: dict[str, float | list[float]] = {
                "layer": layer,
                "head": head,
                "max_weight": float(peaks.mean()),
            }
            for mode in ("zero", "uniform"):
                changes = [
                    torch.as_tensor(ablate(model, torch.tensor([seq]), layer, head, mode)).flatten()
                    for seq in sequences
                ]
                row[f"cost_{mode}"] = -float(torch.cat(changes).double().mean())
                if mode == "zero":
                    row["zero_by_email"] = [-float(c.double().mean()) for c in changes]
            changes = mean_ablation_changes(model, sequences, layer, head)
            row["cost_mean"] = -float(torch.cat(changes).double().mean())
            rows.append(row)
    return rows


def mean_ablation_changes(
    model: TransformerLM, sequences: Sequence[Sequence[int]], layer: int, head: int
) -> list[torch.Tensor]:
    """Mean ablation: the head's output at every position of every sequence is replaced by
    its average over all positions of all ``sequences`` (a typical output that carries
    nothing about the token at hand, unlike the zeros it never writes in training). Returns
    the change in log-probability of each target, one (L - 1,) tensor per sequence."""
    attention = one_of(model.blocks[layer], TransformerBlock, f"model.blocks[{layer}]").attn
    cols = slice(head * attention.d_k, (head + 1) * attention.d_k)
    seen: list[torch.Tensor] = []
    mean: dict[str, torch.Tensor] = {}

    def keep(_module, inputs):
        seen.append(inputs[0][0, :, cols])  # (L, d_k): this head's output

    def replace(_module, inputs):
        y = inputs[0].clone()  # (B, L, d): the heads' outputs side by side
        y[..., cols] = mean["y"]
        return (y,)

    def target_log_probs(ids: torch.Tensor) -> torch.Tensor:
        log_probs = torch.log_softmax(model(ids)[0, :-1].double(), dim=-1)  # (L - 1, V)
        return log_probs.gather(-1, ids[0, 1:, None]).squeeze(-1)  # (L - 1,)

    was_training = model.training
    model.eval()
    batch = [torch.tensor([list(seq)]) for seq in sequences]
    try:
        with torch.no_grad():
            hook = attention.W_O.register_forward_pre_hook(keep)
            try:
                clean = [target_log_probs(ids) for ids in batch]
            finally:
                hook.remove()
            mean["y"] = torch.cat(seen).mean(0)  # (d_k,)
            hook = attention.W_O.register_forward_pre_hook(replace)
            try:
                return [target_log_probs(ids) - c for ids, c in zip(batch, clean)]
            finally:
                hook.remove()
    finally:
        model.train(was_training)


def rank_correlation(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rank correlation of two equally long sequences without ties."""
    rx, ry = np.argsort(np.argsort(x)), np.argsort(np.argsort(y))
    return float(np.corrcoef(rx, ry)[0, 1])


def contrasting_heads(rows: Sequence[dict]) -> tuple[dict, dict]:
    """The heads of a `head_survey` that most contradict their attention: among the heads
    whose ``max_weight`` is at least the median, the one whose zeroing costs least; among
    the others, the one whose zeroing costs most."""
    median = float(np.median([r["max_weight"] for r in rows]))
    decisive = [r for r in rows if r["max_weight"] >= median]
    diffuse = [r for r in rows if r["max_weight"] < median]
    return (min(decisive, key=lambda r: r["cost_zero"]), max(diffuse, key=lambda r: r["cost_zero"]))


def plot_head_survey(rows: Sequence[dict]) -> Figure:
    """Each head as a point: how decisive its attention looks against what zeroing it costs."""
    fig = Figure(figsize=(6.5, 4))
    ax = fig.subplots()
    x = [r["max_weight"] for r in rows]
    y = [r["cost_zero"] for r in rows]
    ax.scatter(x, y, color="tab:blue")
    for r, xi, yi in zip(rows, x, y):
        ax.annotate(
            f"L{r['layer']}H{r['head']}", (xi, yi), textcoords="offset points", xytext=(4, 4)
        )
    ax.axhline(0.0, color="black", lw=0.8)
    ax.set_xlabel("mean largest attention weight of a query row")
    ax.set_ylabel("cost of zeroing the head (nats per token)")
    ax.set_title("Attention that looks decisive against what the head is worth")
    fig.tight_layout()
    return fig
