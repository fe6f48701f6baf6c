"""Checks for notebook 07, training: make_batch, lm_loss, train_step, evaluate, ablate_head.

Visible use: `check_train_step(train_step)` runs worked examples and properties on tiny
seeded decoders (one optimizer step of yours against one written out here, on a copy of the
same model). Hidden use: `check_train_step(train_step, reference=ref.train_step)` also
compares with the autograder's reference on random models, batches and optimizers.

A batch is the tuple ``(inputs, targets, loss_mask)`` that `make_batch` returns: two int64
tensors and a bool tensor, each (B, L), padded on the right.
"""

from __future__ import annotations

import copy
import functools
import math

import numpy as np
import torch
import torch.nn.functional as F

from attnbook.checks._cases import (
    Case,
    Part,
    Returns,
    Slips,
    one_number,
    probe_tolerance,
    run_cases,
    run_table,
    run_trials,
)
from attnbook.checks._core import (
    CheckRun,
    as_array,
    observe,
)
from attnbook.checks._lm import (
    TOL,
    ForwardFailed,
    HookCountingLM,
    ObservedLM,
    TrippingLM,
    bias_model,
    hook_count,
    ids,
    mean_nll,
    one_thread,
    pad3_batches,
    worked_batches,
)
from attnbook.lm.model import LMConfig, TransformerBlock, TransformerLM
from attnbook.lm.tokenizer import WordTokenizer
from attnbook.tolerance import CloseKwargs, Tolerance, magnitude_of, tolerance

__all__ = [
    "check_ablate_head",
    "check_evaluate",
    "check_lm_loss",
    "check_make_batch",
    "check_train_step",
]

KNOWN = Slips("nb07")
_TOKENS = WordTokenizer()


def _tiny_decoder(
    seed: int,
    vocab_size: int = 11,
    positions: str = "rope",
    n_layers: int = 1,
    dropout: float = 0.0,
) -> TransformerLM:
    config = LMConfig(vocab_size=vocab_size, d_model=16, n_heads=2, n_layers=n_layers,
                      max_len=16, positions=positions, dropout=dropout)  # fmt: skip
    with torch.random.fork_rng(devices=[]):  # drawn from `seed`: the global state stays
        torch.manual_seed(seed)
        return ObservedLM(config)


def _two_sizes(gen: torch.Generator) -> tuple[int, int]:
    """A batch size and a length, each in 1..7."""
    B, L = (int(v) for v in torch.randint(1, 8, (2,), generator=gen))
    return B, L


def _random_batch(gen: torch.Generator, B: int, L: int, V: int, pad_id: int = 0, low: int = 2):
    """A right-padded batch: lengths 1..L, real inputs in 3..V-1 and targets in low..V-1
    (low 0: a real target may be 0 or pad_id, as with GPT-2's <EOS> padding), padding masked."""
    lengths = torch.randint(1, L + 1, (B,), generator=gen)
    lengths[int(torch.randint(0, B, (1,), generator=gen))] = L  # the longest fills the batch
    mask = torch.arange(L)[None, :] < lengths[:, None]  # (B, L)
    inputs = torch.randint(3, V, (B, L), generator=gen).masked_fill(~mask, pad_id)
    targets = torch.randint(low, V, (B, L), generator=gen).masked_fill(~mask, pad_id)
    return inputs, targets, mask


# ---------------------------------------------------------------------------------------
# make_batch
# ---------------------------------------------------------------------------------------
HINT_SHIFT = (
    "teacher forcing: inputs are ids[:-1] (everything but the last token) and targets are ids[1:] "
    "(everything but the first), so target t is the token after input t"
)
HINT_SHIFTED_WRONG_WAY = HINT_SHIFT + "; the model reads the past and predicts the future"


HINT_TENSORS = (
    "build the tensors with torch.full / torch.zeros / torch.tensor so the model can read them"
)
HINT_BATCH_SHAPE = (
    "one row per sequence; L = (length of the longest sequence) - 1, because "
    "inputs drop the last id and targets the first"
)
HINT_LONG = "use dtype=torch.long"
HINT_BOOL_MASK = "use dtype=torch.bool (True = a real target)"
HINT_LOSS_MASK_WHERE = "loss_mask is True exactly where targets holds a real token"


def _batch(sequences, pad_id, sliced=False):
    """The right batch. `sliced`: the other right form, each whole sequence padded and then
    shifted, so a short row's <EOS> is an input at its first padded position, one that no
    real target reads."""
    L = max(len(s) for s in sequences) - 1
    full = torch.tensor([list(s) + [pad_id] * (L + 1 - len(s)) for s in sequences])
    mask = torch.tensor([[t < len(s) - 1 for t in range(L)] for s in sequences])
    inputs, targets = full[:, :-1].clone(), full[:, 1:].clone()
    if not sliced:
        inputs[~mask] = pad_id
    return inputs, targets, mask


def _batch_types(run: CheckRun, case: Case, seen) -> None:
    """Three tensors: integer ids and a bool mask (a tuple of another length is the
    table's to name)."""
    if not (isinstance(seen, tuple | list) and len(seen) == 3):
        return
    for label, value in zip(_BATCH_PARTS, seen):
        run.expect_true(
            isinstance(value, torch.Tensor),
            f"{case.call}: {label} is a {type(value).__name__}; expected a torch tensor.",
            hint=HINT_TENSORS,
        )
        wrong = (
            value.dtype != torch.bool
            if label == "loss_mask"
            else (value.dtype.is_floating_point or value.dtype == torch.bool)
        )
        run.expect_true(
            not wrong,
            f"{case.call}: {label} has dtype {value.dtype}; expected "
            + ("torch.bool." if label == "loss_mask" else "integer token ids."),
            hint=HINT_BOOL_MASK if label == "loss_mask" else HINT_LONG,
        )


_SLICED = functools.partial(_batch, sliced=True)
_BATCH_PARTS = ("inputs", "targets", "loss_mask")
_BATCH_RETURNS = Returns(
    tuple(
        Part(label, i, what=label, shape_hint=HINT_BATCH_SHAPE,
             hint=HINT_LOSS_MASK_WHERE if label == "loss_mask" else HINT_SHIFT)
        for i, label in enumerate(_BATCH_PARTS)
    ),
    hint="return the tuple (inputs, targets, loss_mask)",
)  # fmt: skip


