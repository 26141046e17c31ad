"""The verdict model: evidence labelled by the framework, the verdict rule, re-checked
counterexamples and reproducible ledgers. Every registered claim is run and its verdict computed."""
from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy
from hypothesis import assume, given
from hypothesis import strategies as st
from sympy import Identity, Matrix, MatrixSymbol, Rational, symbols

from proofs_numeric.cli import main
from proofs_numeric.ledger import get, registry
from property_tests.paper.quick_runs import (
    EXIT_STATUS,
    LEDGER_GROUP,
    QUICK,
    hashes_like,
    this_process_hash_seed,
    verify_quick_in_fresh_process,
)
from property_tests.strategies import evidence_lists
from theorems import formal as F
from theorems import framework as C
from theorems.exact.instances import SHAPE_REGIMES
from theorems.formal.evidence import attached_readings, formal_evidence
from theorems.framework import (
    CONJECTURES,
    FORMS,
    STRENGTHS,
    VERDICTS,
    ContradictionError,
    Evidence,
    Pool,
    ProofStep,
    assess,
    claim,
    conjecture,
    derivation,
    exact_complete,
    exact_instances,
    float_statistic,
    formal_proof,
    interval_instances,
    interval_witness,
    not_checkable,
    run_claim,
    storage,
    symbolic_identity,
    verdict_from,
)

ROOT = Path(__file__).resolve().parents[2]
_QUICK = QUICK  # the context of the shared quick runs (one definition: property_tests/paper/quick_runs.py)


def safe_assess(ev, regimes, form):
    try:
        return assess(ev, regimes, form)
    except ContradictionError:
        return None


@given(evidence_lists(), st.sampled_from([("all",), SHAPE_REGIMES]), st.sampled_from(FORMS))
def test_claims_verdict_is_total_and_never_stronger_than_its_evidence(ev, regimes, form):
    a = safe_assess(ev, regimes, form)
    assume(a is not None)  # contradictory evidence: assess refuses it (tested separately)
    assert a.verdict in VERDICTS and a.strength in STRENGTHS
    decided = [e for e in ev if e.holds is not None]
    if not decided:
        assert (a.verdict, a.strength) == ("not-checkable", "none")
    if a.verdict == "proved":
        strong = [e for e in decided if e.holds is True and e.kind in ("formal", "exact")
                  and (e.scope == "general" or (form != "universal" and e.scope == "complete"))]
        assert strong
        if form == "universal":  # every listed regime is covered by a general proof
            for r in regimes:
                assert any(e.regime in ("all", r) or regimes == ("all",) for e in strong if e.scope == "general")
    if a.verdict == "certified":
        assert form != "universal"
        assert any(e.kind == "interval-certified" and e.scope == "complete" and e.holds for e in decided)
    if a.verdict in ("proved", "certified", "supported"):
        assert not any(e.holds is False for e in decided if e.kind in ("exact", "counterexample", "formal",
                                                                       "interval-certified")
                       and e.scope != "derivation" and form != "existential"
                       and (form != "generic" or e.scope in ("positive-measure", "general")))
    if form == "generic":  # only a positive-measure failure (or a general negation) refutes a generic claim
        if a.verdict in ("refuted", "conditional"):
            assert any(e.holds is False and (e.scope == "positive-measure" or (e.scope == "general" and e.kind in
                                                                                ("formal", "exact"))) for e in decided)
        if a.verdict == "proved":
            assert any(e.holds is True and e.scope == "general" for e in decided)
        assert a.verdict != "certified"  # one certified point never certifies "almost every"
    if a.verdict == "unsupported":
        assert a.strength in ("float", "exact", "interval")
    # strength never exceeds the strongest evidence present
    assert STRENGTHS.index(a.strength) >= min((STRENGTHS.index(e.strength) for e in decided), default=4)


@given(evidence_lists())
def test_claims_an_exact_failure_in_every_regime_refutes(ev):
    fails = [exact_instances("f", met=2, held=1, arithmetic="QQ", regime=r) for r in SHAPE_REGIMES]
    a = safe_assess([*ev, *fails], SHAPE_REGIMES, "universal")
    assert a is None or a.verdict == "refuted"


