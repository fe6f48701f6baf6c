"""Notebook 03's mistake catalogue, one section per graded function (see grader/catalogue.py)."""

from grader.catalogue import alternative, catalogue, delete, edit, explained, mistake, replace_line

from attnbook.checks import nb03

WHY = explained("03_rope")  # detects=WHY: the question's explanation

ROTATION, FREQUENCIES, ROPE = "rotation_2d", "rope_frequencies", "apply_rope"

# hints that several entries give
HINT_SIGN_TYPO_SECOND_COMPONENT = ("R(a) @ [x_2i, x_2i+1] = [x_2i * cos - x_2i+1 * sin, x_2i * sin "
                                   "+ x_2i+1 * cos]: only the first component has a minus sign")
HINT_EVERY_TOKEN = ("rotate every token l = 0 .. L-1, the first and the last included: loop over "
                    "range(L) (or better, no loop: angles (L, d_k/2) at once)")


MISTAKES, ALTERNATIVES = catalogue([
    # -- rotation_2d -------------------------------------------------------------------------------
    mistake(ROTATION, "transposed: R(-a) instead of R(a)", edit("s,", "-s,"),
            detects=nb03.HINT_DIRECTION,
            like="the minus sign dropped: [[cos a, sin a], [sin a, cos a]]"),
    mistake(ROTATION, "angle treated as degrees", """
        a = np.radians(a)
        c, s = np.cos(a), np.sin(a)
        return np.stack([np.stack([c, -s], axis=-1), np.stack([s, c], axis=-1)], axis=-2)
    """, hint="a is in radians: use np.cos(a) and np.sin(a) directly, no conversion"),
    mistake(ROTATION, "sin and cos swapped",
            edit("c, s], axis=-1), np.stack([s, c", "s, -c], axis=-1), np.stack([c, s"),
            hint="cos sits on the diagonal: [[cos a, -sin a], [sin a, cos a]]",
            like="the minus sign dropped: [[cos a, sin a], [sin a, cos a]]"),
    mistake(ROTATION, "np.array puts the 2 x 2 in front for arrays of angles", """
        c, s = np.cos(a), np.sin(a)
        return np.array([[c, -s], [s, c]])""", detects=nb03.HINT_ROTATION_AXES),
    mistake(ROTATION, "the 2 x 2 built in front, then reshaped to (..., 2, 2)", """
        c, s = np.cos(a), np.sin(a)
        return np.array([[c, -s], [s, c]]).reshape(*np.shape(a), 2, 2)""",
            detects=nb03.HINT_ROTATION_ENTRYWISE),
    mistake(ROTATION, "the minus sign dropped: [[cos a, sin a], [sin a, cos a]]",
            [delete("a = np.radians(a)"), edit("-s", "s")],
            hint="the minus sign belongs on the top-right sin: [[cos a, -sin a], [sin a, cos a]]; "
                 "without it the matrix is no rotation (R^T R != I)",
            like="angle treated as degrees"),
    mistake(ROTATION, "math.cos only takes one number", [
        replace_line("c, s = np.cos(a), np.sin(a)", "import math\nc, s = math.cos(a), math.sin(a)"),
    ], detects=nb03.HINT_MATH_COS, like="np.array puts the 2 x 2 in front for arrays of angles"),
    mistake(ROTATION, "both sin entries negative: [[cos a, -sin a], [-sin a, cos a]]",
            edit("s, -", "-s, "),
            hint="only the top-right sin has a minus sign: [[cos a, -sin a], [sin a, cos a]]",
            like="a reflection: [[cos a, -sin a], [sin a, -cos a]]"),
    mistake(ROTATION, "a reflection: [[cos a, -sin a], [sin a, -cos a]]", """
        c, s = np.cos(a), np.sin(a)
        return np.stack([np.stack([c, -s], -1),
                         np.stack([s, -c], -1)], -2)""",
            hint="cos a sits on BOTH diagonal entries, with a plus sign; -cos a in the corner "
                 "makes a reflection (determinant -1), not a rotation"),
    mistake(ROTATION, "half the angle", [
        edit("), np.sin(a", " / 2), np.sin(a / 2"), edit("[-", "["),
    ], hint="turn by a itself: np.cos(a), np.sin(a), no halving",
            like="both sin entries negative: [[cos a, -sin a], [-sin a, cos a]]"),
    mistake(ROTATION, "angle read as turns (multiplied by pi)", [
        edit("a), np.sin(", "np.pi * a), np.sin(np.pi * "), edit("[-", "["),
    ], hint="a is already in radians: no factor pi",
            like="both sin entries negative: [[cos a, -sin a], [-sin a, cos a]]"),
    mistake(ROTATION, "angles truncated to integers", [
        edit("a), np.sin(a", "a.astype(int)), np.sin(a.astype(int)"), edit("[-", "["),
    ], hint="keep the angles as floats: astype(int) or int(a) cuts pi/6 down to 0",
            like="both sin entries negative: [[cos a, -sin a], [-sin a, cos a]]"),
    alternative(ROTATION, "np.array with moveaxis", """
        a = np.asarray(a, dtype=float)
        R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])  # (2, 2, ...)
        return np.moveaxis(R, (0, 1), (-2, -1))"""),
    alternative(ROTATION, "np.vectorize with a signature", """
        def one(t):
            return np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
        return np.vectorize(one, signature="()->(2,2)")(np.asarray(a, dtype=float))"""),
    alternative(ROTATION, "complex exponential for cos and sin", [
        edit("a = np.radians(", "z = np.exp(1j * "), edit("np.cos(a), np.sin(a)", "z.real, z.imag"),
    ], like="angle treated as degrees"),
    alternative(ROTATION, "cos times I plus sin times the quarter turn", """
        J = np.array([[0.0, -1.0], [1.0, 0.0]])
        return np.cos(a)[..., None, None] * np.eye(2) + np.sin(a)[..., None, None] * J"""),
    alternative(ROTATION, "torch float64 tensor returned as it is", """
        import torch
        t = torch.as_tensor(a, dtype=torch.float64)
        c, s = torch.cos(t), torch.sin(t)
        return torch.stack([torch.stack([c, -s], -1), torch.stack([s, c], -1)], -2)"""),
    alternative(ROTATION, "stacked as columns", """
        c, s = np.cos(a), np.sin(a)
        return np.stack([np.stack([c, s], axis=-1), np.stack([-s, c], axis=-1)], axis=-1)"""),
    alternative(ROTATION, "sin written as a shifted cosine", """
        c, s = np.cos(a), np.cos(a - np.pi / 2)
        R = np.empty(np.shape(a) + (2, 2))
        R[..., 0, 0], R[..., 0, 1], R[..., 1, 0], R[..., 1, 1] = c, -s, s, c
        return R"""),
    # -- rope_frequencies --------------------------------------------------------------------------
    mistake(FREQUENCIES, "exponent i/d_k instead of 2i/d_k",
            "return base ** (-np.arange(d_k // 2) / d_k)", detects=nb03.HINT_PAIR_EXPONENT),
    mistake(FREQUENCIES, "one theta per feature instead of per pair",
            "return base ** (-np.arange(d_k) / d_k)", detects=nb03.HINT_ONE_THETA_PER_PAIR),
    mistake(FREQUENCIES, "positive exponent", "return base ** (np.arange(0, d_k, 2) / d_k)",
            hint="the frequencies shrink from 1: theta_i = base ** (-2i/d_k), with a minus sign"),
    mistake(FREQUENCIES, "base ignored (10000 used whatever base is)",
            "return 10000.0 ** (-np.arange(0, d_k, 2) / d_k)",
            hint="use the base argument, not a hard-coded 10000"),
    mistake(FREQUENCIES, "one frequency for all pairs", "return np.ones(d_k // 2)",
            hint="pair i has its own theta_i = base ** (-2i/d_k); beware integer division: 2 * i "
                 "// d_k is 0 for every pair, use / (true division)"),
    mistake(FREQUENCIES, "missing parentheses: (base ** -2i) / d_k",
            "return base ** -np.arange(0, d_k, 2) / d_k",
            hint="put the whole exponent in parentheses, base ** (-2 * i / d_k): base ** -two_i / "
                 "d_k is read as (base ** -two_i) / d_k, because ** binds before /"),
    mistake(FREQUENCIES, "pair index counted from 1",
            "return base ** (-2 * np.arange(1, d_k // 2 + 1) / d_k)",
            hint="i counts from 0: the fastest pair has theta_0 = base ** 0 = 1"),
    mistake(FREQUENCIES, "exponent divided by the number of pairs d_k/2 instead of d_k",
            "return base ** (-2 * np.arange(d_k // 2) / (d_k // 2))",
            hint="divide by d_k, the width, not by the number of pairs d_k/2: theta_i = base ** "
                 "(-2i/d_k); and np.arange(0, d_k, 2) already holds 2i, so do not multiply it by 2 "
                 "again"),
    mistake(FREQUENCIES, "exponent spread over [0, 1] with np.linspace",
            "return base ** (-np.linspace(0, 1, d_k // 2))",
            hint="the exponent 2i/d_k starts at 0 and stops at (d_k - 2)/d_k, just short of 1: "
                 "np.arange(0, d_k, 2) / d_k, not np.linspace(0, 1, d_k // 2)"),
    mistake(FREQUENCIES, "odd numbers 1, 3, 5, ... in the exponent",
            "return base ** (-np.arange(1, d_k, 2) / d_k)",
            hint="the exponent uses the even numbers 0, 2, 4, ...: np.arange(0, d_k, 2) / d_k"),
    mistake(FREQUENCIES, "np.log10 paired with np.exp",
            "return np.exp(-np.log10(base) * np.arange(0, d_k, 2) / d_k)",
            hint="np.exp undoes np.log, the natural logarithm: exp(-log(base) * 2i/d_k); np.log10 "
                 "goes with 10 ** (...)"),
    mistake(FREQUENCIES, "slowest pair first (reversed order)",
            "return (base ** (-np.arange(0, d_k, 2) / d_k))[::-1]",
            hint="theta_0 = 1 is the fastest pair and the frequencies decrease with i: no "
                 "reversing"),
    mistake(FREQUENCIES, "multiplied by 2 pi", edit("base ** (", "2 * np.pi * base ** (-"),
            hint="theta_i is already in radians per position: no factor 2 pi",
            like="positive exponent"),
    mistake(FREQUENCIES, "missing parentheses: 1 / base ** 2 * i / d_k", """
        i = np.arange(d_k // 2)
        return 1 / base ** 2 * i / d_k""",
            hint="put the whole exponent in parentheses: 1 / base ** (2 * i / d_k); ** binds "
                 "before * and /"),
    mistake(FREQUENCIES, "exponent divided by d_k - 1",
            "return base ** (-np.arange(0, d_k, 2) / (d_k - 1))",
            hint="divide by the width d_k itself: theta_i = base ** (-2i/d_k), not (d_k - 1)"),
    alternative(FREQUENCIES, "loop with a list",
                "return [base ** (-2 * i / d_k) for i in range(d_k // 2)]"),
    alternative(FREQUENCIES, "exp and log",
                "return np.exp(-np.log(base) * np.arange(0, d_k, 2) / d_k)"),
    alternative(FREQUENCIES, "np.logspace",
                "return np.logspace(0, -(d_k - 2) / d_k, d_k // 2, base=base)"),
    alternative(FREQUENCIES, "powers of the one-step ratio", """
        ratio = base ** (-2.0 / d_k)
        return ratio ** np.arange(d_k // 2)"""),
    alternative(FREQUENCIES, "cumulative product of the ratio", """
        steps = np.full(d_k // 2, base ** (-2 / d_k))
        steps[0] = 1.0
        return np.cumprod(steps)"""),
    alternative(FREQUENCIES, "torch float64 tensor returned as it is", """
        import torch
        exponent = torch.arange(0, d_k, 2, dtype=torch.float64) / d_k
        return torch.tensor(float(base), dtype=torch.float64) ** -exponent"""),
    alternative(FREQUENCIES, "reciprocals of i / (d_k / 2) powers",
                "return 1 / np.array([base ** (i / (d_k / 2)) for i in range(d_k // 2)])"),
    alternative(FREQUENCIES, "np.geomspace from 1 to the slowest pair",
                "return np.geomspace(1.0, base ** (-(d_k - 2) / d_k), num=d_k // 2)"),
    # -- apply_rope --------------------------------------------------------------------------------
    mistake(ROPE, "half-split pairing (feature i with i + d_k/2) instead of consecutive pairs", [
        replace_line("first, second =",
                     "half = X.shape[-1] // 2\nfirst, second = X[..., :half], X[..., half:]"),
        edit("0::2] =", ":half] ="), edit("1::2] =", "half:] ="),
    ], hint="our pairs are consecutive features (2i, 2i+1): X[..., 0::2] and X[..., 1::2], not "
            "the two halves X[..., :d_k//2] and X[..., d_k//2:]"),
    mistake(ROPE, "exponent i/d_k instead of 2i/d_k", [
        replace_line("angles = positions[:",
                     "d_k = X.shape[-1]\n"
                     "angles = positions[:, None] * base ** (-np.arange(d_k // 2) / d_k)"),
        edit("-X", "X"),
    ], detects=nb03.HINT_PAIR_EXPONENT,
            like="sign typo in the second component (-x_2i * sin + x_2i+1 * cos)"),
    mistake(ROPE, "rotated by -l * theta (the wrong direction)",
            [edit("positions", "-positions"), edit("-X", "X")], detects=nb03.HINT_DIRECTION,
            like="sign typo in the second component (-x_2i * sin + x_2i+1 * cos)"),
    mistake(ROPE, "one frequency for all pairs", [
        edit("rope_frequencies(X.shape[-1], base", "np.ones(X.shape[-1] // 2"), edit("-X", "X"),
    ], hint="pair i turns by l * theta_i with its own theta_i from rope_frequencies(d_k, base), "
            "d_k = X.shape[-1]",
            like="sign typo in the second component (-x_2i * sin + x_2i+1 * cos)"),
    mistake(ROPE, "positions ignored (0, 1, 2, ... used instead)", [
        edit("d_k = X.shape[-1", "L = X.shape[-2"),
        replace_line("angles = positions[:",
                     "angles = np.arange(L)[:, None] * rope_frequencies(X.shape[-1], base)"),
    ], hint="turn token l by positions[l] * theta_i: the positions argument need not be 0, 1, 2, "
            "...", like="exponent i/d_k instead of 2i/d_k"),
    mistake(ROPE, "modifies X in place", [
        edit("0::2], X[..., 1::2]", "0::2].copy(), X[..., 1::2].copy()"),
        edit("np.empty_like(X)", "X"),
    ], detects=nb03.HINT_ROPE_IN_PLACE),
    mistake(ROPE, "the second component computed from the already rotated first one", [
        edit("d_k = X.shape[-1]", "theta = rope_frequencies(X.shape[-1], base)"),
        edit("base ** (-np.arange(d_k // 2) / d_k)", "theta"), edit("np.empty_like(X", "X.copy("),
        edit("X[..., 0::2] * c - X", "out[..., 0::2] * c - out"),
        edit("X[..., 0::2] * s + X", "out[..., 0::2] * s + out"),
    ], hint="compute both new components from the ORIGINAL pair: keep X[..., 0::2] and X[..., "
            "1::2] (or copies of them) and write the results into a new array; overwriting x_2i "
            "first and then reading it back uses the rotated value",
            like="exponent i/d_k instead of 2i/d_k"),
    mistake(ROPE, "the two components of each rotated pair stored in swapped places", [
        edit("0::2] =", "1::2] ="), edit("1::2] = -", "0::2] = "),
    ], hint="the components are stored in swapped places: feature 2i gets x_2i * cos - x_2i+1 * "
            "sin and feature 2i+1 gets x_2i * sin + x_2i+1 * cos",
            like="sign typo in the second component (-x_2i * sin + x_2i+1 * cos)"),
    mistake(ROPE, "sign typo in the second component (-x_2i * sin + x_2i+1 * cos)", """
        angles = positions[:, None] * rope_frequencies(X.shape[-1], base)
        c, s = np.cos(angles), np.sin(angles)
        out = np.empty_like(X)
        out[..., 0::2] = X[..., 0::2] * c - X[..., 1::2] * s
        out[..., 1::2] = -X[..., 0::2] * s + X[..., 1::2] * c
        return out""", hint=HINT_SIGN_TYPO_SECOND_COMPONENT),
    mistake(ROPE,
            "rotated pairs written back as two halves (all first components, then all second "
            "ones)", [
        edit("0::2] =", ":X.shape[-1] // 2] ="), edit("1::2] =", "X.shape[-1] // 2:] ="),
    ], hint="interleave the results: pair i goes back to features 2i and 2i+1, e.g. "
            "np.stack([first, second], axis=-1).reshape(X.shape), not np.concatenate"),
    mistake(ROPE, "the last pair left unrotated (a loop over range(d_k // 2 - 1))", [
        edit("l in range(1, X.shape[-2]", "i in range(X.shape[-1] // 2 - 1"),
        replace_line("c, s = np.cos(positions", "a = positions * theta[i]"),
        replace_line("out[..., l, 0::2] =", "x0, x1 = X[..., 2 * i], X[..., 2 * i + 1]"),
        replace_line("out[..., l, 1::2] =",
                     "out[..., 2 * i] = x0 * np.cos(a) - x1 * np.sin(a)\n"
                     "out[..., 2 * i + 1] = x0 * np.sin(a) + x1 * np.cos(a)"),
    ], hint="rotate every pair i = 0 .. d_k/2 - 1: range(d_k // 2) pairs, the last one included",
            like="the first token left unrotated (a loop from 1)"),
    mistake(ROPE, "positions counted from 1 (positions + 1)",
            edit("-positions[:, None]", "(positions[:, None] + 1)"),
            hint="use positions[l] as given: a token at position 0 is turned by 0, not by theta",
            like="rotated by -l * theta (the wrong direction)"),
    mistake(ROPE, "angles built (d_k/2, L) instead of (L, d_k/2)", [
        replace_line("angles = -positions[",
                     "angles = rope_frequencies(X.shape[-1], base)[:, None] * positions[None, :]"),
    ], detects=nb03.HINT_ROPE_BROADCAST, like="rotated by -l * theta (the wrong direction)"),
    mistake(ROPE, "base ignored (10000 used whatever base is)",
            [edit(", base", ""), edit("-X", "X")],
            hint="pass base on to rope_frequencies(d_k, base)",
            like="sign typo in the second component (-x_2i * sin + x_2i+1 * cos)"),
    mistake(ROPE, "the last token left unrotated (a loop over range(L - 1))",
            edit("1, X.shape[-2]", "X.shape[-2] - 1"),
            hint=HINT_EVERY_TOKEN, like="the first token left unrotated (a loop from 1)"),
    mistake(ROPE, "the first token left unrotated (a loop from 1)", [
        edit("np.empty_like(X", "X.copy("), edit("X.shape[0", "1, X.shape[-2"),
        edit("l, 0::2] = X[l, 0::2] * c - X[", "..., l, 0::2] = X[..., l, 0::2] * c - X[..., "),
        edit("l, 1::2] = X[l, 0::2] * s + X[", "..., l, 1::2] = X[..., l, 0::2] * s + X[..., "),
    ], hint=HINT_EVERY_TOKEN, like="loop over X's first axis as if it were the tokens"),
    mistake(ROPE, "cos written where sin belongs", [
        edit("= -", "= "), edit("1::2] * s", "1::2] * c"), edit("* s", "* c"),
    ], hint="the off-diagonal terms use sin: x_2i * cos - x_2i+1 * sin and x_2i * sin + x_2i+1 * "
            "cos", like="rotated by -l * theta (the wrong direction)"),
    mistake(ROPE, "the second component of each pair never written (left as x_2i+1)",
            [edit("np.empty_like(X", "X.copy("), delete("out[..., 1::2] =")],
            hint="write BOTH components of every pair: feature 2i+1 becomes x_2i * sin + x_2i+1 * "
                 "cos"),
    mistake(ROPE, "loop over X's first axis as if it were the tokens", """
        theta = rope_frequencies(X.shape[-1], base)
        out = np.empty_like(X)
        for l in range(X.shape[0]):
            c, s = np.cos(positions[l] * theta), np.sin(positions[l] * theta)
            out[l, 0::2] = X[l, 0::2] * c - X[l, 1::2] * s
            out[l, 1::2] = X[l, 0::2] * s + X[l, 1::2] * c
        return out""", detects=nb03.HINT_LEADING_AXES),
    mistake(ROPE, "positions divided by theta", [edit("None] *", "None] /"), edit("-X", "X")],
            hint="multiply: the angle is positions[l] * theta_i",
            like="sign typo in the second component (-x_2i * sin + x_2i+1 * cos)"),
    mistake(ROPE, "hard-coded d_k = 4 (the worked example's width)", edit("X.shape[-1]", "4, base"),
            detects=nb03.HINT_ROPE_BROADCAST, like="base ignored (10000 used whatever base is)"),
    mistake(ROPE, "positions made relative to the first token",
            edit("-positions", "(positions - positions[0])"),
            hint="turn token l by its absolute position positions[l]; the offset s - l appears in "
                 "the score q~ . k~ by itself", like="rotated by -l * theta (the wrong direction)"),
    mistake(ROPE, "plus sign in the first component (x_2i * cos + x_2i+1 * sin)",
            [edit("= -", "= "), edit("c -", "c +")], hint=HINT_SIGN_TYPO_SECOND_COMPONENT,
            like="rotated by -l * theta (the wrong direction)"),
    mistake(ROPE, "Hugging Face's frequency layout (theta repeated as a block), consecutive pairs",
            """
        theta = rope_frequencies(X.shape[-1], base)
        angles = positions[:, None] * np.concatenate([theta, theta])  # (L, d_k)
        turned = np.empty_like(X)
        turned[..., 0::2] = -X[..., 1::2]
        turned[..., 1::2] = X[..., 0::2]
        return X * np.cos(angles) + turned * np.sin(angles)""",
            hint="np.concatenate([theta, theta]) goes with the half-split layout (rotate_half); "
                 "with consecutive pairs both features 2i and 2i+1 turn by theta_i: "
                 "np.repeat(theta, 2)"),
    mistake(ROPE, "frequencies reversed (slowest pair first)",
            edit("positions[:, None] * theta", "positions[:, None] * theta[::-1]"),
            hint="pair i (features 2i, 2i+1) turns by positions[l] * theta_i in the order "
                 "rope_frequencies gives: theta_0 = 1, the fastest, belongs to pair 0"),
    alternative(ROPE, "rotation matrices and einsum", """
        R = rotation_2d(positions[:, None] * rope_frequencies(X.shape[-1], base))  # (L, p, 2, 2)
        pairs = X.reshape(*X.shape[:-1], -1, 2)  # (..., L, p, 2)
        return np.einsum("lpij,...lpj->...lpi", R, pairs).reshape(X.shape)"""),
    alternative(ROPE, "complex numbers", """
        theta = rope_frequencies(X.shape[-1], base)
        z = X[..., 0::2] + 1j * X[..., 1::2]  # (..., L, d_k/2)
        z = z * np.exp(1j * positions[:, None] * theta)
        return np.stack([z.real, z.imag], axis=-1).reshape(X.shape)"""),
    alternative(ROPE, "np.outer and a copy written in place", """
        angles = np.outer(positions, rope_frequencies(X.shape[-1], base))  # (L, d_k/2)
        first, second = X[..., 0::2].copy(), X[..., 1::2].copy()
        out = X.copy()
        out[..., 0::2] *= 0
        out[..., 0::2] += first * np.cos(angles) - second * np.sin(angles)
        out[..., 1::2] = first * np.sin(angles) + second * np.cos(angles)
        return out"""),
    alternative(ROPE, "loops over tokens and pairs with rotation_2d", """
        theta = rope_frequencies(X.shape[-1], base)
        out = np.zeros_like(X)
        for l in range(X.shape[-2]):
            for i in range(X.shape[-1] // 2):
                R = rotation_2d(positions[l] * theta[i])
                out[..., l, 2 * i:2 * i + 2] = X[..., l, 2 * i:2 * i + 2] @ R.T
        return out"""),
    alternative(ROPE, "float positions and a stacked pair axis", """
        angles = positions.astype(float)[:, None] * rope_frequencies(X.shape[-1], base)
        x = X.reshape(*X.shape[:-1], X.shape[-1] // 2, 2)
        c, s = np.cos(angles), np.sin(angles)
        y = np.stack([x[..., 0] * c - x[..., 1] * s, x[..., 0] * s + x[..., 1] * c], axis=-1)
        return y.reshape(X.shape)"""),
    alternative(ROPE, "block-diagonal matrix per token and einsum", """
        d_k = X.shape[-1]
        R = rotation_2d(positions[:, None] * rope_frequencies(d_k, base))  # (L, d_k/2, 2, 2)
        M = np.zeros((len(positions), d_k, d_k))
        for i in range(d_k // 2):
            M[:, 2 * i:2 * i + 2, 2 * i:2 * i + 2] = R[:, i]
        return np.einsum("lij,...lj->...li", M, X)"""),
    alternative(ROPE, "matmul of rotation matrices with pair column vectors", """
        R = rotation_2d(np.outer(positions, rope_frequencies(X.shape[-1], base)))  # (L, p, 2, 2)
        pairs = X.reshape(*X.shape[:-1], X.shape[-1] // 2, 2, 1)  # (..., L, p, 2, 1)
        return (R @ pairs).reshape(X.shape)"""),
    alternative(ROPE, "torch view_as_complex, float64", """
        import torch
        x = torch.from_numpy(np.ascontiguousarray(X))
        theta = torch.as_tensor(rope_frequencies(X.shape[-1], base))
        angles = torch.as_tensor(positions, dtype=torch.float64)[:, None] * theta
        z = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2))
        out = torch.view_as_real(z * torch.polar(torch.ones_like(angles), angles))
        return out.reshape(x.shape).numpy()"""),
    alternative(ROPE, "leading axes flattened and a loop over the slices", """
        d_k, L = X.shape[-1], X.shape[-2]
        theta = rope_frequencies(d_k, base)
        c, s = np.cos(np.outer(positions, theta)), np.sin(np.outer(positions, theta))
        slices = []
        for x in X.reshape(-1, L, d_k):
            y = x.copy()
            a, b = x[:, 0::2], x[:, 1::2]
            y[:, 0::2], y[:, 1::2] = a * c - b * s, a * s + b * c
            slices.append(y)
        return np.stack(slices).reshape(X.shape)"""),
    alternative(ROPE, "angles wrapped to [-pi, pi), pairs swapped with a sign", """
        theta = rope_frequencies(X.shape[-1], base)
        angles = positions[:, None] * theta
        angles = (angles + np.pi) % (2 * np.pi) - np.pi
        cos, sin = np.repeat(np.cos(angles), 2, axis=-1), np.repeat(np.sin(angles), 2, axis=-1)
        pairs = X.reshape(*X.shape[:-1], -1, 2)
        turned = (pairs[..., ::-1] * np.array([-1.0, 1.0])).reshape(X.shape)
        return X * cos + turned * sin"""),
    alternative(ROPE, "loop over pairs on a copy, torch tensor returned", """
        import torch
        theta = rope_frequencies(X.shape[-1], base)
        x = torch.from_numpy(X.copy())
        out = x.clone()
        pos = torch.as_tensor(positions, dtype=torch.float64)
        for i, t in enumerate(theta):
            c, s = torch.cos(pos * t), torch.sin(pos * t)
            out[..., 2 * i] = x[..., 2 * i] * c - x[..., 2 * i + 1] * s
            out[..., 2 * i + 1] = x[..., 2 * i] * s + x[..., 2 * i + 1] * c
        return out"""),
    # -- concept questions -------------------------------------------------------------------------
    mistake("answer_rotation_norm", "thinks rotation scales", edit("C", "A"), detects=WHY),
    mistake("answer_slow_pairs", "thinks slow pairs are cheaper", edit("A", "C"), detects=WHY),
    mistake("answer_shifted_score", "thinks absolute positions matter",
            'answer_shifted_score = "A"', detects=WHY),
    mistake("answer_rotate_values", "thinks an unchanged weight gives an unchanged output",
            'answer_rotate_values = "B"', detects=WHY),
    mistake("answer_rope_angles", "adds the two angles", 'answer_rope_angles = "C"', detects=WHY),
    mistake("answer_rope_angles", "takes the key's own angle", edit("B", "A"), detects=WHY),
    mistake("answer_half_split", "thinks the layouts differ in substance",
            'answer_half_split = "B"', detects=WHY),
    alternative("answer_rotate_values", "lower case", 'answer_rotate_values = "c"'),
])
