"""Notebook 11's package: the reply task, the course's encoder-decoder, beam search, the
figures and the widget, the shipped checkpoint, and the model crossing the grader's wire."""

from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import pytest
import torch
from conftest import solution_functions
from matplotlib.figure import Figure
from torch import nn

from attnbook.checks.nb11 import RULES, TREE, lookup_model, sharp_seq2seq
from attnbook.demos.nb11 import (
    SourceAttentionExplorer,
    decode_table,
    influence,
    plot_cross_mask,
    plot_decoding,
    plot_influence,
    plot_reply_training,
    plot_source_attention,
    source_attention,
    summarise,
)
from attnbook.grading import load_reference
from attnbook.lm.generation import find_checkpoint
from attnbook.lm.replies import (
    KINDS,
    REPLY_TABLES,
    SIGN_OFFS,
    Email,
    ReplyTask,
    Sentence,
    encode_pairs,
    reply_tokenizer,
)
from attnbook.lm.seq2seq import (
    ReplyTrainConfig,
    Seq2SeqConfig,
    Seq2SeqTransformer,
    as_torch_transformer,
    attention_layer,
    beam_decode,
    greedy_decode,
    initialise,
    load_seq2seq,
    pairs_loss,
    randomise,
    save_seq2seq,
    torch_transformer_logits,
    train_replies,
)

REF = load_reference("11_encoder_decoder")
TASK = ReplyTask()
TOKENIZER = reply_tokenizer()


@pytest.fixture(autouse=True)
def _one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _email(kind: str, **slots) -> Email:
    return Email("anna", "ben", (Sentence(kind, tuple(slots.items())),))


def _model(seed=0, **kw) -> Seq2SeqTransformer:
    config = dict(vocab_size=TOKENIZER.vocab_size, d_model=16, n_heads=2, n_layers=2, max_len=32)
    config.update(kw)
    return randomise(Seq2SeqTransformer(Seq2SeqConfig(**config)), seed).eval()


# ---------------------------------------------------------------------------------------
# The reply task
# ---------------------------------------------------------------------------------------
def test_every_email_has_a_reply_distribution_that_sums_to_one():
    for email, reply in TASK.sample_pairs(300, seed=0):
        replies = TASK.replies(email)
        assert math.isclose(sum(replies.values()), 1.0, abs_tol=1e-12)
        assert reply in replies and TASK.log_prob(email, reply) == math.log(replies[reply])
        assert reply[:3] == ("hi", email.sender, ",")
        assert reply[-2:] == (email.recipient, ".")


def test_sampled_replies_follow_the_exact_probabilities():
    email = _email("meet", day="friday")
    rng = np.random.default_rng(0)
    counts = Counter(TASK.sample_reply(email, rng) for _ in range(20000))
    for reply, p in TASK.replies(email).items():
        assert abs(counts[reply] / 20000 - p) < 5 * math.sqrt(p * (1 - p) / 20000) + 1e-3


def test_next_word_probs_marginalise_the_replies():
    email = _email("send", item="budget")
    probs = TASK.next_word_probs(email, ["hi", "ben", ","])
    assert probs == pytest.approx({"sure": 0.56, "sorry": 0.32, "ok": 0.12})
    assert TASK.next_word_probs(
        email, "hi ben , sorry , the budget is not ready ."
    ) == pytest.approx({"thanks": 0.6, "best": 0.4})
    with pytest.raises(ValueError, match="prefix"):
        TASK.next_word_probs(email, "hi carla ,")
    assert TASK.next_word_probs(
        email, "hi ben , ok , the budget is on its way . best , anna ."
    ) == {"<EOS>": 1.0}


def test_the_traps_greedy_misses_and_a_beam_finds():
    """On the true distribution: greedy decoding misses the mode of requests and meeting
    questions, the other kinds have the greedy reply as their mode."""
    for kind, slots, greedy_p, mode_p in [
        ("send", {"item": "report"}, 0.22, 0.32),
        ("today", {"item": "draft"}, 0.22, 0.32),
        ("meet", {"day": "monday"}, 0.16, 0.45),
        ("order", {"first": "report", "second": "draft"}, 0.60, 0.60),
        ("check", {"item": "agenda"}, 0.50, 0.50),
        ("moved", {"day": "friday"}, 0.70, 0.70),
    ]:
        email = _email(kind, **slots)
        prefix = ["hi", "ben", ","]
        while prefix[-1] != "anna":
            probs = TASK.next_word_probs(email, prefix)
            prefix.append(max(probs, key=probs.get))
        p = math.exp(TASK.log_prob(email, [*prefix, "."]))
        assert p == pytest.approx(greedy_p * 0.6), kind
        assert TASK.mode(email)[1] == pytest.approx(mode_p * 0.6), kind


