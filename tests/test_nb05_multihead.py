"""Notebook 05's package helpers, and the equalities the notebook shows, as tests.

The reference answers must equal PyTorch's own attention and module (with and without
masks); the hand-built heads must show their patterns; the cost measurement must show the
naive path's L^2 memory against the fused kernel's.
"""

from __future__ import annotations

import math
import re

import matplotlib
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

matplotlib.use("Agg")

from conftest import solution_functions  # noqa: E402
from grader.catalogue import load_catalogue  # noqa: E402

import attnbook.demos.nb05 as heads  # noqa: E402
from attnbook.checks import (  # noqa: E402
    check_multi_head_attention,
    check_scaled_dot_product_attention,
    check_split_heads,
)
from attnbook.checks._core import CheckFailure  # noqa: E402
from attnbook.grading import load_reference  # noqa: E402

REF = load_reference("05_multihead")
GRADED = ("split_heads", "merge_heads", "scaled_dot_product_attention", "MultiHeadAttention")


def test_package_defines_no_graded_name():
    import attnbook.checks.nb05 as checks

    for module in (heads, checks):
        leaked = [name for name in GRADED if hasattr(module, name)]
        assert not leaked, f"{module.__name__} defines graded names {leaked}"


# -- equal to PyTorch -------------------------------------------------------------------
def _masks(B: int, L: int, g: torch.Generator):
    causal = torch.ones(L, L, dtype=torch.bool).tril()
    real = torch.arange(L)[None, :] < torch.randint(1, L + 1, (B,), generator=g)[:, None]
    return causal, real


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("masked", ["none", "causal", "causal + padding", "random"])
def test_attention_equals_torch_sdpa(dtype, masked):
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(3, 4, 7, 8, generator=g, dtype=dtype) for _ in range(3))
    causal, real = _masks(3, 7, g)
    allowed = {
        "none": None,
        "causal": causal,
        "causal + padding": causal & real[:, None, None, :],
        "random": torch.rand(3, 4, 7, 7, generator=g) < 0.5,
    }[masked]
    mine = REF.scaled_dot_product_attention(q, k, v, allowed)
    theirs = torch.nan_to_num(F.scaled_dot_product_attention(q, k, v, attn_mask=allowed))
    tol = 1e-6 if dtype == torch.float64 else 1e-5
    torch.testing.assert_close(mine, theirs, rtol=tol, atol=tol)


def test_fully_masked_row_gives_zeros_not_nan():
    q = k = v = torch.randn(1, 3, 4)
    allowed = torch.tensor([[True, False, False], [False, False, False], [True, True, True]])
    y = REF.scaled_dot_product_attention(q, k, v, allowed)
    assert torch.isfinite(y).all() and torch.equal(y[0, 1], torch.zeros(4))


def test_split_and_merge_are_inverse_and_match_the_head_slices():
    x = torch.randn(2, 5, 12)
    y = REF.split_heads(x, 3)
    assert y.shape == (2, 3, 5, 4)
    assert torch.equal(y[:, 1], x[..., 4:8])
    assert torch.equal(REF.merge_heads(y), x)


@pytest.mark.parametrize("masked", ["none", "causal", "causal + padding"])
@pytest.mark.parametrize(("d_model", "n_heads"), [(16, 4), (12, 3), (8, 1)])
def test_module_equals_torch_multihead_attention(masked, d_model, n_heads):
    torch.manual_seed(0)
    mine = REF.MultiHeadAttention(d_model, n_heads).double().eval()
    theirs = nn.MultiheadAttention(
        d_model, n_heads, bias=True, batch_first=True, dtype=torch.float64
    ).eval()
    with torch.no_grad():
        theirs.in_proj_weight.copy_(torch.cat([mine.W_Q.weight, mine.W_K.weight, mine.W_V.weight]))
        theirs.in_proj_bias.copy_(torch.cat([mine.W_Q.bias, mine.W_K.bias, mine.W_V.bias]))
        theirs.out_proj.weight.copy_(mine.W_O.weight)
        theirs.out_proj.bias.copy_(mine.W_O.bias)
        g = torch.Generator().manual_seed(1)
        x = torch.randn(3, 6, d_model, generator=g, dtype=torch.float64)
        causal, real = _masks(3, 6, g)
        if masked == "none":
            y_mine, (y_theirs, _) = mine(x), theirs(x, x, x, need_weights=False)
        elif masked == "causal":
            y_mine = mine(x, causal)
            y_theirs, _ = theirs(x, x, x, attn_mask=~causal, need_weights=False)
        else:
            y_mine = mine(x, causal & real[:, None, None, :])
            y_theirs, _ = theirs(
                x, x, x, attn_mask=~causal, key_padding_mask=~real, need_weights=False
            )
    torch.testing.assert_close(y_mine, y_theirs, rtol=1e-6, atol=1e-6)
    assert sum(p.numel() for p in mine.parameters()) == 4 * (d_model**2 + d_model)


