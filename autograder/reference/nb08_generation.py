"""Reference answers for notebook 08_generation: generated, do not edit.

Made by scripts/release.py (`make release`) from the answer cells of
solutions/08_generation/08_generation.ipynb. Used by the hidden tests and the project's
own tests; never shipped to students.
"""


# ruff: noqa: E501, I001, F841, UP034
import math
import torch
from attnbook.lm.generation import require_sampling
from attnbook.shapes import require_min_ndim, require_ndim


# name: (options, correct letter, explanation shown when the answer is wrong)
ANSWERS = {
    'answer_sequence_prob': ('ABC', 'A', 'the chain rule multiplies every conditional, <EOS> included: 0.20 * 0.20 * 1.00 * 0.75 = 0.030; 0.040 leaves out the end token, 0.538 is their mean.'),
    'answer_teacher_forcing': ('ABC', 'C', 'when scoring, every earlier token is known in advance, so one causal pass gives all the conditionals; a writer must wait for its own choices, cache or not.'),
    'answer_temperature': ('ABC', 'A', 'softmax(z / T) = softmax([4, 0]): e^4 / (e^4 + 1) = 0.982; 0.881 forgets to divide by T, 0.731 multiplies by T instead.'),
    'answer_top_p': ('ABC', 'B', "top-p keeps the smallest set of likeliest tokens that reaches p: report's 0.20 falls short, and slides, the token that crosses p (0.35), stays."),
    'answer_eos': ('ABC', 'B', 'only <EOS> ends an email: without it every sample runs to the length limit, piling on what the grammar rarely writes. Padding comes only after the end.'),
    'answer_perplexity': ('ABC', 'C', 'perplexity is exp(loss): no model beats the corpus entropy, so the floor is exp(0.73), about 2.07; 1 would need a corpus with no uncertainty at all.'),
}


# -- from the answer cell sequence_log_prob
def sequence_log_prob(model, prompt_ids, continuation_ids):
    """Log-probability of a continuation given a prompt, from one forward pass.

    Args:
        model: a causal decoder; model(ids) maps (B, L) token ids to (B, L, V) logits.
        prompt_ids: (L_p,) token ids of the prompt, starting with <BOS>; L_p >= 1.
        continuation_ids: (L_c,) token ids to score, L_c >= 1.

    Returns:
        A scalar (0-d tensor or float): sum over l of log p(w_l | prompt, w_<l), in nats.
    """
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    continuation_ids = torch.as_tensor(continuation_ids, dtype=torch.long)
    require_ndim("prompt_ids", prompt_ids, 1, "(L_p,)")
    require_ndim("continuation_ids", continuation_ids, 1, "(L_c,)")
    if len(prompt_ids) == 0:
        raise ValueError("prompt_ids: expected shape (L_p,) with L_p >= 1 (at least <BOS>), "
                         "got shape (0,)")
    # Key idea: One forward pass over prompt and continuation: the row before each continuation
    #   token predicts it. Sum the log-probabilities of those tokens only.
    ids = torch.cat((prompt_ids, continuation_ids))[None, :]  # (1, L_p + L_c)
    with torch.no_grad():
        logits = model(ids[:, :-1])[0]  # (L_p + L_c - 1, V): row t predicts token t + 1
    log_probs = torch.log_softmax(logits, dim=-1)  # (L_p + L_c - 1, V)
    rows = log_probs[len(prompt_ids) - 1:]  # (L_c, V): the rows before each continuation token
    return rows.gather(1, continuation_ids[:, None]).sum()


# -- from the answer cell next_token_probs
def next_token_probs(logits, temperature=1.0, top_k=None, top_p=None):
    """The distribution to sample the next token from.

    Args:
        logits: (..., V) next-token logits; any leading axes (one row per sequence).
        temperature: >= 0; 0 means argmax (a one-hot row on the most likely token).
        top_k: None or 0 for no filter; else keep the top_k largest logits (all of them
            when top_k >= V; a token tied with the k-th largest may be kept too).
        top_p: None or 1.0 for no filter; else keep the smallest set of most likely tokens
            whose probability reaches top_p (>= top_p: a set that sums to exactly top_p
            takes no further token), the token that crosses top_p included.

    Returns:
        (..., V) probabilities, each row non-negative and summing to 1, removed tokens 0.
        Order: temperature, then top-k, then top-p on what top-k kept.
    """
    logits = torch.as_tensor(logits)
    require_min_ndim("logits", logits, 1, "(..., V)")
    require_sampling(temperature, top_k, top_p)
    # Key idea: Divide the logits by the temperature, keep the top k, softmax, then keep the
    #   smallest set of likeliest tokens whose mass reaches p and renormalise. Temperature 0 is the
    #   argmax, as a one-hot row.
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(dim=-1), logits.shape[-1]).to(
            logits.dtype)  # (..., V)
    z = logits / temperature  # (..., V)
    if top_k:
        kth = torch.topk(z, min(int(top_k), z.shape[-1]), dim=-1).values[..., -1:]  # (..., 1)
        z = z.masked_fill(z < kth, float("-inf"))
    probs = torch.softmax(z, dim=-1)  # (..., V)
    if top_p is not None and top_p < 1.0:
        sorted_probs, order = torch.sort(probs, dim=-1, descending=True)  # (..., V) each
        before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs  # mass of likelier tokens
        sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)  # p reached already
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)  # vocabulary order
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs


