"""Issue 33: §3's comparative sentences, the further sentences of §1-§6, and the paper as a graph.

Every claim registered for the issue runs with a computed verdict (the one its evidence earns, pinned here: a
change is a change of finding), each not-checkable one says why, and each check that decides one can fail: a
crafted input or a fabricated study makes it return False. The dependency graph is declared on the claims: every
``depends_on`` names a registered claim, there is no cycle, and the drawing is generated from the declarations.
"""
from __future__ import annotations

import shutil

import pytest
from sympy import Matrix, Rational, zeros

from proofs_numeric.cli import main
from proofs_numeric.ledger import get, registry
from proofs_numeric.ledger import graph as G
from proofs_numeric.witnesses import related_work as NR
from property_tests.paper.quick_runs import quick_run
from theorems import formal
from theorems.framework import CheckContext, assess, claim
from theorems.paper import rank_contraction as RC
from theorems.paper import rank_neutrality as RN
from theorems.paper import related_work as RW
from theorems.paper import residual_obstruction as RO

_QUICK = CheckContext(dps=30, quick=True)

#: the claims registered for issue 33 outside the Dong explainer, and the headline verdict each earns
NEW = {
    "RW.dong-proved": "supported", "RW.dong-skip-approximate": "not-checkable", "RW.thm53-precise": "not-checkable",
    "RW.large-weights": "not-checkable", "RW.increase-not-unconditional": "proved",
    "RW.wu-most-precise": "not-checkable", "RW.wu-ln-still-collapses": "supported",
    "RW.wu-ln-can-slow": "not-checkable", "RW.wu-regime-dependent": "not-checkable",
    "RW.joudaki-mlp": "not-checkable", "RW.joudaki-not-self-attention": "supported",
    "RW.rn-exact-self-attention": "not-checkable", "RW.width-collapse": "not-checkable",
    "RW.width-spectral-gap": "not-checkable", "RW.width-orthogonal": "not-checkable", "RW.taxonomy": "not-checkable",
    "RW.geva": "not-checkable", "RW.geva-orthogonal": "not-checkable", "RW.noci-vanishing-gradients": "not-checkable",
    "RW.zhai-entropy-distinct": "proved", "RW.orthogonal-to-hc": "not-checkable",
    "RW.wu-comparison-rate": "certified",
    "RRO.generic-obstruction": "supported", "MLP.bilinear-attention": "refuted",
    "RRO.analytic-measure-zero": "not-checkable", "RRO.rank-r-witness": "supported",
    "RRO.determinantal": "supported", "RN.n-greater-than-d-common": "refuted",
    "RN.effective-dimensionality": "refuted", "RC.left-multiplication": "supported",
}
#: reading verdicts the issue is about (the LN comparison, the width models, the exceptional points)
READINGS = {
    ("RN.neither-helps-nor-hinders", "rate"): "supported",
    ("RN.neither-helps-nor-hinders", "ln-does-not-prevent-collapse"): "supported",
    ("RN.neither-helps-nor-hinders", "ln-does-not-accelerate-collapse"): "refuted",
    ("RN.neither-helps-nor-hinders", "ln-does-not-delay-collapse"): "refuted",
    ("RW.wu-ln-can-slow", "dense-attention"): "certified",
    ("RW.wu-regime-dependent", "on-the-suites-data"): "certified",
    ("RW.width-collapse", "iid-logits"): "supported", ("RW.width-collapse", "token-logits"): "unsupported",
    ("RW.large-weights", "skip-alone-can-fail"): "proved", ("RW.dong-proved", "exact-rank"): "refuted",
    ("RW.wu-comparison-rate", "crossing-delay"): "certified",
    ("RW.wu-comparison-rate", "asymptotic-exponent"): "unsupported", ("RRO.rank-r-witness", "every-weight"): "refuted",
    ("RC.left-multiplication", "uniform-attention"): "refuted",
    ("RN.effective-dimensionality", "effective-rank"): "unsupported",
}

_run = quick_run
#: without coqc + MathComp(-Analysis) a claim proved only by its Coq lemma is supported (exact)
_COQ = shutil.which("coqc") is not None and formal.mathcomp_available() and formal.analysis_available()


