"""Numeric evidence for :mod:`theorems.paper.dong_explainer`: cosine similarity under Dong's collapse (the depth study).

With X = 1 m^T + R and the tokens x_i = m + r_i, Dong's relative residual rho gives ||r_i|| <= eps ||m|| with
eps^2 = n rho^2 / (1 - rho^2); two tokens then make an angle of at most 2 arcsin(eps), so
1 - cos(x_i, x_j) <= 2 eps^2 / (1 - eps^2). Once the depth study certifies rho_l < 2^-52, this bound is evaluated
exactly (rationals) at rho = 2^-52.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

from proofs_numeric.witnesses.dong_collapse import DEPTH_DPS, depth_results, no_dong_collapse
from theorems.exact import transformer as T
from theorems.exact.input import BadInput
from theorems.exact.instances import regime_of
from theorems.framework import Decided, Evidence, InstanceForm, interval_instances

__all__ = ["cosine_bound", "cosine_to_one", "EVIDENCE", "INSTANCE_FORMS"]


def cosine_bound(n: int, rho: Fraction) -> Fraction:
    """An upper bound on 1 - min_{i,j} cos(x_i, x_j) from Dong's relative residual rho (exact rationals)."""
    eps2 = n * rho ** 2 / (1 - rho ** 2)
    if eps2 >= 1:
        return Fraction(2)
    return 2 * eps2 / (1 - eps2)


def cosine_to_one(ctx) -> list[Evidence]:
    out = []
    for shape, runs in depth_results(ctx.quick)["shapes"]:
        r = runs["pure_attention"]
        L = r["machine_precision_layer_certified"]
        b = cosine_bound(shape["n"], Fraction(1, 2 ** 52)) if L is not None else None
        out.append(interval_instances(
            f"n={shape['n']}, d={shape['d']}, H={shape['H']}, d_k={shape['d_k']}, pure attention: rho certainly below "
            f"2^-52 from layer {L} on (rho_12 = {r['layers'][-1]['rho']}), so 1 - min cos(x_i, x_j) <= "
            + (f"{float(b):.3g} (the bound at rho = 2^-52, exact rationals)" if b is not None else "(no bound)"),
            None if b is None else b < Fraction(1, 10 ** 25), regime=regime_of(shape["n"], shape["d"]),
            arithmetic=f"python-flint arb balls at {DEPTH_DPS} digits for rho; the bound in exact rationals",
            numbers={**shape, "layer": L}, reason=None if b is not None else "rho not certainly below 2^-52"))
    return out


EVIDENCE = {
    ("DONG.cosine-to-one", "literal"): [cosine_to_one],
    ("DONG.cosine-to-one", "with-skip"): [lambda ctx: no_dong_collapse(ctx, "attention_skip")],
}


# --- DONG.breaks-affine-invariance on a user's points: --X one row x_1, ..., x_k, p uniform (collapse-verify check)

_GELU_DPS = 30


def _points(user) -> dict:
    X = user.matrix("X")
    if X.shape[0] != 1 or X.shape[1] < 2 or X.shape[1] > 64:
        raise BadInput("DONG.breaks-affine-invariance: --X is one row of 2 to 64 scalars x_1, ..., x_k (the points; "
                       f"p is uniform), got {X.shape[0]} x {X.shape[1]}")
    xs = [Fraction(v) for v in X.fractions()[0]]
    return {"x": xs, "mean": sum(xs, Fraction(0)) / len(xs)}


def _gelu_values(v) -> tuple:
    """(GELU(mean), [GELU(x_j)]) as arb balls."""
    ctx = T.arb(_GELU_DPS)
    g = T.gelu(ctx, [[v["mean"], *v["x"]]])
    return g[0, 0], [g[0, j + 1] for j in range(len(v["x"]))], ctx


def _not_affine_on_combinations(v) -> Decided:
    """sigma(sum_j p_j x_j) != sum_j p_j sigma(x_j) for sigma = GELU and for sigma = ReLU (p uniform)"""
    xs, m = v["x"], v["mean"]
    relu = max(m, Fraction(0)) - sum((max(x, Fraction(0)) for x in xs), Fraction(0)) / len(xs)
    g_mean, g, ctx = _gelu_values(v)
    with ctx.local():
        gap = g_mean - sum(g[1:], g[0]) / len(g)
    gelu_off = not gap.contains(0)
    words = (f"ReLU: ReLU(mean) - mean ReLU(x_j) = {relu} (exact); GELU: GELU(mean) - mean GELU(x_j) = {gap.str(10)} "
             f"(python-flint arb at {_GELU_DPS} digits)")
    if relu == 0 or len(set(xs)) == 1:
        return Decided(False, f"exact: {words}" + (": the points are all equal" if len(set(xs)) == 1 else
                                                   ": ReLU commutes with this convex combination"))
    if gelu_off:
        return Decided(True, f"certified: {words}: neither commutes with this convex combination")
    return Decided(None, f"undecided: {words}: the GELU ball contains 0")


def _outside_the_hull(v) -> Decided:
    """GELU(sum_j p_j x_j) lies outside conv{GELU(x_j)} = [min_j GELU(x_j), max_j GELU(x_j)] (p uniform)"""
    g_mean, g, ctx = _gelu_values(v)
    with ctx.local():
        below = [gj - g_mean for gj in g]
        above = [g_mean - gj for gj in g]
    if all(b > 0 for b in below) or all(a > 0 for a in above):
        return Decided(True, "certified (python-flint arb): GELU(mean) lies strictly "
                             + ("below" if all(b > 0 for b in below) else "above") + " every GELU(x_j)")
    if any(b < 0 for b in below) and any(a < 0 for a in above):
        return Decided(False, "certified (python-flint arb): GELU(mean) lies strictly between two of the GELU(x_j)")
    return Decided(None, "undecided: GELU(mean) is not certified to lie on one side of every GELU(x_j)")


_POINTS: dict[str, Any] = dict(
    takes=("X",), build=_points, arithmetic=f"ReLU exact over Q; GELU in python-flint arb balls at {_GELU_DPS} digits "
                                            "(erf)",
    note="--X: one row of points x_1, ..., x_k; p = (1/k, ..., 1/k)")

#: (claim id, reading key) -> how a user's input becomes an instance (collected by proofs_numeric.witnesses.evidence)
INSTANCE_FORMS = {
    ("DONG.breaks-affine-invariance", "literal"): InstanceForm(**_POINTS, hypotheses={},
                                                              conclusion=_not_affine_on_combinations),
    ("DONG.breaks-affine-invariance", "outside-the-hull"): InstanceForm(**_POINTS, hypotheses={},
                                                                       conclusion=_outside_the_hull),
}
