"""High-precision, interval-certified witness for Rank-Neutrality (Thm 4.2).

The exact layer (:mod:`theorems.paper.rank_neutrality`) decides every rank through a
derived formula. This module checks those numbers independently: it evaluates
LN(X) itself in mpmath ``iv`` interval arithmetic and certifies

* lower bounds on ``rank(LN X)`` and on ``arank(LN X) = rank([LN X | 1]) - 1``
  from a minor whose interval determinant excludes 0;
* upper bounds from exact structure: ``arank(LN X) <= rank(X~ Gamma)`` and
  ``rank(LN X) <= rank(X~ Gamma) + [beta != 0]`` (exact ranks over QQ).

When the two meet, the rank is certified. Precision is doubled until the
certificate closes or ``max_dps`` is reached; an open certificate is reported
as an interval ``[lower, upper]``, never rounded.

Examples
========
>>> w = witness([[0, 2, -2], [1, 1, -2], [2, 0, -2]], dps=50)
>>> w["value"]["arank_LN_X"], w["exact"]["arank_X"]
([2, 2], 1)
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import flint
import mpmath
import sympy

from proofs_numeric.core.certify import PrecisionExhausted, certified_rank_lower_bound
from proofs_numeric.core.transformer import layer_norm, workdps
from theorems.exact import layernorm as RN
from theorems.exact.blocks import centred, row_variances
from theorems.exact.instances import regime_of
from theorems.exact.linalg import affine_rank, rank
from theorems.framework import (
    CheckContext,
    Decided,
    Evidence,
    InstanceForm,
    Undecidable,
    interval_witness,
    load_counterexample,
    relative_path,
)
from theorems.paper import rank_neutrality as RN_PAPER

__all__ = ["witness", "certify_counterexample", "PrecisionExhausted", "EVIDENCE", "INSTANCE_FORMS"]


def _bounds(inst: RN.LNInstance, dps: int) -> dict:
    Y = layer_norm(inst.X.tolist(), inst.gamma, inst.beta, backend="iv", dps=dps)  # [n, d] intervals
    with workdps(mpmath.iv, dps):
        Yb = [row + [mpmath.iv.mpf(1)] for row in Y]  # [n, d+1]
    lr = certified_rank_lower_bound(Y, dps)
    la = certified_rank_lower_bound(Yb, dps)
    width = max(float(v.delta) for row in Y for v in row)
    return {"rank_lower": lr, "arank_lower": la, "max_width": width}


def witness(X, gamma=None, beta=None, dps: int = 50, max_dps: int = 800) -> dict:
    """Certified ranks of LN(X); returns ``{value, dps, residual, agreed_at_dps, ...}``."""
    inst = RN.instance(X, gamma, beta)
    a = RN.analyse(inst)
    RN.require_H1(inst)
    A = RN.centred(inst.X) * RN.gamma_diag(inst)
    rA = rank(A)
    upper_arank = rA
    upper_rank = rA + (1 if any(b != 0 for b in inst.beta) else 0)
    prev = None
    p = dps
    while True:
        b = _bounds(inst, p)
        low_r = b["rank_lower"]["lower"]
        low_a = b["arank_lower"]["lower"] - 1
        closed = low_r == upper_rank and low_a == upper_arank
        if closed or (prev is not None and (low_r, low_a) == prev):
            break
        if p >= max_dps:
            raise PrecisionExhausted(f"rank lower bounds still moving at {p} digits")
        prev = (low_r, low_a)
        p *= 2
    mp = mpmath.mp
    with workdps(mp, 2 * p):
        Y1 = layer_norm(inst.X.tolist(), inst.gamma, inst.beta, backend="mp", dps=p)
        Y2 = layer_norm(inst.X.tolist(), inst.gamma, inst.beta, backend="mp", dps=2 * p)
        residual = max(abs(u - v) for r1, r2 in zip(Y1, Y2) for u, v in zip(r1, r2))
    return {
        "value": {"rank_LN_X": [low_r, upper_rank], "arank_LN_X": [low_a, upper_arank]},
        "certified": {"rank_LN_X": low_r == upper_rank, "arank_LN_X": low_a == upper_arank},
        "dps": p,
        "agreed_at_dps": p,
        "residual": mpmath.nstr(residual, 5),
        "minors": {"rank": b["rank_lower"], "arank": b["arank_lower"]},
        "max_interval_width": b["max_width"],
        "exact": {"rank_X": a.rank_X, "arank_X": a.arank_X, "rank_LN_X": a.rank_LN_X, "arank_LN_X": a.arank_LN_X},
        "arithmetic": f"mpmath iv at {p} digits (lower bounds); exact QQ ranks (upper bounds)",
    }


def certify_counterexample(claim_id: str, name: str = "", dps: int = 50, quantity: str = "arank") -> Evidence:
    """Interval-certify that the stored instance breaks ``arank``/``rank`` preservation."""
    data, path = load_counterexample(claim_id, name)
    w = witness(data["X"], data.get("gamma"), data.get("beta"), dps=dps)
    key_ln, key_x = (("arank_LN_X", "arank_X") if quantity == "arank" else ("rank_LN_X", "rank_X"))
    low = w["value"][key_ln][0]
    x_val = w["exact"][key_x]
    differs = low > x_val
    m = w["minors"][quantity if quantity == "rank" else "arank"]
    rel = relative_path(path)
    return interval_witness(
        (f"stored instance {rel}: {quantity}(LN X) >= {low} certified (minor rows {m['minor_rows']}, det in "
         f"[{m['det'][0]}, {m['det'][1]}]) > {quantity}(X) = {x_val} (exact)") if differs
        else f"stored instance {rel}: interval bound {low} does not separate from {quantity}(X) = {x_val}",
        False if differs else None,
        regime=regime_of(len(data["X"]), len(data["X"][0])),
        arithmetic=w["arithmetic"], numbers={"dps": w["dps"], "lower": low, key_x: x_val},
        reason=None if differs else "the enclosure does not separate the ranks at this precision")


def _certified_main(ctx: CheckContext) -> list[Evidence]:
    """RN.main: the stored counterexample's arank(LN X) > arank(X), certified by interval minors."""
    return [certify_counterexample("RN.main", dps=ctx.dps)]


