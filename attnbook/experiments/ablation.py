"""The ablation ladder: what positions, norms, tied embeddings and the causal mask buy.

    attnbook ablate                          # every variant and seed, ~100 CPU s each
    attnbook ablate --jobs 2 --threads 1     # two runs at a time
    attnbook ablate --variant learned        # rerun one: 3 seeds, ~7 min on 2 cores
    attnbook ablate --steps 40 --out /tmp/ab # a quick look with a tiny budget
    attnbook ablate --lengths                # length generalisation (attnbook.experiments.lengths)

Each variant changes ONE design choice of the reference decoder (`attnbook.lm.model.TransformerLM`:
RoPE, pre-norm, untied embeddings, causal mask) and trains it on the email corpus with the
same emails and the same number of steps, once per seed (``AblationConfig.seeds``; a seed
sets the initialisation and the order of the batches). One seed cannot tell a design choice
from a lucky draw, so every number is reported as the mean over the seeds with its spread
(sample standard deviation, and the smallest and largest seed). A CPU-time cap stops a run
early only on an overloaded machine (``hit_time_cap`` says so). For each run the command
records

- the curves (``<variant>.csv``: step, training loss, validation loss, seconds);
- the final validation loss minus the corpus entropy (the floor no model can beat);
- the order probe: on held-out "please send the X before the Y ." emails (and "after"), is the
  item that goes first in the follow-up sentence ("X first , Y second .") the more probable
  of the two items at the next-token position? Measured from the model's next-token
  probabilities on the prefix alone, exactly as during generation.

and writes ``results.json`` (config, floor, every run's numbers and validation curve, each
variant's mean and spread) and the summary figure ``ablation.png`` to ``--out`` (default
``runs/ablation``; ``--into-assets`` updates the stored ladder in ``assets/ablation`` that
notebook 09 plots).

Sinusoids come with the original transformer's embedding scale (`LMConfig.embed_scale`: token
vectors at unit scale, multiplied by sqrt(d_model)); without it a sinusoid of amplitude 1
drowns a token vector of 0.02, and the extra rung ``sinusoidal_unscaled`` measures what that
costs. Learned positions keep GPT-2's recipe (both tables start at 0.02, no factor).

Careful with the unmasked variant: without the causal mask, position t sees token t+1 during
training, so its teacher-forced validation loss falls far BELOW the corpus entropy. It has
learned to copy, not to predict; the order probe, which sees only the prefix, shows that.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import csv
import dataclasses
import fcntl
import json
import math
import multiprocessing
import os
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import torch
from matplotlib.figure import Figure
from tqdm.auto import tqdm

from attnbook.helptext import plain
from attnbook.lm.corpus import make_splits
from attnbook.lm.data import batch_iterator, validation_loss
from attnbook.lm.model import LMConfig, TransformerLM, load_checkpoint, save_checkpoint
from attnbook.lm.tokenizer import WordTokenizer
from attnbook.lm.train import (
    build_optimizer,
    corpus_floor,
    encode_train_val,
    fit_batch,
    learning_rate,
)
from attnbook.progress import BudgetBar

__all__ = [
    "VARIANTS",
    "EXTRA_VARIANTS",
    "build_model",
    "AblationConfig",
    "run_variant",
    "run_ladder",
    "RERUN_CONFIG",
    "RERUN_PAIR",
    "RERUN_METRIC",
    "rerun_pair",
    "ranking",
    "stored_ranking",
    "summarise_runs",
    "METRICS",
    "train_probe_models",
    "load_probe_models",
    "TINY_CONFIG",
    "PROBE_CONFIG",
    "order_probe_items",
    "order_probe",
    "load_results",
    "stored_dir",
    "plot_ablation",
    "results_table",
]

DEFAULT_OUT = Path(__file__).resolve().parents[2] / "assets" / "ablation"  # above attnbook/
RUNS_OUT = Path("runs") / "ablation"  # the command line's default: outside version control

# name -> (group, label, LMConfig overrides). "rope" is the reference decoder itself: RoPE,
# pre-norm, untied embeddings, causal mask; every other variant changes one of these.
VARIANTS: dict[str, tuple[str, str, dict]] = {
    "none": ("positions", "no positions", {"positions": "none"}),
    "sinusoidal": (
        "positions",
        "sinusoidal (x sqrt d)",
        {"positions": "sinusoidal", "embed_scale": True},
    ),
    "sinusoidal_unscaled": ("positions", "sinusoidal, no sqrt d", {"positions": "sinusoidal"}),
    "learned": ("positions", "learned", {"positions": "learned"}),
    "rope": ("positions", "RoPE (reference)", {"positions": "rope"}),
    "post_norm": ("norm", "post-norm", {"norm": "post"}),
    "tied": ("embeddings", "tied embeddings", {"tie_weights": True}),
    "no_mask": ("mask", "no causal mask", {"causal": False}),
}
# Not on the ladder: the decoder of notebook 09's position probe, unmasked AND unpositioned.
EXTRA_VARIANTS = {
    "none_no_mask": ("probe", "no positions, no mask", {"positions": "none", "causal": False}),
}
_ALL = {**VARIANTS, **EXTRA_VARIANTS}


@dataclass
class AblationConfig:
    """The shared budget: every variant trains with exactly these settings."""

    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 2
    max_len: int = 80
    n_train: int = 20_000
    n_val: int = 1_000
    n_probe: int = 400  # order-probe emails (held out: drawn from the test stream)
    data_seed: int = 0
    seed: int = 0  # initialisation and batch order of one run (`run_variant`)
    seeds: tuple[int, ...] = (0, 1, 2)  # the ladder trains every variant once per seed
    steps: int = 3000  # about 100 CPU seconds per run with one thread
    # End a run at this step while the learning-rate schedule still spans `steps`: the first
    # steps of a stored run, reproduced exactly (notebook 09's rerun).
    stop_after: int | None = None
    batch_size: int = 64
    lr: float = 3e-3
    warmup_steps: int = 50
    min_lr_ratio: float = 0.05
    weight_decay: float = 0.01
    grad_clip: float = 1.0
    eval_every: int = 100
    # Safety stop in CPU seconds of the process (not wall time, which a loaded machine
    # stretches): 300 s of one core is under 5 minutes on two. A fair run never hits it.
    time_cap_s: float = 300.0
    threads: int | None = None  # torch CPU threads per variant (None: torch's default)
    entropy_samples: int = 20_000


# A few seconds: what the notebook uses to let a student rerun one variant.
TINY_CONFIG = AblationConfig(
    d_model=32, n_heads=2, n_layers=1, n_train=1_000, n_val=200, n_probe=100, steps=30,
    batch_size=32, warmup_steps=5, eval_every=15, entropy_samples=1_000, threads=1,
)  # fmt: skip
# The two small decoders without positions (causal / unmasked) of notebook 09's probe.
PROBE_CONFIG = AblationConfig(
    d_model=32, n_heads=2, n_layers=2, n_train=10_000, n_val=300, n_probe=100, steps=1500,
    batch_size=64, warmup_steps=20, eval_every=500, entropy_samples=2_000,
)  # fmt: skip
PROBE_MODELS = {"causal": "none", "unmasked": "none_no_mask"}


@dataclass
class _Data:
    tokenizer: WordTokenizer
    train: list[list[int]]
    val: list[list[int]]
    probe: list[dict]
    floor: float
    floor_se: float


def _data(config: AblationConfig) -> _Data:
    splits = make_splits(config.data_seed, config.n_train, config.n_val, n_test=20 * config.n_probe)
    tokenizer = WordTokenizer()
    floor, floor_se = corpus_floor(config.entropy_samples)
    probe = order_probe_items(splits["test"], tokenizer)[: config.n_probe]
    return _Data(tokenizer, *encode_train_val(tokenizer, splits), probe, floor, floor_se)


def order_probe_items(emails: list[list[str]], tokenizer: WordTokenizer) -> list[dict]:
    """One probe per order sentence: the prefix up to its "." and the two items.

    For "... please send the report before the slides ." the next words are "report first ,
    slides second ."; ``first`` is "report" and ``second`` "slides" (swapped for "after").
    Returns dicts with ``prefix_ids`` (BOS included), ``first_id``, ``second_id``, ``text``.
    """
    items = []
    for words in emails:
        for i, word in enumerate(words):
            if word in ("before", "after") and i + 4 < len(words) and words[i + 3] == ".":
                item, other = words[i - 1], words[i + 2]
                first, second = (item, other) if word == "before" else (other, item)
                prefix = words[: i + 4]
                items.append(
                    {
                        "prefix_ids": tokenizer.encode(prefix, add_eos=False),
                        "first_id": tokenizer.token_to_id[first],
                        "second_id": tokenizer.token_to_id[second],
                        "text": " ".join(prefix),
                    }
                )
    return items


@torch.no_grad()
def order_probe(model: TransformerLM, items: list[dict], batch_size: int = 128) -> dict:
    """Accuracy and mean probability share of the right first item, from next-token probs.

    Each prefix is scored alone (right padding with a key padding mask, read at its last real
    token), so an unmasked model sees no future token here: this is generation's view.
    """
    was_training = model.training
    model.eval()
    correct, share = [], []
    for start in range(0, len(items), batch_size):
        chunk = items[start : start + batch_size]
        lengths = torch.tensor([len(it["prefix_ids"]) for it in chunk])  # (B,)
        L = int(lengths.max())
        idx = torch.zeros(len(chunk), L, dtype=torch.long)  # (B, L), pad id 0
        for row, it in enumerate(chunk):
            idx[row, : len(it["prefix_ids"])] = torch.tensor(it["prefix_ids"])
        real = torch.arange(L)[None, :] < lengths[:, None]  # (B, L)
        logits = model(idx, key_padding_mask=real)  # (B, L, V)
        last = logits[torch.arange(len(chunk)), lengths - 1]  # (B, V)
        probs = last.softmax(-1)  # (B, V)
        p_first = probs[torch.arange(len(chunk)), [it["first_id"] for it in chunk]]  # (B,)
        p_second = probs[torch.arange(len(chunk)), [it["second_id"] for it in chunk]]  # (B,)
        correct += (p_first > p_second).tolist()
        share += (p_first / (p_first + p_second).clamp_min(1e-30)).tolist()
    model.train(was_training)
    return {
        "accuracy": float(np.mean(correct)) if correct else math.nan,
        "p_first_share": float(np.mean(share)) if share else math.nan,
        "n": len(correct),
    }


def build_model(name: str, config: AblationConfig, vocab_size: int) -> TransformerLM:
    """The variant's decoder, initialised from ``config.seed``."""
    if name not in _ALL:
        raise ValueError(f"name: expected one of {sorted(_ALL)}, got {name!r}")
    model_config = LMConfig(
        vocab_size=vocab_size,
        d_model=config.d_model,
        n_heads=config.n_heads,
        n_layers=config.n_layers,
        max_len=config.max_len,
        **_ALL[name][2],
    )
    torch.manual_seed(config.seed)
    return TransformerLM(model_config)


