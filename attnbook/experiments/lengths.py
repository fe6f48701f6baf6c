"""Length generalisation: train on short emails, score on longer ones.

    attnbook ablate --lengths                            # -> runs/ablation/lengths.json
    attnbook ablate --lengths --jobs 2 --threads 1 --into-assets   # notebook 09's copy

The question Kazemnejad et al. (2023) asked of decoders without positions: a model trained
only on short sequences, how well does it predict longer ones? Each variant of the ablation
ladder (default: no positions, RoPE, learned positions) trains with the ladder's own model,
optimiser and loop (`attnbook.experiments.ablation.run_variant`) on emails of at most
``LengthConfig.train_max_tokens`` tokens, and is then scored on held-out emails in length
bands (``LengthConfig.bands``): the first band is the training lengths, the others lie
beyond them. Lengths count tokens as the model reads them, ``<BOS>`` and ``<EOS>`` included.

The metric is the excess per token over the grammar's exact loss on the SAME emails (the
grammar gives every next word its exact probability): longer emails hold other sentences
than short ones, so their entropy per token differs, and only the excess over each band's
own floor compares bands fairly. Each band's excess is also split by where the token stands:
read at an input position that training reached, or at one beyond the longest training
email; and the excess per position over all held-out emails gives the curve of the figure.
Every number is the mean over the seeds with its spread, as in the ladder.

Learned positions need a table row for each position they are asked about, so ``max_len``
covers the longest band; the rows of positions no training email reaches get no gradient:
they keep their random initialisation, shrunk by AdamW's weight decay alone (under 2% over
the default run). That is the point of the experiment, not a flaw of the set-up.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import json
import math
import multiprocessing
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from matplotlib.figure import Figure

from attnbook.experiments.ablation import (
    DEFAULT_OUT,
    VARIANTS,
    AblationConfig,
    _Data,
    _locked,
    _shared,
    _spread,
    _with_run,
    _write_results,
    run_variant,
    stored_dir,
)
from attnbook.lm.corpus import DEFAULT_GRAMMAR, EOS, make_splits
from attnbook.lm.data import batch_logits, pad_batch
from attnbook.lm.model import TransformerLM
from attnbook.lm.tokenizer import WordTokenizer

__all__ = [
    "LENGTH_VARIANTS",
    "LengthConfig",
    "TINY_LENGTH_CONFIG",
    "length_data",
    "run_length_variant",
    "run_lengths",
    "load_lengths",
    "plot_lengths",
    "lengths_table",
    "band_label",
]

LENGTH_VARIANTS = ("none", "rope", "learned")
FILE = "lengths.json"


@dataclass
class LengthConfig(AblationConfig):
    """The ladder's budget, trained on short emails only and scored per length band."""

    # Longest email trained (and validated) on, in tokens with <BOS> and <EOS>: about three
    # emails in four of the corpus.
    train_max_tokens: int = 24
    # Inclusive token-length bands of held-out emails: the training lengths, then beyond.
    bands: tuple[tuple[int, int], ...] = ((1, 24), (25, 36), (37, 80))
    n_test: int = 40_000  # test-stream emails drawn to fill the bands (the long ones are rare)
    n_per_band: int = 600  # held-out emails scored per band (fewer if the stream has fewer)
    min_tokens_per_position: int = 100  # the per-position curve shows positions with more
    steps: int = 1000  # about 20 CPU seconds per run with one thread
    eval_every: int = 250


# Seconds: the tests' and the command line's smoke run.
TINY_LENGTH_CONFIG = LengthConfig(
    d_model=32, n_heads=2, n_layers=1, n_train=600, n_val=100, n_test=3_000, n_per_band=60,
    steps=20, batch_size=32, warmup_steps=5, eval_every=10, threads=1, seeds=(0,),
)  # fmt: skip


def band_label(band) -> str:
    low, high = band
    return f"{low}-{high} tokens"


def _check(config: LengthConfig) -> None:
    bands = [tuple(b) for b in config.bands]
    if not bands or any(len(b) != 2 or b[0] > b[1] for b in bands):
        raise ValueError(
            f"LengthConfig.bands: expected (low, high) pairs with low <= high, got {config.bands!r}"
        )
    if bands[0][1] != config.train_max_tokens:
        raise ValueError(
            f"LengthConfig.bands: the first band is the training lengths, so it "
            f"must end at train_max_tokens={config.train_max_tokens}, got "
            f"{bands[0]}"
        )
    for before, after in zip(bands, bands[1:]):
        if after[0] <= before[1]:
            raise ValueError(
                f"LengthConfig.bands: expected increasing, non-overlapping bands, "
                f"got {before} then {after}"
            )
    if bands[-1][1] - 1 > config.max_len:
        raise ValueError(
            f"LengthConfig.max_len: expected at least {bands[-1][1] - 1} (the "
            f"longest band's inputs), got {config.max_len}"
        )


