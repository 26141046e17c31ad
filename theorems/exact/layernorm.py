r"""LayerNorm exactly: the instance, its hypotheses H1–H4, the exact ranks of LN(X), and the full analysis.

:math:`\mathrm{LN}(X)=DXP\Gamma+\mathbf 1\beta^\top` with :math:`P=I-\tfrac1d\mathbf 1\mathbf 1^\top` (centring),
:math:`D=\operatorname{diag}(1/\sigma_i)` and :math:`\Gamma=\operatorname{diag}(\gamma)`, :math:`\varepsilon=0`.
Every decision is exact over :math:`\mathbb Q`: :math:`\sigma_i=\sqrt{s_i}` enters only through its square
classes (:mod:`theorems.exact.blocks`), ranks through python-flint. The paper's claims about LayerNorm
(:mod:`theorems.paper.rank_neutrality`) and the full-width analysis of float data
(:mod:`theorems.exact.norm_exact`) both read the :class:`Analysis` this module computes.

>>> a = analyse(instance([[1, 0, 0], [1, 1, 0], [1, 2, 0]]))
>>> a.hypotheses, a.arank_X, a.arank_LN_X
({'H1': True, 'H2': True, 'H3': True, 'H4': True}, 1, 2)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import sympy
from sympy import Matrix, Rational

from .blocks import centred, row_variances, sigma_in_colspace, sqrt_decomposition, sqrt_scaled_rank
from .input import BadInput, cap_list, exact_matrix, exact_vector
from .instances import regime_of
from .linalg import affine_rank, in_colspace, in_rowspace, ones, rank, to_fmpq_mat

__all__ = ["HypothesisViolation", "LNInstance", "NormInstance", "instance", "gamma_diag", "is_H1_nonconstant_rows",
           "has_H2_ones_not_in_rowspace", "has_H3_nonzero_gamma", "has_H4_sigma_not_in_colspace", "require_H1",
           "arank_LN", "rank_LN", "Analysis", "analyse", "conclusion", "characterisation",
           "arank_LN_field_embedding", "rank_LN_field_embedding"]


class HypothesisViolation(BadInput):
    """The input breaks a hypothesis that the requested operation needs."""

    def __init__(self, hypothesis: str, message: str):
        self.hypothesis = hypothesis
        super().__init__(f"{hypothesis} fails: {message}")


@dataclass(frozen=True)
class LNInstance:
    X: Matrix                  # [n, d_model], Rational
    gamma: tuple               # [d_model]
    beta: tuple                # [d_model]

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]


class NormInstance(Protocol):
    """What an :class:`Analysis` keeps of the instance it analysed: an :class:`LNInstance`, a user's instance (its
    sympy X built on demand) or a network site's (X known only as enclosures: reading it raises ``Undecidable``)."""

    @property
    def X(self) -> Matrix: ...
    @property
    def gamma(self) -> tuple: ...
    @property
    def beta(self) -> tuple: ...
    @property
    def n(self) -> int: ...
    @property
    def d(self) -> int: ...


def instance(X, gamma=None, beta=None) -> LNInstance:
    """Validate and convert to an exact instance (default gamma = 1, beta = 0)."""
    Xm = exact_matrix(X, "X")
    dd = Xm.shape[1]
    g = exact_vector(gamma, dd, "gamma") if gamma is not None else [Rational(1)] * dd
    b = exact_vector(beta, dd, "beta") if beta is not None else [Rational(0)] * dd
    return LNInstance(Xm, tuple(g), tuple(b))


def gamma_diag(inst: LNInstance) -> Matrix:
    return sympy.diag(*inst.gamma)


def _solve(A: Matrix, b: Matrix) -> Matrix:
    """One exact solution of ``A x = b`` (b in colspace(A) is assumed)."""
    M = to_fmpq_mat(A.row_join(b))
    R, rk = M.rref()
    x = [Rational(0)] * A.shape[1]
    for i in range(int(rk)):
        for j in range(A.shape[1] + 1):
            if R[i, j] != 0:
                if j == A.shape[1]:
                    raise ValueError("b is not in colspace(A)")
                q = R[i, A.shape[1]]
                x[j] = Rational(int(q.p), int(q.q))
                break
    return Matrix(x)


