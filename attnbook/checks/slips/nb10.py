"""The known slips of notebook 10_modern_decoder's visible checks: generated, do not edit.

Made by scripts/release.py (`make release`): each mistake of the grader's catalogue
of notebook 10, run on the visible cases of
attnbook/checks/nb10.py; its output (a wrong program's, on visible inputs)
on the first case that tells it apart from the reference, None for a part it gets
right. A check names the slip whose output a learner's matches.
"""

# ruff: noqa: E501

# function: {case id: [(mistake, detector, its output)]}
SLIPS = {
    'rms_norm': {
        'worked': [
            ('the mean subtracted (LayerNorm without beta)', 'HINT_RMS_CENTRED', [
                [0.0, 0.3779644730092272, -1.5118578920369088, 1.1338934190276817],
                [0.0, 0.0, 0.0, 0.0],
            ]),
            ('divided by h.std (unbiased) instead of the RMS', 'HINT_RMS_STD', [
                [0.3302891295379082, 0.6605782590758164, -0.9908673886137245, 1.3211565181516327],
                [0.0, 0.0, 0.0, 0.0],
            ]),
            ('divided by the biased standard deviation', 'HINT_RMS_STD', [
                [0.3779644730092272, 0.7559289460184544, -1.1338934190276817, 1.5118578920369088],
                [0.0, 0.0, 0.0, 0.0],
            ]),
            ('eps outside the square root', 'HINT_RMS_EPS_OUTSIDE', [
                [0.3087741775897697, 0.6175483551795394, -0.9263225327693092, 1.2350967103590789],
                [0.0, 0.0, 0.0, 0.0],
            ]),
            ('no square root', 'HINT_RMS_NO_ROOT', [
                [0.125, 0.25, -0.375, 0.5],
                [0.0, 0.0, 0.0, 0.0],
            ]),
            ('sum of squares instead of their mean', 'HINT_RMS_SUM', [
                [0.18107149208503706, 0.3621429841700741, -0.5432144762551112, 0.7242859683401482],
                [0.0, 0.0, 0.0, 0.0],
            ]),
            ('F.normalize (the L2 norm)', 'HINT_RMS_SUM', [
                [0.18257418583505536, 0.3651483716701107, -0.5477225575051661, 0.7302967433402214],
                [0.0, 0.0, 0.0, 0.0],
            ]),
            ("gamma added like LayerNorm's beta", 'HINT_RMS_GAMMA_SHIFT', [
                [1.3535533905932737, 1.7071067811865475, -0.06066017177982119, 2.414213562373095],
                [1.0, 1.0, 1.0, 1.0],
            ]),
            ('eps argument ignored (1e-6 written in)', 'HINT_EPS_ARGUMENT_IGNORED', [
                [0.3651483473268884, 0.7302966946537768, -1.0954450419806652, 1.4605933893075536],
                [0.0, 0.0, 0.0, 0.0],
            ]),
            ('mean over the first axis', 'HINT_RMS_AXIS', [
                [1.0, 1.2649110640673518, -1.3416407864998738, 1.3719886811400706],
                [0.0, 0.0, 0.0, 0.0],
            ]),
            ('mean over the whole tensor', 'HINT_RMS_AXIS', [
                [0.48507125007266594, 0.9701425001453319, -1.4552137502179978, 1.9402850002906638],
                [0.0, 0.0, 0.0, 0.0],
            ]),
            ('mean square divided by d - 1', 'HINT_RMS_D_MINUS_1', [
                [0.3086066999241838, 0.6172133998483676, -0.9258200997725514, 1.2344267996967353],
                [0.0, 0.0, 0.0, 0.0],
            ]),
            ('mean absolute value, squared', 'HINT_RMS_ABS', [
                [0.3849001794597505, 0.769800358919501, -1.1547005383792515, 1.539600717839002],
                [0.0, 0.0, 0.0, 0.0],
            ]),
            ('square of the mean', 'HINT_RMS_MEAN_SQUARED', [
                [0.8164965809277261, 1.6329931618554523, -2.4494897427831783, 3.2659863237109046],
                [0.0, 0.0, 0.0, 0.0],
            ]),
        ],
        'gamma': [
            ('gamma not applied', 'HINT_RMS_NO_GAMMA', [
                [0.35355339059327373, 0.7071067811865475, -1.0606601717798212, 1.414213562373095],
                [0.0, 0.0, 0.0, 0.0],
            ]),
            ('gamma inside the mean square', 'HINT_RMS_GAMMA_INSIDE', [
                [0.7525766947068778, 0.7525766947068778, -0.5644325210301584, -1.5051533894137556],
                [0.0, 0.0, 0.0, -0.0],
            ]),
        ],
    },
    'kv_cache_bytes': {
        'qwen3-0.6b': [
            ('keys only', 'HINT_KV_FACTOR_2', 1879048192.0),
            ('bits instead of bytes', 'HINT_KV_BITS', 30064771072.0),
            ('bytes per token (length left out)', 'HINT_KV_LENGTH', 114688.0),
            ('one layer', 'HINT_KV_LAYERS', 134217728.0),
            ('returned in GiB', 'HINT_KV_GIB', 3.5),
            ('d_k left out', 'HINT_KV_D_K', 29360128.0),
            ('the factor 2 counted twice', 'HINT_KV_FACTOR_2_TWICE', 7516192768.0),
            ('returned in KiB', 'HINT_KV_KIB', 3670016.0),
        ],
        'float64': [
            ('bytes_per_value ignored (bfloat16 written in)', 'HINT_KV_BYTES_PER_VALUE', 1280.0),
        ],
    },
}
