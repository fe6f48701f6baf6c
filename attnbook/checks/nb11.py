"""Checks for notebook 11, the encoder-decoder: cross_attention, EncoderDecoder, beam_search.

Visible use: `check_cross_attention(cross_attention)` runs a worked example and compares with
PyTorch's `F.scaled_dot_product_attention`; `check_encoder_decoder(EncoderDecoder)` copies
random weights from the course's `Seq2SeqTransformer` (which computes what
`torch.nn.Transformer(norm_first=True)` computes) into the learner's module and compares
logits, then tests padding, causality and that the whole source is read;
`check_beam_search(beam_search)` runs lookup-table models whose every probability is set by
hand, then random models against the package's batched beam search. Hidden use: each also
compares with the autograder's reference on random shapes, weights and seeds.
"""

from __future__ import annotations

import ast
import linecache
import math
from dataclasses import replace
from functools import partial
from typing import cast

import numpy as np
import torch
import torch.nn.functional as F

from attnbook.checks import nb05
from attnbook.checks._cases import (
    Build,
    Case,
    Part,
    Returns,
    Slips,
    case_tolerance,
    forbid,
    match_slip,
    one_number,
    package_model,
    run_table,
    sizes,
    weights_of,
)
from attnbook.checks._core import (
    CheckRun,
    as_array,
    names_called,
)
from attnbook.checks._lm import padded_ids
from attnbook.checks._modules import parameter_shapes
from attnbook.checks._source import borrowed, definitions, names_reached, rebound
from attnbook.lm.seq2seq import (
    Seq2SeqConfig,
    Seq2SeqTransformer,
    beam_decode,
    randomise,
)

KNOWN = Slips("nb11")

__all__ = [
    "check_beam_search",
    "check_cross_attention",
    "check_encoder_decoder",
    "lookup_model",
]

HINT_KEY_AXIS = (
    "enc_allowed is (B, L_s): reshape it to (B, 1, 1, L_s) (enc_allowed[:, None, "
    "None, :]) so that it lines up with the LAST axis of the scores (B, h, L_t, "
    "L_s), the source tokens, for every head and every query"
)
HINT_NAN = (
    "an email with no real token leaves a row of -inf scores, and torch.softmax "
    "gives NaN for it: give such rows zero weights (torch.nan_to_num(..., nan=0.0))"
)


# ---------------------------------------------------------------------------------------
# cross_attention
# ---------------------------------------------------------------------------------------
def _softmax_rows(scores: torch.Tensor, dim: int = -1) -> torch.Tensor:
    return torch.nan_to_num(torch.softmax(scores, dim=dim), nan=0.0)


def _torch_expected(q, k, v, enc_allowed):
    """PyTorch's fused attention with the key mask; an email with no real token gives
    zeros, as the course defines. The weights from the same masked scores."""
    keys = enc_allowed[:, None, None, :]  # (B, 1, 1, L_s)
    y = torch.nan_to_num(F.scaled_dot_product_attention(q, k, v, attn_mask=keys), nan=0.0)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return y, _softmax_rows(scores.masked_fill(~keys, float("-inf")))


HINT_RETURN_Y_A = "return both the output and the weights: return Y, A"
HINT_NO_RETURN_Y_A = "end cross_attention with return Y, A: the output and the weights"


HINT_CROSS_IN_PLACE = (
    "work on new tensors (scores = q @ ..., not q /= ...): the caller's q, k, v "
    "and enc_allowed must stay as they were"
)
HINT_Y_FIRST = "return Y first, then A: the output, then the weights"
HINT_Y_SHAPE = "Y is (B, h, L_t, d_v): one row per reply position, the width of the values"
HINT_A_SHAPE = "A is (B, h, L_t, L_s): one row per reply position, one column per source token"


HINT_CROSS_OWN = nb05.HINT_WRITE_IT_YOURSELF  # notebook 05's, for the same borrowing
HINT_PADDED_WEIGHT_ZERO = (
    "a padded source token must get weight exactly 0, so what it holds can never reach the output"
)
HINT_CROSS_OVERFLOW = (
    "exp of a large score overflows: torch.softmax subtracts each row's maximum for you"
)


# detectors raised from the code itself, not from an output (see scripts/release.py)
PROPERTY_DETECTORS = ("HINT_CROSS_OWN", "HINT_GIVEN_LAYERS_OWN", "HINT_SEARCH_OWN")
_CROSS = "cross_attention"
CROSS_RETURNS = Returns(
    (
        Part("A", 1, what="weights", shape_hint=HINT_A_SHAPE),
        Part("Y", 0, what="output", shape_hint=HINT_Y_SHAPE),
    ),
    hint=HINT_RETURN_Y_A,
    order_hint=HINT_Y_FIRST,
)


def _a_pair(run: CheckRun, case: Case, seen) -> None:
    """None (no `return`) gets its own message; the runner checks the pair itself."""
    if seen is None:
        run.fail(
            f"{case.call} returned None: cross_attention has no `return` (or never reaches one).",
            hint=HINT_NO_RETURN_Y_A,
        )


