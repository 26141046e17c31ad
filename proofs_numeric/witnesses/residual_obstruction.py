r"""Certified witness for Thm 5.3: :math:`\operatorname{rank}(X^\star_r+\mathrm{MHA}(X^\star_r))=r+1`.

:math:`X^\star_r=\sum_{i\le r}e_if_i^\top`. Weights are seeded float64 draws taken as the
exact dyadic rationals they store. The certificate:

* lower bound: a (r+1) x (r+1) minor of F(X*_r), evaluated in mpmath ``iv`` at ``dps``
  digits (softmax through interval exp), whose interval determinant excludes 0;
* upper bound, from structure: rows i > r of X*_r are zero, so their attention scores
  are all 0, their attention rows are uniform, and rows i > r of F coincide; with the
  first r rows that is at most r + 1 distinct rows.

The exact attention rows of X*_1 = e_1 f_1^T: row 1 is
:math:`(e^{s_h},1,\dots,1)/(e^{s_h}+n-1)` with :math:`s_h=(W_QW_K^\top)_{11}/\sqrt{d_k}`,
and every other row is :math:`\mathbf 1^\top/n`.

Examples
========
>>> w = witness(n=4, d=5, H=2, d_k=2, r=1, dps=50)
>>> w["value"], w["certified"]
([2, 2], True)
"""
from __future__ import annotations

from typing import Any

import mpmath
import numpy as np
import sympy

from proofs_numeric.core.certify import certified_rank_lower_bound, interval_size_check
from proofs_numeric.core.float_hints import numerical_rank
from proofs_numeric.core.transformer import Head, attention, mha, workdps
from proofs_numeric.witnesses.dong_collapse import no_rank_collapse
from theorems.exact import transformer as T
from theorems.exact.blas_runtime import single_threaded_blas
from theorems.exact.certified_rank import certified_rank
from theorems.exact.input import BadInput
from theorems.exact.instances import Shape
from theorems.exact.linalg import rank
from theorems.exact.reader import matrix_from
from theorems.exact.residual import F_uniform
from theorems.framework import CheckContext, Decided, Evidence, InstanceForm, Predicate, interval_witness
from theorems.paper import residual_obstruction as RRO_PAPER

__all__ = ["witness", "certify_shapes", "WITNESS_SHAPES", "random_heads", "exact_attention_rows_rank1", "EVIDENCE",
           "INSTANCE_FORMS", "user_instance", "rank_rises"]

#: the numeric witness's shapes, per shape regime: single and multi-head, d_k < d and d_k = d
WITNESS_SHAPES = {"n<d": [Shape(n=3, d=5, H=1, d_k=5), Shape(n=4, d=6, H=2, d_k=3)],
          "n=d": [Shape(n=4, d=4, H=1, d_k=4), Shape(n=5, d=5, H=2, d_k=2)],
          "n>d": [Shape(n=6, d=4, H=2, d_k=2), Shape(n=7, d=3, H=1, d_k=3)]}


def random_heads(d: int, H: int, d_k: int, seed: int = 0, scale: float = 1.0) -> list[Head]:
    """Seeded Gaussian heads with entries N(0, scale^2 / d) (float64; exact dyadic values)."""
    rng = np.random.default_rng(seed)
    s = scale / np.sqrt(d)
    return [Head(rng.normal(0, s, (d, d_k)), rng.normal(0, s, (d, d_k)), rng.normal(0, s, (d, d_k)),
                 rng.normal(0, s, (d_k, d))) for _ in range(H)]


def x_star(n: int, d: int, r: int) -> np.ndarray:
    X = np.zeros((n, d))
    for i in range(r):
        X[i, i] = 1.0
    return X


def exact_attention_rows_rank1(n: int, head: Head) -> list[list[sympy.Expr]]:
    """The exact attention matrix of X*_1 = e_1 f_1^T for one head (sympy, with exp)."""
    d = np.asarray(head.W_Q).shape[0]
    X = sympy.zeros(n, d)
    X[0, 0] = 1  # X*_1 = e_1 f_1^T; the float64 weights enter as the exact rationals they store
    return T.softmax_rows(T.SYMPY, T.scores(T.SYMPY, X, head)).tolist()


def witness(n: int, d: int, H: int, d_k: int, r: int = 1, dps: int = 50, seed: int = 0) -> dict:
    """Certified rank of F(X*_r) = X*_r + MHA(X*_r); ``{value, certified, dps, residual, agreed_at_dps, ...}``."""
    if not 1 <= r < min(n, d):
        raise ValueError(f"r = {r} must satisfy 1 <= r < min(n, d) = {min(n, d)} (rank-deficient X*_r)")
    if d % 1 or d_k < 1:
        raise ValueError("d_k must be a positive integer")
    heads = random_heads(d, H, d_k, seed)
    X = x_star(n, d, r)
    iv = mpmath.iv
    with workdps(iv, dps):
        M = mha(X, heads, backend="iv", dps=dps)
        Xi = iv.matrix(X.tolist())
        F = Xi + M
        rows = [[F[i, j] for j in range(d)] for i in range(n)]
    lb = certified_rank_lower_bound(rows, dps)
    upper = min(r + 1, n, d)
    # structure check: rows r..n-1 of F must overlap (they are equal in exact arithmetic)
    same = all(rows[i][j].a <= rows[r][j].b and rows[r][j].a <= rows[i][j].b for i in range(r, n) for j in range(d))
    Fmp = mha(X, heads, backend="mp", dps=dps)
    F2 = mha(X, heads, backend="mp", dps=2 * dps)
    with workdps(mpmath.mp, 2 * dps):
        residual = max(abs(Fmp[i, j] - F2[i, j]) for i in range(n) for j in range(d))
    out = {"value": [lb["lower"], upper], "certified": lb["lower"] == upper and same, "dps": dps,
           "agreed_at_dps": dps, "residual": mpmath.nstr(residual, 5), "minor": lb,
           "shape": {"n": n, "d": d, "H": H, "d_k": d_k, "r": r, "seed": seed},
           "arithmetic": f"mpmath iv at {dps} digits (lower bound); structure (upper bound)"}
    if r == 1:
        A = exact_attention_rows_rank1(n, heads[0])
        out["attention_rows_head0_exact"] = [[str(v) for v in row] for row in A[:2]]
    return out


