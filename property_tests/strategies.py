"""Every Hypothesis strategy of the suite (test modules import them from here).

Built on :mod:`theorems.exact.instances` where a theorem has structured families: each
builder takes ``draw(lo, hi)``, so the same families that feed the ledger's seeded
checks feed Hypothesis, and Hypothesis shrinks the *structure* (shape, rank,
entries), not a seed. No strategy here draws a seed for a pseudo-random generator:
matrices are built from drawn entries or drawn small integer factors (``A @ B``
with ``A`` n x r and ``B`` r x d when the rank must be bounded), so a failure
shrinks to small entries and small shapes.

Entries are small integers or rationals (exact) unless a strategy says otherwise;
nothing here produces NaN or infinity (those are tested as bad input,
separately). Float entries are bounded (``st.floats(-m, m, allow_nan=False,
allow_infinity=False)``).

Conventions follow ``hypothesis.strategies`` / ``hypothesis.extra.numpy``: plural
nouns, **keyword-only** bounds ``min_*`` / ``max_*`` / ``allow_*``, validated when
the strategy is *built*: a bad bound (``min_side > max_side``, a negative size, a
float where an integer is needed, an unknown regime or family) raises
:class:`hypothesis.errors.InvalidArgument` naming the argument, before anything is
drawn.
"""
from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

import numpy as np
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.extra import numpy as nps
from sympy import Matrix, Rational, eye, zeros

from proofs_numeric.transformer import Head
from theorems.exact import instances
from theorems.exact.layernorm import LNInstance
from theorems.exact.layernorm import instance as _ln_instance
from theorems.framework import (
    ProofStep,
    derivation,
    exact_complete,
    exact_instances,
    failing_box,
    float_statistic,
    formal_proof,
    genericity_argument,
    identical_failure,
    interval_instances,
    interval_witness,
    not_checkable,
    perturbation_probe,
)

__all__ = [
    # rank neutrality / LayerNorm
    "REGIMES", "shapes", "token_matrices", "gammas", "betas", "ln_inputs", "ln_inputs_meeting_all_hypotheses",
    "LN_PREMISE_EXAMPLES",
    "ln_inputs_breaking", "rms_inputs",
    # exact matrices
    "low_rank_matrices", "low_rank_matrix_pairs", "value_output_maps", "EDGE_MAPS", "w_o_of_rank",
    "integer_attention_inputs", "witness_shapes", "wide_rows",
    # certified rank
    "integer_arrays", "integer_matrices_of_rank", "deficient_integer_matrices", "matrices_with_dependent_columns",
    "matrices_with_pivots", "adversarial_integer_matrices", "DTYPES",
    "stored_matrices", "longdouble_matrices", "dyadic_low_rank", "rational_low_rank",
    # float data
    "float_vectors", "float_matrices", "square_matrices_and_shifts", "AttentionSetup", "attention_setups",
    # the verdict model
    "evidence_lists",
    # hostile command lines
    "hostile_matrix_texts", "matrix_args", "out_paths", "check_argv", "show_argv", "rank_argv", "depth_argv",
    "verify_argv", "real_model_argv", "scaffold_names",
    # the transformer maps over every arithmetic context
    "small_rationals", "rational_matrices", "transformer_instances",
]

REGIMES = ("n<d", "n=d", "n>d")


# ------------------------------------------------------------------------------------ validation

def _check_int(name: str, value, *, min_value: int | None = 0, allow_none: bool = False) -> None:
    """An integer (never a bool or a float) at least ``min_value``."""
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InvalidArgument(f"{name}={value!r} must be an integer, not {type(value).__name__}")
    if min_value is not None and value < min_value:
        raise InvalidArgument(f"{name}={value!r} must be at least {min_value}")


def _check_order(lo_name: str, lo, hi_name: str, hi) -> None:
    if lo is not None and hi is not None and lo > hi:
        raise InvalidArgument(f"{lo_name}={lo!r} is greater than {hi_name}={hi!r}")


def _check_bool(name: str, value) -> None:
    if not isinstance(value, bool):
        raise InvalidArgument(f"{name}={value!r} must be a bool, not {type(value).__name__}")


