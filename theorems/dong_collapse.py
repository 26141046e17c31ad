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


# --- further sentences of the paper (coverage) ---

import random as _random  # noqa: E402

from sympy import Rational as _Q  # noqa: E402

from .claims import (ProofStep, derivation as _derivation, exact_complete as _exact_complete,  # noqa: E402
                     exact_instances as _exact_instances, interval_witness as _interval_witness,
                     not_checkable as _not_checkable, predicted as _predicted, stable_seed as _stable_seed,
                     symbolic_identity as _symbolic_identity)

_EXACT = "exact over QQ (python-flint fmpq_mat)"


def _exact_rank_kept(r: dict) -> bool | None:
    """Certified rank >= 2 at every layer (True), certified < 2 somewhere (False), else undecided (None)."""
    los = [x["certified_rank"][0] for x in r["layers"]]
    his = [x["certified_rank"][1] for x in r["layers"]]
    if any(h < 2 for h in his):
        return False
    return True if all(lo >= 2 for lo in los) else None


def _dong_collapsed(r: dict) -> bool | None:
    """rho certainly below 2^-52 at some layer (True), certainly above at every layer (False), else None."""
    if r["machine_precision_layer_certified"] is not None:
        return True
    flags = [x["rho_below_2^-52"] for x in r["layers"]]
    return False if all(f is False for f in flags) else None


def _depth_evidence(ctx, regime_key: str, test, what: str, reason: str) -> list[Evidence]:
    out = []
    for shape, runs in depth_results(ctx.quick)["shapes"]:
        r = runs[regime_key]
        h = test(r)
        los = [x["certified_rank"][0] for x in r["layers"]]
        out.append(interval_instances(
            f"{_shape_str(shape)}, {regime_key.replace('_', ' ')}: {what} (certified rank lower bounds by layer "
            f"{los}; rho first certainly below 2^-52 at layer {r['machine_precision_layer_certified']}; rho_12 = "
            f"{r['layers'][-1]['rho']})", h, regime=_regime(shape["n"], shape["d"]), arithmetic=_ARB,
            numbers={**shape, "certified_rank_lower": los}, reason=None if h is not None else reason))
    return out


def _no_rank_collapse(ctx, regime_key):
    return _depth_evidence(ctx, regime_key, _exact_rank_kept, "no rank collapse: certified rank >= 2 at every layer",
                           "a rank enclosure did not close at this precision")


def _no_dong_collapse(ctx, regime_key):
    return _depth_evidence(ctx, regime_key, lambda r: (lambda c: None if c is None else not c)(_dong_collapsed(r)),
                           "no collapse in Dong's sense: rho stays above 2^-52 for 12 layers",
                           "rho straddles 2^-52 at some layer")


def _mlp_alone_prevents(ctx):
    return _no_dong_collapse(ctx, "attention_mlp")


register(Claim(
    id="RRO.contribution-2", section="§1 contribution 2; §5",
    quote="rank collapse does not occur in BERT-like architectures with residual connections; the MLP is sufficient "
          "but not necessary for this purpose",
    statement=r"\text{(a) residual: no collapse; (b) MLP without residual: no collapse; (c) residual without MLP: no "
              r"collapse}",
    hypotheses=("BERT-like blocks, 12 layers, Gaussian weights",), conclusion="(a), (b), (c)",
    regimes=("n<d", "n>d"),
    checks=[lambda ctx: _no_rank_collapse(ctx, "full_block"), lambda ctx: _no_rank_collapse(ctx, "attention_skip"),
            _mlp_alone_prevents],
    readings=[Reading("with-residual", r"\text{attention + skip, and the full block: certified rank}\ge2\ \text{at every layer}",
                      checks=[lambda ctx: _no_rank_collapse(ctx, "full_block"),
                              lambda ctx: _no_rank_collapse(ctx, "attention_skip")]),
              Reading("mlp-sufficient", r"\text{attention + MLP, no skip: }\rho_l\ge2^{-52}\ \forall l\le12",
                      checks=[_mlp_alone_prevents],
                      note="the depth study: without the skip the MLP does not stop Dong's collapse (exponent ~3)"),
              Reading("mlp-not-necessary", r"\text{attention + skip, no MLP: no collapse (rank and }\rho)",
                      checks=[lambda ctx: _no_rank_collapse(ctx, "attention_skip"),
                              lambda ctx: _no_dong_collapse(ctx, "attention_skip")]),
              Reading("dong-residual-full-block", r"\text{full block: }\rho_l\text{ does not decay geometrically}",
                      checks=[lambda ctx: _rho_slope(ctx, "full_block")],
                      note="exact rank is kept, but Dong's token-diversity ratio still decays, slowly")],
    chapter="depth_study",
))


