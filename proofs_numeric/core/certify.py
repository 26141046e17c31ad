"""Certified rank bounds from interval arithmetic (mpmath ``iv``).

Lower bound: pick a k x k minor by complete pivoting on the midpoints (``mp``),
evaluate its determinant in interval arithmetic; an interval that excludes 0
proves that the minor is non-singular for every matrix inside the enclosure,
so ``rank >= k``. Upper bounds never come from floating point: they come from
exact structure supplied by the caller (see the witness modules).

Examples
========
>>> from proofs_numeric.core.certify import certified_rank_lower_bound
>>> import mpmath
>>> M = [[mpmath.iv.mpf(1), mpmath.iv.mpf(2)], [mpmath.iv.mpf(2), mpmath.iv.mpf(4)]]
>>> certified_rank_lower_bound(M, dps=30)["lower"]
1
"""
from __future__ import annotations

import mpmath
import numpy as np

from proofs_numeric.core.transformer import workdps
from theorems.exact.input import BadInput
from theorems.exact.padic_rank import complete_pivoting, gram_pivots
from theorems.exact.transformer import Midrad

__all__ = ["certified_rank_lower_bound", "pivots", "PrecisionExhausted", "MAX_INTERVAL_ENTRIES", "INTERVAL_MAX_WORK",
           "interval_size_check", "midrad_nonsingular", "midrad_rank_lower_bound", "rank_by_compression"]

#: interval (mpmath iv) work grows fast: the interval checks of a user's input refuse larger X
MAX_INTERVAL_ENTRIES = 4096
#: and an estimated work (n d (n + d + H d_k) + d^2 H d_k / 25) (dps / 100)^2 above this: about a minute of one
#: core. Measured (CPU seconds, RRO.main at a model's attention site, dps 50): n = 16, d = 64, H d_k = 64: 5.2 s
#: (work 37k); n = 63, d = 64: 30 s (195k); n = 16, d = 128, H d_k = 128: 21 s (159k); n = 3, d = 384, H d_k = 384:
#: 121 s (755k; the products W_V^h W_O^h, d^2 H d_k of them, dominate there). The earlier estimate without the
#: second term and a budget of 4e6 accepted that last case (and n = 7 at d = 384, minutes per site).
INTERVAL_MAX_WORK = 400_000


def interval_size_check(n: int, d: int, H: int, d_k: int, dps: int) -> None:
    """Refuse, by name, an interval computation on a user's input that would take too long."""
    if n * d > MAX_INTERVAL_ENTRIES:
        raise BadInput(f"X has {n * d} entries; the interval checks accept at most {MAX_INTERVAL_ENTRIES} (n x d), "
                       "e.g. 64 x 64")
    work = (n * d * (n + d + H * d_k) + d * d * H * d_k / 25) * (dps / 100) ** 2
    if work > INTERVAL_MAX_WORK:
        raise BadInput(f"the interval check with these sizes would take too long: estimated work {work:.3g} "
                       f"((n d (n + d + H d_k) + d^2 H d_k / 25) (dps/100)^2) is above {INTERVAL_MAX_WORK}; lower "
                       "--dps or the sizes")


class PrecisionExhausted(RuntimeError):
    """Two precisions disagree and the precision budget is spent (the witnesses that double ``dps``)."""


def _mid(x):
    return x.mid if hasattr(x, "mid") else x


