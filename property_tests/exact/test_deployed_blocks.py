"""The deployed blocks, exactly (issue 57): post-LN, pre-LN and pre-RMSNorm compositions with the causal mask as an
option (theorems.exact.transformer.deployed_block), the rational witnesses of Theorem 5.3's per-block readings
(theorems.exact.deployed), and the causal mask's rank facts. Hypothesis over random and adversarial rational matrices
(profiles dev / ci / thorough, property_tests/conftest.py)."""
from __future__ import annotations

import pytest
import sympy
from hypothesis import assume, given
from hypothesis import strategies as st
from sympy import Matrix, Rational, eye, zeros

from theorems.exact import deployed
from theorems.exact import transformer as T
from theorems.exact.linalg import centring_projector, rank

small = st.integers(-4, 4)
fractions = st.builds(Rational, st.integers(-9, 9), st.integers(1, 4))


@st.composite
def rational_matrices(draw, n=None, d=None, entries=fractions):
    """Random rational matrices, and adversarial ones: a zero row, repeated rows, rank one."""
    n = draw(st.integers(1, 5)) if n is None else n
    d = draw(st.integers(1, 5)) if d is None else d
    M = Matrix(n, d, lambda i, j: draw(entries))
    kind = draw(st.sampled_from(["random", "zero-row", "repeated", "rank-one"]))
    if kind == "zero-row":
        M[draw(st.integers(0, n - 1)), :] = zeros(1, d)
    elif kind == "repeated" and n > 1:
        M[n - 1, :] = M[0, :]
    elif kind == "rank-one":
        u = Matrix(n, 1, lambda i, j: draw(entries))
        M = u * M[0, :]
    return M


# --- the causal mask -------------------------------------------------------------------------------------------

@given(st.integers(1, 6).flatmap(lambda n: st.tuples(st.just(n), st.lists(small, min_size=n * n, max_size=n * n))),
       st.data())
def test_causal_softmax_is_lower_triangular_with_positive_diagonal_hence_keeps_every_rank(ns, data):
    n, flat = ns
    f = deployed.causal_attention_facts(Matrix(n, n, flat))
    assert f["lower"] and f["diag_positive"] and f["stochastic"]
    assert f["det"] == f["diag_product"] != 0
    X = data.draw(rational_matrices(n=n))
    W = data.draw(rational_matrices(n=X.shape[1], d=X.shape[1]))
    assert rank(f["A"] * X * W) == rank(X * W)  # A invertible: attention alone never lowers a rank


@given(st.integers(2, 6))
def test_unmasked_uniform_attention_collapses_in_one_step_but_the_causal_one_does_not(n):
    J = Matrix(T.softmax_rows(T.SYMPY, zeros(n, n)))
    C = deployed.causal_uniform(n)
    assert rank(J) == 1 and rank(C) == n
    assert all(C[i, j] == (Rational(1, i + 1) if j <= i else 0) for i in range(n) for j in range(n))


def test_uniform_causal_powers_converge_to_the_first_token_while_staying_invertible():
    CL, lim = deployed.causal_power_limit(3)
    assert lim == Matrix([[1, 0, 0]] * 3)
    L = sympy.Symbol("L", positive=True, integer=True)
    assert sympy.simplify(CL.det() - Rational(1, 6) ** L) == 0
    assert CL.subs(L, 2) == deployed.causal_uniform(3) ** 2
    traj = deployed.causal_stack(Matrix([[1, 0, 2], [0, 1, 1], [2, 1, 0], [1, 1, 1]]), eye(3), 8)
    assert [r for r, _ in traj] == [3] * 8
    rhos = [q for _, q in traj]
    assert all(b < a for a, b in zip(rhos, rhos[1:]))


# --- the block compositions ------------------------------------------------------------------------------------

def _rows_with_rational_norms(draw, n, d, kind):
    base = deployed.rational_norm_rows(d, kind, 1)[0]
    return Matrix([[m * v for v in base] for m in draw(st.lists(st.sampled_from([1, -1, 2, -3, 5]), min_size=n,
                                                                        max_size=n))])


