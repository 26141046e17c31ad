"""Issue 56, the audit's disagreements decided: each headline answers the sentence the source wrote, with the
exact evidence the audit gave (or a test refuting it)."""
from __future__ import annotations

import copy
from decimal import Decimal

import sympy
from sympy import Matrix, Rational

from proofs_numeric.ledger import get
from proofs_numeric.witnesses import related_work as W
from property_tests.paper.quick_runs import quick_run
from theorems.exact.attention import exact_softmax
from theorems.exact.input import exact_matrix
from theorems.framework import CheckContext
from theorems.framework.storage import load_counterexample
from theorems.paper import dong_collapse as D
from theorems.paper import dong_explainer as E
from theorems.paper import rank_contraction as RC


def _headline(cid: str):
    r = quick_run(cid)
    assert r.error is None, r.error
    return r.readings[0]


# --- item 1: DONG.skip-lower-bound and DONG.skip-prevents-decay ------------------------------------------------

def test_skip_lower_bound_stored_layer_leaves_no_gamma_below_one():
    """The audit's instance, exactly: X = I_2, A = [[2/3, 1/3], [1/3, 2/3]], W_V W_O = -3 I: X^(1) has identical
    rows, so ||R^(1)|| = 0 < (1 - gamma) ||R^(0)|| for every gamma < 1."""
    data, _ = load_counterexample("DONG.skip-lower-bound")
    why, regime, numbers = D.recheck_no_contraction_bound(data)
    assert why and "[[2/3, 1/3], [1/3, 2/3]]" in why and "[[-1, -1], [-1, -1]]" in why
    assert numbers == {"R0_sq": "1", "R1_sq": "0"} and regime == "n=d"


def test_skip_lower_bound_recheck_can_fail():
    """Planted: W_V W_O = -2 I leaves X^(1) = I - 2A = [[-1/3, -2/3], [-2/3, -1/3]] with R^(1) != 0: not a
    counterexample, so the recheck says None (and a stored file with it would stop the run)."""
    data, _ = load_counterexample("DONG.skip-lower-bound")
    bad = copy.deepcopy(data)
    bad["W_VO"] = [["-2", "0"], ["0", "-2"]]
    assert D.recheck_no_contraction_bound(bad)[0] is None
    assert D.recheck_rank_decay_not_prevented(bad)[0] is None


def test_skip_rank_decay_stays_at_rank_one():
    data, _ = load_counterexample("DONG.skip-lower-bound")
    why, _, numbers = D.recheck_rank_decay_not_prevented(data)
    assert why and numbers == {"ranks": [1] * D.DECAY_LAYERS}


def _reading(cid: str, key: str):
    r = quick_run(cid)
    assert r.error is None, r.error
    return next(rr for rr in r.readings if rr.key == key)


def test_skip_lower_bound_headline_is_conditional_on_gamma_below_one():
    """Review s4 (item 3): "skip connections establish" the bound, so the sentence asserts a gamma < 1 exists; the
    headline holds where it does (the derivation) and fails on an exact rational box around W_V W_O = -4 I: it is
    conditional, computed from the two; the Coq lemma sits on the reading as-stated-conditional (proved)."""
    h = _headline("DONG.skip-lower-bound")
    assert (h.verdict, h.strength) == ("conditional", "exact")
    assert "holds in gamma<1" in h.condition and "fails in no-gamma<1" in h.condition
    d = next(e for e in h.evidence if e.scope == "derivation")
    assert d.holds is True and d.regime == "gamma<1" and d.numbers["checked"] == len(D.SKIP_BOUND_STEPS)
    box = next(e for e in h.evidence if e.scope == "positive-measure")
    assert box.holds is False and box.kind == "exact" and box.label == "robust" and box.regime == "no-gamma<1"
    c = _reading("DONG.skip-lower-bound", "as-stated-conditional")
    assert (c.verdict, c.strength) == ("proved", "formal")
    assert {e.summary.split(" [")[0].rsplit(".", 1)[-1] for e in c.evidence if e.kind == "formal"} >= {
        "skip_lower_bound", "skip_lower_bound_pos"}
    g = _reading("DONG.skip-lower-bound", "gamma-exists")
    assert (g.verdict, g.strength) == ("refuted", "exact")
    assert any(e.scope == "positive-measure" and e.label == "robust" and e.holds is False for e in g.evidence)
    assert any(e.kind == "counterexample" and e.counterexample.endswith("DONG.skip-lower-bound.json")
               for e in g.evidence)


