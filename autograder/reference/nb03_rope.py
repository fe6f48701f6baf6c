"""Reference answers for notebook 03, written the way the exercises ask (numpy, float64).

Used by the hidden tests and the project's own tests; never shipped to students.
"""

import numpy as np

ANSWERS = {
    # name: (options, correct letter, explanation shown when the answer is wrong)
    "answer_rotation_norm": ("ABC", "A", "R(a) is a rotation: R(a)^T R(a) = I, so every pair "
                             "keeps its length and only its direction turns."),
    "answer_slow_pairs": ("ABC", "B", "a fast pair (theta near 1 radian) comes back to the same "
                          "angle after about 6 positions, so it cannot tell offset 1 from "
                          "offset 7; slow pairs turn little and separate long distances."),
    "answer_shifted_score": ("ABC", "A", "the score is q^T R((s - l) theta) k: only the offset "
                             "s - l = -3 enters, and it is the same for (5, 2) and (105, 102)."),
    "answer_rotate_values": ("ABC", "A", "only queries and keys are rotated: positions must "
                             "change WHICH tokens match, while the values carry content back "
                             "unchanged. Rotating V would mix absolute positions into the output."),
    "answer_half_split": ("ABC", "C", "the half-split layout rotates the same pairs by the same "
                          "angles; it only stores pair i at features i and i + d_k/2, a fixed "
                          "reordering of features that the learned W_Q and W_K absorb."),
}


def rotation_2d(a):
    a = np.asarray(a, dtype=np.float64)
    c, s = np.cos(a), np.sin(a)
    return np.stack([np.stack([c, -s], axis=-1), np.stack([s, c], axis=-1)], axis=-2)


def rope_frequencies(d_k, base=10000.0):
    return base ** (-np.arange(0, d_k, 2) / d_k)


def apply_rope(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    angles = np.asarray(positions, dtype=np.float64)[:, None] * rope_frequencies(X.shape[-1], base)
    c, s = np.cos(angles), np.sin(angles)  # (L, d_k/2)
    out = np.empty_like(X)
    out[..., 0::2] = X[..., 0::2] * c - X[..., 1::2] * s
    out[..., 1::2] = X[..., 0::2] * s + X[..., 1::2] * c
    return out
