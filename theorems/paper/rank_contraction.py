r"""Rank Contraction (Cirrincione 2026, §6): Prop 6.3, the attention rank, rank(MHA) against
dim(R_1 + ... + R_H), the asymmetry index alpha_h, and the d_ff lower bound.

Facts checked here
==================
* :math:`\|M\|_F^2=\|M_s\|_F^2+\|M_a\|_F^2` (the parts are orthogonal), so
  :math:`\alpha_h\in[0,1]`; for :math:`M=qk^\top` (:math:`d_k=1`)
  :math:`\alpha^2=(1-\cos^2\theta)/2\le1/2`: the value 1 needs :math:`d_k\ge2`.
* The paper's "A is a row-stochastic matrix of rank :math:`\min(n,d_k)=d_k` generically" is
  false: :math:`A=D^{-1}\exp(S)` is entrywise exp of a rank-:math:`d_k` matrix, generically of
  rank n. Exact certificate: :math:`S_{ij}=ij\log2` (:math:`d=d_k=1`) gives
  :math:`\exp(S)=[2^{ij}]`, a Vandermonde matrix of rank n.
* :math:`\operatorname{row}(\sum_hT_h)\subseteq\sum_h\operatorname{row}T_h`: rank(MHA) <= dim(sum R_h),
  with equality only generically and only when n is large enough.

Examples
========
>>> alpha_exact([[0, 1], [-1, 0]]), alpha_exact([[1, 2], [2, 1]])
(1, 0)
"""
from __future__ import annotations

import itertools
import math
import random
from dataclasses import replace

import flint
import sympy
from sympy import Matrix, Rational, eye, symbols, zeros

from ..exact import transformer as tf
from ..exact.attention import exact_head, exact_softmax, head_terms
from ..exact.input import BadInput, exact_matrix
from ..exact.instances import Shape, random_int_matrix, regime_of
from ..exact.linalg import (
    nonzero_minor,
    product_equals_sign_transpose,
    product_frobenius_parts,
    rank,
    rank_of_product,
    to_fmpq_mat,
    to_sympy,
)
from ..exact.qinterval import box, mat_mul, minor_certificate, softmax_log2_rows, transpose
from ..exact.reader import RANK_MAX_ENTRIES, SYMPY_MAX_ENTRIES
from ..framework import (
    Decided,
    Evidence,
    FormalGap,
    Generic,
    InstanceForm,
    OffInstance,
    Pool,
    Predicate,
    Reading,
    claim,
    derivation,
    exact_complete,
    exact_instances,
    failing_box,
    identical_failure,
    label_by_boxes,
    labelled_failure,
    not_checkable,
    perturb_value,
    rank_genericity,
    stable_seed,
    symbolic_identity,
)

__all__ = ["alpha_exact", "alpha_of_factors", "ScoreFactors", "first_head_scores", "vandermonde_attention", "uniform_attention_mha_terms", "PROOF_STEPS", "detailed_balance", "attention_reversible"]


def alpha_exact(M) -> sympy.Expr:
    M = exact_matrix(M, "M")
    Ma = (M - M.T) / 2
    num = sum(v ** 2 for v in Ma)
    den = sum(v ** 2 for v in M)
    return sympy.sqrt(num / den) if den else Rational(0)


def alpha_of_factors(WQ, WK) -> sympy.Expr:
    """``alpha_exact(W_Q W_K^T)`` without forming the d x d product: with M = Q K^T, ||M||_F^2 = tr((Q^T Q)(K^T K))
    and <M, M^T> = tr(M M) = tr((K^T Q)^2), so ||(M - M^T)/2||_F^2 = (||M||_F^2 - tr((K^T Q)^2)) / 2; three d_k x d_k
    products over Q (python-flint), exact. At d = 384, d_k = 32 (a MiniLM head): milliseconds, where the d x d
    product in sympy took minutes.

    >>> alpha_of_factors(Matrix([[1], [0]]), Matrix([[0], [1]])), alpha_exact(Matrix([[0, 1], [0, 0]]))
    (sqrt(2)/2, sqrt(2)/2)
    """
    Q, K = (to_fmpq_mat(W if isinstance(W, Matrix) else exact_matrix(W, name)) for W, name in ((WQ, "W_Q"), (WK, "W_K")))
    den, num = product_frobenius_parts(Q, K)
    if den == 0:
        return Rational(0)
    q = num / den
    return sympy.sqrt(Rational(int(q.p), int(q.q)))


class ScoreFactors:
    """The score matrix M = W_Q W_K^T of one head kept as its factors (python-flint ``fmpq_mat``, d x d_k each), so
    that the d x d product is never held whole: alpha^2 from the d_k x d_k Gram matrices
    (:func:`~theorems.exact.linalg.product_frobenius_parts`),
    M = M^T and M = -M^T compared a block of rows at a time (:func:`product_equals_sign_transpose`), M = 0 from
    ||M||_F^2 = tr(Q^T Q K^T K), and the scores X M X^T as (X W_Q)(X W_K)^T. All exact over Q. At a BERT-base head
    (d = 769 with the bias row, d_k = 64) and n = 128: about 0.3 s for M = M^T, 0.2 s for the scores."""

    def __init__(self, Q: flint.fmpq_mat, K: flint.fmpq_mat):
        if (Q.nrows(), Q.ncols()) != (K.nrows(), K.ncols()):
            raise ValueError(f"ScoreFactors: W_Q is {Q.nrows()} x {Q.ncols()}, W_K {K.nrows()} x {K.ncols()}")
        self.Q, self.K = Q, K
        self._parts: tuple[flint.fmpq, flint.fmpq] | None = None
        self._sign: dict[int, bool] = {}
        self._scores: tuple[Matrix, Matrix] | None = None  # (X, X M X^T) of the last X asked (the readings share one)

    def __repr__(self) -> str:
        return f"ScoreFactors(d = {self.Q.nrows()}, d_k = {self.Q.ncols()})"

    @property
    def shape(self) -> tuple[int, int]:
        return self.Q.nrows(), self.Q.nrows()

    def parts(self) -> tuple[flint.fmpq, flint.fmpq]:
        """(||M||_F^2, ||M_a||_F^2), exact."""
        if self._parts is None:
            self._parts = product_frobenius_parts(self.Q, self.K)
        return self._parts

    def equals_sign_transpose(self, sign: int) -> bool:
        """M = sign M^T, exactly (:func:`product_equals_sign_transpose`; kept once computed)."""
        if sign not in self._sign:
            self._sign[sign] = product_equals_sign_transpose(self.Q, self.K, sign)
        return self._sign[sign]

    def scores(self, X: Matrix) -> Matrix:
        """X M X^T = (X W_Q)(X W_K)^T, exactly (FLINT; kept for the last X, which the readings of one site share)."""
        if self._scores is None or self._scores[0] is not X:
            F = to_fmpq_mat(X)
            self._scores = (X, to_sympy((F * self.Q) * (F * self.K).transpose()))
        return self._scores[1]


def vandermonde_attention(n: int = 4) -> Matrix:
    """A = softmax(S) with S_ij = i j log 2 (x_i = i, W_Q W_K^T / sqrt(d_k) = log 2, d = d_k = 1): exact."""
    x = Matrix(range(1, n + 1))
    return tf.softmax_rows(tf.SYMPY_LOG2, x * x.T)  # logits in units of log 2: exp(s) = 2^s


def uniform_attention_mha_terms(X: Matrix, Ws: list[Matrix]) -> list[Matrix]:
    """Per-head terms (J/n) X W_h with W_Q = 0 (uniform attention), exact."""
    if not Ws:
        return []
    return tf.mha(tf.SYMPY, X, tf.uniform_heads(X.shape[1], Ws), scale=1, return_heads=True)[2]


def _step_orthogonal_parts() -> bool:
    M = Matrix(3, 3, lambda i, j: sympy.Symbol(f"m{i}{j}", real=True))
    Ms, Ma = (M + M.T) / 2, (M - M.T) / 2
    return sympy.expand(sum(v ** 2 for v in M) - sum(v ** 2 for v in Ms) - sum(v ** 2 for v in Ma)) == 0


def _step_rank_one_alpha() -> bool:
    q = Matrix(symbols("q0:3", real=True))
    k = Matrix(symbols("k0:3", real=True))
    M = q * k.T
    a2 = sum(v ** 2 for v in (M - M.T) / 2)
    n2 = sum(v ** 2 for v in M)
    # 1/2 n2 - a2 = (q.k)^2 / 2 >= 0
    return sympy.expand(n2 / 2 - a2 - (q.T * k)[0, 0] ** 2 / 2) == 0


def _step_vandermonde() -> bool:
    return rank(vandermonde_attention(4)) == 4 and rank(vandermonde_attention(6)) == 6


def _step_row_of_sum() -> bool:
    T1 = Matrix([[1, 0], [0, 0]])
    T2 = -T1
    return rank(T1 + T2) == 0 and rank(Matrix.vstack(T1, T2)) == 1


def _step_ffn_rank() -> bool:
    G = Matrix(3, 4, lambda i, j: sympy.Symbol(f"g{i}{j}"))
    W2 = Matrix(4, 5, lambda i, j: sympy.Symbol(f"w{i}{j}"))
    # row(G W2) is inside row(W2): (G W2) = G (W2); a concrete low-rank check
    W2c = Matrix([[1, 0, 0, 0, 0], [2, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 2, 0, 0, 0]])
    Gc = Matrix(3, 4, lambda i, j: Rational(i + j + 1))
    return (G * W2).shape == (3, 5) and rank(Gc * W2c) <= rank(W2c) == 2


PROOF_STEPS = [
    (r"\|M\|_F^2=\|M_s\|_F^2+\|M_a\|_F^2", "symmetric and antisymmetric parts are orthogonal", "identity",
     _step_orthogonal_parts),
    (r"M=qk^\top:\ \tfrac12\|M\|_F^2-\|M_a\|_F^2=\tfrac12(q^\top k)^2\ge0", "alpha <= 1/sqrt 2 when d_k = 1",
     "identity", _step_rank_one_alpha),
    (r"\operatorname{rank}\bigl[2^{ij}/\textstyle\sum_k2^{ik}\bigr]_{n\times n}=n", "a softmax attention matrix of full "
     "rank with d_k = 1 (Vandermonde)", "identity", _step_vandermonde),
    (r"\operatorname{row}(T_1+T_2)\subseteq\operatorname{row}T_1+\operatorname{row}T_2,\ \text{strict for }T_2=-T_1",
     "the row space of a sum", "identity", _step_row_of_sum),
    (r"\operatorname{row}(GW_2)\subseteq\operatorname{row}W_2,\ \operatorname{rank}W_2\le d_{\mathrm{ff}}",
     "the FFN output lies in the row space of W_2", "identity", _step_ffn_rank),
]


def _proof(uses, what) -> Evidence:
    return derivation(PROOF_STEPS, what, uses=uses)


def _attention_instance(X: Matrix, Q: Matrix, K: Matrix) -> dict:
    """Softmax attention with W_Q W_K^T / sqrt(d_k) = log 2 Q K^T (d_k = Q's columns), exactly: A = softmax(log 2 S),
    S = X Q K^T X^T an integer matrix."""
    return {"X": X, "Q": Q, "K": K, "d_k": Q.shape[1], "A": exact_softmax(X, Q * K.T)}


def _decode_vandermonde(data) -> dict:
    """The stored instance: x_i (d = 1), W_Q W_K^T / sqrt(d_k) = log 2, so A_ij = 2^(x_i x_j) / sum_k 2^(x_i x_k)."""
    if data.get("W_QK_over_sqrt_dk") != "log(2)":
        raise ValueError("the stored scores must be W_Q W_K^T / sqrt(d_k) = log(2) (exp of them is a power of 2)")
    x = [int(v) for v in data["x"]]
    return _attention_instance(Matrix(x), Matrix([[1]]), Matrix([[1]]))


def _attention_rows(ctx):
    """Per regime, d_k = 1 heads Q = K = e_1 (scores x_i1 x_j1 log 2) over X whose first column has distinct positive
    entries: exp(S) is a generalized Vandermonde matrix, so rank A = n (totally positive)."""
    rng = random.Random(stable_seed("RC.attention-rank:vandermonde per regime"))
    for (n, d) in ((2, 3), (3, 5), (2, 2), (3, 3), (4, 2), (3, 1)):
        for _ in range(1 if ctx.quick else 2):
            X = random_int_matrix(rng, n, d, 2)
            for i, v in enumerate(rng.sample(range(1, 5), n)):
                X[i, 0] = v
            e1 = Matrix([1] + [0] * (d - 1))
            yield regime_of(n, d), "", _attention_instance(X, e1, e1)


def _attention_box(v) -> Evidence | None:
    """rank A = n on a box around (X, Q, K): an n x n minor of softmax(log 2 X Q K^T X^T) certified non-zero at
    every point (exact rational interval arithmetic, 2^s enclosed by rational bounds)."""
    n = v["X"].shape[0]
    for e in (4, 8, 12):
        r = Rational(1, 10 ** e)
        Xb, Qb, Kb = box(v["X"], r), box(v["Q"], r), box(v["K"], r)
        S = mat_mul(mat_mul(mat_mul(Xb, Qb), transpose(Kb)), transpose(Xb))
        cert = minor_certificate(softmax_log2_rows(S), n)
        if cert is not None:
            return failing_box(f"{n}x{v['X'].shape[1]} X, d_k = {v['d_k']}: det A lies in [{float(cert[2].lo):.4g}, "
                               f"{float(cert[2].hi):.4g}] over the box, so rank A = n = {n} > d_k at every point",
                               certified=True, box=f"|X' - X|, |Q' - Q|, |K' - K| <= 1/10^{e} entrywise",
                               arithmetic="exact rational interval arithmetic (theorems.exact.qinterval)", exact=True,
                               regime=regime_of(*v["X"].shape))
    return None


def _describe_attention(v) -> str:
    return (f"{v['X'].shape[0]}x{v['X'].shape[1]} X = {v['X'].tolist()}, d_k = {v['d_k']}, W_Q W_K^T / sqrt(d_k) = "
            f"log 2 Q K^T with Q = {v['Q'].T.tolist()}^T, K = {v['K'].T.tolist()}^T: rank A = {rank(v['A'])}")


