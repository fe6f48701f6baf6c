"""Notebook 01's reference, checks, figures and widget, against worked values and torch."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from grader.catalogue import load_catalogue  # noqa: F401  (puts autograder on the path)

from attnbook.checks import CheckFailure, check_softmax_rows
from attnbook.checks._core import CheckRun
from attnbook.examples import WORKED_K, WORKED_Q, WORKED_QK, WORKED_W_Q, WORKED_X
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
        torch.tensor(Q), torch.tensor(K), torch.tensor(V))
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


def test_score_entry_is_written_as_its_sum_of_products():
    text = score_entry_markdown(WORKED_Q, WORKED_K, i=1, j=2)
    # query 2 = (0, 2, 0), key 3 = (1, 1, 0): 0*1 + 2*1 + 0*0 = 2
    assert "s_{23}" in text and "(0)(1) + (2)(1) + (0)(0)" in text
    assert "\\frac{2}{\\sqrt{3}}" in text


def _shown_weights(widget):
    import re

    return np.array([float(v) for v in re.findall(r'data-value="([0-9.]+)"',
                                                  widget.display.value)])


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


def test_widget_rejects_mismatched_labels():
    with pytest.raises(ValueError, match="scores and labels"):
        softmax_temperature_widget(scores=[1.0, 2.0], labels=["a"])
