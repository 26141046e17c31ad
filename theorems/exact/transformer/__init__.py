r"""The transformer maps, written once over an arithmetic context (after mpmath's contexts).

One definition each of LayerNorm, RMSNorm, row softmax (optionally causal), single-head
attention, multi-head attention, GeLU, the FFN and a block. The arithmetic is supplied by a
*context* object; the definitions only call its methods, so the same text runs in

``FP``        numpy float64, vectorised (exploration and the real model; float evidence)
``mp(dps)``   mpmath ``mp`` at ``dps`` digits, precision set locally (never a global side effect)
``iv(dps)``   mpmath ``iv`` intervals at ``dps`` digits: rigorous enclosures (erf through arb)
``arb(dps)``  python-flint ``arb``/``arb_mat`` balls at ``dps`` digits: rigorous enclosures
``SYMPY``     sympy, exact: rationals stay rationals, ``exp``/``erf`` stay symbolic
``SYMPY_LOG2``  sympy with the logits read in units of log 2 (``exp(s) := 2^s`` on integers), so
              softmax(log 2 * S) of an integer S is computed as an exact rational

The context protocol (every method takes and returns the context's native objects):

* ``local()``                   a context manager setting the working precision (restored after)
* ``asmatrix(M)``, ``asvector(v)``  convert exact input (int, Fraction, str, sympy/flint rationals,
  floats taken exactly, numpy arrays, lists of lists) or a native object
* ``const(q)``                  an exact rational as a number of the context
* ``shape(M)``; ``matmul(A, B)``, ``add(A, B)``, ``sub(A, B)``, ``transpose(A)``, ``hadamard(A, B)``
* ``scale(M, c)`` (c M), ``div_scalar(M, c)`` (M / c), ``add_scalar(M, c)``
* ``row_mean(M)``, ``row_sum(M)`` -> a column vector; ``sub_rows``, ``div_rows`` (M_ij op v_i),
  ``scale_rows`` (v_i M_ij), ``mul_cols``, ``add_cols`` (M_ij op v_j)
* ``exp(M, keep=None)`` (entries outside ``keep`` are exactly 0), ``erf(M)``, ``vsqrt(v)``, ``sqrt(c)``,
  ``vadd_scalar(v, c)``
* ``row_shift(S, keep)``         a point constant per row to subtract before exp (softmax is exactly
  invariant under it; the exact contexts shift by 0)
* ``zero_rows(v)``               the indices i with v_i certainly 0 (the H1 test of the norms);
  ``unsure_rows(v)`` those whose enclosure contains 0 without being 0 (iv, arb: H1 undecided)

The layering rule holds: this module is part of the exact layer and imports nothing numeric from the
project; mpmath and python-flint are imported where a numeric context is made.

>>> Y = layer_norm(mp(30), [[1, 2, 3], [0, 0, 1]])
>>> [round(float(v), 12) for v in [Y[0, 0], Y[0, 1], Y[0, 2]]]
[-1.224744871392, 0.0, 1.224744871392]
>>> softmax_rows(SYMPY, [[0, 0], [0, 0]])
Matrix([
[1/2, 1/2],
[1/2, 1/2]])
"""
from __future__ import annotations

import math
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np
import sympy

__all__ = ["Head", "Block", "REGIMES", "FP", "SYMPY", "SYMPY_LOG2", "mp", "iv", "arb", "context",
           "CONTEXTS", "layer_norm", "rms_norm", "softmax_rows", "causal_keep", "scores", "attention", "mha",
           "gelu", "ffn", "block_forward", "uniform_heads", "iv_erf", "arb_from_mpf", "workprec"]


@dataclass
class Head:
    """One attention head. Shapes: W_Q, W_K, W_V  # [d_model, d_k];  W_O  # [d_k, d_model]."""

    W_Q: object
    W_K: object
    W_V: object
    W_O: object


