r"""Exact rational interval arithmetic: certified boxes of parameters on which a failure holds at every point.

A :class:`QI` is a closed interval with :class:`fractions.Fraction` endpoints; sums, differences and products of
intervals enclose every value the operation takes over the operands (no rounding anywhere: the enclosures are
exact, except :func:`pow2`'s outward rounding, which only widens them). :func:`pow2` encloses :math:`2^t` over an
interval of exponents by rational bounds (:math:`1+v\ln2\le2^v\le1/(1-v\ln2)` for a small :math:`v=u/2^{b}`, with
rational bounds on :math:`\ln2`, refined by halving the argument and squaring back, rounded outward), so softmax
attention with logits in units of :math:`\log2` is enclosed exactly too.

A function written with ``+``, ``-`` and ``*`` only (a polynomial in the parameters, a matrix product) runs
unchanged on intervals: :func:`box` widens exact parameters into intervals of radius ``r``, :func:`mat_mul` and
:func:`det` enclose products and determinants, and :func:`minor_certificate` proves a minor non-singular at *every*
point of the box (an exact perturbation bound around its centre) — an open failure condition certified on a set of
positive measure.

>>> from fractions import Fraction as F
>>> x = QI(F(1), F(2)); (x * x - x).lo, (x * x - x).hi
(Fraction(-1, 1), Fraction(3, 1))
>>> M = box([[2, 1], [1, 1]], F(1, 100))
>>> det(M).excludes_zero()
True
>>> p = pow2(QI(F(3), F(3))); p.lo <= 8 <= p.hi
True
"""
from __future__ import annotations

import math
from fractions import Fraction
from itertools import permutations

__all__ = ["QI", "box", "mat_mul", "mat_add", "mat_sub", "transpose", "det", "pow2", "qi", "box_text", "identity",
           "softmax_log2_rows", "minor_certificate", "midpoint", "ln2_bounds"]


def _q(v) -> Fraction:
    if isinstance(v, Fraction):
        return v
    if isinstance(v, int):
        return Fraction(v)
    p, q = getattr(v, "p", None), getattr(v, "q", None)  # a sympy Rational / Integer
    if p is not None and q is not None:
        return Fraction(int(p), int(q))
    raise TypeError(f"an exact rational is needed, not {v!r} ({type(v).__name__})")


class QI:
    """A closed interval [lo, hi] with exact rational endpoints."""

    __slots__ = ("lo", "hi")

    def __init__(self, lo, hi=None):
        self.lo = _q(lo)
        self.hi = _q(lo if hi is None else hi)
        if self.lo > self.hi:
            raise ValueError(f"empty interval [{self.lo}, {self.hi}]")

    @staticmethod
    def of(v) -> "QI":
        return v if isinstance(v, QI) else QI(v)

    def __add__(self, o):
        o = QI.of(o)
        return QI(self.lo + o.lo, self.hi + o.hi)

    __radd__ = __add__

    def __neg__(self):
        return QI(-self.hi, -self.lo)

    def __sub__(self, o):
        return self + (-QI.of(o))

    def __rsub__(self, o):
        return QI.of(o) - self

    def __mul__(self, o):
        o = QI.of(o)
        c = (self.lo * o.lo, self.lo * o.hi, self.hi * o.lo, self.hi * o.hi)
        return QI(min(c), max(c))

    __rmul__ = __mul__

    def reciprocal(self) -> "QI":
        if self.lo <= 0 <= self.hi:
            raise ZeroDivisionError(f"1 / [{self.lo}, {self.hi}]: the interval contains 0")
        return QI(1 / self.hi, 1 / self.lo)

    def __truediv__(self, o):
        return self * QI.of(o).reciprocal()

    def excludes_zero(self) -> bool:
        return self.lo > 0 or self.hi < 0

    def __contains__(self, v) -> bool:
        return self.lo <= _q(v) <= self.hi

    def __repr__(self) -> str:
        return f"QI({self.lo}, {self.hi})"


def qi(v) -> QI:
    return QI.of(v)


def box(M, radius) -> list[list[QI]]:
    """The box of matrices within ``radius`` (entrywise) of the exact matrix ``M`` (rows of exact numbers)."""
    r = _q(radius)
    if r < 0:
        raise ValueError("a box radius is non-negative")
    rows = M.tolist() if hasattr(M, "tolist") else M
    return [[QI(_q(v) - r, _q(v) + r) for v in row] for row in rows]