@given(st.data(), st.sampled_from([2, 4]), st.integers(1, 4), st.booleans())
def test_pre_ln_block_is_x_plus_mha_of_ln_x_then_plus_the_ffn(data, d, n, causal):
    X = _rows_with_rational_norms(data.draw, n, d, "ln")
    W = data.draw(rational_matrices(n=d, d=d, entries=small))
    b2 = data.draw(st.lists(small, min_size=d, max_size=d))
    # W1 = 0: GELU(0) = 0 exactly, so the FFN is the constant b2 whatever LN2 gives (the block stays rational)
    blk = T.Block(heads=T.uniform_heads(d, [W]), W1=zeros(d, 2), W2=Matrix(2, d, lambda i, j: i + j), b2=b2)
    Z = Matrix(T.deployed_block(T.SYMPY, X, blk, "pre_ln", causal=causal, sublayer="attention"))
    A = deployed.causal_uniform(n) if causal else Matrix(T.softmax_rows(T.SYMPY, zeros(n, n)))
    assert Z == X + A * Matrix(T.layer_norm(T.SYMPY, X)) * W
    if all(any(v != Z[i, 0] for v in Z.row(i)) for i in range(n)):  # LN2 defined on every row of Z
        full = Matrix(T.deployed_block(T.SYMPY, X, blk, "pre_ln", causal=causal))
        assert full == Z + Matrix([b2] * n)


@given(st.data(), st.sampled_from([2, 4, 5]), st.integers(1, 4), st.booleans())
def test_pre_rms_sublayer_is_x_plus_mha_of_rmsnorm_x(data, d, n, causal):
    X = _rows_with_rational_norms(data.draw, n, d, "rms")
    W = data.draw(rational_matrices(n=d, d=d, entries=small))
    g = data.draw(st.lists(st.sampled_from([1, 2, -1, 3]), min_size=d, max_size=d))
    Z = deployed.attention_sublayer(X, [W], "pre_rms", causal=causal, gamma=g)
    A = deployed.causal_uniform(n) if causal else Matrix(T.softmax_rows(T.SYMPY, zeros(n, n)))
    R = Matrix(n, d, lambda i, j: X[i, j] / sympy.sqrt(sum(v * v for v in X.row(i)) / d) * g[j])
    assert Z == X + A * R * W


@given(st.data(), st.integers(2, 4), st.integers(2, 4))
def test_post_ln_rank_is_the_rank_of_the_centred_sum_and_never_exceeds_d_minus_1(data, n, d):
    """The lemma post_ln_rank rests on, against the suite's LayerNorm in sympy (sqrt kept exact)."""
    X = data.draw(rational_matrices(n=n, d=d, entries=small))
    W = data.draw(rational_matrices(n=d, d=d, entries=small))
    r, Y = deployed.post_ln_rank(X, [W])
    assume(r is not None)
    L = Matrix(T.layer_norm(T.SYMPY, Y))
    YP = Y * centring_projector(d)
    for i in range(n):  # the suite's LN(Y) is diag(1/sigma_i) Y (I - J/d), sigma_i != 0: the same rank as Y P
        var = sum(v * v for v in YP.row(i)) / d
        assert var != 0
        assert all(sympy.simplify(L[i, j] * sympy.sqrt(var) - YP[i, j]) == 0 for j in range(d))
    assert r == rank(YP) <= d - 1


def test_post_ln_cap_is_an_identity():
    assert deployed.post_ln_cap_identity(3) and deployed.post_ln_cap_identity(4)


