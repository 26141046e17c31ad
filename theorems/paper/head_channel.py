r"""Head-Channel Non-Identifiability (Cirrincione 2026, Thm 7.3, §7 -- text not available).

Known only from the contributions list: "the per-head contributions to multi-head
attention output are irrecoverable from their sum; the MLP does not remedy this."
The recovery problem is linear once the attention patterns are fixed; the suite
states each plausible reading as a linear map and computes its kernel exactly.

Readings (per layer, one sequence of n tokens; :math:`W_O=[W_O^1;\dots;W_O^H]\in\mathbb R^{Hd_k\times d}`)
===============================================================================================
``a`` (standard architecture, W_O known)
    :math:`\Phi_a:(Y_1,\dots,Y_H)\mapsto\sum_hY_hW_O^h=[Y_1\cdots Y_H]\,W_O`.
    :math:`\dim\ker\Phi_a=n\,(Hd_k-\operatorname{rank}W_O)`: **zero** for a generic
    :math:`W_O` when :math:`Hd_k\le d` (BERT: :math:`Hd_k=d=768`): then
    :math:`Y=\mathrm{MHA}(X)\,W_O^{+}` recovers every head exactly.
``b`` (heads summed without output projections)
    :math:`\Phi_b:(Y_1,\dots,Y_H)\mapsto\sum_hY_h`, :math:`\dim\ker\Phi_b=n(H-1)d_k`.
``c`` (learned weights, only the map observed)
    :math:`Y_h` is defined only up to the value-output gauge :math:`Y_h\mapsto Y_hM_h`
    (:math:`M_h\in GL(d_k)`) and head permutations: :math:`Hd_k^2` continuous degrees of
    freedom per layer, whatever n; the contributions :math:`Z_h=Y_hW_O^h` themselves are
    gauge invariant.

The maps and their kernels are the kernels of :mod:`theorems.exact.heads` (shared with the recovery
ambiguity and the symmetries).
"""
from __future__ import annotations

import dataclasses
import random
from typing import Callable

import sympy
from sympy import Matrix, Rational, ones, symbols

from ..exact import deployed_heads as DH
from ..exact.attention import exact_head, head_terms
from ..exact.heads import ARITHMETIC_MOD_P as BERT_ARITHMETIC
from ..exact.heads import (
    HEAD_SHAPES,
    KERNEL_FORMULAS,
    MAP_MAX_COLUMNS,
    PROOF_STEPS,
    Phi_a,
    bert_shape_w_o_rank,
    explain_w_o,
    generic_wo_rows,
    head_ambiguity,
    head_wo_rows,
    kernel_basis_a,
    kernel_dim_a,
    map_nullity,
    nullity_a,
    rank_of_W_O,
    recover_heads_exact,
    single_head_box,
    standard_mha,
    sum_map_nullity_is_formula,
    sum_shape_rows,
    w_o_instance,
    w_o_instance_with_n,
    w_o_known,
    weights_unknown_formula,
    weights_unknown_nullity,
    weights_unknown_rows,
)
from ..exact.input import BadInput
from ..exact.instances import random_int_matrix
from ..exact.linalg import rank
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
    exact_instances,
    failing_box,
    label_by_boxes,
    not_checkable,
    not_on_user_input,
    stable_seed,
)

__all__ = ["kernel_dim_a", "kernel_basis_a", "recover_heads_exact", "Phi_a", "PROOF_STEPS", "KERNEL_FORMULAS"]

n, H, d_k, d, rho = symbols("n H d_k d rho", positive=True, integer=True)
_ARITH = "exact over QQ (python-flint fmpq_mat)"
_USER_ARITH = ("exact over Q: rank W_O certified on the exact values (python-flint: rank mod random primes, "
               "p-adic / kernel certificates, FLINT's exact rank)")
#: how a user's --W-O and --heads become an instance {n, H, d_k, d, W_O} (reading a: per token, n = 1 unless --n)
W_O_INSTANCE = InstanceForm(takes=("W_O",), optional=("n",), build=w_o_instance, explain=explain_w_o,
                            arithmetic=_USER_ARITH, sites=("output-projection",))
#: the same, with the n tokens of one sequence (--n), for the statements about the map on a whole sequence
W_O_N_INSTANCE = InstanceForm(takes=("W_O", "n"), build=w_o_instance_with_n, explain=explain_w_o,
                              arithmetic=_USER_ARITH, sites=("output-projection",))


def proof_evidence(uses, what, concludes: bool = True) -> Evidence:
    return derivation(PROOF_STEPS, what, uses=uses, concludes=concludes)


def literal_evidence(ctx) -> list[Evidence]:
    """Generic W_O (full row rank, H d_k <= d): the heads are recovered exactly, so nothing is irrecoverable."""
    rng = random.Random(stable_seed("HC.main:generic W_O"))
    recovered = total = 0
    for (nn, dd, HH, dk) in HEAD_SHAPES:
        if HH * dk > dd:
            continue
        for _ in range(2 if ctx.quick else 6):
            W = random_int_matrix(rng, HH * dk, dd)
            if rank(W) < HH * dk:
                continue
            Ys = [random_int_matrix(rng, nn, dk) for _ in range(HH)]
            total += 1
            recovered += recover_heads_exact(Phi_a(Ys, W), W, HH) == Ys
    out = [exact_instances("W_O known and of full row rank (H d_k <= d): some head output is irrecoverable from "
                           f"MHA(X) (recovered exactly on {recovered}/{total}: Y = MHA W_O^T (W_O W_O^T)^-1)",
                           met=total, held=total - recovered, regime="generic-weights", arithmetic=_ARITH)]
    out.append(proof_evidence((0,), "'dim ker Phi_a = n (H d_k - rank W_O) = 0 whenever rank W_O = H d_k', which holds for "
                            "Lebesgue-almost-every W_O when H d_k <= d (BERT-base: H d_k = d = 768)", concludes=False))
    out[-1].regime = "generic-weights"
    if not ctx.quick:
        br = bert_shape_w_o_rank()
        rk = br.rank_over_Q
        dim = None if rk is None else 512 * (768 - rk)
        out.append(exact_complete(f"BERT-base shape: {br.describe()}, so dim ker Phi_a = 512 (768 - rank W_O) = {dim}"
                                  + (": nothing is irrecoverable" if dim == 0 else ""),
                                  None if rk is None else rk < 768, regime="generic-weights",
                                  arithmetic=BERT_ARITHMETIC,
                                  numbers={"rank_W_O": rk, "rank_mod_p": br.rank_mod_p, "prime": br.prime}))
    return out


def _kernel_nontrivial(v) -> Decided:
    """ker Phi_a is non-trivial: some head's output is irrecoverable from MHA(X) (iff rank W_O < H d_k)"""
    r, Hdk = rank_of_W_O(v), v["H"] * v["d_k"]
    if r is None:
        return Decided(None, f"undecided: rank W_O is not certified ({v.get('rank_how', '')})")
    if r < Hdk:
        return Decided(True, f"exact: rank W_O = {r} < H d_k = {Hdk}: not recoverable; dim ker Phi_a = n (H d_k - "
                             f"rank W_O) = {Hdk - r} per token")
    return Decided(False, f"exact: rank W_O = {r} = H d_k: recoverable, Y = MHA(X) W_O^+ gives every head exactly; "
                          "dim ker Phi_a = 0")


