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
                            [0.5650927502285531, 0.4064741472165592, -0.5170552629798393],
                            [-0.3876026730817681, 0.5346860896964839, 0.45227810985132316],
                            [-0.778774708121106, 0.3888979341900126, -0.5718584190672095],
                            [-0.1701376591716401, 0.19898355050898742, -0.5068315608601831],
                        ],
                        [
                            [0.5644739807824074, 0.3466464872958227, -0.5716955296002705],
                            [0.4859753082246292, 0.6644830768542257, -0.20835687997359037],
                            [-0.5800216548615846, 0.4903921236644179, 0.1356169944857114],
                            [0.28926602496550435, 0.5488808779151277, -0.1717083556162711],
                        ],
                        [
                            [0.5641549834019374, 0.31580322747870665, -0.5998645059915121],
                            [-0.16298127339996593, 0.4953149088360547, 0.2153000482429054],
                            [-0.5330947662823315, 0.6183818837794047, 0.5003537443751438],
                            [-0.6596482743523238, 0.0010399750545329938, -0.9816883282610572],
                        ],
                    ],
                    [
                        [
                            [-0.33484586078210116, 1.0776619561798637, 0.34169488952364924],
                            [0.9077760559417081, -0.4175556827915266, 1.927208940802462],
                            [0.03865263077489423, 0.12127094302680706, 0.45701092366530216],
                            [-0.07467832610632497, 0.5966865857826892, 0.4473042367372382],
                        ],
                        [
                            [-0.3636239220682789, 1.1060444358451158, 0.31954854297176066],
                            [-0.06523503422635529, 0.7678798505036609, 0.6515561985122698],
                            [0.9460788136798567, -0.9359530743269554, 1.6239626296912584],
                            [-0.23567455230364384, 0.9711332937130284, 0.39294080544052434],
                        ],
                        [
                            [-0.2614641236919548, 1.0052889203436273, 0.398166288483332],
                            [1.5655551800941072, -1.200275722116362, 2.7460337500570553],
                            [1.4580035127814173, -1.1957032245155792, 2.5266806951401004],
                            [0.7345643264709958, -0.11715697220969967, 1.4073564655273623],
                        ],
                    ],
                ],
                [
                    [
                        [
                            [0.5391567094981135, 0.4608432905018866, 0.0, 0.0, 0.0],
                            [0.1253375393525093, 0.3918418965133372, 0.4828205641341535, 0.0, 0.0],
                            [0.0188786192942419, 0.12946642928609342, 0.21817956558748544, 0.6334753858321793, 0.0],
                            [0.3305986734460444, 0.13468197840879298, 0.11926955218376435, 0.10614147441666229, 0.309308321544736],
                        ],
                        [
                            [0.4518732981596555, 0.5481267018403445, 0.0, 0.0, 0.0],
                            [0.864058502540058, 0.09455048095734929, 0.04139101650259261, 0.0, 0.0],
                            [0.06686951383081369, 0.2911496068010361, 0.4131017627979712, 0.22887911657017904, 0.0],
                            [0.6230870499158866, 0.2222638355268761, 0.12024509863994817, 0.004234669003343114, 0.030169346913946106],
                        ],
                        [
                            [0.40687563424963546, 0.5931243657503644, 0.0, 0.0, 0.0],
                            [0.20962766962558066, 0.4214364522255175, 0.36893587814890194, 0.0, 0.0],
                            [0.20041717636290346, 0.2206537501206087, 0.49758657277178, 0.08134250074470797, 0.0],
                            [0.018034303508222996, 0.08152026231997483, 0.07939104354488899, 0.4565147598977284, 0.3645396307291848],
                        ],
                    ],
                    [
                        [
                            [0.604376498273017, 0.39562350172698313, 0.0, 0.0, 0.0],
                            [0.1576061616775765, 0.22266971785681094, 0.6197241204656125, 0.0, 0.0],
                            [0.3464898722484318, 0.2510128608233302, 0.17580111231513842, 0.2266961546130995, 0.0],
                            [0.5071806567266759, 0.25834201412778246, 0.08602126262778328, 0.10198731954780885, 0.046468746969949494],
                        ],
                        [
                            [0.5389201833869877, 0.46107981661301234, 0.0, 0.0, 0.0],
                            [0.6850608474424413, 0.2141079012145618, 0.10083125134299688, 0.0, 0.0],
                            [0.08948103932367556, 0.07981687202696754, 0.6172189822940676, 0.21348310635528936, 0.0],
                            [0.4755487935240017, 0.42154191064330937, 0.0314521241332784, 0.01928328329928812, 0.05217388840012237],
                        ],
                        [
                            [0.771284826186109, 0.22871517381389095, 0.0, 0.0, 0.0],
                            [0.02755395361464787, 0.044826186684793254, 0.9276198597005588, 0.0, 0.0],
                            [0.009100559041652108, 0.05947315712668965, 0.8766053281222187, 0.054820955709439574, 0.0],
                            [0.06715698713744793, 0.2469932327066038, 0.43039781927131476, 0.059697756134197394, 0.19575420475043612],
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
