r"""Exact LayerNorm / RMSNorm analysis of a float (or rational) matrix at full model width.

The same quantities as :func:`theorems.paper.rank_neutrality.analyse` (H1-H4, rank and affine rank of X
and of LN(X), the memberships behind them), decided without building a sympy matrix: every
quantity is reduced to the rank of an exact integer matrix (the input scaled exactly, bordered by
small integer rows and columns) and to the square classes of the row variances, and each rank is
decided by :func:`theorems.exact.certified_rank.rank_certificate`, the one certified-rank procedure that
``certified_rank`` runs too (a rank modulo a random prime is a lower bound; upper bounds come from
structure, the p-adic bordering certificate, a kernel certificate, or FLINT's exact rank on small
matrices). Nothing is decided in floating point without a verified error bound; numpy is used on
exactly representable integers, and in Rump's and the p-adic certificate's verified bounds.

The reduction
=============
Write :math:`X = cZ` with :math:`Z` integer and :math:`c>0` (a power of two for float input: the
scaling of :func:`theorems.exact.certified_rank.dyadic_scale`). For LayerNorm let
:math:`q_i = d\sum_j z_{ij}^2-(\sum_j z_{ij})^2` (an integer) so that :math:`\sigma_i = c\sqrt{q_i}/d`;
for RMSNorm :math:`q_i = d\sum_j z_{ij}^2` and :math:`\rho_i = c\sqrt{q_i}/d`. Let
:math:`S=\{j:\gamma_j\ne0\}`. The column space of :math:`A=\tilde X\Gamma` (LayerNorm) or
:math:`X\Gamma` (RMSNorm) is :math:`Z(\ker C_S)` for a small integer matrix :math:`C_S`
(LayerNorm: rows :math:`\mathbf 1^\top` and :math:`e_j-e_{j_0}` for :math:`j\in\bar S`; RMSNorm:
rows :math:`e_j`, :math:`j\in\bar S`), so

.. math::
   \operatorname{rank}A = \operatorname{rank}\begin{bmatrix}Z\\C_S\end{bmatrix}-\operatorname{rank}C_S,\qquad
   \tau\in\operatorname{col}A \iff \operatorname{rank}\begin{bmatrix}Z&\tau\\C_S&0\end{bmatrix}
   =\operatorname{rank}\begin{bmatrix}Z\\C_S\end{bmatrix}.

In particular :math:`\operatorname{rank}(XP)=\operatorname{rank}[Z;\mathbf 1^\top]-1`. The vector
:math:`\sqrt q = \sum_k\sqrt{r_k}\,\tau_k` splits over square classes (indices i, j share a class iff
:math:`q_iq_j` is a perfect square; the :math:`\tau_k` have disjoint supports), and
:math:`\sqrt q\in\operatorname{col}A` iff :math:`[\tau_1\cdots\tau_c]\subseteq\operatorname{col}A`:
one rank. Two structural shortcuts decide the generic cases with no rank at all:
:math:`\operatorname{rank}A=n` gives membership, and more classes than :math:`\operatorname{rank}A`
gives non-membership (the :math:`\tau_k` are independent). The rank-one update
:math:`\operatorname{rank}(A+\sigma\beta^\top)` needs :math:`\tilde\beta = \beta/\gamma` (on
:math:`S`) in the row space of A, i.e. :math:`\operatorname{rank}[Z;C_S;\hat p^\top]=
\operatorname{rank}[Z;C_S]` with :math:`\hat p` the vector :math:`\tilde\beta` completed to lie in
:math:`\ker` of the centring (LayerNorm), and, when both memberships hold, the bordered rank
:math:`\operatorname{rank}\left[\begin{smallmatrix}Z&T\\C_S&0\\\hat p^\top&d\,v\end{smallmatrix}\right]`
with :math:`v=(-1,0,\dots,0)` on the rational class: it equals
:math:`\operatorname{rank}[Z;C_S]` iff the rank drops.

Square classes
==============
Each :math:`q_i` is trial-divided by the primes below 100; the parities of the exponents, the odd
part modulo 8 and the Legendre symbols of the remaining cofactor modulo those primes form a
signature that two indices in one square class always share. Only indices with equal signatures
are compared exactly (``isqrt``), against one representative per class. That work is bounded by
``max_square_tests``; past the bound the classes are undecided (``None``, with the reason), and
only what the number of distinct signatures (a lower bound on the number of classes) decides is
reported.

API
===
``analyse_array(X, gamma=None, beta=None, norm="layernorm" | "rmsnorm", seed=None,
max_square_tests=MAX_SQUARE_TESTS) -> NormAnalysis``: a subclass of
:class:`theorems.exact.layernorm.Analysis` with the same fields (``hypotheses``, ``rank_X``,
``arank_X``, ``rank_Xt``, ``arank_LN_X``, ``rank_LN_X``, ``ones_d_in_rowspace``,
``ones_n_in_colspace``, ``sigma_in_colspace_Xt``, ``sqrt_classes``, ``how``) plus ``norm``,
``certificates`` (one :class:`theorems.exact.certified_rank.CertifiedRank` record per rank, as JSON),
``primes``, ``seconds``, ``undefined_rows`` and ``h1_message()``. Any field may be ``None``:
undefined (H1 fails) or undecided within the budgets, with the reason in ``how``. Also public:
:func:`square_classes` and :func:`row_norm_integers`.

Examples
========
>>> a = analyse_array([[0, 2, -2], [1, 1, -2], [2, 0, -2]], seed=0)
>>> a.hypotheses
{'H1': True, 'H2': True, 'H3': True, 'H4': True}
>>> a.arank_X, a.arank_LN_X, a.rank_LN_X
(1, 2, 2)
>>> import numpy as np
>>> b = analyse_array(np.random.default_rng(0).normal(size=(40, 30)), seed=0)
>>> b.hypotheses, b.rank_X, b.arank_LN_X, b.sqrt_classes
({'H1': True, 'H2': False, 'H3': True, 'H4': True}, 30, 29, 40)
>>> analyse_array([[3, 0, 4], [0, 1, 0]], norm="rmsnorm", seed=0).arank_LN_X
1
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import flint
import numpy as np

from .blas_runtime import single_threaded_blas  # noqa: F401  (re-exported: benchmarks pin BLAS with it)
from .certified_rank import SUBSET_SLACK, CertifiedRank, dyadic_scale, random_primes, rank_certificate
from .input import BadInput, cap_list, classify_array, exact_entries, exact_rows, exact_vector
from .layernorm import Analysis
from .padic_rank import MAX_ENTRY_BITS

__all__ = ["analyse_array", "NormAnalysis", "NORMS", "square_classes", "row_norm_integers",
           "MAX_SQUARE_TESTS", "EXACT_MAX_ENTRIES", "KERNEL_MAX_ENTRIES"]

NORMS = ("layernorm", "rmsnorm")
#: exact ``isqrt`` comparisons allowed when grouping the q_i into square classes (past it: undecided)
MAX_SQUARE_TESTS = 200_000
#: FLINT's fraction-free exact rank is the last resort for matrices with at most this many entries
EXACT_MAX_ENTRIES = 200_000
#: the kernel certificate (nullspace mod a 62-bit prime, lifted, checked over Z) up to this many entries
KERNEL_MAX_ENTRIES = 1_000_000
#: trial division and Legendre symbols for the square-class signatures (odd primes below 100)
_SIG_PRIMES = (3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97)
_SIG_PRIMORIAL = math.prod(_SIG_PRIMES)
_LIMB = 26                  # limb width for exact int64 row sums (products < 2^52)
_MAX_LIMBS = 8              # past 8 limbs (208-bit integers) row sums are done with Python integers
_ROW_CHUNK = 1024           # columns summed at once in int64 (1024 * 2^52 < 2^63)


# --- the input, exactly ------------------------------------------------------------------------

class ExactRows:
    """X = c Z with Z an integer matrix; residues, floats and Python integers of Z on demand."""

    _res: dict[int, np.ndarray]  # p -> Z mod p, computed once

    def __init__(self, X):
        self.kind, self.X = _classify(X)
        if self.kind == "float":
            self.m, self.shift, self.e0 = dyadic_scale(self.X)  # X = 2^e0 Z
        self.n, self.d = (self.X.shape if isinstance(self.X, np.ndarray) else (len(self.X), len(self.X[0])))
        self._res = {}
        self._ints = None
        self._zfloat = False

    def res(self, p: int) -> np.ndarray:
        """Z mod p, [n, d] int64."""
        if p not in self._res:
            if self.kind == "float":
                table = np.array([pow(2, k, p) for k in range(int(self.shift.max()) + 1)], dtype=np.int64)
                self._res[p] = (np.mod(self.m, p) * table[self.shift]) % p
            elif self.kind == "int":
                self._res[p] = np.mod(self.X, p)
            else:
                self._res[p] = np.array([[v % p for v in row] for row in self.X], dtype=np.int64)
        return self._res[p]

    def ints(self) -> list[list[int]]:
        if self._ints is None:
            if self.kind == "float":
                self._ints = [[a << b for a, b in zip(r1, r2)] for r1, r2 in zip(self.m.tolist(), self.shift.tolist())]
            elif self.kind == "int":
                self._ints = self.X.tolist()
            else:
                self._ints = self.X
        return self._ints

    def zfloat(self) -> np.ndarray | None:
        """Z as a float64 array if every entry is below 2^53 (exact), else None."""
        if self._zfloat is False:
            if self.kind == "float":
                bits = int(np.max(np.where(self.m != 0, _bitlen(np.abs(self.m)) + self.shift, 0)))
                self._zfloat = np.ldexp(self.m.astype(np.float64), self.shift.astype(np.int32)) if bits <= 53 else None
            elif self.kind == "int":
                lo, hi = int(self.X.min()), int(self.X.max())
                self._zfloat = self.X.astype(np.float64) if max(-lo, hi) < 2 ** 53 else None
            else:
                big = max(abs(v) for row in self.X for v in row)
                self._zfloat = np.array(self.X, dtype=np.float64) if big < 2 ** 53 else None
        return self._zfloat

    def xfloat(self) -> np.ndarray | None:
        """A float64 array equal to 2^k Z for one k (exact), or None."""
        return self.X if self.kind == "float" else self.zfloat()

    def xfloat_exponent(self) -> int:
        return self.e0 if self.kind == "float" else 0


def _bitlen(a: np.ndarray) -> np.ndarray:
    """Bit length of non-negative int64 entries (exact: frexp of an integer below 2^63)."""
    return np.frexp(a.astype(np.float64))[1].astype(np.int64)


def _classify(X):
    """('float', float64 ndarray) | ('int', int64 ndarray) | ('big', list of lists of ints, scale)."""
    if isinstance(X, np.ndarray):
        if X.ndim != 2 or 0 in X.shape:
            raise BadInput(f"X must be 2-D and non-empty, got shape {X.shape}")
        kind, v = classify_array(X, "X")  # the one rule (bool as 0 and 1, refusals): theorems.exact.input
        if kind == "float":
            return "float", np.ascontiguousarray(v)
        if kind == "int":
            return "int", v
        X = exact_entries(X)  # Python ints above 2^63, Fractions of long double, object entries
    rows = [[Fraction(v) for v in row] for row in exact_rows(X, "X")]  # validated: rectangular, exact
    L = 1
    for row in rows:
        for v in row:
            L = L * v.denominator // math.gcd(L, v.denominator)
    return "big", [[int(v * L) for v in row] for row in rows]  # X = Z / L


def _vector(v, d: int, name: str) -> list[Fraction]:
    """gamma / beta as exact Fractions, validated by :func:`theorems.exact.input.exact_vector` (a list of ``d`` ints
    and Fractions, what the exact reader gives, is exact already: taken as it is, without the detour through sympy)."""
    if isinstance(v, (list, tuple)) and len(v) == d and all(type(x) is int or type(x) is Fraction for x in v):
        return [Fraction(x) for x in v]
    return [Fraction(int(r.p), int(r.q)) for r in exact_vector(v, d, name)]


# --- exact row sums: q_i ------------------------------------------------------------------------

def _limbs(E: ExactRows):
    """|Z| split into 26-bit limbs (int64 arrays) and sign(Z), or None if the entries are too wide."""
    if E.kind == "float":
        absm = np.abs(E.m)
        top = int(np.max(np.where(absm != 0, _bitlen(absm) + E.shift, 0)))
        K = max(1, -(-top // _LIMB))
        if K > _MAX_LIMBS:
            return None
        A = np.ldexp(absm.astype(np.float64), E.shift.astype(np.int32))  # |Z|, exact in float64
        # F_k = floor(|Z| / 2^(26k)) keeps at most 53 significant bits of |Z|: exact; F_k - 2^26 F_(k+1)
        # is bits [26k, 26k + 26) of |Z|, an integer below 2^26, so the float subtraction is exact too
        F = [np.floor(A * 2.0 ** (-_LIMB * k)) for k in range(K + 1)]
        limbs = [(F[k] - F[k + 1] * 2.0 ** _LIMB).astype(np.int64) for k in range(K)]
        return limbs, np.sign(E.m)
    if E.kind == "int":
        Z = E.X
        if int(Z.min()) == -2 ** 63:
            return None
        A = np.abs(Z)
        top = int(A.max()).bit_length()
        K = max(1, -(-top // _LIMB))
        return [(A >> (_LIMB * k)) & (2 ** _LIMB - 1) for k in range(K)], np.sign(Z)
    return None


def row_norm_integers(E: ExactRows) -> tuple[list[int], list[int]]:
    """(sum_j z_ij, sum_j z_ij^2) for every row, exact (int64 limbs, or Python integers)."""
    L = _limbs(E)
    if L is None:
        ints = E.ints()
        return [sum(r) for r in ints], [sum(v * v for v in r) for r in ints]
    limbs, sign = L
    K = len(limbs)
    n, d = E.n, E.d
    S1 = [0] * n
    S2 = [0] * n
    for c0 in range(0, d, _ROW_CHUNK):
        sl = slice(c0, c0 + _ROW_CHUNK)
        for k in range(K):
            s1 = (limbs[k][:, sl] * sign[:, sl]).sum(axis=1).tolist()
            for i in range(n):
                S1[i] += s1[i] << (_LIMB * k)
            for l in range(k, K):
                s2 = (limbs[k][:, sl] * limbs[l][:, sl]).sum(axis=1).tolist()
                w = (2 if l != k else 1) << (_LIMB * (k + l))
                for i in range(n):
                    S2[i] += s2[i] * w
    return S1, S2


# --- square classes -----------------------------------------------------------------------------

def _signature(x: int) -> tuple:
    """A signature shared by any two positive integers whose product is a perfect square."""
    tz = (x & -x).bit_length() - 1
    x >>= tz
    par = [tz & 1]
    g = math.gcd(x, _SIG_PRIMORIAL)
    for ell in _SIG_PRIMES:
        e = 0
        if g % ell == 0:
            while x % ell == 0:
                x //= ell
                e += 1
        par.append(e & 1)
    leg = tuple(pow(x % ell, (ell - 1) // 2, ell) == 1 for ell in _SIG_PRIMES)
    return tuple(par), x % 8, leg


def square_classes(q: list[int], max_tests: int = MAX_SQUARE_TESTS):
    """Group the indices of the positive integers ``q`` by square class (q_i q_j a perfect square).

    Returns ``(classes, lower, rational, reason)``: ``classes`` a list of index lists (or None
    when the exact comparisons would exceed ``max_tests``), ``lower`` a certified lower bound on
    the number of classes (the number of distinct signatures), ``rational`` the index in
    ``classes`` of the class of perfect squares (or None), ``reason`` why ``classes`` is None.

    >>> square_classes([2, 8, 9, 18, 3])[0]
    [[0, 1, 3], [2], [4]]
    """
    groups: dict = {}
    for i, x in enumerate(q):
        if x <= 0:
            continue
        groups.setdefault(_signature(x), []).append(i)
    lower = len(groups)
    tests = 0
    classes: list[list[int]] = []
    for members in groups.values():
        reps: list[int] = []
        for i in members:
            for k in reps:
                tests += 1
                if tests > max_tests:
                    return None, lower, None, (f"square classes undecided: more than {max_tests} exact comparisons "
                                               f"needed ({len(groups)} signatures for {len(q)} rows)")
                P = q[i] * q[classes[k][0]]
                if math.isqrt(P) ** 2 == P:
                    classes[k].append(i)
                    break
            else:
                reps.append(len(classes))
                classes.append([i])
    classes.sort(key=lambda c: c[0])
    rational = next((k for k, c in enumerate(classes) if math.isqrt(q[c[0]]) ** 2 == q[c[0]]), None)
    return classes, lower, rational, ""


# --- exact bordered integer matrices and their certified ranks -----------------------------------

class _Bordered:
    """M = [[Z, T], [R]]: Z the scaled input, T integer columns (Z units), R rational rows of length d + k.

    Rows of R are scaled to integers one by one (row scaling keeps the rank, and is a unit mod p
    when p divides no denominator).
    """

    def __init__(self, E: ExactRows, T: list[list[int]] | None = None, R: list[list] | None = None):
        self.E, self.T, self.R = E, T or [], R or []
        self.k = len(self.T[0]) if self.T else 0
        self.shape = (E.n + len(self.R), E.d + self.k)
        self._Rint: list[list[int]] | None = None

    def r_ints(self) -> list[list[int]]:
        if self._Rint is None:
            out = []
            for row in self.R:
                L = 1
                for v in row:
                    den = v.denominator if isinstance(v, Fraction) else 1
                    L = L * den // math.gcd(L, den)
                out.append([int(v * L) for v in row])
            self._Rint = out
        return self._Rint

    def res(self, p: int) -> np.ndarray | None:
        top = self.E.res(p)
        if self.k:
            top = np.hstack([top, np.array([[v % p for v in row] for row in self.T], dtype=np.int64)])
        if not self.R:
            return top
        rows = []
        for row in self.R:
            r = []
            for v in row:
                if isinstance(v, Fraction) and v.denominator != 1:
                    if v.denominator % p == 0:
                        return None  # this prime divides a denominator: use another one
                    r.append(v.numerator * pow(v.denominator, -1, p) % p)
                else:
                    r.append(int(v) % p)
            rows.append(r)
        return np.vstack([top, np.array(rows, dtype=np.int64)])

    def ints(self) -> list[list[int]]:
        Z = self.E.ints()
        top = [zr + tr for zr, tr in zip(Z, self.T)] if self.k else Z
        return top + self.r_ints()

    def int_floats(self) -> np.ndarray | None:
        """M as float64 holding its integers exactly (for the p-adic certificate), or None."""
        Zf = self.E.zfloat()
        if Zf is None:
            return None
        parts = [Zf]
        if self.k:
            if max(abs(v) for row in self.T for v in row) >= 2 ** 53:
                return None
            parts = [np.hstack([Zf, np.array(self.T, dtype=np.float64)])]
        if self.R:
            Ri = self.r_ints()
            if max(abs(v) for row in Ri for v in row) >= 2 ** 53:
                return None
            parts.append(np.array(Ri, dtype=np.float64))
        return np.vstack(parts)

    # the methods :func:`theorems.exact.certified_rank.rank_certificate` reads (see MatrixSource)

    @property
    def core_shape(self) -> tuple[int, int]:
        return (self.E.n, self.E.d)

    def residues(self, p: int) -> np.ndarray | None:
        return self.res(p)

    def float_exact(self) -> np.ndarray | None:
        return self.any_floats()

    def small_ints(self) -> np.ndarray | None:
        F = self.int_floats()
        return F if F is not None and float(np.abs(F).max()) < 2.0 ** MAX_ENTRY_BITS else None

    def exact_ints(self) -> list[list[int]]:
        return self.ints()

    def exact_bits(self) -> int:
        return 0  # budgets here are counts of entries (KERNEL_MAX_ENTRIES, EXACT_MAX_ENTRIES)

    def max_entry_bits(self) -> int:
        return 0

    def any_floats(self) -> np.ndarray | None:
        """A float64 matrix with the same rank (rows scaled by powers of two), exact, or None."""
        F = self.int_floats()
        if F is not None:
            return F
        Xf = self.E.xfloat()
        if Xf is None:
            return None
        e0 = self.E.xfloat_exponent()
        top = Xf
        if self.k:
            if max(abs(v) for row in self.T for v in row).bit_length() > 53:
                return None
            top = np.hstack([Xf, np.ldexp(np.array(self.T, dtype=np.float64), e0)])
        if not self.R:
            return top
        Ri = self.r_ints()
        if any(abs(v) >= 2 ** 53 for row in Ri for v in row):
            return None
        return np.vstack([top, np.array(Ri, dtype=np.float64)])


class _Ranker:
    """Certified ranks with a shared stock of random primes (see the module docstring)."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.primes = random_primes(3, rng)
        self.used: set[int] = set()

    def _residues(self, M: _Bordered, skip: int = 0):
        """(M mod p, p) for the first prime (after ``skip``) dividing no denominator of M."""
        for p in self.primes[skip:]:
            R = M.res(p)
            if R is not None:
                self.used.add(p)
                return R, p
        return None, None

    def paired(self, E: ExactRows) -> tuple[int, int, str]:
        """Lower bounds on rank Z and on rank of Z bordered on its short side ([Z; 1^T] if n <= d, else
        [Z | 1]) from ONE elimination mod p: the reduced row echelon form of the tall [Z^T | 1] or
        [Z | 1], restricted to short + 1 + SUBSET_SLACK random rows when that is fewer; the ones
        column is a pivot iff the last non-zero row of the echelon form starts there. (Rank-deficient
        Z: these bounds are not the last word; ``rank`` certifies Z by other means.)"""
        R, p = self._residues(_Bordered(E))
        T = R.T if E.n <= E.d else R                      # [tall, short]
        k = T.shape[1]
        m = k + 1 + SUBSET_SLACK
        sub = m < T.shape[0]
        U = T[np.sort(self.rng.choice(T.shape[0], m, replace=False))] if sub else T
        A = np.hstack([U, np.ones((U.shape[0], 1), dtype=np.int64)])
        Rr, rho = flint.nmod_mat(A.tolist(), p).rref()
        rho = int(rho)
        border = rho > 0 and all(int(Rr[rho - 1, j]) == 0 for j in range(k))
        what = f"{U.shape[0]} random rows of " if sub else ""
        return rho - int(border), rho, f"rank mod p (echelon form of {what}{'[X^T | 1]' if E.n <= E.d else '[X | 1]'})"

    def rank(self, M: _Bordered, lo: int = 0, hi: int | None = None, hi_how: str = "",
             lo_how: str = "structural lower bound", lo_is_mod_p: bool = False) -> CertifiedRank:
        """Certified [lower, upper] for rank M; ``lo``/``hi`` are bounds the caller has proved.

        :func:`theorems.exact.certified_rank.rank_certificate` (the one order of certificates, shared with
        ``certified_rank``) with this analysis' primes and budgets: the kernel certificate up to
        KERNEL_MAX_ENTRIES entries, FLINT's exact rank up to EXACT_MAX_ENTRIES.
        """
        if hi is not None and lo > hi:
            raise RuntimeError(f"internal error: proved bounds {lo} > {hi} on a rank")
        r = rank_certificate(M, primes=self.primes, rng=self.rng, lo=lo, hi=hi, lo_how=lo_how, hi_how=hi_how,
                             lo_is_mod_p=lo_is_mod_p, exact="auto", exact_max_entries=EXACT_MAX_ENTRIES,
                             kernel_max_entries=KERNEL_MAX_ENTRIES)
        self.used.update(r.primes)
        return r