def _batch_case(case_id: str, call: str, sequences, pad_id: int, expect=None) -> Case:
    return Case(case_id, call, (sequences, pad_id), expect=expect, returns=_BATCH_RETURNS,
                before=_batch_types, whole=True, also=_SLICED)  # fmt: skip


HINT_CRASH_MAKE_BATCH = (
    "the sequences differ in length: take L from the LONGEST one, "
    "max(len(seq) for seq in sequences) - 1 (torch.tensor(sequences) needs "
    "equal lengths), and write each row's own n = len(seq) - 1 ids"
)
HINT_CRASH_LOSS = (
    "flatten the (B, L, V) logits to (B * L, V) with logits.flatten(0, 1) (or reshape(-1, "
    "logits.shape[-1])) and the targets to (B * L,); take every size from the arguments"
)


HINT_BATCH_IN_PLACE = "build new tensors; do not append padding to the caller's lists"


_BATCH = "make_batch"
_EMAIL = [_TOKENS.encode("please send the report"), _TOKENS.encode("send report")]
_THREE = [[1, 5, 6, 2], [1, 4, 2], [1, 3, 3, 8, 3, 2]]
BATCH_CASES = (
    _batch_case("email", 'make_batch([Message A, Message B], pad_id=0) with Message A = "please '
                'send the report" and Message B = "send report", each between <BOS> and <EOS>',
                _EMAIL, _TOKENS.pad_id, expect=(
                    ids([_EMAIL[0][:-1], _EMAIL[1][:-1] + [0, 0]]),
                    ids([_EMAIL[0][1:], _EMAIL[1][1:] + [0, 0]]),
                    torch.tensor([[True] * 5, [True, True, True, False, False]]))),
    _batch_case("three", f"make_batch({_THREE}, pad_id=7)", _THREE, 7, expect=_batch),
    _batch_case("one", "make_batch([[1, 2]], pad_id=0): one sequence, one target", [[1, 2]], 0,
                expect=(ids([[1]]), ids([[2]]), torch.tensor([[True]]))),
    # GPT-2 setups pad with the <EOS> id: a target equal to pad_id can be real
    _batch_case("pad is eos", "make_batch([[1, 5, 2], [1, 2]], pad_id=2): the padding id is "
                "also the <EOS> id (2), as in GPT-2 setups", [[1, 5, 2], [1, 2]], 2,
                expect=(ids([[1, 5], [1, 2]]), ids([[5, 2], [2, 2]]),
                        torch.tensor([[True, True], [True, False]]))),
    _batch_case("pad is real", "make_batch([[1, 5, 5, 2], [1, 2]], pad_id=5): 5 is also a real "
                "input", [[1, 5, 5, 2], [1, 2]], 5, expect=_batch),
    Case("empty", "make_batch([], pad_id=0)", ([], 0), raises=ValueError,
         mentions=("sequences",)),
    Case("one id", "make_batch([[1, 5, 2], [1]], pad_id=0)", ([[1, 5, 2], [1]], 0),
         raises=ValueError, mentions=("sequences[1]",)),
)  # fmt: skip


def _batch_trial(rng: np.random.Generator, seed: int) -> Case:
    """1 to 5 sequences of 2 to 10 ids, padded with 0, 3, 50 or the <EOS> id 2."""
    B = int(rng.integers(1, 6))
    pad_id = int(rng.choice([0, 0, 2, 3, 50]))
    sequences = [
        [1] + [int(v) for v in rng.integers(4, 40, size=int(rng.integers(0, 9)))] + [2]
        for _ in range(B)
    ]
    call = f"make_batch on {B} random sequences, pad_id={pad_id} (seed {seed})"
    return _batch_case("trial", call, sequences, pad_id)


@one_thread
def check_make_batch(make_batch, reference=None, trials: int = 10) -> None:
    """Teacher forcing with right padding: the worked emails, three rows padded with 7, one
    sequence, two input checks (the table `BATCH_CASES`), then random trials against the
    reference. Padding the whole sequences and then slicing is right too."""
    run = CheckRun(make_batch, crash_hint=HINT_CRASH_MAKE_BATCH, in_place_hint=HINT_BATCH_IN_PLACE)
    run_table(run, _BATCH, BATCH_CASES, KNOWN, reference, trials, _batch_trial)


# ---------------------------------------------------------------------------------------
# lm_loss
# ---------------------------------------------------------------------------------------
HINT_WEIGHT = (
    "every real target of the batch weighs the same: add the losses of all real targets and divide "
    "by their number (loss_mask.sum()), not by the number of sequences or positions"
)


HINT_MASK_BEFORE_SUM = "multiply the per-token losses by loss_mask before summing"
HINT_FIRST_ROW_ONLY = "score every row of the batch: flatten (B, L, V) to (B * L, V), not logits[0]"
HINT_WEIGHT_OR_FIRST_ROW = f"{HINT_WEIGHT}; {HINT_FIRST_ROW_ONLY}"


HINT_LOSS_SCALAR = "return a scalar: the mean loss over all real targets"


def _worked_loss_inputs() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """B = 2, L = 3, V = 4: row 0 has 3 real targets, row 1 one (then two padded)."""

    def dist(target, p):
        row = torch.full((4,), (1 - p) / 3)
        row[target] = p
        return row

    probs = torch.stack(
        [
            torch.stack([dist(1, 0.5), dist(2, 0.25), dist(3, 0.125)]),
            torch.stack([dist(3, 0.5), dist(0, 0.9), dist(0, 0.9)]),
        ]
    )  # (2, 3, 4)
    targets = ids([[1, 2, 3], [3, 0, 0]])
    mask = torch.tensor([[True, True, True], [True, False, False]])
    return probs.log(), targets, mask


HINT_LOSS_IN_PLACE = (
    "build new tensors (torch.where, masked_fill without _) instead of "
    "writing into targets or logits: the caller still needs them"
)
HINT_LOSS_WORKED = (
    "loss = (ln 2 + ln 4 + ln 8 + ln 2) / 4: the mean of -log p over the 4 real targets"
)
HINT_PAD_ID_IRRELEVANT = "a padded target's id must not matter: only real targets count"
HINT_LOSS_TENSOR = "return a 0-d tensor (no .item() or float() inside lm_loss)"
HINT_LOG_OF_SOFTMAX = (
    "log(softmax(x)) underflows to log(0) = -inf for large logits: use "
    "torch.log_softmax or F.cross_entropy"
)


