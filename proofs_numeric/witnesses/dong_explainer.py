"""Numeric evidence for :mod:`theorems.paper.dong_explainer`: cosine similarity under Dong's collapse (the depth study).

With X = 1 m^T + R and the tokens x_i = m + r_i, Dong's relative residual rho gives ||r_i|| <= eps ||m|| with
eps^2 = n rho^2 / (1 - rho^2); two tokens then make an angle of at most 2 arcsin(eps), so
1 - cos(x_i, x_j) <= 2 eps^2 / (1 - eps^2). Once the depth study certifies rho_l < 2^-52, this bound is evaluated
exactly (rationals) at rho = 2^-52.
"""
from __future__ import annotations

from fractions import Fraction

from proofs_numeric.witnesses.dong_collapse import DEPTH_DPS, depth_results, no_dong_collapse
from theorems.exact.instances import regime_of
from theorems.framework import Evidence, interval_instances

__all__ = ["cosine_bound", "cosine_to_one", "EVIDENCE"]


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
