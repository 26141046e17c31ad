"""Each hypothesis dropped in turn (theorems.framework.breaking): what the search finds, asserted as findings.

A redundant hypothesis is a finding, not a red test: the expectations below are what the search found (H1-H4 of
RN.main's readings). Every "needed" instance is stored (``theorems/counterexamples/breaking/``, one file per
claim, reading and dropped hypothesis; ``make store-breaking`` writes them) and re-checked on every run: the table's
row names the file only when its instance, decoded afresh, still has the others holding, the dropped hypothesis
failing and the conclusion failing. Here: every needed entry has its file and every file re-checks; a file that no
longer re-checks, or a missing one, is said on the row; the pinned RN.main instances are re-checked with the
claim's own predicates, and for every eligible reading each needed entry is found again among the search's rows.

Profiles: ``ci`` (and ``dev``) search the quick Pool and a builder's 40 draws per regime; ``thorough`` the full
Pool and 400 draws per regime.
"""
from __future__ import annotations

import pytest

from property_tests.conftest import profile_from_env
from theorems.framework import REGISTRY, CheckContext
from theorems.framework import breaking as BR
from theorems.framework import breaking_store as BS
from theorems.framework.breaking import (
    BUILDER_SAMPLES,
    Breaking,
    Dropped,
    breaking_of,
    breaking_path,
    decode_needed,
    eligible,
    exact_line,
    read_needed,
    recheck,
    search_rows,
)
from theorems.framework.records import ClaimResult, ReadingResult, run_claim_with
from theorems.framework.suite import current_suite
from theorems.paper import rank_neutrality as RN

THOROUGH = profile_from_env() == "thorough"
QUICK = not THOROUGH
SAMPLES = 400 if THOROUGH else BUILDER_SAMPLES


def _ctx(cid: str) -> CheckContext:
    return CheckContext(quick=QUICK, claim_id=cid)


def _table(cid: str, key: str) -> Breaking:
    c = REGISTRY[cid]
    b = breaking_of(c, c.reading_of(key), _ctx(cid), SAMPLES)
    assert b is not None, f"{cid} reading {key} has no table"
    return b


def _eligible() -> list[tuple[str, str]]:
    current_suite()
    return [(c.id, r.key) for c in sorted(REGISTRY.values(), key=lambda c: c.id) for r in c.all_readings()
            if eligible(r.decl)]


#: what the search finds for H1-H4 on RN.main's readings (the same on the quick and the full Pool)
RN_MAIN = {"H1": "undecided", "H2": "needed", "H3": "undecided", "H4": "needed"}


@pytest.mark.parametrize("key", ["literal", "what-LN-preserves", "corrected"])
def test_rn_main_h1_to_h4(key):
    b = _table("RN.main", key)
    got = {h: b.result(h).result for h in RN_MAIN}
    assert got == RN_MAIN, got
    # why H1 and H3 are undecided, not "not needed": H4 is undefined where H1 fails; the Pool never sets gamma_j = 0
    assert "H4 undecided there" in b.result("H1").reason, b.result("H1").reason
    assert "do not vary it" in b.result("H3").reason, b.result("H3").reason
    for h in ("H2", "H4"):
        d = b.result(h)
        assert d.met_others > 0 and d.failed_it > 0 and d.instance and d.regime in ("n<d", "n=d", "n>d")
    if key == "corrected":  # the corrected reading's own extra hypothesis is needed too
        assert b.result("1_n notin col(X)").result == "needed"


#: the minimal instances the quick Pool gives, pinned: (reading, hypothesis) -> (X, gamma, beta)
PINNED = {
    ("literal", "H2"): ([["5", "-1"], ["0", "1"], ["-3", "3"]], ["1", "2"], ["0", "0"]),
    ("literal", "H4"): ([["15/2", "-15/2"], ["6", "-6"]], ["1", "1"], ["0", "0"]),
    ("what-LN-preserves", "H2"): ([["-3", "-2"], ["5", "4"]], ["2", "1"], ["0", "1"]),
    ("what-LN-preserves", "H4"): ([["-2", "2"], ["-2", "2"]], ["2", "1"], ["0", "0"]),
}


@pytest.mark.parametrize("key,h", sorted(PINNED))
def test_rn_main_needed_instances_recheck(key, h):
    """The pinned instance, decoded afresh: every other hypothesis holds, h fails, the conclusion fails."""
    X, g, b = PINNED[key, h]
    a = RN.decode({"X": X, "gamma": g, "beta": b})
    decl = REGISTRY["RN.main"].reading_of(key).decl
    assert all(decl.hypotheses[o](a) is True for o in decl.names if o != h)
    assert decl.hypotheses[h](a) is False
    assert decl.conclusion[1](a) is False
    if QUICK:  # and the search finds exactly it as the smallest
        assert _table("RN.main", key).result(h).instance == exact_line(a)


