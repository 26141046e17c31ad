"""The p-adic bordering certificate's parts (issue 35): each is checked against an exact computation.

The inverse modulo q (exact Gauss-Jordan in float64) and its Newton step to q^2 against FLINT;
the determinant and inverse-norm bounds (verified in floating point) against exact rationals; the
Schur bound against every bordering minor; the threaded lifting against the one-thread lifting;
the fallback to exact pivots when float pivots miss rank; and the one ranker
(:func:`theorems.certified_rank.rank_certificate`) with the bounds and flags the full-width norm
analysis passes. All fast and deterministic (profile ``ci``).
"""
from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from property_tests.strategies import integer_matrices_of_rank, matrices_with_pivots
from theorems.certified_rank import MatrixSource, certified_rank, rank_certificate, random_primes
import theorems.padic_rank as P


def _flint_rank(A) -> int:
    A = np.asarray(A)
    M = flint.fmpz_mat(A.astype(np.int64).tolist())
    return int((M if A.shape[0] >= A.shape[1] else M.transpose()).rank())


# ---------------------------------------------------------------- inverse modulo q and q^2

@given(st.integers(1, 40), st.sampled_from([2, 3, 101, 65521, 131071]), st.integers(0, 2 ** 32 - 1),
       st.sampled_from(["random", "low", "zero-block", "sparse"]))
def test_inverse_mod_prime_is_the_inverse_or_singular(r, q, seed, kind):
    """inverse_mod_prime(A, q) is A^{-1} mod q exactly, and None exactly when A is singular mod q
    (FLINT decides); the structured draws need row pivoting inside and across panels."""
    g = np.random.default_rng(seed)
    if kind == "random":
        A = g.integers(-50, 51, size=(r, r))
    elif kind == "low":
        k = max(1, r - 1)
        A = g.integers(-3, 4, size=(r, k)) @ g.integers(-3, 4, size=(k, r))
    elif kind == "zero-block":  # a zero leading block: the first pivots come from far below
        A = g.integers(-5, 6, size=(r, r))
        h = r // 2
        A[:h, :h] = 0
    else:
        A = g.integers(-1, 2, size=(r, r)) * (g.random((r, r)) < 0.2)
        A += np.eye(r, dtype=np.int64)[g.permutation(r)]
    N = flint.nmod_mat(r, r, [int(v) % q for v in A.ravel()], q)
    C = P.inverse_mod_prime(A.astype(float), q, nb=7)  # small panels: several blocks at r = 40
    if int(N.rank()) < r:
        assert C is None
        return
    assert C is not None and C.min() >= 0 and C.max() < q
    assert np.array_equal(np.remainder(C @ np.remainder(A, q), q), np.eye(r))
    C2 = P._inverse_mod_power(A.astype(float), q, 2)
    m = q * q
    assert C2 is not None and np.abs(C2).max() <= m // 2
    CA = C2.astype(np.int64).astype(object) @ A.astype(object)
    assert all((v - (i == j)) % m == 0 for (i, j), v in np.ndenumerate(CA))


def test_inverse_mod_prime_refuses_primes_it_cannot_keep_exact():
    with pytest.raises(ValueError, match="below 2"):
        P.inverse_mod_prime(np.eye(3), 2 ** 26 + 15)


# ---------------------------------------------------------------- bounds verified in floating point

def _det(A) -> int:
    return int(flint.fmpz_mat(np.asarray(A).astype(np.int64).tolist()).det())


