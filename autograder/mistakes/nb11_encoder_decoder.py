"""Notebook 11 catalogue: the mistakes students make, and correct answers written otherwise."""

from grader.catalogue import (
    alternative,
    delete,
    edit,
    insert_after,
    insert_before,
    mistake,
    replace_line,
)

from attnbook.checks import HINT_BOOL_OPS, nb05, nb11


# The EncoderDecoder cell has four solution regions: EncoderBlock.forward,
# DecoderBlock.forward, EncoderDecoder.encode, EncoderDecoder.decode (None keeps one); an
# edit changes every region that holds its text.
def _encdec(enc=None, dec=None, encode=None, decode=None):
    return (enc, dec, encode, decode)


# hints that several entries give
HINT_ALPHA_LENGTH = "n counts the tokens written after <BOS>, the end token included: len(ids) - 1"


MISTAKES = [
    # cross_attention
    mistake("cross_attention", "no 1/sqrt(d_k)",
            edit(" / math.sqrt(q.shape[-1])", ""),
            detects=nb05.HINT_NO_SCALING),
    mistake("cross_attention", "scaled by sqrt(L_s)",
            edit("sqrt(q.shape[-1])", "sqrt(k.shape[-2])"),
            detects=nb05.HINT_SCALED_BY_LENGTH),
    mistake("cross_attention", "scaled by sqrt(d_v)",
            edit("sqrt(q.shape[-1])", "sqrt(v.shape[-1])"),
            detects=nb05.HINT_SCALED_BY_D_V),
    mistake("cross_attention", "padding not masked",
            delete("masked_fill(~keys"),
            hint="give the padded source tokens -inf scores before the softmax: "
                 "scores.masked_fill(~enc_allowed[:, None, None, :], float('-inf'))"),
    mistake("cross_attention", "mask inverted",
            edit("masked_fill(~keys", "masked_fill(keys"),
            hint="True in enc_allowed marks a REAL source token: fill -inf where it is False"),
    mistake("cross_attention", "mask applied after the softmax",
            [delete("masked_fill(~keys"),
             replace_line("A = torch.nan_to_num(", "A = torch.softmax(scores, dim=-1) * keys")],
            hint="set the padded scores to -inf BEFORE the softmax; zeroing weights afterwards "
                 "leaves rows that do not sum to 1"),
    mistake("cross_attention", "mask multiplied into the scores",
            replace_line("masked_fill(~keys", "scores = scores * keys"),
            hint="a padded score must be -inf, not 0: exp(0) = 1 still gives the padded token "
                 "weight"),
    mistake("cross_attention", "a causal mask added",
            edit("keys = enc_allowed[:, None, None, :]", "keys = enc_allowed[:, None, None, :] & "
                 "torch.ones(scores.shape[-2:], dtype=torch.bool).tril()"),
            hint="cross-attention has no causal mask: the whole source is known before the reply "
                 "starts, so every reply position may read every real source token"),
    mistake("cross_attention", "softmax over the reply positions",
            edit("dim=-1), nan", "dim=-2), nan"),
            hint="each query's weights over the source tokens (the last axis, dim=-1) must sum to "
                 "1"),
    mistake("cross_attention", "-1e9 instead of -inf",
            edit('float("-inf"))', "-1e9)"),
            hint="use float('-inf') and give rows with no allowed key zero weights"),
    mistake("cross_attention", "NaN for an email with no real token",
            replace_line("A = torch.nan_to_num(", "A = torch.softmax(scores, dim=-1)"),
            detects=nb11.HINT_NAN),
    mistake("cross_attention", "mask not reshaped to the scores' axes",
            edit("masked_fill(~keys", "masked_fill(~enc_allowed"),
            detects=nb11.HINT_KEY_AXIS),
    mistake("cross_attention", "mask lined up with the queries",
            edit("[:, None, None, :]", "[:, None, :, None]"),
            detects=nb11.HINT_KEY_AXIS),
    mistake("cross_attention", "only the output returned",
            replace_line("return A @ v", "return A @ v"),
            detects=nb11.HINT_RETURN_Y_A),
    mistake("cross_attention", "no return: Y and A computed and dropped",
            replace_line("return A @ v", "Y = A @ v"),
            detects=nb11.HINT_NO_RETURN_Y_A),
    mistake("cross_attention", "weights returned first",
            replace_line("return A @ v", "return A, A @ v"),
            detects=nb11.HINT_Y_FIRST),
    mistake("cross_attention", "PyTorch's fused attention", """
        keys = enc_allowed[:, None, None, :]
        Y = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=keys)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        A = torch.softmax(scores.masked_fill(~keys, float("-inf")), dim=-1)
        return torch.nan_to_num(Y), torch.nan_to_num(A)
    """, detects=nb11.HINT_CROSS_OWN),
    mistake("cross_attention", "weights averaged over the heads",
            replace_line("return A @ v", "return A @ v, A.mean(dim=1)"),
            detects=nb11.HINT_A_SHAPE),
    mistake("cross_attention", "heads merged in Y",
            replace_line("return A @ v", "return (A @ v).transpose(1, 2).flatten(2), A"),
            detects=nb11.HINT_Y_SHAPE),
    mistake("cross_attention", "queries scaled in place",
            replace_line("scores = q @ k.transpose", "q /= math.sqrt(q.shape[-1])\n"
                 "scores = q @ k.transpose(-2, -1)"),
            detects=nb11.HINT_CROSS_IN_PLACE),
    mistake("cross_attention", "softmax by hand without subtracting the maximum",
            [delete("masked_fill(~keys"),
             replace_line("A = torch.nan_to_num(", "e = torch.exp(scores) * keys\n"
                 "A = torch.nan_to_num(e / e.sum(dim=-1, keepdim=True), nan=0.0)")],
            detects=nb11.HINT_CROSS_OVERFLOW),
    mistake("cross_attention", "softmax by hand with the maximum taken over the padding too",
            [replace_line("masked_fill(~keys", "m = scores.max(dim=-1, keepdim=True).values\n"
                          "e = torch.exp(scores - m) * keys"),
             replace_line("A = torch.nan_to_num(",
                          "A = torch.nan_to_num(e / e.sum(dim=-1, keepdim=True), nan=0.0)")],
            hint="subtract the maximum over the ALLOWED keys only: fill the padded scores with "
                 "-inf first, then take the row's maximum (or call torch.softmax); a large padded "
                 "score makes every real token's exp underflow to 0"),
    mistake("cross_attention", "padding masked by adding -100 to the scores",
            replace_line("masked_fill(~keys", "scores = scores - 100.0 * ~keys"),
            detects=nb11.HINT_PADDED_WEIGHT_ZERO),
    # EncoderDecoder
    mistake("EncoderDecoder", "the encoder made causal",
            replace_line("u = h + self.self_attn(x, x, src_allowed", "L = h.shape[1]\n"
                         "allowed = src_allowed[:, None, None, :]\n"
                         "allowed = allowed & torch.ones(L, L, dtype=torch.bool).tril()\n"
                         "u = h + self.self_attn(x, x, allowed)"),
            detects=nb11.HINT_ENCODER_NOT_CAUSAL),
    mistake("EncoderDecoder", "padding mask missing in the encoder",
            edit("(x, x, src_allowed[:, None, None, :])", "(x, x)"),
            detects=nb11.HINT_PADDING),
    mistake("EncoderDecoder", "padding mask on the encoder's queries",
            edit("(x, x, src_allowed[:, None, None, :])", "(x, x, src_allowed[:, None, :, None])"),
            hint="the mask must block KEYS: src_allowed[:, None, None, :] (B, 1, 1, L_s) lines up "
                 "with the last axis of the scores"),
    mistake("EncoderDecoder", "padding mask missing in cross-attention",
            edit("memory, src_allowed[:, None, None, :])", "memory, None)"),
            detects=nb11.HINT_PADDING),
    mistake("EncoderDecoder", "no causal mask in the decoder",
            edit("(x, x, causal)", "(x, x, None)"),
            detects=nb11.HINT_CAUSAL),
    mistake("EncoderDecoder", "padding mask as the decoder's self-attention mask",
            edit("(x, x, causal)", "(x, x, src_allowed[:, None, None, :])"),
            detects=nb11.HINT_MASK_SHAPES),
    mistake("EncoderDecoder", "memory normalised again",
            edit("cross_attn(self.ln2(u), memory,", "cross_attn(self.ln2(u), self.ln2(memory),"),
            hint="normalise only the queries: self.cross_attn(self.ln2(u), memory, ...); the "
                 "memory was normalised once, by ln_enc"),
    mistake("EncoderDecoder", "no residual around cross-attention",
            edit("c = u + self.cross_attn", "c = self.cross_attn"),
            hint="add the branch to the stream: C = U + CrossAttn(LN2(U), M)"),
    mistake("EncoderDecoder", "the MLP reads U",
            edit("self.ln3(c)", "self.ln3(u)"),
            hint="the MLP reads C, the stream after cross-attention: H_out = C + MLP(LN3(C))"),
    mistake("EncoderDecoder", "LN2 before the MLP",
            edit("self.ln3(c)", "self.ln2(c)"),
            hint="each branch has its own LayerNorm: ln1 before self-attention, ln2 before "
                 "cross-attention, ln3 before the MLP"),
    mistake("EncoderDecoder", "cross-attention before self-attention",
            [replace_line("u = h + self.self_attn(x, x, causal)",
                          "u = h + self.cross_attn(x, memory, src_allowed[:, None, None, :])"),
             replace_line("c = u + self.cross_attn",
                          "x = self.ln2(u)\nc = u + self.self_attn(x, x, causal)")],
            hint="self-attention first (U = H + SelfAttn(LN1(H))), then cross-attention (C = U + "
                 "CrossAttn(LN2(U), M)), then the MLP"),
    mistake("EncoderDecoder", "causal mask built as floats (torch.tril of ones), or'd with bool",
            edit("causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()",
                 "causal = torch.tril(torch.ones(L, L))"), detects=HINT_BOOL_OPS),
    mistake("EncoderDecoder", "padding mask inverted",
            edit("src_allowed[:, None, None, :]", "~src_allowed[:, None, None, :]", count=2),
            hint="src_allowed is True on REAL source tokens: pass src_allowed[:, None, None, :] as "
                 "allowed, without ~"),
    mistake("EncoderDecoder", "ln_enc forgotten",
            edit("return self.ln_enc(h)", "return h"),
            hint="the memory is self.ln_enc(h) after the last encoder block"),
    mistake("EncoderDecoder", "encoder outputs discarded",
            edit("h = block(h, src_allowed)", "block(h, src_allowed)"),
            hint="a block returns a new tensor: keep it as the states the next encoder block "
                 "reads"),
    mistake("EncoderDecoder", "every encoder block fed the embeddings",
            [edit("h = self.embed(src_ids)", "x = self.embed(src_ids)"),
             edit("h = block(h, src_allowed)", "h = block(x, src_allowed)")],
            hint="feed each encoder block the previous block's output, not the embeddings"),
    mistake("EncoderDecoder", "no positions on the source",
            edit("self.embed(src_ids) + self.sinusoids[:src_ids.shape[1]]", "self.embed(src_ids)"),
            hint="add the positions to both sequences: self.embed(src_ids) + self.sinusoids[:L_s]"),
    mistake("EncoderDecoder", "decoder outputs discarded",
            edit("h = block(h, memory, src_allowed)", "block(h, memory, src_allowed)"),
            hint="a block returns a new tensor: keep it as the states the next decoder block "
                 "reads"),
    mistake("EncoderDecoder", "final LayerNorm forgotten",
            edit("self.head(self.ln_final(h))", "self.head(h)"),
            detects=nb11.HINT_LN_FINAL),
    mistake("EncoderDecoder", "no positions on the reply",
            edit("self.embed(tgt_ids) + self.sinusoids[:tgt_ids.shape[1]]", "self.embed(tgt_ids)"),
            hint="add the positions to both sequences: self.embed(tgt_ids) + self.sinusoids[:L_t]"),
    mistake("EncoderDecoder", "the course's model borrowed",
            insert_before("h = self.embed(src_ids)",
                          "from attnbook.lm.seq2seq import EncoderLayer  # noqa: F401"),
            detects=nb11.HINT_GIVEN_LAYERS_OWN),
    mistake("EncoderDecoder", "logits of the last reply position only",
            edit("self.head(self.ln_final(h))", "self.head(self.ln_final(h))[:, -1]"),
            detects=nb11.HINT_LOGITS_SHAPE),
    mistake("EncoderDecoder", "the encoder block's forward without return",
            edit("return u + self.mlp", "h = u + self.mlp"),
            detects=nb11.HINT_FORWARD_RETURNS),
    mistake("EncoderDecoder", "the decoder block's forward without return",
            edit("return c + self.mlp", "h = c + self.mlp"),
            detects=nb11.HINT_FORWARD_RETURNS),
    mistake("EncoderDecoder", "padded source states set to -inf (tokens masked, not scores)",
            insert_after("h = self.embed(src_ids)",
                         'h = h.masked_fill(~src_allowed[:, :, None], float("-inf"))'),
            detects=nb11.HINT_PADDING_NAN),
    mistake("EncoderDecoder", "the encoder's MLP branch halved",
            edit("return u + self.mlp", "return u + 0.5 * self.mlp"),
            detects=nb11.HINT_COMPARE_EQUATIONS),
    # the given constructors changed (the check builds the course model's parameters)
    mistake("EncoderDecoder", "the head's bias dropped in the given constructor",
            given=edit("vocab_size)\n", "vocab_size, bias=False)\n"),
            detects=nb11.HINT_KEEP_CONSTRUCTORS_BODIES),
    mistake("EncoderDecoder", "one more embedding row (a special token) in the given constructor",
            given=edit("Embedding(vocab_size,", "Embedding(vocab_size + 1,"),
            detects=nb11.HINT_KEEP_CONSTRUCTORS_BODIES),
    mistake("EncoderDecoder", "every decoder block fed the reply embeddings",
            [edit("h = self.embed(tgt_ids)", "x = self.embed(tgt_ids)"),
             edit("h = block(h, memory", "h = block(x, memory")],
            hint="feed each decoder block the previous block's output, not the reply embeddings"),
    mistake("EncoderDecoder", "reply positions go on after the source's (a decoder-only habit)",
            edit("self.sinusoids[:tgt_ids.shape[1]]", "self.sinusoids[memory.shape[1]:memory.shape"
                 "[1] + tgt_ids.shape[1]]"), detects=nb11.HINT_MASK_SHAPES),
    # beam_search
    mistake("beam_search", "greedy: the beam size ignored", edit("min(beam_size, ", "min(1, "),
            hint="keep the beam_size best candidates at every step, not only the best one"),
    mistake("beam_search", "the beam started with beam_size copies of <BOS>", [
        edit("live = torch.tensor([[BOS]])", "live = torch.full((beam_size, 1), BOS)"),
        edit("scores = torch.zeros(1)", "scores = torch.zeros(beam_size)"),
    ], hint="start from ONE live prefix, <BOS> alone (torch.tensor([[BOS]]), scores "
            "torch.zeros(1)): identical prefixes give identical candidates, and the copies fill "
            "the beam"),
    mistake("beam_search", "ranked by the new token alone",
            replace_line(
                "best, flat = total.flatten().topk",
                "_, flat = torch.log_softmax(logits, dim=-1).flatten().topk(min(beam_size, "
                "total.numel()))\nbest = total.flatten()[flat]"),
            hint="rank candidates by their TOTAL score: the prefix's score plus the new token's "
                 "log-probability"),
    mistake("beam_search", "a finished hypothesis saved with the first row's prefix",
            edit("[*live[row].tolist(), token]", "[*live[0].tolist(), token]"),
            hint="a finished hypothesis is ITS OWN row's prefix plus eos_id: live[row], with row = "
                 "flat // V for each kept candidate"),
    mistake("beam_search", "live scores cut from the top of best, not masked like the prefixes",
            edit("scores = best[keep]", "scores = best[:int(keep.sum())]"),
            hint="drop the finished candidates' scores with the same mask that drops their "
                 "prefixes, so that each live prefix keeps its own score"),
    mistake("beam_search", "the best of each row, then the first beam_size of them", replace_line(
        "best, flat = total.flatten().topk",
        "per_row, cols = total.topk(min(beam_size, total.shape[1]), dim=-1)\n"
        "best = per_row.flatten()[:beam_size]\n"
        "flat = (cols + torch.arange(len(total))[:, None] * total.shape[1]).flatten()[:beam_size]"),
            detects=nb11.HINT_SEARCH),
    mistake("beam_search", "scores kept as probabilities (exp, product, log)",
            edit("total = scores[:, None] + torch.log_softmax(logits, dim=-1)",
                 "total = torch.log(scores.exp()[:, None] * torch.softmax(logits, dim=-1))"),
            hint="keep the running scores as summed log-probabilities, scores[:, None] + "
                 "torch.log_softmax(logits, dim=-1): a product of probabilities underflows to 0 "
                 "in float32 once the score passes about -104 (log 0 = -inf)"),
    mistake("beam_search", "raw logits added",
            edit("+ torch.log_softmax(logits, dim=-1)", "+ logits"),
            detects=nb11.HINT_SCORE_POSITIVE),
    mistake("beam_search", "the beam shrinks as hypotheses finish",
            replace_line(
                "best, flat = total.flatten().topk",
                "if beam_size - len(finished) <= 0:\n    break\nbest, flat = total.flatten()"
                ".topk(min(beam_size - len(finished), total.numel()))"),
            hint="take the beam_size best candidates at EVERY step, however many hypotheses "
                 "finished before: a kept candidate that ends in eos_id leaves the live prefixes "
                 "(so the next step may extend fewer of them), but it never lowers the number of "
                 "candidates kept"),
    mistake("beam_search", "the beam refilled with live candidates (Hugging Face's rule)", [
        edit("topk(min(beam_size,", "topk(min(2 * beam_size,"),
        edit("for score, row, token in zip(", "for rank, (score, row, token) in enumerate(zip("),
        edit("tokens.tolist()):", "tokens.tolist())):"),
        edit("if token == eos_id:", "if token == eos_id and rank < beam_size:"),
        replace_line("keep = tokens != eos_id",
                     "keep = (tokens != eos_id) & ((tokens != eos_id).cumsum(0) <= beam_size)"),
    ], hint="take the beam_size best candidates, those ending in eos_id included: each finished "
            "one leaves the beam, and the next step extends only the live ones kept; do not refill "
            "the beam from further candidates (Hugging Face's generate does; this search does "
            "not)"),
    mistake("beam_search", "topk(beam_size) without min(): a beam wider than the candidates",
            edit("topk(min(beam_size, total.numel()))", "topk(beam_size)"),
            detects=nb11.HINT_TOPK_MIN),
    mistake("beam_search", "finished hypotheses kept in the beam and extended", [
        edit("live = torch.cat((live[rows[keep]], tokens[keep, None]), dim=1)",
             "live = torch.cat((live[rows], tokens[:, None]), dim=1)"),
        edit("scores = best[keep]", "scores = best"),
    ], hint="a candidate that ends in eos_id is finished: it leaves the live prefixes and is never "
            "extended (nothing follows the end token)"),
    mistake("beam_search", "stops at the first end",
            insert_after("scores = best[keep]", "if finished:\n    break"),
            hint="keep searching while live prefixes remain (or until max_len): a later reply may "
                 "still score higher"),
    mistake("beam_search", "stops once beam_size hypotheses have finished",
            insert_after("scores = best[keep]", "if len(finished) >= beam_size:\n    break"),
            hint="keep searching while live prefixes remain (or until max_len), however many "
                 "hypotheses finished: a live prefix may still end with a higher score. Stopping "
                 "at beam_size finished ones is Hugging Face's early_stopping=True, not this "
                 "search's rule; stop early only when no live prefix can beat the best finished "
                 "hypothesis"),
    mistake("beam_search", "the first finished hypothesis returned",
            edit("max(finished, key=penalised)", "finished[0]"),
            hint="return the finished hypothesis with the HIGHEST score"),
    mistake("beam_search", "length normalised",
            edit("key=penalised)", "key=lambda f: f[0] / (len(f[1]) - 1))"),
            hint="with alpha = 0 (the default) compare finished hypotheses by their total "
                 "log-probability, with no length normalisation"),
    mistake("beam_search", "live prefixes compared with finished ones", [
        edit("for _ in range(max_len):", "for step in range(max_len):"),
        insert_after("scores = best[keep]", "if step == max_len - 1:\n"
                     "    finished += [(float(s), p.tolist()) for s, p in zip(scores, live)]\n"
                     "    live = live[:0]")],
            hint="return the best FINISHED hypothesis; a live prefix only when none finished"),
    mistake("beam_search", "one step short", edit("range(max_len)", "range(max_len - 1)"),
            hint="write at most max_len new tokens: range(max_len)"),
    mistake("beam_search", "the first position's logits", edit("live)[:, -1]", "live)[:, 0]"),
            hint="the next-token logits are the LAST position's: model(src, prefixes)[:, -1]"),
    mistake("beam_search", "end token hard-coded",
            [edit("token == eos_id", "token == 2"), edit("tokens != eos_id", "tokens != 2")],
            hint="a candidate is finished when it ends in eos_id, the argument"),
    mistake("beam_search", "EOS's own log-probability left out of the score",
            edit("append((score, [", "append((float(scores[row]), ["),
            detects=nb11.HINT_SCORE_SUM),
    mistake("beam_search", "probability returned instead of log-probability",
            edit("return torch.tensor(ids), score", "return torch.tensor(ids), math.exp(score)"),
            hint="return the log-probability (a sum of logs), not the probability"),
    mistake("beam_search", "the beam grows: every prefix keeps beam_size tokens", """
        live, scores, finished = [[BOS]], [0.0], []
        for _ in range(max_len):
            new_live, new_scores = [], []
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
            live, scores = new_live, new_scores
            if not live:
                break
        if finished:
            score, ids = max(finished, key=lambda f: f[0])
            return torch.tensor(ids), score
        best = max(range(len(live)), key=lambda i: scores[i])
        return torch.tensor(live[best]), scores[best]
    """, detects=nb11.HINT_SEARCH),
    mistake("beam_search", "the source not repeated for the beam",
            edit("src_ids[None, :].expand(len(live), -1)", "src_ids[None, :]"),
            detects=nb11.HINT_REPEAT_SOURCE),
    mistake("beam_search", "the package's beam search borrowed", """
        from attnbook.lm.seq2seq import beam_decode
        ids, score = beam_decode(model, src_ids, beam_size, max_len, eos_id)
        return torch.tensor(ids), score
    """, detects=nb11.HINT_SEARCH_OWN),
    mistake("beam_search", "alpha accepted but never used",
            edit("key=penalised)", "key=lambda f: f[0])"),
            hint="with alpha > 0 rank the finished hypotheses by score / ((5 + n) / 6) ** alpha, "
                 "n the tokens after <BOS> with the end token counted"),
    mistake("beam_search", "the score multiplied by the length penalty",
            edit("score / ((5 + len(ids) - 1)", "score * ((5 + len(ids) - 1)"),
            hint="divide the score by the penalty ((5 + n) / 6) ** alpha; do not multiply"),
    mistake("beam_search", "the penalty's length counts <BOS>",
            edit("(5 + len(ids) - 1)", "(5 + len(ids))"),
            hint=HINT_ALPHA_LENGTH),
    mistake("beam_search", "the penalty's length leaves out the end token",
            edit("(5 + len(ids) - 1)", "(5 + len(ids) - 2)"),
            hint=HINT_ALPHA_LENGTH),
    mistake("beam_search", "divided by the length to the power alpha",
            edit("((5 + len(ids) - 1) / 6) ** alpha", "(len(ids) - 1) ** alpha"),
            hint="the penalty is ((5 + n) / 6) ** alpha, not n ** alpha"),
    mistake("beam_search", "the early stop compares unpenalised scores",
            edit("max(map(penalised, finished)) >= scores.max() / longest",
                 "max(s for s, _ in finished) >= scores.max()"),
            hint="an early stop must compare penalised scores too: a live prefix with score s "
                 "ends, at best, with s / ((5 + max_len) / 6) ** alpha; or leave the early stop "
                 "out"),
    mistake("beam_search", "the penalised score returned",
            edit("return torch.tensor(ids), score",
                 "return torch.tensor(ids), penalised((score, ids))"),
            hint="return the hypothesis's total log-probability: the penalty only ranks the "
                 "hypotheses"),
    mistake("beam_search", "ids returned as a (1, t) row",
            edit("return torch.tensor(ids), score", "return torch.tensor([ids]), score"),
            detects=nb11.HINT_ONE_HYPOTHESIS),
    mistake("beam_search", "every finished score returned",
            edit("return torch.tensor(ids), score",
                 "return torch.tensor(ids), torch.tensor([s for s, _ in finished])"),
            detects=nb11.HINT_SCORE_FLOAT),
    mistake("beam_search", "only the ids returned",
            edit("return torch.tensor(ids), score", "return torch.tensor(ids)"),
            detects=nb11.HINT_RETURN_IDS_SCORE),
    mistake("beam_search", "BOS dropped from the returned ids",
            edit("return torch.tensor(ids), score", "return torch.tensor(ids[1:]), score"),
            hint="every hypothesis starts with the setup's BOS: the search begins from one live "
                 "prefix that holds only BOS"),
]

