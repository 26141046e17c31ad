r"""Certified ranks for Rank Contraction (§6): attention matrices, per-head subspaces R_h, MHA.

Lower bounds: a minor whose interval determinant excludes 0 (mpmath ``iv``). Upper bounds
from structure: :math:`\operatorname{rank}A_h\le n`, :math:`\dim R_h\le\min(\operatorname{rank}X,d_k)`
(exact rank of X over QQ), :math:`\dim\sum_hR_h\le\min(d,\sum_h\dim R_h)`,
:math:`\operatorname{rank}\mathrm{MHA}\le\min(n,\dim\sum_hR_h)`.

Examples
========
>>> import numpy as np
>>> from proofs_numeric.transformer import Head
>>> rng = np.random.default_rng(0)
>>> heads = [Head(*(rng.normal(size=s) for s in [(5, 2), (5, 2), (5, 2), (2, 5)])) for _ in range(2)]
>>> r = certified_ranks(rng.normal(size=(6, 5)), heads, dps=30)
>>> r["attention_rank"], r["dim_R"], r["dim_sum_R"], r["rank_mha"]
([[6, 6], [6, 6]], [[2, 2], [2, 2]], [4, 4], [4, 4])
"""
from __future__ import annotations

import mpmath
import numpy as np

from theorems.linalg import exact_matrix, rank

from .certify import certified_rank_lower_bound
from .transformer import Head, attention, mha, workdps

__all__ = ["certified_ranks", "alpha", "alpha_mha", "alignment", "head_with_alpha", "input_of_rank"]


def input_of_rank(rng, n: int, r: int, d: int) -> np.ndarray:
    """An n x d input of exact rank <= r (integer factors in [-3, 3], scaled by 1/8).

    The float64 product of small integers is exact, so the stored matrix has the intended
    rank (a Gaussian product would be full rank once rounded); the 1/8 keeps logits moderate.
    """
    return (rng.integers(-3, 4, size=(n, r)) @ rng.integers(-3, 4, size=(r, d))).astype(float) / 8


def _rows(M):
    return [[M[i, j] for j in range(M.cols)] for i in range(M.rows)]


def certified_ranks(X, heads: list[Head], dps: int = 50) -> dict:
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    rX = rank(exact_matrix(X))
    iv = mpmath.iv
    out = {"n": n, "d": d, "H": len(heads), "d_k": heads[0].W_Q.shape[1], "rank_X": rX,
           "attention_rank": [], "dim_R": [], "dps": dps}
    terms = []
    with workdps(iv, dps):
        for h in heads:
            A, Y = attention(X, h, "iv", dps)
            T = Y * iv.matrix(np.asarray(h.W_O).tolist())
            terms.append(T)
            out["attention_rank"].append([certified_rank_lower_bound(_rows(A), dps)["lower"], n])
            dk = np.asarray(h.W_O).shape[0]
            out["dim_R"].append([certified_rank_lower_bound(_rows(T), dps)["lower"], min(rX, dk)])
        stack = [row for T in terms for row in _rows(T)]
        up_sum = min(d, sum(u for _, u in out["dim_R"]))
        out["dim_sum_R"] = [certified_rank_lower_bound(stack, dps)["lower"], up_sum]
        M = terms[0]
        for T in terms[1:]:
            M = M + T
        out["rank_mha"] = [certified_rank_lower_bound(_rows(M), dps)["lower"], min(n, up_sum)]
    return out


def alpha(W_Q, W_K) -> float:
    """Directional asymmetry ||M_a||_F / ||M||_F of M = W_Q W_K^T (float64)."""
    M = np.asarray(W_Q) @ np.asarray(W_K).T
    nm = np.linalg.norm(M)
    return float(np.linalg.norm((M - M.T) / 2) / nm) if nm > 0 else 0.0


def alpha_mha(rank_mha: int, head_ranks: list[int]) -> float:
    """The paper's contraction index 1 - rank(MHA) / (H max_h rank(Y_h W_O^h))."""
    return 1 - rank_mha / (len(head_ranks) * max(head_ranks))


def alignment(X, heads: list[Head]) -> np.ndarray:
    """Mean squared cosine of the principal angles between R_h and R_g, for every pair (float64)."""
    bases = []
    for h in heads:
        _, Y = attention(X, h)
        T = Y @ np.asarray(h.W_O)
        U, s, Vt = np.linalg.svd(T, full_matrices=False)
        k = int(np.sum(s > 1e-10 * s[0])) if s[0] > 0 else 0
        bases.append(Vt[:k].T)
    H = len(heads)
    out = np.eye(H)
    for i in range(H):
        for j in range(i + 1, H):
            c = np.linalg.svd(bases[i].T @ bases[j], compute_uv=False)
            out[i, j] = out[j, i] = float(np.mean(c ** 2)) if c.size else 0.0
    return out


def head_with_alpha(d: int, d_k: int, target: float, rng) -> Head:
    """A head whose M = W_Q W_K^T has asymmetry close to ``target`` (0: symmetric, 1: antisymmetric)."""
    Q = rng.normal(size=(d, d_k))
    if d_k >= 2 and target > 0.99:
        J = np.zeros((d_k, d_k))
        J[0, 1], J[1, 0] = 1, -1
        K = Q @ J.T  # M = Q J^T Q^T is antisymmetric
    elif target < 0.01:
        K = Q.copy()  # M = Q Q^T symmetric
    else:
        K = rng.normal(size=(d, d_k))
    return Head(Q, K, rng.normal(size=(d, d_k)), rng.normal(size=(d_k, d)))
