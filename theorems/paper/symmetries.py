r"""Exact invariances of attention and LayerNorm (§9, "symmetry-breaking framework", text not available).

Each symmetry is checked as an exact sympy identity (symbolic entries; softmax kept
symbolic through ``exp``), and what breaks it is exhibited exactly or certified:

``SYM.head-permutation``    MHA is a sum over heads: permuting heads changes nothing.
``SYM.value-output-gauge``  (W_V^h, W_O^h) -> (W_V^h M, M^{-1} W_O^h): each head's contribution is unchanged.
``SYM.query-key-gauge``     (W_Q^h, W_K^h) -> (W_Q^h N, W_K^h N^{-T}): the scores are unchanged.
``SYM.token-permutation``   MHA(Pi X) = Pi MHA(X); broken by causal masks and positional encodings.
``SYM.ln-shift-scale``      LN(a x + c 1) = LN(x) for a > 0; broken by a < 0 (sign flip) and by eps > 0.
``SYM.framework``           "the four collapse phenomena are orbits of the invariance group":
                            not checkable as stated (§9 is missing: no group action, no orbit
                            map, no phenomenon formalised); the precise sub-claims are checked.
"""
from __future__ import annotations

import random

import sympy
from sympy import Matrix, Rational, symbols, zeros

from ..exact import transformer as T
from ..exact.heads import PROOF_STEPS as HC_STEPS
from ..exact.input import BadInput
from ..exact.linalg import all_identically_zero
from ..exact.reader import SYMPY_MAX_ENTRIES
from ..framework import (
    Decided,
    Evidence,
    InstanceForm,
    OffInstance,
    Pool,
    Reading,
    claim,
    derivation,
    exact_complete,
    not_checkable,
    stable_seed,
)

__all__ = ["softmax_rows", "mha_symbolic", "PROOF_STEPS", "breaking_examples"]


def softmax_rows(S: Matrix, causal: bool = False) -> Matrix:
    """Row softmax, exactly (exp kept symbolic): :func:`theorems.transformer.softmax_rows` in the sympy context."""
    return T.softmax_rows(T.SYMPY, S, causal=causal)


def _sym(name, r, c, **kw):
    return Matrix(r, c, lambda i, j: sympy.Symbol(f"{name}{i}{j}", **kw))


def mha_symbolic(X, heads, causal: bool = False):
    """sum_h softmax(X W_Q (X W_K)^T) X W_V W_O, exactly: :func:`theorems.transformer.mha` in the sympy context.

    The scores are not divided by sqrt(d_k) (W_Q absorbs the scale; every identity checked here is
    invariant under it). ``heads``: tuples (W_Q, W_K, W_V, W_O).
    """
    return T.mha(T.SYMPY, X, [T.Head(*h) for h in heads], causal=causal, scale=1)


def _heads(H=2, n=2, d=2, dk=1):
    return [(_sym(f"q{h}_", d, dk, real=True), _sym(f"k{h}_", d, dk, real=True), _sym(f"v{h}_", d, dk, real=True),
             _sym(f"o{h}_", dk, d, real=True)) for h in range(H)]


def _zero(M):
    return all_identically_zero(M)


def _check_head_perm() -> bool:
    X = _sym("x", 2, 2, real=True)
    hs = _heads()
    return _zero(mha_symbolic(X, hs) - mha_symbolic(X, hs[::-1]))


def _check_vo_gauge() -> bool:
    X = _sym("x", 2, 2, real=True)
    (WQ, WK, WV, WO), = _heads(H=1, dk=2)
    M = _sym("m", 2, 2, real=True)
    return _zero(mha_symbolic(X, [(WQ, WK, WV * M, M.inv() * WO)]) - mha_symbolic(X, [(WQ, WK, WV, WO)]))


def _check_qk_gauge() -> bool:
    X = _sym("x", 2, 2, real=True)
    WQ, WK = _sym("q", 2, 2, real=True), _sym("k", 2, 2, real=True)
    N = _sym("m", 2, 2, real=True)
    S1 = X * (WQ * N) * (X * (WK * N.inv().T)).T
    return _zero(S1 - X * WQ * (X * WK).T)


def _perm_matrix(p):
    P = zeros(len(p), len(p))
    for i, j in enumerate(p):
        P[i, j] = 1
    return P


