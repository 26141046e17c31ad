(* The large-logit limit of softmax over the real numbers (MathComp-
   Analysis's expR, t -> +oo along the reals).
     DONG.one-hot-softmax: for logits z (a row of m reals) with a unique
     maximum z_k, every entry of softmax(t z) tends to the entry of the
     indicator e_k as t -> +oo (entrywise; the matrices' topology is the
     product one).  The proof: softmax(t z)_j = expR(t (z_j - z_k)) /
     sum_l expR(t (z_l - z_k)); for c < 0, expR(t c) -> 0 because
     1 / expR(t c) = expR(t (-c)) >= 1 + t (-c) (expR_ge1Dx) grows without
     bound (MathComp-Analysis's cvgrVy).
   MathComp-Analysis rests on three classical axioms (propositional and
   functional extensionality, constructive indefinite description). *)
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix ssrint rat poly mxpoly mxalgebra fingroup perm zmodp interval.
From mathcomp.classical Require Import mathcomp_extra boolp classical_sets functions.
From mathcomp.analysis Require Import reals topology normedtype sequences exp.
From CollapseVerify Require Import dong_collapse softmax_real preamble.
Import GRing.Theory Num.Theory Order.POrderTheory numFieldTopology.Exports numFieldNormedType.Exports.
Local Open Scope ring_scope.
Local Open Scope classical_set_scope.

Section OneHot.
Variable R : realType.

(* expR (t c) tends to +oo as t -> +oo, for c > 0 *)
Lemma expR_scaled_toy (c : R) : 0 < c -> (fun t : R => expR (t * c)) @ +oo --> +oo.
Proof.
move=> c0; apply/cvgryPge => A; exists (`|A| / c); split; first exact: num_real.
move=> t At; have t0 : 0 <= t by apply: le_trans (ltW At); rewrite divr_ge0 ?normr_ge0 ?ltW.
apply: le_trans (expR_ge1Dx (mulr_ge0 t0 (ltW c0))).
move: At; rewrite ltr_pdivr_mulr // => At.
apply: le_trans (ler_norm A) _; apply: ltW; apply: lt_trans At _.
by rewrite ltr_addr ltr01.
Qed.

(* expR (t c) tends to 0 as t -> +oo, for c < 0 *)
Lemma expR_scaled_to0 (c : R) : c < 0 -> (fun t : R => expR (t * c)) @ +oo --> (0 : R).
Proof.
move=> c0.
have H : \forall t \near +oo_R, 0 < expR (t * c) by apply: nearW => t; apply: expR_gt0.
apply: (cvgrVy H).1.
have -> : (fun t : R => expR (t * c))\^-1 = fun t => expR (t * - c).
  by apply: funext => t /=; rewrite mulrN expRN.
by apply: expR_scaled_toy; rewrite oppr_gt0.
Qed.

(* a finite sum of functions converging at +oo converges to the sum of the limits *)
Lemma cvg_bigsum_pinfty (I : Type) (r : seq I) (f : I -> R -> R) (a : I -> R) :
  (forall i, f i @ +oo --> a i) -> (fun t => \sum_(i <- r) f i t) @ +oo --> \sum_(i <- r) a i.
Proof.
move=> H; elim: r => [|k r IH].
  have -> : (fun t => \sum_(i <- [::]) f i t) = fun=> 0 by apply: funext => t; rewrite big_nil.
  by rewrite big_nil; exact: cvg_cst.
have -> : (fun t => \sum_(i <- k :: r) f i t) = fun t => f k t + \sum_(i <- r) f i t.
  by apply: funext => t; rewrite big_cons.
by rewrite big_cons; exact: (cvgD (H k) IH).
Qed.

(* DONG.one-hot-softmax: for logits z with a unique maximum z_k, every entry
   of softmax(t z) tends, as t -> +oo, to the entry of e_k *)
Lemma softmaxR_one_hot m (z : 'rV[R]_m) (k : 'I_m) :
  (forall j, j != k -> z 0 j < z 0 k) ->
  forall j, (fun t : R => softmaxR (t *: z) 0 j) @ +oo --> ((j == k)%:R : R).
Proof.
move=> zk.
have num l : (fun t : R => expR (t * (z 0 l - z 0 k))) @ +oo --> ((l == k)%:R : R).
  case: (eqVneq l k) => [->|lk].
    rewrite subrr ?eqxx; have -> : (fun t : R => expR (t * 0)) = fun=> 1.
      by apply: funext => t; rewrite mulr0 expR0.
    exact: cvg_cst.
  by apply: expR_scaled_to0; rewrite subr_lt0; exact: zk.
have den : (fun t : R => \sum_(l < m) expR (t * (z 0 l - z 0 k))) @ +oo --> (1 : R).
  have -> : (1 : R) = \sum_(l < m) (l == k)%:R.
    by rewrite (bigD1 k) //= eqxx big1 ?addr0 // => l /negbTE ->.
  exact: cvg_bigsum_pinfty.
move=> j.
have -> : (fun t : R => softmaxR (t *: z) 0 j) =
          fun t => expR (t * (z 0 j - z 0 k)) * (\sum_(l < m) expR (t * (z 0 l - z 0 k)))^-1.
  apply: funext => t; rewrite /softmaxR /softmax mxE mxE.
  under eq_bigr do rewrite mxE.
  under [in RHS]eq_bigr do rewrite mulrBr expRD.
  rewrite mulrBr expRD -mulr_suml invfM mulrACA divff ?mulr1 //.
  by apply: lt0r_neq0; apply: expR_gt0.
rewrite -[X in _ --> X]mulr1 -[X in _ * X]invr1.
exact: (cvgM (num j) (cvgV (oner_neq0 R) den)).
Qed.
End OneHot.
