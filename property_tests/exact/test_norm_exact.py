"""theorems.exact.norm_exact: the sympy-free exact LayerNorm/RMSNorm analysis equals the exact references.

LayerNorm: every field of :class:`theorems.exact.layernorm.Analysis` is compared with
``rank_neutrality.analyse`` (sympy + FLINT, the reference path) on seeded families (generic,
low-rank, collinear, coplanar, dong, radial; n < d, n = d, n > d; gamma with zeros; beta or not),
on instances built so that sigma is in col(XP) and the rank-one update drops, on float and integer
arrays, and on Hypothesis draws. RMSNorm: rank and affine rank of RMSNorm(X) are compared with an
independent computation of RMSNorm(X) itself in the multiquadratic field Q(sqrt p_1, ..., sqrt p_m)
(regular representation over Q, FLINT rank).
"""
from __future__ import annotations

import math
import random
from fractions import Fraction

import flint
import numpy as np
import pytest
import sympy
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sympy import Rational

from property_tests.strategies import ln_inputs, rms_inputs, wide_rows
from theorems.exact import blocks as BL
from theorems.exact import instances as I
from theorems.exact import layernorm as LN
from theorems.exact import norm_exact as NE
from theorems.exact.input import BadInput
from theorems.exact.linalg import rank, rational_sqrt
from theorems.exact.norm_exact import ExactRows, analyse_array, row_norm_integers, square_classes
from theorems.paper import rank_neutrality as RN

FIELDS = ("n", "d", "hypotheses", "rank_X", "arank_X", "rank_Xt", "arank_LN_X", "rank_LN_X",
          "ones_d_in_rowspace", "ones_n_in_colspace", "sigma_in_colspace_Xt", "sqrt_classes")
#: the multiquadratic-field reference is skipped when it needs more than 2^5 = 32 basis elements
_MAX_FIELD_PRIMES = 5


def _frac(v) -> Fraction:
    return Fraction(int(v.p), int(v.q))


def _fast(inst: LN.LNInstance, seed=0, **kw):
    X = [[_frac(v) for v in row] for row in inst.X.tolist()]
    return analyse_array(X, [_frac(v) for v in inst.gamma], [_frac(v) for v in inst.beta], seed=seed, **kw)


def _assert_same(inst: LN.LNInstance, f=None):
    a = LN.analyse(inst)
    f = f or _fast(inst)
    diffs = {k: (getattr(a, k), getattr(f, k)) for k in FIELDS if getattr(a, k) != getattr(f, k)}
    assert not diffs, f"reference vs norm_exact differ on {diffs} for X={inst.X.tolist()}, " \
                      f"gamma={list(inst.gamma)}, beta={list(inst.beta)}; how={f.how}"
    return a, f


# --- LayerNorm against rank_neutrality.analyse ---------------------------------------------------

MEDIUM = [(8, 12), (12, 8), (10, 10), (14, 20)]


def _seeded(seed: int, shapes, per: int, allow_zero_gamma: bool = True):
    rng = random.Random(seed)
    for (n, d) in shapes:
        for fam in RN.FAMILIES:
            for _ in range(per):
                X = I.build(fam, rng.randint, n, d)
                choices = [1, 1, 2, -1, Rational(1, 2)] + ([0] if allow_zero_gamma else [])
                g = [Rational(rng.choice(choices)) for _ in range(d)]
                b = ([Rational(rng.randint(-2, 2)) for _ in range(d)] if rng.random() < 0.5 else [Rational(0)] * d)
                yield fam, LN.LNInstance(X, tuple(g), tuple(b))


def test_norm_exact_agrees_with_reference_on_seeded_families(counts):
    shapes = [s for ss in RN.TOKEN_SHAPES.values() for s in ss]
    for fam, inst in _seeded(20261130, shapes, per=2):
        a, f = _assert_same(inst)
        counts[f"{fam}"] += 1
        counts["H1"] += bool(a.hypotheses["H1"])
        counts["sigma in col(XP)"] += bool(a.sigma_in_colspace_Xt)
        counts["rank-deficient"] += a.rank_X < min(a.n, a.d)
    assert counts["sigma in col(XP)"] > 10 and counts["rank-deficient"] > 50, dict(counts)


