"""Notebook 01's reference, checks, figures and widget, against worked values and torch."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import displayed_widget, solution_functions

from attnbook.checks import CheckFailure, check_softmax_rows
from attnbook.checks._core import CheckRun
from attnbook.examples import (
    WORKED_K,
    WORKED_Q,
    WORKED_QK,
    WORKED_TOKENS,
    WORKED_W_Q,
    WORKED_X,
)
from attnbook.grading import load_reference
from attnbook.ops import torch_attend, torch_softmax
from attnbook.plots import (
    plot_heatmap,
    plot_score_variance,
    score_entry_markdown,
    score_variance_experiment,
)
from attnbook.shapes import require_same_size
from attnbook.widgets import softmax_temperature_widget

ref = load_reference("01_attention_scores")


def test_worked_example_tables_agree_with_their_definitions():
    Q, K, V = ref.project_qkv(WORKED_X, WORKED_W_Q, *[np.eye(3)] * 2)
    assert np.array_equal(Q, WORKED_Q)
    assert not np.array_equal(WORKED_X @ WORKED_W_Q, WORKED_Q), "the example must tell X@W apart"
    assert WORKED_QK[1, 2] == 2.0  # query 2, key 3 of the decks: 0*1 + 2*1 + 0*0


def test_reference_softmax_matches_torch_with_any_leading_axes():
    S = np.random.default_rng(0).standard_normal((2, 3, 4, 5)) * 30
    assert np.allclose(ref.softmax_rows(S), torch.softmax(torch.tensor(S), dim=-1).numpy())


def test_reference_softmax_edge_cases():
    S = np.array([[1000.0, 1000.0], [-np.inf, -np.inf], [0.0, -np.inf]])
    A = ref.softmax_rows(S)
    assert np.array_equal(A, [[0.5, 0.5], [0.0, 0.0], [1.0, 0.0]])


def test_reference_attention_matches_torch_sdpa():
    rng = np.random.default_rng(1)
    Q, K, V = rng.standard_normal((3, 4)), rng.standard_normal((5, 4)), rng.standard_normal((5, 2))
    Y, A = ref.attention(Q, K, V)
    Y_t = torch.nn.functional.scaled_dot_product_attention(
        torch.tensor(Q), torch.tensor(K), torch.tensor(V)
    )
    assert np.allclose(Y, Y_t.numpy())
    assert np.allclose(A.sum(axis=-1), 1.0)


def test_torch_attend_gives_zero_rows_for_fully_masked_queries():
    rng = np.random.default_rng(2)
    Q, K, V = rng.standard_normal((2, 3)), rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    allowed = np.array([[True, False], [False, False]])
    Y, A = torch_attend(Q, K, V, allowed)
    assert np.array_equal(A[1], [0.0, 0.0]) and np.array_equal(Y[1], [0.0, 0.0, 0.0])
    assert A[0, 0] == pytest.approx(1.0)


def test_attention_is_permutation_equivariant():
    rng = np.random.default_rng(3)
    Q, K, V = (rng.standard_normal((5, 4)) for _ in range(3))
    perm = rng.permutation(5)
    Y, _ = ref.attention(Q, K, V)
    Y_perm, _ = ref.attention(Q[perm], K[perm], V[perm])
    assert np.allclose(Y_perm, Y[perm])


def test_failure_message_names_call_expected_seen_and_mistake():
    def softmax_rows(S):
        e = np.exp(S - S.max(axis=0, keepdims=True))
        return e / e.sum(axis=0, keepdims=True)

    with pytest.raises(CheckFailure) as info:
        check_softmax_rows(softmax_rows)
    message = str(info.value)
    for fragment in ("softmax_rows(S)", "expected", "seen", "wrong axis", "Hint"):
        assert fragment in message


def test_check_reports_an_exception_from_the_student_as_a_failure():
    def softmax_rows(S):
        return S["oops"]

    with pytest.raises(CheckFailure, match="raised IndexError"):
        check_softmax_rows(softmax_rows)


def test_check_lets_not_implemented_through():
    def softmax_rows(S):
        raise NotImplementedError()

    with pytest.raises(NotImplementedError):
        check_softmax_rows(softmax_rows)


def test_check_rejects_something_that_is_not_a_function():
    with pytest.raises(CheckFailure, match="Pass the function itself"):
        CheckRun(np.ones(3))


def test_pass_message_uses_the_function_name(capsys):
    check_softmax_rows(ref.softmax_rows)
    assert "✓ softmax_rows passed" in capsys.readouterr().out


def test_shape_error_names_both_arguments_and_shapes():
    with pytest.raises(ValueError, match=r"Q and K .*\(4, 3\).*\(4, 2\)"):
        require_same_size("Q", np.ones((4, 3)), -1, "K", np.ones((4, 2)), -1, "d_k")


def test_score_variance_grows_with_d_k_and_scaling_removes_it():
    result = score_variance_experiment(d_ks=(4, 64), n_pairs=3000, seed=0)
    assert result["raw_var"][0] == pytest.approx(4, rel=0.15)
    assert result["raw_var"][1] == pytest.approx(64, rel=0.15)
    assert np.allclose(result["scaled_var"], 1.0, rtol=0.15)
    assert result["raw_peak"][1] > result["scaled_peak"][1] + 0.3


def test_figures_are_labelled():
    fig = plot_score_variance(score_variance_experiment(d_ks=(2, 8), n_pairs=200))
    for ax in fig.axes:
        assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title()
    fig = plot_heatmap(np.eye(3), "weights", ["a", "b", "c"], ["a", "b", "c"])
    ax = fig.axes[0]
    assert ax.get_title() == "weights" and ax.get_xlabel() and ax.get_ylabel()


def test_a_heatmap_is_readable_at_a_notebooks_width():
    """A 4 x 4 heatmap is at least 550 px wide, and each number contrasts with its cell:
    black on light cells, white on dark ones (by the cell colour's luminance)."""
    import matplotlib.pyplot as plt

    M = np.array([[0.05, 0.9, 0.3, 0.6]] * 4)
    fig = plot_heatmap(M, "weights", vmin=0, vmax=1)
    assert fig.get_size_inches()[0] * fig.dpi >= 550
    image = fig.axes[0].images[0]
    for text in fig.axes[0].texts:
        r, g, b, _ = image.cmap(image.norm(float(text.get_text())))
        light = 0.299 * r + 0.587 * g + 0.114 * b > 0.5
        assert text.get_color() == ("black" if light else "white"), text.get_text()
    assert {t.get_color() for t in fig.axes[0].texts} == {"black", "white"}
    plt.close(fig)


def test_widget_descriptions_are_shown_in_full():
    from attnbook.widgets import softmax_temperature_widget

    widget = softmax_temperature_widget()
    assert widget.temperature.style.description_width == "initial"


def test_score_entry_is_written_as_its_sum_of_products():
    text = score_entry_markdown(WORKED_Q, WORKED_K, i=1, j=2)
    # query 2 = (0, 2, 0), key 3 = (1, 1, 0): 0*1 + 2*1 + 0*0 = 2
    assert "s_{23}" in text and "(0)(1) + (2)(1) + (0)(0)" in text
    assert "\\frac{2}{\\sqrt{3}}" in text


def _shown_weights(widget):
    import re

    return np.array([float(v) for v in re.findall(r'data-value="([0-9.]+)"', widget.display.value)])


def test_softmax_widget_shows_softmax_and_reacts_to_temperature():
    widget = softmax_temperature_widget(scores=[2.0, 1.0, 0.0], labels=["a", "b", "c"])
    shown = _shown_weights(widget)
    assert np.allclose(shown, torch_softmax(np.array([2.0, 1.0, 0.0])), atol=1e-6)
    widget.temperature.value = 0.05
    sharp = _shown_weights(widget)
    assert sharp[0] > 0.99, "a low temperature should pile the weight onto the top score"
    widget.temperature.value = 10.0
    flat = _shown_weights(widget)
    assert flat.max() - flat.min() < 0.1, "a high temperature should flatten the weights"
    widget.score_sliders[2].value = 5.0
    assert _shown_weights(widget).argmax() == 2
    assert "temperature" in widget.temperature.description


def _title(widget) -> str:
    import re

    return re.search(r"<b>(.*?)</b>", widget.display.value).group(1)


def test_notebook_temperature_widget_is_one_hot_at_low_temperature():
    """The widget notebook 01 shows: a row of the worked example whose top score is unique, so
    the lowest temperature gives a one-hot row, and x10 scores (T = 0.1, the concept
    question) nearly one."""
    widget = displayed_widget("01_attention_scores", "softmax_temperature_widget")
    assert [s.description for s in widget.score_sliders] == [f"s({w})" for w in WORKED_TOKENS]
    scores = widget.scores()
    assert np.allclose(scores, WORKED_QK[2] / np.sqrt(3.0)), "the row of the query 'picked'"
    assert (scores == scores.max()).sum() == 1, "the default row must have a unique maximum"
    assert np.allclose(_shown_weights(widget), torch_softmax(scores), atol=1e-3)
    assert "largest score: cup" in _title(widget)
    widget.temperature.value = 10**widget.temperature.min
    assert np.allclose(_shown_weights(widget), [0.0, 0.0, 0.0, 1.0]), "one-hot on 'cup'"
    widget.temperature.value = 0.1
    assert _shown_weights(widget)[3] > 0.999
    widget.temperature.value = 10**widget.temperature.max
    flat = _shown_weights(widget)
    assert flat.max() - flat.min() < 0.1, "a high temperature flattens the row"


def test_temperature_widget_names_a_tie_and_splits_the_weight():
    """Query 'robot' ties 'the' and 'cup': no temperature makes that row one-hot."""
    widget = softmax_temperature_widget(scores=WORKED_QK[1] / np.sqrt(3.0), labels=WORKED_TOKENS)
    assert widget.top_keys() == ["the", "cup"]
    widget.temperature.value = 10**widget.temperature.min
    assert np.allclose(_shown_weights(widget), [0.5, 0.0, 0.0, 0.5])
    assert "shared by the, cup" in _title(widget)


def test_widget_rejects_mismatched_labels():
    with pytest.raises(ValueError, match="scores and labels"):
        softmax_temperature_widget(scores=[1.0, 2.0], labels=["a"])


# ---------------------------------------------------------------------------------------
# adversarial review: the solution's graded functions on edge cases, against torch, and
# the checks naming mistakes that the catalogue does not hold
# ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sol01():
    return solution_functions("01_attention_scores")


@pytest.mark.parametrize(
    ("L_q", "L_k", "d_k", "d_v"), [(1, 1, 1, 1), (1, 4, 2, 3), (5, 1, 2, 2), (3, 3, 1, 7)]
)
def test_solution_attention_matches_torch_on_small_shapes(sol01, L_q, L_k, d_k, d_v):
    rng = np.random.default_rng(L_q * 100 + L_k * 10 + d_k)
    Q = 20 * rng.standard_normal((L_q, d_k))
    K, V = rng.standard_normal((L_k, d_k)), rng.standard_normal((L_k, d_v))
    S = sol01["score_matrix"](Q, K)
    assert np.allclose(S, Q @ K.T / np.sqrt(d_k))
    Y, A = sol01["attention"](Q, K, V)
    Y_t = torch.nn.functional.scaled_dot_product_attention(
        torch.tensor(Q), torch.tensor(K), torch.tensor(V)
    )
    assert Y.shape == (L_q, d_v) and A.shape == (L_q, L_k)
    assert np.allclose(Y, Y_t.numpy()) and np.allclose(A.sum(axis=-1), 1.0)


def test_solution_functions_take_lists_ints_and_float32_and_return_float64(sol01):
    X, W = [[1, 2, 3], [0, 1, 0]], [[1, 0, 0], [0, 1, 1]]
    for out in sol01["project_qkv"](X, W, W, np.float32(W)):
        assert out.dtype == np.float64
        assert np.array_equal(out, np.array(X) @ np.array(W).T)
    assert sol01["score_matrix"]([[1.0, 1.0]], [[2.0, 0.0]]).tolist() == [[2 / np.sqrt(2)]]
    Y, A = sol01["attention"]([[0.0]], [[0.0], [0.0]], [[1], [3]])
    assert Y.dtype == np.float64 and np.allclose(Y, [[2.0]]) and np.allclose(A, [[0.5, 0.5]])
    A = sol01["softmax_rows"]([[1, 1], [-np.inf, -np.inf]])
    assert A.tolist() == [[0.5, 0.5], [0.0, 0.0]]


@pytest.mark.parametrize(
    "S",
    [
        np.array([5.0]),
        np.array([-np.inf]),
        np.array([[3.0]]),
        np.full((2, 3, 4), -np.inf),
        np.array([[-800.0, 0.0, 800.0]]),
        np.zeros((0, 4)),
        1e-300 * np.ones((2, 3)),
        np.random.default_rng(3).standard_normal((2, 1, 3, 4)).astype(np.float32),
    ],
)
def test_solution_softmax_rows_edge_cases_match_torch(sol01, S):
    before = S.copy()
    A = sol01["softmax_rows"](S)
    expected = torch.nan_to_num(torch.softmax(torch.tensor(S, dtype=torch.float64), -1), nan=0.0)
    assert A.dtype == np.float64 and A.shape == S.shape and np.all(np.isfinite(A))
    assert np.allclose(A, expected.numpy(), rtol=1e-12, atol=0.0)
    assert np.array_equal(S, before)


@pytest.mark.parametrize(
    ("call", "pattern"),
    [
        (
            lambda f: f["project_qkv"](
                np.ones((2, 3)), np.ones((2, 3)), np.ones((4, 3)), np.ones((1, 3))
            ),
            r"W_Q.*\(2, 3\).*W_K.*\(4, 3\)",
        ),
        (
            lambda f: f["project_qkv"](
                np.ones(3), np.ones((2, 3)), np.ones((2, 3)), np.ones((1, 3))
            ),
            r"X.*\(3,\)",
        ),
        (lambda f: f["score_matrix"](np.ones((2, 3)), np.ones((2, 4))), r"\(2, 3\).*\(2, 4\)"),
        (lambda f: f["attention"](np.ones((2, 3)), np.ones((2, 3)), np.ones(2)), r"V.*\(2,\)"),
        (lambda f: f["attention"](np.ones((2, 3)), np.ones(3), np.ones((1, 2))), r"K.*\(3,\)"),
        (
            lambda f: f["attention"](np.ones((2, 3)), np.ones((2, 3)), np.ones((3, 2))),
            r"K.*\(2, 3\).*V.*\(3, 2\)",
        ),
    ],
)
def test_solution_rejects_bad_shapes_with_a_value_error_naming_them(sol01, call, pattern):
    with pytest.raises(ValueError, match=pattern):
        call(sol01)


@pytest.mark.parametrize(
    ("student", "check", "name"),
    [
        (
            lambda S: (lambda e: e / e.sum(-1, keepdims=True))(
                np.exp(
                    S
                    - np.where(np.isfinite(S.min(-1, keepdims=True)), S.min(-1, keepdims=True), 0.0)
                )
            ),
            "check_softmax_rows",
            "MAXIMUM",
        ),
        (lambda Q, K: Q @ K.T / Q.shape[-1] ** 1 / 2, "check_score_matrix", "binds tighter"),
        (
            lambda Q, K, V: (lambda A: (A @ V, Q @ K.T / np.sqrt(Q.shape[-1])))(
                ref.softmax_rows(Q @ K.T / np.sqrt(Q.shape[-1]))
            ),
            "check_attention",
            "not the scores",
        ),
        (
            lambda Q, K, V: (lambda A: (A @ K, A))(
                ref.softmax_rows(Q @ K.T / np.sqrt(Q.shape[-1]))
            ),
            "check_attention",
            "keys used as values",
        ),
    ],
)
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_checks_name_mistakes_found_in_review(student, check, name):
    import attnbook.checks as checks

    with pytest.raises(CheckFailure, match=name):
        getattr(checks, check)(student)


def test_float32_answers_are_judged_at_float32_precision_but_mistakes_still_fail():
    from attnbook.checks import check_attention, check_score_matrix

    def scores32(Q, K):  # right, but computed in float32
        require_same_size("Q", np.asarray(Q), -1, "K", np.asarray(K), -1, "d_k")
        return (
            np.asarray(Q, np.float32)
            @ np.asarray(K, np.float32).T
            / np.float32(np.sqrt(np.shape(Q)[-1]))
        )

    def attention32(Q, K, V):
        require_same_size("K", np.asarray(K), -2, "V", np.asarray(V), -2, "L_k")
        q, k, v = (torch.Tensor(np.asarray(t)) for t in (Q, K, V))
        A = torch.softmax(q @ k.T / q.shape[-1] ** 0.5, dim=-1)
        return A @ v, A

    check_score_matrix(scores32, reference=ref.score_matrix)
    check_attention(attention32, reference=ref.attention)

    with pytest.raises(CheckFailure, match="no 1/sqrt"):
        check_score_matrix(lambda Q, K: scores32(Q, K) * np.float32(np.sqrt(np.shape(Q)[-1])))
    # Notebook 01's case tables accept float32 precision from every answer (the docstrings ask
    # for the mathematics, not a dtype: attnbook.checks._cases.case_tolerance); an error
    # beyond it is an error, float64 or not.
    with pytest.raises(CheckFailure):
        check_score_matrix(lambda Q, K: ref.score_matrix(Q, K) * (1 + 1e-4))
    check_score_matrix(lambda Q, K: ref.score_matrix(Q, K) * (1 + 1e-7))
