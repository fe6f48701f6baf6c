"""Tests of the reference decoder, attnbook.lm.model: shapes, causality, masks, counts, training."""

import math

import pytest
import torch
from torch import nn

from attnbook.lm.model import (
    LMConfig,
    TransformerBlock,
    TransformerLM,
    autocast_context,
    load_checkpoint,
    pick_device,
    rotate_pairs,
    save_checkpoint,
)

POSITIONS = ["sinusoidal", "learned", "rope", "none"]
V, D, HEADS, LAYERS, MAX_LEN = 23, 16, 4, 2, 12


pytestmark = pytest.mark.usefixtures("one_thread")


def tiny(positions="rope", seed=0, **overrides):
    torch.manual_seed(seed)
    config = LMConfig(
        vocab_size=V,
        d_model=D,
        n_heads=HEADS,
        n_layers=LAYERS,
        max_len=MAX_LEN,
        positions=positions,
        **overrides,
    )
    return TransformerLM(config).eval()


def random_ids(B=2, L=8, seed=1):
    return torch.randint(0, V, (B, L), generator=torch.Generator().manual_seed(seed))


@pytest.mark.parametrize("positions", POSITIONS)
def test_every_position_option_gives_float_logits_of_shape_b_l_v(positions):
    logits = tiny(positions)(random_ids(B=3, L=MAX_LEN))
    assert logits.shape == (3, MAX_LEN, V), f"logits shape {tuple(logits.shape)}"
    assert logits.dtype == torch.float32
    assert torch.isfinite(logits).all()


def test_state_dict_keys_mirror_the_notebook_names():
    keys = set(tiny("learned", tie_weights=True).state_dict())
    expected = {
        "embed.weight",
        "pos.weight",
        "ln_final.weight",
        "ln_final.bias",
        "head.weight",
        "head.bias",
        "blocks.0.ln1.weight",
        "blocks.0.ln2.bias",
        "blocks.1.attn.W_Q.weight",
        "blocks.1.attn.W_K.bias",
        "blocks.1.attn.W_V.weight",
        "blocks.1.attn.W_O.bias",
        "blocks.0.mlp.fc_in.weight",
        "blocks.0.mlp.fc_out.bias",
    }
    assert expected <= keys, f"missing keys: {sorted(expected - keys)}"
    buffers = {k for k in keys if "sinusoid" in k or "rope" in k}
    assert not buffers, f"derived tables must not be saved, found {sorted(buffers)}"


@pytest.mark.parametrize("positions", POSITIONS)
def test_logits_at_l_have_zero_gradient_from_inputs_after_l(positions):
    model = tiny(positions)
    captured = {}

    def keep(module, inputs, output):
        output.retain_grad()
        captured["h"] = output

    model.embed.register_forward_hook(keep)
    L = 7
    for l in range(L):
        model.zero_grad()
        model(random_ids(L=L))[:, l].sum().backward()
        grad = captured["h"].grad  # (B, L, d)
        assert (grad[:, l + 1 :] == 0).all(), f"logits at {l} depend on a later input"
        assert grad[:, : l + 1].abs().sum() > 0, f"logits at {l} ignore their own prefix"


def test_changing_future_tokens_leaves_earlier_logits_unchanged():
    model = tiny("rope")
    a = random_ids(L=10, seed=3)
    b = a.clone()
    b[:, 6:] = (b[:, 6:] + 5) % V
    la, lb = model(a), model(b)
    torch.testing.assert_close(la[:, :6], lb[:, :6], rtol=0, atol=1e-6)
    assert not torch.allclose(la[:, 6:], lb[:, 6:])


def expected_parameter_count(V, d, n_layers, max_len, hidden, positions, tie):
    """Closed form: embedding, positions, N blocks, final LayerNorm, head."""
    attention = 4 * (d * d + d)
    mlp = d * hidden + hidden + hidden * d + d
    block = 2 * (2 * d) + attention + mlp
    count = V * d + n_layers * block + 2 * d + V  # head bias always present
    count += max_len * d if positions == "learned" else 0
    count += 0 if tie else V * d
    return count


