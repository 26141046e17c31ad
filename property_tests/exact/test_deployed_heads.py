"""The head channel through a deployed block (issue 57): what the observer of a post-LN (BERT), pre-LN (GPT-2) or
pre-RMSNorm (LLaMA) attention sub-layer can recover of the heads (theorems.exact.deployed), and the readings of HC.main
and RA.main per block type (theorems.paper.head_channel, recovery_ambiguity). Hypothesis over random integer
instances."""
from __future__ import annotations

import random
from types import SimpleNamespace

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from sympy import Matrix, eye

from theorems.exact import deployed
from theorems.exact.heads import Phi_a, map_nullity
from theorems.exact.instances import random_int_matrix
from theorems.exact.linalg import rank
from theorems.paper import head_channel as hc
from theorems.paper import recovery_ambiguity as ra

QUICK = SimpleNamespace(quick=True)
shapes = st.tuples(st.integers(1, 3), st.integers(2, 5), st.integers(1, 3), st.integers(1, 2))  # n, d, H, d_k


@given(shapes, st.integers(0, 10 ** 6))
def test_post_ln_fibre_formula_is_the_nullity_of_the_exact_jacobian(shape, seed):
    """The formula n (H d_k - rank W_O) + sum_i (2 + rank W_O - rank [1; x_i; W_O]) against the nullity of the
    sigma-scaled Jacobian of (Y_h) -> LN(X + sum_h Y_h W_O^h), computed from its matrix; also W_O of low rank."""
    n, d, H, dk = shape
    rng = random.Random(seed)
    X = random_int_matrix(rng, n, d, 3)
    k = rng.randint(0, min(H * dk, d))
    W = random_int_matrix(rng, H * dk, k, 2) * random_int_matrix(rng, k, d, 2) if k else Matrix.zeros(H * dk, d)
    Ys = [random_int_matrix(rng, n, dk, 3) for _ in range(H)]
    gamma = [rng.choice([1, 2, -1, 3]) for _ in range(d)]
    f = deployed.post_ln_jacobian_nullity(X, Ys, W, gamma)
    assume(f is not None)  # a constant row: LayerNorm undefined
    assert f == deployed.post_ln_fibre_formula(X, W)
    # the fibre always contains §7's kernel, and LayerNorm adds at most a shift and a scale per row
    phi = map_nullity(lambda Y: Phi_a(Y, W), n, H, dk)
    assert phi <= f <= phi + 2 * n


def test_layernorm_jacobian_kernel_is_a_shift_and_a_scale():
    assert deployed.ln_jacobian_identity(3)


def test_post_ln_loses_two_per_token_when_w_o_is_invertible_and_the_collision_is_exact():
    """H d_k = d, W_O invertible: Phi_a is injective, yet two different head tuples give the same LN(X + S)."""
    rng = random.Random(57)
    X, W = random_int_matrix(rng, 3, 4, 3), random_int_matrix(rng, 4, 4, 3)
    assert rank(W) == 4
    Ys = [random_int_matrix(rng, 3, 2, 3) for _ in range(2)]
    assert map_nullity(lambda Y: Phi_a(Y, W), 3, 2, 2) == 0
    assert deployed.post_ln_fibre_formula(X, W) == 2 * 3
    Ys2, ok = deployed.post_ln_collision(X, Ys, W, [1, 2, -1, 3], [0, 1, 2, -1])
    assert ok and Ys2 != Ys
    # scale 1, shift 0 is the same point: no collision (the check can say no)
    assert deployed.post_ln_collision(X, Ys, W, [1, 2, -1, 3], None, shift=0, scale=1)[1] is False
    assert deployed.post_ln_collision(X, Ys, Matrix.zeros(4, 4), [1] * 4, None) is None  # not invertible


def test_post_ln_identified_on_a_certified_box_when_h_dk_is_at_most_d_minus_2():
    rng = random.Random(5)
    X, W = random_int_matrix(rng, 2, 5, 3), random_int_matrix(rng, 2, 5, 3)  # H d_k = 2 <= d - 2 = 3
    got = deployed.post_ln_fibre_box(X, W)
    assert got is not None and got[0] == 0
    assert deployed.post_ln_fibre_box(X, Matrix.zeros(2, 5)) is None  # rank W_O not maximal: nothing certified


