"""Notebook 02 catalogue: the mistakes students make, and correct answers written otherwise."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from grader.catalogue import alternative, mistake  # noqa: E402

MISTAKES = [
    # sinusoidal_positions
    mistake("sinusoidal_positions", "exponent i/d instead of 2i/d", """
        l = np.arange(L)[:, None]
        w = 10000.0 ** (-np.arange(d // 2) / d)
        P = np.zeros((L, d))
        P[:, 0::2] = np.sin(l * w)
        P[:, 1::2] = np.cos(l * w)
        return P
    """, hint="the exponent is 2i/d"),
    mistake("sinusoidal_positions", "feature index j in the exponent for every column", """
        P = np.zeros((L, d))
        for l in range(L):
            for j in range(d):
                w = 10000.0 ** (-j / d)
                P[l, j] = np.sin(l * w) if j % 2 == 0 else np.cos(l * w)
        return P
    """, hint="shared by features 2i and 2i+1"),
    mistake("sinusoidal_positions", "sin and cos swapped", """
        l = np.arange(L)[:, None]
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        P = np.zeros((L, d))
        P[:, 0::2] = np.cos(l * w)
        P[:, 1::2] = np.sin(l * w)
        return P
    """, hint="sin goes in the even features"),
    mistake("sinusoidal_positions", "sin and cos in two halves instead of interleaved", """
        l = np.arange(L)[:, None]
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        return np.concatenate([np.sin(l * w), np.cos(l * w)], axis=1)
    """, hint="interleave the pairs"),
    mistake("sinusoidal_positions", "positions starting at 1", """
        l = np.arange(1, L + 1)[:, None]
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        P = np.zeros((L, d))
        P[:, 0::2] = np.sin(l * w)
        P[:, 1::2] = np.cos(l * w)
        return P
    """, hint="positions start at 0"),
    mistake("sinusoidal_positions", "positive exponent", """
        l = np.arange(L)[:, None]
        w = 10000.0 ** (np.arange(0, d, 2) / d)
        P = np.zeros((L, d))
        P[:, 0::2] = np.sin(l * w)
        P[:, 1::2] = np.cos(l * w)
        return P
    """, hint="with a minus sign"),
    # embed
    mistake("embed", "positions not added", """
        return E[token_ids]
    """, hint="add row l of P"),
    mistake("embed", "the whole table P added", """
        return E[token_ids] + P
    """, hint="P[:L]"),
    mistake("embed", "P indexed by the token ids", """
        return E[token_ids] + P[token_ids]
    """, hint="not P[token_ids]"),
    mistake("embed", "positions starting at 1", """
        L = len(token_ids)
        return E[token_ids] + P[1:L + 1]
    """, hint="position 0"),
    mistake("embed", "embedding and position concatenated", """
        L = len(token_ids)
        return np.concatenate([E[token_ids], P[:L]], axis=1)
    """, hint="one row per token: (L, d)"),
    # shift_matrix
    mistake("shift_matrix", "standard rotation block: shifts backwards", """
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        M = np.zeros((d, d))
        for i in range(d // 2):
            a = k * w[i]
            M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(a), -np.sin(a)],
                                                   [np.sin(a), np.cos(a)]]
        return M
    """, hint="p_(l-k)"),
    mistake("shift_matrix", "one frequency for every pair", """
        M = np.zeros((d, d))
        for i in range(d // 2):
            M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(k), np.sin(k)],
                                                   [-np.sin(k), np.cos(k)]]
        return M
    """, hint="its own w_i"),
    mistake("shift_matrix", "exponent i/d", """
        w = 10000.0 ** (-np.arange(d // 2) / d)
        M = np.zeros((d, d))
        for i in range(d // 2):
            M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(k * w[i]), np.sin(k * w[i])],
                                                   [-np.sin(k * w[i]), np.cos(k * w[i])]]
        return M
    """, hint="the exponent is 2i/d"),
    mistake("shift_matrix", "blocks placed for a two-halves layout", """
        half = d // 2
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        c, s = np.cos(k * w), np.sin(k * w)
        return np.block([[np.diag(c), np.diag(s)], [np.diag(-s), np.diag(c)]])
    """, hint="same interleaved layout as P"),
    mistake("shift_matrix", "always one step", """
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        M = np.zeros((d, d))
        for i in range(d // 2):
            M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(w[i]), np.sin(w[i])],
                                                   [-np.sin(w[i]), np.cos(w[i])]]
        return M
    """, hint="use k"),
    # concept checks
    mistake("answer_position_signal", "thinks a second mask gives positions",
            'answer_position_signal = "B"', hint="carry no location"),
    mistake("answer_fast_pair", "thinks the last pair is fastest", 'answer_fast_pair = "B"',
            hint="pair 0 turns fastest"),
    mistake("answer_same_token", "thinks embeddings ignore position", 'answer_same_token = "A"',
            hint="p_0 and p_2 differ"),
    mistake("answer_offset", "thinks similarity depends on l", 'answer_offset = "B"',
            hint="offset k only"),
]

ALTERNATIVES = [
    alternative("sinusoidal_positions", "double loop with math", """
        import math
        P = np.empty((L, d))
        for l in range(L):
            for i in range(d // 2):
                angle = l / 10000 ** (2 * i / d)
                P[l, 2 * i] = math.sin(angle)
                P[l, 2 * i + 1] = math.cos(angle)
        return P
    """),
    alternative("sinusoidal_positions", "stack and reshape, exp/log frequencies", """
        angles = np.outer(np.arange(L), np.exp(-np.log(10000.0) * np.arange(0, d, 2) / d))
        return np.stack([np.sin(angles), np.cos(angles)], axis=-1).reshape(L, d)
    """),
    alternative("sinusoidal_positions", "as a nested list", """
        return [[float(np.sin(l * 10000.0 ** (-(j - j % 2) / d))) if j % 2 == 0
                 else float(np.cos(l * 10000.0 ** (-(j - j % 2) / d))) for j in range(d)]
                for l in range(L)]
    """),
    alternative("embed", "loop over tokens", """
        X = np.zeros((len(token_ids), E.shape[1]))
        for l, t in enumerate(token_ids):
            X[l] = E[t] + P[l]
        return X
    """),
    alternative("embed", "one-hot matrix product", """
        one_hot = np.eye(E.shape[0])[token_ids]
        return one_hot @ E + P[:one_hot.shape[0]]
    """),
    alternative("shift_matrix", "rotation blocks written with np.block per pair via kron", """
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        M = np.zeros((d, d))
        M[0::2, 0::2] = np.diag(np.cos(k * w))
        M[0::2, 1::2] = np.diag(np.sin(k * w))
        M[1::2, 0::2] = np.diag(-np.sin(k * w))
        M[1::2, 1::2] = np.diag(np.cos(k * w))
        return M
    """),
    alternative("shift_matrix", "matrix power of the one-step shift", """
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        step = np.zeros((d, d))
        for i in range(d // 2):
            c, s = np.cos(w[i]), np.sin(w[i])
            step[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[c, s], [-s, c]]
        return np.linalg.matrix_power(step, int(k))
    """),
    alternative("answer_offset", "lower case with spaces", 'answer_offset = " c "'),
]