@pytest.mark.parametrize("tie", [False, True])
@pytest.mark.parametrize("positions", POSITIONS)
def test_parameter_count_matches_the_closed_form(positions, tie):
    model = tiny(positions, tie_weights=tie, d_hidden=24)
    expected = expected_parameter_count(V, D, LAYERS, MAX_LEN, 24, positions, tie)
    assert model.num_parameters() == expected
    assert sum(p.numel() for p in model.parameters()) == expected
    assert (model.head.weight is model.embed.weight) == tie


def test_pre_norm_block_with_zeroed_output_projections_is_the_identity():
    model = tiny("none")
    block = model.blocks[0]
    with torch.no_grad():
        for layer in (block.attn.W_O, block.mlp.fc_out):
            layer.weight.zero_()
            layer.bias.zero_()
    h = torch.randn(2, 8, D)
    assert torch.equal(block(h), h), "the pre-norm bypass must carry H untouched"


def test_mlp_uses_exact_gelu():
    mlp = tiny("none").blocks[0].mlp
    x = torch.randn(2, 5, D) * 3
    expected = mlp.fc_out(nn.functional.gelu(mlp.fc_in(x), approximate="none"))
    torch.testing.assert_close(mlp(x), expected, atol=0, rtol=0)


def test_post_norm_block_normalises_its_output():
    block = tiny("none", norm="post").blocks[0]
    out = block(torch.randn(2, 8, D) * 5 + 3)
    torch.testing.assert_close(out.mean(-1), torch.zeros(2, 8), atol=1e-5, rtol=0)
    torch.testing.assert_close(out.var(-1, unbiased=False), torch.ones(2, 8), atol=1e-3, rtol=0)


def test_attention_equals_torch_multihead_attention_with_copied_weights():
    torch.manual_seed(0)
    attn = tiny("none").blocks[0].attn
    with torch.no_grad():
        for layer in (attn.W_Q, attn.W_K, attn.W_V, attn.W_O):
            layer.bias.normal_()
    mha = nn.MultiheadAttention(D, HEADS, bias=True, batch_first=True)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([attn.W_Q.weight, attn.W_K.weight, attn.W_V.weight]))
        mha.in_proj_bias.copy_(torch.cat([attn.W_Q.bias, attn.W_K.bias, attn.W_V.bias]))
        mha.out_proj.weight.copy_(attn.W_O.weight)
        mha.out_proj.bias.copy_(attn.W_O.bias)
    x = torch.randn(3, 9, D)
    future = torch.ones(9, 9, dtype=torch.bool).triu(1)  # torch's convention: True = blocked
    expected, _ = mha(x, x, x, attn_mask=future, need_weights=False)
    torch.testing.assert_close(attn(x), expected, atol=1e-5, rtol=1e-5)


def test_sinusoid_buffer_matches_the_worked_value():
    model = TransformerLM(LMConfig(vocab_size=5, d_model=4, n_heads=2, positions="sinusoidal"))
    # d = 4: w_0 = 1, w_1 = 10000^(-2/4) = 0.01; position l = 2.
    expected = torch.tensor([math.sin(2.0), math.cos(2.0), math.sin(0.02), math.cos(0.02)])
    torch.testing.assert_close(model.sinusoids[2], expected)
    torch.testing.assert_close(model.sinusoids[0], torch.tensor([0.0, 1.0, 0.0, 1.0]))


def test_sinusoids_are_added_to_the_token_embedding():
    model = tiny("sinusoidal")
    model.blocks = nn.ModuleList()
    model.ln_final = nn.Identity()
    model.head = nn.Identity()
    ids = random_ids(L=5)
    torch.testing.assert_close(model(ids), model.embed(ids) + model.sinusoids[:5])