def _rho_slope(ctx, regime_key: str) -> list[Evidence]:
    """Least-squares slope of log10 rho over the last six layers (decades per layer): a float statistic."""
    import numpy as np
    out = []
    for shape, runs in depth_results(ctx.quick)["shapes"]:
        ys = [x["log10_rho"] for x in runs[regime_key]["layers"][-6:]]
        if any(y is None for y in ys):
            out.append(float_statistic(f"{_shape_str(shape)}: rho below resolution", None,
                                       regime=_regime(shape["n"], shape["d"]), arithmetic=_FIT,
                                       reason="rho not resolved on the last layers"))
            continue
        slope = float(np.polyfit(np.arange(len(ys)), np.array(ys), 1)[0])
        out.append(float_statistic(f"{_shape_str(shape)}, {regime_key.replace('_', ' ')}: log10 rho changes by "
                                   f"{slope:+.3f} per layer over the last 6 layers (no decay: slope >= -0.01)",
                                   slope >= -0.01, regime=_regime(shape["n"], shape["d"]),
                                   arithmetic="least-squares slope of log10 of arb enclosures (float statistic)",
                                   numbers={**shape, "slope": slope}))
    return out


def _mlp_nonlinear_counterexamples(ctx) -> list[Evidence]:
    from .residual_obstruction import _recheck_curvature, _recheck_span
    return [stored_counterexample("MLP.curvature", _recheck_curvature,
                                  arithmetic="exact (sympy; exp(0) = 1 at the base point)"),
            stored_counterexample("MLP.span", _recheck_span, arithmetic=_EXACT)]


register(Claim(
    id="MLP.function", section="§5.3 (boxed statement)",
    quote="The MLP is necessary for non-linear feature generation and sufficient but not necessary for preventing "
          "rank collapse",
    statement=r"\text{(a) without MLP no non-linear features; (b) MLP alone prevents collapse; (c) collapse is "
              r"prevented without MLP}",
    hypotheses=(), conclusion="(a), (b), (c)", regimes=("n<d", "n>d"),
    checks=[_mlp_nonlinear_counterexamples, _mlp_alone_prevents,
            lambda ctx: _no_rank_collapse(ctx, "attention_skip")],
    readings=[Reading("necessary-for-non-linear-features",
                      r"\text{attention + residual is affine and stays in the span of the embeddings}",
                      checks=[_mlp_nonlinear_counterexamples], regimes=("all",),
                      note="refuted by the suite's own stored instances (MLP.curvature, MLP.span)"),
              Reading("sufficient", r"\text{attention + MLP, no skip: no collapse}", checks=[_mlp_alone_prevents]),
              Reading("not-necessary", r"\text{attention + skip, no MLP: no rank collapse}",
                      checks=[lambda ctx: _no_rank_collapse(ctx, "attention_skip")])],
    chapter="depth_study",
))


register(Claim(
    id="DONG.regime-collapse", section="§1 (relationship with Dong et al.); abstract",
    quote="In the regime they study — pure attention, no residual, no MLP — rank collapse occurs as they prove. "
          "[Abstract:] all token representations converge to a single direction",
    statement=r"\text{pure attention: }\rho_l\to0\ (\text{certified }\rho_l<2^{-52}\text{ within 12 layers})",
    hypotheses=("pure attention",), conclusion="collapse", regimes=("n<d", "n>d"),
    checks=[lambda ctx: _depth_evidence(ctx, "pure_attention", _dong_collapsed,
                                        "Dong's collapse: rho certainly below 2^-52", "rho straddles 2^-52")],
    readings=[Reading("exact-rank", r"\text{pure attention: }\operatorname{rank}X^{(l)}\to1",
                      checks=[lambda ctx: _no_rank_collapse_as_claim(ctx, "pure_attention")],
                      note="the paper's own notion (exact rank, §5): exact rank never falls; Dong's collapse is "
                           "invisible to it")],
    chapter="depth_study",
))


def _no_rank_collapse_as_claim(ctx, regime_key):
    """'rank reaches 1': False when the certified rank stays >= 2 at every layer."""
    return _depth_evidence(ctx, regime_key, lambda r: (lambda k: None if k is None else not k)(_exact_rank_kept(r)),
                           "exact rank reaches 1", "a rank enclosure did not close at this precision")


def _tokens_never_identical(ctx) -> list[Evidence]:
    out = []
    for shape, runs in depth_results(ctx.quick)["shapes"]:
        norms = [x["log10_norm_R"] for x in runs["pure_attention"]["layers"]]
        h = False if all(v is not None for v in norms) else None
        out.append(interval_instances(f"{_shape_str(shape)}: ||R|| certainly > 0 at every layer (log10 ||R_12|| = "
                                      f"{norms[-1]}): the tokens are never identical", h,
                                      regime=_regime(shape["n"], shape["d"]), arithmetic=_ARB,
                                      reason=None if h is not None else "an ||R|| enclosure contains 0"))
    return out


