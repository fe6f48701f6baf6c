"""Generation speed of the reference decoder with and without the key/value cache.

Greedy decoding of 64, 256 and 512 new tokens after a one-token prompt, batch 1, both
paths side by side in one run: without the cache every step reruns the whole sequence
(work growing with its length), with it a step feeds one token and attends over the cached
keys and values. The two outputs must agree token for token. Prints a Markdown table of
tokens/s and the speed-up, and with ``--write`` records it in ``results/`` (replacing the
header and the table, keeping the sections written below them). Not a test: run it by hand
(about a minute on one CPU thread),

    .venv/bin/python benchmarks/bench_kv_cache.py [--threads 1] [--write]

``--against REV`` times this checkout's cached decoding at 512 tokens against the model and
generation modules of git revision REV (loaded from ``git show`` into temporary modules),
the same weights, in turn, and checks that both give the same tokens.
``--profile`` prints torch.profiler's table for 512 cached tokens; ``--floor`` times each
tensor operation of one cached step alone and sums them: the cost of the arithmetic without
the Python around it; ``--overhead`` times the same decoding at ``d_model=8``, where the
arithmetic is negligible: the cost of the calls.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
import torch.nn.functional as F

from attnbook.lm.generation import generate_tokens
from attnbook.lm.model import LMConfig, TransformerLM

# The email model's vocabulary and the CPU preset's width, with room for 512 new tokens.
CONFIG = dict(vocab_size=89, d_model=128, n_heads=4, n_layers=4, max_len=640, positions="rope")
NEW_TOKENS = (64, 256, 512)
RESULTS = Path(__file__).parent / "results" / "kv_cache_cpu.md"


def timed(model: TransformerLM, n: int, use_cache: bool) -> tuple[float, float, list[int]]:
    """Wall seconds, this process's CPU seconds, and the tokens of one greedy generation."""
    start, cpu = time.perf_counter(), time.process_time()
    out = generate_tokens(model, [[1]], n, eos_id=None, temperature=0.0, use_cache=use_cache)
    return time.perf_counter() - start, time.process_time() - cpu, out[0]


def per_call_us(fn, calls: int = 2000) -> float:
    """Best of 5 averages of ``calls`` calls of ``fn``, in microseconds of CPU time."""
    for _ in range(200):
        fn()
    best = math.inf
    for _ in range(5):
        start = time.process_time()
        for _ in range(calls):
            fn()
        best = min(best, (time.process_time() - start) / calls)
    return 1e6 * best