def _check_choice(name: str, value, allowed, *, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if value not in allowed:
        raise InvalidArgument(f"{name}={value!r} must be one of {sorted(allowed)!r}")


def _check_subset(name: str, values, allowed) -> tuple:
    if isinstance(values, str) or not hasattr(values, "__iter__"):
        raise InvalidArgument(f"{name}={values!r} must be a collection, not {type(values).__name__}")
    values = tuple(values)
    if not values:
        raise InvalidArgument(f"{name}=() must not be empty")
    bad = [v for v in values if v not in allowed]
    if bad:
        raise InvalidArgument(f"{name} contains {bad!r}; allowed: {sorted(allowed)!r}")
    return values


def _check_float(name: str, value, *, min_value: float | None = None, exclusive: bool = False) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidArgument(f"{name}={value!r} must be a finite number")
    if min_value is not None and (value <= min_value if exclusive else value < min_value):
        raise InvalidArgument(f"{name}={value!r} must be {'greater than' if exclusive else 'at least'} {min_value}")


def _ints(lo: int, hi: int, size: int):
    """``size`` integers in [lo, hi] as Rationals."""
    return st.lists(st.integers(lo, hi).map(Rational), min_size=size, max_size=size)


def _int_arrays(shape, max_abs: int):
    """An int64 array of drawn entries in [-max_abs, max_abs] (hypothesis.extra.numpy: a drawn fill value
    plus drawn entries, so large arrays stay cheap and shrink to a constant array)."""
    return nps.arrays(np.int64, shape, elements=st.integers(-max_abs, max_abs))


# ------------------------------------------------------------------------ rank neutrality / LayerNorm

def shapes(*, regime: str | None = None, min_side: int = 2, max_side: int = 6):
    """(n, d) with n < d, n = d or n > d (the regime drawn when ``regime`` is None).

    Sides lie in [min_side, max_side], except that n > d draws n up to ``max_side + 2``.
    """
    _check_choice("regime", regime, REGIMES, allow_none=True)
    _check_int("min_side", min_side, min_value=1)
    _check_int("max_side", max_side, min_value=2)
    _check_order("min_side", min_side, "max_side", max_side)
    if regime != "n=d" and max_side < max(min_side, 2) + 1:
        raise InvalidArgument(f"max_side={max_side!r} leaves no room for n != d above min_side={min_side!r}")
    return _shapes(regime, min_side, max_side)


@st.composite
def _shapes(draw, regime, min_side, max_side):
    regime = regime or draw(st.sampled_from(REGIMES))
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
    _check_int("n", n, min_value=1, allow_none=True)
    _check_int("d", d, min_value=1, allow_none=True)
    if (n is None) != (d is None):
        raise InvalidArgument(f"give both n and d or neither (n={n!r}, d={d!r})")
    _check_choice("regime", regime, REGIMES, allow_none=True)
    families = _check_subset("families", families, instances.FAMILIES)
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
    _check_int("d", d, min_value=1)
    _check_bool("allow_zero", allow_zero)
    vals = list(_GAMMA_VALUES) + ([Rational(0)] if allow_zero else [])
    return st.lists(st.sampled_from(vals), min_size=d, max_size=d)


def betas(*, d: int, allow_nonzero: bool = True, max_value: int = 3):
    """A LayerNorm bias of length ``d``: zero, or integers in [-max_value, max_value]."""
    _check_int("d", d, min_value=1)
    _check_bool("allow_nonzero", allow_nonzero)
    _check_int("max_value", max_value, min_value=0)
    if not allow_nonzero:
        return st.just([Rational(0)] * d)
    return st.one_of(st.just([Rational(0)] * d), _ints(-max_value, max_value, d))


def ln_inputs(*, regime: str | None = None, families=tuple(instances.FAMILIES),
              allow_zero_gamma: bool = False, allow_beta: bool = True):
    """An :class:`LNInstance` (X from :func:`token_matrices`, gamma, beta)."""
    _check_choice("regime", regime, REGIMES, allow_none=True)
    families = _check_subset("families", families, instances.FAMILIES)
    _check_bool("allow_zero_gamma", allow_zero_gamma)
    _check_bool("allow_beta", allow_beta)
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
    _check_choice("hypothesis", hypothesis, _BREAKABLE)
    _check_choice("regime", regime, REGIMES, allow_none=True)
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
    _check_int("max_rows", max_rows, min_value=1, allow_none=True)
    return ln_inputs(allow_zero_gamma=True).map(lambda inst: _rms_from_ln(inst, max_rows))


def _rms_from_ln(inst, max_rows):
    X = [[_fraction(v) for v in row] for row in inst.X.tolist()]
    X = [row for row in X if any(row)] or [[Fraction(1)] * inst.d]
    if max_rows is not None:
        X = X[:max_rows]
    return X, [_fraction(v) for v in inst.gamma], [_fraction(v) for v in inst.beta]


# ------------------------------------------------------------------------------------ exact matrices

def low_rank_matrices(*, n: int | None = None, d: int | None = None, min_side: int = 2, max_side: int = 6,
                      max_rank: int | None = None, max_entry: int = 3):
    """U V with integer factors (entries in [-max_entry, max_entry]): rank at most ``max_rank``
    (default min(n, d) - 1). Sides not given are drawn from [min_side, max_side] (2 is the edge)."""
    _check_int("n", n, min_value=1, allow_none=True)
    _check_int("d", d, min_value=1, allow_none=True)
    _check_int("min_side", min_side, min_value=1)
    _check_int("max_side", max_side, min_value=1)
    _check_order("min_side", min_side, "max_side", max_side)
    _check_int("max_rank", max_rank, min_value=0, allow_none=True)
    if max_rank is not None and n is not None and d is not None:
        _check_order("max_rank", max_rank, "min(n, d)", min(n, d))
    _check_int("max_entry", max_entry, min_value=0)
    return _low_rank_matrices(n, d, min_side, max_side, max_rank, max_entry)


@st.composite
def _low_rank_matrices(draw, n, d, min_side, max_side, max_rank, max_entry):
    n = n if n is not None else draw(st.integers(min_side, max_side))
    d = d if d is not None else draw(st.integers(min_side, max_side))
    top = min(n, d) - 1 if max_rank is None else min(max_rank, min(n, d))
    r = draw(st.integers(0, max(top, 0)))
    if r == 0:
        return Matrix.zeros(n, d)
    U = Matrix(n, r, draw(_ints(-max_entry, max_entry, n * r)))
    V = Matrix(r, d, draw(_ints(-max_entry, max_entry, r * d)))
    return U * V


def low_rank_matrix_pairs(*, min_side: int = 2, max_side: int = 4, max_entry: int = 2):
    """(X, D): two :func:`low_rank_matrices` of one drawn shape (sides in [min_side, max_side])."""
    _check_sides(min_side, max_side, smallest=1)
    _check_int("max_entry", max_entry, min_value=0)
    return st.integers(min_side, max_side).flatmap(lambda n: st.integers(min_side, max_side).flatmap(
        lambda d: st.tuples(low_rank_matrices(n=n, d=d, max_entry=max_entry),
                            low_rank_matrices(n=n, d=d, max_entry=max_entry))))


def integer_attention_inputs(*, n: int | None = None, min_side: int = 2, max_side: int = 5, heads: int | None = None,
                             min_heads: int = 1, max_heads: int = 3, max_entry: int = 3):
    """(X, [W_1, ...]): X n x d and per-head d x d maps, integer entries in [-max_entry, max_entry]
    (exact Rationals); n (unless given) and d drawn from [min_side, max_side], the number of heads
    (unless given) from [min_heads, max_heads]."""
    _check_int("n", n, min_value=1, allow_none=True)
    _check_sides(min_side, max_side, smallest=1)
    _check_int("heads", heads, min_value=1, allow_none=True)
    _check_int("min_heads", min_heads, min_value=1)
    _check_int("max_heads", max_heads, min_value=1)
    _check_order("min_heads", min_heads, "max_heads", max_heads)
    _check_int("max_entry", max_entry, min_value=0)
    return _integer_attention_inputs(n, min_side, max_side, heads, min_heads, max_heads, max_entry)


@st.composite
def _integer_attention_inputs(draw, n, min_side, max_side, heads, min_heads, max_heads, k):
    n = n if n is not None else draw(st.integers(min_side, max_side))
    d = draw(st.integers(min_side, max_side))
    X = Matrix(n, d, draw(_ints(-k, k, n * d)))
    H = heads if heads is not None else draw(st.integers(min_heads, max_heads))
    return X, [Matrix(d, d, draw(_ints(-k, k, d * d))) for _ in range(H)]


def witness_shapes(*, min_side: int = 2, max_side: int = 6, max_heads: int = 3, max_seed: int = 10 ** 6):
    """(n, d, H, d_k, r, seed) for the numeric witnesses: r < min(n, d), d_k <= d. The seed is the
    witness function's own argument (it draws its Gaussian heads from it), not a generator here."""
    _check_sides(min_side, max_side, smallest=2)
    _check_int("max_heads", max_heads, min_value=1)
    _check_int("max_seed", max_seed, min_value=0)
    return st.integers(min_side, max_side).flatmap(lambda n: st.integers(min_side, max_side).flatmap(
        lambda d: st.tuples(st.just(n), st.just(d), st.integers(1, max_heads), st.integers(1, d),
                            st.integers(1, min(n, d) - 1), st.integers(0, max_seed))))


_WIDE_DTYPES = ("float64", "float32", "int64")


def wide_rows(*, max_rows: int = 4, max_cols: int = 9, dtypes=_WIDE_DTYPES, spreads=(0, 8, 30, 70, 200)):
    """Arrays whose rows mix magnitudes: int64 over the whole range, or floats m 2^e with drawn
    mantissas m in [-2, 2] and exponents |e| <= spread (spread drawn; at most 60 for float32, which
    overflows past 2^128); entry [0, 0] is 0 for floats."""
    _check_int("max_rows", max_rows, min_value=1)
    _check_int("max_cols", max_cols, min_value=1)
    dtypes = _check_subset("dtypes", dtypes, _WIDE_DTYPES)
    spreads = _check_subset("spreads", spreads, range(0, 1001))
    return _wide_rows(max_rows, max_cols, dtypes, spreads)


@st.composite
def _wide_rows(draw, max_rows, max_cols, dtypes, spreads):
    n, d = draw(st.integers(1, max_rows)), draw(st.integers(1, max_cols))
    dtype = draw(st.sampled_from(dtypes))
    if dtype == "int64":
        return draw(nps.arrays(np.int64, (n, d)))
    spread = draw(st.sampled_from(spreads))
    spread = min(spread, 60) if dtype == "float32" else spread
    m = draw(nps.arrays(np.float64, (n, d), elements=_floats(2.0)))
    X = np.ldexp(m, draw(_int_arrays((n, d), spread))).astype(dtype)
    X[0, 0] = 0.0
    return X


def _antisymmetric(d, draw, k):
    A = zeros(d, d)
    for i in range(d):
        for j in range(i + 1, d):
            A[i, j] = Rational(draw(st.integers(-k, k)))
            A[j, i] = -A[i, j]
    return A


#: the edges of the weight space: zero, (scaled) identity, antisymmetric and permutation products W_V W_O
EDGE_MAPS = ("zero", "identity", "antisymmetric", "permutation")


def value_output_maps(*, d: int, heads: int | None = None, min_heads: int = 1, max_heads: int = 3,
                      max_entry: int = 3, allow_edges: bool = False):
    """Per-head W_V W_O (d x d, exact, integer entries in [-max_entry, max_entry]); ``heads`` of them
    (drawn from [min_heads, max_heads] when None); with ``allow_edges`` some heads are edge maps
    (:data:`EDGE_MAPS`)."""
    _check_int("d", d, min_value=1)
    _check_int("heads", heads, min_value=1, allow_none=True)
    _check_int("min_heads", min_heads, min_value=1)
    _check_int("max_heads", max_heads, min_value=1)
    _check_order("min_heads", min_heads, "max_heads", max_heads)
    _check_int("max_entry", max_entry, min_value=0)
    _check_bool("allow_edges", allow_edges)
    return _value_output_maps(d, heads, min_heads, max_heads, max_entry, allow_edges)


@st.composite
def _value_output_maps(draw, d, heads, min_heads, max_heads, k, allow_edges):
    H = heads or draw(st.integers(min_heads, max_heads))
    out = []
    for _ in range(H):
        kind = draw(st.sampled_from(("generic",) + (EDGE_MAPS if allow_edges else ())))
        if kind == "zero":
            out.append(zeros(d, d))
        elif kind == "identity":
            out.append(Rational(draw(st.integers(-k, k))) * eye(d))
        elif kind == "antisymmetric":
            out.append(_antisymmetric(d, draw, k))
        elif kind == "permutation":
            perm = draw(st.permutations(list(range(d))))
            out.append(Matrix(d, d, lambda i, j, perm=perm: 1 if perm[i] == j else 0))
        else:
            out.append(Matrix(d, d, draw(_ints(-k, k, d * d))))
    return out


def w_o_of_rank(*, max_heads: int = 3, max_dk: int = 2, max_d: int = 5, max_entry: int = 3,
                full_row_rank: bool = False):
    """(H, d_k, d, W_O) with W_O the (H d_k) x d product of integer factors of inner dimension r
    (r drawn; rank W_O <= r). With ``full_row_rank`` the shapes satisfy H d_k <= d and W_O has rank
    exactly H d_k by construction: L [I | C] Q with L unit lower triangular and Q a column
    permutation (shrinks to [I | 0])."""
    for name, v in (("max_heads", max_heads), ("max_dk", max_dk), ("max_d", max_d)):
        _check_int(name, v, min_value=1)
    _check_int("max_entry", max_entry, min_value=0)
    _check_bool("full_row_rank", full_row_rank)
    return _w_o_of_rank(max_heads, max_dk, max_d, max_entry, full_row_rank)


@st.composite
def _w_o_of_rank(draw, max_H, max_dk, max_d, k, full_row_rank):
    if not full_row_rank:
        H = draw(st.integers(1, max_H))
        dk = draw(st.integers(1, max_dk))
        d = draw(st.integers(1, max_d))
        r = draw(st.integers(0, min(H * dk, d)))
        if r == 0:
            return H, dk, d, Matrix.zeros(H * dk, d)
        W = Matrix(H * dk, r, draw(_ints(-k, k, H * dk * r))) * Matrix(r, d, draw(_ints(-k, k, r * d)))
        return H, dk, d, W
    H = draw(st.integers(1, min(max_H, max_d)))
    dk = draw(st.integers(1, min(max_dk, max_d // H)))
    m = H * dk
    d = draw(st.integers(m, max_d))
    L = eye(m)
    for i in range(m):
        for j in range(i):
            L[i, j] = Rational(draw(st.integers(-k, k)))
    C = Matrix(m, d - m, draw(_ints(-k, k, m * (d - m))))
    perm = draw(st.permutations(list(range(d))))
    W = (L * eye(m).row_join(C))[:, perm]
    return H, dk, d, W


# ------------------------------------------------------------------------------------ certified rank

def _check_sides(min_side, max_side, *, smallest=0):
    _check_int("min_side", min_side, min_value=smallest)
    _check_int("max_side", max_side, min_value=max(smallest, 1))
    _check_order("min_side", min_side, "max_side", max_side)


def integer_arrays(*, shape, max_value: int = 9):
    """int64 arrays of the given shape with drawn entries in [-max_value, max_value]."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, tuple):
        raise InvalidArgument(f"shape={shape!r} must be an int or a tuple of ints")
    for s in shape:
        _check_int("shape", s, min_value=0)
    _check_int("max_value", max_value, min_value=0)
    if max_value >= 2 ** 62:
        raise InvalidArgument(f"max_value={max_value!r} must be below 2^62 (int64 entries)")
    return _int_arrays(shape, max_value)


def matrices_with_dependent_columns(*, min_rows: int = 2, max_rows: int = 30, min_cols: int = 2, max_cols: int = 12,
                                    extra_cols: int = 3, max_entry: int = 9, max_coefficient: int = 2):
    """[B | B K]: B n x k with entries in [-max_entry, max_entry], then ``extra_cols`` columns that are
    integer combinations (coefficients in [-max_coefficient, max_coefficient]) of B's columns."""
    _check_int("min_rows", min_rows, min_value=1)
    _check_int("max_rows", max_rows, min_value=1)
    _check_order("min_rows", min_rows, "max_rows", max_rows)
    _check_int("min_cols", min_cols, min_value=1)
    _check_int("max_cols", max_cols, min_value=1)
    _check_order("min_cols", min_cols, "max_cols", max_cols)
    _check_int("extra_cols", extra_cols, min_value=0)
    _check_int("max_entry", max_entry, min_value=0)
    _check_int("max_coefficient", max_coefficient, min_value=0)
    return _matrices_with_dependent_columns(min_rows, max_rows, min_cols, max_cols, extra_cols, max_entry,
                                            max_coefficient)


@st.composite
def _matrices_with_dependent_columns(draw, min_rows, max_rows, min_cols, max_cols, extra, max_entry, max_coef):
    n, k = draw(st.integers(min_rows, max_rows)), draw(st.integers(min_cols, max_cols))
    B = draw(_int_arrays((n, k), max_entry))
    return np.hstack([B, B @ draw(_int_arrays((k, extra), max_coef))])


def matrices_with_pivots(*, min_side: int = 2, max_side: int = 7, max_entry: int = 30):
    """(A, rows, cols): an n x d integer matrix (entries in [-max_entry, max_entry]) and a pivot
    block of r < min(n, d) sorted rows and columns (drawn; may be singular)."""
    _check_sides(min_side, max_side, smallest=2)
    _check_int("max_entry", max_entry, min_value=0)
    return _matrices_with_pivots(min_side, max_side, max_entry)


@st.composite
def _matrices_with_pivots(draw, min_side, max_side, max_entry):
    n, d = draw(st.integers(min_side, max_side)), draw(st.integers(min_side, max_side))
    A = draw(_int_arrays((n, d), max_entry))
    r = draw(st.integers(1, min(n, d) - 1))
    rows = sorted(draw(st.permutations(list(range(n))))[:r])
    cols = sorted(draw(st.permutations(list(range(d))))[:r])
    return A, rows, cols


def integer_matrices_of_rank(*, min_side: int = 1, max_side: int = 12, min_rank: int = 0, entry_bits=(3,)):
    """(U V, r) with U, V integer of inner dimension r (drawn entries): n < d, n = d and n > d all
    drawn; U has entries up to 2^bits, V up to 2^(bits // 2) (bits drawn from ``entry_bits``;
    rank U V <= r, with equality on most draws)."""
    _check_sides(min_side, max_side, smallest=1)
    _check_int("min_rank", min_rank, min_value=0)
    _check_order("min_rank", min_rank, "max_side", max_side)
    entry_bits = _check_subset("entry_bits", entry_bits, range(0, 31))
    for b in entry_bits:
        _check_int("entry_bits", b)
    return _integer_matrices_of_rank(min_side, max_side, min_rank, entry_bits)


@st.composite
def _integer_matrices_of_rank(draw, min_side, max_side, min_rank, entry_bits):
    n, d = draw(st.integers(min_side, max_side)), draw(st.integers(min_side, max_side))
    r = draw(st.integers(min(min_rank, n, d), min(n, d)))
    bits = draw(st.sampled_from(entry_bits))
    U = draw(_int_arrays((n, r), 2 ** bits))
    V = draw(_int_arrays((r, d), 2 ** (bits // 2)))
    return U @ V, r


def deficient_integer_matrices(*, max_side: int = 40, max_entry_bits: int = 20):
    """Products with entries from small to 2^(1.5 * max_entry_bits), rank at least 1, sides from 2."""
    _check_int("max_side", max_side, min_value=2)
    _check_int("max_entry_bits", max_entry_bits, min_value=3)
    if max_entry_bits > 30:
        raise InvalidArgument(f"max_entry_bits={max_entry_bits!r} must be at most 30 (products stay below 2^53)")
    return integer_matrices_of_rank(min_side=2, max_side=max_side, min_rank=1,
                                    entry_bits=tuple(sorted({3, min(8, max_entry_bits), max_entry_bits})))


_ADVERSARIAL_KINDS = ("row-scale", "near-dependent", "duplicate", "zero-rows", "mixed")


def adversarial_integer_matrices(*, max_side: int = 24):
    """Low-rank products made hard for float pivoting: huge row scales, near-dependence (rank r plus
    a unit perturbation of entries ~2^30), duplicated columns and zero rows (rows and entries drawn)."""
    _check_int("max_side", max_side, min_value=2)
    return _adversarial_integer_matrices(max_side)


@st.composite
def _adversarial_integer_matrices(draw, max_side):
    A, r = draw(deficient_integer_matrices(max_side=max_side, max_entry_bits=8))
    A = A.astype(np.int64)
    n, d = A.shape
    kind = draw(st.sampled_from(_ADVERSARIAL_KINDS))
    if kind in ("row-scale", "mixed"):
        A[draw(st.integers(0, n - 1))] *= 2 ** 24
    if kind in ("near-dependent", "mixed"):
        A = A * 2 ** 16
        A[draw(st.integers(0, n - 1)), draw(st.integers(0, d - 1))] += 1  # rank up by at most one, invisible
    if kind == "duplicate" and d > 1:
        A[:, -1] = A[:, 0]
    if kind == "zero-rows":
        A[draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=max(1, n // 3)))] = 0
    return A


DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", ">i8", ">u8", ">f8", ">f4", "<u4")


def stored_matrices(*, min_side: int = 0, max_side: int = 6, dtypes=DTYPES):
    """(dtype, shape incl. 0 x N, 1 x N, N x 1, values incl. the dtype's extremes) with rank
    deficiency made likely: duplicated rows or columns, zero rows, extreme values."""
    _check_sides(min_side, max_side)
    dtypes = _check_subset("dtypes", dtypes, DTYPES)
    return _stored_matrices(min_side, max_side, dtypes)


@st.composite
def _stored_matrices(draw, min_side, max_side, dtypes):
    dtype = np.dtype(draw(st.sampled_from(dtypes)))
    n, d = draw(st.integers(min_side, max_side)), draw(st.integers(min_side, max_side))
    kw = {"allow_nan": False, "allow_infinity": False} if dtype.kind == "f" else {}
    elements = nps.from_dtype(dtype.newbyteorder("="), **kw)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        elements = st.one_of(elements, st.sampled_from([info.min, info.max, info.max - 1, 0, 1]))
    elif dtype.kind == "f":
        info = np.finfo(dtype)
        elements = st.one_of(elements, st.sampled_from([float(info.max), -float(info.max), float(info.tiny),
                                                        float(info.smallest_subnormal), 0.0, 1.0]))
    A = draw(nps.arrays(dtype, (n, d), elements=elements))
    if n >= 2 and d >= 1 and draw(st.booleans()):
        A[1] = A[0]  # a repeated row
    if d >= 2 and n >= 1 and draw(st.booleans()):
        A[:, -1] = A[:, 0]
    if n >= 3 and draw(st.booleans()):
        A[2] = 0
    return A


def longdouble_matrices(*, min_side: int = 1, max_side: int = 5):
    """Long double values beyond float64: extra mantissa bits (1 + k 2^-60) and exponents far
    outside float64's range (2^+-16000), plus repeated rows so that the rank is often deficient."""
    _check_sides(min_side, max_side, smallest=1)
    return _longdouble_matrices(min_side, max_side)


@st.composite
def _longdouble_matrices(draw, min_side, max_side):
    n, d = draw(st.integers(min_side, max_side)), draw(st.integers(min_side, max_side))
    base = draw(nps.arrays(np.float64, (n, d), elements=st.floats(-1e3, 1e3, allow_nan=False)))
    A = base.astype(np.longdouble)
    for i in range(n):
        for j in range(d):
            k = draw(st.integers(-3, 3))
            e = draw(st.sampled_from([0, 0, 0, 1000, -1000, 16000, -16000]))
            A[i, j] = (A[i, j] * (1 + np.longdouble(k) * np.longdouble(2) ** -60)) * np.longdouble(2) ** e
    if n >= 2 and draw(st.booleans()):
        A[1] = A[0] * 2
    return A


def dyadic_low_rank(*, min_side: int = 2, max_side: int = 9, max_entry: int = 40, spans=(0, 3, 60, 300)):
    """Float64 matrices of rank <= r < min(n, d) whose dependencies mix binary exponents (row and
    column scales 2^e, |e| <= span, span drawn from ``spans``): diag(2^e) (U V) diag(2^f), every
    entry exact in float64. Duplicated rows would not do: they keep their rank under any per-entry
    map of the values."""
    _check_sides(min_side, max_side, smallest=2)
    _check_int("max_entry", max_entry, min_value=0)
    if max_entry > 2 ** 20:
        raise InvalidArgument(f"max_entry={max_entry!r} must be at most 2^20 (products stay exact in float64)")
    spans = _check_subset("spans", spans, range(0, 501))
    for s in spans:
        _check_int("spans", s)
    return _dyadic_low_rank(min_side, max_side, max_entry, spans)


@st.composite
def _dyadic_low_rank(draw, min_side, max_side, max_entry, spans):
    n, d = draw(st.integers(min_side, max_side)), draw(st.integers(min_side, max_side))
    r = draw(st.integers(0, min(n, d) - 1))
    U, V = draw(_int_arrays((n, r), max_entry)), draw(_int_arrays((r, d), max_entry))
    span = draw(st.sampled_from(spans))
    e, f = draw(_int_arrays((n,), span)), draw(_int_arrays((d,), span))
    return (U @ V).astype(np.float64) * np.ldexp(1.0, e)[:, None] * np.ldexp(1.0, f)[None, :]


def rational_low_rank(*, min_side: int = 2, max_side: int = 6, max_numerator: int = 9, max_denominator: int = 11):
    """Lists of Fractions U V (U n x r, V r x d, r < min(n, d)) with drawn entries a / b,
    |a| <= max_numerator, 1 <= b <= max_denominator."""
    _check_sides(min_side, max_side, smallest=2)
    _check_int("max_numerator", max_numerator, min_value=0)
    _check_int("max_denominator", max_denominator, min_value=1)
    return _rational_low_rank(min_side, max_side, max_numerator, max_denominator)


@st.composite
def _rational_low_rank(draw, min_side, max_side, max_num, max_den):
    n, d = draw(st.integers(min_side, max_side)), draw(st.integers(min_side, max_side))
    r = draw(st.integers(0, min(n, d) - 1))
    fr = st.builds(Fraction, st.integers(-max_num, max_num), st.integers(1, max_den))
    U = [draw(st.lists(fr, min_size=r, max_size=r)) for _ in range(n)]
    V = [draw(st.lists(fr, min_size=d, max_size=d)) for _ in range(r)]
    return [[sum((U[i][k] * V[k][j] for k in range(r)), Fraction(0)) for j in range(d)] for i in range(n)]


# ------------------------------------------------------------------------------------ float data

def _floats(m: float):
    return st.floats(-m, m, allow_nan=False, allow_infinity=False)


def float_vectors(*, min_size: int = 1, max_size: int = 6, max_value: float = 2.0):
    """Lists of floats in [-max_value, max_value], length in [min_size, max_size]."""
    _check_int("min_size", min_size, min_value=0)
    _check_int("max_size", max_size, min_value=0)
    _check_order("min_size", min_size, "max_size", max_size)
    _check_float("max_value", max_value, min_value=0)
    return st.lists(_floats(float(max_value)), min_size=min_size, max_size=max_size)


def float_matrices(*, n: int | None = None, d: int | None = None, min_side: int = 1, max_side: int = 5,
                   square: bool = False, max_value: float = 3.0):
    """float64 n x d arrays with entries in [-max_value, max_value]; sides not given are drawn from
    [min_side, max_side] (``square``: one side drawn, d = n)."""
    _check_int("n", n, min_value=1, allow_none=True)
    _check_int("d", d, min_value=1, allow_none=True)
    _check_sides(min_side, max_side, smallest=1)
    _check_bool("square", square)
    if square and n is not None and d is not None and n != d:
        raise InvalidArgument(f"square=True with n={n!r} != d={d!r}")
    _check_float("max_value", max_value, min_value=0)
    return _float_matrices(n, d, min_side, max_side, square, float(max_value))


@st.composite
def _float_matrices(draw, n, d, min_side, max_side, square, m):
    n = n if n is not None else (d if square and d is not None else draw(st.integers(min_side, max_side)))
    d = n if square else (d if d is not None else draw(st.integers(min_side, max_side)))
    return draw(nps.arrays(np.float64, (n, d), elements=_floats(m)))


def square_matrices_and_shifts(*, min_side: int = 1, max_side: int = 5, max_value: float = 5.0):
    """(M, c): M n x n and c of length n, float64 entries in [-max_value, max_value]."""
    _check_sides(min_side, max_side, smallest=1)
    _check_float("max_value", max_value, min_value=0)
    m = float(max_value)
    return st.integers(min_side, max_side).flatmap(
        lambda n: st.tuples(nps.arrays(np.float64, (n, n), elements=_floats(m)),
                            nps.arrays(np.float64, (n,), elements=_floats(m))))


class AttentionSetup(NamedTuple):
    """A float64 attention instance with everything the symmetry tests transform it by, all drawn."""
    X: np.ndarray          # n x d tokens
    heads: list            # proofs_numeric.transformer.Head per head
    gauge_v: np.ndarray    # d_k x d_k, 3 I + E with |E_ij| <= 1/2: invertible, well conditioned
    gauge_qk: np.ndarray   # the same kind, for the query/key gauge
    perm: list             # a permutation of the n tokens
    positions: np.ndarray  # n x d positional encodings


def attention_setups(*, min_n: int = 2, max_n: int = 5, min_d: int = 2, max_d: int = 4, max_dk: int = 3,
                     max_heads: int = 3, max_value: float = 2.0):
    """An :class:`AttentionSetup`: tokens, heads and positions with float entries in
    [-max_value, max_value], gauge matrices 3 I + E (|E_ij| <= 1/2, diagonally dominant for d_k <= 3)."""
    _check_int("min_n", min_n, min_value=1)
    _check_int("max_n", max_n, min_value=1)
    _check_order("min_n", min_n, "max_n", max_n)
    _check_int("min_d", min_d, min_value=1)
    _check_int("max_d", max_d, min_value=1)
    _check_order("min_d", min_d, "max_d", max_d)
    _check_int("max_dk", max_dk, min_value=1)
    if max_dk > 4:
        raise InvalidArgument(f"max_dk={max_dk!r} must be at most 4 (the gauge matrices stay diagonally dominant)")
    _check_int("max_heads", max_heads, min_value=1)
    _check_float("max_value", max_value, min_value=0, exclusive=True)
    return _attention_setups(min_n, max_n, min_d, max_d, max_dk, max_heads, float(max_value))


@st.composite
def _attention_setups(draw, min_n, max_n, min_d, max_d, max_dk, max_heads, m):
    n = draw(st.integers(min_n, max_n))
    d = draw(st.integers(min_d, max_d))
    dk = draw(st.integers(1, max_dk))
    H = draw(st.integers(1, max_heads))
    fl = _floats(m)
    arr = lambda shape: draw(nps.arrays(np.float64, shape, elements=fl))
    heads = [Head(arr((d, dk)), arr((d, dk)), arr((d, dk)), arr((dk, d))) for _ in range(H)]
    small = st.floats(-0.5, 0.5, allow_nan=False, allow_infinity=False)
    gauge = lambda: 3 * np.eye(dk) + draw(nps.arrays(np.float64, (dk, dk), elements=small))
    return AttentionSetup(arr((n, d)), heads, gauge(), gauge(), draw(st.permutations(list(range(n)))), arr((n, d)))


# ------------------------------------------------------------------------------------ the verdict model

#: evidence constructors :func:`evidence_lists` draws from (``"none"``: not checkable)
EVIDENCE_KINDS = ("general", "derivation", "instances", "complete", "interval-witness", "interval-instances",
                  "float", "none", "genericity", "box", "interval-box", "identity", "exceptional", "persistent")


def _evidence(kind: str, holds, regime="all"):
    """One piece of evidence of each constructor."""
    a = "QQ"
    if kind == "general":
        return formal_proof("L", holds, statement="s", regime=regime) if holds is not False else \
            derivation([ProofStep("x", "y", "lemma", lambda: False)], "s", regime=regime)
    if kind == "derivation":
        return derivation([ProofStep("x", "y", "lemma", lambda h=holds: h)], "s", regime=regime)
    if kind == "instances":
        return exact_instances("s", met=0 if holds is None else 3, held=3 if holds else (0 if holds is None else 2),
                               arithmetic=a, regime=regime)
    if kind == "complete":
        return exact_complete("s", holds, arithmetic=a, regime=regime)
    if kind == "interval-witness":
        return interval_witness("s", holds, arithmetic=a, regime=regime)
    if kind == "interval-instances":
        return interval_instances("s", holds, arithmetic=a, regime=regime)
    if kind == "float":
        return float_statistic("s", holds, arithmetic=a, regime=regime)
    if kind == "genericity":  # holds True or undecided (an argument never fails)
        return genericity_argument("s", vanishing=derivation([ProofStep("x", "y", "lemma", lambda: True)], "v"),
                                   witness=exact_complete("w", True if holds is not None else None, arithmetic=a),
                                   regime=regime)
    if kind in ("box", "interval-box"):  # fails on a box, or undecided
        return failing_box("s", certified=True if holds is False else None, box="[0, 1]", arithmetic=a,
                           exact=kind == "box", regime=regime)
    if kind == "identity":
        return identical_failure("s", identity_holds=True if holds is False else None, regime=regime)
    if kind in ("exceptional", "persistent"):  # a failing instance of a generic claim, probed
        return perturbation_probe("s", point="p", probes=4, restored=4 if kind == "exceptional" else 1,
                                  failed=0 if kind == "exceptional" else 3, seed=0, scale="1/1000", arithmetic=a,
                                  regime=regime)
    return not_checkable("s", regime=regime)


def evidence_lists(*, min_size: int = 0, max_size: int = 6, kinds=EVIDENCE_KINDS,
                   regimes=("all", *REGIMES)):
    """Lists of :class:`theorems.framework.Evidence`: each piece of a drawn kind (:data:`EVIDENCE_KINDS`),
    holding, failing or undecided, labelled with a drawn regime."""
    _check_int("min_size", min_size, min_value=0)
    _check_int("max_size", max_size, min_value=0)
    _check_order("min_size", min_size, "max_size", max_size)
    kinds = _check_subset("kinds", kinds, EVIDENCE_KINDS)
    regimes = _check_subset("regimes", regimes, ("all", *REGIMES))
    return st.lists(st.builds(_evidence, kind=st.sampled_from(kinds), holds=st.sampled_from([True, False, None]),
                              regime=st.sampled_from(regimes)), min_size=min_size, max_size=max_size)


# ------------------------------------------------------------------------------------ hostile command lines
# (test_hostile_input.py: every subcommand driven through main(argv) with these; paths name the
# fixture folders of hostile files and of outputs)

def _check_dir(name: str, value) -> Path:
    if not isinstance(value, (str, Path)):
        raise InvalidArgument(f"{name}={value!r} must be a path, not {type(value).__name__}")
    path = Path(value)
    if not path.is_dir():
        raise InvalidArgument(f"{name}={value!r} is not a directory")
    return path


def hostile_matrix_texts():
    """Matrix arguments as text: valid, huge, deep, NaN, ragged, truncated, device paths..."""
    return _hostile_matrix_texts_()


def matrix_args(*, files):
    """A ``--X`` / ``--W-O`` value: hostile text, a file of ``files``, drawn JSON or drawn text."""
    return _matrix_args_(_check_dir("files", files))


def out_paths(*, outdir):
    """An output path: fine, missing folder, a folder, a device, empty, with a NUL byte."""
    return _out_paths_(_check_dir("outdir", outdir))


def check_argv(*, files):
    """``check`` argument lists mixing valid and hostile values."""
    return _check_argv_(_check_dir("files", files))


def show_argv():
    """``show`` with hostile claim ids."""
    return _show_argv_()


def rank_argv(*, files):
    """``rank`` argument lists mixing valid and hostile values."""
    return _rank_argv_(_check_dir("files", files))


def depth_argv(*, outdir):
    """``depth`` argument lists (a valid run stays small: 2 layers, 30 digits unless drawn)."""
    return _depth_argv_(_check_dir("outdir", outdir))


def verify_argv(*, outdir):
    """``verify`` argument lists, each with at least one invalid argument."""
    return _verify_argv_(_check_dir("outdir", outdir))


def real_model_argv(*, outdir):
    """``real-model`` argument lists, each with at least one invalid argument."""
    return _real_model_argv_(_check_dir("outdir", outdir))


def scaffold_names(*, max_size: int = 60):
    """Names for ``collapse-verify new`` that try to become code, paths or markup, and drawn text."""
    _check_int("max_size", max_size, min_value=0)
    return st.one_of(_SCAFFOLD_LIST,
                     st.text(max_size=max_size))


def _hostile_matrix_texts_():
    return st.sampled_from([
        "[[0,2,-2],[1,1,-2],[2,0,-2]]", "[[1, 2], [2, 4]]", '[["1/2", "0.25", 3], [1, 0, -1]]',
        "[[0.1, 0.3], [0.3, 0.9]]", "[[1e1000000, 1], [1, 1]]", "[[1e-1000000, 1], [1, 2]]",
        "[[1e4000, 0, 1], [0, 1, 2]]", "[[1E+999999999999, 1]]", "[[" + "9" * 12_000 + ", 1], [1, 2]]",
        "[[" + "9" * 5_000 + ", 1], [1, 2]]", '[["' + "1" * 20_000 + '/3", 1]]', "[[NaN, 1], [1, 1]]",
        "[[Infinity, 1], [1, 1]]", "[[1, 2], [3]]", "[]", "[[]]", "[[[1]]]", '{"a": 1}', "[[true, 1], [1, 0]]",
        "[[1, 2], [3, 4]", "[" * 5000 + "]" * 5000, "[[null, 1]]", '[["abc", 1]]', '[["1/0", 1]]', "", "   ",
        "[[1, 2, 3], [5, 5, 5]]", "nope", "nope.npy", "missing/dir/x.json", "/dev/null", "/", ".",
        "\x00", "[[1,2],[3,4]]\x00", "/dev/zero", "/dev/stdin", "/dev/urandom", "/proc/kmsg", "/proc/self/status",
        '[["0x10", 1]]', '[["1_000", 1]]', "[[-0.0, 0.0], [0, 1]]",
    ])


def _matrix_args_(files):
    named = st.sampled_from(sorted(p.name for p in files.iterdir())).map(lambda n: str(files / n))
    return st.one_of(_hostile_matrix_texts_(), named,
                     st.lists(st.lists(st.one_of(st.integers(-10 ** 30, 10 ** 30),
                                                 st.fractions(max_denominator=10 ** 6).map(str),
                                                 st.floats(allow_nan=False, allow_infinity=False)),
                                       min_size=2, max_size=2), min_size=1, max_size=3).map(json.dumps),
                     st.text(max_size=30))


@st.composite
def _out_paths_(draw, outdir: Path):
    return draw(st.sampled_from([str(outdir / "out.json"), str(outdir / "[/b]out.json"),  # rich markup in a path
                                 str(outdir / "missing" / "out.json"), str(outdir),
                                 "/dev/full", "/proc/version", "", str(outdir / "out.json") + "\x00x"]))


def _checkable_claims() -> dict[str, set]:
    """Every claim `check` can decide on a user's input (a walk of the registry) -> the inputs its readings take."""
    from proofs_numeric.ledger.check import checkable  # lazy: the registry loads every claim
    return {c.claim.id: {k for _, f in c.forms.values() for k in f.inputs()} for c in checkable() if c.checkable}


_CHECK_TARGETS: dict[str, set] = {}
#: valid inputs that fit each other: (X, Delta of X's shape, weights of X's width)
_CHECK_X = [("[[1,0,2,1],[0,1,1,0],[1,1,3,1]]", "[[0,0,1,0],[0,0,0,0],[1,0,0,0]]", "w_ok.npz"),
            ("[[1,0,0],[1,1,0],[1,2,0]]", "[[0,0,1],[0,0,0],[1,0,0]]", "w_uniform.npz"),
            ('[[0.1, 0.3, "1/3"], [1, 3, 0], [0, 0, 0]]', "[[-1,1,0],[0,0,0],[0,0,1]]", "w_uniform.npz"),
            ("f64.npy", "[[1,0,0,0],[0,0,0,0],[0,0,1,0]]", "w_ok.npz"),
            ("bool.npy", "[[0,1],[0,0]]", None), ("u64.npy", "[[1,0],[0,0]]", None), ("ld.npy", "[[0,0],[0,1]]", None),
            ("[[1e200, 0, 0], [0, 0, 0], [0, 0, 0]]", "[[0,0,0],[0,1,0],[0,0,0]]", "w_uniform.npz")]
_CHECK_WO = [("[[1,0,0],[0,1,0],[0,0,1],[1,1,0]]", "2"), ("[[0.1,0.3],[1,3]]", "1"), ("f32.npy", "1"),
             ("[[1,0],[0,1],[1,1],[2,0]]", "2"), ("i8.npy", "2")]


@st.composite
def _check_argv_(draw, files):
    """`check CLAIM` for every checkable claim (also the aliases, --list and bogus names): the inputs the claim takes,
    mostly valid and fitting each other, each sometimes replaced by a hostile value, plus the odd extra flag;
    --save only to the one allowed path (``saved.json``: written once, then refused)."""
    if not _CHECK_TARGETS:
        _CHECK_TARGETS.update(_checkable_claims())
    f = lambda name: str(files / name) if name.endswith((".npy", ".npz")) else name
    hostile = lambda: draw(st.integers(0, 7)) == 0
    kind = draw(st.integers(0, 7))
    claim = draw(st.sampled_from(["rank-neutrality", "residual-obstruction", "rank-contraction", "head-channel",
                                  "recovery-ambiguity"]) if kind == 0 else
                 st.sampled_from(["DC.bert-config", "nope", "", "RN.mian", "[/b]", "RN.main\x00"]) if kind == 1 else
                 st.sampled_from(sorted(_CHECK_TARGETS)))
    if draw(st.integers(0, 29)) == 0:
        return ["check", "--list"] + (["--json"] if draw(st.booleans()) else [])
    alias = {"rank-neutrality": "RN.main", "residual-obstruction": "RRO.main", "rank-contraction": "RC.rank-equals-sum",
             "head-channel": "HC.main", "recovery-ambiguity": "RA.main"}
    takes = _CHECK_TARGETS.get(alias.get(claim, claim), {"X"})
    argv = ["check", claim]
    X, D, W = draw(st.sampled_from(_CHECK_X))
    if "weights" in takes and W is None:
        X, D, W = _CHECK_X[0]
    if "X" in takes or draw(st.integers(0, 9)) == 0:
        argv += ["--X", draw(_matrix_args_(files)) if hostile() else f(X)]
    if "Delta" in takes or draw(st.integers(0, 9)) == 0:
        argv += ["--Delta", draw(_matrix_args_(files)) if hostile() else f(D)]
    if "W_O" in takes or draw(st.integers(0, 9)) == 0:
        WO, H = draw(st.sampled_from(_CHECK_WO))
        argv += ["--W-O", draw(_matrix_args_(files)) if hostile() else f(WO),
                 "--heads", draw(st.sampled_from(["0", "-2", "3", "x", "99999999999"])) if hostile() else H]
    if "weights" in takes or draw(st.integers(0, 9)) == 0:
        if hostile():
            argv += draw(st.sampled_from([["--weights", str(files / "w_bad.npz")],
                                          ["--weights", str(files / "ok.json")],
                                          ["--weights", str(files / "dir.npy")], ["--weights", str(files / "fifo.npy")],
                                          ["--weights", str(files / "f64.npy")], ["--weights", "missing.npz"],
                                          ["--weights", ""], ["--weights", "/dev/zero"], ["--heads", "0"],
                                          ["--heads", "-1"], ["--heads", "2", "--seed", "-1"]]))
        elif draw(st.booleans()) and "--W-O" not in argv:
            argv += ["--heads", draw(st.sampled_from(["1", "2"])), "--seed", draw(st.sampled_from(["0", "7"]))]
        else:
            argv += ["--weights", str(files / (W or "w_ok.npz"))]
    if "n" in takes or draw(st.integers(0, 9)) == 0:
        argv += ["--n", draw(st.sampled_from(["0", "-5", "x", "2" * 30])) if hostile() else
                 draw(st.sampled_from(["1", "2", "3", "512"]))]
    if "gamma" in takes and draw(st.integers(0, 2)) == 0:
        argv += ["--gamma", draw(st.sampled_from(["", "[1, 2]", "[[1]]", "[1e1000000, 1, 1]", str(files / "cube.npy"),
                                                  str(files / "dir.npy")])) if hostile() else
                 draw(st.sampled_from(['["1/2", 0, 1]', "[1, 1, 1]", "[0.5, 2, -1]", str(files / "vec3.npy"),
                                       "[1, 2, 3, 4]", "[0, 0, 0]"]))]
    if "beta" in takes and draw(st.integers(0, 2)) == 0:
        argv += ["--beta", draw(st.sampled_from(["[0, 0, 1]", "[1, 1, 1]", "[0.1, 0, 0, 2]", "", "[1]"]))]
    if claim == "rank-neutrality" and draw(st.booleans()):
        argv += ["--norm", draw(st.sampled_from(["layernorm", "rmsnorm", "rmsnorm", "batchnorm", ""]))]
    for opt, vals in (("--seed", ["0", "1", "-1", str(2 ** 63), "x"]),
                      ("--dps", ["15", "30", "0", "-1", "14", "5001", "100000", "x"]),
                      ("--reading", ["literal", "corrected", "nope", ""]),
                      ("--save", ["saved.json", str(files / "ok.json"), "missing/dir/x.json", str(files), "/dev/full",
                                  ""])):
        if draw(st.integers(0, 11)) == 0 and opt not in argv:
            argv += [opt, draw(st.sampled_from(vals))]
    if draw(st.integers(0, 9)) == 0:
        argv += ["--max-entries", draw(st.sampled_from(["1", "4", "0", "-1", "x", "99999999999999999999"]))]
    if draw(st.booleans()):
        argv.append("--json")
    return argv


@st.composite
def _show_argv_(draw):
    claim = draw(st.one_of(st.sampled_from(["RN.matrix-rank", "RA.bert-figures", "RN.mian", "", "[/b]", "*",
                                            "RN.main\x00", "../../etc/passwd", "x" * 10_000]),
                           st.text(max_size=20)))
    argv = ["show", claim]
    if draw(st.booleans()):
        argv.append("--json")
    if draw(st.booleans()):
        argv += ["--dps", draw(st.sampled_from(["15", "30", "0", "-1", "x"]))]
    return argv


@st.composite
def _rank_argv_(draw, files):
    argv = ["rank", draw(_matrix_args_(files))]
    if draw(st.booleans()):
        argv += ["--upper", draw(st.sampled_from(["0", "1", "2", "-1", "10**9", "1.5", "99999999999999999999"]))]
    if draw(st.booleans()):
        argv += ["--exact", draw(st.sampled_from(["auto", "always", "never", "sometimes", ""]))]
    if draw(st.booleans()):
        argv += ["--seed", draw(st.sampled_from(["0", "1", "-1", str(2 ** 63), str(2 ** 64), "x"]))]
    if draw(st.booleans()):
        argv += ["--rtol", draw(st.sampled_from(["1e-12", "0", "-1", "2", "nan", "inf", "x"]))]
    if draw(st.booleans()):
        argv += ["--max-entries", draw(st.sampled_from(["1", "100", "0", "x"]))]
    if draw(st.booleans()):
        argv.append("--json")
    return argv


@st.composite
def _depth_argv_(draw, outdir):
    small = {"--n": ["1", "2", "4", "0", "-3", "1000000", "x"], "--d": ["2", "3", "1", "0", "-1", "100000"],
             "--heads": ["1", "2", "0", "-1", "17", "1000"], "--d-k": ["1", "2", "0", "65", "-1"],
             "--layers": ["1", "2", "0", "-1", "70", "201", "1000000000"],
             "--dps": ["30", "40", "29", "0", "-5", "10001", "4400", "99999999999"],
             "--seed": ["0", "3", "-1", str(2 ** 63), str(2 ** 64), "1e3"],
             "--regime": ["pure_attention", "attention_skip", "full_block", "attention_mlp", "attention_ln", "nope",
                           ""]}
    argv = ["depth"]
    chosen = draw(st.dictionaries(st.sampled_from(sorted(small)), st.just(None), max_size=5))
    for k in chosen:
        argv += [k, draw(st.sampled_from(small[k]))]
    # a valid run must stay small: cheap defaults unless the draw set them
    if "--layers" not in chosen:
        argv += ["--layers", "2"]
    if "--dps" not in chosen:
        argv += ["--dps", "30"]
    if "--regime" not in chosen:
        argv += ["--regime", "pure_attention"]
    if draw(st.booleans()):
        argv += ["--json", draw(_out_paths_(outdir))]
    return argv


@st.composite
def _verify_argv_(draw, outdir):
    """Always at least one invalid argument: verify never starts its 30 s computation here."""
    kind = draw(st.sampled_from(["dps", "json", "claims"]))
    argv = ["verify", "--quick"]
    if kind == "dps":
        argv += ["--dps", draw(st.sampled_from(["14", "0", "-1", "5001", "4400000", "99999999999"]))]
    elif kind == "json":
        argv += ["--json", draw(st.sampled_from([str(outdir / "missing" / "l.json"), str(outdir), "/dev/full",
                                                 "/proc/version", ""]))]
    else:
        argv += ["--claims", draw(st.sampled_from(["NOPE.*", "", "[", "\x00"]))]
    if draw(st.booleans()):
        argv.append("--store")  # --store with an invalid argument: refused before anything is written
    return argv


@st.composite
def _real_model_argv_(draw, outdir):
    """Always at least one invalid argument (the model run is 30 s)."""
    kind = draw(st.sampled_from(["empty", "many", "long", "json"]))
    if kind == "empty":
        return ["real-model", "--text", draw(st.sampled_from(["", "   ", "\n"]))]
    if kind == "many":
        return ["real-model"] + ["--text", "hi"] * draw(st.integers(17, 40))
    if kind == "long":
        return ["real-model", "--text", "a " * 60_000]
    return ["real-model", "--text", "hello", "--json", draw(st.sampled_from([str(outdir / "no" / "x.json"),
                                                                             str(outdir), "/dev/full", ""]))]


_SCAFFOLD_LIST = st.sampled_from(["x' + str(__import__('os')) + '", 'x" + str(__import__("os")) + "',
                     '"""; import os; """',
                     "'''", "class", "def", "lambda", "import", "match", "_", "__init__", "claims",
                     "../../etc/passwd", "a/b", "..", ".", "", " ", "x" * 500, "Ünïcödé idea", "日本語", "ok name",
                     "two\nlines", "tab\there", "\u202eevil", "{slug}", "{title}", "}{", "$(rm -rf /)",
                     "`id`", "```{code-cell}\nimport os\n```", "1abc", "test_x", "ok name 2"])


# ------------------------------------------------------------------------ transformer maps, every context

def small_rationals(*, max_numerator: int = 4, max_denominator: int = 4):
    """Exact rationals p/q with |p| <= max_numerator and 1 <= q <= max_denominator (every context reads them)."""
    _check_int("max_numerator", max_numerator, min_value=0)
    _check_int("max_denominator", max_denominator, min_value=1)
    return st.builds(Rational, st.integers(-max_numerator, max_numerator), st.integers(1, max_denominator))


def rational_matrices(*, n: int, d: int, max_numerator: int = 4, max_denominator: int = 4):
    """An n x d list of lists of :func:`small_rationals`."""
    _check_int("n", n, min_value=1)
    _check_int("d", d, min_value=1)
    entries = small_rationals(max_numerator=max_numerator, max_denominator=max_denominator)
    return st.lists(st.lists(entries, min_size=d, max_size=d), min_size=n, max_size=n)


def transformer_instances(*, max_n: int = 3, max_d: int = 3, max_heads: int = 2):
    """(X, heads, ffn) with small rational entries: X [n, d] (n <= max_n, 2 <= d <= max_d); heads tuples
    (W_Q, W_K, W_V, W_O) with d_k <= d; ffn (W1 [d, d_ff], b1 [d_ff], W2 [d_ff, d], b2 [d]), d_ff <= 2 d.
    Scores stay O(10), so exp is tame in every context."""
    _check_int("max_n", max_n, min_value=1)
    _check_int("max_d", max_d, min_value=2)
    _check_int("max_heads", max_heads, min_value=1)
    return _transformer_instances(max_n, max_d, max_heads)


@st.composite
def _transformer_instances(draw, max_n, max_d, max_heads):
    n, d = draw(st.integers(1, max_n)), draw(st.integers(2, max_d))
    dk, dff = draw(st.integers(1, d)), draw(st.integers(1, 2 * d))
    M = lambda r, c: draw(rational_matrices(n=r, d=c))
    X = M(n, d)
    heads = [(M(d, dk), M(d, dk), M(d, dk), M(dk, d)) for _ in range(draw(st.integers(1, max_heads)))]
    return X, heads, (M(d, dff), M(1, dff)[0], M(dff, d), M(1, d)[0])
