"""Every registered conjecture is stressed here with no test code of its own, and plug-ins load."""
from __future__ import annotations

import sys
import textwrap
from importlib.metadata import EntryPoint

import pytest
from hypothesis import given, settings

from property_tests._search import find_from_scratch
from theorems import claims as C
from theorems.claims import tri as _tri
from theorems.conjecture import CONJECTURES

C.registry()  # load the paper's claims and any plug-in


@pytest.mark.parametrize("cid", sorted(CONJECTURES), ids=str)
def test_registry_conjecture_holds_or_is_refuted_from_scratch(cid, counts):
    """A conjecture the ledger does not refute holds on every draw meeting its hypotheses;
    one it refutes yields a counterexample to a search from scratch."""
    conj = CONJECTURES[cid]
    verdict = C.run_claim(conj.claim, C.CheckContext(quick=True)).verdict
    if verdict == "refuted":
        inst = find_from_scratch(conj.strategy(), lambda i: conj.premise(i) and _tri(conj.conclusion(i)) is False)
        assert _tri(conj.conclusion(inst)) is False
        return

    @given(conj.strategy())
    def prop(inst):
        counts["drawn"] += 1
        if conj.premise(inst):
            counts["met every hypothesis"] += 1
            assert _tri(conj.conclusion(inst)) is not False
    prop()
    assert counts["met every hypothesis"] > 0, f"{cid}: no draw met the hypotheses (vacuous)"


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
    import importlib.metadata as md
    monkeypatch.setattr(md, "entry_points", lambda group=None: [ep] if group == "collapse_verify.claims" else [])
    monkeypatch.setattr(C, "_ENTRY_POINTS_LOADED", False)
    try:
        assert C.load_entry_points() == ["example"]
        ids = [c.id for c in C.registry()]
        assert "PLUGIN.example" in ids
        assert C.run_claim(C.get("PLUGIN.example")).verdict == "supported"
    finally:
        C._REGISTRY.pop("PLUGIN.example", None)
        CONJECTURES.pop("PLUGIN.example", None)
        sys.modules.pop("cv_plugin_example", None)


def test_registry_scaffold_creates_module_tests_and_chapter(tmp_path):
    from proofs_numeric.scaffold import scaffold
    for sub in ("theorems", "property_tests", "book/chapters"):
        (tmp_path / sub).mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / "book" / "_toc.yml").write_text("format: jb-book\nroot: intro\nparts:\n  - caption: Theorems\n    chapters:\n      - file: a\n")
    paths = scaffold("Cool idea 2", root=tmp_path)
    assert (tmp_path / "theorems" / "cool_idea_2.py").exists()
    assert (tmp_path / "property_tests" / "test_cool_idea_2.py").exists()
    assert "chapters/cool_idea_2" in (tmp_path / "book" / "_toc.yml").read_text()
    src = (tmp_path / "theorems" / "cool_idea_2.py").read_text()
    compile(src, "cool_idea_2.py", "exec")
    assert 'id="USER.cool-idea-2"' in src
    with pytest.raises(FileExistsError):
        scaffold("Cool idea 2", root=tmp_path)
    with pytest.raises(ValueError):
        scaffold("2 bad", root=tmp_path)