# -- from the answer cell sample_next
def sample_next(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """Choose the next token of every row.

    Args:
        logits: (..., V) next-token logits.
        temperature, top_k, top_p: as in next_token_probs.
        generator: a torch.Generator (seeded for reproducible draws), or None for torch's
            global random state (new draws at every call).

    Returns:
        (...) int64 token ids: the argmax at temperature 0, else one draw per row from
        next_token_probs(logits, temperature, top_k, top_p).
    """
    logits = torch.as_tensor(logits)
    require_min_ndim("logits", logits, 1, "(..., V)")
    require_sampling(temperature, top_k, top_p)  # at temperature 0 too
    # Key idea: Draw one token per row from next_token_probs with the generator given, so one seed
    #   repeats the draw; temperature 0 is the argmax, with no draw.
    if temperature == 0:
        return logits.argmax(dim=-1)  # (...)
    probs = next_token_probs(logits, temperature, top_k, top_p)  # (..., V)
    flat = probs.reshape(-1, probs.shape[-1])  # (N, V)
    draws = torch.multinomial(flat, 1, generator=generator)  # (N, 1)
    return draws.reshape(probs.shape[:-1])  # (...)


# -- from the answer cell generate
def generate(model, prompt_ids, max_new_tokens, eos_id, pad_id=0, temperature=1.0, top_k=None,
             top_p=None, generator=None):
    """Continue a batch of equal-length prompts one token at a time.

    Args:
        model: a causal decoder, (B, L) ids -> (B, L, V) logits; model.config.max_len.
        prompt_ids: (B, L) int64 prompts, each starting with <BOS>.
        max_new_tokens: at most this many new tokens per row.
        eos_id: the end token; a row that emits it keeps it and is finished.
        pad_id: what a finished row receives from then on.
        temperature, top_k, top_p, generator: passed on to sample_next.

    Returns:
        (B, L + n) int64: the prompts followed by n <= max_new_tokens new tokens; n is smaller
        when every row has finished earlier.
    """
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    require_ndim("prompt_ids", prompt_ids, 2, "(B, L)")
    if max_new_tokens < 0:
        raise ValueError(f"max_new_tokens: expected a count >= 0, got {max_new_tokens}")
    max_len = getattr(getattr(model, "config", None), "max_len", None)
    if max_len is not None and prompt_ids.shape[1] + max_new_tokens > max_len:
        raise ValueError(f"max_new_tokens: {max_new_tokens} new tokens after prompt_ids of "
                         f"shape {tuple(prompt_ids.shape)} exceed max_len {max_len}")
    # Key idea: Append one token at a time, predicted from the last position's logits; a row that
    #   has produced eos_id gets pad_id from then on, and the loop stops once every row is
    #   finished.
    ids = prompt_ids  # (B, L)
    finished = torch.zeros(ids.shape[0], dtype=torch.bool, device=ids.device)  # (B,)
    for _ in range(max_new_tokens):
        with torch.no_grad():
            logits = model(ids)[:, -1]  # (B, V): the last position predicts the next token
        new = sample_next(logits, temperature, top_k, top_p, generator)  # (B,)
        new = torch.where(finished, torch.full_like(new, pad_id), new)  # finished rows: pad
        ids = torch.cat((ids, new[:, None]), dim=1)  # (B, L + 1)
        finished = finished | (new == eos_id)
        if bool(finished.all()):
            break
    return ids


# -- from the answer cell perplexity
def perplexity(model, batches):
    """Perplexity of a model over teacher-forcing batches, every real target weighing the same.

    Args:
        model: a causal decoder, (B, L) ids -> (B, L, V) logits.
        batches: an iterable of (inputs, targets, loss_mask), each (B, L) (B and L may differ
            between batches); loss_mask is True on real targets, False on padding.

    Returns:
        A float: exp(sum of -log p(target) over all real targets / their number).
    """
    # Key idea: exp of the mean negative log-likelihood per real target token: add up the losses
    #   and the token counts over every batch first, and divide only at the end.
    total_nll, total_tokens = 0.0, 0  # summed over every batch
    for inputs, targets, loss_mask in batches:
        require_ndim("inputs", inputs, 2, "(B, L)")
        if targets.shape != inputs.shape or loss_mask.shape != inputs.shape:
            raise ValueError(f"targets and loss_mask must have the shape of inputs "
                             f"{tuple(inputs.shape)}; got {tuple(targets.shape)} and "
                             f"{tuple(loss_mask.shape)}")
        with torch.no_grad():
            logits = model(inputs)  # (B, L, V)
        safe = torch.where(loss_mask.bool(), targets, 0)  # (B, L): padded ids need not exist
        nll = torch.nn.functional.cross_entropy(
            logits.flatten(0, 1), safe.flatten(), reduction="none")  # (B * L,)
        total_nll += float((nll * loss_mask.flatten()).sum())
        total_tokens += int(loss_mask.sum())
    return math.exp(total_nll / total_tokens)


# -- the catalogued mistakes (autograder/mistakes/), resolved: the hidden trials run
# them on their inputs to name the slip a wrong output matches
# sequence_log_prob: log-probability read at the target's own position
def _slip_sequence_log_prob_0(model, prompt_ids, continuation_ids):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    continuation_ids = torch.as_tensor(continuation_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 1, '(L_p,)')
    require_ndim('continuation_ids', continuation_ids, 1, '(L_c,)')
    if len(prompt_ids) == 0:
        raise ValueError('prompt_ids: expected shape (L_p,) with L_p >= 1 (at least <BOS>), got shape (0,)')
    ids = torch.cat((prompt_ids, continuation_ids))[None, :]
    log_probs = torch.log_softmax(model(ids)[0], dim=-1)
    rows = log_probs[len(prompt_ids):]
    return rows.gather(1, continuation_ids[:, None]).sum()

# sequence_log_prob: product of probabilities instead of a sum of logs
def _slip_sequence_log_prob_1(model, prompt_ids, continuation_ids):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    continuation_ids = torch.as_tensor(continuation_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 1, '(L_p,)')
    require_ndim('continuation_ids', continuation_ids, 1, '(L_c,)')
    if len(prompt_ids) == 0:
        raise ValueError('prompt_ids: expected shape (L_p,) with L_p >= 1 (at least <BOS>), got shape (0,)')
    ids = torch.cat((prompt_ids, continuation_ids))[None, :]
    probs = torch.softmax(model(ids[:, :-1])[0], dim=-1)
    rows = probs[len(prompt_ids) - 1:]
    return rows.gather(1, continuation_ids[:, None]).prod()

# sequence_log_prob: log of the softmax (torch.log(torch.softmax(...)))
def _slip_sequence_log_prob_2(model, prompt_ids, continuation_ids):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    continuation_ids = torch.as_tensor(continuation_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 1, '(L_p,)')
    require_ndim('continuation_ids', continuation_ids, 1, '(L_c,)')
    if len(prompt_ids) == 0:
        raise ValueError('prompt_ids: expected shape (L_p,) with L_p >= 1 (at least <BOS>), got shape (0,)')
    ids = torch.cat((prompt_ids, continuation_ids))[None, :]
    with torch.no_grad():
        logits = model(ids[:, :-1])[0]
    log_probs = torch.log(torch.softmax(logits, dim=-1))
    rows = log_probs[len(prompt_ids) - 1:]
    return rows.gather(1, continuation_ids[:, None]).sum()

# sequence_log_prob: mean instead of sum
def _slip_sequence_log_prob_3(model, prompt_ids, continuation_ids):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    continuation_ids = torch.as_tensor(continuation_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 1, '(L_p,)')
    require_ndim('continuation_ids', continuation_ids, 1, '(L_c,)')
    if len(prompt_ids) == 0:
        raise ValueError('prompt_ids: expected shape (L_p,) with L_p >= 1 (at least <BOS>), got shape (0,)')
    ids = torch.cat((prompt_ids, continuation_ids))[None, :]
    log_probs = torch.log_softmax(model(ids[:, :-1])[0], dim=-1)
    return log_probs[len(prompt_ids) - 1:].gather(1, continuation_ids[:, None]).mean()

# sequence_log_prob: the prompt's own tokens scored too
def _slip_sequence_log_prob_4(model, prompt_ids, continuation_ids):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    continuation_ids = torch.as_tensor(continuation_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 1, '(L_p,)')
    require_ndim('continuation_ids', continuation_ids, 1, '(L_c,)')
    if len(prompt_ids) == 0:
        raise ValueError('prompt_ids: expected shape (L_p,) with L_p >= 1 (at least <BOS>), got shape (0,)')
    ids = torch.cat((prompt_ids, continuation_ids))[None, :]
    with torch.no_grad():
        logits = model(ids[:, :-1])[0]
    log_probs = torch.log_softmax(logits, dim=-1)
    rows = log_probs
    return rows.gather(1, ids[0, 1:, None]).sum()

# sequence_log_prob: raw logits instead of log-probabilities
def _slip_sequence_log_prob_5(model, prompt_ids, continuation_ids):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    continuation_ids = torch.as_tensor(continuation_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 1, '(L_p,)')
    require_ndim('continuation_ids', continuation_ids, 1, '(L_c,)')
    if len(prompt_ids) == 0:
        raise ValueError('prompt_ids: expected shape (L_p,) with L_p >= 1 (at least <BOS>), got shape (0,)')
    ids = torch.cat((prompt_ids, continuation_ids))[None, :]
    with torch.no_grad():
        logits = model(ids[:, :-1])[0]
    log_probs = logits
    rows = log_probs[len(prompt_ids) - 1:]
    return rows.gather(1, continuation_ids[:, None]).sum()

# sequence_log_prob: negative log-likelihood (sign flipped)
def _slip_sequence_log_prob_6(model, prompt_ids, continuation_ids):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    continuation_ids = torch.as_tensor(continuation_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 1, '(L_p,)')
    require_ndim('continuation_ids', continuation_ids, 1, '(L_c,)')
    if len(prompt_ids) == 0:
        raise ValueError('prompt_ids: expected shape (L_p,) with L_p >= 1 (at least <BOS>), got shape (0,)')
    ids = torch.cat((prompt_ids, continuation_ids))[None, :]
    log_probs = torch.log_softmax(model(ids[:, :-1])[0], dim=-1)
    return -log_probs[len(prompt_ids) - 1:].gather(1, continuation_ids[:, None]).sum()

# sequence_log_prob: log base 2
def _slip_sequence_log_prob_7(model, prompt_ids, continuation_ids):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    continuation_ids = torch.as_tensor(continuation_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 1, '(L_p,)')
    require_ndim('continuation_ids', continuation_ids, 1, '(L_c,)')
    if len(prompt_ids) == 0:
        raise ValueError('prompt_ids: expected shape (L_p,) with L_p >= 1 (at least <BOS>), got shape (0,)')
    ids = torch.cat((prompt_ids, continuation_ids))[None, :]
    with torch.no_grad():
        logits = model(ids[:, :-1])[0]
    log_probs = torch.log2(torch.softmax(logits.double(), dim=-1))
    rows = log_probs[len(prompt_ids) - 1:]
    return rows.gather(1, continuation_ids[:, None]).sum()

# sequence_log_prob: log_softmax over the positions (dim=0)
def _slip_sequence_log_prob_8(model, prompt_ids, continuation_ids):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    continuation_ids = torch.as_tensor(continuation_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 1, '(L_p,)')
    require_ndim('continuation_ids', continuation_ids, 1, '(L_c,)')
    if len(prompt_ids) == 0:
        raise ValueError('prompt_ids: expected shape (L_p,) with L_p >= 1 (at least <BOS>), got shape (0,)')
    ids = torch.cat((prompt_ids, continuation_ids))[None, :]
    log_probs = torch.log_softmax(model(ids[:, :-1])[0], dim=0)
    return log_probs[len(prompt_ids) - 1:].gather(1, continuation_ids[:, None]).sum()

# sequence_log_prob: log_softmax over the positions of the full pass
def _slip_sequence_log_prob_9(model, prompt_ids, continuation_ids):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    continuation_ids = torch.as_tensor(continuation_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 1, '(L_p,)')
    require_ndim('continuation_ids', continuation_ids, 1, '(L_c,)')
    if len(prompt_ids) == 0:
        raise ValueError('prompt_ids: expected shape (L_p,) with L_p >= 1 (at least <BOS>), got shape (0,)')
    ids = torch.cat((prompt_ids, continuation_ids))[None, :]
    log_probs = torch.log_softmax(model(ids)[0], dim=0)
    return log_probs[len(prompt_ids) - 1:-1].gather(1, continuation_ids[:, None]).sum()

# sequence_log_prob: rows read from 0: right only for a one-token prompt
def _slip_sequence_log_prob_10(model, prompt_ids, continuation_ids):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    continuation_ids = torch.as_tensor(continuation_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 1, '(L_p,)')
    require_ndim('continuation_ids', continuation_ids, 1, '(L_c,)')
    if len(prompt_ids) == 0:
        raise ValueError('prompt_ids: expected shape (L_p,) with L_p >= 1 (at least <BOS>), got shape (0,)')
    ids = torch.cat((prompt_ids, continuation_ids))[None, :]
    with torch.no_grad():
        logits = model(ids[:, :-1])[0]
    log_probs = torch.log_softmax(logits, dim=-1)
    rows = log_probs[:len(continuation_ids)]
    return rows.gather(1, continuation_ids[:, None]).sum()

# sequence_log_prob: only the first continuation token scored
def _slip_sequence_log_prob_11(model, prompt_ids, continuation_ids):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    continuation_ids = torch.as_tensor(continuation_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 1, '(L_p,)')
    require_ndim('continuation_ids', continuation_ids, 1, '(L_c,)')
    if len(prompt_ids) == 0:
        raise ValueError('prompt_ids: expected shape (L_p,) with L_p >= 1 (at least <BOS>), got shape (0,)')
    ids = torch.cat((prompt_ids, continuation_ids))[None, :]
    with torch.no_grad():
        logits = model(ids)[0]
    log_probs = torch.log_softmax(logits, dim=-1)
    return log_probs[len(prompt_ids) - 1, continuation_ids[0]]

# sequence_log_prob: prompt and continuation given to the model as a batch of 1-D
def _slip_sequence_log_prob_12(model, prompt_ids, continuation_ids):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    continuation_ids = torch.as_tensor(continuation_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 1, '(L_p,)')
    require_ndim('continuation_ids', continuation_ids, 1, '(L_c,)')
    if len(prompt_ids) == 0:
        raise ValueError('prompt_ids: expected shape (L_p,) with L_p >= 1 (at least <BOS>), got shape (0,)')
    ids = torch.cat((prompt_ids, continuation_ids))
    with torch.no_grad():
        logits = model(ids)
    log_probs = torch.log_softmax(logits, dim=-1)
    rows = log_probs[len(prompt_ids) - 1:-1]
    return rows.gather(1, continuation_ids[:, None]).sum()

# next_token_probs: softmax written by hand without the row maximum (overflows)
def _slip_next_token_probs_0(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(dim=-1), logits.shape[-1]).to(logits.dtype)
    z = logits / temperature
    if top_k:
        kth = torch.topk(z, min(int(top_k), z.shape[-1]), dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float('-inf'))
    e = torch.exp(z)
    probs = e / e.sum(dim=-1, keepdim=True)
    if top_p is not None and top_p < 1.0:
        sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
        before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
        sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs

# next_token_probs: top-p drops the token that crosses p
def _slip_next_token_probs_1(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(logits.dtype)
    z = logits / temperature
    if top_k:
        kth = torch.topk(z, min(top_k, z.shape[-1]), dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float('-inf'))
    probs = torch.softmax(z, dim=-1)
    if top_p is not None and top_p < 1.0:
        sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
        cum = torch.cumsum(sorted_probs, dim=-1)
        sorted_probs = sorted_probs.masked_fill(cum > top_p, 0.0)
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs

# next_token_probs: top-p keeps a token once p is reached exactly (before > top_p)
def _slip_next_token_probs_2(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(dim=-1), logits.shape[-1]).to(logits.dtype)
    z = logits / temperature
    if top_k:
        kth = torch.topk(z, min(int(top_k), z.shape[-1]), dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float('-inf'))
    probs = torch.softmax(z, dim=-1)
    if top_p is not None and top_p < 1.0:
        sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
        before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
        sorted_probs = sorted_probs.masked_fill(before > top_p, 0.0)
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs

# next_token_probs: top-p filter applied at top_p = 1.0 too
def _slip_next_token_probs_3(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(dim=-1), logits.shape[-1]).to(logits.dtype)
    z = logits / temperature
    if top_k:
        kth = torch.topk(z, min(int(top_k), z.shape[-1]), dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float('-inf'))
    probs = torch.softmax(z, dim=-1)
    if top_p is not None:
        sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
        before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
        sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs

# next_token_probs: temperature applied to the probabilities
def _slip_next_token_probs_4(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(logits.dtype)
    z = logits.clone()
    if top_k:
        kth = torch.topk(z, min(top_k, z.shape[-1]), dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float('-inf'))
    probs = torch.softmax(z, dim=-1) / temperature
    probs = probs / probs.sum(dim=-1, keepdim=True)
    if top_p is not None and top_p < 1.0:
        sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
        before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
        sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs

# next_token_probs: temperature applied to the probabilities, softmax again
def _slip_next_token_probs_5(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(logits.dtype)
    probs = torch.softmax(torch.softmax(logits, dim=-1) / temperature, dim=-1)
    if top_k:
        kth = torch.topk(probs, min(top_k, probs.shape[-1]), dim=-1).values[..., -1:]
        probs = probs.masked_fill(probs < kth, 0.0)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs

# next_token_probs: softmax before top-k, zeros not renormalised
def _slip_next_token_probs_6(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(logits.dtype)
    probs = torch.softmax(logits / temperature, dim=-1)
    if top_k:
        kth = torch.topk(probs, min(top_k, probs.shape[-1]), dim=-1).values[..., -1:]
        probs = probs.masked_fill(probs < kth, 0.0)
    if top_p is not None and top_p < 1.0:
        sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
        before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
        sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs

# next_token_probs: removed logits filled with 0 instead of -inf
def _slip_next_token_probs_7(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(logits.dtype)
    z = logits / temperature
    if top_k:
        kth = torch.topk(z, min(top_k, z.shape[-1]), dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, 0.0)
    probs = torch.softmax(z, dim=-1)
    if top_p is not None and top_p < 1.0:
        sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
        before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
        sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs

# next_token_probs: top-p without renormalising
def _slip_next_token_probs_8(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(logits.dtype)
    z = logits / temperature
    probs = torch.softmax(z, dim=-1)
    if top_k:
        kth = torch.topk(z, min(top_k, z.shape[-1]), dim=-1).values[..., -1:]
        probs = torch.softmax(z.masked_fill(z < kth, float('-inf')), dim=-1)
    if top_p is not None and top_p < 1.0:
        sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
        before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
        sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
    return probs

# next_token_probs: cumulative sum in vocabulary order
def _slip_next_token_probs_9(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(logits.dtype)
    z = logits / temperature
    if top_k:
        kth = torch.topk(z, min(top_k, z.shape[-1]), dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float('-inf'))
    probs = torch.softmax(z, dim=-1)
    if top_p is not None and top_p < 1.0:
        before = torch.cumsum(probs, dim=-1) - probs
        probs = probs.masked_fill(before >= top_p, 0.0)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs

# next_token_probs: returned in sorted order
def _slip_next_token_probs_10(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(logits.dtype)
    z = logits / temperature
    if top_k:
        kth = torch.topk(z, min(top_k, z.shape[-1]), dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float('-inf'))
    probs = torch.softmax(z, dim=-1)
    if top_p is not None and top_p < 1.0:
        sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
        before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
        probs = sorted_probs.masked_fill(before >= top_p, 0.0)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs

# next_token_probs: top-p set chosen before the temperature
def _slip_next_token_probs_11(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(logits.dtype)
    z = logits.clone()
    if top_k:
        kth = torch.topk(z, min(top_k, z.shape[-1]), dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float('-inf'))
    if top_p is not None and top_p < 1.0:
        probs = torch.softmax(z, dim=-1)
        sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
        before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
        drop = torch.zeros_like(probs, dtype=torch.bool).scatter(-1, order, before >= top_p)
        z = z.masked_fill(drop, float('-inf'))
    return torch.softmax(z / temperature, dim=-1)

# next_token_probs: temperature 0 divides by zero
def _slip_next_token_probs_12(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    z = logits / temperature
    if top_k:
        kth = torch.topk(z, min(top_k, z.shape[-1]), dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float('-inf'))
    probs = torch.softmax(z, dim=-1)
    if top_p is not None and top_p < 1.0:
        sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
        before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
        sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs

# next_token_probs: top-k keeps the k smallest
def _slip_next_token_probs_13(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(logits.dtype)
    z = logits / temperature
    if top_k:
        kth = torch.topk(z, min(top_k, z.shape[-1]), dim=-1, largest=False).values[..., -1:]
        z = z.masked_fill(z > kth, float('-inf'))
    return torch.softmax(z, dim=-1)

# next_token_probs: logits multiplied by the temperature
def _slip_next_token_probs_14(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(logits.dtype)
    return torch.softmax(logits * temperature, dim=-1)

# next_token_probs: top-p applied before top-k
def _slip_next_token_probs_15(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(logits.dtype)
    z = logits / temperature
    probs = torch.softmax(z, dim=-1)
    if top_p is not None and top_p < 1.0:
        sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
        before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
        drop = torch.zeros_like(before, dtype=torch.bool).scatter(-1, order, before >= top_p)
        z = z.masked_fill(drop, float('-inf'))
    if top_k:
        kth = torch.topk(z, min(top_k, z.shape[-1]), dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float('-inf'))
    return torch.softmax(z, dim=-1)

# next_token_probs: top-k keeps k + 1 (sorted values indexed at k)
def _slip_next_token_probs_16(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(logits.dtype)
    z = logits / temperature
    if top_k and top_k < z.shape[-1]:
        kth = torch.sort(z, dim=-1, descending=True).values[..., top_k:top_k + 1]
        z = z.masked_fill(z < kth, float('-inf'))
    probs = torch.softmax(z, dim=-1)
    if top_p is not None and top_p < 1.0:
        sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
        before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
        sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs

# next_token_probs: top-k threshold from torch.kthvalue (the k-th SMALLEST)
def _slip_next_token_probs_17(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(dim=-1), logits.shape[-1]).to(logits.dtype)
    z = logits / temperature
    if top_k:
        kth = torch.kthvalue(z, min(int(top_k), z.shape[-1]), dim=-1, keepdim=True).values
        z = z.masked_fill(z < kth, float('-inf'))
    probs = torch.softmax(z, dim=-1)
    if top_p is not None and top_p < 1.0:
        sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
        before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
        sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs

# next_token_probs: top_k larger than the vocabulary crashes torch.topk
def _slip_next_token_probs_18(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(logits.dtype)
    z = logits / temperature
    if top_k:
        kth = torch.topk(z, top_k, dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float('-inf'))
    probs = torch.softmax(z, dim=-1)
    if top_p is not None and top_p < 1.0:
        sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
        before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
        sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs

# next_token_probs: top-p sorted ascending
def _slip_next_token_probs_19(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(logits.dtype)
    z = logits / temperature
    if top_k:
        kth = torch.topk(z, min(top_k, z.shape[-1]), dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float('-inf'))
    probs = torch.softmax(z, dim=-1)
    if top_p is not None and top_p < 1.0:
        sorted_probs, order = torch.sort(probs, dim=-1)
        before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
        sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs

# next_token_probs: top-p along dim=1 (right for (B, V) only)
def _slip_next_token_probs_20(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(logits.dtype)
    z = logits / temperature
    if top_k:
        kth = torch.topk(z, min(top_k, z.shape[-1]), dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float('-inf'))
    probs = torch.softmax(z, dim=-1)
    if top_p is not None and top_p < 1.0:
        if probs.dim() == 1:
            probs = probs[None]
            squeeze = True
        else:
            squeeze = False
        sorted_probs, order = torch.sort(probs, dim=1, descending=True)
        before = torch.cumsum(sorted_probs, dim=1) - sorted_probs
        sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
        probs = torch.zeros_like(probs).scatter(1, order, sorted_probs)
        probs = probs / probs.sum(dim=-1, keepdim=True)
        if squeeze:
            probs = probs[0]
    return probs

# next_token_probs: logits divided by the temperature in place (logits /= T)
def _slip_next_token_probs_21(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(dim=-1), logits.shape[-1]).to(logits.dtype)
    logits /= temperature
    z = logits
    if top_k:
        kth = torch.topk(z, min(int(top_k), z.shape[-1]), dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float('-inf'))
    probs = torch.softmax(z, dim=-1)
    if top_p is not None and top_p < 1.0:
        sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
        before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
        sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs

# next_token_probs: top-k mask written in place (masked_fill_) on the logits
def _slip_next_token_probs_22(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(dim=-1), logits.shape[-1]).to(logits.dtype)
    z = logits if temperature == 1 else logits / temperature
    if top_k:
        kth = torch.topk(z, min(int(top_k), z.shape[-1]), dim=-1).values[..., -1:]
        z.masked_fill_(z < kth, float('-inf'))
    probs = torch.softmax(z, dim=-1)
    if top_p is not None and top_p < 1.0:
        sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
        before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
        sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs

# next_token_probs: k-th value without keepdim (right for one row only)
def _slip_next_token_probs_23(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(dim=-1), logits.shape[-1]).to(logits.dtype)
    z = logits / temperature
    if top_k:
        kth = torch.topk(z, min(int(top_k), z.shape[-1]), dim=-1).values[..., -1]
        z = z.masked_fill(z < kth, float('-inf'))
    probs = torch.softmax(z, dim=-1)
    if top_p is not None and top_p < 1.0:
        sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
        before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
        sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs

# next_token_probs: softmax over dim=0 (right for one row only)
def _slip_next_token_probs_24(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(dim=-1), logits.shape[-1]).to(logits.dtype)
    z = logits / temperature
    if top_k:
        kth = torch.topk(z, min(int(top_k), z.shape[-1]), dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float('-inf'))
    probs = torch.softmax(z, dim=0)
    if top_p is not None and top_p < 1.0:
        sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
        before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
        sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs

# next_token_probs: top_k = 0 taken as a filter (if top_k is not None)
def _slip_next_token_probs_25(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(dim=-1), logits.shape[-1]).to(logits.dtype)
    z = logits / temperature
    if top_k is not None:
        kth = torch.topk(z, min(int(top_k), z.shape[-1]), dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float('-inf'))
    probs = torch.softmax(z, dim=-1)
    if top_p is not None and top_p < 1.0:
        sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
        before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
        sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs

# next_token_probs: temperature 0 returns the argmax id, not a one-hot row
def _slip_next_token_probs_26(logits, temperature=1.0, top_k=None, top_p=None):
    logits = torch.as_tensor(logits)
    require_min_ndim('logits', logits, 1, '(..., V)')
    require_sampling(temperature, top_k, top_p)
    if temperature == 0:
        return logits.argmax(dim=-1)
    z = logits / temperature
    if top_k:
        kth = torch.topk(z, min(int(top_k), z.shape[-1]), dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float('-inf'))
    probs = torch.softmax(z, dim=-1)
    if top_p is not None and top_p < 1.0:
        sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
        before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
        sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs

# generate: finished made as floats (torch.zeros(B))
def _slip_generate_0(model, prompt_ids, max_new_tokens, eos_id, pad_id=0, temperature=1.0, top_k=None, top_p=None, generator=None):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 2, '(B, L)')
    if max_new_tokens < 0:
        raise ValueError(f'max_new_tokens: expected a count >= 0, got {max_new_tokens}')
    max_len = getattr(getattr(model, 'config', None), 'max_len', None)
    if max_len is not None and prompt_ids.shape[1] + max_new_tokens > max_len:
        raise ValueError(f'max_new_tokens: {max_new_tokens} new tokens after prompt_ids of shape {tuple(prompt_ids.shape)} exceed max_len {max_len}')
    ids = prompt_ids
    finished = torch.zeros(ids.shape[0], device=ids.device)
    for _ in range(max_new_tokens):
        with torch.no_grad():
            logits = model(ids)[:, -1]
        new = sample_next(logits, temperature, top_k, top_p, generator)
        new = torch.where(finished, torch.full_like(new, pad_id), new)
        ids = torch.cat((ids, new[:, None]), dim=1)
        finished = finished | (new == eos_id)
        if bool(finished.all()):
            break
    return ids

# generate: EOS does not stop a row
def _slip_generate_1(model, prompt_ids, max_new_tokens, eos_id, pad_id=0, temperature=1.0, top_k=None, top_p=None, generator=None):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 2, '(B, L)')
    if max_new_tokens < 0:
        raise ValueError(f'max_new_tokens: expected a count >= 0, got {max_new_tokens}')
    max_len = getattr(getattr(model, 'config', None), 'max_len', None)
    if max_len is not None and prompt_ids.shape[1] + max_new_tokens > max_len:
        raise ValueError(f'max_new_tokens: {max_new_tokens} new tokens after prompt_ids of shape {tuple(prompt_ids.shape)} exceed max_len {max_len}')
    ids = prompt_ids
    for _ in range(max_new_tokens):
        new = sample_next(model(ids)[:, -1], temperature, top_k, top_p, generator)
        ids = torch.cat((ids, new[:, None]), dim=1)
    return ids

# generate: EOS not kept (finished marked before padding)
def _slip_generate_2(model, prompt_ids, max_new_tokens, eos_id, pad_id=0, temperature=1.0, top_k=None, top_p=None, generator=None):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 2, '(B, L)')
    if max_new_tokens < 0:
        raise ValueError(f'max_new_tokens: expected a count >= 0, got {max_new_tokens}')
    max_len = getattr(getattr(model, 'config', None), 'max_len', None)
    if max_len is not None and prompt_ids.shape[1] + max_new_tokens > max_len:
        raise ValueError(f'max_new_tokens: {max_new_tokens} new tokens after prompt_ids of shape {tuple(prompt_ids.shape)} exceed max_len {max_len}')
    ids = prompt_ids
    finished = torch.zeros(ids.shape[0], dtype=torch.bool)
    for _ in range(max_new_tokens):
        new = sample_next(model(ids)[:, -1], temperature, top_k, top_p, generator)
        finished = finished | (new == eos_id)
        new = torch.where(finished, torch.full_like(new, pad_id), new)
        ids = torch.cat((ids, new[:, None]), dim=1)
        if finished.all():
            break
    return ids

# generate: the whole batch stops at the first EOS
def _slip_generate_3(model, prompt_ids, max_new_tokens, eos_id, pad_id=0, temperature=1.0, top_k=None, top_p=None, generator=None):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 2, '(B, L)')
    if max_new_tokens < 0:
        raise ValueError(f'max_new_tokens: expected a count >= 0, got {max_new_tokens}')
    max_len = getattr(getattr(model, 'config', None), 'max_len', None)
    if max_len is not None and prompt_ids.shape[1] + max_new_tokens > max_len:
        raise ValueError(f'max_new_tokens: {max_new_tokens} new tokens after prompt_ids of shape {tuple(prompt_ids.shape)} exceed max_len {max_len}')
    ids = prompt_ids
    for _ in range(max_new_tokens):
        new = sample_next(model(ids)[:, -1], temperature, top_k, top_p, generator)
        ids = torch.cat((ids, new[:, None]), dim=1)
        if (new == eos_id).any():
            break
    return ids

# generate: finished rows keep generating
def _slip_generate_4(model, prompt_ids, max_new_tokens, eos_id, pad_id=0, temperature=1.0, top_k=None, top_p=None, generator=None):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 2, '(B, L)')
    if max_new_tokens < 0:
        raise ValueError(f'max_new_tokens: expected a count >= 0, got {max_new_tokens}')
    max_len = getattr(getattr(model, 'config', None), 'max_len', None)
    if max_len is not None and prompt_ids.shape[1] + max_new_tokens > max_len:
        raise ValueError(f'max_new_tokens: {max_new_tokens} new tokens after prompt_ids of shape {tuple(prompt_ids.shape)} exceed max_len {max_len}')
    ids = prompt_ids
    finished = torch.zeros(ids.shape[0], dtype=torch.bool)
    for _ in range(max_new_tokens):
        new = sample_next(model(ids)[:, -1], temperature, top_k, top_p, generator)
        ids = torch.cat((ids, new[:, None]), dim=1)
        finished = finished | (new == eos_id)
        if finished.all():
            break
    return ids

# generate: one step too few
def _slip_generate_5(model, prompt_ids, max_new_tokens, eos_id, pad_id=0, temperature=1.0, top_k=None, top_p=None, generator=None):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 2, '(B, L)')
    if max_new_tokens < 0:
        raise ValueError(f'max_new_tokens: expected a count >= 0, got {max_new_tokens}')
    max_len = getattr(getattr(model, 'config', None), 'max_len', None)
    if max_len is not None and prompt_ids.shape[1] + max_new_tokens > max_len:
        raise ValueError(f'max_new_tokens: {max_new_tokens} new tokens after prompt_ids of shape {tuple(prompt_ids.shape)} exceed max_len {max_len}')
    ids = prompt_ids
    finished = torch.zeros(ids.shape[0], dtype=torch.bool)
    for _ in range(max_new_tokens - 1):
        new = sample_next(model(ids)[:, -1], temperature, top_k, top_p, generator)
        new = torch.where(finished, torch.full_like(new, pad_id), new)
        ids = torch.cat((ids, new[:, None]), dim=1)
        finished = finished | (new == eos_id)
        if finished.all():
            break
    return ids

# generate: feeds only the last token
def _slip_generate_6(model, prompt_ids, max_new_tokens, eos_id, pad_id=0, temperature=1.0, top_k=None, top_p=None, generator=None):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 2, '(B, L)')
    if max_new_tokens < 0:
        raise ValueError(f'max_new_tokens: expected a count >= 0, got {max_new_tokens}')
    max_len = getattr(getattr(model, 'config', None), 'max_len', None)
    if max_len is not None and prompt_ids.shape[1] + max_new_tokens > max_len:
        raise ValueError(f'max_new_tokens: {max_new_tokens} new tokens after prompt_ids of shape {tuple(prompt_ids.shape)} exceed max_len {max_len}')
    ids = prompt_ids
    finished = torch.zeros(ids.shape[0], dtype=torch.bool)
    for _ in range(max_new_tokens):
        new = sample_next(model(ids[:, -1:])[:, -1], temperature, top_k, top_p, generator)
        new = torch.where(finished, torch.full_like(new, pad_id), new)
        ids = torch.cat((ids, new[:, None]), dim=1)
        finished = finished | (new == eos_id)
        if finished.all():
            break
    return ids

# generate: logits of the first position
def _slip_generate_7(model, prompt_ids, max_new_tokens, eos_id, pad_id=0, temperature=1.0, top_k=None, top_p=None, generator=None):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 2, '(B, L)')
    if max_new_tokens < 0:
        raise ValueError(f'max_new_tokens: expected a count >= 0, got {max_new_tokens}')
    max_len = getattr(getattr(model, 'config', None), 'max_len', None)
    if max_len is not None and prompt_ids.shape[1] + max_new_tokens > max_len:
        raise ValueError(f'max_new_tokens: {max_new_tokens} new tokens after prompt_ids of shape {tuple(prompt_ids.shape)} exceed max_len {max_len}')
    ids = prompt_ids
    finished = torch.zeros(ids.shape[0], dtype=torch.bool)
    for _ in range(max_new_tokens):
        new = sample_next(model(ids)[:, 0], temperature, top_k, top_p, generator)
        new = torch.where(finished, torch.full_like(new, pad_id), new)
        ids = torch.cat((ids, new[:, None]), dim=1)
        finished = finished | (new == eos_id)
        if finished.all():
            break
    return ids

# generate: always greedy (sampling arguments ignored)
def _slip_generate_8(model, prompt_ids, max_new_tokens, eos_id, pad_id=0, temperature=1.0, top_k=None, top_p=None, generator=None):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 2, '(B, L)')
    if max_new_tokens < 0:
        raise ValueError(f'max_new_tokens: expected a count >= 0, got {max_new_tokens}')
    max_len = getattr(getattr(model, 'config', None), 'max_len', None)
    if max_len is not None and prompt_ids.shape[1] + max_new_tokens > max_len:
        raise ValueError(f'max_new_tokens: {max_new_tokens} new tokens after prompt_ids of shape {tuple(prompt_ids.shape)} exceed max_len {max_len}')
    ids = prompt_ids
    finished = torch.zeros(ids.shape[0], dtype=torch.bool)
    for _ in range(max_new_tokens):
        new = model(ids)[:, -1].argmax(dim=-1)
        new = torch.where(finished, torch.full_like(new, pad_id), new)
        ids = torch.cat((ids, new[:, None]), dim=1)
        finished = finished | (new == eos_id)
        if finished.all():
            break
    return ids

# generate: finished reset every step
def _slip_generate_9(model, prompt_ids, max_new_tokens, eos_id, pad_id=0, temperature=1.0, top_k=None, top_p=None, generator=None):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 2, '(B, L)')
    if max_new_tokens < 0:
        raise ValueError(f'max_new_tokens: expected a count >= 0, got {max_new_tokens}')
    max_len = getattr(getattr(model, 'config', None), 'max_len', None)
    if max_len is not None and prompt_ids.shape[1] + max_new_tokens > max_len:
        raise ValueError(f'max_new_tokens: {max_new_tokens} new tokens after prompt_ids of shape {tuple(prompt_ids.shape)} exceed max_len {max_len}')
    ids = prompt_ids
    finished = torch.zeros(ids.shape[0], dtype=torch.bool)
    for _ in range(max_new_tokens):
        new = sample_next(model(ids)[:, -1], temperature, top_k, top_p, generator)
        new = torch.where(finished, torch.full_like(new, pad_id), new)
        ids = torch.cat((ids, new[:, None]), dim=1)
        finished = new == eos_id
        if finished.all():
            break
    return ids

# generate: max_new_tokens read as the total length
def _slip_generate_10(model, prompt_ids, max_new_tokens, eos_id, pad_id=0, temperature=1.0, top_k=None, top_p=None, generator=None):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 2, '(B, L)')
    if max_new_tokens < 0:
        raise ValueError(f'max_new_tokens: expected a count >= 0, got {max_new_tokens}')
    max_len = getattr(getattr(model, 'config', None), 'max_len', None)
    if max_len is not None and prompt_ids.shape[1] + max_new_tokens > max_len:
        raise ValueError(f'max_new_tokens: {max_new_tokens} new tokens after prompt_ids of shape {tuple(prompt_ids.shape)} exceed max_len {max_len}')
    ids = prompt_ids
    finished = torch.zeros(ids.shape[0], dtype=torch.bool)
    while ids.shape[1] < max_new_tokens:
        new = sample_next(model(ids)[:, -1], temperature, top_k, top_p, generator)
        new = torch.where(finished, torch.full_like(new, pad_id), new)
        ids = torch.cat((ids, new[:, None]), dim=1)
        finished = finished | (new == eos_id)
        if finished.all():
            break
    return ids

# generate: the model reads the prompt only
def _slip_generate_11(model, prompt_ids, max_new_tokens, eos_id, pad_id=0, temperature=1.0, top_k=None, top_p=None, generator=None):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 2, '(B, L)')
    if max_new_tokens < 0:
        raise ValueError(f'max_new_tokens: expected a count >= 0, got {max_new_tokens}')
    max_len = getattr(getattr(model, 'config', None), 'max_len', None)
    if max_len is not None and prompt_ids.shape[1] + max_new_tokens > max_len:
        raise ValueError(f'max_new_tokens: {max_new_tokens} new tokens after prompt_ids of shape {tuple(prompt_ids.shape)} exceed max_len {max_len}')
    ids = prompt_ids
    finished = torch.zeros(ids.shape[0], dtype=torch.bool)
    for _ in range(max_new_tokens):
        new = sample_next(model(prompt_ids)[:, -1], temperature, top_k, top_p, generator)
        new = torch.where(finished, torch.full_like(new, pad_id), new)
        ids = torch.cat((ids, new[:, None]), dim=1)
        finished = finished | (new == eos_id)
        if finished.all():
            break
    return ids

# generate: returns only the new tokens
def _slip_generate_12(model, prompt_ids, max_new_tokens, eos_id, pad_id=0, temperature=1.0, top_k=None, top_p=None, generator=None):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 2, '(B, L)')
    if max_new_tokens < 0:
        raise ValueError(f'max_new_tokens: expected a count >= 0, got {max_new_tokens}')
    max_len = getattr(getattr(model, 'config', None), 'max_len', None)
    if max_len is not None and prompt_ids.shape[1] + max_new_tokens > max_len:
        raise ValueError(f'max_new_tokens: {max_new_tokens} new tokens after prompt_ids of shape {tuple(prompt_ids.shape)} exceed max_len {max_len}')
    ids = prompt_ids
    finished = torch.zeros(ids.shape[0], dtype=torch.bool)
    for _ in range(max_new_tokens):
        new = sample_next(model(ids)[:, -1], temperature, top_k, top_p, generator)
        new = torch.where(finished, torch.full_like(new, pad_id), new)
        ids = torch.cat((ids, new[:, None]), dim=1)
        finished = finished | (new == eos_id)
        if finished.all():
            break
    return ids[:, prompt_ids.shape[1]:]

# generate: only the temperature and generator passed on
def _slip_generate_13(model, prompt_ids, max_new_tokens, eos_id, pad_id=0, temperature=1.0, top_k=None, top_p=None, generator=None):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 2, '(B, L)')
    if max_new_tokens < 0:
        raise ValueError(f'max_new_tokens: expected a count >= 0, got {max_new_tokens}')
    max_len = getattr(getattr(model, 'config', None), 'max_len', None)
    if max_len is not None and prompt_ids.shape[1] + max_new_tokens > max_len:
        raise ValueError(f'max_new_tokens: {max_new_tokens} new tokens after prompt_ids of shape {tuple(prompt_ids.shape)} exceed max_len {max_len}')
    ids = prompt_ids
    finished = torch.zeros(ids.shape[0], dtype=torch.bool)
    for _ in range(max_new_tokens):
        new = sample_next(model(ids)[:, -1], temperature, generator=generator)
        new = torch.where(finished, torch.full_like(new, pad_id), new)
        ids = torch.cat((ids, new[:, None]), dim=1)
        finished = finished | (new == eos_id)
        if finished.all():
            break
    return ids

# generate: probabilities passed to sample_next as logits
def _slip_generate_14(model, prompt_ids, max_new_tokens, eos_id, pad_id=0, temperature=1.0, top_k=None, top_p=None, generator=None):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 2, '(B, L)')
    if max_new_tokens < 0:
        raise ValueError(f'max_new_tokens: expected a count >= 0, got {max_new_tokens}')
    max_len = getattr(getattr(model, 'config', None), 'max_len', None)
    if max_len is not None and prompt_ids.shape[1] + max_new_tokens > max_len:
        raise ValueError(f'max_new_tokens: {max_new_tokens} new tokens after prompt_ids of shape {tuple(prompt_ids.shape)} exceed max_len {max_len}')
    ids = prompt_ids
    finished = torch.zeros(ids.shape[0], dtype=torch.bool, device=ids.device)
    for _ in range(max_new_tokens):
        with torch.no_grad():
            logits = model(ids)[:, -1]
        new = sample_next(torch.softmax(logits, dim=-1), temperature, top_k, top_p, generator)
        new = torch.where(finished, torch.full_like(new, pad_id), new)
        ids = torch.cat((ids, new[:, None]), dim=1)
        finished = finished | (new == eos_id)
        if bool(finished.all()):
            break
    return ids

# generate: the generator not passed on to sample_next
def _slip_generate_15(model, prompt_ids, max_new_tokens, eos_id, pad_id=0, temperature=1.0, top_k=None, top_p=None, generator=None):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 2, '(B, L)')
    if max_new_tokens < 0:
        raise ValueError(f'max_new_tokens: expected a count >= 0, got {max_new_tokens}')
    max_len = getattr(getattr(model, 'config', None), 'max_len', None)
    if max_len is not None and prompt_ids.shape[1] + max_new_tokens > max_len:
        raise ValueError(f'max_new_tokens: {max_new_tokens} new tokens after prompt_ids of shape {tuple(prompt_ids.shape)} exceed max_len {max_len}')
    ids = prompt_ids
    finished = torch.zeros(ids.shape[0], dtype=torch.bool, device=ids.device)
    for _ in range(max_new_tokens):
        with torch.no_grad():
            logits = model(ids)[:, -1]
        new = sample_next(logits, temperature, top_k, top_p)
        new = torch.where(finished, torch.full_like(new, pad_id), new)
        ids = torch.cat((ids, new[:, None]), dim=1)
        finished = finished | (new == eos_id)
        if bool(finished.all()):
            break
    return ids

# generate: pad_id also finishes a row
def _slip_generate_16(model, prompt_ids, max_new_tokens, eos_id, pad_id=0, temperature=1.0, top_k=None, top_p=None, generator=None):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 2, '(B, L)')
    if max_new_tokens < 0:
        raise ValueError(f'max_new_tokens: expected a count >= 0, got {max_new_tokens}')
    max_len = getattr(getattr(model, 'config', None), 'max_len', None)
    if max_len is not None and prompt_ids.shape[1] + max_new_tokens > max_len:
        raise ValueError(f'max_new_tokens: {max_new_tokens} new tokens after prompt_ids of shape {tuple(prompt_ids.shape)} exceed max_len {max_len}')
    ids = prompt_ids
    finished = torch.zeros(ids.shape[0], dtype=torch.bool, device=ids.device)
    for _ in range(max_new_tokens):
        with torch.no_grad():
            logits = model(ids)[:, -1]
        new = sample_next(logits, temperature, top_k, top_p, generator)
        new = torch.where(finished, torch.full_like(new, pad_id), new)
        ids = torch.cat((ids, new[:, None]), dim=1)
        finished = finished | (new == eos_id) | (new == pad_id)
        if bool(finished.all()):
            break
    return ids

# generate: finished rows padded with eos_id
def _slip_generate_17(model, prompt_ids, max_new_tokens, eos_id, pad_id=0, temperature=1.0, top_k=None, top_p=None, generator=None):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 2, '(B, L)')
    if max_new_tokens < 0:
        raise ValueError(f'max_new_tokens: expected a count >= 0, got {max_new_tokens}')
    max_len = getattr(getattr(model, 'config', None), 'max_len', None)
    if max_len is not None and prompt_ids.shape[1] + max_new_tokens > max_len:
        raise ValueError(f'max_new_tokens: {max_new_tokens} new tokens after prompt_ids of shape {tuple(prompt_ids.shape)} exceed max_len {max_len}')
    ids = prompt_ids
    finished = torch.zeros(ids.shape[0], dtype=torch.bool)
    for _ in range(max_new_tokens):
        with torch.no_grad():
            logits = model(ids)[:, -1]
        new = sample_next(logits, temperature, top_k, top_p, generator)
        new = torch.where(finished, torch.full_like(new, eos_id), new)
        ids = torch.cat((ids, new[:, None]), dim=1)
        finished = finished | (new == eos_id)
        if bool(finished.all()):
            break
    return ids

