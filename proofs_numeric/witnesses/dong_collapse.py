r"""The depth study: Dong's rank collapse measured layer by layer, certified, deep into the collapse.

Four regimes (the Dong explainer): ``pure_attention`` (X -> MHA(X)), ``attention_skip``
(X -> X + MHA(X)), ``attention_mlp`` (X -> FFN(MHA(X)), no skip) and ``full_block``
(post-LN BERT block: attention, skip, LayerNorm, GELU FFN, skip, LayerNorm); and a fifth for the paper's §3,
``attention_ln`` (X -> LN(MHA(X)): pure attention with LayerNorm after every layer, no skip, no MLP), run on the
same weights and inputs as ``pure_attention`` so that the two trajectories compare LN's effect on the collapse.

Arithmetic: python-flint ``arb`` balls at ``dps`` digits (default 1000). Every number
is an enclosure, so a reported residual is certified.

Keeping relative precision deep into the collapse
==================================================
Write :math:`X=\mathbf 1m^\top+R` with :math:`\mathbf 1^\top R=0` and propagate ``(m, R)``
instead of X. Row-wise softmax ignores row constants, so the logits reduce to
:math:`L=(\mathbf 1m^\top+R)MR^\top/\sqrt{d_k}` (entries of order :math:`\|R\|`), and
:math:`A=J/n+D` with :math:`D_{ij}=(\mathrm{expm1}(L_{ij})-\overline{\mathrm{expm1}(L_{i\cdot})})/\sum_k e^{L_{ik}}`.
Since :math:`D\mathbf 1=0` and :math:`JR=0`: :math:`AXW=\mathbf 1(W^\top m)^\top+DRW`. No step
subtracts two nearly equal numbers, and arb's exponent range is unbounded, so the
residual keeps all its digits at :math:`10^{-10^5}`. The three attention regimes use this
form (LayerNorm in it: :func:`layer_norm_delta`); the MLP regimes use the plain form (a ball that contains 0 is
reported as "below resolution", never as 0).

Per layer: the Dong residual :math:`\rho_l=\|X-\mathbf 1\bar x^\top\|_F/\|X\|_F`, the ratio
:math:`\log\rho_{l+1}/\log\rho_l` (tends to b for doubly exponential decay with base b,
to 1 for singly exponential decay), a certified rank interval (lower: a minor of
:math:`[m^\top/\|m\|;\,R/\|R\|]` whose arb determinant excludes 0; upper: structure), the
numerical rank at tolerance :math:`10^{-12}\sigma_{\max}` and the effective rank
:math:`\exp H(\sigma/\sum\sigma)` (Roy and Vetterli 2007) of the enclosed matrix, and the same
network run in float64 (to show where float64 reports collapse).
"""
from __future__ import annotations

import dataclasses
import decimal
import math
import time
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import flint
import mpmath
import numpy as np

from proofs_numeric.core.float_hints import RTOL_DEPTH, rank_above, rounding_rtol
from proofs_numeric.core.transformer import Block, Head, block_forward, workdps
from theorems.exact import transformer as T
from theorems.exact.input import cap_list
from theorems.exact.instances import Shape, regime_of
from theorems.exact.padic_rank import complete_pivoting
from theorems.exact.transformer import ARCHITECTURES
from theorems.framework import (
    CheckContext,
    Evidence,
    float_statistic,
    interval_instances,
    interval_witness,
    stable_seed,
)
from theorems.framework.memo import memo, process_cache
from theorems.paper.dong_collapse import rank_blind_to_collapse, skip_bound_holds

__all__ = ["DepthRangeError", "DepthConfig", "run", "run_all", "DEPTH_SHAPES", "ARCHITECTURES", "DELTA_ARCHITECTURES",
           "WEIGHTS",
           "layer_norm_delta", "LN_CONFIGS", "LN_COLLAPSE", "ln_does_not_prevent", "ln_does_not_accelerate",
           "ln_does_not_delay", "ln_rate_unchanged", "ln_collapses", "ln_collapses_orthogonal",
           "exponent_estimate", "exponent_note", "float64_run", "mp_run",
           "depth_results", "LazyRuns", "DEPTH_REGIMES", "DEPTH_DPS", "EXPONENT_TOL", "SINGLY_EXPONENTIAL_BELOW",
           "NO_DECAY_SLOPE", "is_base_three",
           "is_singly_exponential", "weight_gamma", "SKIP_TARGET_GAMMAS", "EVIDENCE"]

#: the architectures propagated in (m, R) form
DELTA_ARCHITECTURES = ("pure_attention", "attention_skip", "attention_ln")
#: the depth study's shapes: single and multi-head, d_k < d and d_k = d, n < d and n > d
DEPTH_SHAPES = [Shape(n=8, d=6, H=2, d_k=3), Shape(n=8, d=6, H=1, d_k=6), Shape(n=4, d=6, H=1, d_k=6),
          Shape(n=4, d=6, H=3, d_k=2)]
NUMERICAL_RANK_RTOL = RTOL_DEPTH  # numerical rank counts sigma_i > 1e-12 sigma_max (stated in every record)


class DepthRangeError(ValueError):
    """The residual stream left the float64 range, which the numerical-rank columns need."""


