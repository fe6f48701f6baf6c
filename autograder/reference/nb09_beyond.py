"""Reference answers for notebook 09_beyond: generated, do not edit.

Made by scripts/release.py (`make release`) from the answer cells of
solutions/09_beyond/09_beyond.ipynb. Used by the hidden tests and the project's
own tests; never shipped to students.
"""


# ruff: noqa: E501, I001
import numpy as np
from attnbook.shapes import require_ndim, require_same_size


# name: (options, correct letter, explanation shown when the answer is wrong)
ANSWERS = {
    'answer_path_length': ('ABC', 'B', "the RNN passes x_1 through 999 sequential updates; one attention layer reads x_1 from x_1000's query directly, and the residual stream carries it up the rest."),
    'answer_state_size': ('ABC', 'C', 's_t always has n entries: each step folds the new input into the same state, while the cache keeps the keys and values of every earlier token.'),
    'answer_scan_steps': ('ABC', 'B', 'after round k every row sums its last 2^(k+1) inputs; 2^9 = 512 < 1000 <= 1024 = 2^10, so ceil(log2 L) rounds = 10.'),
    'answer_implicit_position': ('ABC', 'B', 'with the causal mask token t averages over exactly t + 1 tokens, so its state depends on its prefix length; the words are shuffled, so they carry no position.'),
    'answer_cross_attention': ('ABC', 'A', 'cross-attention takes queries from the target and keys and values from the source, which is known in full before decoding: every target position may read every source word.'),
    'answer_no_mask_loss': ('ABC', 'A', 'unmasked, each position read its target during training and copied it; when writing, that next input does not exist yet, so its low loss was no prediction.'),
    'answer_learned_beyond': ('ABC', 'C', 'the inputs are the tokens 0 .. n-2, so positions 0 to 22 at most: a row gets a gradient only when an input stands there; rows 23 to 63 keep their random start.'),
}


# -- from the answer cell linear_recurrence
def linear_recurrence(A, B, X):
    """States of s_t = A s_{t-1} + B x_t, one step at a time, from s_{-1} = 0.

    Args:
        A: (n, n) state update.
        B: (n, m) input map.
        X: (L, m) inputs; row t is x_t.

    Returns:
        S: (L, n) states; row t is s_t (so row 0 is B x_0).
    """
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))  # lists, ints, tensors too
    require_ndim("A", A, 2, "(n, n)")
    require_same_size("A", A, 0, "A", A, 1, "the state size n (A must be square)")
    require_ndim("B", B, 2, "(n, m)")
    require_same_size("B", B, 0, "A", A, 0, "the state size n")
    require_ndim("X", X, 2, "(L, m)")
    require_same_size("X", X, 1, "B", B, 1, "the input width m")
    # Key idea: Step through the sequence: s_t = A s_{t-1} + B x_t from s_{-1} = 0, keeping each
    #   state as a new array.
    s = np.zeros(A.shape[0])  # (n,): s_{-1} = 0
    states = []
    for x_t in X:  # x_t: (m,)
        s = A @ s + B @ x_t  # (n,): a new array each step
        states.append(s)
    return np.array(states).reshape(len(X), A.shape[0])  # (L, n)


# -- from the answer cell linear_recurrence_parallel
def linear_recurrence_parallel(A, B, X):
    """The states of linear_recurrence, from s_t = sum_{j<=t} A^(t-j) B x_j, in parallel.

    Args:
        A: (n, n) state update.
        B: (n, m) input map.
        X: (L, m) inputs; row t is x_t.

    Returns:
        S: (L, n) states; row t is s_t (so row 0 is B x_0).
    """
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))  # lists, ints, tensors too
    require_ndim("A", A, 2, "(n, n)")
    require_same_size("A", A, 0, "A", A, 1, "the state size n (A must be square)")
    require_ndim("B", B, 2, "(n, m)")
    require_same_size("B", B, 0, "A", A, 0, "the state size n")
    require_ndim("X", X, 2, "(L, m)")
    require_same_size("X", X, 1, "B", B, 1, "the input width m")
    # Key idea: Doubling: start from the rows B x_t; in each round add to every row the row
    #   `offset` above it, moved on by A^offset, then square the power and double the offset: about
    #   log2(L) rounds instead of L steps.
    S = X @ B.T  # (L, m) @ (m, n) -> (L, n): row t is B x_t
    power = A  # (n, n): A^offset
    offset = 1
    while offset < len(S):
        moved = S[:-offset] @ power.T  # (L - offset, n): row t - offset moved on by A^offset
        S = np.concatenate([S[:offset], S[offset:] + moved])  # (L, n)
        power = power @ power  # A^(2 offset)
        offset *= 2
    return S