# generate: padding hard-coded as 0 (pad_id ignored)
def _slip_generate_18(model, prompt_ids, max_new_tokens, eos_id, pad_id=0, temperature=1.0, top_k=None, top_p=None, generator=None):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 2, '(B, L)')
    if max_new_tokens < 0:
        raise ValueError(f'max_new_tokens: expected a count >= 0, got {max_new_tokens}')
    max_len = getattr(getattr(model, 'config', None), 'max_len', None)
    if max_len is not None and prompt_ids.shape[1] + max_new_tokens > max_len:
        raise ValueError(f'max_new_tokens: {max_new_tokens} new tokens after prompt_ids of shape {tuple(prompt_ids.shape)} exceed max_len {max_len}')
    ids = prompt_ids
    finished = torch.zeros(ids.shape[0], dtype=torch.bool)
    for _ in range(max_new_tokens):
        with torch.no_grad():
            logits = model(ids)[:, -1]
        new = sample_next(logits, temperature, top_k, top_p, generator)
        new = torch.where(finished, torch.zeros_like(new), new)
        ids = torch.cat((ids, new[:, None]), dim=1)
        finished = finished | (new == eos_id)
        if bool(finished.all()):
            break
    return ids

# generate: no early stop: all max_new_tokens columns every time
def _slip_generate_19(model, prompt_ids, max_new_tokens, eos_id, pad_id=0, temperature=1.0, top_k=None, top_p=None, generator=None):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 2, '(B, L)')
    if max_new_tokens < 0:
        raise ValueError(f'max_new_tokens: expected a count >= 0, got {max_new_tokens}')
    max_len = getattr(getattr(model, 'config', None), 'max_len', None)
    if max_len is not None and prompt_ids.shape[1] + max_new_tokens > max_len:
        raise ValueError(f'max_new_tokens: {max_new_tokens} new tokens after prompt_ids of shape {tuple(prompt_ids.shape)} exceed max_len {max_len}')
    ids = prompt_ids
    finished = torch.zeros(ids.shape[0], dtype=torch.bool, device=ids.device)
    for _ in range(max_new_tokens):
        with torch.no_grad():
            logits = model(ids)[:, -1]
        new = sample_next(logits, temperature, top_k, top_p, generator)
        new = torch.where(finished, torch.full_like(new, pad_id), new)
        ids = torch.cat((ids, new[:, None]), dim=1)
        finished = finished | (new == eos_id)
    return ids