def run_variant(
    name: str,
    config: AblationConfig | None = None,
    out: str | Path | None = None,
    data: _Data | None = None,
    return_model: bool = False,
    progress: bool = False,
    of: tuple[int, int] | None = None,
) -> dict:
    """Train one variant with ``config.seed``; returns its record (and writes the curve
    ``<name>_seed<seed>.csv`` to ``out`` if given).

    The record holds the numbers results.json stores for the run; with ``return_model``
    the trained model is under ``"model"`` too (for probes in a notebook). ``progress``
    shows a tqdm bar whose time left also counts the run's CPU-time cap (`_RunBar`);
    ``of`` = (k, n) labels it "run k of n".
    """
    config = config or AblationConfig()
    threads_before = torch.get_num_threads()
    if config.threads:
        # Small models on a shared machine: one thread avoids two spinning on one core.
        torch.set_num_threads(config.threads)
    try:
        bar = _RunBar(name, config, progress, of)
        try:
            return _run_variant(name, config, out, data or _data(config), return_model, bar)
        finally:
            bar.bar.close()
    finally:
        torch.set_num_threads(threads_before)


class _RunBar:
    """A progress bar for one run, moved by ``bar_update(step)``. The run stops at its last
    step or when its CPU time reaches ``time_cap_s``, whichever comes first, so the bar's
    deadline is the wall time at which the cap will be reached at the CPU share seen so
    far; without ``show`` it does nothing."""

    def __init__(
        self, name: str, config: AblationConfig, show: bool, of: tuple[int, int] | None = None
    ) -> None:
        last = config.steps if config.stop_after is None else min(config.steps, config.stop_after)
        where = f"run {of[0]} of {of[1]}: " if of else ""
        self.cap = config.time_cap_s
        self.wall0, self.cpu0 = time.perf_counter(), time.process_time()
        self.bar = BudgetBar(
            total=last,
            desc=f"{where}{name} seed {config.seed}",
            file=sys.stdout,
            dynamic_ncols=True,
            mininterval=0.5,
            disable=not show,
        )

    def __call__(self, step: int) -> None:
        if self.bar.disable:
            return
        wall = time.perf_counter() - self.wall0
        cpu = time.process_time() - self.cpu0
        if cpu > 0 and self.cap:
            self.bar.deadline = self.wall0 + wall + (self.cap - cpu) * wall / cpu
        self.bar.update(step - self.bar.n)


