"""Every registered conjecture is stressed here with no test code of its own, and plug-ins load."""
from __future__ import annotations

import importlib.metadata as md
import importlib.util
import os
import shutil
import subprocess
import sys
import textwrap
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

import theorems
from proofs_numeric import ledger as L
from proofs_numeric.cli import main
from proofs_numeric.ledger.scaffold import ScaffoldError, scaffold, suite_names
from property_tests.conjectures import stress_conjecture
from theorems import framework as C
from theorems.framework import CONJECTURES, storage

L.registry()  # load the paper's claims and any plug-in


@pytest.mark.parametrize("cid", sorted(CONJECTURES), ids=str)
def test_registry_conjecture_holds_or_is_refuted_from_scratch(cid, counts):
    """A conjecture the ledger does not refute holds on every draw meeting its hypotheses;
    one it refutes yields a counterexample to a search from scratch (and its stored one refutes it)."""
    stress_conjecture(cid, counts)


def test_registry_worked_examples_give_their_verdicts():
    """The two RMSNorm examples: the true one is supported (proved only with a general proof), never
    refuted; the false one is refuted by its minimal stored counterexample [[1], [2]]."""
    true = C.run_claim(L.get("USER.rmsnorm-matrix-rank"))
    assert true.verdict in ("supported", "proved")
    false = C.run_claim(L.get("USER.rmsnorm-affine-rank"))
    assert false.verdict == "refuted"
    head = next(e for e in false.literal.evidence if e.kind == "counterexample")
    assert head.counterexample == "theorems/counterexamples/USER.rmsnorm-affine-rank.json"
    assert "X = [[1], [2]] (2x1)" in head.summary


@pytest.mark.slow
def test_registry_plain_verify_never_writes_into_the_source_tree(tmp_path, monkeypatch):
    """A false conjecture's counterexample found on this run is written only with --store."""
    ce = tmp_path / "ce"
    shutil.copytree(C.COUNTEREXAMPLE_DIR, ce)
    (ce / "USER.rmsnorm-affine-rank.json").unlink()
    monkeypatch.setattr(storage, "COUNTEREXAMPLE_DIR", ce)
    before = sorted(p.name for p in ce.iterdir())
    assert main(["verify", "--quick", "--claims", "USER.rmsnorm-affine-rank"]) == 0
    assert sorted(p.name for p in ce.iterdir()) == before
    found = C.run_claim(L.get("USER.rmsnorm-affine-rank"), C.CheckContext(quick=True))
    assert set(found.found_counterexamples) == {e.regime for e in found.literal.evidence if e.kind == "counterexample"}
    assert main(["verify", "--quick", "--store", "--claims", "USER.rmsnorm-affine-rank"]) == 0
    assert (ce / "USER.rmsnorm-affine-rank.json").exists()
    loaded = C.run_claim(L.get("USER.rmsnorm-affine-rank"), C.CheckContext(quick=True))
    assert [e.to_json() for e in found.literal.evidence] == [e.to_json() for e in loaded.literal.evidence]