register(Claim(
    id="DONG.identical-vector", section="Dong explainer: introduction",
    quote="every token in the sequence converges to an identical vector, eliminating all positional and semantic "
          "distinctions within a handful of layers",
    statement=r"\text{pure attention: }\rho_l\to0\ (\rho_l<2^{-52}\text{ within 12 layers, certified})",
    hypotheses=("pure attention",), conclusion="tokens converge to one vector", regimes=("n<d", "n>d"),
    checks=[lambda ctx: _depth_evidence(ctx, "pure_attention", _dong_collapsed,
                                        "tokens converge: rho certainly below 2^-52", "rho straddles 2^-52")],
    readings=[Reading("eliminated-exactly", r"\exists l\le12:\ R^{(l)}=0\ (\text{tokens identical})",
                      checks=[_tokens_never_identical],
                      note="convergence, not equality: ||R|| is certified non-zero at every layer")],
    chapter="depth_study",
))


def stochastic_power_sigma2(P, L: int):
    """The second singular value of P^L for a symmetric 2 x 2 stochastic P, exactly (|det P^L| / 1)."""
    PL = P ** L
    return abs(PL.det()), PL


def _recheck_stochastic_product(data):
    P = sympy.Matrix([[_Q(v) for v in row] for row in data["P"]])
    if P.shape != (2, 2) or P != P.T or any(sum(P.row(i)) != 1 for i in range(2)) or any(v < 0 for v in P):
        raise ValueError("the stored P must be a symmetric 2 x 2 row-stochastic matrix (sigma_2 = |det|)")
    s = [stochastic_power_sigma2(P, L)[0] for L in range(1, int(data["L"]) + 1)]
    lam = P.eigenvals()
    sub = min(abs(k) for k in lam)
    geometric = all(s[i] == sub ** (i + 1) for i in range(len(s)))
    if geometric and 0 < sub < 1:
        ratios = [float(sympy.log(s[i + 1]) / sympy.log(s[i])) for i in range(len(s) - 1)]
        return (f"P = {P.tolist()}: the distance of P^L to the rank-1 matrices is sigma_2(P^L) = {sub}^L exactly "
                f"(L = 1..{len(s)}); log sigma_2(L+1) / log sigma_2(L) = (L+1)/L -> 1 (last {ratios[-1]:.3f}): "
                "singly, not doubly, exponential"), "all", {"sigma2_12": str(s[-1])}
    return None, "all", {}


def _uniform_one_step(ctx) -> list[Evidence]:
    rng = _random.Random(_stable_seed("DONG.setup-stochastic-product:uniform"))
    met = held = 0
    for (n, d) in ((2, 2), (3, 5), (5, 3), (4, 4)):
        X = sympy.Matrix(n, d, lambda i, j: _Q(rng.randint(-5, 5)))
        W = sympy.Matrix(d, d, lambda i, j: _Q(rng.randint(-5, 5)))
        from .linalg import rank as _rank
        met += 1
        held += _rank(sympy.ones(n, n) / n * X * W) <= 1
    return [_exact_instances("uniform attention A = J/n: rank(A X W_V W_O) <= 1 after one layer", met=met, held=held,
                             arithmetic=_EXACT)]


register(Claim(
    id="DONG.setup-stochastic-product", section="§2, Dong's setup",
    quote="Under these conditions, the product of stochastic matrices converges to a rank-1 matrix doubly-"
          "exponentially in L",
    statement=r"\prod_{l\le L}A^{(l)}\ \text{(row-stochastic) is within }c^{b^L}\text{ of rank 1, some }b>1",
    hypotheses=("A^(l) row-stochastic",), conclusion="doubly exponential", regimes=("all",),
    checks=[lambda ctx: [stored_counterexample("DONG.setup-stochastic-product", _recheck_stochastic_product,
                                               arithmetic="exact (sympy, rational powers)")],
            lambda ctx: [_predicted(_symbolic_identity(
                sympy.Matrix([[_Q(3, 4), _Q(1, 4)], [_Q(1, 4), _Q(3, 4)]]) ** sympy.Symbol("L", integer=True,
                                                                                             positive=True),
                sympy.Matrix([[1 + 2 ** -sympy.Symbol("L", integer=True, positive=True),
                               1 - 2 ** -sympy.Symbol("L", integer=True, positive=True)],
                              [1 - 2 ** -sympy.Symbol("L", integer=True, positive=True),
                               1 + 2 ** -sympy.Symbol("L", integer=True, positive=True)]]) / 2,
                "P^L = (J + 2^-L (2I - J)) / 2 for P = [[3/4, 1/4], [1/4, 3/4]]: sigma_2(P^L) = 2^-L"),
                "a constant stochastic product converges singly exponentially")]],
    readings=[Reading("uniform-attention", r"A^{(l)}=J/n:\ \operatorname{rank}(A XW)\le1\ \text{after one layer}",
                      checks=[_uniform_one_step],
                      note="with uniform attention (the parenthesis) the product is rank 1 at once: no rate at all")],
    chapter="depth_study",
))