def certify_shapes(dps: int = 50, quick: bool = False) -> list[Evidence]:
    out = []
    for regime, shapes in WITNESS_SHAPES.items():
        for (n, d, H, dk) in shapes[: 1 if quick else None]:
            rs = [1] if quick else list(range(1, min(n, d)))
            for r in rs:
                w = witness(n, d, H, dk, r, dps=dps, seed=n * 100 + d * 10 + r)
                lo, hi = w["value"]
                out.append(interval_witness(
                    f"n={n}, d={d}, H={H}, d_k={dk}, r={r}: rank F(X*_r) = {lo} = r + 1 certified "
                    f"(minor det in [{w['minor']['det'][0]}, {w['minor']['det'][1]}])" if w["certified"]
                    else f"n={n}, d={d}, H={H}, d_k={dk}, r={r}: only {lo} <= rank <= {hi}",
                    True if w["certified"] else None, regime=regime, arithmetic=w["arithmetic"],
                    numbers={"n": n, "d": d, "H": H, "d_k": dk, "r": r, "lower": lo, "upper": hi},
                    reason=None if w["certified"] else "the rank enclosure did not close at this precision"))
    return out


def _witnesses(ctx: CheckContext) -> list[Evidence]:
    """RRO.main: the certified witnesses X*_r of every shape and rank r."""
    return certify_shapes(dps=ctx.dps, quick=ctx.quick)


def _rank_one_witnesses(ctx: CheckContext) -> list[Evidence]:
    """RRO.witness: the certified witnesses of rank r = 1 (the paper's X* = e_1 f_1^T)."""
    return [e for e in certify_shapes(dps=ctx.dps, quick=ctx.quick) if e.numbers.get("r") == 1]


#: numeric evidence attached by (claim id, reading key) (collected by :mod:`proofs_numeric.witnesses.evidence`)
EVIDENCE = {
    ("RRO.main", "literal"): [_witnesses],
    # the same statement in the abstract's words: the same evidence (one statement, one truth)
    ("RRO.generic-obstruction", "literal"): [_witnesses],
    ("RRO.generic-obstruction", "in-depth"): [lambda ctx: no_rank_collapse(ctx, "attention_skip")],
    ("RRO.witness", "literal"): [_rank_one_witnesses],
    ("RRO.witness", "a-witness-exists"): [_rank_one_witnesses],
}


# --- a user's X and weights: the claims' own hypotheses and conclusion, decided in interval arithmetic ----------

class AttentionInput(dict):
    """A user's X and weights (or a model's attention site), for the interval handlers of Theorem 5.3's predicates:
    ``{X, rank_X, rank_X_how, n, d, heads, weights, dps}``."""


def user_instance(user) -> AttentionInput:
    """{X, rank_X, heads, weights, dps} from --X and the weights (--weights or seeded), exactly: X enters the
    intervals as exact rationals (rounded once, outward), the weights as the float64 values they hold. The size of
    the interval path is checked by the conclusion (the costly predicate), so a failed premise is said at no cost."""
    X, W = user.matrix("X"), user.weights
    if W is None:
        raise BadInput("this claim needs weights: --weights W.npz or --heads H [--weights-seed N] (seeded Gaussian)")
    n, d = X.shape
    if W.d != d:
        raise BadInput(f"--weights: d = {W.d} in the weights but X has d = {d} columns")
    rX = certified_rank(X.kernel(), seed=user.seed if user.seed is not None else 0)
    return AttentionInput({"X": X, "rank_X": rX.lower if rX.certified else None, "rank_X_how": str(rX), "n": n,
                           "d": d, "heads": [Head(*m) for m in W.float64_heads("--weights")], "weights": W,
                           "dps": user.dps})


def _rank_deficient(x) -> Decided:
    """rank X < min(n, d)"""
    r, m = x["rank_X"], min(x["n"], x["d"])
    if r is None:
        return Decided(None, f"undecided: {x['rank_X_how']}")
    return Decided(r < m, f"exact: rank X = {r} {'<' if r < m else '='} min(n, d) = {m} ({x['rank_X_how']})")


#: columns of W_V^h W_O^h tried for an off-diagonal non-zero entry before the whole product is formed
_SCALAR_PROBE_COLUMNS = 3


def _not_scalar(head) -> bool:
    """A certificate that W_V W_O != c I for every c: an off-diagonal non-zero entry in one of its first columns,
    each column W_V (W_O e_j) computed exactly with d d_k products (the whole product costs d^2 d_k)."""
    WV, WO = head[2].rows(), head[3].rows()
    d, dk = len(WV), len(WO)
    for j in range(min(d, _SCALAR_PROBE_COLUMNS)):
        col = [WO[k][j] for k in range(dk)]
        if any(i != j and sum(WV[i][k] * col[k] for k in range(dk)) != 0 for i in range(d)):
            return True
    return False


def _generic_weights(x) -> Decided:
    """the weights lie outside the proper algebraic subset of weight space where rank F(X) <= rank X"""
    W = x["weights"]
    if any(_not_scalar(h) for h in W.heads):  # one head with W_V W_O != c I: outside the known exceptional set
        return Decided(None, "undecided: genericity is a property of almost every weight, not of one point (these "
                             "weights are not in the known exceptional set W_V W_O = c I: an off-diagonal entry of "
                             "some W_V^h W_O^h is non-zero, exactly)")
    cI = []
    for M in W.value_output():
        c = M[0, 0]
        cI.append(M.is_square and M == c * sympy.eye(M.shape[0]))
    if all(cI):
        return Decided(False, "W_V^h W_O^h = c_h I in every head: F(X) = (I + sum_h c_h A_h) X, so rank F(X) <= rank X "
                              "for every X (a point of the exceptional algebraic set)")
    return Decided(None, "undecided: genericity is a property of almost every weight, not of one point (these weights "
                         "are not in the known exceptional set W_V W_O = c I)")


def _row_bound(x) -> tuple[int, str]:
    """An exact upper bound on rank F(X): row(X + sum_h A_h X W_h) lies in row X + sum_h row(X W_h)."""
    Xs = x["X"].sympy()
    stack = Xs.col_join(sympy.Matrix.vstack(*[Xs * M for M in x["weights"].value_output()]))
    r = rank(stack)
    return min(r, x["n"]), (f"rank F(X) <= min(n, rank[X; X W_V^1 W_O^1; ...; X W_V^H W_O^H]) = {min(r, x['n'])} "
                            "(row F(X) lies in row X + sum_h row(X W_V^h W_O^h); exact)")


