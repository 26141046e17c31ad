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
    for cid in ("DONG.fully-connected-graph", "DONG.qk-norm"):
        r = _check(capsys, cid, "--X", "[[1,2],[3,4],[0,1]]", "--heads", "1")
        assert r["literal"]["on_this_instance"] == "holds", (cid, r["literal"])


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
