"""collapse-verify, exact layer: the claim registry and one module per theorem.

Importing this package makes sympy use python-flint ground types (set before
sympy is first imported) and registers every claim of the paper. Claims from
other installed packages arrive through the ``collapse_verify.claims`` entry
point (see :func:`theorems.claims.load_entry_points`).
"""
from __future__ import annotations

import os
import sys

if "sympy" not in sys.modules:
    os.environ.setdefault("SYMPY_GROUND_TYPES", "flint")

from sympy.external.gmpy import GROUND_TYPES  # noqa: E402

#: The ground types sympy actually uses ("flint" is what we ask for).
SYMPY_GROUND_TYPES = GROUND_TYPES
if SYMPY_GROUND_TYPES != "flint":  # exact ranks still go through python-flint directly
    import warnings

    warnings.warn(f"sympy uses {SYMPY_GROUND_TYPES!r} ground types, not 'flint' (sympy was imported before "
                  "theorems, or SYMPY_GROUND_TYPES is set); symbolic steps will be slower", RuntimeWarning)

from . import claims  # noqa: E402,F401
from . import rank_neutrality  # noqa: E402,F401
from . import residual_obstruction  # noqa: E402,F401
from . import dong_collapse  # noqa: E402,F401
from . import head_channel  # noqa: E402,F401
from . import recovery_ambiguity  # noqa: E402,F401
from . import symmetries  # noqa: E402,F401
from . import rank_contraction  # noqa: E402,F401
from . import design_counts  # noqa: E402,F401

__all__ = ["claims", "rank_neutrality", "residual_obstruction", "dong_collapse", "head_channel", "recovery_ambiguity", "symmetries", "rank_contraction", "design_counts",
           "SYMPY_GROUND_TYPES"]
