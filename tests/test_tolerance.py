"""attnbook.tolerance: the one rule for comparing with numbers computed elsewhere."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from attnbook.checks.nb10 import BLOCK_DEPTH, hf_tolerance
from attnbook.tolerance import ANGLE_ULPS, STAGE_ULPS, Tolerance, eps_of, magnitude_of, tolerance

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


def test_an_angle_adds_a_few_roundings_of_it_per_unit_of_magnitude():
    base = tolerance("float32", 2.0, 2)
    tol = tolerance("float32", 2.0, 2, angle=1e5)
    assert tol.rtol == base.rtol
    assert tol.atol == pytest.approx(base.atol + ANGLE_ULPS * EPS32 * 1e5 * 2.0, rel=1e-12)
    assert tol.atol < 0.06  # the reduction rule alone at magnitude 1e5 allowed 1.5
    with pytest.raises(ValueError, match=r"angle must be a finite number >= 0, got -1.0"):
        tolerance("float32", angle=-1.0)


def _shift(k: int, d: int, w: np.ndarray, dtype=np.float64) -> np.ndarray:
    c, s = np.cos(dtype(k) * w), np.sin(dtype(k) * w)
    M = np.zeros((d, d))
    for i in range(d // 2):
        M[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c[i], s[i]], [-s[i], c[i]]]
    return M


@pytest.mark.parametrize("seed", range(6))
def test_large_angle_trials_tell_a_wrong_frequency_from_float32_rounding(seed):
    """shift_matrix(k ~ 1e5, 8): a slip with the exponent i/d (its angles off by whole radians)
    is outside the trial's tolerance; float32 frequencies and angles, a right answer, inside."""
    from attnbook.checks import nb02
    from attnbook.checks._cases import case_tolerance, trial_rng

    case = nb02._large_shift_trial(trial_rng("shift_matrix", seed), seed)
    k, d = case.args
    expected = _shift(k, d, 10000.0 ** (-np.arange(0, d, 2) / d))
    tol = case_tolerance(case, expected)
    w32 = 10000.0 ** (-np.arange(0, d, 2, dtype=np.float32) / np.float32(d))
    assert np.allclose(_shift(k, d, w32, np.float32), expected, **tol.kwargs())
    slip = _shift(k, d, 10000.0 ** (-np.arange(d // 2) / d))
    assert not np.allclose(slip, expected, **tol.kwargs())


@pytest.mark.parametrize("seed", [0, 3, 6, 9])
def test_rope_trials_at_large_positions_allow_float32_and_no_slip(seed):
    """apply_rope at positions up to 1e5 (seeds that are multiples of 3): RoPE computed in
    float32 is inside the trial's tolerance, the frequencies of the exponent i/d_k are not."""
    from attnbook.checks import nb03
    from attnbook.checks._cases import case_tolerance, trial_rng

    case = nb03._rope_trial(trial_rng("apply_rope", seed), seed)
    X, positions, base = case.args
    assert positions.max() > 1000

    def rope(X, positions, theta):
        angles = positions[:, None] * theta
        c, s = np.cos(angles), np.sin(angles)
        out = np.empty_like(X)
        out[..., 0::2] = X[..., 0::2] * c - X[..., 1::2] * s
        out[..., 1::2] = X[..., 0::2] * s + X[..., 1::2] * c
        return out

    d_k = X.shape[-1]
    expected = rope(X, positions, base ** (-np.arange(0, d_k, 2) / d_k))
    tol = case_tolerance(case, expected)
    theta32 = np.float32(base) ** (-np.arange(0, d_k, 2, dtype=np.float32) / np.float32(d_k))
    in_float32 = rope(X.astype(np.float32), positions.astype(np.float32), theta32)
    assert np.allclose(in_float32, expected, **tol.kwargs())
    slip = rope(X, positions, base ** (-np.arange(d_k // 2) / d_k))
    if d_k > 2:  # with one pair the exponent is 0 either way
        assert not np.allclose(slip, expected, **tol.kwargs())
