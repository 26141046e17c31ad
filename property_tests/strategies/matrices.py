"""Matrices: exact low-rank products of integer factors, and bounded float vectors and matrices."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.extra import numpy as nps
from sympy import Matrix

from .validation import check_bool, check_float, check_int, check_order, check_sides, floats, ints


def low_rank_matrices(*, n: int | None = None, d: int | None = None, min_side: int = 2, max_side: int = 6,
                      max_rank: int | None = None, max_entry: int = 3):
    """U V with integer factors (entries in [-max_entry, max_entry]): rank at most ``max_rank``
    (default min(n, d) - 1). Sides not given are drawn from [min_side, max_side] (2 is the edge)."""
    check_int("n", n, min_value=1, allow_none=True)
    check_int("d", d, min_value=1, allow_none=True)
    check_int("min_side", min_side, min_value=1)
    check_int("max_side", max_side, min_value=1)
    check_order("min_side", min_side, "max_side", max_side)
    check_int("max_rank", max_rank, min_value=0, allow_none=True)
    if max_rank is not None and n is not None and d is not None:
        check_order("max_rank", max_rank, "min(n, d)", min(n, d))
    check_int("max_entry", max_entry, min_value=0)
    return _low_rank_matrices(n, d, min_side, max_side, max_rank, max_entry)


@st.composite
def _low_rank_matrices(draw, n, d, min_side, max_side, max_rank, max_entry):
    n = n if n is not None else draw(st.integers(min_side, max_side))
    d = d if d is not None else draw(st.integers(min_side, max_side))
    top = min(n, d) - 1 if max_rank is None else min(max_rank, min(n, d))
    r = draw(st.integers(0, max(top, 0)))
    if r == 0:
        return Matrix.zeros(n, d)
    U = Matrix(n, r, draw(ints(-max_entry, max_entry, n * r)))
    V = Matrix(r, d, draw(ints(-max_entry, max_entry, r * d)))
    return U * V


def low_rank_matrix_pairs(*, min_side: int = 2, max_side: int = 4, max_entry: int = 2):
    """(X, D): two :func:`low_rank_matrices` of one drawn shape (sides in [min_side, max_side])."""
    check_sides(min_side, max_side, smallest=1)
    check_int("max_entry", max_entry, min_value=0)
    return st.integers(min_side, max_side).flatmap(lambda n: st.integers(min_side, max_side).flatmap(
        lambda d: st.tuples(low_rank_matrices(n=n, d=d, max_entry=max_entry),
                            low_rank_matrices(n=n, d=d, max_entry=max_entry))))


# ------------------------------------------------------------------------------------ float data

def float_vectors(*, min_size: int = 1, max_size: int = 6, max_value: float = 2.0):
    """Lists of floats in [-max_value, max_value], length in [min_size, max_size]."""
    check_int("min_size", min_size, min_value=0)
    check_int("max_size", max_size, min_value=0)
    check_order("min_size", min_size, "max_size", max_size)
    check_float("max_value", max_value, min_value=0)
    return st.lists(floats(float(max_value)), min_size=min_size, max_size=max_size)


def float_matrices(*, n: int | None = None, d: int | None = None, min_side: int = 1, max_side: int = 5,
                   square: bool = False, max_value: float = 3.0):
    """float64 n x d arrays with entries in [-max_value, max_value]; sides not given are drawn from
    [min_side, max_side] (``square``: one side drawn, d = n)."""
    check_int("n", n, min_value=1, allow_none=True)
    check_int("d", d, min_value=1, allow_none=True)
    check_sides(min_side, max_side, smallest=1)
    check_bool("square", square)
    if square and n is not None and d is not None and n != d:
        raise InvalidArgument(f"square=True with n={n!r} != d={d!r}")
    check_float("max_value", max_value, min_value=0)
    return _float_matrices(n, d, min_side, max_side, square, float(max_value))


@st.composite
def _float_matrices(draw, n, d, min_side, max_side, square, m):
    n = n if n is not None else (d if square and d is not None else draw(st.integers(min_side, max_side)))
    d = n if square else (d if d is not None else draw(st.integers(min_side, max_side)))
    return draw(nps.arrays(np.float64, (n, d), elements=floats(m)))


def square_matrices_and_shifts(*, min_side: int = 1, max_side: int = 5, max_value: float = 5.0):
    """(M, c): M n x n and c of length n, float64 entries in [-max_value, max_value]."""
    check_sides(min_side, max_side, smallest=1)
    check_float("max_value", max_value, min_value=0)
    m = float(max_value)
    return st.integers(min_side, max_side).flatmap(
        lambda n: st.tuples(nps.arrays(np.float64, (n, n), elements=floats(m)),
                            nps.arrays(np.float64, (n,), elements=floats(m))))