def _full_block_rank_kept(ctx) -> list[Evidence]:
    out = []
    for shape, runs in depth_results(ctx.quick)["shapes"]:
        n, d = shape["n"], shape["d"]
        cap = min(n, d - 1)  # post-LN rows lie in 1-perp (gamma = 1, beta = 0)
        los = [x["certified_rank"][0] for x in runs["full_block"]["layers"][1:]]
        his = [x["certified_rank"][1] for x in runs["full_block"]["layers"][1:]]
        h = False if any(hh < cap for hh in his) else (True if all(lo >= cap for lo in los) else None)
        out.append(interval_instances(f"{_shape_str(shape)}, full block: certified rank >= min(n, d - 1) = {cap} at "
                                      f"every layer (lower bounds {los}; LayerNorm's centring caps the rank at d - 1)",
                                      h, regime=_regime(n, d), arithmetic=_ARB,
                                      reason=None if h is not None else "a rank enclosure did not close"))
    return out


register(Claim(
    id="DONG.setup-maintained", section="§2, Dong's setup; Dong explainer",
    quote="With MLP and residual, the rank is maintained. [Explainer:] When both residual connections and MLPs are "
          "present, rank collapse is suppressed entirely",
    statement=r"\text{full block: }\operatorname{rank}X^{(l)}=\min(n,d-1)\ \forall l\ge1\ \text{(certified)}",
    hypotheses=("attention + MLP + residual (+ LayerNorm)",), conclusion="rank maintained", regimes=("n<d", "n>d"),
    checks=[_full_block_rank_kept],
    readings=[Reading("dong-residual", r"\text{full block: }\rho_l\text{ does not decay}",
                      checks=[lambda ctx: _rho_slope(ctx, "full_block")],
                      note="'suppressed entirely' read in Dong's measure: the token-diversity ratio still decays"),
              Reading("maximal-rank", r"\text{full block: }\operatorname{rank}X^{(l)}=\min(n,d)",
                      checks=[lambda ctx: _maximal_rank(ctx)], regimes=("n>d",),
                      note="the explainer's 'Full Transformer: Maintains maximal rank'; post-LN rows are centred")],
    chapter="depth_study",
))


def barycentric(points: list, p) -> list | None:
    """Barycentric coordinates of p w.r.t. affinely independent points (exact), or None."""
    k = len(points)
    A = sympy.Matrix([[*pt, 1] for pt in points]).T
    b = sympy.Matrix([*p, 1])
    try:
        sol = A.solve(b) if A.shape[0] == A.shape[1] else (A.T * A).solve(A.T * b)
    except (ValueError, sympy.matrices.common.NonInvertibleMatrixError):
        return None
    return list(sol) if A * sol == b else None


def _hull_literal(ctx) -> list[Evidence]:
    pts = [(0, 0), (1, 0), (0, 1)]
    w = [1, 0, 0]
    p = tuple(sum(wi * pt[j] for wi, pt in zip(w, pts)) for j in range(2))
    bc = barycentric(pts, p)
    on_boundary = bc is not None and any(c == 0 for c in bc)
    return [_exact_complete(f"triangle {pts}, weights {w}: the average {p} has barycentric coordinates {bc}, one of "
                            "them 0: it lies on the boundary (a vertex), not strictly within the hull",
                            False if on_boundary else None, arithmetic="exact (sympy)",
                            reason=None if on_boundary else "the point is interior")]


def _hull_positive(ctx) -> list[Evidence]:
    rng = _random.Random(_stable_seed("DONG.strictly-within-hull:positive"))
    met = held = 0
    for _ in range(6 if ctx.quick else 20):
        pts = [(rng.randint(-5, 5), rng.randint(-5, 5)) for _ in range(3)]
        if sympy.Matrix([[*pt, 1] for pt in pts]).det() == 0:
            continue
        w = [_Q(rng.randint(1, 9)) for _ in range(3)]
        w = [x / sum(w) for x in w]
        p = tuple(sum(wi * pt[j] for wi, pt in zip(w, pts)) for j in range(2))
        bc = barycentric(pts, p)
        met += 1
        held += bc is not None and all(c > 0 for c in bc)
    return [_exact_instances("positive weights (softmax rows) on affinely independent points: every barycentric "
                             "coordinate > 0 (relative interior)", met=met, held=held, arithmetic="exact (sympy)")]