def _check_token_perm() -> bool:
    X = _sym("x", 3, 2, real=True)
    hs = _heads(H=1, n=3)
    P = _perm_matrix([2, 0, 1])
    return _zero(mha_symbolic(P * X, hs) - P * mha_symbolic(X, hs))


def _ln_row(x, a=1, c=0, eps=0, simplify=True):
    """LayerNorm of the row a x + c 1 (:func:`theorems.transformer.layer_norm`, sympy context), simplified."""
    Y = T.layer_norm(T.SYMPY, Matrix([[a * v + c for v in x]]), eps=eps)
    return [sympy.simplify(v) for v in Y] if simplify else list(Y)


def _check_ln() -> bool:
    x = symbols("x0:3", real=True)
    a = sympy.Symbol("a", positive=True)
    c = sympy.Symbol("c", real=True)
    return all_identically_zero(u - v for u, v in zip(_ln_row(x, a, c, simplify=False), _ln_row(x, simplify=False)))


PROOF_STEPS = [
    (r"\sum_hT_{\pi(h)}=\sum_hT_h", "head permutation (symbolic, softmax kept symbolic)", "identity", _check_head_perm),
    (r"A X(W_VM)(M^{-1}W_O)=AXW_VW_O", "value-output gauge", "identity", _check_vo_gauge),
    (r"XW_QN(XW_KN^{-\top})^\top=XW_QW_K^\top X^\top", "query-key gauge", "identity", _check_qk_gauge),
    (r"\mathrm{MHA}(\Pi X)=\Pi\,\mathrm{MHA}(X)", "token-permutation equivariance (n = 3)", "identity", _check_token_perm),
    (r"\mathrm{LN}(ax+c\mathbf 1)=\mathrm{LN}(x),\ a>0", "LayerNorm shift and positive scale", "identity", _check_ln),
]


def breaking_examples() -> dict:
    """Exact instances where each symmetry fails (rational data; exp kept exact)."""
    out = {}
    x = [Rational(1), Rational(2), Rational(4)]
    out["ln a<0"] = (_ln_row(x, -1), _ln_row(x))
    out["ln eps>0"] = (_ln_row(x, 2, 0, Rational(1, 100)), _ln_row(x, 1, 0, Rational(1, 100)))
    X = Matrix([[1, 0], [0, 1], [1, 1]])
    hs = [(Matrix([[1], [0]]), Matrix([[0], [1]]), Matrix([[1], [2]]), Matrix([[1, -1]]))]
    P = _perm_matrix([1, 0, 2])

    def mha_causal(Y):
        return mha_symbolic(Y, hs, causal=True)

    out["causal mask"] = (mha_causal(P * X), P * mha_causal(X))
    Pos = Matrix([[1, 0], [0, 0], [0, 2]])
    f = lambda Y: mha_symbolic(Y + Pos, hs)
    out["positional encoding"] = (f(P * X), P * f(X))
    return out


def _proof(i, what, regime="all") -> Evidence:
    return derivation(PROOF_STEPS, what, uses=(i,), regime=regime, arithmetic="sympy symbolic (exp kept exact)")


def _breaks(key, what) -> list[Evidence]:
    a, b = breaking_examples()[key]
    differs = any(sympy.simplify(u - v) != 0 for u, v in zip(list(a), list(b)))
    return [exact_complete(f"{what}: the two sides differ exactly" if differs else f"{what}: no difference found",
                           False if differs else None, arithmetic="exact (sympy)",
                           reason=None if differs else "sympy found no difference on this instance")]


# --- the invariances on one instance: a user's X and weights (check), and seeded rational instances (the ledger) ---
#
# Softmax is exactly invariant under adding a constant to a row of scores, and injective modulo that shift; so two
# heads give the same output on the same tokens when (i) their scores agree modulo a constant per row and (ii) their
# value-output products X W_V W_O agree. Both are rational: the invariances are decided exactly over Q, with no exp
# and no float. A head that differs in (i) or (ii) does not prove the outputs differ (a sum over heads may still
# agree): that is reported undecided, never fails.

def _row_shift_canon(S: Matrix) -> tuple:
    """The scores modulo a constant per row (each row minus its first entry): equal iff the softmax rows are equal."""
    return tuple(tuple(S[i, j] - S[i, 0] for j in range(S.shape[1])) for i in range(S.shape[0]))


