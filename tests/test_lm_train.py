"""Batching, the masked loss and the training command (tiny configurations, seconds)."""

import dataclasses
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from attnbook.lm.corpus import DEFAULT_GRAMMAR, make_splits
from attnbook.lm.data import batch_iterator, masked_cross_entropy, pad_batch, validation_loss
from attnbook.lm.model import LMConfig, TransformerLM
from attnbook.lm.tokenizer import WordTokenizer
from attnbook.lm.train import (
    PRESETS,
    load_trained,
    model_config_for,
    plot_loss_curve,
    read_log,
    train,
)

ROOT = Path(__file__).resolve().parents[1]
CHECKPOINT = ROOT / "assets" / "checkpoints" / "email_cpu.pt"


def tiny(tmp_path, **changes):
    base = dataclasses.replace(
        PRESETS["tiny"], out=str(tmp_path), progress=False, num_threads=1, device="cpu"
    )
    return dataclasses.replace(base, **changes)


# -- settings ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, value, expected",
    [
        ("steps", 0, "an int >= 1"),
        ("batch_size", -4, "an int >= 1"),
        ("batch_size", 2.0, "an int >= 1"),
        ("eval_every", True, "an int >= 1"),
        ("warmup_steps", -1, "an int >= 0"),
        ("stop_after", 0, "None or an int >= 1"),
        ("num_threads", 0, "None or an int >= 1"),
        ("lr", 0.0, "a number > 0"),
        ("lr", math.nan, "a number > 0"),
        ("grad_clip", -1.0, "a number > 0"),
        ("weight_decay", -0.1, "a number >= 0"),
        ("min_lr_ratio", 1.5, r"a number in \[0, 1\]"),
        ("budget_seconds", -1.0, "None or a number >= 0"),
    ],
)
def test_a_setting_no_run_can_use_is_refused_by_name_before_anything_is_written(
    tmp_path, name, value, expected
):
    out = tmp_path / "run"
    with pytest.raises(ValueError, match=rf"TrainConfig\.{name}: expected {expected}, got "):
        train(tiny(out, **{name: value}))
    assert not out.exists()


def test_pad_batch_and_batch_iterator_refuse_what_they_cannot_use_by_name():
    with pytest.raises(ValueError, match=r"sequences: expected integer token ids, sequence 1 "):
        pad_batch([[1, 2], [1, 2.5, 3]])
    with pytest.raises(ValueError, match=r"sequence 0 holds torch.bool values"):
        pad_batch([[True, False]])
    assert pad_batch([torch.tensor([1, 2, 3], dtype=torch.int32)]).targets.tolist() == [[2, 3]]
    with pytest.raises(ValueError, match=r"batch_size: expected an int >= 1, got 0"):
        next(batch_iterator([[1, 2]] * 4, 0))


def test_every_preset_passes_the_checks():
    for config in PRESETS.values():
        config.check()


def test_the_command_line_refuses_a_batch_size_of_zero_with_its_name(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "attnbook.lm.train", "--preset", "tiny", "--batch-size", "0",
         "--out", str(tmp_path / "run"), "--no-progress"],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )  # fmt: skip
    assert result.returncode == 2
    assert "TrainConfig.batch_size: expected an int >= 1, got 0" in result.stderr
    assert "Traceback" not in result.stderr


# -- batches and the loss ------------------------------------------------------------------
def test_pad_batch_builds_message_a_and_message_b():
    tok = WordTokenizer()
    a = tok.encode("please send the report")
    b = tok.encode("send report")
    batch = pad_batch([a, b], pad_id=tok.pad_id)
    assert batch.inputs.shape == batch.targets.shape == (2, 5)
    assert batch.inputs[0].tolist() == a[:-1] and batch.targets[0].tolist() == a[1:]
    assert batch.inputs[1].tolist() == b[:-1] + [tok.pad_id, tok.pad_id]
    assert batch.targets[1].tolist() == b[1:] + [tok.pad_id, tok.pad_id]
    assert batch.loss_mask.tolist() == [[True] * 5, [True] * 3 + [False] * 2]
    assert torch.equal(batch.key_padding_mask, batch.loss_mask) and batch.n_tokens == 8
    with pytest.raises(ValueError, match="sequence 1"):
        pad_batch([a, [1]])


