"""Notebook 10 helpers: input validation, experiments, figures and the head explorer.

The learner's own functions and models are passed in (the attention to compare, the cache
size formula, the decode step, the loaded decoder), so the project's tests run the same
demonstrations with the autograder's reference.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn.functional as F

from attnbook.demos.nb04 import ROBOT_SENTENCE, ROBOT_TOKENS, heatmap_row_html
from attnbook.demos.nb07 import single_thread
from attnbook.shapes import require_ndim
from attnbook.widgets import LABELS, bars_html

__all__ = [
    "QWEN3_0_6B_SHAPES",
    "HeadExplorer",
    "cache_bytes",
    "greedy_tokens",
    "head_explorer",
    "kv_memory_rows",
    "notable_heads",
    "plot_activations",
    "plot_head_groups",
    "plot_kv_memory",
    "plot_norm_comparison",
    "plot_qk_norm",
    "plot_query_key_weight",
    "qk_norm_experiment",
    "require_gqa_inputs",
    "require_cache",
    "require_head_counts",
    "require_past",
    "robot_stand_in",
    "robot_tokens_from_tokenizer",
]

#: The attention shapes of Qwen3-0.6B (its config.json): what its KV cache depends on.
QWEN3_0_6B_SHAPES = {"n_layers": 28, "n_heads": 16, "n_kv_heads": 8, "d_k": 128}


# ---------------------------------------------------------------------------------------
# Input validation given to the learner (outside the solution regions)
# ---------------------------------------------------------------------------------------
def require_head_counts(n_heads: int, n_kv_heads: int) -> None:
    """n_heads must be a positive multiple of n_kv_heads."""
    if n_kv_heads < 1 or n_heads < 1 or n_heads % n_kv_heads:
        raise ValueError(
            f"n_heads = {n_heads} must be a positive multiple of n_kv_heads = "
            f"{n_kv_heads}: every key/value head serves the same number of "
            "query heads"
        )


def require_gqa_inputs(q, k, v, allowed=None) -> None:
    """q (B, h, L_q, d_k); k and v (B, h_kv, L_k, d_k) with h a multiple of h_kv; allowed
    None or a bool mask broadcastable to (B, h, L_q, L_k). ValueErrors name the argument."""
    require_ndim("q", q, 4, "(B, h, L_q, d_k)")
    require_ndim("k", k, 4, "(B, h_kv, L_k, d_k)")
    require_ndim("v", v, 4, "(B, h_kv, L_k, d_k)")
    if tuple(k.shape) != tuple(v.shape):
        raise ValueError(
            f"k and v must have the same shape (B, h_kv, L_k, d_k); got k "
            f"{tuple(k.shape)} and v {tuple(v.shape)}"
        )
    if q.shape[0] != k.shape[0] or q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"q and k must agree on the batch B and the head width d_k; got q "
            f"{tuple(q.shape)} and k {tuple(k.shape)}"
        )
    if q.shape[1] % k.shape[1]:
        raise ValueError(
            f"the number of query heads h (q has shape {tuple(q.shape)}) must be "
            f"a multiple of the key/value heads h_kv (k has shape "
            f"{tuple(k.shape)})"
        )
    if allowed is None:
        return
    if not isinstance(allowed, torch.Tensor):
        kind = type(allowed)
        name = f"{kind.__module__}.{kind.__name__}".removeprefix("builtins.")  # numpy.ndarray
        raise ValueError(f"allowed must be None or a bool tensor (True = may attend); got a {name}")
    scores = (q.shape[0], q.shape[1], q.shape[2], k.shape[2])
    try:  # broadcast TO the scores: a mask with more rows than B would make more outputs
        fits = torch.broadcast_shapes(tuple(allowed.shape), scores) == scores
    except RuntimeError:
        fits = False
    if not fits:
        raise ValueError(
            f"allowed has shape {tuple(allowed.shape)}, which does not broadcast "
            f"to the scores' shape (B, h, L_q, L_k) = {scores}"
        )
    if allowed.dtype != torch.bool:
        raise ValueError(
            f"allowed must be a bool tensor (True = may attend); got dtype "
            f"{allowed.dtype} and shape {tuple(allowed.shape)}"
        )


def require_past(past, h, n_kv_heads: int, d_k: int) -> None:
    """past: None or the cached (k, v) of one block, each (B, h_kv, T, d_k), for h (B, L, d)."""
    if past is None:
        return
    if not isinstance(past, tuple | list) or len(past) != 2:
        raise ValueError(f"past must be None or a pair (k, v); got {type(past).__name__}")
    for name, t in zip(("past[0] (the keys)", "past[1] (the values)"), past):
        shape = tuple(getattr(t, "shape", ()))
        if len(shape) != 4 or shape[0] != h.shape[0] or shape[1] != n_kv_heads or shape[3] != d_k:
            raise ValueError(
                f"{name} must have shape (B, h_kv, T, d_k) = ({h.shape[0]}, "
                f"{n_kv_heads}, T, {d_k}) for h of shape {tuple(h.shape)}; got "
                f"{shape}"
            )


def require_rope(rope, h, d_k: int) -> None:
    """rope: (cos, sin) for the L new tokens of h (B, L, d), each (L, d_k / 2) (leading axes
    that broadcast are allowed)."""
    want = (h.shape[1], d_k // 2)
    pair = isinstance(rope, tuple | list) or (isinstance(rope, torch.Tensor) and rope.dim() > 2)
    if not pair or len(rope) != 2:  # a tuple, a list or the two stacked in a tensor
        raise ValueError(f"rope must be a pair (cos, sin), each (L, d_k / 2) = {want}; got "
                         f"{type(rope).__name__}")  # fmt: skip
    for name, t in zip(("rope[0] (cos)", "rope[1] (sin)"), rope):
        shape = tuple(getattr(t, "shape", ()))
        try:
            fits = len(shape) >= 2 and torch.broadcast_shapes(shape, want)[-2:] == want
        except RuntimeError:
            fits = False
        if not fits:
            raise ValueError(
                f"{name} must have shape (L, d_k / 2) = {want} for h of shape "
                f"{tuple(h.shape)}; got {shape}"
            )


def require_cache(cache, n_layers: int, max_len: int, token_ids) -> None:
    """cache: None or one (k, v) pair per block; the new tokens must fit in max_len."""
    cached = 0
    if cache is not None:
        if len(cache) != n_layers:
            raise ValueError(
                f"cache must hold one (k, v) pair per block ({n_layers}); got {len(cache)} entries"
            )
        keys = tuple(getattr(cache[0][0], "shape", ()))
        if len(keys) != 4 or keys[0] != token_ids.shape[0]:
            raise ValueError(
                f"cache[0][0] (the first block's keys) must have shape (B, h_kv, T, d_k) with "
                f"B = {token_ids.shape[0]}, the rows of token_ids {tuple(token_ids.shape)}; "
                f"got {keys}"
            )
        cached = keys[2]
    if cached + token_ids.shape[1] > max_len:
        raise ValueError(
            f"token_ids has shape {tuple(token_ids.shape)}: {cached} cached plus "
            f"{token_ids.shape[1]} new tokens exceed max_len = {max_len}"
        )


# ---------------------------------------------------------------------------------------
# Section 1: RMSNorm against LayerNorm; section 2: the gate
# ---------------------------------------------------------------------------------------
def plot_norm_comparison(h, layer_norm_out, rms_norm_out, token: int = 0):
    """One token's features before and after LayerNorm and RMSNorm (gamma 1, beta 0)."""
    rows = [("input h", h), ("LayerNorm(h)", layer_norm_out), ("RMSNorm(h)", rms_norm_out)]
    fig, axes = plt.subplots(1, 3, figsize=(10, 3.2), sharey=True)
    for ax, (title, values) in zip(axes, rows):
        x = np.asarray(torch.as_tensor(values).detach().double())[token]  # (d,)
        ax.bar(np.arange(x.size), x, color="#3b6fb6")
        ax.axhline(x.mean(), color="#c0392b", ls="--", label=f"mean {x.mean():+.2f}")
        ax.set_title(f"{title}: RMS {np.sqrt((x**2).mean()):.2f}")
        ax.set_xlabel("feature j")
        ax.set_ylabel("value")
        ax.legend(loc="upper left", fontsize=8)
    fig.suptitle("LayerNorm centres and scales a token; RMSNorm only rescales it")
    fig.tight_layout()
    return fig