@given(st.integers(1, 12), st.integers(0, 2 ** 32 - 1), st.sampled_from([3, 30, 3000, 2 ** 20]))
def test_det_bound_sq_bounds_the_determinant(r, seed, size):
    """det_bound_sq(A) >= det(A)^2 (FLINT) on random, ill-conditioned and singular integer matrices,
    and within a small factor of it on well-conditioned ones (the point of the bound)."""
    g = np.random.default_rng(seed)
    A = g.integers(-size, size + 1, size=(r, r))
    for M in (A, np.vstack([A[:-1], A[:1] + (r > 1)]) if r > 1 else A, A @ A.T // max(1, size)):
        D2 = P.det_bound_sq(M.astype(float))
        if D2 is not None:
            assert D2 >= _det(M) ** 2
    M = A + 4 * size * r * np.eye(r, dtype=np.int64)  # diagonally dominant: well conditioned
    D2 = P.det_bound_sq(M.astype(float))
    if int(np.abs(M).max()) ** 2 * r >= 2 ** 53:
        assert D2 is None  # A^T A would not be exact in float64: no bound, never a wrong one
    else:
        assert D2 is not None and _det(M) ** 2 <= D2 <= 4 * _det(M) ** 2


def test_det_bound_sq_refuses_entries_whose_gram_matrix_is_not_exact():
    assert P.det_bound_sq(np.full((4, 4), 2.0 ** 26)) is None
    assert P.det_bound_sq(np.zeros((0, 0))) == 1


@given(st.integers(1, 8), st.integers(0, 2 ** 32 - 1))
def test_inverse_norm_bound_bounds_the_exact_inverse(r, seed):
    """inverse_norm_bound(A) >= ||A^{-1}||_inf computed in exact rationals; None for singular A."""
    g = np.random.default_rng(seed)
    A = g.integers(-9, 10, size=(r, r))
    N = P.inverse_norm_bound(A.astype(float))
    if _det(A) == 0:
        return
    Q = flint.fmpq_mat(flint.fmpz_mat(A.tolist())).inv()
    exact = max(sum(abs(Fraction(int(Q[i, j].p), int(Q[i, j].q))) for j in range(r)) for i in range(r))
    assert N is None or Fraction(N) >= exact
    S = A.copy()
    S[-1] = S[0] * 2 if r > 1 else 0
    assert P.inverse_norm_bound(S.astype(float)) is None or _det(S) != 0


def _bordering_minors(A, rows, cols):
    n, d = A.shape
    for i in sorted(set(range(n)) - set(rows)):
        for j in sorted(set(range(d)) - set(cols)):
            yield _det(A[np.ix_(list(rows) + [i], list(cols) + [j])])


@given(matrices_with_pivots(min_side=2, max_side=7, max_entry=30))
def test_schur_bound_bounds_every_bordering_minor_at_any_pivots(Apiv):
    """schur_bound_sq >= k^2 for every bordering minor k, for any pivot block (non-singular or not:
    None is allowed, a wrong bound is not); both orientations."""
    A, rows, cols = Apiv
    for M, I, J in ((A, rows, cols), (A.T, cols, rows)):
        S2 = P.schur_bound_sq(M.astype(float), I, J)
        if S2 is not None:
            assert all(k * k <= S2 for k in _bordering_minors(M, I, J)), (M, I, J, S2)


def test_schur_bound_is_sharper_than_hadamard_on_products():
    """On products of small factors |det A| lies far below Hadamard's bound: fewer lifting steps."""
    g = np.random.default_rng(3)
    Z = (g.integers(-9, 10, size=(60, 30)) @ g.integers(-9, 10, size=(30, 50))).astype(float)
    rows, cols = P.gram_pivots(Z)
    assert len(rows) == 30
    S2, H2 = P.schur_bound_sq(Z, rows, cols), P.bordered_hadamard_bound_sq(Z, rows, cols)
    assert S2 is not None and S2.bit_length() < 0.95 * H2.bit_length()
    assert all(k * k <= S2 for k in list(_bordering_minors(Z.astype(np.int64), rows, cols))[:40])


# ---------------------------------------------------------------- the lifting

def test_threaded_lifting_matches_one_thread_and_sees_every_block(monkeypatch):
    """Column blocks on two threads give the same certificate as one thread; a single non-zero
    bordering minor in the last column (the second block) is found, at the same step."""
    g = np.random.default_rng(9)
    Z = (g.integers(-9, 10, size=(90, 25)) @ g.integers(-9, 10, size=(25, 70))).astype(float)
    rows, cols = P.gram_pivots(Z)
    bad = Z.copy()
    j = max(set(range(70)) - set(cols.tolist()))
    i = max(set(range(90)) - set(rows.tolist()))
    bad[i, j] += 1.0  # the bordering minor at (i, j) becomes +-det A != 0: rank 26
    out = {}
    for threads in (1, 2):
        monkeypatch.setattr(P, "LIFT_THREADS", threads)
        monkeypatch.setattr(P, "_THREAD_MIN_WORK", 0)
        good = P.padic_rank_certificate(Z, rows, cols)
        wrong = P.padic_rank_certificate(bad, rows, cols)
        out[threads] = (good.upper, good.steps, good.modulus, wrong.upper, wrong.steps)
    assert out[1] == out[2]
    assert out[1][0] == 25 and out[1][3] is None and out[1][4] == 0


@settings(max_examples=40)
@given(integer_matrices_of_rank(min_side=2, max_side=9, min_rank=1, entry_bits=(3, 12)), st.data())
def test_a_changed_entry_outside_the_pivots_is_always_caught(Ar, data):
    """Adding t * m^s to one entry outside the pivot block changes one bordering minor by
    +-t m^s det A: never proved zero (the lifting stops at digit s or the rank is certified higher)."""
    A, _ = Ar
    Z = A.astype(float)
    rows, cols = P.gram_pivots(Z)
    c = P.padic_rank_certificate(Z, rows, cols)
    if c is None or c.upper is None or c.modulus == 0 or len(rows) == min(A.shape):
        return
    i = data.draw(st.sampled_from(sorted(set(range(A.shape[0])) - set(rows.tolist()))), label="i")
    j = data.draw(st.sampled_from(sorted(set(range(A.shape[1])) - set(cols.tolist()))), label="j")
    s = data.draw(st.integers(0, 2), label="s")
    B = A.copy()
    B[i, j] += c.modulus ** s if c.modulus ** s < 2 ** 39 else 1
    c2 = P.padic_rank_certificate(B.astype(float), rows, cols, prime=None)
    exact = _flint_rank(B)
    assert exact == len(rows) + 1
    assert c2 is None or c2.upper is None


def test_float_pivots_that_miss_rank_fall_back_to_exact_pivots():
    """Rows of size 2^35 and one independent row of size 1: the Gram pivots do not see the small row
    (below their tolerance), the lifting refutes them, and exact pivots mod a prime close the rank."""
    g = np.random.default_rng(4)
    U = g.integers(-9, 10, size=(30, 6)) * 2 ** 30
    A = U @ g.integers(-9, 10, size=(6, 40))
    A = np.vstack([A, g.integers(-1, 2, size=(1, 40))])
    rows, cols = P.gram_pivots(A.astype(float))
    assert len(rows) == 6  # the heuristic misses the small row
    c = certified_rank(A, exact="never", seed=0)
    assert c.value == 7 == _flint_rank(A) and "p-adic bordering certificate" in c.upper_method


# ---------------------------------------------------------------- the one ranker, as norm_exact calls it

@given(integer_matrices_of_rank(min_side=2, max_side=12, entry_bits=(3,)), st.data())
def test_rank_certificate_with_caller_bounds_brackets_the_exact_rank(Ar, data):
    """Any proved bounds lo <= rank <= hi and either lo_is_mod_p flag: the result contains the exact
    rank and is it when closed, with and without the exact fallback."""
    A, _ = Ar
    exact = _flint_rank(A)
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1), label="seed"))
    lo = data.draw(st.integers(0, exact), label="lo")
    hi = data.draw(st.integers(exact, min(A.shape) + 2), label="hi")
    flag = data.draw(st.booleans(), label="lo_is_mod_p")
    mode = data.draw(st.sampled_from(["auto", "never"]), label="exact")
    r = rank_certificate(MatrixSource("int", A), primes=random_primes(3, rng), rng=rng, lo=lo, hi=hi,
                         lo_how="caller", lo_is_mod_p=flag, exact=mode, kernel_max_entries=50)
    assert r.lower <= exact <= r.upper and lo <= r.lower
    if mode == "auto":
        assert r.certified
    if r.certified:
        assert r.value == exact


