"""Issue 29, what a new user hit: nothing a user owns is overwritten, numbers that cannot be wrong, arguments and
profiles, the default stress that stresses, and output people can read.

One rule for every writer (``proofs_numeric.cli.inputs``): a file that exists is replaced only when collapse-verify
wrote it as the same kind of output, nothing is written inside what the run reads, both unless ``--force``; a whole
file is written through a temporary file and renamed; a record stream appends and flushes each record.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from proofs_numeric.cli import inputs as I
from proofs_numeric.cli import main
from proofs_numeric.ledger import scaffold as S
from property_tests.documents import document

ROOT = Path(__file__).resolve().parents[2]


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _foreign(path: Path, data: bytes = b"\x00\x01 my checkpoint, not yours\n") -> bytes:
    path.write_bytes(data)
    return data


# ================================================================ the write rule, for each writer

def test_new_user_verify_json_never_replaces_a_users_file(tmp_path, capsys):
    """`verify --json W.npz` replaced a weights file with the ledger: now refused (exit 2, named), unchanged."""
    w = tmp_path / "W.npz"
    np.savez(w, W_O=np.eye(3))
    before = w.read_bytes()
    code, _, err = _run(capsys, "verify", "--claims", "DC.bert-config", "--json", str(w))
    assert code == 2 and str(w) in err and "not a file collapse-verify wrote" in err and "--force" in err
    assert w.read_bytes() == before


def test_new_user_verify_json_replaces_its_own_ledger_and_marks_it(tmp_path, capsys):
    p = tmp_path / "ledger.json"
    assert _run(capsys, "verify", "--claims", "DC.bert-config", "--json", str(p))[0] == 0
    first = document(p.read_text(), "ledger")
    assert next(iter(first)) == "collapse_verify" and first["collapse_verify"]["kind"] == "ledger"
    assert _run(capsys, "verify", "--claims", "DC.bert-config", "--json", str(p))[0] == 0  # its own: replaced
    assert [c["id"] for c in json.loads(p.read_text())["claims"]] == ["DC.bert-config"]
    assert not [q for q in tmp_path.iterdir() if q.name != "ledger.json"], "no temporary file left"


def test_new_user_an_unmarked_ledger_of_an_earlier_version_is_still_recognised(tmp_path, capsys):
    p = tmp_path / "ledger.json"
    p.write_text(json.dumps({"claims": [], "dps": 50, "quick": False, "errors": [], "provenance": {}}))
    assert I.written_kind(p) == "ledger"
    assert _run(capsys, "verify", "--claims", "DC.bert-config", "--json", str(p))[0] == 0


def test_new_user_verify_json_force_replaces_a_foreign_file(tmp_path, capsys):
    w = tmp_path / "notes.txt"
    _foreign(w)
    assert _run(capsys, "verify", "--claims", "DC.bert-config", "--json", str(w), "--force")[0] == 0
    assert json.loads(w.read_text())["collapse_verify"]["kind"] == "ledger"


def test_new_user_depth_json_refuses_a_foreign_file_and_another_kind(tmp_path, capsys):
    small = ["depth", "--regime", "pure_attention", "--layers", "1", "--n", "2", "--d", "2", "--heads", "1",
             "--d-k", "1", "--dps", "30"]
    w = tmp_path / "W.npy"
    np.save(w, np.ones((2, 2)))
    before = w.read_bytes()
    code, _, err = _run(capsys, *small, "--json", str(w))
    assert code == 2 and str(w) in err and w.read_bytes() == before
    ledger = tmp_path / "ledger.json"
    ledger.write_text(json.dumps(I.marked("ledger", {"claims": []})))
    code, _, err = _run(capsys, *small, "--json", str(ledger))
    assert code == 2 and "is a ledger (verify --json), not a depth-study record" in err
    out = tmp_path / "depth.json"
    assert _run(capsys, *small, "--json", str(out))[0] == 0
    assert _run(capsys, *small, "--json", str(out))[0] == 0  # its own record: replaced
    assert json.loads(out.read_text())["collapse_verify"]["kind"] == "depth"


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    from property_tests.interface.test_checkpoints import bert_config, bert_tensors, write_checkpoint
    return write_checkpoint(tmp_path_factory.mktemp("ck") / "CK", bert_config(), bert_tensors(np.random.default_rng(1)))


def test_new_user_real_model_json_never_turns_the_checkpoint_into_json(tiny_bert, capsys):
    """`real-model --model CK --json CK/model.safetensors` turned the checkpoint into a 12 KB JSON file."""
    ck = tiny_bert / "model.safetensors"
    before = ck.read_bytes()
    code, _, err = _run(capsys, "real-model", "--model", str(tiny_bert), "--ids", "[1, 2, 3, 4]", "--json", str(ck))
    assert code == 2 and str(ck) in err and ck.read_bytes() == before
    # nothing new inside the folder it reads either (a file there could change what a later run loads)
    code, _, err = _run(capsys, "real-model", "--model", str(tiny_bert), "--ids", "[1, 2, 3, 4]",
                        "--json", str(tiny_bert / "out.json"))
    assert code == 2 and "input folder" in err and not (tiny_bert / "out.json").exists()


def test_new_user_real_model_json_records_the_token_ids(tiny_bert, tmp_path, capsys):
    """`real-model --json` recorded how many tokens, never the ids: record what reproduces the run."""
    out = tmp_path / "rm.json"
    assert _run(capsys, "real-model", "--model", str(tiny_bert), "--seed", "7", "--length", "5",
                "--json", str(out))[0] == 0
    rec = document(out.read_text())
    assert rec["collapse_verify"]["kind"] == "real-model"
    (name, ids), = rec["token_ids"].items()
    assert ids == np.random.default_rng(7).integers(0, 50, size=5).tolist()
    assert rec["request"] == {"seed": 7, "length": 5, "ids": None, "texts": None}
    assert _run(capsys, "real-model", "--model", str(tiny_bert), "--ids", json.dumps(ids), "--json", str(out))[0] == 0
    assert json.loads(out.read_text())["token_ids"] == {"ids": ids}


def test_new_user_an_interrupted_write_leaves_the_old_file_whole(tmp_path, monkeypatch):
    p = tmp_path / "ledger.json"
    I.write_json_output(p, {"claims": ["old"]}, kind="ledger")
    old = p.read_bytes()

    def boom(fd):
        raise KeyboardInterrupt
    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(KeyboardInterrupt):
        I.write_json_output(p, {"claims": ["new" * 1000]}, kind="ledger")
    assert p.read_bytes() == old
    assert sorted(q.name for q in tmp_path.iterdir()) == ["ledger.json"], "the temporary file is removed"


def test_new_user_record_stream_appends_and_flushes_each_record(tmp_path):
    """Every line of a stream is a record with the marker as its first key, on disk as soon as it is written; a stream
    is continued only with resume (a torn last line dropped); a foreign file, or another kind of output, is refused
    (``force`` replaces it with a new stream)."""
    p = tmp_path / "runs.jsonl"
    mark = {"collapse_verify": {"kind": "depth-layers", "version": 1}}
    s = I.RecordStream(p, kind="depth-layers")
    s.write({"layer": 0})
    lines = p.read_text().splitlines()  # on disk before close
    assert [json.loads(x) for x in lines] == [{**mark, "layer": 0}]
    assert next(iter(json.loads(lines[0]))) == "collapse_verify"  # the marker is the first key
    s.close()
    with pytest.raises(I.UsageError, match="--resume"):
        I.RecordStream(p, kind="depth-layers")  # exists: continued only when asked
    with open(p, "a") as f:
        f.write('{"collapse_verify": {"kind": "depth-layers", "version": 1}, "layer": 1, "rh')  # an interrupted write
    with I.RecordStream(p, kind="depth-layers", resume=True) as s:
        assert s.records == [{"layer": 0}] and "line 2" in s.notes[0] and "dropped" in s.notes[0]
        s.write({"layer": 1})
        assert s.total == 2
    assert [json.loads(x) for x in p.read_text().splitlines()] == [{**mark, "layer": 0}, {**mark, "layer": 1}]
    w = tmp_path / "W.npy"
    _foreign(w)
    with pytest.raises(I.UsageError, match="not a file collapse-verify wrote"):
        I.RecordStream(w, kind="depth-layers")
    ledger = tmp_path / "ledger.json"
    I.write_json_output(ledger, {}, kind="ledger")
    with pytest.raises(I.UsageError, match="is a ledger"):
        I.RecordStream(ledger, kind="depth-layers")
    with I.RecordStream(w, kind="depth-layers", force=True) as s:  # --force: a new stream
        s.write({"layer": 9})
    assert [json.loads(x) for x in w.read_text().splitlines()] == [{**mark, "layer": 9}]


def test_new_user_store_writes_through_the_rule(tmp_path, monkeypatch):
    """--store writes the counterexample through the same rule (marked, atomic, never over a foreign file)."""
    from sympy import Matrix, Rational

    from proofs_numeric.cli import verify as V
    from theorems.framework import storage
    from theorems.framework.declare import claim

    monkeypatch.setattr(storage, "COUNTEREXAMPLE_DIR", tmp_path)
    c = claim(id="USER.store-rule-example", statement="x", hypotheses={"any": lambda X: True},
              conclusion=("rank 2", lambda X: X.rows == 2), instances=lambda draw, r: Matrix([[Rational(draw(1, 2))]]),
              regimes=("all",), register_claim=False, samples=5, search_examples=50)
    conj = next(f.__self__ for f in c.checks if hasattr(f, "__self__"))
    from theorems.framework import CheckContext, recording
    with recording() as rec:
        conj.stress(CheckContext(quick=True))
        conj.counterexample(CheckContext(quick=True))
    found = rec.found[conj.claim.id]  # the run's record carries what it found (no state left on the conjecture)
    assert found
    foreign = conj.stored_path()
    _foreign(foreign)
    with pytest.raises(I.UsageError, match="not a file collapse-verify wrote"):
        conj.store(found, write=V.store_writer(force=False))
    foreign.unlink()
    (p,) = conj.store(found, write=V.store_writer(force=False))
    data = json.loads(p.read_text())
    assert data["collapse_verify"]["kind"] == "counterexample" and data["claim"] == "USER.store-rule-example"
    assert sorted(q.name for q in tmp_path.iterdir()) == [p.name]


# ================================================================ `new`: names keep their meaning, nothing lost

def _project(tmp_path) -> Path:
    root = tmp_path / "proj"
    for sub in ("theorems", "property_tests", "book/chapters"):
        (root / sub).mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (root / "book" / "_toc.yml").write_text("format: jb-book\nroot: index\nparts:\n  - caption: Theorems\n"
                                            "    chapters:\n      - file: a\n")
    return root


def test_new_user_slug_keeps_the_meaning_of_comparison_symbols():
    gt = S.slugify("LayerNorm preserves matrix rank when n > d")
    lt = S.slugify("LayerNorm preserves matrix rank when n < d")
    assert gt != lt
    assert gt.endswith("when_n_gt_d") and lt.endswith("when_n_lt_d")
    assert S.slugify("rank ≥ 1") == "rank_ge_1" and S.slugify("rank ≤ 1") == "rank_le_1"
    assert S.slugify("a != b") == "a_ne_b" and S.slugify("a = b") == "a_eq_b" and S.slugify("a ≠ b") == "a_ne_b"


def test_new_user_new_refuses_a_collision_with_a_different_title_even_with_force(tmp_path, capsys):
    root = _project(tmp_path)
    assert _run(capsys, "new", "Rank when n>d", "--root", str(root))[0] == 0
    mod = root / "theorems" / "conjectures" / "rank_when_n_gt_d.py"
    before = mod.read_text()
    code, _, err = _run(capsys, "new", "Rank when n > d", "--root", str(root), "--force")
    assert code == 2
    assert "theorems/conjectures/rank_when_n_gt_d.py" in err and "'Rank when n>d'" in err
    assert mod.read_text() == before


def test_new_user_new_force_backs_up_an_edited_module_and_its_counterexample(tmp_path, capsys):
    root = _project(tmp_path)
    assert _run(capsys, "new", "Mine", "--root", str(root))[0] == 0
    mod = root / "theorems" / "conjectures" / "mine.py"
    edited = mod.read_text().replace("return rank(X) >= 1", "return rank(X) >= 2")
    mod.write_text(edited)
    ce = root / "theorems" / "counterexamples" / "USER.mine.json"
    ce.parent.mkdir(parents=True)
    ce.write_text('{"claim": "USER.mine", "instance": {}}')
    code, out, err = _run(capsys, "new", "Mine", "--root", str(root), "--force")
    assert code == 0, err
    backups = [p for p in (root / ".collapse-verify" / "backups").rglob("*") if p.is_file()]
    names = {p.name for p in backups}
    assert "mine.py.bak" in names and "USER.mine.json.bak" in names
    assert next(p for p in backups if p.name == "mine.py.bak").read_text() == edited
    assert not ce.exists(), "the counterexample of the edited module no longer lies beside the new one"
    assert "backed up" in out and "mine.py" in out
    # an unedited module is regenerated without a backup
    n = len(backups)
    assert _run(capsys, "new", "Mine", "--root", str(root), "--force")[0] == 0
    assert len([p for p in (root / ".collapse-verify" / "backups").rglob("*") if p.is_file()]) == n


def test_new_user_an_unedited_scaffold_is_not_checkable_not_filled_in(tmp_path):
    """`new "None"` showed as `USER.none supported (exact)` with the placeholder statement."""
    import importlib.util

    from theorems.framework import CONJECTURES, CheckContext, run_claim
    from theorems.framework import registry as R
    root = _project(tmp_path)
    S.scaffold("Placeholder probe", root=root)
    mod_path = root / "theorems" / "conjectures" / "placeholder_probe.py"
    name = "theorems.conjectures.placeholder_probe"
    try:
        spec = importlib.util.spec_from_file_location(name, mod_path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        r = run_claim(mod.CLAIM, CheckContext(quick=True))
        assert r.verdict == "not-checkable" and "not filled in yet" in r.literal.reason
        assert "placeholder_probe.py" in r.literal.reason
    finally:
        sys.modules.pop(name, None)
        R.unregister("USER.placeholder-probe")
        CONJECTURES.pop("USER.placeholder-probe", None)


# ================================================================ numbers that cannot be wrong

def test_new_user_depth_exponent_note_matches_the_table():
    """`depth` printed "fewer than two layers with rho < 1e-3" above a table showing two such layers."""
    from proofs_numeric.witnesses.dong_collapse import exponent_estimate, exponent_note
    logs = [-0.5, -1.0, -2.0, -4.0, -8.0]  # two layers below 1e-3: one ratio from a collapsing layer
    recs = [{"layer": k, "log10_rho": v} for k, v in enumerate(logs)]
    for a, b in zip(recs, recs[1:]):
        b["log_ratio"] = b["log10_rho"] / a["log10_rho"]
    recs[0]["log_ratio"] = None
    assert exponent_estimate(recs) is None
    note = exponent_note(recs)
    below = [r["layer"] for r in recs if r["log10_rho"] < -3]
    assert "2 layers" in note and "3, 4" in note and len(below) == 2
    assert "fewer than two layers" not in note
    recs.append({"layer": 5, "log10_rho": -16.0, "log_ratio": 2.0})
    assert exponent_estimate(recs) == 2.0 and "exponent estimate 2.0" in exponent_note(recs)


def test_new_user_depth_prints_a_note_consistent_with_its_table(capsys, monkeypatch):
    """The issue's own run (attention + skip at the default shape): two layers below 1e-3 in the table."""
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = _run(capsys, "depth", "--regime", "attention_skip")
    assert code == 0
    rows = [m.groups() for ln in out.splitlines() if (m := re.match(r"\s*(\d+)\s{2,}(\S+(?: resolution)?)\s", ln))]
    assert rows, out[:800]
    below = [int(r[0]) for r in rows if r[1] != "below resolution" and float(r[1]) < 1e-3]
    text = " ".join(out.split())
    assert "fewer than two layers" not in text
    m = re.search(r"(\d+) layers? with rho < 1e-3", text)
    assert m and int(m.group(1)) == len(below) == 2, text[:400]


