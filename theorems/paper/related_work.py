r"""§3, Related Work: the paper's comparative sentences, each a claim.

§3 positions the paper against Dong et al. 2021, the "large weights" preprint [21], Wu et al. 2024, Joudaki et al.
2023, Nait Saada et al. 2024, Geva et al. 2021, Noci et al. 2022 and Zhai et al. 2023. Where a sentence has content
the suite can compute, that content decides it:

* the LayerNorm sentences by the depth study's attention + LayerNorm regime (pure attention with LN after every
  layer, no skip, no MLP), run beside pure attention on the same weights and inputs
  (the numeric layer's depth study: certified per-layer enclosures of Dong's relative residual are interval evidence, a comparison of fitted rates is
  float evidence); the sentence registered before this module, "LN neither prevents collapse (our theorem) nor
  accelerates it", is ``RN.neither-helps-nor-hinders`` (its readings carry that evidence);
* the width-collapse sentences by a float study of the attention matrix's two largest singular values;
* "rank collapse at initialisation causes vanishing gradients" and "entropy collapse ... a distinct failure mode"
  exactly (sympy; rational softmax in units of log 2);
* "rank increase under residual updates is generic but not unconditional" and "skip connections alone fail" by exact
  witnesses (the second re-read from the stored instance of ``DONG.skip-full-rank``).

A sentence about another paper's result that the suite cannot compute is not-checkable, and says why; a sentence
that only places the paper (orthogonal to, makes precise, gives the exact result) is not-checkable and names, in
``depends_on``, the claims it rests on. The numeric evidence is attached by the numeric layer (its module of the same name).
"""
from __future__ import annotations

import sympy
from sympy import Matrix, Rational, ones, zeros

from ..exact import transformer as T
from ..exact.attention import exact_softmax
from ..exact.input import BadInput
from ..exact.linalg import rank
from ..exact.reader import SYMPY_MAX_ENTRIES
from ..exact.residual import recheck_one_layer_collapse
from ..framework import (
    Decided,
    Evidence,
    FormalGap,
    Generic,
    InstanceForm,
    OffInstance,
    Pool,
    Reading,
    claim,
    derivation,
    exact_complete,
    load_counterexample,
    not_checkable,
)

__all__ = ["collapsed_attention_is_constant", "value_gradient_at_collapse", "entropy_and_rank", "PROOF_STEPS"]

_EXACT = "exact (sympy)"
_DEPTH = ("n<d", "n>d")  # the depth study's shapes (numeric layer)


def _nc(reason: str):
    return lambda ctx: [not_checkable(reason)]


# --- rank collapse in depth (Dong et al., 2021) -------------------------------------------------------------

claim(
    id="RW.dong-proved", section="§3, rank collapse in depth (Dong et al., 2021); §1",
    quote="Dong et al. [4] proved that pure self-attention without residual connections converges to rank 1 "
          "doubly-exponentially in depth [§1:] iterating the attention operation without any other mechanism "
          "causes the hidden states to collapse to a rank-1 matrix doubly exponentially in depth",
    statement=r"\text{pure attention: }\rho_l\to0\ (\rho_l<2^{-52}\text{ certified within 12 layers}),\ "
              r"\log\rho_{l+1}/\log\rho_l\to3",
    hypotheses=("pure attention",), conclusion="doubly exponential collapse", regimes=_DEPTH,
    checks=[],  # the depth study's exponent (a fit: float); the certified collapse is the reading "converges"
    notion="residual: the fitted exponent of rho_l (a float fit of certified per-layer enclosures)",
    readings=[Reading("converges", r"\text{pure attention: }\rho_l<2^{-52}\text{ within 12 layers (certified)}",
                      checks=[], notion="residual: rho_l < 2^-52, certified", note="the convergence alone, from certified per-layer enclosures (interval); the "
                                      "headline's 'doubly-exponentially' rests on a fit (float)",
                                      formal_gap=FormalGap("numerical-only", "the certified residual rho_l of the depth"
                                                                             " study's pure-attention networks"),
        off_instance=OffInstance("depth-study", "rho_l over 12 layers of pure attention")),
              Reading("exact-rank", r"\text{pure attention: }\operatorname{rank}X^{(l)}\to1",
                      checks=[], notion="exact-rank: certified ranks of the depth study", note="exact rank never falls in the depth study: 'rank 1' is Dong's residual "
                                      "notion, not the exact rank")],
    depends_on=("DONG.regime-collapse", "DONG.collapse-rate"), chapter="related_work",
    formal_gap=FormalGap("numerical-only", "the residual rho_l of the certified depth study, the evidence for Dong et al.'s theorem as"
                         " the paper cites it"),
        off_instance=OffInstance("limit", "rho_l -> 0 and log rho_{l+1} / log rho_l -> 3 as the depth goes to infinity"),
)

claim(
    id="RW.dong-skip-approximate", section="§3, rank collapse in depth (Dong et al., 2021)",
    quote="They note that skip connections mitigate collapse, but treat the effect as approximate",
    statement=r"\text{(how Dong et al. treat skip connections)}",
    hypotheses=(), conclusion="", regimes=("all",),
    checks=[_nc("a statement about how Dong et al. treat an effect (approximately), not about the network")],
    readings=[Reading("skip-mitigates",
                      r"\text{attention + skip: }\rho_l\ge2^{-52}\ \forall l\le12\ \text{(certified)}",
                      checks=[], regimes=_DEPTH, notion="residual: rho_l >= 2^-52, certified",
                      note="the checkable half: with skips, no collapse in Dong's sense "
                                                      "on the depth study",
                                                      formal_gap=FormalGap("numerical-only", "the certified residual "
                                                                                             "rho_l of the depth "
                                                                                             "study's attention + skip "
                                                                                             "networks"),
        off_instance=OffInstance("depth-study", "rho_l over 12 layers of attention + skip"))],
    chapter="related_work",
    off_instance=OffInstance("literature", "how Dong et al. 2021 treat skip connections"),
)

