r"""Recovery Ambiguity (Thm 7.3 / §7.3) and the position-gated output projection PG-OP (§8).

The paper: "the exact recovery ambiguity dimension of head-channel non-identifiability
is :math:`n(H-1)d_k` degrees of freedom per layer. For BertBase: 360,448 per sequence (or
704 per token) per layer", and "PG-OP ... at parameter overhead below 1.6% of :math:`W_O`'s
parameter count". §7-§8 are not available; the suite computes the ambiguity under each
reading of :mod:`theorems.paper.head_channel` and the overhead of each plausible PG-OP.

PG-OP constructions considered (BERT-base: n_max = 512 positions, H = 12, d = 768)
=================================================================================
``per-position-per-head scalar``   a learned table g[pos, h]: n_max H parameters
``per-position-per-head + bias``   the table plus one bias per head: n_max H + H
``linear gate from the input``     g_h = w_h^T x_i + b_h: H (d + 1)
``linear gate from position emb.`` the same map applied to the position embedding: H (d + 1)
``per-position-per-channel``       a gate for every position and output channel: n_max d
``per-head d_k x d_k mixing``      a learned GL(d_k) per head: H d_k^2

PG-OP as implemented in the numeric layer (float64, mp, iv):
:math:`\mathrm{MHA}_{pg}(X)=\sum_h\operatorname{diag}(g_h)\,Y_hW_O^h`.

Examples
========
>>> bert_figures()["per_sequence"], bert_figures()["per_token"]
(360448, 704)
"""
from __future__ import annotations

import random
from typing import Any

import sympy
from sympy import Matrix, Rational, symbols

from ..exact import deployed_heads as DH
from ..exact.heads import (
    HEAD_SHAPES,
    KERNEL_FORMULAS,
    MAP_MAX_COLUMNS,
    Phi_a,
    explain_w_o,
    generic_wo_rows,
    head_ambiguity,
    head_wo_rows,
    map_matrix,
    map_nullity,
    nullity_a,
    single_head_box,
    standard_mha,
    sum_map_nullity_is_formula,
    sum_shape_rows,
    w_o_instance_with_n,
    w_o_known,
    weights_unknown_formula,
    weights_unknown_nullity,
    weights_unknown_rows,
)
from ..exact.heads import PROOF_STEPS as HC_PROOF_STEPS
from ..exact.instances import random_int_matrix
from ..exact.linalg import nullspace, rank
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
    stable_seed,
    symbolic_identity,
)

__all__ = ["bert_figures", "BERT", "PGOP_CONSTRUCTIONS", "pgop_overhead", "Phi_a_gated", "Phi_b_gated",
           "post_ln_heads_count", "post_ln_count_evidence"]

n, H, d_k, d, rho, n_max = symbols("n H d_k d rho n_max", positive=True, integer=True)
BERT = {n: 512, H: 12, d: 768, d_k: 64, n_max: 512}

#: parameter counts of the PG-OP constructions (symbolic)
PGOP_CONSTRUCTIONS = {
    "per-position-per-head scalar": n_max * H,
    "per-position-per-head + bias": n_max * H + H,
    "linear gate from the input": H * (d + 1),
    "linear gate from position embedding": H * (d + 1),
    "per-position-per-channel": n_max * d,
    "per-head d_k x d_k mixing": H * d_k ** 2,
}
W_O_PARAMS = {"weights only": d * d, "weights + bias": d * d + d}
_THRESHOLD = Rational(16, 1000)


def bert_figures() -> dict:
    """n(H-1)d_k for BERT-base, exactly; and d_k = d / H."""
    per_seq = KERNEL_FORMULAS["b"].subs(BERT)
    per_tok = (KERNEL_FORMULAS["b"] / n).subs(BERT)
    return {"per_sequence": int(per_seq), "per_token": int(per_tok), "d_k_is_d_over_H": BERT[d_k] * BERT[H] == BERT[d],
            "reading_a_generic": int(KERNEL_FORMULAS["a"].subs({**BERT, rho: 768}))}


def pgop_overhead() -> list[dict]:
    rows = []
    for name, params in PGOP_CONSTRUCTIONS.items():
        p = int(params.subs(BERT))
        for base, wp in W_O_PARAMS.items():
            w = int(wp.subs(BERT))
            frac = Rational(p, w)
            rows.append({"construction": name, "params": p, "relative_to": base, "W_O_params": w,
                         "fraction": frac, "percent": float(100 * frac), "below_1.6%": bool(frac < _THRESHOLD)})
    return rows


def Phi_a_gated(Ys, W_O, gates):
    """PG-OP with W_O known: sum_h diag(g_h) Y_h W_O^h."""
    dk = Ys[0].shape[1]
    return sum((sympy.diag(*gates[h]) * Ys[h] * W_O[h * dk:(h + 1) * dk, :] for h in range(len(Ys))),
               Matrix.zeros(Ys[0].shape[0], W_O.shape[1]))


def Phi_b_gated(Ys, gates):
    return sum((sympy.diag(*gates[h]) * Ys[h] for h in range(len(Ys))), Matrix.zeros(*Ys[0].shape))


def _bert_arithmetic(ctx) -> list[Evidence]:
    f = bert_figures()
    ok = f["per_sequence"] == 360448 and f["per_token"] == 704 and f["d_k_is_d_over_H"]
    return [exact_complete(f"n (H - 1) d_k = 512 * 11 * 64 = {f['per_sequence']}; per token (H - 1) d_k = "
                           f"{f['per_token']}", ok, arithmetic="exact integer arithmetic (sympy)")]