def test_new_user_depth_json_stores_the_enclosure_and_the_run(tmp_path, capsys):
    """`depth --json` stored rho as a 6-digit string without its enclosure: record what certifies and reproduces."""
    out = tmp_path / "d.json"
    assert _run(capsys, "depth", "--regime", "pure_attention", "--layers", "2", "--n", "3", "--d", "2", "--heads", "1",
                "--d-k", "1", "--dps", "40", "--seed", "5", "--json", str(out))[0] == 0
    rec = json.loads(out.read_text())
    assert rec["config"] == {"n": 3, "d": 2, "H": 1, "d_k": 1, "layers": 2, "dps": 40, "seed": 5}
    import decimal
    from decimal import Decimal
    with decimal.localcontext() as dc:
        dc.prec = 400  # exact for these strings
        for x in rec["regimes"]["pure_attention"]["layers"]:
            lo, hi = (Decimal(v) for v in x["rho_enclosure"])  # exact decimals
            mid, rad = Decimal(x["rho_ball"]["mid"]), Decimal(x["rho_ball"]["rad"])
            assert lo <= mid - rad and mid + rad <= hi and lo < hi
            assert len(x["rho_ball"]["mid"]) > 20  # every digit the ball holds, not 6
            if x["rho"] != "below resolution":
                assert abs(Decimal(x["rho"]) - mid) <= Decimal("1e-6") * mid