def test_judge_and_floor():
    email = _email("check", item="invoice")
    mode, _ = TASK.mode(email)
    assert TASK.judge(email, mode).is_mode and TASK.judge(email, mode).regret == 0
    wrong = TASK.judge(email, "hi ben , the report looks good . thanks , anna .")
    assert not wrong.valid and wrong.regret == math.inf and wrong.log_prob == -math.inf
    h, n = TASK.entropy(email)
    expected_h = -sum(p * math.log(p) for p in (0.5, 0.2, 0.3)) - sum(
        p * math.log(p) for p in SIGN_OFFS.values()
    )
    assert h == pytest.approx(expected_h)
    assert TASK.floor([email]) == pytest.approx(h / n)
    pairs = TASK.sample_pairs(2000, seed=4)
    assert TASK.pairs_loss(pairs) == pytest.approx(TASK.floor([e for e, _ in pairs]), abs=0.01)


def test_tables_and_vocabulary():
    assert set(REPLY_TABLES) == set(KINDS)
    words = set(TASK.vocabulary())
    for email, reply in TASK.sample_pairs(200, seed=1):
        assert set(email.words()) | set(reply) <= words
    assert TOKENIZER.vocab_size == len(words) + 3
    per_kind = TASK.one_sentence_emails(3, seed=0)
    assert [e.kinds[0] for e in per_kind] == [k for k in KINDS for _ in range(3)]
    ids = encode_pairs(TOKENIZER, TASK.sample_pairs(2, seed=0))
    assert all(s[0] == 1 and s[-1] == 2 and t[0] == 1 and t[-1] == 2 for s, t in ids)


# ---------------------------------------------------------------------------------------
# The course's encoder-decoder
# ---------------------------------------------------------------------------------------
def test_model_computes_what_torch_nn_transformer_computes():
    """The course's model against nn.Transformer(norm_first=True) holding its weights; the
    second email is padded, so the padding masks are compared too."""
    model = _model(1)
    src = torch.tensor([[1, 20, 30, 40, 50, 2], [1, 21, 2, 0, 0, 0]])  # email 1 padded
    tgt = torch.tensor([[1, 5, 6, 7], [1, 8, 9, 10]])
    theirs = as_torch_transformer(model)
    assert isinstance(theirs, nn.Transformer) and theirs.encoder.layers[0].norm_first
    with torch.no_grad():
        ours = model(src, tgt)
        assert torch.allclose(ours, torch_transformer_logits(model, src, tgt), atol=1e-5)
        # the comparison can fail: another weight in one place is seen at once
        model.decoder[0].cross_attn.W_V.bias.add_(0.5)
        assert not torch.allclose(model(src, tgt), ours, atol=1e-3)
        assert torch.allclose(model(src, tgt), torch_transformer_logits(model, src, tgt), atol=1e-5)


def test_the_notebooks_encoder_decoder_converts_as_well():
    """Notebook 11 compares the learner's EncoderDecoder with nn.Transformer through the same
    function: the solution's module, with random weights, agrees with it."""
    EncoderDecoder = solution_functions("11_encoder_decoder")["EncoderDecoder"]
    model = randomise(EncoderDecoder(40, 32, 4, 2, 16), seed=3).eval()
    src = torch.tensor([[1, 20, 30, 2, 0], [1, 21, 22, 23, 2]])
    tgt = torch.tensor([[1, 5, 6], [1, 8, 9]])
    with torch.no_grad():
        assert torch.allclose(model(src, tgt), torch_transformer_logits(model, src, tgt), atol=1e-5)


def test_padding_causality_and_the_whole_source():
    model = _model(2)
    src = torch.tensor([[1, 20, 30, 40, 2]])
    tgt = torch.tensor([[1, 5, 6, 7, 8]])
    with torch.no_grad():
        base = model(src, tgt)
        padded = model(torch.cat([src, torch.zeros(1, 3, dtype=torch.long)], 1), tgt)
        assert torch.allclose(base, padded, atol=1e-5)
        later = tgt.clone()
        later[0, 3] = 9
        moved = model(src, later)
        assert torch.allclose(moved[:, :3], base[:, :3], atol=1e-6)
        assert not torch.allclose(moved[:, 3], base[:, 3], atol=1e-4)
        last = src.clone()
        last[0, 3] = 41
        assert not torch.allclose(model(last, tgt)[:, 0], base[:, 0], atol=1e-4)


