"""Checks for notebook 08, generation: sequence_log_prob, next_token_probs, sample_next,
generate, perplexity.

Visible use: `check_generate(generate)` runs worked examples and properties on small models
whose answers are known (a model that ignores its input, a model that is a lookup table).
Hidden use: `check_generate(generate, reference=ref.generate)` also compares with the
autograder's reference on random models, shapes and seeds.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import torch

from attnbook.checks._cases import Case, Slips, run_cases, run_table, run_trials, trial_rng
from attnbook.checks._core import CheckRun, as_array, describe, hidden_range
from attnbook.checks._lm import (
    TOL,
    bias_model,
    ids,
    mean_nll,
    pad3_batches,
    padded_ids,
    worked_batches,
)
from attnbook.lm.generation import filtered_distribution, generate_tokens
from attnbook.lm.model import LMConfig, TransformerBlock, TransformerLM
from attnbook.tolerance import Tolerance

__all__ = [
    "check_generate",
    "check_next_token_probs",
    "check_perplexity",
    "check_sample_next",
    "check_sequence_log_prob",
]

KNOWN = Slips("nb08")


HINT_CRASH_LOG_PROB = (
    "score prompt and continuation in one pass: their ids joined into a "
    "batch of one are (1, L) and model(ids) is (1, L, V); take every length "
    "from the arguments (len(prompt_ids), len(continuation_ids))"
)
HINT_CRASH_PROBS = (
    "work along the last axis for any leading shape: keep that axis in reductions (torch.topk(z, "
    "k, dim=-1).values[..., -1:], sum(dim=-1, keepdim=True)) so the result broadcasts against "
    "every row; top_k None or 0 means no top-k filter"
)
HINT_CRASH_SAMPLE = (
    "call next_token_probs(logits, temperature, top_k, top_p) with the arguments in that order, "
    "flatten the leading axes to (N, V) for torch.multinomial and reshape the draws back"
)
HINT_FINISHED_BOOL = "keep finished a bool tensor (torch.zeros(B, dtype=torch.bool)): a condition"
HINT_CRASH_GENERATE = (
    "the next-token logits are model(ids)[:, -1], shape (B, V); take B from "
    "prompt_ids.shape[0], never from the worked example; pass temperature, "
    "top_k, top_p and generator to sample_next in that order"
)


# ---------------------------------------------------------------------------------------
# Small models whose behaviour is known
# ---------------------------------------------------------------------------------------
def sharp_model(
    seed: int, vocab_size: int = 13, positions: str = "rope", max_len: int = 32
) -> TransformerLM:
    """A random decoder with large weights, so its next-token choices are well separated;
    drawn from `seed` without touching the global random state (the checks make some when
    they are imported)."""
    config = LMConfig(
        vocab_size=vocab_size, d_model=32, n_heads=4, n_layers=2, max_len=max_len,
        positions=positions,
    )  # fmt: skip
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = TransformerLM(config).eval()
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() > 1:
                p.mul_(12.0)
    return model


def table_model(next_of: dict[int, int], vocab_size: int = 13) -> TransformerLM:
    """A decoder whose (near-certain) next token depends only on the last: ``next_of[t]``."""
    config = LMConfig(
        vocab_size=vocab_size, d_model=32, n_heads=4, n_layers=1, max_len=32, positions="none"
    )
    with torch.random.fork_rng(devices=[]):  # every weight is set below
        model = TransformerLM(config).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
        block = model.blocks[0]
        assert isinstance(block, TransformerBlock)
        for ln in (block.ln1, block.ln2, model.ln_final):
            ln.weight.fill_(1.0)
        model.embed.weight.copy_(torch.eye(vocab_size, 32) * 10.0)
        table = torch.zeros(vocab_size, 32)
        for token in range(vocab_size):
            table[next_of[token], token] = 1.0
        model.head.weight.copy_(table * 10.0)  # logit of next_of[t] about 55 above the rest
    return model


HINT_LOG_PROB_SCALAR = "return a scalar: a 0-d tensor (tensor.sum()) or a Python float"


# ---------------------------------------------------------------------------------------
# sequence_log_prob
# ---------------------------------------------------------------------------------------
HINT_SHIFT = (
    "the logits at position t predict token t + 1: continuation token l is scored "
    "by the row of the token just BEFORE it (the last prompt token for the first one)"
)


def _chain_rule(model, prompt, continuation) -> float:
    """sum_l log p(w_l | prompt, w_<l), one forward pass per prefix: the definition."""
    total, prefix = 0.0, list(prompt)
    with torch.no_grad():
        for token in continuation:
            logits = model(ids([prefix]))[0, -1]  # (V,)
            total += float(torch.log_softmax(logits.double(), -1)[token])
            prefix.append(token)
    return total


HINT_LOG_PROB_VALUES = "sum log p(w_l | prompt, w_<l) over the continuation tokens"
HINT_LOG_SOFTMAX = ("take torch.log_softmax of the logits: a probability of e^-200 is 0 "
                    "in float32, so log(softmax), or the log of a product, is -inf")  # fmt: skip
HINT_PROMPT_OFFSET = (
    "the prompt has L_p = {L_p} tokens: continuation token l is scored by the "
    "log_softmax row at position L_p - 1 + l of the whole sequence, and every "
    "continuation token is scored (a sum)"
)  # L_p: the prompt's length


def _not_positive(run: CheckRun, case: Case, seen) -> None:
    run.expect_true(seen <= 1e-6, f"{case.call} returned {seen}, above 0: a log-probability is "
                    "never positive.")  # fmt: skip


def _log_prob_case(
    case_id: str, call: str, model, prompt, continuation, expect, hint, what="log-probability"
) -> Case:
    return Case(case_id, call, (model, ids(prompt), ids(continuation)), expect=expect,
                hint=hint, scalar=True, shape_hint=HINT_LOG_PROB_SCALAR, what=what,
                then=_not_positive)  # fmt: skip


_LOG_PROB = "sequence_log_prob"


def _sharp_case(seed: int, prompt: list, continuation: list) -> Case:
    model = sharp_model(seed)
    return _log_prob_case(
        f"seed {seed}",
        f"sequence_log_prob(model, {prompt}, {continuation}) on a random decoder (seed {seed})",
        model, prompt, continuation, _chain_rule(model, prompt, continuation),
        HINT_PROMPT_OFFSET.format(L_p=len(prompt)),
        what="log-probability (checked against one forward pass per prefix)",
    )  # fmt: skip


# A model that ignores its input with p = (0.1, 0.2, 0.3, 0.4): log p(3, 3, 2 | <BOS>) is
# log 0.4 + log 0.4 + log 0.3. The logits carry an extra +1 so raw logits are wrong.
LOG_PROB_CASES = (
    _log_prob_case("fixed p", "sequence_log_prob(model, [1], [3, 3, 2]) for a model with fixed "
                   "p = (.1, .2, .3, .4)", bias_model(torch.tensor([0.1, 0.2, 0.3, 0.4]).log() + 1),
                   [1], [3, 3, 2], math.log(0.4) + math.log(0.4) + math.log(0.3),
                   HINT_LOG_PROB_VALUES),
    _log_prob_case("improbable", "sequence_log_prob(model, [1], [3, 2]) for a model whose logit "
                   "for 3 is 200 below the others'", bias_model(torch.tensor([0, 0, 0, -2e2])),
                   [1], [3, 2], -200 - 2 * math.log(3 + math.exp(-200)), HINT_LOG_SOFTMAX),
    _sharp_case(0, [1, 5, 6], [7, 8, 2]),
    _sharp_case(1, [1], [2]),
    _sharp_case(2, [1, 4, 4, 9, 3, 5], [11]),
    Case("prompt 2-D", "sequence_log_prob with prompt_ids of shape (1, 3)",
         (sharp_model(0), ids([[1, 5, 6]]), ids([7])), raises=ValueError,
         mentions=("prompt_ids", "(1, 3)")),
)  # fmt: skip


def _log_prob_trial(rng: np.random.Generator, seed: int) -> Case:
    """A random decoder (positions by the seed), prompt and continuation; the reference's
    value."""
    positions = ["rope", "learned", "sinusoidal", "none"][seed % 4]
    model = sharp_model(int(rng.integers(2**31)), positions=positions)
    L_p, L_c = int(rng.integers(1, 8)), int(rng.integers(1, 8))
    prompt = [1, *rng.integers(3, 13, size=L_p - 1).tolist()]
    continuation = rng.integers(2, 13, size=L_c).tolist()
    call = (f"sequence_log_prob on a random {positions} decoder, prompt {prompt}, continuation "
            f"{continuation} (seed {seed})")  # fmt: skip
    return _log_prob_case("trial", call, model, prompt, continuation, None, None)


def check_sequence_log_prob(sequence_log_prob, reference=None, trials: int = 8) -> None:
    """log p(continuation | prompt) by the chain rule: a model with fixed probabilities and
    three random decoders (the table `LOG_PROB_CASES`), then random trials against the
    reference."""
    run_table(CheckRun(sequence_log_prob, crash_hint=HINT_CRASH_LOG_PROB), _LOG_PROB,
              LOG_PROB_CASES, KNOWN, reference, trials, _log_prob_trial)  # fmt: skip


# ---------------------------------------------------------------------------------------
# next_token_probs
# ---------------------------------------------------------------------------------------
# The worked example: four tokens, in vocabulary order, with probabilities 0.15, 0.5, 0.1,
# 0.25 (sorted: 0.5, 0.25, 0.15, 0.1; cumulative 0.5, 0.75, 0.9, 1.0).
WORKED_PROBS = torch.tensor([0.15, 0.5, 0.1, 0.25], dtype=torch.float64)
WORKED_LOGITS = WORKED_PROBS.log()
HINT_CROSSING = (
    "keep the token that crosses p: a token stays when the probability of the "
    "likelier tokens before it is still below p"
)
HINT_RENORMALISE = "renormalise so that the kept probabilities sum to 1"


HINT_PROBS_SHAPE = "one probability per token: the shape of logits"


HINT_PROBS_IN_PLACE = "work on new tensors (z = ... builds one), not in place"
HINT_TOP_P_KEEPS_ONE = "top-p must keep at least the most likely token: " + HINT_CROSSING
HINT_TEMPERATURE_ZERO = "temperature 0 means argmax: return a one-hot vector, do not divide by 0"
HINT_TOP_K_TIES = "keep the tokens whose logit is at least the k-th largest"
HINT_TOP_P_REACHED = ("keep the SMALLEST set that reaches p: a token whose likelier tokens already "
                      "sum to exactly p is dropped (drop it when before >= top_p)")  # fmt: skip
HINT_ONE_HOT = "temperature 0: a one-hot vector on a most likely token"
HINT_FILTER_ALONG_LAST_AXIS = "filter along the last axis (dim=-1), whatever the leading axes"
HINT_FILTER_ROWS = "filter along the last axis, each row on its own"
HINT_OVERFLOW = ("the third row's logits are near 1000: exp(z) overflows to inf, and inf / inf is "
                 "NaN; subtract each row's maximum before exp (torch.softmax does)")  # fmt: skip
HINT_TOP_P_ONE = ("top_p = 1.0, like None, switches the filter off: in float32 the "
                  "running sum reaches 1.0 before the last tokens, which must stay")  # fmt: skip


_PROBS = "next_token_probs"
_F64 = torch.float64
_ARGMAX = torch.tensor([0, 1.0, 0, 0], dtype=_F64)
_TWO = torch.tensor([0, 2 / 3, 0, 1 / 3], dtype=_F64)
_TOP3 = torch.tensor([0.15, 0.5, 0, 0.25], dtype=_F64) / 0.9  # the three likeliest tokens
_SIX = torch.tensor([2.0, 5.0, 0.0, 4.0, 1.0, 3.0], dtype=_F64)  # top-k = 2: k + 1 != V - k + 1
_FLAT = WORKED_PROBS.sqrt() / WORKED_PROBS.sqrt().sum()  # temperature 2
_FLAT_TOP3 = _FLAT.masked_fill(_FLAT == _FLAT.min(), 0.0) / _FLAT[_FLAT > _FLAT.min()].sum()


def _sums_to_one(run: CheckRun, case: Case, seen) -> None:
    seen = as_array(seen)
    run.expect_true(bool(np.allclose(seen.sum(-1), 1.0) and np.all(seen >= 0)), f"{case.call}: "
                    f"every distribution must be non-negative and sum to 1; sums {seen.sum(-1)}",
                    hint=HINT_RENORMALISE)  # fmt: skip


def _probs_case(case_id: str, call: str, logits, temperature, top_k, top_p, expect=None,
                hint=None, probe=None, finite=None) -> Case:  # fmt: skip
    if expect is None and probe is None:
        expect = filtered_distribution(logits, temperature, top_k, top_p)
    return Case(case_id, call, (logits, temperature, top_k, top_p), expect=expect,
                shape=tuple(logits.shape), shape_hint=HINT_PROBS_SHAPE, hint=hint,
                finite=finite or hint or True, scale_free=True, what="probabilities", probe=probe,
                then=_sums_to_one)  # fmt: skip


def _worked(temperature, top_k, top_p, expect, what: str) -> Case:
    hint = (HINT_TEMPERATURE_ZERO if temperature == 0
            else HINT_TOP_P_KEEPS_ONE if top_p is not None and top_p < 0.5 else None)  # fmt: skip
    call = (f"next_token_probs(logits, temperature={temperature}, top_k={top_k}, top_p={top_p}) "
            f"with probabilities (0.15, 0.5, 0.1, 0.25) [{what}]")  # fmt: skip
    return _probs_case(f"T={temperature} k={top_k} p={top_p}", call, WORKED_LOGITS, temperature,
                       top_k, top_p, expect=expect, hint=hint)  # fmt: skip


def _one_of(*options):
    """A probe: the output is one of `options` (ties may be broken either way)."""

    def probe(run: CheckRun, case: Case, seen, expected, slips) -> None:
        seen_arr = as_array(seen)
        ok = any(seen_arr.shape == as_array(o).shape and np.allclose(seen_arr, as_array(o), **TOL)
                 for o in options)  # fmt: skip
        run.expect_true(ok, f"{case.call} returned {describe(seen_arr)}\n  expected one of "
                        + "; ".join(describe(o) for o in options), hint=case.hint)  # fmt: skip

    return probe


_P = WORKED_PROBS
_tie_k = torch.tensor([2.0, 1.0, 1.0, 0.0], dtype=_F64)
_tie_k_options = [_tie_k.exp() * torch.tensor(m, dtype=_F64)
                  for m in ([1, 1, 1, 0], [1, 1, 0, 0], [1, 0, 1, 0])]  # fmt: skip
_tie_max = torch.tensor([1.0, 3.0, 3.0, 0.0], dtype=_F64)
_Z = WORKED_LOGITS
_leading = torch.stack((torch.stack((_Z, _Z.flip(0))), torch.stack((_Z.roll(1), 2 * _Z))))
_batch = torch.stack((_Z, _Z.flip(0), 1000.0 + _Z))  # (3, 4): large logits must not overflow
_EXACT = torch.tensor([0.5, 0.25, 0.25], dtype=_F64).log()  # exact softmax and sums
_WIDE = torch.randn(1000, generator=torch.Generator().manual_seed(8)) * 5  # float32


def _keeps_every_token(run: CheckRun, case: Case, seen, expected, slips) -> None:
    """top_p = 1: the softmax itself, no token above 1e-30 set to 0."""
    seen, softmax = as_array(seen), torch.softmax(_WIDE.double(), -1).numpy()
    gone = int(((seen <= 0) & (softmax > 1e-30)).sum())
    run.expect_true(gone == 0 and np.allclose(seen, softmax, **TOL), f"{case.call}: {gone} "
                    "tokens of probability above 1e-30 set to 0", hint=case.hint)  # fmt: skip


PROBS_CASES = (
    _worked(1.0, None, None, _P, "no filter: the softmax itself"),
    _worked(0.5, None, None, _P**2 / (_P**2).sum(), "temperature 0.5 squares the probabilities"),
    _worked(2.0, None, None, _FLAT, "temperature 2 takes square roots"),
    _probs_case("six tokens", "next_token_probs(tensor([2., 5., 0., 4., 1., 3.]), 1.0, top_k=2, "
                "top_p=None) [six tokens: the two largest stay]", _SIX, 1.0, 2, None),
    _worked(1.0, 2, None, _TWO, "top-k = 2 keeps report and the 0.25 token"),
    _worked(1.0, None, 0.6, _TWO, "top-p = 0.6: 0.5 is not enough, the 0.25 token crosses 0.6 "
            "and is kept"),
    _worked(1.0, None, 0.8, _TOP3, "top-p = 0.8 needs three tokens (0.5 + 0.25 + 0.15 = 0.9)"),
    _worked(1.0, None, 0.3, _ARGMAX, "top-p = 0.3 is reached by the first token alone"),
    _worked(1.0, None, 1.0, _P, "top-p = 1 changes nothing"),
    _worked(1.0, 3, 0.6, _TWO, "top-k = 3, then top-p = 0.6 on the renormalised three"),
    _worked(1.0, 2, 0.6, _ARGMAX, "top-k = 2 renormalises to (2/3, 1/3): report alone reaches "
            "top-p = 0.6"),
    _worked(1.0, 10, None, _P, "top-k = 10, larger than the vocabulary of 4, keeps everything"),
    _worked(1.0, 0, None, _P, "top-k = 0, like None, means no top-k filter"),
    _worked(2.0, None, 0.7, _FLAT_TOP3, "temperature 2 first flattens, so top-p = 0.7 needs "
            "three tokens"),
    _worked(0.0, None, None, _ARGMAX, "temperature 0 is the argmax"),
    _worked(1.0, 1, None, _ARGMAX, "top-k = 1 is the argmax"),
    _probs_case("tie at k", "next_token_probs(tensor([2., 1., 1., 0.]), 1.0, top_k=2, top_p=None) "
                "[a tie at k]", _tie_k, 1.0, 2, None, hint=HINT_TOP_K_TIES,
                probe=_one_of(*(o / o.sum() for o in _tie_k_options))),
    _probs_case("tie for the maximum", "next_token_probs(tensor([1., 3., 3., 0.]), "
                "temperature=0.0) [a tie for the maximum]", _tie_max, 0.0, None, None,
                hint=HINT_ONE_HOT,
                probe=_one_of(torch.tensor([0, 1.0, 0, 0]), torch.tensor([0, 0, 1.0, 0]))),
    _probs_case("leading axes", "next_token_probs(logits of shape (2, 2, 4), 1.0, top_k=3, "
                "top_p=0.7) [two leading axes]", _leading, 1.0, 3, 0.7,
                hint=HINT_FILTER_ALONG_LAST_AXIS),
    _probs_case("batch", "next_token_probs(logits of shape (3, 4), 1.0, top_k=None, top_p=0.6) "
                "[a batch]", _batch, 1.0, None, 0.6, hint=HINT_FILTER_ROWS, finite=HINT_OVERFLOW),
    _probs_case("exact p", "next_token_probs(log of (.5, .25, .25), 1.0, top_k=None, top_p=0.75) "
                "[.5 + .25 reaches 0.75 exactly: the third token goes]", _EXACT, 1.0, None, 0.75,
                hint=HINT_TOP_P_REACHED, probe=_one_of(_EXACT.exp() * 4 / 3 * torch.tensor(
                    [1, 1, 0]), _EXACT.exp() * 4 / 3 * torch.tensor([1, 0, 1]))),
    _probs_case("top-p = 1, wide", "next_token_probs(1,000 float32 logits, 1.0, top_k=None, "
                "top_p=1.0)", _WIDE, 1.0, None, 1.0, hint=HINT_TOP_P_ONE, probe=_keeps_every_token),
)  # fmt: skip


def _probs_trial(rng: np.random.Generator, seed: int) -> Case:
    """Random rows and vocabulary, a temperature, top-k and top-p from short lists by the
    seed; the value is the reference's."""
    B, V = int(rng.integers(1, 5)), int(rng.integers(2, 30))
    logits = torch.from_numpy(3.0 * rng.standard_normal((B, V)).astype(np.float32))
    temperature = [0.0, 0.3, 1.0, 1.7][seed % 4]
    top_k = [None, 1, 5, V + 3][seed % 3 + (seed % 2)]
    top_p = [None, 0.5, 0.9, 1.0][(seed // 2) % 4]
    call = (f"next_token_probs on random logits of shape ({B}, {V}), temperature={temperature}, "
            f"top_k={top_k}, top_p={top_p} (seed {seed})")  # fmt: skip
    return _probs_case("trial", call, logits, temperature, top_k, top_p)


def check_next_token_probs(next_token_probs, reference=None, trials: int = 12) -> None:
    """Temperature, top-k and top-p on the worked distribution (0.15, 0.5, 0.1, 0.25), ties,
    leading axes and a batch with large logits (the table `PROBS_CASES`), then random trials
    against the reference."""
    run = CheckRun(next_token_probs, crash_hint=HINT_CRASH_PROBS, in_place_hint=HINT_PROBS_IN_PLACE)
    run_table(run, _PROBS, PROBS_CASES, KNOWN, reference, trials, _probs_trial)


# ---------------------------------------------------------------------------------------
# sample_next
# ---------------------------------------------------------------------------------------
HINT_SAMPLE_IDS = "return token ids: one integer per row, e.g. from torch.multinomial"
HINT_SAMPLE_SHAPE = (
    "one token id per row of logits: drop the last axis (torch.multinomial(...).squeeze(-1))"
)
HINT_SAMPLE_INTEGERS = "return token ids (integers), not probabilities or logits"


def _token_ids(run: CheckRun, call: str, seen, shape: tuple, V: int) -> np.ndarray:
    arr = as_array(seen)
    if shape == () and arr.shape == (1,):
        arr = arr.reshape(())
    if arr.shape == (*shape, V):
        run.fail(f"{call} returned shape {arr.shape}: a distribution, not token ids.",
                 hint=HINT_SAMPLE_IDS)  # fmt: skip
    run.expect_shape(call, arr, shape, hint=HINT_SAMPLE_SHAPE)
    integral = arr.dtype.kind in "iu" or np.all(arr == np.round(arr))
    run.expect_true(
        bool(integral and np.all((0 <= arr) & (arr < V))),
        f"{call} returned {describe(arr)}; expected token ids in [0, {V - 1}].",
        hint=HINT_SAMPLE_INTEGERS,
    )
    return arr.astype(np.int64)


def _drawn(run: CheckRun, call: str, logits, settings: tuple, seed: int | None, shape: tuple):
    """sample_next(logits, *settings, generator seeded `seed`, or None)'s token ids, `shape`."""
    generator = None if seed is None else torch.Generator().manual_seed(seed)
    seen = run.call(call, logits, *settings, generator)
    return _token_ids(run, call, seen, shape, logits.shape[-1])


def _sampled(run: CheckRun, call: str, model, prompts, max_new: int, seed: int, top_k=None,
             top_p=None, temperature: float = 1.0):  # fmt: skip
    """generate(model, prompts, max_new, EOS, PAD, temperature, top_k, top_p) with a generator
    seeded `seed`."""
    generator = torch.Generator().manual_seed(seed)
    return run.call(call, model, ids(prompts), max_new, EOS, PAD, temperature, top_k, top_p,
                    generator)  # fmt: skip


HINT_ONE_DRAW_PER_ROW = (
    "draw one token per row: flatten the leading axes to (N, V), where torch.multinomial "
    "gives N independent draws, then reshape the draws back to the leading shape"
)
HINT_SAMPLE_FROM_PROBS = (
    "sample from next_token_probs(logits, temperature, top_k, top_p); at "
    "temperature 0 take the argmax"
)
HINT_GENERATOR = (
    "pass the generator to the random draw: torch.multinomial(probs, 1, generator=generator)"
)
HINT_GLOBAL_GENERATOR = (
    "generator=None means torch's global random state: hand None on to the draw; a generator "
    "made (seeded or not) inside sample_next starts from the same seed and repeats its draw"
)
HINT_UNFILTERED = (
    "draw from the filtered distribution, next_token_probs(logits, temperature, "
    "top_k, top_p), not from the raw softmax"
)
HINT_ALWAYS_ARGMAX = (
    "at a temperature above 0, draw at random from the distribution; the "
    "argmax is only for temperature 0"
)
HINT_PROBS_ARGUMENTS = (
    "draw from next_token_probs(logits, temperature, top_k, top_p): divide "
    "the logits by the temperature, then filter, then sample"
)
HINT_DRAW_FROM_PROBS = "draw from next_token_probs"


def _outside(probs: torch.Tensor, seen) -> torch.Tensor:
    """Where a drawn token of `seen` (token ids, the leading shape of `probs`) has probability
    0 under the filtered distribution `probs`."""
    return torch.gather(probs, -1, torch.as_tensor(seen)[..., None])[..., 0] <= 0


def _greedy_settings(run: CheckRun, logits, best) -> None:
    """Temperature 0, top-k = 1 and a top-p the first token alone reaches: the argmax of every
    row of (64, 12) logits, one draw per row."""
    for temperature, top_k, top_p, what in [
        (0.0, None, None, "temperature 0"),
        (1.3, 1, None, "top-k = 1"),
        (1.0, None, 1e-6, "a top-p the first token alone reaches"),
    ]:
        call = (f"sample_next(logits (64, 12), temperature={temperature}, top_k={top_k}, "
                f"top_p={top_p}, generator) [{what} is greedy]")  # fmt: skip
        seen = _drawn(run, call, logits, (temperature, top_k, top_p), 1, (64,))
        run.expect_true(
            len(set(seen.tolist())) > 1 or len(set(best.tolist())) == 1,
            f"{call} gave every one of 64 rows the same token {int(seen[0])}.",
            hint=HINT_ONE_DRAW_PER_ROW,
        )
        run.expect_true(
            np.array_equal(seen, best),
            f"{call} differs from the argmax in rows {np.flatnonzero(seen != best)[:5].tolist()}.",
            hint=HINT_SAMPLE_FROM_PROBS,
        )


def _random_draws(run: CheckRun, logits, best) -> None:
    """Sampled settings: reproducible with one seed, inside the filters' support, not the
    argmax; then two leading axes, one token per row."""
    for temperature, top_k, top_p in [(1.0, None, None), (0.7, 3, None), (1.5, None, 0.5),
                                      (1.0, 4, 0.8)]:  # fmt: skip
        call = (f"sample_next(logits (64, 12), temperature={temperature}, top_k={top_k}, "
                f"top_p={top_p}, generator=torch.Generator().manual_seed(5))")  # fmt: skip
        first, again = (
            _drawn(run, call, logits, (temperature, top_k, top_p), 5, (64,)) for _ in range(2)
        )
        run.expect_true(np.array_equal(first, again), f"{call} gave different tokens on two calls "
                        "with the same seed.", hint=HINT_GENERATOR)  # fmt: skip
        outside = _outside(filtered_distribution(logits, temperature, top_k, top_p), first)
        run.expect_true(
            not bool(outside.any()),
            f"{call} drew tokens that the filters remove (rows "
            f"{outside.nonzero().flatten()[:5].tolist()}).",
            hint=HINT_UNFILTERED,
        )
        if top_k is None and top_p is None:
            run.expect_true(not np.array_equal(first, best), f"{call} returned the argmax of every "
                            "one of 64 rows.", hint=HINT_ALWAYS_ARGMAX)  # fmt: skip
    # Two leading axes: one token per row, the shape of logits without its last axis.
    logits3 = logits.reshape(2, 32, 12)
    call = ("sample_next(logits of shape (2, 32, 12), temperature=1.0, top_k=3, top_p=None, "
            "generator) [two leading axes]")  # fmt: skip
    seen = _drawn(run, call, logits3, (1.0, 3, None), 2, (2, 32))
    outside = _outside(filtered_distribution(logits3, 1.0, 3, None), seen)  # (2, 32)
    run.expect_true(not bool(outside.any()), f"{call} drew tokens that top-k removes.",
                    hint=HINT_ONE_DRAW_PER_ROW)  # fmt: skip


def _frequencies(run: CheckRun) -> None:
    """20000 rows of the worked logits: each token's share within 5 standard errors of the
    filtered distribution (a correct sampler fails about once in a million), so a sampler that
    ignores the temperature or a filter is seen."""
    Z = WORKED_LOGITS
    N = 20000
    many = Z.float().expand(N, 4).contiguous()  # (N, 4)
    for temperature, top_k, top_p, what in [
        (2.0, None, None, "temperature 2 flattens"), (0.5, None, None, "temperature 0.5 sharpens"),
        (1.0, 3, None, "top-k = 3"), (1.0, None, 0.8, "top-p = 0.8"),
        (2.0, 3, 0.7, "temperature, top-k and top-p")]:  # fmt: skip
        call = (f"sample_next(logits ({N}, 4), temperature={temperature}, top_k={top_k}, "
                f"top_p={top_p}, generator) with p = (.15, .5, .1, .25) [{what}]")  # fmt: skip
        seen = _drawn(run, call, many, (temperature, top_k, top_p), 7, (N,))
        mistakes = [] if temperature == 1.0 else [
            ("the temperature was ignored", filtered_distribution(Z, 1.0, top_k, top_p)),
            ("the logits were multiplied by the temperature, not divided",
             filtered_distribution(Z, 1.0 / temperature, top_k, top_p))]  # fmt: skip
        mistakes.append(("the filters were ignored", filtered_distribution(Z, temperature)))
        expected = filtered_distribution(Z, temperature, top_k, top_p)
        _expect_shares(run, call, seen, expected, mistakes, HINT_PROBS_ARGUMENTS)


def _expect_shares(run: CheckRun, call: str, drawn, expected, mistakes, hint: str) -> None:
    """Each token's share of the `drawn` ids within 5 standard errors of the distribution
    `expected` (a correct sampler fails about once in a million); on a miss, the known slip of
    `mistakes` ((name, its distribution) pairs) whose distribution the shares match."""
    expected = as_array(expected)
    share = np.bincount(drawn, minlength=len(expected)) / len(drawn)
    slack = 5.0 * np.sqrt(expected * (1 - expected) / len(drawn)) + 1e-3
    named = next(
        (name for name, m in mistakes if np.all(np.abs(share - as_array(m)) <= slack)), None
    )
    message = (
        f"{call}: the tokens' shares {np.round(share, 3).tolist()} do not match "
        f"the distribution {np.round(expected, 3).tolist()}."
    )
    if named is not None:
        message += f"\nThis looks like a known mistake: {named}."
    run.expect_true(bool(np.all(np.abs(share - expected) <= slack)), message, hint=hint)


def _sample_trials(run: CheckRun, reference, trials: int) -> None:
    """Random logits and settings: draws inside the filtered distribution, and the
    reference's tokens where the distribution is one token."""
    for seed in hidden_range(trials if reference is not None else 0):
        rng = trial_rng("sample_next", seed)
        B, V = int(rng.integers(1, 40)), int(rng.integers(2, 30))
        logits = torch.from_numpy(3.0 * rng.standard_normal((B, V))).float()
        temperature, top_k, top_p = [
            (0.0, None, None),
            (1.0, 2, None),
            (0.5, None, 0.7),
            (2.0, 5, 0.9),
            (1.0, 1, None),
            (0.8, None, 0.01),
        ][int(rng.integers(6))]
        call = (f"sample_next on random logits ({B}, {V}), temperature={temperature}, "
                f"top_k={top_k}, top_p={top_p} (seed {seed})")  # fmt: skip
        seen = _drawn(run, call, logits, (temperature, top_k, top_p), seed, (B,))
        probs = filtered_distribution(logits, temperature, top_k, top_p)  # (B, V)
        run.expect_true(not bool(_outside(probs, seen).any()),
                        f"{call} drew tokens outside the filtered distribution.",
                        hint=HINT_DRAW_FROM_PROBS)  # fmt: skip
        if bool((probs.max(-1).values == 1).all()):  # a deterministic case
            expected = as_array(
                reference(logits, temperature, top_k, top_p, torch.Generator().manual_seed(seed))
            )
            run.expect_true(
                np.array_equal(seen, expected),
                f"{call} returned {seen.tolist()}; expected the argmax {expected.tolist()}.",
            )


def check_sample_next(sample_next, reference=None, trials: int = 6) -> None:
    """Token ids drawn from next_token_probs: the worked example at temperature 0, the greedy
    settings, reproducible draws inside the filters' support, two leading axes, new draws at
    each call without a generator, the frequencies of 20000 draws against the filtered
    distribution, then random settings against the reference."""
    run = CheckRun(sample_next, crash_hint=HINT_CRASH_SAMPLE)
    Z = WORKED_LOGITS
    call = "sample_next(logits, temperature=0.0) with probabilities (0.15, 0.5, 0.1, 0.25)"
    token = _drawn(run, call, Z.clone(), (0.0, None, None), None, ())
    run.expect_true(int(token) == 1, f"{call} returned {int(token)}; expected 1 (the argmax).",
                    hint=HINT_SAMPLE_FROM_PROBS)  # fmt: skip

    logits = 2.0 * torch.randn(64, 12, generator=torch.Generator().manual_seed(0))  # (64, 12)
    best = logits.argmax(-1).numpy()
    _greedy_settings(run, logits, best)
    _random_draws(run, logits, best)
    # generator=None draws from torch's global random state: two calls on these 64 rows agree
    # with probability about 1e-30 (the product over rows of the sum of p squared); a seeded
    # generator is not held to this: the grader passes it by value, so it never moves on
    call = "sample_next(logits (64, 12), temperature=1.0, generator=None), called twice"
    first, again = (_drawn(run, call, logits, (1.0, None, None), None, (64,)) for _ in range(2))
    run.expect_true(not np.array_equal(first, again), f"{call} gave the same 64 tokens twice.",
                    hint=HINT_GLOBAL_GENERATOR)  # fmt: skip
    _frequencies(run)
    _sample_trials(run, reference, trials)
    run.done()


# ---------------------------------------------------------------------------------------
# generate
# ---------------------------------------------------------------------------------------
EOS, PAD = 2, 0
# The lookup-table model: 1 (<BOS>) -> 3, t -> t + 1, except 6 -> EOS and 10 -> EOS.
NEXT_OF = {0: 3, 1: 3, 2: 3, **{t: t + 1 for t in range(3, 12)}, 12: 3, 6: EOS, 10: EOS}


def _simulate(prompts, max_new_tokens, pad=PAD) -> torch.Tensor:
    """What `generate` returns on the lookup-table model: each row gets NEXT_OF of its last
    token until it emits EOS, then pad; the loop stops when every row has finished."""
    rows = [list(p) for p in prompts]
    finished = [False] * len(rows)
    for _ in range(max_new_tokens):
        new = [pad if f else NEXT_OF[r[-1]] for f, r in zip(finished, rows)]
        rows = [row + [t] for row, t in zip(rows, new)]
        finished = [f or t == EOS for f, t in zip(finished, new)]
        if all(finished):
            break
    return ids(rows)


HINT_NEW_TOKENS_ONLY = "return the prompts followed by the new tokens, shape (B, L + n)"


def _expect_tokens(run: CheckRun, call: str, seen, expected, hint=None):
    seen_arr = as_array(seen)
    run.expect_shape(call, seen_arr, tuple(expected.shape), hint=hint or HINT_NEW_TOKENS_ONLY)
    run.expect_true(np.array_equal(seen_arr, as_array(expected)), f"{call} returned wrong tokens."
                    f"\n  expected {describe(expected)}\n  seen     {describe(seen_arr)}",
                    hint=hint)  # fmt: skip


HINT_LAST_POSITION = ("choose each token from the LAST position's logits, model(ids)[:, -1]; "
                      "a finished row gets pad_id")  # fmt: skip
HINT_FINISHED_PAD = "finished rows get pad_id"
HINT_ZERO_NEW_TOKENS = "max_new_tokens=0 returns the prompt unchanged"
HINT_WHOLE_SEQUENCE = (
    "feed the whole sequence so far and use the LAST position's logits; and pass the temperature "
    "on: at temperature 0 sample_next picks the most likely token"
)
HINT_ROWS_INDEPENDENT = "each row must depend on its own tokens only"
HINT_PASS_SETTINGS = "pass temperature, top_k, top_p and generator on to sample_next"
HINT_PASS_GENERATOR = "pass generator (and temperature, top_k, top_p) on to sample_next"
HINT_RAW_LOGITS = (
    "hand sample_next the raw logits, model(ids)[:, -1], and the temperature as given: "
    "sample_next divides by the temperature and takes the softmax itself"
)


_GENERATE = "generate"
# detectors raised from what a table cannot say, not from a visible case's output (see
# scripts/release.py): sampling, probed by its properties (filters, seeds, a uniform model)
PROPERTY_DETECTORS = ("HINT_PASS_SETTINGS", "HINT_PASS_GENERATOR", "HINT_RAW_LOGITS",
                      "HINT_TOP_P_ONE")  # fmt: skip


def _generate_case(case_id: str, call: str, model, prompts, max_new: int, expect,
                   pad: int = PAD, hint: str | None = None, **more) -> Case:  # fmt: skip
    """generate(model, prompts, max_new, EOS, pad, temperature=0.0), greedy: the expected
    tokens exactly, a known slip named whatever its length."""
    return Case(case_id, call, (model, ids(prompts), max_new, EOS, pad, 0.0), expect,
                hint=hint, shape_hint=hint or HINT_NEW_TOKENS_ONLY, whole=True,
                crash_hints=(("condition to be a bool", HINT_FINISHED_BOOL),),
                tolerance=Tolerance(rtol=0.0, atol=0.5), what="tokens", **more)  # fmt: skip


def _lookup_case(case_id: str, prompts, max_new: int, what: str, pad: int = PAD, **more):
    call = (f"generate(lookup_model, prompt_ids={prompts}, max_new_tokens={max_new}, "
            f"eos_id={EOS}{f', pad_id={pad}' if pad != PAD else ''}, temperature=0.0) [{what}; "
            f"the model maps t to t + 1, 6 and 10 to EOS={EOS}]")  # fmt: skip
    return _generate_case(case_id, call, _LOOKUP, prompts, max_new,
                          _simulate(prompts, max_new, pad), pad, **more)  # fmt: skip


_LOOKUP = table_model(NEXT_OF)
_SHARP = sharp_model(3)
_SHARP_PROMPTS = [[1, 4, 7], [1, 9, 9], [1, 3, 12]]
GENERATE_CASES = (
    _lookup_case("own time", [[1, 4], [1, 7]], 10, "row 0 ends after 3 tokens, row 1 after 4",
                 hint=HINT_LAST_POSITION),
    _lookup_case("limit", [[1, 4], [1, 7]], 2, "the length limit comes first",
                 hint=HINT_LAST_POSITION),
    _lookup_case("three rows", [[1, 5], [1, 9], [1, 11]], 6, "three rows",
                 hint=HINT_LAST_POSITION),
    _lookup_case("pad 5", [[1, 4], [1, 7], [1, 9]], 8, "padding with pad_id = 5, not 0; 5 is "
                 "also a real token of row 0", pad=5, hint=HINT_FINISHED_PAD),
    _lookup_case("no new tokens", [[1, 4]], 0, "max_new_tokens=0", hint=HINT_ZERO_NEW_TOKENS),
    _generate_case("random decoder", f"generate(random_decoder, {_SHARP_PROMPTS}, "
                   "max_new_tokens=8, eos_id=2, temperature=0.0)", _SHARP, _SHARP_PROMPTS, 8,
                   padded_ids(generate_tokens(_SHARP, _SHARP_PROMPTS, 8, EOS, PAD, temperature=0.0,
                                              use_cache=False)), hint=HINT_WHOLE_SEQUENCE),
    *(
        _generate_case(f"row {row} alone", f"generate(random_decoder, [{prompt}], "
                       f"max_new_tokens=8, eos_id=2, temperature=0.0) [row {row} of the batch "
                       "above, alone]", _SHARP, [prompt], 8,
                       padded_ids(generate_tokens(_SHARP, [prompt], 8, EOS, PAD, temperature=0.0,
                                                  use_cache=False)), hint=HINT_ROWS_INDEPENDENT)
        for row, prompt in enumerate(_SHARP_PROMPTS)
    ),
    Case("1-D prompt", "generate with prompt_ids of shape (3,)", (_SHARP, ids([1, 4, 7]), 4, EOS),
         raises=ValueError, mentions=("prompt_ids", "(3,)")),
)  # fmt: skip


def _random_decoder_runs(run: CheckRun) -> None:
    """The random decoder of `GENERATE_CASES`: filters that keep one token greedy, one seed
    one result."""
    model, prompts = _SHARP, _SHARP_PROMPTS
    expected = next(c.expect for c in GENERATE_CASES if c.id == "random decoder")
    for top_k, top_p in [(1, None), (None, 1e-6)]:
        call = (f"generate(random_decoder, {prompts}, max_new_tokens=8, eos_id=2, "
                f"temperature=1.0, top_k={top_k}, top_p={top_p}) [a filter that keeps one "
                f"token is greedy]")  # fmt: skip
        seen = _sampled(run, call, model, prompts, 8, 0, top_k, top_p)
        _expect_tokens(run, call, seen, expected, hint=HINT_PASS_SETTINGS)

    call = ("generate(random_decoder, [[1, 4, 7]] * 4, max_new_tokens=10, eos_id=2, "
            "temperature=1.0, generator=torch.Generator().manual_seed(3)) twice")  # fmt: skip
    first, again = (_sampled(run, call, model, [[1, 4, 7]] * 4, 10, 3) for _ in range(2))
    run.expect_true(np.array_equal(as_array(first), as_array(again)), f"{call}: the same seed "
                    "gave different emails.", hint=HINT_PASS_GENERATOR)  # fmt: skip


def _uniform_runs(run: CheckRun) -> None:
    """A model that guesses uniformly: sampling must not collapse to the argmax (token 0)."""
    uniform = bias_model(torch.zeros(13))
    call = ("generate(uniform_model, [[1]] * 4, max_new_tokens=6, eos_id=2, temperature=1.0, "
            "generator=torch.Generator().manual_seed(0))")  # fmt: skip
    seen = as_array(_sampled(run, call, uniform, [[1]] * 4, 6, 0))
    run.expect_true(bool(np.any(seen[:, 1:] != 0)), f"{call} returned only token 0, the argmax, "
                    f"although every token is equally likely:\n{describe(seen)}",
                    hint=HINT_PASS_SETTINGS)  # fmt: skip


def _generate_trial(rng: np.random.Generator, seed: int) -> Case:
    """A random decoder of a random position option, prompts, and a common token as EOS (rows
    stop at their own time), greedy."""
    positions = ["rope", "learned", "sinusoidal", "none"][int(rng.integers(4))]
    model = sharp_model(int(rng.integers(2**31)), 13, positions)
    B, L, n = int(rng.integers(1, 5)), int(rng.integers(1, 6)), int(rng.integers(1, 12))
    prompts = [[1, *rng.integers(3, 13, size=L - 1).tolist()] for _ in range(B)]
    eos = int(rng.integers(3, 13))
    call = (f"generate(random {positions} decoder, {prompts}, max_new_tokens={n}, "
            f"eos_id={eos}, temperature=0.0) (seed {seed})")  # fmt: skip
    case = _generate_case("trial", call, model, prompts, n, None)
    return replace(case, args=(model, ids(prompts), n, eos, PAD, 0.0))


def _temperature_runs(run: CheckRun) -> None:
    """A model whose next-token probabilities are the worked ones at every position, sampled at
    temperature 2 for 8000 rows: the new tokens' shares against softmax(z / 2), so logits
    changed on their way to sample_next (softmaxed, divided again) are seen."""
    Z, N = WORKED_LOGITS, 8000
    call = (f"generate(fixed_model, [[1]] * {N}, max_new_tokens=1, eos_id=2, temperature=2.0, "
            "generator=torch.Generator().manual_seed(7)) [the model's next-token probabilities "
            "are (0.15, 0.5, 0.1, 0.25) at every position]")  # fmt: skip
    seen = as_array(_sampled(run, call, bias_model(Z), [[1]] * N, 1, 7, temperature=2.0))
    run.expect_shape(call, seen, (N, 2), hint=HINT_NEW_TOKENS_ONLY)
    mistakes = [
        ("the temperature was not passed on", filtered_distribution(Z, 1.0)),
        ("the logits were divided by the temperature twice", filtered_distribution(Z, 4.0)),
        ("probabilities were passed as logits", filtered_distribution(torch.softmax(Z, -1), 2.0)),
    ]
    drawn = _token_ids(run, f"{call}: its new tokens", seen[:, -1], (N,), len(Z))
    _expect_shares(run, call, drawn, filtered_distribution(Z, 2.0), mistakes, HINT_RAW_LOGITS)


def check_generate(generate, reference=None, trials: int = 6) -> None:
    """Batched generation until EOS or the length limit: the lookup-table model, a random
    decoder against the package's generator and the input check (table `GENERATE_CASES`, a
    known slip named whatever its length); then rows independent, filters and seeds on the
    random decoder, a uniform model sampled, a fixed distribution sampled at temperature 2, and
    random decoders against the reference."""
    run = CheckRun(generate, crash_hint=HINT_CRASH_GENERATE)
    run_cases(run, _GENERATE, GENERATE_CASES, KNOWN)
    _random_decoder_runs(run)
    _uniform_runs(run)
    _temperature_runs(run)
    run_trials(run, _GENERATE, reference, trials, _generate_trial, KNOWN)
    run.done()


# ---------------------------------------------------------------------------------------
# perplexity
# ---------------------------------------------------------------------------------------


HINT_UNIFORM = "a uniform guess over V tokens has perplexity exactly V: exp(-log(1/V))"
HINT_PPL_VALUES = "perplexity = exp(sum of -log p over real targets / their number)"
HINT_PPL_RANGE = ("divide the summed loss by the count before exp: exp of 2,504 nats "
                  "(640 targets), or a product of 640 probabilities, is out of range")  # fmt: skip


def _ppl_case(case_id: str, call: str, model, batches, expect, hint=None) -> Case:
    return Case(case_id, call, (model, batches), expect=expect, hint=hint, scalar=True,
                shape_hint=HINT_LOG_PROB_SCALAR, what="perplexity")  # fmt: skip


def _random_batches(gen: torch.Generator, shapes) -> list:
    """Random (inputs, targets, loss_mask) batches, each row padded (0) after a random
    length."""
    batches = []
    for B, L in shapes:
        lengths = torch.randint(1, L + 1, (B,), generator=gen)
        mask = torch.arange(L)[None, :] < lengths[:, None]
        inputs = torch.randint(1, 13, (B, L), generator=gen).masked_fill(~mask, 0)
        targets = torch.randint(2, 13, (B, L), generator=gen).masked_fill(~mask, 0)
        batches.append((inputs, targets, mask))
    return batches


_PPL = "perplexity"
_fixed = bias_model(torch.tensor([0.1, 0.2, 0.3, 0.4]).log())
_sharp4 = sharp_model(4)
_three = _random_batches(torch.Generator().manual_seed(4), [(3, 6), (1, 2), (2, 9)])
_many = [(torch.arange(640).view(40, 16) % 47 + 3,) * 2 + (torch.ones(40, 16, dtype=torch.bool),)]
PPL_CASES = (
    _ppl_case("uniform", "perplexity(model, batches) for a model whose every prediction is "
              "uniform over 4", bias_model(torch.zeros(4)), worked_batches(), 4.0,
              hint=HINT_UNIFORM),
    _ppl_case("fixed p", "perplexity(model, batches) for a model with fixed p = (.1, .2, .3, .4), "
              "two batches of 4 and 1 real targets", _fixed, worked_batches(),
              math.exp(-(2 * math.log(0.4) + 2 * math.log(0.3) + math.log(0.2)) / 5),
              hint=HINT_PPL_VALUES),
    _ppl_case("pad 3", "perplexity(model, batches) for a model with fixed p = (.1, .2, .3, .4), "
              "targets [[3, 0, 2], [2, 3, 3]] padded with 3 (loss_mask [[1, 1, 1], [1, 0, 0]])",
              _fixed, pad3_batches(),
              math.exp(-(math.log(0.4) + math.log(0.1) + 2 * math.log(0.3)) / 4), HINT_PPL_VALUES),
    replace(_ppl_case("640 targets", "perplexity(model, batches) for a model uniform over 50 "
                      "tokens, one batch of 40 x 16 real targets", bias_model(torch.zeros(50)),
                      _many, 50.0, hint=HINT_PPL_RANGE),
            crash_hints=((("range", "division by zero", "overflow"), HINT_PPL_RANGE),)),
    _ppl_case("three batches", "perplexity(random_decoder, three batches of shapes (3, 6), "
              "(1, 2), (2, 9))", _sharp4, _three, math.exp(mean_nll(_sharp4, _three))),
    Case("inputs 1-D", "perplexity with inputs of shape (4,)", (_sharp4, [(ids([1, 2, 3, 4]),
         ids([2, 3, 4, 5]), torch.ones(4, dtype=torch.bool))]), raises=ValueError,
         mentions=("inputs", "(4,)")),
)  # fmt: skip
# the functions of notebook 08 checked as tables
CASES = {_LOG_PROB: LOG_PROB_CASES, _PROBS: PROBS_CASES, _GENERATE: GENERATE_CASES, _PPL: PPL_CASES}


def _ppl_trial(rng: np.random.Generator, seed: int) -> Case:
    """A random decoder and one to three random padded batches; the reference's value."""
    model = sharp_model(int(rng.integers(2**31)), positions=["rope", "learned"][seed % 2])
    gen = torch.Generator().manual_seed(int(rng.integers(2**31)))
    shapes = [tuple(int(v) for v in rng.integers(1, 8, size=2)) for _ in range(rng.integers(1, 4))]
    batches = _random_batches(gen, shapes)
    call = f"perplexity on a random decoder and {len(batches)} random batches (seed {seed})"
    return _ppl_case("trial", call, model, batches, None)


def check_perplexity(perplexity, reference=None, trials: int = 5) -> None:
    """exp of the mean loss over every real target: a uniform and a fixed model on two
    worked batches, a random decoder on three (the table `PPL_CASES`), then random trials
    against the reference."""
    run_table(CheckRun(perplexity), _PPL, PPL_CASES, KNOWN, reference, trials, _ppl_trial)