# generate: batch size hard-coded to 2
def _slip_generate_20(model, prompt_ids, max_new_tokens, eos_id, pad_id=0, temperature=1.0, top_k=None, top_p=None, generator=None):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 2, '(B, L)')
    if max_new_tokens < 0:
        raise ValueError(f'max_new_tokens: expected a count >= 0, got {max_new_tokens}')
    max_len = getattr(getattr(model, 'config', None), 'max_len', None)
    if max_len is not None and prompt_ids.shape[1] + max_new_tokens > max_len:
        raise ValueError(f'max_new_tokens: {max_new_tokens} new tokens after prompt_ids of shape {tuple(prompt_ids.shape)} exceed max_len {max_len}')
    ids = prompt_ids
    finished = torch.zeros(2, dtype=torch.bool)
    for _ in range(max_new_tokens):
        with torch.no_grad():
            logits = model(ids)[:, -1]
        new = sample_next(logits, temperature, top_k, top_p, generator)
        new = torch.where(finished, torch.full_like(new, pad_id), new)
        ids = torch.cat((ids, new[:, None]), dim=1)
        finished = finished | (new == eos_id)
        if bool(finished.all()):
            break
    return ids

# generate: logits of the last ROW of the batch (model(ids)[-1])
def _slip_generate_21(model, prompt_ids, max_new_tokens, eos_id, pad_id=0, temperature=1.0, top_k=None, top_p=None, generator=None):
    prompt_ids = torch.as_tensor(prompt_ids, dtype=torch.long)
    require_ndim('prompt_ids', prompt_ids, 2, '(B, L)')
    if max_new_tokens < 0:
        raise ValueError(f'max_new_tokens: expected a count >= 0, got {max_new_tokens}')
    max_len = getattr(getattr(model, 'config', None), 'max_len', None)
    if max_len is not None and prompt_ids.shape[1] + max_new_tokens > max_len:
        raise ValueError(f'max_new_tokens: {max_new_tokens} new tokens after prompt_ids of shape {tuple(prompt_ids.shape)} exceed max_len {max_len}')
    ids = prompt_ids
    finished = torch.zeros(ids.shape[0], dtype=torch.bool)
    for _ in range(max_new_tokens):
        with torch.no_grad():
            logits = model(ids)[-1]
        new = sample_next(logits, temperature, top_k, top_p, generator)
        new = torch.where(finished, torch.full_like(new, pad_id), new)
        ids = torch.cat((ids, new[:, None]), dim=1)
        finished = finished | (new == eos_id)
        if bool(finished.all()):
            break
    return ids