#: exact softmax attention with d_k = 1 per regime (the stored Vandermonde instance: d = d_k = 1); the numeric layer
#: adds the certified ranks of random heads
VANDERMONDE = Pool(rows=_attention_rows, arithmetic="exact over QQ (exp(s log 2) = 2^s on integer scores)",
                   decode=_decode_vandermonde, describe=_describe_attention, regime=lambda v: regime_of(*v["X"].shape))
#: the attention rank is generic in (X, W_Q, W_K); a failure with rank A = n > d_k is open: a certified box decides it
ATTENTION_SPACE = Generic(space="(X, W_Q, W_K) in R^{n x d} x R^{d x d_k} x R^{d x d_k} (W_Q W_K^T / sqrt(d_k) = "
                                "log 2 Q K^T)", variables=("X", "Q", "K"), measure="Lebesgue",
                          certify=_attention_box)


def _attention_rank_argument(ctx) -> list[Evidence]:
    """rank A < n forces det exp(S) (real-analytic in X, W_Q, W_K) to vanish; the pool's exact instance of each regime
    has det A != 0."""
    out, seen = [], set()
    assert VANDERMONDE.rows is not None  # a Pool declared with its rows
    for regime, _, v in VANDERMONDE.rows(ctx):
        if regime in seen:
            continue
        seen.add(regime)
        n = v["X"].shape[0]
        out.append(rank_genericity("rank A_h = n for a.e. (X, W_Q, W_K)", P="det exp(X W_Q W_K^T X^T / sqrt(d_k)) "
                                   "(real-analytic)", witness=_describe_attention(v) + f" (det A = {v['A'].det()})",
                                   witness_holds=rank(v["A"]) == n, arithmetic="exact over QQ (2^s softmax)",
                                   analytic=True, regime=regime))
    return out


def _decode_uniform_heads(data) -> dict:
    """The stored instance: X and the heads' W_V W_O, with uniform attention (W_Q = 0), exactly."""
    return {"X": exact_matrix(data["X"], "X"), "W_VO": [exact_matrix(W, "W_VO") for W in data["W_VO"]]}


def _rank_is_dim_sum(v) -> bool:
    """rank MHA(X) = dim(R_1 + ... + R_H)"""
    T = uniform_attention_mha_terms(v["X"], v["W_VO"])
    return rank(sum(T[1:], T[0])) == rank(Matrix.vstack(*T))


def _uniform_heads_rows(ctx):
    """Per regime, two heads with uniform attention (W_Q = 0) and random integer W_V W_O: MHA(X) = (J/n) X (W_1 + W_2)
    has rank <= 1 while R_1 + R_2 = span(xbar W_1, xbar W_2) is generically 2-dimensional."""
    rng = random.Random(stable_seed("RC.rank-equals-sum:uniform heads"))
    for (n, d) in ((2, 3), (3, 5), (2, 2), (3, 3), (4, 2), (5, 3)):
        for _ in range(1 if ctx.quick else 2):
            yield regime_of(n, d), "", {"X": random_int_matrix(rng, n, d, 3),
                                        "W_VO": [random_int_matrix(rng, d, d, 3) for _ in range(2)]}


#: two uniform-attention heads per regime, and the stored instance (the numeric layer adds the certified ranks)
UNIFORM_HEADS = Pool(rows=_uniform_heads_rows, arithmetic="exact over QQ (W_Q = 0: uniform attention)",
                     decode=_decode_uniform_heads,
                     describe=lambda v: f"{v['X'].shape[0]}x{v['X'].shape[1]}, {len(v['W_VO'])} heads with uniform "
                                        "attention", regime=lambda v: regime_of(*v["X"].shape))


def _rank_equals_sum_corrected(ctx) -> list[Evidence]:
    return [_proof((3,), "rank MHA(X) <= dim(R_1 + ... + R_H)")]


def _alpha_range_attained(ctx) -> list[Evidence]:
    anti = alpha_exact([[0, 1], [-1, 0]])
    sym = alpha_exact([[2, 1], [1, 3]])
    return [exact_complete("alpha = 0 for symmetric M and 1 for M = Q J Q^T (rank 2, d_k >= 2): both ends are "
                           "attained exactly", anti == 1 and sym == 0, arithmetic="sympy / QQ"),
            _proof((1,), "alpha <= 1/sqrt 2 when d_k = 1, so alpha = 1 needs d_k >= 2")]


def _dff_necessary(ctx) -> list[Evidence]:
    return [_proof((4,), "d_ff >= d - rank MHA(X) is necessary for the FFN output to span the contracted directions")]


def _dff_bert_values(ctx) -> list[Evidence]:
    out = []
    d, dff = 768, 3072
    for n in (12, 128, 512, 1024):
        bound = d - min(n, d)  # generic rank of MHA(X) for BERT-base (H d_k = d): min(n, d)
        out.append(exact_complete(f"BERT-base, n = {n}: generic contraction d - rank MHA = {bound} <= d_ff = {dff}; "
                                  f"it comes from n < d, not from head specialisation", bound <= dff,
                                  regime=regime_of(n, d),
                                  arithmetic="exact integers (generic rank min(n, d), certified on small shapes)"))
    return out


#: Prop 6.3: the head's weights generic for a fixed X
HEAD_WEIGHTS = Generic(space="the head's weights (W_Q^h, W_K^h, W_V^h, W_O^h) in R^{d x d_k}^3 x R^{d_k x d}, X fixed",
                       measure="Lebesgue on the weights", fixed="X")


def _prop63_argument(ctx) -> list[Evidence]:
    """dim R_h < m = min(rank X, d_k) forces every m-minor of A_h X W_V W_O (real-analytic in the weights) to vanish;
    an exact head (2^s softmax) with dim R_h = m is the witness, per regime."""
    out, seen = [], set()
    assert SUBADDITIVITY.rows is not None  # a Pool declared with its rows
    for regime, _, v in SUBADDITIVITY.rows(ctx):
        r = _ranks(v)
        m = min(rank(v["X"]), v["d_k"])
        if regime in seen or r["rank_T"][0] != m or m == 0:
            continue
        seen.add(regime)
        out.append(rank_genericity("dim R_h = min(rank X, d_k) for a.e. head weights", P="an m-minor of "
                                   "A_h X W_V^h W_O^h, m = min(rank X, d_k) (real-analytic in the weights)",
                                   witness=_describe_heads(v), witness_holds=True, arithmetic=_EXACT, analytic=True,
                                   regime=regime))
    return out



# --- the statements of §6 as predicate objects (theorems.framework.Predicate) -------------------------------------
# Declared once here; this module registers their exact handlers (on the Pools' dict instances: exact 2^k softmax
# heads, uniform attention) at the end of the module, and the numeric layer registers handlers for a user's X and
# softmax heads (certified ranks) on the same objects.
N_GT_DK = Predicate("n > d_k", "more tokens than the head width: n > d_k")
RANK_A_MIN = Predicate("rank A = min(n, d_k)", "the attention matrix has rank min(n, d_k)")
RANK_IS_DIM_SUM = Predicate("rank MHA(X) = dim(R_1 + ... + R_H)")
SUBADDITIVE = Predicate("rank(Y_h W_O^h) <= d_k and rank MHA(X) <= sum_h rank <= H d_k")
SOME_HEAD_NONZERO = Predicate("some head output non-zero", "some head's output Y_h W_O^h is non-zero")
ALPHA_IN_RANGE = Predicate("alpha_MHA in [0, 1]", "the contraction index alpha_MHA lies in [0, 1]")
CONTRACTS = Predicate("alpha_MHA > 0", "the contraction index alpha_MHA is positive (rank contraction)")
SUM_DIMS_DROP = Predicate("dim(R_1 + ... + R_H) < sum_h dim R_h", "the head subspaces R_h are not independent")
DIRECTIONAL = Predicate("directional heads (alpha_h = 1 for every h)", "every head is directional: alpha_h = 1")
FIXED_WV_WO = Predicate("W_V, W_O fixed, alpha_h changed from 0 to 1",
                        "two heads with the same W_V, W_O, one reciprocal (alpha_h = 0), one directional (alpha_h = 1)")
R_H_MOVES = Predicate("R_h moves with alpha_h")
INVERTIBLE_ATTENTION = Predicate("generic head (invertible attention)")
DIM_IS_DK = Predicate("dim R_h = d_k")
RANK_X_GE_DK = Predicate("rank X >= d_k")
WV_GENERIC_RANK = Predicate("rank(X W_V) = min(rank X, d_k)",
                            "rank(X W_V) = min(rank X, d_k) (the premise 'generic W_V' of Prop 6.3, stated algebraically)")
WO_FULL_ROW_RANK = Predicate("rank W_O = d_k", "rank W_O = d_k (the premise 'generic W_O of rank d_k')")
DIM_IS_MIN = Predicate("dim R_h = min(rank X, d_k)",
                       "the first head's R_h = row(Y_h W_O^h) has dimension min(rank X, d_k)")

#: Prop 6.3's instances: X of rank r < d_k and of rank d_k, one exact 2^k softmax head (the rows of RC.dim-dk)
PROP63 = Pool(rows=lambda ctx: itertools.chain(_dim_dk_rows(ctx, False), _dim_dk_rows(ctx, True)),
              arithmetic="exact over QQ (python-flint); softmax scores log 2 X Q K^T X^T, so A is rational",
              describe=lambda v: _describe_heads(v))


# --- Prop 6.3 per deployed block type and with the causal mask (issue 57) --------------------------------------------
# The proof needs rank(A_h M) = rank M. With the causal mask A_h is lower-triangular with a positive diagonal for every
# score matrix (BLOCK.causal-invertible), so that premise holds for every W_Q, W_K, and the rest is polynomial in
# (W_V, W_O). In a pre-norm block the heads see N(X) (LN or RMSNorm): Prop 6.3 holds with X replaced by N(X); RMSNorm
# keeps the rank (N(X) = D^-1 X Gamma), LayerNorm can move it by one (LN(X) = D^-1 X P Gamma + 1 beta^T). A post-LN
# block's heads see the block's input X, unmasked: §6's setting.

#: (n, d, d_k) per regime for the block readings (d != 3: rational LayerNorm rows)
_BLOCK63_SHAPES = {"n<d": [(2, 4, 1), (3, 5, 2)], "n=d": [(4, 4, 2), (2, 2, 1)], "n>d": [(5, 4, 2), (4, 2, 1)]}
_CAUSAL_ARITH = ("exact over QQ: the causal softmax of log 2 * S for a random integer score matrix S (SYMPY_LOG2: "
                 "exp(s log 2) = 2^s), standing for any W_Q, W_K; ranks in python-flint")


def _causal_prop63_rows(ctx, block_type: str | None):
    """(regime, (n, d, d_k), N, A, W_V, W_O, rank of the stream X): the heads' input N (X itself, or the normalised
    rational witness of each rank r), a causal softmax of random integer scores, random integer W_V, W_O."""
    from ..exact import deployed
    rng = random.Random(stable_seed(f"RC.prop63:causal:{block_type}"))
    for regime, shapes in _BLOCK63_SHAPES.items():
        for (n, d, dk) in shapes:
            for r in range(0 if block_type is None else 1, min(n, d) + 1):
                for _ in range(1 if ctx.quick else 3):
                    S = random_int_matrix(rng, n, n, 4)
                    if block_type is None:
                        X = (random_int_matrix(rng, n, r, 2) * random_int_matrix(rng, r, d, 2)) if r else zeros(n, d)
                        if n >= 2 and r >= 1:
                            X[1, :] = X[0, :]  # two equal tokens: the unmasked A is singular for every weight
                        N = X
                    else:
                        X = deployed.stratum_witness(n, d, r, block_type)
                        gamma = [rng.choice([1, 2, -1]) for _ in range(d)]
                        N = Matrix(tf.rms_norm(tf.SYMPY, X, gamma) if block_type == "pre_rms" else
                                   tf.layer_norm(tf.SYMPY, X, gamma, [rng.randint(-2, 2) for _ in range(d)]))
                    A = deployed.causal_attention_facts(S)["A"]
                    yield (regime, (n, d, dk), N, A, random_int_matrix(rng, d, dk, 2), random_int_matrix(rng, dk, d, 2),
                           rank(X))


def causal_prop63_evidence(ctx, block_type: str | None = None, stream: bool = False) -> list[Evidence]:
    """Per regime: under the algebraic premises (rank(N W_V) = min(rank N, d_k), rank W_O = d_k; A_h is not a
    premise), dim R_h = rank(A N W_V W_O) equals min(rank N, d_k) (``stream``: min(rank X, d_k), X the block's own
    input); and the polynomial genericity argument in (W_V, W_O) from the first instance with dim R_h = m > 0."""
    out: list[Evidence] = []
    by: dict[str, list] = {}
    for regime, *rest in _causal_prop63_rows(ctx, block_type):
        by.setdefault(regime, []).append(rest)
    what = {None: "causal mask, X the heads' input", "pre_ln": "pre-LN block, causal: the heads see LN(X)",
            "pre_rms": "pre-RMSNorm block, causal: the heads see RMSNorm(X)"}[block_type]
    for regime, rows in by.items():
        met = held = moved = 0
        first = witness = boxed = None
        for (n, d, dk), N, A, WV, WO, rX in rows:
            rN = rank(N)
            moved += rN != rX
            if rank(N * WV) != min(rN, dk) or rank(WO) != dk:
                continue
            met += 1
            m = min(rX if stream else rN, dk)
            got = rank(A * N * WV * WO)
            n_ = A.shape[0]
            causal_ok = all(A[i, j] == 0 for i in range(n_) for j in range(i + 1, n_)) and all(
                A[i, i] > 0 for i in range(n_))  # lower-triangular, positive diagonal: invertible for every score
            held += got == m and causal_ok
            if not causal_ok and first is None:
                first = f"{n}x{d}: the attention matrix is not lower-triangular with a positive diagonal"
            if got != m and first is None:
                first = f"{n}x{d}, d_k = {dk}, rank X = {rX}, rank N = {rN}: dim R_h = {got}"
            if got > m and boxed is None:
                boxed = _rise_box(A * N, WV, WO, got, f"{what}, {n}x{d}, d_k = {dk}: rank X = {rX}, rank N = {rN}, "
                                  f"dim R_h = {got} > min(rank X, d_k) = {m}", regime)
            if witness is None and got == m > 0:
                witness = (n, d, dk, m, nonzero_minor(N * WV * WO, m), rN)
        target = "min(rank X, d_k) (X the stream)" if stream else "min(rank N, d_k) (N the heads' input)"
        out.append(exact_instances(f"{what}: A_h lower-triangular with a positive diagonal and dim R_h = rank(A_h N W_V "
                                   f"W_O) = {target}, A_h the causal softmax of a random "
                                   f"integer score matrix (any W_Q, W_K){'; two equal tokens in X' if block_type is None else ''}",
                                   met=met, held=held, arithmetic=_CAUSAL_ARITH, regime=regime, first_failure=first,
                                   numbers={"rank_N_differs_from_rank_X": moved, "drawn": len(rows)}))
        if boxed is not None:
            out.append(boxed)
        if witness is not None and (not stream or block_type == "pre_rms"):
            n, d, dk, m, mm, rN = witness
            out.append(rank_genericity(
                f"{what}: dim R_h = min(rank N, d_k) for a.e. (W_V, W_O), every W_Q, W_K",
                P="an m-minor of N W_V W_O, m = min(rank N, d_k) (a polynomial in W_V, W_O: A_h is invertible for "
                  "every score, so it drops out)",
                witness=f"{n}x{d}, d_k = {dk}, rank N = {rN}: minor (rows {mm[0]}, cols {mm[1]}) = {mm[2]}" if mm else
                        "no non-zero minor", witness_holds=mm is not None, arithmetic=_CAUSAL_ARITH, regime=regime))
    return label_by_boxes(out)  # a failing aggregate: robust by its regime's box (drawn at a rise among its failures)


