r"""The midpoint-radius context: interval matrices as a pair of float64 arrays ``(m, r)``, products on BLAS.

An entry ``<m, r>`` stands for the real interval [m - r, m + r]. Every operation returns a pair that encloses every
real result of the exact operation on every point of its operands, computed in numpy's round-to-nearest only (numpy
cannot change the rounding mode; none is assumed). This is the arithmetic of INTLAB's interval matrix products:

* S. M. Rump, "Fast and parallel interval arithmetic", BIT 39 (1999) 534-554: the midpoint-radius product
  <mA, rA> <mB, rB> is contained in <mA mB, |mA| rB + rA (|mB| + rB)>, computed as a few float products;
* S. M. Rump, "Fast interval matrix multiplication", Numer. Algorithms 61 (2012) 1-34, and K. Ozaki, T. Ogita,
  S. Oishi, S. M. Rump, "Fast algorithms for floating-point interval matrix multiplication", J. Comput. Appl. Math.
  236 (2012) 1795-1814: the rounding error of the float midpoint product bounded a priori, in floating point, by
  a gamma factor times the product of the absolute values plus an underflow term, and that bound itself rounded to
  a true upper bound.

Notation: u = 2^-53 (the unit roundoff of float64), eta = 2^-1074 (the smallest positive subnormal),
gamma_k = k u / (1 - k u) (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., 2002, Lemma 3.1).

**The inequality implemented for a product** (:func:`_matmul`). With the standard model of round-to-nearest with
underflow, fl(a o b) = (a o b)(1 + delta) + eps, |delta| <= u, |eps| <= eta/2, delta eps = 0, eps = 0 for + and -
(Higham 2002, (2.8) and the remark after it; Rump 2012, Section 2), a dot product of length k summed in *any* order,
with or without fused multiply-adds (so whatever blocking, threading or kernel the BLAS uses), satisfies::

    |fl(A B) - A B|  <=  gamma_k |A| |B|  +  k eta          (entrywise; k u <= 1/2)          (1)

(each of the k products passes through at most k roundings: gamma_k |A||B| as in Higham (3.4)-(3.5); each of the at
most k underflow errors eps is <= eta/2 and is magnified by at most (1 + u)^(k-1) <= 2). Rump 2012 and Ozaki et al.
2012 bound the product's error in this shape (a gamma-type factor times |A||B| plus an underflow term, the bound
then rounded upward); the constants here are proved directly from the standard model, as above, not copied: this
session did not have the papers' text, so no equation number of theirs is quoted. For interval operands the real
products of all points satisfy::

    |A~ B~ - fl(mA mB)|  <=  (gamma_k |mA| + rA) |mB|  +  (|mA| + rA) rB  +  k eta                             (2)

The right side is one float product of non-negative matrices, X Y, with X = [up(gamma_k |mA| + rA), up(|mA| + rA)],
Y = [|mB|; rB] (inner dimension k2 = 2k; k2 = k when rA or rB is 0, the terms of the zero radius dropped), where
``up`` rounds each elementwise step upward (below). Applying (1) to that product of non-negative matrices,
X Y <= (fl(X Y) + k2 eta) / (1 - gamma_k2), so the radius we store is::

    r  =  up( up(fl(X Y) * c1) + c0 ),   c1 >= 1 / (1 - gamma_k2),   c0 >= k2 eta c1 + k eta                   (3)

with c1 and c0 computed exactly in rationals and rounded up to floats once per k. Two BLAS products per interval
product: the midpoints, and the radius (one product of inner dimension 2k when both operands have radii).

**Upward rounding of one operation** (``up``). A correctly rounded result c = fl(x) of a real x lies between the
float neighbours of c, so x <= succ(c) (``np.nextafter(c, inf)``, computed here from the integer view of the float,
which is monotone: 5 times faster) and |x - c| <= ``np.spacing(|c|)`` (the gap above
|c|, never smaller than the gap below; for c = 0 it is eta, which covers underflow). numpy's +, -, *, / and sqrt on
float64 are IEEE 754 correctly rounded; a sum of non-negative floats that rounds to 0 is exactly 0, and a product
with a zero factor is exactly 0, so those stay 0 (radii of exact data stay 0). Sums of midpoints carry their exact
error by TwoSum (Knuth; Higham 2002, Algorithm 4.3), so an exact sum keeps radius 0.

**Elementwise functions.** exp and erf are evaluated by a table and a Taylor polynomial, both in this arithmetic (so
their rounding is enclosed too), plus Lagrange's remainder; no per-entry arb call (arb cost 6 us per exp and 65 us per
erf here, 13 s for one MiniLM layer's erf):

* exp(x) = exp(a) exp(b/256) exp(h) with a = floor(x), b/256 the nearest multiple of 1/256 to x - a, |h| <= 2^-9
  (+ its rounding): the tables exp(a), a in [-746, 709], and exp(b/256), b in [0, 256], are python-flint ``arb``
  balls at 128 bits rounded outward to floats; exp(h) = sum_{j <= 6} h^j / j! + R with |R| <= e^|h| |h|^7 / 7! <=
  2 |h|^7 / 7! (|h| <= 1/2). Below -746, exp(x) is in [0, eta]; above 709 the context refuses (the double range).
* erf(x) = sum_{j <= 8} c_j(g) h^j + R, g the nearest multiple of 1/64 in [-7, 7], |h| <= 2^-7 + 2^-12: the coefficients
  c_j(g) = erf^(j)(g) / j! (erf^(j) = 2/sqrt(pi) (-1)^(j-1) H_(j-1) e^(-x^2)) are arb balls rounded outward, and
  |R| <= M_g |h|^9 with M_g an arb upper bound of |erf^(9)| / 9! on the whole ball g +- (2^-7 + 2^-12) (arb's
  interval evaluation of the Hermite recurrence). For |x| >= 6.5, erf(x) is in sign(x) [1 - 2^-53, 1], since
  0 < erfc(x) <= e^(-x^2) / (x sqrt(pi)) < 4e-20.
* An interval of radius at most 2^-13 is evaluated once: h is then itself an interval (the point's h widened by the
  radius), the polynomial is evaluated in this interval arithmetic and the remainder at the largest |h|, which stays
  within the ball the remainder bound holds on. exp and erf are increasing, so a wider interval is enclosed by
  [lower f(m - r), upper f(m + r)], f evaluated at its two endpoints.
* sqrt and the reciprocal are monotone and correctly rounded: [down sqrt(lo), up sqrt(hi)], [down 1/hi, up 1/lo].

What this context refuses (:class:`MidradRangeError`, a ValueError naming the problem): any midpoint or radius that
leaves the finite float64 range (magnitudes beyond 1.8e308, exp of more than 709), a divisor whose enclosure contains
0 (a softmax sum after a very wide exp), and a BLAS that flushes subnormals to zero (checked once, by a product whose
exact value is subnormal, and one with subnormal inputs).
A consumer then falls back to ``arb`` at a higher precision. Where double precision cannot decide (an enclosure that
contains 0 where a residual far below 1e-16 is being tested), the maps answer "undecided" with the enclosure's width
(:meth:`MidradContext.unsure_rows`), as the other interval contexts do.

>>> from theorems.exact.transformer import MIDRAD, softmax_rows
>>> A = softmax_rows(MIDRAD, [[0, 0], [0, 1]])
>>> lo, hi = A.bounds()
>>> bool(lo[0, 0] <= 0.5 <= hi[0, 0]) and float(hi[1, 1] - lo[1, 1]) < 1e-14
True
"""
from __future__ import annotations

