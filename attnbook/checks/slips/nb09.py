"""The known slips of notebook 09_beyond's visible checks: generated, do not edit.

Made by scripts/release.py (`make release`): each mistake of the grader's catalogue
of notebook 09, run on the visible cases of
attnbook/checks/nb09.py; its output (a wrong program's, on visible inputs)
on the first case that tells it apart from the reference, None for a part it gets
right. A check names the slip whose output a learner's matches.
"""

# ruff: noqa: E501

# function: {case id: [(mistake, its hint, its output)]}
SLIPS = {
    'linear_recurrence': {
        'worked': [
            ('A applied after the input term', 'the new state is A s_{t-1} + B x_t: A multiplies the previous state only, so x_j reaches s_t as A^(t-j) B x_j (A^0 = I for j = t); A^(t-j+1) is one step too many', [
                [1.5, 0.5],
                [3.25, 1.25],
                [2.875, 0.625],
                [5.5625, 1.8125],
            ]),
            ('A transposed (row-vector state times A)', 'with states as column vectors the update is A @ s; s @ A (a row vector times A) computes A.T @ s', [
                [1.0, 1.0],
                [0.5, 3.5],
                [0.25, 2.25],
                [1.125, 4.375],
            ]),
            ('state stored before the update (off by one)', 'row t of the result must be s_t, the state AFTER reading x_t (s_0 = B x_0): store the state after the update, not before', [
                [0.0, 0.0],
                [1.0, 1.0],
                [1.5, 2.5],
                [3.25, 1.25],
            ]),
            ('start state B x_0, then the loop from t = 0', 'start from s_{-1} = 0 and let the loop read x_0 once; starting from B x_0 and then looping from t = 0 counts x_0 twice (a start state of ones adds a term that is not there, too)', [
                [2.5, 1.5],
                [2.75, 2.75],
                [4.125, 1.375],
                [4.4375, 3.6875],
            ]),
            ('input term forgotten after the first step', 'add the input term B x_t at every step, not only at t = 0', [
                [1.0, 1.0],
                [1.5, 0.5],
                [1.25, 0.25],
                [0.875, 0.125],
            ]),
            ('input added without B', 'map each input into the state with B: the term is B @ x_t, shape (n,)', [
                [1.0, 0.0],
                [0.5, 1.0],
                [1.25, 0.5],
                [2.125, 1.25],
            ]),
            ('x_t @ B instead of B @ x_t', 'B has shape (n, m), so the input term is B @ x_t (not x_t @ B)', [
                [1.0, 0.0],
                [1.5, 2.0],
                [2.75, 1.0],
                [4.375, 2.5],
            ]),
            ('one array updated in place and stored L times', 'every row equals the last state: the same array was updated in place and stored L times; store a new array each step (s = ... builds one; s[:] = ... or s += ... writes into the one already stored)', [
                [3.875, 3.625],
                [3.875, 3.625],
                [3.875, 3.625],
                [3.875, 3.625],
            ]),
            ('A applied to the input, not the state', 'the new state is A s_{t-1} + B x_t: A multiplies the previous state only, so x_j reaches s_t as A^(t-j) B x_j (A^0 = I for j = t); A^(t-j+1) is one step too many', [
                [1.5, 0.5],
                [3.5, 1.5],
                [3.5, 1.5],
                [7.0, 3.0],
            ]),
            ('input term subtracted', 'the input term is added, not subtracted: s_t = A s_{t-1} + B x_t', [
                [-1.0, -1.0],
                [-1.5, -2.5],
                [-3.25, -1.25],
                [-3.875, -3.625],
            ]),
            ('states collected newest first (insert(0, s))', 'row t is s_t, in time order: append each new state at the end (not insert(0, ...)) and do not reverse the result', [
                [3.875, 3.625],
                [3.25, 1.25],
                [1.5, 2.5],
                [1.0, 1.0],
            ]),
            ('output preallocated as an integer array', 'the states are real numbers: an integer array (dtype=int) truncates every value written into it; preallocate with np.zeros((L, n)) (float)', [
                [1.0, 1.0],
                [1.0, 2.0],
                [2.0, 1.0],
                [3.0, 3.0],
            ]),
        ],
    },
    'linear_recurrence_parallel': {
        'worked': [
            ('A^(t-j+1): one power too many', 'the new state is A s_{t-1} + B x_t: A multiplies the previous state only, so x_j reaches s_t as A^(t-j) B x_j (A^0 = I for j = t); A^(t-j+1) is one step too many', [
                [1.5, 0.5],
                [3.25, 1.25],
                [2.875, 0.625],
                [5.5625, 1.8125],
            ]),
            ('elementwise powers A ** k', 'A ** k raises each ENTRY to the power k (and A ** 0 is all ones); the matrix power is np.linalg.matrix_power(A, k) or repeated A @ ...', [
                [2.0, 2.0],
                [3.5, 2.5],
                [3.25, 1.25],
                [7.125, 4.625],
            ]),
            ('sum over j < t only (diagonal term missing)', 'j runs up to and including t: the j = t term is A^0 B x_t = B x_t', [
                [0.0, 0.0],
                [1.5, 0.5],
                [3.25, 1.25],
                [2.875, 0.625],
            ]),
            ('A^j instead of A^(t-j)', 'the power counts the steps from j to t: A^(t-j), not A^j', [
                [1.0, 1.0],
                [3.0, 2.0],
                [3.0, 2.0],
                [5.375, 2.375],
            ]),
            ('two-sided convolution (future inputs)', 's_t may only depend on inputs x_j with j <= t: no future input', [
                [5.375, 2.375],
                [4.75, 3.25],
                [6.75, 2.75],
                [3.875, 3.625],
            ]),
            ('scan that moves blocks with A instead of A^offset', 'in round k a block travels offset = 2^k steps, so move it by A^offset: square the power after each round', [
                [1.0, 1.0],
                [1.5, 2.5],
                [3.5, 1.5],
                [4.25, 4.25],
            ]),
            ('scan with A not transposed for row states', 'with states as column vectors the update is A @ s; s @ A (a row vector times A) computes A.T @ s', [
                [1.0, 1.0],
                [0.5, 3.5],
                [0.25, 2.25],
                [1.125, 4.375],
            ]),
            ('convolution run backwards (inputs j >= t)', 's_t may only depend on inputs x_j with j <= t: no future input', [
                [5.375, 2.375],
                [3.25, 2.75],
                [3.5, 1.5],
                [1.0, 3.0],
            ]),
            ('scan rows updated in place', 'compute every row of a round from the states of the PREVIOUS round: build the new S from the old one (np.concatenate or a copy), not row by row in place', [
                [1.0, 1.0],
                [1.5, 2.5],
                [4.5, 1.5],
                [6.75, 4.25],
            ]),
            ('scan squares the power too early', 'in round k a block travels offset = 2^k steps, so move it by A^offset: square the power after each round', [
                [1.0, 1.0],
                [1.25, 2.25],
                [2.5625, 0.5625],
                [2.203125, 3.140625],
            ]),
            ('scan stops a round early', 'keep doubling while offset < L: after the last round every row must have gathered all of its past inputs', [
                [1.0, 1.0],
                [1.5, 2.5],
                [2.0, 1.0],
                [1.0, 3.0],
            ]),
            ('inputs used without B (S = X.copy())', 'map each input into the state with B: the term is B @ x_t, shape (n,)', [
                [1.0, 0.0],
                [0.5, 1.0],
                [1.25, 0.5],
                [2.125, 1.25],
            ]),
            ('scan subtracts the moved block', 'follow the worked example row by row: s_0 = B x_0 = (1, 1), s_1 = A s_0 + B x_1 = (1.5, 2.5), s_2 = A s_1 = (3.25, 1.25)', [
                [1.0, 1.0],
                [-1.5, 1.5],
                [-3.25, -1.25],
                [-0.125, 2.625],
            ]),
            ('scan moves blocks one row too far (lag + 1)', 'follow the worked example row by row: s_0 = B x_0 = (1, 1), s_1 = A s_0 + B x_1 = (1.5, 2.5), s_2 = A s_1 = (3.25, 1.25)', [
                [1.0, 1.0],
                [0.0, 2.0],
                [1.5, 0.5],
                [4.25, 4.25],
            ]),
            ('B on the wrong side (X @ B) in a convolution', 'B has shape (n, m), so the input term is B @ x_t (not x_t @ B)', [
                [1.0, 0.0],
                [1.5, 2.0],
                [2.75, 1.0],
                [4.375, 2.5],
            ]),
        ],
        '3 x 3': [
            ('scan power grows by A (power @ A) each round', 'in round k a block travels offset = 2^k steps, so move it by A^offset: square the power after each round (power @ power, not power @ A)', [
                [1.0967038158429705, 0.4231030907635871, 0.15747189925050106],
                [-0.9590588222025452, 2.8462276135985354, 3.4852389247302824],
                [-3.812521552321732, 3.027544600603245, 2.817387660240315],
                [2.2746847449330803, 0.09622219773051421, -2.299434205088452],
                [0.16740682557610873, 5.302301566146724, 7.344176047100759],
                [-10.055995590001302, 2.5107457520241097, 0.025159666731858765],
            ]),
            ('scan rounds counted with int(log2 L) (floor)', 'keep doubling while offset < L: after the last round every row must have gathered all of its past inputs', [
                [1.0967038158429705, 0.4231030907635871, 0.15747189925050106],
                [-0.9590588222025452, 2.8462276135985354, 3.4852389247302824],
                [-3.812521552321732, 3.027544600603245, 2.817387660240315],
                [2.2746847449330803, 0.09622219773051421, -2.299434205088452],
                [-0.048458037671033516, 4.968548125433741, 7.192166652634427],
                [-8.858023312114819, 1.2805312018116788, -1.0806609858878937],
            ]),
        ],
    },
}
