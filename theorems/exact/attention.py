r"""Softmax attention exactly: logits in units of :math:`\log 2`, so every attention matrix is rational.

With :math:`W_QW_K^\top/\sqrt{d_k}=\log 2\,M_0` the scores are :math:`s=XM_0X^\top` and
:math:`A_{ij}=2^{s_{ij}}/\sum_k2^{s_{ik}}`, rational whenever :math:`s` is an integer matrix. The one
softmax of :mod:`theorems.exact.transformer` (context ``SYMPY_LOG2``) computes it; this module builds the
heads and the residual map on top of it.
"""
from __future__ import annotations

import sympy
from sympy import Matrix, zeros

from . import transformer as T
from .input import BadInput
from .instances import random_int_matrix
from .reader import SYMPY_MAX_ENTRIES

__all__ = ["exact_softmax", "F_exact", "exact_head", "head_terms", "user_softmax"]


def exact_softmax(X: Matrix, M0: Matrix) -> Matrix:
    """Row-wise softmax of S = log(2) X M0 X^T, exactly: A_ij = 2^(s_ij) / sum_k 2^(s_ik) with s = X M0 X^T.

    This is softmax attention with W_Q W_K^T / sqrt(d_k) = log(2) M0; it is rational when X M0 X^T is an
    integer matrix (raises ValueError otherwise).
    """
    S = X * M0 * X.T
    if not all(v.is_integer for v in S):
        raise ValueError("X M0 X^T must be an integer matrix for an exact (rational) softmax")
    return T.softmax_rows(T.SYMPY_LOG2, S)  # the one softmax, logits in units of log 2: exp(s) = 2^s


def F_exact(X: Matrix, heads: list[tuple[Matrix, Matrix]]) -> Matrix:
    """X + sum_h A_h X W_h with A_h = exact_softmax(X, M0_h), W_h = W_V^h W_O^h (exact)."""
    out = X
    for M0, W in heads:
        out = out + exact_softmax(X, M0) * X * W
    return out


def exact_head(rng, d: int, d_k: int, kind: str = "generic", k: int = 3):
    """(M0, W_V, W_O) with M0 = Q K^T realisable at width d_k: generic, symmetric (alpha = 0) or antisymmetric
    (alpha = 1, d_k >= 2); M0 = 0 (uniform attention, a degenerate head) is redrawn. W_V, W_O in [-k, k]."""
    while True:
        Q = random_int_matrix(rng, d, d_k, 1)
        if kind == "symmetric":
            M0 = Q * Q.T
        elif kind == "antisymmetric":
            Jm = zeros(d_k, d_k)
            Jm[0, 1], Jm[1, 0] = 1, -1
            M0 = Q * Jm * Q.T
        else:
            M0 = Q * random_int_matrix(rng, d, d_k, 1).T
        if any(v != 0 for v in M0):
            return M0, random_int_matrix(rng, d, d_k, k), random_int_matrix(rng, d_k, d, k)


def head_terms(X: Matrix, heads) -> list[Matrix]:
    """T_h = A_h X W_V^h W_O^h with A_h = softmax(log 2 X M0_h X^T), exactly."""
    return [exact_softmax(X, M0) * X * WV * WO for (M0, WV, WO) in heads]


def user_softmax(user, who: str) -> dict:
    """{X, P, symbolic: True}: a user's --X and the first head's softmax attention P = softmax(X W_Q W_K^T X^T /
    sqrt(d_k)) of --weights (or seeded), exactly (sympy: exp and sqrt kept symbolic); up to 6 tokens."""
    X = user.matrix("X").sympy(SYMPY_MAX_ENTRIES, who)
    W = user.weights
    if W is None:
        raise BadInput(f"{who} needs weights: --weights W.npz or --heads H [--weights-seed N]")
    if W.d != X.shape[1]:
        raise BadInput(f"--weights: d = {W.d} in the weights but X has d = {X.shape[1]} columns")
    if X.shape[0] > 6:
        raise BadInput(f"{who} computes the softmax symbolically (exp kept exact) on up to 6 tokens; X has "
                       f"{X.shape[0]}")
    WQ, WK = (M.sympy(SYMPY_MAX_ENTRIES) for M in W.heads[0][:2])
    S = X * WQ * (X * WK).T / sympy.sqrt(WQ.shape[1])
    return {"X": X, "P": T.softmax_rows(T.SYMPY, S), "symbolic": True}