def test_skip_lower_bound_quote_has_the_sentences_lead_in():
    from theorems.framework import REGISTRY
    c = REGISTRY["DONG.skip-lower-bound"]
    assert c.quote.startswith("Dong et al. proved that adding skip connections establishes a strictly positive")


def test_gamma_box_encloses_a_ratio_above_one_and_can_fail():
    """The box's exact enclosure of the squared contraction ratio lies above 1 (about (4/3)^2 = 16/9 at the centre,
    the review's mpmath box [1.312, 1.355] for the ratio); planted: lambda = -2 (ratio 2/3 at the centre) is not
    certified, and the evidence is then undecided, not a failure."""
    r = D.contraction_ratio_box()
    assert 1 < r.lo <= Rational(16, 9) <= r.hi < 2
    ev = D.gamma_box_evidence()
    assert ev.holds is False and 1.30 <= ev.numbers["ratio_lo"] <= 1.3125 and 1.355 <= ev.numbers["ratio_hi"] < 1.37
    assert D.contraction_ratio_box(lam=-2).hi < 1
    assert D.contraction_ratio_box(lam=-3).lo < 1 < D.contraction_ratio_box(lam=-3).hi  # the stored point: ratio 1


def test_gamma_box_evidence_undecided_on_a_box_that_does_not_certify(monkeypatch):
    monkeypatch.setattr(D, "GAMMA_BOX_LAMBDA", -3)
    ev = D.gamma_box_evidence()
    assert ev.holds is None and ev.label is None


def test_skip_lower_bound_derivation_can_fail():
    """Planted: the contraction step with 1 + gamma in place of 1 - gamma is not an identity, and a derivation with it
    holds False (a broken step is evidence against)."""
    from theorems.framework import ProofStep, derivation
    a, b, g = sympy.symbols("a b gamma", nonnegative=True)
    wrong = ProofStep("x", "planted", "identity", lambda: sympy.expand((a - b) - (1 + g) * a - (g * a - b)) == 0)
    assert wrong.check() is False
    assert derivation([*D.SKIP_BOUND_STEPS[:2], wrong, D.SKIP_BOUND_STEPS[3]], "planted").holds is False
    assert all(s.check() is True for s in D.SKIP_BOUND_STEPS + D.WEIGHT_BOUND_STEPS)


def test_skip_stored_point_is_outside_the_sentences_premise():
    """At the stored instance ||R(Attn X)|| / ||R(X)|| = 1 exactly: gamma < 1 fails there, so the point refutes
    'some gamma < 1 always exists', not the conditional."""
    data, _ = load_counterexample("DONG.skip-lower-bound")
    assert D.recheck_gamma_one(data) == 1
    bad = copy.deepcopy(data)
    bad["W_VO"] = [["-2", "0"], ["0", "-2"]]
    assert D.recheck_gamma_one(bad) == Rational(4, 9)


def test_skip_prevents_decay_refuted_in_rho_by_uniform_attention_for_every_depth():
    """Review s4 (item 4): W_QK = 0, W_V W_O = I, X = I_2: rho_l^2 = 1/(4^l + 1) for symbolic l, limit 0, while
    det X^(l) = 2^l keeps rank 2; the headline (Dong's rho) rests on it."""
    h = _headline("DONG.skip-prevents-decay")
    assert (h.verdict, h.strength) == ("refuted", "exact")
    ev = [e for e in h.evidence if e.holds is False]
    assert ev and all(e.kind == "exact" and e.numbers["limit"] == "0" for e in ev)
    decays, numbers = D.uniform_skip_decay()
    l_ = sympy.Symbol("l", integer=True, nonnegative=True)
    assert decays is True and sympy.simplify(sympy.sympify(numbers["rho2"], locals={"l": l_}) - 1 / (4 ** l_ + 1)) == 0
    assert numbers["det"] == "2**l" and numbers["rho2_at_20"] == str(Rational(1, 4 ** 20 + 1))


