"""Float hints beside exact results: the float64 numerical rank at a stated tolerance and the singular-value gap.

Labelled float evidence, never certified, never deciding anything: where an exact rank of float data decides a
hypothesis or a conclusion, ``rank`` and ``check`` print this beside it (a rank of the data up to rounding errors of
relative size ``rtol``: e.g. the rank a float product had before rounding). A hint that cannot be computed
(entries or singular values beyond the float64 range, a matrix above the size limit) is omitted with the reason.
"""
from __future__ import annotations

import numpy as np

from theorems.exact.norm_exact import single_threaded_blas

__all__ = ["numerical_rank", "rank_above", "rounding_rtol", "RTOL_ACTIVATIONS", "RTOL_HEAD_SUBSPACES", "RTOL_DEPTH",
           "RTOL_REASONS", "SVD_MAX_ENTRIES", "describe_hint", "well_conditioned_sigma_min", "GRAM_MIN_RATIO"]

#: the float64 SVD is computed up to this many entries (overridable by the caller's limit)
SVD_MAX_ENTRIES = 2 ** 22

# --------------------------------------------------------------------------------------------- numerical ranks
#
# Every numerical rank of the numeric layer is :func:`rank_above` (or :func:`numerical_rank`, its labelled record):
# the number of singular values above ``rtol`` times the largest, at one of these named tolerances.

#: activations of a float64 forward pass through a checkpoint (the model's sites, real-model's tables): the weights
#: are stored in F32 / F16 / BF16 (relative precision 2^-24 .. 2^-8) and the forward adds rounding per layer, so a
#: direction below 1e-8 of the largest is rounding noise of the stored values, not a rank of the network
RTOL_ACTIVATIONS = 1e-8
#: the head subspaces of the rank-contraction witness: products of exact-rank float64 matrices (no stored-weight
#: rounding), whose zero singular values come out near 1e-15 relative, far below 1e-10, and whose non-zero ones far
#: above it
RTOL_HEAD_SUBSPACES = 1e-10
#: the depth study (Dong et al.'s collapse): float64 forwards of many layers whose rank falls doubly exponentially;
#: 1e-12 counts the directions a float64 residual still resolves (a few hundred times float64's 2^-52), stated in
#: every record
RTOL_DEPTH = 1e-12
#: why each tolerance is what it is (shown in the book's reference pages and in records that state their tolerance)
RTOL_REASONS = {
    "rounding": "max(n, d) * 2^-52 (numpy's matrix_rank default): the rank of float64 data up to the rounding of "
                "one float64 SVD of them; for user input and for the depth table's plain numerical rank",
    "activations": f"{RTOL_ACTIVATIONS:g}: float64 activations of stored F32/F16/BF16 weights (below it: rounding "
                   "noise of the stored values)",
    "head-subspaces": f"{RTOL_HEAD_SUBSPACES:g}: products of exact-rank float64 matrices (zero singular values near "
                      "1e-15 relative)",
    "depth": f"{RTOL_DEPTH:g}: the depth study's collapsing float64 forwards (what float64 still resolves)",
}


def rounding_rtol(shape) -> float:
    """numpy's default relative tolerance for a matrix of ``shape``: max(n, d) * 2^-52."""
    return max(shape) * 2.0 ** -52


def rank_above(s: np.ndarray, rtol: float) -> int:
    """The numerical rank from the singular values ``s`` (largest first): how many exceed ``rtol`` times the largest
    (0 for none, or a zero matrix). The one count of the numeric layer; ``numpy.linalg.matrix_rank(A)`` is
    ``rank_above(svd(A), rounding_rtol(A.shape))``.

    >>> rank_above(np.array([2.0, 1.0, 1e-9]), RTOL_ACTIVATIONS), rank_above(np.array([2.0, 1.0, 1e-9]), RTOL_DEPTH)
    (2, 3)
    >>> rank_above(np.zeros(3), RTOL_DEPTH)
    0
    """
    return int(np.sum(s > rtol * s[0])) if s.size and s[0] > 0 else 0