def test_rank_certificate_refuses_a_wrong_bound_and_a_proved_lower_bound_above_it():
    g = np.random.default_rng(2)
    A = g.integers(-9, 10, size=(8, 3)) @ g.integers(-9, 10, size=(3, 9))
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="structural bound you supplied is wrong"):
        rank_certificate(MatrixSource("int", A), primes=random_primes(2, rng), rng=rng, hi=2)
    with pytest.raises(ValueError, match="structural bound you supplied is wrong"):
        rank_certificate(MatrixSource("int", A), primes=random_primes(2, rng), rng=rng, lo=4, hi=3)
    r = rank_certificate(MatrixSource("int", A), primes=random_primes(2, rng), rng=rng, lo=3, hi=3)
    assert r.value == 3 and r.upper_method == "structural bound supplied by the caller"


def test_a_submatrix_rank_mod_p_closes_against_a_small_bound():
    """A wide matrix with a bound far below min(n, d): a random submatrix's rank mod p is enough."""
    g = np.random.default_rng(5)
    A = g.integers(-9, 10, size=(200, 10)) @ g.integers(-9, 10, size=(10, 300))
    rng = np.random.default_rng(1)
    r = rank_certificate(MatrixSource("int", A), primes=random_primes(2, rng), rng=rng, hi=10)
    assert r.value == 10 and "submatrix" in r.method