def _run_variant(
    name: str,
    config: AblationConfig,
    out: str | Path | None,
    data: _Data,
    return_model: bool,
    progress: Callable[[int], None],
) -> dict:
    model = build_model(name, config, data.tokenizer.vocab_size)
    optimizer = build_optimizer(model, config)
    batches = batch_iterator(
        data.train, config.batch_size, seed=config.seed, pad_id=data.tokenizer.pad_id,
        group_by_length=16,
    )  # fmt: skip
    rows: list[dict] = []  # one per validation: the curve at the resolution of eval_every
    window: list[float] = []  # training losses since the last validation
    start, cpu_start = time.perf_counter(), time.process_time()
    hit_cap = False
    no_autocast = contextlib.nullcontext()
    model.train()
    step = 0
    last = config.steps if config.stop_after is None else min(config.steps, config.stop_after)
    while step < last:  # the trainer's schedule, step and validation loss, on one CPU thread
        for param_group in optimizer.param_groups:
            param_group["lr"] = learning_rate(config, step)
        batch, n_tokens = next(batches)
        loss = fit_batch(model, optimizer, batch, n_tokens, config.grad_clip, no_autocast)
        step += 1
        progress(step)
        window.append(float(loss))
        hit_cap = time.process_time() - cpu_start >= config.time_cap_s and step < last
        if step % config.eval_every == 0 or step == last or hit_cap:
            rows.append({"step": step, "train_loss": float(np.mean(window)),
                         "val_loss": validation_loss(model, data.val, pad_id=data.tokenizer.pad_id),
                         "elapsed_s": time.perf_counter() - start})  # fmt: skip
            window = []
        if hit_cap:
            break
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    val = rows[-1]["val_loss"]
    probe = order_probe(model, data.probe)
    group, label, overrides = _ALL[name]
    record = {
        "name": name,
        "group": group,
        "label": label,
        "overrides": overrides,
        "seed": config.seed,
        "steps": step,
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "hit_time_cap": hit_cap,
        "n_parameters": model.num_parameters(),
        "final_val_loss": val,
        "excess_over_entropy": val - data.floor,
        "order_probe_accuracy": probe["accuracy"],
        "order_probe_p_first_share": probe["p_first_share"],
        "order_probe_n": probe["n"],
        "val_curve": [[r["step"], r["val_loss"]] for r in rows],
        "floor": data.floor,
    }
    if out is not None:
        _write_curve(Path(out) / f"{name}_seed{config.seed}.csv", rows)
    if return_model:
        record["model"] = model.eval()
    return record


