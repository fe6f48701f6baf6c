"""Checks for notebook 06, the transformer block: layer_norm, MLP, PreNormBlock, Decoder,
count_parameters.

Visible use: `check_layer_norm(layer_norm)` runs worked examples, PyTorch's own functions and
properties; the module checks copy random weights from the reference decoder in
`attnbook.lm.model` into the student's module and compare outputs, in float32 (the dtype
learners use, so default-dtype tensors built inside forward are fine). Hidden use:
`check_decoder(Decoder, reference=ref.Decoder)` also compares with the autograder's reference
on random sizes and seeds.
"""

from __future__ import annotations

import copy
import math
from dataclasses import replace
from functools import partial
from typing import cast

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from attnbook.checks._cases import (
    Build,
    Case,
    Slips,
    expect_deterministic,
    forbid,
    normal,
    package_model,
    run_table,
    sizes,
    token_wise_cases,
    weights_of,
)
from attnbook.checks._core import (
    HINT_DROPOUT,  # noqa: F401 (a detector of these checks: the catalogue names it here)
    CheckRun,
    as_array,
)
from attnbook.checks._modules import f64, is_instance, parameter_shapes, type_name
from attnbook.demos.nb06 import POSITION_OPTIONS
from attnbook.lm.model import LMConfig, TransformerBlock, TransformerLM, rope_tables
from attnbook.tolerance import Tolerance

KNOWN = Slips("nb06")

__all__ = [
    "check_count_parameters",
    "check_decoder",
    "check_layer_norm",
    "check_mlp",
    "check_prenorm_block",
]

HINT_KEEPDIM = (
    "a mean over dim=-1 without keepdim=True drops the feature axis and no "
    "longer broadcasts against h: use keepdim=True (and use gamma and beta as "
    "they are: (d,) already lines up with the last axis, no gamma[:, None])"
)


HINT_BRANCH_SHAPES = "check every shape on the way: each residual branch must return (B, L, d)"
HINT_SLICE_TABLES = (
    "slice the position tables to the sequence length, e.g. self.sinusoids[:L] and the RoPE tables "
    "[:L] (ids can be shorter than max_len; L is idx.shape[1], idx.shape[0] is the batch size), "
    "and check every shape on the way"
)


# ---------------------------------------------------------------------------------------
# layer_norm
# ---------------------------------------------------------------------------------------
HINT_EPS_ARGUMENT_IGNORED = "use the eps argument the caller passes, not a constant"


HINT_LAYER_NORM_SHAPE = "LayerNorm keeps the shape of h"
HINT_CONSTANT_TOKEN = (
    "a token whose features are all equal has variance 0: eps inside the "
    "square root, sqrt(var + eps), keeps it finite"
)


_BUILTIN_NORMS = ("layer_norm", "LayerNorm", "native_layer_norm", "group_norm", "rms_norm")


HINT_WRITE_IT_YOURSELF = (
    "write the mean, the variance and the normalisation yourself; the "
    "checks compare with torch.nn.LayerNorm for you"
)
HINT_LAYER_NORM_IN_PLACE = "compute h - mean into a new tensor instead of h -= ..."


# detectors raised from the code itself, not from an output (see scripts/release.py)
PROPERTY_DETECTORS = ("HINT_WRITE_IT_YOURSELF",)


def _ln_case(case_id: str, call: str, h, gamma, beta, eps: float, expect, **more) -> Case:
    return Case(case_id, call, (h, gamma, beta, eps), expect=expect,
                shape_hint=HINT_LAYER_NORM_SHAPE, finite=HINT_CONSTANT_TOKEN,
                crash_hints=(("must match the size of tensor", HINT_KEEPDIM),),
                **({"scale_free": True} | more))  # fmt: skip


def _row_0_centred(run: CheckRun, case: Case, seen) -> None:
    mean = float(as_array(seen)[0].mean())
    run.expect_true(abs(mean) < 1e-6, f"{case.call}: row 0 should have mean 0 after "
                    f"normalising; got {mean}")  # fmt: skip


_F64 = torch.float64
_LH = torch.tensor([[1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 2.0, 2.0]], dtype=_F64)
_LROOT = math.sqrt(1.25 + 0.25)  # mean 2.5, biased variance 1.25, eps 0.25
_LH_NORMED = torch.tensor([[-1.5, -0.5, 0.5, 1.5], [0.0] * 4], dtype=_F64) / _LROOT
_LG = torch.tensor([2.0, 1.0, 0.5, -1.0], dtype=_F64)
_LB = torch.tensor([0.0, 1.0, 0.0, -1.0], dtype=_F64)
_L3 = f64(2, 3, 5, seed=1, scale=2.0, shift=1.0)
_L3G, _L3B = f64(5, seed=2, scale=0.5, shift=1.0), f64(5, seed=3)
_LT, _LL = f64(2, 6, seed=4, scale=0.01), f64(1, 4, 8, seed=5, scale=1e3, shift=1e5)
_LV, _L32 = f64(7, seed=6), f64(2, 3, 16, seed=7, scale=3.0).float()
_LO = f64(4, 64, seed=8, shift=1e3).float()  # E[h^2] - mean^2 cancels: float32 loses the var


