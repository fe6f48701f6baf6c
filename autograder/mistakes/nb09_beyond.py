"""Notebook 09's mistake catalogue, one section per graded function (see grader/catalogue.py)."""

from grader.catalogue import alternative, catalogue, delete, edit, explained, mistake, replace_line

from attnbook.checks import nb09

WHY = explained("09_beyond")  # detects=WHY: the question's explanation

RECURRENCE, PARALLEL = "linear_recurrence", "linear_recurrence_parallel"

# hints that several entries give
HINT_ORDER = ("the new state is A s_{t-1} + B x_t: A multiplies the previous state only, so x_j "
              "reaches s_t as A^(t-j) B x_j (A^0 = I for j = t); A^(t-j+1) is one step too many")
HINT_TRANSPOSE = ("with states as column vectors the update is A @ s; s @ A (a row vector times A) "
                  "computes A.T @ s")
HINT_B = "map each input into the state with B: the term is B @ x_t, shape (n,)"
HINT_B_TRANSPOSE = "B has shape (n, m), so the input term is B @ x_t (not x_t @ B)"
HINT_SCAN_POWER = ("in round k a block travels offset = 2^k steps, so move it by A^offset: square "
                   "the power after each round")
HINT_SCAN_ROUNDS = ("keep doubling while offset < L: after the last round every row must have "
                    "gathered all of its past inputs")