def _nullity_a_is_n_H_minus_1_dk(v) -> bool | Decided:
    """dim ker Phi_a (W_O known) equals n (H - 1) d_k"""
    nn, HH, dk = v["n"], v["H"], v["d_k"]
    k, how = nullity_a(v)
    want = int(KERNEL_FORMULAS["b"].subs({n: nn, H: HH, d_k: dk}))
    if k is None:
        return Decided(None, how)
    return Decided(k == want, f"dim ker Phi_a = {k} {'=' if k == want else '!='} n (H - 1) d_k = {want}; {how}")


_USER_ARITH = ("exact over Q: rank W_O certified on the exact values (python-flint); nullities from the map's "
               f"matrix up to n H d_k = {MAP_MAX_COLUMNS} columns")
#: how a user's --W-O, --heads and --n become an instance {n, H, d_k, d, W_O}
W_O_N_INSTANCE = InstanceForm(takes=("W_O", "n"), build=w_o_instance_with_n, explain=explain_w_o,
                              arithmetic=_USER_ARITH, sites=("output-projection",))

#: the (n, H, d_k) of HEAD_SHAPES (reading b: heads summed, no W_O)
SUM_SHAPES = Pool(rows=sum_shape_rows, arithmetic="exact over QQ (python-flint fmpq_mat)", instance_from=W_O_N_INSTANCE)


#: W_O known and generic (reading a, the standard architecture)
GENERIC_W_O = Pool(rows=lambda ctx: generic_wo_rows(random.Random(stable_seed("RA.main:generic W_O"))), arithmetic="exact over QQ (python-flint)")
#: a user's W_O (reading a): decided on no seeded instance (the ledger's evidence is the explicit check on GENERIC_W_O)
W_O_KNOWN = Pool(rows=None, arithmetic="exact over QQ (python-flint)", instance_from=W_O_N_INSTANCE)


def _ra_literal_text() -> str:
    f = bert_figures()
    return (f"W_O known, generic: nullity of Phi_a equals n (H - 1) d_k (it is n (H d_k - rank W_O); for BERT-base "
            f"reading (a) gives {f['reading_a_generic']}, not {f['per_sequence']})")


def _ra_reading_b(ctx) -> list[Evidence]:
    return [derivation(HC_PROOF_STEPS, "dim ker Phi_b = n (H - 1) d_k", uses=(3,))]


def _n_H1_dk(v) -> int:
    return v["n"] * (v["H"] - 1) * v["d_k"]


def _generic_point(v) -> bool:
    """the point is generic: the differential of (Y, W_O) -> sum_h Y_h W_O^h has its maximal rank m (n + d - m)"""
    return weights_unknown_nullity(v["Y"], v["W_O"]) == weights_unknown_formula(v["n"], v["H"] * v["d_k"], v["d"])


def _describe_weights_unknown(v) -> str:
    return (f"n = {v['n']}, d = {v['d']}, H = {v['H']}, d_k = {v['d_k']}: fibre dimension "
            f"{weights_unknown_nullity(v['Y'], v['W_O'])} vs n (H - 1) d_k = {_n_H1_dk(v)}")


#: random integer head outputs and W_O per shape (reading ii: only the mixed output observed, weights unknown)
WEIGHTS_UNKNOWN = Pool(rows=lambda ctx: weights_unknown_rows(random.Random(stable_seed("RA.main:weights unknown"))),
                       arithmetic="exact over QQ (the differential's matrix, built from a basis)",
                       describe=_describe_weights_unknown)
#: random integer W_O per shape (reading iii: one head, W_O known), regimes H d_k <= d and H d_k > d
SINGLE_HEAD_WO = Pool(rows=lambda ctx: head_wo_rows(random.Random(stable_seed("RA.main:single head"))),
                      arithmetic="exact over QQ (python-flint)",
                      describe=lambda v: f"n = {v['n']}, d = {v['d']}, H = {v['H']}, d_k = {v['d_k']}, W_O = "
                                         f"{v['W_O'].tolist()}")


def _single_head_value_box(v) -> Evidence | None:
    """The ambiguity of head 1 is constant on a box of W_O and differs from n (H - 1) d_k: a robust failure."""
    got = single_head_box(v["n"], v["d_k"], v["W_O"])
    if got is None or got[0] == _n_H1_dk(v):
        return None
    return failing_box(f"n = {v['n']}, d = {v['d']}, H = {v['H']}, d_k = {v['d_k']}: {got[2]} != n (H - 1) d_k = "
                       f"{_n_H1_dk(v)}", certified=True, box=got[1],
                       arithmetic="exact rational interval arithmetic (theorems.exact.qinterval)", exact=True,
                       regime="Hd_k<=d" if v["H"] * v["d_k"] <= v["d"] else "Hd_k>d")


#: reading (iii): W_O generic (known); the value is certified constant on a box around each failing draw
SINGLE_HEAD_SPACE = Generic(space="W_O = [W_O^1; ...; W_O^H] in R^{H d_k x d} (known to the observer)", variables=("W_O",),
                            measure="Lebesgue", certify=_single_head_value_box)