def _val(r: CertifiedRank) -> int | None:
    return r.lower if r.certified else None


def _fmt(r: CertifiedRank) -> str:
    if r.certified:
        return f"{r.lower} ({r.method}; upper: {r.upper_method})"
    return f"in [{r.lower}, {r.upper}] (undecided: {r.upper_method})"


# --- the analysis -------------------------------------------------------------------------------

@dataclass
class NormAnalysis(Analysis):
    """:class:`theorems.exact.layernorm.Analysis` decided by :func:`analyse_array`.

    For ``norm="rmsnorm"`` the fields keep their names with these meanings: ``hypotheses`` has
    H1 (every row non-zero) and H3 (gamma_j != 0); ``rank_Xt`` is rank(X) (no centring);
    ``arank_LN_X``/``rank_LN_X`` are the affine rank and rank of RMSNorm(X);
    ``sigma_in_colspace_Xt`` is rho in col(X) with rho_i = sqrt(mean_j x_ij^2); ``sqrt_classes``
    counts the square classes of the rho_i^2. Undecided quantities are ``None`` and ``how`` says why.
    """

    norm: str = "layernorm"
    undefined_rows: list = field(default_factory=list)
    certificates: dict = field(default_factory=dict)
    primes: list = field(default_factory=list)
    seconds: float = 0.0

    @property
    def all_hypotheses(self) -> bool:
        return all(v is True for v in self.hypotheses.values())

    @property
    def conclusion_holds(self) -> bool | None:
        """arank(LN X) == arank(X), or None when either is undecided (or undefined)."""
        if self.arank_LN_X is None or self.arank_X is None:
            return None
        return self.arank_LN_X == self.arank_X

    def to_json(self) -> dict:
        out = super().to_json()
        if self.ones_n_in_colspace is None:
            out["extra_condition_ones_n_not_in_colspace_X"] = None
        out["norm"] = self.norm
        out["arithmetic"] = ("exact over QQ without sympy matrices: the input scaled exactly to integers; ranks "
                             "certified (rank mod random primes for lower bounds; structural bounds, the p-adic "
                             "bordering certificate, kernel certificates or FLINT's exact rank for upper bounds); "
                             "sigma by square classes of exact integer variances")
        out["undecided"] = {k: v for k, v in self.how.items() if isinstance(v, str) and v.startswith("undecided")}
        out["primes"] = self.primes
        out["seconds"] = round(self.seconds, 4)
        return out

    def h1_message(self) -> str | None:
        """Why the norm is undefined (H1 fails), in the words of rank_neutrality.require_H1, or None."""
        if not self.undefined_rows:
            return None
        if self.norm == "layernorm":
            return (f"H1 fails: row(s) [{cap_list(self.undefined_rows)}] of X are constant (sigma = 0), so LayerNorm "
                    "without epsilon divides by zero and is undefined")
        return (f"H1 fails: row(s) [{cap_list(self.undefined_rows)}] of X are zero (rms = 0), so RMSNorm without "
                "epsilon divides by zero and is undefined")


