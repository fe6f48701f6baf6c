"""Checks for notebook 10, the modern decoder: rms_norm, SwiGLU, grouped_query_attention,
kv_cache_bytes, Qwen3Block, Qwen3Decoder, decode_step.

Expected values come from worked examples written out here, from PyTorch's own functions
(`F.rms_norm`, `F.scaled_dot_product_attention(..., enable_gqa=True)`), from the package's
`attnbook.lm.qwen3.Qwen3LM` (whose weights are copied into the learner's modules) and, for the
decoder, from the logits that transformers' `Qwen3ForCausalLM` gave on the tiny checkpoint
in `assets/qwen3_tiny` (stored there by `scripts/make_tiny_qwen3.py`). `decode_step` is run
on the package's `Qwen3LM`, so its check does not depend on the learner's decoder. Hidden
use adds comparisons with the autograder's reference on random sizes and seeds.
"""

from __future__ import annotations

import math
from dataclasses import asdict, replace
from functools import partial
from typing import cast

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from attnbook.checks import nb05, nb06
from attnbook.checks._cases import (
    Build,
    Case,
    Part,
    Returns,
    Slips,
    forbid,
    normal,
    package_model,
    probe_tolerance,
    run_case,
    run_cases,
    run_table,
    run_trials,
    sizes,
    token_wise_cases,
    weights_of,
)
from attnbook.checks._core import CheckRun, as_array
from attnbook.checks._lm import one_thread
from attnbook.checks._modules import f64, is_instance, parameter_shapes, type_name
from attnbook.checks.nb06 import _expect_same_parameters, _random_ids
from attnbook.lm.model import rope_tables
from attnbook.lm.qwen3 import (
    ModernBlock,
    Qwen3LM,
    Qwen3LMConfig,
    load_hf_checkpoint,
    randomise,
    tiny_checkpoint,
)
from attnbook.tolerance import Tolerance, magnitude_of, tolerance

KNOWN = Slips("nb10")

__all__ = [
    "check_decode_step",
    "check_grouped_query_attention",
    "check_kv_cache_bytes",
    "check_qwen3_block",
    "check_qwen3_decoder",
    "check_rms_norm",
    "check_swiglu",
]

#: Reductions one after another in a Qwen3 block: the first RMSNorm, the q/k/v projections,
#: the q/k norms, the scores, the softmax, the weighted sum, the output projection, the second
#: RMSNorm, the gate/up projections, the down projection.
BLOCK_DEPTH = 10


def hf_tolerance(n_layers: int, expected) -> Tolerance:
    """The decoder's logits against transformers' stored ones, computed on another machine:
    float32, over `n_layers` blocks and the final norm and head, at the logits' size
    (see attnbook.tolerance)."""
    return tolerance(torch.float32, magnitude_of(expected), BLOCK_DEPTH * n_layers + 2)


PACKAGE = "attnbook.lm.qwen3."
HINT_DELEGATE = (
    "write the module yourself from nn.Linear, nn.RMSNorm and your own classes; the package's "
    "production model (attnbook.lm.qwen3) is what the check compares with"
)


HINT_TENSOR_RESULT = "stay in PyTorch: tensor operations, not numpy"


def _expect_own_modules(run: CheckRun, call: str, view) -> None:
    """No submodule may be one of the package's production classes."""
    borrowed = sorted(
        path or "(the module itself)"
        for path, (mro, *_) in view.info()["modules"].items()
        if any(name.startswith(PACKAGE) for name in mro)
    )
    run.expect_true(
        not borrowed,
        f"{call} holds the package's production modules at {borrowed[:3]}.",
        hint=HINT_DELEGATE,
    )


HINT_W_Q_SHAPE = (
    "W_Q = nn.Linear(d_model, n_heads * d_k, bias=False): one block of d_k rows per query head"
)
HINT_W_KV_SHAPE = (
    "W_K and W_V map d_model to n_kv_heads * d_k (the key/value heads, fewer than the query heads)"
)
HINT_W_O_SHAPE = (
    "W_O = nn.Linear(n_heads * d_k, d_model, bias=False) maps the merged heads back to d_model"
)
HINT_QK_NORM_SHAPE = "QK-norm works on one head: its RMSNorm has d_k features, not d_model"
HINT_MLP_SHAPE = "build the MLP from your SwiGLU class; its hidden width is the d_hidden argument"


SHAPE_HINTS = {
    "W_Q.weight": HINT_W_Q_SHAPE,
    "W_K.weight": HINT_W_KV_SHAPE,
    "W_V.weight": HINT_W_KV_SHAPE,
    "W_O.weight": HINT_W_O_SHAPE,
    "q_norm.weight": HINT_QK_NORM_SHAPE,
    "k_norm.weight": HINT_QK_NORM_SHAPE,
    "mlp.": HINT_MLP_SHAPE,
}


def _expect_parameters(
    run: CheckRun, owner: str, view, reference: nn.Module, hints: list[tuple[str, str, str]]
) -> None:
    """Names as `_expect_same_parameters` checks them; a wrong shape gets its own hint."""
    shapes = parameter_shapes(view)
    for key, param in reference.named_parameters():
        seen = shapes.get(key)
        if seen is not None and seen != tuple(param.shape):
            hint = next((h for part, h in SHAPE_HINTS.items() if part in key), None)
            run.fail(
                f"{owner}: parameter {key} has shape {seen}; expected {tuple(param.shape)}.",
                hint=hint,
            )
    _expect_same_parameters(run, owner, view, reference, hints)


HINT_BLOCK_PAIR_CRASH = (
    "a Qwen3Block returns (h_out, (k, v)): unpack the pair and keep the keys "
    "and values for the new cache"
)
HINT_SIZE_MISMATCH = (
    "check every shape on the way: heads are (B, n, L, d_k), the RoPE tables (L, d_k / 2) for the "
    "L new tokens, and the keys and values grow along dim=2, the token axis"
)
HINT_SIZES_FROM_INPUT = (
    "take every size from the tensors and the module (B, L = h.shape[:2], "
    "self.n_heads, self.n_kv_heads, self.d_k), not from the worked example"
)


_CRASH_HINTS: list[tuple[str | tuple[str, ...], str]] = [
    (("'tuple' object has no attribute", "got tuple"), HINT_BLOCK_PAIR_CRASH),
    (("must match the size", "must have shape (L, d_k / 2)"), HINT_SIZE_MISMATCH),
    ("shape '[", HINT_SIZES_FROM_INPUT),
]


# ---------------------------------------------------------------------------------------
# rms_norm
# ---------------------------------------------------------------------------------------
HINT_RMS_AXIS = (
    "take the mean of h ** 2 over each token's own d features: the last axis, "
    "(h ** 2).mean(dim=-1, keepdim=True)"
)


HINT_KEEPDIM = (
    HINT_RMS_AXIS + "; use gamma as it is: (d,) already lines up with the last axis, no "
    "gamma[:, None]"
)
HINT_RMS_SHAPE = "RMSNorm keeps the shape of h"
HINT_RMS_ZERO_TOKEN = (
    "a token of zeros has mean square 0: eps inside the square root, "
    "sqrt(mean_square + eps), keeps it finite"
)


