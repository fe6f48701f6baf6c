"""Teacher-forcing batches, a seeded batch iterator and the masked loss for the trainer.

A batch of token-id sequences (each ``<BOS> ... <EOS>``) becomes the decks' Message A /
Message B picture: inputs are ``ids[:-1]``, targets are ``ids[1:]``, both right-padded with
``<PAD>``; the loss mask is False on padded targets and the key padding mask is False on
padded inputs. The loss is the mean cross-entropy over the real targets of the whole batch
(every real token weighs the same, however the tokens are spread over the emails), in nats.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F


@dataclass
class Batch:
    """A padded teacher-forcing batch; all tensors have shape (B, L)."""

    inputs: torch.Tensor  # (B, L) int64: ids[:-1], padded
    targets: torch.Tensor  # (B, L) int64: ids[1:], padded
    loss_mask: torch.Tensor  # (B, L) bool: True on real targets
    key_padding_mask: torch.Tensor  # (B, L) bool: True on real inputs

    @property
    def n_tokens(self) -> int:
        """Number of real (scored) targets."""
        return int(self.loss_mask.sum())

    def to(self, device: torch.device | str) -> Batch:
        return Batch(*(t.to(device, non_blocking=True) for t in self.__dict__.values()))


def pad_batch(sequences: Sequence[Sequence[int]], pad_id: int = 0) -> Batch:
    """Teacher-forcing tensors for ``sequences`` (each at least 2 ids), padded to the longest.

    With right padding the key padding mask equals the loss mask: input ``t`` is real exactly
    when target ``t`` is.
    """
    if not sequences:
        raise ValueError("sequences: expected at least one sequence, got none")
    short = [i for i, s in enumerate(sequences) if len(s) < 2]
    if short:
        raise ValueError(f"sequences: sequence {short[0]} has fewer than 2 ids, nothing to predict")
    L = max(len(s) for s in sequences) - 1
    inputs = torch.full((len(sequences), L), pad_id, dtype=torch.long)  # (B, L)
    targets = torch.full((len(sequences), L), pad_id, dtype=torch.long)  # (B, L)
    for row, seq in enumerate(sequences):
        ids = torch.as_tensor(seq)
        if ids.dtype == torch.bool or ids.is_floating_point() or ids.is_complex():
            raise ValueError(
                f"sequences: expected integer token ids, sequence {row} holds {ids.dtype} "
                f"values: {list(seq)[:6]}"
            )
        inputs[row, : len(ids) - 1] = ids[:-1]
        targets[row, : len(ids) - 1] = ids[1:]
    lengths = torch.tensor([len(s) - 1 for s in sequences])  # (B,) predicted tokens per row
    real = torch.arange(L)[None, :] < lengths[:, None]  # (B, L)
    return Batch(inputs, targets, real, real.clone())


def masked_cross_entropy(
    logits: torch.Tensor,
    targets: torch.Tensor,
    loss_mask: torch.Tensor,
    n_tokens: int | float | None = None,
) -> torch.Tensor:
    """Summed cross-entropy (nats) of the real targets divided by ``n_tokens``.

    ``logits`` (B, L, V), ``targets`` (B, L), ``loss_mask`` (B, L) bool. ``n_tokens``
    defaults to the number of real targets here (the batch mean); a distributed rank passes
    the count of the whole global batch so that the ranks' losses add up to its mean.
    """
    if logits.dim() != 3 or logits.shape[:2] != targets.shape or targets.shape != loss_mask.shape:
        raise ValueError(
            f"logits, targets, loss_mask: expected (B, L, V), (B, L), (B, L), got "
            f"{tuple(logits.shape)}, {tuple(targets.shape)}, {tuple(loss_mask.shape)}"
        )
    per_token = F.cross_entropy(
        logits.float().flatten(0, 1), targets.flatten(), reduction="none"
    )  # (B*L,)
    total = (per_token * loss_mask.flatten()).sum()
    count = loss_mask.sum() if n_tokens is None else n_tokens
    return total / count


def epoch_order(n: int, seed: int, epoch: int, batch_size: int) -> list[list[int]]:
    """The full batches (lists of sequence indices) of one epoch: a function of (seed, epoch)."""
    generator = torch.Generator().manual_seed(seed * 1_000_003 + epoch)
    order = torch.randperm(n, generator=generator).tolist()
    return [order[i : i + batch_size] for i in range(0, n - batch_size + 1, batch_size)]


def _grouped(batches: list[list[int]], lengths: Sequence[int], group: int, seed: int, epoch: int):
    """Regroup runs of ``group`` batches so each batch holds emails of similar length.

    Less padding per batch (faster on a CPU); every email is still used once per epoch and the
    order of the regrouped batches is shuffled again.
    """
    generator = torch.Generator().manual_seed(seed * 1_000_003 + epoch + 7919)
    out = []
    for start in range(0, len(batches), group):
        chunk = [i for b in batches[start : start + group] for i in b]
        chunk.sort(key=lambda i: lengths[i])
        size = len(batches[start])
        regrouped = [chunk[i : i + size] for i in range(0, len(chunk), size)]
        out += [regrouped[k] for k in torch.randperm(len(regrouped), generator=generator)]
    return out


def batch_iterator(
    sequences: Sequence[Sequence[int]],
    batch_size: int,
    seed: int = 0,
    start_step: int = 0,
    pad_id: int = 0,
    rank: int = 0,
    world_size: int = 1,
    group_by_length: int = 0,
) -> Iterator[tuple[Batch, int]]:
    """Endless ``(batch, n_tokens_global)`` pairs, step ``start_step`` first.

    Each step draws a global batch of ``batch_size`` sequences (seeded shuffles, one per
    epoch, the last incomplete batch dropped); rank ``rank`` of ``world_size`` gets rows
    ``rank, rank + world_size, ...`` of it, and ``n_tokens_global`` counts the real targets
    of the whole global batch. The batch of a step depends only on (seed, step), so a resumed
    run sees exactly the batches the uninterrupted run would have seen.
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size: expected an int >= 1, got {batch_size!r}")
    if batch_size % world_size != 0:
        raise ValueError(f"batch_size: {batch_size} is not divisible by world_size {world_size}")
    per_epoch = len(sequences) // batch_size
    if per_epoch == 0:
        raise ValueError(f"batch_size: {batch_size} exceeds the {len(sequences)} sequences")
    lengths = [len(s) for s in sequences]
    epoch, position = divmod(start_step, per_epoch)
    while True:
        batches = epoch_order(len(sequences), seed, epoch, batch_size)
        if group_by_length > 1:
            batches = _grouped(batches, lengths, group_by_length, seed, epoch)
        for indices in batches[position:]:
            n_tokens = sum(lengths[i] - 1 for i in indices)
            shard = [sequences[i] for i in indices[rank::world_size]]
            yield pad_batch(shard, pad_id), n_tokens
        epoch, position = epoch + 1, 0


