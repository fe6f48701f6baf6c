"""Train the reference decoder on the email corpus (or on any UTF-8 text, character level).

    python -m attnbook.lm.train --preset cpu                  # minutes on two CPU cores
    python -m attnbook.lm.train --preset gpu                  # one GPU, bf16 autocast
    torchrun --nproc_per_node 4 -m attnbook.lm.train --preset gpu   # DistributedDataParallel
    python -m attnbook.lm.train --text my_book.txt --steps 2000     # your own text, characters

Each run writes to ``--out``: ``best.pt`` (the weights with the lowest validation loss, with
the training config, the tokenizer and the metrics inside), ``last.pt`` (also the optimizer
state, for ``--resume``), ``log.csv`` and ``loss_curve.png`` (losses against the corpus
entropy, the floor no model can beat). Notebooks call `train` with a small budget.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import io
import math
import os
import shutil
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any, Protocol

import numpy as np
import torch
import torch.distributed as dist
from matplotlib.figure import Figure

from attnbook.helptext import plain
from attnbook.lm.corpus import DEFAULT_GRAMMAR, make_splits
from attnbook.lm.data import (
    Batch,
    batch_iterator,
    batch_logits,
    masked_cross_entropy,
    validation_loss,
)
from attnbook.lm.model import (
    LMConfig,
    TransformerLM,
    autocast_context,
    load_checkpoint,
    pick_device,
    save_checkpoint,
)
from attnbook.lm.tokenizer import CharTokenizer, WordTokenizer, tokenizer_from_dict
from attnbook.progress import BudgetBar, exit_now, process_start

CSV_FIELDS = ("step", "lr", "train_loss", "val_loss", "tokens", "elapsed_s")


@dataclass
class TrainConfig:
    """Everything a run depends on; the presets below fill it in."""

    # model (see attnbook.lm.model.LMConfig)
    d_model: int = 128
    n_heads: int = 4
    n_layers: int = 2
    d_hidden: int | None = None  # MLP width, default 4 * d_model
    positions: str = "rope"
    max_len: int = 80  # the longest email is 65 words + BOS/EOS
    # data
    n_train: int = 60_000  # emails; see attnbook.lm.corpus.make_splits for the sizes
    n_val: int = 4_000
    data_seed: int = 0  # which emails; `seed` below drives initialisation and batch order
    text: str | None = None  # a UTF-8 file: train character level on it instead of emails
    text_seq_len: int = 128  # characters per training sequence for `text`
    # optimisation
    steps: int = 3000  # length of the learning-rate schedule
    batch_size: int = 128  # sequences per step, over all ranks together
    lr: float = 3e-3
    min_lr_ratio: float = 0.05  # cosine decay ends at lr * min_lr_ratio
    warmup_steps: int = 100
    weight_decay: float = 0.01
    grad_clip: float = 1.0
    group_by_length: int = 16  # batches regrouped by email length: less padding, same epoch
    # bookkeeping
    eval_every: int = 250
    seed: int = 0
    device: str | None = None  # default: CUDA, then MPS, then CPU
    out: str = "runs/email_cpu"
    resume: bool = False
    budget_seconds: float | None = None  # the whole run, final evaluation and saving included
    budget_start: float | None = None  # time.perf_counter() when the budget began (default:
    # when `train` is called; the command line passes its process's start, imports included)
    stop_after: int | None = None  # end this run at this step; the schedule still spans `steps`
    num_threads: int | None = None  # CPU threads per process (torch default when None)
    progress: bool = True
    entropy_samples: int = 20_000  # emails used to estimate the entropy floor

    def check(self) -> None:
        """Refuse a setting no run can use, naming it, the expected and the actual value
        (`train` calls this first; the model's own fields are checked by `LMConfig`)."""
        for names, expected, ok in _TRAIN_RULES:
            for name in names:
                value = getattr(self, name)
                if not ok(value):
                    raise ValueError(f"TrainConfig.{name}: expected {expected}, got {value!r}")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


# (fields, what each must be, the test): `TrainConfig.check`.
_TRAIN_RULES = (
    (
        (
            "steps",
            "batch_size",
            "eval_every",
            "n_train",
            "n_val",
            "text_seq_len",
            "entropy_samples",
        ),
        "an int >= 1",
        lambda v: _is_int(v) and v >= 1,
    ),
    (("warmup_steps", "group_by_length"), "an int >= 0", lambda v: _is_int(v) and v >= 0),
    (
        ("stop_after", "num_threads"),
        "None or an int >= 1",
        lambda v: v is None or _is_int(v) and v >= 1,
    ),
    (("lr", "grad_clip"), "a number > 0", lambda v: _is_number(v) and v > 0),
    (("weight_decay",), "a number >= 0", lambda v: _is_number(v) and v >= 0),
    (("min_lr_ratio",), "a number in [0, 1]", lambda v: _is_number(v) and 0 <= v <= 1),
    # 0 is allowed: the run takes one step, then evaluates and saves
    (("budget_seconds",), "None or a number >= 0", lambda v: v is None or _is_number(v) and v >= 0),
)

PRESETS = {
    # About 600 CPU seconds (6 min 27 s on two free cores): 0.42M parameters, about 6.4
    # passes over 60k emails (benchmarks/results/train_cpu.md).
    "cpu": TrainConfig(),
    # One GPU: a wider, deeper model, more emails, bf16 autocast (chosen by the device).
    "gpu": TrainConfig(
        d_model=256,
        n_heads=8,
        n_layers=4,
        n_train=300_000,
        n_val=10_000,
        steps=6000,
        batch_size=256,
        lr=1e-3,
        warmup_steps=300,
        eval_every=500,
        out="runs/email_gpu",
    ),
    # Seconds: for notebooks under the autograder and for tests.
    "tiny": TrainConfig(
        d_model=32,
        n_heads=2,
        n_layers=1,
        n_train=2_000,
        n_val=200,
        steps=60,
        batch_size=32,
        warmup_steps=10,
        eval_every=30,
        out="runs/email_tiny",
        entropy_samples=2_000,
    ),
}


# What each preset's run is for, printed when it starts ({field}: the run's TrainConfig).
PRESET_NOTES = {
    "cpu": "cpu: the model notebooks 07 and 08 ship (assets/checkpoints/email_cpu.pt), "
    "about 6 minutes on two free cores (611 CPU seconds, benchmarks/results/train_cpu.md); "
    "its loss comes within 0.01 nats of the corpus floor",
    "gpu": "gpu: a wider, deeper model on one GPU, bf16 autocast; minutes on a modern GPU",
    "tiny": "tiny: seconds, to see that training runs end to end: {n_layers} layer(s) of "
    "width {d_model} for {steps} steps, whose loss stays far above the corpus floor and whose "
    "samples do not read as emails; for a usable model, --preset cpu (about 6 minutes on two "
    "cores) or --preset gpu",
}


@dataclass
class _Dist:
    rank: int = 0
    world_size: int = 1
    local_rank: int = 0

    @property
    def main(self) -> bool:
        return self.rank == 0


def _init_distributed(device_pref: str | None) -> tuple[_Dist, torch.device]:
    """A process group from torchrun's environment (gloo on CPU, nccl on CUDA), if any."""
    world_size = int(os.environ.get("WORLD_SIZE", "1"))
    if world_size == 1:
        return _Dist(), pick_device(device_pref)
    info = _Dist(int(os.environ["RANK"]), world_size, int(os.environ.get("LOCAL_RANK", "0")))
    device = pick_device(device_pref)
    if device.type == "cuda":
        device = torch.device("cuda", info.local_rank)
        torch.cuda.set_device(device)
    if not dist.is_initialized():
        dist.init_process_group(backend="nccl" if device.type == "cuda" else "gloo")
    return info, device


@dataclass
class _Data:
    tokenizer: WordTokenizer | CharTokenizer
    train: list[list[int]]
    val: list[list[int]]
    floor: float | None = None  # entropy per token of the corpus (nats)
    floor_se: float | None = None
    val_floor: float | None = None  # the true grammar's loss on these very validation emails
    extra: dict = field(default_factory=dict)


def corpus_floor(samples: int) -> tuple[float, float]:
    """The email corpus's entropy in nats per token and its standard error, estimated on
    ``samples`` emails (`EmailGrammar.entropy_per_token`) with the seed that every run's floor
    shares (12345), so that runs with the same ``samples`` meet the same floor."""
    return DEFAULT_GRAMMAR.entropy_per_token(samples, seed=12345)


def encode_train_val(
    tokenizer: WordTokenizer, splits: dict[str, list[list[str]]]
) -> tuple[list[list[int]], list[list[int]]]:
    """The training and the validation emails of ``splits`` (`make_splits`) as ``tokenizer``'s
    ids, each with its BOS and EOS."""
    train = [tokenizer.encode(e) for e in splits["train"]]
    return train, [tokenizer.encode(e) for e in splits["val"]]


def _email_data(config: TrainConfig) -> _Data:
    splits = make_splits(config.data_seed, config.n_train, config.n_val, n_test=0)
    tokenizer = WordTokenizer()
    floor, floor_se = corpus_floor(config.entropy_samples)
    nll = -sum(DEFAULT_GRAMMAR.log_prob(e) for e in splits["val"])
    val_floor = nll / sum(len(e) + 1 for e in splits["val"])
    return _Data(tokenizer, *encode_train_val(tokenizer, splits), floor, floor_se, val_floor)


def _text_data(config: TrainConfig) -> _Data:
    """Consecutive chunks of the file: the first 90% train, the rest validation."""
    if config.text is None:
        raise ValueError("config.text: expected the path of a text file, got None")
    text = Path(config.text).read_text(encoding="utf-8")
    tokenizer = CharTokenizer.from_text(text)
    ids = tokenizer.encode(text, add_bos=False, add_eos=False)
    size = config.text_seq_len + 1
    chunks = [ids[i : i + size] for i in range(0, len(ids) - size + 1, size)]
    if len(chunks) < 2:
        raise ValueError(
            f"text: {config.text} has {len(ids)} characters, fewer than two sequences of "
            f"{size}; lower text_seq_len"
        )
    n_val = max(1, len(chunks) // 10)
    return _Data(tokenizer, chunks[:-n_val], chunks[-n_val:])


def model_config_for(config: TrainConfig, vocab_size: int, longest: int = 0) -> LMConfig:
    """The decoder's `LMConfig` for a run; ``longest`` input raises ``max_len`` if needed."""
    return LMConfig(
        vocab_size=vocab_size,
        d_model=config.d_model,
        n_heads=config.n_heads,
        n_layers=config.n_layers,
        max_len=max(config.max_len, longest),
        positions=config.positions,
        d_hidden=config.d_hidden,
    )


def learning_rate(config: Any, step: int) -> float:
    """Linear warmup to ``lr``, then cosine decay to ``lr * min_lr_ratio`` at ``steps``.

    ``config`` is any object with ``lr``, ``warmup_steps``, ``steps`` and ``min_lr_ratio``
    (the trainer's, the ablation's and the encoder-decoder's configs)."""
    if step < config.warmup_steps:
        return config.lr * (step + 1) / config.warmup_steps
    progress = min(1.0, (step - config.warmup_steps) / max(1, config.steps - config.warmup_steps))
    cosine = 0.5 * (1.0 + math.cos(math.pi * progress))
    return config.lr * (config.min_lr_ratio + (1.0 - config.min_lr_ratio) * cosine)


class OptimizerSettings(Protocol):
    """What `build_optimizer` reads from a configuration (`TrainConfig`, or notebook 11's
    `attnbook.lm.seq2seq.ReplyTrainConfig`)."""

    lr: float
    weight_decay: float


def build_optimizer(model: torch.nn.Module, config: OptimizerSettings) -> torch.optim.Optimizer:
    """AdamW; matrices decay, biases, norms and embeddings do not."""
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2 and "embed" not in n]
    rest = [p for n, p in model.named_parameters() if not (p.dim() >= 2 and "embed" not in n)]
    groups = [
        {"params": decay, "weight_decay": config.weight_decay},
        {"params": rest, "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(groups, lr=config.lr, betas=(0.9, 0.98))


def fit_batch(
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    batch: Batch,
    n_tokens: int,
    grad_clip: float,
    autocast: contextlib.AbstractContextManager,
    world_size: int = 1,
) -> torch.Tensor:
    """One optimizer update on ``batch``; returns this process's share of the mean loss.

    Each rank divides its summed loss by ``n_tokens``, the real targets of the whole global
    batch; DDP averages the ranks' gradients, so multiplying by ``world_size`` makes the
    update exactly that of one process seeing the global batch.
    """
    with autocast:
        logits = batch_logits(model, batch)  # (B, L, V)
    loss = masked_cross_entropy(logits, batch.targets, batch.loss_mask, n_tokens)
    optimizer.zero_grad(set_to_none=True)
    (loss * world_size).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    optimizer.step()
    return loss.detach()


def read_log(path: str | Path, up_to_step: int | None = None) -> list[dict]:
    """The rows of a run's ``log.csv`` (strings, as written), up to ``up_to_step``."""
    path = Path(path)
    if not path.exists():
        return []
    with path.open() as f:
        rows = list(csv.DictReader(f))
    return [r for r in rows if up_to_step is None or int(r["step"]) <= up_to_step]


def _write_log(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_FIELDS)
        writer.writeheader()
        writer.writerows(rows)


def draw_floor(ax, floor: float | None, floor_se: float | None = None) -> None:
    """A loss plot's floor (the corpus entropy, with two standard errors shaded) and axes."""
    if floor is not None:
        ax.axhline(floor, color="black", ls="--", lw=1, label=f"corpus entropy {floor:.3f}")
        if floor_se:
            ax.axhspan(floor - 2 * floor_se, floor + 2 * floor_se, color="black", alpha=0.1)
    ax.set_xlabel("step")
    ax.set_ylabel("cross-entropy (nats per token)")


def plot_loss_curve(
    rows: list[dict],
    path: str | Path | IO[bytes] | None = None,
    floor: float | None = None,
    floor_se: float | None = None,
    title: str = "",
) -> Figure:
    """Training and validation loss against the step, with the entropy floor when known.

    The first panel shows the whole run, first step included. When the run comes within
    0.3 nats of a known floor, a second panel zooms in on it: the last few hundredths of a
    nat are the interesting part there. ``rows`` as from `read_log`. Saved to ``path`` when
    given; the figure is returned (a notebook displays it). Built without pyplot, so it needs
    no display and leaves the notebook's backend alone.
    """
    steps = [int(r["step"]) for r in rows]
    train = [float(r["train_loss"]) for r in rows]
    # Batches group emails of similar length, and short emails carry more entropy per token;
    # weighting each batch by its tokens makes the running mean comparable to validation.
    tokens = np.diff([0] + [int(r["tokens"]) for r in rows]).astype(float)
    window = max(1, min(50, len(train) // 10))
    kernel = np.ones(window)
    summed = np.convolve(np.asarray(train) * tokens, kernel, mode="valid")
    smooth = summed / np.convolve(tokens, kernel, mode="valid")
    val = [(int(r["step"]), float(r["val_loss"])) for r in rows if r["val_loss"] not in ("", None)]
    near = floor is not None and float(smooth[-1]) < floor + 0.3
    fig = Figure(figsize=(11, 4) if near else (7, 4))
    axes = fig.subplots(1, 2 if near else 1, squeeze=False)[0]
    for ax in axes:
        ax.plot(steps, train, color="tab:blue", alpha=0.2, lw=0.5)
        ax.plot(steps[window - 1 :], smooth, color="tab:blue", lw=1.5,
                label=f"training loss (last {window} batches, per token)")  # fmt: skip
        if val:
            ax.plot(*zip(*val, strict=True), "o-", color="tab:orange", label="validation loss")
        draw_floor(ax, floor, floor_se)
    axes[0].set_title(f"{title}: the whole run" if title and near else title)
    axes[0].legend()
    if near and floor is not None:
        axes[1].set_ylim(floor - 0.05, max(floor + 0.3, float(smooth[-1]) + 0.2))
        axes[1].set_title("near the floor")
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=100)
    return fig


FINAL_COST_SAFETY = 1.5  # measured once, paid later on a longer log, maybe a busier machine


def _measure_final_cost(
    model: TransformerLM,
    optimizer: torch.optim.Optimizer,
    data: _Data,
    device: torch.device,
    autocast: contextlib.AbstractContextManager,
    world_size: int,
) -> float:
    """Seconds the last validation, two checkpoints and the loss curve will take, with margin.

    Times a validation batch spread over the lengths (scaled to this rank's share of the
    validation set), a checkpoint with the optimizer state and a loss-curve figure, each
    written to memory; the figure also warms matplotlib up for the real one.
    """
    every = max(1, len(data.val) // 256)
    sample = data.val[::every][:256]
    began = time.perf_counter()
    validation_loss(model, sample, pad_id=data.tokenizer.pad_id, device=device, autocast=autocast)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    share = len(data.val) / world_size / len(sample)
    validate_s = (time.perf_counter() - began) * share
    began = time.perf_counter()
    save_checkpoint(model, io.BytesIO(), optimizer=optimizer.state_dict())
    save_s = 2 * (time.perf_counter() - began)  # best.pt and last.pt
    began = time.perf_counter()
    rows = [{"step": s, "train_loss": "1.0", "val_loss": "1.0", "tokens": 100 * s}
            for s in (1, 2)]  # fmt: skip
    plot_loss_curve(rows, io.BytesIO(), floor=data.floor, floor_se=data.floor_se)
    plot_s = time.perf_counter() - began
    return FINAL_COST_SAFETY * (validate_s + save_s + plot_s)


def train(config: TrainConfig) -> dict:
    """Train as ``config`` says; returns the run's metrics (and writes files to ``out``).

    The files replace those of an earlier run in ``out`` unless ``resume`` continues it (the
    command line refuses such a folder unless --resume or --overwrite says which; a notebook
    reruns into its own folder). Under torchrun (WORLD_SIZE > 1) every process calls this;
    rank 0 writes the files. The steps: set the run up (`_Run`), take optimizer steps until
    the last step or the budget, validating and saving every ``eval_every`` steps and once
    at the end, then report.
    """
    run = _Run(config)
    while run.step < run.last_step:
        run.take_step()
        if run.out_of_time() or run.step == run.last_step:
            run.validate_and_save(final=True)
            break
        if run.step % config.eval_every == 0:
            run.validate_and_save(final=False)
    return run.finish()


class _Run:
    """One training run's state: data, model, optimizer, log and clock."""

    def __init__(self, config: TrainConfig) -> None:
        config.check()
        self.config = config
        budget_start = time.perf_counter() if config.budget_start is None else config.budget_start
        self.deadline = (
            None if config.budget_seconds is None else budget_start + config.budget_seconds
        )
        self.info, self.device = _init_distributed(config.device)
        if config.num_threads:
            torch.set_num_threads(config.num_threads)
        self.out = Path(config.out)
        self.data = _text_data(config) if config.text else _email_data(config)
        if self.info.main:  # after the data: a text that cannot be used leaves no folder
            self.out.mkdir(parents=True, exist_ok=True)
        self._build_model()
        self._resume()
        self.ddp = self.info.world_size > 1
        self.wrapped = (
            torch.nn.parallel.DistributedDataParallel(
                self.model, device_ids=[self.device.index] if self.device.type == "cuda" else None
            )
            if self.ddp
            else self.model
        )
        self.batches = batch_iterator(
            self.data.train, config.batch_size, seed=config.seed, start_step=self.step,
            pad_id=self.data.tokenizer.pad_id, rank=self.info.rank,
            world_size=self.info.world_size, group_by_length=config.group_by_length,
        )  # fmt: skip
        self.autocast = autocast_context(self.device)
        self.last_step = (
            config.steps if config.stop_after is None else min(config.steps, config.stop_after)
        )
        self.tokens = int(self.log_rows[-1]["tokens"]) if self.log_rows else 0
        self.elapsed_before = float(self.log_rows[-1]["elapsed_s"]) if self.log_rows else 0.0
        # What the final evaluation and saving will cost, measured now, so the loop stops in time.
        self.final_cost = 0.0 if self.deadline is None else _measure_final_cost(
            self.model, self.optimizer, self.data, self.device, self.autocast,
            self.info.world_size,
        )  # fmt: skip
        self.start = time.perf_counter()
        self.tokens_at_start, self.step_at_start = self.tokens, self.step
        self.bar = BudgetBar(
            total=self.last_step, initial=self.step, desc="train", file=sys.stdout,
            disable=not (config.progress and self.info.main), dynamic_ncols=True,
            deadline=self.deadline,
        )  # fmt: skip
        self.metrics: dict[str, Any] = {
            "best_val_loss": self.best,
            "val_loss": math.nan,
            "floor": self.data.floor,
            "floor_se": self.data.floor_se,
            "val_floor": self.data.val_floor,
        }
        self.pending: list[tuple[dict, torch.Tensor]] = []  # rows whose loss is on the device
        self.model.train()

    def _build_model(self) -> None:
        config, tokenizer = self.config, self.data.tokenizer
        longest = max(len(s) for s in self.data.train + self.data.val) - 1
        torch.manual_seed(config.seed)
        self.model = TransformerLM(model_config_for(config, tokenizer.vocab_size, longest))
        self.model.to(self.device)
        self.optimizer = build_optimizer(self.model, config)

    def _resume(self) -> None:
        self.step, self.best, self.log_rows = 0, math.inf, []
        last = self.out / "last.pt"
        if self.config.resume and last.exists():
            resumed, extra = load_checkpoint(last, map_location=self.device)
            self.model.load_state_dict(resumed.state_dict())
            self.optimizer.load_state_dict(extra["optimizer"])
            self.step, self.best = extra["step"], extra["best_val_loss"]
            self.log_rows = read_log(self.out / "log.csv", self.step)
        elif self.config.resume and self.info.main:
            print(f"resume: no {last} yet, starting from step 0")

    def take_step(self) -> None:
        """One optimizer step at the schedule's learning rate, logged (loss still on device)."""
        lr = learning_rate(self.config, self.step)
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        batch, n_global = next(self.batches)
        loss = fit_batch(
            self.wrapped, self.optimizer, batch.to(self.device), n_global,
            self.config.grad_clip, self.autocast, self.info.world_size,
        )  # fmt: skip
        reported = loss.detach().double()  # this rank's share of the global batch's mean
        if self.ddp:
            dist.all_reduce(reported)
        self.step += 1
        self.tokens += n_global
        elapsed = self.elapsed_before + time.perf_counter() - self.start
        self.log_rows.append(
            {
                "step": self.step, "lr": f"{lr:.6g}", "train_loss": "",
                "val_loss": "", "tokens": self.tokens, "elapsed_s": f"{elapsed:.2f}",
            }
        )  # fmt: skip
        self.pending.append((self.log_rows[-1], reported))
        if len(self.pending) >= 25:
            self.settle_losses()
        self.bar.update(1)

    def out_of_time(self) -> bool:
        """Whether one more step plus the final evaluation and saving would pass the
        deadline (the same answer on every rank)."""
        if self.deadline is None:
            return False
        now = time.perf_counter()
        step_s = (now - self.start) / (self.step - self.step_at_start)
        due = self.step % self.config.eval_every == 0  # an evaluation now costs about a final one
        late = now + step_s + self.final_cost * (2 if due else 1) >= self.deadline
        if self.ddp:  # every rank must stop at the same step
            flag = torch.tensor([float(late)], device=self.device)
            dist.all_reduce(flag, op=dist.ReduceOp.MAX)
            late = bool(flag.item())
        return late

    def settle_losses(self) -> None:
        """Write the steps' losses into the log rows (one device sync for many steps)."""
        if self.pending:
            values = torch.stack([loss for _, loss in self.pending]).tolist()
            for (row, _), value in zip(self.pending, values, strict=True):
                row["train_loss"] = f"{value:.6f}"
            self.bar.set_postfix(loss=f"{values[-1]:.4f}", refresh=False)
            self.pending.clear()

    def validate_and_save(self, final: bool) -> None:
        self.settle_losses()
        data, metrics = self.data, self.metrics
        val = validation_loss(
            self.model, data.val, pad_id=data.tokenizer.pad_id, device=self.device,
            rank=self.info.rank, world_size=self.info.world_size, autocast=self.autocast,
        )  # fmt: skip
        self.log_rows[-1]["val_loss"] = f"{val:.6f}"
        metrics.update(step=self.step, val_loss=val, tokens=self.tokens)
        if data.val_floor is not None:
            if data.floor is None:  # the email corpus sets both
                raise RuntimeError("data.floor: expected the entropy with val_floor, got None")
            metrics["excess_over_floor"] = val - data.val_floor
            metrics["excess_over_entropy"] = val - data.floor
        self.bar.set_postfix(val=f"{val:.4f}")
        if self.info.main:
            self._save(val, final)

    def _save(self, val: float, final: bool) -> None:
        config, out = self.config, self.out
        extra = {
            "train_config": asdict(config),
            "tokenizer": self.data.tokenizer.to_dict(),
            "metrics": {k: v for k, v in self.metrics.items() if v is not None},
        }
        if val < self.best:
            self.best = val
            self.metrics["best_val_loss"] = val
            extra["metrics"]["best_val_loss"] = val
            save_checkpoint(self.model, out / "best.pt", **extra)
        _write_log(out / "log.csv", self.log_rows)
        save_checkpoint(
            self.model, out / "last.pt", optimizer=self.optimizer.state_dict(), step=self.step,
            best_val_loss=self.best, **extra,
        )  # fmt: skip
        if final:
            plot_loss_curve(
                self.log_rows, out / "loss_curve.png", self.data.floor, self.data.floor_se,
                title=f"{'email' if not config.text else Path(config.text).name}: "
                f"{self.model.num_parameters():,} parameters",
            )  # fmt: skip

    def finish(self) -> dict:
        """Close the progress bar; the run's metrics, with its speed and its files."""
        self.bar.close()
        wall = time.perf_counter() - self.start
        self.metrics.update(
            steps=self.step,
            wall_s=wall,
            tokens_per_s=(self.tokens - self.tokens_at_start) / wall if wall > 0 else math.nan,
            n_parameters=self.model.num_parameters(),
            out=str(self.out),
            log_csv=str(self.out / "log.csv"),
            best_path=str(self.out / "best.pt"),
        )
        return self.metrics


def load_trained(path: str | Path, map_location: str | torch.device | None = None):
    """``(model, tokenizer, extra)`` from a checkpoint written by `train`."""
    model, extra = load_checkpoint(path, map_location=map_location)
    return model, tokenizer_from_dict(extra["tokenizer"]), extra


ASSETS = Path(__file__).resolve().parents[2] / "assets" / "checkpoints"


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text}")
    return value


def _parse_args(argv: list[str] | None, prog: str = "python -m attnbook.lm.train"):
    parser = argparse.ArgumentParser(
        prog=prog,
        description=plain(__doc__, {"python -m attnbook.lm.train": prog}),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        default="cpu",
        help="cpu: the shipped model, about 6 minutes on two cores; gpu: one GPU; tiny: "
        "seconds, a check that training runs, not a usable model",
    )
    parser.add_argument("--steps", type=int, help="length of the schedule")
    parser.add_argument("--device", help="cpu, cuda, cuda:1, mps (default: the best available)")
    parser.add_argument("--seed", type=int, help="initialisation and batch order")
    parser.add_argument("--out", help="folder for checkpoints, log.csv and loss_curve.png "
                        "(default: the preset's, under runs/)")  # fmt: skip
    earlier = parser.add_mutually_exclusive_group()  # what to do with a run already in OUT
    earlier.add_argument("--resume", action="store_true", help="continue from OUT/last.pt")
    earlier.add_argument("--overwrite", action="store_true",
                         help="replace the run OUT already holds (without it, or --resume, "
                         "a folder holding best.pt or last.pt is refused)")  # fmt: skip
    parser.add_argument("--text", help="train character level on this UTF-8 text file")
    parser.add_argument(
        "--budget-seconds",
        type=_positive,
        help="the whole command, imports, final evaluation and saving "
        "included, ends within this many seconds (at least one step runs)",
    )
    parser.add_argument("--batch-size", type=int, help="sequences per step over all processes")
    parser.add_argument("--threads", type=int, help="CPU threads per process")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--into-assets",
        action="store_true",
        help="also copy best.pt, log.csv and loss_curve.png over the shipped "
        "assets/checkpoints/<name>.pt, <name>_log.csv, <name>_loss_curve.png",
    )
    args = parser.parse_args(argv)
    config = dataclasses.replace(PRESETS[args.preset])
    overrides = {
        "steps": args.steps, "device": args.device, "seed": args.seed, "out": args.out,
        "text": args.text, "budget_seconds": args.budget_seconds,
        "batch_size": args.batch_size, "num_threads": args.threads,
    }  # fmt: skip
    for name, value in overrides.items():
        if value is not None:
            setattr(config, name, value)
    if args.text and args.out is None:
        config.out = f"runs/{Path(args.text).stem}"
    config.resume = args.resume
    config.progress = not args.no_progress
    try:
        config.check()
    except ValueError as error:
        parser.error(str(error))  # a usage message and exit status 2, not a traceback
    # Before any work, and before the folder is made: a text no run can use, and a run in
    # OUT that the new one would replace unasked.
    problem = (_text_problem(config.text, config.text_seq_len) if config.text else None) or (
        _earlier_run(Path(config.out), args.resume, args.overwrite)
    )
    if problem:
        parser.error(problem)
    return config, args


def _text_problem(text: str, seq_len: int) -> str | None:
    """Why ``--text`` cannot train a run (`_text_data` needs two sequences), or None."""
    path, need = Path(text), 2 * (seq_len + 1)
    if path.is_dir():
        why = "is a folder"
    elif not path.is_file():  # /dev/null, a FIFO, a socket
        why = "is not a regular file" if path.exists() else "does not exist"
    else:
        try:
            size = len(path.read_text(encoding="utf-8"))
        except UnicodeDecodeError:
            why = "is not UTF-8 text"
        except OSError as error:
            why = f"cannot be read ({error.strerror or error})"
        else:
            if size >= need:
                return None
            why = "is empty" if size == 0 else f"holds only {size} characters"
    return (
        f"argument --text: expected a UTF-8 text file of at least {need} characters (two "
        f"training sequences of {seq_len + 1}), got {text!r}, which {why}"
    )


RUN_FILES = ("best.pt", "last.pt", "log.csv", "loss_curve.png")


def _earlier_run(out: Path, resume: bool, overwrite: bool) -> str | None:
    """Why the command would replace a run ``out`` already holds unasked, or None."""
    held = [name for name in RUN_FILES if (out / name).is_file()]
    if overwrite or not {"best.pt", "last.pt"} & set(held):
        return None
    if resume and "last.pt" in held:
        return None
    try:  # the steps logged are a courtesy: a log that cannot be read says nothing
        rows = read_log(out / "log.csv") if "log.csv" in held else []
    except (OSError, UnicodeDecodeError, csv.Error):
        rows = []
    step = rows[-1].get("step") if rows else None
    files = ", ".join(held) + (f"; {step} steps logged" if step else "")
    if resume:  # best.pt alone: nothing to continue from
        return (
            f"argument --resume: expected {out / 'last.pt'} to continue from, but {out} holds "
            f"only a run's {files}; --overwrite replaces that run, or give another --out"
        )
    return (
        f"argument --out: expected a folder without a run, got {out}, which holds one "
        f"({files}); --resume continues it from last.pt, --overwrite replaces it, or give "
        f"another --out"
    )


def copy_into_assets(out: str | Path, name: str, assets: str | Path = ASSETS) -> list[Path]:
    """Copy a run's best.pt, log.csv and loss_curve.png to ``assets/<name>.pt`` and so on."""
    out, assets = Path(out), Path(assets)
    assets.mkdir(parents=True, exist_ok=True)
    pairs = [("best.pt", f"{name}.pt"), ("log.csv", f"{name}_log.csv"),
             ("loss_curve.png", f"{name}_loss_curve.png")]  # fmt: skip
    written = []
    for source, target in pairs:
        if (out / source).is_file():
            shutil.copyfile(out / source, assets / target)
            written.append(assets / target)
    return written


def main(
    argv: list[str] | None = None,
    started: float | None = None,
    prog: str = "python -m attnbook.lm.train",
) -> dict:
    """The command line; ``started`` is when the time budget began (default: now)."""
    config, args = _parse_args(argv, prog)
    config.budget_start = started
    if int(os.environ.get("RANK", "0")) == 0 and not config.text:
        print(PRESET_NOTES[args.preset].format(**dataclasses.asdict(config)), flush=True)
    metrics = train(config)
    if dist.is_initialized():
        # Every rank finishes its collectives before any tears the group down; an unclean
        # teardown can abort a process at exit.
        dist.barrier()
        dist.destroy_process_group()
    if int(os.environ.get("RANK", "0")) == 0:
        if args.into_assets:
            name = Path(config.text).stem if config.text else f"email_{args.preset}"
            for path in copy_into_assets(config.out, name):
                print(f"wrote {path}")
        shown = {k: v for k, v in metrics.items() if isinstance(v, int | float | str)}
        for key, value in shown.items():
            print(f"{key:>20}: {value:.4f}" if isinstance(value, float) else f"{key:>20}: {value}")
    return metrics


if __name__ == "__main__":
    main(started=process_start())
    exit_now()  # the budget holds to the end: no seconds of teardown after it
