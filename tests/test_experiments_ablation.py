"""The ablation ladder: a tiny run writes what the stored run has; the stored run is complete
and shows what benchmarks/results/ablation_cpu.md says it shows."""

from __future__ import annotations

import csv
import dataclasses
import json
import math

import pytest
import torch
from conftest import ROOT
from matplotlib.figure import Figure

import attnbook.experiments.ablation as ablation
from attnbook.lm.generation import KVCache, decode_step
from attnbook.lm.model import LMConfig, TransformerLM
from attnbook.lm.tokenizer import WordTokenizer
from attnbook.tolerance import tolerance

STORED = ROOT / "assets" / "ablation"
RUN_FIELDS = set(ablation.RUN_FIELDS)
VARIANT_FIELDS = {"name", "group", "label", "overrides", "n_parameters", "runs", "summary"}
SUMMARY_FIELDS = {
    "seeds",
    "steps",
    "hit_time_cap",
    "cpu_s",
    "wall_s",
    "val_curve",
    *ablation.METRICS,
}
TINY = dataclasses.replace(
    ablation.TINY_CONFIG, steps=4, eval_every=2, n_train=300, n_val=50, n_probe=20,
    entropy_samples=300, seeds=(0, 1),
)  # fmt: skip


@pytest.fixture(scope="module")
def stored():
    return ablation.load_results(STORED / "results.json")


def test_tiny_run_writes_every_seed_its_spread_csvs_and_figure(tmp_path):
    results = ablation.run_ladder(["rope", "no_mask"], TINY, tmp_path)
    assert list(results["variants"]) == ["rope", "no_mask"]  # the ladder's order
    for name in ("rope", "no_mask"):
        entry = results["variants"][name]
        assert set(entry) == VARIANT_FIELDS and set(entry["summary"]) == SUMMARY_FIELDS
        assert [run["seed"] for run in entry["runs"]] == [0, 1] == entry["summary"]["seeds"]
        for run in entry["runs"]:
            assert set(run) == RUN_FIELDS
            assert run["steps"] == 4 and not run["hit_time_cap"]
            assert run["val_curve"][-1][0] == 4 and math.isfinite(run["final_val_loss"])
            assert 0.0 <= run["order_probe_accuracy"] <= 1.0 and run["order_probe_n"] > 0
            with (tmp_path / f"{name}_seed{run['seed']}.csv").open() as f:
                rows = list(csv.DictReader(f))
            assert [int(r["step"]) for r in rows] == [2, 4]  # one row per validation
            assert all(r["val_loss"] and r["train_loss"] for r in rows)
        losses = [run["final_val_loss"] for run in entry["runs"]]
        spread = entry["summary"]["final_val_loss"]
        assert spread["mean"] == pytest.approx(sum(losses) / 2)
        assert spread["min"] == min(losses) and spread["max"] == max(losses)
        assert spread["sd"] == pytest.approx(abs(losses[0] - losses[1]) / math.sqrt(2))
        assert losses[0] != losses[1], "two seeds must be two different runs"
    assert (tmp_path / "ablation.png").stat().st_size > 0
    on_disk = json.loads((tmp_path / "results.json").read_text())
    assert on_disk == json.loads(json.dumps(results))
    assert on_disk["config"]["steps"] == 4 and on_disk["config"]["seeds"] == [0, 1]
    assert "threads" not in on_disk["config"] and "seed" not in on_disk["config"]


def test_rerunning_one_variant_updates_only_it_and_a_new_budget_starts_afresh(tmp_path):
    ablation.run_ladder(["rope", "tied"], TINY, tmp_path)
    before = ablation.load_results(tmp_path / "results.json")
    after = ablation.run_ladder(["tied"], dataclasses.replace(TINY, seeds=(1, 2)), tmp_path)
    assert set(after["variants"]) == {"tied"}, "another budget must not mix with the old one"
    again = ablation.run_ladder(["tied"], TINY, tmp_path)
    assert set(again["variants"]) == {"tied"}
    for old, new in zip(before["variants"]["tied"]["runs"], again["variants"]["tied"]["runs"]):
        assert new["final_val_loss"] == pytest.approx(old["final_val_loss"], abs=1e-6)


def test_command_line_runs_one_variant(tmp_path):
    results = ablation.main(
        [
            "--variant",
            "none",
            "--steps",
            "3",
            "--n-train",
            "300",
            "--out",
            str(tmp_path),
            "--threads",
            "1",
            "--seeds",
            "4",
        ]
    )
    assert list(results["variants"]) == ["none"]
    assert results["variants"]["none"]["summary"]["steps"] == 3
    assert results["variants"]["none"]["summary"]["seeds"] == [4]
    with pytest.raises(SystemExit):
        ablation.main(["--variant", "no_such_variant"])


