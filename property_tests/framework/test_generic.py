"""The generic form ("for almost every point of a stated parameter space"): small generic claims of each kind get
each outcome, the failure labels are computed (robust / persistent / exceptional-point), and every constructor and
rule of the generic verdict can fail (mutation-resistant: each assertion pins one boundary)."""
from __future__ import annotations

import random
from fractions import Fraction

import pytest
import sympy
from sympy import Matrix, Rational

from proofs_numeric.ledger import registry
from property_tests.paper.quick_runs import quick_run
from theorems.exact.qinterval import QI, box, det, mat_mul, pow2
from theorems.framework import (
    COLLAPSE_NOTIONS,
    NULL_SET_LEMMAS,
    REGISTRY,
    SEARCHES,
    CheckContext,
    Generic,
    Pool,
    ProofStep,
    Reading,
    Search,
    assess,
    check_notion,
    claim,
    derivation,
    exact_complete,
    exact_instances,
    failing_box,
    formal_proof,
    genericity_argument,
    identical_failure,
    interval_witness,
    label_failure,
    labelled_failure,
    perturbation_probe,
    probe_failure,
    run_claim,
    same_as_groups,
    unregister,
)
from theorems.framework import verdict as V

QQ = "QQ"
CLAIMS = registry()  # the paper's claims (and their searches) are registered
_QUICK = CheckContext(dps=30, quick=True)


def vanishing(ok=True):
    return derivation([ProofStep("x", "failure forces P = 0", "lemma", lambda: ok)], "the vanishing step")


def witness(ok=True, interval=False):
    make = interval_witness if interval else exact_complete
    return make("P != 0 at w", ok, arithmetic="iv" if interval else QQ)


def probe(restored, failed, probes=4):
    return perturbation_probe("s", point="p", probes=probes, restored=restored, failed=failed, seed=1,
                              scale="1/1000", arithmetic=QQ)


# --- four small generic claims, four outcomes ---------------------------------------------------------------

def _pairs(ctx):
    """(a, b) on and off the line a + b = 0 (small integers: the draws meet the null set)."""
    for a in range(-2, 3):
        for b in (-a, a + 1):
            yield "all", "", {"a": Rational(a), "b": Rational(b)}


def test_generic_failures_only_on_a_hyperplane_are_exceptional_points_and_the_claim_is_supported():
    c = claim(id="T.hyperplane", statement="a + b != 0 for a.e. (a, b)", form="generic",
              generic=Generic(space="(a, b) in R^2", variables=("a", "b")),
              conclusion=("a + b != 0", lambda x: x["a"] + x["b"] != 0), instances=Pool(rows=_pairs, arithmetic=QQ),
              register_claim=False)
    r = run_claim(c).literal
    assert (r.verdict, r.strength, r.form) == ("supported", "exact", "generic")
    probes = [e for e in r.evidence if e.label == "exceptional-point"]
    assert len(probes) == 5 and len(r.exceptional) == 5  # a + b = 0 at a = -2..2
    assert all("exceptional set met at" in e.summary for e in probes)
    assert "exceptional set met at 5 point(s)" in r.reason
    counted = next(e for e in r.evidence if e.kind == "exact" and e.scope == "instances" and e.holds is True)
    assert counted.numbers["premise_met"] == 5 and counted.numbers["set_aside"] == 5
    j = r.to_json()
    assert j["form"] == "generic" and j["parameter_space"]["space"] == "(a, b) in R^2"
    assert j["parameter_space"]["variables"] == ["a", "b"] and len(j["exceptional"]) == 5
    # the same instances read as a universal claim: the exact failures refute it
    u = claim(id="T.hyperplane-universal", statement="a + b != 0",
              conclusion=("a + b != 0", lambda x: x["a"] + x["b"] != 0),
              instances=Pool(rows=_pairs, arithmetic=QQ), register_claim=False)
    assert run_claim(u).verdict == "refuted"


def _points(ctx):
    for x in (Rational(0), Rational(3), Rational(-2)):
        yield "all", "", {"x": x}


def _box_around(x):
    """x^2 <= 1 on the box [x - 1/2, x + 1/2] when |x| <= 1/2 (exact rational intervals)."""
    X = QI(x["x"] - Fraction(1, 2), x["x"] + Fraction(1, 2))
    sq = X * X
    return failing_box(f"x^2 > 1 at x = {x['x']}", certified=sq.hi <= 1, box=f"[{X.lo}, {X.hi}]",
                       arithmetic="QQ interval arithmetic", exact=True) if sq.hi <= 1 else None


