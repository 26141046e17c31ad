"""Certified rank on every dtype: the bounds bracket FLINT's exact rank of the *stored* values.

The reference rank is computed independently of :mod:`theorems.exact.certified_rank`: each entry is
turned into a FLINT ``fmpq`` from the numpy scalar itself (``int(x)`` for bool and integers,
``x.as_integer_ratio()`` for floats, long double at its own precision), and ranked by
``fmpq_mat`` on the tall orientation.
"""
from __future__ import annotations

import time
from fractions import Fraction

import flint
import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from property_tests.strategies import longdouble_matrices, stored_matrices
from theorems.exact.certified_rank import MAX_USER_PRIME, certified_rank
from theorems.exact.input import BadInput

LONGDOUBLE_IS_DOUBLE = np.finfo(np.longdouble).nmant == 52

def _fmpq(x) -> flint.fmpq:
    if isinstance(x, (np.bool_, np.integer)):
        return flint.fmpq(int(x))
    p, q = x.as_integer_ratio()  # numpy float scalars, long double included: exact
    return flint.fmpq(int(p), int(q))


def exact_rank_of_stored(A: np.ndarray) -> int:
    """FLINT's exact rank of the values A stores (independent of the code under test)."""
    n, d = A.shape
    if n == 0 or d == 0:
        return 0
    Q = flint.fmpq_mat(n, d, [_fmpq(A[i, j]) for i in range(n) for j in range(d)])
    return int((Q if n >= d else Q.transpose()).rank())


def _assert_brackets(A, **kw):
    exact = exact_rank_of_stored(A)
    c = certified_rank(A, **kw)
    assert c.lower <= exact <= c.upper, (A.dtype, A.tolist(), c, exact)
    if c.certified:
        assert c.value == exact
    return c, exact


@given(stored_matrices(), st.sampled_from(["auto", "never"]),
       st.one_of(st.none(), st.lists(st.sampled_from([2, 3, 5, 65537, 2147483629, MAX_USER_PRIME]), min_size=1,
                                     max_size=3)))
@example(np.array([[2 ** 62 + 1, 2 ** 62 + 3], [2 ** 63 + 2, 2 ** 63 + 6]], dtype=np.uint64), "never", None)
@example(np.array([[2 ** 64 - 1, 2 ** 63], [2 ** 64 - 1, 2 ** 63]], dtype=np.uint64), "never", None)
@example(np.array([[np.iinfo(np.int64).min, 1], [np.iinfo(np.int64).min, 1]]), "never", None)
@example(np.array([[65504.0, -65504.0], [1.0, -1.0]], dtype=np.float16), "never", [2])
def test_certified_rank_dtypes_bracket_the_exact_rank_of_stored_values(A, exact, primes):
    _assert_brackets(A, exact=exact, primes=primes)


@pytest.mark.skipif(LONGDOUBLE_IS_DOUBLE, reason="long double is float64 on this platform")
@given(longdouble_matrices(), st.sampled_from(["auto", "never"]))
def test_certified_rank_longdouble_taken_at_its_own_precision(A, exact):
    assert np.all(np.isfinite(A))
    _assert_brackets(A, exact=exact)


@pytest.mark.skipif(LONGDOUBLE_IS_DOUBLE, reason="long double is float64 on this platform")
def test_certified_rank_counterexample_1_longdouble_extra_bits():
    """[[1, 1 + 2^-60], [1, 1]] in long double has rank 2 (it was certified rank 1 after rounding)."""
    A = np.array([[1, 1 + np.longdouble(2) ** -60], [1, 1]], dtype=np.longdouble)
    c, exact = _assert_brackets(A)
    assert exact == 2 and c.value == 2


@pytest.mark.skipif(LONGDOUBLE_IS_DOUBLE, reason="long double is float64 on this platform")
@pytest.mark.parametrize("A, rank", [
    (np.array([[np.longdouble("1e-4000"), 0], [0, 1]]), 2),          # underflows float64 to 0
    (np.array([[np.longdouble("1e400"), 1], [1, np.longdouble("1e400")]]), 2),  # overflows float64
    (np.array([[np.longdouble("1e400"), 2 * np.longdouble("1e400")], [1, 2]]), 1),
])
def test_certified_rank_counterexample_2_longdouble_range(A, rank):
    t0 = time.perf_counter()
    c, exact = _assert_brackets(A)
    assert exact == rank and c.value == rank
    assert time.perf_counter() - t0 < 2.0  # answered at once (it used to hang)


