"""One site's exact facts shared across its readings (:mod:`theorems.exact.shared`): the same answers as without the
scope, keys of content (not of shape or identity), a scope that is emptied and bounded, and the readings at a model's
site giving the same records with fewer exact computations."""
from __future__ import annotations

import threading
from contextlib import nullcontext
from fractions import Fraction

import numpy as np
import sympy

from theorems.exact import linalg as LA
from theorems.exact import shared as SH
from theorems.exact.linalg import nonzero_minor, rank, rank_of_pair
from theorems.exact.reader import matrix_from


def _pairs(seed: int = 0):
    """(X, Delta) float64 pairs with known exact structure: integer-valued low-rank products scaled by powers of two
    (exact dyadic rationals of rank r), Gaussian draws (full rank), Delta = -X (rank drops to 0), Delta = 0."""
    rng = np.random.default_rng(seed)
    for n, d, r in [(5, 4, 2), (4, 6, 4), (6, 6, 3), (3, 7, 1), (8, 5, 5), (6, 6, 6)]:
        X = (rng.integers(-3, 4, (n, r)) @ rng.integers(-3, 4, (r, d))).astype(np.float64) / 2.0 ** rng.integers(0, 9)
        for D in (rng.normal(size=(n, d)), -X, np.zeros((n, d)),
                  (rng.integers(-2, 3, (n, 1)) @ rng.integers(-2, 3, (1, d))).astype(np.float64) / 8):
            yield X, D


def _facts(X: np.ndarray, D: np.ndarray) -> tuple:
    Xs, Ds = matrix_from(X, "X").sympy(), matrix_from(D, "Delta").sympy()
    r = rank(Xs)
    return (r, rank(Ds), rank_of_pair("+", Xs, Ds), rank_of_pair("col_join", Xs, Ds),
            rank_of_pair("row_join", Xs, Ds), nonzero_minor(Xs, r), nonzero_minor(Xs, r, exact=False))


def _rational(A: np.ndarray) -> sympy.Matrix:
    """The same values through Fractions (a matrix the reader never registers)."""
    return sympy.Matrix([[sympy.Rational(Fraction(v).numerator, Fraction(v).denominator) for v in row]
                         for row in A.tolist()])


def test_the_shared_facts_are_the_facts_computed_without_the_scope_and_on_the_rationals():
    for X, D in _pairs():
        plain = _facts(X, D)
        with SH.sharing():
            first, again = _facts(X, D), _facts(X, D)  # the second read back from the scope
            assert SH.size() > 0
        assert first == again == plain
        Xq, Dq = _rational(X), _rational(D)  # unregistered: the direct path
        assert plain[:5] == (rank(Xq), rank(Dq), rank(Xq + Dq), rank(Xq.col_join(Dq)), rank(Xq.row_join(Dq)))


def test_the_key_is_the_content_not_the_shape_nor_the_object():
    """Two arrays of one shape and dtype but different values (and one array changed in place) are ranked each on its
    own values inside one scope (a key of shape only, or of identity, answers the first rank for all)."""
    full = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 5.0], [3.0, 0.0, 1.0]])
    low = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, 1.0, 1.5]])
    with SH.sharing():
        assert rank(matrix_from(full, "X").sympy()) == 3
        assert rank(matrix_from(low, "X").sympy()) == 1
        assert rank_of_pair("+", matrix_from(full, "X").sympy(), matrix_from(low, "D").sympy()) == \
            rank(_rational(full) + _rational(low))
        assert rank_of_pair("+", matrix_from(low, "X").sympy(), matrix_from(-low, "D").sympy()) == 0
        a = full.copy()
        assert rank(matrix_from(a, "X").sympy()) == 3
        a[2] = a[0] + a[1]  # the same array object, new values: a new key
        assert rank(matrix_from(a, "X").sympy()) == 2
        assert SH.array_key(a) != SH.array_key(full)
        assert SH.array_key(full.astype(np.float32)) != SH.array_key(full)  # dtype in the key
        assert SH.array_key(full.reshape(1, 9)) != SH.array_key(full)  # shape in the key


def test_each_caller_gets_its_own_matrix_and_only_the_readers_are_registered():
    X = np.array([[1.0, 0.5], [0.25, 2.0]])
    with SH.sharing():
        M1, M2 = matrix_from(X, "X").sympy(), matrix_from(X, "X").sympy()
        assert M1 is not M2 and M1 == M2
        assert SH.key_of(M1) == SH.key_of(M2) == SH.array_key(X)
        M1[0, 0] = 99  # a caller's own copy: the shared conversion is not touched
        assert matrix_from(X, "X").sympy() == M2 != M1
        assert SH.key_of(M2.copy()) is None and SH.key_of(M2 + M2) is None  # derived matrices: not registered
    assert SH.key_of(M2) is None  # the scope has ended