def _head_key(X: Matrix, h, causal: bool = False) -> tuple:
    """(scores modulo row shifts, X W_V W_O) of one head on X: determines the head's output exactly."""
    WQ, WK, WV, WO = h
    return _row_shift_canon(X * WQ * (X * WK).T), tuple(X * WV * WO)


def _perm(n: int) -> Matrix:
    """The cyclic permutation matrix Pi (token i -> i + 1 mod n) the instance forms use."""
    return _perm_matrix([(i + 1) % n for i in range(n)])


def _unitriangular(k: int) -> Matrix:
    """An invertible rational gauge: the k x k upper-triangular matrix of ones (inverse exact, integer)."""
    return Matrix(k, k, lambda i, j: 1 if j >= i else 0)


def _same_heads(pairs, what: str) -> Decided:
    diff = [i for i, (a, b) in enumerate(pairs) if a != b]
    if not diff:
        return Decided(True, f"exact over Q: {what} (scores agree modulo a constant per row and X W_V W_O agrees, in "
                             "every head, so the softmax rows and outputs are equal)")
    return Decided(None, f"undecided: head(s) {diff} differ in their scores or values, which does not by itself "
                         "show that the sums over heads differ")


def _token_equivariant(x) -> Decided:
    """MHA(Pi X) = Pi MHA(X) (Pi the cyclic shift of the tokens)"""
    X, P = x["X"], _perm(x["X"].shape[0])
    pairs = []
    for WQ, WK, WV, WO in x["heads"]:
        S, V = X * WQ * (X * WK).T, X * WV * WO
        pairs.append((_head_key(P * X, (WQ, WK, WV, WO)), (_row_shift_canon(P * S * P.T), tuple(P * V))))
    return _same_heads(pairs, "MHA(Pi X) = Pi MHA(X)")


def _token_equivariant_head(x) -> Decided:
    """attn_h(Pi X) = Pi attn_h(X) for the first head"""
    return _token_equivariant({**x, "heads": x["heads"][:1]})


def _head_permutation_invariant(x) -> Decided:
    """MHA with its heads in reverse order equals MHA"""
    keys = [_head_key(x["X"], h) for h in x["heads"]]
    if sorted(map(repr, keys)) == sorted(map(repr, keys[::-1])):
        return Decided(True, f"exact: the {len(keys)} head terms of the reversed order are the same terms, so their "
                             "sum is the same")
    return Decided(None, "undecided: the head terms differ")  # unreachable: a reordering has the same terms


def _vo_gauge_invariant(x) -> Decided:
    """(W_V^h, W_O^h) -> (W_V^h M, M^{-1} W_O^h) leaves MHA unchanged (M the unitriangular ones matrix)"""
    M = _unitriangular(x["heads"][0][2].shape[1])
    pairs = [(_head_key(x["X"], (q, k, v * M, M.inv() * o)), _head_key(x["X"], (q, k, v, o)))
             for q, k, v, o in x["heads"]]
    return _same_heads(pairs, "the value-output gauge leaves every head's output unchanged")


def _qk_gauge_invariant(x) -> Decided:
    """(W_Q^h, W_K^h) -> (W_Q^h N, W_K^h N^{-T}) leaves MHA unchanged (N the unitriangular ones matrix)"""
    N = _unitriangular(x["heads"][0][0].shape[1])
    pairs = [(_head_key(x["X"], (q * N, k * N.inv().T, v, o)), _head_key(x["X"], (q, k, v, o)))
             for q, k, v, o in x["heads"]]
    return _same_heads(pairs, "the query-key gauge leaves every head's output unchanged")


def _qk_gauge_invariant_head(x) -> Decided:
    """the first head's scores and output are unchanged by (W_Q, W_K) -> (W_Q N, W_K N^{-T})"""
    return _qk_gauge_invariant({**x, "heads": x["heads"][:1]})


def _ln_equal(x, a, c) -> Decided:
    """LN(a x + c 1) = LN(x) for every row x of X (eps = 0): centred rows proportional with a positive factor."""
    X = x["X"]
    for i in range(X.shape[0]):
        row = list(X.row(i))
        m = sum(row) / len(row)
        cen = [v - m for v in row]
        if all(v == 0 for v in cen):
            return Decided(None, f"undecided: row {i + 1} of X is constant: LayerNorm with eps = 0 is undefined there")
        y = [a * v + c for v in row]
        my = sum(y) / len(y)
        ceny = [v - my for v in y]
        j = next(j for j, v in enumerate(cen) if v != 0)
        lam = ceny[j] / cen[j]
        if any(u != lam * v for u, v in zip(ceny, cen)) or lam < 0:
            return Decided(False, f"exact over Q: row {i + 1}: the centred row of a x + c 1 is {lam} times that of x "
                                  f"(a = {a}, c = {c}), so LN(a x + c 1) = {'-' if lam < 0 else ''}LN(x) != LN(x)")
    return Decided(True, f"exact over Q: every centred row of a x + c 1 is a positive multiple of that of x (a = {a}, "
                         f"c = {c}), so their LayerNorms (eps = 0) are equal")