claim(
    id="RW.thm53-precise", section="§3, rank collapse in depth (Dong et al., 2021)",
    quote="Theorem 5.3 (Residual Rank Obstruction) makes the generic obstruction statement precise",
    statement=r"\text{(a statement about Theorem 5.3)}",
    hypotheses=(), conclusion="", regimes=("all",),
    checks=[_nc("'makes precise' judges a presentation; the mathematics is Theorem 5.3 itself (RRO.main)")],
    depends_on=("RRO.main",), chapter="related_work",
    off_instance=OffInstance("literature", "a statement about Theorem 5.3's place in the literature"),
)


# --- skip connections and large weights ([21]) ----------------------------------------------------------------

def _skip_alone_can_fail(ctx) -> list[Evidence]:
    """The stored one-layer collapse of DONG.skip-full-rank, re-read from its file and re-checked exactly."""
    data, _ = load_counterexample("DONG.skip-full-rank")
    why, regime, _nums = recheck_one_layer_collapse(data)
    return [exact_complete(f"skip connections alone fail for some weights: {why}" if why else
                           "the stored instance no longer collapses", True if why else None, regime="all",
                           arithmetic=_EXACT + ", 2^k softmax", reason=None if why else "the witness did not re-check")]


claim(
    id="RW.large-weights", section="§3, skip connections and large weights",
    quote="A recent preprint [21] shows that only large weights (together with skip connections) can prevent the "
          "perils of rank collapse, providing conditions under which skip connections alone fail",
    statement=r"\text{([21]: only large weights, with skips, prevent rank collapse)}",
    hypotheses=(), conclusion="", regimes=("all",),
    checks=[_nc("[21]'s conditions and its notion of 'the perils of rank collapse' are not in the available text; "
                "the suite does not reproduce that preprint")],
    notion="residual: the sense of Dong et al. that §3 discusses ([21]'s own measure is not in the available text; "
           "not computed)",
    readings=[Reading("skip-alone-can-fail",
                      r"\exists X,W:\ \operatorname{rank}(X+\mathrm{MHA}(X))<\operatorname{rank}X",
                      checks=[_skip_alone_can_fail], form="existential", notion="exact-rank",
                      note="the part the suite can compute: skip connections alone do not protect every weight")],
    depends_on=("DONG.skip-full-rank",), chapter="related_work",
    off_instance=OffInstance("literature", "what the preprint [21] shows (its conditions are not in the available "
                             "text)"),
)


# --- a user's input as an instance (collapse-verify check; issue 54) ---

def _x_delta(user) -> dict:
    return {"X": user.matrix("X").sympy(SYMPY_MAX_ENTRIES, "this claim"),
            "Delta": user.matrix("Delta").sympy(SYMPY_MAX_ENTRIES, "this claim")}


def _x_first_head(user) -> dict:
    """{X, heads: [the first head (W_Q, W_K, W_V, W_O)]} exactly, from --X and --weights (or seeded)."""
    X = user.matrix("X").sympy(SYMPY_MAX_ENTRIES, "this claim")
    W = user.weights
    if W is None:
        raise BadInput("this claim needs weights: --weights W.npz or --heads H [--weights-seed N]")
    if W.d != X.shape[1]:
        raise BadInput(f"--weights: d = {W.d} in the weights but X has d = {X.shape[1]} columns")
    return {"X": X, "heads": [tuple(M.sympy(SYMPY_MAX_ENTRIES) for M in W.heads[0])]}


_X_DELTA = InstanceForm(takes=("X", "Delta"), build=_x_delta, arithmetic="exact over Q (python-flint ranks)",
                        note="A = --X, B = --Delta")
_X_HEAD = InstanceForm(takes=("X", "weights"), build=_x_first_head, arithmetic="exact over Q (sympy rationals)",
                       note="the first head")


def _no_increase(v) -> Decided:
    """rank A < min(n, d) and rank(A + B) <= rank A"""
    A, B = v["X"], v["Delta"]
    if A.shape != B.shape:
        raise BadInput(f"--X is {A.shape[0]} x {A.shape[1]} but --Delta is {B.shape[0]} x {B.shape[1]}")
    r, rs, m = rank(A), rank(A + B), min(A.shape)
    return Decided(r < m and rs <= r, f"exact: rank A = {r}, min(n, d) = {m}, rank(A + B) = {rs}")


def _not_unconditional_rows(ctx):
    A = Matrix([[1, 0, 0], [0, 0, 0]])
    for label, B in (("B = -A", -A), ("B = A", A), ("B = 0", zeros(2, 3))):
        yield "all", label, {"X": A, "Delta": B}


