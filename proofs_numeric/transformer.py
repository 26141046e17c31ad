"""Transformer maps written once over an arithmetic backend.

Backends (say which one at each call; no global precision is relied on):

``"float64"``  numpy arrays, float64 — exploration only, labelled float-evidence
``"mp"``       mpmath ``mp`` at ``dps`` digits (``mp.workdps``), high-precision points
``"iv"``       mpmath ``iv`` intervals at ``dps`` digits — rigorous enclosures

Matrices for ``mp``/``iv`` are lists of lists of mpmath numbers; for float64 they
are numpy arrays. Shapes are annotated as ``# [n, d_model]``.

Examples
========
>>> Y = layer_norm([[1, 2, 3], [0, 0, 1]], backend="mp", dps=30)
>>> [round(float(v), 12) for v in Y[0]]
[-1.224744871392, 0.0, 1.224744871392]
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np

__all__ = ["layer_norm", "to_backend", "BACKENDS", "workdps"]

BACKENDS = ("float64", "mp", "iv")


from contextlib import contextmanager


@contextmanager
def workdps(ctx, dps: int):
    """Local precision for ``mp`` or ``iv`` (``iv`` has no ``workdps``)."""
    old = ctx.prec
    try:
        ctx.dps = dps
        yield ctx
    finally:
        ctx.prec = old


def _ctx(backend: str):
    if backend == "mp":
        return mpmath.mp
    if backend == "iv":
        return mpmath.iv
    raise ValueError(f"unknown backend {backend!r}; choose from {BACKENDS}")


def _exact_to_ctx(ctx, v):
    """A number in context ctx: rationals enter as exact quotients (rounded once)."""
    if hasattr(v, "p") and hasattr(v, "q"):  # sympy Rational / flint fmpq
        return ctx.mpf(int(v.p)) / int(v.q)
    if isinstance(v, Fraction):
        return ctx.mpf(v.numerator) / v.denominator
    if isinstance(v, str):
        f = Fraction(v)
        return ctx.mpf(f.numerator) / f.denominator
    return ctx.mpf(v)


def to_backend(M, backend: str, dps: int = 50):
    """Convert a matrix of exact numbers to the backend's representation."""
    if backend == "float64":
        return np.array([[float(Fraction(str(v)) if isinstance(v, str) else v) for v in row] for row in _rows(M)],
                        dtype=np.float64)
    ctx = _ctx(backend)
    with workdps(ctx, dps):
        return [[_exact_to_ctx(ctx, v) for v in row] for row in _rows(M)]


def _rows(M):
    if hasattr(M, "tolist"):
        return M.tolist()
    return M


def layer_norm(X, gamma=None, beta=None, *, backend: str = "float64", dps: int = 50, eps=0):
    """LN(x_i) = (x_i - mean_i) / sigma_i * gamma + beta, row-wise.  # [n, d] -> [n, d]

    Population standard deviation, as in the paper; ``eps`` (default 0, the
    paper's map) is added to the variance as in BERT. With eps = 0 a constant
    row raises ``ZeroDivisionError``-free ValueError naming H1.
    """
    if backend == "float64":
        X = np.asarray(X, dtype=np.float64)
        d = X.shape[1]
        g = np.ones(d) if gamma is None else np.asarray(gamma, dtype=np.float64)
        b = np.zeros(d) if beta is None else np.asarray(beta, dtype=np.float64)
        Xt = X - X.mean(axis=1, keepdims=True)
        var = (Xt * Xt).mean(axis=1, keepdims=True) + eps
        if np.any(var == 0):
            raise ValueError("H1 fails: a row of X is constant (sigma = 0); LayerNorm is undefined")
        return Xt / np.sqrt(var) * g + b
    ctx = _ctx(backend)
    with workdps(ctx, dps):
        rows = [[_exact_to_ctx(ctx, v) for v in row] for row in _rows(X)]
        d = len(rows[0])
        g = [ctx.mpf(1)] * d if gamma is None else [_exact_to_ctx(ctx, v) for v in gamma]
        b = [ctx.mpf(0)] * d if beta is None else [_exact_to_ctx(ctx, v) for v in beta]
        e = _exact_to_ctx(ctx, eps)
        out = []
        for i, row in enumerate(rows):
            mu = ctx.fsum(row) / d
            xt = [v - mu for v in row]
            var = ctx.fsum(v * v for v in xt) / d + e
            if backend == "mp" and var == 0:
                raise ValueError(f"H1 fails: row {i} of X is constant (sigma = 0); LayerNorm is undefined")
            if backend == "iv" and 0 in var and var.b == 0:
                raise ValueError(f"H1 fails: row {i} of X is constant (sigma = 0); LayerNorm is undefined")
            sig = ctx.sqrt(var)
            out.append([xt[j] / sig * g[j] + b[j] for j in range(d)])
        return out
