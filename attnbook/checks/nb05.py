"""Checks for notebook 05, multi-head attention (PyTorch): split_heads, merge_heads,
scaled_dot_product_attention and the MultiHeadAttention module.

Expected values come from worked examples written out here and from PyTorch's own
`F.scaled_dot_product_attention` and `nn.MultiheadAttention`'s computation. The module cases
run in float32, the dtype learners use, so a module that builds default-dtype tensors inside
forward is as right as one that follows x's dtype.
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import partial

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from attnbook.checks import nb04
from attnbook.checks._cases import (
    Build,
    Case,
    Slips,
    expect_deterministic,
    forbid,
    probe_tolerance,
    run_cases,
    run_table,
    run_trials,
    sizes,
)
from attnbook.checks._core import (
    HINT_DROPOUT,  # noqa: F401 (a detector of these checks: the catalogue names it here)
    CheckRun,
    CrashHints,
    names_called,
)
from attnbook.checks._modules import is_instance, parameter_shapes, type_name

KNOWN = Slips("nb05")

__all__ = [
    "check_merge_heads",
    "check_multi_head_attention",
    "check_scaled_dot_product_attention",
    "check_split_heads",
]

HINT_AXES = (
    "the inputs may have any number of leading axes (2-D, 3-D or 4-D): count axes "
    "from the end (dim=-1, k.transpose(-2, -1), q.shape[-1]), never from the front"
)
HINT_SPLIT_SHAPE = (
    "(B, L, d_model) -> (B, h, L, d_k): h is n_heads and d_k is d_model // n_heads; both come from "
    "the arguments (not the worked example), and the batch axis B stays first"
)
HINT_MERGE_SHAPE = (
    "(B, h, L, d_k) -> (B, L, h * d_k): take the sizes from y.shape in that "
    "order and concatenate the heads side by side along the features"
)
HINT_MERGE_SUMMED = HINT_MERGE_SHAPE + " (summing or averaging them loses the h axis)"
HINT_NAN = (
    "a query with no allowed key has only -inf scores and torch.softmax returns NaN for it: give "
    "such rows zero weights (for example torch.nan_to_num or torch.where on the row)"
)


HINT_STAY_IN_TORCH = "stay in PyTorch: use tensor methods (.view, .transpose, @), not numpy"
HINT_RETURN_OUTPUT_ONLY = (
    "return only the output (a single tensor), not (Y, A) as masked_attention did in notebook 04"
)


# Known causes of an exception in the learner's code: (text in the error, hint).
HINT_INT_SIZES = (
    "sizes must be ints: d_k is d_model // n_heads (integer division), not d_model / n_heads"
)
HINT_ALLOWED_NONE = "allowed=None means no mask: only fill -inf when allowed is not None"
HINT_SIZES_FROM_INPUT = (
    "take every size from the input itself (B, h, L, d_k = y.shape; d_k is "
    "d_model // n_heads): numbers from the worked example break other sizes"
)
HINT_BOOLEAN_INDEXING = (
    "boolean indexing scores[~allowed] needs a mask of the scores' own "
    "shape; scores.masked_fill(~allowed, -inf) broadcasts allowed for you"
)
HINT_VIEW_NOT_CONTIGUOUS = (
    "after a transpose the tensor is no longer contiguous, so .view cannot "
    "regroup its axes: use .reshape (or .contiguous() before .view)"
)

_ERROR_HINTS = [
    ("but got float", HINT_INT_SIZES),
    ("'NoneType'", HINT_ALLOWED_NONE),
    ("is invalid for input of size", HINT_SIZES_FROM_INPUT),
    ("Dimension out of range", HINT_AXES),
    ("shape of the mask", HINT_BOOLEAN_INDEXING),
    ("view size is not compatible", HINT_VIEW_NOT_CONTIGUOUS),
]


HINT_K_T = (
    "k.T reverses EVERY axis of a batched tensor: use k.transpose(-2, -1) (or k.mT) to "
    "swap only the last two"
)


# ---------------------------------------------------------------------------------------
# A private head split, for expected values (not the exercise's name)
# ---------------------------------------------------------------------------------------
def _split(x: torch.Tensor, h: int) -> torch.Tensor:
    B, L, d = x.shape
    return x.reshape(B, L, h, d // h).transpose(1, 2)  # (B, h, L, d_k)


# ---------------------------------------------------------------------------------------
# split_heads and merge_heads: case tables (`CASES`); their known slips are generated from the
# mistake catalogue into `slips/nb05.py`
# ---------------------------------------------------------------------------------------
HINT_HEAD_FEATURES = "head r of token l holds features r*d_k .. (r+1)*d_k - 1 of token l"
HINT_MERGE_INVERTS_SPLIT = "merge_heads must undo split_heads exactly"
_CRASH = (*_ERROR_HINTS, ("must match the size", HINT_AXES))


def _tensor_first(run: CheckRun, case: Case, seen) -> None:
    """A case's `before=`: the output is a tensor (a pair names notebook 04's (Y, A))."""
    run.expect_true(
        isinstance(seen, torch.Tensor),
        f"{case.call} returned {type(seen).__name__}; expected a torch.Tensor.",
        hint=HINT_RETURN_OUTPUT_ONLY if isinstance(seen, tuple | list) else HINT_STAY_IN_TORCH,
    )


def _heads_case(case_id: str, call: str, args: tuple, expect, **more) -> Case:
    return Case(case_id, call, args, expect=expect, crash_hints=_CRASH, before=_tensor_first,
                **more)  # fmt: skip


_X12 = torch.arange(12.0).reshape(1, 3, 4)  # B = 1, L = 3, d_model = 4
_Y12 = _split(_X12, 2)  # (1, 2, 3, 2): [[[0, 1], [4, 5], [8, 9]], [[2, 3], [6, 7], [10, 11]]]
_XR = torch.randn(2, 5, 12, generator=torch.Generator().manual_seed(51), dtype=torch.float64)
SPLIT_CASES = (
    _heads_case("arange", "split_heads(x, 2) with x = torch.arange(12.).reshape(1, 3, 4)",
                (_X12, 2), _Y12, shape_hint=HINT_SPLIT_SHAPE,
                hint=HINT_HEAD_FEATURES),
    _heads_case("3 heads", "split_heads(x, 3) with x of shape (2, 5, 12)", (_XR, 3),
                _split(_XR, 3), shape_hint=HINT_SPLIT_SHAPE),
    _heads_case("1 head", "split_heads(x, 1) (a single head)", (_XR, 1), _XR[:, None],
                shape_hint=HINT_SPLIT_SHAPE),
    Case("5 heads", "split_heads(x, 5) with d_model = 12", (_XR, 5), raises=ValueError,
         mentions=("n_heads", "(2, 5, 12)")),
    Case("2-D x", "split_heads(x[0], 3) with x[0] of shape (5, 12)", (_XR[0], 3),
         raises=ValueError, mentions=("x", "(5, 12)")),
)  # fmt: skip
MERGE_CASES = (
    _heads_case("arange", "merge_heads(y) with y of shape (1, 2, 3, 2) (the split of "
                "arange(12).reshape(1, 3, 4))", (_Y12,), _X12, shape_hint=HINT_MERGE_SUMMED),
    _heads_case("round trip", "merge_heads of the split of x (2, 5, 12) into 3 heads: the "
                "round trip", (_split(_XR, 3),), _XR, shape_hint=HINT_MERGE_SHAPE,
                hint=HINT_MERGE_INVERTS_SPLIT),
    _heads_case("contiguous", "merge_heads on a contiguous copy of a split",
                (_split(_XR, 4).contiguous(),), _XR, shape_hint=HINT_MERGE_SHAPE),
    Case("3-D y", "merge_heads(y[0]) with y[0] of shape (2, 3, 2)", (_Y12[0],),
         raises=ValueError, mentions=("y", "(2, 3, 2)")),
)  # fmt: skip


def _normal_tensor(rng: np.random.Generator, *shape: int) -> torch.Tensor:
    return torch.from_numpy(rng.standard_normal(shape).astype(np.float32))


def _split_trial(rng: np.random.Generator, seed: int) -> Case:
    B, L, h, d_k = sizes(rng, 4, high=6)
    call = f"split_heads on random x ({B}, {L}, {h * d_k}) with n_heads = {h} (seed {seed})"
    return _heads_case("trial", call, (_normal_tensor(rng, B, L, h * d_k), h), None,
                       shape_hint=HINT_SPLIT_SHAPE)  # fmt: skip


def _merge_trial(rng: np.random.Generator, seed: int) -> Case:
    B, h, L, d_k = sizes(rng, 4, high=6)
    call = f"merge_heads on random y ({B}, {h}, {L}, {d_k}) (seed {seed})"
    return _heads_case("trial", call, (_normal_tensor(rng, B, h, L, d_k),), None,
                       shape_hint=HINT_MERGE_SHAPE)  # fmt: skip


def check_split_heads(split_heads, reference=None, trials: int = 10) -> None:
    """split_heads on arange(12) (with head 1 of token 2 read out), a (2, 5, 12) split into 3
    heads and into 1, two input checks (table `SPLIT_CASES`), then random trials against the
    reference."""
    run_table(
        CheckRun(split_heads), "split_heads", SPLIT_CASES, KNOWN, reference, trials, _split_trial
    )


def check_merge_heads(merge_heads, reference=None, trials: int = 10) -> None:
    """merge_heads on the split of arange(12), the round trip of a split (strided and
    contiguous), an input check (table `MERGE_CASES`), then random trials against the
    reference."""
    run_table(
        CheckRun(merge_heads), "merge_heads", MERGE_CASES, KNOWN, reference, trials, _merge_trial
    )


# ---------------------------------------------------------------------------------------
# scaled_dot_product_attention
# ---------------------------------------------------------------------------------------
def _torch_expected(q, k, v, allowed):
    """PyTorch's fused attention; a row with no allowed key is zeros, as the course says."""
    return torch.nan_to_num(F.scaled_dot_product_attention(q, k, v, attn_mask=allowed), nan=0.0)


