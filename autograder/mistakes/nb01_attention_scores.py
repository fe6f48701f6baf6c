"""Notebook 01 catalogue: the mistakes students make, and correct answers written otherwise."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from grader.catalogue import alternative, mistake  # noqa: E402

MISTAKES = [
    # project_qkv
    mistake("project_qkv", "weights not transposed", """
        return X @ W_Q, X @ W_K, X @ W_V
    """, hint="W_Q.T"),
    mistake("project_qkv", "weight times X instead of X times weight transposed", """
        return W_Q @ X.T, W_K @ X.T, W_V @ X.T
    """, hint="one row per token"),
    mistake("project_qkv", "Q and K returned in swapped order", """
        return X @ W_K.T, X @ W_Q.T, X @ W_V.T
    """, hint="(Q, K, V) in that order"),
    mistake("project_qkv", "W_Q used for every projection", """
        Q = X @ W_Q.T
        return Q, Q, Q
    """, hint="use W_K for K"),
    # score_matrix
    mistake("score_matrix", "no 1/sqrt(d_k)", """
        return Q @ K.T
    """, hint="divide Q K^T by sqrt(d_k)"),
    mistake("score_matrix", "divided by d_k", """
        return Q @ K.T / Q.shape[-1]
    """, hint="spread grows like sqrt(d_k)"),
    mistake("score_matrix", "scaled by the number of tokens", """
        return Q @ K.T / np.sqrt(Q.shape[0])
    """, hint="not Q.shape[0]"),
    mistake("score_matrix", "scores transposed", """
        return K @ Q.T / np.sqrt(Q.shape[-1])
    """, hint="row l of S belongs to query l"),
    mistake("score_matrix", "multiplied by sqrt(d_k)", """
        return Q @ K.T * np.sqrt(Q.shape[-1])
    """, hint="shrinks the scores"),
    # softmax_rows
    mistake("softmax_rows", "softmax over the wrong axis", """
        e = np.exp(S - S.max(axis=0, keepdims=True))
        return e / e.sum(axis=0, keepdims=True)
    """, hint="axis=-1"),
    mistake("softmax_rows", "overflows on large scores (no max subtraction)", """
        e = np.exp(S)
        return e / e.sum(axis=-1, keepdims=True)
    """, hint="subtract each row's own maximum"),
    mistake("softmax_rows", "NaN for a row of -inf", """
        e = np.exp(S - S.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    """, hint="all-zero weights"),
    mistake("softmax_rows", "global maximum instead of each row's", """
        e = np.exp(S - S.max())
        return e / e.sum(axis=-1, keepdims=True)
    """, hint="not the maximum of the whole array"),
    mistake("softmax_rows", "keepdims forgotten", """
        m = S.max(axis=-1)
        m = np.where(np.isfinite(m), m, 0.0)
        e = np.exp(S - m)
        return e / e.sum(axis=-1)
    """, hint="keepdims=True"),
    mistake("softmax_rows", "normalised over the whole array", """
        e = np.exp(S - S.max())
        return e / e.sum()
    """, hint="sum over axis=-1"),
    mistake("softmax_rows", "changes its input in place", """
        m = S.max(axis=-1, keepdims=True)
        S -= np.where(np.isfinite(m), m, 0.0)
        np.exp(S, out=S)
        total = S.sum(axis=-1, keepdims=True)
        return np.divide(S, total, out=np.zeros_like(S), where=total > 0)
    """, hint="in place"),
    mistake("softmax_rows", "only works on 2-D input", """
        out = np.zeros_like(S)
        for i in range(S.shape[0]):
            row = S[i]
            m = row.max() if np.isfinite(row.max()) else 0.0
            e = np.exp(row - m)
            out[i] = e / e.sum() if e.sum() > 0 else 0.0
        return out
    """, hint="leading axes"),
    # attention
    mistake("attention", "no 1/sqrt(d_k) in attention", """
        A = softmax_rows(Q @ K.T)
        return A @ V, A
    """, hint="scale the scores by 1/sqrt(d_k)"),
    mistake("attention", "weights transposed", """
        A = softmax_rows(score_matrix(Q, K))
        return A.T @ V, A
    """, hint="Y = A @ V"),
    mistake("attention", "returns (A, Y)", """
        A = softmax_rows(score_matrix(Q, K))
        return A, A @ V
    """, hint="return Y, A"),
    mistake("attention", "softmax over the key axis (columns)", """
        S = score_matrix(Q, K)
        e = np.exp(S - S.max(axis=0, keepdims=True))
        A = e / e.sum(axis=0, keepdims=True)
        return A @ V, A
    """, hint="a row of A"),
    mistake("attention", "divided by d_k", """
        A = softmax_rows(Q @ K.T / Q.shape[-1])
        return A @ V, A
    """, hint="not d_k"),
    # --- added in the adversarial review -------------------------------------------------
    # project_qkv
    mistake("project_qkv", "W_K copied for V", """
        return X @ W_Q.T, X @ W_K.T, X @ W_K.T
    """, hint="use W_V for V"),
    mistake("project_qkv", "W_Q copied for K", """
        return X @ W_Q.T, X @ W_Q.T, X @ W_V.T
    """, hint="use W_K for K"),
    mistake("project_qkv", "queries already scaled by 1/sqrt(d_k)", """
        d_k = W_Q.shape[0]
        return X @ W_Q.T / np.sqrt(d_k), X @ W_K.T, X @ W_V.T
    """, hint="belongs to score_matrix"),
    mistake("project_qkv", "returns one stacked array", """
        return np.stack([X @ W_Q.T, X @ W_K.T, X @ W_V.T])
    """, hint="return Q, K, V"),
    mistake("project_qkv", "forgets V", """
        return X @ W_Q.T, X @ W_K.T
    """, hint="return Q, K, V"),
    # score_matrix
    mistake("score_matrix", "keys not transposed (Q @ K)", """
        return Q @ K / np.sqrt(Q.shape[-1])
    """, hint="Q @ K.T"),
    mistake("score_matrix", "Q.T @ K (feature by feature)", """
        return Q.T @ K / np.sqrt(Q.shape[-1])
    """, hint="one row per query and one column per key"),
    mistake("score_matrix", "row-wise products only (the diagonal)", """
        return (Q * K).sum(axis=-1) / np.sqrt(Q.shape[-1])
    """, hint="one row per query and one column per key"),
    mistake("score_matrix", "scaled by the number of keys", """
        return Q @ K.T / np.sqrt(len(K))
    """, hint="not the number of keys"),
    mistake("score_matrix", "operator precedence: d_k ** 1/2", """
        return Q @ K.T / Q.shape[-1] ** 1 / 2
    """, hint="** binds tighter than /"),
    mistake("score_matrix", "softmax applied already", """
        S = Q @ K.T / np.sqrt(Q.shape[-1])
        e = np.exp(S - S.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    """, hint="raw scaled scores"),
    # softmax_rows
    mistake("softmax_rows", "axis=1 instead of the last axis", """
        m = S.max(axis=1, keepdims=True)
        m = np.where(np.isfinite(m), m, 0.0)
        e = np.exp(S - m)
        total = e.sum(axis=1, keepdims=True)
        return np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    """, hint="axis=-1"),
    mistake("softmax_rows", "subtracts the row minimum", """
        m = S.min(axis=-1, keepdims=True)
        m = np.where(np.isfinite(m), m, 0.0)
        e = np.exp(S - m)
        total = e.sum(axis=-1, keepdims=True)
        return np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    """, hint="MAXIMUM"),
    mistake("softmax_rows", "subtracts the row mean", """
        finite = np.where(np.isfinite(S), S, np.nan)
        m = np.nan_to_num(np.nanmean(finite, axis=-1, keepdims=True))
        e = np.exp(S - m)
        total = e.sum(axis=-1, keepdims=True)
        return np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    """, hint="MAXIMUM"),
    mistake("softmax_rows", "-inf replaced by -1e9 (masked row becomes uniform)", """
        S = np.where(np.isneginf(S), -1e9, S)
        e = np.exp(S - S.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    """, hint="a row of only -inf is all zeros"),
    mistake("softmax_rows", "transpose trick that only works in 2-D", """
        m = S.max(axis=-1)
        m = np.where(np.isfinite(m), m, 0.0)
        e = np.exp(S.T - m).T
        total = e.sum(axis=-1)
        return (np.divide(e.T, total, out=np.zeros_like(e.T), where=total > 0)).T
    """, hint="leading axes"),
    mistake("softmax_rows", "plain exp normalised, NaN turned into zeros", """
        e = np.exp(S)
        return np.nan_to_num(e / e.sum(axis=-1, keepdims=True))
    """, hint="subtract each row's own maximum"),
    # attention
    mistake("attention", "scaled twice (score_matrix, then sqrt(d_k) again)", """
        A = softmax_rows(score_matrix(Q, K) / np.sqrt(Q.shape[-1]))
        return A @ V, A
    """, hint="score_matrix already scales"),
    mistake("attention", "returns the scores instead of the weights", """
        S = score_matrix(Q, K)
        A = softmax_rows(S)
        return A @ V, S
    """, hint="not the scores"),
    mistake("attention", "values taken from K", """
        A = softmax_rows(score_matrix(Q, K))
        return A @ K, A
    """, hint="mixes the values"),
    mistake("attention", "queries matched against themselves", """
        A = softmax_rows(score_matrix(Q, Q))
        return A @ V, A
    """, hint="queries against the keys"),
    mistake("attention", "normalised over the whole score matrix", """
        S = score_matrix(Q, K)
        e = np.exp(S - S.max())
        A = e / e.sum()
        return A @ V, A
    """, hint="each query's weights"),
    mistake("attention", "output scaled instead of the scores", """
        A = softmax_rows(Q @ K.T)
        return A @ V / np.sqrt(Q.shape[-1]), A
    """, hint="before the softmax"),
    mistake("attention", "returns only Y", """
        return softmax_rows(score_matrix(Q, K)) @ V
    """, hint="return Y, A"),
    # concept checks
    mistake("answer_q_shape", "picked (2, 4)", 'answer_q_shape = "A"', hint="one row per token"),
    mistake("answer_score_entry", "forgets the scaling", 'answer_score_entry = "B"',
            hint="forgets the scaling"),
    mistake("answer_scale", "thinks softmax ignores a factor", 'answer_scale = "A"',
            hint="sharpens"),
    mistake("answer_permutation", "thinks the output changes", 'answer_permutation = "C"',
            hint="rows move with the tokens"),
    # --- round 2: computing in float32 is judged at float32 precision, but still caught --
    mistake("score_matrix", "float32 and no 1/sqrt(d_k)", """
        import torch
        return torch.Tensor(Q) @ torch.Tensor(K).T
    """, hint="divide Q K^T by sqrt(d_k)"),
    mistake("softmax_rows", "float32 and softmax over the wrong axis", """
        import torch
        return torch.nan_to_num(torch.softmax(torch.Tensor(S), dim=0), nan=0.0)
    """, hint="axis=-1"),
    mistake("attention", "float32 and weights transposed", """
        import torch
        q, k, v = torch.Tensor(Q), torch.Tensor(K), torch.Tensor(V)
        A = torch.softmax(q @ k.T / q.shape[-1] ** 0.5, dim=-1)
        return A.T @ v, A
    """, hint="Y = A @ V"),
    mistake("project_qkv", "float32 and the queries scaled by 1/sqrt(d_k)", """
        import torch
        x = torch.Tensor(X)
        q = x @ torch.Tensor(W_Q).T / W_Q.shape[0] ** 0.5
        return q, x @ torch.Tensor(W_K).T, x @ torch.Tensor(W_V).T
    """, hint="belongs to score_matrix"),
]

ALTERNATIVES = [
    alternative("project_qkv", "einsum", """
        Q = np.einsum("ld,kd->lk", X, W_Q)
        K = np.einsum("ld,kd->lk", X, W_K)
        V = np.einsum("ld,vd->lv", X, W_V)
        return Q, K, V
    """),
    alternative("project_qkv", "transpose of the column form, as a list", """
        return [(W_Q @ X.T).T, (W_K @ X.T).T, (W_V @ X.T).T]
    """),
    alternative("score_matrix", "loop over every pair", """
        L_q, L_k, d_k = Q.shape[0], K.shape[0], Q.shape[1]
        S = np.zeros((L_q, L_k))
        for i in range(L_q):
            for j in range(L_k):
                S[i, j] = sum(Q[i, t] * K[j, t] for t in range(d_k)) / d_k ** 0.5
        return S
    """),
    alternative("score_matrix", "scale the queries first", """
        return (Q / np.sqrt(Q.shape[1])) @ np.transpose(K)
    """),
    alternative("softmax_rows", "log-sum-exp form", """
        m = np.max(S, axis=-1, keepdims=True)
        m = np.where(np.isneginf(m), 0.0, m)
        total = np.sum(np.exp(S - m), axis=-1, keepdims=True)
        with np.errstate(divide="ignore"):
            log_total = np.log(total)
        A = np.exp(S - m - log_total)
        return np.nan_to_num(A, nan=0.0)
    """),
    alternative("softmax_rows", "apply_along_axis with a masked-row special case", """
        def one_row(row):
            if np.all(np.isneginf(row)):
                return np.zeros_like(row)
            e = np.exp(row - row.max())
            return e / e.sum()
        return np.apply_along_axis(one_row, -1, S)
    """),
    alternative("attention", "einsum with the weights", """
        A = softmax_rows(score_matrix(Q, K))
        return np.einsum("qk,kv->qv", A, V), A
    """),
    alternative("attention", "scale inside, own softmax", """
        S = (Q @ K.T) * (1.0 / np.sqrt(K.shape[-1]))
        e = np.exp(S - S.max(axis=1, keepdims=True))
        A = e / e.sum(axis=1, keepdims=True)
        return (A @ V, A)
    """),
    # --- added in the adversarial review -------------------------------------------------
    alternative("project_qkv", "matmul of the transposed weights, float copies", """
        X = np.array(X, dtype=float)
        return (np.matmul(X, np.transpose(W_Q)), np.matmul(X, np.transpose(W_K)),
                np.matmul(X, np.transpose(W_V)))
    """),
    alternative("project_qkv", "row by row", """
        Q = np.stack([W_Q @ x for x in X])
        K = np.stack([W_K @ x for x in X])
        V = np.stack([W_V @ x for x in X])
        return Q, K, V
    """),
    alternative("score_matrix", "einsum, scaled keys", """
        return np.einsum("qd,kd->qk", Q, K / np.sqrt(K.shape[1]))
    """),
    alternative("score_matrix", "through torch", """
        import torch
        q, k = torch.as_tensor(Q), torch.as_tensor(K)
        return (q @ k.T / q.shape[-1] ** 0.5).numpy()
    """),
    alternative("softmax_rows", "max subtraction, then nan_to_num", """
        with np.errstate(invalid="ignore"):
            e = np.exp(S - S.max(axis=-1, keepdims=True))
            A = e / e.sum(axis=-1, keepdims=True)
        return np.nan_to_num(A, nan=0.0)
    """),
    alternative("softmax_rows", "tiny epsilon in the denominator", """
        m = S.max(axis=-1, keepdims=True)
        e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
        return e / (e.sum(axis=-1, keepdims=True) + 1e-12)
    """),
    alternative("softmax_rows", "torch.softmax with zeroed masked rows", """
        import torch
        t = torch.as_tensor(np.array(S, dtype=np.float64))
        A = torch.softmax(t, dim=-1)
        return torch.nan_to_num(A, nan=0.0).numpy()
    """),
    alternative("softmax_rows", "in place on a copy, reshaped to 2-D", """
        A = np.array(S, dtype=np.float64).reshape(-1, S.shape[-1])
        for row in A:
            m = row.max()
            if np.isneginf(m):
                row[:] = 0.0
                continue
            row -= m
            np.exp(row, out=row)
            row /= row.sum()
        return A.reshape(S.shape)
    """),
    alternative("attention", "loop over queries, weighted sum of values", """
        Y, A = [], []
        for q in Q:
            s = K @ q / np.sqrt(len(q))
            a = np.exp(s - s.max())
            a = a / a.sum()
            A.append(a)
            Y.append(sum(w * v for w, v in zip(a, V)))
        return np.array(Y), np.array(A)
    """),
    alternative("attention", "torch scaled_dot_product_attention for Y", """
        import torch
        import torch.nn.functional as F
        q, k, v = (torch.as_tensor(np.asarray(t, dtype=np.float64)) for t in (Q, K, V))
        Y = F.scaled_dot_product_attention(q[None], k[None], v[None])[0]
        A = torch.softmax(q @ k.T / q.shape[-1] ** 0.5, dim=-1)
        return Y.numpy(), A.numpy()
    """),
    alternative("answer_q_shape", "lower case", 'answer_q_shape = "b"'),
    # --- round 2: more correct answers written other ways --------------------------------
    # project_qkv
    alternative("project_qkv", "torch float64 tensors returned as they are", """
        import torch
        x = torch.from_numpy(X)
        return x @ torch.from_numpy(W_Q).T, x @ torch.from_numpy(W_K).T, x @ torch.from_numpy(W_V).T
    """),
    alternative("project_qkv", "np.inner against each weight matrix", """
        return np.inner(X, W_Q), np.inner(X, W_K), np.inner(X, W_V)
    """),
    alternative("project_qkv", "one stacked weight matrix, outputs sliced as views", """
        d_k = W_Q.shape[0]
        stacked = X @ np.concatenate([W_Q, W_K, W_V]).T  # (L, 2 d_k + d_v)
        return stacked[:, :d_k], stacked[:, d_k:2 * d_k], stacked[:, 2 * d_k:]
    """),
    alternative("project_qkv", "a namedtuple of read-only arrays", """
        from collections import namedtuple
        QKV = namedtuple("QKV", "Q K V")
        out = []
        for W in (W_Q, W_K, W_V):
            P = np.tensordot(X, W, axes=([1], [1]))
            P.setflags(write=False)
            out.append(P)
        return QKV(*out)
    """),
    alternative("project_qkv", "tuple from a generator over the weights", """
        return tuple(np.dot(X, W.T) for W in (W_Q, W_K, W_V))
    """),
    alternative("project_qkv", "nested Python loops into lists of lists", """
        def project(W):
            return [[sum(x[j] * w[j] for j in range(len(x))) for w in W] for x in X]
        return project(W_Q), project(W_K), project(W_V)
    """),
    alternative("project_qkv", "float32 torch.Tensor computation", """
        import torch
        x = torch.Tensor(X)
        return tuple(x @ torch.Tensor(W).T for W in (W_Q, W_K, W_V))
    """),
    # score_matrix
    alternative("score_matrix", "np.inner times 1 / math.sqrt", """
        import math
        return np.inner(Q, K) * (1.0 / math.sqrt(Q.shape[1]))
    """),
    alternative("score_matrix", "torch float64 tensor returned as it is", """
        import torch
        q, k = torch.from_numpy(Q), torch.from_numpy(K)
        return torch.matmul(q, k.transpose(0, 1)) / torch.sqrt(torch.tensor(float(k.shape[-1])))
    """),
    alternative("score_matrix", "both sides scaled by d_k ** -0.25, einsum", """
        c = Q.shape[-1] ** -0.25
        return np.einsum("id,jd->ij", c * Q, c * K)
    """),
    alternative("score_matrix", "column by column, in place division", """
        S = np.empty((Q.shape[0], K.shape[0]), order="F")
        for j, k in enumerate(K):
            S[:, j] = Q @ k
        S /= np.sqrt(K.shape[1])
        return S
    """),
    alternative("score_matrix", "transpose of K Q^T, a non-contiguous view", """
        return (K @ Q.T).T / np.sqrt(Q.shape[-1])
    """),
    alternative("score_matrix", "list of lists of Python floats", """
        import math
        d_k = len(Q[0])
        return [[float(np.dot(q, k)) / math.sqrt(d_k) for k in K] for q in Q]
    """),
    alternative("score_matrix", "float32 torch.Tensor computation", """
        import torch
        q, k = torch.Tensor(Q), torch.Tensor(K)
        return q @ k.T / q.shape[-1] ** 0.5
    """),
    # softmax_rows
    alternative("softmax_rows", "torch softmax, NaN rows zeroed, tensor returned", """
        import torch
        A = torch.nn.functional.softmax(torch.from_numpy(S), dim=-1)
        return torch.where(torch.isnan(A), torch.zeros_like(A), A)
    """),
    alternative("softmax_rows", "log-sum-exp with np.logaddexp.reduce", """
        lse = np.logaddexp.reduce(S, axis=-1, keepdims=True)  # -inf for an all -inf row
        safe = np.where(np.isneginf(lse), 0.0, lse)
        return np.where(np.isneginf(lse), 0.0, np.exp(S - safe))
    """),
    alternative("softmax_rows", "numpy masked array over the -inf entries", """
        Sm = np.ma.masked_invalid(S)
        e = np.ma.exp(Sm - Sm.max(axis=-1, keepdims=True))
        return np.ma.filled(e / e.sum(axis=-1, keepdims=True), 0.0)
    """),
    alternative("softmax_rows", "recursion over the leading axis", """
        if S.ndim > 1:
            return np.array([softmax_rows(row) for row in S])
        if np.all(np.isneginf(S)):
            return np.zeros_like(S)
        e = np.exp(S - np.max(S))
        return e / np.sum(e)
    """),
    alternative("softmax_rows", "last axis moved to the front", """
        T = np.moveaxis(S, -1, 0)  # (L_k, ...)
        m = T.max(axis=0)
        m = np.where(np.isfinite(m), m, 0.0)
        e = np.exp(T - m)
        total = e.sum(axis=0)
        A = e * np.divide(1.0, total, out=np.zeros_like(total), where=total > 0)
        return np.moveaxis(A, 0, -1)
    """),
    alternative("softmax_rows", "exp of -inf entries skipped with np.where, in place on a copy", """
        m = np.max(S, axis=-1, keepdims=True)
        A = np.where(np.isneginf(S), 0.0, np.exp(S - np.where(np.isneginf(m), 0.0, m)))
        total = A.sum(axis=-1, keepdims=True)
        A /= np.where(total == 0.0, 1.0, total)
        return A
    """),
    alternative("softmax_rows", "nested loops over np.ndindex of the leading axes", """
        import math
        A = np.zeros(S.shape)
        for idx in np.ndindex(*S.shape[:-1]):
            row = S[idx]
            m = max(row)
            if m == -math.inf:
                continue
            e = [math.exp(s - m) for s in row]
            A[idx] = [x / math.fsum(e) for x in e]
        return A
    """),
    alternative("softmax_rows", "float32 torch.Tensor computation", """
        import torch
        return torch.nan_to_num(torch.softmax(torch.Tensor(S), dim=-1), nan=0.0)
    """),
    # attention
    alternative("attention", "returns a list [Y, A]", """
        A = softmax_rows(score_matrix(Q, K))
        return [A @ V, A]
    """),
    alternative("attention", "torch float64 tensors returned as they are", """
        import math
        import torch
        q, k, v = (torch.from_numpy(t) for t in (Q, K, V))
        A = torch.softmax(q @ k.T / math.sqrt(q.shape[1]), dim=1)
        return A @ v, A
    """),
    alternative("attention", "normalised after the product with the values", """
        S = Q @ K.T / np.sqrt(Q.shape[-1])
        e = np.exp(S - S.max(axis=-1, keepdims=True))
        total = e.sum(axis=-1, keepdims=True)
        return (e @ V) / total, e / total
    """),
    alternative("attention", "one query at a time through score_matrix", """
        rows = [softmax_rows(score_matrix(q[None, :], K))[0] for q in Q]
        A = np.vstack(rows)
        return np.linalg.multi_dot([A, V]) if V.shape[1] else A @ V, A
    """),
    alternative("attention", "broadcast weighted sum of value rows", """
        A = softmax_rows(score_matrix(Q, K))
        Y = (A[:, :, None] * V[None, :, :]).sum(axis=1)
        return Y, A
    """),
    alternative("attention", "transposed product and read-only results", """
        A = softmax_rows(score_matrix(Q, K))
        Y = (V.T @ A.T).T  # a Fortran-ordered view
        A.setflags(write=False)
        return Y, A
    """),
    alternative("attention", "float32 torch.Tensor computation", """
        import torch
        q, k, v = torch.Tensor(Q), torch.Tensor(K), torch.Tensor(V)
        A = torch.softmax(q @ k.T / q.shape[-1] ** 0.5, dim=-1)
        return A @ v, A
    """),
    alternative("project_qkv", "np.matrix products", """
        Xm = np.asmatrix(X)
        return Xm * np.asmatrix(W_Q).T, Xm * np.asmatrix(W_K).T, Xm * np.asmatrix(W_V).T
    """),
    alternative("project_qkv", "torch tensors that require grad", """
        import torch
        x = torch.from_numpy(X).requires_grad_()
        return tuple(x @ torch.from_numpy(W).T for W in (W_Q, W_K, W_V))
    """),
    alternative("score_matrix", "np.matrix product", """
        return np.asmatrix(Q) * np.asmatrix(K).T / np.sqrt(Q.shape[1])
    """),
    alternative("softmax_rows", "extended precision (np.longdouble), cast back", """
        T = S.astype(np.longdouble)
        m = T.max(axis=-1, keepdims=True)
        e = np.exp(T - np.where(np.isfinite(m), m, 0))
        total = e.sum(axis=-1, keepdims=True)
        return (e / np.where(total > 0, total, 1)).astype(np.float64)
    """),
    alternative("attention", "extended precision (np.longdouble) kept", """
        q, k, v = (t.astype(np.longdouble) for t in (Q, K, V))
        S = q @ k.T / np.sqrt(np.longdouble(q.shape[-1]))
        e = np.exp(S - S.max(axis=-1, keepdims=True))
        A = e / e.sum(axis=-1, keepdims=True)
        return A @ v, A
    """),
    alternative("softmax_rows", "pairwise form a_i = 1 / sum_j exp(s_j - s_i)", """
        with np.errstate(invalid="ignore", over="ignore"):
            diff = S[..., None, :] - S[..., :, None]  # (..., L_k, L_k): s_j - s_i
            A = 1.0 / np.exp(diff).sum(axis=-1)
        return np.nan_to_num(A, nan=0.0)
    """),
    alternative("attention", "np.average of the values with each query's weights", """
        A = softmax_rows(score_matrix(Q, K))
        Y = np.array([np.average(V, axis=0, weights=a) for a in A])
        return Y.reshape(len(Q), V.shape[1]), A
    """),
]

# --- round 3: more realistic slips -----------------------------------------------------
_SOFTMAX = """
    row_max = {row_max}
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    e = np.exp(S - row_max)
    total = {total}
    return {result}
"""


def _softmax(row_max="S.max(axis=-1, keepdims=True)", total="e.sum(axis=-1, keepdims=True)",
             result="np.divide(e, total, out=np.zeros_like(e), where=total > 0)"):
    return _SOFTMAX.format(row_max=row_max, total=total, result=result)


MISTAKES += [
    # project_qkv
    mistake("project_qkv", "elementwise * instead of the matrix product", """
        return X * W_Q, X * W_K, X * W_V
    """, hint="not * (elementwise)"),
    mistake("project_qkv", "K returned transposed, ready for the score", """
        return X @ W_Q.T, W_K @ X.T, X @ W_V.T
    """, hint="one row per token"),
    mistake("project_qkv", "V left as X (no value projection)", """
        return X @ W_Q.T, X @ W_K.T, X
    """, hint="V = X @ W_V.T"),
    # score_matrix
    mistake("score_matrix", "floor division // by sqrt(d_k)", """
        return Q @ K.T // np.sqrt(Q.shape[-1])
    """, hint="not //"),
    mistake("score_matrix", "cosine similarity instead of the dot product", """
        Qn = Q / np.linalg.norm(Q, axis=-1, keepdims=True)
        Kn = K / np.linalg.norm(K, axis=-1, keepdims=True)
        return Qn @ Kn.T / np.sqrt(Q.shape[-1])
    """, hint="vector norms"),
    mistake("score_matrix", "hard-coded sqrt(3) (the worked example's d_k)", """
        return Q @ K.T / np.sqrt(3)
    """, hint="query/key width Q.shape[-1]"),
    # softmax_rows
    mistake("softmax_rows", "row maximum but column sums", _softmax(
        total="e.sum(axis=0, keepdims=True)"), hint="the sum as well as the max"),
    mistake("softmax_rows", "max over axis=1 (right only in 2-D)", _softmax(
        row_max="S.max(axis=1, keepdims=True)"), hint="the sum as well as the max"),
    mistake("softmax_rows", "log-softmax returned", """
        row_max = S.max(axis=-1, keepdims=True)
        row_max = np.where(np.isfinite(row_max), row_max, 0.0)
        e = np.exp(S - row_max)
        total = e.sum(axis=-1, keepdims=True)
        with np.errstate(divide="ignore"):
            return np.where(total > 0, S - row_max - np.log(np.where(total > 0, total, 1.0)),
                            0.0)
    """, hint="not their logarithms"),
    mistake("softmax_rows", "exponentials never divided by the row sum",
            _softmax(result="e"), hint="divide by the sum of its own row"),
    mistake("softmax_rows", "-inf scores replaced by 0 before exp", """
        S = np.where(np.isinf(S), 0.0, S)
        row_max = S.max(axis=-1, keepdims=True)
        e = np.exp(S - row_max)
        return e / e.sum(axis=-1, keepdims=True)
    """, hint="leave it as -inf"),
    # attention
    mistake("attention", "V @ A instead of A @ V", """
        A = softmax_rows(score_matrix(Q, K))
        return V @ A, A
    """, hint="Y = A @ V"),
    mistake("attention", "score_matrix(K, Q): arguments swapped", """
        A = softmax_rows(score_matrix(K, Q))
        return A @ V, A
    """, hint="queries first"),
    mistake("attention", "Y transposed", """
        A = softmax_rows(score_matrix(Q, K))
        return (A @ V).T, A
    """, hint="one row per query"),
]

# Structural slips: the body written, but no `return`, or the stub's raise left in place.
MISTAKES += [
    mistake("score_matrix", "no return: the scores computed and dropped", """
        S = Q @ K.T / np.sqrt(Q.shape[-1])
    """, hint="returned None"),
    mistake("softmax_rows", "the stub's raise left above the written body", """
        raise NotImplementedError()
        row_max = S.max(axis=-1, keepdims=True)
        e = np.exp(S - np.where(np.isfinite(row_max), row_max, 0.0))
        total = e.sum(axis=-1, keepdims=True)
        return np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    """, hint="delete the `raise NotImplementedError()` line"),
]
