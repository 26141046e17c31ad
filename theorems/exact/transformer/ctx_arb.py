"""The python-flint ``arb`` / ``arb_mat`` ball context at ``dps`` digits: rigorous enclosures."""
from __future__ import annotations

from contextlib import contextmanager
from functools import lru_cache

import flint
import numpy as np

from .base import EntrywiseContext, arb_from_mpf, fraction_of

__all__ = ["ArbContext", "arb"]


class ArbContext(EntrywiseContext):
    """python-flint ``arb`` balls at ``dps`` digits (flint.ctx.prec set locally, restored after)."""

    name = "arb"

    def __init__(self, dps: int = 50, bits: int | None = None):
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
        f = fraction_of(v)
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


@lru_cache(maxsize=None)
def arb(dps: int = 50) -> ArbContext:
    return ArbContext(dps)