import math
from contextlib import nullcontext
from fractions import Fraction
from functools import lru_cache

import flint
import numpy as np

from .base import Operators, fraction_of, rows_of

__all__ = ["MidradContext", "MIDRAD", "Midrad", "MidradRangeError", "midrad", "succ", "pred", "add_up", "mul_up",
           "div_up", "spacing_abs", "warm_tables"]

INF = math.inf
U = Fraction(1, 2 ** 53)
ETA = Fraction(1, 2 ** 1074)
ETA_F = float(np.nextafter(0.0, 1.0))


class MidradRangeError(ValueError):
    """Double precision cannot carry this computation: a result outside the float64 range, a divisor whose enclosure
    contains 0 though the real divisor does not (softmax sums after a very wide exp), or a BLAS that flushes
    subnormals. The consumer falls back to arb at a higher precision."""


# --------------------------------------------------------------------------------------------- rounding helpers

def _bits(x):
    return np.asarray(x, dtype=np.float64).view(np.int64)


def succ(x):
    """succ(x), the float above x (the IEEE encoding is monotone: one more in the integer view for x >= 0, one less
    in magnitude for x < 0; -0 is read as +0): an upper bound of every real that rounds to x. +inf stays +inf and a
    NaN stays a NaN (one more in the integer view of +inf would be a NaN)."""
    x = np.asarray(x, dtype=np.float64) + 0.0
    i = _bits(x)
    out = np.where(i >= 0, i + 1, i - 1).view(np.float64)
    top = np.max(x) if x.size else 0.0
    if top == INF or top != top:  # one reduction; the rare overflow (or NaN) is mended entry by entry
        out = np.where(np.isposinf(x) | np.isnan(x), x, out)
    return out


