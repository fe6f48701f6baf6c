"""Reference answers for notebook 08, written the way the exercises ask (PyTorch).

Used by the hidden tests and the project's own tests; never shipped to students.
"""

import math

import torch
import torch.nn.functional as F

ANSWERS = {
    # name: (options, correct letter, explanation shown when the answer is wrong)
    "answer_teacher_forcing": ("ABC", "B", "in training (and when scoring a given continuation) "
                               "every conditional reads the TRUE earlier tokens, known in "
                               "advance, so one causal forward pass computes them all; only "
                               "generation must wait for its own earlier choices."),
    "answer_top_p": ("ABC", "A", "top-p keeps the smallest set of most likely tokens whose "
                     "probability reaches p: 0.5 alone is below 0.6, so the token that crosses "
                     "p (0.25) is kept too: {report, slides}."),
    "answer_eos": ("ABC", "C", "without an end token the model cannot say that an email is "
                   "finished: every sample runs to the length limit. Keeping <EOS> in the output "
                   "records that the email ended on its own."),
    "answer_cache": ("ABC", "A", "a causal model never changes an earlier token's keys and "
                     "values (they depend only on that token and its prefix), so they are "
                     "computed once and stored; each step needs the query of the new token only."),
    "answer_perplexity": ("ABC", "B", "perplexity is exp(loss): exp(0.72) is about 2.05, as if "
                          "the model chose uniformly among about two tokens at each step; no "
                          "model can beat the corpus entropy, so this is the floor."),
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
