"""Every reading is decided on instances or says why not (``off_instance``, one reason from a fixed list).

The readings not classified yet are listed in ``unclassified_readings.txt`` beside this file; the list may only
shrink: a new reading is decided on instances or declares its reason, and a reading classified since is taken off
the list (the test says which), so the list stays the truth.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from proofs_numeric.cli import main
from proofs_numeric.ledger import registry
from theorems.framework import OFF_INSTANCE_REASONS, OffInstance, instance_form

LIST = Path(__file__).with_name("unclassified_readings.txt")


def _listed() -> set[str]:
    return {ln.strip() for ln in LIST.read_text().splitlines() if ln.strip() and not ln.startswith("#")}


def unclassified() -> set[str]:
    out = set()
    for c in registry():
        for r in c.all_readings():
            form, _ = instance_form(c, r)
            if form is None and c.off_instance_of(r) is None and r.decl is None:
                out.add(f"{c.id}:{r.key}")
    return out


def test_off_instance_no_new_reading_is_left_unclassified():
    new = sorted(unclassified() - _listed())
    assert new == [], (f"readings with neither an instance form nor an off_instance reason: {new}; declare "
                       f"off_instance=OffInstance(reason, detail) with a reason from {OFF_INSTANCE_REASONS}, or an "
                       "instance form")


def test_off_instance_the_list_of_unclassified_readings_is_the_truth():
    stale = sorted(_listed() - unclassified())
    assert stale == [], f"classified since (take them off {LIST.name}): {stale}"


def test_off_instance_reasons_are_a_fixed_list():
    with pytest.raises(ValueError, match="not one of"):
        OffInstance("about-instances")
    assert OffInstance("limit", "depth to infinity").words.endswith(": depth to infinity")


def test_off_instance_check_says_the_reason(capsys):
    """``check CLAIM`` on a claim not decided on instances prints its reason, not "no instance form yet"."""
    assert main(["check", "DC.bert-config", "--X", "[[1]]"]) == 2
    err = capsys.readouterr().err
    assert "a count or an arithmetic fact about named sizes" in err and "BERT-base's published sizes" in err
