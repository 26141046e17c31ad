r"""Rank-Neutrality of LayerNorm (Cirrincione 2026, Thm 4.2, §4).

Statement (as in the paper)
===========================
For :math:`X\in\mathbb{R}^{n\times d}` with rows :math:`x_i`,
:math:`\mathrm{LN}(x_i) = \frac{x_i-\bar x_i}{\sigma_i}\odot\gamma+\beta`
(population standard deviation, no :math:`\varepsilon`). Under

- H1: no row of X is constant, :math:`\sigma_i>0`;
- H2: :math:`\mathbf 1_d\notin\operatorname{rowspace}(X)`;
- H3: :math:`\gamma_j\neq 0` for all j;
- H4: :math:`\sigma\notin\operatorname{colspace}(\tilde X)`, :math:`\tilde X = XP`,
  :math:`P = I-\tfrac1d\mathbf 1\mathbf 1^\top`;

the paper claims :math:`\operatorname{arank}(\mathrm{LN}(X))=\operatorname{arank}(X)`.

What is actually true (checked here, exactly)
=============================================
With :math:`[\sigma\notin\tilde X]` short for the indicator of
:math:`\sigma\notin\operatorname{colspace}(\tilde X\Gamma)`, and only H1 assumed,

.. math::
   \operatorname{arank}\mathrm{LN}(X) = \operatorname{rank}(\tilde X\Gamma) - 1 + [\sigma\notin\operatorname{col}(\tilde X\Gamma)],
   \qquad \operatorname{arank}(X) = \operatorname{rank}(X) - 1 + [\mathbf 1_n\notin\operatorname{col}(X)].

Under H1-H4 this gives :math:`\operatorname{arank}\mathrm{LN}(X) = \operatorname{rank}(X)`,
which equals :math:`\operatorname{arank}(X)` **iff** :math:`\mathbf 1_n\notin\operatorname{col}(X)`
(the tokens do not lie on an affine hyperplane that misses the origin).
The paper's Step 2 overlooks that row scaling can also *raise* the affine rank;
three collinear tokens in :math:`\mathbf 1^\perp\subset\mathbb{R}^3` meet H1-H4 and
are sent to three non-collinear points (arank 1 -> 2).

Every decision is exact: entries are rationals; :math:`\sigma_i=\sqrt{s_i}` with
:math:`s_i\in\mathbb{Q}`, and membership of :math:`\sigma` in a rational subspace
is decided by splitting :math:`\sigma=\sum_k\sqrt{r_k}\,\tau_k` over classes of
indices whose :math:`s_i` differ by rational squares (square roots of distinct
square-free integers are linearly independent over :math:`\mathbb{Q}`).

Examples
========
>>> from theorems.paper.rank_neutrality import instance, analyse
>>> a = analyse(instance([[0, 2, -2], [1, 1, -2], [2, 0, -2]]))
>>> a.hypotheses
{'H1': True, 'H2': True, 'H3': True, 'H4': True}
>>> a.arank_X, a.arank_LN_X
(1, 2)

References
==========
G. Cirrincione, *Rank, Head-Channel Non-Identifiability, and Symmetry Breaking*,
arXiv:2604.23681 (2026), §4. A. S. Besicovitch, *On the linear independence of
fractional powers of integers*, J. London Math. Soc. 15 (1940).
"""
from __future__ import annotations

import copy
import functools
import random
from typing import Callable

import numpy as np
import sympy
from sympy import Matrix, Rational, symbols

from ..exact import instances as _inst
from ..exact import transformer as T
from ..exact.blocks import centred
from ..exact.layernorm import (
    Analysis,
    LNInstance,
    NormInstance,
    analyse,
    arank_LN,
    characterisation,
    instance,
    is_H1_nonconstant_rows,
)
from ..exact.linalg import affine_rank, all_identically_zero, centring_projector, in_colspace, in_rowspace, ones, rank
from ..exact.norm_exact import NormAnalysis, analyse_array
from ..exact.qinterval import box, identity, mat_mul, minor_certificate
from ..exact.shared import array_key, shared
from ..framework import (
    CheckContext,
    Evidence,
    FormalGap,
    Generic,
    InstanceForm,
    OffInstance,
    Pool,
    ProofStep,
    Reading,
    Undecidable,
    claim,
    derivation,
    exact_complete,
    exact_instances,
    failing_box,
    float_statistic,
    not_checkable,
    predicted,
    stable_seed,
)
from ..framework.memo import kept, process_cache

__all__ = ["PROOF_STEPS", "PAPER_PROOF_AUDIT", "stress", "TOKEN_SHAPES", "FAMILIES", "POOL", "USER_INSTANCE",
           "from_user", "HYPOTHESIS", "effective_rank", "STEP2_X",
           "step2_reformulation_instance"]

n, d = symbols("n d", positive=True, integer=True)


# --- the three steps of LayerNorm, exactly -------------------------------------------


# --- hypotheses (True / False / None = undecided) -------------------------------------


# --- the exact ranks of LN(X) ------------------------------------------------------


# --- proof steps: exact sympy statements, checked when the claims run ---------------

def _step_projector() -> bool:
    J, dd = symbols("J d", positive=True)
    P = 1 - J / dd  # polynomial in J with J^2 = d J
    idem = sympy.rem(sympy.expand(P ** 2 - P), J ** 2 - dd * J, J)
    kills_one = sympy.simplify(1 - dd / dd)  # P 1 = 1 - J1/d = 1 - d/d
    return sympy.simplify(idem) == 0 and kills_one == 0


def _step_kernel_P() -> bool:
    # P v = v - mean(v) 1 = 0 iff v is constant: rank(P) = d - 1 for every d checked
    return all(rank(centring_projector(k)) == k - 1 for k in range(1, 17))


def _step_bordered_identity() -> bool:
    nn, dd = 3, 4
    x = Matrix(nn, dd, lambda i, j: sympy.Symbol(f"x{i}{j}", real=True))
    sg = [sympy.Symbol(f"s{i}", positive=True) for i in range(nn)]
    g = [sympy.Symbol(f"g{j}", real=True) for j in range(dd)]
    b = [sympy.Symbol(f"b{j}", real=True) for j in range(dd)]
    Y = Matrix(nn, dd, lambda i, j: x[i, j] * g[j] / sg[i] + b[j])
    B = Y.row_join(ones(nn))
    C = sympy.eye(dd + 1)
    for j in range(dd):
        C[dd, j] = -b[j]
    lhs = sympy.diag(*sg) * B * C
    rhs = (x * sympy.diag(*g)).row_join(Matrix(sg))
    return all_identically_zero(lhs - rhs)


def _step_affine_rank_bordered() -> bool:
    # c^T [M | 1] = [c^T M, c^T 1]: affine dependencies are the left kernel of [M | 1]
    nn, dd = 3, 2
    M = Matrix(nn, dd, lambda i, j: sympy.Symbol(f"m{i}{j}"))
    c = Matrix(nn, 1, lambda i, j: sympy.Symbol(f"c{i}"))
    lhs = c.T * M.row_join(ones(nn))
    return lhs == (c.T * M).row_join(Matrix([[sum(c)]]))


def _step_sqrt_independence() -> bool:
    # Besicovitch: sqrt of distinct square-free integers are Q-independent;
    # spot check: [Q(sqrt2, sqrt3, sqrt5, sqrt7) : Q] = 16
    t = sympy.sqrt(2) + sympy.sqrt(3) + sympy.sqrt(5) + sympy.sqrt(7)
    return sympy.degree(sympy.minimal_polynomial(t, sympy.Symbol("z")), sympy.Symbol("z")) == 16


def _step_rank_one_update() -> bool:
    # rank(A + u v^T) = rank(A) + 1 when u notin col(A), v notin row(A): spot check exactly
    A = Matrix([[1, 0, 0], [0, 1, 0], [0, 0, 0]])
    u = Matrix([0, 0, 1])
    v = Matrix([0, 0, 1])
    return rank(A + u * v.T) == 3 and rank(A + Matrix([1, 0, 0]) * v.T) == 2


#: (formula in LaTeX, words, kind, check). kind "identity": a sympy identity in
#: symbolic entries (its entrywise form makes it hold for all sizes); "lemma": a
#: standard result of linear algebra, cited, and spot-checked exactly.
PROOF_STEPS: list[tuple[str, str, str, Callable[[], bool]]] = [
    (r"P^2=P,\quad P\mathbf 1=0", "for every d, reduced modulo J^2 = dJ with J = 11^T",
     "identity", _step_projector),
    (r"\ker P=\operatorname{span}(\mathbf 1)\ \Rightarrow\ \operatorname{rank}(XP)=\operatorname{rank}X-[\mathbf 1_d\in\operatorname{row}X]",
     "rank-nullity on row(X)", "lemma", _step_kernel_P),
    (r"\operatorname{diag}(\sigma)\,[Y\mid\mathbf 1]\,C=[\tilde X\Gamma\mid\sigma]",
     "row scaling by sigma_i (H1) and a unimodular C that removes beta", "identity", _step_bordered_identity),
    (r"\operatorname{arank}(M)=\operatorname{rank}[M\mid\mathbf 1]-1",
     "affine dependencies are the left kernel of [M | 1]", "identity", _step_affine_rank_bordered),
    (r"\sqrt{m_1},\dots,\sqrt{m_k}\ \text{independent over}\ \mathbb Q",
     "distinct square-free m_i (Besicovitch 1940)", "lemma", _step_sqrt_independence),
    (r"\operatorname{rank}(A+uv^\top)=\operatorname{rank}A+1\iff u\notin\operatorname{col}A\wedge v\notin\operatorname{row}A",
     "rank-one update", "lemma", _step_rank_one_update),
]


