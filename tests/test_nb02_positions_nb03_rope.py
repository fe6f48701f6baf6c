"""Notebooks 02 and 03: the demo modules attnbook.demos.nb02 and nb03, the checks against the
references, the widget driven through its controls, and the half-split permutation."""

from __future__ import annotations

import importlib
import pkgutil

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from conftest import displayed_widget, solution_functions  # noqa: E402

import attnbook  # noqa: E402
from attnbook.checks import (  # noqa: E402
    CheckFailure,
    check_embed,
    check_shift_matrix,
    check_sinusoidal_positions,
)
from attnbook.demos import nb02, nb03  # noqa: E402
from attnbook.grading import load_reference  # noqa: E402

REF02 = load_reference("02_positions")
GRADED = (
    "sinusoidal_positions",
    "embed",
    "shift_matrix",
    "rotation_2d",
    "rope_frequencies",
    "apply_rope",
)


def _labels_present(fig):
    for ax in fig.axes:
        if not ax.axison or ax.get_label() == "<colorbar>":
            continue
        assert ax.get_xlabel() and ax.get_ylabel(), "every plotting axis needs both labels"
        assert ax.get_title(), "every plotting axis needs a title"


def test_package_defines_no_graded_name_of_notebooks_02_and_03():
    modules = [attnbook] + [
        importlib.import_module(f"attnbook.{m.name}")
        for m in pkgutil.walk_packages(attnbook.__path__)
        if not m.name.startswith("_")
    ]
    for module in modules:
        for name in GRADED:
            assert not hasattr(module, name), f"{module.__name__} defines {name}"


# ---------------------------------------------------------------------------------------
# notebook 02: demo data and figures
# ---------------------------------------------------------------------------------------
def test_order_demo_is_seeded_and_covers_every_demo_word():
    a, b = nb02.order_demo(d=8, seed=0), nb02.order_demo(d=8, seed=0)
    assert np.array_equal(a.E, b.E) and np.array_equal(a.W_Q, b.W_Q)
    assert a.E.shape == (len(a.vocab), 8) and a.W_V.shape == (8, 8)
    for words in nb02.DEMO_SENTENCES.values():
        ids = a.ids(words)
        assert [a.vocab[i] for i in ids] == words
    assert not np.array_equal(nb02.order_demo(seed=1).E, a.E)
    with pytest.raises(KeyError, match="cat"):
        a.ids(["cat"])


def test_order_demo_reproduces_the_bag_of_words_problem_and_its_fix():
    from attnbook.ops import torch_attend

    demo = nb02.order_demo()

    def attend(X):
        return torch_attend(X @ demo.W_Q.T, X @ demo.W_K.T, X @ demo.W_V.T)[0]

    P = REF02.sinusoidal_positions(16, 8)
    dog, man = nb02.DEMO_SENTENCES["dog_bites_man"], nb02.DEMO_SENTENCES["man_bites_dog"]
    assert np.allclose(attend(demo.E[demo.ids(dog)])[-1], attend(demo.E[demo.ids(man)])[-1])
    with_positions = [attend(REF02.embed(demo.ids(s), demo.E, P))[-1] for s in (dog, man)]
    assert not np.allclose(*with_positions)


def test_sinusoid_curves_figure_prints_the_sliced_vectors():
    P = REF02.sinusoidal_positions(8, 4)
    fig = nb02.plot_sinusoid_curves(P, slices=(0, 2, 5))
    _labels_present(fig)
    curves = fig.axes[0].get_lines()
    assert sum(1 for line in curves if line.get_label().startswith("feature")) == 4
    text = " ".join(t.get_text() for t in fig.axes[1].texts)
    assert "p_2 = [+0.909, -0.416, +0.020, +1.000]" in text
    plt.close(fig)
    with pytest.raises(ValueError, match="slices"):
        nb02.plot_sinusoid_curves(P, slices=(9,))


def test_position_heatmap_shows_the_table():
    P = REF02.sinusoidal_positions(64, 32)
    fig = nb02.plot_position_heatmap(P)
    _labels_present(fig)
    assert np.array_equal(fig.axes[0].images[0].get_array(), P)
    plt.close(fig)
    with pytest.raises(ValueError):
        nb02.plot_position_heatmap(np.zeros(3))


