"""Benchmarks (``make bench``): the depth study and the certified witnesses.

Targets are recorded here and in README's performance section; they are not
asserted in ``make test`` (the machine has 2 noisy cores). Each figure is shown
next to a baseline measured in the same run.
"""
from __future__ import annotations

import pytest

from proofs_numeric.depth import REGIMES, DepthConfig, run
from proofs_numeric.residual_obstruction import witness

pytestmark = pytest.mark.benchmark


@pytest.mark.parametrize("regime", REGIMES)
def test_bench_depth_study_1000_digits(benchmark, regime):
    """12 layers, n = 8, d = 6 (H = 2, d_k = 3) at 1000 digits; target <= 30 s for the whole study."""
    cfg = DepthConfig(n=8, d=6, H=2, d_k=3, layers=12, dps=1000)
    r = benchmark.pedantic(run, args=(cfg, regime), rounds=1, iterations=1)
    assert len(r["layers"]) == 13


def test_bench_depth_study_float64_baseline(benchmark):
    """The same pure-attention network in float64 (the uncertified baseline)."""
    from proofs_numeric.depth import float64_run
    benchmark(float64_run, DepthConfig(n=8, d=6, H=2, d_k=3, layers=12), "pure_attention")


@pytest.mark.parametrize("dps", [50, 1000])
def test_bench_residual_witness(benchmark, dps):
    """Certified rank of X*_1 + MHA(X*_1), n = 4, d = 6, H = 2, d_k = 3."""
    w = benchmark.pedantic(witness, args=(4, 6, 2, 3, 1), kwargs={"dps": dps}, rounds=1, iterations=1)
    assert w["certified"]


@pytest.mark.parametrize("dps", [50, 1000])
def test_bench_rank_neutrality_witness(benchmark, dps):
    from proofs_numeric.rank_neutrality import witness as rn_witness
    benchmark.pedantic(rn_witness, args=([[0, 2, -2], [1, 1, -2], [2, 0, -2]],), kwargs={"dps": dps},
                       rounds=1, iterations=1)
