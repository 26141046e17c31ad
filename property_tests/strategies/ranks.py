"""Certified rank: integer matrices of known or bounded rank (dependent columns, pivot blocks, products of
drawn factors), dyadic float64 and rational low-rank matrices."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from .validation import check_int, check_order, check_sides, check_subset, int_arrays


def integer_arrays(*, shape, max_value: int = 9):
    """int64 arrays of the given shape with drawn entries in [-max_value, max_value]."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, tuple):
        raise InvalidArgument(f"shape={shape!r} must be an int or a tuple of ints")
    for s in shape:
        check_int("shape", s, min_value=0)
    check_int("max_value", max_value, min_value=0)
    if max_value >= 2 ** 62:
        raise InvalidArgument(f"max_value={max_value!r} must be below 2^62 (int64 entries)")
    return int_arrays(shape, max_value)


def matrices_with_dependent_columns(*, min_rows: int = 2, max_rows: int = 30, min_cols: int = 2, max_cols: int = 12,
                                    extra_cols: int = 3, max_entry: int = 9, max_coefficient: int = 2):
    """[B | B K]: B n x k with entries in [-max_entry, max_entry], then ``extra_cols`` columns that are
    integer combinations (coefficients in [-max_coefficient, max_coefficient]) of B's columns."""
    check_int("min_rows", min_rows, min_value=1)
    check_int("max_rows", max_rows, min_value=1)
    check_order("min_rows", min_rows, "max_rows", max_rows)
    check_int("min_cols", min_cols, min_value=1)
    check_int("max_cols", max_cols, min_value=1)
    check_order("min_cols", min_cols, "max_cols", max_cols)
    check_int("extra_cols", extra_cols, min_value=0)
    check_int("max_entry", max_entry, min_value=0)
    check_int("max_coefficient", max_coefficient, min_value=0)
    return _matrices_with_dependent_columns(min_rows, max_rows, min_cols, max_cols, extra_cols, max_entry,
                                            max_coefficient)


@st.composite
def _matrices_with_dependent_columns(draw, min_rows, max_rows, min_cols, max_cols, extra, max_entry, max_coef):
    n, k = draw(st.integers(min_rows, max_rows)), draw(st.integers(min_cols, max_cols))
    B = draw(int_arrays((n, k), max_entry))
    return np.hstack([B, B @ draw(int_arrays((k, extra), max_coef))])


def matrices_with_pivots(*, min_side: int = 2, max_side: int = 7, max_entry: int = 30):
    """(A, rows, cols): an n x d integer matrix (entries in [-max_entry, max_entry]) and a pivot
    block of r < min(n, d) sorted rows and columns (drawn; may be singular)."""
    check_sides(min_side, max_side, smallest=2)
    check_int("max_entry", max_entry, min_value=0)
    return _matrices_with_pivots(min_side, max_side, max_entry)


@st.composite
def _matrices_with_pivots(draw, min_side, max_side, max_entry):
    n, d = draw(st.integers(min_side, max_side)), draw(st.integers(min_side, max_side))
    A = draw(int_arrays((n, d), max_entry))
    r = draw(st.integers(1, min(n, d) - 1))
    rows = sorted(draw(st.permutations(list(range(n))))[:r])
    cols = sorted(draw(st.permutations(list(range(d))))[:r])
    return A, rows, cols


def integer_matrices_of_rank(*, min_side: int = 1, max_side: int = 12, min_rank: int = 0, entry_bits=(3,)):
    """(U V, r) with U, V integer of inner dimension r (drawn entries): n < d, n = d and n > d all
    drawn; U has entries up to 2^bits, V up to 2^(bits // 2) (bits drawn from ``entry_bits``;
    rank U V <= r, with equality on most draws)."""
    check_sides(min_side, max_side, smallest=1)
    check_int("min_rank", min_rank, min_value=0)
    check_order("min_rank", min_rank, "max_side", max_side)
    entry_bits = check_subset("entry_bits", entry_bits, range(0, 31))
    for b in entry_bits:
        check_int("entry_bits", b)
    return _integer_matrices_of_rank(min_side, max_side, min_rank, entry_bits)


