"""Recovery ambiguity, numerically: PG-OP (per-position gated output projection) over float64, mpmath ``mp``
and ``iv``, the map whose kernel :mod:`theorems.paper.recovery_ambiguity` computes exactly.

The claims of this theorem are decided in exact arithmetic (kernel dimensions, BERT-base arithmetic); this
module only runs the gated map on concrete weights (the tests compare it with plain MHA at unit gates), so it
attaches no evidence.
"""
from __future__ import annotations

import random

from sympy import Matrix, Rational

from proofs_numeric.core.transformer import Head, mha
from theorems.exact.heads import MAP_MAX_COLUMNS, map_nullity, w_o_instance_with_n
from theorems.exact.input import BadInput
from theorems.framework import Decided, InstanceForm, stable_seed
from theorems.paper.recovery_ambiguity import Phi_a_gated

__all__ = ["mha_pg_op", "EVIDENCE", "INSTANCE_FORMS"]


def mha_pg_op(X, heads: list[Head], gates, backend: str = "float64", dps: int = 50):
    """PG-OP: sum_h diag(g_h) Y_h W_O^h, with gates g_h in R^n (one scalar per position and head)."""
    return mha(X, heads, backend, dps, gates=gates)


#: no numeric evidence: every claim of this theorem is decided exactly
EVIDENCE: dict = {}


# --- PGOP.partial-remedy:diagonal-gates on a user's W_O (--W-O, --heads, --n): seeded non-zero gates, exact kernels --

def _gated_instance(user) -> dict:
    v = w_o_instance_with_n(user)
    if v["W_O"] is None or v["n"] * v["H"] * v["d_k"] > MAP_MAX_COLUMNS:
        raise BadInput(f"PGOP.partial-remedy: the map's matrix has n H d_k = {v['n'] * v['H'] * v['d_k']} columns; "
                       f"this check forms it exactly up to {MAP_MAX_COLUMNS}")
    rng = random.Random(stable_seed(f"PGOP.partial-remedy:user gates:{user.seed or 0}"))
    v["gates"] = [[Rational(rng.choice([1, 2, -1, 3])) for _ in range(v["n"])] for _ in range(v["H"])]
    return v


def _gates_known(v) -> Decided:
    """the gates g_h (one per position and head) are known and non-zero"""
    ok = all(g != 0 for row in v["gates"] for g in row)
    return Decided(ok, f"exact: gates {[[str(g) for g in row] for row in v['gates']]} (seeded, non-zero)")


def _gated_kernel_smaller(v) -> Decided:
    """dim ker[(Y_h) -> sum_h diag(g_h) Y_h W_O^h] < dim ker Phi_a"""
    n, H, dk, W = v["n"], v["H"], v["d_k"], v["W_O"]
    base = map_nullity(lambda Ys: Matrix.hstack(*Ys) * W, n, H, dk)
    gated = map_nullity(lambda Ys: Phi_a_gated(Ys, W, v["gates"]), n, H, dk)
    return Decided(gated < base, f"exact over Q: dim ker Phi_a = {base}, with the gates {gated} (per token the "
                                 "gated system is the same map with rescaled blocks)")


#: (claim id, reading key) -> how a user's input becomes an instance (collected by proofs_numeric.witnesses.evidence)
INSTANCE_FORMS = {
    ("PGOP.partial-remedy", "diagonal-gates"): InstanceForm(
        takes=("W_O", "n"), build=_gated_instance, hypotheses={"gates known": _gates_known},
        conclusion=_gated_kernel_smaller, arithmetic="exact over QQ (kernel dimensions, python-flint)",
        note="the gates: seeded non-zero values in {1, 2, -1, 3} (--prime-seed picks another draw)"),
}
