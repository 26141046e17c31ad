"""Hypothesis strategies for the suite.

Built on :mod:`theorems.instances`: each builder takes ``draw(lo, hi)``, so the
same structured families that feed the ledger's seeded checks feed Hypothesis,
and Hypothesis shrinks the *structure* (shape, rank, entries), not a seed.

Entries are small integers or rationals (exact); nothing here produces NaN or
infinity (those are tested as bad input, separately). Float matrices, where
needed, are drawn with bounded ``elements=st.floats(-1e3, 1e3,
allow_nan=False, allow_infinity=False)``.

Names follow ``hypothesis.extra.numpy``: plural nouns, keyword bounds
``min_*``/``max_*``/``allow_*``.
"""
from __future__ import annotations

from hypothesis import strategies as st
from sympy import Matrix, Rational, eye, zeros

from theorems import instances
from theorems.rank_neutrality import LNInstance

__all__ = ["shapes", "token_matrices", "gammas", "betas", "ln_inputs",
           "ln_inputs_meeting_all_hypotheses", "ln_inputs_breaking", "low_rank_matrices", "value_output_maps",
           "EDGE_MAPS"]

REGIMES = ("n<d", "n=d", "n>d")


@st.composite
def shapes(draw, regime: str | None = None, min_side: int = 2, max_side: int = 6):
    """(n, d) with n < d, n = d or n > d (drawn when ``regime`` is None)."""
    regime = regime or draw(st.sampled_from(REGIMES))
    if regime == "n<d":
        n = draw(st.integers(min_side, max_side - 1))
        d = draw(st.integers(n + 1, max_side))
    elif regime == "n=d":
        n = d = draw(st.integers(max(min_side, 2), max_side))
    else:
        d = draw(st.integers(max(min_side, 2), max_side - 1))
        n = draw(st.integers(d + 1, max_side + 2))
    return n, d


@st.composite
def token_matrices(draw, n: int | None = None, d: int | None = None, regime: str | None = None,
                   families=tuple(instances.FAMILIES)):
    """Exact X from one of the structured families (generic, low rank, collinear, ...)."""
    if n is None or d is None:
        n, d = draw(shapes(regime))
    fam = draw(st.sampled_from(families))
    return instances.build(fam, lambda lo, hi: draw(st.integers(lo, hi)), n, d)


def gammas(d: int, allow_zero: bool = False):
    vals = [Rational(1), Rational(2), Rational(-1), Rational(1, 2), Rational(3, 2)]
    if allow_zero:
        vals.append(Rational(0))
    return st.lists(st.sampled_from(vals), min_size=d, max_size=d)


def betas(d: int, allow_nonzero: bool = True):
    if not allow_nonzero:
        return st.just([Rational(0)] * d)
    return st.one_of(st.just([Rational(0)] * d),
                     st.lists(st.integers(-3, 3).map(Rational), min_size=d, max_size=d))


@st.composite
def ln_inputs(draw, regime: str | None = None, families=tuple(instances.FAMILIES),
              allow_zero_gamma: bool = False, allow_beta: bool = True):
    X = draw(token_matrices(regime=regime, families=families))
    d = X.shape[1]
    return LNInstance(X, tuple(draw(gammas(d, allow_zero_gamma))), tuple(draw(betas(d, allow_beta))))


def ln_inputs_meeting_all_hypotheses(regime: str | None = None):
    """Inputs drawn from the families where H1-H4 can hold jointly (rank-deficient X).

    Generic full-rank X never meets H1-H4 (H2 fails for n >= d, H4 for n < d),
    so the draw uses low-rank, collinear and coplanar tokens; the caller still
    filters on the exact hypotheses and counts how many draws met them.
    """
    return ln_inputs(regime=regime, families=("low_rank", "collinear", "coplanar"))


@st.composite
def ln_inputs_breaking(draw, hypothesis: str, regime: str | None = None):
    """Inputs built to break one hypothesis (the others are left to chance)."""
    inst = draw(ln_inputs(regime=regime, families=("low_rank", "collinear", "coplanar", "radial", "generic")))
    X, g, b = inst.X, list(inst.gamma), list(inst.beta)
    n, d = X.shape
    if hypothesis == "H1":
        i = draw(st.integers(0, n - 1))
        c = Rational(draw(st.integers(-3, 3)))
        X = X.copy()
        X[i, :] = X[i, :] * 0 + X[i, :].applyfunc(lambda _: c)
    elif hypothesis == "H2":
        # a row equal to another plus c * 1 puts 1 in the row space
        i, j = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
        if i != j:
            X = X.copy()
            X[j, :] = X[i, :].applyfunc(lambda v: v + 1)
    elif hypothesis == "H3":
        g[draw(st.integers(0, d - 1))] = Rational(0)
    elif hypothesis == "H4":
        X = instances.radial(lambda lo, hi: draw(st.integers(lo, hi)), n, d)
    else:
        raise ValueError(hypothesis)
    return LNInstance(X, tuple(g), tuple(b))


@st.composite
def low_rank_matrices(draw, n=None, d=None, max_side=6, max_rank=None, k=3):
    """U V with integer factors: rank at most ``max_rank`` (default min(n, d) - 1); sides from 2 (the edge)."""
    n = n or draw(st.integers(2, max_side))
    d = d or draw(st.integers(2, max_side))
    r = draw(st.integers(0, max_rank if max_rank is not None else min(n, d) - 1))
    ints = lambda: st.integers(-k, k).map(Rational)  # noqa: E731
    if r == 0:
        return Matrix.zeros(n, d)
    U = Matrix(n, r, draw(st.lists(ints(), min_size=n * r, max_size=n * r)))
    V = Matrix(r, d, draw(st.lists(ints(), min_size=r * d, max_size=r * d)))
    return U * V


def _antisymmetric(d, draw, k):
    A = zeros(d, d)
    for i in range(d):
        for j in range(i + 1, d):
            A[i, j] = Rational(draw(st.integers(-k, k)))
            A[j, i] = -A[i, j]
    return A


#: the edges of the weight space: zero, (scaled) identity, antisymmetric and permutation products W_V W_O
EDGE_MAPS = ("zero", "identity", "antisymmetric", "permutation")


@st.composite
def value_output_maps(draw, d, heads=None, k=3, allow_edges: bool = False):
    """Per-head W_V W_O (d x d, exact); with ``allow_edges`` some heads are edge maps (:data:`EDGE_MAPS`)."""
    H = heads or draw(st.integers(1, 3))
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
            out.append(Matrix(d, d, lambda i, j: 1 if perm[i] == j else 0))
        else:
            out.append(Matrix(d, d, draw(st.lists(st.integers(-k, k).map(Rational), min_size=d * d,
                                                  max_size=d * d))))
    return out
