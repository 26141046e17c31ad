"""The p-adic lifting's in-place steps (issue 59): BLAS's C <- C - A B and y <- y + a x are exact on integers below
2^53, and the a-priori range argument of :mod:`theorems.exact.padic_rank`'s docstring (which replaced the per-step
range tests) holds on the lifting's actual integers: every digit within x_b, every partial sum below 2^53."""
from __future__ import annotations

import numpy as np
import pytest

import theorems.exact.blas_runtime as R
import theorems.exact.padic_rank as P
from theorems.exact.blas_runtime import UpdateKernels, update_kernels
from theorems.exact.padic_rank import padic_rank_certificate

_EXACT = 2.0 ** 53


@pytest.mark.parametrize("layout", ["F", "C"])
@pytest.mark.parametrize("which", ["process", "numpy"])
def test_update_kernels_are_exact_near_2_to_the_53(which, layout):
    """gemm_sub and axpy give the exact integer results (numpy's int64 arithmetic) with partial sums near 2^52, for
    the process's kernels (BLAS when found) and numpy's, column-major and row-major (the latter takes numpy)."""
    kern = update_kernels() if which == "process" else UpdateKernels(None)
    g = np.random.default_rng(7)
    k, bound = 64, int((2 ** 51 / 64) ** 0.5)
    A, B = g.integers(-bound, bound + 1, size=(30, k)), g.integers(-bound, bound + 1, size=(k, 20))
    C = g.integers(-2 ** 51, 2 ** 51, size=(30, 20))
    A[0], B[:, 0], C[0, 0] = bound, bound, -2 ** 51
    Cf = np.array(C, dtype=np.float64, order=layout)
    kern.gemm_sub(np.array(A, dtype=np.float64, order=layout), np.array(B, dtype=np.float64, order=layout), Cf)
    assert np.array_equal(Cf.astype(np.int64), C - A @ B)
    x, y = g.integers(-2 ** 20, 2 ** 20, size=(30, 20)), g.integers(-2 ** 51, 2 ** 51, size=(30, 20))
    yf = np.array(y, dtype=np.float64, order=layout)
    kern.axpy(-float(2 ** 31 - 1), np.array(x, dtype=np.float64, order=layout), yf)
    assert np.array_equal(yf.astype(np.int64), y - (2 ** 31 - 1) * x)


def test_update_kernels_refuse_a_blas_that_is_not_exact(monkeypatch):
    """A BLAS whose calls do not reproduce the exact integers is not used: numpy's kernels instead."""
    monkeypatch.setattr(R, "_KERNELS", [])
    monkeypatch.setattr(R, "kernels_are_exact", lambda kernels: False)
    assert update_kernels().blas is None
    monkeypatch.setattr(R, "_KERNELS", [])
    monkeypatch.setattr(R, "kernels_are_exact", lambda kernels: True)
    assert (update_kernels().blas is not None) == bool(R.openblas_libraries())


def test_the_blas_kernels_are_used_where_openblas_has_them():
    """Where the loaded OpenBLAS exports the 64-bit CBLAS names (numpy's scipy-openblas64 does), the process's kernels
    are BLAS's, not numpy's: the exactness check passes on a correct BLAS (a gemm that overwrote C instead of
    subtracting from it would fall back to numpy silently, and slowly)."""
    libs = [lib for lib in R.openblas_libraries()
            if any(getattr(lib, p + "cblas_dgemm64_", None) is not None for p in ("scipy_", ""))]
    if not libs:
        pytest.skip("no OpenBLAS with 64-bit CBLAS names loaded: numpy's kernels are the right choice")
    assert update_kernels().blas is not None


def test_a_wrong_gemm_fails_the_exactness_check():
    """kernels_are_exact says no to a product that is off by one somewhere (as a Strassen-type or reduced-precision
    BLAS would be near 2^53), and to an axpy that rounds."""
    real = update_kernels()

    class OffByOne(UpdateKernels):
        def gemm_sub(self, A, B, C):
            real.gemm_sub(A, B, C)
            C[3, 4] += 1.0

    class Rounding(UpdateKernels):
        def axpy(self, a, x, y):
            np.add(y, np.float32(a) * x.astype(np.float32), out=y)

    assert R.kernels_are_exact(UpdateKernels(real.blas))
    assert not R.kernels_are_exact(OffByOne(real.blas))
    assert not R.kernels_are_exact(Rounding(real.blas))


class _Recorder(UpdateKernels):
    """The process's kernels, recording for every gemm_sub(P, X, C) the largest |X| and the bound
    max|C| + max_i sum_l |P_il| max|X| on every partial sum of C - P X (exact Python integers)."""

    def __init__(self, real):
        super().__init__(real.blas)
        self.xmax: list[int] = []
        self.partial: list[int] = []

    def gemm_sub(self, A, B, C):
        xm = int(np.abs(B).max()) if B.size else 0
        self.xmax.append(xm)
        rows = int(np.abs(A).astype(np.int64).sum(axis=1).max()) if A.size else 0
        self.partial.append((int(np.abs(C).max()) if C.size else 0) + rows * xm)
        super().gemm_sub(A, B, C)


