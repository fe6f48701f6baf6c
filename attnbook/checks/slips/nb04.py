"""The known slips of notebook 04_masks's visible checks: generated, do not edit.

Made by scripts/release.py (`make release`): each mistake of the grader's catalogue
of notebook 04, run on the visible cases of
attnbook/checks/nb04.py; its output (a wrong program's, on visible inputs)
on the first case that tells it apart from the reference, None for a part it gets
right. A check names the slip whose output a learner's matches.
"""

# ruff: noqa: E501

from math import inf, nan  # noqa: F401 (outputs that hold them)

# function: {case id: [(mistake, its hint, its output)]}
SLIPS = {
    'causal_mask': {
        '4': [
            ('diagonal excluded (j < i)', 'the diagonal must be True: query i may read keys j <= i, itself included', [
                [False, False, False, False],
                [True, False, False, False],
                [True, True, False, False],
                [True, True, True, False],
            ]),
            ('mask transposed (j >= i): each query reads the future, not the past', 'row i is query i; it may read columns j <= i (lower triangle, np.tril)', [
                [True, True, True, True],
                [False, True, True, True],
                [False, False, True, True],
                [False, False, False, True],
            ]),
            ('True and False swapped (True marks the blocked future)', "True means 'may attend': the allowed keys are j <= i", [
                [False, True, True, True],
                [False, False, True, True],
                [False, False, False, True],
                [False, False, False, False],
            ]),
            ('additive 0 / -inf matrix instead of booleans', "this is the additive mask M (0 allowed, -inf blocked) that section 1 adds to the scores; the workbook's functions return the boolean allowed array instead. return booleans (True = may attend), not 0/1 numbers or an additive 0/-inf matrix: build it from a comparison such as j <= i, or with dtype=bool", [
                [0.0, -inf, -inf, -inf],
                [0.0, 0.0, -inf, -inf],
                [0.0, 0.0, 0.0, -inf],
                [0.0, 0.0, 0.0, 0.0],
            ]),
            ('every entry True: nothing is blocked', 'nothing is blocked: query i may read only keys j <= i; the future keys j > i must be False', [
                [True, True, True, True],
                [True, True, True, True],
                [True, True, True, True],
                [True, True, True, True],
            ]),
            ('only the diagonal (each query reads only itself)', 'query i may read every earlier key and itself (j <= i), not only itself', [
                [True, False, False, False],
                [False, True, False, False],
                [False, False, True, False],
                [False, False, False, True],
            ]),
            ('np.tril(..., k=1): each query also reads the next token', 'k=1 lets each query read one token into the future; the causal mask is np.tril(..., k=0) (the default), i.e. j <= i', [
                [True, True, False, False],
                [True, True, True, False],
                [True, True, True, True],
                [True, True, True, True],
            ]),
            ('the last row left all False (a loop over range(L - 1))', 'fill every row i = 0 .. L-1, the last included (range(L)); the last query reads all L keys', [
                [True, False, False, False],
                [True, True, False, False],
                [True, True, True, False],
                [False, False, False, False],
            ]),
        ],
    },
    'padding_mask': {
        '[4, 2], 4': [
            ('lengths off by one (position <= length)', 'positions count from 0: a message of length n has real tokens 0 .. n-1, so position < length', [
                [True, True, True, True],
                [True, True, True, False],
            ]),
            ('True and False swapped (True marks the padding)', 'True marks a real token, which may be attended to; padding is False', [
                [False, False, False, False],
                [False, False, True, True],
            ]),
            ('padding at the front (left) instead of the end', 'messages are right-padded: the real tokens come first', [
                [True, True, True, True],
                [False, False, True, True],
            ]),
            ('lengths off by one (position < length - 1)', 'positions count from 0: a message of length n has real tokens 0 .. n-1, so position < length', [
                [True, True, True, False],
                [True, False, False, False],
            ]),
            ("every row built from the first message's length", 'each message (row b) uses its own length lengths[b]: compare the positions with lengths[:, None]', [
                [True, True, True, True],
                [True, True, True, True],
            ]),
            ('the last message left all False (a loop over range(B - 1))', 'fill every message b = 0 .. B-1, the last included: range(len(lengths))', [
                [True, True, True, True],
                [False, False, False, False],
            ]),
        ],
    },
    'attention_mask': {
        '[4, 2], 4, False': [
            ('padding taken from the query side instead of the key side', 'padding belongs on the KEY side: mask the columns j of padded tokens (real[:, None, :]), so no query reads a <PAD> key', [
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
            ('padded query rows masked as well as padded keys (only the keys are masked here)', 'mask only the key side: a padded query row may still read the real keys (its output is discarded later by the loss mask)', [
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
            ('the causal flag ignored: causal part always applied', 'with causal=False the mask is bidirectional: only padding is blocked; with causal=True also block the future (j <= i)', [
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
            ('lengths off by one (position <= length)', 'positions count from 0: real keys are j < length', [
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
            ('the last message left all False (a loop over range(B - 1))', 'fill every message b = 0 .. B-1, the last included: range(len(lengths))', [
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
            ('padding mask inverted (True on the pads)', 'True marks a real key, which may be read; the <PAD> keys are False', [
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
            ('causal and padding combined with OR instead of AND', 'a key is allowed only if BOTH masks allow it: use &', [
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
            ('padding forgotten in the causal branch', 'padded keys must be blocked in the decoder too: combine the causal part and the key mask with &', [
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
            ('diagonal excluded from the causal part (j < i)', 'a query may read itself: the causal part is j <= i, diagonal included', [
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
            ('causal part transposed (j >= i)', 'row i is query i; it may read columns j <= i', [
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
    'masked_attention': {
        'worked': [
            ('mask applied after the softmax', 'the mask was applied after the softmax: blocked weights were zeroed but the row no longer sums to 1. Set blocked scores to -inf BEFORE the softmax', (
                [
                    [0.2091476070972031, 0.0, 0.2091476070972031],
                    [0.5787114198697858, 0.08227114981549291, 0.41416912023880004],
                    [0.9308601787139927, 0.3180140371703339, 0.188827425316547],
                    [1.8785465220390962, 0.5441575507586034, 0.8251124366480482],
                ],
                [
                    [0.2091476070972031, 0.0, 0.0, 0.0],
                    [0.41416912023880004, 0.041135574907746456, 0.0, 0.0],
                    [0.188827425316547, 0.10600467905677796, 0.10600467905677796, 0.0],
                    [0.5061096207909658, 0.05026717154956924, 0.2841217997309237, 0.1595014079285412],
                ],
            )),
            ('mask inverted', "True means 'may attend': keep the scores where allowed is True and set the others to -inf (np.where(allowed, S, -np.inf))", (
                [
                    [2.793375384486859, 1.2644584614956196, 0.9421661540175207],
                    [2.239631558141979, 1.0, 1.5207368837160413],
                    [2.0, 1.0, 2.0],
                    [0.0, 0.0, 0.0],
                ],
                [
                    [0.0, 0.26445846149561975, 0.26445846149561975, 0.47108307700876034],
                    [0.0, 0.0, 0.2396315581419793, 0.7603684418580207],
                    [0.0, 0.0, 0.0, 1.0],
                    [0.0, 0.0, 0.0, 0.0],
                ],
            )),
            ('mask multiplied into the scores', 'a blocked score of 0 still gets weight; blocked scores must be -inf', (
                [
                    [1.9719632248140757, 0.6479754832093839, 0.8380061291976539],
                    [1.4591230274937432, 0.30608201832916226, 0.9234794954177095],
                    [2.2974975013173395, 0.8092715668369075, 0.5887067306358269],
                    [1.8785465220390962, 0.5441575507586034, 0.8251124366480482],
                ],
                [
                    [0.5140183875929619, 0.16199387080234598, 0.16199387080234598, 0.16199387080234598],
                    [0.7704384862531284, 0.07652050458229057, 0.07652050458229057, 0.07652050458229057],
                    [0.43484140040330843, 0.2441129672402161, 0.2441129672402161, 0.07693266511625924],
                    [0.5061096207909658, 0.05026717154956924, 0.2841217997309237, 0.1595014079285412],
                ],
            )),
            ('no 1/sqrt(d_k)', 'scale the scores by 1/sqrt(d_k) before masking and the softmax', (
                [
                    [1.0, 0.0, 1.0],
                    [1.0539586298862746, 0.03597241992418311, 0.9820137900379085],
                    [2.059707788085427, 0.6358246728512563, 0.5761168847658291],
                    [1.608624779750824, 0.35480461988008394, 0.8351266574266639],
                ],
                [
                    [1.0, 0.0, 0.0, 0.0],
                    [0.9820137900379085, 0.017986209962091555, 0.0, 0.0],
                    [0.5761168847658291, 0.21194155761708544, 0.21194155761708544, 0.0],
                    [0.6572330228318554, 0.01203764271193945, 0.24178251715880075, 0.0889468172974043],
                ],
            )),
            ('divided by d_k instead of sqrt(d_k)', 'divide the scores by sqrt(d_k), not by d_k', (
                [
                    [1.0, 0.0, 1.0],
                    [1.6258255819781349, 0.4172170546520899, 0.791391472673955],
                    [2.472488427436837, 0.8834930564621022, 0.4110046290252653],
                    [2.0977425838774186, 0.7046763967674399, 0.8128322434936404],
                ],
                [
                    [1.0, 0.0, 0.0, 0.0],
                    [0.791391472673955, 0.20860852732604496, 0.0, 0.0],
                    [0.4110046290252653, 0.2944976854873674, 0.2944976854873674, 0.0],
                    [0.4010353822864025, 0.10571177905384213, 0.2873544080561366, 0.20589843060361895],
                ],
            )),
            ('scaled by the number of keys instead of d_k', 'scale by sqrt(d_k), where d_k is the query/key width Q.shape[-1], not the number of keys K.shape[-2]', (
                [
                    [1.0, 0.0, 1.0],
                    [1.3576087660663525, 0.2384058440442351, 0.8807970779778823],
                    [2.370343095305985, 0.8222058571835911, 0.45186276187760605],
                    [1.9417945052808723, 0.5901568391752794, 0.8227338215347366],
                ],
                [
                    [1.0, 0.0, 0.0, 0.0],
                    [0.8807970779778823, 0.11920292202211755, 0.0, 0.0],
                    [0.45186276187760605, 0.274068619061197, 0.274068619061197, 0.0],
                    [0.47399084625407806, 0.06414768542935739, 0.2874899806762354, 0.17437148764032928],
                ],
            )),
            ('scaled by the number of queries instead of d_k', 'scale by sqrt(d_k), where d_k is the query/key width Q.shape[-1], not the number of queries Q.shape[-2]', (
                [
                    [1.0, 0.0, 1.0],
                    [1.3576087660663525, 0.2384058440442351, 0.8807970779778823],
                    [2.370343095305985, 0.8222058571835911, 0.45186276187760605],
                    [1.9417945052808723, 0.5901568391752794, 0.8227338215347366],
                ],
                [
                    [1.0, 0.0, 0.0, 0.0],
                    [0.8807970779778823, 0.11920292202211755, 0.0, 0.0],
                    [0.45186276187760605, 0.274068619061197, 0.274068619061197, 0.0],
                    [0.47399084625407806, 0.06414768542935739, 0.2874899806762354, 0.17437148764032928],
                ],
            )),
            ('softmax over the query axis', "each query's weights (a row, the last axis) must sum to 1", (
                [
                    [0.109559525490999, 0.0, 0.109559525490999],
                    [1.120875156905381, 0.38661738896217007, 0.34764037898104083],
                    [3.7273177336563563, 1.5863077463950321, 0.1951597165469193],
                    [5.042247583947264, 2.0270748646427976, 2.347640378981041],
                ],
                [
                    [0.109559525490999, 0.0, 0.0, 0.0],
                    [0.34764037898104083, 0.19330869448108504, 0.0, 0.0],
                    [0.1951597165469193, 0.6133826110378299, 0.3595425243193725, 0.0],
                    [0.34764037898104083, 0.19330869448108504, 0.6404574756806275, 1.0],
                ],
            )),
            ('allowed transposed (rows read as keys)', 'allowed[..., i, j] says whether query i may read key j (row i is query i): use allowed as given, not its transpose', (
                [
                    [2.4182952141944063, 1.0, 0.9542619645139845],
                    [2.3632402145084743, 1.0702174916496623, 1.4139545542823766],
                    [2.1503254469101614, 1.0, 1.6993491061796773],
                    [2.0, 1.0, 2.0],
                ],
                [
                    [0.2091476070972031, 0.2091476070972031, 0.2091476070972031, 0.3725571787083907],
                    [0.0, 0.07021749164966243, 0.22280523120914927, 0.7069772771411883],
                    [0.0, 0.0, 0.15032544691016142, 0.8496745530898386],
                    [0.0, 0.0, 0.0, 1.0],
                ],
            )),
            ('weights returned but Y from the unmasked softmax', 'the weights are right but Y is not: Y = A @ V with the masked weights A you return', (
                [
                    [2.4182952141944063, 1.0, 0.9542619645139845],
                    [1.7986282141913463, 0.6269664546689464, 1.2425073607164001],
                    [2.129186611853787, 0.917177253740231, 1.387153858456341],
                    [1.8785465220390962, 0.5441575507586034, 0.8251124366480482],
                ],
                None,
            )),
            ('row maximum without keepdims', "reduce each row with keepdims=True (S.max(axis=-1, keepdims=True), e.sum(axis=-1, keepdims=True)): without it the (..., L_q) result lines up with the KEY axis and every column is shifted or divided by another row's value", (
                [
                    [1.0, 0.0, 1.0],
                    [1.0910532709882732, 0.06070218065884875, 0.9696489096705756],
                    [1.7781571911019096, 0.44836563910333965, 0.6702084480014299],
                    [1.569610471244808, 0.32997891310282884, 0.8290657193755953],
                ],
                [
                    [1.0, 0.0, 0.0, 0.0],
                    [0.9696489096705756, 0.030351090329424374, 0.0, 0.0],
                    [0.6702084480014299, 0.1185740871047695, 0.21121746489380067, 0.0],
                    [0.6916711643404458, 0.021650077443274872, 0.2179814806987044, 0.06869727751757472],
                ],
            )),
            ('row sum without keepdims', "reduce each row with keepdims=True (S.max(axis=-1, keepdims=True), e.sum(axis=-1, keepdims=True)): without it the (..., L_q) result lines up with the KEY axis and every column is shifted or divided by another row's value", (
                [
                    [1.0, 0.0, 1.0],
                    [1.3613894198433985, 0.18069470992169923, 1.0],
                    [3.836032832765361, 1.2857871856348706, 1.0],
                    [2.47376762018734, 0.6046545793458601, 1.3190028158570823],
                ],
                [
                    [1.0, 0.0, 0.0, 0.0],
                    [1.0, 0.09034735496084961, 0.0, 0.0],
                    [1.0, 0.5106643620696254, 0.26445846149561975, 0.0],
                    [1.0, 0.09034735496084961, 0.2644584614956197, 0.1595014079285412],
                ],
            )),
            ('weights never divided by the row sum', "divide by each row's sum so that every row of A sums to 1", (
                [
                    [1.0, 0.0, 1.0],
                    [1.3972828769467764, 0.1986414384733882, 1.0],
                    [4.929687396592497, 1.6841517413967844, 1.0],
                    [3.7117384156879654, 1.0751772509445185, 1.6303037973444048],
                ],
                [
                    [1.0, 0.0, 0.0, 0.0],
                    [1.0, 0.0993207192366941, 0.0, 0.0],
                    [1.0, 0.5613839137989282, 0.5613839137989282, 0.0],
                    [1.0, 0.0993207192366941, 0.561383913798928, 0.31515189867220234],
                ],
            )),
            ('additive mask built as (~allowed) * -inf', 'every row came out empty although its query has allowed keys: 0 * -inf is NaN, so (~allowed) * -np.inf poisons the allowed scores too; mask with np.where(allowed, S, -np.inf)', (
                [
                    [0.0, 0.0, 0.0],
                    [0.0, 0.0, 0.0],
                    [0.0, 0.0, 0.0],
                    [0.0, 0.0, 0.0],
                ],
                [
                    [0.0, 0.0, 0.0, 0.0],
                    [0.0, 0.0, 0.0, 0.0],
                    [0.0, 0.0, 0.0, 0.0],
                    [0.0, 0.0, 0.0, 0.0],
                ],
            )),
            ('A returned transposed', 'A is (..., L_q, L_k)', (
                None,
                [
                    [1.0, 0.9096526450391504, 0.47108307700876034, 0.5061096207909658],
                    [0.0, 0.09034735496084961, 0.26445846149561975, 0.05026717154956924],
                    [0.0, 0.0, 0.26445846149561975, 0.2841217997309237],
                    [0.0, 0.0, 0.0, 0.1595014079285412],
                ],
            )),
        ],
        'empty row': [
            ('large finite negative number leaves a fully masked row uniform', 'a fully masked row came out uniform: a large finite negative number (like -1e9) is still a number, so the softmax spreads the row evenly. Use -inf and give a row with no allowed key all-zero weights', (
                [
                    [2.2644584614956194, 0.9999999999999998, 1.2066246155131404],
                    [2.5, 1.0, 0.75],
                    [1.907356622210969, 0.7887825351061993, 1.5516343608966603],
                ],
                [
                    [0.26445846149561975, 0.26445846149561975, 0.0, 0.47108307700876034],
                    [0.25, 0.25, 0.25, 0.25],
                    [0.2112174648938006, 0.0, 0.11857408710476951, 0.6702084480014299],
                ],
            )),
            ('blocked scores set to -100, which leaves them a tiny weight', 'set blocked scores to -inf before the softmax: exp(-inf) = 0 exactly', (
                [
                    [2.2644584614956194, 0.9999999999999998, 1.2066246155131404],
                    [2.5, 1.0, 0.75],
                    [1.907356622210969, 0.7887825351061993, 1.5516343608966603],
                ],
                [
                    [0.26445846149561975, 0.26445846149561975, 3.100481930782404e-45, 0.47108307700876034],
                    [0.25, 0.25, 0.25, 0.25],
                    [0.2112174648938006, 1.3901495624236183e-45, 0.11857408710476951, 0.6702084480014299],
                ],
            )),
            ('NaN for a row with no allowed key', 'a row with no allowed key is all -inf; its maximum is -inf and -inf - (-inf) is NaN. Give such rows all-zero weights (np.where on the row maximum and the sum). Also 0 * -inf is NaN: build an additive mask with np.where(allowed, 0.0, -np.inf), never (~allowed) * -np.inf', (
                [
                    [2.2644584614956194, 0.9999999999999998, 1.2066246155131404],
                    [nan, nan, nan],
                    [1.907356622210969, 0.7887825351061993, 1.5516343608966603],
                ],
                [
                    [0.26445846149561975, 0.26445846149561975, 0.0, 0.47108307700876034],
                    [nan, nan, nan, nan],
                    [0.2112174648938006, 0.0, 0.11857408710476951, 0.6702084480014299],
                ],
            )),
        ],
        'leading axes': [
            ('d_k read from Q.shape[1]', 'd_k is Q.shape[-1], the last axis; with leading axes Q.shape[1] is another axis (the heads or the queries)', (
                [
                    [
                        [
                            [0.8079827476982454, 0.06297189799817546, -0.9002277299464745, -0.29209841513141754],
                            [0.6421491789264895, 0.03485233106519971, -0.7147135291151426, -0.30897471616329913],
                            [0.03474477069554239, 0.5046361746258702, 1.130276553584758, -0.8640325988137828],
                            [-0.19605254772923686, -0.00927422421476432, 1.483181191392233, 0.09554342838049674],
                            [-0.21235031432013562, 0.012368746992673435, 1.3106859187727047, 0.14051714117419928],
                        ],
                        [
                            [-0.35550378967470125, 1.2292213203271327, -0.8260408432145292, -1.2130968964775335],
                            [-0.28156408945995887, 1.104081364228024, -0.8714145078430514, -1.0586252304857513],
                            [0.3081827720320348, 0.05383913615161363, -1.0963608099538555, 0.15096015889501538],
                            [0.7290149832001821, -0.9488517545630885, -0.6588695689717567, 0.7318131849516838],
                            [-0.14661101134800547, 0.2695179355606778, -0.4805625147347223, -1.0209182409149937],
                        ],
                        [
                            [-0.2271338704147256, -0.5306760139368574, -0.516489346854127, 0.4858003702859602],
                            [-0.23485540972819077, -0.9401027256286609, 0.14316507990842567, 0.849190018052418],
                            [0.13948636062881437, -0.2796934288369872, 0.5767881102729623, 0.764946694877589],
                            [0.18643162061112217, -0.5308263294150851, 0.3893423751123272, 0.7777226324368093],
                            [0.08673667030313012, -0.5332787408569963, -0.03494706156194004, 0.6195716276229867],
                        ],
                    ],
                    [
                        [
                            [-1.0834417826118952, -0.16520084810693086, -0.6478673995045077, -0.12506245069864855],
                            [-1.0246168602315315, -1.4026909589306833, -0.346930374634232, 0.2632956192340387],
                            [-0.8285406372040837, -0.7777844996009091, -0.4996646359863972, 0.16145272617972165],
                            [-0.36250769816934675, -1.4356722972814402, -0.3411549430340658, 0.5494394975586103],
                            [-0.7372362910774186, -1.0171339497107839, -0.44173048725801756, 0.26993860487265997],
                        ],
                        [
                            [0.13032603973727555, 0.7608119663610098, 0.8184023122564981, -0.41750234673775194],
                            [-0.10570178973386171, 0.8332608572149978, 0.20902591366196835, -0.8635255321893466],
                            [-0.311045018245879, 0.5531721129554981, -0.15356609755329564, -0.93996988421757],
                            [-0.27338840995576863, 0.3632560583031632, 0.03075689563374311, -0.7068397129276037],
                            [-0.4057972495781562, 0.06604962052358399, -0.14610659093950054, -0.6502449260830578],
                        ],
                        [
                            [-0.21694063841781236, 1.1539034286423295, 2.816543042840967, 0.7882928220084852],
                            [-0.002934602613781944, 0.23871301093645927, 1.5747775660578274, 1.1459078175304531],
                            [-0.16416575961670915, 0.3177858558259504, 1.492292764685297, 1.0874022151086864],
                            [-0.2528470083970631, 0.5813563668435999, 1.8139543771504543, 0.9791793356736548],
                            [0.1061453454068171, -0.5642894743949722, 0.38061166143954306, 1.4444649721920768],
                        ],
                    ],
                ],
                [
                    [
                        [
                            [1.0, 0.0, 0.0, 0.0, 0.0],
                            [0.9315460878183037, 0.06845391218169619, 0.0, 0.0, 0.0],
                            [0.21547921288744087, 0.2950805146724656, 0.48944027244009347, 0.0, 0.0],
                            [0.015623936610829715, 0.1867823224191193, 0.27965399050489775, 0.5179397504651533, 0.0],
                            [0.053241422495064396, 0.17555592146987584, 0.27981687696735325, 0.4091162504378924, 0.08226952862981406],
                        ],
                        [
                            [1.0, 0.0, 0.0, 0.0, 0.0],
                            [0.937382061747526, 0.06261793825247396, 0.0, 0.0, 0.0],
                            [0.42706391999736487, 0.5128036398943718, 0.06013244010826322, 0.0, 0.0],
                            [0.005180590123175453, 0.5896469336235337, 0.3361014754472222, 0.06907100080606882, 0.0],
                            [0.5166415505843208, 0.020473702904633573, 0.1373170984110059, 0.23412911363196823, 0.09143853446807138],
                        ],
                        [
                            [1.0, 0.0, 0.0, 0.0, 0.0],
                            [0.595959587480287, 0.40404041251971295, 0.0, 0.0, 0.0],
                            [0.11282598979598894, 0.5064794846742366, 0.38069452552977445, 0.0, 0.0],
                            [0.08704924519260954, 0.5507760004034802, 0.18216222179281336, 0.18001253261109695, 0.0],
                            [0.3741611125142123, 0.3587152388331476, 0.027969192769824375, 0.20923460008479405, 0.029919855798021738],
                        ],
                    ],
                    [
                        [
                            [1.0, 0.0, 0.0, 0.0, 0.0],
                            [0.15146002889762014, 0.8485399711023798, 0.0, 0.0, 0.0],
                            [0.5679794695393141, 0.23085509713159372, 0.20116543332909223, 0.0, 0.0],
                            [0.09381000145773291, 0.31766503199306695, 0.5885249665492001, 0.0, 0.0],
                            [0.3996196171266687, 0.328002356328632, 0.2723780265446991, 0.0, 0.0],
                        ],
                        [
                            [1.0, 0.0, 0.0, 0.0, 0.0],
                            [0.46434248697854746, 0.5356575130214525, 0.0, 0.0, 0.0],
                            [0.10672732697917736, 0.726837119122667, 0.1664355538981557, 0.0, 0.0],
                            [0.24853780653444724, 0.4985114544816493, 0.25295073898390336, 0.0, 0.0],
                            [0.054780019303530235, 0.52838977682541, 0.4168302038710598, 0.0, 0.0],
                        ],
                        [
                            [1.0, 0.0, 0.0, 0.0, 0.0],
                            [0.516297959147398, 0.48370204085260204, 0.0, 0.0, 0.0],
                            [0.4429011818271895, 0.3667094386122266, 0.19038937956058383, 0.0, 0.0],
                            [0.5603775110233902, 0.2131555037522457, 0.22646698522436415, 0.0, 0.0],
                            [0.028387179435884903, 0.8666521748839083, 0.1049606456802067, 0.0, 0.0],
                        ],
                    ],
                ],
            )),
        ],
        'shared keys': [
            ('scaled by sqrt(d_v), the value width', 'scale by sqrt(d_k), where d_k is the query/key width Q.shape[-1], not the value width V.shape[-1]', (
                [
                    [
                        [
                            [-0.3264232804070119, 0.3368451922003748, 1.1090688788795047],
                            [-0.26357223528907014, 0.2895821679525475, 0.7998774996053184],
                            [-0.3724116218192054, -0.06914534075018974, 1.0951425022989738],
                            [-4.838139091323291e-05, 0.6932268254744812, 1.2804214180832878],
                        ],
                        [
                            [-0.4818300540328314, 0.03419487617912198, 1.241356518477215],
                            [-0.3877178262458692, -0.21596353992755052, 0.5080333445434105],
                            [0.011807207806575118, 0.8009064638039217, 1.5521024640772478],
                            [-0.06072410750079268, 0.47351729610517773, 1.1384542105964506],
                        ],
                        [
                            [-0.7382398197306177, -0.46515592307379716, 1.4596214105573544],
                            [-0.7460294474587699, -1.3579151363980158, 0.14368791377001985],
                            [-0.3110689189507294, 0.24746913859677647, 1.3228390075273442],
                            [-0.0891520553319844, -0.7818292903754763, 0.24286643657384696],
                        ],
                    ],
                    [
                        [
                            [0.3941716845721574, 1.2336224840698087, -0.41026808799395253],
                            [0.34203571277528916, 1.360635205599733, -0.24236937156797425],
                            [-0.732641201990861, -0.27080646482462634, 0.6891682026475827],
                            [-0.29052093845069715, -0.1936606077127652, -0.12553548630960698],
                        ],
                        [
                            [-0.8669707970589591, -0.3946239344966509, -1.4513153816126727],
                            [0.3694495326087584, 1.3565847148333308, -0.2625556936227864],
                            [0.03602596815799539, 0.7714438697573404, 0.08240375549140447],
                            [-0.2128740639650585, -0.4043438704191708, -0.19409588995697072],
                        ],
                        [
                            [0.30196152432301415, 1.1145710165568596, -0.486385687051723],
                            [-0.000543726032764375, 1.121336290698848, -0.30480755960695194],
                            [-0.8150526688142711, -0.08189054492823869, 0.568278911567025],
                            [-0.757463557116629, 0.05849383654291693, -0.9851521748487992],
                        ],
                    ],
                ],
                [
                    [
                        [
                            [0.6732877671623659, 0.32671223283763406, 0.0, 0.0, 0.0],
                            [0.7009794004269668, 0.17040458775753523, 0.12861601181549803, 0.0, 0.0],
                            [0.29214671558503247, 0.21903648010583215, 0.18479360754659496, 0.3040231967625404, 0.0],
                            [0.39072504109767847, 0.01293090429522125, 0.012983652613760444, 0.536183141696767, 0.04717726029657291],
                        ],
                        [
                            [0.535400854781817, 0.4645991452181831, 0.0, 0.0, 0.0],
                            [0.5471830556769933, 0.12424194872391998, 0.32857499559908665, 0.0, 0.0],
                            [0.2451766244186901, 0.005617154008850072, 0.014422384577324426, 0.7347838369951354, 0.0],
                            [0.37485272194609265, 0.028337515196730924, 0.05954558663687401, 0.4704205393580556, 0.06684363686224674],
                        ],
                        [
                            [0.3078975737381279, 0.692102426261872, 0.0, 0.0, 0.0],
                            [0.15577340106768772, 0.1789573778441005, 0.6652692210882118, 0.0, 0.0],
                            [0.3908850401675196, 0.2798560631165814, 0.037575893475494684, 0.29168300324040425, 0.0],
                            [0.1771903192409504, 0.014791709096085985, 0.026758401907705957, 0.25874093771664103, 0.5225186320386166],
                        ],
                    ],
                    [
                        [
                            [0.9149875591837526, 0.0850124408162474, 0.0, 0.0, 0.0],
                            [0.8901930666961991, 0.04640784099420108, 0.0633990923095997, 0.0, 0.0],
                            [0.06563379819626591, 0.09037857542856065, 0.21831989735755233, 0.6256677290176211, 0.0],
                            [0.018505455163111775, 0.03861787588896669, 0.12451246635986728, 0.48978681971364774, 0.32857738287440663],
                        ],
                        [
                            [0.053661878014437, 0.946338121985563, 0.0, 0.0, 0.0],
                            [0.9067211361348881, 0.04274854975728692, 0.05053031410782496, 0.0, 0.0],
                            [0.6412663546421394, 0.033297033435251484, 0.08877475793224868, 0.23666185399036052, 0.0],
                            [0.011002757951001543, 0.008709193992457783, 0.06055192810875167, 0.5572367418424696, 0.36249937810531935],
                        ],
                        [
                            [0.8520105520302055, 0.14798944796979452, 0.0, 0.0, 0.0],
                            [0.6675164574819757, 0.20285460574905376, 0.1296289367689706, 0.0, 0.0],
                            [0.03958428514481054, 0.17425065400239856, 0.27263679017380454, 0.5135282706789863, 0.0],
                            [0.13096351894950126, 0.7314205357938106, 0.11135394163487478, 0.013464710716443258, 0.012797292905369987],
                        ],
                    ],
                ],
            )),
        ],
        'large': [
            ('no max subtraction: large scores overflow', 'subtract the row maximum of the allowed scores before np.exp: exp(1131) overflows to inf, and inf / inf is NaN', (
                [
                    [nan, nan],
                    [1.0, 0.0],
                ],
                [
                    [nan, 0.0],
                    [1.0, 0.0],
                ],
            )),
            ('maximum of the whole array instead of each row', "subtract each ROW's maximum (axis=-1, keepdims=True), not the maximum of the whole array: a row far below the global maximum underflows to all zeros", (
                [
                    [1.0, 0.0],
                    [0.0, 0.0],
                ],
                [
                    [1.0, 0.0],
                    [0.0, 0.0],
                ],
            )),
        ],
        'blocked key far ahead': [
            ('row maximum over blocked keys too, then zeroed and renormalised', "take each row's maximum over its ALLOWED scores (set the blocked ones to -inf first): a blocked key that scores far higher makes exp(allowed score - that maximum) underflow to 0, and a row that has an allowed key comes out empty", (
                [
                    [0.0, 0.0],
                    [0.0, 1.0],
                ],
                [
                    [0.0, 0.0],
                    [0.0, 1.0],
                ],
            )),
        ],
    },
}
