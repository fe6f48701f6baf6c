"""Reference answers for notebook 07_training: generated, do not edit.

Made by scripts/release.py (`make release`) from the answer cells of
solutions/07_training/07_training.ipynb. Used by the hidden tests and the project's
own tests; never shipped to students.
"""


# ruff: noqa: E501, I001, F841, UP034
import math
import torch
from attnbook.shapes import require_ndim, require_same_size


# name: (options, correct letter, explanation shown when the answer is wrong)
ANSWERS = {
    'answer_teacher_forcing': ('ABC', 'C', 'with teacher forcing every position reads the TRUE earlier tokens, itself included: position 2 reads <BOS> please send and predicts the.'),
    'answer_token_weight': ('ABC', 'B', 'lm_loss adds the losses of all real targets of the batch and divides by their number: each real token weighs the same, whichever email it belongs to.'),
    'answer_message_b_targets': ('ABC', 'A', "Message B's targets are send, report, <EOS> and two pads: 3 real ones; Message A has 5, so each of the 8 weighs 1/8. 2 forgets <EOS>, 5 counts the pads."),
    'answer_clip_order': ('ABC', 'B', 'clipping rescales the gradients that backward() has just computed, so it comes after backward() and before step(), the call that uses them.'),
    'answer_eval_mode': ('ABC', 'C', 'model.eval() switches off training-only behaviour such as dropout; no_grad() skips recording a graph for a backward pass that never comes. Neither one changes the weights.'),
    'answer_remove_mask': ('ABC', 'B', "the input at t + 1 IS position t's target, so any pattern that reads one step ahead leaks it; reading earlier positions, however many, leaks nothing."),
    'answer_length_buckets': ('ABC', 'A', 'grouping by length only cuts padding, positions computed and then dropped by the loss mask; every real token already weighs the same, and the masks handle any lengths.'),
    'answer_attention_explains': ('ABC', 'C', 'a weight shows where a head reads from; the output also depends on values, other heads, MLPs and the residual path: inspectable, not a faithful explanation.'),
}


# -- from the answer cell make_batch
def make_batch(sequences, pad_id):
    """Teacher-forcing tensors for a batch of token-id sequences, padded on the right.

    Args:
        sequences: B lists of token ids, each at least 2 long (<BOS> ... <EOS>).
        pad_id: the id written into padded positions.

    Returns:
        (inputs, targets, loss_mask), each of shape (B, L) with L = longest length - 1.
        Row b holds ids[:-1] as inputs and ids[1:] as targets of sequence b, then padding;
        inputs and targets are torch.long, loss_mask is torch.bool, True on real targets.
    """
    sequences = list(sequences)  # a generator or tuple of sequences works too
    if len(sequences) == 0:
        raise ValueError("sequences: expected at least one sequence, got an empty batch")
    for b, seq in enumerate(sequences):
        if len(seq) < 2:
            raise ValueError(f"sequences[{b}] has shape ({len(seq)},); every sequence needs at "
                             f"least 2 ids, shape (n,) with n >= 2, to have a target")
    # Key idea: The targets are the inputs shifted by one token. Pad every sequence to the longest,
    #   and let the loss mask keep only the positions that have a real next token.
    L = max(len(seq) for seq in sequences) - 1  # inputs and targets are one shorter
    B = len(sequences)
    inputs = torch.full((B, L), pad_id, dtype=torch.long)  # (B, L)
    targets = torch.full((B, L), pad_id, dtype=torch.long)  # (B, L)
    loss_mask = torch.zeros((B, L), dtype=torch.bool)  # (B, L)
    for b, seq in enumerate(sequences):
        ids = torch.tensor(list(seq), dtype=torch.long)  # (n,)
        n = len(ids) - 1  # the number of targets of this sequence
        inputs[b, :n] = ids[:-1]
        targets[b, :n] = ids[1:]
        loss_mask[b, :n] = True
    return inputs, targets, loss_mask


# -- from the answer cell lm_loss
def lm_loss(logits, targets, loss_mask):
    """Mean next-token cross-entropy (nats) over the real targets of a batch.

    Args:
        logits: (B, L, V) next-token logits.
        targets: (B, L) int64 target ids.
        loss_mask: (B, L) bool, True on real targets.

    Returns:
        A 0-d tensor: the sum of -log p(target) over real targets / their number.
    """
    require_ndim("logits", logits, 3, "(B, L, V)")
    require_ndim("targets", targets, 2, "(B, L)")
    require_ndim("loss_mask", loss_mask, 2, "(B, L)")
    for axis, meaning in ((0, "the batch size B"), (1, "the length L")):
        require_same_size("targets", targets, axis, "logits", logits, axis, meaning)
        require_same_size("loss_mask", loss_mask, axis, "logits", logits, axis, meaning)
    # Key idea: Cross-entropy at every position, averaged over the positions the mask keeps: the
    #   sum of the kept losses divided by the number of real targets, not by B L.
    safe = torch.where(loss_mask.bool(), targets.long(), 0)  # (B, L): padded ids need not exist
    nll = torch.nn.functional.cross_entropy(
        logits.flatten(0, 1), safe.flatten(), reduction="none")  # (B*L,)
    mask = loss_mask.flatten().to(nll.dtype)  # (B*L,): 1.0 on real targets
    return (nll * mask).sum() / mask.sum()


# -- from the answer cell train_step
def train_step(model, optimizer, batch, max_grad_norm):
    """One optimizer update of a decoder on one batch, with gradient clipping.

    Args:
        model: a causal decoder; model(inputs) maps (B, L) ids to (B, L, V) logits.
        optimizer: a torch.optim optimizer over model.parameters().
        batch: (inputs, targets, loss_mask) as make_batch returns them, each (B, L).
        max_grad_norm: clip the gradient of all parameters together to this norm.

    Returns:
        The batch's loss before the update (mean nats over real targets), as a float.
    """
    inputs, targets, loss_mask = batch
    require_ndim("inputs", inputs, 2, "(B, L)")
    require_same_size("targets", targets, 1, "inputs", inputs, 1, "the length L")
    require_same_size("loss_mask", loss_mask, 1, "inputs", inputs, 1, "the length L")
    # Key idea: One step in order: clear the old gradients, forward, loss, backward, clip the
    #   gradients' norm, then the optimizer's step. Return the loss as a number.
    model.train()
    optimizer.zero_grad()
    logits = model(inputs)  # (B, L, V); causal mask + right padding: no key mask needed
    loss = lm_loss(logits, targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss.item()


# -- from the answer cell evaluate
def evaluate(model, batches):
    """Token-weighted mean loss (nats) of a model over several batches.

    Args:
        model: a causal decoder; model(inputs) maps (B, L) ids to (B, L, V) logits.
        batches: an iterable of (inputs, targets, loss_mask) tuples, each tensor (B_i, L_i).

    Returns:
        A float: the sum of -log p(target) over the real targets of all batches divided by
        their number, computed in evaluation mode without gradients. The model is left in
        the mode (training or evaluation) it was in.
    """
    batches = list(batches)
    for inputs, targets, loss_mask in batches:
        require_ndim("inputs", inputs, 2, "(B, L)")
        require_same_size("targets", targets, 1, "inputs", inputs, 1, "the length L")
        require_same_size("loss_mask", loss_mask, 1, "inputs", inputs, 1, "the length L")
    # Key idea: Eval mode and no gradients; weight each batch's mean loss by its count of real
    #   targets, so the result is the mean over every target token; leave the model in the mode it
    #   was in.
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            n = int(loss_mask.sum())  # real targets of this batch
            if n > 0:  # a batch of padding only has no loss to add
                total += lm_loss(model(inputs), targets, loss_mask).item() * n
                count += n
    model.train(was_training)
    return total / count


# -- from the answer cell ablate_head
def ablate_head(model, ids, layer, head, mode):
    """Change in the log-probability of every target token when one head is ablated.

    Args:
        model: a TransformerLM; model.blocks[layer].attn holds W_Q, W_K, W_V, W_O, and W_O
            reads the heads' outputs concatenated, head h in columns h*d_k:(h+1)*d_k.
        ids: (B, L) int64 token ids without padding, L >= 2.
        layer: the block, 0 <= layer < len(model.blocks).
        head: the head, 0 <= head < model.config.n_heads.
        mode: "zero" (the head's output becomes 0), "uniform" (its attention row becomes
            uniform over the allowed keys 0..t: its output is the mean of its values 0..t)
            or "mean" (its output at every position becomes its average output over every
            position of every row of ids).

    Returns:
        (B, L-1) float tensor: log p_ablated(ids[:, t+1] | ids[:, :t+1]) minus the same under
        the clean model. Computed in evaluation mode without gradients; the model is left
        as it was found (weights, hooks, training or evaluation mode).
    """
    require_ndim("ids", ids, 2, "(B, L)")
    if ids.shape[1] < 2:
        raise ValueError(f"ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, "
                         f"got shape {tuple(ids.shape)}")
    if mode not in ("zero", "uniform", "mean"):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = len(model.blocks), model.config.n_heads
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f"layer: expected an int in 0..{n_layers - 1}, got {layer!r}")
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f"head: expected an int in 0..{n_heads - 1}, got {head!r}")
    # Key idea: Change this head's slice of W_O's input and nothing else, with hooks; compare the
    #   targets' log-probabilities with and without the change on the same inputs, and remove the
    #   hooks whatever happens.
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)  # this head's columns of W_O's input
    values = {}

    def keep_values(module, inputs, output):
        values["v"] = output[..., cols]  # (B, L, d_k): this head's values

    def ablate(module, inputs):
        y = inputs[0].clone()  # (B, L, d): the heads' outputs, concatenated
        if mode == "zero":
            y[..., cols] = 0.0
        elif mode == "mean":  # W_O's input here is still the clean one: average it
            y[..., cols] = y[..., cols].mean(dim=(0, 1))  # (d_k,), over every row and position
        else:
            v = values["v"]  # (B, L, d_k)
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]  # (L, 1): t + 1
            y[..., cols] = v.cumsum(dim=1) / allowed  # (B, L, d_k): mean of values 0..t
        return (y,)

    def target_log_probs():
        logits = model(ids)  # (B, L, V)
        log_probs = torch.log_softmax(logits[:, :-1], dim=-1)  # (B, L-1, V): positions 0..L-2
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)  # (B, L-1): their targets

    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.no_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return ablated - clean


