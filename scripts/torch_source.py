"""Where `make setup` gets PyTorch: prints pip's index arguments for the pinned torch, and on
stderr which build that is and why.

    python scripts/torch_source.py [--spec torch==2.13.0] [TORCH_INDEX]

TORCH_INDEX (the Makefile variable of the same name):
- empty (the default): a wheel this machine's pip already has (a local wheel house or a
  cache set in pip's configuration) is used as pip finds it; else, when `nvidia-smi` lists a
  GPU, PyPI's default build (CUDA); else the CPU-only build from PyTorch's CPU index, a
  fraction of the download;
- `cpu`: PyTorch's CPU index; `cuda`: PyPI's default build (CUDA on Linux); `local`: only
  what pip has here (`--no-index`); anything else: an index URL, used as given.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

CPU_INDEX = "https://download.pytorch.org/whl/cpu"
DEFAULT_SPEC = "torch==2.13.0"


def pip_has_locally(spec: str) -> bool:
    """Whether pip resolves `spec` without any index (its find-links, as configured here)."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--no-index", "--no-deps"]
        + ["--ignore-installed", "--quiet", spec],
        capture_output=True,
        text=True,
    )
    return done.returncode == 0


def has_nvidia_gpu() -> bool:
    """Whether `nvidia-smi -L` runs and lists a GPU."""
    if shutil.which("nvidia-smi") is None:
        return False
    try:
        done = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and "GPU" in done.stdout


def choose(index: str, local: bool, gpu: bool) -> tuple[list[str], str]:
    """(pip's index arguments, the reason shown) for TORCH_INDEX `index` on a machine whose
    pip has the wheel (`local`) and that has an NVIDIA GPU (`gpu`)."""
    index = index.strip()
    if index == "cpu":
        return ["--index-url", CPU_INDEX], f"the CPU-only build from {CPU_INDEX} (TORCH_INDEX=cpu)"
    if index == "cuda":
        return [], "PyPI's default build, with CUDA on Linux (TORCH_INDEX=cuda)"
    if index == "local":
        return ["--no-index"], "the wheel pip has on this machine (TORCH_INDEX=local)"
    if index:
        return ["--index-url", index], f"the build from {index} (TORCH_INDEX)"
    if local:
        return [], "the wheel this machine's pip already has (no download)"
    if gpu:
        return [], (
            "PyPI's default build, with CUDA: nvidia-smi found an NVIDIA GPU "
            "(TORCH_INDEX=cpu for the CPU-only build)"
        )
    return ["--index-url", CPU_INDEX], (
        f"the CPU-only build from {CPU_INDEX}: no NVIDIA GPU found "
        "(TORCH_INDEX=cuda for the CUDA build)"
    )


def main(argv: list[str]) -> int:
    spec = DEFAULT_SPEC
    if argv[:1] == ["--spec"]:
        if len(argv) < 2:
            raise SystemExit("--spec needs a value, such as torch==2.13.0")
        spec, argv = argv[1], argv[2:]
    if len(argv) > 1:
        raise SystemExit("usage: torch_source.py [--spec SPEC] [cpu|cuda|local|URL]")
    index = argv[0] if argv else ""
    local = not index.strip() and pip_has_locally(spec)
    gpu = not index.strip() and not local and has_nvidia_gpu()
    args, reason = choose(index, local, gpu)
    print(f"PyTorch ({spec}): {reason}", file=sys.stderr)
    print(" ".join(args))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
