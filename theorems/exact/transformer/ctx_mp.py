"""The mpmath ``mp`` context at ``dps`` digits (precision set locally, never a global side effect)."""
from __future__ import annotations

from functools import lru_cache

import mpmath

from .base import EntrywiseContext, fraction_of, workdps

__all__ = ["MpContext", "mp"]


class MpContext(EntrywiseContext):
    """mpmath ``mp`` (or, in the subclass, ``iv``) at ``dps`` digits, set locally."""

    name = "mp"

    def __init__(self, dps: int = 50):
        self.dps = dps
        self.m = mpmath.mp
        self.native = self.m.matrix

    def local(self):
        return workdps(self.m, self.dps)

    def num(self, v):
        if isinstance(v, self.m.mpf):
            return v
        f = fraction_of(v)
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


@lru_cache(maxsize=None)
def mp(dps: int = 50) -> MpContext:
    return MpContext(dps)