def _write_curve(path: Path, rows: list[dict]) -> None:
    """The run's curve: per validation, the mean training loss since the last one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["step", "train_loss", "val_loss", "elapsed_s"])
        writer.writeheader()
        for r in rows:
            writer.writerow({"step": r["step"], "train_loss": f"{r['train_loss']:.5f}",
                             "val_loss": f"{r['val_loss']:.5f}",
                             "elapsed_s": f"{r['elapsed_s']:.2f}"})  # fmt: skip


@contextlib.contextmanager
def _locked(path: Path):
    """Hold an exclusive lock on the folder of ``path`` (no lock file left behind)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


# Per run, results.json keeps these; per variant, the mean and spread of METRICS over seeds.
RUN_FIELDS = (
    "seed", "steps", "wall_s", "cpu_s", "hit_time_cap", "final_val_loss", "excess_over_entropy",
    "order_probe_accuracy", "order_probe_p_first_share", "order_probe_n", "val_curve",
)  # fmt: skip
METRICS = ("final_val_loss", "excess_over_entropy", "order_probe_accuracy")


def _spread(values: list[float]) -> dict:
    """Mean, sample standard deviation (0 for one value), smallest and largest."""
    v = np.asarray(values, dtype=float)
    sd = float(v.std(ddof=1)) if len(v) > 1 else 0.0
    return {"mean": float(v.mean()), "sd": sd, "min": float(v.min()), "max": float(v.max())}