def test_uniform_skip_decay_can_fail():
    """Planted: W_V W_O = 2 I in place of I breaks the closed form's step, so the evidence is undecided (None), never
    a failure typed in."""
    assert D.uniform_skip_decay(sympy.eye(2) * 2)[0] is None
    assert D.uniform_skip_decay(sympy.eye(2))[0] is True


def test_skip_prevents_decay_exact_rank_reading_is_the_exceptional_point_and_says_so():
    r = _reading("DONG.skip-prevents-decay", "exact-rank")
    assert (r.verdict, r.strength) == ("refuted", "exact")
    ce = [e for e in r.evidence if e.kind == "counterexample"]
    assert ce and all(e.label == "exceptional-point" and "null set of weights" in e.summary for e in ce)


def test_skip_collapse_probe_can_say_persistent(monkeypatch):
    """Planted: perturbations of size 0 leave the collapse in place, so the probe says persistent."""
    data, _ = load_counterexample("DONG.skip-lower-bound")
    assert D.skip_collapse_probe(data)[0] == "exceptional-point"
    monkeypatch.setattr(D, "SKIP_PROBE_SCALE", Rational(0))
    assert D.skip_collapse_probe(data)[0] == "persistent"


def test_skip_lower_bound_weight_bound_reading_is_exact():
    wb = _reading("DONG.skip-lower-bound", "weight-bound")
    assert (wb.verdict, wb.strength) == ("supported", "exact")


def test_skip_exact_softmax_of_the_instance():
    data, _ = load_counterexample("DONG.skip-lower-bound")
    A = exact_softmax(exact_matrix(data["X"], "X"), exact_matrix(data["M0"], "M0"))
    assert A.tolist() == [[Rational(2, 3), Rational(1, 3)], [Rational(1, 3), Rational(2, 3)]]


# --- item 2: RC.alpha-reciprocal -------------------------------------------------------------------------------

def test_alpha_reciprocal_headline_is_reversibility_and_matrix_symmetry_a_reading():
    r = quick_run("RC.alpha-reciprocal")
    assert r.error is None, r.error
    by = {rr.key: (rr.verdict, rr.strength) for rr in r.readings}
    assert by["literal"] == ("supported", "exact")
    assert by["matrix-symmetric"] == ("refuted", "exact")


def test_alpha_reciprocal_detailed_balance_on_the_audits_instance():
    """The suite's own A = A^T counterexample, alpha = 0, X = diag(1, 2), M = log 2 I: A = [[2/3, 1/3], [1/17, 16/17]]
    is not symmetric, but Z = (3, 17) and Z_1 A_12 = 1 = Z_2 A_21 (the audit's reversible.py)."""

    X = Matrix([[1, 0], [0, 2]])
    ok, words = RC.detailed_balance(X * X.T)
    assert ok and "[3/20, 17/20]" in words


def test_alpha_reciprocal_reversibility_can_fail(monkeypatch):
    """Planted: non-symmetric scores break detailed balance (exactly), and a softmax that lies is caught."""

    ok, words = RC.detailed_balance(Matrix([[0, 2], [0, 0]]))
    assert not ok and "Z_1 A_12 = 4 != Z_2 A_21 = 1" in words
    x = {"X": Matrix([[1, 0], [0, 2]]), "M": [Matrix([[1, 0], [0, 1]])]}
    assert RC.attention_reversible(x).value is True
    monkeypatch.setattr(RC.tf, "softmax_rows", lambda base, S: Matrix([[Rational(1, 2)] * 2, [0, 1]]))
    assert RC.attention_reversible(x).value is False


# --- item 3: RW.wu-comparison-rate (re-decided after audit 63) --------------------------------------------------