HINT_RMS_OWN = (
    "write the mean square and the division yourself; the check compares with F.rms_norm for you"
)
HINT_RMS_IN_PLACE = "build a new tensor (h / ..., not h /= ...): h must stay as it was"


def _tensor_first(run: CheckRun, case: Case, seen) -> None:
    """A case's `before=`: the output is a tensor."""
    run.expect_true(
        isinstance(seen, torch.Tensor),
        f"{case.call} returned {type(seen).__name__}; expected a torch.Tensor.",
        hint=HINT_TENSOR_RESULT,
    )


def _rms_case(case_id: str, call: str, h, gamma, eps: float, expect) -> Case:
    return Case(case_id, call, (h, gamma, eps), expect=expect, shape_hint=HINT_RMS_SHAPE,
                finite=HINT_RMS_ZERO_TOKEN, crash_hints=(("must match the size", HINT_KEEPDIM),),
                before=_tensor_first, scale_free=True)  # fmt: skip


_f64_ = torch.float64
_H = torch.tensor([[1.0, 2.0, -3.0, 4.0], [0.0, 0.0, 0.0, 0.0]], dtype=_f64_)
_ROOT = math.sqrt(7.5 + 0.5)
_H_NORMED = torch.tensor([[v / _ROOT for v in (1.0, 2.0, -3.0, 4.0)], [0.0] * 4], dtype=_f64_)
_GAMMA = torch.tensor([2.0, 1.0, 0.5, -1.0], dtype=_f64_)
_H3, _G3 = f64(2, 3, 6, seed=101, scale=2.0, shift=1.0), f64(6, seed=102, scale=0.5, shift=1.0)
_HT, _HV = f64(3, 5, seed=103, scale=0.03), f64(7, seed=104, scale=1e3)
_H32 = f64(2, 4, 16, seed=105, scale=3.0).float()
_G32 = f64(16, seed=106, scale=0.3, shift=1.0).float()
RMS_CASES = (
    _rms_case("worked", "rms_norm(h, gamma=1, eps=0.5) with h = [[1, 2, -3, 4], [0, 0, 0, 0]] "
              "(mean square 7.5 in row 0, a row of zeros)", _H, torch.ones(4, dtype=_f64_), 0.5,
              _H_NORMED),
    _rms_case("gamma", "rms_norm(h, gamma=[2, 1, 0.5, -1], eps=0.5) on the same h", _H, _GAMMA,
              0.5, _GAMMA * _H_NORMED),
    _rms_case("3-D", "rms_norm(h, gamma, 1e-6) with h of shape [B, L, d] = (2, 3, 6), against "
              "F.rms_norm", _H3, _G3, 1e-6, F.rms_norm(_H3, (6,), _G3, 1e-6)),
    _rms_case("tiny", "rms_norm(h, gamma=1, eps=1e-3) on tokens of size ~0.03 (eps matters)",
              _HT, torch.ones(5, dtype=_f64_), 1e-3, F.rms_norm(_HT, (5,), eps=1e-3)),
    _rms_case("one token", "rms_norm on a single token vector of size ~1e3, h of shape (7,)",
              _HV, torch.ones(7, dtype=_f64_), 1e-6, F.rms_norm(_HV, (7,), eps=1e-6)),
    _rms_case("float32", "rms_norm on a float32 tensor (2, 4, 16), against torch.nn.RMSNorm",
              _H32, _G32, 1e-6, F.rms_norm(_H32, (16,), _G32, 1e-6)),
    Case("gamma too short", "rms_norm with h (2, 4) and gamma (3,)",
         (torch.zeros(2, 4), torch.ones(3), 1e-6), raises=ValueError,
         mentions=("gamma", "(3,)", "(2, 4)")),
)  # fmt: skip


def _rms_trial(rng: np.random.Generator, seed: int) -> Case:
    shape = tuple(sizes(rng, int(rng.integers(1, 4)), high=6))
    eps = float(rng.choice([1e-6, 1e-3, 0.1]))
    dtype = np.float32 if seed % 3 == 2 else np.float64
    scale, shift = float(10.0 ** rng.integers(-2, 3)), float(rng.normal())
    h = torch.from_numpy((rng.standard_normal(shape) * scale + shift).astype(dtype))
    gamma = torch.from_numpy((rng.standard_normal(shape[-1]) + 1.0).astype(dtype))
    call = f"rms_norm on random h of shape {shape}, {h.dtype}, eps={eps} (seed {seed})"
    return _rms_case("trial", call, h, gamma, eps, None)


@one_thread
def check_rms_norm(rms_norm, reference=None, trials: int = 10) -> None:
    """RMSNorm written by hand: the table `RMS_CASES` (the worked tokens, with gamma, a batch
    against F.rms_norm, tiny and large tokens, float32 against nn.RMSNorm, an input check),
    then random shapes, scales, eps and dtypes against the reference."""
    run = CheckRun(rms_norm)
    norms = {"rms_norm", "RMSNorm", "_fused_rms_norm", "layer_norm", "LayerNorm"}
    forbid(run, norms, "PyTorch's own normalisation ({used})", HINT_RMS_OWN)
    run.in_place_hint = HINT_RMS_IN_PLACE
    run_table(run, "rms_norm", RMS_CASES, KNOWN, reference, trials, _rms_trial)


# ---------------------------------------------------------------------------------------
# SwiGLU
# ---------------------------------------------------------------------------------------
WORKED_W_GATE = [[1.0, -1.0], [0.5, 2.0], [-1.5, 0.5]]  # (d_hidden=3, d_model=2)
WORKED_W_UP = [[0.5, 1.0], [-1.0, 0.5], [1.0, 1.0]]
WORKED_W_DOWN = [[1.0, 0.0, -1.0], [0.5, 1.0, 2.0]]  # (2, 3)
WORKED_X = [[1.0, 0.5], [0.5, -0.25]]
WORKED_Y = [[0.7287924258983813, -1.5992819735122936], [0.0643595251606538, -0.060309128584713545]]
SWIGLU_LAYERS = (
    ("w_gate", "d_model -> d_hidden"),
    ("w_up", "d_model -> d_hidden"),
    ("w_down", "d_hidden -> d_model"),
)


HINT_SWIGLU_LAYER = (
    "create self.{name} = nn.Linear(..., bias=False) in __init__; the "
    "checkpoint's weights load by these names"
)
HINT_SWIGLU_SHAPES = "w_gate and w_up map d_model -> d_hidden, w_down maps d_hidden -> d_model"
HINT_NO_BIAS = "Qwen3's linear layers have no bias: nn.Linear(..., bias=False)"