def summarise_runs(runs: list[dict]) -> dict:
    """A variant's summary over its runs (one per seed): spreads and the mean curve."""
    curves = [dict(map(tuple, r["val_curve"])) for r in runs]
    steps = sorted(set.intersection(*(set(c) for c in curves)))
    return {
        "seeds": [r["seed"] for r in runs],
        "steps": min(r["steps"] for r in runs),
        "hit_time_cap": any(r["hit_time_cap"] for r in runs),
        "cpu_s": _spread([r["cpu_s"] for r in runs]),
        "wall_s": _spread([r["wall_s"] for r in runs]),
        **{metric: _spread([r[metric] for r in runs]) for metric in METRICS},
        "val_curve": [
            [s, *(_spread([c[s] for c in curves])[k] for k in ("mean", "min", "max"))]
            for s in steps
        ],
    }


def _shared(config: AblationConfig) -> dict:
    """The budget every run of a ladder shares (as JSON writes it)."""
    shared = {k: v for k, v in asdict(config).items() if k not in ("threads", "seed")}
    return json.loads(json.dumps(shared))  # tuples become lists, as they come back from disk


def _store(out: Path, config: AblationConfig, record: dict) -> dict:
    """Merge one run into ``out/results.json`` (under a lock: parallel jobs share it)."""
    path = out / "results.json"
    with _locked(path):
        results = load_results(path) if path.exists() else {}
        if results.get("config") != _shared(config):
            results = {}  # another budget: start afresh rather than mix budgets
        results["config"] = _shared(config)
        results["floor"], results["floor_se"] = record["floor"], record["floor_se"]
        results["command"] = "attnbook ablate"
        results["torch"] = torch.__version__
        stored = results.setdefault("variants", {})
        entry = stored.setdefault(
            record["name"],
            {k: record[k] for k in ("name", "group", "label", "overrides", "n_parameters")},
        )
        entry["runs"] = _with_run(entry.get("runs", []), {k: record[k] for k in RUN_FIELDS})
        entry["summary"] = summarise_runs(entry["runs"])
        _write_results(path, results, stored, plot_ablation, out / "ablation.png")
    return results


def _with_run(runs: list[dict], run: dict) -> list[dict]:
    """``runs`` (one per seed) with ``run`` in place of an earlier run of its seed, by seed."""
    by_seed = {r["seed"]: r for r in runs}
    by_seed[run["seed"]] = run
    return [by_seed[s] for s in sorted(by_seed)]


def _write_results(
    path: Path, results: dict, stored: dict, plot: Callable[[dict], Figure], figure: Path
) -> None:
    """Keep the ``stored`` variants in `VARIANTS` order as ``results["variants"]``, write
    ``results`` to ``path`` as JSON, and save ``plot``'s figure of them to ``figure``."""
    results["variants"] = {n: stored[n] for n in VARIANTS if n in stored}
    path.write_text(json.dumps(results, indent=1) + "\n")
    plot(results).savefig(figure, dpi=90)


def _job(name: str, config: AblationConfig, out: str) -> dict:
    return run_variant(name, config, out)