def _no_constant_row(x) -> Decided:
    """no row of X is constant (LayerNorm with eps = 0 is defined on every row)"""
    X = x["X"]
    bad = [i + 1 for i in range(X.shape[0]) if len(set(X.row(i))) == 1]
    return Decided(not bad, f"exact: constant rows {bad}" if bad else "exact: every row has two distinct entries")


def _ln_shift_scale(x) -> Decided:
    """LN(2 x + 1) = LN(x) for every row x of X (eps = 0)"""
    return _ln_equal(x, Rational(2), Rational(1))


def _ln_negative_scale(x) -> Decided:
    """LN(-x) = LN(x) for every row x of X (eps = 0)"""
    return _ln_equal(x, Rational(-1), Rational(0))


def _ln_eps_equal(x, a, c, eps) -> Decided:
    """LN_eps(a x + c 1) = LN_eps(x) for every row x of X, exactly over Q: with centred row u and variance v, LN_eps(x)
    = u / sqrt(v + eps) and LN_eps(a x + c 1) = a u / sqrt(a^2 v + eps); for u != 0 they are equal iff a > 0 and
    a^2 (v + eps) = a^2 v + eps (squares of rationals compared, no sqrt)."""
    X = x["X"]
    for i in range(X.shape[0]):
        row = list(X.row(i))
        m = sum(row) / len(row)
        u = [w - m for w in row]
        if all(w == 0 for w in u):
            continue  # a constant row: both sides are 0
        v = sum(w * w for w in u) / len(u)
        lhs, rhs = a * a * (v + eps), a * a * v + eps
        if a <= 0 or lhs != rhs:
            return Decided(False, f"exact over Q: row {i + 1} (variance {v}): LN_eps(a x + c 1) = a u / sqrt(a^2 v + "
                                  f"eps), LN_eps(x) = u / sqrt(v + eps); a^2 (v + eps) = {lhs} != a^2 v + eps = {rhs} "
                                  f"(a = {a}, c = {c}, eps = {eps}), so they differ")
    return Decided(True, f"exact over Q: every row has a^2 (v + eps) = a^2 v + eps or is constant (a = {a}, c = {c}, "
                         f"eps = {eps})")


def _ln_eps_shift_scale(x) -> Decided:
    """LN_eps(2 x + 1) = LN_eps(x) for every row x of X (eps = 1/100)"""
    return _ln_eps_equal(x, Rational(2), Rational(1), Rational(1, 100))


def _group_acts(x) -> Decided:
    """g = (s, N, G) (s: the head reversal; N_h = G_h = U, the unitriangular ones matrix) acts on the weights as a group
    action (g^{-1} . (g . W) = W and g . (g . W) = g^2 . W, exactly) and leaves MHA(X) unchanged"""
    heads = x["heads"]
    H = len(heads)
    U = _unitriangular(heads[0][0].shape[1])

    def act(s, N, G, W):  # (s, N, G) . W = (W_Q^{s(h)} N, W_K^{s(h)} N^{-T}, W_V^{s(h)} G, G^{-1} W_O^{s(h)})_h
        return [(W[s[h]][0] * N, W[s[h]][1] * N.inv().T, W[s[h]][2] * G, G.inv() * W[s[h]][3]) for h in range(H)]

    rev, ident = [H - 1 - h for h in range(H)], list(range(H))
    gW = act(rev, U, U, heads)
    if act(rev, U.inv(), U.inv(), gW) != list(heads):
        return Decided(False, "exact: g^{-1} . (g . W) != W")
    if act(rev, U, U, gW) != act(ident, U * U, U * U, heads):
        return Decided(False, "exact: g . (g . W) != g^2 . W")
    keys = sorted(repr(_head_key(x["X"], h)) for h in gW)
    if keys != sorted(repr(_head_key(x["X"], h)) for h in heads):
        return Decided(None, "undecided: some head of g . W differs from every head of W in its scores or values, "
                             "which does not by itself show that the sums over heads differ")
    return Decided(True, f"exact over Q: g^{{-1}} . (g . W) = W and g . (g . W) = g^2 . W (the weights compared); the "
                         f"{H} head terms of g . W are those of W (scores modulo a constant per row, and X W_V W_O), so "
                         "MHA(X) is unchanged")