def test_checks_accept_the_reference_and_reject_a_transpose_free_split():
    check_split_heads(REF.split_heads, reference=REF.split_heads)
    check_multi_head_attention(REF.MultiHeadAttention, reference=REF.MultiHeadAttention)

    def split_without_transpose(x, n_heads):
        if x.ndim != 3 or x.shape[-1] % n_heads:
            raise ValueError(f"x of shape {tuple(x.shape)} and n_heads = {n_heads}")
        B, L, d = x.shape
        return x.reshape(B, n_heads, L, d // n_heads)

    with pytest.raises(CheckFailure, match="mixes positions and heads"):
        check_split_heads(split_without_transpose)


# -- hand-built heads -------------------------------------------------------------------
def _patterns():
    built = heads.hand_built_heads()
    X = torch.tensor(built["X"])
    L = X.shape[0]
    causal = torch.ones(L, L, dtype=torch.bool).tril()
    out = {}
    for name, (W_Q, W_K) in built["heads"].items():
        q, k = X @ torch.tensor(W_Q).T, X @ torch.tensor(W_K).T
        out[name] = REF.scaled_dot_product_attention(q, k, torch.eye(L, dtype=X.dtype), causal)
    return built, out


def test_hand_built_heads_show_their_patterns():
    built, patterns = _patterns()
    tokens = built["tokens"]
    L = len(tokens)
    previous = patterns["previous token"]
    assert all(previous[i, i - 1] > 0.9 for i in range(1, L))
    content = patterns["content match (it -> cup)"]
    it, cup = tokens.index("it"), tokens.index("cup")
    assert int(content[it].argmax()) == cup and content[it, cup] > 0.9
    broad = patterns["broad (spread over the prefix)"]
    for i in range(L):
        torch.testing.assert_close(
            broad[i, : i + 1], torch.full((i + 1,), 1.0 / (i + 1), dtype=broad.dtype)
        )
    for A in patterns.values():
        assert torch.all(A.triu(1) == 0), "every head obeys the causal mask"


def test_plot_heads_is_labelled():
    built, patterns = _patterns()
    fig = heads.plot_heads(patterns, built["tokens"])
    assert isinstance(fig, matplotlib.figure.Figure)
    assert len(fig.axes) == 3
    for ax in fig.axes:
        assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title().startswith("head")


# -- cost -------------------------------------------------------------------------------
def test_attention_cost_shows_quadratic_memory_for_the_naive_path():
    cost = heads.attention_cost(REF.scaled_dot_product_attention, lengths=(64, 128, 256), repeats=1)
    naive, fused = cost["naive_bytes"], cost["fused_bytes"]
    assert np.all((naive[1:] / naive[:-1] > 3.5) & (naive[1:] / naive[:-1] < 4.5))
    assert np.all(fused[1:] / fused[:-1] < 2.5)
    assert np.array_equal(cost["naive_largest"], cost["scores_bytes"])
    assert np.all(naive > 10 * fused)
    assert np.all(cost["naive_s"] > 0) and np.all(cost["fused_s"] > 0)


def test_created_bytes_counts_only_new_tensors():
    q = torch.zeros(1, 1, 32, 8)
    total, largest = heads.created_bytes(lambda q, k, v, allowed: q.transpose(-2, -1), q, q, q)
    assert total == 0 and largest == 0
    total, largest = heads.created_bytes(lambda q, k, v, allowed: q @ k.transpose(-2, -1), q, q, q)
    assert largest == 32 * 32 * 4


def test_plot_attention_cost_is_labelled():
    cost = heads.attention_cost(REF.scaled_dot_product_attention, lengths=(32, 64), repeats=1)
    fig = heads.plot_attention_cost(cost)
    for ax in fig.axes:
        assert ax.get_xlabel() == "sequence length L" and ax.get_ylabel() and ax.get_title()
        assert ax.get_xscale() == "log"


# -- bad input, broadcasting masks, checks that see through common slips ------------------
@pytest.mark.parametrize("lead", [(), (2,), (2, 3)])
def test_boolean_masks_with_leading_broadcast_axes_match_torch(lead):
    g = torch.Generator().manual_seed(5)
    q = torch.randn(*lead, 4, 3, generator=g, dtype=torch.float64)
    k = torch.randn(*lead, 6, 3, generator=g, dtype=torch.float64)
    v = torch.randn(*lead, 6, 2, generator=g, dtype=torch.float64)
    shapes = [(4, 6), (1, 6), (*[1] * len(lead), 4, 6), (*lead, 4, 6), (*lead[:1], 1, 4, 6)]
    for shape in [s for s in shapes if len(s) <= q.dim()]:  # torch needs mask.dim() <= q.dim()
        allowed = torch.rand(*shape, generator=g) < 0.5
        theirs = torch.nan_to_num(F.scaled_dot_product_attention(q, k, v, attn_mask=allowed))
        mine = REF.scaled_dot_product_attention(q, k, v, allowed)
        torch.testing.assert_close(mine, theirs.expand_as(mine), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (
            (
                torch.zeros(3, 4),
                torch.zeros(5, 4),
                torch.zeros(5, 2),
                torch.ones(4, 5, dtype=torch.bool),
            ),
            ("allowed", "(4, 5)", "(3, 5)"),
        ),
        (
            (torch.zeros(2, 3, 4), torch.zeros(3, 5, 4), torch.zeros(3, 5, 2), None),
            ("q", "(2, 3, 4)", "(3, 5, 4)"),
        ),
        ((torch.zeros(3, 4), torch.zeros(5, 4), torch.zeros(5), None), ("v", "(5,)")),
    ],
)
def test_attention_rejects_shapes_that_do_not_broadcast(args, words):
    with pytest.raises(ValueError) as err:
        REF.scaled_dot_product_attention(*args)
    assert all(word in str(err.value) for word in words), str(err.value)


