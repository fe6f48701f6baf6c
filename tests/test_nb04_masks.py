"""Notebook 04's package helpers and the demonstrations the notebook makes, as tests.

The demonstrations run with the autograder's reference answers (and, where it applies, with
PyTorch's own attention), so each property the notebook shows is also proved here, and a
wrong attention function makes them fail.
"""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest
from conftest import ROOT, solution_functions

matplotlib.use("Agg")

import attnbook.demos.nb04 as masks  # noqa: E402
from attnbook.grading import load_reference  # noqa: E402
from attnbook.ops import torch_attend, torch_softmax  # noqa: E402

REF = load_reference("04_masks")
GRADED = ("causal_mask", "padding_mask", "attention_mask", "masked_attention")


def torch_masked_attention(Q, K, V, allowed):
    return torch_attend(Q, K, V, allowed)


def after_softmax(Q, K, V, allowed):
    """The classic mistake: softmax first, then zero the blocked weights."""
    A = torch_softmax(Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])) * allowed
    return A @ V, A


def test_package_defines_no_graded_name():
    import attnbook.checks.nb04 as checks

    for module in (masks, checks):
        leaked = [name for name in GRADED if hasattr(module, name)]
        assert not leaked, f"{module.__name__} defines graded names {leaked}"


# -- no peeking -------------------------------------------------------------------------
@pytest.mark.parametrize("attend", [REF.masked_attention, torch_masked_attention])
def test_causal_mask_stops_peeking_bit_for_bit(attend):
    L = 7
    for changed in range(1, L):
        result = masks.peeking_experiment(attend, REF.causal_mask(L), L=L, changed=changed)
        assert result["identical"][:changed].all(), f"an earlier row moved (token {changed})"
        assert np.all(result["change"][:changed] == 0.0)
        assert not result["identical"][changed], "the changed token's own output must move"


def test_without_mask_every_output_moves():
    result = masks.peeking_experiment(REF.masked_attention, np.ones((6, 6), dtype=bool))
    assert not result["identical"].any()


# -- padding: Message A and Message B ---------------------------------------------------
def test_message_batch_is_the_decks_batch():
    batch = masks.message_batch()
    assert batch["tokens"] == [
        ["please", "send", "the", "report"],
        ["send", "report", "<PAD>", "<PAD>"],
    ]
    assert batch["X"].shape == (2, 4, 4)
    assert batch["lengths"].tolist() == [4, 2]
    assert np.array_equal(batch["X"][1, 2], batch["X"][1, 3]), "both pads share one vector"


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("attend", [REF.masked_attention, torch_masked_attention])
def test_padded_keys_get_zero_weight_and_real_outputs_match_unpadded(attend, causal):
    batch = masks.message_batch()
    allowed = REF.attention_mask(batch["lengths"], 4, causal)
    alone = REF.causal_mask(2) if causal else np.ones((2, 2), dtype=bool)
    result = masks.padding_experiment(attend, allowed, alone, batch)
    assert result["pad_weight"] == 0.0
    assert result["max_difference"] < 1e-12
    assert result["garbage_difference"] == 0.0, "what the pads hold must not matter"
    # Message A has no padding: it must equal Message A on its own, too.
    result_a = masks.padding_experiment(
        attend,
        allowed,
        REF.causal_mask(4) if causal else np.ones((4, 4), dtype=bool),
        batch,
        message=0,
    )
    assert result_a["max_difference"] < 1e-12


def test_forgetting_the_key_mask_leaks_pads_into_an_encoder():
    batch = masks.message_batch()
    result = masks.padding_experiment(
        REF.masked_attention, np.ones((2, 4, 4), dtype=bool), np.ones((2, 2), dtype=bool), batch
    )
    assert result["pad_weight"] > 0.05
    assert result["max_difference"] > 1e-3
    assert result["garbage_difference"] > 1.0


def test_right_padding_with_causal_mask_hides_pads_from_real_queries():
    """The concept question's answer: the causal mask alone already protects real queries."""
    causal_only = np.broadcast_to(REF.causal_mask(4), (2, 4, 4))
    batch = masks.message_batch()
    result = masks.padding_experiment(REF.masked_attention, causal_only, REF.causal_mask(2), batch)
    assert result["pad_weight"] == 0.0 and result["garbage_difference"] == 0.0


