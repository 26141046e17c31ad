r"""Claims of the Dong et al. (2021) explainer, and the paper's "no Dong collapse" claim.

The rates are measured by the depth study (:mod:`proofs_numeric.depth`, python-flint arb
balls at 1000 digits, (m, R) formulation); the softmax identity is exact (sympy).

Readings
========
``DONG.collapse-rate``            pure attention: log rho_{l+1} / log rho_l -> 3
``DONG.machine-precision-5-7``    pure attention (12 layers): rho first drops below 2^-52 at layer 5, 6 or 7
``DONG.skip-lower-bound``         attention + skip: ||R^l|| >= (1 - gamma)^l ||R^0|| with
                                  gamma = max_l (1 - ||R^{l+1}|| / ||R^l||) < 1, and full certified rank
``DONG.mlp-singly-exponential``   attention + MLP, no skip: log rho_{l+1} / log rho_l -> 1 (not 3)
``DONG.softmax-shift``            softmax(M + 1 c^T) = softmax(M), row-wise softmax
``RRO.no-dong-collapse``          with residual connections (attention + skip, full block):
                                  no doubly exponential decay, exponent estimate < 1.5
"""
from __future__ import annotations

import sympy
from sympy import Matrix

from .claims import (CheckContext, Claim, Evidence, Reading, float_statistic, interval_instances, register,
                     stored_counterexample)

__all__ = ["depth_results", "DEPTH_DPS"]

DEPTH_DPS = 1000
_CACHE: dict = {}
_ARB = f"python-flint arb balls at {DEPTH_DPS} digits ((m, R) form for the attention regimes)"


def depth_results(quick: bool = False) -> dict:
    """The depth study over every shape (cached per process)."""
    key = quick
    if key not in _CACHE:
        from proofs_numeric.depth import SHAPES, DepthConfig, run
        shapes = SHAPES[:2] if quick else SHAPES
        res = []
        for (n, d, H, dk) in shapes:
            cfg = DepthConfig(n=n, d=d, H=H, d_k=dk, dps=DEPTH_DPS)
            res.append(({"n": n, "d": d, "H": H, "d_k": dk},
                        {r: run(cfg, r) for r in ("pure_attention", "attention_skip", "attention_mlp", "full_block")}))
        adv = DepthConfig(n=8, d=6, H=1, d_k=6, dps=DEPTH_DPS, weights="negative-identity", qk_scale=100)
        _CACHE[key] = {"shapes": res, "adversarial_skip": run(adv, "attention_skip"), "adversarial_cfg": adv}
    return _CACHE[key]


def _regime(n: int, d: int) -> str:
    return "n<d" if n < d else ("n=d" if n == d else "n>d")


def _shape_str(s: dict) -> str:
    return f"n={s['n']}, d={s['d']}, H={s['H']}, d_k={s['d_k']}"


#: |e - 3| below this counts as "base 3" (the median of the last log-ratios; see proofs_numeric.depth)
EXPONENT_TOL = 0.05
_FIT = ("median of log rho_(l+1) / log rho_l over the last collapsing layers, from arb enclosures at "
        f"{DEPTH_DPS} digits (a statistic over layers: float evidence)")


def _exponent_evidence(ctx, regime_key: str, ok, what: str, no_collapse_holds: bool | None = None) -> list[Evidence]:
    """One float statistic per shape (a fit over layers is float evidence, whatever its inputs).

    ``no_collapse_holds``: the answer when rho never falls below 1e-3 (no exponent to estimate):
    True for claims that collapse does not happen, None (nothing measured) otherwise.
    """
    out = []
    for shape, runs in depth_results(ctx.quick)["shapes"]:
        r = runs[regime_key]
        e = r["exponent"]
        holds = no_collapse_holds if e is None else bool(ok(e))
        out.append(float_statistic(
            f"{_shape_str(shape)}: {what} exponent estimate "
            f"{'n/a (rho never fell below 1e-3: no collapse to measure)' if e is None else f'{e:.4f}'}; "
            f"rho_12 = {r['layers'][-1]['rho']}", holds, regime=_regime(shape["n"], shape["d"]), arithmetic=_FIT,
            numbers={**shape, "exponent": e},
            reason=None if holds is not None else "rho never fell below 1e-3: no exponent to measure"))
    return out