def test_certified_rank_counterexample_3_uint64_at_and_above_2_63():
    """The second row is twice the first and lies above 2^63: rank 1 (a wrapping cast made it 2)."""
    a = [2 ** 62 + 1, 2 ** 62 + 3]
    A = np.array([a, [2 * v for v in a]], dtype=np.uint64)
    for exact in ("auto", "always"):
        c, r = _assert_brackets(A, exact=exact)
        assert r == 1 and c.value == 1
    c, r = _assert_brackets(A, exact="never")  # kernel entries ~2^62 do not reconstruct: an honest interval
    assert c.lower == 1
    u = np.array([[2 ** 40 + 1], [3]], dtype=np.uint64)
    v = np.array([[2 ** 23, 5, 7]], dtype=np.uint64)
    c, r = _assert_brackets(u @ v, exact="never")  # a rank-1 outer product with entries above 2^63
    assert r == 1 and c.lower <= 1 <= c.upper


def test_certified_rank_big_endian_and_small_floats_are_read_exactly():
    for dt in (">f8", ">f4", ">i4", ">u8", "float16", "bool"):
        A = np.array([[1, 0], [1, 0]], dtype=dt)
        c, r = _assert_brackets(A)
        assert r == 1 and c.value == 1
    A = np.array([[0.1, 0.2], [0.2, 0.4]], dtype=">f8")  # 0.2 = 2 * 0.1 exactly in binary too
    assert certified_rank(A).value == 1


def test_certified_rank_empty_and_thin_shapes():
    for shape in [(0, 0), (0, 4), (4, 0)]:
        c = certified_rank(np.zeros(shape))
        assert (c.lower, c.upper) == (0, 0)
    assert certified_rank(np.zeros((1, 5), dtype=np.uint64)).value == 0
    assert certified_rank(np.ones((5, 1), dtype=np.int8)).value == 1
    assert certified_rank([]).value == 0


def test_certified_rank_object_arrays_of_python_ints_and_fractions():
    A = np.array([[2 ** 100, Fraction(1, 3)], [2 ** 101, Fraction(2, 3)]], dtype=object)
    assert certified_rank(A).value == 1
    assert certified_rank([[10 ** 30, 1], [1, 10 ** 30]]).value == 2


@pytest.mark.parametrize("A, needle", [
    (np.array([[1 + 2j, 0]]), "complex"),
    (np.zeros((2, 2), dtype=[("a", "f8"), ("b", "i4")]), "structured"),
    (np.array([[1.0, np.inf]]), "NaN or infinite"),
    (np.array([[np.nan]], dtype=np.float16), "NaN or infinite"),
    (np.array([[True, None]], dtype=object), "boolean|not a number"),
    (np.array([["2020-01-01"]], dtype="datetime64[D]"), "not a number type"),
    (np.zeros((2, 2, 2)), "2-D"),
])
def test_certified_rank_refuses_what_it_cannot_take_exactly(A, needle):
    with pytest.raises(BadInput, match=needle):
        certified_rank(A)


@pytest.mark.parametrize("primes, needle", [
    ([1], "not a prime"), ([4], "not a prime"), ([0], "not a prime"), ([-7], "not a prime"),
    ([2 ** 31 + 11], "above the supported range"), ([2 ** 61 - 1], "above the supported range"),
    ([], "empty"), ([True], "not an integer"), ([3.0], "not an integer"), ("7", "list of primes"),
])
def test_certified_rank_refuses_unusable_primes(primes, needle):
    A = np.array([[0.5, 1.0], [1.0, 2.0]])
    with pytest.raises(BadInput, match=needle):
        certified_rank(A, primes=primes, exact="never")


def test_certified_rank_any_valid_prime_gives_a_sound_bound():
    A = np.array([[0.5, 1.0], [1.0, 2.0 + 2.0 ** -40]])  # rank 2, but 2 divides a lot of it
    for p in (2, 3, 5, 7, 2 ** 31 - 1):
        c = certified_rank(A, primes=[p], exact="never")
        assert c.lower <= 2 <= c.upper


@pytest.mark.parametrize("kw, needle", [
    ({"exact": "sometimes"}, "exact must be"), ({"upper_bound": -1}, "negative"),
    ({"upper_bound": 1.5}, "integer"), ({"seed": -1}, "seed"),
])
def test_certified_rank_refuses_bad_arguments(kw, needle):
    with pytest.raises(BadInput, match=needle):
        certified_rank(np.eye(2), **kw)