def _not_unconditional(ctx) -> list[Evidence]:
    A = Matrix([[1, 0, 0], [0, 0, 0]])
    out = []
    for label, B in (("B = -A", -A), ("B = A (row(B) inside row(A))", A), ("B = 0", zeros(2, 3))):
        r, rs = rank(A), rank(A + B)
        out.append(exact_complete(f"A = {A.tolist()} (rank {r} < min(n, d) = 2), {label}: rank(A + B) = {rs} <= rank A",
                                  rs <= r < 2, arithmetic="exact over QQ"))
    return out


claim(
    id="RW.increase-not-unconditional", section="§3, skip connections and large weights",
    quote="This is consistent with our Proposition 5.1: rank increase under residual updates is generic but not "
          "unconditional",
    statement=r"\exists A,B:\ \operatorname{rank}A<\min(n,d)\ \wedge\ \operatorname{rank}(A+B)\le\operatorname{rank}A",
    hypotheses={}, conclusion=("a residual update that does not increase the rank", _no_increase),
    instances=Pool(rows=_not_unconditional_rows, arithmetic="exact over QQ", instance_from=_X_DELTA),
    regimes=("all",), form="existential", checks=[_not_unconditional], notion="exact-rank",
    # the 'generic' half is Proposition 5.1 (RRO.prop51): an edge of the graph, not a second check
    depends_on=("RRO.prop51",), chapter="related_work",
)


# --- LayerNorm and rank collapse (Wu et al., NeurIPS 2024) -----------------------------------------------------

claim(
    id="RW.wu-most-precise", section="§3, LayerNorm and rank collapse (Wu et al.)",
    quote="Wu et al. [16] provide the most precise treatment of LayerNorm prior to this work",
    statement=r"\text{(a judgement of the literature)}",
    hypotheses=(), conclusion="", regimes=("all",),
    checks=[_nc("a judgement of the literature, not a mathematical statement")], chapter="related_work",
    off_instance=OffInstance("literature", "a judgement of the literature"),
)

claim(
    id="RW.wu-ln-still-collapses", section="§3, LayerNorm and rank collapse (Wu et al.)",
    quote="They prove that for certain classes of value matrices, attention with LayerNorm still collapses "
          "exponentially",
    statement=r"W_VW_O\ \text{orthogonal}:\ \rho_l\bigl(X\mapsto\mathrm{LN}(\mathrm{MHA}(X))\bigr)<2^{-52}\ "
              r"\text{within 12 layers (certified)}",
    hypotheses=("orthogonal value maps", "pure attention with LayerNorm"), conclusion="collapse", regimes=_DEPTH,
    checks=[],  # the depth study's attention + LN regime with orthogonal value maps (numeric layer)
    notion="residual: rho_l < 2^-52, certified",
    readings=[Reading("every-weight-family", r"\text{every weight family of the depth study: }\rho_l^{\text{LN}}"
                                             r"<2^{-52}\text{ within 12 layers}", checks=[],
                      note="Gaussian weights, value maps scaled by 1/2 and by 2, orthogonal value maps",
                      formal_gap=FormalGap("numerical-only", "the certified residuals rho_l of every weight family of "
                                                             "the depth study"))],
    chapter="related_work",
    formal_gap=FormalGap("numerical-only", "the residual rho_l of X -> LN(MHA(X)) with orthogonal W_V W_O, certified for the networks "
                         "run"),
        off_instance=OffInstance("depth-study", "rho_l over 12 layers of attention with LayerNorm"),
)

claim(
    id="RW.wu-ln-can-slow", section="§3, LayerNorm and rank collapse (Wu et al.)",
    quote="For masked and sparse attention, they show LayerNorm can slow collapse",
    statement=r"\text{(masked or sparse attention: LN can slow collapse)}",
    hypotheses=("masked or sparse attention",), conclusion="", regimes=("all",),
    checks=[_nc("the depth study has no masked or sparse attention regime, and Wu et al.'s masks are not in the "
                "available text")],
    notion="residual: the distance to the rank-one matrices 1 x^T, as the depth study measures it (Wu et al.'s "
           "own measure is not in the available text; not computed for masked or sparse attention)",
    readings=[Reading("dense-attention", r"\exists\text{ weights}:\ \min\{l:\rho_l^{\text{LN}}<2^{-52}\}>"
                                         r"\min\{l:\rho_l^{\text{no LN}}<2^{-52}\}", checks=[], form="existential",
                      regimes=("all",), notion="residual: the first layer with rho_l < 2^-52, certified",
                      note="even dense attention: certified first layers below 2^-52",
                      off_instance=OffInstance("depth-study", "the first layer where rho_l < 2^-52, with and without LN, over 12 layers"))],
    chapter="related_work",
    off_instance=OffInstance("literature", "what Wu et al. show for masked and sparse attention"),
)

claim(
    id="RW.wu-regime-dependent", section="§3, LayerNorm and rank collapse (Wu et al.)",
    quote="Their conclusion is that LayerNorm has a complex, regime-dependent effect on rank",
    statement=r"\text{(Wu et al.'s conclusion)}",
    hypotheses=(), conclusion="", regimes=("all",),
    checks=[_nc("a summary of another paper's conclusion; 'complex' is not a mathematical property")],
    readings=[Reading("on-the-suites-data", r"\exists\text{ weights where LN brings Dong's collapse earlier}\ \wedge\ "
                                            r"\exists\text{ weights where it postpones it}",
                      checks=[], form="existential", regimes=("all",),
                      notion="residual: the first layer with rho_l < 2^-52, certified, with and without LN",
                      note="Dong's residual, not the exact rank (which LN keeps full, as without LN)",
                      off_instance=OffInstance("depth-study", "the first layer where rho_l < 2^-52 across the depth study's weights"))],
    chapter="related_work",
    off_instance=OffInstance("literature", "Wu et al.'s conclusion"),
)