def _rise_box(AN: Matrix, WV: Matrix, WO: Matrix, k: int, what: str, regime: str) -> Evidence | None:
    """dim R_h >= k on a box of (W_V, W_O) around the instance (a k-minor of A N W_V W_O certified non-zero, exact
    rational intervals), the heads' input A N held fixed: a failure of '= min(rank X, d_k)' on positive measure."""
    from ..exact.qinterval import identity
    for e in (3, 6, 9):
        rad = Rational(1, 10 ** e)
        if minor_certificate(mat_mul(mat_mul(identity(AN), box(WV, rad)), box(WO, rad)), k) is not None:
            return failing_box(what, certified=True, box=f"|W_V' - W_V|_max, |W_O' - W_O|_max <= 1/10^{e}",
                               arithmetic="exact rational interval arithmetic (theorems.exact.qinterval)", exact=True,
                               regime=regime)
    return None


def equal_tokens_contrast(ctx) -> list[Evidence]:
    """Two equal tokens: the unmasked softmax has two equal rows (det 0 for every weight: §6's 'A_h invertible' fails
    on that set), the causal one has det = prod of its diagonal > 0."""
    from ..exact import deployed
    X = Matrix([[1, 2], [1, 2], [0, 1]])
    S = X * Matrix([[1, 0], [1, 1]]) * X.T  # scores of a head with W_Q W_K^T = [[1, 0], [1, 1]] (units of log 2)
    un = Matrix(tf.softmax_rows(tf.SYMPY_LOG2, S))
    f = deployed.causal_attention_facts(S)
    return [exact_complete(f"X with two equal tokens, scores (log 2) X W_Q W_K^T X^T: unmasked det A = {un.det()}, "
                           f"causal det A = {f['det']} (> 0): the causal mask removes §6's invertibility premise",
                           un.det() == 0 and f["det"] > 0, arithmetic="exact over QQ (2^s softmax)")]


def _prop63_block_reading(key: str, statement: str, note: str, checks, space: str, gap: FormalGap | None = None) -> Reading:
    return Reading(key, statement, checks=checks, form="generic", regimes=("n<d", "n=d", "n>d"), note=note,
                   generic=Generic(space=space, measure="Lebesgue on (W_V, W_O)",
                                   fixed="X; W_Q, W_K any (universally quantified)"),
                   formal_gap=gap or FormalGap("not-yet-proved", "the causal softmax is invertible for every score "
                                               "(BLOCK.causal-invertible); the rest is the algebraic step of "
                                               "RC.prop63:algebraic-genericity (proved) and the polynomial null-set "
                                               "lemma"),
                   off_instance=OffInstance("positive-measure", "almost every (W_V, W_O) for the given X"))


PROP63_BLOCK_READINGS = [
    _prop63_block_reading("causal-mask",
                          r"A_h=\operatorname{softmax}_{\mathrm{causal}}:\ \forall W_Q,W_K,\ \text{a.e. }(W_V,W_O):\ "
                          r"\dim R_h=\min(\operatorname{rank}X,d_k)",
                          "GPT-2 / LLaMA attention: the premise 'A_h invertible' (generic in §6, false for every weight "
                          "when two tokens are equal) holds for every weight, so Prop 6.3 needs genericity in (W_V, W_O) "
                          "only, and a polynomial (not analytic) null-set lemma",
                          [lambda ctx: causal_prop63_evidence(ctx), equal_tokens_contrast],
                          "(W_V, W_O) in R^{d x d_k} x R^{d_k x d}"),
    _prop63_block_reading("pre-LN-causal",
                          r"\text{pre-LN, causal: }\forall W_Q,W_K,\ \text{a.e. }(W_V,W_O):\ \dim R_h=\min(\operatorname"
                          r"{rank}\mathrm{LN}_1(X),d_k)",
                          "GPT-2's heads see LN_1(X): Prop 6.3 holds with the heads' input; in terms of the stream X it "
                          "can be off by one, since rank LN(X) = rank(D^-1 X P Gamma + 1 beta^T) is rank X - 1, rank X "
                          "or rank X + 1 (the evidence counts the instances where rank LN X != rank X)",
                          [lambda ctx: causal_prop63_evidence(ctx, "pre_ln")],
                          "(W_V, W_O), the norm's gamma, beta fixed"),
    _prop63_block_reading("pre-LN-causal-stream",
                          r"\text{pre-LN, causal: }\forall W_Q,W_K,\ \text{a.e. }(W_V,W_O):\ \dim R_h=\min(\operatorname"
                          r"{rank}X,d_k)\ (X\text{ the stream, as in §2's model})",
                          "Prop 6.3 read with the stream's X in a pre-LN block: LN's beta adds 1 beta^T, so on a "
                          "rank-deficient X the heads' input has rank X + 1 and dim R_h exceeds min(rank X, d_k) on a "
                          "certified box of (W_V, W_O) (X, gamma, beta fixed)",
                          [lambda ctx: causal_prop63_evidence(ctx, "pre_ln", stream=True)],
                          "(W_V, W_O), the norm's gamma, beta fixed",
                          FormalGap("finite-instance", "refuted by certified boxes of (W_V, W_O) around exact "
                                    "instances (X, gamma, beta and the attention fixed): rank LN(X) = rank X + 1 there, "
                                    "and dim R_h = min(rank LN X, d_k) (reading pre-LN-causal)")),
    _prop63_block_reading("pre-RMSNorm-causal",
                          r"\text{pre-RMSNorm, causal: }\forall W_Q,W_K,\ \text{a.e. }(W_V,W_O):\ \dim R_h=\min("
                          r"\operatorname{rank}X,d_k)\ (X\text{ the stream})",
                          "LLaMA's composition: RMSNorm(X) = D^-1 X Gamma keeps the rank (non-zero rows, gamma without "
                          "zero entries), so Prop 6.3 holds with the stream's own X",
                          [lambda ctx: causal_prop63_evidence(ctx, "pre_rms", stream=True)],
                          "(W_V, W_O), the norm's gamma fixed"),
    Reading("post-LN", r"\text{post-LN (unmasked): }\text{a.e. weights: }\dim R_h=\min(\operatorname{rank}X,d_k),\ "
                       r"X\text{ the block's input}",
            checks=[lambda ctx: _prop63_argument(ctx)], form="generic", regimes=("n<d", "n=d", "n>d"),
            note="BERT's heads see the block's input X itself (the LayerNorm follows the residual sum), unmasked: this "
                 "is §6's own setting, decided by the headline's genericity argument; the input of a post-LN block is "
                 "the previous LayerNorm's output (rank <= d - 1 when beta = 0), which Prop 6.3 allows",
            formal_gap=FormalGap("needs-analysis", "as the headline: A_h invertible off the zero set of a real-analytic "
                                 "function of (W_Q, W_K)"),
            off_instance=OffInstance("positive-measure", "almost every head weight for the given X, as the headline")),
]


claim(
    id="RC.prop63", section="§6",
    quote="dim(R_h) = min(rank(X), d_k)",
    depends_on=("RC.generic-wv", "RC.attention-rank", "RC.generic-wo"),
    statement=r"\dim\operatorname{row}(Y_hW_O^h)=\min(\operatorname{rank}X,d_k)\ \text{(generic weights)}",
    regimes=("n<d", "n=d", "n>d"), form="generic", generic=HEAD_WEIGHTS, notion="exact-rank",
    # declared by names: the literal is generic in all of the head's weights, W_Q and W_K included, and PROP63's exact
    # 2^k heads (integer scores) hit the null set of singular attention, which perturbing W_V, W_O cannot leave; a
    # user's instance is decided by the numeric layer's form (DIM_IS_MIN on certified ranks), the ledger by the
    # genericity argument and the certified instances
    hypotheses=(), conclusion=DIM_IS_MIN.name,
    checks=[lambda ctx: _prop63_argument(ctx)],  # + the certified evidence attached by the numeric layer
    readings=[Reading("algebraic-genericity", r"A_h\in GL_n,\ \operatorname{rank}(XW_V^h)=\min(\operatorname{rank}X,d_k),\ "
                                      r"\operatorname{rank}W_O^h=d_k\Rightarrow\dim R_h=\min(\operatorname{rank}X,d_k)",
              checks=[], form="universal",
              hypotheses={INVERTIBLE_ATTENTION.name: INVERTIBLE_ATTENTION, WV_GENERIC_RANK.name: WV_GENERIC_RANK,
                          WO_FULL_ROW_RANK.name: WO_FULL_ROW_RANK}, conclusion=DIM_IS_MIN, instances=PROP63,
              note="the genericity is in the premises (rank(X W_V) = min(rank X, d_k), A_h invertible, "
                              "rank W_O^h = d_k); what is proved under them is the rank-invariance step of the proof, "
                              "not that generic weights meet them (A_h is singular for every weight when two tokens "
                              "are equal)"),
              *PROP63_BLOCK_READINGS],
    chapter="rank_contraction",
    formal_gap=FormalGap("needs-analysis", "generic weights include W_Q, W_K: that A_h is invertible is off the "
                         "zero set of a real-analytic function (RC.attention-rank:corrected), the null-set lemma "
                         "for real-analytic functions; the algebraic step is reading algebraic-genericity "
                         "(proved)"),
)


claim(
    id="RC.attention-rank", section="§6",
    quote="The attention matrix A^(h) is a row-stochastic matrix of rank min(n, d_k) = d_k generically (when n > d_k)",
    statement=r"\operatorname{rank}A_h=\min(n,d_k)\ \text{generically}",
    regimes=("n<d", "n=d", "n>d"), form="generic", generic=ATTENTION_SPACE, notion="exact-rank",
    hypotheses={N_GT_DK.name: N_GT_DK},
    conclusion=(RANK_A_MIN.name, RANK_A_MIN),
    instances=VANDERMONDE,
    counterexamples=("RC.attention-rank",),
    checks=[],
    corrected=Reading("corrected", r"\operatorname{rank}A_h=n\ \text{generically}", checks=[_attention_rank_argument],
             condition="softmax attention is generically invertible; Prop 6.3 survives because it only needs "
                       "left-multiplication by A_h to preserve rank",
             formal_gap=FormalGap("needs-analysis", "rank A_h = n off the zero set of det A_h, a real-analytic "
                                  "function of (X, W_Q, W_K) (softmax of polynomials) that is not identically 0: "
                                  "the null-set lemma for real-analytic functions")),
    chapter="rank_contraction",
)


claim(
    id="RC.rank-equals-sum", section="§6",
    quote="rank(MHA(X)) = dim(sum_{h=1}^H R_h) = dim(R_1 + ... + R_H)",
    statement=r"\operatorname{rank}\mathrm{MHA}(X)=\dim(R_1+\cdots+R_H)",
    regimes=("n<d", "n=d", "n>d"),
    hypotheses={},
    conclusion=RANK_IS_DIM_SUM,
    instances=UNIFORM_HEADS,
    counterexamples=("RC.rank-equals-sum",),
    checks=[],
    notion="exact-rank",
    readings=[Reading("generic-value", r"\operatorname{rank}\mathrm{MHA}(X)=\min(n,\dim\textstyle\sum_hR_h)\ \text{generically}",
              checks=[], form="generic",
              generic=Generic(space="(X, (W_Q^h, W_K^h, W_V^h, W_O^h)_h) in R^{n x d} x weight space",
                              measure="Lebesgue"),
              note="decided on certified random heads (numeric layer); the uniform-attention instances lie on the "
                   "null set W_Q = 0 and are not evidence either way",
                   formal_gap=FormalGap("numerical-only", "the certified rank of MHA(X) on drawn heads against min(n, "
                                                          "dim sum_h R_h)"))],
    corrected=Reading("corrected", r"\operatorname{rank}\mathrm{MHA}(X)\le\dim\textstyle\sum_hR_h",
             checks=[_rank_equals_sum_corrected],
             condition="only an inequality; generically rank MHA = min(n, dim sum R_h), so equality needs n >= dim sum R_h"),
    chapter="rank_contraction",
)


# --- alpha_h on one instance: a user's X and weights (check), seeded rational score matrices (the ledger) ---

def _alpha_sq(M):
    """alpha^2 = ||M_a||_F^2 / ||M||_F^2, a rational (0 when M = 0, the convention x / 0 = 0); ``M`` a Matrix or
    :class:`ScoreFactors` (then from the Gram matrices, the d x d product never formed)."""
    if isinstance(M, ScoreFactors):
        den, num = M.parts()
        q = num / den if den != 0 else flint.fmpq(0)
        return Rational(int(q.p), int(q.q))
    Ma = (M - M.T) / 2
    den = sum(v ** 2 for v in M)
    return sum(v ** 2 for v in Ma) / den if den else Rational(0)