def test_wu_comparison_headline_is_certified_by_the_metastable_witness():
    """'LN can slow collapse in certain regimes (true for convergence rate)' is existential: one certified witness
    decides it. Same weights and input: without LN rho_l < 2^-52 from layer 7, with LN rho_l > 1/2 at every layer to
    40. The limit exponent is the reading 'asymptotic-exponent' (typical Gaussian weights, float), the one-layer delay
    on the depth study's weights 'crossing-delay'."""
    r = quick_run("RW.wu-comparison-rate")
    assert r.error is None, r.error
    by = {rr.key: (rr.verdict, rr.strength) for rr in r.readings}
    assert by["literal"] == ("certified", "interval")
    assert by["asymptotic-exponent"] == ("unsupported", "float")
    assert by["crossing-delay"] == ("certified", "interval")
    (w,) = [e for e in r.literal.evidence if e.kind == "interval-certified"]
    assert w.holds is True and w.numbers["crossing_without_ln"] == 7 and w.numbers["layers"] == 40
    assert "40" in get("RW.wu-comparison-rate").statement
    (f,) = [e for e in r.literal.evidence if e.kind == "float-evidence"]
    assert f.summary.startswith("typical Gaussian weights")


def test_wu_witness_enclosures_are_the_ones_stated():
    """The arb runs themselves: every LN enclosure lies above 1/2 (the last within 1e-5 of sqrt 3 / 2), and the
    run without LN is certainly below 2^-52 at layer 7 and certainly above it at layer 6."""
    from proofs_numeric.witnesses.dong_collapse import run
    bare, ln = run(W.LN_SLOWS_CFG, "pure_attention"), run(W.LN_SLOWS_CFG, "attention_ln")
    assert [r["rho_below_2^-52"] for r in bare["layers"][6:8]] == [False, True]
    lows = [Decimal(r["rho_enclosure"][0]) for r in ln["layers"]]
    assert len(lows) == 41 and min(lows) > Decimal("0.78")
    lo, hi = (Decimal(x) for x in ln["layers"][-1]["rho_enclosure"])
    assert abs(lo - Decimal(3).sqrt() / 2) < Decimal("1e-5") and hi - lo < Decimal("1e-100")


def test_wu_antipodal_fixed_point_exact():
    """Three tokens at a, one at -a: A X = diag(t) X with t > 0 exactly when e^(6c) > 3, so LN(A X) = X, rho^2 = 3/4;
    planted: c = 0 (uniform attention) makes the lone row's t negative, and the check says not a fixed point."""
    ok, words = W.antipodal_fixed_point(4, 3)
    assert ok and "rho^2 = 3/4" in words
    ok0, words0 = W.antipodal_fixed_point(0, 3)
    assert not ok0 and "every t_i > 0: False" in words0


def test_wu_witness_can_fail(monkeypatch):
    """Planted: a floor above sqrt 3 / 2 is not certified on the LN run, and the witness no longer holds."""
    monkeypatch.setattr(W, "LN_SLOWS_FLOOR", Decimal("0.9"))
    (e,) = W.ln_slows_witness(CheckContext(dps=30, quick=True))
    assert e.holds is None and e.reason


def test_wu_witness_needs_the_crossing(monkeypatch):
    """Planted: if the run without LN never crossed 2^-52 the witness would not hold."""
    real = W.run

    def no_cross(cfg, regime):
        out = dict(real(cfg, regime))
        if regime == "pure_attention":
            out["machine_precision_layer_certified"] = None
        return out
    monkeypatch.setattr(W, "run", no_cross)
    (e,) = W.ln_slows_witness(CheckContext(dps=30, quick=True))
    assert e.holds is None


def test_wu_witness_says_the_fixed_point_is_a_saddle():
    """Review s4 item 1: the fixed point repels the lone token (float64: a factor 1 + 3.2e-6 per layer), so the
    evidence says LN delays the collapse to about a million layers and does not stop it, labels the numbers as
    float, and says the witness is dense attention (the paper names masked and sparse attention)."""
    m = W.saddle_multiplier()
    assert 3.1e-6 < m - 1 < 3.3e-6
    assert abs(W.saddle_multiplier(offset=1e-4) - m) < 1e-8  # the linear regime: the factor does not depend on it
    (e,) = [e for e in W.ln_slows_witness(CheckContext(dps=30, quick=True)) if e.kind == "interval-certified"]
    assert "a saddle (float64 observation, not certified" in e.summary and "1 + 3.20e-06 per layer" in e.summary
    assert "delays the collapse from layer 7 to about a million layers: it does not stop it" in e.summary
    assert "dense, sharp attention" in e.summary and "masked and sparse attention" in e.summary
    assert e.numbers["saddle_multiplier_float64"] == m


