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
}
