"""The transformer maps by backend name: thin wrappers over :mod:`theorems.exact.transformer`.

The maps are written once, over an arithmetic context, in :mod:`theorems.exact.transformer`; this
module keeps the numeric layer's calling convention (``backend=``, ``dps=``) and looks the
backend up in a table (:data:`theorems.exact.transformer.CONTEXTS`).

Backends (say which one at each call; no global precision is relied on):

``"float64"``  numpy arrays, float64 — exploration only, labelled float-evidence
``"mp"``       mpmath ``mp`` at ``dps`` digits (``mp.workdps``), high-precision points
``"iv"``       mpmath ``iv`` intervals at ``dps`` digits — rigorous enclosures
``"arb"``      python-flint ``arb`` balls at ``dps`` digits — rigorous enclosures
``"sympy"``    exact (sympy)

Matrices for ``mp``/``iv`` are mpmath matrices (``layer_norm`` returns lists of lists, as it
always has); for float64 they are numpy arrays. Shapes are annotated as ``# [n, d_model]``.

Examples
========
>>> Y = layer_norm([[1, 2, 3], [0, 0, 1]], backend="mp", dps=30)
>>> [round(float(v), 12) for v in Y[0]]
[-1.224744871392, 0.0, 1.224744871392]
"""
from __future__ import annotations

from theorems.exact import transformer as T
from theorems.exact.transformer import Block, Head, workdps

__all__ = ["layer_norm", "rms_norm", "BACKENDS", "workdps", "Head", "Block", "softmax_rows", "attention", "mha", "gelu",
           "block_forward"]

BACKENDS = ("float64", "mp", "iv")


def layer_norm(X, gamma=None, beta=None, *, backend: str = "float64", dps: int = 50, eps=0):
    """LN(x_i) = (x_i - mean_i) / sigma_i * gamma + beta, row-wise (:func:`theorems.exact.transformer.layer_norm`).

    mp/iv return lists of lists. With eps = 0 a constant row raises ValueError naming H1.
    """
    c = T.context(backend, dps)
    return c.entries(T.layer_norm(c, X, gamma, beta, eps=eps))


def rms_norm(X, gamma=None, *, backend: str = "float64", dps: int = 50, eps=0):
    """RMSNorm, row-wise (:func:`theorems.exact.transformer.rms_norm`); a zero row with eps = 0 raises naming H1."""
    return T.rms_norm(T.context(backend, dps), X, gamma, eps=eps)


def softmax_rows(S, backend: str = "float64", dps: int = 50, causal: bool = False):
    """Row-wise softmax (optionally causal).  # [n, n] -> [n, n]"""
    return T.softmax_rows(T.context(backend, dps), S, causal=causal)


def attention(X, head: Head, backend: str = "float64", dps: int = 50, causal: bool = False):
    """Return (A, Y): A = softmax(X W_Q W_K^T X^T / sqrt(d_k))  # [n, n];  Y = A X W_V  # [n, d_k]."""
    return T.attention(T.context(backend, dps), X, head, causal=causal)


def mha(X, heads, backend: str = "float64", dps: int = 50, return_heads: bool = False, causal: bool = False,
        gates=None):
    """MHA(X) = sum_h Y_h W_O^h  # [n, d_model] (no output bias, as in the paper)."""
    return T.mha(T.context(backend, dps), X, heads, causal=causal, gates=gates, return_heads=return_heads)


def gelu(x, backend: str = "float64", dps: int = 50):
    """Exact (erf) GELU, elementwise: x/2 (1 + erf(x / sqrt 2))."""
    return T.gelu(T.context(backend, dps), x)


def block_forward(X, blk: Block, regime: str, backend: str = "float64", dps: int = 50):
    """One layer in one of the regimes of the depth study (:func:`theorems.exact.transformer.block_forward`)."""
    return T.block_forward(T.context(backend, dps), X, blk, regime)