# perplexity: exp of the summed loss, then its root
def _slip_perplexity_0(model, batches):
    total_nll, total_tokens = (0.0, 0)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        if targets.shape != inputs.shape or loss_mask.shape != inputs.shape:
            raise ValueError(f'targets and loss_mask must have the shape of inputs {tuple(inputs.shape)}; got {tuple(targets.shape)} and {tuple(loss_mask.shape)}')
        with torch.no_grad():
            logits = model(inputs)
        safe = torch.where(loss_mask.bool(), targets, 0)
        nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), safe.flatten(), reduction='none')
        total_nll += float((nll * loss_mask.flatten()).sum())
        total_tokens += int(loss_mask.sum())
    return math.exp(total_nll) ** (1 / total_tokens)

# perplexity: mean of per-batch perplexities
def _slip_perplexity_1(model, batches):
    total_nll, total_tokens = (0.0, 0)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        if targets.shape != inputs.shape or loss_mask.shape != inputs.shape:
            raise ValueError(f'targets and loss_mask must have the shape of inputs {tuple(inputs.shape)}; got {tuple(targets.shape)} and {tuple(loss_mask.shape)}')
        logits = model(inputs)
        nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction='none')
        mean = (nll * loss_mask.flatten()).sum() / loss_mask.sum()
        total_nll += math.exp(float(mean))
        total_tokens += 1
    return total_nll / total_tokens