def test_claims_verdict_examples():
    ok = lambda r="all": exact_instances("s", met=3, held=3, arithmetic="QQ", regime=r)
    bad = lambda r="all": exact_instances("s", met=3, held=2, arithmetic="QQ", regime=r)
    proof = lambda r="all": formal_proof("L", True, statement="s", regime=r)
    assert verdict_from([proof()]) == "proved"
    assert verdict_from([proof("n<d"), ok("n>d")], SHAPE_REGIMES) == "supported"  # a proof must cover every regime
    assert verdict_from([proof(r) for r in SHAPE_REGIMES], SHAPE_REGIMES) == "proved"
    assert verdict_from([ok()]) == "supported"
    assert verdict_from([derivation([ProofStep("x", "y", "identity", lambda: True)], "s")]) == "supported"
    assert verdict_from([interval_witness("s", True, arithmetic="iv")], form="existential") == "certified"
    assert verdict_from([interval_witness("s", True, arithmetic="iv")]) == "supported"  # universal: one instance
    assert verdict_from([exact_complete("s", True, arithmetic="QQ")], form="concrete") == "proved"
    assert verdict_from([float_statistic("s", True, arithmetic="f64")]) == "supported"
    assert verdict_from([float_statistic("s", False, arithmetic="f64")]) == "unsupported"
    assert verdict_from([ok("n<d"), bad("n>d")], ("n<d", "n>d")) == "conditional"
    assert verdict_from([bad("n<d"), bad("n>d")], ("n<d", "n>d")) == "refuted"
    assert verdict_from([ok("n<d"), float_statistic("s", False, arithmetic="f", regime="n>d")],
                        ("n<d", "n>d")) == "unsupported"
    assert verdict_from([not_checkable("why")]) == "not-checkable"
    assert verdict_from([interval_instances("s", False, arithmetic="iv")]) == "refuted"  # a certified failure
    a = assess([ok("n<d"), bad("n>d")], ("n<d", "n>d"))
    assert a.condition.startswith("holds in n<d") and "fails in n>d" in a.condition
    assert assess([proof(), ok()]).strength == "formal"  # the strongest sufficient set
    assert assess([ok(), float_statistic("s", True, arithmetic="f")]).strength == "exact"


def test_claims_contradiction_is_an_error_not_a_verdict():
    with pytest.raises(ContradictionError):
        assess([formal_proof("L", True, statement="s"), exact_instances("s", met=2, held=1, arithmetic="QQ")])


def test_claims_a_check_that_measured_nothing_is_undecided():
    e = exact_instances("s", met=0, held=0, arithmetic="QQ", drawn=5)
    assert e.holds is None and "no instance met the premise" in e.reason
    assert verdict_from([e]) == "not-checkable"


def test_claims_derivations_are_three_valued():
    steps = [ProofStep("a", "b", "identity", lambda: True), ProofStep("c", "d", "lemma", lambda: False)]
    e = derivation(steps, "s")
    assert e.holds is False and e.numbers["failed_steps"] == [2] and e.scope == "derivation"
    assert derivation([ProofStep("a", "b", "lemma", lambda: None)], "s").holds is None
    assert derivation([ProofStep("a", "b", "lemma", lambda: True)], "s", concludes=False).holds is False
    assert derivation(steps, "s", concludes=False).holds is None  # a broken derivation of a negation decides nothing
    with pytest.raises(TypeError):
        derivation([ProofStep("a", "b", "lemma", lambda: 1)], "s")  # a check must answer True, False or None


def test_claims_fixed_size_identity_is_a_derivation_and_symbolic_size_is_general():
    n, d = symbols("n d", integer=True, positive=True)
    X, W = MatrixSymbol("X", n, d), MatrixSymbol("W", d, d)
    e = symbolic_identity((X * W).T, W.T * X.T, "transpose of a product")
    assert (e.kind, e.scope, e.holds) == ("exact", "general", True)
    G = MatrixSymbol("G", d, d)
    assert symbolic_identity(X * (W + Identity(d)), X * W + X, "distributivity").scope == "general"
    x = sympy.symbols("x0:4", real=True)
    e2 = symbolic_identity(Matrix([x[:2], x[2:]]).T, Matrix([[x[0], x[2]], [x[1], x[3]]]), "2 x 2 transpose")
    assert (e2.scope, e2.holds) == ("derivation", True)
    assert symbolic_identity(sum(x), x[0] + x[1] + x[2] + x[3], "a sum of 4 entries").scope == "derivation"
    assert symbolic_identity(n * (d - 1) + n, n * d, "sizes only").scope == "general"
    assert symbolic_identity(X * W, W.T * X.T.T, "false").holds in (False, True)
    assert symbolic_identity((X * G).T, X.T * G.T, "wrong order").holds is False


def test_claims_evidence_is_built_only_by_the_framework():
    with pytest.raises(TypeError):
        Evidence(kind="exact", holds=True, summary="s", arithmetic="QQ", scope="general")


#: the command line's write rule (proofs_numeric.output): its ``kind=`` names an output file's kind
_WRITE_RULE = ("write_output", "write_json_output", "check_output", "RecordStream", "read_stream", "check_stream",
               "marked")


