"""Recovery ambiguity, numerically: PG-OP (per-position gated output projection) over float64, mpmath ``mp``
and ``iv``, the map whose kernel :mod:`theorems.paper.recovery_ambiguity` computes exactly.

The claims of this theorem are decided in exact arithmetic (kernel dimensions, BERT-base arithmetic); this
module only runs the gated map on concrete weights (the tests compare it with plain MHA at unit gates), so it
attaches no evidence.
"""
from __future__ import annotations

from proofs_numeric.core.transformer import Head, mha

__all__ = ["mha_pg_op", "EVIDENCE"]


def mha_pg_op(X, heads: list[Head], gates, backend: str = "float64", dps: int = 50):
    """PG-OP: sum_h diag(g_h) Y_h W_O^h, with gates g_h in R^n (one scalar per position and head)."""
    return mha(X, heads, backend, dps, gates=gates)


#: no numeric evidence: every claim of this theorem is decided exactly
EVIDENCE: dict = {}
