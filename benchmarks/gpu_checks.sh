#!/usr/bin/env bash
# The GPU checks in one prepared run, for a session that is lent a CUDA machine.
# Writes its log and figures under ${OUT:-runs/gpu_checks}; copy the figures it prints
# into benchmarks/results/*_gpu.md afterwards. About 8 minutes on one H100/H200.
#
#   bash benchmarks/gpu_checks.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-runs/gpu_checks}
mkdir -p "$out"
py=${PYTHON:-.venv/bin/python}
export PYTHONUNBUFFERED=1
{
  echo "== device"; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
  "$py" -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)"
  echo "== model tests (CPU suite, then the decoder on CUDA with bf16 autocast)"
  "$py" -m pytest -q tests/test_lm_model.py tests/test_lm_generation.py -x
  "$py" - <<'PY'
import torch
from attnbook.lm.model import LMConfig, TransformerLM, autocast_context
device = torch.device("cuda")
for positions in ("sinusoidal", "learned", "rope", "none"):
    model = TransformerLM(LMConfig(vocab_size=90, positions=positions)).to(device)
    ids = torch.randint(0, 90, (4, 64), device=device)
    with autocast_context(device):
        logits = model(ids)
    assert logits.dtype == torch.float32 and torch.isfinite(logits).all()
    ids2 = ids.clone(); ids2[:, 40:] = (ids2[:, 40:] + 1) % 90
    with autocast_context(device):
        same = (model(ids2)[:, :40] - logits[:, :40]).abs().max().item()
    print(f"{positions:10s} bf16 forward ok, causal change before 40: {same:.2e}")
PY
  echo "== decoder throughput"; "$py" benchmarks/bench_decoder.py --device cuda
  echo "== training throughput and fraction of bf16 peak"; "$py" benchmarks/bench_train.py --device cuda
  echo "== GPU preset (target: validation loss - entropy <= 0.01 nats)"
  "$py" -m attnbook.lm.train --preset gpu --device cuda --out "$out/gpu_preset" --overwrite --no-progress \
      --budget-seconds 300
} 2>&1 | tee "$out/gpu_checks.log"