def _calls_outside_framework():
    """(file, line, what) for every kind=/scope= keyword and Evidence(...) call outside theorems/framework/."""
    out = []
    for folder in ("theorems", "proofs_numeric", "property_tests", "benchmarks"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.parent == ROOT / "theorems" / "framework" or path.name == "test_claims.py":
                continue  # the framework itself, and this test's deliberate attempt
            tree = ast.parse(path.read_text(), str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.Call):
                    fn = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                    if fn == "Evidence":
                        out.append((path.relative_to(ROOT).as_posix(), node.lineno, "Evidence(...)"))
                    if fn == "FormalLemma":
                        continue  # a Coq lemma's declared statement scope, not a piece of evidence
                    if fn in _WRITE_RULE:
                        continue  # the kind of an output file (a stored counterexample file), not of evidence
                    for kw in node.keywords:
                        if kw.arg in ("kind", "scope") and isinstance(kw.value, ast.Constant) \
                                and isinstance(kw.value.value, str) and kw.value.value in C.EVIDENCE_KINDS + C.SCOPES:
                            out.append((path.relative_to(ROOT).as_posix(), node.lineno, f"{kw.arg}="))
    return out


def test_claims_no_evidence_label_is_written_outside_the_framework():
    """The AST of every module: evidence kinds and scopes are set by theorems.framework alone."""
    assert _calls_outside_framework() == []


@pytest.mark.slow
@pytest.mark.xdist_group(LEDGER_GROUP)
@pytest.mark.parametrize("claim", registry(), ids=lambda c: c.id)
def test_claims_every_registered_claim_runs_and_gets_a_computed_verdict(claim, quick_ledger, quick_ledger_records):
    """Every claim (the paper's, and any plug-in's) runs; its verdict follows from its evidence (its entry in the
    session's quick ledger: ``verify --quick`` in a fresh process, read back by ClaimResult.from_json, which assesses
    each verdict again and refuses a parameter space other than the registered claim's)."""
    assert claim.id in quick_ledger, f"{claim.id} is registered here but missing from the fresh process's ledger"
    r = quick_ledger[claim.id]
    rec = quick_ledger_records[claim.id]
    written = {"literal": rec, **{x["key"]: x for x in rec["readings"]}}  # the records as the run wrote them
    assert r.error is None, r.error
    for rr in r.readings:
        assert rr.verdict == assess(rr.evidence, rr.regimes, rr.form).verdict
        assert rr.evidence, f"{claim.id} reading {rr.key} produced no evidence"
        for e in rr.evidence:
            assert e.arithmetic, "every piece of evidence says which arithmetic decided it"
            if e.holds is None:
                assert e.reason, "an undecided piece of evidence says why"
            if e.kind == "counterexample":
                assert (ROOT / e.counterexample).is_file(), "a stored counterexample names its file"
        if rr.verdict == "not-checkable":
            assert rr.reason
        if rr.form == "generic":  # "for almost every point of a stated parameter space"
            space = written[rr.key]["parameter_space"]  # the literal's is the claim's; each other reading's its own
            assert space and space["space"], f"{claim.id} {rr.key}: generic, but the ledger states no parameter space"
            for e in rr.evidence:  # every exact failure is labelled robust (with its certificate), persistent or
                if e.holds is False and e.kind in ("exact", "counterexample") and e.scope in ("instances", "complete"):
                    assert e.label in C.FAILURE_LABELS, f"{claim.id} {rr.key}: unlabelled exact failure {e.summary}"
            if rr.verdict in ("refuted", "conditional"):  # never on an exceptional point alone
                assert any(e.holds is False and e.scope in ("positive-measure", "general") for e in rr.evidence)
    js = r.to_json()
    assert {"verdict", "strength", "form", "evidence", "readings", "reason"} <= set(js)
    for e in js["evidence"]:
        assert {"kind", "scope", "strength"} <= set(e)
    json.dumps(js, default=str)


def _has_coq() -> bool:
    return shutil.which("coqc") is not None


@pytest.mark.slow  # RN.hypotheses-at-init runs the default claims at every site of the packaged MiniLM
@pytest.mark.xdist_group(LEDGER_GROUP)
def test_claims_pinned_verdicts_are_what_the_evidence_earns(quick_ledger):
    """Findings (a change here is a change of finding). Proofs count only when formal: the
    universal true statements are 'proved' with Coq's kernel and 'supported' without it. Read from the session's
    quick ledger (``verify --quick`` in a fresh process)."""
    v = {cid: r for cid, r in quick_ledger.items() if cid.startswith(("RN.", "RA.", "RRO.", "DONG.soft"))}
    assert v["RN.main"].verdict == "refuted"
    assert v["RN.plus-one"].verdict == "refuted"
    assert v["RN.H4-generic"].verdict == "refuted"
    assert v["RN.hypotheses-at-init"].verdict == "refuted"
    assert v["RN.matrix-rank"].verdict in (("proved", "supported") if _has_coq() else ("supported",))
    if v["RN.matrix-rank"].verdict == "proved":
        assert v["RN.matrix-rank"].strength == "formal"
    # issue 56: the headline is the dimension the sentence names (0 at a W_O of certified rank 768), the arithmetic
    # 512 * 11 * 64 = 360448 a reading (a concrete statement computed exactly)
    assert v["RA.bert-figures"].verdict == "refuted"
    assert v["RA.bert-figures"].reading("arithmetic").verdict == "proved"
    assert v["DONG.softmax-shift"].verdict == "refuted"
    assert v["RRO.rowspace-remark"].verdict == "refuted"
    for r in v.values():
        if r.verdict == "proved":
            assert any(e.kind in ("formal", "exact") and e.scope in ("general", "complete") and e.holds
                       for e in r.literal.evidence)


def test_claims_stored_counterexample_that_no_longer_refutes_fails_loudly(tmp_path, monkeypatch):
    """Corrupt a stored counterexample: the claim becomes an ERROR and `verify` exits non-zero."""
    ce = tmp_path / "ce"
    shutil.copytree(C.COUNTEREXAMPLE_DIR, ce)
    data = json.loads((ce / "RN.main.json").read_text())
    data["instance"]["X"] = [["1", "0", "0"], ["0", "1", "0"], ["0", "0", "2"]]  # full rank: no longer refutes
    (ce / "RN.main.json").write_text(json.dumps(data))
    monkeypatch.setattr(storage, "COUNTEREXAMPLE_DIR", ce)
    r = run_claim(get("RN.main"), _QUICK)
    assert r.error and "CounterexampleError" in r.error and "no longer refutes" in r.error
    assert main(["verify", "--quick", "--claims", "RN.main"]) == 1
    (ce / "RN.main.json").write_text("{not json")
    assert "not valid JSON" in run_claim(get("RN.main"), _QUICK).error


@pytest.mark.slow
@pytest.mark.xdist_group(LEDGER_GROUP)
def test_claims_every_stored_counterexample_is_reread_by_some_claim(quick_ledger_file):
    """The session's quick ledger (every claim, in a fresh process) has no error and ``verify`` exited 0, so no
    stored counterexample file went unread: ``run_ledger`` compares the files with those the claims' results list as
    re-checked (not with a global) and reports a file no claim re-read as an error of the ledger (the next test shows
    it does). A claim that fails shows here with its error, and in its own test."""
    data = json.loads(quick_ledger_file.read_text())
    assert data["errors"] == []
    status, stderr = EXIT_STATUS[quick_ledger_file]
    assert status == 0, f"verify --quick exited {status}:\n{stderr}"
    assert C.counterexample_files(), "no stored counterexample: nothing was checked"


def test_claims_a_stored_counterexample_no_claim_rereads_is_an_error_of_the_ledger(monkeypatch):
    """run_ledger over a whole registry (here one claim stands for it) lists a stored file that no result re-read,
    and only that one."""
    from proofs_numeric.ledger import run as ledger_run
    one = get("RRO.rowspace-remark")  # refuted by its stored counterexample, which it re-reads
    monkeypatch.setattr(ledger_run, "_paper_claim_ids", lambda claims: {one.id})
    results, errors = ledger_run.run_ledger([one], _QUICK)
    read = sorted(ledger_run.referenced_counterexamples(results))
    assert read == ["theorems/counterexamples/RRO.rowspace-remark.json"]
    planted = "theorems/counterexamples/PLANTED.json"
    monkeypatch.setattr(ledger_run, "counterexample_files", lambda: [*read, planted])
    errors = ledger_run.run_ledger([one], _QUICK)[1]
    assert errors == [f"stored counterexample files never re-read by any claim: {planted}"]
    monkeypatch.setattr(ledger_run, "counterexample_files", lambda: read)
    assert ledger_run.run_ledger([one], _QUICK)[1] == []  # the files it did re-read are no error


def test_claims_the_ledger_starts_the_formal_check_first_and_runs_the_claims_without_lemmas_meanwhile(monkeypatch):
    """run_ledger starts the Coq check in the background when a selected claim has formal lemmas (not otherwise),
    runs the claims without formal lemmas first, and returns the results in the order given, on one BLAS thread.
    (Planted: no reordering: the progress order is the given one; no background start: started stays empty.)"""
    from threadpoolctl import threadpool_info

    from proofs_numeric.ledger import run as ledger_run
    started, seen, threads = [], [], []
    real_start = ledger_run.formal.start_check
    monkeypatch.setattr(ledger_run.formal, "start_check", lambda *a, **k: (started.append(1), real_start(*a, **k))[1])

    def progress(k, total, c, r):
        if r is None:
            threads.append(max([i["num_threads"] for i in threadpool_info() if i["internal_api"] == "openblas"],
                               default=1))
        else:
            seen.append(c.id)
    with_formal, without = get("DONG.row-stochastic"), get("BLOCK.residual-model")
    assert any(lm.claim == with_formal.id for lm in ledger_run.formal.LEMMAS)
    assert not any(lm.claim == without.id for lm in ledger_run.formal.LEMMAS)
    results, errors = ledger_run.run_ledger([with_formal, without], _QUICK, progress)
    assert errors == [] and [r.claim.id for r in results] == [with_formal.id, without.id]
    assert seen == [without.id, with_formal.id] and started == [1] and threads == [1, 1]
    ledger_run.run_ledger([without], _QUICK)
    assert started == [1]  # no formal lemma among the claims: Coq is not asked


def test_claims_an_interrupted_ledger_ends_the_background_formal_check(monkeypatch):
    """Ctrl-C in the middle of the ledger (KeyboardInterrupt out of a claim) ends the background Coq check before it
    propagates (cancel_check), so no coqc outlives the command. (Planted: run_ledger without its finally: red.)"""
    import threading

    from proofs_numeric.ledger import run as ledger_run
    events = []
    monkeypatch.setattr(ledger_run.formal, "start_check", lambda *a, **k: threading.current_thread())
    monkeypatch.setattr(ledger_run.formal, "cancel_check", lambda *a, **k: events.append("cancelled"))

    def interrupted(c, ctx):
        raise KeyboardInterrupt
    monkeypatch.setattr(ledger_run, "run_claim", interrupted)
    with pytest.raises(KeyboardInterrupt):
        ledger_run.run_ledger([get("DONG.row-stochastic")], _QUICK)
    assert events == ["cancelled"]


@pytest.mark.slow
def test_claims_a_ledger_run_in_worker_processes_equals_the_one_run_here():
    """run_ledger with two real worker processes (a Dask LocalCluster) gives the JSON of the same claims run in this
    process, timings aside: each worker looks the claim up in its own registry and computes every value afresh
    (computing_fresh passed on), and the results come back in the given order with their seeds and re-read
    counterexamples. The claims: one refuted by a stored counterexample, one with Coq lemmas, exact and interval
    ones, and one registered only here (the workers do not know it: it runs in this process). (Planted: the claim
    object not restored, or a result put at the wrong index: red here.)"""
    import dataclasses

    from proofs_numeric.ledger import run as ledger_run
    from theorems.framework.memo import computing_fresh
    picked = [get(i) for i in ("RRO.rowspace-remark", "DONG.row-stochastic", "BLOCK.residual-model",
                               "SYM.token-permutation", "RC.alpha-reciprocal")]
    only_here = dataclasses.replace(picked[2], id="BLOCK.residual-model-only-here")
    picked.append(only_here)
    with computing_fresh():
        here, errors_here = ledger_run.run_ledger(picked, _QUICK, workers=1)
        said: list[str] = []
        there, errors_there = ledger_run.run_ledger(picked, _QUICK, workers=2, say=said.append)
    assert said == [] and errors_here == errors_there == []
    assert [r.claim for r in there] == picked  # the very claim objects, in the given order
    one = [_strip_seconds(r.to_json()) for r in here]
    two = [_strip_seconds(r.to_json()) for r in there]
    assert one == two
    assert [r.seeds for r in here] == [r.seeds for r in there]
    assert ledger_run.referenced_counterexamples(there) == ledger_run.referenced_counterexamples(here) != set()


def _strip_seconds(x):
    if isinstance(x, dict):
        return {k: _strip_seconds(v) for k, v in x.items() if "seconds" not in k and k != "started"}
    if isinstance(x, list):
        return [_strip_seconds(v) for v in x]
    return x


@pytest.mark.slow
@pytest.mark.xdist_group(LEDGER_GROUP)  # shares the quick ledger of PYTHONHASHSEED=1 with the book's test build
def test_claims_ledger_is_identical_under_different_hash_seeds(tmp_path, quick_ledger_file, request):
    """The session's quick ledger (a fresh process, PYTHONHASHSEED=1) and a second one under another hash seed: the
    same JSON apart from timing keys. The second is this worker's own ``verify --quick`` when this process's hash
    seed is shown to be another (make test's workers start with PYTHONHASHSEED=2: conftest.py), which also computes
    after whatever this worker ran before; otherwise (one process, or a caller's PYTHONHASHSEED=1) a fresh process
    with PYTHONHASHSEED=2.

    Both compute every value themselves under their own seed: a command runs in ``computing_fresh()``, which never
    reads the session's results store (it only writes it), as test_memo checks."""
    seed = this_process_hash_seed()
    if seed is not None and not hashes_like("1"):  # "01" is seed 1 too: compared by hashing, not as strings
        second, _ = request.getfixturevalue("worker_quick_ledger")
    else:
        second = verify_quick_in_fresh_process(tmp_path / "l2.json", "2")
    a, b = (json.loads(p.read_text()) for p in (quick_ledger_file, second))
    ids_a, ids_b = ({c["id"] for c in x["claims"]} for x in (a, b))
    assert ids_a == ids_b, (f"different claims: only in the fresh process {sorted(ids_a - ids_b)}, only in the second "
                            f"{sorted(ids_b - ids_a)} (a test left a claim registered?)")
    assert _strip_seconds(a) == _strip_seconds(b)
    prov = a["provenance"]
    assert set(prov) == {"commit", "versions", "seeds", "started", "duration_seconds", "key"}
    assert {"python", "sympy", "python-flint", "mpmath", "numpy", "hypothesis", "coq"} <= set(prov["versions"])
    assert prov["seeds"], "the seeds used are recorded"


def test_claims_this_process_hash_seed_is_what_the_process_hashes_with(monkeypatch):
    """The hash-seed test trusts a seed only when a child started with it hashes as this process does; it tells seed
    1 from another by hashing too (Python reads "01" as 1). Children started with known seeds show both."""
    seed = this_process_hash_seed()
    if seed is not None:  # shown: another seed is refused
        monkeypatch.setenv("PYTHONHASHSEED", str(int(seed) + 1))
        assert this_process_hash_seed() is None
    monkeypatch.setenv("PYTHONHASHSEED", "random")
    assert this_process_hash_seed() is None
    monkeypatch.delenv("PYTHONHASHSEED")
    assert this_process_hash_seed() is None
    probe = ("from property_tests.paper.quick_runs import hashes_like, this_process_hash_seed as s; "
             "print(s(), hashes_like('1'))")
    for started, expected in (("5", "5 False"), ("01", "01 True"), ("1", "1 True")):
        child = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=300,
                               env={**os.environ, "PYTHONHASHSEED": started})
        assert child.stdout.split() == expected.split(), (started, child.stdout, child.stderr[-1000:])


