"""The input checks that graded functions run before the student's part (attnbook.shapes)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from attnbook.shapes import require_integer, require_lengths


@pytest.mark.parametrize("value", [3, np.int64(3), np.array(3), torch.tensor(3), 3.0])
def test_require_integer_accepts_whole_numbers_of_every_kind(value):
    result = require_integer("L", value, 1)
    assert result == 3 and type(result) is int


@pytest.mark.parametrize("value", [None, 2.5, "3", True, -1, 0, np.array([3]), float("nan")])
def test_require_integer_names_the_argument_the_expectation_and_the_value(value):
    with pytest.raises(ValueError) as info:
        require_integer("L", value, 1, "(the number of tokens)")
    message = str(info.value)
    assert message.startswith("L must be a whole number >= 1 (the number of tokens)")
    assert f"got L = {value!r}" in message


@pytest.mark.parametrize(
    "lengths", [[2, 0, 3], (2.0, 1.0), np.array([3], np.int32), torch.tensor([1, 2]), []]
)
def test_require_lengths_gives_whole_int64_lengths(lengths):
    result = require_lengths("lengths", lengths, 3)
    assert result.dtype == np.int64 and result.ndim == 1
    assert result.tolist() == [int(x) for x in np.asarray(lengths).tolist()]


@pytest.mark.parametrize(
    ("lengths", "words"),
    [
        ([2.5], "whole numbers"),
        ([True, False], "whole numbers"),
        (["a"], "whole numbers"),
        ([4], "between 0 and L = 3"),
        ([-1], "between 0 and L = 3"),
        ([[1]], "1 axes (B,)"),
    ],
)
def test_require_lengths_refuses_what_is_not_a_length(lengths, words):
    with pytest.raises(ValueError, match="lengths") as info:
        require_lengths("lengths", lengths, 3)
    assert words in str(info.value)
