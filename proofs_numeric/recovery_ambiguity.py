"""Recovery ambiguity, numerically: PG-OP (per-position gated output projection) over float64, mpmath ``mp``
and ``iv``, the map whose kernel :mod:`theorems.recovery_ambiguity` computes exactly.

The claims of this theorem are decided in exact arithmetic (kernel dimensions, BERT-base arithmetic); this
module only runs the gated map on concrete weights (the tests compare it with plain MHA at unit gates), so it
attaches no evidence.
"""
from __future__ import annotations

import mpmath
import numpy as np

from .transformer import Head, backend_matrix, attention, workdps

__all__ = ["mha_pg_op", "EVIDENCE"]


def mha_pg_op(X, heads: list[Head], gates, backend: str = "float64", dps: int = 50):
    """PG-OP: sum_h diag(g_h) Y_h W_O^h, with gates g_h in R^n (one scalar per position and head)."""
    X = backend_matrix(X, backend, dps)
    out = None
    for h, head in enumerate(heads):
        _, Y = attention(X, head, backend, dps)
        WO = backend_matrix(head.W_O, backend, dps)
        if backend == "float64":
            term = np.diag(np.asarray(gates[h], dtype=float)) @ Y @ WO
        else:
            ctx = mpmath.mp if backend == "mp" else mpmath.iv
            with workdps(ctx, dps):
                G = ctx.diag([ctx.mpf(g) for g in gates[h]])
                term = G * Y * WO
        out = term if out is None else out + term
    return out


#: no numeric evidence: every claim of this theorem is decided exactly
EVIDENCE: dict = {}
