"""Stress one user conjecture by its claim id (what `collapse-verify new` tests call).

The test reads the hypotheses and the conclusion from the registered conjecture, so renaming or adding
predicates in the conjecture's module needs no change here. A conjecture the ledger refutes is a
result, not a failure: the test then asserts what was found (the stored counterexample, or the one
found on this run, refutes it exactly, and a search from scratch finds a counterexample within the
profile's budget); one it does not refute must hold on every draw meeting its hypotheses, and some
draw must meet them (a vacuous conjecture is a defect).
"""
from __future__ import annotations

from hypothesis import given

from proofs_numeric import ledger as L
from property_tests._search import find_from_scratch
from theorems import framework as C
from theorems.framework import CONJECTURES, decode_instance

__all__ = ["stress_conjecture"]


def stress_conjecture(claim_id: str, counts) -> str:
    """Run the checks the ledger runs, then Hypothesis; returns the verdict."""
    L.registry()
    conj = CONJECTURES[claim_id]
    result = C.run_claim(conj.claim, C.CheckContext(quick=True))
    assert result.error is None, result.error
    verdict = result.verdict
    if verdict == "refuted":
        ces = [e for e in result.literal.evidence if e.kind == "counterexample"]
        assert ces, "a refuted conjecture shows its counterexample"
        if conj.stored_path().exists():  # the stored counterexample refutes it, read from the file
            data, _ = C.load_counterexample(claim_id)
            for r, rec in data["regimes"].items():
                assert conj.refutes(decode_instance(rec["value"])), f"{claim_id}: stored counterexample ({r})"
        inst = find_from_scratch(conj.strategy(), conj.refutes)
        counts["found from scratch"] += 1
        assert conj.refutes(inst)
        return verdict

    @given(conj.strategy())
    def prop(inst):
        counts["drawn"] += 1
        if conj.premise(inst):
            counts["met every hypothesis"] += 1
            assert C.tri(conj.conclusion(inst)) is not False, f"{claim_id} fails on {inst!r}"
    prop()
    assert counts["met every hypothesis"] > 0, f"{claim_id}: no draw met the hypotheses (vacuous)"
    return verdict