#: the arguments of reading (iii), shared by RA.main and RA.single-head (keyword arguments of mixed types)
_READING_III: dict[str, Any] = dict(
    hypotheses={}, conclusion=("the ambiguity left in Y_1 (from ker Phi_a's own matrix) = n (H - 1) d_k",
                               lambda v: head_ambiguity(lambda Ys: Phi_a(Ys, v["W_O"]), v["n"], v["H"], v["d_k"])
                               == _n_H1_dk(v)),
    instances=SINGLE_HEAD_WO, regimes=("Hd_k<=d", "Hd_k>d"), form="generic", generic=SINGLE_HEAD_SPACE)


# --- RA.main per deployed block type (issue 57; the studies are theorems.exact.deployed_heads') ----------------------

_POST_LN_ARITH = ("exact over QQ: the Jacobian of (Y_h) -> LN(X + sum_h Y_h W_O^h) with row i scaled by sigma_i "
                  "(rational, kernel unchanged; theorems.exact.deployed.post_ln_jacobian_nullity)")
_PRENORM_ARITH = ("exact over QQ: the suite's deployed_block (sympy) with uniform causal attention (C_ij = 1/i) and "
                  "witness rows with rational norms; nullities from the map's matrix")


def _records_evidence(records: list[dict], words: str) -> list[Evidence]:
    """theorems.exact.deployed_heads' records as evidence (the same words as head_channel's)."""
    out: list[Evidence] = []
    for r in records:
        if r["type"] == "box":
            out.append(failing_box(r["what"], certified=True, box=r["box"], exact=True, regime=r["regime"],
                                   arithmetic="exact rational interval arithmetic (theorems.exact.qinterval)"))
        elif "recovered" in r:
            out.append(exact_instances(f"{r['tag']}, causal mask, X and W_O known: the sub-layer output minus X equals "
                                       f"sum_h Y_h W_O^h on {r['recovered']}/{r['drawn']} instances, so the fibre is Y "
                                       f"+ ker Phi_a; {words}", met=r["met"], held=r["held"], arithmetic=_PRENORM_ARITH,
                                       regime=r["regime"], first_failure=r["first"], drawn=r["drawn"]))
        else:
            out.append(exact_instances(f"{r['tag']}, X, gamma, beta, W_O known: {words} (the fibre of (Y_h) -> LN(X + "
                                       "sum_h Y_h W_O^h))", met=r["met"], held=r["held"], arithmetic=_POST_LN_ARITH,
                                       regime=r["regime"], first_failure=r["first"]))
    return label_by_boxes(out)  # a failing aggregate: robust by its regime's box (drawn around its first failure)


def post_ln_count_evidence(ctx, eps=0) -> list[Evidence]:
    """The post-LN fibre's dimension is the formula (Jacobian nullity = formula on every instance), LayerNorm's
    Jacobian kernel is span(1, y) (eps = 0) or span(1) (eps > 0), a symbolic identity of the suite's layer_norm; at
    eps = 0 an exact collision at an invertible W_O."""
    from ..exact import deployed
    st = DH.post_ln_count_study(random.Random(stable_seed("post-LN eps fibre count" if eps else
                                                          "post-LN fibre count")), eps)
    if eps:
        formula, kernel = ("n (H d_k - rank W_O) + n (1 + rank W_O - rank [1; W_O]), eps = 10^-12 exactly",
                           "sigma_eps dLN_eps(y) = (P - c^T c / (|c|^2 + d eps)) diag(gamma) for a symbolic row y (d = "
                           "3), symbolic gamma and eps > 0 (the suite's layer_norm differentiated by sympy): I - c^T c "
                           "/ (|c|^2 + d eps) is invertible, so the kernel is span(1): only the shift is lost")
    else:
        formula, kernel = ("n (H d_k - rank W_O) + sum_i (2 + rank W_O - rank [1; x_i; W_O]), eps = 0",
                           "sigma dLN(y) = (P - c^T c / |c|^2) diag(gamma) for a symbolic row y (d = 3) and symbolic "
                           "gamma (the suite's layer_norm differentiated by sympy): its kernel is span(1, y), a shift "
                           "and a scale")
    out = [exact_instances(f"post-LN fibre dimension (nullity of the exact Jacobian) = {formula}", met=st["met"],
                           held=st["held"], arithmetic=_POST_LN_ARITH, first_failure=st["first"]),
           exact_complete(kernel, deployed.ln_jacobian_identity(3, bool(eps)), arithmetic="sympy symbolic")]
    if eps:
        return out
    rng = random.Random(stable_seed("HC.main:post-LN collision"))
    X, W = random_int_matrix(rng, 3, 4, 3), random_int_matrix(rng, 4, 4, 3)
    Ys = [random_int_matrix(rng, 3, 2, 3) for _ in range(2)]
    got = deployed.post_ln_collision(X, Ys, W, [1, 2, -1, 3], [0, 1, 2, -1])
    out.append(exact_complete(f"n = 3, d = H d_k = 4 (H = 2), W_O = {W.tolist()} invertible (Phi_a injective): head "
                              f"outputs Y' != Y with sum_h Y'_h W_O^h = 1 + 2 (X + S) - X give the same LN(X + S) "
                              "exactly (square roots kept): the post-LN observation loses what W_O keeps",
                              None if got is None else got[1], arithmetic="exact (sympy)",
                              reason=None if got is not None else "W_O not invertible or a constant row"))
    return out