register(Claim(
    id="DONG.strictly-within-hull", section="Dong explainer: row-stochastic contraction",
    quote="In convex geometry, any weighted average of a set of points lies strictly within their convex hull",
    statement=r"w\ge0,\ \textstyle\sum w=1\Rightarrow\sum_iw_ix_i\in\operatorname{relint}\operatorname{conv}\{x_i\}",
    hypotheses=("convex weights",), conclusion="relative interior", regimes=("all",),
    checks=[_hull_literal],
    readings=[Reading("positive-weights", r"w>0\Rightarrow\sum_iw_ix_i\in\operatorname{relint}\operatorname{conv}\{x_i\}",
                      checks=[_hull_positive], note="true for softmax rows, whose weights are all positive")],
    chapter="depth_study",
))


def _R2(X):
    n = X.shape[0]
    R = X - sympy.ones(n, n) / n * X
    return sum(v ** 2 for v in R)


def _nonexpansive_fro(ctx) -> list[Evidence]:
    P = sympy.Matrix([[1, 0], [1, 0]])
    D = sympy.Matrix([[1], [0]])
    a, b = sum(v ** 2 for v in P * D), sum(v ** 2 for v in D)
    return [_exact_complete(f"P = {P.tolist()} (row-stochastic), X - Y = {D.tolist()}: ||P(X - Y)||_F^2 = {a} > "
                            f"{b} = ||X - Y||_F^2", a <= b, arithmetic="exact integers")]


def _nonexpansive_max(ctx) -> list[Evidence]:
    rng = _random.Random(_stable_seed("DONG.non-expansive:max-norm"))
    met = held = 0
    for _ in range(8 if ctx.quick else 30):
        n, d = rng.randint(2, 5), rng.randint(1, 4)
        P = sympy.Matrix(n, n, lambda i, j: _Q(rng.randint(0, 5)))
        for i in range(n):
            s = sum(P.row(i))
            P[i, :] = P.row(i) / s if s else sympy.Matrix(1, n, lambda a, j: _Q(1, n))
        D = sympy.Matrix(n, d, lambda i, j: _Q(rng.randint(-9, 9)))
        met += 1
        held += bool(max(abs(v) for v in P * D) <= max(abs(v) for v in D))
    return [_exact_instances("max-entry norm: max |P D| <= max |D| for row-stochastic P", met=met, held=held,
                             arithmetic="exact (sympy rationals)")]


def _toward_center(ctx) -> list[Evidence]:
    X = sympy.Matrix([[0], [1], [2]])
    out = []
    for label, P in (("0/1 weights", sympy.Matrix([[1, 0, 0], [1, 0, 0], [0, 0, 1]])),
                     ("positive weights", sympy.Matrix([[_Q(98, 100), _Q(1, 100), _Q(1, 100)],
                                                        [_Q(98, 100), _Q(1, 100), _Q(1, 100)],
                                                        [_Q(1, 100), _Q(1, 100), _Q(98, 100)]]))):
        a, b = _R2(P * X), _R2(X)
        out.append(_exact_complete(f"{label}: X = (0, 1, 2)^T, ||R(PX)||_F^2 = {a} vs ||R(X)||_F^2 = {b}: "
                                   + ("the diversity grows" if a > b else "the diversity does not grow"), a <= b,
                                   arithmetic="exact rationals"))
    return out


register(Claim(
    id="DONG.non-expansive", section="Dong explainer: row-stochastic contraction",
    quote="applying a row-stochastic matrix is a non-expansive contraction mapping that pulls all token vectors toward "
          "the geometric center of the sequence representation",
    statement=r"\|P(X-Y)\|_F\le\|X-Y\|_F\ \wedge\ \|R(PX)\|_F\le\|R(X)\|_F\ \ (P\ \text{row-stochastic})",
    hypotheses=("P row-stochastic",), conclusion="non-expansive, diversity non-increasing", regimes=("all",),
    checks=[_nonexpansive_fro, _toward_center],
    readings=[Reading("max-norm", r"\|PD\|_{\max}\le\|D\|_{\max}", checks=[_nonexpansive_max],
                      note="what is true: a row-stochastic P is non-expansive in the max (infinity) norm, and "
                           "conv(rows PX) lies in conv(rows X)"),
              Reading("toward-center", r"\|R(PX)\|_F\le\|R(X)\|_F", checks=[_toward_center],
                      note="false even for strictly positive (softmax-like) P: averaging towards one token moves "
                           "the others away from the centroid")],
    chapter="depth_study",
))


