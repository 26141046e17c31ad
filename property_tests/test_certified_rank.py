"""Certified exact rank: bounds always bracket the exact rank; certificates close when they should."""
from __future__ import annotations

import flint
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from theorems.linalg import BadInput, certified_rank


def _exact_rank_int(A) -> int:
    return int(flint.fmpz_mat(np.asarray(A).tolist()).rank())


@st.composite
def integer_matrices_of_rank(draw, max_side=12):
    n, d = draw(st.integers(1, max_side)), draw(st.integers(1, max_side))
    r = draw(st.integers(0, min(n, d)))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    U = rng.integers(-9, 10, size=(n, r))
    V = rng.integers(-9, 10, size=(r, d))
    return U @ V, r


@given(integer_matrices_of_rank())
def test_certified_rank_brackets_the_exact_rank(Ar):
    A, r = Ar
    exact = _exact_rank_int(A)
    c = certified_rank(A, exact="never")
    assert c.lower <= exact <= c.upper
    assert exact <= r
    c2 = certified_rank(A, upper_bound=r)  # a correct structural bound
    assert c2.lower <= exact <= c2.upper
    assert certified_rank(A).value == exact  # small: exact fraction-free rank closes the interval


@given(st.integers(1, 40), st.integers(1, 40), st.integers(0, 2 ** 32 - 1))
def test_certified_rank_float_full_rank_certificate_is_exact(n, d, seed):
    A = np.random.default_rng(seed).normal(size=(n, d))
    c = certified_rank(A)
    if c.method == "rump-full-rank":
        # the float values taken exactly: their exact rank is min(n, d)
        q = flint.fmpq_mat(n, d, [flint.fmpq(*float(v).as_integer_ratio()) for v in A.ravel()])
        assert int((q if n >= d else q.transpose()).rank()) == min(n, d)
    assert c.certified


@given(st.integers(2, 30), st.integers(2, 30), st.integers(0, 2 ** 32 - 1))
def test_certified_rank_float_products_are_full_rank_as_stored(n, d, seed):
    """The float64 product of thin Gaussian factors is (exactly) full rank: rounding fills it."""
    rng = np.random.default_rng(seed)
    r = max(1, min(n, d) // 2)
    F = rng.normal(size=(n, r)) @ rng.normal(size=(r, d))
    c = certified_rank(F, exact="never")
    assert c.lower <= min(n, d)
    if c.certified:
        assert c.value == min(n, d) or c.value >= r


def test_certified_rank_rejects_bad_input():
    with pytest.raises(BadInput, match="NaN"):
        certified_rank(np.array([[1.0, np.nan]]))
    with pytest.raises(BadInput, match="ragged"):
        certified_rank([[1, 2], [3]])
    with pytest.raises(ValueError, match="structural bound you supplied is wrong"):
        certified_rank(np.eye(4, dtype=int), upper_bound=2, exact="never")


def test_certified_rank_reports_an_interval_when_no_certificate():
    rng = np.random.default_rng(0)
    A = rng.integers(-9, 10, size=(40, 10)) @ rng.integers(-9, 10, size=(10, 50))
    c = certified_rank(A, exact="never")
    assert (c.lower, c.upper, c.certified) == (10, 40, False)
    assert "interval" in " ".join(c.notes)


@given(st.integers(2, 30), st.integers(2, 12), st.integers(0, 2 ** 32 - 1))
def test_certified_rank_kernel_certificate_closes_small_kernels(n, k, seed):
    """Columns that are small integer combinations of others: the kernel certificate proves the rank."""
    rng = np.random.default_rng(seed)
    B = rng.integers(-9, 10, size=(n, k))
    C = B @ rng.integers(-2, 3, size=(k, 3))
    A = np.hstack([B, C])
    c = certified_rank(A, exact="never")
    exact = _exact_rank_int(A)
    assert c.lower <= exact <= c.upper
    if c.certified:
        assert c.value == exact
    if "kernel certificate" in c.upper_method:
        assert c.certified