def test_the_scope_is_emptied_at_its_end_nested_in_the_outer_one_per_thread_and_bounded():
    assert not SH.active() and SH.size() == 0
    calls: list[int] = []

    def compute(i):
        calls.append(i)
        return i * i

    with SH.sharing():
        with SH.sharing():  # nested: the same scope
            SH.shared(("k", 1), lambda: compute(1))
        assert SH.shared(("k", 1), lambda: compute(-1)) == 1 and calls == [1]
        seen = []
        t = threading.Thread(target=lambda: seen.append((SH.active(), SH.shared(("k", 1), lambda: 7))))
        t.start()
        t.join(60)
        assert seen == [(False, 7)]  # another thread: no scope, computed
        for i in range(2, SH.MAX_ENTRIES + 10):
            SH.shared(("k", i), lambda i=i: compute(i))
        assert SH.size() <= SH.MAX_ENTRIES
        calls.clear()
        SH.shared(("k", SH.MAX_ENTRIES + 9), lambda: compute(-2))  # the newest: kept
        SH.shared(("k", 1), lambda: compute(1))  # the oldest: dropped, computed again
        assert calls == [1]
        for i in range(SH.MAX_ENTRIES + 10):
            SH.register(np.zeros(1), ("a", i))
        assert SH.size() <= 2 * SH.MAX_ENTRIES
    assert not SH.active() and SH.size() == 0
    assert SH.shared(("k", 1), lambda: compute(5)) == 25  # outside: computed, not kept
    assert SH.size() == 0


# --- the readings at a model's site: the same records, fewer exact computations -------------------------------------

def _sites():
    from proofs_numeric.model.site_ids import SiteId
    from proofs_numeric.model.sites import Site
    rng = np.random.default_rng(3)
    X = (rng.integers(-4, 5, (7, 2)) @ rng.integers(-4, 5, (2, 5))).astype(np.float64) / 4  # rank 2
    D = rng.normal(size=(7, 5))
    meta = {"family": "bert", "n": 7, "d": 5}
    upd = Site("synthetic", "short", SiteId(0, "attn", "update"), "residual-update", 0, {"X": X, "Delta": D},
               meta=meta)
    Xn = rng.normal(size=(6, 5))
    ln = Site("synthetic", "short", SiteId(0, "ln1", "input"), "layernorm-input", 0,
              {"X": Xn, "gamma": rng.normal(size=5), "beta": rng.normal(size=5)}, meta=meta)
    return [(upd, "RRO.only-increase"), (ln, "RN.main")]


def _records(monkeypatch, share: bool):
    from proofs_numeric.model import sites as S
    from theorems.paper import rank_neutrality as RN
    if not share:
        monkeypatch.setattr(S, "sharing", nullcontext)
    counts = {"rank": 0, "analyse": 0}
    real_rank, real_analyse = LA.rank_of_fmpq, RN.analyse_array

    def counting_rank(*a, **k):
        counts["rank"] += 1
        return real_rank(*a, **k)

    def counting_analyse(*a, **k):
        counts["analyse"] += 1
        return real_analyse(*a, **k)
    monkeypatch.setattr(LA, "rank_of_fmpq", counting_rank)
    monkeypatch.setattr(RN, "analyse_array", counting_analyse)
    out = []
    for site, cid in _sites():
        items = S.items_by_kind([S.REGISTRY[cid]]).get(site.kind, [])
        with (SH.sharing() if share else nullcontext()):
            for group in S.group_items(items):
                recs = S.evaluate(site, group, {"checkpoint": "synthetic", "config_hash": "", "family": "bert",
                                                  "token_ids": []}, seed=0)
                out.extend({k: v for k, v in r.items() if k != "seconds"} for r in recs)
            if share:  # the contract: the readings never wrote into a matrix the reader registered
                assert SH.registered() or site.kind != "residual-update"
                for obj, key in SH.registered():
                    assert SH.array_key(np.array(obj.tolist(), dtype=np.float64)) == key
    monkeypatch.undo()
    return out, counts


def test_the_readings_at_a_site_give_the_same_records_with_the_facts_computed_once(monkeypatch):
    shared_recs, shared_counts = _records(monkeypatch, True)
    plain_recs, plain_counts = _records(monkeypatch, False)
    assert shared_recs == plain_recs and len(shared_recs) >= 6
    assert {r["claim"] for r in shared_recs} == {"RRO.only-increase", "RN.main"}
    # X, Delta, X + Delta, [X; Delta], [X | Delta] and the minor's ranks once each, against every reading's own
    assert shared_counts["rank"] < plain_counts["rank"]
    assert plain_counts["analyse"] >= 2 and shared_counts["analyse"] == 1  # RN.main's literal and trained-model


def test_a_shared_layernorm_analysis_is_keyed_by_every_exact_value_of_gamma_and_beta():
    """In a sharing scope, the LayerNorm analysis of a user's input is kept under the content of X, gamma and beta:
    gamma = (1, 1/2, -1/2) and gamma' = (1/3, 1/3, -1/3) share their numerators but not the rank of LN X (3 and 2
    here, beta fixed), and each is decided as outside the scope. (Planted: the key by numerators only: red.)"""
    from theorems.exact.reader import ExactVector, UserInput
    from theorems.paper.rank_neutrality import from_user
    X = np.array([[-1, 1, 1], [-3, 0, -1], [-3, 3, -3]], dtype=np.float64)
    beta = [-2, 1, -1]
    gammas = ([1, Fraction(1, 2), Fraction(-1, 2)], [Fraction(1, 3), Fraction(1, 3), Fraction(-1, 3)])

    def user(g) -> UserInput:
        return UserInput(matrices={"X": matrix_from(X, "X")},
                         vectors={"gamma": ExactVector(list(g), "gamma", "test"),
                                  "beta": ExactVector(list(beta), "beta", "test")}, seed=0)
    alone = [from_user(user(g)).rank_LN_X for g in gammas]
    assert alone == [3, 2]
    with SH.sharing():
        assert [from_user(user(g)).rank_LN_X for g in gammas] == alone