HINT_NO_SCALING = "divide the scores by sqrt(d_k) = sqrt(q.shape[-1])"
HINT_SCALED_BY_LENGTH = (
    "divide by sqrt(d_k) = sqrt(q.shape[-1]), the width of a query, not by "
    "the square root of a sequence length"
)
HINT_SCALED_BY_D_V = (
    "divide by sqrt(d_k) = sqrt(q.shape[-1]), the query/key width; d_v = v.shape[-1] may differ"
)
HINT_DIVIDED_BY_D_K = "divide by sqrt(d_k), not d_k"
HINT_SOFTMAX_AXIS = "each query's weights (the last axis, dim=-1) must sum to 1"
HINT_MASK_INVERTED = "True means 'may attend': fill -inf where allowed is False, i.e. ~allowed"
HINT_FINITE_FILL = (
    "a row with no allowed key came out uniform: use -inf and give such rows zero weights"
)

HINT_D_K_FROM_FRONT = "d_k is q.shape[-1], the last axis: " + HINT_AXES


HINT_SDPA_IN_PLACE = (
    "work on new tensors (q = q / ..., not q /= ...): the caller's q, k, v "
    "and allowed must stay as they were"
)
HINT_SDPA_SHAPE = "the output is (..., L_q, d_v)"


# PyTorch's fused attention, which `scaled_dot_product_attention` and nb11's
# `cross_attention` must not call
FUSED_ATTENTION = {"scaled_dot_product_attention", "multi_head_attention_forward"}
HINT_WRITE_IT_YOURSELF = (
    "write the scores, the mask, the softmax and the weighted sum "
    "yourself; the checks compare with PyTorch's kernel for you"
)
HINT_EMPTY_ROW = nb04.HINT_EMPTY_ROW  # notebook 04's, for the same slip
HINT_OVERFLOW_LARGE = (
    "exp of a large score overflows: subtract each row's maximum before "
    "exponentiating (torch.softmax does this for you)"
)


