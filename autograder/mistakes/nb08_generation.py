"""Notebook 08's mistake catalogue, one section per graded function (see grader/catalogue.py)."""

from grader.catalogue import (
    alternative,
    catalogue,
    delete,
    edit,
    explained,
    insert_before,
    mistake,
    replace_line,
)

from attnbook.checks import nb08

WHY = explained("08_generation")  # detects=WHY: the question's explanation

LOG_PROB, PROBS, SAMPLE, GENERATE, PERPLEXITY = ("sequence_log_prob", "next_token_probs",
                                                 "sample_next", "generate", "perplexity")

# hints that several entries give
HINT_LOG_SOFTMAX_AXIS = ("log_softmax over the vocabulary, the LAST axis (dim=-1): each position's "
                         "logits become a distribution over the next token")
HINT_TEMPERATURE = ("divide the LOGITS by the temperature before the softmax; dividing "
                    "probabilities by T and renormalising changes nothing")
HINT_PPL_WEIGHTING = ("weight every token equally: add the losses of ALL real tokens over all "
                      "batches, divide by the total token count, then take exp")
HINT_PPL_PADDING = "multiply the per-token losses by loss_mask and count only real tokens"
HINT_PPL_IGNORE_INDEX = ("loss_mask says which targets are real; the pad id may be any id (and "
                         "0 may be a real token): multiply by loss_mask rather than ignore_index")
HINT_EXP_OF_SUM = "divide the summed loss by the number of real targets before exp"