# --- LayerNorm in MLPs (Joudaki et al., NeurIPS 2023) ------------------------------------------------------------

claim(
    id="RW.joudaki-mlp", section="§3, LayerNorm in MLPs (Joudaki et al.); §4, comparisons",
    quote="Joudaki et al. [17] show LN can generically obstruct rank collapse in MLP networks [§4, "
          "comparisons:] Joudaki et al. [17]: LN prevents rank collapse in MLPs. (True there",
    statement=r"\text{(MLP networks with LN: rank collapse generically obstructed)}",
    hypotheses=(), conclusion="", regimes=("all",),
    # "generically": for almost every point of Joudaki et al.'s parameter space; the suite models no such network,
    # so the space is named and nothing is probed
    form="generic", generic=Generic(space="the weights (and inputs) of an MLP network with LayerNorm, Joudaki et al.'s "
                                          "setting (not modelled by the suite)",
                                    measure="Lebesgue (Joudaki et al.'s law is not in the available text)"),
    notion="exact-rank: the paper's own sense (rank preservation, as it contrasts Thm 4.2 with it); Joudaki et al.'s "
           "measure is not in the available text, and nothing is computed",
    checks=[_nc("a result about MLP networks with LayerNorm (Joudaki et al.), which the suite does not model")],
    chapter="related_work",
    off_instance=OffInstance("literature", "what Joudaki et al. show for MLP networks with LayerNorm"),
)

claim(
    id="RW.joudaki-not-self-attention", section="§3, LayerNorm in MLPs (Joudaki et al.)",
    quote="this does not extend to self-attention due to softmax coupling",
    statement=r"\text{pure attention with LayerNorm: }\rho_l<2^{-52}\text{ within 12 layers (certified), every "
              r"weight family}",
    hypotheses=("pure attention with LayerNorm",), conclusion="LN does not obstruct collapse", regimes=_DEPTH,
    checks=[],  # the depth study's attention + LN regime (numeric layer)
    notion="residual: rho_l < 2^-52, certified",
    readings=[Reading("due-to-softmax-coupling", r"\text{the cause: softmax coupling}",
                      checks=[_nc("a cause; the suite checks the effect (collapse with LN), not why")],
                      regimes=("all",),
                      off_instance=OffInstance("inference", "the cause the paper names for the collapse, softmax coupling"))],
    chapter="related_work",
    formal_gap=FormalGap("numerical-only", "the residual rho_l of pure attention with LayerNorm in the certified depth study"),
        off_instance=OffInstance("depth-study", "rho_l over 12 layers of pure attention with LayerNorm, every weight family"),
)

claim(
    id="RW.rn-exact-self-attention", section="§3, LayerNorm in MLPs (Joudaki et al.)",
    quote="The Rank-Neutrality Theorem gives the exact self-attention result",
    statement=r"\text{(a statement about Theorem 4.2)}",
    hypotheses=(), conclusion="", regimes=("all",),
    checks=[_nc("it places Theorem 4.2 (RN.main); the mathematics is that theorem")],
    depends_on=("RN.main",), chapter="related_work",
    off_instance=OffInstance("literature", "a statement about Theorem 4.2's place in the literature"),
)


# --- rank collapse in width (Nait Saada et al., 2024) -------------------------------------------------------------

_NAIT_SAADA = ("Nait Saada et al.'s random-matrix model (the law of the logits, the scaling with n and d) is not in "
               "the available text")

claim(
    id="RW.width-collapse", section="§3, rank collapse in width (Nait Saada et al., 2024)",
    quote="Nait Saada et al. [18] identify a third type of rank collapse, distinct from depth collapse and from "
          "head-channel non-identifiability: rank collapse in width, occurring as context length n increases "
          "within a single attention layer",
    statement=r"\text{one attention layer: }\sigma_2(A)/\sigma_1(A)\to0\text{ as }n\to\infty",
    hypotheses=("one attention layer, random inputs and weights",), conclusion="A tends to rank one",
    regimes=("all",), checks=[_nc(_NAIT_SAADA + "; the readings say what the suite finds in two models")],
    readings=[Reading("iid-logits", r"A=\operatorname{softmax}(G),\ G_{ij}\overset{iid}{\sim}\mathcal N(0,1):\ "
                                    r"\operatorname{median}\sigma_2(A)/\sigma_1(A)\ \text{decreases in }n", checks=[],
                      note="float64 SVDs of seeded draws (float evidence)",
                      formal_gap=FormalGap("numerical-only", "the float medians over draws of softmax of i.i.d. "
                                                             "Gaussian logits"),
        off_instance=OffInstance("positive-measure", "a median over random attention matrices, compared across n")),
              Reading("token-logits", r"A=\operatorname{softmax}(XW_QW_K^\top X^\top/\sqrt{d_k}),\ X,W\ \text{Gaussian},"
                                      r"\ d=8:\ \operatorname{median}\sigma_2(A)/\sigma_1(A)\ \text{decreases in }n",
                      checks=[], note="standard attention on Gaussian tokens at a fixed width (float evidence)",
                      off_instance=OffInstance("positive-measure", "a median over Gaussian tokens and weights, compared across n"))],
    chapter="related_work",
    off_instance=OffInstance("limit", "sigma_2(A) / sigma_1(A) as the context length n goes to infinity"),
)

