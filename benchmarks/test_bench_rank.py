"""Certified rank benchmarks (``make bench``), each next to its baseline in the same run.

Targets (issue 8): a full-rank 512 x 768 float64 matrix certified no slower than numpy's
(uncertified) ``matrix_rank``; a 512 x 768 integer matrix of rank 300: both bounds, instant with
a structural upper bound; the exact W_O ranks of all-MiniLM-L6-v2 (384 x 384) under a second.
"""
from __future__ import annotations

import numpy as np
import pytest

from theorems.linalg import certified_rank

pytestmark = pytest.mark.benchmark
rng = np.random.default_rng(0)
FULL = {s: rng.normal(size=s) for s in [(64, 64), (256, 256), (512, 768)]}
_U, _V = rng.integers(-9, 10, size=(512, 300)), rng.integers(-9, 10, size=(300, 768))
DEFICIENT = _U @ _V


@pytest.mark.parametrize("shape", list(FULL), ids=lambda s: f"{s[0]}x{s[1]}")
def test_bench_certified_rank_full_float(benchmark, shape):
    r = benchmark(certified_rank, FULL[shape])
    assert r.certified


@pytest.mark.parametrize("shape", list(FULL), ids=lambda s: f"{s[0]}x{s[1]}")
def test_bench_numpy_matrix_rank_baseline(benchmark, shape):
    benchmark(np.linalg.matrix_rank, FULL[shape])


def test_bench_certified_rank_deficient_structural_bound(benchmark):
    r = benchmark.pedantic(certified_rank, args=(DEFICIENT,), kwargs={"upper_bound": 300}, rounds=3, iterations=1)
    assert r.certified and r.value == 300


def test_bench_certified_rank_deficient_lower_bound_only(benchmark):
    r = benchmark.pedantic(certified_rank, args=(DEFICIENT,), kwargs={"exact": "never"}, rounds=3, iterations=1)
    assert r.lower == 300


def test_bench_certified_rank_deficient_exact_fraction_free(benchmark):
    r = benchmark.pedantic(certified_rank, args=(DEFICIENT,), kwargs={"exact": "always"}, rounds=1, iterations=1)
    assert r.certified and r.value == 300


def test_bench_sympy_domainmatrix_rank_baseline(benchmark):
    """sympy DomainMatrix rank with flint ground types on the same 512 x 768 rank-300 matrix (slow)."""
    from sympy import ZZ
    from sympy.polys.matrices import DomainMatrix
    dM = DomainMatrix([[ZZ(int(v)) for v in row] for row in DEFICIENT.tolist()], DEFICIENT.shape, ZZ)
    r = benchmark.pedantic(lambda: dM.to_dfm().rep.rank() if hasattr(dM, "to_dfm") else dM.rank(), rounds=1, iterations=1)
    assert r == 300


def test_bench_sympy_small_baseline(benchmark):
    from sympy import ZZ
    from sympy.polys.matrices import DomainMatrix
    A = rng.integers(-9, 10, size=(64, 64))
    dM = DomainMatrix([[ZZ(int(v)) for v in row] for row in A.tolist()], A.shape, ZZ)
    benchmark.pedantic(dM.rank, rounds=3, iterations=1)


def test_bench_certified_rank_minilm_shaped_w_o(benchmark):
    """A 384 x 384 float32 matrix (the shape of all-MiniLM-L6-v2's W_O), taken exactly."""
    W = rng.normal(0, 0.05, size=(384, 384)).astype(np.float32).astype(np.float64)
    r = benchmark(certified_rank, W)
    assert r.certified
