"""The known slips of notebook 04_masks's visible checks: generated, do not edit.

Made by scripts/release.py (`make release`): each mistake of the grader's catalogue
of notebook 04, run on the visible cases of
attnbook/checks/nb04.py; its output (a wrong program's, on visible inputs)
on the first case that tells it apart from the reference, None for a part it gets
right. A check names the slip whose output a learner's matches.
"""

# ruff: noqa: E501

# function: {case id: [(mistake, detector, its output)]}
SLIPS = {
    'causal_mask': {
        '4': [
            ('diagonal excluded (j < i)', 'HINT_DIAGONAL_EXCLUDED', [
                [False, False, False, False],
                [True, False, False, False],
                [True, True, False, False],
                [True, True, True, False],
            ]),
            ('mask transposed (j >= i)', 'HINT_CAUSAL_TRANSPOSED', [
                [True, True, True, True],
                [False, True, True, True],
                [False, False, True, True],
                [False, False, False, True],
            ]),
            ('True marks the blocked future', 'HINT_CAUSAL_INVERTED', [
                [False, True, True, True],
                [False, False, True, True],
                [False, False, False, True],
                [False, False, False, False],
            ]),
            ('nothing blocked (all True)', 'HINT_NOTHING_BLOCKED', [
                [True, True, True, True],
                [True, True, True, True],
                [True, True, True, True],
                [True, True, True, True],
            ]),
            ('only the diagonal (np.eye)', 'HINT_ONLY_DIAGONAL', [
                [True, False, False, False],
                [False, True, False, False],
                [False, False, True, False],
                [False, False, False, True],
            ]),
            ('tril with k=1 lets each query read the next token', 'HINT_TRIL_K1', [
                [True, True, False, False],
                [True, True, True, False],
                [True, True, True, True],
                [True, True, True, True],
            ]),
            ('loop over range(L - 1) leaves the last row False', 'HINT_LAST_ROW', [
                [True, False, False, False],
                [True, True, False, False],
                [True, True, True, False],
                [False, False, False, False],
            ]),
        ],
    },
    'padding_mask': {
        '[4, 2], 4': [
            ('lengths off by one (<=)', 'HINT_LENGTHS_OFF_ONE', [
                [True, True, True, True],
                [True, True, True, False],
            ]),
            ('True marks the padding', 'HINT_PADDING_INVERTED', [
                [False, False, False, False],
                [False, False, True, True],
            ]),
            ('left padding', 'HINT_LEFT_PADDED', [
                [True, True, True, True],
                [False, False, True, True],
            ]),
            ('lengths off by one (< length - 1)', 'HINT_LENGTHS_OFF_ONE', [
                [True, True, True, False],
                [True, False, False, False],
            ]),
            ("every row built from the first message's length", 'HINT_FIRST_LENGTH_ONLY', [
                [True, True, True, True],
                [True, True, True, True],
            ]),
            ('loop over range(B - 1) leaves the last message False', 'HINT_LAST_MESSAGE', [
                [True, True, True, True],
                [False, False, False, False],
            ]),
        ],
    },
    'attention_mask': {
        '[4, 2], 4, False': [
            ('padding taken from the query side', 'HINT_PADDING_TAKEN_QUERY_SIDE', [
                [
                    [True, True, True, True],
                    [True, True, True, True],
                    [True, True, True, True],
                    [True, True, True, True],
                ],
                [
                    [True, True, True, True],
                    [True, True, True, True],
                    [False, False, False, False],
                    [False, False, False, False],
                ],
            ]),
            ('padded query rows masked too', 'HINT_PADDED_QUERY_ROWS_MASKED', [
                [
                    [True, True, True, True],
                    [True, True, True, True],
                    [True, True, True, True],
                    [True, True, True, True],
                ],
                [
                    [True, True, False, False],
                    [True, True, False, False],
                    [False, False, False, False],
                    [False, False, False, False],
                ],
            ]),
            ('causal flag ignored', 'HINT_CAUSAL_FLAG_IGNORED', [
                [
                    [True, False, False, False],
                    [True, True, False, False],
                    [True, True, True, False],
                    [True, True, True, True],
                ],
                [
                    [True, False, False, False],
                    [True, True, False, False],
                    [True, True, False, False],
                    [True, True, False, False],
                ],
            ]),
            ('lengths off by one', 'HINT_KEY_LENGTHS_OFF_ONE', [
                [
                    [True, True, True, True],
                    [True, True, True, True],
                    [True, True, True, True],
                    [True, True, True, True],
                ],
                [
                    [True, True, True, False],
                    [True, True, True, False],
                    [True, True, True, False],
                    [True, True, True, False],
                ],
            ]),
            ('loop over range(B - 1) leaves the last message False', 'HINT_LAST_MESSAGE', [
                [
                    [True, True, True, True],
                    [True, True, True, True],
                    [True, True, True, True],
                    [True, True, True, True],
                ],
                [
                    [False, False, False, False],
                    [False, False, False, False],
                    [False, False, False, False],
                    [False, False, False, False],
                ],
            ]),
            ('padding mask inverted (True on the pads)', 'HINT_PADDING_MASK_INVERTED', [
                [
                    [False, False, False, False],
                    [False, False, False, False],
                    [False, False, False, False],
                    [False, False, False, False],
                ],
                [
                    [False, False, True, True],
                    [False, False, True, True],
                    [False, False, True, True],
                    [False, False, True, True],
                ],
            ]),
        ],
        '[4, 2], 4, True': [
            ('causal and padding combined with OR', 'HINT_OR_INSTEAD_OF_AND', [
                [
                    [True, True, True, True],
                    [True, True, True, True],
                    [True, True, True, True],
                    [True, True, True, True],
                ],
                [
                    [True, True, False, False],
                    [True, True, False, False],
                    [True, True, True, False],
                    [True, True, True, True],
                ],
            ]),
            ('padding forgotten in the causal branch', 'HINT_DECODER_PADDING', [
                [
                    [True, False, False, False],
                    [True, True, False, False],
                    [True, True, True, False],
                    [True, True, True, True],
                ],
                [
                    [True, False, False, False],
                    [True, True, False, False],
                    [True, True, True, False],
                    [True, True, True, True],
                ],
            ]),
            ('diagonal excluded from the causal part', 'HINT_MASK_DIAGONAL', [
                [
                    [False, False, False, False],
                    [True, False, False, False],
                    [True, True, False, False],
                    [True, True, True, False],
                ],
                [
                    [False, False, False, False],
                    [True, False, False, False],
                    [True, True, False, False],
                    [True, True, False, False],
                ],
            ]),
            ('causal part transposed', 'HINT_CAUSAL_PART_TRANSPOSED', [
                [
                    [True, True, True, True],
                    [False, True, True, True],
                    [False, False, True, True],
                    [False, False, False, True],
                ],
                [
                    [True, True, False, False],
                    [False, True, False, False],
                    [False, False, False, False],
                    [False, False, False, False],
                ],
            ]),
        ],
    },
}