def test_offset_similarity_depends_only_on_the_offset():
    P = REF02.sinusoidal_positions(128, 32)
    sims = nb02.offset_similarity(P, starts=(0, 10, 30), max_offset=60)
    assert sims.shape == (3, 61)
    assert np.allclose(sims, sims[0])
    assert np.isclose(sims[0, 0], 16.0)
    fig = nb02.plot_offset_similarity(P, starts=(0, 10, 30), max_offset=60)
    _labels_present(fig)
    assert len(fig.axes[0].get_lines()) == 3
    plt.close(fig)
    with pytest.raises(ValueError, match="rows"):
        nb02.offset_similarity(P, starts=(100,), max_offset=60)


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
    check_sinusoidal_positions(
        _validated(REF02.sinusoidal_positions, _even_width), reference=REF02.sinusoidal_positions
    )
    check_embed(_validated(REF02.embed, _embed_shapes), reference=REF02.embed)
    check_shift_matrix(_validated(REF02.shift_matrix, _even_width), reference=REF02.shift_matrix)
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
        assert np.allclose(P[lo:hi] @ M.T, P[lo + k : hi + k])


# ---------------------------------------------------------------------------------------
# notebook 03: figure, widget, checks, the half-split permutation
# ---------------------------------------------------------------------------------------
REF03 = load_reference("03_rope")


def test_rope_angle_plot_has_one_curve_per_pair_and_breaks_at_full_turns():
    theta = REF03.rope_frequencies(16, 10000.0)
    fig = nb03.plot_rope_angles(theta, L=64)
    _labels_present(fig)
    lines = fig.axes[0].get_lines()
    assert len(lines) == 8
    y = lines[0].get_ydata()
    assert np.isnan(y).any(), "pair 0 wraps around and its curve should break there"
    assert np.nanmax(y) < 360.0 and np.nanmin(y) >= 0.0
    plt.close(fig)
    with pytest.raises(ValueError):
        nb03.plot_rope_angles(np.zeros((2, 2)))


def _shown(widget) -> dict:
    """The data attributes of what the widget displays now."""
    import re

    return dict(re.findall(r'data-([a-z-]+)="([^"]*)"', widget.display.value))


def _assert_example_figure(widget):
    """The worked example: a pair turning 30 degrees per position, query and key at 1 and 3
    (faded), both moved one step to 2 and 4 (solid), the difference 60 degrees throughout."""
    shown = _shown(widget)
    assert shown["pair"] == nb03.EXAMPLE_PAIR
    assert float(shown["theta"]) == pytest.approx(np.pi / 6)
    assert (shown["query-position"], shown["key-position"]) == ("2", "4")
    assert float(shown["query-angle"]) == pytest.approx(60.0)
    assert float(shown["key-angle"]) == pytest.approx(120.0)
    assert float(shown["difference"]) == pytest.approx(60.0)
    assert float(shown["score"]) == pytest.approx(0.5)
    assert "stroke-dasharray" in widget.display.value, "the arrows at 1 and 3 are drawn faded"
    assert (
        "query at 1 turned 30.0&deg;, key at 3 turned 90.0&deg;, difference 60.0&deg;"
        in widget.display.value
    )
    widget.shift.value = 0
    shown = _shown(widget)
    assert (shown["query-position"], shown["key-position"]) == ("1", "3")
    assert float(shown["query-angle"]) == pytest.approx(30.0)
    assert float(shown["key-angle"]) == pytest.approx(90.0)
    assert float(shown["difference"]) == pytest.approx(60.0)
    assert "stroke-dasharray" not in widget.display.value


def test_angle_explorer_opens_on_the_30_degree_example():
    _assert_example_figure(nb03.rope_angle_widget())


def test_notebook_angle_explorer_opens_on_the_30_degree_example():
    """The explorer notebook 03 displays, built by its own cell with the learner's
    frequencies, starts on the 30-degree example and offers the pairs of d_k = 8 after it."""
    widget = displayed_widget("03_rope", "rope_angle_widget")
    assert [value for _, value in widget.pair.options] == [nb03.EXAMPLE_PAIR, 0, 1, 2, 3]
    _assert_example_figure(widget)