def proof_evidence(uses: tuple[int, ...] | None = None, what: str = "the exact characterisation") -> Evidence:
    """Run the proof steps: a derivation (identities at fixed sizes, cited lemmas spot-checked), not a proof."""
    return derivation(PROOF_STEPS, what, uses=uses)


# The paper's own proof, step by step, audited on the stored counterexample.
PAPER_PROOF_AUDIT = [
    ("Step 1", r"H2\Rightarrow\operatorname{arank}(XP)=\operatorname{arank}(X)",
     "correct (col(XP) = col(X) when H2 holds)"),
    ("Step 2", r"\operatorname{arank}(D\tilde X)<\operatorname{arank}(\tilde X)\iff\sigma\in\operatorname{col}(\tilde X),"
               r"\ \text{so H4 gives equality}",
     "incomplete: row scaling can also raise the affine rank, exactly when 1_n is in col(X~) "
     "and sigma is not (counterexample RN.main)"),
    ("Step 3", r"\operatorname{diag}(\gamma)\ \text{and}\ {+\beta}\ \text{preserve affine rank under H3}", "correct"),
]


# --- exact stress over regimes and families (seeded; the ledger's evidence) ----------

#: per shape regime, the (n, d) of the token matrix X of the seeded stress
TOKEN_SHAPES = {"n<d": [(2, 3), (2, 4), (3, 5), (3, 6), (4, 7)], "n=d": [(2, 2), (3, 3), (4, 4), (5, 5)],
          "n>d": [(3, 2), (4, 3), (6, 4), (7, 5), (9, 4)]}  # the smallest shapes (n or d = 2) are the edges
FAMILIES = ("generic", "low_rank", "collinear", "coplanar", "dong", "radial")


def stress(seed: int = 0, per_shape: int = 6, families=FAMILIES, with_beta: bool = True):
    """Yield (regime, family, instance, analysis) over every shape and family."""
    rng = random.Random(seed)
    for regime, shapes in TOKEN_SHAPES.items():
        for (nn, dd) in shapes:
            for fam in families:
                for _ in range(per_shape):
                    X = _inst.build(fam, rng.randint, nn, dd)
                    g = [Rational(rng.choice([1, 1, 2, -1, Rational(1, 2)])) for _ in range(dd)]
                    b = ([Rational(rng.randint(-2, 2)) for _ in range(dd)] if with_beta and rng.random() < 0.5
                         else [Rational(0)] * dd)
                    inst = LNInstance(X, tuple(g), tuple(b))
                    yield regime, fam, inst, analyse(inst)


# --- claims ---------------------------------------------------------------------------

_ARITH = "exact over QQ (python-flint fmpq_mat); sigma by square classes"


def _stress_rows(ctx: CheckContext):
    per = 2 if ctx.quick else 6
    return list(stress(seed=20260426, per_shape=per))


_STRESS_CACHE: dict = process_cache()  # emptied by theorems.framework.memo.clear_process_caches


def cached_stress(ctx: CheckContext):
    key = ctx.quick
    if key not in _STRESS_CACHE:
        _STRESS_CACHE[key] = _stress_rows(ctx)
    return _STRESS_CACHE[key]


def _pool_rows(ctx: CheckContext):
    return [(regime, fam, a) for regime, fam, _, a in cached_stress(ctx)]


def decode(data: dict) -> Analysis:
    """The analysis of a stored LayerNorm instance (``X``, ``gamma``, ``beta`` as exact strings)."""
    return analyse(instance(data["X"], data.get("gamma"), data.get("beta")))


def describe(a: Analysis) -> str:
    return (f"{a.n}x{a.d} (rank X = {a.rank_X}, arank X = {a.arank_X}, rank LN X = {a.rank_LN_X}, "
            f"arank LN X = {a.arank_LN_X})")


# --- a user's instance: X (and gamma, beta) through the one exact reader, analysed at full width --------------

#: a predicate that reads the instance itself (a.inst.X) computes in sympy; larger user inputs stay undecided there
SYMPY_MAX_ENTRIES = 40_000


def _rationals(vec, default: int, d: int) -> tuple:
    """An exact vector (the reader's) as sympy Rationals; ``default`` d times when it was not given."""
    if vec is None:
        return (Rational(default),) * d
    return tuple(Rational(v.numerator, v.denominator) for v in vec.fractions())


class UserLNInstance:
    """A user's LayerNorm instance: n, d, gamma and beta at once, the sympy matrix X only when a predicate reads it."""

    def __init__(self, X, gamma, beta):
        self._X, self.n, self.d = X, X.shape[0], X.shape[1]
        self._gamma_in, self._beta_in = gamma, beta
        self._sympy = None

    @functools.cached_property
    def gamma(self) -> tuple:
        """gamma as sympy Rationals (built when a predicate reads it: a model's sites analyse without it)."""
        return _rationals(self._gamma_in, 1, self.d)

    @functools.cached_property
    def beta(self) -> tuple:
        """beta as sympy Rationals (built when a predicate reads it)."""
        return _rationals(self._beta_in, 0, self.d)

    @property
    def X(self) -> Matrix:
        if self._sympy is None:
            if self.n * self.d > SYMPY_MAX_ENTRIES:
                raise Undecidable(f"this predicate computes on X itself in sympy; X has {self.n * self.d} entries, above "
                                  f"{SYMPY_MAX_ENTRIES}")
            self._sympy = self._X.sympy()
        return self._sympy


def _exact_key(values) -> tuple | None:
    """A content key of exact values (ints, Fractions) by their numerators and denominators: hashing a Fraction costs
    a modular inverse, and a model's sites key a d-vector twice per analysis."""
    return None if values is None else tuple((v.numerator, v.denominator) for v in values)


def from_user(user) -> Analysis:
    """The analysis of the user's X (gamma, beta): :func:`theorems.exact.norm_exact.analyse_array`, the record the
    claims' predicates read (``a.inst`` is the instance, its sympy matrix built only if a predicate asks)."""
    X = user.matrix("X")
    d = X.shape[1]
    g, b = user.vector("gamma", d), user.vector("beta", d)
    kernel = X.kernel()
    gl, bl = None if g is None else list(g.values), None if b is None else list(b.values)
    # at a model's site (a sharing scope) the analysis of the same X, gamma, beta and seed is made once for every
    # form that reads it (RN.main's literal and trained-model readings); each caller gets its own copy to annotate
    k = array_key(kernel) if user.seed is not None else None  # no seed: fresh primes each time, never shared
    key = None if k is None else ("analyse_array", k, _exact_key(gl), _exact_key(bl), user.seed)
    a = copy.copy(shared(key, lambda: analyse_array(kernel, gl, bl, seed=user.seed)))
    a.inst = UserLNInstance(X, g, b)
    return a


def _ranks_line(a: Analysis) -> str:
    return (f"arank X = {a.arank_X}, arank LN(X) = {a.arank_LN_X}; rank X = {a.rank_X}, rank LN(X) = {a.rank_LN_X}"
            + ("" if a.ones_n_in_colspace is None else
               f"; 1_n {'in' if a.ones_n_in_colspace else 'notin'} col(X)"))


def explain(a: Analysis, name: str) -> str | None:
    """How a named hypothesis or the conclusion was decided on an analysed instance, in words."""
    if name == "H1" and isinstance(a, NormAnalysis) and a.undefined_rows:
        return a.h1_message()
    if name in a.how and name in ("H1", "H2", "H3", "H4"):
        return a.how[name]
    if name == "conclusion":
        return _ranks_line(a)
    if name == "beta = 0" and a.inst is not None:
        return f"beta = ({', '.join(str(v) for v in a.inst.beta)})"
    if name == "n > d":
        return f"n = {a.n}, d = {a.d}"
    if name.startswith("1_n") and a.ones_n_in_colspace is not None:
        return (f"1_n {'in' if a.ones_n_in_colspace else 'notin'} col(X)"
                + (f": arank X = {a.how['arank_X']}" if "arank_X" in a.how else f" (rank X = {a.rank_X}, arank X = "
                                                                                 f"{a.arank_X})"))
    return describe(a)