def test_norm_exact_agrees_with_reference_on_edge_shapes():
    """One row, one or two columns, very wide or very tall."""
    for _fam, inst in _seeded(4, [(1, 1), (1, 3), (3, 1), (2, 2), (5, 2), (1, 6), (6, 2), (2, 9)], per=1):
        _assert_same(inst)


def test_norm_exact_agrees_with_reference_on_medium_matrices(counts):
    for fam, inst in _seeded(7, MEDIUM, per=1):
        _assert_same(inst)
        counts[fam] += 1


@given(ln_inputs(allow_zero_gamma=True))
def test_norm_exact_agrees_with_reference_on_hypothesis_draws(inst):
    _assert_same(inst)


def _radial_rational(rng, n, d):
    """Rows c_i u, c_i > 0, u = (1, -1, 1, -1, ...) (d even): sigma = c is rational and in col(XP)."""
    u = [(-1) ** j for j in range(d)]
    return sympy.Matrix([[c * v for v in u] for c in [rng.choice([1, 2, 3]) for _ in range(n)]])


def _beta_for_drop(X: sympy.Matrix, g, rng):
    """beta = y^T X~ Gamma with y^T sigma = -1: then beta in row(A), sigma in col(A) and 1 + beta^T x = 0."""
    Xt = BL.centred(X)
    s = BL.row_variances(Xt)
    sig = [rational_sqrt(v) for v in s]
    i = next(k for k, v in enumerate(sig) if v != 0)
    y = [Rational(rng.randint(-2, 2)) for _ in range(X.shape[0])]
    y[i] = 0
    y[i] = (-1 - sum(a * b for a, b in zip(y, sig))) / sig[i]
    return [sum(y[k] * Xt[k, j] for k in range(X.shape[0])) * g[j] for j in range(X.shape[1])]


def test_norm_exact_rank_one_update_drops_and_sigma_in_colspace(counts):
    """sigma in col(XP), beta in row(A), 1 + beta^T x = 0: the rank of LN X drops by one (and near misses)."""
    rng = random.Random(3)
    for _ in range(40):
        n, d = rng.randint(2, 7), rng.choice([2, 4, 6])
        X = _radial_rational(rng, n, d)
        g = [Rational(rng.choice([1, 2, -1, Rational(1, 3)])) for _ in range(d)]
        b = _beta_for_drop(X, g, rng)
        if rng.random() < 0.3:
            b = [v * 2 for v in b]  # same memberships, no drop
        a, f = _assert_same(LN.LNInstance(X, tuple(g), tuple(b)))
        counts["drop"] += a.rank_LN_X == rank(BL.centred(X)) - 1
        counts["sigma in col"] += bool(a.sigma_in_colspace_Xt)
    assert counts["drop"] >= 10, dict(counts)


def test_norm_exact_sigma_in_colspace_with_several_square_classes(counts):
    """Rows c_i u and c_j w (two directions, two square classes): membership needs the tau block rank."""
    rng = random.Random(5)
    for _ in range(30):
        d = rng.randint(3, 6)
        u = [rng.randint(-3, 3) for _ in range(d)]
        w = [rng.randint(-3, 3) for _ in range(d)]
        rows = [[c * v for v in (u if rng.random() < 0.5 else w)]
                for c in [rng.randint(1, 3) for _ in range(rng.randint(2, 7))]]
        if rng.random() < 0.5:
            rows.append([a + b for a, b in zip(u, w)])
        X = sympy.Matrix(rows)
        g = [Rational(rng.choice([1, 2, 0, -1])) for _ in range(d)]
        b = [Rational(rng.randint(-1, 1)) for _ in range(d)]
        inst = LN.LNInstance(X, tuple(g), tuple(b))
        a, f = _assert_same(inst)
        counts["tau block"] += any(k.startswith("sigma_in_col") for k in f.certificates)
    assert counts["tau block"] > 5, dict(counts)