def numerical_rank(F, rtol: float | None = None, max_entries: int = SVD_MAX_ENTRIES) -> dict:
    """The float64 SVD's numerical rank of ``F`` (a float64 array, or None with ``skipped`` given by the caller) at
    relative tolerance ``rtol`` (default: numpy's max(n, d) * 2^-52) and the gap sigma_r / sigma_{r+1}."""
    n, d = F.shape
    tol_rel = rtol if rtol is not None else rounding_rtol((n, d))
    base = {"arithmetic": "float64 SVD (float evidence, not certified)", "rtol": tol_rel,
            "question": "rank of the data up to relative rounding errors of size rtol"}
    if n * d > max_entries:
        return {**base, "skipped": f"not computed above {max_entries} entries"}
    try:
        with np.errstate(all="ignore"):
            F = np.asarray(F, dtype=np.float64)
            if not np.all(np.isfinite(F)):
                return {**base, "skipped": "some entries are outside the float64 range"}
            scale = float(np.abs(F).max()) if F.size else 0.0
            if scale == 0:
                return {**base, "rank": 0, "sigma_last": None, "sigma_next": None, "gap": None}
            with single_threaded_blas():  # two BLAS threads on this shared 2-core machine made it 5-10x slower
                full = well_conditioned_sigma_min(F / scale)
                if full is not None:  # full numerical rank, shown by the Gram matrix: no SVD needed
                    return {**base, "arithmetic": _GRAM, "rank": min(n, d), "sigma_last": full * scale,
                            "sigma_next": None, "gap": None}
                s = np.linalg.svd(F / scale, compute_uv=False) * scale  # scaled: no overflow near 1e308
    except OverflowError:
        return {**base, "skipped": "some entries are outside the float64 range"}
    except (np.linalg.LinAlgError, ValueError, TypeError) as e:
        return {**base, "skipped": f"float64 SVD failed ({e})"}
    if s.size == 0 or not np.all(np.isfinite(s)):
        return {**base, "skipped": "the singular values overflow float64"}
    r = rank_above(s, tol_rel)
    last = float(s[r - 1]) if r else None
    nxt = float(s[r]) if r < s.size else None
    gap = (last / nxt if (last is not None and nxt) else None)
    return {**base, "rank": r, "sigma_last": last, "sigma_next": nxt, "gap": gap}


#: the Gram path is taken only when sigma_min / sigma_max exceeds this (then float64 eigenvalues of the Gram matrix
#: give every sigma to a relative error below max(n, d) eps / GRAM_MIN_RATIO^2 < 2e-5, and the rank is full)
GRAM_MIN_RATIO = 1e-4
_GRAM = ("float64 singular values from the eigenvalues of the Gram matrix (sigma_min / sigma_max > 1e-4, so every "
         "singular value is far above the tolerance; float evidence, not certified)")


def well_conditioned_sigma_min(F: np.ndarray) -> float | None:
    """sigma_min of F (scaled to max |entry| = 1) when sigma_min / sigma_max > GRAM_MIN_RATIO, else None.

    The eigenvalues of the Gram matrix G = F F^T (the smaller side) are the sigma_i^2, each computed with an absolute
    error of about max(n, d) eps sigma_max^2 (Weyl); when lambda_min / lambda_max exceeds GRAM_MIN_RATIO^2 by more
    than that error, every sigma_i is above the tolerance and the numerical rank is full. Otherwise the caller
    computes the SVD (the rank-deficient or ill-conditioned case, where the hint matters)."""
    G = F @ F.T if F.shape[0] <= F.shape[1] else F.T @ F
    ev = np.linalg.eigvalsh(G)
    top = float(ev[-1])
    if not np.isfinite(top) or top <= 0:
        return None
    err = 4 * max(F.shape) * np.finfo(np.float64).eps * top
    if float(ev[0]) - err <= GRAM_MIN_RATIO ** 2 * top:
        return None
    return float(np.sqrt(ev[0]))


def describe_hint(num: dict) -> str:
    """One line for a terminal, as ``rank`` prints it."""
    if "skipped" in num:
        return f"numerical rank: omitted ({num['skipped']})"
    if num["rank"] == 0:
        return "numerical rank 0 [float64 SVD, not certified]: the matrix is zero"
    gap = ("no gap (full numerical rank)" if num["sigma_next"] is None else
           f"singular-value gap sigma_{num['rank']}/sigma_{num['rank'] + 1} = "
           + ("inf" if num["gap"] is None else f"{num['gap']:.3g}")
           + f" (sigma_{num['rank']} = {num['sigma_last']:.3g}, sigma_{num['rank'] + 1} = {num['sigma_next']:.3g})")
    how = "float64 SVD" if num.get("arithmetic", "").startswith("float64 SVD") else "float64, Gram eigenvalues"
    return f"numerical rank {num['rank']} at relative tolerance {num['rtol']:.3g} [{how}, not certified]; {gap}"