def _machine_precision(ctx) -> list[Evidence]:
    out = []
    for shape, runs in depth_results(ctx.quick)["shapes"]:
        r = runs["pure_attention"]
        L = r["machine_precision_layer_certified"]
        out.append(interval_instances(
            f"{_shape_str(shape)}: rho first certainly below 2^-52 at layer {L} (every earlier enclosure certainly "
            f"above); float64 numerical rank first 1 at layer {r['float64_first_collapse_layer']}",
            None if L is None else (5 <= L <= 7), regime=_regime(shape["n"], shape["d"]), arithmetic=_ARB,
            numbers={**shape, "layer": L}, reason=None if L is not None else "no enclosure crossed 2^-52 certainly"))
    return out


def _skip_bound(ctx) -> list[Evidence]:
    res = depth_results(ctx.quick)
    out = []
    cases = [(s, runs["attention_skip"], "gaussian weights") for s, runs in res["shapes"]]
    a = res["adversarial_cfg"]
    cases.append(({"n": a.n, "d": a.d, "H": a.H, "d_k": a.d_k}, res["adversarial_skip"],
                  "W_V W_O = -I, sharp attention (W_Q = W_K = 10 I)"))
    for shape, r, label in cases:
        norms = [x["log10_norm_R"] for x in r["layers"]]
        if any(v is None for v in norms):
            out.append(interval_instances(f"{_shape_str(shape)} ({label}): the ||R|| enclosure contains 0", None,
                                          regime=_regime(shape["n"], shape["d"]), arithmetic=_ARB,
                                          reason="||R|| not separated from 0 at this precision"))
            continue
        gam = max(1 - 10 ** (b - a_) for a_, b in zip(norms, norms[1:]))
        gam = max(gam, 0.0)
        low = min(x["certified_rank"][0] for x in r["layers"])
        num = min(x["numerical_rank"] for x in r["layers"])
        out.append(float_statistic(
            f"{_shape_str(shape)} ({label}): gamma = max_l (1 - |R^(l+1)|/|R^l|) = {gam:.3f}; log10 |R| from "
            f"{norms[0]:.2f} to {norms[-1]:.2f}; rank certified >= {low} at every layer; numerical rank (rtol "
            f"1e-12) down to {num}", gam < 1, regime=_regime(shape["n"], shape["d"]),
            arithmetic=f"a maximum over layers of ratios of arb enclosures ({_ARB}): float evidence",
            numbers={**shape, "gamma": gam, "min_certified_rank": low, "min_numerical_rank": num}))
    return out


def _recheck_softmax_shift(data):
    """softmax(M + 1 c^T) row-wise, from the stored M and c (c may hold log(2)), exactly."""
    M = sympy.Matrix([[sympy.sympify(v) for v in row] for row in data["M"]])
    c = [sympy.sympify(v) for v in data["c"]]
    S = M + sympy.ones(M.shape[0], 1) * sympy.Matrix([c])
    sm = sympy.Matrix(*S.shape, lambda i, j: sympy.simplify(sympy.exp(S[i, j]) / sum(sympy.exp(S[i, k])
                                                                                       for k in range(S.shape[1]))))
    base = sympy.Matrix(*M.shape, lambda i, j: sympy.simplify(sympy.exp(M[i, j]) / sum(sympy.exp(M[i, k])
                                                                                        for k in range(M.shape[1]))))
    if sm == base:
        return None, "all", {}
    return (f"M = {M.tolist()}, c = {c}: softmax(M + 1 c^T) has rows {sm.tolist()}, softmax(M) has rows "
            f"{base.tolist()}"), "all", {}


def _softmax_shift(ctx) -> list[Evidence]:
    return [stored_counterexample("DONG.softmax-shift", _recheck_softmax_shift,
                                  arithmetic="exact (sympy: exp(log 2) = 2)")]


def _softmax_row_shift_proof(ctx) -> list[Evidence]:
    from .residual_obstruction import _proof
    return [_proof((2,), "softmax(M + c 1^T) = softmax(M) (entrywise identity)")]


def _cubic_is_not_spoiled(ctx) -> list[Evidence]:
    """The dropped column term 1 (m^T W_QK R^T) does not change the rate: its effect on R is a row constant."""
    out = []
    for shape, runs in depth_results(ctx.quick)["shapes"]:
        e = runs["pure_attention"]["exponent"]
        out.append(float_statistic(f"{_shape_str(shape)}: exponent {e if e is None else round(e, 4)} with the "
                                   "column term m^T W_QK r_j kept in the logits",
                                   None if e is None else abs(e - 3) < EXPONENT_TOL,
                                   regime=_regime(shape["n"], shape["d"]), arithmetic=_FIT,
                                   reason="no exponent to measure" if e is None else None))
    return out