def _bert_post_ln(ctx, eps: bool = False) -> list[Evidence]:
    """BERT-base's shape, post-LN: with W_O invertible (the shared random integer W_O, certified rank 768), every row
    contributes 2 + 768 - rank [1; x_i; W_O] = 2 (rank [1; x_i; W_O] = 768 for every x_i): the fibre is 2 n = 1024
    per sequence, 2 per token, whatever X and Y."""
    if ctx.quick:
        return []
    from ..exact.heads import ARITHMETIC_MOD_P, bert_shape_w_o_rank
    br = bert_shape_w_o_rank()
    rk = br.rank_over_Q
    k = 1 if eps else 2  # with eps > 0 the shift only; rank [1; (x_i;) W_O] = 768 when W_O is invertible
    dim = None if rk is None else 512 * (768 - rk) + 512 * (k + rk - min(rk + k, 768))
    return [exact_complete(f"BERT-base shape, post-LN{' (eps = 1e-12)' if eps else ' (eps = 0)'}, W_O known: "
                           f"{br.describe()}, so the post-LN fibre is 512 (768 - rank W_O) + 512 ({k} + rank W_O - 768) "
                           f"= {dim} per sequence "
                           f"({None if dim is None else dim // 512} per token), not 360448 (704)",
                           None if dim is None else dim == 360448,
                           regime=DH.ra_post_ln_regime((512, 768, 12, 64), 1 if eps else 2),
                           arithmetic=ARITHMETIC_MOD_P,
                           numbers={"rank_W_O": rk, "dimension": dim})]


def _ra_block_reading(block_type: str, key: str, statement: str, note: str) -> Reading:
    want = lambda s: s[0] * (s[2] - 1) * s[3]  # noqa: E731  (n (H - 1) d_k of the shape (n, d, H, d_k))
    if block_type == "post_ln_eps":
        checks: list = [lambda ctx: _records_evidence(DH.post_ln_study(
                            random.Random(stable_seed("RA.main:post-LN-eps")), lambda f, s: f == want(s), DH.BERT_EPS,
                            DH.RA_POST_LN_EPS_SHAPES), "the fibre's dimension is n (H - 1) d_k"),
                        lambda ctx: _bert_post_ln(ctx, eps=True)]
        regimes: tuple[str, ...] = tuple(DH.RA_POST_LN_EPS_SHAPES)
        space = "(X, W_O, Y_h, gamma) (beta any, eps = 10^-12)"
    elif block_type == "post_ln":
        checks = [lambda ctx: _records_evidence(DH.post_ln_study(random.Random(stable_seed("RA.main:post-LN")),
                                                                 lambda f, s: f == want(s), 0, DH.RA_POST_LN_SHAPES),
                                                "the fibre's dimension is n (H - 1) d_k"), _bert_post_ln]
        regimes = tuple(DH.RA_POST_LN_SHAPES)
        space = "(X, W_O, Y_h, gamma) (beta any, eps = 0)"
    else:
        checks = [lambda ctx: _records_evidence(DH.prenorm_study(random.Random(stable_seed(f"RA.main:{block_type}")),
                                                                 block_type, lambda k, s: k == want(s)),
                                                "dim ker Phi_a = n (H - 1) d_k")]
        regimes = tuple(DH.PRENORM_SHAPES)
        space = "W_O (the heads' input normalised, the causal mask any)"
    return Reading(key, statement, checks=checks, regimes=regimes, form="generic", note=note,
                   generic=Generic(space=space, measure="Lebesgue"),
                   off_instance=OffInstance("positive-measure", "generic W_O (and X) of the deployed block: a failure "
                                            "is decided on a certified box"))


def _post_ln_eps_count(ctx) -> list[Evidence]:
    return post_ln_count_evidence(ctx, DH.BERT_EPS)


def post_ln_heads_count(ctx) -> list[Evidence]:
    """The head channel's loss beyond LayerNorm = n (H d_k - rank W_O), two exact Jacobian nullities per instance,
    at eps = 0 and at BERT's eps."""
    out = []
    for eps in (0, DH.BERT_EPS):
        st = DH.post_ln_head_channel_count_study(random.Random(stable_seed(f"post-LN heads count {eps}")), eps)
        out.append(exact_instances(
            f"post-LN{f' (eps = {eps})' if eps else ' (eps = 0)'}: the nullity of the Jacobian of (Y_h) -> LN(X + "
            "sum_h Y_h W_O^h) minus that of S -> LN(X + S) on S in row W_O (the single-head map with W_O a basis of "
            "row W_O) = n (H d_k - rank W_O)", met=st["met"], held=st["held"], arithmetic=_POST_LN_ARITH,
            first_failure=st["first"]))
    return out


def _post_ln_count(ctx) -> list[Evidence]:
    return post_ln_count_evidence(ctx)


