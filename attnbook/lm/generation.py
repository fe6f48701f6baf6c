"""Generation with the reference decoder: sampler, key/value cache, batched decoding, scoring.

Notebook 08 has students write the slow, clear versions; this module is the production path
the notebook's demonstrations, the widgets and the benchmark use. Names differ on purpose
from the graded exercises of notebook 08: the package never holds a student's answer.

- `filtered_distribution`: the next-token distribution after temperature, top-k and top-p,
  renormalised (temperature 0 is the argmax); `draw_tokens` samples from it with an explicit
  `torch.Generator`.
- `KVCache` and `decode_step`: incremental decoding. Each block's keys and values (RoPE
  already applied at their absolute positions) are stored once; a step computes queries,
  keys and values only for the new tokens and attends over everything cached. One token
  per row runs each block's `TransformerBlock.step` on weights the cache packed once.
- `generate_tokens`: batched generation from prompts of different lengths (left padding with
  per-row positions), each row stopping at its own end token, with or without the cache.
- `score_samples`, `quality_diversity_sweep`, `plot_quality_diversity`: judge generated
  emails with the true grammar of the corpus.
- `SamplingWidget`: temperature, top-k and top-p sliders over a next-token distribution.
"""

from __future__ import annotations

import html
import math
import numbers
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import ipywidgets as widgets
import numpy as np
import torch

from attnbook.lm.model import (
    BlockWeights,
    EndWeights,
    KVSlots,
    StepBuffers,
    TransformerBlock,
    TransformerLM,
    _global_hooks,
    _hook_tables,
    qkv_turns,
)
from attnbook.shapes import require_integer, require_number
from attnbook.widgets import LABELS

__all__ = [
    "KVCache",
    "SamplingWidget",
    "decode_step",
    "draw_tokens",
    "filtered_distribution",
    "find_checkpoint",
    "generate_tokens",
    "judge_email",
    "left_pad",
    "plot_quality_diversity",
    "prompt_logits",
    "quality_diversity_sweep",
    "require_sampling",
    "sample_emails",
    "sampling_widget",
    "score_samples",
]


def find_checkpoint(name: str = "email_cpu.pt") -> Path:
    """``assets/checkpoints/<name>`` of the workbook, looked up next to the package, then in the
    current folder and its parents (a notebook runs in its own folder)."""
    here = Path.cwd().resolve()
    roots = [Path(__file__).resolve().parents[2], here, *here.parents]
    for root in roots:
        path = root / "assets" / "checkpoints" / name
        if path.is_file():
            return path
    raise FileNotFoundError(
        f"name: no assets/checkpoints/{name} next to the package or above "
        f"{here}; train one with `python -m attnbook.lm.train --preset cpu`"
    )


# ---------------------------------------------------------------------------------------------
# The sampler
# ---------------------------------------------------------------------------------------------
def require_sampling(temperature, top_k=None, top_p=None) -> None:
    """The sampler's settings, or a ValueError that names the wrong one: temperature a number
    >= 0 (not NaN), top_k None or a whole number >= 0, top_p None or a number in (0, 1]."""
    require_number("temperature", temperature, 0.0)
    if top_k is not None:
        require_integer("top_k", top_k, 0, "(None or 0: no top-k filter)")
    if top_p is not None and not 0.0 < require_number("top_p", top_p) <= 1.0:
        raise ValueError(f"top_p must be None or a number in (0, 1]; got top_p = {top_p!r}")