_USER_ARITH = ("exact over Q: X scaled exactly to integers, ranks certified (python-flint: rank mod random primes; "
               "p-adic bordering, kernel certificates or FLINT's exact rank); sigma by square classes")
#: how a user's --X (--gamma, --beta) becomes an instance of the RN claims
USER_INSTANCE = InstanceForm(takes=("X",), optional=("gamma", "beta"), build=from_user, explain=explain,
                             arithmetic=_USER_ARITH, regime=lambda a: a.regime,
                             sites=("layernorm-input",))


#: the seeded exact stress (every shape, family and regime): what the RN claims' predicates are decided on;
#: a predicate takes the instance's :class:`Analysis` (``a.inst`` is the instance)
POOL = Pool(rows=_pool_rows, arithmetic=_ARITH, decode=decode, describe=describe, regime=lambda a: a.regime,
            instance_from=USER_INSTANCE)


def _H1(a: Analysis) -> bool | None:
    """no row of X is constant: sigma_i > 0 (LayerNorm without epsilon is defined)"""
    return a.hypotheses["H1"]


def _H2(a: Analysis) -> bool | None:
    """1_d is not in the row space of X: rank [X; 1^T] = rank X + 1"""
    return a.hypotheses["H2"]


def _H3(a: Analysis) -> bool | None:
    """every gamma_j is non-zero"""
    return a.hypotheses["H3"]


def _H4(a: Analysis) -> bool | None:
    """sigma = (sigma_i) is not in the column space of X P (P = I - 1 1^T / d centres each row)"""
    return a.hypotheses["H4"]


#: H1-H4 as predicates on an analysed instance (H4 is undefined, so undecided and the premise not met, when H1 fails)
HYPOTHESIS = {"H1": _H1, "H2": _H2, "H3": _H3, "H4": _H4}


def _not(v: bool | None) -> bool | None:
    return None if v is None else not v


def _eq(x, y) -> bool | None:
    """x == y, undecided when either is (a field the full-width analysis left undecided)."""
    return None if x is None or y is None else x == y


def _le(x, y) -> bool | None:
    return None if x is None or y is None else x <= y


def _instance_of(a: Analysis) -> NormInstance:
    """The instance the analysis was made from (every analysis a predicate receives keeps it)."""
    assert a.inst is not None, "an analysis made without its instance"
    return a.inst


def given(*names: str, also: dict | None = None) -> dict:
    """{name: predicate} for the named H1-H4, then the extra named predicates ``also``."""
    return {**{k: HYPOTHESIS[k] for k in names}, **(also or {})}


def _zero_bias(a: Analysis) -> bool:
    """beta = 0"""
    return all(b == 0 for b in _instance_of(a).beta)


H1_H4 = given("H1", "H2", "H3", "H4")


def _ones_n_notin_col(a: Analysis) -> bool | None:
    """1_n is not in the column space of X (the tokens do not lie on an affine hyperplane missing 0)"""
    return _not(a.ones_n_in_colspace)


claim(
    id="RN.main", section="§1 contribution 1 (Thm 4.2, §4)",
    quote="arank(LN(X)) = arank(X) under non-degeneracy hypotheses [H1-H4]",
    depends_on=("RN.step1", "RN.step2", "RN.step3", "RN.arank-definition"),
    statement=r"H1\wedge H2\wedge H3\wedge H4\ \Rightarrow\ \operatorname{arank}(\mathrm{LN}(X))=\operatorname{arank}(X)",
    hypotheses=H1_H4, conclusion=("arank(LN X) = arank(X)", lambda a: a.conclusion_holds),
    instances=POOL, counterexamples=("RN.main",), regimes=("n<d", "n=d", "n>d"),
    readings=[Reading(
        "what-LN-preserves",
        r"H1\wedge H2\wedge H3\wedge H4\Rightarrow\operatorname{arank}(\mathrm{LN}(X))=\operatorname{rank}(X)",
        hypotheses=H1_H4, conclusion=("arank(LN X) = rank(X)", lambda a: _eq(a.arank_LN_X, a.rank_X)),
        checks=[lambda ctx: [proof_evidence(what="arank(LN X) = rank(X) under H1-H4")]],
        note="Under H1-H4 LayerNorm preserves the matrix rank of X as an affine rank."),
        Reading("trained-model", r"\operatorname{arank}\mathrm{LN}(X)=\operatorname{arank}X\ \text{at MiniLM's LayerNorms}", checks=[], note='',
                formal_gap=FormalGap("finite-instance", "the LayerNorm sites of one trained checkpoint (MiniLM-L6) "
                                     "on given inputs, decided by exact computation at each site (supported on the "
                                     "quick run's sites; the full run finds the sites where it fails)"))],
    corrected=Reading(
        "corrected",
        r"H1\wedge H2\wedge H3\wedge H4\wedge\mathbf 1_n\notin\operatorname{col}(X)\Rightarrow\operatorname{arank}(\mathrm{LN}(X))=\operatorname{arank}(X)",
        hypotheses=given("H1", "H2", "H3", "H4", also={"1_n notin col(X)": _ones_n_notin_col}),
        conclusion=("arank(LN X) = arank(X)", lambda a: a.conclusion_holds),
        checks=[lambda ctx: [proof_evidence(what="the exact characterisation")],
                POOL.decide(given("H1", "H3"), ("the exact characterisation of arank(LN X) - arank(X)",
                                                lambda a: a.arank_LN_X - a.arank_X == characterisation(a)))],
        condition="extra hypothesis: 1_n notin colspace(X), i.e. arank(X) = rank(X)"),
    chapter="rank_neutrality",
    notion="exact-rank",
)


def _row_scaling_keeps_arank(a: Analysis) -> bool:
    """arank(D X~) = arank(X~)"""
    i = _instance_of(a)
    Xt = centred(i.X)  # D X~ is LayerNorm of X~ with gamma = 1, beta = 0
    return arank_LN(LNInstance(Xt, (Rational(1),) * i.d, (Rational(0),) * i.d)) == affine_rank(Xt)


def _two_sided_step2(a: Analysis) -> bool:
    """arank(D X~) - arank(X~) = [1_n in col X~] - [sigma in col X~]"""
    i = _instance_of(a)
    Xt = centred(i.X)
    return (arank_LN(LNInstance(Xt, (Rational(1),) * i.d, (Rational(0),) * i.d)) - affine_rank(Xt)
            == int(in_colspace(Xt, ones(i.n))) - int(bool(a.sigma_in_colspace_Xt)))


claim(
    id="RN.step2", section="§4, proof of Thm 4.2, Step 2",
    quote=r"The affine rank decreases under D if and only if σ = (σ_1, ..., σ_n)^T ∈ colspace(\tilde X) ... "
          r"By H4, this does not hold, so arank(D \tilde X) = arank(\tilde X)",
    depends_on=("RN.H4-unique",),
    statement=r"H1\wedge H4\Rightarrow\operatorname{arank}(D\tilde X)=\operatorname{arank}(\tilde X)",
    hypotheses=given("H1", "H4"), conclusion=_row_scaling_keeps_arank, regimes=("n<d", "n=d", "n>d"),
    instances=POOL.only_stored(), counterexamples=("RN.main",),
    corrected=Reading(
        "corrected",
        r"\operatorname{arank}(D\tilde X)-\operatorname{arank}(\tilde X)=[\mathbf 1_n\in\operatorname{col}\tilde X]-[\sigma\in\operatorname{col}\tilde X]",
        hypotheses=given("H1"), conclusion=_two_sided_step2,
        checks=[lambda ctx: [proof_evidence(uses=(2, 3, 4), what="the two-sided Step 2")]]),
    chapter="rank_neutrality",
    notion="exact-rank",
)


#: the instance of RN.step2-reformulation: rows (1, 0) and (-1, 0) (d = 2, so each sigma_i is rational, half the gap
#: of the row's two entries); it meets H1-H4 (gamma = 1, beta = 0): non-constant rows, 1 not in its row space (rank 1,
#: span (1, 0)), sigma = (1/2, 1/2) not in col X~ = span (1, -1). (Audit 63: X = I, the earlier instance, breaks H2.)
STEP2_X = ((1, 0), (-1, 0))