#: RA.main per deployed block type (issue 57)
RA_BLOCK_READINGS = [
    _ra_block_reading("post_ln", "post-LN",
                      r"\text{post-LN, }X,\gamma,\beta,W_O\text{ known: }\dim(\text{fibre of }(Y_h)\mapsto\mathrm{LN}"
                      r"(X+\textstyle\sum_hY_hW_O^h))=n(H-1)d_k\ \text{(generic }X,W_O)",
                      "what BERT's attention sub-layer lets an observer recover: the fibre is n (H d_k - rho) + n max(0, "
                      "rho + 2 - d) generically (reading post-LN-count), rho = min(H d_k, d), which equals n (H - 1) d_k "
                      "exactly when d = d_k + 2 (e.g. (n, d, H, d_k) = (3, 4, 2, 2): 6 = 6), a coincidence of "
                      "LayerNorm's 2 per token with the paper's count, or when H = 1 and d > d_k + 2 (both 0: e.g. "
                      "(2, 4, 1, 1)), and differs from it otherwise (H = 1 with d < d_k + 2 included: (2, 4, 1, 4) "
                      "gives 4 != 0); the regimes are these two. 2 n = 1024 at BERT-base's shape (d = 768 != 66), "
                      "neither the paper's 360448 nor §7's 0; "
                      "what the heads lose beyond LayerNorm is §7's n (H d_k - rank W_O) (reading post-LN-heads-count)"),
    Reading("post-LN-count",
            r"\text{post-LN (}\varepsilon=0\text{): }\dim(\text{fibre at }Y)=n(Hd_k-\operatorname{rank}W_O)+\textstyle"
            r"\sum_i\bigl(2+\operatorname{rank}W_O-\operatorname{rank}[\mathbf 1;x_i;W_O]\bigr)",
            checks=[_post_ln_count], regimes=("all",),
            note="LayerNorm's Jacobian kernel is span(1, y_i) (a shift and a scale), and y_i - x_i lies in row W_O, so "
                 "the post-LN observation enlarges §7's kernel by sum_i dim(span(1, y_i) ∩ row W_O), between 0 and 2 "
                 "per token; every row of X + S non-constant, gamma without zero entries, beta any",
            formal_gap=FormalGap("not-yet-proved", "for every size: the fibre is Y + Phi_a^{-1}(W), W = the rows in "
                                 "span(1, y_i) (LayerNorm's level sets with eps = 0 are {a 1 + s y : s > 0}), of "
                                 "dimension n (H d_k - rank W_O) + sum_i dim(span(1, y_i) ∩ row W_O); checked against "
                                 "the exact Jacobian's nullity on instances and the symbolic Jacobian of LayerNorm"),
            off_instance=OffInstance("count", "a dimension count of the post-LN fibre over the random instances the "
                                     "check draws; no input flag spells the head outputs Y_h")),
    _ra_block_reading("post_ln_eps", "post-LN-eps",
                      r"\text{post-LN, }\varepsilon=10^{-12}\text{ (BERT): }\dim(\text{fibre of }(Y_h)\mapsto\mathrm{LN}"
                      r"_\varepsilon(X+\textstyle\sum_hY_hW_O^h))=n(H-1)d_k\ \text{(generic }X,W_O)",
                      "with BERT's eps the fibre is n (H d_k - rho) + n max(0, rho + 1 - d) generically, which equals n "
                      "(H - 1) d_k exactly when d = d_k + 1 (a coincidence of LayerNorm's shift with the paper's count) "
                      "or H = 1 and d > d_k + 1 (both 0, e.g. (2, 4, 1, 1)), and differs otherwise (H = 1 included: "
                      "(2, 3, 1, 3) gives 2 != 0); the regimes are these two: n = 512 at BERT-base's shape (1 per "
                      "token, d = 768 != 65)"),
    Reading("post-LN-eps-count",
            r"\text{post-LN, }\varepsilon>0:\ \dim(\text{fibre at }Y)=n(Hd_k-\operatorname{rank}W_O)+n\bigl(1+"
            r"\operatorname{rank}W_O-\operatorname{rank}[\mathbf 1;W_O]\bigr)",
            checks=[_post_ln_eps_count], regimes=("all",),
            note="with eps > 0 LayerNorm's level sets are the lines y + a 1 (the scale is recoverable: the variance of "
                 "LN_eps(y) is v / (v + eps)), so the enlargement is n when 1 is in row W_O (e.g. W_O invertible) and "
                 "0 otherwise; BERT's eps = 1e-12 taken exactly",
            formal_gap=FormalGap("not-yet-proved", "for every size: the fibre is Y + Phi_a^{-1}(rows in span(1)); "
                                 "checked against the exact Jacobian's nullity and LayerNorm's symbolic Jacobian"),
            off_instance=OffInstance("count", "a dimension count of the post-LN fibre over the random instances the "
                                     "check draws; no input flag spells the head outputs Y_h")),
    Reading("post-LN-heads-count",
            r"\text{post-LN, any }\varepsilon\ge0:\ \dim\mathrm{fib}\bigl[(Y_h)\mapsto\mathrm{LN}_\varepsilon(X+\textstyle"
            r"\sum_hY_hW_O^h)\bigr]-\dim\mathrm{fib}\bigl[S\mapsto\mathrm{LN}_\varepsilon(X+S),\ S\in\mathbb R^n\otimes"
            r"\operatorname{row}W_O\bigr]=n(Hd_k-\operatorname{rank}W_O)",
            checks=[post_ln_heads_count], regimes=("all",),
            note="what the heads lose beyond LayerNorm's own loss (which is there at H = 1): the observation factors "
                 "through Phi_a, linear onto the S with rows in row W_O, so the fibre at Y is Phi_a^{-1}(the fibre at "
                 "S) and the difference is dim ker Phi_a, §7's count (reading corrected), at eps = 0 and eps = 1e-12; "
                 "the second fibre is the single-head map (H = 1, d_k = rank W_O, W_O = a basis of row W_O) at the "
                 "same point",
            formal_gap=FormalGap("not-yet-proved", "for every size: dim Phi_a^{-1}(F) = dim ker Phi_a + dim F for the "
                                 "fibre F of S -> LN(X + S) inside im Phi_a (a submanifold at a regular point); checked "
                                 "as two exact Jacobian nullities on instances"),
            off_instance=OffInstance("count", "a dimension count of the post-LN fibre over the random instances the "
                                     "check draws; no input flag spells the head outputs Y_h")),
    _ra_block_reading("pre_ln", "pre-LN-causal",
                      r"\text{pre-LN, causal, }X,W_O\text{ known: }\dim(\text{fibre of }(Y_h)\mapsto X+\textstyle\sum_h"
                      r"Y_hW_O^h)=n(H-1)d_k\ \text{(generic }W_O)",
                      "GPT-2: S = Z - X is observed, so the fibre is ker Phi_a, n (H d_k - rank W_O), as in §7"),
    _ra_block_reading("pre_rms", "pre-RMSNorm-causal",
                      r"\text{pre-RMSNorm, causal, }X,W_O\text{ known: }\dim(\text{fibre of }(Y_h)\mapsto X+"
                      r"\textstyle\sum_hY_hW_O^h)=n(H-1)d_k\ \text{(generic }W_O)",
                      "LLaMA's composition: as pre-LN-causal"),
]