def test_attention_names_a_mask_that_is_no_tensor_and_broadcasts_a_0d_one():
    q, k, v = torch.randn(3, 4), torch.randn(5, 4), torch.randn(5, 2)
    with pytest.raises(ValueError) as err:
        REF.scaled_dot_product_attention(q, k, v, np.ones((3, 5), dtype=bool))
    words = ("allowed", "torch.Tensor", "numpy.ndarray", "(3, 5)", "torch.as_tensor(allowed)")
    assert all(word in str(err.value) for word in words), str(err.value)
    everything = REF.scaled_dot_product_attention(q, k, v, torch.tensor(True))
    assert torch.equal(everything, REF.scaled_dot_product_attention(q, k, v, None))
    assert torch.equal(REF.scaled_dot_product_attention(q, k, v, torch.tensor(False)),
                       torch.zeros(3, 2))  # fmt: skip


@pytest.mark.parametrize("n_heads", [0, -2, 1.5, "2", None])
def test_a_number_of_heads_that_is_no_positive_whole_number_is_a_value_error(n_heads):
    with pytest.raises(ValueError, match="n_heads must be a whole number >= 1.*got n_heads = "):
        REF.split_heads(torch.zeros(1, 2, 4), n_heads)
    with pytest.raises(ValueError, match="n_heads must be a whole number >= 1"):
        REF.MultiHeadAttention(4, n_heads)
    with pytest.raises(ValueError, match="d_model must be a whole number >= 1"):
        REF.MultiHeadAttention(4.5, 1)


