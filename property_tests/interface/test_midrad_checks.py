"""Above the size the mpmath interval checks accept (n d > 4096), RRO.main and RC.rank-equals-sum are decided on
double-precision midpoint-radius enclosures on BLAS (issue 59): no size refusal; a minor counts only when it is proved
non-singular over the whole enclosure (:func:`proofs_numeric.core.certify.midrad_nonsingular`)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proofs_numeric.cli import main
from proofs_numeric.core.certify import MAX_INTERVAL_ENTRIES, midrad_nonsingular, midrad_rank_lower_bound
from theorems.exact.linalg import rank
from theorems.exact.transformer import Midrad


def test_midrad_nonsingular_is_false_when_the_enclosure_holds_a_singular_matrix():
    """diag(1, 1e-6) is non-singular, but the box of radius 2e-6 around it holds diag(1, 0): not proved. The same
    box of radius 1e-7 holds none: proved. (Planted: the test on the midpoints alone, radii dropped: red here.)"""
    m = np.diag([1.0, 1e-6])
    assert midrad_nonsingular(Midrad(m, np.full((2, 2), 1e-7)))
    assert not midrad_nonsingular(Midrad(m, np.full((2, 2), 2e-6)))
    assert not midrad_nonsingular(Midrad(np.array([[1.0, 2.0], [2.0, 4.0]])))  # singular midpoint, radius 0
    assert midrad_nonsingular(Midrad(np.zeros((0, 0))))


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12), st.integers(0, 6), st.integers(0, 2**31 - 1),
       st.sampled_from([0.0, 1e-12, 1e-3]))
def test_midrad_rank_lower_bound_never_exceeds_the_rank_of_a_matrix_in_the_enclosure(n, d, r, seed, radius):
    """The certified lower bound is at most the exact rank of the midpoint matrix (an integer matrix of rank <= r,
    a member of the enclosure), whatever the radius; with radius 0 and rank r it is r (pivoting finds the minor)."""
    rng = np.random.default_rng(seed)
    m = (rng.integers(-3, 4, size=(n, r)) @ rng.integers(-3, 4, size=(r, d))).astype(np.float64)
    exact = rank(__import__("sympy").Matrix(m.astype(int).tolist())) if m.size else 0
    got = midrad_rank_lower_bound(Midrad(m, np.full(m.shape, radius)), min(n, d))
    assert got["lower"] <= exact
    if radius == 0.0:
        assert got["lower"] == exact


def test_midrad_rank_lower_bound_of_a_rank_deficient_enclosure_is_proved_by_compression_at_its_numerical_rank(
        monkeypatch):
    """A 200 x 120 matrix of rank 40 with small radii: rank >= 40 proved through a 40 x 40 compression chosen by the
    midpoints' numerical rank, without complete pivoting (0.6 s a call at model size). (Planted: the numerical-rank
    try removed: pivoting is called, red here.)"""
    import proofs_numeric.core.certify as C
    rng = np.random.default_rng(3)
    m = rng.normal(size=(200, 40)) @ rng.normal(size=(40, 120))

    def no_pivoting(*a, **k):
        raise AssertionError("complete pivoting was called")
    monkeypatch.setattr(C, "complete_pivoting", no_pivoting)
    got = midrad_rank_lower_bound(Midrad(m, np.full(m.shape, 1e-14)), 120)
    assert got["lower"] == 40 and "G1 M G2 (40 x 40" in got["how"]


def test_midrad_rank_lower_bound_drops_exact_zero_columns_and_maps_the_minor_back(monkeypatch):
    """A 200 x 101 enclosure of rank 100 (singular values 1 .. 1e-3, radius 1e-9) whose last column has zero
    midpoints (W_O with folded biases: only the underflow term in its radius): rank >= 100 by compression of the 100
    live columns, no pivoting; a square Gaussian compression through the zero column fails here. With the
    compression refused, the pivoted minor's columns are the original indices (never the zero column). (Planted: no
    dropping: pivoting is called, red here.)"""
    import proofs_numeric.core.certify as C
    rng = np.random.default_rng(5)
    U, _ = np.linalg.qr(rng.normal(size=(200, 100)))
    V, _ = np.linalg.qr(rng.normal(size=(100, 100)))
    live = U @ np.diag(np.logspace(0, -3, 100)) @ V.T
    m = np.hstack([live, np.zeros((200, 1))])
    r = np.hstack([np.full((200, 100), 1e-9), np.full((200, 1), 1e-300)])  # the products' underflow term
    assert C.rank_by_compression(Midrad(m, r), 100) is None  # the mixing the dropping avoids
    real = C.complete_pivoting

    def no_pivoting(*a, **k):
        raise AssertionError("complete pivoting was called")
    monkeypatch.setattr(C, "complete_pivoting", no_pivoting)
    assert midrad_rank_lower_bound(Midrad(m, r), 100)["lower"] == 100
    monkeypatch.setattr(C, "complete_pivoting", real)
    monkeypatch.setattr(C, "rank_by_compression", lambda M, k: None)
    m2, r2 = np.hstack([np.zeros((200, 1)), m]), np.hstack([np.full((200, 1), 1e-300), r])  # the indices shift
    got = midrad_rank_lower_bound(Midrad(m2, r2), 100)
    assert got["lower"] == 100 and 0 not in got["minor_cols"] and max(got["minor_cols"]) == 100


def _check_json(claim: str, X: np.ndarray, tmp_path, capsys) -> list[dict]:
    p = tmp_path / "X.npy"
    np.save(p, X)
    capsys.readouterr()
    assert main(["check", claim, "--X", str(p), "--heads", "2", "--prime-seed", "0", "--json"]) == 0
    return json.loads(capsys.readouterr().out)["claims"][0]["readings"]


def test_rro_main_above_the_interval_size_is_decided_on_midrad_enclosures(tmp_path, capsys):
    """X of 80 x 64 (5120 entries, above MAX_INTERVAL_ENTRIES), rank 3 exactly, two seeded heads: the rank rises
    (certified: rank F(X) >= 9 = 3 + 2 * 3 > 3) in the literal, for-all-weights and trained-model readings; no size
    refusal. (Planted: rank_rises answering undecided at this size, as before: red here.)"""
    rng = np.random.default_rng(1)
    X = (rng.integers(-3, 4, size=(80, 3)) @ rng.integers(-3, 4, size=(3, 64))).astype(np.float64)
    assert X.size > MAX_INTERVAL_ENTRIES
    readings = _check_json("RRO.main", X, tmp_path, capsys)
    decided = [r for r in readings if r.get("conclusion")]
    assert len(decided) >= 3
    for r in decided:
        assert r["conclusion"]["value"] == "holds", r["conclusion"]
        assert "rank F(X) >= 9 > rank X = 3" in r["conclusion"]["how"] and "midpoint-radius" in r["conclusion"]["how"]
        assert "not checked" not in json.dumps(r)


@pytest.mark.slow
def test_rc_rank_equals_sum_above_the_interval_size_is_decided_on_midrad_enclosures(tmp_path, capsys):
    """RC.rank-equals-sum on a generic 80 x 64 X (above the size): built and decided (rank MHA = dim sum R_h = 64,
    certified by minors of the midpoint-radius enclosures), not refused. (Planted: the size refusal kept: red.)"""
    X = np.random.default_rng(1).normal(size=(80, 64))
    readings = _check_json("RC.rank-equals-sum", X, tmp_path, capsys)
    lit = readings[0]
    assert lit["conclusion"]["value"] == "holds", lit
    assert "rank MHA = 64" in lit["conclusion"]["how"] and "midpoint-radius" in lit["conclusion"]["how"]


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 4), st.integers(1, 3), st.integers(0, 3), st.integers(0, 2**31 - 1))
def test_sum_rank_lower_is_the_stack_rank_from_each_heads_pivot_rows(H, r, shared, seed):
    """dim(R_1 + ... + R_H) from the stacked head terms T_h = U_h V_h (integer, each of rank r, the V_h sharing
    ``shared`` rows, so the stack's exact rank is known): the bound is never above the exact rank of the stack (a
    member of the enclosure), reaches it, and when the heads' rows are independent (shared = 0) one call on H r pivot
    rows settles it. (Planted: the row offset i n of head i dropped, so every head's pivots index head 0's rows: the
    fast path fails and the whole stack is tried, two calls: red here; returning ``upper`` unproved: red on the
    shared rows.)"""
    from proofs_numeric.witnesses.rank_contraction import sum_rank_lower
    rng = np.random.default_rng(seed)
    n, d = 9, 4 * H + 2
    common = rng.integers(-3, 4, size=(shared, d))
    terms = []
    for _ in range(H):
        own = rng.integers(-3, 4, size=(r - min(r, shared), d))
        V = np.vstack([common[:min(r, shared)], own])
        terms.append((rng.integers(-3, 4, size=(n, r)) @ V).astype(np.float64))
    stack = np.vstack(terms)
    exact = rank(__import__("sympy").Matrix(stack.astype(int).tolist()))
    ranks = [int(np.linalg.matrix_rank(T)) for T in terms]
    upper = min(d, sum(ranks))
    calls = []

    def lower(M, up):
        calls.append(M.shape)
        return midrad_rank_lower_bound(M, up)["lower"]
    got = sum_rank_lower([Midrad(T) for T in terms], ranks, upper, lower)
    assert got <= exact
    assert got == exact
    if shared == 0 and exact == upper:
        assert calls == [(sum(ranks), d)]
