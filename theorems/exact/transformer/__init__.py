r"""The transformer maps, written once over an arithmetic context (after mpmath's contexts).

One definition each of LayerNorm, RMSNorm, row softmax (optionally causal), single-head
attention, multi-head attention, GeLU, the FFN and a block (the regimes of the Dong explainer; the deployed
post-LN, pre-LN and pre-RMSNorm blocks, each with the causal mask as an option). The arithmetic is supplied by a
*context* object; the definitions only call its methods, so the same text runs in

``FP``        numpy float64, vectorised (exploration and the real model; float evidence)
``mp(dps)``   mpmath ``mp`` at ``dps`` digits, precision set locally (never a global side effect)
``iv(dps)``   mpmath ``iv`` intervals at ``dps`` digits: rigorous enclosures (erf through arb)
``arb(dps)``  python-flint ``arb``/``arb_mat`` balls at ``dps`` digits: rigorous enclosures
``MIDRAD``    midpoint-radius intervals of float64 on BLAS (INTLAB's arithmetic, round-to-nearest only): rigorous
              enclosures at double precision, products as float matrix products plus an a-priori error bound,
              exp and erf by tables and Taylor remainders (:mod:`.ctx_midrad`); 24 times faster than ``arb``
              on a MiniLM layer at 128 tokens, refused (``MidradRangeError``) beyond the double range, and
              carrying about one layer of depth (naive intervals lose about 8 digits per layer)
``SYMPY``     sympy, exact: rationals stay rationals, ``exp``/``erf`` stay symbolic
``SYMPY_LOG2``  sympy with the logits read in units of log 2 (``exp(s) := 2^s`` on integers), so
              softmax(log 2 * S) of an integer S is computed as an exact rational

The context protocol (every method takes and returns the context's native objects):

* ``local()``                   a context manager setting the working precision (restored after)
* ``asmatrix(M)``, ``asvector(v)``  convert exact input (int, Fraction, str, sympy/flint rationals,
  floats taken exactly, numpy arrays, lists of lists) or a native object
* ``const(q)``                  an exact rational as a number of the context
* ``shape(M)``; ``matmul(A, B)``, ``add(A, B)``, ``sub(A, B)``, ``transpose(A)``, ``hadamard(A, B)``
* ``scale(M, c)`` (c M), ``div_scalar(M, c)`` (M / c), ``add_scalar(M, c)``
* ``row_mean(M)``, ``row_sum(M)`` -> a column vector; ``sub_rows``, ``div_rows`` (M_ij op v_i),
  ``scale_rows`` (v_i M_ij), ``mul_cols``, ``add_cols`` (M_ij op v_j)
* ``exp(M, keep=None)`` (entries outside ``keep`` are exactly 0), ``erf(M)``, ``vsqrt(v)``, ``sqrt(c)``,
  ``vadd_scalar(v, c)``
* ``row_shift(S, keep)``         a point constant per row to subtract before exp (softmax is exactly
  invariant under it; the exact contexts shift by 0)
* ``zero_rows(v)``               the indices i with v_i certainly 0 (the H1 test of the norms);
  ``unsure_rows(v)`` those whose enclosure contains 0 without being 0 (iv, arb: H1 undecided)

One module per context (after mpmath's ``ctx_*.py``): :mod:`.ctx_fp`, :mod:`.ctx_mp`, :mod:`.ctx_iv`, :mod:`.ctx_arb`,
:mod:`.ctx_midrad`, :mod:`.ctx_sympy`, on the shared :mod:`.base`; the maps are written once in :mod:`.maps`. This
package is part of the exact layer and imports nothing numeric from the project.

>>> Y = layer_norm(mp(30), [[1, 2, 3], [0, 0, 1]])
>>> [round(float(v), 12) for v in [Y[0, 0], Y[0, 1], Y[0, 2]]]
[-1.224744871392, 0.0, 1.224744871392]
>>> softmax_rows(SYMPY, [[0, 0], [0, 0]])
Matrix([
[1/2, 1/2],
[1/2, 1/2]])
"""
from __future__ import annotations

from typing import Callable

from .base import ARCHITECTURES, BLOCK_TYPES, Block, Head, Operators, arb_from_mpf, workdps
from .ctx_arb import ArbContext, arb
from .ctx_fp import FP, FloatContext
from .ctx_iv import IvContext, iv, iv_erf
from .ctx_midrad import MIDRAD, Midrad, MidradContext, MidradRangeError, midrad
from .ctx_mp import MpContext, mp
from .ctx_sympy import SYMPY, SYMPY_LOG2, SympyContext, SympyLog2Context
from .maps import (
    attention,
    block_forward,
    causal_keep,
    deployed_block,
    ffn,
    gelu,
    layer_norm,
    mha,
    rms_norm,
    scores,
    softmax_rows,
    uniform_heads,
)

__all__ = ["Head", "Block", "ARCHITECTURES", "FP", "SYMPY", "SYMPY_LOG2", "mp", "iv", "arb", "context",
           "CONTEXTS", "layer_norm", "rms_norm", "softmax_rows", "causal_keep", "scores", "attention", "mha",
           "gelu", "ffn", "block_forward", "deployed_block", "BLOCK_TYPES", "uniform_heads", "iv_erf", "arb_from_mpf",
           "workdps", "FloatContext",
           "MpContext", "IvContext", "ArbContext", "SympyContext", "SympyLog2Context", "MIDRAD", "Midrad",
           "MidradContext", "MidradRangeError", "midrad"]

#: backend name -> context factory (takes dps); the numeric layer's wrappers look names up here
CONTEXTS: dict[str, Callable[..., Operators]] = {
    "float64": lambda dps=None: FP, "fp": lambda dps=None: FP, "mp": mp, "iv": iv, "arb": arb, "midrad": midrad,
    "sympy": lambda dps=None: SYMPY}


def context(backend, dps: int = 50):
    """The context for a backend name (or a context, returned as is)."""
    if not isinstance(backend, str):
        return backend
    try:
        make = CONTEXTS[backend]
    except KeyError:
        raise ValueError(f"unknown backend {backend!r}; choose from {tuple(CONTEXTS)}") from None
    return make(dps)
