(* Cirrincione (2026), section 9 (Symmetry-Breaking Framework): the five
   symmetries of the Transformer layer.
     SYM.head-permutation   MHA is invariant under relabelling the heads;
     SYM.value-output-gauge (W_V G)(G^-1 W_O) = W_V W_O;
     SYM.query-key-gauge    X W_Q N (X W_K N^-T)^T = X W_Q W_K^T X^T;
     SYM.token-permutation  attention(Pi X) = Pi attention(X);
     SYM.ln-shift-scale     LN(a x + c 1) = LN(x) for a > 0. *)
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix ssrint rat poly mxpoly mxalgebra fingroup perm zmodp interval.
From CollapseVerify Require Import preamble.
Import GRing.Theory Num.Theory.
Local Open Scope ring_scope.

(* ------------------------------------------------------------------ *)
Section MultiHead.
Variables (F : fieldType) (n d_model d_k H : nat).
(* A^(h) = attn X W_Q^(h) W_K^(h): any function of (X, W_Q^(h), W_K^(h)),
   softmax(X W_Q W_K^T X^T / sqrt d_k) being one *)
Variable attn : 'M[F]_(n, d_model) -> 'M[F]_(d_model, d_k) ->
                'M[F]_(d_model, d_k) -> 'M[F]_n.