def test_every_needed_entry_rechecks():
    """Every "needed" entry of every eligible reading names an instance of the search where the others hold, the
    dropped hypothesis fails and the conclusion fails (re-evaluated here with the declared predicates)."""
    needed = 0
    for cid, key in _eligible():
        c = REGISTRY[cid]
        r = c.reading_of(key)
        b = breaking_of(c, r, _ctx(cid), SAMPLES)
        assert b is not None
        rows, _ = search_rows(r.decl, _ctx(cid), f"{cid} reading {key}", SAMPLES)
        for d in b.dropped:
            assert d.met_others >= d.failed_it >= 0 and d.searched == len(rows)
            if d.result != "needed":
                continue
            needed += 1
            x = next(x for reg, _, x in rows if reg == d.regime and exact_line(x) == d.instance)
            others = [o for o in r.decl.names if o != d.hypothesis]
            assert all(r.decl.hypotheses[o](x) is True for o in others), (cid, key, d)
            assert r.decl.hypotheses[d.hypothesis](x) is False, (cid, key, d)
            assert r.decl.conclusion[1](x) is False, (cid, key, d)
    assert needed >= 10  # a search that never meets the others would find none


def test_every_needed_entry_is_stored_and_its_file_rechecks():
    """Issue 55: every needed entry's minimal instance is a stored file, decoded afresh and re-checked (the others
    hold, the dropped hypothesis fails, the conclusion fails); the table's row names it."""
    stored = 0
    for cid, key in _eligible():
        c = REGISTRY[cid]
        r = c.reading_of(key)
        for d in breaking_of(c, r, _ctx(cid), SAMPLES).dropped:
            if d.result != "needed":
                continue
            path = breaking_path(cid, key, d.hypothesis)
            assert d.stored is not None, f"{cid} reading {key} without {d.hypothesis}: {d.reason}"
            assert path.exists() and d.stored.endswith(path.name)
            assert recheck(r.decl, d.hypothesis, decode_needed(r.decl, read_needed(path))) is None
            stored += 1
    assert stored >= 20  # RN.main's H2 and H4 on three readings among them


def test_every_stored_needed_file_names_a_needed_entry_and_rechecks():
    """No orphan: each file under theorems/counterexamples/breaking/ is the file of its (claim, reading, hypothesis),
    and its instance re-checks with that reading's declared predicates."""
    current_suite()
    files = sorted(BR.BREAKING_DIR.glob("*.json"))
    assert len(files) >= 20
    for path in files:
        data = read_needed(path)
        assert path == breaking_path(data["claim"], data["reading"], data["hypothesis"]), path.name
        r = REGISTRY[data["claim"]].reading_of(data["reading"])
        assert eligible(r.decl) and data["hypothesis"] in r.decl.names
        assert recheck(r.decl, data["hypothesis"], decode_needed(r.decl, data)) is None, path.name


def test_a_stored_file_that_no_longer_rechecks_is_said_on_the_row(tmp_path, monkeypatch):
    """Planted: RN.main's H4 file holding the H2 instance (where H4 holds), and no H2 file: the row names no file
    and says why; the rest of the table is unchanged."""
    import json
    src = breaking_path("RN.main", "literal", "H2")
    monkeypatch.setattr(BR, "BREAKING_DIR", tmp_path)
    wrong = json.loads(src.read_text())
    wrong["hypothesis"] = "H4"
    breaking_path("RN.main", "literal", "H4").write_text(json.dumps(wrong))
    b = _table("RN.main", "literal")
    h4, h2 = b.result("H4"), b.result("H2")
    assert h4.result == "needed" and h4.stored is None and "no longer re-checks" in h4.reason, h4.reason
    assert h2.result == "needed" and h2.stored is None and "not stored" in h2.reason, h2.reason


def test_recheck_decides_each_of_its_three_conditions():
    """recheck on a made-up declaration: each of the three conditions, broken alone, is named."""
    from types import SimpleNamespace as NS
    decl = NS(names=("a", "b"), hypotheses={"a": lambda x: x["a"], "b": lambda x: x["b"]},
              conclusion=("c", lambda x: x["c"]))
    assert recheck(decl, "b", {"a": True, "b": False, "c": False}) is None
    assert "other hypotheses" in recheck(decl, "b", {"a": False, "b": False, "c": False})
    assert "b does not fail" in recheck(decl, "b", {"a": True, "b": True, "c": False})
    assert "conclusion does not fail" in recheck(decl, "b", {"a": True, "b": False, "c": True})
    assert "b does not fail" in recheck(decl, "b", {"a": True, "b": None, "c": False})  # undecided is not failing


def test_store_all_writes_only_rechecking_files(tmp_path, monkeypatch):
    """`make store-breaking` into an empty directory writes one file per needed entry, each re-checking; a second
    run writes nothing."""
    monkeypatch.setattr(BR, "BREAKING_DIR", tmp_path)
    said = BS.store_all()
    assert len(said) == len(list(tmp_path.glob("*.json"))) >= 20
    assert BS.store_all() == []
    with pytest.raises(ValueError, match="not stored"):  # a file that would not re-check is never written
        r = REGISTRY["RN.main"].reading_of("literal")
        x = decode_needed(r.decl, read_needed(breaking_path("RN.main", "literal", "H2")))
        BR.store_needed("RN.main", "literal", r.decl, _table("RN.main", "literal").result("H4"), x)


