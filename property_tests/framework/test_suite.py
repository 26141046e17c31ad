"""The suite: one claim, one verdict, whatever a process imported first.

Each layer names one :class:`SuitePart` under the ``collapse_verify.suite`` entry point; :class:`Suite` loads every
part in its declared order. These tests show the order is the suite's (not the parts' or the imports'), that a
broken or ambiguous suite is refused, and — in fresh processes — that a verdict is the same whether the numeric
layer was imported first, last, or not at all.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from theorems.framework import (
    REGISTRY,
    CheckContext,
    InstanceForm,
    Suite,
    SuiteError,
    SuitePart,
    current_suite,
    exact_instances,
    run_claim,
    run_claim_with,
)

#: claims whose evidence comes from every layer: the numeric one alone (RW.dong-proved, RC.alpha-independent were
#: not-checkable in a process that had not loaded the ledger), the formal one, and the paper's own checks
PROBES = ("RW.dong-proved", "RC.alpha-independent", "DC.bert-config", "RRO.rowspace-remark", "RN.H4-unique")


def _provider(tag):
    def provide(claim_id, key, ctx):
        if claim_id != "DC.bert-config":
            return []
        return [exact_instances(f"{tag} on {claim_id}:{key}", met=1, held=1, arithmetic="exact integers")]
    provide.__name__ = f"provide_{tag}"
    return provide


def test_suite_orders_its_parts_by_their_declared_order_not_the_order_given():
    a, b, c = (SuitePart("a", 30, providers=(_provider("a"),)), SuitePart("b", 10, providers=(_provider("b"),)),
               SuitePart("c", 20, providers=(_provider("c"),)))
    one, two = Suite.from_parts([a, b, c]), Suite.from_parts([c, a, b])
    assert one.spec() == two.spec() == ("b", "c", "a")
    assert [p.__name__ for p in one.providers] == [p.__name__ for p in two.providers] == [
        "provide_b", "provide_c", "provide_a"]
    claim = REGISTRY["DC.bert-config"]
    ev = [e.summary for e in one.run(claim, CheckContext(quick=True)).readings[0].evidence]
    assert [s.split(":")[0] for s in ev if " on DC.bert-config" in s] == [
        "b on DC.bert-config", "c on DC.bert-config", "a on DC.bert-config"]


def test_suite_refuses_two_parts_of_one_name_and_two_forms_for_one_reading():
    with pytest.raises(SuiteError, match="two parts of the suite are named x"):
        Suite.from_parts([SuitePart("x", 1), SuitePart("x", 2)])
    form = InstanceForm(unavailable="test")
    with pytest.raises(SuiteError, match="instance form for A.b reading literal"):
        Suite.from_parts([SuitePart("x", 1, instance_forms={("A.b", "literal"): form}),
                          SuitePart("y", 2, instance_forms={("A.b", "literal"): form})])


def test_suite_load_refuses_parts_that_are_not_installed():
    with pytest.raises(SuiteError, match="not installed here"):
        Suite.load(["paper", "no-such-part"])


def test_suite_installed_parts_are_the_three_layers_in_order():
    assert current_suite().spec() == ("paper", "formal", "numeric")
    assert Suite.load(current_suite().spec()).spec() == current_suite().spec()


def test_suite_a_bare_run_claim_gets_the_numeric_evidence():
    """The defect this fixes: ``import theorems; run_claim(REGISTRY["RW.dong-proved"])`` gave not-checkable with no
    evidence until the ledger had been loaded; the run with no numeric provider shows what that looked like."""
    claim = REGISTRY["RW.dong-proved"]
    bare = run_claim_with(claim, CheckContext(quick=True))
    full = run_claim(claim, CheckContext(quick=True))
    assert bare.verdict == "not-checkable" and full.verdict != "not-checkable"
    assert len(full.readings[0].evidence) > len(bare.readings[0].evidence)


_PROBE = textwrap.dedent('''
    import json, sys, importlib, pkgutil
    order = sys.argv[1]
    if order == "numeric-first":
        import proofs_numeric.ledger as L
        L.load()
    elif order == "reverse":
        import proofs_numeric.witnesses as W
        names = sorted(m.name for m in pkgutil.iter_modules(W.__path__))
        for n in reversed(names):
            importlib.import_module("proofs_numeric.witnesses." + n)
        import theorems.paper as P
        for n in reversed(sorted(m.name for m in pkgutil.iter_modules(P.__path__))):
            importlib.import_module("theorems.paper." + n)
    import theorems
    from theorems.framework import REGISTRY, CheckContext, run_claim
    out = {}
    for cid in sys.argv[2:]:
        rec = run_claim(REGISTRY[cid], CheckContext(quick=True)).to_json()
        def strip(x):
            if isinstance(x, dict):
                return {k: strip(v) for k, v in x.items() if k != "seconds"}
            if isinstance(x, list):
                return [strip(v) for v in x]
            return x
        out[cid] = strip(rec)
    print(json.dumps(out, sort_keys=True, default=str))
''')


@pytest.mark.slow
def test_suite_verdicts_do_not_depend_on_what_was_imported_first():
    """In fresh processes: the bare exact layer, the numeric layer loaded first, and every module imported in
    reverse order give identical records (timings aside) for claims whose evidence comes from every layer."""
    outs = {}
    for order in ("bare", "numeric-first", "reverse"):
        p = subprocess.run([sys.executable, "-c", _PROBE, order, *PROBES], capture_output=True, text=True,
                           timeout=600)
        assert p.returncode == 0, p.stderr[-2000:]
        outs[order] = json.loads(p.stdout.strip().splitlines()[-1])
    assert outs["bare"]["RW.dong-proved"]["verdict"] != "not-checkable"
    assert outs["bare"] == outs["numeric-first"] == outs["reverse"]


def test_suite_a_late_provider_is_called_last_and_its_evidence_stays_in_its_place():
    """A provider marked ``late`` (the formal layer's, which may wait for the background compile) is called after the
    reading's checks and the other providers, and its evidence keeps its declared place: the same evidence, in the
    same order, as when it is called in turn. (Planted: _own_evidence calling in declared order: the call order
    is wrong; placing the late evidence last: the evidence order is wrong.)"""
    calls: list[str] = []

    def tagged(tag, late=False):
        inner = _provider(tag)

        def provide(claim_id, key, ctx):
            calls.append(f"{tag}:{key}")
            return inner(claim_id, key, ctx)
        if late:
            provide.late = True  # type: ignore[attr-defined]
        return provide

    claim = REGISTRY["DC.bert-config"]
    late = run_claim_with(claim, CheckContext(quick=True), providers=(tagged("first", late=True), tagged("second")))
    keys = [r.key for r in claim.all_readings()]
    assert calls == [c for k in keys for c in (f"second:{k}", f"first:{k}")]
    calls.clear()
    plain = run_claim_with(claim, CheckContext(quick=True), providers=(tagged("first"), tagged("second")))
    assert calls == [c for k in keys for c in (f"first:{k}", f"second:{k}")]
    summaries = [[e.summary for e in r.evidence] for r in late.readings]
    assert summaries == [[e.summary for e in r.evidence] for r in plain.readings]
    for s, r in zip(summaries, late.readings, strict=True):
        at = [next(i for i, x in enumerate(s) if x.startswith(f"{tag} on DC.bert-config:{r.key}"))
              for tag in ("first", "second")]
        assert at[0] < at[1]
    assert [getattr(p, "late", False) for p in current_suite().providers] == [True, False]  # formal's, numeric's