def test_masked_cross_entropy_weights_every_real_token_equally():
    torch.manual_seed(0)
    logits = torch.randn(2, 4, 7)
    targets = torch.randint(0, 7, (2, 4))
    mask = torch.tensor([[True] * 4, [True, False, False, False]])
    per_token = torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets, reduction="none")
    expected = per_token[mask].mean()  # 5 tokens, not the mean of the two rows' means
    assert torch.allclose(masked_cross_entropy(logits, targets, mask), expected)
    assert torch.allclose(masked_cross_entropy(logits, targets, mask, n_tokens=10), expected / 2)
    targets[1, 1:] = (targets[1, 1:] + 1) % 7  # padded targets never enter the loss
    assert torch.allclose(masked_cross_entropy(logits, targets, mask), expected)


def test_batch_iterator_is_seeded_resumable_and_shards_the_global_batch():
    seqs = [[1] + [5] * (n % 7 + 1) + [2] for n in range(100)]
    first = [b.inputs for b, _ in _take(batch_iterator(seqs, 8, seed=3, group_by_length=4), 30)]
    again = [
        b.inputs
        for b, _ in _take(batch_iterator(seqs, 8, seed=3, start_step=17, group_by_length=4), 13)
    ]
    assert all(torch.equal(x, y) for x, y in zip(first[17:], again, strict=True))
    whole, n_whole = next(batch_iterator(seqs, 8, seed=3))
    shards = [next(batch_iterator(seqs, 8, seed=3, rank=r, world_size=2)) for r in range(2)]
    assert all(n == n_whole for _, n in shards)
    assert sum(s.n_tokens for s, _ in shards) == whole.n_tokens == n_whole


def _take(iterator, n):
    return [next(iterator) for _ in range(n)]


def test_right_padding_needs_no_key_mask_in_a_causal_decoder():
    """Real queries only see earlier keys, and padding comes after them."""
    torch.manual_seed(0)
    tok = WordTokenizer()
    model = TransformerLM(LMConfig(tok.vocab_size, d_model=16, n_heads=2, n_layers=1, max_len=32))
    batch = pad_batch([tok.encode("please send the report"), tok.encode("send report")])
    with torch.no_grad():
        plain = model(batch.inputs)
        masked = model(batch.inputs, key_padding_mask=batch.key_padding_mask)
    assert torch.allclose(plain[batch.loss_mask], masked[batch.loss_mask], atol=1e-6)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_builds_a_working_decoder(preset):
    config = PRESETS[preset]
    assert config.batch_size % 8 == 0 and config.warmup_steps < config.steps
    model = TransformerLM(model_config_for(config, WordTokenizer().vocab_size))
    assert model(torch.tensor([[1, 5, 6]])).shape == (1, 3, WordTokenizer().vocab_size)


# -- the trainer -----------------------------------------------------------------------------
def test_a_few_steps_reduce_the_loss_and_write_the_files(tmp_path):
    metrics = train(tiny(tmp_path))
    rows = read_log(tmp_path / "log.csv")
    assert len(rows) == 60 and float(rows[0]["train_loss"]) > math.log(90) - 0.5
    assert metrics["val_loss"] < float(rows[0]["train_loss"]) - 1.0
    assert (tmp_path / "loss_curve.png").stat().st_size > 1000
    figure = plot_loss_curve(rows, floor=metrics["floor"])
    assert len(figure.axes[0].lines) >= 3  # batches, running mean, validation (and floor)
    model, tokenizer, extra = load_trained(tmp_path / "best.pt")
    assert tokenizer == WordTokenizer() and extra["train_config"]["steps"] == 60
    assert extra["metrics"]["best_val_loss"] == pytest.approx(metrics["best_val_loss"])
    assert metrics["floor"] == pytest.approx(DEFAULT_GRAMMAR.entropy_per_token()[0], abs=0.05)


def test_a_time_budget_stops_and_saves(tmp_path):
    metrics = train(tiny(tmp_path, budget_seconds=0.0))
    assert metrics["steps"] == 1 and math.isfinite(metrics["val_loss"])
    assert (tmp_path / "best.pt").exists() and (tmp_path / "last.pt").exists()


def test_resume_continues_the_same_trajectory(tmp_path):
    train(tiny(tmp_path / "whole", steps=24, eval_every=8))
    train(tiny(tmp_path / "parts", steps=24, eval_every=8, stop_after=11))
    train(tiny(tmp_path / "parts", steps=24, eval_every=8, resume=True))
    whole, parts = read_log(tmp_path / "whole/log.csv"), read_log(tmp_path / "parts/log.csv")
    assert [r["step"] for r in parts] == [str(s) for s in range(1, 25)]
    for a, b in zip(whole, parts, strict=True):
        assert float(a["train_loss"]) == pytest.approx(float(b["train_loss"]), abs=1e-6), a["step"]