ALTERNATIVES = [
    # cross_attention
    alternative("cross_attention", "einsum and torch.where", """
        scores = torch.einsum("bhtd,bhsd->bhts", q, k) / q.shape[-1] ** 0.5
        keys = enc_allowed.view(enc_allowed.shape[0], 1, 1, -1)
        scores = torch.where(keys, scores, torch.full_like(scores, float("-inf")))
        A = torch.softmax(scores, dim=-1)
        A = torch.where(torch.isnan(A), torch.zeros_like(A), A)
        return torch.einsum("bhts,bhsv->bhtv", A, v), A
    """),
    alternative("cross_attention", "log of the mask added, queries scaled first", """
        q = q / math.sqrt(q.shape[-1])
        scores = q @ k.mT + torch.log(enc_allowed.to(q.dtype))[:, None, None, :]
        A = torch.nan_to_num(scores.softmax(-1), nan=0.0)
        return A @ v, A
    """),
    alternative("cross_attention", "softmax by hand, empty rows handled", """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        keys = enc_allowed[:, None, None, :].expand_as(scores)
        masked = scores.masked_fill(~keys, float("-inf"))
        top = masked.amax(dim=-1, keepdim=True)
        top = torch.where(torch.isinf(top), torch.zeros_like(top), top)
        e = torch.exp(masked - top)
        total = e.sum(dim=-1, keepdim=True)
        A = e / torch.where(total == 0, torch.ones_like(total), total)
        return A @ v, A
    """),
    # EncoderDecoder
    alternative("EncoderDecoder", "causal mask from nn.Transformer.generate_square_subsequent_mask",
                edit("torch.ones(L, L, dtype=torch.bool, device=h.device).tril()",
                     "nn.Transformer.generate_square_subsequent_mask(L, device=h.device) == 0")),
    alternative("EncoderDecoder", "masks built with view and tril, a loop with enumerate",
                _encdec(enc="""
        B, L_s = src_allowed.shape
        normed = self.ln1(h)
        u = h + self.self_attn(normed, normed, src_allowed.view(B, 1, 1, L_s))
        return u + self.mlp(self.ln2(u))
    """, dec="""
        B, L_t, _ = h.shape
        causal = torch.tril(torch.ones(L_t, L_t, device=h.device)).bool()
        normed = self.ln1(h)
        u = h + self.self_attn(normed, normed, causal[None, None])
        c = u + self.cross_attn(self.ln2(u), memory, src_allowed.view(B, 1, 1, -1))
        return c + self.mlp(self.ln3(c))
    """, encode="""
        positions = torch.arange(src_ids.shape[1], device=src_ids.device)
        h = self.embed(src_ids) + self.sinusoids[positions]
        for i, _ in enumerate(self.encoder):
            h = self.encoder[i](h, src_allowed)
        return self.ln_enc(h)
    """, decode="""
        positions = torch.arange(tgt_ids.shape[1], device=tgt_ids.device)
        h = self.embed(tgt_ids) + self.sinusoids[positions]
        for block in self.decoder:
            h = block(h, memory, src_allowed)
        logits = self.head(self.ln_final(h))
        return logits
    """)),
    alternative("EncoderDecoder", "keyword arguments and a mask expanded to every head",
                _encdec(enc="""
        n_heads = self.self_attn.n_heads
        B, L = src_allowed.shape
        mask = src_allowed[:, None, None, :].expand(B, n_heads, L, L)
        return (lambda u: u + self.mlp(self.ln2(u)))(
            h + self.self_attn(self.ln1(h), source=self.ln1(h), allowed=mask))
    """, dec="""
        L = h.shape[1]
        future = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)
        x = self.ln1(h)
        h = h + self.self_attn(x, source=x, allowed=~future)
        h = h + self.cross_attn(self.ln2(h), source=memory,
                                allowed=src_allowed.unsqueeze(1).unsqueeze(2))
        return h + self.mlp(self.ln3(h))
    """)),
    # beam_search
    alternative("beam_search", "one hypothesis at a time, lists and sorted()", """
        beam = [(0.0, [BOS])]
        finished = []
        for _ in range(max_len):
            candidates = []
            for score, prefix in beam:
                with torch.no_grad():
                    logits = model(src_ids[None, :], torch.tensor([prefix]))[0, -1]
                log_p = torch.log_softmax(logits, dim=-1).tolist()
                candidates += [(score + lp, prefix + [t]) for t, lp in enumerate(log_p)]
            candidates = sorted(candidates, key=lambda c: c[0], reverse=True)[:beam_size]
            finished += [c for c in candidates if c[1][-1] == eos_id]
            beam = [c for c in candidates if c[1][-1] != eos_id]
            if not beam:
                break
        if finished:
            score, ids = max(finished, key=lambda c: c[0] / ((4 + len(c[1])) / 6) ** alpha)
        else:
            score, ids = max(beam, key=lambda c: c[0])
        return torch.tensor(ids), score
    """),
    alternative("beam_search", "heapq.nlargest over every candidate, no early stop", """
        import heapq

        live = [(0.0, [BOS])]
        done = []
        for _ in range(max_len):
            prefixes = torch.tensor([p for _, p in live])
            src = src_ids.repeat(len(live), 1)
            with torch.no_grad():
                log_p = torch.log_softmax(model(src, prefixes)[:, -1], dim=-1)
            options = ((s + float(log_p[i, t]), p + [t]) for i, (s, p) in enumerate(live)
                       for t in range(log_p.shape[1]))
            kept = heapq.nlargest(beam_size, options, key=lambda c: c[0])
            done += [c for c in kept if c[1][-1] == eos_id]
            live = [c for c in kept if c[1][-1] != eos_id]
            if not live:
                break
        def rank(c):
            return c[0] / math.pow((5 + len(c[1]) - 1) / 6, alpha) if done else c[0]

        score, ids = max(done or live, key=rank)
        return torch.tensor(ids), score
    """),
    alternative("beam_search", "top beam_size per prefix first, then the best overall", """
        live = torch.tensor([[BOS]])
        scores = torch.zeros(1)
        finished = []
        for _ in range(max_len):
            with torch.no_grad():
                logits = model(src_ids.expand(len(live), -1), live)[:, -1]
            total = scores[:, None] + logits.log_softmax(-1)
            k = min(beam_size, total.shape[1])
            values, tokens = total.topk(k, dim=-1)
            rows = torch.arange(len(live))[:, None].expand(-1, k)
            best, order = values.flatten().topk(min(beam_size, values.numel()))
            rows, tokens = rows.flatten()[order], tokens.flatten()[order]
            ended = tokens == eos_id
            finished += [(float(s), live[r].tolist() + [eos_id])
                         for s, r in zip(best[ended], rows[ended])]
            live = torch.cat([live[rows[~ended]], tokens[~ended].unsqueeze(1)], dim=1)
            scores = best[~ended]
            if live.shape[0] == 0:
                break
        if finished:
            lengths = torch.tensor([len(ids) - 1.0 for _, ids in finished])
            ranked = torch.tensor([s for s, _ in finished]) / ((5 + lengths) / 6) ** alpha
            score, ids = finished[int(ranked.argmax())]
            return torch.tensor(ids), score
        return live[scores.argmax()], float(scores.max())
    """),
]