# perplexity: exp of the mean of per-batch losses
def _slip_perplexity_2(model, batches):
    total_nll, total_tokens = (0.0, 0)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        if targets.shape != inputs.shape or loss_mask.shape != inputs.shape:
            raise ValueError(f'targets and loss_mask must have the shape of inputs {tuple(inputs.shape)}; got {tuple(targets.shape)} and {tuple(loss_mask.shape)}')
        logits = model(inputs)
        nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction='none')
        total_nll += float((nll * loss_mask.flatten()).sum() / loss_mask.sum())
        total_tokens += 1
    return math.exp(total_nll / total_tokens)

# perplexity: padded targets counted
def _slip_perplexity_3(model, batches):
    total_nll, total_tokens = (0.0, 0)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        if targets.shape != inputs.shape or loss_mask.shape != inputs.shape:
            raise ValueError(f'targets and loss_mask must have the shape of inputs {tuple(inputs.shape)}; got {tuple(targets.shape)} and {tuple(loss_mask.shape)}')
        logits = model(inputs)
        nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction='none')
        total_nll += float(nll.sum())
        total_tokens += nll.numel()
    return math.exp(total_nll / total_tokens)

# perplexity: only the last batch counted
def _slip_perplexity_4(model, batches):
    total_nll, total_tokens = (0.0, 0)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        if targets.shape != inputs.shape or loss_mask.shape != inputs.shape:
            raise ValueError(f'targets and loss_mask must have the shape of inputs {tuple(inputs.shape)}; got {tuple(targets.shape)} and {tuple(loss_mask.shape)}')
        logits = model(inputs)
        nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction='none')
        total_nll = float((nll * loss_mask.flatten()).sum())
        total_tokens = int(loss_mask.sum())
    return math.exp(total_nll / total_tokens)

# perplexity: returns the loss
def _slip_perplexity_5(model, batches):
    total_nll, total_tokens = (0.0, 0)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        if targets.shape != inputs.shape or loss_mask.shape != inputs.shape:
            raise ValueError(f'targets and loss_mask must have the shape of inputs {tuple(inputs.shape)}; got {tuple(targets.shape)} and {tuple(loss_mask.shape)}')
        with torch.no_grad():
            logits = model(inputs)
        safe = torch.where(loss_mask.bool(), targets, 0)
        nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), safe.flatten(), reduction='none')
        total_nll += float((nll * loss_mask.flatten()).sum())
        total_tokens += int(loss_mask.sum())
    return total_nll / total_tokens

