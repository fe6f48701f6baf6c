"""Training throughput of each preset of `attnbook.lm.train`, in real (unpadded) tokens per second.

    python benchmarks/bench_train.py                      # every preset, best device
    python benchmarks/bench_train.py --device cpu --presets cpu
    python benchmarks/bench_train.py --device cuda --peak-flops 989e12

It times the trainer's own step (forward under autocast, masked loss, backward, clipping,
AdamW) on batches of the preset's size. On CUDA it also prints the fraction of the chip's
dense bf16 peak that the step reaches, counting 6 * parameters * tokens FLOPs per step (the
usual estimate; it leaves out attention's L^2 term, which is small for emails this short).
"""

from __future__ import annotations

import argparse
import time

import torch

from attnbook.lm.corpus import make_splits
from attnbook.lm.data import batch_iterator
from attnbook.lm.model import TransformerLM, autocast_context, pick_device
from attnbook.lm.tokenizer import WordTokenizer
from attnbook.lm.train import PRESETS, build_optimizer, fit_batch, model_config_for

H100_H200_BF16_DENSE = 989e12  # FLOP/s, the SXM parts' dense bf16 tensor-core peak


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def measure(preset: str, device: torch.device, steps: int, warmup: int) -> dict:
    """Tokens per second and parameters of ``preset``'s training step on ``device``."""
    config = PRESETS[preset]
    tokenizer = WordTokenizer()
    n_emails = max(config.batch_size * (steps + warmup), 2_000)
    emails = make_splits(0, n_train=n_emails, n_val=0, n_test=0)["train"]
    model_config = model_config_for(config, tokenizer.vocab_size)
    torch.manual_seed(0)
    model = TransformerLM(model_config).to(device)
    optimizer = build_optimizer(model, config)
    batches = batch_iterator(
        [tokenizer.encode(e) for e in emails], config.batch_size,
        group_by_length=config.group_by_length,
    )  # fmt: skip
    autocast = autocast_context(device)
    tokens = 0
    for step in range(warmup + steps):
        if step == warmup:
            _sync(device)
            start, tokens = time.perf_counter(), 0
        batch, n_tokens = next(batches)
        fit_batch(model, optimizer, batch.to(device), n_tokens, config.grad_clip, autocast)
        tokens += n_tokens
    _sync(device)
    seconds = time.perf_counter() - start
    return {
        "preset": preset,
        "parameters": model.num_parameters(),
        "tokens_per_s": tokens / seconds,
        "flops_per_s": 6 * model.num_parameters() * tokens / seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", help="cpu, cuda, mps (default: the best available)")
    parser.add_argument("--presets", nargs="+", default=["cpu", "gpu"], choices=sorted(PRESETS))
    parser.add_argument("--steps", type=int, default=30, help="timed steps per preset")
    parser.add_argument("--warmup", type=int, default=5, help="untimed steps first")
    parser.add_argument(
        "--peak-flops", type=float, default=H100_H200_BF16_DENSE,
        help="the chip's dense bf16 peak in FLOP/s (default: H100/H200 SXM, 989e12)",
    )  # fmt: skip
    args = parser.parse_args()
    device = pick_device(args.device)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else device.type
    print(f"device: {name}, torch {torch.__version__}, {torch.get_num_threads()} CPU threads")
    for preset in args.presets:
        result = measure(preset, device, args.steps, args.warmup)
        line = (
            f"{preset:>5}: {result['parameters']:>10,} parameters  "
            f"{result['tokens_per_s']:>12,.0f} tokens/s"
        )
        if device.type == "cuda":
            line += f"  {result['flops_per_s'] / args.peak_flops:.2%} of bf16 peak"
        print(line)


if __name__ == "__main__":
    main()
