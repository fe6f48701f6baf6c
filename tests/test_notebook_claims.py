"""What notebooks 07-09 say about their own outputs holds: time estimates add up, counts
match the cells, and the claims about the shipped model and the stored assets are true.

These read the solution notebooks and recompute the numbers their prose rests on; the notebooks
themselves run in tests/test_notebooks.py."""

from __future__ import annotations

import math
import re

import pytest
import torch
from conftest import SOLUTIONS, read

NUMBERS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
CLAIMED = ("07_training", "08_generation", "09_beyond")


def _markdown(name: str) -> str:
    nb = read(SOLUTIONS / name / f"{name}.ipynb")
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def _time_header(name: str) -> str:
    text = " ".join(_markdown(name).split())
    return re.search(r"\*\*Time\.\*\* (.*?)(?:\*\*|$)", text).group(1)


@pytest.mark.parametrize("name", CLAIMED)
def test_time_estimates_add_up(name):
    """Total = exercises + concept checks + demonstrations, each part = its itemised minutes."""
    header = _time_header(name)
    total = int(re.match(r"About (\d+) minutes:", header).group(1))
    parts = re.findall(r"(\d+) for the (\w+ )?(exercises|concept checks|demonstrations)", header)
    assert [kind for _, _, kind in parts] == ["exercises", "concept checks", "demonstrations"]
    assert sum(int(minutes) for minutes, _, _ in parts) == total, header
    nb = read(SOLUTIONS / name / f"{name}.ipynb")
    exercises = [
        int(m) for m in re.findall(r"### Exercise \d+ · .*?about (\d+) minutes", _markdown(name))
    ]
    checks = [
        c
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade_id", "").startswith("answer_")
        and c.metadata["nbgrader"].get("solution")
    ]
    (ex_minutes, ex_count, _), (check_minutes, check_count, _), (demo_minutes, _, _) = parts
    assert int(ex_minutes) == sum(exercises) and NUMBERS[ex_count.strip()] == len(exercises)
    assert NUMBERS[check_count.strip()] == len(checks), "concept checks counted wrongly"
    assert int(check_minutes) == len(checks), "one minute per concept check"
    itemised = re.search(r"demonstrations: (.*)", header).group(1)
    assert sum(int(m) for m in re.findall(r"\((\d+)\)", itemised)) == int(demo_minutes), header
    per_exercise = re.search(r"exercises \(([^)]*)\)", header).group(1)
    listed = [int(m) for m in re.findall(r"\d+", per_exercise)]
    assert listed == exercises or (len(listed) == 1 and set(exercises) == set(listed))


# -- 07: the shipped model, after "too" and after the sign-off -------------------------------
@pytest.fixture(scope="module")
def shipped():
    from attnbook.lm.generation import find_checkpoint
    from attnbook.lm.train import load_trained

    model, tokenizer, extra = load_trained(find_checkpoint("email_cpu.pt"))
    return model, tokenizer, extra


def _next_word(model, tokenizer, prefix: str) -> dict[str, float]:
    with torch.no_grad():
        ids = torch.tensor([tokenizer.encode(prefix, add_eos=False)])
        probs = torch.softmax(model(ids)[0, -1], dim=-1)
    return {tokenizer.id_to_token[i]: float(p) for i, p in enumerate(probs)}


def test_07_the_model_puts_its_weight_on_the_adjectives_the_two_nouns_allow(shipped):
    from attnbook.lm.corpus import DEFAULT_GRAMMAR

    model, tokenizer, _ = shipped
    prefix = "hello david , my binder did not fit in the bag because it was too"
    probs, true = _next_word(model, tokenizer, prefix), DEFAULT_GRAMMAR.next_word_probs(prefix)
    assert set(true) == {"thick", "wide", "small", "full"}  # binder's or bag's, not yet which
    assert sum(probs[w] for w in true) > 0.98
    assert all(abs(probs[w] - p) < 0.05 for w, p in true.items()), (probs, true)
    signed = _next_word(model, tokenizer, prefix + " wide . thank you ,")
    assert signed["david"] > 0.98
    text = _markdown("07_training")
    assert "which noun `it` refers to" not in text
    assert "revealed" in text or "reveals it" in text