def _plain(n: int, dtype=_F64) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.ones(n, dtype=dtype), torch.zeros(n, dtype=dtype)


LAYER_NORM_CASES = (
    _ln_case("worked", "layer_norm(h, gamma=1, beta=0, eps=0.25) with h = [[1, 2, 3, 4], [2, 2, 2, "
             "2]] (mean 2.5 and biased variance 1.25 in row 0; a constant row 1)", _LH,
             *_plain(4), 0.25, _LH_NORMED, then=_row_0_centred),
    _ln_case("gamma, beta", "layer_norm(h, gamma=[2, 1, 0.5, -1], beta=[0, 1, 0, -1], eps=0.25) "
             "on the same h", _LH, _LG, _LB, 0.25, _LG * _LH_NORMED + _LB),
    _ln_case("3-D", "layer_norm(h, gamma, beta, 1e-5) with h of shape [B, L, d] = (2, 3, 5), "
             "against torch.nn.LayerNorm", _L3, _L3G, _L3B, 1e-5,
             F.layer_norm(_L3, (5,), _L3G, _L3B, 1e-5)),
    _ln_case("tiny", "layer_norm(h, gamma=1, beta=0, eps=1e-3) on tokens with tiny spread "
             "(std 0.01)", _LT, *_plain(6), 1e-3, F.layer_norm(_LT, (6,), eps=1e-3)),
    _ln_case("large", "layer_norm on large inputs (mean 1e5, std 1e3), h of shape (1, 4, 8)",
             _LL, *_plain(8), 1e-5, F.layer_norm(_LL, (8,), eps=1e-5)),
    _ln_case("one token", "layer_norm on a single token vector, h of shape (7,)", _LV,
             *_plain(7), 1e-5, F.layer_norm(_LV, (7,), eps=1e-5)),
    _ln_case("float32", "layer_norm on a float32 tensor, shape (2, 3, 16), against "
             "torch.nn.LayerNorm", _L32, *_plain(16, torch.float32), 1e-5,
             F.layer_norm(_L32, (16,), eps=1e-5)),
    _ln_case("offset", "layer_norm on float32 tokens with a large mean and a small spread, h = "
             "1000 + randn(4, 64), against torch.nn.LayerNorm", _LO, *_plain(64, torch.float32),
             1e-5, F.layer_norm(_LO.double(), (64,), eps=1e-5).float(), scale_free=False),
    Case("gamma too short", "layer_norm with h (2, 4) and gamma (3,)",
         (torch.zeros(2, 4), torch.ones(3), torch.zeros(4), 1e-5), raises=ValueError,
         mentions=("gamma", "(3,)", "(2, 4)")),
)  # fmt: skip


def _layer_norm_trial(rng: np.random.Generator, seed: int) -> Case:
    shape = tuple(sizes(rng, int(rng.integers(1, 4)), high=6))
    eps = float(rng.choice([1e-5, 1e-3, 0.1]))
    scale, shift = float(10.0 ** rng.integers(-2, 3)), float(rng.normal())
    h = torch.from_numpy(rng.standard_normal(shape) * scale + shift)
    gamma = torch.from_numpy(rng.standard_normal(shape[-1]) + 1.0)
    beta = torch.from_numpy(rng.standard_normal(shape[-1]))
    call = f"layer_norm on random h of shape {shape}, eps={eps} (seed {seed})"
    return _ln_case("trial", call, h, gamma, beta, eps, None)


def check_layer_norm(layer_norm, reference=None, trials: int = 10) -> None:
    """LayerNorm written by hand: the table `LAYER_NORM_CASES` (the worked tokens, gamma and
    beta, a batch against nn.LayerNorm, tiny and large spreads, one token, float32, float32
    with a large mean (E[h^2] - mean^2 cancels), an input check), then random shapes, scales
    and eps against the reference."""
    run = CheckRun(layer_norm)
    forbid(run, set(_BUILTIN_NORMS), "PyTorch's own normalisation ({used})", HINT_WRITE_IT_YOURSELF)
    run.in_place_hint = HINT_LAYER_NORM_IN_PLACE
    run_table(run, "layer_norm", LAYER_NORM_CASES, KNOWN, reference, trials, _layer_norm_trial)


# ---------------------------------------------------------------------------------------
# MLP
# ---------------------------------------------------------------------------------------
WORKED_W_IN = [[1.0, -1.0], [0.5, 2.0], [-1.5, 0.5]]  # fc_in.weight, (d_hidden=3, d_model=2)
WORKED_B_IN = [0.0, -1.0, 0.5]
WORKED_W_OUT = [[1.0, 0.0, -1.0], [0.5, 1.0, 2.0]]  # fc_out.weight, (2, 3)
WORKED_B_OUT = [0.0, 0.25]
WORKED_MLP_X = [[1.0, 0.5], [0.5, -0.25]]
WORKED_MLP_Y = [[0.5157017449196577, 0.4286558173902076], [0.7127158232150774, 0.14257985077964827]]
HINT_MLP_WIDTHS = "fc_in maps d_model -> d_hidden and fc_out maps d_hidden -> d_model"
HINT_MLP_BIAS = "keep the bias of nn.Linear (bias=True, the default)"
HINT_LINEAR_NAMED = (
    "create self.{name} = nn.Linear(...) in __init__; the autograder and the "
    "reference model find layers by these names"
)  # name: the layer's


