"""Certified exact rank: bounds always bracket the exact rank; certificates close when they should."""
from __future__ import annotations

import flint
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from property_tests.strategies import (
    adversarial_integer_matrices,
    deficient_integer_matrices,
    integer_matrices_of_rank,
    matrices_with_dependent_columns,
)
from theorems.exact import padic_rank as P
from theorems.exact.certified_rank import PRIMES, certified_rank
from theorems.exact.input import BadInput
from theorems.exact.padic_rank import (
    MAX_ENTRY_BITS,
    bordered_hadamard_bound_sq,
    complete_pivoting,
    padic_rank_certificate,
)


def _exact_rank_int(A) -> int:
    return int(flint.fmpz_mat(np.asarray(A).tolist()).rank())


def _bracketed(A):
    """(certified_rank(A, exact="never"), exact rank), after asserting the bounds bracket it."""
    exact = _exact_rank_int(A)
    c = certified_rank(A, exact="never")
    assert c.lower <= exact <= c.upper, c
    return c, exact


@given(integer_matrices_of_rank())
def test_certified_rank_brackets_the_exact_rank(Ar):
    A, r = Ar
    c, exact = _bracketed(A)
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
    """Entries of 60+ bits: no p-adic room, a kernel too large for one prime, no exact rank allowed."""
    rng = np.random.default_rng(0)
    U = [[int(v) for v in row] for row in rng.integers(-2 ** 30, 2 ** 30, size=(40, 10))]
    V = [[int(v) for v in row] for row in rng.integers(-2 ** 30, 2 ** 30, size=(10, 50))]
    A = [[sum(U[i][k] * V[k][j] for k in range(10)) for j in range(50)] for i in range(40)]
    c = certified_rank(A, exact="never")
    assert (c.lower, c.upper, c.certified) == (10, 40, False)
    assert "interval" in " ".join(c.notes)
    assert certified_rank(A).value == 10  # small enough for the exact fraction-free rank


@given(deficient_integer_matrices())
def test_certified_rank_padic_certificate_is_the_exact_rank(Ar):
    A, r = Ar
    c, exact = _bracketed(A)
    # entries below 2^40: either full rank (Rump or a non-singular minor) or the bordering
    # certificate closes; no draw is left as an interval
    assert c.certified and c.value == exact, c
    assert c.upper_method == "min(n, d)" or c.upper_method.startswith("p-adic bordering certificate")


def test_certified_rank_padic_closes_products_in_every_shape_regime():
    """n < d, n = d, n > d at rank r < min(n, d): the bordering certificate alone decides the rank."""
    rng = np.random.default_rng(7)
    for n, d, r in [(30, 60, 12), (45, 45, 20), (60, 30, 29), (200, 300, 120)]:
        A = rng.integers(-9, 10, size=(n, r)) @ rng.integers(-9, 10, size=(r, d))
        c = certified_rank(A, exact="never")
        assert c.certified and c.value == r == _exact_rank_int(A), (n, d, c)
        assert "p-adic bordering certificate" in c.upper_method


def _bordering_minors(A, rows, cols):
    n, d = A.shape
    for i in sorted(set(range(n)) - set(rows)):
        for j in sorted(set(range(d)) - set(cols)):
            sub = A[np.ix_(list(rows) + [i], list(cols) + [j])]
            yield int(flint.fmpz_mat(sub.tolist()).det())


@given(deficient_integer_matrices(max_side=9, max_entry_bits=12), st.integers(0, 3))
def test_padic_hadamard_bound_bounds_every_bordering_minor(Ar, extra):
    """The bound the certificate compares p^K with is a true bound (checked on every bordering minor)."""
    A, _ = Ar
    A = A.copy()
    A[0, 0] += extra  # often raises the rank: non-zero bordering minors too
    rows, cols = complete_pivoting(A.astype(float))
    H2 = bordered_hadamard_bound_sq(A.astype(float), rows, cols)
    assert all(k * k <= H2 for k in _bordering_minors(A, rows.tolist(), cols.tolist()))


def test_padic_certificate_does_not_stop_at_mod_p():
    """A bordering minor equal to p^3 vanishes mod p, p^2 and p^3: the lifting must catch it at step 4."""
    p = 101
    A = np.array([[1.0, 0.0], [0.0, float(p ** 3)]])
    c = padic_rank_certificate(A, rows=[0], cols=[0], prime=p)
    assert c.lower == 1 and c.upper is None and c.steps == 3
    assert certified_rank(A.astype(int)).value == 2


def test_padic_certificate_refuses_wrong_pivots_and_large_entries():
    rng = np.random.default_rng(3)
    A = (rng.integers(-9, 10, size=(20, 6)) @ rng.integers(-9, 10, size=(6, 25))).astype(float)
    rows, cols = complete_pivoting(A)
    assert len(rows) == 6
    short = padic_rank_certificate(A, rows[:5], cols[:5])
    assert short.lower == 5 and short.upper is None  # five pivots miss rank: the lifting says so
    B = A.copy()
    B[:, 0] = 0.0
    B[:, 1] = 2.0 ** (MAX_ENTRY_BITS + 5)  # entries beyond 2^MAX_ENTRY_BITS: not tried
    assert padic_rank_certificate(B) is None
    with pytest.raises(ValueError, match="not a prime"):
        padic_rank_certificate(A, prime=100)


@given(matrices_with_dependent_columns())
def test_certified_rank_kernel_certificate_closes_small_kernels(A):
    """Columns that are small integer combinations of others: the kernel certificate proves the rank."""
    c, exact = _bracketed(A)
    if c.certified:
        assert c.value == exact
    if "kernel certificate" in c.upper_method:
        assert c.certified


def test_certified_rank_random_primes_defeat_a_matrix_built_against_fixed_ones():
    """Entries divisible by the two fixed primes: rank 0 mod both, rank 2 over Q (entries > 2^53)."""
    P = PRIMES[0] * PRIMES[1]
    A = [[P * 1, P * 2], [P * 3, P * 4]]
    fixed = certified_rank(A, exact="never", primes=PRIMES[:2])
    assert (fixed.lower, fixed.upper, fixed.certified) == (0, 2, False)  # fixed primes: only the interval
    rnd = certified_rank(A, exact="never", seed=1)
    assert rnd.value == 2 and not set(rnd.primes) & set(PRIMES)
    again = certified_rank(A, exact="never", seed=1)
    assert again.primes == rnd.primes  # a seed reproduces the primes


@given(adversarial_integer_matrices())
def test_certified_rank_adversarial_integer_matrices(A):
    """Bounds always bracket the exact rank; when they meet they are the exact rank."""
    c, exact = _bracketed(A)
    if c.certified:
        assert c.value == exact


def test_padic_certificate_needs_exact_blas(monkeypatch):
    """The lifting trusts float64 BLAS on integers below 2^53; the suite checks that once, and
    without it falls back to the other certificates (still correct, slower)."""
    assert P.blas_is_exact()  # this machine's BLAS: exact integer products up to ~2^52
    rng = np.random.default_rng(11)
    A = rng.integers(-9, 10, size=(30, 7)) @ rng.integers(-9, 10, size=(7, 45))
    monkeypatch.setattr(P, "_BLAS_EXACT", False)
    c = certified_rank(A)
    assert c.value == 7 and "p-adic" not in c.upper_method
