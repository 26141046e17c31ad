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

__all__ = ["layer_norm", "to_backend", "BACKENDS", "workdps", "Head", "Block", "softmax_rows", "attention",
           "mha", "gelu", "ffn", "block_forward", "REGIMES"]

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


def exact_to_ctx(ctx, v):
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
        return [[exact_to_ctx(ctx, v) for v in row] for row in _rows(M)]


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
        rows = [[exact_to_ctx(ctx, v) for v in row] for row in _rows(X)]
        d = len(rows[0])
        g = [ctx.mpf(1)] * d if gamma is None else [exact_to_ctx(ctx, v) for v in gamma]
        b = [ctx.mpf(0)] * d if beta is None else [exact_to_ctx(ctx, v) for v in beta]
        e = exact_to_ctx(ctx, eps)
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


# --- attention, MHA, FFN and a block, over the same three backends ------------------

import math as _math
from dataclasses import dataclass, field as _field


@dataclass
class Head:
    """One attention head. Shapes: W_Q, W_K, W_V  # [d_model, d_k];  W_O  # [d_k, d_model]."""

    W_Q: object
    W_K: object
    W_V: object
    W_O: object


@dataclass
class Block:
    """An encoder block: heads, FFN (GELU) and two LayerNorms (post-LN, as in BERT)."""

    heads: list
    W1: object = None  # [d_model, d_ff]
    b1: object = None  # [d_ff]
    W2: object = None  # [d_ff, d_model]
    b2: object = None  # [d_model]
    ln1: tuple = (None, None)  # (gamma, beta)
    ln2: tuple = (None, None)
    eps: float = 0


def backend_matrix(M, backend: str, dps: int):
    if backend == "float64":
        return np.asarray(M, dtype=np.float64)
    ctx = _ctx(backend)
    if isinstance(M, ctx.matrix):
        return M
    with workdps(ctx, dps):
        rows = M.tolist() if hasattr(M, "tolist") else M
        if isinstance(rows, (list, tuple)) and rows and not isinstance(rows[0], (list, tuple)):
            rows = [rows]
        return ctx.matrix([[exact_to_ctx(ctx, v) for v in row] for row in rows])


def _shape(M):
    return M.shape if hasattr(M, "shape") else (M.rows, M.cols)


def softmax_rows(S, backend: str = "float64", dps: int = 50):
    """Row-wise softmax.  # [n, n] -> [n, n]; each row shifted by a point constant (exact invariance)."""
    if backend == "float64":
        S = np.asarray(S, dtype=np.float64)
        E = np.exp(S - S.max(axis=1, keepdims=True))
        return E / E.sum(axis=1, keepdims=True)
    ctx = _ctx(backend)
    with workdps(ctx, dps):
        S = backend_matrix(S, backend, dps)
        n, m = _shape(S)
        out = ctx.matrix(n, m)
        for i in range(n):
            mids = [S[i, j].mid if backend == "iv" else S[i, j] for j in range(m)]
            c = max(mids)
            if backend == "iv":
                c = ctx.mpf(mpmath.mpf(c))
            es = [ctx.exp(S[i, j] - c) for j in range(m)]
            tot = sum(es[1:], es[0])
            for j in range(m):
                out[i, j] = es[j] / tot
        return out


def attention(X, head: Head, backend: str = "float64", dps: int = 50):
    """Return (A, Y): A = softmax(X W_Q W_K^T X^T / sqrt(d_k))  # [n, n];  Y = A X W_V  # [n, d_k]."""
    X = backend_matrix(X, backend, dps)
    WQ, WK, WV = (backend_matrix(W, backend, dps) for W in (head.W_Q, head.W_K, head.W_V))
    dk = _shape(WQ)[1]
    if backend == "float64":
        S = (X @ WQ) @ (X @ WK).T / _math.sqrt(dk)
        A = softmax_rows(S)
        return A, A @ X @ WV
    ctx = _ctx(backend)
    with workdps(ctx, dps):
        S = (X * WQ) * (X * WK).T / ctx.sqrt(dk)
        A = softmax_rows(S, backend, dps)
        return A, A * X * WV


def mha(X, heads, backend: str = "float64", dps: int = 50, return_heads: bool = False):
    """MHA(X) = sum_h Y_h W_O^h  # [n, d_model] (no output bias, as in the paper)."""
    X = backend_matrix(X, backend, dps)
    terms, As = [], []
    for h in heads:
        A, Y = attention(X, h, backend, dps)
        WO = backend_matrix(h.W_O, backend, dps)
        if backend == "float64":
            terms.append(Y @ WO)
        else:
            with workdps(_ctx(backend), dps):
                terms.append(Y * WO)
        As.append(A)
    out = terms[0]
    if backend == "float64":
        out = sum(terms[1:], terms[0])
    else:
        with workdps(_ctx(backend), dps):
            for t in terms[1:]:
                out = out + t
    return (out, As, terms) if return_heads else out


def _raw_to_arb(t):
    """An mpmath raw mpf tuple (sign, man, exp, bc) as an exact python-flint arb."""
    import flint
    sign, man, exp, _ = t
    man = -int(man) if sign else int(man)
    exp = int(exp)
    return flint.arb(flint.fmpq(man * 2 ** exp) if exp >= 0 else flint.fmpq(man, 2 ** (-exp)))