def _cross_case(
    case_id: str, call: str, q, k, v, enc_allowed, expect=None, hint=None, then=None
) -> Case:
    return Case(case_id, call, (q, k, v, enc_allowed),
                expect=_torch_expected(q, k, v, enc_allowed) if expect is None else expect,
                hint=hint, finite=hint or HINT_NAN, returns=CROSS_RETURNS, before=_a_pair,
                crash_hints=((("must match the size", "does not broadcast", "shape of the mask"),
                              HINT_KEY_AXIS),), then=then)  # fmt: skip


def _padding_unread(run: CheckRun, case: Case, seen) -> None:
    """Message B's padded keys and values replaced by +-100 must leave Y as it was."""
    q, k, v, enc_allowed = case.args
    k2, v2 = k.clone(), v.clone()
    k2[1, :, 4:], v2[1, :, 4:] = 100.0, -100.0
    call = "cross_attention with Message B's padded keys and values replaced by +-100"
    again = run.call(call, q, k2, v2, enc_allowed)
    run.expect_true(isinstance(again, tuple | list) and len(again) == 2,
                    f"{call} returned {type(again).__name__}; expected a pair (Y, A).",
                    hint=HINT_RETURN_Y_A)  # fmt: skip
    run.expect_close(call, again[0], seen[0], rtol=1e-6, atol=1e-6, hint=HINT_PADDED_WEIGHT_ZERO)


def _empty_email_is_zero(run: CheckRun, case: Case, seen) -> None:
    """Email 1 has no real token: its output is zeros."""
    run.expect_close("the output of the email with no real token", as_array(seen[0])[1],
                     np.zeros((1, 2, 4)), atol=0.0, hint=nb05.HINT_EMPTY_ROW)  # fmt: skip


def _worked_cross() -> tuple[tuple, tuple[torch.Tensor, torch.Tensor]]:
    """The worked example: 2 reply positions, 3 source tokens, the last one padding."""
    q = torch.tensor([[[[1.0, 0.0], [0.0, 2.0]]]], dtype=torch.float64)  # (1, 1, 2, 2)
    k = torch.tensor([[[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]]], dtype=torch.float64)
    v = torch.tensor([[[[1.0, 0.0], [0.0, 1.0], [5.0, 5.0]]]], dtype=torch.float64)
    r0 = math.exp(1 / math.sqrt(2))  # row 0: scores (1, 0) / sqrt(2)
    r1 = math.exp(2 / math.sqrt(2))  # row 1: scores (0, 2) / sqrt(2)
    A = torch.tensor([[[[r0 / (r0 + 1), 1 / (r0 + 1), 0.0], [1 / (1 + r1), r1 / (1 + r1), 0.0]]]],
                     dtype=torch.float64)  # fmt: skip
    return (q, k, v, torch.tensor([[True, True, False]])), (A @ v, A)


_g = torch.Generator().manual_seed(111)
_qb, _kb = (torch.randn(2, 3, L, 4, generator=_g, dtype=torch.float64) for L in (4, 6))
_vb = torch.randn(2, 3, 6, 2, generator=_g, dtype=torch.float64)
_batch = torch.tensor([[True] * 6, [True] * 4 + [False] * 2])  # Message A, Message B
_square = torch.tensor([[True] * 5, [True, True, True, False, False]])
_qs, _ks, _vs = (torch.randn(2, 2, 5, 3, generator=_g, dtype=torch.float64) for _ in range(3))
_empty = torch.tensor([[True, False, True], [False, False, False]])
_qe = torch.randn(2, 1, 2, 4, generator=_g, dtype=torch.float64)
_ke, _ve = (torch.randn(2, 1, 3, 4, generator=_g, dtype=torch.float64) for _ in range(2))
_big = torch.randn(1, 2, 3, 4, generator=_g, dtype=torch.float64) * 30.0  # scores ~ 1e3
_vbig = torch.randn(1, 2, 3, 2, generator=_g, dtype=torch.float64)
_one = torch.randn(1, 1, 1, 3, generator=_g)
_qx, _kx, _vx = (torch.randn(2, 1, 3, 4, generator=_g, dtype=torch.float64) for _ in range(3))
(_wq, _wk, _wv, _wreal), _worked_out = _worked_cross()
CROSS_CASES = (
    _cross_case("worked", "cross_attention(q, k, v, enc_allowed) on the worked example (2 reply "
                "positions, 3 source tokens, the third one padding with value (5, 5))",
                _wq, _wk, _wv, _wreal, expect=_worked_out),
    _cross_case("batch", "cross_attention on a batch of 2 emails (Message B padded by 2), 3 heads, "
                "L_t = 4, L_s = 6, d_k = 4, d_v = 2, float64", _qb, _kb, _vb, _batch,
                then=_padding_unread),
    _cross_case("square", "cross_attention with L_t = L_s = 5 (Message B padded by 2)",
                _qs, _ks, _vs, _square),
    _cross_case("empty", "cross_attention where email 1 has no real token at all",
                _qe, _ke, _ve, _empty, then=_empty_email_is_zero),
    _cross_case("large", "cross_attention with large scores (q, k ~ 30 per feature)", _big,
                _big.flip(-2), _vbig, torch.tensor([[True, True, False]]),
                hint=HINT_CROSS_OVERFLOW),
    _cross_case("one token", "cross_attention with one reply position and one source token, "
                "float32", _one, _one, _one, torch.tensor([[True]])),
    Case("mask too wide", "cross_attention with enc_allowed of shape (2, 4) for 3 source tokens",
         (_qx, _kx, _vx, torch.ones(2, 4, dtype=torch.bool)), raises=ValueError,
         mentions=("enc_allowed", "(2, 4)")),
    Case("float mask", "cross_attention with enc_allowed of dtype float",
         (_qx, _kx, _vx, torch.ones(2, 3)), raises=ValueError, mentions=("enc_allowed",)),
)  # fmt: skip