def test_claims_every_formal_lemma_is_attached_to_a_registered_reading():
    """A lemma registered for a claim or reading that does not exist would silently prove nothing."""
    claims = {c.id: c for c in registry()}
    for cid, key in attached_readings():
        assert cid in claims, f"formal lemma attached to unknown claim {cid}"
        assert key in [r.key for r in claims[cid].all_readings()], f"{cid} has no reading {key!r}"


def test_claims_formal_evidence_counts_only_when_coq_closes_the_lemma(monkeypatch):
    """Without coqc the formal evidence is undecided and the verdict falls to the rest of the evidence."""
    fake = {lm.name: F.FormalResult(None, F.NOT_INSTALLED, "", "", 0.0) for lm in F.LEMMAS}
    monkeypatch.setattr(F, "check", lambda *a, **k: fake)
    ev = formal_evidence("RN.matrix-rank", "literal", _QUICK)
    assert ev and all(e.holds is None and "not run" in e.reason for e in ev)
    r = run_claim(get("RN.matrix-rank"), _QUICK)
    assert (r.verdict, r.strength) == ("supported", "exact")
    fake = {lm.name: F.FormalResult(False, "not closed: uses an axiom", "", "", 0.0) for lm in F.LEMMAS}
    monkeypatch.setattr(F, "check", lambda *a, **k: fake)
    assert run_claim(get("RN.matrix-rank"), _QUICK).verdict == "supported"


