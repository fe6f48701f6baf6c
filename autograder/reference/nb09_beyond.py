"""Reference answers for notebook 09, written the way the exercises ask (numpy, float64).

Used by the hidden tests and the project's own tests; never shipped to students.
"""

import numpy as np

ANSWERS = {
    # name: (options, correct letter, explanation shown when the answer is wrong)
    "answer_path_length": ("ABC", "B", "an RNN carries x_1 through every later update, "
                           "n - 1 sequential steps; causal attention reads x_1 from x_n's "
                           "query directly, one hop, at the price of O(n^2) scores."),
    "answer_scan_steps": ("ABC", "A", "each doubling round combines blocks twice as long, so "
                          "ceil(log2 L) rounds cover L = 1024 steps: 10 rounds."),
    "answer_implicit_position": ("ABC", "C", "with the causal mask token t averages over "
                                 "exactly t + 1 tokens, so its hidden state depends on how "
                                 "long its prefix is; without the mask every token sees the "
                                 "same set and nothing marks where it stands."),
    "answer_future_target": ("ABC", "C", "removing the causal mask lets position t read token "
                             "t + 1, its own target; computing all rows together or "
                             "normalising each token leaks nothing."),
    "answer_no_mask_loss": ("ABC", "B", "the unmasked decoder read each target during "
                            "teacher forcing, so its loss is not a prediction loss; the "
                            "order probe, which shows it the prefix only, exposes it."),
}


def linear_recurrence(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    s = np.zeros(A.shape[0])
    states = []
    for x_t in X:
        s = A @ s + B @ x_t
        states.append(s)
    return np.array(states).reshape(len(X), A.shape[0])


def linear_recurrence_parallel(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    S = X @ B.T  # (L, n): the inputs B x_t
    power = A  # A^(2^k) in round k
    offset = 1
    while offset < len(S):
        # Hillis-Steele doubling: s_t gathers the block ending at t - offset, moved on by
        # A^offset; after round k each row holds the sum over the last 2^(k+1) inputs.
        S = np.concatenate([S[:offset], S[offset:] + S[:-offset] @ power.T])
        power = power @ power
        offset *= 2
    return S