def step2_reformulation_instance(X: Matrix) -> tuple[bool | None, str]:
    """Whether the two sides of Step 2's 'i.e.' agree on X (d = 2), and the words; None when H1-H4 do not all hold
    (gamma = 1, beta = 0), so the instance would not show the sides differ inside the theorem's hypotheses."""
    n, d = X.shape
    if d != 2:
        raise ValueError("the instance needs d = 2 (a rational sigma)")
    hyp = analyse(LNInstance(X, (Rational(1),) * d, (Rational(0),) * d)).hypotheses
    Xt = X * centring_projector(d)
    sigma = Matrix([abs(X[i, 0] - X[i, 1]) / 2 for i in range(n)])
    in_col = in_colspace(Xt, sigma)
    rhs = (Xt * ones(d)) == sympy.zeros(n, 1)
    met = all(hyp[h] is True for h in ("H1", "H2", "H3", "H4"))
    words = (f"X = {X.tolist()} (H1-H4 with gamma = 1, beta = 0: "
             + ", ".join(f"{h} {'holds' if hyp[h] else 'fails'}" for h in ("H1", "H2", "H3", "H4"))
             + f"): X~ = {Xt.tolist()}, sigma = {list(sigma)}; sigma in col X~: {in_col}, while X~ (1, 1)^T = 0 = 0 "
             f"sigma: {rhs} (X~ 1_d = X (I - J/d) 1_d = 0 for every X, so v = 1_d, c = 0 always satisfies the "
             f"right-hand side); the two sides of the 'i.e.' " + ("agree" if in_col == rhs else "differ"))
    return (in_col == rhs) if met else None, words


def _step2_reformulation(ctx) -> list[Evidence]:
    """sigma in col X~ against "there is v != 0 with X~ v = c sigma": the second always holds (v = 1_d, c = 0, since
    X~ 1_d = X P 1_d = 0), so the two are not equivalent wherever H4 holds; shown on an X that meets H1-H4."""
    agree, words = step2_reformulation_instance(Matrix(STEP2_X))
    return [exact_complete(words, agree, arithmetic="exact rationals (sympy); H1-H4 decided exactly (python-flint)",
                           numbers={"sigma_in_col": False if agree is False else None},
                           reason=None if agree is not None else "the instance does not meet H1-H4")]


claim(
    id="RN.step2-reformulation", section="§4, proof of Thm 4.2, Step 2",
    quote=r"σ=(σ_1,...,σ_n)^T ∈ colspace(\tilde X), i.e. there exists $v\neq 0$ with $\tilde{X}v=c\,\sigma$ for some "
          r"$c\in\mathbb{R}$",
    depends_on=("RN.step2",),
    statement=r"\sigma\in\operatorname{col}\tilde X\iff\exists v\ne0,\ c\in\mathbb R:\ \tilde Xv=c\,\sigma",
    hypotheses=("H1",), conclusion="the two conditions are equivalent", regimes=("all",),
    checks=[_step2_reformulation],
    chapter="rank_neutrality", notion="exact-rank",
    # the right-hand side holds for every X (v = 1_d, c = 0, as X~ 1_d = 0), so "by H4, this does not hold" cannot
    # follow from it; what Step 2 needs is sigma in col X~, i.e. X~ v = sigma for some v (c = 1)
    off_instance=OffInstance("inference", "the proof's restatement ('i.e.') of sigma in colspace(X~): the right-hand "
                                          "side holds for every X (v = 1_d, c = 0)"),
)


claim(
    id="RN.matrix-rank", section="§1 contribution 1; §4 end of proof",
    quote="matrix rank is preserved in the zero-bias case",
    depends_on=("RN.step1", "RN.step2", "RN.step3"),
    statement=r"H1\wedge H2\wedge H3\wedge H4\wedge\beta=0\Rightarrow\operatorname{rank}(\mathrm{LN}(X))=\operatorname{rank}(X)",
    hypotheses=given("H1", "H2", "H3", "H4", also={"beta = 0": _zero_bias}),
    conclusion=("rank(LN X) = rank(X)", lambda a: _eq(a.rank_LN_X, a.rank_X)), instances=POOL,
    regimes=("n<d", "n=d", "n>d"),
    checks=[lambda ctx: [proof_evidence(uses=(0, 1), what="rank(D X~ Gamma) = rank(X~) = rank(X) under H1-H3")]],
    readings=[Reading(
        "without-H2", r"H1\wedge H3\wedge\beta=0\Rightarrow\operatorname{rank}\mathrm{LN}(X)=\operatorname{rank}X-[\mathbf 1_d\in\operatorname{row}X]",
        hypotheses=given("H1", "H3", also={"beta = 0": _zero_bias}),
        conclusion=("rank(LN X) = rank(X) - [1 in row X]",
                    lambda a: None if a.ones_d_in_rowspace is None or a.rank_X is None
                    else _eq(a.rank_LN_X, a.rank_X - int(a.ones_d_in_rowspace))),
        note="H4 is not needed; H2 is: without it the matrix rank drops by exactly one.")],
    chapter="rank_neutrality",
    notion="exact-rank",
)


def _excess_needs_mean_beta(a: Analysis) -> bool | None:
    """rank(LN X) - rank(X) in {0, 1}, and 1 only if mean(beta) != 0"""
    if a.rank_LN_X is None or a.rank_X is None:
        return None
    excess = a.rank_LN_X - a.rank_X
    return excess in (0, 1) and (excess == 0 or sum(_instance_of(a).beta) != 0)


def beta_over_gamma_notin_row(i: LNInstance) -> bool:
    Xt = centred(i.X)
    return not in_rowspace(Xt, Matrix([b / g for b, g in zip(i.beta, i.gamma)]))


claim(
    id="RN.plus-one", section="§4, after Thm 4.2",
    quote="The matrix rank rank(LN(X)) can exceed rank(X) by at most one (when beta != 0 has a non-zero mean component)",
    statement=r"H1\text{-}H4\Rightarrow \operatorname{rank}X\le\operatorname{rank}\mathrm{LN}(X)\le\operatorname{rank}X+1,"
              r"\ \text{and}\ \operatorname{rank}\mathrm{LN}(X)=\operatorname{rank}X+1\Rightarrow\mathbf 1^\top\beta\neq0",
    hypotheses=H1_H4, conclusion=_excess_needs_mean_beta, regimes=("n<d", "n=d", "n>d"),
    instances=POOL.only_stored(), counterexamples=("RN.plus-one",),
    readings=[Reading(
        "bound-only", r"H1\Rightarrow\operatorname{rank}\mathrm{LN}(X)\le\operatorname{rank}X+1",
        hypotheses=given("H1"), conclusion=("rank(LN X) <= rank(X) + 1",
                                            lambda a: None if a.rank_X is None else _le(a.rank_LN_X, a.rank_X + 1)),
        checks=[lambda ctx: [proof_evidence(uses=(1, 5), what="rank(D X~ Gamma + 1 beta^T) <= rank(X~) + 1 <= rank(X) + 1")]])],
    corrected=Reading(
        "corrected",
        r"H1\text{-}H4\Rightarrow\operatorname{rank}\mathrm{LN}(X)=\operatorname{rank}X+[\beta\oslash\gamma\notin\operatorname{row}(\tilde X)]",
        hypotheses=H1_H4, conclusion=("rank(LN X) = rank(X) + [beta/gamma notin row(X~)]",
                                      lambda a: None if a.rank_X is None
                                      else _eq(a.rank_LN_X, a.rank_X + int(beta_over_gamma_notin_row(a.inst)))),
        checks=[lambda ctx: [proof_evidence(uses=(1, 5), what="the rank-one update under H1-H4")]],
        condition="the excess is decided by beta/gamma (elementwise) against row(X~), not by the mean of beta"),
    chapter="rank_neutrality",
    notion="exact-rank",
)


def _h4_generic_regimes(ctx, min_d: int = 3) -> list[Evidence]:
    """H4 on generic inputs: exact counts over integer matrices of full rank, width d >= min_d."""
    out = []
    rng = random.Random(stable_seed("RN.H4-generic:full-rank draws"))
    for regime, shapes in TOKEN_SHAPES.items():
        total = held = 0
        for (nn, dd) in shapes:
            if dd < min_d:
                continue
            for _ in range(3 if ctx.quick else 10):
                X = _inst.generic(rng.randint, nn, dd, k=50)
                if rank(X) < min(nn, dd):
                    continue  # not generic
                a = analyse(LNInstance(X, (Rational(1),) * dd, (Rational(0),) * dd))
                if not a.hypotheses["H1"]:
                    continue
                total += 1
                held += bool(a.hypotheses["H4"])
        out.append(exact_instances(f"H4 on full-rank integer X (entries in [-50, 50], d >= {min_d}) meeting H1",
                                   met=total, held=held, regime=regime, arithmetic=_ARITH))
    return out


def h4_width_two(X: Matrix) -> bool | None:
    """For d = 2: H4 holds iff the differences x_i1 - x_i2 do not all have one sign (None if H1 fails).

    XP has rows (c_i / 2)(1, -1) with c_i = x_i1 - x_i2 and sigma_i = |c_i| / 2, so col(XP) = span(c) and
    sigma = |c| / 2 lies in it iff |c| is a multiple of c: iff all c_i share one sign. A set of positive
    measure (probability 2^(1-n) for i.i.d. symmetric entries): H4 is not generic at d = 2.
    """
    c = [X[i, 0] - X[i, 1] for i in range(X.shape[0])]
    if any(v == 0 for v in c):
        return None
    return not (all(v > 0 for v in c) or all(v < 0 for v in c))


