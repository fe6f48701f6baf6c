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
