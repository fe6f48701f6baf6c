"""The float-sensitive results hold on more than one set of CPU kernels and thread counts.

PyTorch picks its CPU kernels (plain, AVX2, AVX-512) when it is imported, from
ATEN_CPU_CAPABILITY, so each setting runs `tests/float_probe.py` in a process of its own, with
one and with two threads. Under every setting: transformers' logits on the tiny checkpoint, the
package's Qwen3LM and notebook 10's reference decoder agree with the stored logits (made on
another machine) and with each other within `attnbook.tolerance`, and the visible checks of
notebooks 05-11 accept the solutions. What another CPU, Apple silicon or a GPU does to the
last bits, these kernel sets do here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import torch
from conftest import ROOT
from grader.catalogue import nbgrader_meta, solution_notebook
from safetensors.torch import load_file

from attnbook.checks.nb10 import hf_tolerance
from attnbook.lm.qwen3 import tiny_checkpoint

pytest.importorskip("transformers")
pytestmark = pytest.mark.slow  # three interpreters that import transformers: about a minute

#: None: the machine's own kernels (ATEN_CPU_CAPABILITY unset).
SETTINGS = (None, "default", "avx2")
THREADS = (1, 2)
NOTEBOOKS = [
    "05_multihead",
    "06_transformer_block",
    "07_training",
    "08_generation",
    "09_beyond",
    "10_modern_decoder",
    "11_encoder_decoder",
]


def _probe(setting: str | None, out) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "ATEN_CPU_CAPABILITY"}
    env |= {"ATEN_CPU_CAPABILITY": setting} if setting else {}
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "float_probe.py"), str(out)]
        + ["--threads", *map(str, THREADS), "--notebooks", *NOTEBOOKS],
        cwd=ROOT,
        env=env | {"MPLBACKEND": "Agg", "PYTHONPATH": f"{ROOT / 'autograder'}"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"ATEN_CPU_CAPABILITY={setting}: {done.stderr[-3000:]}"
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def probes(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("kernel_sets")
    return {s: _probe(s, folder / f"{s or 'own'}.json") for s in SETTINGS}


def _label(setting: str | None) -> str:
    return f"ATEN_CPU_CAPABILITY={setting}" if setting else "the machine's own kernels"


def test_each_setting_runs_the_kernels_it_names(probes):
    own = probes[None]["capability"]
    assert probes["default"]["capability"] == "DEFAULT"
    if own == "DEFAULT":
        pytest.skip("this CPU has no vector kernels: the settings cannot differ")
    assert probes["avx2"]["capability"] == "AVX2", "PyTorch ignored ATEN_CPU_CAPABILITY=avx2"


def test_logits_agree_with_the_stored_ones_and_each_other_under_every_setting(probes):
    stored = load_file(str(tiny_checkpoint() / "expected.safetensors"))["logits"]
    tol = hf_tolerance(2, stored)
    seen = {}
    for setting, report in probes.items():
        for threads, path in report["logits"].items():
            for model, logits in load_file(path).items():
                seen[f"{model}, {_label(setting)}, {threads} thread(s)"] = logits
    assert len(seen) == len(SETTINGS) * len(THREADS) * 3
    gaps = {name: float((logits - stored).abs().max()) for name, logits in seen.items()}
    print("\n" + "\n".join(f"{gap:.2e}  {name}" for name, gap in sorted(gaps.items())))
    far = {
        name: gap
        for name, gap in gaps.items()
        if not torch.allclose(seen[name], stored, **tol.kwargs())
    }
    assert not far, f"logits farther from the stored ones than {tol}: {far}"
    first, *others = seen
    for name in others:  # and each other: within the same rule, whichever is taken as truth
        assert torch.allclose(seen[name], seen[first], **tol.kwargs()), (name, first)


def _test_cells(notebook: str) -> int:
    return sum(
        bool(nbgrader_meta(c).get("grade") and not nbgrader_meta(c).get("solution"))
        for c in solution_notebook(notebook).cells
        if c.cell_type == "code"
    )


def test_visible_checks_of_05_to_11_accept_the_solutions_under_every_setting(probes):
    counts = {notebook: _test_cells(notebook) for notebook in NOTEBOOKS}
    for setting, report in probes.items():
        assert not report["failed"], f"{_label(setting)}: {json.dumps(report['failed'], indent=1)}"
        for notebook in NOTEBOOKS:
            for threads in THREADS:
                passed = report["passed"][f"{notebook}, {threads} thread(s)"]
                assert passed == counts[notebook], (
                    f"{notebook}: {passed} of {counts[notebook]} checks passed under "
                    f"{_label(setting)}, {threads} thread(s)"
                )