def _cross_trial(rng: np.random.Generator, seed: int) -> Case:
    """Random sizes, float32 or float64 by the seed's parity, random source lengths (an
    email with no real token in every third trial); the value is the reference's."""
    dtype = np.float64 if seed % 2 else np.float32
    B, h, L_t, L_s, d_k, d_v = sizes(rng, 6)

    def normal(*shape: int) -> torch.Tensor:
        return torch.from_numpy(rng.standard_normal(shape).astype(dtype))

    q, k, v = normal(B, h, L_t, d_k), normal(B, h, L_s, d_k), normal(B, h, L_s, d_v)
    lengths = rng.integers(0 if seed % 3 == 0 else 1, L_s + 1, size=B)
    real = torch.from_numpy(np.arange(L_s)[None, :] < lengths[:, None])  # (B, L_s)
    call = (
        f"cross_attention on random q {tuple(q.shape)}, k {tuple(k.shape)}, v "
        f"{tuple(v.shape)}, source lengths {lengths.tolist()}, {q.dtype} (seed {seed})"
    )
    return _cross_case("trial", call, q, k, v, real)


def check_cross_attention(cross_attention, reference=None, trials: int = 10) -> None:
    """The reply's queries over the source's keys and values: the table `CROSS_CASES` (a
    worked example, a padded batch whose padding must not be read, L_t = L_s, an email with
    no real token, large scores, float32, two input checks), then random trials against the
    reference."""
    run = CheckRun(cross_attention, none_ok=True)  # `_a_pair` names the missing pair
    forbid(run, nb05.FUSED_ATTENTION, "PyTorch's own fused attention", HINT_CROSS_OWN)
    run.in_place_hint = HINT_CROSS_IN_PLACE
    run_table(run, _CROSS, CROSS_CASES, KNOWN, reference, trials, _cross_trial)


# ---------------------------------------------------------------------------------------
# EncoderDecoder
# ---------------------------------------------------------------------------------------
HINT_CROSS_ARGS = (
    "call the cross-attention layer as self.cross_attn(x, source, allowed): the queries come from "
    "the reply (LN2(U)), the keys and values from the memory, and allowed is the source padding "
    "mask src_allowed[:, None, None, :]"
)
HINT_PADDING = (
    "apply the source padding mask in the encoder's self-attention AND in every "
    "cross-attention: src_allowed[:, None, None, :] (B, 1, 1, L_s) as allowed"
)
HINT_CAUSAL = (
    "the decoder's self-attention needs the causal mask, a lower-triangular (L_t, L_t) bool matrix "
    "sized by the reply's length: reply position t may read only reply positions <= t"
)
HINT_WHOLE_SOURCE = (
    "neither the encoder nor cross-attention is causal: the whole source is "
    "given, so every reply position may read every real source token"
)


HINT_LN_FINAL = "apply self.ln_final to the last decoder block's output before the head"
HINT_ENCODER_NOT_CAUSAL = HINT_WHOLE_SOURCE + "; the encoder uses the padding mask only"


HINT_FORWARD_RETURNS = "each forward must return its result (return u + ...)"
HINT_MASK_SHAPES = (
    "check every mask's shape: the causal mask is (L_t, L_t); the source padding mask is (B, 1, "
    "1, L_s); " + HINT_CROSS_ARGS + ". Each sequence's positions start at 0: the source adds "
    "self.sinusoids[:L_s], the reply self.sinusoids[:L_t]"
)


_ENCDEC_CRASH = (
    ("NoneType", HINT_FORWARD_RETURNS),
    (("must match the size", "does not broadcast", "shape"), HINT_MASK_SHAPES),
)


def _invoke(run: CheckRun, call: str, model, *args):
    """A call of the learner's model. A block's forward without `return` hands None to the
    next block or LayerNorm ("not NoneType"): named before the shape words."""
    return run.invoke(call, model, *args, crash_hints=_ENCDEC_CRASH)


HINT_KEEP_CONSTRUCTORS_BODIES = "keep the constructors as given; write only the four bodies"


def _inspect_encdec(run: CheckRun, call: str, view, *, sizes: tuple) -> None:
    """The course model's parameter names and shapes: the constructors as given."""
    ref = _encdec_like(sizes)
    seen = parameter_shapes(view)
    expected = {k: tuple(p.shape) for k, p in ref.named_parameters()}
    missing = sorted(set(expected) - set(seen))
    extra = sorted(set(seen) - set(expected))
    run.expect_true(
        not missing and not extra,
        f"{call} does not have the course model's parameters: missing "
        f"{missing[:6]}, unexpected {extra[:6]}.",
        hint=HINT_KEEP_CONSTRUCTORS_BODIES,
    )
    wrong = [(k, seen[k], expected[k]) for k in expected if seen[k] != expected[k]]
    run.expect_true(
        not wrong,
        f"{call}: parameter shapes differ: {wrong[:3]}.",
        hint=HINT_KEEP_CONSTRUCTORS_BODIES,
    )