@dataclass
class Block:
    """An encoder block: heads, FFN (GELU) and two LayerNorms (post-LN, as in BERT)."""

    heads: list
    W1: object = None  # [d_model, d_ff]
    b1: object = None  # [d_ff]
    W2: object = None  # [d_ff, d_model]
    b2: object = None  # [d_model]
    ln1: tuple = (None, None)  # (gamma, beta)
    ln2: tuple = (None, None)
    eps: float = 0


REGIMES = ("pure_attention", "attention_skip", "attention_mlp", "full_block")


def _fraction(v) -> Fraction | None:
    """An exact rational for int, Fraction, str, sympy Rational, flint fmpq/fmpz (None otherwise)."""
    if isinstance(v, bool):
        return Fraction(int(v))
    if isinstance(v, (int, np.integer)):
        return Fraction(int(v))
    if isinstance(v, Fraction):
        return v
    if isinstance(v, str):
        return Fraction(v)
    if isinstance(v, sympy.Rational):
        return Fraction(int(v.p), int(v.q))
    if type(v).__name__ in ("fmpq", "fmpz"):
        return Fraction(int(v.p), int(v.q)) if hasattr(v, "q") else Fraction(int(v))
    return None


def _rows(M) -> list:
    """The rows of a matrix given as a list of lists, a numpy array or a sympy matrix; ragged rows and
    non-finite floats (NaN, inf) are refused with ValueError (never padded, never read as 0)."""
    rows = M.tolist() if hasattr(M, "tolist") else M
    if isinstance(rows, (list, tuple)) and rows and not isinstance(rows[0], (list, tuple, np.ndarray)):
        rows = [rows]
    out = [list(r) for r in rows]
    for i, r in enumerate(out):
        if len(r) != len(out[0]):
            raise ValueError(f"ragged input: row {i} has {len(r)} entries, row 0 has {len(out[0])}")
        for j, v in enumerate(r):
            if isinstance(v, (float, np.floating)) and not math.isfinite(v):
                raise ValueError(f"entry ({i}, {j}) is {v}: a non-finite number has no value in any context "
                                 "(to mask attention use keep= or causal=)")
    return out


# --- the float64 context: numpy, vectorised ---------------------------------------------------------

class _Operators:
    """What every context's matrix type writes the same way (numpy arrays, mpmath, arb and sympy matrices)."""

    def add(self, A, B):
        return A + B

    def sub(self, A, B):
        return A - B

    def transpose(self, A):
        return A.T