def _equals_sign_transpose(M, sign: int) -> bool:
    """M = M^T (sign 1) or M = -M^T (sign -1), exactly; for :class:`ScoreFactors` a block of rows of the product at
    a time (independent of the Gram matrices that give alpha)."""
    if isinstance(M, ScoreFactors):
        return M.equals_sign_transpose(sign)
    return bool(M == (M.T if sign == 1 else -M.T))


def _alpha_in_unit(x) -> Decided:
    """alpha_h in [0, 1] for every head"""
    a2 = [_alpha_sq(M) for M in x["M"]]
    return Decided(all(0 <= a <= 1 for a in a2), f"exact over Q: alpha_h^2 = {[str(a) for a in a2]} (each in [0, 1] "
                                                 "iff alpha_h is)")


def _alpha_zero(x) -> Decided:
    """alpha_1 = 0 (the first head's M = W_Q W_K^T is symmetric)"""
    a2 = _alpha_sq(x["M"][0])
    return Decided(a2 == 0, f"exact over Q: alpha_1^2 = {a2}")


def first_head_scores(x) -> Matrix:
    """S = X M X^T of the first head, exactly; for :class:`ScoreFactors` as (X W_Q)(X W_K)^T in FLINT (n x d_k
    factors: at n = 128, d = 769, d_k = 64 about 0.2 s, where the sympy product X M X^T took minutes)."""
    M = x["M"][0]
    if isinstance(M, ScoreFactors):
        return M.scores(x["X"])
    return x["X"] * M * x["X"].T


def _attention_symmetric(x) -> Decided:
    """A^(1) = softmax(X M X^T / sqrt d_k) is symmetric"""
    S = first_head_scores(x)
    if S != S.T:
        return Decided(None, "undecided: the scores are not symmetric (the premise alpha_1 = 0 fails)")
    rows = [sorted(S.row(i)) for i in range(S.shape[0])]
    same = all(r == rows[0] for r in rows)
    # S symmetric: A_ij = e^{s_ij} / Z_i and A_ji = e^{s_ij} / Z_j, so A = A^T iff every row sum Z_i is the same;
    # by Lindemann-Weierstrass, sums of exponentials of distinct algebraic numbers are equal iff the multisets of
    # exponents are, so the rows' multisets of scores decide it exactly (the scale 1/sqrt d_k does not matter)
    return Decided(same, "exact (Lindemann-Weierstrass): the scores are symmetric and the rows' multisets of scores "
                         + ("are all equal, so every softmax row sum is the same and A = A^T" if same else
                            "differ, so two softmax row sums differ and A != A^T"))


def _scores_reciprocity(x) -> Decided:
    """alpha_1 = 0 iff M = M^T, and then X M X^T is symmetric"""
    M, S = x["M"][0], first_head_scores(x)
    sym = _equals_sign_transpose(M, 1)
    ok = (_alpha_sq(M) == 0) == sym and (not sym or S == S.T)
    return Decided(ok, f"exact over Q: alpha_1^2 = {_alpha_sq(M)}, M {'=' if sym else '!='} M^T"
                       + (f", X M X^T {'is' if S == S.T else 'is not'} symmetric" if sym else ""))


def _m_nonzero(x) -> Decided:
    """M = W_Q W_K^T of the first head is not 0"""
    M = x["M"][0]
    if isinstance(M, ScoreFactors):  # ||M||_F^2 = tr(Q^T Q K^T K), zero iff M = 0
        return Decided(M.parts()[0] != 0, "exact over Q: ||M||_F^2 = tr(W_Q^T W_Q W_K^T W_K)")
    return Decided(any(v != 0 for v in M), "exact over Q")


def _scores_directional(x) -> Decided:
    """alpha_1 = 1 iff M = -M^T, and then X M X^T is antisymmetric"""
    M, S = x["M"][0], first_head_scores(x)
    anti = _equals_sign_transpose(M, -1)
    ok = (_alpha_sq(M) == 1) == anti and (not anti or S == -S.T)
    return Decided(ok, f"exact over Q: alpha_1^2 = {_alpha_sq(M)}, M {'=' if anti else '!='} -M^T"
                       + (f", X M X^T {'is' if S == -S.T else 'is not'} antisymmetric" if anti else ""))


#: an estimate of the memory of one exact score s_ij of a model site (float64 activations times float32 weights,
#: summed over d: numerators and denominators of a few hundred bits each), for the words of a refusal
_SCORE_BYTES = 300


def _user_scores(user) -> dict:
    Xm = user.matrix("X")  # its shape first: the refusals below need no conversion (review s6)
    W = user.weights
    if W is None:
        raise BadInput("this claim needs weights: --weights W.npz or --heads H [--seed N]")
    if W.d != Xm.shape[1]:
        raise BadInput(f"--weights: d = {W.d} in the weights but X has d = {Xm.shape[1]} columns")
    n = Xm.shape[0]
    if n * n > RANK_MAX_ENTRIES:
        raise BadInput(f"this claim holds the n x n scores X M X^T exactly: {n} x {n} = {n * n} entries, about "
                       f"{n * n * _SCORE_BYTES / 2 ** 20:,.0f} MB at about {_SCORE_BYTES} bytes an entry, beyond "
                       f"RANK_MAX_ENTRIES = {RANK_MAX_ENTRIES}; give at most {math.isqrt(RANK_MAX_ENTRIES)} rows")
    X = Xm.sympy(RANK_MAX_ENTRIES, "this claim")  # multiplied in FLINT, never in sympy
    return {"X": X, "M": [ScoreFactors(h[0].fmpq(RANK_MAX_ENTRIES, "this claim"),
                                       h[1].fmpq(RANK_MAX_ENTRIES, "this claim")) for h in W.heads]}


#: --X and --weights as {X, M = [W_Q^h W_K^h^T kept as its factors]}: alpha_h decided exactly over Q (alpha^2 is
#: rational); X, W_Q and W_K up to RANK_MAX_ENTRIES entries each, the scores up to RANK_MAX_ENTRIES
ALPHA_FORM = InstanceForm(takes=("X", "weights"), build=_user_scores, sites=("attention",),
                          arithmetic="exact over Q (python-flint fmpq_mat): alpha^2 from the d_k x d_k Gram matrices, "
                                     "M = +-M^T a block of rows at a time, the scores (X W_Q)(X W_K)^T; softmax "
                                     "compared exactly by Lindemann-Weierstrass (no exp evaluated)",
                          regime=lambda x: regime_of(*x["X"].shape), note="the first head for the alpha_1 readings")


def _alpha_rows(ctx, shapes, regime=None):
    rng = random.Random(stable_seed(f"RC.alpha instances {shapes} {regime}"))
    for n, d in shapes:
        for kind in ("symmetric", "antisymmetric", "generic", "equal-rows"):
            for _ in range(1 if ctx.quick else 3):
                Q = random_int_matrix(rng, d, 2, 2)
                if kind == "symmetric":
                    M = Q * Q.T
                elif kind == "antisymmetric":
                    M = Q * Matrix([[0, 1], [-1, 0]]) * Q.T
                elif kind == "generic":
                    M = Q * random_int_matrix(rng, d, 2, 2).T
                else:  # symmetric M with a permutation-invariant X M X^T: equal row multisets (A symmetric)
                    M = eye(d)
                X = random_int_matrix(rng, n, d, 3) if kind != "equal-rows" else eye(n)[:, :d] if n >= d else \
                    Matrix(n, d, lambda i, j: 1 if i == j else 0)
                yield (regime or regime_of(n, d)), kind, {"X": X, "M": [M]}


ALPHA_POOL = Pool(rows=lambda ctx: _alpha_rows(ctx, ((2, 3), (3, 3), (4, 3), (2, 2))), arithmetic="exact over Q",
                  instance_from=ALPHA_FORM, regime=lambda x: regime_of(*x["X"].shape))
RECIPROCAL_POOL = Pool(rows=lambda ctx: _alpha_rows(ctx, ((2, 2), (3, 3))), arithmetic="exact over Q (sympy "
                       "rationals), softmax compared by Lindemann-Weierstrass", instance_from=ALPHA_FORM,
                       regime=lambda x: regime_of(*x["X"].shape))
SCORES_POOL = Pool(rows=lambda ctx: _alpha_rows(ctx, ((2, 3), (3, 3), (4, 3)), "all"), arithmetic="exact over Q",
                   instance_from=replace(ALPHA_FORM, regime=lambda x: "all"))


claim(
    id="RC.alpha-range", section="§2, notation",
    quote="α_h^(l) = ‖M_a^(l,h)‖_F/‖M^(l,h)‖_F ∈[0,1]",
    statement=r"\alpha_h=\|M_a\|_F/\|M\|_F\in[0,1]",
    regimes=("n<d", "n=d", "n>d"),
    hypotheses={}, conclusion=("alpha_h in [0, 1]", _alpha_in_unit), instances=ALPHA_POOL,
    checks=[lambda ctx: [_proof((0,), "alpha in [0, 1]")]],
    readings=[Reading("attained", r"d\ge2:\ \bigl(\forall t\in[0,1]\ \exists W_Q,W_K\in\mathbb R^{d\times d_k}:\ "
                                  r"\alpha(W_QW_K^\top)=t\bigr)\iff d_k\ge2",
                      checks=[_alpha_range_attained],
                      note="alpha of the score matrix M = W_Q W_K^T (rank <= d_k; the scale 1/sqrt d_k does not "
                           "change alpha); with the literal (alpha in [0, 1]) it says {alpha_h} = [0, 1] iff d_k >= 2",
                      off_instance=OffInstance("count", "the range of alpha over all W_Q, W_K at given sizes d, d_k: "
                                               "a fact about the sizes, not about one pair of weights"))],
    chapter="rank_contraction",
)


def alpha_one_two_tokens() -> dict:
    """The exact instance of the n = 2, alpha = 1 case: X = I_2, W_Q W_K^T / sqrt(d_k) = log 2 [[0, 1], [-1, 0]]
    (antisymmetric: alpha = 1), W_V = W_O = I_2 (d = d_k = 2). Both softmax rows are (1/3, 2/3)."""
    X, M0 = eye(2), Matrix([[0, 1], [-1, 0]])
    A = exact_softmax(X, M0)
    T = A * X * eye(2) * eye(2)
    return {"X": X, "M0": M0, "A": A, "alpha": alpha_exact(M0), "dim_R": rank(T), "rank_X": rank(X), "d_k": 2,
            "target": min(rank(X), 2)}


def antisymmetric_scores_identity() -> tuple[bool, bool]:
    """(S = X (B - B^T) X^T is antisymmetric for every size, as a matrix expression of symbolic size; the two rows of
    softmax([[0, m], [-m, 0]]) are equal for every real m, a sympy identity)."""
    nn, dd = symbols("n d", positive=True, integer=True)
    X, B = sympy.MatrixSymbol("X", nn, dd), sympy.MatrixSymbol("B", dd, dd)
    S = X * (B - B.T) * X.T
    anti = symbolic_identity(S.T, -S, "(X (B - B^T) X^T)^T = -X (B - B^T) X^T")
    m = sympy.Symbol("m", real=True)
    E = Matrix([[0, m], [-m, 0]]).applyfunc(sympy.exp)
    rows = [E.row(i) / sum(E.row(i)) for i in range(2)]
    return anti.holds is True and anti.scope == "general", \
        all(sympy.simplify(a - b) == 0 for a, b in zip(rows[0], rows[1]))


def _alpha_one_rows(ctx):
    """Random integer X (2 x d, d = 2, 3, 4) and random integer antisymmetric M0 (d_k = d >= 2): the n = 2, alpha = 1
    case, exactly (logits in units of log 2)."""
    rng = random.Random(stable_seed("RC.alpha-independent:n = 2, alpha = 1"))
    for _ in range(4 if ctx.quick else 12):
        d = rng.choice((2, 3, 4))
        X = random_int_matrix(rng, 2, d, 3)
        B = random_int_matrix(rng, d, d, 2)
        M0 = B - B.T
        if M0 == zeros(d, d):
            continue
        WV, WO = random_int_matrix(rng, d, d, 3), random_int_matrix(rng, d, d, 3)
        yield X, M0, WV, WO


def _alpha_one_mid_rows(ctx):
    """Random integer X (n x d with 3 <= n <= d = d_k in {3, 4, 5}) and random integer antisymmetric M0: alpha = 1
    between the two-token case and the proof's n > d_k, exactly (logits in units of log 2; audit 56, defect 4)."""
    rng = random.Random(stable_seed("RC.alpha-independent:3 <= n <= d_k, alpha = 1"))
    for _ in range(4 if ctx.quick else 12):
        d = rng.choice((3, 4, 5))
        n = rng.randint(3, d)
        X = random_int_matrix(rng, n, d, 3)
        B = random_int_matrix(rng, d, d, 1)
        M0 = B - B.T
        if M0 == zeros(d, d):
            continue
        WV, WO = random_int_matrix(rng, d, d, 3), random_int_matrix(rng, d, d, 3)
        yield X, M0, WV, WO


def alpha_one_mid_evidence(ctx) -> list[Evidence]:
    """3 <= n <= d_k at alpha = 1: exact instances (the regime the proof's n > d_k and the n = 2 failure leave)."""
    met = held = skipped = 0
    for X, M0, WV, WO in _alpha_one_mid_rows(ctx):
        target = min(rank(X), X.shape[1])
        if rank(X * WV * WO) < target:  # the weights' own null set (W_V W_O loses rank on X): not about alpha
            skipped += 1
            continue
        A = exact_softmax(X, M0)
        if A.det() == 0:  # det A is analytic in X and not identically 0 here (it is at n = 2): a null set, skipped
            skipped += 1
            continue
        met += 1
        held += rank(A * X * WV * WO) == target
    return [exact_instances("3 <= n <= d_k, random integer X and antisymmetric M0 (alpha = 1, d_k = d in {3, 4, 5}), "
                            "random integer W_V, W_O with rank(X W_V W_O) = min(rank X, d_k) and det A != 0 (" +
                            str(skipped) + " draws in those null sets skipped; integer points meet them, e.g. det A = "
                            "0 at a 4 x 5 X with entries in [-2, 2]): dim R_h = min(rank X, d_k)", met=met, held=held,
                            arithmetic=_EXACT, regime="3<=n<=d_k")]