def test_07_shipped_run_is_described_with_its_own_figures(shipped):
    _, _, extra = shipped
    text = " ".join(_markdown("07_training").split())
    assert "3000 steps" in text and extra["train_config"]["steps"] == 3000
    claimed = re.search(r"3000 steps, about (\d+) CPU seconds", text)
    bench = (SOLUTIONS.parent / "benchmarks" / "results" / "train_cpu.md").read_text()
    measured = re.search(r"CPU time, whole command \| (\d+) s", bench)
    assert claimed and measured
    assert abs(int(claimed.group(1)) - int(measured.group(1))) <= 0.1 * int(measured.group(1))


def test_07_head_survey_is_read_by_block_mode_and_email_as_its_numbers_say(shipped):
    """The ablation survey's prose: the block ranges, the heads it names, the rank correlation
    and how likely chance makes it with eight heads, how the three ways of removing a head
    compare, and the spread over emails, each recomputed on the shipped model."""
    import itertools

    import numpy as np

    from attnbook.demos.nb07 import head_survey, rank_correlation, single_thread
    from attnbook.grading import load_reference
    from attnbook.lm.corpus import make_splits

    model, tokenizer, _ = shipped
    nb = read(SOLUTIONS / "07_training" / "07_training.ipynb")
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert 'make_splits(seed=7, n_train=0, n_val=300, n_test=0)["val"]' in code
    assert "head_survey(trained, val_ids[:8], ablate_head)" in code
    emails = make_splits(seed=7, n_train=0, n_val=300, n_test=0)["val"][:8]
    with single_thread():
        rows = head_survey(
            model, [tokenizer.encode(e) for e in emails], load_reference("07_training").ablate_head
        )
    text = " ".join(_markdown("07_training").split())
    head = {f"L{r['layer']}H{r['head']}": r for r in rows}
    blocks = [[r for r in rows if r["layer"] == layer] for layer in (0, 1)]
    zero = [[r["cost_zero"] for r in block] for block in blocks]
    assert "block 0 costs between 0.33 and 1.18 nats per token when zeroed" in text
    assert (f"{min(zero[0]):.2f}", f"{max(zero[0]):.2f}") == ("0.33", "1.18")
    assert "no head of block 1 costs more than 0.18" in text and max(zero[1]) <= 0.18
    assert "the costliest (L0H2 and L1H2)" in text
    for block, name in zip(blocks, ("L0H2", "L1H2")):
        assert max(block, key=lambda r: r["max_weight"]) is head[name]
        assert max(block, key=lambda r: r["cost_zero"]) is head[name]
    by_weight = sorted(rows, key=lambda r: -r["max_weight"])
    assert (
        "**L1H0** has the second most concentrated rows of all eight (mean largest weight 0.78)"
        in text
    )
    assert by_weight[1] is head["L1H0"] and f"{head['L1H0']['max_weight']:.2f}" == "0.78"
    assert all(abs(head["L1H0"][f"cost_{m}"]) < 0.01 for m in ("zero", "uniform", "mean"))
    assert "L0H1, still puts on average 64% of a row on one key and costs 0.48" in text
    assert by_weight[-1] is head["L0H1"] and f"{head['L0H1']['max_weight']:.2f}" == "0.64"
    assert f"{head['L0H1']['cost_zero']:.2f}" == "0.48"
    # the rank correlation, with every mode, and how often chance gives one at least as large
    weights = [r["max_weight"] for r in rows]
    assert (
        "rank correlation of weight and cost is -0.26 (zeroed or mean) or -0.19 (uniform)" in text
    )
    rhos = [
        rank_correlation(weights, [r[f"cost_{m}"] for r in rows])
        for m in ("zero", "uniform", "mean")
    ]
    assert [f"{rho:.2f}" for rho in rhos] == ["-0.26", "-0.19", "-0.26"], rhos
    perms = np.array(list(itertools.permutations(range(8))))  # every ranking of 8 heads
    null = 1 - 6 * ((perms - np.arange(8)) ** 2).sum(1) / (8 * (8**2 - 1))  # Spearman, no ties
    share = float(np.mean(np.abs(null) >= abs(rhos[0]) - 1e-9))
    assert "what chance gives about half the time" in text and 0.4 < share < 0.6, share
    # the modes of removal
    assert "Mean ablation costs within 0.08 nats of zeroing for every head" in text
    assert all(abs(r["cost_mean"] - r["cost_zero"]) < 0.08 for r in rows)
    assert "Uniform attention is cheaper for every head of block 0, by more than 0.1" in text
    assert all(r["cost_uniform"] < r["cost_zero"] for r in blocks[0])
    cheaper = [r for r in rows if r["cost_uniform"] < r["cost_zero"] - 0.1]
    assert sorted(f"L{r['layer']}H{r['head']}" for r in cheaper) == ["L0H0", "L0H2", "L0H3"]
    assert "most of all for L0H2: 0.52 against 1.18 zeroed" in text
    assert f"{head['L0H2']['cost_uniform']:.2f}" == "0.52"
    assert max(cheaper, key=lambda r: r["cost_zero"] - r["cost_uniform"]) is head["L0H2"]
    # the spread over emails
    assert "zeroing L0H2 costs from 0.09 to 3.33 nats per token depending on the email" in text
    by_email = head["L0H2"]["zero_by_email"]
    assert (f"{min(by_email):.2f}", f"{max(by_email):.2f}") == ("0.09", "3.33")