#: numeric evidence attached by (claim id, reading key) (collected by :mod:`proofs_numeric.witnesses.evidence`)
EVIDENCE = {("RN.main", "literal"): [_certified_main]}


# --- RN.hypotheses-at-init on a user's X: the Analysis the RN claims' predicates read (theorems.paper.rank_neutrality)

def _standard_init(a) -> Decided:
    """gamma = 1 and beta = 0 (the LayerNorm parameters at standard initialisation)"""
    inst = a.inst
    ok = all(g == 1 for g in inst.gamma) and all(b == 0 for b in inst.beta)
    return Decided(ok, "exact: gamma = 1 and beta = 0" if ok else "exact: gamma != 1 or beta != 0")


def _h1_to_h4(a) -> Decided:
    """H1, H2, H3 and H4 all hold"""
    vals = {k: RN_PAPER.HYPOTHESIS[k](a) for k in ("H1", "H2", "H3", "H4")}
    words = "; ".join(f"{k} {'holds' if v else 'fails' if v is False else 'undecided'}" for k, v in vals.items())
    if all(v is True for v in vals.values()):
        return Decided(True, f"exact: {words}")
    if any(v is False for v in vals.values()):
        return Decided(False, f"exact: {words}")
    return Decided(None, f"undecided: {words}")


#: (claim id, reading key) -> how a user's input becomes an instance; the claim's hypothesis and conclusion decided on
#: the same Analysis the RN claims' Pool is decided on
INSTANCE_FORMS = {
    ("RN.hypotheses-at-init", "literal"): InstanceForm(
        takes=RN_PAPER.USER_INSTANCE.takes, optional=RN_PAPER.USER_INSTANCE.optional, build=RN_PAPER.from_user,
        arithmetic=RN_PAPER.USER_INSTANCE.arithmetic, regime=RN_PAPER.USER_INSTANCE.regime,
        hypotheses={"standard initialisation": _standard_init}, conclusion=_h1_to_h4,
        note="X stands for the Gaussian draw: the statement is almost sure in X, so an X where H1-H4 fail is an "
             "exceptional point; gamma, beta default to 1, 0"),
}


# --- the trained-model readings at a checkpoint's LayerNorm sites (check CLAIM --model DIR): the premise is where X
# comes from, met at a site, undecided on a command line's --X ---

def _with_site(user):
    a = RN_PAPER.from_user(user)
    a.site = user.site
    return a


def _at_trained_site(a) -> Decided:
    """X is the input of a LayerNorm of a trained checkpoint"""
    site = getattr(a, "site", None)
    if site:
        return Decided(True, f"the input of a LayerNorm site of the checkpoint given: {site}")
    return Decided(None, "undecided: a command line's --X is not known to be a LayerNorm input of a trained model; "
                         "`collapse-verify check CLAIM --model DIR` evaluates this reading at a checkpoint's sites")


def _arank_kept(a) -> bool | None:
    """arank(LN X) = arank(X)"""
    return a.conclusion_holds


_SITE: dict[str, Any] = dict(
    takes=RN_PAPER.USER_INSTANCE.takes, optional=RN_PAPER.USER_INSTANCE.optional, build=_with_site,
    explain=RN_PAPER.USER_INSTANCE.explain,
    arithmetic=RN_PAPER.USER_INSTANCE.arithmetic, regime=RN_PAPER.USER_INSTANCE.regime, sites=("layernorm-input",),
    note="decided at a checkpoint's LayerNorm sites (check CLAIM --model DIR)")
