"""Notebook 02's mistake catalogue, one section per graded function (see grader/catalogue.py)."""

from grader.catalogue import alternative, catalogue, delete, edit, explained, mistake, replace_line

from attnbook.checks import nb02

WHY = explained("02_positions")  # detects=WHY: the question's explanation

TABLE, EMBED, SHIFT = "sinusoidal_positions", "embed", "shift_matrix"

# hints that several entries give
HINT_POSITIVE_EXPONENT_10000 = "the frequencies shrink: w_i = 10000 ** (-2i/d), with a minus sign"
HINT_STEP_TWICE = ("np.arange(0, d, 2) already gives 2i (0, 2, 4, ...): do not multiply it by 2 "
                   "again; w_i = 10000 ** (-2 * i / d) with i = 0 .. d/2 - 1")
HINT_LAST_PAIR_LEFT_ZERO = "fill every pair i = 0 .. d/2-1, the last included: range(d // 2)"
HINT_EMBED_FROM_1 = "the first token sits at position 0: add P[:L], not P[1:L+1]"
HINT_SHIFT_USE_K = "the angle of pair i is k * w_i: use k"
HINT_EXPONENT_LINSPACE = ("the exponents 2i/d stop at (d-2)/d, short of 1: use "
                          "np.arange(0, d, 2) / d, not np.linspace(0, 1, d // 2), which ends at 1")
HINT_EXPONENT_PARENTHESES = ("put the whole exponent in parentheses: 10000 ** (-2 * i / d); ** "
                             "binds before / and *")