def _sym_x_heads(user) -> dict:
    X = user.matrix("X").sympy(SYMPY_MAX_ENTRIES, "this claim")
    W = user.weights
    if W is None:
        raise BadInput("this claim needs weights: --weights W.npz or --heads H [--seed N]")
    if W.d != X.shape[1]:
        raise BadInput(f"--weights: d = {W.d} in the weights but X has d = {X.shape[1]} columns")
    return {"X": X, "heads": [tuple(M.sympy(SYMPY_MAX_ENTRIES) for M in h) for h in W.heads]}


def _sym_x(user) -> dict:
    return {"X": user.matrix("X").sympy(SYMPY_MAX_ENTRIES, "this claim")}


_SYM_ARITH = "exact over Q (sympy rationals): scores modulo a constant per row, and X W_V W_O, per head; no exp"
#: --X and --weights (or seeded): the transformation is fixed (the cyclic token shift, the reversed head order, the
#: unitriangular gauge of ones)
SYM_X_WEIGHTS = InstanceForm(takes=("X", "weights"), build=_sym_x_heads, arithmetic=_SYM_ARITH, sites=("attention",),
                             note="Pi: the cyclic shift of the tokens; M, N: the upper-triangular matrix of ones; "
                                  "heads: reversed")
SYM_X = InstanceForm(takes=("X",), build=_sym_x, arithmetic="exact over Q (sympy rationals): centred rows, no sqrt",
                     note="a = 2, c = 1 (a < 0 reading: a = -1, c = 0); eps = 0 (eps > 0 reading: eps = 1/100)")


def _sym_rows(ctx):
    rng = random.Random(stable_seed("SYM: instances"))
    for _ in range(3 if ctx.quick else 8):
        n, d, dk, H = rng.randint(2, 4), rng.randint(2, 3), rng.randint(1, 2), rng.randint(1, 3)

        def m(r, c):
            return Matrix(r, c, lambda i, j: Rational(rng.randint(-4, 4), rng.randint(1, 3)))
        X = m(n, d)
        for i in range(n):  # no constant row (LayerNorm with eps = 0 is undefined there)
            if len(set(X.row(i))) == 1:
                X[i, 0] += 1
        yield "all", f"n={n}, d={d}, d_k={dk}, H={H}", {"X": X, "heads": [(m(d, dk), m(d, dk), m(d, dk), m(dk, d))
                                                                        for _ in range(H)]}


#: seeded rational X and heads: the ledger decides the invariances with the predicates check uses
SYM_POOL = Pool(rows=_sym_rows, arithmetic=_SYM_ARITH, instance_from=SYM_X_WEIGHTS)
SYM_LN_POOL = Pool(rows=_sym_rows, arithmetic="exact over Q (sympy rationals)", instance_from=SYM_X)


#: claims whose Coq proofs cover one attention head (or the scores) only: their own reading, not the MHA headline
_SINGLE_HEAD = {
    "SYM.token-permutation": r"\operatorname{attn}_h(\Pi X)=\Pi\operatorname{attn}_h(X)\ \text{for one head }h",
    "SYM.query-key-gauge": r"\text{one head: the scores and }\operatorname{attn}_h\text{ are unchanged by }"
                           r"(W_Q^h,W_K^h)\mapsto(W_Q^hN,W_K^hN^{-\top})",
}


#: what the five invariances stand for: the suite's framing (no quotation marks), not the paper's words
_STANDARD = "standard symmetry; §9's group G is not in the available text"


_SINGLE_HEAD_NOTE = ("one head; the H-head sum (the headline) has its own Coq lemma "
                     "(theorems/formal/softmax_attention.v)")


claim(
    id="SYM.head-permutation", section="§9 (contributions list: the invariance group G)", quote="",
    source=_STANDARD,
    statement=r"\mathrm{MHA}\ \text{invariant under permuting heads}",
    hypotheses={}, conclusion=("invariance", _head_permutation_invariant), instances=SYM_POOL, regimes=("all",),
    checks=[lambda ctx: [_proof(0, r"\mathrm{MHA}\ \text{invariant under permuting heads}")]],
    chapter="symmetries",
)