def _loss_case(
    case_id: str, call: str, logits, targets, loss_mask, expect, hint=None, finite=True, then=None
) -> Case:
    return Case(case_id, call, (logits, targets, loss_mask), expect=expect, hint=hint,
                finite=finite, scalar=True, shape_hint=HINT_LOSS_SCALAR, what="loss",
                then=then)  # fmt: skip


def _trains_on_real_targets(run: CheckRun, case: Case, seen) -> None:
    """The loss is a tensor with a graph, and its gradient reaches no padded position."""
    logits, targets, mask = case.args
    logits = logits.clone().requires_grad_(True)
    done = run.observe(case.call, run.func, logits, targets, mask, backward=True)
    loss = done.result
    run.expect_true(
        isinstance(loss, torch.Tensor) and loss.requires_grad,
        f"{case.call} returned {type(loss).__name__} without a gradient; train_step needs "
        f"a tensor to call backward() on.",
        hint=HINT_LOSS_TENSOR,
    )
    assert done.grads is not None  # observe(..., backward=True) records them
    grad = done.grads[0].abs().sum(-1)  # (B, L): of the loss with respect to the logits
    run.expect_true(
        bool((grad[~mask] == 0).all()),
        f"{case.call}: the gradient reaches {int((grad[~mask] > 0).sum())} padded "
        f"position(s); padding must not train the model.",
        hint=HINT_MASK_BEFORE_SUM,
    )


_LOSS = "lm_loss"
_WORKED = (*_worked_loss_inputs(),)
_gen = torch.Generator().manual_seed(7)
_, _targets, _mask = _random_batch(_gen, 4, 6, 9)
_loss_logits = torch.randn(4, 6, 9, generator=_gen)
_big = 1000.0 * torch.randn(2, 3, 5, generator=_gen)
_tgt, _msk = ids([[1, 2, 3], [4, 0, 0]]), torch.tensor([[True] * 3, [True, False, False]])
LOSS_CASES = (
    _loss_case("worked", "lm_loss(logits, targets, loss_mask) on a (2, 3, 4) batch whose real "
               "targets have probabilities 0.5, 0.25, 0.125 (row 0) and 0.5 (row 1, then two "
               "padded targets)", *_WORKED, 7 * math.log(2) / 4, hint=HINT_LOSS_WORKED),
    # the same batch with its padded targets written as 3: the loss must not change
    _loss_case("padded as 3", "lm_loss(logits, targets, loss_mask) on the same batch, padded "
               "targets written as 3", _WORKED[0], torch.where(_WORKED[2], _WORKED[1], 3),
               _WORKED[2], 7 * math.log(2) / 4, hint=HINT_PAD_ID_IRRELEVANT),
    _loss_case("random", "lm_loss(logits, targets, loss_mask) on a random (4, 6, 9) batch with "
               "padding", _loss_logits, _targets, _mask, float(F.cross_entropy(_loss_logits[_mask],
               _targets[_mask])), then=_trains_on_real_targets),
    _loss_case("large", "lm_loss on logits of size about 1000", _big, _tgt, _msk,
               float(F.cross_entropy(_big[_msk], _tgt[_msk])), finite=HINT_LOG_OF_SOFTMAX),
    Case("logits 2-D", "lm_loss with logits of shape (6, 9)", (_loss_logits[0], _targets, _mask),
         raises=ValueError, mentions=("logits", "(6, 9)")),
    Case("targets short", "lm_loss with targets (4, 5) and logits (4, 6, 9)",
         (_loss_logits, _targets[:, :5], _mask[:, :5]), raises=ValueError,
         mentions=("targets", "(4, 5)", "(4, 6, 9)")),
)  # fmt: skip


def _loss_trial(rng: np.random.Generator, seed: int) -> Case:
    """A random padded batch (a row with no real target in every third trial when B > 1)
    and logits of size 1, 10 or 100 by the seed; the reference's value."""
    gen = torch.Generator().manual_seed(int(rng.integers(2**31)))
    B, L, V = (int(v) for v in rng.integers(1, 9, size=3))
    V += 3
    _, targets, mask = _random_batch(gen, B, L, V)
    if B > 1 and seed % 3 == 0:  # a row with no real target at all
        mask[0], targets[0] = False, 0
    logits = [1.0, 10.0, 100.0][seed % 3] * torch.randn(B, L, V, generator=gen)
    call = f"lm_loss on random logits ({B}, {L}, {V}) (seed {seed})"
    return _loss_case("trial", call, logits, targets, mask, None)


@one_thread
def check_lm_loss(lm_loss, reference=None, trials: int = 12) -> None:
    """The mean of -log p over the real targets: a worked batch, its padded ids changed, a
    random batch whose gradient must not reach padding, large logits, two input checks (the
    table `LOSS_CASES`), then random trials against the reference."""
    run_table(CheckRun(lm_loss, crash_hint=HINT_CRASH_LOSS, in_place_hint=HINT_LOSS_IN_PLACE),
              _LOSS, LOSS_CASES, KNOWN, reference, trials, _loss_trial)  # fmt: skip


# ---------------------------------------------------------------------------------------
# train_step
# ---------------------------------------------------------------------------------------


def _loss_of(model, batch) -> torch.Tensor:
    inputs, targets, mask = batch
    logits = model(inputs)  # (B, L, V)
    nll = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction="none")
    return (nll * mask.flatten()).sum() / mask.sum()


def _right_step(model, optimizer, batch, max_grad_norm) -> float:
    """One training step as notebook 07 writes it: the loss reported is the one that made the
    gradients."""
    optimizer.zero_grad()
    loss = _loss_of(model, batch)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss.item()


def _flat_params(model) -> torch.Tensor:
    return torch.cat([p.detach().flatten() for p in model.parameters()])


def _make_optimizer(kind: str, model):
    if kind == "adamw":
        return torch.optim.AdamW(model.parameters(), lr=1e-2)
    return torch.optim.SGD(model.parameters(), lr=0.0 if kind == "frozen" else 0.5)


def _sample(model) -> torch.Tensor:
    """64 of the model's parameters, the same ones each time: what the steps left, compact
    enough to store a slip's."""
    flat = _flat_params(model)
    picked = torch.randperm(len(flat), generator=torch.Generator().manual_seed(0))[:64]
    return flat[picked.sort().values]