def _random_pair(
    B: int, L_s: int, L_t: int, V: int, seed: int, min_len: int = 1
) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-padded sources of random lengths (ids 3 .. V-1, padding 0) and replies."""
    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(min_len, L_s + 1, (B,), generator=g)
    lengths[0] = L_s  # one email fills the batch
    rows = [torch.randint(3, V, (int(n),), generator=g).tolist() for n in lengths]
    tgt = torch.randint(1, V, (B, L_t), generator=g)
    return padded_ids(rows), tgt


HINT_LOGITS_SHAPE = "the logits are (B, L_t, V): one row per reply position"
HINT_PADDING_NAN = (
    "a source with padding must not give NaN: pass the padding mask as allowed, "
    "the attention layer handles the rest"
)
HINT_COMPARE_EQUATIONS = (
    "compare each block with the equations above the exercise: the masks, "
    "the order of the three branches and their LayerNorms"
)


def _class_names(cls) -> set[str]:
    """`names_called` for a class. The grader supplies the names from the submission; in a
    notebook a class's source is found through the code of one of its methods (the cell that
    defined it), since `inspect.getsource` cannot find a class defined in a cell."""
    names = names_called(cls)
    if names or hasattr(type(cls), "__attnbook_names__") or not isinstance(cls, type):
        return names
    for value in vars(cls).values():
        code = getattr(value, "__code__", None)
        lines = linecache.getlines(code.co_filename) if code is not None else []
        try:
            tree = ast.parse("".join(lines))
        except SyntaxError:
            continue
        found = definitions(tree)
        if cls.__name__ in found:
            return names_reached(cls.__name__, found, rebound(tree))
    return names


HINT_GIVEN_LAYERS_OWN = (
    "write the blocks from the given layers (attention_layer, feed_forward, "
    "nn.LayerNorm); the check compares with the course's model for you"
)


_ENCDEC = "EncoderDecoder"


def _package_encdec(V: int, d: int, n_heads: int, n_layers: int, max_len: int):
    """The course's model of these sizes (the config's first five fields)."""
    return Seq2SeqTransformer(Seq2SeqConfig(V, d, n_heads, n_layers, max_len))


def _encdec_like(sizes: tuple, seed: int | None = None) -> Seq2SeqTransformer:
    """The course's model, with random weights from `seed` if given (`package_model`)."""
    model = package_model(_package_encdec, tuple(sizes), seed, randomise)
    return cast(Seq2SeqTransformer, model)


def _why_not(run: CheckRun, case: Case, seen, expected, slips) -> None:
    """Wrong logits that no known slip gives: the properties a right answer has, tested one
    by one on the learner's module for a precise hint."""
    seen = torch.as_tensor(as_array(seen)).float()
    tol = case_tolerance(case, expected)
    if torch.allclose(seen, torch.as_tensor(expected).float(), **tol.kwargs()):
        return
    if match_slip(seen, expected, slips, tol) is not None:
        return  # the comparison names it
    src, tgt = case.args
    B, L_s = src.shape
    padded = torch.cat([src, torch.zeros(B, 2, dtype=torch.long)], dim=1)  # 2 more <PAD>
    max_len = case.build.args[-1] if case.build is not None else 0
    if L_s + 2 <= max_len:
        longer = _invoke(run, "EncoderDecoder", run.module, padded, tgt)
        run.expect_true(
            torch.allclose(torch.as_tensor(as_array(longer)).float(), seen, **tol.kwargs()),
            "EncoderDecoder: adding two <PAD> tokens to every source changed the logits.",
            hint=HINT_PADDING,
        )
    changed = tgt.clone()
    changed[:, -1] = torch.where(tgt[:, -1] == 3, 4, 3)  # another reply token
    moved = torch.as_tensor(as_array(_invoke(run, "EncoderDecoder", run.module, src, changed)))
    run.expect_true(
        tgt.shape[1] < 2 or torch.allclose(moved[:, :-1].float(), seen[:, :-1], **tol.kwargs()),
        "EncoderDecoder: changing the LAST reply token moved the logits at earlier reply "
        "positions.",
        hint=HINT_CAUSAL,
    )


