"""Rank Contraction (§6) and the design counts."""
from __future__ import annotations

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sympy import Matrix, Rational

from proofs_numeric.core.transformer import Head
from proofs_numeric.witnesses.rank_contraction import alpha, certified_ranks, input_of_rank
from property_tests._search import find_from_scratch
from property_tests.strategies import float_matrices, integer_attention_inputs
from theorems.exact.linalg import rank
from theorems.paper import design_counts as DC
from theorems.paper import rank_contraction as RC

_ALPHA_TOL = 1e-12  # float64 Frobenius norms of O(1) matrices

@given(float_matrices(min_side=1, max_side=5, square=True, max_value=3))
def test_rank_contraction_alpha_in_unit_interval(M):
    a = alpha(M, np.eye(M.shape[0]))
    assert -_ALPHA_TOL <= a <= 1 + _ALPHA_TOL


@given(float_matrices(n=2, min_side=2, max_side=5, max_value=3))
def test_rank_contraction_alpha_at_most_inv_sqrt2_when_dk_is_1(qk):
    q, k = qk[0][:, None], qk[1][:, None]
    assume(np.linalg.norm(q) * np.linalg.norm(k) >= 1e-6)  # alpha is defined for non-zero q, k
    assert alpha(q, k) <= 2 ** -0.5 + _ALPHA_TOL


def test_rank_contraction_prop63_and_attention_rank_certified(counts):
    """dim R_h = min(rank X, d_k) and rank A_h = n, interval-certified on random heads (counted)."""
    @settings(max_examples=15)
    @given(st.tuples(st.integers(2, 6), st.integers(2, 6), st.integers(1, 3), st.integers(1, 3),
                     st.integers(0, 10 ** 6)))
    def prop(shape):
        _prop63_case(shape, counts)
    prop()
    assert counts["dim R_h certified"] >= 0.8 * counts["heads"], dict(counts)
    # identical tokens give identical attention rows: only inputs with distinct tokens count here
    assert counts["rank A_h = n certified"] >= 0.8 * counts["heads with distinct tokens"], dict(counts)


def _prop63_case(shape, counts):
    n, d, H, dk, seed = shape
    rng = np.random.default_rng(seed)
    r = int(rng.integers(1, min(n, d) + 1))
    X = input_of_rank(rng, n, r, d)
    heads = [Head(*(rng.normal(size=s) for s in [(d, dk), (d, dk), (d, dk), (dk, d)])) for _ in range(H)]
    c = certified_ranks(X, heads, dps=60)
    for lo, hi in c["dim_R"]:
        assert lo <= min(c["rank_X"], dk) == hi  # never more than the structural bound
        counts["heads"] += 1
        counts["dim R_h certified"] += lo == hi
    distinct = len({tuple(row) for row in X.tolist()}) == n
    for lo, hi in c["attention_rank"]:
        assert hi == n
        if distinct:
            counts["heads with distinct tokens"] += 1
            counts["rank A_h = n certified"] += lo == n
    lo_m, hi_m = c["rank_mha"]
    lo_s, hi_s = c["dim_sum_R"]
    assert lo_m <= hi_s  # rank MHA <= dim sum R_h


@given(integer_attention_inputs(min_side=2, max_side=5, max_heads=3, max_entry=3))
def test_rank_contraction_rank_of_sum_at_most_dim_of_sum(XWs):
    X, Ws = XWs
    T = RC.uniform_attention_mha_terms(X, Ws)
    assert rank(sum(T[1:], T[0])) <= rank(Matrix.vstack(*T))


def test_rank_contraction_rank_equals_sum_counterexample_from_scratch():
    inst = integer_attention_inputs(n=3, min_side=2, max_side=4, heads=2, max_entry=3)

    def bad(t):
        X, Ws = t
        T = RC.uniform_attention_mha_terms(X, Ws)
        return rank(T[0] + T[1]) < rank(Matrix.vstack(*T))

    found = find_from_scratch(inst, bad)
    assert bad(found)


def test_rank_contraction_vandermonde_attention_is_full_rank():
    for n in range(2, 7):
        A = RC.vandermonde_attention(n)
        assert rank(A) == n and all(sum(A.row(i)) == 1 for i in range(n))


@given(st.integers(1, 4096))
def test_design_counts_share_decreases_with_n(n):
    s = DC.ffn_share().subs(DC.BERT)
    assert s.subs(DC.n, n) > s.subs(DC.n, n + 1)
    assert s.subs(DC.n, n) < Rational(2, 3)


def test_design_counts_bert_figures():
    assert DC.n_range_for_share() == (130, 136)
    assert sum(v.subs(DC.BERT) for v in DC.params().values()) == 7087872
    assert abs(DC.share_at(512) - 0.6) < 1e-12


# --- issue 56: RC.alpha-independent at n = 2, alpha = 1 ---------------------------------------------------------

def test_rank_contraction_alpha_one_two_tokens_instance_is_exact():
    """The audit's instance: X = I_2, scores log 2 [[0, 1], [-1, 0]]: A = [[1/3, 2/3], [1/3, 2/3]], dim R_h = 1 < 2."""
    inst = RC.alpha_one_two_tokens()
    assert inst["alpha"] == 1
    assert inst["A"] == Matrix([[Rational(1, 3), Rational(2, 3)], [Rational(1, 3), Rational(2, 3)]])
    assert (inst["dim_R"], inst["target"]) == (1, 2)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 4), st.lists(st.integers(-3, 3), min_size=24, max_size=24))
def test_rank_contraction_antisymmetric_scores_give_equal_rows_at_n_2(d, xs):
    """Every X (2 x d) and antisymmetric M0: the two rows of softmax(log 2 X M0 X^T) are equal (rank A <= 1)."""
    from theorems.exact.attention import exact_softmax
    X = Matrix(2, d, xs[:2 * d])
    B = Matrix(d, d, (xs * 2)[:d * d])
    A = exact_softmax(X, B - B.T)
    assert A.row(0) == A.row(1) and rank(A) == 1


def test_rank_contraction_alpha_independent_is_conditional_on_n_above_dk():
    """The headline: holds (supported) where the paper's proof assumes n > d_k, fails identically at n = 2 (the
    alpha = 1 slice); the reading with the paper's assumption is supported."""
    from property_tests.paper.quick_runs import quick_run
    r = quick_run("RC.alpha-independent")
    lit = r.reading("literal")
    assert lit.verdict == "conditional", lit.condition
    assert "fails in n=2" in lit.condition and "holds in n>d_k" in lit.condition
    # audit 56, defect 4: between the two (3 <= n <= d_k) it holds too, on exact alpha = 1 instances
    assert "3<=n<=d_k" in lit.condition.split("fails")[0]
    mid = [e for e in lit.evidence if e.regime == "3<=n<=d_k"]
    assert mid and all(e.holds is True and e.kind == "exact" for e in mid)
    decisive = [e for e in lit.evidence if e.regime == "n=2" and e.scope == "positive-measure"]
    assert decisive and all(e.holds is False for e in decisive)
    assert r.reading("as-proved").verdict == "supported"


def test_rank_contraction_alpha_one_identity_can_fail(monkeypatch):
    """A planted bug: if the two rows were not equal (the identity failing), the n = 2 case decides nothing."""
    monkeypatch.setattr(RC, "antisymmetric_scores_identity", lambda: (True, False))
    ev = RC.alpha_one_two_tokens_evidence(RC_QUICK)
    assert ev[0].holds is None and ev[0].scope == "positive-measure"


class _Quick:
    quick = True
    dps = 30


RC_QUICK = _Quick()