def filtered_distribution(
    logits: torch.Tensor,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
) -> torch.Tensor:
    """The distribution a sampler draws from, (..., V) from logits (..., V).

    Order: divide the logits by ``temperature``; keep the ``top_k`` largest (every token tied
    with the k-th is kept too); softmax; keep the smallest set of most likely tokens whose
    probability reaches ``top_p`` (the token that crosses ``top_p`` included); renormalise.
    ``temperature == 0`` is the argmax (one-hot on the first maximum). ``top_k`` None or 0 and
    ``top_p`` None or 1 switch their filter off.
    """
    require_sampling(temperature, top_k, top_p)
    logits = torch.as_tensor(logits)
    if not logits.dtype.is_floating_point:
        logits = logits.double()
    if temperature == 0:
        best = logits.argmax(dim=-1, keepdim=True)  # (..., 1)
        return torch.zeros_like(logits).scatter_(-1, best, 1.0)  # (..., V) one-hot
    z = logits / temperature  # (..., V)
    if top_k:
        k = min(int(top_k), z.shape[-1])
        kth = z.topk(k, dim=-1).values[..., -1:]  # (..., 1) the k-th largest scaled logit
        z = z.masked_fill(z < kth, -math.inf)
    probs = torch.softmax(z, dim=-1)  # (..., V)
    if top_p is not None and top_p < 1.0:
        sorted_probs, order = probs.sort(dim=-1, descending=True)  # (..., V) each
        mass_before = sorted_probs.cumsum(dim=-1) - sorted_probs  # (..., V)
        drop_sorted = mass_before >= top_p  # the set already reached p before this token
        drop = torch.zeros_like(drop_sorted).scatter(-1, order, drop_sorted)  # (..., V)
        probs = probs.masked_fill(drop, 0.0)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs


