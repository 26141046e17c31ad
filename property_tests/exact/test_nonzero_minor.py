"""theorems.exact.linalg.nonzero_minor: a non-zero k x k minor of an exact matrix, found by echelon forms modulo
p = 2^61 - 1 (fast on wide site matrices) with the exact echelon form over Q as the fallback.

Planted bugs that turn these red (run by hand): the fallback removed (``if True:`` before ``return _pivots(R, r)``):
``test_nonzero_minor_falls_back_to_q_when_p_divides_the_minor``; the columns taken from the first rows of the
echelon form instead of its pivots (``_pivots`` returning ``list(range(r))``):
``test_nonzero_minor_is_a_non_zero_minor_with_its_exact_value``.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from theorems.exact.linalg import nonzero_minor, rank

P = 2 ** 61 - 1


@st.composite
def low_rank_rationals(draw):
    n, d = draw(st.integers(1, 6)), draw(st.integers(1, 7))
    r = draw(st.integers(0, min(n, d)))
    q = st.builds(sympy.Rational, st.integers(-4, 4), st.integers(1, 3))
    A = sympy.Matrix(n, r, lambda i, j: draw(q))
    B = sympy.Matrix(r, d, lambda i, j: draw(st.integers(-3, 3)))
    return A * B if r else sympy.zeros(n, d)


@settings(max_examples=120)
@given(low_rank_rationals(), st.integers(0, 7))
def test_nonzero_minor_is_a_non_zero_minor_with_its_exact_value(M, k):
    got = nonzero_minor(M, k)
    if k > rank(M):
        assert got is None
        return
    rows, cols, value = got
    assert len(rows) == len(cols) == k and len(set(rows)) == k and len(set(cols)) == k
    assert value != 0 and value == M.extract(rows, cols).det()  # sympy's own determinant


def test_nonzero_minor_falls_back_to_q_when_p_divides_the_minor():
    """Entries that are multiples of p vanish mod p: the modular rank falls short and the exact echelon form
    decides (the greedy choice over Q: the first row and column)."""
    M = sympy.Matrix([[P, 0], [0, 0]])
    assert nonzero_minor(M, 1) == ([0], [0], sympy.Integer(P))
    M2 = sympy.Matrix([[P, 1], [2 * P, 3]])  # det = P: zero mod p
    rows, cols, value = nonzero_minor(M2, 2)
    assert (rows, cols, value) == ([0, 1], [0, 1], sympy.Integer(P))


def test_nonzero_minor_on_a_wide_dyadic_site_matrix():
    """A 12 x 200 matrix of float64 values taken exactly, with a repeated column: the repeat is skipped."""
    A = np.random.default_rng(0).normal(size=(12, 200))
    A[:, 5] = A[:, 3]
    M = sympy.Matrix(12, 200, [sympy.Rational(Fraction(float(v))) for v in A.ravel()])
    rows, cols, value = nonzero_minor(M, 12)
    assert rows == list(range(12)) and 5 not in cols and cols[:5] == [0, 1, 2, 3, 4]
    assert value == M.extract(rows, cols).det()


# --- rank_of_fmpq / rank_of_product: full rank (or a proved upper bound) met modulo p, else the exact rank ---------
# Planted bugs that turn these red (run by hand): the bound returned without the check modulo p (``return bound``
# before the test): test_rank_of_product_is_the_exact_rank_of_the_product; the fallback removed (``return
# flint.nmod_mat(Z, P).rank()``): test_rank_of_fmpq_falls_back_to_q_when_p_divides_every_full_minor.

def _exact_rank(M) -> int:
    return int(sympy.Matrix(M).rank(iszerofunc=lambda e: e == 0)) if M.shape[0] and M.shape[1] else 0


@settings(max_examples=120)
@given(low_rank_rationals(), low_rank_rationals())
def test_rank_of_product_is_the_exact_rank_of_the_product(A, B):
    from theorems.exact.linalg import rank_of_product
    B = B[:, :] if B.shape[0] == A.shape[1] else sympy.Matrix(A.shape[1], B.shape[1], lambda i, j: B[i % B.shape[0], j])
    assert rank_of_product(A, B) == _exact_rank(A * B) == rank(A * B)


def test_rank_of_fmpq_falls_back_to_q_when_p_divides_every_full_minor():
    import flint

    from theorems.exact.linalg import rank_of_fmpq
    F = flint.fmpq_mat(2, 3, [P, 0, 0, 0, P, 2 * P])  # rank 2 over Q, 0 modulo p
    assert rank_of_fmpq(F) == 2
    assert rank_of_fmpq(flint.fmpq_mat(3, 2, [flint.fmpq(P, 3), 0, 0, 1, 0, 0])) == 2


@settings(max_examples=80)
@given(low_rank_rationals(), st.integers(1, 6))
def test_nonzero_minor_modular_value_names_the_residue_of_the_exact_minor(M, k):
    """exact=False: the same rows and columns, and the value names det(den * minor) modulo p, which is the exact
    minor's residue (den the minor's common denominator). Red when the residue is taken of another matrix."""
    from theorems.exact.linalg import to_fmpq_mat
    got, fast = nonzero_minor(M, k), nonzero_minor(M, k, exact=False)
    if got is None:
        assert fast is None
        return
    assert got[:2] == fast[:2]
    rows, cols, value = got
    F = to_fmpq_mat(M.extract(rows, cols))
    _, den = F.numer_denom()
    expected = (int(den) ** k * value) % P
    if isinstance(fast[2], str):
        assert f"det(minor) is {expected} modulo 2^61 - 1" in fast[2] and expected != 0
    else:
        assert fast[2] == value and expected == 0
