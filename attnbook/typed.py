"""Typed views of what PyTorch hands back untyped.

To a type checker an ``nn.ModuleList`` holds plain ``nn.Module``s, and a module's submodules
are dynamic attributes (``Tensor | Module``). `all_of` checks the kind of each item once, at
run time, and returns a list of that kind, so that the code after it is checked.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

__all__ = ["all_of", "one_of"]

T = TypeVar("T")


def one_of(value: object, kind: type[T], what: str) -> T:
    """`value`, which must be a `kind`; a TypeError naming `what` otherwise."""
    if not isinstance(value, kind):
        raise TypeError(f"{what}: expected a {kind.__name__}, got {type(value).__name__}")
    return value


def all_of(values: Iterable[object], kind: type[T], what: str) -> list[T]:
    """The items of `values`, each of which must be a `kind` (`what[i]` names a wrong one)."""
    return [one_of(value, kind, f"{what}[{i}]") for i, value in enumerate(values)]
