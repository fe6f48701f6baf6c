"""Reference answers for notebook 09_beyond: generated, do not edit.

Made by scripts/release.py (`make release`) from the answer cells of
solutions/09_beyond/09_beyond.ipynb. Used by the hidden tests and the project's
own tests; never shipped to students.
"""


# ruff: noqa: E501, I001, F841, UP034
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


# -- the catalogued mistakes (autograder/mistakes/), resolved: the hidden trials run
# them on their inputs to name the slip a wrong output matches
# linear_recurrence: A applied after the input term
def _slip_linear_recurrence_0(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    s = np.zeros(A.shape[0])
    states = []
    for x_t in X:
        s = A @ (s + B @ x_t)
        states.append(s)
    return np.array(states)

# linear_recurrence: A transposed (row-vector state times A)
def _slip_linear_recurrence_1(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    s = np.zeros(A.shape[0])
    states = []
    for x_t in X:
        s = s @ A + B @ x_t
        states.append(s)
    return np.array(states)

# linear_recurrence: state stored before the update (off by one)
def _slip_linear_recurrence_2(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    s = np.zeros(A.shape[0])
    states = []
    for x_t in X:
        states.append(s)
        s = A @ s + B @ x_t
    return np.array(states)

# linear_recurrence: start state B x_0, then the loop from t = 0
def _slip_linear_recurrence_3(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    s = B @ X[0]
    states = []
    for x_t in X:
        s = A @ s + B @ x_t
        states.append(s)
    return np.array(states)

# linear_recurrence: input term forgotten after the first step
def _slip_linear_recurrence_4(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    s = np.zeros(A.shape[0])
    states = []
    for t, x_t in enumerate(X):
        s = A @ s + (B @ x_t if t == 0 else 0.0)
        states.append(s)
    return np.array(states)

# linear_recurrence: input added without B
def _slip_linear_recurrence_5(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    s = np.zeros(A.shape[0])
    states = []
    for x_t in X:
        s = A @ s + x_t
        states.append(s)
    return np.array(states)

# linear_recurrence: x_t @ B instead of B @ x_t
def _slip_linear_recurrence_6(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    s = np.zeros(A.shape[0])
    states = []
    for x_t in X:
        s = A @ s + x_t @ B
        states.append(s)
    return np.array(states)

# linear_recurrence: one array updated in place and stored L times
def _slip_linear_recurrence_7(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    s = np.zeros(A.shape[0])
    states = []
    for x_t in X:
        s[:] = A @ s + B @ x_t
        states.append(s)
    return np.array(states)

# linear_recurrence: states returned as columns (n, L)
def _slip_linear_recurrence_8(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    s = np.zeros(A.shape[0])
    states = []
    for x_t in X:
        s = A @ s + B @ x_t
        states.append(s)
    return np.array(states).T

# linear_recurrence: A applied to the input, not the state
def _slip_linear_recurrence_9(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    s = np.zeros(A.shape[0])
    states = []
    for x_t in X:
        s = s + A @ (B @ x_t)
        states.append(s)
    return np.array(states)

# linear_recurrence: elementwise A * s
def _slip_linear_recurrence_10(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    s = np.zeros(A.shape[0])
    states = []
    for x_t in X:
        s = A * s + B @ x_t
        states.append(s)
    return np.array(states)

# linear_recurrence: returns only the final state
def _slip_linear_recurrence_11(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    s = np.zeros(A.shape[0])
    for x_t in X:
        s = A @ s + B @ x_t
    return s

# linear_recurrence: input term subtracted
def _slip_linear_recurrence_12(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    s = np.zeros(A.shape[0])
    states = []
    for x_t in X:
        s = A @ s - B @ x_t
        states.append(s)
    return np.array(states)

# linear_recurrence: states collected newest first (insert(0, s))
def _slip_linear_recurrence_13(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    s = np.zeros(A.shape[0])
    states = []
    for x_t in X:
        s = A @ s + B @ x_t
        states.insert(0, s)
    return np.array(states)

# linear_recurrence: state size hard-coded to the worked example's 2
def _slip_linear_recurrence_14(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    s = np.zeros(2)
    states = []
    for x_t in X:
        s = A @ s + B @ x_t
        states.append(s)
    return np.array(states)

# linear_recurrence: loop over range(4), the worked example's length
def _slip_linear_recurrence_15(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    s = np.zeros(A.shape[0])
    states = []
    for t in range(4):
        s = A @ s + B @ X[t]
        states.append(s)
    return np.array(states)

# linear_recurrence: output preallocated as an integer array
def _slip_linear_recurrence_16(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    L, n = (X.shape[0], A.shape[0])
    S = np.zeros((L, n), dtype=int)
    previous = np.zeros(n)
    for t in range(L):
        S[t] = A @ previous + B @ X[t]
        previous = S[t]
    return S

# linear_recurrence: loop over the columns of B @ X.T instead of its rows
def _slip_linear_recurrence_17(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    U = B @ X.T
    s = np.zeros(A.shape[0])
    states = []
    for u in U:
        s = A @ s + u
        states.append(s)
    return np.array(states)

# linear_recurrence: closed form through A's inverse, A^t sum_j A^-j B x_j
def _slip_linear_recurrence_18(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    n = A.shape[0]
    A_inv = np.linalg.inv(A)
    total, power, inverse_power, out = (np.zeros(n), np.eye(n), np.eye(n), [])
    for x_t in X:
        total = total + inverse_power @ (B @ x_t)
        out.append(power @ total)
        power, inverse_power = (A @ power, inverse_power @ A_inv)
    return np.array(out).reshape(len(X), n)

# linear_recurrence_parallel: cumulative sum of A^-t B x_t, times A^t
def _slip_linear_recurrence_parallel_0(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    n, L = (A.shape[0], len(X))
    A_inv, U = (np.linalg.inv(A), X @ B.T)
    terms = [np.linalg.matrix_power(A_inv, t) @ U[t] for t in range(L)]
    C = np.cumsum(np.array(terms).reshape(L, n), axis=0)
    return np.array([np.linalg.matrix_power(A, t) @ C[t] for t in range(L)]).reshape(L, n)

# linear_recurrence_parallel: A^(t-j+1): one power too many
def _slip_linear_recurrence_parallel_1(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    L = len(X)
    U = X @ B.T
    S = np.zeros((L, A.shape[0]))
    for t in range(L):
        for j in range(t + 1):
            S[t] += np.linalg.matrix_power(A, t - j + 1) @ U[j]
    return S

# linear_recurrence_parallel: elementwise powers A ** k
def _slip_linear_recurrence_parallel_2(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    L = len(X)
    U = X @ B.T
    S = np.zeros((L, A.shape[0]))
    for t in range(L):
        for j in range(t + 1):
            S[t] += A ** (t - j) @ U[j]
    return S

# linear_recurrence_parallel: sum over j < t only (diagonal term missing)
def _slip_linear_recurrence_parallel_3(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    L = len(X)
    U = X @ B.T
    powers = [np.linalg.matrix_power(A, k) for k in range(L)]
    return np.array([sum((powers[t - j] @ U[j] for j in range(t)), np.zeros(A.shape[0])) for t in range(L)])

# linear_recurrence_parallel: A^j instead of A^(t-j)
def _slip_linear_recurrence_parallel_4(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    L = len(X)
    U = X @ B.T
    powers = [np.linalg.matrix_power(A, k) for k in range(L)]
    return np.array([sum((powers[j] @ U[j] for j in range(t + 1))) for t in range(L)])

# linear_recurrence_parallel: two-sided convolution (future inputs)
def _slip_linear_recurrence_parallel_5(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    L = len(X)
    U = X @ B.T
    powers = [np.linalg.matrix_power(A, k) for k in range(L)]
    return np.array([sum((powers[abs(t - j)] @ U[j] for j in range(L))) for t in range(L)])

# linear_recurrence_parallel: scan that moves blocks with A instead of A^offset
def _slip_linear_recurrence_parallel_6(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    S = X @ B.T
    offset = 1
    while offset < len(S):
        S = np.concatenate([S[:offset], S[offset:] + S[:-offset] @ A.T])
        offset *= 2
    return S

# linear_recurrence_parallel: scan with A not transposed for row states
def _slip_linear_recurrence_parallel_7(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    S = X @ B.T
    power, offset = (A, 1)
    while offset < len(S):
        S = np.concatenate([S[:offset], S[offset:] + S[:-offset] @ power])
        power = power @ power
        offset *= 2
    return S

# linear_recurrence_parallel: calls the step-by-step loop
def _slip_linear_recurrence_parallel_8(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    return linear_recurrence(A, B, X)

# linear_recurrence_parallel: convolution run backwards (inputs j >= t)
def _slip_linear_recurrence_parallel_9(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    L = len(X)
    U = X @ B.T
    powers = [np.linalg.matrix_power(A, k) for k in range(L)]
    return np.array([sum((powers[j - t] @ U[j] for j in range(t, L))) for t in range(L)])

# linear_recurrence_parallel: scan rows updated in place
def _slip_linear_recurrence_parallel_10(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    S = X @ B.T
    power, offset = (A, 1)
    while offset < len(S):
        for t in range(offset, len(S)):
            S[t] = S[t] + power @ S[t - offset]
        power = power @ power
        offset *= 2
    return S

# linear_recurrence_parallel: scan squares the power too early
def _slip_linear_recurrence_parallel_11(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    S = X @ B.T
    power, offset = (A, 1)
    while offset < len(S):
        power = power @ power
        S = np.concatenate([S[:offset], S[offset:] + S[:-offset] @ power.T])
        offset *= 2
    return S

# linear_recurrence_parallel: scan stops a round early
def _slip_linear_recurrence_parallel_12(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    S = X @ B.T
    power, offset = (A, 1)
    while 2 * offset < len(S):
        S = np.concatenate([S[:offset], S[offset:] + S[:-offset] @ power.T])
        power = power @ power
        offset *= 2
    return S

# linear_recurrence_parallel: scan power grows by A (power @ A) each round
def _slip_linear_recurrence_parallel_13(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    S = X @ B.T
    power, offset = (A, 1)
    while offset < len(S):
        S = np.concatenate([S[:offset], S[offset:] + S[:-offset] @ power.T])
        power = power @ A
        offset *= 2
    return S

# linear_recurrence_parallel: scan rounds counted with int(log2 L) (floor)
def _slip_linear_recurrence_parallel_14(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    S = X @ B.T
    power, offset = (A, 1)
    for _ in range(int(np.log2(len(S)))):
        S = np.concatenate([S[:offset], S[offset:] + S[:-offset] @ power.T])
        power = power @ power
        offset *= 2
    return S

# linear_recurrence_parallel: power squared in place (power @= power changes A)
def _slip_linear_recurrence_parallel_15(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    S = X @ B.T
    power, offset = (A, 1)
    while offset < len(S):
        S = np.concatenate([S[:offset], S[offset:] + S[:-offset] @ power.T])
        power @= power
        offset *= 2
    return S

# linear_recurrence_parallel: powers precomputed for the worked example's L = 4
def _slip_linear_recurrence_parallel_16(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    L = len(X)
    U = X @ B.T
    powers = [np.linalg.matrix_power(A, k) for k in range(4)]
    return np.array([sum((powers[t - j] @ U[j] for j in range(t + 1))) for t in range(L)])

# linear_recurrence_parallel: inputs used without B (S = X.copy())
def _slip_linear_recurrence_parallel_17(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    S = X.copy()
    power, offset = (A, 1)
    while offset < len(S):
        S = np.concatenate([S[:offset], S[offset:] + S[:-offset] @ power.T])
        power = power @ power
        offset *= 2
    return S

# linear_recurrence_parallel: scan subtracts the moved block
def _slip_linear_recurrence_parallel_18(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    S = X @ B.T
    power, offset = (A, 1)
    while offset < len(S):
        S = np.concatenate([S[:offset], S[offset:] - S[:-offset] @ power.T])
        power = power @ power
        offset *= 2
    return S

# linear_recurrence_parallel: scan moves blocks one row too far (lag + 1)
def _slip_linear_recurrence_parallel_19(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    S = X @ B.T
    power, offset = (A, 1)
    while offset < len(S):
        S = np.concatenate([S[:offset + 1], S[offset + 1:] + S[:-offset - 1] @ power.T])
        power = power @ power
        offset *= 2
    return S

# linear_recurrence_parallel: B on the wrong side (X @ B) in a convolution
def _slip_linear_recurrence_parallel_20(A, B, X):
    A, B, X = (np.asarray(v, dtype=np.float64) for v in (A, B, X))
    require_ndim('A', A, 2, '(n, n)')
    require_same_size('A', A, 0, 'A', A, 1, 'the state size n (A must be square)')
    require_ndim('B', B, 2, '(n, m)')
    require_same_size('B', B, 0, 'A', A, 0, 'the state size n')
    require_ndim('X', X, 2, '(L, m)')
    require_same_size('X', X, 1, 'B', B, 1, 'the input width m')
    L = len(X)
    U = X @ B
    powers = [np.linalg.matrix_power(A, k) for k in range(L)]
    return np.array([sum((powers[t - j] @ U[j] for j in range(t + 1))) for t in range(L)])


# function: [(mistake, its hint, the mistake as a function)]
SLIPS = {
    'linear_recurrence': [
        ('A applied after the input term', 'the new state is A s_{t-1} + B x_t: A multiplies the previous state only, so x_j reaches s_t as A^(t-j) B x_j (A^0 = I for j = t); A^(t-j+1) is one step too many', _slip_linear_recurrence_0),
        ('A transposed (row-vector state times A)', 'with states as column vectors the update is A @ s; s @ A (a row vector times A) computes A.T @ s', _slip_linear_recurrence_1),
        ('state stored before the update (off by one)', 'row t of the result must be s_t, the state AFTER reading x_t (s_0 = B x_0): store the state after the update, not before', _slip_linear_recurrence_2),
        ('start state B x_0, then the loop from t = 0', 'start from s_{-1} = 0 and let the loop read x_0 once; starting from B x_0 and then looping from t = 0 counts x_0 twice (a start state of ones adds a term that is not there, too)', _slip_linear_recurrence_3),
        ('input term forgotten after the first step', 'add the input term B x_t at every step, not only at t = 0', _slip_linear_recurrence_4),
        ('input added without B', 'map each input into the state with B: the term is B @ x_t, shape (n,)', _slip_linear_recurrence_5),
        ('x_t @ B instead of B @ x_t', 'B has shape (n, m), so the input term is B @ x_t (not x_t @ B)', _slip_linear_recurrence_6),
        ('one array updated in place and stored L times', 'every row equals the last state: the same array was updated in place and stored L times; store a new array each step (s = ... builds one; s[:] = ... or s += ... writes into the one already stored)', _slip_linear_recurrence_7),
        ('states returned as columns (n, L)', "one row per time step t and one column per state entry: (L, n). take every size from the arguments: n = A.shape[0] (the state), m = B.shape[1] (the input), L = len(X); nothing hard-coded from the worked example (2 and 4), and the output is (L, n), not X's shape (L, m)", _slip_linear_recurrence_8),
        ('A applied to the input, not the state', 'the new state is A s_{t-1} + B x_t: A multiplies the previous state only, so x_j reaches s_t as A^(t-j) B x_j (A^0 = I for j = t); A^(t-j+1) is one step too many', _slip_linear_recurrence_9),
        ('elementwise A * s', 'A * s multiplies entry by entry (and broadcasts to (n, n)); the update is the matrix-vector product A @ s. A column state of shape (n, 1) plus a row B @ x_t of shape (n,) broadcasts to (n, n) too: keep s one-dimensional, np.zeros(n)', _slip_linear_recurrence_10),
        ('returns only the final state', 'keep every state: one row per time step t', _slip_linear_recurrence_11),
        ('input term subtracted', 'the input term is added, not subtracted: s_t = A s_{t-1} + B x_t', _slip_linear_recurrence_12),
        ('states collected newest first (insert(0, s))', 'row t is s_t, in time order: append each new state at the end (not insert(0, ...)) and do not reverse the result', _slip_linear_recurrence_13),
        ("state size hard-coded to the worked example's 2", "take every size from the arguments: n = A.shape[0] (the state), m = B.shape[1] (the input), L = len(X); nothing hard-coded from the worked example (2 and 4), and the output is (L, n), not X's shape (L, m)", _slip_linear_recurrence_14),
        ("loop over range(4), the worked example's length", "one row per time step t and one column per state entry: (L, n). take every size from the arguments: n = A.shape[0] (the state), m = B.shape[1] (the input), L = len(X); nothing hard-coded from the worked example (2 and 4), and the output is (L, n), not X's shape (L, m)", _slip_linear_recurrence_15),
        ('output preallocated as an integer array', 'the states are real numbers: an integer array (dtype=int) truncates every value written into it; preallocate with np.zeros((L, n)) (float)', _slip_linear_recurrence_16),
        ('loop over the columns of B @ X.T instead of its rows', "take every size from the arguments: n = A.shape[0] (the state), m = B.shape[1] (the input), L = len(X); nothing hard-coded from the worked example (2 and 4), and the output is (L, n), not X's shape (L, m)", _slip_linear_recurrence_17),
        ("closed form through A's inverse, A^t sum_j A^-j B x_j", 'A may be singular (A = 0 forgets the past): never invert A; step s_t = A s_{t-1} + B x_t, or double with powers A^2, A^4, ...', _slip_linear_recurrence_18),
    ],
    'linear_recurrence_parallel': [
        ('cumulative sum of A^-t B x_t, times A^t', 'A may be singular (A = 0 forgets the past): never invert A; step s_t = A s_{t-1} + B x_t, or double with powers A^2, A^4, ...', _slip_linear_recurrence_parallel_0),
        ('A^(t-j+1): one power too many', 'the new state is A s_{t-1} + B x_t: A multiplies the previous state only, so x_j reaches s_t as A^(t-j) B x_j (A^0 = I for j = t); A^(t-j+1) is one step too many', _slip_linear_recurrence_parallel_1),
        ('elementwise powers A ** k', 'A ** k raises each ENTRY to the power k (and A ** 0 is all ones); the matrix power is np.linalg.matrix_power(A, k) or repeated A @ ...', _slip_linear_recurrence_parallel_2),
        ('sum over j < t only (diagonal term missing)', 'j runs up to and including t: the j = t term is A^0 B x_t = B x_t', _slip_linear_recurrence_parallel_3),
        ('A^j instead of A^(t-j)', 'the power counts the steps from j to t: A^(t-j), not A^j', _slip_linear_recurrence_parallel_4),
        ('two-sided convolution (future inputs)', 's_t may only depend on inputs x_j with j <= t: no future input', _slip_linear_recurrence_parallel_5),
        ('scan that moves blocks with A instead of A^offset', 'in round k a block travels offset = 2^k steps, so move it by A^offset: square the power after each round', _slip_linear_recurrence_parallel_6),
        ('scan with A not transposed for row states', 'with states as column vectors the update is A @ s; s @ A (a row vector times A) computes A.T @ s', _slip_linear_recurrence_parallel_7),
        ('calls the step-by-step loop', 'the parallel form must not call linear_recurrence (the step-by-step loop): build it from the powers of A (a convolution) or a doubling scan', _slip_linear_recurrence_parallel_8),
        ('convolution run backwards (inputs j >= t)', 's_t may only depend on inputs x_j with j <= t: no future input', _slip_linear_recurrence_parallel_9),
        ('scan rows updated in place', 'compute every row of a round from the states of the PREVIOUS round: build the new S from the old one (np.concatenate or a copy), not row by row in place', _slip_linear_recurrence_parallel_10),
        ('scan squares the power too early', 'in round k a block travels offset = 2^k steps, so move it by A^offset: square the power after each round', _slip_linear_recurrence_parallel_11),
        ('scan stops a round early', 'keep doubling while offset < L: after the last round every row must have gathered all of its past inputs', _slip_linear_recurrence_parallel_12),
        ('scan power grows by A (power @ A) each round', 'in round k a block travels offset = 2^k steps, so move it by A^offset: square the power after each round (power @ power, not power @ A)', _slip_linear_recurrence_parallel_13),
        ('scan rounds counted with int(log2 L) (floor)', 'keep doubling while offset < L: after the last round every row must have gathered all of its past inputs', _slip_linear_recurrence_parallel_14),
        ('power squared in place (power @= power changes A)', 'compute new arrays (s = A @ s + ...) instead of writing into A, B or X', _slip_linear_recurrence_parallel_15),
        ("powers precomputed for the worked example's L = 4", "take every size from the arguments: n = A.shape[0] (the state), m = B.shape[1] (the input), L = len(X); nothing hard-coded from the worked example (2 and 4), and the output is (L, n), not X's shape (L, m)", _slip_linear_recurrence_parallel_16),
        ('inputs used without B (S = X.copy())', 'map each input into the state with B: the term is B @ x_t, shape (n,)', _slip_linear_recurrence_parallel_17),
        ('scan subtracts the moved block', 'follow the worked example row by row: s_0 = B x_0 = (1, 1), s_1 = A s_0 + B x_1 = (1.5, 2.5), s_2 = A s_1 = (3.25, 1.25)', _slip_linear_recurrence_parallel_18),
        ('scan moves blocks one row too far (lag + 1)', 'follow the worked example row by row: s_0 = B x_0 = (1, 1), s_1 = A s_0 + B x_1 = (1.5, 2.5), s_2 = A s_1 = (3.25, 1.25)', _slip_linear_recurrence_parallel_19),
        ('B on the wrong side (X @ B) in a convolution', 'B has shape (n, m), so the input term is B @ x_t (not x_t @ B)', _slip_linear_recurrence_parallel_20),
    ],
}
