"""Issue 58, defects 2 and 8: a file is named only when it exists; words and flags that mean one thing each.

Defect 2: `verify --claims 'USER.<false conjecture>'` named `theorems/counterexamples/USER....json` (text and
`--json`) before `--store` wrote it. Defect 8: `--seed` meant four things, hints named the wrong flag, `show` refused
the aliases `check --list` prints, `verify --claims` took no comma list, internal words in messages, a bound of
2^63 - 1 tokens, a bad stored counterexample not naming its file, `rank -` not reading stdin."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sympy import Matrix, Rational

from proofs_numeric.cli import main
from theorems.framework import CONJECTURES, storage
from theorems.framework import registry as R
from theorems.framework.declare import claim
from theorems.framework.evidence import evidence_from_record

ROOT = Path(__file__).resolve().parents[2]
FALSE_ID = "USER.words-false-example"


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def false_conjecture(tmp_path, monkeypatch):
    """A registered user conjecture that is false (a 1 x 1 matrix never has 2 rows), its counterexamples stored in
    ``tmp_path`` (never in the source tree)."""
    monkeypatch.setattr(storage, "COUNTEREXAMPLE_DIR", tmp_path)
    claim(id=FALSE_ID, statement="x", hypotheses={"any": lambda X: True},
          conclusion=("rank 2", lambda X: X.rows == 2), instances=lambda draw, r: Matrix([[Rational(draw(1, 2))]]),
          regimes=("all",), samples=5, search_examples=50)
    try:
        yield tmp_path / f"{FALSE_ID}.json"
    finally:
        R.unregister(FALSE_ID)
        CONJECTURES.pop(FALSE_ID, None)


def _counterexample_evidence(ledger: dict) -> list[dict]:
    """Every counterexample evidence record of a ledger, wherever it sits (a claim's or a reading's)."""
    out = []

    def walk(x):
        if isinstance(x, dict):
            if x.get("kind") == "counterexample" and "arithmetic" in x:
                out.append(x)
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(ledger["claims"])
    return out


def test_words_a_counterexample_not_stored_names_no_file(false_conjecture, tmp_path, capsys):
    path = false_conjecture
    ledger = tmp_path / "ledger.json"
    code, out, err = _run(capsys, "verify", "--claims", FALSE_ID, "--quick", "--json", str(ledger))
    assert code == 0, err
    assert not path.exists()
    assert path.name not in out and str(path) not in out, out  # no file named that does not exist
    assert f"collapse-verify verify --claims '{FALSE_ID}' --store" in out
    record = json.loads(ledger.read_text())
    evidence = _counterexample_evidence(record)
    assert evidence and all(e["counterexample"] is None and "--store" in e["store_with"] for e in evidence)
    assert path.name not in ledger.read_text()
    back = evidence_from_record(evidence[0])  # the ledger reads back (the book reuses it)
    assert back.counterexample and Path(back.counterexample).name == path.name
    code, out, err = _run(capsys, "show", FALSE_ID, "--quick", "--json")
    shown = json.loads(out)
    assert all(ce["file"] is None and ce["store_with"] for ce in shown["counterexamples_typeset"])
    assert shown["counterexamples_typeset"][0]["latex"], "the found instance is typeset from the run"
    code, out, err = _run(capsys, "show", FALSE_ID, "--quick")
    assert path.name not in out and "--store" in out
    # stored: now the file is named
    code, out, err = _run(capsys, "verify", "--claims", FALSE_ID, "--quick", "--store", "--json", str(ledger))
    assert code == 0, err
    assert path.exists() and path.name in out
    stored = _counterexample_evidence(json.loads(ledger.read_text()))
    assert all(e["counterexample"] and e["counterexample"].endswith(path.name) for e in stored)
