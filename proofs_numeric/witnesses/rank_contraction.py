r"""Certified ranks for Rank Contraction (§6): attention matrices, per-head subspaces R_h, MHA.

Lower bounds: a minor whose interval determinant excludes 0 (mpmath ``iv``). Upper bounds
from structure: :math:`\operatorname{rank}A_h\le n`, :math:`\dim R_h\le\min(\operatorname{rank}X,d_k)`
(exact rank of X over QQ), :math:`\dim\sum_hR_h\le\min(d,\sum_h\dim R_h)`,
:math:`\operatorname{rank}\mathrm{MHA}\le\min(n,\dim\sum_hR_h)`.

Examples
========
>>> import numpy as np
>>> from proofs_numeric.core.transformer import Head
>>> rng = np.random.default_rng(0)
>>> heads = [Head(*(rng.normal(size=s) for s in [(5, 2), (5, 2), (5, 2), (2, 5)])) for _ in range(2)]
>>> r = certified_ranks(rng.normal(size=(6, 5)), heads, dps=30)
>>> r["attention_rank"], r["dim_R"], r["dim_sum_R"], r["rank_mha"]
([[6, 6], [6, 6]], [[2, 2], [2, 2]], [4, 4], [4, 4])
"""
from __future__ import annotations

import functools
from dataclasses import replace

import mpmath
import numpy as np

from proofs_numeric.core.certify import certified_rank_lower_bound, interval_size_check
from proofs_numeric.core.float_hints import RTOL_HEAD_SUBSPACES, rank_above
from proofs_numeric.core.quantities import alpha, alpha_mha, spearman  # noqa: F401 - re-exported
from proofs_numeric.core.transformer import Head, attention, workdps
from theorems.exact import transformer as T
from theorems.exact.certified_rank import certified_rank
from theorems.exact.input import BadInput, exact_matrix
from theorems.exact.instances import Shape
from theorems.exact.linalg import rank, rank_of_product
from theorems.framework import (
    CheckContext,
    Decided,
    Evidence,
    InstanceForm,
    RobustSet,
    failing_box,
    float_statistic,
    interval_instances,
    interval_witness,
    stable_seed,
)
from theorems.framework.memo import process_cache
from theorems.paper import rank_contraction as RC_PAPER
from theorems.paper.rank_contraction import alpha_of_factors

__all__ = ["certified_ranks", "alpha", "alpha_mha", "alignment", "spearman", "head_with_alpha", "input_of_rank",
           "CERTIFIED_SHAPES", "certified_shapes", "iv_evidence", "prop63_evidence", "attention_rank_literal",
           "attention_rank_corrected", "rank_equals_sum_literal", "rank_equals_sum_generic", "alpha_independent",
           "alignment_random_heads", "EVIDENCE", "INSTANCE_FORMS", "user_heads_instance"]


def input_of_rank(rng, n: int, r: int, d: int) -> np.ndarray:
    """An n x d input of exact rank <= r (integer factors in [-3, 3], scaled by 1/8).

    The float64 product of small integers is exact, so the stored matrix has the intended
    rank (a Gaussian product would be full rank once rounded); the 1/8 keeps logits moderate.
    """
    return (rng.integers(-3, 4, size=(n, r)) @ rng.integers(-3, 4, size=(r, d))).astype(float) / 8


def _rows(M):
    return [[M[i, j] for j in range(M.cols)] for i in range(M.rows)]


def certified_ranks(X, heads: list[Head], dps: int = 50) -> dict:
    """X: a float array (its values taken exactly) or rows of exact rationals (entering the intervals exactly)."""
    if not isinstance(X, list):
        X = np.asarray(X, dtype=np.float64) if np.asarray(X).dtype.kind != "O" else np.asarray(X).tolist()
    n, d = (len(X), len(X[0])) if isinstance(X, list) else X.shape
    rX = rank(exact_matrix(X))
    iv = mpmath.iv
    out = {"n": n, "d": d, "H": len(heads), "d_k": heads[0].W_Q.shape[1], "rank_X": rX,
           "attention_rank": [], "dim_R": [], "dps": dps}
    terms = []
    with workdps(iv, dps):
        for h in heads:
            A, Y = attention(X, h, "iv", dps)
            T = Y * iv.matrix(np.asarray(h.W_O).tolist())
            terms.append(T)
            out["attention_rank"].append([certified_rank_lower_bound(_rows(A), dps)["lower"], n])
            dk = np.asarray(h.W_O).shape[0]
            out["dim_R"].append([certified_rank_lower_bound(_rows(T), dps)["lower"], min(rX, dk)])
        stack = [row for T in terms for row in _rows(T)]
        up_sum = min(d, sum(u for _, u in out["dim_R"]))
        out["dim_sum_R"] = [certified_rank_lower_bound(stack, dps)["lower"], up_sum]
        M = terms[0]
        for T in terms[1:]:
            M = M + T
        out["rank_mha"] = [certified_rank_lower_bound(_rows(M), dps)["lower"], min(n, up_sum)]
    return out