@pytest.mark.parametrize("block_type", ["pre_ln", "pre_rms"])
def test_a_pre_norm_sublayer_adds_the_heads_sum_to_x_itself(block_type):
    """Z - X = sum_h Y_h W_O^h with Y_h computed on the normalised input with the same mask; heads computed without
    the mask do not give it (the check can fail)."""
    from theorems.exact import transformer as T
    rng = random.Random(7)
    X = deployed.stratum_witness(4, 4, 4, block_type)
    WVs = [random_int_matrix(rng, 4, 2, 2) for _ in range(2)]
    WOs = [random_int_matrix(rng, 2, 4, 3) for _ in range(2)]
    beta = [0, 1, -1, 2] if block_type == "pre_ln" else None
    Z, Ys = deployed.prenorm_heads(X, WVs, WOs, block_type, True, [1, 2, -1, 1], beta)
    W = Matrix.vstack(*WOs)
    assert Z - X == Phi_a(Ys, W)
    N = Matrix(T.rms_norm(T.SYMPY, X, [1, 2, -1, 1]) if block_type == "pre_rms"
               else T.layer_norm(T.SYMPY, X, [1, 2, -1, 1], beta))
    unmasked = [Matrix(T.attention(T.SYMPY, N, h, False)[1]) for h in T.uniform_heads(4, WVs, WOs)]
    assert Z - X != Phi_a(unmasked, W)
    with pytest.raises(ValueError, match="pre_ln / pre_rms"):
        deployed.prenorm_heads(X, WVs, WOs, "post_ln")


def _by_regime(evidence):
    out: dict = {}
    for e in evidence:
        out.setdefault(e.regime, []).append(e)
    return out


def test_hc_main_post_ln_raw_holds_when_h_dk_is_at_least_d_minus_1_and_fails_on_a_box_below():
    ev = _by_regime(hc.post_ln_evidence("HC.main:post-LN", lambda f, s: f > 0, "irrecoverable"))
    assert all(e.holds is True for e in ev["Hd_k>=d-1"])
    below = ev["Hd_k<=d-2"]
    assert any(e.scope == "positive-measure" and e.holds is False for e in below)


@given(shapes, st.integers(0, 10 ** 6), st.booleans())
def test_post_ln_head_channel_loss_is_sevens_kernel(shape, seed, with_eps):
    """What the heads lose beyond LayerNorm (the fibre of (Y_h) -> LN(X + sum_h Y_h W_O^h) minus that of S -> LN(X +
    S) on S in row W_O, two exact Jacobian nullities) is n (H d_k - rank W_O), at eps = 0 and at BERT's eps, also
    for a W_O of low rank; the raw fibre is never smaller."""
    n, d, H, dk = shape
    rng = random.Random(seed)
    eps = hc.BERT_EPS if with_eps else 0
    X = random_int_matrix(rng, n, d, 3)
    k = rng.randint(0, min(H * dk, d))
    W = random_int_matrix(rng, H * dk, k, 2) * random_int_matrix(rng, k, d, 2) if k else Matrix.zeros(H * dk, d)
    Ys = [random_int_matrix(rng, n, dk, 3) for _ in range(H)]
    gamma = [rng.choice([1, 2, -1, 3]) for _ in range(d)]
    loss = deployed.post_ln_head_channel_nullity(X, Ys, W, gamma, eps)
    assume(loss is not None)
    assert loss == deployed.head_channel_fibre_formula(n, W) == map_nullity(lambda Y: Phi_a(Y, W), n, H, dk)
    assert deployed.post_ln_jacobian_nullity(X, Ys, W, gamma, eps) >= loss


