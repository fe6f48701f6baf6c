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
    # --- added in the adversarial review -------------------------------------------------
    # sinusoidal_positions
    mistake("sinusoidal_positions", "step of 2 counted twice (exponent 4i/d)", """
        l = np.arange(L)[:, None]
        i = np.arange(0, d, 2)
        w = 1.0 / 10000.0 ** (2 * i / d)
        P = np.zeros((L, d))
        P[:, 0::2] = np.sin(l * w)
        P[:, 1::2] = np.cos(l * w)
        return P
    """, hint="already gives 2i"),
    mistake("sinusoidal_positions", "integer division in the exponent", """
        l = np.arange(L)[:, None]
        i = np.arange(d // 2)
        w = 10000.0 ** (-2 * i // d)
        P = np.zeros((L, d))
        P[:, 0::2] = np.sin(l * w)
        P[:, 1::2] = np.cos(l * w)
        return P
    """, hint="10000 ** (-2 * i / d)"),
    mistake("sinusoidal_positions", "table transposed (d, L)", """
        l = np.arange(L)[None, :]
        w = 10000.0 ** (-np.arange(0, d, 2) / d)[:, None]
        P = np.zeros((d, L))
        P[0::2] = np.sin(w * l)
        P[1::2] = np.cos(w * l)
        return P
    """, hint="one row per position"),
    mistake("sinusoidal_positions", "sin in every column", """
        l = np.arange(L)[:, None]
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        P = np.zeros((L, d))
        P[:, 0::2] = np.sin(l * w)
        P[:, 1::2] = np.sin(l * w)
        return P
    """, hint="sin(0) = 0 and cos(0) = 1"),
    mistake("sinusoidal_positions", "one frequency per feature (w of length d)", """
        l = np.arange(L)[:, None]
        w = 10000.0 ** (-np.arange(d) / d)
        P = np.zeros((L, d))
        P[:, 0::2] = np.sin(l * w)
        P[:, 1::2] = np.cos(l * w)
        return P
    """, hint="one frequency per PAIR"),
    mistake("sinusoidal_positions", "built in float32", """
        l = np.arange(L, dtype=np.float32)[:, None]
        w = (10000.0 ** (-np.arange(0, d, 2) / d)).astype(np.float32)
        P = np.zeros((L, d), dtype=np.float32)
        P[:, 0::2] = np.sin(l * w)
        P[:, 1::2] = np.cos(l * w)
        return P
    """, hint="float64"),
    mistake("sinusoidal_positions", "base 1000 instead of 10000", """
        l = np.arange(L)[:, None]
        w = 1000.0 ** (-np.arange(0, d, 2) / d)
        P = np.zeros((L, d))
        P[:, 0::2] = np.sin(l * w)
        P[:, 1::2] = np.cos(l * w)
        return P
    """, hint="10000 ** (-2 * i / d)"),
    mistake("sinusoidal_positions", "angle divided by w instead of multiplied", """
        l = np.arange(L)[:, None]
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        P = np.zeros((L, d))
        P[:, 0::2] = np.sin(l / w)
        P[:, 1::2] = np.cos(l / w)
        return P
    """, hint="with a minus sign"),
    mistake("sinusoidal_positions", "positions normalised to [0, 1) (l / L)", """
        l = (np.arange(L) / L)[:, None]
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        P = np.zeros((L, d))
        P[:, 0::2] = np.sin(l * w)
        P[:, 1::2] = np.cos(l * w)
        return P
    """, hint="row l is position l"),
    mistake("sinusoidal_positions", "L instead of d in the exponent", """
        l = np.arange(L)[:, None]
        w = 10000.0 ** (-np.arange(0, d, 2) / L)
        P = np.zeros((L, d))
        P[:, 0::2] = np.sin(l * w)
        P[:, 1::2] = np.cos(l * w)
        return P
    """, hint="10000 ** (-2 * i / d)"),
    # embed
    mistake("embed", "E indexed by position instead of token id", """
        L = len(token_ids)
        return E[:L] + P[:L]
    """, hint="E[token_ids]"),
    mistake("embed", "one position row P[L] added to every token", """
        L = len(token_ids)
        return E[token_ids] + P[L]
    """, hint="P[:L] (a slice)"),
    mistake("embed", "the last L rows of P", """
        L = len(token_ids)
        return E[token_ids] + P[-L:]
    """, hint="first L rows"),
    mistake("embed", "multiplied instead of added", """
        L = len(token_ids)
        return E[token_ids] * P[:L]
    """, hint="x_l = E[w_l] + p_l"),
    mistake("embed", "adds into P in place (P[:L] is a view)", """
        X = P[:len(token_ids)]
        X += E[token_ids]
        return X
    """, hint="in place"),
    mistake("embed", "adds into E in place", """
        for l, t in enumerate(token_ids):
            E[t] += P[l]
        return E[token_ids]
    """, hint="in place"),
    mistake("embed", "P indexed by the token ids, clipped to the table", """
        return E[token_ids] + P[np.minimum(token_ids, len(P) - 1)]
    """, hint="not P[token_ids]"),
    mistake("embed", "token embedding columns (E[:, ids])", """
        L = len(token_ids)
        return E[:, token_ids].T + P[:L]
    """, hint="row of E"),
    mistake("embed", "token ids treated as 1-based", """
        L = len(token_ids)
        return E[np.asarray(token_ids) - 1] + P[:L]
    """, hint="ids count from 0"),
    # shift_matrix
    mistake("shift_matrix", "minus sign missing in the block", """
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        M = np.zeros((d, d))
        for i in range(d // 2):
            c, s = np.cos(k * w[i]), np.sin(k * w[i])
            M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[c, s], [s, c]]
        return M
    """, hint="[[cos kw, sin kw], [-sin kw, cos kw]]"),
    mistake("shift_matrix", "sin and cos swapped in the block", """
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        M = np.zeros((d, d))
        for i in range(d // 2):
            c, s = np.cos(k * w[i]), np.sin(k * w[i])
            M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[s, c], [-c, s]]
        return M
    """, hint="[[cos kw, sin kw], [-sin kw, cos kw]]"),
    mistake("shift_matrix", "blocks at [i:i+2] overlap", """
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        M = np.zeros((d, d))
        for i in range(d // 2):
            c, s = np.cos(k * w[i]), np.sin(k * w[i])
            M[i:i + 2, i:i + 2] = [[c, s], [-s, c]]
        return M
    """, hint="M[2*i:2*i+2, 2*i:2*i+2]"),
    mistake("shift_matrix", "step of 2 counted twice (exponent 4i/d)", """
        w = 10000.0 ** (-2 * np.arange(0, d, 2) / d)
        M = np.zeros((d, d))
        for i in range(d // 2):
            c, s = np.cos(k * w[i]), np.sin(k * w[i])
            M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[c, s], [-s, c]]
        return M
    """, hint="already gives 2i"),
    mistake("shift_matrix", "frequency picked by the feature index j", """
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        M = np.zeros((d, d))
        for j in range(0, d, 2):
            a = k * w[j // 2] if j == 0 else k * 10000.0 ** (-(j + 1) / d)
            M[j:j + 2, j:j + 2] = [[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]]
        return M
    """, hint="10000 ** (-2 * i / d)"),
    mistake("shift_matrix", "identity whatever k is (angle k * 0)", """
        return np.eye(d)
    """, hint="use k"),
    mistake("shift_matrix", "shift by -k (negated angle)", """
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        M = np.zeros((d, d))
        for i in range(d // 2):
            c, s = np.cos(-k * w[i]), np.sin(-k * w[i])
            M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[c, s], [-s, c]]
        return M
    """, hint="p_(l-k)"),
    # concept checks
    mistake("answer_bag_of_words", "thinks nearer words weigh more",
            'answer_bag_of_words = "B"', hint="same set of keys"),
    mistake("answer_position_signal", "thinks the mask already gives positions",
            'answer_position_signal = "B"', hint="carry no location"),
    mistake("answer_fast_pair", "thinks the last pair is fastest", 'answer_fast_pair = "A"',
            hint="pair 0 turns fastest"),
    mistake("answer_same_token", "thinks embeddings ignore position", 'answer_same_token = "A"',
            hint="p_0 and p_2 differ"),
    mistake("answer_offset", "thinks similarity depends on l", 'answer_offset = "C"',
            hint="offset k only"),
    # --- round 2: computing in float32 is judged at float32 precision, but still caught --
    mistake("embed", "float32 and the positions starting at 1", """
        import torch
        X = torch.Tensor(E[token_ids]) + torch.Tensor(P[1:len(token_ids) + 1])
        return X
    """, hint="P[:L]"),
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
    # --- added in the adversarial review -------------------------------------------------
    alternative("sinusoidal_positions", "loop over even features j with 10000^(-j/d)", """
        P = np.zeros((L, d))
        for j in range(0, d, 2):
            angle = np.arange(L) * 10000.0 ** (-j / d)
            P[:, j] = np.sin(angle)
            P[:, j + 1] = np.cos(angle)
        return P
    """),
    alternative("sinusoidal_positions", "through torch, back to float64 numpy", """
        import torch
        pos = torch.arange(L, dtype=torch.float64)[:, None]
        div = torch.exp(torch.arange(0, d, 2, dtype=torch.float64) * (-np.log(10000.0) / d))
        P = torch.zeros(L, d, dtype=torch.float64)
        P[:, 0::2] = torch.sin(pos * div)
        P[:, 1::2] = torch.cos(pos * div)
        return P.numpy()
    """),
    alternative("sinusoidal_positions", "cos as a shifted sine", """
        angles = np.arange(L)[:, None] * 10000.0 ** (-np.arange(0, d, 2) / d)
        phase = np.tile([0.0, np.pi / 2], d // 2)
        return np.sin(np.repeat(angles, 2, axis=1) + phase)
    """),
    alternative("embed", "np.take and a copy added in place", """
        X = np.take(E, token_ids, axis=0).astype(np.float64)
        X += P[:X.shape[0]]
        return X
    """),
    alternative("embed", "list comprehension", """
        return np.array([E[t] + P[l] for l, t in enumerate(token_ids)]).reshape(-1, E.shape[1])
    """),
    alternative("embed", "torch embedding lookup", """
        import torch
        ids = torch.as_tensor(np.asarray(token_ids, dtype=np.int64))
        X = torch.nn.functional.embedding(ids, torch.as_tensor(E))
        return (X + torch.as_tensor(P)[:len(ids)]).numpy()
    """),
    alternative("shift_matrix", "kron of a one-hot diagonal with each block", """
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        M = np.zeros((d, d))
        for i, wi in enumerate(w):
            block = np.array([[np.cos(k * wi), np.sin(k * wi)], [-np.sin(k * wi), np.cos(k * wi)]])
            corner = np.zeros((d // 2, d // 2))
            corner[i, i] = 1.0
            M += np.kron(corner, block)
        return M
    """),
    alternative("shift_matrix", "solved from two position tables", """
        l = np.arange(d)[:, None]
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        M = np.zeros((d, d))
        for i in range(d // 2):
            now = np.stack([np.sin(l[:2, 0] * w[i]), np.cos(l[:2, 0] * w[i])])
            later = np.stack([np.sin((l[:2, 0] + k) * w[i]), np.cos((l[:2, 0] + k) * w[i])])
            M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = later @ np.linalg.inv(now)
        return M
    """),
    alternative("shift_matrix", "loop over even feature index j with 10000^(-j/d)", """
        M = np.eye(d)
        for j in range(0, d, 2):
            a = k * 10000.0 ** (-j / d)
            M[j, j], M[j, j + 1] = np.cos(a), np.sin(a)
            M[j + 1, j], M[j + 1, j + 1] = -np.sin(a), np.cos(a)
        return M
    """),
    alternative("answer_offset", "lower case with spaces", 'answer_offset = " b "'),
    # --- round 2: more correct answers written other ways --------------------------------
    # sinusoidal_positions
    alternative("sinusoidal_positions", "np.fromfunction with a parity test", """
        def table(l, j):
            angle = l * 10000.0 ** (-(j - j % 2) / d)
            return np.where(j % 2 == 0, np.sin(angle), np.cos(angle))
        return np.fromfunction(table, (L, d), dtype=np.float64)
    """),
    alternative("sinusoidal_positions", "torch float64 tensor returned as it is", """
        import torch
        l = torch.arange(L, dtype=torch.float64)[:, None]
        w = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
        return torch.stack([torch.sin(l * w), torch.cos(l * w)], dim=-1).reshape(L, d)
    """),
    alternative("sinusoidal_positions", "columns collected pair by pair", """
        l = np.arange(L)
        columns = []
        for i in range(d // 2):
            w_i = 1.0 / np.power(10000.0, 2 * i / d)
            columns += [np.sin(l * w_i), np.cos(l * w_i)]
        return np.column_stack(columns)
    """),
    alternative("sinusoidal_positions", "repeated frequencies and np.where on the parity", """
        j = np.arange(d)
        angles = np.arange(L)[:, None] / 10000 ** (2 * (j // 2) / d)  # (L, d)
        return np.where(j % 2 == 0, np.sin(angles), np.cos(angles))
    """),
    alternative("sinusoidal_positions", "complex exponentials", """
        z = np.exp(1j * np.outer(np.arange(L), 10000.0 ** (-np.arange(0, d, 2) / d)))
        P = np.empty((L, d))
        P[:, 0::2], P[:, 1::2] = z.imag, z.real
        return P
    """),
    alternative("sinusoidal_positions", "built as (d, L) and returned transposed, read-only", """
        P = np.zeros((d, L))
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        P[0::2] = np.sin(w[:, None] * np.arange(L))
        P[1::2] = np.cos(w[:, None] * np.arange(L))
        P = P.T
        P.setflags(write=False)
        return P
    """),
    alternative("sinusoidal_positions", "row by row with the one-step rotation", """
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        c, s = np.cos(w), np.sin(w)
        P = np.zeros((L, d))
        P[:1, 1::2] = 1.0
        for l in range(1, L):  # sin((l+1)w) and cos((l+1)w) from the angle-addition rules
            sin_prev, cos_prev = P[l - 1, 0::2], P[l - 1, 1::2]
            P[l, 0::2] = sin_prev * c + cos_prev * s
            P[l, 1::2] = cos_prev * c - sin_prev * s
        return P
    """),
    # embed
    alternative("embed", "np.add of fancy-indexed rows", """
        return np.add(E[token_ids, :], P[np.arange(len(token_ids))])
    """),
    alternative("embed", "einsum over a boolean one-hot", """
        one_hot = token_ids[:, None] == np.arange(E.shape[0])[None, :]  # (L, V) booleans
        return np.einsum("lv,vd->ld", one_hot, E) + P[:len(token_ids)]
    """),
    alternative("embed", "torch nn.Embedding.from_pretrained, tensor returned", """
        import torch
        table = torch.nn.Embedding.from_pretrained(torch.from_numpy(E))
        ids = torch.as_tensor(token_ids, dtype=torch.long)
        return table(ids) + torch.from_numpy(P[:len(ids)])
    """),
    alternative("embed", "vstack of rows plus P sliced by the shape", """
        rows = np.vstack([E[int(t)] for t in token_ids])
        return rows + P[:token_ids.shape[0]]
    """),
    alternative("embed", "accumulated into zeros in place", """
        L, d = len(token_ids), E.shape[1]
        X = np.zeros((L, d))
        X += E[token_ids]
        X += P[:L]
        return X
    """),
    alternative("embed", "sum over a stacked pair, read-only", """
        X = np.stack([E[list(map(int, token_ids))], P[:len(token_ids)]]).sum(axis=0)
        X.flags.writeable = False
        return X
    """),
    # shift_matrix
    alternative("shift_matrix", "np.block of 2 x 2 blocks", """
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        n = d // 2
        rows = []
        for r in range(n):
            row = []
            for c in range(n):
                a = k * w[r]
                row.append(np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]])
                           if r == c else np.zeros((2, 2)))
            rows.append(row)
        return np.block(rows)
    """),
    alternative("shift_matrix", "three diagonals with np.diag", """
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        c, s = np.cos(k * w), np.sin(k * w)
        upper = np.zeros(d - 1)
        upper[0::2] = s
        return np.diag(np.repeat(c, 2)) + np.diag(upper, 1) - np.diag(upper, -1)
    """),
    alternative("shift_matrix", "torch.block_diag, float64 tensor returned", """
        import torch
        w = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
        c, s = torch.cos(k * w), torch.sin(k * w)
        return torch.block_diag(*[torch.stack([torch.stack([c[i], s[i]]),
                                               torch.stack([-s[i], c[i]])])
                                  for i in range(d // 2)])
    """),
    alternative("shift_matrix", "transpose of counterclockwise rotations", """
        M = np.zeros((d, d))
        for i in range(d // 2):
            a = k * 10000.0 ** (-2 * i / d)
            R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
            M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = R.T
        return M
    """),
    alternative("shift_matrix", "fancy indexing with even and odd index arrays", """
        even = np.arange(0, d, 2)
        odd = even + 1
        a = np.mod(k * 10000.0 ** (-even / d), 2 * np.pi)  # angles wrapped to [0, 2 pi)
        M = np.zeros((d, d))
        M[even, even], M[even, odd] = np.cos(a), np.sin(a)
        M[odd, even], M[odd, odd] = -np.sin(a), np.cos(a)
        return M
    """),
    alternative("shift_matrix", "torch.linalg.matrix_exp of the generator", """
        import torch
        G = torch.zeros(d, d, dtype=torch.float64)
        for i in range(d // 2):
            w_i = 10000.0 ** (-2 * i / d)
            G[2 * i, 2 * i + 1], G[2 * i + 1, 2 * i] = w_i, -w_i
        return torch.linalg.matrix_exp(float(k) * G).numpy()
    """),
    alternative("shift_matrix", "complex numbers for each block", """
        z = np.exp(1j * k * 10000.0 ** (-np.arange(0, d, 2) / d))
        M = np.zeros((d, d))
        for i, zi in enumerate(z):
            M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[zi.real, zi.imag], [-zi.imag, zi.real]]
        return M
    """),
    alternative("embed", "float32 torch nn.Embedding (its default dtype)", """
        import torch
        table = torch.nn.Embedding(E.shape[0], E.shape[1])
        with torch.no_grad():
            table.weight.copy_(torch.from_numpy(E))
        ids = torch.as_tensor(token_ids, dtype=torch.long)
        return table(ids) + torch.Tensor(P[:len(ids)])
    """),
]

