"""The instance forms of issue 54: the symmetries (SYM.*), alpha_h (RC.alpha-range, RC.alpha-reciprocal) and the
softmax shift (DONG.softmax-shift) decided on a user's input through ``collapse-verify check``, with the predicates the
ledger decides their Pools with: for each form an instance where the statement holds and one where it fails (or,
for an invariance that holds on every input, its breaking reading fails), exactly over Q."""
from __future__ import annotations

import json

import numpy as np

from proofs_numeric.cli import main

X3 = "[[1,0],[0,1],[1,1]]"


def _check(capsys, *argv):
    code = main(["check", *argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    [rec] = json.loads(out)["claims"]  # check --json: one entry per claim checked
    return {r["key"]: r for r in rec["readings"]}


def _npz(tmp_path, name, WQ, WK, WV=None, WO=None):
    """One head's weights as a .npz (W_Q, W_K, W_V: (1, d, d_k); W_O: (1, d_k, d)), float64 holding small integers."""
    WQ, WK = np.asarray(WQ, float), np.asarray(WK, float)
    d, dk = WQ.shape
    WV = np.ones((d, dk)) if WV is None else np.asarray(WV, float)
    WO = np.ones((dk, d)) if WO is None else np.asarray(WO, float)
    p = tmp_path / f"{name}.npz"
    np.savez(p, W_Q=WQ[None], W_K=WK[None], W_V=WV[None], W_O=WO[None])
    return str(p)


def test_symmetries_hold_exactly_on_a_users_x_and_seeded_weights(capsys):
    for cid in ("SYM.token-permutation", "SYM.query-key-gauge", "SYM.value-output-gauge", "SYM.head-permutation"):
        r = _check(capsys, cid, "--X", X3, "--heads", "2", "--seed", "3")
        assert r["literal"]["on_this_instance"] == "holds", (cid, r["literal"])
        assert r["literal"]["conclusion"]["how"].startswith("exact"), r["literal"]["conclusion"]
    r = _check(capsys, "SYM.token-permutation", "--X", X3, "--heads", "1", "--seed", "3")
    assert r["single-head"]["on_this_instance"] == "holds"


def test_symmetry_ln_holds_for_a_positive_scale_and_fails_for_a_negative_one(capsys):
    r = _check(capsys, "SYM.ln-shift-scale", "--X", "[[1,0,2],[0,1,5]]")
    assert r["literal"]["on_this_instance"] == "holds"
    assert r["without-ln-a<0"]["on_this_instance"] == "counterexample"
    assert "-LN(x)" in r["without-ln-a<0"]["conclusion"]["how"]


def test_symmetry_ln_constant_row_is_a_failed_premise(capsys):
    r = _check(capsys, "SYM.ln-shift-scale", "--X", "[[1,1,1],[1,2,3]]")
    assert r["literal"]["on_this_instance"] == "premise-fails"
    assert "constant rows [1]" in r["literal"]["hypotheses"]["no constant row"]["how"]


def test_alpha_range_holds_on_seeded_weights(capsys):
    r = _check(capsys, "RC.alpha-range", "--X", X3, "--heads", "2", "--seed", "5")
    assert r["literal"]["on_this_instance"] == "holds"
    assert "alpha_h^2" in r["literal"]["conclusion"]["how"]


def test_alpha_reciprocal_matrix_symmetric_counterexample_and_holds_and_premise_fails(capsys, tmp_path):
    """alpha = 0 (W_Q = W_K): the scores are symmetric, but A is symmetric only when every row has the same multiset
    of scores; X = I_2 gives equal multisets (holds), X3 does not (a counterexample, decided exactly). The headline
    (reversible attention, issue 56) holds on both: Z_i A_ij = Z_j A_ji."""
    sym = _npz(tmp_path, "sym", [[1], [2]], [[1], [2]])
    r = _check(capsys, "RC.alpha-reciprocal", "--X", "[[1,0],[0,1]]", "--weights", _npz(tmp_path, "eye",
               [[1, 0], [0, 1]], [[1, 0], [0, 1]]))
    assert r["matrix-symmetric"]["on_this_instance"] == "holds"
    assert r["literal"]["on_this_instance"] == "holds"
    r = _check(capsys, "RC.alpha-reciprocal", "--X", "[[1,0],[0,1]]", "--weights", sym)
    assert r["matrix-symmetric"]["on_this_instance"] == "counterexample"
    assert "Lindemann-Weierstrass" in r["matrix-symmetric"]["conclusion"]["how"]
    assert r["literal"]["on_this_instance"] == "holds"
    assert "Z_i A_ij = Z_j A_ji for all i, j and pi A = pi" in r["literal"]["conclusion"]["how"]
    assert r["symmetric-scores"]["on_this_instance"] == "holds"
    gen = _npz(tmp_path, "gen", [[1], [0]], [[0], [1]])
    r = _check(capsys, "RC.alpha-reciprocal", "--X", "[[1,0],[0,1]]", "--weights", gen)
    assert r["literal"]["on_this_instance"] == "premise-fails"
    assert r["matrix-symmetric"]["on_this_instance"] == "premise-fails"


def test_alpha_reciprocal_directional_reading(capsys, tmp_path):
    anti = _npz(tmp_path, "anti", [[1, 0], [0, 1]], [[0, -1], [1, 0]])  # W_Q W_K^T = [[0, 1], [-1, 0]]
    r = _check(capsys, "RC.alpha-reciprocal", "--X", X3, "--weights", anti)
    assert r["antisymmetric-scores-nonzero"]["on_this_instance"] == "holds"
    assert "alpha_1^2 = 1" in r["antisymmetric-scores-nonzero"]["conclusion"]["how"]
    zero = _npz(tmp_path, "zero", [[0], [0]], [[1], [1]])
    r = _check(capsys, "RC.alpha-reciprocal", "--X", X3, "--weights", zero)
    assert r["antisymmetric-scores-nonzero"]["on_this_instance"] == "premise-fails"


def test_softmax_shift_literal_fails_and_corrected_holds(capsys):
    r = _check(capsys, "DONG.softmax-shift", "--X", "[[1,2],[3,4]]")
    assert r["literal"]["on_this_instance"] == "counterexample"
    assert r["corrected"]["on_this_instance"] == "holds"
    r = _check(capsys, "DONG.softmax-shift", "--X", "[[1],[3]]")  # one column: 1 c^T is constant along each row
    assert r["literal"]["on_this_instance"] == "holds"


def test_left_multiplication_uniform_attention_holds_at_rank_one_fails_at_rank_two(capsys):
    r = _check(capsys, "RC.left-multiplication", "--X", "[[1,2],[2,4]]")
    assert r["uniform-attention"]["on_this_instance"] == "holds"
    r = _check(capsys, "RC.left-multiplication", "--X", "[[1,0],[0,1]]")
    assert r["uniform-attention"]["on_this_instance"] == "counterexample"
    assert "rank(J/n Y) = 1, rank Y = 2" in r["uniform-attention"]["conclusion"]["how"]