class FloatContext(_Operators):
    """numpy float64. Vectors are [n, 1] (row statistics) or [d] (per-column parameters) arrays."""

    name = "fp"

    def local(self):
        return nullcontext()

    def asmatrix(self, M):
        if isinstance(M, np.ndarray) and M.dtype.kind in "fiub":
            A = np.asarray(M, dtype=np.float64)  # any shape: the entrywise maps (GELU) keep it
        elif isinstance(M, (list, tuple)):
            A = np.array([[self.const(v) for v in r] for r in _rows(M)], dtype=np.float64)
        else:
            try:
                A = np.asarray(M, dtype=np.float64)
            except (TypeError, ValueError):  # sympy matrices of rationals numpy cannot read
                A = np.array([[self.const(v) for v in r] for r in _rows(M)], dtype=np.float64)
        if not np.isfinite(A).all():
            i = tuple(int(k) for k in np.argwhere(~np.isfinite(A))[0])
            raise ValueError(f"entry {i} is {A[i]}: a non-finite number has no value (to mask attention use keep= "
                             "or causal=)")
        return A

    def asvector(self, v):
        if isinstance(v, np.ndarray) and v.dtype.kind in "fiub":
            return np.asarray(v, dtype=np.float64).ravel()
        return np.array([self.const(x) for x in (v.tolist() if hasattr(v, "tolist") else v)], dtype=np.float64)

    def const(self, q):
        return float(Fraction(q)) if isinstance(q, str) else float(_fraction(q) or q)

    def shape(self, M):
        return M.shape

    def entries(self, M):
        """The rows: for float64 the [n, d] array itself (no per-entry copy)."""
        return np.atleast_2d(M)

    def matmul(self, A, B):
        return A @ B

    def hadamard(self, A, B):
        return A * B

    def scale(self, M, c):
        return c * M

    def div_scalar(self, M, c):
        return M / c

    def add_scalar(self, M, c):
        return c + M

    def row_mean(self, M):
        return M.mean(axis=1, keepdims=True)

    def row_sum(self, M):
        return M.sum(axis=1, keepdims=True)

    def sub_rows(self, M, v):
        return M - v

    def div_rows(self, M, v):
        return M / v

    def scale_rows(self, M, v):
        return np.asarray(v, dtype=np.float64).reshape(-1, 1) * M

    def mul_cols(self, M, v):
        return M * v

    def add_cols(self, M, v):
        return M + v

    def exp(self, M, keep=None):
        return np.exp(M) if keep is None else np.exp(np.where(keep, M, -np.inf))

    def erf(self, M):
        return np.vectorize(math.erf, otypes=[np.float64])(M)

    def vsqrt(self, v):
        return np.sqrt(v)

    def vadd_scalar(self, v, c):
        return v + c

    def sqrt(self, c):
        return math.sqrt(c)

    def row_shift(self, S, keep):
        return S.max(axis=1, keepdims=True) if keep is None else np.where(keep, S, -np.inf).max(axis=1, keepdims=True)

    def zero_rows(self, v):
        return [int(i) for i in np.flatnonzero(np.asarray(v).ravel() == 0)]

    def constant_rows(self, M):
        return [int(i) for i in np.flatnonzero((M == M[:, :1]).all(axis=1))] if M.shape[1] else []

    def unsure_rows(self, v):
        return []

    def keep_matrix(self, keep):
        return np.asarray(keep, dtype=bool)


# --- contexts whose matrices are handled entry by entry ------------------------------------------------

class EntrywiseContext(_Operators):
    """Shared code for mp, iv, arb and sympy: matrix products are native, the rest entry by entry.

    Subclasses supply ``num`` (exact conversion), ``build(rows)``, ``entries(M)``, ``native``, ``shape``,
    ``sqrt``, ``_exp``, ``_erf``, ``_point_max`` and ``_is_zero``; vectors are python lists.
    """

    name = "entrywise"
    native: type = type(None)

    def local(self):
        return nullcontext()

    def asmatrix(self, M):
        if isinstance(M, self.native):
            return M
        return self.build([[self.num(v) for v in r] for r in _rows(M)])

    def asvector(self, v):
        return [self.num(x) for x in (v.tolist() if hasattr(v, "tolist") else v)]

    def const(self, q):
        return self.num(q)

    def matmul(self, A, B):
        return A * B

    def _map(self, M, f):
        return self.build([[f(i, j, v) for j, v in enumerate(r)] for i, r in enumerate(self.entries(M))])

    def hadamard(self, A, B):
        Bs = self.entries(B)
        return self._map(A, lambda i, j, v: v * Bs[i][j])

    def scale(self, M, c):
        return self._map(M, lambda i, j, v: c * v)

    def div_scalar(self, M, c):
        return self._map(M, lambda i, j, v: v / c)

    def add_scalar(self, M, c):
        return self._map(M, lambda i, j, v: c + v)

    def _sum(self, xs):
        xs = list(xs)
        return sum(xs[1:], xs[0])

    def row_sum(self, M):
        return [self._sum(r) for r in self.entries(M)]

    def _mean_sum(self, xs):
        return self._sum(xs)

    def row_mean(self, M):
        return [self._mean_sum(r) / len(r) for r in self.entries(M)]

    def sub_rows(self, M, v):
        return self._map(M, lambda i, j, x: x - v[i])

    def div_rows(self, M, v):
        return self._map(M, lambda i, j, x: x / v[i])

    def scale_rows(self, M, v):
        v = [self.num(x) for x in v]
        return self._map(M, lambda i, j, x: v[i] * x)

    def mul_cols(self, M, v):
        return self._map(M, lambda i, j, x: x * v[j])

    def add_cols(self, M, v):
        return self._map(M, lambda i, j, x: x + v[j])

    def exp(self, M, keep=None):
        zero = self.num(0)
        return self._map(M, lambda i, j, v: self._exp(v) if keep is None or keep[i][j] else zero)

    def erf(self, M):
        return self._map(M, lambda i, j, v: self._erf(v))

    def vsqrt(self, v):
        return [self.sqrt(x) for x in v]

    def vadd_scalar(self, v, c):
        return [x + c for x in v]

    def row_shift(self, S, keep):
        return [self._point_max([v for j, v in enumerate(r) if keep is None or keep[i][j]])
                for i, r in enumerate(self.entries(S))]

    def zero_rows(self, v):
        return [i for i, x in enumerate(v) if self._is_zero(x)]

    def constant_rows(self, M):
        return [i for i, r in enumerate(self.entries(M)) if all(self._is_zero(x - r[0]) for x in r)]

    def unsure_rows(self, v):
        return [i for i, x in enumerate(v) if self._contains_zero(x) and not self._is_zero(x)]

    def _contains_zero(self, x):
        return False  # points: zero or not

    def keep_matrix(self, keep):
        return [[bool(k) for k in r] for r in _rows(keep)]


