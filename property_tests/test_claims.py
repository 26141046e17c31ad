"""The registry and the verdict rule: every registered claim is run and its verdict computed."""
from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from theorems.claims import (EVIDENCE_KINDS, VERDICTS, CheckContext, Evidence, registry, run_claim,
                             verdict_from)

_QUICK = CheckContext(dps=30, quick=True)


def _ev(kind="exact", holds=True, scope="instances", regime="all"):
    return Evidence(kind=kind, holds=holds, scope=scope, regime=regime, summary="t", arithmetic="QQ")


evidence_lists = st.lists(
    st.builds(_ev, kind=st.sampled_from([k for k in EVIDENCE_KINDS if k != "counterexample"]),
              holds=st.sampled_from([True, False, None]), scope=st.sampled_from(["general", "instances", "witness"]),
              regime=st.sampled_from(["all", "n<d", "n=d", "n>d"])), max_size=6)


@given(evidence_lists)
def test_claims_verdict_is_total_and_consistent(ev):
    v = verdict_from(ev)
    assert v in VERDICTS
    if all(e.holds is None for e in ev):
        assert v == "not-checkable"
    if all(e.holds is not False for e in ev) and any(e.holds for e in ev):
        assert v in ("proved", "certified", "supported")
    if v == "proved":
        assert any(e.kind == "exact" and e.scope == "general" for e in ev)


@given(evidence_lists)
def test_claims_a_counterexample_always_refutes(ev):
    ce = Evidence(kind="counterexample", holds=False, summary="c", arithmetic="QQ", scope="witness")
    assert verdict_from([*ev, ce]) == "refuted"


def test_claims_verdict_examples():
    assert verdict_from([_ev(scope="general")]) == "proved"
    assert verdict_from([_ev(scope="general", regime="n<d"), _ev(regime="n>d")]) == "supported"
    assert verdict_from([_ev(kind="interval-certified", scope="witness")]) == "certified"
    assert verdict_from([_ev(kind="interval-certified")]) == "supported"  # certified instances of a universal claim
    assert verdict_from([_ev(kind="float-evidence")]) == "supported"
    assert verdict_from([_ev(regime="n<d"), _ev(holds=False, kind="float-evidence", regime="n>d")]) == "conditional"
    assert verdict_from([_ev(holds=None)]) == "not-checkable"
    with pytest.raises(ValueError):
        Evidence(kind="counterexample", holds=True, summary="", arithmetic="")
    with pytest.raises(ValueError):
        Evidence(kind="made-up", holds=True, summary="", arithmetic="")


@pytest.mark.parametrize("claim", registry(), ids=lambda c: c.id)
def test_claims_every_registered_claim_runs_and_gets_a_computed_verdict(claim):
    """Every claim (the paper's, and any plug-in's) runs; its verdict follows from its evidence."""
    r = run_claim(claim, _QUICK)
    assert r.error is None
    for rr in r.readings:
        assert rr.verdict == verdict_from(rr.evidence)
        assert rr.evidence, f"{claim.id} reading {rr.key} produced no evidence"
        for e in rr.evidence:
            assert e.arithmetic, "every piece of evidence says which arithmetic decided it"
    if r.verdict == "refuted":
        ce = [e for e in r.literal.evidence if e.kind == "counterexample"]
        for e in ce:
            assert e.counterexample, "a stored counterexample names its file"
    json.dumps(r.to_json(), default=str)


def test_claims_rank_neutrality_ledger_is_what_the_suite_found():
    """The five RN claims of the issue are registered, each with a computed verdict."""
    ids = {c.id for c in registry()}
    assert {"RN.main", "RN.matrix-rank", "RN.plus-one", "RN.H4-generic", "RN.hypotheses-at-init"} <= ids
    verdicts = {c.id: run_claim(c, _QUICK).verdict for c in registry() if c.id.startswith("RN.")}
    # what the exact layer establishes (a change here is a change of finding, not of style)
    assert verdicts["RN.main"] == "refuted"
    assert verdicts["RN.matrix-rank"] == "proved"
    assert verdicts["RN.plus-one"] == "refuted"
    assert verdicts["RN.H4-generic"] == "refuted"
    assert verdicts["RN.hypotheses-at-init"] == "refuted"