@pytest.mark.parametrize("shape", [(3, 7), (6, 6), (9, 4), (20, 30)])
def test_norm_exact_float_and_integer_arrays(shape):
    """Float64, float32 and int64 arrays (floats taken exactly) give the reference's answers."""
    rng = np.random.default_rng(sum(shape))
    n, d = shape
    for X in (rng.normal(size=shape), rng.normal(0, 0.02, size=shape).astype(np.float32),
              rng.integers(-3, 4, size=(n, 2)) @ rng.integers(-3, 4, size=(2, d))):
        g = rng.normal(size=d)
        b = rng.normal(size=d) if rng.random() < 0.5 else None
        inst = LN.instance(X.astype(np.float64) if X.dtype == np.float32 else X, g, b)
        _assert_same(inst, analyse_array(X, g, b, seed=1))


def test_norm_exact_large_generic_float_decided_structurally():
    """At 200 x 300 float64 every field is decided, from ranks mod p and structure alone."""
    X = np.random.default_rng(0).normal(size=(200, 300))
    a = analyse_array(X, seed=0)
    assert a.hypotheses == {"H1": True, "H2": True, "H3": True, "H4": False}
    assert (a.rank_X, a.arank_X, a.rank_Xt, a.arank_LN_X, a.rank_LN_X, a.sqrt_classes) == (200, 199, 200, 199, 200, 200)
    b = analyse_array(X.T, seed=0)  # n > d: H2 fails, H4 holds (more square classes than rank XP)
    assert b.hypotheses == {"H1": True, "H2": False, "H3": True, "H4": True}
    assert (b.rank_X, b.arank_X, b.rank_Xt, b.arank_LN_X) == (200, 200, 199, 199)


# --- square classes and the work bound ---------------------------------------------------------

@given(st.lists(st.tuples(st.sampled_from([1, 2, 3, 5, 6, 7, 10, 18, 98]), st.integers(1, 10 ** 6)),
                min_size=1, max_size=12))
def test_norm_exact_square_classes_exact(pairs):
    """q_i = r_i a_i^2: i and j share a class iff r_i r_j is a square (checked with isqrt)."""
    q = [r * a * a for r, a in pairs]
    classes, lower, rational, _ = square_classes(q)
    assert sorted(i for c in classes for i in c) == list(range(len(q)))
    key = [math.prod(p for p, e in sympy.factorint(r).items() if e % 2) for r, _ in pairs]
    for c in classes:
        assert len({key[i] for i in c}) == 1
    assert len(classes) == len(set(key)) and lower <= len(classes)
    assert (rational is not None) == (1 in key)


def test_norm_exact_square_class_bound_gives_none_with_reason_never_a_guess():
    """Past max_square_tests the classes are undecided; every field still given equals the reference."""
    rng = random.Random(9)
    undecided = 0
    for _ in range(15):
        X = _radial_rational(rng, rng.randint(3, 6), 4)
        inst = LN.LNInstance(X, (Rational(1),) * 4, (Rational(1), Rational(0), Rational(0), Rational(-1)))
        a = LN.analyse(inst)
        f = _fast(inst, max_square_tests=0)
        assert f.sqrt_classes is None and "undecided" in f.how["sqrt_classes"]
        for k in FIELDS:
            if getattr(f, k) is not None and k != "hypotheses":
                assert getattr(f, k) == getattr(a, k), k
        for h, v in f.hypotheses.items():
            assert v in (a.hypotheses[h], None)
        undecided += f.rank_LN_X is None or f.hypotheses["H4"] is None
    assert undecided > 0


# --- RMSNorm against RMSNorm(X) computed in Q(sqrt p_1, ..., sqrt p_m) ---------------------------

