"""attnbook.tolerance: the one rule for comparing with numbers computed elsewhere."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from attnbook.checks.nb10 import BLOCK_DEPTH, hf_tolerance
from attnbook.tolerance import STAGE_ULPS, Tolerance, eps_of, magnitude_of, tolerance

EPS32 = 2.0**-23


def test_worked_example_float32():
    tol = tolerance(torch.float32, magnitude=3.0, depth=2)
    assert tol.rtol == 2 * STAGE_ULPS * 2 * EPS32
    assert tol.atol == tol.rtol * 3.0
    assert tol.kwargs() == {"rtol": tol.rtol, "atol": tol.atol}


def test_it_grows_with_depth_and_magnitude_and_shrinks_with_precision():
    base = tolerance("float32", 1.0, 1)
    assert tolerance("float32", 1.0, 5) == Tolerance(5 * base.rtol, 5 * base.atol)
    assert tolerance("float32", 4.0, 1).atol == 4 * base.atol
    assert tolerance(np.float64, 1.0, 1).rtol == base.rtol * 2.0**-29
    assert tolerance(torch.bfloat16, 1.0, 1).rtol == base.rtol * 2.0**16
    assert tolerance(torch.float16).rtol == tolerance(np.float16).rtol


def test_numbers_written_as_text_carry_half_their_last_place():
    tol = tolerance(np.float64, magnitude=1.0, decimals=10)
    assert tol.atol == pytest.approx(0.5e-10 + tolerance(np.float64).atol, rel=1e-12)


@pytest.mark.parametrize("n", [64, 1024, 4096])
def test_one_reduction_in_any_order_is_within_one_stage(n):
    """A float32 dot product summed forwards, backwards, pairwise (torch) and in float64
    agree within tolerance(float32, size of the terms, depth=1): the rule's one stage."""
    g = torch.Generator().manual_seed(n)
    x, y = (torch.randn(n, generator=g) for _ in range(2))
    terms = x * y
    orders = {
        "forwards": np.cumsum(terms.numpy(), dtype=np.float32)[-1],
        "backwards": np.cumsum(terms.numpy()[::-1], dtype=np.float32)[-1],
        "torch": float(torch.dot(x, y)),
        "float64": float(torch.dot(x.double(), y.double())),
    }
    tol = tolerance(torch.float32, float(terms.abs().sum()), depth=1)
    for name, value in orders.items():
        assert math.isclose(value, orders["float64"], rel_tol=0, abs_tol=tol.atol), name
    # ... and a wrong sum (the largest product dropped) is far outside it
    assert float(terms.abs().max()) > 10 * tol.atol


def test_decoder_tolerance_counts_the_blocks():
    logits = torch.tensor([[-4.5, 2.0], [1.0, 0.5]])
    assert hf_tolerance(2, logits) == tolerance(torch.float32, 4.5, BLOCK_DEPTH * 2 + 2)


def test_magnitude_of_ignores_non_finite_values():
    assert magnitude_of(torch.tensor([1.0, -3.0, float("nan"), float("inf")])) == 3.0
    assert magnitude_of(np.array([])) == 0.0
    assert magnitude_of(-2) == 2.0


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"dtype": torch.int64}, r"dtype must be a floating dtype, got torch.int64"),
        ({"dtype": "int32"}, r"dtype must be a floating dtype, got int32"),
        ({"dtype": "nonsense"}, r"dtype must be a floating dtype, got 'nonsense'"),
        ({"dtype": "float32", "magnitude": -1.0}, r"magnitude must be .*>= 0, got -1.0"),
        ({"dtype": "float32", "magnitude": float("nan")}, r"magnitude .* got nan"),
        ({"dtype": "float32", "depth": 0}, r"depth must be an int >= 1, got 0"),
        ({"dtype": "float32", "depth": True}, r"depth must be an int >= 1, got True"),
        ({"dtype": "float32", "decimals": -1}, r"decimals must be None or an int >= 0, got -1"),
    ],
)
def test_bad_arguments_are_named(kwargs, words):
    with pytest.raises(ValueError, match=words):
        tolerance(**kwargs)


def test_eps_of_reads_every_spelling():
    assert eps_of(torch.float32) == eps_of(np.float32) == eps_of("float32") == EPS32
    assert eps_of("bfloat16") == eps_of(torch.bfloat16) == 2.0**-7
