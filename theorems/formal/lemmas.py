"""The lemma table: every Coq lemma the suite calls ``formal``, with the claim (and reading) it supports.

Data only (stdlib only, no Coq): :data:`LEMMAS` registers each lemma once per claim or reading it supports, with
its scope (``general``: all sizes, any field; ``complete``: concrete figures, all of them), a LaTeX statement in
the claim's notation and one sentence; :data:`PENDING` holds lemmas proved but not yet attached to a reading. A
lemma proves the reading it names and no more: the words say what the Coq statement says. The runner
(:mod:`theorems.formal.runner`) compiles the ``.v`` files and decides which of these lemmas Coq accepts.

>>> sorted({lemma.scope for lemma in LEMMAS})
['complete', 'general']
>>> all(lemma.name.startswith("CollapseVerify.") for lemma in LEMMAS)
True
"""
from __future__ import annotations

from dataclasses import dataclass
from types import EllipsisType

__all__ = ["FormalLemma", "LEMMAS", "PENDING", "LOGICAL_ROOT", "lemmas_for"]

LOGICAL_ROOT = "CollapseVerify"  # the -Q / -R logical path of _CoqProject


@dataclass(frozen=True)
class FormalLemma:
    name: str              # fully qualified Coq name, e.g. CollapseVerify.rank_neutrality.zero_bias_rank
    file: str              # the .v file, relative to the source directory
    claim: str             # claim id, e.g. "RN.matrix-rank"
    reading: str | None    # reading key, or None for the headline statement
    scope: str             # "general" (all sizes, any field) or "complete" (concrete figures, all of them)
    statement: str         # LaTeX of what the lemma states, in the claim's notation
    words: str             # one sentence

    @property
    def module(self) -> str:
        return self.file.removesuffix(".v")

    @property
    def short(self) -> str:
        return self.name.rsplit(".", 1)[-1]



def _L(module, short, claim, reading, scope, statement, words):
    return FormalLemma(f"{LOGICAL_ROOT}.{module}.{short}", f"{module}.v", claim, reading, scope, statement, words)


_H1 = r"\sigma_i\neq0"
_H2 = r"\mathbf 1_d\notin\operatorname{row}X"
_H3 = r"\Gamma\in GL_d"
_H4 = r"\sigma\notin\operatorname{col}(XP)"
# one lemma, two claims (HC.main and RA.main): the kernel of the head sum without output projection
_KER_SUM_HEADS = r"H>0\Rightarrow\dim\ker\bigl[(Y_h)_h\mapsto\textstyle\sum_hY_h\bigr]=n(H-1)d_k"

_ND = r"\ \text{nowhere dense: }(\overline{\mathcal B})^\circ=\emptyset"
# null_set_mx.v's mx_null: the set's coordinates (the m n entries, ordered by mxvec) form a null set of lebk, the
# (m n)-fold product of MathComp-Analysis's Lebesgue measure on R (null_set.v)
_NULL = r"\ \text{Lebesgue-null: }\lambda^{\otimes mn}(\mathcal B)=0"
_NULL_WORDS = ("Lebesgue-null: its coordinates (the entries, ordered by mxvec) lie in a measurable set of measure 0 "
               "for lebk, the iterated product of MathComp-Analysis's lebesgue_measure on R (null_set.v)")