# -- masking after the softmax is wrong -------------------------------------------------
def test_masking_after_the_softmax_breaks_row_sums():
    S = masks.robot_scores()
    allowed = REF.causal_mask(len(masks.ROBOT_TOKENS))
    n = len(S)
    _, A_right = REF.masked_attention(S * np.sqrt(n), np.eye(n), np.eye(n), allowed)
    assert np.allclose(A_right, torch_softmax(np.where(allowed, S, -np.inf)))
    assert np.allclose(A_right.sum(axis=-1), 1.0)
    _, A_wrong = after_softmax(S * np.sqrt(n), np.eye(n), np.eye(n), allowed)
    sums = A_wrong.sum(axis=-1)
    assert np.all(sums[:-1] < 0.95), "every row but the last loses weight"
    assert np.isclose(sums[-1], 1.0), "the last query blocks nothing"


def test_masking_after_the_softmax_even_peeks():
    """The future still sits in the softmax denominator, so earlier outputs move."""
    result_right = masks.peeking_experiment(REF.masked_attention, REF.causal_mask(5), L=5)
    result_wrong = masks.peeking_experiment(after_softmax, REF.causal_mask(5), L=5)
    assert result_right["identical"][:4].all()
    assert not result_wrong["identical"][:4].any()


# -- loss mask --------------------------------------------------------------------------
def test_loss_mask_ignores_padded_targets():
    lengths = np.array([4, 2])
    loss_mask = REF.padding_mask(lengths - 1, 3)
    assert loss_mask.tolist() == [[True, True, True], [True, False, False]]
    losses = np.random.default_rng(0).uniform(0.5, 3.0, size=(2, 3))
    mean = (losses * loss_mask).sum() / loss_mask.sum()
    other = np.where(loss_mask, losses, 1e6)
    assert (other * loss_mask).sum() / loss_mask.sum() == mean
    assert np.isclose(mean, losses[loss_mask].mean())
    assert not np.isclose(mean, losses.mean())


# -- encoder versus decoder -------------------------------------------------------------
def test_bidirectional_versus_causal_masks():
    L = len(masks.ROBOT_TOKENS)
    encoder = REF.attention_mask([L], L, False)[0]
    decoder = REF.attention_mask([L], L, True)[0]
    assert encoder.all()
    assert np.array_equal(decoder, np.tril(np.ones((L, L), dtype=bool)))
    # The encoder's "it" reads "empty", the decoder's cannot.
    it, empty = masks.ROBOT_TOKENS.index("it"), masks.ROBOT_TOKENS.index("empty")
    assert encoder[it, empty] and not decoder[it, empty]


