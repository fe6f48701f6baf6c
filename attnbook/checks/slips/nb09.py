"""The known slips of notebook 09_beyond's visible checks: generated, do not edit.

Made by scripts/release.py (`make release`): each mistake of the grader's catalogue
of notebook 09, run on the visible cases of
attnbook/checks/nb09.py; its output (a wrong program's, on visible inputs)
on the first case that tells it apart from the reference, None for a part it gets
right. A check names the slip whose output a learner's matches.
"""

# ruff: noqa: E501

# function: {case id: [(mistake, detector, its output)]}
SLIPS = {
    'linear_recurrence': {
        'worked': [
            ('A applied after the input term', 'HINT_ORDER', [
                [1.5, 0.5],
                [3.25, 1.25],
                [2.875, 0.625],
                [5.5625, 1.8125],
            ]),
            ('A transposed (row-vector state times A)', 'HINT_TRANSPOSE', [
                [1.0, 1.0],
                [0.5, 3.5],
                [0.25, 2.25],
                [1.125, 4.375],
            ]),
            ('state stored before the update (off by one)', 'HINT_SHIFT', [
                [0.0, 0.0],
                [1.0, 1.0],
                [1.5, 2.5],
                [3.25, 1.25],
            ]),
            ('start state B x_0, then the loop from t = 0', 'HINT_START', [
                [2.5, 1.5],
                [2.75, 2.75],
                [4.125, 1.375],
                [4.4375, 3.6875],
            ]),
            ('input term forgotten after the first step', 'HINT_INPUT_ONCE', [
                [1.0, 1.0],
                [1.5, 0.5],
                [1.25, 0.25],
                [0.875, 0.125],
            ]),
            ('input added without B', 'HINT_B', [
                [1.0, 0.0],
                [0.5, 1.0],
                [1.25, 0.5],
                [2.125, 1.25],
            ]),
            ('x_t @ B instead of B @ x_t', 'HINT_B_TRANSPOSE', [
                [1.0, 0.0],
                [1.5, 2.0],
                [2.75, 1.0],
                [4.375, 2.5],
            ]),
            ('one array updated in place and stored L times', 'HINT_ALIAS', [
                [3.875, 3.625],
                [3.875, 3.625],
                [3.875, 3.625],
                [3.875, 3.625],
            ]),
            ('A applied to the input, not the state', 'HINT_ORDER', [
                [1.5, 0.5],
                [3.5, 1.5],
                [3.5, 1.5],
                [7.0, 3.0],
            ]),
            ('input term subtracted', 'HINT_SIGN', [
                [-1.0, -1.0],
                [-1.5, -2.5],
                [-3.25, -1.25],
                [-3.875, -3.625],
            ]),
            ('states collected newest first (insert(0, s))', 'HINT_REVERSED', [
                [3.875, 3.625],
                [3.25, 1.25],
                [1.5, 2.5],
                [1.0, 1.0],
            ]),
            ('output preallocated as an integer array', 'HINT_INTEGER', [
                [1.0, 1.0],
                [1.0, 2.0],
                [2.0, 1.0],
                [3.0, 3.0],
            ]),
        ],
    },
    'linear_recurrence_parallel': {
        'worked': [
            ('A^(t-j+1): one power too many', 'HINT_ORDER', [
                [1.5, 0.5],
                [3.25, 1.25],
                [2.875, 0.625],
                [5.5625, 1.8125],
            ]),
            ('elementwise powers A ** k', 'HINT_ELEMENTWISE', [
                [2.0, 2.0],
                [3.5, 2.5],
                [3.25, 1.25],
                [7.125, 4.625],
            ]),
            ('sum over j < t only (diagonal term missing)', 'HINT_DIAGONAL', [
                [0.0, 0.0],
                [1.5, 0.5],
                [3.25, 1.25],
                [2.875, 0.625],
            ]),
            ('A^j instead of A^(t-j)', 'HINT_FLIPPED', [
                [1.0, 1.0],
                [3.0, 2.0],
                [3.0, 2.0],
                [5.375, 2.375],
            ]),
            ('two-sided convolution (future inputs)', 'HINT_CAUSAL', [
                [5.375, 2.375],
                [4.75, 3.25],
                [6.75, 2.75],
                [3.875, 3.625],
            ]),
            ('scan that moves blocks with A instead of A^offset', 'HINT_SCAN_POWER', [
                [1.0, 1.0],
                [1.5, 2.5],
                [3.5, 1.5],
                [4.25, 4.25],
            ]),
            ('scan with A not transposed for row states', 'HINT_TRANSPOSE', [
                [1.0, 1.0],
                [0.5, 3.5],
                [0.25, 2.25],
                [1.125, 4.375],
            ]),
            ('convolution run backwards (inputs j >= t)', 'HINT_CAUSAL', [
                [5.375, 2.375],
                [3.25, 2.75],
                [3.5, 1.5],
                [1.0, 3.0],
            ]),
            ('scan rows updated in place', 'HINT_SCAN_IN_PLACE', [
                [1.0, 1.0],
                [1.5, 2.5],
                [4.5, 1.5],
                [6.75, 4.25],
            ]),
            ('scan squares the power too early', 'HINT_SCAN_POWER', [
                [1.0, 1.0],
                [1.25, 2.25],
                [2.5625, 0.5625],
                [2.203125, 3.140625],
            ]),
            ('scan stops a round early', 'HINT_SCAN_ROUNDS', [
                [1.0, 1.0],
                [1.5, 2.5],
                [2.0, 1.0],
                [1.0, 3.0],
            ]),
            ('inputs used without B (S = X.copy())', 'HINT_B', [
                [1.0, 0.0],
                [0.5, 1.0],
                [1.25, 0.5],
                [2.125, 1.25],
            ]),
            ('scan subtracts the moved block', 'HINT_VALUES', [
                [1.0, 1.0],
                [-1.5, 1.5],
                [-3.25, -1.25],
                [-0.125, 2.625],
            ]),
            ('scan moves blocks one row too far (lag + 1)', 'HINT_VALUES', [
                [1.0, 1.0],
                [0.0, 2.0],
                [1.5, 0.5],
                [4.25, 4.25],
            ]),
            ('B on the wrong side (X @ B) in a convolution', 'HINT_B_TRANSPOSE', [
                [1.0, 0.0],
                [1.5, 2.0],
                [2.75, 1.0],
                [4.375, 2.5],
            ]),
        ],
        '3 x 3': [
            ('scan power grows by A (power @ A) each round', 'HINT_SCAN_LINEAR_POWER', [
                [1.0967038158429705, 0.4231030907635871, 0.15747189925050106],
                [-0.9590588222025452, 2.8462276135985354, 3.4852389247302824],
                [-3.812521552321732, 3.027544600603245, 2.817387660240315],
                [2.2746847449330803, 0.09622219773051421, -2.299434205088452],
                [0.16740682557610873, 5.302301566146724, 7.344176047100759],
                [-10.055995590001302, 2.5107457520241097, 0.025159666731858765],
            ]),
            ('scan rounds counted with int(log2 L) (floor)', 'HINT_SCAN_ROUNDS', [
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