def test_claims_a_duplicate_id_raises():
    c = get("RN.main")
    with pytest.raises(C.DuplicateClaim):
        claim(id="RN.main", section="s", statement="x", conclusion="c")
    assert C.register(c) is c  # the same object again is not a duplicate
    assert get("RN.main") is c  # the failed declaration replaced nothing


def test_claims_a_duplicate_conjecture_id_raises_and_records_nothing():
    before = CONJECTURES.get("USER.ln-sphere")
    with pytest.raises(C.DuplicateClaim):
        conjecture(id="USER.ln-sphere", statement="x", hypotheses={}, conclusion=lambda x: True,
                   instances=lambda draw, regime: draw(0, 1))
    assert CONJECTURES.get("USER.ln-sphere") is before


def _claim_constructions(root: Path = ROOT):
    """(file, line) of every Claim(...) call outside the framework (theorems/framework/)."""
    out = []
    for folder in ("theorems", "proofs_numeric", "property_tests", "benchmarks", "book"):
        for path in (root / folder).rglob("*.py"):
            if path.parent == root / "theorems" / "framework" or "_build" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Call):
                    fn = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                    if fn == "Claim":
                        out.append((path.relative_to(root).as_posix(), node.lineno))
    return out


def test_claims_one_form_no_claim_is_built_outside_the_framework():
    """Paper claims and users' conjectures are declared one way: theorems.conjecture.claim (or conjecture)."""
    assert _claim_constructions() == []