def test_mask_is_not_a_position_signal():
    """Shuffling the tokens before a fixed last query leaves its output unchanged."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((6, 4))
    W_Q, W_K, W_V = (rng.standard_normal((4, 4)) for _ in range(3))
    order = np.array([3, 0, 4, 1, 2, 5])
    Y, _ = REF.masked_attention(X @ W_Q.T, X @ W_K.T, X @ W_V.T, REF.causal_mask(6))
    Xs = X[order]
    Ys, _ = REF.masked_attention(Xs @ W_Q.T, Xs @ W_K.T, Xs @ W_V.T, REF.causal_mask(6))
    assert np.allclose(Y[5], Ys[5])
    assert not np.allclose(Y[order][:5], Ys[:5])


# -- the widget -------------------------------------------------------------------------
def _cells(widget):
    import re

    html = widget.display.value
    return re.findall(r'data-key="([^"]*)" data-weight="([^"]*)" data-allowed="(\w+)"', html)


def test_mask_toggle_widget_renormalises_over_allowed_positions():
    widget = masks.mask_toggle_widget()
    assert widget.query.value == masks.ROBOT_TOKENS.index("it")
    cells = _cells(widget)
    assert [c[0] for c in cells] == masks.ROBOT_TOKENS
    weights = np.array([float(c[1]) for c in cells])
    allowed = np.array([c[2] == "true" for c in cells])
    it = masks.ROBOT_TOKENS.index("it")
    assert allowed.tolist() == [j <= it for j in range(len(cells))]
    assert np.all(weights[~allowed] == 0.0)
    assert np.isclose(weights.sum(), 1.0, atol=1e-5)
    assert masks.ROBOT_TOKENS[int(np.argmax(weights))] == "cup", "the decks' toy row: it -> cup"
    assert "causal mask on" in widget.display.value

    widget.mask_toggle.value = False
    cells = _cells(widget)
    weights_open = np.array([float(c[1]) for c in cells])
    assert all(c[2] == "true" for c in cells)
    assert weights_open[masks.ROBOT_TOKENS.index("empty")] > 0.05, "weight leaks to the future"
    assert np.isclose(weights_open.sum(), 1.0, atol=1e-5)
    assert "causal mask off" in widget.display.value
    # The allowed part is the unmasked row renormalised over the allowed positions.
    assert np.allclose(
        weights[allowed], weights_open[allowed] / weights_open[allowed].sum(), atol=1e-5
    )


def test_mask_toggle_widget_query_picker():
    widget = masks.mask_toggle_widget()
    widget.query.value = 0
    cells = _cells(widget)
    assert [c[2] for c in cells].count("true") == 1
    assert float(cells[0][1]) == pytest.approx(1.0)
    widget.query.value = len(masks.ROBOT_TOKENS) - 1
    assert all(c[2] == "true" for c in _cells(widget))
    assert "weights sum to 1.000" in widget.display.value


def test_mask_toggle_widget_rejects_wrong_scores():
    with pytest.raises(ValueError, match="scores"):
        masks.mask_toggle_widget(scores=np.zeros((3, 3)))


# -- figures ----------------------------------------------------------------------------
def _labelled(fig):
    axes = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
    assert axes
    for ax in axes:
        assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title()
    return axes


def test_figures_are_labelled():
    import matplotlib.pyplot as plt

    n = len(masks.ROBOT_TOKENS)
    batch = masks.message_batch()
    peek = masks.peeking_experiment(REF.masked_attention, REF.causal_mask(6))
    figures = [
        masks.plot_allowed(REF.causal_mask(n), "causal", tokens=masks.ROBOT_TOKENS),
        masks.plot_mask_batch(
            REF.attention_mask(batch["lengths"], 4, True), batch["tokens"], "batch"
        ),
        masks.plot_encoder_decoder(np.ones((n, n), bool), REF.causal_mask(n), masks.ROBOT_TOKENS),
        masks.plot_mask_order(masks.robot_scores(), REF.causal_mask(n), masks.ROBOT_TOKENS),
        masks.plot_peeking(peek, peek),
        masks.plot_loss_mask(
            np.ones((2, 3)),
            REF.padding_mask([3, 1], 3),
            [["send", "the", "report"], ["report", "<PAD>", "<PAD>"]],
        ),
    ]
    for fig in figures:
        assert isinstance(fig, matplotlib.figure.Figure)
        _labelled(fig)
        plt.close(fig)


def test_padding_figures_name_message_a_and_message_b():
    """The decks call the padded batch's messages Message A and Message B; so do the figures."""
    import matplotlib.pyplot as plt

    batch = masks.message_batch()
    fig = masks.plot_mask_batch(
        REF.attention_mask(batch["lengths"], 4, True), batch["tokens"], "batch"
    )
    assert [ax.get_title() for ax in fig.axes] == ["Message A", "Message B"]
    plt.close(fig)
    targets = [
        ["please", "send", "the", "report", "<EOS>"],
        ["send", "report", "<EOS>", "<PAD>", "<PAD>"],
    ]
    fig = masks.plot_loss_mask(np.ones((2, 5)), REF.padding_mask([5, 3], 5), targets)
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["Message A", "Message B"]
    plt.close(fig)


