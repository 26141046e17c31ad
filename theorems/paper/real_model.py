"""The trained-model readings (all-MiniLM-L6-v2) of the claims that speak about trained BERT-like models.

Each such reading is declared where its claim is (a ``Reading("trained-model", ...)`` with no checks of its
own), so the ledger shows the real-model verdict next to the random-matrix one. Its evidence is numeric: the
numeric layer (its module of the same name) runs the model in numpy and attaches its checks to these
readings by id. Nothing here is computed; this module names the claims that carry a trained-model reading
(a registry test checks the list against the declarations).
"""
from __future__ import annotations

__all__ = ["TRAINED_MODEL_CLAIMS"]

#: the claims with a "trained-model" reading
TRAINED_MODEL_CLAIMS = ("RN.hypotheses-at-init", "RN.main", "HC.main", "RC.alignment", "RRO.main")