def test_single_head_post_ln_loss_is_layernorms_not_the_head_channels():
    """The review's point: at (n, d, H, d_k) = (2, 4, 1, 4) the raw fibre is 4 (eps = 0) and 2 (eps > 0), LayerNorm's
    shift and scale with one head; beyond LayerNorm the single head loses nothing."""
    rng = random.Random(3)
    X, W = random_int_matrix(rng, 2, 4, 3), random_int_matrix(rng, 4, 4, 3)
    assert rank(W) == 4
    Ys = [random_int_matrix(rng, 2, 4, 3)]
    for eps, raw in ((0, 4), (hc.BERT_EPS, 2)):
        assert deployed.post_ln_jacobian_nullity(X, Ys, W, [1, 2, -1, 3], eps) == raw
        assert deployed.post_ln_sum_nullity(X, Ys, W, [1, 2, -1, 3], eps) == raw
        assert deployed.post_ln_head_channel_nullity(X, Ys, W, [1, 2, -1, 3], eps) == 0


@pytest.mark.parametrize("eps", [0, hc.BERT_EPS])
def test_hc_main_post_ln_beyond_layernorm_splits_as_the_headline(eps):
    """The head-channel reading's regimes are §7's: irrecoverable beyond LayerNorm when H d_k > d (W_O rank-
    deficient), recovered (0 beyond LayerNorm) on a certified box of W_O when H d_k <= d."""
    ev = _by_regime(hc.post_ln_head_channel_evidence("HC.main:post-LN beyond LayerNorm", lambda f, s: f > 0,
                                                     "irrecoverable beyond LayerNorm", eps))
    assert all(e.holds is True for e in ev["Hd_k>d"])
    below = ev["Hd_k<=d"]
    assert any(e.scope == "positive-measure" and e.holds is False for e in below)
    assert all(e.label == "robust" for e in below if e.scope == "instances")


def test_ra_mainpost_ln_heads_count_holds():
    assert [e.holds for e in ra.post_ln_heads_count(QUICK)] == [True, True]


@pytest.mark.parametrize("eps,hit,miss", [(0, "d=d_k+2 or (H=1 and d>d_k+2)", "d!=d_k+2 and not (H=1 and d>d_k+2)"),
                                          (hc.BERT_EPS, "d=d_k+1 or (H=1 and d>d_k+1)",
                                           "d!=d_k+1 and not (H=1 and d>d_k+1)")])
def test_ra_main_post_ln_equals_the_papers_count_exactly_when_d_is_d_k_plus_layernorms_loss(eps, hit, miss):
    """The generic post-LN fibre n (H d_k - rho) + n max(0, rho + k - d) equals n (H - 1) d_k iff d = d_k + k
    (k = 2 at eps = 0, 1 at eps > 0): the regimes of RA.main:post-LN(-eps) are these, not the positivity split."""
    import random as _r

    from theorems.exact import deployed_heads as DH
    shapes_ = DH.RA_POST_LN_EPS_SHAPES if eps else DH.RA_POST_LN_SHAPES
    want = lambda s: s[0] * (s[2] - 1) * s[3]  # noqa: E731
    recs = DH.post_ln_study(_r.Random(11), lambda f, s: f == want(s), eps, shapes_)
    got = {r["regime"]: r for r in recs if r["type"] == "instances"}
    assert got[hit]["held"] == got[hit]["met"] > 0
    assert got[miss]["held"] < got[miss]["met"]
    assert any(r["type"] == "box" and r["regime"] == miss for r in recs)
    for regime, ss in shapes_.items():
        for (n, d, H, dk) in ss:
            rho, k = min(H * dk, d), (1 if eps else 2)
            assert (n * (H * dk - rho) + n * max(0, rho + k - d) == want((n, d, H, dk))) == (regime == hit)