def test_generic_a_certified_failing_box_refutes_and_a_bare_persistent_failure_is_only_against():
    spec = dict(space="x in R", variables=("x",))
    kw = dict(statement="x^2 > 1 for a.e. x", form="generic", conclusion=("x^2 > 1", lambda v: v["x"] ** 2 > 1),
              instances=Pool(rows=_points, arithmetic=QQ), register_claim=False)
    boxed = run_claim(claim(id="T.box", generic=Generic(**spec, certify=_box_around), **kw)).literal
    assert (boxed.verdict, boxed.strength) == ("refuted", "exact")
    cert = next(e for e in boxed.evidence if e.scope == "positive-measure")
    assert cert.label == "robust" and "[-1/2, 1/2]" in cert.summary
    bare = run_claim(claim(id="T.persistent", generic=Generic(**spec), **kw)).literal
    assert (bare.verdict, bare.strength) == ("unsupported", "exact")  # x = 0 persists, but no box: not decisive
    assert any(e.label == "persistent" for e in bare.evidence)
    assert not bare.exceptional


def _rank_one(ctx):
    yield "all", "", {"u": Matrix([1, 2]), "v": Matrix([3, 1])}


def _identically_singular(x):
    u = Matrix(sympy.symbols("u0:2"))
    v = Matrix(sympy.symbols("v0:2"))
    return identical_failure("every 2x2 minor of u v^T vanishes as a polynomial in (u, v)",
                             identity_holds=sympy.expand((u * v.T).det()) == 0)


def test_generic_an_identically_vanishing_minor_refutes_exactly():
    c = claim(id="T.identity", statement="rank(u v^T) = 2 for a.e. (u, v)", form="generic",
              generic=Generic(space="(u, v) in R^2 x R^2", variables=("u", "v"), certify=_identically_singular),
              conclusion=("rank(u v^T) = 2", lambda x: (x["u"] * x["v"].T).rank() == 2),
              instances=Pool(rows=_rank_one, arithmetic=QQ), register_claim=False)
    r = run_claim(c).literal
    assert (r.verdict, r.strength) == ("refuted", "exact")
    assert any(e.scope == "positive-measure" and "symbolic identity" in e.summary for e in r.evidence)


def test_generic_a_genericity_argument_with_a_witness_supports_and_names_the_cited_null_set_lemma():
    arg = genericity_argument("rank(A + B) > r for a.e. B", vanishing=vanishing(), witness=witness())
    c = claim(id="T.argument", statement="for a.e. B", form="generic", generic=Generic(space="B in R^{n x d}"),
              checks=[lambda ctx: [arg]], register_claim=False)
    r = run_claim(c).literal
    assert (r.verdict, r.strength) == ("supported", "exact")
    assert r.cites == (NULL_SET_LEMMAS["polynomial"],) and arg.cites == NULL_SET_LEMMAS["polynomial"]
    assert "not formal" in arg.summary and arg.scope == "generic"
    # the same argument with the null-set lemma formal proves it
    closed = formal_proof("null_set", True, statement="zero sets of non-zero polynomials are null")
    proved = genericity_argument("s", vanishing=symbolic_general(), witness=witness(), null_set=closed)
    assert (proved.scope, proved.cites, assess([proved], form="generic").verdict) == ("general", None, "proved")
    # an analytic function with a certified interval witness: supported (interval)
    an = genericity_argument("s", vanishing=vanishing(), witness=witness(interval=True), null_set="analytic")
    a = assess([an], form="generic")
    assert (a.verdict, a.strength, an.cites) == ("supported", "interval", NULL_SET_LEMMAS["analytic"])


def general_negation():
    """Exact evidence of scope general that fails: a false identity in matrices of symbolic size."""
    from theorems.framework import symbolic_identity
    n = sympy.Symbol("n", integer=True, positive=True)
    X, G = sympy.MatrixSymbol("X", n, n), sympy.MatrixSymbol("G", n, n)
    e = symbolic_identity((X * G).T, X.T * G.T, "wrong order")
    assert (e.scope, e.holds) == ("general", False)
    return e


