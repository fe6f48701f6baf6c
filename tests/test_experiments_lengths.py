"""Length generalisation: no long email reaches training, the bands hold what they say, a
tiny run writes the stored structure, and learned positions beyond the training lengths
never move from their initialisation."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest
import torch
from conftest import ROOT

import attnbook.experiments.lengths as lengths
from attnbook.experiments.ablation import build_model
from attnbook.lm.corpus import DEFAULT_GRAMMAR
from attnbook.lm.train import learning_rate

STORED = ROOT / "assets" / "ablation" / "lengths.json"
TINY = lengths.TINY_LENGTH_CONFIG


@pytest.fixture(scope="module")
def data():
    return lengths.length_data(TINY)


def test_no_training_or_validation_email_is_longer_than_the_cutoff(data):
    for split in (data.train.train, data.train.val):
        assert split and max(len(ids) for ids in split) <= TINY.train_max_tokens
    # the cutoff bites: the corpus does hold longer emails, and the bands find them
    assert min(len(ids) for ids in data.bands[-1].ids) > TINY.train_max_tokens


def test_every_band_holds_only_emails_of_its_lengths_and_its_exact_floor(data):
    tokenizer = data.train.tokenizer
    assert [b.band for b in data.bands] == [tuple(b) for b in TINY.bands]
    for band in data.bands:
        low, high = band.band
        assert 0 < len(band.ids) <= TINY.n_per_band
        assert all(low <= len(ids) <= high for ids in band.ids), band.band
        emails = [tokenizer.decode(ids[1:-1]).split() for ids in band.ids]
        for email, per_token in zip(emails[:5], band.exact, strict=False):
            assert len(per_token) == len(email) + 1  # every word and the end
            assert sum(per_token) == pytest.approx(-DEFAULT_GRAMMAR.log_prob(email))
        exact = -sum(DEFAULT_GRAMMAR.log_prob(e) for e in emails) / sum(len(e) + 1 for e in emails)
        assert band.floor == pytest.approx(exact) and band.floor > 0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"bands": ((1, 20), (25, 36))}, "must end at train_max_tokens=24"),
        ({"bands": ((1, 24), (20, 36))}, "non-overlapping"),
        ({"bands": ((1, 24), (40, 30))}, "low <= high"),
        ({"max_len": 30}, r"LengthConfig.max_len: expected at least 79"),
    ],
)
def test_bad_bands_are_refused_with_the_field_and_the_values(change, message):
    with pytest.raises(ValueError, match=message):
        lengths.length_data(dataclasses.replace(TINY, **change))


def test_tiny_run_writes_every_band_its_spread_and_the_figure(tmp_path):
    config = dataclasses.replace(TINY, steps=4, seeds=(0, 1))
    lengths.run_lengths(["learned"], config, tmp_path)
    results = lengths.run_lengths(["none"], config, tmp_path)  # merged into the same file
    assert list(results["variants"]) == ["none", "learned"]  # merged, in the ladder's order
    assert results["command"] == "attnbook ablate --lengths"
    for entry in results["variants"].values():
        assert [r["seed"] for r in entry["runs"]] == [0, 1] == entry["summary"]["seeds"]
        for run in entry["runs"]:
            assert run["steps"] == 4 and run["longest_trained"] <= TINY.train_max_tokens
            assert [b["band"] for b in run["bands"]] == [list(b) for b in TINY.bands]
            for b in run["bands"]:
                assert math.isfinite(b["loss"]) and b["excess"] == pytest.approx(
                    b["loss"] - b["floor"]
                )
                # the split by position adds up to the whole band
                n_beyond = b["n_tokens_beyond"]
                parts = (b["excess_reached"] or 0.0) * (b["n_tokens"] - n_beyond) + (
                    b["excess_beyond"] or 0.0
                ) * n_beyond
                assert parts == pytest.approx(b["excess"] * b["n_tokens"])
            first, last = run["bands"][0], run["bands"][-1]
            assert first["n_tokens_beyond"] == 0 and first["excess_beyond"] is None
            assert last["n_tokens_beyond"] > 0
            counts = run["positions"]["n_tokens"]
            assert sum(counts) == sum(b["n_tokens"] for b in run["bands"])
        for i, spread in enumerate(entry["summary"]["excess"]):
            seeds = [r["bands"][i]["excess"] for r in entry["runs"]]
            assert spread["mean"] == pytest.approx(sum(seeds) / 2)
            assert spread["min"] == min(seeds) and spread["max"] == max(seeds)
        assert entry["runs"][0]["bands"][0]["loss"] != entry["runs"][1]["bands"][0]["loss"]
    assert json.loads((tmp_path / "lengths.json").read_text()) == results
    assert (tmp_path / "lengths.png").stat().st_size > 0
    assert "| learned | 2 |" in lengths.lengths_table(results)


def test_learned_rows_past_the_training_lengths_get_no_gradient(data):
    config = dataclasses.replace(TINY, steps=10)
    run = lengths.run_length_variant("learned", config, data, return_model=True)
    start = build_model("learned", config, data.train.tokenizer.vocab_size)
    # inputs are ids[:-1]: the longest training email uses positions 0 .. longest - 2
    seen = run["longest_trained"] - 1
    trained, initial = run["model"].pos.weight.detach(), start.pos.weight.detach()
    assert not torch.allclose(trained[:seen], initial[:seen], rtol=0.01)
    # beyond them only AdamW's decoupled weight decay acts: p <- (1 - lr_t * wd) p each step
    shrink = math.prod(
        1 - learning_rate(config, t) * config.weight_decay for t in range(config.steps)
    )
    torch.testing.assert_close(trained[seen:], shrink * initial[seen:])


# -- the stored run ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def stored():
    return lengths.load_lengths(STORED)


def test_stored_run_is_complete_and_trained_on_short_emails_only(stored):
    config = stored["config"]
    assert list(stored["variants"]) == ["none", "learned", "rope"]
    assert config["seeds"] == [0, 1, 2]
    for entry in stored["variants"].values():
        assert [r["seed"] for r in entry["runs"]] == [0, 1, 2]
        for run in entry["runs"]:
            assert run["steps"] == config["steps"] and not run["hit_time_cap"]
            assert run["longest_trained"] <= config["train_max_tokens"]
            assert all(b["n_emails"] == config["n_per_band"] for b in run["bands"])


def test_the_benchmark_page_holds_the_stored_table(stored):
    page = (ROOT / "benchmarks" / "results" / "length_generalisation_cpu.md").read_text()
    assert lengths.lengths_table(stored) in page
