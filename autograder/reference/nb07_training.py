"""Reference answers for notebook 07, written the way the exercises ask (PyTorch).

Used by the hidden tests and the project's own tests; never shipped to students.
"""

import torch
import torch.nn.functional as F

ANSWERS = {
    # name: (options, correct letter, explanation shown when the answer is wrong)
    "answer_teacher_forcing": ("ABC", "C", "with teacher forcing every position reads the TRUE "
                               "earlier tokens, itself included: position 2 reads <BOS> please "
                               "send and predicts the."),
    "answer_token_weight": ("ABC", "B", "lm_loss adds the losses of all real targets of the batch "
                            "and divides by their number: each real token weighs the same, "
                            "whichever email it belongs to."),
    "answer_parallel": ("ABC", "A", "teacher forcing gives every input in advance and the causal "
                        "mask keeps each row to its prefix, so all L rows are computed at once; an "
                        "RNN's h_t needs h_{t-1}."),
    "answer_clip_order": ("ABC", "B", "clipping rescales the gradients that backward() has just "
                          "computed, so it comes after backward() and before step(), the call that "
                          "uses them."),
    "answer_eval_mode": ("ABC", "C", "model.eval() switches off training-only behaviour such as "
                         "dropout; no_grad() skips recording a graph for a backward pass that "
                         "never comes. Neither one changes the weights."),
    "answer_remove_mask": ("ABC", "C", "without the causal mask, position t attends to position t "
                           "+ 1, whose input IS its target, and copies it; causal rows computed "
                           "together and LayerNorm leak nothing."),
    "answer_length_buckets": ("ABC", "A", "grouping by length only cuts padding, positions "
                              "computed and then dropped by the loss mask; every real token "
                              "already weighs the same, and the masks handle any lengths."),
    "answer_attention_explains": ("ABC", "B", "a weight shows where a head reads from; the output "
                                  "also depends on values, other heads, MLPs and the residual "
                                  "path: inspectable, not automatically a faithful explanation."),
}


def make_batch(sequences, pad_id):
    L = max(len(seq) for seq in sequences) - 1  # inputs and targets are one shorter
    B = len(sequences)
    inputs = torch.full((B, L), pad_id, dtype=torch.long)
    targets = torch.full((B, L), pad_id, dtype=torch.long)
    loss_mask = torch.zeros((B, L), dtype=torch.bool)
    for row, seq in enumerate(sequences):
        ids = torch.as_tensor(list(seq), dtype=torch.long)
        n = len(ids) - 1  # predicted tokens of this sequence
        inputs[row, :n] = ids[:-1]
        targets[row, :n] = ids[1:]
        loss_mask[row, :n] = True
    return inputs, targets, loss_mask


def lm_loss(logits, targets, loss_mask):
    safe = torch.where(loss_mask.bool(), targets.long(), 0)  # (B, L): padded ids need not exist
    nll = F.cross_entropy(logits.flatten(0, 1), safe.flatten(), reduction="none")  # (B*L,)
    mask = loss_mask.flatten().to(nll.dtype)  # (B*L,)
    return (nll * mask).sum() / mask.sum()


def train_step(model, optimizer, batch, max_grad_norm):
    inputs, targets, loss_mask = batch
    model.train()
    optimizer.zero_grad()
    logits = model(inputs)  # (B, L, V); causal mask + right padding: no key mask needed
    loss = lm_loss(logits, targets, loss_mask)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss.item()


def evaluate(model, batches):
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            logits = model(inputs)  # (B, L, V)
            nll = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction="none")
            total += float((nll * loss_mask.flatten()).sum())
            count += int(loss_mask.sum())
    model.train(was_training)
    return total / count