def symbolic_general():
    from theorems.framework import symbolic_identity
    n = sympy.Symbol("n", integer=True, positive=True)
    A, B = sympy.MatrixSymbol("A", n, n), sympy.MatrixSymbol("B", n, n)
    return symbolic_identity(A + B, B + A, "sum")


# --- the constructors, boundary by boundary -----------------------------------------------------------------

def test_genericity_argument_steps_and_refusals():
    assert genericity_argument("s", vanishing=vanishing(False), witness=witness()).holds is None
    assert genericity_argument("s", vanishing=vanishing(), witness=witness(None)).holds is None
    assert genericity_argument("s", vanishing=vanishing(), witness=witness(False)).holds is None
    ok = genericity_argument("s", vanishing=vanishing(), witness=witness())
    assert (ok.holds, ok.kind, ok.scope, ok.numbers["null_set_formal"], ok.numbers["P"]) == \
        (True, "exact", "generic", False, "polynomial")
    # a derivation as vanishing step never proves, even with a formal null-set lemma
    closed = formal_proof("N", True, statement="null")
    assert genericity_argument("s", vanishing=vanishing(), witness=witness(), null_set=closed).scope == "generic"
    # an interval witness never proves
    assert genericity_argument("s", vanishing=symbolic_general(), witness=witness(interval=True),
                               null_set=closed).scope == "generic"
    # a null-set lemma that Coq did not close is cited, not formal
    open_ = formal_proof("N", None, statement="null")
    assert genericity_argument("s", vanishing=symbolic_general(), witness=witness(), null_set=open_).scope == "generic"
    # every step formal: a formal proof of the generic statement; one exact step: exact
    fv = formal_proof("V", True, statement="failure forces P = 0")
    fw = formal_proof("W", True, statement="P(w) != 0", concrete=True)
    allf = genericity_argument("s", vanishing=fv, witness=fw, null_set=closed)
    assert (allf.kind, allf.scope, allf.holds) == ("formal", "general", True)
    assert genericity_argument("s", vanishing=fv, witness=witness(), null_set=closed).kind == "exact"
    assert genericity_argument("s", vanishing=fv, witness=fw).kind == "exact"  # the lemma cited: not a proof
    assert "analytic" in genericity_argument("s", vanishing=fv, witness=fw, null_set="analytic").numbers["P"]
    with pytest.raises(ValueError):
        genericity_argument("s", vanishing=exact_instances("v", met=2, held=2, arithmetic=QQ), witness=witness())
    with pytest.raises(ValueError):
        genericity_argument("s", vanishing=vanishing(), witness=exact_instances("w", met=2, held=2, arithmetic=QQ))
    with pytest.raises(ValueError):
        genericity_argument("s", vanishing=vanishing(), witness=witness(), null_set="smooth")
    with pytest.raises(TypeError):
        genericity_argument("s", vanishing="P = 0", witness=witness())


def test_failure_constructors_label_only_what_they_certify():
    b = failing_box("s", certified=True, box="B", arithmetic=QQ, exact=True)
    assert (b.kind, b.scope, b.holds, b.label) == ("exact", "positive-measure", False, "robust")
    assert failing_box("s", certified=True, box="B", arithmetic="iv", exact=False).kind == "interval-certified"
    u = failing_box("s", certified=None, box="B", arithmetic=QQ, exact=True)
    assert (u.holds, u.label) == (None, None)
    assert failing_box("s", certified=False, box="B", arithmetic=QQ, exact=True).holds is None
    i = identical_failure("s", identity_holds=True)
    assert (i.kind, i.scope, i.holds, i.label) == ("exact", "positive-measure", False, "robust")
    assert identical_failure("s", identity_holds=False).holds is None
    assert identical_failure("s", identity_holds=None).holds is None
    assert probe(4, 0).label == "exceptional-point"
    assert probe(3, 0).label == "persistent"  # one probe undecided: not shown to be exceptional
    assert probe(3, 1).label == "persistent" and probe(0, 4).label == "persistent" and probe(0, 0).label == "persistent"
    assert probe(1, 0, probes=1).label == "exceptional-point"
    assert probe(4, 0).kind == "exact" and probe(4, 0).holds is False and probe(4, 0).scope == "instances"
    cert = perturbation_probe("s", point="p", probes=2, restored=2, failed=0, seed=1, scale="1", arithmetic="iv",
                              certified=True)
    assert cert.kind == "interval-certified" and cert.numbers == {"probes": 2, "restored": 2, "failed": 0, "seed": 1,
                                                                  "scale": "1"}
    with pytest.raises(ValueError):
        probe(3, 2)
    with pytest.raises(ValueError):
        probe(-1, 0)
    e = exact_instances("s", met=3, held=2, arithmetic=QQ)
    rob = labelled_failure(e, b)
    assert rob.label == "robust" and rob.numbers["certificate"] == b.summary and rob.holds is False
    with pytest.raises(ValueError):
        labelled_failure(e, u)  # no certificate, no robust label
    with pytest.raises(ValueError):
        labelled_failure(exact_instances("s", met=3, held=3, arithmetic=QQ), b)
    assert exact_instances("s", met=3, held=3, arithmetic=QQ, label="persistent").label is None
    assert exact_instances("s", met=3, held=2, arithmetic=QQ, label="persistent").label == "persistent"
    with pytest.raises(ValueError):
        exact_instances("s", met=3, held=2, arithmetic=QQ, label="robust")  # robust needs a certificate