@dataclass
class DepthConfig:
    n: int = 8
    d: int = 6
    H: int = 2
    d_k: int = 3
    layers: int = 12
    dps: int = 1000
    seed: int = 0
    d_ff: int | None = None
    qk_scale: float = 1.0
    vo_scale: float = 1.0
    #: "negative-identity": W_Q = W_K = sqrt(qk_scale) I, W_V = I, W_O = -I (d_k = d): sharp,
    #: near-identity attention with W_V W_O = -I, the adversary of the skip-connection bound;
    #: "orthogonal": Gaussian W_Q, W_K and W_V^h = Q[:, head h], W_O^h = P[head h, :] for random orthogonal
    #: Q, P (H d_k = d), so sum_h W_V^h W_O^h = vo_scale Q P is orthogonal (the value maps of Wu et al. 2024);
    #: "identity": W_Q = W_K = sqrt(qk_scale) I, W_V = W_O = I (H = 1, d_k = d): logits qk_scale x_i.x_j / sqrt(d),
    #: A X with no mixing of features (the metastable two-cluster witness of RW.wu-comparison-rate)
    weights: str = "gaussian"

    def __post_init__(self):
        if self.d_ff is None:
            self.d_ff = 4 * self.d
        for name in ("n", "d", "H", "d_k", "layers", "dps"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be positive")


def arb_context(dps: int) -> T.ArbContext:
    """The arb context of the study: python-flint balls at ``dps`` digits (precision set locally)."""
    return T.arb(dps)


#: the weight families of :class:`DepthConfig`
WEIGHTS = ("gaussian", "negative-identity", "orthogonal", "identity")


def draw_weights(cfg: DepthConfig):
    rng = np.random.default_rng(cfg.seed)
    d, dk = cfg.d, cfg.d_k
    heads = []
    if cfg.weights not in WEIGHTS:
        raise ValueError(f"weights {cfg.weights!r} not in {WEIGHTS}")
    if cfg.weights == "negative-identity":
        if dk != d:
            raise ValueError("negative-identity weights need d_k = d")
        I = np.eye(d)
        heads = [(math.sqrt(cfg.qk_scale) * I, math.sqrt(cfg.qk_scale) * I, I, -I / cfg.H) for _ in range(cfg.H)]
    if cfg.weights == "identity":
        if dk != d or cfg.H != 1:
            raise ValueError("identity weights need H = 1 and d_k = d")
        I = np.eye(d)
        heads = [(math.sqrt(cfg.qk_scale) * I, math.sqrt(cfg.qk_scale) * I, I, I)]
    if cfg.weights == "orthogonal":
        if cfg.H * dk != d:
            raise ValueError("orthogonal value maps need H d_k = d")
        Q, P = (np.linalg.qr(rng.normal(0, 1, (d, d)))[0] for _ in range(2))
        for h in range(cfg.H):
            WQ, WK = (rng.normal(0, 1 / math.sqrt(d), (d, dk)) for _ in range(2))
            heads.append((WQ * math.sqrt(cfg.qk_scale), WK * math.sqrt(cfg.qk_scale),
                          Q[:, h * dk:(h + 1) * dk] * cfg.vo_scale, P[h * dk:(h + 1) * dk, :]))
    for _ in range(cfg.H if cfg.weights == "gaussian" else 0):
        WQ, WK, WV = (rng.normal(0, 1 / math.sqrt(d), (d, dk)) for _ in range(3))
        WO = rng.normal(0, 1 / math.sqrt(dk), (dk, d))
        heads.append((WQ * math.sqrt(cfg.qk_scale), WK * math.sqrt(cfg.qk_scale), WV * cfg.vo_scale, WO))
    d_ff = cfg.d_ff
    assert d_ff is not None  # DepthConfig.__post_init__ sets it
    ffn = (rng.normal(0, 1 / math.sqrt(d), (d, d_ff)), rng.normal(0, 0.1, d_ff),
           rng.normal(0, 1 / math.sqrt(d_ff), (d_ff, d)), rng.normal(0, 0.1, d))
    X0 = rng.normal(0, 1, (cfg.n, d))
    return heads, ffn, X0


def _colmean(R: flint.arb_mat) -> list:
    n = R.nrows()
    return [sum((R[i, j] for i in range(n)), flint.arb(0)) / n for j in range(R.ncols())]


def center_rows(R: flint.arb_mat):
    n, d = R.nrows(), R.ncols()
    mu = _colmean(R)
    return flint.arb_mat(n, d, [R[i, j] - mu[j] for i in range(n) for j in range(d)]), mu


def _fro2(M) -> flint.arb:
    return sum((M[i, j] ** 2 for i in range(M.nrows()) for j in range(M.ncols())), flint.arb(0))


def _row(m: list) -> flint.arb_mat:
    return flint.arb_mat(1, len(m), m)


def ones_times(m: list, n: int) -> flint.arb_mat:
    return flint.arb_mat(n, len(m), [m[j] for _ in range(n) for j in range(len(m))])


def attention_delta(m, R, heads_a, dk, ctx: T.ArbContext | None = None):
    """One MHA in (m, R) form: returns (m', R') with X' = 1 m'^T + R' = MHA(1 m^T + R).

    Logits x_i^T M r_j / sqrt(d_k) (row constants dropped) split into a_j = m^T M r_j / sqrt(d_k),
    the same for every row, and b_ij = r_i^T M r_j / sqrt(d_k). With alpha = softmax(a),
    A_ij - alpha_j = alpha_j (e_ij - s_i) / (1 + s_i), e = expm1(b), s_i = sum_k alpha_k e_ik, so
    A X W = 1 (W^T m + W^T R^T alpha)^T + (A - 1 alpha^T) R W: the row-constant part goes to m
    and the rest is O(|R|^3) computed without cancellation.

    A different algorithm from :func:`theorems.transformer.mha` (the centred form), written with the
    same context's operations; alpha is the one softmax of :mod:`theorems.transformer`.
    """
    ctx = ctx or T.ArbContext(bits=flint.ctx.prec)
    n, d = ctx.shape(R)
    sq = ctx.sqrt(ctx.const(dk))
    new_m = [flint.arb(0)] * d
    T_ = flint.arb_mat(n, d)
    mrow = _row(m)
    for (M, W) in heads_a:
        MRt = ctx.matmul(M, ctx.transpose(R))                                       # [d, n]
        alpha = T.softmax_rows(ctx, ctx.div_scalar(ctx.matmul(mrow, MRt), sq))    # [1, n]
        al = ctx.entries(alpha)[0]
        E = ctx.expm1(ctx.div_scalar(ctx.matmul(R, MRt), sq))                     # e_ij = expm1(b_ij)
        s = ctx.row_sum(ctx.mul_cols(E, al))                                      # s_i = sum_k alpha_k e_ik
        G = ctx.div_rows(ctx.mul_cols(ctx.sub_rows(E, s), al), ctx.vadd_scalar(s, ctx.const(1)))
        RW = ctx.matmul(R, W)
        T_ = ctx.add(T_, ctx.matmul(G, RW))
        const = ctx.add(ctx.matmul(mrow, W), ctx.matmul(alpha, RW))
        new_m = [new_m[j] + const[0, j] for j in range(d)]
    Tc, mu = center_rows(T_)
    return [new_m[j] + mu[j] for j in range(d)], Tc


def layer_norm_delta(m, R, ctx: T.ArbContext | None = None):
    """LayerNorm (gamma = 1, beta = 0, eps = 0) of X = 1 m^T + R in (m, R) form: (m', R') with 1 m'^T + R' = LN(X).

    With u = P m and v_i = P r_i (P centres the features), sigma_i^2 = ||u + v_i||^2 / d = s_0 (1 + e_i),
    s_0 = ||u||^2 / d, e_i = (2 <u, v_i> + ||v_i||^2) / ||u||^2; with g_i = (1 + e_i)^(-1/2) - 1 =
    expm1(-log1p(e_i) / 2), LN(x_i) = s_0^(-1/2) (1 + g_i)(u + v_i), so (the v_i sum to 0)
    m' = s_0^(-1/2) ((1 + mean g) u + mean(g v)) and r'_i = s_0^(-1/2) ((g_i - mean g) u + (1 + g_i) v_i - mean(g v)):
    every term is computed with its own relative precision (log1p, expm1), none as a difference of nearly equal
    numbers, so the residual keeps its digits deep in the collapse. A different algorithm from
    :func:`theorems.transformer.layer_norm` (a property test checks that the two enclosures overlap).
    H1 (sigma_i > 0) is needed: a mean row m constant across features (u certainly 0, or not certainly
    non-zero at this precision) raises ValueError naming H1.
    """
    ctx = ctx or T.ArbContext(bits=flint.ctx.prec)
    n, d = R.nrows(), R.ncols()
    mbar = sum(m, flint.arb(0)) / d
    u = [mj - mbar for mj in m]
    V = flint.arb_mat(n, d, [R[i, j] - sum((R[i, k] for k in range(d)), flint.arb(0)) / d
                             for i in range(n) for j in range(d)])
    uu = sum((x * x for x in u), flint.arb(0))
    if uu.contains(0):
        raise ValueError("H1 undecided: the mean token is (or may be, at this precision) constant across features, "
                         "so LayerNorm of the collapsing tokens is not certified to be defined")
    g = []
    for i in range(n):
        e = (2 * sum((u[j] * V[i, j] for j in range(d)), flint.arb(0))
             + sum((V[i, j] ** 2 for j in range(d)), flint.arb(0))) / uu
        if not e > -1:
            raise ValueError(f"H1 undecided: row {i} of X may be constant (sigma = 0)")
        g.append((-e.log1p() / 2).expm1())
    inv = (uu / d).rsqrt()
    gbar = sum(g, flint.arb(0)) / n
    gv = [sum((g[i] * V[i, j] for i in range(n)), flint.arb(0)) / n for j in range(d)]
    m2 = [inv * ((1 + gbar) * u[j] + gv[j]) for j in range(d)]
    R2 = flint.arb_mat(n, d, [inv * ((g[i] - gbar) * u[j] + (1 + g[i]) * V[i, j] - gv[j])
                              for i in range(n) for j in range(d)])
    return m2, R2


def _rank_interval(m, R, upper: int) -> list[int]:
    """Certified [lower, upper] for rank(1 m^T + R) = dim(span(m) + row(R)), from a minor of the normalised stack."""
    n, d = R.nrows(), R.ncols()
    nm = _fro2(_row(m)).sqrt()
    nr = _fro2(R).sqrt()
    rows = []
    if not nm.contains(0):
        rows.append([m[j] / nm for j in range(d)])
    if not nr.contains(0):
        rows.extend([R[i, j] / nr for j in range(d)] for i in range(n))
    if not rows:
        return [0, upper]
    mids = np.array([[float(v.mid()) for v in row] for row in rows])
    # complete pivoting on the (O(1)) midpoints chooses the minor; arb certifies it
    ri, ci = complete_pivoting(mids, rtol=0.0, atol=1e-300)
    piv = list(zip(ri.tolist(), ci.tolist()))
    k = len(piv)
    while k > 0:
        rs, cs = sorted(p[0] for p in piv[:k]), sorted(p[1] for p in piv[:k])
        det = flint.arb_mat(k, k, [rows[i][j] for i in rs for j in cs]).det()
        if not det.contains(0):
            return [k, upper]
        k -= 1
    return [0, upper]


def _rounding_rank(X: np.ndarray) -> int:
    """numpy's matrix_rank of X (tolerance max(n, d) * 2^-52 sigma_max), through the one count of the layer."""
    return rank_above(np.linalg.svd(X, compute_uv=False), rounding_rtol(X.shape))


def _spectrum(X: np.ndarray):
    s = np.linalg.svd(X, compute_uv=False)
    if s[0] == 0:
        return 0, 0.0
    num = rank_above(s, NUMERICAL_RANK_RTOL)
    p = s / s.sum()
    p = p[p > 0]
    return num, float(np.exp(-(p * np.log(p)).sum()))


def _log10(a: flint.arb) -> float | None:
    if a.contains(0):
        return None
    return float((a.log() / flint.arb(10).log()).mid())


def _fmt(a: flint.arb) -> str:
    if a.contains(0):
        return "below resolution"
    return a.mid().str(6, radius=False)


def _ball(a: flint.arb, digits: int) -> tuple[dict, list[str]]:
    """The ball as decimal text that certifies and reproduces it: ``({"mid", "rad"}, [lower, upper])``.

    arb prints a ball at ``digits`` digits as ``[m +/- r]`` containing the ball itself; the enclosure is
    ``[m - r, m + r]`` rounded outward in exact decimal arithmetic, so it contains the ball too."""
    s = a.str(max(digits, 10)).strip()
    if s.startswith("["):
        s = s[1:-1]
    m, _, r = s.partition("+/-")
    m, r = (m.strip() or "0"), (r.strip() or "0")
    D = decimal.Decimal
    prec = max(digits, 10) + 60
    try:
        lo = decimal.Context(prec=prec, rounding=decimal.ROUND_FLOOR, Emin=decimal.MIN_EMIN,
                             Emax=decimal.MAX_EMAX).subtract(D(m), D(r))
        hi = decimal.Context(prec=prec, rounding=decimal.ROUND_CEILING, Emin=decimal.MIN_EMIN,
                             Emax=decimal.MAX_EMAX).add(D(m), D(r))
    except decimal.InvalidOperation:  # an exponent beyond decimal's range (rho ~ 10^(-2 x 10^18) at depth 70):
        # arb's own exact decimal ball (mid +/- rad) 10^exp, which contains the ball
        mi, ra, ex = a.mid_rad_10exp(max(digits, 10))
        return {"mid": f"{mi}e{ex}", "rad": f"{ra}e{ex}"}, [f"{mi - ra}e{ex}", f"{mi + ra}e{ex}"]
    return {"mid": m, "rad": r}, [str(lo), str(hi)]


def float64_run(cfg: DepthConfig, regime: str) -> list[dict]:
    """The same network in float64 (numpy), plain formulation: what float64 reports."""
    heads, (W1, b1, W2, b2), X = draw_weights(cfg)
    blk = Block([Head(*h) for h in heads], W1, b1, W2, b2)
    out = []
    for layer in range(cfg.layers + 1):
        if layer:
            with np.errstate(all="ignore"):
                X = block_forward(X, blk, regime, backend="float64")
        R = X - X.mean(axis=0, keepdims=True)
        nx = np.linalg.norm(X)
        rho = float(np.linalg.norm(R) / nx) if nx > 0 and np.isfinite(nx) else float("nan")
        ok = np.all(np.isfinite(X))
        out.append({"layer": layer, "rho": rho, "numerical_rank": _rounding_rank(X) if ok else None,
                    "effective_rank": _spectrum(X)[1] if ok else None})
    return out


def mp_run(cfg: DepthConfig, regime: str) -> list[float]:
    """The same network in plain mpmath ``mp`` at ``cfg.dps`` digits (uncertified): rho per layer.

    The benchmarks' baseline for the certified (m, R) study at the same precision. Plain
    arithmetic loses every digit of the residual once rho < 10^-dps, which the (m, R) form avoids.
    """
    heads, (W1, b1, W2, b2), X = draw_weights(cfg)
    blk = Block([Head(*h) for h in heads], W1, b1, W2, b2)
    rhos = []
    with workdps(mpmath.mp, cfg.dps):
        for layer in range(cfg.layers + 1):
            if layer:
                X = block_forward(X, blk, regime, backend="mp", dps=cfg.dps)
            Xm = X if isinstance(X, mpmath.matrix) else mpmath.matrix(X.tolist())
            n, d = Xm.rows, Xm.cols
            mu = [mpmath.fsum(Xm[i, j] for i in range(n)) / n for j in range(d)]
            r2 = mpmath.fsum((Xm[i, j] - mu[j]) ** 2 for i in range(n) for j in range(d))
            x2 = mpmath.fsum(Xm[i, j] ** 2 for i in range(n) for j in range(d))
            rhos.append(float(mpmath.sqrt(r2 / x2)) if x2 else float("nan"))
            X = Xm
    return rhos


#: the name of :func:`run`'s results in the on-disk store (:mod:`theorems.framework.memo`)
DEPTH_MEMO = "depth-run"


def run(cfg: DepthConfig, regime: str) -> dict:
    """One regime, one shape: the layer records and the exponent estimate. Kept on disk under the key of the source,
    the configuration and the regime (:func:`theorems.framework.memo.memo`): the depth study ``make verify``
    computes is the one the book's pages draw."""
    if regime not in ARCHITECTURES:
        raise ValueError(f"regime {regime!r} not in {ARCHITECTURES}")
    return memo(DEPTH_MEMO, {**dataclasses.asdict(cfg), "regime": regime}, lambda: _run(cfg, regime))


def _run(cfg: DepthConfig, regime: str) -> dict:
    t0 = time.perf_counter()
    heads, (W1, b1, W2, b2), X0 = draw_weights(cfg)
    n, d = cfg.n, cfg.d
    ctx = arb_context(cfg.dps)
    with ctx.local():
        A_ = ctx.asmatrix
        heads_a = [(A_(WQ) * A_(WK).transpose(), A_(WV) * A_(WO)) for WQ, WK, WV, WO in heads]
        heads_p = [T.Head(*(A_(w) for w in h)) for h in heads]
        ffn = (A_(W1), ctx.asvector(b1), A_(W2), ctx.asvector(b2))
        R, m = center_rows(A_(X0))
        delta = regime in DELTA_ARCHITECTURES
        recs = []
        for layer in range(cfg.layers + 1):
            if layer:
                if delta:
                    m2, R2 = attention_delta(m, R, heads_a, cfg.d_k, ctx)
                    if regime == "attention_skip":
                        m2 = [m2[j] + m[j] for j in range(d)]
                        R2 = R2 + R
                    if regime == "attention_ln":
                        m2, R2 = layer_norm_delta(m2, R2, ctx)
                    m, R = m2, R2
                else:
                    X = ones_times(m, n) + R
                    Mh = T.mha(ctx, X, heads_p)
                    if regime == "attention_mlp":
                        X = T.ffn(ctx, Mh, *ffn)
                    else:
                        Z = T.layer_norm(ctx, X + Mh)
                        X = T.layer_norm(ctx, Z + T.ffn(ctx, Z, *ffn))
                    R, m = center_rows(X)
            nr2, nm2 = _fro2(R), _fro2(_row(m))
            rho = (nr2 / (n * nm2 + nr2)).sqrt() if not (n * nm2 + nr2).contains(0) else flint.arb(0, 1)
            upper = min(n, d) if regime not in ("pure_attention", "attention_ln") or layer == 0 else \
                min(n, d, cfg.H * cfg.d_k) if regime == "pure_attention" else min(n, d - 1, cfg.H * cfg.d_k)
            Xf = np.array([[float((m[j] + R[i, j]).mid()) for j in range(d)] for i in range(n)])
            if not np.all(np.isfinite(Xf)) or float(np.abs(Xf).max()) > 1e150:  # SVD squares: keep it finite
                big = float(np.abs(Xf).max()) if np.all(np.isfinite(Xf)) else float("inf")
                raise DepthRangeError(
                    f"{regime}: at layer {layer} the residual stream's entries reach {big:.3g}, "
                    f"beyond the float64 range the numerical-rank columns need; this regime supports at most "
                    f"--layers {max(layer - 1, 0)} for n={n}, d={d}, H={cfg.H}, d_k={cfg.d_k}, seed={cfg.seed}")
            num, eff = _spectrum(Xf)
            eps52 = flint.arb(2) ** -52
            below = True if rho < eps52 else (False if rho > eps52 else None)  # arb: True only when certain
            ball, enclosure = _ball(rho, cfg.dps)
            recs.append({"layer": layer, "rho": _fmt(rho), "rho_ball": ball, "rho_enclosure": enclosure,
                         "log10_rho": _log10(rho), "rho_below_2^-52": below,
                         "log10_norm_R": _log10(nr2.sqrt()) if not nr2.contains(0) else None,
                         "certified_rank": _rank_interval(m, R, upper), "numerical_rank": num,
                         "numerical_rank_rtol": NUMERICAL_RANK_RTOL, "effective_rank": eff})
    for a, b in zip(recs, recs[1:]):
        b["log_ratio"] = (b["log10_rho"] / a["log10_rho"]) if (a["log10_rho"] and b["log10_rho"]) else None
    recs[0]["log_ratio"] = None
    f64 = float64_run(cfg, regime)
    for r, f in zip(recs, f64):
        r["float64"] = f
    return {"layers": recs, "exponent": exponent_estimate(recs), "seconds": time.perf_counter() - t0,
            "arithmetic": f"python-flint arb balls at {cfg.dps} digits" + (" ((m, R) form)" if regime in
                                                                              DELTA_ARCHITECTURES else ""),
            "float64_first_collapse_layer": next((f["layer"] for f in f64 if f["numerical_rank"] is not None
                                                  and f["numerical_rank"] <= 1), None),
            "machine_precision_layer": next((r["layer"] for r in recs if r["log10_rho"] is not None
                                             and r["log10_rho"] < math.log10(2 ** -52)), None),
            "machine_precision_layer_certified": _first_certified_below(recs)}


def _first_certified_below(recs: list[dict]) -> int | None:
    """The first layer whose rho ball lies below 2^-52, every earlier ball certainly above (else None)."""
    for r in recs:
        if r["rho_below_2^-52"] is True:
            return r["layer"]
        if r["rho_below_2^-52"] is not False:
            return None
    return None


def _collapsing_ratios(recs: list[dict], below: float = -3.0) -> list[float]:
    return [b["log_ratio"] for a, b in zip(recs, recs[1:])
            if b.get("log_ratio") is not None and a["log10_rho"] is not None and a["log10_rho"] < below]


def exponent_estimate(recs: list[dict], below: float = -3.0) -> float | None:
    """Median of log rho_{l+1} / log rho_l over the layers already collapsing (log10 rho_l < -3); None with fewer
    than two such ratios (:func:`exponent_note` says why in the words of the table)."""
    ratios = _collapsing_ratios(recs, below)
    if len(ratios) < 2:
        return None
    return float(np.median(ratios[-4:]))


def exponent_note(recs: list[dict], below: float = -3.0) -> str:
    """The exponent estimate, or why there is none, counted from the same layers the table shows."""
    e = exponent_estimate(recs, below)
    if e is not None:
        return f"exponent estimate {round(e, 4)} (median of the last log-ratios: float evidence)"
    under = [r["layer"] for r in recs if r.get("log10_rho") is not None and r["log10_rho"] < below]
    lost = [r["layer"] for r in recs[1:] if r.get("log10_rho") is None]
    n = len(_collapsing_ratios(recs, below))
    text = (f"no exponent estimate: it needs two ratios log rho_(l+1) / log rho_l with rho_l < 1e-{-int(below)}, "
            f"found {n}; {len(under)} {'layer' if len(under) == 1 else 'layers'} with rho < 1e-{-int(below)}"
            + (f" (layer{'s' if len(under) > 1 else ''} {cap_list(under)})" if under else ""))
    if lost:
        text += f"; below resolution (no logarithm) at layer{'s' if len(lost) > 1 else ''} {cap_list(lost)}"
    return text


def run_all(cfg: DepthConfig | None = None, shapes=None, regimes=ARCHITECTURES) -> dict:
    """Every regime for the default shape, and every regime for each shape in ``shapes``."""
    cfg = cfg or DepthConfig()
    out: dict[str, Any] = {
        "config": {"n": cfg.n, "d": cfg.d, "H": cfg.H, "d_k": cfg.d_k, "layers": cfg.layers, "dps": cfg.dps,
                   "seed": cfg.seed},
        "dps": cfg.dps, "layers": cfg.layers, "shape": {"n": cfg.n, "d": cfg.d, "H": cfg.H, "d_k": cfg.d_k},
        "regimes": {r: run(cfg, r) for r in regimes}, "shapes": []}
    for (n, d, H, dk) in (shapes or []):
        c = DepthConfig(n=n, d=d, H=H, d_k=dk, layers=cfg.layers, dps=cfg.dps, seed=cfg.seed)
        out["shapes"].append({"n": n, "d": d, "H": H, "d_k": dk, "regimes": {r: run(c, r) for r in regimes}})
    return out

# --- numeric evidence for the claims of theorems.paper.dong_collapse (attached by id, see EVIDENCE) ---

def _shape_str(s: dict) -> str:
    return f"n={s['n']}, d={s['d']}, H={s['H']}, d_k={s['d_k']}"


DEPTH_DPS = 1000


_CACHE: dict = process_cache()  # emptied by theorems.framework.memo.clear_process_caches


_ARB = f"python-flint arb balls at {DEPTH_DPS} digits ((m, R) form for the attention regimes)"


#: the weights of the LayerNorm comparison (pure attention with and without LN after every layer, same weights and
#: inputs): the study's Gaussian weights, the value maps scaled by 1/2 and by 2 (LN removes any scale of the layer's
#: output, so these differ without LN only), and orthogonal value maps (Wu et al. 2024's class)
LN_CONFIGS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("Gaussian weights", {}), ("Gaussian, W_V scaled by 1/2", {"vo_scale": 0.5}),
    ("Gaussian, W_V scaled by 2", {"vo_scale": 2.0}), ("orthogonal value maps", {"weights": "orthogonal"}))