def _expected(cid: str) -> str:
    if NEW[cid] == "proved" and not _COQ and formal.lemmas_for(cid, None):
        return "supported"
    return NEW[cid]


@pytest.mark.parametrize("cid", sorted(NEW), ids=str)
def test_related_work_new_claim_runs_with_its_computed_verdict(cid):
    c = get(cid)
    assert c.quote and c.section and c.chapter
    r = _run(cid)
    assert r.error is None, r.error
    for rr in r.readings:
        assert rr.evidence, f"{cid} reading {rr.key} produced no evidence"
        assert rr.verdict == assess(rr.evidence, rr.regimes, rr.form).verdict
    assert r.verdict == _expected(cid), f"{cid}: {r.verdict} ({r.literal.reason or r.literal.condition})"
    if r.verdict == "not-checkable":
        assert r.literal.reason and len(r.literal.reason) > 20  # the reason, said


@pytest.mark.parametrize("key", sorted(READINGS), ids=lambda k: f"{k[0]}:{k[1]}")
def test_related_work_reading_verdicts(key):
    cid, reading = key
    assert _run(cid).reading(reading).verdict == READINGS[key]


def test_related_work_ln_verdicts_rest_on_the_kind_of_evidence_they_say():
    r = _run("RN.neither-helps-nor-hinders")
    assert {e.kind for e in r.reading("rate").evidence} == {"float-evidence"}  # a comparison of fits
    for key in ("ln-does-not-prevent-collapse", "ln-does-not-accelerate-collapse", "ln-does-not-delay-collapse"):
        assert {e.kind for e in r.reading(key).evidence} == {"interval-certified"}  # per-layer enclosures
        assert all("Dong's sense" in e.summary for e in r.reading(key).evidence)  # the collapse notion, named
    assert r.verdict == "refuted" and r.strength == "exact"  # the headline (arank) is unchanged


def test_related_work_exact_checks_can_fail(monkeypatch):
    assert RW.collapsed_attention_is_constant() and RW.collapsed_attention_is_constant(2, 3, 1)
    assert not RW.collapsed_attention_is_constant(collapsed=False)  # distinct tokens: A depends on W_Q
    assert any(g != 0 for g in RW.value_gradient_at_collapse())
    peaks, rk, rx, _ = RW.entropy_and_rank(Matrix([[1, 0], [0, 1], [1, 1]]), 10 * Matrix.eye(2), Matrix.eye(2))
    assert min(peaks) < Rational(99, 100)  # a tie in the scores: no row concentrates on one token
    assert RO.minors_decide_rank(Matrix([[1, 2], [2, 4]]))
    assert RC.rank(Matrix([[1, 0], [0, 0]])) == 1
    X = zeros(2, 2)
    X[0, 0] = 1
    assert not RO.rank_r_raised({"X": X, "M0": Matrix([[-1, 0], [-1, -1]]), "W": Matrix([[-1, 0], [3, 3]])})
    assert RN.MODEL_SIZES["BERT-base"][0] < RN.MODEL_SIZES["BERT-base"][1]
    monkeypatch.setattr(RO, "rank", lambda M: 2)  # a wrong rank: the minors disagree with it
    assert not RO.minors_decide_rank(Matrix([[1, 2], [2, 4]]))


def test_related_work_numeric_checks_can_fail(monkeypatch):
    fake = {"ln_study": [({"n": 8, "d": 6, "H": 1, "d_k": 6}, "fabricated",
                          {"pure_attention": {"machine_precision_layer_certified": 5, "exponent": 3.0},
                           "attention_ln": {"machine_precision_layer_certified": 5, "exponent": 3.0}})]}
    monkeypatch.setattr(NR, "depth_results", lambda quick=False: fake)
    assert NR.ln_can_slow(_QUICK)[0].holds is None  # LN never postpones: the existential is not witnessed
    assert NR.ln_both_directions(_QUICK)[0].holds is None
    assert NR.ln_rate_slower(_QUICK)[0].holds is False
    monkeypatch.setattr(NR, "width_spectra", lambda model, quick=False: {8: (0.5, 0.5), 32: (0.6, 0.4)})
    assert NR.width_evidence("iid-logits", "ratio")(_QUICK)[0].holds is False
    assert NR.width_evidence("iid-logits", "gap")(_QUICK)[0].holds is False