def test_08_says_seven_emails_where_one_greedy_and_six_sampled_are_printed():
    nb = read(SOLUTIONS / "08_generation" / "08_generation.ipynb")
    cells = [c.source for c in nb.cells]
    code = next(i for i, s in enumerate(cells) if "greedy = generate(model, prompts[:1]" in s)
    assert "repeat(6, 1)" in cells[code]
    assert cells[code - 1].lstrip("# ").startswith("Seven emails")
    assert "one greedy, then six sampled" in cells[code - 1]


# -- 09: the probe and the state-space models, worded as the numbers say -------------------------
def test_09_words_the_probe_as_its_numbers_and_the_ssm_note_as_mamba_does():
    text = " ".join(_markdown("09_beyond").split())
    assert "knows where each token stands" not in text
    assert "knows positions" not in text
    assert "selective" in text and "Mamba" in text
    assert "let $A$ and $B$ depend on the input" not in text
    # Mamba makes the step size, B and C input-dependent; A stays a learned constant
    assert "make them functions of the current input" not in text
    assert "$A$ stays a learned constant" in text


def test_08_widget_suggestions_hold_for_the_shipped_model(shipped):
    from attnbook.lm.generation import filtered_distribution, prompt_logits

    model, tokenizer, _ = shipped
    logits = prompt_logits(model, tokenizer.encode("please send the", add_eos=False))

    def kept(temperature, top_k, top_p):
        d = filtered_distribution(logits, temperature, top_k, top_p)
        return {tokenizer.id_to_token[i] for i in (d > 0).nonzero().flatten().tolist()}

    assert kept(1.0, None, 0.15) == {"report"}  # "report alone reaches it"
    assert kept(1.0, None, 0.25) == {"report", "slides"}  # "slides crosses it and stays"
    report = tokenizer.token_to_id["report"]
    at = {t: float(filtered_distribution(logits, t, None, None)[report]) for t in (0.3, 1, 2)}
    assert at[0.3] > at[1] > at[2], "the mass moves onto report, then spreads out"


