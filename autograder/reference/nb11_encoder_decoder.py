"""Reference answers for notebook 11_encoder_decoder: generated, do not edit.

Made by scripts/release.py (`make release`) from the answer cells of
solutions/11_encoder_decoder/11_encoder_decoder.ipynb. Used by the hidden tests and the project's
own tests; never shipped to students.
"""


# ruff: noqa: E501, I001, F841, UP034
import math
import torch
from torch import nn
from attnbook.lm.model import sinusoid_table
from attnbook.lm.seq2seq import attention_layer, feed_forward
from attnbook.lm.tokenizer import BOS_ID as BOS
from attnbook.shapes import require_integer, require_ndim, require_number, require_same_size


# name: (options, correct letter, explanation shown when the answer is wrong)
ANSWERS = {
    'answer_bidirectional': ('ABC', 'A', 'the encoder reads the whole source with no causal mask and never the reply, so its output is computed once and every decoder step reads the same memory.'),
    'answer_cross_shape': ('ABC', 'B', "queries come from the reply and keys from the source: (B, h, L_t, L_s) = (2, 2, 5, 7). (2, 2, 5, 5) would be the reply's self-attention."),
    'answer_padding_both': ('ABC', 'C', "the encoder's output at a padded position is a vector like any other: every cross-attention must refuse those keys too, or padding changes the reply."),
    'answer_greedy_mode': ('ABC', 'B', "greedy takes yes (0.55 > 0.45) and then the likeliest time: 0.16, against the mode's 0.45. 0.55 is the first word's probability, not the sentence's."),
    'answer_regret': ('ABC', 'A', 'regret = log p(mode) - log p(reply) = log(0.32 / 0.22) = 0.37 nats; 0.10 subtracts the probabilities, 1.45 is their ratio without the log.'),
    'answer_typical': ('ABC', 'C', "the refusal is the single likeliest reply, so mode-seeking decoders refuse every request; sampling reproduces the task's distribution, about one refusal in three."),
}


# -- from the answer cell cross_attention
def cross_attention(q, k, v, enc_allowed):
    """Attention of the reply's queries over the source's keys and values.

    Args:
        q: (B, h, L_t, d_k) queries, one per reply position and head.
        k: (B, h, L_s, d_k) keys, one per source token and head.
        v: (B, h, L_s, d_v) values, one per source token and head.
        enc_allowed: (B, L_s) bool, True on the real tokens of each source email, False on
            its padding.

    Returns:
        (Y, A): Y of shape (B, h, L_t, d_v), A of shape (B, h, L_t, L_s), the weights. Each
        row of A sums to 1 over the real source tokens of its email (0 on padding); a row
        whose email has no real token is all zeros, and so is its output.
    """
    require_ndim("q", q, 4, "(B, h, L_t, d_k)")
    require_ndim("k", k, 4, "(B, h, L_s, d_k)")
    require_ndim("v", v, 4, "(B, h, L_s, d_v)")
    require_ndim("enc_allowed", enc_allowed, 2, "(B, L_s)")
    require_same_size("q", q, -1, "k", k, -1, "the query/key width d_k")
    require_same_size("k", k, -2, "v", v, -2, "the number of source tokens L_s")
    require_same_size("enc_allowed", enc_allowed, 1, "k", k, -2, "the number of source tokens")
    require_same_size("enc_allowed", enc_allowed, 0, "q", q, 0, "the batch size B")
    if enc_allowed.dtype != torch.bool:
        raise ValueError(f"enc_allowed must be a bool tensor (True = real source token); got "
                         f"dtype {enc_allowed.dtype} and shape {tuple(enc_allowed.shape)}")
    # Key idea: Queries come from the decoder, keys and values from the encoder's output: scores
    #   (B, h, L_t, L_s), with the source's padding blocked for every head and every query.
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, h, L_t, L_s)
    keys = enc_allowed[:, None, None, :]  # (B, 1, 1, L_s): every head, every query
    scores = scores.masked_fill(~keys, float("-inf"))
    A = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)  # (B, h, L_t, L_s)
    return A @ v, A  # (B, h, L_t, d_v), (B, h, L_t, L_s)


# -- from the answer cell EncoderDecoder
class EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        # Key idea: The encoder is pre-norm blocks with self-attention over the whole source
        #   (padding blocked); a decoder block adds causal self-attention, then cross-attention to
        #   the encoder's memory, then the MLP, each on the residual stream.
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])  # (B, L_s, d)
        return u + self.mlp(self.ln2(u))


class DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()  # (L_t, L_t)
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)  # (B, L_t, d)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))  # (B, L_t, d)


class EncoderDecoder(nn.Module):
    """Source ids (B, L_s) and reply ids (B, L_t) -> next-token logits (B, L_t, V)."""

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = max_len, pad_id
        self.embed = nn.Embedding(vocab_size, d_model)  # shared by source and reply
        self.register_buffer("sinusoids", sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList(EncoderBlock(d_model, n_heads) for _ in range(n_layers))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList(DecoderBlock(d_model, n_heads) for _ in range(n_layers))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]  # (B, L_s, d)
        for block in self.encoder:
            h = block(h, src_allowed)  # (B, L_s, d)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]  # (B, L_t, d)
        for block in self.decoder:
            h = block(h, memory, src_allowed)  # (B, L_t, d)
        return self.head(self.ln_final(h))  # (B, L_t, V)

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim("src_ids", src_ids, 2, "(B, L_s)")
        require_ndim("tgt_ids", tgt_ids, 2, "(B, L_t)")
        require_same_size("src_ids", src_ids, 0, "tgt_ids", tgt_ids, 0, "the batch size B")
        for name, ids in (("src_ids", src_ids), ("tgt_ids", tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f"{name} has shape {tuple(ids.shape)}: longer than max_len "
                                 f"= {self.max_len}")
        src_allowed = src_ids != self.pad_id  # (B, L_s): True on real source tokens
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)


# -- from the answer cell beam_search
def beam_search(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    """The most likely reply that a beam of `beam_size` prefixes finds.

    Args:
        model: an encoder-decoder; model(src (n, L_s), prefixes (n, t)) -> logits (n, t, V).
        src_ids: (L_s,) the source's token ids, unpadded.
        beam_size: the number of candidates kept at every step (>= 1; 1 is greedy).
        max_len: the most new tokens to write after <BOS> (>= 0).
        eos_id: the end token; a candidate ending in it is finished and leaves the beam.
        alpha: the length penalty (>= 0). Finished hypotheses are ranked by
            score / ((5 + n) / 6) ** alpha, n the tokens after <BOS> with eos_id counted;
            alpha = 0 ranks them by the total log-probability itself.

    Returns:
        (ids, score): ids a 1-D LongTensor that starts with <BOS> (the setup's BOS) and ends
        with eos_id when a hypothesis finished; score its total log-probability, a float
        (never divided by the penalty). The best finished hypothesis by the penalised
        score, or the best live one when none finished. The search runs until no prefix
        is live or max_len tokens are written, however many hypotheses have finished (it
        may stop sooner only when no live prefix can beat the best finished one).
    """
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim("src_ids", src_ids, 1, "(L_s,)")
    beam_size = require_integer("beam_size", beam_size, 1, "(candidates kept per step)")
    max_len = require_integer("max_len", max_len, 0, "(new tokens at most)")
    alpha = require_number("alpha", alpha, 0.0, "(the length penalty; 0 is none)")
    # Key idea: Keep the beam_size best prefixes by total log-probability: extend every live prefix
    #   by every token and keep the best beam_size; a hypothesis that ends with eos_id is finished;
    #   choose among the finished ones with the length penalty.
    def penalised(hypothesis):  # a finished (score, ids), ranked with the length penalty
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha

    longest = ((5 + max_len) / 6) ** alpha  # the largest penalty a reply can get
    live = torch.tensor([[BOS]])  # (n, t): the live prefixes, all of one length
    scores = torch.zeros(1)  # (n,): their total log-probabilities
    finished = []  # (score, ids) of the hypotheses that ended with eos_id
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break  # optional: no live prefix can beat the best finished reply any more
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]  # (n, V)
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)  # (n, V)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))  # (k,) each
        rows, tokens = flat // total.shape[1], flat % total.shape[1]
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)  # (n', t + 1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return torch.tensor(ids), score
    best_row = int(scores.argmax())
    return live[best_row].clone(), float(scores[best_row])


