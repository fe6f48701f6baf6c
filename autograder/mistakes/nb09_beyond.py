"""Notebook 09 catalogue: the mistakes students make, and correct answers written otherwise."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from grader.catalogue import alternative, mistake  # noqa: E402

MISTAKES = [
    # linear_recurrence
    mistake("linear_recurrence", "A applied after the input term", """
        s = np.zeros(A.shape[0])
        states = []
        for x_t in X:
            s = A @ (s + B @ x_t)
            states.append(s)
        return np.array(states)
    """, hint="A multiplies the previous state only"),
    mistake("linear_recurrence", "A transposed (row-vector state times A)", """
        s = np.zeros(A.shape[0])
        states = []
        for x_t in X:
            s = s @ A + B @ x_t
            states.append(s)
        return np.array(states)
    """, hint="s @ A (a row vector times A) computes A.T @ s"),
    mistake("linear_recurrence", "state stored before the update (off by one)", """
        s = np.zeros(A.shape[0])
        states = []
        for x_t in X:
            states.append(s)
            s = A @ s + B @ x_t
        return np.array(states)
    """, hint="store the state after the update"),
    mistake("linear_recurrence", "start state B x_0, then the loop from t = 0", """
        s = B @ X[0]
        states = []
        for x_t in X:
            s = A @ s + B @ x_t
            states.append(s)
        return np.array(states)
    """, hint="counts x_0 twice"),
    mistake("linear_recurrence", "input term forgotten after the first step", """
        s = np.zeros(A.shape[0])
        states = []
        for t, x_t in enumerate(X):
            s = A @ s + (B @ x_t if t == 0 else 0.0)
            states.append(s)
        return np.array(states)
    """, hint="at every step, not only at t = 0"),
    mistake("linear_recurrence", "input added without B", """
        s = np.zeros(A.shape[0])
        states = []
        for x_t in X:
            s = A @ s + x_t
            states.append(s)
        return np.array(states)
    """, hint="map each input into the state with B"),
    mistake("linear_recurrence", "x_t @ B instead of B @ x_t", """
        s = np.zeros(A.shape[0])
        states = []
        for x_t in X:
            s = A @ s + x_t @ B
            states.append(s)
        return np.array(states)
    """, hint="B @ x_t (not x_t @ B)"),
    mistake("linear_recurrence", "one array updated in place and stored L times", """
        s = np.zeros(A.shape[0])
        states = []
        for x_t in X:
            s[:] = A @ s + B @ x_t
            states.append(s)
        return np.array(states)
    """, hint="updated in place and stored L times"),
    mistake("linear_recurrence", "states returned as columns (n, L)", """
        s = np.zeros(A.shape[0])
        states = []
        for x_t in X:
            s = A @ s + B @ x_t
            states.append(s)
        return np.array(states).T
    """, hint="one row per time step"),
    # linear_recurrence_parallel
    mistake("linear_recurrence_parallel", "A^(t-j+1): one power too many", """
        L = len(X)
        U = X @ B.T
        S = np.zeros((L, A.shape[0]))
        for t in range(L):
            for j in range(t + 1):
                S[t] += np.linalg.matrix_power(A, t - j + 1) @ U[j]
        return S
    """, hint="A^(t-j+1) is one step too many"),
    mistake("linear_recurrence_parallel", "elementwise powers A ** k", """
        L = len(X)
        U = X @ B.T
        S = np.zeros((L, A.shape[0]))
        for t in range(L):
            for j in range(t + 1):
                S[t] += (A ** (t - j)) @ U[j]
        return S
    """, hint="A ** k raises each ENTRY"),
    mistake("linear_recurrence_parallel", "sum over j < t only (diagonal term missing)", """
        L = len(X)
        U = X @ B.T
        powers = [np.linalg.matrix_power(A, k) for k in range(L)]
        return np.array([sum((powers[t - j] @ U[j] for j in range(t)), np.zeros(A.shape[0]))
                         for t in range(L)])
    """, hint="j runs up to and including t"),
    mistake("linear_recurrence_parallel", "A^j instead of A^(t-j)", """
        L = len(X)
        U = X @ B.T
        powers = [np.linalg.matrix_power(A, k) for k in range(L)]
        return np.array([sum(powers[j] @ U[j] for j in range(t + 1)) for t in range(L)])
    """, hint="A^(t-j), not A^j"),
    mistake("linear_recurrence_parallel", "two-sided convolution (future inputs)", """
        L = len(X)
        U = X @ B.T
        powers = [np.linalg.matrix_power(A, k) for k in range(L)]
        return np.array([sum(powers[abs(t - j)] @ U[j] for j in range(L)) for t in range(L)])
    """, hint="no future input"),
    mistake("linear_recurrence_parallel", "scan that moves blocks with A instead of A^offset", """
        S = X @ B.T
        offset = 1
        while offset < len(S):
            S = np.concatenate([S[:offset], S[offset:] + S[:-offset] @ A.T])
            offset *= 2
        return S
    """, hint="square the power after each round"),
    mistake("linear_recurrence_parallel", "scan with A not transposed for row states", """
        S = X @ B.T
        power, offset = A, 1
        while offset < len(S):
            S = np.concatenate([S[:offset], S[offset:] + S[:-offset] @ power])
            power = power @ power
            offset *= 2
        return S
    """, hint="A.T @ s"),
    mistake("linear_recurrence_parallel", "calls the step-by-step loop", """
        return linear_recurrence(A, B, X)
    """, hint="must not call linear_recurrence"),
    # concept checks
    # -- added in the adversarial review
    mistake("linear_recurrence", "start state of ones", """
        s = np.ones(A.shape[0])
        states = []
        for x_t in X:
            s = A @ s + B @ x_t
            states.append(s)
        return np.array(states)
    """, hint="start from s_{-1} = 0"),
    mistake("linear_recurrence", "A applied to the input, not the state", """
        s = np.zeros(A.shape[0])
        states = []
        for x_t in X:
            s = s + A @ (B @ x_t)
            states.append(s)
        return np.array(states)
    """, hint="A multiplies the previous state only"),
    mistake("linear_recurrence", "elementwise A * s", """
        s = np.zeros(A.shape[0])
        states = []
        for x_t in X:
            s = A * s + B @ x_t
            states.append(s)
        return np.array(states)
    """, hint="the matrix-vector product A @ s"),
    mistake("linear_recurrence", "returns only the final state", """
        s = np.zeros(A.shape[0])
        for x_t in X:
            s = A @ s + B @ x_t
        return s
    """, hint="one row per time step"),
    mistake("linear_recurrence", "loop over range(L - 1)", """
        s = np.zeros(A.shape[0])
        states = []
        for t in range(len(X) - 1):
            s = A @ s + B @ X[t]
            states.append(s)
        return np.array(states).reshape(-1, A.shape[0])
    """, hint="one row per time step"),
    mistake("linear_recurrence_parallel", "convolution run backwards (inputs j >= t)", """
        L = len(X)
        U = X @ B.T
        powers = [np.linalg.matrix_power(A, k) for k in range(L)]
        return np.array([sum(powers[j - t] @ U[j] for j in range(t, L)) for t in range(L)])
    """, hint="no future input"),
    mistake("linear_recurrence_parallel", "scan rows updated in place", """
        S = X @ B.T
        power, offset = A, 1
        while offset < len(S):
            for t in range(offset, len(S)):
                S[t] = S[t] + power @ S[t - offset]
            power = power @ power
            offset *= 2
        return S
    """, hint="from the states of the PREVIOUS round"),
    mistake("linear_recurrence_parallel", "scan squares the power too early", """
        S = X @ B.T
        power, offset = A, 1
        while offset < len(S):
            power = power @ power
            S = np.concatenate([S[:offset], S[offset:] + S[:-offset] @ power.T])
            offset *= 2
        return S
    """, hint="square the power after each round"),
    mistake("linear_recurrence_parallel", "scan stops a round early", """
        S = X @ B.T
        power, offset = A, 1
        while 2 * offset < len(S):
            S = np.concatenate([S[:offset], S[offset:] + S[:-offset] @ power.T])
            power = power @ power
            offset *= 2
        return S
    """, hint="keep doubling while offset < L"),
    # -- added in round 3 (sizes, signs, order, dtypes, broadcasting, in-place powers)
    mistake("linear_recurrence", "input term subtracted", """
        s = np.zeros(A.shape[0])
        states = []
        for x_t in X:
            s = A @ s - B @ x_t
            states.append(s)
        return np.array(states)
    """, hint="added, not subtracted"),
    mistake("linear_recurrence", "states collected newest first (insert(0, s))", """
        s = np.zeros(A.shape[0])
        states = []
        for x_t in X:
            s = A @ s + B @ x_t
            states.insert(0, s)
        return np.array(states)
    """, hint="in time order"),
    mistake("linear_recurrence", "state size hard-coded to the worked example's 2", """
        s = np.zeros(2)
        states = []
        for x_t in X:
            s = A @ s + B @ x_t
            states.append(s)
        return np.array(states)
    """, hint="nothing hard-coded from the worked example"),
    mistake("linear_recurrence", "loop over range(4), the worked example's length", """
        s = np.zeros(A.shape[0])
        states = []
        for t in range(4):
            s = A @ s + B @ X[t]
            states.append(s)
        return np.array(states)
    """, hint="L = len(X)"),
    mistake("linear_recurrence", "state sized by the input width m (B.shape[1])", """
        s = np.zeros(B.shape[1])
        states = []
        for x_t in X:
            s = A @ s + B @ x_t
            states.append(s)
        return np.array(states)
    """, hint="n = A.shape[0] (the state)"),
    mistake("linear_recurrence", "output preallocated with X's shape (np.zeros_like(X))", """
        S = np.zeros_like(X)
        s = np.zeros(A.shape[0])
        for t in range(len(X)):
            s = A @ s + B @ X[t]
            S[t] = s
        return S
    """, hint="not X's shape (L, m)"),
    mistake("linear_recurrence", "output preallocated as an integer array", """
        L, n = X.shape[0], A.shape[0]
        S = np.zeros((L, n), dtype=int)
        previous = np.zeros(n)
        for t in range(L):
            S[t] = A @ previous + B @ X[t]
            previous = S[t]
        return S
    """, hint="an integer array (dtype=int) truncates"),
    mistake("linear_recurrence", "column start state (n, 1) plus a row input term", """
        s = np.zeros((A.shape[0], 1))
        states = []
        for x_t in X:
            s = A @ s + B @ x_t
            states.append(s)
        return np.array(states)
    """, hint="A column state of shape (n, 1)"),
    mistake("linear_recurrence", "loop over the columns of B @ X.T instead of its rows", """
        U = B @ X.T  # (n, L)
        s = np.zeros(A.shape[0])
        states = []
        for u in U:
            s = A @ s + u
            states.append(s)
        return np.array(states)
    """, hint="take every size from the arguments"),
    mistake("linear_recurrence", "result reshaped to (n, L) instead of (L, n)", """
        s = np.zeros(A.shape[0])
        states = []
        for x_t in X:
            s = A @ s + B @ x_t
            states.append(s)
        return np.array(states).reshape(A.shape[0], len(X))
    """, hint="one row per time step t"),
    mistake("linear_recurrence_parallel", "scan power grows by A (power @ A) each round", """
        S = X @ B.T
        power, offset = A, 1
        while offset < len(S):
            S = np.concatenate([S[:offset], S[offset:] + S[:-offset] @ power.T])
            power = power @ A
            offset *= 2
        return S
    """, hint="power @ power, not power @ A"),
    mistake("linear_recurrence_parallel", "scan rounds counted with int(log2 L) (floor)", """
        S = X @ B.T
        power, offset = A, 1
        for _ in range(int(np.log2(len(S)))):
            S = np.concatenate([S[:offset], S[offset:] + S[:-offset] @ power.T])
            power = power @ power
            offset *= 2
        return S
    """, hint="keep doubling while offset < L"),
    mistake("linear_recurrence_parallel", "power squared in place (power @= power changes A)", """
        S = X @ B.T
        power, offset = A, 1
        while offset < len(S):
            S = np.concatenate([S[:offset], S[offset:] + S[:-offset] @ power.T])
            power @= power
            offset *= 2
        return S
    """, hint="instead of writing into A, B or X"),
    mistake("linear_recurrence_parallel", "powers precomputed for the worked example's L = 4", """
        L = len(X)
        U = X @ B.T
        powers = [np.linalg.matrix_power(A, k) for k in range(4)]
        return np.array([sum(powers[t - j] @ U[j] for j in range(t + 1)) for t in range(L)])
    """, hint="nothing hard-coded from the worked example"),
    mistake("linear_recurrence_parallel", "inputs used without B (S = X.copy())", """
        S = X.copy()
        power, offset = A, 1
        while offset < len(S):
            S = np.concatenate([S[:offset], S[offset:] + S[:-offset] @ power.T])
            power = power @ power
            offset *= 2
        return S
    """, hint="map each input into the state with B"),
    mistake("linear_recurrence_parallel", "scan subtracts the moved block", """
        S = X @ B.T
        power, offset = A, 1
        while offset < len(S):
            S = np.concatenate([S[:offset], S[offset:] - S[:-offset] @ power.T])
            power = power @ power
            offset *= 2
        return S
    """, hint="follow the worked example row by row"),
    mistake("linear_recurrence_parallel", "scan moves blocks one row too far (lag + 1)", """
        S = X @ B.T
        power, offset = A, 1
        while offset < len(S):
            S = np.concatenate([S[:offset + 1], S[offset + 1:] + S[:-offset - 1] @ power.T])
            power = power @ power
            offset *= 2
        return S
    """, hint="follow the worked example row by row"),
    mistake("linear_recurrence_parallel", "B on the wrong side (X @ B) in a convolution", """
        L = len(X)
        U = X @ B
        powers = [np.linalg.matrix_power(A, k) for k in range(L)]
        return np.array([sum(powers[t - j] @ U[j] for j in range(t + 1)) for t in range(L)])
    """, hint="(not x_t @ B)"),
    mistake("answer_path_length", "thinks attention is sequential too", 'answer_path_length = "C"',
            hint="one hop"),
    mistake("answer_state_size", "thinks the state grows with the text",
            'answer_state_size = "B"', hint="always has n entries"),
    mistake("answer_scan_steps", "halves instead of taking log2", 'answer_scan_steps = "C"',
            hint="ceil(log2 L) rounds"),
    mistake("answer_implicit_position", "thinks the embeddings store position",
            'answer_implicit_position = "A"', hint="exactly t + 1 tokens"),
    mistake("answer_cross_attention", "applies the causal mask to the source",
            'answer_cross_attention = "B"', hint="known in full"),
    mistake("answer_no_mask_loss", "takes the leak for generalisation",
            'answer_no_mask_loss = "A"', hint="not a prediction loss"),
]

ALTERNATIVES = [
    alternative("linear_recurrence", "preallocated array and index loop", """
        L, n = X.shape[0], A.shape[0]
        S = np.zeros((L, n))
        for t in range(L):
            previous = S[t - 1] if t > 0 else np.zeros(n)
            S[t] = A @ previous + B @ X[t]
        return S
    """),
    alternative("linear_recurrence", "row-vector form with transposes, list output", """
        s = np.zeros((1, A.shape[0]))
        out = []
        for t in range(X.shape[0]):
            s = s @ A.T + X[t:t + 1] @ B.T
            out.append(s[0].tolist())
        return out
    """),
    alternative("linear_recurrence", "torch tensors", """
        import torch
        A_t, B_t, X_t = (torch.as_tensor(v, dtype=torch.float64) for v in (A, B, X))
        s = torch.zeros(A_t.shape[0], dtype=torch.float64)
        rows = []
        for x_t in X_t:
            s = A_t @ s + B_t @ x_t
            rows.append(s)
        return torch.stack(rows)
    """),
    alternative("linear_recurrence_parallel", "convolution with matrix powers and einsum", """
        L, n = X.shape[0], A.shape[0]
        powers = np.stack([np.linalg.matrix_power(A, k) for k in range(L)])  # (L, n, n)
        t, j = np.meshgrid(np.arange(L), np.arange(L), indexing="ij")
        kernel = powers[np.clip(t - j, 0, None)] * (t >= j)[..., None, None]  # (L, L, n, n)
        return np.einsum("tjab,bm,jm->ta", kernel, B, X)
    """),
    alternative("linear_recurrence_parallel", "scan on column states", """
        U = B @ X.T  # (n, L)
        P = A.copy()
        k = 1
        while k < U.shape[1]:
            U = np.concatenate([U[:, :k], U[:, k:] + P @ U[:, :-k]], axis=1)
            P = P @ P
            k *= 2
        return U.T
    """),
    # -- added in the adversarial review
    alternative("linear_recurrence", "einsum steps and itertools.accumulate", """
        import itertools
        inputs = np.einsum("nm,lm->ln", B, X)  # (L, n): B x_t
        states = itertools.accumulate(inputs, lambda s, u: np.einsum("ij,j->i", A, s) + u)
        return np.array(list(states)).reshape(X.shape[0], A.shape[0])
    """),
    alternative("linear_recurrence_parallel", "block Toeplitz matrix, one product", """
        L, n = X.shape[0], A.shape[0]
        powers = [np.eye(n)]
        for _ in range(L - 1):
            powers.append(A @ powers[-1])
        K = np.zeros((L * n, L * n))
        for t in range(L):
            for j in range(t + 1):
                K[t * n:(t + 1) * n, j * n:(j + 1) * n] = powers[t - j]
        U = (X @ B.T).reshape(L * n)
        return (K @ U).reshape(L, n)
    """),
    alternative("linear_recurrence_parallel", "scan in place, rows updated from the end", """
        S = (B @ X.T).T.copy()
        power, offset = A.copy(), 1
        while offset < S.shape[0]:
            for t in range(S.shape[0] - 1, offset - 1, -1):
                S[t] += power @ S[t - offset]
            power = power @ power
            offset <<= 1
        return S
    """),
    alternative("answer_scan_steps", "lower case", 'answer_scan_steps = "b"'),
    # -- added in the round on correct answers written otherwise (types, layouts, scans)
    alternative("linear_recurrence", "functools.reduce over the inputs, a list of states", """
        from functools import reduce
        states = reduce(lambda acc, x_t: acc + [A @ acc[-1] + B @ x_t], X,
                        [np.zeros(A.shape[0])])
        return np.vstack(states[1:]) if len(X) else np.zeros((0, A.shape[0]))
    """),
    alternative("linear_recurrence", "matmul with out= into a preallocated row", """
        L, n = X.shape[0], A.shape[0]
        S = np.empty((L, n))
        S[0] = B @ X[0]
        for t in range(1, L):
            np.matmul(A, S[t - 1], out=S[t])
            S[t] += B @ X[t]
        return S
    """),
    alternative("linear_recurrence", "column states stacked, a transposed view returned", """
        s = np.zeros((A.shape[0], 1))
        columns = []
        for t in range(X.shape[0]):
            s = A.dot(s) + B.dot(X[t].reshape(-1, 1))
            columns.append(s)
        return np.hstack(columns).T
    """),
    alternative("linear_recurrence", "pure Python lists and sums", """
        n, m = A.shape[0], B.shape[1]
        A_l, B_l = A.tolist(), B.tolist()
        s = [0.0] * n
        out = []
        for x_t in X.tolist():
            s = [sum(A_l[i][k] * s[k] for k in range(n)) + sum(B_l[i][k] * x_t[k]
                                                               for k in range(m))
                 for i in range(n)]
            out.append(s)
        return np.array(out, dtype=float).reshape(len(out), n)
    """),
    alternative("linear_recurrence", "torch float64 from numpy, returned as numpy", """
        import torch
        A_t, B_t = torch.from_numpy(A), torch.from_numpy(B)
        inputs = torch.from_numpy(X) @ B_t.T  # (L, n)
        s = torch.zeros(A.shape[0], dtype=torch.float64)
        out = torch.empty_like(inputs)
        for t in range(inputs.shape[0]):
            s = torch.mv(A_t, s) + inputs[t]
            out[t] = s
        return out.numpy()
    """),
    alternative("linear_recurrence_parallel", "associative scan over affine maps (M, v)", """
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
        return v
    """),
    alternative("linear_recurrence_parallel", "FFT convolution of the power kernel", """
        L, n = X.shape[0], A.shape[0]
        kernel = np.empty((L, n, n))
        kernel[0] = np.eye(n)
        for k in range(1, L):
            kernel[k] = A @ kernel[k - 1]
        U = X @ B.T  # (L, n)
        size = 2 * L
        K_f = np.fft.rfft(kernel, n=size, axis=0)  # (F, n, n)
        U_f = np.fft.rfft(U, n=size, axis=0)  # (F, n)
        return np.fft.irfft(np.einsum("fij,fj->fi", K_f, U_f), n=size, axis=0)[:L]
    """),
    alternative("linear_recurrence_parallel", "a sum over lags of shifted inputs", """
        L, n = X.shape[0], A.shape[0]
        U = X @ B.T  # (L, n)
        S = np.zeros((L, n))
        power = np.eye(n)
        for k in range(L):  # lag k: s_t gets A^k B x_{t-k} for every t >= k at once
            S[k:] += U[:L - k] @ power.T
            power = power @ A
        return S
    """),
    alternative("linear_recurrence_parallel", "divide and conquer on the two halves", """
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

        return solve(X @ B.T)
    """),
    alternative("linear_recurrence_parallel", "one block triangular solve (torch)", """
        import torch
        L, n = X.shape[0], A.shape[0]
        M = torch.from_numpy(np.eye(L * n) - np.kron(np.eye(L, k=-1), A))
        u = torch.from_numpy((X @ B.T).reshape(-1, 1))
        return torch.linalg.solve_triangular(M, u, upper=False).reshape(L, n).numpy()
    """),
    alternative("linear_recurrence_parallel", "torch doubling scan, a tensor returned", """
        import torch
        S = torch.from_numpy(X) @ torch.from_numpy(B).T  # (L, n) float64
        power = torch.from_numpy(A).clone()
        offset = 1
        while offset < S.shape[0]:
            S = torch.cat((S[:offset], S[offset:] + S[:-offset] @ power.T))
            power = torch.linalg.matrix_power(power, 2)
            offset *= 2
        return S
    """),
    alternative("linear_recurrence", "torch in its default float32", """
        import torch
        A_t, B_t, X_t = (torch.tensor(v.tolist()) for v in (A, B, X))  # float32
        s = torch.zeros(A_t.shape[0])
        rows = []
        for x_t in X_t:
            s = A_t @ s + B_t @ x_t
            rows.append(s)
        return torch.stack(rows)
    """),
    alternative("linear_recurrence_parallel", "doubling scan in float32 numpy", """
        S = X.astype(np.float32) @ B.T.astype(np.float32)  # (L, n)
        power = A.astype(np.float32)
        offset = 1
        while offset < len(S):
            S = np.concatenate([S[:offset], S[offset:] + S[:-offset] @ power.T])
            power = power @ power
            offset *= 2
        return S
    """),
]