def draw_tokens(
    logits: torch.Tensor,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """One token id per row of ``logits`` (B, V) -> (B,), drawn from `filtered_distribution`.

    Temperature 0 takes the argmax without touching the generator, so greedy decoding does
    not depend on the random state (the settings are checked all the same).
    """
    if temperature == 0:
        require_sampling(temperature, top_k, top_p)  # (filtered_distribution checks the rest)
        return logits.argmax(dim=-1)  # (B,)
    probs = filtered_distribution(logits, temperature, top_k, top_p)  # (B, V)
    return torch.multinomial(probs.float(), 1, generator=generator).squeeze(-1)  # (B,)


# ---------------------------------------------------------------------------------------------
# The key/value cache
# ---------------------------------------------------------------------------------------------
@dataclass
class KVCache:
    """Keys and values of every block for the tokens decoded so far, preallocated.

    ``kv[i]`` (B, 2, h, capacity, d_k) holds block i's keys (``[:, 0]``) and values
    (``[:, 1]``), so one copy stores both; slots ``[0, length)`` are filled.
    ``real`` (B, capacity) is False where a filled slot holds padding (left padding, and the
    padding appended to rows that have finished), so no query ever attends to it.
    ``weights[i]`` is block i's `BlockWeights` and ``ends`` the model's `EndWeights`,
    gathered once. They are the parameters themselves but for the stacked query, key and
    value weights, a copy: a cache belongs to the weights that filled it, and a model
    trained since needs a new cache (`generate_tokens` makes one per call). ``turns``
    holds the RoPE turns of q, k and v at every slot (`qkv_turns`, None without RoPE);
    ``buffers`` the outputs a one-token step writes in place (`StepBuffers`);
    ``hook_tables`` the hook dicts of every module of the model, which a step looks into
    (`_hook_tables`). ``row_positions`` (B,) is each row's absolute position for its next
    token once rows differ; None while every row's next position is ``length`` (no tensor
    per step).
    """

    kv: list[torch.Tensor]
    real: torch.Tensor
    weights: list[BlockWeights]
    ends: EndWeights
    turns: torch.Tensor | None
    buffers: StepBuffers | None
    hook_tables: tuple[dict, ...]
    row_positions: torch.Tensor | None = None
    length: int = 0
    padded: bool = False  # some slot may hold padding: decoding then needs an explicit mask

    @classmethod
    def empty(cls, model: TransformerLM, batch_size: int, capacity: int) -> KVCache:
        config = model.config
        if capacity > config.max_len:
            raise ValueError(
                f"capacity: {capacity} tokens exceed the model's max_len={config.max_len}"
            )
        weight = model.head.weight
        shape = (batch_size, 2, config.n_heads, capacity, config.d_k)
        blocks = cast("list[TransformerBlock]", list(model.blocks))  # a TransformerLM's blocks
        turns = None
        rope = config.positions == "rope"
        with torch.no_grad():
            weights = [block.packed_weights() for block in blocks]
            ends = model.packed_ends()
            if rope:
                turns = qkv_turns(model.rope_cos[:capacity], model.rope_sin[:capacity])
        buffers = None  # where autocast is unknown (the meta device), fresh tensors
        if torch.amp.is_autocast_available(weight.device.type):
            buffers = blocks[0].attn.step_buffers(batch_size, rope, weight)
        return cls(
            kv=[weight.new_zeros(shape) for _ in range(config.n_layers)],
            real=torch.ones(batch_size, capacity, dtype=torch.bool, device=weight.device),
            weights=weights,
            ends=ends,
            turns=turns,
            buffers=buffers,
            hook_tables=_hook_tables(*model.modules()),
        )

    @property
    def capacity(self) -> int:
        return self.real.shape[1]

    @property
    def next_position(self) -> torch.Tensor:
        """Each row's absolute position for its next token, (B,)."""
        if self.row_positions is not None:
            return self.row_positions
        return torch.full((self.real.shape[0],), self.length, device=self.real.device)


def decode_step(
    model: TransformerLM,
    ids: torch.Tensor,
    cache: KVCache,
    positions: torch.Tensor | None = None,
    real: torch.Tensor | None = None,
) -> torch.Tensor:
    """Feed ``ids`` (B, T) after the cached tokens; returns their logits (B, T, V).

    ``positions`` (B, T) are the tokens' absolute positions (default: each row's
    ``next_position`` onwards); ``real`` (B, T) is False on padding (None: every token is
    real). The new keys and values are written into ``cache``, which then covers T more
    tokens. The first call (T = the prompt length) is the prefill; later calls usually feed
    one token per row. The model's own blocks do the work, with the cache passed in.

    One token per row on an unpadded cache is the fast path: no mask, no position tensor,
    the RoPE turn read from the cache, no device sync, and, when no module carries a hook,
    each block's `forward` called directly on the cache's packed weights (`KVSlots.weights`,
    `TransformerBlock.step`) rather than through its submodules.
    """
    config = model.config
    if not config.causal:
        raise ValueError("model: a cache needs a causal model (config.causal is False)")
    if model.training:
        raise ValueError("model: call model.eval() first; decoding never uses dropout")
    B, T = ids.shape
    start, end = cache.length, cache.length + T
    if end > cache.capacity:
        raise ValueError(
            f"ids: {T} more tokens overflow the cache ({start} of {cache.capacity} slots used)"
        )
    if (
        T == 1
        and positions is None
        and real is None
        and cache.row_positions is None
        and not cache.padded
        and not any(cache.hook_tables)
        and not _global_hooks()
    ):
        return _one_token_step(model, ids, cache)
    device = ids.device
    where: torch.Tensor | int = start  # every row's positions are start .. end - 1
    if positions is not None:
        where = positions
    elif cache.row_positions is not None:
        where = cache.row_positions[:, None] + torch.arange(T, device=device)  # (B, T)
    if isinstance(where, torch.Tensor):
        cache.row_positions = where[:, -1] + 1  # (B,)
    if real is not None:
        cache.real[:, start:end] = real
        cache.padded = True

    allowed = live_rows = None
    causal = start == 0  # a prefill is SDPA's causal triangle; one new token reads every key
    if cache.padded or (start > 0 and T > 1):
        # allowed[b, 0, i, j]: new query i may read cached key j (real, not in its future).
        key_real = cache.real[:, None, None, :end]  # (B, 1, 1, end)
        steps = torch.arange(start, end, device=device)  # (T,)
        not_future = torch.arange(end, device=device)[None, :] <= steps[:, None]  # (T, end)
        allowed = key_real & not_future  # (B, 1, T, end)
        live_rows = allowed.any(dim=-1, keepdim=True)  # (B, 1, T, 1)
        allowed = allowed | ~live_rows  # an empty row is opened here and zeroed by `attend`

    h, rope = model.inputs(ids, where)  # (B, T, d)
    for block, kv, weights in zip(model.blocks, cache.kv, cache.weights):
        slots = KVSlots(kv, start, end, weights.projection)
        h = block(h, rope, allowed, live_rows, slots, causal)
    cache.length = end
    return model.logits(h)  # (B, T, V)


_decode_step = decode_step  # without the no_grad context, for callers already in one
decode_step = torch.no_grad()(decode_step)


def _one_token_step(model: TransformerLM, ids: torch.Tensor, cache: KVCache) -> torch.Tensor:
    """`_decode_step` of one token per row (B, 1) at position ``cache.length`` of every row,
    no module hooked: each block's `forward` is called directly (not through
    `nn.Module.__call__`) with its packed weights, which send it down `TransformerBlock.step`.
    """
    start = cache.length
    h = model.inputs(ids, start, cache.ends)[0].view(ids.shape[0], -1)  # (B, d): one row each
    turn = None if cache.turns is None else cache.turns[start]  # (3, 1, 1, 1, d_k/2)
    # Autocast picks each product's dtype, which a buffer written with out= would not follow.
    buffers = cache.buffers
    if buffers is not None and torch.is_autocast_enabled(ids.device.type):
        buffers = None
    for block, kv, weights in zip(model.blocks, cache.kv, cache.weights):
        slots = KVSlots(kv, start, start + 1, None, weights, turn, buffers)
        h = block.forward(h, cache=slots)
    cache.length = start + 1
    return model.logits(h, cache.ends)[:, None]  # (B, 1, V)


# ---------------------------------------------------------------------------------------------
# Batched generation
# ---------------------------------------------------------------------------------------------
def left_pad(
    prompts: Sequence[Sequence[int]] | torch.Tensor, pad_id: int = 0, device=None
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(ids, real, positions)``, each (B, L): prompts right-aligned, padding on the left.

    Each row's real tokens get positions 0, 1, ... from its own first token, so a padded
    prompt is seen exactly as it would be alone; padding gets position 0 and is never read.
    """
    if isinstance(prompts, torch.Tensor):
        if prompts.dim() != 2:
            raise ValueError(f"prompts: expected a (B, L) tensor, got shape {tuple(prompts.shape)}")
        prompts = prompts.tolist()
    prompts = [[_token_id(t, "prompts") for t in p] for p in prompts]
    if not prompts or min(len(p) for p in prompts) == 0:
        raise ValueError("prompts: expected at least one prompt, each with at least one token")
    L = max(len(p) for p in prompts)
    ids = torch.full((len(prompts), L), pad_id, dtype=torch.long)  # (B, L)
    for row, p in enumerate(prompts):
        ids[row, L - len(p) :] = torch.tensor(p)
    lengths = torch.tensor([len(p) for p in prompts])  # (B,)
    real = torch.arange(L)[None, :] >= (L - lengths)[:, None]  # (B, L)
    positions = (torch.arange(L)[None, :] - (L - lengths)[:, None]).clamp(min=0)  # (B, L)
    return ids.to(device), real.to(device), positions.to(device)


def _token_id(value: object, name: str, vocab_size: int | None = None) -> int:
    """``value`` as a token id: an integer (a Python or numpy one, or a 0-d integer tensor),
    not a float or a bool, and in [0, vocab_size) when that is given; else a ValueError
    naming ``name``."""
    try:
        if isinstance(value, bool):
            raise TypeError
        token = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError(f"{name}: expected an integer token id, got {value!r}") from None
    if vocab_size is not None and not 0 <= token < vocab_size:
        raise ValueError(
            f"{name}: expected a token id in [0, {vocab_size - 1}] "
            f"(vocab_size={vocab_size}), got {token}"
        )
    return token


def _check_ids(rows: list[list[int]], vocab_size: int) -> None:
    for row in rows:
        if row and (min(row) < 0 or max(row) >= vocab_size):
            raise ValueError(
                f"prompts: token ids must lie in [0, {vocab_size - 1}] "
                f"(vocab_size={vocab_size}), got {row}"
            )


@torch.inference_mode()  # returns plain lists: no autograd bookkeeping on any tensor here
def generate_tokens(
    model: TransformerLM,
    prompts: Sequence[Sequence[int]] | torch.Tensor,
    max_new_tokens: int,
    eos_id: int | None,
    pad_id: int = 0,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    generator: torch.Generator | None = None,
    use_cache: bool = True,
) -> list[list[int]]:
    """Continue every prompt; returns each prompt followed by its new tokens (a list per row).

    A row stops after it emits ``eos_id`` (kept in its output) or after ``max_new_tokens``;
    ``eos_id=None`` never stops early. Prompts may differ in length: they are left-padded and
    each row keeps its own positions, so a row's result does not depend on its batch-mates
    (up to float rounding). ``use_cache=False`` reruns the whole sequence at every step: the
    slow path the cache must agree with, token for token.
    """
    n = max_new_tokens
    if not isinstance(n, numbers.Integral) or isinstance(n, bool) or n < 0:
        raise ValueError(f"max_new_tokens: expected an int >= 0, got {n!r}")
    vocab_size = model.config.vocab_size
    if eos_id is not None:
        _token_id(eos_id, "eos_id", vocab_size)
    _token_id(pad_id, "pad_id", vocab_size)
    model.eval()
    device = model.head.weight.device
    ids, real, positions = left_pad(prompts, pad_id, device)  # (B, L) each
    B, L = ids.shape
    if L + max_new_tokens > model.config.max_len:
        raise ValueError(
            f"max_new_tokens: {L} prompt tokens + {max_new_tokens} new ones "
            f"exceed the model's max_len={model.config.max_len}"
        )
    outputs = [  # ints: `left_pad` has refused anything else
        list(map(int, p))
        for p in (prompts.tolist() if isinstance(prompts, torch.Tensor) else prompts)
    ]
    _check_ids(outputs, vocab_size)  # here, so the model needs no device sync
    live = [True] * B  # rows that have not emitted eos_id yet
    padded = len({len(row) for row in outputs}) > 1  # left padding: from the lengths
    if use_cache:
        cache = KVCache.empty(model, B, L + max_new_tokens)
        # Unpadded rows share positions 0 .. L-1, which the cache then tracks as a number.
        logits = _decode_step(model, ids, cache, *((positions, real) if padded else ()))[:, -1]
    next_position = positions[:, -1:]  # (B, 1)
    for step in range(max_new_tokens):
        if not use_cache:
            logits = model(ids, key_padding_mask=real if padded else None, positions=positions)[
                :, -1
            ]  # (B, V)
        new = draw_tokens(logits, temperature, top_k, top_p, generator)  # (B,)
        was_live = list(live)
        if not all(was_live):  # finished rows are fed padding
            new = new.masked_fill(~torch.tensor(was_live, device=device), pad_id)
        for row, token in enumerate(new.tolist()):  # one sync per step: the tokens themselves
            if was_live[row]:
                outputs[row].append(token)
                live[row] = token != eos_id
        if not any(live) or step == max_new_tokens - 1:
            break
        real_new = None if all(was_live) else torch.tensor(was_live, device=device)[:, None]
        if use_cache:  # the cache knows each row's next position
            logits = _decode_step(model, new[:, None], cache, None, real_new)[:, -1]
        else:
            next_position = next_position + 1  # (B, 1)
            ids = torch.cat((ids, new[:, None]), dim=1)  # (B, L + step + 1)
            real = torch.cat((real, torch.tensor(was_live, device=device)[:, None]), dim=1)
            padded = padded or real_new is not None
            positions = torch.cat((positions, next_position), dim=1)
    return outputs


@torch.no_grad()
def prompt_logits(model: TransformerLM, prompt_ids: Sequence[int]) -> torch.Tensor:
    """Next-token logits (V,) after one prompt (a list of ids starting with <BOS>)."""
    model.eval()
    ids = torch.as_tensor(list(prompt_ids), dtype=torch.long, device=model.head.weight.device)[
        None
    ]  # (1, L)
    return model(ids)[0, -1]  # (V,)


# ---------------------------------------------------------------------------------------------
# Judging samples with the true grammar
# ---------------------------------------------------------------------------------------------
def score_samples(grammar, tokenizer, sequences: Sequence[Sequence[int]]) -> dict:
    """How good and how varied generated emails are, judged by the grammar that made the data.

    ``sequences``: token ids, each ``<BOS> ... <EOS>`` (one without ``<EOS>`` was cut off by
    the length limit and counts as invalid). Returns ``valid`` (fraction the grammar can
    produce), ``mean_log_prob`` (mean true log-probability per token, end token counted,
    over the valid ones; nan if none), ``distinct`` (fraction of distinct emails) and
    ``n``.
    """
    valid, total_log_p, total_tokens, texts = 0, 0.0, 0, []
    for seq in sequences:
        seq = [int(t) for t in seq]
        body = seq[1:] if seq and seq[0] == tokenizer.bos_id else seq
        complete = bool(body) and body[-1] == tokenizer.eos_id
        words = tokenizer.decode(body[:-1] if complete else body).split()
        texts.append(" ".join(words) + (" <EOS>" if complete else " ..."))
        if not complete or tokenizer.pad_id in body or tokenizer.bos_id in body:
            continue
        log_p = grammar.log_prob(words)
        if log_p > -math.inf:
            valid += 1
            total_log_p += log_p
            total_tokens += len(words) + 1
    n = len(sequences)
    return {
        "n": n,
        "valid": valid / n if n else math.nan,
        "mean_log_prob": total_log_p / total_tokens if total_tokens else math.nan,
        "distinct": len(set(texts)) / n if n else math.nan,
    }


def judge_email(grammar, tokenizer, ids: Sequence[int]) -> dict:
    """One generated email (token ids, ``<BOS> ... <EOS>``) judged by the true grammar.

    Returns ``text`` (the words, ``" ..."`` appended when the length limit cut it off),
    ``complete`` (it ended with ``<EOS>``), ``valid`` (the grammar can make it), ``reason``
    (why not, "" when valid), ``n_tokens`` (words + the end token) and ``log_prob_per_token``
    (the grammar's log-probability over ``n_tokens``; -inf when invalid).
    """
    seq = [int(t) for t in ids]
    body = seq[1:] if seq and seq[0] == tokenizer.bos_id else seq
    complete = bool(body) and body[-1] == tokenizer.eos_id
    words = tokenizer.decode(body[:-1] if complete else body).split()
    if not complete:
        reason = "cut off by the length limit before <EOS>"
    elif tokenizer.pad_id in body or tokenizer.bos_id in body:
        reason = "a special token inside the email"
    else:
        reason = grammar.explain(words)
    log_p = grammar.log_prob(words) if not reason else -math.inf
    return {
        "text": " ".join(words) + ("" if complete else " ..."),
        "complete": complete,
        "valid": not reason,
        "reason": reason,
        "n_tokens": len(words) + 1,
        "log_prob_per_token": log_p / (len(words) + 1),
    }


def sample_emails(
    model: TransformerLM,
    tokenizer,
    grammar,
    count: int = 10,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    seed: int = 0,
    max_new_tokens: int | None = None,
) -> list[dict]:
    """Draw ``count`` whole emails from ``<BOS>`` and judge each with `judge_email`.

    Seeded: the same call gives the same emails. ``max_new_tokens`` defaults to what the
    model's ``max_len`` allows.
    """
    if count < 1:
        raise ValueError(f"count: expected an int >= 1, got {count}")
    filtered_distribution(torch.zeros(1), temperature, top_k, top_p)  # checks the knobs
    limit = model.config.max_len - 1
    max_new_tokens = limit if max_new_tokens is None else max_new_tokens
    if not 1 <= max_new_tokens <= limit:
        raise ValueError(
            f"max_new_tokens: expected 1 to {limit} (the model's max_len - 1), got {max_new_tokens}"
        )
    generator = torch.Generator(device=model.head.weight.device).manual_seed(seed)
    samples = generate_tokens(model, [[tokenizer.bos_id]] * count, max_new_tokens,
                              tokenizer.eos_id, tokenizer.pad_id, temperature, top_k, top_p,
                              generator)  # fmt: skip
    return [judge_email(grammar, tokenizer, ids) for ids in samples]


def quality_diversity_sweep(
    model: TransformerLM,
    tokenizer,
    grammar,
    temperatures: Sequence[float] = (0.0, 0.5, 1.0, 1.5, 2.0),
    top_ps: Sequence[float] = (0.5, 0.8, 0.9, 0.95, 1.0),
    n_samples: int = 200,
    max_new_tokens: int = 70,
    seed: int = 0,
) -> list[dict]:
    """Sample ``n_samples`` whole emails from ``<BOS>`` per setting and score them.

    One row per temperature (top-p off) and per top-p (temperature 1): the setting, then the
    `score_samples` figures. Seeded: the same call gives the same rows.
    """
    max_new_tokens = min(max_new_tokens, model.config.max_len - 1)
    settings: list[tuple[str, float, dict[str, Any]]]
    settings = [("temperature", t, dict(temperature=t)) for t in temperatures]
    settings += [("top_p", p, dict(temperature=1.0, top_p=p)) for p in top_ps]
    rows = []
    for knob, value, kwargs in settings:
        generator = torch.Generator(device=model.head.weight.device).manual_seed(seed)
        samples = generate_tokens(
            model,
            [[tokenizer.bos_id]] * n_samples,
            max_new_tokens,
            tokenizer.eos_id,
            tokenizer.pad_id,
            generator=generator,
            **kwargs,
        )
        rows.append(
            {"knob": knob, "value": float(value), **score_samples(grammar, tokenizer, samples)}
        )
    return rows


def plot_quality_diversity(rows: Sequence[dict], floor: float | None = None):
    """Quality (valid fraction, true log-probability) and diversity against each knob.

    Two panels: temperature (top-p off) and top-p (temperature 1). ``floor``: minus the
    corpus entropy per token, drawn as the mean log-probability of the grammar's own emails.
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), sharey=True)
    log_ps = [r["mean_log_prob"] for r in rows if not math.isnan(r["mean_log_prob"])]
    log_ps += [floor] if floor is not None else []
    pad = 0.05 * (max(log_ps) - min(log_ps) or 1.0) if log_ps else 0.1
    for ax, knob, label in zip(axes, ("temperature", "top_p"), ("temperature", "top-p")):
        mine = [r for r in rows if r["knob"] == knob]
        x = [r["value"] for r in mine]
        ax.plot(x, [r["valid"] for r in mine], "o-", label="valid emails (fraction)")
        ax.plot(x, [r["distinct"] for r in mine], "s--", label="distinct emails (fraction)")
        ax.set_xlabel(label)
        ax.set_title(f"Quality and diversity against {label}")
        twin = ax.twinx()
        twin.plot(
            x,
            [r["mean_log_prob"] for r in mine],
            "^:",
            color="tab:red",
            label="true log-probability per token (right axis)",
        )
        if floor is not None:
            twin.axhline(
                floor, color="tab:red", alpha=0.3, label="the grammar's own emails (right axis)"
            )
        if log_ps:
            twin.set_ylim(min(log_ps) - pad, max(log_ps) + pad)
        twin.set_ylabel("true log-probability per token (nats)")
    axes[0].set_ylabel("fraction of samples")
    axes[0].set_ylim(-0.02, 1.02)
    handles = axes[0].get_lines() + twin.get_lines()
    fig.legend(
        handles,
        [h.get_label() for h in handles],
        loc="lower center",
        ncol=2,
        fontsize=8,
        frameon=False,
    )
    fig.tight_layout(rect=(0, 0.14, 1, 1))
    return fig


# ---------------------------------------------------------------------------------------------
# The sampling widget
# ---------------------------------------------------------------------------------------------
class SamplingWidget(widgets.VBox):
    """Temperature, top-k and top-p sliders over one next-token distribution.

    Shows the ``n_show`` most likely tokens of the model (temperature 1, no filter), each
    with its probability before filtering and after: removed tokens are greyed out at 0,
    kept ones show their renormalised probability. The display is HTML in ``self.display``;
    each row carries ``data-label``, ``data-before``, ``data-value`` (after) and
    ``data-kept``.
    """

    def __init__(
        self,
        logits,
        labels: Sequence[str],
        prompt: str = "",
        n_show: int = 12,
        true_probs: dict[str, float] | None = None,
    ):
        self.logits = torch.as_tensor(logits, dtype=torch.float64).flatten()  # (V,)
        if len(labels) != self.logits.numel():
            raise ValueError(
                f"labels: expected {self.logits.numel()} labels, one per logit, got {len(labels)}"
            )
        self.labels = list(labels)
        self.prompt = prompt
        self.true_probs = true_probs or {}
        self.shown = self.logits.argsort(descending=True)[:n_show].tolist()
        V = self.logits.numel()
        self.temperature = widgets.FloatSlider(
            value=1.0, min=0.0, max=3.0, step=0.05, description="temperature", style=LABELS
        )
        self.top_k = widgets.IntSlider(
            value=0, min=0, max=V, description="top-k (0 off)", style=LABELS
        )
        self.top_p = widgets.FloatSlider(
            value=1.0, min=0.05, max=1.0, step=0.05, description="top-p", style=LABELS
        )
        self.display = widgets.HTML()
        for control in (self.temperature, self.top_k, self.top_p):
            control.observe(self._redraw, names="value")
        super().__init__([self.temperature, self.top_k, self.top_p, self.display])
        self._redraw()

    def before(self) -> np.ndarray:
        """The model's distribution at temperature 1 with no filter, (V,)."""
        return torch.softmax(self.logits, dim=-1).numpy()

    def distribution(self) -> np.ndarray:
        """The distribution the current sliders sample from, (V,)."""
        return filtered_distribution(
            self.logits, self.temperature.value, self.top_k.value or None, self.top_p.value
        ).numpy()

    def _redraw(self, _change=None) -> None:
        before, after = self.before(), self.distribution()
        kept = after > 0
        rows = []
        for i in self.shown:
            label = html.escape(self.labels[i])
            width = 100 * float(after[i])
            truth = self.true_probs.get(self.labels[i])
            truth_text = f" (grammar {truth:.3f})" if truth is not None else ""
            color = "#3b6fb6" if kept[i] else "#bbbbbb"
            rows.append(
                f'<div class="attnbook-bar" data-label="{label}" data-before="{before[i]:.6f}" '
                f'data-value="{after[i]:.6f}" data-kept="{str(bool(kept[i])).lower()}" '
                f'style="display:flex;align-items:center;gap:6px">'
                f'<span style="width:7em;text-align:right">{label}</span>'
                f'<span style="width:9em;color:#777">{before[i]:.3f} &rarr;</span>'
                f'<span style="display:inline-block;height:14px;width:{width:.1f}%;'
                f'max-width:50%;background:{color}"></span>'
                f"<span>{after[i]:.3f}{truth_text}</span></div>"
            )
        title = (
            f"next token after &laquo;{html.escape(self.prompt)}&raquo;: "
            f"{int(kept.sum())} of {kept.size} tokens kept, holding "
            f"{float(before[kept].sum()):.3f} of the original probability"
        )
        self.display.value = (
            f'<div class="attnbook-bars" data-kept-count="{int(kept.sum())}">'
            f"<b>{title}</b>{''.join(rows)}</div>"
        )


def sampling_widget(
    model: TransformerLM, tokenizer, prompt: str = "please send the", grammar=None, n_show: int = 12
) -> SamplingWidget:
    """The widget over ``model``'s next-token distribution after ``<BOS> prompt``.

    With ``grammar``, each shown word also carries its true probability.
    """
    logits = prompt_logits(model, tokenizer.encode(prompt, add_eos=False))
    truth = None
    if grammar is not None:
        truth = grammar.next_word_probs(prompt)  # the end token is "<EOS>" in both
    return SamplingWidget(logits, tokenizer.id_to_token, prompt, n_show, truth)