def _expect_swiglu_layers(run: CheckRun, owner: str, view, *, d: int, hidden: int) -> None:
    info = view.info()
    _expect_own_modules(run, owner, view)
    params = parameter_shapes(view, info)
    for name, meaning in SWIGLU_LAYERS:
        run.expect_true(
            is_instance(view, name, nn.Linear, info),
            f"{owner} has no nn.Linear attribute {name!r} (found "
            f"{type_name(view, name) or 'nothing'}).",
            hint=HINT_SWIGLU_LAYER.format(name=name),
        )
        want = (hidden, d) if name != "w_down" else (d, hidden)
        shape = params.get(f"{name}.weight")
        run.expect_true(
            shape == want,
            f"{owner}.{name}.weight has shape {shape}; expected {want}, i.e. {meaning}.",
            hint=HINT_SWIGLU_SHAPES,
        )
        run.expect_true(
            f"{name}.bias" not in params, f"{owner}.{name} has a bias.", hint=HINT_NO_BIAS
        )


HINT_SWIGLU_SHAPE = "SwiGLU maps d_model features back to d_model"
HINT_SWIGLU_BATCH_SHAPE = "SwiGLU keeps x's shape (..., d_model): nn.Linear acts on the last axis"
HINT_SWIGLU_PER_TOKEN = (
    "SwiGLU acts on each token separately: reordering the tokens only reorders the outputs"
)


def _swiglu(gate, up, down, x):
    x, G, U, D = (torch.as_tensor(t, dtype=torch.float64) for t in (x, gate, up, down))
    return (F.silu(x @ G.T) * (x @ U.T)) @ D.T


def _swiglu_build(d: int, hidden: int, gate, up, down) -> Build:
    """SwiGLU(d, hidden) with these weights, its three bias-free layers checked first."""
    weights = (torch.as_tensor(w, dtype=torch.float64) for w in (gate, up, down))
    tensors = dict(zip(("w_gate.weight", "w_up.weight", "w_down.weight"), weights))
    return Build(f"SwiGLU(d_model={d}, d_hidden={hidden})", (d, hidden), tensors,
                 partial(_expect_swiglu_layers, d=d, hidden=hidden))  # fmt: skip


def _swiglu_case(case_id: str, call: str, x, build: Build, expect, **more) -> Case:
    return Case(case_id, call, (x,), expect, build=build, depth=3, before=_tensor_first,
                crash_hints=tuple(_CRASH_HINTS), **more)  # fmt: skip


_WEIGHTS = (f64(10, 6, seed=111, scale=0.8), f64(10, 6, seed=112), f64(6, 10, seed=113))
SWIGLU_CASES = (
    _swiglu_case("worked", "the worked SwiGLU(2, 3) on x = [[1, 0.5], [0.5, -0.25]]",
                 torch.tensor(WORKED_X),
                 _swiglu_build(2, 3, WORKED_W_GATE, WORKED_W_UP, WORKED_W_DOWN),
                 torch.tensor(WORKED_Y, dtype=_f64_), shape_hint=HINT_SWIGLU_SHAPE),
    *token_wise_cases("SwiGLU(6, 10)", _swiglu_build(6, 10, *_WEIGHTS),
                      f64(2, 5, 6, seed=114).float(), partial(_swiglu, *_WEIGHTS),
                      (HINT_SWIGLU_BATCH_SHAPE, HINT_SWIGLU_PER_TOKEN, HINT_SWIGLU_PER_TOKEN),
                      before=_tensor_first, crash_hints=tuple(_CRASH_HINTS)),
)  # fmt: skip


def _swiglu_trial(rng: np.random.Generator, seed: int) -> Case:
    d, hidden, B, L = sizes(rng, 4, high=9)
    weights = (normal(rng, hidden, d), normal(rng, hidden, d), normal(rng, d, hidden))
    x = torch.from_numpy(2.0 * normal(rng, B, L, d)).float()
    call = f"SwiGLU({d}, {hidden}) with random weights on x {(B, L, d)} (seed {seed})"
    return _swiglu_case("trial", call, x, _swiglu_build(d, hidden, *weights), None)


@one_thread
def check_swiglu(SwiGLU, reference=None, trials: int = 4) -> None:
    """SwiGLU as a module, its three bias-free layers checked by name each time it is built:
    the worked example, random weights on a batch, the tokens reordered, an input check (table
    `SWIGLU_CASES`), then random sizes against the reference."""
    run_table(CheckRun(SwiGLU), "SwiGLU", SWIGLU_CASES, KNOWN, reference, trials, _swiglu_trial)


# ---------------------------------------------------------------------------------------
# grouped_query_attention
# ---------------------------------------------------------------------------------------
HINT_GQA_NAN = (
    "a query with no allowed key has only -inf scores and torch.softmax returns "
    "NaN for it: give such rows zero weights (torch.nan_to_num)"
)
HINT_REPEAT = (
    "k and v have h_kv heads and q has h: repeat each key/value head "
    "h // h_kv times along dim=1 with repeat_interleave before the product"
)


def _gqa_truth(q, k, v, allowed):
    """PyTorch's fused attention with its own grouping; empty rows are zeros."""
    y = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, enable_gqa=True)
    return torch.nan_to_num(y, nan=0.0)


HINT_GQA_SHAPE = "the output has one row per query head: (B, h, L_q, d_k)"