#: the collapse notion of the LayerNorm comparison, named in every piece of its evidence
LN_COLLAPSE = ("collapse in Dong's sense: the relative residual rho_l = ||X - 1 xbar^T||_F / ||X||_F certainly below "
               "2^-52 within 12 layers")


class LazyRuns(Mapping):
    """{regime: :func:`run` (cfg, regime)} for the regimes named, each run on first access and kept: a claim that
    reads one regime of the depth study computes that regime only (the ledger's first reader of the study no longer
    pays for all of it), and every later reader shares it (:func:`run` also keeps it on disk)."""

    def __init__(self, cfg: DepthConfig, regimes: tuple[str, ...], done: dict | None = None):
        self.cfg, self.regimes = cfg, tuple(regimes)
        self._done = {} if done is None else done

    def __getitem__(self, regime: str) -> dict:
        if regime not in self.regimes:
            raise KeyError(regime)
        if regime not in self._done:
            self._done[regime] = run(self.cfg, regime)
        return self._done[regime]

    def __iter__(self):
        return iter(self.regimes)

    def __len__(self) -> int:
        return len(self.regimes)

    def computed(self) -> tuple[str, ...]:
        """The regimes run so far."""
        return tuple(r for r in self.regimes if r in self._done)


class _LazyStudy(Mapping):
    """The depth study's entries, each computed when first read (``adversarial_skip``: the adversarial run)."""

    def __init__(self, entries: dict, adversarial: DepthConfig):
        self._entries, self._adv = entries, LazyRuns(adversarial, ("attention_skip",))

    def __getitem__(self, key: str):
        if key == "adversarial_skip":
            return self._adv["attention_skip"]
        return self._entries[key]

    def __iter__(self):
        return iter((*self._entries, "adversarial_skip"))

    def __len__(self) -> int:
        return len(self._entries) + 1