def test_wu_saddle_wording_can_fail(monkeypatch):
    """Planted: a contracting multiplier (a stable fixed point) must not be called a saddle."""
    monkeypatch.setattr(W, "saddle_multiplier", lambda *a, **k: 1 - 3.2e-6)
    (e,) = [e for e in W.ln_slows_witness(CheckContext(dps=30, quick=True)) if e.kind == "interval-certified"]
    assert "a saddle" not in e.summary and "not shown unstable" in e.summary


def test_wu_rate_check_can_hold(monkeypatch):
    """Planted: an LN exponent of 2 beside 3 without LN is a slower rate, and the check says so."""
    shape = {"n": 4, "d": 6, "H": 1, "d_k": 6}
    fake = {"ln_study": [(shape, "planted", {"pure_attention": {"exponent": 3.0}, "attention_ln": {"exponent": 2.0}})]}
    monkeypatch.setattr(W, "depth_results", lambda quick: fake)
    (e,) = W.ln_rate_slower(CheckContext(dps=30, quick=True))
    assert e.holds is True


# --- item 4: DONG.qk-norm and DONG.residual-scaling --------------------------------------------------------------

def test_qk_norm_is_conditional_on_a_fixed_scale():
    h = _headline("DONG.qk-norm")
    assert h.verdict == "conditional"
    assert h.condition == "holds in fixed-scale (supported); fails in learned-gain"
    (e,) = [e for e in h.evidence if e.regime == "learned-gain"]
    assert e.holds is False and e.kind == "exact" and e.numbers == {"sup": "1", "margin": "1/(2^l + 1)"}
    assert "exists\\,c<1" in get("DONG.qk-norm").statement
    # review s4: the failing family is a depth family (the sentence is about logits growing with depth)
    assert "max_j A_1j at layer l = 2^l/(2^l + 1)" in e.summary and "g_l^2 = l log 2" in e.summary
    assert "the logits (l log 2) can grow with depth and entropy collapse returns" in e.summary


def test_qk_norm_learned_gain_family_exact():
    """Audit 63: 1024/1025 < 1 alone does not fail 'bounded below 1'; the family does: max_j A_1j = 2^k/(2^k + 1)
    (the 2^k softmax), and for c = 1 - 2^-m the gain k = m already exceeds c, so no c < 1 bounds every gain."""
    peak, k = E.qk_gain_family()
    sup, matches, margin = E.learned_gain_sup(peak, k)
    assert matches and sup == 1 and margin == "1/(2^l + 1)"
    for m in range(1, 30):
        assert peak.subs(k, m) > 1 - Rational(1, 2 ** m)


def test_qk_norm_learned_gain_check_can_hold(monkeypatch):
    """Planted: a softmax that never puts more than half on a token (a bounded family) makes the uniform bound hold;
    the check then says so (and a closed form that disagrees with the softmax is undecided, not a failure)."""
    peak, k = E.qk_gain_family()
    half = peak / 2
    monkeypatch.setattr(E, "qk_gain_family", lambda: (half, k))
    monkeypatch.setattr(E, "exact_softmax", lambda X, M: sympy.Matrix([[half.subs(k, M[0, 0])] * 2] * 2))
    (e,) = E.learned_gain_check(None)
    assert e.holds is True
    monkeypatch.setattr(E, "exact_softmax", lambda X, M: sympy.Matrix([[Rational(1, 3)] * 2] * 2))
    (e,) = E.learned_gain_check(None)
    assert e.holds is None


def test_residual_scaling_is_conditional_on_uncorrelated_branches():
    """The audit's aligned model, exactly: unit-variance branches f_l = x_0 give Var x_L = (1 + sqrt(L/2))^2."""
    h = _headline("DONG.residual-scaling")
    assert h.verdict == "conditional"
    assert h.condition == "holds in uncorrelated-branches (proved); fails in aligned-branches"
    (e,) = [e for e in h.evidence if e.regime == "aligned-branches"]
    L = sympy.Symbol("L", integer=True, positive=True)
    assert sympy.simplify(sympy.sympify(e.numbers["Var_x_L"], locals={"L": L}) - (1 + sympy.sqrt(L / 2)) ** 2) == 0
    assert e.holds is False