def _encdec_case(
    case_id: str, sizes: tuple, seed: int, square: bool = False, lengths: tuple | None = None
) -> Case:
    """EncoderDecoder(*sizes) with random weights from `seed` on three right-padded sources
    and their replies (as long as the sources when `square`; `lengths` (L_s, L_t) when
    given), expecting the course model's logits with the same weights."""
    model = _encdec_like(sizes, seed)
    max_len = sizes[-1]
    L_s = min(max_len, 7)
    L_t = L_s if square else min(max_len, 5)
    L_s, L_t = lengths or (L_s, L_t)
    src, tgt = _random_pair(3, L_s, L_t, sizes[0], seed + 1, min_len=max(1, L_s - 3))
    with torch.no_grad():
        expected = model(src, tgt)
    call = f"EncoderDecoder({', '.join(map(str, sizes))})"
    build = Build(call, sizes, weights_of(model),
                  partial(_inspect_encdec, sizes=sizes))  # fmt: skip
    words = (
        f"{call} with random weights on sources {tuple(src.shape)} (lengths "
        f"{(src != 0).sum(1).tolist()}, padded with 0) and replies {tuple(tgt.shape)}"
    )
    return Case(case_id, words, (src, tgt), expected, build=build, what="logits",
                hint=HINT_COMPARE_EQUATIONS, shape_hint=HINT_LOGITS_SHAPE,
                finite=HINT_PADDING_NAN, probe=_why_not,
                crash_hints=_ENCDEC_CRASH, depth=6 * (2 * sizes[3] + 1))  # fmt: skip


_ENCDEC_SIZES = (13, 8, 2, 2, 10)  # V, d, h, N, max_len
ENCDEC_CASES = (
    _encdec_case("random", _ENCDEC_SIZES, 1100),
    _encdec_case("square", _ENCDEC_SIZES, 1110, square=True),
    _encdec_case("long reply", _ENCDEC_SIZES, 1120, lengths=(3, 8)),  # L_t > L_s
    Case("d_model 9", "EncoderDecoder(13, 8, 2, 2, 10) called as a constructor with d_model = 9 "
         "and n_heads = 2", (13, 9, 2, 2, 10), raises=ValueError, mentions=("d_model",)),
)  # fmt: skip


def _encdec_trial(rng: np.random.Generator, seed: int) -> Case:
    """Random sizes and weights."""
    n_heads = int(rng.integers(1, 4))
    sizes = (int(rng.integers(5, 20)), n_heads * 2 * int(rng.integers(1, 4)), n_heads,
             int(rng.integers(1, 4)), int(rng.integers(4, 12)))  # fmt: skip
    case = _encdec_case("trial", sizes, int(rng.integers(2**30)))
    return replace(case, call=f"{case.call} (seed {seed})")


_BORROWED = {
    "Seq2SeqTransformer", "EncoderLayer", "DecoderLayer", "Transformer",
    "TransformerEncoderLayer", "TransformerDecoderLayer", "scaled_dot_product_attention",
}  # fmt: skip
MASK_HELPER = "generate_square_subsequent_mask"


def check_encoder_decoder(EncoderDecoder, reference=None, trials: int = 2) -> None:
    """The model from the given layers only, built each time with the course model's
    parameters and random weights: logits on padded sources and replies, the course model's,
    so padding, causality, residuals and the whole source show (the slips named, or the
    property a wrong answer breaks), an input check (table `ENCDEC_CASES`); then random sizes
    against the reference."""
    run = CheckRun(EncoderDecoder)
    names = _class_names(EncoderDecoder)  # nn.Transformer's causal-mask helper is fine
    borrowed = sorted(names & _BORROWED - ({"Transformer"} if MASK_HELPER in names else set()))
    run.expect_true(not borrowed, f"{run.name} uses {borrowed}.", hint=HINT_GIVEN_LAYERS_OWN)
    run_table(run, _ENCDEC, ENCDEC_CASES, KNOWN, reference, trials, _encdec_trial)


# ---------------------------------------------------------------------------------------
# beam_search
# ---------------------------------------------------------------------------------------
BOS, EOS = 1, 2


def lookup_model(next_probs: dict[int, dict[int, float]], vocab_size: int) -> Seq2SeqTransformer:
    """A course encoder-decoder whose next-token distribution after token t is exactly
    ``next_probs[t]`` (unlisted tokens get distinct probabilities near 1e-12), whatever the
    source.

    No positions, every attention and MLP branch zero: the decoder's stream at a position
    is the embedding of its token, ``10 e_t``; its LayerNorm is ``a e_t - b 1``; the head's
    weights and bias are solved so that the logits are the log-probabilities.
    """
    d = vocab_size + (vocab_size % 2)
    config = Seq2SeqConfig(
        vocab_size=vocab_size, d_model=d, n_heads=1, n_layers=1, max_len=32, positions="none"
    )
    with torch.random.fork_rng(devices=[]):  # every weight is set below: the global state stays
        model = Seq2SeqTransformer(config).eval()
    tiny = 1e-12 * (1.0 + 0.1 * torch.arange(vocab_size, dtype=torch.float64))  # tie-free
    table = tiny.log().expand(vocab_size, -1).clone()  # (V, V)
    for token, row in next_probs.items():
        for nxt, p in row.items():
            table[token, nxt] = math.log(p)
    with torch.no_grad():
        for param in model.parameters():
            param.zero_()
        for ln in (
            model.ln_enc,
            model.ln_final,
            *(m for m in model.modules() if isinstance(m, torch.nn.LayerNorm)),
        ):
            ln.weight.fill_(1.0)
        model.embed.weight.copy_(10.0 * torch.eye(vocab_size, d))
        x = model.ln_final(model.embed.weight).double()  # (V, d): a e_t - b 1
        a = float(x[0, 0] - x[0, 1])
        b = float(-x[0, 1])
        W = torch.zeros(vocab_size, d, dtype=torch.float64)
        W[:, :vocab_size] = table.T / a  # column t: the log-probabilities after t
        model.head.weight.copy_(W.float())
        model.head.bias.copy_((b * W.sum(dim=1)).float())
    return model