def test_a_redundant_hypothesis_is_a_finding():
    """H4 is not needed for RN.matrix-rank (zero bias, matrix rank) on the search: a finding, asserted as found."""
    d = _table("RN.matrix-rank", "literal").result("H4")
    assert d.result == "not-needed" and d.failed_it > 0 and d.instance is None


def test_builder_claim_drops():
    b = _table("USER.rmsnorm-matrix-rank", "literal")
    assert b.result("gamma_nonzero").result == "needed"
    assert "builder's seeded draws" in b.search


def test_table_is_on_the_result_and_round_trips():
    """verify --json carries the table per reading; ClaimResult.from_json (the book's ledger cache) reads it back;
    the verdict is the one the evidence earns, with or without the table."""
    current_suite()
    r = run_claim_with(REGISTRY["RN.main"], CheckContext(quick=True))  # the declared checks alone (no Coq)
    assert r.error is None
    lit = r.literal
    assert lit.breaking is not None and lit.breaking.result("H4").result == "needed"
    rec = r.to_json()
    assert rec["breaking"]["not_evidence"] is True
    assert rec["readings"][0]["breaking"] is not None  # what-LN-preserves
    back = ClaimResult.from_json(rec, r.claim)
    assert [x.breaking for x in back.readings] == [x.breaking for x in r.readings]
    assert [x.verdict for x in back.readings] == [x.verdict for x in r.readings]
    one = ReadingResult.from_json(lit.to_json())
    assert one.breaking == lit.breaking
    assert Dropped.from_json(lit.breaking.dropped[0].to_json()) == lit.breaking.dropped[0]


def test_a_bad_result_word_is_refused():
    with pytest.raises(ValueError, match="needed"):
        Dropped("H1", "redundant", 1, 1, 1)


def test_generic_failure_at_one_point_is_undecided():
    """A generic reading's failure with a hypothesis dropped is needed only on a certified box: every table of a
    generic reading says needed only with a certificate's words."""
    for cid, key in _eligible():
        c = REGISTRY[cid]
        r = c.reading_of(key)
        if c.spec_of(r) is None:
            continue
        for d in _table(cid, key).dropped:
            if d.result == "needed":
                assert "positive measure" in d.reason, (cid, key, d)


def test_generic_drop_is_needed_only_on_a_certified_box():
    """A generic statement's failure with a hypothesis dropped: one point (restored at perturbations) is undecided,
    an exceptional point; a failure on a certified box is needed."""
    from fractions import Fraction

    from sympy import Rational

    from theorems.exact.qinterval import QI
    from theorems.framework import Generic, Pool, claim
    from theorems.framework.evidence import failing_box

    def pairs(ctx):
        for a in range(-2, 3):
            for b in (-a, a + 1):
                yield "all", "", {"a": Rational(a), "b": Rational(b)}

    line = claim(id="T.drop-line", statement="a + b != 0", form="generic", register_claim=False,
                 generic=Generic(space="(a, b) in R^2", variables=("a", "b")),
                 hypotheses={"off the line": lambda x: x["a"] + x["b"] != 0, "true": lambda x: True},
                 conclusion=("a + b != 0", lambda x: x["a"] + x["b"] != 0), instances=Pool(rows=pairs, arithmetic="QQ"))
    d = breaking_of(line, line.all_readings()[0], CheckContext()).result("off the line")
    assert d.result == "undecided" and "exceptional point, not a set of positive measure" in d.reason, d

    def points(ctx):
        for x in (Rational(0), Rational(3), Rational(-2)):
            yield "all", "", {"x": x}

    def box(x):
        X = QI(x["x"] - Fraction(1, 2), x["x"] + Fraction(1, 2))
        sq = X * X
        return failing_box(f"x^2 <= 1 near {x['x']}", certified=True, box=f"[{X.lo}, {X.hi}]",
                           arithmetic="QQ intervals", exact=True) if sq.hi <= 1 else None

    sq = claim(id="T.drop-box", statement="|x| > 1 => x^2 > 1", form="generic", register_claim=False,
               generic=Generic(space="x in R", variables=("x",), certify=box),
               hypotheses={"|x| > 1": lambda v: abs(v["x"]) > 1, "true": lambda v: True},
               conclusion=("x^2 > 1", lambda v: v["x"] ** 2 > 1), instances=Pool(rows=points, arithmetic="QQ"))
    d = breaking_of(sq, sq.all_readings()[0], CheckContext()).result("|x| > 1")
    assert d.result == "needed" and "positive measure" in d.reason and d.instance == "x = 0", d