def certified_ranks_midrad(X, heads: list[Head], rank_X: int | None, rank_X_upper: int) -> dict:
    """:func:`certified_ranks` where the mpmath interval path refuses the size: every head's A_h, Y_h W_O^h and
    their sum enclosed in double-precision midpoint-radius arithmetic on BLAS (``theorems.exact.transformer.MIDRAD``:
    float64 midpoints, radii bounding every rounding a priori; X and the float64 weights enter exactly), each lower
    bound from a minor proved non-singular over the enclosure
    (:func:`proofs_numeric.core.certify.midrad_rank_lower_bound`), the upper bounds from structure as there
    (``rank_X_upper`` in place of an exact rank X when that is not certified). ``width``: the
    largest radius of the enclosures (a lower bound that does not reach its upper bound is then said with it)."""
    from proofs_numeric.core.certify import midrad_rank_lower_bound
    from theorems.exact.blas_runtime import single_threaded_blas
    n, d = X.shape
    out: dict = {"n": n, "d": d, "H": len(heads), "d_k": heads[0].W_Q.shape[1], "rank_X": rank_X,
                 "attention_rank": [], "dim_R": [], "dps": None, "arithmetic": "midrad"}
    width = 0.0

    def lower(M, upper: int) -> int:
        nonlocal width
        width = max(width, float(M.r.max()) if M.r.size else 0.0)
        return int(midrad_rank_lower_bound(M, upper)["lower"])
    with single_threaded_blas():
        Xm = T.MIDRAD.asmatrix(np.asarray(X, dtype=np.float64))
        terms = []
        for h in heads:
            A, Y = T.attention(T.MIDRAD, Xm, h)
            Wo = T.MIDRAD.asmatrix(np.asarray(h.W_O, dtype=np.float64))
            Th = T.MIDRAD.matmul(Y, Wo)
            terms.append(Th)
            out["attention_rank"].append([lower(A, n), n])
            dk = np.asarray(h.W_O).shape[0]
            up = min(rank_X_upper, dk)
            out["dim_R"].append([lower(Th, up), up])
        up_sum = min(d, sum(u for _, u in out["dim_R"]))
        out["dim_sum_R"] = [sum_rank_lower(terms, [u for _, u in out["dim_R"]], up_sum, lower), up_sum]
        M = terms[0]
        for Th in terms[1:]:
            M = M + Th
        out["rank_mha"] = [lower(M, min(n, up_sum)), min(n, up_sum)]
    out["width"] = width
    return out


def sum_rank_lower(terms: list, uppers: list[int], upper: int, lower) -> int:
    """A certified lower bound of dim(R_1 + ... + R_H) = rank of the stacked head terms [T_1; ...; T_H] (midrad
    enclosures), by ``lower(M, upper)``: first on the rows that pivoting on each head's midpoints picks (at most its
    ``uppers[h]`` of them; :func:`theorems.exact.padic_rank.gram_pivots`), a submatrix of the stack, so its rank is at
    most the stack's for every matrix of the enclosure (no rounding added: the rows are the stack's own). A head's
    rows carry its R_h, so H d_k such rows usually reach the bound: 12 x 32 rows of a 6144 x 385 stack at a 512-token
    site take 0.07 s, against 1.5 s for the whole stack, whose Gaussian compression (inner dimension 6144) is too
    wide to prove rank 384 there and goes to a Gram pivoting of every row. Short of ``upper``: the whole stack too,
    and the larger of the two bounds (both certified)."""
    from theorems.exact.padic_rank import gram_pivots
    n = terms[0].shape[0]
    rows = []
    for i, (Th, u) in enumerate(zip(terms, uppers)):
        piv = gram_pivots(Th.m, np.random.default_rng(20261206), rtol=1e-20)[0]
        rows.append(i * n + np.sort(np.asarray(piv[:u], dtype=np.intp)))
    sel = np.concatenate(rows) if rows else np.zeros(0, dtype=np.intp)
    stack_m = np.vstack([Th.m for Th in terms])
    stack_r = np.vstack([Th.r for Th in terms])
    got = lower(T.Midrad(stack_m[sel], stack_r[sel]), upper) if sel.size else 0
    if got >= upper:
        return got
    return max(got, lower(T.Midrad(stack_m, stack_r), upper))


def alignment(X, heads: list[Head]) -> np.ndarray:
    """Mean squared cosine of the principal angles between R_h and R_g, for every pair (float64)."""
    bases = []
    for h in heads:
        _, Y = attention(X, h)
        T = Y @ np.asarray(h.W_O)
        U, s, Vt = np.linalg.svd(T, full_matrices=False)
        k = rank_above(s, RTOL_HEAD_SUBSPACES)
        bases.append(Vt[:k].T)
    H = len(heads)
    out = np.eye(H)
    for i in range(H):
        for j in range(i + 1, H):
            c = np.linalg.svd(bases[i].T @ bases[j], compute_uv=False)
            out[i, j] = out[j, i] = float(np.mean(c ** 2)) if c.size else 0.0
    return out


