r"""Design counts (§5.3, §6): parameters and FLOPs per encoder layer, symbolic in n, d, d_ff, H.

Counting convention (stated, since every percentage depends on it)
==================================================================
* a multiply-add is 2 FLOPs; a matrix product [a, b] x [b, c] costs 2abc;
* projections: Q, K, V and O, each [n, d] x [d, d]: 8 n d^2;
* attention scores Q K^T: 2 n^2 d; weighted sum A V: 2 n^2 d (summed over heads, d = H d_k);
* FFN: [n, d] x [d, d_ff] and [n, d_ff] x [d_ff, d]: 4 n d d_ff;
* softmax, GELU, LayerNorm, biases and residual additions are not counted (``CONVENTION="matmul"``);
  ``CONVENTION="all"`` adds them (softmax 5 H n^2, GELU 8 n d_ff, LayerNorm 2 x 8 n d,
  biases 4 n d + n d_ff + n d, residuals 2 n d).

Examples
========
>>> round(share_at(128), 4)  # FFN share of FLOPs, BERT-base, n = 128, matmul convention
0.6486
"""
from __future__ import annotations

import sympy
from sympy import Rational, symbols

from ..framework import Evidence, OffInstance, Reading, claim, exact_complete, not_checkable

__all__ = ["flops", "params", "ffn_share", "share_at", "n_range_for_share", "BERT"]

n, d, d_ff, H = symbols("n d d_ff H", positive=True)
BERT = {d: 768, d_ff: 3072, H: 12}


def flops(convention: str = "matmul") -> dict:
    f = {"projections": 8 * n * d ** 2, "scores": 2 * n ** 2 * d, "weighted_sum": 2 * n ** 2 * d,
         "ffn": 4 * n * d * d_ff}
    if convention == "all":
        f.update({"softmax": 5 * H * n ** 2, "gelu": 8 * n * d_ff, "layernorm": 16 * n * d,
                  "biases": 5 * n * d + n * d_ff, "residual": 2 * n * d})
    elif convention != "matmul":
        raise ValueError("convention is 'matmul' or 'all'")
    return f


def params() -> dict:
    return {"attention (Q, K, V, O with biases)": 4 * d ** 2 + 4 * d, "ffn (with biases)": 2 * d * d_ff + d_ff + d,
            "layernorms": 4 * d}


def ffn_share(convention: str = "matmul"):
    f = flops(convention)
    ffn_part = f["ffn"] + (f.get("gelu", 0) + n * d_ff + n * d if convention == "all" else 0)
    return sympy.simplify(ffn_part / sum(f.values()))


def share_at(n_val: int = 128, convention: str = "matmul", dff_factor: int = 4) -> float:
    return float(ffn_share(convention).subs({**BERT, d_ff: dff_factor * 768, n: n_val}))


#: the FFN share the paper quotes (64.8 %)
PAPER_SHARE = Rational(648, 1000)


def n_range_for_share(target=PAPER_SHARE, convention: str = "matmul") -> tuple[int, int] | None:
    """Integer n whose share rounds to the target at 0.1% (exact arithmetic; the share decreases in n)."""
    s = ffn_share(convention).subs(BERT)
    lo, hi = target - Rational(5, 10000), target + Rational(5, 10000)
    root = lambda t: max(r for r in sympy.solve(sympy.Eq(s, t), n) if r.is_real)
    k_min, k_max = int(sympy.floor(root(hi))) + 1, int(sympy.floor(root(lo)))
    while k_min <= k_max and not (lo <= s.subs(n, k_min) < hi):
        k_min += 1
    while k_max >= k_min and not (lo <= s.subs(n, k_max) < hi):
        k_max -= 1
    return (k_min, k_max) if k_min <= k_max and k_min >= 1 else None


def _setting(conv: str, nn: int) -> str:
    return f"{conv} convention at n={nn}"


#: the settings the BERT-base figure is checked at (the paper names neither n nor a counting convention)
SETTINGS = tuple(_setting(c, nn) for c in ("matmul", "all") for nn in (128, 512))