def _h4_width_two(ctx) -> list[Evidence]:
    rng = random.Random(stable_seed("RN.H4-generic:width two"))
    out = []
    for regime, ns in (("n<d", ()), ("n=d", (2,)), ("n>d", (3, 4, 5))):
        met = held = fails = 0
        for nn in ns:
            for _ in range(8 if ctx.quick else 30):
                X = _inst.generic(rng.randint, nn, 2, k=50)
                pred = h4_width_two(X)
                if pred is None:
                    continue
                a = analyse(LNInstance(X, (Rational(1),) * 2, (Rational(0),) * 2))
                met += 1
                held += a.hypotheses["H4"] is pred
                fails += a.hypotheses["H4"] is False
        if ns:
            out.append(exact_instances(f"d = 2: H4 <=> the x_i1 - x_i2 do not share one sign (H4 failed on {fails} "
                                       "of these generic draws)", met=met, held=held, regime=regime,
                                       arithmetic=_ARITH))
    return out


def _generic_rank_argument(ctx, regime: str) -> Evidence:
    """Derivation of what H2 and H4 do on generic (full-rank) X: they fail.

    Generic X has rank min(n, d), and rank(XP) = min(n, d - 1) (ker P = span 1).
    n >= d: row(X) = R^d contains 1_d, so H2 fails. n < d: rank(XP) = n, so
    col(XP) = R^n contains sigma and H4 fails. The lemma on ker P is spot-checked
    exactly at d = 1..16; the generic ranks on seeded integer draws: a derivation.
    """
    rng = random.Random(stable_seed(f"RN.generic-rank-argument:{regime}"))
    draws = full = 0
    for (nn, dd) in TOKEN_SHAPES[regime]:
        for _ in range(3):
            X = _inst.generic(rng.randint, nn, dd, k=50)
            draws += 1
            full += rank(X) == min(nn, dd) and rank(centred(X)) == min(nn, dd - 1)
    fails = "H4" if regime == "n<d" else "H2"
    why = ("rank(XP) = n, so col(XP) = R^n contains sigma" if regime == "n<d"
           else "rank(X) = d, so row(X) = R^d contains 1_d")
    steps = [PROOF_STEPS[1],
             ProofStep(r"\operatorname{rank}X=\min(n,d)\ \text{for a.e. }X", f"{full}/{draws} integer draws had the "
                       "generic ranks (minors are non-zero polynomials)", "lemma", lambda: full == draws)]
    e = derivation(steps, f"'{fails} fails for almost every X when {regime}' ({why})", regime=regime,
                   arithmetic="exact over QQ (lemmas spot-checked)", concludes=False)
    e.numbers.update({"draws": draws, "generic_ranks": full})
    return e


_as_prediction = predicted


def _h4(a: Analysis) -> bool | None:
    """H4 (sigma notin col(XP))"""
    return a.hypotheses["H4"]


claim(
    id="RN.H4-generic", section="§4, after Thm 4.2",
    quote="The condition [H4] holds for all inputs satisfying n > d ..., and generically for n <= d",
    depends_on=("RN.step2",),
    statement=r"(n>d\Rightarrow H4\ \forall X\text{ with }H1)\ \wedge\ (n\le d\Rightarrow H4\text{ for Lebesgue-a.e. }X)",
    hypotheses=given("H1", also={"n > d": lambda a: a.n > a.d}), conclusion=_h4, regimes=("n<d", "n=d", "n>d"),
    instances=POOL.only_stored(), counterexamples=("RN.H4-generic",),
    checks=[lambda ctx: [_generic_rank_argument(ctx, "n<d")]],
    readings=[Reading(
        "width-two", r"d=2:\ H4\iff x_{i1}-x_{i2}\text{ do not all share one sign (fails with probability }2^{1-n})",
        checks=[_h4_width_two], regimes=("n=d", "n>d"),
        note="found by the edge shapes (d = 2): at d = 2, H4 fails on a set of positive measure even for n >= d",
        formal_gap=FormalGap("not-yet-proved", "the sign characterisation (sigma_i = |x_i1 - x_i2| / 2 at d = 2) is "
                             "elementary over a real closed field; the probability 2^(1-n) needs n independent "
                             "symmetric draws in MathComp-Analysis's measure theory; not written"))],
    notion="exact-rank",
    corrected=Reading(
        "corrected", r"d\ge3:\ H4\text{ holds for Lebesgue-a.e. }X\iff n\ge d",
        form="generic", generic=Generic(space="X in R^{n x d}, d >= 3", variables=("X",), measure="Lebesgue"),
        checks=[lambda ctx: [_as_prediction(_generic_rank_argument(ctx, "n<d"))],
                lambda ctx: [e for e in _h4_generic_regimes(ctx) if e.regime != "n<d"]],
        condition="n >= d and d >= 3; for n < d H4 fails for almost every X, and at d = 2 on a set of positive "
                  "measure",
        formal_gap=FormalGap("not-yet-proved", "the algebraic step is not proved: H4 involves sigma = sqrt(var), not "
                             "a polynomial, so for d >= 3 a non-zero polynomial vanishing on the bad set must be "
                             "exhibited (at d = 2 the set has positive measure); then the null-set lemma"),
                      off_instance=OffInstance("positive-measure", "H4 for Lebesgue-almost-every X, iff n >= d")),
    chapter="rank_neutrality",
)


_INIT_ARITH = "float64 N(0, 0.02^2) draws taken as exact dyadic rationals; decided over QQ"


_INIT_CACHE: dict = process_cache()  # the draws, read by the claim's reading and its corrected reading


def _init_draws(ctx) -> dict:
    """Standard init: X with i.i.d. N(0, 0.02^2) entries (float64, taken exactly), gamma = 1, beta = 0.

    Per regime: how many draws met H1-H4 jointly, failures by hypothesis, and how many showed the
    predicted pattern (H1, H3 hold; H2 fails iff n >= d; H4 fails iff n < d). Once per process (the same
    seeded draws; the claim's two readings read them).
    """
    return kept(_INIT_CACHE, bool(ctx.quick), lambda: _draw_at_init(ctx))


def _draw_at_init(ctx) -> dict:
    rng = np.random.default_rng(stable_seed("RN.hypotheses-at-init:draws"))
    out = {}
    for regime, shapes in TOKEN_SHAPES.items():
        total = all4 = pattern = 0
        fails = {"H1": 0, "H2": 0, "H3": 0, "H4": 0}
        failing = []
        for (nn, dd) in shapes:
            for _ in range(2 if ctx.quick else 5):
                X = rng.normal(0.0, 0.02, size=(nn, dd))
                inst = instance(X)
                a = analyse(inst)
                total += 1
                all4 += a.all_hypotheses
                if not a.all_hypotheses:
                    failing.append(a)
                for k, v in a.hypotheses.items():
                    fails[k] += v is not True
                h4 = (regime != "n<d") if dd >= 3 else (regime != "n<d" and h4_width_two(inst.X))
                want = {"H1": True, "H3": True, "H2": regime == "n<d", "H4": h4}
                pattern += all(a.hypotheses[k] is v for k, v in want.items())
        out[regime] = {"instances": total, "all_hold": all4, "pattern": pattern, "failing": failing,
                       **{f"{k}_failed": v for k, v in fails.items()}}
    return out


def hypotheses_fail_on_box(a: Analysis) -> Evidence | None:
    """The failure of H1-H4 at a draw is robust: rank X = d (so 1_d in row X: H2 fails) or rank XP = n (so sigma in
    col XP = R^n: H4 fails) certified on a box around it by a minor enclosure (exact rational intervals)."""
    X = _instance_of(a).X
    nn, dd = X.shape
    for e in range(4, 16, 3):
        r = Rational(1, 10 ** e)
        if a.hypotheses["H2"] is False:
            cert, what = minor_certificate(box(X, r), dd), f"rank X' = d = {dd}, so 1_d in row X': H2 fails"
        elif a.hypotheses["H4"] is False:
            XP = mat_mul(box(X, r), identity(centring_projector(dd)))
            cert, what = minor_certificate(XP, nn), f"rank X'P = n = {nn}, so sigma in col X'P = R^n: H4 fails"
        else:
            return None
        if cert is not None:
            return failing_box(f"{nn}x{dd} draw: a minor ({cert[0]}, {cert[1]}) lies in [{float(cert[2].lo):.3g}, "
                               f"{float(cert[2].hi):.3g}] over the box, so {what} at every point",
                               certified=True, box=f"|X' - X|_max <= 1/10^{e}",
                               arithmetic="exact rational interval arithmetic (theorems.exact.qinterval)", exact=True,
                               regime=_inst.regime_of(nn, dd))
    return None