def is_H1_nonconstant_rows(inst: LNInstance) -> bool:
    """H1: sigma_i > 0 for every row (decided exactly: s_i is rational)."""
    return all(si > 0 for si in row_variances(centred(inst.X)))


def has_H2_ones_not_in_rowspace(inst: LNInstance) -> bool:
    """H2: 1_d not in rowspace(X)."""
    return not in_rowspace(inst.X, ones(inst.d))


def has_H3_nonzero_gamma(inst: LNInstance) -> bool:
    """H3: gamma_j != 0 for every j."""
    return all(g != 0 for g in inst.gamma)


def has_H4_sigma_not_in_colspace(inst: LNInstance) -> bool | None:
    """H4: sigma not in colspace(X P). Undefined (None) if H1 fails."""
    Xt = centred(inst.X)
    s = row_variances(Xt)
    if any(si == 0 for si in s):
        return None
    return not sigma_in_colspace(Xt, s)


def require_H1(inst: LNInstance) -> list[Rational]:
    s = row_variances(centred(inst.X))
    bad = [i for i, si in enumerate(s) if si == 0]
    if bad:
        raise HypothesisViolation(
            "H1", f"row(s) [{cap_list(bad)}] of X are constant (sigma = 0), so LayerNorm without epsilon "
                  "divides by zero and is undefined")
    return s


def arank_LN(inst: LNInstance) -> int:
    """Exact affine rank of the rows of LN(X) (needs H1 only).

    ``Sigma [Y | 1] C = [X~ Gamma | sigma]`` (row scaling by sigma_i, column
    operations removing beta), so ``arank(Y) = rank([X~ Gamma | sigma]) - 1``.
    """
    s = require_H1(inst)
    A = centred(inst.X) * gamma_diag(inst)
    return rank(A) - 1 + (0 if sigma_in_colspace(A, s) else 1)


def rank_LN(inst: LNInstance) -> int:
    """Exact matrix rank of LN(X) = D X~ Gamma + 1 beta^T (needs H1 only).

    ``rank(Y) = rank(A + sigma beta^T)`` with ``A = X~ Gamma`` (rows scaled by
    sigma_i), decided by the rank-one-update lemma with exact membership tests.
    """
    s = require_H1(inst)
    A = centred(inst.X) * gamma_diag(inst)
    rA = rank(A)
    beta = Matrix(inst.beta)
    if all(b == 0 for b in inst.beta):
        return rA
    b_in_row = in_rowspace(A, beta)
    if not sigma_in_colspace(A, s):
        return rA if b_in_row else rA + 1
    if not b_in_row:
        return rA
    # sigma = A x with x = sum_k sqrt(r_k) x_k; rank drops iff 1 + beta^T x = 0.
    coeffs = {}
    for r, tau in sqrt_decomposition(s):
        coeffs[r] = (beta.T * _solve(A, tau))[0, 0]
    rational_part = coeffs.get(Rational(1), Rational(0))
    drops = rational_part == -1 and all(c == 0 for r, c in coeffs.items() if r != 1)
    return rA - 1 if drops else rA


