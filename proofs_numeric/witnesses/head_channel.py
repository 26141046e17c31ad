r"""Witnesses for head-channel (non-)identifiability in the numeric layer, and their evidence (``EVIDENCE``).

``witness``: with :math:`W_O` known and of full row rank, recover :math:`Y=[Y_1\cdots Y_H]`
from a perturbed output :math:`M+E` as :math:`\hat Y=(M+E)W_O^{+}`. The error obeys

.. math:: \frac{\|\hat Y-Y\|_F}{\|Y\|_F}\le\kappa(W_O)\,\frac{\|E\|_F}{\|M\|_F},

(from :math:`\|EW_O^+\|_F\le\|E\|_F/\sigma_{\min}` and :math:`\|M\|_F\le\sigma_{\max}\|Y\|_F`),
evaluated in mpmath ``mp`` at ``dps`` digits, doubled until two precisions agree.

``deficient_witness`` (exact, so it lives in :mod:`theorems.paper.head_channel`; re-exported here): a
rank-deficient rational :math:`W_O` and two different head outputs with the same MHA output.

Examples
========
>>> w = witness(n=4, H=2, d_k=2, d=4, kappa=100, eta=1e-6, dps=40)
>>> w["value"] <= w["bound"]
True
"""
from __future__ import annotations

import flint
import mpmath
import numpy as np
import sympy

from proofs_numeric.core.certify import PrecisionExhausted
from proofs_numeric.core.transformer import workdps
from proofs_numeric.witnesses.rank_contraction import user_heads_instance
from theorems.exact.input import exact_matrix
from theorems.exact.linalg import rank, rank_of_product, to_fmpq_mat
from theorems.framework import CheckContext, Decided, Evidence, InstanceForm, float_statistic

__all__ = ["witness", "w_o_with_condition", "PrecisionExhausted", "RECOVERY_BOUND_SLACK", "EVIDENCE", "INSTANCE_FORMS"]

#: relative slack on kappa * eta in the ledger's check of the recovery bound (eta = 1e-10, kappa <= 1e8)
RECOVERY_BOUND_SLACK = 1e-12


def w_o_with_condition(Hdk: int, d: int, kappa: float, seed: int = 0) -> np.ndarray:
    """A [H d_k, d] matrix with singular values spread geometrically from 1 to 1/kappa (float64)."""
    if Hdk > d:
        raise ValueError("full row rank needs H d_k <= d")
    rng = np.random.default_rng(seed)
    U, _ = np.linalg.qr(rng.normal(size=(Hdk, Hdk)))
    V, _ = np.linalg.qr(rng.normal(size=(d, d)))
    s = np.geomspace(1.0, 1.0 / kappa, Hdk)
    return U @ np.diag(s) @ V[:, :Hdk].T


def _recover(Y, W, E, dps):
    mp = mpmath.mp
    with workdps(mp, dps):
        Ym, Wm, Em = mp.matrix(Y.tolist()), mp.matrix(W.tolist()), mp.matrix(E.tolist())
        M = Ym * Wm
        Wp = Wm.T * mp.inverse(Wm * Wm.T)  # right inverse
        Yh = (M + Em) * Wp
        err = mp.mnorm(Yh - Ym, "f") / mp.mnorm(Ym, "f")
        eta = mp.mnorm(Em, "f") / mp.mnorm(M, "f")
        s = mp.svd_r(Wm, compute_uv=False)
        kappa = max(s) / min(s)
        return err, kappa * eta, kappa, eta