register(Claim(
    id="DONG.collapse-rate", section="Dong et al. 2021 (explainer): pure attention",
    quote="the residual norm decays ... doubly exponential convergence rate with base 3",
    statement=r"\text{pure attention: }\|R^{(l+1)}\|\le C\|R^{(l)}\|^3,\ \log\rho_{l+1}/\log\rho_l\to3",
    hypotheses=("no skip", "no MLP"), conclusion="exponent 3", regimes=("n<d", "n>d"),
    checks=[lambda ctx: _exponent_evidence(ctx, "pure_attention", lambda e: abs(e - 3) < EXPONENT_TOL,
                                           "pure attention")],
    readings=[Reading("explainer-derivation",
                      r"P=\operatorname{softmax}(RW_{QK}R^\top/\sqrt{d_k})\ \text{(the term }\mathbf 1x^\top W_{QK}R^\top\text{ dropped)}",
                      checks=[_softmax_shift, _cubic_is_not_spoiled],
                      note="the explainer drops a column-dependent term with a shift invariance that softmax does "
                           "not have; the rate survives because that term only moves a row constant of A R W")],
    chapter="depth_study",
))

register(Claim(
    id="DONG.machine-precision-5-7", section="Dong explainer",
    quote="In a 12-layer pure self-attention network without skip connections, token diversity drops to machine "
          "precision within 5 to 7 layers",
    statement=r"\min\{l:\rho_l<2^{-52}\}\in\{5,6,7\}",
    hypotheses=("pure attention", "12 layers", "standard-scale random weights"), conclusion="layer in 5..7",
    regimes=("n<d", "n>d"), checks=[_machine_precision], chapter="depth_study",
))

register(Claim(
    id="DONG.skip-lower-bound", section="Dong explainer: skip connections",
    quote="||R^(l)||_F >= (1 - gamma)^l ||R^(0)||_F > 0 where gamma < 1 is an upper bound on the contraction "
          "introduced by attention",
    statement=r"\text{attention + skip: }\gamma:=\max_l(1-\|R^{l+1}\|/\|R^l\|)<1",
    hypotheses=("skip connections",), conclusion="gamma < 1", regimes=("n<d", "n>d"),
    checks=[_skip_bound], chapter="depth_study",
))

register(Claim(
    id="DONG.mlp-singly-exponential", section="Dong explainer: MLPs without skips",
    quote="introducing MLPs without skip connections slows the rate of rank collapse from doubly exponential (3^l) "
          "to singly exponential (lambda^l)",
    statement=r"\text{attention + MLP, no skip: }\log\rho_{l+1}/\log\rho_l\to1",
    hypotheses=("MLP", "no skip"), conclusion="singly exponential", regimes=("n<d", "n>d"),
    checks=[lambda ctx: _exponent_evidence(ctx, "attention_mlp", lambda e: e < 1.5, "attention + MLP")],
    chapter="depth_study",
))

register(Claim(
    id="DONG.softmax-shift", section="Dong explainer",
    quote="shift-invariance property of the softmax function (softmax(M + 1 c^T) = softmax(M) for any vector c)",
    statement=r"\operatorname{softmax}_{\text{row}}(M+\mathbf 1c^\top)=\operatorname{softmax}_{\text{row}}(M)\ \forall c",
    hypotheses=(), conclusion="invariance", regimes=("all",), checks=[_softmax_shift],
    corrected=Reading("corrected", r"\operatorname{softmax}_{\text{row}}(M+c\mathbf 1^\top)=\operatorname{softmax}_{\text{row}}(M)",
                      checks=[_softmax_row_shift_proof], condition="the shift must be constant along each row: c 1^T, not 1 c^T"),
    chapter="depth_study",
))

register(Claim(
    id="RRO.no-dong-collapse", section="§5.2, after Thm 5.3",
    quote="The doubly-exponential collapse of Dong et al. cannot occur.",
    statement=r"\text{with residual connections: }\log\rho_{l+1}/\log\rho_l\not\to b>1",
    hypotheses=("residual connections",), conclusion="no doubly exponential decay", regimes=("n<d", "n>d"),
    checks=[lambda ctx: _exponent_evidence(ctx, "attention_skip", lambda e: e < 1.5, "attention + skip",
                                           no_collapse_holds=True),
            lambda ctx: _exponent_evidence(ctx, "full_block", lambda e: e < 1.5, "full block", no_collapse_holds=True)],
    chapter="depth_study",
))