def head_with_alpha(d: int, d_k: int, target: float, rng) -> Head:
    """A head whose M = W_Q W_K^T has asymmetry close to ``target`` (0: symmetric, 1: antisymmetric)."""
    Q = rng.normal(size=(d, d_k))
    if d_k >= 2 and target > 0.99:
        J = np.zeros((d_k, d_k))
        J[0, 1], J[1, 0] = 1, -1
        K = Q @ J.T  # M = Q J^T Q^T is antisymmetric
    elif target < 0.01:
        K = Q.copy()  # M = Q Q^T symmetric
    else:
        K = rng.normal(size=(d, d_k))
    return Head(Q, K, rng.normal(size=(d, d_k)), rng.normal(size=(d_k, d)))


# --- numeric evidence (attached to the claims of theorems.paper.rank_contraction by id) ---

#: per regime, for the certified checks; the last of each: the edges n = 2 or d = 2, H = d_k = 1
CERTIFIED_SHAPES = {
    "n<d": [Shape(n=4, d=6, H=2, d_k=3), Shape(n=3, d=5, H=1, d_k=5), Shape(n=2, d=3, H=1, d_k=1)],
    "n=d": [Shape(n=5, d=5, H=1, d_k=2), Shape(n=4, d=4, H=2, d_k=2), Shape(n=2, d=2, H=1, d_k=1)],
    "n>d": [Shape(n=7, d=4, H=2, d_k=2), Shape(n=8, d=6, H=3, d_k=2), Shape(n=3, d=2, H=1, d_k=1)]}


_CERTIFIED_CACHE: dict = process_cache()  # emptied by theorems.framework.memo.clear_process_caches


def certified_shapes(ctx: CheckContext):
    """Certified ranks for every shape in CERTIFIED_SHAPES, computed once per (dps, quick) and shared by the checks."""
    key = (ctx.dps, ctx.quick)
    if key not in _CERTIFIED_CACHE:
        _CERTIFIED_CACHE[key] = _compute_certified(ctx)
    return _CERTIFIED_CACHE[key]


def iv_evidence(ctx, holds, witness: bool, regime, summary, arithmetic="", reason=None) -> Evidence:
    """Evidence from the shared interval computation (mpmath iv at ctx.dps digits).

    ``witness``: the enclosure settles one concrete instance (a certified witness or a certified
    failure); otherwise it is one instance of a universal statement.
    """
    make = interval_witness if witness else interval_instances
    return make(summary, holds, regime=regime, arithmetic=f"mpmath iv at {ctx.dps} digits{arithmetic}",
                reason=reason)


def _compute_certified(ctx):
    rows = []
    for regime, shapes in CERTIFIED_SHAPES.items():
        for (n, d, H, dk) in shapes[: 1 if ctx.quick else None]:
            rng = np.random.default_rng(n * 1000 + d * 10 + H)
            heads = [Head(*(rng.normal(size=s) for s in [(d, dk), (d, dk), (d, dk), (dk, d)])) for _ in range(H)]
            for r in sorted({min(n, d), max(1, min(n, d) - 2)}):
                X = input_of_rank(rng, n, r, d)
                c = certified_ranks(X, heads, dps=ctx.dps)
                c["X"], c["heads"] = X, heads  # kept for the box certificates of the generic claims
                rows.append((regime, (n, d, H, dk, r), c))
    return rows


def attention_rank_on_box(X, head: Head, dps: int, radius_bits: int = 30) -> dict | None:
    """rank A_h = n certified on the box |X' - X|, |W_Q' - W_Q|, |W_K' - W_K| <= 2^-radius_bits (entrywise): the
    attention matrix enclosed in mpmath iv over the whole box, a non-zero n x n minor certified. None otherwise."""
    iv = mpmath.iv
    ctx = T.iv(dps)
    r = mpmath.mpf(2) ** -radius_bits

    def widen(M):
        return iv.matrix([[iv.mpf([mpmath.mpf(float(v)) - r, mpmath.mpf(float(v)) + r]) for v in row]
                          for row in np.asarray(M).tolist()])

    with ctx.local():
        A = T.softmax_rows(ctx, T.scores(ctx, widen(X), Head(widen(head.W_Q), widen(head.W_K), head.W_V, head.W_O)))
        rows = [[A[i, j] for j in range(A.cols)] for i in range(A.rows)]
    lb = certified_rank_lower_bound(rows, dps)
    return {"radius": f"2^-{radius_bits}", **lb} if lb["lower"] == len(rows) else None


def prop63_evidence(ctx: CheckContext) -> list[Evidence]:
    out = []
    for regime, shape, c in certified_shapes(ctx):
        want = min(c["rank_X"], c["d_k"])
        ok = all(lo == hi == want for lo, hi in c["dim_R"])
        off = any(hi < want or lo > want for lo, hi in c["dim_R"])  # certified on the wrong side
        out.append(iv_evidence(ctx, True if ok else (False if off else None), False, regime,
                                f"(n, d, H, d_k, rank X) = {shape[:4] + (c['rank_X'],)}: dim R_h = "
                                f"{[lo for lo, _ in c['dim_R']]}, min(rank X, d_k) = {min(c['rank_X'], c['d_k'])}"
                                + (", certified" if ok else ""), " (lower), exact rank of X (upper)",
                                reason=None if ok else "the rank enclosure did not close at this precision"))
    return out