def _F_rank(x) -> tuple[int | None, int | None, str]:
    """(lower, upper, how) for rank F(X), F(X) = X + MHA(X): exact when the scores vanish (uniform attention), else
    a certified interval lower bound and the exact row-space upper bound."""
    if "F_rank" in x:
        return x["F_rank"]
    W = x["weights"]
    if W.scores_vanish():
        F = F_uniform(x["X"].sympy(), W.value_output())
        r = rank(F)
        out = (r, r, f"exact: W_Q W_K^T = 0, so attention is uniform (A = J/n) and F(X) is rational: rank F(X) = {r}")
    else:
        dps = x["dps"]
        iv = mpmath.iv
        Xq = x["X"].rows()
        n, d = x["n"], x["d"]
        with workdps(iv, dps):
            M = mha(Xq, x["heads"], backend="iv", dps=dps)
            cx = T.iv(dps)
            F = [[cx.num(Xq[i][j]) + M[i, j] for j in range(d)] for i in range(n)]
        low = certified_rank_lower_bound(F, dps)
        hi, hi_how = _row_bound(x)
        lo = min(low["lower"], hi)
        how = (f"rank F(X) >= {lo} (an interval determinant of a {lo} x {lo} minor excludes 0, mpmath iv at {dps} "
               f"digits); {hi_how}")
        out = (lo, hi, how)
    x["F_rank"] = out
    return out


def rank_rises(x) -> Decided:
    """rank(X + MHA(X)) > rank(X)"""
    r = x["rank_X"]
    if r is None:
        return Decided(None, f"undecided: rank X is not certified ({x['rank_X_how']})")
    W = x["weights"]
    try:
        interval_size_check(x["n"], x["d"], W.H, W.d_k, x["dps"])
    except BadInput as e:
        return _rank_rises_midrad(x, r, str(e))
    lo, hi, how = _F_rank(x)
    if lo > r:
        return Decided(True, f"certified: rank F(X) >= {lo} > rank X = {r}; {how}")
    if hi <= r:
        return Decided(False, f"certified: rank F(X) <= {hi} <= rank X = {r}; {how}")
    return Decided(None, f"undecided: rank F(X) in [{lo}, {hi}] and rank X = {r}: softmax is transcendental, so "
                         f"equality is not certified by intervals; {how}")


def midrad_F(x):
    """F(X) = X + MHA(X) enclosed in the midpoint-radius context on BLAS (:data:`theorems.exact.transformer.MIDRAD`:
    float64 midpoints, radii that bound every rounding a priori), X entering exactly (a float64 array as it is,
    rationals rounded outward), the heads' float64 weights exactly; on one BLAS thread."""
    data = getattr(x["X"], "data", None)
    Xin = data if isinstance(data, np.ndarray) and data.dtype.kind == "f" else x["X"].rows()
    with single_threaded_blas():
        Xm = T.MIDRAD.asmatrix(Xin)
        return Xm + T.mha(T.MIDRAD, Xm, x["heads"])


def _rank_rises_midrad(x, r: int, refused: str) -> Decided:
    """rank F(X) > rank X where the mpmath interval path refuses the size (``refused``): F(X) enclosed in double
    precision (:func:`midrad_F`), its rank bounded below by a minor proved non-singular over the enclosure
    (:func:`proofs_numeric.core.certify.midrad_rank_lower_bound`), above by min(n, d) (F(X) is n x d). Where double
    precision cannot decide, undecided with the enclosure's width (the exact row-space bound of the small path is not
    formed: at these sizes it is a rank over Q of an (H + 1) n x d matrix of exact products)."""
    from proofs_numeric.core.certify import midrad_rank_lower_bound
    n, d = x["n"], x["d"]
    shape_hi = min(n, d)
    if shape_hi <= r:
        return Decided(False, f"certified: rank F(X) <= min(n, d) = {shape_hi} <= rank X = {r} (F(X) is n x d; no "
                              "enclosure needed)")
    try:
        F = midrad_F(x)
    except (T.MidradRangeError, ValueError) as e:
        return Decided(None, f"undecided: the double-precision enclosure of F(X) cannot be formed ({e}); the mpmath "
                             f"interval path refuses this size ({refused})")
    width = float(F.r.max()) if F.r.size else 0.0
    with single_threaded_blas():
        b = midrad_rank_lower_bound(F, shape_hi)
    how = (f"rank F(X) >= {b['lower']} (F(X) = X + MHA(X) enclosed in double-precision midpoint-radius arithmetic "
           f"on BLAS, largest radius {width:.2g}; {b['how']})")
    if b["lower"] > r:
        return Decided(True, f"certified: rank F(X) >= {b['lower']} > rank X = {r}; {how}")
    return Decided(None, f"undecided: {how}, rank X = {r}: at this width double precision does not certify a minor "
                         f"of size {r + 1} (largest radius {width:.2g}), and rank F(X) <= {shape_hi} only")


def _distinct_tokens(x) -> bool:
    """distinct tokens (identical rows stay identical: a null subset)"""
    rows = x["X"].fractions()
    return len(set(rows)) == len(rows)


def _float_hint(user, x) -> dict:
    """The float64 numerical rank of X + MHA(X) (a hint; omitted with the reason when float64 overflows)."""
    Xf, why = x["X"].float64()
    if Xf is None:
        return {"X + MHA(X)": {"skipped": why + "; the certified path above does not use float64"}}
    try:
        with np.errstate(all="ignore"):
            F = Xf + mha(Xf, x["heads"], backend="float64")
    except (OverflowError, FloatingPointError, ValueError) as e:
        return {"X + MHA(X)": {"skipped": f"the float64 forward overflows ({type(e).__name__}: {str(e)[:100]}); the "
                                          "certified path above does not use float64"}}
    if not np.all(np.isfinite(F)):
        return {"X + MHA(X)": {"skipped": "the float64 forward overflowed (entries beyond 1.8e308); the certified path "
                                          "above does not use float64"}}
    return {"X + MHA(X)": numerical_rank(F)}


def _save(user, x) -> dict:
    return {**user.record(("X",)), **x["weights"].strings()}


_ARITH = ("exact rank of X over Q (certified); rank F(X) exact when attention is uniform, else a certified interval "
          "lower bound (mpmath iv; above the size that path accepts, a minor of a double-precision midpoint-radius "
          "enclosure on BLAS proved non-singular) against the exact row-space upper bound (above that size: min(n, d))")
#: the InstanceForm arguments the readings share (keyword arguments of mixed types, hence Any)
_RRO: dict[str, Any] = dict(takes=("X", "weights"), build=user_instance, hints=_float_hint, save=_save,
                            arithmetic=_ARITH, sites=("attention",))