def test_variants_change_exactly_one_design_choice_each():
    reference = {
        "positions": "rope",
        "norm": "pre",
        "tie_weights": False,
        "causal": True,
        "embed_scale": False,
    }
    for name, (_group, _label, overrides) in ablation.VARIANTS.items():
        choice = set(overrides) - {"embed_scale"}  # the scale goes with added sinusoids
        assert len(choice) == 1 and set(overrides) <= set(reference), name
        assert "embed_scale" not in overrides or overrides["positions"] == "sinusoidal", name
        model = ablation.build_model(name, TINY, vocab_size=30)
        for key, value in reference.items():
            assert getattr(model.config, key) == overrides.get(key, value), (name, key)
    assert ablation.VARIANTS["sinusoidal"][2] == {"positions": "sinusoidal", "embed_scale": True}
    assert ablation.VARIANTS["sinusoidal_unscaled"][2] == {"positions": "sinusoidal"}
    tied = ablation.build_model("tied", TINY, 30)
    assert tied.head.weight is tied.embed.weight


# -- the embedding scale that sinusoids come with ----------------------------------------------
def _scaled_pair(positions="sinusoidal", d=32, **kw):
    """A decoder with embed_scale and a plain twin whose table holds the scaled vectors."""
    torch.manual_seed(0)
    config = LMConfig(
        vocab_size=30,
        d_model=d,
        n_heads=4,
        n_layers=2,
        max_len=16,
        positions=positions,
        embed_scale=True,
        **kw,
    )
    scaled = TransformerLM(config).eval()
    plain = TransformerLM(dataclasses.replace(config, embed_scale=False)).eval()
    plain.load_state_dict(scaled.state_dict())
    with torch.no_grad():
        plain.embed.weight.mul_(math.sqrt(d))  # E[w] sqrt(d) stored in the table itself
    return scaled, plain


