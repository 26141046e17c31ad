"""The mpmath ``iv`` interval context at ``dps`` digits: rigorous enclosures (erf through arb)."""
from __future__ import annotations

from functools import lru_cache

import flint
import mpmath
from mpmath.libmp import from_man_exp, round_ceiling, round_floor

from .base import arb_from_mpf, workdps
from .ctx_mp import MpContext

__all__ = ["IvContext", "iv", "iv_erf"]


def iv_erf(x, dps: int):
    """Rigorous interval erf. erf is increasing, so erf([a, b]) = [erf(a), erf(b)];
    each endpoint is enclosed by python-flint's arb (ball arithmetic) and rounded
    outward (floor / ceiling) to the interval precision."""
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
    with workdps(ivc, dps):
        return ivc.make_mpf((from_man_exp(int(lm), int(le), ivc.prec, round_floor),
                             from_man_exp(int(hm), int(he), ivc.prec, round_ceiling)))


class IvContext(MpContext):
    """mpmath ``iv``: every number an interval, every operation rounded outward."""

    name = "iv"

    def __init__(self, dps: int = 50):
        self.dps = dps
        self.m = mpmath.iv
        self.native = self.m.matrix

    def _erf(self, v):
        return iv_erf(v, self.dps)

    def _point_max(self, vs):
        return self.m.mpf(mpmath.mpf(max(v.mid for v in vs)))

    def _is_zero(self, x):
        return 0 in x and x.b == 0

    def _contains_zero(self, x):
        return 0 in x


@lru_cache(maxsize=None)
def iv(dps: int = 50) -> IvContext:
    return IvContext(dps)