def run_ladder(
    names: list[str] | None = None,
    config: AblationConfig | None = None,
    out: str | Path = DEFAULT_OUT,
    jobs: int = 1,
    progress: bool = False,
) -> dict:
    """Train ``names`` (default: every variant), once per seed of ``config.seeds``, and merge
    each run into ``out/results.json``. ``progress``: a bar per run (one job) or over the
    runs (several jobs)."""
    config = config or AblationConfig()
    names = list(names or VARIANTS)
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        raise ValueError(f"names: unknown variant(s) {unknown}; expected some of {list(VARIANTS)}")
    out = Path(out)
    runs = [
        (name, dataclasses.replace(config, seed=seed)) for name in names for seed in config.seeds
    ]
    results: dict = {}
    floor_se = corpus_floor(config.entropy_samples)[1]
    if jobs <= 1:
        done = (
            run_variant(name, run_config, out, progress=progress, of=(k, len(runs)))
            for k, (name, run_config) in enumerate(runs, start=1)
        )
        for record in done:
            results = _store(out, config, {**record, "floor_se": floor_se})
            print(_line(record), flush=True)
        return results
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context) as pool:
        futures = [pool.submit(_job, name, run_config, str(out)) for name, run_config in runs]
        finished = concurrent.futures.as_completed(futures)
        if progress:
            finished = tqdm(finished, total=len(futures), desc="runs", file=sys.stdout)
        for future in finished:
            record = future.result()
            results = _store(out, config, {**record, "floor_se": floor_se})
            print(_line(record), flush=True)
    return results