def alpha_one_two_tokens_evidence(ctx) -> list[Evidence]:
    """n = 2, alpha = 1: the scores are antisymmetric, both softmax rows are equal for every X and every weight, so
    rank A = 1 and dim R_h <= 1 < min(rank X, d_k) = 2 on the whole alpha = 1 slice (d_k >= 2, rank X = 2)."""
    anti, equal_rows = antisymmetric_scores_identity()
    ident = identical_failure("n = 2, alpha_h = 1 (W_Q W_K^T antisymmetric, d_k >= 2): S = X M X^T is antisymmetric "
                              "(symbolic size), and both rows of softmax([[0, m], [-m, 0]]) are (1, e^m) / (1 + e^m) "
                              "for every real m, so rank A = 1 and dim R_h <= 1 < 2 = min(rank X, d_k) for every X "
                              "of rank 2 and every weight", identity_holds=anti and equal_rows, regime="n=2",
                              numbers={"antisymmetric_scores": anti, "equal_rows": equal_rows})
    inst = alpha_one_two_tokens()
    point = exact_complete(f"X = I_2, W_Q W_K^T / sqrt(d_k) = log 2 [[0, 1], [-1, 0]] (alpha = {inst['alpha']}), "
                           f"W_V = W_O = I_2: A = {inst['A'].tolist()}, dim R_h = {inst['dim_R']} < min(rank X, d_k) "
                           f"= {inst['target']}", inst["dim_R"] == inst["target"], regime="n=2", arithmetic=_EXACT,
                           numbers={"A": [[str(x) for x in row] for row in inst["A"].tolist()],
                                    "dim_R": inst["dim_R"]})
    out = [ident]
    if point.holds is False and ident.holds is False:
        out.append(labelled_failure(point, ident))
    met = held = 0
    for X, M0, WV, WO in _alpha_one_rows(ctx):
        if rank(X) < 2:
            continue
        A = exact_softmax(X, M0)
        met += 1
        held += rank(A * X * WV * WO) == min(rank(X), X.shape[1])
    draws = exact_instances("n = 2, random integer X of rank 2 and antisymmetric M0 (alpha = 1, d_k = d in {2, 3, 4}),"
                            " random integer W_V, W_O: dim R_h = min(rank X, d_k)", met=met, held=held,
                            arithmetic=_EXACT, regime="n=2")
    if draws.holds is False and ident.holds is False:
        draws = labelled_failure(draws, ident)
    out.append(draws)
    return out


claim(
    id="RC.alpha-independent", section="§6",
    quote="Since alpha_h affects only A^(h), and A^(h) does not appear in the rank formula, the result is "
          "independent of alpha_h [§6.1, after Prop 6.3:] Proposition 6.3 shows that head specialisation does "
          "not reduce the dimension of individual head output subspaces",
    depends_on=("RC.prop63",),
    statement=r"\dim R_h=\min(\operatorname{rank}X,d_k)\ \text{for every }\alpha_h",
    # the paper's proof assumes n > d_k (Prop 6.3's "A is of rank min(n, d_k) = d_k when n > d_k"); the sentence does
    # not, and at n = 2 (so n <= d_k whenever alpha = 1 is possible) it fails on the whole alpha = 1 slice
    regimes=("n>d_k", "3<=n<=d_k", "n=2"), form="generic", notion="exact-rank",
    generic=Generic(space="the head's weights with a given asymmetry alpha_h (for each alpha_h), and X", measure="Lebesgue",
                    fixed="alpha_h"),
    hypotheses=(), conclusion="",
    checks=[alpha_one_two_tokens_evidence, alpha_one_mid_evidence],  # + the certified evidence (n > d_k): numeric layer
    readings=[Reading("as-proved", r"n>d_k:\ \dim R_h=\min(\operatorname{rank}X,d_k)\ \text{for every }\alpha_h",
                      checks=[], regimes=("n>d_k",),
                      note="the assumption n > d_k the paper's proof makes (the registered sentence does not); "
                           "decided on certified random heads with n > d_k at alpha = 0, 1/2, 1 (numeric layer)",
                      formal_gap=FormalGap("numerical-only", "dim R_h of certified random heads with n > d_k at "
                                           "alpha = 0, 1/2, 1 (the numeric layer's certified ranks)"))],
    chapter="rank_contraction",
    formal_gap=FormalGap("numerical-only", "dim R_h measured on heads drawn at each asymmetry alpha_h (the numeric layer's certified "
                         "ranks); its algebraic core, dim R_h = min(rank X, d_k) whatever A_h, is "
                         "RC.prop63:algebraic-genericity (proved), which does not name alpha_h"),
)


claim(
    id="RC.alignment", section="§6",
    quote="When heads are directional (high α_h^(l)), their output subspaces R_h tend to become aligned",
    statement=r"\alpha_h\uparrow\Rightarrow\text{principal angles between }R_h\text{ shrink}",
    regimes=("n<d", "n=d", "n>d"),
    hypotheses=(), conclusion="",
    checks=[],  # the certified evidence is attached by the numeric layer
    readings=[Reading("trained-model", r"\text{MiniLM: }\alpha_h\uparrow\Rightarrow\text{alignment}\uparrow", checks=[], note='',
                      off_instance=OffInstance("empirical", "a correlation across MiniLM's heads, not a predicate on one site"))],
    chapter="rank_contraction",
    notion="numerical-rank: dim R_h from an SVD at tolerance 1e-10 (float64 principal angles)",
    off_instance=OffInstance("empirical", "'tend to become aligned': a tendency across trained heads, not a predicate on one head"),
)


claim(
    id="RC.dff-lower-bound", section="§1 contribution 7 (the theorem is in §6, truncated)",
    quote="the MLP must expand exactly the directions the heads contracted. This gives the first "
                            "principled lower bound on d_ff",
    depends_on=("RC.specialisation-contraction",),
    statement=r"d_{\mathrm{ff}}\ge d-\operatorname{rank}\mathrm{MHA}(X)\ \text{(plausible reading; §6 truncated)}",
    regimes=("n<d", "n=d", "n>d"),
    hypotheses=(), conclusion="",
    checks=[lambda ctx: [not_checkable("the theorem's statement is truncated in the available text (§6 stops); "
                                 "checked under the readings below")]],
    readings=[Reading("necessary-rank", r"\operatorname{row}\mathrm{FFN}(Z)\subseteq\operatorname{row}W_2\Rightarrow"
                                r"\text{spanning }k\text{ missing directions needs }d_{\mathrm{ff}}\ge k",
              checks=[_dff_necessary],
                      off_instance=OffInstance("inference", "the step from row FFN(Z) in row W_2 to d_ff >= k")),
      Reading("bert-values", r"d-\operatorname{rank}\mathrm{MHA}(X)\le d_{\mathrm{ff}}=3072\ \text{(BERT-base, generic)}",
              checks=[_dff_bert_values],
              off_instance=OffInstance("count", "d - rank MHA(X) against BERT-base's d_ff = 3072"))],
    chapter="rank_contraction",
    notion="exact-rank",
    off_instance=OffInstance("undefined", "the theorem is in §6, which is truncated: the suite's plausible reading only"),
)


# --- further sentences of the paper (coverage) ---


_EXACT = "exact over QQ (python-flint); softmax scores log 2 X Q K^T X^T, so A is rational"


def ranks_of_heads(X, heads) -> dict:
    T = head_terms(X, heads)
    mha = sum(T[1:], T[0])
    return {"T": T, "rank_T": [rank(t) for t in T], "rank_mha": rank(mha), "dim_sum": rank(Matrix.vstack(*T))}


#: edges first (n = 2, d_k = 1, H = 1), then n < d, n = d, n > d
EDGE_SHAPES = [Shape(n=2, d=2, H=1, d_k=1), Shape(n=2, d=3, H=2, d_k=1), Shape(n=2, d=4, H=2, d_k=2),
               Shape(n=3, d=3, H=3, d_k=1), Shape(n=4, d=4, H=2, d_k=2), Shape(n=5, d=4, H=2, d_k=2),
               Shape(n=6, d=3, H=3, d_k=1), Shape(n=3, d=6, H=3, d_k=2)]


def _heads_rows(ctx, seed: str, edge: bool):
    """Random integer X and exact softmax heads over EDGE_SHAPES (``edge``: W_V = 0 in one head on the first trial)."""
    rng = random.Random(stable_seed(seed))
    for (n, d, H, dk) in EDGE_SHAPES:
        for trial in range(2 if ctx.quick else 5):
            X = random_int_matrix(rng, n, d, 2)
            heads = [exact_head(rng, d, dk) for _ in range(H)]
            if edge and trial == 0:
                heads[0] = (heads[0][0], zeros(d, dk), heads[0][2])  # an edge: W_V = 0 in one head
            yield regime_of(n, d), ("W_V = 0 in one head" if edge and trial == 0 else "generic heads") if edge else "", \
                {"X": X, "heads": heads, "d_k": dk}


def _ranks(v) -> dict:
    """ranks_of_heads of an instance (computed once per instance)."""
    if "ranks" not in v:
        v["ranks"] = ranks_of_heads(v["X"], v["heads"])
    return v["ranks"]


def _describe_heads(v) -> str:
    r = _ranks(v)
    return (f"{v['X'].shape[0]}x{v['X'].shape[1]}, H = {len(v['heads'])}, d_k = {v['d_k']}: rank T_h = {r['rank_T']}, "
            f"rank MHA = {r['rank_mha']}, dim sum R_h = {r['dim_sum']}")


def _subadditive(v) -> bool:
    """rank(Y_h W_O^h) <= d_k and rank MHA(X) <= sum_h rank <= H d_k"""
    r, dk = _ranks(v), v["d_k"]
    return all(t <= dk for t in r["rank_T"]) and r["rank_mha"] <= sum(r["rank_T"]) <= len(v["heads"]) * dk


def _alpha_mha_of(v):
    r = _ranks(v)
    return alpha_mha_exact(r["rank_mha"], r["rank_T"])


#: random integer X with exact softmax heads over EDGE_SHAPES (edges n = 2, d_k = 1, H = 1, W_V = 0)
SUBADDITIVITY = Pool(rows=lambda ctx: _heads_rows(ctx, "RC.subadditivity:heads", True), arithmetic=_EXACT,
                     describe=_describe_heads)
ALPHA_MHA = Pool(rows=lambda ctx: _heads_rows(ctx, "RC.alpha-mha:range", False), arithmetic=_EXACT,
                 describe=_describe_heads)


def _bert_hdk(ctx) -> list[Evidence]:
    return [exact_complete("BERT-base: H d_k = 12 * 64 = 768 = d_model", 12 * 64 == 768, arithmetic="integers")]


claim(
    id="RC.subadditivity", section="§6.1",
    quote="Each summand Y^(h) W_O^(h) has rank ≤ d_k. By subadditivity, rank(MHA(X)) ≤ H d_k = d_model",
    statement=r"\operatorname{rank}(Y_hW_O^h)\le d_k,\ \operatorname{rank}\mathrm{MHA}(X)\le Hd_k",
    hypotheses={}, conclusion=SUBADDITIVE, instances=SUBADDITIVITY, regimes=("n<d", "n=d", "n>d"),
    checks=[lambda ctx: [_proof((3,), "row(sum T_h) within sum row(T_h)")]],
    readings=[Reading("H-d_k-equals-d_model", r"Hd_k=d_{\mathrm{model}}\ \text{(BERT-base)}", checks=[_bert_hdk],
                      regimes=("all",), form="concrete",
                      note="a convention of BERT-like models (d_k = d / H), not a consequence of subadditivity",
                      off_instance=OffInstance("count", "H d_k = d_model at BERT-base's sizes"))],
    chapter="rank_contraction",
    notion="exact-rank",
)


def alpha_mha_exact(rank_mha: int, head_ranks: list[int]):
    """alpha_MHA = 1 - rank MHA / (H max_h rank(Y_h W_O^h)), exactly; None when every head output is 0 (0/0)."""
    m = max(head_ranks)
    return None if m == 0 else 1 - Rational(rank_mha, len(head_ranks) * m)


def _alpha_mha_undefined(ctx) -> list[Evidence]:
    rng = random.Random(stable_seed("RC.alpha-mha:undefined"))
    X = random_int_matrix(rng, 3, 3, 2)
    heads = [(M0, zeros(3, 1), WO) for (M0, _, WO) in (exact_head(rng, 3, 1) for _ in range(2))]
    r = ranks_of_heads(X, heads)
    a = alpha_mha_exact(r["rank_mha"], r["rank_T"])
    return [exact_complete("W_V = 0 in every head (H = 2, d_k = 1): every Y_h W_O^h = 0, alpha_MHA = 1 - 0/0 is "
                            "undefined" if a is None else f"alpha_MHA = {a} is defined", a is not None,
                            arithmetic=_EXACT)]


def _no_alignment_instance(ctx):
    """n = 2 < H d_k = 4 = d: independent head subspaces (no alignment) and yet alpha_MHA = 1/2."""
    rng = random.Random(stable_seed("RC.contraction-mechanism:instance"))
    for _ in range(20):
        X = random_int_matrix(rng, 2, 4, 2)
        heads = [exact_head(rng, 4, 2) for _ in range(2)]
        r = ranks_of_heads(X, heads)
        if rank(X) == 2 and r["rank_T"] == [2, 2] and r["dim_sum"] == 4:
            return X, heads, r
    return None


def _alpha_mha_alignment(ctx) -> list[Evidence]:
    got = _no_alignment_instance(ctx)
    if got is None:
        return [exact_complete("no instance with independent head subspaces found", None, arithmetic=_EXACT,
                                reason="the search found no instance")]
    X, heads, r = got
    a = alpha_mha_exact(r["rank_mha"], r["rank_T"])
    return [exact_complete(f"n = 2, d = 4, H = 2, d_k = 2, generic heads: dim R_h = {r['rank_T']}, dim(R_1 + R_2) = "
                            f"{r['dim_sum']} (independent: no alignment), yet rank MHA = {r['rank_mha']} and alpha_MHA "
                            f"= {a}", a == 0, arithmetic=_EXACT, regime="n<d")]