# detectors raised from the code itself, not from an output (see scripts/release.py)
PROPERTY_DETECTORS = ("HINT_WRITE_IT_YOURSELF",)


def _sdpa_case(case_id: str, call: str, q, k, v, allowed, hint=None, finite=HINT_NAN) -> Case:
    return Case(case_id, call, (q, k, v, allowed), expect=_torch_expected(q, k, v, allowed),
                hint=hint, shape_hint=HINT_SDPA_SHAPE, finite=finite,
                crash_hints=_CRASH, before=_tensor_first)  # fmt: skip


_randn = partial(torch.randn, generator=torch.Generator().manual_seed(53), dtype=torch.float64)
_q, _k, _v = (_randn(2, 3, 5, 4) for _ in range(3))
_causal = torch.ones(5, 5, dtype=torch.bool).tril()
_padded = _causal & torch.tensor([[True] * 5, [True, True, True, False, False]])[:, None, None, :]
_q2, _k2, _v2 = _randn(3, 4), _randn(6, 4), _randn(6, 2)
_allowed2 = torch.tensor([[True, False, True, True, False, True], [False] * 6, [True] * 6])
_big = torch.tensor([[40.0, 0.0], [0.0, 40.0]], dtype=torch.float64)
_big3 = _randn(2, 4, 3) * 30.0  # scores ~ 1e3
_v3 = _randn(2, 4, 2)
_q6, _k6, _v6 = _randn(1, 4, 6), _randn(1, 5, 6), _randn(1, 5, 3)
HINT_KV_SHARED = (
    "k and v may have size-1 leading axes where q has more (one key/value head shared by every "
    "query head): q @ k.transpose(-2, -1) and weights @ v broadcast them; reshaping each tensor "
    "to (-1, L, d) for bmm does not"
)
_q_heads, _k_shared, _v_shared = _randn(2, 3, 4, 6), _randn(2, 1, 5, 6), _randn(2, 1, 5, 3)
_SDPA = "scaled_dot_product_attention"
SDPA_CASES = (
    _sdpa_case("no mask", f"{_SDPA}(q, k, v, None) with q, k, v (2, 3, 5, 4) float64, no mask",
               _q, _k, _v, None),
    _sdpa_case("causal", f"{_SDPA}(q, k, v, allowed) with a causal (5, 5) mask",
               _q, _k, _v, _causal),
    _sdpa_case("float32 padded", f"{_SDPA} in float32 with a (2, 1, 5, 5) causal + padding "
               "mask broadcast over 3 heads", _q.float(), _k.float(), _v.float(), _padded),
    _sdpa_case("cross", f"{_SDPA} with 3 queries, 6 keys, d_v = 2 and query 1 allowed no key",
               _q2, _k2, _v2, _allowed2, hint=HINT_EMPTY_ROW),
    _sdpa_case("large", f"{_SDPA} with large scores (q.k = 1600, float64)", _big, _big,
               torch.eye(2, dtype=torch.float64), None, hint=HINT_OVERFLOW_LARGE,
               finite=HINT_OVERFLOW_LARGE),
    _sdpa_case("large causal", f"{_SDPA} with large scores (q, k of size ~30 per feature) and "
               "a causal mask", _big3, _big3.flip(-2), _v3,
               torch.ones(4, 4, dtype=torch.bool).tril(), hint=HINT_OVERFLOW_LARGE,
               finite=HINT_OVERFLOW_LARGE),
    _sdpa_case("d_k = 6", f"{_SDPA} with 4 queries, 5 keys, d_k = 6 and d_v = 3, no mask",
               _q6, _k6, _v6, None),
    replace(_sdpa_case("shared keys", f"{_SDPA} with q (2, 3, 4, 6) and k, v (2, 1, 5, 6), "
                       "(2, 1, 5, 3): one key/value head for the 3 query heads, no mask",
                       _q_heads, _k_shared, _v_shared, None, hint=HINT_KV_SHARED),
            crash_hints=((("batch2", "shape '[", "must match the size", "broadcast",
                           "out of bounds"), HINT_KV_SHARED), *_CRASH)),
    Case("k, v disagree", f"{_SDPA} with k (6, 4) and v (5, 2)", (_q2, _k2, _v2[:5], None),
         raises=ValueError, mentions=("(6, 4)", "(5, 2)")),
    Case("mask too narrow", f"{_SDPA} with allowed (3, 5) for 6 keys",
         (_q2, _k2, _v2, _allowed2[:, :5]), raises=ValueError, mentions=("allowed", "(3, 5)")),
)  # fmt: skip
MHA = "MultiHeadAttention"