def _init_evidence(ctx) -> list[Evidence]:
    """Per regime: H1-H4 jointly on the draws; every failing draw is certified on a box (the failure is robust: an
    open condition, a non-zero minor), the first shown; the generic-rank derivations."""
    out = []
    for regime, c in _init_draws(ctx).items():
        fails = ", ".join(f"{k} {c[f'{k}_failed']}" for k in ("H1", "H2", "H3", "H4"))
        boxes = [hypotheses_fail_on_box(a) for a in c["failing"]]
        certified = [b for b in boxes if b is not None]
        robust = bool(c["failing"]) and len(certified) == len(c["failing"])
        out.append(exact_instances(f"H1-H4 jointly at standard initialisation (failures by hypothesis: {fails})",
                                   met=c["instances"], held=c["all_hold"], regime=regime, arithmetic=_INIT_ARITH,
                                   numbers={**{k: v for k, v in c.items() if k.endswith("_failed")},
                                            **({"certificate": f"each of the {len(certified)} failing draws certified "
                                                              "on a box (the first shown)"} if robust else {})},
                                   label="robust" if robust else "persistent"))
        out.extend(certified[:1])
    out.extend(_generic_rank_argument(ctx, r) for r in TOKEN_SHAPES)
    return out


#: the initialisation law: X with i.i.d. Gaussian entries (equivalent to Lebesgue: the same null sets)
INIT_SPACE = Generic(space="X in R^{n x d} with i.i.d. N(0, 0.02^2) entries, gamma = 1, beta = 0", variables=("X",),
                     measure="the Gaussian initialisation law (its null sets are the Lebesgue-null sets)",
                     fixed="gamma = 1, beta = 0")


def _init_pattern(ctx) -> list[Evidence]:
    """At init the failing hypothesis is H4 when n < d and H2 when n >= d, on every draw."""
    return [exact_instances("predicted failure pattern (H1, H3 hold; H2 fails iff n >= d; H4 fails iff n < d)",
                            met=c["instances"], held=c["pattern"], regime=regime, arithmetic=_INIT_ARITH)
            for regime, c in _init_draws(ctx).items()]


claim(
    id="RN.hypotheses-at-init", section="§4, after Thm 4.2",
    quote="All four hypotheses H1-H4 are mild non-degeneracy conditions that hold at standard initialisation",
    statement=r"X_{ij}\overset{iid}{\sim}\mathcal N(0,0.02^2),\ \gamma=\mathbf 1,\ \beta=0\ \Rightarrow\ H1\wedge H2\wedge H3\wedge H4\ \text{a.s.}",
    hypotheses=("standard initialisation",), conclusion="H1-H4 all hold", regimes=("n<d", "n=d", "n>d"),
    form="generic", generic=INIT_SPACE, notion="exact-rank",
    checks=[_init_evidence],
    readings=[Reading("trained-model", r"\text{H1-H4 at every LayerNorm of a trained BERT (MiniLM-L6)}", checks=[],
                      form="universal", same_as="RN.hypotheses-in-training",
                      note='trained weights instead of initialisation')],
    corrected=Reading(
        "corrected", r"\text{a.s. at init: }H1,H3\text{ always; }H2\iff n<d;\ H4\iff n\ge d\ (d\ge3;\ "
                     r"\text{at }d=2\text{ see RN.H4-generic, width-two})",
        checks=[lambda ctx: [_as_prediction(_generic_rank_argument(ctx, r)) for r in TOKEN_SHAPES],
                _init_pattern],
        condition="H1-H4 hold jointly only on rank-deficient inputs (rank X < min(n, d)), the collapse regime",
        formal_gap=FormalGap("not-yet-proved", "the algebraic step is not proved: H4 involves sigma = sqrt(var), not a "
                             "polynomial of the initialisation, so a non-zero polynomial vanishing on each bad set "
                             "must be exhibited first; then the null-set lemma"),
                      off_instance=OffInstance("positive-measure", "which of H1-H4 hold almost surely at initialisation, by sizes")),
    # the corrected reading is generic too (INIT_SPACE, inherited)
    chapter="rank_neutrality",
)


# --- an independent second exact method (used by the tests to cross-check) --------


# --- further sentences of the paper (coverage) ---


claim(
    id="RN.abstract-neutral", section="Abstract",
    quote="layer normalisation is precisely affine-rank-neutral: it preserves the affine rank of the token "
          "representation set exactly",
    depends_on=("RN.main",),
    statement=r"\operatorname{arank}(\mathrm{LN}(X))=\operatorname{arank}(X)\ \text{for every }X\text{ on which LN is defined (H1)}",
    hypotheses=given("H1"), conclusion=("arank(LN X) = arank(X)", lambda a: a.conclusion_holds),
    instances=POOL, counterexamples=("RN.main",), regimes=("n<d", "n=d", "n>d"),
    readings=[Reading("with-H1-H4", r"H1\wedge H2\wedge H3\wedge H4\Rightarrow\operatorname{arank}\mathrm{LN}(X)=\operatorname{arank}X",
                      hypotheses=H1_H4, conclusion=("arank(LN X) = arank(X)", lambda a: a.conclusion_holds),
                      instances=POOL.only_stored(), counterexamples=("RN.main",), same_as="RN.main",
                      note="the abstract omits the hypotheses of Thm 4.2; with them it is RN.main")],
    chapter="rank_neutrality",
    notion="exact-rank",
)


def _rank_kept(a: Analysis) -> bool | None:
    """rank(LN X) = rank(X)"""
    return _eq(a.rank_LN_X, a.rank_X)


claim(
    id="RN.transparent-H1-H2", section="§3 (Wu et al. paragraph)",
    quote="LayerNorm is exactly transparent under H1–H2 — it preserves rank precisely",
    depends_on=("RN.main",),
    statement=r"H1\wedge H2\Rightarrow\operatorname{arank}\mathrm{LN}(X)=\operatorname{arank}X",
    hypotheses=given("H1", "H2"), conclusion=("arank(LN X) = arank(X)", lambda a: a.conclusion_holds),
    instances=POOL, counterexamples=("RN.main",), regimes=("n<d", "n=d", "n>d"),
    readings=[Reading("matrix-rank", r"H1\wedge H2\Rightarrow\operatorname{rank}\mathrm{LN}(X)=\operatorname{rank}X",
                      hypotheses=given("H1", "H2"), conclusion=_rank_kept,
                      counterexamples=("RN.transparent-H1-H2",),
                      note="the stored instance has gamma_j = 0 (H3 fails): H1-H2 alone do not protect the rank"),
              Reading("matrix-rank-H3-zero-bias",
                      r"H1\wedge H2\wedge H3\wedge\beta=0\Rightarrow\operatorname{rank}\mathrm{LN}(X)=\operatorname{rank}X",
                      hypotheses=given("H1", "H2", "H3", also={"beta = 0": _zero_bias}), conclusion=_rank_kept)],
    chapter="rank_neutrality",
    notion="exact-rank",
)


def _never_hinders(a: Analysis) -> bool | None:
    """arank(LN X) >= arank(X)"""
    return _le(a.arank_X, a.arank_LN_X)


def _never_helps(a: Analysis) -> bool | None:
    """arank(LN X) <= arank(X)"""
    return _le(a.arank_LN_X, a.arank_X)