def _share_evidence(ctx) -> list[Evidence]:
    out = []
    for conv in ("matmul", "all"):
        rng = n_range_for_share(convention=conv)
        for nn in (128, 512):
            s = share_at(nn, conv)
            exact_share = ffn_share(conv).subs({**BERT, d_ff: 4 * 768, n: nn})
            ok = abs(exact_share - Rational(648, 1000)) < Rational(5, 10000)
            out.append(exact_complete(
                f"at n = {nn} the FFN share is {100 * s:.2f}% ({conv} convention; 64.8% +- 0.05% needs n in "
                f"{list(rng) if rng else 'no n'})", bool(ok), regime=_setting(conv, nn),
                arithmetic=f"exact rational (sympy), convention '{conv}'", numbers={"n": nn, "share": s}))
    return out


claim(
    id="DC.ffn-flops", section="§5.3",
    quote="The canonical choice d_ff = 4 d_model (64.8% of FLOPs in BertBase)",
    statement=r"\frac{\mathrm{FLOPs}_{\mathrm{FFN}}}{\mathrm{FLOPs}_{\mathrm{layer}}}\Big|_{\text{BERT-base}}=64.8\%",
    hypotheses=("BERT-base", "d_ff = 4 d"), conclusion="64.8%", regimes=SETTINGS, form="concrete",
    checks=[_share_evidence],
    off_instance=OffInstance("count", "the share of FLOPs of BERT-base's FFN, a rational function of its sizes"),
    readings=[Reading("matmul-convention",
                      r"\frac{4d}{6d+n}=0.648\pm0.0005\iff n\in[n_{lo},n_{hi}]",
                      regimes=("all",), form="concrete",
                      checks=[lambda ctx: [exact_complete(
                          f"share = {ffn_share()} (matmul convention); 64.8% for n in {n_range_for_share()}; "
                          f"the limit n -> 0 is 2/3", n_range_for_share() is not None,
                          arithmetic="exact rational (sympy)")]])],
    chapter="rank_contraction",
)

claim(
    id="DC.dff-heuristic", section="§1 contribution 4; §6 A (truncated)",
    quote="d_ff = 4 d_model is an engineering heuristic; the right quantity is the non-linear complexity of the task",
    statement=r"\text{(no formal content available)}",
    hypotheses=(), conclusion="", regimes=("all",),
    checks=[lambda ctx: [not_checkable("'non-linear complexity of the task' is not defined in the available text "
                                       "(§6 A is truncated), and 'engineering heuristic' is a historical claim, not "
                                       "a mathematical one")]],
    chapter="rank_contraction",
    off_instance=OffInstance("undefined", "'the non-linear complexity of the task' is not defined in the available text (§6 A truncated)"),
)


# --- further sentences of the paper (coverage) ---

def bert_config(ctx, L=12, H_=12, dm=768, dk=64, dff=3072) -> list[Evidence]:
    return [exact_complete(f"BertBase L = {L}, H = {H_}, d_model = {dm}, d_k = {dk}, d_ff = {dff}: d_k = d_model / H "
                           f"({dm} / {H_} = {Rational(dm, H_)}) and d_ff = 4 d_model ({4 * dm})",
                           Rational(dm, H_) == dk and dff == 4 * dm, arithmetic="exact integers")]


claim(
    id="DC.bert-config", section="§2, notation",
    quote="For BertBase: L=12, H=12, d_model=768, d_k=64, d_ff=3072",
    statement=r"d_k=d_{\mathrm{model}}/H=64,\quad d_{\mathrm{ff}}=4d_{\mathrm{model}}=3072",
    hypotheses=("BERT-base",), conclusion="consistent configuration", regimes=("all",), form="concrete",
    checks=[bert_config], chapter="rank_contraction",
    off_instance=OffInstance("count", "BERT-base's published sizes, checked by exact integer arithmetic"),
)

claim(
    id="DC.dff-justification", section="§5.3",
    quote="The canonical choice d_ff = 4 d_model ... is justified by the first function, not the second",
    depends_on=("MLP.function",),
    statement=r"\text{(no formal content available)}",
    hypotheses=(), conclusion="", regimes=("all",),
    checks=[lambda ctx: [not_checkable("a claim about why a design choice was made; 'non-linear feature generation' "
                                       "is not quantified in the available text, so no d_ff follows from it")]],
    chapter="rank_contraction",
    off_instance=OffInstance("undefined", "why d_ff = 4 d_model was chosen; the text quantifies no d_ff from the MLP's functions"),
)