def test_angle_explorer_follows_its_controls():
    theta = REF03.rope_frequencies(8, 10000.0)
    widget = nb03.rope_angle_widget(frequencies=theta, query_position=1, key_position=3, shift=0)
    assert [value for _, value in widget.pair.options] == [nb03.EXAMPLE_PAIR, 0, 1, 2, 3]
    widget.pair.value = 1
    widget.key_position.value = 6
    shown = _shown(widget)
    assert shown["pair"] == "1"
    assert float(shown["theta"]) == pytest.approx(theta[1])
    assert float(shown["difference"]) == pytest.approx(np.degrees(5 * theta[1]))
    assert float(shown["score"]) == pytest.approx(np.cos(5 * theta[1]))
    for shift in (0, 3, 9):
        widget.shift.value = shift
        assert widget.difference() == pytest.approx(5 * theta[1])
    widget.query_position.value = 4
    assert widget.difference() == pytest.approx(2 * theta[1])
    only_pairs = nb03.rope_angle_widget(frequencies=theta, example_pair=False)
    assert only_pairs.pair.value == 0 and only_pairs.theta() == pytest.approx(theta[0])
    assert nb03.rope_angle_widget().pair.disabled, "one choice only: nothing to pick"
    with pytest.raises(ValueError):
        nb03.rope_angle_widget(frequencies=[], example_pair=False)


def _rope_validated():
    def rotation_2d(a):
        a = np.asarray(a)
        if a.dtype.kind not in "biuf":
            raise ValueError(f"a must hold real angles in radians; got {a!r}")
        return REF03.rotation_2d(a)

    def rope_frequencies(d_k, base=10000.0):
        if d_k <= 0 or d_k % 2:
            raise ValueError(f"d_k must be positive and even; got d_k={d_k}")
        return REF03.rope_frequencies(d_k, base)

    def apply_rope(X, positions, base=10000.0):
        X, positions = np.asarray(X, dtype=float), np.asarray(positions)
        if X.shape[-2] != len(positions) or X.shape[-1] % 2:
            raise ValueError(f"X {X.shape}, positions {positions.shape}")
        return REF03.apply_rope(X, positions, base)

    return rotation_2d, rope_frequencies, apply_rope


def test_nb03_checks_pass_the_reference_with_hidden_tests(capsys):
    from attnbook.checks import check_apply_rope, check_rope_frequencies, check_rotation_2d

    rotation_2d, rope_frequencies, apply_rope = _rope_validated()
    check_rotation_2d(rotation_2d, reference=REF03.rotation_2d)
    check_rope_frequencies(rope_frequencies, reference=REF03.rope_frequencies)
    check_apply_rope(apply_rope, reference=REF03.apply_rope)
    out = capsys.readouterr().out
    for name in ("rotation_2d", "rope_frequencies", "apply_rope"):
        assert f"✓ {name} passed" in out


def test_nb03_stored_values_agree_with_the_reference():
    from attnbook.checks import nb03

    assert np.allclose(nb03.STORED_R_30_DEGREES, REF03.rotation_2d(np.pi / 6), atol=1e-10)
    assert np.allclose(nb03.STORED_THETA_6, REF03.rope_frequencies(6), atol=1e-10)
    assert np.allclose(
        nb03.STORED_ROPE_Y, REF03.apply_rope(nb03.WORKED_ROPE_X, [0, 1, 2], 100.0), atol=1e-10
    )
    shuffled = next(case for case in nb03.ROPE_CASES if case.id == "positions")
    assert np.allclose(nb03.STORED_ROPE_SHUFFLED, REF03.apply_rope(*shuffled.args), atol=1e-10)


def test_rope_check_names_the_half_split_mistake():
    from attnbook.checks import check_apply_rope

    def apply_rope(X, positions_, base=10000.0):
        return _half_split_rope(np.asarray(X, dtype=float), positions_, base)

    with pytest.raises(CheckFailure, match="half-split pairing"):
        check_apply_rope(apply_rope)


def _half_split_rope(X, positions_, base=10000.0):
    """RoPE as libraries with the half-split layout write it: pair i is (i, i + d_k/2)."""
    half = X.shape[-1] // 2
    angles = np.asarray(positions_, dtype=float)[:, None] * REF03.rope_frequencies(2 * half, base)
    c, s = np.cos(angles), np.sin(angles)
    first, second = X[..., :half], X[..., half:]
    return np.concatenate([first * c - second * s, first * s + second * c], axis=-1)


