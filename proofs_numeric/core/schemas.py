"""The JSON Schemas (draft 2020-12) of every JSON document collapse-verify writes, and a validator for them.

The schemas are files of the package, ``proofs_numeric/schemas/*.schema.json`` (shown in the book,
``book/reference/schemas.md``): ``ledger`` (``verify --json``), ``claim`` (``show CLAIM --json``), ``check``
(``check CLAIM --json``), ``check-list`` (``check --list --json``), ``rank`` (``rank --json``), ``model-record``
(each line of a ``check --model --jsonl`` or ``real-model --jsonl`` stream, the marker line included),
``model-summary`` (``check --model --json``) and ``real-model`` (``real-model --json``); ``common`` holds the
definitions they share. Every document is one JSON object whose first key is the marker
``{"collapse_verify": {"kind": ..., "version": 1}}`` (:func:`proofs_numeric.output.marked`); a program checks
``kind`` and ``version`` before reading the rest.

:func:`validate` checks a document with the ``jsonschema`` package (the ``test`` extra installs it; it is not
needed to run collapse-verify). The schema a document follows is named by its marker's ``kind``:

>>> sorted(SCHEMAS)[:3]
['check', 'check-list', 'claim']
>>> schema("rank")["$id"]
'urn:collapse-verify:schemas:rank'
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

__all__ = ["SCHEMAS", "KIND_SCHEMA", "schema", "validate", "validator", "schema_text"]

#: schema name -> file (in proofs_numeric/schemas/)
SCHEMAS = {name: f"{name}.schema.json" for name in
           ("common", "ledger", "claim", "check", "check-list", "rank", "model-record", "model-summary", "real-model")}
#: a marker's kind -> the schema its document follows
KIND_SCHEMA = {"ledger": "ledger", "claim": "claim", "check": "check", "check-list": "check-list", "rank": "rank",
               "model-check": "model-record", "model-check-summary": "model-summary", "real-model": "real-model"}
_URN = "urn:collapse-verify:schemas:"


def schema_text(name: str) -> str:
    """The schema file ``name`` as text (as packaged)."""
    if name not in SCHEMAS:
        raise KeyError(f"no schema {name!r}; the schemas: {', '.join(SCHEMAS)}")
    return resources.files("proofs_numeric").joinpath("schemas", SCHEMAS[name]).read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def _load(name: str) -> str:
    return schema_text(name)


def schema(name: str) -> dict[str, Any]:
    """The schema ``name`` as a dict (a fresh copy)."""
    return json.loads(_load(name))


@lru_cache(maxsize=None)
def validator(name: str) -> Any:
    """A ``jsonschema`` Draft 2020-12 validator of the schema ``name``, the other schemas resolvable by their ``$id``
    (``urn:collapse-verify:schemas:NAME``). Needs the ``jsonschema`` package (``pip install collapse-verify[test]``)."""
    try:
        import jsonschema
        from referencing import Registry, Resource
    except ImportError:  # pragma: no cover - the test extra installs it
        raise ImportError("validating needs the jsonschema package: pip install 'collapse-verify[test]' (or "
                          "jsonschema)") from None
    registry: Any = Registry().with_resources(
        (_URN + n, Resource.from_contents(schema(n))) for n in SCHEMAS)
    cls = jsonschema.Draft202012Validator
    s = schema(name)
    cls.check_schema(s)
    return cls(s, registry=registry, format_checker=cls.FORMAT_CHECKER)


def validate(doc: Any, name: str | None = None) -> None:
    """Raise ``jsonschema.ValidationError`` unless ``doc`` follows the schema ``name`` (default: the schema its
    marker's kind names; a document without a marker is an error)."""
    if name is None:
        marker = doc.get("collapse_verify") if isinstance(doc, dict) else None
        kind = marker.get("kind") if isinstance(marker, dict) else None
        if kind not in KIND_SCHEMA:
            raise ValueError(f"not a marked collapse-verify document (marker {marker!r}); name the schema")
        name = KIND_SCHEMA[kind]
    validator(name).validate(doc)
