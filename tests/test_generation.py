"""Tests of attnbook.lm.generation: sampler, KV cache, batched generation, scoring, widget."""

import math

import matplotlib
import numpy as np
import pytest
import torch

from attnbook.lm.corpus import DEFAULT_GRAMMAR
from attnbook.lm.generation import (
    KVCache,
    SamplingWidget,
    decode_step,
    draw_tokens,
    filtered_distribution,
    generate_tokens,
    left_pad,
    plot_quality_diversity,
    quality_diversity_sweep,
    score_samples,
)
from attnbook.lm.model import LMConfig, TransformerLM
from attnbook.lm.tokenizer import WordTokenizer

matplotlib.use("Agg")
POSITIONS = ["rope", "learned", "sinusoidal", "none"]
V = 23


pytestmark = pytest.mark.usefixtures("one_thread")


def sharp_model(positions="rope", seed=0, max_len=48, norm="pre"):
    """A random model with large weights: well separated logits, so argmax is not fragile."""
    torch.manual_seed(seed)
    model = TransformerLM(
        LMConfig(
            vocab_size=V,
            d_model=32,
            n_heads=4,
            n_layers=2,
            max_len=max_len,
            positions=positions,
            norm=norm,
        )
    ).eval()
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() > 1:
                p.mul_(20.0)
    return model


PROMPTS = [[1, 5, 6, 7], [1, 9], [1, 3, 4, 5, 6, 7, 8]]


# -- the sampler ---------------------------------------------------------------------------
LOGITS = torch.log(torch.tensor([0.5, 0.25, 0.15, 0.1], dtype=torch.float64))


def test_temperature_one_without_filters_is_the_softmax():
    assert torch.allclose(filtered_distribution(LOGITS), torch.softmax(LOGITS, -1))


def test_temperature_divides_the_logits():
    expected = torch.softmax(LOGITS / 0.5, -1)  # squares the probabilities, renormalised
    p = torch.tensor([0.5, 0.25, 0.15, 0.1], dtype=torch.float64) ** 2
    assert torch.allclose(filtered_distribution(LOGITS, 0.5), expected)
    assert torch.allclose(expected, p / p.sum())


def test_temperature_zero_and_top_k_one_are_greedy():
    logits = torch.tensor([0.3, 2.0, -1.0, 1.9])
    one_hot = torch.tensor([0.0, 1.0, 0.0, 0.0])
    assert torch.equal(filtered_distribution(logits, 0.0), one_hot)
    assert torch.allclose(filtered_distribution(logits, 1.0, top_k=1), one_hot)
    assert torch.allclose(filtered_distribution(logits, 3.0, top_k=1, top_p=0.5), one_hot)


def test_top_k_keeps_the_k_largest_and_renormalises():
    p = filtered_distribution(LOGITS, 1.0, top_k=2)
    assert torch.allclose(p, torch.tensor([2 / 3, 1 / 3, 0.0, 0.0], dtype=torch.float64))


def test_top_k_keeps_every_token_tied_with_the_kth():
    logits = torch.tensor([2.0, 1.0, 1.0, 0.0])
    p = filtered_distribution(logits, 1.0, top_k=2)
    assert (p > 0).tolist() == [True, True, True, False]


def test_top_p_keeps_the_token_that_crosses_p():
    # Cumulative 0.5, 0.75, 0.9, 1.0: p = 0.6 is crossed by the second token, which stays.
    p = filtered_distribution(LOGITS, 1.0, top_p=0.6)
    assert torch.allclose(p, torch.tensor([2 / 3, 1 / 3, 0.0, 0.0], dtype=torch.float64))
    p = filtered_distribution(LOGITS, 1.0, top_p=0.8)
    assert torch.allclose(p, torch.tensor([0.5, 0.25, 0.15, 0.0], dtype=torch.float64) / 0.9)