def attention_rank_corrected(ctx: CheckContext) -> list[Evidence]:
    out = []
    for regime, shape, c in certified_shapes(ctx):
        ranks = [lo for lo, _ in c["attention_rank"]]
        ok = all(r == c["n"] for r in ranks)
        out.append(iv_evidence(ctx, True if ok else None, False, regime, f"{shape}: certified rank A_h = {ranks} = n",
                                reason=None if ok else "the rank enclosure did not close at this precision"))
    return out


def rank_equals_sum_generic(ctx: CheckContext) -> list[Evidence]:
    out = []
    for regime, shape, c in certified_shapes(ctx):
        n = c["n"]
        lo_m, hi_m = c["rank_mha"]
        lo_s, hi_s = c["dim_sum_R"]
        if lo_m == hi_m and lo_s == hi_s:
            ok = lo_m == min(n, lo_s)
            out.append(iv_evidence(ctx, ok, False, regime,
                                    f"{shape}: rank MHA = {lo_m} {'=' if ok else '!='} min(n, dim sum R_h) = "
                                    f"min({n}, {lo_s})"))
    return out


def alpha_independent(ctx: CheckContext) -> list[Evidence]:
    out = []
    rng = np.random.default_rng(stable_seed("RC.alpha-independent:heads"))
    for target in (0.0, 0.5, 1.0):
        for (n, d, dk, r) in [(6, 5, 2, 5), (6, 5, 3, 2), (4, 6, 2, 4)]:
            h = head_with_alpha(d, dk, target, rng)
            c = certified_ranks(input_of_rank(rng, n, r, d), [h], dps=ctx.dps)
            lo, hi = c["dim_R"][0]
            ok = lo == hi == min(c["rank_X"], dk)
            assert n > dk  # the regime the paper's proof assumes (n = 2 is decided exactly in the exact layer)
            out.append(iv_evidence(ctx, True if ok else (False if hi < min(c["rank_X"], dk) else None), False, "n>d_k",
                                    f"alpha = {alpha(h.W_Q, h.W_K):.3f}, (n, d, d_k, rank X) = {(n, d, dk, r)}: "
                                    f"dim R_h in [{lo}, {hi}], min(rank X, d_k) = {min(c['rank_X'], dk)}",
                                    reason=None if ok else "the rank enclosure did not close at this precision"))
    return out


def alignment_random_heads(ctx: CheckContext) -> list[Evidence]:
    rng = np.random.default_rng(stable_seed("RC.alignment:random heads"))
    al, ag = [], []
    for _ in range(10 if ctx.quick else 40):
        n, d, H, dk = 8, 8, 4, 2
        heads = [Head(*(rng.normal(size=s) for s in [(d, dk), (d, dk), (d, dk), (dk, d)])) for _ in range(H)]
        X = rng.normal(size=(n, d))
        A = alignment(X, heads)
        for h in range(H):
            al.append(alpha(heads[h].W_Q, heads[h].W_K))
            ag.append(float((A[h].sum() - 1) / (H - 1)))
    rho_s = spearman(al, ag)
    return [float_statistic(f"random Gaussian heads (n = d = 8, H = 4, d_k = 2, {len(al)} heads): Spearman correlation "
                            f"between alpha_h and mean alignment of R_h with the other heads = {rho_s:.3f}", None,
                            regime="generic-weights", arithmetic="float64 (SVD principal angles)",
                            numbers={"spearman": rho_s, "heads": len(al)},
                            reason="random weights cannot decide a claim about trained heads (the trained-model "
                                   "reading uses all-MiniLM-L6-v2)")]

def attention_rank_literal(ctx: CheckContext) -> list[Evidence]:
    """RC.attention-rank (a generic claim): random heads whose attention rank n > d_k is certified on a whole box of
    (X, W_Q, W_K) around the draw (a failure of positive measure); a point certificate alone would not decide it."""
    out = []
    for regime, shape, c in certified_shapes(ctx):
        ranks = [lo for lo, _ in c["attention_rank"]]
        if c["n"] > c["d_k"] and all(r == c["n"] for r in ranks):
            boxes = [attention_rank_on_box(c["X"], h, ctx.dps) for h in c["heads"]]
            ok = all(b is not None for b in boxes)
            out.append(failing_box(f"{shape}: rank A_h = n = {c['n']} > d_k = {c['d_k']} for every head",
                                   certified=True if ok else None,
                                   box="|X' - X|, |W_Q' - W_Q|, |W_K' - W_K| <= 2^-30 entrywise",
                                   arithmetic=f"mpmath iv at {ctx.dps} digits over the box", exact=False,
                                   regime=regime,
                                   reason=None if ok else "the rank enclosure over the box did not close"))
    return out


def rank_equals_sum_literal(ctx: CheckContext) -> list[Evidence]:
    """RC.rank-equals-sum: shapes where rank MHA < dim sum R_h is certified (certified failures)."""
    out = []
    for regime, shape, c in certified_shapes(ctx):
        lo_m, hi_m = c["rank_mha"]
        lo_s, hi_s = c["dim_sum_R"]
        if hi_m < lo_s:
            out.append(iv_evidence(ctx, False, True, regime,
                                   f"{shape}: rank MHA <= {hi_m} < {lo_s} <= dim sum R_h (certified)"))
    return out