def test_torch_key_padding_mask_means_ignore_as_notebook_04_says():
    """nn.MultiheadAttention's key_padding_mask: True = ignore the key, the opposite of our
    `real`; passed unchanged, `real` leaves an all-real message with NaN weights."""
    import torch

    real = REF.padding_mask([4, 2], 4)  # (2, 4), True = real
    torch.manual_seed(0)
    layer = torch.nn.MultiheadAttention(embed_dim=4, num_heads=1, batch_first=True)
    x = torch.randn(2, 4, 4)
    with torch.no_grad():
        _, right = layer(x, x, x, key_padding_mask=torch.from_numpy(~real))
        _, wrong = layer(x, x, x, key_padding_mask=torch.from_numpy(real))
    assert torch.all(right[1][:, 2:] == 0) and torch.all(right[1][:, :2] > 0)
    assert not torch.isnan(right).any()
    assert torch.all(wrong[1][:, :2] == 0) and torch.all(wrong[1][:, 2:] > 0)
    assert torch.isnan(wrong[0]).all()


def test_plot_mask_order_shows_row_sums():
    n = len(masks.ROBOT_TOKENS)
    fig = masks.plot_mask_order(masks.robot_scores(), REF.causal_mask(n), masks.ROBOT_TOKENS)
    right, wrong = fig.axes[:2]
    assert all("sum 1.00" in t.get_text() for t in right.get_yticklabels())
    assert any("sum 0.2" in t.get_text() for t in wrong.get_yticklabels())


def test_figure_helpers_reject_wrong_shapes():
    with pytest.raises(ValueError):
        masks.plot_allowed(np.ones(3, dtype=bool), "x")
    with pytest.raises(ValueError):
        masks.plot_mask_batch(np.ones((3, 3), dtype=bool), [["a"] * 3], "x")
    with pytest.raises(ValueError):
        masks.plot_loss_mask(np.ones((2, 3)), np.ones((2, 2), dtype=bool), [[], []])


def test_reference_is_outside_the_package():
    assert (ROOT / "autograder" / "reference" / "nb04_masks.py").is_file()


# -- adversarial review: the solution's graded functions on edge cases ------------------
@pytest.fixture(scope="module")
def sol04():
    return solution_functions("04_masks")


def test_solution_masks_on_edge_cases(sol04):
    assert sol04["causal_mask"](1).tolist() == [[True]]
    assert sol04["causal_mask"](np.int64(3)).dtype == bool
    real = sol04["padding_mask"]([2, 0, 3], 5)  # a list, an empty message, all shorter than L
    assert real.dtype == bool and real.tolist() == [
        [True, True, False, False, False],
        [False] * 5,
        [True, True, True, False, False],
    ]
    for causal in (True, False):
        allowed = sol04["attention_mask"]([3, 1], 3, causal)
        assert allowed.shape == (2, 3, 3) and allowed.dtype == bool
        assert np.array_equal(allowed, REF.attention_mask(np.array([3, 1]), 3, causal))
    for bad in (0, -2, 2.5):
        with pytest.raises(ValueError, match="L"):
            sol04["causal_mask"](bad)
    with pytest.raises(ValueError, match=r"lengths.*\[3, -1\]"):
        sol04["padding_mask"]([3, -1], 4)
    with pytest.raises(ValueError, match=r"L must be a whole number.*got L = None"):
        sol04["causal_mask"](None)
    for name in ("padding_mask", "attention_mask"):
        args = (True,) if name == "attention_mask" else ()
        with pytest.raises(ValueError, match=r"lengths must hold whole numbers.*\[2\.5\]"):
            sol04[name]([2.5], 3, *args)
        with pytest.raises(ValueError, match=r"L must be a whole number.*got L = 2\.5"):
            sol04[name]([2], 2.5, *args)
    assert sol04["padding_mask"]([2.0, 1.0], 3.0).tolist() == [
        [True, True, False],
        [True, False, False],
    ]
    with pytest.raises(ValueError, match=r"batch.*\(2, 3, 2\).*\(3, 3, 2\)"):
        sol04["masked_attention"](
            np.zeros((2, 3, 2)),
            np.zeros((3, 3, 2)),
            np.zeros((3, 3, 2)),
            np.ones((3, 3), dtype=bool),
        )