def test_registry_entry_point_plugin_is_loaded(tmp_path, monkeypatch):
    """A module named under the collapse_verify.claims entry point registers its claims."""
    mod = tmp_path / "cv_plugin_example.py"
    mod.write_text(textwrap.dedent('''
        from sympy import Rational
        from theorems.conjecture import conjecture
        conjecture(id="PLUGIN.example", statement=r"x^2\\ge0", hypotheses={},
                   conclusion=lambda x: x * x >= 0, instances=lambda draw, r: Rational(draw(-9, 9)),
                   regimes=("all",), source="cv_plugin_example")
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    ep = EntryPoint(name="example", value="cv_plugin_example", group="collapse_verify.claims")
    monkeypatch.setattr(md, "entry_points", lambda group=None: [ep] if group == "collapse_verify.claims" else [])
    L.reset_entry_points()
    try:
        assert L.load_entry_points() == ["example"]
        ids = [c.id for c in L.registry()]
        assert "PLUGIN.example" in ids
        assert C.run_claim(L.get("PLUGIN.example")).verdict == "supported"
    finally:
        C.unregister("PLUGIN.example")
        CONJECTURES.pop("PLUGIN.example", None)
        sys.modules.pop("cv_plugin_example", None)


def test_registry_a_broken_plugin_is_skipped_and_reported(tmp_path, monkeypatch, capsys):
    """Review finding: a plug-in declaring an id the suite already has (RN.main) made every `verify` end in an
    internal error; it is now skipped with a warning naming it, and recorded for `verify` to exit 1 on."""
    (tmp_path / "cv_plugin_broken.py").write_text(
        "from theorems.conjecture import claim\nclaim(id='RN.main', statement='x', conclusion='c')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    ep = EntryPoint(name="broken", value="cv_plugin_broken", group="collapse_verify.claims")
    monkeypatch.setattr(md, "entry_points", lambda group=None: [ep] if group == "collapse_verify.claims" else [])
    monkeypatch.setattr(theorems, "IMPORT_ERRORS", dict(theorems.IMPORT_ERRORS))
    L.reset_entry_points()
    try:
        assert L.load_entry_points() == []
        assert "the plug-in broken (cv_plugin_broken) failed to load" in capsys.readouterr().err
        assert any("DuplicateClaim" in v for v in theorems.IMPORT_ERRORS.values())
        assert L.get("RN.main").section == "§1 contribution 1 (Thm 4.2, §4)"  # the paper's claim is untouched
    finally:
        sys.modules.pop("cv_plugin_broken", None)
        L.reset_entry_points()


def test_registry_scaffold_creates_module_tests_and_chapter(tmp_path):
    for sub in ("theorems", "property_tests", "book/chapters"):
        (tmp_path / sub).mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / "book" / "_toc.yml").write_text("format: jb-book\nroot: intro\nparts:\n  - caption: Theorems\n"
                                                "    chapters:\n      - file: a\n")
    scaffold("Cool idea 2", root=tmp_path)
    assert (tmp_path / "theorems" / "conjectures" / "cool_idea_2.py").exists()
    assert (tmp_path / "property_tests" / "user" / "test_cool_idea_2.py").exists()
    assert "chapters/cool_idea_2" in (tmp_path / "book" / "_toc.yml").read_text()
    src = (tmp_path / "theorems" / "conjectures" / "cool_idea_2.py").read_text()
    compile(src, "cool_idea_2.py", "exec")
    assert 'id="USER.cool-idea-2"' in src
    with pytest.raises(FileExistsError):
        scaffold("Cool idea 2", root=tmp_path)
    with pytest.raises(ValueError):
        scaffold("2 bad", root=tmp_path)


def test_registry_generated_test_reads_renamed_and_added_predicates(tmp_path, counts):
    """`new` writes a test that needs no edit: rename the generated predicate and add a second one (as anyone
    would), and the generated test still passes, reading the predicates from the registered conjecture."""

    root = tmp_path / "proj"
    for sub in ("theorems", "property_tests", "book/chapters"):
        (root / sub).mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (root / "book" / "_toc.yml").write_text("format: jb-book\nroot: index\nparts:\n  - caption: Theorems\n"
                                            "    chapters:\n      - file: a\n")
    scaffold("Renamed idea", root=root)
    mod_path = root / "theorems" / "conjectures" / "renamed_idea.py"
    src = mod_path.read_text().replace("has_a_nonzero_entry", "entry_is_nonzero")
    src = src.replace('hypotheses={"entry_is_nonzero": entry_is_nonzero}',
                      'hypotheses={"entry_is_nonzero": entry_is_nonzero, "at_most_four_rows": lambda X: X.rows <= 4}')
    mod_path.write_text(src)
    names = ["theorems.conjectures.renamed_idea", "test_renamed_idea_generated"]
    try:
        spec = importlib.util.spec_from_file_location(names[0], mod_path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[names[0]] = mod
        spec.loader.exec_module(mod)
        spec = importlib.util.spec_from_file_location(names[1],
                                                      root / "property_tests" / "user" / "test_renamed_idea.py")
        test_mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(test_mod)
        assert set(CONJECTURES["USER.renamed-idea"].hypotheses) == {"entry_is_nonzero", "at_most_four_rows"}
        test_mod.test_renamed_idea_holds_or_is_refuted(counts)
        assert counts["met every hypothesis"] > 0
    finally:
        for n in names:
            sys.modules.pop(n, None)
        C.unregister("USER.renamed-idea")
        CONJECTURES.pop("USER.renamed-idea", None)


def test_registry_new_refuses_the_names_of_the_suites_own_modules_and_packages():
    """Names derived from the tree, not a hand list: packages (formal, counterexamples, framework, exact, paper,
    ledger), modules (linalg, conjecture, rank_neutrality, cli ...) are refused; a conjecture of one's own is
    not (regenerating it with --force stays allowed)."""
    repo = Path(__file__).resolve().parents[2]
    names = suite_names(repo)
    assert {"formal", "counterexamples", "framework", "exact", "paper", "conjectures", "linalg", "conjecture",
            "rank_neutrality", "evidence", "ledger", "strategies", "theorems", "proofs_numeric"} <= names
    assert "ln_sphere" not in names  # a shipped conjecture: its own module may be regenerated
    for bad in ("formal", "counterexamples", "Rank neutrality", "LEDGER"):
        with pytest.raises(ScaffoldError, match="which the suite uses itself"):
            scaffold(bad, root=repo)


def test_registry_a_conjecture_at_the_old_place_still_loads_with_a_note(tmp_path):
    """A conjecture a user left at theorems/<slug>.py (before the rooms) is loaded, with a one-line note to move it;
    the shipped conjectures (theorems/conjectures/) and the paper's modules load as before."""
    repo = Path(__file__).resolve().parents[2]
    for pkg in ("theorems", "proofs_numeric"):
        shutil.copytree(repo / pkg, tmp_path / pkg, ignore=shutil.ignore_patterns("__pycache__", "_build"))
    (tmp_path / "theorems" / "old_idea.py").write_text(
        "from sympy import Rational\nfrom theorems.conjecture import conjecture\n"
        "conjecture(id='USER.old-idea', statement='x', hypotheses={}, conclusion=lambda x: x * x >= 0,\n"
        "           instances=lambda draw, regime: Rational(draw(-3, 3)), regimes=('all',))\n")
    code = ("import theorems; from theorems.framework import REGISTRY; "
            "print(sorted(k for k in REGISTRY if k.startswith('USER.'))); print(theorems.MODULES[-1])")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120,
                       env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert p.returncode == 0, p.stderr
    assert "theorems/old_idea.py is a conjecture at the old place; it is loaded, but move it to " \
           "theorems/conjectures/old_idea.py" in p.stderr
    assert p.stdout.splitlines() == ["['USER.ln-sphere', 'USER.old-idea', 'USER.rmsnorm-affine-rank', "
                                     "'USER.rmsnorm-matrix-rank']", "theorems.old_idea"]


def test_registry_no_statement_holds_a_control_character():
    """A LaTeX statement typed into a non-raw string, or mangled by an editor, turns \\beta, \\text, \\top and
    \\forall into a backspace, a tab and a form feed (three MathJax errors on the book's Theorem 5.3 page, with the
    ledger showing 'eta' and 'ext'): every statement, quote and note is printable text."""
    import re
    bad = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]|\t")
    found = [(c.id, r.key, field) for c in L.registry() for r in c.all_readings()
             for field in ("statement", "note") if bad.search(getattr(r, field, "") or "")]
    found += [(c.id, "", field) for c in L.registry() for field in ("statement", "quote", "source")
              if bad.search(getattr(c, field, "") or "")]
    assert not found, found