claim(
    id="RA.main", section="§7.3, Recovery Ambiguity Theorem (contributions list)",
    quote="the exact recovery ambiguity dimension of head-channel non-identifiability is n(H-1)d_k degrees of freedom per layer",
    depends_on=("HC.main",),
    statement=r"\dim\ker\Phi_a=n(H-1)d_k\quad(W_O\text{ known, standard MHA})",
    hypotheses={"standard MHA": standard_mha, "W_O known": w_o_known},
    conclusion=("ambiguity n(H-1)d_k", _nullity_a_is_n_H_minus_1_dk), instances=W_O_KNOWN, regimes=("generic-weights",),
    checks=[GENERIC_W_O.decide({}, (_ra_literal_text(), _nullity_a_is_n_H_minus_1_dk))],
    readings=[Reading("b-no-output-projection", r"\dim\ker\bigl[(Y_h)\mapsto\textstyle\sum_hY_h\bigr]=n(H-1)d_k\ (H\ge1)",
                      hypotheses={}, conclusion=sum_map_nullity_is_formula, instances=SUM_SHAPES, regimes=("all",),
                      checks=[_ra_reading_b], note="the number is exactly this reading's kernel dimension"),
              Reading("ii-weights-unknown",
                      r"\text{only }M=\textstyle\sum_hY_hW_O^h\text{ observed, weights unknown: }"
                      r"\dim(\text{generic fibre of }(Y,W_O)\mapsto M)=n(H-1)d_k",
                      hypotheses={"the point is generic (maximal rank of the differential)": _generic_point},
                      conclusion=("the fibre dimension (nullity of the differential, from its matrix) = n (H - 1) d_k",
                                  lambda v: weights_unknown_nullity(v["Y"], v["W_O"]) == _n_H1_dk(v)),
                      instances=WEIGHTS_UNKNOWN, regimes=("all",),
                      note="reading (ii), a count of the ambiguous degrees of freedom: n H d_k + H d_k d - m (n + d - "
                           "m), m = min(n, d, H d_k); BERT-base (n = 512, H d_k = d = 768): 768^2 = 589824, not "
                           "360448"),
              Reading("iii-single-head-projected",
                      r"W_O\text{ known (generic): }\dim\{Y_1:(Y_1,\dots,Y_H)\in\ker\Phi_a\}=n(H-1)d_k",
                      note="reading (iii): the ambiguity left in one head with the output projection applied, "
                           "n (d_k - rank W_O + rank W_O^(2..H)): 0 for generic W_O when H d_k <= d",
                      **_READING_III),
              Reading("a-rank-condition", r"n,H>0:\ \dim\ker\Phi_a=n(H-1)d_k\iff\operatorname{rank}W_O=d_k",
                      checks=[lambda ctx: [symbolic_identity(
                          KERNEL_FORMULAS["a"] - KERNEL_FORMULAS["b"], n * (d_k - rho),
                          "n (H d_k - rho) - n (H - 1) d_k = n (d_k - rho), so the two agree iff rank W_O = rho = d_k "
                          "(n > 0): every head would have to write into the same d_k-dimensional subspace")]]),
              *RA_BLOCK_READINGS],
    chapter="recovery_ambiguity",
    notion="exact-rank: kernel dimensions over Q",
)

def bert_dimension_evidence(ctx) -> list[Evidence]:
    """The dimension the sentence names, at BERT-base's shape (n = 512, H = 12, d_k = 64, d = 768), W_O known:
    dim ker Phi_a = n (H d_k - rank W_O) (RA.main's kernel formula); a random integer 768 x 768 W_O has certified rank
    768 (mod p = 2^61 - 1, theorems.exact.heads.bert_shape_w_o_rank), so the dimension is 0, not 360448. Also at a W_O of rank d_k = 64 (the only
    rank giving 360448, RA.main:a-rank-condition): the formula gives 512 * (768 - 64) = 360448."""
    from ..exact.heads import ARITHMETIC_MOD_P, bert_shape_w_o_rank
    out: list[Evidence] = []  # the kernel formula itself is HC.main:corrected (proved); here its value at BERT's shape
    br = bert_shape_w_o_rank()  # the same W_O, ranked once, as HC.main and HC.mlp-cannot-remedy
    dim = None if br.rank_over_Q is None else 512 * (768 - br.rank_over_Q)
    out.append(exact_complete(f"BERT-base shape, W_O known: {br.describe()}, so the recovery ambiguity dim ker Phi_a = "
                              f"512 (768 - rank W_O) = {dim}, not 360448 (per token "
                              f"{None if dim is None else dim // 512}, not 704)",
                              None if dim is None else dim == 360448, regime="generic-weights",
                              arithmetic=ARITHMETIC_MOD_P,
                              numbers={"rank_W_O": br.rank_over_Q, "rank_mod_p": br.rank_mod_p, "dimension": dim}))
    return out