def test_character_level_training_on_a_text_file(tmp_path):
    text = "the quick brown fox jumps over the lazy dog. äöü!\n" * 60
    path = tmp_path / "book.txt"
    path.write_text(text, encoding="utf-8")
    metrics = train(tiny(tmp_path / "run", text=str(path), text_seq_len=32, batch_size=8))
    _, tokenizer, _ = load_trained(tmp_path / "run" / "best.pt")
    assert tokenizer.decode(tokenizer.encode(text)) == text
    assert metrics["floor"] is None and metrics["val_loss"] < math.log(tokenizer.vocab_size) - 1


def test_a_text_train_cannot_use_leaves_no_run_folder(tmp_path):
    """`train` from Python reads the text before it makes ``out`` (it made an empty one)."""
    (tmp_path / "short.txt").write_text("too short")
    with pytest.raises(FileNotFoundError):
        train(tiny(tmp_path / "a", text=str(tmp_path / "nope.txt")))
    with pytest.raises(ValueError, match=r"text: .*short.txt has 9 characters"):
        train(tiny(tmp_path / "b", text=str(tmp_path / "short.txt")))
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_two_processes_match_one_with_the_same_global_batch(tmp_path):
    """torchrun with two gloo ranks, each half of every global batch, equals one process."""
    config = tiny(tmp_path / "one", steps=6, eval_every=3)
    train(config)
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    command = [
        sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
        "-m", "attnbook.lm.train", "--preset", "tiny", "--steps", "6", "--device", "cpu",
        "--threads", "1", "--no-progress", "--out", str(tmp_path / "two"),
    ]  # fmt: skip
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    one, two = read_log(tmp_path / "one/log.csv"), read_log(tmp_path / "two/log.csv")
    assert len(one) == len(two) == 6
    for a, b in zip(one, two, strict=True):
        assert a["tokens"] == b["tokens"]
        assert float(a["train_loss"]) == pytest.approx(float(b["train_loss"]), abs=1e-5)
    assert float(one[-1]["val_loss"]) == pytest.approx(float(two[-1]["val_loss"]), abs=1e-5)


@pytest.mark.slow
def test_shipped_checkpoint_scores_within_target_on_validation():
    model, tokenizer, extra = load_trained(CHECKPOINT)
    config = extra["train_config"]
    val = make_splits(config["data_seed"], n_train=0, n_val=config["n_val"], n_test=0)["val"]
    loss = validation_loss(model, [tokenizer.encode(e) for e in val], pad_id=tokenizer.pad_id)
    floor = -sum(DEFAULT_GRAMMAR.log_prob(e) for e in val) / sum(len(e) + 1 for e in val)
    assert loss == pytest.approx(extra["metrics"]["best_val_loss"], abs=1e-4)
    assert loss - floor <= 0.03, (loss, floor)
    assert CHECKPOINT.stat().st_size < 5e6


def test_the_tiny_preset_says_what_to_expect_and_which_preset_gives_a_usable_model(tmp_path):
    command = [sys.executable, "-m", "attnbook.lm.train", "--preset", "tiny", "--steps", "2"]
    command += ["--threads", "1", "--no-progress", "--out", str(tmp_path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    first = done.stdout.splitlines()[0]
    assert first.startswith("tiny: seconds") and "for 2 steps" in first, first
    assert "do not read as emails" in first and "--preset cpu" in first, first
    metrics = dict(line.split(":", 1) for line in done.stdout.splitlines()[1:] if ":" in line)
    assert float(metrics["excess_over_floor".rjust(20)]) > 1.0  # far above the floor, as said


def test_the_loss_curve_shows_the_whole_run_and_zooms_only_beside_it():
    """The shipped run's log: the first panel's y range holds every loss from the first step
    on; the second zooms in on the floor. A run far from the floor gets the first alone."""
    from attnbook.lm.generation import find_checkpoint

    rows = read_log(find_checkpoint("email_cpu_log.csv"))
    losses = [float(r["train_loss"]) for r in rows]
    figure = plot_loss_curve(rows, floor=0.7256, floor_se=0.001, title="shipped")
    whole, zoom = figure.axes
    low, high = whole.get_ylim()
    assert low <= min(losses) and high >= max(losses)  # the first step is on the figure
    assert zoom.get_ylim()[1] < max(losses) and zoom.get_title() == "near the floor"
    far = rows[:40]  # the start of a run: far above the floor
    (only,) = plot_loss_curve(far, floor=0.7256).axes
    assert only.get_ylim()[1] >= max(float(r["train_loss"]) for r in far)