claim(
    id="RW.width-spectral-gap", section="§3, rank collapse in width (Nait Saada et al., 2024)",
    quote="Using random matrix theory, they show that a spectral gap between the two largest singular values of the "
          "attention matrix drives this phenomenon",
    statement=r"\sigma_1(A)-\sigma_2(A)\ \text{grows with }n",
    hypotheses=("one attention layer, random inputs and weights",), conclusion="a spectral gap", regimes=("all",),
    checks=[_nc(_NAIT_SAADA + "; 'drives' is a cause")],
    readings=[Reading("iid-logits", r"A=\operatorname{softmax}(G),\ G_{ij}\overset{iid}{\sim}\mathcal N(0,1):\ "
                                    r"\operatorname{median}(\sigma_1-\sigma_2)(A)\ \text{increases in }n", checks=[],
                      note="float64 SVDs of seeded draws (float evidence)",
                      formal_gap=FormalGap("numerical-only", "the float medians over draws of softmax of i.i.d. "
                                                             "Gaussian logits"),
        off_instance=OffInstance("positive-measure", "a median over random attention matrices, compared across n")),
              Reading("token-logits", r"\text{standard attention on Gaussian tokens, }d=8:\ "
                                      r"\operatorname{median}(\sigma_1-\sigma_2)(A)\ \text{increases in }n", checks=[],
                      off_instance=OffInstance("positive-measure", "a median over Gaussian tokens and weights, compared across n"))],
    depends_on=("RW.width-collapse",), chapter="related_work",
    off_instance=OffInstance("limit", "sigma_1(A) - sigma_2(A) as the context length n grows"),
)

claim(
    id="RW.width-orthogonal", section="§3, rank collapse in width (Nait Saada et al., 2024)",
    quote="This is orthogonal to all three contributions of the present paper: depth collapse is addressed by "
          "Theorem 5.3 (Residual Rank Obstruction), head-channel non-identifiability by Theorem 7.3, and neither "
          "concerns width collapse",
    statement=r"\text{(the scope of Theorems 5.3 and 7.3)}",
    hypotheses=(), conclusion="", regimes=("all",),
    checks=[_nc("a statement of scope: which phenomenon each theorem addresses")],
    depends_on=("RRO.main", "HC.main"), chapter="related_work",
    off_instance=OffInstance("literature", "the scope of Theorems 5.3 and 7.3 relative to Nait Saada et al. 2024"),
)

claim(
    id="RW.taxonomy", section="§3, rank collapse in width (Nait Saada et al., 2024)",
    quote="We discuss the taxonomy of all four collapse types in §10 and §11",
    statement=r"\text{(a pointer to §10 and §11)}",
    hypotheses=(), conclusion="", regimes=("all",),
    checks=[_nc("§10 and §11 are not in the available text")], depends_on=("SYM.framework",), chapter="related_work",
    off_instance=OffInstance("undefined", "§10 and §11, where the taxonomy is, are not in the available text"),
)


# --- MLP as key-value memory (Geva et al., 2021) -----------------------------------------------------------------

claim(
    id="RW.geva", section="§3, MLP as key-value memory (Geva et al., 2021)",
    quote="Geva et al. [6] show that MLP layers function as key-value memories storing factual associations",
    statement=r"\text{(trained MLP layers store factual associations)}",
    hypotheses=(), conclusion="", regimes=("all",),
    checks=[_nc("an empirical finding about trained language models' MLPs and facts; the suite has no fact probes")],
    chapter="related_work",
    off_instance=OffInstance("literature", "what Geva et al. 2021 show about trained MLP layers"),
)

claim(
    id="RW.geva-orthogonal", section="§3, MLP as key-value memory (Geva et al., 2021)",
    quote="The analysis is orthogonal: we address the structural role of the MLP in rank maintenance and non-linear "
          "feature generation, not its functional role in storing factual knowledge",
    statement=r"\text{(the scope of §5)}",
    hypotheses=(), conclusion="", regimes=("all",),
    checks=[_nc("a statement of scope (what §5 addresses), not a mathematical claim")], depends_on=("MLP.function",),
    chapter="related_work",
    off_instance=OffInstance("literature", "the scope of §5 relative to Geva et al. 2021"),
)


# --- signal propagation and entropy collapse (Noci et al., Zhai et al.) -----------------------------------------

def _collapsed_setup(n: int = 3, d: int = 2, dk: int = 2):
    x = sympy.symbols(f"x0:{d}", real=True)
    X = ones(n, 1) * Matrix([list(x)])
    Q = Matrix(d, dk, lambda i, j: sympy.Symbol(f"q{i}{j}", real=True))
    K = Matrix(d, dk, lambda i, j: sympy.Symbol(f"k{i}{j}", real=True))
    V = Matrix(d, dk, lambda i, j: sympy.Symbol(f"v{i}{j}", real=True))
    return X, Q, K, V


def collapsed_attention_is_constant(n: int = 3, d: int = 2, dk: int = 2, collapsed: bool = True) -> bool:
    """At a collapsed input X = 1 x^T the attention matrix is J/n for every W_Q, W_K (symbolic entries), so its
    derivative in every entry of W_Q and W_K is 0. ``collapsed=False`` perturbs one row (the check then fails)."""
    X, Q, K, V = _collapsed_setup(n, d, dk)
    if not collapsed:
        X = X.copy()
        X[0, 0] += 1
    A, _ = T.attention(T.SYMPY, X, T.Head(Q, K, V, V.T), scale=1)
    if any(sympy.simplify(a - Rational(1, n)) != 0 for a in A):
        return False
    return all(sympy.simplify(sympy.diff(a, w)) == 0 for a in A for w in (*Q, *K))


