r"""Exact rank of a rank-deficient integer matrix by a p-adic bordering certificate.

The certificate
===============
Let :math:`M \in \mathbb Z^{n\times d}`, let :math:`I, J` be row and column index sets of size
:math:`r` and :math:`A = M_{IJ}`.

* **Lower bound.** If :math:`A` is invertible modulo a prime :math:`p`, then
  :math:`\det A \ne 0` over :math:`\mathbb Z`, so :math:`\operatorname{rank} M \ge r`.
* **Upper bound (Kronecker's bordering theorem).** If moreover every :math:`(r+1)`-minor
  :math:`k_{ij} = \det M_{I\cup i,\,J\cup j}` that borders :math:`A` vanishes, then
  :math:`\operatorname{rank} M = r`: by Schur, :math:`k_{ij} = \det A\cdot s_{ij}` with
  :math:`S = M_{\bar I\bar J} - M_{\bar I J}A^{-1}M_{I\bar J}` and
  :math:`\operatorname{rank} M = r + \operatorname{rank} S`.
* **Proving** :math:`k_{ij} = 0`. Hadamard's inequality gives :math:`|k_{ij}| \le H` (product of
  the row norms of the bordered submatrix, or of its column norms, whichever is smaller). p-adic
  (Dixon) lifting computes digits :math:`x_0, x_1, \dots` with :math:`x_k = C R_k \bmod p`,
  :math:`C \equiv A^{-1}`, :math:`R_0 = M_{:,\bar J}` and :math:`R_{k+1} = (R_k - M_{:,J}x_k)/p`,
  and *checks* that every division is exact. Then
  :math:`M_{:,\bar J} - M_{:,J}X_K = p^K R_K` with :math:`X_K=\sum_{k<K} x_k p^k`: the rows in
  :math:`I` give :math:`X_K \equiv A^{-1}M_{I\bar J}` and the rows outside :math:`I` give
  :math:`S \equiv 0 \pmod{p^K}` (:math:`\det A` is a unit mod :math:`p`), so
  :math:`k_{ij} \equiv 0 \pmod{p^K}`. Once :math:`p^K > H`, every :math:`k_{ij} = 0`.

Arithmetic
==========
All lifting arithmetic is float64 BLAS on integers. Every product and partial sum is an integer
bounded in magnitude by a bound computed beforehand from the data (the prime is chosen so that the
bound is below :math:`2^{53}`), so a classical ``dgemm`` (OpenBLAS, MKL: no Strassen-type
algorithm) computes it exactly in any summation order; :func:`blas_is_exact` checks this once per
process against numpy's exact int64 product (and the certificate is not used if it fails), and
the code checks the digit bound at every step. Only :math:`A^{-1} \bmod p` and the ``r x r`` invertibility test use FLINT. The pivots
:math:`I, J` come from float Gaussian elimination with complete pivoting: a heuristic, which the
certificate then checks; when it fails the caller falls back to other certificates.

On a 512 x 768 integer matrix of rank 300 (entries of a product of factors in [-9, 9], about 2,700
at most) the Hadamard bound is about :math:`2^{3968}`; 135 lifting steps with a 29.6-bit prime take
about 0.6 s on two cores (see ``benchmarks/test_bench_rank.py``).

Examples
========
>>> import numpy as np
>>> rng = np.random.default_rng(1)
>>> M = rng.integers(-9, 10, size=(30, 4)) @ rng.integers(-9, 10, size=(4, 40))
>>> c = padic_rank_certificate(M.astype(float))
>>> (c.lower, c.upper, c.steps > 0)
(4, 4, True)
"""
from __future__ import annotations

from dataclasses import dataclass, field

import flint
import numpy as np

__all__ = ["PadicCertificate", "padic_rank_certificate", "complete_pivoting", "modp_pivots", "bordered_hadamard_bound_sq",
           "blas_is_exact",
           "MAX_ENTRY_BITS"]

