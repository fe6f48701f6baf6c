"""The known slips of notebook 05_multihead's visible checks: generated, do not edit.

Made by scripts/release.py (`make release`): each mistake of the grader's catalogue
of notebook 05, run on the visible cases of
attnbook/checks/nb05.py; its output (a wrong program's, on visible inputs)
on the first case that tells it apart from the reference, None for a part it gets
right. A check names the slip whose output a learner's matches.
"""

# ruff: noqa: E501

# function: {case id: [(mistake, detector, its output)]}
SLIPS = {
    'split_heads': {
        'arange': [
            ('reshape without the transpose', 'HINT_SPLIT', [
                [
                    [
                        [0.0, 1.0],
                        [2.0, 3.0],
                        [4.0, 5.0],
                    ],
                    [
                        [6.0, 7.0],
                        [8.0, 9.0],
                        [10.0, 11.0],
                    ],
                ],
            ]),
            ('heads interleaved (d_k before h)', 'HINT_HEADS_INTERLEAVED', [
                [
                    [
                        [0.0, 2.0],
                        [4.0, 6.0],
                        [8.0, 10.0],
                    ],
                    [
                        [1.0, 3.0],
                        [5.0, 7.0],
                        [9.0, 11.0],
                    ],
                ],
            ]),
        ],
    },
    'merge_heads': {
        'arange': [
            ('merge by reshaping without the transpose', 'HINT_MERGE', [
                [
                    [0.0, 1.0, 4.0, 5.0],
                    [8.0, 9.0, 2.0, 3.0],
                    [6.0, 7.0, 10.0, 11.0],
                ],
            ]),
            ('merge with d_k before h', 'HINT_MERGE', [
                [
                    [0.0, 2.0, 1.0, 3.0],
                    [4.0, 6.0, 5.0, 7.0],
                    [8.0, 10.0, 9.0, 11.0],
                ],
            ]),
            ('transposed L and d_k before the reshape', 'HINT_MERGE', [
                [
                    [0.0, 4.0, 8.0, 1.0],
                    [5.0, 9.0, 2.0, 6.0],
                    [10.0, 3.0, 7.0, 11.0],
                ],
            ]),
        ],
    },
}
