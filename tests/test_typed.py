"""attnbook.typed: the run-time checks behind the typed views of PyTorch's module lists."""

import pytest
import torch
from torch import nn

from attnbook.typed import all_of, one_of


def test_all_of_returns_the_items_of_the_kind():
    blocks = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 3)])
    assert all_of(blocks, nn.Linear, "blocks") == list(blocks)


def test_a_wrong_item_is_named_with_its_index_and_kinds():
    blocks = nn.ModuleList([nn.Linear(2, 2), nn.ReLU()])
    with pytest.raises(TypeError, match=r"blocks\[1\]: expected a Linear, got ReLU"):
        all_of(blocks, nn.Linear, "blocks")
    with pytest.raises(TypeError, match=r"x: expected a Tensor, got int"):
        one_of(3, torch.Tensor, "x")