def test_aligned_branch_check_can_hold(monkeypatch):
    """Planted: if the aligned variance were bounded (a limit the check reads as finite), the check would hold."""
    monkeypatch.setattr(E.sympy, "limit", lambda *a, **k: sympy.Rational(3, 2))
    assert E.aligned_branch_variance(None)[0].holds is True


# --- item 5: RW.noci-vanishing-gradients ------------------------------------------------------------------------

def test_noci_attribution_is_not_checkable_and_the_mathematics_a_reading():
    """Like the DONG.attr-* attributions: the headline (what Noci et al. showed) is not checkable; the lemma (query
    and key gradients vanish at a collapsed input) decides the reading 'collapsed-input'."""
    r = quick_run("RW.noci-vanishing-gradients")
    assert r.error is None, r.error
    assert r.literal.verdict == "not-checkable" and "attribution" in r.literal.reason
    assert r.reading("collapsed-input").verdict in ("proved", "supported")  # proved with coqc, else the derivation
    assert all(e.holds for e in r.reading("collapsed-input").evidence if e.holds is not None)


def test_alpha_reciprocal_non_symmetric_scores_are_not_reversible():
    """Decided from the scores (exp injective) when the softmax is transcendental (rational, non-integer scores), and
    confirmed on the 2^k softmax when the scores are integers."""
    x = {"X": Matrix([[1, 0], [0, 1]]), "M": [Matrix([[0, Rational(1, 3)], [0, 0]])]}
    d = RC.attention_reversible(x)
    assert d.value is False and "not symmetric" in d.how and "confirmed" not in d.how
    x = {"X": Matrix([[1, 0], [0, 1]]), "M": [Matrix([[0, 2], [0, 0]])]}
    d = RC.attention_reversible(x)
    assert d.value is False and "not symmetric" in d.how and "Z_1 A_12 = 4 != Z_2 A_21 = 1" in d.how


# --- audit 63, lesser items: RC.alpha-reciprocal's names, RN.step2-reformulation's instance, DONG.feedback-step1 ----

def test_alpha_reciprocal_headline_says_it_is_the_suites_interpretation():
    """The headline's key is 'literal' (the framework's name for every headline); its statement and conclusion say
    that reversibility is the suite's interpretation and name the reading of the letter (A = A^T)."""
    c = get("RC.alpha-reciprocal")
    assert "suite's interpretation" in c.statement and "matrix-symmetric" in c.statement
    assert "suite's interpretation" in quick_run("RC.alpha-reciprocal").literal.evidence[0].summary


def test_step2_reformulation_instance_meets_h1_to_h4():
    """Audit 63: X = I breaks H2 (1 is in its row space); X = [[1, 0], [-1, 0]] meets H1-H4 and the two sides of the
    'i.e.' still differ (sigma = (1/2, 1/2) not in col X~ = span (1, -1); X~ 1_d = 0)."""
    from theorems.paper import rank_neutrality as RN
    h = _headline("RN.step2-reformulation")
    assert (h.verdict, h.strength) == ("refuted", "exact")
    (e,) = h.evidence
    assert "H1 holds, H2 holds, H3 holds, H4 holds" in e.summary and e.holds is False
    agree, _ = RN.step2_reformulation_instance(Matrix(RN.STEP2_X))
    assert agree is False


def test_step2_reformulation_instance_outside_the_hypotheses_decides_nothing():
    """Planted: the old X = I (H2 fails) and X = [[1, 0], [2, 0]] (H4 fails: sigma = (1/2, 1) in col X~) are not
    instances inside the theorem's hypotheses, so the check is undecided, not a failure."""
    from theorems.paper import rank_neutrality as RN
    for X in (Matrix([[1, 0], [0, 1]]), Matrix([[1, 0], [2, 0]])):
        agree, words = RN.step2_reformulation_instance(X)
        assert agree is None and "fails" in words


def test_feedback_step1_softmax_instance_exact():
    """A = softmax(log 2 X M0 X^T), M0 = -3, X = (2, 1, -2)^T, W_V = I: a row-stochastic matrix softmax produces, and
    ||R(AX)||_F^2 > ||R(X)||_F^2 = 26/3 exactly."""
    a, b, A = D.softmax_feedback()
    assert b == Rational(26, 3) and a > b and all(sum(A.row(i)) == 1 for i in range(3))
    w = [Rational(2) ** k for k in (-6, -3, 6)]  # row of x = 1: scores -3 * 1 * (2, 1, -2) in units of log 2
    assert list(A.row(1)) == [v / sum(w) for v in w]
    r = quick_run("DONG.feedback-step1")
    assert (r.literal.verdict, r.literal.strength) == ("refuted", "exact")
    assert any("softmax attention layer" in e.summary and e.holds is False for e in r.literal.evidence)