claim(
    id="RA.bert-figures", section="§1 contribution 6",
    quote="For BertBase: 360,448 per sequence (or 704 per token) per layer",
    depends_on=("RA.main",),
    # the sentence names a dimension (the recovery ambiguity of RA.main at BERT-base's shape), not a product: the
    # headline decides the dimension (W_O known, as in RA.main); the arithmetic is reading 'arithmetic'
    statement=r"\dim\ker\Phi_a\big|_{n=512,H=12,d_k=64,d=768}=360448\ (704\text{ per token}),\ W_O\text{ known}",
    hypotheses=("n = 512", "H = 12", "d_k = 64", "d = 768", "W_O known"), conclusion="the dimension is 360448",
    regimes=("generic-weights",), checks=[bert_dimension_evidence], chapter="recovery_ambiguity",
    readings=[Reading("arithmetic", r"n(H-1)d_k\big|_{n=512,H=12,d_k=64}=360448,\quad(H-1)d_k=704", form="concrete",
                      regimes=("all",), checks=[_bert_arithmetic],
                      note="the product the paper's formula gives; it is the dimension under reading "
                           "b-no-output-projection of RA.main (heads summed without W_O), or with rank W_O = d_k")],
    notion="exact-rank: kernel dimensions over Q",
    off_instance=OffInstance("count", "n(H-1)d_k at BERT-base's sizes, exact integer arithmetic"),
)


def _pgop_evidence(ctx) -> list[Evidence]:
    out = []
    for r in pgop_overhead():
        out.append(exact_complete(f"{r['params']} parameters = {r['percent']:.4f}% of W_O ({r['relative_to']}, "
                                  f"{r['W_O_params']})", bool(r["below_1.6%"]), regime=r["construction"],
                                  arithmetic="exact rational arithmetic",
                                  numbers={"params": r["params"], "percent": r["percent"]}))
    return out


_PGOP_MISSING = ("§8, which defines PG-OP, is not in the available text: the suite does not invent a design and "
                 "judge it; each plausible construction is checked as its own reading")


claim(
    id="PGOP.overhead", section="Abstract; §1 contribution 5 (§8)",
    quote="a position-gated output projection (PG-OP) at parameter overhead below 1.6% of the standard output "
          "projection [§1, contribution 5:] ... at less than 1.6% of W_O’s parameter count",
    statement=r"\#\text{params}(\text{PG-OP})<0.016\cdot\#\text{params}(W_O)\ \text{(BERT-base)}",
    hypotheses=("BERT-base",), conclusion="overhead < 1.6%", regimes=("all",), form="concrete",
    checks=[lambda ctx: [not_checkable(_PGOP_MISSING)]],
    readings=[Reading("plausible-constructions",
                      r"\#\text{params}(\text{construction})<0.016\cdot\#\text{params}(W_O)\ \text{for each construction}",
                      checks=[_pgop_evidence], regimes=tuple(PGOP_CONSTRUCTIONS),
                      note="one regime per construction (weights only and weights + bias)")],
    chapter="recovery_ambiguity",
    off_instance=OffInstance("count", "parameter counts of PG-OP constructions at BERT-base's sizes"),
)


def _pgop_ambiguity(ctx) -> list[Evidence]:
    """Kernel dimensions with and without PG-OP (gates known, non-zero; and with a zero gate)."""
    rng = random.Random(stable_seed("PGOP.partial-remedy:diag gates"))
    same = total = 0
    grows = 0
    for (nn, dd, HH, dk) in HEAD_SHAPES:
        if nn * HH * dk > 40:
            continue
        W = random_int_matrix(rng, HH * dk, dd)
        gates = [[Rational(rng.choice([1, 2, -1, 3])) for _ in range(nn)] for _ in range(HH)]
        base_a = map_nullity(lambda Ys, W=W: Phi_a(Ys, W), nn, HH, dk)
        pg_a = map_nullity(lambda Ys, W=W, gates=gates: Phi_a_gated(Ys, W, gates), nn, HH, dk)
        base_b = map_nullity(lambda Ys: sum(Ys[1:], Ys[0]), nn, HH, dk)
        pg_b = map_nullity(lambda Ys, gates=gates: Phi_b_gated(Ys, gates), nn, HH, dk)
        total += 1
        same += (base_a == pg_a) and (base_b == pg_b)
        gates[0][0] = Rational(0)
        grows += map_nullity(lambda Ys, W=W, gates=gates: Phi_a_gated(Ys, W, gates), nn, HH, dk) >= base_a
    return [exact_instances(f"diag(g_h) gates known and non-zero shrink the kernel dimension (unchanged on {same}/"
                            f"{total} shapes; a zero gate never shrinks it: {grows}/{total}): per token the gated "
                            "system has the same rank", met=total, held=total - same,
                            arithmetic="exact over QQ (python-flint)")]


