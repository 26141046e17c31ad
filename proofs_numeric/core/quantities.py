"""Numeric quantities that both the model stack and the witnesses need (float64): the paper's directional
asymmetry alpha of a query-key form, its contraction index, and a rank correlation."""
from __future__ import annotations

import numpy as np

__all__ = ["alpha", "alpha_mha", "spearman"]


def alpha(W_Q, W_K) -> float:
    """Directional asymmetry ||M_a||_F / ||M||_F of M = W_Q W_K^T (float64)."""
    M = np.asarray(W_Q) @ np.asarray(W_K).T
    nm = np.linalg.norm(M)
    return float(np.linalg.norm((M - M.T) / 2) / nm) if nm > 0 else 0.0


def alpha_mha(rank_mha: int, head_ranks: list[int]) -> float:
    """The paper's contraction index 1 - rank(MHA) / (H max_h rank(Y_h W_O^h))."""
    return 1 - rank_mha / (len(head_ranks) * max(head_ranks))


def spearman(a, b) -> float:
    """Spearman rank correlation of two equal-length sequences (ranks by order; ties broken by position)."""
    ra, rb = np.argsort(np.argsort(a)), np.argsort(np.argsort(b))
    return float(np.corrcoef(ra, rb)[0, 1])