def test_related_work_depth_cli_runs_the_ln_regime(capsys):
    assert main(["depth", "--regime", "attention_ln", "--layers", "3", "--dps", "60"]) == 0
    assert "attention_ln" in capsys.readouterr().out
    assert main(["depth", "--regime", "attention_layernorm"]) == 2


# --- the paper as a graph -------------------------------------------------------------------------------------

SUITE = [c for c in registry() if c.source != "user"]


def test_graph_every_dependency_names_a_registered_claim_and_there_is_no_cycle():
    assert G.unknown_dependencies(SUITE) == []
    assert G.cycles(SUITE) == []
    assert sum(len(c.depends_on) for c in SUITE) >= 80


def test_graph_the_declared_steps_of_the_papers_arguments():
    assert {"RN.step1", "RN.step2", "RN.step3"} <= set(get("RN.main").depends_on)  # Thm 4.2 <- Steps 1-3
    assert "RRO.main" in get("RRO.no-dong-collapse").depends_on  # no Dong collapse <- rank strictly increases
    assert "RC.attention-rank" in get("RC.prop63").depends_on  # Prop 6.3 <- the attention-rank sentence


def test_graph_checks_can_fail():
    a = claim(id="MADE.a", statement="a", section="x", quote="a", depends_on=("MADE.b",), register_claim=False)
    b = claim(id="MADE.b", statement="b", section="x", quote="b", depends_on=("MADE.a", "MADE.nope"),
              register_claim=False)
    assert G.cycles([a, b]) and G.unknown_dependencies([a, b]) == [("MADE.b", "MADE.nope")]
    with pytest.raises(ValueError):
        claim(id="MADE.c", statement="c", depends_on=("MADE.c",), register_claim=False)
    with pytest.raises(TypeError):
        claim(id="MADE.d", statement="d", depends_on="MADE.a", register_claim=False)


class _R:
    def __init__(self, c, v):
        self.claim, self.verdict, self.error, self.strength = c, v, None, "exact"


def _fake_results():
    pick = ["RN.main", "RN.step1", "RN.step2", "RN.step3", "RN.arank-definition", "RN.H4-unique",
            "SYM.head-permutation", "RN.abstract-neutral"]
    verdict = {"RN.step2": "refuted"}
    return [_R(get(c), verdict.get(c, "supported")) for c in pick]


def test_graph_dot_is_generated_from_the_declarations():
    rs = _fake_results()
    dot = G.graph_dot(rs)
    assert '"RN.main" -> "RN.step1"' in dot and '"RN.main" -> "RN.step2" [color="#c62828"]' in dot
    line = next(ln for ln in dot.splitlines() if ln.strip().startswith('"RN.main" ['))
    assert "penwidth" in line  # rests on the refuted Step 2
    assert G.rests_on_refuted([r.claim for r in rs], {r.claim.id: r.verdict for r in rs})["RN.abstract-neutral"] == \
        ["RN.step2"]  # through RN.main
    sym = next(ln for ln in dot.splitlines() if ln.strip().startswith('"SYM.head-permutation" ['))
    assert "dashed" in sym  # the suite's own framing
    assert f'href="chapters/rank_neutrality.html#{G.anchor("RN.main")}"' in dot


def test_graph_svg_with_dot_and_with_the_matplotlib_fallback(monkeypatch):
    rs = _fake_results()
    if G.dot_available():
        svg, how = G.graph_svg(rs)
        assert svg.startswith("<svg") and "Graphviz" in how and G.anchor("RN.step1") in svg
    monkeypatch.setattr(G, "dot_available", lambda: False)
    svg, how = G.graph_svg(rs)
    assert svg.startswith("<svg") and "matplotlib" in how and "not installed" in how
    assert G.anchor("RN.step1") in svg  # the nodes still link to their claims