def test_claims_the_one_form_scan_sees_a_construction(tmp_path):
    """The scan is not vacuous: a Claim(...) literal in a module under theorems/ is found, the framework is not."""
    (tmp_path / "theorems").mkdir()
    (tmp_path / "theorems" / "mine.py").write_text(
        "from theorems import claims as c\n\nX = c.Claim(id='x', section='', quote='', statement='', "
        "hypotheses=(), conclusion='', regimes=(), checks=())\n")
    (tmp_path / "theorems" / "framework").mkdir()
    (tmp_path / "theorems" / "framework" / "declare.py").write_text("Claim(id='framework')\n")
    assert _claim_constructions(tmp_path) == [("theorems/mine.py", 3)]


def test_claims_the_one_form_refuses_what_it_cannot_check():
    """Named hypotheses beside a predicate conclusion would be displayed but never checked; a Pool claim's
    conclusion must say in words what it is; a predicate with no instances has nothing to be decided on."""
    pool = Pool(rows=lambda ctx: [("all", "", 1)], arithmetic="QQ")
    with pytest.raises(ValueError, match="named but not given as predicates"):
        claim(id="T.names-only", statement="x", hypotheses=("H1",), conclusion=("x > 0", lambda x: x > 0),
              instances=pool, register_claim=False)
    with pytest.raises(ValueError, match="needs its words"):
        claim(id="T.lambda", statement="x", hypotheses={}, conclusion=lambda x: x > 0, instances=pool,
              register_claim=False)
    with pytest.raises(ValueError, match="needs instances"):
        claim(id="T.no-instances", statement="x", hypotheses={"pos": lambda x: x > 0},
              conclusion=("x > 0", lambda x: x > 0), register_claim=False)


