"""Exact linear algebra on rational matrices (a façade: :mod:`theorems.exact.linalg` for ranks and spaces,
:mod:`theorems.exact.input` for reading numbers exactly, :mod:`theorems.exact.certified_rank` for certified ranks
of large matrices).

>>> from theorems.linalg import exact_matrix, rank, affine_rank
>>> X = exact_matrix([[0, 2, -2], [1, 1, -2], [2, 0, -2]])
>>> rank(X), affine_rank(X)
(2, 1)
"""
from __future__ import annotations

from .exact.certified_rank import CertifiedRank, certified_rank
from .exact.input import (
                          LIMITS,
                          BadInput,
                          check_literal,
                          exact_entries,
                          exact_matrix,
                          exact_number,
                          exact_rows,
                          exact_vector,
                          int_digits_unlimited,
                          to_rational,
)
from .exact.linalg import (
                          affine_rank,
                          centring_projector,
                          in_colspace,
                          in_rowspace,
                          is_rational_square,
                          left_kernel,
                          nullspace,
                          ones,
                          rank,
                          rational_sqrt,
                          to_fmpq_mat,
)

__all__ = ["BadInput", "LIMITS", "check_literal", "exact_entries", "exact_number", "exact_rows",
           "int_digits_unlimited", "to_rational", "exact_matrix", "exact_vector", "to_fmpq_mat", "rank",
           "affine_rank", "in_colspace", "in_rowspace", "ones", "centring_projector", "left_kernel", "nullspace",
           "certified_rank", "CertifiedRank", "rational_sqrt", "is_rational_square"]
