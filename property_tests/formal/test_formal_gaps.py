"""Every supported claim or reading (exact, interval or float) is proved (formal) or says why not: its ``formal_gap``.

The ledger test reads every claim's verdicts from the session's quick ledger (``verify --quick`` in a fresh
process: the ``quick_ledger`` fixture of property_tests/conftest.py); it needs Coq, MathComp and
MathComp-Analysis (without them the formal evidence is "not run" and the proved claims fall to supported). The
declaration and audit tests run everywhere.
"""
from __future__ import annotations

import json
import shutil

import pytest

from proofs_numeric.cli import main
from proofs_numeric.ledger import registry
from proofs_numeric.ledger.report import formal_gaps
from property_tests.paper.quick_runs import LEDGER_GROUP
from theorems import formal
from theorems.framework import (
    FORMAL_GAP_REASONS,
    FormalGap,
    Reading,
    ReadingResult,
    claim,
    formal_gap_problems,
    parse_ref,
)

needs_proofs = pytest.mark.skipif(shutil.which("coqc") is None or not formal.mathcomp_available()
                                  or not formal.analysis_available(),
                                  reason="Coq, MathComp or MathComp-Analysis not installed: the proved claims would "
                                         "fall to supported (apt-get install coq libcoq-mathcomp-algebra "
                                         "libcoq-mathcomp-analysis libcoq-mathcomp-real-closed)")


def _known() -> set[str]:
    """Every claim id, and every "CLAIM.ID:reading"."""
    out = set()
    for c in registry():
        out.add(c.id)
        out.update(f"{c.id}:{r.key}" for r in c.all_readings())
    return out


# ---- the ledger -------------------------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.xdist_group(LEDGER_GROUP)  # on the worker that computes the session's quick ledger
@needs_proofs
def test_formal_gaps_every_supported_exact_statement_is_proved_or_says_why(quick_ledger):
    """The suite's claims; a user's conjecture (``source="user"``) may carry a gap but is not asked for one, and a
    stale gap is flagged wherever it is."""
    missing = [c.id for c in registry() if c.id not in quick_ledger]
    assert not missing, f"registered here but missing from the fresh process's ledger: {missing}"
    results = [(c.id, rr) for c in registry() for rr in quick_ledger[c.id].readings]
    problems = formal_gap_problems(results, _known())
    users = {c.id for c in registry() if c.source == "user"}
    missing = [w for w in problems["missing"] if w.partition(":")[0] not in users]
    assert not missing, "supported, neither proved (formal) nor with a formal_gap: " + ", ".join(missing)
    assert not problems["stale"], "formal_gap on a statement proved (formal): " + ", ".join(problems["stale"])
    assert not problems["unknown_counterexample"], ", ".join(problems["unknown_counterexample"])


def test_formal_gaps_reasons_are_from_the_list_and_counterexamples_exist():
    gaps = formal_gaps()
    assert gaps, "no formal_gap declared"
    known = _known()
    ids = {c.id for c in registry()}
    for cid, key, gap in gaps:
        assert gap.reason in FORMAL_GAP_REASONS, (cid, key, gap.reason)
        if gap.reason == "false-in-general":
            ref_id, _ = parse_ref(gap.counterexample)
            assert ref_id in ids and gap.counterexample in known, (cid, key, gap.counterexample)
            assert gap.claim_ref != (cid, key), f"{cid}:{key} names itself as its own counterexample"
        else:
            assert gap.counterexample is None
        if gap.reason in ("needs-analysis", "finite-instance", "not-yet-proved"):
            assert gap.detail.strip(), (cid, key)


def test_formal_gaps_none_on_a_statement_with_a_registered_lemma():
    """A lemma attached to a reading makes it proved (formal) where Coq runs: a gap there is stale by construction
    (checked without Coq: the registry alone)."""
    attached = {(lm.claim, lm.reading or "literal") for lm in formal.LEMMAS}
    clash = [f"{cid}:{key}" for cid, key, _ in formal_gaps() if (cid, key) in attached]
    assert not clash, "formal_gap beside a registered Coq lemma: " + ", ".join(clash)


def test_formal_null_set_lemma_carries_the_generic_readings():
    """The null-set lemma (null_set*.v) is the evidence of the Lebesgue form of each generic statement it proves: the
    five claims that waited on it (issue 60's needs-null-set) and the readings named in the book, and none of them
    keeps a needs-null-set gap (checked without Coq: the registry alone)."""
    proved = [("RC.generic-wv", None), ("RRO.only-increase", "free-delta"), ("RRO.prop51", None),
              ("RRO.remark-iii-generic", None), ("RRO.rank-r-witness", "increments-null"),
              ("RRO.main", "lebesgue-on-all-matrices"), ("RRO.thm53-argument", "strata-null-vacuous"),
              ("RRO.witness-wo-choice", "corrected"), ("RRO.analytic-measure-zero", "polynomial")]
    for cid, reading in proved:
        lemmas = formal.lemmas_for(cid, reading)
        assert any(lm.module.startswith("null_set") for lm in lemmas), (cid, reading)
    assert [f"{cid}:{key}" for cid, key, gap in formal_gaps() if gap.reason == "needs-null-set"] == []


