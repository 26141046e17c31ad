r"""RMSNorm preserves the matrix rank (a true user conjecture, added in one file through the public API).

RMSNorm with :math:`\varepsilon=0`: :math:`y_i=x_i/\operatorname{rms}(x_i)\odot\gamma`,
:math:`\operatorname{rms}(x_i)=\sqrt{\tfrac1d\sum_jx_{ij}^2}`. When every row is non-zero and
:math:`\gamma` has no zero entry, :math:`Y=D X\Gamma` with :math:`D,\Gamma` invertible diagonal, so
:math:`\operatorname{rank}Y=\operatorname{rank}X`. The conclusion is *computed*, not assumed:
:math:`\operatorname{rank}Y` is the rank of :math:`Y` itself in the field
:math:`\mathbb Q(\sqrt{p_1},\dots)` (:func:`theorems.blocks.sqrt_scaled_rank`).
"""
from __future__ import annotations

from sympy import Matrix, Rational

from theorems.blocks import FieldTooLarge, rank, rms_norm_ranks, row_mean_squares
from theorems.conjecture import InstanceForm, conjecture

STATEMENT = (r"x_i\neq0\ \forall i,\ \gamma_j\neq0\ \forall j\ \Rightarrow\ "
             r"\operatorname{rank}\,\mathrm{RMSNorm}(X)=\operatorname{rank}X")


def build_instance(draw, regime: str) -> dict:
    """Rows first, then columns, then entries (so that counterexamples shrink to few rows)."""
    n = draw(1, 4)
    d = {"n<d": n + draw(1, 2), "n=d": n, "n>d": max(1, n - draw(1, 2))}[regime]
    if regime == "n>d" and n == 1:
        n, d = 2, 1
    X = Matrix(n, d, lambda i, j: Rational(draw(-2, 2)))
    gamma = [Rational(draw(-2, 2)) for _ in range(d)]
    return {"X": X, "gamma": gamma}


def from_user(user) -> dict:
    """A user's --X (and --gamma, default ones), read exactly, as the instance {X, gamma}."""
    X = user.matrix("X").sympy(limit=40_000, who="the RMSNorm conjectures")
    g = user.vector("gamma", X.shape[1])
    gamma = [Rational(v.numerator, v.denominator) for v in g.fractions()] if g is not None else [Rational(1)] * X.shape[1]
    return {"X": X, "gamma": gamma}


#: how a user's input becomes an instance (``collapse-verify check USER.rmsnorm-matrix-rank --X ...``)
USER_INSTANCE = InstanceForm(takes=("X",), optional=("gamma",), build=from_user,
                             arithmetic="exact (sympy; ranks of RMSNorm(X) in the field Q(sqrt p_1, ...))",
                             sites=("rmsnorm-input",))


def rows_nonzero(inst) -> bool:
    """Every row of X is non-zero (rms > 0: RMSNorm is defined)."""
    return all(m > 0 for m in row_mean_squares(inst["X"]))


def gamma_nonzero(inst) -> bool:
    """No entry of gamma is zero."""
    return all(g != 0 for g in inst["gamma"])


def field_ranks(inst) -> tuple[int, int] | None:
    """(rank, affine rank) of RMSNorm(X), computed in the field; None (undecided here) when the field
    Q(sqrt p_1, ...) needed is too large (never a guess)."""
    try:
        return rms_norm_ranks(inst["X"], inst["gamma"], method="field")
    except FieldTooLarge:
        return None


def rank_preserved(inst) -> bool | None:
    """rank RMSNorm(X) (computed in the field) equals rank X."""
    ranks = field_ranks(inst)
    return None if ranks is None else ranks[0] == rank(inst["X"])


CLAIM = conjecture(
    id="USER.rmsnorm-matrix-rank",
    section="user conjecture (worked example, true)",
    quote="RMSNorm x -> x / rms(x) * gamma (epsilon = 0) preserves the matrix rank of X when every row is non-zero "
          "and gamma has no zero entry",
    statement=STATEMENT,
    hypotheses={"rows_nonzero": rows_nonzero, "gamma_nonzero": gamma_nonzero},
    conclusion=rank_preserved,
    instances=build_instance,
    instance_from=USER_INSTANCE,
    chapter="rmsnorm_matrix_rank",
    notion="exact-rank",
)