# The worked example: after <BOS>, A (0.40) splits four ways, B (0.35) two ways, C (0.25) is
# one sentence. Greedy: A D (0.14); a beam of 2: B H (0.1925); a beam of 3: C J (0.25).
A_, B_, C_, D_, E_, F_, G_, H_, I_, J_ = range(3, 13)
TREE = {
    BOS: {A_: 0.40, B_: 0.35, C_: 0.25},
    A_: {D_: 0.35, E_: 0.25, F_: 0.22, G_: 0.18},
    B_: {H_: 0.55, I_: 0.45},
    C_: {J_: 1.0},
    **{t: {EOS: 1.0} for t in (D_, E_, F_, G_, H_, I_, J_)},
}
TREE_BEST = {
    1: ([BOS, A_, D_, EOS], 0.40 * 0.35),
    2: ([BOS, B_, H_, EOS], 0.35 * 0.55),
    3: ([BOS, C_, J_, EOS], 0.25),
    5: ([BOS, C_, J_, EOS], 0.25),
}
# A second table where the rules of the search matter. From <BOS>, token 5 (0.86) keeps going
# (5 again with 0.67) or ends (0.33), and an early end (0.14) finishes at once: hypotheses
# end at different steps and with different lengths. The other rows are reached only
# through the tiny probabilities, by searches that break a rule. Found by a search over
# random tables for one where every rule of RULE_HINTS changes the answer in some setting.
RULES = {
    BOS: {5: 0.86, EOS: 0.14},
    3: {4: 0.1, 6: 0.9},
    4: {EOS: 0.47, 4: 0.53},
    5: {5: 0.67, EOS: 0.33},
    6: {7: 0.73, 4: 0.09, EOS: 0.18},
    7: {6: 0.42, EOS: 0.08, 5: 0.5},
}


def length_table(short: float) -> dict:
    """The length penalty's worked table: after <BOS>, token 3 ends at once (probability
    `short`), token 4 goes on through 5 and 6 (1 - short). With short = 0.52 the short reply
    wins by total log-probability; divided by ((5 + n) / 6) ** 0.6 the longer one wins
    (-0.576 > -0.596)."""
    return {BOS: {3: short, 4: 1 - short}, 3: {EOS: 1.0}, 4: {5: 1.0}, 5: {6: 1.0}, 6: {EOS: 1.0}}


SHORT, LONG = [BOS, 3, EOS], [BOS, 4, 5, 6, EOS]
# (short, beam_size, alpha, the best reply): with 0.59 and alpha = 2 the short reply still
# wins, but not if the end token is left out of n.
LENGTH_CASES = [
    (0.52, 2, 0.0, SHORT),
    (0.52, 2, 0.6, LONG),
    (0.52, 3, 1.0, LONG),
    (0.59, 2, 2.0, SHORT),
]


# The best first token is the end (0.5): with beam_size = 1 that reply finishes and the beam is
# empty, so the search stops. Refilled with the best live candidate instead (Hugging Face's
# rule), the search goes on to 3 5 6 <EOS>, which alpha = 2 ranks higher.
REFILL = {BOS: {EOS: 0.5, 3: 0.3, 4: 0.2}, 3: {5: 1.0}, 5: {6: 1.0}, 6: {EOS: 1.0}, 4: {EOS: 1.0}}


K_, M_ = 3, 4
# No end at all: the search runs to max_len and returns the best live prefix.
LOOP = {BOS: {K_: 0.9, M_: 0.1}, K_: {K_: 0.6, M_: 0.4}, M_: {K_: 0.5, M_: 0.5}}


HINT_RULE_LOG_SOFTMAX = (
    "turn each step's logits into log-probabilities with torch.log_softmax(logits, dim=-1)"
)
HINT_SCORE_SUM = "the score is the sum of the log-probabilities of every new token, eos included"


HINT_SEARCH = (
    "at every step extend each live prefix by every token, rank ALL candidates by total "
    "log-probability, keep the beam_size best; a kept candidate ending in eos_id is finished and "
    "leaves the beam; return the best finished hypothesis (the best live prefix if none finished)"
)


HINT_RETURN_IDS_SCORE = "return the ids and the score: return ids, score"
HINT_ONE_HYPOTHESIS = (
    "return one hypothesis, its ids as a 1-D tensor (prefix[row], not the whole beam)"
)
HINT_SCORE_FLOAT = "return the hypothesis's total log-probability, a float"