#: numeric evidence attached by (claim id, reading key) (collected by :mod:`proofs_numeric.witnesses.evidence`)
EVIDENCE = {
    ("RC.prop63", "literal"): [prop63_evidence],
    ("RC.attention-rank", "literal"): [attention_rank_literal],
    ("RC.attention-rank", "corrected"): [attention_rank_corrected],
    ("RC.rank-equals-sum", "literal"): [rank_equals_sum_literal],
    ("RC.rank-equals-sum", "generic-value"): [rank_equals_sum_generic],
    ("RC.alpha-independent", "literal"): [alpha_independent],
    ("RC.alpha-independent", "as-proved"): [alpha_independent],
    ("RC.alignment", "literal"): [alignment_random_heads],
}


# --- a user's X and weights: the RC claims' own hypotheses and conclusions, decided from certified ranks ----------

class HeadsInput(dict):
    """A user's X and softmax heads (or a model's attention site), for the interval handlers of §6's predicates:
    ``{X, heads, weights, d_k, H, c}``, c = :func:`certified_ranks`."""


def user_heads_instance(user) -> HeadsInput:
    """{X, heads, weights, d_k, c}: c = :func:`certified_ranks` of the user's X (exact) and weights (float64 values)."""
    X, W = user.matrix("X"), user.weights
    if W is None:
        raise BadInput("this claim needs weights: --weights W.npz or --heads H [--weights-seed N] (seeded Gaussian)")
    n, d = X.shape
    if W.d != d:
        raise BadInput(f"--weights: d = {W.d} in the weights but X has d = {d} columns")
    heads = [Head(*m) for m in W.float64_heads("--weights")]
    try:
        interval_size_check(n, d, W.H, W.d_k, user.dps)
    except BadInput:  # beyond the mpmath interval path: double-precision enclosures on BLAS (undecided with the width)
        Xf, why = X.float64()
        data = getattr(X, "data", None)
        if Xf is None or not (isinstance(data, np.ndarray) and data.dtype.kind == "f"):
            raise  # X is not float64 data (then its values would be rounded): the size refusal stands
        cr = certified_rank(X.kernel(), seed=user.seed if user.seed is not None else 0)
        c = certified_ranks_midrad(Xf, heads, cr.lower if cr.certified else None, cr.upper)
        return HeadsInput({"X": X, "heads": heads, "weights": W, "d_k": W.d_k, "H": W.H, "c": c})
    return HeadsInput({"X": X, "heads": heads, "weights": W, "d_k": W.d_k, "H": W.H,
                       "c": certified_ranks(X.kernel() if not isinstance(X.kernel(), list) else X.rows(), heads,
                                            dps=user.dps)})


def _iv(lo, hi) -> str:
    return str(lo) if lo == hi else f"[{lo}, {hi}]"


def _ranks_text(v) -> str:
    c = v["c"]
    per = lambda rs: "[" + ", ".join(_iv(*r) for r in rs) + "]"
    how = (f"mpmath iv minors at {c['dps']} digits" if c.get("arithmetic") != "midrad" else
           "minors of double-precision midpoint-radius enclosures on BLAS proved non-singular, largest radius "
           f"{c['width']:.2g}")
    return (f"rank X = {c['rank_X']}; rank A_h = {per(c['attention_rank'])}; dim R_h = {per(c['dim_R'])}; "
            f"dim sum R_h = {_iv(*c['dim_sum_R'])}; rank MHA = {_iv(*c['rank_mha'])} "
            f"(certified: lower bounds from {how}, upper bounds from structure)")


def _decide(ok: bool, bad: bool, v, what: str) -> Decided:
    if ok:
        return Decided(True, f"certified: {what}; {_ranks_text(v)}")
    if bad:
        return Decided(False, f"certified: not {what}; {_ranks_text(v)}")
    return Decided(None, f"undecided: the enclosures do not settle {what}; {_ranks_text(v)}")


def _n_gt_dk(v) -> Decided:
    """n > d_k"""
    n = v["X"].shape[0]
    return Decided(n > v["d_k"], f"n = {n}, d_k = {v['d_k']}")


def _attention_rank_min(v) -> Decided:
    """rank A = min(n, d_k)"""
    t = min(v["X"].shape[0], v["d_k"])
    A = v["c"]["attention_rank"]
    return _decide(all(lo == hi == t for lo, hi in A), any(lo > t or hi < t for lo, hi in A), v,
                   f"rank A_h = min(n, d_k) = {t} for every head")


def _rank_is_dim_sum(v) -> Decided:
    """rank MHA(X) = dim(R_1 + ... + R_H)"""
    (lm, hm), (ls, hs) = v["c"]["rank_mha"], v["c"]["dim_sum_R"]
    return _decide(lm == hm == ls == hs, hm < ls or lm > hs, v, "rank MHA(X) = dim(R_1 + ... + R_H)")


