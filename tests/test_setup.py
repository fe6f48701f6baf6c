"""`make setup` is a learner's set-up: PyTorch's CPU build unless a GPU or a local wheel says
otherwise (scripts/torch_source.py), the notebooks' packages only, pip's progress shown; the
test, TA and instructor tools come with `dev-setup`."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import ROOT, script_module

torch_source = script_module("scripts/torch_source.py")

CPU = ["--index-url", torch_source.CPU_INDEX]


@pytest.mark.parametrize(
    ("index", "local", "gpu", "args"),
    [
        ("", True, True, []),  # a wheel pip already has wins: nothing to download
        ("", False, True, []),  # PyPI's default build: CUDA
        ("", False, False, CPU),  # no GPU: the CPU-only build
        ("cpu", True, True, CPU),
        ("cuda", False, False, []),
        ("local", False, False, ["--no-index"]),
        ("https://download.pytorch.org/whl/cu128", False, False,
         ["--index-url", "https://download.pytorch.org/whl/cu128"]),
    ],
)  # fmt: skip
def test_the_torch_build_follows_the_machine_and_torch_index(index, local, gpu, args):
    chosen, reason = torch_source.choose(index, local, gpu)
    assert chosen == args
    assert reason  # always says which build and why


def _source(tmp_path, index: str, gpu: bool, wheel_here: bool) -> subprocess.CompletedProcess:
    """torch_source.py on a machine stood in for: pip's configuration gone (no find-links, no
    index), its find-links an empty folder or this machine's own, an `nvidia-smi` on PATH
    that lists a GPU or none at all."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    if gpu:
        fake = bin_dir / "nvidia-smi"
        fake.write_text("#!/bin/sh\necho 'GPU 0: NVIDIA H100 (UUID: GPU-0)'\n")
        fake.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    empty = tmp_path / "wheels"
    empty.mkdir(exist_ok=True)
    env |= {"PIP_CONFIG_FILE": os.devnull, "PATH": f"{bin_dir}:/usr/bin:/bin"}
    env["PIP_FIND_LINKS"] = os.environ.get("PIP_FIND_LINKS", "") if wheel_here else str(empty)
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "torch_source.py"), index],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_a_machine_without_gpu_or_wheel_gets_the_cpu_index(tmp_path):
    done = _source(tmp_path, "", gpu=False, wheel_here=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == CPU
    assert "CPU-only" in done.stderr and "TORCH_INDEX=cuda" in done.stderr


def test_a_machine_with_an_nvidia_gpu_gets_the_cuda_build(tmp_path):
    done = _source(tmp_path, "", gpu=True, wheel_here=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [] and "CUDA" in done.stderr and "nvidia-smi" in done.stderr


@pytest.mark.skipif(
    not os.environ.get("PIP_FIND_LINKS"), reason="this machine's pip has no local wheel house"
)
def test_a_wheel_pip_already_has_is_used_without_an_index(tmp_path):
    done = _source(tmp_path, "", gpu=True, wheel_here=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [] and "already has" in done.stderr


def _planned(target: str) -> str:
    """The commands `make -n TARGET` would run for a fresh .venv (nothing is run)."""
    done = subprocess.run(
        ["make", "-n", target, "VENV=/nonexistent-venv"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_learners_setup_installs_the_notebooks_needs_only_and_shows_progress():
    setup = _planned("setup")
    assert 'torch_source.py --spec "torch==2.13.0" ""' in setup
    assert '-e ".[lab]"' in setup and "--progress-bar on" in setup
    assert "[dev" not in setup and "./autograder" not in setup
    for target in ("test", "formgrader", "release", "kit"):
        assert "./autograder" in _planned(target) and '".[dev,hf]"' in _planned(target), target
    for target in ("lab", "sample"):
        assert "[dev" not in _planned(target), target
