r"""Exact rank of a rank-deficient integer matrix by a p-adic bordering certificate.

The certificate
===============
Let :math:`M \in \mathbb Z^{n\times d}`, let :math:`I, J` be row and column index sets of size
:math:`r`, :math:`A = M_{IJ}`, :math:`B = M_{I\bar J}`, and let :math:`m \ge 2` be an integer (the
*modulus*: a prime :math:`q`, or :math:`q^2`).

* **Lower bound.** If :math:`CA \equiv I_r \pmod m` for some integer matrix :math:`C` (checked
  exactly), then :math:`\det C \det A \equiv 1`, so :math:`\det A \ne 0` and
  :math:`\operatorname{rank} M \ge r`.
* **Upper bound (Kronecker's bordering theorem).** If moreover every :math:`(r+1)`-minor
  :math:`k_{ij} = \det M_{I\cup i,\,J\cup j}` that borders :math:`A` vanishes, then
  :math:`\operatorname{rank} M = r` (Schur: :math:`k_{ij} = \det A\cdot s_{ij}` with
  :math:`S = M_{\bar I\bar J} - M_{\bar I J}A^{-1}B` and :math:`\operatorname{rank} M = r + \operatorname{rank} S`).
* **Proving** :math:`k_{ij} = 0`. The lifting below constructs integer matrices :math:`X_K`,
  :math:`R_K`, :math:`T_K` with :math:`B - AX_K = m^KR_K` and
  :math:`M_{\bar I\bar J} - M_{\bar IJ}X_K = m^KT_K`. Then, with
  :math:`\operatorname{adj}A = \det A\cdot A^{-1}` (an integer matrix),
  :math:`k = \det A\,M_{\bar I\bar J} - M_{\bar IJ}\operatorname{adj}(A)B
  = m^K(\det A\,T_K - M_{\bar IJ}\operatorname{adj}(A)R_K) \equiv 0 \pmod{m^K}`. Once :math:`m^K`
  exceeds a proved bound on every :math:`|k_{ij}|`, every :math:`k_{ij} = 0`.

Bounds on the bordering minors (the smaller one is used)
--------------------------------------------------------
* Hadamard: :math:`|k_{ij}|` is at most the product of the row norms of the bordered submatrix,
  or of its column norms (:func:`bordered_hadamard_bound_sq`).
* Schur (:func:`schur_bound_sq`): :math:`|k_{ij}| = |\det A|\,|s_{ij}|` with
  :math:`|s_{ij}| \le |m_{ij}| + \|c_i\|_1\,\|A^{-1}\|_\infty\,\|b_j\|_\infty` (:math:`c_i` row
  :math:`i` of :math:`M_{\bar IJ}`, :math:`b_j` column :math:`j` of :math:`B`). :math:`|\det A|^2 =
  \det A^\top A \le \prod_k L_{kk}^2` for any lower-triangular float matrix :math:`L` with
  :math:`LL^\top \succeq A^\top A`, which is *verified* (a float Cholesky factor of
  :math:`A^\top A + \tau I`, then Gershgorin's theorem on :math:`LL^\top - A^\top A` with rigorous
  bounds on the rounding of the two float products, :math:`|fl(XY) - XY| \le \gamma_k|X||Y|`);
  :math:`\|A^{-1}\|_\infty \le \|R\|_\infty/(1-\|I-RA\|_\infty)` with Rump's rigorous bound on
  :math:`\|I-RA\|_\infty` (:func:`rump_residual_bound`). On products
  :math:`UV` of small factors :math:`|\det A|` lies far below Hadamard's bound (2^3508 against 2^3960
  at 512 x 768, rank 300): about 11 % fewer lifting steps.

The lifting (exact in float64)
------------------------------
:math:`C \equiv A^{-1} \pmod m` is computed by exact blocked Gauss-Jordan elimination modulo a prime
:math:`q < 2^{26}` in float64 (every residue product sums at most :math:`r(q-1)^2 < 2^{53}`), then one
Newton step to :math:`q^2` (:math:`C \leftarrow C(2I - AC)`); nothing in it is trusted: the caller
computes :math:`E = (CA - I)/m` and checks that the division is exact. With
:math:`y_0 = CB`, each step takes :math:`t_k = \operatorname{rint}(y_k/m)`,
:math:`x_k = y_k - m t_k` (a residue, :math:`|x_k| \le m/2 + 1`),
:math:`y_{k+1} = t_k - E x_k` and :math:`T_{k+1} = (T_k - M_{\bar IJ}x_k)/m`, *checking* that this
division is exact. Rows :math:`I` need no product with :math:`A`: by induction
:math:`y_k = CR_k` for the integer matrices :math:`R_{k+1} = (R_k - Ax_k)/m = At_k - E'R_k`,
:math:`E' = (AC-I)/m` (:math:`AC \equiv I` because :math:`CA \equiv I`, and
:math:`CE' = EC`), so the products per step are :math:`Ex_k` and :math:`M_{\bar IJ}x_k`
(:math:`[E; M_{\bar IJ}]\,x_k` in two column-major arrays).

All of it is float64 arithmetic on integers. Before the loop the modulus is chosen, and checked
with the actual :math:`C` and :math:`E`, so that every product and partial sum is an integer below
:math:`2^{53}`: :math:`\max_i\sum_l|C_{il}|\cdot\max(|A|,|B|)`, :math:`|y_k| \le Y`,
:math:`\max_i\sum_l|E_{il}|\cdot x_b`, :math:`\max_i\sum_l|(M_{\bar IJ})_{il}|\cdot x_b + T_b`
(:math:`x_b = \lfloor m/2\rfloor + 2`, as ``_bounds`` takes it: the float quotient errs by less than 2.001, so a
digit can reach :math:`m/2 + 2`; :math:`Y`, :math:`T_b` fixed points of the recurrences).
A classical ``dgemm`` (OpenBLAS, MKL: no Strassen-type algorithm) computes such products exactly in
any summation order; :func:`blas_is_exact` checks this once per process against numpy's exact
int64 product (the certificate is not used if it fails). The products subtract into their left-hand sides in
place (:math:`C \leftarrow C - PX`: ``dgemm`` with :math:`\beta = 1`; :math:`v \leftarrow v + aw`: ``daxpy``;
:func:`~theorems.exact.blas_runtime.update_kernels`, checked the same way), so a partial sum may include that
entry too.

No step tests a range: every bound holds by induction, and the step only computes. If :math:`|y_k| \le Y < 2^{53}`,
then :math:`z = fl(y_k\,fl(1/m)) = (y_k/m)(1+\delta)` with :math:`|\delta| \le 2u + u^2` (:math:`u = 2^{-53}`),
so :math:`m|z - y_k/m| \le (2u+u^2)Y < 2.001`; :math:`t_k = \operatorname{rint}(z)` has
:math:`|t_k| \le Y/m + 1` and :math:`|x_k| = m|y_k/m - t_k| \le m/2 + 2.001`, so :math:`|x_k| \le x_b`
(an integer); :math:`|mt_k| \le Y + x_b < 2^{53}`, so :math:`mt_k` and :math:`x_k = y_k - mt_k` are exact. Every
partial sum of :math:`t_k - Ex_k` is at most :math:`|t_k| + x_b\max_i\sum_l|E_{il}| \le Y/m + 1 + e_s x_b \le Y`
(:math:`Y \ge (e_s x_b + 1)\,m/(m-1)`, the fixed point), so :math:`y_{k+1}` is exact and
:math:`|y_{k+1}| \le Y`; and :math:`|y_0| = |CB| \le c_s\max|B| \le Y`. Likewise :math:`|T_k| \le T_b` bounds
every partial sum of :math:`T_k - M_{\bar IJ}x_k` by :math:`T_b + S_A x_b < 2^{53}`, and then
:math:`|T_{k+1}| = |D|/m \le T_b` (:math:`T_b \ge S_A x_b/(m-1)`). The one check of a step is the exact
division: with :math:`Q = \operatorname{rint}(fl(D\,fl(1/m)))`, :math:`D \leftarrow D - mQ` (``daxpy``) is 0
exactly when :math:`mQ = D`: with a fused multiply-add it is the rounding of the integer :math:`D - mQ`, which is
0 only if that is; without, it is :math:`D \ominus fl(mQ)`, 0 only if :math:`fl(mQ) = D`, and since
:math:`|D| < 2^{53}` and rounding is monotone that forces :math:`|mQ| < 2^{53}`, so :math:`mQ` is exact and equal
to :math:`D`. (The steps tested :math:`|x_k| \le x_b` and :math:`|y_{k+1}| \le Y` until 2026-12-06: four passes
over the block per step that this argument makes redundant; the last :math:`y_K` is still compared with
:math:`Y`, at no cost, as a check of the argument.)

The pivots :math:`I, J` come from float pivoted Cholesky factorisations of Gram matrices
(:func:`gram_pivots`: LAPACK's ``dpstrf`` from numpy's OpenBLAS when
:func:`~theorems.exact.blas_runtime.lapack_dpstrf` finds it, else numpy;
a heuristic which the certificate then checks); when they miss rank the
caller falls back to exact pivots modulo a prime (:func:`modp_pivots`). The lifting runs on the
tall orientation (columns :math:`\bar J` are the short side), in column blocks on up to
``LIFT_THREADS`` threads with one BLAS thread each; before any work on that pool, OpenBLAS's own idle workers,
which spin for about 0.1 s after numpy's last multi-threaded call, are ended when that is safe
(:func:`~theorems.exact.blas_runtime.park_blas_workers`; the pool, the thread count and OpenBLAS's workers are
:mod:`~theorems.exact.blas_runtime`'s). Before it, when ``LIFT_THREADS > 1``, the input is large
(``n d r >= _THREAD_MIN_WORK``) and :math:`0 < r < \min(n, d)`, the Schur bound (which needs only the pivots) is
computed by a pool thread while the calling thread computes :math:`C` and then Hadamard's bound: the same values as
computed inline.

On a 512 x 768 integer matrix of rank 300 (entries of a product of factors in [-9, 9]) the bound is
about :math:`2^{3585}` and the modulus about :math:`2^{34}` (a random prime squared): 105 or 106 steps of
a 300 x 300 x 212 and a 468 x 300 x 212 product (see ``benchmarks/test_bench_rank_deficient.py``). At about
51 GFLOP/s per core (measured 2026-12-04, OpenBLAS's peak here) those products alone take 100 ms on two threads;
the rest of each step, seven passes over its block in place, about 10 % more (2026-12-06).

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

import math
import os
import threading
from concurrent.futures import as_completed, wait
from dataclasses import dataclass, field
from fractions import Fraction
from typing import overload

import flint
import numpy as np

from .blas_runtime import lapack_dpstrf, lapack_pivoted_cholesky, single_threaded_blas, submit, update_kernels

__all__ = ["PadicCertificate", "padic_rank_certificate", "complete_pivoting", "gram_pivots", "gram_pivots_beside",
           "pivots_beside_pay", "row_samples", "modp_pivots", "bordered_hadamard_bound_sq", "schur_bound_sq",
           "blas_is_exact", "whole_below", "absmax", "lift_threads", "MAX_ENTRY_BITS", "LIFT_THREADS",
           "rump_residual_bound"]

_EXACT = 2 ** 53          # integers of magnitude below this are exact in float64
_U = 2.0 ** -53           # unit roundoff of float64
#: entries above 2^MAX_ENTRY_BITS leave no room for a useful modulus: the certificate is not tried
MAX_ENTRY_BITS = 40
_MIN_MODULUS = 2 ** 8
#: complete pivoting stops when the largest remaining entry is below this times the largest entry
_PIVOT_RTOL = 1e-9  # heuristic only: the certificate checks the pivots it is given
#: pivoted Cholesky of a Gram matrix stops when every residual diagonal entry is below this times the largest
_GRAM_RTOL = 1e-10  # heuristic only
#: moduli m >= this are q^2 (q prime, inverse by Gauss-Jordan mod q and one Newton step); below, a prime
_SQUARE_MODULUS_MIN = 2 ** 20
#: threads for the lifting (column blocks, one BLAS thread each); 1 below _THREAD_MIN_WORK multiply-adds per step
LIFT_THREADS = max(1, min(2, os.cpu_count() or 1))
_THREAD_MIN_WORK = 2 ** 22


@dataclass
class PadicCertificate:
    """``lower`` is certified by a non-singular minor; ``upper == lower`` when the lifting closed.

    ``prime`` is the prime q, ``modulus`` the lifting modulus m = q^exponent, ``steps`` the digits
    lifted (the bordering minors are 0 mod m^steps), ``bound_bits`` log2 of the proved bound on them
    (``bound`` says which: "Hadamard" or "Schur"), ``rows``/``cols`` the pivots (indices of the
    matrix as given), ``transposed`` whether the lifting ran on its transpose."""
    lower: int
    upper: int | None
    prime: int = 0
    steps: int = 0
    hadamard_bits: float = 0.0
    rows: list = field(default_factory=list)
    cols: list = field(default_factory=list)
    note: str = ""
    exponent: int = 1
    modulus: int = 0
    bound: str = ""
    bound_bits: float = 0.0
    transposed: bool = False


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


def absmax(X: np.ndarray) -> float:
    """max |X| of a float array (0.0 when empty; NaN when X holds one), without the temporary np.abs(X) would make
    (a fresh 3 MB array costs about 1.5 ms of page faults on this machine, measured 2026-12-04)."""
    return max(float(X.max()), -float(X.min())) if X.size else 0.0


def whole_below(X: np.ndarray, bound: float) -> bool:
    """Is every entry of the float array X a whole number of magnitude below ``bound``? (NaN fails, infinities
    exceed every finite bound.) Blocks of rows at a time: no temporary the size of X (see :func:`absmax`)."""
    if not X.size:
        return True
    if not absmax(X) < bound:   # False for NaN too
        return False
    if X.ndim != 2:
        return bool(np.array_equal(X, np.rint(X)))
    step = max(1, 32768 // X.shape[1])
    return all(np.array_equal(X[i:i + step], np.rint(X[i:i + step])) for i in range(0, X.shape[0], step))


def _pivoted_cholesky(G: np.ndarray, rtol: float = _GRAM_RTOL, nb: int = 64, overwrite: bool = False) -> list[int]:
    """Greedy pivots of the positive semidefinite float matrix G (pivoted Cholesky).

    Step k takes the index of the largest residual diagonal entry (the vector farthest from the span
    of those taken, like QR with column pivoting on a factor of G) and stops when every residual is
    at most ``rtol`` times the largest diagonal entry of G. Heuristic: the caller certifies the result.
    LAPACK's ``dpstrf`` (the same greedy rule, blocked, in the OpenBLAS numpy loaded) when
    :func:`~theorems.exact.blas_runtime.lapack_dpstrf`
    finds it, else :func:`_pivoted_cholesky_numpy`: 3.7 ms against 10.6 ms on the 512 x 512 Gram matrix of the
    512 x 768 rank-300 benchmark, with the same 300 pivots (measured 2026-12-04). ``overwrite``: G is a temporary
    of the caller's, symmetric, which LAPACK may overwrite (no copy).
    """
    if lapack_dpstrf() is None:
        return _pivoted_cholesky_numpy(G, rtol, nb)
    m = G.shape[0]
    # dpstrf overwrites S and reads one triangle: a symmetric contiguous G is its own column-major copy
    own = overwrite and G.dtype == np.float64 and (G.flags.c_contiguous or G.flags.f_contiguous)
    S = G if own else np.array(G, dtype=np.float64, order="F")
    top = float(np.diag(S).max()) if m else 0.0
    if not top > 0:
        return []
    piv = lapack_pivoted_cholesky(S, rtol * top)
    if piv is None:  # an argument LAPACK refused: nothing is known about the pivots
        return _pivoted_cholesky_numpy(G, rtol, nb)
    return piv


def _pivoted_cholesky_numpy(G: np.ndarray, rtol: float = _GRAM_RTOL, nb: int = 64) -> list[int]:
    """:func:`_pivoted_cholesky` in numpy (blocked outer-product updates, one Python step per pivot)."""
    m = G.shape[0]
    S = np.array(G, dtype=np.float64)  # [m, m] residual, updated once per block of nb pivots
    diag = np.diag(S).copy()           # residual diagonal; -inf marks an index taken or dropped
    top = float(diag.max()) if m else 0.0
    if not top > 0:
        return []
    tol = rtol * top
    piv: list[int] = []
    Lb = np.empty((m, nb))
    sq = np.empty(m)
    while True:
        t = 0
        while t < nb:
            j = int(np.argmax(diag))
            if not diag[j] > tol:
                break
            col = Lb[:, t]
            np.subtract(S[j], Lb[:, :t] @ Lb[j, :t], out=col)  # row j = column j (S is symmetric), contiguous
            pj = col[j]
            diag[j] = -np.inf
            if not pj > tol:  # rounding made the residual inconsistent: drop this index
                continue
            col *= 1.0 / math.sqrt(pj)
            np.multiply(col, col, out=sq)
            diag -= sq
            diag[j] = -np.inf
            piv.append(j)
            t += 1
        if t:
            S -= Lb[:, :t] @ Lb[:, :t].T
            taken = np.isneginf(diag)
            diag = np.diag(S).copy()
            diag[taken] = -np.inf
        if t < nb:
            return piv


def row_samples(r: int) -> tuple[int, int]:
    """The sizes of the random row samples :func:`gram_pivots` tries, in order, for rank r (then all rows)."""
    return r + r // 8 + 32, 2 * r + 32


@overload
def gram_pivots(Z: np.ndarray, rng: np.random.Generator | None = None,
                stop: None = None, rtol: float = _GRAM_RTOL) -> tuple[np.ndarray, np.ndarray]: ...


@overload
def gram_pivots(Z: np.ndarray, rng: np.random.Generator | None,
                stop: threading.Event, rtol: float = _GRAM_RTOL) -> tuple[np.ndarray, np.ndarray] | None: ...


def gram_pivots(Z: np.ndarray, rng: np.random.Generator | None = None,
                stop: threading.Event | None = None, rtol: float = _GRAM_RTOL) -> tuple[np.ndarray, np.ndarray] | None:
    """Rows I and columns J of Z with Z[I, J] non-singular in floating point and |I| = |J| its
    numerical rank (a heuristic: the certificate checks the minor it is given). ``stop``: an event that, once set,
    makes the search give up at its next stage (after the column pivots, before each row sample and before the
    all-rows factorisation) and return None.

    On the tall orientation W (rows >= columns): J from the pivoted Cholesky factorisation of the
    small Gram matrix W^T W, then I from that of W[S, J] W[S, J]^T for |J| + |J| // 8 + 32 random
    rows S; if those do not reach rank |J|, 2 |J| + 32 random rows, then all rows (``row_samples``).
    Greedy rows of W[:, J] span its row space, so W[I, J] is non-singular when both steps are exact.
    One Gram product and two factorisations: much cheaper than complete pivoting. (At 512 x 768,
    rank 300, on one thread, with the numpy factorisation: 30 ms, against 48 ms with 2 |J| + 32 rows and blocks
    of 32; with LAPACK's, 11 ms, measured 2026-12-04. The small
    sample misses rank more often on rows that carry some directions only a few at a time; the
    second sample is the one used before, so such inputs pay one small factorisation more, not the
    all-rows one: 4000 x 300 with 50 directions carried by 40 rows each took 0.03-1.1 s with the
    small sample alone, against 0.04-0.06 s with 2 |J| + 32 rows.) ``rtol``: the factorisations stop when every
    residual diagonal entry is at most this times the largest diagonal entry of the Gram matrix.
    """
    Z = np.asarray(Z, dtype=np.float64)
    n, d = Z.shape
    tall = n >= d
    W = Z if tall else Z.T
    J = np.asarray(_pivoted_cholesky(W.T @ W, rtol, overwrite=True), dtype=np.intp)
    r = len(J)
    if r == 0:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty
    if stop is not None and stop.is_set():
        return None
    T = W[:, J]
    nW = W.shape[0]
    I = None
    g = rng if rng is not None else np.random.default_rng(0)
    for m in row_samples(r):
        if I is not None or m >= nW:
            break
        if stop is not None and stop.is_set():
            return None
        sub = np.sort(g.choice(nW, m, replace=False))
        Ts = T[sub]
        Is = _pivoted_cholesky(Ts @ Ts.T, rtol, overwrite=True)
        if len(Is) == r:
            I = sub[np.asarray(Is, dtype=np.intp)]
    if I is None:
        if stop is not None and stop.is_set():
            return None
        I = np.asarray(_pivoted_cholesky(T @ T.T, rtol, overwrite=True), dtype=np.intp)
    k = min(len(I), r)
    I, J = I[:k], J[:k]
    return (I, J) if tall else (J, I)


def gram_pivots_beside(Z: np.ndarray, rng: np.random.Generator | None, stop: threading.Event):
    """A future of ``gram_pivots(Z, rng, stop)`` on the lifting's pool, for a caller with other work meanwhile
    (:func:`theorems.exact.certified_rank.rank_certificate` runs Rump's test, and sets ``stop`` when its probe says
    the matrix is probably of full rank), or None when that does not pay: ``LIFT_THREADS`` 1, n d min(n, d) below
    ``_THREAD_MIN_WORK``, or a long side more than twice the short one (the job's first stage, which no stop can
    interrupt, costs about max(n, d) min(n, d)^2 against the test's min(n, d)^3: on a full-rank 200 x 20000 matrix
    the job made the call 1.5-2 times slower). ``rng`` must be the job's own generator (nothing else may draw from
    it meanwhile); the caller must wait for the future before it returns."""
    if not pivots_beside_pay(*Z.shape):
        return None
    return submit(LIFT_THREADS, gram_pivots, Z, rng, stop)


def pivots_beside_pay(n: int, d: int) -> bool:
    """Does :func:`gram_pivots_beside` start a job for an n x d matrix? (See there.)"""
    return LIFT_THREADS >= 2 and n * d * min(n, d) >= _THREAD_MIN_WORK and max(n, d) <= 2 * min(n, d)


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


def _complement(idx, size: int) -> np.ndarray:
    """The indices in range(size) not in idx, sorted."""
    keep = np.ones(size, dtype=bool)
    keep[idx] = False
    return np.flatnonzero(keep)


def det_bound_sq(A: np.ndarray) -> int | None:
    r"""An integer D2 >= det(A)^2 for a square float64 matrix A of integers, or None (no bound found).

    G = A^T A is computed exactly (integers: every partial sum is at most r max|a|^2, required below
    2^53, and BLAS is exact on such products, :func:`blas_is_exact`), L is numpy's Cholesky factor of
    G + tau I (tau a power of two >= 1, so G + tau I is exact; L's upper triangle is zeroed), and
    L L^T - G >= 0 is *verified*: with P = fl(L L^T) and W = fl(P - G),
    |P - L L^T| <= gamma_r |L||L|^T <= gamma_r fl(|L||L|^T) / (1 - gamma_r) (any summation order) and
    |W - (P - G)| <= u |W| / (1 - u), so S = L L^T - G satisfies |S_ij - W_ij| <= F_ij with F computed
    from those bounds (and inflated by 1 + 2^-40 for the few roundings in F itself); Gershgorin's
    theorem gives lambda_min(S) >= min_i (W_ii - sum_{j != i} |W_ij| - sum_j F_ij) > 0 (checked with
    the row sums inflated by 1 + (2r + 8) u + 2^-40). Then G <= L L^T in the Loewner order and G >= 0,
    so det(A)^2 = det G <= det(L L^T) = prod_k L_kk^2, evaluated exactly in rationals.
    """
    r = A.shape[0]
    if r == 0:
        return 1
    amax = float(np.abs(A).max())
    if not amax * amax * r < _EXACT or not blas_is_exact():
        return None
    with np.errstate(all="ignore"):
        G = A.T @ A                                   # exact integers
        gr = r * _U / (1 - r * _U)
        gmax = float(G.diagonal().max())
        want = 8.0 * r * gr * gmax
        tau = 2.0 ** max(0, math.ceil(math.log2(want))) if want > 0 else 1.0
        if not gmax + tau < _EXACT:
            return None
        H = G.astype(np.float64)                     # a copy (and floats for an integer A)
        H[np.diag_indices(r)] += tau                  # G + tau I, exact: integers below 2^53
        try:
            L = np.tril(np.linalg.cholesky(H))
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.isfinite(L)):
            return None
        W = L @ L.T - G
        absL = np.abs(L)
        F = np.abs(W) * (_U / (1 - _U)) + (absL @ absL.T) * (gr / (1 - gr))
        F *= 1 + 2.0 ** -40                           # the roundings of F itself
        off = np.abs(W)
        off[np.diag_indices(r)] = 0.0
        rows = (off.sum(axis=1) + F.sum(axis=1)) * (1 + (2 * r + 8) * _U + 2.0 ** -40)
        if not np.all(W.diagonal() > rows):
            return None
    num, shift = 1, 0                                 # prod L_kk^2 = num / 2^shift exactly (dyadic floats)
    for v in L.diagonal().tolist():
        a, b = v.as_integer_ratio()                   # b is a power of two
        num *= a * a
        shift += 2 * (b.bit_length() - 1)
    return -(-num >> shift)                           # the ceiling of num / 2^shift


def rump_residual_bound(R: np.ndarray, B: np.ndarray) -> float:
    r"""A rigorous upper bound on :math:`\|I - RB\|_\infty` for square float64 matrices R, B (exact values).

    :math:`|fl(RB) - RB| \le \gamma_k|R||B|` in any summation order, the subtraction of I, the
    absolute values, the product :math:`|R||B|` (computed, so at least :math:`(1-\gamma_k)` times the
    exact one) and the row sums are each bounded the same way; ``k 2^-1000`` covers underflow.
    """
    k = B.shape[0]
    with np.errstate(all="ignore"):
        g = k * _U / (1 - k * _U)
        D = R @ B
        D[np.diag_indices(k)] -= 1.0
        absRB = np.abs(R) @ np.abs(B)
        entries = np.abs(D) * (1 + 2 * _U) + (g / (1 - g)) * absRB
        entries *= 1 + 3 * _U
        rows = entries.sum(axis=1) / (1 - g) + k * 2.0 ** -1000  # absolute slack for underflow
        return float(rows.max())


def inverse_norm_bound(A: np.ndarray) -> float | None:
    r"""A float N >= ||A^{-1}||_inf for a square float64 matrix A (exact values), or None.

    R = inv(A) in float64 and delta >= ||I - RA||_inf rigorously (Rump's bound,
    :func:`rump_residual_bound`); if delta < 1 then RA is invertible,
    A^{-1} = (RA)^{-1} R and ||(RA)^{-1}||_inf <= 1 / (1 - delta), so ||A^{-1}||_inf <=
    ||R||_inf / (1 - delta). The float row sums of |R| are at least (1 - gamma_r) times the exact
    ones; the three further roundings are covered by the factor 1 + 2^-40.
    """
    r = A.shape[0]
    if r == 0:
        return 0.0
    with np.errstate(all="ignore"):
        try:
            R = np.linalg.inv(A)
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.isfinite(R)):
            return None
        delta = rump_residual_bound(R, A)
        if not delta < 1.0:
            return None
        gr = r * _U / (1 - r * _U)
        rowsum = float(np.abs(R).sum(axis=1).max()) / (1 - gr)
        N = rowsum / (1 - delta) * (1 + 2.0 ** -40)
    return N if math.isfinite(N) else None


def schur_bound_sq(Z: np.ndarray, rows, cols) -> int | None:
    r"""An integer S2 >= k^2 for every (r+1)-minor k bordering Z[rows, cols], or None (no bound found).

    On the tall orientation W with pivots I, J and A = W[I, J]: k_ij = det A * s_ij with
    s_ij = w_ij - c_i^T A^{-1} b_j, so |k_ij| <= |det A| (|w_ij| + ||c_i||_1 ||A^{-1}||_inf ||b_j||_inf),
    with :func:`det_bound_sq` and :func:`inverse_norm_bound` (both verified in floating point) and the
    maxima over i, j of the exact integer norms. The products are evaluated in exact rationals.
    """
    Z = np.asarray(Z, dtype=np.float64)
    n, d = Z.shape
    rows, cols = np.asarray(rows, dtype=np.intp), np.asarray(cols, dtype=np.intp)
    W, I, J = (Z, rows, cols) if n >= d else (Z.T, cols, rows)
    Ibar = _complement(I, W.shape[0])
    Jbar = _complement(J, W.shape[1])
    if Ibar.size == 0 or Jbar.size == 0:
        return 0  # no bordering minor
    A = W[np.ix_(I, J)]
    D2 = det_bound_sq(A)
    N = inverse_norm_bound(A)
    if D2 is None or N is None:
        return None
    wmax = int(np.abs(W[np.ix_(Ibar, Jbar)]).max())
    c1 = int(np.abs(W[np.ix_(Ibar, J)]).astype(np.int64).sum(axis=1).max()) if len(J) else 0  # exact int64
    binf = int(np.abs(W[np.ix_(I, Jbar)]).max()) if len(I) else 0
    s = Fraction(wmax) + Fraction(c1) * Fraction(N) * Fraction(binf)
    s_up = -(-s.numerator // s.denominator)
    return D2 * s_up * s_up


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


def _gauss_jordan_small(D: np.ndarray, q: int) -> np.ndarray | None:
    """D^{-1} mod q (residues in [0, q)) for a small float64 matrix of residues, or None if singular mod q."""
    b = D.shape[0]
    fq = float(q)
    M = np.hstack([D, np.eye(b)])
    for j in range(b):
        nz = np.flatnonzero(M[j:, j])
        if nz.size == 0:
            return None
        i = j + int(nz[0])
        if i != j:
            M[[j, i]] = M[[i, j]]
        M[j] = np.remainder(M[j] * float(pow(int(M[j, j]), -1, q)), fq)   # products below q^2
        col = M[:, j].copy()
        col[j] = 0.0
        M = np.remainder(M - np.outer(col, M[j]), fq)                       # |.| below q^2
    return M[:, b:]


def _residues(X: np.ndarray, q: float) -> np.ndarray:
    """X mod q in [0, q) (a new float64 array) for float64 X holding integers and an integer 2 <= q < 2^53.

    ``np.remainder`` computes the same residues about 17 times slower here (2.2 ms against 0.13 ms on a 300 x 300
    array; measured 2026-12-04), so when |X| + 2q <= 2^53: t = floor(X fl(1/q)) is within 1 of floor(X / q) (the two
    roundings err by at most 2 u |X / q| < 1), so |t| <= |X| / q + 2 and q t, an integer of magnitude at most
    |X| + 2q <= 2^53, is exact; R = X - q t is then exact and lies in [-q, 2q), and one correction each way puts it in
    [0, q). The range is tested exactly (2^53 - 2q is exact): entries near 2^53 or beyond, and NaN or infinities,
    go to ``np.remainder``, exact for every float64. The callers do not trust what they compute from residues
    (C A = I is checked exactly): this is speed, not soundness.
    """
    fq = float(q)
    if X.size and not absmax(X) <= 2.0 ** 53 - 2.0 * fq:
        return np.remainder(X, fq)
    R = np.multiply(X, 1.0 / fq)
    np.floor(R, out=R)
    R *= fq
    np.subtract(X, R, out=R)
    np.add(R, fq, out=R, where=R < 0)
    np.subtract(R, fq, out=R, where=R >= fq)
    return R


#: blocks of at most this size are inverted by FLINT in :func:`schur_inverse_mod_prime`
SCHUR_LEAF = 32


def _flint_inverse_residues(D: np.ndarray, q: int) -> np.ndarray | None:
    """D^{-1} mod q as float64 residues in [0, q) (FLINT's nmod_mat), or None if D is singular mod q."""
    n = D.shape[0]
    N = _nmod(D, q)
    try:
        Ni = N.inv()
    except ZeroDivisionError:  # FLINT: "matrix is singular"
        return None
    return np.fromiter(map(int, Ni.entries()), dtype=np.float64, count=n * n).reshape(n, n)


def schur_inverse_mod_prime(A: np.ndarray, q: int, leaf: int = SCHUR_LEAF) -> np.ndarray | None:
    r"""A^{-1} mod the prime q (residues in [0, q), float64) by block recursion on Schur complements, or
    None when a leading block or a Schur complement met on the way is singular mod q (A itself may be
    invertible: callers then use :func:`inverse_mod_prime`'s pivoting elimination).

    With :math:`A = \begin{pmatrix}A_{11}&A_{12}\\A_{21}&A_{22}\end{pmatrix}`, :math:`X = A_{11}^{-1}`,
    :math:`S = A_{22} - A_{21}XA_{12}` and :math:`Y = S^{-1}`:
    :math:`A^{-1} = \begin{pmatrix}X + XA_{12}YA_{21}X & -XA_{12}Y\\ -YA_{21}X & Y\end{pmatrix}`. Blocks of
    at most ``leaf`` rows are inverted by FLINT; every other operation is a float64 product of residues
    in [0, q) reduced at once (exact: r (q - 1)^2 < 2^53, BLAS as in :func:`blas_is_exact`). Six
    products of half the size per level instead of a Python loop per column: the 300 x 300 inverse of
    the 512 x 768 rank-300 benchmark takes a few milliseconds. Not trusted: callers check C A = I.
    """
    r = A.shape[0]
    if not r * (q - 1) ** 2 < _EXACT:
        raise ValueError(f"schur_inverse_mod_prime: r (q-1)^2 = {r * (q - 1) ** 2} is not below 2^53")
    if not flint.fmpz(int(q)).is_prime():  # FLINT's nmod_mat inverse aborts the process on a composite modulus
        raise ValueError(f"schur_inverse_mod_prime: the modulus {q} is not a prime")
    return _schur_inverse(_residues(np.asarray(A, dtype=np.float64), q), q, max(1, int(leaf)))


def _schur_inverse(W: np.ndarray, q: int, leaf: int) -> np.ndarray | None:
    """The recursion of :func:`schur_inverse_mod_prime` on residues W in [0, q)."""
    r = W.shape[0]
    if r <= leaf:
        return _flint_inverse_residues(W, q)
    fq = float(q)
    h = r // 2
    X = _schur_inverse(W[:h, :h], q, leaf)
    if X is None:
        return None
    A12, A21 = W[:h, h:], W[h:, :h]
    XA12 = _residues(X @ A12, fq)                                        # [h, r - h]
    S = _residues(W[h:, h:] - _residues(A21 @ XA12, fq), fq)             # the Schur complement
    Y = _schur_inverse(S, q, leaf)
    if Y is None:
        return None
    A21X = _residues(A21 @ X, fq)                                        # [r - h, h]
    out = np.empty((r, r))
    out[:h, h:] = TR = _residues(-(XA12 @ Y), fq)                        # -X A12 Y
    out[h:, :h] = _residues(-(Y @ A21X), fq)                             # -Y A21 X
    out[:h, :h] = _residues(X - _residues(TR @ A21X, fq), fq)            # X + X A12 Y A21 X
    out[h:, h:] = Y
    return out


def inverse_mod_prime(A: np.ndarray, q: int, nb: int = 64, leaf: int = SCHUR_LEAF) -> np.ndarray | None:
    """A^{-1} mod the prime q (residues in [0, q), float64), or None if A is singular mod q.

    First :func:`schur_inverse_mod_prime` (``leaf`` 0 skips it); when it meets a singular block, blocked
    Gauss-Jordan elimination with row pivoting on [A | I] in float64 (panels of ``nb`` columns).

    Needs r (q - 1)^2 < 2^53: every entry is a residue in [0, q), so every product, outer product and
    block product of residues sums to an integer below 2^53 and is exact (BLAS as in
    :func:`blas_is_exact`), and ``np.remainder`` of an exact integer is exact. The result is not
    trusted: callers check C A = I mod q (or mod q^2) exactly.
    """
    r = A.shape[0]
    if r == 0:
        return np.zeros((0, 0))
    if not r * (q - 1) ** 2 < _EXACT:
        raise ValueError(f"inverse_mod_prime: r (q-1)^2 = {r * (q - 1) ** 2} is not below 2^53")
    if leaf > 0:
        C = schur_inverse_mod_prime(A, q, leaf)
        if C is not None:
            return C
    fq = float(q)
    W = np.zeros((r, 2 * r))
    W[:, :r] = np.remainder(A, fq)
    W[np.arange(r), r + np.arange(r)] = 1.0
    for k0 in range(0, r, nb):
        k1 = min(r, k0 + nb)
        b = k1 - k0
        P = W[k0:, k0:k1].copy()                       # the panel, eliminated below its pivots
        for j in range(b):
            nz = np.flatnonzero(P[j:, j])
            if nz.size == 0:
                return None
            i = j + int(nz[0])
            if i != j:
                P[[j, i]] = P[[i, j]]
                W[[k0 + j, k0 + i]] = W[[k0 + i, k0 + j]]
            if j + 1 < b and j + 1 < P.shape[0]:
                ell = np.remainder(P[j + 1:, j] * float(pow(int(P[j, j]), -1, q)), fq)
                P[j + 1:, j + 1:] = np.remainder(P[j + 1:, j + 1:] - np.outer(ell, P[j, j + 1:]), fq)
        Dinv = _gauss_jordan_small(W[k0:k1, k0:k1], q)
        if Dinv is None:
            return None
        W[k0:k1, k0:] = np.remainder(Dinv @ W[k0:k1, k0:], fq)
        piv = W[k0:k1, k0:]
        for lo, hi in ((0, k0), (k1, r)):
            if hi > lo:
                W[lo:hi, k0:] = np.remainder(W[lo:hi, k0:] - W[lo:hi, k0:k1] @ piv, fq)
    return W[:, r:].copy()


def _inverse_mod_power(A: np.ndarray, q: int, e: int) -> np.ndarray | None:
    """C with C A = I mod q^e expected (e = 1 or 2; balanced residues, float64), or None if A is
    singular mod q. Not trusted: the caller checks C A = I mod q^e exactly.

    e = 2: C1 = A^{-1} mod q, A C1 = I + q F (F computed exactly from A = A_lo + q A_hi mod q^2),
    then C = C1 (I - q F) = C1 - q (C1 F mod q) mod q^2, so A C = (I + qF)(I - qF) = I mod q^2.
    When r max|A| (q - 1) < 2^53 the product A C1 itself is exact: A_lo = A, A_hi = 0, and neither the reduction
    of A nor the product A_hi C1 is computed (the 300 x 300 inverse mod q^2 of the 512 x 768 rank-300 benchmark:
    9.4 ms against 14.0 ms, measured 2026-12-04, fourth session).
    """
    r = A.shape[0]
    if r * (q - 1) ** 2 >= _EXACT:
        if e != 1:
            raise ValueError("a square modulus needs r (q-1)^2 < 2^53")
        return _inverse_mod_p(A, q)
    C1 = inverse_mod_prime(A, q)
    if C1 is None:
        return None
    m, fq = q ** e, float(q)
    if e == 2:
        if int(absmax(A)) * (q - 1) * r < _EXACT:   # A C1 is exact with A itself: A_lo = A, A_hi = 0
            Alo, Ahi = A, None
        else:
            A2 = _residues(A, float(m))
            Alo = _residues(A2, fq)
            Ahi = (A2 - Alo) / fq                    # exact: integers below q
        S = Alo @ C1                                 # exact: every partial sum below 2^53 (C1 in [0, q))
        S[np.diag_indices(r)] -= 1.0
        F1 = np.rint(S / fq)
        if not np.array_equal(F1 * fq, S):           # C1 is not an inverse mod q
            return None
        F = _residues(F1 if Ahi is None else F1 + Ahi @ C1, fq)
        C1 = _residues(C1 - fq * _residues(C1 @ F, fq), float(m))
    C = C1
    np.subtract(C, float(m), out=C, where=C > m // 2)  # balanced residues (a masked ufunc: 0.1 ms, not 0.8)
    return C


def _lift_block(E: np.ndarray, MJ: np.ndarray, y: np.ndarray, T: np.ndarray, m: int, K: int, xb: int, yb: int,
                stop: threading.Event | None = None):
    """K lifting steps on one block of columns (see the module docstring); y and T may be overwritten.

    Returns (k, why): k digits lifted; why None (all K), "minor" (the division of step k + 1 was not
    exact: a bordering minor is not 0 mod m^(k+1)), "range" (the last y left its proved range |y| <= yb, which the
    module docstring proves cannot happen: a check of that proof, not a step of it) or "stopped" (``stop`` was set
    before step k + 1: another block failed or the caller was interrupted). ``xb`` is the proved bound on the digits
    (the module docstring's x_b: no step tests it, the proof does).

    Seven passes over the block per step besides the two products, in place (the products subtract into t and T
    through BLAS, :class:`~theorems.exact.blas_runtime.UpdateKernels`): 97-110 ms against 116-120 ms for one of the
    two blocks of the 512 x 768 rank-300 benchmark (CPU time of its thread, the products alone 93-95 ms, measured
    2026-12-06 at load 5); the arithmetic and every integer are the same.
    """
    kern = update_kernels()
    E, MJ = np.asfortranarray(E, dtype=np.float64), np.asfortranarray(MJ, dtype=np.float64)
    y, T = np.asfortranarray(y, dtype=np.float64), np.asfortranarray(T, dtype=np.float64)
    fm, inv_m = float(m), 1.0 / m
    t, Q = np.empty_like(y, order="F"), np.empty_like(T, order="F")
    for k in range(K):
        if stop is not None and stop.is_set():
            return k, "stopped"
        np.multiply(y, inv_m, out=t)
        np.rint(t, out=t)                            # t = rint(y / m)
        kern.axpy(-fm, t, y)                         # y <- x = y - m t, exact: |m t| <= |y| + xb < 2^53, |x| <= xb
        kern.gemm_sub(E, y, t)                       # t <- y_{k+1} = t - E x, exact: every partial sum <= Y < 2^53
        kern.gemm_sub(MJ, y, T)                      # T <- D = T - M x, exact: every partial sum <= Tb + SA xb
        np.multiply(T, inv_m, out=Q)
        np.rint(Q, out=Q)                            # Q = rint(D / m)
        kern.axpy(-fm, Q, T)                         # T <- D - m Q: 0 exactly when m Q = D (the module docstring)
        if T.any():                                  # not divisible by m
            return k, "minor"
        T, Q = Q, T                                  # T_{k+1} = (T_k - M x) / m exactly
        y, t = t, y                                  # y_{k+1}; the old y (now x) is the next step's t
    if y.size and not absmax(y) <= float(yb):
        return K, "range"
    return K, None


def lift_threads(n: int, r: int, c: int) -> int:
    """The threads :func:`_lift` runs a lifting on: n rows in all (r + the checked rows), an r x r minor and c lifted
    columns. ``LIFT_THREADS`` when a step has at least ``_THREAD_MIN_WORK`` multiply-adds and c >= 32, else 1.
    (``benchmarks/test_bench_rank_deficient.py`` times the products alone on the same threads.)"""
    return LIFT_THREADS if n * r * c >= _THREAD_MIN_WORK and c >= 32 else 1


def _lift(E, MJ, y, T, m, K, xb, yb):
    """:func:`_lift_block` over column blocks, on up to LIFT_THREADS threads; (k, why) of the first failure.

    Every matrix of the lifting is column-major and each product has an array of its own: OpenBLAS then runs the
    step's products as the tall products they are, not as their transposes, and no elementwise operation works on a
    strided view (120 ms against 127-129 ms for the 105 steps of the 512 x 768 rank-300 benchmark on two threads,
    measured 2026-12-04); the arithmetic is the same."""
    r, c = y.shape
    nt = lift_threads(r + MJ.shape[0], r, c)
    update_kernels()                         # found and checked once per process, here rather than in two threads
    E, MJ = np.asfortranarray(E), np.asfortranarray(MJ)
    with single_threaded_blas():
        if nt == 1:
            return _lift_block(E, MJ, np.array(y, order="F"), np.array(T, order="F"), m, K, xb, yb)
        cuts = np.linspace(0, c, nt + 1).astype(int)
        stop = threading.Event()
        futs: list = []
        # every block's copies are made before the first block starts (not beside it): the blocks start together
        parts = [(np.array(y[:, a:b], order="F"), np.array(T[:, a:b], order="F")) for a, b in zip(cuts[:-1], cuts[1:])]
        try:
            for yp, Tp in parts:
                futs.append(submit(nt, _lift_block, E, MJ, yp, Tp, m, K, xb, yb, stop))
            for f in as_completed(futs):
                f.result()                   # the first block to fail, whichever it is: raised at once
            res = [f.result() for f in futs]
        finally:  # a block failed or the caller was interrupted (Ctrl-C): the others stop at their next step, and no
            stop.set()  # block runs on once this block has restored OpenBLAS's thread count
            wait(futs)
    fails = [kw for kw in res if kw[1] is not None]
    return min(fails) if fails else (K, None)


def _rowsum_bound(X: np.ndarray) -> int:
    """An integer >= max_i sum_l |X_il| (float sums inflated for their rounding; exact below 2^53)."""
    if X.size == 0:
        return 0
    s = float(np.abs(X).sum(axis=1).max())
    return math.ceil(s * (1 + 2 * (X.shape[1] + 2) * _U))


def _absmax(X: np.ndarray) -> int:
    """max |X| of a float64 array of integers as an exact int (0 when empty): :func:`absmax`."""
    return int(absmax(X))


def _bounds(m: int, cs: int, es: int, amax: int, bmax: int, sa: int, tmax: int):
    """(ok, xb, Y) for modulus m given the row-sum bounds cs >= max_i sum |C_i.|, es >= max_i sum |E_i.|:
    every integer of the lifting below 2^53 (see the module docstring)."""
    xb = m // 2 + 2
    y0 = cs * bmax
    ystar = -(-(es * xb + 1) * m // (m - 1))
    yb = max(y0, ystar)
    tb = max(tmax, -(-sa * xb // (m - 1)))
    ok = cs * max(amax, bmax) < _EXACT and yb + m < _EXACT and sa * xb + tb < _EXACT
    return ok, xb, yb


def _largest_modulus(fits) -> int:
    """A modulus m within 1/16 bit of the largest in [2, 2^53) with fits(m) (fits is monotone), or 1 if none."""
    lo, hi = 0, 53 * 16          # exponents k of m = floor(2^(k / 16)); fits(2^0) is not required
    if not fits(2):
        return 1
    lo = 16
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(int(2.0 ** (mid / 16))) else (lo, mid)
    return max(2, int(2.0 ** (lo / 16)))


def _random_prime(top: int, rng) -> int:
    """The largest prime <= top, or with rng a random prime in [7 top / 8, top] (falls back to the largest)."""
    if rng is not None and top > 64:
        p = _prime_below(int(rng.integers(top - top // 8, top + 1)) + 1)
        if p >= top - top // 8:
            return p
    return _prime_below(top + 1)


def _bordering_bounds_sq(Z: np.ndarray, rows, cols) -> tuple[int, int | None]:
    """(Hadamard's bound, the Schur bound or None), both squared, on every bordering minor of Z[rows, cols]."""
    return bordered_hadamard_bound_sq(Z, rows, cols), schur_bound_sq(Z, rows, cols)


def padic_rank_certificate(Z: np.ndarray, rows=None, cols=None, prime: int | None = None,
                           rng: np.random.Generator | None = None) -> PadicCertificate | None:
    """Certify rank Z (``Z``: float64 holding integers below 2^MAX_ENTRY_BITS) by a bordering minor.

    Returns None when the certificate cannot be tried (entries too large, no usable modulus, or no
    invertible minor at the chosen pivots); otherwise a :class:`PadicCertificate` whose ``lower``
    is certified and whose ``upper`` equals ``lower`` when every bordering minor was proved zero
    (``None`` when the lifting found one that is not zero mod m^k, i.e. the heuristic pivots missed
    rank). ``prime`` forces the modulus to that prime (tests use small ones); by default the modulus
    is m = q^2 for the largest prime q (with ``rng``: a random prime in the top eighth of the range)
    for which every integer of the lifting stays below 2^53, so that an adversary cannot make the
    minor singular mod every modulus tried. See the module docstring for the proof.
    """
    with single_threaded_blas():  # one BLAS thread throughout: robust on a shared machine (the lifting threads itself)
        return _padic_rank_certificate(Z, rows, cols, prime, rng)


def _padic_rank_certificate(Z, rows, cols, prime, rng) -> PadicCertificate | None:
    Z = np.asarray(Z, dtype=np.float64)  # [n, d]
    n, d = Z.shape
    if not whole_below(Z, 2.0 ** MAX_ENTRY_BITS) or not blas_is_exact():
        return None
    amax = absmax(Z)
    if prime is not None and not (int(prime) >= 2 and flint.fmpz(int(prime)).is_prime()):
        raise ValueError(f"prime {prime} is not a prime for which the float64 lifting is exact")
    if amax == 0:
        return PadicCertificate(0, 0, note="the zero matrix")
    if rows is None or cols is None:
        rows, cols = gram_pivots(Z, rng)
    rows, cols = np.asarray(rows, dtype=np.intp), np.asarray(cols, dtype=np.intp)
    r = len(rows)
    # the two bounds on the bordering minors need only the pivots: on a pool thread they are computed while this
    # thread computes the inverse mod m (at 512 x 768, rank 300, about 12 ms that would otherwise be waited for);
    # small inputs compute them inline, after the inverse, as before. Every return below waits for the job first
    # (try / finally): none leaves work running, nor BLAS calls after single_threaded_blas has ended.
    # (the pool thread computes the Schur bound, the longer of the two: 19 ms against the inverse's 15 ms at 512 x
    # 768, rank 300, CPU time, 2026-12-06; Hadamard's, 3.6 ms, is computed here after the inverse, while it runs)
    bounds = (submit(LIFT_THREADS, schur_bound_sq, Z, rows, cols)
              if LIFT_THREADS > 1 and 0 < r < min(n, d) and n * d * r >= _THREAD_MIN_WORK else None)
    try:
        tall = n >= d
        W, I, J = (Z, rows, cols) if tall else (Z.T, cols, rows)
        Ibar = _complement(I, W.shape[0])
        Jbar = _complement(J, W.shape[1])
        A = W[np.ix_(I, J)]                      # [r, r]
        B = W[np.ix_(I, Jbar)]                   # [r, c]
        MJ = W[np.ix_(Ibar, J)]                  # [n - r, r]
        T0 = W[np.ix_(Ibar, Jbar)]               # [n - r, c]
        amaxA, bmax = _absmax(A), _absmax(B)
        sa = _rowsum_bound(MJ)
        tmax = _absmax(T0)
        # estimates of max_i sum_l |C_il| (C uniform residues) and max_i sum_l |E_il| (E_ij ~ N(0, |a_j|^2 / 12));
        # a failed estimate is retried with the actual row sums, then with worst-case bounds (always valid)
        colnorms = float(np.sqrt((A * A).sum(axis=0)).sum()) if A.size else 0.0
        es_worst = _rowsum_bound(np.abs(A).sum(axis=0, keepdims=True)) // 2 + r + 1  # |E_ij| <= (m/2 colsum_j|A| + 1)/m
        worst = (r // 2 + 1, es_worst)
        plan = [(r // 4 + math.isqrt(r) + 1, int(0.3 * colnorms) + 1), None, worst]
        C = E = None
        q = e = m = 0
        cs = es_actual = 0  # no row sums measured yet: the retry falls back to the worst-case bounds
        for coef in plan:
            if coef is None:  # the actual row sums of the last attempt, 5 % up
                coef = (int(1.05 * cs / m) + 1, int(1.05 * es_actual) + 1) if es_actual else worst
            cs_coef, es = coef
            if prime is not None:
                q, e = int(prime), 1
            else:
                top = _largest_modulus(
                    lambda mm, cs_coef=cs_coef, es=es: _bounds(mm, cs_coef * mm, es, amaxA, bmax, sa, tmax)[0])
                if top < _MIN_MODULUS:
                    return None
                e = 2 if top >= _SQUARE_MODULUS_MIN else 1
                # a square modulus: the Gauss-Jordan elimination mod q needs r (q - 1)^2 < 2^53
                q = _random_prime(min(math.isqrt(top), math.isqrt((_EXACT - 1) // max(r, 1))) if e == 2 else top, rng)
            for _ in range(1 if prime is not None else 8):
                C = _inverse_mod_power(A, q, e)
                if C is not None:
                    break
                if prime is not None:
                    return None
                q = _random_prime(q - 1, rng)
            if C is None:
                return None
            m = q ** e
            cs, es_actual = _rowsum_bound(C), 0
            if cs * max(amaxA, bmax) < _EXACT:
                CA = C @ A                                           # exact: |.| <= cs max|A| < 2^53
                CA[np.diag_indices(r)] -= 1.0
                Em = np.rint(CA / float(m))
                if not np.array_equal(Em * float(m), CA):            # C A != I mod m: C is no inverse
                    return None
                es_actual = _rowsum_bound(Em)
                ok, xb, yb = _bounds(m, cs, es_actual, amaxA, bmax, sa, tmax)
                if ok:
                    E = Em
                    break
            if prime is not None:
                raise ValueError(f"prime {prime} is not a prime for which the float64 lifting is exact")
        if E is None:
            return None
        cert = PadicCertificate(r, None, prime=q, exponent=e, modulus=m, rows=rows.tolist(), cols=cols.tolist(),
                                transposed=not tall)
        if r == min(n, d):
            cert.upper = r
            cert.note = f"an r x r minor is invertible mod {q}^{e} (C A = I checked) and r = min(n, d)"
            return cert
        H2, S2 = ((bordered_hadamard_bound_sq(Z, rows, cols), bounds.result()) if bounds is not None
                  else _bordering_bounds_sq(Z, rows, cols))
        cert.hadamard_bits = H2.bit_length() / 2
        bound2, cert.bound = (S2, "Schur") if S2 is not None and S2 < H2 else (H2, "Hadamard")
        cert.bound_bits = bound2.bit_length() / 2
        K, mK2 = 1, m * m
        while mK2 <= bound2:
            K, mK2 = K + 1, mK2 * m * m
        y0 = C @ B                               # exact: |.| <= cs bmax < 2^53
        k, why = _lift(E, MJ, y0, T0, m, K, xb, yb)  # E x gives y, M x the check rows
        if why not in (None, "minor"):           # "range" ("stopped" is not returned: _lift raises instead)
            return None
        if why == "minor":
            cert.steps = k
            cert.note = f"bordering minor nonzero mod {q}^{e * (k + 1)}: the pivots miss rank"
            return cert
        cert.upper, cert.steps = r, K
        cert.note = (f"all bordering {r + 1}-minors = 0 mod {q}^{e * K} > {cert.bound} bound 2^{cert.bound_bits:.0f}")
        return cert
    finally:
        if bounds is not None:
            bounds.cancel()
            wait([bounds])
