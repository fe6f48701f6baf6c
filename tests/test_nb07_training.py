"""Notebook 07's helpers, widget and figures, and its reference against the package trainer."""

from __future__ import annotations

import contextlib
import copy
import html
import re

import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

from attnbook.demos.nb07 import (
    EXPLORER_EMAILS,
    AttentionExplorer,
    attention_maps,
    batch_table_markdown,
    causal_mask_experiment,
    chain_timing,
    plot_causal_experiment,
    plot_chain_timing,
    plot_losses_against_floor,
    show_figure,
    single_thread,
)
from attnbook.grading import load_reference
from attnbook.lm.data import masked_cross_entropy, pad_batch
from attnbook.lm.model import LMConfig, TransformerLM
from attnbook.lm.tokenizer import WordTokenizer
from attnbook.lm.train import fit_batch

REF = load_reference("07_training")


@pytest.fixture(autouse=True)
def _one_thread():
    with single_thread():
        yield


def _decoder(seed=0, vocab_size=None, **kw) -> TransformerLM:
    torch.manual_seed(seed)
    config = dict(
        vocab_size=vocab_size or WordTokenizer().vocab_size,
        d_model=32,
        n_heads=4,
        n_layers=2,
        max_len=80,
    )
    config.update(kw)
    return TransformerLM(LMConfig(**config)).eval()


def _bars(html_text: str) -> list[tuple[str, float]]:
    return [
        (html.unescape(label), float(value))
        for label, value in re.findall(r'data-label="([^"]*)" data-value="([^"]*)"', html_text)
    ]


# ---------------------------------------------------------------------------------------
# attention maps and the explorer
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("positions", ["rope", "learned", "none"])
def test_attention_maps_reproduce_the_attention_output(positions):
    model = _decoder(1, positions=positions)
    ids = torch.tensor([1, 20, 30, 40, 50, 60])
    maps = attention_maps(model, ids)
    assert maps.shape == (2, 4, 6, 6)
    assert torch.allclose(maps.sum(-1), torch.ones(2, 4, 6), atol=1e-5)
    assert torch.all(maps.triu(diagonal=1) == 0), "a query attended to its future"
    caught = {}
    block = model.blocks[1]
    handles = [
        block.attn.register_forward_pre_hook(lambda _m, a: caught.update(args=a)),
        block.attn.register_forward_hook(lambda _m, _a, out: caught.update(out=out)),
    ]
    with torch.no_grad():
        model(ids[None])
        for h in handles:
            h.remove()
        x, rope = caught["args"][0], caught["args"][1]
        _, _, v = block.attn.heads_qkv(x, rope)  # (1, h, L, d_k)
        y = (maps[1][None] @ v).transpose(1, 2).reshape(1, 6, -1)  # (1, L, d)
        assert torch.allclose(block.attn.W_O(y), caught["out"], atol=1e-5)
    assert not model.blocks[0].attn._forward_pre_hooks, "hooks must be removed"


def test_attention_maps_of_a_model_without_the_causal_mask_see_the_future():
    maps = attention_maps(_decoder(2, causal=False), [1, 5, 6, 7])
    future = torch.ones(4, 4, dtype=torch.bool).triu(diagonal=1)  # (L, L): key after query
    assert torch.all(maps[..., future] > 0)


def test_explorer_shows_the_query_row_over_its_allowed_prefix():
    tokenizer = WordTokenizer()
    model = _decoder(3)
    widget = AttentionExplorer(model, tokenizer)
    tokens = widget.tokens()
    assert tokens[0] == "<BOS>" and "too" in tokens
    assert widget.query.value == tokens.index("too"), "the explorer opens on 'too'"
    widget.layer.value, widget.head.value = 1, 2
    q = 5
    widget.query.value = q
    bars = _bars(widget.display.value)
    assert [label for label, _ in bars] == [f"{t}: {w}" for t, w in enumerate(tokens[: q + 1])]
    ids = tokenizer.encode(EXPLORER_EMAILS[0], add_eos=False)
    expected = attention_maps(model, ids)[1, 2, q, : q + 1].numpy()
    assert np.allclose([v for _, v in bars], expected, atol=1e-5)
    assert 'data-layer="1"' in widget.display.value and 'data-head="2"' in widget.display.value
    assert f'data-query="{q}"' in widget.display.value
    assert f"{len(tokens) - q - 1} future positions blocked" in widget.display.value
    assert np.isclose(sum(v for _, v in bars), 1.0, atol=1e-4)


