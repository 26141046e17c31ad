r"""Dong et al.'s four surgeries of a transformer layer (their Figure 2), on any supported checkpoint, in float64.

The surgery is the authors' (``paper-plotting/surgery.py`` of twistedcubic/attention-rank-collapse, summarised in
``theorems/data/README.md``), written for a post-LN (BERT) layer ``X -> LN2(Z + FFN(Z))``, ``Z = LN1(X + MHA(X))``:

============  =========================================  ===================================================
variant       post-LN (BERT; Dong's surgery)             pre-LN (GPT-2, LLaMA; the same surgery, transposed)
============  =========================================  ===================================================
``SAN``       ``LN1(MHA(X))`` (no skip; FFN = identity)  ``MHA(LN1 X)``
``SAN+MLP``   ``Z = LN1(MHA(X))``; ``LN2(Z + FFN(Z))``   ``Y = MHA(LN1 X)``; ``Y + FFN(LN2 Y)``
``SAN+skip``  ``LN1(X + MHA(X))`` (FFN removed)          ``X + MHA(LN1 X)``
``full``      the layer as trained                       the layer as trained
============  =========================================  ===================================================

``MHA`` includes W_O's bias. "FFN removed" is Dong's ``BertIntermediateId`` + ``BertOutputId``: the layer's output is
the attention sub-block's output, so the MLP's LayerNorm goes too. The hidden states are the embedding output (after
the embeddings' LayerNorm, for post-LN families) and each layer's output, as Hugging Face's ``hidden_states``; a
pre-LN family's final norm is not applied (Dong's layers are the hidden states).
"""
from __future__ import annotations

import numpy as np

from proofs_numeric.model.checkpoint import Checkpoint, LayerWeights

__all__ = ["VARIANTS", "VARIANT_WORDS", "variant_block", "variant_hidden", "composite_norm", "dong_ratio"]

VARIANTS = ("SAN", "SAN+MLP", "SAN+skip", "full")
#: each variant in words (post-LN form), as the command and the book print it
VARIANT_WORDS = {
    "SAN": "attention + W_O + the post-attention LayerNorm, no skip, FFN removed",
    "SAN+MLP": "attention + W_O + LayerNorm without skip, then the MLP sub-block untouched (its own skip and LN)",
    "SAN+skip": "the attention sub-block untouched (skip and LN kept), FFN removed",
    "full": "the layer as trained",
}


def variant_block(m: Checkpoint, X: np.ndarray, L: LayerWeights, variant: str, li: int = 0) -> np.ndarray:
    """One layer of ``m`` under Dong's surgery ``variant`` (see the module docstring).  # [n, d] -> [n, d]"""
    if variant not in VARIANTS:
        raise ValueError(f"variant {variant!r} is not one of {', '.join(VARIANTS)}")
    if variant == "full":
        return m.block(X, L, li)
    where1, where2 = f"L{li}.ln1.input", f"L{li}.ln2.input"
    if m.config.post_ln:
        _, _, mha = m.attend(X, L)
        attn = mha + L.bo
        if variant == "SAN+skip":
            return m.norm_apply(X + attn, L.ln1, where=where1)
        Z = m.norm_apply(attn, L.ln1, where=where1)
        if variant == "SAN":
            return Z
        return m.norm_apply(Z + m.mlp(Z, L), L.ln2, where=where2)
    _, _, mha = m.attend(m.norm_apply(X, L.ln1, where=where1), L)
    attn = mha + L.bo
    if variant == "SAN+skip":
        return X + attn
    if variant == "SAN":
        return attn
    return attn + m.mlp(m.norm_apply(attn, L.ln2, where=where2), L)


def variant_hidden(m: Checkpoint, ids, variant: str, layers: int | None = None) -> list[np.ndarray]:
    """The hidden states under ``variant``: the embedding output, then the output of each of the first ``layers``
    layers (all by default), in float64."""
    if variant not in VARIANTS:
        raise ValueError(f"variant {variant!r} is not one of {', '.join(VARIANTS)}")
    X = m.embeddings(ids)
    emb = m.embedding_norm()
    if emb is not None:
        X = m.norm_apply(X, emb, where="ln_embed.input")
    out = [X]
    for li in range(m.config.n_layers if layers is None else min(layers, m.config.n_layers)):
        X = variant_block(m, X, m.layers[li], variant, li)
        out.append(X)
    return out


def composite_norm(X: np.ndarray) -> float:
    """Dong's matrix norm sqrt(||X||_1 ||X||_inf): max absolute column sum times max absolute row sum, square root."""
    A = np.abs(np.asarray(X, dtype=np.float64))
    return float(np.sqrt(A.sum(axis=0).max() * A.sum(axis=1).max()))


def dong_ratio(X: np.ndarray) -> float:
    """||X - 1 mean||_c / ||X||_c, the mean over tokens (rows), in Dong's composite norm (float64)."""
    X = np.asarray(X, dtype=np.float64)
    den = composite_norm(X)
    if den == 0:
        raise ValueError("X = 0: the ratio is undefined")
    return composite_norm(X - X.mean(axis=0, keepdims=True)) / den