# The handlers of Theorem 5.3's predicate objects for a user's X and weights (and a model's attention site): the same
# objects the paper's claims declare (theorems.paper.residual_obstruction), decided here in interval arithmetic.
RRO_PAPER.RANK_DEFICIENT.register(AttentionInput)(_rank_deficient)
RRO_PAPER.RANK_R_DEFICIENT.register(AttentionInput)(_rank_deficient)
# costly here in the worst case: it may form every head's W_V^h W_O^h exactly (d^2 d_k rational products per head:
# 187 s per attention site of MiniLM, d = 385; its exact probe usually settles it in 0.2 s), so decide() runs it
# last and skips it once the rank of X has failed the premise
RRO_PAPER.GENERIC_WEIGHTS.register(AttentionInput, cost=Predicate.COSTLY)(_generic_weights)
RRO_PAPER.DISTINCT_TOKENS.register(AttentionInput)(_distinct_tokens)
RRO_PAPER.RANK_RISES.register(AttentionInput)(rank_rises)
RRO_PAPER.OUTSIDE_BAD_SET.register(AttentionInput)(rank_rises)


# --- RRO.generic-obstruction (the abstract's restatement of Thm 5.3), RRO.witness (X* = e_1 f_1^T), and
# RRO.near-zero-weights at W_V = 0: the same instance and the same certified rank of F(X) ---

def _no_mlp(x) -> Decided:
    """the map is F(X) = X + MHA(X): attention and the residual connection, no MLP"""
    return Decided(True, "by construction: F(X) = X + MHA(X) is computed, no MLP")


def star_instance(user) -> AttentionInput:
    """X* = e_1 f_1^T (n x d: n from --n, d from the weights) with the user's weights (--weights W.npz)."""
    W = user.weights
    if W is None:
        raise BadInput("RRO.witness needs weights: --weights W.npz (d is the weights'), and --n")
    n = user.n
    if n is None or n < 1:
        raise BadInput("RRO.witness needs --n N (the number of tokens of X* = e_1 f_1^T)")
    d = W.d
    if d < 2:
        raise BadInput(f"RRO.witness: X* = e_1 f_1^T needs d >= 2 (rank 1 < min(n, d)); the weights have d = {d}")
    X = matrix_from(x_star(n, d, 1), "X*", "e_1 f_1^T")
    return AttentionInput({"X": X, "rank_X": 1, "rank_X_how": "exact: X* = e_1 f_1^T has rank 1", "n": n, "d": d,
                           "heads": [Head(*m) for m in W.float64_heads("--weights")], "weights": W,
                           "dps": user.dps})


def _n_at_least_two(x) -> Decided:
    """at least two tokens"""
    return Decided(x["n"] >= 2, f"exact: n = {x['n']}")


def _certified_F_rank(x) -> tuple[int, int, str] | Decided:
    W = x["weights"]
    try:
        interval_size_check(x["n"], x["d"], W.H, W.d_k, x["dps"])
    except BadInput as e:
        return Decided(None, f"undecided: not checked at this size ({e})")
    lo, hi, how = _F_rank(x)
    assert lo is not None and hi is not None
    return lo, hi, how


def _rank_f_star_two(x) -> Decided:
    """rank(X* + MHA(X*)) = 2"""
    got = _certified_F_rank(x)
    if isinstance(got, Decided):
        return got
    lo, hi, how = got
    # the columns of F(X*) lie in span{e_1, 1_n}: every A_h e_1 is a_h e_1 + (1 - e_1) / n (only the first row of X*
    # is non-zero, so every other row of A_h is uniform), hence rank F(X*) <= 2 exactly
    hi = min(hi, 2)
    if lo >= 2:
        return Decided(True, f"certified: rank F(X*) >= {lo}, and <= 2 (its columns lie in span{{e_1, 1}}); {how}")
    if hi < 2:
        return Decided(False, f"certified: rank F(X*) <= {hi} < 2; {how}")
    return Decided(None, f"undecided: rank F(X*) in [{lo}, {hi}]; {how}")


def _wv_zero(x) -> Decided:
    """every head's W_V is the zero matrix"""
    bad = [h for h, m in enumerate(x["weights"].heads) if any(v != 0 for row in m[2].fractions() for v in row)]
    return Decided(not bad, "exact: W_V = 0 in every head" if not bad else f"exact: W_V != 0 in head(s) {bad}")


def _ranks_against_X(x):
    """(rank X, lower, upper, how) for rank F(X) against the certified rank of X, or the Decided that says why
    there is no comparison (rank X not certified, or F(X)'s rank not bounded)."""
    r = x["rank_X"]
    if r is None:
        return Decided(None, f"undecided: rank X is not certified ({x['rank_X_how']})")
    got = _certified_F_rank(x)
    return got if isinstance(got, Decided) else (r, *got)


def _rank_kept(x) -> Decided:
    """rank(X + MHA(X)) = rank X"""
    got = _ranks_against_X(x)
    if isinstance(got, Decided):
        return got
    r, lo, hi, how = got
    if lo == hi == r:
        return Decided(True, f"certified: rank F(X) = {r} = rank X; {how}")
    if lo > r or hi < r:
        return Decided(False, f"certified: rank F(X) in [{lo}, {hi}], rank X = {r}; {how}")
    return Decided(None, f"undecided: rank F(X) in [{lo}, {hi}] and rank X = {r}; {how}")


def _rank_drops(x) -> Decided:
    """rank(X + MHA(X)) < rank X"""
    got = _ranks_against_X(x)
    if isinstance(got, Decided):
        return got
    r, lo, hi, how = got
    if hi < r:
        return Decided(True, f"certified: rank F(X) <= {hi} < rank X = {r}; {how}")
    if lo >= r:
        return Decided(False, f"certified: rank F(X) >= {lo} >= rank X = {r}; {how}")
    return Decided(None, f"undecided: rank F(X) in [{lo}, {hi}] and rank X = {r}; {how}")


def _full_rank_spread(x) -> Decided:
    """rank X = min(n, d) and the tokens are not all equal"""
    r, m = x["rank_X"], min(x["n"], x["d"])
    if r is None:
        return Decided(None, f"undecided: {x['rank_X_how']}")
    rows = x["X"].fractions()
    spread = len(set(rows)) > 1
    return Decided(r == m and spread, f"exact: rank X = {r}, min(n, d) = {m}; the rows of X are "
                                      f"{'not all equal' if spread else 'all equal (R(X) = 0)'}")


def _mha_of_multiple(x, c: int):
    """MHA(c X) in interval arithmetic (X exact, the weights as the float64 values they hold)."""
    Xq = [[c * v for v in row] for row in x["X"].rows()]
    return mha(Xq, x["heads"], backend="iv", dps=x["dps"])