LEMMAS: tuple[FormalLemma, ...] = (
    # --- section 4, Rank-Neutrality -------------------------------------------------------------
    _L("rank_neutrality", "zero_bias_rank", "RN.matrix-rank", None, "general",
       rf"{_H1},\ {_H2},\ {_H3}\Rightarrow\operatorname{{rank}}(DXP\Gamma)=\operatorname{{rank}}X",
       "With beta = 0, LN(X) = D X P Gamma has the rank of X when no sigma_i is 0, 1_d is not in row(X) "
       "and Gamma is invertible (any field with d != 0; H4 is not needed)."),
    _L("rank_neutrality", "zero_bias_rank_without_H2", "RN.matrix-rank", "without-H2", "general",
       rf"{_H1},\ {_H3}\Rightarrow\operatorname{{rank}}(DXP\Gamma)+[\mathbf 1_d\in\operatorname{{row}}X]"
       r"=\operatorname{rank}X",
       "Without H2 the zero-bias LayerNorm drops the matrix rank by exactly [1_d in row(X)]."),
    _L("rank_neutrality", "arank_LN_characterisation", "RN.main", "corrected", "general",
       rf"{_H1},\ {_H3},\ n>0\Rightarrow\operatorname{{arank}}(DXP\Gamma+\mathbf 1\beta^\top)"
       r"+[\mathbf 1_d\in\operatorname{row}X]+[\mathbf 1_n\notin\operatorname{col}X]"
       r"=\operatorname{arank}X+[\sigma\notin\operatorname{col}(XP)]",
       "The exact characterisation: arank(LN X) - arank(X) = [sigma notin col(XP)] - [1_d in row X] "
       "- [1_n notin col X], with arank(M) = rank[M | 1] - 1, stated as an equation of sums."),
    _L("rank_neutrality", "arank_LN_eq_arank", "RN.main", "corrected", "general",
       rf"n>0,\ {_H1},\ {_H2},\ {_H3},\ {_H4},\ \mathbf 1_n\notin\operatorname{{col}}X"
       r"\Rightarrow\operatorname{arank}(\mathrm{LN}(X))=\operatorname{arank}(X)",
       "Under H1-H4 and the extra hypothesis 1_n notin col(X), LayerNorm preserves the affine rank."),
    _L("rank_neutrality", "arank_LN_eq_rank", "RN.main", "what-LN-preserves", "general",
       rf"n>0,\ {_H1},\ {_H2},\ {_H3},\ {_H4}"
       r"\Rightarrow\operatorname{arank}(\mathrm{LN}(X))=\operatorname{rank}(X)",
       "Under H1-H4 the affine rank of LN(X) equals the matrix rank of X."),
    _L("rank_neutrality", "arank_row_scaling", "RN.step2", "corrected", "general",
       rf"n>0,\ {_H1}\Rightarrow\operatorname{{arank}}(D\tilde X)+[\sigma\in\operatorname{{col}}\tilde X]"
       r"=\operatorname{arank}(\tilde X)+[\mathbf 1_n\in\operatorname{col}\tilde X]",
       "Row scaling by D = diag(1/sigma) changes the affine rank by [1_n in col X~] - [sigma in col X~], "
       "for every X~."),
    _L("rank_neutrality", "rank_LN_le_rank_succ", "RN.plus-one", "bound-only", "general",
       r"\operatorname{rank}(DXP\Gamma+\mathbf 1\beta^\top)\le\operatorname{rank}X+1",
       "LayerNorm raises the matrix rank by at most one (for any sigma, Gamma, beta)."),
    _L("rank_neutrality", "rank_LN_plus_one", "RN.plus-one", "corrected", "general",
       rf"n>0,\ {_H1},\ {_H2},\ {_H3},\ {_H4}\Rightarrow\operatorname{{rank}}\mathrm{{LN}}(X)="
       r"\operatorname{rank}X+[\beta\Gamma^{-1}\notin\operatorname{row}(XP)]",
       "Under H1-H4 the matrix rank of LN(X) exceeds rank X exactly when beta (/) gamma = beta Gamma^-1 is "
       "not in the row space of X~ = X P."),
    # --- section 5.1, Prop 5.1 -------------------------------------------------------------------
    _L("residual_obstruction", "rank_add_bounds", "RRO.prop51", "rank-inequalities", "general",
       r"|\operatorname{rank}A-\operatorname{rank}B|\le\operatorname{rank}(A+B)\le\operatorname{rank}A"
       r"+\operatorname{rank}B",
       "The deterministic rank inequalities of Proposition 5.1, for any two matrices of one shape over any field."),
    _L("genericity", "prop51_algebraic", "RRO.prop51", "algebraic-genericity", "general",
       r"\operatorname{rank}A=r<\min(n,d)\Rightarrow\exists B^\star:\ m_{r+1}(A+B^\star)\neq0,\ "
       r"\operatorname{rank}(A+B)\le r\Rightarrow m_{r+1}(A+B)=0",
       "Proposition 5.1's algebraic step: failure forces the leading (r+1)-minor m_(r+1)(A + B), a polynomial in "
       "B, to vanish, and B* = I_(r+1) - A makes it 1 (so the bad set lies in the zero set of a non-zero "
       "polynomial). Gap: that this set is null (the literal 'Pr = 1 for absolutely continuous B') is not proved "
       "(MathComp-Analysis 0.6.0)."),
    _L("residual_obstruction", "rank_additivity_iff", "RRO.rowspace-remark", "corrected", "general",
       r"\operatorname{rank}(X+\Delta)=\operatorname{rank}X+\operatorname{rank}\Delta\iff"
       r"\operatorname{row}X\cap\operatorname{row}\Delta=0\ \wedge\ \operatorname{col}X\cap\operatorname{col}\Delta=0",
       "Remark (iii) repaired: the rank of a sum is the sum of the ranks exactly when both the row spaces and "
       "the column spaces meet only in 0."),
    _L("residual_obstruction", "stack_rows_in_invariant_hull", "MLP.span", "invariant-hull", "general",
       r"\operatorname{row}X\subseteq S,\ SW_{l,h}\subseteq S\ \forall l,h\Rightarrow"
       r"\operatorname{row}\Phi_L(X)\subseteq S,\ \Phi_{l+1}=\Phi_l+\textstyle\sum_hA_{l,h}(\Phi_l)\Phi_lW_{l,h}",
       "A stack of attention + residual layers keeps its rows in every W-invariant subspace containing row(X), "
       "so in the smallest one S(X, W), whatever the attention matrices."),
    _L("residual_obstruction", "scores_bilinear", "MLP.bilinear-attention", "scores-bilinear", "general",
       r"S(X,Y)=XW_QW_K^\top Y^\top:\ S(X+cZ,Y)=S(X,Y)+cS(Z,Y),\ S(X,Y+cZ')=S(X,Y)+cS(X,Z')",
       "The attention scores before the softmax are bilinear: linear in X for fixed Y and in Y for fixed X, for "
       "any W_Q, W_K over any field."),
    # --- section 6.1, rank of the multi-head output ----------------------------------------------
    _L("rank_contraction", "rank_MHA_le_dim_sum_R", "RC.rank-equals-sum", "corrected", "general",
       r"\operatorname{rank}\Bigl(\textstyle\sum_hY_hW_O^h\Bigr)\le\dim(R_1+\cdots+R_H),"
       r"\ R_h=\operatorname{row}(Y_hW_O^h)",
       "The rank of the multi-head output is at most the dimension of the sum of the heads' row spaces."),
    _L("rank_contraction", "subadditivity", "RC.subadditivity", None, "general",
       r"\operatorname{rank}(Y_hW_O^h)\le d_k\ \forall h,\ \operatorname{rank}\Bigl(\textstyle\sum_{h=1}^HY_hW_O^h"
       r"\Bigr)\le Hd_k",
       "Both conjuncts of the sentence: each summand Y_h W_O^h (Y_h of d_k columns) has rank at most d_k, and by "
       "subadditivity rank(MHA(X)) <= H d_k."),
    _L("rank_contraction", "dim_R_h_generic", "RC.prop63", "algebraic-genericity", "general",
       r"A_h\in GL_n,\ \operatorname{rank}(XW_V^h)=\min(\operatorname{rank}X,d_k),\ \operatorname{rank}W_O^h=d_k"
       r"\Rightarrow\dim R_h=\min(\operatorname{rank}X,d_k)",
       "Proposition 6.3 with its genericity stated algebraically (invertible attention, generic-rank W_V, "
       "full-row-rank W_O); A_h enters only through its invertibility."),
    _L("rank_contraction", "alpha_range", "RC.alpha-range", None, "general",
       r"\alpha=\frac{\|M_a\|_F}{\|M\|_F}\in[0,1],\ M_a=\tfrac12(M-M^\top)",
       "The directional asymmetry index lies in [0, 1] for every square M over a real closed field "
       "(alpha = 0 at M = 0 by MathComp's x / 0 = 0)."),
    # --- section 7, head-channel identifiability ---------------------------------------------------
    _L("head_channel", "per_head_outputs_determined", "HC.main", "corrected", "general",
       r"\operatorname{rank}W_O=Hd_k,\ \textstyle\sum_hY_hW_O^h=\sum_hY'_hW_O^h\Rightarrow Y_h=Y'_h\ \forall h",
       "With W_O = [W_O^1; ...; W_O^H] known and of full row rank, the per-head outputs are determined by "
       "their projected sum (the kernel is 0)."),
    _L("head_channel", "per_head_outputs_determined_iff", "HC.main", "corrected", "general",
       r"n>0\Rightarrow\Bigl(\bigl[(Y_h)_h\mapsto\textstyle\sum_hY_hW_O^h\bigr]\text{ injective}"
       r"\iff\operatorname{rank}W_O=Hd_k\Bigr)",
       "Per-head outputs are identifiable for every input exactly when W_O has full row rank: (a) is "
       "ambiguous iff rank W_O < H d_k."),
    _L("head_channel", "no_recovery_after_sum", "HC.mlp-cannot-remedy", "rank-deficient-W_O", "general",
       r"n>0,\ \operatorname{rank}W_O<Hd_k\Rightarrow\nexists g:\ g\bigl(R+\textstyle\sum_hY_hW_O^h\bigr)=(Y_h)_h"
       r"\ \forall (Y_h)_h",
       "When the head sum loses information (rank W_O < H d_k), no map of the post-summation signal plus a fixed "
       "term R (the MLP included) recovers the per-head outputs of every tuple (Y_h); the residual stream X + MHA(X), "
       "where Y_h depends on X, is not covered."),
    _L("head_channel", "head_output_gauge", "HC.main", "c-gauge", "general",
       r"M_h\in GL_{d_k}\Rightarrow\textstyle\sum_h(Y_hM_h)(M_h^{-1}W_O^h)=\sum_hY_hW_O^h",
       "With W_O learned, the head outputs Y_h M_h (any invertible M_h per head) and the re-gauged blocks "
       "M_h^-1 W_O^h give the same projected sum as Y_h and W_O^h: nothing observed fixes Y_h's coordinates. Gap: "
       "that this gauge is the only ambiguity is not stated (with W_O unknown the fibre is larger, reading "
       "ii-weights-unknown)."),
    _L("head_channel", "dim_ker_Phi_a", "HC.main", "corrected", "general",
       r"\dim\ker\Phi_a=n(Hd_k-\operatorname{rank}W_O),\ \Phi_a:[Y_1\cdots Y_H]\mapsto\textstyle\sum_hY_hW_O^h",
       "The kernel of the projected head sum, as a subspace of the n x H d_k matrices, has dimension "
       "n (H d_k - rank W_O)."),
    _L("head_channel", "dim_ker_sum_heads", "HC.main", "b-no-output-projection", "general",
       _KER_SUM_HEADS,
       "Without output projection the kernel of the head sum has dimension n (H - 1) d_k."),
    _L("head_channel", "dim_ker_sum_heads", "RA.main", "b-no-output-projection", "general",
       _KER_SUM_HEADS,
       "The paper's recovery ambiguity n (H - 1) d_k is exactly the kernel dimension of the head sum without "
       "output projection."),
    # --- section 7.3, BERT-base figures -------------------------------------------------------------
    _L("recovery_ambiguity", "bert_recovery_ambiguity_per_sequence", "RA.bert-figures", "arithmetic", "complete",
       r"n(H-1)d_k\big|_{n=512,H=12,d_k=64}=360448",
       "512 (12 - 1) 64 = 360448, the per-sequence figure for BERT-base."),
    _L("recovery_ambiguity", "bert_recovery_ambiguity_per_token", "RA.bert-figures", "arithmetic", "complete",
       r"(H-1)d_k\big|_{H=12,d_k=64}=704",
       "(12 - 1) 64 = 704, the per-token figure for BERT-base."),
    # --- section 9, symmetries -----------------------------------------------------------------------
    _L("symmetries", "MHA_head_permutation", "SYM.head-permutation", None, "general",
       r"\textstyle\sum_hA_{\pi(h)}XW_V^{\pi(h)}W_O^{\pi(h)}=\sum_hA_hXW_V^hW_O^h\quad\forall\pi\in S_H",
       "Relabelling the heads by any permutation leaves MHA(X) unchanged, for any attention map A_h of "
       "(X, W_Q^h, W_K^h)."),
    _L("symmetries", "value_output_gauge", "SYM.value-output-gauge", None, "general",
       r"(W_VG)(G^{-1}W_O)=W_VW_O\quad\forall G\in GL_{d_k}",
       "The value-output gauge: an invertible G between W_V and W_O cancels."),
    _L("symmetries", "MHA_value_output_gauge", "SYM.value-output-gauge", None, "general",
       r"\mathrm{MHA}(X;W_V^hG_h,G_h^{-1}W_O^h)=\mathrm{MHA}(X;W_V^h,W_O^h)",
       "One invertible gauge per head leaves MHA(X) unchanged."),
    _L("symmetries", "query_key_gauge", "SYM.query-key-gauge", "single-head", "general",
       r"XW_QN\,(XW_KN^{-\top})^\top=XW_QW_K^\top X^\top\quad\forall N\in GL_{d_k}",
       "The query-key gauge leaves the attention scores unchanged."),
    _L("symmetries", "attention_query_key_gauge", "SYM.query-key-gauge", "single-head", "general",
       r"f\bigl(XW_QN(XW_KN^{-\top})^\top\bigr)XW_V=f\bigl(XW_QW_K^\top X^\top\bigr)XW_V",
       "Any attention that reads the scores (softmax among them) is unchanged by the query-key gauge."),
    _L("symmetries", "attention_token_permutation", "SYM.token-permutation", "single-head", "general",
       r"\operatorname{attn}(\Pi X)=\Pi\operatorname{attn}(X),\ \operatorname{attn}(X)="
       r"g_{\text{row}}(XW_QW_K^\top X^\top)XW_V",
       "For any row-wise map g that commutes with permuting a row's entries, attention is equivariant under "
       "every token permutation matrix Pi."),
    _L("symmetries", "softmax_attention_token_permutation", "SYM.token-permutation", "single-head", "general",
       r"\operatorname{softmax}\bigl(\tau\,\Pi XW_QW_K^\top X^\top\Pi^\top\bigr)\Pi XW_V="
       r"\Pi\operatorname{softmax}\bigl(\tau\,XW_QW_K^\top X^\top\bigr)XW_V",
       "Softmax attention (softmax built from any exp, scores scaled by tau = 1/sqrt d_k) is "
       "token-permutation equivariant."),
    _L("symmetries", "LN_shift_scale", "SYM.ln-shift-scale", None, "general",
       r"d>0,\ a>0\Rightarrow\mathrm{LN}(ax+c\mathbf 1)=\mathrm{LN}(x)",
       "LayerNorm (x - mean x)/sqrt(var x) (.) gamma + beta over a real closed field is invariant under "
       "x -> a x + c 1 for a > 0."),
    _L("ln_sphere", "ln_sphere", "USER.ln-sphere", None, "general",
       r"\sigma>0\Rightarrow\mathbf 1^\top\hat x=0\ \wedge\ \|\hat x\|^2=d,\ \hat x=(x-\bar x\mathbf 1)/\sigma",
       "After centring and scaling by sigma = sqrt(var x) > 0 a token lies in 1-perp on the sphere of radius "
       "sqrt(d) (real closed field)."),
    # --- Dong et al., softmax shift ------------------------------------------------------------------
    _L("dong_collapse", "softmax_shift", "DONG.softmax-shift", "corrected", "general",
       r"\operatorname{softmax}_{\text{row}}(M+c\mathbf 1^\top)=\operatorname{softmax}_{\text{row}}(M)",
       "Adding c_i to every entry of row i leaves the row-wise softmax unchanged, for softmax built from any "
       "exp with exp(a + b) = exp(a) exp(b) and exp(a) != 0."),
    # --- softmax attention with H heads (softmax_attention.v: any exp; softmax_real.v: expR) ----------
    _L("softmax_attention", "MHA_token_permutation", "SYM.token-permutation", None, "general",
       r"\mathrm{MHA}(\Pi X)=\Pi\,\mathrm{MHA}(X),\ \mathrm{MHA}(X)=\textstyle\sum_{h=1}^H"
       r"\operatorname{softmax}\bigl(\tau XW_Q^h(XW_K^h)^\top\bigr)XW_V^hW_O^h",
       "H-head softmax attention is token-permutation equivariant for every permutation matrix Pi, every size "
       "(n, d_model, d_k, H) and every weight, over any field, with softmax built from any map exp and any score "
       "scale tau (tau = 1/sqrt d_k in the paper); no property of exp is used."),
    _L("softmax_real", "MHA_real_token_permutation", "SYM.token-permutation", None, "general",
       r"\mathrm{MHA}(\Pi X)=\Pi\,\mathrm{MHA}(X),\ \operatorname{softmax}\text{ with }\exp=\mathrm{expR},"
       r"\ \tau=1/\sqrt{d_k}\ (\mathbb R)",
       "The same over MathComp-Analysis's real numbers with the real exponential expR and the paper's "
       "scaling 1/sqrt(d_k): MHA(Pi X) = Pi MHA(X) with H heads."),
    _L("softmax_attention", "MHA_query_key_gauge", "SYM.query-key-gauge", None, "general",
       r"N_h\in GL_{d_k}\Rightarrow\mathrm{MHA}(X;W_Q^hN_h,W_K^hN_h^{-\top})=\mathrm{MHA}(X;W_Q^h,W_K^h)",
       "One invertible N_h per head, (W_Q^h, W_K^h) -> (W_Q^h N_h, W_K^h N_h^-T), leaves H-head softmax "
       "attention unchanged, every size, any field, any exp and score scale."),
    _L("softmax_real", "MHA_real_query_key_gauge", "SYM.query-key-gauge", None, "general",
       r"N_h\in GL_{d_k}\Rightarrow\mathrm{MHA}(X;W_Q^hN_h,W_K^hN_h^{-\top})=\mathrm{MHA}(X)\ "
       r"(\mathrm{expR},\ 1/\sqrt{d_k},\ \mathbb R)",
       "The per-head query-key gauge over the real numbers, softmax with expR and scaling 1/sqrt(d_k)."),
    _L("softmax_attention", "MHA_symmetry_group", "SYM.framework", "G-is-a-symmetry-group", "general",
       r"(s,(N_h,G_h)_h)\in S_H\ltimes\textstyle\prod_h(GL_{d_k}\times GL_{d_k}):\ "
       r"\mathrm{MHA}\bigl(X;W_Q^{s(h)}N_h,W_K^{s(h)}N_h^{-\top},W_V^{s(h)}G_h,G_h^{-1}W_O^{s(h)}\bigr)"
       r"=\mathrm{MHA}(X)",
       "Every element of S_H x| prod_h (GL(d_k) x GL(d_k)) (head relabelling with both gauges per head) leaves "
       "H-head softmax attention unchanged (the group law is act_id, act_comp, act_inv)."),
    _L("softmax_attention", "act_id", "SYM.framework", "G-is-a-symmetry-group", "general",
       r"(1,(I)_h,(I)_h)\cdot W=W",
       "The identity of S_H x| prod_h (GL(d_k) x GL(d_k)) acts trivially on the weights (head by head, so no "
       "functional extensionality)."),
    _L("softmax_attention", "act_comp", "SYM.framework", "G-is-a-symmetry-group", "general",
       r"(s_1,N^1,G^1)\cdot\bigl((s_2,N^2,G^2)\cdot W\bigr)=\bigl(s_1s_2,(N^2_{s_1(h)}N^1_h)_h,"
       r"(G^2_{s_1(h)}G^1_h)_h\bigr)\cdot W,\ N^2_{s_1(h)}N^1_h,G^2_{s_1(h)}G^1_h\in GL_{d_k}",
       "Acting twice is acting by the product, the semidirect-product law, and the product's matrices are "
       "invertible again: the action is closed under composition."),
    _L("softmax_attention", "act_inv", "SYM.framework", "G-is-a-symmetry-group", "general",
       r"g^{-1}=\bigl(s^{-1},(N_{s^{-1}(h)}^{-1})_h,(G_{s^{-1}(h)}^{-1})_h\bigr):\ g\cdot(g^{-1}\cdot W)=W="
       r"g^{-1}\cdot(g\cdot W)",
       "Every element has an inverse in the set (its matrices invertible), on both sides: with act_id and act_comp "
       "the transformations W -> g . W form a group acting on the weights."),
    _L("softmax_attention", "softmax_row_stochastic", "DONG.row-stochastic", None, "general",
       r"\exp>0,\ m>0\Rightarrow\operatorname{softmax}(S)_{ij}>0,\ \operatorname{softmax}(S)\mathbf 1=\mathbf 1",
       "Softmax built from any exp with exp(a) > 0 (a hypothesis) on any ordered field is strictly "
       "row-stochastic: every entry positive (so non-negative) and every row of m > 0 entries sums to 1."),
    _L("softmax_real", "softmaxR_row_stochastic", "DONG.row-stochastic", None, "general",
       r"m>0\Rightarrow\operatorname{softmax}(S)_{ij}>0,\ \operatorname{softmax}(S)\mathbf 1=\mathbf 1\ "
       r"(\mathrm{expR},\ \mathbb R)",
       "With the real exponential (positivity is expR_gt0, proved in MathComp-Analysis): P = softmax(S) has "
       "P_ij > 0 and P 1 = 1 for every real n x m score matrix, m > 0."),
    _L("softmax_real", "softmaxR_shift", "DONG.softmax-shift", "corrected", "general",
       r"\operatorname{softmax}(M+c\mathbf 1^\top)=\operatorname{softmax}(M)\ (\mathrm{expR},\ \mathbb R)",
       "Row-wise shift invariance of the real softmax (expR): adding c_i to row i changes nothing."),
    # --- section 4, the steps of the proof (rn_steps.v) and LayerNorm with the real sigma (ln_real.v) ---
    _L("rn_steps", "step1_mean_subtraction", "RN.step1", None, "general",
       rf"{_H2}\Rightarrow XP\mathbf 1_d=0,\ \operatorname{{rank}}(XP)=\operatorname{{rank}}X,\ "
       r"\operatorname{arank}(XP)=\operatorname{arank}X",
       "Step 1 for every n, d (any field with d != 0): the rows of X P sum to 0 (lie in 1-perp), and under H2 "
       "rank(XP) = rank X and arank(XP) = arank X (arank = rank [. | 1] - 1)."),
    _L("rn_steps", "step1_without_H2", "RN.step1", "without-H2", "general",
       r"\mathbf 1_d\in\operatorname{row}X\Rightarrow\operatorname{rank}(XP)=\operatorname{rank}X-1",
       "When 1 lies in row(X) the mean subtraction drops the rank by exactly one."),
    _L("rn_steps", "step3_affine_rescaling", "RN.step3", None, "general",
       r"\gamma_j\neq0\ \forall j\Rightarrow\operatorname{arank}(M\operatorname{diag}\gamma+\mathbf 1\beta^\top)"
       r"=\operatorname{arank}M\ \forall M,\beta",
       "Step 3 (3a and 3b together) for every n, d over any field: with H3 the map M -> M diag(gamma) + 1 beta^T "
       "keeps the affine rank of every M, for every beta."),
    _L("rn_steps", "step3_without_H3", "RN.step3", "without-H3", "general",
       r"n\ge2,\ d\ge1,\ \gamma_1=0\Rightarrow\exists X:\ \operatorname{arank}(X\operatorname{diag}\gamma)"
       r"<\operatorname{arank}X",
       "For every gamma with gamma_1 = 0 (n >= 2 rows, d >= 1) there is an X losing affine rank under "
       "diag(gamma): x_2 = e_1, the other rows 0."),
    _L("ln_real", "rank_LN_std_le", "RN.exceeds-by-at-most-one", None, "general",
       r"\sigma_i=\sqrt{\operatorname{var}x_i}>0\Rightarrow\operatorname{rank}\mathrm{LN}(X)\le\operatorname{rank}X+1",
       "With the paper's sigma_i = Num.sqrt(var x_i) over a real closed field and LN(X) = D X P diag(gamma) + "
       "1 beta^T (equal row by row to (x - mean)/sigma (.) gamma + beta: lemma LN_std_row), H1 gives "
       "rank LN(X) <= rank X + 1 for every gamma, beta; H1 is not even needed."),
    _L("rank_neutrality", "arank_first_row", "RN.arank-definition", None, "general",
       r"n>0\Rightarrow\operatorname{rank}[X\mid\mathbf 1]-1=\operatorname{rank}(X-\mathbf 1x_1^\top)",
       "The two formulas for the affine rank agree for every n > 0 (x_1 the first row) over any field; that "
       "rank(X - 1 x_1^T) is the dimension of the affine span is its definition."),
    _L("rn_steps", "H4_unique", "RN.H4-unique", None, "general",
       rf"n>0,\ {_H1},\ \operatorname{{arank}}(D\tilde X)<\operatorname{{arank}}\tilde X\Rightarrow"
       r"\sigma\in\operatorname{col}\tilde X",
       "Row scaling can lower the affine rank only when sigma lies in col(X~), for every X~ (so for X~ = X P) "
       "and every sigma of non-zero entries (the standard deviations among them)."),
    _L("rn_steps", "arank_LN_never_hinders", "RN.neither-helps-nor-hinders", "never-hinders", "general",
       rf"n>0,\ {_H1},\ {_H2},\ {_H3},\ {_H4}"
       r"\Rightarrow\operatorname{arank}\mathrm{LN}(X)\ge\operatorname{arank}X",
       "Under H1-H4 LayerNorm never lowers the affine rank (sigma any vector of non-zero scalars, Gamma any "
       "invertible matrix; n > 0, as arank needs a row)."),
    _L("rank_neutrality", "zero_bias_rank", "RN.transparent-H1-H2", "matrix-rank-H3-zero-bias", "general",
       rf"{_H1},\ {_H2},\ {_H3},\ \beta=0\Rightarrow\operatorname{{rank}}\mathrm{{LN}}(X)=\operatorname{{rank}}X",
       "The same statement as RN.matrix-rank: with H1, H2, H3 and beta = 0 LayerNorm keeps the matrix rank."),
    _L("ln_real", "RMSNorm_rank", "USER.rmsnorm-matrix-rank", None, "general",
       r"x_i\neq0,\ \gamma_j\neq0\Rightarrow\operatorname{rank}\bigl(x_i/\operatorname{rms}(x_i)\odot\gamma\bigr)_i"
       r"=\operatorname{rank}X,\ \operatorname{rms}(x)=\sqrt{\tfrac1d\textstyle\sum_jx_j^2}",
       "RMSNorm with epsilon = 0 and rms = Num.sqrt(mean of squares) over a real closed field keeps the matrix "
       "rank when no row is zero and no gamma_j is zero, every n, d."),
    # --- sections 5.1-5.2 (genericity.v, residual_witness.v) -------------------------------------------
    _L("genericity", "full_rank_cannot_increase", "RRO.remark-ii", None, "general",
       r"\operatorname{rank}A=\min(n,d)\Rightarrow\operatorname{rank}(A+B)\le\operatorname{rank}A\ \forall B",
       "A full-rank A cannot gain rank: rank(A + B) <= min(n, d) = rank A for every B."),
    _L("genericity", "rank_increase_leaves_rowspace", "RRO.strengthens", None, "general",
       r"\operatorname{rank}(X+\Delta)>\operatorname{rank}X\Rightarrow\operatorname{row}\Delta\not\subseteq"
       r"\operatorname{row}X",
       "A rank increase forces Delta out of row(X) (the first half of 'strengthens')."),
    _L("genericity", "rowspace_exit_without_increase", "RRO.strengthens", None, "general",
       r"n\ge1,\ d\ge2:\ \exists X,\Delta:\ \operatorname{row}\Delta\not\subseteq\operatorname{row}X,\ "
       r"\operatorname{rank}(X+\Delta)\le\operatorname{rank}X",
       "'... and not conversely': for every n >= 1, d >= 2 some Delta leaves row(X) without raising the rank "
       "(X = e_1 f_1^T, Delta = e_1 (f_2 - f_1)^T)."),
    _L("genericity", "rowspace_perturbations_proper", "RRO.remark-iii-generic", "algebraic-genericity", "general",
       r"\operatorname{rank}X<\min(n,d)\Rightarrow\{\Delta:\operatorname{row}\Delta\subseteq\operatorname{row}X\}"
       r"\text{ is a subspace of dimension }n\operatorname{rank}X<nd",
       "The set of Delta with row(Delta) in row(X) is a linear subspace of the n x d matrices of dimension "
       "n rank X < n d (a proper linear, so algebraic, set); that such a set is Lebesgue-null is not proved "
       "(MathComp-Analysis lacks it); X != 0 is not needed."),
    _L("genericity", "residual_rank_generic", "RRO.only-increase", "algebraic-genericity", "general",
       r"\exists L,R:\ \det(LXR)\neq0,\ \operatorname{rank}(X+\Delta)<\operatorname{rank}X\Rightarrow"
       r"\det(L(X+\Delta)R)=0",
       "'Generic' read algebraically (the paper's 'proper algebraic subset'): a rank drop forces the polynomial "
       "p(Delta) = det(L (X + Delta) R) to vanish, and p(0) != 0, so the exceptions lie in the zero set of a "
       "non-zero polynomial. Gap: that this set is Lebesgue-null is not proved (MathComp-Analysis 0.6.0)."),
    _L("residual_witness", "residual_witness", "RRO.witness", "a-witness-exists", "general",
       r"n,d\ge2,\ d_k,H\ge1:\ \exists W_Q,W_K,W_V,W_O:\ \operatorname{rank}(X^\star+\mathrm{MHA}(X^\star))=2,"
       r"\ X^\star=e_1f_1^\top",
       "For every shape (not only those checked) some weights give rank 2: W_Q = W_K = 0 (uniform attention "
       "J/n), head 1 maps f_1 to f_2, the other heads W_V = 0; softmax from any exp with exp(0) != 0 on any "
       "ordered field."),
    _L("residual_witness", "wo_choice_generic", "RRO.witness-wo-choice", "algebraic-genericity", "general",
       r"n\ge1,\ d\ge2,\ d_k,H\ge1,\ \exp>0,\ W_Q,W_K\text{ fixed}:\ \operatorname{row}\mathrm{MHA}(X^\star)\subseteq"
       r"\operatorname{span}f_1\Rightarrow p(W_V,W_O)=0,\ p=\mathrm{MHA}(X^\star)_{12};\ \exists W:\ "
       r"(W_O^{(1)})_{12}\neq0,\ p(W)\neq0",
       "'Generic W_V, W_O' read algebraically, for every fixed W_Q, W_K (softmax from any exp > 0): MHA(X*) "
       "staying in span(f_1) forces the polynomial p(W_V, W_O) = MHA(X*)_12 to vanish, and p != 0 at a witness "
       "with (W_O^(1))_12 = 1, every n >= 1, d >= 2. Gap: the zero set of a non-zero polynomial being "
       "Lebesgue-null is not proved (MathComp-Analysis 0.6.0)."),
    _L("softmax_real", "residual_witness_real", "RRO.witness", "a-witness-exists", "general",
       r"n,d\ge2:\ \exists W:\ \operatorname{rank}(X^\star+\mathrm{MHA}(X^\star))=2\ (\mathrm{expR},\ \mathbb R)",
       "The same witness with the real softmax (expR) and scaling 1/sqrt(d_k)."),
    _L("residual_witness", "residual_rank_at_zero_WV", "RRO.near-zero-weights", "increase-fails-at-zero", "general",
       r"W_V^h=0\ \forall h\Rightarrow\operatorname{rank}(X+\mathrm{MHA}(X))=\operatorname{rank}X",
       "With every W_V = 0 the attention output vanishes and the residual map is the identity: no rank increase."),
    # --- section 6.1 (genericity.v, head_rank.v, bert_config.v) ----------------------------------------
    _L("genericity", "generic_WV", "RC.generic-wv", "algebraic-genericity", "general",
       r"\exists L,R,W^\star:\ \det(LXW^\star R)\neq0,\ \operatorname{rank}(XW_V)\neq\min(\operatorname{rank}X,d_k)"
       r"\Rightarrow\det(LXW_VR)=0",
       "'Generic W_V' read algebraically: rank(X W_V) = min(rank X, d_k) fails only where the polynomial "
       "p(W_V) = det(L X W_V R) vanishes, and p(W*) != 0 at a witness W*. Gap: the zero set of a non-zero "
       "polynomial being Lebesgue-null is not proved (MathComp-Analysis 0.6.0)."),
    _L("genericity", "generic_WO", "RC.generic-wo", None, "general",
       r"\operatorname{rank}W_O=d_k\Rightarrow\operatorname{rank}(YW_O)=\operatorname{rank}Y\ \forall Y",
       "A W_O of rank d_k (full row rank) keeps the rank of every Y under right multiplication."),
    _L("head_rank", "alpha_MHA_range", "RC.alpha-mha", None, "general",
       r"\exists h:\ Y_hW_O^h\neq0\Rightarrow0\le1-\frac{\operatorname{rank}\mathrm{MHA}}{H\max_h"
       r"\operatorname{rank}(Y_hW_O^h)}\le1",
       "alpha_MHA lies in [0, 1] whenever some head output is non-zero, every size (matrices over any field, "
       "the index in any ordered field)."),
    _L("head_rank", "dim_R_h_eq_dk", "RC.dim-dk", "rank-X-at-least-d_k", "general",
       r"A_h\in GL_n,\ \operatorname{rank}(XW_V)=\min(\operatorname{rank}X,d_k),\ \operatorname{rank}W_O=d_k,"
       r"\ \operatorname{rank}X\ge d_k\Rightarrow\dim R_h=d_k",
       "With Prop 6.3's genericity stated algebraically (invertible attention, generic-rank W_V, full-row-rank "
       "W_O; the premises of RC.prop63 algebraic-genericity), rank X >= d_k gives dim R_h = d_k."),
    _L("head_rank", "dff_lower_bound", "RC.dff-lower-bound", "necessary-rank", "general",
       r"\operatorname{row}\Phi\subseteq\operatorname{row}W_2,\ \operatorname{rank}(M+\Phi)\ge\operatorname{rank}M+k"
       r"\Rightarrow d_{\mathrm{ff}}\ge k",
       "An FFN output Phi whose rows lie in row(W_2) (W_2 of d_ff rows) can add at most d_ff dimensions: "
       "gaining k directions needs d_ff >= k."),
    _L("head_rank", "alpha_eq0_symmetric", "RC.alpha-reciprocal", "symmetric-scores", "general",
       r"\alpha(M)=0\iff M=M^\top;\ M=M^\top\Rightarrow(XMX^\top)^\top=XMX^\top",
       "Over a real closed field, alpha = ||M_a|| / ||M|| is 0 exactly for symmetric M (M = 0 included, by "
       "x / 0 = 0), and symmetric M gives symmetric scores X M X^T."),
    _L("bert_config", "bert_config", "DC.bert-config", None, "complete",
       r"768/12=64,\ 12\cdot64=768,\ 4\cdot768=3072",
       "BERT-base: d_k = d_model / H = 64 and d_ff = 4 d_model = 3072."),
    _L("bert_config", "bert_H_dk", "RC.subadditivity", "H-d_k-equals-d_model", "complete",
       r"Hd_k=12\cdot64=768=d_{\mathrm{model}}",
       "BERT-base: H d_k = d_model."),
    _L("bert_config", "bert_dff_bound", "RC.dff-lower-bound", "bert-values", "general",
       r"d-\operatorname{rank}M\le3072\ \forall M\in F^{n\times768}",
       "At BERT-base's d_model = 768, d - rank MHA(X) <= 768 <= d_ff = 3072 for every n and every n x 768 "
       "matrix over any field (so for every input; no genericity needed)."),
    _L("head_rank", "alpha_attained_scores", "RC.alpha-range", "attained", "general",
       r"d\ge2:\ \bigl(\forall t\in[0,1]\ \exists W_Q,W_K\in R^{d\times d_k}:\ \alpha(W_QW_K^\top)=t\bigr)"
       r"\iff d_k\ge2",
       "For the paper's score matrix M = W_Q W_K^T (d x d, of rank <= d_k) over a real closed field, with d >= 2: "
       "for d_k >= 2, M = sqrt(2 (1 - t^2)) E_11 + t (E_12 - E_21) factors through d_k columns and has alpha = t; "
       "for d_k <= 1, M = q k^T, an antisymmetric q k^T is 0, so alpha = 1 is never reached. With alpha_range this "
       "is {alpha_h} = [0, 1] iff d_k >= 2 (the scale 1/sqrt d_k leaves alpha unchanged)."),
    # --- section 7 (recovery_kernel.v, head_channel.v) -------------------------------------------------
    _L("recovery_kernel", "dim_ker_Phi_a_iff", "RA.main", "a-rank-condition", "general",
       r"n,H>0:\ \dim\ker\Phi_a=n(H-1)d_k\iff\operatorname{rank}W_O=d_k",
       "The recovery ambiguity n (H - 1) d_k is the kernel dimension of Phi_a exactly when rank W_O = d_k "
       "(n > 0 and H > 0: with n = 0 both sides of the dimension count are 0 whatever W_O is)."),
    _L("head_channel", "dim_ker_sum_heads", "RA.single-head", "whole-tuple", "general",
       _KER_SUM_HEADS,
       "n (H - 1) d_k counts the ambiguity of the whole tuple: the kernel of the head sum (reading b)."),
    _L("recovery_kernel", "residual_stream_ambiguous", "HC.mlp-cannot-remedy", "residual-stream", "general",
       r"H\ge2,\ n,d>0\Rightarrow\exists(Y_h)\neq(Y'_h):\ \textstyle\sum_hY_h=\sum_hY'_h",
       "Distinct tuples with one sum exist as soon as there are two heads: (E, -E, 0, ...) and 0."),
    _L("recovery_kernel", "residual_stream_no_recovery", "HC.mlp-cannot-remedy", "residual-stream", "general",
       r"H\ge2,\ n,d>0,\ X\text{ fixed}\Rightarrow\nexists g:\ g\bigl(X+\textstyle\sum_hY_h\bigr)=(Y_h)_h"
       r"\ \forall(Y_h)_h",
       "Hence no map g of the residual stream X + sum_h Y_h (the MLP among them) recovers every tuple (Y_h), X "
       "fixed and the Y_h free; the residual stream X + MHA(X), where Y_h = A_h(X) X W_V^h depends on X, is not "
       "covered."),
    # --- section 5.3 (layer_jacobian.v, MathComp-Analysis) ----------------------------------------------
    _L("layer_jacobian", "layer_jacobian", "MLP.layer-jacobian", None, "general",
       r"\tfrac{d}{dt}\bigl[X+A(X)XW\bigr]_{X_0+tV}\big|_{t=0}=V+(DA[V])X_0W+A_0VW",
       "The product rule for one attention + residual layer, entry by entry over the reals (MathComp-Analysis's "
       "is_derive), for every n, d, every W = W_V W_O and every map A whose entries are differentiable along "
       "the line X0 + t V with derivatives DA[V] (softmax attention among them)."),
    # --- Dong et al. (dong_bounds.v) -------------------------------------------------------------------
    _L("dong_bounds", "cubic_solution", "DONG.cubic-solution", None, "general",
       r"C>0,\ r_l\ge0,\ r_{l+1}\le Cr_l^3\Rightarrow r_l\le C^{-1/2}(\sqrt Cr_0)^{3^l}\ \forall l",
       "By induction over a real closed field (Num.sqrt): s_l = sqrt(C) r_l obeys s_(l+1) <= s_l^3. C > 0 and "
       "r_l >= 0 (norms) are the recurrence's implicit hypotheses; C^(-1/2) needs C > 0."),
    _L("dong_bounds", "row_stochastic_max_norm", "DONG.non-expansive", "max-norm", "general",
       r"P\ge0,\ P\mathbf 1=\mathbf 1,\ |D_{jk}|\le b\ \forall j,k\Rightarrow|(PD)_{ik}|\le b\ \forall i,k",
       "A row-stochastic P is non-expansive in the max norm: every bound on the entries of D bounds those of "
       "P D (so ||P D||_max <= ||D||_max), over any ordered field."),
    _L("dong_bounds", "markov_two_by_two", "DONG.markov-geometric", "two-by-two", "general",
       r"P=\begin{pmatrix}1-a&a\\b&1-b\end{pmatrix},\ a+b\neq0:\ P^lX_0-\mathbf 1x^\top=\lambda^l"
       r"(X_0-\mathbf 1x^\top),\ x^\top=\pi^\top X_0,\ \lambda=1-a-b",
       "For every 2 x 2 row-stochastic P other than I (a + b != 0), pi = (b, a)/(a + b) its stationary row and "
       "lambda = 1 - a - b its second eigenvalue, P^l X0 - 1 x^T = lambda^l (X0 - 1 x^T) for every l and every "
       "X0 with m columns, over any field."),
    _L("dong_bounds", "markov_two_by_two_equality", "DONG.markov-geometric", "two-by-two", "general",
       r"\|P^lX_0-\mathbf 1x^\top\|_F^2=\lambda^{2l}\|X_0-\mathbf 1x^\top\|_F^2",
       "Hence the geometric bound holds with equality in the Frobenius norm, ||P^l X0 - 1 x^T|| = |lambda|^l "
       "||X0 - 1 x^T|| (stated squared, over a real closed field); P = I (a + b = 0) is excluded."),
    _L("dong_bounds", "row_stochastic_convex_combination", "DONG.convex-combination", None, "general",
       r"P_{ij}\ge0,\ \textstyle\sum_jP_{ij}=1\Rightarrow(PX)_i=\sum_jP_{ij}X_j",
       "Left multiplication by a row-stochastic P makes row i of P X the weighted average sum_j P_ij X_j of the rows "
       "of X, with non-negative weights summing to 1 (over any ordered ring; n, d variables). Stated for a square P "
       "(n x n); the quote's P may be m x n (cross-attention), with the same proof."),
    _L("dong_remedies", "pre_norm_unit_variance", "DONG.pre-ln-variance", None, "general",
       r"c>0,\ \operatorname{Var}(x_i)>0\Rightarrow\operatorname{mean}\mathrm{LN}(cx_i)=0,\ "
       r"\operatorname{Var}\mathrm{LN}(cx_i)=1,\ \tfrac1d\|\mathrm{RMSNorm}(cX)_i\|^2=1",
       "With gamma = 1, beta = 0, epsilon = 0 and every c > 0, a row of c X that is not constant (H1: var > 0) has, "
       "after LayerNorm, mean 0 and variance 1, and after RMSNorm mean square 1: the normalised inputs do not grow "
       "with the scale of the stream (over a real closed field, sigma = Num.sqrt of the variance). The paper's "
       "'depth' enters as the scale c only; the lemma holds for every non-constant row, so for the input of every "
       "block. Learned gamma, beta and epsilon > 0 (a bound depending on them only) are not covered."),
    _L("dong_bounds", "uniform_attention_rank_one", "DONG.setup-stochastic-product", None, "general",
       r"A=J/n\Rightarrow\operatorname{rank}\textstyle\sum_hAXW_h\le1",
       "Uniform attention J/n makes one layer's output rank at most 1, for any X, any number of heads and any "
       "W_h = W_V^h W_O^h."),
    _L("dong_bounds", "skip_lower_bound", "DONG.skip-lower-bound", "as-stated-conditional", "general",
       r"R^{(l+1)}=R^{(l)}+a_l,\ \|a_l\|\le\gamma\|R^{(l)}\|\ \forall l,\ \gamma\le1"
       r"\Rightarrow\|R^{(l)}\|\ge(1-\gamma)^l\|R^{(0)}\|",
       "With a skip connection the residual moves by the residual a_l of the attention branch (R is linear); if "
       "gamma bounds that contraction at every layer the reverse triangle inequality gives the explainer's bound by "
       "induction, in any normed Z-module over a numeric domain (the Frobenius norm among them)."),
    _L("dong_bounds", "skip_lower_bound_pos", "DONG.skip-lower-bound", "as-stated-conditional", "general",
       r"\text{the same, }\gamma<1,\ R^{(0)}\ne0\Rightarrow\|R^{(l)}\|>0",
       "And the bound is positive: with gamma < 1 and R^(0) != 0 the residual never vanishes."),
    # --- section 5.3, FLOP share ---------------------------------------------------------------------
    _L("design_counts", "ffn_flops_share", "DC.ffn-flops", "matmul-convention", "general",
       r"n,d>0\Rightarrow\frac{4nd\,d_{ff}}{8nd^2+2n^2d+2n^2d+4nd\,d_{ff}}\Big|_{d_{ff}=4d}=\frac{4d}{6d+n}",
       "Under the matmul convention with d_ff = 4d the FFN share of a layer's FLOPs is 4d/(6d+n)."),
    _L("design_counts", "bert_ffn_share_648", "DC.ffn-flops", "matmul-convention", "complete",
       r"n\in\mathbb N:\ 0.6475\le\frac{4\cdot768}{6\cdot768+n}<0.6485\iff130\le n\le136",
       "At BERT-base (d = 768) the FFN share 4d/(6d+n) rounds to 64.8% exactly for sequence lengths n from "
       "130 to 136 (exact rationals)."),
    _L("head_rank", "alpha_eq1_antisymmetric", "RC.alpha-reciprocal", "antisymmetric-scores-nonzero", "general",
       r"M\neq0\Rightarrow\bigl(\alpha(M)=1\iff M=-M^\top\bigr);\ M=-M^\top\Rightarrow(XMX^\top)^\top=-XMX^\top",
       "With M != 0, alpha(M) = 1 exactly when M is antisymmetric, and then the scores X M X^T are "
       "antisymmetric. (At M = 0 the equivalence fails: alpha(0) = 0 with x / 0 = 0, while 0 = -0^T.)"),
    # --- limits of softmax over the reals (softmax_limits.v) ------------------------------------------------------
    _L("softmax_limits", "softmaxR_zero_logit_uniform", "DONG.zero-logit-uniform", None, "general",
       r"\forall S\in\mathbb R^{n\times m},\ i,j:\ \lim_{t\to0}\operatorname{softmax}(tS)_{ij}=\tfrac1m",
       "Every entry of softmax(t S) (expR, any real n x m scores S) tends to 1/m as t -> 0: the zero-logit limit is "
       "the uniform matrix (1/m) 1 1^T (1/n for the square attention matrix), stated entrywise (the matrices' "
       "topology is the product one)."),
    _L("noci_values", "noci_values_still_learn", "RW.noci-vanishing-gradients", "values-still-learn", "general",
       r"X=\mathbf 1x^\top,\ x\neq0\Rightarrow\forall W_Q,W_K,W_V\ \exists V:\ \partial_V(AXW_V)=AXV\neq0",
       "At a collapsed input X = 1 x^T with x != 0, for every W_Q, W_K, W_V the value path A X W_V has, in some "
       "direction V, the derivative A X V = 1 x^T V != 0 in W_V: only the query and key gradients vanish."),
    # --- the MLP per token, attention mixes tokens (token_mixing.v) -------------------------------------------
    _L("token_mixing", "ffn_per_token", "DONG.mlp-per-token", None, "general",
       r"\mathrm{FFN}(X)=\sigma(XW_1+\mathbf 1b_1)W_2+\mathbf 1b_2:\ \mathrm{FFN}(X)_i=\mathrm{FFN}(x_i)\ \forall i",
       "The feed-forward network in matrix form, act(X W_1 + 1 b_1) W_2 + 1 b_2 with any entrywise activation, "
       "gives row i of the output from row i of the input alone: FFN(X)_i = FFN(x_i) for every token i."),
    _L("token_mixing", "attention_mixes_tokens", "DONG.mlp-per-token", None, "general",
       r"W_VW_O\neq0\Rightarrow\forall i,j\ \exists X,X'\ (x_k=x'_k\ \forall k\neq j):\ "
       r"(AXW_VW_O)_i\neq(A'X'W_VW_O)_i",
       "One attention head A X W_V W_O (expR softmax, 1/sqrt d_k) with W_V W_O != 0 mixes tokens: for every token i "
       "and every token j, two inputs that differ only in row j give different row i outputs (A_ij > 0). With "
       "W_V W_O = 0 the output is 0 for every X, so the hypothesis is needed."),
    # --- the large-logit limit of softmax (softmax_onehot.v) --------------------------------------------------
    _L("softmax_onehot", "softmaxR_one_hot", "DONG.one-hot-softmax", None, "general",
       r"z_j<z_k\ \forall j\neq k\Rightarrow\forall j:\ \lim_{t\to+\infty}\operatorname{softmax}(tz)_j=[j=k]",
       "For every row of m real logits z with a unique maximum z_k, every entry j of softmax(t z) (expR) tends to 1 "
       "if j = k and to 0 otherwise as t -> +oo: the limit is the one-hot indicator e_k of the argmax (entrywise)."),
    # --- QK-norm bounds attention (qk_norm.v) ---------------------------------------------------------------
    _L("qk_norm", "qk_norm_bound", "DONG.qk-norm", "fixed-scale", "general",
       r"s\ge0:\ |s\,\hat q_i\cdot\hat k_j|\le s,\ A_{ij}\le\frac1{1+(m-1)e^{-2s}},\ m\ge2\Rightarrow A_{ij}<1",
       "With queries and keys L2-normalised and a fixed scale s >= 0, every logit s q^_i . k^_j lies in [-s, s] "
       "(Cauchy-Schwarz) and every weight of A = softmax (expR, m keys) is at most 1 / (1 + (m-1) e^(-2s)), "
       "strictly below 1 for m >= 2: no row collapses to one-hot at a fixed scale."),
    # --- the zero set of a non-zero polynomial, topologically (zero_set.v): nowhere-dense bad sets ----------
    _L("zero_set", "generic_WV_nowhere_dense", "RC.generic-wv", "nowhere-dense", "general",
       r"\mathcal B=\{W_V\in\mathbb R^{d\times d_k}:\operatorname{rank}(XW_V)\neq\min(\operatorname{rank}X,d_k)\}"
       + _ND,
       "For every X over a real field, the W_V with rank(X W_V) != min(rank X, d_k) form a nowhere dense set: they "
       "lie in the zero set of the polynomial det(L X W_V R), non-zero at a witness, which is closed with empty "
       "interior. Nowhere dense, not Lebesgue-null: the literal's 'generic' is the formal gap."),
    _L("zero_set", "residual_rank_nowhere_dense", "RRO.only-increase", "nowhere-dense", "general",
       r"\mathcal B=\{\Delta\in\mathbb R^{n\times d}:\operatorname{rank}(X+\Delta)<\operatorname{rank}X\}" + _ND,
       "For every X over a real field, the increments Delta that lower the rank form a nowhere dense set (inside the "
       "zero set of det(L (X + Delta) R), which is 1 at Delta = 0). Nowhere dense, not Lebesgue-null."),
    _L("zero_set", "prop51_nowhere_dense", "RRO.prop51", "nowhere-dense", "general",
       r"\operatorname{rank}A<\min(n,d)\Rightarrow\mathcal B=\{B:\operatorname{rank}(A+B)\le\operatorname{rank}A\}"
       + _ND,
       "Proposition 5.1 topologically: for rank A < min(n, d) the B with rank(A + B) <= rank A form a nowhere dense "
       "set (inside the zero set of the leading (r+1)-minor of A + B, non-zero at B* = I - A). Not 'Pr = 1 for "
       "absolutely continuous B': that needs the set to be null."),
    _L("zero_set", "rank_r_increments_nowhere_dense", "RRO.rank-r-witness", "increments-nowhere-dense", "general",
       r"\operatorname{rank}X=r<\min(n,d)\Rightarrow\mathcal B=\{\Delta:\operatorname{rank}(X+\Delta)\le r\}"
       + _ND,
       "For every rank-r X with r < min(n, d) (the witness X*_r among them) the increments Delta with "
       "rank(X + Delta) <= r form a nowhere dense set. A statement about the increments, not the weights behind "
       "Delta = MHA(X*_r)."),
    _L("zero_set", "rowspace_perturbations_nowhere_dense", "RRO.remark-iii-generic", "nowhere-dense", "general",
       r"\operatorname{rank}X<\min(n,d)\Rightarrow\mathcal B=\{\Delta:\operatorname{row}\Delta\subseteq"
       r"\operatorname{row}X\}" + _ND,
       "For rank X < min(n, d) the perturbations whose rows lie in row X form a nowhere dense set (inside the zero "
       "set of an (r+1)-minor of [X; Delta], non-zero at Delta = pid_mx(min(n, d))). Not the literal's measure zero."),
    # --- the null-set lemma (null_set.v) and the generic statements in their Lebesgue form (null_set_mx.v) ------
    _L("null_set", "poly_zero_set_null_k", "RRO.analytic-measure-zero", "polynomial", "general",
       r"P\in\mathbb R[x_0,\dots,x_k],\ P\neq0\Rightarrow\lambda^{\otimes(k+1)}(\{x\in\mathbb R^{k+1}:P(x)=0\})=0",
       "For every k, the zero set of a non-zero real polynomial in k + 1 variables (an iterated polynomial ring "
       "R[x_0]...[x_k]) is a measurable null set of lebk, the (k+1)-fold product of MathComp-Analysis's Lebesgue "
       "measure on R (product_measure1, sigma-finite: lebk_sigma_finite): Tonelli's integral of the slices, null "
       "off the zero set of the leading coefficient, by induction on k."),
    _L("null_set", "poly_bad_set_null", "RRO.analytic-measure-zero", "polynomial", "general",
       r"P(w)\neq0,\ \mathcal B\subseteq\{P=0\}\Rightarrow\mathcal B\ \lambda^{\otimes(k+1)}\text{-negligible}",
       "The bridge the generic statements use: a set inside the zero set of a polynomial that is non-zero at one "
       "witness w is negligible for lebk (inside a measurable set of measure 0)."),
    _L("null_set_mx", "generic_WV_null", "RC.generic-wv", None, "general",
       r"\mathcal B=\{W_V\in\mathbb R^{d\times d_k}:\operatorname{rank}(XW_V)\neq\min(\operatorname{rank}X,d_k)\}"
       + _NULL,
       "For every real X (MathComp-Analysis's reals), the W_V with rank(X W_V) != min(rank X, d_k) form a set that is "
       + _NULL_WORDS + ": the literal 'for generic W_V' in Lebesgue's sense."),
    _L("null_set_mx", "residual_rank_null", "RRO.only-increase", "free-delta", "general",
       r"\mathcal B=\{\Delta\in\mathbb R^{n\times d}:\operatorname{rank}(X+\Delta)<\operatorname{rank}X\}" + _NULL,
       "For every real X, the increments Delta in R^(n x d) with rank(X + Delta) < rank X form a set that is "
       + _NULL_WORDS + ". Delta ranges over all matrices (not Delta = MHA(X): reading every-increment)."),
    _L("null_set_mx", "prop51_null", "RRO.prop51", None, "general",
       r"\operatorname{rank}A<\min(n,d)\Rightarrow\mathcal B=\{B:\operatorname{rank}(A+B)\le\operatorname{rank}A\}"
       + _NULL,
       "Proposition 5.1's bad set: for rank A < min(n, d) the B with rank(A + B) <= rank A form a set that is "
       + _NULL_WORDS + "."),
    _L("null_set_mx", "prop51_almost_surely", "RRO.prop51", None, "general",
       r"\operatorname{rank}A<\min(n,d),\ \mu\ll\lambda^{\otimes nd}\Rightarrow"
       r"\mu\text{-a.e. }B:\ \operatorname{rank}(A+B)>\operatorname{rank}A",
       "Proposition 5.1 as stated: for every measure mu on the n d entries that is absolutely continuous with respect "
       "to lebk (mu S = 0 whenever lebk S = 0, S measurable; a probability law with a density among them), "
       "rank(A + B) > rank A for mu-almost every B (Pr = 1)."),
    _L("null_set_mx", "rank_r_increments_null", "RRO.rank-r-witness", "increments-null", "general",
       r"\operatorname{rank}X=r<\min(n,d)\Rightarrow\mathcal B=\{\Delta:\operatorname{rank}(X+\Delta)\le r\}"
       + _NULL,
       "For every rank-r real X with r < min(n, d) (the witness X*_r among them) the increments Delta with "
       "rank(X + Delta) <= r form a set that is " + _NULL_WORDS + ". The increments, not the weights behind "
       "Delta = MHA(X*_r) (softmax: not a polynomial)."),
    _L("null_set_mx", "rowspace_perturbations_null", "RRO.remark-iii-generic", None, "general",
       r"\operatorname{rank}X<\min(n,d)\Rightarrow\mathcal B=\{\Delta:\operatorname{row}\Delta\subseteq"
       r"\operatorname{row}X\}" + _NULL,
       "For rank X < min(n, d) the perturbations Delta whose rows lie in row X form a set that is " + _NULL_WORDS
       + ": the literal's 'Lebesgue measure zero'."),
    _L("null_set_heads", "wo_choice_null", "RRO.witness-wo-choice", "corrected", "general",
       r"W_Q,W_K\text{ fixed},\ \exp>0:\ \{(W_V^h,W_O^h)_h:\operatorname{row}\mathrm{MHA}(X^\star)\subseteq"
       r"\operatorname{span}f_1\}\ \text{Lebesgue-null}",
       "For n >= 1 tokens, d_model >= 2, d_k, H >= 1, any fixed W_Q, W_K (W_Q = 0 among them) and any positive exp, "
       "the head weights (W_V^h, W_O^h)_h, as one matrix whose entries are all theirs, for which every row of "
       "MHA(X*) lies in span(f_1) form a set that is " + _NULL_WORDS + "; so generic W_V, W_O (a fortiori those with "
       "(W_O^(1))_12 != 0) leave span(f_1)."),
    _L("null_set_mx", "lebesgue_all_matrices_vacuous", "RRO.main", "lebesgue-on-all-matrices", "general",
       r"\forall F:\ \lambda^{\otimes nd}\text{-a.e. }X:\ \operatorname{rank}X<\min(n,d)\Rightarrow"
       r"\operatorname{rank}F(X)>\operatorname{rank}X",
       "For every map F of n x d real matrices (attention + residual with any weights among them), lebk-almost every "
       "X satisfies 'rank X < min(n, d) implies rank F(X) > rank X', vacuously: the rank-deficient X form a null "
       "set (rank_deficient_null)."),
    _L("null_set_mx", "rank_stratum_null", "RRO.thm53-argument", "strata-null-vacuous", "general",
       r"r<\min(n,d)\Rightarrow\{X\in\mathbb R^{n\times d}:\operatorname{rank}X=r\}" + _NULL.replace(
           r"\mathcal B", r"\cdot"),
       "For r < min(n, d) the stratum {X : rank X = r} is " + _NULL_WORDS + " (inside the zero set of the leading "
       "minor of order min(n, d), which is 1 at pid_mx)."),
    # --- identities of sums (dong_identities.v) ----------------------------------------------------------------
    _L("dong_identities", "residual_variance", "DONG.residual-variance", None, "general",
       r"n\ge1,\ R=X-\tfrac1n\mathbf 1\mathbf 1^\top X:\ \|R\|_F^2=n\operatorname{tr}\operatorname{Cov}(X)"
       r"=\tfrac1n\sum_{i<k}\|x_i-x_k\|^2",
       "For every n >= 1 tokens and d features over a numeric field, the squared Frobenius norm of the residual "
       "R = X - (1/n) 1 1^T X is n times the trace of the population covariance of the rows, which is (1/n) times "
       "the sum over the pairs i < k of ||x_i - x_k||^2."),
    # --- attention as a graph, its gradient at a collapsed input (attention_graph.v) ------------------------
    _L("attention_graph", "attention_fully_connected_dynamic", "DONG.fully-connected-graph", None, "general",
       r"A_{ij}>0\ \forall X,i,j;\ n\ge2,\ W_QW_K^\top\neq0\Rightarrow\exists X_1,X_2:\ A(X_1)\neq A(X_2)",
       "A = softmax(X W_Q (X W_K)^T / sqrt d_k) (expR) has every entry positive for every X (a complete graph with "
       "self-loops), and for n >= 2 tokens and W_Q W_K^T != 0 two inputs have different attention matrices (the "
       "edge weights depend on X); both hypotheses are needed (n = 1: A = [1]; W_Q W_K^T = 0: A = J/n)."),
    _L("attention_graph", "noci_vanishing_gradients", "RW.noci-vanishing-gradients", "collapsed-input", "general",
       r"X=\mathbf 1x^\top\Rightarrow\forall V:\ \partial_VA(W_Q)=0,\ \partial_VA(W_K)=0",
       "At a collapsed input X = 1 x^T (n >= 1 tokens, positive d, d_k) the attention matrix softmax(X W_Q (X W_K)^T "
       "/ sqrt d_k) is J/n for every W_Q, W_K, so as a function of W_Q (and of W_K) its derivative in every "
       "direction V exists and is 0 (MathComp-Analysis's is_derive)."),
)