@pytest.mark.parametrize("block_type", T.BLOCK_TYPES)
@pytest.mark.parametrize("n,d", [(3, 5), (4, 4), (6, 4), (5, 2)])
def test_stratum_witnesses_are_on_their_stratum_and_their_norms_are_rational(block_type, n, d):
    for r in range(1, min(n, d)):
        X = deployed.stratum_witness(n, d, r, block_type)
        assert rank(X) == r
        assert all(any(v != 0 for v in X.row(i)) for i in range(n))
        if block_type != "pre_rms":
            assert all(any(v != X[i, 0] for v in X.row(i)) for i in range(n))  # LN is defined on every row
        if block_type != "post_ln":
            Z = deployed.attention_sublayer(X, [eye(d)], block_type, causal=True, gamma=[1] * d)
            assert all(v.is_Rational for v in Z)


@pytest.mark.parametrize("block_type", ["pre_ln", "pre_rms"])
def test_theorem_53_witnesses_raise_the_rank_in_every_stratum(block_type):
    W = Matrix([[1, 2, 0, -1], [0, 1, 3, 1], [2, 0, 1, 1], [1, -1, 0, 2]])
    for r in range(1, 4):
        X = deployed.stratum_witness(6, 4, r, block_type)
        assert deployed.sublayer_rank(X, [W], block_type, True, [1, 2, 1, 3]) > r


def test_d3_has_no_rational_layernorm_row():
    with pytest.raises(ValueError, match="only 0 independent rows of length 3"):
        deployed.rational_norm_rows(3, "ln", 1)


# --- bad input ---------------------------------------------------------------------------------------------------

def test_an_unsupported_block_type_is_refused_by_name():
    blk = T.Block(heads=T.uniform_heads(2, [eye(2)]))
    with pytest.raises(ValueError, match="unsupported block type 'sandwich_ln': choose from post_ln, pre_ln, pre_rms"):
        T.deployed_block(T.SYMPY, [[1, 2], [3, 5]], blk, "sandwich_ln")


def test_rmsnorm_with_a_bias_is_refused():
    blk = T.Block(heads=T.uniform_heads(2, [eye(2)]), ln1=([1, 1], [0, 1]))
    with pytest.raises(ValueError, match="RMSNorm has no bias"):
        T.deployed_block(T.SYMPY, [[1, 2], [3, 5]], blk, "pre_rms", sublayer="attention")


def test_a_whole_block_needs_its_ffn_and_an_irrational_entry_is_refused_not_rounded():
    blk = T.Block(heads=T.uniform_heads(3, [eye(3)]))
    with pytest.raises(ValueError, match="needs the FFN weights"):
        T.deployed_block(T.SYMPY, [[1, 2, 4], [3, 5, 0]], blk, "pre_ln")
    with pytest.raises(ValueError, match="not rational"):
        deployed.attention_sublayer(Matrix([[1, 2, 4], [3, 5, 0]]), [eye(3)], "pre_ln")


def test_a_constant_row_is_outside_layernorm_and_post_ln_rank_says_so():
    r, _ = deployed.post_ln_rank(Matrix([[1, 1], [0, 0]]), [zeros(2, 2)])
    assert r is None


@given(st.integers(1, 6), st.integers(1, 7), st.data())
def test_centred_is_x_times_the_centring_projector_exactly(n, d, data):
    """blocks.centred (each row minus its mean, computed in sympy's QQ representation for a rational matrix) equals
    X P with P = I - J/d, entry for entry, and its rows sum to 0; a symbolic matrix takes the sympy arithmetic.
    (Planted: the mean divided by n instead of d, or the ones column of length n: both red here.)"""
    from theorems.exact.blocks import centred
    ints = st.integers(-9, 9)
    X = Matrix(n, d, [Rational(data.draw(ints), data.draw(st.integers(1, 4))) for _ in range(n * d)])
    Xt = centred(X)
    assert isinstance(Xt, Matrix) and Xt.shape == (n, d)
    assert Xt == X * centring_projector(d)
    assert all(sum(Xt.row(i)) == 0 for i in range(n))
    x = sympy.Symbol("x")
    S = X.copy()
    S[0, 0] = x
    assert sympy.simplify(centred(S) - S * centring_projector(d)) == zeros(n, d)