def _train(step, start, kind: str, batches, max_grad_norm, stale: bool = False):
    """`step` (train_step) on each batch in turn, from a copy of `start` with a fresh
    optimizer (its parameters holding gradients of ones from before, when `stale`): (the
    values it returned, a sample of the parameters after the last step)."""
    model = copy.deepcopy(start)
    for p in model.parameters() if stale else ():
        p.grad = torch.ones_like(p)
    optimizer = _make_optimizer(kind, model)
    values = []
    for batch in batches:
        value, (model, optimizer, *_) = step(model, optimizer, batch, max_grad_norm)
        number = one_number(value)
        graph = isinstance(value, torch.Tensor) and value.requires_grad
        values.append(value if number is None or graph else number)
    return values, _sample(model)


# `_train` with the right step, called as `_train` calls a learner's: (result, args)
_RIGHT_STEPS = functools.partial(_train, lambda *args: (_right_step(*args), args))


HINT_RETURN_ITEM = (
    "return loss.item(): a float, so a training loop that stores the losses "
    "does not keep every step's graph alive"
)
HINT_STEP_ORDER = (
    "one step, in this order and each once: zero the gradients; the loss of model(inputs) by "
    "lm_loss over the whole batch; backward; clip the global norm of ALL the parameters' "
    "gradients to max_grad_norm (clip_grad_norm_); the optimizer's step"
)
HINT_ZERO_GRAD_FIRST = (
    "call optimizer.zero_grad() FIRST: the model may arrive holding gradients from before (an "
    "earlier backward), and backward() adds to them"
)
HINT_RETURN_STEP_LOSS = "return loss.item() of this step's forward pass"


def _steps_tolerance(start, n_steps: int, n_layers: int, kind: str) -> CloseKwargs:
    """How close the parameters after `n_steps` training steps must be to the reference's.

    The learner's steps may run in another process (the grader's kernel), on other kernels
    or threads, so each step's reductions round differently. Plain SGD passes a gradient's
    rounding error on scaled down by the learning rate, which `TOL` covers. AdamW divides
    each update by the gradient's own size, which passes the gradient's relative error on
    unshrunk: there the tolerance is the policy's for the stages of the steps (per step a
    forward and a backward pass, about 9 reductions a block and 3 for embedding, loss and
    head, and the clipping norm), on the parameters' size. Measured: 1.2e-5 between AVX2 and
    AVX-512 kernels after three AdamW steps; each catalogued slip that moves the
    parameters at all under AdamW moves them by at least 1.8 times this tolerance (the hidden
    trials' AdamW settings, twelve seeds)."""
    if kind != "adamw":
        return TOL
    depth = n_steps * (2 * (9 * n_layers + 3) + 1)
    size = max(1.0, magnitude_of(_flat_params(start)))
    return tolerance(torch.float32, magnitude=size, depth=depth).kwargs()


def _step_values(run: CheckRun, case: Case, seen) -> None:
    """Each step returned one number, not a tensor that keeps its graph alive."""
    for number, value in enumerate(seen[0], start=1):
        if isinstance(value, torch.Tensor) and value.requires_grad:
            run.fail(f"{case.call}, step {number} returned a tensor that still holds its graph.",
                     hint=HINT_RETURN_ITEM)  # fmt: skip
        if not isinstance(value, float):
            run.fail(f"{case.call}, step {number} returned {type(value).__name__}; expected one "
                     f"number.", hint=HINT_LOSS_SCALAR)  # fmt: skip


_STEP_RETURNS = Returns(
    (Part("parameters after the steps (64 of them)", 1, hint=HINT_STEP_ORDER),
     Part("losses returned", 0, hint=HINT_RETURN_STEP_LOSS)),
    hint=HINT_RETURN_STEP_LOSS,
)  # fmt: skip


def _steps_case(case_id: str, call: str, start, kind: str, batches, max_grad_norm: float,
                expect=None, hint=None, stale: bool = False) -> Case:  # fmt: skip
    """`len(batches)` steps in a row from `start`; the right result is computed when run."""
    tol = _steps_tolerance(start, len(batches), start.config.n_layers, kind)
    return Case(case_id, call, (start, kind, batches, max_grad_norm, stale), expect=expect,
                drive=_train, returns=_STEP_RETURNS, before=_step_values, whole=True,
                tolerance=Tolerance(**tol), hint=hint)  # fmt: skip


HINT_NO_GRAPH = (
    "the forward pass must build a graph for backward(): no torch.no_grad() or .detach() in "
    "train_step: the loss comes from model(inputs) through lm_loss, with the loss_mask"
)
HINT_RETURN_BATCH_LOSS = "return the masked mean loss of this batch, as lm_loss computes it"
HINT_EVAL_IN_TRAINING = (
    "do not call model.eval() in train_step: dropout must stay on while "
    "training (model.train(), if anything)"
)


def _expect_dropout_on(run: CheckRun) -> None:
    """A decoder with dropout, in training mode: every forward pass of the step runs in
    training mode (what a table cannot say)."""
    model = _tiny_decoder(2, dropout=0.3).train()
    call = "train_step(decoder_with_dropout in training mode, SGD, batch, 1.0)"
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    done = run.call_observed(call, model, optimizer, _step_batches[0], 1.0)
    modes = [entry.get("training") for entry in done.args_after[0].forward_log]
    run.expect_true(
        bool(modes) and all(modes),
        f"{call}: the forward pass ran in evaluation mode.",
        hint=HINT_EVAL_IN_TRAINING,
    )


_STEP = "train_step"
_gen = torch.Generator().manual_seed(17)
# the second batch pads with 3 and has real targets 0 and 3: the loss must come from loss_mask
_step_batches = [_random_batch(_gen, 3, 7, 11), _random_batch(_gen, 2, 6, 11, pad_id=3, low=0)]
_one_d = tuple(t[0] for t in _step_batches[0])
_frozen = _tiny_decoder(1)
STEP_CASES = (
    _steps_case("two steps", "train_step(model, SGD(lr=0.5), batch, max_grad_norm=0.05) on a tiny "
                "seeded decoder (V = 11, d = 16), two batches in a row (the second padded with 3)",
                _tiny_decoder(0), "sgd",
                _step_batches, 0.05, expect=_RIGHT_STEPS),
    _steps_case("lr 0", "train_step with lr = 0 on the worked batch", _frozen, "frozen",
                _step_batches[:1], 1.0, expect=_RIGHT_STEPS, hint=HINT_RETURN_BATCH_LOSS),
    _steps_case("stale gradients", "train_step(model, SGD(lr=0.5), batch, 1.0) on the tiny "
                "decoder, whose parameters arrive holding gradients (all ones) from before",
                _tiny_decoder(0), "sgd", _step_batches[:1], 1.0, expect=_RIGHT_STEPS,
                stale=True),
    Case("inputs 1-D", "train_step with inputs of shape (7,)", (_frozen, torch.optim.SGD(
         _frozen.parameters(), lr=0.1), _one_d, 1.0), raises=ValueError,
         mentions=("inputs", "(7,)")),
)  # fmt: skip