@pytest.mark.parametrize("d_k", [2, 4, 8, 64])
def test_half_split_is_the_same_rotation_under_a_fixed_permutation(d_k):
    rng = np.random.default_rng(d_k)
    X = rng.standard_normal((2, 3, 7, d_k))
    pos = rng.integers(0, 1000, size=7)
    order = nb03.half_split_order(d_k)
    assert sorted(order) == list(range(d_k))
    assert np.allclose(_half_split_rope(X[..., order], pos), REF03.apply_rope(X, pos)[..., order])
    if d_k > 2:  # without the reordering the two layouts disagree
        assert not np.allclose(_half_split_rope(X, pos), REF03.apply_rope(X, pos))
    # Scores are unchanged by the reordering, so both layouts give the same attention.
    q, k = X[0, 0], X[1, 2]
    ours = REF03.apply_rope(q, pos) @ REF03.apply_rope(k, pos).T
    theirs = _half_split_rope(q[..., order], pos) @ _half_split_rope(k[..., order], pos).T
    assert np.allclose(ours, theirs)


def test_half_split_order_rejects_odd_widths():
    with pytest.raises(ValueError, match="5"):
        nb03.half_split_order(5)


def test_reference_rope_scores_depend_only_on_the_offset():
    rng = np.random.default_rng(7)
    q, k = rng.standard_normal((2, 1, 16))
    scores = [
        (REF03.apply_rope(q, [l]) @ REF03.apply_rope(k, [l + 4]).T).item() for l in (0, 3, 50, 9999)
    ]
    assert np.allclose(scores, scores[0])


def test_reference_rope_matches_the_package_decoder_rotation():
    """The decoder's rotate_pairs (torch, used from notebook 06 on) follows the same
    convention as the notebook: consecutive pairs, theta_i = base^(-2i/d_k)."""
    import torch

    from attnbook.lm.model import rope_tables, rotate_pairs

    rng = np.random.default_rng(8)
    X = rng.standard_normal((2, 5, 8))
    cos, sin = rope_tables(5, 8, 10000.0)
    ours = rotate_pairs(torch.as_tensor(X), cos.double(), sin.double()).numpy()
    assert np.allclose(ours, REF03.apply_rope(X, np.arange(5)), atol=1e-6)


@pytest.mark.parametrize("d", [6, 5])
def test_the_package_sinusoid_table_has_the_width_it_is_asked_for(d):
    """Odd widths too (one used to give a (4, 6) table): every column follows the formula."""
    from attnbook.lm.model import sinusoid_table

    table = sinusoid_table(4, d).numpy()
    assert table.shape == (4, d)
    for l in range(4):
        for j in range(d):
            angle = l * 10000.0 ** (-(j - j % 2) / d)
            assert table[l, j] == pytest.approx(np.sin(angle) if j % 2 == 0 else np.cos(angle))


# ---------------------------------------------------------------------------------------
# notebook 03 (adversarial review): the solution's graded functions on edge cases,
# against an independent loop implementation
# ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sol03():
    return solution_functions("03_rope")