claim(
    id="RN.neither-helps-nor-hinders", section="§1 gap (i); §3 (Wu, Joudaki); §4 comparisons",
    quote="LN is not passive, it is exactly neutral — it preserves rank precisely, neither helping nor hindering. "
          "[§3:] LN neither prevents collapse (our theorem) nor accelerates it",
    depends_on=("RN.main",),
    statement=r"H1\text{-}H4\Rightarrow\operatorname{arank}\mathrm{LN}(X)\le\operatorname{arank}X\ (\text{never helps})"
              r"\ \wedge\ \operatorname{arank}\mathrm{LN}(X)\ge\operatorname{arank}X\ (\text{never hinders})",
    hypotheses=H1_H4, conclusion=("arank unchanged in both directions", lambda a: a.conclusion_holds),
    instances=POOL, counterexamples=("RN.main",), regimes=("n<d", "n=d", "n>d"), same_as="RN.main", notion="exact-rank",
    readings=[Reading("never-hinders", r"H1\text{-}H4\Rightarrow\operatorname{arank}\mathrm{LN}(X)\ge\operatorname{arank}X",
                      hypotheses=H1_H4, conclusion=_never_hinders,
                      checks=[lambda ctx: [proof_evidence(what="arank(LN X) = rank X >= arank X under H1-H4")]],
                      note="the half that is true: under H1-H4 LN can only keep or raise the affine rank"),
              Reading("never-helps", r"H1\text{-}H4\Rightarrow\operatorname{arank}\mathrm{LN}(X)\le\operatorname{arank}X",
                      hypotheses=H1_H4, conclusion=_never_helps, instances=POOL.only_stored(),
                      counterexamples=("RN.main",)),
              Reading("rate", r"\text{pure attention: }\lim\log\rho_{l+1}/\log\rho_l\ \text{is the same with and "
                              r"without LN after every layer (same weights and inputs)}",
                      checks=[], regimes=("n<d", "n>d"),  # the depth study's exponents with and without LN: fits
                      note="'the collapse rate is controlled by other factors': the rate, the exponent of the doubly "
                           "exponential decay of Dong's relative residual rho_l, is compared on the depth study's "
                           "attention + LN regime; a comparison of two fits is float evidence",
                           formal_gap=FormalGap("numerical-only", "the float rates log rho_(l+1) / log rho_l with and "
                                                                  "without LayerNorm"),
        off_instance=OffInstance("limit", "the ratio log rho_{l+1} / log rho_l as the depth goes to infinity")),
              Reading("ln-does-not-prevent-collapse",
                      r"\rho_l^{\text{no LN}}<2^{-52}\text{ within 12 layers}\Rightarrow\rho_l^{\text{LN}}<2^{-52}"
                      r"\text{ within 12 layers (pure attention, same weights and inputs)}",
                      checks=[], regimes=("n<d", "n>d"),  # certified rho_l with and without LN (numeric layer)
                      note="collapse in Dong's sense (rho_l certainly below 2^-52), decided by certified per-layer "
                           "enclosures: interval evidence",
                           formal_gap=FormalGap("numerical-only", "the certified residuals rho_l with and without "
                                                                  "LayerNorm in the depth study"),
        off_instance=OffInstance("depth-study", "rho_l over 12 layers with and without LN")),
              Reading("ln-does-not-accelerate-collapse",
                      r"\min\{l:\rho_l^{\text{LN}}<2^{-52}\}\ge\min\{l:\rho_l^{\text{no LN}}<2^{-52}\}"
                      r"\ \text{(pure attention, same weights and inputs)}",
                      checks=[], regimes=("n<d", "n>d"),  # certified first layers below 2^-52 (numeric layer)
                      note="'nor accelerates it', read as 'collapse is not reached at an earlier layer'; certified "
                           "layer indices from per-layer enclosures: interval evidence",
                      off_instance=OffInstance("depth-study", "the first layer where rho_l < 2^-52, with and without LN")),
              Reading("ln-does-not-delay-collapse",
                      r"\min\{l:\rho_l^{\text{LN}}<2^{-52}\}\le\min\{l:\rho_l^{\text{no LN}}<2^{-52}\}"
                      r"\ \text{(pure attention, same weights and inputs)}",
                      checks=[], regimes=("n<d", "n>d"),  # certified first layers below 2^-52 (numeric layer)
                      note="'neither helping', read for Dong's collapse: LN does not postpone it to a later layer",
                      off_instance=OffInstance("depth-study", "the first layer where rho_l < 2^-52, with and without LN"))],
    chapter="rank_neutrality",
)