def identity(M) -> list[list[QI]]:
    """The exact matrix as degenerate intervals (a parameter held fixed)."""
    return box(M, 0)


def mat_mul(A, B):
    n, k, m = len(A), len(B), len(B[0]) if B else 0
    if A and len(A[0]) != k:
        raise ValueError(f"shapes {len(A)}x{len(A[0])} and {k}x{m} do not multiply")
    return [[sum((QI.of(A[i][t]) * B[t][j] for t in range(k)), QI(0)) for j in range(m)] for i in range(n)]


def mat_add(A, B):
    return [[QI.of(a) + b for a, b in zip(ra, rb, strict=True)] for ra, rb in zip(A, B, strict=True)]


def mat_sub(A, B):
    return [[QI.of(a) - b for a, b in zip(ra, rb, strict=True)] for ra, rb in zip(A, B, strict=True)]


def transpose(A):
    return [list(c) for c in zip(*A)] if A else []


def _sign(p) -> int:
    s, seen = 1, list(p)
    for i in range(len(seen)):
        while seen[i] != i:
            j = seen[i]
            seen[i], seen[j] = seen[j], seen[i]
            s = -s
    return s


def det(A) -> QI:
    """An enclosure of the determinant over the box (Leibniz expansion: every term enclosed; n <= 7)."""
    n = len(A)
    if any(len(r) != n for r in A):
        raise ValueError("det of a non-square interval matrix")
    if n > 7:
        raise ValueError("det: the Leibniz enclosure is for n <= 7 (the boxes here are small shapes)")
    total = QI(0)
    for p in permutations(range(n)):
        term = QI(_sign(p))
        for i in range(n):
            term = term * A[i][p[i]]
        total = total + term
    return total


_LN2: dict[int, tuple[Fraction, Fraction]] = {}


def ln2_bounds(bits: int) -> tuple[Fraction, Fraction]:
    """Rational lo < ln 2 < hi with hi - lo < 2^-bits: ln 2 = sum_k 1/(k 2^k), the tail after K terms below
    1/((K + 1) 2^K)."""
    if bits not in _LN2:
        K = bits + 2
        lo = sum((Fraction(1, k * 2 ** k) for k in range(1, K + 1)), Fraction(0))
        _LN2[bits] = (lo, lo + Fraction(1, (K + 1) * 2 ** K))
    return _LN2[bits]


def _pow2_bounds(a: Fraction, bits: int = 64) -> tuple[Fraction, Fraction]:
    """Rational lo <= 2^a <= hi of relative width about 2^-bits (exact when a is an integer).

    With k = floor(a), u = a - k in [0, 1) and v = u / 2^bits: 1 + v ln 2 <= 2^v <= 1 / (1 - v ln 2)
    (e^x >= 1 + x; e^x <= 1/(1 - x) for x < 1), ln 2 bounded by :func:`ln2_bounds`; then squared ``bits`` times,
    rounded outward to a grid of 2^-(2 bits + 8) each time."""
    k = math.floor(a)
    u = a - k
    if u == 0:
        return Fraction(2) ** k, Fraction(2) ** k
    lo_ln, hi_ln = ln2_bounds(2 * bits)
    grid = 2 ** (2 * bits + 8)
    v = u / 2 ** bits
    lo, hi = 1 + lo_ln * v, 1 / (1 - hi_ln * v)
    for _ in range(bits):
        lo = Fraction(math.floor(lo * lo * grid), grid)
        hi = Fraction(-math.floor(-hi * hi * grid), grid)
    return Fraction(2) ** k * lo, Fraction(2) ** k * hi


def pow2(t: QI, bits: int = 64) -> QI:
    """An exact rational enclosure of {2^s : s in t} (2^s is increasing), endpoints to about 2^-bits relative."""
    t = QI.of(t)
    return QI(_pow2_bounds(t.lo, bits)[0], _pow2_bounds(t.hi, bits)[1])


def softmax_log2_rows(S, bits: int = 64) -> list[list[QI]]:
    """Enclosures of softmax(log 2 * S) row by row, for an interval (or exact) score matrix S: A_ij = 2^(s_ij) /
    sum_k 2^(s_ik) (each row shifted by the floor of its largest centre first; softmax is invariant under it)."""
    out = []
    for row in S:
        row = [QI.of(v) for v in row]
        shift = max(math.floor((v.lo + v.hi) / 2) for v in row)
        E = [pow2(v - shift, bits) for v in row]
        tot = sum(E[1:], E[0])
        out.append([e / tot for e in E])
    return out


