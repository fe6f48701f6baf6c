"""Notebook 04 catalogue: the mistakes students make, and correct answers written otherwise."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from grader.catalogue import alternative, mistake  # noqa: E402

MISTAKES = [
    # causal_mask
    mistake("causal_mask", "diagonal excluded (j < i)", """
        return np.tril(np.ones((L, L), dtype=bool), k=-1)
    """, hint="the diagonal must be True"),
    mistake("causal_mask", "mask transposed (j >= i)", """
        return np.triu(np.ones((L, L), dtype=bool))
    """, hint="lower triangle"),
    mistake("causal_mask", "True marks the blocked future", """
        i = np.arange(L)
        return i[None, :] > i[:, None]
    """, hint="True means 'may attend'"),
    mistake("causal_mask", "additive 0 / -inf matrix instead of booleans", """
        return np.triu(np.full((L, L), -np.inf), k=1)
    """, hint="additive mask M of the decks"),
    mistake("causal_mask", "0/1 floats instead of booleans", """
        return np.tril(np.ones((L, L)))
    """, hint="return booleans"),
    # masked_attention
    mistake("masked_attention", "mask applied after the softmax", """
        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        e = np.exp(S - S.max(axis=-1, keepdims=True))
        A = e / e.sum(axis=-1, keepdims=True) * allowed
        return A @ V, A
    """, hint="applied after the softmax"),
    mistake("masked_attention", "large finite negative number leaves a fully masked row uniform",
            """
        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        S = np.where(allowed, S, -1e9)
        e = np.exp(S - S.max(axis=-1, keepdims=True))
        A = e / e.sum(axis=-1, keepdims=True)
        return A @ V, A
    """, hint="large finite negative number"),
    mistake("masked_attention", "NaN for a row with no allowed key", """
        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        S = np.where(allowed, S, -np.inf)
        e = np.exp(S - S.max(axis=-1, keepdims=True))
        A = e / e.sum(axis=-1, keepdims=True)
        return A @ V, A
    """, hint="-inf - (-inf) is NaN"),
    mistake("masked_attention", "mask inverted", """
        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        S = np.where(allowed, -np.inf, S)
        m = S.max(axis=-1, keepdims=True)
        e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
        total = e.sum(axis=-1, keepdims=True)
        A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
        return A @ V, A
    """, hint="True means 'may attend'"),
    mistake("masked_attention", "mask multiplied into the scores", """
        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1]) * allowed
        e = np.exp(S - S.max(axis=-1, keepdims=True))
        A = e / e.sum(axis=-1, keepdims=True)
        return A @ V, A
    """, hint="blocked scores must be -inf"),
    mistake("masked_attention", "no 1/sqrt(d_k)", """
        S = np.where(allowed, Q @ np.swapaxes(K, -1, -2), -np.inf)
        m = S.max(axis=-1, keepdims=True)
        e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
        total = e.sum(axis=-1, keepdims=True)
        A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
        return A @ V, A
    """, hint="1/sqrt(d_k)"),
    mistake("masked_attention", "K.T breaks leading axes", """
        S = np.where(allowed, Q @ K.T / np.sqrt(Q.shape[-1]), -np.inf)
        m = S.max(axis=-1, keepdims=True)
        e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
        total = e.sum(axis=-1, keepdims=True)
        A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
        return A @ V, A
    """, hint="leading axes"),
    # padding_mask
    mistake("padding_mask", "lengths off by one (<=)", """
        return np.arange(L)[None, :] <= lengths[:, None]
    """, hint="off by one"),
    mistake("padding_mask", "True marks the padding", """
        return np.arange(L)[None, :] >= lengths[:, None]
    """, hint="True marks a real token"),
    mistake("padding_mask", "left padding", """
        return np.arange(L)[None, :] >= L - lengths[:, None]
    """, hint="right-padded"),
    mistake("padding_mask", "shape (L, B)", """
        return np.arange(L)[:, None] < lengths[None, :]
    """, hint="(B, L)"),
    # attention_mask
    mistake("attention_mask", "padding taken from the query side", """
        queries = padding_mask(lengths, L)[:, :, None]
        allowed = queries & causal_mask(L) if causal else queries
        return np.broadcast_to(allowed, (len(lengths), L, L)).copy()
    """, hint="KEY side"),
    mistake("attention_mask", "padded query rows masked too", """
        real = padding_mask(lengths, L)
        allowed = real[:, :, None] & real[:, None, :]
        if causal:
            allowed = allowed & causal_mask(L)
        return allowed
    """, hint="mask only the key side"),
    mistake("attention_mask", "causal flag ignored", """
        return padding_mask(lengths, L)[:, None, :] & causal_mask(L)
    """, hint="causal=False"),
    mistake("attention_mask", "causal and padding combined with OR", """
        keys = padding_mask(lengths, L)[:, None, :]
        allowed = keys | causal_mask(L) if causal else keys
        return np.broadcast_to(allowed, (len(lengths), L, L)).copy()
    """, hint="BOTH masks"),
    mistake("attention_mask", "lengths off by one", """
        keys = (np.arange(L)[None, :] <= lengths[:, None])[:, None, :]
        allowed = keys & causal_mask(L) if causal else keys
        return np.broadcast_to(allowed, (len(lengths), L, L)).copy()
    """, hint="off by one"),
    mistake("attention_mask", "broadcast shape (B, 1, L) returned for the encoder", """
        keys = padding_mask(lengths, L)[:, None, :]
        return keys & causal_mask(L) if causal else keys
    """, hint="(B, L, L)"),
    # --- added in the adversarial review --------------------------------------------
    mistake("causal_mask", "nothing blocked (all True)", """
        return np.ones((L, L), dtype=bool)
    """, hint="nothing is blocked"),
    mistake("causal_mask", "only the diagonal (np.eye)", """
        return np.eye(L, dtype=bool)
    """, hint="every earlier key"),
    mistake("causal_mask", "tril with k=1 lets each query read the next token", """
        return np.tril(np.ones((L, L), dtype=bool), k=1)
    """, hint="one token into the future"),
    mistake("causal_mask", "comparison without new axes gives a vector", """
        i = np.arange(L)
        return i <= i
    """, hint="(L, L)"),
    mistake("causal_mask", "0/1 integers from np.tri", """
        return np.tri(L, dtype=int)
    """, hint="return booleans"),
    mistake("padding_mask", "lengths off by one (< length - 1)", """
        return np.arange(L)[None, :] < lengths[:, None] - 1
    """, hint="position < length"),
    mistake("padding_mask", "0/1 integers", """
        return (np.arange(L)[None, :] < lengths[:, None]).astype(int)
    """, hint="return booleans"),
    mistake("padding_mask", "width taken from the longest message instead of L", """
        return np.arange(lengths.max())[None, :] < lengths[:, None]
    """, hint="L columns"),
    mistake("padding_mask", "every row built from the first message's length", """
        return np.broadcast_to(np.arange(L) < lengths[0], (len(lengths), L))
    """, hint="its own length"),
    mistake("attention_mask", "causal flag inverted", """
        keys = padding_mask(lengths, L)[:, None, :]
        allowed = keys & causal_mask(L) if not causal else keys
        return np.broadcast_to(allowed, (len(lengths), L, L)).copy()
    """, hint="causal=True"),
    mistake("attention_mask", "padding forgotten in the causal branch", """
        if causal:
            return np.broadcast_to(causal_mask(L), (len(lengths), L, L)).copy()
        return np.broadcast_to(padding_mask(lengths, L)[:, None, :], (len(lengths), L, L)).copy()
    """, hint="padded keys"),
    mistake("attention_mask", "diagonal excluded from the causal part", """
        keys = padding_mask(lengths, L)[:, None, :]
        tri = np.tril(np.ones((L, L), dtype=bool), k=-1)
        allowed = keys & tri if causal else keys
        return np.broadcast_to(allowed, (len(lengths), L, L)).copy()
    """, hint="itself"),
    mistake("attention_mask", "0/1 integers from a product", """
        keys = padding_mask(lengths, L)[:, None, :].astype(int)
        allowed = keys * causal_mask(L) if causal else keys
        return np.broadcast_to(allowed, (len(lengths), L, L)).copy()
    """, hint="return booleans"),
    mistake("attention_mask", "causal part transposed", """
        keys = padding_mask(lengths, L)[:, None, :]
        allowed = keys & causal_mask(L).T if causal else keys
        return np.broadcast_to(allowed, (len(lengths), L, L)).copy()
    """, hint="it may read columns j <= i"),
    mistake("masked_attention", "divided by d_k instead of sqrt(d_k)", """
        S = np.where(allowed, Q @ np.swapaxes(K, -1, -2) / Q.shape[-1], -np.inf)
        m = S.max(axis=-1, keepdims=True)
        e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
        total = e.sum(axis=-1, keepdims=True)
        A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
        return A @ V, A
    """, hint="not by d_k"),
    mistake("masked_attention", "scaled by the number of keys instead of d_k", """
        S = np.where(allowed, Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-2]), -np.inf)
        m = S.max(axis=-1, keepdims=True)
        e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
        total = e.sum(axis=-1, keepdims=True)
        A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
        return A @ V, A
    """, hint="query/key width Q.shape[-1]"),
    mistake("masked_attention", "softmax over the query axis", """
        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        S = np.where(allowed, S, -np.inf)
        m = S.max(axis=-2, keepdims=True)
        e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
        total = e.sum(axis=-2, keepdims=True)
        A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
        return A @ V, A
    """, hint="the last axis"),
    mistake("masked_attention", "returns (A, Y) instead of (Y, A)", """
        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        S = np.where(allowed, S, -np.inf)
        m = S.max(axis=-1, keepdims=True)
        e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
        total = e.sum(axis=-1, keepdims=True)
        A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
        return A, A @ V
    """, hint="return Y, A"),
    mistake("masked_attention", "no max subtraction: large scores overflow", """
        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        e = np.exp(S) * allowed
        total = e.sum(axis=-1, keepdims=True)
        A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
        return A @ V, A
    """, hint="subtract the row maximum"),
    mistake("masked_attention", "allowed transposed (rows read as keys)", """
        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        S = np.where(np.swapaxes(allowed, -1, -2), S, -np.inf)
        m = S.max(axis=-1, keepdims=True)
        e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
        total = e.sum(axis=-1, keepdims=True)
        A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
        return A @ V, A
    """, hint="row i is query i"),
    mistake("masked_attention", "weights returned but Y from the unmasked softmax", """
        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        e = np.exp(S - S.max(axis=-1, keepdims=True))
        Y = (e / e.sum(axis=-1, keepdims=True)) @ V
        S = np.where(allowed, S, -np.inf)
        m = S.max(axis=-1, keepdims=True)
        e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
        total = e.sum(axis=-1, keepdims=True)
        A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
        return Y, A
    """, hint="Y = A @ V"),
    # concept checks
    mistake("answer_mask_controls", "thinks the mask says where a token is",
            'answer_mask_controls = "A"', hint="says nothing about where"),
    mistake("answer_mask_order", "thinks masking after the softmax is the same",
            'answer_mask_order = "B"', hint="sums to less than 1"),
    mistake("answer_padding_side", "thinks real queries read the pads",
            'answer_padding_side = "A"', hint="causal mask already hides them"),
    mistake("answer_loss_mask", "thinks pads have zero loss", 'answer_loss_mask = "C"',
            hint="predict <PAD>"),
    mistake("answer_encoder_decoder", "bidirectional for generation",
            'answer_encoder_decoder = "B"', hint="j <= i"),
    mistake("answer_shuffled_prefix", "thinks the mask tells a token its index",
            'answer_shuffled_prefix = "B"', hint="tells it nothing about where"),
    # --- round 2: computing in float32 is judged at float32 precision, but still caught --
    mistake("masked_attention", "float32 and -1e9 instead of -inf", """
        import torch
        q, k, v = torch.Tensor(Q), torch.Tensor(K), torch.Tensor(V)
        s = (q @ k.transpose(-1, -2)) / q.shape[-1] ** 0.5
        s = s.masked_fill(~torch.as_tensor(np.broadcast_to(allowed, s.shape).copy()), -1e9)
        a = torch.softmax(s, dim=-1)
        return a @ v, a
    """, hint="-1e9"),
    mistake("masked_attention", "float32 and the mask applied after the softmax", """
        import torch
        q, k, v = torch.Tensor(Q), torch.Tensor(K), torch.Tensor(V)
        a = torch.softmax(q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5, dim=-1)
        a = a * torch.as_tensor(np.broadcast_to(allowed, a.shape).copy())
        return a @ v, a
    """, hint="after the softmax"),
]

ALTERNATIVES = [
    alternative("causal_mask", "np.tril of booleans", """
        return np.tril(np.ones((L, L), dtype=bool))
    """),
    alternative("causal_mask", "double loop into a list of lists", """
        return np.array([[j <= i for j in range(L)] for i in range(L)])
    """),
    alternative("causal_mask", "not of the strict upper triangle", """
        return ~np.triu(np.ones((L, L), dtype=bool), k=1)
    """),
    alternative("masked_attention", "softmax, zero the blocked weights, renormalise", """
        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        S = S - S.max(axis=-1, keepdims=True)
        e = np.exp(S) * allowed
        total = e.sum(axis=-1, keepdims=True)
        A = np.where(total > 0, e / np.where(total > 0, total, 1.0), 0.0)
        return A @ V, A
    """),
    alternative("masked_attention", "einsum and nan_to_num", """
        S = np.einsum("...qd,...kd->...qk", Q, K) / Q.shape[-1] ** 0.5
        S = np.where(allowed, S, -np.inf)
        with np.errstate(invalid="ignore"):
            e = np.exp(S - S.max(axis=-1, keepdims=True))
            A = np.nan_to_num(e / e.sum(axis=-1, keepdims=True), nan=0.0)
        return np.einsum("...qk,...kv->...qv", A, V), A
    """),
    alternative("masked_attention", "loop over the rows of the flattened batch", """
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
        return A @ V, A
    """),
    alternative("padding_mask", "loop over messages, list input", """
        rows = []
        for n in list(lengths):
            rows.append([t < n for t in range(L)])
        return np.array(rows, dtype=bool).reshape(len(lengths), L)
    """),
    alternative("padding_mask", "np.less.outer", """
        return np.less.outer(np.arange(L), lengths).T
    """),
    alternative("attention_mask", "explicit triple comparison with index grids", """
        b_len = lengths[:, None, None]
        i = np.arange(L)[None, :, None]
        j = np.arange(L)[None, None, :]
        allowed = (j < b_len) & ((j <= i) | (not causal))
        return allowed
    """),
    alternative("attention_mask", "a loop over messages", """
        out = np.zeros((len(lengths), L, L), dtype=bool)
        base = causal_mask(L) if causal else np.ones((L, L), dtype=bool)
        for b, n in enumerate(lengths):
            out[b] = base
            out[b, :, n:] = False
        return out
    """),
    # --- added in the adversarial review --------------------------------------------
    alternative("causal_mask", "np.tri with dtype bool", """
        return np.tri(L, dtype=bool)
    """),
    alternative("causal_mask", "np.greater_equal.outer", """
        return np.greater_equal.outer(np.arange(L), np.arange(L))
    """),
    alternative("padding_mask", "fill a boolean array row by row", """
        real = np.zeros((len(lengths), L), dtype=bool)
        for b, n in enumerate(lengths):
            real[b, :n] = True
        return real
    """),
    alternative("padding_mask", "lengths compared the other way round", """
        return lengths[:, None] > np.arange(L)
    """),
    alternative("attention_mask", "read-only np.broadcast_to view without a copy", """
        keys = padding_mask(lengths, L)[:, None, :]
        if causal:
            keys = np.logical_and(keys, causal_mask(L))
        return np.broadcast_to(keys, (len(lengths), L, L))
    """),
    alternative("attention_mask", "np.tile and np.where", """
        keys = np.tile(padding_mask(lengths, L)[:, None, :], (1, L, 1))
        return np.where(causal_mask(L), keys, False) if causal else keys
    """),
    alternative("masked_attention", "scale after masking, additive 0/-inf mask", """
        S = Q @ np.swapaxes(K, -1, -2) + np.where(allowed, 0.0, -np.inf)
        S = S / np.sqrt(Q.shape[-1])
        m = S.max(axis=-1, keepdims=True)
        e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
        total = e.sum(axis=-1, keepdims=True)
        A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
        return A @ V, A
    """),
    alternative("masked_attention", "PyTorch softmax on -inf scores, NaN rows set to 0", """
        import torch
        q, k, v = (torch.as_tensor(t, dtype=torch.float64) for t in (Q, K, V))
        s = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
        s = s.masked_fill(~torch.as_tensor(np.broadcast_to(allowed, s.shape).copy()),
                          float("-inf"))
        a = torch.nan_to_num(torch.softmax(s, dim=-1), nan=0.0)
        return (a @ v).numpy(), a.numpy()
    """),
    alternative("masked_attention", "large negative fill, then zero the rows with no key", """
        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        S = np.where(allowed, S, np.finfo(np.float64).min)
        e = np.exp(S - S.max(axis=-1, keepdims=True)) * allowed
        A = e / np.maximum(e.sum(axis=-1, keepdims=True), np.finfo(np.float64).tiny)
        return A @ V, A
    """),
    alternative("masked_attention", "explicit loop over queries with lists", """
        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        mask = np.broadcast_to(allowed, S.shape)
        A = np.zeros(S.shape)
        for idx in np.ndindex(*S.shape[:-1]):
            keep = mask[idx]
            if keep.any():
                w = np.exp(S[idx][keep] - S[idx][keep].max())
                A[idx][keep] = w / w.sum()
        return np.matmul(A, V), A
    """),
    alternative("attention_mask", "np.repeat then an in-place &=", """
        allowed = np.repeat(padding_mask(lengths, L)[:, None, :], L, axis=1)
        if causal:
            allowed &= causal_mask(L)
        return allowed
    """),
    alternative("masked_attention", "numpy masked arrays, returned as a list", """
        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        Sm = np.ma.masked_array(S, mask=~np.broadcast_to(allowed, S.shape))
        e = np.ma.exp(Sm - Sm.max(axis=-1, keepdims=True))
        A = (e / e.sum(axis=-1, keepdims=True)).filled(0.0)
        return [A @ V, A]
    """),
    alternative("answer_mask_controls", "lower case", 'answer_mask_controls = "c"'),
    # --- round 2: more correct answers written other ways --------------------------------
    # causal_mask
    alternative("causal_mask", "torch bool tensor returned as it is", """
        import torch
        return torch.tril(torch.ones(L, L, dtype=torch.bool))
    """),
    alternative("causal_mask", "np.fromfunction on the index grid", """
        return np.fromfunction(lambda i, j: j <= i, (L, L), dtype=int)
    """),
    alternative("causal_mask", "float np.tri compared with 0.5", """
        return np.tri(L) > 0.5
    """),
    alternative("causal_mask", "np.indices", """
        i, j = np.indices((L, L))
        return i >= j
    """),
    alternative("causal_mask", "cumulative sum of the identity down the columns", """
        return np.cumsum(np.eye(L, dtype=int), axis=0).astype(bool)
    """),
    alternative("causal_mask", "transposed upper triangle (a non-contiguous view)", """
        return np.triu(np.ones((L, L), dtype=bool)).T
    """),
    alternative("causal_mask", "difference of positions, read-only", """
        allowed = np.subtract.outer(np.arange(L), np.arange(L)) >= 0
        allowed.flags.writeable = False
        return allowed
    """),
    # padding_mask
    alternative("padding_mask", "rows of a (L+1, L) strict lower triangle picked by length", """
        return np.tri(L + 1, L, k=-1, dtype=bool)[lengths]
    """),
    alternative("padding_mask", "torch bool tensor returned as it is", """
        import torch
        return torch.arange(L)[None, :] < torch.as_tensor(lengths)[:, None]
    """),
    alternative("padding_mask", "np.greater.outer", """
        return np.greater.outer(lengths, np.arange(L))
    """),
    alternative("padding_mask", "difference of length and position is positive", """
        return (lengths.reshape(-1, 1) - np.arange(L)) > 0
    """),
    alternative("padding_mask", "cumulative count of positions", """
        count = np.cumsum(np.ones((len(lengths), L), dtype=np.int64), axis=1)  # 1 .. L
        return count <= np.expand_dims(lengths, -1)
    """),
    alternative("padding_mask", "stacked row per message, fixed shape", """
        rows = [np.arange(L) < int(n) for n in lengths]
        return np.array(rows, dtype=bool).reshape(len(lengths), L)
    """),
    # attention_mask
    alternative("attention_mask", "einsum of the boolean masks", """
        real = padding_mask(lengths, L)  # (B, L)
        tri = causal_mask(L) if causal else np.ones((L, L), dtype=bool)
        return np.einsum("bj,ij->bij", real, tri)
    """),
    alternative("attention_mask", "torch bool tensors returned as they are", """
        import torch
        keys = torch.arange(L)[None, None, :] < torch.as_tensor(lengths)[:, None, None]
        allowed = keys.expand(len(lengths), L, L)
        if causal:
            allowed = allowed & torch.tril(torch.ones(L, L, dtype=torch.bool))
        return allowed
    """),
    alternative("attention_mask", "np.where on the flag and broadcasting", """
        tri = np.where(causal, np.tri(L, dtype=bool), True)  # (L, L)
        return padding_mask(lengths, L)[:, None, :] & tri
    """),
    alternative("attention_mask", "np.indices over (B, L, L)", """
        b, i, j = np.indices((len(lengths), L, L))
        allowed = j < lengths[b]
        if causal:
            allowed &= j <= i
        return allowed
    """),
    alternative("attention_mask", "np.minimum of booleans, read-only broadcast arrays", """
        keys = padding_mask(lengths, L)[:, None, :]
        tri = causal_mask(L) if causal else np.ones((L, L), dtype=bool)
        keys, tri = np.broadcast_arrays(keys, tri)
        return np.minimum(keys, tri)
    """),
    alternative("attention_mask", "list of per-message matrices stacked", """
        T = np.tril(np.ones((L, L), dtype=bool)) if causal else np.ones((L, L), dtype=bool)
        mats = [T & (np.arange(L) < n)[None, :] for n in lengths]
        return np.stack(mats) if mats else np.zeros((0, L, L), dtype=bool)
    """),
    alternative("attention_mask", "bool flag taken as an int", """
        i, j = np.arange(L)[:, None], np.arange(L)[None, :]
        future_ok = np.full((L, L), not causal)
        return padding_mask(lengths, L)[:, None, :] & ((j <= i) | future_ok)
    """),
    # masked_attention
    alternative("masked_attention", "torch SDPA for Y, own weights", """
        import torch
        import torch.nn.functional as F
        q, k, v = (torch.from_numpy(t) for t in (Q, K, V))
        m = torch.from_numpy(np.ascontiguousarray(allowed))
        Y = F.scaled_dot_product_attention(q, k, v, attn_mask=m)
        S = (q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5).masked_fill(~m, float("-inf"))
        A = torch.nan_to_num(torch.softmax(S, dim=-1), nan=0.0)
        return torch.nan_to_num(Y, nan=0.0).numpy(), A.numpy()
    """),
    alternative("masked_attention", "boolean assignment of -inf into broadcast copies", """
        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        S, mask = np.broadcast_arrays(S, allowed)
        S = S.copy()
        S[~mask] = -np.inf
        A = np.zeros(S.shape)
        has_key = mask.any(axis=-1)
        m = np.where(has_key, S.max(axis=-1), 0.0)[..., None]
        e = np.exp(S - m)
        total = e.sum(axis=-1, keepdims=True)
        A = np.where(has_key[..., None], e / np.where(total > 0, total, 1.0), 0.0)
        return A @ V, A
    """),
    alternative("masked_attention", "additive log(allowed) mask and logaddexp", """
        with np.errstate(divide="ignore", invalid="ignore"):
            S = np.matmul(Q / np.sqrt(Q.shape[-1]), np.moveaxis(K, -1, -2)) + np.log(allowed)
            lse = np.logaddexp.reduce(S, axis=-1, keepdims=True)
            A = np.where(np.isneginf(lse), 0.0, np.exp(S - lse))
        return A @ V, A
    """),
    alternative("masked_attention", "torch float64 tensors returned as they are", """
        import torch
        q, k, v = (torch.from_numpy(t) for t in (Q, K, V))
        s = torch.einsum("...qd,...kd->...qk", q, k) / q.shape[-1] ** 0.5
        s = torch.where(torch.from_numpy(np.asarray(allowed)), s, torch.tensor(float("-inf"),
                                                                                   dtype=s.dtype))
        a = torch.softmax(s, dim=-1).nan_to_num(0.0)
        return a @ v, a
    """),
    alternative("masked_attention", "weighted sum by broadcasting, normalised after", """
        S = np.where(allowed, Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1]), -np.inf)
        m = S.max(axis=-1, keepdims=True)
        e = np.exp(S - np.where(np.isneginf(m), 0.0, m))
        total = e.sum(axis=-1, keepdims=True)
        inv = np.divide(1.0, total, out=np.zeros_like(total), where=total > 0)
        Y = (e[..., :, :, None] * V[..., None, :, :]).sum(axis=-2) * inv
        return Y, e * inv
    """),
    alternative("masked_attention", "a local softmax helper and a namedtuple", """
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
        return Out(A @ V, A)
    """),
    alternative("masked_attention", "float32 torch.Tensor computation", """
        import torch
        q, k, v = torch.Tensor(Q), torch.Tensor(K), torch.Tensor(V)
        s = (q @ k.transpose(-1, -2)) / q.shape[-1] ** 0.5
        s = s.masked_fill(~torch.as_tensor(np.broadcast_to(allowed, s.shape).copy()), -np.inf)
        a = torch.nan_to_num(torch.softmax(s, dim=-1), nan=0.0)
        return a @ v, a
    """),
]

# --- round 3: more realistic slips -----------------------------------------------------
_ATTEND = """
    d_k = Q.shape[-1]
    S = {scores}
    S = {masked}
    row_max = {row_max}
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    e = np.exp(S - row_max)
    total = {total}
    A = {weights}
    return A @ V, A
