"""Notebook 07 catalogue: the mistakes students make, and correct answers written otherwise."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from grader.catalogue import alternative, mistake  # noqa: E402

_BATCH_HEAD = """
    L = max(len(seq) for seq in sequences) - 1
    B = len(sequences)
    inputs = torch.full((B, L), pad_id, dtype=torch.long)
    targets = torch.full((B, L), pad_id, dtype=torch.long)
    loss_mask = torch.zeros((B, L), dtype=torch.bool)
"""

_STEP_FORWARD = """
    inputs, targets, loss_mask = batch
"""

MISTAKES = [
    # make_batch
    mistake("make_batch", "targets not shifted", _BATCH_HEAD + """
    for b, seq in enumerate(sequences):
        ids = torch.tensor(seq)
        inputs[b, :len(seq) - 1] = ids[:-1]
        targets[b, :len(seq) - 1] = ids[:-1]
        loss_mask[b, :len(seq) - 1] = True
    return inputs, targets, loss_mask
    """, hint="targets are ids[1:]"),
    mistake("make_batch", "shifted the wrong way", _BATCH_HEAD + """
    for b, seq in enumerate(sequences):
        ids = torch.tensor(seq)
        inputs[b, :len(seq) - 1] = ids[1:]
        targets[b, :len(seq) - 1] = ids[:-1]
        loss_mask[b, :len(seq) - 1] = True
    return inputs, targets, loss_mask
    """, hint="reads the past and predicts the future"),
    mistake("make_batch", "whole sequences, no shift (L too long)", """
    L = max(len(seq) for seq in sequences)
    inputs = torch.full((len(sequences), L), pad_id, dtype=torch.long)
    loss_mask = torch.zeros((len(sequences), L), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        inputs[b, :len(seq)] = torch.tensor(seq)
        loss_mask[b, :len(seq)] = True
    targets = torch.cat([inputs[:, 1:], torch.full((len(sequences), 1), pad_id)], dim=1)
    return inputs, targets, loss_mask
    """, hint="L = (length of the longest sequence) - 1"),
    mistake("make_batch", "loss mask inverted", _BATCH_HEAD + """
    for b, seq in enumerate(sequences):
        ids = torch.tensor(seq)
        inputs[b, :len(seq) - 1] = ids[:-1]
        targets[b, :len(seq) - 1] = ids[1:]
        loss_mask[b, :len(seq) - 1] = True
    return inputs, targets, ~loss_mask
    """, hint="True on REAL targets"),
    mistake("make_batch", "loss mask one too long", _BATCH_HEAD + """
    for b, seq in enumerate(sequences):
        ids = torch.tensor(seq)
        inputs[b, :len(seq) - 1] = ids[:-1]
        targets[b, :len(seq) - 1] = ids[1:]
        loss_mask[b, :len(seq)] = True
    return inputs, targets, loss_mask
    """, hint="n - 1 targets"),
    mistake("make_batch", "end token excluded from the loss mask", _BATCH_HEAD + """
    for b, seq in enumerate(sequences):
        ids = torch.tensor(seq)
        inputs[b, :len(seq) - 1] = ids[:-1]
        targets[b, :len(seq) - 1] = ids[1:]
        loss_mask[b, :len(seq) - 2] = True
    return inputs, targets, loss_mask
    """, hint="<EOS> is a real target"),
    mistake("make_batch", "padding on the left", _BATCH_HEAD + """
    for b, seq in enumerate(sequences):
        ids = torch.tensor(seq)
        n = len(seq) - 1
        inputs[b, L - n:] = ids[:-1]
        targets[b, L - n:] = ids[1:]
        loss_mask[b, L - n:] = True
    return inputs, targets, loss_mask
    """, hint="pad on the right"),
    mistake("make_batch", "padding hard-coded as 0", """
    L = max(len(seq) for seq in sequences) - 1
    inputs = torch.zeros((len(sequences), L), dtype=torch.long)
    targets = torch.zeros((len(sequences), L), dtype=torch.long)
    loss_mask = torch.zeros((len(sequences), L), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        ids = torch.tensor(seq)
        inputs[b, :len(seq) - 1] = ids[:-1]
        targets[b, :len(seq) - 1] = ids[1:]
        loss_mask[b, :len(seq) - 1] = True
    return inputs, targets, loss_mask
    """, hint="the pad_id argument"),
    mistake("make_batch", "loss mask as 0/1 integers", _BATCH_HEAD + """
    for b, seq in enumerate(sequences):
        ids = torch.tensor(seq)
        inputs[b, :len(seq) - 1] = ids[:-1]
        targets[b, :len(seq) - 1] = ids[1:]
        loss_mask[b, :len(seq) - 1] = True
    return inputs, targets, loss_mask.long()
    """, hint="dtype=torch.bool"),
    mistake("make_batch", "pads the caller's lists in place", """
    L = max(len(seq) for seq in sequences)
    for seq in sequences:
        seq.extend([pad_id] * (L - len(seq)))
    ids = torch.tensor(sequences)
    targets = ids[:, 1:]
    return ids[:, :-1], targets, targets != pad_id
    """, hint="do not append padding to the caller's lists"),
    # lm_loss
    mistake("lm_loss", "padding counted in the loss", """
    return torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
    """, hint="count only real targets"),
    mistake("lm_loss", "mean over the batch of per-sequence means", """
    nll = torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets, reduction="none")
    mask = loss_mask.float()
    return ((nll * mask).sum(dim=1) / mask.sum(dim=1)).mean()
    """, hint="every real target of the batch weighs the same"),
    mistake("lm_loss", "sum instead of mean", """
    nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(),
                                            reduction="none")
    return (nll * loss_mask.flatten()).sum()
    """, hint="divide the summed loss by loss_mask.sum()"),
    mistake("lm_loss", "masked sum divided by all positions", """
    nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(),
                                            reduction="none")
    return (nll * loss_mask.flatten()).mean()
    """, hint="every real target of the batch weighs the same"),
    mistake("lm_loss", "divided by the number of emails", """
    nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(),
                                            reduction="none")
    return (nll * loss_mask.flatten()).sum() / logits.shape[0]
    """, hint="not by the number of sequences"),
    mistake("lm_loss", "log of softmax overflows", """
    probs = torch.softmax(logits, dim=-1)
    picked = probs.gather(-1, targets[..., None])[..., 0]
    nll = -torch.log(picked)
    return (nll * loss_mask).sum() / loss_mask.sum()
    """, hint="torch.log_softmax"),
    mistake("lm_loss", "softmax over the positions", """
    log_probs = torch.log_softmax(logits, dim=1)
    picked = log_probs.gather(-1, targets[..., None])[..., 0]
    return -(picked * loss_mask).sum() / loss_mask.sum()
    """, hint="dim=-1"),
    mistake("lm_loss", "loss in bits", """
    nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(),
                                            reduction="none")
    mask = loss_mask.flatten().float()
    return (nll * mask).sum() / mask.sum() / math.log(2)
    """, hint="in nats"),
    mistake("lm_loss", "returns a Python float", """
    nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(),
                                            reduction="none")
    mask = loss_mask.flatten().float()
    return ((nll * mask).sum() / mask.sum()).item()
    """, hint="return a 0-d tensor"),
    # train_step
    mistake("train_step", "no zero_grad", _STEP_FORWARD + """
    loss = lm_loss(model(inputs), targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss.item()
    """, hint="PyTorch ADDS new gradients"),
    mistake("train_step", "no clipping", _STEP_FORWARD + """
    optimizer.zero_grad()
    loss = lm_loss(model(inputs), targets, loss_mask)
    loss.backward()
    optimizer.step()
    return loss.item()
    """, hint="clip after loss.backward() and before optimizer.step()"),
    mistake("train_step", "clipping after the step", _STEP_FORWARD + """
    optimizer.zero_grad()
    loss = lm_loss(model(inputs), targets, loss_mask)
    loss.backward()
    optimizer.step()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    return loss.item()
    """, hint="clip after loss.backward() and before optimizer.step()"),
    mistake("train_step", "clipping before backward", _STEP_FORWARD + """
    optimizer.zero_grad()
    loss = lm_loss(model(inputs), targets, loss_mask)
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    loss.backward()
    optimizer.step()
    return loss.item()
    """, hint="clip after loss.backward() and before optimizer.step()"),
    mistake("train_step", "clipping by value", _STEP_FORWARD + """
    optimizer.zero_grad()
    loss = lm_loss(model(inputs), targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_value_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss.item()
    """, hint="clip_grad_norm_"),
    mistake("train_step", "zero_grad between backward and step", _STEP_FORWARD + """
    loss = lm_loss(model(inputs), targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.zero_grad()
    optimizer.step()
    return loss.item()
    """, hint="do not clear the gradients between backward() and step()"),
    mistake("train_step", "no optimizer.step()", _STEP_FORWARD + """
    optimizer.zero_grad()
    loss = lm_loss(model(inputs), targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    return loss.item()
    """, hint="optimizer.step()"),
    mistake("train_step", "padding counted in the loss", _STEP_FORWARD + """
    optimizer.zero_grad()
    logits = model(inputs)
    loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss.item()
    """, hint="skips padded targets"),
    mistake("train_step", "returns the loss tensor", _STEP_FORWARD + """
    optimizer.zero_grad()
    loss = lm_loss(model(inputs), targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss
    """, hint="return loss.item()"),
    mistake("train_step", "returns the loss after the update", _STEP_FORWARD + """
    optimizer.zero_grad()
    loss = lm_loss(model(inputs), targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    with torch.no_grad():
        return lm_loss(model(inputs), targets, loss_mask).item()
    """, hint="before optimizer.step()"),
    # evaluate
    mistake("evaluate", "mean of per-batch means", """
    was_training = model.training
    model.eval()
    with torch.no_grad():
        means = [lm_loss(model(x), y, m).item() for x, y, m in batches]
    model.train(was_training)
    return sum(means) / len(means)
    """, hint="weight every token the same"),
    mistake("evaluate", "padding counted", """
    was_training = model.training
    model.eval()
    with torch.no_grad():
        means = [torch.nn.functional.cross_entropy(model(x).flatten(0, 1), y.flatten()).item()
                 for x, y, m in batches]
    model.train(was_training)
    return sum(means) / len(means)
    """, hint="count only real targets"),
    mistake("evaluate", "no torch.no_grad()", """
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    for inputs, targets, loss_mask in batches:
        n = int(loss_mask.sum())
        total += lm_loss(model(inputs), targets, loss_mask).item() * n
        count += n
    model.train(was_training)
    return total / count
    """, hint="torch.no_grad()"),
    mistake("evaluate", "no model.eval()", """
    total, count = 0.0, 0
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            n = int(loss_mask.sum())
            total += lm_loss(model(inputs), targets, loss_mask).item() * n
            count += n
    return total / count
    """, hint="model.eval()"),
    mistake("evaluate", "training mode not restored", """
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            n = int(loss_mask.sum())
            total += lm_loss(model(inputs), targets, loss_mask).item() * n
            count += n
    return total / count
    """, hint="model.train(was_training)"),
    mistake("evaluate", "always switches to training mode at the end", """
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            n = int(loss_mask.sum())
            total += lm_loss(model(inputs), targets, loss_mask).item() * n
            count += n
    model.train()
    return total / count
    """, hint="model.train(was_training)"),
    mistake("evaluate", "sum not divided by the token count", """
    was_training = model.training
    model.eval()
    total = 0.0
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            total += lm_loss(model(inputs), targets, loss_mask).item() * int(loss_mask.sum())
    model.train(was_training)
    return total
    """, hint="divide the summed loss by the number of real targets"),
    # -- added in the adversarial review
    mistake("make_batch", "padded targets written as -100 (ignore_index)", _BATCH_HEAD + """
    for b, seq in enumerate(sequences):
        ids = torch.tensor(seq)
        n = len(seq) - 1
        inputs[b, :n] = ids[:-1]
        targets[b, :n] = ids[1:]
        targets[b, n:] = -100
        loss_mask[b, :n] = True
    return inputs, targets, loss_mask
    """, hint="write pad_id into every padded position"),
    mistake("make_batch", "rows sorted by length, longest first", """
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
    return inputs, targets, loss_mask
    """, hint="row b is sequence b"),
    mistake("make_batch", "L from the shortest sequence (longer ones truncated)", """
    L = min(len(seq) for seq in sequences) - 1
    inputs = torch.tensor([list(seq[:L]) for seq in sequences])
    targets = torch.tensor([list(seq[1:L + 1]) for seq in sequences])
    return inputs, targets, torch.ones_like(inputs, dtype=torch.bool)
    """, hint="length of the longest sequence"),
    mistake("make_batch", "numpy arrays returned", """
    import numpy as np
    L = max(len(seq) for seq in sequences) - 1
    inputs = np.full((len(sequences), L), pad_id)
    targets = np.full((len(sequences), L), pad_id)
    loss_mask = np.zeros((len(sequences), L), dtype=bool)
    for b, seq in enumerate(sequences):
        inputs[b, :len(seq) - 1] = seq[:-1]
        targets[b, :len(seq) - 1] = seq[1:]
        loss_mask[b, :len(seq) - 1] = True
    return inputs, targets, loss_mask
    """, hint="expected a torch tensor"),
    mistake("lm_loss", "the mask applied to the logits", """
    masked = logits * loss_mask[..., None]
    nll = torch.nn.functional.cross_entropy(masked.flatten(0, 1), targets.flatten(),
                                            reduction="none")
    return nll.sum() / loss_mask.sum()
    """, hint="multiply the per-token LOSSES by loss_mask"),
    mistake("lm_loss", "targets shifted again inside the loss", """
    nll = torch.nn.functional.cross_entropy(logits[:, :-1].flatten(0, 1),
                                            targets[:, 1:].flatten(), reduction="none")
    mask = loss_mask[:, 1:].flatten().float()
    return (nll * mask).sum() / mask.sum()
    """, hint="make_batch already shifted"),
    mistake("lm_loss", "result rebuilt with torch.tensor (graph lost)", """
    nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(),
                                            reduction="none")
    mask = loss_mask.flatten().float()
    return torch.tensor(float((nll * mask).sum() / mask.sum()))
    """, hint="no .item() or float() inside lm_loss"),
    mistake("train_step", "each parameter clipped on its own", _STEP_FORWARD + """
    optimizer.zero_grad()
    loss = lm_loss(model(inputs), targets, loss_mask)
    loss.backward()
    for p in model.parameters():
        torch.nn.utils.clip_grad_norm_(p, max_grad_norm)
    optimizer.step()
    return loss.item()
    """, hint="clip the norm of ALL gradients together"),
    mistake("train_step", "model.eval() before the forward pass", _STEP_FORWARD + """
    model.eval()
    optimizer.zero_grad()
    loss = lm_loss(model(inputs), targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss.item()
    """, hint="do not call model.eval() in train_step"),
    mistake("evaluate", "only the last batch counted", """
    was_training = model.training
    model.eval()
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            loss = lm_loss(model(inputs), targets, loss_mask).item()
    model.train(was_training)
    return loss
    """, hint="add every batch to the running totals"),
    mistake("evaluate", "perplexity returned", """
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            total += lm_loss(model(inputs), targets, loss_mask).item() * int(loss_mask.sum())
            count += int(loss_mask.sum())
    model.train(was_training)
    return math.exp(total / count)
    """, hint="return the mean loss in nats itself"),
    # -- added in round 3 (sizes, aliasing, dtypes, in-place edits, batch-only bugs)
    mistake("make_batch", "L taken from the first sequence", """
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
    return inputs, targets, loss_mask
    """, hint="take L from the LONGEST one"),
    mistake("make_batch", "rows built as [[pad_id] * L] * B (one shared list)", """
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
    """, hint="repeats ONE list B times"),
    mistake("make_batch", "float tensors (torch.zeros(B, L) + pad_id)", """
    L = max(len(seq) for seq in sequences) - 1
    B = len(sequences)
    inputs = torch.zeros(B, L) + pad_id
    targets = torch.zeros(B, L) + pad_id
    loss_mask = torch.zeros((B, L), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        n = len(seq) - 1
        inputs[b, :n] = torch.tensor(seq[:-1], dtype=torch.float32)
        targets[b, :n] = torch.tensor(seq[1:], dtype=torch.float32)
        loss_mask[b, :n] = True
    return inputs, targets, loss_mask
    """, hint="use dtype=torch.long"),
    mistake("make_batch", "torch.tensor(sequences) without padding", """
    ids = torch.tensor(sequences, dtype=torch.long)
    return ids[:, :-1], ids[:, 1:], ids[:, 1:] != pad_id
    """, hint="torch.tensor(sequences) needs equal lengths"),
    mistake("make_batch", "each row one target short (n = len(seq) - 2)", """
    L = max(len(seq) for seq in sequences) - 1
    B = len(sequences)
    inputs = torch.full((B, L), pad_id, dtype=torch.long)
    targets = torch.full((B, L), pad_id, dtype=torch.long)
    loss_mask = torch.zeros((B, L), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        n = len(seq) - 2
        inputs[b, :n] = torch.tensor(seq[:n])
        targets[b, :n] = torch.tensor(seq[1:n + 1])
        loss_mask[b, :n] = True
    return inputs, targets, loss_mask
    """, hint="teacher forcing: inputs are ids[:-1]"),
    mistake("lm_loss", "padded targets zeroed in place (targets[~loss_mask] = 0)", """
    targets[~loss_mask.bool()] = 0
    nll = torch.nn.functional.cross_entropy(
        logits.flatten(0, 1), targets.flatten(), reduction="none")
    mask = loss_mask.flatten().to(nll.dtype)
    return (nll * mask).sum() / mask.sum()
    """, hint="instead of writing into targets or logits"),
    mistake("lm_loss", "floor division by the token count", """
    nll = torch.nn.functional.cross_entropy(
        logits.flatten(0, 1), targets.flatten(), reduction="none")
    mask = loss_mask.flatten().to(nll.dtype)
    return (nll * mask).sum() // mask.sum()
    """, hint="(// rounds down)"),
    mistake("lm_loss", "unmasked sum over the real count", """
    nll = torch.nn.functional.cross_entropy(
        logits.flatten(0, 1), targets.flatten(), reduction="none")
    return nll.sum() / loss_mask.sum()
    """, hint="multiply the per-token losses by loss_mask before summing"),
    mistake("lm_loss", "per-position means (batch axis reduced first)", """
    nll = torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets,
                                            reduction="none")  # (B, L)
    mask = loss_mask.to(nll.dtype)
    per_position = (nll * mask).sum(0) / mask.sum(0)  # (L,)
    return per_position.mean()
    """, hint="every real target of the batch weighs the same"),
    mistake("lm_loss", "only the first sequence scored (written for B = 1)", """
    nll = torch.nn.functional.cross_entropy(logits[0], targets[0], reduction="none")  # (L,)
    mask = loss_mask[0].to(nll.dtype)
    return (nll * mask).sum() / mask.sum()
    """, hint="score every row of the batch"),
    mistake("lm_loss", "logits reshaped with the length instead of the vocabulary", """
    nll = torch.nn.functional.cross_entropy(
        logits.reshape(-1, logits.shape[1]), targets.flatten(), reduction="none")
    mask = loss_mask.flatten().to(nll.dtype)
    return (nll * mask).sum() / mask.sum()
    """, hint="reshape(-1, logits.shape[-1])"),
    mistake("train_step", "clipping hard-coded at 1.0", _STEP_FORWARD + """
    optimizer.zero_grad()
    loss = lm_loss(model(inputs), targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    return loss.item()
    """, hint="use the max_grad_norm argument"),
    mistake("train_step", "forward pass under torch.no_grad()", _STEP_FORWARD + """
    optimizer.zero_grad()
    with torch.no_grad():
        logits = model(inputs)
    loss = lm_loss(logits, targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss.item()
    """, hint="no torch.no_grad() or .detach() in train_step"),
    mistake("train_step", "loss against the inputs instead of the targets", _STEP_FORWARD + """
    optimizer.zero_grad()
    loss = lm_loss(model(inputs), inputs, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss.item()
    """, hint="zero_grad, forward, lm_loss, backward, clip_grad_norm_, step"),
    mistake("train_step", "model run on the targets", _STEP_FORWARD + """
    optimizer.zero_grad()
    loss = lm_loss(model(targets), targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss.item()
    """, hint="zero_grad, forward, lm_loss, backward, clip_grad_norm_, step"),
    mistake("evaluate", "return inside the loop (first batch only)", """
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            n = int(loss_mask.sum())
            total += lm_loss(model(inputs), targets, loss_mask).item() * n
            count += n
            model.train(was_training)
            return total / count
    """, hint="return after the loop"),
    mistake("evaluate", "summed loss divided by the number of batches", """
    was_training = model.training
    model.eval()
    total = 0.0
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            total += lm_loss(model(inputs), targets, loss_mask).item() * int(loss_mask.sum())
    model.train(was_training)
    return total / len(batches)
    """, hint="weight every token the same"),
    mistake("evaluate", "floor division", """
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            n = int(loss_mask.sum())
            total += lm_loss(model(inputs), targets, loss_mask).item() * n
            count += n
    model.train(was_training)
    return total // count
    """, hint="(// rounds down)"),
    mistake("evaluate", "batches weighted by their rows (len(targets))", """
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            total += lm_loss(model(inputs), targets, loss_mask).item() * len(targets)
            count += len(targets)
    model.train(was_training)
    return total / count
    """, hint="weight every token the same"),
    mistake("evaluate", "mode read after model.eval()", """
    model.eval()
    was_training = model.training
    total, count = 0.0, 0
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            n = int(loss_mask.sum())
            total += lm_loss(model(inputs), targets, loss_mask).item() * n
            count += n
    model.train(was_training)
    return total / count
    """, hint="remember model.training first"),
]

ALTERNATIVES = [
    # -- added in the adversarial review
    alternative("make_batch", "pad_sequence and a length mask", """
    from torch.nn.utils.rnn import pad_sequence
    seqs = [torch.as_tensor(list(seq), dtype=torch.long) for seq in sequences]
    inputs = pad_sequence([s[:-1] for s in seqs], batch_first=True, padding_value=pad_id)
    targets = pad_sequence([s[1:] for s in seqs], batch_first=True, padding_value=pad_id)
    lengths = torch.tensor([len(s) - 1 for s in seqs])
    loss_mask = torch.arange(inputs.shape[1]).unsqueeze(0) < lengths.unsqueeze(1)
    return inputs, targets, loss_mask
    """),
    alternative("lm_loss", "per-row sums weighted by row counts, float64 inside", """
    log_probs = torch.log_softmax(logits.double(), dim=-1)
    picked = torch.gather(log_probs, 2, targets.unsqueeze(2)).squeeze(2)
    mask = loss_mask.double()
    per_row = -(picked * mask).sum(dim=1)
    return (per_row.sum() / mask.sum()).to(logits.dtype)
    """),
    alternative("train_step", "clip over the optimizer's parameter groups", _STEP_FORWARD + """
    model.train()
    for group in optimizer.param_groups:
        for p in group["params"]:
            p.grad = None
    logits = model(inputs)
    loss = lm_loss(logits, targets, loss_mask)
    loss.backward()
    params = [p for group in optimizer.param_groups for p in group["params"]]
    torch.nn.utils.clip_grad_norm_(params, max_grad_norm)
    optimizer.step()
    return loss.item()
    """),
    alternative("evaluate", "a generator of sums and counts, mask.count_nonzero", """
    was_training = model.training
    model.eval()
    with torch.no_grad():
        parts = [(float(torch.nn.functional.cross_entropy(
                    model(x)[m], y[m], reduction="sum")), int(m.count_nonzero()))
                 for x, y, m in batches]
    model.train(was_training)
    return sum(p for p, _ in parts) / sum(n for _, n in parts)
    """),
    alternative("make_batch", "list comprehensions and torch.tensor", """
    L = max(len(seq) for seq in sequences) - 1
    rows_in = [list(seq[:-1]) + [pad_id] * (L - len(seq) + 1) for seq in sequences]
    rows_out = [list(seq[1:]) + [pad_id] * (L - len(seq) + 1) for seq in sequences]
    mask = [[t < len(seq) - 1 for t in range(L)] for seq in sequences]
    return torch.tensor(rows_in), torch.tensor(rows_out), torch.tensor(mask)
    """),
    alternative("make_batch", "pad the full sequences, then slice; mask from the inputs", """
    L = max(len(seq) for seq in sequences)
    ids = torch.full((len(sequences), L), pad_id)
    lengths = torch.tensor([len(seq) for seq in sequences])
    for b, seq in enumerate(sequences):
        ids[b, :len(seq)] = torch.as_tensor(seq)
    loss_mask = torch.arange(L - 1)[None, :] < (lengths[:, None] - 1)
    return ids[:, :-1].clone(), ids[:, 1:].clone(), loss_mask
    """),
    alternative("lm_loss", "boolean indexing of the real targets", """
    return torch.nn.functional.cross_entropy(logits[loss_mask], targets[loss_mask])
    """),
    alternative("lm_loss", "log_softmax, gather and masked_select", """
    log_probs = torch.log_softmax(logits, dim=-1)  # (B, L, V)
    picked = log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)  # (B, L)
    return -torch.masked_select(picked, loss_mask).mean()
    """),
    alternative("lm_loss", "classes on axis 1 and a float mask", """
    nll = torch.nn.functional.cross_entropy(logits.permute(0, 2, 1), targets, reduction="none")
    weights = loss_mask.float()
    return torch.sum(nll * weights) / torch.sum(weights)
    """),
    alternative("train_step", "set_to_none and key padding mask", _STEP_FORWARD + """
    optimizer.zero_grad(set_to_none=True)
    logits = model(inputs, key_padding_mask=loss_mask)
    loss = lm_loss(logits, targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(list(model.parameters()), max_norm=max_grad_norm)
    optimizer.step()
    return float(loss.detach())
    """),
    alternative("train_step", "model.zero_grad and the loss returned as a 0-d tensor", """
    inputs, targets, loss_mask = batch
    model.zero_grad()
    loss = lm_loss(model(inputs), targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss.detach()
    """),
    alternative("evaluate", "inference_mode and per-token sums", """
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
    return (torch.stack(losses).sum() / torch.stack(tokens).sum()).item()
    """),
    alternative("evaluate", "try/finally restores the mode", """
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            pairs = [(lm_loss(model(x), y, m) * m.sum(), m.sum()) for x, y, m in batches]
    finally:
        model.train(was_training)
    return float(sum(p[0] for p in pairs) / sum(p[1] for p in pairs))
    """),
    # -- added in the round on correct answers written otherwise (types, modes, optimizers)
    alternative("make_batch", "F.pad each row, then torch.stack; a list returned", """
    import torch.nn.functional as F
    L = max(len(seq) for seq in sequences) - 1
    rows_x, rows_y, rows_m = [], [], []
    for seq in sequences:
        ids = torch.as_tensor(seq, dtype=torch.long)
        gap = L - (len(ids) - 1)
        rows_x.append(F.pad(ids[:-1], (0, gap), value=pad_id))
        rows_y.append(F.pad(ids[1:], (0, gap), value=pad_id))
        rows_m.append(F.pad(torch.ones(len(ids) - 1, dtype=torch.bool), (0, gap), value=False))
    return [torch.stack(rows_x), torch.stack(rows_y), torch.stack(rows_m)]
    """),
    alternative("make_batch", "numpy arrays converted with torch.from_numpy", """
    import numpy as np
    B, L = len(sequences), max(len(seq) for seq in sequences) - 1
    ids = np.full((B, L + 1), pad_id, dtype=np.int64)
    mask = np.zeros((B, L), dtype=bool)
    for b, seq in enumerate(sequences):
        ids[b, :len(seq)] = seq
        mask[b, :len(seq) - 1] = True
    targets = np.where(mask, ids[:, 1:], pad_id)
    return torch.from_numpy(ids[:, :-1]), torch.from_numpy(targets), torch.from_numpy(mask)
    """),
    alternative("make_batch", "padded ids, masked_fill of both shifted views", """
    lengths = torch.tensor([len(seq) for seq in sequences])
    width = int(lengths.max())
    ids = torch.zeros(len(sequences), width, dtype=torch.long)
    for b, seq in enumerate(sequences):
        ids[b, :len(seq)] = torch.tensor(seq)
    loss_mask = torch.arange(width - 1).expand(len(sequences), -1) < (lengths - 1).unsqueeze(1)
    inputs = ids[:, :-1].masked_fill(~loss_mask, pad_id)
    targets = ids[:, 1:].masked_fill(~loss_mask, pad_id)
    return inputs, targets, loss_mask
    """),
    alternative("make_batch", "int32 ids and non-contiguous transposed outputs", """
    L = max(len(seq) for seq in sequences) - 1
    inputs_t = torch.full((L, len(sequences)), pad_id, dtype=torch.int32)
    targets_t = torch.full((L, len(sequences)), pad_id, dtype=torch.int32)
    mask_t = torch.zeros((L, len(sequences)), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        n = len(seq) - 1
        inputs_t[:n, b] = torch.tensor(seq[:-1], dtype=torch.int32)
        targets_t[:n, b] = torch.tensor(seq[1:], dtype=torch.int32)
        mask_t[:n, b] = True
    return inputs_t.T, targets_t.T, mask_t.T
    """),
    alternative("make_batch", "itertools.zip_longest over the shifted lists", """
    from itertools import zip_longest
    heads = [list(seq)[:-1] for seq in sequences]
    tails = [list(seq)[1:] for seq in sequences]
    inputs = torch.tensor(list(zip_longest(*heads, fillvalue=pad_id))).T.contiguous()
    targets = torch.tensor(list(zip_longest(*tails, fillvalue=pad_id))).T.contiguous()
    lengths = torch.tensor([len(h) for h in heads])
    loss_mask = torch.arange(inputs.shape[1]) < lengths[:, None]
    return tuple([inputs.long(), targets.long(), loss_mask])
    """),
    alternative("lm_loss", "nll_loss on log_softmax, torch.where on the mask", """
    log_probs = torch.nn.functional.log_softmax(logits, dim=-1)
    nll = torch.nn.functional.nll_loss(log_probs.reshape(-1, logits.shape[-1]),
                                       targets.reshape(-1), reduction="none")
    nll = torch.where(loss_mask.reshape(-1), nll, torch.zeros_like(nll))
    return nll.sum() / loss_mask.sum()
    """),
    alternative("lm_loss", "ignore_index after masked_fill, default mean reduction", """
    masked = targets.masked_fill(~loss_mask, -100)
    return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)),
                                             masked.reshape(-1), ignore_index=-100)
    """),
    alternative("lm_loss", "logsumexp minus the target logit, float64 returned", """
    z = logits.double()
    nll = z.logsumexp(dim=-1) - z.gather(-1, targets[..., None]).squeeze(-1)  # (B, L)
    mask = loss_mask.double()
    return (nll * mask).sum() / mask.sum()
    """),
    alternative("lm_loss", "one-hot targets and ratio of means", """
    V = logits.shape[-1]
    one_hot = torch.nn.functional.one_hot(targets, V).to(logits.dtype)  # (B, L, V)
    nll = -(one_hot * torch.log_softmax(logits, dim=-1)).sum(dim=-1)  # (B, L)
    weights = loss_mask.float()
    return (nll * weights).mean() / weights.mean()
    """),
    alternative("lm_loss", "einsum of mask and losses, count clamped", """
    nll = torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets, reduction="none")
    weights = loss_mask.to(nll.dtype)
    return torch.einsum("bl,bl->", nll, weights) / weights.sum().clamp(min=1.0)
    """),
    alternative("train_step", "manual global-norm clipping with the grads' norms",
                _STEP_FORWARD + """
    model.train()
    optimizer.zero_grad()
    loss = lm_loss(model(inputs), targets, loss_mask)
    loss.backward()
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    total = torch.sqrt(sum((g.detach() ** 2).sum() for g in grads))
    scale = torch.clamp(max_grad_norm / (total + 1e-6), max=1.0)
    for g in grads:
        g.mul_(scale)
    optimizer.step()
    return float(loss)
    """),
    alternative("train_step", "torch.autograd.grad assigned to .grad, clip via vector norm",
                _STEP_FORWARD + """
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
    return loss.item()
    """),
    alternative("train_step", "param groups zeroed and clipped, mode restored, numpy loss",
                _STEP_FORWARD + """
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
    return loss.detach().cpu().numpy()
    """),
    alternative("train_step", "zero_grad(set_to_none=False) and cross_entropy inline",
                _STEP_FORWARD + """
    optimizer.zero_grad(set_to_none=False)
    logits = model(inputs)
    loss = torch.nn.functional.cross_entropy(logits[loss_mask.bool()], targets[loss_mask.bool()])
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss.item()
    """),
    alternative("train_step", "batch moved to the model's device, zero_grad at the end",
                _STEP_FORWARD + """
    device = next(model.parameters()).device
    inputs, targets, loss_mask = (t.to(device) for t in (inputs, targets, loss_mask))
    model.train()
    model.zero_grad(set_to_none=True)
    loss = lm_loss(model(inputs), targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(tuple(model.parameters()), max_grad_norm)
    optimizer.step()
    value = loss.item()
    optimizer.zero_grad()
    return value
    """),
    alternative("evaluate", "float64 tensors accumulated, numpy scalar returned", """
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
    return np.float64(total / count)
    """),
    alternative("evaluate", "set_grad_enabled(False), mode restored per submodule", """
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
    return nll_sum / n_real
    """),
    alternative("evaluate", "a no_grad-decorated helper and lm_loss times count", """
    @torch.no_grad()
    def batch_sum(x, y, m):
        return lm_loss(model(x), y, m) * m.sum()

    was_training = model.training
    model.train(False)
    sums = [batch_sum(x, y, m) for x, y, m in batches]
    counts = [m.sum() for _, _, m in batches]
    if was_training:
        model.train()
    return (torch.stack(sums).sum() / torch.stack(counts).sum()).item()
    """),
    alternative("evaluate", "ignore_index and reduction='sum', a 0-d tensor returned", """
    was_training = model.training
    model.eval()
    total, count = torch.tensor(0.0), torch.tensor(0)
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            masked = targets.masked_fill(~loss_mask, -100)
            total = total + torch.nn.functional.cross_entropy(
                model(inputs).transpose(1, 2), masked, ignore_index=-100, reduction="sum")
            count = count + loss_mask.count_nonzero()
    model.train(was_training)
    return total / count
    """),
    alternative("evaluate", "weights frozen with requires_grad_(False), then restored", """
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
    return total / count
    """),
    alternative("evaluate", "a deep copy scored in eval mode, the original untouched", """
    import copy
    frozen = copy.deepcopy(model).eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            n = int(loss_mask.sum())
            total += float(lm_loss(frozen(inputs), targets, loss_mask)) * n
            count += n
    return total / count
    """),
]

# Structural slips: the body written, but no `return`.
MISTAKES += [
    mistake("train_step", "no return: the loss never handed back", _STEP_FORWARD + """
    optimizer.zero_grad()
    loss = lm_loss(model(inputs), targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    """, hint="returned None"),
]
