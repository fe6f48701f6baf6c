"""Notebook 07's mistake catalogue, one section per graded function (see grader/catalogue.py)."""

from grader.catalogue import (
    alternative,
    catalogue,
    delete,
    edit,
    insert_after,
    insert_before,
    mistake,
    replace_line,
)

from attnbook.checks import HINT_IN_PLACE, HINT_NO_RETURN, nb07

BATCH, LOSS, STEP, EVALUATE, ABLATE = ("make_batch", "lm_loss", "train_step", "evaluate",
                                       "ablate_head")

# hints that several entries give
HINT_PADDING_COUNTED = "multiply the per-token losses by loss_mask and count only real targets"
HINT_IGNORE_INDEX = ("loss_mask says which targets are real; the pad id may be any id (and 0 "
                     "may be a real token): weight by loss_mask rather than ignore_index")
HINT_FLOOR_DIVISION = "true division for the mean over the real targets (// rounds down)"
HINT_EVAL_WEIGHTING = ("weight every token the same: add the summed losses of ALL batches and "
                       "divide by the total number of real targets")
HINT_MEAN_AXES = ("average over the batch and position axes (0 and 1), not over the head's d_k "
                  "columns")
HINT_MEAN_OVER_ALL = ("for \"mean\" average the head's output over every position of every row: "
                      "y[..., cols].mean(dim=(0, 1)), one vector of d_k numbers")
HINT_MEAN_NOT_ZERO = ("for \"mean\" replace the head's output at every position by its average "
                      "output over ids (not by zeros, and not by the uniform mix of its values)")
HINT_BIAS_LEFT = ("an ablation through the weights must take the bias too: with only W_V's weight "
                  "rows zeroed the head still outputs its value bias, and with only W_Q's weight "
                  "rows zeroed its query bias still makes the scores depend on the keys; zero the "
                  "bias rows as well, or replace the head's output (its columns of W_O's input) "
                  "with a hook")
HINT_ONLY_THAT_HEAD = ("ablate one head of one block: the hooks go on model.blocks[layer].attn "
                       "only, and only the columns of `head` change")