def train_probe_models(
    out: str | Path = DEFAULT_OUT,
    config: AblationConfig = PROBE_CONFIG,
) -> dict[str, dict]:
    """Train the probe's two decoders (no positions; causal and unmasked), save them to
    ``out/probe_<kind>.pt`` (small: about 0.1 MB each) and return their records."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    data = _data(config)
    records = {}
    for kind, name in PROBE_MODELS.items():
        record = run_variant(name, config, data=data, return_model=True)
        model = record.pop("model")
        save_checkpoint(
            model,
            out / f"probe_{kind}.pt",
            config=asdict(config),
            metrics={k: v for k, v in record.items() if k != "val_curve"},
        )
        records[kind] = record
        print(_line(record), flush=True)
    return records


def load_probe_models(out: str | Path | None = None) -> dict[str, TransformerLM]:
    """The stored probe decoders, ``{"causal": model, "unmasked": model}``, in eval mode."""
    out = Path(out or stored_dir())
    return {kind: load_checkpoint(out / f"probe_{kind}.pt")[0] for kind in PROBE_MODELS}


def _line(r: dict) -> str:
    return (
        f"{r['name']:>19} seed {r['seed']}: {r['steps']} steps in {r['wall_s']:.0f} s "
        f"({r['cpu_s']:.0f} CPU s), val - entropy {r['excess_over_entropy']:+.4f} nats, "
        f"order probe {r['order_probe_accuracy']:.2f}"
    )


def stored_dir() -> Path:
    """``assets/ablation`` of the workbook: next to the package, else in the current folder
    or above it (a notebook runs in its own folder)."""
    here = Path.cwd().resolve()
    for root in (DEFAULT_OUT.parent.parent, here, *here.parents):
        if (root / "assets" / "ablation" / "results.json").is_file():
            return root / "assets" / "ablation"
    raise FileNotFoundError(
        f"no assets/ablation/results.json next to the package or above "
        f"{here}; run `attnbook ablate`"
    )


def load_results(path: str | Path | None = None) -> dict:
    """The stored ladder (``results.json``, by default the workbook's) as a dict."""
    return json.loads(Path(path or stored_dir() / "results.json").read_text())


def _pm(spread: dict, digits: int = 4, sign: str = "+") -> str:
    return f"{spread['mean']:{sign}.{digits}f} ± {spread['sd']:.{digits}f}"


def results_table(results: dict) -> str:
    """A Markdown table of the ladder: one row per variant, mean ± sd over its seeds and the
    range from the worst to the best seed."""
    lines = [
        "| variant | changes | seeds | steps | CPU s per run | val - entropy (nats), mean ± sd "
        "| min … max | order probe, mean ± sd | min … max |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, entry in results["variants"].items():
        s = entry["summary"]
        change = ", ".join(f"{k}={v}" for k, v in entry["overrides"].items())
        excess, probe = s["excess_over_entropy"], s["order_probe_accuracy"]
        lines.append(
            f"| {name} | {change} | {len(s['seeds'])} | {s['steps']} | {s['cpu_s']['mean']:.0f} "
            f"| {_pm(excess)} | {excess['min']:+.4f} … {excess['max']:+.4f} "
            f"| {_pm(probe, 2, '')} | {probe['min']:.2f} … {probe['max']:.2f} |"
        )
    return "\n".join(lines)


def _summary_bars(ax, results: dict, metric: str, colors: dict) -> None:
    """Mean over seeds as a bar, ± one standard deviation as an error bar, each seed a dot."""
    names = list(results["variants"])
    y = np.arange(len(names))
    for i, name in enumerate(names):
        entry = results["variants"][name]
        s = entry["summary"][metric]
        ax.barh(i, s["mean"], xerr=s["sd"], color=colors[name], alpha=0.6, capsize=3)
        seeds = [r[metric] for r in entry["runs"]]
        ax.plot(seeds, [i] * len(seeds), "k.", ms=4)
    ax.set_yticks(y, [results["variants"][n]["label"] for n in names])
    ax.invert_yaxis()


def plot_ablation(results: dict) -> Figure:
    """Validation curves (mean over seeds, band from the worst to the best seed) and the two
    summary numbers per variant (bar: mean; error bar: ± sd; dots: the seeds)."""
    fig = Figure(figsize=(13, 4.4))
    ax_curve, ax_excess, ax_probe = fig.subplots(1, 3, gridspec_kw={"width_ratios": [1.4, 1, 1]})
    floor = results["floor"]
    colors = {n: f"C{i}" for i, n in enumerate(VARIANTS)}
    n_seeds = len(results["config"]["seeds"])
    for name, entry in results["variants"].items():
        steps, mean, low, high = (
            np.array(c) for c in zip(*entry["summary"]["val_curve"], strict=True)
        )
        ax_curve.plot(steps, mean - floor, "-", color=colors[name], label=entry["label"])
        ax_curve.fill_between(steps, low - floor, high - floor, color=colors[name], alpha=0.2)
    ax_curve.axhline(0.0, color="black", lw=1, ls="--", label="corpus entropy")
    ax_curve.set_yscale("symlog", linthresh=0.01)
    ax_curve.set_xlabel("step")
    ax_curve.set_ylabel("validation loss - entropy (nats)")
    ax_curve.set_title(f"validation curves: mean of {n_seeds} seeds, band min-max")
    ax_curve.legend(fontsize=7)
    _summary_bars(ax_excess, results, "excess_over_entropy", colors)
    ax_excess.axvline(0.0, color="black", lw=1)
    ax_excess.set_xscale("symlog", linthresh=0.01)
    ax_excess.set_xlabel("final validation loss - entropy (nats)")
    ax_excess.set_ylabel("variant")
    ax_excess.set_title("mean ± sd, dots: seeds; < 0: it saw the answer", fontsize=9)
    _summary_bars(ax_probe, results, "order_probe_accuracy", colors)
    ax_probe.axvline(0.5, color="black", lw=1, ls="--", label="chance")
    ax_probe.set_yticks(ax_probe.get_yticks(), [""] * len(results["variants"]))
    ax_probe.set_xlim(0, 1)
    ax_probe.set_xlabel("order-probe accuracy")
    ax_probe.set_ylabel("variant (same order)")
    ax_probe.set_title("right item first? mean ± sd, dots: seeds", fontsize=9)
    ax_probe.legend(fontsize=7, loc="lower right")
    config = results["config"]
    fig.suptitle(
        f"ablation ladder: d={config['d_model']}, {config['n_layers']} blocks, "
        f"{config['steps']} steps per run, seeds {config['seeds']}"
    )
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------
# Notebook 09's rerun: two variants, a budget of seconds, ranked as the stored ladder ranks them
# ---------------------------------------------------------------------------------------
# Sinusoids with and without the sqrt(d) embedding scale: every stored seed ranks them the
# same way at step 200 as at the end of its 3000 steps (the scaled ones lower), so a short
# rerun already ranks them as the ladder does (tests/test_experiments_ablation.py checks both).
RERUN_PAIR = ("sinusoidal", "sinusoidal_unscaled")
RERUN_METRIC = "final_val_loss"
# The stored ladder's budget with seed 0, stopped early: the run is the stored run's first
# steps exactly (same emails, batches and learning rates), so its numbers can be checked
# against the stored curve. About 10 CPU seconds for the pair.
RERUN_CONFIG = dataclasses.replace(AblationConfig(), seed=0, seeds=(0,), stop_after=200, threads=1)


def rerun_pair(
    names: tuple[str, str] = RERUN_PAIR,
    config: AblationConfig = RERUN_CONFIG,
) -> dict[str, dict]:
    """Train two variants on the same emails with the same seed; their records by name."""
    data = _data(config)
    return {name: run_variant(name, config, data=data) for name in names}


def stored_ranking(
    results: dict,
    names: tuple[str, ...],
    metric: str = RERUN_METRIC,
) -> list[str]:
    """``names`` ordered by the stored mean of ``metric``: lowest loss first, or highest
    order-probe accuracy first."""

    def key(name: str) -> float:
        mean = results["variants"][name]["summary"][metric]["mean"]
        return -mean if metric == "order_probe_accuracy" else mean

    return sorted(names, key=key)


def ranking(records: dict[str, dict], metric: str = RERUN_METRIC) -> list[str]:
    """The names of ``records`` (one run each) ordered as `stored_ranking` orders them."""
    sign = -1.0 if metric == "order_probe_accuracy" else 1.0
    return sorted(records, key=lambda name: sign * records[name][metric])


PROG = "python -m attnbook.experiments.ablation"


def parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The ladder's command-line options (the command line module adds ``--lengths``)."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description=plain(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--variant", action="append", choices=list(VARIANTS),
                        help="run only this variant (repeatable); default: all")  # fmt: skip
    parser.add_argument("--out", help=f"folder for the results (default {RUNS_OUT})")
    parser.add_argument(
        "--into-assets", action="store_true", help=f"write into the stored ladder, {DEFAULT_OUT}"
    )
    parser.add_argument("--steps", type=int, help="steps per run (default 3000)")
    parser.add_argument("--n-train", type=int, help="training emails (default 20000)")
    parser.add_argument("--time-cap", type=float, help="CPU seconds per run at most")
    parser.add_argument("--threads", type=int, help="torch CPU threads per run")
    parser.add_argument("--jobs", type=int, default=1, help="runs trained at once")
    parser.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        help="initialisation and batch order, one run each (default 0 1 2)",
    )
    parser.add_argument(
        "--probe-models",
        action="store_true",
        help="instead: train and store the two decoders of the position probe",
    )
    return parser


