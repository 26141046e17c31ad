"""Symmetries of attention and LayerNorm, and what breaks them."""
from __future__ import annotations

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from proofs_numeric.core.transformer import Head, layer_norm, mha
from proofs_numeric.witnesses.symmetries import witness
from property_tests._search import find_from_scratch
from property_tests.strategies import attention_setups, float_vectors

_TOL = 1e-9  # float64 MHA of O(1) data through two matrix products and a softmax

@given(attention_setups())
def test_symmetries_head_permutation(s):
    assert np.allclose(mha(s.X, s.heads[::-1]), mha(s.X, s.heads), atol=_TOL)


@given(attention_setups())
def test_symmetries_value_output_gauge(s):
    M = s.gauge_v
    g = [Head(h.W_Q, h.W_K, h.W_V @ M, np.linalg.solve(M, h.W_O)) for h in s.heads]
    assert np.allclose(mha(s.X, g), mha(s.X, s.heads), atol=1e-7)


@given(attention_setups())
def test_symmetries_query_key_gauge(s):
    N = s.gauge_qk
    g = [Head(h.W_Q @ N, h.W_K @ np.linalg.inv(N).T, h.W_V, h.W_O) for h in s.heads]
    assert np.allclose(mha(s.X, g), mha(s.X, s.heads), atol=1e-7)


@given(attention_setups())
def test_symmetries_token_permutation_equivariance(s):
    P = np.eye(s.X.shape[0])[s.perm]
    assert np.allclose(mha(P @ s.X, s.heads), P @ mha(s.X, s.heads), atol=_TOL)


def _swap_first_two(n):
    return np.eye(n)[[1, 0] + list(range(2, n))]


@given(attention_setups(min_n=3))
def test_symmetries_positional_encoding_keeps_equivariance_when_positions_coincide(s):
    """Swapping tokens 0 and 1 commutes with X -> MHA(X + Pos) whenever Pos[0] = Pos[1], for every draw."""
    Pos = s.positions.copy()
    Pos[1] = Pos[0]
    P = _swap_first_two(s.X.shape[0])
    f = lambda Y: mha(Y + Pos, s.heads)
    assert np.allclose(f(P @ s.X), P @ f(s.X), atol=_TOL)


def test_symmetries_positional_encoding_breaks_equivariance():
    """... and distinct positions break it: a search from scratch finds a drawn instance where it fails
    (breaking is generic, not universal: zero weights, for one, keep it)."""
    def broken(s):
        P = _swap_first_two(s.X.shape[0])
        f = lambda Y: mha(Y + s.positions, s.heads)
        return not np.allclose(f(P @ s.X), P @ f(s.X), atol=1e-6)
    s = find_from_scratch(attention_setups(min_n=3), broken)
    assert broken(s) and not np.allclose(s.positions[0], s.positions[1])


@given(float_vectors(min_size=3, max_size=6, max_value=2), st.floats(0.01, 100), st.floats(-2, 2))
def test_symmetries_layernorm_shift_and_positive_scale(x, a, c):
    x = np.array(x)
    assume(np.ptp(x) >= 1e-3)  # H1: LayerNorm needs a non-constant row
    assert np.allclose(layer_norm([a * x + c]), layer_norm([x]), atol=1e-6)


@given(float_vectors(min_size=3, max_size=6, max_value=2), st.floats(0.01, 100))
def test_symmetries_layernorm_negative_scale_flips_sign(x, a):
    x = np.array(x)
    assume(np.ptp(x) >= 1e-3)  # H1
    assert np.allclose(layer_norm([-a * x]), -layer_norm([x]), atol=1e-6)


@settings(max_examples=10)
@given(st.integers(0, 1000))
def test_symmetries_certified_witness(seed):
    w = witness(dps=30, seed=seed)
    assert w["token-permutation"]["holds"] and w["head-permutation"]["holds"]
    assert w["causal-mask"]["certified_broken"] and w["positional-encoding"]["certified_broken"]
