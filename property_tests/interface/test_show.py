"""`collapse-verify show CLAIM`: the whole record of one claim; its JSON equals the claim's entry in
`verify --json` (plus the counterexamples typeset), for every registered claim."""
from __future__ import annotations

import json

import pytest

from proofs_numeric.cli import main
from proofs_numeric.ledger import registry
from proofs_numeric.ledger import run as ledger_run
from proofs_numeric.ledger.model_check import without_timings
from property_tests.paper.quick_runs import LEDGER_GROUP, QUICK, run_claim_reusing_quick

# the whole ledger: make test runs it, on the worker that computes every claim's quick run
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group(LEDGER_GROUP)]


@pytest.fixture(scope="module")
def shared_runs():
    """verify renders the quick run the paper tests share (property_tests/paper/quick_runs.py: computed once per
    worker); show computes its own, so each test also checks that a second run of the claim in the same process
    gives the same record (no state left behind by the first)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ledger_run, "run_claim", run_claim_reusing_quick)
        yield


@pytest.fixture(scope="module")
def ledger(tmp_path_factory, shared_runs):
    p = tmp_path_factory.mktemp("ledger") / "ledger.json"
    assert main(["verify", "--quick", "--dps", str(QUICK.dps), "--json", str(p)]) == 0
    return {c["id"]: c for c in json.loads(p.read_text())["claims"]}


def test_show_the_headline_theorem_is_refuted_in_the_quick_ledger(ledger):
    """Thm 4.2 as stated (RN.main) is refuted by an exact counterexample (the ledger the show test compares with)."""
    assert ledger["RN.main"]["verdict"] == "refuted"
    assert "counterexample" in {e["kind"] for e in ledger["RN.main"]["evidence"]}


@pytest.mark.parametrize("cid", [c.id for c in registry()])
def test_show_json_equals_the_verify_entry(cid, ledger, capsys):
    assert main(["show", cid, "--json", "--quick", "--dps", str(QUICK.dps)]) == 0
    rec = json.loads(capsys.readouterr().out)
    typeset = rec.pop("counterexamples_typeset")
    assert without_timings(rec) == without_timings(ledger[cid])
    files = {e["counterexample"] for e in rec["evidence"] if e["kind"] == "counterexample"}
    assert files <= {t["file"] for t in typeset}
    for t in typeset:
        if t["stored"]:
            assert t["latex"], "a stored counterexample is typeset"


def test_show_text_names_every_counterexample_file(capsys):
    assert main(["show", "RN.main", "--quick"]) == 0
    out = capsys.readouterr().out
    assert "theorems/counterexamples/RN.main.json" in out and "strength" in out


def test_show_unknown_claim_is_a_named_error_with_close_matches(capsys):
    assert main(["show", "RN.mian"]) == 2
    err = capsys.readouterr().err
    assert "no claim 'RN.mian'" in err and "RN.main" in err
