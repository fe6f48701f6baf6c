"""Reference answers for notebook 08, written the way the exercises ask (PyTorch).

Used by the hidden tests and the project's own tests; never shipped to students.
"""

import math

import torch
import torch.nn.functional as F

ANSWERS = {
    # name: (options, correct letter, explanation shown when the answer is wrong)
    "answer_sequence_prob": ("ABC", "A", "the chain rule multiplies every conditional, <EOS> "
                             "included: 0.20 * 0.20 * 1.00 * 0.75 = 0.030; 0.040 leaves out the "
                             "end token, 0.538 is their mean."),
    "answer_teacher_forcing": ("ABC", "C", "when scoring, every earlier token is known in advance, "
                               "so one causal pass gives all the conditionals; a writer must wait "
                               "for its own choices, cache or not."),
    "answer_top_p": ("ABC", "B", "top-p keeps the smallest set of likeliest tokens that reaches p: "
                     "report's 0.20 falls short, and slides, the token that crosses p (0.35), "
                     "stays."),
    "answer_eos": ("ABC", "A", "without an end token the model cannot say that an email is "
                   "finished: every sample runs to the length limit. Padding comes only after the "
                   "end."),
    "answer_cache": ("ABC", "B", "an earlier token's keys and values never change (they depend on "
                     "that token, its prefix and its own position), so they are stored; only the "
                     "new token needs a query."),
    "answer_perplexity": ("ABC", "C", "perplexity is exp(loss): no model beats the corpus entropy, "
                          "so the floor is exp(0.72), about 2.05; 1 would need a corpus with no "
                          "uncertainty at all."),
}


def sequence_log_prob(model, prompt_ids, continuation_ids):
    ids = torch.cat((prompt_ids, continuation_ids))[None, :]  # (1, L_p + L_c)
    with torch.no_grad():
        logits = model(ids[:, :-1])[0]  # (L_p + L_c - 1, V): row t predicts token t + 1
    log_probs = torch.log_softmax(logits, dim=-1)
    rows = log_probs[len(prompt_ids) - 1:]  # (L_c, V): the rows that predict the continuation
    return rows.gather(1, continuation_ids[:, None]).sum()


def next_token_probs(logits, temperature=1.0, top_k=None, top_p=None):
    if temperature == 0:
        return F.one_hot(logits.argmax(dim=-1), logits.shape[-1]).to(logits.dtype)
    z = logits / temperature  # (..., V)
    if top_k:
        kth = torch.topk(z, min(top_k, z.shape[-1]), dim=-1).values[..., -1:]  # (..., 1)
        z = z.masked_fill(z < kth, float("-inf"))
    probs = torch.softmax(z, dim=-1)
    if top_p is not None and top_p < 1.0:
        sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
        before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs  # mass of the likelier ones
        sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs


def sample_next(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return logits.argmax(dim=-1)
    probs = next_token_probs(logits, temperature, top_k, top_p)  # (..., V)
    flat = probs.reshape(-1, probs.shape[-1])  # (N, V)
    draws = torch.multinomial(flat, 1, generator=generator)  # (N, 1)
    return draws.reshape(probs.shape[:-1])


def generate(model, prompt_ids, max_new_tokens, eos_id, pad_id=0, temperature=1.0,
             top_k=None, top_p=None, generator=None):
    ids = prompt_ids  # (B, L)
    finished = torch.zeros(ids.shape[0], dtype=torch.bool, device=ids.device)
    for _ in range(max_new_tokens):
        with torch.no_grad():
            logits = model(ids)[:, -1]  # (B, V): the last position predicts the next token
        new = sample_next(logits, temperature, top_k, top_p, generator)  # (B,)
        new = torch.where(finished, torch.full_like(new, pad_id), new)
        ids = torch.cat((ids, new[:, None]), dim=1)  # (B, L + 1)
        finished = finished | (new == eos_id)
        if bool(finished.all()):
            break
    return ids


def perplexity(model, batches):
    total_nll, total_tokens = 0.0, 0
    for inputs, targets, loss_mask in batches:
        with torch.no_grad():
            logits = model(inputs)  # (B, L, V)
        nll = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction="none")
        total_nll += float((nll * loss_mask.flatten()).sum())
        total_tokens += int(loss_mask.sum())
    return math.exp(total_nll / total_tokens)