Budget = TypeVar("Budget", bound="AblationConfig")


def configured(args: argparse.Namespace, config: Budget) -> Budget:
    """``config`` with the budget options of ``args`` (from `parser`) applied, and ``args.out``
    resolved to its default where not given."""
    if args.out is None:
        args.out = str(DEFAULT_OUT if args.into_assets else RUNS_OUT)
    seeds = tuple(args.seeds) if args.seeds else None
    given: dict[str, Any] = {"steps": args.steps, "n_train": args.n_train,
                             "time_cap_s": args.time_cap, "threads": args.threads,
                             "seeds": seeds}  # fmt: skip
    config = dataclasses.replace(config, **{k: v for k, v in given.items() if v is not None})
    if config.steps < config.eval_every:
        config = dataclasses.replace(config, eval_every=max(1, config.steps // 2))
    return config


def run(args: argparse.Namespace) -> dict:
    """The ladder (or, with ``--probe-models``, the probe's decoders) for parsed options."""
    config = configured(args, AblationConfig())
    if args.probe_models:
        if args.threads:
            torch.set_num_threads(args.threads)
        return train_probe_models(args.out)
    return run_ladder(args.variant, config, args.out, args.jobs, progress=True)


def main(argv: list[str] | None = None, prog: str = PROG) -> dict:
    return run(parser(prog).parse_args(argv))


if __name__ == "__main__":
    main()