def test_rope_score_depends_only_on_the_offset():
    model = tiny("rope")
    d_k = D // HEADS
    q, k = torch.randn(d_k), torch.randn(d_k)

    def score(l, s):
        q_l = rotate_pairs(q[None], model.rope_cos[l], model.rope_sin[l])
        k_s = rotate_pairs(k[None], model.rope_cos[s], model.rope_sin[s])
        return (q_l * k_s).sum()

    for offset in (0, 1, 3):
        scores = torch.stack([score(l, l + offset) for l in range(MAX_LEN - offset)])
        torch.testing.assert_close(scores, scores[0].expand_as(scores), atol=1e-5, rtol=0)
    assert not torch.isclose(score(0, 1), score(0, 3))
    # Pair i = 0 turns by theta_0 = 1 radian per step, as R(a) = [[cos, -sin], [sin, cos]].
    x = torch.zeros(d_k)
    x[0] = 1.0
    turned = rotate_pairs(x[None], model.rope_cos[1], model.rope_sin[1])[0]
    torch.testing.assert_close(turned[:2], torch.tensor([math.cos(1.0), math.sin(1.0)]))


@pytest.mark.parametrize("positions", POSITIONS)
def test_left_padding_with_positions_matches_the_unpadded_sequence(positions):
    model = tiny(positions)
    real = random_ids(B=1, L=6, seed=4)
    pad = 3
    padded = torch.cat([torch.zeros(1, pad, dtype=torch.long), real], dim=1)
    mask = torch.tensor([[False] * pad + [True] * 6])
    positions_ = torch.tensor([0] * pad + list(range(6)))
    logits = model(padded, key_padding_mask=mask, positions=positions_)
    assert torch.isfinite(logits).all(), "a query with no allowed key must not give NaN"
    torch.testing.assert_close(logits[:, pad:], model(real), atol=1e-5, rtol=1e-5)
    other_pads = padded.clone()
    other_pads[:, :pad] = 7
    torch.testing.assert_close(
        model(other_pads, key_padding_mask=mask, positions=positions_)[:, pad:],
        logits[:, pad:],
        atol=1e-6,
        rtol=0,
    )


def test_padded_keys_have_no_influence_without_the_causal_mask():
    model = tiny("learned", causal=False)
    real = random_ids(B=1, L=5, seed=5)
    padded = torch.cat([real, torch.full((1, 3), 4)], dim=1)
    mask = torch.tensor([[True] * 5 + [False] * 3])
    torch.testing.assert_close(
        model(padded, key_padding_mask=mask)[:, :5], model(real), atol=1e-5, rtol=1e-5
    )
    # Without the causal mask a later token does change an earlier logit.
    changed = real.clone()
    changed[0, -1] = (changed[0, -1] + 1) % V
    assert not torch.allclose(model(changed)[:, 0], model(real)[:, 0])


def test_mask_opens_empty_rows_so_no_kernel_sees_an_all_blocked_row():
    # Some SDPA kernels (CUDA, MPS) return NaN for a row with every key blocked.
    model = tiny("rope")
    key_padding_mask = torch.tensor([[False, False, True, True], [True, True, True, True]])
    allowed, live_rows = model._mask(key_padding_mask, 2, 4, torch.device("cpu"))
    assert allowed.any(dim=-1).all(), "every row handed to SDPA must allow some key"
    assert live_rows[0, 0, :, 0].tolist() == [False, False, True, True]
    assert live_rows[1].all()