def _step_trial(rng: np.random.Generator, seed: int) -> Case:
    """A random decoder (each kind of positions, one or two blocks), SGD or AdamW, three
    random batches, a clipping threshold that bites hard, a little or not at all."""
    gen = torch.Generator().manual_seed(int(rng.integers(2**31)))
    kind = ["sgd", "adamw"][seed % 2]
    positions = ["rope", "learned", "sinusoidal", "none"][seed % 4]
    start = _tiny_decoder(int(rng.integers(2**31)), positions=positions, n_layers=1 + seed % 2)
    batches = [_random_batch(gen, *_two_sizes(gen), 11, pad_id, 0) for pad_id in (3, 0, 10)]
    clip = [0.05, 0.5, 100.0][seed % 3]
    call = (f"train_step on a random decoder ({positions} positions, {kind}, "
            f"max_grad_norm={clip}), 3 batches (seed {seed})")  # fmt: skip
    return _steps_case("trial", call, start, kind, batches, clip)


@one_thread
def check_train_step(train_step, reference=None, trials: int = 3) -> None:
    """Steps in a row on tiny seeded decoders, each compared with the right steps on a copy
    of the same model (parameters and returned losses), lr = 0, an input check (the table
    `STEP_CASES`), dropout left on, then random trials against the reference."""
    run = CheckRun(train_step, crash_hint=HINT_NO_GRAPH)
    run_cases(run, _STEP, STEP_CASES, KNOWN)
    _expect_dropout_on(run)
    run_trials(run, _STEP, reference, trials, _step_trial, KNOWN)
    run.done()


# ---------------------------------------------------------------------------------------
# evaluate
# ---------------------------------------------------------------------------------------


HINT_RESTORE_MODE = (
    "remember model.training first and restore it at the end: model.train(was_training)"
)
HINT_NO_GRAD = "wrap the loop in `with torch.no_grad():`; evaluation needs no graph"
HINT_RETURN_FLOAT = "return a float"
HINT_EVAL_RANDOM = (
    "a value that changes from call to call means dropout is on: call model.eval() before scoring"
)


def _no_graph(run: CheckRun, case: Case, seen) -> None:
    if isinstance(seen, torch.Tensor) and seen.requires_grad:
        run.fail(f"{case.call} returned a tensor that holds a graph.", hint=HINT_RETURN_FLOAT)


def _kept_mode(run: CheckRun, call: str, mode: bool, after, logged: int) -> list[dict]:
    """After `call`, the model is back in `mode`, and no forward pass it logged since entry
    `logged` recorded a graph; those passes."""
    words = {True: "training", False: "evaluation"}
    run.expect_true(
        after.training == mode,
        f"{call}: the model was in {words[mode]} mode before "
        f"and is in {words[after.training]} mode after.",
        hint=HINT_RESTORE_MODE,
    )
    entries = list(after.forward_log[logged:])
    graphs = sum(bool(e.get("graph")) for e in entries)
    run.expect_true(
        not graphs,
        f"{call}: the model ran with autograd recording a graph "
        f"({graphs} of {len(entries)} forward passes).",
        hint=HINT_NO_GRAD,
    )
    return entries


def _scored_in_eval_mode(run: CheckRun, case: Case, seen) -> None:
    """Called again: the model is left in the mode it came in, and no forward pass built a
    graph (dropout left on shows in the value: the dropout case's model comes in training
    mode)."""
    model = case.args[0]
    mode, logged = model.training, len(model.forward_log)
    done = run.call_observed(f"{case.call}, called again", *case.args)  # on private copies
    entries = _kept_mode(run, case.call, mode, done.args_after[0], logged)
    run.expect_true(bool(entries), f"{case.call}: the model was never called.", hint=HINT_NO_GRAD)


def _eval_loss(model, batches) -> float:
    """The mean loss over all real targets of `batches`, in evaluation mode."""
    was_training = model.training
    loss = mean_nll(model.eval(), batches)
    model.train(was_training)
    return loss


HINT_EVAL_MEAN = (
    "the result is the mean loss over every real target of every batch: add up each batch's "
    "summed loss (lm_loss times its number of real targets, loss_mask.sum()) and that number, "
    "then divide the two totals"
)


def _eval_case(case_id: str, call: str, model, batches, expect=None) -> Case:
    """A case of `evaluate`; its hint names dropout only where the model has dropout on."""
    dropout_on = model.training and any(
        isinstance(m, torch.nn.Dropout) and m.p > 0 for m in model.modules()
    )
    return Case(case_id, call, (model, batches), expect=expect, scalar=True,
                shape_hint=HINT_RETURN_FLOAT, before=_no_graph, then=_scored_in_eval_mode,
                depth=12, hint=HINT_EVAL_RANDOM if dropout_on else HINT_EVAL_MEAN, what="loss",
                crash_hints=(("", HINT_EVAL_BATCHES),))  # fmt: skip


HINT_EVAL_BATCHES = (
    "evaluate takes an iterable of (inputs, targets, loss_mask) batches of any shapes: loop over "
    "them, score each with model(inputs) and lm_loss, add sums and counts"
)


