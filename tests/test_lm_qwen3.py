"""The Qwen3-style model and its Hugging Face loader against transformers' own Qwen3.

Every checkpoint here is made on the spot by transformers (or is the committed tiny one that
`scripts/make_tiny_qwen3.py` makes), so nothing is downloaded.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest
import torch
from conftest import ROOT, script_module

from attnbook.checks.nb10 import hf_tolerance
from attnbook.grading import load_reference
from attnbook.lm.qwen3 import (
    Qwen3LM,
    Qwen3LMConfig,
    attention_maps,
    config_from_hf,
    find_cached_qwen3,
    hf_key_map,
    load_hf_checkpoint,
    load_hf_model,
    pairs_from_half_split,
    randomise,
    save_hf_checkpoint,
    state_dict_from_hf,
    tiny_checkpoint,
)
from attnbook.tolerance import magnitude_of, tolerance

transformers = pytest.importorskip("transformers")
safetensors_torch = pytest.importorskip("safetensors.torch")


def _script():
    return script_module("scripts/make_tiny_qwen3.py")


def _hf_model(folder: Path, attention: str = "sdpa"):
    from transformers import Qwen3ForCausalLM

    return Qwen3ForCausalLM.from_pretrained(
        folder, dtype=torch.float32, attn_implementation=attention
    ).eval()


def _random_hf(folder: Path, seed: int = 0, **overrides) -> Path:
    """A random Qwen3 that transformers builds and saves into `folder`."""
    from transformers import Qwen3Config, Qwen3ForCausalLM

    config = dict(_script().HF_CONFIG) | overrides
    torch.manual_seed(seed)
    model = Qwen3ForCausalLM(Qwen3Config(**config))
    randomise(model, seed)
    model.save_pretrained(folder, max_shard_size=overrides.pop("shard", "5GB"))
    return folder


def _ids(vocab: int, shape=(2, 12), seed: int = 0) -> torch.Tensor:
    return torch.randint(0, vocab, shape, generator=torch.Generator().manual_seed(seed))


def _gap(ours: torch.nn.Module, theirs, ids) -> tuple[float, float]:
    """The largest difference of the two models' logits on `ids`, and what "the logits match
    transformers' Qwen3ForCausalLM" allows for them: float32 rounding over the model's depth
    at the logits' size (attnbook.tolerance, the checks' own rule)."""
    with torch.no_grad():
        expected = theirs(ids).logits
        gap = float((ours(ids) - expected).abs().max())
    return gap, hf_tolerance(theirs.config.num_hidden_layers, expected).atol


# ---------------------------------------------------------------------------------------
# The committed tiny checkpoint
# ---------------------------------------------------------------------------------------
def test_tiny_checkpoint_is_what_the_script_makes(tmp_path):
    """Compared by what it means, not byte for byte: another CPU (or kernel set, or thread
    count) draws the same weights and computes the same logits only to within float32
    rounding. The config and the ids are equal; weights and logits agree within tolerance."""
    made, shipped = _script().make(tmp_path / "tiny"), tiny_checkpoint()
    for name in ("config.json", "generation_config.json"):  # less the writer's version
        new, old = (_without_version(folder / name) for folder in (made, shipped))
        assert new == old, name
    assert {p.name for p in made.iterdir()} == {p.name for p in shipped.iterdir()}
    new = safetensors_torch.load_file(str(made / "model.safetensors"))
    old = safetensors_torch.load_file(str(shipped / "model.safetensors"))
    assert set(new) == set(old)
    for key, value in old.items():
        assert new[key].dtype == value.dtype and new[key].shape == value.shape, key
        tol = tolerance(value.dtype, magnitude_of(value))  # one draw: a log, a cos, a product
        assert torch.allclose(new[key], value, **tol.kwargs()), key
    new = safetensors_torch.load_file(str(made / "expected.safetensors"))
    old = safetensors_torch.load_file(str(shipped / "expected.safetensors"))
    assert set(new) == set(old) == {"input_ids", "logits"}
    assert torch.equal(new["input_ids"], old["input_ids"])
    tol = hf_tolerance(
        json.loads((shipped / "config.json").read_text())["num_hidden_layers"], old["logits"]
    )
    assert torch.allclose(new["logits"], old["logits"], **tol.kwargs())


def _without_version(path: Path) -> dict:
    return {k: v for k, v in json.loads(path.read_text()).items() if k != "transformers_version"}


def test_tiny_checkpoint_files_are_readable_by_everyone():
    for path in tiny_checkpoint().iterdir():
        assert path.stat().st_mode & 0o004, f"{path} is not world-readable (the sandbox user)"


@pytest.mark.parametrize("attention", ["sdpa", "eager"])
def test_loaded_logits_match_transformers(attention, capsys):
    ours = load_hf_model(tiny_checkpoint())
    theirs = _hf_model(tiny_checkpoint(), attention)
    ids = _ids(ours.config.vocab_size, (3, 20), seed=int(attention == "eager"))
    gap, allowed = _gap(ours, theirs, ids)
    with capsys.disabled():
        print(f"\nQwen3LM vs Qwen3ForCausalLM ({attention}), tiny checkpoint: max |diff| {gap:.2e}")
    assert gap < allowed


def test_stored_logits_are_transformers_logits_now():
    expected = safetensors_torch.load_file(str(tiny_checkpoint() / "expected.safetensors"))
    model = _hf_model(tiny_checkpoint())
    with torch.no_grad():
        now = model(expected["input_ids"]).logits
    tol = hf_tolerance(model.config.num_hidden_layers, expected["logits"])
    assert torch.allclose(now, expected["logits"], **tol.kwargs())


def test_the_notebooks_decoder_matches_transformers_too():
    config, state = load_hf_checkpoint(tiny_checkpoint())
    decoder = load_reference("10_modern_decoder").Qwen3Decoder(**asdict(config)).eval()
    decoder.load_state_dict(state)
    ids = _ids(config.vocab_size, seed=3)
    gap, allowed = _gap(decoder, _hf_model(tiny_checkpoint()), ids)
    assert gap < allowed


# ---------------------------------------------------------------------------------------
# Other shapes and formats
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "overrides",
    [
        dict(
            tie_word_embeddings=False,
            num_attention_heads=8,
            num_key_value_heads=2,
            head_dim=16,
            hidden_size=40,
            rope_theta=10000.0,
        ),  # GQA ratio 4, untied
        dict(num_key_value_heads=4, num_hidden_layers=3),  # plain multi-head attention
        dict(num_key_value_heads=1, head_dim=4, shard="20KB"),  # MQA, sharded safetensors
    ],
)
def test_other_configurations_match_transformers(tmp_path, overrides):
    folder = _random_hf(tmp_path / "ckpt", seed=5, **overrides)
    ours = load_hf_model(folder)
    gap, allowed = _gap(ours, _hf_model(folder), _ids(ours.config.vocab_size, seed=6))
    assert gap < allowed


def test_sharded_checkpoint_is_read_through_its_index(tmp_path):
    folder = _random_hf(tmp_path / "ckpt", seed=7, shard="20KB")
    assert (folder / "model.safetensors.index.json").is_file()
    assert not (folder / "model.safetensors").exists()
    load_hf_checkpoint(folder)


def test_round_trip_through_our_writer(tmp_path):
    config = Qwen3LMConfig(
        vocab_size=40,
        d_model=20,
        n_layers=2,
        n_heads=6,
        n_kv_heads=3,
        d_k=6,
        d_hidden=28,
        max_len=32,
        rope_base=5e5,
        eps=1e-5,
    )
    model = Qwen3LM(config).eval()
    randomise(model, 11)
    save_hf_checkpoint(model, config, tmp_path / "ours")
    back_config, state = load_hf_checkpoint(tmp_path / "ours")
    assert back_config == config
    assert set(state) == set(model.state_dict())
    for key, value in model.state_dict().items():
        assert torch.equal(state[key], value), key
    ids = _ids(40, seed=12)
    gap, allowed = _gap(model, _hf_model(tmp_path / "ours"), ids)
    assert gap < allowed


def test_config_json_of_transformers_4_is_read():
    hf = json.loads((tiny_checkpoint() / "config.json").read_text())
    old = {k: v for k, v in hf.items() if k != "rope_parameters"}
    old |= {"rope_theta": 1e6, "rope_scaling": None, "torch_dtype": "bfloat16"}
    assert config_from_hf(old) == config_from_hf(hf)


def test_half_split_permutation_pairs_i_with_i_plus_half():
    index = pairs_from_half_split(8)
    assert index.tolist() == [0, 4, 1, 5, 2, 6, 3, 7]
    assert torch.argsort(index).tolist() == [0, 2, 4, 6, 1, 3, 5, 7]


def test_without_the_permutation_the_logits_are_wrong():
    config, state = load_hf_checkpoint(tiny_checkpoint())
    hf_state = safetensors_torch.load_file(str(tiny_checkpoint() / "model.safetensors"))
    plain = {
        ours: hf_state.get(theirs, hf_state["model.embed_tokens.weight"])
        for ours, theirs in hf_key_map(config).items()
    }
    model, wrong = Qwen3LM(config).eval(), Qwen3LM(config).eval()
    model.load_state_dict(state)
    wrong.load_state_dict(plain)
    ids = _ids(config.vocab_size, seed=2)
    with torch.no_grad():
        assert (model(ids) - wrong(ids)).abs().max() > 0.1


# ---------------------------------------------------------------------------------------
# Clear errors
# ---------------------------------------------------------------------------------------
def _hf_state():
    config = config_from_hf(json.loads((tiny_checkpoint() / "config.json").read_text()))
    return config, safetensors_torch.load_file(str(tiny_checkpoint() / "model.safetensors"))


def test_missing_tensor_is_named():
    config, state = _hf_state()
    del state["model.layers.1.self_attn.k_norm.weight"]
    with pytest.raises(ValueError, match=r"missing.*model\.layers\.1\.self_attn\.k_norm\.weight"):
        state_dict_from_hf(state, config)


def test_unexpected_tensor_is_named():
    config, state = _hf_state()
    state["model.layers.0.self_attn.q_proj.bias"] = torch.zeros(32)
    with pytest.raises(ValueError, match=r"does not know.*q_proj\.bias"):
        state_dict_from_hf(state, config)


def test_misshapen_tensor_is_named_with_both_shapes():
    config, state = _hf_state()
    state["model.layers.0.self_attn.k_proj.weight"] = torch.zeros(32, 24)
    with pytest.raises(
        ValueError,
        match=r"k_proj\.weight has shape \(32, 24\); config\.json "
        r"implies \(16, 24\)",
    ):
        state_dict_from_hf(state, config)


def test_untied_checkpoint_needs_its_head():
    config, state = _hf_state()
    with pytest.raises(ValueError, match="lm_head.weight"):
        state_dict_from_hf(state, Qwen3LMConfig(**(asdict(config) | {"tie_weights": False})))


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"model_type": "llama"}, "model_type"),
        ({"attention_bias": True}, "attention_bias"),
        ({"use_sliding_window": True}, "sliding"),
        ({"hidden_act": "gelu"}, "hidden_act"),
        ({"rope_parameters": {"rope_type": "yarn", "rope_theta": 1e6, "factor": 4.0}}, "yarn"),
    ],
)
def test_unsupported_configs_are_refused(change, words):
    hf = json.loads((tiny_checkpoint() / "config.json").read_text()) | change
    with pytest.raises(ValueError, match=words):
        config_from_hf(hf)


def test_folder_without_config_or_weights(tmp_path):
    with pytest.raises(FileNotFoundError, match="config.json"):
        load_hf_checkpoint(tmp_path)
    (tmp_path / "config.json").write_text((tiny_checkpoint() / "config.json").read_text())
    with pytest.raises(FileNotFoundError, match="model.safetensors"):
        load_hf_checkpoint(tmp_path)


def test_config_validation_names_the_field():
    with pytest.raises(ValueError, match="n_heads.*multiple of n_kv_heads=3"):
        Qwen3LMConfig(vocab_size=5, n_heads=4, n_kv_heads=3)
    with pytest.raises(ValueError, match="d_k.*even"):
        Qwen3LMConfig(vocab_size=5, d_k=5)


# ---------------------------------------------------------------------------------------
# The model: cached decoding, attention maps, the sandbox, the cache lookup
# ---------------------------------------------------------------------------------------
def test_cached_greedy_decoding_gives_transformers_own_generation():
    ref = load_reference("10_modern_decoder")
    ours = load_hf_model(tiny_checkpoint())
    theirs = _hf_model(tiny_checkpoint())
    prompt = _ids(ours.config.vocab_size, (2, 5), seed=9)
    with torch.no_grad():
        generated = theirs.generate(prompt, max_new_tokens=12, do_sample=False, pad_token_id=0)[
            :, 5:
        ]
        logits, cache = ref.decode_step(ours, prompt, None)
        tokens = []
        for _ in range(12):
            tokens.append(logits[:, -1].argmax(dim=-1, keepdim=True))
            logits, cache = ref.decode_step(ours, tokens[-1], cache)
    assert torch.equal(torch.cat(tokens, dim=1), generated)


def test_attention_maps_are_transformers_attention_weights():
    ours = load_hf_model(tiny_checkpoint())
    theirs = _hf_model(tiny_checkpoint(), "eager")
    ids = _ids(ours.config.vocab_size, (1, 11), seed=4)
    with torch.no_grad():
        expected = torch.stack([a[0] for a in theirs(ids, output_attentions=True).attentions])
    tol = hf_tolerance(theirs.config.num_hidden_layers, 1.0)  # probabilities
    assert torch.allclose(attention_maps(ours, ids[0]), expected, **tol.kwargs())


def test_qwen3lm_crosses_the_sandbox_by_state():
    from grader import wire

    config, _ = load_hf_checkpoint(tiny_checkpoint())  # a tied head, as Qwen3's small models
    model = Qwen3LM(config).eval()
    sent, _ = wire.encode_call([model], {})
    rebuilt = wire.Decoder(objects=True, lookup=None).decode(json.loads(json.dumps(sent[0])))
    ids = _ids(config.vocab_size, (1, 6))
    with torch.no_grad():
        assert torch.equal(rebuilt(ids), model(ids))
    back = wire.restore(wire.Encoder().encode(rebuilt), model)
    assert back is not model and torch.equal(back.head.weight, model.head.weight)


def test_find_cached_qwen3_reads_only_the_local_cache(tmp_path):
    assert find_cached_qwen3(cache_dir=tmp_path) is None
    repo = tmp_path / "models--Qwen--Qwen3-0.6B"
    snapshot = repo / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("abc123")
    for name in ("config.json", "model.safetensors"):
        (snapshot / name).write_text("{}")
    assert find_cached_qwen3(cache_dir=tmp_path) is None  # no tokenizer yet
    (snapshot / "tokenizer.json").write_text("{}")
    assert find_cached_qwen3(cache_dir=tmp_path) == snapshot


def test_make_setup_installs_the_hf_extra():
    assert '-e ".[dev,hf]"' in (ROOT / "Makefile").read_text()
