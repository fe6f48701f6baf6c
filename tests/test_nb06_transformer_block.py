"""Tests of attnbook.demos.nb06 (notebook 06's helpers and figures) and of the nb06 checks."""

import matplotlib
import numpy as np
import pytest
import torch
from torch import nn

from attnbook.checks import (
    CheckFailure,
    check_count_parameters,
    check_decoder,
    check_layer_norm,
    check_mlp,
    check_prenorm_block,
)
from attnbook.demos.nb06 import (
    POSITION_OPTIONS,
    batch_dependence,
    causal_self_attention,
    causality_gradients,
    depth_profile,
    norm_axes_demo,
    plot_causality,
    plot_depth_profiles,
    plot_norm_axes,
    plot_shape_walk,
    require_last_axis,
    shape_walk,
    zero_branches,
)
from attnbook.grading import load_reference
from attnbook.lm.model import CausalSelfAttention, LMConfig, TransformerBlock, TransformerLM

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

REF = load_reference("06_transformer_block")
GRADED = ("layer_norm", "MLP", "PreNormBlock", "Decoder", "count_parameters")


pytestmark = pytest.mark.usefixtures("one_thread")


def labelled(fig):
    for ax in fig.axes:
        if ax.get_label() == "<colorbar>":
            continue
        assert ax.get_title(), "every panel has a title"
        assert ax.get_xlabel() and ax.get_ylabel() or ax is not fig.axes[0], "axes labelled"
    plt.close(fig)


# -- helpers given to the student --------------------------------------------------------
def test_causal_self_attention_is_the_reference_layer_and_causal():
    attn = causal_self_attention(8, 2)
    assert isinstance(attn, CausalSelfAttention)
    assert {n for n, _ in attn.named_children()} >= {"W_Q", "W_K", "W_V", "W_O"}
    x = torch.randn(2, 5, 8)
    y = attn(x)
    assert y.shape == (2, 5, 8)
    x2 = x.clone()
    x2[:, 3:] += 1.0
    torch.testing.assert_close(attn(x2)[:, :3], y[:, :3])


def test_causal_self_attention_accepts_an_odd_head_width():
    assert causal_self_attention(6, 2)(torch.randn(1, 3, 6)).shape == (1, 3, 6)


def test_require_last_axis_names_argument_and_shape():
    require_last_axis("x", torch.zeros(2, 3), 3, "d_model")
    with pytest.raises(ValueError, match=r"x .*d_model = 4.*\(2, 3\)"):
        require_last_axis("x", torch.zeros(2, 3), 4, "d_model")


# -- LayerNorm against BatchNorm ---------------------------------------------------------
def test_norm_axes_demo_normalises_rows_for_layernorm_and_columns_for_batchnorm():
    demo = norm_axes_demo(B=3, L=4, d=6)
    layer, batch = demo["layer"], demo["batch"]
    torch.testing.assert_close(layer.mean(-1), torch.zeros(3, 4), atol=1e-5, rtol=0)
    torch.testing.assert_close(layer.var(-1, unbiased=False), torch.ones(3, 4), atol=1e-3, rtol=0)
    torch.testing.assert_close(batch.mean((0, 1)), torch.zeros(6), atol=1e-5, rtol=0)
    assert not torch.allclose(batch.mean(-1), torch.zeros(3, 4), atol=1e-2)
    torch.testing.assert_close(
        layer, REF.layer_norm(demo["h"], torch.ones(6), torch.zeros(6)), atol=1e-5, rtol=0
    )


def test_batch_dependence_layernorm_never_batchnorm_only_in_training():
    assert batch_dependence(nn.LayerNorm(8), train=True) == 0.0
    assert batch_dependence(nn.LayerNorm(8), train=False) == 0.0
    assert batch_dependence(nn.BatchNorm1d(8), train=True) > 0.1
    assert batch_dependence(nn.BatchNorm1d(8), train=False) == 0.0


def test_plot_norm_axes_labels_three_panels():
    fig = plot_norm_axes(norm_axes_demo())
    panels = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
    assert len(panels) == 3
    assert "LayerNorm" in panels[1].get_title() and "BatchNorm" in panels[2].get_title()
    assert all(ax.get_xlabel() for ax in panels) and panels[0].get_ylabel()
    plt.close(fig)


