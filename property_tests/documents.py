"""The JSON documents the tests read, each validated against its published schema first (issue 58, item 5).

Every ``--json`` output a test parses goes through one of these, so a key renamed, a list where the schema says an
object, or a missing marker fails the test that reads it (``proofs_numeric/schemas/*.schema.json``,
:mod:`proofs_numeric.core.schemas`)."""
from __future__ import annotations

import json
from pathlib import Path

from proofs_numeric.core.schemas import validate

__all__ = ["document", "check_document", "one_claim", "records"]


def document(text: str, kind: str | None = None) -> dict:
    """A JSON document (text) validated against the schema its marker names (or ``kind``'s schema)."""
    doc = json.loads(text)
    validate(doc, kind)
    return doc


def check_document(text: str) -> dict:
    """A ``check --json`` document, validated."""
    doc = document(text, "check")
    assert doc["collapse_verify"] == {"kind": "check", "version": 1}
    return doc


def one_claim(text: str) -> dict:
    """The one claim record of a ``check CLAIM --json`` document that names one claim."""
    doc = check_document(text)
    assert len(doc["claims"]) == 1, [c["claim"] for c in doc["claims"]]
    return doc["claims"][0]


def records(path: str | Path) -> list[dict]:
    """The records of a JSON Lines stream, the marker line and every record validated."""
    lines = [json.loads(x) for x in Path(path).read_text(encoding="utf-8").splitlines() if x.strip()]
    for x in lines:
        validate(x, "model-record")
    return [x for x in lines if "collapse_verify" not in x]