@contextmanager
def workprec(ctx, dps: int):
    """Local precision for an mpmath context (``iv`` has no ``workdps``)."""
    old = ctx.prec
    try:
        ctx.dps = dps
        yield ctx
    finally:
        ctx.prec = old


class MpContext(EntrywiseContext):
    """mpmath ``mp`` (or, in the subclass, ``iv``) at ``dps`` digits, set locally."""

    name = "mp"

    def __init__(self, dps: int = 50):
        import mpmath
        self.dps = dps
        self.m = mpmath.mp
        self.native = self.m.matrix

    def local(self):
        return workprec(self.m, self.dps)

    def num(self, v):
        if isinstance(v, self.m.mpf):
            return v
        f = _fraction(v)
        if f is not None:
            return self.m.mpf(f.numerator) / f.denominator
        if hasattr(v, "p") and hasattr(v, "q"):
            return self.m.mpf(int(v.p)) / int(v.q)
        return self.m.mpf(v)

    def build(self, rows):
        return self.m.matrix(rows) if rows and rows[0] else self.m.matrix(len(rows), 0)

    def entries(self, M):
        return [[M[i, j] for j in range(M.cols)] for i in range(M.rows)]

    def shape(self, M):
        return (M.rows, M.cols)

    def _mean_sum(self, xs):
        return self.m.fsum(xs)

    def sqrt(self, c):
        return self.m.sqrt(self.num(c))

    def _exp(self, v):
        return self.m.exp(v)

    def _erf(self, v):
        return self.m.erf(v)

    def _point_max(self, vs):
        return max(vs)

    def _is_zero(self, x):
        return x == 0


def arb_from_mpf(t):
    """An mpmath raw mpf tuple (sign, man, exp, bc) as an exact python-flint arb."""
    import flint
    sign, man, exp, _ = t
    man = -int(man) if sign else int(man)
    exp = int(exp)
    return flint.arb(flint.fmpq(man * 2 ** exp) if exp >= 0 else flint.fmpq(man, 2 ** (-exp)))


