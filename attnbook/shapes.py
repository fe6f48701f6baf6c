"""Input validation that the notebooks' graded functions call before their own work.

Every graded function rejects wrong shapes with a ValueError that names the offending
argument and both shapes. These helpers are given to students, outside the part they write,
so their attention goes to the mathematics.
"""

from __future__ import annotations


def _shape(x) -> tuple:
    shape = getattr(x, "shape", None)
    if shape is None:
        raise TypeError(f"expected an array with a .shape, got {type(x).__name__}")
    return tuple(shape)


def require_ndim(name: str, x, ndim: int, meaning: str) -> None:
    """Require `x` to have exactly `ndim` axes, e.g. require_ndim("X", X, 2, "(L, d)")."""
    shape = _shape(x)
    if len(shape) != ndim:
        raise ValueError(f"{name} must have {ndim} axes {meaning}; got shape {shape}")


def require_min_ndim(name: str, x, ndim: int, meaning: str) -> None:
    """Require at least `ndim` axes (leading batch axes allowed)."""
    shape = _shape(x)
    if len(shape) < ndim:
        raise ValueError(f"{name} must have at least {ndim} axes {meaning}; got shape {shape}")


def require_same_size(name_a: str, a, axis_a: int, name_b: str, b, axis_b: int,
                      meaning: str) -> None:
    """Require a.shape[axis_a] == b.shape[axis_b], naming both arguments and shapes."""
    shape_a, shape_b = _shape(a), _shape(b)
    if shape_a[axis_a] != shape_b[axis_b]:
        raise ValueError(
            f"{name_a} and {name_b} disagree on {meaning}: {name_a} has shape {shape_a} "
            f"(size {shape_a[axis_a]} on axis {axis_a}), {name_b} has shape {shape_b} "
            f"(size {shape_b[axis_b]} on axis {axis_b})"
        )
