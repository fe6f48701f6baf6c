"""Train the course's encoder-decoder on the reply task and measure it; write its checkpoint.

    python benchmarks/bench_seq2seq.py                       # 2 threads, the notebook's recipe
    python benchmarks/bench_seq2seq.py --out assets/checkpoints/replies_cpu.pt

Prints the training time (wall and CPU), the validation loss against the task's conditional
entropy, and decoding scored with the task's exact probabilities: on held-out emails, the
share of greedy replies the task can write (valid), and the share of replies that are the
true most likely reply (mode) for beams of 1, 2 and 3, overall and by sentence kind.
Figures: `results/encoder_decoder_cpu.md`.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import platform
import resource
import time

import torch

from attnbook.lm.replies import ReplyTask, encode_pairs, reply_tokenizer
from attnbook.lm.seq2seq import (
    ReplyTrainConfig,
    Seq2SeqConfig,
    Seq2SeqTransformer,
    beam_decode,
    save_seq2seq,
    train_replies,
)


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def decode_scores(model, task, tokenizer, emails, beam_sizes=(1, 2, 3)) -> dict:
    """{beam: {"valid", "mode", "true_p", "by_kind": {kind: mode share}}} on ``emails``."""
    out = {}
    for k in beam_sizes:
        judged = []
        for email in emails:
            ids, _ = beam_decode(model, tokenizer.encode(email.words()), k, 30, tokenizer.eos_id)
            judged.append((email, task.judge(email, tokenizer.decode(ids))))
        by_kind: dict[str, list[bool]] = {}
        for email, j in judged:
            if len(email.kinds) == 1:
                by_kind.setdefault(email.kinds[0], []).append(j.is_mode)
        out[k] = {
            "valid": sum(j.valid for _, j in judged) / len(judged),
            "mode": sum(j.is_mode for _, j in judged) / len(judged),
            "true_p": sum(math.exp(j.log_prob) for _, j in judged) / len(judged),
            "by_kind": {kind: sum(v) / len(v) for kind, v in sorted(by_kind.items())},
        }
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, default=ReplyTrainConfig.steps)
    parser.add_argument("--test-emails", type=int, default=500)
    parser.add_argument("--out", default=None, help="where to save the trained checkpoint")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    task, tokenizer = ReplyTask(), reply_tokenizer()
    config = dataclasses.replace(ReplyTrainConfig(), steps=args.steps, progress=False)

    start = time.perf_counter()
    train_ids = encode_pairs(tokenizer, task.sample_pairs(config.n_train, config.data_seed))
    val_pairs = task.sample_pairs(config.n_val, config.data_seed + 1)
    val_ids = encode_pairs(tokenizer, val_pairs)
    data_s = time.perf_counter() - start
    floor = task.floor([e for e, _ in val_pairs])

    torch.manual_seed(config.seed)
    model = Seq2SeqTransformer(
        Seq2SeqConfig(
            vocab_size=tokenizer.vocab_size, d_model=64, n_heads=4, n_layers=2, max_len=32
        )
    )
    cpu_before = _cpu_seconds()
    run = train_replies(
        model,
        train_ids,
        val_ids,
        config,
        pad_id=tokenizer.pad_id,
        on_eval=lambda r: print(
            f"step {r['step']:4d}  {r['elapsed_s']:6.1f} s  val {r['val_loss']:.4f}", flush=True
        ),
    )
    cpu_s = _cpu_seconds() - cpu_before
    tokens = sum(len(s) + len(t) - 1 for s, t in train_ids) / len(train_ids)

    test_emails = [e for e, _ in task.sample_pairs(args.test_emails, config.data_seed + 2)]
    start = time.perf_counter()
    overall = decode_scores(model, task, tokenizer, test_emails)
    by_kind = decode_scores(model, task, tokenizer, task.one_sentence_emails(40, seed=1))
    decode_s = time.perf_counter() - start
    metrics = {
        "val_loss": run["val_loss"],
        "floor": floor,
        "val_floor": task.pairs_loss(val_pairs),
        "train_wall_s": run["wall_s"],
        "train_cpu_s": cpu_s,
        "steps": run["steps"],
        "n_parameters": model.num_parameters(),
        "decoding": overall,
        "decoding_by_kind": by_kind,
    }
    print(
        f"\nmachine: {platform.processor() or platform.machine()}, torch {torch.__version__}, "
        f"{args.threads} threads"
    )
    print(
        f"data: {config.n_train:,} training pairs sampled and encoded in {data_s:.1f} s "
        f"(about {tokens:.0f} source + reply tokens a pair)"
    )
    print(
        f"training: {run['steps']} steps of {config.batch_size} pairs in {run['wall_s']:.1f} s "
        f"wall, {cpu_s:.1f} s CPU ({cpu_s / run['wall_s']:.0%} of one core on average); "
        f"{model.num_parameters():,} parameters"
    )
    print(
        f"validation loss {run['val_loss']:.4f}; conditional entropy {floor:.4f}; the task's "
        f"own loss on the validation pairs {metrics['val_floor']:.4f} nats per reply token"
    )
    print(
        f"decoding {len(test_emails)} held-out emails (+ 240 one-sentence ones) took "
        f"{decode_s:.0f} s\n"
    )
    print("| beam | valid | true mode | mean true p |")
    print("|---|---|---|---|")
    for k, s in overall.items():
        print(f"| {k} | {s['valid']:.3f} | {s['mode']:.3f} | {s['true_p']:.4f} |")
    kinds = list(by_kind[1]["by_kind"])
    print("\n| beam | " + " | ".join(kinds) + " |")
    print("|---|" + "---|" * len(kinds))
    for k, s in by_kind.items():
        print(f"| {k} | " + " | ".join(f"{s['by_kind'][kind]:.2f}" for kind in kinds) + " |")
    if args.out:
        save_seq2seq(
            model,
            args.out,
            train_config=dataclasses.asdict(config),
            tokenizer=tokenizer.to_dict(),
            metrics=metrics,
            log=[{k: v for k, v in r.items()} for r in run["log"]],
        )
        print(f"\nsaved {args.out}")


if __name__ == "__main__":
    main()
