"""Issue 54, the last five readings: each decided on a user's input through ``collapse-verify check`` (the
row-stochastic ``--P`` of the two DONG readings, HC.distinct-from-rank-collapse's two existentials,
RC.alpha-independent's robust failure on the n = 2, alpha = 1 slice, RN.effective-dimensionality's certified
effective ranks), and ``--P`` refusing a hostile input in one line naming the violated hypothesis."""
from __future__ import annotations

import json

import numpy as np
import pytest

from proofs_numeric.cli import main
from proofs_numeric.ledger import registry
from theorems.framework import Decided, InstanceForm
from theorems.framework.instance import GENERIC_POINT, NOT_A_WITNESS, ROBUST_FAILURE, RobustSet, decide

JORDAN = "[[1,0,0],[0.5,0.5,0],[0,0.5,0.5]]"  # subdominant eigenvalue 1/2 in a Jordan block


def _check(capsys, *argv, code=0):
    got = main(["check", *argv, "--json"])
    out, err = capsys.readouterr()
    assert got == code, err
    if code:
        return err
    doc = json.loads(out)
    [rec] = doc["claims"]
    return {r["key"]: r for r in rec["readings"]} | {"_request": doc["request"]}


def _one_line_error(capsys, *argv) -> str:
    assert main(["check", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


# --- the reader of --P ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("P, words", [
    ("[[0.5,0.5],[0.5,0.6]]", "row 1 sums to 11/10, not 1: the hypothesis P row-stochastic"),
    ("[[1.5,-0.5],[0,1]]", "--P[0][1] = -1/2 is negative: the hypothesis P row-stochastic"),
    ("[[0.5,0.5,0]]", "--P is 1 x 3, not square: the hypothesis P row-stochastic"),
    ("[[NaN,1],[0,1]]", "NaN"),
    ("[[0.1,0.2],[0.3]]", "--P"),
])
def test_P_a_hostile_input_is_one_line_naming_the_problem(capsys, P, words):
    err = _one_line_error(capsys, "DONG.markov-geometric", "--P", P, "--X", "[[1],[2]]")
    assert words in err


def test_P_nan_in_a_npy_file_is_refused(capsys, tmp_path):
    p = tmp_path / "P.npy"
    np.save(p, np.array([[np.nan, 1.0], [0.0, 1.0]]))
    assert "--P" in _one_line_error(capsys, "DONG.markov-geometric", "--P", str(p), "--X", "[[1],[2]]")


def test_P_and_X_of_different_sizes_are_refused_by_name(capsys):
    err = _one_line_error(capsys, "DONG.markov-geometric", "--reading", "literal", "--P", "[[1,0],[0,1]]",
                          "--X", "[[1],[2],[3]]")
    assert "--X has 3 rows, --P is 2 x 2" in err


def test_P_decimals_are_the_fractions_they_spell_and_echoed(capsys):
    r = _check(capsys, "DONG.markov-geometric", "--P", "[[0.1,0.9],[0.7,0.3]]", "--X", "[[1],[0]]")
    assert r["_request"]["arguments"]["--P"] == "[[0.1,0.9],[0.7,0.3]]"
    assert r["literal"]["on_this_instance"] == "holds"  # 2 x 2: X0 - 1 x^T is an eigenvector of Q


# --- DONG.markov-geometric ---------------------------------------------------------------------------------------

def test_markov_literal_jordan_block_is_an_exact_counterexample(capsys):
    r = _check(capsys, "DONG.markov-geometric", "--P", JORDAN, "--X", "[[0],[1],[0]]")
    lit = r["literal"]
    assert lit["on_this_instance"] == "counterexample"
    assert "at l = 1" in lit["conclusion"]["how"] and "1/2 > " in lit["conclusion"]["how"]
    assert "two-by-two" not in r or r["two-by-two"]["on_this_instance"] == "undecided"  # about n = 2 only


def test_markov_literal_normal_q_holds_for_every_l(capsys):
    r = _check(capsys, "DONG.markov-geometric", "--P", "[[0.1,0.9,0],[0,0.1,0.9],[0.9,0,0.1]]",
               "--X", "[[1],[2],[7]]")
    assert r["literal"]["on_this_instance"] == "holds"
    assert "normal" in r["literal"]["conclusion"]["how"]


def test_markov_literal_irrational_spectrum_is_certified_and_every_l_left_open(capsys):
    r = _check(capsys, "DONG.markov-geometric", "--reading", "literal",
               "--P", "[[0.5,0.5,0],[0.3,0.3,0.4],[0,0.6,0.4]]", "--X", "[[1],[2],[7]]")
    how = r["literal"]["conclusion"]["how"]
    assert r["literal"]["on_this_instance"] == "undecided"
    assert "python-flint arb" in how and "the bound holds at l = 1..6" in how