#: the regimes of the depth study (every shape runs each)
DEPTH_REGIMES = ("pure_attention", "attention_skip", "attention_mlp", "full_block", "attention_ln")


def depth_results(quick: bool = False) -> Mapping:
    """The depth study over every shape (cached per process): ``shapes``, [(shape, {regime: run})]; ``ln_study``: per
    shape and weight family of :data:`LN_CONFIGS`, pure attention with and without LayerNorm on the same weights and
    inputs; ``adversarial_skip`` and ``adversarial_cfg``. Each run is computed when first read
    (:class:`LazyRuns`): a claim pays for the regimes it reads."""
    key = quick
    if key not in _CACHE:
        shapes = DEPTH_SHAPES[:2] if quick else DEPTH_SHAPES
        res, ln = [], []
        for (n, d, H, dk) in shapes:
            cfg = DepthConfig(n=n, d=d, H=H, d_k=dk, dps=DEPTH_DPS)
            shape = {"n": n, "d": d, "H": H, "d_k": dk}
            runs = LazyRuns(cfg, DEPTH_REGIMES)
            res.append((shape, runs))
            for label, kw in LN_CONFIGS:
                if not kw:  # the same runs as the shape's own (shared, not run twice)
                    pair = LazyRuns(cfg, ("pure_attention", "attention_ln"), runs._done)
                else:
                    c = DepthConfig(n=n, d=d, H=H, d_k=dk, dps=DEPTH_DPS, **kw)
                    pair = LazyRuns(c, ("pure_attention", "attention_ln"))
                ln.append((shape, label, pair))
        adv = DepthConfig(n=8, d=6, H=1, d_k=6, dps=DEPTH_DPS, weights="negative-identity", qk_scale=100)
        _CACHE[key] = _LazyStudy({"shapes": res, "adversarial_cfg": adv, "ln_study": ln}, adv)
    return _CACHE[key]