def test_claims_a_pool_claim_derives_its_checks_from_the_predicates():
    """The derived check counts instances meeting every hypothesis per regime; a failing one refutes it."""
    rows = [("n<d", "a", 1), ("n<d", "a", 2), ("n<d", "b", -1), ("n>d", "a", 3), ("n>d", "a", 0)]
    pool = Pool(rows=lambda ctx: rows, arithmetic="QQ")
    c = claim(id="T.pool", statement="x", regimes=("n<d", "n>d"), hypotheses={"non-negative": lambda x: x >= 0},
              conclusion=("x is positive", lambda x: x > 0), instances=pool, register_claim=False)
    assert c.hypotheses == ("non-negative",) and c.conclusion == "x is positive"
    r = run_claim(c, _QUICK)
    by = {e.regime: (e.numbers["drawn"], e.numbers["premise_met"], e.numbers["held"]) for e in r.literal.evidence}
    assert by == {"n<d": (3, 2, 2), "n>d": (2, 2, 1)}
    assert r.verdict == "conditional"


def _declarations_not_at_top_level(root: Path = ROOT):
    """(file, line) of every claim(...) / conjecture(...) call in a theorem module that is not a statement of
    the module itself (inside a loop, a function or a helper): claims read as data, one declaration each."""
    out = []
    for path in sorted([*(root / "theorems" / "paper").glob("*.py"),
                        *(root / "theorems" / "conjectures").glob("*.py")]):
        tree = ast.parse(path.read_text(), str(path))
        top = {id(n.value) for n in tree.body if isinstance(n, (ast.Expr, ast.Assign))}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in (
                    "claim", "conjecture") and id(node) not in top:
                out.append((path.relative_to(root).as_posix(), node.lineno))
    return out


def test_claims_every_declaration_is_a_module_statement():
    """No claim is declared in a loop over tuples or through a helper: each is one claim(...) statement."""
    assert _declarations_not_at_top_level() == []


def test_claims_the_declaration_scan_sees_a_loop(tmp_path):
    (tmp_path / "theorems" / "paper").mkdir(parents=True)
    (tmp_path / "theorems" / "paper" / "looped.py").write_text(
        "from ..framework import claim\n\nclaim(id='a', statement='s')\nfor c in ('b', 'c'):\n"
        "    claim(id=c, statement='s')\n")
    assert _declarations_not_at_top_level(tmp_path) == [("theorems/paper/looped.py", 5)]


def _rational_builder(draw, regime):
    return Rational(draw(-9, 9), draw(1, 9))


