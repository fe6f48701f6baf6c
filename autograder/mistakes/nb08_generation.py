"""Notebook 08 catalogue: the mistakes students make, and correct answers written otherwise."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from grader.catalogue import alternative, mistake  # noqa: E402

MISTAKES = [
    # sequence_log_prob
    mistake("sequence_log_prob", "log-probability read at the target's own position", """
        ids = torch.cat((prompt_ids, continuation_ids))[None, :]
        log_probs = torch.log_softmax(model(ids)[0], dim=-1)
        rows = log_probs[len(prompt_ids):]
        return rows.gather(1, continuation_ids[:, None]).sum()
    """, hint="the logits at position t predict token t + 1"),
    mistake("sequence_log_prob", "product of probabilities instead of a sum of logs", """
        ids = torch.cat((prompt_ids, continuation_ids))[None, :]
        probs = torch.softmax(model(ids[:, :-1])[0], dim=-1)
        rows = probs[len(prompt_ids) - 1:]
        return rows.gather(1, continuation_ids[:, None]).prod()
    """, hint="do not exponentiate"),
    mistake("sequence_log_prob", "mean instead of sum", """
        ids = torch.cat((prompt_ids, continuation_ids))[None, :]
        log_probs = torch.log_softmax(model(ids[:, :-1])[0], dim=-1)
        return log_probs[len(prompt_ids) - 1:].gather(1, continuation_ids[:, None]).mean()
    """, hint="do not average"),
    mistake("sequence_log_prob", "the prompt's own tokens scored too", """
        ids = torch.cat((prompt_ids, continuation_ids))[None, :]
        log_probs = torch.log_softmax(model(ids[:, :-1])[0], dim=-1)
        return log_probs.gather(1, ids[0, 1:, None]).sum()
    """, hint="score only the continuation"),
    mistake("sequence_log_prob", "raw logits instead of log-probabilities", """
        ids = torch.cat((prompt_ids, continuation_ids))[None, :]
        logits = model(ids[:, :-1])[0]
        return logits[len(prompt_ids) - 1:].gather(1, continuation_ids[:, None]).sum()
    """, hint="torch.log_softmax"),
    # next_token_probs
    mistake("next_token_probs", "top-p drops the token that crosses p", """
        if temperature == 0:
            return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(
                logits.dtype)
        z = logits / temperature
        if top_k:
            kth = torch.topk(z, min(top_k, z.shape[-1]), dim=-1).values[..., -1:]
            z = z.masked_fill(z < kth, float("-inf"))
        probs = torch.softmax(z, dim=-1)
        if top_p is not None and top_p < 1.0:
            sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
            cum = torch.cumsum(sorted_probs, dim=-1)
            sorted_probs = sorted_probs.masked_fill(cum > top_p, 0.0)
            probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
            probs = probs / probs.sum(dim=-1, keepdim=True)
        return probs
    """, hint="keep the token that crosses p"),
    mistake("next_token_probs", "temperature applied to the probabilities", """
        if temperature == 0:
            return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(
                logits.dtype)
        z = logits.clone()
        if top_k:
            kth = torch.topk(z, min(top_k, z.shape[-1]), dim=-1).values[..., -1:]
            z = z.masked_fill(z < kth, float("-inf"))
        probs = torch.softmax(z, dim=-1) / temperature
        probs = probs / probs.sum(dim=-1, keepdim=True)
        if top_p is not None and top_p < 1.0:
            sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
            before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
            sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
            probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
            probs = probs / probs.sum(dim=-1, keepdim=True)
        return probs
    """, hint="divide the LOGITS by the temperature"),
    mistake("next_token_probs", "temperature applied to the probabilities, softmax again", """
        if temperature == 0:
            return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(
                logits.dtype)
        probs = torch.softmax(torch.softmax(logits, dim=-1) / temperature, dim=-1)
        if top_k:
            kth = torch.topk(probs, min(top_k, probs.shape[-1]), dim=-1).values[..., -1:]
            probs = probs.masked_fill(probs < kth, 0.0)
            probs = probs / probs.sum(dim=-1, keepdim=True)
        return probs
    """, hint="divide the LOGITS by the temperature"),
    mistake("next_token_probs", "softmax before top-k, zeros not renormalised", """
        if temperature == 0:
            return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(
                logits.dtype)
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
    """, hint="renormalise"),
    mistake("next_token_probs", "removed logits filled with 0 instead of -inf", """
        if temperature == 0:
            return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(
                logits.dtype)
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
    """, hint="-inf"),
    mistake("next_token_probs", "top-p without renormalising", """
        if temperature == 0:
            return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(
                logits.dtype)
        z = logits / temperature
        probs = torch.softmax(z, dim=-1)
        if top_k:
            kth = torch.topk(z, min(top_k, z.shape[-1]), dim=-1).values[..., -1:]
            probs = torch.softmax(z.masked_fill(z < kth, float("-inf")), dim=-1)
        if top_p is not None and top_p < 1.0:
            sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
            before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
            sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
            probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
        return probs
    """, hint="renormalise"),
    mistake("next_token_probs", "cumulative sum in vocabulary order", """
        if temperature == 0:
            return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(
                logits.dtype)
        z = logits / temperature
        if top_k:
            kth = torch.topk(z, min(top_k, z.shape[-1]), dim=-1).values[..., -1:]
            z = z.masked_fill(z < kth, float("-inf"))
        probs = torch.softmax(z, dim=-1)
        if top_p is not None and top_p < 1.0:
            before = torch.cumsum(probs, dim=-1) - probs
            probs = probs.masked_fill(before >= top_p, 0.0)
            probs = probs / probs.sum(dim=-1, keepdim=True)
        return probs
    """, hint="sort the probabilities in decreasing order"),
    mistake("next_token_probs", "returned in sorted order", """
        if temperature == 0:
            return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(
                logits.dtype)
        z = logits / temperature
        if top_k:
            kth = torch.topk(z, min(top_k, z.shape[-1]), dim=-1).values[..., -1:]
            z = z.masked_fill(z < kth, float("-inf"))
        probs = torch.softmax(z, dim=-1)
        if top_p is not None and top_p < 1.0:
            sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
            before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
            probs = sorted_probs.masked_fill(before >= top_p, 0.0)
            probs = probs / probs.sum(dim=-1, keepdim=True)
        return probs
    """, hint="scatter the kept probabilities back"),
    mistake("next_token_probs", "top-p set chosen before the temperature", """
        if temperature == 0:
            return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(
                logits.dtype)
        z = logits.clone()
        if top_k:
            kth = torch.topk(z, min(top_k, z.shape[-1]), dim=-1).values[..., -1:]
            z = z.masked_fill(z < kth, float("-inf"))
        if top_p is not None and top_p < 1.0:
            probs = torch.softmax(z, dim=-1)
            sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
            before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
            drop = torch.zeros_like(probs, dtype=torch.bool).scatter(-1, order, before >= top_p)
            z = z.masked_fill(drop, float("-inf"))
        return torch.softmax(z / temperature, dim=-1)
    """, hint="apply the temperature first"),
    mistake("next_token_probs", "temperature 0 divides by zero", """
        z = logits / temperature
        if top_k:
            kth = torch.topk(z, min(top_k, z.shape[-1]), dim=-1).values[..., -1:]
            z = z.masked_fill(z < kth, float("-inf"))
        probs = torch.softmax(z, dim=-1)
        if top_p is not None and top_p < 1.0:
            sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
            before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
            sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
            probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
            probs = probs / probs.sum(dim=-1, keepdim=True)
        return probs
    """, hint="temperature 0 means argmax"),
    mistake("next_token_probs", "top-k keeps the k smallest", """
        if temperature == 0:
            return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(
                logits.dtype)
        z = logits / temperature
        if top_k:
            kth = torch.topk(z, min(top_k, z.shape[-1]), dim=-1, largest=False).values[..., -1:]
            z = z.masked_fill(z > kth, float("-inf"))
        return torch.softmax(z, dim=-1)
    """, hint="keep the k largest"),
    mistake("next_token_probs", "logits multiplied by the temperature", """
        if temperature == 0:
            return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(
                logits.dtype)
        return torch.softmax(logits * temperature, dim=-1)
    """, hint="divide the logits by the temperature"),
    # sample_next
    mistake("sample_next", "generator not passed on", """
        if temperature == 0:
            return logits.argmax(dim=-1)
        probs = next_token_probs(logits, temperature, top_k, top_p)
        flat = probs.reshape(-1, probs.shape[-1])
        return torch.multinomial(flat, 1).reshape(probs.shape[:-1])
    """, hint="generator=generator"),
    mistake("sample_next", "draws from the unfiltered softmax", """
        if temperature == 0:
            return logits.argmax(dim=-1)
        probs = torch.softmax(logits / temperature, dim=-1)
        flat = probs.reshape(-1, probs.shape[-1])
        return torch.multinomial(flat, 1, generator=generator).reshape(probs.shape[:-1])
    """, hint="sample from next_token_probs"),
    mistake("sample_next", "always the argmax", """
        return next_token_probs(logits, temperature, top_k, top_p).argmax(dim=-1)
    """, hint="draw at random"),
    mistake("sample_next", "returns the distribution", """
        return next_token_probs(logits, temperature, top_k, top_p)
    """, hint="return token ids"),
    mistake("sample_next", "keeps the sample axis", """
        if temperature == 0:
            return logits.argmax(dim=-1)
        probs = next_token_probs(logits, temperature, top_k, top_p)
        return torch.multinomial(probs.reshape(-1, probs.shape[-1]), 1, generator=generator)
    """, hint="drop the last axis"),
    # generate
    mistake("generate", "EOS does not stop a row", """
        ids = prompt_ids
        for _ in range(max_new_tokens):
            new = sample_next(model(ids)[:, -1], temperature, top_k, top_p, generator)
            ids = torch.cat((ids, new[:, None]), dim=1)
        return ids
    """, hint="once a row emits eos_id it is finished"),
    mistake("generate", "EOS not kept (finished marked before padding)", """
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
    """, hint="keep the EOS token itself"),
    mistake("generate", "the whole batch stops at the first EOS", """
        ids = prompt_ids
        for _ in range(max_new_tokens):
            new = sample_next(model(ids)[:, -1], temperature, top_k, top_p, generator)
            ids = torch.cat((ids, new[:, None]), dim=1)
            if (new == eos_id).any():
                break
        return ids
    """, hint="each row stops on its own"),
    mistake("generate", "finished rows keep generating", """
        ids = prompt_ids
        finished = torch.zeros(ids.shape[0], dtype=torch.bool)
        for _ in range(max_new_tokens):
            new = sample_next(model(ids)[:, -1], temperature, top_k, top_p, generator)
            ids = torch.cat((ids, new[:, None]), dim=1)
            finished = finished | (new == eos_id)
            if finished.all():
                break
        return ids
    """, hint="after its EOS a row gets only pad_id"),
    mistake("generate", "one step too few", """
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
    """, hint="run at most max_new_tokens steps"),
    mistake("generate", "feeds only the last token", """
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
    """, hint="feed the whole sequence so far"),
    mistake("generate", "logits of the first position", """
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
    """, hint="LAST position"),
    mistake("generate", "always greedy (sampling arguments ignored)", """
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
    """, hint="pass temperature, top_k, top_p and generator on to sample_next"),
    # perplexity
    mistake("perplexity", "mean of per-batch perplexities", (
        None,
        """
        logits = model(inputs)
        nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(),
                                                reduction="none")
        mean = (nll * loss_mask.flatten()).sum() / loss_mask.sum()
        total_nll += math.exp(float(mean))
        total_tokens += 1
        """,
        "return total_nll / total_tokens",
    ), hint="weight every token equally"),
    mistake("perplexity", "exp of the mean of per-batch losses", (
        None,
        """
        logits = model(inputs)
        nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(),
                                                reduction="none")
        total_nll += float((nll * loss_mask.flatten()).sum() / loss_mask.sum())
        total_tokens += 1
        """,
        None,
    ), hint="weight every token equally"),
    mistake("perplexity", "padded targets counted", (
        None,
        """
        logits = model(inputs)
        nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(),
                                                reduction="none")
        total_nll += float(nll.sum())
        total_tokens += nll.numel()
        """,
        None,
    ), hint="loss_mask"),
    mistake("perplexity", "only the last batch counted", (
        None,
        """
        logits = model(inputs)
        nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(),
                                                reduction="none")
        total_nll = float((nll * loss_mask.flatten()).sum())
        total_tokens = int(loss_mask.sum())
        """,
        None,
    ), hint="add every batch to the running totals"),
    mistake("perplexity", "returns the loss", (None, None, "return total_nll / total_tokens"),
            hint="perplexity = exp"),
    mistake("perplexity", "2 ** loss", (None, None, "return 2 ** (total_nll / total_tokens)"),
            hint="not 2 ** loss"),
    # -- added in the adversarial review
    mistake("sequence_log_prob", "negative log-likelihood (sign flipped)", """
        ids = torch.cat((prompt_ids, continuation_ids))[None, :]
        log_probs = torch.log_softmax(model(ids[:, :-1])[0], dim=-1)
        return -log_probs[len(prompt_ids) - 1:].gather(1, continuation_ids[:, None]).sum()
    """, hint="a number <= 0"),
    mistake("sequence_log_prob", "log base 2", """
        ids = torch.cat((prompt_ids, continuation_ids))[None, :]
        probs = torch.softmax(model(ids[:, :-1])[0].double(), dim=-1)
        return torch.log2(probs[len(prompt_ids) - 1:].gather(1, continuation_ids[:, None])).sum()
    """, hint="work in nats"),
    mistake("sequence_log_prob", "log_softmax over the positions (dim=0)", """
        ids = torch.cat((prompt_ids, continuation_ids))[None, :]
        log_probs = torch.log_softmax(model(ids[:, :-1])[0], dim=0)
        return log_probs[len(prompt_ids) - 1:].gather(1, continuation_ids[:, None]).sum()
    """, hint="the LAST axis (dim=-1)"),
    mistake("sequence_log_prob", "log_softmax over the positions of the full pass", """
        ids = torch.cat((prompt_ids, continuation_ids))[None, :]
        log_probs = torch.log_softmax(model(ids)[0], dim=0)
        return log_probs[len(prompt_ids) - 1:-1].gather(1, continuation_ids[:, None]).sum()
    """, hint="the LAST axis (dim=-1)"),
    mistake("next_token_probs", "top-p applied before top-k", """
        if temperature == 0:
            return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(
                logits.dtype)
        z = logits / temperature
        probs = torch.softmax(z, dim=-1)
        if top_p is not None and top_p < 1.0:
            sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
            before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
            drop = torch.zeros_like(before, dtype=torch.bool).scatter(-1, order, before >= top_p)
            z = z.masked_fill(drop, float("-inf"))
        if top_k:
            kth = torch.topk(z, min(top_k, z.shape[-1]), dim=-1).values[..., -1:]
            z = z.masked_fill(z < kth, float("-inf"))
        return torch.softmax(z, dim=-1)
    """, hint="apply top-k first"),
    mistake("next_token_probs", "top-k keeps k + 1 (sorted values indexed at k)", """
        if temperature == 0:
            return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(
                logits.dtype)
        z = logits / temperature
        if top_k and top_k < z.shape[-1]:
            kth = torch.sort(z, dim=-1, descending=True).values[..., top_k:top_k + 1]
            z = z.masked_fill(z < kth, float("-inf"))
        probs = torch.softmax(z, dim=-1)
        if top_p is not None and top_p < 1.0:
            sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
            before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
            sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
            probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
            probs = probs / probs.sum(dim=-1, keepdim=True)
        return probs
    """, hint="index k is the (k+1)-th"),
    mistake("next_token_probs", "top_k larger than the vocabulary crashes torch.topk", """
        if temperature == 0:
            return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(
                logits.dtype)
        z = logits / temperature
        if top_k:
            kth = torch.topk(z, top_k, dim=-1).values[..., -1:]
            z = z.masked_fill(z < kth, float("-inf"))
        probs = torch.softmax(z, dim=-1)
        if top_p is not None and top_p < 1.0:
            sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
            before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
            sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
            probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
            probs = probs / probs.sum(dim=-1, keepdim=True)
        return probs
    """, hint="larger than the vocabulary"),
    mistake("next_token_probs", "top-p sorted ascending", """
        if temperature == 0:
            return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(
                logits.dtype)
        z = logits / temperature
        if top_k:
            kth = torch.topk(z, min(top_k, z.shape[-1]), dim=-1).values[..., -1:]
            z = z.masked_fill(z < kth, float("-inf"))
        probs = torch.softmax(z, dim=-1)
        if top_p is not None and top_p < 1.0:
            sorted_probs, order = torch.sort(probs, dim=-1)
            before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
            sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
            probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
            probs = probs / probs.sum(dim=-1, keepdim=True)
        return probs
    """, hint="descending=True"),
    mistake("sample_next", "temperature ignored when sampling", """
        if temperature == 0:
            return logits.argmax(dim=-1)
        probs = next_token_probs(logits, 1.0, top_k, top_p)
        flat = probs.reshape(-1, probs.shape[-1])
        draws = torch.multinomial(flat, 1, generator=generator)
        return draws.reshape(probs.shape[:-1])
    """, hint="the temperature was ignored"),
    mistake("sample_next", "Categorical distribution without the generator", """
        if temperature == 0:
            return logits.argmax(dim=-1)
        probs = next_token_probs(logits, temperature, top_k, top_p)
        return torch.distributions.Categorical(probs=probs).sample()
    """, hint="generator=generator"),
    mistake("sample_next", "argmax over the batch axis at temperature 0", """
        if temperature == 0:
            return logits.argmax(dim=0)
        probs = next_token_probs(logits, temperature, top_k, top_p)
        flat = probs.reshape(-1, probs.shape[-1])
        return torch.multinomial(flat, 1, generator=generator).reshape(probs.shape[:-1])
    """, hint="one token id per row"),
    mistake("sample_next", "one draw shared by every row", """
        if temperature == 0:
            return logits.argmax(dim=-1)
        probs = next_token_probs(logits, temperature, top_k, top_p)
        flat = probs.reshape(-1, probs.shape[-1])
        draw = torch.multinomial(flat[0], 1, generator=generator)
        return draw.expand(flat.shape[0]).reshape(probs.shape[:-1])
    """, hint="draw one token per row"),
    mistake("generate", "finished reset every step", """
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
    """, hint="a row stays finished once it has emitted eos_id"),
    mistake("generate", "max_new_tokens read as the total length", """
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
    """, hint="max_new_tokens counts NEW tokens only"),
    mistake("generate", "the model reads the prompt only", """
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
    """, hint="every token appended so far"),
    mistake("generate", "returns only the new tokens", """
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
    """, hint="the prompts followed by the new tokens"),
    mistake("generate", "only the temperature and generator passed on", """
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
    """, hint="pass temperature, top_k, top_p and generator on to sample_next"),
    mistake("perplexity", "masked sum divided by all positions", (
        None,
        """
        logits = model(inputs)
        nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(),
                                                reduction="none")
        total_nll += float((nll * loss_mask.flatten()).sum())
        total_tokens += loss_mask.numel()
        """,
        None,
    ), hint="count only real tokens"),
    mistake("perplexity", "mean over all positions times the real count", (
        None,
        """
        logits = model(inputs)
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
        total_nll += float(loss) * int(loss_mask.sum())
        total_tokens += int(loss_mask.sum())
        """,
        None,
    ), hint="count only real tokens"),
    mistake("perplexity", "exp of the summed loss", (None, None, "return math.exp(total_nll)"),
            hint="divide the summed loss"),
    mistake("perplexity", "one over the mean probability", (
        "probs = []",
        """
        p = torch.softmax(model(inputs), dim=-1).gather(-1, targets[..., None])[..., 0]
        probs.append(p[loss_mask])
        """,
        "return 1.0 / float(torch.cat(probs).mean())",
    ), hint="average the LOG-probabilities"),
    mistake("sample_next", "leading axes not flattened for multinomial", """
        if temperature == 0:
            return logits.argmax(dim=-1)
        probs = next_token_probs(logits, temperature, top_k, top_p)
        return torch.multinomial(probs, 1, generator=generator).squeeze(-1)
    """, hint="two leading axes"),
    mistake("next_token_probs", "top-p along dim=1 (right for (B, V) only)", """
        if temperature == 0:
            return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(
                logits.dtype)
        z = logits / temperature
        if top_k:
            kth = torch.topk(z, min(top_k, z.shape[-1]), dim=-1).values[..., -1:]
            z = z.masked_fill(z < kth, float("-inf"))
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
    """, hint="whatever the leading axes"),
    # concept checks
    # -- added in round 3 (batched-only axes, flags, sizes, in-place edits, padding)
    mistake("sequence_log_prob", "rows read from 0: right only for a one-token prompt", """
        ids = torch.cat((prompt_ids, continuation_ids))[None, :]
        with torch.no_grad():
            logits = model(ids[:, :-1])[0]
        log_probs = torch.log_softmax(logits, dim=-1)
        rows = log_probs[:len(continuation_ids)]
        return rows.gather(1, continuation_ids[:, None]).sum()
    """, hint="the prompt has L_p = 3 tokens"),
    mistake("sequence_log_prob", "only the first continuation token scored", """
        ids = torch.cat((prompt_ids, continuation_ids))[None, :]
        with torch.no_grad():
            logits = model(ids)[0]
        log_probs = torch.log_softmax(logits, dim=-1)
        return log_probs[len(prompt_ids) - 1, continuation_ids[0]]
    """, hint="sum log p(w_l | prompt, w_<l) over the continuation tokens"),
    mistake("sequence_log_prob", "prompt and continuation given to the model as a batch of 1-D", """
        ids = torch.cat((prompt_ids, continuation_ids))
        with torch.no_grad():
            logits = model(ids)
        log_probs = torch.log_softmax(logits, dim=-1)
        rows = log_probs[len(prompt_ids) - 1:-1]
        return rows.gather(1, continuation_ids[:, None]).sum()
    """, hint="(1, L) and model(ids) is (1, L, V)"),
    mistake("next_token_probs", "logits divided by the temperature in place (logits /= T)", """
        if temperature == 0:
            return torch.nn.functional.one_hot(logits.argmax(dim=-1), logits.shape[-1]).to(
                logits.dtype)
        logits /= temperature
        z = logits
        if top_k:
            kth = torch.topk(z, min(int(top_k), z.shape[-1]), dim=-1).values[..., -1:]
            z = z.masked_fill(z < kth, float("-inf"))
        probs = torch.softmax(z, dim=-1)
        if top_p is not None and top_p < 1.0:
            sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
            before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
            sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
            probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
            probs = probs / probs.sum(dim=-1, keepdim=True)
        return probs
    """, hint="not in place"),
    mistake("next_token_probs", "top-k mask written in place (masked_fill_) on the logits", """
        if temperature == 0:
            return torch.nn.functional.one_hot(logits.argmax(dim=-1), logits.shape[-1]).to(
                logits.dtype)
        z = logits if temperature == 1 else logits / temperature
        if top_k:
            kth = torch.topk(z, min(int(top_k), z.shape[-1]), dim=-1).values[..., -1:]
            z.masked_fill_(z < kth, float("-inf"))
        probs = torch.softmax(z, dim=-1)
        if top_p is not None and top_p < 1.0:
            sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
            before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
            sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
            probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
            probs = probs / probs.sum(dim=-1, keepdim=True)
        return probs
    """, hint="not in place"),
    mistake("next_token_probs", "k-th value without keepdim (right for one row only)", """
        if temperature == 0:
            return torch.nn.functional.one_hot(logits.argmax(dim=-1), logits.shape[-1]).to(
                logits.dtype)
        z = logits / temperature
        if top_k:
            kth = torch.topk(z, min(int(top_k), z.shape[-1]), dim=-1).values[..., -1]
            z = z.masked_fill(z < kth, float("-inf"))
        probs = torch.softmax(z, dim=-1)
        if top_p is not None and top_p < 1.0:
            sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
            before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
            sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
            probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
            probs = probs / probs.sum(dim=-1, keepdim=True)
        return probs
    """, hint="keepdim"),
    mistake("next_token_probs", "top-p renormalised by a sum without keepdim", """
        if temperature == 0:
            return torch.nn.functional.one_hot(logits.argmax(dim=-1), logits.shape[-1]).to(
                logits.dtype)
        z = logits / temperature
        if top_k:
            kth = torch.topk(z, min(int(top_k), z.shape[-1]), dim=-1).values[..., -1:]
            z = z.masked_fill(z < kth, float("-inf"))
        probs = torch.softmax(z, dim=-1)
        if top_p is not None and top_p < 1.0:
            sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
            before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
            sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
            probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
            probs = probs / probs.sum(dim=-1)
        return probs
    """, hint="keepdim"),
    mistake("next_token_probs", "softmax over dim=0 (right for one row only)", """
        if temperature == 0:
            return torch.nn.functional.one_hot(logits.argmax(dim=-1), logits.shape[-1]).to(
                logits.dtype)
        z = logits / temperature
        if top_k:
            kth = torch.topk(z, min(int(top_k), z.shape[-1]), dim=-1).values[..., -1:]
            z = z.masked_fill(z < kth, float("-inf"))
        probs = torch.softmax(z, dim=0)
        if top_p is not None and top_p < 1.0:
            sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
            before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
            sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
            probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
            probs = probs / probs.sum(dim=-1, keepdim=True)
        return probs
    """, hint="filter along the last axis"),
    mistake("next_token_probs", "top_k = 0 taken as a filter (if top_k is not None)", """
        if temperature == 0:
            return torch.nn.functional.one_hot(logits.argmax(dim=-1), logits.shape[-1]).to(
                logits.dtype)
        z = logits / temperature
        if top_k is not None:
            kth = torch.topk(z, min(int(top_k), z.shape[-1]), dim=-1).values[..., -1:]
            z = z.masked_fill(z < kth, float("-inf"))
        probs = torch.softmax(z, dim=-1)
        if top_p is not None and top_p < 1.0:
            sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
            before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
            sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
            probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
            probs = probs / probs.sum(dim=-1, keepdim=True)
        return probs
    """, hint="top_k None or 0 means no top-k filter"),
    mistake("next_token_probs", "temperature 0 returns the argmax id, not a one-hot row", """
        if temperature == 0:
            return logits.argmax(dim=-1)
        z = logits / temperature
        if top_k:
            kth = torch.topk(z, min(int(top_k), z.shape[-1]), dim=-1).values[..., -1:]
            z = z.masked_fill(z < kth, float("-inf"))
        probs = torch.softmax(z, dim=-1)
        if top_p is not None and top_p < 1.0:
            sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
            before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
            sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)
            probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
            probs = probs / probs.sum(dim=-1, keepdim=True)
        return probs
    """, hint="one probability per token"),
    mistake("sample_next", "top_k and top_p swapped in the call", """
        if temperature == 0:
            return logits.argmax(dim=-1)
        probs = next_token_probs(logits, temperature, top_p, top_k)
        flat = probs.reshape(-1, probs.shape[-1])
        draws = torch.multinomial(flat, 1, generator=generator)
        return draws.reshape(probs.shape[:-1])
    """, hint="sample from next_token_probs(logits, temperature, top_k, top_p)"),
    mistake("sample_next", "only the first row drawn ([0])", """
        if temperature == 0:
            return logits.argmax(dim=-1)
        probs = next_token_probs(logits, temperature, top_k, top_p)
        flat = probs.reshape(-1, probs.shape[-1])
        return torch.multinomial(flat, 1, generator=generator)[0]
    """, hint="one token id per row"),
    mistake("generate", "finished rows padded with eos_id", """
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
    """, hint="not eos_id"),
    mistake("generate", "padding hard-coded as 0 (pad_id ignored)", """
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
    """, hint="write pad_id, the argument"),
    mistake("generate", "no early stop: all max_new_tokens columns every time", """
        B, L = prompt_ids.shape
        out = torch.full((B, L + max_new_tokens), pad_id, dtype=torch.long)
        out[:, :L] = prompt_ids
        finished = torch.zeros(B, dtype=torch.bool)
        for t in range(max_new_tokens):
            with torch.no_grad():
                logits = model(out[:, :L + t])[:, -1]
            new = sample_next(logits, temperature, top_k, top_p, generator)
            out[:, L + t] = torch.where(finished, torch.full_like(new, pad_id), new)
            finished = finished | (new == eos_id)
        return out
    """, hint="stop as soon as every row has finished"),
    mistake("generate", "batch size hard-coded to 2", """
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
    """, hint="take B from prompt_ids.shape[0]"),
    mistake("generate", "logits of the last ROW of the batch (model(ids)[-1])", """
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
    """, hint="model(ids)[:, -1], shape (B, V)"),
    mistake("perplexity", "every sequence weighted equally", (None, """
        with torch.no_grad():
            logits = model(inputs)
        nll = torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets,
                                                reduction="none")  # (B, L)
        mask = loss_mask.to(nll.dtype)
        per_row = (nll * mask).sum(1) / mask.sum(1)
        total_nll += float(per_row.sum())
        total_tokens += len(per_row)
    """, None), hint="weight every token equally"),
    mistake("perplexity", "divided by the number of sequences", (None, """
        with torch.no_grad():
            logits = model(inputs)
        nll = torch.nn.functional.cross_entropy(
            logits.flatten(0, 1), targets.flatten(), reduction="none")
        total_nll += float((nll * loss_mask.flatten()).sum())
        total_tokens += len(targets)
    """, None), hint="not by the number of rows"),
    mistake("perplexity", "exp before dividing", (None, None, """
        return math.exp(total_nll) / total_tokens
    """), hint="before exp"),
    mistake("perplexity", "floor division of the summed loss", (None, None, """
        return math.exp(total_nll // total_tokens)
    """), hint="(// rounds down)"),
    mistake("answer_sequence_prob", "leaves out the end token", 'answer_sequence_prob = "B"',
            hint="<EOS> included"),
    mistake("answer_teacher_forcing", "thinks scoring removes the mask",
            'answer_teacher_forcing = "A"', hint="known in advance"),
    mistake("answer_top_p", "drops the crossing token", 'answer_top_p = "A"',
            hint="the token that crosses p"),
    mistake("answer_eos", "thinks padding marks the end", 'answer_eos = "B"',
            hint="runs to the length limit"),
    mistake("answer_cache", "thinks queries are cached", 'answer_cache = "A"',
            hint="keys and values"),
    mistake("answer_perplexity", "confuses loss and perplexity", 'answer_perplexity = "A"',
            hint="exp(loss)"),
]

ALTERNATIVES = [
    alternative("sequence_log_prob", "one forward pass per prefix, as the definition", """
        total = 0.0
        prefix = prompt_ids
        for token in continuation_ids:
            logits = model(prefix[None, :])[0, -1]
            total = total + torch.log_softmax(logits, dim=-1)[token]
            prefix = torch.cat((prefix, token[None]))
        return total
    """),
    alternative("sequence_log_prob", "negative cross-entropy", """
        ids = torch.cat((prompt_ids, continuation_ids))
        logits = model(ids[None, :])[0]
        start = prompt_ids.shape[0] - 1
        picked = logits[start:start + continuation_ids.shape[0]]
        return -torch.nn.functional.cross_entropy(picked, continuation_ids, reduction="sum")
    """),
    alternative("next_token_probs", "powers of probabilities, a loop over rows", """
        V = logits.shape[-1]
        flat = logits.reshape(-1, V).double()
        out = torch.zeros_like(flat)
        for r in range(flat.shape[0]):
            if temperature == 0:
                out[r, int(flat[r].argmax())] = 1.0
                continue
            p = torch.softmax(flat[r], dim=-1) ** (1.0 / temperature)
            p = p / p.sum()
            if top_k:
                kth = sorted(p.tolist(), reverse=True)[min(top_k, V) - 1]
                p = torch.where(p >= kth, p, torch.zeros_like(p))
                p = p / p.sum()
            if top_p is not None and top_p < 1.0:
                kept, mass = torch.zeros_like(p), 0.0
                for i in sorted(range(V), key=lambda i: -float(p[i])):
                    if mass >= top_p:
                        break
                    kept[i] = p[i]
                    mass += float(p[i])
                p = kept / kept.sum()
            out[r] = p
        return out.reshape(logits.shape)
    """),
    alternative("next_token_probs", "top-k with topk indices and scatter (exactly k)", """
        if temperature == 0:
            return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).float()
        z = logits / temperature
        if top_k and top_k < z.shape[-1]:
            values, indices = torch.topk(z, top_k, dim=-1)
            z = torch.full_like(z, float("-inf")).scatter(-1, indices, values)
        probs = torch.softmax(z, dim=-1)
        if top_p is not None and top_p < 1.0:
            sorted_probs, order = probs.sort(dim=-1, descending=True)
            cum = sorted_probs.cumsum(dim=-1)
            keep = torch.cat((torch.ones_like(cum[..., :1], dtype=torch.bool),
                              cum[..., :-1] < top_p), dim=-1)
            sorted_probs = sorted_probs * keep
            probs = sorted_probs.gather(-1, order.argsort(dim=-1))
            probs = probs / probs.sum(dim=-1, keepdim=True)
        return probs
    """),
    alternative("sample_next", "inverse CDF with torch.rand", """
        if temperature == 0:
            return logits.argmax(dim=-1)
        probs = next_token_probs(logits, temperature, top_k, top_p)
        flat = probs.reshape(-1, probs.shape[-1])
        cum = flat.cumsum(dim=-1)
        u = torch.rand(flat.shape[0], 1, generator=generator, dtype=cum.dtype) * cum[:, -1:]
        picks = torch.searchsorted(cum, u, right=True).clamp(max=flat.shape[-1] - 1)
        return picks.reshape(probs.shape[:-1])
    """),
    alternative("sample_next", "Gumbel-max trick", """
        if temperature == 0:
            return logits.argmax(dim=-1)
        probs = next_token_probs(logits, temperature, top_k, top_p)
        u = torch.rand(probs.shape, generator=generator, dtype=torch.float64).clamp(min=1e-12)
        return (probs.double().log() - (-u.log()).log()).argmax(dim=-1)
    """),
    alternative("generate", "one row at a time, padded at the end", """
        rows = []
        for b in range(prompt_ids.shape[0]):
            row = prompt_ids[b:b + 1]
            for _ in range(max_new_tokens):
                new = sample_next(model(row)[0, -1], temperature, top_k, top_p, generator)
                row = torch.cat((row, new.reshape(1, 1)), dim=1)
                if int(new) == eos_id:
                    break
            rows.append(row[0].tolist())
        width = max(len(r) for r in rows)
        return torch.tensor([r + [pad_id] * (width - len(r)) for r in rows])
    """),
    alternative("generate", "preallocated output, trimmed at the end", """
        B, L = prompt_ids.shape
        out = torch.full((B, L + max_new_tokens), pad_id, dtype=torch.long)
        out[:, :L] = prompt_ids
        alive = torch.ones(B, dtype=torch.bool)
        n = 0
        while n < max_new_tokens and alive.any():
            logits = model(out[:, :L + n])[:, -1]
            new = sample_next(logits, temperature, top_k, top_p, generator)
            out[alive, L + n] = new[alive]
            alive = alive & (new != eos_id)
            n += 1
        return out[:, :L + n]
    """),
    alternative("perplexity", "ignore_index and a summed cross-entropy", (
        "total_nll, total_tokens = 0.0, 0.0",
        """
        logits = model(inputs)
        masked = targets.masked_fill(~loss_mask, -100)
        total_nll = total_nll + torch.nn.functional.cross_entropy(
            logits.transpose(1, 2), masked, ignore_index=-100, reduction="sum").item()
        total_tokens = total_tokens + loss_mask.sum().item()
        """,
        "return float(torch.tensor(total_nll / total_tokens).exp())",
    )),
    alternative("perplexity", "log_softmax and gather", (
        "total_nll = total_tokens = 0",
        """
        log_probs = torch.log_softmax(model(inputs), dim=-1)
        picked = log_probs.gather(-1, targets[..., None])[..., 0]
        total_nll -= float(picked[loss_mask].sum())
        total_tokens += int(loss_mask.sum())
        """,
        "return torch.exp(torch.tensor(total_nll / total_tokens))",
    )),
    # -- added in the adversarial review
    alternative("sequence_log_prob", "full pass, rows sliced with an explicit end", """
        ids = torch.cat((prompt_ids, continuation_ids)).unsqueeze(0)
        log_probs = torch.log_softmax(model(ids).squeeze(0).double(), dim=-1)
        L_p, L_c = prompt_ids.numel(), continuation_ids.numel()
        picked = log_probs[torch.arange(L_p - 1, L_p + L_c - 1), continuation_ids]
        return float(picked.sum())
    """),
    alternative("next_token_probs", "softmax first, top-k zeroed and renormalised", """
        if temperature == 0:
            out = torch.zeros_like(logits)
            return out.scatter(-1, logits.argmax(-1, keepdim=True), 1.0)
        probs = torch.softmax(logits / temperature, dim=-1)
        if top_k:
            k = min(top_k, probs.shape[-1])
            kth = probs.topk(k, dim=-1).values[..., -1:]
            probs = torch.where(probs >= kth, probs, torch.zeros_like(probs))
            probs = probs / probs.sum(-1, keepdim=True)
        if top_p is not None and top_p < 1.0:
            sorted_probs, order = probs.sort(dim=-1, descending=True)
            cum = sorted_probs.cumsum(-1)
            n_keep = (cum < top_p).sum(-1, keepdim=True) + 1
            ranks = torch.arange(probs.shape[-1]).expand_as(sorted_probs)
            keep_sorted = ranks < n_keep
            keep = torch.zeros_like(keep_sorted).scatter(-1, order, keep_sorted)
            probs = torch.where(keep, probs, torch.zeros_like(probs))
            probs = probs / probs.sum(-1, keepdim=True)
        return probs
    """),
    alternative("sample_next", "multinomial of the one-hot at temperature 0, unnormalised", """
        weights = next_token_probs(logits, temperature, top_k, top_p) * 7.0
        flat = weights.reshape(-1, weights.shape[-1])
        picks = torch.multinomial(flat, num_samples=1, generator=generator).squeeze(-1)
        return picks.view(weights.shape[:-1])
    """),
    alternative("generate", "token lists and a while loop", """
        rows = prompt_ids.tolist()
        done = [False] * len(rows)
        steps = 0
        while steps < max_new_tokens and not all(done):
            logits = model(torch.tensor(rows))[:, -1, :]
            new = sample_next(logits, temperature=temperature, top_k=top_k, top_p=top_p,
                              generator=generator).tolist()
            for b, token in enumerate(new):
                rows[b].append(pad_id if done[b] else token)
                done[b] = done[b] or token == eos_id
            steps += 1
        return torch.tensor(rows)
    """),
    alternative("perplexity", "masked_select and torch.exp at the end", (
        "nlls = []",
        """
        log_probs = torch.log_softmax(model(inputs).double(), dim=-1)
        picked = log_probs.gather(2, targets.unsqueeze(2)).squeeze(2)
        nlls.append(-torch.masked_select(picked, loss_mask.bool()))
        """,
        "return torch.cat(nlls).mean().exp().item()",
    )),
    alternative("answer_top_p", "lower case", 'answer_top_p = "b"'),
    # -- added in the round on correct answers written otherwise (types, randomness, caches)
    alternative("sequence_log_prob", "Categorical.log_prob under inference_mode, .item()", """
        model.eval()
        ids = torch.cat([prompt_ids, continuation_ids]).unsqueeze(0)
        with torch.inference_mode():
            logits = model(ids)[0, prompt_ids.numel() - 1:-1]
        dist = torch.distributions.Categorical(logits=logits)
        return dist.log_prob(continuation_ids).sum().item()
    """),
    alternative("sequence_log_prob", "numpy float64 log-softmax, a numpy scalar returned", """
        import numpy as np
        ids = np.concatenate([prompt_ids.numpy(), continuation_ids.numpy()])
        logits = model(torch.from_numpy(ids)[None])[0].detach().double().numpy()
        shifted = logits - logits.max(axis=-1, keepdims=True)
        log_probs = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
        rows = np.arange(len(prompt_ids) - 1, len(ids) - 1)
        return np.float64(log_probs[rows, ids[len(prompt_ids):]].sum())
    """),
    alternative("sequence_log_prob", "int32 ids, graph kept, gather on a batch axis", """
        ids = torch.cat((prompt_ids, continuation_ids)).to(torch.int32).view(1, -1)
        log_probs = model(ids).log_softmax(-1)  # (1, L, V), still attached to the graph
        L_p = len(prompt_ids)
        picked = log_probs[:, L_p - 1:-1].gather(2, continuation_ids.view(1, -1, 1))
        return picked.sum()
    """),
    alternative("sequence_log_prob", "mean cross-entropy times the count, model's device", """
        device = next(model.parameters()).device
        ids = torch.cat((prompt_ids, continuation_ids)).to(device)[None]
        with torch.no_grad():
            rows = model(ids)[0, len(prompt_ids) - 1:-1]
            nll = torch.nn.functional.cross_entropy(rows, continuation_ids.to(device))
        return -nll * len(continuation_ids)
    """),
    alternative("sequence_log_prob", "logit minus logsumexp, a Python loop of floats", """
        ids = torch.cat((prompt_ids, continuation_ids))
        with torch.no_grad():
            logits = model(ids.unsqueeze(0)).squeeze(0).double()
        norm = torch.logsumexp(logits, dim=-1)
        total = 0.0
        for i, token in enumerate(continuation_ids.tolist()):
            t = len(prompt_ids) - 1 + i
            total += float(logits[t, token] - norm[t])
        return total
    """),
    alternative("sequence_log_prob", "a list of tensors summed with sum(), full forward", """
        ids = torch.cat((prompt_ids, continuation_ids))
        log_probs = torch.nn.functional.log_softmax(model(ids[None])[0], dim=1)
        start = len(prompt_ids)
        return sum(log_probs[start + i - 1, int(w)] for i, w in enumerate(continuation_ids))
    """),
    alternative("next_token_probs", "HF-style top-p: ascending sort, drop cum <= 1 - p", """
        if temperature == 0:
            best = logits.argmax(dim=-1, keepdim=True)
            return torch.zeros_like(logits, dtype=torch.float64).scatter_(-1, best, 1.0)
        z = logits / temperature
        if top_k:
            k = min(top_k, z.shape[-1])
            kth = torch.topk(z, k).values[..., -1, None]
            z = torch.where(z < kth, torch.full_like(z, -float("inf")), z)
        if top_p is not None and top_p < 1.0:
            sorted_z, order = torch.sort(z, dim=-1)  # ascending
            cum = sorted_z.softmax(dim=-1).cumsum(dim=-1)
            remove = cum <= 1 - top_p
            remove[..., -1] = False  # the most likely token always stays
            z = z.masked_fill(remove.scatter(-1, order, remove), float("-inf"))
        return z.softmax(dim=-1)
    """),
    alternative("next_token_probs", "numpy inside, torch.from_numpy out (float64)", """
        import numpy as np
        z = logits.detach().cpu().double().numpy()
        V = z.shape[-1]
        if temperature == 0:
            out = np.zeros_like(z)
            np.put_along_axis(out, z.argmax(-1)[..., None], 1.0, axis=-1)
            return torch.from_numpy(out)
        z = z / temperature
        if top_k and top_k < V:
            kth = np.sort(z, axis=-1)[..., V - top_k][..., None]
            z = np.where(z >= kth, z, -np.inf)
        p = np.exp(z - z.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        if top_p is not None and top_p < 1:
            order = np.argsort(-p, axis=-1, kind="stable")
            sp = np.take_along_axis(p, order, -1)
            before = np.cumsum(sp, -1) - sp
            keep = np.zeros(p.shape, dtype=bool)
            np.put_along_axis(keep, order, before < top_p, axis=-1)
            p = np.where(keep, p, 0.0)
            p /= p.sum(-1, keepdims=True)
        return torch.from_numpy(p)
    """),
    alternative("next_token_probs", "float32 clone edited in place, sort-threshold top-k", """
        z = logits.clone().float()
        if temperature == 0:
            out = torch.zeros_like(z)
            out.scatter_(-1, z.argmax(-1, keepdim=True), 1.0)
            return out
        z.div_(temperature)
        if top_k is not None and 0 < top_k < z.shape[-1]:
            sorted_z = z.sort(dim=-1, descending=True).values
            z[z < sorted_z[..., top_k - 1:top_k]] = float("-inf")
        p = z.softmax(-1)
        if top_p is not None and top_p < 1.0:
            sp, order = p.sort(dim=-1, descending=True)
            shifted = torch.nn.functional.pad(sp.cumsum(-1)[..., :-1], (1, 0))
            sp[shifted >= top_p] = 0
            p = torch.empty_like(p).scatter_(-1, order, sp)
            p = p / p.sum(-1, keepdim=True)
        return p
    """),
    alternative("next_token_probs", "pure Python per row with math.exp", """
        import math
        V = logits.shape[-1]
        out = []
        for row in logits.reshape(-1, V).tolist():
            if temperature == 0:
                best = max(range(V), key=lambda i: row[i])
                out.append([1.0 if i == best else 0.0 for i in range(V)])
                continue
            z = [v / temperature for v in row]
            if top_k:
                kth = sorted(z, reverse=True)[min(top_k, V) - 1]
                z = [v if v >= kth else -math.inf for v in z]
            m = max(z)
            e = [math.exp(v - m) for v in z]
            p = [v / sum(e) for v in e]
            if top_p is not None and top_p < 1.0:
                keep, mass = set(), 0.0
                for i in sorted(range(V), key=lambda i: -p[i]):
                    keep.add(i)
                    mass += p[i]
                    if mass >= top_p:
                        break
                s = sum(p[i] for i in keep)
                p = [p[i] / s if i in keep else 0.0 for i in range(V)]
            out.append(p)
        return torch.tensor(out, dtype=logits.dtype).reshape(logits.shape)
    """),
    alternative("next_token_probs", "log space: kthvalue, logsumexp, one-hot by comparison", """
        V = logits.shape[-1]
        if temperature == 0:
            hot = torch.arange(V) == logits.argmax(-1, keepdim=True)
            return hot.to(logits.dtype)
        z = logits / temperature
        if top_k and top_k < V:
            kth = torch.kthvalue(z, V - top_k + 1, dim=-1, keepdim=True).values
            z = z.masked_fill(z < kth, -torch.inf)
        logp = z - z.logsumexp(dim=-1, keepdim=True)
        if top_p is not None and top_p < 1.0:
            sorted_logp, order = logp.sort(dim=-1, descending=True)
            sorted_p = sorted_logp.exp()
            before = sorted_p.cumsum(-1) - sorted_p
            drop = torch.zeros_like(before, dtype=torch.bool).scatter(-1, order, before >= top_p)
            logp = logp.masked_fill(drop, -torch.inf)
            logp = logp - logp.logsumexp(dim=-1, keepdim=True)
        return logp.exp()
    """),
    alternative("sample_next", "one multinomial per row in a loop", """
        if temperature == 0:
            return torch.argmax(logits, dim=-1)
        probs = next_token_probs(logits, temperature, top_k, top_p)
        flat = probs.reshape(-1, probs.shape[-1])
        picks = [torch.multinomial(row, 1, generator=generator)[0] for row in flat]
        return torch.stack(picks).reshape(probs.shape[:-1])
    """),
    alternative("sample_next", "exponential race: argmax of p / Exp(1)", """
        if temperature == 0:
            return logits.max(dim=-1).indices
        probs = next_token_probs(logits, temperature, top_k, top_p)
        race = torch.empty_like(probs).exponential_(1.0, generator=generator)
        return (probs / race).argmax(dim=-1)
    """),
    alternative("sample_next", "numpy inverse CDF on torch.rand uniforms", """
        import numpy as np
        if temperature == 0:
            return logits.argmax(-1)
        probs = next_token_probs(logits, temperature, top_k, top_p).double()
        cdf = probs.cumsum(-1).numpy()
        u = torch.rand(probs.shape[:-1] + (1,), generator=generator,
                       dtype=torch.float64).numpy()
        index = (cdf < u * cdf[..., -1:]).sum(-1)
        return torch.as_tensor(np.asarray(np.minimum(index, probs.shape[-1] - 1)))
    """),
    alternative("sample_next", "topk(1) for greedy, float64 multinomial with replacement", """
        if temperature == 0:
            return torch.topk(logits, 1, dim=-1).indices.squeeze(-1)
        probs = next_token_probs(logits, temperature=temperature, top_k=top_k, top_p=top_p)
        V = probs.shape[-1]
        draws = torch.multinomial(probs.double().reshape(-1, V), num_samples=1,
                                  replacement=True, generator=generator)
        return draws.view(*probs.shape[:-1])
    """),
    alternative("sample_next", "a fresh generator when None, draws on logits' device", """
        if generator is None:
            generator = torch.Generator(device=logits.device)
            generator.seed()
        probs = next_token_probs(logits, temperature, top_k, top_p)
        if temperature == 0:
            return probs.argmax(dim=-1).long()
        flat = probs.flatten(0, -2) if probs.dim() > 1 else probs[None]
        return torch.multinomial(flat, 1, generator=generator).view(probs.shape[:-1])
    """),
    alternative("generate", "the package's KV cache (decode_step), one token fed per step", """
        from attnbook.generation import KVCache, decode_step
        model.eval()
        B, L = prompt_ids.shape
        out = prompt_ids.clone()
        if max_new_tokens == 0:
            return out
        cache = KVCache.empty(model, B, L + max_new_tokens)
        finished = torch.zeros(B, dtype=torch.bool)
        with torch.no_grad():
            logits = decode_step(model, prompt_ids, cache)[:, -1]
            for step in range(max_new_tokens):
                new = sample_next(logits, temperature, top_k, top_p, generator)
                new = new.masked_fill(finished, pad_id)
                out = torch.cat([out, new[:, None]], dim=1)
                finished |= new == eos_id
                if finished.all() or step == max_new_tokens - 1:
                    break
                logits = decode_step(model, new[:, None], cache)[:, -1]
        return out
    """),
    alternative("generate", "inference_mode, context cropped to max_len, columns stacked", """
        columns = list(prompt_ids.unbind(dim=1))
        done = torch.zeros(prompt_ids.shape[0], dtype=torch.bool)
        limit = model.config.max_len
        with torch.inference_mode():
            for _ in range(max_new_tokens):
                if done.all():
                    break
                ids = torch.stack(columns, dim=1)[:, -limit:]
                token = sample_next(model(ids)[:, -1, :], temperature, top_k, top_p, generator)
                token = torch.where(done, pad_id, token)
                columns.append(token)
                done = done | (token == eos_id)
        return torch.stack(columns, dim=1)
    """),
    alternative("generate", "every step run, trimmed after the step all rows finished", """
        ids = prompt_ids.clone()
        finished = torch.zeros(len(ids), dtype=torch.bool)
        steps_needed = None
        for step in range(max_new_tokens):
            with torch.no_grad():
                new = sample_next(model(ids)[:, -1], temperature, top_k, top_p, generator)
            new[finished] = pad_id
            ids = torch.cat((ids, new.unsqueeze(-1)), -1)
            finished = finished.logical_or(new.eq(eos_id))
            if steps_needed is None and bool(finished.all()):
                steps_needed = step + 1
        if steps_needed is not None:
            ids = ids[:, :prompt_ids.shape[1] + steps_needed]
        return ids
    """),
    alternative("generate", "preallocated on the model's device, mode restored", """
        was_training = model.training
        model.eval()
        device = next(model.parameters()).device
        B, L = prompt_ids.shape
        out = torch.full((B, L + max_new_tokens), pad_id, dtype=torch.long, device=device)
        out[:, :L] = prompt_ids.to(device)
        live = torch.ones(B, dtype=torch.bool, device=device)
        length = L
        with torch.no_grad():
            while length < L + max_new_tokens and live.any():
                new = sample_next(model(out[:, :length])[:, -1], temperature, top_k, top_p,
                                  generator)
                out[:, length] = torch.where(live, new, out[:, length])
                live &= new != eos_id
                length += 1
        model.train(was_training)
        return out[:, :length]
    """),
    alternative("generate", "finished read back from the generated columns", """
        ids = prompt_ids
        L = ids.shape[1]
        for _ in range(max_new_tokens):
            finished = (ids[:, L:] == eos_id).any(dim=1)
            if ids.shape[1] > L and finished.all():
                break
            with torch.no_grad():
                new = sample_next(model(ids)[:, -1], temperature, top_k, top_p, generator)
            new = new.masked_fill(finished, pad_id)
            ids = torch.cat((ids, new.view(-1, 1)), dim=1)
        return ids
    """),
    alternative("perplexity", "Categorical.log_prob in float64, numpy exp", (
        """
        import numpy as np
        nll_sum = torch.zeros((), dtype=torch.float64)
        n_real = torch.zeros((), dtype=torch.long)
        """,
        """
        with torch.no_grad():
            dist = torch.distributions.Categorical(logits=model(inputs).double())
        log_p = dist.log_prob(targets)
        nll_sum = nll_sum - log_p[loss_mask.bool()].sum()
        n_real = n_real + loss_mask.sum()
        """,
        "return np.exp((nll_sum / n_real).item())",
    )),
    alternative("perplexity", "eval mode restored, nll_loss with classes on axis 1", (
        """
        was_training = model.training
        model.eval()
        nll_total, count = 0.0, 0
        """,
        """
        with torch.no_grad():
            log_probs = torch.log_softmax(model(inputs), dim=-1).transpose(1, 2)  # (B, V, L)
        nll = torch.nn.functional.nll_loss(log_probs, targets, reduction="none")  # (B, L)
        nll_total += nll.masked_fill(~loss_mask, 0.0).sum().item()
        count += loss_mask.count_nonzero().item()
        """,
        """
        model.train(was_training)
        return math.exp(nll_total / count)
        """,
    )),
    alternative("perplexity", "per-batch means weighted by counts, 2 ** (loss / ln 2)", (
        "weighted, tokens = [], []",
        """
        n = int(loss_mask.sum())
        if n:
            with torch.no_grad():
                logits = model(inputs)
            mean_nll = torch.nn.functional.cross_entropy(logits[loss_mask], targets[loss_mask])
            weighted.append(float(mean_nll) * n)
            tokens.append(n)
        """,
        "return 2 ** (sum(weighted) / sum(tokens) / math.log(2))",
    )),
    alternative("perplexity", "logsumexp minus the target logit, a 0-d float64 tensor", (
        """
        total = torch.tensor(0.0, dtype=torch.float64)
        count = torch.tensor(0)
        """,
        """
        with torch.no_grad():
            logits = model(inputs).double()
        nll = logits.logsumexp(-1) - logits.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
        total += torch.where(loss_mask, nll, torch.zeros_like(nll)).sum()
        count += loss_mask.sum()
        """,
        "return torch.exp(total / count)",
    )),
    alternative("perplexity", "a Python list of per-token losses, loops over b and t", (
        "pieces = []",
        """
        with torch.inference_mode():
            log_probs = model(inputs).log_softmax(-1)
        for b in range(inputs.shape[0]):
            for t in range(inputs.shape[1]):
                if loss_mask[b, t]:
                    pieces.append(-log_probs[b, t, targets[b, t]].item())
        """,
        "return math.exp(sum(pieces) / len(pieces))",
    )),
    alternative("sample_next", "a Python int for a single row of logits", """
        if logits.dim() == 1:
            if temperature == 0:
                return int(logits.argmax())
            p = next_token_probs(logits, temperature, top_k, top_p)
            return int(torch.multinomial(p, 1, generator=generator))
        probs = next_token_probs(logits, temperature, top_k, top_p)
        if temperature == 0:
            return probs.argmax(-1)
        flat = probs.reshape(-1, probs.shape[-1])
        return torch.multinomial(flat, 1, generator=generator).reshape(probs.shape[:-1])
    """),
    alternative("generate", "float64 logits, Python lists for the finished rows", """
        model.eval()
        ids = prompt_ids.clone()
        alive = [True] * ids.shape[0]
        for _ in range(max_new_tokens):
            if not any(alive):
                break
            with torch.no_grad():
                logits = model(ids).double()[:, -1, :]
            tokens = sample_next(logits, temperature, top_k, top_p, generator).tolist()
            column = []
            for b, token in enumerate(tokens):
                column.append(token if alive[b] else pad_id)
                alive[b] = alive[b] and token != eos_id
            ids = torch.cat([ids, torch.tensor(column, dtype=torch.long).unsqueeze(1)], 1)
        return ids
    """),
]