#: |e - 3| below this counts as "base 3" (the median of the last log-ratios, :func:`exponent_estimate`)
EXPONENT_TOL = 0.05
#: an exponent estimate below this counts as "singly exponential" (not the doubly exponential base 3)
SINGLY_EXPONENTIAL_BELOW = 1.5
#: a slope of log10 rho per layer at or above this counts as "no decay"
NO_DECAY_SLOPE = -0.01


def is_base_three(e: float) -> bool:
    """The exponent estimate ``e`` is 3 within :data:`EXPONENT_TOL` (cubic convergence)."""
    return abs(e - 3) < EXPONENT_TOL


def is_singly_exponential(e: float) -> bool:
    """The exponent estimate ``e`` is below :data:`SINGLY_EXPONENTIAL_BELOW`."""
    return e < SINGLY_EXPONENTIAL_BELOW


_FIT = ("median of log rho_(l+1) / log rho_l over the last collapsing layers, from arb enclosures at "
        f"{DEPTH_DPS} digits (a statistic over layers: float evidence)")


def exponent_evidence(ctx, regime_key: str, ok, what: str, no_collapse_holds: bool | None = None) -> list[Evidence]:
    """One float statistic per shape (a fit over layers is float evidence, whatever its inputs).

    ``no_collapse_holds``: the answer when rho never falls below 1e-3 (no exponent to estimate):
    True for claims that collapse does not happen, None (nothing measured) otherwise.
    """
    out = []
    for shape, runs in depth_results(ctx.quick)["shapes"]:
        r = runs[regime_key]
        e = r["exponent"]
        holds = no_collapse_holds if e is None else bool(ok(e))
        why = None if e is not None else exponent_note(r["layers"]).removeprefix("no exponent estimate: ")
        out.append(float_statistic(
            f"{_shape_str(shape)}: {what} exponent estimate "
            f"{f'n/a ({why})' if e is None else f'{e:.4f}'}; "
            f"rho_12 = {r['layers'][-1]['rho']}", holds, regime=regime_of(shape["n"], shape["d"]), arithmetic=_FIT,
            numbers={**shape, "exponent": e},
            reason=None if holds is not None else f"no exponent to measure: {why}"))
    return out


def machine_precision(ctx, window: bool = True) -> list[Evidence]:
    """The first layer where rho is certainly below 2^-52, on the depth study's standard-scale Gaussian weights:
    in 5..7 (``window``, the exact-window reading; regimes n < d, n > d), or at most 7 (the upper-bound reading;
    regime standard-scale, with more draws: :func:`crossing_runs`)."""
    if not window:
        return _upper_bound_gaussian(ctx, 1.0, "standard-scale")
    out = []
    for shape, runs in depth_results(ctx.quick)["shapes"]:
        r = runs["pure_attention"]
        L = r["machine_precision_layer_certified"]
        out.append(interval_instances(
            f"{_shape_str(shape)}, standard-scale Gaussian weights: rho first certainly below 2^-52 at layer {L} "
            f"(every earlier enclosure certainly above); float64 numerical rank first 1 at layer "
            f"{r['float64_first_collapse_layer']}", None if L is None else 5 <= L <= 7,
            regime=regime_of(shape["n"], shape["d"]), arithmetic=_ARB,
            numbers={**shape, "layer": L}, reason=None if L is not None else "no enclosure crossed 2^-52 certainly"))
    return out


#: the last layer 'within 5 to 7 layers' allows, read as an upper bound
WITHIN_LAYERS = 7
#: the seeds of the upper-bound reading's Gaussian draws (8 layers each: enough to decide 'by layer 7')
CROSSING_SEEDS, CROSSING_SEEDS_QUICK = tuple(range(6)), (0, 1, 2)
#: sharp attention: the logits scaled by this factor (W_Q, W_K each by its square root), Gaussian weights
SHARP_GAUSSIAN_SCALE = 4.0


def crossing_runs(ctx, qk_scale: float) -> list[tuple[DepthConfig, dict]]:
    """Pure attention on Gaussian weights with the logits scaled by ``qk_scale``, 8 layers, for every seed of
    :data:`CROSSING_SEEDS` on the depth study's shapes (quick: fewer; the sharp runs on the first shape)."""
    seeds = CROSSING_SEEDS_QUICK if ctx.quick and qk_scale == 1.0 else CROSSING_SEEDS
    shapes = DEPTH_SHAPES if qk_scale == 1.0 else DEPTH_SHAPES[: 1 if ctx.quick else 2]
    out = []
    for sh in shapes:
        for seed in seeds:
            cfg = DepthConfig(n=sh.n, d=sh.d, H=sh.H, d_k=sh.d_k, dps=DEPTH_DPS, qk_scale=qk_scale, seed=seed,
                              layers=WITHIN_LAYERS + 1)
            out.append((cfg, run(cfg, "pure_attention")))
    return out


def within(recs: list[dict], last: int = WITHIN_LAYERS) -> bool | None:
    """'rho drops below 2^-52 by layer ``last``' on one run's certified flags: True when some layer <= last is
    certainly below, False when every layer 1..last is certainly above, None when an enclosure straddles."""
    flags = [x["rho_below_2^-52"] for x in recs if 1 <= x["layer"] <= last]
    if any(f is True for f in flags):
        return True
    return False if len(flags) == last and all(f is False for f in flags) else None


def _upper_bound_gaussian(ctx, qk_scale: float, regime: str) -> list[Evidence]:
    """One interval instance per shape: how many Gaussian draws cross by layer 7 (every draw decided by certified
    enclosures); the instance fails when one draw certainly does not. A failing draw fails on an open set of
    weights: each of its 7 enclosures lies certainly above 2^-52, a strict inequality on continuous functions of the
    weights."""
    by_shape: dict = defaultdict(list)
    for cfg, r in crossing_runs(ctx, qk_scale):
        by_shape[(cfg.n, cfg.d, cfg.H, cfg.d_k)].append((cfg.seed, r["machine_precision_layer_certified"],
                                                         within(r["layers"])))
    out = []
    scale = "standard-scale Gaussian weights" if qk_scale == 1.0 else \
        f"Gaussian weights with the logits scaled by {qk_scale:g} (W_Q, W_K by sqrt({qk_scale:g}))"
    for (n, d, H, dk), rows in by_shape.items():
        failed = [seed for seed, _, w in rows if w is False]
        open_ = [seed for seed, _, w in rows if w is None]
        holds = False if failed else (None if open_ else True)
        firsts = ", ".join(f"seed {seed}: {'none in 8' if L is None else L}" for seed, L, _ in rows)
        out.append(interval_instances(
            f"{_shape_str({'n': n, 'd': d, 'H': H, 'd_k': dk})}, {scale}: first layer with rho certainly below "
            f"2^-52 ({firsts}); {len(rows) - len(failed) - len(open_)}/{len(rows)} draws cross by layer "
            f"{WITHIN_LAYERS}" + (f"; seeds {failed} stay certainly above 2^-52 at every layer 1..{WITHIN_LAYERS}"
                                  if failed else ""),
            holds, regime=regime, arithmetic=_ARB,
            numbers={"n": n, "d": d, "H": H, "d_k": dk, "qk_scale": qk_scale, "draws": len(rows),
                     "failed_seeds": failed, "layer": max((L for _, L, _ in rows if L is not None), default=None)},
            reason="an enclosure straddles 2^-52" if holds is None else None))
    return out


#: sharp near-identity attention (W_Q = W_K = sqrt(s) I, W_V W_O = -I, d_k = d): the scales s and shapes run
SHARP_SCALES: tuple[float, ...] = (4.0, 16.0, 100.0)
SHARP_SHAPES: tuple[tuple[int, int], ...] = ((8, 6), (4, 6))