def test_08_quality_diversity_sweep_reads_as_the_text_says(shipped):
    """The sweep of section 5, same arguments and thread count as the notebook."""
    from attnbook.demos.nb07 import single_thread
    from attnbook.lm.corpus import DEFAULT_GRAMMAR
    from attnbook.lm.generation import quality_diversity_sweep

    model, tokenizer, extra = shipped
    with single_thread():
        rows = quality_diversity_sweep(
            model,
            tokenizer,
            DEFAULT_GRAMMAR,
            temperatures=(0.0, 0.5, 1.0, 1.5, 2.0),
            top_ps=(0.3, 0.6, 0.8, 0.95, 1.0),
            n_samples=100,
            seed=0,
        )
    line = -extra["metrics"]["floor"]  # the grammar's own emails, per token
    temp = {r["value"]: r for r in rows if r["knob"] == "temperature"}
    top_p = {r["value"]: r for r in rows if r["knob"] == "top_p"}
    assert temp[0.0]["valid"] == 1.0 and temp[0.0]["distinct"] <= 0.02  # one email, always
    assert temp[2.0]["valid"] < temp[1.5]["valid"] < 0.9 <= temp[1.0]["valid"]
    log_p = [temp[t]["mean_log_prob"] for t in sorted(temp)]
    assert log_p == sorted(log_p, reverse=True), "the red line falls the whole way"
    assert temp[0.0]["mean_log_prob"] > line + 0.05
    assert abs(temp[0.5]["mean_log_prob"] - line) < 0.01  # "sit on that line"
    assert all(temp[t]["mean_log_prob"] < line for t in (1.0, 1.5, 2.0))
    assert all(r["valid"] >= 0.99 for r in top_p.values()), "nothing to repair at temperature 1"
    distinct = [top_p[p]["distinct"] for p in sorted(top_p)]
    assert distinct == sorted(distinct) and distinct[0] < 0.2 and top_p[0.8]["distinct"] > 0.85
    lp = {p: r["mean_log_prob"] for p, r in top_p.items()}
    assert lp[0.8] < lp[0.95] and lp[0.8] < lp[1.0], "the top-p line is not monotone"
    text = " ".join(_markdown("08_generation").split())
    assert "tells the same story" not in text and "does not move in one direction" in text


def test_09_ladder_is_read_over_its_seeds_at_its_budget_and_the_rerun_ranks_a_pair():
    from attnbook.experiments import ablation

    text = " ".join(_markdown("09_beyond").split())
    assert "at this budget" in text and "three seeds" in text
    assert "one seed" not in text
    nb = read(SOLUTIONS / "09_beyond" / "09_beyond.ipynb")
    rerun = next(c.source for c in nb.cells if "rerun_pair()" in c.source)
    assert "ranking(mine)" in rerun and "stored_ranking(results, RERUN_PAIR)" in rerun
    first, second = ablation.RERUN_PAIR
    assert f"`{first}`" in text and f"`{second}`" in text
    assert f"stopped at step {ablation.RERUN_CONFIG.stop_after} of" in text


# -- 09: length generalisation (section 7 and its recap) -------------------------------------
@pytest.fixture(scope="module")
def lengths_stored():
    from attnbook.experiments.lengths import load_lengths

    return load_lengths()


def _per_seed(entry: dict, band: int, key: str = "excess") -> list[float]:
    return [run["bands"][band][key] for run in entry["runs"]]


def test_09_length_generalisation_budget_is_the_one_the_prose_names(lengths_stored):
    config = lengths_stored["config"]
    assert config["steps"] == 1000 and config["seeds"] == [0, 1, 2]
    assert config["train_max_tokens"] == 24 and config["bands"][1:] == [[25, 36], [37, 80]]
    assert list(lengths_stored["variants"]) == ["none", "learned", "rope"]


