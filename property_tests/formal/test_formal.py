"""The formal proofs (theorems/formal/*.v), their runner ``theorems.formal`` and its axiom policy.

Tests that call Coq are skipped, with the reason, when ``coqc`` is not on PATH (CI installs it), and those
that need MathComp-Analysis when it is not installed; the registry, the forbidden-word scan, the parser of
``Print Assumptions`` and the "coqc missing" path run everywhere.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from theorems import formal
from theorems.formal import FormalLemma
from theorems.formal.evidence import formal_evidence
from theorems.framework import CheckContext

# no xdist group: the project's build folder (theorems/formal/_build) is compiled under an OS lock (a second worker
# waits for the first) and each check's verdicts are kept in a file of their own key, so these tests run on any worker

needs_coq = pytest.mark.skipif(shutil.which("coqc") is None or not formal.mathcomp_available(),
                               reason="coqc or MathComp not installed (apt-get install coq libcoq-mathcomp-algebra)")


def _analysis_available() -> bool:
    if shutil.which("coqc") is None:
        return False
    import subprocess
    where = subprocess.run(["coqc", "-where"], capture_output=True, text=True).stdout.strip()
    return (Path(where) / "user-contrib" / "mathcomp" / "analysis" / "exp.vo").exists()


needs_analysis = pytest.mark.skipif(not _analysis_available(),
                                    reason="MathComp-Analysis not installed (apt-get install libcoq-mathcomp-analysis)")

_PLAIN_HEADER = "(* a scratch file for the runner's tests *)\n"


def _lemma(module: str, short: str) -> FormalLemma:
    return FormalLemma(name=f"CollapseVerify.{module}.{short}", file=f"{module}.v", claim="TEST.claim",
                       reading=None, scope="general", statement="", words="")


# ---- registry and sources (no Coq needed) ----------------------------------------------------------

def test_formal_runner_and_table_run_with_the_standard_library_only(tmp_path):
    """make formal runs ``python3 theorems/formal/__init__.py`` without the venv: as a script (its folder first on
    sys.path, no site-packages: -S -I) the runner and the lemma table load, and the package's re-exports are the
    runner's and the table's own objects. A planted ``import numpy`` in the runner turns this red."""
    import subprocess
    import sys
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import runner, lemmas; "
            "assert runner.LEMMAS is lemmas.LEMMAS; print(len(lemmas.LEMMAS), runner.main.__name__)")
    proc = subprocess.run([sys.executable, "-S", "-I", "-c", code, str(formal.SOURCE_DIR)], capture_output=True,
                          text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [str(len(formal.LEMMAS)), "main"]
    assert formal.check is formal.runner.check and formal.LEMMAS is formal.lemmas.LEMMAS


def test_formal_registry_is_consistent():
    keys = [(lemma.name, lemma.claim, lemma.reading) for lemma in formal.LEMMAS + formal.PENDING]
    assert len(keys) == len(set(keys))  # a lemma may support several claims, each once
    for lemma in formal.LEMMAS + formal.PENDING:
        source = formal.SOURCE_DIR / lemma.file
        assert source.exists(), lemma.file
        assert lemma.name == f"CollapseVerify.{lemma.module}.{lemma.short}"
        assert re.search(rf"^Lemma {lemma.short}\b", source.read_text(), re.M), lemma.name
        assert lemma.scope in ("general", "complete")
        assert re.fullmatch(r"[A-Z]+\.[A-Za-z0-9-]+", lemma.claim), lemma.claim
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
def test_formal_prepare_asks_what_the_ledger_asks_and_never_fails_make_verify(monkeypatch, capsys):
    """``make verify``'s formal-prepare step (``--prepare``) compiles and then asks Coq exactly what the ledger's
    background check asks (the lemmas of ``start_check``'s default, tuple mode, no coqchk), so the ledger reads
    stored verdicts; a file that does not compile is named and the step still exits 0 (the ledger prints the
    refusal); without coqc it says there is nothing to prepare. (Planted: another lemma set or mode: red here.)"""
    import inspect

    asked = []
    monkeypatch.setattr(formal.runner, "coq_version", lambda: "8.16.1")
    monkeypatch.setattr(formal.runner, "mathcomp_available", lambda: True)
    monkeypatch.setattr(formal.runner, "compile_sources", lambda *a, **k: {"broken_file": "Error: planted", "ok": None})
    monkeypatch.setattr(formal.runner, "check", lambda *a, **k: asked.append((a, k)) or {
        lm.name: formal.FormalResult(True, "accepted", "", "", 0.0) for lm in formal.LEMMAS})
    assert formal.runner.main(["--prepare"]) == 0
    out = capsys.readouterr().out
    assert "1 file(s) do not compile: broken_file" in out and "asked as verify asks" in out
    default = inspect.signature(formal.runner.start_check).parameters
    assert asked == [((formal.LEMMAS,), {})]  # check()'s own defaults: tuple mode, statements compared, no coqchk
    assert default["lemmas"].default == formal.LEMMAS and default["per_lemma_axioms"].default is False
    assert inspect.signature(formal.check).parameters["coqchk"].default is False  # the real one (runner.check: patched)
    monkeypatch.setattr(formal.runner, "coq_version", lambda: None)
    assert formal.runner.main(["--prepare"]) == 0 and "nothing to prepare" in capsys.readouterr().out


def test_formal_every_lemma_accepted():
    """Every registered lemma is accepted: closed, or resting only on the allowed classical axioms (asked lemma by
    lemma, as make formal asks: each lemma's own axioms)."""
    results = formal.check(per_lemma_axioms=True)
    refused = {name: r.reason for name, r in results.items() if r.accepted is not True}
    assert not refused
    for lemma in formal.LEMMAS:
        r = results[lemma.name]
        assert set(r.axioms) <= set(formal.ALLOWED_AXIOMS)
        if r.axioms:
            assert r.closed is False and "Axioms:" in r.assumptions and r.axiom_words.startswith("classical: ")
        else:
            assert r.closed is True and r.assumptions == "Closed under the global context"
        assert lemma.short in r.about  # Coq's own statement of the lemma
    # the general lemmas rest on no axiom; only the instances with MathComp-Analysis's expR (its limits and
    # derivatives), the topology of zero_set.v (closure, interior on the reals' matrices) and the measure theory of
    # null_set*.v (Lebesgue measure, product measures, integrals) rest on the classical ones
    assert {lm.module for lm in formal.LEMMAS if results[lm.name].axioms} == {
        "softmax_real", "layer_jacobian", "softmax_limits", "zero_set", "attention_graph", "softmax_onehot",
        "qk_norm", "noci_values", "token_mixing", "null_set", "null_set_mx", "null_set_heads"}


@pytest.mark.slow
@needs_coq
def test_formal_tuple_mode_accepts_every_lemma_with_an_upper_bound_of_its_axioms(monkeypatch):
    """verify's tuple mode (check()'s default), asked of Coq (the stored per-lemma verdicts, which would answer it,
    hidden), accepts every registered lemma; a lemma it answers through its tuple says "at most" and carries the
    tuple's axioms, which contain the lemma's own (asked lemma by lemma); the others are exact (their tuple is
    closed). (Planted: the tuple's axioms not marked as an upper bound: red.)"""
    own = formal.check(per_lemma_axioms=True)
    formal.clear_check_cache()
    monkeypatch.setattr(formal.runner, "_load_results", lambda *a, **k: {})  # a cold cache: Coq is asked
    monkeypatch.setattr(formal.runner, "_store_results", lambda *a, **k: None)  # and nothing is stored
    try:
        tuple_mode = formal.check()
    finally:
        formal.clear_check_cache()
    assert all(r.accepted is True for r in tuple_mode.values())
    bounded = [name for name, r in tuple_mode.items() if r.axioms_bound]
    assert bounded  # the lemmas of the files that load MathComp-Analysis
    for name, r in tuple_mode.items():
        assert set(own[name].axioms) <= set(r.axioms) <= set(formal.ALLOWED_AXIOMS)
        assert own[name].axioms_bound is False
        if r.axioms_bound:
            assert r.closed is None and r.axiom_words.startswith("at most classical: ")
            assert "at most the allowed axioms" in r.reason and "make formal" in r.reason
        else:
            assert (r.accepted, r.closed, r.axioms) == (own[name].accepted, own[name].closed, own[name].axioms)


@needs_coq
def test_formal_pending_lemmas_are_accepted_and_not_evidence():
    results = formal.check(formal.PENDING)
    assert all(r.accepted is True and set(r.axioms) <= set(formal.ALLOWED_AXIOMS) for r in results.values())
    attached = {(lm.claim, lm.reading) for lm in formal.LEMMAS}
    assert not any((lm.claim, lm.reading) in attached for lm in formal.PENDING)


@pytest.mark.slow
@needs_coq
def test_formal_without_analysis_the_real_instances_are_not_run(monkeypatch):
    monkeypatch.setattr(formal.runner, "analysis_available", lambda: False)
    results = formal.check()
    # the modules that load MathComp-Analysis, read from the .v files here (directly, or through a module of ours)
    texts = {p.stem: p.read_text() for p in Path(formal.__file__).parent.glob("*.v")}
    analysis = {m for m, t in texts.items() if re.search(r"From\s+mathcomp\.analysis", t)}
    while True:
        more = {m for m, t in texts.items()
                if m not in analysis and re.search(r"From CollapseVerify Require Import ([^.]*)\.", t)
                and set(re.search(r"From CollapseVerify Require Import ([^.]*)\.", t).group(1).split()) & analysis}
        if not more:
            break
        analysis |= more
    assert {"softmax_real", "layer_jacobian", "zero_set", "qk_norm", "softmax_onehot"} <= analysis
    assert "rank_neutrality" not in analysis
    for lm in formal.LEMMAS:
        r = results[lm.name]
        if lm.module in analysis:
            assert r.accepted is None and r.reason == formal.NO_ANALYSIS
        else:
            assert r.accepted is True


@needs_coq
def test_formal_headlines_of_the_issue_are_proved():
    """The multi-head symmetries, row-stochastic softmax and the steps of the Rank-Neutrality proof."""
    results = formal.check()
    for claim, reading in [("SYM.token-permutation", None), ("SYM.query-key-gauge", None),
                           ("DONG.row-stochastic", None), ("RN.step1", None), ("RN.step3", None)]:
        lemmas = formal.lemmas_for(claim, reading)
        assert lemmas, claim
        assert any(results[lm.name].closed for lm in lemmas), claim  # an axiom-free proof among them


@pytest.mark.slow
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
def test_formal_a_weakened_statement_is_refused_until_pinned_on_purpose(tmp_path):
    """The pin: a lemma accepted by the axiom policy is refused when Coq's printed statement differs from the
    pinned one (or has no pin), with a message naming it and showing old and new; --pin (formal.pin) updates it.
    A planted weakening (the same lemma name, now proving something weaker, still closed) is refused."""
    source = tmp_path / "pinned.v"
    strong = _PLAIN_HEADER + "Lemma strong (n : nat) : S n <> 0.\nProof. discriminate. Qed.\n"
    source.write_text(strong)
    lemmas = [_lemma("pinned", "strong")]
    name = "CollapseVerify.pinned.strong"
    assert formal.check(lemmas, source_dir=tmp_path)[name].accepted is True  # no statements.txt: not compared
    formal.write_statements({}, tmp_path)  # an empty spec: every lemma needs a pin
    unpinned = formal.check(lemmas, source_dir=tmp_path)[name]
    assert unpinned.accepted is False and "no pinned statement for " + name in unpinned.reason
    logged: list[str] = []
    assert formal.pin(lemmas=lemmas, source_dir=tmp_path, log=logged.append) == 1
    assert "forall n : nat, n.+1 <> 0" in formal.load_statements(tmp_path)[name] and "old: (none)" in logged[0]
    assert formal.check(lemmas, source_dir=tmp_path)[name].accepted is True
    # the planted weakening: for n = 0 only, still closed under the global context
    source.write_text(_PLAIN_HEADER + "Lemma strong : S 0 <> 0.\nProof. discriminate. Qed.\n")
    weak = formal.check(lemmas, source_dir=tmp_path)[name]
    assert weak.accepted is False and weak.assumptions.strip() == "Closed under the global context"
    assert "the statement of " + name + " changed" in weak.reason
    old, new = weak.reason.split("pinned:\n", 1)[1].split("\nCoq now prints:\n")
    assert "forall n : nat, n.+1 <> 0" in " ".join(old.split()) and "forall" not in new and "strong :" in new
    # restoring the statement restores acceptance (whitespace alone is not a change)
    source.write_text(strong.replace("S n <> 0.", "S n   <>\n 0."))
    assert formal.check(lemmas, source_dir=tmp_path)[name].accepted is True


needs_coqchk = pytest.mark.skipif(shutil.which("coqchk") is None, reason="coqchk not installed (Debian's coq ships it)")


@needs_coq
@needs_coqchk
def test_formal_coqchk_rejection_refuses_the_lemma(tmp_path):
    """coqchk, the independent kernel check, re-checks the accepted lemmas' modules (make formal: check(coqchk=True));
    verify (coqchk=False) reads the stored verdict and never runs it. A module coqchk rejects (here its .vo cut in
    half after Coq's queries were answered and stored) makes its lemma refused: not formal evidence."""
    (tmp_path / "kernel.v").write_text(_PLAIN_HEADER + "Lemma twice (n : nat) : S n <> 0.\nProof. discriminate. Qed.\n")
    lemmas = [_lemma("kernel", "twice")]
    name = "CollapseVerify.kernel.twice"
    assert formal.check(lemmas, source_dir=tmp_path)[name].coqchk is None  # verify's path: coqchk not yet run
    formal.clear_check_cache()
    ok = formal.check(lemmas, source_dir=tmp_path, coqchk=True)[name]
    assert ok.accepted is True and ok.coqchk is True
    formal.clear_check_cache()
    assert formal.check(lemmas, source_dir=tmp_path)[name].coqchk is True  # the stored verdict, read by verify
    vo = tmp_path / "_build" / "kernel.vo"
    vo.write_bytes(vo.read_bytes()[: vo.stat().st_size // 2])  # Coq's answers stay stored; the kernel file breaks
    formal.clear_check_cache()
    bad = formal.check(lemmas, source_dir=tmp_path, coqchk=True)[name]
    assert bad.accepted is False and bad.coqchk is False and "coqchk" in bad.reason and "kernel.vo" in bad.reason
    formal.clear_check_cache()
    assert formal.check(lemmas, source_dir=tmp_path)[name].accepted is False  # verify reads the rejection


@needs_coq
def test_formal_every_registered_lemma_is_pinned():
    """The project's spec pins exactly the registered lemmas (LEMMAS and PENDING), no stale pin."""
    pins = formal.load_statements()
    assert pins is not None, "theorems/formal/statements.txt is missing"
    assert set(pins) == {lm.name for lm in formal.LEMMAS + formal.PENDING}
    assert all(pins[n].startswith(n.split(".", 1)[1] + " :") or pins[n].split(" :", 1)[0] in n for n in pins)


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
    monkeypatch.setattr(formal.runner, "mathcomp_available", lambda: False)
    results = formal.check(source_dir=tmp_path)
    assert all(r.closed is None and r.reason.startswith("not run: MathComp") for r in results.values())


@needs_coq
def test_formal_check_is_cached_per_process():
    assert formal.check() is formal.check()


# ---- the axiom policy -------------------------------------------------------------------------------

def test_formal_allowed_axioms_are_mathcomp_analysis_classical_three():
    assert formal.ALLOWED_AXIOMS == ("mathcomp.classical.boolp.propositional_extensionality",
                                     "mathcomp.classical.boolp.functional_extensionality_dep",
                                     "mathcomp.classical.boolp.constructive_indefinite_description")
    assert not any(a.startswith("CollapseVerify.") for a in formal.ALLOWED_AXIOMS)
    assert formal.axiom_words(formal.ALLOWED_AXIOMS) == \
        "classical: propositional and functional extensionality, choice"
    assert formal.axiom_words(()) == "no axioms"


def test_formal_parse_assumptions():
    text = ("Axioms:\nboolp.propositional_extensionality : forall P Q : Prop, P <-> Q -> P = Q\n"
            "boolp.functional_extensionality_dep\n  : forall (A : Type) (B : A -> Type) (f g : forall x : A, B x),\n"
            "    (forall x : A, f x = g x) -> f = g\nscratch.cheat : 1%N = 2%N")
    assert formal.parse_assumptions(text) == (
        ["boolp.propositional_extensionality", "boolp.functional_extensionality_dep", "scratch.cheat"], [])
    assert formal.parse_assumptions("Closed under the global context") == ([], [])
    axioms, problems = formal.parse_assumptions("Constants/Inductives relying on type-in-type:\nfoo")
    assert axioms == [] and problems and "type-in-type" in problems[0]
    assert formal.parse_assumptions("")[1]  # nothing printed: a problem, never "closed"
    assert formal.parse_assumptions("something unexpected")[1]


def test_formal_scan_reads_code_not_comments(tmp_path):
    (tmp_path / "policy.v").write_text("(* the policy: no Axiom, no Admitted (* nested: Parameter *) here *)\n"
                                       "Lemma ok : 1 = 1.\nProof. reflexivity. Qed.\n")
    (tmp_path / "cheat.v").write_text("(* a comment *) Axiom bad : False.\nLemma t : True.\nProof. admit. Qed.\n")
    assert formal.scan_forbidden(tmp_path) == [("cheat.v", 1, "Axiom"), ("cheat.v", 3, "admit")]


def test_formal_queries_load_mathcomp_where_a_source_does_or_a_statement_is_pinned():
    """A query's prelude, decided per check from the sources it compiles: MathComp's (its notation, as every pinned
    statement was printed) in this project's folder, where a source loads MathComp, and wherever a statement is or is
    being pinned; Coq's NArith only in an unpinned folder of plain files (a MathComp line in a comment does not
    count). Planted: the plain prelude for pinned folders, or comments read as code: red."""
    mathcomp = "From mathcomp Require Import all_ssreflect"
    project = {p.stem: p.read_text() for p in formal.SOURCE_DIR.glob("*.v")}
    assert mathcomp in formal.runner.query_prelude(project, pinned=False)
    plain = {"plain": _PLAIN_HEADER + f"(* {mathcomp}. *)\nLemma one : 1 = 1.\nProof. reflexivity. Qed.\n"}
    assert "mathcomp" not in formal.runner.query_prelude(plain, pinned=False)
    assert mathcomp in formal.runner.query_prelude(plain, pinned=True)
    uses = {**plain, "uses": f"{mathcomp}.\nLemma two : (1 + 1 = 2)%N.\nProof. by []. Qed.\n"}
    assert mathcomp in formal.runner.query_prelude(uses, pinned=False)


@pytest.mark.slow
@needs_coq
def test_formal_a_plain_folders_pin_holds_whatever_else_the_folder_holds(tmp_path):
    """A plain folder's pinned lemma is printed and compared in MathComp's notation, so neither a MathComp file added
    beside it, nor its removal (its copy left in _build/), nor forgetting the stored verdicts changes the verdict;
    the same folder unpinned is asked without MathComp, and a first pin (no statements.txt yet) is printed as every
    later check prints it. (Planted: the prelude decided from _build/'s copies, or a pin asked without MathComp:
    red.)"""
    (tmp_path / "pinned.v").write_text(_PLAIN_HEADER
                                       + "Lemma strong (n : nat) : S n <> 0.\nProof. discriminate. Qed.\n")
    lemmas = [_lemma("pinned", "strong")]
    name = "CollapseVerify.pinned.strong"

    def verdict() -> tuple:
        formal.clear_check_cache()
        r = formal.check(lemmas, source_dir=tmp_path)[name]
        return r.accepted, r.reason.splitlines()[0]
    assert "S n <> 0" in formal.check(lemmas, source_dir=tmp_path)[name].about  # unpinned: Coq's notation
    assert formal.pin(lemmas=lemmas, source_dir=tmp_path, log=lambda _: None) == 1  # the first pin
    assert "n.+1 <> 0" in formal.load_statements(tmp_path)[name]
    accepted = verdict()
    assert accepted[0] is True
    other = tmp_path / "other.v"
    other.write_text("From mathcomp Require Import all_ssreflect.\nLemma two : (1 + 1 = 2)%N.\nProof. by []. Qed.\n")
    assert verdict() == accepted
    other.unlink()  # its compiled copy stays in _build/
    assert (tmp_path / "_build" / "other.v").is_file()
    for f in (tmp_path / "_build").glob("check-results-*.json"):
        f.unlink()
    assert verdict() == accepted


_PLANTED = (_PLAIN_HEADER
            + "Axiom everything : forall P : Prop, P.\n"
            + "Lemma uses_axiom : 1 = 2.\nProof. apply everything. Qed.\n"
            + "Lemma cheat : 2 = 3.\nProof.\nAdmitted.\n"
            + "Lemma uses_cheat : 3 = 2.\nProof. symmetry. exact cheat. Qed.\n"
            + "Lemma honest : 1 = 1.\nProof. reflexivity. Qed.\n")


@pytest.mark.slow
@needs_coq
def test_formal_policy_refuses_a_project_axiom_and_admitted_by_name(tmp_path):
    (tmp_path / "planted.v").write_text(_PLANTED)
    lemmas = [_lemma("planted", s) for s in ("uses_axiom", "cheat", "uses_cheat", "honest")]
    results = formal.check(lemmas, source_dir=tmp_path)
    axiom = results["CollapseVerify.planted.uses_axiom"]
    assert axiom.accepted is False and axiom.axioms == ("CollapseVerify.planted.everything",)
    assert "CollapseVerify.planted.everything, an Axiom of this project" in axiom.reason
    for name in ("CollapseVerify.planted.cheat", "CollapseVerify.planted.uses_cheat"):
        admitted = results[name]
        assert admitted.accepted is False and admitted.axioms == ("CollapseVerify.planted.cheat",)
        assert "CollapseVerify.planted.cheat, a proof closed with Admitted" in admitted.reason
    assert results["CollapseVerify.planted.honest"].accepted is True
    assert results["CollapseVerify.planted.honest"].axioms == ()


@pytest.mark.slow
@needs_coq
def test_formal_per_lemma_queries_split_across_coqc_give_the_verdicts_of_one(tmp_path, monkeypatch):
    """make formal asks Print Assumptions lemma by lemma in up to COLLAPSE_VERIFY_COQ_JOBS coqc at once (the lemmas
    dealt round-robin). Twelve lemmas in three parts, three refused in different parts, give the verdicts, reasons
    and axioms of one coqc (planted: the second part's blocks not merged: red). Then one more that Coq cannot query
    (declared inside a Module): its part stops there, the lemmas after it are asked one by one, and only it is
    refused, by name."""
    honest = [f"honest{i}" for i in range(8)]
    text = _PLANTED + "".join(f"Lemma {h} : {i} = {i}.\nProof. reflexivity. Qed.\n" for i, h in enumerate(honest))
    names = ["uses_axiom", "honest0", "cheat", "honest1", "uses_cheat", "honest2", "honest", *honest[3:]]

    def ask(jobs: str, text: str, names: list[str]) -> dict:
        src = tmp_path / f"jobs{jobs}-{len(names)}"
        src.mkdir()
        (src / "planted.v").write_text(text)
        monkeypatch.setenv("COLLAPSE_VERIFY_COQ_JOBS", jobs)
        formal.clear_check_cache()
        return {n.rsplit(".", 1)[1]: (r.accepted, r.reason, r.axioms, r.axioms_bound)
                for n, r in formal.check([_lemma("planted", s) for s in names], source_dir=src,
                                         per_lemma_axioms=True, coqchk=False).items()}
    one, three = ask("1", text, names), ask("3", text, names)
    assert three == one
    assert [n for n, v in three.items() if v[0] is False] == ["uses_axiom", "cheat", "uses_cheat"]
    assert three["uses_axiom"][2] == ("CollapseVerify.planted.everything",)
    assert all(v[0] is True and v[2] == () for n, v in three.items() if "honest" in n)
    with_inner = names[:9] + ["inner"] + names[9:]  # part 0 of three: uses_axiom, honest1, honest, inner, honest7
    got = ask("3", text + "Module M.\nLemma inner : 0 = 0.\nProof. reflexivity. Qed.\nEnd M.\n", with_inner)
    assert got["inner"][0] is False and got["inner"][1].startswith("Coq could not query CollapseVerify.planted.inner")
    assert {n: v for n, v in got.items() if n != "inner"} == three


@pytest.mark.slow
@needs_coq
def test_formal_policy_refuses_an_axiom_named_like_an_allowed_one(tmp_path):
    """Names are compared in full: our own boolp.propositional_extensionality is not MathComp-Analysis's (asked in
    tuple mode, check()'s default: the tuple's printed names are located too; planted: tuple mode matching a printed
    name against the allowed full names by suffix instead of Locate: red)."""
    (tmp_path / "boolp.v").write_text(_PLAIN_HEADER + "Axiom propositional_extensionality : False.\n"
                                      + "Lemma fake : False.\nProof. exact propositional_extensionality. Qed.\n")
    r = formal.check([_lemma("boolp", "fake")], source_dir=tmp_path)["CollapseVerify.boolp.fake"]
    assert r.accepted is False and r.axioms == ("CollapseVerify.boolp.propositional_extensionality",)
    assert "an Axiom of this project" in r.reason


@pytest.mark.slow
@needs_coq
@needs_analysis
def test_formal_policy_accepts_the_allowed_axioms_and_lists_them(tmp_path):
    (tmp_path / "classical.v").write_text(
        _PLAIN_HEADER
        + "From mathcomp Require Import all_ssreflect all_algebra.\n"
        + "From mathcomp.analysis Require Import reals sequences exp.\n"
        + "Import GRing.Theory Num.Theory.\nLocal Open Scope ring_scope.\n"
        + "Lemma expR_pos (R : realType) (x : R) : 0 < expR x.\nProof. exact: expR_gt0. Qed.\n"
        + "Lemma plain : (2 + 2 = 4)%N.\nProof. by []. Qed.\n")
    lemmas = [_lemma("classical", "expR_pos"), _lemma("classical", "plain")]
    results = formal.check(lemmas, source_dir=tmp_path, per_lemma_axioms=True)
    r = results["CollapseVerify.classical.expR_pos"]
    assert r.accepted is True and r.closed is False and r.axioms_bound is False
    assert r.axioms == formal.ALLOWED_AXIOMS
    assert r.axiom_words == "classical: propositional and functional extensionality, choice"
    plain = results["CollapseVerify.classical.plain"]  # same file, no axiom used: closed
    assert plain.accepted is True and plain.closed is True and plain.axioms == ()


_CLASSICAL = (_PLAIN_HEADER
              + "From mathcomp Require Import all_ssreflect all_algebra.\n"
              + "From mathcomp.analysis Require Import reals sequences exp.\n"
              + "Import GRing.Theory Num.Theory.\nLocal Open Scope ring_scope.\n"
              + "Lemma expR_pos (R : realType) (x : R) : 0 < expR x.\nProof. exact: expR_gt0. Qed.\n"
              + "Lemma plain : (2 + 2 = 4)%N.\nProof. by []. Qed.\n")


@pytest.mark.slow
@needs_coq
@needs_analysis
def test_formal_tuple_mode_says_at_most_names_a_culprit_and_never_answers_a_per_lemma_check(tmp_path, monkeypatch):
    """verify's tuple mode on a file that loads MathComp-Analysis (one compile for the three parts).

    1. A planted Axiom: the tuple rests on a forbidden axiom, so tuple mode falls back to the per-lemma queries: the
       lemma that uses it is refused by name, the others get their own, exact, axioms.
    2. Without the planted lemma, one Print Assumptions of the tuple accepts each lemma, saying "at most" the
       tuple's axioms and what was asked (the axiom-free lemma too: its own axioms are not known then).
    3. Those stored verdicts never answer a per-lemma check (make formal asks Coq again and lists each lemma's own:
       the axiom-free lemma closed), while per-lemma verdicts answer a later tuple-mode check. (Planted: tuple-mode
       verdicts read by a per-lemma check: plain is not closed, red.)"""
    (tmp_path / "classical.v").write_text(_CLASSICAL + "Axiom everything : forall P : Prop, P.\n"
                                          + "Lemma uses_axiom : (1 = 2)%N.\nProof. apply everything. Qed.\n")
    asked: list[tuple[str, bool]] = []
    real_query = formal.runner._query_group

    def query(build, ls, try_tuple, tuple_policy=False, **kw):
        asked.extend((l.short, tuple_policy) for l in ls)
        return real_query(build, ls, try_tuple, tuple_policy, **kw)
    monkeypatch.setattr(formal.runner, "_query_group", query)
    lemmas = [_lemma("classical", "expR_pos"), _lemma("classical", "plain")]
    names = [lm.name for lm in lemmas]
    # 1. the culprit
    results = formal.check(lemmas + [_lemma("classical", "uses_axiom")], source_dir=tmp_path)
    bad = results["CollapseVerify.classical.uses_axiom"]
    assert bad.accepted is False and bad.axioms == ("CollapseVerify.classical.everything",)
    assert "CollapseVerify.classical.everything, an Axiom of this project" in bad.reason
    good = results[names[0]]
    assert good.accepted is True and good.axioms == formal.ALLOWED_AXIOMS and good.axioms_bound is False
    assert "at most" not in good.reason
    assert results[names[1]].closed is True and results[names[1]].axioms_bound is False
    # 2. the tuple within the policy (the verdicts of part 1 forgotten)
    for f in (tmp_path / "_build").glob("check-results-*.json"):
        f.unlink()
    formal.clear_check_cache()
    asked.clear()
    tuple_mode = formal.check(lemmas, source_dir=tmp_path)
    assert sorted(asked) == [("expR_pos", True), ("plain", True)]
    for name in names:
        r = tuple_mode[name]
        assert r.accepted is True and r.axioms == formal.ALLOWED_AXIOMS and r.axioms_bound is True
        assert r.closed is None  # not known: the tuple rests on the axioms, this lemma may not
        assert r.axiom_words == "at most classical: propositional and functional extensionality, choice"
        assert r.reason.startswith("accepted: it rests on at most the allowed axioms (classical: ")
        assert "asked for the tuple of the 2 lemmas of files that load MathComp-Analysis" in r.reason
        assert "`make formal` lists each lemma's own" in r.reason
    # 3. the modes of the stored verdicts
    formal.clear_check_cache()
    own = formal.check(lemmas, source_dir=tmp_path, per_lemma_axioms=True)  # Coq asked again, lemma by lemma
    assert sorted(asked) == [("expR_pos", False), ("expR_pos", True), ("plain", False), ("plain", True)]
    assert own[names[0]].axioms == formal.ALLOWED_AXIOMS and own[names[0]].closed is False
    assert own[names[1]].closed is True and own[names[1]].axioms == ()
    assert not any(r.axioms_bound for r in own.values())
    formal.clear_check_cache()
    again = formal.check(lemmas, source_dir=tmp_path)  # tuple mode reads the per-lemma verdicts: more precise
    assert len(asked) == 4
    assert {n: (r.accepted, r.reason, r.axioms, r.axioms_bound) for n, r in again.items()} == \
        {n: (r.accepted, r.reason, r.axioms, r.axioms_bound) for n, r in own.items()}


def test_formal_stored_verdicts_keep_their_mode(tmp_path):
    """The on-disk verdicts say whether their axioms are a tuple's upper bound: a per-lemma check reads only
    per-lemma entries, a tuple-mode check reads both, and a tuple-mode entry never replaces a per-lemma one.
    (Planted: _load_results ignoring the mode: red.)"""
    runner = formal.runner
    key = "k" * 64
    upper = (True, "accepted: it rests on at most ...", "", "", formal.ALLOWED_AXIOMS, True)
    exact = (True, runner.CLOSED, "", "", (), False)
    runner._store_results(tmp_path, key, {"a": upper, "b": exact})
    assert runner._load_results(tmp_path, key) == {"a": upper, "b": exact}
    assert runner._load_results(tmp_path, key, per_lemma_axioms=True) == {"b": exact}
    runner._store_results(tmp_path, key, {"b": upper})  # an upper bound does not replace the lemma's own verdict
    assert runner._load_results(tmp_path, key)["b"] == exact
    runner._store_results(tmp_path, key, {"a": exact})  # the lemma's own verdict replaces an upper bound
    assert runner._load_results(tmp_path, key, per_lemma_axioms=True) == {"a": exact, "b": exact}


def test_formal_result_with_an_upper_bound_claims_no_more():
    """A result accepted through its tuple: "at most" in its words, closed not known; with no axiom it is closed."""
    r = formal.FormalResult(True, "accepted", "", "", 0.0, formal.ALLOWED_AXIOMS, axioms_bound=True)
    assert r.closed is None and r.axiom_words.startswith("at most classical: ")
    assert formal.FormalResult(True, "", "", "", 0.0, formal.ALLOWED_AXIOMS).closed is False
    assert formal.FormalResult(True, "", "", "", 0.0, (), axioms_bound=True).closed is True
    assert formal.FormalResult(False, "", "", "", 0.0, formal.ALLOWED_AXIOMS, axioms_bound=True).closed is False


@pytest.mark.slow
@needs_coq
def test_formal_results_are_cached_on_disk_by_content(tmp_path, monkeypatch):
    (tmp_path / "planted.v").write_text(_PLANTED)
    asked: list[str] = []
    real_query = formal.runner._query_group

    def query(build, ls, try_tuple, tuple_policy=False, **kw):
        asked.extend(l.short for l in ls)
        return real_query(build, ls, try_tuple, tuple_policy, **kw)
    monkeypatch.setattr(formal.runner, "_query_group", query)
    lemmas = [_lemma("planted", "uses_axiom"), _lemma("planted", "honest")]
    formal.check(lemmas[1:], source_dir=tmp_path)
    stored = list((tmp_path / "_build").glob("check-results-*.json"))
    assert len(stored) == 1 and asked == ["honest"]
    # a larger set asks Coq only about the lemma not asked before, and the file keeps the earlier entry
    formal.clear_check_cache()
    first = formal.check(lemmas, source_dir=tmp_path)
    assert asked == ["honest", "uses_axiom"] and list((tmp_path / "_build").glob("check-results-*.json")) == stored
    written = stored[0].stat().st_mtime_ns
    # any subset of the lemmas asked so far (the ledger's LEMMAS after make formal's LEMMAS + PENDING) is read from
    # the file: a lemma's verdict does not depend on which others were asked with it
    for subset in (lemmas, lemmas[:1], lemmas[1:]):
        formal.clear_check_cache()
        again = formal.check(subset, source_dir=tmp_path)
        assert {k: (r.accepted, r.reason, r.axioms) for k, r in again.items()} == \
            {k: (r.accepted, r.reason, r.axioms) for k, r in first.items() if k in again}
    assert asked == ["honest", "uses_axiom"] and stored[0].stat().st_mtime_ns == written
    (tmp_path / "planted.v").write_text(_PLANTED.replace("apply everything", "apply everything; auto"))
    changed = formal.check(lemmas, source_dir=tmp_path)  # a changed source is asked again, not read from disk
    assert changed["CollapseVerify.planted.uses_axiom"].accepted is False


def test_formal_evidence_names_the_axioms(monkeypatch):
    """The evidence of an accepted lemma says which axioms it rests on (summary and numbers)."""
    import theorems.formal as F
    for bound in (False, True):  # True: verify's tuple mode, the axioms an upper bound
        fake = {lm.name: F.FormalResult(True, "accepted", "", "", 0.0,
                                        F.ALLOWED_AXIOMS if lm.module == "softmax_real" else (), axioms_bound=bound)
                for lm in F.LEMMAS}
        monkeypatch.setattr(F, "check", lambda *a, _fake=fake, **k: _fake)
        ev = formal_evidence("SYM.token-permutation", "literal", CheckContext(quick=True))
        assert len(ev) == 2 and all(e.holds is True for e in ev)
        words = {e.summary.split(" [", 1)[1].split("]", 1)[0] for e in ev}
        assert words == {"formal, no axioms", ("formal, at most" if bound else "formal,")
                         + " classical: propositional and functional extensionality, choice"}
        assert sorted(len(e.numbers["axioms"]) for e in ev) == [0, 3]
        assert {e.numbers["axioms_upper_bound"] for e in ev if e.numbers["axioms"]} == {bound}


@needs_coq
def test_formal_compile_follows_requires_and_reports_a_cycle(tmp_path, monkeypatch):
    monkeypatch.setenv("COLLAPSE_VERIFY_COQ_JOBS", "2")
    (tmp_path / "base.v").write_text(_PLAIN_HEADER + "Definition two := 2.\n")
    (tmp_path / "top.v").write_text(_PLAIN_HEADER + "From CollapseVerify Require Import base.\n"
                                    + "Lemma two_is_two : two = 2.\nProof. reflexivity. Qed.\n")
    (tmp_path / "side.v").write_text(_PLAIN_HEADER + "Lemma side : 3 = 3.\nProof. reflexivity. Qed.\n")
    assert formal.compile_sources(tmp_path) == {"base": None, "top": None, "side": None}
    (tmp_path / "cyc_a.v").write_text("From CollapseVerify Require Import cyc_b.\n")
    (tmp_path / "cyc_b.v").write_text("From CollapseVerify Require Import cyc_a.\n")
    errors = formal.compile_sources(tmp_path)
    assert errors["top"] is None and errors["cyc_a"] and errors["cyc_b"]


def test_formal_compile_order_starts_the_longest_chain_first():
    """The compile starts, of the files ready, the one heading the longest chain of estimated work (a file that
    loads MathComp-Analysis costs twice one that loads only the algebra): a chain of Analysis files that ends the
    cold compile starts before independent cheap files, and the order is a dependency order. (Planted: sorting by
    the chain's length ascending, or by name: red.)"""
    analysis = "From mathcomp.analysis Require Import reals.\n"
    sources = {f"cheap{i}": "From mathcomp Require Import all_ssreflect.\n" for i in range(4)}
    sources |= {"z_head": analysis, "z_mid": analysis + "From CollapseVerify Require Import z_head.\n",
                "z_tail": analysis + "From CollapseVerify Require Import z_mid.\n"}
    assert formal.compile_cost(analysis) > 1.9 * formal.compile_cost(sources["cheap0"])
    order = formal.critical_path_order(sources)
    assert order[0] == "z_head" and order.index("z_mid") < order.index("cheap0")
    texts = {p.stem: p.read_text() for p in formal.SOURCE_DIR.glob("*.v")}
    order = formal.critical_path_order(texts)
    assert sorted(order) == sorted(texts)
    for mod in order:  # every file after the files of ours it requires
        for dep in re.findall(r"From CollapseVerify Require Import ([^.]*)\.", formal.strip_comments(texts[mod])):
            assert all(order.index(d) < order.index(mod) for d in dep.split())


@pytest.mark.slow
@needs_analysis
def test_formal_pin_refuses_a_weakened_null_set_lemma(tmp_path):
    """The null-set lemma's pin: null_set.v compiled with poly_zero_set_null_k weakened (an extra hypothesis
    0 < k, so the univariate case is dropped; the proof still goes through and rests on the allowed axioms only) is
    refused against the project's own pinned statement (about 1 min of coqc: MathComp-Analysis)."""
    src = formal.SOURCE_DIR
    for f in ("preamble.v", "null_set_1d.v"):
        shutil.copy(src / f, tmp_path / f)
    text = (src / "null_set.v").read_text()
    head = "Lemma poly_zero_set_null_k k (P : Pk k) :\n  P != 0 -> "
    proof = "Proof.\nelim: k P => [|k IH] P P0 /=."
    assert head in text and proof in text
    weak = text.replace(head, "Lemma poly_zero_set_null_k k (P : Pk k) :\n  (0 < k)%N -> P != 0 -> ")
    weak = weak.replace(proof, "Proof.\nmove=> _; elim: k P => [|k IH] P P0 /=.")
    cut = weak.index("\nQed.\n", weak.index("Lemma poly_zero_set_null_k")) + len("\nQed.\n")
    weak = weak[:cut] + "\nEnd NullSetK.\n"  # the lemmas after it use the strong form: dropped
    (tmp_path / "null_set.v").write_text(weak)
    name = "CollapseVerify.null_set.poly_zero_set_null_k"
    lemma = next(lm for lm in formal.LEMMAS if lm.name == name)
    pins = formal.load_statements()
    assert pins is not None
    formal.write_statements({name: pins[name]}, tmp_path)
    r = formal.check([lemma], source_dir=tmp_path)[name]
    assert set(r.axioms) <= set(formal.ALLOWED_AXIOMS) and "Axioms:" in r.assumptions  # the policy alone accepts
    assert r.accepted is False and "the statement of " + name + " changed" in r.reason
    assert "(0 < k)%N" in r.reason.split("Coq now prints:\n", 1)[1]


# ---- the background check the ledger starts (start_check, cancel_check) ---------------------------------------

@needs_coq
def test_formal_background_check_is_waited_for_and_read_not_repeated(tmp_path, monkeypatch):
    """A check() asked while the background check of the same lemmas compiles waits for it and reads its result: the
    compile runs once, on the background thread. (Planted: check() without its lock: the foreground compiles too.)"""
    import threading
    from concurrent.futures import ThreadPoolExecutor
    (tmp_path / "bg.v").write_text(_PLAIN_HEADER + "Lemma bg_one : 1 = 1.\nProof. reflexivity. Qed.\n")
    lemma = _lemma("bg", "bg_one")
    gate, compiles = threading.Event(), []
    real_compile, real_one = formal.runner.compile_sources, formal.runner._compile_one
    monkeypatch.setattr(formal.runner, "compile_sources",
                        lambda *a, **k: (compiles.append(threading.current_thread().name), real_compile(*a, **k))[1])
    monkeypatch.setattr(formal.runner, "_compile_one", lambda *a: (gate.wait(60), real_one(*a))[1])
    thread = formal.start_check([lemma], tmp_path)
    assert thread is not None and thread.name == "formal-check"
    with ThreadPoolExecutor(1) as pool:
        fg = pool.submit(formal.check, [lemma], tmp_path)
        thread.join(0.3)
        assert not fg.done()  # waits for the background compile, which waits for the gate
        gate.set()
        result = fg.result(timeout=120)
    thread.join(60)
    assert result[lemma.name].closed is True
    assert compiles == ["formal-check"]
    assert formal.check([lemma], tmp_path) is result


@needs_coq
def test_formal_cancel_check_ends_its_coqc_and_caches_nothing(tmp_path, monkeypatch):
    """cancel_check (an interrupted ledger) ends the coqc processes of the background check within seconds, and the
    check stores no result (a later check computes afresh). (Planted: cancel_check without kill: the join times out
    and the thread still runs.)"""
    import time
    (tmp_path / "slow.v").write_text(_PLAIN_HEADER + "Lemma slow_one : 1 = 1.\nProof. reflexivity. Qed.\n")
    lemma = _lemma("slow", "slow_one")
    monkeypatch.setattr(formal.runner, "_coqc_cmd", lambda *a: ["sleep", "60"])
    thread = formal.start_check([lemma], tmp_path)
    assert thread is not None
    deadline = time.monotonic() + 60
    while not formal.runner._RUNNING and time.monotonic() < deadline:
        time.sleep(0.02)
    procs = list(formal.runner._RUNNING)
    assert procs, "the background check never started coqc"
    t0 = time.monotonic()
    formal.cancel_check(timeout=30)
    assert not thread.is_alive() and time.monotonic() - t0 < 20
    assert all(p.poll() is not None for p in procs)
    assert not any(str(tmp_path.resolve()) == key[0] for key in formal.runner._CHECK_CACHE)
    assert not formal.runner._STOP.is_set()  # a later check runs
    formal.cancel_check()  # nothing runs: a no-op


def test_formal_cancel_check_keeps_the_stop_flag_up_until_the_thread_has_ended(monkeypatch):
    """A background check that outlives cancel_check's join (a coqc run between two checks of the flag) must still
    see the stop flag, or it starts new coqc processes: the flag stays up until the thread ends, and the thread
    lowers it on its way out (a later check runs). (Planted: the flag lowered after a join that timed out, as before
    review s5's note: red here.)"""
    import threading
    release, started = threading.Event(), threading.Event()
    monkeypatch.setattr(formal.runner, "coq_version", lambda: "8.x")
    monkeypatch.setattr(formal.runner, "mathcomp_available", lambda: True)
    monkeypatch.setattr(formal.runner, "check", lambda *a, **k: (started.set(), release.wait(60)))
    thread = formal.start_check([])
    assert thread is not None and started.wait(60)
    formal.cancel_check(timeout=0.2)  # the thread ignores the flag for now: the join times out
    assert thread.is_alive() and formal.runner._STOP.is_set()
    release.set()
    thread.join(60)
    assert not thread.is_alive() and not formal.runner._STOP.is_set()