def sharp_attention_runs(ctx) -> list[tuple[DepthConfig, dict]]:
    """Pure attention, 12 layers, on sharp near-identity weights (A close to I, the value map -I): the residual
    stays put, so rho never reaches 2^-52."""
    scales = SHARP_SCALES[-1:] if ctx.quick else SHARP_SCALES
    out = []
    for n, d in SHARP_SHAPES:
        for s in scales:
            cfg = DepthConfig(n=n, d=d, H=1, d_k=d, dps=DEPTH_DPS, weights="negative-identity", qk_scale=s)
            out.append((cfg, run(cfg, "pure_attention")))
    return out


def machine_precision_upper_bound(ctx) -> list[Evidence]:
    """'within 5 to 7 layers' as an upper bound: holds on standard-scale Gaussian weights (every draw crosses by
    layer 7); fails certainly on sharp attention: Gaussian weights with the logits scaled by 4 (some draws first
    cross at layer 8 or later) and near-identity attention (every layer's enclosure of rho certainly above 2^-52)."""
    out = machine_precision(ctx, window=False)
    out += _upper_bound_gaussian(ctx, SHARP_GAUSSIAN_SCALE, "sharp-attention")
    for cfg, r in sharp_attention_runs(ctx):
        h = within(r["layers"])
        out.append(interval_instances(
            f"n = {cfg.n}, d = d_k = {cfg.d}, H = 1, sharp near-identity attention W_Q = W_K = "
            f"sqrt({cfg.qk_scale:g}) I, "
            f"W_V W_O = -I: rho certainly above 2^-52 at every one of layers 1..{WITHIN_LAYERS} (rho_12 = "
            f"{r['layers'][-1]['rho']})" if h is False else
            f"n = {cfg.n}, sharp near-identity attention (scale {cfg.qk_scale:g}): first certain crossing at layer "
            f"{r['machine_precision_layer_certified']}", h, regime="sharp-attention", arithmetic=_ARB,
            numbers={"n": cfg.n, "d": cfg.d, "qk_scale": cfg.qk_scale, "weights": "negative-identity",
                     "layer": r["machine_precision_layer_certified"]},
            reason=None if h is not None else "an enclosure straddles 2^-52"))
    return out


def skip_bound_trajectory(ctx) -> list[Evidence]:
    """The explainer's gamma read off the depth study's skip trajectories: below 1 on those runs (float, shown);
    the guarantee itself fails on the stored exact instance where R^(1) = 0 (no gamma < 1 exists there)."""
    res = depth_results(ctx.quick)
    runs = [r["attention_skip"] for _, r in res["shapes"]] + [res["adversarial_skip"]]
    gams = []
    for r in runs:
        norms = [x["log10_norm_R"] for x in r["layers"]]
        if None not in norms:
            gams.append(max(0.0, max(1 - 10 ** (b - a_) for a_, b in zip(norms, norms[1:]))))
    return [float_statistic("the smallest gamma with ||R^(l+1)|| >= (1 - gamma) ||R^l|| on the depth study's skip "
                            "runs (the last with W_V W_O = -I): gamma = " + ", ".join(f"{g:.3f}" for g in gams)
                            + " (< 1 on these runs; W_V W_O = -3 I with the softmax of the stored instance gives "
                              "R^(1) = 0, where no gamma < 1 exists)",
                            None if not gams else all(g < 1 for g in gams),
                            arithmetic="arb enclosures of ||R^l|| read as float64 ratios: float evidence",
                            numbers={"gammas": [round(g, 6) for g in gams]},
                            reason="no non-vanishing skip trajectory" if not gams else None)]


def weight_gamma(heads, n: int) -> float:
    """gamma_W = sqrt(n) sum_h ||W_V^h W_O^h||_2: with C = I - J/n and A_h row-stochastic (||A_h||_2 <= sqrt n),
    R^(l+1) = R^l + sum_h C A_h R^l W_V^h W_O^h, so ||R^(l+1)|| >= (1 - gamma_W) ||R^l||."""
    return math.sqrt(n) * sum(float(np.linalg.norm(WV @ WO, 2)) for (_, _, WV, WO) in heads)


#: weight scales for the small-weight runs of the weight bound (gamma_W < 1 needs small W_V W_O)
SKIP_TARGET_GAMMAS = (0.3, 0.6, 0.9)


def skip_weight_bound(ctx) -> list[Evidence]:
    out = []
    for (n, d, H, dk) in DEPTH_SHAPES[: 2 if ctx.quick else None]:
        base = DepthConfig(n=n, d=d, H=H, d_k=dk, dps=60)
        g1 = weight_gamma(draw_weights(base)[0], n)
        held = met = 0
        worst = None
        for target in SKIP_TARGET_GAMMAS:
            cfg = DepthConfig(n=n, d=d, H=H, d_k=dk, dps=60, vo_scale=target / g1)
            g = weight_gamma(draw_weights(cfg)[0], n)
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
            None if met == 0 else held == met, regime=regime_of(n, d),
            arithmetic="arb enclosures at 60 digits of ||R^l||, compared with a bound whose gamma_W is a float64 "
                       "spectral norm: float evidence",
            numbers={"met": met, "held": held}, reason="no configuration with gamma_W < 1" if met == 0 else None))
    return out


def cubic_is_not_spoiled(ctx) -> list[Evidence]:
    """The dropped column term 1 (m^T W_QK R^T) does not change the rate: its effect on R is a row constant."""
    out = []
    for shape, runs in depth_results(ctx.quick)["shapes"]:
        e = runs["pure_attention"]["exponent"]
        out.append(float_statistic(f"{_shape_str(shape)}: exponent {e if e is None else round(e, 4)} with the "
                                   "column term m^T W_QK r_j kept in the logits",
                                   None if e is None else is_base_three(e),
                                   regime=regime_of(shape["n"], shape["d"]), arithmetic=_FIT,
                                   reason="no exponent to measure" if e is None else None))
    return out


def inference(ctx) -> list[Evidence]:
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
            None if blind is None else (not blind), regime=regime_of(shape["n"], shape["d"]), arithmetic=_ARB,
            numbers={**shape, "rank": full},
            reason="rank interval not closed or rho not certainly below 2^-52" if blind is None else None))
    return out


def exact_rank_kept(r: dict) -> bool | None:
    """Certified rank >= 2 at every layer (True), certified < 2 somewhere (False), else undecided (None)."""
    los = [x["certified_rank"][0] for x in r["layers"]]
    his = [x["certified_rank"][1] for x in r["layers"]]
    if any(h < 2 for h in his):
        return False
    return True if all(lo >= 2 for lo in los) else None


def dong_collapsed(r: dict) -> bool | None:
    """rho certainly below 2^-52 at some layer (True), certainly above at every layer (False), else None."""
    if r["machine_precision_layer_certified"] is not None:
        return True
    flags = [x["rho_below_2^-52"] for x in r["layers"]]
    return False if all(f is False for f in flags) else None


def depth_evidence(ctx, regime_key: str, test, what: str, reason: str) -> list[Evidence]:
    out = []
    for shape, runs in depth_results(ctx.quick)["shapes"]:
        r = runs[regime_key]
        h = test(r)
        los = [x["certified_rank"][0] for x in r["layers"]]
        out.append(interval_instances(
            f"{_shape_str(shape)}, {regime_key.replace('_', ' ')}: {what} (certified rank lower bounds by layer "
            f"{los}; rho first certainly below 2^-52 at layer {r['machine_precision_layer_certified']}; rho_12 = "
            f"{r['layers'][-1]['rho']})", h, regime=regime_of(shape["n"], shape["d"]), arithmetic=_ARB,
            numbers={**shape, "certified_rank_lower": los}, reason=None if h is not None else reason))
    return out


def no_rank_collapse(ctx, regime_key):
    return depth_evidence(ctx, regime_key, exact_rank_kept, "no rank collapse: certified rank >= 2 at every layer",
                           "a rank enclosure did not close at this precision")


def no_dong_collapse(ctx, regime_key):
    return depth_evidence(ctx, regime_key, lambda r: (lambda c: None if c is None else not c)(dong_collapsed(r)),
                           "no collapse in Dong's sense: rho stays above 2^-52 for 12 layers",
                           "rho straddles 2^-52 at some layer")


