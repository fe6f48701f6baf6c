"""Notebook 01's mistake catalogue, one section per graded function (see grader/catalogue.py)."""

from grader.catalogue import alternative, catalogue, delete, edit, explained, mistake, replace_line

from attnbook.checks import HINT_IN_PLACE, HINT_LEFTOVER, HINT_NO_RETURN, nb01

WHY = explained("01_attention_scores")  # detects=WHY: the question's explanation

QKV, SCORES, SOFTMAX, ATTENTION = "project_qkv", "score_matrix", "softmax_rows", "attention"

# hints that several entries give
HINT_QUERIES_SCALED = ("the 1/sqrt(d_k) belongs to score_matrix: project_qkv returns the plain "
                       "projections Q = X @ W_Q.T")
HINT_REDUCE_OVER_LAST_AXIS = ("reduce over the last axis, axis=-1 with keepdims=True, for the sum "
                              "as well as the max (axis=0 or axis=1 is another axis once S has "
                              "leading axes)")
HINT_WEIGHTS_TRANSPOSED = "Y = A @ V: row l of Y mixes the values with query l's weights"


MISTAKES, ALTERNATIVES = catalogue([
    # -- project_qkv -------------------------------------------------------------------------------
    mistake(QKV, "weights not transposed (X @ W_Q instead of X @ W_Q.T)",
            "return X @ W_Q, X @ W_K, X @ W_V",
            hint="W_Q has shape (d_k, d): each ROW is one query direction, so Q = X @ W_Q.T"),
    mistake(QKV, "only W_K not transposed (K = X @ W_K)", "return X @ W_Q.T, X @ W_K, X @ W_V.T",
            hint="W_K has shape (d_k, d): each ROW is one key direction, so K = X @ W_K.T"),
    mistake(QKV, "only W_V not transposed (V = X @ W_V)", "return X @ W_Q.T, X @ W_K.T, X @ W_V",
            hint="W_V has shape (d_v, d): each ROW is one value direction, so V = X @ W_V.T"),
    mistake(QKV, "weight times X instead of X times weight transposed",
            "return W_Q @ X.T, W_K @ X.T, W_V @ X.T", detects=nb01.HINT_QKV_ROWS),
    mistake(QKV, "results returned in the wrong order", "return X @ W_K.T, X @ W_Q.T, X @ W_V.T",
            hint="return (Q, K, V) in that order"),
    mistake(QKV, "the same weight matrix used for Q, K and V", """
        Q = X @ W_Q.T
        return Q, Q, Q""", hint="use W_K for K and W_V for V"),
    mistake(QKV, "W_K used for V as well (copy-paste)", "return X @ W_Q.T, X @ W_K.T, X @ W_K.T",
            hint="use W_V for V: V = X @ W_V.T"),
    mistake(QKV, "W_Q used for K as well (copy-paste)", "return X @ W_Q.T, X @ W_Q.T, X @ W_V.T",
            hint="use W_K for K: K = X @ W_K.T"),
    mistake(QKV, "queries already divided by sqrt(d_k)", """
        d_k = W_Q.shape[0]
        return X @ W_Q.T / np.sqrt(d_k), X @ W_K.T, X @ W_V.T""", hint=HINT_QUERIES_SCALED),
    mistake(QKV, "returns one stacked array", "return np.stack([X @ W_Q.T, X @ W_K.T, X @ W_V.T])",
            detects=nb01.HINT_RETURN_QKV),
    mistake(QKV, "float32 and the queries scaled by 1/sqrt(d_k)", [
        replace_line("return tuple(x @ torch.Tensor(W).T for W in (W_Q, W_K, W_V))",
                     "q = x @ torch.Tensor(W_Q).T / W_Q.shape[0] ** 0.5\n"
                     "return q, x @ torch.Tensor(W_K).T, x @ torch.Tensor(W_V).T"),
    ], hint=HINT_QUERIES_SCALED, like="float32 torch.Tensor computation"),
    mistake(QKV, "elementwise * instead of the matrix product", "return X * W_Q, X * W_K, X * W_V",
            detects=nb01.HINT_MATMUL_QKV),
    mistake(QKV, "V left as X (no value projection)", "return X @ W_Q.T, X @ W_K.T, X",
            detects=nb01.HINT_PROJECTION.format(label="V")),
    alternative(QKV, "einsum", """
        Q = np.einsum("ld,kd->lk", X, W_Q)
        K = np.einsum("ld,kd->lk", X, W_K)
        V = np.einsum("ld,vd->lv", X, W_V)
        return Q, K, V"""),
    alternative(QKV, "transpose of the column form, as a list",
                "return [(W_Q @ X.T).T, (W_K @ X.T).T, (W_V @ X.T).T]"),
    alternative(QKV, "torch float64 tensors returned as they are", """
        import torch
        x = torch.from_numpy(X)
        return x @ torch.from_numpy(W_Q).T, x @ torch.from_numpy(W_K).T, x @ torch.from_numpy(W_V).T
    """),
    alternative(QKV, "one stacked weight matrix, outputs sliced as views", """
        d_k = W_Q.shape[0]
        stacked = X @ np.concatenate([W_Q, W_K, W_V]).T  # (L, 2 d_k + d_v)
        return stacked[:, :d_k], stacked[:, d_k:2 * d_k], stacked[:, 2 * d_k:]"""),
    alternative(QKV, "a namedtuple of read-only arrays", """
        from collections import namedtuple
        QKV = namedtuple("QKV", "Q K V")
        out = []
        for W in (W_Q, W_K, W_V):
            P = np.tensordot(X, W, axes=([1], [1]))
            P.setflags(write=False)
            out.append(P)
        return QKV(*out)"""),
    alternative(QKV, "nested Python loops into lists of lists", """
        def project(W):
            return [[sum(x[j] * w[j] for j in range(len(x))) for w in W] for x in X]
        return project(W_Q), project(W_K), project(W_V)"""),
    alternative(QKV, "float32 torch.Tensor computation", """
        import torch
        x = torch.Tensor(X)
        return tuple(x @ torch.Tensor(W).T for W in (W_Q, W_K, W_V))"""),
    alternative(QKV, "np.matrix products", """
        Xm = np.asmatrix(X)
        return Xm * np.asmatrix(W_Q).T, Xm * np.asmatrix(W_K).T, Xm * np.asmatrix(W_V).T"""),
    alternative(QKV, "torch tensors that require grad", """
        import torch
        x = torch.from_numpy(X).requires_grad_()
        return tuple(x @ torch.from_numpy(W).T for W in (W_Q, W_K, W_V))"""),
    # -- score_matrix ------------------------------------------------------------------------------
    mistake(SCORES, "no 1/sqrt(d_k)", "return Q @ K.T", detects=nb01.HINT_NO_SCALING),
    mistake(SCORES, "divided by d_k instead of sqrt(d_k)", "return Q @ K.T / Q.shape[-1]",
            detects=nb01.HINT_DIVIDED_BY_D_K),
    mistake(SCORES, "scaled by the wrong dimension (sqrt of the number of tokens)",
            "return Q @ K.T / np.sqrt(Q.shape[0])", detects=nb01.HINT_SCALED_BY_TOKENS),
    mistake(SCORES, "scores transposed (K Q^T: rows are keys)",
            "return K @ Q.T / np.sqrt(Q.shape[-1])",
            hint="row l of S belongs to query l: S = Q @ K.T / sqrt(d_k)"),
    mistake(SCORES, "multiplied by sqrt(d_k) instead of dividing",
            "return Q @ K.T * np.sqrt(Q.shape[-1])",
            hint="scaling by 1/sqrt(d_k) shrinks the scores"),
    mistake(SCORES, "keys not transposed (Q @ K)", "return Q @ K / np.sqrt(Q.shape[-1])",
            detects=nb01.HINT_TRANSPOSE_K),
    mistake(SCORES, "Q.T @ K (feature by feature)", "return Q.T @ K / np.sqrt(Q.shape[-1])",
            detects=nb01.HINT_SCORES_SHAPE),
    mistake(SCORES, "operator precedence: d_k ** 1/2 is d_k / 2, not sqrt(d_k)",
            "return Q @ K.T / Q.shape[-1] ** 1 / 2",
            hint="** binds tighter than /, so d_k ** 1/2 means (d_k ** 1) / 2: write d_k ** 0.5 or "
                 "np.sqrt(d_k)"),
    mistake(SCORES, "softmax already applied (weights instead of scores)", """
        S = Q @ K.T / np.sqrt(Q.shape[-1])
        e = np.exp(S - S.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)""",
            hint="score_matrix returns the raw scaled scores S = Q K^T / sqrt(d_k); the softmax "
                 "is the next exercise"),
    mistake(SCORES, "float32 and no 1/sqrt(d_k)", """
        import torch
        return torch.Tensor(Q) @ torch.Tensor(K).T""", detects=nb01.HINT_NO_SCALING),
    mistake(SCORES, "floor division // instead of /", "return Q @ K.T // np.sqrt(Q.shape[-1])",
            hint="divide with /, not // (floor division rounds every score down)"),
    mistake(SCORES, "cosine similarity instead of the dot product", """
        Qn = Q / np.linalg.norm(Q, axis=-1, keepdims=True)
        Kn = K / np.linalg.norm(K, axis=-1, keepdims=True)
        return Qn @ Kn.T / np.sqrt(Q.shape[-1])""",
            hint="the score is the plain dot product q.k divided by sqrt(d_k); do not divide by "
                 "the vector norms"),
    mistake(SCORES, "hard-coded sqrt(3) (the worked example's d_k)", "return Q @ K.T / np.sqrt(3)",
            detects=nb01.HINT_SCORES),
    mistake(SCORES, "no return: the scores computed and dropped",
            "S = Q @ K.T / np.sqrt(Q.shape[-1])",
            detects=HINT_NO_RETURN.format(where="score_matrix")),
    mistake(SCORES, "scales Q in place", """
        Q /= np.sqrt(Q.shape[-1])
        return Q @ K.T""", detects=HINT_IN_PLACE),
    alternative(SCORES, "loop over every pair", """
        L_q, L_k, d_k = Q.shape[0], K.shape[0], Q.shape[1]
        S = np.zeros((L_q, L_k))
        for i in range(L_q):
            for j in range(L_k):
                S[i, j] = sum(Q[i, t] * K[j, t] for t in range(d_k)) / d_k ** 0.5
        return S"""),
    alternative(SCORES, "scale the queries first",
                "return (Q / np.sqrt(Q.shape[1])) @ np.transpose(K)"),
    alternative(SCORES, "through torch", """
        import torch
        q, k = torch.as_tensor(Q), torch.as_tensor(K)
        return (q @ k.T / q.shape[-1] ** 0.5).numpy()"""),
    alternative(SCORES, "torch float64 tensor returned as it is", """
        import torch
        q, k = torch.from_numpy(Q), torch.from_numpy(K)
        return torch.matmul(q, k.transpose(0, 1)) / torch.sqrt(torch.tensor(float(k.shape[-1])))
    """),
    alternative(SCORES, "both sides scaled by d_k ** -0.25, einsum", """
        c = Q.shape[-1] ** -0.25
        return np.einsum("id,jd->ij", c * Q, c * K)"""),
    alternative(SCORES, "column by column, in place division", """
        S = np.empty((Q.shape[0], K.shape[0]), order="F")
        for j, k in enumerate(K):
            S[:, j] = Q @ k
        S /= np.sqrt(K.shape[1])
        return S"""),
    alternative(SCORES, "transpose of K Q^T, a non-contiguous view",
                "return (K @ Q.T).T / np.sqrt(Q.shape[-1])"),
    alternative(SCORES, "list of lists of Python floats", """
        import math
        d_k = len(Q[0])
        return [[float(np.dot(q, k)) / math.sqrt(d_k) for k in K] for q in Q]"""),
    alternative(SCORES, "float32 torch.Tensor computation", """
        import torch
        q, k = torch.Tensor(Q), torch.Tensor(K)
        return q @ k.T / q.shape[-1] ** 0.5"""),
    alternative(SCORES, "np.matrix product",
                "return np.asmatrix(Q) * np.asmatrix(K).T / np.sqrt(Q.shape[1])"),
    # -- softmax_rows ------------------------------------------------------------------------------
    mistake(SOFTMAX, "softmax over the wrong axis", edit("=-1", "=0", count=2),
            detects=nb01.HINT_SOFTMAX_AXIS, like="NaN for a row of -inf"),
    mistake(SOFTMAX, "overflows on large scores (no max subtraction)", edit("S - S.max()", "S"),
            detects=nb01.HINT_STABLE, like="global maximum instead of each row's"),
    mistake(SOFTMAX, "NaN for a row of -inf", edit("))", "axis=-1, keepdims=True))"),
            detects=nb01.HINT_ALL_MASKED, like="global maximum instead of each row's"),
    mistake(SOFTMAX, "global maximum instead of each row's", """
        e = np.exp(S - S.max())
        return e / e.sum(axis=-1, keepdims=True)""", detects=nb01.HINT_GLOBAL_MAX),
    mistake(SOFTMAX, "keepdims forgotten: the row maxima and sums broadcast along the wrong axis", [
        edit("S.T - m).T", "S - m)"), edit("total =", "return e /"), delete("return (np.divide(e."),
    ], hint="use keepdims=True so a (L, 1) column broadcasts over each row",
       like="transpose trick that only works in 2-D"),
    mistake(SOFTMAX, "normalised by the sum of the whole array, not of each row",
            edit("axis=-1, keepdims=True", "", count=2),
            hint="sum over axis=-1 with keepdims=True", like="NaN for a row of -inf"),
    mistake(SOFTMAX, "changes its input in place", [
        edit("S.max(axis=", "S.max(axis=-"), edit("m = np.where", "S -= np.where"),
        edit("e = np.exp(S - m", "np.exp(S, out=S"), edit("e.sum(axis=", "S.sum(axis=-"),
        edit("e, total, out=np.zeros_like(e", "S, total, out=np.zeros_like(S"),
    ], detects=nb01.HINT_SOFTMAX_IN_PLACE, like="axis=1 instead of the last axis"),
    mistake(SOFTMAX, "only works on 2-D input", """
        out = np.zeros_like(S)
        for i in range(S.shape[0]):
            row = S[i]
            m = row.max() if np.isfinite(row.max()) else 0.0
            e = np.exp(row - m)
            out[i] = e / e.sum() if e.sum() > 0 else 0.0
        return out""", detects=nb01.HINT_LEADING_AXES),
    mistake(SOFTMAX, "axis=1 instead of the last axis", [
        edit("S.min(axis=-", "S.max(axis="), edit("=-", "="),
    ], detects=nb01.HINT_SOFTMAX_AXIS, like="subtracts the row minimum"),
    mistake(SOFTMAX, "subtracts the row minimum", [
        edit("row_max = S.max", "m = S.min"),
        edit("row_max = np.where(np.isfinite(row_max), row_max", "m = np.where(np.isfinite(m), m"),
        edit("row_max", "m")], detects=nb01.HINT_ROW_MAXIMUM),
    mistake(SOFTMAX, "-inf replaced by -1e9 (masked row becomes uniform)", """
        S = np.where(np.isneginf(S), -1e9, S)
        e = np.exp(S - S.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)""", detects=nb01.HINT_MASKED_ROW_ZEROS),
    mistake(SOFTMAX, "transpose trick that only works in 2-D", [
        edit("S.min(axis=-1, keepdims=True", "S.max(axis=-1"), edit("S - m)", "S.T - m).T"),
        edit(", keepdims=True", ""),
        replace_line("return np.divide(e,",
                     "return (np.divide(e.T, total, out=np.zeros_like(e.T), where=total > 0)).T"),
    ], detects=nb01.HINT_LEADING_AXES, like="subtracts the row minimum"),
    mistake(SOFTMAX, "plain exp normalised, NaN turned into zeros", """
        e = np.exp(S)
        return np.nan_to_num(e / e.sum(axis=-1, keepdims=True))""", detects=nb01.HINT_STABLE),
    mistake(SOFTMAX, "float32 and softmax over the wrong axis", edit("=-1", "=0"),
            detects=nb01.HINT_SOFTMAX_AXIS, like="float32 torch.Tensor computation"),
    mistake(SOFTMAX, "each row shifted by its maximum, then divided by the column sums",
            edit("e.sum(axis=-1", "e.sum(axis=0"), hint=HINT_REDUCE_OVER_LAST_AXIS),
    mistake(SOFTMAX, "maximum over axis=1 (right only for 2-D input)",
            edit("S.max(axis=-", "S.max(axis="), hint=HINT_REDUCE_OVER_LAST_AXIS),
    mistake(SOFTMAX, "log-softmax returned", [
        replace_line("return np.divide(e,",
                     'with np.errstate(divide="ignore"):\n'
                     "    return np.where(total > 0, S - row_max - np.log(np.where(total > 0,"
                     " total, 1.0)),\n"
                     "                    0.0)")],
            hint="return the weights exp(S - max) / sum, not their logarithms"),
    mistake(SOFTMAX, "the exponentials never divided by the row sum",
            replace_line("return np.divide(e,", "return e"),
            hint="divide by the sum of its own row, so every row sums to 1"),
    mistake(SOFTMAX, "-inf scores replaced by 0 before exp",
            edit("row_max = S.max", "S = np.where(np.isinf(S), 0.0, S)\nrow_max = S.max"),
            hint="a -inf score must get weight exactly 0 (exp(-inf) = 0): leave it as -inf and "
                 "only fix the maximum of an all -inf row"),
    mistake(SOFTMAX, "the stub's raise left above the written body", [
        edit("m = S.max(axis=1, keepdims=True", "raise NotImplementedError("),
        edit("m = np.where(np.isfinite(m), m, 0.0", "row_max = S.max(axis=-1, keepdims=True"),
        edit("m)", "np.where(np.isfinite(row_max), row_max, 0.0))"), edit("=1", "=-1"),
    ], detects=HINT_LEFTOVER, like="axis=1 instead of the last axis"),
    mistake(SOFTMAX, "exp2 instead of exp", edit("np.exp(", "np.exp2("),
            detects=nb01.HINT_SOFTMAX_VALUES),
    alternative(SOFTMAX, "log-sum-exp form", """
        m = np.max(S, axis=-1, keepdims=True)
        m = np.where(np.isneginf(m), 0.0, m)
        total = np.sum(np.exp(S - m), axis=-1, keepdims=True)
        with np.errstate(divide="ignore"):
            log_total = np.log(total)
        A = np.exp(S - m - log_total)
        return np.nan_to_num(A, nan=0.0)"""),
    alternative(SOFTMAX, "apply_along_axis with a masked-row special case", """
        def one_row(row):
            if np.all(np.isneginf(row)):
                return np.zeros_like(row)
            e = np.exp(row - row.max())
            return e / e.sum()
        return np.apply_along_axis(one_row, -1, S)"""),
    alternative(SOFTMAX, "max subtraction, then nan_to_num", """
        with np.errstate(invalid="ignore"):
            e = np.exp(S - S.max(axis=-1, keepdims=True))
            A = e / e.sum(axis=-1, keepdims=True)
        return np.nan_to_num(A, nan=0.0)"""),
    alternative(SOFTMAX, "tiny epsilon in the denominator", """
        m = S.max(axis=-1, keepdims=True)
        e = np.exp(S - np.where(np.isfinite(m), m, 0.0))
        return e / (e.sum(axis=-1, keepdims=True) + 1e-12)"""),
    alternative(SOFTMAX, "torch.softmax with zeroed masked rows", """
        import torch
        t = torch.as_tensor(np.array(S, dtype=np.float64))
        A = torch.softmax(t, dim=-1)
        return torch.nan_to_num(A, nan=0.0).numpy()"""),
    alternative(SOFTMAX, "in place on a copy, reshaped to 2-D", """
        A = np.array(S, dtype=np.float64).reshape(-1, S.shape[-1])
        for row in A:
            m = row.max()
            if np.isneginf(m):
                row[:] = 0.0
                continue
            row -= m
            np.exp(row, out=row)
            row /= row.sum()
        return A.reshape(S.shape)"""),
    alternative(SOFTMAX, "torch softmax, NaN rows zeroed, tensor returned", """
        import torch
        A = torch.nn.functional.softmax(torch.from_numpy(S), dim=-1)
        return torch.where(torch.isnan(A), torch.zeros_like(A), A)"""),
    alternative(SOFTMAX, "log-sum-exp with np.logaddexp.reduce", """
        lse = np.logaddexp.reduce(S, axis=-1, keepdims=True)  # -inf for an all -inf row
        safe = np.where(np.isneginf(lse), 0.0, lse)
        return np.where(np.isneginf(lse), 0.0, np.exp(S - safe))"""),
    alternative(SOFTMAX, "numpy masked array over the -inf entries", """
        Sm = np.ma.masked_invalid(S)
        e = np.ma.exp(Sm - Sm.max(axis=-1, keepdims=True))
        return np.ma.filled(e / e.sum(axis=-1, keepdims=True), 0.0)"""),
    alternative(SOFTMAX, "recursion over the leading axis", """
        if S.ndim > 1:
            return np.array([softmax_rows(row) for row in S])
        if np.all(np.isneginf(S)):
            return np.zeros_like(S)
        e = np.exp(S - np.max(S))
        return e / np.sum(e)"""),
    alternative(SOFTMAX, "last axis moved to the front", """
        T = np.moveaxis(S, -1, 0)  # (L_k, ...)
        m = T.max(axis=0)
        m = np.where(np.isfinite(m), m, 0.0)
        e = np.exp(T - m)
        total = e.sum(axis=0)
        A = e * np.divide(1.0, total, out=np.zeros_like(total), where=total > 0)
        return np.moveaxis(A, 0, -1)"""),
    alternative(SOFTMAX, "exp of -inf entries skipped with np.where, in place on a copy", """
        m = np.max(S, axis=-1, keepdims=True)
        A = np.where(np.isneginf(S), 0.0, np.exp(S - np.where(np.isneginf(m), 0.0, m)))
        total = A.sum(axis=-1, keepdims=True)
        A /= np.where(total == 0.0, 1.0, total)
        return A"""),
    alternative(SOFTMAX, "nested loops over np.ndindex of the leading axes", """
        import math
        A = np.zeros(S.shape)
        for idx in np.ndindex(*S.shape[:-1]):
            row = S[idx]
            m = max(row)
            if m == -math.inf:
                continue
            e = [math.exp(s - m) for s in row]
            A[idx] = [x / math.fsum(e) for x in e]
        return A"""),
    alternative(SOFTMAX, "float32 torch.Tensor computation", """
        import torch
        return torch.nan_to_num(torch.softmax(torch.Tensor(S), dim=-1), nan=0.0)"""),
    alternative(SOFTMAX, "extended precision (np.longdouble), cast back", """
        T = S.astype(np.longdouble)
        m = T.max(axis=-1, keepdims=True)
        e = np.exp(T - np.where(np.isfinite(m), m, 0))
        total = e.sum(axis=-1, keepdims=True)
        return (e / np.where(total > 0, total, 1)).astype(np.float64)"""),
    alternative(SOFTMAX, "pairwise form a_i = 1 / sum_j exp(s_j - s_i)", """
        with np.errstate(invalid="ignore", over="ignore"):
            diff = S[..., None, :] - S[..., :, None]  # (..., L_k, L_k): s_j - s_i
            A = 1.0 / np.exp(diff).sum(axis=-1)
        return np.nan_to_num(A, nan=0.0)"""),
    # -- attention ---------------------------------------------------------------------------------
    mistake(ATTENTION, "no 1/sqrt(d_k) scaling", edit("K.T / Q.shape[-1]", "K.T"),
            hint="scale the scores by 1/sqrt(d_k) before the softmax",
            like="divided by d_k instead of sqrt(d_k) (or scaled twice)"),
    mistake(ATTENTION, "weights transposed", edit("A, A @ V", "A.T @ V, A"),
            hint=HINT_WEIGHTS_TRANSPOSED, like="returns (A, Y)"),
    mistake(ATTENTION, "returns (A, Y)", [edit("Y =", "return A,"), delete("return Y, A")],
            detects=nb01.HINT_RETURN_Y_A),
    mistake(ATTENTION, "softmax over the key axis (columns)", [
        edit("))", "axis=0, keepdims=True))"), edit("()", "(axis=0, keepdims=True)"),
    ], hint="each query's weights (a row of A) must sum to 1: softmax along axis=-1",
       like="normalised over the whole score matrix"),
    mistake(ATTENTION, "divided by d_k instead of sqrt(d_k) (or scaled twice)",
            edit("score_matrix(Q, Q)", "Q @ K.T / Q.shape[-1]"),
            hint="divide by sqrt(d_k), not d_k: score_matrix already scales the scores, so do not "
                 "scale them again",
            like="queries matched against themselves (score_matrix(Q, Q))"),
    mistake(ATTENTION, "the scores S returned instead of the weights A",
            edit("Y, A", "Y, score_matrix(Q, K)"),
            hint="return the softmax weights A (each row sums to 1), not the scores"),
    mistake(ATTENTION, "keys used as values (A @ K)", edit("A.T @ V", "A @ K"),
            hint="Y = A @ V: the output mixes the values, not the keys", like="weights transposed"),
    mistake(ATTENTION, "queries matched against themselves (score_matrix(Q, Q))", """
        A = softmax_rows(score_matrix(Q, Q))
        return A @ V, A""", hint="the scores compare the queries against the keys: score_matrix(Q, "
                                 "K)"),
    mistake(ATTENTION, "normalised over the whole score matrix", [
        replace_line("A = softmax_rows(score_matrix(Q, Q))",
                     "S = score_matrix(Q, K)\ne = np.exp(S - S.max())\nA = e / e.sum()"),
    ], hint="each query's weights (a row of A) must sum to 1: normalise every row on its own, not "
            "the whole matrix",
            like="queries matched against themselves (score_matrix(Q, Q))"),
    mistake(ATTENTION, "returns only Y", "return softmax_rows(score_matrix(Q, K)) @ V",
            detects=nb01.HINT_RETURN_PAIR),
    mistake(ATTENTION, "float32 and weights transposed", edit("return A", "return A.T"),
            hint=HINT_WEIGHTS_TRANSPOSED, like="float32 torch.Tensor computation"),
    mistake(ATTENTION, "V @ A instead of A @ V", edit("A.T @ V", "V @ A"),
            detects=nb01.HINT_V_TIMES_A, like="weights transposed"),
    mistake(ATTENTION, "score_matrix(K, Q): arguments swapped", edit("(Q", "(K"),
            hint="score_matrix(Q, K): queries first, so row l of S belongs to query l",
            like="queries matched against themselves (score_matrix(Q, Q))"),
    mistake(ATTENTION, "Y transposed", edit("A.T @ V", "(A @ V).T"),
            detects=nb01.HINT_Y_SHAPE, like="weights transposed"),
    mistake(ATTENTION, "A returned transposed", edit("return Y, A", "return Y, A.T"),
            detects=nb01.HINT_A_SHAPE),
    mistake(ATTENTION, "softmax applied twice", """
        A = softmax_rows(softmax_rows(score_matrix(Q, K)))
        return A @ V, A""", detects=nb01.HINT_ATTENTION),
    alternative(ATTENTION, "scale inside, own softmax", """
        S = (Q @ K.T) * (1.0 / np.sqrt(K.shape[-1]))
        e = np.exp(S - S.max(axis=1, keepdims=True))
        A = e / e.sum(axis=1, keepdims=True)
        return (A @ V, A)"""),
    alternative(ATTENTION, "loop over queries, weighted sum of values", """
        Y, A = [], []
        for q in Q:
            s = K @ q / np.sqrt(len(q))
            a = np.exp(s - s.max())
            a = a / a.sum()
            A.append(a)
            Y.append(sum(w * v for w, v in zip(a, V)))
        return np.array(Y), np.array(A)"""),
    alternative(ATTENTION, "torch scaled_dot_product_attention for Y", """
        import torch
        import torch.nn.functional as F
        q, k, v = (torch.as_tensor(np.asarray(t, dtype=np.float64)) for t in (Q, K, V))
        Y = F.scaled_dot_product_attention(q[None], k[None], v[None])[0]
        A = torch.softmax(q @ k.T / q.shape[-1] ** 0.5, dim=-1)
        return Y.numpy(), A.numpy()"""),
    alternative(ATTENTION, "returns a list [Y, A]", edit("A.T @ V, A", "[A @ V, A]"),
                like="weights transposed"),
    alternative(ATTENTION, "torch float64 tensors returned as they are", """
        import math
        import torch
        q, k, v = (torch.from_numpy(t) for t in (Q, K, V))
        A = torch.softmax(q @ k.T / math.sqrt(q.shape[1]), dim=1)
        return A @ v, A"""),
    alternative(ATTENTION, "normalised after the product with the values", """
        S = Q @ K.T / np.sqrt(Q.shape[-1])
        e = np.exp(S - S.max(axis=-1, keepdims=True))
        total = e.sum(axis=-1, keepdims=True)
        return (e @ V) / total, e / total"""),
    alternative(ATTENTION, "one query at a time through score_matrix", """
        rows = [softmax_rows(score_matrix(q[None, :], K))[0] for q in Q]
        A = np.vstack(rows)
        return np.linalg.multi_dot([A, V]) if V.shape[1] else A @ V, A"""),
    alternative(ATTENTION, "broadcast weighted sum of value rows",
                replace_line("Y = A @ V", "Y = (A[:, :, None] * V[None, :, :]).sum(axis=1)")),
    alternative(ATTENTION, "transposed product and read-only results", [
        replace_line("Y = A @ V",
                     "Y = (V.T @ A.T).T  # a Fortran-ordered view\nA.setflags(write=False)")]),
    alternative(ATTENTION, "float32 torch.Tensor computation", """
        import torch
        q, k, v = torch.Tensor(Q), torch.Tensor(K), torch.Tensor(V)
        A = torch.softmax(q @ k.T / q.shape[-1] ** 0.5, dim=-1)
        return A @ v, A"""),
    alternative(ATTENTION, "extended precision (np.longdouble) kept", """
        q, k, v = (t.astype(np.longdouble) for t in (Q, K, V))
        S = q @ k.T / np.sqrt(np.longdouble(q.shape[-1]))
        e = np.exp(S - S.max(axis=-1, keepdims=True))
        A = e / e.sum(axis=-1, keepdims=True)
        return A @ v, A"""),
    alternative(ATTENTION, "np.average of the values with each query's weights", """
        A = softmax_rows(score_matrix(Q, K))
        Y = np.array([np.average(V, axis=0, weights=a) for a in A])
        return Y.reshape(len(Q), V.shape[1]), A"""),
    # -- concept questions -------------------------------------------------------------------------
    mistake("answer_q_shape", "picked (2, 4)", 'answer_q_shape = "A"', detects=WHY),
    mistake("answer_score_entry", "forgets the scaling", 'answer_score_entry = "B"', detects=WHY),
    mistake("answer_scale", "thinks softmax ignores a factor", 'answer_scale = "A"', detects=WHY),
    mistake("answer_permutation", "thinks the output changes", edit("B", "C"), detects=WHY),
    alternative("answer_q_shape", "lower case", 'answer_q_shape = "b"'),
    alternative("answer_q_shape", "reason after a space", 'answer_q_shape = "B (per token)"'),
    alternative("answer_q_shape", "in Markdown bold", 'answer_q_shape = "**B**"'),
])