def _sdpa_trial(rng: np.random.Generator, seed: int) -> Case:
    """Random leading axes (0 to 2), sizes, dtype (by the seed's parity) and mask; the value
    is the reference's, and PyTorch's fused attention must agree."""
    dtype = np.float64 if seed % 2 else np.float32
    lead = tuple(sizes(rng, seed % 3, high=4))
    L_q, L_k, d_k, d_v = sizes(rng, 4, high=7)

    def normal(*shape: int) -> torch.Tensor:
        return torch.from_numpy(rng.standard_normal(shape).astype(dtype))

    q, k, v = normal(*lead, L_q, d_k), normal(*lead, L_k, d_k), normal(*lead, L_k, d_v)
    allowed = None if seed % 4 == 0 else torch.from_numpy(rng.random((*lead, L_q, L_k)) < 0.6)
    call = (
        f"{_SDPA} on random q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}, "
        f"{q.dtype}, {'no mask' if allowed is None else 'random mask'} (seed {seed})"
    )
    torch_says = _torch_expected(q, k, v, allowed)
    return replace(
        _sdpa_case("trial", call, q, k, v, allowed),
        expect=None,
        then=lambda run, case, y: run.expect_close(
            f"{call} against F.scaled_dot_product_attention",
            y,
            torch_says,
            tol=probe_tolerance(y, torch_says),
        ),  # fmt: skip
    )


