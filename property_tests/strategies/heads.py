"""Attention heads: per-head value/output maps (with the edges of the weight space), W_O of bounded or full
row rank, integer attention inputs, witness shapes, and float attention setups for the symmetry tests."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.extra import numpy as nps
from sympy import Matrix, Rational, eye, zeros

from proofs_numeric.core.transformer import Head

from .validation import check_bool, check_float, check_int, check_order, check_sides, floats, ints


def integer_attention_inputs(*, n: int | None = None, min_side: int = 2, max_side: int = 5, heads: int | None = None,
                             min_heads: int = 1, max_heads: int = 3, max_entry: int = 3):
    """(X, [W_1, ...]): X n x d and per-head d x d maps, integer entries in [-max_entry, max_entry]
    (exact Rationals); n (unless given) and d drawn from [min_side, max_side], the number of heads
    (unless given) from [min_heads, max_heads]."""
    check_int("n", n, min_value=1, allow_none=True)
    check_sides(min_side, max_side, smallest=1)
    check_int("heads", heads, min_value=1, allow_none=True)
    check_int("min_heads", min_heads, min_value=1)
    check_int("max_heads", max_heads, min_value=1)
    check_order("min_heads", min_heads, "max_heads", max_heads)
    check_int("max_entry", max_entry, min_value=0)
    return _integer_attention_inputs(n, min_side, max_side, heads, min_heads, max_heads, max_entry)


@st.composite
def _integer_attention_inputs(draw, n, min_side, max_side, heads, min_heads, max_heads, k):
    n = n if n is not None else draw(st.integers(min_side, max_side))
    d = draw(st.integers(min_side, max_side))
    X = Matrix(n, d, draw(ints(-k, k, n * d)))
    H = heads if heads is not None else draw(st.integers(min_heads, max_heads))
    return X, [Matrix(d, d, draw(ints(-k, k, d * d))) for _ in range(H)]


def witness_shapes(*, min_side: int = 2, max_side: int = 6, max_heads: int = 3, max_seed: int = 10 ** 6):
    """(n, d, H, d_k, r, seed) for the numeric witnesses: r < min(n, d), d_k <= d. The seed is the
    witness function's own argument (it draws its Gaussian heads from it), not a generator here."""
    check_sides(min_side, max_side, smallest=2)
    check_int("max_heads", max_heads, min_value=1)
    check_int("max_seed", max_seed, min_value=0)
    return st.integers(min_side, max_side).flatmap(lambda n: st.integers(min_side, max_side).flatmap(
        lambda d: st.tuples(st.just(n), st.just(d), st.integers(1, max_heads), st.integers(1, d),
                            st.integers(1, min(n, d) - 1), st.integers(0, max_seed))))


def _antisymmetric(d, draw, k):
    A = zeros(d, d)
    for i in range(d):
        for j in range(i + 1, d):
            A[i, j] = Rational(draw(st.integers(-k, k)))
            A[j, i] = -A[i, j]
    return A


#: the edges of the weight space: zero, (scaled) identity, antisymmetric and permutation products W_V W_O
EDGE_MAPS = ("zero", "identity", "antisymmetric", "permutation")


def value_output_maps(*, d: int, heads: int | None = None, min_heads: int = 1, max_heads: int = 3,
                      max_entry: int = 3, allow_edges: bool = False):
    """Per-head W_V W_O (d x d, exact, integer entries in [-max_entry, max_entry]); ``heads`` of them
    (drawn from [min_heads, max_heads] when None); with ``allow_edges`` some heads are edge maps
    (:data:`EDGE_MAPS`)."""
    check_int("d", d, min_value=1)
    check_int("heads", heads, min_value=1, allow_none=True)
    check_int("min_heads", min_heads, min_value=1)
    check_int("max_heads", max_heads, min_value=1)
    check_order("min_heads", min_heads, "max_heads", max_heads)
    check_int("max_entry", max_entry, min_value=0)
    check_bool("allow_edges", allow_edges)
    return _value_output_maps(d, heads, min_heads, max_heads, max_entry, allow_edges)


@st.composite
def _value_output_maps(draw, d, heads, min_heads, max_heads, k, allow_edges):
    H = heads or draw(st.integers(min_heads, max_heads))
    out = []
    for _ in range(H):
        kind = draw(st.sampled_from(("generic",) + (EDGE_MAPS if allow_edges else ())))
        if kind == "zero":
            out.append(zeros(d, d))
        elif kind == "identity":
            out.append(Rational(draw(st.integers(-k, k))) * eye(d))
        elif kind == "antisymmetric":
            out.append(_antisymmetric(d, draw, k))
        elif kind == "permutation":
            perm = draw(st.permutations(list(range(d))))
            out.append(Matrix(d, d, lambda i, j, perm=perm: 1 if perm[i] == j else 0))
        else:
            out.append(Matrix(d, d, draw(ints(-k, k, d * d))))
    return out


