"""Issue 58, defects 2 and 8: a file is named only when it exists; words and flags that mean one thing each.

Defect 2: `verify --claims 'USER.<false conjecture>'` named `theorems/counterexamples/USER....json` (text and
`--json`) before `--store` wrote it. Defect 8: `--seed` meant four things, hints named the wrong flag, `show` refused
the aliases `check --list` prints, `verify --claims` took no comma list, internal words in messages, a bound of
2^63 - 1 tokens, a bad stored counterexample not naming its file, `rank -` not reading stdin."""
from __future__ import annotations

import json
import re
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


# ------------------------------------------------------------------------------------------ seeds: one name each

#: each seed flag and the one thing it chooses, in every subcommand that has it
_SEED_MEANING = {"--token-seed": "token ids", "--weights-seed": "weights", "--instance-seed": "weights and the input",
                 "--prime-seed": "primes"}


def _subparsers():
    import argparse

    from proofs_numeric.cli import build_parser
    for a in build_parser()._actions:
        if isinstance(a, argparse._SubParsersAction):
            yield from a.choices.items()


def test_words_each_seed_flag_means_one_thing_everywhere():
    """`--seed` meant token ids (real-model), weights and primes (check), weights and input (depth), primes (rank):
    now each choice has its own flag, the same in every subcommand, and `--seed` is only a deprecated alias."""
    seen = {}
    for name, p in _subparsers():
        for a in p._actions:
            for opt in a.option_strings:
                if "seed" not in opt:
                    continue
                if opt == "--seed":
                    assert a.help.startswith("deprecated:"), (name, a.help)
                    continue
                assert opt in _SEED_MEANING, (name, opt)
                assert _SEED_MEANING[opt] in a.help, (name, opt, a.help)
                seen.setdefault(opt, set()).add(name)
    assert seen == {"--token-seed": {"real-model", "check", "fig2"}, "--weights-seed": {"check"},
                    "--instance-seed": {"depth"}, "--prime-seed": {"rank", "check", "fig2"}}


def test_words_the_old_seed_still_works_and_says_what_it_sets(capsys):
    M = "[[1,2,3],[2,4,6],[1,1,1]]"
    code, out, err = _run(capsys, "rank", M, "--json", "--seed", "3")
    assert code == 0 and "`rank --seed` is deprecated" in err and "--prime-seed 3" in err
    code, out2, err2 = _run(capsys, "rank", M, "--json", "--prime-seed", "3")
    assert code == 0 and err2 == ""
    assert json.loads(out)["primes"] == json.loads(out2)["primes"]
    args = ["check", "RC.dim-dk", "--X", "[[0.1, 0.3], [1, 3]]", "--heads", "1", "--json"]
    code, old, err = _run(capsys, *args, "--seed", "2")
    assert code == 0 and "--weights-seed 2 --prime-seed 2" in err
    code, new, err = _run(capsys, *args, "--weights-seed", "2", "--prime-seed", "2")
    assert code == 0 and "deprecated" not in err
    assert json.loads(old)["claims"] == json.loads(new)["claims"]
    code, _, err = _run(capsys, *args, "--seed", "2", "--weights-seed", "3")
    assert code == 2 and "disagree" in err
    code, _, err = _run(capsys, *args, "--seed", "-1")
    assert code == 2 and "--seed -1 is outside [0," in err


def test_words_real_model_and_depth_seed_aliases_set_their_one_meaning():
    from proofs_numeric.cli import build_parser
    from proofs_numeric.cli.inputs import resolve_deprecated_seed
    from proofs_numeric.cli.real_model import OLD_SEED as RM_OLD
    a = build_parser().parse_args(["real-model", "--seed", "7", "--length", "5"])
    resolve_deprecated_seed(a, "real-model", *RM_OLD)
    assert a.token_seed == 7
    from proofs_numeric.cli.depth import OLD_SEED as DEPTH_OLD
    a = build_parser().parse_args(["depth", "--seed", "5"])
    resolve_deprecated_seed(a, "depth", *DEPTH_OLD)
    assert a.instance_seed == 5


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    import numpy as np

    from property_tests.interface.test_checkpoints import bert_config, bert_tensors, write_checkpoint
    return write_checkpoint(tmp_path_factory.mktemp("ck") / "CK", bert_config(), bert_tensors(np.random.default_rng(1)))