MISTAKES, ALTERNATIVES = catalogue([
    # -- make_batch --------------------------------------------------------------------------------
    mistake(BATCH, "loss mask from the ids (targets != pad_id), not from the lengths",
            edit("loss_mask[b, :n] = True", "loss_mask[b] = targets[b] != pad_id"),
            hint="loss_mask marks the real targets by position, whatever their ids: True on the "
                 "first len(seq) - 1 of row b. Comparing ids with pad_id also drops a real "
                 "target that equals it (GPT-2 setups pad with the <EOS> id)"),
    mistake(BATCH, "loss mask from the ids (inputs != pad_id), not from the lengths",
            edit("loss_mask[b, :n] = True", "loss_mask[b] = inputs[b] != pad_id"),
            hint="loss_mask marks the real targets by position, whatever the ids: True on the "
                 "first len(seq) - 1 of row b. Comparing inputs with pad_id also drops a real "
                 "input that equals it"),
    mistake(BATCH, "targets not shifted", edit("1:", ":-1"),
            detects=nb07.HINT_SHIFT, like="shifted the wrong way"),
    mistake(BATCH, "shifted the wrong way", [
        edit(":-1", "1:"),
        edit("targets[b, :len(seq) - 1] = ids[1:", "targets[b, :len(seq) - 1] = ids[:-1"),
        edit(")]", ") - 1]")], detects=nb07.HINT_SHIFTED_WRONG_WAY, like="loss mask one too long"),
    mistake(BATCH, "whole sequences, no shift (L too long)", [
        edit("sequences) - 1", "sequences)"), edit("len(ids) - 1", "len(ids)"),
        edit("ids[:-1]", "ids"), edit("targets[b, :n]", "targets[b, :n - 1]"),
    ], detects=nb07.HINT_BATCH_SHAPE),
    mistake(BATCH, "loss mask inverted", edit("loss_mask.long()", "~loss_mask"),
            hint="loss_mask is True on REAL targets and False on padded ones",
            like="loss mask as 0/1 integers"),
    mistake(BATCH, "loss mask one too long", [
        replace_line("loss_mask = torch.zeros((B, L), dtype=torch.bool)",
                     "loss_mask = torch.zeros((B, L), dtype=torch.bool)\n"),
        edit("list(seq), dtype=torch.long", "seq"),
        edit("n = len(ids) - 1", "inputs[b, :len(seq) - 1] = ids[:-1]"),
        edit("inputs[b, :n] = ids[:-1", "targets[b, :len(seq) - 1] = ids[1:"),
        edit("targets[b, :n] = ids[1:]", "loss_mask[b, :len(seq)] = True"),
        delete("loss_mask[b, :n] = True")],
            hint="a sequence of n ids has n - 1 targets: loss_mask[row, :n - 1] = True"),
    mistake(BATCH, "end token excluded from the loss mask", edit(")]", ") - 2]"),
            hint="<EOS> is a real target: the model must learn when an email ends",
            like="loss mask one too long"),
    mistake(BATCH, "padding on the left", [
        edit("inputs[b, :n", "inputs[b, L - n:"), edit(":n] = ids", "L - n:] = ids"),
        edit("targets[b, n:] = -100", "loss_mask[b, L - n:] = True"),
        delete("loss_mask[b, :n] = True"),
    ], hint="pad on the right: row b starts at position 0 and the padding follows it",
       like="padded targets written as -100 (ignore_index)"),
    mistake(BATCH, "padding hard-coded as 0", edit("pad_id, dtype", "0, dtype", count=2),
            hint="fill the padded positions with the pad_id argument, not 0"),
    mistake(BATCH, "loss mask as 0/1 integers", [
        edit(")]", ") - 1]"), edit(", loss_mask", ", loss_mask.long()"),
    ], detects=nb07.HINT_BOOL_MASK, like="loss mask one too long"),
    mistake(BATCH, "pads the caller's lists in place", """
        L = max(len(seq) for seq in sequences)
        for seq in sequences:
            seq.extend([pad_id] * (L - len(seq)))
        ids = torch.tensor(sequences)
        targets = ids[:, 1:]
        return ids[:, :-1], targets, targets != pad_id""", detects=nb07.HINT_BATCH_IN_PLACE),
    mistake(BATCH, "targets padded with the row's <EOS> (its last id), not pad_id",
            insert_after("targets[b, :n] = ids[1:]", "targets[b, n:] = ids[-1]"),
            hint="pad targets with pad_id, as inputs: after a row's last real target (its <EOS>) "
                 "come pad_id, not more copies of <EOS>"),
    mistake(BATCH, "padded targets written as -100 (ignore_index)", [
        replace_line("loss_mask = torch.zeros((B, L), dtype=torch.bool)",
                     "loss_mask = torch.zeros((B, L), dtype=torch.bool)\n"),
        edit("list(seq), dtype=torch.long", "seq"), edit("(ids", "(seq"),
        replace_line("targets[b, :n] = ids[1:]", "targets[b, :n] = ids[1:]\ntargets[b, n:] = -100"),
    ], hint="write pad_id into every padded position, targets included; loss_mask, not a special "
            "target value, marks the padding"),
    mistake(BATCH, "rows sorted by length, longest first", [
        replace_line("L = max(len(seq) for seq in sequences) - 1",
                     "sequences = sorted(sequences, key=len, reverse=True)\n"
                     "L = len(sequences[0]) - 1"),
        edit("n = len(seq) - 2", "inputs[b, :len(seq) - 1] = torch.tensor(seq[:-1])"),
        edit("inputs[b, :n] = torch.tensor(seq[:n",
             "targets[b, :len(seq) - 1] = torch.tensor(seq[1:"),
        edit("targets[b, :n] = torch.tensor(seq[1:n + 1])", "loss_mask[b, :len(seq) - 1] = True"),
        delete("loss_mask[b, :n] = True"),
    ], hint="keep the rows in the order of the sequences: row b is sequence b",
       like="each row one target short (n = len(seq) - 2)"),
    mistake(BATCH, "L from the shortest sequence (longer ones truncated)",
            [edit("max(", "min("), edit("list(seq)", "list(seq[:L + 1])")],
            detects=nb07.HINT_BATCH_SHAPE),
    mistake(BATCH, "numpy arrays returned", [
        insert_after("B = len(sequences)", "import numpy as np"),
        edit("torch.full((B, L), pad_id, dtype=torch.long)", "np.full((B, L), pad_id)", count=2),
        edit("torch.zeros((B, L), dtype=torch.bool)", "np.zeros((B, L), dtype=bool)"),
    ], detects=nb07.HINT_TENSORS),
    mistake(BATCH, "L taken from the first sequence",
            edit("max(len(seq) for seq in sequences", "len(sequences[0]"),
            detects=nb07.HINT_CRASH_MAKE_BATCH),
    mistake(BATCH, "rows built as [[pad_id] * L] * B (one shared list)", """
        L = max(len(seq) for seq in sequences) - 1
        B = len(sequences)
        inputs = [[pad_id] * L] * B
        targets = [[pad_id] * L] * B
        mask = [[False] * L] * B
        for b, seq in enumerate(sequences):
            n = len(seq) - 1
            inputs[b][:n] = list(seq[:-1])
            targets[b][:n] = list(seq[1:])
            mask[b][:n] = [True] * n
        return torch.tensor(inputs), torch.tensor(targets), torch.tensor(mask)
    """, hint="[[pad_id] * L] * B repeats ONE list B times, so writing row b writes every row: "
              "build each row on its own (a list comprehension, or torch.full((B, L), pad_id))"),
    mistake(BATCH, "float tensors (torch.zeros(B, L) + pad_id)", [
        edit("torch.full((B, L), pad_id, dtype=torch.long)", "torch.zeros(B, L) + pad_id", count=2),
        edit("2", "1"), edit("[:n]", "[:-1], dtype=torch.float32"),
        edit("n + 1]", "], dtype=torch.float32"),
    ], detects=nb07.HINT_LONG, like="each row one target short (n = len(seq) - 2)"),
    mistake(BATCH, "torch.tensor(sequences) without padding", """
        ids = torch.tensor(sequences, dtype=torch.long)
        return ids[:, :-1], ids[:, 1:], ids[:, 1:] != pad_id
    """, detects=nb07.HINT_CRASH_MAKE_BATCH),
    mistake(BATCH, "each row one target short (n = len(seq) - 2)", [
        replace_line("ids = torch.tensor(list(seq), dtype=torch.long)",
                     "n = len(seq) - 2\n"
                     "inputs[b, :n] = torch.tensor(seq[:n])\n"
                     "targets[b, :n] = torch.tensor(seq[1:n + 1])"),
        delete("n = len(ids) - 1"), delete("inputs[b, :n] = ids[:-1]"),
        delete("targets[b, :n] = ids[1:]")], detects=nb07.HINT_SHIFT),
    alternative(BATCH, "pad_sequence and a length mask", """
        from torch.nn.utils.rnn import pad_sequence
        seqs = [torch.as_tensor(list(seq), dtype=torch.long) for seq in sequences]
        inputs = pad_sequence([s[:-1] for s in seqs], batch_first=True, padding_value=pad_id)
        targets = pad_sequence([s[1:] for s in seqs], batch_first=True, padding_value=pad_id)
        lengths = torch.tensor([len(s) - 1 for s in seqs])
        loss_mask = torch.arange(inputs.shape[1]).unsqueeze(0) < lengths.unsqueeze(1)
        return inputs, targets, loss_mask"""),
    alternative(BATCH, "list comprehensions and torch.tensor", """
        L = max(len(seq) for seq in sequences) - 1
        rows_in = [list(seq[:-1]) + [pad_id] * (L - len(seq) + 1) for seq in sequences]
        rows_out = [list(seq[1:]) + [pad_id] * (L - len(seq) + 1) for seq in sequences]
        mask = [[t < len(seq) - 1 for t in range(L)] for seq in sequences]
        return torch.tensor(rows_in), torch.tensor(rows_out), torch.tensor(mask)"""),
    alternative(BATCH, "pad the full sequences, then slice; mask from the inputs", """
        L = max(len(seq) for seq in sequences)
        ids = torch.full((len(sequences), L), pad_id)
        lengths = torch.tensor([len(seq) for seq in sequences])
        for b, seq in enumerate(sequences):
            ids[b, :len(seq)] = torch.as_tensor(seq)
        loss_mask = torch.arange(L - 1)[None, :] < (lengths[:, None] - 1)
        return ids[:, :-1].clone(), ids[:, 1:].clone(), loss_mask"""),
    alternative(BATCH, "F.pad each row, then torch.stack; a list returned", """
        import torch.nn.functional as F
        L = max(len(seq) for seq in sequences) - 1
        rows_x, rows_y, rows_m = [], [], []
        for seq in sequences:
            ids = torch.as_tensor(seq, dtype=torch.long)
            gap = L - (len(ids) - 1)
            rows_x.append(F.pad(ids[:-1], (0, gap), value=pad_id))
            rows_y.append(F.pad(ids[1:], (0, gap), value=pad_id))
            rows_m.append(F.pad(torch.ones(len(ids) - 1, dtype=torch.bool), (0, gap), value=False))
        return [torch.stack(rows_x), torch.stack(rows_y), torch.stack(rows_m)]"""),
    alternative(BATCH, "numpy arrays converted with torch.from_numpy", """
        import numpy as np
        B, L = len(sequences), max(len(seq) for seq in sequences) - 1
        ids = np.full((B, L + 1), pad_id, dtype=np.int64)
        mask = np.zeros((B, L), dtype=bool)
        for b, seq in enumerate(sequences):
            ids[b, :len(seq)] = seq
            mask[b, :len(seq) - 1] = True
        targets = np.where(mask, ids[:, 1:], pad_id)
        return torch.from_numpy(ids[:, :-1]), torch.from_numpy(targets), torch.from_numpy(mask)"""),
    alternative(BATCH, "padded ids, masked_fill of both shifted views", """
        lengths = torch.tensor([len(seq) for seq in sequences])
        width = int(lengths.max())
        ids = torch.zeros(len(sequences), width, dtype=torch.long)
        for b, seq in enumerate(sequences):
            ids[b, :len(seq)] = torch.tensor(seq)
        loss_mask = torch.arange(width - 1).expand(len(sequences), -1) < (lengths - 1).unsqueeze(1)
        inputs = ids[:, :-1].masked_fill(~loss_mask, pad_id)
        targets = ids[:, 1:].masked_fill(~loss_mask, pad_id)
        return inputs, targets, loss_mask"""),
    alternative(BATCH, "int32 ids and non-contiguous transposed outputs", """
        L = max(len(seq) for seq in sequences) - 1
        inputs_t = torch.full((L, len(sequences)), pad_id, dtype=torch.int32)
        targets_t = torch.full((L, len(sequences)), pad_id, dtype=torch.int32)
        mask_t = torch.zeros((L, len(sequences)), dtype=torch.bool)
        for b, seq in enumerate(sequences):
            n = len(seq) - 1
            inputs_t[:n, b] = torch.tensor(seq[:-1], dtype=torch.int32)
            targets_t[:n, b] = torch.tensor(seq[1:], dtype=torch.int32)
            mask_t[:n, b] = True
        return inputs_t.T, targets_t.T, mask_t.T"""),
    alternative(BATCH, "itertools.zip_longest over the shifted lists", """
        from itertools import zip_longest
        heads = [list(seq)[:-1] for seq in sequences]
        tails = [list(seq)[1:] for seq in sequences]
        inputs = torch.tensor(list(zip_longest(*heads, fillvalue=pad_id))).T.contiguous()
        targets = torch.tensor(list(zip_longest(*tails, fillvalue=pad_id))).T.contiguous()
        lengths = torch.tensor([len(h) for h in heads])
        loss_mask = torch.arange(inputs.shape[1]) < lengths[:, None]
        return tuple([inputs.long(), targets.long(), loss_mask])"""),
    # -- lm_loss -----------------------------------------------------------------------------------
    mistake(LOSS, "padding counted in the loss",
            "return torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())",
            hint=HINT_PADDING_COUNTED),
    mistake(LOSS, "mean over the batch of per-sequence means", """
        nll = torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets, reduction="none")
        mask = loss_mask.float()
        return ((nll * mask).sum(dim=1) / mask.sum(dim=1)).mean()""", detects=nb07.HINT_WEIGHT),
    mistake(LOSS, "sum instead of mean", edit(".mean", ".sum"),
            hint="divide the summed loss by loss_mask.sum()",
            like="masked sum divided by all positions"),
    mistake(LOSS, "masked sum divided by all positions", """
        nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(),
                                                reduction="none")
        return (nll * loss_mask.flatten()).mean()""", detects=nb07.HINT_WEIGHT),
    mistake(LOSS, "divided by the number of emails", edit(".sum()", ".sum() / logits.shape[0]"),
            detects=nb07.HINT_WEIGHT, like="sum instead of mean"),
    mistake(LOSS, "log of softmax overflows", """
        probs = torch.softmax(logits, dim=-1)
        picked = probs.gather(-1, targets[..., None])[..., 0]
        nll = -torch.log(picked)
        return (nll * loss_mask).sum() / loss_mask.sum()""", detects=nb07.HINT_LOG_OF_SOFTMAX),
    mistake(LOSS, "softmax over the positions", """
        log_probs = torch.log_softmax(logits, dim=1)
        picked = log_probs.gather(-1, targets[..., None])[..., 0]
        return -(picked * loss_mask).sum() / loss_mask.sum()
    """, hint="normalise over the last axis (the vocabulary), dim=-1"),
    mistake(LOSS, "loss in bits", [
        edit("(nll * mask).sum() / mask.sum()).item(",
             "nll * mask).sum() / mask.sum() / math.log(2"),
    ], hint="the loss is in nats: use the natural log (F.cross_entropy does)",
       like="returns a Python float"),
    mistake(LOSS, "returns a Python float", """
        nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(),
                                                reduction="none")
        mask = loss_mask.flatten().float()
        return ((nll * mask).sum() / mask.sum()).item()""", detects=nb07.HINT_LOSS_TENSOR),
    mistake(LOSS, "the mask applied to the logits", [
        edit("logits.flatten", "(logits * loss_mask[..., None]).flatten"),
        edit("(nll * mask)", "nll")],
            hint="multiply the per-token LOSSES by loss_mask; zeroed logits still give a loss of "
                 "log V"),
    mistake(LOSS, "targets shifted again inside the loss", insert_before(
        "safe =", "logits, targets, loss_mask = logits[:, :-1], targets[:, 1:], loss_mask[:, 1:]"),
            hint="make_batch already shifted: logits[b, t] is scored against targets[b, t], the "
                 "same position"),
    mistake(LOSS, "result rebuilt with torch.tensor (graph lost)", [
        edit("(nll * mask).sum() / mask.sum() / math.log(2",
             "torch.tensor(float((nll * mask).sum() / mask.sum())"),
    ], detects=nb07.HINT_LOSS_TENSOR, like="loss in bits"),
    mistake(LOSS, "padded targets zeroed in place (targets[~loss_mask] = 0)", [
        replace_line("safe = torch.where(loss_mask.bool(), targets.long(), 0)",
                     "targets[~loss_mask.bool()] = 0"),
        edit("safe.flatten", "targets.flatten")], detects=nb07.HINT_LOSS_IN_PLACE),
    mistake(LOSS, "floor division by the token count", [
        delete("safe = torch.where(loss_mask.bool(), targets.long(), 0)"),
        edit("safe.flatten", "targets.flatten"), edit("/", "//"),
    ], hint=HINT_FLOOR_DIVISION),
    mistake(LOSS, "unmasked sum over the real count", """
        nll = torch.nn.functional.cross_entropy(
            logits.flatten(0, 1), targets.flatten(), reduction="none")
        return nll.sum() / loss_mask.sum()""", detects=nb07.HINT_MASK_BEFORE_SUM),
    mistake(LOSS, "per-position means (batch axis reduced first)", """
        nll = torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets,
                                                reduction="none")  # (B, L)
        mask = loss_mask.to(nll.dtype)
        per_position = (nll * mask).sum(0) / mask.sum(0)  # (L,)
        return per_position.mean()""", detects=nb07.HINT_WEIGHT_OR_FIRST_ROW),
    mistake(LOSS, "logits reshaped with the length instead of the vocabulary", [
        edit("logits.flatten(0, 1", "logits.reshape(-1, logits.shape[1]"), edit("//", "/"),
    ], detects=nb07.HINT_CRASH_LOSS, like="floor division by the token count"),
    alternative(LOSS, "per-row sums weighted by row counts, float64 inside", """
        log_probs = torch.log_softmax(logits.double(), dim=-1)
        picked = torch.gather(log_probs, 2, targets.unsqueeze(2)).squeeze(2)
        mask = loss_mask.double()
        per_row = -(picked * mask).sum(dim=1)
        return (per_row.sum() / mask.sum()).to(logits.dtype)"""),
    alternative(LOSS, "boolean indexing of the real targets",
                "return torch.nn.functional.cross_entropy(logits[loss_mask], targets[loss_mask])"),
    alternative(LOSS, "log_softmax, gather and masked_select", """
        log_probs = torch.log_softmax(logits, dim=-1)  # (B, L, V)
        picked = log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)  # (B, L)
        return -torch.masked_select(picked, loss_mask).mean()"""),
    alternative(LOSS, "nll_loss on log_softmax, torch.where on the mask", """
        log_probs = torch.nn.functional.log_softmax(logits, dim=-1)
        nll = torch.nn.functional.nll_loss(log_probs.reshape(-1, logits.shape[-1]),
                                           targets.reshape(-1), reduction="none")
        nll = torch.where(loss_mask.reshape(-1), nll, torch.zeros_like(nll))
        return nll.sum() / loss_mask.sum()"""),
    alternative(LOSS, "ignore_index after masked_fill, default mean reduction", """
        masked = targets.masked_fill(~loss_mask, -100)
        return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)),
                                                 masked.reshape(-1), ignore_index=-100)"""),
    alternative(LOSS, "logsumexp minus the target logit, float64 returned", """
        z = logits.double()
        nll = z.logsumexp(dim=-1) - z.gather(-1, targets[..., None]).squeeze(-1)  # (B, L)
        mask = loss_mask.double()
        return (nll * mask).sum() / mask.sum()"""),
    alternative(LOSS, "one-hot targets and ratio of means", """
        V = logits.shape[-1]
        one_hot = torch.nn.functional.one_hot(targets, V).to(logits.dtype)  # (B, L, V)
        nll = -(one_hot * torch.log_softmax(logits, dim=-1)).sum(dim=-1)  # (B, L)
        weights = loss_mask.float()
        return (nll * weights).mean() / weights.mean()"""),
    alternative(LOSS, "einsum of mask and losses, count clamped", """
        nll = torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets, reduction="none")
        weights = loss_mask.to(nll.dtype)
        return torch.einsum("bl,bl->", nll, weights) / weights.sum().clamp(min=1.0)"""),
    # -- train_step --------------------------------------------------------------------------------
    mistake(STEP, "no zero_grad", delete("optimizer.zero_grad()"),
            hint="call optimizer.zero_grad() before loss.backward(); PyTorch ADDS new gradients to "
                 "the old ones", like="zero_grad between backward and step"),
    mistake(STEP, "zero_grad at the end of the step, not at its start (nanoGPT's order)", [
        delete("optimizer.zero_grad()"),
        replace_line("optimizer.step()", "optimizer.step()\noptimizer.zero_grad(set_to_none=True)"),
    ], detects=nb07.HINT_ZERO_GRAD_FIRST),
    mistake(STEP, "no clipping", [
        replace_line("model.train()", "inputs, targets, loss_mask = batch\n"),
        edit("logits = model(inputs", "loss = lm_loss(model(inputs), targets, loss_mask"),
        delete("loss = lm_loss(logits, targets, loss_mask)"),
        delete("torch.nn.utils.clip_grad_norm_"),
    ], hint="clip after loss.backward() and before optimizer.step(), with "
            "torch.nn.utils.clip_grad_norm_ on the model's parameters"),
    mistake(STEP, "clipping by value", [
        edit("torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0",
             "torch.nn.utils.clip_grad_value_(model.parameters(), max_grad_norm"),
    ], hint="clip the global norm: torch.nn.utils.clip_grad_norm_",
       like="clipping hard-coded at 1.0"),
    mistake(STEP, "zero_grad between backward and step", [
        delete("model.eval()"), delete("optimizer.zero_grad()"),
        replace_line("torch.nn.utils.clip_grad_norm_",
                     "torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)\n"
                     "optimizer.zero_grad()"),
    ], hint="call optimizer.step() after backward() and clipping, and do not clear the gradients "
            "between backward() and step(): zero them at the START of the step",
       like="model.eval() before the forward pass"),
    mistake(STEP, "padding counted in the loss", [
        replace_line("model.train()", "inputs, targets, loss_mask = batch\n"),
        replace_line("loss = lm_loss(logits, targets, loss_mask)",
                     "loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1),"
                     " targets.flatten())")],
            hint="use lm_loss(logits, targets, loss_mask), which skips padded targets"),
    mistake(STEP, "returns the loss tensor", [delete("model.eval()"), edit("loss.item()", "loss")],
            detects=nb07.HINT_RETURN_ITEM, like="model.eval() before the forward pass"),
    mistake(STEP, "returns the loss after the update", [
        replace_line("return loss",
                     "with torch.no_grad():\n"
                     "    return lm_loss(model(inputs), targets, loss_mask).item()"),
    ], hint="return the loss of the forward pass that produced the gradients, before "
            "optimizer.step()", like="returns the loss tensor"),
    mistake(STEP, "each parameter clipped on its own", [
        replace_line("torch.nn.utils.clip_grad_value_",
                     "for p in model.parameters():\n"
                     "    torch.nn.utils.clip_grad_norm_(p, max_grad_norm)"),
    ], hint="clip the norm of ALL gradients together: one call clip_grad_norm_(model.parameters(), "
            "max_grad_norm)", like="clipping by value"),
    mistake(STEP, "model.eval() before the forward pass", [
        replace_line("model.train()", "inputs, targets, loss_mask = batch\n\nmodel.eval()"),
        edit("logits = model(inputs", "loss = lm_loss(model(inputs), targets, loss_mask"),
        delete("loss = lm_loss(logits, targets, loss_mask)")], detects=nb07.HINT_EVAL_IN_TRAINING),
    mistake(STEP, "clipping hard-coded at 1.0", [
        replace_line("model.train()", "inputs, targets, loss_mask = batch\n"),
        edit("logits = model(inputs", "loss = lm_loss(model(inputs), targets, loss_mask"),
        delete("loss = lm_loss(logits, targets, loss_mask)"), edit("max_grad_norm", "1.0"),
    ], hint="use the max_grad_norm argument"),
    mistake(STEP, "forward pass under torch.no_grad()", [
        replace_line("model.train()", "inputs, targets, loss_mask = batch\n"),
        replace_line("logits = model(inputs)", "with torch.no_grad():\n    logits = model(inputs)"),
    ], detects=nb07.HINT_NO_GRAPH),
    mistake(STEP, "loss against the inputs instead of the targets", [
        edit("), targets,", "), inputs,"), edit("return loss", "return loss.item()"),
    ], detects=nb07.HINT_STEP_ORDER, like="returns the loss tensor"),
    mistake(STEP, "model run on the targets", [delete("model.eval()"), edit("inputs)", "targets)")],
            detects=nb07.HINT_STEP_ORDER, like="model.eval() before the forward pass"),
    mistake(STEP, "cross_entropy with ignore_index=0 in place of lm_loss and loss_mask",
            replace_line("loss = lm_loss(logits, targets, loss_mask)",
                         "loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1),"
                         " targets.flatten(), ignore_index=0)"), hint=HINT_IGNORE_INDEX),
    mistake(STEP, "loss mask from the ids (targets != 0)",
            edit("targets, loss_mask)", "targets, targets != 0)"), hint=HINT_IGNORE_INDEX),
    mistake(STEP, "padded targets zeroed in place, then ignore_index=0", insert_before(
        "loss = torch.nn", "targets[~loss_mask] = 0"), detects=HINT_IN_PLACE,
            like="cross_entropy with ignore_index=0 in place of lm_loss and loss_mask"),
    mistake(STEP, "padded targets set to 0 by masked_fill, then ignore_index=0",
            edit("targets.flatten()", "targets.masked_fill(~loss_mask, 0).flatten()"),
            hint=HINT_IGNORE_INDEX,
            like="cross_entropy with ignore_index=0 in place of lm_loss and loss_mask"),
    mistake(STEP, "no return: the loss never handed back", delete("return loss"),
            detects=HINT_NO_RETURN.format(where="train_step"), like="returns the loss tensor"),
    alternative(STEP, "clip over the optimizer's parameter groups", [
        replace_line("model.train()", "inputs, targets, loss_mask = batch\n\nmodel.train()"),
        replace_line("optimizer.zero_grad()",
                     "for group in optimizer.param_groups:\n"
                     '    for p in group["params"]:\n'
                     "        p.grad = None"),
        replace_line("torch.nn.utils.clip_grad_norm_",
                     'params = [p for group in optimizer.param_groups for p in group["params"]]\n'
                     "torch.nn.utils.clip_grad_norm_(params, max_grad_norm)")]),
    alternative(STEP, "set_to_none and key padding mask", [
        edit("False", "True"), edit("(inputs", "(inputs, key_padding_mask=loss_mask"),
        replace_line("loss = torch.nn.functional", "loss = lm_loss(logits, targets, loss_mask)"),
        edit("model.parameters(), max_grad_norm",
             "list(model.parameters()), max_norm=max_grad_norm"),
        edit("loss.item(", "float(loss.detach()"),
    ], like="zero_grad(set_to_none=False) and cross_entropy inline"),
    alternative(STEP, "model.zero_grad and the loss returned as a 0-d tensor", """
        inputs, targets, loss_mask = batch
        model.zero_grad()
        loss = lm_loss(model(inputs), targets, loss_mask)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        return loss.detach()"""),
    alternative(STEP, "manual global-norm clipping with the grads' norms", [
        replace_line("optimizer.zero_grad()", "model.train()\noptimizer.zero_grad()"),
        replace_line("torch.nn.utils.clip_grad_value_",
                     "grads = [p.grad for p in model.parameters() if p.grad is not None]\n"
                     "total = torch.sqrt(sum((g.detach() ** 2).sum() for g in grads))\n"
                     "scale = torch.clamp(max_grad_norm / (total + 1e-6), max=1.0)\n"
                     "for g in grads:\n"
                     "    g.mul_(scale)"),
        edit("loss.item(", "float(loss")], like="clipping by value"),
    alternative(STEP, "torch.autograd.grad assigned to .grad, clip via vector norm", """
        inputs, targets, loss_mask = batch

        params = [p for p in model.parameters() if p.requires_grad]
        loss = lm_loss(model(inputs), targets, loss_mask)
        grads = torch.autograd.grad(loss, params, allow_unused=True)
        for p, g in zip(params, grads):
            p.grad = torch.zeros_like(p) if g is None else g
        norm = torch.linalg.vector_norm(torch.cat([p.grad.flatten() for p in params]))
        if norm > max_grad_norm:
            for p in params:
                p.grad *= max_grad_norm / (norm + 1e-6)
        optimizer.step()
        return loss.item()"""),
    alternative(STEP, "param groups zeroed and clipped, mode restored, numpy loss", """
        inputs, targets, loss_mask = batch

        was_training = model.training
        model.train(True)
        params = [p for group in optimizer.param_groups for p in group["params"]]
        for p in params:
            p.grad = None
        with torch.enable_grad():
            loss = lm_loss(model(inputs), targets, loss_mask)
            loss.backward()
        torch.nn.utils.clip_grad_norm_(params, max_norm=max_grad_norm, norm_type=2.0,
                                       error_if_nonfinite=False, foreach=True)
        optimizer.step()
        model.train(was_training)
        return loss.detach().cpu().numpy()"""),
    alternative(STEP, "zero_grad(set_to_none=False) and cross_entropy inline", [
        edit("optimizer.zero_grad(", "optimizer.zero_grad(set_to_none=False"),
        edit("logits.flatten(0, 1), targets.flatten()",
             "logits[loss_mask.bool()], targets[loss_mask.bool()]"),
    ], like="padding counted in the loss"),
    alternative(STEP, "batch moved to the model's device, zero_grad at the end", [
        replace_line("optimizer.zero_grad()",
                     "device = next(model.parameters()).device\n"
                     "inputs, targets, loss_mask = (t.to(device) for t in (inputs, targets,"
                     " loss_mask))\n"
                     "model.train()\n"
                     "model.zero_grad(set_to_none=True)"),
        edit("model.parameters(),", "tuple(model.parameters()),"),
        replace_line("return loss", "value = loss.item()\noptimizer.zero_grad()\nreturn value"),
    ], like="returns the loss tensor"),
    # -- evaluate ----------------------------------------------------------------------------------
    mistake(EVALUATE, "mean of per-batch means", """
        was_training = model.training
        model.eval()
        with torch.no_grad():
            means = [lm_loss(model(x), y, m).item() for x, y, m in batches]
        model.train(was_training)
        return sum(means) / len(means)""", hint=HINT_EVAL_WEIGHTING),
    mistake(EVALUATE, "padding counted", [
        replace_line("means = [lm_loss(model",
                     "means = [torch.nn.functional.cross_entropy(model(x).flatten(0, 1),"
                     " y.flatten()).item()\n"
                     "         for x, y, m in batches]"),
    ], hint=HINT_PADDING_COUNTED, like="mean of per-batch means"),
    mistake(EVALUATE, "ignore_index=0 and the targets that are not 0 counted", """
        was_training = model.training
        model.eval()
        total, count = 0.0, 0
        with torch.no_grad():
            for inputs, targets, loss_mask in batches:
                total += float(torch.nn.functional.cross_entropy(model(inputs).flatten(0, 1),
                    targets.flatten(), ignore_index=0, reduction="sum"))
                count += int((targets != 0).sum())
        model.train(was_training)
        return total / count""", hint=HINT_IGNORE_INDEX),
    mistake(EVALUATE, "ignore_index=0 instead of loss_mask",
            edit("int((targets != 0).sum())", "int(loss_mask.sum())"), hint=HINT_IGNORE_INDEX,
            like="ignore_index=0 and the targets that are not 0 counted"),
    mistake(EVALUATE, "no torch.no_grad()", [
        delete("flags = [p.requires_grad for p in model.parameters()]"),
        delete("model.requires_grad_(False)"),
        replace_line("total += float(lm_loss",
                     "total += lm_loss(model(inputs), targets, loss_mask).item() * n"),
        delete("for p, flag in zip(model.parameters(), flags):"), delete("p.requires_grad_(flag)"),
    ], detects=nb07.HINT_NO_GRAD, like="weights frozen with requires_grad_(False), then restored"),
    mistake(EVALUATE, "no model.eval()", [delete("model.eval()"), delete("model.train()")],
            detects=nb07.HINT_EVAL_RANDOM, like="always switches to training mode at the end"),
    mistake(EVALUATE, "always switches to training mode at the end", [
        delete("was_training = model.training"), edit("was_training", ""), edit("//", "/"),
    ], detects=nb07.HINT_RESTORE_MODE, like="floor division"),
    mistake(EVALUATE, "sum not divided by the token count", edit("total / len(batches)", "total"),
            hint="divide the summed loss by the number of real targets",
            like="summed loss divided by the number of batches"),
    mistake(EVALUATE, "only the last batch counted", [
        delete("total, count = 0.0, 0"),
        edit("n = int(loss_mask.sum()", "loss = lm_loss(model(inputs), targets, loss_mask).item("),
        delete("total += lm_loss(model"), delete("count += n"), edit("total // count", "loss"),
    ], hint="add every batch to the running totals (total += ...), do not overwrite",
       like="floor division"),
    mistake(EVALUATE, "perplexity returned", [
        edit("len(targets", "int(loss_mask.sum()", count=2),
        edit("total / count", "math.exp(total / count)"),
    ], hint="return the mean loss in nats itself; perplexity is notebook 08's business",
       like="batches weighted by their rows (len(targets))"),
    mistake(EVALUATE, "return inside the loop (first batch only)", [
        edit("model.train(", "        model.train("),
        edit("return total //", "        return total /"),
    ], hint="return after the loop, once every batch has been added to the totals",
       like="floor division"),
    mistake(EVALUATE, "summed loss divided by the number of batches", [
        edit(", count = 0.0, 0", " = 0.0"), edit("* len(targets", "* int(loss_mask.sum()"),
        delete("count += len(targets)"), edit("count", "len(batches)"),
    ], hint=HINT_EVAL_WEIGHTING, like="batches weighted by their rows (len(targets))"),
    mistake(EVALUATE, "floor division", """
        was_training = model.training
        model.eval()
        total, count = 0.0, 0
        with torch.no_grad():
            for inputs, targets, loss_mask in batches:
                n = int(loss_mask.sum())
                total += lm_loss(model(inputs), targets, loss_mask).item() * n
                count += n
        model.train(was_training)
        return total // count""", hint=HINT_FLOOR_DIVISION),
    mistake(EVALUATE, "batches weighted by their rows (len(targets))", [
        replace_line("n = int(loss_mask.sum())",
                     "total += lm_loss(model(inputs), targets, loss_mask).item() * len(targets)\n"
                     "count += len(targets)"),
        delete("if n > 0:"),
        delete("total += lm_loss(model(inputs), targets, loss_mask).item() * n"),
        delete("count += n")], hint=HINT_EVAL_WEIGHTING),
    alternative(EVALUATE, "a generator of sums and counts, mask.count_nonzero", [
        replace_line("means = [torch.nn.functional",
                     "parts = [(float(torch.nn.functional.cross_entropy(\n"
                     '            model(x)[m], y[m], reduction="sum")), int(m.count_nonzero()))'),
        replace_line("return sum(means) / len(means)",
                     "return sum(p for p, _ in parts) / sum(n for _, n in parts)"),
    ], like="padding counted"),
    alternative(EVALUATE, "inference_mode and per-token sums", """
        mode = model.training
        model.train(False)
        losses, tokens = [], []
        with torch.inference_mode():
            for inputs, targets, loss_mask in batches:
                nll = torch.nn.functional.cross_entropy(model(inputs).transpose(1, 2), targets,
                                                        reduction="none")
                losses.append(nll[loss_mask].sum())
                tokens.append(loss_mask.sum())
        model.train(mode)
        return (torch.stack(losses).sum() / torch.stack(tokens).sum()).item()"""),
    alternative(EVALUATE, "try/finally restores the mode", """
        was_training = model.training
        model.eval()
        try:
            with torch.no_grad():
                pairs = [(lm_loss(model(x), y, m) * m.sum(), m.sum()) for x, y, m in batches]
        finally:
            model.train(was_training)
        return float(sum(p[0] for p in pairs) / sum(p[1] for p in pairs))"""),
    alternative(EVALUATE, "float64 tensors accumulated, numpy scalar returned", """
        import numpy as np
        was_training = model.training
        model.eval()
        total = torch.zeros((), dtype=torch.float64)
        count = torch.zeros((), dtype=torch.long)
        with torch.no_grad():
            for inputs, targets, loss_mask in batches:
                nll = torch.nn.functional.cross_entropy(model(inputs).double().flatten(0, 1),
                                                        targets.flatten(), reduction="none")
                total += nll[loss_mask.flatten()].sum()
                count += loss_mask.sum()
        model.train(was_training)
        return np.float64(total / count)"""),
    alternative(EVALUATE, "set_grad_enabled(False), mode restored per submodule", """
        modes = {name: module.training for name, module in model.named_modules()}
        model.eval()
        nll_sum, n_real = 0.0, 0
        with torch.set_grad_enabled(False):
            for inputs, targets, loss_mask in batches:
                log_probs = model(inputs).log_softmax(-1)
                picked = log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
                nll_sum -= picked.masked_select(loss_mask).sum().item()
                n_real += loss_mask.sum().item()
        for name, module in model.named_modules():
            module.training = modes[name]
        return nll_sum / n_real"""),
    alternative(EVALUATE, "a no_grad-decorated helper and lm_loss times count", """
        @torch.no_grad()
        def batch_sum(x, y, m):
            return lm_loss(model(x), y, m) * m.sum()

        was_training = model.training
        model.train(False)
        sums = [batch_sum(x, y, m) for x, y, m in batches]
        counts = [m.sum() for _, _, m in batches]
        if was_training:
            model.train()
        return (torch.stack(sums).sum() / torch.stack(counts).sum()).item()"""),
    alternative(EVALUATE, "ignore_index and reduction='sum', a 0-d tensor returned", [
        edit("0.0, 0", "torch.tensor(0.0), torch.tensor(0)"),
        replace_line("n = int(loss_mask.sum())",
                     "masked = targets.masked_fill(~loss_mask, -100)\n"
                     "total = total + torch.nn.functional.cross_entropy(\n"
                     "    model(inputs).transpose(1, 2), masked, ignore_index=-100,"
                     ' reduction="sum")\n'
                     "count = count + loss_mask.count_nonzero()"),
        delete("if n > 0:"), delete("total += lm_loss(model"), delete("count += n")]),
    alternative(EVALUATE, "weights frozen with requires_grad_(False), then restored", """
        was_training = model.training
        flags = [p.requires_grad for p in model.parameters()]
        model.eval()
        model.requires_grad_(False)
        total, count = 0.0, 0
        for inputs, targets, loss_mask in batches:
            n = int(loss_mask.sum())
            total += float(lm_loss(model(inputs), targets, loss_mask)) * n
            count += n
        for p, flag in zip(model.parameters(), flags):
            p.requires_grad_(flag)
        model.train(was_training)
        return total / count"""),
    alternative(EVALUATE, "a deep copy scored in eval mode, the original untouched", [
        replace_line("model.eval()", "import copy\nfrozen = copy.deepcopy(model).eval()"),
        replace_line("total += lm_loss(model",
                     "total += float(lm_loss(frozen(inputs), targets, loss_mask)) * n"),
        delete("model.train()")], like="always switches to training mode at the end"),

    # -- ablate_head -------------------------------------------------------------------------------
    mistake(ABLATE, "sign flipped: clean minus ablated",
            edit("return ablated - clean", "return clean - ablated"),
            hint="the change is ablated minus clean: a head that helped lowers the target's "
                 "log-probability when it is removed, so its change is negative"),
    mistake(ABLATE, "logits of position t scored against ids[:, t]",
            edit("logits[:, :-1]", "logits[:, 1:]"),
            hint="the logits at position t predict the token after it: score log_softmax of "
                 "positions 0..L-2 against ids[:, 1:]"),
    mistake(ABLATE, "log_softmax over the positions",
            edit("log_softmax(logits[:, :-1], dim=-1)", "log_softmax(logits[:, :-1], dim=1)"),
            hint="log_softmax over the vocabulary, the last axis (dim=-1): each position's "
                 "distribution over the next token"),
    mistake(ABLATE, "uniform: the values taken from W_V's input",
            edit('values["v"] = output[..., cols]', 'values["v"] = inputs[0][..., cols]'),
            hint="the head's values are W_V's OUTPUT, its columns cols: a forward hook's third "
                 "argument, not the input it reads"),
    mistake(ABLATE, "mean: one number over the rows, positions and columns",
            edit("y[..., cols].mean(dim=(0, 1))", "y[..., cols].mean()"), hint=HINT_MEAN_AXES),
    mistake(ABLATE, "probabilities instead of log-probabilities",
            edit("return ablated - clean", "return ablated.exp() - clean.exp()"),
            hint="compare LOG-probabilities (torch.log_softmax over the vocabulary), not "
                 "probabilities"),
    mistake(ABLATE, "hooks never removed", [
        delete("while handles:"), delete("handles.pop().remove()")], detects=nb07.HINT_HOOKS_LEFT),
    mistake(ABLATE, "mean: each row's own average",
            edit("mean(dim=(0, 1))", "mean(dim=1, keepdim=True)"), hint=HINT_MEAN_OVER_ALL),
    mistake(ABLATE, "mean: the average over the rows at each position",
            edit("mean(dim=(0, 1))", "mean(dim=0, keepdim=True)"), hint=HINT_MEAN_OVER_ALL),
    mistake(ABLATE, "mean: the head's columns averaged at each position",
            edit("mean(dim=(0, 1))", "mean(dim=-1, keepdim=True)"), hint=HINT_MEAN_AXES),
    mistake(ABLATE, "mean: the values averaged, not the output",
            edit("y[..., cols] = y[..., cols].mean(dim=(0, 1))",
                 'y[..., cols] = values["v"].mean(dim=(0, 1))'),
            hint="average the head's output (its columns of W_O's input), not its values: the "
                 "output is what the next layers read"),
    mistake(ABLATE, "mean: the output zeroed",
            edit("y[..., cols] = y[..., cols].mean(dim=(0, 1))", "y[..., cols] = 0.0"),
            hint=HINT_MEAN_NOT_ZERO),
    mistake(ABLATE, "mean: no branch of its own, so it is made uniform", [
        delete('elif mode == "mean":'), delete("y[..., cols] = y[..., cols].mean(dim=(0, 1))")],
            hint=HINT_MEAN_NOT_ZERO),
    mistake(ABLATE, "clean-up after the passes, not in finally:", [
        replace_line("try:", "if True:"), replace_line("finally:", "if True:")],
            detects=nb07.HINT_CLEAN_AFTER_FAILURE),
    mistake(ABLATE, "the caller's weights zeroed in place and not restored", """
        attn = model.blocks[layer].attn
        cols = slice(head * attn.d_k, (head + 1) * attn.d_k)
        was_training = model.training
        model.eval()
        with torch.no_grad():
            scores = torch.log_softmax(model(ids)[:, :-1], dim=-1)
            clean = scores.gather(-1, ids[:, 1:, None]).squeeze(-1)
            if mode == "zero":
                attn.W_O.weight[:, cols] = 0.0
            else:
                attn.W_Q.weight[cols] = 0.0
                attn.W_Q.bias[cols] = 0.0
            scores = torch.log_softmax(model(ids)[:, :-1], dim=-1)
            ablated = scores.gather(-1, ids[:, 1:, None]).squeeze(-1)
        model.train(was_training)
        return ablated - clean""", detects=nb07.HINT_WEIGHTS_CHANGED),
    mistake(ABLATE, "zero: W_V's weight rows zeroed in a copy, its bias left", """
        import copy

        edited = copy.deepcopy(model).eval()
        attn = edited.blocks[layer].attn
        cols = slice(head * attn.d_k, (head + 1) * attn.d_k)
        with torch.no_grad():
            if mode == "zero":
                attn.W_V.weight[cols] = 0.0  # the bias left
            else:
                attn.W_Q.weight[cols] = 0.0
                attn.W_Q.bias[cols] = 0.0
            scores = torch.log_softmax(copy.deepcopy(model).eval()(ids)[:, :-1], dim=-1)
            clean = scores.gather(-1, ids[:, 1:, None]).squeeze(-1)
            scores = torch.log_softmax(edited(ids)[:, :-1], dim=-1)
            ablated = scores.gather(-1, ids[:, 1:, None]).squeeze(-1)
        return ablated - clean""", hint=HINT_BIAS_LEFT),
    mistake(ABLATE, "uniform: W_Q's weight rows zeroed in a copy, its bias left", [
        edit("attn.W_V.weight[cols] = 0.0  # the bias left", "attn.W_O.weight[:, cols] = 0.0"),
        edit("attn.W_Q.weight[cols] = 0.0", "attn.W_Q.weight[cols] = 0.0  # the bias left"),
        delete("attn.W_Q.bias[cols] = 0.0"),
    ], hint=HINT_BIAS_LEFT, like="zero: W_V's weight rows zeroed in a copy, its bias left"),
    mistake(ABLATE, "uniform over every position, later ones included",
            edit("v.cumsum(dim=1) / allowed", "v.mean(dim=1, keepdim=True)"),
            detects=nb07.HINT_UNIFORM_CAUSAL),
    mistake(ABLATE, "uniform weights 1 / L over the whole row",
            edit("v.cumsum(dim=1) / allowed", "v.cumsum(dim=1) / v.shape[1]"),
            hint="the uniform weights of row t are 1 / (t + 1) on keys 0..t: they sum to one over "
                 "the allowed keys, not 1 / L over the whole row"),
    mistake(ABLATE, "columns head * d_model instead of head * d_k",
            edit("cols = slice(head * d_k, (head + 1) * d_k)",
                 "cols = slice(head * model.config.d_model, (head + 1) * model.config.d_model)"),
            detects=nb07.HINT_HEAD_COLUMNS),
    mistake(ABLATE, "hooks registered before the clean pass", [
        delete("clean = target_log_probs()"),
        insert_after("handles.append(attn.W_O.register_forward_pre_hook(ablate))",
                     "clean = target_log_probs()"),
    ], detects=nb07.HINT_NOTHING_ABLATED),
    mistake(ABLATE, "the columns of the next head",
            edit("slice(head * d_k, (head + 1) * d_k)",
                 "slice((head + 1) * d_k, (head + 2) * d_k)"), detects=nb07.HINT_HEAD_COLUMNS),
    mistake(ABLATE, "the head ablated in every block", [
        delete("attn.W_O.register_forward_pre_hook(ablate)"),
        replace_line("attn.W_V.register_forward_hook(keep_values)",
                     "for block in model.blocks:\n"
                     "    handles.append(block.attn.W_V.register_forward_hook(keep_values))\n"
                     "    handles.append(block.attn.W_O.register_forward_pre_hook(ablate))"),
    ], hint=HINT_ONLY_THAT_HEAD),
    mistake(ABLATE, "every head of the block zeroed", edit("y[..., cols] = 0.0", "y[...] = 0.0"),
            hint=HINT_ONLY_THAT_HEAD),
    mistake(ABLATE, "the head's queries zeroed instead of its output", """
        attn = model.blocks[layer].attn
        cols = slice(head * attn.d_k, (head + 1) * attn.d_k)

        def zero_head(module, inputs, output):
            output = output.clone()
            output[..., cols] = 0.0
            return output

        def log_probs():
            scores = torch.log_softmax(model(ids)[:, :-1], dim=-1)
            return scores.gather(-1, ids[:, 1:, None]).squeeze(-1)

        was_training = model.training
        model.eval()
        with torch.no_grad():
            clean = log_probs()
            handle = attn.W_Q.register_forward_hook(zero_head)
            try:
                ablated = log_probs()
            finally:
                handle.remove()
        model.train(was_training)
        return ablated - clean""",
            hint="mode \"zero\" replaces the head's OUTPUT (its columns of W_O's input) by zeros; "
                 "zeroing its queries or keys only makes its attention uniform, which is mode "
                 '"uniform"'),
    mistake(ABLATE, "no model.eval(): dropout stays on", delete("model.eval()"),
            detects=nb07.HINT_ABLATE_EVAL),
    mistake(ABLATE, "the model left in evaluation mode", delete("model.train(was_training)"),
            detects=nb07.HINT_RESTORE_MODE),
    mistake(ABLATE, "no torch.no_grad(): both passes record a graph",
            edit("torch.no_grad()", "torch.enable_grad()"), detects=nb07.HINT_NO_GRAD),
    mistake(ABLATE, "every position scored against its own token: (B, L)", [
        edit("logits[:, :-1]", "logits"), edit("ids[:, 1:, None]", "ids[..., None]"),
    ], detects=nb07.HINT_ABLATION_SHAPE),
    mistake(ABLATE, "one sum per sequence", edit("return ablated - clean",
                                                  "return (ablated - clean).sum(dim=1)"),
            detects=nb07.HINT_PER_TOKEN),
    mistake(ABLATE, "the pre-hook's inputs taken for a tensor",
            edit("y = inputs[0].clone()", "y = inputs.clone()"), detects=nb07.HINT_CRASH_ABLATE),
    alternative(ABLATE, "weights edited on deep copies", """
        import copy
        edited = copy.deepcopy(model).eval()
        frozen = copy.deepcopy(model).eval()
        attn = edited.blocks[layer].attn
        cols = slice(head * attn.d_k, (head + 1) * attn.d_k)
        targets = ids[:, 1:]

        def score(m):
            log_probs = torch.log_softmax(m(ids), dim=-1)[:, :-1]
            return log_probs.gather(2, targets.unsqueeze(2)).squeeze(2)

        with torch.no_grad():
            if mode == "mean":  # the mean output folded into W_O's bias
                seen = []
                hook = frozen.blocks[layer].attn.W_O.register_forward_pre_hook(
                    lambda module, args: seen.append(args[0][..., cols]))
                frozen(ids)
                hook.remove()
                attn.W_O.bias += attn.W_O.weight[:, cols] @ seen[0].mean(dim=(0, 1))
                attn.W_O.weight[:, cols] = 0
            elif mode == "zero":
                attn.W_O.weight[:, cols] = 0
            else:
                attn.W_Q.weight[cols] = 0
                attn.W_Q.bias[cols] = 0
            return score(edited) - score(frozen)"""),
    alternative(ABLATE, "the blocks recomputed by hand", """
        was_training = model.training
        model.eval()
        B, L = ids.shape
        causal = torch.ones(L, L, dtype=torch.bool).tril()

        def run(ablated):
            h, rope = model.inputs(ids, torch.arange(L)[None, :])
            for i, block in enumerate(model.blocks):
                attn = block.attn
                q, k, v = attn.heads_qkv(block.ln1(h), rope)
                scores = q @ k.transpose(-1, -2) / attn.d_k ** 0.5
                weights = scores.masked_fill(~causal, float("-inf")).softmax(dim=-1)
                if ablated and i == layer and mode == "uniform":
                    weights[:, head] = causal / causal.sum(dim=-1, keepdim=True)
                y = weights @ v
                if ablated and i == layer and mode == "zero":
                    y[:, head] = 0.0
                if ablated and i == layer and mode == "mean":
                    y[:, head] = y[:, head].mean(dim=(0, 1))
                h = h + attn.W_O(y.transpose(1, 2).reshape(B, L, -1))
                h = h + block.mlp(block.ln2(h))
            log_probs = torch.log_softmax(model.logits(h), dim=-1)
            return log_probs[:, :-1].gather(-1, ids[:, 1:, None]).squeeze(-1)

        try:
            with torch.no_grad():
                return run(True) - run(False)
        finally:
            model.train(was_training)"""),
    alternative(ABLATE, "the mean as a sum over the count",
                edit("y[..., cols].mean(dim=(0, 1))",
                     "y[..., cols].sum(dim=(0, 1)) / (y.shape[0] * y.shape[1])")),
    alternative(ABLATE, "uniform weights as a normalised lower triangle", [
        delete("allowed = torch.arange"),
        replace_line("y[..., cols] = v.cumsum(dim=1) / allowed",
                     "L = v.shape[1]\n"
                     "weights = torch.tril(torch.ones(L, L, dtype=v.dtype))\n"
                     "weights = weights / weights.sum(dim=-1, keepdim=True)\n"
                     "y[..., cols] = weights @ v")]),
    alternative(ABLATE, "one pre-hook on the attention module, values recomputed", [
        delete("def keep_values"), delete('values["v"] = output'),
        replace_line("v = values[\"v\"]", "v = attn.W_V(attn_input[0])[..., cols]"),
        delete("handles.append(attn.W_V.register_forward_hook(keep_values))"),
        replace_line("handles.append(attn.W_O.register_forward_pre_hook(ablate))",
                     "handles.append(attn.register_forward_pre_hook(\n"
                     "    lambda module, args: attn_input.__setitem__(0, args[0])))\n"
                     "handles.append(attn.W_O.register_forward_pre_hook(ablate))"),
        replace_line("values = {}", "attn_input = [None]")]),
])