def _mlp_outward_literal(ctx) -> list[Evidence]:
    X = sympy.Matrix([[1, 0], [0, 2], [3, 1]])
    W1, b1 = sympy.zeros(2, 8), sympy.zeros(1, 8)
    W2, b2 = sympy.Matrix(8, 2, lambda i, j: _Q(i - j)), sympy.Matrix([[1, -1]])
    H = (X * W1 + sympy.ones(3, 1) * b1).applyfunc(lambda v: max(v, 0))  # ReLU; GELU(0) = 0 as well
    Y = H * W2 + sympy.ones(3, 1) * b2
    a, b = _R2(Y), _R2(X)
    return [_exact_complete(f"W_1 = 0 (an MLP with any activation sigma, sigma(0) = 0): MLP(X) = 1 b_2^T, "
                            f"||R(MLP X)||^2 = {a} vs ||R(X)||^2 = {b}: all tokens pulled to one point", a >= b,
                            arithmetic="exact rationals")]


def _mlp_outward_generic(ctx) -> list[Evidence]:
    import numpy as np
    from math import erf, sqrt
    rng = np.random.default_rng(_stable_seed("DONG.mlp-pushes-outward:gaussian"))
    gelu = np.vectorize(lambda v: 0.5 * v * (1 + erf(v / sqrt(2))))
    ratios = []
    for _ in range(40 if ctx.quick else 200):
        n, d = 8, 6
        X = rng.normal(size=(n, d))
        W1, W2 = rng.normal(size=(d, 4 * d)) / np.sqrt(d), rng.normal(size=(4 * d, d)) / np.sqrt(4 * d)
        Y = gelu(X @ W1) @ W2
        rho = lambda M: np.linalg.norm(M - M.mean(0)) / np.linalg.norm(M)
        ratios.append(rho(Y) / rho(X))
    med = float(np.median(ratios))
    return [float_statistic(f"Gaussian GELU MLP (n = 8, d = 6, d_ff = 24, standard init), {len(ratios)} draws: median "
                            f"rho(MLP X) / rho(X) = {med:.3f} (outward: > 1)", med > 1, regime="all",
                            arithmetic="float64", numbers={"median_ratio": med})]


register(Claim(
    id="DONG.mlp-pushes-outward", section="Dong explainer: MLPs break convex hulls",
    quote="The MLP expands, rotates, and disperses the token vectors across high-dimensional space, pushing points "
          "outward from the sequence centroid",
    statement=r"\|R(\mathrm{MLP}(X))\|_F\ge\|R(X)\|_F\ \text{for every MLP}",
    hypotheses=(), conclusion="diversity grows", regimes=("all",),
    checks=[_mlp_outward_literal],
    readings=[Reading("generic-weights", r"\text{median over Gaussian MLPs of }\rho(\mathrm{MLP}X)/\rho(X)>1",
                      checks=[_mlp_outward_generic])],
    chapter="depth_study",
))


def _cubic_constant(ctx) -> list[Evidence]:
    out = []
    for shape, runs in depth_results(ctx.quick)["shapes"]:
        norms = [x["log10_norm_R"] for x in runs["pure_attention"]["layers"]]
        pairs = [(a, b) for a, b in zip(norms, norms[1:]) if a is not None and b is not None and a < -3]
        if len(pairs) < 3:
            out.append(float_statistic(f"{_shape_str(shape)}: too few collapsing layers", None,
                                       regime=_regime(shape["n"], shape["d"]), arithmetic=_FIT,
                                       reason="fewer than three layers with ||R|| < 1e-3"))
            continue
        logC = [b - 3 * a for a, b in pairs]
        spread_C = max(logC) - min(logC)
        spread_R = max(a for a, _ in pairs) - min(a for a, _ in pairs)
        ok = spread_C <= 0.01 * spread_R
        out.append(float_statistic(
            f"{_shape_str(shape)}: log10 C_l = log10||R_(l+1)|| - 3 log10||R_l|| in [{min(logC):.2f}, {max(logC):.2f}] "
            f"over {len(pairs)} collapsing layers while log10||R_l|| spans {spread_R:.0f} decades (a constant C: "
            "spread <= 1% of it; a quadratic law would give a spread equal to it)", ok,
            regime=_regime(shape["n"], shape["d"]), arithmetic=f"differences of arb enclosures ({_ARB}): a statistic",
            numbers={**shape, "logC": logC}))
    return out


register(Claim(
    id="DONG.cubic-constant", section="Dong explainer: why self-attention collapses doubly exponentially",
    quote="this feedback loop establishes a cubic contraction recurrence between successive layers: ‖R^(l+1)‖_F ≤ "
          "C·‖R^(l)‖_F^3 for a constant C determined by weight norms and sequence parameters",
    statement=r"\sup_l\|R^{(l+1)}\|_F/\|R^{(l)}\|_F^3<\infty\ \text{(pure attention)}",
    hypotheses=("pure attention",), conclusion="a constant C", regimes=("n<d", "n>d"),
    checks=[_cubic_constant], chapter="depth_study",
))