# -- the catalogued mistakes (autograder/mistakes/), resolved: the hidden trials run
# them on their inputs to name the slip a wrong output matches
# make_batch: loss mask from the ids (targets != pad_id), not from the lengths
def _slip_make_batch_0(sequences, pad_id):
    sequences = list(sequences)
    if len(sequences) == 0:
        raise ValueError('sequences: expected at least one sequence, got an empty batch')
    for b, seq in enumerate(sequences):
        if len(seq) < 2:
            raise ValueError(f'sequences[{b}] has shape ({len(seq)},); every sequence needs at least 2 ids, shape (n,) with n >= 2, to have a target')
    L = max((len(seq) for seq in sequences)) - 1
    B = len(sequences)
    inputs = torch.full((B, L), pad_id, dtype=torch.long)
    targets = torch.full((B, L), pad_id, dtype=torch.long)
    loss_mask = torch.zeros((B, L), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        ids = torch.tensor(list(seq), dtype=torch.long)
        n = len(ids) - 1
        inputs[b, :n] = ids[:-1]
        targets[b, :n] = ids[1:]
        loss_mask[b] = targets[b] != pad_id
    return (inputs, targets, loss_mask)

# make_batch: loss mask from the ids (inputs != pad_id), not from the lengths
def _slip_make_batch_1(sequences, pad_id):
    sequences = list(sequences)
    if len(sequences) == 0:
        raise ValueError('sequences: expected at least one sequence, got an empty batch')
    for b, seq in enumerate(sequences):
        if len(seq) < 2:
            raise ValueError(f'sequences[{b}] has shape ({len(seq)},); every sequence needs at least 2 ids, shape (n,) with n >= 2, to have a target')
    L = max((len(seq) for seq in sequences)) - 1
    B = len(sequences)
    inputs = torch.full((B, L), pad_id, dtype=torch.long)
    targets = torch.full((B, L), pad_id, dtype=torch.long)
    loss_mask = torch.zeros((B, L), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        ids = torch.tensor(list(seq), dtype=torch.long)
        n = len(ids) - 1
        inputs[b, :n] = ids[:-1]
        targets[b, :n] = ids[1:]
        loss_mask[b] = inputs[b] != pad_id
    return (inputs, targets, loss_mask)

# make_batch: targets not shifted
def _slip_make_batch_2(sequences, pad_id):
    sequences = list(sequences)
    if len(sequences) == 0:
        raise ValueError('sequences: expected at least one sequence, got an empty batch')
    for b, seq in enumerate(sequences):
        if len(seq) < 2:
            raise ValueError(f'sequences[{b}] has shape ({len(seq)},); every sequence needs at least 2 ids, shape (n,) with n >= 2, to have a target')
    L = max((len(seq) for seq in sequences)) - 1
    B = len(sequences)
    inputs = torch.full((B, L), pad_id, dtype=torch.long)
    targets = torch.full((B, L), pad_id, dtype=torch.long)
    loss_mask = torch.zeros((B, L), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        ids = torch.tensor(seq)
        inputs[b, :len(seq) - 1] = ids[:-1]
        targets[b, :len(seq) - 1] = ids[:-1]
        loss_mask[b, :len(seq) - 1] = True
    return (inputs, targets, loss_mask)

# make_batch: shifted the wrong way
def _slip_make_batch_3(sequences, pad_id):
    sequences = list(sequences)
    if len(sequences) == 0:
        raise ValueError('sequences: expected at least one sequence, got an empty batch')
    for b, seq in enumerate(sequences):
        if len(seq) < 2:
            raise ValueError(f'sequences[{b}] has shape ({len(seq)},); every sequence needs at least 2 ids, shape (n,) with n >= 2, to have a target')
    L = max((len(seq) for seq in sequences)) - 1
    B = len(sequences)
    inputs = torch.full((B, L), pad_id, dtype=torch.long)
    targets = torch.full((B, L), pad_id, dtype=torch.long)
    loss_mask = torch.zeros((B, L), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        ids = torch.tensor(seq)
        inputs[b, :len(seq) - 1] = ids[1:]
        targets[b, :len(seq) - 1] = ids[:-1]
        loss_mask[b, :len(seq) - 1] = True
    return (inputs, targets, loss_mask)

# make_batch: whole sequences, no shift (L too long)
def _slip_make_batch_4(sequences, pad_id):
    sequences = list(sequences)
    if len(sequences) == 0:
        raise ValueError('sequences: expected at least one sequence, got an empty batch')
    for b, seq in enumerate(sequences):
        if len(seq) < 2:
            raise ValueError(f'sequences[{b}] has shape ({len(seq)},); every sequence needs at least 2 ids, shape (n,) with n >= 2, to have a target')
    L = max((len(seq) for seq in sequences))
    B = len(sequences)
    inputs = torch.full((B, L), pad_id, dtype=torch.long)
    targets = torch.full((B, L), pad_id, dtype=torch.long)
    loss_mask = torch.zeros((B, L), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        ids = torch.tensor(list(seq), dtype=torch.long)
        n = len(ids)
        inputs[b, :n] = ids
        targets[b, :n - 1] = ids[1:]
        loss_mask[b, :n] = True
    return (inputs, targets, loss_mask)

# make_batch: loss mask inverted
def _slip_make_batch_5(sequences, pad_id):
    sequences = list(sequences)
    if len(sequences) == 0:
        raise ValueError('sequences: expected at least one sequence, got an empty batch')
    for b, seq in enumerate(sequences):
        if len(seq) < 2:
            raise ValueError(f'sequences[{b}] has shape ({len(seq)},); every sequence needs at least 2 ids, shape (n,) with n >= 2, to have a target')
    L = max((len(seq) for seq in sequences)) - 1
    B = len(sequences)
    inputs = torch.full((B, L), pad_id, dtype=torch.long)
    targets = torch.full((B, L), pad_id, dtype=torch.long)
    loss_mask = torch.zeros((B, L), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        ids = torch.tensor(seq)
        inputs[b, :len(seq) - 1] = ids[:-1]
        targets[b, :len(seq) - 1] = ids[1:]
        loss_mask[b, :len(seq) - 1] = True
    return (inputs, targets, ~loss_mask)

# make_batch: loss mask one too long
def _slip_make_batch_6(sequences, pad_id):
    sequences = list(sequences)
    if len(sequences) == 0:
        raise ValueError('sequences: expected at least one sequence, got an empty batch')
    for b, seq in enumerate(sequences):
        if len(seq) < 2:
            raise ValueError(f'sequences[{b}] has shape ({len(seq)},); every sequence needs at least 2 ids, shape (n,) with n >= 2, to have a target')
    L = max((len(seq) for seq in sequences)) - 1
    B = len(sequences)
    inputs = torch.full((B, L), pad_id, dtype=torch.long)
    targets = torch.full((B, L), pad_id, dtype=torch.long)
    loss_mask = torch.zeros((B, L), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        ids = torch.tensor(seq)
        inputs[b, :len(seq) - 1] = ids[:-1]
        targets[b, :len(seq) - 1] = ids[1:]
        loss_mask[b, :len(seq)] = True
    return (inputs, targets, loss_mask)

# make_batch: end token excluded from the loss mask
def _slip_make_batch_7(sequences, pad_id):
    sequences = list(sequences)
    if len(sequences) == 0:
        raise ValueError('sequences: expected at least one sequence, got an empty batch')
    for b, seq in enumerate(sequences):
        if len(seq) < 2:
            raise ValueError(f'sequences[{b}] has shape ({len(seq)},); every sequence needs at least 2 ids, shape (n,) with n >= 2, to have a target')
    L = max((len(seq) for seq in sequences)) - 1
    B = len(sequences)
    inputs = torch.full((B, L), pad_id, dtype=torch.long)
    targets = torch.full((B, L), pad_id, dtype=torch.long)
    loss_mask = torch.zeros((B, L), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        ids = torch.tensor(seq)
        inputs[b, :len(seq) - 1] = ids[:-1]
        targets[b, :len(seq) - 1] = ids[1:]
        loss_mask[b, :len(seq) - 2] = True
    return (inputs, targets, loss_mask)

# make_batch: padding on the left
def _slip_make_batch_8(sequences, pad_id):
    sequences = list(sequences)
    if len(sequences) == 0:
        raise ValueError('sequences: expected at least one sequence, got an empty batch')
    for b, seq in enumerate(sequences):
        if len(seq) < 2:
            raise ValueError(f'sequences[{b}] has shape ({len(seq)},); every sequence needs at least 2 ids, shape (n,) with n >= 2, to have a target')
    L = max((len(seq) for seq in sequences)) - 1
    B = len(sequences)
    inputs = torch.full((B, L), pad_id, dtype=torch.long)
    targets = torch.full((B, L), pad_id, dtype=torch.long)
    loss_mask = torch.zeros((B, L), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        ids = torch.tensor(seq)
        n = len(seq) - 1
        inputs[b, L - n:] = ids[:-1]
        targets[b, L - n:] = ids[1:]
        loss_mask[b, L - n:] = True
    return (inputs, targets, loss_mask)

# make_batch: padding hard-coded as 0
def _slip_make_batch_9(sequences, pad_id):
    sequences = list(sequences)
    if len(sequences) == 0:
        raise ValueError('sequences: expected at least one sequence, got an empty batch')
    for b, seq in enumerate(sequences):
        if len(seq) < 2:
            raise ValueError(f'sequences[{b}] has shape ({len(seq)},); every sequence needs at least 2 ids, shape (n,) with n >= 2, to have a target')
    L = max((len(seq) for seq in sequences)) - 1
    B = len(sequences)
    inputs = torch.full((B, L), 0, dtype=torch.long)
    targets = torch.full((B, L), 0, dtype=torch.long)
    loss_mask = torch.zeros((B, L), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        ids = torch.tensor(list(seq), dtype=torch.long)
        n = len(ids) - 1
        inputs[b, :n] = ids[:-1]
        targets[b, :n] = ids[1:]
        loss_mask[b, :n] = True
    return (inputs, targets, loss_mask)

# make_batch: loss mask as 0/1 integers
def _slip_make_batch_10(sequences, pad_id):
    sequences = list(sequences)
    if len(sequences) == 0:
        raise ValueError('sequences: expected at least one sequence, got an empty batch')
    for b, seq in enumerate(sequences):
        if len(seq) < 2:
            raise ValueError(f'sequences[{b}] has shape ({len(seq)},); every sequence needs at least 2 ids, shape (n,) with n >= 2, to have a target')
    L = max((len(seq) for seq in sequences)) - 1
    B = len(sequences)
    inputs = torch.full((B, L), pad_id, dtype=torch.long)
    targets = torch.full((B, L), pad_id, dtype=torch.long)
    loss_mask = torch.zeros((B, L), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        ids = torch.tensor(seq)
        inputs[b, :len(seq) - 1] = ids[:-1]
        targets[b, :len(seq) - 1] = ids[1:]
        loss_mask[b, :len(seq) - 1] = True
    return (inputs, targets, loss_mask.long())

# make_batch: pads the caller's lists in place
def _slip_make_batch_11(sequences, pad_id):
    sequences = list(sequences)
    if len(sequences) == 0:
        raise ValueError('sequences: expected at least one sequence, got an empty batch')
    for b, seq in enumerate(sequences):
        if len(seq) < 2:
            raise ValueError(f'sequences[{b}] has shape ({len(seq)},); every sequence needs at least 2 ids, shape (n,) with n >= 2, to have a target')
    L = max((len(seq) for seq in sequences))
    for seq in sequences:
        seq.extend([pad_id] * (L - len(seq)))
    ids = torch.tensor(sequences)
    targets = ids[:, 1:]
    return (ids[:, :-1], targets, targets != pad_id)

# make_batch: targets padded with the row's <EOS> (its last id), not pad_id
def _slip_make_batch_12(sequences, pad_id):
    sequences = list(sequences)
    if len(sequences) == 0:
        raise ValueError('sequences: expected at least one sequence, got an empty batch')
    for b, seq in enumerate(sequences):
        if len(seq) < 2:
            raise ValueError(f'sequences[{b}] has shape ({len(seq)},); every sequence needs at least 2 ids, shape (n,) with n >= 2, to have a target')
    L = max((len(seq) for seq in sequences)) - 1
    B = len(sequences)
    inputs = torch.full((B, L), pad_id, dtype=torch.long)
    targets = torch.full((B, L), pad_id, dtype=torch.long)
    loss_mask = torch.zeros((B, L), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        ids = torch.tensor(list(seq), dtype=torch.long)
        n = len(ids) - 1
        inputs[b, :n] = ids[:-1]
        targets[b, :n] = ids[1:]
        targets[b, n:] = ids[-1]
        loss_mask[b, :n] = True
    return (inputs, targets, loss_mask)

# make_batch: padded targets written as -100 (ignore_index)
def _slip_make_batch_13(sequences, pad_id):
    sequences = list(sequences)
    if len(sequences) == 0:
        raise ValueError('sequences: expected at least one sequence, got an empty batch')
    for b, seq in enumerate(sequences):
        if len(seq) < 2:
            raise ValueError(f'sequences[{b}] has shape ({len(seq)},); every sequence needs at least 2 ids, shape (n,) with n >= 2, to have a target')
    L = max((len(seq) for seq in sequences)) - 1
    B = len(sequences)
    inputs = torch.full((B, L), pad_id, dtype=torch.long)
    targets = torch.full((B, L), pad_id, dtype=torch.long)
    loss_mask = torch.zeros((B, L), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        ids = torch.tensor(seq)
        n = len(seq) - 1
        inputs[b, :n] = ids[:-1]
        targets[b, :n] = ids[1:]
        targets[b, n:] = -100
        loss_mask[b, :n] = True
    return (inputs, targets, loss_mask)

# make_batch: rows sorted by length, longest first
def _slip_make_batch_14(sequences, pad_id):
    sequences = list(sequences)
    if len(sequences) == 0:
        raise ValueError('sequences: expected at least one sequence, got an empty batch')
    for b, seq in enumerate(sequences):
        if len(seq) < 2:
            raise ValueError(f'sequences[{b}] has shape ({len(seq)},); every sequence needs at least 2 ids, shape (n,) with n >= 2, to have a target')
    sequences = sorted(sequences, key=len, reverse=True)
    L = len(sequences[0]) - 1
    B = len(sequences)
    inputs = torch.full((B, L), pad_id, dtype=torch.long)
    targets = torch.full((B, L), pad_id, dtype=torch.long)
    loss_mask = torch.zeros((B, L), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        inputs[b, :len(seq) - 1] = torch.tensor(seq[:-1])
        targets[b, :len(seq) - 1] = torch.tensor(seq[1:])
        loss_mask[b, :len(seq) - 1] = True
    return (inputs, targets, loss_mask)

# make_batch: L from the shortest sequence (longer ones truncated)
def _slip_make_batch_15(sequences, pad_id):
    sequences = list(sequences)
    if len(sequences) == 0:
        raise ValueError('sequences: expected at least one sequence, got an empty batch')
    for b, seq in enumerate(sequences):
        if len(seq) < 2:
            raise ValueError(f'sequences[{b}] has shape ({len(seq)},); every sequence needs at least 2 ids, shape (n,) with n >= 2, to have a target')
    L = min((len(seq) for seq in sequences)) - 1
    B = len(sequences)
    inputs = torch.full((B, L), pad_id, dtype=torch.long)
    targets = torch.full((B, L), pad_id, dtype=torch.long)
    loss_mask = torch.zeros((B, L), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        ids = torch.tensor(list(seq[:L + 1]), dtype=torch.long)
        n = len(ids) - 1
        inputs[b, :n] = ids[:-1]
        targets[b, :n] = ids[1:]
        loss_mask[b, :n] = True
    return (inputs, targets, loss_mask)

# make_batch: numpy arrays returned
def _slip_make_batch_16(sequences, pad_id):
    sequences = list(sequences)
    if len(sequences) == 0:
        raise ValueError('sequences: expected at least one sequence, got an empty batch')
    for b, seq in enumerate(sequences):
        if len(seq) < 2:
            raise ValueError(f'sequences[{b}] has shape ({len(seq)},); every sequence needs at least 2 ids, shape (n,) with n >= 2, to have a target')
    L = max((len(seq) for seq in sequences)) - 1
    B = len(sequences)
    import numpy as np
    inputs = np.full((B, L), pad_id)
    targets = np.full((B, L), pad_id)
    loss_mask = np.zeros((B, L), dtype=bool)
    for b, seq in enumerate(sequences):
        ids = torch.tensor(list(seq), dtype=torch.long)
        n = len(ids) - 1
        inputs[b, :n] = ids[:-1]
        targets[b, :n] = ids[1:]
        loss_mask[b, :n] = True
    return (inputs, targets, loss_mask)

# make_batch: L taken from the first sequence
def _slip_make_batch_17(sequences, pad_id):
    sequences = list(sequences)
    if len(sequences) == 0:
        raise ValueError('sequences: expected at least one sequence, got an empty batch')
    for b, seq in enumerate(sequences):
        if len(seq) < 2:
            raise ValueError(f'sequences[{b}] has shape ({len(seq)},); every sequence needs at least 2 ids, shape (n,) with n >= 2, to have a target')
    L = len(sequences[0]) - 1
    B = len(sequences)
    inputs = torch.full((B, L), pad_id, dtype=torch.long)
    targets = torch.full((B, L), pad_id, dtype=torch.long)
    loss_mask = torch.zeros((B, L), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        ids = torch.tensor(list(seq), dtype=torch.long)
        n = len(ids) - 1
        inputs[b, :n] = ids[:-1]
        targets[b, :n] = ids[1:]
        loss_mask[b, :n] = True
    return (inputs, targets, loss_mask)

# make_batch: rows built as [[pad_id] * L] * B (one shared list)
def _slip_make_batch_18(sequences, pad_id):
    sequences = list(sequences)
    if len(sequences) == 0:
        raise ValueError('sequences: expected at least one sequence, got an empty batch')
    for b, seq in enumerate(sequences):
        if len(seq) < 2:
            raise ValueError(f'sequences[{b}] has shape ({len(seq)},); every sequence needs at least 2 ids, shape (n,) with n >= 2, to have a target')
    L = max((len(seq) for seq in sequences)) - 1
    B = len(sequences)
    inputs = [[pad_id] * L] * B
    targets = [[pad_id] * L] * B
    mask = [[False] * L] * B
    for b, seq in enumerate(sequences):
        n = len(seq) - 1
        inputs[b][:n] = list(seq[:-1])
        targets[b][:n] = list(seq[1:])
        mask[b][:n] = [True] * n
    return (torch.tensor(inputs), torch.tensor(targets), torch.tensor(mask))

# make_batch: float tensors (torch.zeros(B, L) + pad_id)
def _slip_make_batch_19(sequences, pad_id):
    sequences = list(sequences)
    if len(sequences) == 0:
        raise ValueError('sequences: expected at least one sequence, got an empty batch')
    for b, seq in enumerate(sequences):
        if len(seq) < 2:
            raise ValueError(f'sequences[{b}] has shape ({len(seq)},); every sequence needs at least 2 ids, shape (n,) with n >= 2, to have a target')
    L = max((len(seq) for seq in sequences)) - 1
    B = len(sequences)
    inputs = torch.zeros(B, L) + pad_id
    targets = torch.zeros(B, L) + pad_id
    loss_mask = torch.zeros((B, L), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        n = len(seq) - 1
        inputs[b, :n] = torch.tensor(seq[:-1], dtype=torch.float32)
        targets[b, :n] = torch.tensor(seq[1:], dtype=torch.float32)
        loss_mask[b, :n] = True
    return (inputs, targets, loss_mask)

# make_batch: torch.tensor(sequences) without padding
def _slip_make_batch_20(sequences, pad_id):
    sequences = list(sequences)
    if len(sequences) == 0:
        raise ValueError('sequences: expected at least one sequence, got an empty batch')
    for b, seq in enumerate(sequences):
        if len(seq) < 2:
            raise ValueError(f'sequences[{b}] has shape ({len(seq)},); every sequence needs at least 2 ids, shape (n,) with n >= 2, to have a target')
    ids = torch.tensor(sequences, dtype=torch.long)
    return (ids[:, :-1], ids[:, 1:], ids[:, 1:] != pad_id)

# make_batch: each row one target short (n = len(seq) - 2)
def _slip_make_batch_21(sequences, pad_id):
    sequences = list(sequences)
    if len(sequences) == 0:
        raise ValueError('sequences: expected at least one sequence, got an empty batch')
    for b, seq in enumerate(sequences):
        if len(seq) < 2:
            raise ValueError(f'sequences[{b}] has shape ({len(seq)},); every sequence needs at least 2 ids, shape (n,) with n >= 2, to have a target')
    L = max((len(seq) for seq in sequences)) - 1
    B = len(sequences)
    inputs = torch.full((B, L), pad_id, dtype=torch.long)
    targets = torch.full((B, L), pad_id, dtype=torch.long)
    loss_mask = torch.zeros((B, L), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        n = len(seq) - 2
        inputs[b, :n] = torch.tensor(seq[:n])
        targets[b, :n] = torch.tensor(seq[1:n + 1])
        loss_mask[b, :n] = True
    return (inputs, targets, loss_mask)

# lm_loss: padding counted in the loss
def _slip_lm_loss_0(logits, targets, loss_mask):
    require_ndim('logits', logits, 3, '(B, L, V)')
    require_ndim('targets', targets, 2, '(B, L)')
    require_ndim('loss_mask', loss_mask, 2, '(B, L)')
    for axis, meaning in ((0, 'the batch size B'), (1, 'the length L')):
        require_same_size('targets', targets, axis, 'logits', logits, axis, meaning)
        require_same_size('loss_mask', loss_mask, axis, 'logits', logits, axis, meaning)
    return torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())

# lm_loss: mean over the batch of per-sequence means
def _slip_lm_loss_1(logits, targets, loss_mask):
    require_ndim('logits', logits, 3, '(B, L, V)')
    require_ndim('targets', targets, 2, '(B, L)')
    require_ndim('loss_mask', loss_mask, 2, '(B, L)')
    for axis, meaning in ((0, 'the batch size B'), (1, 'the length L')):
        require_same_size('targets', targets, axis, 'logits', logits, axis, meaning)
        require_same_size('loss_mask', loss_mask, axis, 'logits', logits, axis, meaning)
    nll = torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets, reduction='none')
    mask = loss_mask.float()
    return ((nll * mask).sum(dim=1) / mask.sum(dim=1)).mean()

# lm_loss: sum instead of mean
def _slip_lm_loss_2(logits, targets, loss_mask):
    require_ndim('logits', logits, 3, '(B, L, V)')
    require_ndim('targets', targets, 2, '(B, L)')
    require_ndim('loss_mask', loss_mask, 2, '(B, L)')
    for axis, meaning in ((0, 'the batch size B'), (1, 'the length L')):
        require_same_size('targets', targets, axis, 'logits', logits, axis, meaning)
        require_same_size('loss_mask', loss_mask, axis, 'logits', logits, axis, meaning)
    nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction='none')
    return (nll * loss_mask.flatten()).sum()

# lm_loss: masked sum divided by all positions
def _slip_lm_loss_3(logits, targets, loss_mask):
    require_ndim('logits', logits, 3, '(B, L, V)')
    require_ndim('targets', targets, 2, '(B, L)')
    require_ndim('loss_mask', loss_mask, 2, '(B, L)')
    for axis, meaning in ((0, 'the batch size B'), (1, 'the length L')):
        require_same_size('targets', targets, axis, 'logits', logits, axis, meaning)
        require_same_size('loss_mask', loss_mask, axis, 'logits', logits, axis, meaning)
    nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction='none')
    return (nll * loss_mask.flatten()).mean()

# lm_loss: divided by the number of emails
def _slip_lm_loss_4(logits, targets, loss_mask):
    require_ndim('logits', logits, 3, '(B, L, V)')
    require_ndim('targets', targets, 2, '(B, L)')
    require_ndim('loss_mask', loss_mask, 2, '(B, L)')
    for axis, meaning in ((0, 'the batch size B'), (1, 'the length L')):
        require_same_size('targets', targets, axis, 'logits', logits, axis, meaning)
        require_same_size('loss_mask', loss_mask, axis, 'logits', logits, axis, meaning)
    nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction='none')
    return (nll * loss_mask.flatten()).sum() / logits.shape[0]

# lm_loss: log of softmax overflows
def _slip_lm_loss_5(logits, targets, loss_mask):
    require_ndim('logits', logits, 3, '(B, L, V)')
    require_ndim('targets', targets, 2, '(B, L)')
    require_ndim('loss_mask', loss_mask, 2, '(B, L)')
    for axis, meaning in ((0, 'the batch size B'), (1, 'the length L')):
        require_same_size('targets', targets, axis, 'logits', logits, axis, meaning)
        require_same_size('loss_mask', loss_mask, axis, 'logits', logits, axis, meaning)
    probs = torch.softmax(logits, dim=-1)
    picked = probs.gather(-1, targets[..., None])[..., 0]
    nll = -torch.log(picked)
    return (nll * loss_mask).sum() / loss_mask.sum()

# lm_loss: softmax over the positions
def _slip_lm_loss_6(logits, targets, loss_mask):
    require_ndim('logits', logits, 3, '(B, L, V)')
    require_ndim('targets', targets, 2, '(B, L)')
    require_ndim('loss_mask', loss_mask, 2, '(B, L)')
    for axis, meaning in ((0, 'the batch size B'), (1, 'the length L')):
        require_same_size('targets', targets, axis, 'logits', logits, axis, meaning)
        require_same_size('loss_mask', loss_mask, axis, 'logits', logits, axis, meaning)
    log_probs = torch.log_softmax(logits, dim=1)
    picked = log_probs.gather(-1, targets[..., None])[..., 0]
    return -(picked * loss_mask).sum() / loss_mask.sum()

# lm_loss: loss in bits
def _slip_lm_loss_7(logits, targets, loss_mask):
    require_ndim('logits', logits, 3, '(B, L, V)')
    require_ndim('targets', targets, 2, '(B, L)')
    require_ndim('loss_mask', loss_mask, 2, '(B, L)')
    for axis, meaning in ((0, 'the batch size B'), (1, 'the length L')):
        require_same_size('targets', targets, axis, 'logits', logits, axis, meaning)
        require_same_size('loss_mask', loss_mask, axis, 'logits', logits, axis, meaning)
    nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction='none')
    mask = loss_mask.flatten().float()
    return (nll * mask).sum() / mask.sum() / math.log(2)

# lm_loss: returns a Python float
def _slip_lm_loss_8(logits, targets, loss_mask):
    require_ndim('logits', logits, 3, '(B, L, V)')
    require_ndim('targets', targets, 2, '(B, L)')
    require_ndim('loss_mask', loss_mask, 2, '(B, L)')
    for axis, meaning in ((0, 'the batch size B'), (1, 'the length L')):
        require_same_size('targets', targets, axis, 'logits', logits, axis, meaning)
        require_same_size('loss_mask', loss_mask, axis, 'logits', logits, axis, meaning)
    nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction='none')
    mask = loss_mask.flatten().float()
    return ((nll * mask).sum() / mask.sum()).item()

# lm_loss: the mask applied to the logits
def _slip_lm_loss_9(logits, targets, loss_mask):
    require_ndim('logits', logits, 3, '(B, L, V)')
    require_ndim('targets', targets, 2, '(B, L)')
    require_ndim('loss_mask', loss_mask, 2, '(B, L)')
    for axis, meaning in ((0, 'the batch size B'), (1, 'the length L')):
        require_same_size('targets', targets, axis, 'logits', logits, axis, meaning)
        require_same_size('loss_mask', loss_mask, axis, 'logits', logits, axis, meaning)
    safe = torch.where(loss_mask.bool(), targets.long(), 0)
    nll = torch.nn.functional.cross_entropy((logits * loss_mask[..., None]).flatten(0, 1), safe.flatten(), reduction='none')
    mask = loss_mask.flatten().to(nll.dtype)
    return nll.sum() / mask.sum()

# lm_loss: targets shifted again inside the loss
def _slip_lm_loss_10(logits, targets, loss_mask):
    require_ndim('logits', logits, 3, '(B, L, V)')
    require_ndim('targets', targets, 2, '(B, L)')
    require_ndim('loss_mask', loss_mask, 2, '(B, L)')
    for axis, meaning in ((0, 'the batch size B'), (1, 'the length L')):
        require_same_size('targets', targets, axis, 'logits', logits, axis, meaning)
        require_same_size('loss_mask', loss_mask, axis, 'logits', logits, axis, meaning)
    logits, targets, loss_mask = (logits[:, :-1], targets[:, 1:], loss_mask[:, 1:])
    safe = torch.where(loss_mask.bool(), targets.long(), 0)
    nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), safe.flatten(), reduction='none')
    mask = loss_mask.flatten().to(nll.dtype)
    return (nll * mask).sum() / mask.sum()

# lm_loss: result rebuilt with torch.tensor (graph lost)
def _slip_lm_loss_11(logits, targets, loss_mask):
    require_ndim('logits', logits, 3, '(B, L, V)')
    require_ndim('targets', targets, 2, '(B, L)')
    require_ndim('loss_mask', loss_mask, 2, '(B, L)')
    for axis, meaning in ((0, 'the batch size B'), (1, 'the length L')):
        require_same_size('targets', targets, axis, 'logits', logits, axis, meaning)
        require_same_size('loss_mask', loss_mask, axis, 'logits', logits, axis, meaning)
    nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction='none')
    mask = loss_mask.flatten().float()
    return torch.tensor(float((nll * mask).sum() / mask.sum()))

# lm_loss: padded targets zeroed in place (targets[~loss_mask] = 0)
def _slip_lm_loss_12(logits, targets, loss_mask):
    require_ndim('logits', logits, 3, '(B, L, V)')
    require_ndim('targets', targets, 2, '(B, L)')
    require_ndim('loss_mask', loss_mask, 2, '(B, L)')
    for axis, meaning in ((0, 'the batch size B'), (1, 'the length L')):
        require_same_size('targets', targets, axis, 'logits', logits, axis, meaning)
        require_same_size('loss_mask', loss_mask, axis, 'logits', logits, axis, meaning)
    targets[~loss_mask.bool()] = 0
    nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction='none')
    mask = loss_mask.flatten().to(nll.dtype)
    return (nll * mask).sum() / mask.sum()

# lm_loss: floor division by the token count
def _slip_lm_loss_13(logits, targets, loss_mask):
    require_ndim('logits', logits, 3, '(B, L, V)')
    require_ndim('targets', targets, 2, '(B, L)')
    require_ndim('loss_mask', loss_mask, 2, '(B, L)')
    for axis, meaning in ((0, 'the batch size B'), (1, 'the length L')):
        require_same_size('targets', targets, axis, 'logits', logits, axis, meaning)
        require_same_size('loss_mask', loss_mask, axis, 'logits', logits, axis, meaning)
    nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction='none')
    mask = loss_mask.flatten().to(nll.dtype)
    return (nll * mask).sum() // mask.sum()

# lm_loss: unmasked sum over the real count
def _slip_lm_loss_14(logits, targets, loss_mask):
    require_ndim('logits', logits, 3, '(B, L, V)')
    require_ndim('targets', targets, 2, '(B, L)')
    require_ndim('loss_mask', loss_mask, 2, '(B, L)')
    for axis, meaning in ((0, 'the batch size B'), (1, 'the length L')):
        require_same_size('targets', targets, axis, 'logits', logits, axis, meaning)
        require_same_size('loss_mask', loss_mask, axis, 'logits', logits, axis, meaning)
    nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction='none')
    return nll.sum() / loss_mask.sum()

# lm_loss: per-position means (batch axis reduced first)
def _slip_lm_loss_15(logits, targets, loss_mask):
    require_ndim('logits', logits, 3, '(B, L, V)')
    require_ndim('targets', targets, 2, '(B, L)')
    require_ndim('loss_mask', loss_mask, 2, '(B, L)')
    for axis, meaning in ((0, 'the batch size B'), (1, 'the length L')):
        require_same_size('targets', targets, axis, 'logits', logits, axis, meaning)
        require_same_size('loss_mask', loss_mask, axis, 'logits', logits, axis, meaning)
    nll = torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets, reduction='none')
    mask = loss_mask.to(nll.dtype)
    per_position = (nll * mask).sum(0) / mask.sum(0)
    return per_position.mean()

# lm_loss: logits reshaped with the length instead of the vocabulary
def _slip_lm_loss_16(logits, targets, loss_mask):
    require_ndim('logits', logits, 3, '(B, L, V)')
    require_ndim('targets', targets, 2, '(B, L)')
    require_ndim('loss_mask', loss_mask, 2, '(B, L)')
    for axis, meaning in ((0, 'the batch size B'), (1, 'the length L')):
        require_same_size('targets', targets, axis, 'logits', logits, axis, meaning)
        require_same_size('loss_mask', loss_mask, axis, 'logits', logits, axis, meaning)
    nll = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[1]), targets.flatten(), reduction='none')
    mask = loss_mask.flatten().to(nll.dtype)
    return (nll * mask).sum() / mask.sum()

# train_step: no zero_grad
def _slip_train_step_0(model, optimizer, batch, max_grad_norm):
    inputs, targets, loss_mask = batch
    require_ndim('inputs', inputs, 2, '(B, L)')
    require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
    require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    inputs, targets, loss_mask = batch
    loss = lm_loss(model(inputs), targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss.item()

# train_step: zero_grad at the end of the step, not at its start (nanoGPT's order)
def _slip_train_step_1(model, optimizer, batch, max_grad_norm):
    inputs, targets, loss_mask = batch
    require_ndim('inputs', inputs, 2, '(B, L)')
    require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
    require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    model.train()
    logits = model(inputs)
    loss = lm_loss(logits, targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return loss.item()

# train_step: no clipping
def _slip_train_step_2(model, optimizer, batch, max_grad_norm):
    inputs, targets, loss_mask = batch
    require_ndim('inputs', inputs, 2, '(B, L)')
    require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
    require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    inputs, targets, loss_mask = batch
    optimizer.zero_grad()
    loss = lm_loss(model(inputs), targets, loss_mask)
    loss.backward()
    optimizer.step()
    return loss.item()

# train_step: clipping by value
def _slip_train_step_3(model, optimizer, batch, max_grad_norm):
    inputs, targets, loss_mask = batch
    require_ndim('inputs', inputs, 2, '(B, L)')
    require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
    require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    inputs, targets, loss_mask = batch
    optimizer.zero_grad()
    loss = lm_loss(model(inputs), targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_value_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss.item()

# train_step: zero_grad between backward and step
def _slip_train_step_4(model, optimizer, batch, max_grad_norm):
    inputs, targets, loss_mask = batch
    require_ndim('inputs', inputs, 2, '(B, L)')
    require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
    require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    inputs, targets, loss_mask = batch
    loss = lm_loss(model(inputs), targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.zero_grad()
    optimizer.step()
    return loss.item()

# train_step: padding counted in the loss
def _slip_train_step_5(model, optimizer, batch, max_grad_norm):
    inputs, targets, loss_mask = batch
    require_ndim('inputs', inputs, 2, '(B, L)')
    require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
    require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    inputs, targets, loss_mask = batch
    optimizer.zero_grad()
    logits = model(inputs)
    loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss.item()

# train_step: returns the loss tensor
def _slip_train_step_6(model, optimizer, batch, max_grad_norm):
    inputs, targets, loss_mask = batch
    require_ndim('inputs', inputs, 2, '(B, L)')
    require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
    require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    inputs, targets, loss_mask = batch
    optimizer.zero_grad()
    loss = lm_loss(model(inputs), targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss

# train_step: returns the loss after the update
def _slip_train_step_7(model, optimizer, batch, max_grad_norm):
    inputs, targets, loss_mask = batch
    require_ndim('inputs', inputs, 2, '(B, L)')
    require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
    require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    inputs, targets, loss_mask = batch
    optimizer.zero_grad()
    loss = lm_loss(model(inputs), targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    with torch.no_grad():
        return lm_loss(model(inputs), targets, loss_mask).item()

# train_step: each parameter clipped on its own
def _slip_train_step_8(model, optimizer, batch, max_grad_norm):
    inputs, targets, loss_mask = batch
    require_ndim('inputs', inputs, 2, '(B, L)')
    require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
    require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    inputs, targets, loss_mask = batch
    optimizer.zero_grad()
    loss = lm_loss(model(inputs), targets, loss_mask)
    loss.backward()
    for p in model.parameters():
        torch.nn.utils.clip_grad_norm_(p, max_grad_norm)
    optimizer.step()
    return loss.item()

# train_step: model.eval() before the forward pass
def _slip_train_step_9(model, optimizer, batch, max_grad_norm):
    inputs, targets, loss_mask = batch
    require_ndim('inputs', inputs, 2, '(B, L)')
    require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
    require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    inputs, targets, loss_mask = batch
    model.eval()
    optimizer.zero_grad()
    loss = lm_loss(model(inputs), targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss.item()

# train_step: clipping hard-coded at 1.0
def _slip_train_step_10(model, optimizer, batch, max_grad_norm):
    inputs, targets, loss_mask = batch
    require_ndim('inputs', inputs, 2, '(B, L)')
    require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
    require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    inputs, targets, loss_mask = batch
    optimizer.zero_grad()
    loss = lm_loss(model(inputs), targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    return loss.item()

# train_step: forward pass under torch.no_grad()
def _slip_train_step_11(model, optimizer, batch, max_grad_norm):
    inputs, targets, loss_mask = batch
    require_ndim('inputs', inputs, 2, '(B, L)')
    require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
    require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    inputs, targets, loss_mask = batch
    optimizer.zero_grad()
    with torch.no_grad():
        logits = model(inputs)
    loss = lm_loss(logits, targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss.item()

# train_step: loss against the inputs instead of the targets
def _slip_train_step_12(model, optimizer, batch, max_grad_norm):
    inputs, targets, loss_mask = batch
    require_ndim('inputs', inputs, 2, '(B, L)')
    require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
    require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    inputs, targets, loss_mask = batch
    optimizer.zero_grad()
    loss = lm_loss(model(inputs), inputs, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss.item()

# train_step: model run on the targets
def _slip_train_step_13(model, optimizer, batch, max_grad_norm):
    inputs, targets, loss_mask = batch
    require_ndim('inputs', inputs, 2, '(B, L)')
    require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
    require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    inputs, targets, loss_mask = batch
    optimizer.zero_grad()
    loss = lm_loss(model(targets), targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss.item()

# train_step: cross_entropy with ignore_index=0 in place of lm_loss and loss_mask
def _slip_train_step_14(model, optimizer, batch, max_grad_norm):
    inputs, targets, loss_mask = batch
    require_ndim('inputs', inputs, 2, '(B, L)')
    require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
    require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    model.train()
    optimizer.zero_grad()
    logits = model(inputs)
    loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=0)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss.item()

# train_step: loss mask from the ids (targets != 0)
def _slip_train_step_15(model, optimizer, batch, max_grad_norm):
    inputs, targets, loss_mask = batch
    require_ndim('inputs', inputs, 2, '(B, L)')
    require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
    require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    model.train()
    optimizer.zero_grad()
    logits = model(inputs)
    loss = lm_loss(logits, targets, targets != 0)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss.item()

# train_step: padded targets zeroed in place, then ignore_index=0
def _slip_train_step_16(model, optimizer, batch, max_grad_norm):
    inputs, targets, loss_mask = batch
    require_ndim('inputs', inputs, 2, '(B, L)')
    require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
    require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    model.train()
    optimizer.zero_grad()
    logits = model(inputs)
    targets[~loss_mask] = 0
    loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=0)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss.item()

# train_step: padded targets set to 0 by masked_fill, then ignore_index=0
def _slip_train_step_17(model, optimizer, batch, max_grad_norm):
    inputs, targets, loss_mask = batch
    require_ndim('inputs', inputs, 2, '(B, L)')
    require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
    require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    model.train()
    optimizer.zero_grad()
    logits = model(inputs)
    loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.masked_fill(~loss_mask, 0).flatten(), ignore_index=0)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss.item()

# train_step: no return: the loss never handed back
def _slip_train_step_18(model, optimizer, batch, max_grad_norm):
    inputs, targets, loss_mask = batch
    require_ndim('inputs', inputs, 2, '(B, L)')
    require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
    require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    inputs, targets, loss_mask = batch
    optimizer.zero_grad()
    loss = lm_loss(model(inputs), targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()

# evaluate: mean of per-batch means
def _slip_evaluate_0(model, batches):
    batches = list(batches)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
        require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    was_training = model.training
    model.eval()
    with torch.no_grad():
        means = [lm_loss(model(x), y, m).item() for x, y, m in batches]
    model.train(was_training)
    return sum(means) / len(means)

# evaluate: padding counted
def _slip_evaluate_1(model, batches):
    batches = list(batches)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
        require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    was_training = model.training
    model.eval()
    with torch.no_grad():
        means = [torch.nn.functional.cross_entropy(model(x).flatten(0, 1), y.flatten()).item() for x, y, m in batches]
    model.train(was_training)
    return sum(means) / len(means)

# evaluate: ignore_index=0 and the targets that are not 0 counted
def _slip_evaluate_2(model, batches):
    batches = list(batches)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
        require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    was_training = model.training
    model.eval()
    total, count = (0.0, 0)
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            total += float(torch.nn.functional.cross_entropy(model(inputs).flatten(0, 1), targets.flatten(), ignore_index=0, reduction='sum'))
            count += int((targets != 0).sum())
    model.train(was_training)
    return total / count

# evaluate: ignore_index=0 instead of loss_mask
def _slip_evaluate_3(model, batches):
    batches = list(batches)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
        require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    was_training = model.training
    model.eval()
    total, count = (0.0, 0)
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            total += float(torch.nn.functional.cross_entropy(model(inputs).flatten(0, 1), targets.flatten(), ignore_index=0, reduction='sum'))
            count += int(loss_mask.sum())
    model.train(was_training)
    return total / count

# evaluate: no torch.no_grad()
def _slip_evaluate_4(model, batches):
    batches = list(batches)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
        require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    was_training = model.training
    model.eval()
    total, count = (0.0, 0)
    for inputs, targets, loss_mask in batches:
        n = int(loss_mask.sum())
        total += lm_loss(model(inputs), targets, loss_mask).item() * n
        count += n
    model.train(was_training)
    return total / count

# evaluate: no model.eval()
def _slip_evaluate_5(model, batches):
    batches = list(batches)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
        require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    total, count = (0.0, 0)
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            n = int(loss_mask.sum())
            total += lm_loss(model(inputs), targets, loss_mask).item() * n
            count += n
    return total / count

# evaluate: always switches to training mode at the end
def _slip_evaluate_6(model, batches):
    batches = list(batches)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
        require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    model.eval()
    total, count = (0.0, 0)
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            n = int(loss_mask.sum())
            total += lm_loss(model(inputs), targets, loss_mask).item() * n
            count += n
    model.train()
    return total / count

# evaluate: sum not divided by the token count
def _slip_evaluate_7(model, batches):
    batches = list(batches)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
        require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    was_training = model.training
    model.eval()
    total = 0.0
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            total += lm_loss(model(inputs), targets, loss_mask).item() * int(loss_mask.sum())
    model.train(was_training)
    return total

# evaluate: only the last batch counted
def _slip_evaluate_8(model, batches):
    batches = list(batches)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
        require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    was_training = model.training
    model.eval()
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            loss = lm_loss(model(inputs), targets, loss_mask).item()
    model.train(was_training)
    return loss

# evaluate: perplexity returned
def _slip_evaluate_9(model, batches):
    batches = list(batches)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
        require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    was_training = model.training
    model.eval()
    total, count = (0.0, 0)
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            total += lm_loss(model(inputs), targets, loss_mask).item() * int(loss_mask.sum())
            count += int(loss_mask.sum())
    model.train(was_training)
    return math.exp(total / count)

# evaluate: return inside the loop (first batch only)
def _slip_evaluate_10(model, batches):
    batches = list(batches)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
        require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    was_training = model.training
    model.eval()
    total, count = (0.0, 0)
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            n = int(loss_mask.sum())
            total += lm_loss(model(inputs), targets, loss_mask).item() * n
            count += n
            model.train(was_training)
            return total / count

# evaluate: summed loss divided by the number of batches
def _slip_evaluate_11(model, batches):
    batches = list(batches)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
        require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    was_training = model.training
    model.eval()
    total = 0.0
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            total += lm_loss(model(inputs), targets, loss_mask).item() * int(loss_mask.sum())
    model.train(was_training)
    return total / len(batches)

# evaluate: floor division
def _slip_evaluate_12(model, batches):
    batches = list(batches)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
        require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    was_training = model.training
    model.eval()
    total, count = (0.0, 0)
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            n = int(loss_mask.sum())
            total += lm_loss(model(inputs), targets, loss_mask).item() * n
            count += n
    model.train(was_training)
    return total // count

# evaluate: batches weighted by their rows (len(targets))
def _slip_evaluate_13(model, batches):
    batches = list(batches)
    for inputs, targets, loss_mask in batches:
        require_ndim('inputs', inputs, 2, '(B, L)')
        require_same_size('targets', targets, 1, 'inputs', inputs, 1, 'the length L')
        require_same_size('loss_mask', loss_mask, 1, 'inputs', inputs, 1, 'the length L')
    was_training = model.training
    model.eval()
    total, count = (0.0, 0)
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            total += lm_loss(model(inputs), targets, loss_mask).item() * len(targets)
            count += len(targets)
    model.train(was_training)
    return total / count

# ablate_head: sign flipped: clean minus ablated
def _slip_ablate_head_0(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        elif mode == 'mean':
            y[..., cols] = y[..., cols].mean(dim=(0, 1))
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / allowed
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.no_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return clean - ablated

# ablate_head: logits of position t scored against ids[:, t]
def _slip_ablate_head_1(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        elif mode == 'mean':
            y[..., cols] = y[..., cols].mean(dim=(0, 1))
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / allowed
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, 1:], dim=-1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.no_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return ablated - clean

# ablate_head: log_softmax over the positions
def _slip_ablate_head_2(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        elif mode == 'mean':
            y[..., cols] = y[..., cols].mean(dim=(0, 1))
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / allowed
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, :-1], dim=1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.no_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return ablated - clean

# ablate_head: uniform: the values taken from W_V's input
def _slip_ablate_head_3(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = inputs[0][..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        elif mode == 'mean':
            y[..., cols] = y[..., cols].mean(dim=(0, 1))
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / allowed
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.no_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return ablated - clean

# ablate_head: mean: one number over the rows, positions and columns
def _slip_ablate_head_4(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        elif mode == 'mean':
            y[..., cols] = y[..., cols].mean()
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / allowed
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.no_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return ablated - clean

# ablate_head: probabilities instead of log-probabilities
def _slip_ablate_head_5(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        elif mode == 'mean':
            y[..., cols] = y[..., cols].mean(dim=(0, 1))
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / allowed
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.no_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return ablated.exp() - clean.exp()

# ablate_head: hooks never removed
def _slip_ablate_head_6(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        elif mode == 'mean':
            y[..., cols] = y[..., cols].mean(dim=(0, 1))
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / allowed
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.no_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        model.train(was_training)
    return ablated - clean

# ablate_head: mean: each row's own average
def _slip_ablate_head_7(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        elif mode == 'mean':
            y[..., cols] = y[..., cols].mean(dim=1, keepdim=True)
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / allowed
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.no_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return ablated - clean

# ablate_head: mean: the average over the rows at each position
def _slip_ablate_head_8(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        elif mode == 'mean':
            y[..., cols] = y[..., cols].mean(dim=0, keepdim=True)
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / allowed
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.no_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return ablated - clean

# ablate_head: mean: the head's columns averaged at each position
def _slip_ablate_head_9(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        elif mode == 'mean':
            y[..., cols] = y[..., cols].mean(dim=-1, keepdim=True)
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / allowed
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.no_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return ablated - clean

# ablate_head: mean: the values averaged, not the output
def _slip_ablate_head_10(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        elif mode == 'mean':
            y[..., cols] = values['v'].mean(dim=(0, 1))
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / allowed
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.no_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return ablated - clean

# ablate_head: mean: the output zeroed
def _slip_ablate_head_11(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        elif mode == 'mean':
            y[..., cols] = 0.0
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / allowed
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.no_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return ablated - clean

# ablate_head: mean: no branch of its own, so it is made uniform
def _slip_ablate_head_12(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / allowed
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.no_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return ablated - clean

# ablate_head: clean-up after the passes, not in finally:
def _slip_ablate_head_13(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        elif mode == 'mean':
            y[..., cols] = y[..., cols].mean(dim=(0, 1))
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / allowed
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    if True:
        with torch.no_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    if True:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return ablated - clean

# ablate_head: the caller's weights zeroed in place and not restored
def _slip_ablate_head_14(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    cols = slice(head * attn.d_k, (head + 1) * attn.d_k)
    was_training = model.training
    model.eval()
    with torch.no_grad():
        scores = torch.log_softmax(model(ids)[:, :-1], dim=-1)
        clean = scores.gather(-1, ids[:, 1:, None]).squeeze(-1)
        if mode == 'zero':
            attn.W_O.weight[:, cols] = 0.0
        else:
            attn.W_Q.weight[cols] = 0.0
            attn.W_Q.bias[cols] = 0.0
        scores = torch.log_softmax(model(ids)[:, :-1], dim=-1)
        ablated = scores.gather(-1, ids[:, 1:, None]).squeeze(-1)
    model.train(was_training)
    return ablated - clean

# ablate_head: zero: W_V's weight rows zeroed in a copy, its bias left
def _slip_ablate_head_15(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    import copy
    edited = copy.deepcopy(model).eval()
    attn = edited.blocks[layer].attn
    cols = slice(head * attn.d_k, (head + 1) * attn.d_k)
    with torch.no_grad():
        if mode == 'zero':
            attn.W_V.weight[cols] = 0.0
        else:
            attn.W_Q.weight[cols] = 0.0
            attn.W_Q.bias[cols] = 0.0
        scores = torch.log_softmax(copy.deepcopy(model).eval()(ids)[:, :-1], dim=-1)
        clean = scores.gather(-1, ids[:, 1:, None]).squeeze(-1)
        scores = torch.log_softmax(edited(ids)[:, :-1], dim=-1)
        ablated = scores.gather(-1, ids[:, 1:, None]).squeeze(-1)
    return ablated - clean

# ablate_head: uniform: W_Q's weight rows zeroed in a copy, its bias left
def _slip_ablate_head_16(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    import copy
    edited = copy.deepcopy(model).eval()
    attn = edited.blocks[layer].attn
    cols = slice(head * attn.d_k, (head + 1) * attn.d_k)
    with torch.no_grad():
        if mode == 'zero':
            attn.W_O.weight[:, cols] = 0.0
        else:
            attn.W_Q.weight[cols] = 0.0
        scores = torch.log_softmax(copy.deepcopy(model).eval()(ids)[:, :-1], dim=-1)
        clean = scores.gather(-1, ids[:, 1:, None]).squeeze(-1)
        scores = torch.log_softmax(edited(ids)[:, :-1], dim=-1)
        ablated = scores.gather(-1, ids[:, 1:, None]).squeeze(-1)
    return ablated - clean

# ablate_head: uniform over every position, later ones included
def _slip_ablate_head_17(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        elif mode == 'mean':
            y[..., cols] = y[..., cols].mean(dim=(0, 1))
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.mean(dim=1, keepdim=True)
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.no_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return ablated - clean

# ablate_head: uniform weights 1 / L over the whole row
def _slip_ablate_head_18(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        elif mode == 'mean':
            y[..., cols] = y[..., cols].mean(dim=(0, 1))
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / v.shape[1]
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.no_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return ablated - clean

# ablate_head: columns head * d_model instead of head * d_k
def _slip_ablate_head_19(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * model.config.d_model, (head + 1) * model.config.d_model)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        elif mode == 'mean':
            y[..., cols] = y[..., cols].mean(dim=(0, 1))
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / allowed
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.no_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return ablated - clean

# ablate_head: hooks registered before the clean pass
def _slip_ablate_head_20(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        elif mode == 'mean':
            y[..., cols] = y[..., cols].mean(dim=(0, 1))
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / allowed
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.no_grad():
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            clean = target_log_probs()
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return ablated - clean

# ablate_head: the columns of the next head
def _slip_ablate_head_21(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice((head + 1) * d_k, (head + 2) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        elif mode == 'mean':
            y[..., cols] = y[..., cols].mean(dim=(0, 1))
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / allowed
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.no_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return ablated - clean

# ablate_head: the head ablated in every block
def _slip_ablate_head_22(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        elif mode == 'mean':
            y[..., cols] = y[..., cols].mean(dim=(0, 1))
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / allowed
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.no_grad():
            clean = target_log_probs()
            for block in model.blocks:
                handles.append(block.attn.W_V.register_forward_hook(keep_values))
                handles.append(block.attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return ablated - clean

# ablate_head: every head of the block zeroed
def _slip_ablate_head_23(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[...] = 0.0
        elif mode == 'mean':
            y[..., cols] = y[..., cols].mean(dim=(0, 1))
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / allowed
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.no_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return ablated - clean

# ablate_head: the head's queries zeroed instead of its output
def _slip_ablate_head_24(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
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
    return ablated - clean

# ablate_head: no model.eval(): dropout stays on
def _slip_ablate_head_25(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        elif mode == 'mean':
            y[..., cols] = y[..., cols].mean(dim=(0, 1))
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / allowed
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    handles = []
    try:
        with torch.no_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return ablated - clean

# ablate_head: the model left in evaluation mode
def _slip_ablate_head_26(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        elif mode == 'mean':
            y[..., cols] = y[..., cols].mean(dim=(0, 1))
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / allowed
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.no_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
    return ablated - clean

# ablate_head: no torch.no_grad(): both passes record a graph
def _slip_ablate_head_27(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        elif mode == 'mean':
            y[..., cols] = y[..., cols].mean(dim=(0, 1))
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / allowed
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.enable_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return ablated - clean

# ablate_head: every position scored against its own token: (B, L)
def _slip_ablate_head_28(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        elif mode == 'mean':
            y[..., cols] = y[..., cols].mean(dim=(0, 1))
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / allowed
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits, dim=-1)
        return log_probs.gather(-1, ids[..., None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.no_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return ablated - clean

# ablate_head: one sum per sequence
def _slip_ablate_head_29(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs[0].clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        elif mode == 'mean':
            y[..., cols] = y[..., cols].mean(dim=(0, 1))
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / allowed
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.no_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return (ablated - clean).sum(dim=1)

# ablate_head: the pre-hook's inputs taken for a tensor
def _slip_ablate_head_30(model, ids, layer, head, mode):
    require_ndim('ids', ids, 2, '(B, L)')
    if ids.shape[1] < 2:
        raise ValueError(f'ids: expected at least 2 tokens per row, shape (B, L) with L >= 2, got shape {tuple(ids.shape)}')
    if mode not in ('zero', 'uniform', 'mean'):
        raise ValueError(f"mode: expected 'zero', 'uniform' or 'mean', got {mode!r}")
    n_layers, n_heads = (len(model.blocks), model.config.n_heads)
    if not (isinstance(layer, int) and 0 <= layer < n_layers):
        raise ValueError(f'layer: expected an int in 0..{n_layers - 1}, got {layer!r}')
    if not (isinstance(head, int) and 0 <= head < n_heads):
        raise ValueError(f'head: expected an int in 0..{n_heads - 1}, got {head!r}')
    attn = model.blocks[layer].attn
    d_k = attn.d_k
    cols = slice(head * d_k, (head + 1) * d_k)
    values = {}

    def keep_values(module, inputs, output):
        values['v'] = output[..., cols]

    def ablate(module, inputs):
        y = inputs.clone()
        if mode == 'zero':
            y[..., cols] = 0.0
        elif mode == 'mean':
            y[..., cols] = y[..., cols].mean(dim=(0, 1))
        else:
            v = values['v']
            allowed = torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
            y[..., cols] = v.cumsum(dim=1) / allowed
        return (y,)

    def target_log_probs():
        logits = model(ids)
        log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
        return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
    was_training = model.training
    model.eval()
    handles = []
    try:
        with torch.no_grad():
            clean = target_log_probs()
            handles.append(attn.W_V.register_forward_hook(keep_values))
            handles.append(attn.W_O.register_forward_pre_hook(ablate))
            ablated = target_log_probs()
    finally:
        while handles:
            handles.pop().remove()
        model.train(was_training)
    return ablated - clean


# function: [(mistake, its hint, the mistake as a function)]
SLIPS = {
    'make_batch': [
        ('loss mask from the ids (targets != pad_id), not from the lengths', 'loss_mask marks the real targets by position, whatever their ids: True on the first len(seq) - 1 of row b. Comparing ids with pad_id also drops a real target that equals it (GPT-2 setups pad with the <EOS> id)', _slip_make_batch_0),
        ('loss mask from the ids (inputs != pad_id), not from the lengths', 'loss_mask marks the real targets by position, whatever the ids: True on the first len(seq) - 1 of row b. Comparing inputs with pad_id also drops a real input that equals it', _slip_make_batch_1),
        ('targets not shifted', 'teacher forcing: inputs are ids[:-1] (everything but the last token) and targets are ids[1:] (everything but the first), so target t is the token after input t', _slip_make_batch_2),
        ('shifted the wrong way', 'teacher forcing: inputs are ids[:-1] (everything but the last token) and targets are ids[1:] (everything but the first), so target t is the token after input t; the model reads the past and predicts the future', _slip_make_batch_3),
        ('whole sequences, no shift (L too long)', 'one row per sequence; L = (length of the longest sequence) - 1, because inputs drop the last id and targets the first', _slip_make_batch_4),
        ('loss mask inverted', 'loss_mask is True on REAL targets and False on padded ones', _slip_make_batch_5),
        ('loss mask one too long', 'a sequence of n ids has n - 1 targets: loss_mask[row, :n - 1] = True', _slip_make_batch_6),
        ('end token excluded from the loss mask', '<EOS> is a real target: the model must learn when an email ends', _slip_make_batch_7),
        ('padding on the left', 'pad on the right: row b starts at position 0 and the padding follows it', _slip_make_batch_8),
        ('padding hard-coded as 0', 'fill the padded positions with the pad_id argument, not 0', _slip_make_batch_9),
        ('loss mask as 0/1 integers', 'use dtype=torch.bool (True = a real target)', _slip_make_batch_10),
        ("pads the caller's lists in place", "build new tensors; do not append padding to the caller's lists", _slip_make_batch_11),
        ("targets padded with the row's <EOS> (its last id), not pad_id", "pad targets with pad_id, as inputs: after a row's last real target (its <EOS>) come pad_id, not more copies of <EOS>", _slip_make_batch_12),
        ('padded targets written as -100 (ignore_index)', 'write pad_id into every padded position, targets included; loss_mask, not a special target value, marks the padding', _slip_make_batch_13),
        ('rows sorted by length, longest first', 'keep the rows in the order of the sequences: row b is sequence b', _slip_make_batch_14),
        ('L from the shortest sequence (longer ones truncated)', 'one row per sequence; L = (length of the longest sequence) - 1, because inputs drop the last id and targets the first', _slip_make_batch_15),
        ('numpy arrays returned', 'build the tensors with torch.full / torch.zeros / torch.tensor so the model can read them', _slip_make_batch_16),
        ('L taken from the first sequence', "the sequences differ in length: take L from the LONGEST one, max(len(seq) for seq in sequences) - 1 (torch.tensor(sequences) needs equal lengths), and write each row's own n = len(seq) - 1 ids", _slip_make_batch_17),
        ('rows built as [[pad_id] * L] * B (one shared list)', '[[pad_id] * L] * B repeats ONE list B times, so writing row b writes every row: build each row on its own (a list comprehension, or torch.full((B, L), pad_id))', _slip_make_batch_18),
        ('float tensors (torch.zeros(B, L) + pad_id)', 'use dtype=torch.long', _slip_make_batch_19),
        ('torch.tensor(sequences) without padding', "the sequences differ in length: take L from the LONGEST one, max(len(seq) for seq in sequences) - 1 (torch.tensor(sequences) needs equal lengths), and write each row's own n = len(seq) - 1 ids", _slip_make_batch_20),
        ('each row one target short (n = len(seq) - 2)', 'teacher forcing: inputs are ids[:-1] (everything but the last token) and targets are ids[1:] (everything but the first), so target t is the token after input t', _slip_make_batch_21),
    ],
    'lm_loss': [
        ('padding counted in the loss', 'multiply the per-token losses by loss_mask and count only real targets', _slip_lm_loss_0),
        ('mean over the batch of per-sequence means', 'every real target of the batch weighs the same: add the losses of all real targets and divide by their number (loss_mask.sum()), not by the number of sequences or positions', _slip_lm_loss_1),
        ('sum instead of mean', 'divide the summed loss by loss_mask.sum()', _slip_lm_loss_2),
        ('masked sum divided by all positions', 'every real target of the batch weighs the same: add the losses of all real targets and divide by their number (loss_mask.sum()), not by the number of sequences or positions', _slip_lm_loss_3),
        ('divided by the number of emails', 'every real target of the batch weighs the same: add the losses of all real targets and divide by their number (loss_mask.sum()), not by the number of sequences or positions', _slip_lm_loss_4),
        ('log of softmax overflows', 'log(softmax(x)) underflows to log(0) = -inf for large logits: use torch.log_softmax or F.cross_entropy', _slip_lm_loss_5),
        ('softmax over the positions', 'normalise over the last axis (the vocabulary), dim=-1', _slip_lm_loss_6),
        ('loss in bits', 'the loss is in nats: use the natural log (F.cross_entropy does)', _slip_lm_loss_7),
        ('returns a Python float', 'return a 0-d tensor (no .item() or float() inside lm_loss)', _slip_lm_loss_8),
        ('the mask applied to the logits', 'multiply the per-token LOSSES by loss_mask; zeroed logits still give a loss of log V', _slip_lm_loss_9),
        ('targets shifted again inside the loss', 'make_batch already shifted: logits[b, t] is scored against targets[b, t], the same position', _slip_lm_loss_10),
        ('result rebuilt with torch.tensor (graph lost)', 'return a 0-d tensor (no .item() or float() inside lm_loss)', _slip_lm_loss_11),
        ('padded targets zeroed in place (targets[~loss_mask] = 0)', 'build new tensors (torch.where, masked_fill without _) instead of writing into targets or logits: the caller still needs them', _slip_lm_loss_12),
        ('floor division by the token count', 'true division for the mean over the real targets (// rounds down)', _slip_lm_loss_13),
        ('unmasked sum over the real count', 'multiply the per-token losses by loss_mask before summing', _slip_lm_loss_14),
        ('per-position means (batch axis reduced first)', 'every real target of the batch weighs the same: add the losses of all real targets and divide by their number (loss_mask.sum()), not by the number of sequences or positions; score every row of the batch: flatten (B, L, V) to (B * L, V), not logits[0]', _slip_lm_loss_15),
        ('logits reshaped with the length instead of the vocabulary', 'flatten the (B, L, V) logits to (B * L, V) with logits.flatten(0, 1) (or reshape(-1, logits.shape[-1])) and the targets to (B * L,); take every size from the arguments', _slip_lm_loss_16),
    ],
    'train_step': [
        ('no zero_grad', 'call optimizer.zero_grad() before loss.backward(); PyTorch ADDS new gradients to the old ones', _slip_train_step_0),
        ("zero_grad at the end of the step, not at its start (nanoGPT's order)", 'call optimizer.zero_grad() FIRST: the model may arrive holding gradients from before (an earlier backward), and backward() adds to them', _slip_train_step_1),
        ('no clipping', "clip after loss.backward() and before optimizer.step(), with torch.nn.utils.clip_grad_norm_ on the model's parameters", _slip_train_step_2),
        ('clipping by value', 'clip the global norm: torch.nn.utils.clip_grad_norm_', _slip_train_step_3),
        ('zero_grad between backward and step', 'call optimizer.step() after backward() and clipping, and do not clear the gradients between backward() and step(): zero them at the START of the step', _slip_train_step_4),
        ('padding counted in the loss', 'use lm_loss(logits, targets, loss_mask), which skips padded targets', _slip_train_step_5),
        ('returns the loss tensor', "return loss.item(): a float, so a training loop that stores the losses does not keep every step's graph alive", _slip_train_step_6),
        ('returns the loss after the update', 'return the loss of the forward pass that produced the gradients, before optimizer.step()', _slip_train_step_7),
        ('each parameter clipped on its own', 'clip the norm of ALL gradients together: one call clip_grad_norm_(model.parameters(), max_grad_norm)', _slip_train_step_8),
        ('model.eval() before the forward pass', 'do not call model.eval() in train_step: dropout must stay on while training (model.train(), if anything)', _slip_train_step_9),
        ('clipping hard-coded at 1.0', 'use the max_grad_norm argument', _slip_train_step_10),
        ('forward pass under torch.no_grad()', 'the forward pass must build a graph for backward(): no torch.no_grad() or .detach() in train_step: the loss comes from model(inputs) through lm_loss, with the loss_mask', _slip_train_step_11),
        ('loss against the inputs instead of the targets', "one step, in this order and each once: zero the gradients; the loss of model(inputs) by lm_loss over the whole batch; backward; clip the global norm of ALL the parameters' gradients to max_grad_norm (clip_grad_norm_); the optimizer's step", _slip_train_step_12),
        ('model run on the targets', "one step, in this order and each once: zero the gradients; the loss of model(inputs) by lm_loss over the whole batch; backward; clip the global norm of ALL the parameters' gradients to max_grad_norm (clip_grad_norm_); the optimizer's step", _slip_train_step_13),
        ('cross_entropy with ignore_index=0 in place of lm_loss and loss_mask', 'loss_mask says which targets are real; the pad id may be any id (and 0 may be a real token): weight by loss_mask rather than ignore_index', _slip_train_step_14),
        ('loss mask from the ids (targets != 0)', 'loss_mask says which targets are real; the pad id may be any id (and 0 may be a real token): weight by loss_mask rather than ignore_index', _slip_train_step_15),
        ('padded targets zeroed in place, then ignore_index=0', 'build a new array or new tensor (x = x / ..., not x /= ...) instead of writing into the inputs in place: the caller still needs them as they were', _slip_train_step_16),
        ('padded targets set to 0 by masked_fill, then ignore_index=0', 'loss_mask says which targets are real; the pad id may be any id (and 0 may be a real token): weight by loss_mask rather than ignore_index', _slip_train_step_17),
        ('no return: the loss never handed back', 'end train_step with `return` and its result', _slip_train_step_18),
    ],
    'evaluate': [
        ('mean of per-batch means', 'weight every token the same: add the summed losses of ALL batches and divide by the total number of real targets', _slip_evaluate_0),
        ('padding counted', 'multiply the per-token losses by loss_mask and count only real targets', _slip_evaluate_1),
        ('ignore_index=0 and the targets that are not 0 counted', 'loss_mask says which targets are real; the pad id may be any id (and 0 may be a real token): weight by loss_mask rather than ignore_index', _slip_evaluate_2),
        ('ignore_index=0 instead of loss_mask', 'loss_mask says which targets are real; the pad id may be any id (and 0 may be a real token): weight by loss_mask rather than ignore_index', _slip_evaluate_3),
        ('no torch.no_grad()', 'wrap the loop in `with torch.no_grad():`; evaluation needs no graph', _slip_evaluate_4),
        ('no model.eval()', 'a value that changes from call to call means dropout is on: call model.eval() before scoring', _slip_evaluate_5),
        ('always switches to training mode at the end', 'remember model.training first and restore it at the end: model.train(was_training)', _slip_evaluate_6),
        ('sum not divided by the token count', 'divide the summed loss by the number of real targets', _slip_evaluate_7),
        ('only the last batch counted', 'add every batch to the running totals (total += ...), do not overwrite', _slip_evaluate_8),
        ('perplexity returned', "return the mean loss in nats itself; perplexity is notebook 08's business", _slip_evaluate_9),
        ('return inside the loop (first batch only)', 'return after the loop, once every batch has been added to the totals', _slip_evaluate_10),
        ('summed loss divided by the number of batches', 'weight every token the same: add the summed losses of ALL batches and divide by the total number of real targets', _slip_evaluate_11),
        ('floor division', 'true division for the mean over the real targets (// rounds down)', _slip_evaluate_12),
        ('batches weighted by their rows (len(targets))', 'weight every token the same: add the summed losses of ALL batches and divide by the total number of real targets', _slip_evaluate_13),
    ],
    'ablate_head': [
        ('sign flipped: clean minus ablated', "the change is ablated minus clean: a head that helped lowers the target's log-probability when it is removed, so its change is negative", _slip_ablate_head_0),
        ('logits of position t scored against ids[:, t]', 'the logits at position t predict the token after it: score log_softmax of positions 0..L-2 against ids[:, 1:]', _slip_ablate_head_1),
        ('log_softmax over the positions', "log_softmax over the vocabulary, the last axis (dim=-1): each position's distribution over the next token", _slip_ablate_head_2),
        ("uniform: the values taken from W_V's input", "the head's values are W_V's OUTPUT, its columns cols: a forward hook's third argument, not the input it reads", _slip_ablate_head_3),
        ('mean: one number over the rows, positions and columns', "average over the batch and position axes (0 and 1), not over the head's d_k columns", _slip_ablate_head_4),
        ('probabilities instead of log-probabilities', 'compare LOG-probabilities (torch.log_softmax over the vocabulary), not probabilities', _slip_ablate_head_5),
        ('hooks never removed', 'remove every hook you registered (handle.remove()) in a `finally:` block, so the model is clean again even if a forward pass fails', _slip_ablate_head_6),
        ("mean: each row's own average", 'for "mean" average the head\'s output over every position of every row: y[..., cols].mean(dim=(0, 1)), one vector of d_k numbers', _slip_ablate_head_7),
        ('mean: the average over the rows at each position', 'for "mean" average the head\'s output over every position of every row: y[..., cols].mean(dim=(0, 1)), one vector of d_k numbers', _slip_ablate_head_8),
        ("mean: the head's columns averaged at each position", "average over the batch and position axes (0 and 1), not over the head's d_k columns", _slip_ablate_head_9),
        ('mean: the values averaged, not the output', "average the head's output (its columns of W_O's input), not its values: the output is what the next layers read", _slip_ablate_head_10),
        ('mean: the output zeroed', 'for "mean" replace the head\'s output at every position by its average output over ids (not by zeros, and not by the uniform mix of its values)', _slip_ablate_head_11),
        ('mean: no branch of its own, so it is made uniform', 'for "mean" replace the head\'s output at every position by its average output over ids (not by zeros, and not by the uniform mix of its values)', _slip_ablate_head_12),
        ('clean-up after the passes, not in finally:', 'put the clean-up in a `finally:` block (try: ... finally: remove every hook and restore the mode), so it runs even when a forward pass raises', _slip_ablate_head_13),
        ("the caller's weights zeroed in place and not restored", "leave the model's weights as they were: ablate with hooks, or edit a copy.deepcopy of the model, never the caller's parameters", _slip_ablate_head_14),
        ("zero: W_V's weight rows zeroed in a copy, its bias left", "an ablation through the weights must take the bias too: with only W_V's weight rows zeroed the head still outputs its value bias, and with only W_Q's weight rows zeroed its query bias still makes the scores depend on the keys; zero the bias rows as well, or replace the head's output (its columns of W_O's input) with a hook", _slip_ablate_head_15),
        ("uniform: W_Q's weight rows zeroed in a copy, its bias left", "an ablation through the weights must take the bias too: with only W_V's weight rows zeroed the head still outputs its value bias, and with only W_Q's weight rows zeroed its query bias still makes the scores depend on the keys; zero the bias rows as well, or replace the head's output (its columns of W_O's input) with a hook", _slip_ablate_head_16),
        ('uniform over every position, later ones included', "uniform attention is uniform over the ALLOWED keys: at position t the mean of the head's values at positions 0..t (a running mean along the sequence), never a later one", _slip_ablate_head_17),
        ('uniform weights 1 / L over the whole row', 'the uniform weights of row t are 1 / (t + 1) on keys 0..t: they sum to one over the allowed keys, not 1 / L over the whole row', _slip_ablate_head_18),
        ('columns head * d_model instead of head * d_k', "W_O reads the heads' outputs concatenated: head h owns the d_k = d_model / n_heads columns from h * d_k up to (h + 1) * d_k, and a forward pre-hook must return the changed input for it to take effect", _slip_ablate_head_19),
        ('hooks registered before the clean pass', "every change is 0: the ablated pass ran like the clean one. Run the clean pass before the hooks go on, then the ablated one. W_O reads the heads' outputs concatenated: head h owns the d_k = d_model / n_heads columns from h * d_k up to (h + 1) * d_k, and a forward pre-hook must return the changed input for it to take effect", _slip_ablate_head_20),
        ('the columns of the next head', "W_O reads the heads' outputs concatenated: head h owns the d_k = d_model / n_heads columns from h * d_k up to (h + 1) * d_k, and a forward pre-hook must return the changed input for it to take effect", _slip_ablate_head_21),
        ('the head ablated in every block', 'ablate one head of one block: the hooks go on model.blocks[layer].attn only, and only the columns of `head` change', _slip_ablate_head_22),
        ('every head of the block zeroed', 'ablate one head of one block: the hooks go on model.blocks[layer].attn only, and only the columns of `head` change', _slip_ablate_head_23),
        ("the head's queries zeroed instead of its output", 'mode "zero" replaces the head\'s OUTPUT (its columns of W_O\'s input) by zeros; zeroing its queries or keys only makes its attention uniform, which is mode "uniform"', _slip_ablate_head_24),
        ('no model.eval(): dropout stays on', 'call model.eval() before both forward passes: with dropout on, the two passes drop different units and their difference is noise', _slip_ablate_head_25),
        ('the model left in evaluation mode', 'remember model.training first and restore it at the end: model.train(was_training)', _slip_ablate_head_26),
        ('no torch.no_grad(): both passes record a graph', 'wrap the loop in `with torch.no_grad():`; evaluation needs no graph', _slip_ablate_head_27),
        ('every position scored against its own token: (B, L)', 'one number per TARGET: position t scores ids[:, t + 1], so the last position has no target and the result is (B, L - 1)', _slip_ablate_head_28),
        ('one sum per sequence', 'return one change per target token, shape (B, L - 1): do not sum or average over the positions', _slip_ablate_head_29),
        ("the pre-hook's inputs taken for a tensor", 'register the hooks on model.blocks[layer].attn.W_O (a forward pre-hook gets the tuple of inputs) and, for "uniform", on W_V (a forward hook gets the output); index the columns of the last axis with [..., a:b]', _slip_ablate_head_30),
    ],
}
