"""Exact computations that the claims run at every site of a real model (issue 59: every RN/RRO/RC/HC/RA claim at
every site, no size refusal), checked against their definitions on small random rationals.

Planted bugs that turn these red (run by hand): ``alpha_of_factors`` without the halving of ``num`` (the factor 1/2
of (||M||^2 - tr(C^2)) / 2): test_alpha_of_factors_is_alpha_of_the_product; ``K^T Q`` replaced by ``Q^T K`` and the
trace of C^T C instead of C C (``C.transpose() * C``): the same test.

Planted for the last three claims moved to FLINT (issue 59; each run by hand, ci profile): the scores with a factor
transposed, (X W_K)(X W_Q)^T (every predicate reads S and S^T alike; the direct comparison of the scores catches it),
the sign of M = -M^T dropped on the factored path, alpha^2 = ||M_s||^2 / ||M||^2 instead of ||M_a||^2 / ||M||^2, and
the block of M^T computed as M's (Q_b K^T twice): test_alpha_form_in_flint_agrees_with_sympy; K's block always the
first rows: test_product_equals_sign_transpose_by_blocks; the mean row of X without the 1/n, and rank(X*) in place of
rank(X* + 1 m): test_wo_choice_in_flint_agrees_with_sympy; RRO.witness-wo-choice's X read with the sympy limit again:
test_alpha_and_wo_choice_take_inputs_beyond_the_old_sympy_limit.
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


# --- RC.alpha-range, RC.alpha-reciprocal and RRO.witness-wo-choice in FLINT (the last three refused by size) -------

_q = st.builds(sympy.Rational, st.integers(-3, 3), st.integers(1, 3))
_int = st.builds(sympy.Integer, st.integers(-2, 2))


def _mat(draw, r: int, c: int, q=_q) -> sympy.Matrix:
    return sympy.Matrix(r, c, lambda i, j: draw(q))


@st.composite
def score_instances(draw):
    """X (n x d) and heads (W_Q, W_K) whose first M = W_Q W_K^T is generic, symmetric (W_K = W_Q), antisymmetric
    (W_K = W_Q J, J the rotation by 90 degrees in pairs of columns, d_k even) or 0, with X generic, of equal rows or
    0."""
    n, d, H = draw(st.integers(1, 4)), draw(st.integers(1, 4)), draw(st.integers(1, 2))
    kind = draw(st.sampled_from(["generic", "symmetric", "antisymmetric", "zero"]))
    k = 2 if kind == "antisymmetric" else draw(st.integers(1, 3))
    q = draw(st.sampled_from([_q, _int]))  # integers: integer scores, confirmed on the 2^k softmax
    heads = [(_mat(draw, d, k, q), _mat(draw, d, k, q)) for _ in range(H)]
    Q = heads[0][0]
    if kind == "symmetric":
        heads[0] = (Q, Q)
    elif kind == "antisymmetric":
        heads[0] = (Q, Q * sympy.Matrix([[0, -1], [1, 0]]))
    elif kind == "zero":
        heads[0] = (sympy.zeros(d, k), heads[0][1])
    xkind = draw(st.sampled_from(["generic", "equal-rows", "zero"]))
    X = _mat(draw, n, d, q) if xkind == "generic" else sympy.Matrix([list(_mat(draw, 1, d, q))] * n) \
        if xkind == "equal-rows" else sympy.zeros(n, d)
    return X, heads


def _alpha_predicates() -> list:
    """Every hypothesis and conclusion the alpha instance form feeds: RC.alpha-range's and RC.alpha-reciprocal's
    (headline and readings), from the registry."""
    from theorems.framework.registry import REGISTRY
    out = []
    for cid in ("RC.alpha-range", "RC.alpha-reciprocal"):
        c = REGISTRY[cid]
        for decl in [c.decl] + [r.decl for r in c.readings if r.decl is not None]:
            out += list(decl.hypotheses.values())
            if decl.conclusion and decl.conclusion[1] is not None:
                out.append(decl.conclusion[1])
    return out


def _same(a, b, name: str) -> None:
    va, vb = (getattr(a, "value", a), getattr(b, "value", b))
    assert va == vb, (name, a, b)
    if name != "_m_nonzero":  # its words name the Gram trace on the factored path
        assert getattr(a, "how", None) == getattr(b, "how", None), (name, a, b)


@settings(max_examples=120)
@given(score_instances())
def test_alpha_form_in_flint_agrees_with_sympy(inst):
    """The factored path (W_Q, W_K as fmpq_mat: alpha^2 from Gram matrices, M = +-M^T by blocks of rows, the scores as
    (X W_Q)(X W_K)^T) gives every predicate of RC.alpha-range and RC.alpha-reciprocal the same value and words as the
    sympy reference on the d x d product M = W_Q W_K^T (what the form built before), on random small rationals."""
    from theorems.exact.linalg import to_fmpq_mat
    from theorems.paper.rank_contraction import ScoreFactors, first_head_scores
    X, heads = inst
    ref = {"X": X, "M": [Q * K.T for Q, K in heads]}
    new = {"X": X, "M": [ScoreFactors(to_fmpq_mat(Q), to_fmpq_mat(K)) for Q, K in heads]}
    assert first_head_scores(new) == X * heads[0][0] * heads[0][1].T * X.T  # the scores themselves, not only their
    # symmetries (a transposed factor gives S^T, which every predicate below reads alike)
    preds = _alpha_predicates()
    assert len(preds) >= 7
    for p in preds:
        _same(p(ref), p(new), p.__name__)


def test_product_equals_sign_transpose_by_blocks():
    """M = +-M^T compared by blocks of rows (block 1 and 2 against one block) agrees with the d x d product."""
    import random

    from theorems.exact.linalg import product_equals_sign_transpose, to_fmpq_mat
    rng = random.Random(59)
    for _ in range(40):
        d, k = rng.randint(1, 5), rng.randint(1, 3)
        Q = sympy.Matrix(d, k, lambda i, j: rng.randint(-2, 2))
        K = [sympy.Matrix(d, k, lambda i, j: rng.randint(-2, 2)), Q, -Q]
        if k == 2:
            K.append(Q * sympy.Matrix([[0, -1], [1, 0]]))
        for Kk in K:
            M = Q * Kk.T
            for sign in (1, -1):
                want = M == sign * M.T
                for block in (1, 2, 256):
                    assert product_equals_sign_transpose(to_fmpq_mat(Q), to_fmpq_mat(Kk), sign, block) == want


@st.composite
def uniform_instances(draw):
    """X (n x d, d >= 2; generic, X* = e_1 f_1^T or of equal rows) and heads (W_V, W_O), W_V sometimes 0."""
    n, d, H, k = draw(st.integers(1, 4)), draw(st.integers(2, 4)), draw(st.integers(1, 2)), draw(st.integers(1, 2))
    xkind = draw(st.sampled_from(["generic", "star", "equal-rows"]))
    if xkind == "star":
        X = sympy.zeros(n, d)
        X[0, 0] = 1
    else:
        X = _mat(draw, n, d) if xkind == "generic" else sympy.Matrix([list(_mat(draw, 1, d))] * n)
    WVs = [_mat(draw, d, k) if draw(st.booleans()) else sympy.zeros(d, k) for _ in range(H)]
    WOs = [_mat(draw, k, d) for _ in range(H)]
    return {"X": X, "W_V": WVs, "W_O": WOs}


@settings(max_examples=120)
@given(uniform_instances())
def test_wo_choice_in_flint_agrees_with_sympy(x):
    """RRO.witness-wo-choice's conclusions, computed from the one row m of MHA(X) = 1 m in FLINT, agree with their
    definitions on the n x d MHA of the sympy transformer (uniform attention, W_Q = 0)."""
    from theorems.exact import transformer as T
    from theorems.exact.linalg import rank
    from theorems.framework.registry import REGISTRY
    from theorems.paper.residual_obstruction import rows_inside, uniform_mha_row
    X = x["X"]
    ref = T.mha(T.SYMPY, X, T.uniform_heads(X.shape[1], x["W_V"], x["W_O"]), scale=1)
    m = uniform_mha_row(X, x["W_V"], x["W_O"])
    assert ref == sympy.ones(X.shape[0], 1) * sympy.Matrix(1, X.shape[1], [sympy.Rational(int(v.p), int(v.q))
                                                                             for v in m.entries()])
    leaves = not rows_inside(X.row(0), ref)
    c = REGISTRY["RRO.witness-wo-choice"]
    assert c.decl.conclusion[1](x) == leaves
    assert c.corrected.decl.conclusion[1](x) == (leaves and rank(X + ref) == 2)


def test_alpha_and_wo_choice_take_inputs_beyond_the_old_sympy_limit(tmp_path, capsys):
    """A 128 x 320 X (40,960 entries, just beyond SYMPY_MAX_ENTRIES = 40,000) with two heads of d_k = 4: RC.alpha-range,
    RC.alpha-reciprocal and RRO.witness-wo-choice (W_Q = 0) are decided, not refused by size (their forms multiply in
    FLINT and read up to RANK_MAX_ENTRIES). Red when a form reads with the sympy limit again."""
    import numpy as np

    from proofs_numeric.cli import main
    from theorems.exact.reader import RANK_MAX_ENTRIES, SYMPY_MAX_ENTRIES
    assert SYMPY_MAX_ENTRIES < 128 * 320 <= RANK_MAX_ENTRIES
    rng = np.random.default_rng(59)
    X, W, W0 = tmp_path / "X.npy", tmp_path / "W.npz", tmp_path / "W0.npz"
    np.save(X, rng.standard_normal((128, 320)))
    Wq, Wk, Wv, Wo = (rng.standard_normal(s) for s in ((2, 320, 4), (2, 320, 4), (2, 320, 4), (2, 4, 320)))
    np.savez(W, W_Q=Wq, W_K=Wk, W_V=Wv, W_O=Wo)
    np.savez(W0, W_Q=0 * Wq, W_K=Wk, W_V=Wv, W_O=Wo)
    for claim, weights, want in (("RC.alpha-range", W, "on this instance: holds"),
                                 ("RC.alpha-reciprocal", W, "on this instance: premise-fails"),
                                 ("RRO.witness-wo-choice", W0, "on this instance: holds")):
        code = main(["check", claim, "--reading", "literal", "--X", str(X), "--weights", str(weights)])
        out, err = capsys.readouterr()
        assert code == 0, (claim, err)
        assert "MAX_ENTRIES" not in out + err and want in out, (claim, out[-2000:])


def test_alpha_form_refuses_scores_beyond_the_machine_with_a_memory_estimate(tmp_path, capsys):
    """The n x n scores are held exactly: n = 1001 (n^2 beyond RANK_MAX_ENTRIES) is refused by name, with its
    memory estimate, before anything is multiplied."""
    import numpy as np

    from proofs_numeric.cli import main
    X, W = tmp_path / "X.npy", tmp_path / "W.npz"
    np.save(X, np.ones((1001, 2)))
    one = np.ones((1, 2, 1))
    np.savez(W, W_Q=one, W_K=one, W_V=one, W_O=np.ones((1, 1, 2)))
    main(["check", "RC.alpha-range", "--reading", "literal", "--X", str(X), "--weights", str(W)])
    out, err = capsys.readouterr()
    assert "1001 x 1001 = 1002001 entries, about 287 MB" in out + err and "RANK_MAX_ENTRIES" in out + err


def test_exact_matrix_fmpq_is_its_sympy_values():
    """ExactMatrix.fmpq (a float array straight to fmpq) holds the same exact values as its sympy Matrix: float64
    with zeros, subnormals and huge values, float32, integers and decimals; and refuses by the same limit."""
    import numpy as np
    import pytest

    from theorems.exact.input import BadInput
    from theorems.exact.linalg import to_fmpq_mat
    from theorems.exact.reader import matrix_from, read_matrix
    rng = np.random.default_rng(7)
    A = rng.standard_normal((5, 7))
    A[0, 0], A[1, 1], A[2, 2], A[3, 3] = 0.0, 5e-324, -1e300, 2.0 ** -1074 * 3
    for a in (A, rng.standard_normal((4, 3)).astype(np.float32), np.arange(12).reshape(3, 4) - 5):
        E = matrix_from(a, "A")
        assert E.fmpq() == to_fmpq_mat(E.sympy())
    E = read_matrix("[[0.1, -2], [1e-3, 7]]")
    assert E.fmpq() == to_fmpq_mat(E.sympy()) and E.fmpq()[0, 0] == sympy.Rational(1, 10)
    with pytest.raises(BadInput, match="up to 11 entries"):
        matrix_from(np.ones((3, 4)), "A").fmpq(11, "this claim")


def test_wo_choice_takes_uniform_weights_with_non_zero_factors_and_a_one_dimensional_model(tmp_path, capsys):
    """Review s6: W_Q W_K^T = 0 is decided on the product (||W_Q W_K^T||_F^2 = tr(W_Q^T W_Q W_K^T W_K), exactly), so
    non-zero factors with a zero product are uniform attention (they were refused as "W_Q W_K^T != 0"); and at d = 1
    the hypothesis (W_O^(1))_{12} != 0 has no entry to read: its premise fails (it raised IndexError, an internal
    error). Red with the factor-only test or the unguarded entry read."""
    import numpy as np

    from proofs_numeric.cli import main
    X, X1, W, W1 = tmp_path / "X.npy", tmp_path / "X1.npy", tmp_path / "W.npz", tmp_path / "W1.npz"
    np.save(X, np.array([[1.0, 0.0], [1.0, 2.0 ** -30]]))
    np.savez(W, W_Q=np.array([[[1.0, 0.0], [0.0, 0.0]]]), W_K=np.array([[[0.0, 1.0], [0.0, 0.0]]]),
             W_V=np.ones((1, 2, 2)), W_O=np.ones((1, 2, 2)))
    np.save(X1, np.array([[1.0], [2.0]]))
    np.savez(W1, W_Q=np.zeros((1, 1, 1)), W_K=np.ones((1, 1, 1)), W_V=np.ones((1, 1, 1)), W_O=np.ones((1, 1, 1)))
    for x, w in ((X, W), (X1, W1)):
        code = main(["check", "RRO.witness-wo-choice", "--reading", "literal", "--X", str(x), "--weights", str(w)])
        out, err = capsys.readouterr()
        assert code == 0 and "on this instance:" in out, (out[-1500:], err[-1500:])
        assert "W_Q W_K^T != 0" not in out + err and "internal error" not in out + err
    assert "premise" in out  # d = 1: no entry (1, 2)
