"""Every reading is decided on instances or says why not (``off_instance``, one reason from a fixed list).

No reading is left unclassified (issue 54: the list of allowed leftovers, ``unclassified_readings.txt``, is empty and
gone): a new reading is decided on instances (a declaration, or an instance form of the numeric layer) or declares
its reason, and this test fails on any reading with neither.
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from proofs_numeric.cli import main
from proofs_numeric.ledger import registry
from theorems.framework import OFF_INSTANCE_REASONS, OffInstance, Reading, instance_form


def unclassified(claims=None) -> list[str]:
    """``CLAIM:reading`` of every reading with neither an instance form, a declaration nor an off_instance reason."""
    out = []
    for c in claims if claims is not None else registry():
        for r in c.all_readings():
            form, _ = instance_form(c, r)
            if form is None and c.off_instance_of(r) is None and r.decl is None:
                out.append(f"{c.id}:{r.key}")
    return sorted(out)


def test_off_instance_no_reading_is_left_unclassified():
    assert unclassified() == [], (f"readings with neither an instance form nor an off_instance reason: "
                                  f"{unclassified()}; declare off_instance=OffInstance(reason, detail) with a reason "
                                  f"from {OFF_INSTANCE_REASONS}, or an instance form")


def test_off_instance_a_planted_unclassified_reading_is_caught():
    """The registry test can fail: a reading with explicit checks only (no form, no reason) added to a registered
    claim is named; the same reading with an off_instance reason is not."""
    c = next(c for c in registry() if c.id == "DC.bert-config")
    bare = Reading("planted", r"\text{a planted reading}", checks=[])
    planted = replace(c, readings=[*c.readings, bare], off_instance=None)
    assert "DC.bert-config:planted" in unclassified([planted])
    reasoned = replace(bare, off_instance=OffInstance("count", "planted"))
    assert "DC.bert-config:planted" not in unclassified([replace(c, readings=[*c.readings, reasoned])])


def test_off_instance_reasons_are_a_fixed_list():
    with pytest.raises(ValueError, match="not one of"):
        OffInstance("about-instances")
    assert OffInstance("limit", "depth to infinity").words.endswith(": depth to infinity")


def test_off_instance_check_says_the_reason(capsys):
    """``check CLAIM`` on a claim not decided on instances prints its reason, not "no instance form yet"."""
    assert main(["check", "DC.bert-config", "--X", "[[1]]"]) == 2
    err = capsys.readouterr().err
    assert "a count or an arithmetic fact about named sizes" in err and "BERT-base's published sizes" in err
