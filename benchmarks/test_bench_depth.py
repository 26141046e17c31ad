"""Benchmarks (``make bench``): the depth study and the certified witnesses.

Targets are recorded here and in book/reference/performance.md; they are not
asserted in ``make test`` (the machine has 2 noisy cores). Each figure is shown
next to a baseline measured in the same run.
"""
from __future__ import annotations

import mpmath
import pytest

from proofs_numeric.core.transformer import layer_norm, mha, workdps
from proofs_numeric.witnesses.dong_collapse import ARCHITECTURES, DepthConfig, float64_run, mp_run, run
from proofs_numeric.witnesses.rank_neutrality import witness as rn_witness
from proofs_numeric.witnesses.residual_obstruction import random_heads, witness, x_star

RN_X = [[0, 2, -2], [1, 1, -2], [2, 0, -2]]

pytestmark = pytest.mark.benchmark


@pytest.mark.parametrize("regime", ARCHITECTURES)
def test_bench_depth_study_1000_digits(benchmark, regime):
    """12 layers, n = 8, d = 6 (H = 2, d_k = 3) at 1000 digits; target <= 30 s for the whole study."""
    cfg = DepthConfig(n=8, d=6, H=2, d_k=3, layers=12, dps=1000)
    benchmark.extra_info["baseline"] = f"test_bench_depth_study_mpmath_baseline[{regime}]"
    r = benchmark.pedantic(run, args=(cfg, regime), rounds=1, iterations=1)
    assert len(r["layers"]) == 13


@pytest.mark.parametrize("regime", ARCHITECTURES)
def test_bench_depth_study_mpmath_baseline(benchmark, regime):
    """The same network in plain mpmath ``mp`` at 1000 digits (uncertified, loses the residual)."""
    cfg = DepthConfig(n=8, d=6, H=2, d_k=3, layers=12, dps=1000)
    rhos = benchmark.pedantic(mp_run, args=(cfg, regime), rounds=1, iterations=1)
    assert len(rhos) == 13


def test_bench_depth_study_float64_baseline(benchmark):
    """The same pure-attention network in float64 (the uncertified baseline)."""
    benchmark(float64_run, DepthConfig(n=8, d=6, H=2, d_k=3, layers=12), "pure_attention")


@pytest.mark.parametrize("dps", [50, 1000])
def test_bench_residual_witness(benchmark, dps):
    """Certified rank of X*_1 + MHA(X*_1), n = 4, d = 6, H = 2, d_k = 3."""
    benchmark.extra_info["baseline"] = f"test_bench_residual_mpmath_baseline[{dps}]"
    w = benchmark.pedantic(witness, args=(4, 6, 2, 3, 1), kwargs={"dps": dps}, rounds=1, iterations=1)
    assert w["certified"]


@pytest.mark.parametrize("dps", [50, 1000])
def test_bench_rank_neutrality_witness(benchmark, dps):
    benchmark.extra_info["baseline"] = f"test_bench_rank_neutrality_mpmath_baseline[{dps}]"
    benchmark.pedantic(rn_witness, args=(RN_X,), kwargs={"dps": dps}, rounds=1, iterations=1)


def _mp_singular_values(M, dps):
    with workdps(mpmath.mp, dps):
        return mpmath.svd_r(mpmath.matrix(M), compute_uv=False)


@pytest.mark.parametrize("dps", [50, 1000])
def test_bench_residual_mpmath_baseline(benchmark, dps):
    """The same F(X*_1) in plain mpmath ``mp`` at the same digits, singular values by mpmath SVD."""
    def run_mp():
        X = x_star(4, 6, 1)
        with workdps(mpmath.mp, dps):
            F = mpmath.matrix(X.tolist()) + mha(X, random_heads(6, 2, 3, 0), backend="mp", dps=dps)
        return _mp_singular_values(F, dps)
    s = benchmark.pedantic(run_mp, rounds=1, iterations=1)
    assert len(s) == 4


@pytest.mark.parametrize("dps", [50, 1000])
def test_bench_rank_neutrality_mpmath_baseline(benchmark, dps):
    """LN of the same 3 x 3 input in plain mpmath ``mp``, singular values of [LN(X) | 1] by SVD."""
    def run_mp():
        Y = layer_norm(RN_X, backend="mp", dps=dps)
        with workdps(mpmath.mp, dps):
            return _mp_singular_values([list(row) + [mpmath.mpf(1)] for row in Y], dps)
    s = benchmark.pedantic(run_mp, rounds=1, iterations=1)
    assert len(s) == 3