def iv_erf(x, dps: int):
    """Rigorous interval erf. erf is increasing, so erf([a, b]) = [erf(a), erf(b)];
    each endpoint is enclosed by python-flint's arb (ball arithmetic) and rounded
    outward (floor / ceiling) to the interval precision."""
    import flint
    from mpmath.libmp import from_man_exp, round_ceiling, round_floor
    iv = mpmath.iv
    old = flint.ctx.prec
    try:
        flint.ctx.prec = int(dps * 3.33) + 30
        a_t, b_t = x._mpi_
        lo = _raw_to_arb(a_t).erf().lower()
        hi = _raw_to_arb(b_t).erf().upper()
        lm, le = lo.man_exp()
        hm, he = hi.man_exp()
    finally:
        flint.ctx.prec = old
    with workdps(iv, dps):
        return iv.make_mpf((from_man_exp(int(lm), int(le), iv.prec, round_floor),
                            from_man_exp(int(hm), int(he), iv.prec, round_ceiling)))


def gelu(x, backend: str = "float64", dps: int = 50):
    """Exact (erf) GELU, elementwise: x/2 (1 + erf(x / sqrt 2))."""
    if backend == "float64":
        from math import erf
        x = np.asarray(x, dtype=np.float64)
        return 0.5 * x * (1.0 + np.vectorize(erf)(x / _math.sqrt(2.0)))
    ctx = _ctx(backend)
    with workdps(ctx, dps):
        n, m = _shape(x)
        out = ctx.matrix(n, m)
        for i in range(n):
            for j in range(m):
                v = x[i, j]
                e = iv_erf(v / ctx.sqrt(2), dps) if backend == "iv" else ctx.erf(v / ctx.sqrt(2))
                out[i, j] = v / 2 * (1 + e)
        return out


def ffn(X, W1, b1, W2, b2, backend: str = "float64", dps: int = 50):
    """FFN(X) = GELU(X W1 + b1) W2 + b2  # [n, d_model] -> [n, d_model]."""
    X = backend_matrix(X, backend, dps)
    W1, W2 = backend_matrix(W1, backend, dps), backend_matrix(W2, backend, dps)
    n = _shape(X)[0]
    if backend == "float64":
        H = X @ W1 + (0 if b1 is None else np.asarray(b1, dtype=np.float64))
        return gelu(H) @ W2 + (0 if b2 is None else np.asarray(b2, dtype=np.float64))
    ctx = _ctx(backend)
    with workdps(ctx, dps):
        H = X * W1
        if b1 is not None:
            B1 = backend_matrix([list(b1)], backend, dps)
            H = H + ctx.matrix([[B1[0, j] for j in range(_shape(H)[1])] for _ in range(n)])
        O = gelu(H, backend, dps) * W2
        if b2 is not None:
            B2 = backend_matrix([list(b2)], backend, dps)
            O = O + ctx.matrix([[B2[0, j] for j in range(_shape(O)[1])] for _ in range(n)])
        return O


REGIMES = ("pure_attention", "attention_skip", "attention_mlp", "full_block")


def block_forward(X, blk: Block, regime: str, backend: str = "float64", dps: int = 50):
    """One layer in one of the four regimes of the Dong explainer.

    ``pure_attention``  X -> MHA(X)
    ``attention_skip``  X -> X + MHA(X)
    ``attention_mlp``   X -> FFN(MHA(X))            (no skip)
    ``full_block``      X -> LN2(Z + FFN(Z)), Z = LN1(X + MHA(X))   (post-LN BERT block)
    """
    if regime not in REGIMES:
        raise ValueError(f"regime {regime!r} not in {REGIMES}")
    X = backend_matrix(X, backend, dps)
    M = mha(X, blk.heads, backend, dps)
    add = (lambda a, b: a + b)
    if regime == "pure_attention":
        return M
    if regime == "attention_skip":
        return add(X, M) if backend == "float64" else _ctx_add(X, M, backend, dps)
    if regime == "attention_mlp":
        return ffn(M, blk.W1, blk.b1, blk.W2, blk.b2, backend, dps)
    Z = _ln_mat(add(X, M) if backend == "float64" else _ctx_add(X, M, backend, dps), blk.ln1, blk.eps, backend, dps)
    F = ffn(Z, blk.W1, blk.b1, blk.W2, blk.b2, backend, dps)
    return _ln_mat(add(Z, F) if backend == "float64" else _ctx_add(Z, F, backend, dps), blk.ln2, blk.eps, backend, dps)


def _ctx_add(a, b, backend, dps):
    with workdps(_ctx(backend), dps):
        return a + b


def _ln_mat(X, ln, eps, backend, dps):
    g, b = ln
    if backend == "float64":
        return layer_norm(X, g, b, backend="float64", eps=eps)
    ctx = _ctx(backend)
    rows = [[X[i, j] for j in range(X.cols)] for i in range(X.rows)]
    with workdps(ctx, dps):
        return ctx.matrix(layer_norm(rows, g, b, backend=backend, dps=dps, eps=eps))