def _edge_instances() -> list[LNInstance]:
    """Edges: n = 2 (d = 2, 3, 4); X = I; a zero gamma_1; beta = e_1 and beta = 2 1 (a constant bias)."""
    out = []
    for X in ([[0, 1], [1, 0]], [[1, 2], [3, 5]], [[0, 1, 2], [2, 1, 0]], [[0, 1, 3], [2, 1, 0]],
              [[1, 0, 0, 0], [0, 1, 0, 0]], [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
              [[1, 2, 4], [0, 3, 1], [2, 2, 2], [5, 0, 1]]):
        d_ = len(X[0])
        for g, b in (((1,) * d_, (0,) * d_), ((1,) * d_, (1,) + (0,) * (d_ - 1)), ((0,) + (1,) * (d_ - 1), (2,) * d_),
                     ((2,) * d_, (1,) * d_)):
            inst = instance(X, g, b)
            if is_H1_nonconstant_rows(inst):
                out.append(inst)
    return out


#: edge instances (n = 2 with d = 2, 3, 4; X = I; a zero gamma_1; beta = e_1 or 2 1), regime "all"
EDGES = Pool(rows=lambda ctx: [("all", "edge", analyse(i)) for i in _edge_instances()], arithmetic=_ARITH,
             decode=decode, describe=describe, instance_from=USER_INSTANCE)


def _at_most_one_more(a: Analysis) -> bool | None:
    """rank(LN X) <= rank(X) + 1"""
    return None if a.rank_X is None else _le(a.rank_LN_X, a.rank_X + 1)


claim(
    id="RN.exceeds-by-at-most-one", section="§4, after Thm 4.2",
    quote="The matrix rank rank(LN(X)) can exceed rank(X) by at most one",
    statement=r"H1\Rightarrow\operatorname{rank}\mathrm{LN}(X)\le\operatorname{rank}X+1\ \text{(any }\gamma,\beta)",
    hypotheses=given("H1"), conclusion=_at_most_one_more, instances=POOL, regimes=("n<d", "n=d", "n>d"),
    same_as="RN.plus-one:bound-only", notion="exact-rank",
    checks=[lambda ctx: [proof_evidence(uses=(1, 5), what="rank(D X~ Gamma + 1 beta^T) <= rank(X~) + 1 <= rank X + 1")],
            EDGES.decide(given("H1"), _at_most_one_more)],
    chapter="rank_neutrality",
)


def _arank_by_shift(X: Matrix) -> int:
    """arank by the paper's formula rank(X - 1 x_1^T) (linalg.affine_rank uses rank([X | 1]) - 1)."""
    return rank(X - ones(X.shape[0]) * X.row(0))


def _two_formulas_agree(a: Analysis) -> bool | None:
    """rank(X - 1 x_1^T) = rank([X | 1]) - 1"""
    return _eq(_arank_by_shift(_instance_of(a).X), a.arank_X)


claim(
    id="RN.arank-definition", section="§4, proof of Thm 4.2",
    quote="The affine rank is arank(S) = rank(X − x_1 1^T), i.e. the dimension of the affine span of S",
    statement=r"\operatorname{rank}(X-\mathbf 1x_1^\top)=\operatorname{rank}[X\mid\mathbf 1]-1=\dim\operatorname{aff}(S)",
    hypotheses={}, conclusion=_two_formulas_agree, instances=POOL, regimes=("n<d", "n=d", "n>d"),
    checks=[lambda ctx: [proof_evidence(uses=(3,), what="arank = rank [X | 1] - 1")],
            EDGES.decide({}, _two_formulas_agree)],
    chapter="rank_neutrality",
    notion="exact-rank",
)


def _step1_holds(a: Analysis) -> bool | None:
    """rows of XP in 1-perp, rank(XP) = rank X, arank(XP) = arank X"""
    i = _instance_of(a)
    Xt = centred(i.X)
    in_perp = all(sum(Xt.row(k)) == 0 for k in range(i.n))
    if a.rank_Xt is None or a.rank_X is None or a.arank_X is None:
        return None if in_perp else False
    return in_perp and a.rank_Xt == a.rank_X and affine_rank(Xt) == a.arank_X


claim(
    id="RN.step1", section="§4, proof of Thm 4.2, Step 1",
    quote=r"the affine span of {\tilde x_i} is a subset of 1^⊥. By H2, 1 ∉ rowspace(X), so rank(XP) = rank(X) "
          r"(the projection is injective on rowspace(X)). Hence arank(\tilde S) = arank(S)",
    statement=r"H2\Rightarrow\tilde x_i\perp\mathbf 1,\ \operatorname{rank}(XP)=\operatorname{rank}X,\ "
              r"\operatorname{arank}(XP)=\operatorname{arank}X",
    hypotheses=given("H2"), conclusion=_step1_holds, instances=POOL, regimes=("n<d", "n=d", "n>d"),
    checks=[lambda ctx: [proof_evidence(uses=(0, 1), what="P^2 = P, ker P = span(1), so P is injective on row X iff "
                                                          "1 notin row X")],
            EDGES.decide(given("H2"), _step1_holds)],
    readings=[Reading("without-H2", r"\mathbf 1\in\operatorname{row}X\Rightarrow\operatorname{rank}(XP)=\operatorname{rank}X-1",
                      hypotheses={"1 in row X": lambda a: _not(a.hypotheses["H2"])},
                      conclusion=("rank(XP) = rank X - 1",
                                  lambda a: None if a.rank_X is None else _eq(a.rank_Xt, a.rank_X - 1)),
                      note="the edge: H2 is exactly what Step 1 needs")],
    chapter="rank_neutrality",
    notion="exact-rank",
)


def step3_holds(M: Matrix, gamma, beta) -> bool:
    Y = M * sympy.diag(*gamma) + ones(M.shape[0]) * Matrix([list(beta)])
    return affine_rank(Y) == affine_rank(M)


def _step3_on(a: Analysis) -> bool:
    """arank(X diag(gamma) + 1 beta^T) = arank(X)"""
    i = _instance_of(a)
    return step3_holds(i.X, i.gamma, i.beta)


def _step3_zero_gamma_witness(ctx) -> list[Evidence]:
    """The edge: a zero gamma_1 (H3 fails) can lower the affine rank; an exact witness from the stress rows."""
    for regime, fam, i, _a in cached_stress(ctx):
        g = [Rational(0)] + list(i.gamma[1:])
        if not step3_holds(i.X, g, i.beta):
            Y = i.X * sympy.diag(*g)
            return [exact_complete(f"{fam} {i.n}x{i.d}: gamma_1 = 0 lowers arank from {affine_rank(i.X)} to "
                                    f"{affine_rank(Y)}", True, arithmetic=_ARITH, regime=regime)]
    return [exact_complete("no stress instance lost affine rank with gamma_1 = 0", None, arithmetic=_ARITH,
                            reason="no witness among the stress instances")]


claim(
    id="RN.step3", section="§4, proof of Thm 4.2, Step 3",
    quote="(3a) Right-multiplication by diag(γ) is an invertible linear map (γ_j ≠ 0 by H3), hence preserves affine "
          "rank ... (3b) Adding the constant β translates all points equally",
    statement=r"H3\Rightarrow\operatorname{arank}(M\operatorname{diag}\gamma+\mathbf 1\beta^\top)=\operatorname{arank}M\ \forall M,\beta",
    hypotheses=given("H3"), conclusion=_step3_on, instances=POOL, regimes=("n<d", "n=d", "n>d"),
    checks=[lambda ctx: [proof_evidence(uses=(2, 3), what="[M Gamma + 1 beta^T | 1] = [M | 1] diag(Gamma, 1) C")]],
    readings=[Reading("without-H3", r"n\ge2,\ d\ge1,\ \gamma_1=0\Rightarrow\exists X:\ \operatorname{arank}(X\operatorname{diag}\gamma)<\operatorname{arank}X",
                      checks=[_step3_zero_gamma_witness], form="existential", regimes=("all",),
                      note="the edge: H3 is needed (a zero gamma_j projects out a coordinate)")],
    chapter="rank_neutrality",
    notion="exact-rank",
)


def _scaling_drops(i: LNInstance) -> bool:
    """Row scaling by 1/sigma_i lowers the affine rank of X~ (exactly)."""
    Xt = centred(i.X)
    return arank_LN(LNInstance(Xt, (Rational(1),) * i.d, (Rational(0),) * i.d)) < affine_rank(Xt)


def decrease_needs_sigma(i: LNInstance, a: Analysis) -> bool:
    return (not _scaling_drops(i)) or bool(a.sigma_in_colspace_Xt)


claim(
    id="RN.H4-unique", section="§4, after Thm 4.2",
    quote="This is the unique situation in which row-wise radial rescaling can collapse an affine independence "
          "relation",
    statement=r"\operatorname{arank}(D\tilde X)<\operatorname{arank}(\tilde X)\Rightarrow\sigma\in\operatorname{col}(\tilde X)",
    hypotheses=given("H1", also={"row scaling lowers arank(X~)": lambda a: _scaling_drops(a.inst)}),
    conclusion=("sigma in col(X~)", lambda a: a.sigma_in_colspace_Xt), instances=POOL,
    regimes=("n<d", "n=d", "n>d"),
    checks=[lambda ctx: [proof_evidence(uses=(2, 3, 4), what="arank(D X~) - arank(X~) = [1 in col X~] - [sigma in col X~]")]],
    chapter="rank_neutrality",
    notion="exact-rank",
)


claim(
    id="RN.hypotheses-in-training", section="§4, after Thm 4.2",
    quote="All four hypotheses H1–H4 ... are maintained during training under normal operating conditions",
    statement=r"\text{trained BERT-like model: H1-H4 at every LayerNorm input}",
    hypotheses=("a trained model",), conclusion="H1-H4 hold", regimes=("n<d", "n=d", "n>d"),
    checks=[],  # the trained model's LayerNorm sites (numeric layer)
    readings=[Reading("during-training", r"\text{H1-H4 along the training trajectory}",
                      checks=[lambda ctx: [not_checkable("no training trajectory (checkpoints) is available; the "
                                                         "headline checks the trained end point (all-MiniLM-L6-v2)")]],
                      off_instance=OffInstance("empirical", "training trajectories we do not have"))],
    chapter="rank_neutrality",
    notion="exact-rank",
)


# --- further sentences of §4 (issue 33) ---

#: (maximal sequence length, d_model) of the models the sentence can mean: BERT-base (the paper's running example),
#: GPT-2 small, and all-MiniLM-L6-v2 (the suite's trained model)
MODEL_SIZES = {"BERT-base": (512, 768), "GPT-2 small": (1024, 768), "all-MiniLM-L6-v2": (512, 384)}


def _longer_than_width(model: str):
    def check(ctx) -> list[Evidence]:
        n_max, d_model = MODEL_SIZES[model]
        return [exact_complete(f"{model}: the longest sequence has n = {n_max} tokens, d_model = {d_model}: "
                               + ("n can exceed d" if n_max > d_model else "n <= d for every sequence"),
                               n_max > d_model, arithmetic="exact integers (published configurations)")]
    return check


claim(
    id="RN.n-greater-than-d-common", section="§4, after Thm 4.2",
    quote="(the common case, since sequences are longer than the embedding dimension)",
    statement=r"\text{BERT-base: }n_{\max}=512>d_{\mathrm{model}}=768",
    hypotheses=("BERT-base",), conclusion="sequences longer than the width", regimes=("all",), form="concrete",
    checks=[_longer_than_width("BERT-base")],
    readings=[Reading("gpt2-small", r"\text{GPT-2 small: }n_{\max}=1024>768", checks=[_longer_than_width("GPT-2 small")],
                      form="concrete"),
              Reading("minilm", r"\text{all-MiniLM-L6-v2: }n_{\max}=512>384",
                      checks=[_longer_than_width("all-MiniLM-L6-v2")], form="concrete")],
    depends_on=("RN.H4-generic",), chapter="rank_neutrality",
    off_instance=OffInstance("count", "published n_max and d_model of BERT-base, GPT-2 small and MiniLM"),
)


def effective_rank(M: np.ndarray) -> float:
    """Roy and Vetterli's effective rank exp H(p), p = sigma / sum sigma over the singular values above
    1e-12 sigma_1 (float64 SVD; 1 for M = 0)."""
    s = np.linalg.svd(M, compute_uv=False)
    p = s[s > 1e-12 * s[0]] / s[s > 1e-12 * s[0]].sum()
    return float(np.exp(-(p * np.log(p)).sum()))


def _effective_rank_changes(ctx) -> list[Evidence]:
    """Effective rank (Roy-Vetterli) of X and LN(X) on pool instances meeting H1-H4 (float64 SVDs)."""
    moved = total = 0
    first = None
    for _regime, fam, inst, a in cached_stress(ctx):
        if not all(a.hypotheses[h] for h in ("H1", "H2", "H3", "H4")):
            continue
        X = np.array(inst.X.tolist(), dtype=float)
        Y = T.layer_norm(T.FP, X, [float(g) for g in inst.gamma], [float(b) for b in inst.beta])
        total += 1
        e0, e1 = effective_rank(X), effective_rank(Y)
        if abs(e0 - e1) > 1e-6:
            moved += 1
            first = first or f"{fam} {inst.n}x{inst.d}: {e0:.4f} -> {e1:.4f}"
    return [float_statistic(f"effective rank exp H(sigma / sum sigma) of X and LN(X) on {total} instances meeting "
                            f"H1-H4: changed on {moved}" + (f" (e.g. {first})" if first else ""),
                            None if total == 0 else moved == 0, arithmetic="float64 SVD of exact values",
                            reason="no instance met H1-H4" if total == 0 else None)]


claim(
    id="RN.effective-dimensionality", section="§4, after Thm 4.2",
    quote="This is the statement that matters for representational capacity: the effective dimensionality of the "
          "token representation set is unchanged by layer normalisation",
    statement=r"H1\wedge H2\wedge H3\wedge H4\ \Rightarrow\ \operatorname{arank}(\mathrm{LN}(X))=\operatorname{arank}(X)"
              r"\ \text{(the effective dimensionality: the affine rank)}",
    hypotheses=H1_H4, conclusion=("arank(LN X) = arank(X)", lambda a: a.conclusion_holds),
    instances=POOL, counterexamples=("RN.main",), regimes=("n<d", "n=d", "n>d"),
    notion="exact-rank: the affine rank arank M = rank[M | 1] - 1, over Q",
    readings=[Reading("effective-rank", r"\exp H\bigl(\sigma(\mathrm{LN}X)/\textstyle\sum\sigma\bigr)="
                                        r"\exp H\bigl(\sigma(X)/\textstyle\sum\sigma\bigr)",
                      checks=[_effective_rank_changes], regimes=("all",),
                      notion="effective-rank: float64 SVDs, singular values below 1e-12 sigma_1 dropped",
                      note="'effective dimensionality' read as the effective rank (Roy and Vetterli 2007)")],
    depends_on=("RN.main",), chapter="rank_neutrality",
)