def _keeps_full_rank(x) -> Decided:
    """rank(X + MHA(X)) = min(n, d) and the rows of X + MHA(X) are not all equal"""
    got = _certified_F_rank(x)
    if isinstance(got, Decided):
        return got
    lo, hi, how = got
    m = min(x["n"], x["d"])
    if hi < m:
        return Decided(False, f"certified: rank F(X) <= {hi} < min(n, d) = {m}; {how}")
    if lo < m:
        return Decided(None, f"undecided: rank F(X) in [{lo}, {hi}], min(n, d) = {m}; {how}")
    if m >= 2:  # rank F(X) >= 2: its rows are not all equal, so R(F(X)) != 0
        return Decided(True, f"certified: rank F(X) = {m} = min(n, d) >= 2, so its rows are not all equal "
                             f"(R(F(X)) != 0); {how}")
    Xq = x["X"].rows()
    iv = mpmath.iv
    with workdps(iv, x["dps"]):
        M = _mha_of_multiple(x, 1)
        cx = T.iv(x["dps"])
        F = [[cx.num(Xq[i][j]) + M[i, j] for j in range(x["d"])] for i in range(x["n"])]
        apart = any(not (F[i][j].a <= F[0][j].b and F[0][j].a <= F[i][j].b) for i in range(x["n"])
                    for j in range(x["d"]))
    if apart:
        return Decided(True, f"certified: rank F(X) = {m} = min(n, d) and two rows of F(X) have disjoint "
                             f"enclosures (R(F(X)) != 0); {how}")
    return Decided(None, f"undecided: rank F(X) = {m} = min(n, d), but no two rows of F(X) are certified apart")


def _second_difference(x) -> tuple[bool | None, str]:
    """(whether MHA(2X) - 2 MHA(X) = 0, how): exact when attention is uniform (F is linear), else certified non-zero
    by an entry whose enclosure excludes 0 (equality is not certified by intervals)."""
    W = x["weights"]
    if W.scores_vanish():
        return True, ("exact: W_Q W_K^T = 0, so attention is uniform (A = J/n) and F(X) = X + (J/n) X sum_h W_V^h "
                      "W_O^h is linear: MHA(2X) - 2 MHA(X) = 0")
    try:
        interval_size_check(x["n"], x["d"], W.H, W.d_k, x["dps"])
    except BadInput as e:
        return None, f"undecided: not checked at this size ({e})"
    iv = mpmath.iv
    with workdps(iv, x["dps"]):
        M1, M2 = _mha_of_multiple(x, 1), _mha_of_multiple(x, 2)
        for i in range(x["n"]):
            for j in range(x["d"]):
                diff = M2[i, j] - 2 * M1[i, j]
                if diff.a > 0 or diff.b < 0:
                    lo, hi = mpmath.nstr(mpmath.mpf(diff.a), 8), mpmath.nstr(mpmath.mpf(diff.b), 8)
                    return False, (f"certified: [MHA(2X) - 2 MHA(X)]_{i + 1}{j + 1} in [{lo}, {hi}] excludes 0 "
                                   f"(mpmath iv at {x['dps']} digits): F(X) = X + MHA(X) is not affine on the "
                                   "segment t X, t in [0, 2], so d^2/dt^2 F(tX) != 0 at some t in (0, 2)")
    return None, ("undecided: every entry of MHA(2X) - 2 MHA(X) encloses 0; softmax is transcendental, so a zero is "
                  "not certified by intervals")


def _affine_along_ray(x) -> Decided:
    """MHA(2X) - 2 MHA(X) = 0 (F(X) = X + MHA(X) is affine on the segment t X, t in [0, 2])"""
    v, how = _second_difference(x)
    return Decided(v, how)


def _not_affine_along_ray(x) -> Decided:
    """MHA(2X) - 2 MHA(X) != 0"""
    v, how = _second_difference(x)
    return Decided(None if v is None else not v, how)


RRO_PAPER.RANK_DROPS.register(AttentionInput)(_rank_drops)
RRO_PAPER.FULL_RANK_SPREAD.register(AttentionInput)(_full_rank_spread)
RRO_PAPER.KEEPS_FULL_RANK.register(AttentionInput)(_keeps_full_rank)
RRO_PAPER.AFFINE_ALONG_RAY.register(AttentionInput)(_affine_along_ray)
RRO_PAPER.NOT_AFFINE_ALONG_RAY.register(AttentionInput)(_not_affine_along_ray)
def star_r_instance(user) -> AttentionInput:
    """--X, which must be X*_r = sum_{i <= r} e_i f_i^T (r = rank X < min(n, d)), with the user's weights."""
    x = user_instance(user)
    rows = x["X"].fractions()
    r = sum(1 for v in rows if any(v))
    ok = all(rows[i][j] == (1 if (i == j and i < r) else 0) for i in range(x["n"]) for j in range(x["d"]))
    if not ok or not 1 <= r < min(x["n"], x["d"]):
        raise BadInput("RRO.rank-r-witness: --X must be X*_r = sum_{i <= r} e_i f_i^T (ones at (1,1), ..., (r,r), "
                       "zeros elsewhere) with 1 <= r < min(n, d)")
    return x


# --- BLOCK.residual-model on a user's X: the deployed blocks against §2's X + Delta(X), exactly (sympy) ---

def _block_x(user) -> dict:
    X = user.matrix("X").sympy(48, "BLOCK.residual-model (LayerNorm's square roots kept exact)")
    bad = [i + 1 for i in range(X.shape[0]) if len(set(X.row(i))) == 1]
    if bad:
        raise BadInput(f"BLOCK.residual-model: rows {bad} of --X are constant; LayerNorm with eps = 0 is undefined "
                       "there")
    return {"X": X}


def _architecture(words: str):
    def fact(x) -> Decided:
        return Decided(True, f"by construction: {words}")
    fact.__doc__ = words
    return fact


def _block_is_paper_model(x) -> Decided:
    """the post-LN and the pre-LN blocks equal X + Delta(X) at X (uniform attention, W_V W_O = I, FFN = 0)"""
    X = x["X"]
    paper = RRO_PAPER.paper_block(X)
    post, pre = RRO_PAPER.post_ln_block(X), RRO_PAPER.pre_ln_block(X)
    same = [(name, all(sympy.simplify(a - b) == 0 for a, b in zip(M, paper))) for name, M in
            (("post-LN", post), ("pre-LN", pre))]
    words = "; ".join(f"{name}: {'equal' if ok else 'differs'}" for name, ok in same)
    return Decided(all(ok for _, ok in same), f"exact (sympy; square roots kept exact): X + Delta(X) against the "
                                              f"deployed blocks at X, uniform attention, W_V W_O = I, FFN = 0: {words}")


def _block_uniform(user) -> dict:
    x = _block_x(user)
    W = user.weights
    if W is None:
        raise BadInput("this reading needs weights: --weights W.npz or --heads H [--weights-seed N] (W_V W_O of "
                       "each head; the attention is taken uniform, W_Q = 0)")
    if W.d != x["X"].shape[1]:
        raise BadInput(f"--weights: d = {W.d} in the weights but X has d = {x['X'].shape[1]} columns")
    return {**x, "W_VO": W.value_output()}


