r"""Claims of the Dong et al. (2021) explainer, and the paper's "no Dong collapse" claim.

The rates are measured by the depth study (:mod:`proofs_numeric.depth`, python-flint arb
balls at 1000 digits, (m, R) formulation); the softmax identity is exact (sympy).

Readings
========
``DONG.collapse-rate``            pure attention: log rho_{l+1} / log rho_l -> 3
``DONG.machine-precision-5-7``    pure attention (12 layers): rho first drops below 2^-52 at layer 5, 6 or 7
``DONG.skip-lower-bound``         attention + skip: ||R^l|| >= (1 - gamma)^l ||R^0||; gamma taken from the
                                  trajectory cannot fail (not checkable); reading ``weight-bound``: gamma_W =
                                  sqrt(n) sum_h ||W_V^h W_O^h||_2 from the weights, checked when gamma_W < 1
``DONG.mlp-singly-exponential``   attention + MLP, no skip: log rho_{l+1} / log rho_l -> 1 (not 3)
``DONG.softmax-shift``            softmax(M + 1 c^T) = softmax(M), row-wise softmax
``RRO.no-dong-collapse``          the paper's inference "exact rank strictly increases, hence Dong's
                                  doubly-exponential collapse cannot occur", tested on the depth study: exact
                                  rank stays full while rho collapses (pure attention); reading
                                  ``skip-no-doubly-exponential``: with skips the decay is not doubly exponential
"""
from __future__ import annotations

import math

import sympy
from sympy import Matrix

from .claims import (CheckContext, Claim, Evidence, Reading, float_statistic, interval_instances, interval_witness,
                     not_checkable, register, stored_counterexample)

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
            f"{'n/a (fewer than two layers with rho < 1e-3: no collapse to measure)' if e is None else f'{e:.4f}'}; "
            f"rho_12 = {r['layers'][-1]['rho']}", holds, regime=_regime(shape["n"], shape["d"]), arithmetic=_FIT,
            numbers={**shape, "exponent": e},
            reason=None if holds is not None else "fewer than two layers with rho < 1e-3: no exponent to measure"))
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


def _skip_bound_trajectory(ctx) -> list[Evidence]:
    """The explainer's gamma read off the trajectory: it cannot fail, so the literal is not checkable."""
    res = depth_results(ctx.quick)
    runs = [r["attention_skip"] for _, r in res["shapes"]] + [res["adversarial_skip"]]
    gams = []
    for r in runs:
        norms = [x["log10_norm_R"] for x in r["layers"]]
        if None not in norms:
            gams.append(max(0.0, max(1 - 10 ** (b - a_) for a_, b in zip(norms, norms[1:]))))
    return [not_checkable("gamma is only 'an upper bound on the contraction introduced by attention'; read off a "
                          "trajectory (here gamma = " + ", ".join(f"{g:.3f}" for g in gams) + " on the depth "
                          "study's skip runs, the last with W_V W_O = -I) it satisfies the bound for every "
                          "non-vanishing trajectory, so the statement cannot fail; see the reading 'weight-bound'")]


def skip_bound_holds(log10_norms: list[float], gamma_w: float, tol: float = 1e-9) -> bool | None:
    """||R^l|| >= (1 - gamma_W)^l ||R^0|| at every layer (log10 scale; None when gamma_W >= 1: no bound)."""
    if gamma_w >= 1:
        return None
    lg = math.log10(1 - gamma_w)
    return all(v >= norm0 + l * lg - tol for l, v in enumerate(log10_norms) for norm0 in [log10_norms[0]])


def weight_gamma(heads, n: int) -> float:
    """gamma_W = sqrt(n) sum_h ||W_V^h W_O^h||_2: with C = I - J/n and A_h row-stochastic (||A_h||_2 <= sqrt n),
    R^(l+1) = R^l + sum_h C A_h R^l W_V^h W_O^h, so ||R^(l+1)|| >= (1 - gamma_W) ||R^l||."""
    import numpy as np
    return math.sqrt(n) * sum(float(np.linalg.norm(WV @ WO, 2)) for (_, _, WV, WO) in heads)


#: weight scales for the small-weight runs of the weight bound (gamma_W < 1 needs small W_V W_O)
SKIP_TARGET_GAMMAS = (0.3, 0.6, 0.9)


