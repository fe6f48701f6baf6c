"""Key/value-cache memory of Qwen3-0.6B's attention shapes: computed and measured.

    python benchmarks/bench_gqa_memory.py            # prints the Markdown table

Computed: 2 * N * h_kv * d_k * L * bytes per value (keys and values, every layer, every
key/value head, every token), for multi-head attention (h_kv = h = 16), Qwen3-0.6B's grouped-
query attention (h_kv = 8) and multi-query attention (h_kv = 1), in bfloat16.

Measured: the bytes of the key and value tensors that the blocks of `attnbook.lm.qwen3.Qwen3LM`
produce for an L-token prefill, in bfloat16, summed over the 28 blocks (`cache_bytes`: the
sizes of their storages). The model has Qwen3-0.6B's attention shapes (28 layers, 16 query
heads, head width 128) and a small residual width and vocabulary, which the cache does not
depend on; the keys and values come from each block's own projections, QK-norm and RoPE
(`ModernBlock.qkv`), so no attention scores are computed.
"""

from __future__ import annotations

import time

import torch

from attnbook.demos.nb10 import QWEN3_0_6B_SHAPES, cache_bytes
from attnbook.lm.qwen3 import Qwen3LM, Qwen3LMConfig

VARIANTS = (("MHA", 16), ("GQA (Qwen3-0.6B)", 8), ("MQA", 1))
COMPUTED_LENGTHS = (1024, 8192, 32768)
MEASURED_LENGTHS = (1024, 2048)
BYTES = 2  # bfloat16


def computed(n_kv_heads: int, length: int) -> int:
    s = QWEN3_0_6B_SHAPES
    return 2 * s["n_layers"] * n_kv_heads * s["d_k"] * length * BYTES


@torch.no_grad()
def measured(n_kv_heads: int, length: int) -> int:
    s = QWEN3_0_6B_SHAPES
    config = Qwen3LMConfig(
        vocab_size=16,
        d_model=64,
        n_layers=s["n_layers"],
        n_heads=s["n_heads"],
        n_kv_heads=n_kv_heads,
        d_k=s["d_k"],
        d_hidden=64,
        max_len=length,
    )
    model = Qwen3LM(config).to(torch.bfloat16).eval()
    x = torch.randn(1, length, 64, dtype=torch.bfloat16)  # (1, L, d)
    rope = (model.rope_cos, model.rope_sin)  # (L, d_k/2) each
    cache = [block.qkv(block.norm1(x), rope)[1:] for block in model.blocks]  # (k, v) per block
    return cache_bytes(cache)


def main() -> None:
    start = time.perf_counter()
    print(f"torch {torch.__version__}, bfloat16, one sequence\n")
    print(
        "| attention | h_kv | "
        + " | ".join(f"computed, L = {L:,}" for L in COMPUTED_LENGTHS)
        + " | "
        + " | ".join(f"measured, L = {L:,}" for L in MEASURED_LENGTHS)
        + " |"
    )
    print("|---|---|" + "---|" * (len(COMPUTED_LENGTHS) + len(MEASURED_LENGTHS)))
    for name, h_kv in VARIANTS:
        cells = [f"{computed(h_kv, L) / 2**20:,.0f} MiB" for L in COMPUTED_LENGTHS]
        for L in MEASURED_LENGTHS:
            seen = measured(h_kv, L)
            agree = "=" if seen == computed(h_kv, L) else "!= computed"
            cells.append(f"{seen / 2**20:,.0f} MiB ({agree})")
        print(f"| {name} | {h_kv} | " + " | ".join(cells) + " |")
    per_token = computed(8, 1)
    print(
        f"\nPer token with GQA: {per_token:,} bytes ({per_token / 1024:.0f} KiB); "
        f"MHA would need {computed(16, 1):,}. Run time {time.perf_counter() - start:.1f} s."
    )


if __name__ == "__main__":
    main()