def test_explorer_follows_a_new_email():
    tokenizer = WordTokenizer()
    widget = AttentionExplorer(_decoder(4), tokenizer)
    widget.email.value = 3  # "please send the report today ." has no "it": the last word
    tokens = widget.tokens()
    assert tokens == ["<BOS>", *EXPLORER_EMAILS[3].split()]
    assert widget.query.value == len(tokens) - 1
    assert len(_bars(widget.display.value)) == len(tokens)
    assert 'data-query-word="."' in widget.display.value
    widget.email.value = 2  # the greeted email: the "." query word is kept, its last one
    assert widget.query.value == len(widget.tokens()) - 1
    widget.email.value, widget.query.value = 0, 3  # query "," (after the greeting)
    widget.email.value = 1
    assert widget.tokens()[widget.query.value] == ","


def _shipped():
    from attnbook.lm.generation import find_checkpoint
    from attnbook.lm.train import load_trained

    model, tokenizer, _ = load_trained(find_checkpoint("email_cpu.pt"))
    return model, tokenizer


def _row(model, tokenizer, email: str, query: str) -> tuple[torch.Tensor, list[str]]:
    """(n_layers, h, q + 1) attention of the last occurrence of ``query``."""
    ids = tokenizer.encode(email, add_eos=False)
    tokens = [tokenizer.id_to_token[i] for i in ids]
    q = len(tokens) - 1 - tokens[::-1].index(query)
    return attention_maps(model, ids)[:, :, q, : q + 1], tokens


def test_the_shipped_model_has_the_heads_the_notebook_asks_students_to_find():
    """Section 8's suggestions hold for assets/checkpoints/email_cpu.pt."""
    model, tokenizer = _shipped()
    row, tokens = _row(model, tokenizer, EXPLORER_EMAILS[0], "too")  # predicts the adjective
    for noun in ("binder", "bag"):
        assert row[..., tokens.index(noun)].max() > 0.5, f"no head at 'too' looks at {noun}"
    row, tokens = _row(model, tokenizer, EXPLORER_EMAILS[0], ",")  # predicts the name again
    assert row[..., tokens.index("david")].max() > 0.5, "no head copies the greeting's name"
    it_wide, _ = _row(model, tokenizer, EXPLORER_EMAILS[0], "it")
    it_small, _ = _row(model, tokenizer, EXPLORER_EMAILS[1], "it")
    assert torch.allclose(it_wide, it_small), "the rows of 'it' cannot see the adjective"


# ---------------------------------------------------------------------------------------
# timing, the causal-mask experiment, figures
# ---------------------------------------------------------------------------------------
def test_chain_timing_counts_steps_then_times_one_pass_against_the_same_chain():
    model = _decoder(5)
    result = chain_timing(model, lengths=(4, 8), batch_size=4, repeats=1)
    assert result["L"] == [4, 8]
    for key in ("decoder_ms", "decoder_chain_ms"):
        assert len(result[key]) == 2 and all(v > 0 for v in result[key])
    assert "rnn_ms" not in result, "a smaller network's time is no fair comparison"
    assert result["decoder_steps"] == [2, 2] and result["rnn_steps"] == [4, 8]
    assert max(result["max_logit_gap"]) < 1e-4, "the cached chain must give the same logits"
    assert not model.training
    fig = plot_chain_timing(result)
    assert isinstance(fig, Figure)
    for ax in fig.axes:
        assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title()
    steps, timing = fig.axes
    assert "chain" in steps.get_title() and "time" in timing.get_title(), "steps lead"
    assert all(
        "decoder" in line.get_label()
        or "L chained" in line.get_label()
        or "pass" in line.get_label()
        for line in timing.lines
    )


