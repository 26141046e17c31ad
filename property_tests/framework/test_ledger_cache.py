"""The ledger is computed once and reused exactly when nothing that decides a verdict has changed (issue 35):
the key covers the sources, versions, Coq, plug-ins and options; a reused verdict is recomputed from its evidence."""
from __future__ import annotations

import json
import shutil
import time

import pytest

from proofs_numeric.ledger import cache, report
from proofs_numeric.ledger.load import get
from proofs_numeric.ledger.run import ledger_json, run_ledger
from theorems.framework import REPO_ROOT, CheckContext, ClaimResult, run_claim

_SMALL = ("DC.bert-config", "RN.plus-one", "RRO.remark-iv")


@pytest.fixture
def tree(tmp_path):
    """A copy of the two folders that decide verdicts."""
    for folder, _ in cache.DECIDING:
        shutil.copytree(REPO_ROOT / folder, tmp_path / folder,
                        ignore=shutil.ignore_patterns("__pycache__", "_build", "*.pyc"))
    return tmp_path


def test_ledger_cache_a_changed_claim_module_changes_the_key(tree):
    before = cache.source_digest(tree)
    assert cache.source_digest(tree) == before  # deterministic
    f = tree / "theorems" / "paper" / "rank_neutrality.py"
    f.write_text(f.read_text() + "\n# an edit\n")
    assert cache.source_digest(tree) != before
    after = cache.source_digest(tree)
    (tree / "theorems" / "counterexamples" / "RN.main.json").write_text("{}")
    assert cache.source_digest(tree) != after  # a stored counterexample decides verdicts too


def test_ledger_cache_the_command_line_and_renderings_do_not_change_the_key(tree):
    before = cache.source_digest(tree)
    for rel in ("proofs_numeric/cli/rank.py", "proofs_numeric/ledger/report.py"):
        p = tree / rel
        p.write_text(p.read_text() + "\n# an edit\n")
    assert cache.source_digest(tree) == before


def test_ledger_cache_options_and_claim_sets_change_the_key():
    ids = ["A.x", "B.y"]
    k = cache.ledger_key(dps=50, quick=False, claim_ids=ids)
    assert cache.ledger_key(dps=50, quick=False, claim_ids=list(reversed(ids))) == k
    assert cache.ledger_key(dps=60, quick=False, claim_ids=ids) != k
    assert cache.ledger_key(dps=50, quick=True, claim_ids=ids) != k
    assert cache.ledger_key(dps=50, quick=False, claim_ids=ids[:1]) != k


def _small_ledger(tmp_path, dps=50, quick=False):
    claims = [get(c) for c in _SMALL]
    ctx = CheckContext(dps=dps, quick=quick)
    results, errors = run_ledger(claims, ctx)
    data = ledger_json(results, ctx, time.time(), errors)
    path = tmp_path / "ledger.json"
    path.write_text(json.dumps(data, default=str))
    return path, data, results


def test_ledger_cache_a_result_read_back_is_the_result_written(tmp_path):
    _, data, results = _small_ledger(tmp_path)
    for d, r in zip(data["claims"], results, strict=True):
        back = ClaimResult.from_json(json.loads(json.dumps(d, default=str)), r.claim)
        strip = lambda j: {k: v for k, v in j.items() if k != "seconds"}
        assert strip(back.to_json()) | {"readings": [strip(x) for x in back.to_json()["readings"]]} == \
            strip(r.to_json()) | {"readings": [strip(x) for x in r.to_json()["readings"]]}
        assert [e.to_json() for e in back.literal.evidence] == [e.to_json() for e in r.literal.evidence]


def test_ledger_cache_a_parameter_space_other_than_the_claims_is_refused():
    """A generic reading's stored parameter space must be the registered claim's (a run that lost it, or a stale
    file, is not read back as if it had one)."""
    c = get("RC.rank-equals-sum")
    rec = json.loads(json.dumps(run_claim(c, CheckContext(dps=30, quick=True)).to_json(), default=str))
    ClaimResult.from_json(rec, c)  # as written: read back
    generic = [r for r in rec["readings"] if r["parameter_space"]]
    assert generic, "RC.rank-equals-sum has a generic reading"
    kept = generic[0]["parameter_space"]
    generic[0]["parameter_space"] = None
    with pytest.raises(ValueError, match="parameter space"):
        ClaimResult.from_json(rec, c)
    del generic[0]["parameter_space"]  # lost, not even null
    with pytest.raises(ValueError, match="no parameter space"):
        ClaimResult.from_json(rec, c)
    generic[0]["parameter_space"] = kept
    generic[0]["key"] = "a-reading-nobody-declared"
    with pytest.raises(ValueError, match="no such reading"):
        ClaimResult.from_json(rec, c)
    lit = get("RC.generic-wv")  # generic as stated: the literal's space is written with the claim's fields
    rec = json.loads(json.dumps(run_claim(lit, CheckContext(dps=30, quick=True)).to_json(), default=str))
    assert rec["parameter_space"]
    ClaimResult.from_json(rec, lit)
    rec["parameter_space"] = None
    with pytest.raises(ValueError, match="parameter space"):
        ClaimResult.from_json(rec, lit)


def test_ledger_cache_an_edited_verdict_is_refused(tmp_path):
    _, data, results = _small_ledger(tmp_path)
    d = json.loads(json.dumps(data["claims"][0], default=str))
    d["verdict"] = "refuted" if d["verdict"] != "refuted" else "proved"
    with pytest.raises(ValueError, match="not what its evidence earns"):
        ClaimResult.from_json(d, results[0].claim)


