"""Rank neutrality / LayerNorm: (n, d) shapes by regime, token matrices from the structured families,
LayerNorm and RMSNorm inputs (meeting or breaking H1-H4), rows of mixed magnitudes for the exact norms."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.extra import numpy as nps
from sympy import Rational

from theorems.exact import instances
from theorems.exact.instances import SHAPE_REGIMES
from theorems.exact.layernorm import LNInstance
from theorems.exact.layernorm import instance as _ln_instance

from .validation import check_bool, check_choice, check_int, check_order, check_subset, floats, int_arrays, ints


def shapes(*, regime: str | None = None, min_side: int = 2, max_side: int = 6):
    """(n, d) with n < d, n = d or n > d (the regime drawn when ``regime`` is None).

    Sides lie in [min_side, max_side], except that n > d draws n up to ``max_side + 2``.
    """
    check_choice("regime", regime, SHAPE_REGIMES, allow_none=True)
    check_int("min_side", min_side, min_value=1)
    check_int("max_side", max_side, min_value=2)
    check_order("min_side", min_side, "max_side", max_side)
    if regime != "n=d" and max_side < max(min_side, 2) + 1:
        raise InvalidArgument(f"max_side={max_side!r} leaves no room for n != d above min_side={min_side!r}")
    return _shapes(regime, min_side, max_side)


@st.composite
def _shapes(draw, regime, min_side, max_side):
    regime = regime or draw(st.sampled_from(SHAPE_REGIMES))
    if regime == "n<d":
        n = draw(st.integers(min_side, max_side - 1))
        d = draw(st.integers(n + 1, max_side))
    elif regime == "n=d":
        n = d = draw(st.integers(max(min_side, 2), max_side))
    else:
        d = draw(st.integers(max(min_side, 2), max_side - 1))
        n = draw(st.integers(d + 1, max_side + 2))
    return n, d


def token_matrices(*, n: int | None = None, d: int | None = None, regime: str | None = None,
                   families=tuple(instances.FAMILIES)):
    """Exact X from one of the structured families (generic, low rank, collinear, ...).

    Give both ``n`` and ``d`` (at least 1 each), or neither (then drawn by :func:`shapes`).
    """
    check_int("n", n, min_value=1, allow_none=True)
    check_int("d", d, min_value=1, allow_none=True)
    if (n is None) != (d is None):
        raise InvalidArgument(f"give both n and d or neither (n={n!r}, d={d!r})")
    check_choice("regime", regime, SHAPE_REGIMES, allow_none=True)
    families = check_subset("families", families, instances.FAMILIES)
    return _token_matrices(n, d, regime, families)


@st.composite
def _token_matrices(draw, n, d, regime, families):
    if n is None:
        n, d = draw(shapes(regime=regime))
    fam = draw(st.sampled_from(families))
    return instances.build(fam, lambda lo, hi: draw(st.integers(lo, hi)), n, d)


_GAMMA_VALUES = (Rational(1), Rational(2), Rational(-1), Rational(1, 2), Rational(3, 2))


def gammas(*, d: int, allow_zero: bool = False):
    """A LayerNorm gain of length ``d`` (entries 1, 2, -1, 1/2, 3/2, and 0 with ``allow_zero``)."""
    check_int("d", d, min_value=1)
    check_bool("allow_zero", allow_zero)
    vals = list(_GAMMA_VALUES) + ([Rational(0)] if allow_zero else [])
    return st.lists(st.sampled_from(vals), min_size=d, max_size=d)


def betas(*, d: int, allow_nonzero: bool = True, max_value: int = 3):
    """A LayerNorm bias of length ``d``: zero, or integers in [-max_value, max_value]."""
    check_int("d", d, min_value=1)
    check_bool("allow_nonzero", allow_nonzero)
    check_int("max_value", max_value, min_value=0)
    if not allow_nonzero:
        return st.just([Rational(0)] * d)
    return st.one_of(st.just([Rational(0)] * d), ints(-max_value, max_value, d))


def ln_inputs(*, regime: str | None = None, families=tuple(instances.FAMILIES),
              allow_zero_gamma: bool = False, allow_beta: bool = True):
    """An :class:`LNInstance` (X from :func:`token_matrices`, gamma, beta)."""
    check_choice("regime", regime, SHAPE_REGIMES, allow_none=True)
    families = check_subset("families", families, instances.FAMILIES)
    check_bool("allow_zero_gamma", allow_zero_gamma)
    check_bool("allow_beta", allow_beta)
    return _ln_inputs(regime, families, allow_zero_gamma, allow_beta)


@st.composite
def _ln_inputs(draw, regime, families, allow_zero_gamma, allow_beta):
    X = draw(token_matrices(regime=regime, families=families))
    d = X.shape[1]
    return LNInstance(X, tuple(draw(gammas(d=d, allow_zero=allow_zero_gamma))),
                      tuple(draw(betas(d=d, allow_nonzero=allow_beta))))


def ln_inputs_meeting_all_hypotheses(*, regime: str | None = None):
    """Inputs drawn from the families where H1-H4 can hold jointly (rank-deficient X).

    Generic full-rank X never meets H1-H4 (H2 fails for n >= d, H4 for n < d),
    so the draw uses low-rank, collinear and coplanar tokens; the caller still
    filters on the exact hypotheses and counts how many draws met them.
    """
    return ln_inputs(regime=regime, families=("low_rank", "collinear", "coplanar"))


#: per regime, instances constructed to meet H1-H4 (found once by a seeded search over the collinear, low-rank and
#: coplanar families, smallest entries kept), with the paper's conclusion holding and failing: a per-regime stress
#: runs them as explicit examples, so the regime meets its premise on every run, in every profile
LN_PREMISE_EXAMPLES = {
    "n<d": [_ln_instance([[0, 0, 0, -1, 0], [0, 0, 0, 2, 0]]),  # conclusion holds
            _ln_instance([[-1, 0, 0, 0], [-2, 0, 2, 0], [0, 0, -2, 0]])],  # conclusion fails (1_n in col X)
    "n=d": [_ln_instance([[0, 1], [0, -1]]),
            _ln_instance([[0, -1, 0], [0, 1, -2], [0, 0, -1]]),
            _ln_instance([[0, 2, -2], [1, 1, -2], [2, 0, -2]])],  # the stored counterexample RN.main (gamma 1, beta 0)
    "n>d": [_ln_instance([[0, 1], [0, -1], [0, 1]]),
            _ln_instance([[0, 0, -1], [1, 0, -1], [-1, 0, -1], [-3, 0, -1]])],
}

_BREAKABLE = ("H1", "H2", "H3", "H4")


def ln_inputs_breaking(*, hypothesis: str, regime: str | None = None):
    """Inputs built to break one hypothesis (``"H1"`` ... ``"H4"``; the others are left to chance)."""
    check_choice("hypothesis", hypothesis, _BREAKABLE)
    check_choice("regime", regime, SHAPE_REGIMES, allow_none=True)
    return _ln_inputs_breaking(hypothesis, regime)


@st.composite
def _ln_inputs_breaking(draw, hypothesis, regime):
    inst = draw(ln_inputs(regime=regime, families=("low_rank", "collinear", "coplanar", "radial", "generic")))
    X, g, b = inst.X, list(inst.gamma), list(inst.beta)
    n, d = X.shape
    if hypothesis == "H1":
        i = draw(st.integers(0, n - 1))
        c = Rational(draw(st.integers(-3, 3)))
        X = X.copy()
        X[i, :] = X[i, :] * 0 + X[i, :].applyfunc(lambda _: c)
    elif hypothesis == "H2":
        # a row equal to another plus c * 1 puts 1 in the row space
        i, j = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
        if i != j:
            X = X.copy()
            X[j, :] = X[i, :].applyfunc(lambda v: v + 1)
    elif hypothesis == "H3":
        g[draw(st.integers(0, d - 1))] = Rational(0)
    else:  # H4
        X = instances.radial(lambda lo, hi: draw(st.integers(lo, hi)), n, d)
    return LNInstance(X, tuple(g), tuple(b))


def _fraction(v) -> Fraction:
    return Fraction(int(v.p), int(v.q))


def rms_inputs(*, max_rows: int | None = None):
    """(X, gamma, beta) as lists of Fractions for RMSNorm: no zero row (a zero row is outside the
    premise; an all-zero X becomes one row of ones), gamma with zeros allowed; at most ``max_rows`` rows."""
    check_int("max_rows", max_rows, min_value=1, allow_none=True)
    return ln_inputs(allow_zero_gamma=True).map(lambda inst: _rms_from_ln(inst, max_rows))


def _rms_from_ln(inst, max_rows):
    X = [[_fraction(v) for v in row] for row in inst.X.tolist()]
    X = [row for row in X if any(row)] or [[Fraction(1)] * inst.d]
    if max_rows is not None:
        X = X[:max_rows]
    return X, [_fraction(v) for v in inst.gamma], [_fraction(v) for v in inst.beta]


_WIDE_DTYPES = ("float64", "float32", "int64")


def wide_rows(*, max_rows: int = 4, max_cols: int = 9, dtypes=_WIDE_DTYPES, spreads=(0, 8, 30, 70, 200)):
    """Arrays whose rows mix magnitudes: int64 over the whole range, or floats m 2^e with drawn
    mantissas m in [-2, 2] and exponents |e| <= spread (spread drawn; at most 60 for float32, which
    overflows past 2^128); entry [0, 0] is 0 for floats."""
    check_int("max_rows", max_rows, min_value=1)
    check_int("max_cols", max_cols, min_value=1)
    dtypes = check_subset("dtypes", dtypes, _WIDE_DTYPES)
    spreads = check_subset("spreads", spreads, range(0, 1001))
    return _wide_rows(max_rows, max_cols, dtypes, spreads)


@st.composite
def _wide_rows(draw, max_rows, max_cols, dtypes, spreads):
    n, d = draw(st.integers(1, max_rows)), draw(st.integers(1, max_cols))
    dtype = draw(st.sampled_from(dtypes))
    if dtype == "int64":
        return draw(nps.arrays(np.int64, (n, d)))
    spread = draw(st.sampled_from(spreads))
    spread = min(spread, 60) if dtype == "float32" else spread
    m = draw(nps.arrays(np.float64, (n, d), elements=floats(2.0)))
    X = np.ldexp(m, draw(int_arrays((n, d), spread))).astype(dtype)
    X[0, 0] = 0.0
    return X