claim(
    id="RC.alpha-mha", section="§6.1 (definition of alpha_MHA)",
    quote=r"\alpha_{\mathrm{MHA}}=1-\frac{\operatorname{rank}(\operatorname{MHA}(X))}{H\cdot\max_{h}\operatorname{rank}(Y^{(h)}W_{O}^{(h)})}",
    statement=r"0\le\alpha_{\mathrm{MHA}}\le1\ \text{whenever some }Y_hW_O^h\neq0",
    hypotheses={SOME_HEAD_NONZERO.name: SOME_HEAD_NONZERO},
    conclusion=(ALPHA_IN_RANGE.name, ALPHA_IN_RANGE), instances=ALPHA_MHA,
    regimes=("n<d", "n=d", "n>d"),
    checks=[lambda ctx: [_proof((3,), "rank MHA <= sum_h rank <= H max_h rank")]],
    readings=[Reading("defined-everywhere", r"\alpha_{\mathrm{MHA}}\ \text{is defined for every }X,W",
                      checks=[_alpha_mha_undefined], regimes=("all",), note="the edge W_V = 0 (or X = 0): 0/0"),
              Reading("zero-without-alignment", r"\dim\textstyle\sum_hR_h=\sum_h\dim R_h\Rightarrow\alpha_{\mathrm{MHA}}=0",
                      checks=[_alpha_mha_alignment], regimes=("n<d",),
                      note="what the index would need to measure head alignment; n < H d_k alone makes it positive")],
    chapter="rank_contraction",
    notion="exact-rank",
)


def _generic_wv_rows(ctx, degenerate: bool):
    rng = random.Random(stable_seed(f"RC.generic-wv:{degenerate}"))
    for regime, shapes in {"n<d": [(2, 4), (3, 6)], "n=d": [(3, 3), (5, 5)], "n>d": [(6, 4), (5, 2)]}.items():
        for (n, d) in shapes:
            for dk in sorted({1, 2, d}):
                for _ in range(2 if ctx.quick else 5):
                    r = rng.randint(1, min(n, d))
                    X = random_int_matrix(rng, n, r, 3) * random_int_matrix(rng, r, d, 3)
                    if degenerate:  # rank-1 W_V (none drawn when d_k = 1: the edge needs d_k >= 2)
                        WV = random_int_matrix(rng, d, 1, 9) * random_int_matrix(rng, 1, dk, 9) if dk >= 2 else None
                    else:
                        WV = random_int_matrix(rng, d, dk, 50)
                    yield regime, "", {"X": X, "W_V": WV, "d_k": dk, "generic": not degenerate}


def _wv_rank(v) -> bool:
    """rank(X W_V) = min(rank X, d_k)"""
    return rank_of_product(v["X"], v["W_V"]) == min(rank(v["X"]), v["d_k"])


def _one_head(user, who: str):
    W = user.weights
    if W is None:
        raise BadInput(f"{who} needs weights: --weights W.npz or --heads 1 [--weights-seed N]")
    if W.H != 1:
        raise BadInput(f"{who} is a statement about one head; the weights have H = {W.H} (give one head)")
    return W.heads[0]


def _wv_from_user(user) -> dict:
    """--X and one head's W_V: {X, W_V, d_k, generic}; genericity is not decided on one given W_V."""
    X = user.matrix("X").sympy(RANK_MAX_ENTRIES, "RC.generic-wv")  # ranked, minors taken, products in FLINT
    h = _one_head(user, "RC.generic-wv")
    if h[2].shape[0] != X.shape[1]:
        raise BadInput(f"--weights: d = {h[2].shape[0]} in the weights but X has d = {X.shape[1]} columns")
    return {"X": X, "W_V": h[2].sympy(RANK_MAX_ENTRIES, "RC.generic-wv"), "d_k": h[2].shape[1], "generic": None}


def _generic_wv(v) -> bool | Decided:
    """W_V is generic (outside a null set: the seeded instances mark the W_V drawn from a wide range)"""
    if v["generic"] is None:
        return Decided(None, "undecided: genericity is a property of almost every W_V, not decidable on one given W_V")
    return v["generic"] is True


_WV_FORM = InstanceForm(takes=("X", "weights"), build=_wv_from_user, arithmetic="exact over QQ (python-flint)",
                        sites=("attention",),
                        explain=lambda v, name: f"rank X = {rank(v['X'])}, d_k = {v['d_k']}, rank(X W_V) = "
                                                f"{rank_of_product(v['X'], v['W_V'])}")
#: rank-r integer X with W_V random in [-50, 50] (generic), and with a rank-1 W_V (the edge), d_k = 1, 2, d
GENERIC_WV = Pool(rows=lambda ctx: _generic_wv_rows(ctx, False), arithmetic="exact over QQ (python-flint)",
                  instance_from=_WV_FORM)
RANK_ONE_WV = Pool(rows=lambda ctx: _generic_wv_rows(ctx, True), arithmetic="exact over QQ (python-flint)",
                   instance_from=_WV_FORM)


def _wv_witness(v) -> Decided:
    """L, R, W* with p(W_V) = det(L X W_V R), p(W*) != 0: W*'s first m = min(rank X, d_k) columns are the transposes
    of m independent rows x_i of X (L selects those rows, R the first m columns), so p(W*) = det(X_L X_L^T) != 0; and
    rank(X W_V) < m forces p(W_V) = 0: the bad set lies in the proper algebraic set {p = 0} (nowhere dense)"""
    X, dk = v["X"], v["d_k"]
    r = rank(X)
    m = min(r, dk)
    if m == 0:
        return Decided(True, "exact: min(rank X, d_k) = 0, so no W_V has rank(X W_V) != 0 (the bad set is empty)")
    got = nonzero_minor(X, r, exact=False)  # its rows only (the value is not used)
    assert got is not None  # r = rank X
    rows = got[0][:m]
    XL = to_fmpq_mat(X.extract(rows, list(range(X.shape[1]))))
    p = (XL * XL.transpose()).det()  # (X W*)[L, :m] = X_L X_L^T, in FLINT (the sympy product: minutes at 128 x 384)
    return Decided(p != 0, f"exact over Q: rank X = {r}, d_k = {dk}, m = {m}; W* = [x_i^T for i in "
                           f"{[i + 1 for i in rows]}, then zeros]: p(W*) = det(X_L X_L^T) = {p}")


def _wv_argument(ctx) -> list[Evidence]:
    """rank(X W_V) < m = min(rank X, d_k) forces every m-minor of X W_V (a polynomial in W_V) to vanish; the first
    drawn W_V of each regime is the witness."""
    out, seen = [], set()
    assert GENERIC_WV.rows is not None  # a Pool declared with its rows
    for regime, _, v in GENERIC_WV.rows(ctx):
        m = min(rank(v["X"]), v["d_k"])
        got = nonzero_minor(v["X"] * v["W_V"], m) if m else None
        if regime in seen or got is None:
            continue
        seen.add(regime)
        out.append(rank_genericity("rank(X W_V) = min(rank X, d_k) for a.e. W_V", P=f"the {m}-minor (rows {got[0]}, "
                                   f"cols {got[1]}) of X W_V", witness=f"the first drawn {v['X'].shape[0]}x"
                                   f"{v['X'].shape[1]} X (rank {rank(v['X'])}), d_k = {v['d_k']}: minor = {got[2]}",
                                   witness_holds=True, arithmetic="exact over QQ (python-flint)", regime=regime))
    return out


claim(
    id="RC.generic-wv", section="§6.1, proof of Prop 6.3",
    quote="For generic W_V^(h): rank(X W_V^(h)) = min(rank(X), d_k)",
    statement=r"W_V\ \text{generic}\Rightarrow\operatorname{rank}(XW_V)=\min(\operatorname{rank}X,d_k)",
    # genericity is not decidable on one instance: the Pool marks the W_V it draws from a wide range
    hypotheses={"generic W_V": _generic_wv}, conclusion=_wv_rank, instances=GENERIC_WV,
    regimes=("n<d", "n=d", "n>d"), form="generic", notion="exact-rank",
    generic=Generic(space="W_V in R^{d x d_k} (X fixed)", variables=("W_V",), measure="Lebesgue", fixed="X"),
    checks=[lambda ctx: _wv_argument(ctx)],
    readings=[Reading("every-W_V", r"\forall W_V:\ \operatorname{rank}(XW_V)=\min(\operatorname{rank}X,d_k)",
                      hypotheses={"d_k >= 2": lambda v: v["d_k"] >= 2, "rank X >= 2": lambda v: rank(v["X"]) >= 2},
                      conclusion=_wv_rank, instances=RANK_ONE_WV, form="universal",
                      note="the edge: a rank-deficient W_V"),
              Reading("algebraic-genericity",
                      r"\exists L,R,W^\star:\ p(W_V)=\det(LXW_VR),\ p(W^\star)\neq0,\ \{W_V:\operatorname{rank}(XW_V)"
                      r"\neq\min(\operatorname{rank}X,d_k)\}\subseteq\{p=0\}",
                      checks=[], form="universal", hypotheses={}, conclusion=_wv_witness, instances=GENERIC_WV,
                      note="'generic W_V' read algebraically: the bad set lies in the zero set of a non-zero "
                           "polynomial in W_V; that this zero set is Lebesgue-null (the literal's 'generic') is "
                           "proved on its own (theorems/formal/null_set_mx.v)"),
              Reading("nowhere-dense",
                      r"\{W_V:\operatorname{rank}(XW_V)\neq\min(\operatorname{rank}X,d_k)\}\ \text{is nowhere dense in }"
                      r"\mathbb R^{d\times d_k}",
                      checks=[], form="universal", hypotheses={}, conclusion=_wv_witness, instances=GENERIC_WV,
                      note="'generic' read topologically: the bad set lies in the zero set of a polynomial that is "
                           "non-zero at a witness, which is closed with empty interior, so the bad set is nowhere "
                           "dense (its closure has empty interior). Nowhere dense is not null: the literal's Lebesgue "
                           "'almost every' is proved on its own (theorems/formal/null_set_mx.v)")],
    chapter="rank_contraction",
)


def wo_preserves_rank(Y: Matrix, WO: Matrix) -> bool:
    return rank_of_product(Y, WO) == rank(Y)


def _generic_wo_rows(ctx):
    """W_O random or [I | 0]; Y of every rank r <= min(n, d_k) (a W_O of rank < d_k is paired with Y = 0 only)."""
    rng = random.Random(stable_seed("RC.generic-wo"))
    for (n, dk, d) in ((2, 1, 1), (2, 1, 3), (3, 2, 2), (4, 2, 5), (5, 3, 4), (2, 3, 3)):
        for structured in (False, True):
            WO = (eye(dk).row_join(zeros(dk, d - dk)) if structured else random_int_matrix(rng, dk, d, 5))
            if rank(WO) != dk:
                yield "all", "", {"Y": zeros(n, dk), "W_O": WO}
                continue
            for r in range(0, min(n, dk) + 1):
                Y = (random_int_matrix(rng, n, r, 3) * random_int_matrix(rng, r, dk, 3)) if r else zeros(n, dk)
                yield "all", "", {"Y": Y, "W_O": WO}


def _y_wo_from_user(user) -> dict:
    """--X as Y (n x d_k) and --W-O with --heads 1 (d_k x d): {Y, W_O}."""
    Y, W = user.matrix("X"), user.matrix("W_O")
    H, _ = user.heads_of_W_O()
    if H != 1:
        raise BadInput(f"RC.generic-wo is about one head's W_O (d_k x d): give --heads 1 (got --heads {H})")
    if Y.shape[1] != W.shape[0]:
        raise BadInput(f"--X (as Y) has {Y.shape[1]} columns but W_O has {W.shape[0]} rows (Y is n x d_k, W_O d_k x d)")
    return {"Y": Y.sympy(RANK_MAX_ENTRIES, "RC.generic-wo"), "W_O": W.sympy(RANK_MAX_ENTRIES, "RC.generic-wo")}  # ranked only


#: W_O (random, and [I | 0]; d_k = d and d_k = 1 included) with Y of every rank
GENERIC_WO = Pool(rows=_generic_wo_rows, arithmetic="exact over QQ (python-flint)", instance_from=InstanceForm(
    takes=("X", "W_O"), build=_y_wo_from_user, arithmetic="exact over QQ (python-flint)", sites=("head-output",),
    note="--X is Y (one head's output, n x d_k)",
    explain=lambda v, name: f"rank Y = {rank(v['Y'])}, rank W_O = {rank(v['W_O'])} (d_k = {v['W_O'].shape[0]}), "
                            f"rank(Y W_O) = {rank_of_product(v['Y'], v['W_O'])}"))


def _step_right_inverse() -> bool:
    WO = Matrix([[1, 2, 0], [0, 1, 1]])
    Rinv = WO.T * (WO * WO.T).inv()
    return WO * Rinv == eye(2)


claim(
    id="RC.generic-wo", section="§6.1, proof of Prop 6.3",
    quote="For generic W_O^(h) of rank d_k, right-multiplication also preserves rank",
    statement=r"\operatorname{rank}W_O=d_k\Rightarrow\operatorname{rank}(YW_O)=\operatorname{rank}Y\ \forall Y",
    hypotheses={"rank W_O = d_k": lambda v: rank(v["W_O"]) == v["W_O"].shape[0]},
    conclusion=("rank(Y W_O) = rank Y", lambda v: wo_preserves_rank(v["Y"], v["W_O"])), instances=GENERIC_WO,
    regimes=("all",),
    checks=[lambda ctx: [derivation([(r"W_OW_O^\top(W_OW_O^\top)^{-1}=I", "full row rank W_O has a right inverse, "
                                      "so Y -> Y W_O is injective", "lemma", _step_right_inverse)],
                                    "rank(Y W_O) = rank Y when rank W_O = d_k")]],
    chapter="rank_contraction",
    notion="exact-rank",
)


def _decode_orientation(data) -> dict:
    X = exact_matrix(data["X"], "X")
    WV, WO = exact_matrix(data["W_V"], "W_V"), exact_matrix(data["W_O"], "W_O")
    Ms, Ma = exact_matrix(data["M0_symmetric"], "M0"), exact_matrix(data["M0_antisymmetric"], "M0")
    return {"X": X, "heads": [(Ms, WV, WO), (Ma, WV, WO)], "d_k": WV.shape[1]}