def test_generic_verdict_rule_boundaries():
    box_ = failing_box("s", certified=True, box="B", arithmetic=QQ, exact=True)
    ibox = failing_box("s", certified=True, box="B", arithmetic="iv", exact=False)
    inst = exact_instances("s", met=3, held=2, arithmetic=QQ)
    good = exact_instances("s", met=3, held=3, arithmetic=QQ)
    for e, decisive in ((box_, True), (ibox, True), (inst, False), (probe(0, 4), False), (probe(4, 0), False),
                        (interval_witness("s", False, arithmetic="iv"), False),
                        (exact_complete("s", False, arithmetic=QQ), False),
                        (derivation([ProofStep("a", "b", "lemma", lambda: True)], "s", concludes=False), False),
                        (general_negation(), True)):
        assert V._decisive_failure(e, "generic") is decisive, e
    assert V._decisive_failure(inst, "universal") and V._decisive_failure(exact_complete("s", False, arithmetic=QQ),
                                                                          "concrete")
    assert assess([box_], form="generic").verdict == "refuted"
    assert (assess([ibox], form="generic").verdict, assess([ibox], form="generic").strength) == ("refuted", "interval")
    assert assess([inst], form="generic").verdict == "unsupported"
    assert assess([good, probe(4, 0)], form="generic").verdict == "supported"
    assert assess([good, probe(3, 1)], form="generic").verdict == "unsupported"
    assert assess([probe(4, 0)], form="generic").verdict == "not-checkable"
    assert assess([good, box_], ("n<d", "n>d"), form="generic").verdict == "refuted"
    g_box = failing_box("s", certified=True, box="B", arithmetic=QQ, exact=True, regime="n>d")
    a = assess([exact_instances("s", met=2, held=2, arithmetic=QQ, regime="n<d"), g_box], ("n<d", "n>d"), "generic")
    assert a.verdict == "conditional" and "fails in n>d" in a.condition
    # one point never certifies or proves a generic claim; a general exact argument does prove it
    assert assess([interval_witness("s", True, arithmetic="iv")], form="generic").verdict == "supported"
    assert assess([exact_complete("s", True, arithmetic=QQ)], form="generic").verdict == "supported"
    assert assess([symbolic_general()], form="generic").verdict == "proved"
    # a robust-labelled instance is set aside (its certificate decides), an exceptional one is listed
    rob = labelled_failure(inst, box_)
    assert V._set_aside(rob, "generic") and not V._set_aside(rob, "universal") and not V._set_aside(box_, "generic")
    assert assess([good, rob], form="generic").verdict == "supported"
    assert assess([good, probe(4, 0)], form="generic").exceptional == [probe(4, 0).summary]
    assert assess([good, probe(4, 0)], form="universal").verdict == "refuted"  # labels mean nothing elsewhere
    with pytest.raises(V.ContradictionError):
        assess([symbolic_general(), box_], form="generic")


