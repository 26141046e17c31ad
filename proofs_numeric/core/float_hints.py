"""Float hints beside exact results: the float64 numerical rank at a stated tolerance and the singular-value gap.

Labelled float evidence, never certified, never deciding anything: where an exact rank of float data decides a
hypothesis or a conclusion, ``rank`` and ``check`` print this beside it (a rank of the data up to rounding errors of
relative size ``rtol``: e.g. the rank a float product had before rounding). A hint that cannot be computed
(entries or singular values beyond the float64 range, a matrix above the size limit) is omitted with the reason.
"""
from __future__ import annotations

import numpy as np

from theorems.exact.norm_exact import single_threaded_blas

__all__ = ["numerical_rank", "SVD_MAX_ENTRIES", "describe_hint", "well_conditioned_sigma_min", "GRAM_MIN_RATIO"]

#: the float64 SVD is computed up to this many entries (overridable by the caller's limit)
SVD_MAX_ENTRIES = 2 ** 22


def numerical_rank(F, rtol: float | None = None, max_entries: int = SVD_MAX_ENTRIES) -> dict:
    """The float64 SVD's numerical rank of ``F`` (a float64 array, or None with ``skipped`` given by the caller) at
    relative tolerance ``rtol`` (default: numpy's max(n, d) * 2^-52) and the gap sigma_r / sigma_{r+1}."""
    n, d = F.shape
    tol_rel = rtol if rtol is not None else max(n, d) * 2.0 ** -52
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
    r = int(np.sum(s > tol_rel * s[0]))
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