def test_reference_answer_equals_the_course_model_and_initialises_alike():
    for seed in range(3):
        ours = _model(seed)
        theirs = REF.EncoderDecoder(TOKENIZER.vocab_size, 16, 2, 2, 32).eval()
        theirs.load_state_dict(ours.state_dict())
        src = torch.randint(
            3, TOKENIZER.vocab_size, (3, 7), generator=torch.Generator().manual_seed(seed)
        )
        src[1, 4:] = 0
        tgt = torch.randint(1, TOKENIZER.vocab_size, (3, 5))
        with torch.no_grad():
            assert torch.allclose(ours(src, tgt), theirs(src, tgt), atol=1e-5)
    torch.manual_seed(0)
    a = initialise(REF.EncoderDecoder(TOKENIZER.vocab_size, 16, 2, 2, 32))
    torch.manual_seed(0)
    b = Seq2SeqTransformer(Seq2SeqConfig(TOKENIZER.vocab_size, 16, 2, 2, 32))
    assert all(torch.equal(a.state_dict()[k], v) for k, v in b.state_dict().items())


def test_config_errors_name_the_field():
    with pytest.raises(ValueError, match="d_model"):
        Seq2SeqConfig(vocab_size=10, d_model=10, n_heads=4)
    with pytest.raises(ValueError, match="positions"):
        Seq2SeqConfig(vocab_size=10, positions="rope")
    with pytest.raises(ValueError, match="n_layers"):
        Seq2SeqConfig(vocab_size=10, n_layers=0)
    model = _model(0, max_len=8)
    with pytest.raises(ValueError, match="src_ids"):
        model(torch.zeros(1, 9, dtype=torch.long), torch.ones(1, 3, dtype=torch.long))
    with pytest.raises(ValueError, match="batch size"):
        model(torch.ones(2, 3, dtype=torch.long), torch.ones(1, 3, dtype=torch.long))


def test_attention_layer_is_projections_then_cross_attention_then_w_o():
    torch.manual_seed(0)
    layer = attention_layer(8, 2)
    x, memory = torch.randn(2, 3, 8), torch.randn(2, 5, 8)
    real = torch.tensor([[True] * 5, [True, True, False, False, False]])
    q, k, v = layer.project(x, memory)
    Y, A = REF.cross_attention(q, k, v, real)
    with torch.no_grad():
        assert torch.allclose(layer.combine(Y), layer(x, memory, real[:, None, None, :]), atol=1e-6)
        assert torch.allclose(layer.weights(x, memory, real[:, None, None, :]), A, atol=1e-6)
        empty = torch.zeros(2, 5, dtype=torch.bool)
        out = layer(x, memory, empty[:, None, None, :])
        assert torch.allclose(out, layer.W_O.bias.expand_as(out))  # zero attention output


def test_save_and_load(tmp_path):
    model = _model(3)
    save_seq2seq(model, tmp_path / "m.pt", note="x")
    loaded, extra = load_seq2seq(tmp_path / "m.pt")
    assert extra == {"note": "x"} and not loaded.training
    src, tgt = torch.tensor([[1, 7, 2]]), torch.tensor([[1, 4]])
    with torch.no_grad():
        assert torch.equal(loaded(src, tgt), model(src, tgt))


def test_training_lowers_the_loss_and_is_reproducible():
    pairs = encode_pairs(TOKENIZER, TASK.sample_pairs(200, seed=0))
    config = ReplyTrainConfig(
        steps=30, batch_size=16, warmup_steps=3, eval_every=30, progress=False
    )
    losses = []
    for _ in range(2):
        torch.manual_seed(0)
        model = Seq2SeqTransformer(Seq2SeqConfig(TOKENIZER.vocab_size, 16, 2, 1, 32))
        before = pairs_loss(model, pairs[:50])
        run = train_replies(model, pairs, pairs[:50], config)
        losses.append([r["train_loss"] for r in run["log"]])
        assert run["steps"] == 30 and run["val_loss"] < before - 0.5
        assert not model.training
    assert losses[0] == losses[1]