def _subadditive(v) -> Decided:
    """rank(Y_h W_O^h) <= d_k and rank MHA(X) <= sum_h rank <= H d_k"""
    c, dk, H = v["c"], v["d_k"], v["H"]
    lo_T, hi_T = sum(lo for lo, _ in c["dim_R"]), sum(hi for _, hi in c["dim_R"])
    lm, hm = c["rank_mha"]
    ok = all(hi <= dk for _, hi in c["dim_R"]) and hm <= lo_T and hi_T <= H * dk
    bad = any(lo > dk for lo, _ in c["dim_R"]) or lm > hi_T or lo_T > H * dk
    return _decide(ok, bad, v, "rank(Y_h W_O^h) <= d_k and rank MHA <= sum_h rank <= H d_k")


def _some_head_nonzero(v) -> Decided:
    """some head output non-zero"""
    R = v["c"]["dim_R"]
    return _decide(any(lo > 0 for lo, _ in R), all(hi == 0 for _, hi in R), v, "some Y_h W_O^h != 0")


def _alpha_in_range(v) -> Decided:
    """alpha_MHA in [0, 1]"""
    c, H = v["c"], v["H"]
    lm, hm = c["rank_mha"]
    mlo, mhi = max(lo for lo, _ in c["dim_R"]), max(hi for _, hi in c["dim_R"])
    return _decide(mlo > 0 and hm <= H * mlo, lm > H * mhi, v,
                   "0 <= alpha_MHA = 1 - rank MHA / (H max_h rank(Y_h W_O^h)) <= 1")


def _alpha_positive(v) -> Decided:
    """alpha_MHA > 0"""
    c, H = v["c"], v["H"]
    lm, hm = c["rank_mha"]
    mlo, mhi = max(lo for lo, _ in c["dim_R"]), max(hi for _, hi in c["dim_R"])
    return _decide(mlo > 0 and hm < H * mlo, mhi == 0 or lm >= H * mhi, v,
                   "alpha_MHA > 0 (rank MHA < H max_h rank(Y_h W_O^h))")


def _sum_dims_drop(v) -> Decided:
    """dim(R_1 + ... + R_H) < sum_h dim R_h"""
    c = v["c"]
    ls, hs = c["dim_sum_R"]
    return _decide(hs < sum(lo for lo, _ in c["dim_R"]), ls >= sum(hi for _, hi in c["dim_R"]), v,
                   "dim(R_1 + ... + R_H) < sum_h dim R_h")


def _alphas(v) -> list:
    return [alpha_of_factors(M[0].sympy(), M[1].sympy()) for M in v["weights"].heads]  # = alpha_exact(W_Q W_K^T)


def _directional(v) -> Decided:
    """directional heads (alpha_h = 1 for every h)"""
    a = _alphas(v)
    return Decided(all(x == 1 for x in a), f"exact: alpha_h = {a} (M = W_Q W_K^T; alpha does not depend on the "
                                           "score scale)")


def _fixed_wv_wo(v) -> Decided:
    """W_V, W_O fixed, alpha_h changed from 0 to 1"""
    hs = v["weights"].heads
    a = _alphas(v)
    same = (len(hs) == 2 and hs[0][2].fractions() == hs[1][2].fractions()
            and hs[0][3].fractions() == hs[1][3].fractions())
    return Decided(same and a == [0, 1],
                   f"exact: H = {len(hs)}, the two heads share W_V and W_O: {same}; alpha_h = {a}")


def _r_h_moves(v) -> Decided:
    """R_h moves with alpha_h"""
    c = v["c"]
    (l1, h1), (l2, h2) = c["dim_R"][:2]
    ls, hs = c["dim_sum_R"]
    closed = l1 == h1 and l2 == h2 and ls == hs
    return _decide(ls > max(h1, h2) or (closed and not l1 == l2 == ls), closed and l1 == l2 == ls, v,
                   "R_1 != R_2 (dim(R_1 + R_2) > dim R_h, or unequal dims)")


def _invertible_attention(v) -> Decided:
    """generic head (invertible attention)"""
    lo, hi = v["c"]["attention_rank"][0]
    n = v["X"].shape[0]
    return _decide(lo == n, hi < n, v, f"rank A_1 = n = {n} (the first head's attention is invertible)")


def _dim_is_dk(v) -> Decided:
    """dim R_h = d_k"""
    lo, hi = v["c"]["dim_R"][0]
    dk = v["d_k"]
    return _decide(lo == hi == dk, hi < dk or lo > dk, v, f"dim R_1 = d_k = {dk} (the first head)")


def _dim_is_min(v) -> Decided:
    """dim R_h = min(rank X, d_k)"""
    lo, hi = v["c"]["dim_R"][0]
    m = min(v["c"]["rank_X"], v["d_k"])
    return _decide(lo == hi == m, hi < m or lo > m, v, f"dim R_1 = min(rank X, d_k) = {m} (the first head)")


def _rank_x_ge_dk(v) -> Decided:
    """rank X >= d_k"""
    r = v["c"]["rank_X"]
    return Decided(r >= v["d_k"], f"exact: rank X = {r}, d_k = {v['d_k']}")