@pytest.mark.parametrize(
    "case",
    [
        "one token",
        "one masked token",
        "d_k=1",
        "L_q != L_k",
        "heads broadcast",
        "all masked",
        "large",
        "float32",
        "lists",
    ],
)
def test_solution_masked_attention_matches_torch(sol04, case):
    rng = np.random.default_rng(sum(map(ord, case)))
    shapes = {
        "one token": ((1, 2), (1, 2), (1, 3)),
        "one masked token": ((1, 2), (1, 2), (1, 3)),
        "d_k=1": ((6, 1), (6, 1), (6, 2)),
        "L_q != L_k": ((2, 4), (5, 4), (5, 3)),
        "heads broadcast": ((2, 3, 4, 2), (2, 3, 4, 2), (2, 3, 4, 5)),
        "all masked": ((2, 3, 2), (2, 3, 2), (2, 3, 2)),
        "large": ((3, 4), (3, 4), (3, 4)),
        "float32": ((3, 4), (3, 4), (3, 4)),
        "lists": ((2, 2), (2, 2), (2, 2)),
    }[case]
    Q, K, V = (rng.standard_normal(s) for s in shapes)
    allowed = rng.random((*Q.shape[:-1], K.shape[-2])) < 0.6
    if case == "one token":
        allowed[:] = True
    if case in ("one masked token", "all masked"):
        allowed[:] = False
    if case == "heads broadcast":
        allowed = allowed[:, :1]  # (2, 1, 4, 4) over 3 heads
    if case == "large":
        Q, K = Q * 1e3, K * 1e3
    Y_ref, A_ref = torch_attend(Q, K, V, allowed)
    if case == "float32":
        Q, K, V = (a.astype(np.float32) for a in (Q, K, V))
        Y_ref, A_ref = torch_attend(Q, K, V, allowed)
    if case == "lists":
        Q, K, V, allowed = Q.tolist(), K.tolist(), V.tolist(), allowed.tolist()
    Y, A = sol04["masked_attention"](Q, K, V, allowed)
    assert Y.dtype == np.float64 and np.isfinite(Y).all() and np.isfinite(A).all()
    assert np.allclose(Y, Y_ref, atol=1e-10) and np.allclose(A, A_ref, atol=1e-10)
    assert np.all(A[~np.broadcast_to(np.asarray(allowed), A.shape)] == 0.0)


@pytest.mark.parametrize(
    ("shapes", "allowed_shape", "names"),
    [
        (((2, 3), (2, 3), (2,)), (2, 2), ("V", "(2,)")),
        (((3, 2), (2, 2), (2, 2)), (2, 2), ("allowed", "(2, 2)", "(3, 2)")),
        (((2, 3), (2, 3), (2, 3)), (2, 4), ("allowed", "(2, 4)")),
        (((2, 3), (2, 2), (2, 3)), (2, 2), ("Q", "K", "(2, 3)", "(2, 2)")),
    ],
)
def test_solution_masked_attention_names_the_bad_argument(sol04, shapes, allowed_shape, names):
    Q, K, V = (np.zeros(s) for s in shapes)
    with pytest.raises(ValueError) as err:
        sol04["masked_attention"](Q, K, V, np.ones(allowed_shape, dtype=bool))
    for name in names:
        assert name in str(err.value)


def _plain_softmax(S):
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _attend_with(mask):
    def masked_attention(Q, K, V, allowed):
        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        with np.errstate(all="ignore"):
            A = _plain_softmax(mask(np.asarray(allowed, dtype=bool), S))
        return A @ V, A

    return masked_attention


def test_an_inverted_mask_is_named_not_taken_for_nan():
    """np.where(allowed, -inf, S) leaves the rows where every key is allowed all -inf, so a
    plain softmax gives NaN there: the hint names the inversion, not the NaN."""
    from attnbook.checks import CheckFailure
    from attnbook.checks.nb04 import HINT_MASK_INVERTED, HINT_NAN, check_masked_attention

    inverted = _attend_with(lambda allowed, S: np.where(allowed, -np.inf, S))
    with pytest.raises(CheckFailure) as info:
        check_masked_attention(inverted)
    assert f"Hint: {HINT_MASK_INVERTED}" in str(info.value)
    # a right mask with the NaN of a fully blocked row keeps the NaN hint
    nan_rows = _attend_with(lambda allowed, S: np.where(allowed, S, -np.inf))
    with pytest.raises(CheckFailure) as info:
        check_masked_attention(nan_rows)
    assert f"Hint: {HINT_NAN}" in str(info.value)