# ---------------------------------------------------------------------------------------
# Decoding
# ---------------------------------------------------------------------------------------
def test_lookup_model_has_exactly_its_table():
    model = lookup_model(TREE, 13)
    for token, row in TREE.items():
        with torch.no_grad():
            p = torch.softmax(
                model(torch.tensor([[5, 6]]), torch.tensor([[1, token]]))[0, -1].double(), -1
            )
        for nxt, prob in row.items():
            assert float(p[nxt]) == pytest.approx(prob, abs=1e-6)


def _exhaustive(model, src, max_len, eos):
    """The most likely finished reply by trying every sequence of a small vocabulary."""
    best = (-math.inf, None)
    frontier = [([1], 0.0)]
    for _ in range(max_len):
        new = []
        for prefix, score in frontier:
            with torch.no_grad():
                lp = torch.log_softmax(model(src[None], torch.tensor([prefix]))[0, -1].double(), -1)
            for t in range(lp.shape[0]):
                s = score + float(lp[t])
                if t == eos:
                    best = max(best, (s, prefix + [t]))
                elif s > best[0]:
                    new.append((prefix + [t], s))
        frontier = new
    return best


def test_a_wide_beam_finds_the_mode_and_a_beam_of_one_is_greedy():
    model = lookup_model(TREE, 13)
    src = torch.tensor([1, 5, 2])
    assert beam_decode(model, src, 1, 5, 2)[0] == [1, 3, 6, 2]
    assert beam_decode(model, src, 2, 5, 2)[0] == [1, 4, 10, 2]
    ids, score = beam_decode(model, src, 3, 5, 2)
    assert ids == [1, 5, 12, 2] and score == pytest.approx(math.log(0.25), abs=1e-5)
    small = sharp_seq2seq(7, vocab_size=6)
    src = torch.tensor([3, 4, 5])
    score, ids = _exhaustive(small, src, 4, 2)
    found, found_score = beam_decode(small, src, 6**4, 4, 2)
    assert found == ids and found_score == pytest.approx(score, abs=1e-5)
    greedy, prefix = greedy_decode(small, src, 6, 2), [1]
    for _ in range(len(greedy[0]) - 1):
        with torch.no_grad():
            prefix.append(int(small(src[None], torch.tensor([prefix]))[0, -1].argmax()))
    assert greedy[0] == prefix


def test_package_beam_search_agrees_with_the_reference():
    """With and without the length penalty, on random models and end tokens."""
    for seed in range(8):
        rng = np.random.default_rng(seed)
        V = int(rng.integers(5, 10))
        model = sharp_seq2seq(100 + seed, vocab_size=V, eos_bias=float(rng.uniform(0, 3)))
        src = torch.as_tensor(rng.integers(3, V, size=4))
        k, max_len, eos = int(rng.integers(1, 5)), int(rng.integers(1, 8)), int(rng.integers(2, V))
        for alpha in (0.0, 0.6, 2.0):
            ids, score = beam_decode(model, src, k, max_len, eos, alpha=alpha)
            ref_ids, ref_score = REF.beam_search(model, src, k, max_len, eos, alpha=alpha)
            assert ids == ref_ids.tolist() and score == pytest.approx(ref_score, abs=1e-4)


# ---------------------------------------------------------------------------------------
# Figures and the widget
# ---------------------------------------------------------------------------------------
def test_source_attention_rows_are_distributions_over_real_tokens():
    model = _model(4)
    email = TASK.sample_pairs(1, seed=2)[0]
    src = TOKENIZER.encode(email[0].words())
    tgt = TOKENIZER.encode(email[1], add_eos=False)
    maps = source_attention(model, src + [0, 0], tgt)
    assert maps.shape == (2, 2, len(tgt), len(src) + 2)
    assert torch.allclose(maps.sum(-1), torch.ones(2, 2, len(tgt)), atol=1e-5)
    assert torch.all(maps[..., -2:] == 0)
    assert not model.decoder[0].cross_attn._forward_pre_hooks


def test_source_attention_reproduces_the_cross_attention_output():
    model = _model(5)
    src, tgt = torch.tensor([[1, 20, 30, 2]]), torch.tensor([[1, 5, 6]])
    maps = source_attention(model, src[0], tgt[0])
    caught = {}
    layer = model.decoder[1].cross_attn
    hooks = [
        layer.register_forward_pre_hook(lambda _m, a: caught.update(args=a)),
        layer.register_forward_hook(lambda _m, _a, out: caught.update(out=out)),
    ]
    with torch.no_grad():
        model(src, tgt)
        for h in hooks:
            h.remove()
        _, _, v = layer.project(caught["args"][0], caught["args"][1])
        assert torch.allclose(layer.combine(maps[1][None] @ v), caught["out"], atol=1e-5)