def test_ledger_cache_read_ledger_reuses_only_a_matching_key(tmp_path):
    path, data, _ = _small_ledger(tmp_path)
    key = data["provenance"]["key"]
    assert key == cache.ledger_key(dps=50, quick=False, claim_ids=_SMALL)
    assert cache.read_ledger(path, key)["claims"]
    with pytest.raises(cache.LedgerMismatch, match="its key differs"):
        cache.read_ledger(path, cache.ledger_key(dps=50, quick=False, claim_ids=_SMALL[:2]))  # a partial ledger
    with pytest.raises(cache.LedgerMismatch, match="no such file"):
        cache.read_ledger(tmp_path / "none.json", key)
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(cache.LedgerMismatch, match="not a readable ledger"):
        cache.read_ledger(tmp_path / "bad.json", key)


@pytest.fixture
def small_book(monkeypatch):
    """The book's ledger over a few claims (its registry), with a clean per-process state."""
    monkeypatch.setattr(report, "registry", lambda: [get(c) for c in _SMALL])
    monkeypatch.setattr(report, "_LEDGER", {})
    monkeypatch.setattr(report, "_CACHE", {})


def test_ledger_cache_the_book_reuses_a_matching_ledger_without_computing(small_book, tmp_path, monkeypatch):
    path, data, results = _small_ledger(tmp_path)
    monkeypatch.setattr(cache, "default_ledger_paths", lambda: [path])
    monkeypatch.setattr(report, "default_ledger_paths", lambda: [path])

    def no(*a, **k):
        raise AssertionError("the book recomputed a ledger it could reuse")
    monkeypatch.setattr(report, "run_ledger", no)
    monkeypatch.setattr(report, "run_claim", no)
    led = report.book_ledger()
    assert led["reused"] and led["path"] == path
    assert report.run("RN.plus-one").verdict == get_verdict(results, "RN.plus-one")
    assert "read from" in report.provenance_markdown() and data["provenance"]["commit"][:12] in \
        report.provenance_markdown()


def test_ledger_cache_the_book_recomputes_a_matching_ledger_whose_content_is_refused(small_book, tmp_path,
                                                                                       monkeypatch):
    """A ledger whose key matches but whose content from_json refuses (an edited verdict: a plug-in edited in place
    keeps its key) is computed again, and the book says why, instead of failing the page."""
    path, data, _ = _small_ledger(tmp_path)
    data["claims"][0]["verdict"] = "refuted" if data["claims"][0]["verdict"] != "refuted" else "proved"
    path.write_text(json.dumps(data, default=str))
    monkeypatch.setattr(report, "default_ledger_paths", lambda: [path])
    monkeypatch.setattr(report, "REPO_ROOT", tmp_path)  # the build's cache goes to the test's folder
    led = report.book_ledger()
    assert not led["reused"]
    assert any("not read back" in w and "not what its evidence earns" in w for w in led["why"])


def get_verdict(results, cid):
    return next(r.verdict for r in results if r.claim.id == cid)


@pytest.mark.parametrize("option", ["quick", "dps"])
def test_ledger_cache_the_book_recomputes_a_quick_or_differently_parametrised_ledger(small_book, tmp_path,
                                                                                     monkeypatch, option):
    path, _, _ = _small_ledger(tmp_path, **({"quick": True} if option == "quick" else {"dps": 30}))
    monkeypatch.setattr(report, "default_ledger_paths", lambda: [path])
    computed = []
    real = report.run_ledger
    monkeypatch.setattr(report, "run_ledger", lambda claims, ctx: computed.append(ctx) or real(claims, ctx))
    monkeypatch.setattr(report, "REPO_ROOT", tmp_path)  # the build's cache goes to the test's folder
    led = report.book_ledger()
    assert not led["reused"] and len(computed) == 1 and computed[0].dps == report.BOOK_DPS
    assert any("its key differs" in w for w in led["why"])
    assert "computed while this book was built" in report.provenance_markdown()
    assert (tmp_path / "book" / "_build" / "ledger-cache.json").exists()
    assert report.run("DC.bert-config").verdict == run_claim(get("DC.bert-config"), CheckContext()).verdict


def test_ledger_cache_a_test_build_reuses_only_a_quick_ledger_and_says_quick(small_book, tmp_path, monkeypatch):
    """COLLAPSE_VERIFY_BOOK_QUICK=1 (make test's book build): the quick ledger is reused, a full one is not, and the
    provenance line says the verdicts are a test build's."""
    full, _, _ = _small_ledger(tmp_path)
    quick_dir = tmp_path / "q"
    quick_dir.mkdir()
    quick, qdata, _ = _small_ledger(quick_dir, quick=True)
    monkeypatch.setattr(report, "default_ledger_paths", lambda: [full, quick])
    monkeypatch.setattr(report, "REPO_ROOT", tmp_path)
    monkeypatch.setenv(report.BOOK_QUICK_ENV, "1")
    led = report.book_ledger()
    assert led["reused"] and led["path"] == quick and any("its key differs" in w for w in led["why"])
    assert "QUICK: a test build of the book" in report.provenance_markdown()
    monkeypatch.setattr(report, "_LEDGER", {})
    monkeypatch.setenv(report.BOOK_QUICK_ENV, "0")  # make book: the full ledger, and no QUICK in the line
    led = report.book_ledger()
    assert led["reused"] and led["path"] == full and "QUICK" not in report.provenance_markdown()