def test_attention_row_with_no_allowed_key_is_zero():
    attn = tiny("none").blocks[0].attn
    q = k = v = torch.randn(1, HEADS, 3, D // HEADS)
    allowed = torch.tensor([[False, False, False], [True, False, False], [True, True, False]])
    live = allowed.any(-1, keepdim=True)
    y = attn.attend(q, k, v, allowed | ~live, live)  # (1, 3, D)
    assert torch.equal(y[0, 0], torch.zeros(D))
    assert y[0, 1:].abs().sum() > 0


def test_save_and_load_round_trip_gives_identical_logits(tmp_path):
    model = tiny("learned", tie_weights=True, norm="post")
    path = tmp_path / "model.pt"
    save_checkpoint(model, path, step=7, note="tiny")
    loaded, extra = load_checkpoint(path, map_location="cpu")
    assert extra == {"step": 7, "note": "tiny"}
    assert loaded.config == model.config
    assert loaded.head.weight is loaded.embed.weight
    ids = random_ids()
    assert torch.equal(loaded(ids), model(ids))


def test_a_file_that_is_no_checkpoint_is_refused_with_what_it_holds(tmp_path):
    cases = {
        "text.pt": (b"not a checkpoint", "it is not a file torch.save wrote"),
        "empty.pt": (b"", "it is empty or cut short"),
        # a run's log.csv stops the unpickler with IndexError (it escaped as a traceback)
        "log.csv": (b"step,lr\n1,0.1\n", r"it is not a file torch.save wrote \(IndexError"),
    }
    for name, (content, reason) in cases.items():
        (tmp_path / name).write_bytes(content)
        with pytest.raises(ValueError, match=rf"path: expected a checkpoint .*{name}.*: {reason}"):
            load_checkpoint(tmp_path / name)
    with pytest.raises(FileNotFoundError):  # a file that is not there is no ValueError
        load_checkpoint(tmp_path / "nothing.pt")
    torch.save({"weight": torch.zeros(2)}, tmp_path / "state.pt")  # a bare state_dict
    with pytest.raises(
        ValueError, match=r"keys config, state_dict and extra; .* holds \['weight'\]"
    ):
        load_checkpoint(tmp_path / "state.pt")


@pytest.mark.parametrize(
    "overrides, field",
    [
        ({"d_model": 30, "n_heads": 4}, "d_model"),
        ({"d_model": 12, "n_heads": 4, "positions": "rope"}, "n_heads"),
        ({"positions": "alibi"}, "positions"),
        ({"norm": "sandwich"}, "norm"),
        ({"n_layers": 0}, "n_layers"),
        ({"dropout": 1.5}, "dropout"),
        ({"d_hidden": 0}, "d_hidden"),
        ({"vocab_size": -1}, "vocab_size"),
    ],
)
def test_bad_config_raises_value_error_naming_the_field(overrides, field):
    kwargs = {"vocab_size": 10, **overrides}
    with pytest.raises(ValueError, match=rf"LMConfig\.{field}"):
        LMConfig(**kwargs)


def test_bad_inputs_raise_value_errors_naming_the_argument():
    model = tiny("rope")
    with pytest.raises(ValueError, match=r"idx.*L=13.*max_len=12"):
        model(torch.zeros(1, MAX_LEN + 1, dtype=torch.long))
    with pytest.raises(ValueError, match=rf"idx.*\[0, {V - 1}\].*\[0, {V}\]"):
        model(torch.tensor([[0, V]]))
    with pytest.raises(ValueError, match=r"positions"):
        model(random_ids(L=4), positions=torch.tensor([0, 1, 2, MAX_LEN]))
    with pytest.raises(ValueError, match=r"key_padding_mask"):
        model(random_ids(L=4), key_padding_mask=torch.ones(2, 4))


def test_tiny_model_overfits_one_batch():
    torch.manual_seed(0)
    model = TransformerLM(LMConfig(vocab_size=V, d_model=32, n_heads=4, n_layers=2, max_len=16))
    ids = random_ids(B=4, L=16, seed=6)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)

    def loss():
        logits = model(ids[:, :-1])
        return nn.functional.cross_entropy(logits.reshape(-1, V), ids[:, 1:].reshape(-1))

    first = loss().item()
    for _ in range(60):
        optimizer.zero_grad()
        current = loss()
        current.backward()
        optimizer.step()
    last = loss().item()
    assert first > 0.9 * math.log(V), f"initial loss {first:.2f} should be near log V"
    assert last < 0.2 * first, f"loss went from {first:.2f} to only {last:.2f}"


def test_bf16_autocast_on_cpu_returns_float32_logits():
    model = tiny("rope")
    ids = random_ids()
    mask = torch.ones_like(ids, dtype=torch.bool)
    mask[0, :2] = False
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(ids, key_padding_mask=mask)
    assert logits.dtype == torch.float32
    assert torch.isfinite(logits).all()
    torch.testing.assert_close(logits[1], model(ids)[1], atol=0.1, rtol=0.1)


def test_device_helpers_fall_back_to_the_cpu():
    assert pick_device("cpu") == torch.device("cpu")
    assert pick_device().type in ("cuda", "mps", "cpu")
    if not torch.cuda.is_available():
        assert pick_device().type != "cuda"
        with pytest.raises(ValueError, match="preference"):
            pick_device("cuda")
    with autocast_context("cpu"):
        assert not torch.is_autocast_enabled("cpu")