def _ids_score(seen) -> tuple[np.ndarray, float]:
    """A search's result as (ids, score): a pair of one 1-D tensor of ids and one number."""
    if not isinstance(seen, tuple | list) or len(seen) != 2:
        raise ValueError("expected a pair (ids, score).", HINT_RETURN_IDS_SCORE)
    ids, score = as_array(seen[0]), one_number(seen[1])
    if ids.ndim != 1:
        raise ValueError(f"its ids have shape {ids.shape}; expected a 1-D tensor.",
                         HINT_ONE_HYPOTHESIS)  # fmt: skip
    if score is None:
        raise ValueError(f"its score has shape {np.shape(as_array(seen[1]))}; expected one "
                         "number.", HINT_SCORE_FLOAT)  # fmt: skip
    return ids, score


HINT_REPEAT_SOURCE = (
    "repeat the source once per live prefix: src_ids[None, :].expand(n, -1) is "
    "(n, L_s), and the prefixes are (n, t)"
)
HINT_SCORE_POSITIVE = "a log-probability is never positive: " + HINT_RULE_LOG_SOFTMAX


HINT_TOPK_MIN = (
    "a beam may be wider than the candidates there are (beam_size > V at the first step): keep "
    "min(beam_size, total.numel()) of them"
)
_SEARCH_CRASH = (
    (("must match the size", "Expected size", "expand", "same batch size"), HINT_REPEAT_SOURCE),
    ("out of range", HINT_TOPK_MIN),
    ("'NoneType'", HINT_RETURN_IDS_SCORE),
)
_SEARCH_RETURNS = Returns(
    (Part("ids", 0, shape_hint=HINT_SEARCH, hint=HINT_SEARCH),
     Part("score", 1, what="score", hint=HINT_SCORE_SUM)),
    hint=HINT_RETURN_IDS_SCORE,
)  # fmt: skip


def _best_reply(model, src, k: int, max_len: int, eos: int, alpha: float = 0.0):
    """The package's beam search, as `_ids_score` reads a learner's."""
    return _ids_score(beam_decode(model, src, k, max_len, eos, alpha=alpha))


def _search_case(case_id: str, what: str, model, src, k: int, max_len: int, eos: int = EOS,
                 alpha: float | None = None, expect=_best_reply, words: str = "",
                 ) -> Case:  # fmt: skip
    """beam_search(model, src, k, max_len, eos[, alpha]) on `what`; `expect` the best reply,
    (ids, probability), or a function of the arguments giving (ids, score)."""
    with_alpha = "" if alpha is None else f", alpha={alpha}"
    call = (f"beam_search({words or 'lookup_model, src'}, beam_size={k}, max_len={max_len}, "
            f"eos_id={eos}{with_alpha}) on {what}")  # fmt: skip
    if isinstance(expect, tuple):
        expect = (np.array(expect[0]), math.log(expect[1]))
    return Case(case_id, call, (model, src, k, max_len, eos), expect=expect,
                kwargs=None if alpha is None else {"alpha": alpha}, unpack=(_ids_score,
                HINT_RETURN_IDS_SCORE), returns=_SEARCH_RETURNS, whole=True, scale_free=True,
                depth=8, crash_hints=_SEARCH_CRASH)  # fmt: skip


def sharp_seq2seq(seed: int, vocab_size: int = 9, eos_bias: float = 1.5) -> Seq2SeqTransformer:
    """A random encoder-decoder with peaked, source-dependent next-token choices; the end
    token is made likelier so that some hypotheses finish within a few steps."""
    config = Seq2SeqConfig(vocab_size=vocab_size, d_model=16, n_heads=2, n_layers=1, max_len=16)
    with torch.random.fork_rng(devices=[]):  # every weight is drawn from `seed` below
        model = randomise(Seq2SeqTransformer(config), seed).eval()
    with torch.no_grad():
        model.head.weight.mul_(3.0)
        model.head.bias[EOS] += eos_bias
    return model


HINT_SEARCH_OWN = (
    "write the search yourself; the check compares with the package's beam search for you"
)


_BEAM = "beam_search"
_SRC = torch.tensor([BOS, 5, 6, EOS])  # a lookup model ignores its source
_tree, _rules = lookup_model(TREE, 13), lookup_model(RULES, 8)
_TREE_WHAT = {1: "greedy", 2: "B H beats A D", 3: "C J, the most likely reply", 5: "a wide beam"}
_ENDS = "a table where hypotheses end at different steps"
_relabelled = {
    t: {{EOS: 3, 3: EOS}.get(n, n): p for n, p in row.items()}
    for t, row in RULES.items()
    if t not in (3, EOS)
}  # ends with token 3


def _random_search(seed: int, k: int, alpha: float | None) -> Case:
    model = sharp_seq2seq(1300 + seed)
    g = torch.Generator().manual_seed(1310 + seed)
    src = torch.randint(3, 9, (int(torch.randint(2, 7, (1,), generator=g)),), generator=g)
    return _search_case(f"random {seed}", f"a random encoder-decoder (seed {seed})", model, src,
                        k, 6, alpha=alpha, words=f"random_model, src={src.tolist()}")  # fmt: skip


