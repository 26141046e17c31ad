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

# Every public module of this package is imported, so a new theorems/<slug>.py (for instance one
# made by `collapse-verify new NAME`) registers its claims with no other edit.
import importlib as _importlib  # noqa: E402
import pkgutil as _pkgutil  # noqa: E402

MODULES = sorted(m.name for m in _pkgutil.iter_modules(__path__) if not m.name.startswith("_"))
for _name in MODULES:
    _importlib.import_module(f"{__name__}.{_name}")

__all__ = ["claims", "MODULES", "SYMPY_GROUND_TYPES"]
