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

import sympy
from sympy import Matrix, Rational, symbols, zeros

from ..exact import transformer as T
from ..exact.heads import PROOF_STEPS as HC_STEPS
from ..exact.linalg import all_identically_zero
from ..framework import Evidence, OffInstance, Reading, claim, derivation, exact_complete, not_checkable

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
    hypotheses=(), conclusion="invariance", regimes=("all",),
    checks=[lambda ctx: [_proof(0, r"\mathrm{MHA}\ \text{invariant under permuting heads}")]],
    chapter="symmetries",
)


claim(
    id="SYM.value-output-gauge", section="§9 (contributions list: the invariance group G)", quote="",
    source=_STANDARD,
    statement=r"(W_V^h,W_O^h)\mapsto(W_V^hM,M^{-1}W_O^h)\ \text{leaves MHA invariant}",
    hypotheses=(), conclusion="invariance", regimes=("all",),
    checks=[lambda ctx: [_proof(1, r"(W_V^h,W_O^h)\mapsto(W_V^hM,M^{-1}W_O^h)\ \text{leaves MHA invariant}")]],
    chapter="symmetries",
)


claim(
    id="SYM.query-key-gauge", section="§9 (contributions list: the invariance group G)", quote="",
    source=_STANDARD,
    statement=r"(W_Q^h,W_K^h)\mapsto(W_Q^hN,W_K^hN^{-\top})\ \text{leaves MHA invariant}",
    hypotheses=(), conclusion="invariance", regimes=("all",),
    checks=[lambda ctx: [_proof(2, r"(W_Q^h,W_K^h)\mapsto(W_Q^hN,W_K^hN^{-\top})\ \text{leaves MHA invariant}")]],
    readings=[Reading("single-head", _SINGLE_HEAD['SYM.query-key-gauge'], checks=[], note=_SINGLE_HEAD_NOTE)],
    chapter="symmetries",
)


claim(
    id="SYM.token-permutation", section="§9 (contributions list: the invariance group G)", quote="",
    source=_STANDARD,
    statement=r"\mathrm{MHA}(\Pi X)=\Pi\,\mathrm{MHA}(X)",
    hypotheses=(), conclusion="invariance", regimes=("all",),
    checks=[lambda ctx: [_proof(3, r"\mathrm{MHA}(\Pi X)=\Pi\,\mathrm{MHA}(X)")]],
    readings=[Reading("single-head", _SINGLE_HEAD['SYM.token-permutation'], checks=[], note=_SINGLE_HEAD_NOTE),
              Reading("without-causal-mask", r"\text{equivariance with a causal mask}", checks=[lambda ctx: _breaks("causal mask", "causal mask, Pi = (1 2)")]),
              Reading("without-positional-encoding", r"\text{equivariance of }X\mapsto\mathrm{MHA}(X+P)", checks=[lambda ctx: _breaks("positional encoding", "absolute positional encoding P")])],
    chapter="symmetries",
)


claim(
    id="SYM.ln-shift-scale", section="§9 (contributions list: the invariance group G)", quote="",
    source=_STANDARD,
    statement=r"\mathrm{LN}(ax+c\mathbf 1)=\mathrm{LN}(x)\ (a>0,\ \varepsilon=0)",
    hypotheses=(), conclusion="invariance", regimes=("all",),
    checks=[lambda ctx: [_proof(4, r"\mathrm{LN}(ax+c\mathbf 1)=\mathrm{LN}(x)\ (a>0,\ \varepsilon=0)")]],
    readings=[Reading("without-ln-a<0", r"\text{invariance for }a<0", checks=[lambda ctx: _breaks("ln a<0", "a = -1 flips the sign")]),
              Reading("without-ln-eps>0", r"\text{invariance with }\varepsilon>0", checks=[lambda ctx: _breaks("ln eps>0", "eps = 1/100, a = 2")])],
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
                      checks=[_framework_invariances]),
              Reading("head-channel-is-an-orbit", r"\ker\Phi_b\ \text{is a }G\text{-orbit}",
                      checks=[_framework_hc_not_orbit], notion="exact-rank: kernel dimensions over Q")],
    chapter="symmetries",
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