_EVALUATE = "evaluate"
_dropout_model = _tiny_decoder(5, dropout=0.5).train()
_gen = torch.Generator().manual_seed(5)
_three_batches = [_random_batch(_gen, B, L, 11) for B, L in [(3, 6), (1, 2), (2, 9)]]
_eval_model = copy.deepcopy(_dropout_model).eval()
_fixed_p = bias_model(torch.tensor([0.1, 0.2, 0.3, 0.4]).log())
EVALUATE_CASES = (
    _eval_case("worked", "evaluate(model, batches) for a model with fixed p = (.1, .2, .3, .4), "
               "two batches of 4 and 1 real targets",
               _fixed_p, worked_batches(),
               -(2 * math.log(0.4) + 2 * math.log(0.3) + math.log(0.2)) / 5),
    _eval_case("pad 3", "evaluate(model, batches) for a model with fixed p = (.1, .2, .3, .4), "
               "targets [[3, 0, 2], [2, 3, 3]] padded with 3 (loss_mask [[1, 1, 1], [1, 0, 0]])",
               _fixed_p, pad3_batches(),
               -(math.log(0.4) + math.log(0.1) + 2 * math.log(0.3)) / 4),
    _eval_case("dropout", "evaluate(decoder_with_dropout, three batches of shapes (3, 6), (1, 2), "
               "(2, 9)), the model in training mode", _dropout_model, _three_batches,
               _eval_loss(_dropout_model, _three_batches)),
    _eval_case("iterator", "evaluate(decoder, iter(batches)) with the model already in "
               "evaluation mode", _eval_model, iter(_three_batches),
               _eval_loss(_eval_model, _three_batches)),
    Case("inputs 1-D", "evaluate with inputs of shape (4,)", (_eval_model, [(ids([1, 2, 3, 4]),
         ids([2, 3, 4, 5]), torch.ones(4, dtype=torch.bool))]), raises=ValueError,
         mentions=("inputs", "(4,)")),
)  # fmt: skip


def _eval_trial(rng: np.random.Generator, seed: int) -> Case:
    """A random decoder (RoPE or learned positions, dropout 0.2, in training mode every
    other trial) and one to three random batches."""
    gen = torch.Generator().manual_seed(int(rng.integers(2**31)))
    model = _tiny_decoder(int(rng.integers(2**31)), positions=["rope", "learned"][seed % 2],
                          dropout=0.2).train(seed % 2 == 0)  # fmt: skip
    batches = [_random_batch(gen, *_two_sizes(gen), 11) for _ in range(int(rng.integers(1, 4)))]
    call = f"evaluate on a random decoder and {len(batches)} random batches (seed {seed})"
    return _eval_case("trial", call, model, batches)


@one_thread
def check_evaluate(evaluate, reference=None, trials: int = 5) -> None:
    """The mean loss over all real targets of all batches, in evaluation mode without a
    graph, the model's mode restored: a model of fixed probabilities, a decoder with dropout
    in training mode, batches as an iterator, an input check (the table `EVALUATE_CASES`),
    then random trials against the reference."""
    run_table(CheckRun(evaluate), _EVALUATE, EVALUATE_CASES, KNOWN, reference, trials, _eval_trial)


# ---------------------------------------------------------------------------------------
# ablate_head
# ---------------------------------------------------------------------------------------
HINT_ABLATION_SHAPE = (
    "one number per TARGET: position t scores ids[:, t + 1], so the last "
    "position has no target and the result is (B, L - 1)"
)
HINT_PER_TOKEN = (
    "return one change per target token, shape (B, L - 1): do not sum or average over the positions"
)
HINT_HEAD_COLUMNS = (
    "W_O reads the heads' outputs concatenated: head h owns the d_k = "
    "d_model / n_heads columns from h * d_k up to (h + 1) * d_k, and a forward "
    "pre-hook must return the changed input for it to take effect"
)
HINT_NOTHING_ABLATED = (
    "every change is 0: the ablated pass ran like the clean one. Run the clean pass before "
    "the hooks go on, then the ablated one. " + HINT_HEAD_COLUMNS[0].upper() + HINT_HEAD_COLUMNS[1:]
)
HINT_UNIFORM_CAUSAL = (
    "uniform attention is uniform over the ALLOWED keys: at position t the mean of the head's "
    "values at positions 0..t (a running mean along the sequence), never a later one"
)
HINT_ABLATE_EVAL = (
    "call model.eval() before both forward passes: with dropout on, the two "
    "passes drop different units and their difference is noise"
)
HINT_WEIGHTS_CHANGED = (
    "leave the model's weights as they were: ablate with hooks, or edit a "
    "copy.deepcopy of the model, never the caller's parameters"
)
HINT_HOOKS_LEFT = (
    "remove every hook you registered (handle.remove()) in a `finally:` "
    "block, so the model is clean again even if a forward pass fails"
)
HINT_CRASH_ABLATE = (
    "register the hooks on model.blocks[layer].attn.W_O (a forward pre-hook "
    'gets the tuple of inputs) and, for "uniform", on W_V (a forward hook '
    "gets the output); index the columns of the last axis with [..., a:b]"
)
_ABLATE_CRASH = (("", HINT_CRASH_ABLATE),)


def _target_log_probs(logits: torch.Tensor, ids: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """log p(ids[:, t + 1]) under the logits of position t, (B, L - 1), in float64 (`dim`:
    the axis of the log-softmax, the vocabulary's unless a mistake's)."""
    log_probs = torch.log_softmax(logits[:, :-1].double(), dim=dim)  # (B, L-1, V)
    return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)  # (B, L-1)


def _logits(model, ids) -> torch.Tensor:
    frozen = copy.deepcopy(model).eval()
    with torch.no_grad():
        return frozen(ids)


def _hooked_logits(model, ids, layer: int, head: int, mode: str) -> torch.Tensor:
    """The logits of a copy of the model in eval mode with one head ablated: its output (its
    columns of W_O's input) zeroed, replaced by its mean over every position of every row, or
    made the running mean of its values (uniform attention over the allowed keys)."""
    frozen = copy.deepcopy(model).eval()
    attn = frozen.blocks[layer].attn
    cols = slice(head * attn.d_k, (head + 1) * attn.d_k)
    values: dict[str, torch.Tensor] = {}
    attn.W_V.register_forward_hook(lambda _m, _i, out: values.__setitem__("v", out[..., cols]))

    def replace(_m, inputs):
        y, v = inputs[0].clone(), values["v"]  # (B, L, d), (B, L, d_k)
        if mode == "zero":
            y[..., cols] = 0.0
        elif mode == "mean":
            y[..., cols] = y[..., cols].mean(dim=(0, 1))
        else:
            y[..., cols] = v.cumsum(1) / torch.arange(1, v.shape[1] + 1, dtype=v.dtype)[:, None]
        return (y,)

    attn.W_O.register_forward_pre_hook(replace)
    with torch.no_grad():
        return frozen(ids)


def _ablated_changes(model, ids, layer: int, head: int, mode: str) -> torch.Tensor:
    """The right answer: each target's log-probability ablated minus clean, (B, L - 1)."""
    ablated = _hooked_logits(model, ids, layer, head, mode)
    return _target_log_probs(ablated, ids) - _target_log_probs(_logits(model, ids), ids)