def test_explorer_shows_the_chosen_block_head_and_word():
    model = _model(6)
    pairs = [p for p in TASK.sample_pairs(30, seed=5) if len(p[0].sentences) == 2][:3]
    widget = SourceAttentionExplorer(model, TOKENIZER, [e for e, _ in pairs], [r for _, r in pairs])
    assert widget.layer.value == 1 and widget.head.value == -1
    assert widget.word.value == 1, "the explorer opens on the greeting's name"
    html = widget.display.value
    assert 'data-layer="1"' in html and 'data-head="-1"' in html and 'data-word="1"' in html
    widget.head.value, widget.layer.value, widget.word.value = 1, 0, 4
    grid = widget.grid()
    src = TOKENIZER.encode(pairs[0][0].words())
    tgt = TOKENIZER.encode(pairs[0][1], add_eos=False)
    assert np.allclose(grid, source_attention(model, src, tgt)[0, 1].numpy())
    import re

    cells = [float(w) for w in re.findall(r'data-weight="([^"]+)"', widget.display.value)]
    assert np.allclose(np.array(cells).reshape(grid.shape), grid, atol=1e-6)
    top = int(np.argmax(grid[4]))
    word = widget.reply_tokens()[4]
    assert (
        f"writes '{word}' puts {grid[4, top]:.2f} on source token {top}"
        in widget.display.value.replace("&#x27;", "'")
    )
    widget.email.value = 2
    assert widget.word.value == 1 and widget.reply_tokens()[1] == pairs[2][0].sender
    assert len(widget.reply_tokens()) == len(pairs[2][1]) + 1


def test_figures_are_labelled():
    email, reply = TASK.sample_pairs(1, seed=0)[0]
    src = TOKENIZER.encode(email.words())
    tgt = TOKENIZER.encode(reply, add_eos=False)
    weights = np.full((len(tgt), len(src)), 1 / len(src))
    figures = [
        plot_source_attention(weights, [str(i) for i in src], [str(i) for i in tgt]),
        plot_cross_mask([["a", "b", "<PAD>"], ["a", "b", "c"]], [["x", "y"], ["x", "y"]]),
        plot_influence(np.ones((2, 3)), np.tril(np.ones((2, 2))), ["a", "b", "c"], ["x", "y"]),
        plot_reply_training(
            [
                {"step": s, "train_loss": 1.0 / s, "val_loss": None if s % 5 else 0.5}
                for s in range(1, 31)
            ],
            0.14,
        ),
    ]
    for fig in figures:
        assert isinstance(fig, Figure)
        for ax in fig.axes[:2]:
            if ax.get_label() == "<colorbar>":
                continue
            assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title()


def test_influence_grids_show_the_masks():
    model = _model(8)
    src = torch.tensor([[1, 20, 30, 40, 2, 0, 0]])
    tgt = torch.tensor([[1, 5, 6, 7]])
    G_src, G_tgt = influence(model, src, tgt, TOKENIZER.vocab_size)
    assert np.all(G_src[:, :5] > 1e-6) and np.all(G_src[:, 5:] == 0)
    assert np.all(np.triu(G_tgt, 1) < 1e-6) and np.all(np.diag(G_tgt) > 1e-6)


def test_decode_table_scores_with_the_task():
    model = lookup_model(TREE, TOKENIZER.vocab_size)
    emails = TASK.one_sentence_emails(1, seed=0)
    rows = decode_table(
        TASK, TOKENIZER, emails, lambda src, k: beam_decode(model, src, k, 4, 2), beam_sizes=(1, 2)
    )
    assert len(rows) == 2 * len(emails)
    assert all(not r["valid"] and r["true_log_p"] == -math.inf for r in rows)
    summary = summarise(rows, lambda r: r["beam"])
    assert summary[1]["valid"] == 0.0 and summary[2]["n"] == len(emails)
    assert isinstance(plot_decoding(rows), Figure)


# ---------------------------------------------------------------------------------------
# The shipped checkpoint and what notebook 11 says about it
# ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def shipped():
    model, extra = load_seq2seq(find_checkpoint("replies_cpu.pt"))
    return model, extra


