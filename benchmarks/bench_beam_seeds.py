"""Greedy decoding against beam search on the shipped reply model, over several seeds.

    python benchmarks/bench_beam_seeds.py                 # seeds 0-3, 40 emails per kind
    python benchmarks/bench_beam_seeds.py --seeds 0 1 --per-kind 12
    python benchmarks/bench_beam_seeds.py --kinds check   # the check questions only
    python benchmarks/bench_beam_seeds.py --mixed 500     # the length penalty, 500 mixed emails

Loads `assets/checkpoints/replies_cpu.pt` (no training) and, for every seed, draws
``--per-kind`` one-sentence emails of each kind (`ReplyTask.one_sentence_emails`). Each email
is decoded with beams of 1 (greedy), 2, 3 and 4 by total log-probability, and with a beam of
4 ranked by the length-normalised score of Wu et al. (alpha = 0.6, Vaswani et al.'s setting).
Prints, per seed and kind, how many replies are the task's true mode, and lists every email
where a wider beam writes a less likely reply than greedy decoding, with the model's and the
task's log-probabilities of both. Figures: `results/beam_seeds_cpu.md`.

``--mixed N`` instead decodes the N held-out emails of `bench_seq2seq.py` (one to three
sentences each, the same draw) with beams of 2 and 4 and the length penalty's alpha at 0, 0.6,
1 and 2, and prints, by the number of sentences in the email, how often the reply is the true
mode, its mean true probability and length, and on how many emails the penalty changed the
reply to a likelier one (helps) or a less likely one (hurts) under the task.
"""

from __future__ import annotations

import argparse
import math

import torch

from attnbook.lm.generation import find_checkpoint
from attnbook.lm.replies import KINDS, ReplyTask, reply_tokenizer
from attnbook.lm.seq2seq import ReplyTrainConfig, beam_decode, load_seq2seq

SETTINGS = {"1": (1, 0.0), "2": (2, 0.0), "3": (3, 0.0), "4": (4, 0.0), "4, a=0.6": (4, 0.6)}
PENALTIES = [(k, alpha) for k in (2, 4) for alpha in (0.0, 0.6, 1.0, 2.0)]


def mixed(model, task, tokenizer, n: int) -> None:
    """The length penalty on the held-out emails of bench_seq2seq.py, by email length."""
    emails = [e for e, _ in task.sample_pairs(n, ReplyTrainConfig().data_seed + 2)]
    rows: dict[tuple[int, int, float], list] = {}  # (sentences, k, alpha) -> judgements
    changed: dict[tuple[int, int, float], list[int]] = {}  # -> [helps, hurts]
    for email in emails:
        src = tokenizer.encode(email.words())
        size = len(email.sentences)
        plain = {}
        for k, alpha in PENALTIES:
            words = tokenizer.decode(
                beam_decode(model, src, k, 30, tokenizer.eos_id, alpha=alpha)[0]
            )
            judged = task.judge(email, words)
            rows.setdefault((size, k, alpha), []).append((judged, len(words.split())))
            if alpha == 0.0:
                plain[k] = judged
            elif judged.log_prob != plain[k].log_prob:
                tally = changed.setdefault((size, k, alpha), [0, 0])
                tally[judged.log_prob < plain[k].log_prob] += 1
    print(f"{n} held-out emails (bench_seq2seq.py's draw), by the number of sentences\n")
    print(
        "| sentences | emails | beam | alpha | true mode | mean true p | mean words "
        "| helps | hurts |"
    )
    print("|---" * 9 + "|")
    for size in sorted({s for s, _, _ in rows}):
        for k, alpha in PENALTIES:
            judged = rows[(size, k, alpha)]
            helps, hurts = changed.get((size, k, alpha), [0, 0])
            mode = sum(j.is_mode for j, _ in judged) / len(judged)
            true_p = sum(math.exp(j.log_prob) for j, _ in judged) / len(judged)
            words = sum(w for _, w in judged) / len(judged)
            extra = "" if alpha == 0.0 else f" {helps} | {hurts} |"
            print(
                f"| {size} | {len(judged)} | {k} | {alpha} | {mode:.3f} | {true_p:.4f} | "
                f"{words:.1f} |" + (extra or " - | - |")
            )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3])
    parser.add_argument("--per-kind", type=int, default=40)
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=list(KINDS))
    parser.add_argument(
        "--mixed",
        type=int,
        default=0,
        metavar="N",
        help="the length penalty on N held-out mixed emails instead",
    )
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    task, tokenizer = ReplyTask(), reply_tokenizer()
    model, _ = load_seq2seq(find_checkpoint("replies_cpu.pt"))
    model.eval()
    if args.mixed:
        mixed(model, task, tokenizer, args.mixed)
        return
    counts: dict[tuple[int, str, str], int] = {}
    worse = []
    for seed in args.seeds:
        for email in task.one_sentence_emails(args.per_kind, seed):
            if email.kinds[0] not in args.kinds:
                continue
            src = tokenizer.encode(email.words())
            replies = {}
            for name, (k, alpha) in SETTINGS.items():
                ids, score = beam_decode(model, src, k, 30, tokenizer.eos_id, alpha=alpha)
                words = tokenizer.decode(ids)
                replies[name] = (words, score)
                key = (seed, email.kinds[0], name)
                counts[key] = counts.get(key, 0) + task.judge(email, words).is_mode
            greedy, greedy_lp = replies["1"]
            for name, (words, score) in replies.items():
                if task.log_prob(email, words) < task.log_prob(email, greedy):
                    worse.append((seed, name, email, greedy, greedy_lp, words, score))
    print(f"true mode out of {args.per_kind} one-sentence emails of each kind\n")
    print("| seed | kind | " + " | ".join(f"beam {n}" for n in SETTINGS) + " |")
    print("|---" * (2 + len(SETTINGS)) + "|")
    for seed in args.seeds:
        for kind in args.kinds:
            row = " | ".join(str(counts[(seed, kind, n)]) for n in SETTINGS)
            print(f"| {seed} | {kind} | {row} |")
    print("\n| kind | " + " | ".join(f"beam {n}" for n in SETTINGS) + " |")
    print("|---" * (1 + len(SETTINGS)) + "|")
    total = args.per_kind * len(args.seeds)
    for kind in args.kinds:
        row = " | ".join(
            f"{sum(counts[(s, kind, n)] for s in args.seeds) / total:.3f}" for n in SETTINGS
        )
        print(f"| {kind} | {row} |")
    print(f"\n{len(worse)} decodings less likely under the task than the greedy reply:")
    for seed, name, email, greedy, greedy_lp, words, score in worse:
        print(
            f"seed {seed}, beam {name}: {email.text()!r}\n"
            f"    greedy: model {greedy_lp:.3f}, task {task.log_prob(email, greedy):.3f}"
            f"  {greedy}\n"
            f"    beam:   model {score:.3f}, task {task.log_prob(email, words):.3f}  {words}"
            f"  (true p {math.exp(task.log_prob(email, words)):.3f})"
        )


if __name__ == "__main__":
    main()
