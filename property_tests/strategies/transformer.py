"""The transformer maps over every arithmetic context: small rationals, rational matrices, whole instances
(tokens, heads, feed-forward)."""
from __future__ import annotations

from hypothesis import strategies as st
from sympy import Rational

from .validation import check_int


def small_rationals(*, max_numerator: int = 4, max_denominator: int = 4):
    """Exact rationals p/q with |p| <= max_numerator and 1 <= q <= max_denominator (every context reads them)."""
    check_int("max_numerator", max_numerator, min_value=0)
    check_int("max_denominator", max_denominator, min_value=1)
    return st.builds(Rational, st.integers(-max_numerator, max_numerator), st.integers(1, max_denominator))


def rational_matrices(*, n: int, d: int, max_numerator: int = 4, max_denominator: int = 4):
    """An n x d list of lists of :func:`small_rationals`."""
    check_int("n", n, min_value=1)
    check_int("d", d, min_value=1)
    entries = small_rationals(max_numerator=max_numerator, max_denominator=max_denominator)
    return st.lists(st.lists(entries, min_size=d, max_size=d), min_size=n, max_size=n)


def transformer_instances(*, max_n: int = 3, max_d: int = 3, max_heads: int = 2):
    """(X, heads, ffn) with small rational entries: X [n, d] (n <= max_n, 2 <= d <= max_d); heads tuples
    (W_Q, W_K, W_V, W_O) with d_k <= d; ffn (W1 [d, d_ff], b1 [d_ff], W2 [d_ff, d], b2 [d]), d_ff <= 2 d.
    Scores stay O(10), so exp is tame in every context."""
    check_int("max_n", max_n, min_value=1)
    check_int("max_d", max_d, min_value=2)
    check_int("max_heads", max_heads, min_value=1)
    return _transformer_instances(max_n, max_d, max_heads)


@st.composite
def _transformer_instances(draw, max_n, max_d, max_heads):
    n, d = draw(st.integers(1, max_n)), draw(st.integers(2, max_d))
    dk, dff = draw(st.integers(1, d)), draw(st.integers(1, 2 * d))
    M = lambda r, c: draw(rational_matrices(n=r, d=c))
    X = M(n, d)
    heads = [(M(d, dk), M(d, dk), M(d, dk), M(dk, d)) for _ in range(draw(st.integers(1, max_heads)))]
    return X, heads, (M(d, dff), M(1, dff)[0], M(dff, d), M(1, d)[0])
