(* Cirrincione (2026), section 5.2, proof of Theorem 5.3, step (b): the
   explicit witness X0 = e_1 f_1^T (rank 1) and softmax multi-head attention
   (softmax_attention.MHA: any exp with exp(0) != 0, any scaling tau, over
   any ordered field; softmax_real.v takes exp = expR).
     RRO.witness a-witness-exists   for every shape n >= 2, d_model >= 2,
         d_k >= 1, H >= 1 some weights give rank(X0 + MHA(X0)) = 2
         (W_Q = W_K = 0, so attention is uniform, J / n; head 1 maps f_1 to
         f_2, the other heads have W_V = 0);
     RRO.near-zero-weights increase-fails-at-zero
         W_V^h = 0 for every h => rank(X + MHA(X)) = rank X. *)
From mathcomp Require Import all_ssreflect fingroup perm all_algebra.
From CollapseVerify Require Import dong_collapse softmax_attention rank_neutrality preamble.
Import GRing.Theory Num.Theory.
Local Open Scope ring_scope.

Section Witness.
Variables (F : numFieldType) (exp : F -> F) (tau : F).
Hypothesis exp0_neq0 : exp 0 != 0.

(* softmax of the zero scores is uniform attention J / m *)
Lemma softmax0 n m : softmax exp (0 : 'M[F]_(n, m)) = (m%:R)^-1 *: const_mx 1.
Proof.
apply/matrixP => i j; rewrite !mxE.
under eq_bigr do rewrite mxE.
by rewrite sumr_const card_ord -[exp 0 *+ _]mulr_natr invfM mulrA divff // mul1r mulr1.
Qed.

(* RRO.near-zero-weights, reading increase-fails-at-zero:
   "W_V = 0 => rank F(X) = rank X", F(X) = X + MHA(X) *)
Lemma residual_rank_at_zero_WV n d_model d_k H (X : 'M[F]_(n, d_model))
    (W_Q W_K : 'I_H -> 'M[F]_(d_model, d_k)) (W_O : 'I_H -> 'M[F]_(d_k, d_model)) :
  \rank (X + MHA exp tau X W_Q W_K (fun=> 0) W_O)%R = \rank X.
Proof.
rewrite /MHA big1 ?addr0 // => h _.
by rewrite mulmx0 mulmx0 mul0mx.
Qed.

(* X0 = e_1 f_1^T, the paper's rank-1 witness *)
Definition Xstar n d : 'M[F]_(n.+1, d.+1) := delta_mx 0 0.

(* RRO.witness, reading a-witness-exists: "for each shape, some (W_Q, W_K,
   W_V, W_O): rank(X0 + MHA(X0)) = 2", for every shape n >= 2 tokens,
   d_model >= 2, d_k >= 1, H >= 1 heads (written n.+2, d.+2, dk.+1, H.+1) *)
Lemma residual_witness n d dk H :
  exists (W_Q W_K W_V : 'I_H.+1 -> 'M[F]_(d.+2, dk.+1)) (W_O : 'I_H.+1 -> 'M[F]_(dk.+1, d.+2)),
    \rank (Xstar n.+1 d.+1 + MHA exp tau (Xstar n.+1 d.+1) W_Q W_K W_V W_O)%R = 2%N.
Proof.
pose j1 : 'I_d.+2 := lift 0 0.
pose W_V (h : 'I_H.+1) : 'M[F]_(d.+2, dk.+1) := if h == 0 then delta_mx 0 0 else 0.
exists (fun=> 0), (fun=> 0), W_V, (fun=> delta_mx 0 j1).
set X := Xstar n.+1 d.+1.
have n0 : (n.+2%:R : F) != 0 by rewrite pnatr_eq0.
pose b : 'rV[F]_d.+2 := (n.+2%:R)^-1 *: delta_mx 0 j1.
have -> : MHA exp tau X (fun=> 0) (fun=> 0) W_V (fun=> delta_mx 0 j1) = const_mx 1 *m b.
  rewrite /MHA (bigD1 0) //= big1 ?addr0 => [|h h0]; last first.
    by rewrite /W_V (negbTE h0) mulmx0 mulmx0 mul0mx.
  have -> : scores tau X (0 : 'M_(d.+2, dk.+1)) 0 = 0 by rewrite /scores !mulmx0 trmx0 mulmx0 scaler0.
  rewrite softmax0 /W_V eqxx /X /Xstar mul_delta_mx -mulmxA mul_delta_mx -!scalemxAl /b -scalemxAr; congr (_ *: _).
  apply/matrixP => i j; rewrite !mxE (bigD1 0) //= big1 ?addr0 => [|k k0]; last first.
    by rewrite !mxE (negbTE k0) mulr0.
  by rewrite !mxE !eqxx /= mul1r big_ord1 !mxE !eqxx mul1r.
rewrite rank_one_update.
- have rX : \rank X = 1%N by rewrite /X /Xstar mxrank_delta.
  rewrite rX; suff -> : (b <= X)%MS = false by [].
  apply/negbTE/negP => /submxP[c /matrixP/(_ 0 j1)]; rewrite /X /Xstar.
  rewrite !mxE eqxx mulr1 big1 => [/eqP|k _]; first by rewrite invr_eq0 (negbTE n0).
  by rewrite !mxE andbF mulr0.
- by apply/eqP => /matrixP/(_ 0 0); rewrite !mxE => /eqP; rewrite oner_eq0.
apply/negP => /submxP[c /matrixP/(_ 0 (lift 0 0))].
rewrite !mxE big1 => [/eqP|k _]; first by rewrite oner_eq0.
by rewrite !mxE /= mulr0.
Qed.

(* RRO.witness-wo-choice, reading corrected: "for generic W_V, W_O (with
   (W_O^(1))_12 != 0): row MHA(X0) is not contained in span(f_1)", with
   generic read algebraically and W_Q, W_K (so the attention) fixed: a failure
   forces the polynomial p(W_V, W_O) = MHA(X0)_12 (the softmax weights are
   constants here) to vanish, and p != 0 at a witness with (W_O^(1))_12 = 1
   (this needs exp > 0, so that the attention weight of token 1 is non-zero) *)
Lemma wo_choice_generic n d dk H (W_Q W_K : 'I_H.+1 -> 'M[F]_(d.+2, dk.+1)) :
  (forall a, 0 < exp a) ->
  (forall (W_V : 'I_H.+1 -> 'M[F]_(d.+2, dk.+1)) (W_O : 'I_H.+1 -> 'M[F]_(dk.+1, d.+2)),
     (MHA exp tau (Xstar n d.+1) W_Q W_K W_V W_O <= (delta_mx 0 0 : 'rV[F]_d.+2))%MS ->
     MHA exp tau (Xstar n d.+1) W_Q W_K W_V W_O 0 (lift 0 0) = 0)
  /\ exists (W_V : 'I_H.+1 -> 'M[F]_(d.+2, dk.+1)) (W_O : 'I_H.+1 -> 'M[F]_(dk.+1, d.+2)),
                   W_O 0 0 (lift 0 0) != 0
                   /\ MHA exp tau (Xstar n d.+1) W_Q W_K W_V W_O 0 (lift 0 0) != 0.
Proof.
move=> exp_gt0; split=> [W_V W_O /submxP[c ->] | ].
  by rewrite mxE big_ord1 mxE /= mulr0.
pose W_V (h : 'I_H.+1) : 'M[F]_(d.+2, dk.+1) := if h == 0 then delta_mx 0 0 else 0.
exists W_V, (fun=> delta_mx 0 (lift 0 0)); split; first by rewrite mxE !eqxx oner_neq0.
rewrite /MHA (bigD1 0) //= big1 ?addr0 => [|h h0]; last by rewrite /W_V (negbTE h0) !mulmx0 mul0mx.
rewrite /W_V eqxx /Xstar !mul_delta_mx -mulmxA mul_delta_mx mxE (bigD1 0) //= big1 ?addr0 => [|k k0].
  rewrite !mxE !eqxx mulr1 lt0r_neq0 // divr_gt0 ?exp_gt0 // (bigD1 0) //= ltr_paddr ?exp_gt0 //.
  by apply: sumr_ge0 => j _; apply: Order.POrderTheory.ltW.
by rewrite [delta_mx _ _ _ _]mxE (negbTE k0) mulr0.
Qed.

End Witness.