def test_label_failure_labels_one_instance_as_check_reports_it():
    """The label of one user's failing instance: robust (a box), exceptional point, or persistent."""
    spec = Generic(space="(a, b)", variables=("a", "b"))
    lab, e = label_failure(spec, {"a": Rational(1), "b": Rational(-1)}, {}, lambda y: y["a"] + y["b"] != 0)
    assert lab == "exceptional-point" and "exceptional set met at" in e.summary
    lab, e = label_failure(spec, {"a": Rational(1), "b": Rational(-1)}, {}, lambda y: False)
    assert lab == "persistent"
    boxed = Generic(space="x", variables=("x",), certify=_box_around)
    lab, e = label_failure(boxed, {"x": Rational(0)}, {}, lambda v: v["x"] ** 2 > 1)
    assert (lab, e.scope) == ("robust", "positive-measure")


def test_probe_failure_counts_and_is_seeded():
    spec = Generic(space="(a, b)", variables=("a", "b"), probes=6)
    x = {"a": Rational(1), "b": Rational(-1)}
    p1 = probe_failure(spec, x, lambda y: True, lambda y: y["a"] + y["b"] != 0, seed=7)
    assert (p1.probes, p1.restored, p1.failed, p1.label) == (6, 6, 0, "exceptional-point")
    assert probe_failure(spec, x, lambda y: True, lambda y: y["a"] + y["b"] != 0, seed=7) == p1
    stuck = probe_failure(spec, x, lambda y: True, lambda y: False, seed=7)
    assert (stuck.restored, stuck.failed, stuck.label) == (0, 6, "persistent")
    off = probe_failure(spec, x, lambda y: False, lambda y: True, seed=7)  # every probe left the premise
    assert (off.restored, off.failed, off.label) == (0, 0, "persistent")
    half = probe_failure(spec, x, lambda y: True, lambda y: None, seed=7)
    assert half.label == "persistent"
    # the certified probe conclusion replaces the declared one
    spec2 = Generic(space="(a, b)", variables=("a",), conclusion=lambda y: True, certified=True)
    assert probe_failure(spec2, x, lambda y: True, lambda y: False, seed=1).label == "exceptional-point"
    y = spec.perturbed(x, random.Random(0))
    assert y["a"] != x["a"] and y["b"] != x["b"] and abs(y["a"] - x["a"]) <= Rational(1, 1000)
    assert Generic(space="s", variables=("a",)).perturbed(x, random.Random(0))["b"] == x["b"]


def test_generic_spec_is_validated():
    with pytest.raises(ValueError):
        Generic(space=" ")
    with pytest.raises(TypeError):
        Generic(space="s", variables="ab")
    with pytest.raises(ValueError):
        Generic(space="s", probes=0)
    with pytest.raises(KeyError):
        Generic(space="s", variables=("z",)).perturbed({"a": 1}, random.Random(0))
    with pytest.raises(TypeError):
        Generic(space="s", variables=("a",)).perturbed(Matrix([1]), random.Random(0))
    with pytest.raises(ValueError):  # a generic claim states its parameter space
        claim(id="T.no-space", statement="s", form="generic", register_claim=False)
    with pytest.raises(ValueError):
        claim(id="T.no-space-reading", statement="s", readings=[Reading("r", "s", form="generic")],
              register_claim=False)
    with pytest.raises(ValueError):
        claim(id="T.builder", statement="s", form="generic", generic=Generic(space="s"),
              conclusion=lambda x: True, instances=lambda draw, r: Rational(draw(0, 1)), register_claim=False)


def test_notions_are_validated():
    assert check_notion("exact-rank") == "exact-rank"
    assert check_notion("residual: rho < 2^-52") == "residual: rho < 2^-52"
    assert check_notion({"(a)": "exact-rank", "(b)": "numerical-rank: tol 1e-10"})["(a)"] == "exact-rank"
    for bad in ("rank", "exact rank", 3, {}):
        with pytest.raises(ValueError):
            check_notion(bad)
    assert set(COLLAPSE_NOTIONS) == {"exact-rank", "numerical-rank", "residual", "effective-rank"}
    with pytest.raises(ValueError):
        claim(id="T.notion", statement="s", notion="dimension", register_claim=False)


