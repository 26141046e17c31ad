r"""Public exact building blocks for conjectures about transformer maps (a façade over :mod:`theorems.exact`).

Everything is exact: entries are rationals, square roots of rationals are handled by their
*square classes* (:math:`\sqrt{s_i}=f_i\sqrt{m_i}` with :math:`m_i` square-free; square roots of
distinct square-free integers are linearly independent over :math:`\mathbb Q`), and ranks of
matrices with such entries are computed *in the field* :math:`\mathbb Q(\sqrt{p_1},\dots,\sqrt{p_k})`
through its regular representation (an honest computation, not a formula that assumes the answer).

Building blocks
===============
``centred(X)``                     each row minus its mean, ``X P``
``row_variances(Xc)``              :math:`s_i=\sigma_i^2` of the centred rows (rational)
``row_mean_squares(X)``            :math:`\operatorname{ms}_i=\tfrac1d\sum_jx_{ij}^2` (RMSNorm's
                                   :math:`\mathrm{rms}_i^2`)
``sqrt_decomposition(s)``          :math:`(\sqrt{s_i})_i=\sum_k\sqrt{r_k}\tau_k` over square classes
``sigma_in_colspace(A, s)``        exact test of :math:`(\sqrt{s_i})_i\in\operatorname{col}(A)`
``sqrt_scaled_rank(M, s, ...)``    rank of :math:`\operatorname{diag}(1/\sqrt{s_i})M+\mathbf 1\beta^\top` (optionally
                                   bordered by :math:`\mathbf 1`) in the multiquadratic field
``layer_norm_ranks(X, g, b)``      (rank, affine rank) of LayerNorm(X), :math:`\varepsilon=0`
``rms_norm_ranks(X, g)``           (rank, affine rank) of RMSNorm(X) :math:`=x_i/\mathrm{rms}(x_i)\odot\gamma`,
                                   :math:`\varepsilon=0`
``rank``, ``affine_rank``, ``certified_rank``   exact ranks (python-flint) and certified bounds

Examples
========
>>> from sympy import Matrix
>>> rms_norm_ranks(Matrix([[1], [2]]))   # both tokens map to 1: affine rank 1 -> 0
(1, 0)
>>> affine_rank(Matrix([[1], [2]]))
1
>>> layer_norm_ranks(Matrix([[0, 2, -2], [1, 1, -2], [2, 0, -2]]))
(2, 2)
"""
from __future__ import annotations

from .exact.blocks import (
                           FieldTooLarge,
                           centred,
                           layer_norm_ranks,
                           rms_norm_ranks,
                           row_mean_squares,
                           row_variances,
                           sigma_in_colspace,
                           sqrt_decomposition,
                           sqrt_scaled_rank,
)
from .exact.certified_rank import CertifiedRank, certified_rank
from .exact.input import BadInput, exact_matrix, exact_vector
from .exact.linalg import affine_rank, in_colspace, in_rowspace, nullspace, rank

__all__ = ["centred", "row_variances", "row_mean_squares", "sqrt_decomposition", "sigma_in_colspace",
           "sqrt_scaled_rank", "FieldTooLarge", "layer_norm_ranks", "rms_norm_ranks", "rank", "affine_rank",
           "in_colspace", "in_rowspace", "nullspace", "certified_rank", "CertifiedRank", "exact_matrix",
           "exact_vector", "BadInput"]
