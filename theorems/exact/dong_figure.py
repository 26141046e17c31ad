r"""Dong, Cordonnier & Loukas (ICML 2021), Figure 2, as data: the published curves read exactly, Dong's metric exactly,
and the path-length share of their path-counting figure.

The figure's plotted numbers live in ``theorems/data/dong2021_fig2.csv`` (provenance: ``theorems/data/README.md``;
read from the authors' vector PDFs, 4 decimals). :func:`figure2` reads every value as the exact decimal it spells
(``"0.0035"`` is 35/10000), so every comparison made on it (:func:`first_layer_below`) is exact.

Dong's metric (their notebook): the token mean replaces the argmin residual, and the matrix norm is the composite
sqrt(||.||_1 ||.||_inf) (max column sum times max row sum). :func:`composite_ratio_sq` is its square, exactly, on a
rational matrix (the ratio itself is a square root).

>>> first_layer_below("BERT", "pretrained", "SAN", Fraction(5, 1000))
5
>>> path_share(12, 12, 11) == path_share(12, 12, 12) == Fraction(12, 13) ** 12
True
>>> composite_ratio_sq([[1, 0], [0, 1]])  # R = X - mean = [[1/2, -1/2], [-1/2, 1/2]]: (1 * 1) / (1 * 1)
Fraction(1, 1)
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb
from pathlib import Path

__all__ = ["FIGURE2_CSV", "FigureRow", "figure2", "curve", "first_layer_below", "PRINTS_AS_ZERO", "path_share",
           "path_share_mode", "composite_norm_sq", "composite_ratio_sq", "MODELS", "VARIANTS"]

#: the packaged copy of the figure's numbers (never read from outside the repository)
FIGURE2_CSV = Path(__file__).resolve().parents[1] / "data" / "dong2021_fig2.csv"
#: a ratio "prints as 0.00" (two decimals, as the figure's axis and the command print it) when it is below this
PRINTS_AS_ZERO = Fraction(5, 1000)
MODELS = ("BERT", "Albert", "XLNet")
VARIANTS = ("SAN", "SAN+MLP", "SAN+skip", "transformer")


@dataclass(frozen=True)
class FigureRow:
    model: str
    weights: str
    variant: str
    layer: int
    mean: Fraction
    std: Fraction


@lru_cache(maxsize=1)
def figure2() -> tuple[FigureRow, ...]:
    """Every row of the packaged CSV, values as exact decimals. A malformed file raises ValueError naming the row."""
    out = []
    with FIGURE2_CSV.open(newline="") as f:
        for k, r in enumerate(csv.DictReader(f), start=2):
            try:
                out.append(FigureRow(r["model"], r["weights"], r["variant"], int(r["layer"]),
                                     Fraction(r["mean_ratio"]), Fraction(r["std"])))
            except (KeyError, ValueError, TypeError) as e:
                raise ValueError(f"{FIGURE2_CSV.name} row {k}: {e}") from None
    return tuple(out)


def curve(model: str, weights: str, variant: str) -> list[FigureRow]:
    """One curve of the figure, by layer (0 = the embeddings). Unknown names raise ValueError naming them."""
    rows = sorted((r for r in figure2() if (r.model, r.weights, r.variant) == (model, weights, variant)),
                  key=lambda r: r.layer)
    if not rows:
        raise ValueError(f"no curve {model}/{weights}/{variant} in the figure (models {', '.join(MODELS)}; weights "
                         f"pretrained, init; variants {', '.join(VARIANTS)})")
    return rows


def first_layer_below(model: str, weights: str, variant: str, threshold: Fraction = PRINTS_AS_ZERO) -> int | None:
    """The first layer from which the curve's mean stays below ``threshold`` to the last layer (exact), or None."""
    rows = curve(model, weights, variant)
    first = None
    for r in rows:
        if r.mean < threshold:
            first = r.layer if first is None else first
        else:
            first = None
    return first


def path_share(L: int, H: int, k: int) -> Fraction:
    """The share of paths of length k in an L-layer attention network with H heads and skips: C(L, k) H^k / (H+1)^L
    (each layer contributes the skip or one of its H heads)."""
    if not (L >= 0 and H >= 1 and 0 <= k <= L):
        raise ValueError(f"need L >= 0, H >= 1 and 0 <= k <= L, got L = {L}, H = {H}, k = {k}")
    return Fraction(comb(L, k) * H ** k, (H + 1) ** L)


def path_share_mode(L: int, H: int) -> tuple[list[int], Fraction]:
    """The lengths of largest share (all of them, when tied) and that share, exactly."""
    shares = [path_share(L, H, k) for k in range(L + 1)]
    top = max(shares)
    return [k for k, s in enumerate(shares) if s == top], top


def _rows(X) -> list[list[Fraction]]:
    rows = [[Fraction(v) for v in r] for r in X]
    if not rows or not rows[0] or any(len(r) != len(rows[0]) for r in rows):
        raise ValueError("a non-empty rectangular matrix is needed")
    return rows


def composite_norm_sq(X) -> Fraction:
    """||X||_1 ||X||_inf (max absolute column sum times max absolute row sum), exactly: the square of Dong's
    composite norm."""
    rows = _rows(X)
    col = max(sum(abs(r[j]) for r in rows) for j in range(len(rows[0])))
    row = max(sum(abs(v) for v in r) for r in rows)
    return Fraction(col * row)


def composite_ratio_sq(X) -> Fraction:
    """(||X - 1 mean||_c / ||X||_c)^2 exactly, the mean taken over tokens (rows). X = 0 raises ValueError."""
    rows = _rows(X)
    n = len(rows)
    mean = [sum(r[j] for r in rows) / n for j in range(len(rows[0]))]
    den = composite_norm_sq(rows)
    if den == 0:
        raise ValueError("X = 0: the ratio is undefined")
    return composite_norm_sq([[v - m for v, m in zip(r, mean)] for r in rows]) / den