@dataclass
class _Band:
    band: tuple[int, int]
    ids: list[list[int]]
    exact: list[list[float]]  # per email, the grammar's -log p of each predicted token

    @property
    def floor(self) -> float:
        """The grammar's exact loss per predicted token on these emails."""
        return sum(map(sum, self.exact)) / sum(map(len, self.exact))


@dataclass
class _LengthData:
    train: _Data  # the ladder's data: short training and validation emails only
    bands: list[_Band]


def _exact_loss(emails: list[list[str]]) -> float:
    """The grammar's own loss per predicted token (end token counted) on ``emails``."""
    return -sum(DEFAULT_GRAMMAR.log_prob(e) for e in emails) / sum(len(e) + 1 for e in emails)


def exact_token_losses(words: list[str]) -> list[float]:
    """The grammar's -log p of each word of an email given the words before it, and of its
    end (``len(words) + 1`` values; their sum is ``-log_prob(words)``)."""
    return [
        -math.log(DEFAULT_GRAMMAR.next_word_probs(words[:i])[nxt])
        for i, nxt in enumerate([*words, EOS])
    ]


def length_data(config: LengthConfig) -> _LengthData:
    """Short training and validation emails; held-out test emails sorted into the bands."""
    _check(config)
    splits = make_splits(config.data_seed, config.n_train, config.n_val, n_test=config.n_test)
    tokenizer = WordTokenizer()

    def short(emails):
        return [e for e in emails if len(e) + 2 <= config.train_max_tokens]

    train, val = short(splits["train"]), short(splits["val"])
    if len(train) < config.batch_size or not val:
        raise ValueError(
            f"LengthConfig.n_train: only {len(train)} training and {len(val)} "
            f"validation emails are short enough; draw more"
        )
    bands = []
    for low, high in config.bands:
        emails = [e for e in splits["test"] if low <= len(e) + 2 <= high][: config.n_per_band]
        if not emails:
            raise ValueError(
                f"LengthConfig.n_test: no test email of {low}-{high} tokens among "
                f"{config.n_test}; draw more"
            )
        bands.append(
            _Band(
                (low, high),
                [tokenizer.encode(e) for e in emails],
                [exact_token_losses(e) for e in emails],
            )
        )
    data = _Data(tokenizer, [tokenizer.encode(e) for e in train],
                 [tokenizer.encode(e) for e in val], probe=[], floor=_exact_loss(val),
                 floor_se=0.0)  # fmt: skip
    return _LengthData(data, bands)


@torch.no_grad()
def token_losses(
    model: TransformerLM,
    sequences: list[list[int]],
    pad_id: int,
) -> list[list[float]]:
    """Per sequence, the model's -log p of each predicted token (``len(ids) - 1`` values)."""
    model.eval()
    losses = []
    for start in range(0, len(sequences), 256):
        chunk = sequences[start : start + 256]
        batch = pad_batch(chunk, pad_id)
        logits = batch_logits(model, batch)  # (B, L, V)
        nll = F.cross_entropy(
            logits.float().flatten(0, 1), batch.targets.flatten(), reduction="none"
        ).view(batch.targets.shape)  # (B, L)
        losses += [row[: len(ids) - 1].tolist() for row, ids in zip(nll, chunk, strict=True)]
    return losses


def _mean_excess(pairs: list[tuple[float, float]]) -> float | None:
    return sum(m - e for m, e in pairs) / len(pairs) if pairs else None