def _skip_weight_bound(ctx) -> list[Evidence]:
    from proofs_numeric.depth import SHAPES, DepthConfig, _weights, run
    out = []
    for (n, d, H, dk) in SHAPES[: 2 if ctx.quick else None]:
        base = DepthConfig(n=n, d=d, H=H, d_k=dk, dps=60)
        g1 = weight_gamma(_weights(base)[0], n)
        held = met = 0
        worst = None
        for target in SKIP_TARGET_GAMMAS:
            cfg = DepthConfig(n=n, d=d, H=H, d_k=dk, dps=60, vo_scale=target / g1)
            g = weight_gamma(_weights(cfg)[0], n)
            norms = [x["log10_norm_R"] for x in run(cfg, "attention_skip")["layers"]]
            ok = skip_bound_holds(norms, g) if None not in norms else None
            if ok is None:
                continue
            met += 1
            held += ok
            worst = min(worst or 1e9, min(v - (norms[0] + l * math.log10(1 - g)) for l, v in enumerate(norms)))
        out.append(float_statistic(
            f"{_shape_str({'n': n, 'd': d, 'H': H, 'd_k': dk})}: ||R^l|| >= (1 - gamma_W)^l ||R^0|| for 12 layers "
            f"at gamma_W in {SKIP_TARGET_GAMMAS} (held {held}/{met}; smallest log10 margin {worst:.3g})",
            None if met == 0 else held == met, regime=_regime(n, d),
            arithmetic="arb enclosures at 60 digits of ||R^l||, compared with a bound whose gamma_W is a float64 "
                       "spectral norm: float evidence",
            numbers={"met": met, "held": held}, reason="no configuration with gamma_W < 1" if met == 0 else None))
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
    statement=r"\text{attention + skip: }\|R^{(l)}\|_F\ge(1-\gamma)^l\|R^{(0)}\|_F,\ \gamma<1\text{ a bound on "
              r"attention's contraction}",
    hypotheses=("skip connections",), conclusion="the lower bound", regimes=("n<d", "n>d"),
    checks=[_skip_bound_trajectory],
    readings=[Reading("weight-bound", r"\gamma_W=\sqrt n\sum_h\|W_V^hW_O^h\|_2<1\Rightarrow"
                                      r"\|R^{(l)}\|_F\ge(1-\gamma_W)^l\|R^{(0)}\|_F",
                      checks=[_skip_weight_bound],
                      note="gamma defined from the weights (a rigorous bound on the contraction), so the "
                           "inequality can fail; vacuous when gamma_W >= 1 (standard-scale weights)")],
    chapter="depth_study",
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

def rank_blind_to_collapse(layers: list[dict], full: int, below: float = -52 * math.log10(2)) -> bool | None:
    """True when the certified rank is full at every layer while the last rho enclosure is certainly tiny.

    That is a counterexample to "exact rank does not decrease, hence no Dong collapse". None when the run does
    not settle it (a rank interval not closed, or rho not certainly below 2^-52).
    """
    ranks_full = all(x["certified_rank"][0] == full for x in layers)
    last = layers[-1]
    collapsed = last.get("rho_below_2^-52") is True
    if ranks_full and collapsed:
        return True
    if any(x["certified_rank"][1] < full for x in layers):
        return False  # the rank did drop: exact rank does see the collapse here
    return None


def _inference(ctx) -> list[Evidence]:
    """The inference, on the suite's own certified data: exact rank full at every layer, yet rho -> 0."""
    out = []
    for shape, runs in depth_results(ctx.quick)["shapes"]:
        r = runs["pure_attention"]
        full = min(shape["n"], shape["d"])
        blind = rank_blind_to_collapse(r["layers"], full)
        out.append(interval_witness(
            f"{_shape_str(shape)}, pure attention: exact rank certified = {full} (full) at every one of "
            f"{len(r['layers']) - 1} layers, while rho_12 = {r['layers'][-1]['rho']} (certainly below 2^-52): "
            "exact rank does not see Dong's collapse, so 'rank does not decrease' cannot imply 'no collapse'"
            if blind else f"{_shape_str(shape)}: the run does not separate rank from collapse",
            None if blind is None else (not blind), regime=_regime(shape["n"], shape["d"]), arithmetic=_ARB,
            numbers={**shape, "rank": full},
            reason="rank interval not closed or rho not certainly below 2^-52" if blind is None else None))
    return out


register(Claim(
    id="RRO.no-dong-collapse", section="§5.2, after Thm 5.3",
    quote="For Lebesgue-almost-every X^(l) with rank(X^(l)) < min(n, d_model), ... rank(X^(l+1)) > rank(X^(l)). "
          "The doubly-exponential collapse of Dong et al. cannot occur.",
    statement=r"\bigl(\operatorname{rank}X^{(l+1)}\ge\operatorname{rank}X^{(l)}\ \forall l\bigr)\Rightarrow"
              r"\rho_l\not\to0\ \text{doubly exponentially}",
    hypotheses=("exact rank never decreases across layers",), conclusion="no doubly exponential collapse of rho",
    regimes=("n<d", "n>d"),
    checks=[_inference],
    readings=[Reading("skip-no-doubly-exponential",
                      r"\text{with residual connections: }\log\rho_{l+1}/\log\rho_l\not\to b>1",
                      checks=[lambda ctx: _exponent_evidence(ctx, "attention_skip", lambda e: e < 1.5,
                                                             "attention + skip", no_collapse_holds=True),
                              lambda ctx: _exponent_evidence(ctx, "full_block", lambda e: e < 1.5, "full block",
                                                             no_collapse_holds=True)],
                      note="the conclusion alone, on the depth study: a fit over layers (float evidence)")],
    chapter="depth_study",
))