def test_words_model_hints_name_the_token_seed_and_length_has_a_sensible_bound(tiny_bert, capsys):
    code, out, err = _run(capsys, "check", "RN.main", "--model", str(tiny_bert), "--ids", "[1, 2]", "--token-seed", "1")
    text = " ".join((out + err).split())  # the checkpoint's failure is a row of the summary
    assert code == 2 and "--token-seed/--length choose random token ids" in text and "--seed/" not in text
    code, _, err = _run(capsys, "check", "RN.main", "--model", str(tiny_bert), "--length", "0")
    assert code == 2 and "--length 0: give at least 1 token" in err and "9223372036854775807" not in err
    assert "capped at" in err and "positions" in err


# ------------------------------------------------------------------------------------------ names users see

def test_words_show_accepts_the_aliases_check_list_prints(capsys):
    code, out, err = _run(capsys, "check", "--list")
    aliases = dict(x.split(" -> ") for x in re.search(r"aliases: (.*)", out).group(1).split(", "))
    assert "rank-contraction" in aliases
    code, out, err = _run(capsys, "show", "rank-contraction", "--quick", "--json")
    assert code == 0, err
    assert json.loads(out)["id"] == aliases["rank-contraction"] and "earlier name" in err


def test_words_verify_claims_takes_a_comma_list(capsys):
    code, out, err = _run(capsys, "verify", "--claims", "DC.bert-config, DC.ffn-flops", "--quick")
    assert code == 0, err
    assert "2 claims" in out and "DC.bert-config" in out and "DC.ffn-flops" in out


def test_words_reasons_say_no_internal_names(capsys):
    """`check --list` said "its Pool states no instance_from": the reasons are in the user's words now."""
    code, out, err = _run(capsys, "check", "--list", "--json")
    reasons = json.dumps(json.loads(out))
    for word in ("instance_from", "Pool", "InstanceForm", "builder"):
        assert word not in reasons, word
    from proofs_numeric.ledger import registry
    from theorems.framework.suite import instance_form
    whys = {why for c in registry() for r in c.all_readings() for _, why in [instance_form(c, r)] if why}
    assert not [w for w in whys if "instance_from" in w or "Pool" in w]


def test_words_a_bad_stored_counterexample_names_its_file(tmp_path, monkeypatch, capsys):
    """A stored counterexample with an entry `x` said `internal error ... TypeError: invalid input: x`."""
    import shutil
    src = storage.COUNTEREXAMPLE_DIR
    for p in src.glob("*.json"):
        shutil.copy(p, tmp_path / p.name)
    f = tmp_path / "USER.rmsnorm-affine-rank.json"
    data = json.loads(f.read_text())
    data["instance"]["regimes"]["n<d"]["value"]["dict"]["X"]["matrix"][0][0] = "x"
    f.write_text(json.dumps(data))
    monkeypatch.setattr(storage, "COUNTEREXAMPLE_DIR", tmp_path)
    code, out, err = _run(capsys, "show", "USER.rmsnorm-affine-rank", "--quick")
    text = out + err
    assert "USER.rmsnorm-affine-rank.json" in text and "n<d" in text, text[-1500:]
    assert "internal error" not in err


# ------------------------------------------------------------------------------------------ rank -

def test_words_rank_dash_reads_the_standard_input(tmp_path):
    import io

    import numpy as np
    run = lambda data: subprocess.run([sys.executable, "-m", "proofs_numeric", "rank", "-", "--json"],  # noqa: E731
                                      input=data, capture_output=True, timeout=60, cwd=ROOT)
    p = run(b"[[1, 2], [2, 4]]")
    assert p.returncode == 0, p.stderr
    rec = json.loads(p.stdout)
    assert rec["lower"] == rec["upper"] == 1 and "standard input" in rec["input"]
    buf = io.BytesIO()
    np.save(buf, np.array([[1.5, 3.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 0.25]]))
    p = run(buf.getvalue())
    assert p.returncode == 0, p.stderr
    rec = json.loads(p.stdout)
    assert rec["lower"] == rec["upper"] == 2 and ".npy from the standard input" in rec["input"]
    p = run(b"")
    assert p.returncode == 2 and b"standard input is empty" in p.stderr
    p = run(b"not a matrix")
    assert p.returncode == 2 and b"error" in p.stderr and b"Traceback" not in p.stderr