@torch.inference_mode()
def kernel_floor(model: TransformerLM, length: int) -> list[tuple[str, int, float]]:
    """The tensor operations one cached step of ``model`` needs at ``length`` cached tokens,
    as `TransformerBlock.step` calls them, each timed alone on one token: ``(operation,
    calls per token, microseconds per call)``. Their sum is a floor for any eager
    implementation; the rest of a step is Python and dispatch."""
    c = model.config
    d, h, dk, hidden = c.d_model, c.n_heads, c.d_k, c.hidden
    x, wide = torch.randn(1, d), torch.randn(1, hidden)
    qkv_t, out_t = torch.randn(3 * d, d).t(), torch.randn(d, d).t()  # (d, 3d), (d, d) views
    in_t, fc_out_t = torch.randn(hidden, d).t(), torch.randn(d, hidden).t()
    head_t = torch.randn(c.vocab_size, d).t()
    b_qkv, b_d, b_in, b_head = (torch.randn(n) for n in (3 * d, d, hidden, c.vocab_size))
    ln_w, ln_b = torch.ones(d), torch.zeros(d)
    kv = torch.randn(1, 2, h, length + 1, dk)
    q, (keys, values) = torch.randn(1, h, 1, dk), kv.narrow(3, 0, length).unbind(1)
    pairs = torch.randn(1, 3, h, 1, dk // 2, dtype=torch.complex64)
    turn = torch.randn(3, 1, 1, dk // 2, dtype=torch.complex64)
    new = torch.randn(1, 2, h, 1, dk)
    n = c.n_layers
    return [
        ("addmm q,k,v stacked (d x 3d)", n, per_call_us(lambda: torch.addmm(b_qkv, x, qkv_t))),
        ("addmm W_O (d x d)", n, per_call_us(lambda: torch.addmm(b_d, x, out_t))),
        ("addmm fc_in (d x 4d)", n, per_call_us(lambda: torch.addmm(b_in, x, in_t))),
        ("addmm fc_out (4d x d)", n, per_call_us(lambda: torch.addmm(b_d, wide, fc_out_t))),
        ("addmm head (d x V)", 1, per_call_us(lambda: torch.addmm(b_head, x, head_t))),
        (f"attention over {length} keys", n,
         per_call_us(lambda: F.scaled_dot_product_attention(q, keys, values))),
        ("GELU", n, per_call_us(lambda: F.gelu(wide))),
        ("LayerNorm", 2 * n + 1, per_call_us(lambda: F.layer_norm(x, (d,), ln_w, ln_b))),
        ("RoPE product (q, k and v)", n, per_call_us(lambda: pairs * turn)),
        ("cache write (key and value)", n,
         per_call_us(lambda: kv.narrow(3, length, 1).copy_(new))),
        ("residual add", 2 * n, per_call_us(lambda: x + x)),
    ]  # fmt: skip


def modules_at(revision: str, folder: Path):
    """``attnbook.lm.model`` and ``attnbook.lm.generation`` as they are at git ``revision``,
    imported from copies in ``folder`` under names of their own (the generation module's
    imports of the model rewritten to the copy)."""
    root = Path(__file__).resolve().parent.parent
    tag = "".join(c for c in revision if c.isalnum())[:12]
    loaded = []
    for name in ("model", "generation"):
        text = subprocess.run(
            ["git", "show", f"{revision}:attnbook/lm/{name}.py"],
            cwd=root, check=True, capture_output=True, text=True,
        ).stdout  # fmt: skip
        text = text.replace("from attnbook.lm.model import", f"from _old_{tag}_model import")
        path = folder / f"_old_{tag}_{name}.py"
        path.write_text(text)
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module
        spec.loader.exec_module(module)
        loaded.append(module)
    return loaded


def against(revision: str, rounds: int, n: int = 512) -> str:
    """Cached greedy decoding of ``n`` tokens, this checkout against ``revision``, the same
    weights, alternating, ``rounds`` times each; a Markdown table of the medians."""
    torch.manual_seed(0)
    model = TransformerLM(LMConfig(**CONFIG)).eval()
    with tempfile.TemporaryDirectory() as folder:
        old_model, old_generation = modules_at(revision, Path(folder))
        old = old_model.TransformerLM(old_model.LMConfig(**CONFIG)).eval()
        old.load_state_dict(model.state_dict())

        def run(generate, which) -> tuple[float, float, list[int]]:
            start, cpu = time.perf_counter(), time.process_time()
            out = generate(which, [[1]], n, eos_id=None, temperature=0.0, use_cache=True)
            return time.perf_counter() - start, time.process_time() - cpu, out[0]

        sides = {
            "this checkout": (generate_tokens, model),
            revision: (old_generation.generate_tokens, old),
        }
        for generate, which in sides.values():
            generate(which, [[1]], 8, eos_id=None, temperature=0.0)  # warm-up
        wall: dict[str, list[float]] = {name: [] for name in sides}
        cpu: dict[str, list[float]] = {name: [] for name in sides}
        tokens: dict[str, list[int]] = {}
        for r in range(rounds):
            order = list(sides) if r % 2 == 0 else list(sides)[::-1]  # neither always first
            for name in order:
                seconds, cpu_seconds, tokens[name] = run(*sides[name])
                wall[name].append(seconds)
                cpu[name].append(cpu_seconds)
    same = tokens["this checkout"] == tokens[revision]
    lines = [
        f"| code | KV cache, {n} tokens (tokens/s, median) | per CPU second | runs (tokens/s) |",
        "|---|---:|---:|---|",
    ]
    for name in sides:
        runs = ", ".join(f"{n / t:.0f}" for t in wall[name])
        lines.append(
            f"| {name} | {n / statistics.median(wall[name]):.0f} | "
            f"{n / statistics.median(cpu[name]):.0f} | {runs} |"
        )
    ratio = statistics.median(wall[revision]) / statistics.median(wall["this checkout"])
    lines.append(
        f"\nThis checkout at {ratio:.2f}x the speed of `{revision}` (median wall time); "
        f"same tokens: {'yes' if same else 'NO'}."
    )
    if not same:
        raise SystemExit("\n".join(lines) + "\nthe two revisions decode different tokens")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--rounds", type=int, default=3, help="median of this many runs")
    parser.add_argument("--write", action="store_true", help=f"write {RESULTS.name}")
    parser.add_argument(
        "--profile", action="store_true", help="only profile 512 cached tokens (torch.profiler)"
    )
    parser.add_argument(
        "--floor",
        action="store_true",
        help="only time each operation of one cached step alone, and sum them",
    )
    parser.add_argument(
        "--overhead",
        action="store_true",
        help="only time cached decoding of the same model at d_model=8 (the calls, not the work)",
    )
    parser.add_argument(
        "--against",
        metavar="REV",
        help="only time cached decoding of 512 tokens against git revision REV, in turn",
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    load_before = os.getloadavg()[0]
    if args.against:
        table = against(args.against, args.rounds)
        print(
            f"{table}\n\n`--threads {args.threads} --rounds {args.rounds}`, torch "
            f"{torch.__version__}, load average {load_before:.2f} before, "
            f"{os.getloadavg()[0]:.2f} after."
        )
        return
    torch.manual_seed(0)
    model = TransformerLM(LMConfig(**CONFIG)).eval()
    if args.profile:
        from torch.profiler import ProfilerActivity, profile

        timed(model, 8, True)
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            timed(model, 512, True)
        events = prof.key_averages()
        print(events.table(sort_by="self_cpu_time_total", row_limit=20))
        calls = sum(e.count for e in events if e.key.startswith("aten::"))
        print(f"{calls / 512:.0f} aten operations per token (nested ones included)")
        return
    if args.floor:
        for length in (256, 512):
            rows = kernel_floor(model, length)
            for name, calls, us in rows:
                print(f"{name}: {calls} x {us:.1f} us")
            total = sum(calls * us for _, calls, us in rows)
            print(
                f"at {length} cached tokens: {total:.0f} us per token in the operations alone, "
                f"at most {1e6 / total:.0f} tokens/s (load average {os.getloadavg()[0]:.2f})\n"
            )
        return
    if args.overhead:
        # Same layers, heads and calls, 16x narrower: the arithmetic shrinks to almost
        # nothing, so a token's time is what the calls cost (Python, dispatch, kernel setup).
        tiny = TransformerLM(LMConfig(**{**CONFIG, "d_model": 8})).eval()
        timed(tiny, 8, True)
        best = min(timed(tiny, 64, True)[0] for _ in range(7))
        print(
            f"d_model=8, 64 cached tokens, best of 7: {1e6 * best / 64:.0f} us per token "
            f"(load average {os.getloadavg()[0]:.2f})"
        )
        return
    timed(model, 8, True), timed(model, 8, False)  # warm-up: allocator, kernels
    lines = [
        "| new tokens | no cache (tokens/s) | KV cache (tokens/s) | speed-up | same tokens "
        "| KV cache, per CPU second |",
        "|---:|---:|---:|---:|:---:|---:|",
    ]
    for n in NEW_TOKENS:
        plain, cached, cached_cpu = [], [], []
        for _ in range(args.rounds):  # alternate so that outside load hits both alike
            seconds, _, out_plain = timed(model, n, use_cache=False)
            plain.append(seconds)
            seconds, cpu_seconds, out_cached = timed(model, n, use_cache=True)
            cached.append(seconds)
            cached_cpu.append(cpu_seconds)
        same = out_plain == out_cached
        t_plain, t_cached = statistics.median(plain), statistics.median(cached)
        # CPU seconds of this process: what the decoding costs, less the waits for a core
        # that other processes hold (they still slow it through shared caches).
        lines.append(
            f"| {n} | {n / t_plain:.0f} | {n / t_cached:.0f} | "
            f"{t_plain / t_cached:.1f}x | {'yes' if same else 'NO'} | "
            f"{n / statistics.median(cached_cpu):.0f} |"
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