def _skip_generic(ctx) -> list[Evidence]:
    out = []
    for shape, runs in depth_results(ctx.quick)["shapes"]:
        r = runs["attention_skip"]
        n, d = shape["n"], shape["d"]
        los = [x["certified_rank"][0] for x in r["layers"]]
        norms = [x["log10_norm_R"] for x in r["layers"]]
        h = True if all(lo == min(n, d) for lo in los) and all(v is not None for v in norms) else None
        out.append(interval_instances(f"{_shape_str(shape)}, attention + skip: certified full rank {min(n, d)} and "
                                      f"||R|| certainly > 0 at every layer", h, regime=_regime(n, d), arithmetic=_ARB,
                                      reason=None if h else "an enclosure did not close"))
    return out


register(Claim(
    id="DONG.skip-full-rank", section="Dong explainer: summary",
    quote="Attention + Skip Connections: Establishes a strictly positive lower bound on representation variance, "
          "preserving full rank across arbitrary depth",
    statement=r"\forall\text{ weights}:\ X\mapsto X+\mathrm{MHA}(X)\ \text{keeps }R\ne0\text{ and full rank}",
    hypotheses=("skip connections",), conclusion="variance bounded below, full rank", regimes=("all",),
    checks=[lambda ctx: [stored_counterexample("DONG.skip-full-rank", _recheck_one_layer_collapse_lazy,
                                               arithmetic=_EXACT + " (2^k softmax)")]],
    readings=[Reading("generic-weights", r"\text{Gaussian weights: full rank and }R\ne0\text{ for 12 layers}",
                      checks=[_skip_generic], regimes=("n<d", "n>d"))],
    chapter="depth_study",
))


def _recheck_one_layer_collapse_lazy(data):
    from .residual_obstruction import _recheck_one_layer_collapse
    return _recheck_one_layer_collapse(data)


def _row_stochastic(ctx) -> list[Evidence]:
    from .residual_obstruction import exact_softmax
    rng = _random.Random(_stable_seed("DONG.row-stochastic:softmax"))
    met = held = 0
    for (n, d) in ((2, 2), (3, 4), (5, 2)):
        for _ in range(3):
            X = sympy.Matrix(n, d, lambda i, j: _Q(rng.randint(-2, 2)))
            A = exact_softmax(X, sympy.Matrix(d, d, lambda i, j: _Q(rng.randint(-1, 1))))
            met += 1
            held += all(v > 0 for v in A) and all(sum(A.row(i)) == 1 for i in range(n))
    return [_exact_instances("softmax attention: every entry > 0 and every row sums to 1", met=met, held=held,
                             arithmetic="exact (2^k softmax)")]


def _uniform_attention_is_uniform(ctx) -> list[Evidence]:
    from .residual_obstruction import exact_softmax
    A = exact_softmax(sympy.Matrix([[1, 2], [0, 1], [3, 0]]), sympy.zeros(2, 2))
    return [_exact_complete("zero scores give A = J/n (entries 1/3 > 0, rows sum to 1)",
                            all(v == _Q(1, 3) for v in A), arithmetic="exact")]


register(Claim(
    id="DONG.row-stochastic", section="Dong explainer: row-stochastic contraction",
    quote="the attention matrix P is that it is strictly row-stochastic: all entries are non-negative, and each row sums "
          "exactly to one",
    statement=r"P=\operatorname{softmax}(S):\ P_{ij}>0,\ P\mathbf 1=\mathbf 1",
    hypotheses=(), conclusion="row-stochastic with positive entries", regimes=("all",),
    checks=[_row_stochastic, _uniform_attention_is_uniform], chapter="depth_study",
))


def markov_bound_holds(P, X0, L: int = 4) -> tuple[bool, list]:
    """||P^l X0 - 1 pi^T X0||_F^2 <= |lambda_2|^(2l) ||X0 - 1 pi^T X0||_F^2 for l = 1..L, exactly (rational spectra)."""
    n = P.shape[0]
    ev = P.eigenvals()
    lam = max((abs(k) for k in ev if k != 1), default=0)
    pi = (P.T - sympy.eye(n)).nullspace()[0]
    pi = pi / sum(pi)
    C = sympy.ones(n, 1) * (pi.T * X0)
    base = sum(v ** 2 for v in X0 - C)
    rows = []
    ok = True
    for l in range(1, L + 1):
        lhs = sum(v ** 2 for v in P ** l * X0 - C)
        rows.append((l, lhs, lam ** (2 * l) * base))
        ok = ok and bool(lhs <= lam ** (2 * l) * base)
    return ok, rows