# -- pre-norm against post-norm ----------------------------------------------------------
def test_pre_norm_bypass_is_untouched_and_post_norm_is_not():
    h = torch.randn(2, 5, 8) * 3 + 1
    pre = zero_branches(REF.PreNormBlock(8, 2))
    assert torch.equal(pre(h), h)
    config = LMConfig(vocab_size=1, d_model=8, n_heads=2, positions="none")
    assert torch.equal(zero_branches(TransformerBlock(config))(h), h)
    post = zero_branches(TransformerBlock(LMConfig(**{**config.__dict__, "norm": "post"})))
    assert not torch.allclose(post(h), h)
    torch.testing.assert_close(post(h), post.ln2(post.ln1(h)))


@pytest.fixture(scope="module")
def profiles():
    return [depth_profile(norm, n_layers=16, d_model=32, B=2, L=8) for norm in ("pre", "post")]


def test_depth_profile_pre_norm_stream_grows_post_norm_stream_stays_at_sqrt_d(profiles):
    pre, post = profiles
    assert len(pre["depth"]) == 17 and len(pre["grad_norm"]) == 17
    assert pre["stream_norm"][-1] > 1.2 * pre["stream_norm"][1]
    np.testing.assert_allclose(post["stream_norm"][1:], np.sqrt(32), rtol=1e-3)
    assert np.all(np.isfinite(pre["grad_norm"])) and np.all(pre["grad_norm"] > 0)


def test_depth_profile_post_norm_gradient_is_smaller_in_the_lowest_blocks():
    post = depth_profile("post")  # the notebook's configuration: 32 blocks
    assert post["grad_norm"][1] < 0.7 * post["grad_norm"][-1]


def test_plot_depth_profiles_is_labelled(profiles):
    fig = plot_depth_profiles(profiles)
    for ax in fig.axes:
        assert ax.get_title() and ax.get_xlabel() and ax.get_ylabel()
        assert {t.get_text() for t in ax.get_legend().get_texts()} >= {"pre-norm", "post-norm"}
    plt.close(fig)


# -- causality by gradients --------------------------------------------------------------
@pytest.mark.parametrize("positions", POSITION_OPTIONS)
def test_causality_gradients_are_zero_exactly_above_the_diagonal(positions):
    torch.manual_seed(0)
    model = REF.Decoder(11, 8, 2, 2, 10, positions)
    G = causality_gradients(model, torch.randint(0, 11, (2, 6)))
    assert G.shape == (6, 6)
    assert np.all(G[np.triu_indices(6, k=1)] == 0.0)
    assert np.all(G[np.tril_indices(6)] > 0.0)


def test_causality_gradients_see_the_future_in_a_model_without_the_mask():
    config = LMConfig(vocab_size=11, d_model=8, n_heads=2, n_layers=1, max_len=10, causal=False)
    G = causality_gradients(TransformerLM(config), torch.randint(0, 11, (1, 5)))
    assert np.all(G[np.triu_indices(5, k=1)] > 0.0)


def test_plot_causality_shades_the_zero_triangle():
    G = np.tril(np.ones((4, 4)))
    fig = plot_causality(G, ["a", "b", "c", "d"])
    ax = fig.axes[0]
    assert ax.get_xlabel() == "input position s" and ax.get_ylabel() == "logit position l"
    assert ax.get_title()
    assert len(ax.patches) == 6  # one shaded cell per (l, s) with s > l
    plt.close(fig)


# -- shape walk --------------------------------------------------------------------------
@pytest.mark.parametrize("make", ["reference", "package"])
def test_shape_walk_goes_from_ids_to_logits(make):
    V, d, N = 30, 16, 3
    if make == "reference":
        model = REF.Decoder(V, d, 4, N, 12, "learned")
    else:
        model = TransformerLM(
            LMConfig(
                vocab_size=V, d_model=d, n_heads=4, n_layers=N, max_len=12, positions="learned"
            )
        )
    stages = shape_walk(model, torch.randint(0, V, (2, 6)))
    names = [name for name, _ in stages]
    assert stages[0] == ("token ids", (2, 6))
    assert stages[-1] == ("vocabulary head: logits", (2, 6, V))
    assert ("block 1: fc_in", (2, 6, 4 * d)) in stages
    position_shape = (6, d) if make == "reference" else (1, 6, d)  # the package keeps a B axis
    assert ("learned positions P", position_shape) in stages
    assert sum(name.endswith("H_out") for name in names) == N
    fig = plot_shape_walk(stages, sizes={"d": d, "4d": 4 * d, "V": V})
    ax = fig.axes[0]
    assert ax.get_title() and ax.get_xlabel() and ax.get_ylabel()
    texts = " ".join(t.get_text() for t in ax.texts)
    assert "[B, L]" in texts and "[B, L, V]" in texts and "[B, L, 4d]" in texts
    assert "[L, d]" in texts or make == "package"  # the notebook's table has no batch axis
    plt.close(fig)


