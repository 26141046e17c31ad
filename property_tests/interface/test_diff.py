"""``verify --diff OLD.json``: what changed between two ledgers, old -> new, with the new reason."""
from __future__ import annotations

import copy
import json

import pytest

from proofs_numeric.cli import main
from proofs_numeric.ledger.diff import DiffError, ledger_diff, load_ledger, render_diff


def _ledger(*claims):
    return {"collapse_verify": {"kind": "ledger", "version": 1}, "claims": list(claims)}


def _claim(cid, verdict="supported", strength="exact", readings=(), evidence=None, **kw):
    return {"id": cid, "verdict": verdict, "strength": strength, "readings": list(readings),
            "evidence": evidence if evidence is not None else [{"kind": "exact", "scope": "sample",
                                                                "regime": "all", "holds": True, "summary": "s"}],
            **kw}


def test_diff_lists_a_changed_verdict_and_strength_with_the_new_reason():
    old = _ledger(_claim("A.x"), _claim("B.y", readings=[{"key": "r", "verdict": "proved", "strength": "formal"}]))
    new = copy.deepcopy(old)
    new["claims"][0].update(verdict="conditional", condition="only when n > d_k")
    new["claims"][1]["readings"][0]["strength"] = "exact"
    d = ledger_diff(old, new)
    assert [(r["claim"], r["reading"], r["old"], r["new"]) for r in d["changed"]] == [
        ("A.x", None, {"verdict": "supported", "strength": "exact"}, {"verdict": "conditional", "strength": "exact"}),
        ("B.y", "r", {"verdict": "proved", "strength": "formal"}, {"verdict": "proved", "strength": "exact"})]
    assert d["changed"][0]["why"] == "only when n > d_k"
    assert d["added"] == d["removed"] == [] and d["compared"] == 3
    text = "\n".join(render_diff(d, "old.json"))
    assert "A.x: supported (exact) -> conditional (exact) — only when n > d_k" in text
    assert "B.y reading r: proved (formal) -> proved (exact)" in text


def test_diff_reason_of_a_positive_verdict_is_its_witness_not_the_failure_beside_it():
    """An existential certified by a witness, with float evidence against it beside: the reason quoted is the
    witness (RW.wu-comparison-rate's diff quoted the typical draws' failure); a refuted claim quotes its failure.
    (Planted: the failing evidence always first, as before: red.)"""
    ev = [{"kind": "float-evidence", "scope": "instances", "regime": "all", "holds": False, "summary": "typical fail"},
          {"kind": "interval-certified", "scope": "complete", "regime": "all", "holds": True, "summary": "witness"}]
    old = _ledger(_claim("W.x", verdict="unsupported", strength="float"), _claim("R.y"))
    new = _ledger(_claim("W.x", verdict="certified", strength="interval", evidence=ev),
                  _claim("R.y", verdict="refuted", evidence=ev))
    why = {r["claim"]: r["why"] for r in ledger_diff(old, new)["changed"]}
    assert why == {"W.x": "witness", "R.y": "typical fail"}


def test_diff_of_a_ledger_with_itself_is_empty_and_says_so():
    led = _ledger(_claim("A.x"), _claim("B.y"))
    d = ledger_diff(led, copy.deepcopy(led))
    assert d["changed"] == d["added"] == d["removed"] == [] and d["evidence_changed"] == 0
    assert render_diff(d, "o")[1] == "  no verdict or strength changed"


def test_diff_lists_added_and_removed_claims_and_counts_evidence_only_changes():
    old = _ledger(_claim("A.x"), _claim("Gone.z"))
    new = _ledger(_claim("A.x", evidence=[{"kind": "formal", "scope": "complete", "regime": "all", "holds": True}]),
                  _claim("New.w", verdict="refuted"))
    d = ledger_diff(old, new)
    assert [r["claim"] for r in d["added"]] == ["New.w"] and [r["claim"] for r in d["removed"]] == ["Gone.z"]
    assert d["changed"] == [] and d["evidence_changed"] == 1
    # a --claims selection: claims outside it are not reported as removed
    assert ledger_diff(old, new, only={"A.x"})["removed"] == []


@pytest.mark.parametrize("content, words", [("not json", "not a JSON ledger"),
                                            ('{"collapse_verify": {"kind": "depth"}, "claims": []}', "not a ledger"),
                                            ("[1, 2]", "not a ledger")])
def test_diff_refuses_what_is_not_a_ledger(tmp_path, content, words):
    p = tmp_path / "old.json"
    p.write_text(content)
    with pytest.raises(DiffError, match=words):
        load_ledger(p)
    with pytest.raises(DiffError, match="no such file"):
        load_ledger(tmp_path / "missing.json")
    with pytest.raises(DiffError, match="directory"):
        load_ledger(tmp_path)


def test_diff_on_the_command_line_reads_old_first_and_reports(tmp_path, capsys):
    """A bad OLD file is refused before the run (exit 2); a real one gives the diff after the ledger."""
    assert main(["verify", "--claims", "DC.bert-config", "--diff", str(tmp_path / "none.json")]) == 2
    assert "no such file" in capsys.readouterr().err
    out = tmp_path / "a.json"
    assert main(["verify", "--claims", "DC.bert-config", "--json", str(out)]) == 0
    old = json.loads(out.read_text())
    old["claims"][0]["verdict"] = "refuted"
    (tmp_path / "old.json").write_text(json.dumps(old))
    capsys.readouterr()
    assert main(["verify", "--claims", "DC.bert-config", "--diff", str(tmp_path / "old.json")]) == 0
    text = capsys.readouterr().out
    assert "diff against" in text and "DC.bert-config: refuted" in text and "-> proved" in text