def _attention_skip_is_model(x) -> Decided:
    """with FFN = 0, X + Delta(X) equals the suite's attention_skip block (block_forward 'attention_skip')"""
    X = x["X"]
    heads = T.uniform_heads(X.shape[1], x["W_VO"])
    model = X + T.mha(T.SYMPY, X, heads, scale=1)
    suite = sympy.Matrix(T.block_forward(T.SYMPY, X, T.Block(heads=heads), "attention_skip"))
    return Decided(model == suite, "exact over Q (uniform attention): X + MHA(X) " + ("=" if model == suite else "!=")
                   + " the suite's attention_skip block")


# --- DONG.non-expansive at a user's X: P is the first head's softmax attention A(X), D = X (Y = 0), in mpmath iv ---

def _pd_enclosures(x) -> dict:
    """{PX, X}: P X in interval arithmetic (P = A(X) of the first head), X as exact rationals."""
    if "PX" not in x:
        iv = mpmath.iv
        Xq = x["X"].rows()
        n, d = x["n"], x["d"]
        with workdps(iv, x["dps"]):
            A, _ = attention(Xq, x["heads"][0], backend="iv", dps=x["dps"])
            cx = T.iv(x["dps"])
            x["PX"] = [[sum((A[i, k] * cx.num(Xq[k][j]) for k in range(n)), iv.mpf(0)) for j in range(d)]
                       for i in range(n)]
    return x


def _fro2(M) -> Any:
    return sum((v * v for row in M for v in row), mpmath.iv.mpf(0))


def _centred(M) -> list:
    n = len(M)
    means = [sum((M[i][j] for i in range(n)), mpmath.iv.mpf(0)) / n for j in range(len(M[0]))]
    return [[M[i][j] - means[j] for j in range(len(M[0]))] for i in range(n)]


def _le(lhs, rhs, what: str) -> tuple[bool | None, str]:
    """Certified lhs <= rhs for two intervals (None when they overlap)."""
    words = f"{what}: [{mpmath.nstr(mpmath.mpf(lhs.a), 8)}, {mpmath.nstr(mpmath.mpf(lhs.b), 8)}] against " \
            f"[{mpmath.nstr(mpmath.mpf(rhs.a), 8)}, {mpmath.nstr(mpmath.mpf(rhs.b), 8)}]"
    if lhs.b <= rhs.a:
        return True, words
    if lhs.a > rhs.b:
        return False, words
    return None, words


def _softmax_is_stochastic(x) -> Decided:
    """P is row-stochastic"""
    return Decided(True, "by construction: P is the first head's softmax attention A(X) (positive entries, rows "
                         "summing to 1)")


def _nonexpansive_and_toward_center(x) -> Decided:
    """||P(X - Y)||_F <= ||X - Y||_F and ||R(P X)||_F <= ||R(X)||_F (Y = 0)"""
    _pd_enclosures(x)
    iv = mpmath.iv
    with workdps(iv, x["dps"]):
        cx = T.iv(x["dps"])
        X = [[cx.num(v) for v in row] for row in x["X"].rows()]
        a = _le(_fro2(x["PX"]), _fro2(X), "||P X||_F^2 against ||X||_F^2")
        b = _le(_fro2(_centred(x["PX"])), _fro2(_centred(X)), "||R(P X)||_F^2 against ||R(X)||_F^2")
    how = f"mpmath iv at {x['dps']} digits: {a[1]}; {b[1]}"
    if a[0] is False or b[0] is False:
        return Decided(False, f"certified: {how}")
    return Decided(True if a[0] and b[0] else None, ("certified: " if a[0] and b[0] else "undecided: ") + how)


def _toward_center_iv(x) -> Decided:
    """||R(P X)||_F <= ||R(X)||_F"""
    _pd_enclosures(x)
    iv = mpmath.iv
    with workdps(iv, x["dps"]):
        cx = T.iv(x["dps"])
        X = [[cx.num(v) for v in row] for row in x["X"].rows()]
        v, how = _le(_fro2(_centred(x["PX"])), _fro2(_centred(X)), "||R(P X)||_F^2 against ||R(X)||_F^2")
    return Decided(v, ("certified: " if v is not None else "undecided: ") + f"mpmath iv at {x['dps']} digits: {how}")


def _max_nonexpansive_iv(x) -> Decided:
    """||P D||_max <= ||D||_max (D = X)"""
    _pd_enclosures(x)
    iv = mpmath.iv
    with workdps(iv, x["dps"]):
        top = max(abs(v) for row in x["X"].rows() for v in row)
        worst = max((abs(v) for row in x["PX"] for v in row), key=lambda e: e.b)
        v, how = _le(worst, T.iv(x["dps"]).num(top), "max |(P X)_ij| against max |X_ij|")
    return Decided(v, ("certified: " if v is not None else "undecided: ") + f"mpmath iv at {x['dps']} digits: {how}")


# --- DONG.mlp-per-token on a user's X and weights: a ReLU MLP acts per token; MHA(X)_i moves with every token ---

def _per_token_instance(user) -> AttentionInput:
    x = user_instance(user)
    if x["n"] > 6:
        raise BadInput(f"DONG.mlp-per-token perturbs every token and certifies every row (n^2 d interval forwards); up "
                       f"to 6 tokens, X has {x['n']}")
    return x