# -- the checks accept the reference and reject a wrong answer ---------------------------
def test_checks_pass_the_reference_answers(capsys):
    check_layer_norm(REF.layer_norm, reference=REF.layer_norm)
    check_mlp(REF.MLP, reference=REF.MLP)
    check_prenorm_block(REF.PreNormBlock, reference=REF.PreNormBlock)
    check_decoder(REF.Decoder, reference=REF.Decoder, trials=1)
    check_count_parameters(REF.count_parameters, reference=REF.count_parameters)
    out = capsys.readouterr().out
    for name in GRADED:
        assert f"\u2713 {name} passed" in out


def test_layer_norm_check_names_the_unbiased_variance():
    def unbiased(h, gamma, beta, eps=1e-5):
        if gamma.shape[0] != h.shape[-1]:
            raise ValueError(f"gamma {tuple(gamma.shape)} h {tuple(h.shape)}")
        mean = h.mean(-1, keepdim=True)
        return gamma * (h - mean) / torch.sqrt(h.var(-1, keepdim=True) + eps) + beta

    unbiased.__name__ = "layer_norm"
    with pytest.raises(CheckFailure, match="unbiased variance"):
        check_layer_norm(unbiased)


# -- bad input and checks that see through common slips ------------------------------------
def test_reference_rejects_bad_widths_with_value_errors_naming_the_argument():
    with pytest.raises(ValueError, match=r"gamma.*\(\)"):
        REF.layer_norm(torch.zeros(2, 4), torch.tensor(1.0), torch.zeros(4))
    with pytest.raises(ValueError, match=r"h.*d_model = 8.*\(1, 3, 6\)"):
        REF.PreNormBlock(8, 2)(torch.zeros(1, 3, 6))
    with pytest.raises(ValueError, match="d_k = d_model // n_heads must be even"):
        REF.Decoder(5, 6, 2, 1, 4, "rope")
    with pytest.raises(ValueError, match="even d_model"):
        REF.Decoder(5, 5, 1, 1, 4, "sinusoidal")


def test_layer_norm_check_rejects_pytorchs_own_layer_norm():
    def layer_norm(h, gamma, beta, eps=1e-5):
        if gamma.shape[0] != h.shape[-1]:
            raise ValueError(f"gamma {tuple(gamma.shape)} h {tuple(h.shape)}")
        return torch.nn.functional.layer_norm(h, h.shape[-1:], gamma, beta, eps)

    with pytest.raises(CheckFailure, match="PyTorch's own normalisation"):
        check_layer_norm(layer_norm)


def test_decoder_check_accepts_a_model_that_never_calls_its_embed_module(capsys):
    class Decoder(REF.Decoder):
        def forward(self, idx):
            if idx.ndim != 2 or idx.shape[1] > self.max_len:
                raise ValueError(f"idx has shape {tuple(idx.shape)}; max_len = {self.max_len}")
            h = torch.nn.functional.embedding(idx, self.embed.weight)
            L = idx.shape[1]
            rope = None
            if self.positions == "learned":
                h = h + self.pos.weight[:L]
            elif self.positions == "sinusoidal":
                h = h + self.sinusoids[:L]
            elif self.positions == "rope":
                rope = (self.rope_cos[:L], self.rope_sin[:L])
            for block in self.blocks:
                h = block(h, rope)
            return self.head(self.ln_final(h))

    Decoder.__name__ = "Decoder"
    check_decoder(Decoder)
    assert "\u2713 Decoder passed" in capsys.readouterr().out


def test_parameter_check_accepts_aliased_layers_and_rejects_shared_ones(capsys):
    class PreNormBlock(REF.PreNormBlock):  # the LayerNorms registered first in a ModuleList
        def __init__(self, d_model, n_heads):
            nn.Module.__init__(self)
            self.d_model = d_model
            self.norms = nn.ModuleList([nn.LayerNorm(d_model), nn.LayerNorm(d_model)])
            self.ln1, self.ln2 = self.norms
            self.attn = causal_self_attention(d_model, n_heads)
            self.mlp = REF.MLP(d_model, 4 * d_model)

    PreNormBlock.__name__ = "PreNormBlock"
    check_prenorm_block(PreNormBlock, reference=REF.PreNormBlock, trials=1)
    assert "\u2713 PreNormBlock passed" in capsys.readouterr().out

    class Decoder(REF.Decoder):  # a tied head: one parameter under two expected names
        def __init__(self, *args):
            super().__init__(*args)
            self.head.weight = self.embed.weight

    Decoder.__name__ = "Decoder"
    with pytest.raises(CheckFailure, match=r"missing \['head.weight'\]"):
        check_decoder(Decoder)