def test_new_user_lists_in_messages_are_capped():
    """An error about a 10^6-row input was one 7.9-million-character line."""
    from theorems.exact.input import cap_list
    from theorems.exact.norm_exact import analyse_array
    assert cap_list(range(10 ** 6)) == "0, 1, 2, 3, 4, … (999,995 more)"
    assert cap_list([3]) == "3" and cap_list([]) == "none"
    a = analyse_array(np.ones((20000, 2)))
    assert len(a.h1_message()) < 300 and "19,995 more" in a.h1_message()


def test_new_user_lists_in_the_exact_layer_errors_are_capped():
    from theorems.exact import layernorm as LN
    inst = LN.instance([[1, 1]] * 50)
    with pytest.raises(LN.HypothesisViolation) as e:
        LN.arank_LN(inst)
    assert len(str(e.value)) < 300 and "45 more" in str(e.value)


def _ckpt(folder, layers_in_config=2, nan_at=None):
    from property_tests.interface.test_checkpoints import bert_config, bert_tensors, write_checkpoint
    t = bert_tensors(np.random.default_rng(4))
    if nan_at:
        t[nan_at] = t[nan_at].copy()
        t[nan_at].flat[3] = np.nan
    return write_checkpoint(folder, bert_config(layers=layers_in_config), t)