def _expect_linear(run: CheckRun, owner: str, module, name: str, d_in: int, d_out: int):
    info = module.info()
    run.expect_true(is_instance(module, name, nn.Linear, info), f"{owner} has no nn.Linear "
                    f"attribute {name!r} (found {type_name(module, name) or 'NoneType'}).",
                    hint=HINT_LINEAR_NAMED.format(name=name))  # fmt: skip
    params = parameter_shapes(module, info)
    shape = params.get(f"{name}.weight")
    run.expect_true(shape == (d_out, d_in), f"{owner}.{name}.weight has shape {shape}; expected "
                    f"({d_out}, {d_in}), i.e. nn.Linear({d_in}, {d_out}).",
                    hint=HINT_MLP_WIDTHS)  # fmt: skip
    run.expect_true(f"{name}.bias" in params, f"{owner}.{name} has no bias.", hint=HINT_MLP_BIAS)


HINT_MLP_LEADING_AXES = (
    "the MLP keeps x's shape (..., d_model): nn.Linear acts on the last axis, so there is no need "
    "to flatten the tokens (and a flattened result must be reshaped back)"
)
MLP_TOKEN_WISE = (
    "the MLP acts on each token separately: one token's output depends on that token only"
)


def _inspect_mlp(run: CheckRun, owner: str, view, *, d: int, hidden: int) -> None:
    """Two named nn.Linear layers with biases, and no dropout left on in eval mode."""
    _expect_linear(run, owner, view, "fc_in", d, hidden)
    _expect_linear(run, owner, view, "fc_out", hidden, d)
    x = f64(1, 2, d, seed=16).float()
    expect_deterministic(run, f"{owner} on random x", view, x, crash_hints=_MLP_CRASH)


def _mlp_build(d: int, hidden: int, *weights) -> Build:
    """MLP(d, hidden) with the weights and biases of fc_in and fc_out, in that order."""
    names = ("fc_in.weight", "fc_in.bias", "fc_out.weight", "fc_out.bias")
    tensors = {n: torch.as_tensor(w, dtype=torch.float64) for n, w in zip(names, weights)}
    return Build(f"MLP(d_model={d}, d_hidden={hidden})", (d, hidden), tensors,
                 partial(_inspect_mlp, d=d, hidden=hidden))  # fmt: skip


def _mlp(W1, b1, W2, b2, x):
    x, W1, b1, W2, b2 = (torch.as_tensor(t, dtype=torch.float64) for t in (x, W1, b1, W2, b2))
    return F.linear(F.gelu(F.linear(x, W1, b1)), W2, b2)


_MLP_CRASH = (("must match the size of tensor", HINT_BRANCH_SHAPES),)
_MLP_WEIGHTS = (f64(10, 6, seed=11, scale=0.8), f64(10, seed=12), f64(6, 10, seed=13),
                f64(6, seed=14))  # fmt: skip
MLP_CASES = (
    Case("worked", "the worked MLP(2, 3) on x = [[1, 0.5], [0.5, -0.25]]",
         (torch.tensor(WORKED_MLP_X),), torch.tensor(WORKED_MLP_Y, dtype=torch.float64),
         build=_mlp_build(2, 3, WORKED_W_IN, WORKED_B_IN, WORKED_W_OUT, WORKED_B_OUT),
         shape_hint="the MLP maps d_model features back to d_model", depth=3,
         crash_hints=_MLP_CRASH),
    *token_wise_cases("MLP(6, 10)", _mlp_build(6, 10, *_MLP_WEIGHTS),
                      f64(2, 5, 6, seed=15).float(), partial(_mlp, *_MLP_WEIGHTS),
                      (HINT_MLP_LEADING_AXES, MLP_TOKEN_WISE, MLP_TOKEN_WISE),
                      crash_hints=_MLP_CRASH),
)  # fmt: skip


def _mlp_trial(rng: np.random.Generator, seed: int) -> Case:
    d, hidden, B, L = sizes(rng, 4, high=9)
    weights = (normal(rng, hidden, d), normal(rng, hidden), normal(rng, d, hidden), normal(rng, d))
    x = torch.from_numpy(2.0 * normal(rng, B, L, d)).float()
    call = f"MLP({d}, {hidden}) with random weights on x of shape {(B, L, d)} (seed {seed})"
    return Case("trial", call, (x,), build=_mlp_build(d, hidden, *weights), depth=3,
                crash_hints=_MLP_CRASH)  # fmt: skip