_EXACT = 2 ** 53          # integers of magnitude below this are exact in float64
#: entries above 2^MAX_ENTRY_BITS leave no room for a useful prime: the certificate is not tried
MAX_ENTRY_BITS = 40
_MIN_PRIME = 2 ** 8
#: complete pivoting stops when the largest remaining entry is below this times the largest entry
_PIVOT_RTOL = 1e-9  # heuristic only: the certificate checks the pivots it is given


@dataclass
class PadicCertificate:
    """``lower`` is certified by a non-singular minor; ``upper == lower`` when the lifting closed."""
    lower: int
    upper: int | None
    prime: int = 0
    steps: int = 0
    hadamard_bits: float = 0.0
    rows: list = field(default_factory=list)
    cols: list = field(default_factory=list)
    note: str = ""


def complete_pivoting(X, rtol=_PIVOT_RTOL, *, atol=0.0, dtype=np.float64) -> tuple[np.ndarray, np.ndarray]:
    """Row and column pivots of Gaussian elimination with complete pivoting (heuristic rank).

    The one complete-pivoting routine of the suite: elimination stops when the largest remaining
    entry is not above ``max(rtol * max|X|, atol)``. ``dtype=object`` eliminates in the entries' own
    arithmetic (e.g. mpmath ``mpf`` at the caller's working precision); the default is float64.
    The pivots are a heuristic: every caller certifies the minor they select.
    """
    W = np.array(X, dtype=dtype)  # [n, d] working copy
    n, d = W.shape
    rows, cols = np.arange(n), np.arange(d)
    scale = np.abs(W).max() if W.size else 0.0
    if dtype is not object:
        scale = float(scale)
    tol = rtol * scale if rtol else 0.0
    tol = max(tol, atol) if atol else tol
    k = 0
    while k < min(n, d):
        S = W[k:, k:]
        i, j = divmod(int(np.argmax(np.abs(S))), S.shape[1])
        if not abs(S[i, j]) > tol:
            break
        i, j = i + k, j + k
        W[[k, i]] = W[[i, k]]
        rows[[k, i]] = rows[[i, k]]
        W[:, [k, j]] = W[:, [j, k]]
        cols[[k, j]] = cols[[j, k]]
        W[k + 1:, k + 1:] -= np.outer(W[k + 1:, k] / W[k, k], W[k, k + 1:])
        k += 1
    return rows[:k], cols[:k]


def _nmod(A: np.ndarray, p: int) -> flint.nmod_mat:
    """A (float64 or integer array holding integers) modulo p as a FLINT matrix."""
    n, d = A.shape
    return flint.nmod_mat(n, d, np.mod(A.astype(np.int64), p).ravel().tolist(), p)


def _rref_pivots(A: np.ndarray, p: int) -> list[int]:
    """Pivot columns of the reduced row echelon form of A mod p (FLINT)."""
    n, d = A.shape
    R, r = _nmod(A, p).rref()
    E = np.fromiter(map(int, R.entries()), dtype=np.int64, count=n * d).reshape(n, d)[:int(r)]
    return [int(np.flatnonzero(row)[0]) for row in E]


