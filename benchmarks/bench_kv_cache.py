"""Generation speed of the reference decoder with and without the key/value cache.

Greedy decoding of 64, 256 and 512 new tokens after a one-token prompt, batch 1, both
paths side by side in one run: without the cache every step reruns the whole sequence
(work growing with its length), with it a step feeds one token and attends over the cached
keys and values. The two outputs must agree token for token. Prints a Markdown table of
tokens/s and the speed-up, and with ``--write`` records it in ``results/`` (replacing the
header and the table, keeping the sections written below them). Not a test: run it by hand
(about a minute on one CPU thread),

    .venv/bin/python benchmarks/bench_kv_cache.py [--threads 1] [--write]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from pathlib import Path

import torch

from attnbook.lm.generation import generate_tokens
from attnbook.lm.model import LMConfig, TransformerLM

# The email model's vocabulary and the CPU preset's width, with room for 512 new tokens.
CONFIG = dict(vocab_size=89, d_model=128, n_heads=4, n_layers=4, max_len=640, positions="rope")
NEW_TOKENS = (64, 256, 512)
RESULTS = Path(__file__).parent / "results" / "kv_cache_cpu.md"


def timed(model: TransformerLM, n: int, use_cache: bool) -> tuple[float, list[int]]:
    start = time.perf_counter()
    out = generate_tokens(model, [[1]], n, eos_id=None, temperature=0.0, use_cache=use_cache)
    return time.perf_counter() - start, out[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--rounds", type=int, default=3, help="median of this many runs")
    parser.add_argument("--write", action="store_true", help=f"write {RESULTS.name}")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    load_before = os.getloadavg()[0]
    torch.manual_seed(0)
    model = TransformerLM(LMConfig(**CONFIG)).eval()
    timed(model, 8, True), timed(model, 8, False)  # warm-up: allocator, kernels
    lines = [
        "| new tokens | no cache (tokens/s) | KV cache (tokens/s) | speed-up | same tokens |",
        "|---:|---:|---:|---:|:---:|",
    ]
    for n in NEW_TOKENS:
        plain, cached = [], []
        for _ in range(args.rounds):  # alternate so that outside load hits both alike
            seconds, out_plain = timed(model, n, use_cache=False)
            plain.append(seconds)
            seconds, out_cached = timed(model, n, use_cache=True)
            cached.append(seconds)
        same = out_plain == out_cached
        t_plain, t_cached = statistics.median(plain), statistics.median(cached)
        lines.append(
            f"| {n} | {n / t_plain:.0f} | {n / t_cached:.0f} | "
            f"{t_plain / t_cached:.1f}x | {'yes' if same else 'NO'} |"
        )
        print(lines[-1], flush=True)
        if not same:
            raise SystemExit(f"{n} tokens: the cached output differs from the uncached one")
    header = (
        f"# KV cache: generation tokens/s on the CPU\n\n"
        f"`benchmarks/bench_kv_cache.py --threads {args.threads} --rounds {args.rounds}`: "
        f"greedy decoding after a one-token prompt, batch 1, model {CONFIG} "
        f"({model.num_parameters():,} parameters), torch {torch.__version__}, "
        f"{platform.processor() or platform.machine()}, {args.threads} thread(s), median of "
        f"{args.rounds} alternating runs. A shared machine: load average "
        f"{load_before:.2f} before, {os.getloadavg()[0]:.2f} after.\n"
    )
    table = header + "\n" + "\n".join(lines) + "\n"
    print("\n" + table)
    if args.write:
        kept = RESULTS.read_text() if RESULTS.exists() else ""
        below = kept[kept.index("\n## ") :] if "\n## " in kept else ""  # the analysis sections
        RESULTS.write_text(table + below)


if __name__ == "__main__":
    main()
