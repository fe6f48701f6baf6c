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
        score, or the best live one when none finished.
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

# cross_attention: padding masked by adding -100 to the scores
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

# EncoderDecoder: cross-attention's arguments swapped
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
        c = u + self.cross_attn(memory, self.ln2(u), src_allowed[:, None, None, :])
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

# EncoderDecoder: cross-attention reads the reply
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
        c = u + self.cross_attn(self.ln2(u), self.ln2(u), src_allowed[:, None, None, :])
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

# EncoderDecoder: memory normalised again
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
        c = u + self.cross_attn(self.ln2(u), self.ln2(memory), src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

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

# EncoderDecoder: no residual around cross-attention
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
        c = self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(c))

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

# EncoderDecoder: the MLP reads U
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
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln3(u))

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

# EncoderDecoder: LN2 before the MLP
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
        causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
        x = self.ln1(h)
        u = h + self.self_attn(x, x, causal)
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed[:, None, None, :])
        return c + self.mlp(self.ln2(c))

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

# EncoderDecoder: cross-attention before self-attention
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
        u = h + self.self_attn(x, x, src_allowed[:, None, None, :])
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
        causal = torch.ones(L, L, dtype=torch.bool).tril()
        u = h + self.cross_attn(self.ln1(h), memory, src_allowed[:, None, None, :])
        x = self.ln2(u)
        c = u + self.self_attn(x, x, causal)
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

# EncoderDecoder: padding mask inverted
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
        u = h + self.self_attn(x, x, ~src_allowed[:, None, None, :])
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
        c = u + self.cross_attn(self.ln2(u), memory, ~src_allowed[:, None, None, :])
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
        return u + self.mlp(self.ln2(u))

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
        h = u + self.mlp(self.ln2(u))

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
        return c + self.mlp(self.ln3(c))

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

# EncoderDecoder: the decoder block's forward without return
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
        h = c + self.mlp(self.ln3(c))

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
        return u + self.mlp(self.ln2(u))

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
        return u + 0.5 * self.mlp(self.ln2(u))

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
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model), persistent=False)
        self.encoder = nn.ModuleList((_slip_EncoderDecoder_27_EncoderBlock(d_model, n_heads) for _ in range(n_layers)))
        self.ln_enc = nn.LayerNorm(d_model)
        self.decoder = nn.ModuleList((_slip_EncoderDecoder_27_DecoderBlock(d_model, n_heads) for _ in range(n_layers)))
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
        self.embed = nn.Embedding(vocab_size + 1, d_model)
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

# beam_search: ranked by the new token alone
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

# beam_search: raw logits added
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

# beam_search: finished hypotheses kept in the beam and extended
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