@pytest.mark.parametrize("positions", ["sinusoidal", "learned", "rope", "none"])
def test_embed_scale_multiplies_the_token_vectors_by_sqrt_d(positions):
    scaled, plain = _scaled_pair(positions)
    ids = torch.randint(0, 30, (2, 9), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        assert torch.allclose(scaled(ids), plain(ids), atol=1e-5)
        assert torch.allclose(scaled.embed_tokens(ids), plain.embed(ids), atol=1e-6)
    # Cached decoding embeds through the same method: one token at a time, the same logits.
    cache = KVCache.empty(scaled, 2, 9)
    with torch.no_grad():
        stepped = torch.cat([decode_step(scaled, ids[:, t : t + 1], cache) for t in range(9)], 1)
        assert torch.allclose(stepped, scaled(ids), atol=1e-4)


def test_embed_scale_lifts_the_token_vectors_to_the_scale_of_the_sinusoids():
    """At initialisation, H0 = sqrt(d) E[w] + P: the token part is no longer drowned."""
    d, L = 64, 40
    ids = torch.randint(3, 90, (8, L), generator=torch.Generator().manual_seed(0))
    ratios = {}
    for scale in (False, True):
        torch.manual_seed(0)
        model = TransformerLM(
            LMConfig(
                vocab_size=90,
                d_model=d,
                n_heads=4,
                n_layers=1,
                max_len=L,
                positions="sinusoidal",
                embed_scale=scale,
            )
        )
        with torch.no_grad():
            token = model.embed_tokens(ids)  # (B, L, d)
        ratios[scale] = float(token.pow(2).mean().sqrt() / model.sinusoids.pow(2).mean().sqrt())
    assert ratios[False] < 0.05, ratios  # std 0.02 against the sinusoids' 1/sqrt(2)
    assert 1.0 < ratios[True] < 2.0, ratios  # unit variance per feature against 1/2
    assert LMConfig(vocab_size=5).embed_scale is False, "notebook 06's Decoder: H0 = E[w] + P"


def test_tied_head_with_embed_scale_keeps_unit_scale_logits():
    _, plain = _scaled_pair("sinusoidal", d=64)
    scaled, _ = _scaled_pair("sinusoidal", d=64, tie_weights=True)
    assert scaled.head.weight is scaled.embed.weight
    assert float(scaled.embed.weight.detach().std()) == pytest.approx(64**-0.5, rel=0.1)
    assert float(plain.head.weight.detach().std()) == pytest.approx(0.02, rel=0.1)


def test_order_probe_items_put_the_right_item_first():
    tok = WordTokenizer()
    emails = [
        "please send the report before the slides . report first , slides second .".split(),
        "hi anna , please print the slides after the report . report first , slides second "
        ". thanks , anna .".split(),
    ]
    items = ablation.order_probe_items(emails, tok)
    assert [tok.id_to_token[it["first_id"]] for it in items] == ["report", "report"]
    assert [tok.id_to_token[it["second_id"]] for it in items] == ["slides", "slides"]
    assert items[0]["text"].endswith("before the slides .")
    assert tok.id_to_token[items[1]["prefix_ids"][-1]] == "."


def test_order_probe_reads_the_prefix_only():
    """An unmasked model scored by the probe must not see anything after the prefix."""
    tok = WordTokenizer()
    items = ablation.order_probe_items(
        ["please send the report before the slides . report first , slides second .".split()], tok
    )
    model = ablation.build_model("no_mask", TINY, tok.vocab_size).eval()
    prefix = torch.tensor([items[0]["prefix_ids"]])
    with torch.no_grad():
        probs = model(prefix)[0, -1].softmax(-1)
    expected = float(probs[items[0]["first_id"]] > probs[items[0]["second_id"]])
    assert ablation.order_probe(model, items)["accuracy"] == expected


# -- the stored run -------------------------------------------------------------------------
@pytest.mark.parametrize("name", ablation.VARIANTS)
def test_stored_variant_has_a_run_for_every_seed(stored, name):
    runs = stored["variants"][name]["runs"]
    assert [run["seed"] for run in runs] == stored["config"]["seeds"], name


def test_stored_run_is_complete_with_at_least_three_seeds_per_variant(stored):
    assert list(stored["variants"]) == list(ablation.VARIANTS)
    config = stored["config"]
    assert len(config["seeds"]) >= 3 and config["stop_after"] is None
    for name, entry in stored["variants"].items():
        assert set(entry) == VARIANT_FIELDS and set(entry["summary"]) == SUMMARY_FIELDS, name
        seeds = [run["seed"] for run in entry["runs"]]
        assert seeds == sorted(set(seeds)) and set(seeds) <= set(config["seeds"]), name
        assert len(seeds) >= 3, name
        for run in entry["runs"]:
            assert set(run) == RUN_FIELDS, name
            assert run["steps"] == config["steps"] and not run["hit_time_cap"], name
            assert run["cpu_s"] < 300, f"{name}: over the budget of 5 minutes on two cores"
            assert run["order_probe_n"] == config["n_probe"]
            assert (STORED / f"{name}_seed{run['seed']}.csv").exists(), name
        # The stored spread is the spread of the stored runs.
        assert entry["summary"] == json.loads(json.dumps(ablation.summarise_runs(entry["runs"])))
    assert (STORED / "ablation.png").exists()
    stale = [
        p.name
        for p in STORED.glob("*.csv")
        if p.stem.rsplit("_seed", 1)[0] not in ablation.VARIANTS
    ]
    assert not stale, f"curves of no stored variant: {stale}"
    size = sum(p.stat().st_size for p in STORED.iterdir() if p.is_file())
    assert size < 2_000_000, f"assets/ablation holds {size} bytes"


def test_stored_figure_and_table_show_the_spread(stored):
    fig = ablation.plot_ablation(stored)
    assert isinstance(fig, Figure)
    for ax in fig.axes:
        assert ax.get_xlabel() and ax.get_title()
    assert any("seeds" in ax.get_title() for ax in fig.axes)
    table = ablation.results_table(stored)
    for name, entry in stored["variants"].items():
        excess = entry["summary"]["excess_over_entropy"]
        assert (
            f"| {name} |" in table
            and f"{excess['mean']:+.4f} ± {excess['sd']:.4f}" in table
            and f"{excess['min']:+.4f} … {excess['max']:+.4f}" in table
        ), name


def test_rerun_reproduces_the_stored_runs_first_steps_and_ranks_the_pair_as_stored(stored):
    """Notebook 09's rerun cell: what it prints agrees with the stored ladder."""
    config = ablation.RERUN_CONFIG
    assert {
        k: v for k, v in ablation._shared(config).items() if k not in ("seeds", "stop_after")
    } == {k: v for k, v in stored["config"].items() if k not in ("seeds", "stop_after")}
    records = ablation.rerun_pair()
    for name, record in records.items():
        assert record["steps"] == config.stop_after
        stored_run = next(r for r in stored["variants"][name]["runs"] if r["seed"] == config.seed)
        stored_loss = dict(map(tuple, stored_run["val_curve"]))[config.stop_after]
        # The stored run was trained on another machine: the same steps in float32, each
        # step one stage of rounding on the weights (attnbook.tolerance); measured across
        # this CPU's kernel sets, the rerun is within 3e-7 of it.
        tol = tolerance(torch.float32, stored_loss, depth=config.stop_after)
        assert math.isclose(
            record["final_val_loss"], stored_loss, rel_tol=tol.rtol, abs_tol=tol.atol
        ), name
    pair = ablation.RERUN_PAIR
    assert ablation.ranking(records) == ablation.stored_ranking(stored, pair)
    # ... and the stored ranking is no accident of one seed: every seed ranks the pair alike.
    better, worse = ablation.stored_ranking(stored, pair)
    metric = ablation.RERUN_METRIC
    seeds = [[run[metric] for run in stored["variants"][name]["runs"]] for name in (better, worse)]
    assert all(
        ablation.ranking({better: {metric: b}, worse: {metric: w}}, metric) == [better, worse]
        for b, w in zip(*seeds)
    )
    # Every stored seed already ranks the pair so at the rerun's step: a short rerun suffices.
    for b_run, w_run in zip(*(stored["variants"][name]["runs"] for name in (better, worse))):
        at = [dict(map(tuple, run["val_curve"]))[config.stop_after] for run in (b_run, w_run)]
        assert at[0] < at[1], (b_run["seed"], at)


def _summary(stored, name, metric):
    return stored["variants"][name]["summary"][metric]


def _runs(stored, name, metric):
    return [run[metric] for run in stored["variants"][name]["runs"]]


def test_stored_findings_hold_as_notebook_09_and_the_benchmark_word_them(stored):
    """What benchmarks/results/ablation_cpu.md and notebook 09 say the ladder shows, at its
    budget and over its seeds, asserted on the stored runs."""
    excess = {n: _summary(stored, n, "excess_over_entropy") for n in ablation.VARIANTS}
    probe = {n: _summary(stored, n, "order_probe_accuracy") for n in ablation.VARIANTS}
    causal = [n for n in ablation.VARIANTS if n != "no_mask"]
    # Every causal run stays above the entropy floor, within a tenth of a nat.
    assert all(0.0 < e < 0.1 for n in causal for e in _runs(stored, n, "excess_over_entropy"))
    # RoPE and the scaled sinusoids end closest to the floor, within each other's spread,
    # and they alone have learned the order sentences on every seed.
    closest = sorted(causal, key=lambda n: excess[n]["mean"])[:2]
    assert set(closest) == {"rope", "sinusoidal"}
    gap = abs(excess["rope"]["mean"] - excess["sinusoidal"]["mean"])
    assert gap < excess["rope"]["sd"] + excess["sinusoidal"]["sd"]
    learned_order = {n for n in ablation.VARIANTS if probe[n]["min"] > 0.8}
    assert learned_order == {"rope", "sinusoidal"}
    # The sqrt(d) scale: every scaled seed ends below every unscaled one.
    assert excess["sinusoidal"]["max"] < excess["sinusoidal_unscaled"]["min"]
    # No positions and learned positions end level (means within one sd of each other)
    # and both are at chance on the order probe.
    assert abs(excess["none"]["mean"] - excess["learned"]["mean"]) < min(
        excess["none"]["sd"], excess["learned"]["sd"]
    )
    assert all(abs(probe[n]["mean"] - 0.5) < 0.05 for n in ("none", "learned"))
    # Without the mask each position reads its target: far below the floor, on every seed,
    # and from the prefix alone it orders the items no better than a coin.
    assert excess["no_mask"]["max"] < -0.5
    assert probe["no_mask"]["max"] < 0.6  # no better than a coin


def _against_rope(stored, name: str) -> str:
    """How a variant's loss compares with the reference's over the seeds, as the benchmark
    words it."""
    mine = _summary(stored, name, "excess_over_entropy")
    rope = _summary(stored, "rope", "excess_over_entropy")
    if mine["min"] > rope["max"]:
        return "ends further from the floor than RoPE on every seed"
    if abs(mine["mean"] - rope["mean"]) < mine["sd"] + rope["sd"]:
        return "is within the seeds' spread of RoPE"
    return "but its seeds overlap RoPE's"


@pytest.mark.parametrize(
    ("name", "bullet"), [("post_norm", "- Post-norm"), ("tied", "- Tying the embedding")]
)
def test_benchmark_words_post_norm_and_tying_as_their_seeds_say(stored, name, bullet):
    text = (ROOT / "benchmarks" / "results" / "ablation_cpu.md").read_text()
    item = " ".join(text.split(bullet, 1)[1].split("\n- ", 1)[0].split())
    assert _against_rope(stored, name) in item, item
    assert f"({len(stored['variants'][name]['runs'])} seeds)" in item
    assert "at this budget" in text