def _R_h_moves(v) -> bool:
    """R_h moves with alpha_h"""
    T1, T2 = head_terms(v["X"], v["heads"])
    return not rank(T1) == rank(T2) == rank(Matrix.vstack(T1, T2))


def _describe_stored_heads(v) -> str:
    alphas = [alpha_exact(M0) for M0, _, _ in v["heads"]]
    return f"{v['X'].shape[0]}x{v['X'].shape[1]}, alpha_h = {alphas}: " + _describe_heads(v).split(": ", 1)[1] \
        + f", alpha_MHA = {_alpha_mha_of(v)}"


def _stored_heads_pool(decode) -> Pool:
    return Pool(rows=None, arithmetic=_EXACT, decode=decode, describe=_describe_stored_heads,
                regime=lambda v: regime_of(*v["X"].shape))


def _step_invertible_rows() -> bool:
    A = Matrix([[2, 1], [1, 1]])
    Y = Matrix([[1, 2, 3], [0, 1, 1]])
    return rank(Matrix.vstack(A * Y, Y)) == rank(Y) == rank(A * Y)


claim(
    id="RC.orientation", section="§6.1, after Prop 6.3",
    quote="What specialisation changes is the orientation of R_h: directional and reciprocal heads write into "
          "equally-sized subspaces, but in different directions",
    depends_on=("RC.prop63",),
    statement=r"\alpha_h\ \text{changes (via }W_Q,W_K)\Rightarrow R_h=\operatorname{row}(A_hXW_V^hW_O^h)\ \text{changes}",
    hypotheses={FIXED_WV_WO.name: FIXED_WV_WO},
    conclusion=R_H_MOVES, instances=_stored_heads_pool(_decode_orientation), counterexamples=("RC.orientation",),
    regimes=("n<d", "n=d", "n>d"),
    checks=[lambda ctx: [derivation([(r"A\ \text{invertible}\Rightarrow\operatorname{row}(AY)=\operatorname{row}Y",
                                      "left-multiplication by an invertible matrix keeps the row space", "lemma",
                                      _step_invertible_rows)], "'R_h = row(X W_V W_O) does not depend on alpha_h when "
                                      "A_h is invertible (generic)'", concludes=False)]],
    chapter="rank_contraction",
    notion="exact-rank",
)


def _stored_heads(data) -> list:
    """Heads stored as parallel lists M0[h], W_V[h], W_O[h]."""
    return [(exact_matrix(M0, "M0"), exact_matrix(V, "W_V"), exact_matrix(O, "W_O"))
            for M0, V, O in zip(data["M0"], data["W_V"], data["W_O"], strict=True)]


def _decode_heads(data) -> dict:
    heads = _stored_heads(data)
    return {"X": exact_matrix(data["X"], "X"), "heads": heads, "d_k": heads[0][1].shape[1]}


def _contracts(v) -> bool:
    a = _alpha_mha_of(v)
    return a is not None and a > 0


claim(
    id="RC.contraction-mechanism", section="§6.1, after Prop 6.3",
    quote="Rank contraction of MHA(X) = sum_h Y^(h) W_O^(h) therefore arises from subspace alignment (the R_h "
          "become parallel) rather than from dimensional reduction of individual subspaces",
    depends_on=("RC.prop63", "RC.rank-equals-sum"),
    statement=r"\alpha_{\mathrm{MHA}}>0\Rightarrow\dim\textstyle\sum_hR_h<\sum_h\dim R_h",
    hypotheses={CONTRACTS.name: CONTRACTS},
    conclusion=(SUM_DIMS_DROP.name, SUM_DIMS_DROP),
    instances=_stored_heads_pool(_decode_heads), counterexamples=("RC.contraction-mechanism",),
    regimes=("n<d", "n=d", "n>d"),
    chapter="rank_contraction",
    notion="exact-rank",
)


claim(
    id="RC.specialisation-contraction", section="§1 contribution 7 (§6)",
    quote="head specialisation causes rank contraction in MHA(X)",
    depends_on=("RC.contraction-mechanism", "RC.alignment"),
    statement=r"\alpha_h=1\ \forall h\Rightarrow\alpha_{\mathrm{MHA}}>0",
    hypotheses={DIRECTIONAL.name: DIRECTIONAL},
    conclusion=("rank contraction (alpha_MHA > 0)", CONTRACTS), instances=_stored_heads_pool(_decode_heads),
    counterexamples=("RC.specialisation-contraction",), regimes=("n<d", "n=d", "n>d"),
    readings=[Reading("first-principled-bound", r"\text{'the first principled lower bound on }d_{\mathrm{ff}}\text{'}",
                      checks=[lambda ctx: [not_checkable("'first' is a claim about the literature, and the bound "
                                                         "itself (§6, truncated) is RC.dff-lower-bound")]],
                      off_instance=OffInstance("literature", "a priority claim about the literature on d_ff"))],
    chapter="rank_contraction",
    notion="exact-rank",
)


def _reciprocal_literal(ctx) -> list[Evidence]:
    X, M0 = Matrix([[1, 0], [0, 2]]), eye(2)  # M0 = Q Q^T with Q = I: alpha = 0
    A = exact_softmax(X, M0)
    return [exact_complete(f"alpha = {alpha_exact(M0)} (M = log 2 I), X = diag(1, 2): A = {A.tolist()}, A_12 = "
                            f"{A[0, 1]} vs A_21 = {A[1, 0]}: the attention matrix is not symmetric", A == A.T,
                            arithmetic="exact (2^k softmax)", regime="n=d")]


def scores_symmetry(sign: int):
    def check(ctx):
        nn, dd = symbols("n d", integer=True, positive=True)
        X = sympy.MatrixSymbol("X", nn, dd)
        B = sympy.MatrixSymbol("B", dd, dd)
        # every symmetric (antisymmetric) M, up to the factor 1/2; sign 0: an arbitrary M (a test input)
        M = B + B.T if sign > 0 else (B - B.T if sign < 0 else B)
        S = X * M * X.T
        return [symbolic_identity(S.T, S if sign >= 0 else -S,
                                  "alpha = 0 (M = M^T) gives symmetric scores S = X M X^T" if sign > 0 else
                                  "alpha = 1 (M = -M^T) gives antisymmetric scores: s_ji = -s_ij, s_ii = 0")]
    return check


def detailed_balance(S: Matrix) -> tuple[bool, str]:
    """A = softmax(log 2 * S) row-wise for an integer score matrix S, exactly (2^k softmax): with Z_i = sum_k 2^(s_ik)
    and pi = Z / sum Z, check Z_i A_ij = Z_j A_ji for every i, j and pi A = pi (A reversible with respect to pi)."""
    A = tf.softmax_rows(tf.SYMPY_LOG2, S)
    n = S.shape[0]
    Z = [sum(Rational(2) ** S[i, k] for k in range(n)) for i in range(n)]
    bad = next(((i, j) for i in range(n) for j in range(i + 1, n) if Z[i] * A[i, j] != Z[j] * A[j, i]), None)
    tot = sum(Z)
    pi = Matrix(1, n, [z / tot for z in Z])
    stationary = pi * A == pi
    if bad is not None:
        i, j = bad
        return False, (f"Z_{i + 1} A_{i + 1}{j + 1} = {Z[i] * A[i, j]} != Z_{j + 1} A_{j + 1}{i + 1} = "
                       f"{Z[j] * A[j, i]}")
    return stationary, (f"Z_i A_ij = Z_j A_ji for all i, j and pi A = pi with pi = Z / sum Z = {pi.tolist()[0]}"
                        if stationary else "detailed balance holds but pi A != pi")


def attention_reversible(x) -> Decided:
    """A^(1) is reversible (reciprocal): Z_i A_ij = Z_j A_ji with Z_i = sum_k e^{s_ik / sqrt d_k}"""
    S = first_head_scores(x)
    # Z_i A_ij = e^{s_ij / sqrt d_k} by the definition of the softmax, so detailed balance holds iff s_ij = s_ji
    # (exp is injective on the reals): decided exactly over Q from the scores, no exp evaluated
    sym = S == S.T
    how = ("exact over Q: Z_i A_ij = e^{s_ij / sqrt d_k} (softmax), and the scores X M X^T are "
           + ("symmetric, so Z_i A_ij = Z_j A_ji: A is reversible with respect to pi = Z / sum Z" if sym else
              "not symmetric, so some Z_i A_ij != Z_j A_ji (exp is injective)"))
    if all(v.is_integer for v in S) and max((abs(v) for v in S), default=0) <= 64:
        ok, words = detailed_balance(S)  # confirmed on the softmax itself, logits in units of log 2 (2^k softmax)
        if ok != sym:
            return Decided(False, f"exact (2^k softmax): the computed softmax disagrees with the scores: {words}")
        how += f"; confirmed on A = softmax(log 2 * X M X^T), exactly: {words}"
    return Decided(sym, how)


def _step_softmax_detailed_balance():
    """Z_i A_ij = e^{s_ij} for the softmax, hence Z_i A_ij = Z_j A_ji when s is symmetric (3 x 3, symbolic s)."""
    s = sympy.Matrix(3, 3, lambda i, j: sympy.Symbol(f"s{min(i, j)}{max(i, j)}", real=True))
    E = s.applyfunc(sympy.exp)
    Z = [sum(E.row(i)) for i in range(3)]
    A = sympy.Matrix(3, 3, lambda i, j: E[i, j] / Z[i])
    return all(sympy.simplify(Z[i] * A[i, j] - Z[j] * A[j, i]) == 0 for i in range(3) for j in range(3))


def _step_symmetric_scores():
    """M = M^T gives symmetric scores X M X^T (3 x 2 X, symbolic entries)"""
    X = sympy.Matrix(3, 2, sympy.symbols("x0:6"))
    a, b, c = sympy.symbols("a b c")
    S = X * Matrix([[a, b], [b, c]]) * X.T
    return sympy.expand(S - S.T) == sympy.zeros(3, 3)


def _reversible_derivation(ctx) -> list[Evidence]:
    return [derivation([(r"\alpha_h=0\iff M=M^\top\Rightarrow S=XMX^\top=S^\top",
                         "alpha = 0 is a symmetric score matrix, hence symmetric scores", "identity",
                         _step_symmetric_scores),
                        (r"Z_iA_{ij}=e^{s_{ij}}=e^{s_{ji}}=Z_jA_{ji}",
                         "the softmax of symmetric scores satisfies detailed balance with pi_i = Z_i: A is "
                         "reversible, i.e. reciprocal", "identity", _step_softmax_detailed_balance)],
                       "'alpha_h = 0 gives reciprocal (reversible) attention'")]


claim(
    id="RC.alpha-reciprocal", section="§2, notation",
    quote="A head with α_h ≈ 0 is reciprocal (symmetric attention); a head with α_h ≈ 1 is purely directional",
    # audit 56 (item 2): alpha is defined on the score matrix M = W_Q W_K^T, and 'reciprocal (symmetric attention)'
    # says that i attends to j as j attends to i: symmetric scores, which make the row-normalised A reversible
    # (Z_i A_ij = Z_j A_ji, a reciprocal Markov chain). The literal A = A^T, which row normalisation breaks unless
    # every row has the same multiset of scores, is the reading 'matrix-symmetric' (refuted)
    # audit 63: the headline's key is 'literal' (the framework's name for every headline), but this is the suite's
    # interpretation of the sentence, which its statement and conclusion say; the letter of 'symmetric attention'
    # (A = A^T) is 'matrix-symmetric'
    statement=r"\alpha_h=0\Rightarrow Z_iA_{ij}=Z_jA_{ji}\ (Z_i=\textstyle\sum_ke^{s_{ik}/\sqrt{d_k}}):\ A^{(h)}"
              r"\ \text{reversible (reciprocal; the suite's interpretation of 'symmetric attention', whose letter }"
              r"A=A^\top\text{ is the reading matrix-symmetric)}",
    hypotheses={"alpha_h = 0": _alpha_zero},
    conclusion=("reversible (reciprocal) attention, the suite's interpretation", attention_reversible),
    instances=SCORES_POOL, regimes=("all",), form="universal",
    checks=[_reversible_derivation],
    readings=[Reading("matrix-symmetric", r"\alpha_h=0\Rightarrow A^{(h)}=A^{(h)\top}",
                      checks=[_reciprocal_literal], regimes=("n=d",),
                      hypotheses={"alpha_h = 0": _alpha_zero},
                      conclusion=("symmetric attention matrix", _attention_symmetric), instances=RECIPROCAL_POOL,
                      note="'symmetric attention' read as the attention matrix itself being symmetric: row "
                           "normalisation breaks it unless every row has the same multiset of scores"),
              Reading("symmetric-scores", r"\alpha_h=0\iff M=M^\top\Rightarrow XMX^\top\ \text{symmetric}",
                      checks=[scores_symmetry(+1)], regimes=("all",),
                      hypotheses={}, conclusion=_scores_reciprocity, instances=SCORES_POOL,
                      note="reciprocity of the scores alone (before the softmax)"),
              Reading("antisymmetric-scores-nonzero",
                      r"M\neq0:\ \alpha_h=1\iff M=-M^\top\Rightarrow XMX^\top\ \text{antisymmetric}",
                      checks=[scores_symmetry(-1)], regimes=("all",),
                      hypotheses={"M != 0": _m_nonzero}, conclusion=_scores_directional, instances=SCORES_POOL,
                      note="'purely directional'; alpha = 1 needs d_k >= 2 (RC.alpha-range); M = 0 is excluded: "
                           "alpha(0) = 0 (x / 0 = 0) while 0 = -0^T, so the equivalence fails there")],
    chapter="rank_contraction",
    formal_gap=FormalGap("not-yet-proved", "symmetric scores S = S^T give a reversible softmax A (Z_i A_ij = exp S_ij "
                                           "= Z_j A_ji with Z the row sums): one line over MathComp-Analysis's expR, "
                                           "not yet written"),
)


