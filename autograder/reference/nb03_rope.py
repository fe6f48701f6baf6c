"""Reference answers for notebook 03_rope: generated, do not edit.

Made by scripts/release.py (`make release`) from the answer cells of
solutions/03_rope/03_rope.ipynb. Used by the hidden tests and the project's
own tests; never shipped to students.
"""


# ruff: noqa: E501, I001
import numpy as np
from attnbook.shapes import require_integer, require_min_ndim, require_ndim, require_same_size


# name: (options, correct letter, explanation shown when the answer is wrong)
ANSWERS = {
    'answer_rotation_norm': ('ABC', 'C', 'R(a) is a rotation: R(a)^T R(a) = I, so every pair keeps its length and only its direction turns.'),
    'answer_slow_pairs': ('ABC', 'A', 'pair 0 turns 1 radian per step and is back near its angle after about 6, so it cannot tell offset 1 from offset 7; slow pairs separate long distances.'),
    'answer_rope_angles': ('ABC', 'B', "The query turns 120°, the key 270°; the score is the cosine of the angle between them, 150° (offset 5 x 30°): -0.87. 270° is the key's own angle, 390° the two angles added."),
    'answer_shifted_score': ('ABC', 'B', 'the score is q^T R((s - l) theta) k: only the offset s - l = -3 enters, the same for (5, 2) and (105, 102), whatever theta_i is.'),
    'answer_rotate_values': ('ABC', 'C', 'The weights depend only on the offset, but a rotated value carries its own absolute angle into the output: at 102 it is turned 100 steps further than at 2.'),
    'answer_half_split': ('ABC', 'A', 'the half-split layout turns the same pairs by the same angles and only stores pair i at features i and i + d_k/2: a fixed reordering that learned W_Q, W_K absorb.'),
}


# -- from the answer cell rotation_2d
def rotation_2d(a):
    """Counterclockwise rotation matrices.

    Args:
        a: angle in radians, a number or an array of shape (...).

    Returns:
        R: (..., 2, 2) float64 with R[..., :, :] = [[cos a, -sin a], [sin a, cos a]];
        (2, 2) for a single angle.
    """
    a = np.asarray(a)
    if a.dtype.kind not in "biuf":
        raise ValueError(f"a must hold real angles in radians; got {a!r} of dtype {a.dtype}")
    a = a.astype(np.float64)  # bool, int8 or float32 angles still give float64 matrices
    c, s = np.cos(a), np.sin(a)  # (...) each
    first_row = np.stack([c, -s], axis=-1)  # (..., 2)
    second_row = np.stack([s, c], axis=-1)  # (..., 2)
    return np.stack([first_row, second_row], axis=-2)  # (..., 2, 2)


# -- from the answer cell rope_frequencies
def rope_frequencies(d_k, base=10000.0):
    """The rotation speed of every pair.

    Args:
        d_k: query/key width, a positive even number.
        base: the base of the geometric progression (10000, as in the original Transformer).

    Returns:
        theta: (d_k/2,) float64, theta[i] = base ** (-2i / d_k), in radians per position.
    """
    d_k = require_integer("d_k", d_k, 1, "(the query/key width)")
    if d_k % 2 != 0:
        raise ValueError(f"d_k must be a positive even number (RoPE turns pairs); got d_k={d_k}")
    if not isinstance(base, (int, float, np.number)) or isinstance(base, bool) or base <= 0:
        raise ValueError(f"base must be a positive number; got base={base!r}")
    two_i = np.arange(0, d_k, 2)  # (d_k/2,): 0, 2, 4, ...
    return base ** (-two_i / d_k)  # (d_k/2,)


# -- from the answer cell apply_rope
def apply_rope(X, positions, base=10000.0):
    """Rotary position embedding of queries or keys.

    Args:
        X: (..., L, d_k) queries or keys, d_k even; any number of leading axes.
        positions: (L,) position of each token (integers; a list is fine).
        base: frequency base, theta_i = base ** (-2i / d_k).

    Returns:
        (..., L, d_k) float64: pair (2i, 2i+1) of token l turned by positions[l] * theta_i.
    """
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim("X", X, 2, "(..., L, d_k)")
    require_ndim("positions", positions, 1, "(L,)")
    require_same_size("positions", positions, 0, "X", X, -2, "the number of tokens L")
    if X.shape[-1] % 2 != 0:
        raise ValueError(f"X has shape {X.shape}: RoPE turns pairs, so d_k must be even")
    theta = rope_frequencies(X.shape[-1], base)  # (d_k/2,)
    angles = positions[:, None] * theta  # (L, 1) * (d_k/2,) -> (L, d_k/2)
    c, s = np.cos(angles), np.sin(angles)  # (L, d_k/2), broadcast over leading axes
    first, second = X[..., 0::2], X[..., 1::2]  # (..., L, d_k/2) each
    out = np.empty_like(X)
    out[..., 0::2] = first * c - second * s
    out[..., 1::2] = first * s + second * c
    return out