def test_a_whole_float_number_of_heads_is_read_as_that_number():
    assert REF.split_heads(torch.zeros(1, 2, 4), 2.0).shape == (1, 2, 2, 2)
    assert REF.MultiHeadAttention(4.0, 2.0)(torch.zeros(1, 3, 4)).shape == (1, 3, 4)


def test_attention_check_names_overflow_in_place_scaling_and_a_returned_tuple():
    def attention(q, k, v, allowed=None, style="naive"):
        if style == "in place":
            q /= math.sqrt(q.shape[-1])
            scores = q @ k.transpose(-2, -1)
        else:
            scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        if style == "naive":
            e = scores.exp()
            return torch.nan_to_num(e / e.sum(-1, keepdim=True)) @ v
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1))
        return (weights @ v, weights) if style == "tuple" else weights @ v

    for style, words in [
        ("naive", "row's maximum"),
        ("in place", "in place"),
        ("tuple", "not (Y, A)"),
    ]:

        def variant(q, k, v, allowed=None, style=style):
            return attention(q, k, v, allowed, style)

        variant.__name__ = "scaled_dot_product_attention"
        with pytest.raises(CheckFailure, match=re.escape(words)):
            check_scaled_dot_product_attention(variant)


def test_fused_attention_ban_allows_recursion_but_sees_into_nested_code(capsys):
    recursive = next(
        v
        for v in load_catalogue("05_multihead").ALTERNATIVES
        if v.name == "recursion over the leading axes"
    )
    namespace = solution_functions("05_multihead", recursive)  # as the notebook's cells define it
    check_scaled_dot_product_attention(namespace["scaled_dot_product_attention"])
    assert "\u2713 scaled_dot_product_attention passed" in capsys.readouterr().out

    def scaled_dot_product_attention(q, k, v, allowed=None):
        fused = lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)  # noqa: E731
        return torch.nan_to_num(fused())

    with pytest.raises(CheckFailure, match="fused attention"):
        check_scaled_dot_product_attention(scaled_dot_product_attention)


# -- float32 tensors built inside forward: right in the float32 the cases use, mistakes named --
def _mha_with_zeros_buffer(project_out: bool, name: str = "MultiHeadAttention"):
    """A module that merges its heads into torch.zeros(...) (the default dtype, float32),
    with or without the output projection W_O."""

    class Module(REF.MultiHeadAttention):
        def forward(self, x, allowed=None):
            if x.ndim != 3 or x.shape[-1] != self.d_model:
                raise ValueError(f"x has shape {tuple(x.shape)}")
            B, L, _ = x.shape
            d_k = self.d_model // self.n_heads
            q, k, v = (REF.split_heads(W(x), self.n_heads) for W in (self.W_Q, self.W_K, self.W_V))
            y = REF.scaled_dot_product_attention(q, k, v, allowed)
            out = torch.zeros(B, L, self.d_model)  # float32 whatever x's dtype
            for r in range(self.n_heads):
                out[:, :, r * d_k : (r + 1) * d_k] = y[:, r]
            return self.W_O(out) if project_out else out

    Module.__name__ = Module.__qualname__ = name
    return Module


def test_mha_check_accepts_a_module_with_a_float32_buffer(capsys):
    module = _mha_with_zeros_buffer(project_out=True)
    with pytest.raises(RuntimeError, match="dtype"):  # it would fail a float64 case
        module(8, 2).double()(torch.randn(2, 5, 8, dtype=torch.float64))
    check_multi_head_attention(module, reference=REF.MultiHeadAttention)
    assert "\u2713 MultiHeadAttention passed" in capsys.readouterr().out


def test_mha_check_names_the_mistake_of_a_module_with_a_float32_buffer():
    with pytest.raises(CheckFailure, match="output projection") as info:
        check_multi_head_attention(_mha_with_zeros_buffer(project_out=False))
    assert "known mistake: forgot W_O" in str(info.value)


def test_mha_check_tells_a_small_error_apart_from_float32_rounding():
    class Tiny(REF.MultiHeadAttention):  # right but for 1e-3 added to every output
        def forward(self, x, allowed=None):
            return super().forward(x, allowed) + 1e-3

    Tiny.__name__ = "MultiHeadAttention"
    with pytest.raises(CheckFailure, match="wrong values"):
        check_multi_head_attention(Tiny)
