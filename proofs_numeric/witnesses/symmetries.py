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
from proofs_numeric.witnesses.residual_obstruction import user_instance
from theorems.exact import transformer as T
from theorems.exact.input import BadInput
from theorems.framework import CheckContext, Decided, Evidence, InstanceForm, interval_witness

__all__ = ["witness", "EVIDENCE", "INSTANCE_FORMS"]


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


# --- the breaking readings of SYM.token-permutation on a user's X and weights (collapse-verify check) ---
# Pi is the cyclic shift of the tokens ((Pi X)_i = x_{i+1 mod n}); the equivariance fails on this instance when an
# entry of the two sides has disjoint enclosures (equality is not certified by intervals: then undecided).

def _small(user):
    x = user_instance(user)
    if x["n"] * x["d"] > 64:
        raise BadInput(f"this reading compares two interval forwards entry by entry; up to 64 entries, X has "
                       f"{x['n'] * x['d']}")
    return x


def _shift(rows: list) -> list:
    return rows[1:] + rows[:1]


def _differs(x, f) -> Decided:
    """f(Pi X) against Pi f(X) in mpmath iv: a certified difference, else undecided."""
    iv = mpmath.iv
    rows = x["X"].rows()
    with workdps(iv, x["dps"]):
        a = f(_shift(rows))
        b = f(rows)
        n, d = x["n"], x["d"]
        b = [[b[(i + 1) % n, j] for j in range(d)] for i in range(n)]
        for i in range(n):
            for j in range(d):
                if a[i, j].a > b[i][j].b or a[i, j].b < b[i][j].a:
                    return Decided(False, f"certified (mpmath iv at {x['dps']} digits): entry ({i + 1}, {j + 1}) of "
                                          "the two sides has disjoint enclosures, so they differ")
    return Decided(None, "undecided: every entry of the two sides has overlapping enclosures (softmax is "
                         "transcendental: equality is not certified by intervals)")


def _causal_equivariant(x) -> Decided:
    """MHA with a causal mask: MHA_causal(Pi X) = Pi MHA_causal(X)"""
    return _differs(x, lambda R: mha(R, x["heads"], backend="iv", dps=x["dps"], causal=True))


def _position(n: int, d: int, cx) -> list:
    """the absolute positional encoding P the reading uses: P_i1 = i (token i gets i in its first coordinate)"""
    return [[cx.num(i + 1 if j == 0 else 0) for j in range(d)] for i in range(n)]


def _positional_equivariant(x) -> Decided:
    """X -> MHA(X + P): MHA(Pi X + P) = Pi MHA(X + P)"""
    cx = T.iv(x["dps"])
    P = _position(x["n"], x["d"], cx)
    return _differs(x, lambda R: mha([[cx.num(v) + P[i][j] for j, v in enumerate(row)] for i, row in enumerate(R)],
                                      x["heads"], backend="iv", dps=x["dps"]))


_BREAK: dict[str, Any] = dict(takes=("X", "weights"), build=_small,
                              arithmetic="mpmath iv (X exact, the weights as the float64 values they hold)",
                              note="Pi: the cyclic shift of the tokens; P: P_i1 = i, zeros elsewhere")

#: (claim id, reading key) -> how a user's input becomes an instance (collected by proofs_numeric.witnesses.evidence)
INSTANCE_FORMS = {
    ("SYM.token-permutation", "without-causal-mask"): InstanceForm(**_BREAK, hypotheses={},
                                                                  conclusion=_causal_equivariant),
    ("SYM.token-permutation", "without-positional-encoding"): InstanceForm(**_BREAK, hypotheses={},
                                                                          conclusion=_positional_equivariant),
}