def modp_pivots(Z: np.ndarray, p: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows I and columns J with Z[I, J] non-singular mod p and |I| = rank of Z mod p (exact)."""
    cols = _rref_pivots(Z, p)
    rows = _rref_pivots(np.ascontiguousarray(Z[:, cols].T), p) if cols else []
    return np.asarray(rows, dtype=np.intp), np.asarray(cols, dtype=np.intp)


def _prod(values) -> int:
    out = 1
    for v in values:
        out *= int(v)
    return out


def bordered_hadamard_bound_sq(Z: np.ndarray, rows, cols) -> int:
    """H^2 (an exact integer) with H >= |every (r+1)-minor bordering Z[rows, cols]|."""
    n, d = Z.shape
    inI = np.zeros(n, bool)
    inI[rows] = True
    inJ = np.zeros(d, bool)
    inJ[cols] = True
    Q = Z.astype(object) ** 2 if float(np.abs(Z).max()) ** 2 * max(n, d) >= 2 ** 62 else Z.astype(np.int64) ** 2
    # row version: rows I + one more, each restricted to J + one more column
    row_in = Q[:, inJ].sum(axis=1)
    row_out = Q[:, ~inJ].max(axis=1) if (~inJ).any() else 0 * row_in
    rn = row_in + row_out
    by_rows = _prod(rn[inI].tolist()) * (int(max(rn[~inI].tolist())) if (~inI).any() else 1)
    col_in = Q[inI, :].sum(axis=0)
    col_out = Q[~inI, :].max(axis=0) if (~inI).any() else 0 * col_in
    cn = col_in + col_out
    by_cols = _prod(cn[inJ].tolist()) * (int(max(cn[~inJ].tolist())) if (~inJ).any() else 1)
    return min(by_rows, by_cols)


_BLAS_EXACT: bool | None = None


def blas_is_exact() -> bool:
    """Once per process: does float64 matmul reproduce exact integer products near 2^53?

    Compares a BLAS product of integer matrices whose partial sums reach about 2^52 with numpy's
    int64 matmul (exact, no BLAS). A BLAS that reorders into Strassen-type sums or computes in
    reduced precision fails this and the p-adic certificate is then not used.
    """
    global _BLAS_EXACT
    if _BLAS_EXACT is None:
        g = np.random.default_rng(12345)
        k = 96
        bound = int((2 ** 52 / k) ** 0.5)
        A = g.integers(-bound, bound + 1, size=(80, k))
        B = g.integers(-bound, bound + 1, size=(k, 70))
        A[0], B[:, 0] = bound, bound  # one entry at the full bound k * bound^2 ~ 2^52
        _BLAS_EXACT = bool(np.array_equal((A.astype(np.float64) @ B.astype(np.float64)).astype(np.int64), A @ B))
    return _BLAS_EXACT


def _prime_below(bound: int) -> int:
    p = int(bound) - 1
    while p >= 2 and not flint.fmpz(p).is_prime():
        p -= 1
    return p


def _inverse_mod_p(A: np.ndarray, p: int) -> np.ndarray | None:
    """A^{-1} mod p as a float64 array of balanced residues, or None if A is singular mod p."""
    r = A.shape[0]
    An = _nmod(A, p)
    if int(An.rank()) < r:
        return None
    C = np.fromiter(map(int, An.inv().entries()), dtype=np.int64, count=r * r).reshape(r, r)
    C[C > p // 2] -= p
    return C.astype(np.float64)


def padic_rank_certificate(Z: np.ndarray, rows=None, cols=None, prime: int | None = None,
                           rng: np.random.Generator | None = None) -> PadicCertificate | None:
    """Certify rank Z (``Z``: float64 holding integers below 2^MAX_ENTRY_BITS) by a bordering minor.

    Returns None when the certificate cannot be tried (entries too large, or no invertible minor
    at the chosen pivots); otherwise a :class:`PadicCertificate` whose ``lower`` is certified and
    whose ``upper`` equals ``lower`` when every bordering minor was proved zero (``None`` when the
    lifting found one that is not zero mod p^k, i.e. the heuristic pivots missed rank). ``prime``
    forces the lifting prime (tests use small ones); by default it is the largest prime for which
    every intermediate integer stays below 2^53, or with ``rng`` a random prime in the upper half
    of that range (an adversary then cannot make the minor singular mod every prime tried).
    """
    Z = np.asarray(Z, dtype=np.float64)  # [n, d]
    n, d = Z.shape
    amax = float(np.abs(Z).max())
    if amax >= 2.0 ** MAX_ENTRY_BITS or not np.array_equal(Z, np.rint(Z)) or not blas_is_exact():
        return None
    if amax == 0:
        return PadicCertificate(0, 0, note="the zero matrix")
    if rows is None or cols is None:
        rows, cols = complete_pivoting(Z)
    rows, cols = np.asarray(rows, dtype=np.intp), np.asarray(cols, dtype=np.intp)
    r = len(rows)
    other_rows = np.setdiff1d(np.arange(n), rows)
    other_cols = np.setdiff1d(np.arange(d), cols)
    order = np.concatenate([rows, other_rows])
    AJ = Z[np.ix_(order, cols)]             # [n, r], the pivot rows first
    R = Z[np.ix_(order, other_cols)]        # [n, d - r]
    SA = int(np.abs(AJ).sum(axis=1).max())  # exact: integer sums below 2^53
    maxB = int(np.abs(R).max()) if R.size else 0

    def residual_bound(p):   # |R_k| <= Rb for all k (induction: (Rb + SA*xb)/p <= Rb)
        return max(maxB, -(-SA * (p // 2 + 1) // (p - 1)))

    def fits(p):
        xb = p // 2 + 1
        return r * xb * residual_bound(p) < _EXACT and SA * xb + residual_bound(p) < _EXACT

    lo, hi = 2, 2 ** 31
    while hi - lo > 1:  # the largest p with fits(p) (fits is monotone in p)
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    p = _prime_below(lo + 1)
    if rng is not None and lo > 4 * _MIN_PRIME:
        p = _prime_below(int(rng.integers(lo // 2, lo)) + 1)
    if prime is not None:
        if not (flint.fmpz(prime).is_prime() and fits(prime)):
            raise ValueError(f"prime {prime} is not a prime for which the float64 lifting is exact")
        p = int(prime)
    C = None
    for _ in range(1 if prime is not None else 8):
        if p < _MIN_PRIME and prime is None:
            return None
        C = _inverse_mod_p(Z[np.ix_(rows, cols)], p)
        if C is not None:
            break
        p = _prime_below(p if rng is None else int(rng.integers(p // 2, p)) + 1)
    if C is None:
        return None
    cert = PadicCertificate(r, None, prime=p, rows=rows.tolist(), cols=cols.tolist())
    if r == min(n, d):
        cert.upper = r
        cert.note = f"an r x r minor is non-singular mod {p} and r = min(n, d)"
        return cert
    H2 = bordered_hadamard_bound_sq(Z, rows, cols)
    cert.hadamard_bits = H2.bit_length() / 2
    K, pK2 = 1, p * p
    while pK2 <= H2:
        K, pK2 = K + 1, pK2 * p * p
    Rb, xb = residual_bound(p), p // 2 + 1
    if not (int(np.abs(C).sum(axis=1).max()) * Rb < _EXACT):
        return None
    fp, inv_p = float(p), 1.0 / p
    y = np.empty((r, R.shape[1]))
    q, diff, prod = np.empty_like(R), np.empty_like(R), np.empty_like(R)
    for k in range(K):
        np.matmul(C, R[:r], out=y)             # |.| <= rowsum|C| * Rb < 2^53
        x = y - fp * np.rint(y * inv_p)        # a residue of y mod p (exact integer arithmetic)
        if float(np.abs(x).max()) > xb:
            return None
        np.matmul(AJ, x, out=prod)             # |.| <= SA * xb
        np.subtract(R, prod, out=diff)         # |.| <= Rb + SA * xb < 2^53
        np.multiply(diff, inv_p, out=q)
        np.rint(q, out=q)
        np.multiply(q, fp, out=prod)
        if not np.array_equal(prod, diff):     # not divisible: some bordering minor is not 0 mod p^(k+1)
            cert.steps = k
            cert.note = f"bordering minor nonzero mod {p}^{k + 1}: the pivots miss rank"
            return cert
        R, q = q, R                            # R_{k+1} = diff / p exactly
    cert.upper, cert.steps = r, K
    cert.note = (f"all bordering {r + 1}-minors = 0 mod {p}^{K} > Hadamard bound 2^{cert.hadamard_bits:.0f}")
    return cert
