"""Training throughput of the reference decoder against a decoder built from torch's own layers.

Prints forward+backward tokens per second for a small and a medium configuration, for
`attnbook.lm.model.TransformerLM` and for a decoder of the same size made of
`torch.nn.TransformerEncoderLayer` (pre-norm, GELU, causal mask) with the same embedding,
learned positions, final LayerNorm and head, and the ratio ours / baseline. Both models run
in alternating rounds so that load from other processes hits both alike; the median round
is reported. Not a test: run it by hand,

    .venv/bin/python benchmarks/bench_decoder.py [--device cuda] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from attnbook.lm.model import LMConfig, TransformerLM, autocast_context, pick_device


@dataclass
class Case:
    name: str
    d_model: int
    n_heads: int
    n_layers: int
    seq_len: int
    batch: int
    vocab_size: int = 512


CASES = [
    Case("small", d_model=128, n_heads=4, n_layers=4, seq_len=128, batch=16),
    Case("medium", d_model=256, n_heads=8, n_layers=6, seq_len=256, batch=8),
]


class TorchLayersDecoder(nn.Module):
    """The baseline: the same decoder assembled from `nn.TransformerEncoderLayer`."""

    def __init__(self, case: Case) -> None:
        super().__init__()
        d = case.d_model
        self.embed = nn.Embedding(case.vocab_size, d)
        self.pos = nn.Embedding(case.seq_len, d)
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(
                d,
                case.n_heads,
                dim_feedforward=4 * d,
                dropout=0.0,
                activation="gelu",
                batch_first=True,
                norm_first=True,
            )
            for _ in range(case.n_layers)
        )
        self.ln_final = nn.LayerNorm(d)
        self.head = nn.Linear(d, case.vocab_size)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        L = idx.shape[1]
        mask = nn.Transformer.generate_square_subsequent_mask(L, device=idx.device)  # (L, L)
        h = self.embed(idx) + self.pos(torch.arange(L, device=idx.device))  # (B, L, d)
        for layer in self.layers:
            h = layer(h, src_mask=mask, is_causal=True)  # (B, L, d)
        return self.head(self.ln_final(h)).float()  # (B, L, V)


def ours(case: Case, positions: str) -> TransformerLM:
    return TransformerLM(
        LMConfig(
            vocab_size=case.vocab_size,
            d_model=case.d_model,
            n_heads=case.n_heads,
            n_layers=case.n_layers,
            max_len=case.seq_len,
            positions=positions,
        )
    )


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()
    elif device.type == "mps":
        torch.mps.synchronize()


def tokens_per_second(
    model: nn.Module, idx: torch.Tensor, steps: int, device: torch.device
) -> float:
    """Forward, cross-entropy and backward, ``steps`` times; optimiser excluded."""
    inputs, targets = idx[:, :-1], idx[:, 1:]  # (B, L-1) each
    sync(device)
    start = time.perf_counter()
    for _ in range(steps):
        model.zero_grad(set_to_none=True)
        with autocast_context(device):
            logits = model(inputs)  # (B, L-1, V)
        loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())
        loss.backward()
    sync(device)
    return steps * inputs.numel() / (time.perf_counter() - start)


def run_case(case: Case, device: torch.device, rounds: int, steps: int) -> dict[str, float]:
    torch.manual_seed(0)
    models = {
        "ours (learned)": ours(case, "learned"),
        "ours (rope)": ours(case, "rope"),
        "torch layers": TorchLayersDecoder(case),
    }
    count = models["ours (learned)"].num_parameters()
    baseline_count = sum(p.numel() for p in models["torch layers"].parameters())
    assert count == baseline_count, f"sizes differ: {count} != {baseline_count}"
    idx = torch.randint(0, case.vocab_size, (case.batch, case.seq_len + 1), device=device)
    for model in models.values():
        model.to(device).train()
        tokens_per_second(model, idx, 1, device)  # warm-up: allocator, kernels, autocast caches
    rates: dict[str, list[float]] = {name: [] for name in models}
    for _ in range(rounds):
        for name, model in models.items():
            rates[name].append(tokens_per_second(model, idx, steps, device))
    return {name: statistics.median(values) for name, values in rates.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", help="cpu, cuda or mps (default cpu)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating timing rounds")
    parser.add_argument("--steps", type=int, default=3, help="training steps per round")
    args = parser.parse_args()
    device = pick_device(args.device)
    print(
        f"torch {torch.__version__}, device {device}, {torch.get_num_threads()} threads, "
        f"median of {args.rounds} rounds x {args.steps} steps, forward+backward tokens/s"
    )
    header = f"{'config':<8} {'shape (d,h,N,L,B)':<20} {'ours':>10} {'ours rope':>10} "
    print(header + f"{'torch layers':>13} {'ratio':>6}")
    for case in CASES:
        rates = run_case(case, device, args.rounds, args.steps)
        shape = f"{case.d_model},{case.n_heads},{case.n_layers},{case.seq_len},{case.batch}"
        ratio = rates["ours (learned)"] / rates["torch layers"]
        print(
            f"{case.name:<8} {shape:<20} {rates['ours (learned)']:>10.0f} "
            f"{rates['ours (rope)']:>10.0f} {rates['torch layers']:>13.0f} {ratio:>6.2f}"
        )


if __name__ == "__main__":
    main()