def pred(x):
    return -succ(-np.asarray(x, dtype=np.float64))


def _up_nonneg(s, bump):
    """succ(s) where ``bump`` (s >= 0, not -0), s itself elsewhere; an overflow (+inf) stays +inf, a true upper
    bound, never the NaN that one more in the integer view would give (checked by one reduction: s >= 0, so an
    overflow is its maximum)."""
    out = (_bits(s) + bump).view(np.float64)
    if np.size(s) and np.max(s) == INF:
        out = np.where(np.isposinf(s), s, out)
    return out


def add_up(a, b):
    """An upper bound of a + b for non-negative a, b (exactly 0 when both are 0: a sum that rounds to 0 is 0)."""
    s = np.asarray(a + b, dtype=np.float64)
    return _up_nonneg(s, s != 0)


def mul_up(a, b):
    """An upper bound of a * b for non-negative a, b (exactly 0 when a factor is 0; a product that underflows to 0
    with both factors non-zero becomes eta)."""
    p = np.asarray(a * b, dtype=np.float64)
    return _up_nonneg(p, (np.asarray(a) != 0) & (np.asarray(b) != 0))


def div_up(a, c):
    """An upper bound of a / c for a >= 0, c > 0."""
    q = np.asarray(a / c, dtype=np.float64)
    return _up_nonneg(q, np.asarray(a) != 0)


def _sub_up(a, b):
    """An upper bound of a - b (floats; exactly 0 when they are equal)."""
    s = np.asarray(a - b, dtype=np.float64)
    return np.where(s == 0, 0.0, succ(s))


def spacing_abs(x):
    """np.spacing(|x|) exactly (the gap above |x|: succ(|x|) - |x|, a difference of neighbours, exact)."""
    a = np.abs(np.asarray(x, dtype=np.float64)) + 0.0
    return (_bits(a) + 1).view(np.float64) - a


def _ceil_float(q: Fraction) -> float:
    """The smallest float >= q (q >= 0, in range)."""
    f = float(q)
    return f if Fraction(f) >= q else float(np.nextafter(f, INF))


@lru_cache(maxsize=None)
def _product_constants(k: int, kk: int) -> tuple[float, float, float]:
    """(gamma_k rounded up, c1 >= 1 / (1 - gamma_kk), c0 >= kk eta c1 + k eta) of inequality (3)."""
    if 2 * kk * U > 1:
        raise MidradRangeError(f"an inner dimension of {kk} is beyond the a-priori bound (k u <= 1/2)")
    g = k * U / (1 - k * U)
    gk = kk * U / (1 - kk * U)
    c1 = _ceil_float(1 / (1 - gk))
    c0 = _ceil_float(kk * ETA * Fraction(c1) + k * ETA)
    return _ceil_float(g), c1, c0


def _two_sum(a, b):
    """s = fl(a + b) and its exact error e (a + b = s + e), Knuth's TwoSum in round-to-nearest."""
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, e


# --------------------------------------------------------------------------------------------- the interval type

def _checked(m, r) -> Midrad:
    if not (np.isfinite(m).all() and np.isfinite(r).all()):
        raise MidradRangeError("a midpoint-radius enclosure left the float64 range (|x| > 1.8e308); "
                               "this computation needs the arb context")
    return Midrad(m, r)