INSTANCE_FORMS[("RN.hypotheses-in-training", "literal")] = InstanceForm(
    **_SITE, hypotheses={"a trained model": _at_trained_site}, conclusion=_h1_to_h4)
INSTANCE_FORMS[("RN.hypotheses-at-init", "trained-model")] = InstanceForm(
    **_SITE, hypotheses={"a LayerNorm input of a trained model": _at_trained_site}, conclusion=_h1_to_h4)
INSTANCE_FORMS[("RN.main", "trained-model")] = InstanceForm(
    **_SITE, hypotheses={"a LayerNorm input of a trained model": _at_trained_site}, conclusion=_arank_kept)


# --- RN.H4-generic:width-two and RN.step3:without-H3 on a user's X (and gamma) ---

def _width_two(a) -> Decided:
    """d = 2"""
    return Decided(a.d == 2, f"exact: d = {a.d}")


def _h1_of(a) -> Decided:
    """no row of X is constant (H1: LayerNorm without epsilon is defined, and H4 is)"""
    v = RN_PAPER.HYPOTHESIS["H1"](a)
    return Decided(v, f"exact: H1 {'holds' if v else 'fails' if v is False else 'undecided'}")


def _h4_is_sign_rule(a) -> Decided:
    """H4 holds exactly when the differences x_i1 - x_i2 do not all share one sign"""
    h4 = RN_PAPER.HYPOTHESIS["H4"](a)
    rule = RN_PAPER.h4_width_two(a.inst.X)
    if h4 is None or rule is None:
        return Decided(None, "undecided: H4 or the sign rule is undefined here (a constant row)")
    return Decided(h4 == rule, f"exact: H4 {'holds' if h4 else 'fails'}; the differences x_i1 - x_i2 "
                               f"{'do not all share' if rule else 'all share'} one sign")


def _some_zero_gamma(a) -> Decided:
    """n >= 2 and some gamma_j = 0 (H3 fails)"""
    zero = [j + 1 for j, g in enumerate(a.inst.gamma) if g == 0]
    return Decided(a.n >= 2 and bool(zero), f"exact: n = {a.n}; gamma_j = 0 at j = {zero}")


def _arank_drops(a) -> Decided:
    """arank(X diag(gamma)) < arank(X)"""
    X = a.inst.X
    Y = X * sympy.diag(*a.inst.gamma)
    ry, rx = affine_rank(Y), affine_rank(X)
    return Decided(ry < rx, f"exact: arank(X diag gamma) = {ry}, arank X = {rx}")


_RN_FORM: dict[str, Any] = dict(
    takes=RN_PAPER.USER_INSTANCE.takes, optional=RN_PAPER.USER_INSTANCE.optional, build=RN_PAPER.from_user,
    explain=RN_PAPER.USER_INSTANCE.explain,
    arithmetic=RN_PAPER.USER_INSTANCE.arithmetic, regime=RN_PAPER.USER_INSTANCE.regime)
INSTANCE_FORMS[("RN.H4-generic", "width-two")] = InstanceForm(
    **_RN_FORM, hypotheses={"d = 2": _width_two, "H1": _h1_of}, conclusion=_h4_is_sign_rule)
INSTANCE_FORMS[("RN.step3", "without-H3")] = InstanceForm(
    **_RN_FORM, hypotheses={"n >= 2 and some gamma_j = 0": _some_zero_gamma}, conclusion=_arank_drops,
    note="--gamma gives gamma (a zero entry is the case the reading is about)")


# --- RN.effective-dimensionality:effective-rank on a user's X: Roy and Vetterli's effective rank, certified ---------

#: bits of the arb enclosures of the singular values and of the effective ranks
_ERANK_PREC = 200
#: the Gram matrices' characteristic polynomials are exact up to this size min(n, d)
_ERANK_MAX_SIDE = 48


def _grams(a) -> tuple[Any, Any]:
    """(G_X, G_Y) with the non-zero eigenvalues of X^T X and of LN(X)^T LN(X), both rational (beta = 0): the n x n
    X X^T and D^-1 Xt Gamma^2 Xt^T when n <= d, else the d x d X^T X and Gamma Xt^T D^-1 Xt Gamma (D = diag s)."""
    inst = a.inst
    if any(b != 0 for b in inst.beta):
        raise Undecidable("beta != 0: the Gram matrix of LN(X) then involves 1/sqrt(s_i) and is not rational; this "
                          "reading is decided exactly for beta = 0 only")
    if min(a.n, a.d) > _ERANK_MAX_SIDE:
        raise Undecidable(f"min(n, d) = {min(a.n, a.d)} is above {_ERANK_MAX_SIDE}, the size up to which the Gram "
                          "matrices' characteristic polynomials are computed exactly here")
    X = inst.X
    Xt = centred(X)
    s = row_variances(Xt)
    G2 = sympy.diag(*[g ** 2 for g in inst.gamma])
    if a.n <= a.d:
        return X * X.T, sympy.diag(*[1 / v for v in s]) * Xt * G2 * Xt.T
    G = sympy.diag(*inst.gamma)
    return X.T * X, G * Xt.T * sympy.diag(*[1 / v for v in s]) * Xt * G


