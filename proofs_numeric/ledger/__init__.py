"""The top floor: the only package that imports both layers.

:mod:`.load` loads the claims (``theorems``), the plug-ins and the numeric evidence attached by id
(``proofs_numeric.witnesses.evidence``); :mod:`.run` runs them into a ledger with its provenance; :mod:`.render` prints
it for a terminal; :mod:`.report` renders it for the book; :mod:`.scaffold` writes a new conjecture
(``collapse-verify new``). The command line (:mod:`proofs_numeric.cli`) stands on this floor and loads claims
only through it.
"""
from __future__ import annotations

from proofs_numeric.ledger.load import get, load, load_entry_points, registry, reset_entry_points, select
from proofs_numeric.ledger.render import VERDICT_STYLE, claim_header, render_check, render_claim, render_summary, said
from proofs_numeric.ledger.run import ledger_json, provenance, run_ledger

__all__ = ["get", "load", "load_entry_points", "registry", "reset_entry_points", "select", "VERDICT_STYLE",
           "ledger_json", "provenance", "render_claim", "render_summary", "run_ledger", "claim_header", "render_check",
           "said"]