def test_the_effective_rank_notion_is_what_its_description_says():
    """effective-rank (Roy and Vetterli): exp H(sigma / sum sigma), in [1, rank M], equal to rank M exactly when the
    non-zero singular values are equal, scale-invariant; RN.effective-dimensionality's reading is decided by it."""
    import numpy as np

    from theorems.paper.rank_neutrality import effective_rank
    assert check_notion("effective-rank: float64 SVD") == "effective-rank: float64 SVD"
    words = COLLAPSE_NOTIONS["effective-rank"]
    assert "exp(-sum_i p_i log p_i)" in words and "[1, rank M]" in words and "float" in words
    assert effective_rank(np.diag([3.0, 3.0, 0.0])) == pytest.approx(2.0)  # equal non-zero values: the rank
    assert effective_rank(np.eye(4)) == pytest.approx(4.0)
    unequal = np.diag([4.0, 1.0, 0.0])
    assert 1.0 < effective_rank(unequal) < 2.0  # rank 2, unequal singular values: strictly below the rank
    assert effective_rank(7.5 * unequal) == pytest.approx(effective_rank(unequal))  # scale-invariant
    p = np.array([0.8, 0.2])
    assert effective_rank(unequal) == pytest.approx(float(np.exp(-(p * np.log(p)).sum())))
    assert effective_rank(np.outer([1.0, 2.0], [3.0, -1.0, 1.0])) == pytest.approx(1.0)
    c = REGISTRY["RN.effective-dimensionality"]
    assert c.reading_of("effective-rank").notion.split(":")[0] == "effective-rank"
    assert c.reading_of("literal").notion.split(":")[0] == "exact-rank"  # the affine rank, exactly


def test_the_issue_32_claims_probe_their_failures_at_perturbations():
    """RC.left-multiplication and RRO.rank-r-witness are generic: a failing instance on the null set (zero scores;
    a W whose first row is parallel to e_1) is an exceptional point, restored by every certified perturbation; a
    failure that every perturbation keeps is persistent."""
    lm = REGISTRY["RC.left-multiplication"]
    X = Matrix([[1, 0], [0, 1], [1, 1]])
    zero_scores = {"X": X, "M0": sympy.zeros(2, 2), "W_V": sympy.eye(2)}  # A = J/3: rank(A X) = 1 < 2
    decide = lm.decl.conclusion[1]
    assert decide(zero_scores) is False
    lab, e = label_failure(lm.generic, zero_scores, {}, decide)
    assert lab == "exceptional-point" and e.kind == "interval-certified", e.summary
    assert lm.spec_of(lm.reading_of("uniform-attention")) is None  # the universal reading keeps its refutation
    rr = REGISTRY["RRO.rank-r-witness"]
    point = {"X": Matrix([[1, 0], [0, 0]]), "M0": Matrix([[-1, 0], [-1, -1]]), "W": Matrix([[-1, 0], [3, 3]])}
    assert rr.decl.conclusion[1](point) is False
    lab, _ = label_failure(rr.generic, point, {}, rr.decl.conclusion[1])
    assert lab == "exceptional-point"
    stuck = Generic(space=rr.generic.space, variables=("M0", "W"), conclusion=lambda y: False, certified=True)
    assert label_failure(stuck, point, {}, rr.decl.conclusion[1])[0] == "persistent"
    assert rr.spec_of(rr.reading_of("every-weight")) is None
    for cid in ("DONG.one-hot-softmax", "DONG.non-attended-gradients"):  # the hypothesis excludes the ties
        c = REGISTRY[cid]
        assert c.form == "universal" and "a unique maximal logit" in c.hypotheses


def test_same_as_groups_share_evidence_and_verdict():
    seen = []

    def check(name):
        def c(ctx):
            seen.append(name)
            return [exact_instances(name, met=2, held=2, arithmetic=QQ)]
        return c

    a = claim(id="T.same-a", statement="s", checks=[check("a")])
    b = claim(id="T.same-b", statement="s", readings=[Reading("r", "s", checks=[check("b")], same_as="T.same-a")])
    try:
        groups = same_as_groups()
        assert [("T.same-a", "literal"), ("T.same-b", "r")] in groups
        ra, rb = run_claim(a).literal, run_claim(b).reading("r")
        assert [e.summary for e in ra.evidence] == [e.summary for e in rb.evidence]
        assert len(ra.evidence) == 2 and (ra.verdict, ra.strength) == (rb.verdict, rb.strength)
        assert ra.same_as == ("T.same-b:r",) and rb.same_as == ("T.same-a:literal",)
        c = claim(id="T.same-c", statement="s", same_as="T.nowhere")
        with pytest.raises(KeyError):
            same_as_groups()
        unregister(c.id)
    finally:
        unregister(a.id)
        unregister(b.id)
    assert "T.same-a" not in REGISTRY