def _qkv(
    B, h, h_kv, L_q, L_k, d_k, seed, dtype=torch.float64, scale=1.0
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(B, h, L_q, d_k, generator=g, dtype=dtype) * scale
    k = torch.randn(B, h_kv, L_k, d_k, generator=g, dtype=dtype) * scale
    v = torch.randn(B, h_kv, L_k, d_k, generator=g, dtype=dtype)
    return q, k, v


def _bottom_right(L_q: int, L_k: int) -> torch.Tensor:
    return torch.arange(L_k)[None, :] <= torch.arange(L_k - L_q, L_k)[:, None]  # (L_q, L_k)


HINT_GQA_OWN = (
    "write the grouping, the scores, the mask, the softmax and the weighted sum "
    "yourself; the check compares with PyTorch's kernel for you"
)
HINT_GQA_IN_PLACE = (
    "work on new tensors (k = k.repeat_interleave(...), not writing into k): the "
    "caller's q, k, v and allowed must stay as they were"
)


# detectors raised from the code itself, not from an output (see scripts/release.py)
PROPERTY_DETECTORS = ("HINT_RMS_OWN", "HINT_GQA_OWN")
_GQA = "grouped_query_attention"
_GQA_CRASH = (
    (("must match the size", "The size of tensor"), HINT_REPEAT),
    ("'NoneType'", nb05.HINT_ALLOWED_NONE),
)


def _gqa_case(case_id: str, call: str, q, k, v, allowed, hint=None, then=None) -> Case:
    return Case(case_id, call, (q, k, v, allowed), expect=_gqa_truth(q, k, v, allowed),
                hint=hint, shape_hint=HINT_GQA_SHAPE, finite=hint or HINT_GQA_NAN,
                crash_hints=_GQA_CRASH, before=_tensor_first, then=then)  # fmt: skip


def _empty_query_is_zero(run: CheckRun, case: Case, seen) -> None:
    """Query 0 of the cached case is allowed no key: its output rows are zeros."""
    call = "the output row of the query with no allowed key"
    rows = as_array(seen)[0, :, 0]
    run.expect_close(
        call, rows, np.zeros((4, 3)), tol=probe_tolerance(rows), hint=nb05.HINT_EMPTY_ROW
    )


_wq = torch.tensor([[[[1.0, 0.0], [0.0, 1.0]], [[0.0, 2.0], [2.0, 0.0]]]], dtype=_f64_)
_wk = torch.tensor([[[[1.0, 0.0], [0.0, 1.0]]]], dtype=_f64_)  # (1, 1, 2, 2): one kv head
_wv = torch.tensor([[[[1.0, 2.0], [3.0, 4.0]]]], dtype=_f64_)
_tril2, _tril4, _tril5 = (torch.ones(n, n, dtype=torch.bool).tril() for n in (2, 4, 5))
_q121 = _qkv(2, 4, 2, 5, 5, 3, seed=121)
_cached = _bottom_right(2, 5).clone()
_cached[0] = False
_real = torch.tensor([[True] * 5, [True, True, True, False, False]])
GQA_CASES = (
    _gqa_case("worked", f"{_GQA}(q, k, v, causal) with 2 query heads sharing 1 key/value head, "
              "L = 2, d_k = 2, v = [[1, 2], [3, 4]]", _wq, _wk, _wv, _tril2),
    _gqa_case("no mask", f"{_GQA} with q (2, 4, 5, 3) and k, v (2, 2, 5, 3), float64, no mask",
              *_q121, None),
    _gqa_case("causal", "the same with a causal (5, 5) mask", *_q121, _tril5),
    _gqa_case("h = h_kv", f"{_GQA} with h = h_kv = 3 (plain multi-head attention)",
              *_qkv(1, 3, 3, 4, 4, 2, seed=122), _tril4),
    _gqa_case("h_kv = 1", f"{_GQA} with h_kv = 1 (multi-query attention)",
              *_qkv(2, 4, 1, 4, 4, 4, seed=123), None),
    _gqa_case("float32 padded", f"{_GQA} in float32, h = 6, h_kv = 2, with a (2, 1, 5, 5) "
              "causal + padding mask", *_qkv(2, 6, 2, 5, 5, 4, seed=124, dtype=torch.float32),
              _tril5 & _real[:, None, None, :]),
    _gqa_case("cached", f"{_GQA} with 2 queries after 3 cached keys (L_q = 2, L_k = 5), query 0 "
              "allowed no key", *_qkv(1, 4, 2, 2, 5, 3, seed=125), _cached,
              then=_empty_query_is_zero),
    _gqa_case("d_k = 6", f"{_GQA} with q (1, 4, 3, 6), k, v (1, 2, 7, 6), no mask",
              *_qkv(1, 4, 2, 3, 7, 6, seed=128), None),
    _gqa_case("large", f"{_GQA} with large scores (q, k of size ~30 per feature) and a causal "
              "mask", *_qkv(1, 2, 1, 4, 4, 3, seed=126, scale=30.0), _tril4,
              hint=nb05.HINT_OVERFLOW_LARGE),
    Case("heads do not divide", f"{_GQA} with q (1, 3, 2, 4) and k, v (1, 2, 2, 4)",
         (*_qkv(1, 3, 2, 2, 2, 4, seed=127), None), raises=ValueError,
         mentions=("(1, 3, 2, 4)", "(1, 2, 2, 4)")),
)  # fmt: skip


def _gqa_trial(rng: np.random.Generator, seed: int) -> Case:
    """Random sizes and groups, a cache (L_k >= L_q), float32 or float64 by the seed's parity,
    and no mask, the bottom-right causal one or a random one; the value is the reference's."""
    B, h_kv, group, L_q, d_k = sizes(rng, 5, high=4)
    L_k = L_q + int(rng.integers(0, 4))
    dtype = torch.float64 if seed % 2 else torch.float32
    q, k, v = _qkv(B, h_kv * group, h_kv, L_q, L_k, d_k, seed=int(rng.integers(2**31)),
                   dtype=dtype)  # fmt: skip
    kind = seed % 4
    allowed = (None if kind == 0 else _bottom_right(L_q, L_k) if kind == 1
               else torch.from_numpy(rng.random((B, 1, L_q, L_k)) < 0.6))  # fmt: skip
    call = (f"{_GQA} on random q {tuple(q.shape)}, k, v {tuple(k.shape)}, {dtype}, "
            f"{'no mask' if allowed is None else 'a mask'} (seed {seed})")  # fmt: skip
    return _gqa_case("trial", call, q, k, v, allowed)


@one_thread
def check_grouped_query_attention(
    grouped_query_attention, reference=None, trials: int = 12
) -> None:
    """Attention with h query heads over h_kv key/value heads: the table `GQA_CASES` (a
    worked example, masks, h = h_kv, h_kv = 1, float32, a cache with an empty row, large
    scores, an input check), then random trials against the reference."""
    run = CheckRun(grouped_query_attention)
    banned = nb05.FUSED_ATTENTION | {"enable_gqa"}
    forbid(run, banned, "PyTorch's own fused attention ({used})", HINT_GQA_OWN)
    run.in_place_hint = HINT_GQA_IN_PLACE
    run_table(run, _GQA, GQA_CASES, KNOWN, reference, trials, _gqa_trial)


# ---------------------------------------------------------------------------------------
# kv_cache_bytes
# ---------------------------------------------------------------------------------------


HINT_KV_NUMBER = "return the number of bytes, not a tensor or a list"
_EXACT = Tolerance(rtol=0.0, atol=0.5)  # a count of bytes


def _one_number(run: CheckRun, case: Case, seen) -> None:
    run.expect_true(
        np.ndim(seen) == 0, f"{case.call} returned {seen!r}; expected one number.",
        hint=HINT_KV_NUMBER,
    )  # fmt: skip


def _kv_case(case_id: str, call: str, args: tuple, expect) -> Case:
    return Case(case_id, call, args, expect=expect, shape=(), tolerance=_EXACT,
                before=_one_number, what="number of bytes")  # fmt: skip


def _measured_cache(n_layers, n_kv_heads, d_k, length, bytes_per_value=4) -> int:
    """Bytes of the (k, v) tensors that the package's blocks return for one sequence (float32,
    so `bytes_per_value` must be 4)."""
    config = Qwen3LMConfig(
        vocab_size=5,
        d_model=8,
        n_layers=n_layers,
        n_heads=n_kv_heads,
        n_kv_heads=n_kv_heads,
        d_k=d_k,
        d_hidden=8,
        max_len=length,
    )
    model = Qwen3LM(config).eval()
    h = torch.zeros(1, length, 8)
    rope = (model.rope_cos, model.rope_sin)
    total = 0
    with torch.no_grad():
        for block in model.blocks:
            out, (k, v) = block(h, rope)
            total += k.numel() * k.element_size() + v.numel() * v.element_size()
            h = out
    return total


KV_CASES = (
    _kv_case("qwen3-0.6b", "kv_cache_bytes(28, 8, 128, 32768, 2) (Qwen3-0.6B: 28 layers, 8 "
             "key/value heads of width 128, 32,768 tokens in bfloat16)", (28, 8, 128, 32768, 2),
             3_758_096_384),
    _kv_case("float64", "kv_cache_bytes(2, 2, 8, 10, 8) (two layers, float64: 8 bytes a value)",
             (2, 2, 8, 10, 8), 2 * 2 * 2 * 8 * 10 * 8),
    _kv_case("empty", "kv_cache_bytes(3, 1, 4, 0, 4) (nothing cached yet)", (3, 1, 4, 0, 4), 0),
    _kv_case("measured", "kv_cache_bytes(2, 2, 4, 12, 4) against the bytes measured on the "
             "package's Qwen3LM blocks (float32 keys and values of 12 tokens)", (2, 2, 4, 12, 4),
             _measured_cache),
    Case("no layers", "kv_cache_bytes(0, 8, 128, 10, 2) (no layers)", (0, 8, 128, 10, 2),
         raises=ValueError, mentions=("n_layers",)),
)  # fmt: skip


def _kv_trial(rng: np.random.Generator, seed: int) -> Case:
    args = (
        int(rng.integers(1, 80)),
        int(rng.integers(1, 33)),
        int(rng.choice([32, 64, 96, 128, 256])),
        int(rng.integers(0, 200_000)),
        int(rng.choice([1, 2, 4])),
    )
    return _kv_case("trial", f"kv_cache_bytes{args} (seed {seed})", args, None)


@one_thread
def check_kv_cache_bytes(kv_cache_bytes, reference=None, trials: int = 12) -> None:
    """The cache's bytes, exactly: Qwen3-0.6B at 32k tokens, float64, an empty cache, the
    bytes measured on the package's blocks, an input check (table `KV_CASES`), then random
    sizes against the reference."""
    run_table(
        CheckRun(kv_cache_bytes), "kv_cache_bytes", KV_CASES, KNOWN, reference, trials, _kv_trial
    )


# ---------------------------------------------------------------------------------------
# Shared by the module checks: random weights, configs
# ---------------------------------------------------------------------------------------
_randomise = partial(randomise, embed_scale=0.5)  # norm weights too: a missing one shows


# ---------------------------------------------------------------------------------------
# Qwen3Block
# ---------------------------------------------------------------------------------------
HINT_QK_NORM_MISSING = (
    "create q_norm and k_norm as RMSNorms over one head's d_k features, with "
    "the block's eps: one gamma of d_k numbers each"
)
HINT_NORM1_MISSING = "norm1 is an RMSNorm over the d_model features, with the block's eps"
HINT_NORM2_MISSING = "norm2 is an RMSNorm over the d_model features, with the block's eps"
HINT_MLP_MISSING = "the MLP is your SwiGLU class, from d_model through d_hidden and back"
HINT_PROJECTIONS = (
    "W_Q = nn.Linear(d_model, n_heads * d_k, bias=False); W_K and W_V map d_model "
    "to n_kv_heads * d_k; W_O maps n_heads * d_k back to d_model; no biases"
)


BLOCK_HINTS = [
    ("q_norm", "QK-norm missing", HINT_QK_NORM_MISSING),
    ("k_norm", "QK-norm missing", HINT_QK_NORM_MISSING),
    ("norm1", "norm1 missing or not an RMSNorm", HINT_NORM1_MISSING),
    ("norm2", "norm2 missing or not an RMSNorm", HINT_NORM2_MISSING),
    ("mlp", "the MLP missing or not SwiGLU", HINT_MLP_MISSING),
    ("W_", "attention projections wrong", HINT_PROJECTIONS),
]


HINT_BLOCK_PAIR = (
    "return a pair: the block's output, and the keys and values the attention used (for the cache)"
)
HINT_CACHE_SHAPE = (
    "return the keys and values over ALL T + L tokens, (B, n_kv_heads, T + L, "
    "d_k): the concatenation, past first"
)
HINT_BLOCK_IN_PLACE = "write u = h + ..., not h += ...: the caller's h must stay as it was"
HINT_BLOCK_EPS = (
    "pass the eps argument on to every RMSNorm: nn.RMSNorm(d_model, eps=eps) and "
    "nn.RMSNorm(d_k, eps=eps)"
)


_BLOCK = "Qwen3Block"


def _package_block(d, h, h_kv, d_k, hidden, eps) -> ModernBlock:
    """The package's block of these sizes (a one-layer config)."""
    config = Qwen3LMConfig(vocab_size=1, d_model=d, n_layers=1, n_heads=h, n_kv_heads=h_kv,
                           d_k=d_k, d_hidden=hidden, eps=eps)  # fmt: skip
    return ModernBlock(config)


def _block_like(sizes: tuple, eps: float, seed: int | None = None) -> ModernBlock:
    """The package's block (the reference's parameter names and shapes), with random weights
    from `seed` if given (`package_model`)."""
    return cast(ModernBlock, package_model(_package_block, (*sizes, eps), seed, _randomise))


def _inspect_qwen3_block(run: CheckRun, call: str, view, *, sizes: tuple) -> None:
    """Its own modules (not the package's), and the reference's parameter names and shapes."""
    _expect_own_modules(run, call, view)
    _expect_parameters(run, call, view, _block_like(sizes, 1e-6), BLOCK_HINTS)


def _block_pair(result) -> tuple:
    """A block's (h_out, (k, v)) as (h_out, k, v)."""
    if not (isinstance(result, tuple | list) and len(result) == 2):
        raise ValueError("expected a pair (h_out, (k, v))")
    out, cache = result
    if not (isinstance(cache, tuple | list) and len(cache) == 2):
        raise ValueError("expected a pair (h_out, (k, v)) whose second part is (k, v)")
    return out, cache[0], cache[1]


_BLOCK_RETURNS = Returns(
    (
        Part("h_out", 0, shape_hint=nb06.HINT_BLOCK_SHAPE),
        Part("the returned keys", 1, what="keys", shape_hint=HINT_CACHE_SHAPE),
        Part("the returned values", 2, shape_hint=HINT_CACHE_SHAPE),
    ),
    hint=HINT_BLOCK_PAIR,
)


def _block_build(sizes: tuple, eps: float, seed: int) -> Build:
    """Qwen3Block(*sizes, eps=eps) with the random weights of `_block_like(..., seed)`."""
    tensors = weights_of(_block_like(sizes, eps, seed))
    return Build(f"Qwen3Block({', '.join(map(str, sizes))}, eps={eps:g})", sizes, tensors,
                 partial(_inspect_qwen3_block, sizes=sizes), kwargs={"eps": eps})  # fmt: skip


def _block_case(case_id: str, call: str, sizes: tuple, eps: float, seed: int, h, rope,
                past_tokens=None, past_rope=None, **more) -> Case:  # fmt: skip
    """Qwen3Block(*sizes, eps=eps) with random weights from `seed` on h with the RoPE tables
    `rope`, after the cache of `past_tokens` (rotated by `past_rope`) if given; the package's
    block with the same weights gives the expected (h_out, k, v)."""
    block = _block_like(sizes, eps, seed)
    with torch.no_grad():
        past = None if past_tokens is None else block(past_tokens, past_rope)[1]
        args = (h, rope) if past is None else (h, rope, past)
        expected = _block_pair(block(*args))
    build = _block_build(sizes, eps, seed)
    return Case(case_id, f"{build.call} {call}", args, expected, build=build,
                returns=_BLOCK_RETURNS, whole=True, unpack=(_block_pair, HINT_BLOCK_PAIR),
                crash_hints=tuple(_CRASH_HINTS), depth=BLOCK_DEPTH, **more)  # fmt: skip


_SIZES = (12, 4, 2, 4, 20)  # d, h, h_kv, d_k, d_hidden: h * d_k = 16 != d = 12
_HB = f64(2, 5, 12, seed=132, scale=2.0, shift=0.5).float()
_COS, _SIN = rope_tables(5, 4, base=100.0)  # (5, 2) each
QWEN3_BLOCK_CASES = (
    _block_case("no cache", "with random weights on h (2, 5, 12), rope for positions 0..4, "
                "no cache", _SIZES, 1e-6, 131, _HB, (_COS, _SIN)),
    _block_case("cached", "on tokens 3..4 of h with past = the keys and values of tokens "
                "0..2 (T = 3) and rope for positions 3..4", _SIZES, 1e-6, 131, _HB[:, 3:],
                (_COS[3:], _SIN[3:]), _HB[:, :3], (_COS[:3], _SIN[:3])),
    _block_case("one new token", "on one new token at position 4 with 4 cached tokens",
                _SIZES, 1e-6, 131, _HB[:1, 4:], (_COS[4:], _SIN[4:]), _HB[:1, :4],
                (_COS[:4], _SIN[:4])),
    _block_case("eps", "on h * 0.1 (features near the norms' eps)", _SIZES, 0.05, 133,
                _HB * 0.1, (_COS, _SIN), hint=HINT_BLOCK_EPS),
    Case("no batch", "Qwen3Block(12, 4, 2, 4, 20) on h of shape (5, 12) (no batch axis)",
         (_HB[0], (_COS, _SIN)), build=_block_build(_SIZES, 0.05, 133), raises=ValueError,
         mentions=("h", "(5, 12)")),
)  # fmt: skip


def _qwen3_block_trial(rng: np.random.Generator, seed: int) -> Case:
    """Random sizes and weights, L new tokens after T cached ones (T may be 0)."""
    h_kv, group = int(rng.integers(1, 3)), int(rng.integers(1, 4))
    d, d_k, hidden = int(rng.integers(2, 10)), 2 * int(rng.integers(1, 4)), int(rng.integers(2, 12))
    B, L, T = int(rng.integers(1, 3)), int(rng.integers(1, 5)), int(rng.integers(0, 4))
    x = torch.from_numpy(normal(rng, B, T + L, d).astype(np.float32))
    cos, sin = rope_tables(T + L, d_k, base=1e4)
    past = (x[:, :T], (cos[:T], sin[:T])) if T else (None, None)
    call = f"with random weights on {L} new tokens after {T} cached, batch {B} (seed {seed})"
    return _block_case("trial", call, (d, h_kv * group, h_kv, d_k, hidden), 1e-6,
                       int(rng.integers(2**31)), x[:, T:], (cos[T:], sin[T:]), *past)  # fmt: skip


@one_thread
def check_qwen3_block(Qwen3Block, reference=None, trials: int = 3) -> None:
    """The block built each time with its own modules and the reference's parameter names
    and shapes, its weights set at random: no cache, three cached tokens, one new token after
    four, the norms' eps, an input check (table `QWEN3_BLOCK_CASES`: the output and the
    returned keys and values), then random sizes and caches against the reference."""
    run = CheckRun(Qwen3Block)
    run.in_place_hint = HINT_BLOCK_IN_PLACE
    run_table(run, _BLOCK, QWEN3_BLOCK_CASES, KNOWN, reference, trials, _qwen3_block_trial)


# ---------------------------------------------------------------------------------------
# Qwen3Decoder
# ---------------------------------------------------------------------------------------
HINT_HEAD_BIAS = "no bias in the head: nn.Linear(d_model, vocab_size, bias=False)"
HINT_FINAL_NORM_LAYERNORM = (
    "the final norm is an RMSNorm over d_model features: it has a gamma and no bias"
)
HINT_HEAD_UNTIED = (
    "with tie_weights true the head's weight IS the embedding: self.head.weight = self.embed.weight"
)
HINT_HEAD_OWN = (
    "the head is a bias-free linear map from d_model to vocab_size, with its own "
    "weight when tie_weights is false"
)
HINT_FINAL_NORM_MISSING = "create the final norm: an RMSNorm over d_model features, with eps"
HINT_BLOCKS_LIST = (
    "self.blocks = nn.ModuleList(Qwen3Block(...) for _ in range(n_layers)): a list "
    "like [block] * n_layers repeats ONE block"
)
HINT_EMBEDDING_MISSING = "create the token embedding: one row of d_model numbers per vocabulary id"


def _decoder_hints(tied: bool) -> list[tuple[str, str, str]]:
    return [
        ("head.bias", "the head with a bias", HINT_HEAD_BIAS),
        ("norm.bias", "a LayerNorm as the final norm", HINT_FINAL_NORM_LAYERNORM),
        (
            "head",
            "the head not tied to the embedding" if tied else "the head tied or missing",
            HINT_HEAD_UNTIED if tied else HINT_HEAD_OWN,
        ),
        ("norm.", "the final RMSNorm missing", HINT_FINAL_NORM_MISSING),
        ("blocks.", "not n_layers distinct blocks", HINT_BLOCKS_LIST),
        ("embed", "token embedding missing", HINT_EMBEDDING_MISSING),
    ]


HINT_TIED = "self.head.weight = self.embed.weight when tie_weights is true, and only then"


def _expect_tied(run: CheckRun, call: str, view, tied: bool) -> None:
    tokens = {name: token for name, _, _, token, _ in view.info()["params"]}
    same = tokens.get("head.weight") is not None and tokens.get("head.weight") == tokens.get(
        "embed.weight"
    )
    run.expect_true(
        same == tied,
        f"{call}: head.weight is {'not ' if not same else ''}the "
        f"embedding's weight; expected {'the same' if tied else 'its own'} "
        "parameter.",
        hint=HINT_TIED,
    )


HINT_UNPACK_BLOCK = (
    "a Qwen3Block returns (h_out, (k, v)): unpack the pair in the loop and keep h_out"
)


def _tiny():
    """The tiny checkpoint: its config, its state dict (our names) and transformers' logits."""
    folder = tiny_checkpoint()
    config, state = load_hf_checkpoint(folder)
    from safetensors.torch import load_file

    expected = load_file(str(folder / "expected.safetensors"))
    return config, state, expected["input_ids"], expected["logits"]


HINT_ATTRIBUTE_NAMES = "use the attribute names of the exercise"
HINT_DECODER_EPS = (
    "this config has eps = 0.05: every RMSNorm (the blocks' and the final one) "
    "must get the eps argument"
)


def _inspect_qwen3_decoder(run: CheckRun, call: str, view, *, config: Qwen3LMConfig) -> None:
    """Its own modules, the reference's parameter names and shapes (n_layers distinct blocks
    among them) and nothing more in its state_dict (so a checkpoint loads), the head tied
    exactly when asked."""
    _expect_own_modules(run, call, view)
    like = _decoder_like(config)
    _expect_parameters(run, call, view, like, _decoder_hints(config.tie_weights))
    keys = set(like.state_dict())
    saved = [name for name, _, _, kept in view.info()["buffers"] if kept and name not in keys]
    run.expect_true(
        not saved,
        f"{call} saves the buffers {saved[:3]} in its state_dict; the checkpoint has none.",
        hint=HINT_ATTRIBUTE_NAMES,
    )
    _expect_tied(run, call, view, config.tie_weights)


def _package_decoder(*items) -> Qwen3LM:
    return Qwen3LM(Qwen3LMConfig(**dict(items)))


def _decoder_like(config: Qwen3LMConfig, seed: int | None = None) -> Qwen3LM:
    """The package's decoder, with random weights from `seed` if given (`package_model`)."""
    model = package_model(_package_decoder, tuple(asdict(config).items()), seed, _randomise)
    return cast(Qwen3LM, model)


def _decoder_build(config: Qwen3LMConfig, tensors: dict) -> Build:
    """Qwen3Decoder(**config) with `tensors` set by name (its parameters only)."""
    names = dict(_decoder_like(config).named_parameters(remove_duplicate=False))
    kwargs = asdict(config)
    return Build(f"Qwen3Decoder(**{kwargs})", (), {k: v for k, v in tensors.items() if k in names},
                 partial(_inspect_qwen3_decoder, config=config), kwargs=kwargs)  # fmt: skip


_DECODER_CRASH = (
    (("'tuple' object has no attribute", "got tuple"), HINT_UNPACK_BLOCK),
    *_CRASH_HINTS,
)


def _decoder_case(case_id: str, config: Qwen3LMConfig, seed: int, idx, **more) -> Case:
    """The decoder with random weights from `seed` on the ids `idx`, expecting the package's
    logits with the same weights."""
    model = _decoder_like(config, seed)
    build = _decoder_build(config, weights_of(model))
    with torch.no_grad():
        expected = model(idx)
    return Case(case_id, f"{build.call} with random weights on ids of shape {tuple(idx.shape)}",
                (idx,), expected, build=build, before=_tensor_first, what="logits",
                shape_hint=nb06.HINT_LOGITS_SHAPE, crash_hints=_DECODER_CRASH,
                depth=BLOCK_DEPTH * config.n_layers + 2, **more)  # fmt: skip


_DECODER = "Qwen3Decoder"


_SMALL = Qwen3LMConfig(vocab_size=13, d_model=12, n_layers=2, n_heads=4, n_kv_heads=1, d_k=4,
                       d_hidden=16, max_len=10, rope_base=100.0, eps=0.05)  # fmt: skip
QWEN3_DECODER_CASES = (
    *(
        _decoder_case(f"{'tied ' * tied}{B}x{L}", replace(_SMALL, tie_weights=tied), 141,
                      _random_ids(B, L, 13, 142 + L), hint=HINT_DECODER_EPS)
        for tied, B, L in ((True, 2, 6), (False, 2, 10), (False, 1, 3))
    ),
    Case("too long", f"Qwen3Decoder(**{asdict(_SMALL)}) on ids of shape (2, 11), longer than "
         "max_len = 10", (torch.zeros(2, 11, dtype=torch.long),),
         build=_decoder_build(_SMALL, weights_of(_decoder_like(_SMALL, 141))),
         raises=ValueError, mentions=("idx", "(2, 11)")),
)  # fmt: skip


def _tiny_case() -> Case:
    """The tiny checkpoint of assets/qwen3_tiny on its ids, against the logits transformers'
    Qwen3ForCausalLM gave (float32, on another machine: `hf_tolerance`)."""
    config, state, ids, hf_logits = _tiny()
    build = _decoder_build(config, state)
    tol = hf_tolerance(config.n_layers, hf_logits)
    call = (f"{build.call} with the tiny checkpoint of assets/qwen3_tiny on ids "
            f"{tuple(ids.shape)}, against transformers' Qwen3ForCausalLM (float32, to within "
            f"{tol.atol:.1e})")  # fmt: skip
    return Case("tiny", call, (ids,), hf_logits, build=build, before=_tensor_first,
                what="logits", shape_hint=nb06.HINT_LOGITS_SHAPE, crash_hints=_DECODER_CRASH,
                tolerance=tol)  # fmt: skip


def _qwen3_decoder_trial(rng: np.random.Generator, seed: int) -> Case:
    """Random sizes, weights, RoPE base, eps and tying, on ids as long as max_len."""
    h_kv, group = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    config = Qwen3LMConfig(
        vocab_size=int(rng.integers(2, 20)), d_model=int(rng.integers(2, 10)),
        n_layers=int(rng.integers(1, 4)), n_heads=h_kv * group, n_kv_heads=h_kv,
        d_k=2 * int(rng.integers(1, 4)), d_hidden=int(rng.integers(2, 12)),
        max_len=int(rng.integers(3, 12)), rope_base=float(rng.choice([1e2, 1e4, 1e6])),
        eps=float(rng.choice([1e-6, 1e-3])), tie_weights=bool(rng.integers(2)),
    )  # fmt: skip
    idx = torch.from_numpy(rng.integers(0, config.vocab_size, size=(2, config.max_len)))
    case = _decoder_case("trial", config, int(rng.integers(2**31)), idx)
    return replace(case, call=f"{case.call} (seed {seed})")


@one_thread
def check_qwen3_decoder(Qwen3Decoder, reference=None, trials: int = 2) -> None:
    """The decoder built each time with its own modules, the reference's parameter and state
    names, the head tied exactly when asked and n_layers distinct blocks: random weights, tied
    and untied, on three id shapes and an input check (table `QWEN3_DECODER_CASES`), the tiny
    checkpoint against transformers' logits, then random configurations against the
    reference."""
    run = CheckRun(Qwen3Decoder)
    run_cases(run, _DECODER, QWEN3_DECODER_CASES, KNOWN)
    run_case(run, _tiny_case())
    run_trials(run, _DECODER, reference, trials, _qwen3_decoder_trial, KNOWN)
    run.done()


# ---------------------------------------------------------------------------------------
# decode_step
# ---------------------------------------------------------------------------------------
HINT_DECODE_CACHE_LIST = (
    "collect what every block returns: h, kv = block(...); new_cache.append(kv)"
)
HINT_DECODE_NO_CACHE = (
    "cache is None before the prefill: take T = 0 then, and give the blocks past=None"
)
HINT_DECODE_PAIR = "return the logits (the final norm, then the head) and the new cache, as a pair"
HINT_DECODE_LAST_ONLY = "return the logits of every new token, (B, L_new, V), not only the last one"
HINT_DECODE_CACHE_LENGTH = (
    "after this step the cache covers {T} + {L_new} tokens, (B, h_kv, T + L_new, d_k): return the "
    "new list of the (k, v) pairs the blocks returned"
)


_DECODE = "decode_step"


def _package_step(model: Qwen3LM, ids, cache):
    """The right decode step, on the package's model: (logits, the new cache)."""
    T = 0 if cache is None else cache[0][0].shape[2]
    L = ids.shape[1]
    rope = (model.rope_cos[T : T + L], model.rope_sin[T : T + L])
    with torch.no_grad():
        h, new = model.embed(ids), []
        for i, block in enumerate(model.blocks):
            h, kv = block(h, rope, None if cache is None else cache[i])
            new.append(kv)
        return model.head(model.norm(h)), new


def _stacked(cache) -> torch.Tensor:
    return torch.stack(
        [torch.cat([torch.as_tensor(k), torch.as_tensor(v)], dim=-1) for k, v in cache]
    )  # (n_layers, B, h_kv, T, 2 d_k)


def _decode_unpack(result) -> tuple:
    """decode_step's (logits, cache) as (logits, the cache stacked, (n_layers, B, h_kv, T,
    2 d_k)); another form raises ValueError (what was expected, its hint)."""
    if not (isinstance(result, tuple | list) and len(result) == 2):
        raise ValueError("expected (logits, cache).", HINT_DECODE_PAIR)
    logits, cache = result
    if not (
        isinstance(cache, tuple | list)
        and cache
        and all(isinstance(pair, tuple | list) and len(pair) == 2 for pair in cache)
    ):
        raise ValueError("expected (logits, cache) with the cache a list of (k, v) pairs, one "
                         "per block.", HINT_DECODE_CACHE_LIST)  # fmt: skip
    return logits, _stacked(cache)


def _decode_case(case_id: str, model: Qwen3LM, ids, done: int, size: int, **more) -> Case:
    """decode_step on tokens done .. done + size - 1 of `ids`, with the package's cache of the
    `done` tokens before them (None when done is 0)."""
    cache = None if done == 0 else _package_step(model, ids[:, :done], None)[1]
    step = ids[:, done : done + size]
    logits, new = _package_step(model, step, cache)
    what = "cache=None (the prefill)" if cache is None else f"the cache of {done} tokens"
    B, V = ids.shape[0], model.config.vocab_size
    return Case(
        case_id, f"decode_step(model, ids of shape {tuple(step.shape)}, {what})",
        (model, step, cache), (logits, _stacked(new)), unpack=(_decode_unpack, HINT_DECODE_PAIR),
        returns=Returns((
            Part("the logits", 0, what="logits", shape_hint=HINT_DECODE_LAST_ONLY),
            Part("the returned cache", 1, what="keys and values",
                 shape_hint=HINT_DECODE_CACHE_LENGTH.format(T=done, L_new=size)),
        ), hint=HINT_DECODE_PAIR), whole=True,
        shape=((B, size, V), tuple(_stacked(new).shape)),
        crash_hints=(("'NoneType' object is not subscriptable", HINT_DECODE_NO_CACHE),
                     *_CRASH_HINTS),
        depth=BLOCK_DEPTH * model.config.n_layers + 2, **more,
    )  # fmt: skip


_STEP_CONFIG = Qwen3LMConfig(vocab_size=17, d_model=16, n_layers=3, n_heads=4, n_kv_heads=2,
                             d_k=4, d_hidden=24, max_len=16, rope_base=100.0)  # fmt: skip
_STEP_MODEL = _decoder_like(_STEP_CONFIG, 151)
_STEP_IDS = _random_ids(2, 12, 17, 152)
DECODE_CASES = (
    *(
        _decode_case(f"{done}+{size}", _STEP_MODEL, _STEP_IDS, done, size)
        for done, size in ((0, 5), (5, 1), (6, 1), (7, 3), (10, 1))
    ),
    *(
        _decode_case(f"one row {done}+1", _STEP_MODEL, _STEP_IDS[:1], done, 1)
        for done in (0, 1, 2)
    ),
    Case("short cache", "decode_step with a cache of 1 entry for a model of 3 blocks",
         (_STEP_MODEL, _STEP_IDS[:, :1], [(torch.zeros(2, 2, 3, 4), torch.zeros(2, 2, 3, 4))]),
         raises=ValueError, mentions=("cache",)),
)  # fmt: skip


def _decode_trial(rng: np.random.Generator, seed: int) -> list[Case]:
    """A random configuration and ids: the prefill, then a step of 1 to 3 tokens after it."""
    h_kv, group = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    config = Qwen3LMConfig(
        vocab_size=int(rng.integers(3, 20)), d_model=int(rng.integers(2, 12)),
        n_layers=int(rng.integers(1, 4)), n_heads=h_kv * group, n_kv_heads=h_kv,
        d_k=2 * int(rng.integers(1, 4)), d_hidden=int(rng.integers(2, 12)), max_len=12,
        rope_base=float(rng.choice([1e2, 1e4])),
    )  # fmt: skip
    model = _decoder_like(config, int(rng.integers(2**31)))
    ids = torch.from_numpy(rng.integers(0, config.vocab_size, size=(int(rng.integers(1, 3)), 12)))
    prefill, size = int(rng.integers(1, 6)), int(rng.integers(1, 4))
    cases = []
    for done, n in ((0, prefill), (prefill, size)):
        case = _decode_case("trial", model, ids, done, n)
        cases.append(replace(case, call=f"{case.call} (seed {seed})"))
    return cases


HINT_DECODE_IN_PLACE = (
    "build a new list for the cache (new_cache.append(kv)) and return it: the caller's cache must "
    "stay as it was (a second sample or a beam search starts from it again)"
)


@one_thread
def check_decode_step(decode_step, reference=None, trials: int = 3) -> None:
    """One cached step of the decoder: the prefill and steps of one and three tokens after
    caches of 5 to 10 tokens (the package's), on two rows and one, and an input check (table
    `DECODE_CASES`: the logits and the returned cache, named as a whole, so a cache fed back
    gives what the full forward pass gives); then random configurations against the
    reference."""
    run = CheckRun(decode_step)
    run.in_place_hint = HINT_DECODE_IN_PLACE
    run_table(run, _DECODE, DECODE_CASES, KNOWN, reference, trials, _decode_trial)


# the functions of notebook 10 checked as tables
CASES = {
    "rms_norm": RMS_CASES,
    "SwiGLU": SWIGLU_CASES,
    _GQA: GQA_CASES,
    "kv_cache_bytes": KV_CASES,
    _BLOCK: QWEN3_BLOCK_CASES,
    _DECODER: QWEN3_DECODER_CASES,
    _DECODE: DECODE_CASES,
}