def _markov_literal(ctx) -> list[Evidence]:
    P = sympy.Matrix([[1, 0, 0], [_Q(1, 2), _Q(1, 2), 0], [0, _Q(1, 2), _Q(1, 2)]])
    ok, rows = markov_bound_holds(P, sympy.Matrix([0, 1, 0]))
    l, a, b = next(r for r in rows if not r[1] <= r[2]) if not ok else rows[0]
    return [_exact_complete(f"P = {P.tolist()} (subdominant eigenvalue 1/2, a Jordan block), X0 = (0, 1, 0)^T: at l = "
                            f"{l}, ||X^l - 1 x^T||^2 = {a} > lambda^(2l) ||X^0 - 1 x^T||^2 = {b}", ok,
                            arithmetic="exact rationals")]


def _markov_symmetric(ctx) -> list[Evidence]:
    rng = _random.Random(_stable_seed("DONG.markov-geometric:symmetric"))
    met = held = 0
    for _ in range(4 if ctx.quick else 10):
        a, b = _Q(rng.randint(1, 9), 10), _Q(rng.randint(1, 9), 10)
        P = sympy.Matrix([[1 - a, a], [b, 1 - b]])
        met += 1
        held += markov_bound_holds(P, sympy.Matrix([[rng.randint(-5, 5)], [rng.randint(-5, 5)]]))[0]
    return [_exact_instances("2 x 2 stochastic P (P^l = 1 pi^T + lambda^l (I - 1 pi^T)): the bound holds", met=met,
                             held=held, arithmetic="exact rationals")]


register(Claim(
    id="DONG.markov-geometric", section="Dong explainer: row-stochastic contraction",
    quote="multiplying by fixed transition matrices leads to geometric mixing ... ‖X^(l) − 1x^T‖ ≤ λ^l ‖X^(0) − 1x^T‖ "
          "where λ < 1 corresponds to the subdominant eigenvalue of the transition matrix",
    statement=r"\|P^lX^{(0)}-\mathbf 1x^\top\|\le|\lambda_2|^l\|X^{(0)}-\mathbf 1x^\top\|\ \forall l",
    hypotheses=("P fixed, row-stochastic",), conclusion="geometric bound with constant 1", regimes=("all",),
    checks=[_markov_literal],
    readings=[Reading("two-by-two", r"n=2:\ \text{the bound holds with equality}", checks=[_markov_symmetric],
                      note="with a defective (Jordan) P the rate is l lambda^l: geometric only up to a constant")],
    chapter="depth_study",
))


def _cubic_solution(ctx, power: int = 3) -> list[Evidence]:
    """The induction step and base case of the closed form (``power``: the recurrence's exponent, 3 in the text)."""
    Cs, r0 = sympy.symbols("C r_0", positive=True)
    l = sympy.Symbol("l", integer=True, nonnegative=True)
    bound = lambda k: Cs ** _Q(-1, 2) * (sympy.sqrt(Cs) * r0) ** (3 ** k)
    step = _symbolic_identity(sympy.powsimp(sympy.expand_power_base(Cs * bound(l) ** power, force=True), force=True),
                              sympy.powsimp(sympy.expand_power_base(bound(l + 1), force=True), force=True),
                              "C (C^(-1/2) (sqrt(C) r0)^(3^l))^3 = C^(-1/2) (sqrt(C) r0)^(3^(l+1)) (the induction step)")
    base = _symbolic_identity(bound(0), r0, "l = 0: C^(-1/2) (sqrt(C) r0) = r0 (the base case)")
    return [step, base]


register(Claim(
    id="DONG.cubic-solution", section="Dong explainer: why self-attention collapses doubly exponentially",
    quote="Solving this cubic recurrence demonstrates that the residual norm decays according to: ‖R^(l)‖_F ≤ "
          "(1/√C)(√C ‖R^(0)‖_F)^(3^l)",
    statement=r"r_{l+1}\le Cr_l^3\Rightarrow r_l\le C^{-1/2}(\sqrt Cr_0)^{3^l}",
    hypotheses=("the cubic recurrence",), conclusion="the closed form", regimes=("all",),
    checks=[_cubic_solution], chapter="depth_study",
))


def _ln_rows_centred() -> bool:
    from .rank_neutrality import centred
    X = sympy.Matrix([[1, 2, 4], [0, 3, 1]])
    return all(sum(centred(X).row(i)) == 0 for i in range(2))


def _maximal_rank(ctx) -> list[Evidence]:
    return [_derivation([ProofStep(r"\mathrm{LN}(X)\mathbf 1=0\ (\gamma=\mathbf 1,\beta=0)",
                                   "post-LN rows are centred, so rank <= d - 1 < min(n, d) when n >= d", "identity",
                                   _ln_rows_centred)], "'the post-LN block cannot keep the maximal rank min(n, d) "
                                                       "when n >= d'", concludes=False, regime="n>d")]