def midpoint(M) -> list[list[Fraction]]:
    return [[(QI.of(v).lo + QI.of(v).hi) / 2 for v in row] for row in M]


def _pivots(M: list[list[Fraction]]) -> list[tuple[int, int]]:
    """Complete-pivoting elimination on an exact rational matrix: the (row, column) pivots (rank of M)."""
    A = [list(r) for r in M]
    n, m = len(A), len(A[0]) if A else 0
    rows, cols, piv = list(range(n)), list(range(m)), []
    for _ in range(min(n, m)):
        best = max(((abs(A[i][j]), i, j) for i in rows for j in cols), default=(0, -1, -1))
        if best[0] == 0:
            break
        _, i, j = best
        piv.append((i, j))
        rows.remove(i)
        cols.remove(j)
        for r in rows:
            f = A[r][j] / A[i][j]
            if f:
                A[r] = [a - f * b for a, b in zip(A[r], A[i])]
    return piv


def _inverse(C: list[list[Fraction]]) -> list[list[Fraction]] | None:
    """The exact inverse of a square rational matrix (Gauss-Jordan), None if singular."""
    k = len(C)
    A = [list(r) + [Fraction(int(i == j)) for j in range(k)] for i, r in enumerate(C)]
    for c in range(k):
        p = next((i for i in range(c, k) if A[i][c] != 0), None)
        if p is None:
            return None
        A[c], A[p] = A[p], A[c]
        pv = A[c][c]
        A[c] = [v / pv for v in A[c]]
        for i in range(k):
            if i != c and A[i][c] != 0:
                f = A[i][c]
                A[i] = [a - f * b for a, b in zip(A[i], A[c])]
    return [r[k:] for r in A]


def minor_certificate(M, k: int) -> tuple[list[int], list[int], QI] | None:
    """A k x k minor of the interval matrix ``M`` certified non-singular at every point of the box (so every matrix
    in it has rank >= k), chosen at the pivots of its exact centre C; None when not certified.

    Criterion (exact): with R the entrywise radii, q = || |C^-1| R ||_inf < 1 makes every C + E, |E| <= R,
    invertible (C^-1 (C + E) = I + F with ||F||_inf <= q < 1). The determinant then lies in det C [(1-q)^k, (1+q)^k]
    (every eigenvalue of I + F is within q of 1, and the sign cannot change on the connected box)."""
    piv = _pivots(midpoint(M))
    if len(piv) < k or k == 0:
        return None
    rows = sorted(i for i, _ in piv[:k])
    cols = sorted(j for _, j in piv[:k])
    sub = [[QI.of(M[i][j]) for j in cols] for i in rows]
    C = [[(v.lo + v.hi) / 2 for v in r] for r in sub]
    R = [[(v.hi - v.lo) / 2 for v in r] for r in sub]
    Ci = _inverse(C)
    if Ci is None:
        return None
    q = max(sum(sum(abs(Ci[i][t]) * R[t][j] for t in range(k)) for j in range(k)) for i in range(k))
    if q >= 1:
        return None
    dC = _det_exact(C)
    lo, hi = dC * (1 - q) ** k, dC * (1 + q) ** k
    return rows, cols, QI(min(lo, hi), max(lo, hi))


def _det_exact(C: list[list[Fraction]]) -> Fraction:
    A = [list(r) for r in C]
    k, det_ = len(A), Fraction(1)
    for c in range(k):
        p = next((i for i in range(c, k) if A[i][c] != 0), None)
        if p is None:
            return Fraction(0)
        if p != c:
            A[c], A[p] = A[p], A[c]
            det_ = -det_
        det_ *= A[c][c]
        for i in range(c + 1, k):
            f = A[i][c] / A[c][c]
            if f:
                A[i] = [a - f * b for a, b in zip(A[i], A[c])]
    return det_


def box_text(names_radius: dict) -> str:
    """The box in words: every named parameter within its radius of the instance's exact value."""
    return ", ".join(f"|{k} - {k}_0|_max <= {r}" for k, r in names_radius.items())
