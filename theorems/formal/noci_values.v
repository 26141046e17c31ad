(* RW.noci-vanishing-gradients, reading values-still-learn: 'vanishing
   gradients' holds for the queries and keys (attention_graph.v), not for the
   values.  At a collapsed input X = 1 x^T with x != 0, for every W_Q, W_K,
   W_V, the value path A X W_V (A = J/n there) has derivative A X V in W_V
   in the direction V, and it is non-zero for V = delta_mx a 0 where
   x_a != 0.  is_derive_mulmx: the derivative of W |-> C W in the direction
   V is C V (MathComp-Analysis's is_derive, the difference quotient is
   constant off 0).
   MathComp-Analysis rests on three classical axioms (propositional and
   functional extensionality, constructive indefinite description). *)
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix ssrint rat poly mxpoly mxalgebra fingroup perm zmodp interval.
From mathcomp.classical Require Import classical_sets.
From mathcomp.analysis Require Import reals topology normedtype derive.
From CollapseVerify Require Import dong_collapse softmax_attention softmax_real attention_graph preamble.
Import GRing.Theory Num.Theory numFieldTopology.Exports numFieldNormedType.Exports.
Local Open Scope ring_scope.
Local Open Scope classical_set_scope.

Section NociValues.
Variable R : realType.

(* the derivative of W |-> C W in the direction V is C V *)
Lemma is_derive_mulmx p q r (C : 'M[R]_(p.+1, q.+1)) (W V : 'M[R]_(q.+1, r.+1)) :
  is_derive W V (fun M => C *m M) (C *m V).
Proof.
have Q : (fun h : R => h^-1 *: (((fun M => C *m M) \o shift W) (h *: V) - C *m W)) @ (0 : R)^'
         --> C *m V.
  apply: cvg_near_cst; rewrite near_withinE; near=> h => h0.
  by rewrite /= mulmxDr addrK scalemxAr scalerA mulVf ?scale1r.
by apply: DeriveDef; [exact: cvgP Q | exact: cvg_lim Q].
Unshelve. all: by end_near.
Qed.

(* RW.noci-vanishing-gradients, reading values-still-learn: at a collapsed
   input X = 1 x^T with x != 0, for every W_Q, W_K, W_V, the value path
   A X W_V has a non-zero derivative in W_V in some direction V *)
Lemma noci_values_still_learn n d dk (x : 'rV[R]_d.+1) (W_Q W_K W_V : 'M[R]_(d.+1, dk.+1)) :
  x != 0 -> exists V : 'M[R]_(d.+1, dk.+1),
    is_derive W_V V
      (fun W => attnR (const_mx 1 *m x : 'M_(n.+1, d.+1)) W_Q W_K *m (const_mx 1 *m x) *m W)
      (const_mx 1 *m x *m V) /\ (const_mx 1 *m x *m V : 'M_(n.+1, dk.+1)) != 0.
Proof.
move=> x0.
have C : attnR (const_mx 1 *m x : 'M_(n.+1, d.+1)) W_Q W_K *m (const_mx 1 *m x) = const_mx 1 *m x.
  rewrite collapsed_attention_uniform; apply/matrixP => i j; rewrite [LHS]mxE.
  under eq_bigr do rewrite mxE.
  have Mk k : (const_mx 1 *m x : 'M_(n.+1, d.+1)) k j = x 0 j by rewrite mxE big_ord1 !mxE mul1r.
  under eq_bigr do rewrite Mk.
  by rewrite Mk sumr_const card_ord -mulr_natl mulrA mulfV ?mul1r // pnatr_eq0.
have [a xa] : exists a, x 0 a != 0.
  by move/matrix0Pn: x0 => [i [a xa]]; exists a; rewrite -(ord1 i).
exists (delta_mx a (0 : 'I_dk.+1)); split; first by rewrite C; exact: is_derive_mulmx.
apply/negP => /eqP /matrixP /(_ 0 0); rewrite !mxE (bigD1 a) //= big1 ?addr0; last first.
  by move=> k ka; rewrite !mxE (negbTE ka) mulr0.
rewrite !mxE !eqxx mulr1 big_ord1 !mxE mul1r => /eqP; exact/negP.
Qed.
End NociValues.