def contribution2_exact_rank(ctx) -> list[Evidence]:
    """RRO.contribution-2 with (a), (b), (c) all in certified exact rank, one conjunction per shape: (a) the full
    block and attention + skip, (b) attention + MLP without skip, (c) attention + skip keep certified rank >= 2 at
    every layer. False if a part fails, True if all three hold, else undecided (the part left open is named)."""
    out = []
    parts = (("(a) full block", "full_block"), ("(a), (c) attention + skip", "attention_skip"),
             ("(b) attention + MLP", "attention_mlp"))
    for shape, runs in depth_results(ctx.quick)["shapes"]:
        vals = {name: exact_rank_kept(runs[key]) for name, key in parts}
        h = False if any(v is False for v in vals.values()) else (True if all(v is True for v in vals.values())
                                                                   else None)
        open_ = [name for name, v in vals.items() if v is None]
        words = ", ".join(f"{name}: {'kept' if v else 'lost' if v is False else 'undecided'}"
                          for name, v in vals.items())
        out.append(interval_instances(
            f"{_shape_str(shape)}: (a), (b), (c) in exact rank, certified rank >= 2 at every layer ({words})", h,
            regime=regime_of(shape["n"], shape["d"]), arithmetic=_ARB, numbers={**shape, "open": open_},
            reason=None if h is not None else f"{', '.join(open_)} undecided: a certified rank lower bound of 1 "
                                              "(rho below the enclosures' resolution) does not certify rank 1"))
    return out


def mlp_alone_prevents(ctx):
    return no_dong_collapse(ctx, "attention_mlp")


def skip_prevents(ctx):
    return no_dong_collapse(ctx, "attention_skip")


def rho_slope(ctx, regime_key: str) -> list[Evidence]:
    """Least-squares slope of log10 rho over the last six layers (decades per layer): a float statistic."""
    out = []
    for shape, runs in depth_results(ctx.quick)["shapes"]:
        ys = [x["log10_rho"] for x in runs[regime_key]["layers"][-6:]]
        if any(y is None for y in ys):
            out.append(float_statistic(f"{_shape_str(shape)}: rho below resolution", None,
                                       regime=regime_of(shape["n"], shape["d"]), arithmetic=_FIT,
                                       reason="rho not resolved on the last layers"))
            continue
        slope = float(np.polyfit(np.arange(len(ys)), np.array(ys), 1)[0])
        out.append(float_statistic(f"{_shape_str(shape)}, {regime_key.replace('_', ' ')}: log10 rho changes by "
                                   f"{slope:+.3f} per layer over the last 6 layers (no decay: slope >= "
                                   f"{NO_DECAY_SLOPE})",
                                   slope >= NO_DECAY_SLOPE, regime=regime_of(shape["n"], shape["d"]),
                                   arithmetic="least-squares slope of log10 of arb enclosures (float statistic)",
                                   numbers={**shape, "slope": slope}))
    return out


def no_rank_collapse_as_claim(ctx, regime_key):
    """'rank reaches 1': False when the certified rank stays >= 2 at every layer."""
    return depth_evidence(ctx, regime_key, lambda r: (lambda k: None if k is None else not k)(exact_rank_kept(r)),
                           "exact rank reaches 1", "a rank enclosure did not close at this precision")


def tokens_never_identical(ctx) -> list[Evidence]:
    out = []
    for shape, runs in depth_results(ctx.quick)["shapes"]:
        norms = [x["log10_norm_R"] for x in runs["pure_attention"]["layers"]]
        h = False if all(v is not None for v in norms) else None
        out.append(interval_instances(f"{_shape_str(shape)}: ||R|| certainly > 0 at every layer (log10 ||R_12|| = "
                                      f"{norms[-1]}): the tokens are never identical", h,
                                      regime=regime_of(shape["n"], shape["d"]), arithmetic=_ARB,
                                      reason=None if h is not None else "an ||R|| enclosure contains 0"))
    return out


def full_block_rank_kept(ctx) -> list[Evidence]:
    out = []
    for shape, runs in depth_results(ctx.quick)["shapes"]:
        n, d = shape["n"], shape["d"]
        cap = min(n, d - 1)  # post-LN rows lie in 1-perp (gamma = 1, beta = 0)
        los = [x["certified_rank"][0] for x in runs["full_block"]["layers"][1:]]
        his = [x["certified_rank"][1] for x in runs["full_block"]["layers"][1:]]
        h = False if any(hh < cap for hh in his) else (True if all(lo >= cap for lo in los) else None)
        out.append(interval_instances(f"{_shape_str(shape)}, full block: certified rank >= min(n, d - 1) = {cap} at "
                                      f"every layer (lower bounds {los}; LayerNorm's centring caps the rank at d - 1)",
                                      h, regime=regime_of(n, d), arithmetic=_ARB,
                                      reason=None if h is not None else "a rank enclosure did not close"))
    return out


def mlp_outward_generic(ctx) -> list[Evidence]:
    rng = np.random.default_rng(stable_seed("DONG.mlp-pushes-outward:gaussian"))
    gelu = lambda M: T.gelu(T.FP, M)
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


def cubic_constant(ctx) -> list[Evidence]:
    out = []
    for shape, runs in depth_results(ctx.quick)["shapes"]:
        norms = [x["log10_norm_R"] for x in runs["pure_attention"]["layers"]]
        pairs = [(a, b) for a, b in zip(norms, norms[1:]) if a is not None and b is not None and a < -3]
        if len(pairs) < 3:
            out.append(float_statistic(f"{_shape_str(shape)}: too few collapsing layers", None,
                                       regime=regime_of(shape["n"], shape["d"]), arithmetic=_FIT,
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
            regime=regime_of(shape["n"], shape["d"]), arithmetic=f"differences of arb enclosures ({_ARB}): a statistic",
            numbers={**shape, "logC": logC}))
    return out


def skip_generic(ctx) -> list[Evidence]:
    out = []
    for shape, runs in depth_results(ctx.quick)["shapes"]:
        r = runs["attention_skip"]
        n, d = shape["n"], shape["d"]
        los = [x["certified_rank"][0] for x in r["layers"]]
        norms = [x["log10_norm_R"] for x in r["layers"]]
        h = True if all(lo == min(n, d) for lo in los) and all(v is not None for v in norms) else None
        out.append(interval_instances(f"{_shape_str(shape)}, attention + skip: certified full rank {min(n, d)} and "
                                      f"||R|| certainly > 0 at every layer", h, regime=regime_of(n, d), arithmetic=_ARB,
                                      reason=None if h else "an enclosure did not close"))
    return out


# --- LayerNorm in pure attention (§3: "LN neither prevents collapse ... nor accelerates it") ----------------

def _ln_where(shape: dict, label: str) -> str:
    return f"{_shape_str(shape)}, {label}"


def _first_below(r: dict) -> int | None:
    return r["machine_precision_layer_certified"]


def ln_does_not_prevent(ctx) -> list[Evidence]:
    """Wherever pure attention collapses, attention + LN on the same weights and inputs collapses too (certified
    per-layer enclosures: interval evidence)."""
    out = []
    for shape, label, pair in depth_results(ctx.quick)["ln_study"]:
        a, b = pair["pure_attention"], pair["attention_ln"]
        if _first_below(a) is None:
            continue  # nothing to prevent: pure attention does not collapse (certifiably) within 12 layers here
        lb = _first_below(b)
        h = True if lb is not None else (False if all(x["rho_below_2^-52"] is False for x in b["layers"]) else None)
        out.append(interval_instances(
            f"{_ln_where(shape, label)}: without LN rho first certainly below 2^-52 at layer {_first_below(a)}; "
            f"with LN " + (f"at layer {lb}" if lb is not None else "never within 12 layers")
            + f" (rho_12 = {a['layers'][-1]['rho']} without, {b['layers'][-1]['rho']} with LN; {LN_COLLAPSE})",
            h, regime=regime_of(shape["n"], shape["d"]), arithmetic=_ARB,
            numbers={**shape, "weights": label, "layer_without_ln": _first_below(a), "layer_with_ln": lb},
            reason=None if h is not None else "an LN enclosure straddles 2^-52"))
    if not out:
        out.append(interval_instances("no configuration where pure attention collapses: nothing for LN to prevent",
                                      None, arithmetic=_ARB, reason="pure attention did not collapse in any run"))
    return out


