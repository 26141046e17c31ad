(* Limits of softmax over the real numbers (MathComp-Analysis's expR).
     DONG.zero-logit-uniform: "in the zero-logit limit the softmax output P
     approaches the uniform matrix (1/m) 1 1^T": for every real score matrix
     S (n x m), every entry of softmax(t S) tends to 1/m as t -> 0; the
     convergence is entrywise (the matrices' topology is the product one). *)
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix ssrint rat poly mxpoly mxalgebra fingroup perm zmodp interval.
From mathcomp.classical Require Import boolp classical_sets.
From mathcomp.analysis Require Import reals topology normedtype sequences exp.
From CollapseVerify Require Import dong_collapse softmax_real preamble.
Import GRing.Theory Num.Theory numFieldTopology.Exports numFieldNormedType.Exports.
Local Open Scope ring_scope.
Local Open Scope classical_set_scope.

Section SoftmaxLimits.
Variable R : realType.

(* a finite sum of convergent functions converges to the sum of the limits *)
Lemma cvg_bigsumR (I : Type) (r : seq I) (f : I -> R -> R) (a : I -> R) (x : R) :
  (forall i, f i @ x --> a i) -> (fun t => \sum_(i <- r) f i t) @ x --> \sum_(i <- r) a i.
Proof.
move=> H; elim: r => [|k r IH].
  have -> : (fun t => \sum_(i <- [::]) f i t) = fun=> 0 by apply: funext => t; rewrite big_nil.
  by rewrite big_nil; exact: (@cst_continuous R R 0 x).
have -> : (fun t => \sum_(i <- k :: r) f i t) = fun t => f k t + \sum_(i <- r) f i t.
  by apply: funext => t; rewrite big_cons.
by rewrite big_cons; exact: (cvgD (H k) IH).
Qed.

Lemma expR_scaled_to1 (c : R) : (fun t : R => expR (t * c)) @ (0 : R) --> (1 : R).
Proof.
have := cvg_comp (cvgMl (b := c) (@cvg_id _ (nbhs (0 : R)))) (@continuous_expR R (0 * c)).
rewrite mul0r expR0 => H; apply: H; first [typeclasses eauto | exact: nbhs_filter].
Qed.

(* DONG.zero-logit-uniform: softmax(t S)_ij -> 1/m as t -> 0 *)
Lemma softmaxR_zero_logit_uniform n m (S : 'M[R]_(n, m)) (i : 'I_n) (j : 'I_m) :
  (fun t : R => softmaxR (t *: S) i j) @ (0 : R) --> (m%:R)^-1.
Proof.
have m0 : (0 < m)%N by apply: leq_ltn_trans (leq0n j) (ltn_ord j).
have -> : (fun t => softmaxR (t *: S) i j) =
          fun t => expR (t * S i j) * (\sum_(k < m) expR (t * S i k))^-1.
  apply: funext => t; rewrite /softmaxR /softmax mxE mxE.
  by congr (_ / _); apply: eq_bigr => k _; rewrite mxE.
have sum1 : \sum_(k < m) (1 : R) = m%:R by rewrite sumr_const card_ord.
have mR : (m%:R : R) != 0 by rewrite pnatr_eq0 -lt0n.
have s0 : \sum_(k < m) (1 : R) != 0 by rewrite sum1.
have Hd := @cvg_bigsumR _ (index_enum (ordinal_finType m)) _ _ 0 (fun k => expR_scaled_to1 (S i k)).
rewrite -[X in _ --> X]mul1r -sum1.
exact: (cvgM (expR_scaled_to1 (S i j)) (cvgV s0 Hd)).
Qed.

End SoftmaxLimits.
