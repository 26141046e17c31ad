"""The trained-model readings (all-MiniLM-L6-v2) of the claims that speak about trained BERT-like models.

Each reading is declared here and listed by the claim it belongs to (so the ledger shows the real-model verdict
next to the random-matrix one, whatever the import order). Its evidence is numeric: the numeric layer runs the
model in numpy and attaches the checks to these readings by id. Nothing here is computed, so this slug's numeric
module (the model, its measurements and these checks) is where the work is.
"""
from __future__ import annotations

from .claims import Reading

__all__ = ["TRAINED_READINGS", "trained_reading"]

#: claim id -> (statement, note) of its "trained-model" reading
TRAINED_READINGS = {
    "RN.hypotheses-at-init": (r"\text{H1-H4 at every LayerNorm of a trained BERT (MiniLM-L6)}",
                              "trained weights instead of initialisation"),
    "RN.main": (r"\operatorname{arank}\mathrm{LN}(X)=\operatorname{arank}X\ \text{at MiniLM's LayerNorms}", ""),
    "HC.main": (r"\text{(a) on MiniLM: }\operatorname{rank}W_O<Hd_k", "exact rank of the trained W_O"),
    "RC.alignment": (r"\text{MiniLM: }\alpha_h\uparrow\Rightarrow\text{alignment}\uparrow", ""),
}


def trained_reading(claim_id: str) -> Reading:
    """The "trained-model" reading of a claim (no checks here: its evidence is attached by the numeric layer)."""
    statement, note = TRAINED_READINGS[claim_id]
    return Reading("trained-model", statement, checks=[], note=note)