def witness(n: int = 4, H: int = 2, d_k: int = 2, d: int = 4, kappa: float = 100.0, eta: float = 1e-6,
            dps: int = 50, seed: int = 0, max_dps: int = 800) -> dict:
    """Recovery error against the condition-number bound: ``{value, bound, dps, residual, agreed_at_dps, kappa}``."""
    rng = np.random.default_rng(seed + 1)
    W = w_o_with_condition(H * d_k, d, kappa, seed)
    Y = rng.normal(size=(n, H * d_k))
    E = rng.normal(size=(n, d))
    E *= eta * np.linalg.norm(Y @ W) / np.linalg.norm(E)
    p = dps
    prev = _recover(Y, W, E, p)
    while True:
        cur = _recover(Y, W, E, 2 * p)
        with workdps(mpmath.mp, 2 * p):
            diff = abs(cur[0] - prev[0]) / max(abs(cur[0]), mpmath.mpf(10) ** (-2 * p))
        if diff < mpmath.mpf(10) ** (-(p // 2)):
            break
        if 2 * p >= max_dps:
            raise PrecisionExhausted(f"recovery error not stable at {2 * p} digits")
        p, prev = 2 * p, cur
    err, bound, k, e = cur
    return {"value": float(err), "bound": float(bound), "kappa": float(k), "eta": float(e), "dps": p,
            "agreed_at_dps": 2 * p, "residual": mpmath.nstr(diff, 3),
            "arithmetic": f"mpmath mp at {p} and {2 * p} digits"}


def _recovery_bound(ctx: CheckContext) -> list[Evidence]:
    """High-precision recovery from a perturbed output obeys the condition-number bound."""
    rows = []
    for kappa in (1, 1e2, 1e4, 1e8):
        w = witness(n=4, H=2, d_k=2, d=5, kappa=kappa, eta=1e-10, dps=ctx.dps)
        rows.append((kappa, w))
    ok = all(w["value"] <= w["bound"] * (1 + RECOVERY_BOUND_SLACK) for _, w in rows)
    return [float_statistic("relative recovery error <= kappa(W_O) * relative output error: " + "; ".join(
        f"kappa {k:g}: {w['value']:.2e} <= {w['bound']:.2e}" for k, w in rows), ok, regime="generic-weights",
        arithmetic=rows[0][1]["arithmetic"] + " (multiprecision floats, not intervals)",
        numbers={f"kappa_{k:g}": w["value"] for k, w in rows})]


#: numeric evidence attached by (claim id, reading key) (collected by :mod:`proofs_numeric.witnesses.evidence`)
EVIDENCE = {("HC.main", "corrected"): [_recovery_bound]}


# --- HC.distinct-from-rank-collapse on a user's X and weights: which of its two existentials the instance witnesses


def _product_is_zero(Q, K) -> bool:
    """W_Q W_K^T = 0, exactly (the d x d product in FLINT: a MiniLM head's in sympy took seconds)."""
    return to_fmpq_mat(Q) * to_fmpq_mat(K, transpose=True) == flint.fmpq_mat(Q.shape[0], K.shape[0])


def _rank_mha_exact(v):
    """rank MHA(X) exactly when attention averages identical rows: every head's scores vanish (A = J/n) or X has
    identical rows (A X = X); else None."""
    X = exact_matrix(v["X"].rows())
    n = X.shape[0]
    heads = [[exact_matrix(M.rows(), name) for M, name in zip(h, ("W_Q", "W_K", "W_V", "W_O"))]
             for h in v["weights"].heads]
    uniform = all(_product_is_zero(Q, K) for Q, K, _V, _O in heads)
    identical = all(X.row(i) == X.row(0) for i in range(n))
    if not (uniform or identical):
        return None
    W = sum((V * O for _Q, _K, V, O in heads[1:]), heads[0][2] * heads[0][3])
    AX = X if identical else sympy.ones(n, n) / n * X
    why = "X has identical rows, so A X = X for every head" if identical else \
        "every head's W_Q W_K^T = 0, so A = J/n"
    return rank_of_product(AX, W), f"exact over Q ({why}: MHA(X) = A X sum_h W_V^h W_O^h)"


def _two_parts(v) -> Decided:
    """an instance of part (a), rank MHA(X) = min(n, d) with ker Phi_a != 0, or of part (b), rank MHA(X) = 1 with
    ker Phi_a = 0"""
    n, d = v["X"].shape
    H, dk = v["H"], v["d_k"]
    W_O = sympy.Matrix.vstack(*[exact_matrix(h[3].rows(), "W_O") for h in v["weights"].heads])
    ker = n * (H * dk - rank(W_O))
    exact = _rank_mha_exact(v)
    if exact is not None:
        lo = hi = exact[0]
        how = exact[1]
    else:
        (lo, hi), how = v["c"]["rank_mha"], "certified: lower bound from interval minors, upper bound from structure"
    top = min(n, d)
    said = (f"rank MHA(X) = {lo if lo == hi else f'[{lo}, {hi}]'} ({how}), min(n, d) = {top}; dim ker Phi_a = "
            f"n (H d_k - rank W_O) = {ker} (exact over Q)")
    if lo == hi == top and ker > 0:
        return Decided(None, f"this instance witnesses part (a) only (full rank, yet not identifiable): {said}; part "
                             "(b) (rank 1 with ker Phi_a = 0) needs another instance: the conjunction of two "
                             "existentials is not decided on one instance")
    if lo == hi == 1 and ker == 0:
        return Decided(None, f"this instance witnesses part (b) only (collapsed, yet identifiable): {said}; part (a) "
                             "(full rank with ker Phi_a != 0) needs another instance: the conjunction of two "
                             "existentials is not decided on one instance")
    if lo != hi and ((lo <= top <= hi and ker > 0) or (lo <= 1 <= hi and ker == 0)):
        return Decided(None, f"the enclosures do not settle which part this instance witnesses: {said}")
    return Decided(False, f"this instance witnesses neither part: {said}")


#: (claim id, reading key) -> how a user's input becomes an instance (collected by proofs_numeric.witnesses.evidence)
INSTANCE_FORMS = {
    ("HC.distinct-from-rank-collapse", "literal"): InstanceForm(
        takes=("X", "weights"), build=user_heads_instance, hypotheses={}, conclusion=_two_parts,
        arithmetic="exact over Q for ker Phi_a (rank W_O) and for rank MHA(X) under uniform attention or identical "
                   "rows; otherwise certified ranks (interval minors)",
        note="an existential conjunction: one instance witnesses part (a) or part (b), never both"),
}