def iv_erf(x, dps: int):
    """Rigorous interval erf. erf is increasing, so erf([a, b]) = [erf(a), erf(b)];
    each endpoint is enclosed by python-flint's arb (ball arithmetic) and rounded
    outward (floor / ceiling) to the interval precision."""
    import flint
    import mpmath
    from mpmath.libmp import from_man_exp, round_ceiling, round_floor
    ivc = mpmath.iv
    old = flint.ctx.prec
    try:
        flint.ctx.prec = int(dps * 3.33) + 30
        a_t, b_t = x._mpi_
        lo = arb_from_mpf(a_t).erf().lower()
        hi = arb_from_mpf(b_t).erf().upper()
        lm, le = lo.man_exp()
        hm, he = hi.man_exp()
    finally:
        flint.ctx.prec = old
    with workprec(ivc, dps):
        return ivc.make_mpf((from_man_exp(int(lm), int(le), ivc.prec, round_floor),
                             from_man_exp(int(hm), int(he), ivc.prec, round_ceiling)))


class IvContext(MpContext):
    """mpmath ``iv``: every number an interval, every operation rounded outward."""

    name = "iv"

    def __init__(self, dps: int = 50):
        import mpmath
        self.dps = dps
        self.m = mpmath.iv
        self.native = self.m.matrix

    def _erf(self, v):
        return iv_erf(v, self.dps)

    def _point_max(self, vs):
        import mpmath
        return self.m.mpf(mpmath.mpf(max(v.mid for v in vs)))

    def _is_zero(self, x):
        return 0 in x and x.b == 0

    def _contains_zero(self, x):
        return 0 in x


class ArbContext(EntrywiseContext):
    """python-flint ``arb`` balls at ``dps`` digits (flint.ctx.prec set locally, restored after)."""

    name = "arb"

    def __init__(self, dps: int = 50, bits: int | None = None):
        import flint
        self.flint = flint
        self.dps = dps
        self.bits = int(dps * 3.3220) + 20 if bits is None else bits
        self.native = flint.arb_mat

    @contextmanager
    def local(self):
        old = self.flint.ctx.prec
        self.flint.ctx.prec = self.bits
        try:
            yield self
        finally:
            self.flint.ctx.prec = old

    def num(self, v):
        flint = self.flint
        if isinstance(v, flint.arb):
            return v
        f = _fraction(v)
        if f is not None:
            return flint.arb(flint.fmpq(f.numerator, f.denominator)) if f.denominator != 1 else flint.arb(f.numerator)
        if isinstance(v, (float, np.floating)):
            return flint.arb(float(v))  # a float is a dyadic rational: taken exactly
        if hasattr(v, "_mpf_"):
            return arb_from_mpf(v._mpf_)
        raise TypeError(f"cannot convert {v!r} to arb exactly")

    def build(self, rows):
        n, m = len(rows), len(rows[0]) if rows else 0
        return self.flint.arb_mat(n, m, [v for r in rows for v in r])

    def entries(self, M):
        m = M.ncols()
        return [[M[i, j] for j in range(m)] for i in range(M.nrows())]

    def shape(self, M):
        return (M.nrows(), M.ncols())

    def transpose(self, A):
        return A.transpose()

    def div_scalar(self, M, c):
        return M / c  # arb_mat by arb: entrywise arb division, natively

    def scale(self, M, c):
        return c * M

    def _sum(self, xs):
        return sum(xs, self.flint.arb(0))

    def sqrt(self, c):
        return self.num(c).sqrt()

    def _exp(self, v):
        return v.exp()

    def expm1(self, M):
        return self._map(M, lambda i, j, v: v.expm1())

    def _erf(self, v):
        return v.erf()

    def _point_max(self, vs):
        return self.flint.arb(max(float(v.mid()) for v in vs))

    def _is_zero(self, x):
        return x.is_zero()

    def _contains_zero(self, x):
        return x.contains(0)


