"""Reference answers for notebook 03, written the way the exercises ask (numpy, float64).

Used by the hidden tests and the project's own tests; never shipped to students.
"""

import numpy as np

ANSWERS = {
    # name: (options, correct letter, explanation shown when the answer is wrong)
    "answer_rotation_norm": ("ABC", "C", "R(a) is a rotation: R(a)^T R(a) = I, so every pair keeps "
                             "its length and only its direction turns."),
    "answer_slow_pairs": ("ABC", "A", "pair 0 turns 1 radian per step and is back near its angle "
                          "after about 6, so it cannot tell offset 1 from offset 7; slow pairs "
                          "separate long distances."),
    "answer_shifted_score": ("ABC", "B", "the score is q^T R((s - l) theta) k: only the offset s - "
                             "l = -3 enters, the same for (5, 2) and (105, 102), whatever theta_i "
                             "is."),
    "answer_rotate_values": ("ABC", "B", "positions must change WHICH tokens match, so queries and "
                             "keys are rotated; the values carry content back unchanged. Rotating "
                             "V would mix absolute positions into the output."),
    "answer_half_split": ("ABC", "A", "the half-split layout turns the same pairs by the same "
                          "angles and only stores pair i at features i and i + d_k/2: a fixed "
                          "reordering that learned W_Q, W_K absorb."),
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
