"""The known slips of notebook 08_generation's visible checks: generated, do not edit.

Made by scripts/release.py (`make release`): each mistake of the grader's catalogue
of notebook 08, run on the visible cases of
attnbook/checks/nb08.py; its output (a wrong program's, on visible inputs)
on the first case that tells it apart from the reference, None for a part it gets
right. A check names the slip whose output a learner's matches.
"""

# ruff: noqa: E501

from math import inf, nan  # noqa: F401 (outputs that hold them)

# function: {case id: [(mistake, detector, its output)]}
SLIPS = {
    'sequence_log_prob': {
        'seed 0': [
            ("log-probability read at the target's own position", 'HINT_SHIFT', -8.024178504943848),
            ("the prompt's own tokens scored too", 'HINT_PROMPT_SCORED', -21.167217254638672),
            ('rows read from 0: right only for a one-token prompt', ('HINT_PROMPT_OFFSET', {'L_p': '3'}), -9.826987266540527),
        ],
        'fixed p': [
            ('product of probabilities instead of a sum of logs', 'HINT_EXPONENTIATED', 0.04800000414252281),
            ('mean instead of sum', 'HINT_AVERAGED', -1.012184739112854),
            ('raw logits instead of log-probabilities', 'HINT_RAW_LOGITS', -0.03655421733856201),
            ('negative log-likelihood (sign flipped)', 'HINT_NEGATED', 3.0365543365478516),
            ('log base 2', 'HINT_LOG_BASE_2', -4.380821709538583),
            ('log_softmax over the positions (dim=0)', 'HINT_LOG_SOFTMAX_AXIS', -3.295836925506592),
            ('log_softmax over the positions of the full pass', 'HINT_LOG_SOFTMAX_AXIS', -4.158883094787598),
            ('only the first continuation token scored', 'HINT_LOG_PROB_VALUES', -0.9162907600402832),
        ],
    },
    'next_token_probs': {
        'T=1.0 k=None p=0.6': [
            ('top-p drops the token that crosses p', 'HINT_CROSSING', [0.0, 1.0, 0.0, 0.0]),
            ('top-p without renormalising', 'HINT_RENORMALISE', [0.0, 0.5, 0.0, 0.25]),
            ('cumulative sum in vocabulary order', 'HINT_TOP_P_UNSORTED', [0.23076923076923078, 0.7692307692307692, 0.0, 0.0]),
            ('returned in sorted order', 'HINT_SORTED_ORDER', [0.6666666666666666, 0.3333333333333333, 0.0, 0.0]),
            ('top-p sorted ascending', 'HINT_TOP_P_ASCENDING', [0.15000000000000002, 0.5, 0.10000000000000003, 0.25]),
        ],
        'T=0.5 k=None p=None': [
            ('temperature applied to the probabilities', 'HINT_TEMPERATURE', [0.15000000000000002, 0.5, 0.10000000000000003, 0.25]),
            ('logits multiplied by the temperature', 'HINT_MULTIPLIED_BY_TEMPERATURE', [0.2027068299227524, 0.37009034436351557, 0.16550943356262543, 0.26169339215110643]),
        ],
        'T=1.0 k=None p=None': [
            ('temperature applied to the probabilities, softmax again', 'HINT_TEMPERATURE', [0.22344032497095181, 0.31707691421340933, 0.212543011732371, 0.24693974908326785]),
        ],
        'T=1.0 k=2 p=None': [
            ('softmax before top-k, zeros not renormalised', 'HINT_RENORMALISE', [0.0, 0.5, 0.0, 0.25]),
            ('removed logits filled with 0 instead of -inf', 'HINT_REMOVED_ZERO_LOGIT', [0.36363636363636365, 0.18181818181818182, 0.36363636363636365, 0.09090909090909091]),
            ('top-k keeps the k smallest', 'HINT_TOP_K_SMALLEST', [0.6, 0.0, 0.4, 0.0]),
            ('top-k keeps k + 1 (sorted values indexed at k)', 'HINT_TOP_K_OFF_BY_ONE', [0.16666666666666669, 0.5555555555555556, 0.0, 0.2777777777777778]),
        ],
        'T=2.0 k=None p=0.7': [
            ('top-p set chosen before the temperature', 'HINT_TEMPERATURE_LAST', [0.0, 0.585786437626905, 0.0, 0.4142135623730951]),
        ],
        'T=0.0 k=None p=None': [
            ('temperature 0 divides by zero', 'HINT_TEMPERATURE_ZERO', [nan, nan, nan, nan]),
        ],
        'T=1.0 k=2 p=0.6': [
            ('top-p applied before top-k', 'HINT_TOP_P_FIRST', [0.0, 0.6666666666666666, 0.0, 0.3333333333333333]),
        ],
        'leading axes': [
            ('top-p along dim=1 (right for (B, V) only)', 'HINT_FILTER_ALONG_LAST_AXIS', [
                [
                    [0.16666666666666669, 0.5555555555555556, 0.0, 0.2777777777777778],
                    [0.2777777777777778, 0.0, 0.5555555555555556, 0.16666666666666669],
                ],
                [
                    [0.3333333333333333, 0.0, 0.6666666666666666, 0.0],
                    [0.06716417910447763, 0.746268656716418, 0.0, 0.1865671641791045],
                ],
            ]),
            ('softmax over dim=0 (right for one row only)', 'HINT_FILTER_ALONG_LAST_AXIS', [
                [
                    [0.0, 0.0, 0.0, 1.0],
                    [0.0, 0.0, 1.0, 0.0],
                ],
                [
                    [0.0, 0.0, 1.0, 0.0],
                    [0.0, 1.0, 0.0, 0.0],
                ],
            ]),
        ],
    },
    'generate': {
        'own time': [
            ('EOS does not stop a row', 'HINT_EOS_IGNORED', [
                [1.0, 4.0, 5.0, 6.0, 2.0, 3.0, 4.0, 5.0, 6.0, 2.0, 3.0, 4.0],
                [1.0, 7.0, 8.0, 9.0, 10.0, 2.0, 3.0, 4.0, 5.0, 6.0, 2.0, 3.0],
            ]),
            ('EOS not kept (finished marked before padding)', 'HINT_EOS_DROPPED', [
                [1.0, 4.0, 5.0, 6.0, 0.0, 0.0],
                [1.0, 7.0, 8.0, 9.0, 10.0, 0.0],
            ]),
            ('the whole batch stops at the first EOS', 'HINT_STOP_ON_FIRST', [
                [1.0, 4.0, 5.0, 6.0, 2.0],
                [1.0, 7.0, 8.0, 9.0, 10.0],
            ]),
            ('finished rows keep generating', 'HINT_KEEP_GENERATING', [
                [1.0, 4.0, 5.0, 6.0, 2.0, 3.0],
                [1.0, 7.0, 8.0, 9.0, 10.0, 2.0],
            ]),
            ('logits of the first position', 'HINT_LAST_POSITION', [
                [1.0, 4.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0],
                [1.0, 7.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0],
            ]),
            ('finished reset every step', 'HINT_FINISHED_RESET', [
                [1.0, 4.0, 5.0, 6.0, 2.0, 0.0, 3.0, 4.0, 5.0, 6.0, 2.0, 0.0],
                [1.0, 7.0, 8.0, 9.0, 10.0, 2.0, 0.0, 3.0, 4.0, 5.0, 6.0, 2.0],
            ]),
            ('the model reads the prompt only', 'HINT_PROMPT_ONLY', [
                [1.0, 4.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0],
                [1.0, 7.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0],
            ]),
            ('returns only the new tokens', 'HINT_NEW_TOKENS_ONLY', [
                [5.0, 6.0, 2.0, 0.0],
                [8.0, 9.0, 10.0, 2.0],
            ]),
            ('finished rows padded with eos_id', 'HINT_EOS_AS_PAD', [
                [1.0, 4.0, 5.0, 6.0, 2.0, 2.0],
                [1.0, 7.0, 8.0, 9.0, 10.0, 2.0],
            ]),
            ('no early stop: all max_new_tokens columns every time', 'HINT_NO_EARLY_STOP', [
                [1.0, 4.0, 5.0, 6.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                [1.0, 7.0, 8.0, 9.0, 10.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            ]),
        ],
        'limit': [
            ('one step too few', 'HINT_ONE_TOO_MANY', [
                [1.0, 4.0, 5.0],
                [1.0, 7.0, 8.0],
            ]),
            ('max_new_tokens read as the total length', 'HINT_TOTAL_LENGTH', [
                [1.0, 4.0],
                [1.0, 7.0],
            ]),
        ],
        'random decoder': [
            ('feeds only the last token', 'HINT_WHOLE_SEQUENCE', [
                [1.0, 4.0, 7.0, 11.0, 11.0, 11.0, 11.0, 11.0, 11.0, 11.0, 11.0],
                [1.0, 9.0, 9.0, 12.0, 1.0, 11.0, 11.0, 11.0, 11.0, 11.0, 11.0],
                [1.0, 3.0, 12.0, 1.0, 11.0, 11.0, 11.0, 11.0, 11.0, 11.0, 11.0],
            ]),
        ],
        'pad 12': [
            ('padding hard-coded as 0 (pad_id ignored)', 'HINT_PAD_ZERO', [
                [1.0, 4.0, 5.0, 6.0, 2.0, 0.0],
                [1.0, 7.0, 8.0, 9.0, 10.0, 2.0],
                [1.0, 9.0, 10.0, 2.0, 0.0, 0.0],
            ]),
        ],
    },
    'perplexity': {
        'fixed p': [
            ('mean of per-batch perplexities', 'HINT_PPL_WEIGHTING', 3.943375777240438),
            ('exp of the mean of per-batch losses', 'HINT_PPL_WEIGHTING', 3.7991785236639224),
            ('padded targets counted', 'HINT_PPL_PADDING', 4.4530567195466935),
            ('only the last batch counted', 'HINT_ONLY_LAST_BATCH_COUNTED', 5.000000150353914),
            ('mean over all positions times the real count', 'HINT_PPL_PADDING', 4.487581329006751),
            ('one over the mean probability', 'HINT_MEAN_PROBABILITY', 3.125000069849195),
            ('every sequence weighted equally', 'HINT_PPL_WEIGHTING', 3.579411708322717),
        ],
        'uniform': [
            ('returns the loss', 'HINT_LOSS_NOT_PERPLEXITY', 1.3862943649291992),
            ('2 ** loss', 'HINT_BASE_2', 2.6140638223074024),
            ('masked sum divided by all positions', 'HINT_PPL_PADDING', 2.6918003925889256),
            ('exp of the summed loss', 'HINT_EXP_OF_SUM', 1024.0000195036603),
            ('divided by the number of sequences', 'HINT_DIVIDED_BY_ROWS', 10.07936846315136),
            ('exp before dividing', 'HINT_EXP_OF_SUM', 204.80000390073207),
            ('floor division of the summed loss', 'HINT_FLOOR_DIVISION', 2.718281828459045),
        ],
    },
}
