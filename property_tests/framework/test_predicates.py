"""Predicates as objects (theorems.framework.Predicate): one object per hypothesis and conclusion, handlers per
instance type, and wherever two handlers of one predicate apply to the same instance they agree.

Theorem 5.3's predicates are declared once by the paper (``theorems.paper.residual_obstruction``) with exact handlers
for the Pools' dict instances; the numeric layer registers interval handlers for a user's X and weights
(``AttentionInput``) on the same objects. With uniform attention (W_Q = 0) both describe the same map
F(X) = X + X W_V W_O, so the two handlers must give the same answer on every such instance.
"""
from __future__ import annotations

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from proofs_numeric.witnesses import residual_obstruction as RRO_NUM
from proofs_numeric.witnesses.rank_contraction import HeadsInput
from theorems.exact.reader import ExactWeights, UserInput, matrix_from
from theorems.framework import Decided, Predicate, tri
from theorems.paper import rank_contraction as RC
from theorems.paper import residual_obstruction as RRO


def _value(got):
    return tri(got.value if isinstance(got, Decided) else got)


def test_predicates_a_type_without_a_handler_is_undecided_never_false():
    p = Predicate("x > 0")
    p.register(int)(lambda x: x > 0)
    got = p("3")
    assert isinstance(got, Decided) and got.value is None and "no handler for str instances" in got.how
    assert p(True) is True  # bool is an int: its base's handler
    try:
        p.register(int)(lambda x: x >= 0)
    except ValueError as e:
        assert "already registered" in str(e)
    else:
        raise AssertionError("a second handler for one type must be refused")


def test_predicates_each_paper_object_has_its_exact_and_its_interval_handler():
    """The numeric layer registered on the paper's own objects (no English name joins the layers)."""
    for p in (RRO.RANK_DEFICIENT, RRO.RANK_RISES, RRO.RANK_R_DEFICIENT, RRO.DISTINCT_TOKENS, RRO.OUTSIDE_BAD_SET):
        assert set(p.types()) == {"dict", "AttentionInput"}, p
    assert RRO.GENERIC_WEIGHTS.types() == ["AttentionInput"]
    for name in ("N_GT_DK", "RANK_A_MIN", "CONTRACTS", "DIM_IS_DK", "RANK_X_GE_DK"):
        assert set(getattr(RC, name).types()) == {"dict", "HeadsInput"}, name
    assert isinstance(HeadsInput(), dict)


def _zero(d, k):
    return [[0] * k for _ in range(d)]


small = st.integers(-2, 2)


@settings(deadline=None, max_examples=25)
@given(n=st.integers(2, 3), d=st.integers(2, 3), data=st.data())
def test_predicates_exact_and_interval_handlers_agree_on_uniform_attention(n, d, data):
    """rank X < min(n, d) and rank F(X) > rank X, decided exactly on {X, W_VO} and in intervals on the user's X with
    weights W_Q = W_K = 0 (uniform attention), W_V = M, W_O = I: the same instance, the same answers."""
    X = data.draw(st.lists(st.lists(small, min_size=d, max_size=d), min_size=n, max_size=n))
    M = data.draw(st.lists(st.lists(small, min_size=d, max_size=d), min_size=d, max_size=d))
    eye = [[int(i == j) for j in range(d)] for i in range(d)]
    exact = {"X": sympy.Matrix(X), "W_VO": [sympy.Matrix(M)]}
    heads = [tuple(matrix_from(m, nm) for m, nm in ((_zero(d, d), "W_Q"), (_zero(d, d), "W_K"), (M, "W_V"),
                                                    (eye, "W_O")))]
    user = UserInput(matrices={"X": matrix_from(X, "X")}, weights=ExactWeights(heads, "test"), seed=0, dps=30)
    inst = RRO_NUM.user_instance(user)
    assert type(inst) is RRO_NUM.AttentionInput
    for p in (RRO.RANK_DEFICIENT, RRO.RANK_RISES):
        a, b = _value(p(exact)), _value(p(inst))
        assert b is not None, (p.name, p(inst))  # uniform attention: the interval path is exact here
        assert a == b, (p.name, X, M, p(inst))


def test_predicates_a_handler_declares_its_own_cost():
    """Cost is of deciding on an instance type: the Pool's exact handler of `generic weights` is cheap, the interval
    handler on a user's or a site's weights (exact d x d products) is costly, so decide() runs it last and skips it
    once the premise already fails."""
    p = Predicate("x > 0")
    p.register(int)(lambda x: x > 0)
    p.register(float, cost=Predicate.COSTLY)(lambda x: x > 0)
    assert p.cost_on(1) == 1 and p.cost_on(1.0) == Predicate.COSTLY and p.cost_on("s") == p.cost
    assert RRO.GENERIC_WEIGHTS.cost_on(RRO_NUM.AttentionInput()) >= Predicate.COSTLY
    assert RRO.RANK_DEFICIENT.cost_on(RRO_NUM.AttentionInput()) == 1


@settings(deadline=None, max_examples=40)
@given(d=st.integers(1, 4), dk=st.integers(1, 4), H=st.integers(1, 2), scalar=st.booleans(), data=st.data())
def test_predicates_generic_weights_probe_agrees_with_the_whole_product(d, dk, H, scalar, data):
    """`generic weights` on a user's weights first looks for an off-diagonal non-zero entry in a few columns of
    W_V^h W_O^h (d d_k products each); it must answer exactly as the whole product does (False in the exceptional
    set W_V W_O = c I, undecided outside it), including on weights built to be in that set."""
    heads = []
    for _ in range(H):
        if scalar and dk >= d:  # W_V = [c I | 0], W_O = [I; 0]: W_V W_O = c I
            c = data.draw(small)
            WV = [[c * int(i == k) for k in range(dk)] for i in range(d)]
            WO = [[int(k == j) for j in range(d)] for k in range(dk)]
        else:
            WV = data.draw(st.lists(st.lists(small, min_size=dk, max_size=dk), min_size=d, max_size=d))
            WO = data.draw(st.lists(st.lists(small, min_size=d, max_size=d), min_size=dk, max_size=dk))
        heads.append(tuple(matrix_from(m, nm) for m, nm in ((_zero(d, dk), "W_Q"), (_zero(d, dk), "W_K"),
                                                            (WV, "W_V"), (WO, "W_O"))))
    W = ExactWeights(heads, "test")
    whole = all(M == M[0, 0] * sympy.eye(d) for M in W.value_output())
    got = RRO.GENERIC_WEIGHTS(RRO_NUM.AttentionInput({"weights": W}))
    assert got.value is (False if whole else None), (whole, got)
