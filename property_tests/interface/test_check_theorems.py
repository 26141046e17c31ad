"""`collapse-verify check THEOREM` for every theorem: one input meeting the hypotheses and one breaking them,
and the weights file validated with named errors."""
from __future__ import annotations

import json

import numpy as np
import pytest

from proofs_numeric.cli import main


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _json(capsys, *argv):
    code, out, err = _run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_check_residual_obstruction_meets_and_breaks_the_hypothesis(capsys):
    r = _json(capsys, "check", "residual-obstruction", "--X", "[[1,0,0],[0,0,0],[0,0,0],[0,0,0]]", "--seed", "1",
              "--heads", "1")
    assert r["hypotheses"]["rank X < min(n, d)"]["holds"] is True and r["rank_X"] == 1
    assert r["conclusion"]["rank(X + MHA(X)) > rank(X)"] is True and r["rank_F_lower"] >= 2  # certified
    r = _json(capsys, "check", "residual-obstruction", "--X", "[[1,0,0],[0,1,0],[0,0,1]]", "--seed", "1",
              "--heads", "1")
    assert r["hypotheses"]["rank X < min(n, d)"]["holds"] is False  # full rank: the theorem says nothing
    assert r["conclusion"]["rank(X + MHA(X)) > rank(X)"] in (False, None)


def test_check_residual_obstruction_degenerate_weights_are_never_certified_to_increase(tmp_path, capsys):
    """W_V W_O = I with W_Q = 0: F(X) = (I + A) X, rank never increases; the check must not claim it does."""
    d, H = 3, 1
    W = {"W_Q": np.zeros((H, d, d)), "W_K": np.zeros((H, d, d)), "W_V": np.eye(d)[None], "W_O": np.eye(d)[None]}
    p = tmp_path / "W.npz"
    np.savez(p, **W)
    r = _json(capsys, "check", "residual-obstruction", "--X", "[[1,0,0],[2,0,0],[0,0,0]]", "--weights", str(p))
    assert r["conclusion"]["rank(X + MHA(X)) > rank(X)"] is not True
    assert r["rank_F_lower"] <= r["rank_X"]


def test_check_head_channel_full_and_deficient_W_O(capsys):
    r = _json(capsys, "check", "head-channel", "--W-O", "[[1,0,0],[0,1,0],[0,0,1],[1,1,0]]", "--heads", "2")
    assert r["rank_W_O"] == 3 and r["recoverable"] is False  # H d_k = 4 > d = 3: a head channel is lost
    assert r["kernel_dim_per_token"]["a (W_O known)"] == 1
    r = _json(capsys, "check", "head-channel", "--W-O", "[[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]", "--heads", "2")
    assert r["rank_W_O"] == 4 and r["recoverable"] is True and r["kernel_dim_per_token"]["a (W_O known)"] == 0


def test_check_recovery_ambiguity_under_each_reading(capsys):
    r = _json(capsys, "check", "recovery-ambiguity", "--W-O", "[[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]",
              "--heads", "2", "--n", "512")
    assert r["ambiguity_dimension"]["a (W_O known)"] == 0
    assert r["ambiguity_dimension"]["b (sum without projection)"] == 512 * (2 - 1) * 2 == r["paper_formula_n(H-1)d_k"]


def test_check_rank_contraction_certified(capsys):
    r = _json(capsys, "check", "rank-contraction", "--X", "[[1,2,0,1],[0,1,1,0],[2,0,1,1]]", "--seed", "3",
              "--heads", "2")
    assert r["rank_X"] == 3 and len(r["dim_R_h"]) == 2 and len(r["alpha_h"]) == 2
    lo, hi = r["rank_MHA"]
    assert lo <= hi <= 3


@pytest.mark.parametrize("arrays, needle", [
    ({"W_Q": np.zeros((1, 3, 3))}, "lacks W_K, W_V, W_O"),
    ({"W_Q": np.zeros((1, 3, 3)), "W_K": np.zeros((1, 3, 3)), "W_V": np.zeros((1, 3, 3)), "W_O": np.zeros((1, 2, 3))},
     "W_O has shape"),
    ({"W_Q": np.zeros((1, 4, 3)), "W_K": np.zeros((1, 4, 3)), "W_V": np.zeros((1, 4, 3)), "W_O": np.zeros((1, 3, 4))},
     "d = 4 in the weights but X has d = 3"),
    ({"W_Q": np.full((1, 3, 3), np.nan), "W_K": np.zeros((1, 3, 3)), "W_V": np.zeros((1, 3, 3)),
      "W_O": np.zeros((1, 3, 3))}, "NaN"),
])
def test_check_weights_file_is_validated_with_named_errors(tmp_path, capsys, arrays, needle):
    p = tmp_path / "W.npz"
    np.savez(p, **arrays)
    code, _, err = _run(capsys, "check", "rank-contraction", "--X", "[[1,0,0],[0,1,0]]", "--weights", str(p))
    assert code == 2 and needle in err and "Traceback" not in err


@pytest.mark.parametrize("argv, needle", [
    (["check", "head-channel", "--W-O", "[[1,0],[0,1],[1,1]]", "--heads", "2"], "does not divide"),
    (["check", "head-channel", "--W-O", "[[1,0],[0,1]]"], "needs --heads"),
    (["check", "recovery-ambiguity", "--W-O", "[[1,0],[0,1]]", "--heads", "2"], "needs --n"),
    (["check", "residual-obstruction"], "needs --X"),
    (["check", "residual-obstruction", "--X", "[[1,0,0],[0,0,0]]", "--seed", "0", "--heads", "2"], "divide"),
    (["check", "nope", "--X", "[[1]]"], "unknown theorem"),
])
def test_check_bad_arguments_are_named(capsys, argv, needle):
    code, _, err = _run(capsys, *argv)
    assert code == 2 and needle in err