class Midrad:
    """An array of intervals <m, r> = [m - r, m + r] (m, r float64 arrays of one shape; r >= 0)."""

    __slots__ = ("m", "r")
    __array_ufunc__ = None  # numpy never operates on it entry by entry

    def __init__(self, m, r=None):
        self.m = np.asarray(m, dtype=np.float64)
        self.r = np.zeros_like(self.m) if r is None else np.asarray(r, dtype=np.float64)

    @property
    def shape(self):
        return self.m.shape

    def __len__(self):
        return self.m.shape[0]

    @property
    def T(self):
        return Midrad(self.m.T, self.r.T)

    def __repr__(self):
        return f"Midrad(m={self.m!r}, r={self.r!r})"

    def bounds(self):
        """(lo, hi) float arrays with lo <= every point <= hi (rounded outward; exact where r = 0)."""
        lo, hi = self.m - self.r, self.m + self.r
        z = self.r == 0
        return np.where(z, self.m, pred(lo)), np.where(z, self.m, succ(hi))

    def mag(self):
        """An upper bound of |x| over the interval."""
        return add_up(np.abs(self.m), self.r)

    def reshape(self, *shape):
        return Midrad(self.m.reshape(*shape), self.r.reshape(*shape))

    def __getitem__(self, k):
        return Midrad(self.m[k], self.r[k])

    def __neg__(self):
        return Midrad(-self.m, self.r)

    def __add__(self, o):
        o = _as_midrad(o)
        s, e = _two_sum(self.m, o.m)
        ra, rb = self.r.any(), o.r.any()
        rr = add_up(self.r, o.r) if (ra and rb) else (self.r if ra else o.r)
        return _checked(s, add_up(rr, np.abs(e)) if (ra or rb) else np.abs(e))

    __radd__ = __add__

    def __sub__(self, o):
        return self + (-_as_midrad(o))

    def __rsub__(self, o):
        return _as_midrad(o) + (-self)

    def __mul__(self, o):
        o = _as_midrad(o)
        a, b = self.m, o.m
        p = a * b
        err = spacing_abs(p) * ((a != 0) & (b != 0))  # a product with a zero factor is exactly 0
        ra, rb = self.r.any(), o.r.any()
        # |a~ b~ - a b| <= |a| rb + ra (|b| + rb)
        if ra and rb:
            t = add_up(mul_up(np.abs(a), o.r), mul_up(self.r, add_up(np.abs(b), o.r)))
        elif rb:
            t = mul_up(np.abs(a), o.r)
        elif ra:
            t = mul_up(self.r, np.abs(b))
        else:
            return _checked(p, err)
        return _checked(p, add_up(t, err))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = _as_midrad(o)
        if not o.r.any():
            return _div_point(self, o.m)
        return self * _reciprocal(o)

    def __rtruediv__(self, o):
        return _as_midrad(o) * _reciprocal(self)


def _as_midrad(x) -> Midrad:
    if isinstance(x, Midrad):
        return x
    if isinstance(x, (int, float, np.floating, np.integer)) and float(x) == x:
        return Midrad(float(x))
    raise TypeError(f"cannot use {x!r} as a midpoint-radius interval (convert it with the context's const)")


def _from_bounds(lo, hi) -> Midrad:
    """The midpoint-radius pair enclosing [lo, hi] (float arrays, lo <= hi)."""
    m = lo + 0.5 * (hi - lo)
    m = np.where(np.isfinite(m), m, 0.5 * lo + 0.5 * hi)
    return _checked(m, np.maximum(_sub_up(hi, m), _sub_up(m, lo)))


def _div_point(X: Midrad, c) -> Midrad:
    """X / c for float c (no zero entries): the midpoint's rounding by np.spacing, the radius rounded up."""
    c = np.asarray(c, dtype=np.float64)
    if (c == 0).any():
        raise ZeroDivisionError("division by an interval that is exactly 0")
    q = X.m / c
    err = np.where(X.m == 0, 0.0, spacing_abs(q))
    return _checked(q, add_up(div_up(X.r, np.abs(c)), err))


