"""The MLP's role (§5.3, with the abstract's and §1 gap (ii)'s sentences): what attention with a residual connection
cannot do. Every claim of the chapter runs with its computed verdict; the checks that decide them fail on crafted
inputs (a span that does not grow, a flat second derivative, a left product read as a right one)."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sympy import Matrix, eye, zeros

from proofs_numeric.ledger import get, registry
from property_tests.paper.quick_runs import quick_run
from property_tests.strategies import low_rank_matrices, value_output_maps
from theorems.exact import residual as RES
from theorems.exact.input import BadInput, exact_matrix
from theorems.exact.linalg import in_rowspace
from theorems.framework import CheckContext, assess, load_counterexample
from theorems.paper import mlp_role as MLP

_QUICK = CheckContext(dps=30, quick=True)

#: the chapter's claims and the headline verdict each earns (a change is a change of finding)
VERDICTS = {
    "MLP.span": "refuted", "MLP.curvature": "refuted", "MLP.not-globally-affine": "proved",
    "MLP.first-order-form": "conditional", "MLP.layer-jacobian": "supported", "MLP.tangent-space": "not-checkable",
    "MLP.bilinear-attention": "refuted",
}
READINGS = {("MLP.span", "invariant-hull"): "supported", ("MLP.curvature", "first-order"): "supported",
            ("MLP.first-order-form", "right-product"): "refuted",
            ("MLP.first-order-form", "linear-operator"): "supported",
            ("MLP.not-globally-affine", "consistent-with-curvature-claim"): "proved",
            ("MLP.bilinear-attention", "scores-bilinear"): "supported"}


def test_mlp_role_the_chapter_holds_exactly_the_seven_claims_of_the_mlp():
    """Every claim of the chapter, and no other: MLP.function (an MLP alone prevents collapse) is the depth study's."""
    assert sorted(c.id for c in registry() if c.chapter == "mlp_role") == sorted(VERDICTS)
    assert get("MLP.function").chapter == "dong_collapse"


@pytest.mark.parametrize("cid", sorted(VERDICTS), ids=str)
def test_mlp_role_claim_runs_with_its_computed_verdict(cid):
    r = quick_run(cid)
    assert r.error is None, r.error
    for rr in r.readings:
        assert rr.verdict == assess(rr.evidence, rr.regimes, rr.form).verdict
    if VERDICTS[cid] == "supported" and r.verdict == "proved":  # a Coq proof (where coqc is installed) earns more
        assert r.strength == "formal", f"{cid}: proved without a formal proof"
        return
    assert r.verdict == VERDICTS[cid], f"{cid}: {r.verdict} ({r.literal.reason or r.literal.condition})"


@pytest.mark.parametrize("key", sorted(READINGS), ids=lambda k: f"{k[0]}:{k[1]}")
def test_mlp_role_reading_verdicts(key):
    rr = quick_run(key[0]).reading(key[1])
    if READINGS[key] == "supported" and rr.verdict == "proved":  # its Coq lemma, where coqc is installed
        assert any(e.kind == "formal" for e in rr.evidence), f"{key}: proved without a formal proof"
        return
    assert rr.verdict == READINGS[key]


def test_mlp_role_mlp_span_counterexample_1():
    data, _ = load_counterexample("MLP.span")
    X, W = exact_matrix(data["X"]), exact_matrix(data["W_VO"])
    FX = RES.F_uniform(X, [W])
    assert any(not in_rowspace(X, FX.row(i)) for i in range(X.shape[0]))


@given(st.data())
def test_mlp_role_attention_stays_in_invariant_hull(data):
    X = data.draw(low_rank_matrices(max_entry=2, max_side=5))
    Ws = data.draw(value_output_maps(d=X.shape[1], max_entry=2, allow_edges=True))  # true for every W, edges included
    S = RES.invariant_hull(X, Ws)
    Y = RES.F_uniform(RES.F_uniform(X, Ws), Ws)
    assert all(in_rowspace(S, Y.row(i)) for i in range(Y.shape[0]))


def test_mlp_role_attention_is_curved():
    d2, _ = RES.attention_second_derivative(load_counterexample("MLP.curvature")[0])
    assert any(v != 0 for v in d2)


def _conclusion(cid: str, key: str):
    """The conclusion predicate a reading of the registered claim decides on its instances."""
    return next(r for r in get(cid).readings if r.key == key).decl.conclusion[1]


def test_mlp_role_hull_check_fails_on_a_stack_that_leaves_the_hull(monkeypatch):
    """The invariant-hull reading's conclusion is a real test: with the hull replaced by row(X) itself (what the
    literal sentence says), a generic W takes the stack outside it."""
    x = {"X": Matrix([[1, 0, 0], [0, 0, 0]]), "W": [Matrix([[0, 1, 0], [0, 0, 1], [1, 0, 0]])]}
    stays = _conclusion("MLP.span", "invariant-hull")
    assert stays(x)
    monkeypatch.setattr(MLP, "invariant_hull", lambda X, Ws: X)
    assert not stays(x)


def test_mlp_role_first_order_form_is_a_left_product_for_uniform_attention():
    """The derivative of X + (J/n) X W is dX + (J/n) dX W: a left product only when W is a multiple of I."""
    right = _conclusion("MLP.first-order-form", "right-product")
    left = MLP.is_left_multiplication
    assert left(MLP.jacobian_images(3, 2, 2 * eye(2)), 3, 2)
    assert not left(MLP.jacobian_images(3, 2, Matrix([[1, 2], [0, 1]])), 3, 2)
    assert not right({"n": 3, "d": 2, "W": zeros(2, 2) + eye(2)})
    assert right({"n": 1, "d": 2, "W": Matrix([[1, 2], [0, 1]])})  # n = 1: J = I, a right product


class _Weights:
    def __init__(self, d, Ws):
        self.d, self._Ws = d, Ws

    def uniform_value_outputs(self, who):
        return self._Ws


class _User:
    def __init__(self, weights=None, n=None):
        self.weights, self.n = weights, n


def test_mlp_role_first_order_instance_names_what_is_missing_or_too_large():
    """--weights and --n are both needed, and n d is bounded (the derivative is built from n d basis images)."""
    with pytest.raises(BadInput, match="needs weights"):
        MLP.UNIFORM_FIRST_ORDER.build(_User(None, 2))
    with pytest.raises(BadInput, match="--n N"):
        MLP.UNIFORM_FIRST_ORDER.build(_User(_Weights(2, [eye(2)]), None))
    with pytest.raises(BadInput, match="n d <= 64"):
        MLP.UNIFORM_FIRST_ORDER.build(_User(_Weights(9, [eye(9)]), 8))
    x = MLP.UNIFORM_FIRST_ORDER.build(_User(_Weights(2, [eye(2), 2 * eye(2)]), 3))
    assert x == {"n": 3, "d": 2, "W": 3 * eye(2)}
