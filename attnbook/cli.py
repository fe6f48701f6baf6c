"""The workbook's command line: ``attnbook train|sample|ablate|evaluate`` (or
``python -m attnbook ...``); ``attnbook VERB --help`` lists each verb's options.

    attnbook sample --count 10                        # ten emails from the shipped model
    attnbook train --preset tiny --budget-seconds 30  # -> runs/email_tiny/
    attnbook ablate --variant learned --steps 40 --seeds 0   # a quick look -> runs/ablation/
    attnbook evaluate                                 # the shipped model against the floor

Nothing is written into the tracked assets/ unless ``--into-assets`` asks for it; outputs go
under runs/ (ignored by git) by default.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from attnbook.helptext import plain
from attnbook.progress import exit_now, process_start

VERBS = {
    "train": "train the email model (or a character model of any text); -> runs/",
    "sample": "draw emails from a checkpoint, each judged by the true grammar",
    "ablate": "train the ablation ladder's variants; -> runs/ablation/",
    "evaluate": "a checkpoint's held-out loss against the entropy floor, and its samples",
}


def _number(kind, low: float, high: float | None = None, low_open: bool = False, what: str = ""):
    """An argparse type: a ``kind`` in [low, high] (``low_open``: low excluded)."""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        too_low = value <= low if low_open else value < low
        if too_low or (high is not None and value > high) or math.isnan(value):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text}")
        return value

    return parse


def _checkpoint(text: str) -> Path:
    path = Path(text)
    if not path.is_file():
        raise argparse.ArgumentTypeError(
            f"expected a checkpoint file written by `attnbook train` (such as "
            f"runs/email_cpu/best.pt), got {text!r}, which "
            f"{'is a folder' if path.is_dir() else 'does not exist'}"
        )
    return path


def _add_sampling(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--checkpoint", type=_checkpoint,
                        help="a checkpoint from `attnbook train` (default: the shipped "
                        "assets/checkpoints/email_cpu.pt)")  # fmt: skip
    parser.add_argument(
        "--temperature",
        type=_number(float, 0.0, what="a number >= 0"),
        default=1.0,
        help="divides the logits; 0 is greedy (default 1)",
    )
    parser.add_argument(
        "--top-k",
        type=_number(int, 0, what="an integer >= 0"),
        default=0,
        help="keep the k most likely tokens; 0 is off (default)",
    )
    parser.add_argument(
        "--top-p",
        type=_number(float, 0.0, 1.0, low_open=True, what="a number in (0, 1]"),
        default=1.0,
        help="keep the most likely tokens holding p; 1 is off",
    )
    parser.add_argument("--seed", type=int, default=0, help="the draw's seed (default 0)")
    parser.add_argument("--device", default="cpu", help="cpu, cuda, mps (default cpu)")


def _add_count(parser: argparse.ArgumentParser, flag: str, default: int, what: str) -> None:
    """An option taking an integer >= 1; its help is `what` and the default."""
    parser.add_argument(
        flag,
        type=_number(int, 1, what="an integer >= 1"),
        default=default,
        help=f"{what} (default {default})",
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="attnbook", description=plain(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    for verb in ("train", "ablate"):  # their own modules parse their options
        verbs.add_parser(verb, help=VERBS[verb], add_help=False)
    sample = verbs.add_parser("sample", help=VERBS["sample"], description=VERBS["sample"])
    _add_sampling(sample)
    _add_count(sample, "--count", 10, "emails to draw")
    sample.add_argument("--json", action="store_true", help="one JSON object per email")
    evaluate = verbs.add_parser("evaluate", help=VERBS["evaluate"], description=VERBS["evaluate"])
    _add_sampling(evaluate)
    _add_count(evaluate, "--emails", 2000, "held-out emails to score")
    _add_count(evaluate, "--samples", 200, "emails to sample and judge")
    evaluate.add_argument("--out", help="also write the figures to this JSON file")
    return parser


def _load(args):
    from attnbook.lm.generation import find_checkpoint
    from attnbook.lm.train import load_trained

    path = args.checkpoint or find_checkpoint()
    try:
        model, tokenizer, extra = load_trained(path, map_location=args.device)
    except ValueError as error:
        reason = str(error).removeprefix("path: ")
        raise SystemExit(f"attnbook: error: argument --checkpoint: {reason}") from None
    if tokenizer.bos_id is None or "please" not in tokenizer.token_to_id:
        raise SystemExit(
            f"attnbook: error: argument --checkpoint: expected an email model, "
            f"got {path}, trained on other text"
        )
    return path, model, tokenizer, extra


def _knobs(args) -> dict:
    return {"temperature": args.temperature, "top_k": args.top_k or None,
            "top_p": args.top_p if args.top_p < 1 else None}  # fmt: skip


def sample_command(args) -> list[dict]:
    """Print ``--count`` emails, each with the true grammar's verdict and log-probability."""
    from attnbook.lm.corpus import DEFAULT_GRAMMAR
    from attnbook.lm.generation import sample_emails

    path, model, tokenizer, _ = _load(args)
    emails = sample_emails(model, tokenizer, DEFAULT_GRAMMAR, args.count, seed=args.seed,
                           **_knobs(args))  # fmt: skip
    if args.json:
        for email in emails:
            print(json.dumps(email))
        return emails
    print(
        f"{args.count} emails from {path} ({_describe(args)}); the true grammar's "
        f"verdict and log-probability per token, end token counted:"
    )
    for i, email in enumerate(emails, 1):
        verdict = "valid" if email["valid"] else "INVALID"
        print(f"{i:>3}  {verdict:<7} {email['log_prob_per_token']:>7.3f}  {email['text']}")
        if not email["valid"]:
            print(f"{'':>13}{email['reason']}")
    row = _summary(emails)
    entropy, _ = DEFAULT_GRAMMAR.entropy_per_token(5_000, seed=12345)
    print(
        f"{row['valid']:.0%} valid; "
        + (
            f"mean true log-probability per token over the valid ones "
            f"{row['mean_log_prob']:.3f} nats"
            if row["valid"]
            else NO_VALID
        )
        + f" (the corpus's own emails: {-entropy:.3f})"
    )
    return emails


