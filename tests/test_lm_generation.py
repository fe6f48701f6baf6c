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


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"temperature": float("nan")}, "temperature"),
        ({"temperature": "1"}, "temperature"),
        ({"temperature": 0.0, "top_k": -3}, "top_k"),
        ({"temperature": 0.0, "top_p": 2.0}, "top_p"),
        ({"temperature": 1.0, "top_p": float("nan")}, "top_p"),
    ],
)
def test_bad_sampler_settings_are_refused_at_every_temperature_naming_them(settings, named):
    """The reference's next_token_probs and sample_next (their given code) and the package's
    sampler check all three settings up front: at temperature 0, which draws nothing, too."""
    from attnbook.grading import load_reference

    ref = load_reference("08_generation")
    for sampler in (ref.next_token_probs, ref.sample_next, filtered_distribution, draw_tokens):
        with pytest.raises(ValueError, match=rf"^{named} must be .*; got {named} = "):
            sampler(torch.zeros(2, 4), **settings)


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


def test_one_token_steps_on_an_unpadded_cache_build_no_mask_and_no_position_tensor(
    monkeypatch,
):
    """The fast path: every row's next position is the cache's length (a number), and one new
    token reads every cached key, so attention gets no mask."""
    from attnbook.lm.model import CausalSelfAttention

    model = sharp_model("rope")
    seen = []
    attend = CausalSelfAttention.attend

    def spy(self, q, k, v, allowed=None, live_rows=None, causal=None):
        seen.append((q.shape[2], allowed is None, causal))
        return attend(self, q, k, v, allowed, live_rows, causal)

    monkeypatch.setattr(CausalSelfAttention, "attend", spy)
    ids = torch.randint(3, V, (2, 6), generator=torch.Generator().manual_seed(4))
    cache = KVCache.empty(model, 2, 6)
    decode_step(model, ids[:, :3], cache)
    for t in range(3, 6):
        decode_step(model, ids[:, t : t + 1], cache)
    assert cache.row_positions is None and cache.next_position.tolist() == [6, 6]
    assert seen == [(3, True, True)] * 2 + [(1, True, False)] * 6


def test_explicit_positions_are_then_tracked_per_row():
    """After a call with explicit positions, the next call without them continues each row."""
    model = sharp_model("rope")
    ids = torch.tensor([[1, 5, 6, 7], [1, 9, 4, 3]])
    start = torch.tensor([[2], [5]])
    cache = KVCache.empty(model, 2, 4)
    decode_step(model, ids[:, :2], cache, positions=start + torch.arange(2))
    assert cache.next_position.tolist() == [4, 7]
    stepped = decode_step(model, ids[:, 2:], cache)
    spelled = KVCache.empty(model, 2, 4)
    decode_step(model, ids[:, :2], spelled, positions=start + torch.arange(2))
    expected = decode_step(model, ids[:, 2:], spelled, positions=start + torch.arange(2, 4))
    torch.testing.assert_close(stepped, expected, atol=0, rtol=0)


def test_a_new_cache_follows_weights_changed_in_place():
    """Each generation makes its cache (and the stacked q, k, v weights in it) afresh, so a
    change to the weights between two calls is seen, with and without the cache alike."""
    model = sharp_model("rope")
    before = generate_tokens(model, PROMPTS, 12, eos_id=None, temperature=0.0)
    with torch.no_grad():
        for block in model.blocks:
            block.attn.W_K.weight.mul_(-1.0)
            block.attn.W_V.weight.copy_(block.attn.W_V.weight.flip(0))
    after = generate_tokens(model, PROMPTS, 12, eos_id=None, temperature=0.0)
    assert after != before
    assert after == generate_tokens(
        model, PROMPTS, 12, eos_id=None, temperature=0.0, use_cache=False
    )


def stepped_logits(model, ids, prefill=3):
    """Logits (B, L, V) of a prefill of ``prefill`` tokens, then one token per step."""
    cache = KVCache.empty(model, ids.shape[0], ids.shape[1])
    pieces = [decode_step(model, ids[:, :prefill], cache)]
    pieces += [decode_step(model, ids[:, t : t + 1], cache) for t in range(prefill, ids.shape[1])]
    return torch.cat(pieces, dim=1)


