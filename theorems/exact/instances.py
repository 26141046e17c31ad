"""Exact instance builders shared by the ledger's seeded checks and Hypothesis.

Each builder takes ``draw(lo, hi)``, a callable returning an integer in
``[lo, hi]``. The ledger passes ``random.Random(seed).randint``; the property
tests pass ``lambda lo, hi: data.draw(st.integers(lo, hi))`` so that Hypothesis
can shrink the *structure* (rank, shapes, entries), not just a seed.

Every builder returns a sympy ``Matrix`` of Rationals (exact).

Families (the adversarial ones are what make hypotheses H1-H4 bite):

``generic``      integer entries in [-k, k]
``low_rank``     ``U V^T`` with integer factors, rank <= r
``collinear``    tokens ``p + t_i u`` on one affine line
``coplanar``     tokens ``p + s_i u + t_i v`` on one affine plane
``dong``         Dong's regime ``1 m^T + R`` with ``R`` small
``radial``       ``x_i = c_i u`` (scalar multiples of one centred direction: H4 fails)
"""
from __future__ import annotations

from typing import Callable, NamedTuple

from sympy import Matrix, Rational

Draw = Callable[[int, int], int]

__all__ = ["SHAPE_REGIMES", "FAMILIES", "build", "generic", "low_rank", "collinear", "coplanar", "dong", "radial",
           "regime_of", "Shape", "random_int_matrix"]


class Shape(NamedTuple):
    """An attention shape, always in this order: n tokens, model width d, H heads of width d_k.

    Every table of attention shapes (``DEPTH_SHAPES``, ``WITNESS_SHAPES``, ``EDGE_SHAPES``, ``CERTIFIED_SHAPES``,
    ``HEAD_SHAPES``, ...) holds these, so ``for (n, d, H, d_k) in DEPTH_SHAPES`` means the same everywhere; a table
    of token-matrix shapes (n, d) by shape regime is a ``TOKEN_SHAPES``.
    """
    n: int
    d: int
    H: int
    d_k: int


#: the shape regimes of an n x d input (the values of :func:`regime_of`)
SHAPE_REGIMES = ("n<d", "n=d", "n>d")


def regime_of(n: int, d: int) -> str:
    """The shape regime ``"n<d"``, ``"n=d"`` or ``"n>d"`` of an n x d input."""
    return "n<d" if n < d else ("n=d" if n == d else "n>d")


def generic(draw: Draw, n: int, d: int, k: int = 5) -> Matrix:
    return Matrix(n, d, lambda i, j: Rational(draw(-k, k)))


def low_rank(draw: Draw, n: int, d: int, r: int | None = None, k: int = 3) -> Matrix:
    if r is None:
        r = draw(1, max(1, min(n, d) - 1))
    U = Matrix(n, r, lambda i, j: Rational(draw(-k, k)))
    V = Matrix(d, r, lambda i, j: Rational(draw(-k, k)))
    return U * V.T


def collinear(draw: Draw, n: int, d: int, k: int = 4) -> Matrix:
    p = Matrix(1, d, lambda i, j: Rational(draw(-k, k)))
    u = Matrix(1, d, lambda i, j: Rational(draw(-k, k)))
    return Matrix.vstack(*[p + Rational(draw(-k, k)) * u for _ in range(n)])


def coplanar(draw: Draw, n: int, d: int, k: int = 4) -> Matrix:
    p, u, v = (Matrix(1, d, lambda i, j: Rational(draw(-k, k))) for _ in range(3))
    return Matrix.vstack(*[p + Rational(draw(-k, k)) * u + Rational(draw(-k, k)) * v for _ in range(n)])


def dong(draw: Draw, n: int, d: int, k: int = 5, scale: int = 1000) -> Matrix:
    """``1 m^T + R / scale``: tokens near one common vector (rank-collapse regime)."""
    m = Matrix(1, d, lambda i, j: Rational(draw(-k, k)))
    return Matrix.vstack(*[m + Matrix(1, d, lambda i, j: Rational(draw(-k, k), scale)) for _ in range(n)])


def radial(draw: Draw, n: int, d: int, k: int = 5) -> Matrix:
    """Rows ``c_i u`` with ``u`` centred: sigma is a multiple of ``X u`` (H4 fails)."""
    u = Matrix(1, d, lambda i, j: Rational(draw(-k, k)))
    u = u - Matrix(1, d, [sum(u) / d] * d)
    return Matrix.vstack(*[Rational(draw(1, k)) * u for _ in range(n)])


FAMILIES: dict[str, Callable[[Draw, int, int], Matrix]] = {
    "generic": generic,
    "low_rank": low_rank,
    "collinear": collinear,
    "coplanar": coplanar,
    "dong": dong,
    "radial": radial,
}


def build(family: str, draw: Draw, n: int, d: int) -> Matrix:
    return FAMILIES[family](draw, n, d)


def random_int_matrix(rng, r: int, c: int, k: int = 4) -> Matrix:
    """An r x c matrix of integers drawn uniformly from [-k, k] with ``rng.randint`` (exact Rationals)."""
    return Matrix(r, c, lambda i, j: Rational(rng.randint(-k, k)))
