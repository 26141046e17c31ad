"""Every rewritten check has a path to False: each test below drives one to False (and to None where
it measured nothing). A check that cannot fail is not evidence."""
from __future__ import annotations

import pytest
from sympy import Matrix, Rational

import proofs_numeric.witnesses.rank_contraction as NRC
from theorems.exact import heads as HEADS
from theorems.exact.layernorm import LNInstance, analyse
from theorems.framework import CheckContext
from theorems.paper import head_channel as HC
from theorems.paper.dong_collapse import rank_blind_to_collapse, skip_bound_holds
from theorems.paper.rank_neutrality import h4_width_two

_QUICK = CheckContext(dps=30, quick=True)


def test_checks_skip_weight_bound_can_fail():
    """||R^l|| >= (1 - gamma_W)^l ||R^0||: a trajectory decaying faster than the bound fails it."""
    assert skip_bound_holds([0.0, -0.1, -0.2], 0.5) is True  # log10(0.5) = -0.301 per layer allowed
    assert skip_bound_holds([0.0, -0.5, -1.0], 0.5) is False
    assert skip_bound_holds([0.0, -5.0], 1.2) is None  # gamma_W >= 1: no bound, nothing to check


def _layer(rank_lo, rank_hi, below):
    return {"certified_rank": [rank_lo, rank_hi], "rho_below_2^-52": below}


def test_checks_inference_rank_versus_collapse_can_fail():
    """The inference's counterexample needs full certified rank AND a certified collapse."""
    assert rank_blind_to_collapse([_layer(6, 6, False), _layer(6, 6, True)], 6) is True
    assert rank_blind_to_collapse([_layer(6, 6, False), _layer(1, 1, True)], 6) is False  # rank saw it
    assert rank_blind_to_collapse([_layer(6, 6, False), _layer(6, 6, None)], 6) is None


def test_checks_mlp_cannot_remedy_can_fail():
    """Outputs computed separately from two tuples: equal for a kernel pair, different otherwise."""
    W = Matrix([[1, 0], [2, 0], [0, 1], [0, 2]])  # H = 2, d_k = 2, rank 2 < 4
    phi = lambda Ys: HEADS.Phi_a(Ys, W)
    Ys = [Matrix([[1, 2]]), Matrix([[3, -1]])]
    K = HEADS.kernel_basis_a(W)[0].T
    assert HC.mlp_cannot_separate(Ys, [K[:, 0:2], K[:, 2:4]], phi, HC.gelu_like) is True
    not_kernel = [Matrix([[1, 0]]), Matrix([[0, 0]])]
    assert HC.mlp_cannot_separate(Ys, not_kernel, phi, HC.gelu_like) is False
    assert HC.mlp_cannot_separate(Ys, [Matrix([[0, 0]])] * 2, phi, HC.gelu_like) is None


def test_checks_kernel_step_compares_the_map_not_the_formula(monkeypatch):
    """The kernel-formula step checks the map's own nullity: a wrong formula makes it fail."""
    assert HEADS.step_kernel_a() is True
    monkeypatch.setattr(HEADS, "kernel_dim_a", lambda n, H, d_k, W_O: n * H * d_k)
    assert HEADS.step_kernel_a() is False


def test_checks_prop63_is_three_valued(monkeypatch):
    """A certified dim R_h on the wrong side of min(rank X, d_k) is a failure, not 'undecided'."""
    fake = [("n<d", (4, 6, 2, 3, 4), {"rank_X": 4, "d_k": 3, "dim_R": [(2, 2), (3, 3)]}),
            ("n<d", (4, 6, 2, 3, 4), {"rank_X": 4, "d_k": 3, "dim_R": [(3, 3), (3, 3)]}),
            ("n<d", (4, 6, 2, 3, 4), {"rank_X": 4, "d_k": 3, "dim_R": [(2, 3), (3, 3)]})]
    monkeypatch.setattr(NRC, "certified_shapes", lambda ctx: fake)
    assert [e.holds for e in NRC.prop63_evidence(_QUICK)] == [False, True, None]


@pytest.mark.parametrize("rows, expected", [([[1, 0], [2, 0]], False), ([[1, 0], [0, 2]], True),
                                            ([[3, 1], [2, 1], [5, 0]], False), ([[3, 1], [1, 2], [0, 5]], True)])
def test_checks_h4_at_width_two_matches_the_exact_decision(rows, expected):
    X = Matrix(rows)
    a = analyse(LNInstance(X, (Rational(1),) * 2, (Rational(0),) * 2))
    assert h4_width_two(X) is expected
    assert a.hypotheses["H4"] is expected