def test_shipped_checkpoint_reaches_the_floor(shipped):
    model, extra = shipped
    assert extra["tokenizer"] == TOKENIZER.to_dict()
    metrics = extra["metrics"]
    assert metrics["val_loss"] - metrics["val_floor"] < 0.01
    assert metrics["decoding"][1]["valid"] >= 0.99


def test_shipped_model_finds_the_modes_the_notebook_promises(shipped):
    model, _ = shipped
    emails = TASK.one_sentence_emails(per_kind=8, seed=0)
    rows = decode_table(
        TASK,
        TOKENIZER,
        emails,
        lambda src, k: beam_decode(model, src, k, 30, 2),
        beam_sizes=(1, 2, 3),
    )
    by = summarise(rows, lambda r: (r["kinds"][0], r["beam"]))
    assert all(r["valid"] for r in rows)
    for kind in ("send", "today", "meet"):
        assert by[(kind, 1)]["mode"] == 0.0, kind
    assert by[("meet", 2)]["mode"] == 1.0
    for kind in ("send", "today"):
        assert by[(kind, 3)]["mode"] == 1.0
    for kind in ("order", "check", "moved"):
        assert by[(kind, 1)]["mode"] == by[(kind, 3)]["mode"] == 1.0, kind


# ---------------------------------------------------------------------------------------
# The grader's wire: the model crosses by state
# ---------------------------------------------------------------------------------------
def test_model_crosses_the_wire_by_state_and_comes_back_as_a_copy():
    from grader import wire

    model = _model(9)
    args, _ = wire.encode_call([model], {})
    sent = json.loads(json.dumps(args[0]))
    rebuilt = wire.Decoder(objects=True).decode(sent)
    assert type(rebuilt) is Seq2SeqTransformer and rebuilt is not model
    src, tgt = torch.tensor([[1, 20, 2]]), torch.tensor([[1, 4, 5]])
    with torch.no_grad():
        assert torch.equal(rebuilt(src, tgt), model(src, tgt))
    back = wire.restore(json.loads(json.dumps(wire.encode(rebuilt))), model)
    assert back is not model and type(back) is Seq2SeqTransformer
    assert "attnbook.lm.seq2seq.Seq2SeqTransformer" in wire.TRUSTED_MODELS


def test_length_penalty_ranks_finished_replies_as_wu_et_al():
    """beam_decode(alpha=...) returns the finished reply with the best log p / ((5 + n) / 6)
    ** alpha (n tokens after <BOS>, <EOS> included), found by listing every reply of the
    RULES table; alpha = 0 is the plain total log-probability, and a larger alpha moves
    the answer to a longer reply."""
    model = lookup_model(RULES, 8)
    src = torch.tensor([3, 4])
    max_len = 4

    def replies(prefix, log_p):
        if prefix[-1] == 2:
            yield prefix, log_p
        elif len(prefix) - 1 < max_len:
            for token, p in RULES.get(prefix[-1], {}).items():
                yield from replies([*prefix, token], log_p + math.log(p))

    chosen = {}
    for alpha in (0.0, 0.6, 3.0):
        best = max(replies([1], 0.0), key=lambda r: r[1] / ((5 + len(r[0]) - 1) / 6) ** alpha)
        ids, score = beam_decode(model, src, 8**max_len, max_len, 2, alpha=alpha)
        assert ids == best[0] and score == pytest.approx(best[1], abs=1e-5), alpha
        chosen[alpha] = ids
    assert chosen[0.0] == beam_decode(model, src, 8**max_len, max_len, 2)[0]
    assert len(chosen[3.0]) > len(chosen[0.0])
    with pytest.raises(ValueError, match="alpha"):
        beam_decode(model, src, 2, max_len, 2, alpha=-1.0)


def test_encoder_decoder_check_names_the_property_an_unknown_slip_breaks():
    """Wrong logits no catalogued slip gives: the check tries the properties a right answer
    has on the learner's module and names the one broken (here, padding changes the logits)."""

    class PaddingLeaks(REF.EncoderDecoder):
        def forward(self, src, tgt):
            return super().forward(src, tgt) + 0.01 * (src == 0).sum()

    from attnbook.checks import CheckFailure, check_encoder_decoder

    PaddingLeaks.__name__ = "EncoderDecoder"
    with pytest.raises(CheckFailure, match="adding two <PAD> tokens") as info:
        check_encoder_decoder(PaddingLeaks)
    assert "source padding mask" in str(info.value)
