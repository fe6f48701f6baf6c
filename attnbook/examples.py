"""The worked examples the notebooks and the checks share, so their numbers never drift apart.

Small integers keep every product readable by hand. The weight matrices are not symmetric,
so `X @ W_Q` and `X @ W_Q.T` give different answers even though both shapes fit.
"""

import numpy as np

#: Four tokens, three features each: row l is token l's vector (the decks' 4 x 3 example).
WORKED_X = np.array([[1.0, 0.0, 1.0], [0.0, 2.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 2.0]])
#: Projection weights of shape (d_k, d) = (3, 3); Q = X W_Q^T.
WORKED_W_Q = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 1.0], [1.0, 0.0, -1.0]])
WORKED_W_K = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
WORKED_W_V = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])

#: The projections of the worked example, written out so checks compare against stored values.
WORKED_Q = np.array([[1.0, 1.0, 0.0], [0.0, 2.0, 0.0], [1.0, 1.0, 1.0], [0.0, 3.0, -2.0]])
WORKED_K = np.array([[0.0, 2.0, 1.0], [2.0, 0.0, 0.0], [1.0, 1.0, 0.0], [1.0, 2.0, 2.0]])
WORKED_V = np.array([[1.0, 0.0, 1.0], [4.0, 2.0, 0.0], [3.0, 1.0, 0.0], [2.0, 1.0, 2.0]])

#: Q K^T of the worked example, before the 1/sqrt(d_k) scaling (d_k = 3).
WORKED_QK = np.array(
    [[2.0, 2.0, 2.0, 3.0], [4.0, 0.0, 2.0, 4.0], [3.0, 2.0, 2.0, 5.0], [4.0, 0.0, 3.0, 2.0]]
)

#: The decks' word labels for four tokens, used to label heatmaps.
WORKED_TOKENS = ["the", "robot", "picked", "cup"]