def _degenerate_rows(ctx):
    """W_O = U V of rank min(H d_k, d) - 1 over HEAD_SHAPES (n H d_k <= 40: the nullity's matrix is built exactly)."""
    rng = random.Random(stable_seed("HC.main:rank-deficient W_O"))
    for (nn, dd, HH, dk) in HEAD_SHAPES:
        rk = min(HH * dk, dd) - 1
        W = random_int_matrix(rng, HH * dk, rk) * random_int_matrix(rng, rk, dd)
        if nn * HH * dk <= 40:
            yield "degenerate-weights", "", {"n": nn, "H": HH, "d_k": dk, "W_O": W}


#: rank-deficient W_O (rank < H d_k, e.g. H d_k > d)
DEGENERATE_W_O = Pool(rows=_degenerate_rows, arithmetic=_ARITH)


#: the (n, H, d_k) of HEAD_SHAPES (reading b: heads summed, no W_O)
SUM_SHAPES = Pool(rows=sum_shape_rows, arithmetic=_ARITH, instance_from=W_O_N_INSTANCE)


def _kernel_formula_rows(ctx):
    """Every (shape, rank W_O) pair with n H d_k <= 40; W_O = U V of that rank (random integers)."""
    rng = random.Random(stable_seed("HC.main:kernel formula"))
    for (nn, dd, HH, dk) in HEAD_SHAPES:
        for rk in range(0, min(HH * dk, dd) + 1):
            W = (random_int_matrix(rng, HH * dk, rk) * random_int_matrix(rng, rk, dd)) if rk else Matrix.zeros(HH * dk, dd)
            if nn * HH * dk <= 40:  # the nullity is computed from an (n d) x (n H d_k) matrix
                yield "all", "", {"n": nn, "H": HH, "d_k": dk, "W_O": W}


def _nullity_a_is_formula(v) -> bool | Decided:
    """nullity of Phi_a (its matrix built from a basis) = n (H d_k - rank W_O)"""
    nn, HH, dk, W = v["n"], v["H"], v["d_k"], v["W_O"]
    if W is None or nn * HH * dk > MAP_MAX_COLUMNS:
        return Decided(None, f"undecided: the matrix of Phi_a would have n H d_k = {nn * HH * dk} columns, above "
                             f"{MAP_MAX_COLUMNS} (the formula against itself would decide nothing)")
    return map_nullity(lambda Ys: Phi_a(Ys, W), nn, HH, dk) == KERNEL_FORMULAS["a"].subs(
        {n: nn, H: HH, d_k: dk, rho: rank_of_W_O(v)})


#: (shape, rank W_O) pairs over HEAD_SHAPES
KERNEL_FORMULA = Pool(rows=_kernel_formula_rows, arithmetic=_ARITH, instance_from=W_O_N_INSTANCE)
#: reading (a) on a user's W_O alone: decided on no seeded instance (the ledger's evidence is the explicit checks)
W_O_KNOWN = Pool(rows=None, arithmetic=_ARITH, instance_from=W_O_INSTANCE)


def _generic_point(v) -> bool:
    """the point is generic: the differential of (Y, W_O) -> sum_h Y_h W_O^h has its maximal rank m (n + d - m),
    m = min(n, d, H d_k)"""
    return weights_unknown_nullity(v["Y"], v["W_O"]) == weights_unknown_formula(v["n"], v["H"] * v["d_k"], v["d"])


#: random integer head outputs and W_O per shape (reading ii: only the mixed output observed)
WEIGHTS_UNKNOWN = Pool(rows=lambda ctx: weights_unknown_rows(random.Random(stable_seed("HC.main:weights unknown"))),
                       arithmetic=_ARITH + " (the differential's matrix, built from a basis)")
#: random integer W_O per shape, regimes H d_k <= d and H d_k > d (reading iii: one head, W_O known)
SINGLE_HEAD_WO = Pool(rows=lambda ctx: head_wo_rows(random.Random(stable_seed("HC.main:single head"))), arithmetic=_ARITH,
                      describe=lambda v: f"n = {v['n']}, d = {v['d']}, H = {v['H']}, d_k = {v['d_k']}, W_O = "
                                         f"{v['W_O'].tolist()}")


def _single_head_ambiguity(v) -> int:
    return head_ambiguity(lambda Ys: Phi_a(Ys, v["W_O"]), v["n"], v["H"], v["d_k"])


def _head_one_identified_box(v) -> Evidence | None:
    """Head 1 identified (ambiguity 0) on a whole box of W_O: a robust failure of 'head 1 is irrecoverable'."""
    got = single_head_box(v["n"], v["d_k"], v["W_O"])
    if got is None or got[0] != 0:
        return None
    return failing_box(f"n = {v['n']}, d = {v['d']}, H = {v['H']}, d_k = {v['d_k']}: {got[2]}", certified=True,
                       box=got[1], arithmetic="exact rational interval arithmetic (theorems.exact.qinterval)",
                       exact=True, regime="Hd_k<=d" if v["H"] * v["d_k"] <= v["d"] else "Hd_k>d")


#: reading (iii): W_O generic (known); a failure is robust when the ranks are certified maximal on a box
SINGLE_HEAD_SPACE = Generic(space="W_O = [W_O^1; ...; W_O^H] in R^{H d_k x d} (known to the observer)", variables=("W_O",),
                            measure="Lebesgue", certify=_head_one_identified_box)


# --- the head channel through a deployed block (issue 57) ------------------------------------------------------
# The studies are theorems.exact.deployed_heads' (shared with RA.main); here their records become evidence.

POST_LN_SHAPES, POST_LN_EPS_SHAPES, PRENORM_SHAPES, BERT_EPS = (DH.POST_LN_SHAPES, DH.POST_LN_EPS_SHAPES,
                                                                DH.PRENORM_SHAPES, DH.BERT_EPS)
POST_LN_ARITH = ("exact over QQ: the Jacobian of (Y_h) -> LN(X + sum_h Y_h W_O^h) with row i scaled by sigma_i "
                 "(rational, kernel unchanged; theorems.exact.deployed.post_ln_jacobian_nullity)")
PRENORM_ARITH = ("exact over QQ: the suite's deployed_block (sympy) with uniform causal attention (C_ij = 1/i) and "
                 "witness rows with rational norms; nullities from the map's matrix")
_BOX_ARITH = "exact rational interval arithmetic (theorems.exact.qinterval)"


def block_records_evidence(records: list[dict], words: str) -> list[Evidence]:
    """theorems.exact.deployed_heads' records as evidence: instances, and failures certified on a box."""
    out: list[Evidence] = []
    for r in records:
        if r["type"] == "box":
            out.append(failing_box(r["what"], certified=True, box=r["box"], arithmetic=_BOX_ARITH, exact=True,
                                   regime=r["regime"]))
        elif "recovered" in r:
            out.append(exact_instances(f"{r['tag']}, causal mask, X and W_O known: the sub-layer output minus X equals "
                                       f"sum_h Y_h W_O^h on {r['recovered']}/{r['drawn']} instances (heads computed "
                                       f"separately on the normalised input), so the fibre is Y + ker Phi_a; {words}",
                                       met=r["met"], held=r["held"], arithmetic=PRENORM_ARITH, regime=r["regime"],
                                       first_failure=r["first"], drawn=r["drawn"]))
        else:
            out.append(exact_instances(f"{r['tag']}, X, gamma, beta, W_O known: {words} (the fibre of (Y_h) -> LN(X + "
                                       "sum_h Y_h W_O^h), random integer X, W_O, Y_h, gamma)", met=r["met"],
                                       held=r["held"], arithmetic=POST_LN_ARITH, regime=r["regime"],
                                       first_failure=r["first"]))
    # a failing aggregate is labelled robust by its regime's certified box, drawn around that regime's first failure
    return label_by_boxes(out)


