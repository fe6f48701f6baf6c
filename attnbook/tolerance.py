"""How close two floating-point results of one computation must be: the one place it is decided.

A comparison with numbers computed elsewhere (logits that `transformers` stored, a run that
another machine recorded, an expected file, a worked example written out in a check) cannot
ask for the same bytes: another CPU (AVX-512, AVX2 or plain kernels), another thread count,
Apple silicon or a GPU adds the same terms in another order, and float addition is not
associative. It can ask for what error analysis guarantees, and no more:

* One stage of a computation (a dot product, a sum, a norm, a softmax: one reduction) returns
  its exact result with a relative error of about `sqrt(n) * u` for `n` terms when the rounding
  errors are independent (`u = eps / 2`, the unit roundoff), and `n * u` in the worst case;
  blocked and pairwise sums, which vector kernels use, do better still. `STAGE_ULPS = 32`
  eps per stage covers a typical error of a reduction over 4096 terms (`sqrt(4096) / 2`),
  more than any check here sums.
* Stages run in sequence add their errors (a network with normalisations is about as well
  conditioned as its parts), so `depth` stages allow `depth` times one stage.
* The error is relative to the size of the values the computation handles, `magnitude`
  (not to each output: a logit near 0 came from values of size `magnitude` too); so
  `atol = rtol * magnitude`.
* Both sides carry such an error, each from its own machine: twice one bound.

    rtol = 2 * STAGE_ULPS * depth * eps(dtype)          atol = rtol * magnitude

For float32 (eps 1.19e-7) one stage of size-1 values allows 7.6e-6. The 2-layer decoder of
notebook 10 (`depth` 22) on the tiny checkpoint's logits (size 4.6) allows 7.7e-4; measured
on one AVX-512 machine, its plain, AVX2 and AVX-512 kernels with one or two threads put
transformers' logits up to 2.3e-6 from the stored ones (made with AVX2), and every catalogued
mistake still fails the checks (tests/test_catalogue.py, tests/test_kernel_sets.py). Numbers
stored as decimal text (`decimals` places) carry half a unit of their last place on top.

An angle is no reduction: an angle `a` (a position times a frequency) that float32 computes
is off by a few roundings of `a`, and cos and sin carry that error out times the size of the
values they turn. So `angle` adds `ANGLE_ULPS * eps * angle * magnitude` to `atol`:
`ANGLE_ULPS = 2` eps per radian is four roundings, twice the worst error measured (0.5 eps
per radian) over the float32 answers the catalogue accepts (a float32 frequency table, a shift
matrix with float32 angles, RoPE in float32 at positions up to 1e5). Counting the angle as a
magnitude of the reduction rule (depth 2) allowed 128 eps per radian, 1.5 at angle 1e5: no
check at all of outputs of size 1.

Comparisons where both sides run in the same process on the same machine (cached against
uncached decoding, a packed step against the module path) stay bit for bit; they do not come
here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TypedDict

import numpy as np

__all__ = [
    "ANGLE_ULPS",
    "STAGE_ULPS",
    "CloseKwargs",
    "Tolerance",
    "eps_of",
    "magnitude_of",
    "tolerance",
]

#: Machine epsilons allowed per stage (one reduction), see the module's docstring.
STAGE_ULPS = 32
#: Machine epsilons allowed per radian of an angle that cos and sin take, see the docstring.
ANGLE_ULPS = 2


class CloseKwargs(TypedDict):
    """The keyword arguments `np.allclose` and `torch.allclose` take, typed: `**tol` with a
    plain `dict[str, float]` would let a tolerance land in any float parameter."""

    rtol: float
    atol: float


@dataclass(frozen=True)
class Tolerance:
    """A relative and an absolute tolerance, as `np.allclose` and `torch.allclose` take them:
    `|seen - expected| <= atol + rtol * |expected|`."""

    rtol: float
    atol: float

    def kwargs(self) -> CloseKwargs:
        """`dict(rtol=..., atol=...)`, for `np.allclose(a, b, **tol.kwargs())` and the like."""
        return {"rtol": self.rtol, "atol": self.atol}


def eps_of(dtype) -> float:
    """The machine epsilon of a floating dtype: a torch dtype, a numpy dtype or type, or its
    name ("float32"). Anything else is refused by name."""
    name = str(dtype).replace("torch.", "")
    if hasattr(dtype, "is_floating_point"):  # a torch dtype (bfloat16 has no numpy twin)
        if not dtype.is_floating_point:
            raise ValueError(f"tolerance: dtype must be a floating dtype, got {dtype}")
        import torch

        return float(torch.finfo(dtype).eps)
    if name == "bfloat16":
        return 2.0**-7
    try:
        np_dtype = np.dtype(dtype)
    except TypeError as error:
        raise ValueError(f"tolerance: dtype must be a floating dtype, got {dtype!r}") from error
    if np_dtype.kind != "f":
        raise ValueError(f"tolerance: dtype must be a floating dtype, got {np_dtype}")
    return float(np.finfo(np_dtype).eps)


def tolerance(
    dtype, magnitude: float = 1.0, depth: int = 1, decimals: int | None = None, angle: float = 0.0
):
    """The tolerance for comparing a result computed in `dtype` with the same mathematics
    computed elsewhere (see the module's docstring for the reasoning).

    dtype: the floating dtype of the computation (the lower precision of the two sides).
    magnitude: the size of the values the computation handles, e.g. `magnitude_of(expected)`.
    depth: how many reductions (matrix products, norms, softmaxes) run one after another.
    decimals: when the expected numbers were written out as text with this many places.
    angle: the largest angle (in radians) the computation takes cos and sin of, e.g. the
        largest position times the fastest frequency.
    """
    for name, value in (("magnitude", magnitude), ("angle", angle)):
        if not (isinstance(value, int | float) and math.isfinite(value) and value >= 0):
            raise ValueError(f"tolerance: {name} must be a finite number >= 0, got {value!r}")
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise ValueError(f"tolerance: depth must be an int >= 1, got {depth!r}")
    if decimals is not None and (
        isinstance(decimals, bool) or not isinstance(decimals, int) or decimals < 0
    ):
        raise ValueError(f"tolerance: decimals must be None or an int >= 0, got {decimals!r}")
    rtol = 2 * STAGE_ULPS * depth * eps_of(dtype)
    atol = rtol * float(magnitude) + ANGLE_ULPS * eps_of(dtype) * float(angle) * magnitude
    if decimals is not None:
        atol += 0.5 * 10.0**-decimals
    return Tolerance(rtol=rtol, atol=atol)


def magnitude_of(values) -> float:
    """The largest absolute finite value of an array, tensor or number (0.0 for none)."""
    if hasattr(values, "detach"):
        values = values.detach().to("cpu").double().numpy()
    array = np.abs(np.asarray(values, dtype=np.float64))
    finite = array[np.isfinite(array)]
    return float(finite.max()) if finite.size else 0.0