def test_feedback_step1_softmax_check_can_hold(monkeypatch):
    """Planted: M0 = 0 (uniform attention) sends every token to the mean, ||R(AX)|| = 0: the check holds."""
    a, b, _ = D.softmax_feedback(m0=0)
    assert a == 0
    monkeypatch.setattr(D, "softmax_feedback", lambda: (Rational(0), Rational(26, 3), sympy.eye(3)))
    (e,) = D.softmax_feedback_check(None)
    assert e.holds is True


def test_book_states_the_skip_evidence_the_suite_computes():
    """book/index.md quotes the gamma box's enclosure and the uniform-attention closed form: both must enclose / be
    what the suite computes (a planted change of the box or the closed form turns this red)."""
    import re
    from pathlib import Path
    text = (Path(__file__).resolve().parents[2] / "book" / "index.md").read_text()
    m = re.search(r"contraction ratio lies in \[(\d\.\d+), (\d\.\d+)\] > 1", text.replace("\n", " "))
    assert m, "the book no longer states the box's enclosure"
    ev = D.gamma_box_evidence()
    assert float(m.group(1)) <= ev.numbers["ratio_lo"] and ev.numbers["ratio_hi"] <= float(m.group(2))
    assert "ρ_l² = 1/(4^l + 1) → 0" in text and D.uniform_skip_decay()[1]["rho2"] == "1/(2**(2*l) + 1)"


def test_skip_prevents_decay_finite_depth_fails_on_a_box():
    """Review s4 (item 4), robustness: at every point of a box (radius 1e-3) around the uniform-attention instance,
    rho_24 <= 6.33e-8 < 1e-6 (mpmath iv, the (difference, mean) recursion; the centre's exact value is 2^-24 /
    sqrt(1 + 4^-24) = 5.96e-8): the reading finite-depth is refuted on a set of positive measure."""
    r = _reading("DONG.skip-prevents-decay", "finite-depth")
    assert (r.verdict, r.strength) == ("refuted", "interval")
    ev = D.rho_box_evidence()[0]
    assert ev.holds is False and ev.label == "robust" and ev.scope == "positive-measure"
    assert 5.96e-8 < ev.numbers["rho_upper"] < 1e-6
    assert D.two_token_recursion_identity() is True


def test_rho_box_can_fail(monkeypatch):
    """Planted: at depth 5 rho_5 is about 0.03, not below 1e-6, so the box is not certified (undecided); a broken
    recursion identity leaves it undecided too."""
    monkeypatch.setattr(D, "RHO_BOX_DEPTH", 5)
    assert D.rho_box_evidence()[0].holds is None
    monkeypatch.setattr(D, "RHO_BOX_DEPTH", 24)
    assert D.rho_box_evidence()[0].holds is False
    monkeypatch.setattr(D, "two_token_recursion_identity", lambda: False)
    assert D.rho_box_evidence()[0].holds is None


def test_skip_prevents_decay_names_its_measure_token_uniformity_and_the_unscaled_residual_stays():
    """Review s4b: the uniform-attention instance decays in token uniformity (1 - cos = 2 rho^2 -> 0), not in the
    unscaled ||R||_F (= 1 at every layer); the evidence says both, computed. (Planted: the cosine identity checked
    against rho^2 instead of 2 rho^2: the closed form is undecided, red here.)"""
    from theorems.paper.dong_collapse import uniform_skip_decay, uniform_skip_decay_evidence
    decays, numbers = uniform_skip_decay()
    assert decays is True and numbers["one_minus_cos_is_2rho2"] is True and numbers["R_frob2"] == "1"
    words = uniform_skip_decay_evidence()[0].summary
    assert "1 - cos(x_1, x_2) = 2 rho_l^2" in words and "||R^(l)||_F^2 = 1" in words and "does not decay" in words