def post_ln_evidence(seed: str, conclusion, words: str, eps=0) -> list[Evidence]:
    """Per regime: the post-LN fibre against ``conclusion(fibre, (n, d, H, d_k))``; a failure certified on a box."""
    return block_records_evidence(DH.post_ln_study(random.Random(stable_seed(seed)), conclusion, eps), words)


def post_ln_head_channel_evidence(seed: str, conclusion, words: str, eps=0) -> list[Evidence]:
    """Per regime (H d_k <= d, H d_k > d): what the heads lose beyond LayerNorm's own loss (the post-LN fibre minus
    the fibre of the same map with the heads' sum S as one variable, two exact Jacobian nullities) against
    ``conclusion(loss, shape)``; a failure certified on a box of W_O."""
    return block_records_evidence(DH.post_ln_head_channel_study(random.Random(stable_seed(seed)), conclusion, eps),
                                  words)


def prenorm_evidence(seed: str, block_type: str, conclusion, words: str) -> list[Evidence]:
    """Per regime: Z - X = sum_h Y_h W_O^h checked, ker Phi_a's dimension against ``conclusion``; boxes of W_O."""
    return block_records_evidence(DH.prenorm_study(random.Random(stable_seed(f"{seed}:{block_type}")), block_type,
                                                   conclusion), words)


_BEYOND_LN = ("the heads are irrecoverable beyond LayerNorm's own loss (the fibre of (Y_h) -> LN(X + sum_h Y_h W_O^h) "
              "exceeds that of S -> LN(X + S), S in row W_O)")


def _hc_block_reading(block_type: str, key: str, statement: str, note: str) -> Reading:
    eps: object = 0
    if block_type in ("post_ln", "post_ln_eps"):
        eps = BERT_EPS if block_type == "post_ln_eps" else 0
        check = lambda ctx: post_ln_head_channel_evidence(f"HC.main:{key} beyond LayerNorm",  # noqa: E731
                                                          lambda f, s: f > 0, _BEYOND_LN, eps)
        regimes: tuple[str, ...] = tuple(DH.HEAD_CHANNEL_SHAPES)
        space = f"(X, W_O, Y_h, gamma) (beta any, eps = {'10^-12' if eps else '0'})"
    elif block_type in ("post_ln_raw", "post_ln_eps_raw"):
        eps = BERT_EPS if block_type == "post_ln_eps_raw" else 0
        check = lambda ctx: post_ln_evidence(f"HC.main:{key.removesuffix('-raw')}",  # noqa: E731 (the old seeds)
                                             lambda f, s: f > 0, "the fibre has positive dimension", eps)
        regimes = tuple(POST_LN_EPS_SHAPES if eps else POST_LN_SHAPES)
        space = f"(X, W_O, Y_h, gamma) (beta any, eps = {'10^-12' if eps else '0'})"
    else:
        check = lambda ctx: prenorm_evidence("HC.main", block_type, lambda k, s: k > 0,  # noqa: E731
                                             "the heads are irrecoverable (ker Phi_a != 0)")
        regimes = tuple(PRENORM_SHAPES)
        space = "W_O (the heads' input normalised, the causal mask any)"
    return Reading(key, statement, checks=[check], regimes=regimes, form="generic", note=note,
                   generic=Generic(space=space, measure="Lebesgue"),
                   off_instance=OffInstance("positive-measure", "generic W_O (and X) of the deployed block: a failure "
                                            "is decided on a certified box"))


_HEADS_NOTE = ("BERT's sub-layer observes LN(X + S), not S. The sentence is about the head channel, so the loss "
               "LayerNorm has by itself (present at H = 1: a shift and a scale per row at eps = 0, a shift at eps > 0) "
               "is taken out: the map factors as (S -> LN(X + S)) o Phi_a with Phi_a linear onto row-W_O-valued S, so "
               "the fibre at Y is Phi_a^{-1}(the fibre at S) and its dimension exceeds the fibre of S -> LN(X + S) by "
               "exactly dim ker Phi_a = n (H d_k - rank W_O) (RA.main:post-LN-heads-count, two exact Jacobian "
               "nullities per instance), §7's count: irrecoverable beyond LayerNorm iff rank W_O < H d_k, for generic "
               "W_O iff H d_k > d (BERT: H d_k = d, nothing beyond LayerNorm's loss), as the headline")
_RAW_NOTE = ("the raw fibre, LayerNorm's loss included: n (H d_k - rank W_O) + {extra} (RA.main:{count}); generic: n (H "
             "d_k - rho) + n max(0, rho + {k} - d), rho = min(H d_k, d): positive for every X and W_O when H d_k >= d - "
             "{k1}, zero on an open set below. The part beyond n (H d_k - rank W_O) is LayerNorm's own loss, present "
             "at H = 1 (Jacobian nullity {h1} at (n, d, H, d_k) = (2, 4, 1, 4)), not a head-channel one: reading "
             "{heads} takes it out")

#: HC.main per deployed block type (issue 57; the head-channel readings, issue 56's review)
HC_BLOCK_READINGS = [
    _hc_block_reading("post_ln", "post-LN",
                      r"\text{post-LN, }X,\gamma,\beta,W_O\text{ known: }\dim\mathrm{fib}\bigl[(Y_h)_h\mapsto\mathrm{LN}"
                      r"\bigl(X+\textstyle\sum_hY_hW_O^h\bigr)\bigr]-\dim\mathrm{fib}\bigl[S\mapsto\mathrm{LN}(X+S),\ "
                      r"S\in\mathbb R^{n}\otimes\operatorname{row}W_O\bigr]>0\ \text{(generic }X,W_O)",
                      _HEADS_NOTE),
    _hc_block_reading("post_ln_eps", "post-LN-eps",
                      r"\text{post-LN, }\varepsilon=10^{-12}\text{ (BERT): }\dim\mathrm{fib}\bigl[(Y_h)_h\mapsto\mathrm{LN}"
                      r"_\varepsilon\bigl(X+\textstyle\sum_hY_hW_O^h\bigr)\bigr]-\dim\mathrm{fib}\bigl[S\mapsto\mathrm{LN}"
                      r"_\varepsilon(X+S),\ S\in\mathbb R^{n}\otimes\operatorname{row}W_O\bigr]>0\ \text{(generic }X,W_O)",
                      _HEADS_NOTE.replace("BERT's sub-layer", "With BERT's eps = 1e-12 (exactly) BERT's sub-layer")),
    _hc_block_reading("post_ln_raw", "post-LN-raw",
                      r"\text{post-LN, }X,\gamma,\beta,W_O\text{ known: the fibre of }(Y_h)_h\mapsto\mathrm{LN}\bigl(X+"
                      r"\textstyle\sum_hY_hW_O^h\bigr)\text{ has positive dimension (generic }X,W_O)",
                      _RAW_NOTE.format(extra="sum_i (2 + rank W_O - rank [1; x_i; W_O])", count="post-LN-count", k=2,
                                       k1=1, h1=4, heads="post-LN")),
    _hc_block_reading("post_ln_eps_raw", "post-LN-eps-raw",
                      r"\text{post-LN, }\varepsilon=10^{-12}\text{ (BERT), }X,\gamma,\beta,W_O\text{ known: the fibre of }"
                      r"(Y_h)_h\mapsto\mathrm{LN}_\varepsilon\bigl(X+\textstyle\sum_hY_hW_O^h\bigr)\text{ has positive "
                      r"dimension (generic }X,W_O)",
                      _RAW_NOTE.format(extra="n (1 + rank W_O - rank [1; W_O])", count="post-LN-eps-count", k=1, k1=0,
                                       h1=2, heads="post-LN-eps")),
    _hc_block_reading("pre_ln", "pre-LN-causal",
                      r"\text{pre-LN, causal: }Z=X+\textstyle\sum_hY_hW_O^h,\ Y_h=A_h\,\mathrm{LN}(X)W_V^h;\ X,W_O"
                      r"\text{ known: }\ker\Phi_a\neq0\ \text{(generic }W_O)",
                      "GPT-2's sub-layer adds the sum to the un-normalised X, so S = Z - X is observed exactly and the "
                      "question is §7's: irrecoverable iff rank W_O < H d_k (generic W_O: iff H d_k > d); the LN and "
                      "the causal mask act on Y_h's inputs, not on the summation map"),
    _hc_block_reading("pre_rms", "pre-RMSNorm-causal",
                      r"\text{pre-RMSNorm, causal: }Z=X+\textstyle\sum_hY_hW_O^h,\ Y_h=A_h\,\mathrm{RMS}(X)W_V^h;\ "
                      r"X,W_O\text{ known: }\ker\Phi_a\neq0\ \text{(generic }W_O)",
                      "LLaMA's composition (no GQA, no rotary positions): as pre-LN-causal"),
]