def test_markov_literal_without_a_unique_stationary_distribution_is_undecided(capsys):
    r = _check(capsys, "DONG.markov-geometric", "--P", "[[1,0],[0,1]]", "--X", "[[1],[2]]")
    assert r["literal"]["on_this_instance"] == "undecided"
    assert "no unique stationary pi" in r["literal"]["conclusion"]["how"]
    assert r["two-by-two"]["on_this_instance"] == "premise-fails"  # P = I


# --- DONG.strictly-within-hull ----------------------------------------------------------------------------------

def test_hull_vertex_weights_are_a_counterexample(capsys):
    r = _check(capsys, "DONG.strictly-within-hull", "--P", JORDAN, "--X", "[[0,0],[1,0],[0,1]]")
    assert r["literal"]["on_this_instance"] == "counterexample"
    assert "row 0 of P X" in r["literal"]["conclusion"]["how"]
    assert r["positive-weights"]["on_this_instance"] == "premise-fails"


def test_hull_zero_weights_can_still_give_an_interior_point(capsys):
    """The square's centre from two opposite corners (weights 1/2, 0, 1/2, 0) lies in the interior: the exact LP finds
    a combination with every weight positive (a rule 'a zero weight means the boundary' would call it a
    counterexample)."""
    P = "[[0.5,0,0.5,0],[0,0.5,0,0.5],[0.25,0.25,0.25,0.25],[0.5,0,0.5,0]]"
    r = _check(capsys, "DONG.strictly-within-hull", "--P", P, "--X", "[[0,0],[1,0],[1,1],[0,1]]")
    assert r["literal"]["on_this_instance"] == "holds"


def test_hull_positive_weights_hold(capsys):
    P = "[[0.2,0.3,0.5],[0.6,0.1,0.3],[0.3,0.3,0.4]]"
    r = _check(capsys, "DONG.strictly-within-hull", "--P", P, "--X", "[[0,0],[1,0],[0,1]]")
    assert r["literal"]["on_this_instance"] == r["positive-weights"]["on_this_instance"] == "holds"


# --- HC.distinct-from-rank-collapse ----------------------------------------------------------------------------

def _npz(tmp_path, name, **mats):
    p = tmp_path / f"{name}.npz"
    np.savez(p, **{k: np.asarray(v, float) for k, v in mats.items()})
    return str(p)


def test_hc_distinct_an_instance_witnesses_one_part_only(capsys, tmp_path):
    two = _npz(tmp_path, "two", W_Q=[[[1, 0], [0, 1]], [[0, 1], [1, 1]]], W_K=[[[1, 1], [0, 1]], [[1, 0], [2, 1]]],
               W_V=[[[1, 0], [0, 1]], [[1, 1], [0, 1]]], W_O=[[[1, 0], [0, 1]], [[1, 2], [0, 1]]])
    a = _check(capsys, "HC.distinct-from-rank-collapse", "--X", "[[1,0],[0,1],[2,1]]", "--weights", two)["literal"]
    assert a["on_this_instance"] == "undecided" and "witnesses part (a) only" in a["conclusion"]["how"]
    uniform = _npz(tmp_path, "uniform", W_Q=np.zeros((1, 3, 2)), W_K=np.ones((1, 3, 2)),
                   W_V=[[[1, 0], [0, 1], [1, 1]]], W_O=[[[1, 0, 1], [0, 1, 2]]])
    b = _check(capsys, "HC.distinct-from-rank-collapse", "--X", "[[1,0,2],[0,1,1],[3,1,0]]", "--weights",
               uniform)["literal"]
    assert b["on_this_instance"] == "undecided" and "witnesses part (b) only" in b["conclusion"]["how"]
    assert "exact over Q" in b["conclusion"]["how"]


def test_hc_distinct_neither_part_is_not_a_witness(capsys):
    r = _check(capsys, "HC.distinct-from-rank-collapse", "--X", "[[1,0,2],[0,1,1],[3,1,0]]", "--heads", "3")
    assert r["literal"]["on_this_instance"] == "undecided" and r["literal"]["reason"] == NOT_A_WITNESS
    assert "witnesses neither part" in r["literal"]["conclusion"]["how"]


# --- RC.alpha-independent: a robust failure is a counterexample of a generic reading ---------------------------