def _dim_dk_rows(ctx, rank_at_least_dk: bool):
    """X of rank r (r = d_k, or r < d_k) and one head with W_V, W_O in [-50, 50]; an X that misses rank r is redrawn
    on the next trial."""
    rng = random.Random(stable_seed(f"RC.dim-dk:{rank_at_least_dk}"))
    for (n, d, dk) in ((2, 3, 2), (3, 3, 2), (4, 3, 2), (3, 5, 3), (5, 4, 3), (2, 2, 1)):
        for _ in range(2 if ctx.quick else 5):
            r = dk if rank_at_least_dk else rng.randint(1, dk - 1) if dk > 1 else None
            if r is None or r > min(n, d):
                continue
            X = random_int_matrix(rng, n, r, 2) * random_int_matrix(rng, r, d, 2)
            if rank(X) != r:
                continue
            yield regime_of(n, d), "", {"X": X, "heads": [exact_head(rng, d, dk, k=50)], "d_k": dk}


def _invertible_attention(v) -> bool:
    """generic head (invertible attention)"""
    return rank(exact_softmax(v["X"], v["heads"][0][0])) == v["X"].shape[0]


def _wv_generic_rank(v) -> bool:
    """rank(X W_V) = min(rank X, d_k) (the premise 'generic W_V' of Prop 6.3, stated algebraically)"""
    return rank_of_product(v["X"], v["heads"][0][1]) == min(rank(v["X"]), v["d_k"])


def _wo_full_row_rank(v) -> bool:
    """rank W_O = d_k (the premise 'generic W_O of rank d_k')"""
    return rank(v["heads"][0][2]) == v["d_k"]


def _dim_is_dk(v) -> bool:
    """dim R_h = d_k"""
    return _ranks(v)["rank_T"][0] == v["d_k"]


def _rank_below_dk_identity(v) -> Evidence | None:
    """rank X = r < d_k: X = C F exactly (C its r independent columns), so T_h = (A_h C)(F W_V W_O) factors through
    r < d_k dimensions for every weight: dim R_h <= r < d_k identically on the weight space."""
    X = v["X"]
    r = rank(X)
    if r >= v["d_k"] or r == 0:
        return None
    got = nonzero_minor(X, r)
    assert got is not None  # r = rank X: a non-zero r-minor exists
    C = X.extract(list(range(X.shape[0])), got[1])
    F = (C.T * C).inv() * C.T * X
    return identical_failure(f"{X.shape[0]}x{X.shape[1]} X of rank {r} < d_k = {v['d_k']}: X = C F with C the columns "
                             f"{got[1]} (n x {r}), so T_h = (A_h C)(F W_V W_O) has rank <= {r} < d_k for every weight",
                             identity_holds=C * F == X, arithmetic="exact over QQ (the factorisation checked)",
                             regime=regime_of(*X.shape))


def _perturb_value_output(v, rng, scale):
    """Perturb W_V and W_O of every head (M0 kept: the 2^s softmax stays exact); the cached ranks are dropped."""
    heads = [(M0, perturb_value(WV, rng, scale), perturb_value(WO, rng, scale)) for M0, WV, WO in v["heads"]]
    return {**{k: x for k, x in v.items() if k != "ranks"}, "heads": heads}


#: X fixed, the head's weights generic (a failure with rank X < d_k holds identically in the weights)
DIM_DK_SPACE = Generic(space="the head's weights (W_Q, W_K, W_V, W_O), X fixed", variables=("heads",),
                       measure="Lebesgue on the weights", fixed="X (and, in probes, M0: W_V and W_O are perturbed)",
                       perturb=_perturb_value_output, certify=_rank_below_dk_identity)


#: X of rank r < d_k (the claim) and of rank d_k (the reading), one head with W_V, W_O in [-50, 50]
RANK_BELOW_DK = Pool(rows=lambda ctx: _dim_dk_rows(ctx, False), arithmetic=_EXACT, describe=_describe_heads)
RANK_DK = Pool(rows=lambda ctx: _dim_dk_rows(ctx, True), arithmetic=_EXACT, describe=_describe_heads)


claim(
    id="RC.dim-dk", section="§6.1, after Prop 6.3",
    quote="Since dim(R_h) = d_k for each head individually (Proposition 6.3)",
    depends_on=("RC.prop63",),
    statement=r"\dim R_h=d_k\ \text{for every head}",
    hypotheses={INVERTIBLE_ATTENTION.name: INVERTIBLE_ATTENTION}, conclusion=DIM_IS_DK,
    instances=RANK_BELOW_DK, regimes=("n<d", "n=d", "n>d"), form="generic", generic=DIM_DK_SPACE, notion="exact-rank",
    readings=[Reading("rank-X-at-least-d_k",
                      r"A_h\in GL_n,\ \operatorname{rank}(XW_V)=\min(\operatorname{rank}X,d_k),\ "
                      r"\operatorname{rank}W_O=d_k,\ \operatorname{rank}X\ge d_k\Rightarrow\dim R_h=d_k",
                      hypotheses={RANK_X_GE_DK.name: RANK_X_GE_DK, INVERTIBLE_ATTENTION.name: INVERTIBLE_ATTENTION,
                                  WV_GENERIC_RANK.name: WV_GENERIC_RANK, WO_FULL_ROW_RANK.name: WO_FULL_ROW_RANK},
                      conclusion=DIM_IS_DK, instances=RANK_DK, form="universal",
                      note="Prop 6.3 gives min(rank X, d_k): d_k needs rank X >= d_k; here Prop 6.3's genericity is "
                           "stated as its premises (invertible attention, generic-rank W_V, full-row-rank W_O), as in "
                           "RC.prop63 algebraic-genericity"),
              Reading("generic-weights", r"\operatorname{rank}X\ge d_k\Rightarrow\dim R_h=d_k\ \text{for a.e. head "
                                         r"weights}",
                      hypotheses={RANK_X_GE_DK.name: RANK_X_GE_DK, INVERTIBLE_ATTENTION.name: INVERTIBLE_ATTENTION},
                      conclusion=DIM_IS_DK, instances=RANK_DK, generic=DIM_DK_SPACE,
                      note="the same repair read as the paper does, for almost every head weight (X fixed): decided "
                           "on the drawn heads, failures probed",
                      formal_gap=FormalGap("needs-analysis", "generic head weights include W_Q, W_K: invertible "
                                           "attention off the zero set of a real-analytic function (the null-set "
                                           "lemma for real-analytic functions); the algebraic step is "
                                           "RC.prop63:algebraic-genericity (proved)"))],
    chapter="rank_contraction",
)


# --- further sentences of §6.1 (issue 33) ---

def _left_multiplication_rows(ctx):
    rng = random.Random(stable_seed("RC.left-multiplication:softmax"))
    for (n, d, dk) in ((2, 3, 1), (3, 5, 2), (3, 2, 1), (4, 3, 2), (5, 3, 2), (4, 4, 3), (6, 3, 3)):
        for _ in range(2 if ctx.quick else 4):
            X = Matrix(n, d, lambda i, j: Rational(rng.randint(-2, 2)))
            M0 = Matrix(d, d, lambda i, j: Rational(rng.choice((-1, 1))))
            W_V = Matrix(d, dk, lambda i, j: Rational(rng.randint(-3, 3)))
            yield regime_of(n, d), "", {"X": X, "M0": M0, "W_V": W_V}


def _left_multiplication_keeps_rank(v) -> bool:
    """rank(A X W_V) = rank(X W_V), A = softmax(log 2 X M0 X^T) (exact 2^k softmax)"""
    Y = v["X"] * v["W_V"]
    return rank(exact_softmax(v["X"], v["M0"]) * Y) == rank(Y)


def _left_multiplication_certified(v) -> bool | None:
    """rank(A Y) = rank Y at a perturbed (X, M0, W_V), where the scores are rational and A irrational: rank(A Y) <=
    rank Y always, and a non-zero rank(Y)-minor of an exact rational enclosure of A Y (2^s to 64, then 320 bits)
    certifies >=; None when no enclosure excludes 0"""
    X = v["X"]
    Y = X * v["W_V"]
    k = rank(Y)
    if k == 0:
        return True
    Xb = box(X, 0)
    S = mat_mul(mat_mul(Xb, box(v["M0"], 0)), transpose(Xb))
    for bits in (64, 320):
        if minor_certificate(mat_mul(softmax_log2_rows(S, bits), box(Y, 0)), k) is not None:
            return True
    return None


def _uniform_reduces_rank(ctx) -> list[Evidence]:
    X = Matrix([[1, 0], [0, 1], [1, 1]])
    A, Y = exact_softmax(X, zeros(2, 2)), X
    return [exact_complete(f"uniform attention (W_Q = 0): A = J/3, rank(A X) = {rank(A * Y)} < rank X = {rank(Y)}",
                           rank(A * Y) == rank(Y), arithmetic="exact (2^k softmax)")]


#: "generic scores": the null set is where A is singular and meets col(X W_V) (e.g. zero scores, A = J/n); a
#: failure is probed at perturbations of X, M0 and W_V, decided by certified enclosures (the scores leave the
#: integers, so A is irrational there)
LEFT_MULTIPLICATION_SPACE = Generic(
    space="(X, M0, W_V) in R^{n x d} x R^{d x d} x R^{d x d_k}, A = softmax(log 2 X M0 X^T) (M0 = W_Q W_K^T / "
          "(sqrt(d_k) log 2))", variables=("X", "M0", "W_V"), measure="Lebesgue",
    conclusion=_left_multiplication_certified, certified=True,
    probe_arithmetic="rank(A Y) >= rank Y certified by a non-zero minor enclosure in exact rational interval "
                     "arithmetic (2^s enclosed by rational bounds)")


def _uniform_keeps_rank(v) -> Decided:
    """rank(J/n Y) = rank Y (uniform attention A = J/n)"""
    Y = v["Y"]
    n = Y.shape[0]
    a, b = rank(sympy.ones(n, n) * Y / n), rank(Y)
    return Decided(a == b, f"exact over Q: rank(J/n Y) = {a}, rank Y = {b}")


def _uniform_rows(ctx):
    rng = random.Random(stable_seed("RC.left-multiplication:uniform-attention"))
    for n, d in ((1, 2), (2, 2), (3, 2), (3, 4), (4, 3)):
        for _ in range(1 if ctx.quick else 3):
            yield "all", f"{n} x {d}", {"Y": random_int_matrix(rng, n, d, 3)}


#: --X as Y (the values X W_V the uniform attention multiplies)
UNIFORM_Y_POOL = Pool(rows=_uniform_rows, arithmetic="exact over Q (python-flint ranks)",
                      instance_from=InstanceForm(takes=("X",), build=lambda user: {"Y": user.matrix("X").sympy(
                          SYMPY_MAX_ENTRIES, "RC.left-multiplication")}, arithmetic="exact over Q",
                          note="--X is Y = X W_V; A = J/n"))



claim(
    id="RC.left-multiplication", section="§6.1, proof of Prop 6.3",
    quote=r"so left-multiplication by $A^{(h)}$ does not reduce rank",
    statement=r"\operatorname{rank}(A^{(h)}XW_V^{(h)})=\operatorname{rank}(XW_V^{(h)})\ \text{(softmax }A^{(h)}"
              r"\text{, generic scores)}",
    # the paper's "generically" (A^(h) of maximal rank generically): for a.e. (X, M0, W_V); the hypotheses do not
    # exclude the null set (zero scores give A = J/n), so failures are probed, not decisive
    form="generic", generic=LEFT_MULTIPLICATION_SPACE,
    hypotheses={}, conclusion=_left_multiplication_keeps_rank,
    instances=Pool(rows=_left_multiplication_rows, arithmetic="exact over QQ (2^k softmax)"),
    regimes=("n<d", "n=d", "n>d"), notion="exact-rank",
    readings=[Reading("uniform-attention", r"A=J/n:\ \operatorname{rank}(AY)=\operatorname{rank}Y",
                      checks=[_uniform_reduces_rank], regimes=("all",), form="universal",
                      hypotheses={}, conclusion=_uniform_keeps_rank, instances=UNIFORM_Y_POOL,
                      note="the measure-zero exception: zero scores give a rank-one A")],
    depends_on=("RC.attention-rank",), chapter="rank_contraction",
    formal_gap=FormalGap("needs-analysis", "A_h invertible off the zero set of det A_h, a real-analytic function "
                         "(RC.attention-rank:corrected): the null-set lemma for real-analytic functions; the "
                         "algebraic consequence is RC.prop63:algebraic-genericity (proved)"),
)


# --- the exact handlers of the predicate objects above (the Pools' instances are dicts) -----------------------------
N_GT_DK.register(dict)(lambda v: v["X"].shape[0] > v["d_k"])
RANK_A_MIN.register(dict)(lambda v: rank(v["A"]) == min(v["X"].shape[0], v["d_k"]))
RANK_IS_DIM_SUM.register(dict)(_rank_is_dim_sum)
SUBADDITIVE.register(dict)(_subadditive)
SOME_HEAD_NONZERO.register(dict)(lambda v: max(_ranks(v)["rank_T"]) > 0)
ALPHA_IN_RANGE.register(dict)(lambda v: bool(0 <= _alpha_mha_of(v) <= 1))
CONTRACTS.register(dict)(_contracts)
SUM_DIMS_DROP.register(dict)(lambda v: _ranks(v)["dim_sum"] < sum(_ranks(v)["rank_T"]))
DIRECTIONAL.register(dict)(lambda v: all(alpha_exact(M0) == 1 for M0, _, _ in v["heads"]))
FIXED_WV_WO.register(dict)(lambda v: v["heads"][0][1:] == v["heads"][1][1:]
                           and [alpha_exact(M0) for M0, _, _ in v["heads"]] == [0, 1])
R_H_MOVES.register(dict)(_R_h_moves)
INVERTIBLE_ATTENTION.register(dict)(_invertible_attention)
DIM_IS_DK.register(dict)(_dim_is_dk)
RANK_X_GE_DK.register(dict)(lambda v: rank(v["X"]) >= v["d_k"])
WV_GENERIC_RANK.register(dict)(_wv_generic_rank)
WO_FULL_ROW_RANK.register(dict)(_wo_full_row_rank)
DIM_IS_MIN.register(dict)(lambda v: _ranks(v)["rank_T"][0] == min(rank(v["X"]), v["d_k"]))