@pytest.mark.parametrize("bits,n,d,r,prime", [(20, 40, 30, 12, None), (37, 14, 10, 5, None), (12, 30, 26, 9, 101),
                                              (30, 60, 44, 20, None)])
def test_the_lifting_stays_in_its_proved_range(monkeypatch, bits, n, d, r, prime):
    """The module docstring's induction, on the lifting's actual integers: every digit x_k (the right operand of
    both products) is within x_b = m//2 + 2 and every partial sum of both products is an exact integer below 2^53;
    the certificate closes at the true rank. (Planting t = floor(y / m) for rint, or dropping the rounding of t, turns
    it red: the digits leave x_b.)"""
    rec = _Recorder(update_kernels())
    monkeypatch.setattr(P, "update_kernels", lambda: rec)
    seen = {}
    real_lift = P._lift

    def spy(E, MJ, y, T, m, K, xb, yb):
        seen.update(m=m, xb=xb, yb=yb, K=K)
        return real_lift(E, MJ, y, T, m, K, xb, yb)

    monkeypatch.setattr(P, "_lift", spy)
    g = np.random.default_rng(bits + n)
    h = bits // 2
    Z = (g.integers(-2 ** h, 2 ** h, size=(n, r)) @ g.integers(-2 ** (h - 4), 2 ** (h - 4), size=(r, d)))
    c = padic_rank_certificate(Z.astype(np.float64), prime=prime)
    assert c is not None and c.lower == c.upper == r
    assert rec.xmax and len(rec.xmax) == 2 * seen["K"] * P.lift_threads(max(n, d), r, min(n, d) - r)
    assert max(rec.xmax) <= seen["xb"], (max(rec.xmax), seen)
    assert max(rec.partial) < _EXACT
    assert max(rec.xmax) > seen["m"] // 4      # the digits fill their range: the bound is met, not vacuous


def test_lift_block_reports_a_final_y_outside_its_bound():
    """The final comparison of y_K with Y (a check of the a-priori argument) reports "range" when a caller's Y is
    wrong; with the right Y the same lifting closes."""
    E, MJ = np.zeros((3, 3)), np.zeros((2, 3))
    y = np.full((3, 2), 5.0 * 101)                  # y_0 = 5 m: digit 0 and t = 5, so y_1 = 5
    assert P._lift_block(E, MJ, y.copy(), np.zeros((2, 2)), 101, 1, 52, 4) == (1, "range")
    assert P._lift_block(E, MJ, y.copy(), np.zeros((2, 2)), 101, 1, 52, 5) == (1, None)


def test_lift_block_finds_the_first_step_whose_division_is_not_exact():
    """T_k - M x_k not divisible by m at step k + 1 returns (k, "minor"), k the digits lifted before it (whatever
    the layout of the caller's arrays)."""
    m = 101
    E, MJ = np.zeros((2, 2)), np.ones((1, 2))
    for order in "FC":
        # y = 0: digits 0, so D = T; T = m^2 (divisible twice), then 1 (not divisible): the third division fails
        T = np.array([[float(m * m * (m + 1))]], order=order)   # m^2 (m + 1): divisible twice, then m + 1 is not
        assert P._lift_block(E, MJ, np.zeros((2, 1), order=order), T, m, 5, 52, 10 ** 6) == (2, "minor")
        # a digit that is not 0: y = 3 gives x = 3, M x = 6, so T = 6 is divisible by nothing: (0, "minor")
        assert P._lift_block(E, MJ, np.full((2, 1), 3.0, order=order), np.array([[7.0]], order=order), m, 5, 52,
                             10 ** 6) == (0, "minor")
        # T = 6 + m: T - M x = m, divisible once; then T = 1, x = 0 (t = 0, E x = 0): 1 is not divisible
        assert P._lift_block(E, MJ, np.full((2, 1), 3.0, order=order), np.array([[6.0 + m]], order=order), m, 5,
                             52, 10 ** 6) == (1, "minor")


def test_update_kernels_on_overlapping_operands_compute_from_the_old_values():
    """C overlapping A (a column-major view of A's first columns) and y overlapping x take numpy's path, which
    computes the product or the scaled copy before it writes: the results of the values as they were."""
    kern = update_kernels()
    g = np.random.default_rng(3)
    A = np.asfortranarray(g.integers(-50, 50, size=(6, 6)).astype(np.float64))
    B = np.asfortranarray(g.integers(-50, 50, size=(6, 2)).astype(np.float64))
    expected = A[:, :2] - A @ B
    C = A[:, :2]                                    # F-contiguous, the same memory as A's first two columns
    assert C.flags.f_contiguous and np.shares_memory(C, A)
    kern.gemm_sub(A, B, C)
    assert np.array_equal(A[:, :2], expected)
    x = np.asfortranarray(g.integers(-50, 50, size=(6, 3)).astype(np.float64))
    want = x + 3.0 * x
    kern.axpy(3.0, x, x)
    assert np.array_equal(x, want)