# beam_search: the first finished hypothesis returned
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
        if len(live) == 0:
            break
    if finished:
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), math.exp(score))
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: the beam grows: every prefix keeps beam_size tokens
def _slip_beam_search_14(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
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
def _slip_beam_search_15(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')
    live = torch.tensor([[BOS]])
    scores = torch.zeros(1)
    finished = []
    for _ in range(max_len):
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
        score, ids = max(finished, key=lambda f: f[0])
        return (torch.tensor(ids), score)
    return (live[int(scores.argmax())].clone(), float(scores.max()))

# beam_search: the package's beam search borrowed
def _slip_beam_search_16(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
    src_ids = torch.as_tensor(src_ids, dtype=torch.long)
    require_ndim('src_ids', src_ids, 1, '(L_s,)')
    beam_size = require_integer('beam_size', beam_size, 1, '(candidates kept per step)')
    max_len = require_integer('max_len', max_len, 0, '(new tokens at most)')
    alpha = require_number('alpha', alpha, 0.0, '(the length penalty; 0 is none)')
    from attnbook.lm.seq2seq import beam_decode
    ids, score = beam_decode(model, src_ids, beam_size, max_len, eos_id)
    return (torch.tensor(ids), score)

# beam_search: alpha accepted but never used
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
def _slip_beam_search_18(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
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
def _slip_beam_search_19(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
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
def _slip_beam_search_20(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
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
def _slip_beam_search_21(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
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
def _slip_beam_search_22(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
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
def _slip_beam_search_24(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
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
        score, ids = max(finished, key=penalised)
        return (torch.tensor(ids), torch.tensor([s for s, _ in finished]))
    best_row = int(scores.argmax())
    return (live[best_row].clone(), float(scores[best_row]))

# beam_search: only the ids returned
def _slip_beam_search_26(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
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
def _slip_beam_search_27(model, src_ids, beam_size, max_len, eos_id, alpha=0.0):
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


# function: [(mistake, detector, the mistake as a function)]
SLIPS = {
    'cross_attention': [
        ('no 1/sqrt(d_k)', 'HINT_NO_SCALING', _slip_cross_attention_0),
        ('scaled by sqrt(L_s)', 'HINT_SCALED_BY_LENGTH', _slip_cross_attention_1),
        ('scaled by sqrt(d_v)', 'HINT_SCALED_BY_D_V', _slip_cross_attention_2),
        ('padding not masked', 'HINT_PADDING_IGNORED', _slip_cross_attention_3),
        ('mask inverted', 'HINT_ENC_ALLOWED_INVERTED', _slip_cross_attention_4),
        ('mask applied after the softmax', 'HINT_PADDING_AFTER_SOFTMAX', _slip_cross_attention_5),
        ('mask multiplied into the scores', 'HINT_PADDING_ZERO_FILL', _slip_cross_attention_6),
        ('a causal mask added', 'HINT_CROSS_NOT_CAUSAL', _slip_cross_attention_7),
        ('softmax over the reply positions', 'HINT_CROSS_SOFTMAX_AXIS', _slip_cross_attention_8),
        ('-1e9 instead of -inf', 'HINT_CROSS_FINITE_FILL', _slip_cross_attention_9),
        ('NaN for an email with no real token', 'HINT_NAN', _slip_cross_attention_10),
        ("mask not reshaped to the scores' axes", 'HINT_KEY_AXIS', _slip_cross_attention_11),
        ('mask lined up with the queries', 'HINT_KEY_AXIS', _slip_cross_attention_12),
        ('only the output returned', 'HINT_RETURN_Y_A', _slip_cross_attention_13),
        ('no return: Y and A computed and dropped', 'HINT_NO_RETURN_Y_A', _slip_cross_attention_14),
        ('weights returned first', 'HINT_Y_FIRST', _slip_cross_attention_15),
        ("PyTorch's fused attention", 'HINT_CROSS_OWN', _slip_cross_attention_16),
        ('weights averaged over the heads', 'HINT_A_SHAPE', _slip_cross_attention_17),
        ('heads merged in Y', 'HINT_Y_SHAPE', _slip_cross_attention_18),
        ('queries scaled in place', 'HINT_CROSS_IN_PLACE', _slip_cross_attention_19),
        ('softmax by hand without subtracting the maximum', 'HINT_CROSS_OVERFLOW', _slip_cross_attention_20),
        ('padding masked by adding -100 to the scores', 'HINT_PADDED_WEIGHT_ZERO', _slip_cross_attention_21),
    ],
    'EncoderDecoder': [
        ('the encoder made causal', 'HINT_ENCODER_NOT_CAUSAL', _slip_EncoderDecoder_0),
        ('padding mask missing in the encoder', 'HINT_PADDING', _slip_EncoderDecoder_1),
        ("padding mask on the encoder's queries", 'HINT_MASK_KEYS', _slip_EncoderDecoder_2),
        ('padding mask missing in cross-attention', 'HINT_PADDING', _slip_EncoderDecoder_3),
        ('no causal mask in the decoder', 'HINT_CAUSAL', _slip_EncoderDecoder_4),
        ("padding mask as the decoder's self-attention mask", 'HINT_MASK_SHAPES', _slip_EncoderDecoder_5),
        ("cross-attention's arguments swapped", 'HINT_MASK_SHAPES', _slip_EncoderDecoder_6),
        ('cross-attention reads the reply', 'HINT_MASK_SHAPES', _slip_EncoderDecoder_7),
        ('memory normalised again', 'HINT_MEMORY_NORMALISED_TWICE', _slip_EncoderDecoder_8),
        ('no residual around cross-attention', 'HINT_CROSS_RESIDUAL', _slip_EncoderDecoder_9),
        ('the MLP reads U', 'HINT_MLP_READS_C', _slip_EncoderDecoder_10),
        ('LN2 before the MLP', 'HINT_BRANCH_NORMS', _slip_EncoderDecoder_11),
        ('cross-attention before self-attention', 'HINT_BRANCH_ORDER', _slip_EncoderDecoder_12),
        ('padding mask inverted', 'HINT_SRC_ALLOWED_INVERTED', _slip_EncoderDecoder_13),
        ('ln_enc forgotten', 'HINT_MEMORY_LN_ENC', _slip_EncoderDecoder_14),
        ('encoder outputs discarded', 'HINT_ENCODER_OUTPUT_DISCARDED', _slip_EncoderDecoder_15),
        ('every encoder block fed the embeddings', 'HINT_ENCODER_FED_EMBEDDINGS', _slip_EncoderDecoder_16),
        ('no positions on the source', 'HINT_SOURCE_POSITIONS', _slip_EncoderDecoder_17),
        ('decoder outputs discarded', 'HINT_DECODER_OUTPUT_DISCARDED', _slip_EncoderDecoder_18),
        ('final LayerNorm forgotten', 'HINT_LN_FINAL', _slip_EncoderDecoder_19),
        ('no positions on the reply', 'HINT_TARGET_POSITIONS', _slip_EncoderDecoder_20),
        ("the course's model borrowed", 'HINT_GIVEN_LAYERS_OWN', _slip_EncoderDecoder_21),
        ('logits of the last reply position only', 'HINT_LOGITS_SHAPE', _slip_EncoderDecoder_22),
        ("the encoder block's forward without return", 'HINT_FORWARD_RETURNS', _slip_EncoderDecoder_23),
        ("the decoder block's forward without return", 'HINT_FORWARD_RETURNS', _slip_EncoderDecoder_24),
        ('padded source states set to -inf (tokens masked, not scores)', 'HINT_PADDING_NAN', _slip_EncoderDecoder_25),
        ("the encoder's MLP branch halved", 'HINT_COMPARE_EQUATIONS', _slip_EncoderDecoder_26),
        ("the head's bias dropped in the given constructor", 'HINT_KEEP_CONSTRUCTORS_BODIES', _slip_EncoderDecoder_27),
        ('one more embedding row (a special token) in the given constructor', 'HINT_KEEP_CONSTRUCTORS_BODIES', _slip_EncoderDecoder_28),
        ('every decoder block fed the reply embeddings', 'HINT_DECODER_FED_EMBEDDINGS', _slip_EncoderDecoder_29),
    ],
    'beam_search': [
        ('greedy: the beam size ignored', 'HINT_RULE_GREEDY', _slip_beam_search_0),
        ('ranked by the new token alone', 'HINT_RULE_TOTAL_SCORE', _slip_beam_search_1),
        ('raw logits added', 'HINT_SCORE_POSITIVE', _slip_beam_search_2),
        ('the beam shrinks as hypotheses finish', 'HINT_RULE_SHRINKING_BEAM', _slip_beam_search_3),
        ('finished hypotheses kept in the beam and extended', 'HINT_RULE_FINISHED_LEAVE', _slip_beam_search_4),
        ('stops at the first end', 'HINT_RULE_KEEP_SEARCHING', _slip_beam_search_5),
        ('the first finished hypothesis returned', 'HINT_RULE_HIGHEST', _slip_beam_search_6),
        ('length normalised', 'HINT_RULE_NO_LENGTH_NORM', _slip_beam_search_7),
        ('live prefixes compared with finished ones', 'HINT_RULE_FINISHED_FIRST', _slip_beam_search_8),
        ('one step short', 'HINT_RULE_MAX_LEN', _slip_beam_search_9),
        ("the first position's logits", 'HINT_RULE_LAST_POSITION', _slip_beam_search_10),
        ('end token hard-coded', 'HINT_RULE_EOS_ARGUMENT', _slip_beam_search_11),
        ("EOS's own log-probability left out of the score", 'HINT_SCORE_SUM', _slip_beam_search_12),
        ('probability returned instead of log-probability', 'HINT_SCORE_PROBABILITY', _slip_beam_search_13),
        ('the beam grows: every prefix keeps beam_size tokens', 'HINT_SEARCH', _slip_beam_search_14),
        ('the source not repeated for the beam', 'HINT_REPEAT_SOURCE', _slip_beam_search_15),
        ("the package's beam search borrowed", 'HINT_SEARCH_OWN', _slip_beam_search_16),
        ('alpha accepted but never used', 'HINT_ALPHA_IGNORED', _slip_beam_search_17),
        ('the score multiplied by the length penalty', 'HINT_ALPHA_DIVIDE', _slip_beam_search_18),
        ("the penalty's length counts <BOS>", 'HINT_ALPHA_LENGTH', _slip_beam_search_19),
        ("the penalty's length leaves out the end token", 'HINT_ALPHA_LENGTH', _slip_beam_search_20),
        ('divided by the length to the power alpha', 'HINT_ALPHA_FORMULA', _slip_beam_search_21),
        ('the early stop compares unpenalised scores', 'HINT_ALPHA_EARLY_STOP', _slip_beam_search_22),
        ('the penalised score returned', 'HINT_ALPHA_SCORE', _slip_beam_search_23),
        ('ids returned as a (1, t) row', 'HINT_ONE_HYPOTHESIS', _slip_beam_search_24),
        ('every finished score returned', 'HINT_SCORE_FLOAT', _slip_beam_search_25),
        ('only the ids returned', 'HINT_RETURN_IDS_SCORE', _slip_beam_search_26),
        ('BOS dropped from the returned ids', 'HINT_STARTS_WITH_BOS', _slip_beam_search_27),
    ],
}