def _wv_generic_rank(v) -> Decided:
    """rank(X W_V) = min(rank X, d_k)"""
    X = exact_matrix(v["X"].rows())
    W_V = exact_matrix(v["weights"].heads[0][2].rows(), "W_V")
    r, m = rank_of_product(X, W_V), min(v["c"]["rank_X"], v["d_k"])
    return Decided(r == m, f"exact: rank(X W_V) = {r}, min(rank X, d_k) = {m} (the first head; W_V as the float64 "
                           "values it holds)")


def _wo_full_row_rank(v) -> Decided:
    """rank W_O = d_k"""
    r = rank(exact_matrix(v["weights"].heads[0][3].rows(), "W_O"))
    return Decided(r == v["d_k"], f"exact: rank W_O = {r}, d_k = {v['d_k']} (the first head)")


@functools.cache
def _two_token_identity() -> tuple[bool, bool]:
    return RC_PAPER.antisymmetric_scores_identity()


def _first_head_antisymmetric(v) -> bool:
    """alpha_1 = 1 (W_Q W_K^T antisymmetric), exactly; a float64 product certainly not antisymmetric (beyond its
    rounding bound d_k u |W_Q| |W_K|^T, with a factor 4 to spare) is not, without the exact product"""
    Q, K = v["heads"][0].W_Q, v["heads"][0].W_K
    M = Q @ K.T
    bound = 4 * Q.shape[1] * np.finfo(float).eps * (np.abs(Q) @ np.abs(K).T)
    if np.any(np.abs(M + M.T) > bound + bound.T):
        return False
    return bool(_alphas(v)[0] == 1)


def _alpha_independent_literal(v) -> Decided:
    """dim R_h = min(rank X, d_k) at the head's own alpha_h (the first head)"""
    n, dk = v["X"].shape[0], v["d_k"]
    if n == 2 and dk >= 2 and v["c"]["rank_X"] == 2 and _first_head_antisymmetric(v):
        anti, equal_rows = _two_token_identity()
        if anti and equal_rows:
            return Decided(False, "exact: n = 2 and alpha_1 = 1 (W_Q W_K^T antisymmetric, exactly): the scores are "
                                  "antisymmetric and both softmax rows are equal, so rank A_1 = 1 and dim R_1 <= 1 < 2 "
                                  f"= min(rank X, d_k) (rank X = 2, d_k = {dk})",
                           robust=RobustSet(
                               where="the whole slice n = 2, alpha_h = 1 (every X of rank 2, every weight with "
                                     "W_Q W_K^T antisymmetric)",
                               measure="positive (full) measure within the alpha_h = 1 slice, since the statement "
                                       "quantifies for each alpha_h; the slice itself is a null set of the full "
                                       "weight space",
                               why="S = X M X^T is antisymmetric for every X (symbolic size) and both rows of "
                                   "softmax([[0, m], [-m, 0]]) are equal for every real m (sympy identities), so "
                                   "dim R_h <= 1 < 2 for every X of rank 2 and every weight with this alpha_h"))
    return RC_PAPER.DIM_IS_MIN(v)


def _save(user, v) -> dict:
    return {**user.record(("X",)), **v["weights"].strings()}


_ARITH = ("certified ranks: lower bounds from mpmath iv minors (above the size the mpmath path accepts: minors of "
          "double-precision midpoint-radius enclosures on BLAS proved non-singular), upper bounds from structure "
          "(exact rank of X over Q); X enters exactly, the weights as the float64 values they hold")


def _form(note: str = "") -> InstanceForm:
    return InstanceForm(takes=("X", "weights"), build=user_heads_instance, save=_save, arithmetic=_ARITH, note=note,
                        sites=("attention",))


def _rank_le_dim_sum(v) -> Decided:
    """rank MHA(X) <= dim(R_1 + ... + R_H)"""
    (lm, hm), (ls, hs) = v["c"]["rank_mha"], v["c"]["dim_sum_R"]
    return _decide(hm <= ls, lm > hs, v, "rank MHA(X) <= dim(R_1 + ... + R_H)")


def _rank_is_min_n_dim_sum(v) -> Decided:
    """rank MHA(X) = min(n, dim(R_1 + ... + R_H))"""
    n = v["X"].shape[0]
    (lm, hm), (ls, hs) = v["c"]["rank_mha"], v["c"]["dim_sum_R"]
    lo_t, hi_t = min(n, ls), min(n, hs)
    return _decide(lm == hm == lo_t == hi_t, hm < lo_t or lm > hi_t, v, "rank MHA(X) = min(n, dim(R_1 + ... + R_H))")


def _attention_invertible(v) -> Decided:
    """rank A_h = n for every head"""
    n = v["X"].shape[0]
    A = v["c"]["attention_rank"]
    return _decide(all(lo == n for lo, _ in A), any(hi < n for _, hi in A), v, f"rank A_h = n = {n} for every head")


def _alpha_mha_defined(v) -> Decided:
    """alpha_MHA = 1 - rank MHA / (H max_h dim R_h) is defined (max_h dim R_h > 0)"""
    R = v["c"]["dim_R"]
    return _decide(max(lo for lo, _ in R) > 0, all(hi == 0 for _, hi in R), v, "max_h dim R_h > 0 (alpha_MHA defined)")