def count_steps(monkeypatch):
    """Record each call of TransformerBlock.step, the one-token path on packed weights."""
    from attnbook.lm.model import TransformerBlock

    calls = []
    step = TransformerBlock.step

    def spy(self, h, cache):
        calls.append(tuple(h.shape))
        return step(self, h, cache)

    monkeypatch.setattr(TransformerBlock, "step", spy)
    return calls


@pytest.mark.parametrize("autocast", [False, True])
@pytest.mark.parametrize("norm", ["pre", "post"])
@pytest.mark.parametrize("positions", POSITIONS)
def test_one_token_steps_on_packed_weights_equal_the_module_path_bit_for_bit(
    positions, norm, autocast, monkeypatch
):
    """A hook anywhere sends decoding through the modules; without one, each one-token step
    runs TransformerBlock.step on the cache's packed weights. Both give the same numbers,
    in float32 and under bf16 autocast (where the step makes fresh tensors)."""
    model = sharp_model(positions, norm=norm)
    ids = torch.randint(3, V, (2, 9), generator=torch.Generator().manual_seed(5))
    calls = count_steps(monkeypatch)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
        packed = stepped_logits(model, ids)
        assert calls == [(2, 32)] * (2 * 6)  # 2 blocks x 6 one-token steps, rows (B, d)
        handle = model.ln_final.register_forward_hook(lambda _m, _i, out: None)
        try:
            modules = stepped_logits(model, ids)
        finally:
            handle.remove()
    assert len(calls) == 2 * 6, "with a hook, no step may take the packed path"
    assert packed.dtype == torch.float32 and packed.shape == (2, 9, V)
    assert torch.equal(packed, modules), (packed - modules).abs().max()


def test_a_hook_registered_between_steps_is_honoured_at_the_next_step(monkeypatch):
    """The cache tests for hooks at every step: one added after some packed steps runs (and
    changes the logits) at the next; a global hook too; once removed, steps are packed."""
    from torch.nn.modules.module import register_module_forward_hook

    model = sharp_model("rope")
    ids = torch.randint(3, V, (1, 8), generator=torch.Generator().manual_seed(6))
    calls = count_steps(monkeypatch)
    cache = KVCache.empty(model, 1, 8)
    decode_step(model, ids[:, :4], cache)
    clean = stepped_logits(model, ids[:, :5], prefill=4)[:, -1]
    assert len(calls) == 2  # the clean reference's one step, two blocks
    seen = []

    def zero(module, _inputs, out):
        seen.append(module)
        return torch.zeros_like(out)

    handle = model.blocks[1].mlp.fc_in.register_forward_hook(zero)
    hooked = decode_step(model, ids[:, 4:5], cache)[:, -1]
    handle.remove()
    assert seen == [model.blocks[1].mlp.fc_in] and len(calls) == 2
    assert not torch.allclose(hooked, clean, atol=1e-3)
    every = register_module_forward_hook(lambda module, _i, _o: seen.append(module))
    decode_step(model, ids[:, 5:6], cache)
    every.remove()
    assert model.blocks[0].attn.W_O in seen[1:] and len(calls) == 2
    decode_step(model, ids[:, 6:7], cache)
    assert len(calls) == 4 and cache.length == 7


def test_a_cache_made_after_training_decodes_the_trained_weights():
    """A cache packs the parameters themselves, but the stacked q, k, v weights are a copy
    made with it: the cache made before a training step keeps the old copy, and the one made
    after it decodes what the trained model computes."""
    model = sharp_model("rope").train()
    ids = torch.randint(3, V, (2, 8), generator=torch.Generator().manual_seed(7))
    before = KVCache.empty(model.eval(), 2, 8)
    old_projection = model.blocks[0].attn.qkv_projection()[0].detach().clone()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    loss = torch.nn.functional.cross_entropy(
        model.train()(ids)[:, :-1].flatten(0, 1), ids[:, 1:].flatten()
    )
    loss.backward()
    optimizer.step()
    model.eval()
    after = KVCache.empty(model, 2, 8)
    new_projection = model.blocks[0].attn.qkv_projection()[0].detach()
    assert not torch.equal(new_projection, old_projection)
    assert torch.equal(before.weights[0].projection[0], old_projection)
    assert torch.equal(after.weights[0].projection[0], new_projection)
    fc_in = model.blocks[1].mlp.fc_in.weight
    assert before.weights[1].fc_in[1].data_ptr() == fc_in.data_ptr()  # the parameter itself
    with torch.no_grad():
        full = model(ids)
    torch.testing.assert_close(stepped_logits(model, ids), full, atol=1e-4, rtol=1e-4)
    trained = generate_tokens(model, PROMPTS, 12, eos_id=None, temperature=0.0)
    assert trained == generate_tokens(
        model, PROMPTS, 12, eos_id=None, temperature=0.0, use_cache=False
    )


