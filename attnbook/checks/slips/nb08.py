"""The known slips of notebook 08_generation's visible checks: generated, do not edit.

Made by scripts/release.py (`make release`): each mistake of the grader's catalogue
of notebook 08, run on the visible cases of
attnbook/checks/nb08.py; its output (a wrong program's, on visible inputs)
on the first case that tells it apart from the reference, None for a part it gets
right. A check names the slip whose output a learner's matches.
"""

# ruff: noqa: E501

from math import inf, nan  # noqa: F401 (outputs that hold them)

# function: {case id: [(mistake, its hint, its output)]}
SLIPS = {
    'sequence_log_prob': {
        'seed 0': [
            ("log-probability read at the target's own position", 'the logits at position t predict token t + 1: continuation token l is scored by the row of the token just BEFORE it (the last prompt token for the first one)', -8.024178504943848),
            ("the prompt's own tokens scored too", 'score only the continuation tokens; the prompt is given, not predicted', -21.167217254638672),
            ('rows read from 0: right only for a one-token prompt', 'the prompt has L_p = 3 tokens: continuation token l is scored by the log_softmax row at position L_p - 1 + l of the whole sequence, and every continuation token is scored (a sum)', -9.826987266540527),
        ],
        'fixed p': [
            ('product of probabilities instead of a sum of logs', 'sum the log-probabilities; do not exponentiate', 0.04800000414252281),
            ('mean instead of sum', 'the chain rule multiplies the conditionals: sum their logs, do not average', -1.012184739112854),
            ('raw logits instead of log-probabilities', 'turn logits into log-probabilities with torch.log_softmax over the vocabulary', -0.03655421733856201),
            ('negative log-likelihood (sign flipped)', 'return the log-probability itself, a number <= 0: sum of log p, not of -log p', 3.0365543365478516),
            ('log base 2', 'work in nats: torch.log_softmax (natural log), not log2', -4.380821709538583),
            ('log_softmax over the positions (dim=0)', "log_softmax over the vocabulary, the LAST axis (dim=-1): each position's logits become a distribution over the next token", -3.295836925506592),
            ('log_softmax over the positions of the full pass', "log_softmax over the vocabulary, the LAST axis (dim=-1): each position's logits become a distribution over the next token", -4.158883094787598),
            ('only the first continuation token scored', 'sum log p(w_l | prompt, w_<l) over the continuation tokens', -0.9162907600402832),
        ],
        'improbable': [
            ('log of the softmax (torch.log(torch.softmax(...)))', 'take torch.log_softmax of the logits: a probability of e^-200 is 0 in float32, so log(softmax), or the log of a product, is -inf', -inf),
        ],
    },
    'next_token_probs': {
        'batch': [
            ('softmax written by hand without the row maximum (overflows)', "exp(z) overflows to inf for logits near 1000 (inf / inf is NaN): use torch.softmax(z, dim=-1), or subtract each row's maximum before exp", [
                [0.0, 0.6666666666666666, 0.0, 0.3333333333333333],
                [0.3333333333333333, 0.0, 0.6666666666666666, 0.0],
                [nan, nan, nan, nan],
            ]),
        ],
        'T=1.0 k=None p=0.6': [
            ('top-p drops the token that crosses p', 'keep the token that crosses p: a token stays when the probability of the likelier tokens before it is still below p', [0.0, 1.0, 0.0, 0.0]),
            ('top-p without renormalising', 'renormalise so that the kept probabilities sum to 1', [0.0, 0.5, 0.0, 0.25]),
            ('cumulative sum in vocabulary order', 'sort the probabilities in decreasing order before the cumulative sum, then put the result back in vocabulary order', [0.23076923076923078, 0.7692307692307692, 0.0, 0.0]),
            ('returned in sorted order', 'scatter the kept probabilities back to their token ids (the order returned by torch.sort)', [0.6666666666666666, 0.3333333333333333, 0.0, 0.0]),
            ('top-p sorted ascending', 'sort in decreasing order: torch.sort(probs, descending=True)', [0.15000000000000002, 0.5, 0.10000000000000003, 0.25]),
        ],
        'exact p': [
            ('top-p keeps a token once p is reached exactly (before > top_p)', 'keep the SMALLEST set that reaches p: a token whose likelier tokens already sum to exactly p is dropped (drop it when before >= top_p)', [0.5, 0.25, 0.25]),
        ],
        'T=0.5 k=None p=None': [
            ('temperature applied to the probabilities', 'divide the LOGITS by the temperature before the softmax; dividing probabilities by T and renormalising changes nothing', [0.15000000000000002, 0.5, 0.10000000000000003, 0.25]),
            ('logits multiplied by the temperature', 'divide the logits by the temperature', [0.2027068299227524, 0.37009034436351557, 0.16550943356262543, 0.26169339215110643]),
        ],
        'T=1.0 k=None p=None': [
            ('temperature applied to the probabilities, softmax again', 'divide the LOGITS by the temperature before the softmax; dividing probabilities by T and renormalising changes nothing', [0.22344032497095181, 0.31707691421340933, 0.212543011732371, 0.24693974908326785]),
        ],
        'six tokens': [
            ('softmax before top-k, zeros not renormalised', 'renormalise so that the kept probabilities sum to 1', [0.0, 0.6336913225737218, 0.0, 0.23312200962361299, 0.0, 0.0]),
            ('removed logits filled with 0 instead of -inf', "set the logits of removed tokens to -inf (float('-inf')), so softmax gives them exactly 0", [0.004830653958834586, 0.716932614562009, 0.004830653958834586, 0.2637447696026529, 0.004830653958834586, 0.004830653958834586]),
            ('top-k keeps the k smallest', 'keep the k largest logits (torch.topk returns the largest)', [0.0, 0.0, 0.26894142136999516, 0.0, 0.7310585786300049, 0.0]),
            ('top-k keeps k + 1 (sorted values indexed at k)', 'the k-th largest is topk(z, k).values[..., k - 1] (or [..., -1]): index k is the (k+1)-th', [0.0, 0.6652409557748218, 0.0, 0.2447284710547976, 0.0, 0.09003057317038045]),
            ('top-k threshold from torch.kthvalue (the k-th SMALLEST)', 'torch.kthvalue counts from the smallest: the k-th largest of V logits is torch.topk(z, k).values[..., -1:], or torch.kthvalue(z, V - k + 1)', [0.031684920796124276, 0.6364086465588309, 0.0, 0.23412165725273668, 0.011656230956039609, 0.08612854443626873]),
        ],
        'T=2.0 k=None p=0.7': [
            ('top-p set chosen before the temperature', 'apply the temperature first, then the filters', [0.0, 0.585786437626905, 0.0, 0.4142135623730951]),
        ],
        'T=0.0 k=None p=None': [
            ('temperature 0 divides by zero', 'temperature 0 means argmax: return a one-hot vector, do not divide by 0', [nan, nan, nan, nan]),
        ],
        'T=1.0 k=2 p=0.6': [
            ('top-p applied before top-k', 'apply top-k first, renormalise, then choose the top-p set from those renormalised probabilities', [0.0, 0.6666666666666666, 0.0, 0.3333333333333333]),
        ],
        'leading axes': [
            ('top-p along dim=1 (right for (B, V) only)', 'filter along the last axis (dim=-1), whatever the leading axes', [
                [
                    [0.16666666666666669, 0.5555555555555556, 0.0, 0.2777777777777778],
                    [0.2777777777777778, 0.0, 0.5555555555555556, 0.16666666666666669],
                ],
                [
                    [0.3333333333333333, 0.0, 0.6666666666666666, 0.0],
                    [0.06716417910447763, 0.746268656716418, 0.0, 0.1865671641791045],
                ],
            ]),
            ('softmax over dim=0 (right for one row only)', 'filter along the last axis (dim=-1), whatever the leading axes', [
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
            ('EOS does not stop a row', 'once a row emits eos_id it is finished: later positions get pad_id, and the loop ends when every row has finished', [
                [1.0, 4.0, 5.0, 6.0, 2.0, 3.0, 4.0, 5.0, 6.0, 2.0, 3.0, 4.0],
                [1.0, 7.0, 8.0, 9.0, 10.0, 2.0, 3.0, 4.0, 5.0, 6.0, 2.0, 3.0],
            ]),
            ('EOS not kept (finished marked before padding)', 'keep the EOS token itself: mark a row finished AFTER writing its new token', [
                [1.0, 4.0, 5.0, 6.0, 0.0, 0.0],
                [1.0, 7.0, 8.0, 9.0, 10.0, 0.0],
            ]),
            ('the whole batch stops at the first EOS', 'each row stops on its own: keep going until EVERY row has emitted eos_id', [
                [1.0, 4.0, 5.0, 6.0, 2.0],
                [1.0, 7.0, 8.0, 9.0, 10.0],
            ]),
            ('finished rows keep generating', 'after its EOS a row gets only pad_id (torch.where(finished, pad_id, new))', [
                [1.0, 4.0, 5.0, 6.0, 2.0, 3.0],
                [1.0, 7.0, 8.0, 9.0, 10.0, 2.0],
            ]),
            ('logits of the first position', "choose each token from the LAST position's logits, model(ids)[:, -1]; a finished row gets pad_id", [
                [1.0, 4.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0],
                [1.0, 7.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0],
            ]),
            ('finished reset every step', 'a row stays finished once it has emitted eos_id: combine the old flags and (new == eos_id) with |, never overwrite them', [
                [1.0, 4.0, 5.0, 6.0, 2.0, 0.0, 3.0, 4.0, 5.0, 6.0, 2.0, 0.0],
                [1.0, 7.0, 8.0, 9.0, 10.0, 2.0, 0.0, 3.0, 4.0, 5.0, 6.0, 2.0],
            ]),
            ('the model reads the prompt only', 'run the model on ids, the prompt AND every token appended so far', [
                [1.0, 4.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0],
                [1.0, 7.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0],
            ]),
            ('returns only the new tokens', 'return the prompts followed by the new tokens, shape (B, L + n)', [
                [5.0, 6.0, 2.0, 0.0],
                [8.0, 9.0, 10.0, 2.0],
            ]),
            ('finished rows padded with eos_id', 'a finished row receives pad_id (the argument), not eos_id', [
                [1.0, 4.0, 5.0, 6.0, 2.0, 2.0],
                [1.0, 7.0, 8.0, 9.0, 10.0, 2.0],
            ]),
            ('no early stop: all max_new_tokens columns every time', 'stop as soon as every row has finished (if finished.all(): break): the output then has fewer than max_new_tokens new columns', [
                [1.0, 4.0, 5.0, 6.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                [1.0, 7.0, 8.0, 9.0, 10.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            ]),
        ],
        'limit': [
            ('one step too few', 'run at most max_new_tokens steps: range(max_new_tokens)', [
                [1.0, 4.0, 5.0],
                [1.0, 7.0, 8.0],
            ]),
            ('max_new_tokens read as the total length', 'max_new_tokens counts NEW tokens only: the output has up to L + max_new_tokens columns', [
                [1.0, 4.0],
                [1.0, 7.0],
            ]),
        ],
        'random decoder': [
            ('feeds only the last token', "feed the whole sequence so far and use the LAST position's logits; and pass the temperature on: at temperature 0 sample_next picks the most likely token", [
                [1.0, 4.0, 7.0, 11.0, 11.0, 11.0, 11.0, 11.0, 11.0, 11.0, 11.0],
                [1.0, 9.0, 9.0, 12.0, 1.0, 11.0, 11.0, 11.0, 11.0, 11.0, 11.0],
                [1.0, 3.0, 12.0, 1.0, 11.0, 11.0, 11.0, 11.0, 11.0, 11.0, 11.0],
            ]),
        ],
        'pad 5': [
            ('pad_id also finishes a row', 'only eos_id finishes a row; pad_id is written only after it (the model may emit the pad id as a real token)', [
                [1.0, 4.0, 5.0, 5.0, 5.0, 5.0],
                [1.0, 7.0, 8.0, 9.0, 10.0, 2.0],
                [1.0, 9.0, 10.0, 2.0, 5.0, 5.0],
            ]),
            ('padding hard-coded as 0 (pad_id ignored)', 'write pad_id, the argument, into finished rows; 0 only happens to be the default', [
                [1.0, 4.0, 5.0, 6.0, 2.0, 0.0],
                [1.0, 7.0, 8.0, 9.0, 10.0, 2.0],
                [1.0, 9.0, 10.0, 2.0, 0.0, 0.0],
            ]),
        ],
    },
    'perplexity': {
        'fixed p': [
            ('mean of per-batch perplexities', 'weight every token equally: add the losses of ALL real tokens over all batches, divide by the total token count, then take exp', 3.943375777240438),
            ('exp of the mean of per-batch losses', 'weight every token equally: add the losses of ALL real tokens over all batches, divide by the total token count, then take exp', 3.7991785236639224),
            ('padded targets counted', 'multiply the per-token losses by loss_mask and count only real tokens', 4.4530567195466935),
            ('only the last batch counted', 'add every batch to the running totals (total_nll += ...), do not overwrite', 5.000000150353914),
            ('mean over all positions times the real count', 'multiply the per-token losses by loss_mask and count only real tokens', 4.487581329006751),
            ('one over the mean probability', 'average the LOG-probabilities (the loss), then exp; not the probabilities', 3.125000069849195),
            ('every sequence weighted equally', 'weight every token equally: add the losses of ALL real tokens over all batches, divide by the total token count, then take exp', 3.579411708322717),
        ],
        'uniform': [
            ('returns the loss', 'perplexity = exp(mean loss in nats)', 1.3862943649291992),
            ('2 ** loss', 'the loss is in nats (natural log): perplexity = exp(loss), not 2 ** loss', 2.6140638223074024),
            ('masked sum divided by all positions', 'multiply the per-token losses by loss_mask and count only real tokens', 2.6918003925889256),
            ('exp of the summed loss', 'divide the summed loss by the number of real targets before exp', 1024.0000195036603),
            ('divided by the number of sequences', 'divide by the number of real target TOKENS, loss_mask.sum(), not by the number of rows', 10.07936846315136),
            ('exp before dividing', 'divide the summed loss by the number of real targets before exp', 204.80000390073207),
            ('floor division of the summed loss', 'true division: total_nll / total_tokens (// rounds down)', 2.718281828459045),
        ],
        'pad 3': [
            ('ignore_index=0 and the targets that are not 0 counted', 'loss_mask says which targets are real; the pad id may be any id (and 0 may be a real token): multiply by loss_mask rather than ignore_index', 2.8048879246392473),
            ('ignore_index=0 instead of loss_mask', 'loss_mask says which targets are real; the pad id may be any id (and 0 may be a real token): multiply by loss_mask rather than ignore_index', 3.629897744293436),
        ],
    },
}
