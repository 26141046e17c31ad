"""collapse-verify, exact layer: the claim registry and one module per theorem.

Importing this package makes sympy use python-flint ground types (set before
sympy is first imported) and registers every claim of the paper. Claims from
other installed packages arrive through the ``collapse_verify.claims`` entry
point (loaded by the top floor of the numeric layer, its ``ledger`` package).
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
#: module name -> "ExceptionType: message" for every module that failed to import. Such a module is
#: skipped with a warning on stderr, so a broken user conjecture cannot break `rank` or `--version`;
#: `collapse-verify verify` reports these and exits 1.
IMPORT_ERRORS: dict[str, str] = {}
for _name in MODULES:
    try:
        _importlib.import_module(f"{__name__}.{_name}")
    except (Exception, SystemExit) as _e:  # a user module may raise anything at import time
        sys.modules.pop(f"{__name__}.{_name}", None)
        IMPORT_ERRORS[_name] = f"{type(_e).__name__}: {str(_e)[:300]}"
        print(f"collapse-verify: warning: theorems/{_name}.py failed to import and is skipped "
              f"({IMPORT_ERRORS[_name]})", file=sys.stderr)
MODULES = [m for m in MODULES if m not in IMPORT_ERRORS]

__all__ = ["claims", "MODULES", "IMPORT_ERRORS", "SYMPY_GROUND_TYPES"]