def check_mlp(MLP, reference=None, trials: int = 4) -> None:
    """The GELU MLP as a module, its two named layers (with biases, no live dropout) checked
    each time it is built: the worked example, random weights on a batch, the tokens
    reordered, one token alone, an input check (table `MLP_CASES`), then random sizes against
    the reference."""
    run_table(CheckRun(MLP), "MLP", MLP_CASES, KNOWN, reference, trials, _mlp_trial)


# ---------------------------------------------------------------------------------------
# Shared by the module checks: parameter names, random weights, copying
# ---------------------------------------------------------------------------------------
def _randomise(module: nn.Module, seed: int) -> nn.Module:
    """Random weights everywhere, LayerNorm gammas and betas included, so that a LayerNorm
    used in the wrong place or a missing one changes the output."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in module.named_parameters():
            noise = torch.randn(p.shape, generator=g)
            if ".ln" in f".{name}" and name.endswith("weight"):
                p.copy_(1.0 + 0.3 * noise)
            elif name.endswith("bias"):
                p.copy_(0.2 * noise)
            elif p.dim() == 2 and ("embed" in name or name.startswith("pos")):
                p.copy_(noise)
            else:
                p.copy_(noise / math.sqrt(p.shape[-1]))
    return module


HINT_ATTRIBUTE_NAMES = (
    "use the attribute names of the exercise; they let the reference "
    "model's weights load into yours"
)
HINT_HIDDEN_WIDTH = "the MLP's hidden width is 4 * d_model"


def _expect_same_parameters(
    run: CheckRun, owner: str, module, reference: nn.Module, hints: list[tuple[str, str, str]]
) -> None:
    """The student's parameter names and shapes must be the reference model's, so weights
    copy across with load_state_dict. ``hints``: (key prefix, mistake name, hint)."""
    # Every name of every parameter, aliases included: a layer also kept in a container
    # (self.net = nn.Sequential(self.fc_in, ...), or self.ln1, self.ln2 = self.norms) is
    # one parameter under two names, and either name may be the one PyTorch lists first.
    params = module.info()["params"]
    named = {name: token for name, _, _, token, _ in params}
    seen = {name: shape for name, shape, *_ in params}
    expected = {k: tuple(p.shape) for k, p in reference.named_parameters()}
    # The reference's parameters are distinct, so two expected names that reach one shared
    # parameter (one block repeated, a tied head) count the second as missing.
    covered, missing = set(), []
    for k in expected:
        if k not in named or named[k] in covered:
            missing.append(k)
        else:
            covered.add(named[k])
    missing = sorted(missing)
    extra, extra_ids = [], set()
    for k, token in named.items():  # parameters no expected name reaches, each named once
        if token not in covered and token not in extra_ids:
            extra.append(k)
            extra_ids.add(token)
    extra = sorted(extra)
    if missing or extra:
        for prefix, name, hint in hints:
            if any(k.startswith(prefix) for k in missing + extra):
                run.fail(
                    f"{owner}: parameters missing {missing[:6]}, unexpected "
                    f"{extra[:6]}.\nThis looks like a known mistake: {name}.",
                    hint=hint,
                )
        run.fail(
            f"{owner} does not have the expected parameters: missing {missing[:8]}, "
            f"unexpected {extra[:8]}.",
            hint=HINT_ATTRIBUTE_NAMES,
        )
    wrong = [(k, seen[k], expected[k]) for k in expected if seen[k] != expected[k]]
    if wrong:
        key, got, want = wrong[0]
        run.fail(f"{owner}: parameter {key} has shape {got}; expected {want}.",
                 hint=HINT_HIDDEN_WIDTH if "mlp" in key else None)  # fmt: skip
    run.passed += 1


# ---------------------------------------------------------------------------------------
# PreNormBlock
# ---------------------------------------------------------------------------------------
BLOCK, DECODER = "PreNormBlock", "Decoder"


HINT_LN1 = "create self.ln1 = nn.LayerNorm(d_model), with its weight and bias (the defaults)"
HINT_LN2 = "create self.ln2 = nn.LayerNorm(d_model), with its weight and bias (the defaults)"
HINT_ATTN = "use the given layer causal_self_attention(d_model, n_heads) as self.attn"
HINT_MLP = "create self.mlp, your MLP with a hidden width of 4 * d_model"

BLOCK_HINTS = [
    ("ln1", "LN1 missing, or without its weight and bias", HINT_LN1),
    ("ln2", "LN2 missing, or without its weight and bias", HINT_LN2),
    ("attn", "attention layer missing or built by hand", HINT_ATTN),
    ("mlp", "MLP missing", HINT_MLP),
]


HINT_BLOCK_SHAPE = "a block maps (B, L, d) to (B, L, d)"
HINT_BLOCK_IN_PLACE = "write u = h + ..., not h += ..."
HINT_NORM_EPS = (
    "keep nn.LayerNorm(d_model)'s default eps = 1e-5: another eps changes the "
    "output whenever a token's variance is small"
)
HINT_BLOCK_CAUSAL = (
    "outputs at positions 0..2 may only depend on inputs 0..2: keep the causal "
    "attention layer you were given"
)
HINT_SILENT_BLOCK = (
    "with both branches adding zero, U = H and H_out = U: nothing may touch the bypass"
)
HINT_NORM_NAMED = "self.{name} = nn.LayerNorm(d_model)"  # name: ln1 or ln2


def _package_block(d: int, n_heads: int) -> TransformerBlock:
    """The package's block of width `d` with `n_heads` heads (a one-layer config)."""
    config = LMConfig(vocab_size=1, d_model=d, n_heads=n_heads, n_layers=1, positions="none")
    return TransformerBlock(config)