def test_09_length_generalisation_claims_hold(lengths_stored):
    variants = lengths_stored["variants"]
    none, learned, rope = variants["none"], variants["learned"], variants["rope"]
    # level on the training lengths: each seed within 0.025 nats of the exact loss
    assert all(max(_per_seed(entry, 0)) < 0.025 for entry in variants.values())
    # the excess grows with the length for every variant and seed
    for entry in variants.values():
        for run in entry["runs"]:
            excess = [band["excess"] for band in run["bands"]]
            assert excess == sorted(excess), (entry["label"], run["seed"], excess)
    # 37-80 tokens: no positions < RoPE < learned on every seed
    assert max(_per_seed(none, 2)) < min(_per_seed(rope, 2))
    assert max(_per_seed(rope, 2)) < min(_per_seed(learned, 2))
    # 25-36 tokens: learned the worst on every seed; no positions and RoPE overlap, the worst
    # no-position seed above the best RoPE seed
    assert min(_per_seed(learned, 1)) > max(_per_seed(rope, 1) + _per_seed(none, 1))
    assert max(_per_seed(none, 1)) > min(_per_seed(rope, 1))
    # positions no training email reached: the same order on every seed in both longer bands
    for band in (1, 2):
        n, r, lp = (_per_seed(e, band, "excess_beyond") for e in (none, rope, learned))
        assert max(n) < min(r) and max(r) < min(lp), band
    # positions training reached: about 0.2 to 0.5 nats on the longer bands, about 0.02 on
    # the short one, for every variant (the printed means)
    for entry in variants.values():
        reached = [s["mean"] for s in entry["summary"]["excess_reached"]]
        assert 0.015 < reached[0] < 0.025 and all(0.2 <= x <= 0.5 for x in reached[1:])


def test_09_learned_positions_lose_before_the_edge_and_reach_is_graded(lengths_stored):
    """Section 7's third bullet: at the positions training reached, learned positions cost
    more than the other two on every seed (the means the prose quotes), and the late rows
    are read by few training emails (the shares the cell prints)."""
    from attnbook.lm.corpus import make_splits

    variants = lengths_stored["variants"]
    text = " ".join(_markdown("09_beyond").split())
    assert "the positions no training email reached" not in text.split("is not all or nothing")[1]
    means = {k: f"{e['summary']['excess_reached'][1]['mean']:+.3f}" for k, e in variants.items()}
    assert (
        f"{means['learned']} nats per token on 25-36 tokens against {means['none']} without "
        f"positions and {means['rope']} with RoPE" in text
    )
    assert means == {"none": "+0.203", "learned": "+0.382", "rope": "+0.223"}
    for band in (1, 2):
        n, r, lp = (
            _per_seed(variants[k], band, "excess_reached") for k in ("none", "rope", "learned")
        )
        assert min(lp) > max(n + r), band
    assert "has nothing to do with positions" not in text
    config = lengths_stored["config"]
    train = [
        e
        for e in make_splits(config["data_seed"], config["n_train"], config["n_val"], n_test=0)[
            "train"
        ]
        if len(e) + 2 <= config["train_max_tokens"]
    ]

    def share(p: int) -> str:
        return f"{sum(len(e) + 2 >= p + 2 for e in train) / len(train):.1%}"

    assert f"position 22 read by {share(22)} of the training emails" in text
    assert f"against {share(14)} for position 14" in text
    assert share(22) == "5.4%"


