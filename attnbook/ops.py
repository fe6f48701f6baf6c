"""Library attention for demonstrations, built on PyTorch's own fused kernel.

Later notebooks and widgets use these so that a demonstration never depends on a student's
earlier answer being right. They are thin wrappers around `torch.nn.functional`, not the
exercises written out: students still write their own versions in the notebooks.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F


def torch_softmax(S, axis: int = -1) -> np.ndarray:
    """Softmax of a numpy array along `axis` through torch; fully -inf rows give zeros."""
    S_t = torch.as_tensor(np.asarray(S, dtype=np.float64))
    weights = torch.softmax(S_t, dim=axis)
    return torch.nan_to_num(weights, nan=0.0).numpy()


def torch_attend(Q, K, V, allowed=None) -> tuple[np.ndarray, np.ndarray]:
    """(Y, A) for numpy inputs via `F.scaled_dot_product_attention`.

    Q: (..., L_q, d_k), K: (..., L_k, d_k), V: (..., L_k, d_v), allowed: (..., L_q, L_k) bool.
    A is obtained by attending over an identity "value" matrix, so both come from the same
    fused kernel. Rows with no allowed key give zeros.
    """
    Q_t = torch.as_tensor(np.asarray(Q, dtype=np.float64))
    K_t = torch.as_tensor(np.asarray(K, dtype=np.float64))
    V_t = torch.as_tensor(np.asarray(V, dtype=np.float64))
    mask = None if allowed is None else torch.as_tensor(np.asarray(allowed, dtype=bool))
    eye = torch.eye(K_t.shape[-2], dtype=torch.float64).expand(*K_t.shape[:-1], K_t.shape[-2])
    Y = F.scaled_dot_product_attention(Q_t, K_t, V_t, attn_mask=mask)  # (..., L_q, d_v)
    A = F.scaled_dot_product_attention(Q_t, K_t, eye, attn_mask=mask)  # (..., L_q, L_k)
    Y, A = torch.nan_to_num(Y, nan=0.0), torch.nan_to_num(A, nan=0.0)
    return Y.numpy(), A.numpy()