def run_length_variant(
    name: str,
    config: LengthConfig | None = None,
    data: _LengthData | None = None,
    return_model: bool = False,
) -> dict:
    """Train ``name`` with ``config.seed`` on the short emails; its loss per length band,
    split by input position (reached in training or not), and its excess per position."""
    config = config or LengthConfig()
    data = data or length_data(config)
    record = run_variant(name, config, data=data.train, return_model=True)
    model = record.pop("model").eval()
    # Inputs are ids[:-1]: training reached the input positions 0 .. longest - 2.
    reached = max(len(ids) for ids in data.train.train) - 1
    bands: list[dict] = []
    by_position: list[list[tuple[float, float]]] = [[] for _ in range(config.max_len)]
    for band in data.bands:
        model_losses = token_losses(model, band.ids, data.train.tokenizer.pad_id)
        pairs = [(m, e) for ms, es in zip(model_losses, band.exact, strict=True)
                 for m, e in zip(ms, es, strict=True)]  # fmt: skip
        positions = [t for ms in model_losses for t in range(len(ms))]
        for t, pair in zip(positions, pairs, strict=True):
            by_position[t].append(pair)
        loss = sum(m for m, _ in pairs) / len(pairs)
        bands.append({
            "band": list(band.band), "n_emails": len(band.ids), "n_tokens": len(pairs),
            "loss": loss, "floor": band.floor, "excess": loss - band.floor,
            "excess_reached": _mean_excess([p for t, p in zip(positions, pairs) if t < reached]),
            "excess_beyond": _mean_excess([p for t, p in zip(positions, pairs) if t >= reached]),
            "n_tokens_beyond": sum(t >= reached for t in positions),
        })  # fmt: skip
    run = {
        k: record[k]
        for k in (
            "name",
            "label",
            "seed",
            "steps",
            "wall_s",
            "cpu_s",
            "hit_time_cap",
            "n_parameters",
        )
    }
    run["longest_trained"] = reached + 1
    run["bands"] = bands
    run["positions"] = {
        "n_tokens": [len(p) for p in by_position],
        "excess": [_mean_excess(p) for p in by_position],
    }
    if return_model:
        run["model"] = model
    return run


def _job(name: str, config: LengthConfig) -> dict:
    return run_length_variant(name, config)


def _summary(runs: list[dict]) -> dict:
    """Per band: mean, sd, min and max over the seeds of the excess (all tokens, those at
    positions training reached, those beyond) and of the loss; per position, the excess."""
    n_bands = len(runs[0]["bands"])

    def spreads(key: str) -> list[dict | None]:
        values = [[r["bands"][i][key] for r in runs] for i in range(n_bands)]
        return [None if None in v else _spread(v) for v in values]

    per_position = [
        [r["positions"]["excess"][t] for r in runs]
        for t in range(len(runs[0]["positions"]["excess"]))
    ]
    return {
        "seeds": [r["seed"] for r in runs],
        "cpu_s": _spread([r["cpu_s"] for r in runs]),
        **{key: spreads(key) for key in ("excess", "excess_reached", "excess_beyond", "loss")},
        "position_excess": [None if None in v else _spread(v) for v in per_position],
    }


def _store(out: Path, config: LengthConfig, runs: list[dict]) -> dict:
    """Merge ``runs`` into ``out/lengths.json`` (kept only if the budget is the same)."""
    path = out / FILE
    with _locked(path):
        results = json.loads(path.read_text()) if path.exists() else {}
        if results.get("config") != _shared(config):
            results = {}
        results.update({"config": _shared(config), "command": "attnbook ablate --lengths",
                        "torch": torch.__version__})  # fmt: skip
        stored = results.setdefault("variants", {})
        for run in runs:
            entry = stored.setdefault(run["name"], {"label": run["label"], "runs": []})
            kept = {k: v for k, v in run.items() if k not in ("name", "label")}
            entry["runs"] = _with_run(entry["runs"], kept)
            entry["summary"] = _summary(entry["runs"])
        _write_results(path, results, stored, plot_lengths, out / "lengths.png")
    return results


def run_lengths(
    names: list[str] | None = None,
    config: LengthConfig | None = None,
    out: str | Path = DEFAULT_OUT,
    jobs: int = 1,
) -> dict:
    """Train ``names`` (default: none, rope, learned) once per seed on the short emails,
    score each per band, and merge the runs into ``out/lengths.json``."""
    config = config or LengthConfig()
    names = list(names or LENGTH_VARIANTS)
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        raise ValueError(f"names: unknown variant(s) {unknown}; expected some of {list(VARIANTS)}")
    _check(config)
    out = Path(out)
    configs = [(n, dataclasses.replace(config, seed=s)) for n in names for s in config.seeds]
    if jobs <= 1:
        data = length_data(config)  # the same emails for every run
        runs = []
        for name, run_config in configs:
            runs.append(run_length_variant(name, run_config, data))
            print(_line(runs[-1]), flush=True)
    else:
        context = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context) as pool:
            futures = [pool.submit(_job, n, c) for n, c in configs]
            runs = []
            for future in concurrent.futures.as_completed(futures):
                runs.append(future.result())
                print(_line(runs[-1]), flush=True)
    return _store(out, config, runs)


def _line(run: dict) -> str:
    bands = ", ".join(f"{band_label(b['band'])} {b['excess']:+.4f}" for b in run["bands"])
    return (
        f"{run['name']:>10} seed {run['seed']}: {run['steps']} steps, {run['cpu_s']:.0f} "
        f"CPU s; loss - exact loss per band: {bands}"
    )


def load_lengths(path: str | Path | None = None) -> dict:
    """The stored experiment (by default the workbook's ``assets/ablation/lengths.json``)."""
    return json.loads(Path(path or stored_dir() / FILE).read_text())