def value_gradient_at_collapse(n: int = 3, d: int = 2, dk: int = 2):
    """d(A X W_V)/d(W_V)_{00} at X = 1 x^T: the values still get a gradient (x_0 in every row of column 0)."""
    X, Q, K, V = _collapsed_setup(n, d, dk)
    _, Y = T.attention(T.SYMPY, X, T.Head(Q, K, V, V.T), scale=1)
    return Y.applyfunc(lambda y: sympy.simplify(sympy.diff(y, V[0, 0])))


PROOF_STEPS = [
    (r"X=\mathbf 1x^\top\Rightarrow XW_QW_K^\top X^\top=(x^\top W_QW_K^\top x)\,\mathbf 1\mathbf 1^\top",
     "collapsed tokens give constant logits, so softmax gives J/n for every W_Q, W_K (n = 3, d = d_k = 2; n = 2, "
     "d = 3, d_k = 1: symbolic entries)", "identity",
     lambda: collapsed_attention_is_constant() and collapsed_attention_is_constant(2, 3, 1)),
    (r"\partial A/\partial(W_Q)_{ab}=\partial A/\partial(W_K)_{ab}=0",
     "so the gradient of any loss through A with respect to W_Q and W_K is 0", "identity",
     lambda: collapsed_attention_is_constant()),
]


def _collapsed(v) -> Decided:
    """X = 1 x^T: every row of X is the same"""
    X = v["X"]
    same = all(X.row(i) == X.row(0) for i in range(X.shape[0]))
    return Decided(same, "exact: every row of X equals the first" if same else "exact: two rows of X differ")


def _qk_gradients_vanish(v) -> Decided:
    """dA/dW_Q = dA/dW_K = 0: every direction of the scores they move is constant along each row"""
    X = v["X"]
    WQ, WK, _, _ = v["heads"][0]
    d, dk = WQ.shape

    def E(a, b):
        M = zeros(d, dk)
        M[a, b] = 1
        return M
    dirs = [X * E(a, b) * (X * WK).T for a in range(d) for b in range(dk)]
    dirs += [X * WQ * (X * E(a, b)).T for a in range(d) for b in range(dk)]
    bad = [D for D in dirs if any(len(set(D.row(i))) > 1 for i in range(D.shape[0]))]
    return Decided(not bad, "exact over Q: every derivative of the scores X W_Q W_K^T X^T in an entry of W_Q or W_K "
                            "is constant along each row, and softmax is invariant under a constant shift per row, so "
                            "dA/dW_Q = dA/dW_K = 0" if not bad else
                   f"exact over Q: {len(bad)} derivative(s) of the scores in an entry of W_Q or W_K vary along a row; "
                   "softmax moves with them (its Jacobian p (delta - p^T) kills only row-constant directions, p > 0)")


def _values_get_a_gradient(v) -> Decided:
    """d(A X W_V)/dW_V != 0: A X != 0 (the derivative in direction E is A X E)"""
    X = v["X"]
    nz = any(x != 0 for x in X)
    return Decided(nz, "exact: at X = 1 x^T, A X = 1 x^T for every row-stochastic A, so d(A X W_V)/dW_V [E] = 1 x^T E "
                       + ("!= 0 for some E (x != 0)" if nz else "= 0 (x = 0)"))


def _collapsed_rows(ctx):
    import random as _random

    from ..framework import stable_seed as _seed
    rng = _random.Random(_seed("RW.noci-vanishing-gradients:collapsed"))
    for (n, d, dk) in ((2, 2, 1), (3, 2, 2), (3, 3, 2), (4, 2, 1)):
        x = Matrix([[Rational(rng.randint(-3, 3), rng.randint(1, 2)) for _ in range(d)]])
        if all(v == 0 for v in x):
            x[0, 0] = 1
        m = lambda r, c: Matrix(r, c, lambda i, j: Rational(rng.randint(-3, 3)))
        yield "all", f"n={n}, d={d}, d_k={dk}", {"X": ones(n, 1) * x, "heads": [(m(d, dk), m(d, dk), m(d, dk),
                                                                                 m(dk, d))]}


_COLLAPSED = Pool(rows=_collapsed_rows, arithmetic="exact over Q", instance_from=_X_HEAD)


def _noci_evidence(ctx) -> list[Evidence]:
    return [derivation(PROOF_STEPS, "'at a collapsed input the query and key gradients vanish'",
                       arithmetic="sympy symbolic (exp kept exact)")]


def _values_still_learn(ctx) -> list[Evidence]:
    G = value_gradient_at_collapse()
    nz = any(g != 0 for g in G)
    return [exact_complete(f"d(A X W_V)/d(W_V)_00 at X = 1 x^T is {G.tolist()}: not 0, so only the query and key "
                           "gradients vanish", nz, arithmetic="sympy symbolic")]