def ln_does_not_accelerate(ctx, later: bool = False) -> list[Evidence]:
    """LN never makes the collapse reach 2^-52 at an earlier layer than without LN (``later``: at a later layer)
    (certified first layers, from per-layer enclosures: interval evidence; holds False where LN moves it)."""
    out = []
    word, moved = ("later", "postpones the collapse") if later else ("earlier", "brings the collapse earlier")
    for shape, label, pair in depth_results(ctx.quick)["ln_study"]:
        la, lb = _first_below(pair["pure_attention"]), _first_below(pair["attention_ln"])
        h = None if la is None or lb is None else (lb <= la if later else lb >= la)
        out.append(interval_instances(
            f"{_ln_where(shape, label)}: rho first certainly below 2^-52 at layer {la} without LN, {lb} with LN"
            + ("" if h is None else (f" (LN does not move it {word})" if h else f" (LN {moved})"))
            + f"; {LN_COLLAPSE}", h, regime=regime_of(shape["n"], shape["d"]), arithmetic=_ARB,
            numbers={**shape, "weights": label, "layer_without_ln": la, "layer_with_ln": lb},
            reason=None if h is not None else "one of the runs has no certified first layer below 2^-52"))
    return out


def ln_does_not_delay(ctx) -> list[Evidence]:
    """LN never postpones the collapse to a later layer (certified first layers: interval evidence)."""
    return ln_does_not_accelerate(ctx, later=True)


def ln_rate_unchanged(ctx) -> list[Evidence]:
    """The exponent of the doubly exponential decay (median of log rho_(l+1) / log rho_l) is the same with and
    without LN, within EXPONENT_TOL: a comparison of two fits, so float evidence."""
    out = []
    for shape, label, pair in depth_results(ctx.quick)["ln_study"]:
        ea, eb = pair["pure_attention"]["exponent"], pair["attention_ln"]["exponent"]
        h = None if ea is None or eb is None else abs(ea - eb) < EXPONENT_TOL
        out.append(float_statistic(
            f"{_ln_where(shape, label)}: exponent {ea if ea is None else round(ea, 4)} without LN, "
            f"{eb if eb is None else round(eb, 4)} with LN (the same rate: |difference| < {EXPONENT_TOL})",
            h, regime=regime_of(shape["n"], shape["d"]), arithmetic=_FIT,
            numbers={**shape, "weights": label, "exponent_without_ln": ea, "exponent_with_ln": eb},
            reason=None if h is not None else "no exponent to measure in one of the runs"))
    return out


def ln_collapses(ctx, only: str | None = None) -> list[Evidence]:
    """Attention + LN collapses (certified rho below 2^-52 within 12 layers), on every weight family or ``only``
    one (e.g. "orthogonal value maps")."""
    out = []
    for shape, label, pair in depth_results(ctx.quick)["ln_study"]:
        if only is not None and label != only:
            continue
        b = pair["attention_ln"]
        lb = _first_below(b)
        h = True if lb is not None else (False if all(x["rho_below_2^-52"] is False for x in b["layers"]) else None)
        e = b["exponent"] if b["exponent"] is None else round(b["exponent"], 4)
        out.append(interval_instances(
            f"{_ln_where(shape, label)}, attention + LN: rho first certainly below 2^-52 at layer {lb} (rho_12 = "
            f"{b['layers'][-1]['rho']}; exponent estimate {e}, a fit); {LN_COLLAPSE}", h,
            regime=regime_of(shape["n"], shape["d"]), arithmetic=_ARB,
            numbers={**shape, "weights": label, "layer_with_ln": lb},
            reason=None if h is not None else "an enclosure straddles 2^-52"))
    return out


def ln_collapses_orthogonal(ctx) -> list[Evidence]:
    """Attention + LN with orthogonal value maps collapses (certified)."""
    return ln_collapses(ctx, only="orthogonal value maps")


def _exponent_check(regime_key: str, ok, what: str, no_collapse_holds: bool | None = None):
    def check(ctx: CheckContext) -> list[Evidence]:
        return exponent_evidence(ctx, regime_key, ok, what, no_collapse_holds)
    check.__name__ = f"exponent_{regime_key}"
    return check


def _regime_check(make, regime_key: str):
    def check(ctx: CheckContext) -> list[Evidence]:
        return make(ctx, regime_key)
    check.__name__ = f"{make.__name__}_{regime_key}"
    return check


def dong_collapse_evidence(ctx: CheckContext) -> list[Evidence]:
    """Dong's collapse in pure attention: rho certainly below 2^-52 within 12 layers."""
    return depth_evidence(ctx, "pure_attention", dong_collapsed, "Dong's collapse: rho certainly below 2^-52",
                          "rho straddles 2^-52")


def tokens_converge(ctx: CheckContext) -> list[Evidence]:
    """Pure attention: the tokens converge (rho certainly below 2^-52)."""
    return depth_evidence(ctx, "pure_attention", dong_collapsed, "tokens converge: rho certainly below 2^-52",
                          "rho straddles 2^-52")


_no_rank_collapse_full = _regime_check(no_rank_collapse, "full_block")
_no_rank_collapse_skip = _regime_check(no_rank_collapse, "attention_skip")
_rho_slope_full = _regime_check(rho_slope, "full_block")

#: numeric evidence attached by (claim id, reading key) (collected by :mod:`proofs_numeric.witnesses.evidence`)
EVIDENCE = {
    ("DONG.collapse-rate", "literal"): [_exponent_check("pure_attention", is_base_three,
                                                        "pure attention")],
    ("DONG.collapse-rate", "explainer-derivation"): [cubic_is_not_spoiled],
    ("DONG.machine-precision-5-7", "literal"): [machine_precision_upper_bound],
    ("DONG.attr-mlp-remedy", "mlp-without-skip-prevents-collapse"): [mlp_alone_prevents],
    ("DONG.attr-tug-of-war", "mlp-restores-rank"): [mlp_alone_prevents],
    ("DONG.attr-residual-remedy", "literal"): [skip_prevents],
    ("DONG.attr-residual-remedy", "exact-rank"): [_no_rank_collapse_skip],
    ("DONG.machine-precision-5-7", "exact-window"): [machine_precision],
    ("DONG.skip-lower-bound", "gamma-exists"): [skip_bound_trajectory],
    ("DONG.skip-lower-bound", "weight-bound"): [skip_weight_bound],
    ("DONG.mlp-singly-exponential", "literal"): [_exponent_check("attention_mlp", is_singly_exponential,
                                                                 "attention + MLP")],
    ("RRO.no-dong-collapse", "literal"): [inference],
    ("RRO.no-dong-collapse", "skip-no-doubly-exponential"): [
        _exponent_check("attention_skip", is_singly_exponential, "attention + skip", no_collapse_holds=True),
        _exponent_check("full_block", is_singly_exponential, "full block", no_collapse_holds=True)],
    ("RRO.contribution-2", "literal"): [_regime_check(no_dong_collapse, "full_block"),
                                        _regime_check(no_dong_collapse, "attention_skip"), mlp_alone_prevents],
    ("RRO.contribution-2", "exact-rank"): [contribution2_exact_rank],
    ("RRO.contribution-2", "with-residual"): [_no_rank_collapse_full, _no_rank_collapse_skip],
    ("RRO.contribution-2", "mlp-sufficient"): [mlp_alone_prevents],
    ("RRO.contribution-2", "mlp-not-necessary"): [_no_rank_collapse_skip,
                                                  _regime_check(no_dong_collapse, "attention_skip")],
    ("RRO.contribution-2", "dong-residual-full-block"): [_rho_slope_full],
    ("MLP.function", "literal"): [mlp_alone_prevents, _no_rank_collapse_skip],
    ("MLP.function", "sufficient"): [mlp_alone_prevents],
    ("MLP.function", "not-necessary"): [_no_rank_collapse_skip],
    ("DONG.regime-collapse", "literal"): [dong_collapse_evidence],
    ("DONG.regime-collapse", "exact-rank"): [_regime_check(no_rank_collapse_as_claim, "pure_attention")],
    ("DONG.identical-vector", "literal"): [tokens_converge],
    ("DONG.identical-vector", "eliminated-exactly"): [tokens_never_identical],
    ("DONG.setup-maintained", "literal"): [full_block_rank_kept],
    ("DONG.setup-maintained", "dong-residual"): [_rho_slope_full],
    ("DONG.mlp-pushes-outward", "generic-weights"): [mlp_outward_generic],
    ("DONG.cubic-constant", "literal"): [cubic_constant],
    ("DONG.skip-full-rank", "generic-weights"): [skip_generic],
    ("RN.neither-helps-nor-hinders", "rate"): [ln_rate_unchanged],
    ("RN.neither-helps-nor-hinders", "ln-does-not-prevent-collapse"): [ln_does_not_prevent],
    ("RN.neither-helps-nor-hinders", "ln-does-not-accelerate-collapse"): [ln_does_not_accelerate],
    ("RN.neither-helps-nor-hinders", "ln-does-not-delay-collapse"): [ln_does_not_delay],
}