# -- agreement with the notebook-06 solution classes -------------------------------------
def notebook_06():
    from attnbook.grading import load_reference

    return load_reference("06_transformer_block")


def randomise(model, seed):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * 0.5 + (1.0 if p.dim() == 1 else 0.0))
    return model


@pytest.mark.parametrize("positions", POSITIONS)
def test_transformer_lm_agrees_with_the_notebook_decoder_when_weights_are_copied(positions):
    """Weights copied either way by load_state_dict give the same logits, for every option."""
    ref = notebook_06()
    notebook = randomise(ref.Decoder(V, D, HEADS, LAYERS, MAX_LEN, positions), 5).eval()
    model = tiny(positions)
    assert set(model.state_dict()) == set(notebook.state_dict())
    model.load_state_dict(notebook.state_dict())
    ids = random_ids(B=3, L=MAX_LEN)
    with torch.no_grad():
        torch.testing.assert_close(model(ids), notebook(ids), atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(model(ids[:, :5]), notebook(ids[:, :5]), atol=1e-5, rtol=1e-5)
    randomise(model, 6)  # and back: the package's weights into the notebook's classes
    notebook.load_state_dict(model.state_dict())
    with torch.no_grad():
        torch.testing.assert_close(notebook(ids), model(ids), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("tie", [False, True])
@pytest.mark.parametrize("positions", POSITIONS)
def test_notebook_count_parameters_equals_the_module_count(positions, tie):
    ref = notebook_06()
    model = tiny(positions, tie_weights=tie)
    assert (
        ref.count_parameters(V, D, HEADS, LAYERS, MAX_LEN, positions, tie_weights=tie)
        == model.num_parameters()
    )
    if not tie:
        notebook = ref.Decoder(V, D, HEADS, LAYERS, MAX_LEN, positions)
        assert sum(p.numel() for p in notebook.parameters()) == model.num_parameters()


# -- one model: initialisation by module type, no device sync, one block definition ----------
def test_initialisation_goes_by_module_type_not_by_parameter_name():
    model = TransformerLM(
        LMConfig(vocab_size=200, d_model=64, n_heads=4, n_layers=3, max_len=16, tie_weights=False)
    )
    branch_ends = {id(m) for b in model.blocks for m in (b.attn.W_O, b.mlp.fc_out)}
    for name, module in model.named_modules():
        if isinstance(module, nn.Linear):
            want = 0.02 / (2 * 3) ** 0.5 if id(module) in branch_ends else 0.02
            assert abs(module.weight.std().item() - want) < 0.15 * want, name
            assert not module.bias.any(), name
        elif isinstance(module, nn.Embedding):
            assert abs(module.weight.std().item() - 0.02) < 0.003, name
        elif isinstance(module, nn.LayerNorm):
            assert (module.weight == 1).all() and not module.bias.any(), name
    # a norm under a name that no string rule would know is initialised as a norm
    model.blocks[0].extra = nn.LayerNorm(64)
    nn.init.constant_(model.blocks[0].extra.weight, 0.5)
    model.reset_parameters()
    assert (model.blocks[0].extra.weight == 1).all()


@pytest.mark.parametrize("positions", POSITIONS)
def test_forward_and_decoding_read_no_value_off_the_device(positions):
    """On the meta device a tensor has no values: any range check that reads one (a device
    sync on a GPU) would raise here."""
    from attnbook.lm.generation import KVCache, decode_step

    model = tiny(positions).to("meta")
    idx = torch.zeros(2, 5, dtype=torch.long, device="meta")
    assert model(idx).shape == (2, 5, V)
    mask = torch.ones(2, 5, dtype=torch.bool, device="meta")
    positions = torch.zeros(2, 5, dtype=torch.long, device="meta")
    assert model(idx, key_padding_mask=mask, positions=positions).shape == (2, 5, V)
    cache = KVCache.empty(model, 2, 8)
    assert decode_step(model, idx, cache).shape == (2, 5, V)
    assert decode_step(model, idx[:, :1], cache).shape == (2, 1, V)


def test_cached_decoding_goes_through_the_models_own_blocks():
    """Swap in a block whose forward differs from TransformerBlock's: the cache path follows,
    because it has no block of its own."""
    from attnbook.lm.generation import KVCache, decode_step

    class Louder(TransformerBlock):
        def forward(self, h, *args, **kwargs):
            return 1.5 * super().forward(h, *args, **kwargs)

    model = tiny("rope")
    louder = Louder(model.config)
    louder.load_state_dict(model.blocks[1].state_dict())
    model.blocks[1] = louder.eval()
    ids = random_ids(B=2, L=8)
    cache = KVCache.empty(model, 2, 8)
    stepped = torch.cat(
        [decode_step(model, ids[:, :3], cache)]
        + [decode_step(model, ids[:, t : t + 1], cache) for t in range(3, 8)],
        dim=1,
    )
    torch.testing.assert_close(stepped, model(ids), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("positions", ["rope", "none"])
def test_one_product_for_queries_keys_and_values_gives_what_the_three_layers_give(positions):
    """heads_qkv multiplies by W_Q, W_K and W_V stacked; each head's q, k and v are those of
    the three layers, RoPE turning q and k alike."""
    model = tiny(positions)
    attn = model.blocks[0].attn
    x = torch.randn(2, 5, D, generator=torch.Generator().manual_seed(3))
    rope = (model.rope_cos[:5], model.rope_sin[:5]) if positions == "rope" else None
    with torch.no_grad():
        q, k, v = attn.heads_qkv(x, rope)
        expected = []
        for layer in (attn.W_Q, attn.W_K, attn.W_V):
            y = layer(x).view(2, 5, HEADS, D // HEADS).transpose(1, 2)  # (B, h, L, d_k)
            turn = rope is not None and layer is not attn.W_V
            expected.append(rotate_pairs(y, *rope) if turn else y)
    for got, want in zip((q, k, v), expected):
        assert got.shape == (2, HEADS, 5, D // HEADS)
        torch.testing.assert_close(got, want, atol=1e-6, rtol=1e-5)
    weight, bias = attn.qkv_projection()
    assert torch.equal(weight, torch.cat([attn.W_Q.weight, attn.W_K.weight, attn.W_V.weight]))
    assert torch.equal(bias, torch.cat([attn.W_Q.bias, attn.W_K.bias, attn.W_V.bias]))


def test_a_hook_on_w_v_runs_in_the_forward_pass_and_in_cached_decoding():
    """Notebook 07's head ablation hooks W_V: the one stacked product must not skip it. A hook
    that zeroes the values changes the logits, in the forward pass and in decode_step."""
    from attnbook.lm.generation import KVCache, decode_step

    model = tiny("rope")
    ids = random_ids(B=1, L=6)
    with torch.no_grad():
        before = model(ids)
    calls = []

    def zero_values(_module, _inputs, out):
        calls.append(tuple(out.shape))
        return torch.zeros_like(out)

    handle = model.blocks[0].attn.W_V.register_forward_hook(zero_values)
    try:
        with torch.no_grad():
            hooked = model(ids)
        cache = KVCache.empty(model, 1, 6)
        stepped = torch.cat(
            [decode_step(model, ids[:, :2], cache)]
            + [decode_step(model, ids[:, t : t + 1], cache) for t in range(2, 6)],
            1,
        )
    finally:
        handle.remove()
    assert calls == [(1, 6, D), (1, 2, D)] + [(1, 1, D)] * 4
    assert not torch.allclose(hooked, before, atol=1e-4)
    torch.testing.assert_close(stepped, hooked, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("positions", POSITIONS)
def test_a_start_position_gives_the_inputs_of_the_positions_from_it(positions):
    """inputs(idx, 3) (every row at 3, 4, ...: table slices, no index tensor) equals inputs
    with the positions written out."""
    model = tiny(positions)
    ids = random_ids(B=2, L=4)
    with torch.no_grad():
        h_start, rope_start = model.inputs(ids, 3)
        h_full, rope_full = model.inputs(ids, torch.arange(3, 7)[None])
    torch.testing.assert_close(h_start, h_full, atol=0, rtol=0)
    if positions == "rope":
        for start, full in zip(rope_start, rope_full):
            torch.testing.assert_close(start.expand_as(full[0, 0]), full[0, 0], atol=0, rtol=0)
    else:
        assert rope_start is None and rope_full is None