def _no_alignment(v) -> Decided:
    """dim(R_1 + ... + R_H) = sum_h dim R_h (the head subspaces are independent)"""
    c = v["c"]
    (ls, hs), R = c["dim_sum_R"], c["dim_R"]
    slo, shi = sum(lo for lo, _ in R), sum(hi for _, hi in R)
    return _decide(ls == hs == slo == shi, hs < slo or ls > shi, v, "dim(R_1 + ... + R_H) = sum_h dim R_h")


def _alpha_mha_zero(v) -> Decided:
    """alpha_MHA = 0: rank MHA(X) = H max_h dim R_h"""
    c, H = v["c"], v["H"]
    (lm, hm), R = c["rank_mha"], c["dim_R"]
    mlo, mhi = max(lo for lo, _ in R), max(hi for _, hi in R)
    return _decide(mlo == mhi > 0 and lm == hm == H * mlo, mlo > 0 and (hm < H * mlo or lm > H * mhi), v,
                   "alpha_MHA = 0 (rank MHA = H max_h dim R_h)")


# The handlers of §6's predicate objects for a user's X and softmax heads (and a model's attention site): the same
# objects the paper's claims declare (theorems.paper.rank_contraction), decided from certified ranks here.
for _pred, _handler in ((RC_PAPER.N_GT_DK, _n_gt_dk), (RC_PAPER.RANK_A_MIN, _attention_rank_min),
                        (RC_PAPER.RANK_IS_DIM_SUM, _rank_is_dim_sum), (RC_PAPER.SUBADDITIVE, _subadditive),
                        (RC_PAPER.SOME_HEAD_NONZERO, _some_head_nonzero), (RC_PAPER.ALPHA_IN_RANGE, _alpha_in_range),
                        (RC_PAPER.CONTRACTS, _alpha_positive), (RC_PAPER.SUM_DIMS_DROP, _sum_dims_drop),
                        (RC_PAPER.DIRECTIONAL, _directional), (RC_PAPER.FIXED_WV_WO, _fixed_wv_wo),
                        (RC_PAPER.R_H_MOVES, _r_h_moves), (RC_PAPER.INVERTIBLE_ATTENTION, _invertible_attention),
                        (RC_PAPER.DIM_IS_DK, _dim_is_dk), (RC_PAPER.RANK_X_GE_DK, _rank_x_ge_dk),
                        (RC_PAPER.WV_GENERIC_RANK, _wv_generic_rank), (RC_PAPER.WO_FULL_ROW_RANK, _wo_full_row_rank),
                        (RC_PAPER.DIM_IS_MIN, _dim_is_min)):
    _pred.register(HeadsInput)(_handler)

#: (claim id, reading key) -> how a user's input becomes an instance; the claims' own predicate objects decide it
#: through the handlers above, from certified ranks of the user's softmax heads (the ledger's instances use exact 2^k
#: softmax heads instead)
INSTANCE_FORMS = {
    ("RC.attention-rank", "literal"): _form(),
    ("RC.rank-equals-sum", "literal"): _form(),
    ("RC.subadditivity", "literal"): _form(),
    ("RC.alpha-mha", "literal"): _form(),
    ("RC.contraction-mechanism", "literal"): _form(),
    ("RC.specialisation-contraction", "literal"): _form(),
    ("RC.orientation", "literal"): _form(),
    ("RC.dim-dk", "literal"): _form(note="the first head"),
    ("RC.dim-dk", "rank-X-at-least-d_k"): _form(note="the first head"),
    ("RC.dim-dk", "generic-weights"): _form(note="the first head"),
    ("RC.prop63", "literal"): replace(_form(note="the first head"), hypotheses={}, conclusion=RC_PAPER.DIM_IS_MIN),
    ("RC.rank-equals-sum", "corrected"): replace(_form(), hypotheses={}, conclusion=_rank_le_dim_sum),
    ("RC.rank-equals-sum", "generic-value"): replace(_form(), hypotheses={}, conclusion=_rank_is_min_n_dim_sum),
    ("RC.attention-rank", "corrected"): replace(_form(), hypotheses={}, conclusion=_attention_invertible),
    ("RC.alpha-mha", "defined-everywhere"): replace(_form(), hypotheses={}, conclusion=_alpha_mha_defined),
    ("RC.alpha-mha", "zero-without-alignment"): replace(
        _form(), hypotheses={"no alignment (dim sum R_h = sum dim R_h)": _no_alignment}, conclusion=_alpha_mha_zero),
    ("RC.alpha-independent", "as-proved"): replace(
        _form(note="the first head, at its own alpha_h"), hypotheses={RC_PAPER.N_GT_DK.name: RC_PAPER.N_GT_DK},
        conclusion=RC_PAPER.DIM_IS_MIN),
    ("RC.prop63", "algebraic-genericity"): _form(note="the first head"),
    ("RC.alpha-independent", "literal"): replace(
        _form(note="the first head, at its own alpha_h; n = 2 with alpha_h = 1 (W_Q W_K^T antisymmetric) is the slice "
                   "where the reading fails identically"), hypotheses={}, conclusion=_alpha_independent_literal),
}