MISTAKES, ALTERNATIVES = catalogue([
    # -- sequence_log_prob -------------------------------------------------------------------------
    mistake(LOG_PROB, "log-probability read at the target's own position", """
        ids = torch.cat((prompt_ids, continuation_ids))[None, :]
        log_probs = torch.log_softmax(model(ids)[0], dim=-1)
        rows = log_probs[len(prompt_ids):]
        return rows.gather(1, continuation_ids[:, None]).sum()""", detects=nb08.HINT_SHIFT),
    mistake(LOG_PROB, "product of probabilities instead of a sum of logs", [
        edit("log_probs = torch.log_softmax(model(ids", "probs = torch.softmax(model(ids[:, :-1]"),
        edit("log_probs[len(prompt_ids)", "probs[len(prompt_ids) - 1"), edit(".sum", ".prod"),
    ], hint="sum the log-probabilities; do not exponentiate",
       like="log-probability read at the target's own position"),
    mistake(LOG_PROB, "log of the softmax (torch.log(torch.softmax(...)))",
            edit("torch.log_softmax(logits, dim=-1)", "torch.log(torch.softmax(logits, dim=-1))"),
            detects=nb08.HINT_LOG_SOFTMAX),
    mistake(LOG_PROB, "mean instead of sum", [edit("=0", "=-1"), edit(".sum", ".mean")],
            hint="the chain rule multiplies the conditionals: sum their logs, do not average",
            like="log_softmax over the positions (dim=0)"),
    mistake(LOG_PROB, "the prompt's own tokens scored too", [
        edit("[len(prompt_ids) - 1:]", ""), edit("continuation_ids[:", "ids[0, 1:"),
    ], hint="score only the continuation tokens; the prompt is given, not predicted"),
    mistake(LOG_PROB, "raw logits instead of log-probabilities",
            edit("torch.log_softmax(logits, dim=-1)", "logits"),
            hint="turn logits into log-probabilities with torch.log_softmax over the vocabulary"),
    mistake(LOG_PROB, "negative log-likelihood (sign flipped)", [
        edit("=0", "=-1"), edit("log_probs[", "-log_probs["),
    ], hint="return the log-probability itself, a number <= 0: sum of log p, not of -log p",
       like="log_softmax over the positions (dim=0)"),
    mistake(LOG_PROB, "log base 2", edit("torch.log_softmax(logits, dim=-1)",
                                         "torch.log2(torch.softmax(logits.double(), dim=-1))"),
            hint="work in nats: torch.log_softmax (natural log), not log2"),
    mistake(LOG_PROB, "log_softmax over the positions (dim=0)", [
        edit(")[0", "[:, :-1])[0"), edit("1:-1", "1:"),
    ], hint=HINT_LOG_SOFTMAX_AXIS, like="log_softmax over the positions of the full pass"),
    mistake(LOG_PROB, "log_softmax over the positions of the full pass", """
        ids = torch.cat((prompt_ids, continuation_ids))[None, :]
        log_probs = torch.log_softmax(model(ids)[0], dim=0)
        return log_probs[len(prompt_ids) - 1:-1].gather(1, continuation_ids[:, None]).sum()
    """, hint=HINT_LOG_SOFTMAX_AXIS),
    mistake(LOG_PROB, "rows read from 0: right only for a one-token prompt",
            edit("len(prompt_ids) - 1:", ":len(continuation_ids)"),
            detects=nb08.HINT_PROMPT_OFFSET.format(L_p=3)),
    mistake(LOG_PROB, "only the first continuation token scored", [
        edit("[:, :-1]", ""),
        edit("rows = log_probs[len(prompt_ids) - 1:",
             "return log_probs[len(prompt_ids) - 1, continuation_ids[0]"),
        delete("return rows.gather(1, continuation_ids[:, None]).sum()"),
    ], detects=nb08.HINT_LOG_PROB_VALUES),
    mistake(LOG_PROB, "prompt and continuation given to the model as a batch of 1-D", [
        edit("[None, :]", ""), edit("[:, :-1])[0]", ")"), edit("1:", "1:-1"),
    ], detects=nb08.HINT_CRASH_LOG_PROB),
    alternative(LOG_PROB, "one forward pass per prefix, as the definition", """
        total = 0.0
        prefix = prompt_ids
        for token in continuation_ids:
            logits = model(prefix[None, :])[0, -1]
            total = total + torch.log_softmax(logits, dim=-1)[token]
            prefix = torch.cat((prefix, token[None]))
        return total"""),
    alternative(LOG_PROB, "negative cross-entropy", """
        ids = torch.cat((prompt_ids, continuation_ids))
        logits = model(ids[None, :])[0]
        start = prompt_ids.shape[0] - 1
        picked = logits[start:start + continuation_ids.shape[0]]
        return -torch.nn.functional.cross_entropy(picked, continuation_ids, reduction="sum")"""),
    alternative(LOG_PROB, "full pass, rows sliced with an explicit end", """
        ids = torch.cat((prompt_ids, continuation_ids)).unsqueeze(0)
        log_probs = torch.log_softmax(model(ids).squeeze(0).double(), dim=-1)
        L_p, L_c = prompt_ids.numel(), continuation_ids.numel()
        picked = log_probs[torch.arange(L_p - 1, L_p + L_c - 1), continuation_ids]
        return float(picked.sum())"""),
    alternative(LOG_PROB, "Categorical.log_prob under inference_mode, .item()", """
        model.eval()
        ids = torch.cat([prompt_ids, continuation_ids]).unsqueeze(0)
        with torch.inference_mode():
            logits = model(ids)[0, prompt_ids.numel() - 1:-1]
        dist = torch.distributions.Categorical(logits=logits)
        return dist.log_prob(continuation_ids).sum().item()"""),
    alternative(LOG_PROB, "numpy float64 log-softmax, a numpy scalar returned", """
        import numpy as np
        ids = np.concatenate([prompt_ids.numpy(), continuation_ids.numpy()])
        logits = model(torch.from_numpy(ids)[None])[0].detach().double().numpy()
        shifted = logits - logits.max(axis=-1, keepdims=True)
        log_probs = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
        rows = np.arange(len(prompt_ids) - 1, len(ids) - 1)
        return np.float64(log_probs[rows, ids[len(prompt_ids):]].sum())"""),
    alternative(LOG_PROB, "int32 ids, graph kept, gather on a batch axis", """
        ids = torch.cat((prompt_ids, continuation_ids)).to(torch.int32).view(1, -1)
        log_probs = model(ids).log_softmax(-1)  # (1, L, V), still attached to the graph
        L_p = len(prompt_ids)
        picked = log_probs[:, L_p - 1:-1].gather(2, continuation_ids.view(1, -1, 1))
        return picked.sum()"""),
    alternative(LOG_PROB, "mean cross-entropy times the count, model's device", """
        device = next(model.parameters()).device
        ids = torch.cat((prompt_ids, continuation_ids)).to(device)[None]
        with torch.no_grad():
            rows = model(ids)[0, len(prompt_ids) - 1:-1]
            nll = torch.nn.functional.cross_entropy(rows, continuation_ids.to(device))
        return -nll * len(continuation_ids)"""),
    alternative(LOG_PROB, "logit minus logsumexp, a Python loop of floats", """
        ids = torch.cat((prompt_ids, continuation_ids))
        with torch.no_grad():
            logits = model(ids.unsqueeze(0)).squeeze(0).double()
        norm = torch.logsumexp(logits, dim=-1)
        total = 0.0
        for i, token in enumerate(continuation_ids.tolist()):
            t = len(prompt_ids) - 1 + i
            total += float(logits[t, token] - norm[t])
        return total"""),
    alternative(LOG_PROB, "a list of tensors summed with sum(), full forward", """
        ids = torch.cat((prompt_ids, continuation_ids))
        log_probs = torch.nn.functional.log_softmax(model(ids[None])[0], dim=1)
        start = len(prompt_ids)
        return sum(log_probs[start + i - 1, int(w)] for i, w in enumerate(continuation_ids))"""),
    # -- next_token_probs --------------------------------------------------------------------------
    mistake(PROBS, "softmax written by hand without the row maximum (overflows)",
            edit("probs = torch.softmax(z, dim=-1)",
                 "e = torch.exp(z)\nprobs = e / e.sum(dim=-1, keepdim=True)"),
            hint="exp(z) overflows to inf for logits near 1000 (inf / inf is NaN): use "
                 "torch.softmax(z, dim=-1), or subtract each row's maximum before exp"),
    mistake(PROBS, "top-p drops the token that crosses p", [
        edit("dim=-1),", "-1),"), edit("int(top_k)", "top_k"),
        edit("before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs",
             "cum = torch.cumsum(sorted_probs, dim=-1)"),
        edit("before >=", "cum >")], detects=nb08.HINT_CROSSING),
    mistake(PROBS, "top-p keeps a token once p is reached exactly (before > top_p)",
            edit("before >= top_p", "before > top_p"), detects=nb08.HINT_TOP_P_REACHED),
    mistake(PROBS, "top-p filter applied at top_p = 1.0 too",
            edit("top_p is not None and top_p < 1.0", "top_p is not None"),
            detects=nb08.HINT_TOP_P_ONE),
    mistake(PROBS, "temperature applied to the probabilities", [
        edit("logits / temperature", "logits.clone()"), edit("kth, 0.0", 'kth, float("-inf")'),
        replace_line("probs = torch.softmax(z, dim=-1)",
                     "probs = torch.softmax(z, dim=-1) / temperature\n"
                     "probs = probs / probs.sum(dim=-1, keepdim=True)"),
    ], hint=HINT_TEMPERATURE, like="removed logits filled with 0 instead of -inf"),
    mistake(PROBS, "temperature applied to the probabilities, softmax again", [
        edit("logits /", "torch.softmax(logits, dim=-1) /"),
        delete("if top_p is not None and top_p < 1.0:"), delete("sorted_probs, order"),
        delete("before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs"),
        delete("sorted_probs = sorted_probs"), delete("probs = torch.zeros_like"),
    ], hint=HINT_TEMPERATURE, like="softmax before top-k, zeros not renormalised"),
    mistake(PROBS, "softmax before top-k, zeros not renormalised", [
        edit("z = logits / temperature", "probs = torch.softmax(logits / temperature, dim=-1)"),
        edit("z, min(top_k, z.shape", "probs, min(top_k, probs.shape"),
        edit("z = z.masked_fill(z", "probs = probs.masked_fill(probs"),
        delete("probs = torch.softmax(z, dim=-1)"),
    ], detects=nb08.HINT_RENORMALISE, like="removed logits filled with 0 instead of -inf"),
    mistake(PROBS, "removed logits filled with 0 instead of -inf", [
        edit("dim=-1),", "-1),"), edit("int(top_k)", "top_k"), edit('float("-inf")', "0.0"),
    ], hint="set the logits of removed tokens to -inf (float('-inf')), so softmax gives them "
            "exactly 0"),
    mistake(PROBS, "top-p without renormalising", [
        replace_line("probs = torch.softmax(logits / temperature, dim=-1)",
                     "z = logits / temperature\nprobs = torch.softmax(z, dim=-1)"),
        edit("probs, min(top_k, probs.shape", "z, min(top_k, z.shape"),
        edit("probs.masked_fill(probs < kth, 0.0",
             'torch.softmax(z.masked_fill(z < kth, float("-inf")), dim=-1'),
        delete("probs = probs / probs.sum(dim=-1, keepdim=True)"),
    ], detects=nb08.HINT_RENORMALISE, like="softmax before top-k, zeros not renormalised"),
    mistake(PROBS, "cumulative sum in vocabulary order", [
        replace_line("sorted_probs, order",
                     "before = torch.cumsum(probs, dim=-1) - probs\n"
                     "probs = probs.masked_fill(before >= top_p, 0.0)"),
        delete("before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs"),
        delete("probs = sorted_probs.masked_fill(before >= top_p, 0.0)"),
    ], hint="sort the probabilities in decreasing order before the cumulative sum, then put the "
            "result back in vocabulary order", like="returned in sorted order"),
    mistake(PROBS, "returned in sorted order", [
        edit("dim=-1),", "-1),"), edit("int(top_k)", "top_k"), edit("sorted_probs =", "probs ="),
        delete("probs = torch.zeros_like")],
            hint="scatter the kept probabilities back to their token ids (the order returned by "
                 "torch.sort)"),
    mistake(PROBS, "top-p set chosen before the temperature", [
        edit("logits / temperature", "logits.clone()"), edit(", largest=False", ""), edit(">", "<"),
        replace_line("return torch.softmax(z, dim=-1)",
                     "if top_p is not None and top_p < 1.0:\n"
                     "    probs = torch.softmax(z, dim=-1)\n"
                     "    sorted_probs, order = torch.sort(probs, dim=-1, descending=True)\n"
                     "    before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs\n"
                     "    drop = torch.zeros_like(probs, dtype=torch.bool).scatter(-1, order,"
                     " before >= top_p)\n"
                     '    z = z.masked_fill(drop, float("-inf"))\n'
                     "return torch.softmax(z / temperature, dim=-1)"),
    ], hint="apply the temperature first, then the filters", like="top-k keeps the k smallest"),
    mistake(PROBS, "temperature 0 divides by zero", [
        delete("if temperature == 0:"), delete("return torch.nn.functional"),
        delete("logits.dtype)"), edit("int(top_k)", "top_k")], detects=nb08.HINT_TEMPERATURE_ZERO),
    mistake(PROBS, "top-k keeps the k smallest", [
        edit(").values", ", largest=False).values"), edit("< kth, 0.0", '> kth, float("-inf")'),
        edit("probs = torch.softmax", "return torch.softmax"),
        delete("if top_p is not None and top_p < 1.0:"), delete("sorted_probs, order"),
        delete("before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs"),
        delete("sorted_probs = sorted_probs"), delete("probs = torch.zeros_like"),
        delete("probs = probs / probs.sum(dim=-1, keepdim=True)"), delete("return probs"),
    ], hint="keep the k largest logits (torch.topk returns the largest)",
       like="removed logits filled with 0 instead of -inf"),
    mistake(PROBS, "logits multiplied by the temperature", """
        if temperature == 0:
            return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).to(
                logits.dtype)
        return torch.softmax(logits * temperature, dim=-1)
    """, hint="divide the logits by the temperature"),
    mistake(PROBS, "top-p applied before top-k", [
        replace_line("z = logits / temperature",
                     "z = logits / temperature\n"
                     "probs = torch.softmax(z, dim=-1)\n"
                     "if top_p is not None and top_p < 1.0:\n"
                     "    sorted_probs, order = torch.sort(probs, dim=-1, descending=True)\n"
                     "    before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs\n"
                     "    drop = torch.zeros_like(before, dtype=torch.bool).scatter(-1, order,"
                     " before >= top_p)\n"
                     '    z = z.masked_fill(drop, float("-inf"))'),
        edit(", largest=False", ""), edit("z >", "z <"),
    ], hint="apply top-k first, renormalise, then choose the top-p set from those renormalised "
            "probabilities", like="top-k keeps the k smallest"),
    mistake(PROBS, "top-k keeps k + 1 (sorted values indexed at k)", [
        edit("top_k:", "top_k and top_k < z.shape[-1]:"),
        replace_line("kth = torch.topk(z,",
                     "kth = torch.sort(z, dim=-1, descending=True).values[..., top_k:top_k + 1]"),
        edit("kth, 0.0", 'kth, float("-inf")'),
    ], hint="the k-th largest is topk(z, k).values[..., k - 1] (or [..., -1]): index k is the "
            "(k+1)-th", like="removed logits filled with 0 instead of -inf"),
    # keeps V - k + 1 tokens: the same as "k + 1" where V = 2k (the worked top_k = 2), told
    # apart on the six tokens before it
    mistake(PROBS, "top-k threshold from torch.kthvalue (the k-th SMALLEST)", edit(
        "kth = torch.topk(z, min(int(top_k), z.shape[-1]), dim=-1).values[..., -1:]",
        "kth = torch.kthvalue(z, min(int(top_k), z.shape[-1]), dim=-1, keepdim=True).values"),
            hint="torch.kthvalue counts from the smallest: the k-th largest of V logits is "
                 "torch.topk(z, k).values[..., -1:], or torch.kthvalue(z, V - k + 1)"),
    mistake(PROBS, "top_k larger than the vocabulary crashes torch.topk", [
        edit("dim=-1),", "-1),"), edit("min(int(top_k), z.shape[-1])", "top_k"),
    ], detects=nb08.HINT_CRASH_PROBS),
    mistake(PROBS, "top-p sorted ascending", [
        edit("dim=-1),", "-1),"), edit("int(top_k)", "top_k"), edit(", descending=True", ""),
    ], hint="sort in decreasing order: torch.sort(probs, descending=True)"),
    mistake(PROBS, "top-p along dim=1 (right for (B, V) only)", [
        replace_line("sorted_probs, order = torch.sort(probs, dim=-1)",
                     "if probs.dim() == 1:\n"
                     "    probs = probs[None]\n"
                     "    squeeze = True\n"
                     "else:\n"
                     "    squeeze = False\n"
                     "sorted_probs, order = torch.sort(probs, dim=1, descending=True)\n"
                     "before = torch.cumsum(sorted_probs, dim=1) - sorted_probs"),
        delete("before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs"),
        edit("-1, order", "1, order"),
        replace_line("probs = probs / probs.sum(dim=-1, keepdim=True)",
                     "probs = probs / probs.sum(dim=-1, keepdim=True)\n"
                     "if squeeze:\n"
                     "    probs = probs[0]"),
    ], detects=nb08.HINT_FILTER_ALONG_LAST_AXIS, like="top-p sorted ascending"),
    mistake(PROBS, "logits divided by the temperature in place (logits /= T)",
            replace_line("z = logits / temperature", "logits /= temperature\nz = logits"),
            detects=nb08.HINT_PROBS_IN_PLACE),
    mistake(PROBS, "top-k mask written in place (masked_fill_) on the logits", [
        edit("/ temperature", "if temperature == 1 else logits / temperature"),
        edit("z = z.masked_fill", "z.masked_fill_")], detects=nb08.HINT_PROBS_IN_PLACE),
    mistake(PROBS, "k-th value without keepdim (right for one row only)", edit("1:", "1"),
            detects=nb08.HINT_CRASH_PROBS),
    mistake(PROBS, "softmax over dim=0 (right for one row only)", edit("z, dim=-1", "z, dim=0"),
            detects=nb08.HINT_FILTER_ALONG_LAST_AXIS),
    mistake(PROBS, "top_k = 0 taken as a filter (if top_k is not None)",
            edit("top_k:", "top_k is not None:"), detects=nb08.HINT_CRASH_PROBS),
    mistake(PROBS, "temperature 0 returns the argmax id, not a one-hot row", [
        replace_line("return torch.nn.functional", "return logits.argmax(dim=-1)"),
        delete("logits.dtype)")], detects=nb08.HINT_PROBS_SHAPE),
    alternative(PROBS, "powers of probabilities, a loop over rows", """
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
        return out.reshape(logits.shape)"""),
    alternative(PROBS, "top-k with topk indices and scatter (exactly k)", [
        edit(".to(", ".float()"), delete("logits.dtype)"),
        edit("top_k:", "top_k and top_k < z.shape[-1]:"),
        replace_line("kth = torch.topk(z,", "values, indices = torch.topk(z, top_k, dim=-1)"),
        edit('z.masked_fill(z < kth, float("-inf")',
             'torch.full_like(z, float("-inf")).scatter(-1, indices, values'),
        edit("torch.sort(probs, dim", "probs.sort(dim"),
        edit("torch.cumsum(sorted_probs, dim", "sorted_probs.cumsum(dim"),
        edit("sorted_probs = sorted_probs.masked_fill(cum > top_p, 0.0)",
             "keep = torch.cat((torch.ones_like(cum[..., :1], dtype=torch.bool),"),
        replace_line("probs = torch.zeros_like",
                     "                  cum[..., :-1] < top_p), dim=-1)\n"
                     "sorted_probs = sorted_probs * keep\n"
                     "probs = sorted_probs.gather(-1, order.argsort(dim=-1))"),
    ], like="top-p drops the token that crosses p"),
    alternative(PROBS, "softmax first, top-k zeroed and renormalised", """
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
        return probs"""),
    alternative(PROBS, "HF-style top-p: ascending sort, drop cum <= 1 - p", """
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
        return z.softmax(dim=-1)"""),
    alternative(PROBS, "numpy inside, torch.from_numpy out (float64)", """
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
        return torch.from_numpy(p)"""),
    alternative(PROBS, "float32 clone edited in place, sort-threshold top-k", """
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
        return p"""),
    alternative(PROBS, "pure Python per row with math.exp", """
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
        return torch.tensor(out, dtype=logits.dtype).reshape(logits.shape)"""),
    alternative(PROBS, "log space: kthvalue, logsumexp, one-hot by comparison", """
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
        return logp.exp()"""),
    # -- sample_next -------------------------------------------------------------------------------
    mistake(SAMPLE, "generator not passed on",
            edit(", generator=generator)[0]", ").reshape(probs.shape[:-1])"),
            detects=nb08.HINT_GENERATOR, like="only the first row drawn ([0])"),
    mistake(SAMPLE, "draws from the unfiltered softmax", [
        edit("next_token_probs(logits, temperature, top_k, top_p",
             "torch.softmax(logits / temperature, dim=-1"),
        edit(", 1", ", 1, generator=generator"),
    ], detects=nb08.HINT_SAMPLE_FROM_PROBS, like="generator not passed on"),
    mistake(SAMPLE, "always the argmax", edit(")", ").argmax(dim=-1)"),
            detects=nb08.HINT_ALWAYS_ARGMAX, like="returns the distribution"),
    mistake(SAMPLE, "returns the distribution",
            "return next_token_probs(logits, temperature, top_k, top_p)",
            detects=nb08.HINT_SAMPLE_IDS),
    mistake(SAMPLE, "temperature ignored when sampling", edit("temperature,", "1.0,"),
            detects=nb08.HINT_PROBS_ARGUMENTS),
    mistake(SAMPLE, "argmax over the batch axis at temperature 0", [
        edit("=-1", "=0"), edit("1)", "1, generator=generator)"),
    ], detects=nb08.HINT_SAMPLE_SHAPE, like="generator not passed on"),
    mistake(SAMPLE, "one draw shared by every row", [
        edit("draws = torch.multinomial(flat", "draw = torch.multinomial(flat[0]"),
        edit("return draws.reshape(probs.shape",
             "return draw.expand(flat.shape[0]).reshape(probs.shape"),
    ], detects=nb08.HINT_ONE_DRAW_PER_ROW),
    mistake(SAMPLE, "leading axes not flattened for multinomial",
            [delete("return torch.multinomial(flat,"),
             replace_line("flat = probs.reshape(-1,",
                          "return torch.multinomial(probs, 1, generator=generator).squeeze(-1)")],
            detects=nb08.HINT_CRASH_SAMPLE, like="generator not passed on"),
    mistake(SAMPLE, "greedy returns the top logit, not its index (max, not argmax)",
            edit("return logits.argmax(dim=-1)", "return logits.max(dim=-1).values"),
            detects=nb08.HINT_SAMPLE_INTEGERS),
    mistake(SAMPLE, "top_k dropped when top_p is given (one filter at a time)",
            edit("next_token_probs(logits, temperature, top_k, top_p)",
                 "next_token_probs(logits, temperature, None if top_p else top_k, top_p)"),
            detects=nb08.HINT_UNFILTERED),
    mistake(SAMPLE, "only the first row drawn ([0])", [
        edit("draws = torch.multinomial(flat, 1, generator=generator)",
             "return torch.multinomial(flat, 1, generator=generator)[0]"),
        delete("return draws.reshape(probs.shape[:-1])")], detects=nb08.HINT_SAMPLE_SHAPE),
    mistake(SAMPLE, "a seeded generator made when none is given",
            insert_before("if temperature == 0:", "if generator is None:\n"
                          "    generator = torch.Generator().manual_seed(0)"),
            detects=nb08.HINT_GLOBAL_GENERATOR),
    alternative(SAMPLE, "inverse CDF with torch.rand", """
        if temperature == 0:
            return logits.argmax(dim=-1)
        probs = next_token_probs(logits, temperature, top_k, top_p)
        flat = probs.reshape(-1, probs.shape[-1])
        cum = flat.cumsum(dim=-1)
        u = torch.rand(flat.shape[0], 1, generator=generator, dtype=cum.dtype) * cum[:, -1:]
        picks = torch.searchsorted(cum, u, right=True).clamp(max=flat.shape[-1] - 1)
        return picks.reshape(probs.shape[:-1])"""),
    alternative(SAMPLE, "Gumbel-max trick", """
        if temperature == 0:
            return logits.argmax(dim=-1)
        probs = next_token_probs(logits, temperature, top_k, top_p)
        u = torch.rand(probs.shape, generator=generator, dtype=torch.float64).clamp(min=1e-12)
        return (probs.double().log() - (-u.log()).log()).argmax(dim=-1)"""),
    alternative(SAMPLE, "multinomial of the one-hot at temperature 0, unnormalised", """
        weights = next_token_probs(logits, temperature, top_k, top_p) * 7.0
        flat = weights.reshape(-1, weights.shape[-1])
        picks = torch.multinomial(flat, num_samples=1, generator=generator).squeeze(-1)
        return picks.view(weights.shape[:-1])"""),
    alternative(SAMPLE, "one multinomial per row in a loop", [
        edit("logits.argmax(", "torch.argmax(logits, "),
        edit("draws = torch.multinomial(flat, 1, generator=generator)",
             "picks = [torch.multinomial(row, 1, generator=generator)[0] for row in flat]"),
        edit("draws.reshape", "torch.stack(picks).reshape")]),
    alternative(SAMPLE, "exponential race: argmax of p / Exp(1)", """
        if temperature == 0:
            return logits.max(dim=-1).indices
        probs = next_token_probs(logits, temperature, top_k, top_p)
        race = torch.empty_like(probs).exponential_(1.0, generator=generator)
        return (probs / race).argmax(dim=-1)"""),
    alternative(SAMPLE, "numpy inverse CDF on torch.rand uniforms", """
        import numpy as np
        if temperature == 0:
            return logits.argmax(-1)
        probs = next_token_probs(logits, temperature, top_k, top_p).double()
        cdf = probs.cumsum(-1).numpy()
        u = torch.rand(probs.shape[:-1] + (1,), generator=generator,
                       dtype=torch.float64).numpy()
        index = (cdf < u * cdf[..., -1:]).sum(-1)
        return torch.as_tensor(np.asarray(np.minimum(index, probs.shape[-1] - 1)))"""),
    alternative(SAMPLE, "topk(1) for greedy, float64 multinomial with replacement", """
        if temperature == 0:
            return torch.topk(logits, 1, dim=-1).indices.squeeze(-1)
        probs = next_token_probs(logits, temperature=temperature, top_k=top_k, top_p=top_p)
        V = probs.shape[-1]
        draws = torch.multinomial(probs.double().reshape(-1, V), num_samples=1,
                                  replacement=True, generator=generator)
        return draws.view(*probs.shape[:-1])"""),
    alternative(SAMPLE, "a fresh generator when None, draws on logits' device", """
        if generator is None:
            generator = torch.Generator(device=logits.device)
            generator.seed()
        probs = next_token_probs(logits, temperature, top_k, top_p)
        if temperature == 0:
            return probs.argmax(dim=-1).long()
        flat = probs.flatten(0, -2) if probs.dim() > 1 else probs[None]
        return torch.multinomial(flat, 1, generator=generator).view(probs.shape[:-1])"""),
    alternative(SAMPLE, "a Python int for a single row of logits", """
        if logits.dim() == 1:
            if temperature == 0:
                return int(logits.argmax())
            p = next_token_probs(logits, temperature, top_k, top_p)
            return int(torch.multinomial(p, 1, generator=generator))
        probs = next_token_probs(logits, temperature, top_k, top_p)
        if temperature == 0:
            return probs.argmax(-1)
        flat = probs.reshape(-1, probs.shape[-1])
        return torch.multinomial(flat, 1, generator=generator).reshape(probs.shape[:-1])"""),
    # -- generate ----------------------------------------------------------------------------------
    mistake(GENERATE, "finished made as floats (torch.zeros(B))",
            edit(", dtype=torch.bool, device", ", device"), detects=nb08.HINT_FINISHED_BOOL),
    mistake(GENERATE, "EOS does not stop a row", [
        delete("if (new == eos_id).any():"), delete("break"),
    ], hint="once a row emits eos_id it is finished: later positions get pad_id, and the loop ends "
            "when every row has finished", like="the whole batch stops at the first EOS"),
    mistake(GENERATE, "EOS not kept (finished marked before padding)", """
        ids = prompt_ids
        finished = torch.zeros(ids.shape[0], dtype=torch.bool)
        for _ in range(max_new_tokens):
            new = sample_next(model(ids)[:, -1], temperature, top_k, top_p, generator)
            finished = finished | (new == eos_id)
            new = torch.where(finished, torch.full_like(new, pad_id), new)
            ids = torch.cat((ids, new[:, None]), dim=1)
            if finished.all():
                break
        return ids""", hint="keep the EOS token itself: mark a row finished AFTER writing its new "
                            "token"),
    mistake(GENERATE, "the whole batch stops at the first EOS", [
        delete("finished = torch.zeros(ids.shape[0], dtype=torch.bool)"),
        delete("finished = finished | (new == eos_id)"), delete("new = torch.where(finished"),
        edit("finished.all", "(new == eos_id).any"),
    ], hint="each row stops on its own: keep going until EVERY row has emitted eos_id",
       like="EOS not kept (finished marked before padding)"),
    mistake(GENERATE, "finished rows keep generating", [
        edit("max_new_tokens - 1", "max_new_tokens"), delete("new = torch.where(finished"),
    ], hint="after its EOS a row gets only pad_id (torch.where(finished, pad_id, new))",
       like="one step too few"),
    mistake(GENERATE, "one step too few", [
        edit("max_new_tokens", "max_new_tokens - 1"), edit(", 0", ", -1"),
    ], hint="run at most max_new_tokens steps: range(max_new_tokens)",
       like="logits of the first position"),
    mistake(GENERATE, "feeds only the last token", edit(")[:, 0", "[:, -1:])[:, -1"),
            detects=nb08.HINT_WHOLE_SEQUENCE, like="logits of the first position"),
    mistake(GENERATE, "logits of the first position", [
        edit(", device=ids.device", ""),
        replace_line("with torch.no_grad():",
                     "new = sample_next(model(ids)[:, 0], temperature, top_k, top_p, generator)"),
        delete("logits = model(ids)[:, -1]"), delete("new = sample_next(logits"),
        edit("bool(finished.all()", "finished.all(")], detects=nb08.HINT_LAST_POSITION),
    mistake(GENERATE, "always greedy (sampling arguments ignored)",
            replace_line("new = sample_next(model", "new = model(ids)[:, -1].argmax(dim=-1)"),
            detects=nb08.HINT_PASS_SETTINGS, like="feeds only the last token"),
    mistake(GENERATE, "finished reset every step", [
        edit("[:, -1:]", ""), edit("finished | (new == eos_id)", "new == eos_id"),
    ], hint="a row stays finished once it has emitted eos_id: combine the old flags and (new == "
            "eos_id) with |, never overwrite them", like="feeds only the last token"),
    mistake(GENERATE, "max_new_tokens read as the total length",
            edit("for _ in range(max_new_tokens - 1)", "while ids.shape[1] < max_new_tokens"),
            hint="max_new_tokens counts NEW tokens only: the output has up to L + max_new_tokens "
                 "columns", like="one step too few"),
    mistake(GENERATE, "the model reads the prompt only", edit("ids[:, -1:]", "prompt_ids"),
            hint="run the model on ids, the prompt AND every token appended so far",
            like="feeds only the last token"),
    mistake(GENERATE, "returns only the new tokens", [
        edit("[:, -1:]", ""), replace_line("return ids", "return ids[:, prompt_ids.shape[1]:]"),
    ], detects=nb08.HINT_NEW_TOKENS_ONLY, like="feeds only the last token"),
    mistake(GENERATE, "only the temperature and generator passed on", [
        edit("0], temperature, top_k, top_p, generator", "-1], temperature, generator=generator"),
    ], detects=nb08.HINT_PASS_SETTINGS, like="logits of the first position"),
    mistake(GENERATE, "probabilities passed to sample_next as logits",
            edit("sample_next(logits,", "sample_next(torch.softmax(logits, dim=-1),"),
            detects=nb08.HINT_RAW_LOGITS),
    mistake(GENERATE, "the generator not passed on to sample_next",
            edit("top_k, top_p, generator)", "top_k, top_p)"), detects=nb08.HINT_PASS_GENERATOR),
    mistake(GENERATE, "pad_id also finishes a row",
            edit("finished | (new == eos_id)", "finished | (new == eos_id) | (new == pad_id)"),
            hint="only eos_id finishes a row; pad_id is written only after it (the model may "
                 "emit the pad id as a real token)"),
    mistake(GENERATE, "finished rows padded with eos_id", [
        edit(", device=ids.device", ""), edit("pad_id", "eos_id")],
            hint="a finished row receives pad_id (the argument), not eos_id"),
    mistake(GENERATE, "padding hard-coded as 0 (pad_id ignored)",
            edit("torch.full_like(new, eos_id", "torch.zeros_like(new"),
            hint="write pad_id, the argument, into finished rows; 0 only happens to be the default",
            like="finished rows padded with eos_id"),
    mistake(GENERATE, "no early stop: all max_new_tokens columns every time", [
        delete("if bool(finished.all())"), delete("break"),
    ], hint="stop as soon as every row has finished (if finished.all(): break): the output then "
            "has fewer than max_new_tokens new columns"),
    mistake(GENERATE, "batch size hard-coded to 2",
            edit("ids.shape[0], dtype=torch.bool, device=ids.device", "2, dtype=torch.bool"),
            detects=nb08.HINT_CRASH_GENERATE),
    mistake(GENERATE, "logits of the last ROW of the batch (model(ids)[-1])", [
        edit(", device=ids.device", ""), edit(":, -", "-")], detects=nb08.HINT_CRASH_GENERATE),
    alternative(GENERATE, "one row at a time, padded at the end", """
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
        return torch.tensor([r + [pad_id] * (width - len(r)) for r in rows])"""),
    alternative(GENERATE, "preallocated output, trimmed at the end", """
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
        return out[:, :L + n]"""),
    alternative(GENERATE, "token lists and a while loop", """
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
        return torch.tensor(rows)"""),
    alternative(GENERATE, "the package's KV cache (decode_step), one token fed per step", """
        from attnbook.lm.generation import KVCache, decode_step
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
        return out"""),
    alternative(GENERATE, "inference_mode, context cropped to max_len, columns stacked", """
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
        return torch.stack(columns, dim=1)"""),
    alternative(GENERATE, "every step run, trimmed after the step all rows finished", """
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
        return ids"""),
    alternative(GENERATE, "preallocated on the model's device, mode restored", """
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
        return out[:, :length]"""),
    alternative(GENERATE, "finished read back from the generated columns", """
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
        return ids"""),
    alternative(GENERATE, "float64 logits, Python lists for the finished rows", """
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
        return ids"""),
    # -- perplexity --------------------------------------------------------------------------------
    mistake(PERPLEXITY, "exp of the summed loss, then its root",
            edit("math.exp(total_nll / total_tokens)", "math.exp(total_nll) ** (1 / total_tokens)"),
            detects=nb08.HINT_PPL_RANGE),
    mistake(PERPLEXITY, "mean of per-batch perplexities", [
        replace_line("total_nll += float((",
                     "mean = (nll * loss_mask.flatten()).sum() / loss_mask.sum()\n"
                     "total_nll += math.exp(float(mean))"),
        edit("math.exp(total_nll / total_tokens)", "total_nll / total_tokens"),
    ], hint=HINT_PPL_WEIGHTING, like="exp of the mean of per-batch losses"),
    mistake(PERPLEXITY, "exp of the mean of per-batch losses", [
        edit(".sum()", ".sum() / loss_mask.sum()"), edit("loss_mask.numel()", "1"),
    ], hint=HINT_PPL_WEIGHTING, like="masked sum divided by all positions"),
    mistake(PERPLEXITY, "padded targets counted", [
        edit("(nll * loss_mask.flatten()).sum", "nll.sum"), edit("loss_mask.numel", "nll.numel"),
    ], hint=HINT_PPL_PADDING, like="masked sum divided by all positions"),
    mistake(PERPLEXITY, "only the last batch counted", [
        edit("+= float", "= float"), edit("+= loss_mask.numel(", "= int(loss_mask.sum()"),
    ], hint="add every batch to the running totals (total_nll += ...), do not overwrite",
       like="masked sum divided by all positions"),
    mistake(PERPLEXITY, "returns the loss", (None, None, """
        return total_nll / total_tokens"""), hint="perplexity = exp(mean loss in nats)"),
    mistake(PERPLEXITY, "2 ** loss", edit("math.exp", "2 ** "),
            hint="the loss is in nats (natural log): perplexity = exp(loss), not 2 ** loss"),
    mistake(PERPLEXITY, "masked sum divided by all positions", (None, """
        logits = model(inputs)
        nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(),
                                                reduction="none")
        total_nll += float((nll * loss_mask.flatten()).sum())
        total_tokens += loss_mask.numel()""", None), hint=HINT_PPL_PADDING),
    mistake(PERPLEXITY, "mean over all positions times the real count", (None, """
        logits = model(inputs)
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
        total_nll += float(loss) * int(loss_mask.sum())
        total_tokens += int(loss_mask.sum())""", None), hint=HINT_PPL_PADDING),
    mistake(PERPLEXITY, "exp of the summed loss", (None, None, """
        return math.exp(total_nll)"""), hint=HINT_EXP_OF_SUM),
    mistake(PERPLEXITY, "one over the mean probability", ("""
        probs = []""", """
        p = torch.softmax(model(inputs), dim=-1).gather(-1, targets[..., None])[..., 0]
        probs.append(p[loss_mask])""", """
        return 1.0 / float(torch.cat(probs).mean())"""),
            hint="average the LOG-probabilities (the loss), then exp; not the probabilities"),
    mistake(PERPLEXITY, "every sequence weighted equally", [
        edit("logits.flatten(0, 1), safe.flatten()", "logits.transpose(1, 2), safe"),
        replace_line("total_nll +=", "mask = loss_mask.to(nll.dtype)\n"
                     "per_row = (nll * mask).sum(1) / mask.sum(1)\n"
                     "total_nll += float(per_row.sum())"),
        edit("int(loss_mask.sum())", "len(per_row)"),
    ], hint=HINT_PPL_WEIGHTING),
    mistake(PERPLEXITY, "divided by the number of sequences",
            edit("int(loss_mask.sum()", "len(targets"),
            hint="divide by the number of real target TOKENS, loss_mask.sum(), not by the number "
                 "of rows"),
    mistake(PERPLEXITY, "exp before dividing", (None, None, """
        return math.exp(total_nll) / total_tokens"""), hint=HINT_EXP_OF_SUM),
    mistake(PERPLEXITY, "ignore_index=0 and the targets that are not 0 counted", (None, """
        logits = model(inputs)
        total_nll += float(torch.nn.functional.cross_entropy(
            logits.flatten(0, 1), targets.flatten(), reduction="sum", ignore_index=0))
        total_tokens += int((targets != 0).sum())""", None), hint=HINT_PPL_IGNORE_INDEX),
    mistake(PERPLEXITY, "ignore_index=0 instead of loss_mask",
            edit("int((targets != 0).sum())", "int(loss_mask.sum())"), hint=HINT_PPL_IGNORE_INDEX,
            like="ignore_index=0 and the targets that are not 0 counted"),
    mistake(PERPLEXITY, "floor division of the summed loss", (None, None, """
        return math.exp(total_nll // total_tokens)"""),
            hint="true division: total_nll / total_tokens (// rounds down)"),
    alternative(PERPLEXITY, "ignore_index and a summed cross-entropy", ("""
        total_nll, total_tokens = 0.0, 0.0""", """
        logits = model(inputs)
        masked = targets.masked_fill(~loss_mask, -100)
        total_nll = total_nll + torch.nn.functional.cross_entropy(
            logits.transpose(1, 2), masked, ignore_index=-100, reduction="sum").item()
        total_tokens = total_tokens + loss_mask.sum().item()""", """
        return float(torch.tensor(total_nll / total_tokens).exp())""")),
    alternative(PERPLEXITY, "log_softmax and gather", ("""
        total_nll = total_tokens = 0""", """
        log_probs = torch.log_softmax(model(inputs), dim=-1)
        picked = log_probs.gather(-1, targets[..., None])[..., 0]
        total_nll -= float(picked[loss_mask].sum())
        total_tokens += int(loss_mask.sum())""", """
        return torch.exp(torch.tensor(total_nll / total_tokens))""")),
    alternative(PERPLEXITY, "masked_select and torch.exp at the end", ("""
        nlls = []""", """
        log_probs = torch.log_softmax(model(inputs).double(), dim=-1)
        picked = log_probs.gather(2, targets.unsqueeze(2)).squeeze(2)
        nlls.append(-torch.masked_select(picked, loss_mask.bool()))""", """
        return torch.cat(nlls).mean().exp().item()""")),
    alternative(PERPLEXITY, "Categorical.log_prob in float64, numpy exp", ("""
        import numpy as np
        nll_sum = torch.zeros((), dtype=torch.float64)
        n_real = torch.zeros((), dtype=torch.long)""", """
        with torch.no_grad():
            dist = torch.distributions.Categorical(logits=model(inputs).double())
        log_p = dist.log_prob(targets)
        nll_sum = nll_sum - log_p[loss_mask.bool()].sum()
        n_real = n_real + loss_mask.sum()""", """
        return np.exp((nll_sum / n_real).item())""")),
    alternative(PERPLEXITY, "eval mode restored, nll_loss with classes on axis 1", ("""
        was_training = model.training
        model.eval()
        nll_total, count = 0.0, 0""", """
        with torch.no_grad():
            log_probs = torch.log_softmax(model(inputs), dim=-1).transpose(1, 2)  # (B, V, L)
        nll = torch.nn.functional.nll_loss(log_probs, targets, reduction="none")  # (B, L)
        nll_total += nll.masked_fill(~loss_mask, 0.0).sum().item()
        count += loss_mask.count_nonzero().item()""", """
        model.train(was_training)
        return math.exp(nll_total / count)""")),
    alternative(PERPLEXITY, "per-batch means weighted by counts, 2 ** (loss / ln 2)", ("""
        weighted, tokens = [], []""", """
        n = int(loss_mask.sum())
        if n:
            with torch.no_grad():
                logits = model(inputs)
            mean_nll = torch.nn.functional.cross_entropy(logits[loss_mask], targets[loss_mask])
            weighted.append(float(mean_nll) * n)
            tokens.append(n)""", """
        return 2 ** (sum(weighted) / sum(tokens) / math.log(2))""")),
    alternative(PERPLEXITY, "logsumexp minus the target logit, a 0-d float64 tensor", ("""
        total = torch.tensor(0.0, dtype=torch.float64)
        count = torch.tensor(0)""", """
        with torch.no_grad():
            logits = model(inputs).double()
        nll = logits.logsumexp(-1) - logits.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
        total += torch.where(loss_mask, nll, torch.zeros_like(nll)).sum()
        count += loss_mask.sum()""", """
        return torch.exp(total / count)""")),
    alternative(PERPLEXITY, "a Python list of per-token losses, loops over b and t", ("""
        pieces = []""", """
        with torch.inference_mode():
            log_probs = model(inputs).log_softmax(-1)
        for b in range(inputs.shape[0]):
            for t in range(inputs.shape[1]):
                if loss_mask[b, t]:
                    pieces.append(-log_probs[b, t, targets[b, t]].item())""", """
        return math.exp(sum(pieces) / len(pieces))""")),
    # -- concept questions -------------------------------------------------------------------------
    mistake("answer_sequence_prob", "leaves out the end token", edit("A", "B"), detects=WHY),
    mistake("answer_teacher_forcing", "thinks scoring removes the mask",
            'answer_teacher_forcing = "A"', detects=WHY),
    mistake("answer_top_p", "drops the crossing token", 'answer_top_p = "A"', detects=WHY),
    mistake("answer_eos", "thinks padding marks the end", 'answer_eos = "A"', detects=WHY),
    mistake("answer_temperature", "forgets to divide by T", 'answer_temperature = "B"',
            detects=WHY),
    mistake("answer_temperature", "multiplies by T", edit("A", "C"), detects=WHY),
    mistake("answer_perplexity", "confuses loss and perplexity", edit("C", "A"), detects=WHY),
    alternative("answer_top_p", "lower case", 'answer_top_p = "b"'),
])
