"""Head-channel (non-)identifiability, recovery ambiguity and PG-OP (§7-§8)."""
from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sympy import Matrix, Rational

from proofs_numeric.witnesses.head_channel import witness
from property_tests.strategies import w_o_of_rank
from theorems.exact import heads as HEADS
from theorems.exact.heads import deficient_witness
from theorems.exact.linalg import rank

_BOUND_SLACK = 1e-9  # relative slack on kappa * eta (float64 build of W_O and E, mp recovery)


@given(w_o_of_rank(), st.integers(1, 3))
def test_head_channel_kernel_dimension_matches_formula(Hdw, n):
    """Nullity of Phi_a, from its matrix, equals n (H d_k - rank W_O)."""
    H, dk, d, W = Hdw
    direct = HEADS.map_nullity(lambda Ys: HEADS.Phi_a(Ys, W), n, H, dk)
    assert direct == n * (H * dk - rank(W)) == HEADS.kernel_dim_a(n, H, dk, W)


@given(st.integers(1, 3), st.integers(1, 4), st.integers(1, 3))
def test_head_channel_sum_map_kernel_is_n_H_minus_1_dk(n, H, dk):
    assert HEADS.map_nullity(lambda Ys: sum(Ys[1:], Ys[0]), n, H, dk) == n * (H - 1) * dk


@given(w_o_of_rank(max_heads=2, max_dk=2, max_d=5, full_row_rank=True), st.integers(1, 3), st.data())
def test_head_channel_full_rank_W_O_recovers_every_head_exactly(Hdw, n, data):
    H, dk, d, W = Hdw
    assume(rank(W) == H * dk)  # holds by construction (full_row_rank); the premise stays explicit
    Ys = [Matrix(n, dk, data.draw(st.lists(st.integers(-5, 5).map(Rational), min_size=n * dk, max_size=n * dk)))
          for _ in range(H)]
    assert HEADS.recover_heads_exact(HEADS.Phi_a(Ys, W), W, H) == Ys


@settings(max_examples=20)
@given(st.floats(1, 1e8), st.floats(1e-12, 1e-3), st.integers(0, 10 ** 6))
def test_head_channel_recovery_error_within_condition_bound(kappa, eta, seed):
    w = witness(n=3, H=2, d_k=2, d=5, kappa=kappa, eta=eta, dps=30, seed=seed)
    assert w["value"] <= w["bound"] * (1 + _BOUND_SLACK)


def test_head_channel_deficient_W_O_has_exact_kernel():
    w = deficient_witness()
    assert w["rank_W_O"] < 4 and w["kernel_dim"] > 0
    assert w["same_output"] and w["different_heads"]


# --- issue 56: HC.mlp-cannot-remedy is conditional on rank W_O < H d_k ------------------------------------------

def test_head_channel_gelu_odd_part_is_the_identity():
    """GELU(z) - GELU(-z) = z exactly (erf is odd): the step that lets a GELU MLP output a linear map."""
    from theorems.paper import head_channel as HCm
    assert HCm.gelu_odd_part_identity()


def test_head_channel_gelu_mlp_recovers_heads_when_w_o_has_full_row_rank():
    """H = 2, d_k = 2, d = 4: a random integer W_O of rank 4 = H d_k; the width-8 GELU MLP outputs [Y_1 Y_2]
    exactly, with and without a token's residual; a rank-deficient W_O has no right inverse (None)."""
    from sympy import Matrix as M

    from theorems.paper import head_channel as HCm
    W = M([[1, 2, 0, 1], [0, 1, 3, 0], [2, 0, 1, 1], [1, 1, 1, 2]])
    assert rank(W) == 4
    Ys = [M([[1, -2], [3, 0]]), M([[0, 5], [-1, 2]])]
    assert HCm.gelu_mlp_recovers(Ys, W) is True
    assert HCm.gelu_mlp_recovers([y[:1, :] for y in Ys], W, M([[3, -1, 2, 7]])) is True
    Wd = M.vstack(W[:3, :], W[0, :] + W[1, :])
    assert HCm.gelu_mlp_recovers(Ys, Wd) is None


