"""Every theorem on the user's own inputs (``collapse-verify check THEOREM``).

Each function takes validated arrays and returns a JSON-able record: the theorem's hypotheses with how
each was decided, the quantities it speaks about (certified where the arithmetic allows, labelled
otherwise) and the conclusion. Softmax is transcendental: a rank after attention gets a *certified lower
bound* from an interval determinant (mpmath ``iv``) and a structural upper bound; when they do not
meet, equality is undecided and the record says so.

Weights
=======
A ``.npz`` file with ``W_Q``, ``W_K``, ``W_V`` of shape (H, d, d_k) and ``W_O`` of shape (H, d_k, d)
(:func:`load_weights`, every shape and value validated with a named error), or seeded Gaussian
weights (:func:`random_weights`).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from theorems.exact.certified_rank import certified_rank
from theorems.exact.input import BadInput, exact_entries, exact_number

from ..transformer import Head

__all__ = ["load_weights", "random_weights", "check_residual_obstruction", "check_head_channel",
           "check_recovery_ambiguity", "check_rank_contraction", "MAX_INTERVAL_ENTRIES"]

#: interval (mpmath iv) work grows fast: the interval checks refuse matrices with more entries than this
MAX_INTERVAL_ENTRIES = 4096


def _exact_and_float(name: str, X) -> tuple[list, np.ndarray]:
    """(exact rows of ints/Fractions, their float64 rounding for labelled float hints) from an array or rows.

    The certified computations use the exact rows; only the float64 numerical rank uses the rounding.
    """
    if isinstance(X, np.ndarray):
        if X.ndim != 2 or 0 in X.shape:
            raise BadInput(f"{name} must be a non-empty 2-D matrix, got shape {X.shape}")
        rows = exact_entries(X)
    else:
        rows = [[exact_number(v) for v in r] for r in X]
    from fractions import Fraction
    exact = [[v if isinstance(v, (int, Fraction)) else Fraction(*float(v).as_integer_ratio()) for v in r] for r in rows]
    try:
        approx = np.array([[float(v) for v in r] for r in exact], dtype=np.float64)
    except OverflowError:
        approx = None
    if approx is None or not np.all(np.isfinite(approx)):
        raise BadInput(f"{name} has an entry beyond the float64 range (|x| > 1.8e308): attention's scores would "
                       "overflow; rescale X (the theorems are about ranks, which scaling does not change)")
    return exact, approx


def _finite(name: str, a: np.ndarray) -> np.ndarray:
    if a.dtype.kind not in "iuf":
        raise BadInput(f"{name} has dtype {a.dtype}; expected real numbers")
    a = a.astype(np.float64)
    if not np.all(np.isfinite(a)):
        raise BadInput(f"{name} holds NaN or infinity")
    return a


def load_weights(path: str, d: int | None = None) -> list[Head]:
    """Heads from a ``.npz`` (W_Q, W_K, W_V: (H, d, d_k); W_O: (H, d_k, d)); named errors otherwise."""
    p = Path(path)
    if not p.is_file():
        raise BadInput(f"--weights: {path} is not a file")
    try:
        with np.load(p, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
    except (OSError, ValueError) as e:
        raise BadInput(f"--weights: {path} is not a readable .npz file ({e})") from None
    missing = [k for k in ("W_Q", "W_K", "W_V", "W_O") if k not in data]
    if missing:
        raise BadInput(f"--weights: {path} lacks {', '.join(missing)} (expected W_Q, W_K, W_V of shape (H, d, d_k) "
                       "and W_O of shape (H, d_k, d))")
    W = {k: _finite(f"--weights {k}", data[k]) for k in ("W_Q", "W_K", "W_V", "W_O")}
    for k in ("W_Q", "W_K", "W_V", "W_O"):
        if W[k].ndim != 3:
            raise BadInput(f"--weights: {k} has {W[k].ndim} dimensions; expected 3 (heads first)")
    H, dd, dk = W["W_Q"].shape
    for k in ("W_K", "W_V"):
        if W[k].shape != (H, dd, dk):
            raise BadInput(f"--weights: {k} has shape {W[k].shape}; W_Q has {(H, dd, dk)} and they must agree")
    if W["W_O"].shape != (H, dk, dd):
        raise BadInput(f"--weights: W_O has shape {W['W_O'].shape}; expected (H, d_k, d) = {(H, dk, dd)}")
    if d is not None and dd != d:
        raise BadInput(f"--weights: d = {dd} in the weights but X has d = {d} columns")
    if H < 1 or dk < 1:
        raise BadInput("--weights: at least one head of width d_k >= 1 is needed")
    return [Head(W["W_Q"][h], W["W_K"][h], W["W_V"][h], W["W_O"][h]) for h in range(H)]


def random_weights(d: int, heads: int, seed: int, d_k: int | None = None) -> list[Head]:
    """Seeded Gaussian heads (d_k = d / H by default, which must divide)."""
    if heads < 1:
        raise BadInput("--heads must be at least 1")
    if d_k is None:
        if d % heads:
            raise BadInput(f"d_k = d / H needs H to divide d (d = {d}, H = {heads}); give weights with --weights")
        d_k = d // heads
    rng = np.random.default_rng(seed)
    return [Head(rng.normal(0, 1 / math.sqrt(d), (d, d_k)), rng.normal(0, 1 / math.sqrt(d), (d, d_k)),
                 rng.normal(0, 1 / math.sqrt(d), (d, d_k)), rng.normal(0, 1 / math.sqrt(d_k), (d_k, d)))
            for _ in range(heads)]


def _exact_rank(M: np.ndarray, seed: int) -> dict:
    r = certified_rank(M, seed=seed)
    return {"value": r.value, "lower": r.lower, "upper": r.upper, "certificate": str(r)}


def _iv_rank_lower(M_iv_rows, dps: int) -> dict:
    from ..certify import certified_rank_lower_bound
    return certified_rank_lower_bound(M_iv_rows, dps)


def _numrank(M: np.ndarray, rtol: float = 1e-10) -> dict:
    s = np.linalg.svd(M, compute_uv=False)
    k = int(np.sum(s > rtol * s[0])) if s.size and s[0] > 0 else 0
    gap = float(s[k - 1] / s[k]) if 0 < k < len(s) and s[k] > 0 else None
    return {"numerical_rank": k, "rtol": rtol, "singular_value_gap": gap, "arithmetic": "float64 SVD"}


def _check_size(name: str, *shape: int):
    if int(np.prod(shape)) > MAX_INTERVAL_ENTRIES:
        raise BadInput(f"{name} has {int(np.prod(shape))} entries; the interval checks accept at most "
                       f"{MAX_INTERVAL_ENTRIES} (n x d), e.g. 64 x 64")


def check_residual_obstruction(X: np.ndarray, heads: list[Head], dps: int = 50, seed: int = 0) -> dict:
    """Thm 5.3 on (X, weights): the hypothesis rank X < min(n, d), and rank(X + MHA(X)) against rank X."""
    import mpmath

    from ..transformer import exact_to_ctx, mha, workdps
    Xq, X = _exact_and_float("--X", X)
    n, d = X.shape
    _check_size("--X", n, d)
    rX = _exact_rank(np.array(Xq, dtype=object), seed)
    hyp = None if rX["value"] is None else rX["value"] < min(n, d)
    with workdps(mpmath.iv, dps):
        M = mha(Xq, heads, backend="iv", dps=dps)  # the exact entries enter as intervals: F(X) of X itself
        F = [[exact_to_ctx(mpmath.iv, Xq[i][j]) + M[i, j] for j in range(d)] for i in range(n)]
        low = _iv_rank_lower(F, dps)
    f64 = X + mha(X, heads, backend="float64")
    upper = min(n, d)
    lo = low["lower"]
    if rX["value"] is None:
        concl, how = None, "undecided: rank X is not certified"
    elif lo > rX["value"]:
        concl, how = True, (f"certified: rank(X + MHA(X)) >= {lo} > rank X = {rX['value']} (an interval determinant of "
                            f"a {lo} x {lo} minor excludes 0, mpmath iv at {dps} digits)")
    elif lo == upper:
        concl, how = False, f"certified: rank(X + MHA(X)) = {upper} = min(n, d) = rank X: no room to increase"
    else:
        concl, how = None, (f"undecided: rank(X + MHA(X)) in [{lo}, {upper}] and rank X = {rX['value']}; softmax is "
                            "transcendental, so equality cannot be certified by intervals (the float64 numerical "
                            "rank below is a hint, not a decision)")
    return {"theorem": "residual-obstruction (Thm 5.3)", "n": n, "d": d, "H": len(heads),
            "d_k": int(np.asarray(heads[0].W_Q).shape[1]),
            "hypotheses": {"rank X < min(n, d)": {"holds": hyp, "how": f"exact: rank X = {rX['value']} ({rX['certificate']}), "
                                                                       f"min(n, d) = {min(n, d)}"}},
            "rank_X": rX["value"], "rank_F_lower": lo, "rank_F_upper": upper, "minor": low,
            "conclusion": {"rank(X + MHA(X)) > rank(X)": concl, "how": how},
            "float64": _numrank(f64),
            "arithmetic": f"exact rank of X over QQ; mpmath iv at {dps} digits for X + MHA(X)"}


def check_head_channel(W_O: np.ndarray, heads: int, seed: int = 0) -> dict:
    """Reading (a): with W_O (H d_k x d) known, the per-head outputs are recoverable iff rank W_O = H d_k."""
    W = _finite("--W-O", np.asarray(W_O))
    Hdk, d = W.shape
    if heads < 1 or Hdk % heads:
        raise BadInput(f"--heads {heads} does not divide the {Hdk} rows of W_O (W_O is H d_k x d)")
    dk = Hdk // heads
    r = _exact_rank(W, seed)
    rec = None if r["value"] is None else r["value"] == Hdk
    return {"theorem": "head-channel (§7, reading (a): W_O known)", "H": heads, "d_k": dk, "d": d,
            "rank_W_O": r["value"], "rank_W_O_certificate": r["certificate"],
            "recoverable": rec,
            "how": (f"exact: rank W_O = {r['value']} " + ("= H d_k, so Y = MHA(X) W_O^+ recovers every head exactly"
                                                         if rec else f"< H d_k = {Hdk}: the heads are not determined"))
            if rec is not None else "undecided: rank W_O not certified",
            "kernel_dim_per_token": {"a (W_O known)": None if r["value"] is None else Hdk - r["value"],
                                     "b (sum without projection)": (heads - 1) * dk,
                                     "c (learned weights: gauge)": f"H d_k^2 = {heads * dk * dk} per layer"},
            "condition_number": float(np.linalg.cond(W)) if r["value"] == min(Hdk, d) else None,
            "arithmetic": "exact rank over QQ (certified); condition number in float64"}


def check_recovery_ambiguity(W_O: np.ndarray, heads: int, n: int, seed: int = 0) -> dict:
    """The ambiguity dimension under each reading, for a sequence of n tokens."""
    if n < 1:
        raise BadInput("--n must be at least 1")
    base = check_head_channel(W_O, heads, seed)
    k = base["kernel_dim_per_token"]
    dims = {"a (W_O known)": None if k["a (W_O known)"] is None else n * k["a (W_O known)"],
            "b (sum without projection)": n * k["b (sum without projection)"],
            "c (learned weights: gauge)": k["c (learned weights: gauge)"]}
    return {**base, "theorem": "recovery-ambiguity (§7.3)", "n": n, "ambiguity_dimension": dims,
            "paper_formula_n(H-1)d_k": n * (heads - 1) * base["d_k"],
            "note": "the paper's n(H-1)d_k is reading (b)'s kernel dimension; under reading (a) it is n (H d_k - rank W_O)"}


def check_rank_contraction(X: np.ndarray, heads: list[Head], dps: int = 50, seed: int = 0) -> dict:
    """§6: dim R_h per head, rank MHA(X) against dim(R_1 + ... + R_H), and alpha_h per head.

    The enclosures are of MHA at X's float64 values (exact rational entries are rounded once to float64
    here; the record's ``input_rounded_to_float64`` says whether that changed anything)."""
    from ..rank_contraction import alpha, certified_ranks
    _, X = _exact_and_float("--X", X)
    n, d = X.shape
    _check_size("--X", n, d)
    c = certified_ranks(X, heads, dps=dps)
    lo_m, hi_m = c["rank_mha"]
    lo_s, hi_s = c["dim_sum_R"]
    if hi_m < lo_s:
        rel = "rank MHA(X) < dim sum R_h (certified)"
    elif lo_m == hi_m == lo_s == hi_s:
        rel = "rank MHA(X) = dim sum R_h (certified)"
    else:
        rel = f"undecided: rank MHA in [{lo_m}, {hi_m}], dim sum R_h in [{lo_s}, {hi_s}]"
    from fractions import Fraction
    Xq, _ = _exact_and_float("--X", X)
    rounded = any(Fraction(*float(v).as_integer_ratio()) != v for r in Xq for v in r)
    return {"theorem": "rank-contraction (§6)", "n": n, "d": d, "H": len(heads), "d_k": c["d_k"],
            "input_rounded_to_float64": rounded,
            "rank_X": c["rank_X"], "dim_R_h": c["dim_R"], "rank_MHA": c["rank_mha"], "dim_sum_R": c["dim_sum_R"],
            "rank_MHA_vs_dim_sum_R": rel,
            "alpha_h": [round(alpha(h.W_Q, h.W_K), 6) for h in heads],
            "arithmetic": f"certified intervals [lower, upper]: lower from mpmath iv determinants at {dps} digits, "
                          "upper from structure; alpha in float64"}