claim(
    id="HC.main", section="§7, Thm 7.3 (text not available; contributions list); Abstract; §1 gap (iii)",
    quote="the per-head contributions to multi-head attention output are irrecoverable from their sum "
          "[Abstract:] individual contributions cannot be canonically attributed to a specific head [§1, gap "
          "(iii):] their individual contributions can no longer be canonically attributed to a specific "
          "functional head",
    statement=r"\text{(a) }W_O\text{ known: }\ker\bigl[(Y_h)_h\mapsto\textstyle\sum_hY_hW_O^h\bigr]\neq0",
    hypotheses={"standard MHA": standard_mha, "W_O known": w_o_known},
    conclusion=("kernel non-trivial", _kernel_nontrivial), instances=W_O_KNOWN,
    regimes=("generic-weights", "degenerate-weights"),
    checks=[literal_evidence, DEGENERATE_W_O.decide(
        {"rank W_O < H d_k": lambda v: rank(v["W_O"]) < v["H"] * v["d_k"]},
        ("Phi_a has a non-trivial kernel (nullity from its matrix)",
         lambda v: map_nullity(lambda Ys: Phi_a(Ys, v["W_O"]), v["n"], v["H"], v["d_k"]) > 0))],
    readings=[
        Reading("b-no-output-projection", r"\dim\ker\bigl[(Y_h)_h\mapsto\textstyle\sum_hY_h\bigr]=n(H-1)d_k\ (H\ge1)",
                hypotheses={}, conclusion=sum_map_nullity_is_formula, instances=SUM_SHAPES, regimes=("all",),
                same_as="RA.main:b-no-output-projection",
                checks=[lambda ctx: [proof_evidence((3,), "dim ker Phi_b = n (H - 1) d_k")]],
                note="the paper's n(H-1)d_k is this reading's kernel dimension"),
        Reading("c-gauge", r"(Y_h,W_O^h)\mapsto(Y_hM_h,M_h^{-1}W_O^h),\ M_h\in GL(d_k),\text{ leaves }"
                r"\textstyle\sum_hY_hW_O^h\text{ unchanged}",
                checks=[lambda ctx: [proof_evidence((1,), "the value-output gauge invariance")]],
                note="with learned weights, Y_h has no canonical coordinates; Z_h = Y_h W_O^h does. This is the "
                     "'at least this ambiguity' half of 'identifiable only up to Y_h -> Y_h M_h'; that the gauge is "
                     "the whole ambiguity holds only when each Z_h is observed with full-rank factors and is not "
                     "checked here (with only the sum observed the fibre is larger: reading ii-weights-unknown)"),
        Reading("ii-weights-unknown",
                r"\text{only }M=\textstyle\sum_hY_hW_O^h\text{ observed, }Y,W_O\text{ unknown: the generic fibre of }"
                r"(Y,W_O)\mapsto M\text{ has dimension }nHd_k+Hd_kd-m(n+d-m)>0,\ m=\min(n,d,Hd_k)",
                hypotheses={"the point is generic (maximal rank of the differential)": _generic_point},
                conclusion=("the fibre dimension (nullity of the differential, from its matrix) is positive",
                            lambda v: weights_unknown_nullity(v["Y"], v["W_O"]) > 0),
                instances=WEIGHTS_UNKNOWN, regimes=("all",),
                note="reading (ii): nothing fixes W_O, so even H = 1 is ambiguous (Y G, G^-1 W_O); the count of "
                     "ambiguous degrees of freedom is RA.main reading ii-weights-unknown",
                formal_gap=FormalGap("not-yet-proved", "the dimension of the generic fibre of (Y, W_O) -> sum_h Y_h "
                                     "W_O^h needs the dimension theory of algebraic varieties (rank of the "
                                     "differential at a generic point), in neither MathComp nor MathComp-Analysis "
                                     "0.6.0")),
        Reading("iii-single-head-projected",
                r"W_O\text{ known (generic): head 1 is irrecoverable, }\dim\{Y_1:(Y_1,\dots)\in\ker\Phi_a\}>0",
                hypotheses={}, conclusion=("the ambiguity left in Y_1 (from ker Phi_a's own matrix) is positive",
                                           lambda v: _single_head_ambiguity(v) > 0),
                instances=SINGLE_HEAD_WO, regimes=("Hd_k<=d", "Hd_k>d"), form="generic", generic=SINGLE_HEAD_SPACE,
                note="reading (iii): one head recovered from the projected sum; for generic W_O it is identified "
                     "exactly when H d_k <= d (BERT: H d_k = d)"),
        Reading("trained-model", r"\text{(a) on MiniLM: }\operatorname{rank}W_O<Hd_k", checks=[], note='exact rank of the trained W_O'),
        *HC_BLOCK_READINGS,
    ],
    corrected=Reading("corrected", r"\text{(a) is ambiguous iff }\operatorname{rank}W_O<Hd_k;\ \dim\ker\Phi_a=n(Hd_k-\operatorname{rank}W_O)",
                      hypotheses={}, conclusion=_nullity_a_is_formula, instances=KERNEL_FORMULA,
                      checks=[lambda ctx: [proof_evidence((0,), "the kernel formula of reading (a)")]],
                      condition="only a rank-deficient W_O (e.g. H d_k > d) leaves per-head outputs ambiguous"),
    chapter="head_channel",
    notion="exact-rank: kernel dimensions over Q",
)


def mlp_cannot_separate(Ys: list[Matrix], K: list[Matrix], phi, g, X: Matrix | None = None) -> bool | None:
    """Does the MLP g, fed the post-summation signal, give the same output for Y and Y + K?

    ``K`` should be a non-zero element of ker phi (head outputs the mixing identifies). The two outputs are
    computed separately: g(X + phi(Y)) and g(X + phi(Y + K)) (X = 0 without a residual stream). None when
    K = 0 (nothing to separate); False when the outputs differ (the MLP separates them).
    """
    if all(k == sympy.zeros(*k.shape) for k in K):
        return None
    Y2 = [y + k for y, k in zip(Ys, K)]
    base = X if X is not None else sympy.zeros(*phi(Ys).shape)
    return g(base + phi(Ys)) == g(base + phi(Y2))


def gelu_like(M: Matrix) -> Matrix:
    """An exact stand-in for the MLP: a fixed polynomial non-linearity, then a fixed linear map."""
    return M.applyfunc(lambda v: v ** 3 / 6 + v / 2 + Rational(1, 3)) * Matrix.eye(M.shape[1]) * 2


