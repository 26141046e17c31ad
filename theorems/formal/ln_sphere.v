(* USER.ln-sphere (a conjecture added through the suite's public API):
   "after centring and row scaling, LayerNorm puts every token on the sphere
   of radius sqrt(d) in 1-perp": for x_hat = (x - mean(x) 1) / sigma with
   sigma = sqrt(var(x)) > 0 (H1),
     1^T x_hat = 0   and   ||x_hat||^2 = d,
   over a real closed field.  mean and var are those of symmetries.v. *)
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix ssrint rat poly mxpoly mxalgebra fingroup perm zmodp interval.
From CollapseVerify Require Import symmetries preamble.
Import GRing.Theory Num.Theory.
Local Open Scope ring_scope.

Section LNSphere.
Variables (R : rcfType) (d : nat).
Hypothesis d_gt0 : (0 < d)%N.

(* "1^T x_hat = 0": the centred row sums to 0 *)
Lemma centred_sum_zero (x : 'rV[R]_d) : \sum_(j < d) (x 0 j - mean x) = 0.
Proof.
have d0 : (d%:R : R) != 0 by rewrite pnatr_eq0 -lt0n.
rewrite sumrB sumr_const card_ord /mean -[_ *+ d]mulr_natr.
by rewrite mulrC mulrA mulfV // mul1r subrr.
Qed.

(* "sigma_i > 0 => 1^T x_hat_i = 0 and ||x_hat_i||^2 = d" *)
Lemma ln_sphere (x : 'rV[R]_d) : 0 < var x ->
  \sum_(j < d) (x 0 j - mean x) / Num.sqrt (var x) = 0
  /\ \sum_(j < d) ((x 0 j - mean x) / Num.sqrt (var x)) ^+ 2 = d%:R.
Proof.
move=> v_gt0; split; first by rewrite -mulr_suml centred_sum_zero mul0r.
have d0 : (d%:R : R) != 0 by rewrite pnatr_eq0 -lt0n.
under eq_bigr do rewrite expr_div_n sqr_sqrtr ?Order.POrderTheory.ltW //.
rewrite -mulr_suml.
have T : \sum_(j < d) (x 0 j - mean x) ^+ 2 = d%:R * var x.
  by rewrite /var mulrA mulfV // mul1r.
by rewrite T mulfK // lt0r_neq0.
Qed.

End LNSphere.
