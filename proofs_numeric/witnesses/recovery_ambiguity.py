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
from theorems.exact.heads import MAP_MAX_COLUMNS, map_nullity, w_o_instance, w_o_instance_with_n
from theorems.exact.input import BadInput
from theorems.framework import Decided, InstanceForm, stable_seed
from theorems.paper import head_channel as HC_PAPER
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


# --- the head-channel kernels on a user's W_O (--W-O, --heads, --n): exact, from the certified rank of W_O ---

def _rank(v) -> int:
    if v["rank_W_O"] is None:
        raise BadInput(f"rank W_O is not certified ({v['rank_how']})")
    return int(v["rank_W_O"])


def _w_o_given(v) -> Decided:
    """W_O is given (known)"""
    return Decided(True, f"W_O given ({v['W_O_shape'][0]} x {v['W_O_shape'][1]})")


def _wo_adds_ambiguity(v) -> Decided:
    """dim ker[(Y_h) -> sum_h Y_h W_O^h] > dim ker[(Y_h) -> sum_h Y_h]"""
    n, H, dk, r = v["n"], v["H"], v["d_k"], _rank(v)
    a, b = n * (H * dk - r), n * (H - 1) * dk
    return Decided(a > b, f"exact: dim ker Phi_a = n (H d_k - rank W_O) = {a}, dim ker Phi_b = n (H - 1) d_k = {b} "
                          f"(rank W_O = {r}: {v['rank_how']})")


def _n_h_positive(v) -> Decided:
    """n, H > 0"""
    return Decided(v["n"] > 0 and v["H"] > 0, f"exact: n = {v['n']}, H = {v['H']}")


def _rank_condition(v) -> Decided:
    """dim ker Phi_a = n (H - 1) d_k exactly when rank W_O = d_k"""
    n, H, dk, r = v["n"], v["H"], v["d_k"], _rank(v)
    left, right = n * (H * dk - r) == n * (H - 1) * dk, r == dk
    return Decided(left == right, f"exact: dim ker Phi_a = {n * (H * dk - r)} {'=' if left else '!='} n (H - 1) d_k = "
                                  f"{n * (H - 1) * dk}; rank W_O = {r} {'=' if right else '!='} d_k = {dk}")


def _gauge_instance(user) -> dict:
    v = w_o_instance(user)
    if v["W_O"] is None:
        raise BadInput("HC.main c-gauge multiplies W_O exactly; this W_O is too large for it")
    rng = random.Random(stable_seed(f"HC.main:c-gauge:user:{user.seed or 0}"))
    v["Y"] = [Matrix(v["n"], v["d_k"], lambda i, j: Rational(rng.randint(-3, 3))) for _ in range(v["H"])]
    return v


def _gauge_leaves_sum(v) -> Decided:
    """(Y_h, W_O^h) -> (Y_h M, M^{-1} W_O^h) leaves sum_h Y_h W_O^h unchanged (M the unitriangular ones matrix)"""
    dk, W = v["d_k"], v["W_O"]
    M = Matrix(dk, dk, lambda i, j: 1 if j >= i else 0)
    blocks = [W[h * dk:(h + 1) * dk, :] for h in range(v["H"])]
    before = sum((Y * B for Y, B in zip(v["Y"], blocks)), Matrix.zeros(v["n"], W.shape[1]))
    after = sum((Y * M * (M.inv() * B) for Y, B in zip(v["Y"], blocks)), Matrix.zeros(v["n"], W.shape[1]))
    return Decided(before == after, "exact over Q: sum_h Y_h W_O^h " + ("=" if before == after else "!=")
                   + " sum_h (Y_h M)(M^{-1} W_O^h), Y_h seeded integers, M the d_k x d_k unitriangular ones matrix")


def _trained_w_o(v) -> Decided:
    """W_O is the output projection of a trained checkpoint"""
    if v.get("site"):
        return Decided(True, f"the output projection of the checkpoint given: {v['site']}")
    return Decided(None, "undecided: a command line's --W-O is not known to be a trained model's; `collapse-verify "
                         "check CLAIM --model DIR` evaluates this reading at a checkpoint's output projections")


def _w_o_deficient(v) -> Decided:
    """rank W_O < H d_k"""
    r, m = _rank(v), v["H"] * v["d_k"]
    return Decided(r < m, f"exact: rank W_O = {r} {'<' if r < m else '='} H d_k = {m} ({v['rank_how']})")


def _site_w_o(user) -> dict:
    v = w_o_instance(user)
    v["site"] = user.site
    return v


_W_O_ARITH = "exact over Q: rank W_O certified on the exact values (python-flint)"

#: (claim id, reading key) -> how a user's input becomes an instance (collected by proofs_numeric.witnesses.evidence)
INSTANCE_FORMS = {
    # HC.mlp-cannot-remedy's literal and residual-stream reading: the theorems layer's exact forms (names-only
    # readings get their forms from a part of the suite)
    ("HC.mlp-cannot-remedy", "literal"): HC_PAPER.COLLISION_FORM,
    ("HC.mlp-cannot-remedy", "residual-stream-W_O"): HC_PAPER.RESIDUAL_COLLISION_FORM,
    ("HC.wo-induces", "literal"): InstanceForm(
        takes=("W_O", "n"), build=w_o_instance_with_n, hypotheses={"W_O known": _w_o_given},
        conclusion=_wo_adds_ambiguity, arithmetic=_W_O_ARITH, sites=("output-projection",)),
    ("RA.main", "a-rank-condition"): InstanceForm(
        takes=("W_O", "n"), build=w_o_instance_with_n, hypotheses={"n, H > 0": _n_h_positive},
        conclusion=_rank_condition, arithmetic=_W_O_ARITH, sites=("output-projection",)),
    ("HC.main", "c-gauge"): InstanceForm(
        takes=("W_O",), optional=("n",), build=_gauge_instance, hypotheses={}, conclusion=_gauge_leaves_sum,
        arithmetic="exact over Q", note="Y_h: seeded integer head outputs (n x d_k); M: the unitriangular ones matrix"),
    ("HC.main", "trained-model"): InstanceForm(
        takes=("W_O",), optional=("n",), build=_site_w_o,
        hypotheses={"the W_O of a trained model": _trained_w_o}, conclusion=_w_o_deficient, arithmetic=_W_O_ARITH,
        sites=("output-projection",), note="decided at a checkpoint's output projections (check CLAIM --model DIR)"),
    ("PGOP.partial-remedy", "diagonal-gates"): InstanceForm(
        takes=("W_O", "n"), build=_gated_instance, hypotheses={"gates known": _gates_known},
        conclusion=_gated_kernel_smaller, arithmetic="exact over QQ (kernel dimensions, python-flint)",
        note="the gates: seeded non-zero values in {1, 2, -1, 3} (--prime-seed picks another draw)"),
}