class SympyContext(EntrywiseContext):
    """sympy, exact: rationals exact, exp and erf symbolic, no shift in softmax."""

    name = "sympy"
    native = sympy.MatrixBase

    def num(self, v):
        if isinstance(v, sympy.Basic):
            return v
        f = _fraction(v)
        if f is not None:
            return sympy.Rational(f.numerator, f.denominator)
        if isinstance(v, (float, np.floating)):
            return sympy.Rational(float(v))  # exact binary value
        return sympy.sympify(v)

    def build(self, rows):
        return sympy.Matrix(rows) if rows and rows[0] else sympy.zeros(len(rows), 0)

    def entries(self, M):
        return M.tolist()

    def shape(self, M):
        return M.shape

    def _sum(self, xs):
        return sum(xs)

    def sqrt(self, c):
        return sympy.sqrt(self.num(c))

    def _exp(self, v):
        return sympy.exp(v)

    def _erf(self, v):
        return sympy.erf(v)

    def row_shift(self, S, keep):
        return [0] * self.shape(S)[0]

    def sub_rows(self, M, v):
        return M if not any(v) else super().sub_rows(M, v)

    def _is_zero(self, x):
        return x == 0 or x.is_zero is True


class SympyLog2Context(SympyContext):
    """sympy with the logits in units of log 2: exp(s) := 2^s (s an integer), so softmax stays rational."""

    name = "sympy-log2"

    def _exp(self, v):
        if not v.is_integer:
            raise ValueError("the log-2 context needs integer logits for an exact (rational) softmax")
        return sympy.Rational(2) ** int(v)


FP = FloatContext()
SYMPY = SympyContext()
SYMPY_LOG2 = SympyLog2Context()


@lru_cache(maxsize=None)
def mp(dps: int = 50) -> MpContext:
    return MpContext(dps)


@lru_cache(maxsize=None)
def iv(dps: int = 50) -> IvContext:
    return IvContext(dps)


@lru_cache(maxsize=None)
def arb(dps: int = 50) -> ArbContext:
    return ArbContext(dps)


#: backend name -> context factory (takes dps); the numeric layer's wrappers look names up here
CONTEXTS = {"float64": lambda dps=None: FP, "fp": lambda dps=None: FP, "mp": mp, "iv": iv, "arb": arb,
            "sympy": lambda dps=None: SYMPY}


def context(backend, dps: int = 50):
    """The context for a backend name (or a context, returned as is)."""
    if not isinstance(backend, str):
        return backend
    try:
        make = CONTEXTS[backend]
    except KeyError:
        raise ValueError(f"unknown backend {backend!r}; choose from {tuple(CONTEXTS)}") from None
    return make(dps)


# --- the maps, written once ---------------------------------------------------------------------------

def _vector(ctx, v, length: int, what: str):
    """A parameter vector of the context, of exactly ``length`` entries (ValueError naming it otherwise:
    the entrywise contexts would ignore extra entries and numpy would broadcast a single one)."""
    out = ctx.asvector(v)
    if len(out) != length:
        raise ValueError(f"{what} has {len(out)} entries; it needs {length}")
    return out


def _require_H1(ctx, var, what: str, quantity: str, norm: str, constant=()):
    """ValueError naming H1 when a row's variance is certainly 0, or (enclosures) not certainly non-zero.

    ``constant``: rows whose entries are all equal (exactly): their variance is 0 even where rounding in the
    mean left a tiny non-zero residue (float64 [0.1, 0.1, 0.1])."""
    bad = sorted(set(ctx.zero_rows(var)) | set(constant))
    if bad:
        raise ValueError(f"H1 fails: row {bad[0]} of X is {what}; {norm} is undefined")
    unsure = ctx.unsure_rows(var)
    if unsure:
        raise ValueError(f"H1 undecided: row {unsure[0]} of X may be {what}: the enclosure of its {quantity} "
                         f"contains 0 at this precision, so {norm} is not certified to be defined")