# What stands for the mean log-probability when no sample is valid (it would be nan).
NO_VALID = "no valid sample to score"


def _summary(emails: list[dict]) -> dict:
    """Valid and distinct fractions, mean true log-probability per token of the valid ones
    (None when none is valid: `--out`'s JSON gets null, not NaN)."""
    valid = [e for e in emails if e["valid"]]
    tokens = sum(e["n_tokens"] for e in valid)
    return {
        "valid": len(valid) / len(emails),
        "distinct": len({e["text"] for e in emails}) / len(emails),
        "mean_log_prob": sum(e["log_prob_per_token"] * e["n_tokens"] for e in valid) / tokens
        if valid
        else None,
    }


def _describe(args) -> str:
    return (
        f"temperature {args.temperature}, top-k {args.top_k or 'off'}, top-p "
        f"{args.top_p if args.top_p < 1 else 'off'}, seed {args.seed}"
    )


def evaluate_command(args) -> dict:
    """Held-out loss against the grammar's own loss on the same emails, then sample quality."""
    import torch

    from attnbook.lm.corpus import DEFAULT_GRAMMAR, make_splits
    from attnbook.lm.data import validation_loss
    from attnbook.lm.generation import sample_emails

    path, model, tokenizer, extra = _load(args)
    data_seed = extra.get("train_config", {}).get("data_seed", 0)
    emails = make_splits(data_seed, 0, 0, n_test=args.emails)["test"]  # never trained on
    loss = validation_loss(
        model,
        [tokenizer.encode(e) for e in emails],
        pad_id=tokenizer.pad_id,
        device=torch.device(args.device),
    )
    floor = -sum(DEFAULT_GRAMMAR.log_prob(e) for e in emails) / sum(len(e) + 1 for e in emails)
    drawn = sample_emails(model, tokenizer, DEFAULT_GRAMMAR, args.samples, seed=args.seed,
                          **_knobs(args))  # fmt: skip
    row = _summary(drawn)
    report = {
        "checkpoint": str(path), "emails": args.emails, "loss": loss,
        "grammar_loss": floor, "excess_over_floor": loss - floor,
        "perplexity": math.exp(loss), **_knobs(args), "seed": args.seed,
        "samples": args.samples, **row,
    }  # fmt: skip
    print(f"{path} on {args.emails} held-out emails (test stream, data seed {data_seed}):")
    print(
        f"  loss {loss:.4f} nats per token, the true grammar's {floor:.4f}: "
        f"{loss - floor:+.4f} above the floor; perplexity {math.exp(loss):.3f}"
    )
    scored = (
        f"mean true log-probability {row['mean_log_prob']:.3f} nats per token"
        if row["valid"]
        else NO_VALID
    )
    print(
        f"  {args.samples} samples ({_describe(args)}): {row['valid']:.1%} "
        f"valid, {row['distinct']:.1%} distinct, {scored}"
    )
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(report, indent=1) + "\n")
        print(f"wrote {args.out}")
    return report


def ablate_command(argv: list[str]) -> dict:
    """``attnbook ablate``: the ablation ladder (`attnbook.experiments.ablation`), or with
    ``--lengths`` the length experiment on the ladder's model (`attnbook.experiments.lengths`)."""
    from attnbook.experiments import ablation

    parser = ablation.parser(prog="attnbook ablate")
    parser.add_argument("--lengths", action="store_true",
                        help="instead: length generalisation (attnbook.experiments.lengths): "
                        "train on emails of at most 24 tokens, score held-out emails per "
                        "length band; variants none, rope, learned unless --variant; 1000 "
                        "steps unless --steps; writes lengths.json and lengths.png")  # fmt: skip
    args = parser.parse_args(argv)
    if args.probe_models or not args.lengths:
        return ablation.run(args)
    from attnbook.experiments.lengths import LengthConfig, run_lengths

    return run_lengths(args.variant, ablation.configured(args, LengthConfig()), args.out, args.jobs)


def main(argv: list[str] | None = None, started: float | None = None):
    """Run one verb; ``started`` is when a time budget begins (default: now)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "train":
        from attnbook.lm.train import main as train_main

        return train_main(argv[1:], started=started, prog="attnbook train")
    if argv and argv[0] == "ablate":
        return ablate_command(argv[1:])
    args = _parser().parse_args(argv)
    return {"sample": sample_command, "evaluate": evaluate_command}[args.verb](args)


def run() -> None:
    """The console script: the budget of ``train`` counts from this process's start."""
    main(started=process_start())
    exit_now()  # the budget holds to the end: no seconds of teardown after it


if __name__ == "__main__":
    run()
