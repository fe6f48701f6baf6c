"""Reference answers for notebook 03_rope: generated, do not edit.

Made by scripts/release.py (`make release`) from the answer cells of
solutions/03_rope/03_rope.ipynb. Used by the hidden tests and the project's
own tests; never shipped to students.
"""


# ruff: noqa: E501, I001, F841, UP034
import numpy as np
from attnbook.shapes import require_integer, require_min_ndim, require_ndim, require_number, require_same_size


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
    # Key idea: [[cos a, -sin a], [sin a, cos a]] turns a vector by a, anticlockwise. Build it with
    #   np.stack so that an array of angles gives a stack of matrices, (..., 2, 2).
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
    base = require_number("base", base, 0.0, "(the base of the frequencies, e.g. 10000)")
    if base <= 0:
        raise ValueError(f"base must be a positive number; got base={base!r}")
    # Key idea: The ladder of frequencies of the sinusoids: theta_i = base^(-2i/d_k) for the d_k/2
    #   pairs, pair 0 turning fastest.
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
    # Key idea: Turn pair i of the token at position m by the angle m theta_i: the even and odd
    #   features of a pair are a point's two coordinates, mixed by cos and sin. Nothing else
    #   changes, so every norm is kept.
    theta = rope_frequencies(X.shape[-1], base)  # (d_k/2,)
    angles = positions[:, None] * theta  # (L, 1) * (d_k/2,) -> (L, d_k/2)
    c, s = np.cos(angles), np.sin(angles)  # (L, d_k/2), broadcast over leading axes
    first, second = X[..., 0::2], X[..., 1::2]  # (..., L, d_k/2) each
    out = np.empty_like(X)
    out[..., 0::2] = first * c - second * s
    out[..., 1::2] = first * s + second * c
    return out


# -- the catalogued mistakes (autograder/mistakes/), resolved: the hidden trials run
# them on their inputs to name the slip a wrong output matches
# rotation_2d: transposed: R(-a) instead of R(a)
def _slip_rotation_2d_0(a):
    a = np.asarray(a)
    if a.dtype.kind not in 'biuf':
        raise ValueError(f'a must hold real angles in radians; got {a!r} of dtype {a.dtype}')
    a = a.astype(np.float64)
    c, s = (np.cos(a), np.sin(a))
    return np.stack([np.stack([c, s], axis=-1), np.stack([-s, c], axis=-1)], axis=-2)

# rotation_2d: angle treated as degrees
def _slip_rotation_2d_1(a):
    a = np.asarray(a)
    if a.dtype.kind not in 'biuf':
        raise ValueError(f'a must hold real angles in radians; got {a!r} of dtype {a.dtype}')
    a = a.astype(np.float64)
    a = np.radians(a)
    c, s = (np.cos(a), np.sin(a))
    return np.stack([np.stack([c, -s], axis=-1), np.stack([s, c], axis=-1)], axis=-2)

# rotation_2d: sin and cos swapped
def _slip_rotation_2d_2(a):
    a = np.asarray(a)
    if a.dtype.kind not in 'biuf':
        raise ValueError(f'a must hold real angles in radians; got {a!r} of dtype {a.dtype}')
    a = a.astype(np.float64)
    c, s = (np.cos(a), np.sin(a))
    return np.stack([np.stack([s, -c], axis=-1), np.stack([c, s], axis=-1)], axis=-2)

# rotation_2d: np.array puts the 2 x 2 in front for arrays of angles
def _slip_rotation_2d_3(a):
    a = np.asarray(a)
    if a.dtype.kind not in 'biuf':
        raise ValueError(f'a must hold real angles in radians; got {a!r} of dtype {a.dtype}')
    a = a.astype(np.float64)
    c, s = (np.cos(a), np.sin(a))
    return np.array([[c, -s], [s, c]])

# rotation_2d: the 2 x 2 built in front, then reshaped to (..., 2, 2)
def _slip_rotation_2d_4(a):
    a = np.asarray(a)
    if a.dtype.kind not in 'biuf':
        raise ValueError(f'a must hold real angles in radians; got {a!r} of dtype {a.dtype}')
    a = a.astype(np.float64)
    c, s = (np.cos(a), np.sin(a))
    return np.array([[c, -s], [s, c]]).reshape(*np.shape(a), 2, 2)

# rotation_2d: the minus sign dropped: [[cos a, sin a], [sin a, cos a]]
def _slip_rotation_2d_5(a):
    a = np.asarray(a)
    if a.dtype.kind not in 'biuf':
        raise ValueError(f'a must hold real angles in radians; got {a!r} of dtype {a.dtype}')
    a = a.astype(np.float64)
    c, s = (np.cos(a), np.sin(a))
    return np.stack([np.stack([c, s], axis=-1), np.stack([s, c], axis=-1)], axis=-2)

# rotation_2d: math.cos only takes one number
def _slip_rotation_2d_6(a):
    a = np.asarray(a)
    if a.dtype.kind not in 'biuf':
        raise ValueError(f'a must hold real angles in radians; got {a!r} of dtype {a.dtype}')
    a = a.astype(np.float64)
    import math
    c, s = (math.cos(a), math.sin(a))
    return np.array([[c, -s], [s, c]])

# rotation_2d: both sin entries negative: [[cos a, -sin a], [-sin a, cos a]]
def _slip_rotation_2d_7(a):
    a = np.asarray(a)
    if a.dtype.kind not in 'biuf':
        raise ValueError(f'a must hold real angles in radians; got {a!r} of dtype {a.dtype}')
    a = a.astype(np.float64)
    c, s = (np.cos(a), np.sin(a))
    return np.stack([np.stack([c, -s], -1), np.stack([-s, c], -1)], -2)

# rotation_2d: a reflection: [[cos a, -sin a], [sin a, -cos a]]
def _slip_rotation_2d_8(a):
    a = np.asarray(a)
    if a.dtype.kind not in 'biuf':
        raise ValueError(f'a must hold real angles in radians; got {a!r} of dtype {a.dtype}')
    a = a.astype(np.float64)
    c, s = (np.cos(a), np.sin(a))
    return np.stack([np.stack([c, -s], -1), np.stack([s, -c], -1)], -2)

