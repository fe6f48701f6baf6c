"""Notebook 03 catalogue: the mistakes students make, and correct answers written otherwise."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from grader.catalogue import alternative, mistake  # noqa: E402

MISTAKES = [
    # rotation_2d
    mistake("rotation_2d", "transposed matrix (turns by -a)", """
        c, s = np.cos(a), np.sin(a)
        return np.stack([np.stack([c, s], axis=-1), np.stack([-s, c], axis=-1)], axis=-2)
    """, hint="turns counterclockwise"),
    mistake("rotation_2d", "angle converted from degrees", """
        a = np.radians(a)
        c, s = np.cos(a), np.sin(a)
        return np.stack([np.stack([c, -s], axis=-1), np.stack([s, c], axis=-1)], axis=-2)
    """, hint="a is in radians"),
    mistake("rotation_2d", "sin and cos swapped", """
        c, s = np.cos(a), np.sin(a)
        return np.stack([np.stack([s, -c], axis=-1), np.stack([c, s], axis=-1)], axis=-2)
    """, hint="cos sits on the diagonal"),
    mistake("rotation_2d", "np.array puts the 2 x 2 in front for arrays of angles", """
        c, s = np.cos(a), np.sin(a)
        return np.array([[c, -s], [s, c]])
    """, hint="(..., 2, 2)"),
    # rope_frequencies
    mistake("rope_frequencies", "exponent i/d_k instead of 2i/d_k", """
        return base ** (-np.arange(d_k // 2) / d_k)
    """, hint="the exponent is 2i/d_k"),
    mistake("rope_frequencies", "one theta per feature instead of per pair", """
        return base ** (-np.arange(d_k) / d_k)
    """, hint="one theta per PAIR"),
    mistake("rope_frequencies", "positive exponent", """
        return base ** (np.arange(0, d_k, 2) / d_k)
    """, hint="with a minus sign"),
    mistake("rope_frequencies", "base hard-coded to 10000", """
        return 10000.0 ** (-np.arange(0, d_k, 2) / d_k)
    """, hint="not a hard-coded 10000"),
    mistake("rope_frequencies", "one frequency for all pairs", """
        return np.ones(d_k // 2)
    """, hint="its own theta_i"),
    # apply_rope
    mistake("apply_rope", "half-split pairing (i with i + d_k/2)", """
        half = X.shape[-1] // 2
        angles = positions[:, None] * rope_frequencies(X.shape[-1], base)
        c, s = np.cos(angles), np.sin(angles)
        first, second = X[..., :half], X[..., half:]
        return np.concatenate([first * c - second * s, first * s + second * c], axis=-1)
    """, hint="consecutive features (2i, 2i+1)"),
    mistake("apply_rope", "exponent i/d_k", """
        d_k = X.shape[-1]
        angles = positions[:, None] * base ** (-np.arange(d_k // 2) / d_k)
        c, s = np.cos(angles), np.sin(angles)
        out = np.empty_like(X)
        out[..., 0::2] = X[..., 0::2] * c - X[..., 1::2] * s
        out[..., 1::2] = X[..., 0::2] * s + X[..., 1::2] * c
        return out
    """, hint="the exponent is 2i/d_k"),
    mistake("apply_rope", "rotated by -l * theta", """
        angles = -positions[:, None] * rope_frequencies(X.shape[-1], base)
        c, s = np.cos(angles), np.sin(angles)
        out = np.empty_like(X)
        out[..., 0::2] = X[..., 0::2] * c - X[..., 1::2] * s
        out[..., 1::2] = X[..., 0::2] * s + X[..., 1::2] * c
        return out
    """, hint="turns the wrong way"),
    mistake("apply_rope", "row-vector product x @ R (the transpose)", """
        R = rotation_2d(positions[:, None] * rope_frequencies(X.shape[-1], base))
        pairs = X.reshape(*X.shape[:-1], -1, 2)
        return np.einsum("...lpi,lpij->...lpj", pairs, R).reshape(X.shape)
    """, hint="x @ R instead of R @ x"),
    mistake("apply_rope", "one frequency for all pairs", """
        angles = positions[:, None] * np.ones(X.shape[-1] // 2)
        c, s = np.cos(angles), np.sin(angles)
        out = np.empty_like(X)
        out[..., 0::2] = X[..., 0::2] * c - X[..., 1::2] * s
        out[..., 1::2] = X[..., 0::2] * s + X[..., 1::2] * c
        return out
    """, hint="its own theta_i"),
    mistake("apply_rope", "positions argument ignored", """
        L = X.shape[-2]
        angles = np.arange(L)[:, None] * rope_frequencies(X.shape[-1], base)
        c, s = np.cos(angles), np.sin(angles)
        out = np.empty_like(X)
        out[..., 0::2] = X[..., 0::2] * c - X[..., 1::2] * s
        out[..., 1::2] = X[..., 0::2] * s + X[..., 1::2] * c
        return out
    """, hint="need not be 0, 1, 2"),
    mistake("apply_rope", "modifies X in place", """
        angles = positions[:, None] * rope_frequencies(X.shape[-1], base)
        c, s = np.cos(angles), np.sin(angles)
        first, second = X[..., 0::2].copy(), X[..., 1::2].copy()
        X[..., 0::2] = first * c - second * s
        X[..., 1::2] = first * s + second * c
        return X
    """, hint="new array"),
    mistake("apply_rope", "only works without leading axes", """
        theta = rope_frequencies(X.shape[1], base)
        out = np.zeros(X.shape)
        for l in range(X.shape[0]):
            for i in range(X.shape[1] // 2):
                pair = X[l, 2 * i:2 * i + 2]
                out[l, 2 * i:2 * i + 2] = rotation_2d(positions[l] * theta[i]) @ pair
        return out
    """, hint="leading axis"),
    # --- added in the adversarial review --------------------------------------------
    mistake("rotation_2d", "minus sign dropped", """
        c, s = np.cos(a), np.sin(a)
        return np.stack([np.stack([c, s], axis=-1), np.stack([s, c], axis=-1)], axis=-2)
    """, hint="minus sign"),
    mistake("rotation_2d", "math.cos only takes one number", """
        import math
        c, s = math.cos(a), math.sin(a)
        return np.array([[c, -s], [s, c]])
    """, hint="np.cos and np.sin"),
    mistake("rotation_2d", "np.block tiles the angles instead of stacking them", """
        c, s = np.cos(a), np.sin(a)
        return np.block([[c, -s], [s, c]])
    """, hint="(..., 2, 2)"),
    mistake("rope_frequencies", "missing parentheses: base ** (-2i) / d_k", """
        return base ** -np.arange(0, d_k, 2) / d_k
    """, hint="parentheses"),
    mistake("rope_frequencies", "pair index counted from 1", """
        return base ** (-2 * np.arange(1, d_k // 2 + 1) / d_k)
    """, hint="i counts from 0"),
    mistake("rope_frequencies", "exponent divided by the number of pairs d_k/2", """
        return base ** (-2 * np.arange(d_k // 2) / (d_k // 2))
    """, hint="divide by d_k"),
    mistake("rope_frequencies", "exponent spread over [0, 1] with linspace", """
        return base ** (-np.linspace(0, 1, d_k // 2))
    """, hint="stops at (d_k - 2)/d_k"),
    mistake("rope_frequencies", "only d_k/4 values (step 2 over d_k/2)", """
        return base ** (-np.arange(0, d_k // 2, 2) / d_k)
    """, hint="one theta per PAIR"),
    mistake("apply_rope", "second component computed from the already rotated first", """
        theta = rope_frequencies(X.shape[-1], base)
        angles = positions[:, None] * theta
        c, s = np.cos(angles), np.sin(angles)
        out = X.copy()
        out[..., 0::2] = out[..., 0::2] * c - out[..., 1::2] * s
        out[..., 1::2] = out[..., 0::2] * s + out[..., 1::2] * c
        return out
    """, hint="ORIGINAL pair"),
    mistake("apply_rope", "components of each rotated pair stored swapped", """
        angles = positions[:, None] * rope_frequencies(X.shape[-1], base)
        c, s = np.cos(angles), np.sin(angles)
        out = np.empty_like(X)
        out[..., 1::2] = X[..., 0::2] * c - X[..., 1::2] * s
        out[..., 0::2] = X[..., 0::2] * s + X[..., 1::2] * c
        return out
    """, hint="stored in swapped places"),
    mistake("apply_rope", "sign typo in the second component", """
        angles = positions[:, None] * rope_frequencies(X.shape[-1], base)
        c, s = np.cos(angles), np.sin(angles)
        out = np.empty_like(X)
        out[..., 0::2] = X[..., 0::2] * c - X[..., 1::2] * s
        out[..., 1::2] = -X[..., 0::2] * s + X[..., 1::2] * c
        return out
    """, hint="x_2i * sin + x_2i+1 * cos"),
    mistake("apply_rope", "rotated pairs written back as halves (complex numbers)", """
        theta = rope_frequencies(X.shape[-1], base)
        z = (X[..., 0::2] + 1j * X[..., 1::2]) * np.exp(1j * positions[:, None] * theta)
        return np.concatenate([z.real, z.imag], axis=-1)
    """, hint="interleave"),
    mistake("apply_rope", "last pair left unrotated (loop off by one)", """
        theta = rope_frequencies(X.shape[-1], base)
        out = X.copy()
        for i in range(X.shape[-1] // 2 - 1):
            a = positions * theta[i]
            x0, x1 = X[..., 2 * i], X[..., 2 * i + 1]
            out[..., 2 * i] = x0 * np.cos(a) - x1 * np.sin(a)
            out[..., 2 * i + 1] = x0 * np.sin(a) + x1 * np.cos(a)
        return out
    """, hint="every pair"),
    mistake("apply_rope", "positions counted from 1", """
        angles = (positions[:, None] + 1) * rope_frequencies(X.shape[-1], base)
        c, s = np.cos(angles), np.sin(angles)
        out = np.empty_like(X)
        out[..., 0::2] = X[..., 0::2] * c - X[..., 1::2] * s
        out[..., 1::2] = X[..., 0::2] * s + X[..., 1::2] * c
        return out
    """, hint="position 0"),
    mistake("apply_rope", "d_k read from X.shape[1]", """
        angles = positions[:, None] * rope_frequencies(X.shape[1], base)
        c, s = np.cos(angles), np.sin(angles)
        out = np.empty_like(X)
        out[..., 0::2] = X[..., 0::2] * c - X[..., 1::2] * s
        out[..., 1::2] = X[..., 0::2] * s + X[..., 1::2] * c
        return out
    """, hint="leading axis"),
    mistake("apply_rope", "angles built (d_k/2, L) instead of (L, d_k/2)", """
        angles = rope_frequencies(X.shape[-1], base)[:, None] * positions[None, :]
        c, s = np.cos(angles), np.sin(angles)
        out = np.empty_like(X)
        out[..., 0::2] = X[..., 0::2] * c - X[..., 1::2] * s
        out[..., 1::2] = X[..., 0::2] * s + X[..., 1::2] * c
        return out
    """, hint="(L, d_k/2)"),
    mistake("apply_rope", "base hard-coded to 10000", """
        angles = positions[:, None] * rope_frequencies(X.shape[-1])
        c, s = np.cos(angles), np.sin(angles)
        out = np.empty_like(X)
        out[..., 0::2] = X[..., 0::2] * c - X[..., 1::2] * s
        out[..., 1::2] = X[..., 0::2] * s + X[..., 1::2] * c
        return out
    """, hint="pass base on"),
    # concept checks
    mistake("answer_rotation_norm", "thinks rotation scales", 'answer_rotation_norm = "A"',
            hint="keeps its length"),
    mistake("answer_slow_pairs", "thinks slow pairs are cheaper", 'answer_slow_pairs = "C"',
            hint="cannot tell offset 1 from"),
    mistake("answer_shifted_score", "thinks absolute positions matter",
            'answer_shifted_score = "A"', hint="only the offset"),
    mistake("answer_rotate_values", "rotating values too", 'answer_rotate_values = "A"',
            hint="Rotating V would mix absolute positions"),
    mistake("answer_half_split", "thinks the layouts differ in substance",
            'answer_half_split = "B"', hint="fixed reordering"),
]

ALTERNATIVES = [
    alternative("rotation_2d", "np.array with moveaxis", """
        a = np.asarray(a, dtype=float)
        R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])  # (2, 2, ...)
        return np.moveaxis(R, (0, 1), (-2, -1))
    """),
    alternative("rotation_2d", "fill an empty array", """
        a = np.asarray(a, dtype=float)
        R = np.empty(a.shape + (2, 2))
        R[..., 0, 0] = np.cos(a)
        R[..., 0, 1] = -np.sin(a)
        R[..., 1, 0] = np.sin(a)
        R[..., 1, 1] = np.cos(a)
        return R
    """),
    alternative("rope_frequencies", "loop with a list", """
        return [base ** (-2 * i / d_k) for i in range(d_k // 2)]
    """),
    alternative("rope_frequencies", "exp and log", """
        return np.exp(-np.log(base) * np.arange(0, d_k, 2) / d_k)
    """),
    alternative("apply_rope", "rotation matrices and einsum", """
        R = rotation_2d(positions[:, None] * rope_frequencies(X.shape[-1], base))  # (L, p, 2, 2)
        pairs = X.reshape(*X.shape[:-1], -1, 2)  # (..., L, p, 2)
        return np.einsum("lpij,...lpj->...lpi", R, pairs).reshape(X.shape)
    """),
    alternative("apply_rope", "complex numbers", """
        theta = rope_frequencies(X.shape[-1], base)
        z = X[..., 0::2] + 1j * X[..., 1::2]  # (..., L, d_k/2)
        z = z * np.exp(1j * positions[:, None] * theta)
        return np.stack([z.real, z.imag], axis=-1).reshape(X.shape)
    """),
    alternative("apply_rope", "rotate_half style on interleaved pairs", """
        theta = rope_frequencies(X.shape[-1], base)
        angles = np.repeat(positions[:, None] * theta, 2, axis=-1)  # (L, d_k)
        swapped = np.empty_like(X)
        swapped[..., 0::2] = -X[..., 1::2]
        swapped[..., 1::2] = X[..., 0::2]
        return X * np.cos(angles) + swapped * np.sin(angles)
    """),
    # --- added in the adversarial review --------------------------------------------
    alternative("rotation_2d", "flat stack then reshape", """
        a = np.asarray(a, dtype=np.float64)
        c, s = np.cos(a), np.sin(a)
        return np.stack([c, -s, s, c], axis=-1).reshape(*a.shape, 2, 2)
    """),
    alternative("rotation_2d", "np.vectorize with a signature", """
        def one(t):
            return np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
        return np.vectorize(one, signature="()->(2,2)")(np.asarray(a, dtype=float))
    """),
    alternative("rope_frequencies", "one over a positive power", """
        return 1.0 / base ** (np.arange(0, d_k, 2) / d_k)
    """),
    alternative("rope_frequencies", "np.logspace", """
        return np.logspace(0, -(d_k - 2) / d_k, d_k // 2, base=base)
    """),
    alternative("rope_frequencies", "np.power on 2i with a float base", """
        return np.power(float(base), -2.0 * np.arange(d_k // 2) / d_k)
    """),
    alternative("apply_rope", "np.outer and a copy written in place", """
        angles = np.outer(positions, rope_frequencies(X.shape[-1], base))  # (L, d_k/2)
        first, second = X[..., 0::2].copy(), X[..., 1::2].copy()
        out = X.copy()
        out[..., 0::2] *= 0
        out[..., 0::2] += first * np.cos(angles) - second * np.sin(angles)
        out[..., 1::2] = first * np.sin(angles) + second * np.cos(angles)
        return out
    """),
    alternative("apply_rope", "loops over tokens and pairs with rotation_2d", """
        theta = rope_frequencies(X.shape[-1], base)
        out = np.zeros_like(X)
        for l in range(X.shape[-2]):
            for i in range(X.shape[-1] // 2):
                R = rotation_2d(positions[l] * theta[i])
                out[..., l, 2 * i:2 * i + 2] = X[..., l, 2 * i:2 * i + 2] @ R.T
        return out
    """),
    alternative("apply_rope", "float positions and a stacked pair axis", """
        angles = positions.astype(float)[:, None] * rope_frequencies(X.shape[-1], base)
        x = X.reshape(*X.shape[:-1], X.shape[-1] // 2, 2)
        c, s = np.cos(angles), np.sin(angles)
        y = np.stack([x[..., 0] * c - x[..., 1] * s, x[..., 0] * s + x[..., 1] * c], axis=-1)
        return y.reshape(X.shape)
    """),
    alternative("rope_frequencies", "math.pow in a loop", """
        import math
        return np.array([math.pow(base, -2 * i / d_k) for i in range(d_k // 2)])
    """),
    alternative("answer_rotate_values", "lower case", 'answer_rotate_values = "b"'),
    # --- round 2: more correct answers written other ways --------------------------------
    # rotation_2d
    alternative("rotation_2d", "complex exponential for cos and sin", """
        z = np.exp(1j * a)
        c, s = z.real, z.imag
        return np.stack([np.stack([c, -s], axis=-1), np.stack([s, c], axis=-1)], axis=-2)
    """),
    alternative("rotation_2d", "cos times I plus sin times the quarter turn", """
        J = np.array([[0.0, -1.0], [1.0, 0.0]])
        return np.cos(a)[..., None, None] * np.eye(2) + np.sin(a)[..., None, None] * J
    """),
    alternative("rotation_2d", "torch float64 tensor returned as it is", """
        import torch
        t = torch.as_tensor(a, dtype=torch.float64)
        c, s = torch.cos(t), torch.sin(t)
        return torch.stack([torch.stack([c, -s], -1), torch.stack([s, c], -1)], -2)
    """),
    alternative("rotation_2d", "stacked as columns", """
        c, s = np.cos(a), np.sin(a)
        return np.stack([np.stack([c, s], axis=-1), np.stack([-s, c], axis=-1)], axis=-1)
    """),
    alternative("rotation_2d", "one matrix per flattened angle, reshaped", """
        flat = [np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]]) for t in a.ravel()]
        return np.array(flat).reshape(*a.shape, 2, 2)
    """),
    alternative("rotation_2d", "sin written as a shifted cosine", """
        c, s = np.cos(a), np.cos(a - np.pi / 2)
        R = np.empty(np.shape(a) + (2, 2))
        R[..., 0, 0], R[..., 0, 1], R[..., 1, 0], R[..., 1, 1] = c, -s, s, c
        return R
    """),
    alternative("rotation_2d", "einsum of cos/sin with constant basis matrices", """
        basis = np.array([[[1.0, 0.0], [0.0, 1.0]], [[0.0, -1.0], [1.0, 0.0]]])  # (2, 2, 2)
        cs = np.stack([np.cos(a), np.sin(a)], axis=-1)  # (..., 2)
        return np.einsum("...k,kij->...ij", cs, basis)
    """),
    # rope_frequencies
    alternative("rope_frequencies", "powers of the one-step ratio", """
        ratio = base ** (-2.0 / d_k)
        return ratio ** np.arange(d_k // 2)
    """),
    alternative("rope_frequencies", "cumulative product of the ratio", """
        steps = np.full(d_k // 2, base ** (-2 / d_k))
        steps[0] = 1.0
        return np.cumprod(steps)
    """),
    alternative("rope_frequencies", "torch float64 tensor returned as it is", """
        import torch
        exponent = torch.arange(0, d_k, 2, dtype=torch.float64) / d_k
        return torch.tensor(float(base), dtype=torch.float64) ** -exponent
    """),
    alternative("rope_frequencies", "exp2 of log2", """
        return np.exp2(-np.log2(base) * np.arange(0, d_k, 2) / d_k)
    """),
    alternative("rope_frequencies", "even entries of a linspace exponent", """
        return float(base) ** -np.linspace(0.0, 1.0, d_k, endpoint=False)[::2]
    """),
    alternative("rope_frequencies", "reciprocals of i / (d_k / 2) powers", """
        return 1 / np.array([base ** (i / (d_k / 2)) for i in range(d_k // 2)])
    """),
    # apply_rope
    alternative("apply_rope", "block-diagonal matrix per token and einsum", """
        d_k = X.shape[-1]
        R = rotation_2d(positions[:, None] * rope_frequencies(d_k, base))  # (L, d_k/2, 2, 2)
        M = np.zeros((len(positions), d_k, d_k))
        for i in range(d_k // 2):
            M[:, 2 * i:2 * i + 2, 2 * i:2 * i + 2] = R[:, i]
        return np.einsum("lij,...lj->...li", M, X)
    """),
    alternative("apply_rope", "matmul of rotation matrices with pair column vectors", """
        R = rotation_2d(np.outer(positions, rope_frequencies(X.shape[-1], base)))  # (L, p, 2, 2)
        pairs = X.reshape(*X.shape[:-1], X.shape[-1] // 2, 2, 1)  # (..., L, p, 2, 1)
        return (R @ pairs).reshape(X.shape)
    """),
    alternative("apply_rope", "torch view_as_complex, float64", """
        import torch
        x = torch.from_numpy(np.ascontiguousarray(X))
        theta = torch.as_tensor(rope_frequencies(X.shape[-1], base))
        angles = torch.as_tensor(positions, dtype=torch.float64)[:, None] * theta
        z = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2))
        out = torch.view_as_real(z * torch.polar(torch.ones_like(angles), angles))
        return out.reshape(x.shape).numpy()
    """),
    alternative("apply_rope", "leading axes flattened and a loop over the slices", """
        d_k, L = X.shape[-1], X.shape[-2]
        theta = rope_frequencies(d_k, base)
        c, s = np.cos(np.outer(positions, theta)), np.sin(np.outer(positions, theta))
        slices = []
        for x in X.reshape(-1, L, d_k):
            y = x.copy()
            a, b = x[:, 0::2], x[:, 1::2]
            y[:, 0::2], y[:, 1::2] = a * c - b * s, a * s + b * c
            slices.append(y)
        return np.stack(slices).reshape(X.shape)
    """),
    alternative("apply_rope", "row vectors times transposed rotations", """
        R = rotation_2d(positions[:, None] * rope_frequencies(X.shape[-1], base))  # (L, p, 2, 2)
        pairs = X.reshape(*X.shape[:-1], X.shape[-1] // 2, 1, 2)  # (..., L, p, 1, 2)
        return (pairs @ np.swapaxes(R, -1, -2)).reshape(X.shape)
    """),
    alternative("apply_rope", "angles wrapped to [-pi, pi), pairs swapped with a sign", """
        theta = rope_frequencies(X.shape[-1], base)
        angles = positions[:, None] * theta
        angles = (angles + np.pi) % (2 * np.pi) - np.pi
        cos, sin = np.repeat(np.cos(angles), 2, axis=-1), np.repeat(np.sin(angles), 2, axis=-1)
        pairs = X.reshape(*X.shape[:-1], -1, 2)
        turned = (pairs[..., ::-1] * np.array([-1.0, 1.0])).reshape(X.shape)
        return X * cos + turned * sin
    """),
    alternative("apply_rope", "loop over pairs on a copy, torch tensor returned", """
        import torch
        theta = rope_frequencies(X.shape[-1], base)
        x = torch.from_numpy(X.copy())
        out = x.clone()
        pos = torch.as_tensor(positions, dtype=torch.float64)
        for i, t in enumerate(theta):
            c, s = torch.cos(pos * t), torch.sin(pos * t)
            out[..., 2 * i] = x[..., 2 * i] * c - x[..., 2 * i + 1] * s
            out[..., 2 * i + 1] = x[..., 2 * i] * s + x[..., 2 * i + 1] * c
        return out
    """),
    alternative("rope_frequencies", "np.geomspace from 1 to the slowest pair", """
        return np.geomspace(1.0, base ** (-(d_k - 2) / d_k), num=d_k // 2)
    """),
]

# --- round 3: more realistic slips -----------------------------------------------------
_ROPE_BODY = """
    angles = {angles}
    c, s = np.cos(angles), np.sin(angles)
    out = np.empty_like(X)
    out[..., 0::2] = {first}
    out[..., 1::2] = {second}
    return out
"""


def _rope(angles="positions[:, None] * rope_frequencies(X.shape[-1], base)",
          first="X[..., 0::2] * c - X[..., 1::2] * s",
          second="X[..., 0::2] * s + X[..., 1::2] * c"):
    return _ROPE_BODY.format(angles=angles, first=first, second=second)


def _matrix(c="np.cos(a)", s="np.sin(a)", rows="[c, -s], [s, c]"):
    first, second = rows.split("], [")
    return f"""
        c, s = {c}, {s}
        return np.stack([np.stack([{first.strip('[')}], -1),
                         np.stack([{second.strip(']')}], -1)], -2)
    """


MISTAKES += [
    # rotation_2d
    mistake("rotation_2d", "both sin entries negative", _matrix(rows="[c, -s], [-s, c]"),
            hint="only the top-right sin has a minus sign"),
    mistake("rotation_2d", "a reflection: -cos in the bottom-right",
            _matrix(rows="[c, -s], [s, -c]"),
            hint="cos a sits on BOTH diagonal entries"),
    mistake("rotation_2d", "half the angle (a / 2)", _matrix(c="np.cos(a / 2)", s="np.sin(a / 2)"),
            hint="turn by a itself"),
    mistake("rotation_2d", "angle read as turns (multiplied by pi)",
            _matrix(c="np.cos(np.pi * a)", s="np.sin(np.pi * a)"),
            hint="no factor pi"),
    mistake("rotation_2d", "angles truncated to integers",
            _matrix(c="np.cos(a.astype(int))", s="np.sin(a.astype(int))"),
            hint="keep the angles as floats"),
    mistake("rotation_2d", "float(a) only takes one angle", """
        t = float(a)
        return np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    """, hint="work elementwise"),
    # rope_frequencies
    mistake("rope_frequencies", "integer division // in the exponent", """
        i = np.arange(d_k // 2)
        return base ** (-(2 * i // d_k))
    """, hint="integer division"),
    mistake("rope_frequencies", "odd numbers 1, 3, 5 in the exponent", """
        return base ** (-np.arange(1, d_k, 2) / d_k)
    """, hint="even numbers 0, 2, 4"),
    mistake("rope_frequencies", "one value too many (arange to d_k inclusive)", """
        return base ** (-np.arange(0, d_k + 1, 2) / d_k)
    """, hint="d_k/2 values, not d_k"),
    mistake("rope_frequencies", "np.log10 paired with np.exp", """
        return np.exp(-np.log10(base) * np.arange(0, d_k, 2) / d_k)
    """, hint="natural logarithm"),
    mistake("rope_frequencies", "slowest pair first (reversed)", """
        return (base ** (-np.arange(0, d_k, 2) / d_k))[::-1]
    """, hint="the frequencies decrease"),
    mistake("rope_frequencies", "multiplied by 2 pi", """
        return 2 * np.pi * base ** (-np.arange(0, d_k, 2) / d_k)
    """, hint="no factor 2 pi"),
    mistake("rope_frequencies", "2i doubled twice (arange step 2 times 2)", """
        two_i = np.arange(0, d_k, 2)
        return base ** (-2 * two_i / d_k)
    """, hint="already holds 2i"),
    mistake("rope_frequencies", "missing parentheses: 1 / base ** 2 * i / d_k", """
        i = np.arange(d_k // 2)
        return 1 / base ** 2 * i / d_k
    """, hint="put the whole exponent in parentheses"),
    mistake("rope_frequencies", "hard-coded two pairs (the worked example's d_k = 4)", """
        return base ** (-np.arange(0, 4, 2) / d_k)
    """, hint="d_k/2 values"),
    # apply_rope
    mistake("apply_rope", "last token left unrotated (loop over range(L - 1))", """
        theta = rope_frequencies(X.shape[-1], base)
        out = X.copy()
        for l in range(X.shape[-2] - 1):
            c, s = np.cos(positions[l] * theta), np.sin(positions[l] * theta)
            out[..., l, 0::2] = X[..., l, 0::2] * c - X[..., l, 1::2] * s
            out[..., l, 1::2] = X[..., l, 0::2] * s + X[..., l, 1::2] * c
        return out
    """, hint="every token"),
    mistake("apply_rope", "first token skipped (loop from 1)", """
        theta = rope_frequencies(X.shape[-1], base)
        out = X.copy()
        for l in range(1, X.shape[-2]):
            c, s = np.cos(positions[l] * theta), np.sin(positions[l] * theta)
            out[..., l, 0::2] = X[..., l, 0::2] * c - X[..., l, 1::2] * s
            out[..., l, 1::2] = X[..., l, 0::2] * s + X[..., l, 1::2] * c
        return out
    """, hint="every token"),
    mistake("apply_rope", "angles positions * theta without [:, None]",
            _rope(angles="positions * rope_frequencies(X.shape[-1], base)"), hint="(L, d_k/2)"),
    mistake("apply_rope", "cos written where sin belongs",
            _rope(first="X[..., 0::2] * c - X[..., 1::2] * c",
                  second="X[..., 0::2] * c + X[..., 1::2] * c"), hint="sin"),
    mistake("apply_rope", "second component never written (left as x_2i+1)", """
        angles = positions[:, None] * rope_frequencies(X.shape[-1], base)
        out = X.copy()
        out[..., 0::2] = X[..., 0::2] * np.cos(angles) - X[..., 1::2] * np.sin(angles)
        return out
    """, hint="write BOTH components"),
    mistake("apply_rope", "loop over X's first axis as if it were the tokens", """
        theta = rope_frequencies(X.shape[-1], base)
        out = np.empty_like(X)
        for l in range(X.shape[0]):
            c, s = np.cos(positions[l] * theta), np.sin(positions[l] * theta)
            out[l, 0::2] = X[l, 0::2] * c - X[l, 1::2] * s
            out[l, 1::2] = X[l, 0::2] * s + X[l, 1::2] * c
        return out
    """, hint="keep every leading axis"),
    mistake("apply_rope", "positions divided by theta",
            _rope(angles="positions[:, None] / rope_frequencies(X.shape[-1], base)"),
            hint="multiply"),
    mistake("apply_rope", "hard-coded d_k = 4 (the worked example's width)",
            _rope(angles="positions[:, None] * rope_frequencies(4, base)"),
            hint="never the worked example's sizes"),
    mistake("apply_rope", "positions made relative to the first token",
            _rope(angles="(positions - positions[0])[:, None]"
                         " * rope_frequencies(X.shape[-1], base)"),
            hint="absolute position"),
    mistake("apply_rope", "plus sign in the first component",
            _rope(first="X[..., 0::2] * c + X[..., 1::2] * s"),
            hint="only the first component has a minus sign"),
    mistake("apply_rope", "rope_frequencies called with d_k / 2",
            _rope(angles="positions[:, None] * rope_frequencies(X.shape[-1] // 2, base)"),
            hint="rope_frequencies(d_k, base)"),
]