claim(
    id="PGOP.partial-remedy", section="Abstract (§8 not available)",
    quote="A constructive partial remedy is proposed: a position-gated output projection (PG-OP)",
    depends_on=("HC.main",),
    statement=r"\dim\ker\Phi^{\text{PG-OP}}<\dim\ker\Phi\ \text{(readings a and b, gates known)}",
    hypotheses=("gates known",), conclusion="smaller recovery ambiguity", regimes=("all",),
    checks=[lambda ctx: [not_checkable(_PGOP_MISSING)]],
    off_instance=OffInstance("undefined", "§8 is not in the available text: PG-OP itself is not defined"),
    readings=[Reading("diagonal-gates", r"\dim\ker\bigl[(Y_h)\mapsto\textstyle\sum_h\operatorname{diag}(g_h)Y_hW_O^h\bigr]"
                                        r"<\dim\ker\Phi\ \text{(gates known)}", checks=[_pgop_ambiguity],
                      note="one plausible reading of 'position-gated': a known per-position scalar gate per head")],
    chapter="recovery_ambiguity",
    notion="exact-rank: kernel dimensions over Q",
)


# --- further sentences of the paper (coverage) ---

def single_head_ambiguity(nn: int, HH: int, dk: int) -> int:
    """dim of {Y_1 : some (Y_1, ..., Y_H) in ker Phi_b}: the ambiguity left in one head, exactly."""
    K = nullspace(map_matrix(lambda Ys: sum(Ys[1:], Ys[0]), nn, HH, dk))
    if not K:
        return 0
    return rank(Matrix.hstack(*K)[: nn * dk, :])  # coordinates of Y_1 come first


#: (n, H, d_k) with H = 2 and with H >= 3 (heads summed, reading b)
SINGLE_HEAD = Pool(rows=lambda ctx: [(label, "", {"n": nn, "H": HH, "d_k": dk}) for label, shapes in
                                     (("H=2", [(2, 2, 1), (3, 2, 2), (2, 2, 3)]),
                                      ("H>=3", [(2, 3, 1), (3, 3, 2), (2, 4, 2)])) for (nn, HH, dk) in shapes],
                   arithmetic="exact over QQ (python-flint)")


def _single_head_is_n_H_minus_1_dk(v) -> bool:
    """the ambiguity left in a single head Y_1 (heads summed) equals n (H - 1) d_k (it is n d_k)"""
    return single_head_ambiguity(v["n"], v["H"], v["d_k"]) == v["n"] * (v["H"] - 1) * v["d_k"]


#: (n, H, d_k) with H = 2, 3, 4 (reading whole-tuple: heads summed)
WHOLE_TUPLE = Pool(rows=lambda ctx: [("all", "", {"n": nn, "H": HH, "d_k": dk}) for (nn, HH, dk) in
                                     ((2, 2, 1), (3, 2, 2), (2, 3, 1), (3, 3, 2), (2, 4, 2))],
                   arithmetic="exact over QQ (python-flint)", instance_from=W_O_N_INSTANCE)


claim(
    id="RA.single-head", section="Abstract",
    quote="n(H-1)d_k degrees of freedom per layer remain ambiguous when recovering a single head from the mixed signal",
    depends_on=("RA.main",),
    statement=r"\dim\{Y_1:\exists Y_2..Y_H,\ \textstyle\sum_hY_h=M\}-\text{ambiguity}=n(H-1)d_k",
    hypotheses=("heads summed (reading b)",), conclusion="single-head ambiguity n(H-1)d_k", regimes=("H=2", "H>=3"),
    checks=[SINGLE_HEAD.decide({}, _single_head_is_n_H_minus_1_dk)],
    readings=[Reading("whole-tuple", r"\dim\ker\Phi_b=n(H-1)d_k\ (H\ge1)",
                      hypotheses={}, conclusion=("nullity of the sum map (from its matrix) = n (H - 1) d_k",
                                                 sum_map_nullity_is_formula),
                      instances=WHOLE_TUPLE, regimes=("all",), same_as="RA.main:b-no-output-projection",
                      note="the number counts the ambiguity of all H heads together (RA.main reading b)"),
              Reading("with-output-projection",
                      r"W_O\text{ known (generic): }\dim\{Y_1:(Y_1,\dots,Y_H)\in\ker\Phi_a\}=n(H-1)d_k",
                      same_as="RA.main:iii-single-head-projected",
                      note="the single-head sentence with the output projection applied (the standard architecture)",
                      **_READING_III)],
    chapter="recovery_ambiguity",
    notion="exact-rank: kernel dimensions over Q",
    off_instance=OffInstance("count", "a dimension count n(H-1)d_k in the sizes n, H, d_k"),
)

claim(
    id="PGOP.empirical-prediction", section="§1 contribution 5 (§8)",
    quote="PG-OP (§8): a position-gated output projection ... with a verifiable empirical prediction",
    depends_on=("PGOP.partial-remedy",),
    statement=r"\text{(no formal content available)}",
    hypotheses=(), conclusion="", regimes=("all",),
    checks=[lambda ctx: [not_checkable(_PGOP_MISSING + "; the prediction itself is not stated in the available text")]],
    chapter="recovery_ambiguity",
    off_instance=OffInstance("undefined", "§8 (PG-OP and its prediction) is not in the available text"),
)
