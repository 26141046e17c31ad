"""Issue 58, item 5: JSON a program can read. Every JSON document is one object with the marker
``{"collapse_verify": {"kind", "version"}}``, follows its published JSON Schema (``proofs_numeric/schemas``,
draft 2020-12, validated with the ``jsonschema`` package), echoes the request, and carries the numbers a caller wants
as numbers (not only inside ``how`` words). The schemas must be able to fail: the outputs of before (a list for an
alias naming two claims, no marker, no ``rank``) are refused by them."""
from __future__ import annotations

import copy
import json
import time
from pathlib import Path

import jsonschema
import pytest
import tomllib

from proofs_numeric.cli import main
from proofs_numeric.core.schemas import KIND_SCHEMA, SCHEMAS, schema, schema_text, validate, validator
from proofs_numeric.ledger import ledger_json
from property_tests.documents import check_document, document
from property_tests.paper.quick_runs import LEDGER_GROUP, QUICK, quick_run

ROOT = Path(__file__).resolve().parents[2]


def _out(capsys, *argv) -> str:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_schemas_are_valid_draft_2020_12_and_packaged():
    """Each schema is a valid draft 2020-12 schema with its urn $id, is a file of the package (pyproject's
    package-data ships it) and is shown in the book's schema page."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "schemas/*.schema.json" in data["tool"]["setuptools"]["package-data"]["proofs_numeric"]
    page = (ROOT / "book" / "reference" / "schemas.md").read_text()
    for name, file in SCHEMAS.items():
        s = schema(name)
        assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert s["$id"] == f"urn:collapse-verify:schemas:{name}"
        jsonschema.Draft202012Validator.check_schema(s)
        assert (ROOT / "proofs_numeric" / "schemas" / file).read_text() == schema_text(name)
        assert file in page, f"book/reference/schemas.md does not show {file}"
    assert set(KIND_SCHEMA.values()) <= set(SCHEMAS)


@pytest.mark.parametrize("argv, ids", [
    (["rank-neutrality", "--X", "[[1,0,0],[1,1,0],[1,2,0]]"], ["RN.main"]),
    (["rank-neutrality", "--norm", "rmsnorm", "--X", "[[1,0,0],[1,1,0],[1,2,0]]"],
     ["USER.rmsnorm-matrix-rank", "USER.rmsnorm-affine-rank"]),
])
def test_schemas_check_json_is_one_object_for_every_claim(capsys, argv, ids):
    """The defect: `check rank-neutrality --json` was an object and `... --norm rmsnorm --json` a list, neither with
    a marker or the input. Now both are one marked object echoing the request, with one record per claim."""
    doc = check_document(_out(capsys, "check", *argv, "--json"))
    assert isinstance(doc, dict) and list(doc)[0] == "collapse_verify"
    assert [c["claim"] for c in doc["claims"]] == ids == doc["request"]["claims"]
    assert doc["request"]["claim"] == "rank-neutrality"
    assert doc["request"]["arguments"]["--X"] == "[[1,0,0],[1,1,0],[1,2,0]]"
    assert "3 x 3" in doc["input"]["X"]


def test_schemas_check_json_numbers_are_numbers(capsys):
    """arank X = 1 and arank LN(X) = 2 on the paper's counterexample, as numbers in each reading's ``numbers``."""
    doc = check_document(_out(capsys, "check", "RN.main", "--X", "[[1,0,0],[1,1,0],[1,2,0]]", "--json"))
    for r in doc["claims"][0]["readings"]:
        nums = r["numbers"]
        assert (nums["arank_X"], nums["arank_LN_X"], nums["rank_X"], nums["rank_LN_X"]) == (1, 2, 2, 2)
        assert (nums["n"], nums["d"]) == (3, 3)
        # the same numbers the words say
        assert f"arank X = {nums['arank_X']}, arank LN(X) = {nums['arank_LN_X']}" in r["conclusion"]["how"]


def test_schemas_check_list_json(capsys):
    doc = document(_out(capsys, "check", "--list", "--json"))
    assert doc["collapse_verify"]["kind"] == "check-list" and doc["checkable"]


@pytest.mark.parametrize("matrix, rank, float_data", [("[[1,2],[2,4]]", 1, False), ("[[1.5,2],[2,4]]", 2, True)])
def test_schemas_rank_json_has_rank_and_a_numerical_record(capsys, matrix, rank, float_data):
    """`rank --json` gives ``rank`` (not only lower/upper), echoes the request, and ``numerical`` is a record for
    every input: the float64 hint for float data, the reason there is none for integer data (it was null)."""
    doc = document(_out(capsys, "rank", matrix, "--json", "--prime-seed", "1"), "rank")
    assert doc["rank"] == doc["lower"] == doc["upper"] == rank and doc["certified"]
    assert doc["request"]["matrix"] == matrix and doc["request"]["prime_seed"] == 1
    num = doc["numerical"]
    assert isinstance(num, dict)
    if float_data:
        assert num["rank"] == rank and "skipped" not in num
    else:
        assert "integer data" in num["skipped"]


def test_schemas_rank_json_of_an_open_interval_has_rank_null(tmp_path, capsys):
    """No certificate closes the interval: rank is null, and the schema ties rank to certified."""
    import numpy as np
    rng = np.random.default_rng(0)
    A = rng.integers(-2 ** 30, 2 ** 30, size=(40, 10)) @ rng.integers(-2 ** 30, 2 ** 30, size=(10, 40))
    p = tmp_path / "A.npy"
    np.save(p, A)
    doc = document(_out(capsys, "rank", str(p), "--json", "--exact", "never", "--prime-seed", "0"), "rank")
    if doc["certified"]:
        pytest.skip("the interval closed on this input")
    assert doc["rank"] is None and doc["lower"] < doc["upper"]


def test_schemas_refuse_the_outputs_of_before(capsys):
    """The schemas can fail: the list `check --norm rmsnorm --json` printed, a record without the marker, a rank
    document without `rank` or with `rank` null although certified, a reading without `numbers`, an unknown verdict
    in a ledger."""
    doc = check_document(_out(capsys, "check", "rank-neutrality", "--norm", "rmsnorm", "--X", "[[1],[2]]", "--json"))
    bad = [doc["claims"], doc["claims"][0], {k: v for k, v in doc.items() if k != "collapse_verify"}]
    no_numbers = copy.deepcopy(doc)
    del no_numbers["claims"][0]["readings"][0]["numbers"]
    bad.append(no_numbers)
    for b in bad:
        with pytest.raises(jsonschema.ValidationError):
            validate(b, "check")
    r = document(_out(capsys, "rank", "[[1,2],[3,4]]", "--json"), "rank")
    for mutate in (lambda d: d.pop("rank"), lambda d: d.update(rank=None), lambda d: d.update(numerical=None),
                   lambda d: d["collapse_verify"].update(version=2)):
        b = copy.deepcopy(r)
        mutate(b)
        with pytest.raises(jsonschema.ValidationError):
            validate(b, "rank")
    with pytest.raises(ValueError, match="not a marked"):
        validate({"claims": []})


def test_schemas_ledger_json_of_quick_runs_validates():
    """The ledger of a few quick runs (one refuted by a stored counterexample) follows ledger.schema.json; an unknown
    verdict or evidence kind does not."""
    from proofs_numeric.output import marked
    results = [quick_run(cid) for cid in ("RN.step1", "RN.step2", "DC.bert-config")]
    led = json.loads(json.dumps(marked("ledger", ledger_json(results, QUICK, time.time(), [])), default=str))
    validator("ledger").validate(led)
    for path, value in ((("claims", 0, "verdict"), "true"), (("claims", 1, "evidence", 0, "kind"), "guess")):
        b = copy.deepcopy(led)
        node = b
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
        with pytest.raises(jsonschema.ValidationError):
            validate(b)


@pytest.mark.slow
@pytest.mark.xdist_group(LEDGER_GROUP)
def test_schemas_the_sessions_quick_ledger_of_every_claim_validates(quick_ledger_file):
    """`verify --quick --json` over the whole registry (the session's quick ledger, in a fresh process) follows
    ledger.schema.json, every claim and reading."""
    doc = document(quick_ledger_file.read_text(), "ledger")
    assert doc["collapse_verify"] == {"kind": "ledger", "version": 1} and len(doc["claims"]) > 100


def test_schemas_model_summary_and_records(tmp_path, capsys):
    """`check --model --json` prints a marked summary; every line of its --jsonl stream follows model-record."""
    import numpy as np

    from property_tests.interface.test_checkpoints import bert_config, bert_tensors, write_checkpoint
    ck = write_checkpoint(tmp_path / "bert", bert_config(), bert_tensors(np.random.default_rng(1)))
    p = tmp_path / "r.jsonl"
    out = _out(capsys, "check", "RN.main", "--model", str(ck), "--length", "4", "--workers", "1", "--jsonl", str(p),
               "--network-layers", "0", "--json")
    doc = document(out)
    assert doc["collapse_verify"]["kind"] == "model-check-summary" and doc["records"] > 0
    lines = [json.loads(x) for x in p.read_text().splitlines()]
    for x in lines:  # the marker is the first key of every record: every line is a record
        assert next(iter(x)) == "collapse_verify" and x["collapse_verify"] == {"kind": "model-check", "version": 1}
        validate(x, "model-record")
    levels = {(r["site"], r["reading"], r["about"]["level"]) for r in lines}
    assert len(levels) == len(lines)  # one record per (site, claim, reading, level) of this checkpoint and input
    b = dict(lines[0], about={"level": "somewhere", "how": ""})
    with pytest.raises(jsonschema.ValidationError):
        validate(b, "model-record")
