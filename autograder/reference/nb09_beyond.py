"""Reference answers for notebook 09, written the way the exercises ask (numpy, float64).

Used by the hidden tests and the project's own tests; never shipped to students.
"""

import numpy as np

ANSWERS = {
    # name: (options, correct letter, explanation shown when the answer is wrong)
    "answer_path_length": ("ABC", "A", "an RNN carries x_1 through every later update, n - 1 "
                           "sequential steps; causal attention reads x_1 from x_n's query "
                           "directly, one hop, for O(n^2) scores."),
    "answer_state_size": ("ABC", "C", "s_t always has n entries: each step folds the new input "
                          "into the same state, while the cache keeps the keys and values of every "
                          "earlier token."),
    "answer_scan_steps": ("ABC", "B", "after round k every row sums its last 2^(k+1) inputs; 2^9 = "
                          "512 < 1000 <= 1024 = 2^10, so ceil(log2 L) rounds = 10."),
    "answer_implicit_position": ("ABC", "B", "with the causal mask token t averages over exactly t "
                                 "+ 1 tokens, so its state depends on its prefix length; the words "
                                 "are shuffled, so they carry no position."),
    "answer_cross_attention": ("ABC", "A", "cross-attention takes queries from the target and keys "
                               "and values from the source, which is known in full before "
                               "decoding: every target position may read every source word."),
    "answer_no_mask_loss": ("ABC", "C", "the unmasked decoder read each target during teacher "
                            "forcing, so its loss is not a prediction loss; the order probe, shown "
                            "the prefix only, exposes it."),
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
