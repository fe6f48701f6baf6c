"""Notebooks 02 and 03: the package module attnbook.positions, the checks against the
references, the widget driven through its controls, and the half-split permutation."""

from __future__ import annotations

import importlib
import pkgutil

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import attnbook  # noqa: E402
from attnbook import positions  # noqa: E402
from attnbook.checks import (  # noqa: E402
    CheckFailure,
    check_embed,
    check_shift_matrix,
    check_sinusoidal_positions,
)
from attnbook.grading import load_reference  # noqa: E402

REF02 = load_reference("02_positions")
GRADED = ("sinusoidal_positions", "embed", "shift_matrix", "rotation_2d", "rope_frequencies",
          "apply_rope")


def _labels_present(fig):
    for ax in fig.axes:
        if not ax.axison or ax.get_label() == "<colorbar>":
            continue
        assert ax.get_xlabel() and ax.get_ylabel(), "every plotting axis needs both labels"
        assert ax.get_title(), "every plotting axis needs a title"


def test_package_defines_no_graded_name_of_notebooks_02_and_03():
    modules = [attnbook] + [importlib.import_module(f"attnbook.{m.name}")
                            for m in pkgutil.walk_packages(attnbook.__path__)
                            if not m.name.startswith("_")]
    for module in modules:
        for name in GRADED:
            assert not hasattr(module, name), f"{module.__name__} defines {name}"


# ---------------------------------------------------------------------------------------
# notebook 02: demo data and figures
# ---------------------------------------------------------------------------------------
def test_order_demo_is_seeded_and_covers_every_demo_word():
    a, b = positions.order_demo(d=8, seed=0), positions.order_demo(d=8, seed=0)
    assert np.array_equal(a.E, b.E) and np.array_equal(a.W_Q, b.W_Q)
    assert a.E.shape == (len(a.vocab), 8) and a.W_V.shape == (8, 8)
    for words in positions.DEMO_SENTENCES.values():
        ids = a.ids(words)
        assert [a.vocab[i] for i in ids] == words
    assert not np.array_equal(positions.order_demo(seed=1).E, a.E)
    with pytest.raises(KeyError, match="cat"):
        a.ids(["cat"])


def test_order_demo_reproduces_the_bag_of_words_problem_and_its_fix():
    from attnbook.ops import torch_attend

    demo = positions.order_demo()

    def attend(X):
        return torch_attend(X @ demo.W_Q.T, X @ demo.W_K.T, X @ demo.W_V.T)[0]

    P = REF02.sinusoidal_positions(16, 8)
    dog, man = positions.DEMO_SENTENCES["dog_bites_man"], positions.DEMO_SENTENCES["man_bites_dog"]
    assert np.allclose(attend(demo.E[demo.ids(dog)])[-1], attend(demo.E[demo.ids(man)])[-1])
    with_positions = [attend(REF02.embed(demo.ids(s), demo.E, P))[-1] for s in (dog, man)]
    assert not np.allclose(*with_positions)


def test_sinusoid_curves_figure_prints_the_sliced_vectors():
    P = REF02.sinusoidal_positions(8, 4)
    fig = positions.plot_sinusoid_curves(P, slices=(0, 2, 5))
    _labels_present(fig)
    curves = fig.axes[0].get_lines()
    assert sum(1 for line in curves if line.get_label().startswith("feature")) == 4
    text = " ".join(t.get_text() for t in fig.axes[1].texts)
    assert "p_2 = [+0.909, -0.416, +0.020, +1.000]" in text
    plt.close(fig)
    with pytest.raises(ValueError, match="slices"):
        positions.plot_sinusoid_curves(P, slices=(9,))


def test_position_heatmap_shows_the_table():
    P = REF02.sinusoidal_positions(64, 32)
    fig = positions.plot_position_heatmap(P)
    _labels_present(fig)
    assert np.array_equal(fig.axes[0].images[0].get_array(), P)
    plt.close(fig)
    with pytest.raises(ValueError):
        positions.plot_position_heatmap(np.zeros(3))


def test_offset_similarity_depends_only_on_the_offset():
    P = REF02.sinusoidal_positions(128, 32)
    sims = positions.offset_similarity(P, starts=(0, 10, 30), max_offset=60)
    assert sims.shape == (3, 61)
    assert np.allclose(sims, sims[0])
    assert np.isclose(sims[0, 0], 16.0)
    fig = positions.plot_offset_similarity(P, starts=(0, 10, 30), max_offset=60)
    _labels_present(fig)
    assert len(fig.axes[0].get_lines()) == 3
    plt.close(fig)
    with pytest.raises(ValueError, match="rows"):
        positions.offset_similarity(P, starts=(100,), max_offset=60)


# ---------------------------------------------------------------------------------------
# notebook 02: the checks accept the reference and reject what they should
# ---------------------------------------------------------------------------------------
def _validated(function, validate):
    def wrapped(*args):
        validate(*args)
        return function(*args)

    wrapped.__name__ = function.__name__
    return wrapped


def _even_width(_, d):
    if d <= 0 or d % 2:
        raise ValueError(f"d must be positive and even; got d={d}")


def _embed_shapes(token_ids, E, P):
    if len(token_ids) > P.shape[0] or E.shape[1] != P.shape[1]:
        raise ValueError(f"E {E.shape}, P {P.shape}, token_ids {np.shape(token_ids)}")


def test_nb02_checks_pass_the_reference_with_hidden_tests(capsys):
    check_sinusoidal_positions(_validated(REF02.sinusoidal_positions, _even_width),
                               reference=REF02.sinusoidal_positions)
    check_embed(_validated(REF02.embed, _embed_shapes), reference=REF02.embed)
    check_shift_matrix(_validated(REF02.shift_matrix, _even_width),
                       reference=REF02.shift_matrix)
    out = capsys.readouterr().out
    for name in ("sinusoidal_positions", "embed", "shift_matrix"):
        assert f"✓ {name} passed" in out


def test_nb02_stored_values_agree_with_the_reference():
    from attnbook.checks import nb02

    assert np.allclose(nb02.STORED_P_6_4, REF02.sinusoidal_positions(6, 4), atol=1e-10)
    assert np.allclose(nb02.STORED_P_4_8, REF02.sinusoidal_positions(4, 8), atol=1e-10)
    assert np.allclose(nb02.STORED_SHIFT_1_4, REF02.shift_matrix(1, 4), atol=1e-10)


def test_sinusoid_check_names_the_swapped_mistake():
    def swapped(L, d):
        _even_width(L, d)
        P = REF02.sinusoidal_positions(L, d)
        return P.reshape(L, d // 2, 2)[..., ::-1].reshape(L, d)

    with pytest.raises(CheckFailure, match="sin and cos swapped"):
        check_sinusoidal_positions(swapped)


def test_reference_shift_matrix_moves_every_position():
    P = REF02.sinusoidal_positions(40, 12)
    for k in (-7, 0, 1, 5):
        M = REF02.shift_matrix(k, 12)
        lo, hi = max(0, -k), 40 - max(0, k)
        assert np.allclose(P[lo:hi] @ M.T, P[lo + k:hi + k])