(* MHA(X) = sum_h A^(h) X W_V^(h) W_O^(h) *)
Definition MHA (X : 'M[F]_(n, d_model)) (W_Q W_K W_V : 'I_H -> 'M[F]_(d_model, d_k))
    (W_O : 'I_H -> 'M[F]_(d_k, d_model)) : 'M[F]_(n, d_model) :=
  \sum_(h < H) attn X (W_Q h) (W_K h) *m X *m W_V h *m W_O h.

(* SYM.head-permutation: "MHA is invariant under any permutation s of the
   heads", applied to all four weight families at once *)
Lemma MHA_head_permutation (s : 'S_H) X W_Q W_K W_V W_O :
  MHA X (W_Q \o s) (W_K \o s) (W_V \o s) (W_O \o s) = MHA X W_Q W_K W_V W_O.
Proof. by rewrite /MHA [RHS](reindex_inj (@perm_inj _ s)). Qed.

(* SYM.value-output-gauge: "(W_V G)(G^-1 W_O) = W_V W_O for invertible G" *)
Lemma value_output_gauge (W_V : 'M[F]_(d_model, d_k)) (W_O : 'M[F]_(d_k, d_model))
    (G : 'M[F]_d_k) :
  G \in unitmx -> (W_V *m G) *m (invmx G *m W_O) = W_V *m W_O.
Proof. by move=> uG; rewrite mulmxA mulmxK. Qed.

(* the same gauge, one invertible G^(h) per head, leaves MHA unchanged *)
Lemma MHA_value_output_gauge (G : 'I_H -> 'M[F]_d_k) X W_Q W_K W_V W_O :
  (forall h, G h \in unitmx) ->
  MHA X W_Q W_K (fun h => W_V h *m G h) (fun h => invmx (G h) *m W_O h)
  = MHA X W_Q W_K W_V W_O.
Proof.
move=> uG; apply: eq_bigr => h _.
by rewrite -!mulmxA [W_V h *m _]mulmxA value_output_gauge.
Qed.

(* SYM.query-key-gauge: "X W_Q N (X W_K N^-T)^T = X W_Q W_K^T X^T for
   invertible N": the attention scores do not change *)
Lemma query_key_gauge (X : 'M[F]_(n, d_model)) (W_Q W_K : 'M[F]_(d_model, d_k))
    (N : 'M[F]_d_k) :
  N \in unitmx ->
  (X *m (W_Q *m N)) *m (X *m (W_K *m (invmx N)^T))^T
  = X *m W_Q *m W_K^T *m X^T.
Proof.
move=> uN; rewrite !trmx_mul trmxK !mulmxA.
by rewrite -[X *m W_Q *m N *m invmx N]mulmxA mulmxV // mulmx1.
Qed.

(* attention read through its scores S = X W_Q (X W_K)^T: any map f of the
   scores (softmax of S / sqrt d_k among them) *)
Definition attention (f : 'M[F]_n -> 'M[F]_n) (X : 'M[F]_(n, d_model))
    (W_Q W_K W_V : 'M[F]_(d_model, d_k)) : 'M[F]_(n, d_k) :=
  f ((X *m W_Q) *m (X *m W_K)^T) *m (X *m W_V).

(* the query-key gauge leaves attention, and so MHA, unchanged *)
Lemma attention_query_key_gauge f X W_Q W_K W_V (N : 'M[F]_d_k) :
  N \in unitmx ->
  attention f X (W_Q *m N) (W_K *m (invmx N)^T) W_V = attention f X W_Q W_K W_V.
Proof. by move=> uN; rewrite /attention query_key_gauge // trmx_mul !mulmxA. Qed.

End MultiHead.

(* ------------------------------------------------------------------ *)
Section TokenPermutation.
Variables (F : fieldType) (n d_model d_k : nat).

(* g: the map applied to each row of the score matrix (e.g. softmax), only
   assumed to commute with permuting the entries of the row *)
Variable g : 'rV[F]_n -> 'rV[F]_n.
Hypothesis g_equivariant : forall (s : 'S_n) v, g (col_perm s v) = col_perm s (g v).

(* rowmap g S: g applied to each row of S *)
Definition rowmap (S : 'M[F]_n) : 'M[F]_n := \matrix_(i, j) g (row i S) 0 j.

(* attention(X) = rowmap(g)(X W_Q W_K^T X^T) X W_V *)
Definition token_attention (W_Q W_K W_V : 'M[F]_(d_model, d_k))
    (X : 'M[F]_(n, d_model)) : 'M[F]_(n, d_k) :=
  rowmap ((X *m W_Q) *m (X *m W_K)^T) *m (X *m W_V).

Lemma rowmap_perm (s : 'S_n) (S : 'M[F]_n) :
  rowmap (col_perm s (row_perm s S)) = col_perm s (row_perm s (rowmap S)).
Proof.
apply/matrixP => i j; rewrite !mxE.
have -> : row i (col_perm s (row_perm s S)) = col_perm s (row (s i) S).
  by apply/rowP => k; rewrite !mxE.
by rewrite g_equivariant !mxE.
Qed.

(* SYM.token-permutation: "attention(Pi X) = Pi attention(X)" for every
   permutation matrix Pi = perm_mx s *)
Lemma attention_token_permutation (s : 'S_n) W_Q W_K W_V (X : 'M[F]_(n, d_model)) :
  token_attention W_Q W_K W_V (perm_mx s *m X)
  = perm_mx s *m token_attention W_Q W_K W_V X.
Proof.
rewrite /token_attention !trmx_mul tr_perm_mx.
have -> : perm_mx s *m X *m W_Q *m (W_K^T *m (X^T *m perm_mx s^-1))
          = col_perm s (row_perm s (X *m W_Q *m (W_K^T *m X^T))).
  by rewrite col_permE row_permE !mulmxA.
rewrite rowmap_perm col_permE row_permE -!mulmxA; congr (_ *m _).
by rewrite !mulmxA -[_ *m perm_mx s^-1 *m perm_mx s]mulmxA -perm_mxM mulVg perm_mx1 mulmx1.
Qed.

End TokenPermutation.

Section Softmax.
Variables (F : fieldType) (n : nat).
(* exp: any map; the softmax of one row, with scores scaled by tau
   (tau = 1 / sqrt d_k in the paper) *)
Variables (exp : F -> F) (tau : F).

Definition softmax_row (v : 'rV[F]_n) : 'rV[F]_n :=
  \row_j (exp (tau * v 0 j) / \sum_(k < n) exp (tau * v 0 k)).

Lemma softmax_row_equivariant (s : 'S_n) (v : 'rV[F]_n) :
  softmax_row (col_perm s v) = col_perm s (softmax_row v).
Proof.
apply/rowP => j; rewrite !mxE; congr (_ / _).
by rewrite [RHS](reindex_inj (@perm_inj _ s)); apply: eq_bigr => k _; rewrite mxE.
Qed.

(* SYM.token-permutation for softmax attention:
   softmax(Pi X W_Q W_K^T X^T Pi^T / sqrt d_k) Pi X W_V = Pi softmax(...) X W_V *)
Lemma softmax_attention_token_permutation (d_model d_k : nat) (s : 'S_n)
    (W_Q W_K W_V : 'M[F]_(d_model, d_k)) (X : 'M[F]_(n, d_model)) :
  token_attention softmax_row W_Q W_K W_V (perm_mx s *m X)
  = perm_mx s *m token_attention softmax_row W_Q W_K W_V X.
Proof. exact/attention_token_permutation/softmax_row_equivariant. Qed.

End Softmax.

(* ------------------------------------------------------------------ *)
Section LayerNorm.
(* a real closed field: order and square roots *)
Variables (R : rcfType) (d : nat).
Hypothesis d_gt0 : (0 < d)%N.

Definition mean (x : 'rV[R]_d) : R := (d%:R)^-1 * \sum_(j < d) x 0 j.
Definition var (x : 'rV[R]_d) : R := (d%:R)^-1 * \sum_(j < d) (x 0 j - mean x) ^+ 2.

(* LN(x) = (x - mean(x)) / sqrt(var(x)) (.) gamma + beta *)
Definition LN (gamma beta x : 'rV[R]_d) : 'rV[R]_d :=
  \row_j ((x 0 j - mean x) / Num.sqrt (var x) * gamma 0 j + beta 0 j).

Lemma mean_shift_scale (x : 'rV[R]_d) (a c : R) :
  mean (a *: x + c *: const_mx 1) = a * mean x + c.
Proof.
have d0 : (d%:R : R) != 0 by rewrite pnatr_eq0 -lt0n.
rewrite /mean; under eq_bigr do rewrite !mxE mulr1.
rewrite big_split /= -mulr_sumr sumr_const card_ord -[c *+ d]mulr_natr.
by rewrite mulrDr mulrCA [c * _]mulrC mulKf.
Qed.

(* SYM.ln-shift-scale: "LN(a x + c 1) = LN(x) for a > 0" *)
Lemma LN_shift_scale (gamma beta x : 'rV[R]_d) (a c : R) :
  0 < a -> LN gamma beta (a *: x + c *: const_mx 1) = LN gamma beta x.
Proof.
move=> a_gt0; have a0 : a != 0 by rewrite lt0r_neq0.
have center j : (a *: x + c *: const_mx 1) 0 j - mean (a *: x + c *: const_mx 1)
                = a * (x 0 j - mean x).
  by rewrite mean_shift_scale !mxE mulr1 mulrBr opprD addrACA subrr addr0.
have Evar : var (a *: x + c *: const_mx 1) = a ^+ 2 * var x.
  rewrite /var; under eq_bigr do rewrite center exprMn.
  by rewrite -mulr_sumr mulrCA.
apply/rowP => j; rewrite mxE center Evar mxE sqrtrM ?sqr_ge0 // sqrtr_sqr (ger0_norm (Order.POrderTheory.ltW a_gt0)).
by rewrite invfM mulrACA divff // mul1r.
Qed.

End LayerNorm.
