"""collapse-verify, exact layer: the framework, exact kernels, the paper's claims and users' conjectures.

Rooms (arrows point down; ``property_tests/test_layering.py`` enforces them):

==========================  =================================================================================
``theorems/framework/``     evidence, the verdict rule, claim records, the registry, counterexample storage
                            and the declaration API (``claim()``, ``conjecture()``, ``Pool``); imports nothing
                            else of the project
``theorems/exact/``         kernels, no claims: the exact input reader, linear algebra, certified rank,
                            LayerNorm / RMSNorm, exact softmax and heads, the one transformer over contexts
``theorems/paper/``         one module per theorem of the paper, siblings on one floor, each standing only on
                            ``exact/`` and ``framework/``
``theorems/conjectures/``   users' conjectures (``collapse-verify new`` writes here); they import the public
                            façades (``theorems.conjecture``, ``theorems.blocks``, ``theorems.transformer``,
                            ``theorems.linalg``), ``exact/`` and each other
``theorems/formal/``        the Coq sources, the lemma table and its runner (``evidence`` attaches the lemmas)
==========================  =================================================================================

Importing this package makes sympy use python-flint ground types (set before sympy is first imported) and
registers every claim: every module of ``paper/`` and ``conjectures/`` is imported, so a new
``theorems/conjectures/<slug>.py`` registers its claims with no other edit. A conjecture left at the old
place, ``theorems/<slug>.py``, is still loaded, with a one-line note to move it. Claims from other installed
packages arrive through the ``collapse_verify.claims`` entry point (loaded by the numeric layer's ``ledger``).
The package names its part of the suite, :data:`SUITE_PART`, under the ``collapse_verify.suite`` entry point, beside
the formal layer's (:mod:`theorems.formal.evidence`) and the numeric layer's (:class:`theorems.framework.Suite`).
"""
from __future__ import annotations

import importlib
import os
import pkgutil
import sys
import warnings
from pathlib import Path

if "sympy" not in sys.modules:
    os.environ.setdefault("SYMPY_GROUND_TYPES", "flint")

# The imports below come after the environment variable on purpose: sympy reads it when first imported.
from sympy.external.gmpy import GROUND_TYPES  # noqa: E402 - after SYMPY_GROUND_TYPES is set (see above)

from . import framework  # noqa: E402 - imports sympy: after SYMPY_GROUND_TYPES is set
from .framework import memo  # noqa: E402 - after SYMPY_GROUND_TYPES is set (see above)

#: The ground types sympy actually uses ("flint" is what we ask for).
SYMPY_GROUND_TYPES = GROUND_TYPES
if SYMPY_GROUND_TYPES != "flint":  # exact ranks still go through python-flint directly
    warnings.warn(f"sympy uses {SYMPY_GROUND_TYPES!r} ground types, not 'flint' (sympy was imported before "
                  "theorems, or SYMPY_GROUND_TYPES is set); symbolic steps will be slower", RuntimeWarning,
                  stacklevel=2)  # the line that imported theorems

_HERE = Path(__file__).resolve().parent
#: the packages of this one (a name a conjecture may not take, and which is not a legacy conjecture)
PACKAGES = ("framework", "exact", "paper", "conjectures", "formal", "counterexamples")
#: the public façades users import (kept importable; a conjecture may not take their names either)
FACADES = ("conjecture", "blocks", "transformer", "linalg")


def _legacy_modules() -> list[str]:
    """Users' conjectures left at the old place, ``theorems/<slug>.py`` (anything that is not a façade)."""
    return sorted(m.name for m in pkgutil.iter_modules([str(_HERE)])
                  if not m.ispkg and not m.name.startswith("_") and m.name not in FACADES)


#: dotted module names of every module that declares claims, in load order: the paper, then conjectures
#: (then any left at the old place)
MODULES: list[str] = []
#: "theorems/<path>.py" -> "ExceptionType: message" for every module that failed to import. Such a module is
#: skipped with a warning on stderr, so a broken user conjecture cannot break `rank` or `--version`;
#: `collapse-verify verify` reports these and exits 1.
IMPORT_ERRORS: dict[str, str] = {}
#: legacy module name -> the note printed for it
LEGACY_NOTES: dict[str, str] = {}


def _load(dotted: str, path: str) -> None:
    try:
        importlib.import_module(dotted)
    except (Exception, SystemExit) as e:  # a user module may raise anything at import time
        sys.modules.pop(dotted, None)
        IMPORT_ERRORS[path] = f"{type(e).__name__}: {str(e)[:300]}"
        print(f"collapse-verify: warning: {path} failed to import and is skipped ({IMPORT_ERRORS[path]})",
              file=sys.stderr)
        return
    MODULES.append(dotted)


for _room in ("paper", "conjectures"):
    for _m in sorted(m.name for m in pkgutil.iter_modules([str(_HERE / _room)]) if not m.name.startswith("_")):
        _load(f"{__name__}.{_room}.{_m}", f"theorems/{_room}/{_m}.py")
for _m in _legacy_modules():
    LEGACY_NOTES[_m] = (f"collapse-verify: note: theorems/{_m}.py is a conjecture at the old place; it is loaded, "
                        f"but move it to theorems/conjectures/{_m}.py")
    print(LEGACY_NOTES[_m], file=sys.stderr)
    _load(f"{__name__}.{_m}", f"theorems/{_m}.py")

#: the exact layer's part of the suite (entry point ``collapse_verify.suite: paper``): importing this package registered
#: the paper's claims and users' conjectures above; the part's evidence is the claims' own checks
SUITE_PART = framework.SuitePart("paper", 0, deciding=(memo.DECIDING, memo.NOT_DECIDING))

__all__ = ["framework", "MODULES", "IMPORT_ERRORS", "LEGACY_NOTES", "PACKAGES", "FACADES", "SYMPY_GROUND_TYPES",
           "SUITE_PART"]