def _block_like(d: int, n_heads: int, seed: int | None = None) -> TransformerBlock:
    """The package's block (the reference's parameter names and shapes), with random
    weights from `seed` if given (`package_model`)."""
    return cast(TransformerBlock, package_model(_package_block, (d, n_heads), seed, _randomise))


def _inspect_block(run: CheckRun, call: str, view, *, d: int, n_heads: int) -> None:
    """The reference's parameter names and shapes (so weights load by name), ln1 and ln2 as
    nn.LayerNorm, and no dropout left on in eval mode."""
    _expect_same_parameters(run, call, view, _block_like(d, n_heads), BLOCK_HINTS)
    info = view.info()
    for name in ("ln1", "ln2"):
        run.expect_true(
            is_instance(view, name, nn.LayerNorm, info),
            f"{call}.{name} is {type_name(view, name) or 'NoneType'}, not nn.LayerNorm.",
            hint=HINT_NORM_NAMED.format(name=name),
        )
    h = f64(1, 3, d, seed=24).float()
    expect_deterministic(run, f"{call} on random h", view, h, crash_hints=_MLP_CRASH)


_SILENCED = ("attn.W_O.weight", "attn.W_O.bias", "mlp.fc_out.weight", "mlp.fc_out.bias")


def _block_case(case_id: str, call: str, d: int, n_heads: int, seed: int, args: tuple,
                silenced: bool = False, **more) -> Case:  # fmt: skip
    """PreNormBlock(d, n_heads) with random weights from `seed` (LayerNorms included; the
    output layers of both branches zero when `silenced`) called on `args`, expecting the
    package's block with the same weights."""
    block = _block_like(d, n_heads, seed)
    tensors = weights_of(block)
    if silenced:
        tensors |= {k: torch.zeros_like(tensors[k]) for k in _SILENCED}
        block = copy.deepcopy(block)
        block.load_state_dict(tensors, strict=False)
    with torch.no_grad():
        expected = block(*args)
    if "view" in more:  # compared on a view of the output (`Case.view`)
        more["shape"], expected = tuple(expected.shape), more["view"][1](expected)
    build = Build(f"PreNormBlock(d_model={d}, n_heads={n_heads})", (d, n_heads), tensors,
                  partial(_inspect_block, d=d, n_heads=n_heads))  # fmt: skip
    return Case(case_id, call, args, expected, build=build, shape_hint=HINT_BLOCK_SHAPE,
                crash_hints=_MLP_CRASH, depth=6, **more)  # fmt: skip


_H = f64(2, 5, 8, seed=22, scale=2.0, shift=0.5).float()
_H_LATE = torch.cat([_H[:, :3], f64(2, 2, 8, seed=23).float()], dim=1)  # tokens 3, 4 changed
_FIRST_THREE = ("the outputs of tokens 0..2", lambda out: out[:, :3])
BLOCK_CASES = (
    _block_case("random", "PreNormBlock(8, 2) with random weights on h of shape (2, 5, 8)",
                8, 2, 21, (_H,)),
    _block_case("rope", "PreNormBlock(8, 2) on the same h with rope=(cos, sin)",
                8, 2, 21, (_H, rope_tables(5, 4))),
    _block_case("tiny", "PreNormBlock(8, 2) on h * 1e-3 (token variance near LayerNorm's eps)",
                8, 2, 21, (_H * 1e-3,), hint=HINT_NORM_EPS),
    _block_case("causal", "PreNormBlock(8, 2) on h with tokens 3 and 4 changed",
                8, 2, 21, (_H_LATE,), hint=HINT_BLOCK_CAUSAL, view=_FIRST_THREE),
    _block_case("silenced", "PreNormBlock(8, 2) with attn.W_O and mlp.fc_out set to zero "
                "(both branches add 0), on h of shape (2, 5, 8)", 8, 2, 21, (_H,),
                silenced=True, hint=HINT_SILENT_BLOCK, what="values (expected H itself)",
                tolerance=Tolerance(rtol=0.0, atol=1e-7)),
    _block_case("no batch", "PreNormBlock(8, 2) on h of shape (5, 8) (no batch axis)",
                8, 2, 21, (torch.zeros(5, 8),), raises=ValueError, mentions=("h", "(5, 8)")),
)  # fmt: skip