def test_removing_the_causal_mask_collapses_the_training_loss_and_breaks_generation():
    result = causal_mask_experiment(steps=100, n_train=1000, n_val=32, n_samples=8)
    causal, cheat = result["causal"], result["no mask"]
    assert len(causal["losses"]) == len(cheat["losses"]) == 100
    floor = 0.72  # the corpus entropy (attnbook.lm.corpus), nats per token
    assert np.mean(cheat["losses"][-10:]) < floor < np.mean(causal["losses"][-10:])
    assert cheat["val_teacher_forced"] < floor < cheat["val_prefix_only"] - 0.5
    assert abs(causal["val_teacher_forced"] - causal["val_prefix_only"]) < 1e-3
    assert cheat["valid_share"] <= causal["valid_share"]
    assert len(cheat["emails"]) == 8
    fig = plot_causal_experiment(result, floor=floor)
    ax = fig.axes[0]
    assert ax.get_xlabel() == "step" and "nats" in ax.get_ylabel() and ax.get_title()
    labels = ax.get_legend_handles_labels()[1]
    assert any("no mask" in label for label in labels)
    assert any("entropy" in label for label in labels)


def test_loss_curves_against_the_floor():
    fig = plot_losses_against_floor(
        {"run": [3.0, 2.0, 1.0, 0.9]}, floor=0.72, floor_se=0.01, title="t"
    )
    ax = fig.axes[0]
    assert ax.get_xlabel() == "step" and ax.get_ylabel() and ax.get_title() == "t"
    assert [line.get_ydata()[0] for line in ax.lines][-1] == pytest.approx(0.72)
    smoothed = plot_losses_against_floor({"run": list(np.linspace(3, 1, 30))}, smooth=5)
    assert len(smoothed.axes[0].lines) == 2  # raw values and the running mean


def test_batch_table_strikes_out_the_padded_targets():
    tokenizer = WordTokenizer()
    batch = pad_batch([tokenizer.encode("please send the report"), tokenizer.encode("send report")])
    text = batch_table_markdown(
        batch.inputs, batch.targets, batch.loss_mask, tokenizer, ["Message A", "Message B"]
    )
    assert "| Message B | input | &lt;BOS&gt; | send | report | &lt;PAD&gt; | &lt;PAD&gt; |" in text
    assert text.count("~~&lt;PAD&gt;~~") == 2
    assert "| | loss mask | 1 | 1 | 1 | 0 | 0 |" in text


def test_single_thread_restores_the_thread_count():
    before = torch.get_num_threads()
    with contextlib.suppress(RuntimeError), single_thread():
        assert torch.get_num_threads() == 1
        raise RuntimeError
    assert torch.get_num_threads() == before


# ---------------------------------------------------------------------------------------
# the notebook's reference agrees with the package trainer
# ---------------------------------------------------------------------------------------
def _sequences(seed: int) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    return [
        [1, *(int(v) for v in rng.integers(3, 30, size=int(rng.integers(0, 9)))), 2]
        for _ in range(int(rng.integers(1, 6)))
    ]


@pytest.mark.parametrize("seed", range(5))
def test_reference_batch_and_loss_match_the_trainer(seed):
    sequences = _sequences(seed)
    batch = pad_batch(sequences)
    inputs, targets, loss_mask = REF.make_batch(sequences, 0)
    assert torch.equal(inputs, batch.inputs) and torch.equal(targets, batch.targets)
    assert torch.equal(loss_mask, batch.loss_mask)
    logits = torch.randn(*inputs.shape, 30, generator=torch.Generator().manual_seed(seed))
    assert torch.allclose(
        REF.lm_loss(logits, targets, loss_mask),
        masked_cross_entropy(logits, targets, loss_mask),
        atol=1e-6,
    )