def test_ra_main_post_ln_regimes_put_single_heads_on_the_right_side():
    """Review s4: H = 1 is not 'd != d_k + k, so fails': (n, d, H, d_k) = (2, 4, 1, 1) gives fibre 0 = n (H - 1) d_k
    (W_O of full row rank d_k <= d - k leaves LayerNorm nothing), while H = 1 with d < d_k + k fails; the regime
    predicate agrees with the generic formula on every small shape, and the exact study holds on the single-head
    edge shape."""
    import itertools
    import random as _r

    from theorems.exact import deployed_heads as DH
    holds = {2: DH.RA_POST_LN_HOLDS, 1: DH.RA_POST_LN_EPS_HOLDS}
    for k in (1, 2):
        assert DH.ra_post_ln_fibre_is_papers((2, 4, 1, 1), k) and DH.ra_post_ln_regime((2, 4, 1, 1), k) == holds[k]
        for shape in itertools.product(range(1, 4), range(1, 9), range(1, 5), range(1, 6)):
            assert (DH.ra_post_ln_regime(shape, k) == holds[k]) == DH.ra_post_ln_fibre_is_papers(shape, k), shape
    assert DH.ra_post_ln_regime((2, 4, 1, 4), 2) == DH.RA_POST_LN_FAILS  # H = 1, d < d_k + 2: fibre 4 != 0
    assert DH.ra_post_ln_regime((512, 768, 12, 64), 2) == DH.RA_POST_LN_FAILS  # BERT-base
    for eps in (0, hc.BERT_EPS):
        recs = DH.post_ln_study(_r.Random(5), lambda f, s: f == 0, eps, {"edge": [(2, 4, 1, 1)]})
        (got,) = [r for r in recs if r["type"] == "instances"]
        assert got["held"] == got["met"] > 0


def test_ra_main_post_ln_count_holds_and_bert_is_two_per_token():
    assert all(e.holds is True for e in ra.post_ln_count_evidence(QUICK))
    # BERT's shape: an invertible 768 x 768 W_O leaves 2 per token whatever x_i: rank [1; x_i; W_O] = d always
    n, d = 512, 768
    assert n * (d - d) + n * (2 + d - min(d + 2, d)) == 1024


@pytest.mark.parametrize("block_type", ["pre_ln", "pre_rms"])
def test_hc_main_pre_norm_readings_are_sevens_kernel(block_type):
    ev = _by_regime(hc.prenorm_evidence("HC.main", block_type, lambda k, s: k > 0, "irrecoverable"))
    assert all(e.holds is True for e in ev["Hd_k>d"])
    assert any(e.scope == "positive-measure" and e.holds is False for e in ev["Hd_k<=d"])
    assert "on 3/3 instances" in ev["Hd_k<=d"][0].summary  # the sum recovered on every instance


def test_identity_w_o_is_recovered_exactly_after_pre_ln():
    """W_O = I (H d_k = d): nothing ambiguous once X is subtracted."""
    assert map_nullity(lambda Y: Phi_a(Y, eye(4)), 2, 2, 2) == 0


@given(shapes, st.integers(0, 10 ** 6))
def test_post_ln_with_eps_loses_only_the_shift(shape, seed):
    """eps = 10^-12 (BERT's, exactly): the Jacobian's nullity is n (H d_k - rank W_O) + n (1 + rank W_O - rank [1;
    W_O]), never more than the eps = 0 fibre, and a constant row is inside the domain."""
    n, d, H, dk = shape
    rng = random.Random(seed)
    X = random_int_matrix(rng, n, d, 3)
    W = random_int_matrix(rng, H * dk, d, 2)
    Ys = [random_int_matrix(rng, n, dk, 3) for _ in range(H)]
    gamma = [rng.choice([1, 2, -1, 3]) for _ in range(d)]
    f = deployed.post_ln_jacobian_nullity(X, Ys, W, gamma, hc.BERT_EPS)
    assert f is not None and f == deployed.post_ln_fibre_formula(X, W, hc.BERT_EPS)
    f0 = deployed.post_ln_jacobian_nullity(X, Ys, W, gamma)
    if f0 is not None:
        assert f <= f0


def test_layernorm_with_eps_jacobian_kernel_is_the_shift_only():
    assert deployed.ln_jacobian_identity(3, True)


def test_hc_main_post_ln_eps_raw_splits_at_h_dk_equal_d():
    ev = _by_regime(hc.post_ln_evidence("HC.main:post-LN-eps", lambda f, s: f > 0, "irrecoverable", hc.BERT_EPS))
    assert all(e.holds is True for e in ev["Hd_k>=d"])
    assert any(e.scope == "positive-measure" and e.holds is False for e in ev["Hd_k<=d-1"])
    assert all(e.holds is True for e in ra.post_ln_count_evidence(QUICK, hc.BERT_EPS))