MISTAKES, ALTERNATIVES = catalogue([
    # -- linear_recurrence -------------------------------------------------------------------------
    mistake(RECURRENCE, "A applied after the input term", [
        edit("s + B @ x_t", "(s + B @ x_t)"), edit(".reshape(len(X), A.shape[0])", ""),
    ], hint=HINT_ORDER),
    mistake(RECURRENCE, "A transposed (row-vector state times A)", edit("A @ s +", "s @ A + B @"),
            hint=HINT_TRANSPOSE, like="input added without B"),
    mistake(RECURRENCE, "state stored before the update (off by one)", [
        delete("s = A @ (s + B @ x_t)"),
        replace_line("states.append(s)", "states.append(s)\ns = A @ s + B @ x_t"),
    ], detects=nb09.HINT_SHIFT, like="A applied after the input term"),
    mistake(RECURRENCE, "start state B x_0, then the loop from t = 0", [
        replace_line("s = np.zeros(A.shape[0])", "s = B @ X[0]"), edit("s @ A", "A @ s"),
    ], hint="start from s_{-1} = 0 and let the loop read x_0 once; starting from B x_0 and then "
            "looping from t = 0 counts x_0 twice (a start state of ones adds a term that is not "
            "there, too)", like="A transposed (row-vector state times A)"),
    mistake(RECURRENCE, "input term forgotten after the first step", [
        edit("x_t in X", "t, x_t in enumerate(X)"), edit("+ x_t", "+ (B @ x_t if t == 0 else 0.0)"),
    ], hint="add the input term B x_t at every step, not only at t = 0",
       like="input added without B"),
    mistake(RECURRENCE, "input added without B", [
        edit("B @ x_t", "x_t"), edit(".reshape(len(X), A.shape[0])", "")], hint=HINT_B),
    mistake(RECURRENCE, "x_t @ B instead of B @ x_t", edit("(s + B @ x_t)", "s + x_t @ B"),
            hint=HINT_B_TRANSPOSE, like="A applied after the input term"),
    mistake(RECURRENCE, "one array updated in place and stored L times",
            edit("s = A *", "s[:] = A @"),
            hint="every row equals the last state: the same array was updated in place and stored "
                 "L times; store a new array each step (s = ... builds one; s[:] = ... or s += "
                 "... writes into the one already stored)", like="elementwise A * s"),
    mistake(RECURRENCE, "states returned as columns (n, L)",
            edit(".reshape(len(X), A.shape[0])", ".T"), detects=nb09.HINT_STATES_SHAPE),
    mistake(RECURRENCE, "A applied to the input, not the state", edit("A @ (s + B", "s + A @ (B"),
            hint=HINT_ORDER, like="A applied after the input term"),
    mistake(RECURRENCE, "elementwise A * s", edit("@ (s + B @ x_t)", "* s + B @ x_t"),
            detects=nb09.HINT_ELEMENTWISE_STATE, like="A applied after the input term"),
    mistake(RECURRENCE, "returns only the final state", [
        delete("states = []"), delete("states.append(s)"), edit("np.array(states)", "s"),
    ], detects=nb09.HINT_KEEP_STATES, like="state stored before the update (off by one)"),
    mistake(RECURRENCE, "input term subtracted", edit("(s + B @ x_t)", "s - B @ x_t"),
            hint="the input term is added, not subtracted: s_t = A s_{t-1} + B x_t",
            like="A applied after the input term"),
    mistake(RECURRENCE, "states collected newest first (insert(0, s))", [
        edit("states.append(", "states.insert(0, "), edit(".reshape(len(X), A.shape[0])", ""),
    ], hint="row t is s_t, in time order: append each new state at the end (not insert(0, ...)) "
            "and do not reverse the result"),
    mistake(RECURRENCE, "state size hard-coded to the worked example's 2", [
        edit("(A.shape[0]", "(2"), edit(".reshape(len(X), A.shape[0])", ""),
    ], detects=nb09.HINT_SIZES),
    mistake(RECURRENCE, "loop over range(4), the worked example's length", [
        edit("x_t in X", "t in range(4)"), edit("(s + B @ x_t)", "s + B @ X[t]"),
    ], detects=nb09.HINT_STATES_SHAPE, like="A applied after the input term"),
    mistake(RECURRENCE, "output preallocated as an integer array", [
        replace_line("S = np.zeros((L, n))",
                     "S = np.zeros((L, n), dtype=int)\nprevious = np.zeros(n)"),
        delete("previous = S[t - 1] if t > 0 else np.zeros(n)"),
        replace_line("S[t] = A @ previous + B @ X[t]",
                     "S[t] = A @ previous + B @ X[t]\nprevious = S[t]"),
    ], detects=nb09.HINT_INTEGER, like="preallocated array and index loop"),
    mistake(RECURRENCE, "loop over the columns of B @ X.T instead of its rows", [
        replace_line("s = np.zeros(A.shape[0])", "U = B @ X.T  # (n, L)\ns = np.zeros(A.shape[0])"),
        edit("x_t in X", "u in U"), edit("B @ x_t", "u"), edit(".reshape(len(X), A.shape[0])", ""),
    ], detects=nb09.HINT_SIZES),
    mistake(RECURRENCE, "closed form through A's inverse, A^t sum_j A^-j B x_j", """
        n = A.shape[0]
        A_inv = np.linalg.inv(A)
        total, power, inverse_power, out = np.zeros(n), np.eye(n), np.eye(n), []
        for x_t in X:
            total = total + inverse_power @ (B @ x_t)
            out.append(power @ total)
            power, inverse_power = A @ power, inverse_power @ A_inv
        return np.array(out).reshape(len(X), n)""", detects=nb09.HINT_SINGULAR),
    alternative(RECURRENCE, "preallocated array and index loop", """
        L, n = X.shape[0], A.shape[0]
        S = np.zeros((L, n))
        for t in range(L):
            previous = S[t - 1] if t > 0 else np.zeros(n)
            S[t] = A @ previous + B @ X[t]
        return S"""),
    alternative(RECURRENCE, "row-vector form with transposes, list output", [
        edit("A.shape[0]", "(1, A.shape[0])"), edit("states =", "out ="),
        edit("x_t in X", "t in range(X.shape[0])"), edit("A + B @ x_t", "A.T + X[t:t + 1] @ B.T"),
        edit("states.append(s", "out.append(s[0].tolist()"), edit("np.array(states)", "out"),
    ], like="A transposed (row-vector state times A)"),
    alternative(RECURRENCE, "torch tensors", """
        import torch
        A_t, B_t, X_t = (torch.as_tensor(v, dtype=torch.float64) for v in (A, B, X))
        s = torch.zeros(A_t.shape[0], dtype=torch.float64)
        rows = []
        for x_t in X_t:
            s = A_t @ s + B_t @ x_t
            rows.append(s)
        return torch.stack(rows)"""),
    alternative(RECURRENCE, "einsum steps and itertools.accumulate", """
        import itertools
        inputs = np.einsum("nm,lm->ln", B, X)  # (L, n): B x_t
        states = itertools.accumulate(inputs, lambda s, u: np.einsum("ij,j->i", A, s) + u)
        return np.array(list(states)).reshape(X.shape[0], A.shape[0])"""),
    alternative(RECURRENCE, "functools.reduce over the inputs, a list of states", """
        from functools import reduce
        states = reduce(lambda acc, x_t: acc + [A @ acc[-1] + B @ x_t], X,
                        [np.zeros(A.shape[0])])
        return np.vstack(states[1:]) if len(X) else np.zeros((0, A.shape[0]))"""),
    alternative(RECURRENCE, "matmul with out= into a preallocated row", """
        L, n = X.shape[0], A.shape[0]
        S = np.empty((L, n))
        S[0] = B @ X[0]
        for t in range(1, L):
            np.matmul(A, S[t - 1], out=S[t])
            S[t] += B @ X[t]
        return S"""),
    alternative(RECURRENCE, "column states stacked, a transposed view returned", [
        edit("A.shape[0]", "(A.shape[0], 1)"), edit("states =", "columns ="),
        edit("4", "X.shape[0]"), edit("A @ s + B @ X[t]", "A.dot(s) + B.dot(X[t].reshape(-1, 1))"),
        edit("states.append", "columns.append"), edit("np.array(states)", "np.hstack(columns).T"),
    ], like="loop over range(4), the worked example's length"),
    alternative(RECURRENCE, "pure Python lists and sums", """
        n, m = A.shape[0], B.shape[1]
        A_l, B_l = A.tolist(), B.tolist()
        s = [0.0] * n
        out = []
        for x_t in X.tolist():
            s = [sum(A_l[i][k] * s[k] for k in range(n)) + sum(B_l[i][k] * x_t[k]
                                                               for k in range(m))
                 for i in range(n)]
            out.append(s)
        return np.array(out, dtype=float).reshape(len(out), n)"""),
    alternative(RECURRENCE, "torch float64 from numpy, returned as numpy", """
        import torch
        A_t, B_t = torch.from_numpy(A), torch.from_numpy(B)
        inputs = torch.from_numpy(X) @ B_t.T  # (L, n)
        s = torch.zeros(A.shape[0], dtype=torch.float64)
        out = torch.empty_like(inputs)
        for t in range(inputs.shape[0]):
            s = torch.mv(A_t, s) + inputs[t]
            out[t] = s
        return out.numpy()"""),
    alternative(RECURRENCE, "torch in its default float32", [
        replace_line("A_t, B_t, X_t = (torch",
                     "A_t, B_t, X_t = (torch.tensor(v.tolist()) for v in (A, B, X))  # float32"),
        edit(", dtype=torch.float64", "")], like="torch tensors"),
    # -- linear_recurrence_parallel ----------------------------------------------------------------
    mistake(PARALLEL, "cumulative sum of A^-t B x_t, times A^t", """
        n, L = A.shape[0], len(X)
        A_inv, U = np.linalg.inv(A), X @ B.T
        terms = [np.linalg.matrix_power(A_inv, t) @ U[t] for t in range(L)]
        C = np.cumsum(np.array(terms).reshape(L, n), axis=0)
        return np.array([np.linalg.matrix_power(A, t) @ C[t] for t in range(L)]).reshape(L, n)""",
            detects=nb09.HINT_SINGULAR),
    mistake(PARALLEL, "A^(t-j+1): one power too many",
            edit("(A ** (t - j)", "np.linalg.matrix_power(A, t - j + 1"),
            hint=HINT_ORDER, like="elementwise powers A ** k"),
    mistake(PARALLEL, "elementwise powers A ** k", """
        L = len(X)
        U = X @ B.T
        S = np.zeros((L, A.shape[0]))
        for t in range(L):
            for j in range(t + 1):
                S[t] += (A ** (t - j)) @ U[j]
        return S""", hint="A ** k raises each ENTRY to the power k (and A ** 0 is all ones); the "
                          "matrix power is np.linalg.matrix_power(A, k) or repeated A @ ..."),
    mistake(PARALLEL, "sum over j < t only (diagonal term missing)", """
        L = len(X)
        U = X @ B.T
        powers = [np.linalg.matrix_power(A, k) for k in range(L)]
        return np.array([sum((powers[t - j] @ U[j] for j in range(t)), np.zeros(A.shape[0]))
                         for t in range(L)])""",
            hint="j runs up to and including t: the j = t term is A^0 B x_t = B x_t"),
    mistake(PARALLEL, "A^j instead of A^(t-j)", [edit("4", "L"), edit("t - j", "j")],
            hint="the power counts the steps from j to t: A^(t-j), not A^j",
            like="powers precomputed for the worked example's L = 4"),
    mistake(PARALLEL, "two-sided convolution (future inputs)",
            edit("j] @ U[j] for j in range(t + 1", "abs(t - j)] @ U[j] for j in range(L"),
            detects=nb09.HINT_CAUSAL, like="A^j instead of A^(t-j)"),
    mistake(PARALLEL, "scan that moves blocks with A instead of A^offset", [
        edit("power, offset = A,", "offset ="), edit("power.T", "A.T"), delete("power = power @ A"),
    ], hint=HINT_SCAN_POWER, like="scan power grows by A (power @ A) each round"),
    mistake(PARALLEL, "scan with A not transposed for row states", [
        edit("power = A", "power, offset = A, 1"), delete("offset = 1"),
        edit("moved = S[:-offset] @ power.T",
             "S = np.concatenate([S[:offset], S[offset:] + S[:-offset] @ power])"),
        delete("S = np.concatenate([S[:offset], S[offset:] + moved])"),
    ], hint=HINT_TRANSPOSE),
    mistake(PARALLEL, "calls the step-by-step loop", "return linear_recurrence(A, B, X)",
            detects=nb09.HINT_CALLS_LOOP),
    mistake(PARALLEL, "convolution run backwards (inputs j >= t)",
            edit("] @ U[j] for j in range(t + 1", " - t] @ U[j] for j in range(t, L"),
            detects=nb09.HINT_CAUSAL, like="A^j instead of A^(t-j)"),
    mistake(PARALLEL, "scan rows updated in place", [
        replace_line("S = np.concatenate([",
                     "for t in range(offset, len(S)):\n    S[t] = S[t] + power @ S[t - offset]"),
    ], hint="compute every row of a round from the states of the PREVIOUS round: build the new S "
            "from the old one (np.concatenate or a copy), not row by row in place",
       like="scan with A not transposed for row states"),
    mistake(PARALLEL, "scan squares the power too early", [
        replace_line("while offset < len(S):", "while offset < len(S):\n    power = power @ power"),
        delete("power = power @ A"),
    ], hint=HINT_SCAN_POWER, like="scan power grows by A (power @ A) each round"),
    mistake(PARALLEL, "scan stops a round early", [
        edit("offset <", "2 * offset <"), edit("power])", "power.T])"),
    ], hint=HINT_SCAN_ROUNDS, like="scan with A not transposed for row states"),
    mistake(PARALLEL, "scan power grows by A (power @ A) each round", [
        edit("power])", "power.T])"), edit("power @ power", "power @ A"),
    ], hint="in round k a block travels offset = 2^k steps, so move it by A^offset: square the "
            "power after each round (power @ power, not power @ A)",
       like="scan with A not transposed for row states"),
    mistake(PARALLEL, "scan rounds counted with int(log2 L) (floor)",
            replace_line("while 2 * offset < len(S):", "for _ in range(int(np.log2(len(S)))):"),
            hint=HINT_SCAN_ROUNDS, like="scan stops a round early"),
    mistake(PARALLEL, "power squared in place (power @= power changes A)", [
        edit("power])", "power.T])"), edit("= power @", "@="),
    ], detects=nb09.HINT_STATES_IN_PLACE, like="scan with A not transposed for row states"),
    mistake(PARALLEL, "powers precomputed for the worked example's L = 4", """
        L = len(X)
        U = X @ B.T
        powers = [np.linalg.matrix_power(A, k) for k in range(4)]
        return np.array([sum(powers[t - j] @ U[j] for j in range(t + 1)) for t in range(L)])
    """, detects=nb09.HINT_SIZES),
    mistake(PARALLEL, "inputs used without B (S = X.copy())", [
        edit("X @ B.T", "X.copy()"), edit("power])", "power.T])"),
    ], hint=HINT_B, like="scan with A not transposed for row states"),
    mistake(PARALLEL, "scan subtracts the moved block", [edit("+", "-"), edit("@ A", "@ power")],
            detects=nb09.HINT_VALUES, like="scan power grows by A (power @ A) each round"),
    mistake(PARALLEL, "scan moves blocks one row too far (lag + 1)", [
        edit("], S[offset:] + S[:-offset] @ power",
             " + 1], S[offset + 1:] + S[:-offset - 1] @ power.T"),
    ], detects=nb09.HINT_VALUES, like="scan with A not transposed for row states"),
    mistake(PARALLEL, "B on the wrong side (X @ B) in a convolution", [
        edit("B.T", "B"), edit("j] @", "t - j] @"),
    ], hint=HINT_B_TRANSPOSE, like="A^j instead of A^(t-j)"),
    alternative(PARALLEL, "convolution with matrix powers and einsum", """
        L, n = X.shape[0], A.shape[0]
        powers = np.stack([np.linalg.matrix_power(A, k) for k in range(L)])  # (L, n, n)
        t, j = np.meshgrid(np.arange(L), np.arange(L), indexing="ij")
        kernel = powers[np.clip(t - j, 0, None)] * (t >= j)[..., None, None]  # (L, L, n, n)
        return np.einsum("tjab,bm,jm->ta", kernel, B, X)"""),
    alternative(PARALLEL, "scan on column states", [
        edit("S = X.astype(np.float32) @ B.T.astype(np.float32)  # (L, n", "U = B @ X.T  # (n, L"),
        edit("power = A.astype(np.float32", "P = A.copy("), edit("offset =", "k ="),
        edit("offset < len(S)", "k < U.shape[1]"),
        replace_line("S = np.concatenate([",
                     "U = np.concatenate([U[:, :k], U[:, k:] + P @ U[:, :-k]], axis=1)"),
        edit("power = power @ power", "P = P @ P"), edit("offset", "k"), edit("S", "U.T"),
    ], like="doubling scan in float32 numpy"),
    alternative(PARALLEL, "block Toeplitz matrix, one product", """
        L, n = X.shape[0], A.shape[0]
        powers = [np.eye(n)]
        for _ in range(L - 1):
            powers.append(A @ powers[-1])
        K = np.zeros((L * n, L * n))
        for t in range(L):
            for j in range(t + 1):
                K[t * n:(t + 1) * n, j * n:(j + 1) * n] = powers[t - j]
        U = (X @ B.T).reshape(L * n)
        return (K @ U).reshape(L, n)"""),
    alternative(PARALLEL, "scan in place, rows updated from the end", [
        edit("X @ B.T", "(B @ X.T).T.copy()"), edit("A", "A.copy()"),
        edit("len(S):", "S.shape[0]:"), edit("offset, len(S)", "S.shape[0] - 1, offset - 1, -1"),
        edit("= S[t] +", "+="), edit("*= 2", "<<= 1")], like="scan rows updated in place"),
    alternative(PARALLEL, "associative scan over affine maps (M, v)", """
        L, n = X.shape[0], A.shape[0]
        M = np.broadcast_to(A, (L, n, n)).copy()  # element t: s -> A s + B x_t
        v = X @ B.T  # (L, n)
        offset = 1
        while offset < L:
            # compose element t with element t - offset: (M_t M_{t-o}, M_t v_{t-o} + v_t)
            new_v = v.copy()
            new_v[offset:] = np.einsum("tij,tj->ti", M[offset:], v[:-offset]) + v[offset:]
            new_M = M.copy()
            new_M[offset:] = M[offset:] @ M[:-offset]
            M, v = new_M, new_v
            offset *= 2
        return v"""),
    alternative(PARALLEL, "FFT convolution of the power kernel", """
        L, n = X.shape[0], A.shape[0]
        kernel = np.empty((L, n, n))
        kernel[0] = np.eye(n)
        for k in range(1, L):
            kernel[k] = A @ kernel[k - 1]
        U = X @ B.T  # (L, n)
        size = 2 * L
        K_f = np.fft.rfft(kernel, n=size, axis=0)  # (F, n, n)
        U_f = np.fft.rfft(U, n=size, axis=0)  # (F, n)
        return np.fft.irfft(np.einsum("fij,fj->fi", K_f, U_f), n=size, axis=0)[:L]"""),
    alternative(PARALLEL, "a sum over lags of shifted inputs", """
        L, n = X.shape[0], A.shape[0]
        U = X @ B.T  # (L, n)
        S = np.zeros((L, n))
        power = np.eye(n)
        for k in range(L):  # lag k: s_t gets A^k B x_{t-k} for every t >= k at once
            S[k:] += U[:L - k] @ power.T
            power = power @ A
        return S"""),
    alternative(PARALLEL, "divide and conquer on the two halves", """
        def solve(U):
            L = U.shape[0]
            if L == 1:
                return U.copy()
            mid = L // 2
            left, right = solve(U[:mid]), solve(U[mid:])
            carry = left[-1]  # s_{mid-1}, carried into the right half by A^(i+1)
            lifts = [carry]
            for _ in range(L - mid):
                lifts.append(A @ lifts[-1])
            return np.concatenate([left, right + np.array(lifts[1:])])

        return solve(X @ B.T)"""),
    alternative(PARALLEL, "one block triangular solve (torch)", """
        import torch
        L, n = X.shape[0], A.shape[0]
        M = torch.from_numpy(np.eye(L * n) - np.kron(np.eye(L, k=-1), A))
        u = torch.from_numpy((X @ B.T).reshape(-1, 1))
        return torch.linalg.solve_triangular(M, u, upper=False).reshape(L, n).numpy()"""),
    alternative(PARALLEL, "torch doubling scan, a tensor returned", """
        import torch
        S = torch.from_numpy(X) @ torch.from_numpy(B).T  # (L, n) float64
        power = torch.from_numpy(A).clone()
        offset = 1
        while offset < S.shape[0]:
            S = torch.cat((S[:offset], S[offset:] + S[:-offset] @ power.T))
            power = torch.linalg.matrix_power(power, 2)
            offset *= 2
        return S"""),
    alternative(PARALLEL, "doubling scan in float32 numpy", [
        replace_line("S = X @ B.T",
                     "S = X.astype(np.float32) @ B.T.astype(np.float32)  # (L, n)\n"
                     "power = A.astype(np.float32)\n"
                     "offset = 1"),
        delete("power, offset = A, 1"), edit("power])", "power.T])"),
    ], like="scan with A not transposed for row states"),
    # -- concept questions -------------------------------------------------------------------------
    mistake("answer_path_length", "thinks attention is sequential too", 'answer_path_length = "C"',
            detects=WHY),
    mistake("answer_state_size", "thinks the state grows with the text", 'answer_state_size = "B"',
            detects=WHY),
    mistake("answer_scan_steps", "halves instead of taking log2", edit("B", "C"), detects=WHY),
    mistake("answer_implicit_position", "thinks the embeddings store position",
            'answer_implicit_position = "A"', detects=WHY),
    mistake("answer_cross_attention", "applies the causal mask to the source",
            'answer_cross_attention = "B"', detects=WHY),
    mistake("answer_no_mask_loss", "takes the leak for generalisation", 'answer_no_mask_loss = "B"',
            detects=WHY),
    mistake("answer_learned_beyond", "forgets that the last token is only a target",
            'answer_learned_beyond = "B"', detects=WHY),
    alternative("answer_scan_steps", "lower case", 'answer_scan_steps = "b"'),
])