def test_packing_refuses_a_linear_map_without_a_bias():
    model = sharp_model("rope")
    model.blocks[1].attn.W_O = torch.nn.Linear(32, 32, bias=False)
    with pytest.raises(ValueError, match=r"W_O: the one-token step expected .* got bias=None"):
        KVCache.empty(model, 1, 4)


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


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(prompts=[[1, 2.5]]), r"prompts: expected an integer token id, got 2\.5"),
        (dict(prompts=[[1, True]]), r"prompts: expected an integer token id, got True"),
        (dict(prompts=torch.tensor([[1.0, 2.0]])), r"prompts: .*integer token id, got 1\.0"),
        (dict(prompts=[[1, 99]]), r"prompts: token ids must lie in \[0, 22\] .* got \[1, 99\]"),
        (dict(max_new_tokens="3"), r"max_new_tokens: expected an int >= 0, got '3'"),
        (dict(max_new_tokens=2.5), r"max_new_tokens: expected an int >= 0, got 2\.5"),
        (dict(max_new_tokens=-1), r"max_new_tokens: expected an int >= 0, got -1"),
        (dict(eos_id=23), r"eos_id: expected a token id in \[0, 22\] \(vocab_size=23\), got 23"),
        (dict(eos_id=2.0), r"eos_id: expected an integer token id, got 2\.0"),
        (dict(pad_id=-1), r"pad_id: expected a token id in \[0, 22\] \(vocab_size=23\), got -1"),
    ],
)
def test_bad_generation_arguments_are_refused_naming_the_argument(kwargs, message):
    args = dict(prompts=[[1, 4], [1]], max_new_tokens=3, eos_id=2)
    args.update(kwargs)
    model = sharp_model()
    with pytest.raises(ValueError, match=message):
        generate_tokens(model, args.pop("prompts"), args.pop("max_new_tokens"), **args)


def test_token_ids_of_other_integer_types_are_accepted():
    model = sharp_model()
    plain = generate_tokens(model, [[1, 4]], 3, 2, temperature=0.0)
    assert (
        generate_tokens(
            model, [[np.int64(1), torch.tensor(4)]], np.int64(3), np.int32(2), temperature=0.0
        )
        == plain
    )
    assert (
        generate_tokens(model, torch.tensor([[1, 4]], dtype=torch.int32), 3, 2, temperature=0.0)
        == plain
    )


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


def _word_model() -> tuple[WordTokenizer, TransformerLM]:
    """A word tokenizer of the email grammar and an untrained one-layer model over its
    vocabulary (seed 0)."""
    tok = WordTokenizer()
    torch.manual_seed(0)
    model = TransformerLM(
        LMConfig(vocab_size=tok.vocab_size, d_model=16, n_heads=2, n_layers=1, max_len=24)
    )
    return tok, model.eval()


def test_quality_diversity_sweep_and_its_plot():
    tok, model = _word_model()

    def sweep():
        return quality_diversity_sweep(
            model,
            tok,
            DEFAULT_GRAMMAR,
            temperatures=(0.0, 1.0),
            top_ps=(0.5, 1.0),
            n_samples=8,
            max_new_tokens=10,
        )

    rows = sweep()
    assert [(r["knob"], r["value"]) for r in rows] == [
        ("temperature", 0.0),
        ("temperature", 1.0),
        ("top_p", 0.5),
        ("top_p", 1.0),
    ]
    assert rows[0]["distinct"] == 1 / 8  # greedy: every sample is the same
    assert rows == sweep()
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

    tok, model = _word_model()
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
