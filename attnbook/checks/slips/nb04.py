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
            ('mask transposed (j >= i): each query reads the future, not the past', 'HINT_CAUSAL_TRANSPOSED', [
                [True, True, True, True],
                [False, True, True, True],
                [False, False, True, True],
                [False, False, False, True],
            ]),
            ('True and False swapped (True marks the blocked future)', 'HINT_CAUSAL_INVERTED', [
                [False, True, True, True],
                [False, False, True, True],
                [False, False, False, True],
                [False, False, False, False],
            ]),
            ('every entry True: nothing is blocked', 'HINT_NOTHING_BLOCKED', [
                [True, True, True, True],
                [True, True, True, True],
                [True, True, True, True],
                [True, True, True, True],
            ]),
            ('only the diagonal (each query reads only itself)', 'HINT_ONLY_DIAGONAL', [
                [True, False, False, False],
                [False, True, False, False],
                [False, False, True, False],
                [False, False, False, True],
            ]),
            ('np.tril(..., k=1): each query also reads the next token', 'HINT_TRIL_K1', [
                [True, True, False, False],
                [True, True, True, False],
                [True, True, True, True],
                [True, True, True, True],
            ]),
            ('the last row left all False (a loop over range(L - 1))', 'HINT_LAST_ROW', [
                [True, False, False, False],
                [True, True, False, False],
                [True, True, True, False],
                [False, False, False, False],
            ]),
        ],
    },
    'padding_mask': {
        '[4, 2], 4': [
            ('lengths off by one (position <= length)', 'HINT_LENGTHS_OFF_ONE', [
                [True, True, True, True],
                [True, True, True, False],
            ]),
            ('True and False swapped (True marks the padding)', 'HINT_PADDING_INVERTED', [
                [False, False, False, False],
                [False, False, True, True],
            ]),
            ('padding at the front (left) instead of the end', 'HINT_LEFT_PADDED', [
                [True, True, True, True],
                [False, False, True, True],
            ]),
            ('lengths off by one (position < length - 1)', 'HINT_LENGTHS_OFF_ONE', [
                [True, True, True, False],
                [True, False, False, False],
            ]),
            ("every row built from the first message's length", 'HINT_FIRST_LENGTH_ONLY', [
                [True, True, True, True],
                [True, True, True, True],
            ]),
            ('the last message left all False (a loop over range(B - 1))', 'HINT_LAST_MESSAGE', [
                [True, True, True, True],
                [False, False, False, False],
            ]),
        ],
    },
    'attention_mask': {
        '[4, 2], 4, False': [
            ('padding taken from the query side instead of the key side', 'HINT_PADDING_TAKEN_QUERY_SIDE', [
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
            ('padded query rows masked as well as padded keys (only the keys are masked here)', 'HINT_PADDED_QUERY_ROWS_MASKED', [
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
            ('the causal flag ignored: causal part always applied', 'HINT_CAUSAL_FLAG_IGNORED', [
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
            ('lengths off by one (position <= length)', 'HINT_KEY_LENGTHS_OFF_ONE', [
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
            ('the last message left all False (a loop over range(B - 1))', 'HINT_LAST_MESSAGE', [
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
            ('causal and padding combined with OR instead of AND', 'HINT_OR_INSTEAD_OF_AND', [
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
            ('diagonal excluded from the causal part (j < i)', 'HINT_MASK_DIAGONAL', [
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
            ('causal part transposed (j >= i)', 'HINT_CAUSAL_PART_TRANSPOSED', [
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
