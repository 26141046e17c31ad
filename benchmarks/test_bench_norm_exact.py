"""Exact LayerNorm analysis at full width (issue 20), each figure next to numpy's float computation.

``theorems.exact.norm_exact.analyse_array`` decides H1-H4, rank and affine rank of X and LN(X) exactly.
The baseline computes the same quantities in float64 with numpy, uncertified: ``matrix_rank`` of
X, [X; 1^T], [X | 1] and XP, and the least-squares residual of sigma against col(XP). Targets of
the issue are end to end through the CLI (start-up included, < 5 s); here the ratio exact / float
is recorded in the same run. Both run with one BLAS thread (``norm_exact`` uses BLAS only in the
p-adic lifting, and pins it to one thread: on this shared 2-core machine two OpenBLAS threads made
both the lifting and numpy's SVDs several times slower under load), so the ratio compares
like with like.
"""
from __future__ import annotations

import numpy as np
import pytest

from theorems.exact.norm_exact import analyse_array, single_threaded_blas

pytestmark = pytest.mark.benchmark
_rng = np.random.default_rng(20)


def _full(n, d):
    return _rng.normal(size=(n, d))


def _rank200(n, d):
    """Exact rank 200: integer factors in [-9, 9], the product stored as float64 (exact)."""
    return (_rng.integers(-9, 10, size=(n, 200)) @ _rng.integers(-9, 10, size=(200, d))).astype(np.float64)


CASES = {
    "512x768-full": _full(512, 768),
    "1024x768-full": _full(1024, 768),
    "512x768-rank200": _rank200(512, 768),
    "1024x768-rank200": _rank200(1024, 768),
    "512x768-float32": _rng.normal(0, 0.02, size=(512, 768)).astype(np.float32),
}
EXPECTED_RANK = {"512x768-full": 512, "1024x768-full": 768, "512x768-rank200": 200, "1024x768-rank200": 200,
                 "512x768-float32": 512}


def numpy_float_analysis(X: np.ndarray) -> dict:
    """The same quantities in float64 (uncertified): what a numpy user would compute."""
    with single_threaded_blas():
        return _numpy_float_analysis(np.asarray(X, dtype=np.float64))


def _numpy_float_analysis(X: np.ndarray) -> dict:
    n, d = X.shape
    mr = np.linalg.matrix_rank
    Xt = X - X.mean(axis=1, keepdims=True)
    sigma = np.sqrt((Xt * Xt).mean(axis=1))
    coef, *_ = np.linalg.lstsq(Xt, sigma, rcond=None)
    residual = float(np.linalg.norm(Xt @ coef - sigma) / np.linalg.norm(sigma))
    return {"rank_X": mr(X), "rank_[X;1]": mr(np.vstack([X, np.ones((1, d))])),
            "rank_[X|1]": mr(np.hstack([X, np.ones((n, 1))])), "rank_Xt": mr(Xt), "sigma_residual": residual}


@pytest.mark.parametrize("case", list(CASES))
def test_bench_norm_exact_analyse_array(benchmark, case):
    benchmark.extra_info["baseline"] = f"test_bench_norm_exact_numpy_float_baseline[{case}]"
    a = benchmark.pedantic(analyse_array, args=(CASES[case],), kwargs={"seed": 0}, rounds=3, iterations=1)
    assert a.rank_X == EXPECTED_RANK[case]
    assert all(v is not None for v in a.hypotheses.values()) and a.arank_LN_X is not None and a.rank_LN_X is not None
    benchmark.extra_info["rank_X_seconds"] = a.certificates["rank_X"]["seconds"]


@pytest.mark.parametrize("case", list(CASES))
def test_bench_norm_exact_numpy_float_baseline(benchmark, case):
    benchmark.pedantic(numpy_float_analysis, args=(CASES[case],), rounds=3, iterations=1)