def test_claims_the_one_form_refuses_what_a_builder_cannot_check():
    """Review findings: a builder claim refuses names-only hypotheses (shown, never checked), counterexamples=
    (it stores its own), readings with predicates (decided on a Pool), and a regimes string."""
    with pytest.raises(ValueError, match="named but not given as predicates"):
        claim(id="T.b1", statement="x", hypotheses=("H1",), conclusion=lambda x: x > 0, instances=_rational_builder,
              register_claim=False)
    with pytest.raises(ValueError, match="stores its own counterexamples"):
        claim(id="T.b2", statement="x", hypotheses={}, conclusion=lambda x: x > 0, instances=_rational_builder,
              counterexamples=("RN.main",), register_claim=False)
    with pytest.raises(ValueError, match="decided on a Pool"):
        claim(id="T.b3", statement="x", hypotheses={}, conclusion=lambda x: x > 0, instances=_rational_builder,
              readings=[C.Reading("neg", "y", hypotheses={}, conclusion=("x < 0", lambda x: x < 0))],
              register_claim=False)
    with pytest.raises(TypeError, match="non-empty tuple of regime names"):
        claim(id="T.b4", statement="x", regimes="all", conclusion="c", register_claim=False)


def test_claims_a_stored_counterexample_needs_a_regime_when_regimes_are_listed():
    """Review finding: a Pool with no regime() put its stored instance in 'all', which counted against every
    listed regime and turned a partial failure into 'refuted'."""
    pool = Pool(rows=lambda ctx: [("n<d", "", -3), ("n>d", "", 2)], arithmetic="QQ", decode=lambda d: -3)
    with pytest.raises(ValueError, match="give the Pool a regime"):
        claim(id="T.r", statement="x", regimes=("n<d", "n>d"), hypotheses={},
              conclusion=("x > 0", lambda x: x > 0), instances=pool, counterexamples=("RN.main",),
              register_claim=False)


def test_claims_float_instances_and_bad_predicates_are_errors_not_verdicts():
    """Review findings: float instances made a float threshold look like an exact refutation; a predicate that
    raises or returns 1 escaped run_claim as a traceback. Both are now a claim ERROR naming the cause."""
    floats = Pool(rows=lambda ctx: [("all", "svd", np.array([[1.0, 1.0], [1.0, 1.0 + 1e-15]]))], arithmetic="float64")
    c = claim(id="T.f", statement="x", hypotheses={}, conclusion=("full rank", lambda X: np.linalg.matrix_rank(X) == 2),
              instances=floats, register_claim=False)
    r = run_claim(c, _QUICK)
    assert r.verdict == "error" and "instances must be exact" in r.error
    b = claim(id="T.fb", statement="x", hypotheses={}, conclusion=lambda x: x > 0,
              instances=lambda draw, regime: draw(0, 9) / 10, register_claim=False)
    assert "instances must be exact" in run_claim(b, _QUICK).error
    ints = Pool(rows=lambda ctx: [("all", "", 0), ("all", "", 2)], arithmetic="QQ")
    raises = claim(id="T.z", statement="x", hypotheses={"inverse positive": lambda x: 1 / x > 0},
                   conclusion=("x > 0", lambda x: x > 0), instances=ints, register_claim=False)
    r = run_claim(raises, _QUICK)
    assert r.verdict == "error" and "hypothesis 'inverse positive'" in r.error and "ZeroDivisionError" in r.error
    one = claim(id="T.one", statement="x", hypotheses={}, conclusion=("x", lambda x: 1), instances=ints,
                register_claim=False)
    assert "the conclusion failed on the instance" in run_claim(one, _QUICK).error
    bad_rows = Pool(rows=lambda ctx: [(1, 2)], arithmetic="QQ")
    r = run_claim(claim(id="T.rows", statement="x", hypotheses={}, conclusion=("x", lambda x: True),
                        instances=bad_rows, register_claim=False), _QUICK)
    assert "(regime, label, instance) triple" in r.error


def test_claims_a_reading_key_used_twice_is_refused():
    with pytest.raises(ValueError, match="appear twice"):
        claim(id="T.keys", statement="x", conclusion="c", readings=[C.Reading("literal", "y")], register_claim=False)


def test_claims_a_certified_failing_box_refutes_a_universal_claim_and_contradicts_a_proof():
    """A failing box (exact or interval-certified) is a set of counterexamples: it refutes a universal claim; an
    exact box beside a general proof is a contradiction (found by the dev profile: an exact box was outvoted by a
    proof and the claim came out proved)."""
    from theorems.framework.evidence import failing_box, formal_proof
    from theorems.framework.verdict import ContradictionError
    for exact in (True, False):
        box = failing_box("w", certified=True, box="|x - 1| <= 1/10", arithmetic="QQ", exact=exact)
        assert assess([exact_instances("x", met=3, held=3, arithmetic="QQ"), box], ["all"], "universal").verdict \
            == "refuted"
        if exact:
            with pytest.raises(ContradictionError):
                assess([formal_proof("lemma", True, statement="s"), box], ["all"], "universal")
        else:  # an interval-certified failure beside a proof: the failure wins (as for interval instances)
            assert assess([formal_proof("lemma", True, statement="s"), box], ["all"], "universal").verdict == "refuted"