"""


def _attend(scores="Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)",
            masked="np.where(allowed, S, -np.inf)",
            row_max="S.max(axis=-1, keepdims=True)",
            total="e.sum(axis=-1, keepdims=True)",
            weights="np.divide(e, total, out=np.zeros_like(e), where=total > 0)"):
    return _ATTEND.format(scores=scores, masked=masked, row_max=row_max, total=total,
                          weights=weights)


MISTAKES += [
    # causal_mask
    mistake("causal_mask", "hard-coded 4 x 4 (the worked example's size)", """
        return np.tril(np.ones((4, 4), dtype=bool))
    """, hint="from L, not the worked example's size"),
    mistake("causal_mask", "loop fills M[i, :i] (the diagonal left out)", """
        M = np.zeros((L, L), dtype=bool)
        for i in range(L):
            M[i, :i] = True
        return M
    """, hint="itself included"),
    mistake("causal_mask", "loop over range(L - 1) leaves the last row False", """
        M = np.zeros((L, L), dtype=bool)
        for i in range(L - 1):
            M[i, :i + 1] = True
        return M
    """, hint="every row"),
    # padding_mask
    mistake("padding_mask", "comparison without new axes", """
        return np.arange(L) < lengths
    """, hint="lengths[:, None]"),
    mistake("padding_mask", "loop over range(B - 1) leaves the last message False", """
        M = np.zeros((len(lengths), L), dtype=bool)
        for b in range(len(lengths) - 1):
            M[b, :lengths[b]] = True
        return M
    """, hint="every message"),
    mistake("padding_mask", "hard-coded 4 columns (the worked example's L)", """
        return np.arange(4)[None, :] < lengths[:, None]
    """, hint="not the worked example's"),
    mistake("padding_mask", "width taken from len(lengths) (B) instead of L", """
        return np.arange(len(lengths))[None, :] < lengths[:, None]
    """, hint="(B, L)"),
    # attention_mask
    mistake("attention_mask", "causal and padding masks combined without new axes", """
        keys = padding_mask(lengths, L)
        if causal:
            return causal_mask(L) & keys
        return np.broadcast_to(keys[:, None, :], (len(lengths), L, L)).copy()
    """, hint="[:, None, :]"),
    mistake("attention_mask", "encoder branch returns the (B, L) padding mask itself", """
        keys = padding_mask(lengths, L)
        if causal:
            return keys[:, None, :] & causal_mask(L)[None]
        return keys
    """, hint="(B, L, L)"),
    mistake("attention_mask", "batch size hard-coded to 2 (Message A and Message B)", """
        keys = padding_mask(lengths, L)[:, None, :]
        if causal:
            keys = keys & causal_mask(L)[None]
        return np.broadcast_to(keys, (2, L, L)).copy()
    """, hint="never the worked example's sizes"),
    mistake("attention_mask", "loop over range(B - 1) leaves the last message False", """
        out = np.zeros((len(lengths), L, L), dtype=bool)
        for b in range(len(lengths) - 1):
            out[b, :, :lengths[b]] = True
            if causal:
                out[b] &= causal_mask(L)
        return out
    """, hint="every message"),
    mistake("attention_mask", "size taken from max(lengths) instead of L", """
        n = int(max(lengths)) if len(lengths) else L
        keys = padding_mask(lengths, n)[:, None, :]
        if causal:
            keys = keys & causal_mask(n)[None] if n else keys
        return np.broadcast_to(keys, (len(lengths), n, n)).copy()
    """, hint="(B, L, L)"),
    mistake("attention_mask", "padding mask inverted (True on the pads)", """
        keys = ~padding_mask(lengths, L)[:, None, :]
        if causal:
            keys = keys & causal_mask(L)[None]
        return np.broadcast_to(keys, (len(lengths), L, L)).copy()
    """, hint="True marks a real key"),
    # masked_attention
    mistake("masked_attention", "maximum of the whole array instead of each row",
            _attend(row_max="np.max(S[np.isfinite(S)]) if np.isfinite(S).any() else 0.0"),
            hint="each ROW's maximum"),
    mistake("masked_attention", "row maximum without keepdims",
            _attend(row_max="S.max(axis=-1)"), hint="keepdims=True"),
    mistake("masked_attention", "row sum without keepdims",
            _attend(total="e.sum(axis=-1)",
                    weights="np.divide(e, total, out=np.zeros_like(e), where=total > 0)"),
            hint="keepdims=True"),
    mistake("masked_attention", "boolean indexing S[~allowed] breaks a broadcast mask", """
        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        S[~allowed] = -np.inf
        row_max = S.max(axis=-1, keepdims=True)
        row_max = np.where(np.isfinite(row_max), row_max, 0.0)
        e = np.exp(S - row_max)
        total = e.sum(axis=-1, keepdims=True)
        A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
        return A @ V, A
    """, hint="which broadcasts"),
    mistake("masked_attention", "Q scaled in place (Q /= sqrt(d_k))", """
        Q /= np.sqrt(Q.shape[-1])
        S = np.where(allowed, Q @ np.swapaxes(K, -1, -2), -np.inf)
        row_max = S.max(axis=-1, keepdims=True)
        row_max = np.where(np.isfinite(row_max), row_max, 0.0)
        e = np.exp(S - row_max)
        total = e.sum(axis=-1, keepdims=True)
        A = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
        return A @ V, A
    """, hint="in place"),
    mistake("masked_attention", "d_k read from Q.shape[1]",
            _attend(scores="Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[1])"),
            hint="Q.shape[-1]"),
    mistake("masked_attention", "np.dot mixes up leading axes",
            _attend(scores="np.dot(Q, np.swapaxes(K, -1, -2)) / np.sqrt(d_k)"),
            hint="np.dot"),
    mistake("masked_attention", "weights never divided by the row sum",
            _attend(weights="e"), hint="divide by each row's sum"),
    mistake("masked_attention", "additive mask built as (~allowed) * -inf",
            _attend(masked="S + (~allowed) * -np.inf"), hint="0 * -inf is NaN"),
]