def _kernel_tuple(W: Matrix | None, n: int, H: int, dk: int, rng) -> list[Matrix] | None:
    """A non-zero (K_1..K_H) with sum_h K_h W_O^h = 0 (W None: sum_h K_h = 0), or None if the kernel is 0."""
    if W is None:
        K0 = random_int_matrix(rng, n, dk)
        return [K0, -K0] + [Matrix.zeros(n, dk)] * (H - 2) if H >= 2 and K0 != Matrix.zeros(n, dk) else None
    basis = kernel_basis_a(W)
    if not basis:
        return None
    row = basis[0].T  # [1, H d_k]
    K = Matrix.zeros(n, H * dk)
    K[rng.randrange(n), :] = row
    return [K[:, h * dk:(h + 1) * dk] for h in range(H)]


def _mlp_remedy_rows(ctx, reading: str, only: str | None = None):
    """Head outputs Y and a kernel element K (from the exact kernel) per shape; ``only``: yield one regime's rows
    (the draws of the others are still made, so every regime sees the same instances)."""
    rng = random.Random(stable_seed(f"HC.mlp-cannot-remedy:{reading}"))
    projected = reading in ("a", "a-residual")
    for draw in (("generic-weights", "degenerate-weights") if projected else ("all",)):
        regime = draw
        for (nn, dd, HH, dk) in HEAD_SHAPES:
            phi: Callable[..., Matrix]  # Ys -> the map's value (W bound as a default where it has one)
            if reading == "a-residual":
                nn = 1  # one token: its residual x is fixed
            if projected:
                rk = HH * dk if draw == "generic-weights" else min(HH * dk, dd) - 1
                W = random_int_matrix(rng, HH * dk, rk) * random_int_matrix(rng, rk, dd) if rk < HH * dk else random_int_matrix(rng, HH * dk, dd)
                phi = (lambda Ys, W=W: Phi_a(Ys, W))
                # the regime is what decides a collision: rank W_O < H d_k (also generic W_O when H d_k > d)
                regime = RANK_DEFICIENT if rank(W) < HH * dk else FULL_ROW_RANK
            else:
                W, phi = None, (lambda Ys: sum(Ys[1:], Ys[0]))
            Ys = [random_int_matrix(rng, nn, dk) for _ in range(HH)]
            K = _kernel_tuple(W, nn, HH, dk, rng)
            X = random_int_matrix(rng, nn, phi(Ys).shape[1]) if reading != "a" else None
            if only in (None, regime):
                yield regime, "", {"Y": Ys, "K": K, "phi": phi, "X": X}


#: the regimes of HC.mlp-cannot-remedy: whether W_O has a left kernel (a collision of head tuples exists)
FULL_ROW_RANK, RANK_DEFICIENT = "rank W_O = H d_k", "rank W_O < H d_k"
#: the paper's own block (§2): one token-wise MLP fed the residual stream x_i + MHA(X)_i (any W_O, invertible included)
PAPER_BLOCK = "paper's block: MLP fed x_i + MHA(X)_i"


def _collision(v) -> bool:
    """the mixing identifies two head-output tuples (a non-zero kernel element K)"""
    return v["K"] is not None and not all(k == sympy.zeros(*k.shape) for k in v["K"])


def _mlp_agrees(v) -> bool | None:
    """the MLP's outputs, computed from each of the two identified tuples, are the same"""
    if v["K"] is None:  # no collision (W_O of full row rank): nothing to compare
        return None
    return mlp_cannot_separate(v["Y"], v["K"], v["phi"], gelu_like, v["X"])


def _describe_collision(v) -> str:
    return f"n = {v['Y'][0].shape[0]}, H = {len(v['Y'])}, d_k = {v['Y'][0].shape[1]}"


_MLP_ARITH = _ARITH + " (polynomial MLP)"
#: W_O known (generic, and of rank min(H d_k, d) - 1), pairs identified by Phi_a, through an exact MLP
MLP_A = Pool(rows=lambda ctx: _mlp_remedy_rows(ctx, "a"), arithmetic=_MLP_ARITH, describe=_describe_collision)
_NO_MLP_INPUT = not_on_user_input("its instances are head outputs Y_h, a kernel element K of the mixing and a fixed "
                                  "polynomial MLP; no input flag spells Y_h or K")
def _collision_from_user(user) -> dict:
    """--W-O, --heads, --n: the mixing Phi_a of the user's W_O, seeded integer head outputs Y (n x d_k each) and a
    kernel element K from the exact left kernel of W_O (None when W_O has full row rank)."""
    v = w_o_instance_with_n(user)
    if v["W_O"] is None:
        raise BadInput(f"HC.mlp-cannot-remedy: W_O is {v['W_O_shape'][0]} x {v['W_O_shape'][1]}; this check "
                       "multiplies by it exactly on smaller inputs")
    W, nn, HH, dk = v["W_O"], v["n"], v["H"], v["d_k"]
    rng = random.Random(stable_seed(f"HC.mlp-cannot-remedy:user:{user.seed or 0}"))
    Ys = [random_int_matrix(rng, nn, dk) for _ in range(HH)]
    return {"Y": Ys, "K": _kernel_tuple(W, nn, HH, dk, rng), "phi": (lambda Ys, W=W: Phi_a(Ys, W)), "X": None}


def _post_summation(v) -> Decided:
    """the MLP is fed the post-summation signal only"""
    return Decided(True, "by construction: the MLP's input is Phi_a(Y) (and x + Phi_a(Y) with a fixed residual x)")


def _collision_and_agreement(v) -> Decided:
    """two head-output tuples Y != Y' with Phi_a(Y) = Phi_a(Y') exist, and the MLP's outputs on them agree"""
    if not _collision(v):
        return Decided(False, "exact: W_O has full row rank, so Phi_a is injective: no Y != Y' with Phi_a(Y) = "
                              "Phi_a(Y') (the MLP can recover the heads)")
    agree = _mlp_agrees(v)
    return Decided(agree, "exact: Y and Y + K (K a non-zero kernel element) collide; the MLP's outputs "
                          + ("agree" if agree else "differ" if agree is False else "are undecided"))


def _residual_collision(user) -> dict:
    """one token with a fixed residual x: --W-O, --heads (n = 1), seeded Y and x"""
    v = _collision_from_user(dataclasses.replace(user, n=1))  # the user's input itself is left as given
    rng = random.Random(stable_seed(f"HC.mlp-cannot-remedy:residual:{user.seed or 0}"))
    v["X"] = random_int_matrix(rng, 1, v["phi"](v["Y"]).shape[1])
    return v


#: the readings' instance forms on a user's W_O (the literal needs --n; the residual-stream reading one token)
COLLISION_FORM = InstanceForm(takes=("W_O", "n"), build=_collision_from_user, arithmetic=_MLP_ARITH,
                              hypotheses={"the MLP sees only the post-summation signal": _post_summation},
                              conclusion=_collision_and_agreement,
                              note="Y: seeded integer head outputs; K: a row of W_O's exact left kernel at one token; "
                                   "the MLP: the fixed polynomial stand-in (gelu_like)")
RESIDUAL_COLLISION_FORM = InstanceForm(takes=("W_O",), build=_residual_collision, arithmetic=_MLP_ARITH,
                                       hypotheses={}, conclusion=_collision_and_agreement,
                                       note="one token, a seeded fixed residual x, seeded y_h; the MLP: gelu_like")


MLP_A_DEGENERATE = Pool(rows=lambda ctx: _mlp_remedy_rows(ctx, "a", RANK_DEFICIENT), arithmetic=_MLP_ARITH,
                        describe=_describe_collision, instance_from=InstanceForm(
                            takes=("W_O", "n"), build=_collision_from_user, arithmetic=_MLP_ARITH,
                            note="Y: seeded integer head outputs; K: a row of W_O's exact left kernel at one token; "
                                 "the MLP: the fixed polynomial stand-in (gelu_like)"))