def test_a_search_states_its_region_and_reports_a_witness_or_the_region_searched():
    s = Search(region="integers in [0, 9]", draw=lambda rng: rng.randint(0, 9), inside=lambda x: 0 <= x <= 9,
               counts=lambda x: x == 7, example=lambda: 7)
    found = s.run("a 7", seed=3, draws=200, arithmetic=QQ)
    assert found.holds is True and found.scope == "complete" and "integers in [0, 9]" in found.summary
    miss = Search(region="even integers", draw=lambda rng: 2 * rng.randint(0, 9), inside=lambda x: x % 2 == 0,
                  counts=lambda x: x == 7, example=lambda: 7)
    none = miss.run("a 7", seed=3, draws=50, arithmetic=QQ)
    assert none.holds is False and none.numbers["region"] == "even integers" and "no witness among 50" in none.summary
    assert not miss.inside(miss.example())  # the blind spot the registry test below catches


@pytest.mark.parametrize("name", sorted(SEARCHES), ids=str)
def test_every_registered_search_can_succeed_in_its_region(name):
    """For each search of the suite, an instance inside its region counts: an empty search is informative."""
    s = SEARCHES[name]
    x = s.example()
    assert s.inside(x) is True, f"{name}: the example is outside the region «{s.region}»"
    assert s.counts(x) is True, f"{name}: the example inside the region does not count"


# --- exact rational intervals ------------------------------------------------------------------------------

def test_qinterval_enclosures_contain_every_value_and_certify_minors():
    rng = random.Random(0)
    for _ in range(50):
        a, b = sorted(Fraction(rng.randint(-50, 50), rng.randint(1, 9)) for _ in range(2))
        t = Fraction(rng.randint(0, 100), 100)
        x = a + (b - a) * t
        I = QI(a, b)
        assert x * x - 3 * x in I * I - 3 * I
        e = pow2(QI(a / 8, b / 8))
        assert e.lo <= Fraction(2 ** (float(x) / 8)) * Fraction(1 + 10 ** -12)
        assert e.hi >= Fraction(2 ** (float(x) / 8)) * Fraction(1 - 10 ** -12)
    assert not det(box([[1, 2], [2, 4]], Fraction(1, 100))).excludes_zero()  # singular at the centre
    assert det(box([[1, 2], [3, 4]], Fraction(1, 100))).excludes_zero()
    assert det(box([[1, 2], [3, 4]], 0)).lo == -2
    P = mat_mul(box([[1, 0]], 0), box([[2], [3]], 0))
    assert (P[0][0].lo, P[0][0].hi) == (2, 2)
    with pytest.raises(ValueError):
        QI(2, 1)
    with pytest.raises(ZeroDivisionError):
        QI(-1, 1).reciprocal()
    assert pow2(QI(3)).lo == 8 == pow2(QI(3)).hi
    assert pow2(QI(Fraction(1, 2))).lo > 1 and pow2(QI(Fraction(1, 2))).hi < 2


# --- the registry: one statement, one evidence; notions named; generic claims declared -------------------------------

def test_same_as_references_resolve_and_groups_are_the_accepted_pairs():
    groups = same_as_groups()
    flat = {m for g in groups for m in g}
    assert ("RN.plus-one", "bound-only") in flat and ("RN.exceeds-by-at-most-one", "literal") in flat
    assert [("HC.main", "b-no-output-projection"), ("RA.main", "b-no-output-projection"),
            ("RA.single-head", "whole-tuple")] in groups
    for g in groups:  # the members of a group state one statement: one form and one set of regimes
        forms = {REGISTRY[c].reading_of(k).form or REGISTRY[c].form for c, k in g}
        regimes = {tuple(REGISTRY[c].reading_of(k).regimes or REGISTRY[c].regimes) for c, k in g}
        assert len(forms) == 1 and len(regimes) == 1, g


@pytest.mark.parametrize("group", same_as_groups(), ids=lambda g: "=".join(f"{c}:{k}" for c, k in g))
def test_every_same_as_group_has_one_verdict_and_one_strength(group):
    results = {(c, k): quick_run(c) for c, k in group}  # run_claim(REGISTRY[c], QUICK), once per claim per process
    got = {(r.reading(k).verdict, r.reading(k).strength) for (c, k), r in results.items()}
    assert all(r.error is None for r in results.values())
    assert len(got) == 1, {m: (r.reading(m[1]).verdict, r.reading(m[1]).strength) for m, r in results.items()}


