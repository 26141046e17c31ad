"""Symmetries of attention and LayerNorm, and what breaks them."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from proofs_numeric.transformer import Head, layer_norm, mha

_TOL = 1e-9  # float64 MHA of O(1) data through two matrix products and a softmax

_floats = st.floats(-2, 2, allow_nan=False, allow_infinity=False)


@st.composite
def setups(draw, min_n=2, max_n=5):
    n = draw(st.integers(min_n, max_n))
    d = draw(st.integers(2, 4))
    dk = draw(st.integers(1, 3))
    H = draw(st.integers(1, 3))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    heads = [Head(*(rng.normal(size=s) for s in [(d, dk), (d, dk), (d, dk), (dk, d)])) for _ in range(H)]
    return rng.normal(size=(n, d)), heads, rng


@given(setups())
def test_symmetries_head_permutation(s):
    X, heads, _ = s
    assert np.allclose(mha(X, heads[::-1]), mha(X, heads), atol=_TOL)


@given(setups())
def test_symmetries_value_output_gauge(s):
    X, heads, rng = s
    dk = heads[0].W_V.shape[1]
    M = rng.normal(size=(dk, dk)) + 3 * np.eye(dk)
    g = [Head(h.W_Q, h.W_K, h.W_V @ M, np.linalg.solve(M, h.W_O)) for h in heads]
    assert np.allclose(mha(X, g), mha(X, heads), atol=1e-7)


@given(setups())
def test_symmetries_query_key_gauge(s):
    X, heads, rng = s
    dk = heads[0].W_Q.shape[1]
    N = rng.normal(size=(dk, dk)) + 3 * np.eye(dk)
    g = [Head(h.W_Q @ N, h.W_K @ np.linalg.inv(N).T, h.W_V, h.W_O) for h in heads]
    assert np.allclose(mha(X, g), mha(X, heads), atol=1e-7)


@given(setups())
def test_symmetries_token_permutation_equivariance(s):
    X, heads, rng = s
    P = np.eye(X.shape[0])[rng.permutation(X.shape[0])]
    assert np.allclose(mha(P @ X, heads), P @ mha(X, heads), atol=_TOL)


@given(setups(min_n=3), st.data())
def test_symmetries_positional_encoding_breaks_equivariance(s, data):
    X, heads, rng = s
    P = np.eye(X.shape[0])[[1, 0] + list(range(2, X.shape[0]))]
    Pos = rng.normal(size=X.shape)
    f = lambda Y: mha(Y + Pos, heads)
    # broken on almost every draw; never broken when the positions of the swapped tokens coincide
    broken = not np.allclose(f(P @ X), P @ f(X), atol=1e-6)
    assert broken or np.allclose(Pos[0], Pos[1])


@given(st.lists(_floats, min_size=3, max_size=6), st.floats(0.01, 100), _floats)
def test_symmetries_layernorm_shift_and_positive_scale(x, a, c):
    x = np.array(x)
    if np.ptp(x) < 1e-3:
        return  # H1: LayerNorm needs a non-constant row
    assert np.allclose(layer_norm([a * x + c]), layer_norm([x]), atol=1e-6)


@given(st.lists(_floats, min_size=3, max_size=6), st.floats(0.01, 100))
def test_symmetries_layernorm_negative_scale_flips_sign(x, a):
    x = np.array(x)
    if np.ptp(x) < 1e-3:
        return
    assert np.allclose(layer_norm([-a * x]), -layer_norm([x]), atol=1e-6)


@settings(max_examples=10)
@given(st.integers(0, 1000))
def test_symmetries_certified_witness(seed):
    from proofs_numeric.symmetries import witness
    w = witness(dps=30, seed=seed)
    assert w["token-permutation"]["holds"] and w["head-permutation"]["holds"]
    assert w["causal-mask"]["certified_broken"] and w["positional-encoding"]["certified_broken"]