# -- 11: the signature reads `hi`, whose encoder state carries part of the name -----------------
def test_11_the_signature_reads_hi_and_that_state_moves_with_the_name():
    """Cells 037-038: on the explorer's first email, the position writing the recipient's
    name (the signature) weighs `hi` most, and renaming the recipient moves the encoder state
    at `hi` far more than the median position."""
    import dataclasses

    from attnbook.demos.nb11 import source_attention
    from attnbook.lm.generation import find_checkpoint
    from attnbook.lm.replies import NAMES, ReplyTask, reply_tokenizer
    from attnbook.lm.seq2seq import load_seq2seq

    text = " ".join(_markdown("11_encoder_decoder").split())
    assert "The position writing `farid` weighs `hi`" in text
    model, _ = load_seq2seq(find_checkpoint("replies_cpu.pt"))
    model.eval()
    tokenizer, task = reply_tokenizer(), ReplyTask()
    pairs = [p for p in task.sample_pairs(40, seed=5) if len(p[0].sentences) == 2][:6]
    email, reply_words = pairs[0]
    assert email.recipient == "farid"
    src_ids = tokenizer.encode(email.words())
    maps = source_attention(model, src_ids, tokenizer.encode(reply_words, add_eos=False))
    src_words = [tokenizer.id_to_token[i] for i in src_ids]
    writes = [*reply_words, "<EOS>"]
    t = max(i for i, w in enumerate(writes) if w == "farid")
    assert src_words[int(maps[-1].mean(0)[t].argmax())] == "hi"
    renamed = dataclasses.replace(
        email, recipient=[n for n in NAMES if n not in ("farid", email.sender)][0]
    )
    both = torch.tensor([src_ids, tokenizer.encode(renamed.words())])
    with torch.no_grad():
        memory, _ = model.encode(both)
    moved = (memory[0] - memory[1]).norm(dim=-1) / memory[0].norm(dim=-1)
    assert moved[src_words.index("hi")] > 3 * moved.median()


# -- 11: ablating the cross-attention head that reads the sender's name ----------------------------
@pytest.fixture(scope="module")
def replies_model():
    from attnbook.lm.generation import find_checkpoint
    from attnbook.lm.replies import ReplyTask, reply_tokenizer
    from attnbook.lm.seq2seq import load_seq2seq

    model, _ = load_seq2seq(find_checkpoint("replies_cpu.pt"))
    model.eval()
    return model, reply_tokenizer(), ReplyTask()


@pytest.mark.slow
def test_11_no_single_cross_head_carries_the_greeting_but_the_last_block_does(replies_model):
    """The ablation cell after the explorer: the head of the last block that weighs the
    sender's name most, removed three ways, leaves 35 to 37 of 40 greetings naming the sender
    (the intact model names it in all 40);
    all heads of that block removed leave 10 to 14 of 40, as the prose says."""
    from attnbook.demos.nb11 import cross_head_mean, greeting_under_ablation, source_attention

    model, tokenizer, task = replies_model
    text = " ".join(_markdown("11_encoder_decoder").split())
    assert "The intact model names the sender in all 40 greetings" in text
    assert "35 to 37 of the 40 greetings still name the sender" in text
    assert "(10 to 14 of 40 survive)" in text
    email, reply = [p for p in task.sample_pairs(40, seed=5) if len(p[0].sentences) == 2][0]
    src_ids = tokenizer.encode(email.words())
    maps = source_attention(model, src_ids, tokenizer.encode(reply, add_eos=False))
    src_words = [tokenizer.id_to_token[i] for i in src_ids]
    sender_at = max(j for j, w in enumerate(src_words) if w == email.sender)
    layer = len(model.decoder) - 1
    weights = maps[layer][:, list(reply).index(email.sender), sender_at]
    head = int(weights.argmax())
    assert sum(w > 0.5 for w in weights.tolist()) >= 2, "more than one head weighs the name"
    emails = [e for e, _ in task.sample_pairs(40, seed=7)]
    batch = task.sample_pairs(200, seed=8)
    means = {(layer, h): cross_head_mean(model, tokenizer, batch, layer, h) for h in range(4)}
    assert greeting_under_ablation(model, tokenizer, emails, layer, [], "zero")["named"] == 1.0
    for mode in ("zero", "uniform", "mean"):
        one = greeting_under_ablation(model, tokenizer, emails, layer, [head], mode, means)
        every = greeting_under_ablation(model, tokenizer, emails, layer, range(4), mode, means)
        assert 35 <= round(one["named"] * 40) <= 37, (mode, one)
        assert 10 <= round(every["named"] * 40) <= 14, (mode, every)