RECURSIVE_LAYER_NORM = """
def layer_norm(h, gamma, beta, eps=1e-5):
    if gamma.shape[0] != h.shape[-1]:
        raise ValueError(f"gamma {tuple(gamma.shape)} h {tuple(h.shape)}")
    if h.dim() > 1:  # one token at a time, by calling itself
        rows = []
        for row in h:
            rows.append(layer_norm(row, gamma, beta, eps))
        return torch.stack(rows)
    mean = h.mean()
    return gamma * (h - mean) / torch.sqrt(((h - mean) ** 2).mean() + eps) + beta
"""


def test_layer_norm_ban_allows_recursion_but_sees_into_nested_code(capsys):
    namespace = {"torch": torch}
    exec(RECURSIVE_LAYER_NORM, namespace)  # as a notebook cell defines it
    check_layer_norm(namespace["layer_norm"])
    assert "\u2713 layer_norm passed" in capsys.readouterr().out

    def layer_norm(h, gamma, beta, eps=1e-5):
        if gamma.shape[0] != h.shape[-1]:
            raise ValueError(f"gamma {tuple(gamma.shape)} h {tuple(h.shape)}")
        return torch.stack(
            [
                torch.nn.functional.layer_norm(t, t.shape, gamma, beta, eps)
                for t in h.reshape(-1, h.shape[-1])
            ]
        ).reshape(h.shape)

    with pytest.raises(CheckFailure, match="PyTorch's own normalisation"):
        check_layer_norm(layer_norm)


# -- default-dtype (float32) tensors built inside forward ----------------------------------
# The module checks run in float32, the dtype learners use, so a buffer made with
# torch.zeros(...) in forward is right; the same buffer in a wrong module still fails.
def _decoder_with_sinusoids_in_forward(final_ln: bool = True):
    class Decoder(REF.Decoder):
        def forward(self, idx):
            if idx.ndim != 2 or idx.shape[1] > self.max_len:
                raise ValueError(f"idx has shape {tuple(idx.shape)}; max_len = {self.max_len}")
            L = idx.shape[1]
            h = self.embed(idx)
            rope = None
            if self.positions == "learned":
                h = h + self.pos(torch.arange(L))
            elif self.positions == "sinusoidal":
                d = h.shape[-1]
                pe = torch.zeros(L, d)  # the default dtype
                where = torch.arange(L).unsqueeze(1)
                div = torch.exp(torch.arange(0, d, 2) * (-np.log(10000.0) / d))
                pe[:, 0::2], pe[:, 1::2] = torch.sin(where * div), torch.cos(where * div)
                h = h + pe
            elif self.positions == "rope":
                rope = (self.rope_cos[:L], self.rope_sin[:L])
            for block in self.blocks:
                h = block(h, rope)
            return self.head(self.ln_final(h) if final_ln else h)

    Decoder.__name__ = "Decoder"
    return Decoder


def _block_with_zeros_buffer(mlp_residual: bool = True):
    class PreNormBlock(REF.PreNormBlock):
        def forward(self, h, rope=None):
            if h.ndim != 3 or h.shape[-1] != self.d_model:
                raise ValueError(f"h has shape {tuple(h.shape)}; d_model = {self.d_model}")
            u = torch.zeros(h.shape)  # the default dtype
            u[:] = h + self.attn(self.ln1(h), rope)
            return (u if mlp_residual else 0.0) + self.mlp(self.ln2(u))

    PreNormBlock.__name__ = "PreNormBlock"
    return PreNormBlock


def _mlp_with_default_dtype_tensors(activation: str = "gelu"):
    class MLP(REF.MLP):
        def forward(self, x):
            if x.shape[-1] != self.d_model:
                raise ValueError(f"x has shape {tuple(x.shape)}; d_model = {self.d_model}")
            a = self.fc_in(x)
            if activation == "gelu":
                g = 0.5 * a * (1.0 + torch.erf(a / torch.sqrt(torch.tensor(2.0))))
            else:
                g = torch.maximum(a, torch.zeros(a.shape))
            out = torch.zeros(*x.shape[:-1], self.fc_out.out_features)
            out += self.fc_out(g)
            return out

    MLP.__name__ = "MLP"
    return MLP


