"""The known slips of notebook 07_training's visible checks: generated, do not edit.

Made by scripts/release.py (`make release`): each mistake of the grader's catalogue
of notebook 07, run on the visible cases of
attnbook/checks/nb07.py; its output (a wrong program's, on visible inputs)
on the first case that tells it apart from the reference, None for a part it gets
right. A check names the slip whose output a learner's matches.
"""

# ruff: noqa: E501

from math import inf, nan  # noqa: F401 (outputs that hold them)

# function: {case id: [(mistake, detector, its output)]}
SLIPS = {
    'make_batch': {
        'email': [
            ('targets not shifted', 'HINT_SHIFT', (
                None,
                [
                    [1.0, 61.0, 68.0, 76.0, 63.0],
                    [1.0, 68.0, 63.0, 0.0, 0.0],
                ],
                None,
            )),
            ('shifted the wrong way', 'HINT_SHIFTED_WRONG_WAY', (
                [
                    [61.0, 68.0, 76.0, 63.0, 2.0],
                    [68.0, 63.0, 2.0, 0.0, 0.0],
                ],
                [
                    [1.0, 61.0, 68.0, 76.0, 63.0],
                    [1.0, 68.0, 63.0, 0.0, 0.0],
                ],
                None,
            )),
            ('whole sequences, no shift (L too long)', 'HINT_BATCH_SHAPE', (
                [
                    [1.0, 61.0, 68.0, 76.0, 63.0, 2.0],
                    [1.0, 68.0, 63.0, 2.0, 0.0, 0.0],
                ],
                [
                    [61.0, 68.0, 76.0, 63.0, 2.0, 0.0],
                    [68.0, 63.0, 2.0, 0.0, 0.0, 0.0],
                ],
                [
                    [True, True, True, True, True, True],
                    [True, True, True, True, False, False],
                ],
            )),
            ('loss mask inverted', 'HINT_LOSS_MASK_INVERTED', (
                None,
                None,
                [
                    [False, False, False, False, False],
                    [False, False, False, True, True],
                ],
            )),
            ('loss mask one too long', 'HINT_LOSS_MASK_LENGTH', (
                None,
                None,
                [
                    [True, True, True, True, True],
                    [True, True, True, True, False],
                ],
            )),
            ('end token excluded from the loss mask', 'HINT_EOS_TARGET', (
                None,
                None,
                [
                    [True, True, True, True, False],
                    [True, True, False, False, False],
                ],
            )),
            ('padding on the left', 'HINT_PADDING_LEFT', (
                [
                    [1.0, 61.0, 68.0, 76.0, 63.0],
                    [0.0, 0.0, 1.0, 68.0, 63.0],
                ],
                [
                    [61.0, 68.0, 76.0, 63.0, 2.0],
                    [0.0, 0.0, 68.0, 63.0, 2.0],
                ],
                [
                    [True, True, True, True, True],
                    [False, False, True, True, True],
                ],
            )),
            ('padded targets written as -100 (ignore_index)', 'HINT_IGNORE_INDEX', (
                None,
                [
                    [61.0, 68.0, 76.0, 63.0, 2.0],
                    [68.0, 63.0, 2.0, -100.0, -100.0],
                ],
                None,
            )),
            ('L from the shortest sequence (longer ones truncated)', 'HINT_BATCH_SHAPE', (
                [
                    [1.0, 61.0, 68.0],
                    [1.0, 68.0, 63.0],
                ],
                [
                    [61.0, 68.0, 76.0],
                    [68.0, 63.0, 2.0],
                ],
                [
                    [True, True, True],
                    [True, True, True],
                ],
            )),
            ('rows built as [[pad_id] * L] * B (one shared list)', 'HINT_ALIASED_ROWS', (
                [
                    [1.0, 68.0, 63.0, 76.0, 63.0],
                    [1.0, 68.0, 63.0, 76.0, 63.0],
                ],
                [
                    [68.0, 63.0, 2.0, 63.0, 2.0],
                    [68.0, 63.0, 2.0, 63.0, 2.0],
                ],
                [
                    [True, True, True, True, True],
                    [True, True, True, True, True],
                ],
            )),
            ('each row one target short (n = len(seq) - 2)', 'HINT_SHIFT', (
                [
                    [1.0, 61.0, 68.0, 76.0, 0.0],
                    [1.0, 68.0, 0.0, 0.0, 0.0],
                ],
                [
                    [61.0, 68.0, 76.0, 63.0, 0.0],
                    [68.0, 63.0, 0.0, 0.0, 0.0],
                ],
                [
                    [True, True, True, True, False],
                    [True, True, False, False, False],
                ],
            )),
        ],
        'three': [
            ('padding hard-coded as 0', 'HINT_PADDING_WRITTEN_0', (
                [
                    [1.0, 5.0, 6.0, 0.0, 0.0],
                    [1.0, 4.0, 0.0, 0.0, 0.0],
                    [1.0, 3.0, 3.0, 8.0, 3.0],
                ],
                [
                    [5.0, 6.0, 2.0, 0.0, 0.0],
                    [4.0, 2.0, 0.0, 0.0, 0.0],
                    [3.0, 3.0, 8.0, 3.0, 2.0],
                ],
                None,
            )),
            ('rows sorted by length, longest first', 'HINT_ROWS_REORDERED', (
                [
                    [1.0, 3.0, 3.0, 8.0, 3.0],
                    [1.0, 5.0, 6.0, 7.0, 7.0],
                    [1.0, 4.0, 7.0, 7.0, 7.0],
                ],
                [
                    [3.0, 3.0, 8.0, 3.0, 2.0],
                    [5.0, 6.0, 2.0, 7.0, 7.0],
                    [4.0, 2.0, 7.0, 7.0, 7.0],
                ],
                [
                    [True, True, True, True, True],
                    [True, True, True, False, False],
                    [True, True, False, False, False],
                ],
            )),
        ],
    },
    'lm_loss': {
        'worked': [
            ('padding counted in the loss', 'HINT_PADDING_COUNTED', 0.8437919020652771),
            ('mean over the batch of per-sequence means', 'HINT_WEIGHT', 1.0397207736968994),
            ('sum instead of mean', 'HINT_NOT_DIVIDED', 4.852030277252197),
            ('masked sum divided by all positions', 'HINT_WEIGHT', 0.8086717128753662),
            ('divided by the number of emails', 'HINT_WEIGHT', 2.4260151386260986),
            ('softmax over the positions', 'HINT_SOFTMAX_OVER_POSITIONS', 0.8417307734489441),
            ('loss in bits', 'HINT_LOG_BASE_2', 1.75),
            ('the mask applied to the logits', 'HINT_MASKED_LOGITS', 1.906154751777649),
            ('targets shifted again inside the loss', 'HINT_SHIFTED_TWICE', 1.589026927947998),
            ('floor division by the token count', 'HINT_FLOOR_DIVISION', 1.0),
            ('unmasked sum over the real count', 'HINT_MASK_BEFORE_SUM', 1.2656878232955933),
            ('per-position means (batch axis reduced first)', 'HINT_WEIGHT_OR_FIRST_ROW', 1.3862943649291992),
        ],
        'large': [
            ('log of softmax overflows', 'HINT_LOG_OF_SOFTMAX', nan),
        ],
    },
    'evaluate': {
        'worked': [
            ('mean of per-batch means', 'HINT_EVAL_WEIGHTING', 1.3347848653793335),
            ('padding counted', 'HINT_PADDING_COUNTED', 1.5418604016304016),
            ('sum not divided by the token count', 'HINT_SUMMED_LOSS_NOT_DIVIDED', 5.8499650955200195),
            ('only the last batch counted', 'HINT_ONLY_LAST_BATCH_COUNTED', 1.6094379425048828),
            ('perplexity returned', 'HINT_PERPLEXITY_RETURNED', 3.2219701462114987),
            ('return inside the loop (first batch only)', 'HINT_ONLY_FIRST_BATCH_COUNTED', 1.0601317882537842),
            ('summed loss divided by the number of batches', 'HINT_EVAL_WEIGHTING', 2.9249825477600098),
            ('floor division', 'HINT_EVAL_FLOOR_DIVISION', 1.0),
            ('batches weighted by their rows (len(targets))', 'HINT_EVAL_WEIGHTING', 1.2432338396708171),
        ],
    },
}
