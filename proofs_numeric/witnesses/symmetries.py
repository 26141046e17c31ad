"""Certified checks of the symmetries through the softmax (mpmath ``iv``).

An invariance holds to the working precision when the interval enclosures of both
sides overlap entrywise; a symmetry is *certified broken* when some pair of
enclosures is disjoint.

Examples
========
>>> w = witness(dps=30)
>>> w["token-permutation"]["holds"], w["causal-mask"]["certified_broken"]
(True, True)
"""
from __future__ import annotations

from typing import Any

import mpmath
import numpy as np

from proofs_numeric.core.transformer import Head, mha, workdps
from theorems.framework import CheckContext, Evidence, interval_witness

__all__ = ["witness", "EVIDENCE"]


def _overlap(A, B):
    n, m = A.rows, A.cols
    return all(A[i, j].a <= B[i, j].b and B[i, j].a <= A[i, j].b for i in range(n) for j in range(m))


def _disjoint_somewhere(A, B):
    return any(A[i, j].b < B[i, j].a or B[i, j].b < A[i, j].a for i in range(A.rows) for j in range(A.cols))


def _causal_mha(X, head, dps):
    """One head with the causal mask (masked entries exactly 0): the one MHA, iv context."""
    return mha(X, [head], "iv", dps, causal=True)


def witness(n: int = 4, d: int = 4, H: int = 2, d_k: int = 2, dps: int = 50, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    heads = [Head(*(rng.normal(size=s) for s in [(d, d_k), (d, d_k), (d, d_k), (d_k, d)])) for _ in range(H)]
    X = rng.normal(size=(n, d))
    perm = rng.permutation(n)
    if (perm == np.arange(n)).all():
        perm[[0, 1]] = perm[[1, 0]]  # a non-trivial permutation, so that breaking can show
    P = np.eye(n)[perm]
    iv = mpmath.iv
    out: dict[str, Any] = {}
    base = mha(X, heads, "iv", dps)
    with workdps(iv, dps):
        Pm = iv.matrix(P.tolist())
        out["head-permutation"] = {"holds": _overlap(mha(X, heads[::-1], "iv", dps), base)}
        M = rng.normal(size=(d_k, d_k)) + 3 * np.eye(d_k)
        Mi = np.linalg.inv(M)  # float inverse: the gauge is exact only up to its rounding, well below 1e-10
        g = [Head(h.W_Q, h.W_K, h.W_V @ M, Mi @ h.W_O) for h in heads]
        gb = mha(X, g, "iv", dps)
        out["value-output-gauge"] = {"max_abs_diff": float(max(abs(float(gb[i, j].mid) - float(base[i, j].mid))
                                                              for i in range(n) for j in range(d)))}
        out["token-permutation"] = {"holds": _overlap(mha(P @ X, heads, "iv", dps), Pm * base)}
        c1 = _causal_mha(P @ X, heads[0], dps)
        c2 = Pm * _causal_mha(X, heads[0], dps)
        out["causal-mask"] = {"certified_broken": _disjoint_somewhere(c1, c2)}
        Pos = rng.normal(size=(n, d))
        f1 = mha(P @ X + Pos, heads, "iv", dps)
        f2 = Pm * mha(X + Pos, heads, "iv", dps)
        out["positional-encoding"] = {"certified_broken": _disjoint_somewhere(f1, f2)}
    out["dps"] = dps
    out["arithmetic"] = f"mpmath iv at {dps} digits (float64 weights taken exactly)"
    return out


def _certified(key: str):
    """The interval check of one symmetry (or of its breaking) on random Gaussian heads."""
    def check(ctx: CheckContext) -> list[Evidence]:
        w = witness(dps=ctx.dps)[key]
        if "holds" in w:  # overlap is consistency, not a certificate
            return [interval_witness(f"{key}: the enclosures of both sides overlap entrywise (random Gaussian heads)",
                                     None, arithmetic=f"mpmath iv at {ctx.dps} digits",
                                     reason="overlapping enclosures are consistent with the identity but do not "
                                            "certify it" if w["holds"] else "some enclosures are disjoint")]
        return [interval_witness(f"{key}: some entry's enclosures are disjoint: certified broken",
                                 False if w["certified_broken"] else None, arithmetic=f"mpmath iv at {ctx.dps} digits",
                                 reason=None if w["certified_broken"] else "the enclosures overlap: not separated")]
    check.__name__ = f"certified_{key.replace('-', '_')}"
    return check


#: numeric evidence attached by (claim id, reading key) (collected by :mod:`proofs_numeric.witnesses.evidence`)
EVIDENCE = {
    ("SYM.head-permutation", "literal"): [_certified("head-permutation")],
    ("SYM.token-permutation", "literal"): [_certified("token-permutation")],
    ("SYM.token-permutation", "without-causal-mask"): [_certified("causal-mask")],
    ("SYM.token-permutation", "without-positional-encoding"): [_certified("positional-encoding")],
}