def test_head_channel_mlp_cannot_remedy_is_conditional_on_the_rank_of_w_o():
    """The headline fails where W_O has full row rank (exact recovery) and holds where rank W_O < H d_k."""
    from property_tests.paper.quick_runs import quick_run
    from theorems.paper.head_channel import FULL_ROW_RANK, RANK_DEFICIENT
    r = quick_run("HC.mlp-cannot-remedy")
    for key in ("literal", "residual-stream-W_O"):
        rr = r.reading(key)
        assert rr.verdict == "conditional", (key, rr.condition)
        assert rr.condition.startswith(f"holds in {RANK_DEFICIENT}") and f"fails in {FULL_ROW_RANK}" in rr.condition
        fails = [e for e in rr.evidence if e.holds is False]
        assert fails and all(e.regime == FULL_ROW_RANK and e.numbers["premise_met"] >= 3 for e in fails)
    assert r.reading("rank-deficient-W_O").verdict == "proved"
    # audit 56, defect 1: the MLP's input decides too: fed the paper's x_i + MHA(X)_i it holds (invertible W_O)
    from theorems.paper.head_channel import PAPER_BLOCK
    holds_part, fails_part = r.literal.condition.split("; fails in ")
    assert PAPER_BLOCK in holds_part and PAPER_BLOCK not in fails_part


# --- audit of issue 56, defect 6: one BERT-shape W_O, ranked exactly mod a large prime -------------------------------

def test_head_channel_bert_shape_w_o_rank_mod_p_is_full_and_proves_rank_over_q():
    """The shared 768 x 768 W_O has rank 768 mod 2^61 - 1 (nmod_mat); rank mod p <= rank over Q, so that is rank 768
    over Q; a W_O with a repeated row has rank < 768 mod p and proves nothing over Q (rank_over_Q None)."""
    import time

    import flint

    t0 = time.perf_counter()
    br = HEADS.bert_shape_w_o_rank()
    assert time.perf_counter() - t0 < 60  # was a 768 x 768 fmpz_mat rank (minutes on a loaded machine)
    assert br.prime == 2 ** 61 - 1 and flint.fmpz(br.prime).is_prime()
    assert br.rank_mod_p == 768 and br.rank_over_Q == 768
    W = HEADS.bert_shape_w_o()
    assert W.shape == (768, 768) and W.min() >= -9 and W.max() <= 9
    W[1] = W[0]
    r = int(flint.nmod_mat(flint.fmpz_mat(768, 768, W.ravel().tolist()), br.prime).rank())
    low = HEADS.BertShapeRank(rank_mod_p=r, prime=br.prime, seconds=0.0)
    assert r == 767 and low.rank_over_Q is None and "undecided" in low.describe()


def test_head_channel_three_claims_rank_the_same_bert_shape_w_o():
    """HC.main, HC.mlp-cannot-remedy and RA.bert-figures cite the one shared rank (768 mod 2^61 - 1), not Rump's
    float test nor a fmpz_mat rank of their own."""
    from types import SimpleNamespace

    from theorems.paper import head_channel as HCm
    from theorems.paper import recovery_ambiguity as RAm
    ctx = SimpleNamespace(quick=False, dps=30)
    evs = [e for e in HCm.literal_evidence(ctx) + HCm.mlp_recovery_evidence(ctx) + RAm.bert_dimension_evidence(ctx)
           if "768 x 768" in e.summary]
    assert len(evs) == 3
    for e in evs:
        assert e.holds is False and e.numbers["rank_W_O"] == 768 and e.numbers["rank_mod_p"] == 768
        assert "2^61 - 1" in e.summary and "nmod_mat" in e.arithmetic and "rump" not in e.summary.lower()


def test_head_channel_paper_block_heads_are_not_a_function_of_the_residual_stream():
    """Audit 56, defect 1: for the paper's block (MLP fed x_1 + MHA(X)_1, W_O invertible) a 4 x 4 minor of
    J(z_1, y_1) is a non-zero polynomial in t over Q (non-zero at the transcendental log 2), so rank 4 > rank J(z_1)
    = 2: reading paper-block holds; residual-stream-W_O no longer cites the no-residual BERT evidence."""
    import sympy

    from property_tests.paper.quick_runs import quick_run
    from theorems.paper import head_channel as HCm
    r = HCm.paper_block_jacobian()
    t = sympy.Symbol("t", positive=True)
    assert r["polynomial_in_t"] and r["rank_J_z"] == 2 and r["rank_J_zy"] == 4
    assert sympy.Poly(sympy.numer(sympy.together(r["minor"])), t).degree() >= 1  # not a constant's accident
    assert abs(float(r["minor"].subs(t, sympy.log(2)))) > 1e-6  # the value at log 2 (a float check of the sign)
    assert sympy.Matrix(r["W_O"]).det() != 0
    q = quick_run("HC.mlp-cannot-remedy")
    pb = q.reading("paper-block")
    assert pb.verdict == "supported" and [e.holds for e in pb.evidence] == [True]
    from types import SimpleNamespace
    ev = HCm.mlp_recovery_evidence(SimpleNamespace(quick=False, dps=30), residual=True)
    assert not [e for e in ev if "768" in e.summary]
