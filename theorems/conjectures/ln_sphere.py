r"""LayerNorm sphere (a conjecture added through the public API, as an example of extending the suite).

After centring and row scaling, before :math:`\gamma` and :math:`\beta`, LayerNorm puts every token
on the sphere of radius :math:`\sqrt{d}` inside the hyperplane :math:`\mathbf 1^\perp`:
:math:`\hat x_i=(x_i-\bar x_i\mathbf 1)/\sigma_i` has :math:`\mathbf 1^\top\hat x_i=0` and
:math:`\|\hat x_i\|^2=d`. Decided exactly: :math:`\|\hat x_i\|^2=\sum_j\tilde x_{ij}^2/s_i` is rational.
"""
from __future__ import annotations

import sympy
from sympy import Matrix, Rational

from theorems.blocks import centred, row_variances
from theorems.conjecture import InstanceForm, conjecture

STATEMENT = (r"\sigma_i>0\ \forall i\ \Rightarrow\ \mathbf 1^\top\hat x_i=0\ \text{and}\ "
             r"\|\hat x_i\|^2=d\ \text{for }\hat x_i=(x_i-\bar x_i\mathbf 1)/\sigma_i")


def build_instance(draw, regime: str) -> Matrix:
    d = draw(2, 6)
    n = {"n<d": draw(1, d - 1), "n=d": d, "n>d": draw(d + 1, d + 4)}[regime]
    return Matrix(n, d, lambda i, j: Rational(draw(-9, 9), draw(1, 4)))


def from_user(user) -> Matrix:
    """A user's --X, read exactly (decimals as the fractions they spell), as the instance."""
    return user.matrix("X").sympy(limit=40_000, who="USER.ln-sphere")


def is_H1_nonconstant_rows(X: Matrix) -> bool:
    """H1 of Thm 4.2: sigma_i > 0 for every row."""
    return all(s > 0 for s in row_variances(centred(X)))


def on_sphere_in_hyperplane(X: Matrix) -> bool:
    """1^T xhat_i = 0 and |xhat_i|^2 = d for every row, exactly."""
    Xt = centred(X)
    s = row_variances(Xt)
    d = X.shape[1]
    return all(sum(Xt.row(i)) == 0 and sum(v * v for v in Xt.row(i)) / s[i] == d for i in range(X.shape[0]))


def _identity() -> bool:
    x = sympy.symbols("x0:4", real=True)
    mu = sum(x) / 4
    xt = [v - mu for v in x]
    s = sum(v * v for v in xt) / 4
    return sympy.simplify(sum(xt)) == 0 and sympy.simplify(sum(v * v for v in xt) / s - 4) == 0


CLAIM = conjecture(
    id="USER.ln-sphere",
    section="user conjecture (issue 7 example)",
    quote="after centring and row scaling, LayerNorm puts every token on the sphere of radius sqrt(d) in 1-perp",
    statement=STATEMENT,
    hypotheses={"is_H1_nonconstant_rows": is_H1_nonconstant_rows},
    conclusion=on_sphere_in_hyperplane,
    instances=build_instance,
    instance_from=InstanceForm(takes=("X",), build=from_user, arithmetic="exact (sympy rationals)",
                               sites=("layernorm-input",)),
    proof_steps=[(r"\sum_j\tilde x_j=0,\ \sum_j\tilde x_j^2/s=d", "d = 4, symbolic entries", "identity", _identity)],
    chapter="ln_sphere",
)