def _hooks_left(model) -> int:
    """Hooks on the model itself or, once it crossed from the grader's sandbox (rebuilt from
    its state, hooks dropped), the count its state recorded."""
    return max(hook_count(model), int(getattr(model, "hooks_left", 0)))


def _same_weights(a, b) -> bool:
    params_a, params_b = dict(a.named_parameters()), dict(b.named_parameters())
    return params_a.keys() == params_b.keys() and all(
        torch.equal(params_a[k], params_b[k]) for k in params_a
    )


def _per_token(run: CheckRun, case: Case, seen) -> None:
    """A tensor or array without a graph (its shape is the table's to read)."""
    if isinstance(seen, torch.Tensor) and seen.requires_grad:
        run.fail(f"{case.call} returned a tensor that holds a graph.", hint=HINT_NO_GRAD)
    B, L = case.args[1].shape
    run.expect_true(
        isinstance(seen, torch.Tensor | np.ndarray),
        f"{case.call} returned a {type(seen).__name__}; expected a tensor of shape ({B}, {L - 1}).",
        hint=HINT_PER_TOKEN,
    )


def _ablation_shape_hint(got: tuple, want: tuple) -> str:
    """A total per sequence (or one number) is not one change per target."""
    return HINT_PER_TOKEN if got in ((want[0],), (want[0], 1), ()) else HINT_ABLATION_SHAPE


def _left_as_found(run: CheckRun, case: Case, seen) -> None:
    """Called again: the model's weights, mode and hooks are as they were (no forward pass
    built a graph), it gives the same logits, and every forward pass ran in eval mode."""
    model, ids = case.args[:2]
    mode_before, logged = model.training, len(model.forward_log)
    call = f"{case.call}, called again"
    after = run.call_observed(call, *case.args, crash_hints=_ABLATE_CRASH).args_after[0]
    run.expect_true(_same_weights(after, model), f"{call} changed the model's weights.",
                    hint=HINT_WEIGHTS_CHANGED)  # fmt: skip
    entries = _kept_mode(run, call, mode_before, after, logged)
    left = _hooks_left(after) - _hooks_left(model)
    run.expect_true(left == 0, f"{call} left {left} hook(s) on the model.", hint=HINT_HOOKS_LEFT)
    run.expect_true(
        torch.equal(_logits(after, ids), _logits(model, ids)),
        f"{call}: the model gives other logits after the call than before it.",
        hint=HINT_HOOKS_LEFT,
    )
    training = sum(bool(e.get("training")) for e in entries)
    run.expect_true(not training, f"{call}: {training} of {len(entries)} forward passes ran in "
                    f"training mode.", hint=HINT_ABLATE_EVAL)  # fmt: skip


def _uniform_is_causal(run: CheckRun, case: Case, seen) -> None:
    """Uniform attention: the first target is unchanged (position 0 has one key), and the
    last token does not move the changes before it."""
    _left_as_found(run, case, seen)
    changes = as_array(seen)
    run.expect_close(f"{case.call}: the first target (position 0 has one key, so uniform "
                     "attention is its attention)", changes[:, 0], np.zeros(len(changes)),
                     atol=1e-5, hint=HINT_UNIFORM_CAUSAL)  # fmt: skip
    model, ids, *rest = case.args
    later = ids.clone()
    later[:, -1] = (later[:, -1] + 1) % 11
    call = f"{case.call} with the last token changed"
    moved = as_array(run.call(call, model, later, *rest, crash_hints=_ABLATE_CRASH))
    run.expect_close(f"{call}: the changes before it", moved[:, :-1], changes[:, :-1], **TOL,
                     hint=HINT_UNIFORM_CAUSAL)  # fmt: skip


def _ablation_case(case_id: str, call: str, model, ids, layer: int, head: int, mode: str,
                   expect=_ablated_changes, **more) -> Case:  # fmt: skip
    """The changes are differences of log-probabilities: float32 precision for values as
    large as those (a forward pass deep), however small the changes themselves."""
    tol = probe_tolerance(_target_log_probs(_logits(model, ids), ids), depth=8)
    return Case(case_id, call, (model, ids, layer, head, mode), expect=expect, what="changes",
                before=_per_token, shape_hint=_ablation_shape_hint, tolerance=tol,
                crash_hints=_ABLATE_CRASH, **{"then": _left_as_found} | more)  # fmt: skip


HINT_CLEAN_AFTER_FAILURE = (
    "put the clean-up in a `finally:` block (try: ... finally: remove every hook and "
    "restore the mode), so it runs even when a forward pass raises"
)


def _expect_clean_after_failure(run: CheckRun, ablate_head, call: str, model, ids) -> None:
    """A forward pass that raises while the learner's hooks are on: the model must still
    come back without hooks and in the mode it had. A route without hooks never trips."""
    trip = TrippingLM(model.config)
    trip.load_state_dict(model.state_dict())
    trip.train()
    try:
        observe(ablate_head, (trip, ids, 0, 1, "zero"), {})
    except ForwardFailed as err:
        after = getattr(err, "attnbook_args_after", None)
        if after is None:  # the arguments did not come back: nothing to tell
            return
        left = _hooks_left(after[0])
        run.expect_true(
            left == 0,
            f"{call}: a forward pass raised, and the model kept {left} hook(s).",
            hint=HINT_CLEAN_AFTER_FAILURE,
        )
        run.expect_true(
            after[0].training,
            f"{call}: a forward pass raised, and the model was left in evaluation mode "
            f"(it was in training mode before).",
            hint=HINT_CLEAN_AFTER_FAILURE,
        )
    except Exception as err:  # the learner's other failures are the other cases' to report
        if "the grader cannot" in str(err):  # not the learner's: the grader's own
            raise


def _ablation_decoder(
    seed: int, n_layers: int = 2, n_heads: int = 4, dropout: float = 0.0, positions: str = "rope"
) -> TransformerLM:
    """A tiny decoder whose heads matter (GPT-2's small initial weights would make every
    ablation change the log-probabilities by less than the tolerance), and whose state
    tells the grader how many hooks it holds."""
    with torch.random.fork_rng(devices=[]):  # drawn from `seed`: the global state stays
        torch.manual_seed(seed)
        model = HookCountingLM(LMConfig(vocab_size=11, d_model=16, n_heads=n_heads,
                                        n_layers=n_layers, max_len=16, positions=positions,
                                        dropout=dropout))  # fmt: skip
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("weight") and p.ndim == 2:
                p.copy_(torch.randn(p.shape, generator=gen) * 0.5)
        # Non-zero biases of the attention maps: an ablation through the weights that forgets
        # a bias (W_V's rows zeroed for "zero", W_Q's rows for "uniform") then shows.
        for block in model.blocks:
            assert isinstance(block, TransformerBlock)
            for linear in (block.attn.W_Q, block.attn.W_K, block.attn.W_V, block.attn.W_O):
                linear.bias.copy_(torch.randn(linear.bias.shape, generator=gen) * 0.5)
    return model