def batch_logits(model: torch.nn.Module, batch: Batch) -> torch.Tensor:
    """Logits (B, L, V) of a right-padded ``batch``, as every trainer and evaluator scores it.

    A causal model needs no key mask (a real token never reads the padding on its right, and
    SDPA keeps its fastest kernel); a model without the causal mask gets the batch's key
    padding mask, so that its real tokens do not attend to the padding.
    """
    config = getattr(getattr(model, "module", model), "config", None)  # DDP wraps the model
    if config is not None and not getattr(config, "causal", True):
        return model(batch.inputs, key_padding_mask=batch.key_padding_mask)
    return model(batch.inputs)


@torch.no_grad()
def validation_loss(
    model: torch.nn.Module,
    sequences: Sequence[Sequence[int]],
    batch_size: int = 256,
    pad_id: int = 0,
    device: torch.device | str | None = None,
    rank: int = 0,
    world_size: int = 1,
    autocast: contextlib.AbstractContextManager | None = None,
) -> float:
    """Mean cross-entropy (nats per real target) of ``model`` on ``sequences``.

    Sequences are sorted by length so batches carry little padding; distributed ranks each
    score a share and add up their sums (needs an initialised process group).
    """
    device = device or next(model.parameters()).device
    was_training = model.training
    model.eval()
    order = sorted(range(len(sequences)), key=lambda i: len(sequences[i]))[rank::world_size]
    total = torch.zeros(2, dtype=torch.float64, device=device)  # (nll sum, token count)
    for start in range(0, len(order), batch_size):
        batch = pad_batch([sequences[i] for i in order[start : start + batch_size]], pad_id)
        batch = batch.to(device)
        with autocast if autocast is not None else contextlib.nullcontext():
            logits = batch_logits(model, batch)  # (B, L, V)
        n = batch.n_tokens
        total[0] += masked_cross_entropy(logits, batch.targets, batch.loss_mask).double() * n
        total[1] += n
    if world_size > 1:
        torch.distributed.all_reduce(total)
    model.train(was_training)
    return float(total[0] / total[1]) if total[1] > 0 else math.nan
