"""Importing the checks leaves the learner's random state alone.

A notebook imports `attnbook.checks` in its setup cell and may seed torch before that; the
checks build models for their tables when they are imported, and every one is drawn from its own
seed or generator, never from torch's global state.
"""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT

PROGRAM = """
import torch
torch.manual_seed(5)
first = torch.rand(3)
torch.manual_seed(5)
import attnbook.checks
assert torch.equal(torch.rand(3), first), "importing attnbook.checks moved torch's global RNG"
"""


def test_importing_the_checks_leaves_torchs_global_random_state_alone():
    result = subprocess.run(
        [sys.executable, "-c", PROGRAM], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
