"""What every arithmetic context shares: the Head and Block records, exact numbers in, rows out, and the
operators written once for every context (add, sub, transpose)."""
from __future__ import annotations

import math
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import numpy as np
import sympy

__all__ = ["Head", "Block", "ARCHITECTURES", "BLOCK_TYPES", "fraction_of", "rows_of", "Operators", "EntrywiseContext",
           "workdps", "arb_from_mpf"]


@dataclass
class Head:
    """One attention head. Shapes: W_Q, W_K, W_V  # [d_model, d_k];  W_O  # [d_k, d_model].

    Each is a matrix of whichever context the head runs in (a numpy array, an mpmath or sympy matrix, rows of
    exact numbers), hence ``Any``: the context's operators, not this record, know what it is."""

    W_Q: Any
    W_K: Any
    W_V: Any
    W_O: Any


@dataclass
class Block:
    """An encoder block: heads, FFN (GELU) and two LayerNorms (post-LN, as in BERT)."""

    heads: list
    W1: object = None  # [d_model, d_ff]
    b1: object = None  # [d_ff]
    W2: object = None  # [d_ff, d_model]
    b2: object = None  # [d_model]
    ln1: tuple[object, object] = (None, None)  # (gamma, beta)
    ln2: tuple[object, object] = (None, None)
    eps: float = 0


#: the block architectures the maps compose (block_forward's ``regime`` argument; the depth study's
#: ``--regime``): see :func:`theorems.exact.transformer.maps.block_forward`
ARCHITECTURES = ("pure_attention", "attention_skip", "attention_mlp", "full_block", "attention_ln")

#: the block compositions deployed Transformers use (:func:`theorems.exact.transformer.maps.deployed_block`):
#: post-LN (BERT), pre-LN (GPT-2, with the causal mask), pre-RMSNorm (LLaMA's composition, with the causal mask)
BLOCK_TYPES = ("post_ln", "pre_ln", "pre_rms")


def fraction_of(v) -> Fraction | None:
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


def rows_of(M) -> list:
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


class Operators:
    """What every context's matrix type writes the same way (numpy arrays, mpmath, arb and sympy matrices)."""

    def add(self, A, B):
        return A + B

    def sub(self, A, B):
        return A - B

    def transpose(self, A):
        return A.T


class EntrywiseContext(Operators):
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
        return self.build([[self.num(v) for v in r] for r in rows_of(M)])

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
        return [[bool(k) for k in r] for r in rows_of(keep)]


@contextmanager
def workdps(ctx, dps: int):
    """Local precision of ``dps`` decimal digits for an mpmath context (as ``mpmath.workdps``, which ``iv`` lacks;
    ``mpmath.workprec`` takes bits)."""
    old = ctx.prec
    try:
        ctx.dps = dps
        yield ctx
    finally:
        ctx.prec = old


def arb_from_mpf(t):
    """An mpmath raw mpf tuple (sign, man, exp, bc) as an exact python-flint arb."""
    sign, man, exp, _ = t
    man = -int(man) if sign else int(man)
    exp = int(exp)
    return flint.arb(flint.fmpq(man * 2 ** exp) if exp >= 0 else flint.fmpq(man, 2 ** (-exp)))