SEARCH_CASES = (
    *(_search_case(f"tree {k}", f"the worked tree [{_TREE_WHAT[k]}]", _tree, _SRC, k, 5,
                   expect=TREE_BEST[k]) for k in TREE_BEST),
    *(_search_case(f"rules {k} {n}", _ENDS, _rules, _SRC, k, n)
      for k, n in [(2, 6), (3, 6), (2, 3)]),
    _search_case("loop", "a model that never ends [the best live prefix after 4 tokens]",
                 lookup_model(LOOP, 8), _SRC, 2, 4, expect=([BOS, K_, K_, K_, K_], 0.9 * 0.6**3)),
    _search_case("long", "a flat table, each next token about 1/61 likely [30 tokens: the score "
                 "passes -104 after 27]", lookup_model({t: {n: 1 + n / 100 for n in range(3, 64)}
                 for t in range(64)}, 64), _SRC, 1, 30),
    _search_case("after end", "the worked tree, with a model that writes <EOS> again after <EOS>",
                 lookup_model({**TREE, EOS: {EOS: 1.0}}, 13), _SRC, 3, 5, alpha=1.0,
                 expect=TREE_BEST[3]),
    _search_case("ends in row 1", "the one reply that ends grows from live prefix 2 [4 <EOS>]",
                 lookup_model({BOS: {3: .5, 4: .4, 5: .1}, 3: {5: .9, EOS: .1}, 4: {EOS: 1.0},
                 5: {6: 1.0}, 6: {6: 1.0}}, 8), _SRC, 2, 4, expect=([BOS, 4, EOS], 0.4)),
    _search_case("max_len 0", "the worked tree, no token to write", _tree, _SRC, 3, 0,
                 expect=([BOS], 1.0)),
    _search_case("eos 3", "[the end token is the argument, not <EOS> = 2]",
                 lookup_model(_relabelled, 8), _SRC, 2, 6, eos=3),
    *(_random_search(seed, k, alpha) for seed, k, alpha in
      [(0, 1, None), (1, 2, None), (2, 3, None), (3, 4, None), (4, 3, 1.0)]),
    *(_search_case(f"length {short} {k} {alpha}", f"the length penalty's table [3 then the end: "
                   f"{short}, 4 5 6 then the end: {1 - short:.2f}]", lookup_model(
                   length_table(short), 8), _SRC, k, 5, alpha=alpha, expect=(best, short if best
                   == SHORT else 1 - short)) for short, k, alpha, best in LENGTH_CASES),
    *(_search_case(f"rules {k} {n} alpha", _ENDS, _rules, _SRC, k, n, alpha=alpha)
      for k, n, alpha in [(2, 6, 2.0), (3, 6, 1.0), (2, 4, 1.0)]),
    _search_case("no refill", "a table whose best first token is the end [a finished candidate "
                 "leaves the beam, which is not refilled]", lookup_model(REFILL, 8), _SRC, 1, 6,
                 alpha=2.0, expect=([BOS, EOS], 0.5)),
    _search_case("wider than V", "a random encoder-decoder of 9 tokens with a beam of 20",
                 sharp_seq2seq(1305), torch.tensor([3, 7, 5]), 20, 4,
                 words="random_model, src=[3, 7, 5]"),
    Case("src 2-D", "beam_search(model, src_ids of shape (1, 4), 2, 5, 2)", (sharp_seq2seq(1320),
         _SRC[None], 2, 5, EOS), raises=ValueError, mentions=("src_ids", "(1, 4)")),
    Case("beam 0", "beam_search(model, src, beam_size=0, max_len=5, eos_id=2)",
         (sharp_seq2seq(1320), _SRC, 0, 5, EOS), raises=ValueError, mentions=("beam_size",)),
)  # fmt: skip


def _search_trial(rng: np.random.Generator, seed: int) -> Case:
    """A random model (vocabulary, a bias towards the end token), source, beam size, length,
    end token and alpha."""
    V = int(rng.integers(6, 12))
    model = sharp_seq2seq(int(rng.integers(2**31)), vocab_size=V, eos_bias=float(rng.uniform(0, 3)))
    src = torch.as_tensor(rng.integers(3, V, size=int(rng.integers(1, 8))))
    k, max_len, eos = int(rng.integers(1, 6)), int(rng.integers(1, 9)), int(rng.integers(2, V))
    alpha = [None, 0.6, 1.0, 2.0][int(rng.integers(4))]
    words = f"random_model (V = {V}), src={src.tolist()}"
    return _search_case("trial", f"a random model (seed {seed})", model, src, k, max_len, eos,
                        alpha, expect=None, words=words)  # fmt: skip


def check_beam_search(beam_search, reference=None, trials: int = 6) -> None:
    """Beam search written by the learner (not the package's): the worked tree and the rules
    tables, a model that never ends, a long flat one, another end token, random
    encoder-decoders, the length penalty and two input checks (the table `SEARCH_CASES`), then
    random settings against the reference."""
    run = CheckRun(beam_search, crash_hint=HINT_SEARCH)
    used = sorted(borrowed(names_called(beam_search), {"beam_decode", "greedy_decode"}))
    run.expect_true(not used, f"{run.name} calls the package's {used}.",
                    hint=HINT_SEARCH_OWN)  # fmt: skip
    run_table(run, _BEAM, SEARCH_CASES, KNOWN, reference, trials, _search_trial)


# the functions of notebook 11 checked as tables
CASES = {_CROSS: CROSS_CASES, _ENCDEC: ENCDEC_CASES, _BEAM: SEARCH_CASES}