def _k_t_hints(fn) -> CrashHints:
    """A size error from `k.T` on a batched tensor: named, ahead of a case's own crash hints,
    when the learner's code uses .T."""
    if "T" not in names_called(fn):
        return ()
    return ((("must match the size", "cannot be multiplied"), HINT_K_T),)


def check_scaled_dot_product_attention(
    scaled_dot_product_attention, reference=None, trials: int = 12
) -> None:
    """Attention for any leading axes, without PyTorch's fused kernel: the table `SDPA_CASES`
    (no mask, causal, a broadcast float32 mask, cross-attention with an empty row, large
    scores, two input checks), then random trials against the reference and PyTorch."""
    run = CheckRun(scaled_dot_product_attention)
    run.in_place_hint = HINT_SDPA_IN_PLACE
    forbid(run, FUSED_ATTENTION, "PyTorch's own fused attention", HINT_WRITE_IT_YOURSELF)
    k_t = _k_t_hints(scaled_dot_product_attention)
    cases = [replace(case, crash_hints=(*k_t, *case.crash_hints)) for case in SDPA_CASES]
    run_cases(run, _SDPA, cases, KNOWN)

    def trial(rng: np.random.Generator, seed: int) -> Case:
        case = _sdpa_trial(rng, seed)
        return replace(case, crash_hints=(*k_t, *case.crash_hints))

    run_trials(run, _SDPA, reference, trials, trial, KNOWN)
    run.done()