def _rank_in_multiquadratic_field(rows: list[list[dict]]) -> int | None:
    """Rank over R of a matrix whose entries are sums sum_m c_m sqrt(m) (m square-free), or None if too big."""
    primes = sorted({p for row in rows for e in row for m in e for p in sympy.primefactors(m)})
    if len(primes) > _MAX_FIELD_PRIMES:
        return None
    dim = 1 << len(primes)
    mask = lambda m: sum(1 << k for k, p in enumerate(primes) if m % p == 0)
    big = [[flint.fmpq(0)] * (len(rows[0]) * dim) for _ in range(len(rows) * dim)]
    for i, row in enumerate(rows):
        for j, e in enumerate(row):
            for m, c in e.items():
                S = mask(m)
                for T in range(dim):  # e_S e_T = (prod of primes in S and T) e_{S xor T}
                    f = math.prod(p for k, p in enumerate(primes) if (S >> k) & 1 and (T >> k) & 1)
                    big[i * dim + (S ^ T)][j * dim + T] += flint.fmpq(c.numerator * f, c.denominator)
    r = int(flint.fmpq_mat(big).rank())
    assert r % dim == 0
    return r // dim


def _rms_rows(X, g, b, bordered: bool):
    """RMSNorm(X) entries x_ij gamma_j / rho_i + beta_j, rho_i = sqrt(mean_j x_ij^2), as field elements."""
    d = len(X[0])
    out = []
    for row in X:
        s = sum(v * v for v in row) / d                  # rho_i^2 = a / b
        a, bb = s.numerator, s.denominator
        f, m = 1, 1
        for p, e in sympy.factorint(a * bb).items():  # keys may be flint fmpz (flint ground types)
            f *= int(p) ** (int(e) // 2)
            m *= int(p) ** (int(e) % 2)
        inv = Fraction(f, a)                              # 1 / rho_i = (f / a) sqrt(m)
        r = []
        for j in range(d):
            e = {m: row[j] * g[j] * inv}
            e[1] = e.get(1, Fraction(0)) + b[j]
            r.append(e)
        if bordered:
            r.append({1: Fraction(1)})
        out.append(r)
    return out


@settings(max_examples=15)
@given(rms_inputs(max_rows=5))
def test_norm_exact_rmsnorm_matches_field_embedding(data):
    X, g, b = data
    f = analyse_array(X, g, b, norm="rmsnorm", seed=0)
    assert f.hypotheses["H1"] and f.hypotheses["H3"] == all(v != 0 for v in g)
    r = _rank_in_multiquadratic_field(_rms_rows(X, g, b, bordered=False))
    ra = _rank_in_multiquadratic_field(_rms_rows(X, g, b, bordered=True))
    assume(r is not None and ra is not None)  # None: the field needs more than 2^5 basis elements
    assert (f.rank_LN_X, f.arank_LN_X) == (r, ra - 1)


def test_norm_exact_rmsnorm_structured_cases_match_field_embedding(counts):
    """Radial rows (rho in col X), gamma with zeros, beta built for a drop: RMSNorm ranks in the field."""
    rng = random.Random(11)
    for _ in range(30):
        n, d = rng.randint(2, 5), rng.randint(2, 5)
        u = [Fraction(rng.randint(-3, 3)) for _ in range(d)]
        if not any(u):
            u[0] = Fraction(1)
        X = [[rng.choice([1, 2, 3, -2]) * v for v in u] for _ in range(n)]
        if rng.random() < 0.4:
            X.append([Fraction(rng.randint(-2, 2)) for _ in range(d)])
            if not any(X[-1]):
                X.pop()
        g = [Fraction(rng.choice([1, 2, -1, 0])) for _ in range(d)]
        b = [Fraction(rng.randint(-2, 2)) * g[j] * u[j] for j in range(d)] if rng.random() < 0.6 else \
            [Fraction(rng.randint(-1, 1)) for _ in range(d)]
        f = analyse_array(X, g, b, norm="rmsnorm", seed=1)
        r = _rank_in_multiquadratic_field(_rms_rows(X, g, b, bordered=False))
        ra = _rank_in_multiquadratic_field(_rms_rows(X, g, b, bordered=True))
        if r is None:
            continue
        assert (f.rank_LN_X, f.arank_LN_X) == (r, ra - 1), (X, g, b, f.how)
        counts["checked"] += 1
        counts["rho in col X"] += bool(f.sigma_in_colspace_Xt)
    assert counts["checked"] > 20 and counts["rho in col X"] > 5, dict(counts)


def test_norm_exact_layernorm_matches_field_embedding_directly():
    """LayerNorm(X) itself in the field (independent of both analyses) on small seeded families."""
    checked = 0
    for _fam, inst in _seeded(17, [(3, 4), (4, 3), (3, 3)], per=2):
        if not LN.is_H1_nonconstant_rows(inst):
            continue
        try:
            want = LN.arank_LN_field_embedding(inst), LN.rank_LN_field_embedding(inst)
        except BL.FieldTooLarge:
            continue
        f = _fast(inst)
        assert (f.arank_LN_X, f.rank_LN_X) == want
        checked += 1
    assert checked > 10


# --- bad input -----------------------------------------------------------------------------------

@pytest.mark.parametrize("X, match", [
    (np.array([[1.0, np.nan]]), "NaN"),
    ([[1, 2], [3]], "ragged"),
    ([], "non-empty"),
    (np.zeros((0, 3)), "non-empty"),
])
def test_norm_exact_bad_input_is_refused(X, match):
    with pytest.raises(BadInput, match=match):
        analyse_array(X)


def test_norm_exact_bad_vectors_and_norm_are_refused():
    with pytest.raises(BadInput, match="gamma has length 2"):
        analyse_array([[1, 2, 3]], gamma=[1, 2])
    with pytest.raises(BadInput, match="unknown norm"):
        analyse_array([[1, 2, 3]], norm="batchnorm")


@settings(max_examples=25)
@given(ln_inputs(allow_zero_gamma=True))
def test_norm_exact_vectors_as_fractions_give_what_the_reader_gives(inst):
    """gamma, beta given as ints and Fractions (the form the exact reader hands on, taken as they are) are decided as
    the same values given as "p/q" strings (read by the one exact reader): every hypothesis, rank and class count."""
    X = [[Fraction(int(v.p), int(v.q)) for v in row] for row in inst.X.tolist()]
    g = [Fraction(int(v.p), int(v.q)) for v in inst.gamma]
    b = [Fraction(int(v.p), int(v.q)) for v in inst.beta]
    as_ints = [v.numerator if v.denominator == 1 else v for v in g]
    fast = analyse_array(X, as_ints, b, seed=0)
    slow = analyse_array(X, [str(v) for v in g], [str(v) for v in b], seed=0)
    assert _decided(fast) == _decided(slow)


def _decided(a) -> list:
    return [getattr(a, f) for f in ("hypotheses", "rank_X", "arank_X", "rank_LN_X", "arank_LN_X",
                                    "sigma_in_colspace_Xt", "sqrt_classes")]


def test_norm_exact_vectors_as_fractions_keep_a_rank_drop_that_needs_their_signs():
    """The rank drop of LN X (1 + beta^T x = 0) hangs on every value and sign of gamma and beta: given as Fractions
    (taken as they are) it is decided as with the same values as strings, and it is there."""
    rng = random.Random(3)
    drops = 0
    for _ in range(12):
        n, d = rng.randint(2, 7), rng.choice([2, 4, 6])
        X = _radial_rational(rng, n, d)
        g = [Rational(rng.choice([1, 2, -1, Rational(1, 3)])) for _ in range(d)]
        b = _beta_for_drop(X, g, rng)
        Xf = [[Fraction(int(v.p), int(v.q)) for v in row] for row in X.tolist()]
        gf, bf = ([Fraction(int(v.p), int(v.q)) for v in vec] for vec in (g, b))
        fast = analyse_array(Xf, gf, bf, seed=0)
        assert _decided(fast) == _decided(analyse_array(Xf, [str(v) for v in gf], [str(v) for v in bf], seed=0))
        drops += fast.rank_LN_X == rank(BL.centred(X)) - 1
    assert drops >= 6


def test_norm_exact_vectors_of_the_wrong_length_or_kind_are_refused_on_the_fast_path_too():
    with pytest.raises(BadInput, match="beta has length 2"):
        analyse_array([[1, 2, 3]], gamma=[Fraction(1), 2, 3], beta=[Fraction(0), 0])
    with pytest.raises(BadInput, match="gamma"):
        analyse_array([[1, 2, 3]], gamma=[Fraction(1), float("nan"), 3])
    with pytest.raises(BadInput, match="boolean"):  # a bool is not an int here, as everywhere in the reader
        analyse_array([[1, 2, 3]], gamma=[True, 2, 3])


def test_norm_exact_h1_failure_leaves_sigma_quantities_undefined():
    a = analyse_array([[1, 1, 1], [0, 1, 2]], seed=0)
    assert a.hypotheses["H1"] is False and a.hypotheses["H4"] is None
    assert a.arank_LN_X is None and a.rank_LN_X is None and a.sqrt_classes is None
    _assert_same(LN.instance([[1, 1, 1], [0, 1, 2]]), a)


# --- exact row sums ------------------------------------------------------------------------------

@given(wide_rows(max_rows=4, max_cols=9))
def test_norm_exact_row_sums_are_exact(X):
    """sum z and sum z^2 per row from int64 limbs equal the Python-integer sums (wide exponents included)."""
    E = ExactRows(X)
    Z = E.ints()
    assert row_norm_integers(E) == ([sum(r) for r in Z], [sum(v * v for v in r) for r in Z])


def test_norm_exact_rank_beyond_the_budgets_is_none_with_reason(monkeypatch):
    """Rank 10 from factors with 30-bit entries (no p-adic room, kernel too large) and no exact fallback:
    the ranks it cannot certify are None with the interval in ``how``; whatever it does give is right."""
    monkeypatch.setattr(NE, "EXACT_MAX_ENTRIES", 0)
    rng = np.random.default_rng(0)
    U = [[int(v) for v in row] for row in rng.integers(-2 ** 30, 2 ** 30, size=(14, 4))]
    V = [[int(v) for v in row] for row in rng.integers(-2 ** 30, 2 ** 30, size=(4, 18))]
    X = [[sum(U[i][k] * V[k][j] for k in range(4)) for j in range(18)] for i in range(14)]
    f = analyse_array(X, seed=0)
    assert f.rank_X is None and "undecided" in f.how["rank_X"] and "[4, 14]" in f.how["rank_X"]
    assert f.certificates["rank_X"]["lower"] == 4 and not f.certificates["rank_X"]["certified"]
    a = LN.analyse(LN.instance(X))
    for k in FIELDS:
        if k != "hypotheses" and getattr(f, k) is not None:
            assert getattr(f, k) == getattr(a, k), k
    for h, v in f.hypotheses.items():
        assert v in (a.hypotheses[h], None)
    assert f.to_json()["undecided"]


@pytest.mark.skipif(np.finfo(np.longdouble).nmant <= 52, reason="long double is float64 on this platform")
def test_norm_exact_long_double_is_taken_exactly_not_rounded():
    """[[1, 1 + 2^-60, 0], [1, 1, 0]] in long double has rank 2; rounded to float64 it would have rank 1."""
    X = np.array([[1, 1, 0], [1, 1, 0]], dtype=np.longdouble)
    X[0, 1] += np.longdouble(2) ** -60
    a = analyse_array(X, seed=0)
    assert a.rank_X == 2
    ref = LN.analyse(LN.instance([[1, 1 + Fraction(1, 2 ** 60), 0], [1, 1, 0]]))
    assert (a.rank_X, a.arank_X, a.arank_LN_X) == (ref.rank_X, ref.arank_X, ref.arank_LN_X)