def test_top_p_that_the_first_token_reaches_is_greedy_and_top_p_one_changes_nothing():
    assert torch.allclose(
        filtered_distribution(LOGITS, 1.0, top_p=0.3),
        torch.tensor([1.0, 0.0, 0.0, 0.0], dtype=torch.float64),
    )
    assert torch.allclose(filtered_distribution(LOGITS, 1.0, top_p=1.0), torch.softmax(LOGITS, -1))


def test_filters_apply_after_temperature():
    # At temperature 2 the distribution flattens: top-p 0.7 then needs three tokens, not two.
    flat = torch.softmax(LOGITS / 2.0, -1)
    assert flat[:2].sum() < 0.7 < flat[:3].sum()
    p = filtered_distribution(LOGITS, 2.0, top_p=0.7)
    assert torch.allclose(p, torch.cat((flat[:3], flat.new_zeros(1))) / flat[:3].sum())


def test_filters_work_row_by_row_on_a_batch():
    logits = torch.stack((LOGITS, LOGITS.flip(0)))  # (2, 4)
    p = filtered_distribution(logits, 1.0, top_k=1)
    assert torch.equal(p.argmax(-1), torch.tensor([0, 3]))


def test_bad_sampler_arguments_raise():
    for kwargs in (dict(temperature=-1.0), dict(top_k=-2), dict(top_p=0.0), dict(top_p=1.5)):
        with pytest.raises(ValueError):
            filtered_distribution(LOGITS, **kwargs)


def test_seeded_generator_reproduces_a_sample_and_draws_stay_in_the_support():
    logits = torch.randn(5, 30, generator=torch.Generator().manual_seed(0))
    a = draw_tokens(logits, 1.0, 5, 0.9, torch.Generator().manual_seed(7))
    b = draw_tokens(logits, 1.0, 5, 0.9, torch.Generator().manual_seed(7))
    assert torch.equal(a, b)
    support = filtered_distribution(logits, 1.0, 5, 0.9) > 0
    assert support.gather(1, a[:, None]).all()


# -- the KV cache --------------------------------------------------------------------------
@pytest.mark.parametrize("positions", POSITIONS)
def test_prefill_and_steps_give_the_logits_of_one_full_pass(positions):
    model = sharp_model(positions)
    ids = torch.randint(3, V, (2, 15), generator=torch.Generator().manual_seed(1))
    cache = KVCache.empty(model, 2, 15)
    pieces = [decode_step(model, ids[:, :5], cache)]
    pieces += [decode_step(model, ids[:, i : i + 1], cache) for i in range(5, 15)]
    assert cache.length == 15
    torch.testing.assert_close(torch.cat(pieces, 1), model(ids), atol=1e-4, rtol=1e-4)