def layer_norm(ctx, X, gamma=None, beta=None, eps=0):
    """LN(x_i) = (x_i - mean_i) / sigma_i * gamma + beta, row-wise.  # [n, d] -> [n, d]

    Population standard deviation, as in the paper; ``eps`` (default 0, the paper's map) is added to
    the variance as in BERT. A row with sigma certainly 0 (and eps = 0) raises ValueError naming H1.
    """
    with ctx.local():
        X = ctx.asmatrix(X)
        Xt = ctx.sub_rows(X, ctx.row_mean(X))
        var = ctx.row_mean(ctx.hadamard(Xt, Xt))
        if eps != 0:
            var = ctx.vadd_scalar(var, ctx.const(eps))
        _require_H1(ctx, var, "constant (sigma = 0)", "sigma^2", "LayerNorm", ctx.constant_rows(X) if eps == 0 else ())
        Y = ctx.div_rows(Xt, ctx.vsqrt(var))
        d = ctx.shape(X)[1]
        if gamma is not None:
            Y = ctx.mul_cols(Y, _vector(ctx, gamma, d, "gamma (one entry per column of X)"))
        if beta is not None:
            Y = ctx.add_cols(Y, _vector(ctx, beta, d, "beta (one entry per column of X)"))
        return Y


def rms_norm(ctx, X, gamma=None, eps=0):
    """RMSNorm(x_i) = x_i / sqrt(mean_j x_ij^2 + eps) * gamma.  # [n, d] -> [n, d]

    A row with rms certainly 0 (and eps = 0) raises ValueError naming H1.
    """
    with ctx.local():
        X = ctx.asmatrix(X)
        q = ctx.row_mean(ctx.hadamard(X, X))
        if eps != 0:
            q = ctx.vadd_scalar(q, ctx.const(eps))
        _require_H1(ctx, q, "zero (rms = 0)", "rms^2", "RMSNorm")
        Y = ctx.div_rows(X, ctx.vsqrt(q))
        return Y if gamma is None else ctx.mul_cols(Y, _vector(ctx, gamma, ctx.shape(X)[1],
                                                               "gamma (one entry per column of X)"))


def causal_keep(n: int, m: int | None = None) -> list:
    """The causal mask: position i attends to j <= i."""
    return [[j <= i for j in range(n if m is None else m)] for i in range(n)]


def softmax_rows(ctx, S, causal: bool = False, keep=None):
    """Row-wise softmax.  # [n, m] -> [n, m]

    Each row is shifted by a point constant first (softmax is exactly invariant under it).
    ``causal`` (or an explicit boolean ``keep``) masks entries: a masked entry is exactly 0 and
    takes no part in its row's sum.
    """
    with ctx.local():
        S = ctx.asmatrix(S)
        n, m = ctx.shape(S)
        if causal:
            keep = causal_keep(n, m)
        if keep is not None:
            keep = ctx.keep_matrix(keep)
        E = ctx.exp(ctx.sub_rows(S, ctx.row_shift(S, keep)), keep)
        return ctx.div_rows(E, ctx.row_sum(E))


def scores(ctx, X, head: Head, scale=None):
    """S = X W_Q (X W_K)^T / sqrt(d_k)  # [n, n]; ``scale`` (a rational) replaces 1 / sqrt(d_k)."""
    with ctx.local():
        X = ctx.asmatrix(X)
        WQ, WK = ctx.asmatrix(head.W_Q), ctx.asmatrix(head.W_K)
        S = ctx.matmul(ctx.matmul(X, WQ), ctx.transpose(ctx.matmul(X, WK)))
        if scale is None:
            return ctx.div_scalar(S, ctx.sqrt(ctx.const(ctx.shape(WQ)[1])))
        return S if scale == 1 else ctx.scale(S, ctx.const(scale))


def attention(ctx, X, head: Head, causal: bool = False, scale=None):
    """Return (A, Y): A = softmax(X W_Q W_K^T X^T / sqrt(d_k))  # [n, n];  Y = A X W_V  # [n, d_k]."""
    with ctx.local():
        X = ctx.asmatrix(X)
        A = softmax_rows(ctx, scores(ctx, X, head, scale), causal=causal)
        return A, ctx.matmul(ctx.matmul(A, X), ctx.asmatrix(head.W_V))