def analyse_array(X, gamma=None, beta=None, norm: str = "layernorm", seed: int | None = None,
                  max_square_tests: int = MAX_SQUARE_TESTS) -> NormAnalysis:
    """Decide everything :func:`theorems.paper.rank_neutrality.analyse` decides, for LayerNorm or RMSNorm.

    ``X``: a float or integer numpy array (floats taken as the exact dyadic rationals they store),
    or a list of rows of ints, ``Fraction``s, ``"p/q"`` strings or decimals. ``gamma``/``beta``:
    vectors of length d (default ones / zeros). ``seed`` draws the random primes (fresh entropy when
    None; the primes used are recorded). Raises :class:`theorems.exact.input.BadInput` on bad input.
    """
    t0 = time.perf_counter()
    if norm not in NORMS:
        raise BadInput(f"unknown norm {norm!r}; choose from {', '.join(NORMS)}")
    ln = norm == "layernorm"
    E = ExactRows(X)
    n, d = E.n, E.d
    g = _vector(gamma, d, "gamma") if gamma is not None else [Fraction(1)] * d
    b = _vector(beta, d, "beta") if beta is not None else [Fraction(0)] * d
    rk = _Ranker(np.random.default_rng(seed))
    how: dict = {}
    cert: dict = {}

    # q_i (exact integers) and H1
    S1, S2 = row_norm_integers(E)
    q = [d * s2 - s1 * s1 for s1, s2 in zip(S1, S2)] if ln else [d * s2 for s2 in S2]
    h1 = all(x > 0 for x in q)
    how["H1"] = (("exact: sigma_i^2 = c^2 q_i / d^2 with q_i = d sum_j z_ij^2 - (sum_j z_ij)^2 an exact integer "
                  "(X = c Z, Z integer), compared with 0") if ln else
                 "exact: rho_i^2 = c^2 q_i / d^2 with q_i = d sum_j z_ij^2 an exact integer, compared with 0")
    S = [j for j in range(d) if g[j] != 0]
    Sbar = [j for j in range(d) if g[j] == 0]
    h3 = not Sbar
    how["H3"] = "exact: each gamma_j compared with 0"

    ones_d = [Fraction(1)] * d
    # rank X, rank [X; 1^T], rank [X | 1]
    loZ, loB, pair_how = rk.paired(E)  # one elimination mod p: rank Z and rank of Z bordered by 1 (short side)
    rX = rk.rank(_Bordered(E), lo=loZ, lo_how=pair_how, lo_is_mod_p=True)
    cert["rank_X"] = rX
    lo_row, lo_col = (loB if n <= d else rX.lower), (loB if n > d else rX.lower)
    rXrow = rk.rank(_Bordered(E, R=[ones_d]), lo=max(lo_row, rX.lower), hi=rX.upper + 1, hi_how="rank(X) + 1",
                    lo_how=pair_how if n <= d else "rank(X)")
    cert["rank_[X;1]"] = rXrow
    rXcol = rk.rank(_Bordered(E, T=[[1]] * n), lo=max(lo_col, rX.lower), hi=rX.upper + 1, hi_how="rank(X) + 1",
                    lo_how=pair_how if n > d else "rank(X)")
    cert["rank_[X|1]"] = rXcol
    rank_X, r_row, r_col = _val(rX), _val(rXrow), _val(rXcol)
    how["rank_X"] = f"rank(X) = {_fmt(rX)}"
    ones_d_in_row = _eq(rXrow, rX)
    ones_n_in_col = _eq(rXcol, rX)
    if ones_d_in_row is None:
        how["H2"] = f"undecided: rank([X; 1^T]) = {_fmt(rXrow)} against rank(X) = {_fmt(rX)}"
    else:
        how["H2"] = (f"exact: rank([X; 1^T]) = {rXrow.lower} {'=' if ones_d_in_row else '!='} rank(X) = {rX.lower}, so "
                     f"1_d is {'in' if ones_d_in_row else 'not in'} row(X) (rank([X; 1^T]): {_fmt(rXrow)})")
    how["arank_X"] = f"rank([X | 1]) - 1 with rank([X | 1]) = {_fmt(rXcol)}"
    arank_X = None if r_col is None else r_col - 1

    # the column space of the centred (LN) or plain (RMS) matrix: Z(ker C)
    if ln:
        base_all = (rXrow, [ones_d], 1)       # col(XP) = Z(ker 1^T)
        rank_Xt = None if r_row is None else r_row - 1
    else:
        base_all = (rX, [], 0)
        rank_Xt = rank_X
    if not S:
        base_S = None                          # A = 0
    elif not Sbar:
        base_S = base_all
    else:
        CS = _constraints(ln, d, Sbar)
        rC = len(CS)
        rb = rk.rank(_Bordered(E, R=CS), lo=max(rX.lower, rC), hi=rX.upper + rC, hi_how="rank(X) + rank(C_S)")
        cert["rank_[X;C_S]"] = rb
        base_S = (rb, CS, rC)

    classes = lower = rational = None
    if h1:
        classes, lower, rational, why = square_classes(q, max_square_tests)
        how["sqrt_classes"] = (f"exact: {len(classes)} square classes of q_i (signatures mod primes < 100, "
                               "then isqrt of q_i q_j)") if classes is not None else f"undecided: {why}"

    def tau_matrix():
        T = [[0] * len(classes) for _ in range(n)]
        for k, c in enumerate(classes):
            r = 1 if k == rational else q[c[0]]
            for i in c:
                T[i][k] = math.isqrt(q[i] * r)  # = r sqrt(q_i / r) for a non-rational class: a column scaling
        return T

    def sigma_in(base, label):
        """sqrt(q) in Z(ker C): (True|False|None, rank of A, why)."""
        rb, C, rC = base
        rA = None if not rb.certified else rb.lower - rC
        rA_hi = rb.upper - rC
        if rA == n:
            return True, f"exact: rank({label}) = n = {n}, so col({label}) = R^n contains sigma"
        if lower is not None and lower > rA_hi:
            return False, (f"exact: sigma has at least {lower} square classes (components with disjoint supports, "
                           f"independent) > rank({label}) <= {rA_hi}")
        if classes is None:
            return None, "undecided: square classes undecided and no structural argument applies"
        if rA is None:
            return None, f"undecided: rank({label}) undecided"
        M = _Bordered(E, T=tau_matrix(), R=[row + [0] * len(classes) for row in C])
        r = rk.rank(M, lo=rb.lower, hi=rb.lower + len(classes), hi_how=f"rank + {len(classes)} classes")
        cert[f"sigma_in_col({label})"] = r
        if r.lower > rb.lower:
            # M borders Z by the rC rows of C, which add rC to every rank: rank([A | tau]) = rank(M) - rC
            return False, (f"exact: rank([{label} | tau_1..tau_{len(classes)}]) >= {r.lower - rC} > rank({label}) "
                           f"= {rA} ({len(classes)} square class(es) of the row variances; {r.method})")
        if r.certified:
            return True, (f"exact: every square-class component tau_k is in col({label}): rank unchanged "
                          f"({r.method}; upper: {r.upper_method})")
        return None, f"undecided: rank([{label} | tau]) in [{r.lower}, {r.upper}]"

    sig_Xt = None
    h4 = None
    lbl = "XP" if ln else "X"
    if h1:
        sig_Xt, why = sigma_in(base_all, lbl)
        how["sigma_in_colspace_Xt"] = why
        if ln:
            h4 = None if sig_Xt is None else not sig_Xt
            how["H4"] = why
    elif ln:
        how["H4"] = "undefined: sigma has a zero entry (H1 fails)"

    arank_LN = rank_LN = None
    if h1:
        # A = XP Gamma (LN) or X Gamma (RMS)
        rA: int | None
        sig_A: bool | None
        if base_S is None:
            rA, sig_A, why_A = 0, False, "exact: gamma = 0, so A = 0 and sigma != 0 is not in col(A)"
        elif base_S is base_all:
            rb = base_all[0]
            rA = None if not rb.certified else rb.lower - base_all[2]
            sig_A, why_A = sig_Xt, how["sigma_in_colspace_Xt"]
        else:
            rb, C, rC = base_S
            rA = None if not rb.certified else rb.lower - rC
            sig_A, why_A = sigma_in(base_S, lbl + " Gamma")
        how["sigma_in_colspace_A"] = why_A
        if rA is not None and sig_A is not None:
            arank_LN = rA - 1 + (0 if sig_A else 1)
            how["arank_LN_X"] = f"exact: rank(A) - 1 + [sigma notin col(A)], A = {lbl} Gamma, rank(A) = {rA}"
        else:
            how["arank_LN_X"] = "undecided: " + ("rank(A)" if rA is None else "sigma in col(A)") + " undecided"
        rank_LN, how["rank_LN_X"] = _rank_update(E, rk, cert, ln, n, d, g, b, S, Sbar, base_S, rA, sig_A,
                                                classes, rational, tau_matrix)
    hyp = {"H1": h1, "H2": None if ones_d_in_row is None else not ones_d_in_row, "H3": h3, "H4": h4} if ln else \
        {"H1": h1, "H3": h3}
    if not ln:
        how["H1"] = how["H1"].replace("exact:", "exact (every row non-zero):")
    return NormAnalysis(
        n=n, d=d, hypotheses=hyp, rank_X=rank_X, arank_X=arank_X, rank_Xt=rank_Xt,
        arank_LN_X=arank_LN, rank_LN_X=rank_LN,
        ones_d_in_rowspace=ones_d_in_row, ones_n_in_colspace=ones_n_in_col,
        sigma_in_colspace_Xt=sig_Xt if h1 else None,
        sqrt_classes=(len(classes) if classes is not None else None) if h1 else None,
        how=how, norm=norm, undefined_rows=[i for i, x in enumerate(q) if x == 0],
        certificates={k: v.to_json() for k, v in cert.items()},
        primes=sorted(rk.used | {p for v in cert.values() for p in v.primes}), seconds=time.perf_counter() - t0)