def _mlp_per_token_attention_mixes(x) -> Decided:
    """MLP(X)_i = MLP(x_i) for every i (the MLP x -> ReLU(x W_V) W_O of the first head), and MHA(X)_i changes when any
    one token x_j is changed (for every i and j)"""
    Xs = x["X"].sympy()
    W = x["weights"]
    WV, WO = W.heads[0][2].sympy(), W.heads[0][3].sympy()

    def mlp(Y):
        return (Y * WV).applyfunc(lambda v: max(v, 0)) * WO
    whole = mlp(Xs)
    per = all(mlp(Xs.row(i)) == whole.row(i) for i in range(x["n"]))
    if not per:  # unreachable: the MLP acts on rows
        return Decided(False, "exact: MLP(X)_i != MLP(x_i) for some i")
    n, d = x["n"], x["d"]
    if W.scores_vanish():  # A = J/n: MHA(X)_i = (1/n) sum_k x_k sum_h W_V^h W_O^h, the same for every i
        M = sum(W.value_output()[1:], W.value_output()[0])
        moves = any(v != 0 for v in M)
        return Decided(moves, "exact: MLP(X)_i = MLP(x_i) for every i; uniform attention: MHA(X)_i = (1/n) sum_k x_k "
                              f"sum_h W_V^h W_O^h, which {'moves with every token' if moves else 'is 0 for every X'}")
    try:
        interval_size_check(n, d, W.H, W.d_k, x["dps"])
    except BadInput as e:
        return Decided(None, f"undecided: not checked at this size ({e})")
    iv = mpmath.iv
    rows = x["X"].rows()
    with workdps(iv, x["dps"]):
        base = mha(rows, x["heads"], backend="iv", dps=x["dps"])
        missing = []
        for j in range(n):
            outs = []
            for c in range(d):
                Xp = [list(r) for r in rows]
                Xp[j][c] = Xp[j][c] + 1
                outs.append(mha(Xp, x["heads"], backend="iv", dps=x["dps"]))
            for i in range(n):
                if i != j and not any(M[i, k].a > base[i, k].b or M[i, k].b < base[i, k].a for M in outs
                                      for k in range(d)):
                    missing.append((i + 1, j + 1))
    if not missing:
        return Decided(True, "exact: MLP(X)_i = MLP(x_i) for every i; certified (mpmath iv): for every i != j, adding "
                             "1 to one coordinate of x_j moves MHA(X)_i (disjoint enclosures)")
    return Decided(None, f"undecided: MLP(X)_i = MLP(x_i) (exact), but no change of MHA(X)_i was certified for "
                         f"(i, j) in {missing[:4]}")


# --- MLP.span: one attention + residual layer keeps the rows of X + MHA(X) in row X? ---

def _rows_stay_in_span(x) -> Decided:
    """row(X + MHA(X)) is contained in row(X) (one attention + residual layer)"""
    W = x["weights"]
    Xs = x["X"].sympy()
    r = rank(Xs)
    if W.scores_vanish():
        F = F_uniform(Xs, W.value_output())
        out = [i + 1 for i in range(F.shape[0]) if rank(Xs.col_join(F.row(i))) > r]
        return Decided(not out, "exact: uniform attention, F(X) = X + (J/n) X sum_h W_V^h W_O^h; "
                       + (f"rows {out} of F(X) leave row X" if out else "every row of F(X) lies in row X"))
    stack = rank(Xs.col_join(sympy.Matrix.vstack(*[Xs * M for M in W.value_output()])))
    if stack == r:
        return Decided(True, f"exact: row(X W_V^h W_O^h) lies in row X for every head (rank [X; X W_h] = rank X = "
                             f"{r}), so every row of A_h X W_h and of F(X) does")
    got = _certified_F_rank(x)
    if isinstance(got, Decided):
        return got
    iv = mpmath.iv
    Xq = Xs.tolist()
    with workdps(iv, x["dps"]):
        M = _mha_of_multiple(x, 1)
        cx = T.iv(x["dps"])
        rows = [[cx.num(v) for v in row] for row in Xq]
        rows += [[cx.num(Xq[i][j]) + M[i, j] for j in range(x["d"])] for i in range(x["n"])]
    low = certified_rank_lower_bound(rows, x["dps"])["lower"]
    if low > r:
        return Decided(False, f"certified: rank [X; F(X)] >= {low} > rank X = {r} (an interval minor excludes 0): some "
                              "row of F(X) leaves row X")
    return Decided(None, f"undecided: rank [X; F(X)] >= {low}, rank X = {r}; equality is not certified by intervals")


# --- RRO.witness-wo-choice:algebraic-genericity at the user's W_Q, W_K (X* = e_1 f_1^T, --n, --weights) ---

def _shape_ok(x) -> Decided:
    """n >= 1, d >= 2, d_k, H >= 1"""
    W = x["weights"]
    ok = x["n"] >= 1 and x["d"] >= 2 and W.d_k >= 1 and W.H >= 1
    return Decided(ok, f"exact: n = {x['n']}, d = {x['d']}, d_k = {W.d_k}, H = {W.H}")


def _p_not_identically_zero(x) -> Decided:
    """p(W_V, W_O) = MHA(X*)_12 is not identically zero at the user's W_Q, W_K (a witness (W_V, W_O))"""
    return Decided(True, "exact: MHA(X*)_12 = sum_h (A_h)_11 (W_V^h W_O^h)_12 (only the first row of X* is non-zero); "
                         "at W_V^1 W_O^1 = e_1 e_2^T (W_O^(1) with a non-zero (1,2) entry) and the other heads 0 it is "
                         "(A_1)_11 > 0, a softmax entry (exp > 0), whatever W_Q, W_K are: p is not identically zero")


RRO_PAPER.NO_MLP.register(AttentionInput)(_no_mlp)
RRO_PAPER.N_AT_LEAST_TWO.register(AttentionInput)(_n_at_least_two)
RRO_PAPER.GENERIC_WV_WO.register(AttentionInput, cost=Predicate.COSTLY)(_generic_weights)
RRO_PAPER.RANK_F_STAR_TWO.register(AttentionInput)(_rank_f_star_two)
RRO_PAPER.WV_ZERO.register(AttentionInput)(_wv_zero)
RRO_PAPER.RANK_KEPT.register(AttentionInput)(_rank_kept)

_RAY: dict[str, Any] = {**_RRO, "arithmetic": "MHA(X), MHA(2X) in mpmath iv (X exact, the weights as the float64 "
                          "values they hold); exact when attention is uniform",
                         "note": "the direction is V = X: the second difference F(2X) - 2 F(X) + F(0) along the ray "
                                 "t X (no second derivative at one point: an affine F has a zero second difference, "
                                 "and a non-zero one puts d^2/dt^2 F(tX) != 0 at some t in (0, 2))"}
_PX: dict[str, Any] = {**_RRO, "sites": (), "arithmetic": "P = A(X) of the first head and P X in mpmath iv (X exact, "
                        "the weights as the float64 values they hold); the norms of X exact",
                        "note": "P: the first head's softmax attention at X; D = X - Y with Y = 0"}
_STAR: dict[str, Any] = dict(takes=("weights", "n"), build=star_instance,
                             save=lambda user, x: {"n": x["n"], **x["weights"].strings()},
             arithmetic="X* exact; rank F(X*) a certified interval lower bound (mpmath iv), exact when attention is "
                        "uniform; the upper bound 2 from the structure of F(X*)",
             note="X* = e_1 f_1^T, n x d (n from --n, d from the weights)")