def _loop_rope(X, pos, base):
    X = np.asarray(X, dtype=np.float64)
    d_k, out = X.shape[-1], np.zeros_like(np.asarray(X, dtype=np.float64))
    for idx in np.ndindex(*X.shape[:-2]):
        for l, p in enumerate(pos):
            for i in range(d_k // 2):
                a = float(p) * float(base) ** (-2 * i / d_k)
                x0, x1 = X[(*idx, l, 2 * i)], X[(*idx, l, 2 * i + 1)]
                out[(*idx, l, 2 * i)] = np.cos(a) * x0 - np.sin(a) * x1
                out[(*idx, l, 2 * i + 1)] = np.sin(a) * x0 + np.cos(a) * x1
    return out


@pytest.mark.parametrize("angle", [True, np.int8(3), np.float32(0.5), [0.1, -2.0], 1e6])
def test_solution_rotation_2d_is_float64_for_any_real_angle(sol03, angle):
    R = sol03["rotation_2d"](angle)
    a = np.asarray(angle, dtype=np.float64)
    assert R.dtype == np.float64 and R.shape == (*a.shape, 2, 2)
    assert np.allclose(R, REF03.rotation_2d(a), rtol=0, atol=1e-12)


def test_solution_rope_frequencies_edge_cases(sol03):
    assert sol03["rope_frequencies"](2).tolist() == [1.0]
    theta = sol03["rope_frequencies"](np.int64(6), 100)
    assert np.allclose(theta, 100.0 ** (-np.arange(0, 6, 2) / 6))
    for d_k in (0, -2, 3):
        with pytest.raises(ValueError, match=rf"d_k ?= ?{d_k}"):
            sol03["rope_frequencies"](d_k)
    with pytest.raises(ValueError, match="base"):
        sol03["rope_frequencies"](4, 0.0)


@pytest.mark.parametrize(
    ("shape", "pos", "base"),
    [
        ((1, 2), [5], 10000.0),  # one token, d_k = 2, a list
        ((3, 4), np.array([0, 1, 2], dtype=np.int8), 100),  # int base, small int positions
        ((2, 3, 4, 6), np.arange(4), 500.0),  # leading axes
        ((3, 8), [10**6, -7, 2**33], 10000.0),  # large and negative positions
        ((2, 4), [0.5, 2.25], 10000.0),  # fractional positions
    ],
)
def test_solution_apply_rope_matches_a_loop(sol03, shape, pos, base):
    X = np.random.default_rng(len(shape)).standard_normal(shape)
    Y = sol03["apply_rope"](X.astype(np.float32) if len(shape) == 2 else X, pos, base)
    X_used = X.astype(np.float32).astype(np.float64) if len(shape) == 2 else X
    assert Y.dtype == np.float64 and Y.shape == X.shape
    assert np.allclose(Y, _loop_rope(X_used, pos, base), rtol=1e-9, atol=1e-9)
    assert np.allclose(REF03.apply_rope(X_used, pos, base), Y, rtol=1e-12, atol=1e-12)


def test_solution_apply_rope_names_the_bad_argument(sol03):
    with pytest.raises(ValueError, match=r"positions.*\(3,\).*\(2, 4\)"):
        sol03["apply_rope"](np.zeros((2, 4)), [0, 1, 2])
    with pytest.raises(ValueError, match=r"\(2, 3\)"):
        sol03["apply_rope"](np.zeros((2, 3)), [0, 1])
    with pytest.raises(ValueError, match="X"):
        sol03["apply_rope"](np.zeros(4), [0])


# ---------------------------------------------------------------------------------------
# notebook 02 (adversarial review): the solution's graded functions on edge cases, against
# independent loops, and the checks naming mistakes that the catalogue does not hold
# ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sol02():
    return solution_functions("02_positions")


def _loop_table(L, d):
    import math

    return np.array(
        [
            [
                math.sin(l * 10000.0 ** (-(j - j % 2) / d))
                if j % 2 == 0
                else math.cos(l * 10000.0 ** (-(j - j % 2) / d))
                for j in range(d)
            ]
            for l in range(L)
        ]
    ).reshape(L, d)


def _loop_shift(k, d):
    M = np.zeros((d, d))
    for i in range(d // 2):
        a = k * 10000.0 ** (-2 * i / d)
        M[2 * i, 2 * i] = M[2 * i + 1, 2 * i + 1] = np.cos(a)
        M[2 * i, 2 * i + 1], M[2 * i + 1, 2 * i] = np.sin(a), -np.sin(a)
    return M


@pytest.mark.parametrize(
    ("L", "d"), [(0, 4), (1, 2), (3, 2), (7, 10), (np.int64(5), np.int32(8)), (40, 512)]
)
def test_solution_sinusoidal_positions_matches_a_loop(sol02, L, d):
    P = sol02["sinusoidal_positions"](L, d)
    assert P.dtype == np.float64 and P.shape == (L, d)
    assert np.allclose(P, _loop_table(int(L), int(d)), rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    ("k", "d"), [(0, 2), (1, 2), (-3, 6), (7, 10), (10**6, 16), (np.int64(-2), 4)]
)
def test_solution_shift_matrix_matches_a_loop(sol02, k, d):
    M = sol02["shift_matrix"](k, d)
    assert M.dtype == np.float64 and np.allclose(M, _loop_shift(k, d), rtol=0, atol=1e-12)


def test_solution_embed_takes_lists_tensors_and_empty_ids(sol02):
    import torch

    E, P = np.arange(8).reshape(4, 2), np.arange(6, dtype=np.float32).reshape(3, 2) / 4
    X = sol02["embed"]([3, 0], E.tolist(), P)
    assert X.dtype == np.float64 and np.allclose(X, [[6.0, 7.25], [0.5, 1.75]])
    assert np.array_equal(sol02["embed"](torch.tensor([3, 0]), E, P), X)
    assert sol02["embed"]([], E, P).shape == (0, 2)


@pytest.mark.parametrize(
    ("ids", "pattern"),
    [
        ([4], r"token_ids.*0 \.\. 3.*\(4, 2\)"),
        ([-1], r"token_ids.*-1"),
        ([1.0, 2.0], r"token_ids.*float64"),
        ([[1, 2]], r"token_ids.*\(1, 2\)"),
        ([0, 0, 0, 0], r"P.*\(3, 2\).*\(4,\)"),
    ],
)
def test_solution_embed_rejects_bad_ids_with_a_value_error(sol02, ids, pattern):
    with pytest.raises(ValueError, match=pattern):
        sol02["embed"](ids, np.zeros((4, 2)), np.zeros((3, 2)))


def test_embed_check_rejects_an_answer_that_writes_into_P():
    def into_P(token_ids, E, P):
        X = P[: len(token_ids)]
        X += E[token_ids]
        return X

    with pytest.raises(CheckFailure, match="changed its input P in place"):
        check_embed(into_P)


def test_sinusoid_check_names_float32_and_wrong_positions():
    def float32_table(L, d):
        return REF02.sinusoidal_positions(L, d).astype(np.float32)

    def normalised_positions(L, d):
        _even_width(L, d)
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        return np.stack(
            [np.sin(np.arange(L)[:, None] / L * w), np.cos(np.arange(L)[:, None] / L * w)], axis=-1
        ).reshape(L, d)

    with pytest.raises(CheckFailure, match="float64"):
        check_sinusoidal_positions(float32_table)
    with pytest.raises(CheckFailure, match="row l is position l"):
        check_sinusoidal_positions(normalised_positions)


def test_shift_check_diagnoses_block_placement_form_and_angles():
    def overlapping(k, d):
        _even_width(1, d)
        M = np.zeros((d, d))
        for i in range(d // 2):
            a = k * 10000.0 ** (-2 * i / d)
            M[i : i + 2, i : i + 2] = [[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]]
        return M

    def wrong_base(k, d):
        _even_width(1, d)
        return REF02.shift_matrix(k, d) if d != 4 else _loop_shift_base(k, d, 1000.0)

    with pytest.raises(CheckFailure, match="blocks placed at"):
        check_shift_matrix(overlapping)
    with pytest.raises(CheckFailure, match="the blocks turn by the angles"):
        check_shift_matrix(wrong_base)


def _loop_shift_base(k, d, base):
    M = np.zeros((d, d))
    for i in range(d // 2):
        a = k * base ** (-2 * i / d)
        M[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]]
    return M


@pytest.mark.parametrize(
    ("call", "pattern"),
    [
        (("sinusoidal_positions", None, 4), r"L must be a whole number.*got L = None"),
        (("sinusoidal_positions", 2.5, 4), r"L must be a whole number.*got L = 2\.5"),
        (("sinusoidal_positions", 3, 5), r"d must be a positive even number.*d=5"),
        (("sinusoidal_positions", 3, "4"), r"d must be a whole number.*got d = '4'"),
        (("shift_matrix", 1, None), r"d must be a whole number.*got d = None"),
    ],
)
def test_solution_positions_name_a_bad_size(sol02, call, pattern):
    name, *args = call
    with pytest.raises(ValueError, match=pattern):
        sol02[name](*args)


def test_solution_positions_take_whole_floats(sol02):
    assert np.array_equal(sol02["sinusoidal_positions"](3.0, 4.0), _loop_table(3, 4))