#: heads summed (no projection), the MLP fed the residual stream X + sum_h Y_h
#: W_O rank-deficient, one token with a fixed residual x: pairs identified by x + Phi_a, through an exact MLP
MLP_A_RESIDUAL = Pool(rows=lambda ctx: _mlp_remedy_rows(ctx, "a-residual", RANK_DEFICIENT),
                      arithmetic=_MLP_ARITH, describe=_describe_collision, instance_from=_NO_MLP_INPUT)
MLP_B = Pool(rows=lambda ctx: _mlp_remedy_rows(ctx, "b"), arithmetic=_MLP_ARITH, describe=_describe_collision,
             instance_from=_NO_MLP_INPUT)


def gelu_odd_part_identity() -> bool:
    """GELU(z) - GELU(-z) = z for every real z (GELU(z) = z/2 (1 + erf(z / sqrt 2)), erf odd): a sympy identity."""
    z = sympy.Symbol("z", real=True)
    gelu = lambda t: t / 2 * (1 + sympy.erf(t / sympy.sqrt(2)))  # noqa: E731 (the exact GELU of the paper's FFN)
    return sympy.simplify(gelu(z) - gelu(-z) - z) == 0


def gelu_mlp_recovers(Ys: list[Matrix], W: Matrix, x: Matrix | None = None) -> bool | None:
    """Does the GELU MLP g(Z) = GELU((Z - x) W_O^+) - GELU(-(Z - x) W_O^+) (hidden width 2 H d_k; the residual x of
    one token as the first layer's bias) output [Y_1 ... Y_H] exactly from Z = x + sum_h Y_h W_O^h? Computed with
    the exact (erf) GELU of :mod:`theorems.exact.transformer`; None when W_O is not of full row rank (no W_O^+)."""
    from ..exact import transformer as tf
    Hdk = W.shape[0]
    if rank(W) < Hdk:
        return None
    Wp = W.T * (W * W.T).inv()  # a right inverse: W_O W_O^+ = I_{H d_k}
    Z = Phi_a(Ys, W) + (x if x is not None else Matrix.zeros(Ys[0].shape[0], W.shape[1]))
    W1 = Matrix.hstack(Wp, -Wp)
    b1 = None if x is None else list(-(x * W1))
    W2 = Matrix.vstack(Matrix.eye(Hdk), -Matrix.eye(Hdk))
    out = tf.ffn(tf.SYMPY, Z, W1, b1, W2, None).applyfunc(sympy.expand)
    return out == Matrix.hstack(*Ys)


def mlp_recovery_evidence(ctx, residual: bool = False) -> list[Evidence]:
    """W_O of full row rank (generic when H d_k <= d): a GELU MLP of width 2 H d_k recovers every head exactly, so
    the 'cannot remedy' fails there. Exact instances over HEAD_SHAPES, and BERT-base's shape (the shared random integer
    768 x 768 W_O, ranked exactly mod 2^61 - 1; width 2 x 768 = 1536 <= d_ff = 3072)."""
    ident = gelu_odd_part_identity()
    rng = random.Random(stable_seed(f"HC.mlp-cannot-remedy:recovery:{residual}"))
    met = held = 0
    for (nn, dd, HH, dk) in HEAD_SHAPES:
        if HH * dk > dd:
            continue
        W = random_int_matrix(rng, HH * dk, dd)
        m = 1 if residual else nn  # the residual of one token is the first layer's bias (the MLP is token-wise)
        Ys = [random_int_matrix(rng, m, dk) for _ in range(HH)]
        x = random_int_matrix(rng, 1, dd) if residual else None
        got = gelu_mlp_recovers(Ys, W, x)
        if got is None:
            continue
        met += 1
        held += not got  # the headline holds on an instance when the MLP does NOT recover the heads
    where = "x + sum_h Y_h W_O^h (one token, its residual x fixed)" if residual else "sum_h Y_h W_O^h"
    out = [exact_instances(f"W_O of full row rank (random integer, H d_k <= d): the MLP cannot recover (Y_h)_h from "
                           f"{where}; the GELU MLP g(Z) = GELU((Z{' - x' if residual else ''}) W_O^+) - "
                           f"GELU(-(Z{' - x' if residual else ''}) W_O^+) of width 2 H d_k recovers them exactly (exact "
                           f"erf GELU; GELU(z) - GELU(-z) = z: {'a sympy identity' if ident else 'NOT an identity'})",
                           met=met if ident else 0, held=held, regime=FULL_ROW_RANK,
                           arithmetic=_ARITH + " and sympy (exact erf GELU)")]
    if not ctx.quick and not residual:  # BERT's shape without a residual: no evidence for the residual reading
        br = bert_shape_w_o_rank()
        full = br.rank_over_Q == 768
        out.append(exact_complete(f"BERT-base shape (H d_k = d = 768): {br.describe()}, so Phi_a is injective and a "
                                  "GELU MLP of width 2 x 768 = 1536 <= d_ff = 3072 fed MHA(X) alone (not BERT's input, "
                                  "which adds the residual) outputs [Y_1 ... Y_H] = MHA(X) W_O^-1 exactly: an MLP fed "
                                  "MHA(X) alone recovers the heads",
                                  False if (full and ident) else None, regime=FULL_ROW_RANK,
                                  arithmetic=BERT_ARITHMETIC,
                                  numbers={"rank_W_O": br.rank_over_Q, "rank_mod_p": br.rank_mod_p, "prime": br.prime,
                                           "width": 2 * 768, "d_ff": 3072}))
    return out


def paper_block_jacobian() -> dict:
    """The paper's block (§2: Delta = MHA + FFN(X + MHA(X))), one token-wise MLP fed z_1 = x_1 + MHA(X)_1: are the
    head outputs y_1 = (y_11, y_12) of token 1 a function of z_1? n = 3, d = 2, H = 2, d_k = 1, W_O = [[1, 1], [0, 1]]
    (invertible), scores t (X q_h)(X k_h)^T, at the integer point X* below.

    The Jacobians in the 6 entries of X are built symbolically (sympy); at X* every score is t times an integer s, and
    at t = log 2 each exp(t s) is the rational 2^s, so every entry is a polynomial in t over Q evaluated at log 2.
    A non-zero 4 x 4 minor of J(z_1, y_1) as a polynomial P in Q[t] is non-zero at t = log 2 because log 2 is
    transcendental (Hermite-Lindemann: log 2 is not a root of any non-zero rational polynomial); so rank J(z_1, y_1)
    = 4 > rank J(z_1) (<= 2) at X*, hence rank J(z_1) = 2 near X* (z_1 a submersion), and y_1 has a non-zero
    derivative along the fibres of z_1: y_1 is not constant on a fibre, so no function g (an MLP or any other) has
    y_1 = g(z_1) near X*."""
    import itertools
    t = sympy.Symbol("t", positive=True)
    xs = sympy.symbols("x0:6")
    X = Matrix(3, 2, xs)
    q, k = [Matrix([1, 0]), Matrix([0, 1])], [Matrix([1, 1]), Matrix([1, -1])]
    v, W = [Matrix([1, 0]), Matrix([0, 1])], Matrix([[1, 1], [0, 1]])
    ys = []
    for h in range(2):
        e = [sympy.exp(t * (X[0, :] * q[h])[0] * (X[j, :] * k[h])[0]) for j in range(3)]
        ys.append(sum(e[j] * (X[j, :] * v[h])[0] for j in range(3)) / sum(e))
    z = X[0, :] + ys[0] * W[0, :] + ys[1] * W[1, :]
    point = [1, 2, 0, 1, 2, -1]
    J = Matrix([z[0], z[1], ys[0], ys[1]]).jacobian(xs).subs(dict(zip(xs, point)))
    # at X* each exponent is t * (an integer): exp(t s) at t = log 2 is 2^s (exactly), leaving polynomials in t
    J = J.replace(sympy.exp, lambda a: sympy.Integer(2) ** sympy.nsimplify(a / t)).applyfunc(sympy.cancel)
    rank_z = J[:2, :].rank()
    minor, cols = sympy.Integer(0), None
    for cols in itertools.combinations(range(6), 4):
        minor = sympy.factor(J[:, list(cols)].det())
        if minor != 0:
            break
    poly_in_t = J.free_symbols <= {t}
    return {"rank_J_z": rank_z, "minor": minor, "columns": cols, "point": point, "W_O": W.tolist(),
            "polynomial_in_t": poly_in_t, "rank_J_zy": 4 if (minor != 0 and poly_in_t) else None}


