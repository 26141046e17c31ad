(* Dong et al. (2021), as the explainer states the remedies:
     DONG.pre-ln-variance  "Pre-Layer Normalization and RMSNorm: Normalizing
                           inputs prior to attention blocks ensures input
                           variances do not scale exponentially with depth":
                           with gamma = 1, beta = 0, epsilon = 0 and every
                           c > 0, each row of LN(c X) has mean 0 and variance
                           1 (H1: the row is not constant, var > 0), and each
                           non-zero row of RMSNorm(c X) has mean square 1,
                           whatever the scale c of the stream;
   over a real closed field (sigma = Num.sqrt of the variance, rms = Num.sqrt
   of the mean square), with mean, var, LN of symmetries.v and RMSNorm, rms
   of ln_real.v. *)
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix ssrint rat poly mxpoly mxalgebra fingroup perm zmodp interval.
From CollapseVerify Require Import symmetries ln_sphere ln_real preamble.
Import GRing.Theory Num.Theory.
Local Open Scope ring_scope.

Section PreNormVariance.
Variables (R : rcfType) (n d : nat).
Hypothesis d_gt0 : (0 < d)%N.

Lemma LN_unit_variance_any_scale (x : 'rV[R]_d) (c : R) : 0 < c -> 0 < var x ->
  mean (LN (const_mx 1) 0 (c *: x)) = 0 /\ var (LN (const_mx 1) 0 (c *: x)) = 1.
Proof.
move=> c_gt0 v_gt0.
have d0 : (d%:R : R) != 0 by rewrite pnatr_eq0 -lt0n.
have -> : c *: x = c *: x + 0 *: const_mx 1 by rewrite scale0r addr0.
rewrite LN_shift_scale //.
have [S0 S2] := ln_sphere d_gt0 v_gt0.
have M : mean (LN (const_mx 1) 0 x) = 0.
  rewrite /mean; under eq_bigr do rewrite !mxE mulr1 addr0.
  by rewrite S0 mulr0.
split=> //; rewrite /var M; under eq_bigr do rewrite subr0 !mxE mulr1 addr0.
by rewrite S2 mulVf.
Qed.

Lemma RMSNorm_unit_mean_square_any_scale (X : 'M[R]_(n, d)) (c : R) i : 0 < c -> row i X != 0 ->
  ((d%:R : R)^-1 * \sum_(j < d) (RMSNorm (const_mx 1) (c *: X)) i j ^+ 2)%R = 1.
Proof.
move=> c_gt0 x0.
have d0 : (d%:R : R) != 0 by rewrite pnatr_eq0 -lt0n.
have r_gt0 := rms_gt0 x0.
have Erms : rms (row i (c *: X)) = c * rms (row i X).
  rewrite /rms; under eq_bigr do rewrite !mxE exprMn.
  rewrite -mulr_sumr mulrCA sqrtrM ?sqr_ge0 // sqrtr_sqr ger0_norm; last exact: Order.POrderTheory.ltW.
  by congr (_ * Num.sqrt (_ * _)); apply: eq_bigr => j _; rewrite mxE.
have c0 : c != 0 by rewrite lt0r_neq0.
under eq_bigr do rewrite !mxE mulr1 Erms invfM mulrACA divff // mul1r expr_div_n.
rewrite -mulr_suml.
have E : \sum_(j < d) row i X 0 j ^+ 2 = \sum_(j < d) X i j ^+ 2 by apply: eq_bigr => j _; rewrite mxE.
have s0 : \sum_(j < d) X i j ^+ 2 != 0.
  apply: contraTneq r_gt0 => S; rewrite /rms E S mulr0 sqrtr0.
  by rewrite Order.POrderTheory.ltxx.
rewrite /rms sqr_sqrtr E; last by rewrite mulr_ge0 ?invr_ge0 ?ler0n ?sumr_ge0 // => j _; apply: sqr_ge0.
by rewrite invfM invrK [_ * (d%:R * _)]mulrCA mulKf // mulfV.
Qed.

(* DONG.pre-ln-variance, both normalisations at once: row i of c X, for every
   c > 0, under H1 for that row (var > 0, i.e. the row is not constant; it is
   then non-zero) *)
Lemma pre_norm_unit_variance (X : 'M[R]_(n, d)) (c : R) i : 0 < c -> 0 < var (row i X) ->
  [/\ mean (LN (const_mx 1) 0 (c *: row i X)) = 0, var (LN (const_mx 1) 0 (c *: row i X)) = 1
    & ((d%:R : R)^-1 * \sum_(j < d) (RMSNorm (const_mx 1) (c *: X)) i j ^+ 2)%R = 1].
Proof.
move=> c_gt0 v_gt0.
have x0 : row i X != 0.
  apply: contraTneq v_gt0 => ->.
  have m0 : mean (0 : 'rV[R]_d) = 0 by rewrite /mean big1 ?mulr0 // => j _; rewrite mxE.
  rewrite /var m0 big1 ?mulr0 ?Order.POrderTheory.ltxx // => j _.
  by rewrite mxE subr0 expr0n.
have [M V] := LN_unit_variance_any_scale c_gt0 v_gt0.
by split=> //; apply: RMSNorm_unit_mean_square_any_scale.
Qed.

End PreNormVariance.
