"""The known slips of notebook 03_rope's visible checks: generated, do not edit.

Made by scripts/release.py (`make release`): each mistake of the grader's catalogue
of notebook 03, run on the visible cases of
attnbook/checks/nb03.py; its output (a wrong program's, on visible inputs)
on the first case that tells it apart from the reference, None for a part it gets
right. A check names the slip whose output a learner's matches.
"""

# ruff: noqa: E501

# function: {case id: [(mistake, its hint, its output)]}
SLIPS = {
    'rotation_2d': {
        '1.5708': [
            ('transposed: R(-a) instead of R(a)', 'R(a) = [[cos a, -sin a], [sin a, cos a]] turns counterclockwise: R(a) @ [1, 0] = [cos a, sin a]. Rotating by -a (or x @ R instead of R @ x) turns the wrong way', [
                [6.123233995736766e-17, 1.0],
                [-1.0, 6.123233995736766e-17],
            ]),
            ('angle treated as degrees', 'a is in radians: use np.cos(a) and np.sin(a) directly, no conversion', [
                [0.9996242168594817, -0.027412133592044294],
                [0.027412133592044294, 0.9996242168594817],
            ]),
            ('sin and cos swapped', 'cos sits on the diagonal: [[cos a, -sin a], [sin a, cos a]]', [
                [1.0, -6.123233995736766e-17],
                [6.123233995736766e-17, 1.0],
            ]),
            ('the minus sign dropped: [[cos a, sin a], [sin a, cos a]]', 'the minus sign belongs on the top-right sin: [[cos a, -sin a], [sin a, cos a]]; without it the matrix is no rotation (R^T R != I)', [
                [6.123233995736766e-17, 1.0],
                [1.0, 6.123233995736766e-17],
            ]),
            ('both sin entries negative: [[cos a, -sin a], [-sin a, cos a]]', 'only the top-right sin has a minus sign: [[cos a, -sin a], [sin a, cos a]]', [
                [6.123233995736766e-17, -1.0],
                [-1.0, 6.123233995736766e-17],
            ]),
            ('half the angle', 'turn by a itself: np.cos(a), np.sin(a), no halving', [
                [0.7071067811865476, -0.7071067811865475],
                [0.7071067811865475, 0.7071067811865476],
            ]),
            ('angle read as turns (multiplied by pi)', 'a is already in radians: no factor pi', [
                [0.22058404074969779, 0.9753679720836315],
                [-0.9753679720836315, 0.22058404074969779],
            ]),
            ('angles truncated to integers', 'keep the angles as floats: astype(int) or int(a) cuts pi/6 down to 0', [
                [0.5403023058681398, -0.8414709848078965],
                [0.8414709848078965, 0.5403023058681398],
            ]),
        ],
        'angles (2, 3)': [
            ('the 2 x 2 built in front, then reshaped to (..., 2, 2)', 'entry [j, k] must be rotation_2d(a[j, k])', [
                [
                    [
                        [1.0, 0.5403023058681398],
                        [-0.4161468365471424, -0.9364566872907963],
                    ],
                    [
                        [-0.8390715290764524, -1.0],
                        [-0.0, -0.8414709848078965],
                    ],
                    [
                        [0.9092974268256817, 0.35078322768961984],
                        [0.5440211108893698, -1.2246467991473532e-16],
                    ],
                ],
                [
                    [
                        [0.0, 0.8414709848078965],
                        [-0.9092974268256817, -0.35078322768961984],
                    ],
                    [
                        [-0.5440211108893698, 1.2246467991473532e-16],
                        [1.0, 0.5403023058681398],
                    ],
                    [
                        [-0.4161468365471424, -0.9364566872907963],
                        [-0.8390715290764524, -1.0],
                    ],
                ],
            ]),
        ],
        '0.523599': [
            ('a reflection: [[cos a, -sin a], [sin a, -cos a]]', 'cos a sits on BOTH diagonal entries, with a plus sign; -cos a in the corner makes a reflection (determinant -1), not a rotation', [
                [0.8660254037844387, -0.49999999999999994],
                [0.49999999999999994, -0.8660254037844387],
            ]),
        ],
    },
    'rope_frequencies': {
        '8, 10000': [
            ('exponent i/d_k instead of 2i/d_k', 'the exponent is 2i/d_k with i the PAIR index: theta_i = base ** (-2 * i / d_k) for i = 0 .. d_k/2 - 1 (a range with step 2 gives the 2i directly)', [1.0, 0.31622776601683794, 0.1, 0.03162277660168379]),
            ('positive exponent', 'the frequencies shrink from 1: theta_i = base ** (-2i/d_k), with a minus sign', [1.0, 10.0, 100.0, 1000.0]),
            ('one frequency for all pairs', 'pair i has its own theta_i = base ** (-2i/d_k); beware integer division: 2 * i // d_k is 0 for every pair, use / (true division)', [1.0, 1.0, 1.0, 1.0]),
            ('missing parentheses: (base ** -2i) / d_k', 'put the whole exponent in parentheses, base ** (-2 * i / d_k): base ** -two_i / d_k is read as (base ** -two_i) / d_k, because ** binds before /', [0.125, 1.25e-09, 1.25e-17, 1.25e-25]),
            ('pair index counted from 1', 'i counts from 0: the fastest pair has theta_0 = base ** 0 = 1', [0.1, 0.01, 0.001, 0.0001]),
            ('exponent divided by the number of pairs d_k/2 instead of d_k', 'divide by d_k, the width, not by the number of pairs d_k/2: theta_i = base ** (-2i/d_k); and np.arange(0, d_k, 2) already holds 2i, so do not multiply it by 2 again', [1.0, 0.01, 0.0001, 1e-06]),
            ('exponent spread over [0, 1] with np.linspace', 'the exponent 2i/d_k starts at 0 and stops at (d_k - 2)/d_k, just short of 1: np.arange(0, d_k, 2) / d_k, not np.linspace(0, 1, d_k // 2)', [1.0, 0.046415888336127795, 0.0021544346900318843, 0.0001]),
            ('odd numbers 1, 3, 5, ... in the exponent', 'the exponent uses the even numbers 0, 2, 4, ...: np.arange(0, d_k, 2) / d_k', [0.31622776601683794, 0.03162277660168379, 0.0031622776601683794, 0.00031622776601683794]),
            ('np.log10 paired with np.exp', 'np.exp undoes np.log, the natural logarithm: exp(-log(base) * 2i/d_k); np.log10 goes with 10 ** (...)', [1.0, 0.36787944117144233, 0.1353352832366127, 0.049787068367863944]),
            ('slowest pair first (reversed order)', 'theta_0 = 1 is the fastest pair and the frequencies decrease with i: no reversing', [0.001, 0.01, 0.1, 1.0]),
            ('multiplied by 2 pi', 'theta_i is already in radians per position: no factor 2 pi', [6.283185307179586, 0.6283185307179586, 0.06283185307179587, 0.006283185307179587]),
            ('missing parentheses: 1 / base ** 2 * i / d_k', 'put the whole exponent in parentheses: 1 / base ** (2 * i / d_k); ** binds before * and /', [0.0, 1.25e-09, 2.5e-09, 3.7500000000000005e-09]),
            ('exponent divided by d_k - 1', 'divide by the width d_k itself: theta_i = base ** (-2i/d_k), not (d_k - 1)', [1.0, 0.07196856730011521, 0.005179474679231213, 0.00037275937203149417]),
        ],
        '4, 100': [
            ('base ignored (10000 used whatever base is)', 'use the base argument, not a hard-coded 10000', [1.0, 0.01]),
        ],
    },
    'apply_rope': {
        'worked': [
            ('half-split pairing (feature i with i + d_k/2) instead of consecutive pairs', 'our pairs are consecutive features (2i, 2i+1): X[..., 0::2] and X[..., 1::2], not the two halves X[..., :d_k//2] and X[..., d_k//2:]', [
                [1.0, 0.0, 1.0, 0.0],
                [-0.30116867893975674, 0.0, 1.3817732906760363, 0.0],
                [-0.0, 1.761463824887422, 0.0, 1.377405239431364],
            ]),
            ('exponent i/d_k instead of 2i/d_k', 'the exponent is 2i/d_k with i the PAIR index: theta_i = base ** (-2 * i / d_k) for i = 0 .. d_k/2 - 1 (a range with step 2 gives the 2i directly)', [
                [1.0, 0.0, 1.0, 0.0],
                [0.5403023058681398, 0.8414709848078965, 0.9504152802551828, 0.31098359290718575],
                [-1.8185948536513634, -0.8322936730942848, -0.5911271172152932, 0.8065784098850756],
            ]),
            ('rotated by -l * theta (the wrong direction)', 'R(a) = [[cos a, -sin a], [sin a, cos a]] turns counterclockwise: R(a) @ [1, 0] = [cos a, sin a]. Rotating by -a (or x @ R instead of R @ x) turns the wrong way', [
                [1.0, 0.0, 1.0, 0.0],
                [0.5403023058681398, -0.8414709848078965, 0.9950041652780258, -0.09983341664682815],
                [1.8185948536513634, -0.8322936730942848, 0.19866933079506122, 0.9800665778412416],
            ]),
            ('one frequency for all pairs', 'pair i turns by l * theta_i with its own theta_i from rope_frequencies(d_k, base), d_k = X.shape[-1]', [
                [1.0, 0.0, 1.0, 0.0],
                [0.5403023058681398, 0.8414709848078965, 0.5403023058681398, 0.8414709848078965],
                [-1.8185948536513634, -0.8322936730942848, -0.9092974268256817, -0.4161468365471424],
            ]),
            ('the second component computed from the already rotated first one', 'compute both new components from the ORIGINAL pair: keep X[..., 0::2] and X[..., 1::2] (or copies of them) and write the results into a new array; overwriting x_2i first and then reading it back uses the rotated value', [
                [1.0, 0.0, 1.0, 0.0],
                [0.5403023058681398, 0.4546487134128409, 0.9950041652780258, 0.09933466539753062],
                [-1.8185948536513634, -2.485937293957897, -0.19866933079506122, 0.9405970748426842],
            ]),
            ('the two components of each rotated pair stored in swapped places', 'the components are stored in swapped places: feature 2i gets x_2i * cos - x_2i+1 * sin and feature 2i+1 gets x_2i * sin + x_2i+1 * cos', [
                [0.0, 1.0, 0.0, 1.0],
                [0.8414709848078965, 0.5403023058681398, 0.09983341664682815, 0.9950041652780258],
                [-0.8322936730942848, -1.8185948536513634, 0.9800665778412416, -0.19866933079506122],
            ]),
            ('sign typo in the second component (-x_2i * sin + x_2i+1 * cos)', 'R(a) @ [x_2i, x_2i+1] = [x_2i * cos - x_2i+1 * sin, x_2i * sin + x_2i+1 * cos]: only the first component has a minus sign', [
                [1.0, 0.0, 1.0, 0.0],
                [0.5403023058681398, -0.8414709848078965, 0.9950041652780258, -0.09983341664682815],
                [-1.8185948536513634, -0.8322936730942848, -0.19866933079506122, 0.9800665778412416],
            ]),
            ('rotated pairs written back as two halves (all first components, then all second ones)', 'interleave the results: pair i goes back to features 2i and 2i+1, e.g. np.stack([first, second], axis=-1).reshape(X.shape), not np.concatenate', [
                [1.0, 1.0, 0.0, 0.0],
                [0.5403023058681398, 0.9950041652780258, 0.8414709848078965, 0.09983341664682815],
                [-1.8185948536513634, -0.19866933079506122, -0.8322936730942848, 0.9800665778412416],
            ]),
            ('the last pair left unrotated (a loop over range(d_k // 2 - 1))', 'rotate every pair i = 0 .. d_k/2 - 1: range(d_k // 2) pairs, the last one included', [
                [1.0, 0.0, 1.0, 0.0],
                [0.5403023058681398, 0.8414709848078965, 1.0, 0.0],
                [-1.8185948536513634, -0.8322936730942848, 0.0, 1.0],
            ]),
            ('positions counted from 1 (positions + 1)', 'use positions[l] as given: a token at position 0 is turned by 0, not by theta', [
                [0.5403023058681398, 0.8414709848078965, 0.9950041652780258, 0.09983341664682815],
                [-0.4161468365471424, 0.9092974268256817, 0.9800665778412416, 0.19866933079506122],
                [-0.2822400161197344, -1.9799849932008908, -0.2955202066613396, 0.955336489125606],
            ]),
            ('base ignored (10000 used whatever base is)', 'pass base on to rope_frequencies(d_k, base)', [
                [1.0, 0.0, 1.0, 0.0],
                [0.5403023058681398, 0.8414709848078965, 0.9999500004166653, 0.009999833334166664],
                [-1.8185948536513634, -0.8322936730942848, -0.01999866669333308, 0.9998000066665778],
            ]),
            ('the last token left unrotated (a loop over range(L - 1))', 'rotate every token l = 0 .. L-1, the first and the last included: loop over range(L) (or better, no loop: angles (L, d_k/2) at once)', [
                [1.0, 0.0, 1.0, 0.0],
                [0.5403023058681398, 0.8414709848078965, 0.9950041652780258, 0.09983341664682815],
                [0.0, 2.0, 0.0, 1.0],
            ]),
            ('cos written where sin belongs', 'the off-diagonal terms use sin: x_2i * cos - x_2i+1 * sin and x_2i * sin + x_2i+1 * cos', [
                [1.0, 1.0, 1.0, 1.0],
                [0.5403023058681398, 0.5403023058681398, 0.9950041652780258, 0.9950041652780258],
                [0.8322936730942848, -0.8322936730942848, -0.9800665778412416, 0.9800665778412416],
            ]),
            ('the second component of each pair never written (left as x_2i+1)', 'write BOTH components of every pair: feature 2i+1 becomes x_2i * sin + x_2i+1 * cos', [
                [1.0, 0.0, 1.0, 0.0],
                [0.5403023058681398, 0.0, 0.9950041652780258, 0.0],
                [-1.8185948536513634, 2.0, -0.19866933079506122, 1.0],
            ]),
            ('positions divided by theta', 'multiply: the angle is positions[l] * theta_i', [
                [1.0, 0.0, 1.0, 0.0],
                [0.5403023058681398, 0.8414709848078965, -0.8390715290764524, -0.5440211108893698],
                [-1.8185948536513634, -0.8322936730942848, -0.9129452507276277, 0.40808206181339196],
            ]),
            ('plus sign in the first component (x_2i * cos + x_2i+1 * sin)', 'R(a) @ [x_2i, x_2i+1] = [x_2i * cos - x_2i+1 * sin, x_2i * sin + x_2i+1 * cos]: only the first component has a minus sign', [
                [1.0, 0.0, 1.0, 0.0],
                [0.5403023058681398, 0.8414709848078965, 0.9950041652780258, 0.09983341664682815],
                [1.8185948536513634, -0.8322936730942848, 0.19866933079506122, 0.9800665778412416],
            ]),
            ("Hugging Face's frequency layout (theta repeated as a block), consecutive pairs", 'np.concatenate([theta, theta]) goes with the half-split layout (rotate_half); with consecutive pairs both features 2i and 2i+1 turn by theta_i: np.repeat(theta, 2)', [
                [1.0, 0.0, 1.0, 0.0],
                [0.5403023058681398, 0.09983341664682815, 0.5403023058681398, 0.09983341664682815],
                [-1.8185948536513634, 1.9601331556824833, -0.9092974268256817, 0.9800665778412416],
            ]),
            ('frequencies reversed (slowest pair first)', 'pair i (features 2i, 2i+1) turns by positions[l] * theta_i in the order rope_frequencies gives: theta_0 = 1, the fastest, belongs to pair 0', [
                [1.0, 0.0, 1.0, 0.0],
                [0.9950041652780258, 0.09983341664682815, 0.5403023058681398, 0.8414709848078965],
                [-0.39733866159012243, 1.9601331556824833, -0.9092974268256817, -0.4161468365471424],
            ]),
        ],
        'position 0': [
            ('positions ignored (0, 1, 2, ... used instead)', 'turn token l by positions[l] * theta_i: the positions argument need not be 0, 1, 2, ...', [
                [-0.39530128858657, 0.2639148850157296, 0.6071282687955677, -0.9721597997272025, 0.7676642531398922, 0.25505812177433956, 0.7829798706300901, 0.27241823407236765],
                [1.4169304532125269, 0.471124187954687, 1.6471879468163744, 1.3736970079351545, -0.6065294039179951, 0.6541338265276764, 0.44651292537853277, -1.745317925425181],
                [0.2846045566266082, 0.7848405928344726, -0.12535419753656946, -0.6400488373245922, -0.42943299120747436, 0.06315924593233999, 0.09983723222193122, -1.5589552849704826],
                [0.4557967170653541, 1.2934331476440184, -1.1114886585422057, -0.7069979703414883, 0.8359925632238161, 0.6562277994952167, -0.6025240671815901, -0.7122315985283123],
                [0.6488573551810057, 0.5328846409975249, 0.8556828703444637, 0.381373724690398, 0.6795995321226163, 0.34286003891582534, 1.5122003728274946, -2.0006579564372964],
            ]),
        ],
        'positions': [
            ('the first token left unrotated (a loop from 1)', 'rotate every token l = 0 .. L-1, the first and the last included: loop over range(L) (or better, no loop: angles (L, d_k/2) at once)', [
                [-0.39530128858657, 0.2639148850157296, 0.6071282687955677, -0.9721597997272025, 0.7676642531398922, 0.25505812177433956, 0.7829798706300901, 0.27241823407236765],
                [1.1620081255305676, -0.9377563787668719, 1.776099733817743, 1.2023898441352874, -0.5999578484570015, 0.6601663130603562, 0.44476738448754977, -1.7457635656172505],
                [-0.5066480883637009, 0.66353765859279, -0.06082968643302708, -0.6493657969504238, -0.4300431016696789, 0.05886182965609224, 0.10139613732846389, -1.5588546682773228],
                [-0.9483378917544623, -0.9906438299280775, -0.13710189454912253, -1.3101359618932598, 0.7736282755584287, 0.7287096691085911, -0.5960896672706177, -0.7176253967415344],
                [-0.09782783846538967, 0.8339134379566865, 0.813334178194629, 0.46489418910719377, 0.6761370091830715, 0.3496387781119412, 1.5142002743503657, -1.9991447559876072],
            ]),
            ('positions made relative to the first token', 'turn token l by its absolute position positions[l]; the offset s - l appears in the score q~ . k~ by itself', [
                [-0.39530128858657, 0.2639148850157296, 0.6071282687955677, -0.9721597997272025, 0.7676642531398922, 0.25505812177433956, 0.7829798706300901, 0.27241823407236765],
                [0.25994717168983705, -1.4704004140530818, 2.133036809795483, -0.22455638446645698, -0.552314640186325, 0.7005123261304608, 0.4325362425710436, -1.7488341408501482],
                [0.053972213464586305, 0.8331035409762269, -0.4648580423059282, -0.45747479657801843, -0.424872962256967, 0.08879611605881439, 0.09048175956960877, -1.5595262436587345],
                [-1.365793794839068, -0.12380333069415145, -0.9488740722456018, -0.9137237893121664, 0.8227016892473766, 0.6728152949401296, -0.6010983998864428, -0.713435221396588],
                [0.4741173252724655, 0.692960799656109, 0.9215653511604901, -0.16839357477531733, 0.6989358814995988, 0.3014915652203539, 1.5001692775873754, -2.0096950924999653],
            ]),
        ],
    },
}