def _block_trial(rng: np.random.Generator, seed: int) -> Case:
    """Random sizes and weights, with rope on odd seeds."""
    n_heads, half, B, L = sizes(rng, 3, high=4) + [int(rng.integers(1, 8))]
    d = n_heads * 2 * half
    h = torch.from_numpy(normal(rng, B, L, d).astype(np.float32))
    args = (h,) if seed % 2 == 0 else (h, rope_tables(L, 2 * half))
    call = (f"PreNormBlock({d}, {n_heads}) with random weights on h of shape {(B, L, d)}"
            f"{' with rope' if len(args) > 1 else ''} (seed {seed})")  # fmt: skip
    return _block_case("trial", call, d, n_heads, int(rng.integers(2**31)), args)


def check_prenorm_block(PreNormBlock, reference=None, trials: int = 3) -> None:
    """The block built each time with the reference's parameter names and shapes, nn.LayerNorm
    ln1 and ln2 and no live dropout, its weights set at random: h, h with rope, tiny h (the
    LayerNorms' eps), causality, both branches silenced (the bypass is exact), an input check
    (table `BLOCK_CASES`), then random sizes against the reference."""
    run = CheckRun(PreNormBlock)
    run.in_place_hint = HINT_BLOCK_IN_PLACE
    run_table(run, BLOCK, BLOCK_CASES, KNOWN, reference, trials, _block_trial)


# ---------------------------------------------------------------------------------------
# Decoder
# ---------------------------------------------------------------------------------------
HINT_LEARNED_ONLY = (
    "only positions='learned' has position parameters (a frozen nn.Parameter is one too: "
    "model.parameters() and the state_dict list it); sinusoids and RoPE are fixed tables: "
    "self.register_buffer(..., persistent=False)"
)
HINT_HEAD_BIAS = (
    "the head is nn.Linear(d_model, vocab_size) WITH its bias c: Y = "
    "LN_final(H_N) W_vocab^T + 1 c^T"
)
HINT_LN_FINAL = "create self.ln_final = nn.LayerNorm(d_model) and apply it to H_N before the head"
HINT_BLOCKS = (
    "build n_layers distinct PreNormBlock(d_model, n_heads), each with its own "
    "weights, in an nn.ModuleList: a list like [block] * n_layers repeats ONE block"
)
HINT_EMBED = (
    "create self.embed, an nn.Embedding with one row of d_model numbers per token of the vocabulary"
)
HINT_HEAD = "create self.head, an nn.Linear from the d_model features to the vocab_size logits"


def _decoder_hints(positions: str) -> list[tuple[str, str, str]]:
    learned = (
        "positions='learned' needs self.pos, an nn.Embedding with one row of d_model "
        "numbers for each of the max_len positions"
        if positions == "learned"
        else HINT_LEARNED_ONLY
    )
    return [
        ("head.weight", "vocabulary head missing", HINT_HEAD),
        ("head.bias", "vocabulary head without its bias", HINT_HEAD_BIAS),
        ("ln_final", "the final LayerNorm forgotten or without its weight and bias", HINT_LN_FINAL),
        ("pos", "position parameters wrong for this option", learned),
        ("sinusoids", "the sinusoid table stored as a parameter", learned),
        ("rope_", "the RoPE tables stored as parameters", learned),
        ("blocks.", "not n_layers distinct blocks", HINT_BLOCKS),
        ("embed", "token embedding missing", HINT_EMBED),
    ]


HINT_TABLE_BUFFER = (
    "a fixed table is a buffer: self.register_buffer(name, table, persistent=False), so that "
    "model.to(...) moves it with the weights (a plain attribute stays behind)"
)
HINT_LOGITS_SOFTMAXED = (
    "return the logits themselves; the softmax belongs to the loss and the sampler"
)


def _random_ids(B: int, L: int, V: int, seed: int) -> torch.Tensor:
    return torch.randint(0, V, (B, L), generator=torch.Generator().manual_seed(seed))


def _note_saved_buffers(run: CheckRun, model, ref: TransformerLM) -> None:
    """A buffer saved with the weights is not wrong here, but the notebook next loads
    state dicts between the learner's Decoder and TransformerLM, which would then fail."""
    keys = set(ref.state_dict())
    saved = [name for name, _, _, kept in model.info()["buffers"] if kept and name not in keys]
    note = (
        f"note: {run.name} saves the buffer{'s' if len(saved) > 1 else ''} "
        f"{', '.join(saved)} in its state_dict, and TransformerLM does not: loading the "
        "state_dict of one into the other fails. Register fixed tables with "
        "self.register_buffer(name, table, persistent=False)."
    )
    if saved and note not in run.notes:
        run.notes.append(note)
        print(note)


HINT_ROPE_HEAD_WIDTH = (
    "RoPE rotates the pairs of each head's queries and keys: "
    "rope_tables(max_len, d_model // n_heads)"
)
HINT_LOGITS_SHAPE = "logits have shape (B, L, V)"


def _package_decoder(V: int, d: int, n_heads: int, n_layers: int, max_len: int,
                     positions: str) -> TransformerLM:  # fmt: skip
    return TransformerLM(LMConfig(vocab_size=V, d_model=d, n_heads=n_heads, n_layers=n_layers,
                                  max_len=max_len, positions=positions))  # fmt: skip