# perplexity: 2 ** loss
def _slip_perplexity_6(model, batches):
    total_nll, total_tokens = (0.0, 0)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        if targets.shape != inputs.shape or loss_mask.shape != inputs.shape:
            raise ValueError(f'targets and loss_mask must have the shape of inputs {tuple(inputs.shape)}; got {tuple(targets.shape)} and {tuple(loss_mask.shape)}')
        with torch.no_grad():
            logits = model(inputs)
        safe = torch.where(loss_mask.bool(), targets, 0)
        nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), safe.flatten(), reduction='none')
        total_nll += float((nll * loss_mask.flatten()).sum())
        total_tokens += int(loss_mask.sum())
    return 2 ** (total_nll / total_tokens)

# perplexity: masked sum divided by all positions
def _slip_perplexity_7(model, batches):
    total_nll, total_tokens = (0.0, 0)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        if targets.shape != inputs.shape or loss_mask.shape != inputs.shape:
            raise ValueError(f'targets and loss_mask must have the shape of inputs {tuple(inputs.shape)}; got {tuple(targets.shape)} and {tuple(loss_mask.shape)}')
        logits = model(inputs)
        nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction='none')
        total_nll += float((nll * loss_mask.flatten()).sum())
        total_tokens += loss_mask.numel()
    return math.exp(total_nll / total_tokens)

# perplexity: mean over all positions times the real count
def _slip_perplexity_8(model, batches):
    total_nll, total_tokens = (0.0, 0)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        if targets.shape != inputs.shape or loss_mask.shape != inputs.shape:
            raise ValueError(f'targets and loss_mask must have the shape of inputs {tuple(inputs.shape)}; got {tuple(targets.shape)} and {tuple(loss_mask.shape)}')
        logits = model(inputs)
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
        total_nll += float(loss) * int(loss_mask.sum())
        total_tokens += int(loss_mask.sum())
    return math.exp(total_nll / total_tokens)

# perplexity: exp of the summed loss
def _slip_perplexity_9(model, batches):
    total_nll, total_tokens = (0.0, 0)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        if targets.shape != inputs.shape or loss_mask.shape != inputs.shape:
            raise ValueError(f'targets and loss_mask must have the shape of inputs {tuple(inputs.shape)}; got {tuple(targets.shape)} and {tuple(loss_mask.shape)}')
        with torch.no_grad():
            logits = model(inputs)
        safe = torch.where(loss_mask.bool(), targets, 0)
        nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), safe.flatten(), reduction='none')
        total_nll += float((nll * loss_mask.flatten()).sum())
        total_tokens += int(loss_mask.sum())
    return math.exp(total_nll)

# perplexity: one over the mean probability
def _slip_perplexity_10(model, batches):
    probs = []
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        if targets.shape != inputs.shape or loss_mask.shape != inputs.shape:
            raise ValueError(f'targets and loss_mask must have the shape of inputs {tuple(inputs.shape)}; got {tuple(targets.shape)} and {tuple(loss_mask.shape)}')
        p = torch.softmax(model(inputs), dim=-1).gather(-1, targets[..., None])[..., 0]
        probs.append(p[loss_mask])
    return 1.0 / float(torch.cat(probs).mean())

# perplexity: every sequence weighted equally
def _slip_perplexity_11(model, batches):
    total_nll, total_tokens = (0.0, 0)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        if targets.shape != inputs.shape or loss_mask.shape != inputs.shape:
            raise ValueError(f'targets and loss_mask must have the shape of inputs {tuple(inputs.shape)}; got {tuple(targets.shape)} and {tuple(loss_mask.shape)}')
        with torch.no_grad():
            logits = model(inputs)
        safe = torch.where(loss_mask.bool(), targets, 0)
        nll = torch.nn.functional.cross_entropy(logits.transpose(1, 2), safe, reduction='none')
        mask = loss_mask.to(nll.dtype)
        per_row = (nll * mask).sum(1) / mask.sum(1)
        total_nll += float(per_row.sum())
        total_tokens += len(per_row)
    return math.exp(total_nll / total_tokens)

# perplexity: divided by the number of sequences
def _slip_perplexity_12(model, batches):
    total_nll, total_tokens = (0.0, 0)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        if targets.shape != inputs.shape or loss_mask.shape != inputs.shape:
            raise ValueError(f'targets and loss_mask must have the shape of inputs {tuple(inputs.shape)}; got {tuple(targets.shape)} and {tuple(loss_mask.shape)}')
        with torch.no_grad():
            logits = model(inputs)
        safe = torch.where(loss_mask.bool(), targets, 0)
        nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), safe.flatten(), reduction='none')
        total_nll += float((nll * loss_mask.flatten()).sum())
        total_tokens += len(targets)
    return math.exp(total_nll / total_tokens)

# perplexity: exp before dividing
def _slip_perplexity_13(model, batches):
    total_nll, total_tokens = (0.0, 0)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        if targets.shape != inputs.shape or loss_mask.shape != inputs.shape:
            raise ValueError(f'targets and loss_mask must have the shape of inputs {tuple(inputs.shape)}; got {tuple(targets.shape)} and {tuple(loss_mask.shape)}')
        with torch.no_grad():
            logits = model(inputs)
        safe = torch.where(loss_mask.bool(), targets, 0)
        nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), safe.flatten(), reduction='none')
        total_nll += float((nll * loss_mask.flatten()).sum())
        total_tokens += int(loss_mask.sum())
    return math.exp(total_nll) / total_tokens

# perplexity: ignore_index=0 and the targets that are not 0 counted
def _slip_perplexity_14(model, batches):
    total_nll, total_tokens = (0.0, 0)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        if targets.shape != inputs.shape or loss_mask.shape != inputs.shape:
            raise ValueError(f'targets and loss_mask must have the shape of inputs {tuple(inputs.shape)}; got {tuple(targets.shape)} and {tuple(loss_mask.shape)}')
        logits = model(inputs)
        total_nll += float(torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction='sum', ignore_index=0))
        total_tokens += int((targets != 0).sum())
    return math.exp(total_nll / total_tokens)

# perplexity: ignore_index=0 instead of loss_mask
def _slip_perplexity_15(model, batches):
    total_nll, total_tokens = (0.0, 0)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        if targets.shape != inputs.shape or loss_mask.shape != inputs.shape:
            raise ValueError(f'targets and loss_mask must have the shape of inputs {tuple(inputs.shape)}; got {tuple(targets.shape)} and {tuple(loss_mask.shape)}')
        logits = model(inputs)
        total_nll += float(torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction='sum', ignore_index=0))
        total_tokens += int(loss_mask.sum())
    return math.exp(total_nll / total_tokens)

