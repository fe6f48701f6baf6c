"""Input validation that the notebooks' graded functions call before their own work.

Every graded function rejects wrong shapes with a ValueError that names the offending
argument and both shapes. These helpers are given to students, outside the part they write,
so their attention goes to the mathematics.
"""

from __future__ import annotations

import operator

import numpy as np


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


def require_same_size(
    name_a: str, a, axis_a: int, name_b: str, b, axis_b: int, meaning: str
) -> None:
    """Require a.shape[axis_a] == b.shape[axis_b], naming both arguments and shapes."""
    shape_a, shape_b = _shape(a), _shape(b)
    if shape_a[axis_a] != shape_b[axis_b]:
        raise ValueError(
            f"{name_a} and {name_b} disagree on {meaning}: {name_a} has shape {shape_a} "
            f"(size {shape_a[axis_a]} on axis {axis_a}), {name_b} has shape {shape_b} "
            f"(size {shape_b[axis_b]} on axis {axis_b})"
        )


def require_integer(name: str, value, minimum: int | None = None, meaning: str = "") -> int:
    """`value` as an int, or a ValueError that names the argument, e.g.
    L = require_integer("L", L, 1, "(the number of tokens)"). Accepts Python and numpy
    integers, 0-d integer arrays or tensors and whole floats such as 4.0; refuses booleans,
    fractions, None and text."""
    whole = None
    if not isinstance(value, (bool, str, bytes)) and value is not None:
        try:
            whole = operator.index(value)
        except TypeError:
            try:
                number = float(value)
            except (TypeError, ValueError):
                number = None
            if number is not None and number.is_integer():
                whole = int(number)
    wanted = f"a whole number >= {minimum}" if minimum is not None else "a whole number"
    about = f" {meaning}" if meaning else ""
    if whole is None or (minimum is not None and whole < minimum):
        raise ValueError(
            f"{name} must be {wanted}{about}; got {name} = {value!r} ({type(value).__name__})"
        )
    return whole


def require_number(name: str, value, minimum: float | None = None, meaning: str = "") -> float:
    """`value` as a float, or a ValueError that names the argument, e.g.
    alpha = require_number("alpha", alpha, 0.0, "(the length penalty)"). Accepts Python and
    numpy numbers and 0-d arrays or tensors; refuses booleans, NaN, None and text."""
    number = None
    if not isinstance(value, (bool, str, bytes)) and value is not None:
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = None
    wanted = f"a number >= {minimum}" if minimum is not None else "a number"
    about = f" {meaning}" if meaning else ""
    if number is None or number != number or (minimum is not None and number < minimum):
        raise ValueError(
            f"{name} must be {wanted}{about}; got {name} = {value!r} ({type(value).__name__})"
        )
    return number


def require_lengths(name: str, lengths, L: int):
    """`lengths` as a 1-D int64 array of whole numbers in 0 .. L, or a ValueError naming it."""
    values = np.asarray(lengths)
    require_ndim(name, values, 1, "(B,)")
    if values.size and not (
        np.issubdtype(values.dtype, np.number)
        and not np.issubdtype(values.dtype, np.complexfloating)
        and np.all(np.mod(values, 1) == 0)
    ):
        raise ValueError(
            f"{name} must hold whole numbers of real tokens; got {name} "
            f"{values.tolist()} of dtype {values.dtype}"
        )
    if values.size and (values.min() < 0 or values.max() > L):
        raise ValueError(
            f"{name} must lie between 0 and L = {L}; got {name} "
            f"{values.tolist()} of shape {values.shape}"
        )
    return values.astype(np.int64)