def _reciprocal(Y: Midrad) -> Midrad:
    """1 / Y for Y not containing 0 (ZeroDivisionError otherwise)."""
    lo, hi = Y.bounds()
    bad = (lo <= 0) & (hi >= 0)
    if bad.any():
        i = tuple(int(k) for k in np.argwhere(bad)[0]) if Y.m.ndim else ()
        raise MidradRangeError(f"a divisor's enclosure contains 0 at double precision (entry {i}: "
                               f"[{float(lo[i]):.3g}, {float(hi[i]):.3g}]); this computation needs the arb context")
    neg = hi < 0
    a, b = np.where(neg, -hi, lo), np.where(neg, -lo, hi)  # 0 < a <= |y| <= b
    rlo, rhi = pred(1.0 / b), succ(1.0 / a)
    return _from_bounds(np.where(neg, -rhi, rlo), np.where(neg, -rlo, rhi))


def _matmul(A: Midrad, B: Midrad) -> Midrad:
    """The interval product, inequalities (1)-(3) of the module docstring."""
    if A.m.ndim != 2 or B.m.ndim != 2 or A.m.shape[1] != B.m.shape[0]:
        raise ValueError(f"cannot multiply a {A.m.shape} matrix by a {B.m.shape} one")
    _blas_keeps_subnormals()
    k = A.m.shape[1]
    C = A.m @ B.m
    aA, aB = np.abs(A.m), np.abs(B.m)
    pa, pb = not A.r.any(), not B.r.any()
    kk = k if (pa or pb) else 2 * k
    g, c1, c0 = _product_constants(k, kk)
    if pb:      # (gamma |mA| + rA) |mB|
        X, Y = add_up(mul_up(g, aA), A.r), aB
    elif pa:    # |mA| (gamma |mB| + rB)
        X, Y = aA, add_up(mul_up(g, aB), B.r)
    else:       # (gamma |mA| + rA) |mB| + (|mA| + rA) rB
        X = np.hstack([add_up(mul_up(g, aA), A.r), add_up(aA, A.r)])
        Y = np.vstack([aB, B.r])
    R = X @ Y
    return _checked(C, add_up(mul_up(R, c1), c0))


@lru_cache(maxsize=None)
def _blas_keeps_subnormals() -> None:
    """Refuse a BLAS (or CPU mode) that flushes subnormal results or inputs to zero: bound (1) assumes it does not."""
    a = np.full((8, 64), 2.0 ** -1070)
    ok = (a @ np.full((64, 8), 2.0 ** -3))[0, 0] == 64 * 2.0 ** -1073 and \
        (a @ np.full((64, 8), 2.0 ** 100))[0, 0] == 64 * 2.0 ** -970 and (a * 2.0 ** -3)[0, 0] == 2.0 ** -1073
    if not ok:
        raise MidradRangeError("this BLAS flushes subnormal numbers to zero, so the a-priori bound of the "
                               "midpoint-radius products does not hold here; use the arb context")


# --------------------------------------------------------------------------------------------- exp and erf

_ARB_BITS = 128


def _ball_to_float_bounds(x: flint.arb) -> tuple[float, float]:
    """Floats lo <= x <= hi for every point of the arb ball x (decided by exact comparisons)."""
    lo_a, hi_a = x.lower(), x.upper()
    lo, hi = float(lo_a), float(hi_a)
    while not flint.arb(lo) <= lo_a:
        lo = float(np.nextafter(lo, -INF))
    while not flint.arb(hi) >= hi_a:
        hi = float(np.nextafter(hi, INF))
    return lo, hi


def _balls(xs) -> Midrad:
    b = np.array([_ball_to_float_bounds(x) for x in xs], dtype=np.float64).reshape(-1, 2)
    return _from_bounds(b[:, 0], b[:, 1])


EXP_K = 6
EXP_A = (-746, 709)


@lru_cache(maxsize=1)
def _exp_tables():
    old = flint.ctx.prec
    flint.ctx.prec = _ARB_BITS
    try:
        A = _balls([flint.arb(a).exp() for a in range(EXP_A[0], EXP_A[1] + 1)])
        B = _balls([(flint.arb(b) / 256).exp() for b in range(257)])
        inv_fact = [_balls([1 / flint.arb(math.factorial(j))]) for j in range(EXP_K + 1)]
        rem = _ceil_float(Fraction(2, math.factorial(EXP_K + 1)))
    finally:
        flint.ctx.prec = old
    return A, B, inv_fact, rem