@st.composite
def _integer_matrices_of_rank(draw, min_side, max_side, min_rank, entry_bits):
    n, d = draw(st.integers(min_side, max_side)), draw(st.integers(min_side, max_side))
    r = draw(st.integers(min(min_rank, n, d), min(n, d)))
    bits = draw(st.sampled_from(entry_bits))
    U = draw(int_arrays((n, r), 2 ** bits))
    V = draw(int_arrays((r, d), 2 ** (bits // 2)))
    return U @ V, r


def deficient_integer_matrices(*, max_side: int = 40, max_entry_bits: int = 20):
    """Products with entries from small to 2^(1.5 * max_entry_bits), rank at least 1, sides from 2."""
    check_int("max_side", max_side, min_value=2)
    check_int("max_entry_bits", max_entry_bits, min_value=3)
    if max_entry_bits > 30:
        raise InvalidArgument(f"max_entry_bits={max_entry_bits!r} must be at most 30 (products stay below 2^53)")
    return integer_matrices_of_rank(min_side=2, max_side=max_side, min_rank=1,
                                    entry_bits=tuple(sorted({3, min(8, max_entry_bits), max_entry_bits})))


def dyadic_low_rank(*, min_side: int = 2, max_side: int = 9, max_entry: int = 40, spans=(0, 3, 60, 300)):
    """Float64 matrices of rank <= r < min(n, d) whose dependencies mix binary exponents (row and
    column scales 2^e, |e| <= span, span drawn from ``spans``): diag(2^e) (U V) diag(2^f), every
    entry exact in float64. Duplicated rows would not do: they keep their rank under any per-entry
    map of the values."""
    check_sides(min_side, max_side, smallest=2)
    check_int("max_entry", max_entry, min_value=0)
    if max_entry > 2 ** 20:
        raise InvalidArgument(f"max_entry={max_entry!r} must be at most 2^20 (products stay exact in float64)")
    spans = check_subset("spans", spans, range(0, 501))
    for s in spans:
        check_int("spans", s)
    return _dyadic_low_rank(min_side, max_side, max_entry, spans)


@st.composite
def _dyadic_low_rank(draw, min_side, max_side, max_entry, spans):
    n, d = draw(st.integers(min_side, max_side)), draw(st.integers(min_side, max_side))
    r = draw(st.integers(0, min(n, d) - 1))
    U, V = draw(int_arrays((n, r), max_entry)), draw(int_arrays((r, d), max_entry))
    span = draw(st.sampled_from(spans))
    e, f = draw(int_arrays((n,), span)), draw(int_arrays((d,), span))
    return (U @ V).astype(np.float64) * np.ldexp(1.0, e)[:, None] * np.ldexp(1.0, f)[None, :]


def rational_low_rank(*, min_side: int = 2, max_side: int = 6, max_numerator: int = 9, max_denominator: int = 11):
    """Lists of Fractions U V (U n x r, V r x d, r < min(n, d)) with drawn entries a / b,
    |a| <= max_numerator, 1 <= b <= max_denominator."""
    check_sides(min_side, max_side, smallest=2)
    check_int("max_numerator", max_numerator, min_value=0)
    check_int("max_denominator", max_denominator, min_value=1)
    return _rational_low_rank(min_side, max_side, max_numerator, max_denominator)


@st.composite
def _rational_low_rank(draw, min_side, max_side, max_num, max_den):
    n, d = draw(st.integers(min_side, max_side)), draw(st.integers(min_side, max_side))
    r = draw(st.integers(0, min(n, d) - 1))
    fr = st.builds(Fraction, st.integers(-max_num, max_num), st.integers(1, max_den))
    U = [draw(st.lists(fr, min_size=r, max_size=r)) for _ in range(n)]
    V = [draw(st.lists(fr, min_size=d, max_size=d)) for _ in range(r)]
    return [[sum((U[i][k] * V[k][j] for k in range(r)), Fraction(0)) for j in range(d)] for i in range(n)]
