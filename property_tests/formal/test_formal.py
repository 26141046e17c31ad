"""The formal proofs (theorems/formal/*.v) and their runner ``theorems.formal``.

Tests that call Coq are skipped, with the reason, when ``coqc`` is not on PATH (CI installs it);
the registry, the forbidden-word scan and the "coqc missing" path run everywhere.
"""
from __future__ import annotations

import re
import shutil

import pytest

from theorems import formal
from theorems.formal import FormalLemma

# the Coq build cache (theorems/formal/_build) is shared: one worker runs these under pytest-xdist
pytestmark = pytest.mark.xdist_group("formal")

needs_coq = pytest.mark.skipif(shutil.which("coqc") is None or not formal.mathcomp_available(),
                               reason="coqc or MathComp not installed (apt-get install coq libcoq-mathcomp-algebra)")

_PLAIN_HEADER = "(* a scratch file for the runner's tests *)\n"


def _lemma(module: str, short: str) -> FormalLemma:
    return FormalLemma(name=f"CollapseVerify.{module}.{short}", file=f"{module}.v", claim="TEST.claim",
                       reading=None, scope="general", statement="", words="")


# ---- registry and sources (no Coq needed) ----------------------------------------------------------

def test_formal_registry_is_consistent():
    keys = [(lemma.name, lemma.claim, lemma.reading) for lemma in formal.LEMMAS]
    assert len(keys) == len(set(keys))  # a lemma may support several claims, each once
    for lemma in formal.LEMMAS:
        source = formal.SOURCE_DIR / lemma.file
        assert source.exists(), lemma.file
        assert lemma.name == f"CollapseVerify.{lemma.module}.{lemma.short}"
        assert re.search(rf"^Lemma {lemma.short}\b", source.read_text(), re.M), lemma.name
        assert lemma.scope in ("general", "complete")
        assert re.fullmatch(r"[A-Z]+\.[a-z0-9-]+", lemma.claim), lemma.claim
        assert lemma.statement and lemma.words


def test_formal_every_source_is_in_coqproject():
    project = (formal.SOURCE_DIR / "_CoqProject").read_text().split()
    assert sorted(p.name for p in formal.SOURCE_DIR.glob("*.v")) == sorted(w for w in project if w.endswith(".v"))


def test_formal_no_forbidden_words():
    assert formal.scan_forbidden() == []


def test_formal_forbidden_scan_catches_admitted(tmp_path):
    (tmp_path / "cheat.v").write_text(_PLAIN_HEADER + "Lemma cheat : 1 = 2.\nProof.\nAdmitted.\n")
    (tmp_path / "honest.v").write_text(_PLAIN_HEADER + "Lemma honest : 1 = 1.\nProof. reflexivity. Qed.\n")
    assert formal.scan_forbidden(tmp_path) == [("cheat.v", 4, "Admitted")]


def test_formal_without_coqc_is_not_run(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: no coqc
    assert formal.coq_version() is None and not formal.mathcomp_available()
    results = formal.check()
    assert set(results) == {lemma.name for lemma in formal.LEMMAS}  # keyed by Coq name
    assert all(r.closed is None and r.reason == "not run: coqc not installed" for r in results.values())


# ---- Coq ---------------------------------------------------------------------------------------------

@needs_coq
def test_formal_every_lemma_closed():
    results = formal.check()
    not_closed = {name: r.reason for name, r in results.items() if r.closed is not True}
    assert not not_closed
    for lemma in formal.LEMMAS:
        r = results[lemma.name]
        assert r.assumptions == "Closed under the global context"
        assert lemma.short in r.about  # Coq's own statement of the lemma


@needs_coq
def test_formal_axiom_unknown_name_and_compile_error_are_not_closed(tmp_path):
    (tmp_path / "scratch.v").write_text(
        _PLAIN_HEADER
        + "Axiom everything : forall P : Prop, P.\n"
        + "Lemma uses_axiom : 1 = 2.\nProof. apply everything. Qed.\n"
        + "Lemma honest : 1 = 1.\nProof. reflexivity. Qed.\n"
        + "Module Inner.\nLemma hidden : 2 = 2.\nProof. reflexivity. Qed.\nEnd Inner.\n")
    (tmp_path / "broken.v").write_text(_PLAIN_HEADER + "Lemma broken : 1 = 1.\nProof. exact 42. Qed.\n")
    lemmas = [_lemma("scratch", "uses_axiom"), _lemma("scratch", "honest"), _lemma("scratch", "no_such_lemma"),
              _lemma("scratch", "hidden"),  # declared, but its Coq name is scratch.Inner.hidden
              _lemma("broken", "broken")]
    results = formal.check(lemmas, source_dir=tmp_path)
    assert results["CollapseVerify.scratch.honest"].closed is True
    axiom = results["CollapseVerify.scratch.uses_axiom"]
    assert axiom.closed is False and "everything" in axiom.assumptions and "Axioms" in axiom.assumptions
    missing = results["CollapseVerify.scratch.no_such_lemma"]
    assert missing.closed is False and "no_such_lemma" in missing.reason
    hidden = results["CollapseVerify.scratch.hidden"]
    assert hidden.closed is False and hidden.reason
    broken = results["CollapseVerify.broken.broken"]
    assert broken.closed is False and "Error" in broken.reason


@needs_coq
def test_formal_cache_does_not_recompile_unchanged_files(tmp_path):
    source = tmp_path / "cached.v"
    source.write_text(_PLAIN_HEADER + "Lemma cached : 1 = 1.\nProof. reflexivity. Qed.\n")
    assert formal.compile_sources(tmp_path) == {"cached": None}
    vo = tmp_path / "_build" / "cached.vo"
    first = vo.stat().st_mtime_ns
    assert formal.compile_sources(tmp_path) == {"cached": None}
    assert vo.stat().st_mtime_ns == first  # unchanged source: not recompiled
    source.write_text(source.read_text() + "Lemma cached2 : 2 = 2.\nProof. reflexivity. Qed.\n")
    assert formal.compile_sources(tmp_path) == {"cached": None}
    assert vo.stat().st_mtime_ns != first  # changed source: recompiled


@needs_coq
def test_formal_without_mathcomp_is_not_run(monkeypatch, tmp_path):
    monkeypatch.setattr(formal, "mathcomp_available", lambda: False)
    results = formal.check(source_dir=tmp_path)
    assert all(r.closed is None and r.reason.startswith("not run: MathComp") for r in results.values())


@needs_coq
def test_formal_check_is_cached_per_process():
    assert formal.check() is formal.check()