claim(
    id="SYM.value-output-gauge", section="§9 (contributions list: the invariance group G)", quote="",
    source=_STANDARD,
    statement=r"(W_V^h,W_O^h)\mapsto(W_V^hM,M^{-1}W_O^h)\ \text{leaves MHA invariant}",
    hypotheses={}, conclusion=("invariance", _vo_gauge_invariant), instances=SYM_POOL, regimes=("all",),
    checks=[lambda ctx: [_proof(1, r"(W_V^h,W_O^h)\mapsto(W_V^hM,M^{-1}W_O^h)\ \text{leaves MHA invariant}")]],
    chapter="symmetries",
)


claim(
    id="SYM.query-key-gauge", section="§9 (contributions list: the invariance group G)", quote="",
    source=_STANDARD,
    statement=r"(W_Q^h,W_K^h)\mapsto(W_Q^hN,W_K^hN^{-\top})\ \text{leaves MHA invariant}",
    hypotheses={}, conclusion=("invariance", _qk_gauge_invariant), instances=SYM_POOL, regimes=("all",),
    checks=[lambda ctx: [_proof(2, r"(W_Q^h,W_K^h)\mapsto(W_Q^hN,W_K^hN^{-\top})\ \text{leaves MHA invariant}")]],
    readings=[Reading("single-head", _SINGLE_HEAD['SYM.query-key-gauge'], checks=[], note=_SINGLE_HEAD_NOTE,
                      hypotheses={}, conclusion=_qk_gauge_invariant_head, instances=SYM_POOL)],
    chapter="symmetries",
)


claim(
    id="SYM.token-permutation", section="§9 (contributions list: the invariance group G)", quote="",
    source=_STANDARD,
    statement=r"\mathrm{MHA}(\Pi X)=\Pi\,\mathrm{MHA}(X)",
    hypotheses={}, conclusion=("invariance", _token_equivariant), instances=SYM_POOL, regimes=("all",),
    checks=[lambda ctx: [_proof(3, r"\mathrm{MHA}(\Pi X)=\Pi\,\mathrm{MHA}(X)")]],
    readings=[Reading("single-head", _SINGLE_HEAD['SYM.token-permutation'], checks=[], note=_SINGLE_HEAD_NOTE,
                      hypotheses={}, conclusion=_token_equivariant_head, instances=SYM_POOL),
              Reading("without-causal-mask", r"\text{equivariance with a causal mask}", checks=[lambda ctx: _breaks("causal mask", "causal mask, Pi = (1 2)")]),
              Reading("without-positional-encoding", r"\text{equivariance of }X\mapsto\mathrm{MHA}(X+P)", checks=[lambda ctx: _breaks("positional encoding", "absolute positional encoding P")])],
    chapter="symmetries",
)


claim(
    id="SYM.ln-shift-scale", section="§9 (contributions list: the invariance group G)", quote="",
    source=_STANDARD,
    statement=r"\mathrm{LN}(ax+c\mathbf 1)=\mathrm{LN}(x)\ (a>0,\ \varepsilon=0)",
    hypotheses={"no constant row": _no_constant_row}, conclusion=("invariance", _ln_shift_scale),
    instances=SYM_LN_POOL, regimes=("all",),
    checks=[lambda ctx: [_proof(4, r"\mathrm{LN}(ax+c\mathbf 1)=\mathrm{LN}(x)\ (a>0,\ \varepsilon=0)")]],
    readings=[Reading("without-ln-a<0", r"\text{invariance for }a<0", checks=[lambda ctx: _breaks("ln a<0", "a = -1 flips the sign")],
                      hypotheses={"no constant row": _no_constant_row}, conclusion=_ln_negative_scale,
                      instances=SYM_LN_POOL),
              Reading("without-ln-eps>0", r"\text{invariance with }\varepsilon>0", checks=[lambda ctx: _breaks("ln eps>0", "eps = 1/100, a = 2")],
                      hypotheses={}, conclusion=_ln_eps_shift_scale, instances=SYM_LN_POOL)],
    chapter="symmetries",
)