claim(
    id="RW.noci-vanishing-gradients", section="§3, signal propagation and entropy collapse",
    quote="Noci et al. [19] extend Dong's analysis to the training dynamics, showing that rank collapse at "
          "initialisation causes vanishing gradients",
    # audit 56 (item 5): the sentence is an attribution (what Noci et al. showed), decided like the DONG.attr-*
    # attributions: not checkable, the text is not in the sources; the mathematics the suite can check beside it (at a
    # collapsed input the query and key gradients vanish; the values still learn) is in the readings
    statement=r"\text{Noci et al. 2022 show that rank collapse at initialisation causes vanishing gradients}",
    hypotheses=(), conclusion="an attribution", regimes=("all",),
    checks=[_nc("an attribution to Noci et al. 2022, whose text (and training-dynamics analysis) is not in the "
                "available sources; the mathematics beside it is decided in the readings collapsed-input and "
                "values-still-learn")],
    readings=[Reading("collapsed-input", r"X=\mathbf 1x^\top\Rightarrow\partial A/\partial W_Q=\partial A/\partial W_K=0",
                      checks=[_noci_evidence], hypotheses={"tokens collapsed (X = 1 x^T)": _collapsed},
                      conclusion=("query and key gradients vanish", _qk_gradients_vanish), instances=_COLLAPSED,
                      note="the inference 'collapse causes vanishing gradients', checked at a collapsed input: the "
                           "logits are constant, so A = J/n for every W_Q, W_K",
                      off_instance=OffInstance("inference", "the step 'rank collapse causes vanishing gradients', "
                                                            "for every collapsed input and every weight")),
              Reading("values-still-learn", r"\exists x,W:\ \partial(AXW_V)/\partial W_V\ne0\ \text{at }X=\mathbf 1x^\top",
                      checks=[_values_still_learn], form="existential",
                      hypotheses={"tokens collapsed (X = 1 x^T)": _collapsed}, conclusion=_values_get_a_gradient,
                      instances=_COLLAPSED,
                      note="'vanishing gradients' holds for the queries and keys, not for every parameter"),
              Reading("training-dynamics", r"\text{(the training dynamics of Noci et al.)}",
                      checks=[_nc("the training-dynamics analysis of Noci et al. is not reproduced: the suite checks "
                                  "the gradient at a collapsed input")],
                      off_instance=OffInstance("literature", "the training dynamics of Noci et al."))],
    depends_on=("DONG.regime-collapse",), chapter="related_work",
    notion="residual: rank collapse at initialisation read as identical tokens, X = 1 x^T (R = 0)",
    off_instance=OffInstance("literature", "what Noci et al. 2022 showed about the training dynamics"),
)


#: tokens whose attention to themselves dominates: self-scores 9, 9, 8 against cross-scores at most 6
_PEAKED_X = Matrix([[3, 0], [0, 3], [2, 2]])
_PEAK = Rational(99, 100)


def entropy_and_rank(X: Matrix, M0: Matrix, W: Matrix):
    """(max_j A_ij per row, rank of A X W, rank of X) with A = softmax(log 2 X M0 X^T), exactly."""
    A = exact_softmax(X, M0)
    return [max(A.row(i)) for i in range(A.shape[0])], rank(A * X * W), rank(X), A


def _two_extremes(v) -> Decided:
    """A = I (each row on one token) keeps rank(A X W) = rank X, and A = J/n (maximal entropy) gives rank(A X W) = 1,
    W = W_V W_O of the first head"""
    X = v["X"]
    _, _, WV, WO = v["heads"][0]
    W = WV * WO
    n = X.shape[0]
    r, r1, rJ = rank(X), rank(X * W), rank(ones(n, n) / n * X * W)
    return Decided(r1 == r and rJ == 1, f"exact over Q: rank X = {r}; A = I: rank(X W) = {r1}; A = J/n: "
                                        f"rank(J/n X W) = {rJ} (W = W_V W_O)")


def _extremes_rows(ctx):
    W = (sympy.eye(2), sympy.eye(2), sympy.eye(2), sympy.eye(2))
    yield "all", "the peaked X", {"X": _PEAKED_X, "heads": [W]}
    yield "all", "X = I", {"X": sympy.eye(2), "heads": [W]}


def _entropy_distinct(ctx) -> list[Evidence]:
    W = sympy.eye(2)
    peaks, rk, rx, _ = entropy_and_rank(_PEAKED_X, 10 * sympy.eye(2), W)
    a = exact_complete(f"entropy collapse without rank collapse: X = {_PEAKED_X.tolist()}, W_Q W_K^T / sqrt(d_k) = "
                       f"10 log 2 I: every row of A puts at least {_PEAK} on one token (min {min(peaks)} = "
                       f"{float(min(peaks)):.6f}), and rank(A X W) = {rk} = rank X = {rx}",
                       min(peaks) >= _PEAK and rk == rx == min(_PEAKED_X.shape), arithmetic=_EXACT + ", 2^k softmax")
    peaks0, rk0, rx0, A0 = entropy_and_rank(_PEAKED_X, zeros(2, 2), W)
    uniform = all(v == Rational(1, 3) for v in A0)
    b = exact_complete(f"rank collapse without entropy collapse: W_Q = 0 gives A = J/3 (maximal entropy log 3) and "
                       f"rank(A X W) = {rk0} < rank X = {rx0} (identical rows)", uniform and rk0 == 1 < rx0,
                       arithmetic=_EXACT)
    return [a, b]