#: (claim id, reading key) -> how a user's input becomes an instance (collected by
#: :mod:`proofs_numeric.witnesses.evidence` into the numeric layer's part of the suite); the claims' own predicate
#: objects decide it through the handlers above
INSTANCE_FORMS = {
    ("RRO.main", "literal"): InstanceForm(**_RRO),
    ("RRO.main", "for-all-weights"): InstanceForm(**_RRO),
    # at a trained model's attention sites the weights are one given point: the reading declares the premise on X
    # and the conclusion (the same predicate objects, decided by the handlers above; real_model aggregates its site
    # records)
    ("RRO.main", "trained-model"): InstanceForm(
        **_RRO, note="the trained weights are given: genericity is not a hypothesis here"),
    ("RRO.generic-obstruction", "literal"): InstanceForm(
        **_RRO, hypotheses={"rank X < min(n, d)": RRO_PAPER.RANK_DEFICIENT,
                            "generic weights": RRO_PAPER.GENERIC_WEIGHTS, "no MLP": RRO_PAPER.NO_MLP},
        conclusion=RRO_PAPER.RANK_RISES),
    ("RRO.witness", "literal"): InstanceForm(
        **_STAR, hypotheses={RRO_PAPER.N_AT_LEAST_TWO.name: RRO_PAPER.N_AT_LEAST_TWO,
                             RRO_PAPER.GENERIC_WV_WO.name: RRO_PAPER.GENERIC_WV_WO},
        conclusion=RRO_PAPER.RANK_F_STAR_TWO),
    ("RRO.witness", "a-witness-exists"): InstanceForm(
        **_STAR, hypotheses={RRO_PAPER.N_AT_LEAST_TWO.name: RRO_PAPER.N_AT_LEAST_TWO},
        conclusion=RRO_PAPER.RANK_F_STAR_TWO),
    ("RRO.near-zero-weights", "increase-fails-at-zero"): InstanceForm(
        **_RRO, hypotheses={RRO_PAPER.WV_ZERO.name: RRO_PAPER.WV_ZERO}, conclusion=RRO_PAPER.RANK_KEPT),
    ("RW.large-weights", "skip-alone-can-fail"): InstanceForm(**_RRO, hypotheses={}, conclusion=RRO_PAPER.RANK_DROPS),
    ("DONG.skip-full-rank", "literal"): InstanceForm(
        **_RRO, hypotheses={"skip connections": RRO_PAPER.NO_MLP, RRO_PAPER.FULL_RANK_SPREAD.name:
                            RRO_PAPER.FULL_RANK_SPREAD}, conclusion=RRO_PAPER.KEEPS_FULL_RANK),
    # F(X) = X + MHA(X) along the ray t X: the second difference F(2X) - 2 F(X) + F(0) = MHA(2X) - 2 MHA(X)
    ("MLP.curvature", "literal"): InstanceForm(
        **_RAY, hypotheses={"no MLP": RRO_PAPER.NO_MLP}, conclusion=RRO_PAPER.AFFINE_ALONG_RAY),
    ("MLP.not-globally-affine", "literal"): InstanceForm(
        **_RAY, hypotheses={"attention + residual, no MLP": RRO_PAPER.NO_MLP},
        conclusion=RRO_PAPER.NOT_AFFINE_ALONG_RAY),
    ("MLP.bilinear-attention", "literal"): InstanceForm(
        **_RAY, hypotheses={"attention + residual, no MLP": RRO_PAPER.NO_MLP},
        conclusion=RRO_PAPER.AFFINE_ALONG_RAY),
    ("MLP.function", "necessary-for-non-linear-features"): InstanceForm(
        **_RAY, hypotheses={}, conclusion=RRO_PAPER.AFFINE_ALONG_RAY),
    ("RRO.rank-r-witness", "literal"): InstanceForm(
        **{**_RRO, "build": star_r_instance, "note": "--X is X*_r; r = rank X"}, hypotheses={},
        conclusion=RRO_PAPER.RANK_RISES),
    ("RRO.rank-r-witness", "every-weight"): InstanceForm(
        **{**_RRO, "build": star_r_instance, "note": "--X is X*_r; r = rank X"}, hypotheses={},
        conclusion=RRO_PAPER.RANK_RISES),
    ("BLOCK.residual-model", "literal"): InstanceForm(
        takes=("X",), build=_block_x, hypotheses={
            "BERT-base is post-LN": _architecture("the suite's post-LN block is BERT-base's composition (LN after each "
                                                  "residual sum)"),
            "GPT-2 is pre-LN": _architecture("the suite's pre-LN block is GPT-2's composition (LN before each "
                                             "sub-layer)")},
        conclusion=_block_is_paper_model, arithmetic="exact (sympy; LayerNorm's square roots kept exact)",
        note="the weights are the instance's: uniform attention, W_V W_O = I, FFN = 0"),
    ("BLOCK.residual-model", "suite-attention-skip"): InstanceForm(
        takes=("X", "weights"), build=_block_uniform, hypotheses={}, conclusion=_attention_skip_is_model,
        arithmetic="exact over Q (uniform attention)", note="W_Q = 0 (uniform attention); W_V W_O from the weights"),
    ("DONG.non-expansive", "literal"): InstanceForm(
        **_PX, hypotheses={"P row-stochastic": _softmax_is_stochastic}, conclusion=_nonexpansive_and_toward_center),
    ("DONG.non-expansive", "toward-center"): InstanceForm(**_PX, hypotheses={}, conclusion=_toward_center_iv),
    ("DONG.non-expansive", "max-norm"): InstanceForm(
        **_PX, hypotheses={"P row-stochastic": _softmax_is_stochastic}, conclusion=_max_nonexpansive_iv),
    ("DONG.mlp-per-token", "literal"): InstanceForm(
        **{**_RRO, "build": _per_token_instance, "sites": (), "hints": None,
           "arithmetic": "the MLP exact over Q; MHA(X) and its perturbations in mpmath iv (X exact, the weights as "
                         "the float64 values they hold); exact when attention is uniform",
           "note": "the MLP: x -> ReLU(x W_V) W_O with the first head's W_V, W_O; the change: +1 to one coordinate "
                   "of one token"}, hypotheses={}, conclusion=_mlp_per_token_attention_mixes),
    ("MLP.span", "literal"): InstanceForm(
        **{**_RRO, "sites": (), "note": "the attention stack: one layer X + MHA(X)"},
        hypotheses={"attention + residual only": RRO_PAPER.NO_MLP}, conclusion=_rows_stay_in_span),
    ("RRO.witness-wo-choice", "algebraic-genericity"): InstanceForm(
        **{**_STAR, "arithmetic": "exact (the witness is a structural fact: softmax entries are positive)"},
        hypotheses={"n >= 1, d >= 2, d_k, H >= 1": _shape_ok}, conclusion=_p_not_identically_zero),
    ("RRO.bad-set-nowhere-dense", "corrected"): InstanceForm(
        **_RRO, note="r is rank X; the head is the user's, not a random one"),
}