def test_new_user_a_nan_weight_is_named_with_its_tensor_and_checkpoint(tmp_path, capsys):
    name = "bert.encoder.layer.1.attention.self.value.weight"
    ck = _ckpt(tmp_path / "nan", nan_at=name)
    code, _, err = _run(capsys, "real-model", "--model", str(ck), "--ids", "[1, 2, 3]")
    assert code == 2 and name in err and str(ck) in err and "NaN" in err


def test_new_user_config_layers_below_the_files_is_refused_naming_both(tmp_path, capsys):
    """config.json saying 1 layer while the files hold 2 ran silently on 1 layer."""
    ck = _ckpt(tmp_path / "short", layers_in_config=1)
    code, _, err = _run(capsys, "real-model", "--model", str(ck), "--ids", "[1, 2, 3]")
    assert code == 2 and "config.json says 1 layer" in err and "hold 2" in err


# ================================================================ arguments and profiles

@pytest.mark.parametrize("value", ["bogus", "", "THOROUGH"])
def test_new_user_an_unknown_hypothesis_profile_is_one_line_naming_the_profiles(value):
    from property_tests import conftest
    with pytest.raises(pytest.UsageError) as e:
        conftest.profile_from_env({"HYPOTHESIS_PROFILE": value})
    msg = str(e.value)
    assert "\n" not in msg and all(p in msg for p in ("dev", "ci", "thorough")) and repr(value) in msg
    assert conftest.profile_from_env({}) == "dev" and conftest.profile_from_env({"HYPOTHESIS_PROFILE": "ci"}) == "ci"


