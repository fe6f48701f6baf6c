"""Notebook 04's mistake catalogue, one section per graded function (see grader/catalogue.py)."""

from grader.catalogue import alternative, catalogue, delete, edit, explained, mistake, replace_line

from attnbook.checks import nb04

WHY = explained("04_masks")  # detects=WHY: the question's explanation

CAUSAL, MASKED, PADDING, MASK = "causal_mask", "masked_attention", "padding_mask", "attention_mask"

# hints that several entries give
HINT_FINITE_NEG = ("a fully masked row came out uniform: a large finite negative number (like "
                   "-1e9) is still a number, so the softmax spreads the row evenly. Use -inf and "
                   "give a row with no allowed key all-zero weights")
HINT_KEEPDIMS = ("reduce each row with keepdims=True (S.max(axis=-1, keepdims=True), "
                 "e.sum(axis=-1, keepdims=True)): without it the (..., L_q) result lines up with "
                 "the KEY axis and every column is shifted or divided by another row's value")
HINT_LENGTHS_OFF_ONE = ("positions count from 0: a message of length n has real tokens 0 .. n-1, "
                        "so position < length")
HINT_LAST_MESSAGE = "fill every message b = 0 .. B-1, the last included: range(len(lengths))"


MISTAKES, ALTERNATIVES = catalogue([
    # -- causal_mask -------------------------------------------------------------------------------
    mistake(CAUSAL, "diagonal excluded (j < i)", edit("))", "), dtype=bool), k=-1"),
            hint="the diagonal must be True: query i may read keys j <= i, itself included",
            like="0/1 floats instead of booleans"),
    mistake(CAUSAL, "mask transposed (j >= i): each query reads the future, not the past",
            "return np.triu(np.ones((L, L), dtype=bool))",
            hint="row i is query i; it may read columns j <= i (lower triangle, np.tril)"),
    mistake(CAUSAL, "True and False swapped (True marks the blocked future)",
            edit("i <= i", "i[None, :] > i[:, None]"),
            hint="True means 'may attend': the allowed keys are j <= i",
            like="comparison without new axes gives a vector"),
    mistake(CAUSAL, "additive 0 / -inf matrix instead of booleans",
            "return np.triu(np.full((L, L), -np.inf), k=1)", detects=nb04.HINT_ADDITIVE_MASK),
    mistake(CAUSAL, "0/1 floats instead of booleans", "return np.tril(np.ones((L, L)))",
            detects=nb04.HINT_BOOL),
    mistake(CAUSAL, "every entry True: nothing is blocked", "return np.ones((L, L), dtype=bool)",
            hint="nothing is blocked: query i may read only keys j <= i; the future keys j > i "
                 "must be False"),
    mistake(CAUSAL, "only the diagonal (each query reads only itself)",
            "return np.eye(L, dtype=bool)",
            hint="query i may read every earlier key and itself (j <= i), not only itself"),
    mistake(CAUSAL, "np.tril(..., k=1): each query also reads the next token",
            "return np.tril(np.ones((L, L), dtype=bool), k=1)",
            hint="k=1 lets each query read one token into the future; the causal mask is "
                 "np.tril(..., k=0) (the default), i.e. j <= i"),
    mistake(CAUSAL, "comparison without new axes gives a vector", """
        i = np.arange(L)
        return i <= i""", detects=nb04.HINT_CAUSAL_SHAPE),
    mistake(CAUSAL, "hard-coded 4 x 4 (the worked example's size)",
            "return np.tril(np.ones((4, 4), dtype=bool))", detects=nb04.HINT_CAUSAL_HARD_CODED),
    mistake(CAUSAL, "the last row left all False (a loop over range(L - 1))", """
        M = np.zeros((L, L), dtype=bool)
        for i in range(L - 1):
            M[i, :i + 1] = True
        return M""", hint="fill every row i = 0 .. L-1, the last included (range(L)); the last "
                          "query reads all L keys"),
    alternative(CAUSAL, "np.tril of booleans", "return np.tril(np.ones((L, L), dtype=bool))"),
    alternative(CAUSAL, "double loop into a list of lists",
                "return np.array([[j <= i for j in range(L)] for i in range(L)])"),
    alternative(CAUSAL, "torch bool tensor returned as it is", """
        import torch
        return torch.tril(torch.ones(L, L, dtype=torch.bool))"""),
    alternative(CAUSAL, "float np.tri compared with 0.5", "return np.tri(L) > 0.5"),
    alternative(CAUSAL, "cumulative sum of the identity down the columns",
                "return np.cumsum(np.eye(L, dtype=int), axis=0).astype(bool)"),
    alternative(CAUSAL, "transposed upper triangle (a non-contiguous view)",
                "return np.triu(np.ones((L, L), dtype=bool)).T"),
    alternative(CAUSAL, "difference of positions, read-only", """
        allowed = np.subtract.outer(np.arange(L), np.arange(L)) >= 0
        allowed.flags.writeable = False
        return allowed"""),
    # -- masked_attention --------------------------------------------------------------------------
    mistake(MASKED, "mask applied after the softmax",
            [edit("sum(axis=-1, keepdims=True)", "sum(axis=-1, keepdims=True) * allowed"),
             delete("S = np.where(allowed,")], detects=nb04.HINT_AFTER,
            like="large finite negative number leaves a fully masked row uniform"),
    mistake(MASKED, "large finite negative number leaves a fully masked row uniform",
            edit("np.inf", "1e9"), hint=HINT_FINITE_NEG, like="NaN for a row with no allowed key"),
    mistake(MASKED, "blocked scores set to -100, which leaves them a tiny weight",
            edit("S, -np.inf)", "S, -100.0)"), detects=nb04.HINT_MASK_BEFORE_SOFTMAX),
    mistake(MASKED, "NaN for a row with no allowed key", [
        edit("np.finfo(np.float64).min", "-np.inf"), edit(") * allowed", ")"),
        replace_line("A = e / np.maximum(e", "A = e / e.sum(axis=-1, keepdims=True)"),
    ], detects=nb04.HINT_NAN, like="large negative fill, then zero the rows with no key"),
    mistake(MASKED, "mask inverted", [edit("S, -np.inf", "-np.inf, S"), edit(", A @ V", " @ V, A")],
            detects=nb04.HINT_MASK_INVERTED, like="returns (A, Y) instead of (Y, A)"),
    mistake(MASKED, "mask multiplied into the scores", [
        edit("])", "]) * allowed"), edit("True) * allowed", "True)"),
    ], hint="a blocked score of 0 still gets weight; blocked scores must be -inf",
       like="mask applied after the softmax"),
    mistake(MASKED, "no 1/sqrt(d_k)", edit("K.T / np.sqrt(Q.shape[-1]", "np.swapaxes(K, -1, -2"),
            detects=nb04.HINT_NO_SCALING, like="K.T breaks leading axes"),
    mistake(MASKED, "K.T breaks leading axes", [delete("S = np.where(allowed,"),
            replace_line("S = Q @ np.swapaxes(K,",
                         "S = np.where(allowed, Q @ K.T / np.sqrt(Q.shape[-1]), -np.inf)")],
            detects=nb04.HINT_LEADING, like="mask inverted"),
    mistake(MASKED, "divided by d_k instead of sqrt(d_k)", edit("2)", "2) / Q.shape[-1]"),
            detects=nb04.HINT_DIVIDED_BY_D_K, like="no 1/sqrt(d_k)"),
    mistake(MASKED, "scaled by the number of keys instead of d_k",
            edit("2)", "2) / np.sqrt(K.shape[-2])"),
            hint="scale by sqrt(d_k), where d_k is the query/key width Q.shape[-1], not the number "
                 "of keys K.shape[-2]", like="no 1/sqrt(d_k)"),
    mistake(MASKED, "scaled by the number of queries instead of d_k",
            edit("2)", "2) / np.sqrt(Q.shape[-2])"),
            hint="scale by sqrt(d_k), where d_k is the query/key width Q.shape[-1], not the number "
                 "of queries Q.shape[-2]", like="no 1/sqrt(d_k)"),
    mistake(MASKED, "scaled by sqrt(d_v), the value width", edit("2)", "2) / np.sqrt(V.shape[-1])"),
            hint="scale by sqrt(d_k), where d_k is the query/key width Q.shape[-1], not the value "
                 "width V.shape[-1]", like="no 1/sqrt(d_k)"),
    mistake(MASKED, "softmax over the query axis", [
        edit("S.max(axis=-1", "S.max(axis=-2"), edit("=-1", "=-2"), edit(", A @ V", " @ V, A"),
    ], detects=nb04.HINT_SOFTMAX_AXIS, like="returns (A, Y) instead of (Y, A)"),
    mistake(MASKED, "returns (A, Y) instead of (Y, A)", [
        edit("np.swapaxes(allowed, -1, -2)", "allowed"), edit("A @ V, A", "A, A @ V"),
    ], detects=nb04.HINT_RETURN_Y_A, like="allowed transposed (rows read as keys)"),
    mistake(MASKED, "no max subtraction: large scores overflow", [
        edit("S = np.where(allowed, S, -np.inf)", "e = np.exp(S) * allowed"),
        delete("m = S.max(axis=-1, keepdims=True)"),
        delete("e = np.exp(S - np.where(np.isfinite(m), m, 0.0))"), edit(", A @ V", " @ V, A"),
    ], detects=nb04.HINT_OVERFLOW, like="returns (A, Y) instead of (Y, A)"),
    mistake(MASKED, "allowed transposed (rows read as keys)", """
        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        S = np.where(np.swapaxes(allowed, -1, -2), S, -np.inf)
        m = S.max(axis=-1, keepdims=True)
        e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
        total = e.sum(axis=-1, keepdims=True)
        A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
        return A @ V, A""", hint="allowed[..., i, j] says whether query i may read key j (row i is "
                                 "query i): use allowed as given, not its transpose"),
    mistake(MASKED, "weights returned but Y from the unmasked softmax", [
        replace_line("S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])",
                     "S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n"
                     "e = np.exp(S - S.max(axis=-1, keepdims=True))\n"
                     "Y = (e / e.sum(axis=-1, keepdims=True)) @ V"),
        edit("A, A @ V", "Y, A")], detects=nb04.HINT_Y, like="returns (A, Y) instead of (Y, A)"),
    mistake(MASKED, "float32 and -1e9 instead of -inf", [
        edit("np.inf", "1e9"),
        edit("torch.nan_to_num(torch.softmax(s, dim=-1), nan=0.0", "torch.softmax(s, dim=-1"),
    ], hint=HINT_FINITE_NEG, like="float32 torch.Tensor computation"),
    mistake(MASKED, "float32 and the mask applied after the softmax", """
        import torch
        q, k, v = torch.Tensor(Q), torch.Tensor(K), torch.Tensor(V)
        a = torch.softmax(q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5, dim=-1)
        a = a * torch.as_tensor(np.broadcast_to(allowed, a.shape).copy())
        return a @ v, a""", detects=nb04.HINT_AFTER),
    mistake(MASKED, "maximum of the whole array instead of each row", [
        replace_line("row_max = S.max(axis=-1, keepdims=True)",
                     "row_max = np.max(S[np.isfinite(S)]) if np.isfinite(S).any() else 0.0"),
    ], detects=nb04.HINT_GLOBAL_MAX),
    mistake(MASKED, "row maximum without keepdims",
            edit("S.max(axis=-1, keepdims=True", "S.max(axis=-1"), hint=HINT_KEEPDIMS),
    mistake(MASKED, "row sum without keepdims",
            edit("e.sum(axis=-1, keepdims=True", "e.sum(axis=-1"), hint=HINT_KEEPDIMS),
    mistake(MASKED, "boolean indexing S[~allowed] breaks a broadcast mask", [
        edit("Q /=", "S = Q @ np.swapaxes(K, -1, -2) /"),
        edit("S = np.where(allowed, Q @ np.swapaxes(K, -1, -2), -np.inf)", "S[~allowed] = -np.inf"),
    ], detects=nb04.HINT_LEADING, like="Q scaled in place (Q /= sqrt(d_k))"),
    mistake(MASKED, "Q scaled in place (Q /= sqrt(d_k))", [
        edit("d_k = Q.shape[-1]", "Q /= np.sqrt(Q.shape[-1])"),
        edit("Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k",
             "np.where(allowed, Q @ np.swapaxes(K, -1, -2), -np.inf"),
        delete("S = np.where(allowed, S, -np.inf)")], detects=nb04.HINT_ATTENTION_IN_PLACE),
    mistake(MASKED, "d_k read from Q.shape[1]", edit("(d_k", "(Q.shape[1]"),
            hint="d_k is Q.shape[-1], the last axis; with leading axes Q.shape[1] is another axis "
                 "(the heads or the queries)"),
    mistake(MASKED, "weights never divided by the row sum",
            replace_line("A = np.divide(e, total", "A = e"),
            hint="divide by each row's sum so that every row of A sums to 1"),
    mistake(MASKED, "additive mask built as (~allowed) * -inf",
            edit("np.where(allowed, S, -np.inf)", "S + (~allowed) * -np.inf"),
            hint="every row came out empty although its query has allowed keys: 0 * -inf is NaN, "
                 "so (~allowed) * -np.inf poisons the allowed scores too; mask with "
                 "np.where(allowed, S, -np.inf)"),
    mistake(MASKED, "A returned transposed",
            edit("return A @ V, A", "return A @ V, np.swapaxes(A, -1, -2)"),
            detects=nb04.HINT_A_SHAPE),
    mistake(MASKED, "Y returned transposed",
            edit("return A @ V, A", "return np.swapaxes(A @ V, -1, -2), A"),
            detects=nb04.HINT_Y_SHAPE),
    mistake(MASKED, "row maximum over blocked keys too, then zeroed and renormalised", """
        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        S = S - S.max(axis=-1, keepdims=True)
        e = np.exp(S) * allowed
        total = e.sum(axis=-1, keepdims=True)
        A = np.where(total > 0, e / np.where(total > 0, total, 1.0), 0.0)
        return A @ V, A""", detects=nb04.HINT_MAX_OF_ALLOWED),
    alternative(MASKED, "einsum and nan_to_num", """
        S = np.einsum("...qd,...kd->...qk", Q, K) / Q.shape[-1] ** 0.5
        S = np.where(allowed, S, -np.inf)
        with np.errstate(invalid="ignore"):
            e = np.exp(S - S.max(axis=-1, keepdims=True))
            A = np.nan_to_num(e / e.sum(axis=-1, keepdims=True), nan=0.0)
        return np.einsum("...qk,...kv->...qv", A, V), A"""),
    alternative(MASKED, "loop over the rows of the flattened batch", """
        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        mask = np.broadcast_to(allowed, S.shape)
        S, mask = np.broadcast_arrays(S, mask)
        A = np.zeros(S.shape)
        flat_S, flat_mask, flat_A = (a.reshape(-1, S.shape[-1]) for a in (S, mask, A))
        for r in range(flat_S.shape[0]):
            keep = flat_mask[r]
            if keep.any():
                row = np.exp(flat_S[r, keep] - flat_S[r, keep].max())
                flat_A[r, keep] = row / row.sum()
        A = flat_A.reshape(S.shape)
        return A @ V, A"""),
    alternative(MASKED, "scale after masking, additive 0/-inf mask", [
        edit("/ np.sqrt(Q.shape[-1]", "+ np.where(allowed, 0.0, -np.inf"),
        edit("np.where(allowed, S, -np.inf", "S / np.sqrt(Q.shape[-1]"), edit(", A @ V", " @ V, A"),
    ], like="returns (A, Y) instead of (Y, A)"),
    alternative(MASKED, "PyTorch softmax on -inf scores, NaN rows set to 0", """
        import torch
        q, k, v = (torch.as_tensor(t, dtype=torch.float64) for t in (Q, K, V))
        s = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
        s = s.masked_fill(~torch.as_tensor(np.broadcast_to(allowed, s.shape).copy()),
                          float("-inf"))
        a = torch.nan_to_num(torch.softmax(s, dim=-1), nan=0.0)
        return (a @ v).numpy(), a.numpy()"""),
    alternative(MASKED, "large negative fill, then zero the rows with no key", """
        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        S = np.where(allowed, S, np.finfo(np.float64).min)
        e = np.exp(S - S.max(axis=-1, keepdims=True)) * allowed
        A = e / np.maximum(e.sum(axis=-1, keepdims=True), np.finfo(np.float64).tiny)
        return A @ V, A"""),
    alternative(MASKED, "numpy masked arrays, returned as a list", """
        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        Sm = np.ma.masked_array(S, mask=~np.broadcast_to(allowed, S.shape))
        e = np.ma.exp(Sm - Sm.max(axis=-1, keepdims=True))
        A = (e / e.sum(axis=-1, keepdims=True)).filled(0.0)
        return [A @ V, A]"""),
    alternative(MASKED, "torch SDPA for Y, own weights", """
        import torch
        import torch.nn.functional as F
        q, k, v = (torch.from_numpy(t) for t in (Q, K, V))
        m = torch.from_numpy(np.ascontiguousarray(allowed))
        Y = F.scaled_dot_product_attention(q, k, v, attn_mask=m)
        S = (q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5).masked_fill(~m, float("-inf"))
        A = torch.nan_to_num(torch.softmax(S, dim=-1), nan=0.0)
        return torch.nan_to_num(Y, nan=0.0).numpy(), A.numpy()"""),
    alternative(MASKED, "boolean assignment of -inf into broadcast copies", [
        replace_line("S = S - S.max(axis=-1, keepdims=True)",
                     "S, mask = np.broadcast_arrays(S, allowed)\n"
                     "S = S.copy()\n"
                     "S[~mask] = -np.inf\n"
                     "A = np.zeros(S.shape)\n"
                     "has_key = mask.any(axis=-1)\n"
                     "m = np.where(has_key, S.max(axis=-1), 0.0)[..., None]\n"
                     "e = np.exp(S - m)"),
        delete("e = np.exp(S) * allowed"), edit("total > 0, e", "has_key[..., None], e"),
    ], like="row maximum over blocked keys too, then zeroed and renormalised"),
    alternative(MASKED, "additive log(allowed) mask and logaddexp", """
        with np.errstate(divide="ignore", invalid="ignore"):
            S = np.matmul(Q / np.sqrt(Q.shape[-1]), np.moveaxis(K, -1, -2)) + np.log(allowed)
            lse = np.logaddexp.reduce(S, axis=-1, keepdims=True)
            A = np.where(np.isneginf(lse), 0.0, np.exp(S - lse))
        return A @ V, A"""),
    alternative(MASKED, "torch float64 tensors returned as they are", """
        import torch
        q, k, v = (torch.from_numpy(t) for t in (Q, K, V))
        s = torch.einsum("...qd,...kd->...qk", q, k) / q.shape[-1] ** 0.5
        s = torch.where(torch.from_numpy(np.asarray(allowed)), s, torch.tensor(float("-inf"),
                                                                                   dtype=s.dtype))
        a = torch.softmax(s, dim=-1).nan_to_num(0.0)
        return a @ v, a"""),
    alternative(MASKED, "weighted sum by broadcasting, normalised after", """
        S = np.where(allowed, Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1]), -np.inf)
        m = S.max(axis=-1, keepdims=True)
        e = np.exp(S - np.where(np.isneginf(m), 0.0, m))
        total = e.sum(axis=-1, keepdims=True)
        inv = np.divide(1.0, total, out=np.zeros_like(total), where=total > 0)
        Y = (e[..., :, :, None] * V[..., None, :, :]).sum(axis=-2) * inv
        return Y, e * inv"""),
    alternative(MASKED, "a local softmax helper and a namedtuple", """
        from collections import namedtuple

        def softmax(s):
            peak = np.max(s, axis=-1, keepdims=True)
            peak[~np.isfinite(peak)] = 0.0
            w = np.exp(s - peak)
            z = np.sum(w, axis=-1, keepdims=True)
            z[z == 0] = np.inf  # w / inf = 0 for rows with no allowed key
            return w / z

        Out = namedtuple("Out", "Y A")
        A = softmax(np.where(allowed, np.einsum("...id,...jd->...ij", Q, K), -np.inf)
                    / np.sqrt(Q.shape[-1]))
        return Out(A @ V, A)"""),
    alternative(MASKED, "float32 torch.Tensor computation", [
        replace_line("q, k, v = (torch.as_tensor",
                     "q, k, v = torch.Tensor(Q), torch.Tensor(K), torch.Tensor(V)"),
        edit("q @ k.transpose(-1, -2", "(q @ k.transpose(-1, -2)"), edit(")),", ")), -np.inf)"),
        delete('float("-inf"))'), edit("(a @ v).numpy(), a.numpy()", "a @ v, a"),
    ], like="PyTorch softmax on -inf scores, NaN rows set to 0"),
    mistake(MASKED, "a loop over Q's flattened leading axes, K and V indexed alike", """
        lead = np.broadcast_shapes(Q.shape[:-2], np.shape(allowed)[:-2])
        Qf, Kf, Vf = (t.reshape(-1, *t.shape[-2:]) for t in (Q, K, V))
        Mf = np.broadcast_to(allowed, (*lead, Q.shape[-2], K.shape[-2])).reshape(
            -1, Q.shape[-2], K.shape[-2])
        Ys, As = [], []
        for b in range(Qf.shape[0]):
            S = np.where(Mf[b], Qf[b] @ Kf[b].T / np.sqrt(Q.shape[-1]), -np.inf)
            m = S.max(-1, keepdims=True)
            e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
            t = e.sum(-1, keepdims=True)
            a = np.divide(e, t, out=np.zeros_like(e), where=t > 0)
            As.append(a)
            Ys.append(a @ Vf[b])
        return (np.array(Ys).reshape(*lead, Q.shape[-2], V.shape[-1]),
                np.array(As).reshape(*lead, Q.shape[-2], K.shape[-2]))""",
            detects=nb04.HINT_KV_SHARED),
    # -- padding_mask ------------------------------------------------------------------------------
    mistake(PADDING, "lengths off by one (position <= length)",
            "return np.arange(L)[None, :] <= lengths[:, None]", hint=HINT_LENGTHS_OFF_ONE),
    mistake(PADDING, "True and False swapped (True marks the padding)",
            "return np.arange(L)[None, :] >= lengths[:, None]",
            hint="True marks a real token, which may be attended to; padding is False"),
    mistake(PADDING, "padding at the front (left) instead of the end",
            "return np.arange(L)[None, :] >= L - lengths[:, None]",
            hint="messages are right-padded: the real tokens come first"),
    mistake(PADDING, "shape (L, B)", "return np.arange(L)[:, None] < lengths[None, :]",
            detects=nb04.HINT_PADDING_SHAPE),
    mistake(PADDING, "lengths off by one (position < length - 1)",
            "return np.arange(L)[None, :] < lengths[:, None] - 1", hint=HINT_LENGTHS_OFF_ONE),
    mistake(PADDING, "0/1 integers",
            "return (np.arange(L)[None, :] < lengths[:, None]).astype(int)",
            detects=nb04.HINT_BOOL),
    mistake(PADDING, "width taken from the longest message instead of L",
            "return np.arange(lengths.max())[None, :] < lengths[:, None]",
            detects=nb04.HINT_L_COLUMNS),
    mistake(PADDING, "every row built from the first message's length",
            "return np.broadcast_to(np.arange(L) < lengths[0], (len(lengths), L))",
            hint="each message (row b) uses its own length lengths[b]: compare the positions with "
                 "lengths[:, None]"),
    mistake(PADDING, "comparison without new axes", "return np.arange(L) < lengths",
            detects=nb04.HINT_PADDING_BROADCAST),
    mistake(PADDING, "the last message left all False (a loop over range(B - 1))", [
        edit("real =", "M ="), edit(", n in enumerate(lengths", " in range(len(lengths) - 1"),
        edit("real[b, :n", "M[b, :lengths[b]"), edit("real", "M"),
    ], hint=HINT_LAST_MESSAGE, like="fill a boolean array row by row"),
    mistake(PADDING, "hard-coded 4 columns (the worked example's L)",
            "return np.arange(4)[None, :] < lengths[:, None]", detects=nb04.HINT_PADDING_SIZES),
    mistake(PADDING, "np.squeeze drops the batch axis of a single message",
            "return np.squeeze(np.arange(L)[None, :] < lengths[:, None])",
            detects=nb04.HINT_BATCH_AXIS),
    alternative(PADDING, "loop over messages, list input", """
        rows = []
        for n in list(lengths):
            rows.append([t < n for t in range(L)])
        return np.array(rows, dtype=bool).reshape(len(lengths), L)"""),
    alternative(PADDING, "np.less.outer", "return np.less.outer(np.arange(L), lengths).T"),
    alternative(PADDING, "fill a boolean array row by row", """
        real = np.zeros((len(lengths), L), dtype=bool)
        for b, n in enumerate(lengths):
            real[b, :n] = True
        return real"""),
    alternative(PADDING, "lengths compared the other way round",
                "return lengths[:, None] > np.arange(L)"),
    alternative(PADDING, "rows of a (L+1, L) strict lower triangle picked by length",
                "return np.tri(L + 1, L, k=-1, dtype=bool)[lengths]"),
    alternative(PADDING, "torch bool tensor returned as it is", """
        import torch
        return torch.arange(L)[None, :] < torch.as_tensor(lengths)[:, None]"""),
    alternative(PADDING, "cumulative count of positions", """
        count = np.cumsum(np.ones((len(lengths), L), dtype=np.int64), axis=1)  # 1 .. L
        return count <= np.expand_dims(lengths, -1)"""),
    # -- attention_mask ----------------------------------------------------------------------------
    mistake(MASK, "padding taken from the query side instead of the key side",
            edit("[:, None, :]", "[:, :, None]"),
            hint="padding belongs on the KEY side: mask the columns j of padded tokens (real[:, "
                 "None, :]), so no query reads a <PAD> key"),
    mistake(MASK, "padded query rows masked as well as padded keys (only the keys are masked here)",
            edit("[:, None, :]", "[:, None, :] & padding_mask(lengths, L)[:, :, None]"),
            hint="mask only the key side: a padded query row may still read the real keys (its "
                 "output is discarded later by the loss mask)"),
    mistake(MASK, "the causal flag ignored: causal part always applied",
            "return padding_mask(lengths, L)[:, None, :] & causal_mask(L)",
            hint="with causal=False the mask is bidirectional: only padding is blocked; with "
                 "causal=True also block the future (j <= i)"),
    mistake(MASK, "causal and padding combined with OR instead of AND",
            [edit(".astype(int)", ""), edit("*", "|")],
            hint="a key is allowed only if BOTH masks allow it: use &",
            like="0/1 integers from a product"),
    mistake(MASK, "lengths off by one (position <= length)", [
        edit("padding_mask(lengths, L", "(np.arange(L)[None, :] <= lengths[:, None]"),
        edit("|", "&"),
    ], hint="positions count from 0: real keys are j < length",
            like="causal and padding combined with OR instead of AND"),
    mistake(MASK, "np.squeeze drops the batch axis of a single message",
            edit(".copy()", ".squeeze()"), detects=nb04.HINT_BATCH_AXIS),
    mistake(MASK, "broadcast shape (B, 1, L) returned for the encoder", """
        keys = padding_mask(lengths, L)[:, None, :]
        return keys & causal_mask(L) if causal else keys""", detects=nb04.HINT_MASK_SHAPE),
    mistake(MASK, "padding forgotten in the causal branch", edit("keys & ", ""),
            hint="padded keys must be blocked in the decoder too: combine the causal part and the "
                 "key mask with &"),
    mistake(MASK, "diagonal excluded from the causal part (j < i)", [
        replace_line("allowed = keys | causal_mask(L) if causal else keys",
                     "tri = np.tril(np.ones((L, L), dtype=bool), k=-1)\n"
                     "allowed = keys & tri if causal else keys"),
    ], hint="a query may read itself: the causal part is j <= i, diagonal included",
       like="causal and padding combined with OR instead of AND"),
    mistake(MASK, "0/1 integers from a product", """
        keys = padding_mask(lengths, L)[:, None, :].astype(int)
        allowed = keys * causal_mask(L) if causal else keys
        return np.broadcast_to(allowed, (len(lengths), L, L)).copy()""", detects=nb04.HINT_BOOL),
    mistake(MASK, "causal part transposed (j >= i)", edit("| causal_mask(L)", "& causal_mask(L).T"),
            hint="row i is query i; it may read columns j <= i",
            like="causal and padding combined with OR instead of AND"),
    mistake(MASK, "causal and padding masks combined without new axes", [
        edit("[:, None, :]", ""),
        edit("keys = keys & causal_mask(L)[None, :, :]", "return causal_mask(L) & keys"),
        edit(", (", "[:, None, :], (")], detects=nb04.HINT_PIECE_AXES),
    mistake(MASK, "batch size hard-coded to 2 (Message A and Message B)", [
        edit(", :, :", ""), edit("len(lengths)", "2")], detects=nb04.HINT_PIECE_AXES),
    mistake(MASK, "the last message left all False (a loop over range(B - 1))", """
        out = np.zeros((len(lengths), L, L), dtype=bool)
        for b in range(len(lengths) - 1):
            out[b, :, :lengths[b]] = True
            if causal:
                out[b] &= causal_mask(L)
        return out""", hint=HINT_LAST_MESSAGE),
    mistake(MASK, "size taken from max(lengths) instead of L", """
        n = int(max(lengths)) if len(lengths) else L
        keys = padding_mask(lengths, n)[:, None, :]
        if causal:
            keys = keys & causal_mask(n)[None] if n else keys
        return np.broadcast_to(keys, (len(lengths), n, n)).copy()""", detects=nb04.HINT_MASK_SHAPE),
    mistake(MASK, "padding mask inverted (True on the pads)", [
        edit("padding_mask", "~padding_mask"), edit(", :, :", ""),
    ], hint="True marks a real key, which may be read; the <PAD> keys are False"),
    alternative(MASK, "explicit triple comparison with index grids", """
        b_len = lengths[:, None, None]
        i = np.arange(L)[None, :, None]
        j = np.arange(L)[None, None, :]
        allowed = (j < b_len) & ((j <= i) | (not causal))
        return allowed"""),
    alternative(MASK, "a loop over messages", """
        out = np.zeros((len(lengths), L, L), dtype=bool)
        base = causal_mask(L) if causal else np.ones((L, L), dtype=bool)
        for b, n in enumerate(lengths):
            out[b] = base
            out[b, :, n:] = False
        return out"""),
    alternative(MASK, "read-only np.broadcast_to view without a copy", [
        edit("keys & causal_mask(L)[None, :, :]", "np.logical_and(keys, causal_mask(L))"),
        edit(".copy()", "")]),
    alternative(MASK, "np.repeat then an in-place &=", """
        allowed = np.repeat(padding_mask(lengths, L)[:, None, :], L, axis=1)
        if causal:
            allowed &= causal_mask(L)
        return allowed"""),
    alternative(MASK, "einsum of the boolean masks", """
        real = padding_mask(lengths, L)  # (B, L)
        tri = causal_mask(L) if causal else np.ones((L, L), dtype=bool)
        return np.einsum("bj,ij->bij", real, tri)"""),
    alternative(MASK, "torch bool tensors returned as they are", """
        import torch
        keys = torch.arange(L)[None, None, :] < torch.as_tensor(lengths)[:, None, None]
        allowed = keys.expand(len(lengths), L, L)
        if causal:
            allowed = allowed & torch.tril(torch.ones(L, L, dtype=torch.bool))
        return allowed"""),
    alternative(MASK, "np.indices over (B, L, L)", [
        replace_line("allowed = np.repeat(",
                     "b, i, j = np.indices((len(lengths), L, L))\nallowed = j < lengths[b]"),
        edit("causal_mask(L)", "j <= i")], like="np.repeat then an in-place &="),
    alternative(MASK, "np.minimum of booleans, read-only broadcast arrays", """
        keys = padding_mask(lengths, L)[:, None, :]
        tri = causal_mask(L) if causal else np.ones((L, L), dtype=bool)
        keys, tri = np.broadcast_arrays(keys, tri)
        return np.minimum(keys, tri)"""),
    alternative(MASK, "list of per-message matrices stacked", """
        T = np.tril(np.ones((L, L), dtype=bool)) if causal else np.ones((L, L), dtype=bool)
        mats = [T & (np.arange(L) < n)[None, :] for n in lengths]
        return np.stack(mats) if mats else np.zeros((0, L, L), dtype=bool)"""),
    alternative(MASK, "bool flag taken as an int", """
        i, j = np.arange(L)[:, None], np.arange(L)[None, :]
        future_ok = np.full((L, L), not causal)
        return padding_mask(lengths, L)[:, None, :] & ((j <= i) | future_ok)"""),
    # -- concept questions -------------------------------------------------------------------------
    mistake("answer_mask_controls", "thinks the mask says where a token is",
            'answer_mask_controls = "A"', detects=WHY),
    mistake("answer_mask_order", "thinks masking after the softmax is the same",
            'answer_mask_order = "B"', detects=WHY),
    mistake("answer_padding_side", "thinks the causal mask hides left pads",
            'answer_padding_side = "A"', detects=WHY),
    mistake("answer_loss_mask", "thinks pads have zero loss", edit("B", "C"), detects=WHY),
    mistake("answer_encoder_decoder", "thinks next-word prediction may read both sides",
            edit("A", "B"), detects=WHY),
    mistake("answer_shuffled_prefix", "thinks the mask tells a token its index",
            'answer_shuffled_prefix = "B"', detects=WHY),
    alternative("answer_mask_controls", "lower case", 'answer_mask_controls = "c"'),
])