def _decoder_like(sizes: tuple, positions: str, seed: int | None = None) -> TransformerLM:
    """The package's decoder (the reference's parameter names and shapes), with random
    weights from `seed` if given (`package_model`)."""
    model = package_model(_package_decoder, (*sizes, positions), seed, _randomise)
    return cast(TransformerLM, model)


def _inspect_decoder(run: CheckRun, call: str, view, *, sizes: tuple, positions: str) -> None:
    """The reference's parameter names and shapes (so weights load by name; fixed tables are
    buffers; a block repeated misses names, so n_layers distinct blocks), RoPE tables as wide
    as a head."""
    V, d, n_heads, n_layers, max_len = sizes
    like = _decoder_like(sizes, positions)
    _expect_same_parameters(run, call, view, like, _decoder_hints(positions))
    _note_saved_buffers(run, view, like)
    tables, info = ("sinusoids", "rope_cos", "rope_sin"), view.info()
    kept = {name for name, *_ in info["buffers"] + info["params"]}
    plain = [n for n, t in zip(tables, view.tensors(*tables)) if t is not None and n not in kept]
    run.expect_true(not plain, f"{call} keeps {', '.join(plain)} as a plain tensor attribute, "
                    "not a buffer.", hint=HINT_TABLE_BUFFER)  # fmt: skip
    if positions == "rope":
        shape = tuple(getattr(view.tensors("rope_cos")[0], "shape", ()))
        run.expect_true(
            shape in ((), (max_len, d // n_heads // 2)),
            f"{call}.rope_cos has shape {shape}; expected "
            f"{(max_len, d // n_heads // 2)}, (max_len, d_k / 2).",
            hint=HINT_ROPE_HEAD_WIDTH,
        )


def _decoder_build(sizes: tuple, positions: str, seed: int) -> Build:
    """Decoder(*sizes, positions) with the random weights of `_decoder_like(..., seed)`."""
    tensors = weights_of(_decoder_like(sizes, positions, seed))
    return Build(f"Decoder({', '.join(map(str, sizes))}, {positions!r})", (*sizes, positions),
                 tensors, partial(_inspect_decoder, sizes=sizes, positions=positions))  # fmt: skip


def _decoder_case(case_id: str, sizes: tuple, positions: str, seed: int, idx, **more) -> Case:
    """The decoder with random weights on the ids `idx`, expecting the package's logits."""
    build = _decoder_build(sizes, positions, seed)
    with torch.no_grad():
        expected = _decoder_like(sizes, positions, seed)(idx)
    call = f"{build.call} with random weights on ids of shape {tuple(idx.shape)}"
    return Case(case_id, call, (idx,), expected, build=build, shape_hint=HINT_LOGITS_SHAPE,
                crash_hints=((("must match the size of tensor", HINT_SLICE_TABLES),)),
                depth=14, what="logits", **more)  # fmt: skip


HINT_LN_FINAL_EPS = (
    "self.ln_final = nn.LayerNorm(d_model), with its default eps = 1e-5 like the blocks' "
    "LayerNorms: on a stream of tiny spread eps decides the output"
)


def _tiny_stream_case(seed: int) -> Case:
    """The decoder (RoPE) whose embeddings and branch outputs are scaled by 1e-3, so the
    final stream H_N has a variance near LayerNorm's eps: ln_final's eps shows."""
    model = _decoder_like(_DECODER, "rope", seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name == "embed.weight" or ".W_O." in name or ".fc_out." in name:
                p.mul_(1e-3)
    idx = _random_ids(2, 6, 13, seed + 1)
    with torch.no_grad():
        expected = model(idx)
    build = replace(_decoder_build(_DECODER, "rope", seed), tensors=weights_of(model))
    call = (f"{build.call} on ids of shape {tuple(idx.shape)}, its embeddings and branch outputs "
            "scaled by 1e-3 (H_N's variance near LayerNorm's eps)")  # fmt: skip
    return Case("tiny stream", call, (idx,), expected, build=build, hint=HINT_LN_FINAL_EPS,
                shape_hint=HINT_LOGITS_SHAPE, depth=14, what="logits")  # fmt: skip


_DECODER = (13, 8, 2, 2, 16)  # V, d, h, N, max_len; max_len > V for the ids-as-positions slip
_LEARNED = _decoder_build(_DECODER, "learned", 900)
DECODER_CASES = (
    *(
        _decoder_case(f"{positions} {B}x{L}", _DECODER, positions, 900 + 10 * i,
                      _random_ids(B, L, 13, 900 + 10 * i + L))
        for i, positions in enumerate(POSITION_OPTIONS)
        for B, L in ((2, 16), (1, 5))
    ),
    _tiny_stream_case(990),
    Case("too long", "Decoder(13, 8, 2, 2, 16, 'learned') on ids of shape (2, 17)",
         (torch.zeros(2, 17, dtype=torch.long),), build=_LEARNED, raises=ValueError,
         mentions=("idx", "(2, 17)", "16")),
    Case("no batch", "Decoder(13, 8, 2, 2, 16, 'learned') on ids of shape (5,)",
         (torch.zeros(5, dtype=torch.long),), build=_LEARNED, raises=ValueError,
         mentions=("idx", "(5,)")),
    Case("absolute", "Decoder(13, 8, 2, 2, 16, 'absolute')", (*_DECODER, "absolute"),
         raises=ValueError, mentions=("positions", "absolute")),
)  # fmt: skip


def _decoder_trial(rng: np.random.Generator, seed: int) -> list[Case]:
    """Random sizes, weights and ids, for each position option."""
    cases = []
    n_heads = int(rng.integers(1, 3))
    sizes = (int(rng.integers(2, 20)), n_heads * 2 * int(rng.integers(1, 4)), n_heads,
             int(rng.integers(1, 4)), int(rng.integers(3, 12)))  # fmt: skip
    for positions in POSITION_OPTIONS:
        B, L = int(rng.integers(1, 3)), int(rng.integers(1, sizes[-1] + 1))
        idx = torch.from_numpy(rng.integers(0, sizes[0], size=(B, L)))
        case = _decoder_case("trial", sizes, positions, int(rng.integers(2**31)), idx)
        cases.append(replace(case, call=f"{case.call} (seed {seed})"))
    return cases


def check_decoder(Decoder, reference=None, trials: int = 1) -> None:
    """The decoder built for each position option with the reference's parameter names and
    shapes and its weights set at random, its logits on two id shapes each (the package's
    causal decoder's, so a peek at a later token shows), three input checks (table
    `DECODER_CASES`), then random sizes against the reference."""
    run_table(CheckRun(Decoder), DECODER, DECODER_CASES, KNOWN, reference, trials, _decoder_trial)


# ---------------------------------------------------------------------------------------
# count_parameters
# ---------------------------------------------------------------------------------------


_COUNT = Tolerance(rtol=0.0, atol=0.5)  # a count of parameters: exact
_SMALL = (23, 16, 4, 2, 12)  # vocab_size, d_model, n_heads, n_layers, max_len


def _module_count(
    V, d, n_heads, n_layers, max_len, positions, d_hidden=None, tie_weights=False
) -> int:
    """The package's decoder of these sizes, counting its own parameters."""
    config = LMConfig(V, d, n_heads, n_layers, max_len, positions=positions,
                      tie_weights=tie_weights, d_hidden=d_hidden)  # fmt: skip
    return TransformerLM(config).num_parameters()


def _count_case(case_id: str, args: tuple, kwargs: dict, expect, note: str = "") -> Case:
    words = ", ".join([*map(repr, args), *(f"{k}={v!r}" for k, v in kwargs.items())])
    return Case(case_id, f"count_parameters({words}){note}", args, expect, kwargs=kwargs,
                scalar=True, tolerance=_COUNT, what="count")  # fmt: skip


COUNT_CASES = (
    # GPT-2 small (124,439,808 parameters) has the same block; our head adds a bias of V
    _count_case("gpt2", (50257, 768, 12, 12, 1024, "learned"), {"tie_weights": True},
                124_439_808 + 50257, " (GPT-2 small)"),
    *(_count_case(f"{positions}, d_hidden={hidden}, tied={tie}", (*_SMALL, positions),
                  {"d_hidden": hidden, "tie_weights": tie}, _module_count,
                  " against the module's own count")
      for positions in POSITION_OPTIONS for tie in (False, True) for hidden in (None, 24)),
    Case("absolute", "count_parameters(23, 16, 4, 2, 12, 'absolute')", (*_SMALL, "absolute"),
         raises=ValueError, mentions=("positions", "absolute")),
)  # fmt: skip


def _count_trial(rng: np.random.Generator, seed: int) -> Case:
    n_heads = int(rng.integers(1, 17))
    V, d = int(rng.integers(2, 60000)), n_heads * 2 * int(rng.integers(1, 65))  # an even d_k
    n_layers, max_len = int(rng.integers(1, 49)), int(rng.integers(1, 4097))
    args = (V, d, n_heads, n_layers, max_len, POSITION_OPTIONS[seed % 4])
    kwargs = {"d_hidden": None if seed % 3 else int(rng.integers(1, 5000)),
              "tie_weights": bool(seed % 2)}  # fmt: skip
    return _count_case("trial", args, kwargs, None, f" (seed {seed})")


def check_count_parameters(count_parameters, reference=None, trials: int = 12) -> None:
    """The closed-form count, exactly: GPT-2 small, every option of a small decoder against
    the package module's own count, an input check (table `COUNT_CASES`), then random sizes
    against the reference."""
    run_table(CheckRun(count_parameters), "count_parameters", COUNT_CASES, KNOWN, reference, trials,
              _count_trial)  # fmt: skip


# the functions of notebook 06 checked as tables
CASES = {
    "layer_norm": LAYER_NORM_CASES,
    "MLP": MLP_CASES,
    BLOCK: BLOCK_CASES,
    DECODER: DECODER_CASES,
    "count_parameters": COUNT_CASES,
}