def _fmpq_mat(M) -> Any:
    return flint.fmpq_mat([[flint.fmpq(int(x.p), int(x.q)) for x in M.row(i)] for i in range(M.shape[0])])


def _nonzero_eigen_charpoly(M) -> tuple[list[Fraction], int]:
    """(the characteristic polynomial of M with its factor x^(m - rank M) divided out, low degree first; rank M),
    exact over Q"""
    F = _fmpq_mat(M)
    r = F.rank()
    cp = F.charpoly()
    coeffs = [Fraction(int(cp[k].p), int(cp[k].q)) for k in range(cp.degree() + 1)]
    return coeffs[M.shape[0] - r:], r


def _effective_rank_ball(coeffs: list[Fraction]) -> Any:
    """exp H(sigma / sum sigma) over the square roots sigma of the roots of the polynomial (all positive), an arb
    enclosure (certified root isolation: python-flint's complex_roots)."""
    den = math.lcm(*(c.denominator for c in coeffs))
    roots: list[Any] = list(flint.fmpz_poly([int(c * den) for c in coeffs]).complex_roots())  # (acb, multiplicity)
    sig = []
    for z, mult in roots:
        lam = z.real
        if not lam > 0:
            raise Undecidable("a non-zero eigenvalue of a Gram matrix is not enclosed away from 0")
        sig += [lam.sqrt()] * mult
    total = sum(sig[1:], sig[0])
    ent = -sum((p * p.log() for p in (x / total for x in sig)), flint.arb(0))
    return ent.exp()


def _spectra_proportional(GX, GY) -> bool:
    """the spectra of GY are those of GX times one factor c (exact: e_j(GY) = c^j e_j(GX), c = tr GY / tr GX)"""
    px, py = _fmpq_mat(GX).charpoly(), _fmpq_mat(GY).charpoly()
    m = GX.shape[0]
    tx, ty = GX.trace(), GY.trace()
    if tx == 0:
        return False
    c = flint.fmpq(int((ty / tx).p), int((ty / tx).q))
    return all(py[m - j] == c ** j * px[m - j] for j in range(m + 1))


def _effective_rank_kept(a) -> Decided:
    """erank LN(X) = erank X (erank M = exp H(sigma / sum sigma), Roy and Vetterli)"""
    GX, GY = _grams(a)
    old = flint.ctx.prec
    flint.ctx.prec = _ERANK_PREC
    try:
        (cx, rx), (cy, ry) = _nonzero_eigen_charpoly(GX), _nonzero_eigen_charpoly(GY)
        ex, ey = _effective_rank_ball(cx), _effective_rank_ball(cy)
        words = (f"erank X in {ex.str(12)}, erank LN(X) in {ey.str(12)} (non-zero singular values: {rx} and {ry}, "
                 "exactly; enclosures from the exact characteristic polynomials of the Gram matrices, python-flint "
                 f"arb at {_ERANK_PREC} bits)")
        if ex.overlaps(ey):
            if _spectra_proportional(GX, GY):
                return Decided(True, "exact over Q: the singular values of LN(X) are those of X times one factor (the "
                                     f"Gram spectra are proportional), so the distributions sigma / sum sigma agree; "
                                     f"{words}")
            return Decided(None, f"undecided: the enclosures overlap and the spectra are not proportional; {words}")
        return Decided(False, f"certified: the enclosures are disjoint; {words}")
    finally:
        flint.ctx.prec = old


INSTANCE_FORMS[("RN.effective-dimensionality", "effective-rank")] = InstanceForm(
    takes=RN_PAPER.USER_INSTANCE.takes, optional=RN_PAPER.USER_INSTANCE.optional, build=RN_PAPER.from_user,
    explain=RN_PAPER.USER_INSTANCE.explain, regime=RN_PAPER.USER_INSTANCE.regime,
    hypotheses=RN_PAPER.given("H1", "H2", "H3", "H4"), conclusion=_effective_rank_kept,
    arithmetic=f"certified: exact Gram matrices over Q (beta = 0), their characteristic polynomials' roots enclosed in "
               f"python-flint arb at {_ERANK_PREC} bits; equality decided exactly when the spectra are proportional",
    note="the effective rank exp H(sigma / sum sigma) over the exactly non-zero singular values (the ledger's float64 "
         "evidence drops those below 1e-12 sigma_1)")