# perplexity: floor division of the summed loss
def _slip_perplexity_16(model, batches):
    total_nll, total_tokens = (0.0, 0)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        if targets.shape != inputs.shape or loss_mask.shape != inputs.shape:
            raise ValueError(f'targets and loss_mask must have the shape of inputs {tuple(inputs.shape)}; got {tuple(targets.shape)} and {tuple(loss_mask.shape)}')
        with torch.no_grad():
            logits = model(inputs)
        safe = torch.where(loss_mask.bool(), targets, 0)
        nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), safe.flatten(), reduction='none')
        total_nll += float((nll * loss_mask.flatten()).sum())
        total_tokens += int(loss_mask.sum())
    return math.exp(total_nll // total_tokens)


# function: [(mistake, its hint, the mistake as a function)]
SLIPS = {
    'sequence_log_prob': [
        ("log-probability read at the target's own position", 'the logits at position t predict token t + 1: continuation token l is scored by the row of the token just BEFORE it (the last prompt token for the first one)', _slip_sequence_log_prob_0),
        ('product of probabilities instead of a sum of logs', 'sum the log-probabilities; do not exponentiate', _slip_sequence_log_prob_1),
        ('log of the softmax (torch.log(torch.softmax(...)))', 'take torch.log_softmax of the logits: a probability of e^-200 is 0 in float32, so log(softmax), or the log of a product, is -inf', _slip_sequence_log_prob_2),
        ('mean instead of sum', 'the chain rule multiplies the conditionals: sum their logs, do not average', _slip_sequence_log_prob_3),
        ("the prompt's own tokens scored too", 'score only the continuation tokens; the prompt is given, not predicted', _slip_sequence_log_prob_4),
        ('raw logits instead of log-probabilities', 'turn logits into log-probabilities with torch.log_softmax over the vocabulary', _slip_sequence_log_prob_5),
        ('negative log-likelihood (sign flipped)', 'return the log-probability itself, a number <= 0: sum of log p, not of -log p', _slip_sequence_log_prob_6),
        ('log base 2', 'work in nats: torch.log_softmax (natural log), not log2', _slip_sequence_log_prob_7),
        ('log_softmax over the positions (dim=0)', "log_softmax over the vocabulary, the LAST axis (dim=-1): each position's logits become a distribution over the next token", _slip_sequence_log_prob_8),
        ('log_softmax over the positions of the full pass', "log_softmax over the vocabulary, the LAST axis (dim=-1): each position's logits become a distribution over the next token", _slip_sequence_log_prob_9),
        ('rows read from 0: right only for a one-token prompt', 'the prompt has L_p = 3 tokens: continuation token l is scored by the log_softmax row at position L_p - 1 + l of the whole sequence, and every continuation token is scored (a sum)', _slip_sequence_log_prob_10),
        ('only the first continuation token scored', 'sum log p(w_l | prompt, w_<l) over the continuation tokens', _slip_sequence_log_prob_11),
        ('prompt and continuation given to the model as a batch of 1-D', 'score prompt and continuation in one pass: their ids joined into a batch of one are (1, L) and model(ids) is (1, L, V); take every length from the arguments (len(prompt_ids), len(continuation_ids))', _slip_sequence_log_prob_12),
    ],
    'next_token_probs': [
        ('softmax written by hand without the row maximum (overflows)', "exp(z) overflows to inf for logits near 1000 (inf / inf is NaN): use torch.softmax(z, dim=-1), or subtract each row's maximum before exp", _slip_next_token_probs_0),
        ('top-p drops the token that crosses p', 'keep the token that crosses p: a token stays when the probability of the likelier tokens before it is still below p', _slip_next_token_probs_1),
        ('top-p keeps a token once p is reached exactly (before > top_p)', 'keep the SMALLEST set that reaches p: a token whose likelier tokens already sum to exactly p is dropped (drop it when before >= top_p)', _slip_next_token_probs_2),
        ('top-p filter applied at top_p = 1.0 too', 'top_p = 1.0, like None, switches the filter off: in float32 the running sum reaches 1.0 before the last tokens, which must stay', _slip_next_token_probs_3),
        ('temperature applied to the probabilities', 'divide the LOGITS by the temperature before the softmax; dividing probabilities by T and renormalising changes nothing', _slip_next_token_probs_4),
        ('temperature applied to the probabilities, softmax again', 'divide the LOGITS by the temperature before the softmax; dividing probabilities by T and renormalising changes nothing', _slip_next_token_probs_5),
        ('softmax before top-k, zeros not renormalised', 'renormalise so that the kept probabilities sum to 1', _slip_next_token_probs_6),
        ('removed logits filled with 0 instead of -inf', "set the logits of removed tokens to -inf (float('-inf')), so softmax gives them exactly 0", _slip_next_token_probs_7),
        ('top-p without renormalising', 'renormalise so that the kept probabilities sum to 1', _slip_next_token_probs_8),
        ('cumulative sum in vocabulary order', 'sort the probabilities in decreasing order before the cumulative sum, then put the result back in vocabulary order', _slip_next_token_probs_9),
        ('returned in sorted order', 'scatter the kept probabilities back to their token ids (the order returned by torch.sort)', _slip_next_token_probs_10),
        ('top-p set chosen before the temperature', 'apply the temperature first, then the filters', _slip_next_token_probs_11),
        ('temperature 0 divides by zero', 'temperature 0 means argmax: return a one-hot vector, do not divide by 0', _slip_next_token_probs_12),
        ('top-k keeps the k smallest', 'keep the k largest logits (torch.topk returns the largest)', _slip_next_token_probs_13),
        ('logits multiplied by the temperature', 'divide the logits by the temperature', _slip_next_token_probs_14),
        ('top-p applied before top-k', 'apply top-k first, renormalise, then choose the top-p set from those renormalised probabilities', _slip_next_token_probs_15),
        ('top-k keeps k + 1 (sorted values indexed at k)', 'the k-th largest is topk(z, k).values[..., k - 1] (or [..., -1]): index k is the (k+1)-th', _slip_next_token_probs_16),
        ('top-k threshold from torch.kthvalue (the k-th SMALLEST)', 'torch.kthvalue counts from the smallest: the k-th largest of V logits is torch.topk(z, k).values[..., -1:], or torch.kthvalue(z, V - k + 1)', _slip_next_token_probs_17),
        ('top_k larger than the vocabulary crashes torch.topk', 'work along the last axis for any leading shape: keep that axis in reductions (torch.topk(z, k, dim=-1).values[..., -1:], sum(dim=-1, keepdim=True)) so the result broadcasts against every row; top_k None or 0 means no top-k filter', _slip_next_token_probs_18),
        ('top-p sorted ascending', 'sort in decreasing order: torch.sort(probs, descending=True)', _slip_next_token_probs_19),
        ('top-p along dim=1 (right for (B, V) only)', 'filter along the last axis (dim=-1), whatever the leading axes', _slip_next_token_probs_20),
        ('logits divided by the temperature in place (logits /= T)', 'work on new tensors (z = ... builds one), not in place', _slip_next_token_probs_21),
        ('top-k mask written in place (masked_fill_) on the logits', 'work on new tensors (z = ... builds one), not in place', _slip_next_token_probs_22),
        ('k-th value without keepdim (right for one row only)', 'work along the last axis for any leading shape: keep that axis in reductions (torch.topk(z, k, dim=-1).values[..., -1:], sum(dim=-1, keepdim=True)) so the result broadcasts against every row; top_k None or 0 means no top-k filter', _slip_next_token_probs_23),
        ('softmax over dim=0 (right for one row only)', 'filter along the last axis (dim=-1), whatever the leading axes', _slip_next_token_probs_24),
        ('top_k = 0 taken as a filter (if top_k is not None)', 'work along the last axis for any leading shape: keep that axis in reductions (torch.topk(z, k, dim=-1).values[..., -1:], sum(dim=-1, keepdim=True)) so the result broadcasts against every row; top_k None or 0 means no top-k filter', _slip_next_token_probs_25),
        ('temperature 0 returns the argmax id, not a one-hot row', 'one probability per token: the shape of logits', _slip_next_token_probs_26),
    ],
    'generate': [
        ('finished made as floats (torch.zeros(B))', 'keep finished a bool tensor (torch.zeros(B, dtype=torch.bool)): a condition', _slip_generate_0),
        ('EOS does not stop a row', 'once a row emits eos_id it is finished: later positions get pad_id, and the loop ends when every row has finished', _slip_generate_1),
        ('EOS not kept (finished marked before padding)', 'keep the EOS token itself: mark a row finished AFTER writing its new token', _slip_generate_2),
        ('the whole batch stops at the first EOS', 'each row stops on its own: keep going until EVERY row has emitted eos_id', _slip_generate_3),
        ('finished rows keep generating', 'after its EOS a row gets only pad_id (torch.where(finished, pad_id, new))', _slip_generate_4),
        ('one step too few', 'run at most max_new_tokens steps: range(max_new_tokens)', _slip_generate_5),
        ('feeds only the last token', "feed the whole sequence so far and use the LAST position's logits; and pass the temperature on: at temperature 0 sample_next picks the most likely token", _slip_generate_6),
        ('logits of the first position', "choose each token from the LAST position's logits, model(ids)[:, -1]; a finished row gets pad_id", _slip_generate_7),
        ('always greedy (sampling arguments ignored)', 'pass temperature, top_k, top_p and generator on to sample_next', _slip_generate_8),
        ('finished reset every step', 'a row stays finished once it has emitted eos_id: combine the old flags and (new == eos_id) with |, never overwrite them', _slip_generate_9),
        ('max_new_tokens read as the total length', 'max_new_tokens counts NEW tokens only: the output has up to L + max_new_tokens columns', _slip_generate_10),
        ('the model reads the prompt only', 'run the model on ids, the prompt AND every token appended so far', _slip_generate_11),
        ('returns only the new tokens', 'return the prompts followed by the new tokens, shape (B, L + n)', _slip_generate_12),
        ('only the temperature and generator passed on', 'pass temperature, top_k, top_p and generator on to sample_next', _slip_generate_13),
        ('probabilities passed to sample_next as logits', 'hand sample_next the raw logits, model(ids)[:, -1], and the temperature as given: sample_next divides by the temperature and takes the softmax itself', _slip_generate_14),
        ('the generator not passed on to sample_next', 'pass generator (and temperature, top_k, top_p) on to sample_next', _slip_generate_15),
        ('pad_id also finishes a row', 'only eos_id finishes a row; pad_id is written only after it (the model may emit the pad id as a real token)', _slip_generate_16),
        ('finished rows padded with eos_id', 'a finished row receives pad_id (the argument), not eos_id', _slip_generate_17),
        ('padding hard-coded as 0 (pad_id ignored)', 'write pad_id, the argument, into finished rows; 0 only happens to be the default', _slip_generate_18),
        ('no early stop: all max_new_tokens columns every time', 'stop as soon as every row has finished (if finished.all(): break): the output then has fewer than max_new_tokens new columns', _slip_generate_19),
        ('batch size hard-coded to 2', 'the next-token logits are model(ids)[:, -1], shape (B, V); take B from prompt_ids.shape[0], never from the worked example; pass temperature, top_k, top_p and generator to sample_next in that order', _slip_generate_20),
        ('logits of the last ROW of the batch (model(ids)[-1])', 'the next-token logits are model(ids)[:, -1], shape (B, V); take B from prompt_ids.shape[0], never from the worked example; pass temperature, top_k, top_p and generator to sample_next in that order', _slip_generate_21),
    ],
    'perplexity': [
        ('exp of the summed loss, then its root', 'divide the summed loss by the count before exp: exp of 2,504 nats (640 targets), or a product of 640 probabilities, is out of range', _slip_perplexity_0),
        ('mean of per-batch perplexities', 'weight every token equally: add the losses of ALL real tokens over all batches, divide by the total token count, then take exp', _slip_perplexity_1),
        ('exp of the mean of per-batch losses', 'weight every token equally: add the losses of ALL real tokens over all batches, divide by the total token count, then take exp', _slip_perplexity_2),
        ('padded targets counted', 'multiply the per-token losses by loss_mask and count only real tokens', _slip_perplexity_3),
        ('only the last batch counted', 'add every batch to the running totals (total_nll += ...), do not overwrite', _slip_perplexity_4),
        ('returns the loss', 'perplexity = exp(mean loss in nats)', _slip_perplexity_5),
        ('2 ** loss', 'the loss is in nats (natural log): perplexity = exp(loss), not 2 ** loss', _slip_perplexity_6),
        ('masked sum divided by all positions', 'multiply the per-token losses by loss_mask and count only real tokens', _slip_perplexity_7),
        ('mean over all positions times the real count', 'multiply the per-token losses by loss_mask and count only real tokens', _slip_perplexity_8),
        ('exp of the summed loss', 'divide the summed loss by the number of real targets before exp', _slip_perplexity_9),
        ('one over the mean probability', 'average the LOG-probabilities (the loss), then exp; not the probabilities', _slip_perplexity_10),
        ('every sequence weighted equally', 'weight every token equally: add the losses of ALL real tokens over all batches, divide by the total token count, then take exp', _slip_perplexity_11),
        ('divided by the number of sequences', 'divide by the number of real target TOKENS, loss_mask.sum(), not by the number of rows', _slip_perplexity_12),
        ('exp before dividing', 'divide the summed loss by the number of real targets before exp', _slip_perplexity_13),
        ('ignore_index=0 and the targets that are not 0 counted', 'loss_mask says which targets are real; the pad id may be any id (and 0 may be a real token): multiply by loss_mask rather than ignore_index', _slip_perplexity_14),
        ('ignore_index=0 instead of loss_mask', 'loss_mask says which targets are real; the pad id may be any id (and 0 may be a real token): multiply by loss_mask rather than ignore_index', _slip_perplexity_15),
        ('floor division of the summed loss', 'true division: total_nll / total_tokens (// rounds down)', _slip_perplexity_16),
    ],
}