# --- round 3: more realistic slips -----------------------------------------------------
_TABLE = """
    l = {l}
    w = {w}
    P = np.zeros((L, d))
    P[:, 0::2] = {sin}
    P[:, 1::2] = {cos}
    return P
"""


def _table(l="np.arange(L, dtype=np.float64)[:, None]", w="10000.0 ** (-np.arange(0, d, 2) / d)",
           sin="np.sin(l * w)", cos="np.cos(l * w)"):
    return _TABLE.format(l=l, w=w, sin=sin, cos=cos)


_SHIFT = """
    w = {w}
    M = np.zeros({shape}{dtype})
    for i in range({pairs}):
        a = {angle}
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]]
    return M
"""


def _shift(w="10000.0 ** (-np.arange(0, d, 2) / d)", shape="(d, d)", dtype="",
           pairs="d // 2", angle="k * w[i]"):
    return _SHIFT.format(w=w, shape=shape, dtype=dtype, pairs=pairs, angle=angle)


MISTAKES += [
    # sinusoidal_positions
    mistake("sinusoidal_positions", "hard-coded d = 4 (the lecture's curves)",
            _table(w="10000.0 ** (-np.arange(0, 4, 2) / d)"), hint="never the worked example's"),
    mistake("sinusoidal_positions", "loop over range(L - 1) leaves the last row zero", """
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        P = np.zeros((L, d))
        for l in range(L - 1):
            P[l, 0::2], P[l, 1::2] = np.sin(l * w), np.cos(l * w)
        return P
    """, hint="every position"),
    mistake("sinusoidal_positions", "loop over range(d // 2 - 1) leaves the last pair zero", """
        P = np.zeros((L, d))
        l = np.arange(L)
        for i in range(d // 2 - 1):
            w = 10000.0 ** (-2 * i / d)
            P[:, 2 * i], P[:, 2 * i + 1] = np.sin(l * w), np.cos(l * w)
        return P
    """, hint="every pair"),
    mistake("sinusoidal_positions", "missing parentheses: 1 / 10000 ** (2i) / d",
            _table(w="1 / 10000.0 ** np.arange(0, d, 2) / d"), hint="parentheses"),
    mistake("sinusoidal_positions", "positions from np.linspace(0, L, L)",
            _table(l="np.linspace(0, L, L)[:, None]"), hint="np.arange(L)"),
    mistake("sinusoidal_positions", "sin(l) * w instead of sin(l * w)",
            _table(sin="np.sin(l) * w", cos="np.cos(l) * w"), hint="np.sin(l * w)"),
    mistake("sinusoidal_positions", "angles built (d/2, L) and transposed on assignment", """
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        angles = w[:, None] * np.arange(L)[None, :]
        P = np.zeros((L, d))
        P[:, 0::2], P[:, 1::2] = np.sin(angles), np.cos(angles)
        return P
    """, hint="(L, d/2)"),
    # embed
    mistake("embed", "hard-coded 3 positions (the worked example's length)", """
        return E[token_ids] + P[:3]
    """, hint="P[:L]"),
    mistake("embed", "one position row too few (P[:L - 1])", """
        return E[token_ids] + P[:len(token_ids) - 1]
    """, hint="P[:L]"),
    mistake("embed", "P sliced by the vocabulary size", """
        return E[token_ids] + P[:E.shape[0]]
    """, hint="P[:L]"),
    mistake("embed", "embedding scaled by sqrt(d)", """
        return E[token_ids] * np.sqrt(E.shape[1]) + P[:len(token_ids)]
    """, hint="no sqrt(d) scaling"),
    mistake("embed", "embedding and position averaged", """
        return (E[token_ids] + P[:len(token_ids)]) / 2
    """, hint="do not average"),
    mistake("embed", "position subtracted", """
        return E[token_ids] - P[:len(token_ids)]
    """, hint="add the position vector"),
    mistake("embed", "its own sinusoidal table instead of the argument P", """
        return E[token_ids] + sinusoidal_positions(len(token_ids), E.shape[1])
    """, hint="use the P you are given"),
    # shift_matrix
    mistake("shift_matrix", "loop over range(d // 2 - 1) leaves the last block zero",
            _shift(pairs="d // 2 - 1"), hint="every pair"),
    mistake("shift_matrix", "integer matrix (np.zeros(..., dtype=int))",
            _shift(dtype=", dtype=int"), hint="float"),
    mistake("shift_matrix", "positive exponent", _shift(w="10000.0 ** (np.arange(0, d, 2) / d)"),
            hint="minus sign"),
    mistake("shift_matrix", "shift by k + 1", _shift(angle="(k + 1) * w[i]"), hint="not (k + 1)"),
    mistake("shift_matrix", "hard-coded 4 x 4 (the worked example's d)", _shift(shape="(4, 4)",
            pairs="2"), hint="not the worked example's"),
]