def paper_block_evidence(ctx) -> list[Evidence]:
    """The headline for the paper's own block (the MLP fed x_i + MHA(X)_i, W_O invertible): holds on an open set."""
    r = paper_block_jacobian()
    decided = r["rank_J_zy"] == 4
    return [exact_complete(
        "paper's block (one token-wise MLP fed z_1 = x_1 + MHA(X)_1), n = 3, d = 2, H = 2, d_k = 1, W_O = "
        f"{r['W_O']} invertible, scores t (X q_h)(X k_h)^T at X* = {r['point']} (rows of 3 x 2): rank J(z_1) = "
        f"{r['rank_J_z']}, and the 4 x 4 minor of J(z_1, y_1) on columns {r['columns']} is {r['minor']} at t = log 2, a "
        "non-zero polynomial in t over Q evaluated at the transcendental log 2 (Hermite-Lindemann), so non-zero: rank "
        "J(z_1, y_1) = 4 > rank J(z_1); near X* the head outputs y_1 vary along the fibres of z_1, so no MLP fed "
        "z_1 recovers them, although W_O is invertible",
        True if decided else None, regime=PAPER_BLOCK,
        arithmetic="exact: sympy over Q[t] (exp(s log 2) = 2^s exactly at the integer scores), then log 2 "
                   "transcendental (Hermite-Lindemann)",
        numbers={"rank_J_z": r["rank_J_z"], "rank_J_zy": r["rank_J_zy"]},
        reason=None if decided else "no non-zero 4 x 4 minor found")]


claim(
    id="HC.mlp-cannot-remedy", section="Abstract; §1 gap (iii)",
    quote="The MLP cannot remedy this because it acts on the post-summation signal [§1, gap (iii):] The MLP "
          "operates on this already-mixed representation and cannot recover the per-head decomposition",
    depends_on=("HC.main",),
    statement=r"\exists Y\neq Y':\ \Phi_a(Y)=\Phi_a(Y'),\ \text{and then }\mathrm{MLP}(\Phi_a(Y))=\mathrm{MLP}(\Phi_a(Y'))",
    hypotheses=("the MLP sees only the post-summation signal",), conclusion="no recovery",
    # the headline needs a collision, which exists only when rank W_O < H d_k; with W_O of full row rank (generic
    # when H d_k <= d, BERT-base) a GELU MLP recovers the heads exactly
    # the MLP's input decides too: fed MHA(X) alone it fails for full-row-rank W_O; fed the paper's x_i + MHA(X)_i it
    # holds even for invertible W_O (reading paper-block's exact Jacobian-rank test, also evidence here)
    regimes=(FULL_ROW_RANK, RANK_DEFICIENT, PAPER_BLOCK),
    checks=[MLP_A.decide({"a collision exists": _collision}, _mlp_agrees),
            lambda ctx: [proof_evidence((2,), "the data-processing step (given a collision)")],
            mlp_recovery_evidence, paper_block_evidence],
    readings=[Reading("rank-deficient-W_O",
                      r"\operatorname{rank}W_O<Hd_k\Rightarrow\nexists g:\ g\bigl(R+\textstyle\sum_hY_hW_O^h\bigr)="
                      r"(Y_h)_h\ \forall(Y_h)_h",
                      hypotheses={"a collision exists": _collision}, conclusion=_mlp_agrees,
                      instances=MLP_A_DEGENERATE, regimes=(RANK_DEFICIENT,),
                      note="the premise the headline needs (a collision exists) made a hypothesis; R is a fixed term, "
                           "so the residual stream X + MHA(X), where Y_h depends on X, is not covered"),
              Reading("paper-block",
                      r"\Delta=\mathrm{MHA}+\mathrm{FFN}(X+\mathrm{MHA}(X)):\ \nexists g\ \text{token-wise}:\ "
                      r"g\bigl(x_i+\mathrm{MHA}(X)_i\bigr)=(y_{ih})_h\ \text{near }X^*,\ W_O\text{ invertible}",
                      checks=[paper_block_evidence], regimes=(PAPER_BLOCK,),
                      formal_gap=FormalGap("needs-analysis", "the 4x4 minor is a non-zero polynomial in t over Q, "
                                           "non-zero at t = log 2 because log 2 is transcendental (Hermite-Lindemann, "
                                           "not in MathComp-Analysis 0.6.0), and a Jacobian of rank 4 > 2 at one "
                                           "point stays so on a neighbourhood"),
                      off_instance=OffInstance("positive-measure", "a statement on a neighbourhood of X* (a Jacobian "
                                               "rank at one fixed point of the paper's block), not on a user's input"),
                      note="the paper's own block (§2): the MLP is fed the residual stream x_i + MHA(X)_i, the Y_h "
                           "depending on X. Decided by the exact Jacobian-rank test at one point (which proves it on "
                           "a neighbourhood): the headline holds there even for an invertible W_O; without the "
                           "residual (the MLP fed MHA(X) alone) it holds iff rank W_O < H d_k"),
              Reading("residual-stream",
                      r"H\ge2,\ n,d>0,\ X\text{ fixed}:\ \exists(Y_h)\neq(Y'_h),\ \textstyle\sum_hY_h=\sum_hY'_h,"
                      r"\ \text{so }\nexists g:\ g\bigl(X+\sum_hY_h\bigr)=(Y_h)_h\ \forall(Y_h)_h",
                      hypotheses={"a collision exists": _collision}, conclusion=_mlp_agrees, instances=MLP_B,
                      regimes=("all",),
                      note="the residual adds X before the MLP; the sum still identifies (Y_h) up to ker Phi. This "
                           "reading drops W_O (the heads are summed unprojected, so a collision always exists): it is "
                           "true for that reason, not because of the residual; with W_O see residual-stream-W_O. X is "
                           "fixed and the Y_h free: the residual stream X + MHA(X), where Y_h = A_h(X) X W_V^h "
                           "depends on X, is not covered"),
              Reading("residual-stream-W_O",
                      r"\text{one token, }x\text{ fixed}:\ \nexists g:\ g\bigl(x+\textstyle\sum_hy_hW_O^h\bigr)="
                      r"(y_h)_h\ \forall(y_h)_h",
                      checks=[lambda ctx: mlp_recovery_evidence(ctx, residual=True),
                              MLP_A_RESIDUAL.decide({"a collision exists": _collision}, _mlp_agrees)],
                      regimes=(FULL_ROW_RANK, RANK_DEFICIENT),
                      note="for each fixed residual x some MLP g_x (its first-layer bias -x W_1) recovers the heads "
                           "when rank W_O = H d_k: a statement of the form 'for all x there is g', not one MLP for "
                           "all tokens (the y_h do not depend on x here). One token-wise MLP for the paper's block, "
                           "where the y_h depend on X, is reading paper-block (it holds, even for invertible W_O)")],
    chapter="head_channel",
    notion="exact-rank: kernel dimensions over Q",
    formal_gap=FormalGap("false-in-general", "the collision exists only when rank W_O < H d_k; with W_O of full row "
                         "rank Phi_a is injective (HC.main fails there; HC.main:corrected proves the equivalence). "
                         "The premise made a hypothesis is reading rank-deficient-W_O, proved",
                         counterexample="HC.main"),
)