# rotation_2d: half the angle
def _slip_rotation_2d_9(a):
    a = np.asarray(a)
    if a.dtype.kind not in 'biuf':
        raise ValueError(f'a must hold real angles in radians; got {a!r} of dtype {a.dtype}')
    a = a.astype(np.float64)
    c, s = (np.cos(a / 2), np.sin(a / 2))
    return np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)

# rotation_2d: angle read as turns (multiplied by pi)
def _slip_rotation_2d_10(a):
    a = np.asarray(a)
    if a.dtype.kind not in 'biuf':
        raise ValueError(f'a must hold real angles in radians; got {a!r} of dtype {a.dtype}')
    a = a.astype(np.float64)
    c, s = (np.cos(np.pi * a), np.sin(np.pi * a))
    return np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)

# rotation_2d: angles truncated to integers
def _slip_rotation_2d_11(a):
    a = np.asarray(a)
    if a.dtype.kind not in 'biuf':
        raise ValueError(f'a must hold real angles in radians; got {a!r} of dtype {a.dtype}')
    a = a.astype(np.float64)
    c, s = (np.cos(a.astype(int)), np.sin(a.astype(int)))
    return np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)

# rope_frequencies: exponent i/d_k instead of 2i/d_k
def _slip_rope_frequencies_0(d_k, base=10000.0):
    d_k = require_integer('d_k', d_k, 1, '(the query/key width)')
    if d_k % 2 != 0:
        raise ValueError(f'd_k must be a positive even number (RoPE turns pairs); got d_k={d_k}')
    base = require_number('base', base, 0.0, '(the base of the frequencies, e.g. 10000)')
    if base <= 0:
        raise ValueError(f'base must be a positive number; got base={base!r}')
    return base ** (-np.arange(d_k // 2) / d_k)

# rope_frequencies: one theta per feature instead of per pair
def _slip_rope_frequencies_1(d_k, base=10000.0):
    d_k = require_integer('d_k', d_k, 1, '(the query/key width)')
    if d_k % 2 != 0:
        raise ValueError(f'd_k must be a positive even number (RoPE turns pairs); got d_k={d_k}')
    base = require_number('base', base, 0.0, '(the base of the frequencies, e.g. 10000)')
    if base <= 0:
        raise ValueError(f'base must be a positive number; got base={base!r}')
    return base ** (-np.arange(d_k) / d_k)

# rope_frequencies: positive exponent
def _slip_rope_frequencies_2(d_k, base=10000.0):
    d_k = require_integer('d_k', d_k, 1, '(the query/key width)')
    if d_k % 2 != 0:
        raise ValueError(f'd_k must be a positive even number (RoPE turns pairs); got d_k={d_k}')
    base = require_number('base', base, 0.0, '(the base of the frequencies, e.g. 10000)')
    if base <= 0:
        raise ValueError(f'base must be a positive number; got base={base!r}')
    return base ** (np.arange(0, d_k, 2) / d_k)

# rope_frequencies: base ignored (10000 used whatever base is)
def _slip_rope_frequencies_3(d_k, base=10000.0):
    d_k = require_integer('d_k', d_k, 1, '(the query/key width)')
    if d_k % 2 != 0:
        raise ValueError(f'd_k must be a positive even number (RoPE turns pairs); got d_k={d_k}')
    base = require_number('base', base, 0.0, '(the base of the frequencies, e.g. 10000)')
    if base <= 0:
        raise ValueError(f'base must be a positive number; got base={base!r}')
    return 10000.0 ** (-np.arange(0, d_k, 2) / d_k)

# rope_frequencies: one frequency for all pairs
def _slip_rope_frequencies_4(d_k, base=10000.0):
    d_k = require_integer('d_k', d_k, 1, '(the query/key width)')
    if d_k % 2 != 0:
        raise ValueError(f'd_k must be a positive even number (RoPE turns pairs); got d_k={d_k}')
    base = require_number('base', base, 0.0, '(the base of the frequencies, e.g. 10000)')
    if base <= 0:
        raise ValueError(f'base must be a positive number; got base={base!r}')
    return np.ones(d_k // 2)

# rope_frequencies: missing parentheses: (base ** -2i) / d_k
def _slip_rope_frequencies_5(d_k, base=10000.0):
    d_k = require_integer('d_k', d_k, 1, '(the query/key width)')
    if d_k % 2 != 0:
        raise ValueError(f'd_k must be a positive even number (RoPE turns pairs); got d_k={d_k}')
    base = require_number('base', base, 0.0, '(the base of the frequencies, e.g. 10000)')
    if base <= 0:
        raise ValueError(f'base must be a positive number; got base={base!r}')
    return base ** (-np.arange(0, d_k, 2)) / d_k

# rope_frequencies: pair index counted from 1
def _slip_rope_frequencies_6(d_k, base=10000.0):
    d_k = require_integer('d_k', d_k, 1, '(the query/key width)')
    if d_k % 2 != 0:
        raise ValueError(f'd_k must be a positive even number (RoPE turns pairs); got d_k={d_k}')
    base = require_number('base', base, 0.0, '(the base of the frequencies, e.g. 10000)')
    if base <= 0:
        raise ValueError(f'base must be a positive number; got base={base!r}')
    return base ** (-2 * np.arange(1, d_k // 2 + 1) / d_k)

# rope_frequencies: exponent divided by the number of pairs d_k/2 instead of d_k
def _slip_rope_frequencies_7(d_k, base=10000.0):
    d_k = require_integer('d_k', d_k, 1, '(the query/key width)')
    if d_k % 2 != 0:
        raise ValueError(f'd_k must be a positive even number (RoPE turns pairs); got d_k={d_k}')
    base = require_number('base', base, 0.0, '(the base of the frequencies, e.g. 10000)')
    if base <= 0:
        raise ValueError(f'base must be a positive number; got base={base!r}')
    return base ** (-2 * np.arange(d_k // 2) / (d_k // 2))

# rope_frequencies: exponent spread over [0, 1] with np.linspace
def _slip_rope_frequencies_8(d_k, base=10000.0):
    d_k = require_integer('d_k', d_k, 1, '(the query/key width)')
    if d_k % 2 != 0:
        raise ValueError(f'd_k must be a positive even number (RoPE turns pairs); got d_k={d_k}')
    base = require_number('base', base, 0.0, '(the base of the frequencies, e.g. 10000)')
    if base <= 0:
        raise ValueError(f'base must be a positive number; got base={base!r}')
    return base ** (-np.linspace(0, 1, d_k // 2))

# rope_frequencies: odd numbers 1, 3, 5, ... in the exponent
def _slip_rope_frequencies_9(d_k, base=10000.0):
    d_k = require_integer('d_k', d_k, 1, '(the query/key width)')
    if d_k % 2 != 0:
        raise ValueError(f'd_k must be a positive even number (RoPE turns pairs); got d_k={d_k}')
    base = require_number('base', base, 0.0, '(the base of the frequencies, e.g. 10000)')
    if base <= 0:
        raise ValueError(f'base must be a positive number; got base={base!r}')
    return base ** (-np.arange(1, d_k, 2) / d_k)

# rope_frequencies: np.log10 paired with np.exp
def _slip_rope_frequencies_10(d_k, base=10000.0):
    d_k = require_integer('d_k', d_k, 1, '(the query/key width)')
    if d_k % 2 != 0:
        raise ValueError(f'd_k must be a positive even number (RoPE turns pairs); got d_k={d_k}')
    base = require_number('base', base, 0.0, '(the base of the frequencies, e.g. 10000)')
    if base <= 0:
        raise ValueError(f'base must be a positive number; got base={base!r}')
    return np.exp(-np.log10(base) * np.arange(0, d_k, 2) / d_k)

# rope_frequencies: slowest pair first (reversed order)
def _slip_rope_frequencies_11(d_k, base=10000.0):
    d_k = require_integer('d_k', d_k, 1, '(the query/key width)')
    if d_k % 2 != 0:
        raise ValueError(f'd_k must be a positive even number (RoPE turns pairs); got d_k={d_k}')
    base = require_number('base', base, 0.0, '(the base of the frequencies, e.g. 10000)')
    if base <= 0:
        raise ValueError(f'base must be a positive number; got base={base!r}')
    return (base ** (-np.arange(0, d_k, 2) / d_k))[::-1]

# rope_frequencies: multiplied by 2 pi
def _slip_rope_frequencies_12(d_k, base=10000.0):
    d_k = require_integer('d_k', d_k, 1, '(the query/key width)')
    if d_k % 2 != 0:
        raise ValueError(f'd_k must be a positive even number (RoPE turns pairs); got d_k={d_k}')
    base = require_number('base', base, 0.0, '(the base of the frequencies, e.g. 10000)')
    if base <= 0:
        raise ValueError(f'base must be a positive number; got base={base!r}')
    return 2 * np.pi * base ** (-np.arange(0, d_k, 2) / d_k)

# rope_frequencies: missing parentheses: 1 / base ** 2 * i / d_k
def _slip_rope_frequencies_13(d_k, base=10000.0):
    d_k = require_integer('d_k', d_k, 1, '(the query/key width)')
    if d_k % 2 != 0:
        raise ValueError(f'd_k must be a positive even number (RoPE turns pairs); got d_k={d_k}')
    base = require_number('base', base, 0.0, '(the base of the frequencies, e.g. 10000)')
    if base <= 0:
        raise ValueError(f'base must be a positive number; got base={base!r}')
    i = np.arange(d_k // 2)
    return 1 / base ** 2 * i / d_k

# rope_frequencies: exponent divided by d_k - 1
def _slip_rope_frequencies_14(d_k, base=10000.0):
    d_k = require_integer('d_k', d_k, 1, '(the query/key width)')
    if d_k % 2 != 0:
        raise ValueError(f'd_k must be a positive even number (RoPE turns pairs); got d_k={d_k}')
    base = require_number('base', base, 0.0, '(the base of the frequencies, e.g. 10000)')
    if base <= 0:
        raise ValueError(f'base must be a positive number; got base={base!r}')
    return base ** (-np.arange(0, d_k, 2) / (d_k - 1))

# apply_rope: half-split pairing (feature i with i + d_k/2) instead of consecutive pairs
def _slip_apply_rope_0(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim('X', X, 2, '(..., L, d_k)')
    require_ndim('positions', positions, 1, '(L,)')
    require_same_size('positions', positions, 0, 'X', X, -2, 'the number of tokens L')
    if X.shape[-1] % 2 != 0:
        raise ValueError(f'X has shape {X.shape}: RoPE turns pairs, so d_k must be even')
    theta = rope_frequencies(X.shape[-1], base)
    angles = positions[:, None] * theta
    c, s = (np.cos(angles), np.sin(angles))
    half = X.shape[-1] // 2
    first, second = (X[..., :half], X[..., half:])
    out = np.empty_like(X)
    out[..., :half] = first * c - second * s
    out[..., half:] = first * s + second * c
    return out

# apply_rope: exponent i/d_k instead of 2i/d_k
def _slip_apply_rope_1(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim('X', X, 2, '(..., L, d_k)')
    require_ndim('positions', positions, 1, '(L,)')
    require_same_size('positions', positions, 0, 'X', X, -2, 'the number of tokens L')
    if X.shape[-1] % 2 != 0:
        raise ValueError(f'X has shape {X.shape}: RoPE turns pairs, so d_k must be even')
    d_k = X.shape[-1]
    angles = positions[:, None] * base ** (-np.arange(d_k // 2) / d_k)
    c, s = (np.cos(angles), np.sin(angles))
    out = np.empty_like(X)
    out[..., 0::2] = X[..., 0::2] * c - X[..., 1::2] * s
    out[..., 1::2] = X[..., 0::2] * s + X[..., 1::2] * c
    return out

# apply_rope: rotated by -l * theta (the wrong direction)
def _slip_apply_rope_2(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim('X', X, 2, '(..., L, d_k)')
    require_ndim('positions', positions, 1, '(L,)')
    require_same_size('positions', positions, 0, 'X', X, -2, 'the number of tokens L')
    if X.shape[-1] % 2 != 0:
        raise ValueError(f'X has shape {X.shape}: RoPE turns pairs, so d_k must be even')
    angles = -positions[:, None] * rope_frequencies(X.shape[-1], base)
    c, s = (np.cos(angles), np.sin(angles))
    out = np.empty_like(X)
    out[..., 0::2] = X[..., 0::2] * c - X[..., 1::2] * s
    out[..., 1::2] = X[..., 0::2] * s + X[..., 1::2] * c
    return out

# apply_rope: one frequency for all pairs
def _slip_apply_rope_3(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim('X', X, 2, '(..., L, d_k)')
    require_ndim('positions', positions, 1, '(L,)')
    require_same_size('positions', positions, 0, 'X', X, -2, 'the number of tokens L')
    if X.shape[-1] % 2 != 0:
        raise ValueError(f'X has shape {X.shape}: RoPE turns pairs, so d_k must be even')
    angles = positions[:, None] * np.ones(X.shape[-1] // 2)
    c, s = (np.cos(angles), np.sin(angles))
    out = np.empty_like(X)
    out[..., 0::2] = X[..., 0::2] * c - X[..., 1::2] * s
    out[..., 1::2] = X[..., 0::2] * s + X[..., 1::2] * c
    return out

# apply_rope: positions ignored (0, 1, 2, ... used instead)
def _slip_apply_rope_4(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim('X', X, 2, '(..., L, d_k)')
    require_ndim('positions', positions, 1, '(L,)')
    require_same_size('positions', positions, 0, 'X', X, -2, 'the number of tokens L')
    if X.shape[-1] % 2 != 0:
        raise ValueError(f'X has shape {X.shape}: RoPE turns pairs, so d_k must be even')
    L = X.shape[-2]
    angles = np.arange(L)[:, None] * rope_frequencies(X.shape[-1], base)
    c, s = (np.cos(angles), np.sin(angles))
    out = np.empty_like(X)
    out[..., 0::2] = X[..., 0::2] * c - X[..., 1::2] * s
    out[..., 1::2] = X[..., 0::2] * s + X[..., 1::2] * c
    return out

# apply_rope: modifies X in place
def _slip_apply_rope_5(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim('X', X, 2, '(..., L, d_k)')
    require_ndim('positions', positions, 1, '(L,)')
    require_same_size('positions', positions, 0, 'X', X, -2, 'the number of tokens L')
    if X.shape[-1] % 2 != 0:
        raise ValueError(f'X has shape {X.shape}: RoPE turns pairs, so d_k must be even')
    theta = rope_frequencies(X.shape[-1], base)
    angles = positions[:, None] * theta
    c, s = (np.cos(angles), np.sin(angles))
    first, second = (X[..., 0::2].copy(), X[..., 1::2].copy())
    out = X
    out[..., 0::2] = first * c - second * s
    out[..., 1::2] = first * s + second * c
    return out

# apply_rope: the second component computed from the already rotated first one
def _slip_apply_rope_6(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim('X', X, 2, '(..., L, d_k)')
    require_ndim('positions', positions, 1, '(L,)')
    require_same_size('positions', positions, 0, 'X', X, -2, 'the number of tokens L')
    if X.shape[-1] % 2 != 0:
        raise ValueError(f'X has shape {X.shape}: RoPE turns pairs, so d_k must be even')
    theta = rope_frequencies(X.shape[-1], base)
    angles = positions[:, None] * theta
    c, s = (np.cos(angles), np.sin(angles))
    out = X.copy()
    out[..., 0::2] = out[..., 0::2] * c - out[..., 1::2] * s
    out[..., 1::2] = out[..., 0::2] * s + out[..., 1::2] * c
    return out

# apply_rope: the two components of each rotated pair stored in swapped places
def _slip_apply_rope_7(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim('X', X, 2, '(..., L, d_k)')
    require_ndim('positions', positions, 1, '(L,)')
    require_same_size('positions', positions, 0, 'X', X, -2, 'the number of tokens L')
    if X.shape[-1] % 2 != 0:
        raise ValueError(f'X has shape {X.shape}: RoPE turns pairs, so d_k must be even')
    angles = positions[:, None] * rope_frequencies(X.shape[-1], base)
    c, s = (np.cos(angles), np.sin(angles))
    out = np.empty_like(X)
    out[..., 1::2] = X[..., 0::2] * c - X[..., 1::2] * s
    out[..., 0::2] = X[..., 0::2] * s + X[..., 1::2] * c
    return out

# apply_rope: sign typo in the second component (-x_2i * sin + x_2i+1 * cos)
def _slip_apply_rope_8(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim('X', X, 2, '(..., L, d_k)')
    require_ndim('positions', positions, 1, '(L,)')
    require_same_size('positions', positions, 0, 'X', X, -2, 'the number of tokens L')
    if X.shape[-1] % 2 != 0:
        raise ValueError(f'X has shape {X.shape}: RoPE turns pairs, so d_k must be even')
    angles = positions[:, None] * rope_frequencies(X.shape[-1], base)
    c, s = (np.cos(angles), np.sin(angles))
    out = np.empty_like(X)
    out[..., 0::2] = X[..., 0::2] * c - X[..., 1::2] * s
    out[..., 1::2] = -X[..., 0::2] * s + X[..., 1::2] * c
    return out

# apply_rope: rotated pairs written back as two halves (all first components, then all second ones)
def _slip_apply_rope_9(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim('X', X, 2, '(..., L, d_k)')
    require_ndim('positions', positions, 1, '(L,)')
    require_same_size('positions', positions, 0, 'X', X, -2, 'the number of tokens L')
    if X.shape[-1] % 2 != 0:
        raise ValueError(f'X has shape {X.shape}: RoPE turns pairs, so d_k must be even')
    theta = rope_frequencies(X.shape[-1], base)
    angles = positions[:, None] * theta
    c, s = (np.cos(angles), np.sin(angles))
    first, second = (X[..., 0::2], X[..., 1::2])
    out = np.empty_like(X)
    out[..., :X.shape[-1] // 2] = first * c - second * s
    out[..., X.shape[-1] // 2:] = first * s + second * c
    return out

# apply_rope: the last pair left unrotated (a loop over range(d_k // 2 - 1))
def _slip_apply_rope_10(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim('X', X, 2, '(..., L, d_k)')
    require_ndim('positions', positions, 1, '(L,)')
    require_same_size('positions', positions, 0, 'X', X, -2, 'the number of tokens L')
    if X.shape[-1] % 2 != 0:
        raise ValueError(f'X has shape {X.shape}: RoPE turns pairs, so d_k must be even')
    theta = rope_frequencies(X.shape[-1], base)
    out = X.copy()
    for i in range(X.shape[-1] // 2 - 1):
        a = positions * theta[i]
        x0, x1 = (X[..., 2 * i], X[..., 2 * i + 1])
        out[..., 2 * i] = x0 * np.cos(a) - x1 * np.sin(a)
        out[..., 2 * i + 1] = x0 * np.sin(a) + x1 * np.cos(a)
    return out

# apply_rope: positions counted from 1 (positions + 1)
def _slip_apply_rope_11(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim('X', X, 2, '(..., L, d_k)')
    require_ndim('positions', positions, 1, '(L,)')
    require_same_size('positions', positions, 0, 'X', X, -2, 'the number of tokens L')
    if X.shape[-1] % 2 != 0:
        raise ValueError(f'X has shape {X.shape}: RoPE turns pairs, so d_k must be even')
    angles = (positions[:, None] + 1) * rope_frequencies(X.shape[-1], base)
    c, s = (np.cos(angles), np.sin(angles))
    out = np.empty_like(X)
    out[..., 0::2] = X[..., 0::2] * c - X[..., 1::2] * s
    out[..., 1::2] = X[..., 0::2] * s + X[..., 1::2] * c
    return out

# apply_rope: angles built (d_k/2, L) instead of (L, d_k/2)
def _slip_apply_rope_12(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim('X', X, 2, '(..., L, d_k)')
    require_ndim('positions', positions, 1, '(L,)')
    require_same_size('positions', positions, 0, 'X', X, -2, 'the number of tokens L')
    if X.shape[-1] % 2 != 0:
        raise ValueError(f'X has shape {X.shape}: RoPE turns pairs, so d_k must be even')
    angles = rope_frequencies(X.shape[-1], base)[:, None] * positions[None, :]
    c, s = (np.cos(angles), np.sin(angles))
    out = np.empty_like(X)
    out[..., 0::2] = X[..., 0::2] * c - X[..., 1::2] * s
    out[..., 1::2] = X[..., 0::2] * s + X[..., 1::2] * c
    return out

# apply_rope: base ignored (10000 used whatever base is)
def _slip_apply_rope_13(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim('X', X, 2, '(..., L, d_k)')
    require_ndim('positions', positions, 1, '(L,)')
    require_same_size('positions', positions, 0, 'X', X, -2, 'the number of tokens L')
    if X.shape[-1] % 2 != 0:
        raise ValueError(f'X has shape {X.shape}: RoPE turns pairs, so d_k must be even')
    angles = positions[:, None] * rope_frequencies(X.shape[-1])
    c, s = (np.cos(angles), np.sin(angles))
    out = np.empty_like(X)
    out[..., 0::2] = X[..., 0::2] * c - X[..., 1::2] * s
    out[..., 1::2] = X[..., 0::2] * s + X[..., 1::2] * c
    return out

# apply_rope: the last token left unrotated (a loop over range(L - 1))
def _slip_apply_rope_14(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim('X', X, 2, '(..., L, d_k)')
    require_ndim('positions', positions, 1, '(L,)')
    require_same_size('positions', positions, 0, 'X', X, -2, 'the number of tokens L')
    if X.shape[-1] % 2 != 0:
        raise ValueError(f'X has shape {X.shape}: RoPE turns pairs, so d_k must be even')
    theta = rope_frequencies(X.shape[-1], base)
    out = X.copy()
    for l in range(X.shape[-2] - 1):
        c, s = (np.cos(positions[l] * theta), np.sin(positions[l] * theta))
        out[..., l, 0::2] = X[..., l, 0::2] * c - X[..., l, 1::2] * s
        out[..., l, 1::2] = X[..., l, 0::2] * s + X[..., l, 1::2] * c
    return out

# apply_rope: the first token left unrotated (a loop from 1)
def _slip_apply_rope_15(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim('X', X, 2, '(..., L, d_k)')
    require_ndim('positions', positions, 1, '(L,)')
    require_same_size('positions', positions, 0, 'X', X, -2, 'the number of tokens L')
    if X.shape[-1] % 2 != 0:
        raise ValueError(f'X has shape {X.shape}: RoPE turns pairs, so d_k must be even')
    theta = rope_frequencies(X.shape[-1], base)
    out = X.copy()
    for l in range(1, X.shape[-2]):
        c, s = (np.cos(positions[l] * theta), np.sin(positions[l] * theta))
        out[..., l, 0::2] = X[..., l, 0::2] * c - X[..., l, 1::2] * s
        out[..., l, 1::2] = X[..., l, 0::2] * s + X[..., l, 1::2] * c
    return out

# apply_rope: cos written where sin belongs
def _slip_apply_rope_16(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim('X', X, 2, '(..., L, d_k)')
    require_ndim('positions', positions, 1, '(L,)')
    require_same_size('positions', positions, 0, 'X', X, -2, 'the number of tokens L')
    if X.shape[-1] % 2 != 0:
        raise ValueError(f'X has shape {X.shape}: RoPE turns pairs, so d_k must be even')
    angles = positions[:, None] * rope_frequencies(X.shape[-1], base)
    c, s = (np.cos(angles), np.sin(angles))
    out = np.empty_like(X)
    out[..., 0::2] = X[..., 0::2] * c - X[..., 1::2] * c
    out[..., 1::2] = X[..., 0::2] * c + X[..., 1::2] * c
    return out

# apply_rope: the second component of each pair never written (left as x_2i+1)
def _slip_apply_rope_17(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim('X', X, 2, '(..., L, d_k)')
    require_ndim('positions', positions, 1, '(L,)')
    require_same_size('positions', positions, 0, 'X', X, -2, 'the number of tokens L')
    if X.shape[-1] % 2 != 0:
        raise ValueError(f'X has shape {X.shape}: RoPE turns pairs, so d_k must be even')
    theta = rope_frequencies(X.shape[-1], base)
    angles = positions[:, None] * theta
    c, s = (np.cos(angles), np.sin(angles))
    first, second = (X[..., 0::2], X[..., 1::2])
    out = X.copy()
    out[..., 0::2] = first * c - second * s
    return out

# apply_rope: loop over X's first axis as if it were the tokens
def _slip_apply_rope_18(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim('X', X, 2, '(..., L, d_k)')
    require_ndim('positions', positions, 1, '(L,)')
    require_same_size('positions', positions, 0, 'X', X, -2, 'the number of tokens L')
    if X.shape[-1] % 2 != 0:
        raise ValueError(f'X has shape {X.shape}: RoPE turns pairs, so d_k must be even')
    theta = rope_frequencies(X.shape[-1], base)
    out = np.empty_like(X)
    for l in range(X.shape[0]):
        c, s = (np.cos(positions[l] * theta), np.sin(positions[l] * theta))
        out[l, 0::2] = X[l, 0::2] * c - X[l, 1::2] * s
        out[l, 1::2] = X[l, 0::2] * s + X[l, 1::2] * c
    return out

# apply_rope: positions divided by theta
def _slip_apply_rope_19(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim('X', X, 2, '(..., L, d_k)')
    require_ndim('positions', positions, 1, '(L,)')
    require_same_size('positions', positions, 0, 'X', X, -2, 'the number of tokens L')
    if X.shape[-1] % 2 != 0:
        raise ValueError(f'X has shape {X.shape}: RoPE turns pairs, so d_k must be even')
    angles = positions[:, None] / rope_frequencies(X.shape[-1], base)
    c, s = (np.cos(angles), np.sin(angles))
    out = np.empty_like(X)
    out[..., 0::2] = X[..., 0::2] * c - X[..., 1::2] * s
    out[..., 1::2] = X[..., 0::2] * s + X[..., 1::2] * c
    return out

# apply_rope: hard-coded d_k = 4 (the worked example's width)
def _slip_apply_rope_20(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim('X', X, 2, '(..., L, d_k)')
    require_ndim('positions', positions, 1, '(L,)')
    require_same_size('positions', positions, 0, 'X', X, -2, 'the number of tokens L')
    if X.shape[-1] % 2 != 0:
        raise ValueError(f'X has shape {X.shape}: RoPE turns pairs, so d_k must be even')
    angles = positions[:, None] * rope_frequencies(4, base)
    c, s = (np.cos(angles), np.sin(angles))
    out = np.empty_like(X)
    out[..., 0::2] = X[..., 0::2] * c - X[..., 1::2] * s
    out[..., 1::2] = X[..., 0::2] * s + X[..., 1::2] * c
    return out

# apply_rope: positions made relative to the first token
def _slip_apply_rope_21(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim('X', X, 2, '(..., L, d_k)')
    require_ndim('positions', positions, 1, '(L,)')
    require_same_size('positions', positions, 0, 'X', X, -2, 'the number of tokens L')
    if X.shape[-1] % 2 != 0:
        raise ValueError(f'X has shape {X.shape}: RoPE turns pairs, so d_k must be even')
    angles = (positions - positions[0])[:, None] * rope_frequencies(X.shape[-1], base)
    c, s = (np.cos(angles), np.sin(angles))
    out = np.empty_like(X)
    out[..., 0::2] = X[..., 0::2] * c - X[..., 1::2] * s
    out[..., 1::2] = X[..., 0::2] * s + X[..., 1::2] * c
    return out

# apply_rope: plus sign in the first component (x_2i * cos + x_2i+1 * sin)
def _slip_apply_rope_22(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim('X', X, 2, '(..., L, d_k)')
    require_ndim('positions', positions, 1, '(L,)')
    require_same_size('positions', positions, 0, 'X', X, -2, 'the number of tokens L')
    if X.shape[-1] % 2 != 0:
        raise ValueError(f'X has shape {X.shape}: RoPE turns pairs, so d_k must be even')
    angles = positions[:, None] * rope_frequencies(X.shape[-1], base)
    c, s = (np.cos(angles), np.sin(angles))
    out = np.empty_like(X)
    out[..., 0::2] = X[..., 0::2] * c + X[..., 1::2] * s
    out[..., 1::2] = X[..., 0::2] * s + X[..., 1::2] * c
    return out

# apply_rope: Hugging Face's frequency layout (theta repeated as a block), consecutive pairs
def _slip_apply_rope_23(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim('X', X, 2, '(..., L, d_k)')
    require_ndim('positions', positions, 1, '(L,)')
    require_same_size('positions', positions, 0, 'X', X, -2, 'the number of tokens L')
    if X.shape[-1] % 2 != 0:
        raise ValueError(f'X has shape {X.shape}: RoPE turns pairs, so d_k must be even')
    theta = rope_frequencies(X.shape[-1], base)
    angles = positions[:, None] * np.concatenate([theta, theta])
    turned = np.empty_like(X)
    turned[..., 0::2] = -X[..., 1::2]
    turned[..., 1::2] = X[..., 0::2]
    return X * np.cos(angles) + turned * np.sin(angles)

# apply_rope: frequencies reversed (slowest pair first)
def _slip_apply_rope_24(X, positions, base=10000.0):
    X = np.asarray(X, dtype=np.float64)
    positions = np.asarray(positions)
    require_min_ndim('X', X, 2, '(..., L, d_k)')
    require_ndim('positions', positions, 1, '(L,)')
    require_same_size('positions', positions, 0, 'X', X, -2, 'the number of tokens L')
    if X.shape[-1] % 2 != 0:
        raise ValueError(f'X has shape {X.shape}: RoPE turns pairs, so d_k must be even')
    theta = rope_frequencies(X.shape[-1], base)
    angles = positions[:, None] * theta[::-1]
    c, s = (np.cos(angles), np.sin(angles))
    first, second = (X[..., 0::2], X[..., 1::2])
    out = np.empty_like(X)
    out[..., 0::2] = first * c - second * s
    out[..., 1::2] = first * s + second * c
    return out


# function: [(mistake, its hint, the mistake as a function)]
SLIPS = {
    'rotation_2d': [
        ('transposed: R(-a) instead of R(a)', 'R(a) = [[cos a, -sin a], [sin a, cos a]] turns counterclockwise: R(a) @ [1, 0] = [cos a, sin a]. Rotating by -a (or x @ R instead of R @ x) turns the wrong way', _slip_rotation_2d_0),
        ('angle treated as degrees', 'a is in radians: use np.cos(a) and np.sin(a) directly, no conversion', _slip_rotation_2d_1),
        ('sin and cos swapped', 'cos sits on the diagonal: [[cos a, -sin a], [sin a, cos a]]', _slip_rotation_2d_2),
        ('np.array puts the 2 x 2 in front for arrays of angles', "keep the angles' axes first and put the 2 x 2 last, (..., 2, 2): build it with np.stack(..., axis=-1), not np.array([[c, -s], [s, c]])", _slip_rotation_2d_3),
        ('the 2 x 2 built in front, then reshaped to (..., 2, 2)', 'entry [j, k] must be rotation_2d(a[j, k])', _slip_rotation_2d_4),
        ('the minus sign dropped: [[cos a, sin a], [sin a, cos a]]', 'the minus sign belongs on the top-right sin: [[cos a, -sin a], [sin a, cos a]]; without it the matrix is no rotation (R^T R != I)', _slip_rotation_2d_5),
        ('math.cos only takes one number', 'a may be an array of angles: use np.cos and np.sin, which work elementwise (math.cos and math.sin take a single number)', _slip_rotation_2d_6),
        ('both sin entries negative: [[cos a, -sin a], [-sin a, cos a]]', 'only the top-right sin has a minus sign: [[cos a, -sin a], [sin a, cos a]]', _slip_rotation_2d_7),
        ('a reflection: [[cos a, -sin a], [sin a, -cos a]]', 'cos a sits on BOTH diagonal entries, with a plus sign; -cos a in the corner makes a reflection (determinant -1), not a rotation', _slip_rotation_2d_8),
        ('half the angle', 'turn by a itself: np.cos(a), np.sin(a), no halving', _slip_rotation_2d_9),
        ('angle read as turns (multiplied by pi)', 'a is already in radians: no factor pi', _slip_rotation_2d_10),
        ('angles truncated to integers', 'keep the angles as floats: astype(int) or int(a) cuts pi/6 down to 0', _slip_rotation_2d_11),
    ],
    'rope_frequencies': [
        ('exponent i/d_k instead of 2i/d_k', 'the exponent is 2i/d_k with i the PAIR index: theta_i = base ** (-2 * i / d_k) for i = 0 .. d_k/2 - 1 (a range with step 2 gives the 2i directly)', _slip_rope_frequencies_0),
        ('one theta per feature instead of per pair', 'one theta per PAIR: d_k/2 values, not d_k', _slip_rope_frequencies_1),
        ('positive exponent', 'the frequencies shrink from 1: theta_i = base ** (-2i/d_k), with a minus sign', _slip_rope_frequencies_2),
        ('base ignored (10000 used whatever base is)', 'use the base argument, not a hard-coded 10000', _slip_rope_frequencies_3),
        ('one frequency for all pairs', 'pair i has its own theta_i = base ** (-2i/d_k); beware integer division: 2 * i // d_k is 0 for every pair, use / (true division)', _slip_rope_frequencies_4),
        ('missing parentheses: (base ** -2i) / d_k', 'put the whole exponent in parentheses, base ** (-2 * i / d_k): base ** -two_i / d_k is read as (base ** -two_i) / d_k, because ** binds before /', _slip_rope_frequencies_5),
        ('pair index counted from 1', 'i counts from 0: the fastest pair has theta_0 = base ** 0 = 1', _slip_rope_frequencies_6),
        ('exponent divided by the number of pairs d_k/2 instead of d_k', 'divide by d_k, the width, not by the number of pairs d_k/2: theta_i = base ** (-2i/d_k); and np.arange(0, d_k, 2) already holds 2i, so do not multiply it by 2 again', _slip_rope_frequencies_7),
        ('exponent spread over [0, 1] with np.linspace', 'the exponent 2i/d_k starts at 0 and stops at (d_k - 2)/d_k, just short of 1: np.arange(0, d_k, 2) / d_k, not np.linspace(0, 1, d_k // 2)', _slip_rope_frequencies_8),
        ('odd numbers 1, 3, 5, ... in the exponent', 'the exponent uses the even numbers 0, 2, 4, ...: np.arange(0, d_k, 2) / d_k', _slip_rope_frequencies_9),
        ('np.log10 paired with np.exp', 'np.exp undoes np.log, the natural logarithm: exp(-log(base) * 2i/d_k); np.log10 goes with 10 ** (...)', _slip_rope_frequencies_10),
        ('slowest pair first (reversed order)', 'theta_0 = 1 is the fastest pair and the frequencies decrease with i: no reversing', _slip_rope_frequencies_11),
        ('multiplied by 2 pi', 'theta_i is already in radians per position: no factor 2 pi', _slip_rope_frequencies_12),
        ('missing parentheses: 1 / base ** 2 * i / d_k', 'put the whole exponent in parentheses: 1 / base ** (2 * i / d_k); ** binds before * and /', _slip_rope_frequencies_13),
        ('exponent divided by d_k - 1', 'divide by the width d_k itself: theta_i = base ** (-2i/d_k), not (d_k - 1)', _slip_rope_frequencies_14),
    ],
    'apply_rope': [
        ('half-split pairing (feature i with i + d_k/2) instead of consecutive pairs', 'our pairs are consecutive features (2i, 2i+1): X[..., 0::2] and X[..., 1::2], not the two halves X[..., :d_k//2] and X[..., d_k//2:]', _slip_apply_rope_0),
        ('exponent i/d_k instead of 2i/d_k', 'the exponent is 2i/d_k with i the PAIR index: theta_i = base ** (-2 * i / d_k) for i = 0 .. d_k/2 - 1 (a range with step 2 gives the 2i directly)', _slip_apply_rope_1),
        ('rotated by -l * theta (the wrong direction)', 'R(a) = [[cos a, -sin a], [sin a, cos a]] turns counterclockwise: R(a) @ [1, 0] = [cos a, sin a]. Rotating by -a (or x @ R instead of R @ x) turns the wrong way', _slip_apply_rope_2),
        ('one frequency for all pairs', 'pair i turns by l * theta_i with its own theta_i from rope_frequencies(d_k, base), d_k = X.shape[-1]', _slip_apply_rope_3),
        ('positions ignored (0, 1, 2, ... used instead)', 'turn token l by positions[l] * theta_i: the positions argument need not be 0, 1, 2, ...', _slip_apply_rope_4),
        ('modifies X in place', 'write the rotated pairs into a new array', _slip_apply_rope_5),
        ('the second component computed from the already rotated first one', 'compute both new components from the ORIGINAL pair: keep X[..., 0::2] and X[..., 1::2] (or copies of them) and write the results into a new array; overwriting x_2i first and then reading it back uses the rotated value', _slip_apply_rope_6),
        ('the two components of each rotated pair stored in swapped places', 'the components are stored in swapped places: feature 2i gets x_2i * cos - x_2i+1 * sin and feature 2i+1 gets x_2i * sin + x_2i+1 * cos', _slip_apply_rope_7),
        ('sign typo in the second component (-x_2i * sin + x_2i+1 * cos)', 'R(a) @ [x_2i, x_2i+1] = [x_2i * cos - x_2i+1 * sin, x_2i * sin + x_2i+1 * cos]: only the first component has a minus sign', _slip_apply_rope_8),
        ('rotated pairs written back as two halves (all first components, then all second ones)', 'interleave the results: pair i goes back to features 2i and 2i+1, e.g. np.stack([first, second], axis=-1).reshape(X.shape), not np.concatenate', _slip_apply_rope_9),
        ('the last pair left unrotated (a loop over range(d_k // 2 - 1))', 'rotate every pair i = 0 .. d_k/2 - 1: range(d_k // 2) pairs, the last one included', _slip_apply_rope_10),
        ('positions counted from 1 (positions + 1)', 'use positions[l] as given: a token at position 0 is turned by 0, not by theta', _slip_apply_rope_11),
        ('angles built (d_k/2, L) instead of (L, d_k/2)', "the angles (an outer product of positions and theta) have shape (L, d_k/2): one row per token, one column per pair, lined up with X[..., 0::2]; theta[:, None] * positions[None, :] is (d_k/2, L), its transpose; take d_k from X.shape[-1] and L from len(positions), never the worked example's sizes", _slip_apply_rope_12),
        ('base ignored (10000 used whatever base is)', 'pass base on to rope_frequencies(d_k, base)', _slip_apply_rope_13),
        ('the last token left unrotated (a loop over range(L - 1))', 'rotate every token l = 0 .. L-1, the first and the last included: loop over range(L) (or better, no loop: angles (L, d_k/2) at once)', _slip_apply_rope_14),
        ('the first token left unrotated (a loop from 1)', 'rotate every token l = 0 .. L-1, the first and the last included: loop over range(L) (or better, no loop: angles (L, d_k/2) at once)', _slip_apply_rope_15),
        ('cos written where sin belongs', 'the off-diagonal terms use sin: x_2i * cos - x_2i+1 * sin and x_2i * sin + x_2i+1 * cos', _slip_apply_rope_16),
        ('the second component of each pair never written (left as x_2i+1)', 'write BOTH components of every pair: feature 2i+1 becomes x_2i * sin + x_2i+1 * cos', _slip_apply_rope_17),
        ("loop over X's first axis as if it were the tokens", 'keep every leading axis: X is (..., L, d_k), so index pairs with X[..., 0::2] and read d_k from X.shape[-1]', _slip_apply_rope_18),
        ('positions divided by theta', 'multiply: the angle is positions[l] * theta_i', _slip_apply_rope_19),
        ("hard-coded d_k = 4 (the worked example's width)", "the angles (an outer product of positions and theta) have shape (L, d_k/2): one row per token, one column per pair, lined up with X[..., 0::2]; theta[:, None] * positions[None, :] is (d_k/2, L), its transpose; take d_k from X.shape[-1] and L from len(positions), never the worked example's sizes", _slip_apply_rope_20),
        ('positions made relative to the first token', 'turn token l by its absolute position positions[l]; the offset s - l appears in the score q~ . k~ by itself', _slip_apply_rope_21),
        ('plus sign in the first component (x_2i * cos + x_2i+1 * sin)', 'R(a) @ [x_2i, x_2i+1] = [x_2i * cos - x_2i+1 * sin, x_2i * sin + x_2i+1 * cos]: only the first component has a minus sign', _slip_apply_rope_22),
        ("Hugging Face's frequency layout (theta repeated as a block), consecutive pairs", 'np.concatenate([theta, theta]) goes with the half-split layout (rotate_half); with consecutive pairs both features 2i and 2i+1 turn by theta_i: np.repeat(theta, 2)', _slip_apply_rope_23),
        ('frequencies reversed (slowest pair first)', 'pair i (features 2i, 2i+1) turns by positions[l] * theta_i in the order rope_frequencies gives: theta_0 = 1, the fastest, belongs to pair 0', _slip_apply_rope_24),
    ],
}