def warm_tables() -> None:
    """Build the exp and erf tables now (about 0.3 s, once per process). They are computed in arb, which sets
    python-flint's one process-wide precision for the while: a caller that runs arb in other threads builds them
    under its own precision lock first (the network forward of the numeric layer does)."""
    _exp_tables()
    _erf_tables()


def _power_up(h, k: int):
    """An upper bound of h^k (h >= 0)."""
    p = h
    for _ in range(k - 1):
        p = mul_up(p, h)
    return p


def _exp_core(X: Midrad) -> Midrad:
    """exp on intervals of radius <= 2^-13 (points included), as an enclosure."""
    A, B, inv_fact, rem = _exp_tables()
    x = X.m
    if (x + X.r > EXP_A[1]).any():
        raise MidradRangeError(f"exp({float(x.max()):.6g}) is beyond the float64 range (1.8e308); this "
                               "computation needs the arb context")
    tiny = x < EXP_A[0]          # then every point is below -745.9: exp < eta
    xs = np.where(tiny, 0.0, x)
    a = np.floor(xs)
    b = np.rint((xs - a) * 256)  # 0..256; the rounding of xs - a only moves h within its bound
    g = a + b / 256              # exact: |a| < 2^10, b / 256 a multiple of 2^-8
    h = Midrad(xs) - Midrad(g)   # TwoSum: exact error in the radius
    if X.r.any():
        h = Midrad(h.m, add_up(h.r, np.where(tiny, 0.0, X.r)))
    hmax = h.mag()
    if (hmax > 0.5).any():
        raise AssertionError("exp reduction left |h| > 1/2")  # impossible for finite x; guards the remainder bound
    P = Midrad(np.full(x.shape, inv_fact[EXP_K].m), np.full(x.shape, inv_fact[EXP_K].r))
    for j in range(EXP_K - 1, -1, -1):
        P = P * h + inv_fact[j]
    P = Midrad(P.m, add_up(P.r, mul_up(_power_up(hmax, EXP_K + 1), rem)))
    ia, ib = (a - EXP_A[0]).astype(np.intp), b.astype(np.intp)
    E = A[ia] * B[ib] * P
    return Midrad(np.where(tiny, 0.0, E.m), np.where(tiny, ETA_F, E.r))


ERF_K = 8
ERF_STEP = 64
ERF_MAX = 7         # the table's grid covers [-7, 7]
ERF_TAIL = 6.5      # from here on, erf(x) is within 2^-53 of sign(x)
ERF_DELTA = 2.0 ** -7 + 2.0 ** -12


@lru_cache(maxsize=1)
def _erf_tables():
    old = flint.ctx.prec
    flint.ctx.prec = _ARB_BITS
    try:
        two_rt_pi = 2 / flint.arb.pi().sqrt()
        coef, rem = [], []
        for i in range(-ERF_MAX * ERF_STEP, ERF_MAX * ERF_STEP + 1):
            g = flint.arb(i) / ERF_STEP
            cs = [g.erf()]
            hs = [flint.arb(1), 2 * g]  # H_0, H_1 at g
            for n in range(1, ERF_K):
                hs.append(2 * g * hs[n] - 2 * n * hs[n - 1])
            e = (-(g * g)).exp()
            for j in range(1, ERF_K + 1):
                cs.append(two_rt_pi * (-1) ** (j - 1) * hs[j - 1] * e / math.factorial(j))
            coef.append(cs)
            # sup over the ball g +- delta of |erf^(K+1)| / (K+1)!  =  2/sqrt(pi) |H_K| e^(-x^2) / (K+1)!
            X = flint.arb(g.mid(), ERF_DELTA)
            H0, H1 = flint.arb(1), 2 * X
            for n in range(1, ERF_K):
                H0, H1 = H1, 2 * X * H1 - 2 * n * H0
            bound = (two_rt_pi * H1 * (-(X * X)).exp() / math.factorial(ERF_K + 1)).abs_upper()
            rem.append(_ball_to_float_bounds(bound)[1])
        C = [_balls([cs[j] for cs in coef]) for j in range(ERF_K + 1)]
        one_lo = float(np.nextafter(1.0, -INF))
    finally:
        flint.ctx.prec = old
    return C, np.array(rem), one_lo


