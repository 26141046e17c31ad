"""The midpoint-radius forward of one MiniLM layer against the arb forward of the same layer (issue 59; ``make bench``).

Both run :func:`proofs_numeric.model.network.forward_enclosures` on the packaged all-MiniLM-L6-v2 (d = 384, H = 12,
d_ff = 1536) at 128 tokens (seeded random ids between [CLS] and [SEP]) for one layer: the embeddings, their LayerNorm,
then layer 0's attention, LayerNorm and FFN, every operation enclosed. ``arb`` is today's forward (python-flint balls
at 50 digits, entry by entry); ``midrad`` the midpoint-radius context on BLAS. The ratio is printed by ``conftest.py``
(same run; target <= 1/20). The arb run is one round (minutes); the figure records its site times beside.

Every arb enclosure at the two sites of the layer must lie inside the midpoint-radius enclosure (checked here on the
results of the timed runs, exact comparisons), and the largest radius of each is recorded.
"""
from __future__ import annotations

import flint
import numpy as np
import pytest

from proofs_numeric.model import network as NW
from proofs_numeric.model import service

pytestmark = pytest.mark.benchmark

TOKENS = 128
_OUT: dict = {}


@pytest.fixture(scope="module")
def minilm():
    if not service.available():
        pytest.skip("the packaged model is not installed (make venv installs it)")
    return service.load()


def _ids(n: int = TOKENS) -> list[int]:
    rng = np.random.default_rng(0)
    return [101] + rng.integers(1000, 20000, size=n - 2).tolist() + [102]


def _forward(m, arithmetic: str) -> list:
    return list(NW.forward_enclosures(m, _ids(), 1, arithmetic=arithmetic))


def _inside(mr, ab: flint.arb_mat) -> int:
    """How many arb balls are not inside the midpoint-radius enclosure (exact comparisons)."""
    lo, hi = mr.bounds()
    ents = ab.entries()
    bad = 0
    old = flint.ctx.prec
    flint.ctx.prec = 256
    try:
        for b, a, z in zip(ents, lo.ravel().tolist(), hi.ravel().tolist()):
            if not (flint.arb(a) <= b.lower() and b.upper() <= flint.arb(z)):
                bad += 1
    finally:
        flint.ctx.prec = old
    return bad


def test_bench_midrad_layer_arb_baseline(benchmark, minilm):
    """Today's arb forward of one layer at 128 tokens (the baseline)."""
    benchmark.extra_info["as_baseline"] = "midrad / arb forward of one MiniLM layer"
    out = benchmark.pedantic(_forward, args=(minilm, "arb"), rounds=1, iterations=1)
    _OUT["arb"] = out
    for where, _, X, _, secs in out:
        benchmark.extra_info[f"seconds {where}"] = secs
        benchmark.extra_info[f"max radius {where}"] = NW.radius_stats(X)["max_radius"]


def test_bench_midrad_layer(benchmark, minilm):
    """The midpoint-radius forward of the same layer; every arb ball of the baseline's run inside it."""
    benchmark.extra_info["baseline"] = "test_bench_midrad_layer_arb_baseline"
    benchmark.extra_info["target_ratio"] = 0.05
    out = benchmark.pedantic(_forward, args=(minilm, "midrad"), rounds=3, iterations=1)
    for where, _, X, _, secs in out:
        benchmark.extra_info[f"seconds {where}"] = secs
        benchmark.extra_info[f"max radius {where}"] = float(X.r.max())
    if "arb" in _OUT:
        for (where, _, X, _, _), (w2, _, A, _, _) in zip(out, _OUT["arb"]):
            assert where == w2
            assert _inside(X, A) == 0, f"{where}: arb balls outside the midpoint-radius enclosure"