def w_o_of_rank(*, max_heads: int = 3, max_dk: int = 2, max_d: int = 5, max_entry: int = 3,
                full_row_rank: bool = False):
    """(H, d_k, d, W_O) with W_O the (H d_k) x d product of integer factors of inner dimension r
    (r drawn; rank W_O <= r). With ``full_row_rank`` the shapes satisfy H d_k <= d and W_O has rank
    exactly H d_k by construction: L [I | C] Q with L unit lower triangular and Q a column
    permutation (shrinks to [I | 0])."""
    for name, v in (("max_heads", max_heads), ("max_dk", max_dk), ("max_d", max_d)):
        check_int(name, v, min_value=1)
    check_int("max_entry", max_entry, min_value=0)
    check_bool("full_row_rank", full_row_rank)
    return _w_o_of_rank(max_heads, max_dk, max_d, max_entry, full_row_rank)


@st.composite
def _w_o_of_rank(draw, max_H, max_dk, max_d, k, full_row_rank):
    if not full_row_rank:
        H = draw(st.integers(1, max_H))
        dk = draw(st.integers(1, max_dk))
        d = draw(st.integers(1, max_d))
        r = draw(st.integers(0, min(H * dk, d)))
        if r == 0:
            return H, dk, d, Matrix.zeros(H * dk, d)
        W = Matrix(H * dk, r, draw(ints(-k, k, H * dk * r))) * Matrix(r, d, draw(ints(-k, k, r * d)))
        return H, dk, d, W
    H = draw(st.integers(1, min(max_H, max_d)))
    dk = draw(st.integers(1, min(max_dk, max_d // H)))
    m = H * dk
    d = draw(st.integers(m, max_d))
    L = eye(m)
    for i in range(m):
        for j in range(i):
            L[i, j] = Rational(draw(st.integers(-k, k)))
    C = Matrix(m, d - m, draw(ints(-k, k, m * (d - m))))
    perm = draw(st.permutations(list(range(d))))
    W = (L * eye(m).row_join(C))[:, perm]
    return H, dk, d, W


class AttentionSetup(NamedTuple):
    """A float64 attention instance with everything the symmetry tests transform it by, all drawn."""
    X: np.ndarray          # n x d tokens
    heads: list            # proofs_numeric.core.transformer.Head per head
    gauge_v: np.ndarray    # d_k x d_k, 3 I + E with |E_ij| <= 1/2: invertible, well conditioned
    gauge_qk: np.ndarray   # the same kind, for the query/key gauge
    perm: list             # a permutation of the n tokens
    positions: np.ndarray  # n x d positional encodings


def attention_setups(*, min_n: int = 2, max_n: int = 5, min_d: int = 2, max_d: int = 4, max_dk: int = 3,
                     max_heads: int = 3, max_value: float = 2.0):
    """An :class:`AttentionSetup`: tokens, heads and positions with float entries in
    [-max_value, max_value], gauge matrices 3 I + E (|E_ij| <= 1/2, diagonally dominant for d_k <= 3)."""
    check_int("min_n", min_n, min_value=1)
    check_int("max_n", max_n, min_value=1)
    check_order("min_n", min_n, "max_n", max_n)
    check_int("min_d", min_d, min_value=1)
    check_int("max_d", max_d, min_value=1)
    check_order("min_d", min_d, "max_d", max_d)
    check_int("max_dk", max_dk, min_value=1)
    if max_dk > 4:
        raise InvalidArgument(f"max_dk={max_dk!r} must be at most 4 (the gauge matrices stay diagonally dominant)")
    check_int("max_heads", max_heads, min_value=1)
    check_float("max_value", max_value, min_value=0, exclusive=True)
    return _attention_setups(min_n, max_n, min_d, max_d, max_dk, max_heads, float(max_value))


@st.composite
def _attention_setups(draw, min_n, max_n, min_d, max_d, max_dk, max_heads, m):
    n = draw(st.integers(min_n, max_n))
    d = draw(st.integers(min_d, max_d))
    dk = draw(st.integers(1, max_dk))
    H = draw(st.integers(1, max_heads))
    fl = floats(m)
    arr = lambda shape: draw(nps.arrays(np.float64, shape, elements=fl))
    heads = [Head(arr((d, dk)), arr((d, dk)), arr((d, dk)), arr((dk, d))) for _ in range(H)]
    small = st.floats(-0.5, 0.5, allow_nan=False, allow_infinity=False)
    gauge = lambda: 3 * np.eye(dk) + draw(nps.arrays(np.float64, (dk, dk), elements=small))
    return AttentionSetup(arr((n, d)), heads, gauge(), gauge(), draw(st.permutations(list(range(n)))), arr((n, d)))
