r"""The depth study: Dong's rank collapse measured layer by layer, certified, deep into the collapse.

Four regimes (the Dong explainer): ``pure_attention`` (X -> MHA(X)), ``attention_skip``
(X -> X + MHA(X)), ``attention_mlp`` (X -> FFN(MHA(X)), no skip) and ``full_block``
(post-LN BERT block: attention, skip, LayerNorm, GELU FFN, skip, LayerNorm).

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
residual keeps all its digits at :math:`10^{-10^5}`. The two attention regimes use this
form; the MLP regimes use the plain form (a ball that contains 0 is reported as
"below resolution", never as 0).

Per layer: the Dong residual :math:`\rho_l=\|X-\mathbf 1\bar x^\top\|_F/\|X\|_F`, the ratio
:math:`\log\rho_{l+1}/\log\rho_l` (tends to b for doubly exponential decay with base b,
to 1 for singly exponential decay), a certified rank interval (lower: a minor of
:math:`[m^\top/\|m\|;\,R/\|R\|]` whose arb determinant excludes 0; upper: structure), the
numerical rank at tolerance :math:`10^{-12}\sigma_{\max}` and the effective rank
:math:`\exp H(\sigma/\sum\sigma)` (Roy and Vetterli 2007) of the enclosed matrix, and the same
network run in float64 (to show where float64 reports collapse).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import flint
import numpy as np

__all__ = ["DepthRangeError", "DepthConfig", "run", "run_all", "SHAPES", "REGIMES", "exponent_estimate", "float64_run", "mp_run"]

REGIMES = ("pure_attention", "attention_skip", "attention_mlp", "full_block")
#: (n, d, H, d_k): single and multi-head, d_k < d and d_k = d, n < d and n > d
SHAPES = [(8, 6, 2, 3), (8, 6, 1, 6), (4, 6, 1, 6), (4, 6, 3, 2)]
NUMERICAL_RANK_RTOL = 1e-12  # numerical rank counts sigma_i > 1e-12 sigma_max (stated in every record)


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
    #: near-identity attention with W_V W_O = -I, the adversary of the skip-connection bound
    weights: str = "gaussian"

    def __post_init__(self):
        if self.d_ff is None:
            self.d_ff = 4 * self.d
        for name in ("n", "d", "H", "d_k", "layers", "dps"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be positive")


class _Prec:
    def __init__(self, dps):
        self.bits = int(dps * 3.3220) + 20

    def __enter__(self):
        self.old = flint.ctx.prec
        flint.ctx.prec = self.bits

    def __exit__(self, *a):
        flint.ctx.prec = self.old


def _am(M):
    M = np.asarray(M, dtype=np.float64)
    return flint.arb_mat(M.shape[0], M.shape[1], [flint.arb(float(v)) for v in M.ravel()])


def _weights(cfg: DepthConfig):
    rng = np.random.default_rng(cfg.seed)
    d, dk = cfg.d, cfg.d_k
    heads = []
    if cfg.weights == "negative-identity":
        if dk != d:
            raise ValueError("negative-identity weights need d_k = d")
        I = np.eye(d)
        heads = [(math.sqrt(cfg.qk_scale) * I, math.sqrt(cfg.qk_scale) * I, I, -I / cfg.H) for _ in range(cfg.H)]
    for _ in range(cfg.H if cfg.weights == "gaussian" else 0):
        WQ, WK, WV = (rng.normal(0, 1 / math.sqrt(d), (d, dk)) for _ in range(3))
        WO = rng.normal(0, 1 / math.sqrt(dk), (dk, d))
        heads.append((WQ * math.sqrt(cfg.qk_scale), WK * math.sqrt(cfg.qk_scale), WV * cfg.vo_scale, WO))
    ffn = (rng.normal(0, 1 / math.sqrt(d), (d, cfg.d_ff)), rng.normal(0, 0.1, cfg.d_ff),
           rng.normal(0, 1 / math.sqrt(cfg.d_ff), (cfg.d_ff, d)), rng.normal(0, 0.1, d))
    X0 = rng.normal(0, 1, (cfg.n, d))
    return heads, ffn, X0


def _colmean(R: flint.arb_mat) -> list:
    n = R.nrows()
    return [sum((R[i, j] for i in range(n)), flint.arb(0)) / n for j in range(R.ncols())]


def _center(R: flint.arb_mat):
    n, d = R.nrows(), R.ncols()
    mu = _colmean(R)
    return flint.arb_mat(n, d, [R[i, j] - mu[j] for i in range(n) for j in range(d)]), mu


def _fro2(M) -> flint.arb:
    return sum((M[i, j] ** 2 for i in range(M.nrows()) for j in range(M.ncols())), flint.arb(0))


def _row(m: list) -> flint.arb_mat:
    return flint.arb_mat(1, len(m), m)


def _ones_times(m: list, n: int) -> flint.arb_mat:
    return flint.arb_mat(n, len(m), [m[j] for _ in range(n) for j in range(len(m))])


def _attention_delta(m, R, heads_a, dk):
    """One MHA in (m, R) form: returns (m', R') with X' = 1 m'^T + R' = MHA(1 m^T + R).

    Logits x_i^T M r_j / sqrt(d_k) (row constants dropped) split into a_j = m^T M r_j / sqrt(d_k),
    the same for every row, and b_ij = r_i^T M r_j / sqrt(d_k). With alpha = softmax(a),
    A_ij - alpha_j = alpha_j (e_ij - s_i) / (1 + s_i), e = expm1(b), s_i = sum_k alpha_k e_ik, so
    A X W = 1 (W^T m + W^T R^T alpha)^T + (A - 1 alpha^T) R W: the row-constant part goes to m
    and the rest is O(|R|^3) computed without cancellation.
    """
    n, d = R.nrows(), R.ncols()
    sq = flint.arb(dk).sqrt()
    new_m = [flint.arb(0)] * d
    T = flint.arb_mat(n, d)
    mrow = _row(m)
    for (M, W) in heads_a:
        MRt = M * R.transpose()                       # [d, n]
        a = mrow * MRt                                # [1, n]
        b = R * MRt                                   # [n, n]
        av = [a[0, j] / sq for j in range(n)]
        c = max(float(v.mid()) for v in av)
        ea = [(v - c).exp() for v in av]
        tot = sum(ea, flint.arb(0))
        alpha = [v / tot for v in ea]
        G = []
        for i in range(n):
            e = [(b[i, j] / sq).expm1() for j in range(n)]
            s_i = sum((alpha[k] * e[k] for k in range(n)), flint.arb(0))
            G.extend(alpha[j] * (e[j] - s_i) / (1 + s_i) for j in range(n))
        RW = R * W
        T = T + flint.arb_mat(n, n, G) * RW
        const = mrow * W + flint.arb_mat(1, n, alpha) * RW
        new_m = [new_m[j] + const[0, j] for j in range(d)]
    Tc, mu = _center(T)
    return [new_m[j] + mu[j] for j in range(d)], Tc


def _softmax_rows_arb(S):
    n, k = S.nrows(), S.ncols()
    out = []
    for i in range(n):
        c = max(float(S[i, j].mid()) for j in range(k))
        es = [(S[i, j] - c).exp() for j in range(k)]
        tot = sum(es, flint.arb(0))
        out.extend(e / tot for e in es)
    return flint.arb_mat(n, k, out)


def _mha_plain(X, heads_qkvo, dk):
    sq = flint.arb(dk).sqrt()
    out = None
    for (WQ, WK, WV, WO) in heads_qkvo:
        S = (X * WQ) * (X * WK).transpose()
        S = flint.arb_mat(S.nrows(), S.ncols(), [S[i, j] / sq for i in range(S.nrows()) for j in range(S.ncols())])
        term = _softmax_rows_arb(S) * X * WV * WO
        out = term if out is None else out + term
    return out


def _gelu(M):
    r2 = flint.arb(2).sqrt()
    return flint.arb_mat(M.nrows(), M.ncols(), [M[i, j] * (1 + (M[i, j] / r2).erf()) / 2
                                                 for i in range(M.nrows()) for j in range(M.ncols())])


def _ffn(X, W1, b1, W2, b2):
    n = X.nrows()
    H = X * W1 + _ones_times([b1[0, j] for j in range(b1.ncols())], n)
    return _gelu(H) * W2 + _ones_times([b2[0, j] for j in range(b2.ncols())], n)


def _ln(X):
    n, d = X.nrows(), X.ncols()
    out = []
    for i in range(n):
        mu = sum((X[i, j] for j in range(d)), flint.arb(0)) / d
        xt = [X[i, j] - mu for j in range(d)]
        sig = (sum((v * v for v in xt), flint.arb(0)) / d).sqrt()
        out.extend(v / sig for v in xt)
    return flint.arb_mat(n, d, out)


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
    A = mids.copy()
    ri, ci = list(range(A.shape[0])), list(range(A.shape[1]))
    piv = []
    for k in range(min(A.shape)):
        sub = np.abs(A[k:, k:])
        if sub.size == 0 or sub.max() <= 1e-300:
            break
        i, j = np.unravel_index(np.argmax(sub), sub.shape)
        i += k; j += k
        A[[k, i]] = A[[i, k]]; ri[k], ri[i] = ri[i], ri[k]
        A[:, [k, j]] = A[:, [j, k]]; ci[k], ci[j] = ci[j], ci[k]
        A[k + 1:, k:] -= np.outer(A[k + 1:, k] / A[k, k], A[k, k:])
        piv.append((ri[k], ci[k]))
    k = len(piv)
    while k > 0:
        rs, cs = sorted(p[0] for p in piv[:k]), sorted(p[1] for p in piv[:k])
        det = flint.arb_mat(k, k, [rows[i][j] for i in rs for j in cs]).det()
        if not det.contains(0):
            return [k, upper]
        k -= 1
    return [0, upper]


def _spectrum(X: np.ndarray):
    s = np.linalg.svd(X, compute_uv=False)
    if s[0] == 0:
        return 0, 0.0
    num = int(np.sum(s > NUMERICAL_RANK_RTOL * s[0]))
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


def float64_run(cfg: DepthConfig, regime: str) -> list[dict]:
    """The same network in float64 (numpy), plain formulation: what float64 reports."""
    from .transformer import Block, Head, block_forward
    heads, (W1, b1, W2, b2), X = _weights(cfg)
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
        out.append({"layer": layer, "rho": rho, "numerical_rank": int(np.linalg.matrix_rank(X)) if ok else None,
                    "effective_rank": _spectrum(X)[1] if ok else None})
    return out


def mp_run(cfg: DepthConfig, regime: str) -> list[float]:
    """The same network in plain mpmath ``mp`` at ``cfg.dps`` digits (uncertified): rho per layer.

    The benchmarks' baseline for the certified (m, R) study at the same precision. Plain
    arithmetic loses every digit of the residual once rho < 10^-dps, which the (m, R) form avoids.
    """
    import mpmath
    from .transformer import Block, Head, block_forward, workdps
    heads, (W1, b1, W2, b2), X = _weights(cfg)
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


def run(cfg: DepthConfig, regime: str) -> dict:
    """One regime, one shape: the layer records and the exponent estimate."""
    if regime not in REGIMES:
        raise ValueError(f"regime {regime!r} not in {REGIMES}")
    t0 = time.perf_counter()
    heads, (W1, b1, W2, b2), X0 = _weights(cfg)
    n, d = cfg.n, cfg.d
    with _Prec(cfg.dps):
        sq = None
        heads_a = [(_am(WQ) * _am(WK).transpose(), _am(WV) * _am(WO)) for WQ, WK, WV, WO in heads]
        heads_p = [tuple(_am(w) for w in h) for h in heads]
        ffn = (_am(W1), _am(b1[None, :]), _am(W2), _am(b2[None, :]))
        R, m = _center(_am(X0))
        delta = regime in ("pure_attention", "attention_skip")
        recs = []
        for layer in range(cfg.layers + 1):
            if layer:
                if delta:
                    m2, R2 = _attention_delta(m, R, heads_a, cfg.d_k)
                    if regime == "attention_skip":
                        m2 = [m2[j] + m[j] for j in range(d)]
                        R2 = R2 + R
                    m, R = m2, R2
                else:
                    X = _ones_times(m, n) + R
                    Mh = _mha_plain(X, heads_p, cfg.d_k)
                    if regime == "attention_mlp":
                        X = _ffn(Mh, *ffn)
                    else:
                        Z = _ln(X + Mh)
                        X = _ln(Z + _ffn(Z, *ffn))
                    R, m = _center(X)
            nr2, nm2 = _fro2(R), _fro2(_row(m))
            rho = (nr2 / (n * nm2 + nr2)).sqrt() if not (n * nm2 + nr2).contains(0) else flint.arb(0, 1)
            upper = min(n, d) if regime != "pure_attention" or layer == 0 else min(n, d, cfg.H * cfg.d_k)
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
            recs.append({"layer": layer, "rho": _fmt(rho), "log10_rho": _log10(rho), "rho_below_2^-52": below,
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
                                                                              ("pure_attention", "attention_skip") else ""),
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


def exponent_estimate(recs: list[dict], below: float = -3.0) -> float | None:
    """Median of log rho_{l+1} / log rho_l over the layers already collapsing (log10 rho_l < -3)."""
    ratios = [b["log_ratio"] for a, b in zip(recs, recs[1:])
              if b.get("log_ratio") is not None and a["log10_rho"] is not None and a["log10_rho"] < below]
    if len(ratios) < 2:
        return None
    return float(np.median(ratios[-4:]))


def run_all(cfg: DepthConfig | None = None, shapes=None, regimes=REGIMES) -> dict:
    """Every regime for the default shape, and every regime for each shape in ``shapes``."""
    cfg = cfg or DepthConfig()
    out = {"dps": cfg.dps, "layers": cfg.layers, "shape": {"n": cfg.n, "d": cfg.d, "H": cfg.H, "d_k": cfg.d_k},
           "regimes": {r: run(cfg, r) for r in regimes}, "shapes": []}
    for (n, d, H, dk) in (shapes or []):
        c = DepthConfig(n=n, d=d, H=H, d_k=dk, layers=cfg.layers, dps=cfg.dps, seed=cfg.seed)
        out["shapes"].append({"n": n, "d": d, "H": H, "d_k": dk, "regimes": {r: run(c, r) for r in regimes}})
    return out
