"""The exact sympy contexts: ``SYMPY`` (rationals stay rationals, exp and erf symbolic) and ``SYMPY_LOG2``
(logits in units of log 2, so the softmax of an integer score matrix is an exact rational)."""
from __future__ import annotations

import numpy as np
import sympy

from .base import EntrywiseContext, fraction_of

__all__ = ["SympyContext", "SympyLog2Context", "SYMPY", "SYMPY_LOG2"]


class SympyContext(EntrywiseContext):
    """sympy, exact: rationals exact, exp and erf symbolic, no shift in softmax."""

    name = "sympy"
    native = sympy.MatrixBase

    def num(self, v):
        if isinstance(v, sympy.Basic):
            return v
        f = fraction_of(v)
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


SYMPY = SympyContext()


SYMPY_LOG2 = SympyLog2Context()
