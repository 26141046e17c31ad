"""End-to-end and generator throughput benchmarks (``make bench``)."""
from __future__ import annotations

import time

import pytest
from hypothesis import given, settings

from proofs_numeric.ledger import registry
from property_tests import strategies as S
from theorems.framework import CheckContext, run_claim

pytestmark = pytest.mark.benchmark


def test_bench_verify_end_to_end(benchmark):
    """``collapse-verify verify`` over every registered claim (quick=False, 50 digits)."""

    def run_all():
        return [run_claim(c, CheckContext(dps=50)).verdict for c in registry()]
    verdicts = benchmark.pedantic(run_all, rounds=1, iterations=1)
    assert "refuted" in verdicts


@pytest.mark.parametrize("name", ["ln_inputs", "ln_inputs_meeting_all_hypotheses", "token_matrices"])
def test_bench_hypothesis_examples_per_second(benchmark, name):
    strat = getattr(S, name)()
    count = {"n": 0}

    @settings(max_examples=200, deadline=None, database=None)
    @given(strat)
    def draw(x):
        count["n"] += 1

    def run():
        count["n"] = 0
        t = time.perf_counter()
        draw()
        return count["n"] / (time.perf_counter() - t)
    rate = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info["examples_per_second"] = rate
    assert rate > 0