@dataclass
class Analysis:
    """Everything the theorem talks about, decided exactly for one instance."""

    n: int
    d: int
    hypotheses: dict
    #: None: undecided (only :class:`theorems.exact.norm_exact.NormAnalysis`, on float input, leaves ranks and
    #: memberships undecided; this module's exact analysis decides every one)
    rank_X: int | None
    arank_X: int | None
    rank_Xt: int | None
    arank_LN_X: int | None
    rank_LN_X: int | None
    ones_d_in_rowspace: bool | None
    ones_n_in_colspace: bool | None
    sigma_in_colspace_Xt: bool | None
    sqrt_classes: int | None
    how: dict = field(default_factory=dict)
    inst: "NormInstance | None" = field(default=None, repr=False, compare=False)  # the instance analysed

    @property
    def all_hypotheses(self) -> bool:
        return all(v is True for v in self.hypotheses.values())

    @property
    def conclusion_holds(self) -> bool | None:
        return None if self.arank_LN_X is None else self.arank_LN_X == self.arank_X

    @property
    def regime(self) -> str:
        return regime_of(self.n, self.d)

    def to_json(self) -> dict:
        return {
            "n": self.n, "d": self.d, "regime": self.regime,
            "hypotheses": {k: {"holds": v, "how": self.how[k]} for k, v in self.hypotheses.items()},
            "rank_X": self.rank_X, "arank_X": self.arank_X,
            "rank_LN_X": self.rank_LN_X, "arank_LN_X": self.arank_LN_X,
            "conclusion_holds": self.conclusion_holds,
            "extra_condition_ones_n_not_in_colspace_X": not self.ones_n_in_colspace,
            "arithmetic": "exact over QQ (python-flint fmpq_mat); sigma via square-class decomposition",
        }


_HOW = {
    "H1": "exact: s_i = sigma_i^2 is rational, compared with 0",
    "H2": "exact: rank([X; 1^T]) == rank(X) over QQ (python-flint)",
    "H3": "exact: each gamma_j compared with 0",
    "H4": "exact: sigma = sum_k sqrt(r_k) tau_k (square classes, no floating point); "
          "sigma in col(XP) iff every rational tau_k is (python-flint rank)",
}


def analyse(inst: LNInstance) -> Analysis:
    """Decide H1-H4, both affine ranks and both matrix ranks exactly."""
    Xt = centred(inst.X)
    s = row_variances(Xt)
    h1 = all(si > 0 for si in s)
    hyp = {"H1": h1, "H2": has_H2_ones_not_in_rowspace(inst), "H3": has_H3_nonzero_gamma(inst),
           "H4": (not sigma_in_colspace(Xt, s)) if h1 else None}
    how = dict(_HOW)
    if not h1:
        how["H4"] = "undefined: sigma has a zero entry (H1 fails)"
    return Analysis(
        n=inst.n, d=inst.d, hypotheses=hyp,
        rank_X=rank(inst.X), arank_X=affine_rank(inst.X), rank_Xt=rank(Xt),
        arank_LN_X=arank_LN(inst) if h1 else None,
        rank_LN_X=rank_LN(inst) if h1 else None,
        ones_d_in_rowspace=not hyp["H2"],
        ones_n_in_colspace=in_colspace(inst.X, ones(inst.n)),
        sigma_in_colspace_Xt=(not hyp["H4"]) if h1 else None,
        sqrt_classes=len(sqrt_decomposition(s)) if h1 else None,
        how=how, inst=inst,
    )


def conclusion(inst: LNInstance) -> bool:
    """The paper's conclusion arank(LN(X)) == arank(X), decided exactly (needs H1)."""
    return arank_LN(inst) == affine_rank(inst.X)


def characterisation(a: Analysis) -> int:
    """The suite's exact formula for arank(LN X) - arank(X) (H1 and H3 assumed)."""
    return ((0 if a.sigma_in_colspace_Xt else 1) - (1 if a.ones_d_in_rowspace else 0)
            - (0 if a.ones_n_in_colspace else 1))


def arank_LN_field_embedding(inst: LNInstance) -> int:
    """arank(LN X) computed from LN(X) itself in exact arithmetic (independent of the formula)."""
    s = require_H1(inst)
    return sqrt_scaled_rank(centred(inst.X) * gamma_diag(inst), s, inst.beta, bordered=True) - 1


def rank_LN_field_embedding(inst: LNInstance) -> int:
    s = require_H1(inst)
    return sqrt_scaled_rank(centred(inst.X) * gamma_diag(inst), s, inst.beta)