# -- 11: a wider beam does worse than greedy decoding on check questions ---------------------------
def test_11_beam_is_worse_than_greedy_where_the_model_overrates_a_reply(replies_model):
    """The check-question cell (40 of seed 1) and the prose after it: greedy decoding writes
    the mode on all 40, a beam of two on 37; the model underrates the mode and overrates
    "the ... looks good ."; the beam's misses are exactly the emails where the model's margin
    is below zero, and each is a reply the task makes less likely than greedy's."""
    from attnbook.lm.replies import REPLY_TABLES
    from attnbook.lm.seq2seq import beam_decode

    model, tokenizer, task = replies_model
    text = " ".join(_markdown("11_encoder_decoder").split())
    nb = read(SOLUTIONS / "11_encoder_decoder" / "11_encoder_decoder.ipynb")
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "task.one_sentence_emails(per_kind=40, seed=1)" in code
    assert "finds the mode on all 40 every time, a beam of two on 40, 37, 38 and 36" in text
    assert "the beam does *worse* than greedy" in text and "changes nothing" not in text
    assert "With $\\alpha = 0.6$ a beam of two finds the mode on all 40" in text
    assert "beam_search(model, src[0], 2, 30, EOS, alpha=0.6)" in code
    mode_t, other_t = "i will check it today .", "the {item} looks good ."
    assert set(REPLY_TABLES["check"]) >= {mode_t, other_t}
    checks = [e for e in task.one_sentence_emails(40, seed=1) if e.kinds == ("check",)]
    gaps = {mode_t: [], other_t: []}
    found, below, worse = {1: 0, 2: 0}, 0, 0
    for email in checks:
        src = torch.tensor([tokenizer.encode(email.words())])
        model_lp = {}
        for template in gaps:
            sentence = template.format(**dict(email.sentences[0].slots)).split()
            words = ["hi", email.sender, ",", *sentence, "thanks", ",", email.recipient, "."]
            tgt = torch.tensor([tokenizer.encode(words)])
            with torch.no_grad():
                log_p = torch.log_softmax(model(src, tgt[:, :-1]), dim=-1)
            model_lp[template] = float(log_p[0].gather(1, tgt[0, 1:, None]).sum())
            gaps[template].append(model_lp[template] - task.log_prob(email, words))
        margin = model_lp[mode_t] - model_lp[other_t]
        below += margin < 0
        mode = " ".join(task.mode(email)[0])
        replies = {
            k: tokenizer.decode(beam_decode(model, src[0], k, 30, tokenizer.eos_id)[0])
            for k in found
        }
        for k in found:
            found[k] += replies[k] == mode
        assert (replies[2] != mode) == (margin < 0), email.text()
        penalised = beam_decode(model, src[0], 2, 30, tokenizer.eos_id, alpha=0.6)[0]
        assert tokenizer.decode(penalised) == mode, email.text()
        if task.log_prob(email, replies[2]) < task.log_prob(email, replies[1]):
            worse += 1
            assert math.isclose(math.exp(task.log_prob(email, replies[2])), 0.18)
    assert found == {1: 40, 2: 37} and below == 3 and worse == 3
    assert sum(gaps[mode_t]) < 0 < sum(gaps[other_t]), "underrates the mode, overrates the other"


def test_09_ladder_names_the_one_recipe_every_variant_trained_with():
    """Section 6's bullet on the shared recipe: the stored ladder's learning rate and warm-up
    are the ones the prose names, the same for every variant (one config for the file)."""
    from attnbook.experiments.ablation import load_results

    text = " ".join(_markdown("09_beyond").split())
    config = load_results()["config"]
    assert "the reference's learning rate (3e-3), 50 warm-up steps and cosine decay" in text
    assert config["lr"] == 3e-3 and config["warmup_steps"] == 50
    assert "post-norm under a pre-norm recipe" in text