def _erf_core(X: Midrad) -> Midrad:
    """erf on intervals of radius <= 2^-13 (points included), as an enclosure."""
    C, rem, one_lo = _erf_tables()
    x = X.m
    big = np.abs(x) - X.r >= ERF_TAIL  # every point beyond the tail's threshold, on one side
    xs = np.where(big, 0.0, x)
    gi = np.rint(xs * ERF_STEP)
    h = Midrad(xs) - Midrad(gi / ERF_STEP)
    if X.r.any():
        h = Midrad(h.m, add_up(h.r, np.where(big, 0.0, X.r)))
    hmax = h.mag()
    if (hmax > ERF_DELTA).any():
        raise AssertionError("erf reduction left |h| beyond the remainder's ball")
    idx = (gi + ERF_MAX * ERF_STEP).astype(np.intp)
    P = C[ERF_K][idx]
    for j in range(ERF_K - 1, -1, -1):
        P = P * h + C[j][idx]
    P = Midrad(P.m, add_up(P.r, mul_up(_power_up(hmax, ERF_K + 1), rem[idx])))
    tail = _from_bounds(np.full(x.shape, one_lo), np.ones(x.shape))
    s = np.sign(x)
    return Midrad(np.where(big, s * tail.m, P.m), np.where(big, tail.r, P.r))


#: intervals up to this radius are evaluated at once (the Taylor polynomial in interval arithmetic around the grid
#: point, the remainder at the largest |h|); wider ones at their two endpoints
NARROW = 2.0 ** -13


def _monotone(X: Midrad, core) -> Midrad:
    """f(X) for an increasing f: ``core(X)`` when every radius is at most :data:`NARROW`, else
    [lower f(lo), upper f(hi)] from ``core`` at the two endpoints."""
    if not (X.r > NARROW).any():
        return core(X)
    lo, hi = X.bounds()
    return _from_bounds(core(Midrad(lo)).bounds()[0], core(Midrad(hi)).bounds()[1])


def _sqrt(X: Midrad) -> Midrad:
    lo, hi = X.bounds()
    if (lo < 0).any():
        raise ValueError("square root of an interval that contains negative numbers")
    slo = np.where(lo == 0, 0.0, pred(np.sqrt(lo)))
    return _from_bounds(slo, succ(np.sqrt(hi)))


# --------------------------------------------------------------------------------------------- the context

