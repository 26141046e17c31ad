"""The top floor: the only package that imports both layers.

:mod:`.load` loads the claims (``theorems``), the plug-ins and the numeric evidence attached by id
(``proofs_numeric.evidence``); :mod:`.run` runs them into a ledger with its provenance. The command
line (:mod:`proofs_numeric.cli`), the book's renderings (:mod:`proofs_numeric.report`) and the
scaffold of new theorems (:mod:`proofs_numeric.scaffold`) sit on this floor too and load claims
only through it.
"""
from __future__ import annotations

from .load import get, load, load_entry_points, registry, reset_entry_points, select
from .run import VERDICT_STYLE, ledger_json, provenance, render_claim, render_summary, run_ledger

__all__ = ["get", "load", "load_entry_points", "registry", "reset_entry_points", "select", "VERDICT_STYLE",
           "ledger_json", "provenance", "render_claim", "render_summary", "run_ledger"]