@pytest.mark.parametrize("seed", range(3))
def test_reference_train_step_matches_the_trainer(seed):
    sequences = _sequences(10 + seed) + [[1, 4, 5, 6, 7, 2]]
    model = _decoder(seed, vocab_size=30).train()
    twin = copy.deepcopy(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    twin_optimizer = torch.optim.AdamW(twin.parameters(), lr=1e-2)
    batch = pad_batch(sequences)
    loss = REF.train_step(model, optimizer, (batch.inputs, batch.targets, batch.loss_mask), 0.1)
    twin_loss = fit_batch(
        twin, twin_optimizer, batch, batch.n_tokens, 0.1, contextlib.nullcontext()
    )
    assert loss == pytest.approx(float(twin_loss), rel=1e-6)
    for p, q in zip(model.parameters(), twin.parameters()):
        assert torch.allclose(p, q, atol=1e-6)
    assert REF.evaluate(model, [REF.make_batch(sequences, 0)]) == pytest.approx(
        masked_cross_entropy(model.eval()(batch.inputs), batch.targets, batch.loss_mask).item(),
        rel=1e-5,
    )


def test_show_figure_displays_a_png(monkeypatch):
    import IPython.display

    shown = []
    monkeypatch.setattr(IPython.display, "display", shown.append)
    show_figure(plot_losses_against_floor({"run": [2.0, 1.0]}, floor=0.7))
    assert len(shown) == 1 and shown[0].data[:8] == b"\x89PNG\r\n\x1a\n"


def test_loss_curves_draw_validation_points():
    fig = plot_losses_against_floor(
        {"run": [3.0, 2.0, 1.5]}, floor=0.7, validation={2: 2.1, 3: 1.6}
    )
    ax = fig.axes[0]
    assert "validation loss" in ax.get_legend_handles_labels()[1]
    points = next(line for line in ax.lines if line.get_label() == "validation loss")
    assert list(points.get_xdata()) == [2, 3] and list(points.get_ydata()) == [2.1, 1.6]


def test_reference_loss_ignores_whatever_the_padded_targets_hold():
    gen = torch.Generator().manual_seed(3)
    logits = torch.randn(2, 3, 5, generator=gen)
    targets = torch.tensor([[1, 2, 3], [4, 0, 0]])
    mask = torch.tensor([[True, True, True], [True, False, False]])
    want = torch.nn.functional.cross_entropy(logits[mask], targets[mask])
    for pad in (0, -1, -100, 5, 99):
        padded = targets.masked_fill(~mask, pad)
        assert torch.allclose(REF.lm_loss(logits, padded, mask), want)
    assert torch.allclose(REF.lm_loss(logits, targets.int(), mask.float()), want)


def test_reference_batch_accepts_tuples_arrays_and_tensors():
    want = REF.make_batch([[1, 5, 2], [1, 2]], 0)
    for sequences in (
        ((1, 5, 2), (1, 2)),
        [np.array([1, 5, 2]), np.array([1, 2])],
        [torch.tensor([1, 5, 2]), torch.tensor([1, 2])],
    ):
        got = REF.make_batch(sequences, 0)
        assert all(torch.equal(g, w) and g.dtype == w.dtype for g, w in zip(got, want))


def _evaluate_frozen(freeze: bool):
    """evaluate written without torch.no_grad: weights frozen (and restored), or not."""
    from attnbook.shapes import require_ndim

    def evaluate(model, batches):
        batches = list(batches)
        for inputs, _, _ in batches:
            require_ndim("inputs", inputs, 2, "(B, L)")
        was_training, flags = model.training, [p.requires_grad for p in model.parameters()]
        model.eval()
        model.requires_grad_(not freeze)
        total, count = 0.0, 0
        for inputs, targets, loss_mask in batches:
            n = int(loss_mask.sum())
            total += REF.lm_loss(model(inputs), targets, loss_mask).item() * n
            count += n
        for p, flag in zip(model.parameters(), flags):
            p.requires_grad_(flag)
        model.train(was_training)
        return total / count

    return evaluate


def test_evaluate_check_asks_for_no_graph_not_for_one_way_of_avoiding_it(capsys):
    from attnbook.checks import CheckFailure, check_evaluate

    check_evaluate(_evaluate_frozen(True), reference=REF.evaluate)
    assert "passed" in capsys.readouterr().out
    with pytest.raises(CheckFailure, match="autograd recording a graph"):
        check_evaluate(_evaluate_frozen(False))