class MidradContext(Operators):
    """Midpoint-radius intervals on BLAS (float64, round-to-nearest): rigorous enclosures at double precision.

    Matrices are :class:`Midrad` pairs; row statistics are [n, 1] and per-column parameters [d] pairs, as in the
    float context."""

    name = "midrad"

    def local(self):
        return nullcontext()

    # ---- exact input
    def _num(self, v) -> tuple[float, float]:
        if isinstance(v, (float, np.floating)):
            if not math.isfinite(v):
                raise ValueError(f"{v} is not a finite number")
            return float(v), 0.0
        f = fraction_of(v)
        if f is None:
            if hasattr(v, "p") and hasattr(v, "q"):
                f = Fraction(int(v.p), int(v.q))
            else:
                raise TypeError(f"cannot convert {v!r} to a midpoint-radius interval exactly")
        try:
            m = float(f)  # correctly rounded
        except OverflowError:
            raise MidradRangeError(f"{v} is beyond the float64 range") from None
        return m, (0.0 if Fraction(m) == f else float(np.spacing(abs(m))))

    def asmatrix(self, M):
        if isinstance(M, Midrad):
            return M
        if isinstance(M, np.ndarray) and M.dtype.kind == "f":
            A = np.asarray(M, dtype=np.float64)
            if not np.isfinite(A).all():
                i = tuple(int(k) for k in np.argwhere(~np.isfinite(A))[0])
                raise ValueError(f"entry {i} is {A[i]}: a non-finite number has no value (to mask attention use "
                                 "keep= or causal=)")
            return Midrad(A.copy())
        rows = rows_of(M)
        pairs = [[self._num(v) for v in r] for r in rows]
        a = np.array(pairs, dtype=np.float64).reshape(len(rows), len(rows[0]) if rows else 0, 2)
        return Midrad(a[..., 0], a[..., 1])

    def asvector(self, v):
        if isinstance(v, Midrad):
            return v.reshape(-1)
        vals = v.tolist() if hasattr(v, "tolist") else list(v)
        a = np.array([self._num(x) for x in vals], dtype=np.float64).reshape(-1, 2)
        return Midrad(a[:, 0], a[:, 1])

    def const(self, q):
        if isinstance(q, Midrad):
            return q
        m, r = self._num(Fraction(q) if isinstance(q, str) else q)
        return Midrad(m, r)

    def shape(self, M):
        return M.shape

    # ---- linear algebra
    def matmul(self, A, B):
        return _matmul(A, B)

    def transpose(self, A):
        return A.T

    def hadamard(self, A, B):
        return A * B

    def scale(self, M, c):
        return self.const(c) * M

    def div_scalar(self, M, c):
        return M / self.const(c)

    def add_scalar(self, M, c):
        return M + self.const(c)

    def row_sum(self, M):
        return _matmul(M, Midrad(np.ones((M.shape[1], 1))))

    def row_mean(self, M):
        return _div_point(self.row_sum(M), float(M.shape[1]))

    def sub_rows(self, M, v):
        return M - v

    def div_rows(self, M, v):
        return M / v

    def scale_rows(self, M, v):
        return self.asvector(v).reshape(-1, 1) * M

    def mul_cols(self, M, v):
        return M * v

    def add_cols(self, M, v):
        return M + v

    # ---- elementwise functions
    def exp(self, M, keep=None):
        if keep is None:
            return _monotone(M, _exp_core)
        keep = np.asarray(keep, dtype=bool)
        inner = _monotone(Midrad(np.where(keep, M.m, 0.0), np.where(keep, M.r, 0.0)), _exp_core)
        return Midrad(np.where(keep, inner.m, 0.0), np.where(keep, inner.r, 0.0))

    def erf(self, M):
        return _monotone(M, _erf_core)

    def tanh(self, M):
        """tanh = 1 - 2 / (exp(2 x) + 1): x occurs once, so the interval evaluation is tight; |x| >= 20 is within
        2^-53 of +-1 (1 - tanh 20 < 9e-18)."""
        lo, hi = M.bounds()
        big, small = lo >= 20, hi <= -20
        inner = Midrad(np.where(big | small, 0.0, M.m), np.where(big | small, 0.0, M.r))
        T = 1.0 - _as_midrad(2.0) / (self.exp(inner * _as_midrad(2.0)) + 1.0)
        one = _from_bounds(np.array(float(np.nextafter(1.0, -INF))), np.array(1.0))
        m = np.where(big, one.m, np.where(small, -one.m, T.m))
        return Midrad(m, np.where(big | small, one.r, T.r))

    def from_arb(self, x) -> Midrad:
        """A python-flint arb ball as a midpoint-radius scalar containing it."""
        return _balls([x]).reshape(())

    def vsqrt(self, v):
        return _sqrt(v)

    def sqrt(self, c):
        return _sqrt(self.const(c))

    def vadd_scalar(self, v, c):
        return v + self.const(c)

    # ---- decisions
    def row_shift(self, S, keep):
        m = S.m if keep is None else np.where(keep, S.m, -INF)
        top = m.max(axis=1, keepdims=True)
        return Midrad(np.where(np.isfinite(top), top, 0.0))

    def zero_rows(self, v):
        z = (v.m == 0) & (v.r == 0)
        return [int(i) for i in np.flatnonzero(z.ravel())]

    def unsure_rows(self, v):
        u = (np.abs(v.m) <= v.r) & (v.r > 0)
        return [int(i) for i in np.flatnonzero(u.ravel())]

    def constant_rows(self, M):
        if not M.shape[1]:
            return []
        c = (M.r == 0).all(axis=1) & (M.m == M.m[:, :1]).all(axis=1)
        return [int(i) for i in np.flatnonzero(c)]

    def keep_matrix(self, keep):
        return np.asarray(keep, dtype=bool)

    def widths(self, M) -> np.ndarray:
        """The radii (an upper bound of half of each interval's width)."""
        return M.r


MIDRAD = MidradContext()


def midrad(dps=None) -> MidradContext:
    """The midpoint-radius context (double precision: ``dps`` is accepted for the backend table and ignored)."""
    return MIDRAD
