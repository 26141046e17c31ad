"""`collapse-verify show CLAIM`: the whole record of one claim; its JSON equals the claim's entry in
`verify --json` (plus the counterexamples typeset), for every registered claim: ``show`` renders the result computed in
this worker, ``verify`` wrote the entry in a fresh process."""
from __future__ import annotations

import json

import pytest

from proofs_numeric.cli import main
from proofs_numeric.cli import verify as cli_verify
from proofs_numeric.ledger import registry
from proofs_numeric.ledger.model_check import without_timings
from property_tests.documents import document
from property_tests.paper.quick_runs import LEDGER_GROUP
from theorems.framework import run_claim

# every claim, compared with the session's quick ledger: on the worker that computes it
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group(LEDGER_GROUP)]


@pytest.fixture(scope="module")
def ledger(quick_ledger_records):
    """The session's quick ledger (``verify --quick --json`` in a fresh process, PYTHONHASHSEED=1), each record by
    claim id (conftest.py)."""
    return quick_ledger_records


@pytest.fixture
def worker_runs(worker_quick_ledger):
    """``show`` renders the results of this worker's own ``verify --quick`` (computed here, after whatever this
    worker ran before, under this worker's hash seed: the hash-seed test compares its whole ledger too); a claim it
    did not run, or another precision, is computed as ``show`` always does."""
    _, kept = worker_quick_ledger

    def reuse(claim, ctx):
        r = kept.get(claim.id)
        if r is not None and r.claim is claim and (ctx.dps, ctx.quick) == (50, True):
            return r
        return run_claim(claim, ctx)

    with pytest.MonkeyPatch.context() as mp:  # undone after each test; not the monkeypatch fixture, which would
        mp.setattr(cli_verify, "run_claim", reuse)  # turn the results store off (conftest.py) for whatever session
        yield kept                                   # fixture this test happens to start


def test_show_the_headline_theorem_is_refuted_in_the_quick_ledger(ledger):
    """Thm 4.2 as stated (RN.main) is refuted by an exact counterexample (the ledger the show test compares with)."""
    assert ledger["RN.main"]["verdict"] == "refuted"
    assert "counterexample" in {e["kind"] for e in ledger["RN.main"]["evidence"]}


@pytest.mark.parametrize("cid", [c.id for c in registry()])
def test_show_json_equals_the_verify_entry(cid, ledger, worker_runs, capsys):
    assert cid in worker_runs, f"{cid} is registered but this worker's verify --quick did not run it"
    assert main(["show", cid, "--json", "--quick"]) == 0  # verify --quick's precision (dps 50), as the ledger
    rec = document(capsys.readouterr().out, "claim")  # validated against claim.schema.json
    assert rec.pop("collapse_verify") == {"kind": "claim", "version": 1}
    typeset = rec.pop("counterexamples_typeset")
    assert without_timings(rec) == without_timings(ledger[cid])
    files = {e["counterexample"] for e in rec["evidence"] if e["kind"] == "counterexample"}
    assert files <= {t["file"] for t in typeset}
    for t in typeset:
        if t["stored"]:
            assert t["latex"], "a stored counterexample is typeset"


#: claims ``show`` computes once more in this worker, each compared with the worker's own first run of it and with
#: the fresh process's: the headline theorem (four readings, a stored counterexample, the trained model), a remark
#: refuted by its stored counterexample, a claim with a generic reading, a proved one, a symmetry with four
#: readings, a user's conjecture, a Dong claim with a formal corrected reading
_COMPUTED_AGAIN = ("RN.main", "RRO.rowspace-remark", "RC.rank-equals-sum", "RN.H4-unique", "SYM.token-permutation",
                   "USER.ln-sphere", "DONG.softmax-shift")


@pytest.mark.parametrize("cid", _COMPUTED_AGAIN)
def test_show_computes_the_same_record_again_in_this_process(cid, ledger, worker_quick_ledger, capsys):
    """A second run of the claim in the process that already ran it gives the same record as the first (state left
    behind by the first would show; the results this process keeps for reuse, such as the trained model's
    measurement and the depth study, are reused here as in any run), and as the fresh process's run."""
    _, kept = worker_quick_ledger
    assert cid in kept
    assert main(["show", cid, "--json", "--quick"]) == 0  # no patch here: show computes the claim itself
    rec = document(capsys.readouterr().out, "claim")
    rec.pop("collapse_verify")
    rec.pop("counterexamples_typeset")
    assert without_timings(rec) == without_timings(json.loads(json.dumps(kept[cid].to_json(), default=str)))
    assert without_timings(rec) == without_timings(ledger[cid])


def test_show_text_names_every_counterexample_file(capsys):
    assert main(["show", "RN.main", "--quick"]) == 0
    out = capsys.readouterr().out
    assert "theorems/counterexamples/RN.main.json" in out and "strength" in out


def test_show_unknown_claim_is_a_named_error_with_close_matches(capsys):
    assert main(["show", "RN.mian"]) == 2
    err = capsys.readouterr().err
    assert "no claim 'RN.mian'" in err and "RN.main" in err
