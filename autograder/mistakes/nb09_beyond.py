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
    mistake("answer_path_length", "thinks attention is sequential too", 'answer_path_length = "C"',
            hint="one hop"),
    mistake("answer_scan_steps", "halves instead of taking log2", 'answer_scan_steps = "B"',
            hint="ceil(log2 L) rounds"),
    mistake("answer_implicit_position", "thinks the random words carry position",
            'answer_implicit_position = "B"', hint="exactly t + 1 tokens"),
    mistake("answer_future_target", "blames parallel computation",
            'answer_future_target = "A"', hint="removing the causal mask"),
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
    alternative("answer_scan_steps", "lower case", 'answer_scan_steps = "a"'),
]