@pytest.mark.slow
def test_new_user_an_unknown_hypothesis_profile_gives_no_traceback():
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--co",
                           str(ROOT / "property_tests" / "framework" / "test_layering.py")],
                          capture_output=True, text=True, env={**os.environ, "HYPOTHESIS_PROFILE": "bogus"},
                          cwd=ROOT, timeout=300)
    assert proc.returncode != 0
    text = proc.stdout + proc.stderr
    assert "Traceback" not in text and "dev, ci or thorough" in text


@pytest.mark.slow
def test_new_user_the_scaffold_module_imports_first():
    """``import proofs_numeric.ledger.scaffold`` in a fresh interpreter (the doctests collect it so, a user's script may
    import it so): it imports the command line's write rule, whose package imports ``new``, which imported the scaffold
    back at its top (a cycle: ImportError); ``new`` now imports it when it runs."""
    proc = subprocess.run([sys.executable, "-c", "import proofs_numeric.ledger.scaffold as S; print(S.MARKER)"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == S.MARKER


def test_new_user_the_end_of_run_table_says_what_conclusion_counts():
    from property_tests import conftest

    class TR:
        def __init__(self):
            self.lines = []

        def section(self, s):
            self.lines.append(s)

        def write_line(self, s):
            self.lines.append(s)
    saved = dict(conftest.VACUITY)
    try:
        conftest.VACUITY.clear()
        from collections import Counter
        conftest.VACUITY["test_x"] = Counter({"n<d|drawn": 3, "n<d|H1-H4": 2, "n<d|conclusion": 1})
        tr = TR()
        conftest.pytest_terminal_summary(tr, SimpleNamespace())  # a config without workerinput: the controller's
        text = "\n".join(tr.lines)
        assert re.search(r"conclusion: .*draws meeting H1-H4", text), text
    finally:
        conftest.VACUITY.clear()
        conftest.VACUITY.update(saved)


# ================================================================ the default stress must stress

def test_new_user_each_regime_has_constructed_draws_meeting_h1_to_h4():
    """Each regime's stress includes instances built to meet H1-H4, so the per-regime assertion cannot fail by
    chance under `dev`."""
    from property_tests.strategies import LN_PREMISE_EXAMPLES
    from theorems.exact import layernorm as LN
    assert set(LN_PREMISE_EXAMPLES) == {"n<d", "n=d", "n>d"}
    for regime, insts in LN_PREMISE_EXAMPLES.items():
        assert insts
        for inst in insts:
            a = LN.analyse(inst)
            assert a.regime == regime and a.all_hypotheses, (regime, inst)
        # both outcomes of the conclusion appear among them where they can
    assert any(not LN.analyse(i).conclusion_holds for i in LN_PREMISE_EXAMPLES["n=d"])


# ================================================================ reading

def test_new_user_show_wraps_at_spaces_never_inside_latex_and_indents(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["show", "RN.main", "--quick"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert all(len(x) <= 80 for x in lines), max(lines, key=len)
    tops = ("RN.main ", "quote:", "statement:", "hypotheses:", "regimes:", "reading ", "counterexample file ",
            "proof steps:")
    for x in lines:
        assert not x or x.startswith(" ") or x.startswith(tops), f"continuation at column 0: {x!r}"
    assert main(["show", "RN.main", "--quick", "--json"]) == 0
    record = capsys.readouterr().out
    commands = set(re.findall(r"\\\\([A-Za-z]+)", record))  # every command the record holds (JSON-escaped)
    shown = set(re.findall(r"\\([A-Za-z]+)", out))
    assert shown <= commands, f"commands cut mid-name: {sorted(shown - commands)}"
    assert "operatorname" in shown


def test_new_user_front_page_and_ledger_title_conjectures_by_their_title(monkeypatch):
    """The front page and the ledger table name a conjecture by its title. Both render every registered claim
    from the book's ledger; here the registry is the conjecture and one paper claim, each with its quick run
    (the whole ledger is the book build's: interface/test_book.py)."""
    from proofs_numeric.ledger import get, report
    from property_tests.paper.quick_runs import quick_run
    from theorems.framework import CONJECTURES
    cid = "USER.ln-sphere"
    title = CONJECTURES[cid].claim.quote
    claims = [get("RRO.rowspace-remark"), get(cid)]
    monkeypatch.setattr(report, "registry", lambda: claims)
    monkeypatch.setattr(report, "run", lambda claim_id, dps=report.BOOK_DPS: quick_run(claim_id))
    plain = lambda md: md.replace("\\", "")  # Markdown escapes removed
    assert title in plain(report.findings_markdown())
    assert "Ln sphere" not in report.findings_markdown()
    assert title in plain(report.ledger_markdown())


def test_new_user_paper_proof_audit_is_text_with_math_not_math_with_text():
    from proofs_numeric.ledger import report
    from theorems.paper import rank_neutrality as RN
    md = report.paper_proof_audit_markdown(RN.PAPER_PROOF_AUDIT)
    assert "$$" not in md.replace("\n$$\n", "")  # no inline $$ pairs
    assert r"\text{" not in md  # prose is prose
    assert "preserve affine rank under H3" in md and "$\\operatorname{diag}(\\gamma)$" in md
    for line in md.splitlines():
        assert line.count("$") % 2 == 0, line


# ================================================================ figures where people look

def test_new_user_front_page_verdicts_are_a_stacked_bar_per_chapter():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from proofs_numeric.ledger import figures
    rows = [("Rank-Neutrality of LayerNorm (§4)", {"refuted": 3, "proved": 2}), ("Symmetries (§9)", {"supported": 4})]
    fig = figures.verdicts_per_chapter(rows)
    ax = fig.axes[0]
    per_chapter: dict = {}
    for bar in ax.patches:
        y = round(bar.get_y() + bar.get_height() / 2)
        per_chapter[y] = per_chapter.get(y, 0) + bar.get_width()
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert {labels[y]: w for y, w in per_chapter.items()} == {"Rank-Neutrality of LayerNorm (§4)": 5,
                                                              "Symmetries (§9)": 4}
    assert {t.get_text() for t in ax.get_legend().get_texts()} == {"refuted", "proved", "supported"}
    plt.close(fig)


def test_new_user_rank_neutrality_stress_is_a_chart_per_regime():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from proofs_numeric.ledger import figures, report
    stats = report.rank_neutrality_stress(seed=1, per_shape=1)
    fig = figures.stress_per_regime(stats)
    assert [ax.get_title() for ax in fig.axes] == ["regime n < d", "regime n = d", "regime n > d"]
    for ax, regime in zip(fig.axes, ("n<d", "n=d", "n>d")):
        families = sorted({f for _, f in stats})
        heights = [b.get_height() for b in ax.patches]
        want = [stats.get((regime, f), {}).get(key, 0) for key, _ in figures.STRESS_SERIES for f in families]
        assert heights == want
    plt.close(fig)


def test_new_user_real_model_cond_and_recovery_error_are_a_line_plot_per_layer():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from proofs_numeric.ledger import figures
    res = {"model": "tiny", "layers": [{"layer": k, "W_O_condition": 10.0 * (k + 1),
                                        "head_recovery_rel_error": 1e-15 * (k + 1)} for k in range(4)]}
    fig = figures.real_model_layers(res["layers"], res["model"])
    lines = [ln for ax in fig.axes for ln in ax.get_lines()]
    got = {ln.get_label(): list(ln.get_ydata()) for ln in lines}
    assert got == {"cond(W_O)": [L["W_O_condition"] for L in res["layers"]],
                   "head recovery rel. error": [L["head_recovery_rel_error"] for L in res["layers"]]}
    plt.close(fig)