def test_cache_works_for_post_norm_blocks_too():
    model = sharp_model(norm="post")
    ids = torch.randint(3, V, (1, 8), generator=torch.Generator().manual_seed(2))
    cache = KVCache.empty(model, 1, 8)
    steps = [decode_step(model, ids[:, i : i + 1], cache) for i in range(8)]
    torch.testing.assert_close(torch.cat(steps, 1), model(ids), atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("positions", POSITIONS)
def test_cached_greedy_equals_uncached_token_for_token(positions):
    model = sharp_model(positions)
    cached = generate_tokens(model, PROMPTS, 30, eos_id=2, temperature=0.0)
    plain = generate_tokens(model, PROMPTS, 30, eos_id=2, temperature=0.0, use_cache=False)
    assert cached == plain


@pytest.mark.parametrize("positions", ["rope", "learned"])
def test_cached_sampling_equals_uncached_under_the_same_seed(positions):
    model = sharp_model(positions)
    for seed in range(3):
        kwargs = dict(temperature=1.0, top_k=12, top_p=0.95)
        cached = generate_tokens(
            model, PROMPTS, 25, 2, generator=torch.Generator().manual_seed(seed), **kwargs
        )
        plain = generate_tokens(
            model,
            PROMPTS,
            25,
            2,
            use_cache=False,
            generator=torch.Generator().manual_seed(seed),
            **kwargs,
        )
        assert cached == plain


@pytest.mark.parametrize("use_cache", [True, False])
def test_left_padded_batch_gives_each_prompt_its_result_alone(use_cache):
    model = sharp_model("rope")
    batch = generate_tokens(model, PROMPTS, 20, 2, temperature=0.0, use_cache=use_cache)
    alone = [
        generate_tokens(model, [p], 20, 2, temperature=0.0, use_cache=use_cache)[0] for p in PROMPTS
    ]
    assert batch == alone


def test_rope_positions_matter_in_the_cache():
    """Feeding the cache wrong positions changes the logits: RoPE is really applied."""
    model = sharp_model("rope")
    ids = torch.tensor([[1, 5, 6, 7]])
    right = decode_step(model, ids, KVCache.empty(model, 1, 4))
    wrong = decode_step(model, ids, KVCache.empty(model, 1, 4), positions=ids * 0 + 3)
    assert not torch.allclose(right, wrong, atol=1e-3)


def test_left_pad_right_aligns_and_numbers_each_row_from_zero():
    ids, real, positions = left_pad([[1, 4, 5], [1]], pad_id=0)
    assert ids.tolist() == [[1, 4, 5], [0, 0, 1]]
    assert real.tolist() == [[True, True, True], [False, False, True]]
    assert positions.tolist() == [[0, 1, 2], [0, 0, 0]]


def _model_emitting(eos_after: dict[int, int], max_len=40):
    """A model whose greedy choice is fixed per last token: a lookup table as a decoder."""
    model = TransformerLM(
        LMConfig(vocab_size=V, d_model=32, n_heads=4, n_layers=1, max_len=max_len, positions="none")
    ).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
        model.blocks[0].ln1.weight.fill_(1.0)
        model.blocks[0].ln2.weight.fill_(1.0)
        model.embed.weight.copy_(torch.eye(V, 32) * 10)
        model.ln_final.weight.fill_(1.0)
        table = torch.zeros(V, 32)
        for token in range(V):
            table[eos_after.get(token, (token + 1) % V or 3), token] = 1.0
        model.head.weight.copy_(table * 10)
    return model


@pytest.mark.parametrize("use_cache", [True, False])
def test_each_row_stops_at_its_own_eos_which_is_kept(use_cache):
    model = _model_emitting({6: 2, 10: 2})  # after token 6 or 10 comes EOS (2)
    out = generate_tokens(
        model, [[1, 4], [1, 8]], 10, eos_id=2, temperature=0.0, use_cache=use_cache
    )
    assert out == [[1, 4, 5, 6, 2], [1, 8, 9, 10, 2]]
    out = generate_tokens(
        model, [[1, 4], [1, 8, 9]], 2, eos_id=2, temperature=0.0, use_cache=use_cache
    )
    assert out == [[1, 4, 5, 6], [1, 8, 9, 10, 2]]


def test_generation_beyond_max_len_is_refused():
    with pytest.raises(ValueError, match="max_len"):
        generate_tokens(sharp_model(max_len=10), [[1, 2, 3]], 8, 2)


# -- scoring, plots, widget ----------------------------------------------------------------
def test_score_samples_judges_with_the_grammar():
    tok = WordTokenizer()
    good = tok.encode("please send the report today .")
    bad = tok.encode("please send the today .")
    cut = tok.encode("please send the report", add_eos=False)
    scores = score_samples(DEFAULT_GRAMMAR, tok, [good, good, bad, cut])
    assert scores["valid"] == 0.5
    log_p = DEFAULT_GRAMMAR.log_prob("please send the report today .")
    assert math.isclose(scores["mean_log_prob"], log_p / 7)
    assert scores["distinct"] == 0.75


def test_quality_diversity_sweep_and_its_plot():
    tok = WordTokenizer()
    torch.manual_seed(0)
    model = TransformerLM(
        LMConfig(vocab_size=tok.vocab_size, d_model=16, n_heads=2, n_layers=1, max_len=24)
    ).eval()
    rows = quality_diversity_sweep(
        model,
        tok,
        DEFAULT_GRAMMAR,
        temperatures=(0.0, 1.0),
        top_ps=(0.5, 1.0),
        n_samples=8,
        max_new_tokens=10,
    )
    assert [(r["knob"], r["value"]) for r in rows] == [
        ("temperature", 0.0),
        ("temperature", 1.0),
        ("top_p", 0.5),
        ("top_p", 1.0),
    ]
    assert rows[0]["distinct"] == 1 / 8  # greedy: every sample is the same
    again = quality_diversity_sweep(
        model,
        tok,
        DEFAULT_GRAMMAR,
        temperatures=(0.0, 1.0),
        top_ps=(0.5, 1.0),
        n_samples=8,
        max_new_tokens=10,
    )
    assert rows == again
    fig = plot_quality_diversity(rows, floor=-0.7)
    assert isinstance(fig, matplotlib.figure.Figure)
    for ax in fig.axes:
        assert ax.get_xlabel() or ax.get_ylabel()
    assert fig.axes[0].get_title() and fig.axes[0].get_xlabel() == "temperature"


def _shown(widget):
    import re

    rows = re.findall(
        r'data-label="([^"]*)" data-before="([^"]*)" data-value="([^"]*)" '
        r'data-kept="(true|false)"',
        widget.display.value,
    )
    return {
        label: (float(before), float(after), kept == "true") for label, before, after, kept in rows
    }


def test_sampling_widget_shows_what_is_kept_and_renormalised():
    labels = ["report", "slides", "minutes", "budget"]
    widget = SamplingWidget(LOGITS, labels, prompt="please send the", n_show=4)
    shown = _shown(widget)
    assert all(kept for _, _, kept in shown.values())
    assert math.isclose(shown["report"][1], 0.5, abs_tol=1e-5)
    widget.top_p.value = 0.6
    shown = _shown(widget)
    assert [label for label, (_, _, kept) in shown.items() if kept] == ["report", "slides"]
    assert math.isclose(shown["report"][1], 2 / 3, abs_tol=1e-5)
    assert math.isclose(shown["minutes"][0], 0.15, abs_tol=1e-5)  # before stays visible
    assert 'data-kept-count="2"' in widget.display.value
    widget.top_p.value = 1.0
    widget.top_k.value = 1
    assert [label for label, (_, _, kept) in _shown(widget).items() if kept] == ["report"]
    widget.top_k.value = 0
    widget.temperature.value = 0.0
    np.testing.assert_allclose(widget.distribution(), [1.0, 0.0, 0.0, 0.0])
    widget.temperature.value = 2.0
    np.testing.assert_allclose(widget.distribution(), torch.softmax(LOGITS / 2, -1).numpy())


def test_sampling_widget_builder_reads_the_model_and_the_grammar():
    from attnbook.lm.generation import sampling_widget

    tok = WordTokenizer()
    torch.manual_seed(0)
    model = TransformerLM(
        LMConfig(vocab_size=tok.vocab_size, d_model=16, n_heads=2, n_layers=1, max_len=24)
    ).eval()
    widget = sampling_widget(model, tok, "please send the", grammar=DEFAULT_GRAMMAR, n_show=89)
    assert "(grammar 0.200)" in widget.display.value  # "report" after "please send the"
    assert len(_shown(widget)) == 89


def test_trained_checkpoint_is_found_and_cached_decoding_matches_it():
    from attnbook.lm.generation import find_checkpoint
    from attnbook.lm.train import load_trained

    model, tok, _ = load_trained(find_checkpoint("email_cpu.pt"))
    prompts = [tok.encode(t, add_eos=False) for t in ["please send the", "hi anna ,", "my"]]
    for kwargs in (dict(temperature=0.0), dict(temperature=1.0, top_p=0.9)):
        cached = generate_tokens(
            model,
            prompts,
            40,
            tok.eos_id,
            tok.pad_id,
            generator=torch.Generator().manual_seed(0),
            **kwargs,
        )
        plain = generate_tokens(
            model,
            prompts,
            40,
            tok.eos_id,
            tok.pad_id,
            use_cache=False,
            generator=torch.Generator().manual_seed(0),
            **kwargs,
        )
        assert cached == plain
    with pytest.raises(FileNotFoundError, match="no assets/checkpoints"):
        find_checkpoint("no_such_model.pt")


# -- notebook 08's reference sampler against the curriculum's words ------------------------
def _by_the_words(logits, temperature, top_k, top_p):
    """Row by row, as notebook 08 words it: argmax at 0; the k highest logits (ties with the
    k-th kept); the smallest most-likely set whose mass reaches p, crossing token included."""
    flat = logits.reshape(-1, logits.shape[-1]).double()
    out = torch.zeros_like(flat)
    for r, row in enumerate(flat):
        if temperature == 0:
            out[r, int(row.argmax())] = 1.0
            continue
        z = row / temperature
        if top_k:
            kth = sorted(z.tolist(), reverse=True)[min(top_k, len(z)) - 1]
            z = torch.where(z >= kth, z, torch.tensor(-math.inf, dtype=z.dtype))
        p = torch.softmax(z, -1)
        if top_p is not None and top_p < 1.0:
            kept, mass = torch.zeros_like(p), 0.0
            for i in sorted(range(len(p)), key=lambda i: -float(p[i])):
                kept[i], mass = p[i], mass + float(p[i])
                if mass >= top_p:
                    break
            p = kept / kept.sum()
        out[r] = p
    return out.reshape(logits.shape)


@pytest.mark.parametrize("shape", [(7,), (3, 7), (2, 3, 7), (4, 1)])
def test_reference_sampler_follows_the_curriculum(shape):
    from attnbook.grading import load_reference

    ref = load_reference("08_generation")
    gen = torch.Generator().manual_seed(sum(shape))
    for temperature in (0.0, 0.5, 1.0, 2.5):
        for top_k in (None, 0, 1, 3, 7, 50):
            for top_p in (None, 1.0, 0.9, 0.4, 1e-9):
                logits = 2.0 * torch.randn(*shape, generator=gen, dtype=torch.float64)
                want = _by_the_words(logits, temperature, top_k, top_p)
                assert torch.allclose(
                    ref.next_token_probs(logits, temperature, top_k, top_p), want, atol=1e-9
                ), (shape, temperature, top_k, top_p)
                assert torch.allclose(
                    filtered_distribution(logits, temperature, top_k, top_p), want, atol=1e-9
                )
                draws = ref.sample_next(
                    logits, temperature, top_k, top_p, torch.Generator().manual_seed(3)
                )
                again = ref.sample_next(
                    logits, temperature, top_k, top_p, torch.Generator().manual_seed(3)
                )
                assert draws.shape == shape[:-1] and torch.equal(draws, again)
                assert bool((want.gather(-1, draws[..., None]) > 0).all())


def test_reference_sampler_ties():
    from attnbook.grading import load_reference

    ref = load_reference("08_generation")
    tie = torch.tensor([2.0, 1.0, 1.0, 0.0], dtype=torch.float64)
    kept = ref.next_token_probs(tie, 1.0, 2, None)  # both tokens tied with the 2nd kept
    assert torch.equal(kept > 0, torch.tensor([True, True, True, False]))
    assert int(ref.sample_next(torch.tensor([0.0, 3.0, 3.0]), 0.0)) in (1, 2)
    assert torch.allclose(
        ref.next_token_probs(torch.zeros(4), 1.0, None, 0.5).sum(), torch.tensor(1.0)
    )
