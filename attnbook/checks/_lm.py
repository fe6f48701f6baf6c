"""Language-model helpers the checks of notebooks 07, 08 and 10 share."""

from __future__ import annotations

import functools

import torch
import torch.nn.functional as F

from attnbook.demos.nb07 import single_thread
from attnbook.lm.model import LMConfig, TransformerLM
from attnbook.tolerance import CloseKwargs

TOL: CloseKwargs = {"rtol": 1e-4, "atol": 1e-5}  # float32 models


def one_thread(check):
    """Run a check on one CPU thread: its models are tiny, and a busy machine slows
    multi-threaded small kernels far more than it slows one thread."""

    @functools.wraps(check)
    def run(*args, **kwargs):
        with single_thread():
            return check(*args, **kwargs)

    return run


def ids(values) -> torch.Tensor:
    """Token ids as an int64 tensor."""
    return torch.tensor(values, dtype=torch.long)


def padded_ids(rows: list[list[int]]) -> torch.Tensor:
    """Token ids of rows of different lengths, padded with 0 on the right."""
    width = max(len(r) for r in rows)
    return ids([r + [0] * (width - len(r)) for r in rows])


def worked_batches() -> list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
    """Two batches of (inputs, targets, loss_mask) with 4 and 1 real targets; padding (0) on
    the right, masked."""
    first = (
        ids([[1, 3, 3], [1, 2, 0]]),
        ids([[3, 3, 2], [2, 0, 0]]),
        torch.tensor([[True, True, True], [True, False, False]]),
    )
    second = (ids([[1]]), ids([[1]]), torch.tensor([[True]]))
    return [first, second]


def pad3_batches() -> list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
    """One batch of 4 real targets padded with 3, a real token id, one real target being 0:
    ignore_index=0, or counting targets != 0, miscounts it."""
    mask = torch.tensor([[True, True, True], [True, False, False]])
    return [(ids([[1, 3, 0], [1, 3, 3]]), ids([[3, 0, 2], [2, 3, 3]]), mask)]


class SharedLog(list):
    """A list that copies of its model share: a learner's function that scores a deep copy
    of the model it was given still leaves its forward passes in this log."""

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


class ObservedLM(TransformerLM):
    """The reference decoder, noting for every forward pass whether it ran in training mode
    and built an autograd graph (`forward_log`): what a check asks of evaluate and
    train_step, read the same way in a notebook and in the grader."""

    def __init__(self, config: LMConfig) -> None:
        super().__init__(config)
        self.forward_log: list[dict] = SharedLog()

    def forward(self, *args, **kwargs):
        out = super().forward(*args, **kwargs)
        # requires_grad tells a graph apart however it was avoided: no_grad, inference
        # mode, set_grad_enabled(False) or frozen weights
        self.forward_log.append({"training": bool(self.training), "graph": bool(out.requires_grad)})
        return out


def hook_count(model) -> int:
    """Forward hooks and forward pre-hooks registered on the model and its submodules."""
    return sum(len(m._forward_hooks) + len(m._forward_pre_hooks) for m in model.modules())


def _note_hooks(module, prefix, keep_vars) -> None:
    module.hooks_left.fill_(hook_count(module))


class HookCountingLM(ObservedLM):
    """An `ObservedLM` whose state carries how many forward hooks it holds (`hooks_left`,
    written whenever its state is read): the grader rebuilds the model that comes back from
    a learner's call from its state alone, so a hook left behind travels as this number."""

    def __init__(self, config: LMConfig) -> None:
        super().__init__(config)
        self.register_buffer("hooks_left", torch.zeros((), dtype=torch.long))
        self.register_state_dict_pre_hook(_note_hooks)


class ForwardFailed(RuntimeError):
    """The failure a `TrippingLM` raises on purpose."""


class TrippingLM(HookCountingLM):
    """A `HookCountingLM` whose forward pass fails while any forward hook is on it: the
    check of an ablation that works through hooks sees the model its code leaves behind
    when a forward pass raises (hooks removed, mode restored, or not)."""

    def forward(self, *args, **kwargs):
        if hook_count(self):
            raise ForwardFailed(
                "this forward pass fails on purpose (the check's model fails whenever a hook "
                "is on it)"
            )
        return super().forward(*args, **kwargs)


def bias_model(logits) -> TransformerLM:
    """A decoder that ignores its input: every position's logits equal ``logits`` exactly.

    All weights are zero, so the residual stream stays 0, LayerNorm of 0 is its bias (0),
    and the head returns its own bias.
    """
    logits = torch.as_tensor(logits, dtype=torch.float32)
    config = LMConfig(
        vocab_size=len(logits), d_model=8, n_heads=2, n_layers=1, max_len=16, positions="none"
    )
    with torch.random.fork_rng(devices=[]):  # every weight is set below: the global state stays
        model = ObservedLM(config).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
        model.head.bias.copy_(logits)
    return model


def mean_nll(model, batches) -> float:
    """The summed nll of the real targets of all (inputs, targets, loss_mask) batches over
    their count, in float64, without gradients."""
    total, count = 0.0, 0
    with torch.no_grad():
        for inputs, targets, loss_mask in batches:
            logits = model(inputs).double().flatten(0, 1)
            nll = F.cross_entropy(logits, targets.flatten(), reduction="none")
            total += float((nll * loss_mask.flatten()).sum())
            count += int(loss_mask.sum())
    return total / count