_RANKISH = ("rank", "\\rho", "collapse", "\\dim", "\\ker")


@pytest.mark.parametrize("claim_", CLAIMS, ids=lambda c: c.id)
def test_every_rank_or_collapse_statement_names_the_notion_that_decides_it(claim_):
    for r in claim_.all_readings():
        text = r.statement.lower()  # the formal statement (a quote may mention collapse without stating one)
        if any(w in text for w in _RANKISH):
            notion = r.notion if r.notion is not None else claim_.notion
            assert notion is not None, f"{claim_.id}:{r.key} states a rank or collapse property but names no notion"
            parts = notion.values() if isinstance(notion, dict) else [notion]
            assert all(check_notion(p) for p in parts)


def test_the_generic_claims_are_the_classified_ones():
    """The classification in the note: which claims and readings are generic (form "generic", a parameter space)."""
    generic = sorted(f"{c.id}:{r.key}" for c in CLAIMS for r in c.all_readings() if c.spec_of(r) is not None)
    assert generic == sorted(GENERIC_READINGS)


#: the generic claims and readings (the paper says "generic", "generically", "almost every", "a.s." or its proof
#: relies on it); see the note for the parameter spaces and the ones left universal
GENERIC_READINGS = [
    "RRO.prop51:literal", "RRO.main:literal", "RRO.main:for-all-weights", "RRO.main:lebesgue-on-all-matrices",
    "RRO.witness:literal", "RRO.witness-wo-choice:corrected", "RRO.bad-set-nowhere-dense:literal",
    "RRO.bad-set-nowhere-dense:corrected", "RRO.only-increase:literal",
    "RRO.only-increase:free-delta",  # issue 56, audit 62: the literal is Delta = Delta(X), generic weights
    "RC.prop63:literal", "RC.attention-rank:literal", "RC.attention-rank:corrected", "RC.rank-equals-sum:generic-value",
    "RC.generic-wv:literal", "RC.dim-dk:literal", "RC.dim-dk:generic-weights", "RC.alpha-independent:literal",
    "RC.alpha-independent:as-proved",
    "RN.H4-generic:corrected", "RN.hypotheses-at-init:literal", "RN.hypotheses-at-init:corrected",
    "HC.main:iii-single-head-projected", "RA.main:iii-single-head-projected", "RA.single-head:with-output-projection",
    "DONG.skip-full-rank:generic-weights",
    # issue 32, second pass (see the note): the quote says "generic(ally)" and the hypotheses exclude no null set
    "RC.left-multiplication:literal", "RRO.rank-r-witness:literal", "RRO.generic-obstruction:literal",
    "RW.joudaki-mlp:literal",
    # issue 56: the paper's argument for Thm 5.3 ("B_l is null"), over X in R^{n x d}
    "RRO.thm53-argument:literal",
    # issue 57: Theorem 5.3 read for the attention sub-layer of each deployed block type
    "RRO.main:post-LN", "RRO.main:post-LN-below-cap", "RRO.main:pre-LN-causal", "RRO.main:pre-RMSNorm-causal",
    "SCOPE.deployed:post-LN", "SCOPE.deployed:pre-LN-causal", "SCOPE.deployed:pre-RMSNorm-causal",
    "RRO.prop51:pre-LN-causal-increment", "RRO.prop51:pre-RMSNorm-causal-increment",
    # issue 57: HC.main, RA.main (generic X, W_O of the observed sub-layer) and RC.prop63 (generic W_V, W_O) per block
    "HC.main:post-LN", "HC.main:post-LN-eps", "HC.main:pre-LN-causal", "HC.main:pre-RMSNorm-causal",
    # review of issue 56: the raw post-LN fibre (LayerNorm's own loss included) kept beside the head-channel readings
    "HC.main:post-LN-raw", "HC.main:post-LN-eps-raw",
    "RA.main:post-LN", "RA.main:post-LN-eps", "RA.main:pre-LN-causal", "RA.main:pre-RMSNorm-causal",
    "RC.prop63:causal-mask", "RC.prop63:pre-LN-causal", "RC.prop63:pre-LN-causal-stream",
    "RC.prop63:pre-RMSNorm-causal", "RC.prop63:post-LN",
]