#: Proved and checked by ``make formal``, but not evidence yet: the reading each one proves is not registered
#: (a claim-side change; see the words). formal_evidence ignores them; the registry test checks them too.
PENDING: tuple[FormalLemma, ...] = (
    # the general lemma behind the nowhere-dense readings; not RRO.bad-set-nowhere-dense's evidence: that claim's
    # B_l is defined through softmax (not a polynomial) and, as stated, contains every full-rank X
    _L("zero_set", "polyfun_zero_set_nowhere_dense", "RRO.bad-set-nowhere-dense", "polynomial-zero-set", "general",
       r"P\ \text{polynomial on }\mathbb R^{m\times n},\ P(w)\neq0\Rightarrow\{P=0\}\ \text{closed},\ "
       r"\{P=0\}^\circ=\emptyset",
       "The zero set of a polynomial function of the m n entries (built from constants and entries by + and *) "
       "that is non-zero at one point is closed with empty interior, over any real field: nowhere dense, not "
       "(proved here) Lebesgue-null."),
    _L("zero_set", "polyfun_bad_set_nowhere_dense", "RRO.bad-set-nowhere-dense", "polynomial-bridge", "general",
       r"P\ \text{polynomial},\ P(w^\star)\neq0,\ \mathcal B\subseteq\{P=0\}\Rightarrow"
       r"(\overline{\mathcal B})^\circ=\emptyset",
       "The bridge: a bad set inside the zero set of a polynomial that is non-zero at a witness is nowhere dense."),
    # the univariate step of the null-set lemma (the base case of null_set.poly_zero_set_null_k, which is the evidence
    # of RRO.analytic-measure-zero's reading polynomial): the N = 1 case alone proves no reading
    # what lebk, the measure of the null-set lemma, is (pinned, so a changed definition of the measure shows here
    # too): the product measure on rectangles, sigma-finite; and the lemma at k = 2 in MathComp's bivariate notation
    _L("null_set", "lebk_rectangle", "RRO.analytic-measure-zero", "product-measure", "general",
       r"\lambda^{\otimes(k+2)}(A\times B)=\lambda^{\otimes(k+1)}(A)\,\lambda(B)",
       "lebk (k+1) is the product of lebk k and MathComp-Analysis's lebesgue_measure on measurable rectangles."),
    _L("null_set", "lebk_sigma_finite", "RRO.analytic-measure-zero", "product-measure", "general",
       r"\lambda^{\otimes(k+1)}\ \sigma\text{-finite}",
       "lebk k is sigma-finite for every k (so product_measure_unique and Fubini-Tonelli apply to it)."),
    _L("null_set", "bivariate_zero_set_null", "RRO.analytic-measure-zero", "bivariate-polynomial", "general",
       r"P\in\mathbb R[x][y],\ P\neq0\Rightarrow(\lambda\otimes\lambda)(\{(x,y):P(x,y)=0\})=0",
       "k = 2 in MathComp's notation: a non-zero P in R[x][y] vanishes on a null set of product_measure1 "
       "lebesgue_measure lebesgue_measure."),
    _L("null_set_1d", "poly_zero_set_null", "RRO.analytic-measure-zero", "univariate-polynomial", "general",
       r"p\in\mathbb R[x],\ p\neq0\Rightarrow\lambda(\{x\in\mathbb R:p(x)=0\})=0",
       "The zero set of a non-zero real polynomial in one variable has Lebesgue measure zero on R (MathComp-Analysis's "
       "lebesgue_measure): it is the finite set of the polynomial's roots."),
)


def lemmas_for(claim: str, reading: str | None | EllipsisType = ...) -> tuple[FormalLemma, ...]:
    """The registered lemmas of a claim (and, if given, of one reading key; None = the headline)."""
    return tuple(l for l in LEMMAS if l.claim == claim and (reading is ... or l.reading == reading))