# ---------------------------------------------------------------------------------------
# MultiHeadAttention: module cases (`MHA_CASES`), each building the learner's class with its
# four projections checked and their weights set, compared with PyTorch's own attention layer
# ---------------------------------------------------------------------------------------
PROJECTIONS = ("W_Q", "W_K", "W_V", "W_O")
HINT_LAYER_NAMES = (
    "create self.W_Q, self.W_K, self.W_V and self.W_O as nn.Linear(d_model, d_model) in __init__"
)
HINT_LAYER_WIDTHS = "nn.Linear(d_model, d_model)"
HINT_LAYER_BIAS = "nn.Linear(d_model, d_model, bias=True) (the default)"
HINT_FOUR_LAYERS = (
    "exactly four nn.Linear(d_model, d_model) layers and nothing else with parameters"
)
HINT_MASK_AS_GIVEN = (
    "pass allowed on unchanged: an (L, L) or (B, 1, L, L) mask already "
    "broadcasts against the scores (B, h, L, L)"
)
_MHA_CRASH = ((("does not broadcast", "must match the size"), HINT_MASK_AS_GIVEN),)


def _inspect_mha(run: CheckRun, call: str, view, *, d: int) -> None:
    """Four named nn.Linear(d, d) projections with biases and nothing else with parameters,
    and no dropout left on in eval mode."""
    info = view.info()
    params = parameter_shapes(view, info)
    for name in PROJECTIONS:
        run.expect_true(
            is_instance(view, name, nn.Linear, info),
            f"{call} has no nn.Linear attribute {name} "
            f"(found {type_name(view, name) or 'nothing'}).",
            hint=HINT_LAYER_NAMES,
        )
        shape = params.get(f"{name}.weight")
        run.expect_true(
            shape == (d, d),
            f"{name}.weight has shape {shape}; expected ({d}, {d}).",
            hint=HINT_LAYER_WIDTHS,
        )
        run.expect_true(
            f"{name}.bias" in params,
            f"{name} has no bias; nn.MultiheadAttention uses one.",
            hint=HINT_LAYER_BIAS,
        )
    unique = {token: shape for _, shape, _, token, _ in info["params"]}
    count = sum(math.prod(shape) for shape in unique.values())
    run.expect_true(
        count == 4 * (d * d + d),
        f"{call} has {count} parameters; expected 4 * ({d} * {d} + {d}) = {4 * (d * d + d)}.",
        hint=HINT_FOUR_LAYERS,
    )
    x = torch.randn(1, 3, d, generator=torch.Generator().manual_seed(65))
    expect_deterministic(run, f"{call} on random x", view, x, crash_hints=_MHA_CRASH)


def _mha_weights(d: int, rng: np.random.Generator) -> dict[str, torch.Tensor]:
    """The four projections' weights and biases, by name, drawn from `rng` (float32)."""
    return {
        f"{name}.{part}": torch.from_numpy(
            (rng.standard_normal(shape) / math.sqrt(d)).astype(np.float32)
        )
        for name in PROJECTIONS
        for part, shape in (("weight", (d, d)), ("bias", (d,)))
    }


def _torch_says(weights: dict, n_heads: int, x, allowed=None) -> torch.Tensor:
    """PyTorch's nn.MultiheadAttention computation, in float64, with `weights` (by name) on x
    (B, L, d) and the mask `allowed` (True: may attend), (L, L) or (B, 1, L, L); a query with
    no allowed key (NaN in PyTorch) gets zero weights, as the course says: W_O's bias."""
    w = {name: torch.as_tensor(t, dtype=torch.float64) for name, t in weights.items()}
    x = torch.as_tensor(x, dtype=torch.float64)
    B, L, d = x.shape
    mask = None
    if allowed is not None:
        mask = ~torch.as_tensor(allowed, dtype=torch.bool)
        if mask.dim() == 4:  # one (L, L) mask per batch row and head
            mask = mask.expand(B, n_heads, L, L).reshape(B * n_heads, L, L)
    seq_first = x.transpose(0, 1)
    with torch.no_grad():
        y, _ = F.multi_head_attention_forward(
            seq_first, seq_first, seq_first, d, n_heads,
            torch.cat([w[f"{n}.weight"] for n in PROJECTIONS[:3]]),
            torch.cat([w[f"{n}.bias"] for n in PROJECTIONS[:3]]),
            None, None, False, 0.0, w["W_O.weight"], w["W_O.bias"],
            training=False, need_weights=False, attn_mask=mask,
        )  # fmt: skip
    return torch.where(y.isnan(), w["W_O.bias"], y).transpose(0, 1)