_ABLATE = "ablate_head"
_TINY = "a tiny seeded decoder (2 blocks of 4 heads, d = 16)"
_ablation_model = _ablation_decoder(40).eval()
_gen = torch.Generator().manual_seed(40)
_ablation_ids = torch.randint(0, 11, (2, 7), generator=_gen)
_wide_ids = torch.randint(0, 11, (3, 5), generator=_gen)
_silent = copy.deepcopy(_ablation_model)
with torch.no_grad():
    _silent.get_parameter("blocks.0.attn.W_O.weight")[:, 8:12] = 0.0  # head 2 of block 0 is mute
ABLATE_CASES = (
    _ablation_case("zero", f"ablate_head({_TINY}, ids (2, 7), layer=1, head=2, mode='zero')",
                   _ablation_model, _ablation_ids, 1, 2, "zero"),
    _ablation_case("uniform", f"ablate_head({_TINY}, ids (2, 7), layer=0, head=1, "
                   "mode='uniform')", _ablation_model, _ablation_ids, 0, 1, "uniform",
                   then=_uniform_is_causal),
    _ablation_case("mean", f"ablate_head({_TINY}, ids (2, 7), layer=0, head=3, mode='mean')",
                   _ablation_model, _ablation_ids, 0, 3, "mean"),
    _ablation_case("mean wide", f"ablate_head({_TINY}, ids (3, 5), layer=1, head=0, "
                   "mode='mean')", _ablation_model, _wide_ids, 1, 0, "mean"),
    _ablation_case("silent", "ablate_head(the decoder with head 2 of block 0 already writing "
                   "zeros, ids (2, 7), layer=0, head=2, mode='zero'): zeroing a silent head "
                   "changes nothing", _silent, _ablation_ids, 0, 2, "zero",
                   expect=np.zeros((2, 6)), hint=HINT_HEAD_COLUMNS),
    _ablation_case("dropout", "ablate_head(decoder with dropout 0.5 in training mode, ids (2, 7), "
                   "layer=0, head=3, mode='zero')", _ablation_decoder(41, dropout=0.5).train(),
                   _ablation_ids, 0, 3, "zero", hint=HINT_ABLATE_EVAL),
    *(Case(f"bad {label}", f"ablate_head(model, ids, {layer}, {head}, {mode!r}) on 2 blocks of "
           "4 heads", (_ablation_model, _ablation_ids, layer, head, mode), raises=ValueError,
           mentions=mentions)
      for label, layer, head, mode, mentions in (
          ("mode", 0, 0, "median", ("mode", "'median'")), ("layer", 2, 0, "zero", ("layer", "2")),
          ("head", 0, 4, "zero", ("head", "4")), ("head -1", 0, -1, "zero", ("head", "-1")))),
)  # fmt: skip


def _ablation_trial(rng: np.random.Generator, seed: int) -> Case:
    """A random decoder (blocks, heads, positions, dropout in training mode every other
    trial), random ids, layer, head and mode."""
    gen = torch.Generator().manual_seed(int(rng.integers(2**31)))
    n_layers, n_heads = 1 + seed % 3, [2, 4][seed % 2]
    positions = ["rope", "learned", "none", "sinusoidal"][seed % 4]
    model = _ablation_decoder(int(rng.integers(2**31)), positions=positions, n_layers=n_layers,
                              n_heads=n_heads, dropout=0.2 * (seed % 2))  # fmt: skip
    model.train(seed % 2 == 1)
    B, L = int(rng.integers(1, 4)), int(rng.integers(2, 12))
    ids = torch.randint(0, 11, (B, L), generator=gen)
    layer, head = int(rng.integers(n_layers)), int(rng.integers(n_heads))
    mode = ["uniform", "zero", "mean"][seed % 3]
    call = (f"ablate_head on a random decoder ({n_layers} blocks of {n_heads} heads), ids ({B}, "
            f"{L}), layer={layer}, head={head}, mode={mode!r} (seed {seed})")  # fmt: skip
    return _ablation_case("trial", call, model, ids, layer, head, mode, expect=None)


@one_thread
def check_ablate_head(ablate_head, reference=None, trials: int = 4) -> None:
    """One head ablated three ways, as the change in each target's log-probability: the modes
    on a tiny decoder, a silent head, dropout switched off, the input checks (the table
    `ABLATE_CASES`, each call repeated to see the model left as found), a forward pass that
    fails while the hooks are on, then random decoders against the reference."""
    run = CheckRun(ablate_head, crash_hint=HINT_CRASH_ABLATE)
    run_cases(run, _ABLATE, ABLATE_CASES, KNOWN)
    _expect_clean_after_failure(
        run, ablate_head, "ablate_head(a model whose forward pass fails while a hook is on it, "
        "ids (2, 7), layer=0, head=1, mode='zero')", _ablation_model, _ablation_ids,
    )  # fmt: skip
    run_trials(run, _ABLATE, reference, trials, _ablation_trial, KNOWN)
    run.done()


# the functions of notebook 07 checked as tables
CASES = {_BATCH: BATCH_CASES, _LOSS: LOSS_CASES, _STEP: STEP_CASES, _EVALUATE: EVALUATE_CASES,
         _ABLATE: ABLATE_CASES}  # fmt: skip
# detectors raised from a probe of the call (a graph to train on, the model's mode, dropout's
# randomness), not from an output's value
PROPERTY_DETECTORS = (
    "HINT_LOSS_TENSOR", "HINT_EVAL_IN_TRAINING", "HINT_RESTORE_MODE", "HINT_NO_GRAD",
    "HINT_EVAL_RANDOM", "HINT_WEIGHTS_CHANGED", "HINT_HOOKS_LEFT",
    "HINT_ABLATE_EVAL", "HINT_CLEAN_AFTER_FAILURE",
)  # fmt: skip