def pivots(M_mid, dps: int, tol_digits: int | None = None) -> list[tuple[int, int]]:
    """Complete-pivoting elimination on an mp matrix at ``dps`` digits; pivots above 10^-(dps/2) max|M|
    (:func:`theorems.exact.padic_rank.complete_pivoting` in mpmath arithmetic)."""
    mp = mpmath.mp
    with workdps(mp, dps):
        A = [[mp.mpf(v) for v in row] for row in M_mid]
        tol = mp.mpf(10) ** (-(tol_digits if tol_digits is not None else dps // 2))
        rows, cols = complete_pivoting(A, rtol=tol, dtype=object)
        return [(int(i), int(j)) for i, j in zip(rows, cols)]


def certified_rank_lower_bound(M_iv, dps: int) -> dict:
    """``{"lower", "minor_rows", "minor_cols", "det", "dps"}`` for an iv matrix."""
    iv = mpmath.iv
    with workdps(iv, dps):
        mids = [[_mid(v) for v in row] for row in M_iv]
        piv = pivots(mids, dps)
        k = len(piv)
        while k > 0:
            r = sorted(p[0] for p in piv[:k])
            c = sorted(p[1] for p in piv[:k])
            sub = iv.matrix([[M_iv[i][j] for j in c] for i in r])
            det = iv.mpf(iv.det(sub))  # mpmath returns a plain int for some 1 x 1 minors: make it an interval
            if 0 not in det:
                return {"lower": k, "minor_rows": r, "minor_cols": c,
                        "det": [mpmath.nstr(mpmath.mpf(det.a.a), 10), mpmath.nstr(mpmath.mpf(det.b.b), 10)],
                        "dps": dps}
            k -= 1
        return {"lower": 0, "minor_rows": [], "minor_cols": [], "det": None, "dps": dps}


# --- double precision: midpoint-radius enclosures on BLAS (theorems.exact.transformer.ctx_midrad) ----------------

def midrad_nonsingular(A: Midrad) -> bool:
    """Whether every real matrix in the square midpoint-radius enclosure ``A`` is non-singular, proved in floating
    point: with R a float64 approximate inverse of the midpoints (any R will do), ||I - R A||_inf < 1 for every A in
    the enclosure (then A x = 0, x != 0 would give (I - R A) x = x, a norm of at least 1). I - R A is enclosed by the
    context's rigorous products (:data:`theorems.exact.transformer.MIDRAD`), its absolute row sums bounded above by a
    rigorous product with a column of ones, every bound rounded outward. False: not proved (singular or too wide)."""
    from theorems.exact.transformer import MIDRAD
    k = A.shape[0]
    if k == 0:
        return True
    try:
        with np.errstate(all="ignore"):
            R = np.linalg.inv(A.m)
    except np.linalg.LinAlgError:
        return False
    if not np.isfinite(R).all():
        return False
    try:
        E = Midrad(np.eye(k)) - MIDRAD.matmul(Midrad(R), A)
        sums = MIDRAD.matmul(Midrad(E.mag()), Midrad(np.ones((k, 1))))
    except (ArithmeticError, ValueError):  # MidradRangeError (beyond the float64 range), an inner dimension too long
        return False
    return bool(np.all(sums.bounds()[1] < 1.0))


def rank_by_compression(M: Midrad, k: int) -> dict | None:
    """rank >= k for every matrix in the enclosure (k <= min(n, d)), proved through S = G1 M G2 with G1 (k x n) and
    G2 (d x k) seeded Gaussian float64 matrices (either omitted where M already has k rows or columns): rank S <=
    rank M, so a k x k product proved non-singular over the enclosure (the context's rigorous products, then
    :func:`midrad_nonsingular`) gives rank M >= k. None when it is not proved (the caller then looks for a minor)."""
    from theorems.exact.transformer import MIDRAD
    n, d = M.shape
    rng = np.random.default_rng(20261206)
    S = M
    try:
        if k < n:
            S = MIDRAD.matmul(Midrad(rng.standard_normal((k, n))), S)
        if k < d:
            S = MIDRAD.matmul(S, Midrad(rng.standard_normal((d, k))))
    except (ArithmeticError, ValueError):
        return None
    if not midrad_nonsingular(S):
        return None
    what = "M itself" if (k, k) == (n, d) else f"G1 M G2 ({k} x {k}; G1, G2 seeded Gaussian, either omitted where M " \
        f"has {k} rows or columns)"
    return {"lower": k, "minor_rows": [], "minor_cols": [],
            "how": f"{what} proved non-singular over the enclosure (||I - R S||_inf < 1, double precision, rounding "
                   "bounded; rank(G1 M G2) <= rank M)"}


def midrad_rank_lower_bound(M: Midrad, upper: int) -> dict:
    """``{"lower", "minor_rows", "minor_cols", "how"}``: a certified lower bound on the rank of every real matrix in
    the midpoint-radius enclosure ``M`` (n x d): a k x k minor chosen by complete pivoting on the midpoints
    (:func:`theorems.exact.padic_rank.complete_pivoting`, at most ``upper`` pivots) and proved non-singular over
    the whole enclosure (:func:`midrad_nonsingular`), after a try of rank min(upper, n, d) and one of the midpoints'
    numerical rank, each through a seeded Gaussian compression (:func:`rank_by_compression`); a minor not proved is
    shrunk (k - max(1, k // 8)) until one is, or 0. O(k^3) floating-point work on BLAS per try; no arb or mpmath
    entry."""
    m = np.asarray(M.m, dtype=np.float64)
    if upper <= 0 or m.size == 0 or not np.isfinite(m).all():
        return {"lower": 0, "minor_rows": [], "minor_cols": [], "how": "no certified minor"}
    n, d = m.shape
    # rows and columns whose midpoints are all zero (the column W_O gets when the biases are folded in; its radius
    # is only the products' underflow term) are dropped: a submatrix's rank is at most the whole's for every matrix of
    # the box, so a lower bound of the submatrix is one of M. A Gaussian compression would otherwise mix the near-zero
    # column into a square product whose smallest singular value falls towards 0, and the proof fails where a minor
    # succeeds (512 x 385 site matrices of rank 384 went to complete pivoting, 0.6 s each)
    live_r = np.flatnonzero((m != 0).any(axis=1))
    live_c = np.flatnonzero((m != 0).any(axis=0))
    if len(live_r) < n or len(live_c) < d:
        got = midrad_rank_lower_bound(Midrad(M.m[np.ix_(live_r, live_c)], M.r[np.ix_(live_r, live_c)]), upper)
        return {**got, "minor_rows": [int(live_r[i]) for i in got["minor_rows"]],
                "minor_cols": [int(live_c[j]) for j in got["minor_cols"]]}
    # the bound met is the usual case (full rank; a head's rank d_k): one compressed square product settles it
    # (O(n d k) on BLAS against k steps of complete pivoting, each O(n d))
    top = min(upper, n, d)
    full = rank_by_compression(M, top)
    if full is not None:
        return full
    # rank-deficient, or an enclosure too wide for the full rank: the midpoints' singular values name the k to try by
    # compression (one LAPACK SVD instead of complete pivoting's k Python-level steps: 0.6 s a call at 512 x 384
    # against about 0.05 s): first their numerical rank (above 1e-13 of the largest, the pivoting's threshold), then
    # the count above 4 and 64 times ||radii||_F (every matrix of the box is within it of the midpoints, in the
    # spectral norm); any k proved is a certified lower bound, and pivoting remains the last resort
    s = np.linalg.svd(m, compute_uv=False)
    if s.size and s[0] > 0:
        rad = float(np.linalg.norm(M.r))
        tried = {top}
        for floor in (1e-13 * s[0], 4 * rad, 64 * rad):
            guess = min(top, int(np.count_nonzero(s > floor)))
            if guess > 0 and guess not in tried:
                tried.add(guess)
                tight = rank_by_compression(M, guess)
                if tight is not None:
                    return tight
    # a minor: the pivots of the Gram matrices first (LAPACK's pivoted Cholesky, milliseconds; the threshold 1e-20 is
    # the square of 1e-10 on the singular values), taken whole; then complete pivoting on the midpoints (0.6 s at
    # 512 x 384), whose minor is shrunk until it is proved non-singular over the enclosure
    for search in ("gram", "complete"):
        if search == "gram":
            rows, cols = gram_pivots(m, np.random.default_rng(20261206), rtol=1e-20)
        else:
            rows, cols = complete_pivoting(m, rtol=1e-13)
        k = min(len(rows), upper)
        while k > 0 and (search == "complete" or k == min(len(rows), upper)):
            r, c = np.sort(rows[:k]), np.sort(cols[:k])
            if midrad_nonsingular(Midrad(M.m[np.ix_(r, c)], M.r[np.ix_(r, c)])):
                return {"lower": k, "minor_rows": r.tolist(), "minor_cols": c.tolist(),
                        "how": f"a {k} x {k} minor proved non-singular over the enclosure (||I - R A||_inf < 1, "
                               "double precision, rounding bounded)"}
            k -= 1 if k <= 8 else max(1, k // 8)
    return {"lower": 0, "minor_rows": [], "minor_cols": [], "how": "no certified minor"}
