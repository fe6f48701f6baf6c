"""Make assets/qwen3_tiny: a tiny random Qwen3 that transformers builds and saves itself.

    python scripts/make_tiny_qwen3.py            # rewrite assets/qwen3_tiny
    python scripts/make_tiny_qwen3.py --out DIR  # write it somewhere else (used by a test)

Notebook 10, its checks and the tests load this checkpoint with `attnbook.lm.qwen3`, so no
download is ever needed. The folder holds what `Qwen3ForCausalLM.save_pretrained` writes
(config.json, model.safetensors with Hugging Face's names and RoPE layout) and
expected.safetensors: fixed token ids and the logits transformers' own model gives for them
in float32, which the checks compare with a learner's decoder without importing transformers.

The weights are drawn from a seeded generator at scales where every part of the block matters
(random RMSNorm weights, matrices of unit gain), not transformers' N(0, 0.02) initialisation,
under which a missing QK-norm or RoPE would barely move the logits.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch

from attnbook.lm.qwen3 import randomise

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "assets" / "qwen3_tiny"
SEED = 10
#: 2 layers, 4 query heads sharing 2 key/value heads (GQA ratio 2), head width 8 with
#: n_heads * d_k = 32 != d_model = 24 (as in Qwen3-0.6B, 16 * 128 != 1024), tied embedding.
HF_CONFIG = dict(
    vocab_size=96,
    hidden_size=24,
    intermediate_size=40,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    head_dim=8,
    max_position_embeddings=64,
    rope_theta=1_000_000.0,
    rms_norm_eps=1e-6,
    tie_word_embeddings=True,
)
IDS_SHAPE = (2, 12)


def make(out: Path = OUT) -> Path:
    from transformers import Qwen3Config, Qwen3ForCausalLM
    from transformers.utils import logging

    logging.disable_progress_bar()
    torch.manual_seed(SEED)
    model = Qwen3ForCausalLM(Qwen3Config(**HF_CONFIG)).eval()
    randomise(model, SEED)
    model.save_pretrained(out)
    g = torch.Generator().manual_seed(SEED + 1)
    ids = torch.randint(0, HF_CONFIG["vocab_size"], IDS_SHAPE, generator=g)  # (B, L)
    with torch.no_grad():
        logits = model(ids).logits.float()  # (B, L, V), transformers' own forward pass
    from safetensors.torch import save_file

    save_file(
        {"input_ids": ids, "logits": logits.contiguous()},
        str(out / "expected.safetensors"),
        metadata={"format": "pt"},
    )
    for path in out.iterdir():
        path.chmod(0o644)  # readable by the grader's sandbox user, whatever the umask
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    out = make(parser.parse_args().out)
    print(f"wrote {sorted(p.name for p in out.iterdir())} to {out}")


if __name__ == "__main__":
    main()