MISTAKES, ALTERNATIVES = catalogue([
    # -- sinusoidal_positions ----------------------------------------------------------------------
    mistake(TABLE, "exponent i/d instead of 2i/d", [edit("1, L + 1", "L"), edit("0, d,", "d //")],
            detects=nb02.HINT_PAIR_EXPONENT, like="positions starting at 1"),
    mistake(TABLE, "frequency taken from the feature index j (10000^(-j/d)) for cos as well", """
        P = np.zeros((L, d))
        for l in range(L):
            for j in range(d):
                w = 10000.0 ** (-j / d)
                P[l, j] = np.sin(l * w) if j % 2 == 0 else np.cos(l * w)
        return P""", detects=nb02.HINT_PAIR_EXPONENT),
    mistake(TABLE, "sin and cos swapped", edit("0::2] = np.sin", "0::2] = np.cos"),
            hint="sin goes in the even features 2i and cos in the odd features 2i+1",
            like="sin in every column"),
    mistake(TABLE, "sin and cos in two halves instead of interleaved",
            [edit("0::2", ":d // 2"), edit("1::2", "d // 2:")],
            hint="interleave the pairs: P[:, 0::2] = sin, P[:, 1::2] = cos (not all sines first, "
                 "then all cosines)"),
    mistake(TABLE, "positions starting at 1", edit("L, dtype=np.float64", "1, L + 1"),
            hint="positions start at 0: row 0 is p_0 = [0, 1, 0, 1, ...], use np.arange(L)"),
    mistake(TABLE, "positive exponent (10000^(+2i/d))",
            [edit(", dtype=np.float64", ""), edit("-", "")], hint=HINT_POSITIVE_EXPONENT_10000),
    mistake(TABLE, "exponent 4i/d: the step of 2 counted twice", [
        replace_line("w = 10000.0 ** (np.arange(0, d, 2) / d)",
                     "i = np.arange(0, d, 2)\nw = 1.0 / 10000.0 ** (2 * i / d)"),
    ], hint=HINT_STEP_TWICE, like="positive exponent (10000^(+2i/d))"),
    mistake(TABLE, "exponents spread with np.linspace(0, 1, d // 2) (the last one 1, not (d-2)/d)",
            edit("-np.arange(0, d, 2) / d", "-np.linspace(0, 1, d // 2)"),
            hint=HINT_EXPONENT_LINSPACE),
    mistake(TABLE, "table transposed (d, L)", [
        edit(", dtype=np.float64)[:, None", ")[None, :"), edit("/ d)", "/ d)[:, None]"),
        edit("L, d", "d, L"), edit(":, 0::2] = np.sin(l * w", "0::2] = np.sin(w * l"),
        edit(":, 1::2] = np.cos(l * w", "1::2] = np.cos(w * l"),
    ], detects=nb02.HINT_ONE_ROW_PER_POSITION),
    mistake(TABLE, "sin in every column", [edit("1, L + 1", "L"), edit("np.cos", "np.sin")],
            detects=nb02.HINT_FIRST_ROW, like="positions starting at 1"),
    mistake(TABLE, "one frequency per feature (w of length d)", edit("d // 2", "d"),
            detects=nb02.HINT_FREQUENCY_PER_PAIR, like="exponent i/d instead of 2i/d"),
    mistake(TABLE, "built in float32", [
        edit("np.float64", "np.float32"),
        edit("10000.0 ** (-np.arange(0, d, 2) / d",
             "(10000.0 ** (-np.arange(0, d, 2) / d)).astype(np.float32"),
        edit(", d)", ", d), dtype=np.float32")], detects=nb02.HINT_TABLE_FLOAT64),
    mistake(TABLE, "base 1000 instead of 10000", edit("10000.0 ** (", "1000.0 ** (-"),
            detects=nb02.HINT_PAIR_EXPONENT, like="positive exponent (10000^(+2i/d))"),
    mistake(TABLE, "positions normalised to [0, 1) (l / L)",
            edit("np.arange(L, dtype=np.float64", "(np.arange(L) / L"),
            detects=nb02.HINT_FIRST_COLUMNS),
    mistake(TABLE, "L instead of d in the exponent", edit("d // 2) / d", "0, d, 2) / L"),
            detects=nb02.HINT_PAIR_EXPONENT, like="exponent i/d instead of 2i/d"),
    mistake(TABLE, "hard-coded d = 4 (the lecture's curves)", edit("d,", "4,"),
            detects=nb02.HINT_FREQUENCY_PER_PAIR),
    mistake(TABLE, "the last position row left zero (a loop over range(L - 1))", """
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        P = np.zeros((L, d))
        for l in range(L - 1):
            P[l, 0::2], P[l, 1::2] = np.sin(l * w), np.cos(l * w)
        return P""", hint="fill every position l = 0 .. L-1, the last included: range(L)"),
    mistake(TABLE, "the last pair left zero (a loop over range(d // 2 - 1))", """
        P = np.zeros((L, d))
        l = np.arange(L)
        for i in range(d // 2 - 1):
            w = 10000.0 ** (-2 * i / d)
            P[:, 2 * i], P[:, 2 * i + 1] = np.sin(l * w), np.cos(l * w)
        return P""", hint=HINT_LAST_PAIR_LEFT_ZERO),
    mistake(TABLE, "missing parentheses: 1 / 10000 ** (2i) / d",
            edit("10000.0 ** (-np.arange(0, d, 2) / d)", "1 / 10000.0 ** np.arange(0, d, 2) / d"),
            hint=HINT_EXPONENT_PARENTHESES),
    mistake(TABLE, "positions from np.linspace(0, L, L)",
            edit("np.arange(L, dtype=np.float64", "np.linspace(0, L, L"),
            hint="the positions are the whole numbers 0, 1, ..., L-1: np.arange(L), not "
                 "np.linspace(0, L, L)"),
    mistake(TABLE, "sin(l) * w instead of sin(l * w)", edit("l * w)", "l) * w", count=2),
            hint="take sin and cos of the angle l * w_i: np.sin(l * w), not np.sin(l) * w"),
    alternative(TABLE, "double loop with math", [
        replace_line("P = np.zeros((L, d))", "import math\nP = np.empty((L, d))"),
        edit("j in range(d", "i in range(d // 2"),
        edit("w = 10000.0 ** (-j", "angle = l / 10000 ** (2 * i"),
        replace_line("P[l, j] = np.sin(l * w) if j % 2 == 0 else np.cos(l * w)",
                     "P[l, 2 * i] = math.sin(angle)\nP[l, 2 * i + 1] = math.cos(angle)"),
    ], like="frequency taken from the feature index j (10000^(-j/d)) for cos as well"),
    alternative(TABLE, "stack and reshape, exp/log frequencies", """
        angles = np.outer(np.arange(L), np.exp(-np.log(10000.0) * np.arange(0, d, 2) / d))
        return np.stack([np.sin(angles), np.cos(angles)], axis=-1).reshape(L, d)"""),
    alternative(TABLE, "as a nested list", """
        return [[float(np.sin(l * 10000.0 ** (-(j - j % 2) / d))) if j % 2 == 0
                 else float(np.cos(l * 10000.0 ** (-(j - j % 2) / d))) for j in range(d)]
                for l in range(L)]"""),
    alternative(TABLE, "loop over even features j with 10000^(-j/d)", """
        P = np.zeros((L, d))
        for j in range(0, d, 2):
            angle = np.arange(L) * 10000.0 ** (-j / d)
            P[:, j] = np.sin(angle)
            P[:, j + 1] = np.cos(angle)
        return P"""),
    alternative(TABLE, "through torch, back to float64 numpy", """
        import torch
        pos = torch.arange(L, dtype=torch.float64)[:, None]
        div = torch.exp(torch.arange(0, d, 2, dtype=torch.float64) * (-np.log(10000.0) / d))
        P = torch.zeros(L, d, dtype=torch.float64)
        P[:, 0::2] = torch.sin(pos * div)
        P[:, 1::2] = torch.cos(pos * div)
        return P.numpy()"""),
    alternative(TABLE, "cos as a shifted sine", """
        angles = np.arange(L)[:, None] * 10000.0 ** (-np.arange(0, d, 2) / d)
        phase = np.tile([0.0, np.pi / 2], d // 2)
        return np.sin(np.repeat(angles, 2, axis=1) + phase)"""),
    alternative(TABLE, "torch float64 tensor returned as it is", """
        import torch
        l = torch.arange(L, dtype=torch.float64)[:, None]
        w = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
        return torch.stack([torch.sin(l * w), torch.cos(l * w)], dim=-1).reshape(L, d)"""),
    alternative(TABLE, "torch float32 as the Annotated Transformer writes it, cast to float64", """
        import math
        import torch
        pe = torch.zeros(L, d)
        position = torch.arange(0, L).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d, 2) * -(math.log(10000.0) / d))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        return pe.double()"""),
    alternative(TABLE, "repeated frequencies and np.where on the parity", """
        j = np.arange(d)
        angles = np.arange(L)[:, None] / 10000 ** (2 * (j // 2) / d)  # (L, d)
        return np.where(j % 2 == 0, np.sin(angles), np.cos(angles))"""),
    alternative(TABLE, "complex exponentials", """
        z = np.exp(1j * np.outer(np.arange(L), 10000.0 ** (-np.arange(0, d, 2) / d)))
        P = np.empty((L, d))
        P[:, 0::2], P[:, 1::2] = z.imag, z.real
        return P"""),
    alternative(TABLE, "built as (d, L) and returned transposed, read-only", [
        edit("l = np.arange(L)[:, None]", "P = np.zeros((d, L))"), edit("d //", "0, d,"),
        edit("P = np.zeros((L, d", "P[0::2] = np.sin(w[:, None] * np.arange(L"),
        edit(":, 0::2] = np.sin(l * w", "1::2] = np.cos(w[:, None] * np.arange(L)"),
        replace_line("P[:, 1::2] = np.cos(l * w)", "P = P.T\nP.setflags(write=False)"),
    ], like="exponent i/d instead of 2i/d"),
    alternative(TABLE, "row by row with the one-step rotation", """
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        c, s = np.cos(w), np.sin(w)
        P = np.zeros((L, d))
        P[:1, 1::2] = 1.0
        for l in range(1, L):  # sin((l+1)w) and cos((l+1)w) from the angle-addition rules
            sin_prev, cos_prev = P[l - 1, 0::2], P[l - 1, 1::2]
            P[l, 0::2] = sin_prev * c + cos_prev * s
            P[l, 1::2] = cos_prev * c - sin_prev * s
        return P"""),
    # -- embed -------------------------------------------------------------------------------------
    mistake(EMBED, "positions not added", "return E[token_ids]",
            hint="x_l = E[w_l] + p_l: add row l of P to each embedding row"),
    mistake(EMBED, "the whole table P added", "return E[token_ids] + P",
            detects=nb02.HINT_EMBED_SHAPES),
    mistake(EMBED, "P indexed by the token ids instead of the positions",
            "return E[token_ids] + P[token_ids]",
            hint="the position vector of token number l is P[l], whatever the token is: add P[:L], "
                 "not P[token_ids]"),
    mistake(EMBED, "positions starting at 1", edit(":L", "1:L + 1"), hint=HINT_EMBED_FROM_1),
    mistake(EMBED, "embedding and position concatenated", """
        L = len(token_ids)
        return np.concatenate([E[token_ids], P[:L]], axis=1)""", detects=nb02.HINT_EMBED_SHAPE),
    mistake(EMBED, "E indexed by the positions 0 .. L-1 instead of the token ids",
            edit("[token_ids", "[:L"),
            hint="the row of E is chosen by the token id: E[token_ids], not E[:L]"),
    mistake(EMBED, "one position row P[L] added to every token", edit(":", ""),
            hint="each token gets its own position: add P[:L] (a slice), not P[L] (one row)"),
    mistake(EMBED, "the last L rows of P", edit(":L", "-L:"),
            hint="use the first L rows of P, P[:L], not P[-L:]"),
    mistake(EMBED, "embedding multiplied by the position instead of added", edit("+", "*"),
            hint="x_l = E[w_l] + p_l: add the position vector, do not multiply"),
    mistake(EMBED, "adds into P in place (P[:L] is a view)", [
        replace_line("return E[token_ids]", "X = P[:len(token_ids)]\nX += E[token_ids]\nreturn X"),
    ], detects=nb02.HINT_EMBED_IN_PLACE, like="positions not added"),
    mistake(EMBED, "token ids shifted by one (E[token_ids - 1])",
            edit("[token_ids", "[np.asarray(token_ids) - 1"),
            hint="token id t selects row t of E (ids count from 0): E[token_ids]"),
    mistake(EMBED, "float32 and the positions starting at 1", """
        import torch
        X = torch.Tensor(E[token_ids]) + torch.Tensor(P[1:len(token_ids) + 1])
        return X""", hint=HINT_EMBED_FROM_1),
    mistake(EMBED, "hard-coded 3 positions (the worked example's length)",
            "return E[token_ids] + P[:3]", detects=nb02.HINT_EMBED_SHAPES),
    mistake(EMBED, "embedding scaled by sqrt(d)", edit("-", "* np.sqrt(E.shape[1]) +"),
            hint="x_l = E[w_l] + p_l exactly: no sqrt(d) scaling in this workbook",
            like="position subtracted"),
    mistake(EMBED, "embedding and position averaged",
            "return (E[token_ids] + P[:len(token_ids)]) / 2",
            hint="x_l = E[w_l] + p_l: add, do not average"),
    mistake(EMBED, "position subtracted", "return E[token_ids] - P[:len(token_ids)]",
            hint="x_l = E[w_l] + p_l: add the position vector, do not subtract it"),
    mistake(EMBED, "its own sinusoidal table instead of the argument P",
            "return E[token_ids] + sinusoidal_positions(len(token_ids), E.shape[1])",
            hint="use the P you are given (it may be learned or random): add its first L rows, "
                 "P[:L]; do not build a new table"),
    mistake(EMBED, "the positions added twice", edit("+ P[:L]", "+ 2 * P[:L]"),
            detects=nb02.HINT_EMBED_VALUES),
    alternative(EMBED, "loop over tokens", """
        X = np.zeros((len(token_ids), E.shape[1]))
        for l, t in enumerate(token_ids):
            X[l] = E[t] + P[l]
        return X"""),
    alternative(EMBED, "one-hot matrix product", """
        one_hot = np.eye(E.shape[0])[token_ids]
        return one_hot @ E + P[:one_hot.shape[0]]"""),
    alternative(EMBED, "np.take and a copy added in place", """
        X = np.take(E, token_ids, axis=0).astype(np.float64)
        X += P[:X.shape[0]]
        return X"""),
    alternative(EMBED, "torch embedding lookup", """
        import torch
        ids = torch.as_tensor(np.asarray(token_ids, dtype=np.int64))
        X = torch.nn.functional.embedding(ids, torch.as_tensor(E))
        return (X + torch.as_tensor(P)[:len(ids)]).numpy()"""),
    alternative(EMBED, "einsum over a boolean one-hot", """
        one_hot = token_ids[:, None] == np.arange(E.shape[0])[None, :]  # (L, V) booleans
        return np.einsum("lv,vd->ld", one_hot, E) + P[:len(token_ids)]"""),
    alternative(EMBED, "torch nn.Embedding.from_pretrained, tensor returned", """
        import torch
        table = torch.nn.Embedding.from_pretrained(torch.from_numpy(E))
        ids = torch.as_tensor(token_ids, dtype=torch.long)
        return table(ids) + torch.from_numpy(P[:len(ids)])"""),
    alternative(EMBED, "accumulated into zeros in place", [
        replace_line("X = P[:len(token_ids)]",
                     "L, d = len(token_ids), E.shape[1]\nX = np.zeros((L, d))"),
        replace_line("X += E[token_ids]", "X += E[token_ids]\nX += P[:L]"),
    ], like="adds into P in place (P[:L] is a view)"),
    alternative(EMBED, "sum over a stacked pair, read-only", """
        X = np.stack([E[list(map(int, token_ids))], P[:len(token_ids)]]).sum(axis=0)
        X.flags.writeable = False
        return X"""),
    alternative(EMBED, "float32 torch nn.Embedding (its default dtype)", """
        import torch
        table = torch.nn.Embedding(E.shape[0], E.shape[1])
        with torch.no_grad():
            table.weight.copy_(torch.from_numpy(E))
        ids = torch.as_tensor(token_ids, dtype=torch.long)
        return table(ids) + torch.Tensor(P[:len(ids)])"""),
    # -- shift_matrix ------------------------------------------------------------------------------
    mistake(SHIFT, "blocks transposed: the matrix takes p_l to p_(l-k)", [
        edit("c, s = np.cos(k * w[i]), np.sin(k * w[i])", "a = k * w[i]"),
        replace_line("M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[s, c], [-c, s]]",
                     "M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(a), -np.sin(a)],\n"
                     "                                       [np.sin(a), np.cos(a)]]"),
    ], hint="check the first row on p_l = [sin, cos]: sin((l+k)w) = sin(lw) cos(kw) + cos(lw) "
            "sin(kw), so the block is [[cos kw, sin kw], [-sin kw, cos kw]]",
            like="sin and cos swapped in the block: [[sin, cos], [-cos, sin]]"),
    mistake(SHIFT, "one frequency (w = 1) for every pair", [
        delete("w = 10000.0 ** (-np.arange(0, d, 2) / d)"),
        edit("w[i]), np.sin(w[i]", "k), np.sin(k"), edit("w[i]), np.cos(w[i]", "k), np.cos(k"),
    ], hint="pair i turns by k * w_i with its own w_i = 10000 ** (-2i/d)",
       like="shift by one step whatever k is"),
    mistake(SHIFT, "exponent i/d instead of 2i/d", [
        edit("0, d,", "d //"), edit("w[i]), np.sin(", "k * w[i]), np.sin(k * "),
        edit("w[i]), np.cos(", "k * w[i]), np.cos(k * "),
    ], detects=nb02.HINT_PAIR_EXPONENT, like="shift by one step whatever k is"),
    mistake(SHIFT, "pairs laid out in two halves instead of (2i, 2i+1)",
            edit("2 * i : 2 * i + 2, 2 * i : 2 * i + 2", "i :: d // 2, i :: d // 2"),
            hint="pair i is features 2i and 2i+1, the same interleaved layout as P"),
    mistake(SHIFT, "shift by one step whatever k is", [
        delete("c, s = np.cos(k * w), np.sin(k * w)"),
        replace_line("M[2 * i : 2 * i + 2,",
                     "M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(w[i]), np.sin(w[i])],\n"
                     "                                       [-np.sin(w[i]), np.cos(w[i])]]"),
    ], hint=HINT_SHIFT_USE_K),
    mistake(SHIFT, "minus sign missing: [[cos, sin], [sin, cos]]",
            edit("s, c], [-c, s", "c, s], [s, c"), detects=nb02.HINT_BLOCK,
            like="sin and cos swapped in the block: [[sin, cos], [-cos, sin]]"),
    mistake(SHIFT, "sin and cos swapped in the block: [[sin, cos], [-cos, sin]]", [
        edit("2 * np.arange", "np.arange"), edit("c, s], [-s, c", "s, c], [-c, s"),
    ], detects=nb02.HINT_BLOCK, like="exponent 4i/d: the step of 2 counted twice"),
    mistake(SHIFT, "blocks placed at [i:i+2] instead of [2i:2i+2] (they overlap)", [
        edit("2 * np.arange", "np.arange"), edit("2 * i:2 * i + 2, 2 * i:2 * i", "i:i + 2, i:i"),
    ], detects=nb02.HINT_BLOCK_PLACE, like="exponent 4i/d: the step of 2 counted twice"),
    mistake(SHIFT, "exponent 4i/d: the step of 2 counted twice", [
        edit("(-", "(-2 * "), delete("c, s = np.cos(k * w), np.sin(k * w)"),
        replace_line("M[2 * i : 2 * i + 2,",
                     "c, s = np.cos(k * w[i]), np.sin(k * w[i])\n"
                     "M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[c, s], [-s, c]]"),
    ], hint=HINT_STEP_TWICE),
    mistake(SHIFT, "exponents spread with np.linspace(0, 1, d // 2) (the last one 1, not (d-2)/d)",
            edit("-np.arange(0, d, 2) / d", "-np.linspace(0, 1, d // 2)"),
            hint=HINT_EXPONENT_LINSPACE),
    mistake(SHIFT, "missing parentheses: k * 10000 ** -2 * i / d", """
        M = np.zeros((d, d))
        for i in range(d // 2):
            a = k * 10000.0 ** -2 * i / d
            M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]]
        return M""", hint=HINT_EXPONENT_PARENTHESES),
    mistake(SHIFT, "frequency picked by the feature index j", [
        edit(", dtype=int", ""), edit("i in range(d //", "j in range(0, d,"),
        edit("i]", "j // 2] if j == 0 else k * 10000.0 ** (-(j + 1) / d)"),
        edit("2 * i:2 * i + 2, 2 * i:2 * i", "j:j + 2, j:j"),
    ], detects=nb02.HINT_PAIR_EXPONENT,
            like="an integer matrix (cos and sin truncated to whole numbers)"),
    mistake(SHIFT, "the identity whatever k is", "return np.eye(d)", hint=HINT_SHIFT_USE_K),
    mistake(SHIFT, "the last block left zero (a loop over range(d // 2 - 1))", [
        edit(", dtype=int", ""), edit("):", " - 1):"),
    ], hint=HINT_LAST_PAIR_LEFT_ZERO,
            like="an integer matrix (cos and sin truncated to whole numbers)"),
    mistake(SHIFT, "an integer matrix (cos and sin truncated to whole numbers)", """
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        M = np.zeros((d, d), dtype=int)
        for i in range(d // 2):
            a = k * w[i]
            M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]]
        return M""", hint="make M a float array (np.zeros((d, d)) is float64; dtype=int truncates "
                          "cos and sin to 0 or +-1)"),
    mistake(SHIFT, "positive exponent (10000^(+2i/d))", [edit("(-", "("), edit("(k + 1)", "k")],
            hint=HINT_POSITIVE_EXPONENT_10000, like="shift by k + 1"),
    mistake(SHIFT, "shift by k + 1", [edit(", dtype=int", ""), edit("k", "(k + 1)")],
            hint="the angle of pair i is k * w_i, not (k + 1) * w_i",
            like="an integer matrix (cos and sin truncated to whole numbers)"),
    mistake(SHIFT, "cos(k) * w and sin(k) * w instead of cos(k * w) and sin(k * w)",
            edit("k * w)", "k) * w", count=2),
            hint="take cos and sin of the angle k * w_i: np.sin(k * w), not np.sin(k) * w"),
    mistake(SHIFT, "hard-coded 4 x 4 (the worked example's d)", [
        edit("d, d), dtype=int", "4, 4)"), edit("d // 2", "2"),
    ], detects=nb02.HINT_SHIFT_HARD_CODED,
            like="an integer matrix (cos and sin truncated to whole numbers)"),
    mistake(SHIFT, "the d/2 blocks returned stacked, not placed in a (d, d) matrix", """
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        c, s = np.cos(k * w), np.sin(k * w)
        return np.stack([[c, s], [-s, c]]).transpose(2, 0, 1)""", detects=nb02.HINT_SHIFT_SHAPE),
    alternative(SHIFT, "matrix power of the one-step shift", [
        edit("M =", "step ="), edit("k * w[i]), np.sin(k * w", "w[i]), np.sin(w"),
        edit("M[i:i + 2, i:", "step[2 * i:2 * i + 2, 2 * i:2 * "),
        edit("M", "np.linalg.matrix_power(step, int(k))")],
            like="blocks placed at [i:i+2] instead of [2i:2i+2] (they overlap)"),
    alternative(SHIFT, "kron of a one-hot diagonal with each block", """
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        M = np.zeros((d, d))
        for i, wi in enumerate(w):
            block = np.array([[np.cos(k * wi), np.sin(k * wi)], [-np.sin(k * wi), np.cos(k * wi)]])
            corner = np.zeros((d // 2, d // 2))
            corner[i, i] = 1.0
            M += np.kron(corner, block)
        return M"""),
    alternative(SHIFT, "solved from two position tables", """
        l = np.arange(d)[:, None]
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        M = np.zeros((d, d))
        for i in range(d // 2):
            now = np.stack([np.sin(l[:2, 0] * w[i]), np.cos(l[:2, 0] * w[i])])
            later = np.stack([np.sin((l[:2, 0] + k) * w[i]), np.cos((l[:2, 0] + k) * w[i])])
            M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = later @ np.linalg.inv(now)
        return M"""),
    alternative(SHIFT, "loop over even feature index j with 10000^(-j/d)", """
        M = np.eye(d)
        for j in range(0, d, 2):
            a = k * 10000.0 ** (-j / d)
            M[j, j], M[j, j + 1] = np.cos(a), np.sin(a)
            M[j + 1, j], M[j + 1, j + 1] = -np.sin(a), np.cos(a)
        return M"""),
    alternative(SHIFT, "np.block of 2 x 2 blocks", """
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
        return np.block(rows)"""),
    alternative(SHIFT, "three diagonals with np.diag", """
        w = 10000.0 ** (-np.arange(0, d, 2) / d)
        c, s = np.cos(k * w), np.sin(k * w)
        upper = np.zeros(d - 1)
        upper[0::2] = s
        return np.diag(np.repeat(c, 2)) + np.diag(upper, 1) - np.diag(upper, -1)"""),
    alternative(SHIFT, "torch.block_diag, float64 tensor returned", """
        import torch
        w = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
        c, s = torch.cos(k * w), torch.sin(k * w)
        return torch.block_diag(*[torch.stack([torch.stack([c[i], s[i]]),
                                               torch.stack([-s[i], c[i]])])
                                  for i in range(d // 2)])"""),
    alternative(SHIFT, "fancy indexing with even and odd index arrays", """
        even = np.arange(0, d, 2)
        odd = even + 1
        a = np.mod(k * 10000.0 ** (-even / d), 2 * np.pi)  # angles wrapped to [0, 2 pi)
        M = np.zeros((d, d))
        M[even, even], M[even, odd] = np.cos(a), np.sin(a)
        M[odd, even], M[odd, odd] = -np.sin(a), np.cos(a)
        return M"""),
    alternative(SHIFT, "torch.linalg.matrix_exp of the generator", """
        import torch
        G = torch.zeros(d, d, dtype=torch.float64)
        for i in range(d // 2):
            w_i = 10000.0 ** (-2 * i / d)
            G[2 * i, 2 * i + 1], G[2 * i + 1, 2 * i] = w_i, -w_i
        return torch.linalg.matrix_exp(float(k) * G).numpy()"""),
    alternative(SHIFT, "complex numbers for each block", """
        z = np.exp(1j * k * 10000.0 ** (-np.arange(0, d, 2) / d))
        M = np.zeros((d, d))
        for i, zi in enumerate(z):
            M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[zi.real, zi.imag], [-zi.imag, zi.real]]
        return M"""),
    alternative(SHIFT, "float32 frequencies and angles, float64 blocks", """
        w = 10000.0 ** (-np.arange(0, d, 2, dtype=np.float32) / np.float32(d))
        c, s = np.cos(np.float32(k) * w), np.sin(np.float32(k) * w)
        M = np.zeros((d, d))
        for i in range(d // 2):
            M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[c[i], s[i]], [-s[i], c[i]]]
        return M"""),
    # -- concept questions -------------------------------------------------------------------------
    mistake("answer_bag_of_words", "thinks nearer words weigh more", edit("A", "B"), detects=WHY),
    mistake("answer_position_signal", "thinks the mask already gives positions",
            'answer_position_signal = "B"', detects=WHY),
    mistake("answer_fast_pair", "thinks the last pair is fastest", edit("B", "A"), detects=WHY),
    mistake("answer_same_token", "thinks embeddings ignore position", edit("C", "A"), detects=WHY),
    mistake("answer_offset", "thinks similarity depends on l", 'answer_offset = "C"', detects=WHY),
    mistake("answer_sinusoid_slice", "uses 10000^(-i/d) for the slow pair",
            'answer_sinusoid_slice = "A"', detects=WHY),
    mistake("answer_sinusoid_slice", "takes the angles in degrees",
            'answer_sinusoid_slice = "B"', detects=WHY),
    alternative("answer_offset", "lower case with spaces", 'answer_offset = " b "'),
])