def plot_lengths(results: dict) -> Figure:
    """Left: excess over the exact loss per length band, mean over seeds (line) ± sd (error
    bars), each seed a dot. Right: the excess per input position over all held-out emails,
    mean over seeds with the band from the lowest to the highest seed. Dashed: the end of
    the positions training reached."""
    fig = Figure(figsize=(13, 4.4))
    ax_band, ax_pos = fig.subplots(1, 2)
    config = results["config"]
    bands = config["bands"]
    x = np.arange(len(bands))
    colors = {n: f"C{i}" for i, n in enumerate(VARIANTS)}
    names = list(results["variants"])
    reached = min(r["longest_trained"] for e in results["variants"].values()
                  for r in e["runs"]) - 1  # fmt: skip
    for k, name in enumerate(names):
        entry = results["variants"][name]
        shift = 0.06 * (k - (len(names) - 1) / 2)  # side by side, so the bars do not hide
        mean = [s["mean"] for s in entry["summary"]["excess"]]
        sd = [s["sd"] for s in entry["summary"]["excess"]]
        ax_band.errorbar(x + shift, mean, yerr=sd, color=colors[name], marker="o", capsize=4,
                         label=entry["label"])  # fmt: skip
        for run in entry["runs"]:
            ax_band.plot(x + shift, [b["excess"] for b in run["bands"]], ".",
                         color=colors[name], alpha=0.5, ms=5)  # fmt: skip
        counts = entry["runs"][0]["positions"]["n_tokens"]
        shown = [
            t
            for t, s in enumerate(entry["summary"]["position_excess"])
            if s is not None and counts[t] >= config["min_tokens_per_position"]
        ]
        spread = [entry["summary"]["position_excess"][t] for t in shown]
        ax_pos.plot(shown, [s["mean"] for s in spread], color=colors[name],
                    label=entry["label"])  # fmt: skip
        ax_pos.fill_between(shown, [s["min"] for s in spread], [s["max"] for s in spread],
                            color=colors[name], alpha=0.2)  # fmt: skip
    ax_band.axvline(0.5, color="black", ls="--", lw=1, label="longest trained email")
    ax_pos.axvline(reached - 0.5, color="black", ls="--", lw=1,
                   label="last position reached in training")  # fmt: skip
    for ax in (ax_band, ax_pos):
        ax.set_yscale("symlog", linthresh=0.01)
        ax.set_ylim(bottom=0.0)  # the excess of a whole band cannot be negative in expectation
        ax.set_ylabel("loss - exact loss (nats per token)")
        ax.legend(fontsize=8)
    ax_band.set_xticks(
        x, [("trained: " if i == 0 else "") + band_label(b) for i, b in enumerate(bands)]
    )
    ax_band.set_xlabel("held-out emails by length")
    n_seeds = len(config["seeds"])
    ax_band.set_title(f"per length band: mean ± sd of {n_seeds} seeds, dots: seeds", fontsize=10)
    ax_pos.set_xlabel("input position of the token that predicts (0 = <BOS>)")
    ax_pos.set_title(
        f"per position, all held-out emails: mean, band min-max of {n_seeds} seeds", fontsize=10
    )
    fig.suptitle(
        f"length generalisation: trained on emails of at most "
        f"{config['train_max_tokens']} tokens, {config['steps']} steps"
    )
    fig.tight_layout()
    return fig


def _cell(spread: dict | None) -> str:
    if spread is None:
        return "-"
    return (
        f"{spread['mean']:+.4f} ± {spread['sd']:.4f} ({spread['min']:+.4f} … {spread['max']:+.4f})"
    )


def lengths_table(results: dict) -> str:
    """A Markdown table: per variant and band, the excess over the exact loss as mean ± sd
    (worst … best seed), for all tokens and, past the training lengths, for the tokens read
    at positions no training email reached."""
    bands = results["config"]["bands"]
    head = [f"{band_label(bands[0])} (trained)"]
    for band in bands[1:]:
        head += [f"{band_label(band)}, all tokens", f"{band_label(band)}, positions beyond"]
    lines = [
        f"| variant | seeds | CPU s per run | {' | '.join(head)} |",
        "|---|---:|---:|" + "---:|" * len(head),
    ]
    for entry in results["variants"].values():
        s = entry["summary"]
        cells = [_cell(s["excess"][0])]
        for i in range(1, len(bands)):
            cells += [_cell(s["excess"][i]), _cell(s["excess_beyond"][i])]
        lines.append(
            f"| {entry['label']} | {len(s['seeds'])} | {s['cpu_s']['mean']:.0f} "
            f"| {' | '.join(cells)} |"
        )
    return "\n".join(lines)