def uniform_heads(d: int, WVs, WOs=None) -> list:
    """Heads with W_Q = W_K = 0 (d_k = 1): every score is 0, so softmax gives J/n (uniform attention).
    ``WOs`` defaults to identities (then W_V^h is the head's whole value-output map)."""
    z = [[0] for _ in range(d)]
    WOs = [sympy.eye(d) for _ in WVs] if WOs is None else WOs
    return [Head(z, z, V, O) for V, O in zip(WVs, WOs)]


def mha(ctx, X, heads, causal: bool = False, scale=None, gates=None, return_heads: bool = False):
    """MHA(X) = sum_h Y_h W_O^h  # [n, d_model] (no output bias, as in the paper).

    ``gates`` (one length-n vector per head): the position-gated sum_h diag(g_h) Y_h W_O^h.
    ``return_heads``: also the attention matrices and the per-head terms.
    """
    heads = list(heads)
    if not heads:
        raise ValueError("MHA needs at least one head (H >= 1)")
    if gates is not None and len(gates) != len(heads):
        raise ValueError(f"gates has {len(gates)} vectors; it needs one per head ({len(heads)})")
    with ctx.local():
        X = ctx.asmatrix(X)
        terms, As = [], []
        for h, head in enumerate(heads):
            A, Y = attention(ctx, X, head, causal, scale)
            if gates is not None:
                Y = ctx.scale_rows(Y, _vector(ctx, gates[h], ctx.shape(X)[0], f"gates[{h}] (one entry per token)"))
            terms.append(ctx.matmul(Y, ctx.asmatrix(head.W_O)))
            As.append(A)
        out = terms[0]
        for t in terms[1:]:
            out = ctx.add(out, t)
        return (out, As, terms) if return_heads else out


def gelu(ctx, X):
    """Exact (erf) GELU, entrywise: x/2 (1 + erf(x / sqrt 2))."""
    with ctx.local():
        X = ctx.asmatrix(X)
        e = ctx.erf(ctx.div_scalar(X, ctx.sqrt(ctx.const(2))))
        return ctx.hadamard(ctx.scale(X, ctx.const(Fraction(1, 2))), ctx.add_scalar(e, ctx.const(1)))


def ffn(ctx, X, W1, b1, W2, b2, act=gelu):
    """FFN(X) = act(X W1 + b1) W2 + b2  # [n, d_model] -> [n, d_model] (act: GELU by default)."""
    with ctx.local():
        H = ctx.matmul(ctx.asmatrix(X), ctx.asmatrix(W1))
        if b1 is not None:
            H = ctx.add_cols(H, _vector(ctx, b1, ctx.shape(H)[1], "b1 (one entry per column of W1)"))
        O = ctx.matmul(act(ctx, H), ctx.asmatrix(W2))
        return O if b2 is None else ctx.add_cols(O, _vector(ctx, b2, ctx.shape(O)[1], "b2 (one entry per column of W2)"))


def block_forward(ctx, X, blk: Block, regime: str):
    """One layer in one of the four regimes of the Dong explainer.

    ``pure_attention``  X -> MHA(X)
    ``attention_skip``  X -> X + MHA(X)
    ``attention_mlp``   X -> FFN(MHA(X))            (no skip)
    ``full_block``      X -> LN2(Z + FFN(Z)), Z = LN1(X + MHA(X))   (post-LN BERT block)
    """
    if regime not in REGIMES:
        raise ValueError(f"regime {regime!r} not in {REGIMES}")
    with ctx.local():
        X = ctx.asmatrix(X)
        M = mha(ctx, X, blk.heads)
        if regime == "pure_attention":
            return M
        if regime == "attention_skip":
            return ctx.add(X, M)
        if regime == "attention_mlp":
            return ffn(ctx, M, blk.W1, blk.b1, blk.W2, blk.b2)
        Z = layer_norm(ctx, ctx.add(X, M), *blk.ln1, eps=blk.eps)
        F = ffn(ctx, Z, blk.W1, blk.b1, blk.W2, blk.b2)
        return layer_norm(ctx, ctx.add(Z, F), *blk.ln2, eps=blk.eps)