def _eq(a: CertifiedRank, b: CertifiedRank) -> bool | None:
    """rank a == rank b, decided from the two certified intervals."""
    if a.certified and b.certified:
        return a.lower == b.lower
    if a.lower > b.upper or b.lower > a.upper:
        return False
    return None


def _constraints(ln: bool, d: int, Sbar: list[int]) -> list[list[Fraction]]:
    """C_S: ker C_S = P span(e_S) (LayerNorm) or span(e_S) (RMSNorm); its rows are independent."""
    def e(j, s=1):
        v = [Fraction(0)] * d
        v[j] = Fraction(s)
        return v
    if not ln:
        return [e(j) for j in Sbar]
    j0 = Sbar[0]
    rows = [[Fraction(1)] * d]
    for j in Sbar[1:]:
        r = e(j)
        r[j0] = Fraction(-1)
        rows.append(r)
    return rows


def _rank_update(E, rk, cert, ln, n, d, g, b, S, Sbar, base_S, rA, sig_A, classes, rational, tau_matrix):
    """rank(A + sigma beta^T) by the rank-one-update lemma, each membership decided by a certified rank."""
    if rA is None:
        return None, "undecided: rank(A) undecided"
    if all(v == 0 for v in b):
        return rA, "exact: beta = 0, so rank(LN X) = rank(A)"
    bt = [b[j] / g[j] if g[j] != 0 else b[j] for j in range(d)]   # beta~ = beta / gamma on S
    if any(bt[j] != 0 for j in Sbar) or base_S is None:
        b_in_row, why_b = False, "beta_j != 0 where gamma_j = 0"
    elif ln and not Sbar and sum(bt) != 0:
        b_in_row, why_b = False, "sum(beta/gamma) != 0 while row(XP) is in 1^perp"
    else:
        rb, C, rC = base_S
        p_hat = list(bt)
        if ln and Sbar:
            p_hat[Sbar[0]] = -sum(bt[j] for j in S)
        if rA == len(S) - (1 if ln and not Sbar else 0):
            b_in_row, why_b = True, "row(A) is all of its ambient space (structural)"
        else:
            r = rk.rank(_Bordered(E, R=C + [p_hat]), lo=rb.lower, hi=rb.upper + 1, hi_how="rank + 1")
            cert["beta_in_row(A)"] = r
            if r.lower > rb.upper:
                b_in_row, why_b = False, f"rank grows with beta~ appended ({r.method})"
            elif r.certified and rb.certified and r.lower == rb.lower:
                b_in_row, why_b = True, f"rank unchanged with beta~ appended ({r.method}; upper: {r.upper_method})"
            else:
                return None, "undecided: beta/gamma in row(A) undecided"
    tag = f"beta/gamma {'in' if b_in_row else 'notin'} row(A) ({why_b})"
    if sig_A is None:
        return None, f"undecided: sigma in col(A) undecided; {tag}"
    if not sig_A:
        return (rA if b_in_row else rA + 1), f"exact: sigma notin col(A), {tag}"
    if not b_in_row:
        return rA, f"exact: sigma in col(A), {tag}"
    if classes is None:
        return None, "undecided: square classes undecided"
    if rational is None:
        return rA, (f"exact: sigma in col(A), {tag}; no rational square class, so 1 + beta^T x = 0 is impossible "
                    "(sqrt r_k independent over Q)")
    rb, C, rC = base_S
    c = len(classes)
    v = [Fraction(0)] * c
    v[rational] = Fraction(-d)
    p_hat = list(bt)
    if ln and Sbar:
        p_hat[Sbar[0]] = -sum(bt[j] for j in S)
    M = _Bordered(E, T=tau_matrix(), R=[row + [0] * c for row in C] + [p_hat + v])
    r = rk.rank(M, lo=rb.lower, hi=rb.lower + 1, hi_how="rank + 1")
    cert["rank_one_drop"] = r
    if r.certified:
        drops = r.lower == rb.lower
        return (rA - 1 if drops else rA), (f"exact: sigma in col(A), {tag}; the bordered rank "
                                            f"{'equals' if drops else 'exceeds'} rank([X; C_S]), so 1 + beta^T x "
                                            f"{'=' if drops else '!='} 0 ({r.method}; upper: {r.upper_method})")
    return None, "undecided: the rank-one drop test is undecided"
