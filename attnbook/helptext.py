"""Docstrings as a terminal shows them in ``--help``."""

from __future__ import annotations

import re

__all__ = ["plain"]


def plain(doc: str | None, commands: dict[str, str] | None = None) -> str:
    """``doc`` without reStructuredText backticks (````x```` and ```x``` become ``x``), with
    each key of ``commands`` written as its value: the examples show the command as typed,
    e.g. ``{"python -m attnbook.experiments.ablation": "attnbook ablate"}``."""
    text = re.sub(r"``?([^`]+?)``?", r"\1", doc or "")
    for written, typed in (commands or {}).items():
        text = text.replace(written, typed)
    return text
