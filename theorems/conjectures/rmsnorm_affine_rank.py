r"""RMSNorm preserves the affine rank (a FALSE user conjecture: the suite refutes it and stays green).

Same hypotheses as :mod:`theorems.conjectures.rmsnorm_matrix_rank` (every row non-zero, :math:`\gamma_j\neq0`), but the
conclusion is about the *affine* rank of the token set. RMSNorm has no centring step: row scaling by
:math:`1/\operatorname{rms}(x_i)` can merge tokens that differ by a positive factor. The minimal
counterexample is :math:`X=[1;2]` (two tokens in :math:`\mathbb R^1`): both map to :math:`1`, so the affine
rank drops from 1 to 0. Exactly: :math:`\operatorname{arank}\mathrm{RMSNorm}(X)=\operatorname{rank}X-1+
[\mathrm{rms}\notin\operatorname{col}(X\Gamma)]` (square classes), computed here in the field.
"""
from __future__ import annotations

from theorems.blocks import affine_rank
from theorems.conjecture import conjecture
from theorems.conjectures.rmsnorm_matrix_rank import (
    USER_INSTANCE,
    build_instance,
    field_ranks,
    gamma_nonzero,
    rows_nonzero,
)

STATEMENT = (r"x_i\neq0\ \forall i,\ \gamma_j\neq0\ \forall j\ \Rightarrow\ "
             r"\operatorname{arank}\,\mathrm{RMSNorm}(X)=\operatorname{arank}X")


def affine_rank_preserved(inst) -> bool | None:
    """arank RMSNorm(X) (computed in the field) equals arank X."""
    ranks = field_ranks(inst)
    return None if ranks is None else ranks[1] == affine_rank(inst["X"])


CLAIM = conjecture(
    id="USER.rmsnorm-affine-rank",
    section="user conjecture (worked example, false)",
    quote="RMSNorm x -> x / rms(x) * gamma (epsilon = 0) preserves the affine rank of the token set when every row is "
          "non-zero and gamma has no zero entry",
    statement=STATEMENT,
    hypotheses={"rows_nonzero": rows_nonzero, "gamma_nonzero": gamma_nonzero},
    conclusion=affine_rank_preserved,
    instances=build_instance,
    instance_from=USER_INSTANCE,
    chapter="rmsnorm_affine_rank",
    notion="exact-rank",
)