# -- the catalogued mistakes (autograder/mistakes/), resolved: the hidden trials run
# them on their inputs to name the slip a wrong output matches
# cross_attention: no 1/sqrt(d_k)
def _slip_cross_attention_0(q, k, v, enc_allowed):
    require_ndim('q', q, 4, '(B, h, L_t, d_k)')
    require_ndim('k', k, 4, '(B, h, L_s, d_k)')
    require_ndim('v', v, 4, '(B, h, L_s, d_v)')
    require_ndim('enc_allowed', enc_allowed, 2, '(B, L_s)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of source tokens L_s')
    require_same_size('enc_allowed', enc_allowed, 1, 'k', k, -2, 'the number of source tokens')
    require_same_size('enc_allowed', enc_allowed, 0, 'q', q, 0, 'the batch size B')
    if enc_allowed.dtype != torch.bool:
        raise ValueError(f'enc_allowed must be a bool tensor (True = real source token); got dtype {enc_allowed.dtype} and shape {tuple(enc_allowed.shape)}')
    scores = q @ k.transpose(-2, -1)
    keys = enc_allowed[:, None, None, :]
    scores = scores.masked_fill(~keys, float('-inf'))
    A = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return (A @ v, A)

# cross_attention: scaled by sqrt(L_s)
def _slip_cross_attention_1(q, k, v, enc_allowed):
    require_ndim('q', q, 4, '(B, h, L_t, d_k)')
    require_ndim('k', k, 4, '(B, h, L_s, d_k)')
    require_ndim('v', v, 4, '(B, h, L_s, d_v)')
    require_ndim('enc_allowed', enc_allowed, 2, '(B, L_s)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of source tokens L_s')
    require_same_size('enc_allowed', enc_allowed, 1, 'k', k, -2, 'the number of source tokens')
    require_same_size('enc_allowed', enc_allowed, 0, 'q', q, 0, 'the batch size B')
    if enc_allowed.dtype != torch.bool:
        raise ValueError(f'enc_allowed must be a bool tensor (True = real source token); got dtype {enc_allowed.dtype} and shape {tuple(enc_allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(k.shape[-2])
    keys = enc_allowed[:, None, None, :]
    scores = scores.masked_fill(~keys, float('-inf'))
    A = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return (A @ v, A)

# cross_attention: scaled by sqrt(d_v)
def _slip_cross_attention_2(q, k, v, enc_allowed):
    require_ndim('q', q, 4, '(B, h, L_t, d_k)')
    require_ndim('k', k, 4, '(B, h, L_s, d_k)')
    require_ndim('v', v, 4, '(B, h, L_s, d_v)')
    require_ndim('enc_allowed', enc_allowed, 2, '(B, L_s)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of source tokens L_s')
    require_same_size('enc_allowed', enc_allowed, 1, 'k', k, -2, 'the number of source tokens')
    require_same_size('enc_allowed', enc_allowed, 0, 'q', q, 0, 'the batch size B')
    if enc_allowed.dtype != torch.bool:
        raise ValueError(f'enc_allowed must be a bool tensor (True = real source token); got dtype {enc_allowed.dtype} and shape {tuple(enc_allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(v.shape[-1])
    keys = enc_allowed[:, None, None, :]
    scores = scores.masked_fill(~keys, float('-inf'))
    A = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return (A @ v, A)

# cross_attention: padding not masked
def _slip_cross_attention_3(q, k, v, enc_allowed):
    require_ndim('q', q, 4, '(B, h, L_t, d_k)')
    require_ndim('k', k, 4, '(B, h, L_s, d_k)')
    require_ndim('v', v, 4, '(B, h, L_s, d_v)')
    require_ndim('enc_allowed', enc_allowed, 2, '(B, L_s)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of source tokens L_s')
    require_same_size('enc_allowed', enc_allowed, 1, 'k', k, -2, 'the number of source tokens')
    require_same_size('enc_allowed', enc_allowed, 0, 'q', q, 0, 'the batch size B')
    if enc_allowed.dtype != torch.bool:
        raise ValueError(f'enc_allowed must be a bool tensor (True = real source token); got dtype {enc_allowed.dtype} and shape {tuple(enc_allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    keys = enc_allowed[:, None, None, :]
    A = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return (A @ v, A)

# cross_attention: mask inverted
def _slip_cross_attention_4(q, k, v, enc_allowed):
    require_ndim('q', q, 4, '(B, h, L_t, d_k)')
    require_ndim('k', k, 4, '(B, h, L_s, d_k)')
    require_ndim('v', v, 4, '(B, h, L_s, d_v)')
    require_ndim('enc_allowed', enc_allowed, 2, '(B, L_s)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of source tokens L_s')
    require_same_size('enc_allowed', enc_allowed, 1, 'k', k, -2, 'the number of source tokens')
    require_same_size('enc_allowed', enc_allowed, 0, 'q', q, 0, 'the batch size B')
    if enc_allowed.dtype != torch.bool:
        raise ValueError(f'enc_allowed must be a bool tensor (True = real source token); got dtype {enc_allowed.dtype} and shape {tuple(enc_allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    keys = enc_allowed[:, None, None, :]
    scores = scores.masked_fill(keys, float('-inf'))
    A = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return (A @ v, A)

# cross_attention: mask applied after the softmax
def _slip_cross_attention_5(q, k, v, enc_allowed):
    require_ndim('q', q, 4, '(B, h, L_t, d_k)')
    require_ndim('k', k, 4, '(B, h, L_s, d_k)')
    require_ndim('v', v, 4, '(B, h, L_s, d_v)')
    require_ndim('enc_allowed', enc_allowed, 2, '(B, L_s)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of source tokens L_s')
    require_same_size('enc_allowed', enc_allowed, 1, 'k', k, -2, 'the number of source tokens')
    require_same_size('enc_allowed', enc_allowed, 0, 'q', q, 0, 'the batch size B')
    if enc_allowed.dtype != torch.bool:
        raise ValueError(f'enc_allowed must be a bool tensor (True = real source token); got dtype {enc_allowed.dtype} and shape {tuple(enc_allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    keys = enc_allowed[:, None, None, :]
    A = torch.softmax(scores, dim=-1) * keys
    return (A @ v, A)

# cross_attention: mask multiplied into the scores
def _slip_cross_attention_6(q, k, v, enc_allowed):
    require_ndim('q', q, 4, '(B, h, L_t, d_k)')
    require_ndim('k', k, 4, '(B, h, L_s, d_k)')
    require_ndim('v', v, 4, '(B, h, L_s, d_v)')
    require_ndim('enc_allowed', enc_allowed, 2, '(B, L_s)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of source tokens L_s')
    require_same_size('enc_allowed', enc_allowed, 1, 'k', k, -2, 'the number of source tokens')
    require_same_size('enc_allowed', enc_allowed, 0, 'q', q, 0, 'the batch size B')
    if enc_allowed.dtype != torch.bool:
        raise ValueError(f'enc_allowed must be a bool tensor (True = real source token); got dtype {enc_allowed.dtype} and shape {tuple(enc_allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    keys = enc_allowed[:, None, None, :]
    scores = scores * keys
    A = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return (A @ v, A)

# cross_attention: a causal mask added
def _slip_cross_attention_7(q, k, v, enc_allowed):
    require_ndim('q', q, 4, '(B, h, L_t, d_k)')
    require_ndim('k', k, 4, '(B, h, L_s, d_k)')
    require_ndim('v', v, 4, '(B, h, L_s, d_v)')
    require_ndim('enc_allowed', enc_allowed, 2, '(B, L_s)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of source tokens L_s')
    require_same_size('enc_allowed', enc_allowed, 1, 'k', k, -2, 'the number of source tokens')
    require_same_size('enc_allowed', enc_allowed, 0, 'q', q, 0, 'the batch size B')
    if enc_allowed.dtype != torch.bool:
        raise ValueError(f'enc_allowed must be a bool tensor (True = real source token); got dtype {enc_allowed.dtype} and shape {tuple(enc_allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    keys = enc_allowed[:, None, None, :] & torch.ones(scores.shape[-2:], dtype=torch.bool).tril()
    scores = scores.masked_fill(~keys, float('-inf'))
    A = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return (A @ v, A)

# cross_attention: softmax over the reply positions
def _slip_cross_attention_8(q, k, v, enc_allowed):
    require_ndim('q', q, 4, '(B, h, L_t, d_k)')
    require_ndim('k', k, 4, '(B, h, L_s, d_k)')
    require_ndim('v', v, 4, '(B, h, L_s, d_v)')
    require_ndim('enc_allowed', enc_allowed, 2, '(B, L_s)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of source tokens L_s')
    require_same_size('enc_allowed', enc_allowed, 1, 'k', k, -2, 'the number of source tokens')
    require_same_size('enc_allowed', enc_allowed, 0, 'q', q, 0, 'the batch size B')
    if enc_allowed.dtype != torch.bool:
        raise ValueError(f'enc_allowed must be a bool tensor (True = real source token); got dtype {enc_allowed.dtype} and shape {tuple(enc_allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    keys = enc_allowed[:, None, None, :]
    scores = scores.masked_fill(~keys, float('-inf'))
    A = torch.nan_to_num(torch.softmax(scores, dim=-2), nan=0.0)
    return (A @ v, A)

# cross_attention: -1e9 instead of -inf
def _slip_cross_attention_9(q, k, v, enc_allowed):
    require_ndim('q', q, 4, '(B, h, L_t, d_k)')
    require_ndim('k', k, 4, '(B, h, L_s, d_k)')
    require_ndim('v', v, 4, '(B, h, L_s, d_v)')
    require_ndim('enc_allowed', enc_allowed, 2, '(B, L_s)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of source tokens L_s')
    require_same_size('enc_allowed', enc_allowed, 1, 'k', k, -2, 'the number of source tokens')
    require_same_size('enc_allowed', enc_allowed, 0, 'q', q, 0, 'the batch size B')
    if enc_allowed.dtype != torch.bool:
        raise ValueError(f'enc_allowed must be a bool tensor (True = real source token); got dtype {enc_allowed.dtype} and shape {tuple(enc_allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    keys = enc_allowed[:, None, None, :]
    scores = scores.masked_fill(~keys, -1000000000.0)
    A = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return (A @ v, A)

# cross_attention: NaN for an email with no real token
def _slip_cross_attention_10(q, k, v, enc_allowed):
    require_ndim('q', q, 4, '(B, h, L_t, d_k)')
    require_ndim('k', k, 4, '(B, h, L_s, d_k)')
    require_ndim('v', v, 4, '(B, h, L_s, d_v)')
    require_ndim('enc_allowed', enc_allowed, 2, '(B, L_s)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of source tokens L_s')
    require_same_size('enc_allowed', enc_allowed, 1, 'k', k, -2, 'the number of source tokens')
    require_same_size('enc_allowed', enc_allowed, 0, 'q', q, 0, 'the batch size B')
    if enc_allowed.dtype != torch.bool:
        raise ValueError(f'enc_allowed must be a bool tensor (True = real source token); got dtype {enc_allowed.dtype} and shape {tuple(enc_allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    keys = enc_allowed[:, None, None, :]
    scores = scores.masked_fill(~keys, float('-inf'))
    A = torch.softmax(scores, dim=-1)
    return (A @ v, A)

# cross_attention: mask not reshaped to the scores' axes
def _slip_cross_attention_11(q, k, v, enc_allowed):
    require_ndim('q', q, 4, '(B, h, L_t, d_k)')
    require_ndim('k', k, 4, '(B, h, L_s, d_k)')
    require_ndim('v', v, 4, '(B, h, L_s, d_v)')
    require_ndim('enc_allowed', enc_allowed, 2, '(B, L_s)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of source tokens L_s')
    require_same_size('enc_allowed', enc_allowed, 1, 'k', k, -2, 'the number of source tokens')
    require_same_size('enc_allowed', enc_allowed, 0, 'q', q, 0, 'the batch size B')
    if enc_allowed.dtype != torch.bool:
        raise ValueError(f'enc_allowed must be a bool tensor (True = real source token); got dtype {enc_allowed.dtype} and shape {tuple(enc_allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    keys = enc_allowed[:, None, None, :]
    scores = scores.masked_fill(~enc_allowed, float('-inf'))
    A = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return (A @ v, A)

# cross_attention: mask lined up with the queries
def _slip_cross_attention_12(q, k, v, enc_allowed):
    require_ndim('q', q, 4, '(B, h, L_t, d_k)')
    require_ndim('k', k, 4, '(B, h, L_s, d_k)')
    require_ndim('v', v, 4, '(B, h, L_s, d_v)')
    require_ndim('enc_allowed', enc_allowed, 2, '(B, L_s)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of source tokens L_s')
    require_same_size('enc_allowed', enc_allowed, 1, 'k', k, -2, 'the number of source tokens')
    require_same_size('enc_allowed', enc_allowed, 0, 'q', q, 0, 'the batch size B')
    if enc_allowed.dtype != torch.bool:
        raise ValueError(f'enc_allowed must be a bool tensor (True = real source token); got dtype {enc_allowed.dtype} and shape {tuple(enc_allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    keys = enc_allowed[:, None, :, None]
    scores = scores.masked_fill(~keys, float('-inf'))
    A = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return (A @ v, A)

# cross_attention: only the output returned
def _slip_cross_attention_13(q, k, v, enc_allowed):
    require_ndim('q', q, 4, '(B, h, L_t, d_k)')
    require_ndim('k', k, 4, '(B, h, L_s, d_k)')
    require_ndim('v', v, 4, '(B, h, L_s, d_v)')
    require_ndim('enc_allowed', enc_allowed, 2, '(B, L_s)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of source tokens L_s')
    require_same_size('enc_allowed', enc_allowed, 1, 'k', k, -2, 'the number of source tokens')
    require_same_size('enc_allowed', enc_allowed, 0, 'q', q, 0, 'the batch size B')
    if enc_allowed.dtype != torch.bool:
        raise ValueError(f'enc_allowed must be a bool tensor (True = real source token); got dtype {enc_allowed.dtype} and shape {tuple(enc_allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    keys = enc_allowed[:, None, None, :]
    scores = scores.masked_fill(~keys, float('-inf'))
    A = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return A @ v

# cross_attention: no return: Y and A computed and dropped
def _slip_cross_attention_14(q, k, v, enc_allowed):
    require_ndim('q', q, 4, '(B, h, L_t, d_k)')
    require_ndim('k', k, 4, '(B, h, L_s, d_k)')
    require_ndim('v', v, 4, '(B, h, L_s, d_v)')
    require_ndim('enc_allowed', enc_allowed, 2, '(B, L_s)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of source tokens L_s')
    require_same_size('enc_allowed', enc_allowed, 1, 'k', k, -2, 'the number of source tokens')
    require_same_size('enc_allowed', enc_allowed, 0, 'q', q, 0, 'the batch size B')
    if enc_allowed.dtype != torch.bool:
        raise ValueError(f'enc_allowed must be a bool tensor (True = real source token); got dtype {enc_allowed.dtype} and shape {tuple(enc_allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    keys = enc_allowed[:, None, None, :]
    scores = scores.masked_fill(~keys, float('-inf'))
    A = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    Y = A @ v

# cross_attention: weights returned first
def _slip_cross_attention_15(q, k, v, enc_allowed):
    require_ndim('q', q, 4, '(B, h, L_t, d_k)')
    require_ndim('k', k, 4, '(B, h, L_s, d_k)')
    require_ndim('v', v, 4, '(B, h, L_s, d_v)')
    require_ndim('enc_allowed', enc_allowed, 2, '(B, L_s)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of source tokens L_s')
    require_same_size('enc_allowed', enc_allowed, 1, 'k', k, -2, 'the number of source tokens')
    require_same_size('enc_allowed', enc_allowed, 0, 'q', q, 0, 'the batch size B')
    if enc_allowed.dtype != torch.bool:
        raise ValueError(f'enc_allowed must be a bool tensor (True = real source token); got dtype {enc_allowed.dtype} and shape {tuple(enc_allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    keys = enc_allowed[:, None, None, :]
    scores = scores.masked_fill(~keys, float('-inf'))
    A = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return (A, A @ v)

# cross_attention: PyTorch's fused attention
def _slip_cross_attention_16(q, k, v, enc_allowed):
    require_ndim('q', q, 4, '(B, h, L_t, d_k)')
    require_ndim('k', k, 4, '(B, h, L_s, d_k)')
    require_ndim('v', v, 4, '(B, h, L_s, d_v)')
    require_ndim('enc_allowed', enc_allowed, 2, '(B, L_s)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of source tokens L_s')
    require_same_size('enc_allowed', enc_allowed, 1, 'k', k, -2, 'the number of source tokens')
    require_same_size('enc_allowed', enc_allowed, 0, 'q', q, 0, 'the batch size B')
    if enc_allowed.dtype != torch.bool:
        raise ValueError(f'enc_allowed must be a bool tensor (True = real source token); got dtype {enc_allowed.dtype} and shape {tuple(enc_allowed.shape)}')
    keys = enc_allowed[:, None, None, :]
    Y = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=keys)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    A = torch.softmax(scores.masked_fill(~keys, float('-inf')), dim=-1)
    return (torch.nan_to_num(Y), torch.nan_to_num(A))

# cross_attention: weights averaged over the heads
def _slip_cross_attention_17(q, k, v, enc_allowed):
    require_ndim('q', q, 4, '(B, h, L_t, d_k)')
    require_ndim('k', k, 4, '(B, h, L_s, d_k)')
    require_ndim('v', v, 4, '(B, h, L_s, d_v)')
    require_ndim('enc_allowed', enc_allowed, 2, '(B, L_s)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of source tokens L_s')
    require_same_size('enc_allowed', enc_allowed, 1, 'k', k, -2, 'the number of source tokens')
    require_same_size('enc_allowed', enc_allowed, 0, 'q', q, 0, 'the batch size B')
    if enc_allowed.dtype != torch.bool:
        raise ValueError(f'enc_allowed must be a bool tensor (True = real source token); got dtype {enc_allowed.dtype} and shape {tuple(enc_allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    keys = enc_allowed[:, None, None, :]
    scores = scores.masked_fill(~keys, float('-inf'))
    A = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return (A @ v, A.mean(dim=1))

# cross_attention: heads merged in Y
def _slip_cross_attention_18(q, k, v, enc_allowed):
    require_ndim('q', q, 4, '(B, h, L_t, d_k)')
    require_ndim('k', k, 4, '(B, h, L_s, d_k)')
    require_ndim('v', v, 4, '(B, h, L_s, d_v)')
    require_ndim('enc_allowed', enc_allowed, 2, '(B, L_s)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of source tokens L_s')
    require_same_size('enc_allowed', enc_allowed, 1, 'k', k, -2, 'the number of source tokens')
    require_same_size('enc_allowed', enc_allowed, 0, 'q', q, 0, 'the batch size B')
    if enc_allowed.dtype != torch.bool:
        raise ValueError(f'enc_allowed must be a bool tensor (True = real source token); got dtype {enc_allowed.dtype} and shape {tuple(enc_allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    keys = enc_allowed[:, None, None, :]
    scores = scores.masked_fill(~keys, float('-inf'))
    A = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return ((A @ v).transpose(1, 2).flatten(2), A)

# cross_attention: queries scaled in place
def _slip_cross_attention_19(q, k, v, enc_allowed):
    require_ndim('q', q, 4, '(B, h, L_t, d_k)')
    require_ndim('k', k, 4, '(B, h, L_s, d_k)')
    require_ndim('v', v, 4, '(B, h, L_s, d_v)')
    require_ndim('enc_allowed', enc_allowed, 2, '(B, L_s)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of source tokens L_s')
    require_same_size('enc_allowed', enc_allowed, 1, 'k', k, -2, 'the number of source tokens')
    require_same_size('enc_allowed', enc_allowed, 0, 'q', q, 0, 'the batch size B')
    if enc_allowed.dtype != torch.bool:
        raise ValueError(f'enc_allowed must be a bool tensor (True = real source token); got dtype {enc_allowed.dtype} and shape {tuple(enc_allowed.shape)}')
    q /= math.sqrt(q.shape[-1])
    scores = q @ k.transpose(-2, -1)
    keys = enc_allowed[:, None, None, :]
    scores = scores.masked_fill(~keys, float('-inf'))
    A = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return (A @ v, A)

# cross_attention: softmax by hand without subtracting the maximum
def _slip_cross_attention_20(q, k, v, enc_allowed):
    require_ndim('q', q, 4, '(B, h, L_t, d_k)')
    require_ndim('k', k, 4, '(B, h, L_s, d_k)')
    require_ndim('v', v, 4, '(B, h, L_s, d_v)')
    require_ndim('enc_allowed', enc_allowed, 2, '(B, L_s)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of source tokens L_s')
    require_same_size('enc_allowed', enc_allowed, 1, 'k', k, -2, 'the number of source tokens')
    require_same_size('enc_allowed', enc_allowed, 0, 'q', q, 0, 'the batch size B')
    if enc_allowed.dtype != torch.bool:
        raise ValueError(f'enc_allowed must be a bool tensor (True = real source token); got dtype {enc_allowed.dtype} and shape {tuple(enc_allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    keys = enc_allowed[:, None, None, :]
    e = torch.exp(scores) * keys
    A = torch.nan_to_num(e / e.sum(dim=-1, keepdim=True), nan=0.0)
    return (A @ v, A)

# cross_attention: softmax by hand with the maximum taken over the padding too
def _slip_cross_attention_21(q, k, v, enc_allowed):
    require_ndim('q', q, 4, '(B, h, L_t, d_k)')
    require_ndim('k', k, 4, '(B, h, L_s, d_k)')
    require_ndim('v', v, 4, '(B, h, L_s, d_v)')
    require_ndim('enc_allowed', enc_allowed, 2, '(B, L_s)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of source tokens L_s')
    require_same_size('enc_allowed', enc_allowed, 1, 'k', k, -2, 'the number of source tokens')
    require_same_size('enc_allowed', enc_allowed, 0, 'q', q, 0, 'the batch size B')
    if enc_allowed.dtype != torch.bool:
        raise ValueError(f'enc_allowed must be a bool tensor (True = real source token); got dtype {enc_allowed.dtype} and shape {tuple(enc_allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    keys = enc_allowed[:, None, None, :]
    m = scores.max(dim=-1, keepdim=True).values
    e = torch.exp(scores - m) * keys
    A = torch.nan_to_num(e / e.sum(dim=-1, keepdim=True), nan=0.0)
    return (A @ v, A)

# cross_attention: padding masked by adding -100 to the scores
def _slip_cross_attention_22(q, k, v, enc_allowed):
    require_ndim('q', q, 4, '(B, h, L_t, d_k)')
    require_ndim('k', k, 4, '(B, h, L_s, d_k)')
    require_ndim('v', v, 4, '(B, h, L_s, d_v)')
    require_ndim('enc_allowed', enc_allowed, 2, '(B, L_s)')
    require_same_size('q', q, -1, 'k', k, -1, 'the query/key width d_k')
    require_same_size('k', k, -2, 'v', v, -2, 'the number of source tokens L_s')
    require_same_size('enc_allowed', enc_allowed, 1, 'k', k, -2, 'the number of source tokens')
    require_same_size('enc_allowed', enc_allowed, 0, 'q', q, 0, 'the batch size B')
    if enc_allowed.dtype != torch.bool:
        raise ValueError(f'enc_allowed must be a bool tensor (True = real source token); got dtype {enc_allowed.dtype} and shape {tuple(enc_allowed.shape)}')
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    keys = enc_allowed[:, None, None, :]
    scores = scores - 100.0 * ~keys
    A = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return (A @ v, A)

# EncoderDecoder: the encoder made causal
class _slip_EncoderDecoder_0_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        L = h.shape[1]
        allowed = src_allowed[:, None, None, :]
        allowed = allowed & torch.ones(L, L, dtype=torch.bool).tril()
        u = h + self.self_attn(x, x, allowed)
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_0_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_0(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_0_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_0_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: padding mask missing in the encoder
class _slip_EncoderDecoder_1_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x)
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_1_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_1(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_1_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_1_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: padding mask on the encoder's queries
class _slip_EncoderDecoder_2_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, :, None])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_2_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_2(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_2_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_2_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: padding mask missing in cross-attention
class _slip_EncoderDecoder_3_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_3_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, None)
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_3(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_3_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_3_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: no causal mask in the decoder
class _slip_EncoderDecoder_4_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_4_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, None)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_4(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_4_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_4_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: padding mask as the decoder's self-attention mask
class _slip_EncoderDecoder_5_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_5_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_5(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_5_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_5_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: memory normalised again
class _slip_EncoderDecoder_6_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_6_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), self.ln2(memory), src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_6(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_6_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_6_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: no residual around cross-attention
class _slip_EncoderDecoder_7_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_7_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_7(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_7_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_7_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: the MLP reads U
class _slip_EncoderDecoder_8_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_8_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(u))

class _slip_EncoderDecoder_8(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_8_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_8_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: LN2 before the MLP
class _slip_EncoderDecoder_9_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_9_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln2(c))

class _slip_EncoderDecoder_9(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_9_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_9_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: cross-attention before self-attention
class _slip_EncoderDecoder_10_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_10_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.cross_attn(x, memory, src_allowed[:, None, None, :])
        x = self.ln2(u)
        c = u + self.self_attn(x, x, causal)
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_10(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_10_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_10_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: causal mask built as floats (torch.tril of ones), or'd with bool
class _slip_EncoderDecoder_11_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_11_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.tril(torch.ones(L, L))
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_11(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_11_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_11_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: padding mask inverted
class _slip_EncoderDecoder_12_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, ~src_allowed[:, None, None, :])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_12_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, ~src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_12(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_12_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_12_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: ln_enc forgotten
class _slip_EncoderDecoder_13_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_13_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_13(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_13_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_13_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return h

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: encoder outputs discarded
class _slip_EncoderDecoder_14_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_14_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_14(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_14_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_14_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: every encoder block fed the embeddings
class _slip_EncoderDecoder_15_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_15_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_15(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_15_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_15_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        x = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(x, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: no positions on the source
class _slip_EncoderDecoder_16_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_16_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_16(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_16_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_16_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids)
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: decoder outputs discarded
class _slip_EncoderDecoder_17_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_17_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_17(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_17_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_17_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: final LayerNorm forgotten
class _slip_EncoderDecoder_18_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_18_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_18(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_18_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_18_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(h)

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: no positions on the reply
class _slip_EncoderDecoder_19_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_19_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_19(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_19_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_19_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids)
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: the course's model borrowed
class _slip_EncoderDecoder_20_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_20_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_20(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_20_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_20_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        from attnbook.lm.seq2seq import EncoderLayer
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: logits of the last reply position only
class _slip_EncoderDecoder_21_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_21_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_21(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_21_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_21_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))[:, -1]

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: the encoder block's forward without return
class _slip_EncoderDecoder_22_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        h = u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_22_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_22(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_22_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_22_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: the decoder block's forward without return
class _slip_EncoderDecoder_23_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_23_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        h = c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_23(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_23_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_23_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: padded source states set to -inf (tokens masked, not scores)
class _slip_EncoderDecoder_24_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_24_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_24(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_24_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_24_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        h = h.masked_fill(~src_allowed[:, :, None], float('-inf'))
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: the encoder's MLP branch halved
class _slip_EncoderDecoder_25_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        return u + 0.5 * self.mlp(self.ln2(u))

class _slip_EncoderDecoder_25_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_25(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_25_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_25_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: the head's bias dropped in the given constructor
class _slip_EncoderDecoder_26_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_26_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_26(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_26_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_26_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: one more embedding row (a special token) in the given constructor
class _slip_EncoderDecoder_27_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_27_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_27(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size + 1, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_27_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_27_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: every decoder block fed the reply embeddings
class _slip_EncoderDecoder_28_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_28_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_28(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_28_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_28_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        x = self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(x, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# EncoderDecoder: reply positions go on after the source's (a decoder-only habit)
class _slip_EncoderDecoder_29_EncoderBlock(nn.Module):
    """Pre-norm encoder block: every source token reads every real source token."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, src_allowed):
        """h: (B, L_s, d) source states; src_allowed: (B, L_s) bool. Returns (B, L_s, d)."""
        x = self.ln1(h)
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
        return u + self.mlp(self.ln2(u))

class _slip_EncoderDecoder_29_DecoderBlock(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention, MLP."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = attention_layer(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = attention_layer(d_model, n_heads)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = feed_forward(d_model)

    def forward(self, h, memory, src_allowed):
        """h: (B, L_t, d) reply states; memory: (B, L_s, d) the encoder's output;
        src_allowed: (B, L_s) bool. Returns (B, L_t, d)."""
        L = h.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

class _slip_EncoderDecoder_29(nn.Module):

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, pad_id=0):
        super().__init__()
        self.max_len, self.pad_id = (max_len, pad_id)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_29_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_29_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_final = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def encode(self, src_ids, src_allowed):
        """(B, L_s) ids and padding mask -> the memory (B, L_s, d)."""
        h = self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]
        for block in self.encoder:
            h = block(h, src_allowed)
        return self.ln_enc(h)

    def decode(self, tgt_ids, memory, src_allowed):
        """(B, L_t) reply ids, the memory and the source padding mask -> logits (B, L_t, V)."""
        h = self.embed(tgt_ids) + self.sinusoids[memory.shape[1]:memory.shape[1] + tgt_ids.shape[1]]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        return self.head(self.ln_final(h))

    def forward(self, src_ids, tgt_ids):
        """src_ids: (B, L_s) padded with pad_id; tgt_ids: (B, L_t) starting with <BOS>."""
        require_ndim('src_ids', src_ids, 2, '(B, L_s)')
        require_ndim('tgt_ids', tgt_ids, 2, '(B, L_t)')
        require_same_size('src_ids', src_ids, 0, 'tgt_ids', tgt_ids, 0, 'the batch size B')
        for name, ids in (('src_ids', src_ids), ('tgt_ids', tgt_ids)):
            if ids.shape[1] > self.max_len:
                raise ValueError(f'{name} has shape {tuple(ids.shape)}: longer than max_len = {self.max_len}')
        src_allowed = src_ids != self.pad_id
        return self.decode(tgt_ids, self.encode(src_ids, src_allowed), src_allowed)

# beam_search: greedy: the beam size ignored
def _slip_beam_search_0(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(1, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: the beam started with beam_size copies of <BOS>
def _slip_beam_search_1(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.full((beam_size, 1), BOS)
    scores = torch.zeros(beam_size)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: ranked by the new token alone
def _slip_beam_search_2(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        _, flat = torch.log_softmax(logits, dim=-1).flatten().topk(min(beam_size, total.numel()))
        best = total.flatten()[flat]
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: a finished hypothesis saved with the first row's prefix
def _slip_beam_search_3(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[0].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: live scores cut from the top of best, not masked like the prefixes
def _slip_beam_search_4(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[:int(keep.sum())]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: the best of each row, then the first beam_size of them
def _slip_beam_search_5(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        per_row, cols = total.topk(min(beam_size, total.shape[1]), dim=-1)
        best = per_row.flatten()[:beam_size]
        flat = (cols + torch.arange(len(total))[:, None] * total.shape[1]).flatten()[:beam_size]
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: scores kept as probabilities (exp, product, log)
def _slip_beam_search_6(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = torch.log(scores.exp()[:, None] * torch.softmax(logits, dim=-1))
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: raw logits added
def _slip_beam_search_7(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + logits
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: the beam shrinks as hypotheses finish
def _slip_beam_search_8(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        if beam_size - len(finished) <= 0:
            break
        best, flat = total.flatten().topk(min(beam_size - len(finished), total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: the beam refilled with live candidates (Hugging Face's rule)
def _slip_beam_search_9(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(2 * beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for rank, (score, row, token) in enumerate(zip(best.tolist(), rows.tolist(), tokens.tolist())):
            if token == eos_id and rank < beam_size:
                finished.append((score, [*live[row].tolist(), token]))
        keep = (tokens != eos_id) & ((tokens != eos_id).cumsum(0) <= beam_size)
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: topk(beam_size) without min(): a beam wider than the candidates
def _slip_beam_search_10(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(beam_size)
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: finished hypotheses kept in the beam and extended
def _slip_beam_search_11(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows], tokens[:, None]), dim=1)
        scores = best
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: stops at the first end
def _slip_beam_search_12(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if finished:
            break
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: stops once beam_size hypotheses have finished
def _slip_beam_search_13(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(finished) >= beam_size:
            break
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: the first finished hypothesis returned
def _slip_beam_search_14(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = finished[0]
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: length normalised
def _slip_beam_search_15(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=lambda f: f[0] / (len(f[1]) - 1))
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: live prefixes compared with finished ones
def _slip_beam_search_16(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for step in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if step == max_len - 1:
            finished += [(float(s), p.tolist()) for s, p in zip(scores, live)]
            live = live[:0]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: one step short
def _slip_beam_search_17(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len - 1):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: the first position's logits
def _slip_beam_search_18(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, 0]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: end token hard-coded
def _slip_beam_search_19(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == 2:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != 2
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: EOS's own log-probability left out of the score
def _slip_beam_search_20(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((float(scores[row]), [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: probability returned instead of log-probability
def _slip_beam_search_21(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), math.exp(score))
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: the beam grows: every prefix keeps beam_size tokens
def _slip_beam_search_22(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')
    live, scores, finished = ([[BOS]], [0.0], [])
    for _ in range(max_len):
        new_live, new_scores = ([], [])
        for prefix, score in zip(live, scores):
            with torch.no_grad():
                logits = model(src_ids[None, :], torch.tensor([prefix]))[0, -1]
            top = torch.log_softmax(logits, dim=-1).topk(beam_size)
            for lp, token in zip(top.values.tolist(), top.indices.tolist()):
                if token == eos_id:
                    finished.append((score + lp, prefix + [token]))
                else:
                    new_live.append(prefix + [token])
                    new_scores.append(score + lp)
        live, scores = (new_live, new_scores)
        if not live:
            break
    if finished:
        score, ids = max(finished, key=lambda f: f[0])
        return (torch.tensor(ids), score)
    best = max(range(len(live)), key=lambda i: scores[i])
    return (torch.tensor(live[best]), scores[best])

# beam_search: the source not repeated for the beam
def _slip_beam_search_23(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :], live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: the package's beam search borrowed
def _slip_beam_search_24(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')
    from attnbook.lm.seq2seq import beam_decode
    ids, score = beam_decode(model, src_ids, beam_size, max_len, eos_id)
    return (torch.tensor(ids), score)

# beam_search: alpha accepted but never used
def _slip_beam_search_25(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=lambda f: f[0])
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: the score multiplied by the length penalty
def _slip_beam_search_26(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score * ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: the penalty's length counts <BOS>
def _slip_beam_search_27(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids)) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: the penalty's length leaves out the end token
def _slip_beam_search_28(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 2) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: divided by the length to the power alpha
def _slip_beam_search_29(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / (len(ids) - 1) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: the early stop compares unpenalised scores
def _slip_beam_search_30(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max((s for s, _ in finished)) >= scores.max():
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: the penalised score returned
def _slip_beam_search_31(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), penalised((score, ids)))
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: ids returned as a (1, t) row
def _slip_beam_search_32(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor([ids]), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: every finished score returned
def _slip_beam_search_33(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), torch.tensor([s for s, _ in finished]))
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: only the ids returned
def _slip_beam_search_34(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return torch.tensor(ids)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: BOS dropped from the returned ids
def _slip_beam_search_35(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')

    def penalised(hypothesis):
        score, ids = hypothesis
        return score / ((5 + len(ids) - 1) / 6) ** alpha
    longest = ((5 + max_len) / 6) ** alpha
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
        if finished and max(map(penalised, finished)) >= scores.max() / longest:
            break
        with torch.no_grad():
            logits = model(src_ids[None, :].expand(len(live), -1), live)[:, -1]
        total = scores[:, None] + torch.log_softmax(logits, dim=-1)
        best, flat = total.flatten().topk(min(beam_size, total.numel()))
        rows, tokens = (flat // total.shape[1], flat % total.shape[1])
        for score, row, token in zip(best.tolist(), rows.tolist(), tokens.tolist()):
            if token == eos_id:
                finished.append((score, [*live[row].tolist(), token]))
        keep = tokens != eos_id
        live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)
        scores = best[keep]
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids[1:]), score)
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))


# function: [(mistake, its hint, the mistake as a function)]
SLIPS = {
    'cross_attention': [
        ('no 1/sqrt(d_k)', 'divide the scores by sqrt(d_k) = sqrt(q.shape[-1])', _slip_cross_attention_0),
        ('scaled by sqrt(L_s)', 'divide by sqrt(d_k) = sqrt(q.shape[-1]), the width of a query, not by the square root of a sequence length', _slip_cross_attention_1),
        ('scaled by sqrt(d_v)', 'divide by sqrt(d_k) = sqrt(q.shape[-1]), the query/key width; d_v = v.shape[-1] may differ', _slip_cross_attention_2),
        ('padding not masked', "give the padded source tokens -inf scores before the softmax: scores.masked_fill(~enc_allowed[:, None, None, :], float('-inf'))", _slip_cross_attention_3),
        ('mask inverted', 'True in enc_allowed marks a REAL source token: fill -inf where it is False', _slip_cross_attention_4),
        ('mask applied after the softmax', 'set the padded scores to -inf BEFORE the softmax; zeroing weights afterwards leaves rows that do not sum to 1', _slip_cross_attention_5),
        ('mask multiplied into the scores', 'a padded score must be -inf, not 0: exp(0) = 1 still gives the padded token weight', _slip_cross_attention_6),
        ('a causal mask added', 'cross-attention has no causal mask: the whole source is known before the reply starts, so every reply position may read every real source token', _slip_cross_attention_7),
        ('softmax over the reply positions', "each query's weights over the source tokens (the last axis, dim=-1) must sum to 1", _slip_cross_attention_8),
        ('-1e9 instead of -inf', "use float('-inf') and give rows with no allowed key zero weights", _slip_cross_attention_9),
        ('NaN for an email with no real token', 'an email with no real token leaves a row of -inf scores, and torch.softmax gives NaN for it: give such rows zero weights (torch.nan_to_num(..., nan=0.0))', _slip_cross_attention_10),
        ("mask not reshaped to the scores' axes", 'enc_allowed is (B, L_s): reshape it to (B, 1, 1, L_s) (enc_allowed[:, None, None, :]) so that it lines up with the LAST axis of the scores (B, h, L_t, L_s), the source tokens, for every head and every query', _slip_cross_attention_11),
        ('mask lined up with the queries', 'enc_allowed is (B, L_s): reshape it to (B, 1, 1, L_s) (enc_allowed[:, None, None, :]) so that it lines up with the LAST axis of the scores (B, h, L_t, L_s), the source tokens, for every head and every query', _slip_cross_attention_12),
        ('only the output returned', 'return both the output and the weights: return Y, A', _slip_cross_attention_13),
        ('no return: Y and A computed and dropped', 'end cross_attention with return Y, A: the output and the weights', _slip_cross_attention_14),
        ('weights returned first', 'return Y first, then A: the output, then the weights', _slip_cross_attention_15),
        ("PyTorch's fused attention", "write the scores, the mask, the softmax and the weighted sum yourself; the checks compare with PyTorch's kernel for you", _slip_cross_attention_16),
        ('weights averaged over the heads', 'A is (B, h, L_t, L_s): one row per reply position, one column per source token', _slip_cross_attention_17),
        ('heads merged in Y', 'Y is (B, h, L_t, d_v): one row per reply position, the width of the values', _slip_cross_attention_18),
        ('queries scaled in place', "work on new tensors (scores = q @ ..., not q /= ...): the caller's q, k, v and enc_allowed must stay as they were", _slip_cross_attention_19),
        ('softmax by hand without subtracting the maximum', "exp of a large score overflows: torch.softmax subtracts each row's maximum for you", _slip_cross_attention_20),
        ('softmax by hand with the maximum taken over the padding too', "subtract the maximum over the ALLOWED keys only: fill the padded scores with -inf first, then take the row's maximum (or call torch.softmax); a large padded score makes every real token's exp underflow to 0", _slip_cross_attention_21),
        ('padding masked by adding -100 to the scores', 'a padded source token must get weight exactly 0, so what it holds can never reach the output', _slip_cross_attention_22),
    ],
    'EncoderDecoder': [
        ('the encoder made causal', 'neither the encoder nor cross-attention is causal: the whole source is given, so every reply position may read every real source token; the encoder uses the padding mask only', _slip_EncoderDecoder_0),
        ('padding mask missing in the encoder', "apply the source padding mask in the encoder's self-attention AND in every cross-attention: src_allowed[:, None, None, :] (B, 1, 1, L_s) as allowed", _slip_EncoderDecoder_1),
        ("padding mask on the encoder's queries", 'the mask must block KEYS: src_allowed[:, None, None, :] (B, 1, 1, L_s) lines up with the last axis of the scores', _slip_EncoderDecoder_2),
        ('padding mask missing in cross-attention', "apply the source padding mask in the encoder's self-attention AND in every cross-attention: src_allowed[:, None, None, :] (B, 1, 1, L_s) as allowed", _slip_EncoderDecoder_3),
        ('no causal mask in the decoder', "the decoder's self-attention needs the causal mask, a lower-triangular (L_t, L_t) bool matrix sized by the reply's length: reply position t may read only reply positions <= t", _slip_EncoderDecoder_4),
        ("padding mask as the decoder's self-attention mask", "check every mask's shape: the causal mask is (L_t, L_t); the source padding mask is (B, 1, 1, L_s); call the cross-attention layer as self.cross_attn(x, source, allowed): the queries come from the reply (LN2(U)), the keys and values from the memory, and allowed is the source padding mask src_allowed[:, None, None, :]. Each sequence's positions start at 0: the source adds self.sinusoids[:L_s], the reply self.sinusoids[:L_t]", _slip_EncoderDecoder_5),
        ('memory normalised again', 'normalise only the queries: self.cross_attn(self.ln2(u), memory, ...); the memory was normalised once, by ln_enc', _slip_EncoderDecoder_6),
        ('no residual around cross-attention', 'add the branch to the stream: C = U + CrossAttn(LN2(U), M)', _slip_EncoderDecoder_7),
        ('the MLP reads U', 'the MLP reads C, the stream after cross-attention: H_out = C + MLP(LN3(C))', _slip_EncoderDecoder_8),
        ('LN2 before the MLP', 'each branch has its own LayerNorm: ln1 before self-attention, ln2 before cross-attention, ln3 before the MLP', _slip_EncoderDecoder_9),
        ('cross-attention before self-attention', 'self-attention first (U = H + SelfAttn(LN1(H))), then cross-attention (C = U + CrossAttn(LN2(U), M)), then the MLP', _slip_EncoderDecoder_10),
        ("causal mask built as floats (torch.tril of ones), or'd with bool", '&, | and ~ combine bool masks: make each with dtype=torch.bool (or .bool())', _slip_EncoderDecoder_11),
        ('padding mask inverted', 'src_allowed is True on REAL source tokens: pass src_allowed[:, None, None, :] as allowed, without ~', _slip_EncoderDecoder_12),
        ('ln_enc forgotten', 'the memory is self.ln_enc(h) after the last encoder block', _slip_EncoderDecoder_13),
        ('encoder outputs discarded', 'a block returns a new tensor: keep it as the states the next encoder block reads', _slip_EncoderDecoder_14),
        ('every encoder block fed the embeddings', "feed each encoder block the previous block's output, not the embeddings", _slip_EncoderDecoder_15),
        ('no positions on the source', 'add the positions to both sequences: self.embed(src_ids) + self.sinusoids[:L_s]', _slip_EncoderDecoder_16),
        ('decoder outputs discarded', 'a block returns a new tensor: keep it as the states the next decoder block reads', _slip_EncoderDecoder_17),
        ('final LayerNorm forgotten', "apply self.ln_final to the last decoder block's output before the head", _slip_EncoderDecoder_18),
        ('no positions on the reply', 'add the positions to both sequences: self.embed(tgt_ids) + self.sinusoids[:L_t]', _slip_EncoderDecoder_19),
        ("the course's model borrowed", "write the blocks from the given layers (attention_layer, feed_forward, nn.LayerNorm); the check compares with the course's model for you", _slip_EncoderDecoder_20),
        ('logits of the last reply position only', 'the logits are (B, L_t, V): one row per reply position', _slip_EncoderDecoder_21),
        ("the encoder block's forward without return", 'each forward must return its result (return u + ...)', _slip_EncoderDecoder_22),
        ("the decoder block's forward without return", 'each forward must return its result (return u + ...)', _slip_EncoderDecoder_23),
        ('padded source states set to -inf (tokens masked, not scores)', 'a source with padding must not give NaN: pass the padding mask as allowed, the attention layer handles the rest', _slip_EncoderDecoder_24),
        ("the encoder's MLP branch halved", 'compare each block with the equations above the exercise: the masks, the order of the three branches and their LayerNorms', _slip_EncoderDecoder_25),
        ("the head's bias dropped in the given constructor", 'keep the constructors as given; write only the four bodies', _slip_EncoderDecoder_26),
        ('one more embedding row (a special token) in the given constructor', 'keep the constructors as given; write only the four bodies', _slip_EncoderDecoder_27),
        ('every decoder block fed the reply embeddings', "feed each decoder block the previous block's output, not the reply embeddings", _slip_EncoderDecoder_28),
        ("reply positions go on after the source's (a decoder-only habit)", "check every mask's shape: the causal mask is (L_t, L_t); the source padding mask is (B, 1, 1, L_s); call the cross-attention layer as self.cross_attn(x, source, allowed): the queries come from the reply (LN2(U)), the keys and values from the memory, and allowed is the source padding mask src_allowed[:, None, None, :]. Each sequence's positions start at 0: the source adds self.sinusoids[:L_s], the reply self.sinusoids[:L_t]", _slip_EncoderDecoder_29),
    ],
    'beam_search': [
        ('greedy: the beam size ignored', 'keep the beam_size best candidates at every step, not only the best one', _slip_beam_search_0),
        ('the beam started with beam_size copies of <BOS>', 'start from ONE live prefix, <BOS> alone (torch.tensor([[BOS]]), scores torch.zeros(1)): identical prefixes give identical candidates, and the copies fill the beam', _slip_beam_search_1),
        ('ranked by the new token alone', "rank candidates by their TOTAL score: the prefix's score plus the new token's log-probability", _slip_beam_search_2),
        ("a finished hypothesis saved with the first row's prefix", "a finished hypothesis is ITS OWN row's prefix plus eos_id: live[row], with row = flat // V for each kept candidate", _slip_beam_search_3),
        ('live scores cut from the top of best, not masked like the prefixes', "drop the finished candidates' scores with the same mask that drops their prefixes, so that each live prefix keeps its own score", _slip_beam_search_4),
        ('the best of each row, then the first beam_size of them', 'at every step extend each live prefix by every token, rank ALL candidates by total log-probability, keep the beam_size best; a kept candidate ending in eos_id is finished and leaves the beam; return the best finished hypothesis (the best live prefix if none finished)', _slip_beam_search_5),
        ('scores kept as probabilities (exp, product, log)', 'keep the running scores as summed log-probabilities, scores[:, None] + torch.log_softmax(logits, dim=-1): a product of probabilities underflows to 0 in float32 once the score passes about -104 (log 0 = -inf)', _slip_beam_search_6),
        ('raw logits added', "a log-probability is never positive: turn each step's logits into log-probabilities with torch.log_softmax(logits, dim=-1)", _slip_beam_search_7),
        ('the beam shrinks as hypotheses finish', 'take the beam_size best candidates at EVERY step, however many hypotheses finished before: a kept candidate that ends in eos_id leaves the live prefixes (so the next step may extend fewer of them), but it never lowers the number of candidates kept', _slip_beam_search_8),
        ("the beam refilled with live candidates (Hugging Face's rule)", "take the beam_size best candidates, those ending in eos_id included: each finished one leaves the beam, and the next step extends only the live ones kept; do not refill the beam from further candidates (Hugging Face's generate does; this search does not)", _slip_beam_search_9),
        ('topk(beam_size) without min(): a beam wider than the candidates', 'a beam may be wider than the candidates there are (beam_size > V at the first step): keep min(beam_size, total.numel()) of them', _slip_beam_search_10),
        ('finished hypotheses kept in the beam and extended', 'a candidate that ends in eos_id is finished: it leaves the live prefixes and is never extended (nothing follows the end token)', _slip_beam_search_11),
        ('stops at the first end', 'keep searching while live prefixes remain (or until max_len): a later reply may still score higher', _slip_beam_search_12),
        ('stops once beam_size hypotheses have finished', "keep searching while live prefixes remain (or until max_len), however many hypotheses finished: a live prefix may still end with a higher score. Stopping at beam_size finished ones is Hugging Face's early_stopping=True, not this search's rule; stop early only when no live prefix can beat the best finished hypothesis", _slip_beam_search_13),
        ('the first finished hypothesis returned', 'return the finished hypothesis with the HIGHEST score', _slip_beam_search_14),
        ('length normalised', 'with alpha = 0 (the default) compare finished hypotheses by their total log-probability, with no length normalisation', _slip_beam_search_15),
        ('live prefixes compared with finished ones', 'return the best FINISHED hypothesis; a live prefix only when none finished', _slip_beam_search_16),
        ('one step short', 'write at most max_len new tokens: range(max_len)', _slip_beam_search_17),
        ("the first position's logits", "the next-token logits are the LAST position's: model(src, prefixes)[:, -1]", _slip_beam_search_18),
        ('end token hard-coded', 'a candidate is finished when it ends in eos_id, the argument', _slip_beam_search_19),
        ("EOS's own log-probability left out of the score", 'the score is the sum of the log-probabilities of every new token, eos included', _slip_beam_search_20),
        ('probability returned instead of log-probability', 'return the log-probability (a sum of logs), not the probability', _slip_beam_search_21),
        ('the beam grows: every prefix keeps beam_size tokens', 'at every step extend each live prefix by every token, rank ALL candidates by total log-probability, keep the beam_size best; a kept candidate ending in eos_id is finished and leaves the beam; return the best finished hypothesis (the best live prefix if none finished)', _slip_beam_search_22),
        ('the source not repeated for the beam', 'repeat the source once per live prefix: src_ids[None, :].expand(n, -1) is (n, L_s), and the prefixes are (n, t)', _slip_beam_search_23),
        ("the package's beam search borrowed", "write the search yourself; the check compares with the package's beam search for you", _slip_beam_search_24),
        ('alpha accepted but never used', 'with alpha > 0 rank the finished hypotheses by score / ((5 + n) / 6) ** alpha, n the tokens after <BOS> with the end token counted', _slip_beam_search_25),
        ('the score multiplied by the length penalty', 'divide the score by the penalty ((5 + n) / 6) ** alpha; do not multiply', _slip_beam_search_26),
        ("the penalty's length counts <BOS>", 'n counts the tokens written after <BOS>, the end token included: len(ids) - 1', _slip_beam_search_27),
        ("the penalty's length leaves out the end token", 'n counts the tokens written after <BOS>, the end token included: len(ids) - 1', _slip_beam_search_28),
        ('divided by the length to the power alpha', 'the penalty is ((5 + n) / 6) ** alpha, not n ** alpha', _slip_beam_search_29),
        ('the early stop compares unpenalised scores', 'an early stop must compare penalised scores too: a live prefix with score s ends, at best, with s / ((5 + max_len) / 6) ** alpha; or leave the early stop out', _slip_beam_search_30),
        ('the penalised score returned', "return the hypothesis's total log-probability: the penalty only ranks the hypotheses", _slip_beam_search_31),
        ('ids returned as a (1, t) row', 'return one hypothesis, its ids as a 1-D tensor (prefix[row], not the whole beam)', _slip_beam_search_32),
        ('every finished score returned', "return the hypothesis's total log-probability, a float", _slip_beam_search_33),
        ('only the ids returned', 'return the ids and the score: return ids, score', _slip_beam_search_34),
        ('BOS dropped from the returned ids', "every hypothesis starts with the setup's BOS: the search begins from one live prefix that holds only BOS", _slip_beam_search_35),
    ],
}