# ---- the audit can fail ------------------------------------------------------------------------------------------

def _rr(key: str, verdict: str, strength: str, gap: FormalGap | None = None) -> ReadingResult:
    return ReadingResult(key, "", verdict, [], None, 0.0, strength, formal_gap=gap)


def test_formal_gaps_audit_flags_missing_stale_and_unknown():
    null = FormalGap("needs-null-set")
    results = [
        ("T.a", _rr("literal", "supported", "exact")),                      # missing
        ("T.b", _rr("literal", "supported", "exact", null)),                # fine
        ("T.c", _rr("literal", "proved", "formal", null)),                  # stale
        ("T.c", _rr("corrected", "proved", "formal")),                      # fine
        ("T.d", _rr("literal", "conditional", "exact", FormalGap("finite-instance", "one checkpoint"))),  # allowed
        ("T.e", _rr("x", "supported", "exact",
                    FormalGap("false-in-general", "fails at n = 2", counterexample="T.nowhere"))),  # unknown
        ("T.f", _rr("literal", "supported", "float")),                       # float only: missing too
        ("T.g", _rr("literal", "supported", "interval",
                    FormalGap("numerical-only", "a certified rate"))),             # fine: says it is numerical
    ]
    p = formal_gap_problems(results, {"T.a", "T.b", "T.c", "T.d", "T.e", "T.f", "T.g"})
    assert p["missing"] == ["T.a", "T.f"]
    assert p["stale"] == ["T.c (proved (formal), gap needs-null-set)"]
    assert p["unknown_counterexample"] == ["T.e:x names T.nowhere"]
    assert formal_gap_problems(results[1:2] + results[3:4], {"T.b"}) == \
        {"missing": [], "stale": [], "unknown_counterexample": []}


# ---- declaring a gap ---------------------------------------------------------------------------------------------

def test_formal_gaps_a_bad_reason_is_an_error_naming_it():
    with pytest.raises(ValueError, match=r"formal_gap reason 'obvious' is not one of: false-in-general"):
        FormalGap("obvious")
    with pytest.raises(ValueError, match="needs a detail: what MathComp-Analysis 0.6.0 lacks"):
        FormalGap("needs-analysis")
    with pytest.raises(ValueError, match="names the claim whose counterexample shows it"):
        FormalGap("false-in-general", "fails at n = 2")
    with pytest.raises(ValueError, match="counterexample= belongs to false-in-general only"):
        FormalGap("needs-null-set", counterexample="RN.main")
    with pytest.raises(TypeError, match=r"claim T\.gap: formal_gap is a FormalGap"):
        claim(id="T.gap", statement="x", conclusion="y", formal_gap="needs-null-set",  # type: ignore[arg-type]
              register_claim=False)
    with pytest.raises(TypeError, match=r"claim T\.gap reading r: formal_gap is a FormalGap"):
        claim(id="T.gap", statement="x", conclusion="y", register_claim=False,
              readings=[Reading("r", "z", formal_gap=("needs-analysis", "limits"))])  # type: ignore[arg-type]


def test_formal_gaps_travel_with_the_reading_into_the_ledger_json():
    gap = FormalGap("needs-analysis", "the derivative of expR on matrices")
    c = claim(id="T.gap", statement="x", conclusion="y", register_claim=False, formal_gap=gap,
              readings=[Reading("r", "z", formal_gap=FormalGap("not-mathematical"))])
    rr = _rr("literal", "supported", "exact", c.reading_of("literal").formal_gap)
    assert rr.to_json()["formal_gap"] == {"reason": "needs-analysis", "detail": gap.detail, "counterexample": None}
    assert FormalGap.from_json(rr.to_json()["formal_gap"]) == gap
    assert c.reading_of("r").formal_gap == FormalGap("not-mathematical")


def test_formal_gaps_show_prints_the_gap_and_the_json_carries_it(capsys):
    assert main(["show", "DONG.path-expansion", "--quick"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "formal gap [not-yet-proved]: true for every size, not proved here: an induction over L" in out
    assert main(["show", "DONG.path-expansion", "--quick", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["formal_gap"]["reason"] == "not-yet-proved" and rec["formal_gap"]["counterexample"] is None