claim(
    id="RW.zhai-entropy-distinct", section="§3, signal propagation and entropy collapse",
    quote="Zhai et al. [20] identify entropy collapse (attention concentrating on too few tokens) as a distinct "
          "failure mode",
    statement=r"\exists\ A\text{ concentrated on one token per row with }\operatorname{rank}AXW=\operatorname{rank}X"
              r"\ \wedge\ \exists\ A=J/n\text{ (maximal entropy) with }\operatorname{rank}AXW=1",
    hypotheses={}, conclusion=("entropy collapse and rank collapse occur independently", _two_extremes),
    instances=Pool(rows=_extremes_rows, arithmetic="exact over QQ", instance_from=_X_HEAD), regimes=("all",),
    form="existential", checks=[_entropy_distinct], notion="exact-rank", chapter="related_work",
)

claim(
    id="RW.orthogonal-to-hc", section="§3, signal propagation and entropy collapse",
    quote="Both are orthogonal to head-channel non-identifiability",
    statement=r"\text{(the scope of §7)}",
    hypotheses=(), conclusion="", regimes=("all",),
    checks=[_nc("'orthogonal' is not defined; that head-channel non-identifiability and rank collapse occur "
                "independently is HC.distinct-from-rank-collapse")],
    depends_on=("HC.distinct-from-rank-collapse",), chapter="related_work",
    off_instance=OffInstance("literature", "the scope of §7 relative to Noci et al. and Zhai et al."),
)



# --- §4's comparison with Wu et al. (issue 33) ---

claim(
    id="RW.wu-comparison-rate", section="§4, comparisons (Wu et al.)",
    quote="Wu et al. [16]: LN can slow collapse in certain regimes. (True for convergence rate; our result concerns "
          "rank preservation at each step.)",
    # audit 63: the sentence is existential ("can ... in certain regimes"), so one certified witness decides it; the
    # headline reads "convergence rate" as the decay of rho_l with depth over a stated depth, on the same weights and
    # input with and without LN. The witness (sharp attention W_Q = W_K = 2I, W_V = W_O = I, n = 4, d = 3): without
    # LN rho_l falls doubly exponentially (below 2^-52 at layer 7); with LN the tokens settle within 3 layers near
    # the exact fixed point three at a, one at -a (rho = sqrt 3 / 2) and rho_l does not decay at all over 40 layers.
    # The fixed point is unstable (float: the lone token's offset from -a grows by about 1 + 3.2e-6 per layer), so
    # this is a metastable delay of the collapse, not a proof that LN prevents it at every depth. The limit of the
    # log-ratios (the doubly exponential base) is the reading 'asymptotic-exponent'; the first crossing of 2^-52 on
    # the depth study's Gaussian weights is 'crossing-delay'.
    statement=r"\exists\ W,X_0:\ \rho^{\text{LN}}_l>\tfrac12\ (0\le l\le40)\ \wedge\ \rho^{\text{no LN}}_l<2^{-52}"
              r"\ (\text{some }l\le40)\ \text{(pure attention, same weights and inputs: LN slows the decay of }"
              r"\rho_l)",
    hypotheses=(), conclusion="LN slows the convergence of Dong's collapse on some weights and input", regimes=("all",),
    form="existential",
    checks=[],  # the certified witness (depth-study arb runs) and, as float context, the study's fitted exponents
    notion="residual: rho_l with and without LN over 40 layers, certified (arb)",
    readings=[Reading("asymptotic-exponent",
                      r"\exists\text{ weights}:\ \lim\log\rho^{\text{LN}}_{l+1}/\log\rho^{\text{LN}}_l"
                      r"<\lim\log\rho^{\text{no LN}}_{l+1}/\log\rho^{\text{no LN}}_l\ \text{(pure attention, same "
                      r"weights and inputs)}",
                      checks=[], form="existential",
                      notion="residual: the fitted exponent of rho_l (float)",
                      note="'convergence rate' read as the limit exponent of the doubly exponential collapse; the "
                           "depth study's typical Gaussian weights show the same exponent (about 3) with and without "
                           "LN, and no witness is known: a limit no finite run certifies",
                      formal_gap=FormalGap("numerical-only", "the fitted exponents log rho_(l+1) / log rho_l of the "
                                           "depth study with and without LayerNorm"),
                      off_instance=OffInstance("limit", "limits of log rho_{l+1} / log rho_l with and without LN")),
              Reading("crossing-delay", r"\exists\text{ weights}:\ \min\{l:\rho_l^{\text{LN}}<2^{-52}\}>"
                                        r"\min\{l:\rho_l^{\text{no LN}}<2^{-52}\}",
                      checks=[], form="existential",
                      notion="residual: the first layer with rho_l < 2^-52, certified, with and without LN",
                      note="'LN can slow collapse' read as LN postponing the first crossing of 2^-52 on the depth "
                           "study's Gaussian weights (a delay of a layer, not a slower rate: the exponent is about 3 "
                           "with and without LN)",
                      formal_gap=FormalGap("numerical-only", "the depths at which rho_l falls below 2^-52 with and "
                                           "without LayerNorm, for the weights found"),
                      off_instance=OffInstance("depth-study", "the first layer where rho_l < 2^-52, with and without "
                                               "LN, over 12 layers"))],
    depends_on=("RN.neither-helps-nor-hinders",), chapter="related_work",
    formal_gap=FormalGap("numerical-only", "rho_l with and without LayerNorm over 40 layers of one network, certified "
                         "by arb enclosures"),
    off_instance=OffInstance("depth-study", "rho_l with and without LN over 40 layers of a given network"),
)

