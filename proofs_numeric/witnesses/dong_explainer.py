"""Numeric evidence for :mod:`theorems.paper.dong_explainer`: cosine similarity under Dong's collapse (the depth study).

With X = 1 m^T + R and the tokens x_i = m + r_i, Dong's relative residual rho gives ||r_i|| <= eps ||m|| with
eps^2 = n rho^2 / (1 - rho^2); two tokens then make an angle of at most 2 arcsin(eps), so
1 - cos(x_i, x_j) <= 2 eps^2 / (1 - eps^2). Once the depth study certifies rho_l < 2^-52, this bound is evaluated
exactly (rationals) at rho = 2^-52.

The instance forms on a user's row-stochastic ``--P`` (with ``--X``) decide DONG.markov-geometric (the geometric
bound, exact over Q), DONG.strictly-within-hull (relative interiors by an exact LP).
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import flint
import sympy
from sympy.solvers.simplex import InfeasibleLPError, lpmax

from proofs_numeric.witnesses.dong_collapse import DEPTH_DPS, depth_results, no_dong_collapse
from theorems.exact import transformer as T
from theorems.exact.input import BadInput
from theorems.exact.instances import regime_of
from theorems.framework import Decided, Evidence, InstanceForm, Undecidable, interval_instances

__all__ = ["cosine_bound", "cosine_to_one", "EVIDENCE", "INSTANCE_FORMS", "in_relative_interior"]


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


# --- a user's row-stochastic P (--P): DONG.markov-geometric, DONG.strictly-within-hull -----------------------------

#: the largest P (n x n) and X (entries) these exact forms take: powers of P and one LP per row, over Q
_P_MAX_N = 16
_MARKOV_X_MAX_ENTRIES = 1024


def _stochastic_instance(user, who: str) -> dict:
    """P (exact, row-stochastic: the reader checked it) and X with one row per state of P, as sympy rationals."""
    P, X = user.matrix("P"), user.matrix("X")
    n = P.shape[0]
    if n > _P_MAX_N:
        raise BadInput(f"{who}: --P is {n} x {n}; these exact forms take n <= {_P_MAX_N}")
    if X.shape[0] != n:
        raise BadInput(f"{who}: --X has {X.shape[0]} rows, --P is {n} x {n}: X needs one row per row of P")
    if X.shape[0] * X.shape[1] > _MARKOV_X_MAX_ENTRIES:
        raise BadInput(f"{who}: --X has {X.shape[0]} x {X.shape[1]} entries; these exact forms take up to "
                       f"{_MARKOV_X_MAX_ENTRIES}")
    return {"P": P.sympy(), "X": X.sympy()}


def _p_row_stochastic(v) -> Decided:
    """P is row-stochastic: entries >= 0, every row sums to 1 (exact)"""
    P = v["P"]
    ok = all(x >= 0 for x in P) and all(sum(P.row(i)) == 1 for i in range(P.shape[0]))
    return Decided(ok, "exact over Q: every entry >= 0 and every row sums to 1" if ok else
                   "exact over Q: a negative entry or a row not summing to 1")


def _sq_norm(M) -> Any:
    return sum((x ** 2 for x in M), sympy.Integer(0))


def _subdominant_squared(P) -> tuple[Any, str]:
    """|lambda_2|^2: the largest |mu|^2 over the eigenvalues of P with one copy of 1 removed (those of
    Q = P - 1 pi^T), as an exact rational when it is one, else a python-flint arb ball; and how it was found.

    The characteristic polynomial is exact (fmpq_mat), factored over Q: a linear factor gives a rational root, a
    quadratic factor with complex roots |mu|^2 = c / a exactly, any other factor certified root enclosures (arb)."""
    n = P.shape[0]
    cp = flint.fmpq_mat([[flint.fmpq(int(x.p), int(x.q)) for x in P.row(i)] for i in range(n)]).charpoly()
    _content, factors = cp.factor()
    exact: list[Fraction] = []
    balls: list[Any] = []
    removed = False
    for f, mult in factors:
        c = [Fraction(int(f[k].p), int(f[k].q)) for k in range(f.degree() + 1)]
        if f.degree() == 1:
            root = -c[0] / c[1]
            if root == 1 and not removed:
                mult, removed = mult - 1, True
            if mult:
                exact.append(root * root)
        elif f.degree() == 2 and c[1] ** 2 - 4 * c[0] * c[2] < 0:
            exact.append(c[0] / c[2])
        else:
            den = math.lcm(*(x.denominator for x in c))
            roots: list[Any] = list(flint.fmpz_poly([int(x * den) for x in c]).complex_roots())  # (acb, mult)
            balls.extend(z.real * z.real + z.imag * z.imag for z, _m in roots)
    top = max(exact, default=Fraction(0))
    if not balls:
        return top, "exact over Q (the characteristic polynomial factored over Q)"
    if all(b < flint.arb(flint.fmpq(top.numerator, top.denominator)) for b in balls):
        return top, "exact over Q (the largest modulus is a rational or complex-quadratic root; the others certified "\
                    "smaller in python-flint arb)"
    lo = max([b.lower() for b in balls] + [flint.arb(flint.fmpq(top.numerator, top.denominator))])
    hi = max([b.upper() for b in balls] + [flint.arb(flint.fmpq(top.numerator, top.denominator))])
    return flint.arb.union(lo, hi), "certified (python-flint arb enclosures of the irrational roots)"


def _markov_bound(v) -> Decided:
    """||P^l X^(0) - 1 x^T||_F <= |lambda_2|^l ||X^(0) - 1 x^T||_F for every l >= 1, x^T = pi^T X^(0)"""
    P, X0 = v["P"], v["X"]
    n = P.shape[0]
    null = (P.T - sympy.eye(n)).nullspace()
    if len(null) != 1:
        raise Undecidable(f"1 is an eigenvalue of P of multiplicity {len(null)}: P has no unique stationary pi, so "
                          "P^l X^(0) has no limit 1 x^T of the statement's form")
    pi = null[0] / sum(null[0])
    C = sympy.ones(n, 1) * (pi.T * X0)
    D, Q = X0 - C, P - sympy.ones(n, 1) * pi.T
    rho2, how = _subdominant_squared(P)
    base = _sq_norm(D)
    L = max(4, 2 * n)
    Ql, undecided_at = sympy.eye(n), []
    for l in range(1, L + 1):
        Ql = Ql * Q
        lhs = _sq_norm(Ql * D)  # = ||P^l X^(0) - 1 x^T||_F^2 (Q^l = P^l - 1 pi^T, pi^T D = 0)
        if isinstance(rho2, Fraction):
            bound = sympy.Rational(rho2.numerator, rho2.denominator) ** l * base
            if lhs > bound:
                return Decided(False, f"exact over Q: at l = {l}, ||X^(l) - 1 x^T||_F^2 = {lhs} > |lambda_2|^(2l) "
                                      f"||X^(0) - 1 x^T||_F^2 = {bound} (|lambda_2|^2 = {rho2}, {how}; pi = "
                                      f"{[str(x) for x in pi]})")
        else:
            a = flint.arb(flint.fmpq(int(lhs.p), int(lhs.q)))
            bound_ball = rho2 ** l * flint.arb(flint.fmpq(int(base.p), int(base.q)))
            if a > bound_ball:
                return Decided(False, f"certified: at l = {l}, ||X^(l) - 1 x^T||_F^2 = {lhs} > |lambda_2|^(2l) "
                                      f"||X^(0) - 1 x^T||_F^2 in {bound_ball.str(8)} ({how})")
            if not a <= bound_ball:
                undecided_at.append(l)
    checked = f"the bound holds at l = 1..{L}" + (f" except l = {undecided_at} (enclosures overlap)"
                                                  if undecided_at else "")
    if base == 0:
        return Decided(True, "exact: X^(0) = 1 x^T already, both sides are 0 for every l")
    QD = Q * D
    k = next(i for i, x in enumerate(D) if x != 0)
    mu = QD[k] / D[k]
    if QD == mu * D:
        return Decided(True, f"exact over Q: X^(0) - 1 x^T is an eigenvector of Q = P - 1 pi^T (eigenvalue {mu}), so "
                             f"||X^(l) - 1 x^T|| = |{mu}|^l ||X^(0) - 1 x^T|| <= |lambda_2|^l ||X^(0) - 1 x^T|| for "
                             "every l (|mu| <= rho(Q) = |lambda_2|)")
    if Q * Q.T == Q.T * Q:
        return Decided(True, "exact over Q: Q = P - 1 pi^T is normal, so ||Q^l||_2 = rho(Q)^l = |lambda_2|^l and "
                             f"||X^(l) - 1 x^T||_F <= ||Q^l||_2 ||X^(0) - 1 x^T||_F for every l; {checked}")
    return Decided(None, f"{checked} ({how}); every l is not decided on this instance: Q = P - 1 pi^T is not normal "
                         "and X^(0) - 1 x^T is not an eigenvector of it")


def in_relative_interior(points, p) -> tuple[bool, Any]:
    """(p lies in the relative interior of conv(points), the largest t with p = sum_j w_j x_j, w_j >= t, sum w = 1):
    relint conv{x_j} is the set of combinations with every w_j > 0, so p is in it iff that LP's optimum t > 0
    (exact: sympy's rational simplex). None for t when p is not in the hull at all."""
    k = len(points)
    w = sympy.symbols(f"w0:{k}")
    t = sympy.Symbol("t")
    cons = [wj >= t for wj in w] + [sympy.Eq(sum(w), 1)]
    cons += [sympy.Eq(sum(w[j] * points[j][c] for j in range(k)), p[c]) for c in range(len(p))]
    try:
        best, _ = lpmax(t, cons)
    except InfeasibleLPError:
        return False, None
    return bool(best > 0), best


def _combinations_in_relint(v) -> Decided:
    """every row of P X (a convex combination of the rows x_j of X) lies in relint conv{x_j}"""
    P, X = v["P"], v["X"]
    pts = [list(X.row(j)) for j in range(X.shape[0])]
    for i in range(P.shape[0]):
        if all(x > 0 for x in P.row(i)):
            continue  # every weight positive: in the relative interior by definition
        inside, t = in_relative_interior(pts, list((P.row(i) * X)))
        if not inside:
            return Decided(False, f"exact over Q (LP): row {i} of P X = {[str(x) for x in P.row(i) * X]} (weights "
                                  f"{[str(x) for x in P.row(i)]}) is not a combination of the x_j with every weight "
                                  f"> 0 (the largest least weight is {t}): on the relative boundary of the hull")
    return Decided(True, "exact over Q: every row of P X is a combination of the x_j with every weight > 0 (rows with "
                         "a zero weight decided by an exact LP), so it lies in relint conv{x_j}")


def _affinely_independent(v) -> Decided:
    """the rows x_j of X are affinely independent: rank [X | 1] = n (exact)"""
    X = v["X"]
    r = X.row_join(sympy.ones(X.shape[0], 1)).rank()
    return Decided(r == X.shape[0], f"exact over Q: rank [X | 1] = {r}, n = {X.shape[0]}")


def _positive_weights(v) -> Decided:
    """positive weights (softmax rows): every entry of P > 0"""
    return Decided(all(x > 0 for x in v["P"]), "exact over Q: every entry of P > 0" if all(x > 0 for x in v["P"])
                   else "exact over Q: P has a zero entry")


_STOCHASTIC: dict[str, Any] = dict(takes=("P", "X"), arithmetic="exact over Q (sympy)")

INSTANCE_FORMS.update({
    ("DONG.markov-geometric", "literal"): InstanceForm(
        **{**_STOCHASTIC, "arithmetic": "exact over Q (powers of P, the characteristic polynomial factored over Q); "
                                        "irrational |lambda_2| in python-flint arb"},
        build=lambda user: _stochastic_instance(user, "DONG.markov-geometric"),
        hypotheses={"P fixed, row-stochastic": _p_row_stochastic}, conclusion=_markov_bound,
        note="--P the transition matrix, --X the start X^(0) (n x d); x^T = pi^T X^(0) (pi stationary); the bound "
             "checked exactly at l = 1..max(4, 2n), every l decided when Q = P - 1 pi^T is normal or X^(0) - 1 x^T "
             "is an eigenvector of Q"),
    ("DONG.strictly-within-hull", "literal"): InstanceForm(
        **_STOCHASTIC, build=lambda user: _stochastic_instance(user, "DONG.strictly-within-hull"),
        hypotheses={"convex weights": _p_row_stochastic}, conclusion=_combinations_in_relint,
        note="--X the points x_j (its rows), --P rows of convex weights: each row of P X is a weighted average"),
    ("DONG.strictly-within-hull", "positive-weights"): InstanceForm(
        **_STOCHASTIC, build=lambda user: _stochastic_instance(user, "DONG.strictly-within-hull"),
        hypotheses={"affinely independent points": _affinely_independent,
                    "positive weights (softmax rows)": _positive_weights}, conclusion=_combinations_in_relint,
        note="--X the points x_j (its rows), --P rows of convex weights"),
})