def _mha_case(case_id: str, d: int, h: int, x, masked: str, seed: int, **more) -> Case:
    """MultiHeadAttention(d, h) with weights drawn from `seed` on x, with no mask, a causal one,
    or a causal one and padding (each batch row a random number of real tokens; none in row 0
    for an empty message, whose queries then have no allowed key)."""
    rng = np.random.default_rng(seed)
    B, L, _ = x.shape
    causal = torch.ones(L, L, dtype=torch.bool).tril()
    lengths = torch.from_numpy(rng.integers(1, L + 1, size=B))
    real = torch.arange(L) < lengths[:, None]  # (B, L)
    empty = real & (torch.arange(B) > 0)[:, None]  # no real token in row 0
    masks = {
        "no mask": None,
        "causal": causal,
        "causal + padding": causal & real[:, None, None, :],
        "causal + padding, message 0 empty": causal & empty[:, None, None, :],
    }
    weights = _mha_weights(d, rng)
    args = (x,) if masks[masked] is None else (x, masks[masked])
    build = Build(f"MultiHeadAttention({d}, {h})", (d, h), weights, partial(_inspect_mha, d=d))
    return Case(case_id, f"{build.call} on x {tuple(x.shape)}, {masked}", args,
                partial(_torch_says, weights, h), build=build, shape_hint=HINT_MHA_SHAPE,
                finite=HINT_NAN, crash_hints=_MHA_CRASH, before=_tensor_first, depth=4,
                **more)  # fmt: skip


HINT_MHA_SHAPE = "the output has the input's shape"


def _x(seed: int, *shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


MHA_CASES = (
    _mha_case("no mask", 8, 2, _x(61, 2, 5, 8), "no mask", 61),
    _mha_case("causal", 8, 2, _x(62, 2, 5, 8), "causal", 62),
    _mha_case("padding", 12, 3, _x(63, 3, 6, 12), "causal + padding", 63),
    _mha_case("one token", 6, 1, _x(64, 1, 1, 6), "causal", 64),
    # no allowed key for message 0's queries: zero weights, so W_O's bias
    _mha_case("empty message", 8, 2, _x(66, 2, 4, 8), "causal + padding, message 0 empty", 66,
              hint=HINT_FINITE_FILL),
    Case("10 by 3", "MultiHeadAttention(10, 3) (10 is not divisible by 3)", (10, 3),
         raises=ValueError, mentions=("d_model", "n_heads")),
)  # fmt: skip
# the functions of notebook 05 checked as tables
CASES = {"split_heads": SPLIT_CASES, "merge_heads": MERGE_CASES, _SDPA: SDPA_CASES, MHA: MHA_CASES}


def _mha_trial(rng: np.random.Generator, seed: int) -> Case:
    """Random sizes, weights and inputs, with no mask, a causal mask or causal + padding."""
    h, d_k, B, L = sizes(rng, 4, high=5)
    x = torch.from_numpy(rng.standard_normal((B, L + 1, h * d_k)).astype(np.float32))
    masked = ("no mask", "causal", "causal + padding")[seed % 3]
    case = _mha_case("trial", h * d_k, h, x, masked, int(rng.integers(2**31)))
    return replace(case, call=f"{case.call} (seed {seed})")


def check_multi_head_attention(MultiHeadAttention, reference=None, trials: int = 6) -> None:
    """The module built each time with its four projections checked (names, widths, biases,
    nothing else with parameters, no live dropout) and weights set, compared with PyTorch's
    nn.MultiheadAttention computation on no mask, a causal mask, causal + padding and one
    token, an input check (table `MHA_CASES`), then random sizes against the reference."""
    run_table(CheckRun(MultiHeadAttention), MHA, MHA_CASES, KNOWN, reference, trials, _mha_trial)