def test_rc_alpha_independent_two_tokens_alpha_one_is_a_robust_counterexample(capsys, tmp_path):
    anti = _npz(tmp_path, "anti", W_Q=[np.eye(2)], W_K=[[[0, -1], [1, 0]]], W_V=[np.eye(2)], W_O=[np.eye(2)])
    lit = _check(capsys, "RC.alpha-independent", "--X", "[[1,0],[0,1]]", "--weights", anti)["literal"]
    assert lit["on_this_instance"] == "counterexample"
    assert lit["reason"].startswith(ROBUST_FAILURE) and "the whole slice n = 2, alpha_h = 1" in lit["reason"]
    # review s4: the set's measure is named: positive within the alpha_h = 1 slice, a null set of the weight space
    assert "measure named next" in ROBUST_FAILURE and "its measure: positive (full) measure within the alpha_h = 1 " \
        "slice" in lit["reason"] and "a null set of the full weight space" in lit["reason"]
    # three tokens: off the slice, decided by the certified ranks (dim R_1 = 2 here)
    lit3 = _check(capsys, "RC.alpha-independent", "--X", "[[1,0],[0,1],[1,1]]", "--weights", anti)["literal"]
    assert lit3["on_this_instance"] == "holds"


def test_decide_a_generic_failure_is_a_point_unless_it_names_its_positive_measure_certificate():
    c = next(c for c in registry() if c.id == "RC.alpha-independent")
    r = c.reading_of("literal")
    point = InstanceForm(hypotheses={}, conclusion=lambda v: Decided(False, "fails here"))
    assert decide(c, r, point, {})["on_this_instance"] == "exceptional-point"
    assert decide(c, r, point, {})["reason"] == GENERIC_POINT
    box = RobustSet("a box of X", "Lebesgue, positive in the full space", "a certified box")
    robust = InstanceForm(hypotheses={}, conclusion=lambda v: Decided(False, "fails here", robust=box))
    rec = decide(c, r, robust, {})
    assert rec["on_this_instance"] == "counterexample"
    assert rec["reason"] == (f"{ROBUST_FAILURE}: the set is a box of X; its measure: Lebesgue, positive in the full "
                             "space; certificate: a certified box")
    # a robust label on a conclusion that holds changes nothing
    held = InstanceForm(hypotheses={}, conclusion=lambda v: Decided(True, "holds", robust=box))
    assert decide(c, r, held, {})["on_this_instance"] == "holds"


def test_a_robust_failure_must_name_its_set_and_measure():
    """Review s4: "a set of positive measure" without the measure is refused at construction (planted: a bare
    string, as before, or a RobustSet with no measure)."""
    with pytest.raises(TypeError, match="RobustSet"):
        Decided(False, "fails here", robust="a certified box")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="its measure"):
        RobustSet("a box of X", " ", "a certified box")


# --- RN.effective-dimensionality:effective-rank ----------------------------------------------------------------

def test_effective_rank_certified_counterexample(capsys):
    r = _check(capsys, "RN.effective-dimensionality", "--reading", "effective-rank",
               "--X", "[[1,0,0],[1,1,0],[1,2,0]]")
    e = r["effective-rank"]
    how = e["conclusion"]["how"]
    assert e["on_this_instance"] == "counterexample"
    assert "erank X in [1.764016361" in how and "erank LN(X) in [1.970634314" in how  # float64: 1.76402, 1.97063


def test_effective_rank_holds_exactly_when_ln_only_rescales(capsys):
    """Centred rows of equal variance: LN(X) = X / sigma, the singular values scale together (H1-H4 hold)."""
    r = _check(capsys, "RN.effective-dimensionality", "--reading", "effective-rank",
               "--X", "[[1,-1,0],[0,1,-1],[-1,0,1]]")
    e = r["effective-rank"]
    assert e["on_this_instance"] == "holds" and "proportional" in e["conclusion"]["how"]


def test_effective_rank_with_a_shift_is_undecided_with_the_reason(capsys):
    r = _check(capsys, "RN.effective-dimensionality", "--reading", "effective-rank",
               "--X", "[[0,0,1],[0,1,0],[0,1,1]]", "--beta", "[1,0,0]")
    assert r["effective-rank"]["on_this_instance"] == "undecided"
    assert "beta != 0" in r["effective-rank"]["conclusion"]["how"]


def test_check_list_has_no_unclassified_claim_and_names_P(capsys):
    assert main(["check", "--list", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["no_instance_form_yet"] == []
    inputs = {c["claim"]: c["inputs"] for c in doc["checkable"]}
    assert "--P" in inputs["DONG.markov-geometric"] and "--P" in inputs["DONG.strictly-within-hull"]
    assert "HC.distinct-from-rank-collapse" in inputs