def test_modules_with_default_dtype_tensors_in_forward_pass(capsys):
    check_mlp(_mlp_with_default_dtype_tensors(), reference=REF.MLP, trials=2)
    check_prenorm_block(_block_with_zeros_buffer(), reference=REF.PreNormBlock, trials=1)
    check_decoder(_decoder_with_sinusoids_in_forward(), reference=REF.Decoder, trials=1)
    out = capsys.readouterr().out
    for name in ("MLP", "PreNormBlock", "Decoder"):
        assert f"\u2713 {name} passed" in out


def test_wrong_modules_with_default_dtype_tensors_still_fail():
    with pytest.raises(CheckFailure, match="ReLU instead of GELU"):
        check_mlp(_mlp_with_default_dtype_tensors(activation="relu"))
    with pytest.raises(CheckFailure, match=r"missing residual around the MLP"):
        check_prenorm_block(_block_with_zeros_buffer(mlp_residual=False))
    with pytest.raises(CheckFailure, match="final LayerNorm forgotten"):
        check_decoder(_decoder_with_sinusoids_in_forward(final_ln=False))


# -- keys and values become contextual from the second block on ----------------------------
def _shuffled_rows(positions, seed):
    from attnbook.demos.nb06 import context_shuffle

    torch.manual_seed(seed)
    model = TransformerLM(
        LMConfig(vocab_size=30, d_model=16, n_heads=4, n_layers=3, max_len=12, positions=positions)
    )
    with torch.no_grad():  # weights far from GPT-2's small start, so attention really mixes
        for parameter in model.parameters():
            parameter.normal_(0.0, 0.5)
    ids = torch.randint(3, 30, (1, 10))
    shuffle = context_shuffle(model, ids, t=7, seed=seed)
    assert not torch.equal(shuffle["shuffled"], ids)
    assert torch.equal(shuffle["shuffled"][0, 7:], ids[0, 7:])  # token t and after kept
    assert torch.equal(shuffle["shuffled"][0, 1:7].sort().values, ids[0, 1:7].sort().values)
    assert [row[0] for row in shuffle["rows"]] == [1, 2, 3]
    return shuffle["rows"]


@pytest.mark.parametrize("positions", ["sinusoidal", "learned", "rope"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_keys_and_values_become_contextual_from_the_second_block(positions, seed):
    (_, first_k, first_v), *deeper = _shuffled_rows(positions, seed)
    assert first_k == 0.0 and first_v == 0.0
    assert all(k > 1e-2 and v > 1e-2 for _, k, v in deeper), deeper


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_without_positions_the_second_block_sees_the_prefix_as_a_set(seed):
    """No position signal: block 1's output at t averages its prefix in any order, so token
    t's block-2 key and value stay put (up to rounding); block 3 reads prefixes that changed."""
    (_, first_k, first_v), (_, second_k, second_v), (_, third_k, third_v) = _shuffled_rows(
        "none", seed
    )
    assert first_k == 0.0 and first_v == 0.0
    assert second_k < 1e-5 and second_v < 1e-5
    assert third_k > 1e-3 and third_v > 1e-3


def test_the_trained_email_model_shows_contextual_keys_in_block_two():
    """Notebook 06's demonstration, on the shipped checkpoint: its prose says block 1 moves
    by exactly zero and block 2 moves."""
    from attnbook.demos.nb06 import context_shuffle
    from attnbook.lm.generation import find_checkpoint
    from attnbook.lm.train import load_trained

    model, tokenizer, _ = load_trained(find_checkpoint())
    words = "hi anna , please send the report before the slides".split()
    ids = torch.tensor([tokenizer.encode(words)])
    rows = context_shuffle(model, ids, len(words), seed=0)["rows"]
    assert rows[0][1:] == (0.0, 0.0)
    assert all(k > 0.1 and v > 0.1 for _, k, v in rows[1:]), rows


def test_context_shuffle_names_a_bad_argument():
    from attnbook.demos.nb06 import context_shuffle

    model = TransformerLM(LMConfig(vocab_size=30, d_model=16, n_heads=4, n_layers=2, max_len=12))
    with pytest.raises(ValueError, match="idx: expected shape"):
        context_shuffle(model, torch.zeros(2, 5, dtype=torch.long), 3)
    with pytest.raises(ValueError, match="t: expected"):
        context_shuffle(model, torch.zeros(1, 5, dtype=torch.long), 9)