# --- further sentences of the paper (coverage) ---



def _full_rank_yet_ambiguous():
    """H d_k = 4 > d = 2, n = 3: MHA(X) of full rank 2 while Phi_a has a kernel of dimension n (H d_k - rank W_O)."""
    rng = random.Random(stable_seed("HC.distinct-from-rank-collapse:full rank"))
    for _ in range(30):
        X = random_int_matrix(rng, 3, 2, 2)
        heads = [exact_head(rng, 2, 2) for _ in range(2)]
        T = head_terms(X, heads)
        W = Matrix.vstack(*[WO for _, _, WO in heads])
        if rank(sum(T[1:], T[0])) == 2:
            nullity = map_nullity(lambda Ys, W=W: Phi_a(Ys, W), 3, 2, 2)
            return rank(sum(T[1:], T[0])), kernel_dim_a(3, 2, 2, W), nullity
    return None


def collapsed_yet_identifiable():
    """H = 1, W_O of full row rank: Phi_a is injective, while uniform attention makes MHA(X) rank 1."""
    X = Matrix([[1, 0, 2], [0, 1, 1], [3, 1, 0]])
    WV, WO = Matrix([[1, 0], [0, 1], [1, 1]]), Matrix([[1, 0, 1], [0, 1, 2]])
    M = ones(3, 3) / 3 * X * WV * WO
    return rank(X), rank(M), map_nullity(lambda Ys: Phi_a(Ys, WO), 3, 1, 2)


def distinct_evidence(ctx) -> list[Evidence]:
    a = _full_rank_yet_ambiguous()
    b = collapsed_yet_identifiable()
    out = [exact_complete(f"non-identifiability without rank collapse: n = 3, d = 2, H = 2, d_k = 2 (softmax heads): "
                          f"rank MHA(X) = {a[0]} = min(n, d), yet dim ker Phi_a = {a[2]} (formula {a[1]})"
                          if a else "no full-rank instance found", None if a is None else (a[0] == 2 and a[2] > 0),
                          arithmetic=_ARITH, reason=None if a else "the search found no full-rank instance")]
    out.append(exact_complete(f"rank collapse without non-identifiability: H = 1, W_O of full row rank, uniform "
                              f"attention: rank X = {b[0]}, rank MHA(X) = {b[1]}, dim ker Phi_a = {b[2]}",
                              b[1] == 1 and b[2] == 0 and b[0] == 3, arithmetic=_ARITH))
    return out


claim(
    id="HC.distinct-from-rank-collapse", section="§1, gap (iii)",
    quote="This is not a variant of rank collapse — it is a different problem, with a different cause and a different "
          "remedy",
    statement=r"\exists\ \text{full-rank }\mathrm{MHA}(X)\text{ with }\ker\Phi_a\ne0\ \wedge\ \exists\ \text{rank-1 }"
              r"\mathrm{MHA}(X)\text{ with }\ker\Phi_a=0",
    hypotheses=(), conclusion="the two phenomena occur independently", regimes=("all",), form="existential",
    checks=[distinct_evidence],
    readings=[Reading("cause-and-remedy", r"\text{'a different cause and a different remedy'}",
                      checks=[lambda ctx: [not_checkable("the remedy is PG-OP (§8) and the cause is argued in §7; "
                                                          "neither section is in the available text")]],
                      off_instance=OffInstance("inference", "the paper's comparison of causes and remedies across §5 and §7"))],
    chapter="head_channel",
    notion="exact-rank",
)


def _wo_vs_sum_rows(ctx, generic: bool):
    """Random integer W_O (generic, H d_k <= d) or of rank d_k - 1 (W_O = 0 when d_k = 1: the edge), n H d_k <= 40."""
    if generic:
        yield from generic_wo_rows(random.Random(stable_seed(f"HC.wo-induces:{generic}")))
        return
    rng = random.Random(stable_seed(f"HC.wo-induces:{generic}"))
    for (nn, dd, HH, dk) in HEAD_SHAPES:
        if nn * HH * dk > 40:
            continue
        rk = dk - 1
        W = random_int_matrix(rng, HH * dk, rk) * random_int_matrix(rng, rk, dd) if rk else Matrix.zeros(HH * dk, dd)
        yield "degenerate-weights", "", {"n": nn, "H": HH, "d_k": dk, "W_O": W}


def _projection_enlarges(v) -> bool:
    """the output projection enlarges the ambiguity, dim ker Phi_a > dim ker Phi_b = n (H - 1) d_k"""
    nn, HH, dk, W = v["n"], v["H"], v["d_k"], v["W_O"]
    return map_nullity(lambda Ys: Phi_a(Ys, W), nn, HH, dk) > map_nullity(lambda Ys: sum(Ys[1:], Ys[0]), nn, HH, dk)


#: generic W_O (H d_k <= d) and W_O of rank < d_k, each with its own seed
WO_GENERIC = Pool(rows=lambda ctx: _wo_vs_sum_rows(ctx, True), arithmetic=_ARITH)
WO_LOW_RANK = Pool(rows=lambda ctx: _wo_vs_sum_rows(ctx, False), arithmetic=_ARITH)


def _nullity_a_positive(v) -> bool | Decided:
    """ker Phi_a is non-trivial (its nullity, from the map's matrix, is positive)"""
    k, how = nullity_a(v)
    return Decided(None if k is None else k > 0, f"dim ker Phi_a = {k}: {how}" if k is not None else how)


#: random integer W_O over HEAD_SHAPES (none drawn when H d_k > d, or n H d_k > 40)
GENERIC_WO = Pool(rows=lambda ctx: generic_wo_rows(random.Random(stable_seed("HC.wo-induces:generic kernel")), keep_skipped=True),
                  arithmetic=_ARITH, instance_from=W_O_N_INSTANCE)


claim(
    id="HC.wo-induces", section="§2, the three issues at a glance",
    quote="Output projection W_O ... Induces head-channel non-identifiability",
    statement=r"\dim\ker\bigl[(Y_h)\mapsto\textstyle\sum_hY_hW_O^h\bigr]>\dim\ker\bigl[(Y_h)\mapsto\textstyle\sum_hY_h\bigr]",
    hypotheses=("W_O known",), conclusion="W_O adds ambiguity", regimes=("generic-weights", "degenerate-weights"),
    checks=[WO_GENERIC.decide({}, _projection_enlarges),
            WO_LOW_RANK.decide({"rank W_O < d_k": lambda v: rank(v["W_O"]) < v["d_k"]}, _projection_enlarges)],
    readings=[Reading("a-nontrivial", r"\ker\Phi_a\ne0\ \text{for generic }W_O",
                      hypotheses={"H d_k <= d": lambda v: v["H"] * v["d_k"] <= v["d"],
                                  "n H d_k <= 40 (size of the exact nullity computation)":
                                      lambda v: v["n"] * v["H"] * v["d_k"] <= 40},
                      conclusion=("ker Phi_a is non-trivial", _nullity_a_positive),
                      instances=GENERIC_WO, regimes=("generic-weights",),
                      note="reading (a) of HC.main: with W_O known and generic, nothing is ambiguous")],
    chapter="head_channel",
    notion="exact-rank: kernel dimensions over Q",
)