def plot_activations():
    """SiLU (the gate of SwiGLU) beside GELU and ReLU, and SiLU's own factor sigmoid(x)."""
    x = torch.linspace(-5, 5, 201)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.4))
    left.plot(x, F.silu(x), label="SiLU(x) = x sigmoid(x)")
    left.plot(x, F.gelu(x), "--", label="GELU(x) = x Phi(x)")
    left.plot(x, F.relu(x), ":", label="ReLU(x)")
    left.set_xlabel("x")
    left.set_ylabel("activation")
    left.set_title("SiLU and GELU: smooth ReLUs that dip below zero")
    left.legend(fontsize=8)
    right.plot(x, torch.sigmoid(x), color="#2c7a4b")
    right.set_xlabel("gate input w_gate . x")
    right.set_ylabel("sigmoid (the fraction of SiLU let through)")
    right.set_title("A gate between 0 (closed) and 1 (open)")
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------
# Section 3: which key/value head each query head reads
# ---------------------------------------------------------------------------------------
def plot_head_groups(n_heads: int, n_kv_heads: int):
    """The (h, h_kv) table of grouped-query attention: query head r reads key/value head
    r // (h / h_kv), so consecutive query heads share one."""
    require_head_counts(n_heads, n_kv_heads)
    group = n_heads // n_kv_heads
    table = np.zeros((n_heads, n_kv_heads))
    table[np.arange(n_heads), np.arange(n_heads) // group] = 1.0
    fig, ax = plt.subplots(figsize=(1.2 + 0.5 * n_kv_heads, 1.0 + 0.3 * n_heads))
    ax.imshow(table, cmap="Blues", vmin=0, vmax=1.2, aspect="auto")
    ax.set_xticks(range(n_kv_heads))
    ax.set_yticks(range(n_heads))
    ax.set_xlabel("key/value head j")
    ax.set_ylabel("query head r")
    ax.set_title(f"h = {n_heads} query heads share h_kv = {n_kv_heads} key/value heads")
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------
# Section 4: the KV cache, computed and measured
# ---------------------------------------------------------------------------------------
def kv_memory_rows(
    kv_cache_bytes: Callable,
    lengths: Sequence[int] = (1024, 8192, 32768),
    shapes: dict = QWEN3_0_6B_SHAPES,
    bytes_per_value: int = 2,
) -> list[dict]:
    """Cache bytes of one sequence from `kv_cache_bytes` for MHA (h_kv = h), the model's GQA
    and MQA (h_kv = 1), at each length."""
    variants = [("MHA", shapes["n_heads"]), ("GQA", shapes["n_kv_heads"]), ("MQA", 1)]
    return [
        {
            "attention": name,
            "n_kv_heads": h_kv,
            "length": L,
            "bytes": kv_cache_bytes(shapes["n_layers"], h_kv, shapes["d_k"], L, bytes_per_value),
        }
        for name, h_kv in variants
        for L in lengths
    ]


def plot_kv_memory(rows: Sequence[dict], title: str = "Qwen3-0.6B's KV cache, bf16, one sequence"):
    """Cache size in GiB against context length, one line per attention variant."""
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for name in dict.fromkeys(r["attention"] for r in rows):
        mine = [r for r in rows if r["attention"] == name]
        ax.plot(
            [r["length"] for r in mine],
            [r["bytes"] / 2**30 for r in mine],
            "o-",
            label=f"{name} (h_kv = {mine[0]['n_kv_heads']})",
        )
    ax.set_xscale("log", base=2)
    ax.set_xlabel("context length L (tokens)")
    ax.set_ylabel("KV cache (GiB)")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    return fig


def cache_bytes(cache) -> int:
    """Bytes that the tensors of a cache (a list of (k, v) pairs) really occupy: the sizes
    of their distinct storages, measured, not computed from a formula."""
    storages = {}
    for k, v in cache:
        for t in (k, v):
            storages[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
    return int(sum(storages.values()))


# ---------------------------------------------------------------------------------------
# Section 5: QK-norm keeps the scores bounded
# ---------------------------------------------------------------------------------------
def qk_norm_experiment(
    scales: Sequence[float] = (1, 2, 4, 8, 16),
    d: int = 32,
    d_k: int = 8,
    L: int = 16,
    seed: int = 0,
) -> dict:
    """The largest |score| and the largest attention weight of one head as W_Q and W_K
    grow by a factor s, without and with an RMSNorm on every query and key (weight 1)."""
    with single_thread():
        return _qk_norm_experiment(scales, d, d_k, L, seed)


def _qk_norm_experiment(scales, d: int, d_k: int, L: int, seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(L, d, generator=g)  # (L, d)
    W_Q, W_K = (torch.randn(d_k, d, generator=g) / math.sqrt(d) for _ in range(2))
    causal = torch.ones(L, L, dtype=torch.bool).tril()
    out = {
        "scales": list(scales),
        "raw_score": [],
        "normed_score": [],
        "raw_peak": [],
        "normed_peak": [],
    }
    for s in scales:
        q, k = x @ (s * W_Q).T, x @ (s * W_K).T  # (L, d_k) each
        for kind, (qq, kk) in (("raw", (q, k)), ("normed", (_unit_rms(q), _unit_rms(k)))):
            S = qq @ kk.T / math.sqrt(d_k)  # (L, L)
            A = torch.softmax(S.masked_fill(~causal, float("-inf")), dim=-1)  # (L, L)
            out[f"{kind}_score"].append(float(S.abs().max()))
            out[f"{kind}_peak"].append(float(A[1:].max(dim=-1).values.mean()))
    return out


def _unit_rms(x: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps)


def plot_qk_norm(result: dict):
    s = result["scales"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.4))
    left.loglog(s, result["raw_score"], "o-", label="no QK-norm")
    left.loglog(s, result["normed_score"], "s-", label="QK-norm")
    left.set_xlabel("growth s of W_Q and W_K")
    left.set_ylabel("largest |q.k| / sqrt(d_k)")
    left.set_title("Scores grow like s^2 unless q and k are normalised")
    left.legend()
    right.semilogx(s, result["raw_peak"], "o-", label="no QK-norm")
    right.semilogx(s, result["normed_peak"], "s-", label="QK-norm")
    right.set_xlabel("growth s of W_Q and W_K")
    right.set_ylabel("mean largest attention weight")
    right.set_ylim(0, 1.05)
    right.set_title("Without QK-norm the softmax saturates")
    right.legend()
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------
# Section 7: greedy decoding with and without the cache
# ---------------------------------------------------------------------------------------
@torch.no_grad()
def greedy_tokens(model, prompt_ids, n_new: int, decode_step: Callable | None = None):
    """Greedy continuation of `prompt_ids` (B, L): by `decode_step(model, ids, cache)`
    (the prompt once, then one token per step), or, without it, by running the whole
    sequence again for every token. Returns (new ids (B, n_new), seconds per new token)."""
    with single_thread():  # tiny models: a second thread only adds waiting
        return _greedy(model, torch.as_tensor(prompt_ids, dtype=torch.long), n_new, decode_step)


def _greedy(model, ids, n_new: int, decode_step):
    start = time.perf_counter()
    if decode_step is None:
        for _ in range(n_new):
            next_id = model(ids)[:, -1].argmax(dim=-1, keepdim=True)  # (B, 1)
            ids = torch.cat([ids, next_id], dim=1)
    else:
        logits, cache = decode_step(model, ids, None)  # the prefill
        for _ in range(n_new):
            next_id = logits[:, -1].argmax(dim=-1, keepdim=True)  # (B, 1)
            ids = torch.cat([ids, next_id], dim=1)
            logits, cache = decode_step(model, next_id, cache)
    seconds = (time.perf_counter() - start) / max(n_new, 1)
    return ids[:, -n_new:] if n_new else ids[:, :0], seconds


# ---------------------------------------------------------------------------------------
# Section 8: the decks' live slide, heads on the robot sentence
# ---------------------------------------------------------------------------------------
def robot_stand_in(vocab_size: int) -> tuple[list[int], list[str]]:
    """Ids and labels of the robot sentence for a model without a tokenizer: one id per
    word (lower-cased, so "The" and "the" share one), numbered from 1 in order of first
    appearance, modulo the vocabulary."""
    numbers: dict[str, int] = {}
    ids = [(numbers.setdefault(w.lower(), len(numbers) + 1)) % vocab_size for w in ROBOT_TOKENS]
    return ids, list(ROBOT_TOKENS)


def robot_tokens_from_tokenizer(folder) -> tuple[list[int], list[str]]:
    """Ids and labels of the robot sentence from a Hugging Face tokenizer.json."""
    from tokenizers import Tokenizer

    encoding = Tokenizer.from_file(str(folder / "tokenizer.json")).encode(ROBOT_SENTENCE)
    labels = [t.replace("\u0120", " ").strip() or t for t in encoding.tokens]
    return list(encoding.ids), labels


def _find(tokens: Sequence[str], word: str, before: int | None = None) -> int:
    """The last position of `word` (case and spaces ignored), before `before` if given."""
    stop = len(tokens) if before is None else before
    hits = [i for i in range(stop) if tokens[i].strip().lower() == word.lower()]
    if not hits:
        raise ValueError(f"word: {word!r} is not among the tokens {list(tokens[:stop])}")
    return hits[-1]


def notable_heads(
    maps, tokens: Sequence[str], query_word: str = "it", key_word: str = "cup"
) -> dict[str, tuple[int, int]]:
    """Three measured patterns, each as (layer, head): the largest weight from `query_word`
    to `key_word`, the strongest previous-token head and the broadest head (highest mean
    entropy of its rows beyond the first token)."""
    maps = torch.as_tensor(maps).double()  # (N, h, L, L)
    q = _find(tokens, query_word)
    k = _find(tokens, key_word, before=q + 1)
    L = maps.shape[-1]
    previous = maps[..., torch.arange(1, L), torch.arange(L - 1)].mean(dim=-1)  # (N, h)
    entropy = -(maps * maps.clamp_min(1e-12).log()).sum(dim=-1)[..., 1:]  # (N, h, L - 1)
    broad = (entropy / torch.arange(2, L + 1).double().log()).mean(dim=-1)  # (N, h)

    def best(table) -> tuple[int, int]:
        flat = int(torch.argmax(table))
        return flat // table.shape[1], flat % table.shape[1]

    return {
        f"{query_word} -> {key_word}": best(maps[:, :, q, k]),
        "previous token": best(previous),
        "spread over the prefix": best(broad),
    }


def plot_query_key_weight(
    maps, tokens: Sequence[str], query_word: str = "it", key_word: str = "cup", title: str = ""
):
    """The weight from `query_word` to `key_word` in every layer (rows) and head (columns)."""
    maps = torch.as_tensor(maps)
    q = _find(tokens, query_word)
    k = _find(tokens, key_word, before=q + 1)
    table = maps[:, :, q, k].numpy()  # (N, h)
    N, h = table.shape
    fig, ax = plt.subplots(figsize=(min(10, 2 + 0.45 * h), min(7, 1.5 + 0.3 * N)))
    image = ax.imshow(table, cmap="Blues", vmin=0, vmax=1, aspect="auto")
    fig.colorbar(image, ax=ax, label=f"weight {query_word} -> {key_word}")
    ax.set_xlabel("head")
    ax.set_ylabel("layer")
    ax.set_title(title or f"How much '{query_word}' reads '{key_word}', by layer and head")
    fig.tight_layout()
    return fig


class HeadExplorer(widgets.VBox):
    """The decks' "real attention in a decoder" slide: a layer slider, a head slider and a
    query word; the query's row of weights over the allowed prefix (future keys grey).

    `maps` (N, h, L, L) are measured attention weights; a dropdown of `notable_heads` jumps
    to the patterns the slide names. The display is an ipywidgets.HTML child whose cells
    and bars carry data-* attributes, so tests read exactly what the learner sees.
    """

    def __init__(self, maps, tokens: Sequence[str], query_word: str = "it", key_word: str = "cup"):
        self.maps = torch.as_tensor(maps).double()  # (N, h, L, L)
        self.tokens = list(tokens)
        N, h, L, _ = self.maps.shape
        if L != len(self.tokens):
            raise ValueError(
                f"maps has shape {tuple(self.maps.shape)}: L = {L}, but there "
                f"are {len(self.tokens)} tokens"
            )
        self.patterns = notable_heads(self.maps, self.tokens, query_word, key_word)
        self.layer = widgets.IntSlider(value=0, min=0, max=N - 1, description="layer", style=LABELS)
        self.head = widgets.IntSlider(value=0, min=0, max=h - 1, description="head", style=LABELS)
        self.query = widgets.Dropdown(
            options=[(f"{i} · {t}", i) for i, t in enumerate(self.tokens)],
            value=_find(self.tokens, query_word),
            description="query word",
            style=LABELS,
        )
        self.pattern = widgets.Dropdown(
            options=[("(choose)", None)]
            + [(f"{name}: layer {l}, head {r}", (l, r)) for name, (l, r) in self.patterns.items()],
            value=None,
            description="pattern",
            style=LABELS,
        )
        self.display = widgets.HTML()
        for control in (self.layer, self.head, self.query):
            control.observe(self._redraw, names="value")
        self.pattern.observe(self._jump, names="value")
        super().__init__(
            [
                widgets.HBox([self.layer, self.head]),
                widgets.HBox([self.query, self.pattern]),
                self.display,
            ]
        )
        self._redraw()

    def row(self) -> np.ndarray:
        """The current query's weights over all L keys (zeros after the query)."""
        return self.maps[self.layer.value, self.head.value, self.query.value].numpy()

    def _jump(self, change) -> None:
        if change["new"] is not None:
            layer, head = change["new"]
            self.layer.value, self.head.value = layer, head

    def _redraw(self, _change=None) -> None:
        q, weights = self.query.value, self.row()
        allowed = np.arange(len(self.tokens)) <= q
        top = int(np.argmax(weights))
        title = (
            f"layer {self.layer.value}, head {self.head.value}: query '{self.tokens[q]}' "
            f"(position {q}) puts {weights[top]:.2f} on '{self.tokens[top]}' "
            f"(position {top}); {int((~allowed).sum())} future keys blocked"
        )
        self.display.value = (
            f'<div class="attnbook-heads" data-layer="{self.layer.value}" '
            f'data-head="{self.head.value}" data-query="{q}">'
            + heatmap_row_html(self.tokens, weights, allowed, title)
            + bars_html(self.tokens[: q + 1], weights[: q + 1])
            + "</div>"
        )


def head_explorer(
    maps, tokens: Sequence[str], query_word: str = "it", key_word: str = "cup"
) -> HeadExplorer:
    """The head explorer on `maps` (N, h, L, L) of the robot sentence's `tokens`."""
    return HeadExplorer(maps, tokens, query_word, key_word)
