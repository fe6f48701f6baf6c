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

import attnbook.ablation as ablation
from attnbook.tokenizer import WordTokenizer

STORED = ROOT / "assets" / "ablation"
RECORD_FIELDS = {
    "name", "group", "label", "overrides", "steps", "wall_s", "cpu_s", "hit_time_cap",
    "n_parameters", "final_val_loss", "excess_over_entropy", "order_probe_accuracy",
    "order_probe_p_first_share", "order_probe_n", "val_curve",
}  # fmt: skip
TINY = dataclasses.replace(
    ablation.TINY_CONFIG, steps=4, eval_every=2, n_train=300, n_val=50, n_probe=20,
    entropy_samples=300,
)  # fmt: skip


@pytest.fixture(scope="module")
def stored():
    return ablation.load_results(STORED / "results.json")


def test_tiny_run_writes_results_csvs_and_figure(tmp_path):
    results = ablation.run_ladder(["rope", "no_mask"], TINY, tmp_path)
    assert set(results["variants"]) == {"rope", "no_mask"}
    for name in ("rope", "no_mask"):
        record = results["variants"][name]
        assert set(record) >= RECORD_FIELDS
        assert record["steps"] == 4 and not record["hit_time_cap"]
        assert record["val_curve"][-1][0] == 4 and math.isfinite(record["final_val_loss"])
        assert 0.0 <= record["order_probe_accuracy"] <= 1.0 and record["order_probe_n"] > 0
        with (tmp_path / f"{name}.csv").open() as f:
            rows = list(csv.DictReader(f))
        assert [int(r["step"]) for r in rows] == [1, 2, 3, 4]
        assert rows[1]["val_loss"] and not rows[0]["val_loss"]
    assert (tmp_path / "ablation.png").stat().st_size > 0
    on_disk = json.loads((tmp_path / "results.json").read_text())
    assert on_disk["variants"].keys() == results["variants"].keys()
    assert on_disk["config"]["steps"] == 4 and "threads" not in on_disk["config"]


def test_rerunning_one_variant_updates_only_it_and_a_new_budget_starts_afresh(tmp_path):
    ablation.run_ladder(["rope", "tied"], TINY, tmp_path)
    before = ablation.load_results(tmp_path / "results.json")
    after = ablation.run_ladder(["tied"], dataclasses.replace(TINY, seed=1), tmp_path)
    assert set(after["variants"]) == {"tied"}, "another budget must not mix with the old one"
    again = ablation.run_ladder(["tied"], TINY, tmp_path)
    assert again["variants"]["tied"]["final_val_loss"] == pytest.approx(
        before["variants"]["tied"]["final_val_loss"], abs=1e-6)  # same seed, same numbers


def test_command_line_runs_one_variant(tmp_path):
    results = ablation.main(["--variant", "none", "--steps", "3", "--n-train", "300",
                             "--out", str(tmp_path), "--threads", "1"])
    assert list(results["variants"]) == ["none"]
    assert results["variants"]["none"]["steps"] == 3
    with pytest.raises(SystemExit):
        ablation.main(["--variant", "no_such_variant"])


def test_variants_change_exactly_one_setting_each():
    reference = {"positions": "rope", "norm": "pre", "tie_weights": False, "causal": True}
    for name, (_group, _label, overrides) in ablation.VARIANTS.items():
        assert len(overrides) == 1 and set(overrides) <= set(reference), name
        model = ablation.build_model(name, TINY, vocab_size=30)
        for key, value in reference.items():
            assert getattr(model.config, key) == overrides.get(key, value), (name, key)
    tied = ablation.build_model("tied", TINY, 30)
    assert tied.head.weight is tied.embed.weight


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
        ["please send the report before the slides . report first , slides second .".split()],
        tok)
    model = ablation.build_model("no_mask", TINY, tok.vocab_size).eval()
    prefix = torch.tensor([items[0]["prefix_ids"]])
    with torch.no_grad():
        probs = model(prefix)[0, -1].softmax(-1)
    expected = float(probs[items[0]["first_id"]] > probs[items[0]["second_id"]])
    assert ablation.order_probe(model, items)["accuracy"] == expected


# -- the stored run -------------------------------------------------------------------------
def test_stored_run_is_complete(stored):
    assert list(stored["variants"]) == list(ablation.VARIANTS)
    config = stored["config"]
    for name, record in stored["variants"].items():
        assert set(record) >= RECORD_FIELDS, name
        assert record["steps"] == config["steps"] and not record["hit_time_cap"], name
        assert record["cpu_s"] < 300, f"{name}: over the budget of 5 minutes on two cores"
        assert (STORED / f"{name}.csv").exists(), name
        assert record["order_probe_n"] == config["n_probe"]
    assert (STORED / "ablation.png").exists()
    size = sum(p.stat().st_size for p in STORED.iterdir() if p.is_file())
    assert size < 2_000_000, f"assets/ablation holds {size} bytes"


def test_stored_figure_and_table_draw(stored):
    fig = ablation.plot_ablation(stored)
    assert isinstance(fig, Figure)
    for ax in fig.axes:
        assert ax.get_xlabel() and ax.get_title()
    table = ablation.results_table(stored)
    assert all(f"| {name} |" in table for name in ablation.VARIANTS)


def test_stored_numbers_are_sane(stored):
    """What the stored run shows (benchmarks/results/ablation_cpu.md), asserted."""
    v = stored["variants"]
    causal = [n for n in v if n != "no_mask"]
    # Every causal variant stays above the entropy floor, within a fraction of a nat.
    assert all(0.0 < v[n]["excess_over_entropy"] < 0.3 for n in causal)
    # Without the mask each position reads its target: far below the floor, a leak.
    assert v["no_mask"]["excess_over_entropy"] < -0.5
    # ...and from the prefix alone it cannot order the items: chance level.
    assert abs(v["no_mask"]["order_probe_accuracy"] - 0.5) < 0.1
    # RoPE, the reference, orders the items best and has the lowest loss of the causal ones.
    assert v["rope"]["order_probe_accuracy"] > 0.75
    assert v["rope"]["order_probe_accuracy"] == max(v[n]["order_probe_accuracy"] for n in v)
    assert v["rope"]["excess_over_entropy"] == min(v[n]["excess_over_entropy"] for n in causal)
    # No position signal at all does not lose to sinusoids (0.034 against 0.059 nats).
    assert v["none"]["excess_over_entropy"] < v["sinusoidal"]["excess_over_entropy"]
