"""Exact computations that the claims run at every site of a real model (issue 59: every RN/RRO/RC/HC/RA claim at
every site, no size refusal), checked against their definitions on small random rationals.

Planted bugs that turn these red (run by hand): ``alpha_of_factors`` without the halving of ``num`` (the factor 1/2
of (||M||^2 - tr(C^2)) / 2): test_alpha_of_factors_is_alpha_of_the_product; ``K^T Q`` replaced by ``Q^T K`` and the
trace of C^T C instead of C C (``C.transpose() * C``): the same test.
"""
from __future__ import annotations

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from theorems.paper.rank_contraction import alpha_exact, alpha_of_factors


@st.composite
def factors(draw):
    d, k = draw(st.integers(1, 5)), draw(st.integers(1, 4))
    q = st.builds(sympy.Rational, st.integers(-5, 5), st.integers(1, 4))
    return sympy.Matrix(d, k, lambda i, j: draw(q)), sympy.Matrix(d, k, lambda i, j: draw(q))


@settings(max_examples=150)
@given(factors())
def test_alpha_of_factors_is_alpha_of_the_product(QK):
    """alpha(W_Q W_K^T) from the d_k x d_k Gram matrices equals its definition on the d x d product, exactly."""
    Q, K = QK
    assert sympy.simplify(alpha_of_factors(Q, K) - alpha_exact((Q * K.T).tolist())) == 0


def test_alpha_of_factors_extremes():
    """alpha = 1 for an antisymmetric product, 0 for a symmetric one, 0 for M = 0."""
    Q, K = sympy.Matrix([[1], [0]]), sympy.Matrix([[0], [1]])   # M = e1 e2^T: alpha = 1/sqrt 2
    assert alpha_of_factors(Q, K) == sympy.sqrt(2) / 2
    Q2, K2 = sympy.Matrix([[1, 0], [0, 1]]), sympy.Matrix([[0, -1], [1, 0]])  # M = Q K^T = [[0, 1], [-1, 0]]
    assert alpha_of_factors(Q2, K2) == 1
    assert alpha_of_factors(Q2, Q2) == 0
    assert alpha_of_factors(sympy.zeros(3, 2), Q2.col_join(sympy.zeros(1, 2))) == 0


def test_residual_update_claims_take_a_site_sized_instance(tmp_path, capsys):
    """A 128 x 384 X and Delta (49,152 entries, beyond SYMPY_MAX_ENTRIES = 40,000: a MiniLM residual-update site at 128
    tokens) are decided, not refused by size: these forms only add, join and rank (RANK_MAX_ENTRIES). Red when the
    forms read their matrices with the sympy limit again."""
    import numpy as np

    from proofs_numeric.cli import main
    from theorems.exact.reader import RANK_MAX_ENTRIES, SYMPY_MAX_ENTRIES
    assert SYMPY_MAX_ENTRIES < 128 * 384 <= RANK_MAX_ENTRIES
    rng = np.random.default_rng(59)
    X, D = tmp_path / "X.npy", tmp_path / "D.npy"
    np.save(X, rng.standard_normal((128, 384)))
    np.save(D, rng.standard_normal((128, 384)))
    code = main(["check", "RRO.only-increase", "--reading", "literal", "--X", str(X), "--Delta", str(D)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "MAX_ENTRIES" not in out + err
    # the conclusion decided exactly (rank(X + Delta) = 128 = rank X, met modulo p: full rank); genericity is not a
    # property of one instance, so the instance's answer is undecided on that hypothesis, as for any size
    assert "conclusion «rank(X + Delta) >= rank X»: holds" in out and "rank(X + Delta) = 128" in out


def test_rc_generic_wo_takes_a_bert_base_head(tmp_path, capsys):
    """One BERT-base head's W_O is 64 x 768 (49,152 entries, beyond SYMPY_MAX_ENTRIES): RC.generic-wo ranks Y, W_O and
    Y W_O in FLINT only, so it reads up to RANK_MAX_ENTRIES and decides (the every-claim bench on BERT-base found it
    refused by size). Red when the form reads with the sympy limit again."""
    import numpy as np

    from proofs_numeric.cli import main
    rng = np.random.default_rng(64)
    Y, W = tmp_path / "Y.npy", tmp_path / "W.npy"
    np.save(Y, rng.standard_normal((16, 64)))
    np.save(W, rng.standard_normal((64, 768)))
    code = main(["check", "RC.generic-wo", "--X", str(Y), "--W-O", str(W), "--heads", "1"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "MAX_ENTRIES" not in out + err and "on this instance: holds" in out