def _framework(ctx) -> list[Evidence]:
    return [not_checkable("§9 is not in the available text; the paper names no group action on a space where the "
                          "four phenomena live, no orbit map, and no formal definition of 'rank collapse in width' "
                          "or 'entropy collapse' as orbits. The five invariances it can mean are checked separately "
                          "(SYM.*)")]


def _framework_invariances(ctx) -> list[Evidence]:
    return [derivation(PROOF_STEPS, "the invariances of G", arithmetic="sympy symbolic")]


def _framework_hc_not_orbit(ctx) -> list[Evidence]:
    """The recovery ambiguity (reading b) is not an orbit of G: G fixes every Z_h, the kernel moves them."""
    return [derivation([HC_STEPS[1]], "'the gauge group fixes each contribution Z_h = Y_h W_O^h, while the "
                       "n(H-1)d_k-dimensional recovery ambiguity changes the Z_h; G acts on weights (dimension H d_k^2 "
                       "per layer), the ambiguity lives in activations: it is not a G-orbit'",
                       arithmetic="sympy symbolic", concludes=False)]


claim(
    id="SYM.framework", section="§1 contribution 8 (§9)",
    quote="all four collapse phenomena are orbits of the invariance group G of the Transformer",
    depends_on=("SYM.head-permutation", "SYM.value-output-gauge", "SYM.query-key-gauge", "SYM.token-permutation", "SYM.ln-shift-scale"),
    statement=r"\text{rank collapse (depth, width), head-channel non-identifiability, entropy collapse are }G\text{-orbits}",
    hypotheses=(), conclusion="orbits", regimes=("all",), checks=[_framework],
    readings=[Reading("G-is-a-symmetry-group",
                      r"G=S_H\ltimes\prod_h(GL(d_k)\times GL(d_k))\text{ acts on the weights by }(s,N,G)\cdot W="
                      r"(W_Q^{s(h)}N_h,W_K^{s(h)}N_h^{-\top},W_V^{s(h)}G_h,G_h^{-1}W_O^{s(h)})_h\text{ (identity, "
                      r"composition by the semidirect-product law, inverses) and leaves MHA invariant}",
                      checks=[_framework_invariances], hypotheses={}, conclusion=_group_acts, instances=SYM_POOL),
              Reading("head-channel-is-an-orbit", r"\ker\Phi_b\ \text{is a }G\text{-orbit}",
                      checks=[_framework_hc_not_orbit], notion="exact-rank: kernel dimensions over Q",
                      off_instance=OffInstance("undefined", "G acts on the weights; ker Phi_b lives in the head "
                                               "outputs, where the available text defines no action of G, so 'is a "
                                               "G-orbit' has no predicate to decide"))],
    chapter="symmetries",
    off_instance=OffInstance("undefined", "§9 is not in the available text: no group action on the phenomena, no "
                             "orbit map"),
    notion={
        "rank collapse (depth, width)": "residual: Dong's notion (the paper's own, exact rank, sees no collapse)",
        "head-channel non-identifiability": "exact-rank: kernel dimensions over Q",
    },
)


# --- further sentences of the paper (coverage) ---

claim(
    id="SYM.distinct-symmetries", section="Abstract; §9 (not available)",
    quote="The four collapse phenomena ... are unified under a symmetry-breaking framework, each corresponding to a "
          "distinct symmetry of the Transformer's forward pass",
    depends_on=("SYM.framework",),
    statement=r"\text{(no formal content available)}",
    hypotheses=(), conclusion="", regimes=("all",),
    checks=[lambda ctx: [not_checkable("§9 is not in the available text: which symmetry corresponds to which phenomenon "
                                       "is not stated, so 'distinct' cannot be checked; the five invariances the "
                                       "framework can mean are SYM.*")]],
    chapter="symmetries",
    off_instance=OffInstance("undefined", "§9 is not in the available text: the symmetry of each phenomenon is not defined"),
)

claim(
    id="SYM.design-reduction", section="§1 contribution 8 (§9)",
    quote="The design question “what components are needed?” reduces to “what symmetries must be broken?”",
    depends_on=("SYM.framework",),
    statement=r"\text{(no formal content available)}",
    hypotheses=(), conclusion="", regimes=("all",),
    checks=[lambda ctx: [not_checkable("a programme, not a statement: §9 is missing and 'reduces to' is not defined")]],
    chapter="symmetries",
    off_instance=OffInstance("undefined", "§9 is not in the available text: 'what symmetries must be broken' has no definition"),
)
