(* Cirrincione (2026), section 4, the steps of the proof of the
   Rank-Neutrality Theorem and the remarks after it, for every n, d, over any
   field (P needs d != 0 in it); notation of rank_neutrality.v:
   X~ = X P, P = I - (1/d) 1 1^T, D = diag(1/sigma), sigma any vector of
   non-zero scalars (H1), arank(M) = rank [M | 1_n] - 1.
     RN.step1          H2 => rows of X P in 1-perp, rank(XP) = rank X,
                       arank(XP) = arank X;
     RN.step1 without-H2   1 in row X => rank(XP) = rank X - 1;
     RN.step3          H3 => arank(M diag(gamma) + 1 beta^T) = arank M;
     RN.step3 without-H3   gamma_1 = 0 => some X loses affine rank;
     RN.H4-unique      arank(D X~) < arank(X~) => sigma in col(X~);
     RN.neither-helps-nor-hinders never-hinders
                       H1-H4 => arank(LN X) >= arank X. *)
From Coq Require Import Lia.
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix ssrint rat poly mxpoly mxalgebra fingroup perm zmodp interval.
From CollapseVerify Require Import rank_neutrality preamble.
Import GRing.Theory.
Local Open Scope ring_scope.

Section Step1.
Variables (F : fieldType) (n d : nat).
Hypothesis d_neq0 : (d%:R : F) != 0.

Local Notation P := (P F d).
Local Notation ones_d := (ones_d F d).

(* P 1_d^T = 0: every row of X P sums to 0 *)
Lemma P_ones : P *m ones_d^T = 0.
Proof.
have J : ones_d *m ones_d^T = (d%:R : F)%:M.
  apply/matrixP => i j; rewrite !ord1 !mxE (eq_bigr (fun=> 1)) ?sumr_const ?card_ord //.
  by move=> k _; rewrite !mxE mulr1.
rewrite /rank_neutrality.P mulmxBl mul1mx -scalemxAl -mulmxA J.
by rewrite mul_mx_scalar scalerA mulVf // scale1r subrr.
Qed.

(* the mean subtraction keeps the column space when it keeps the rank *)
Lemma in_col_centred (X : 'M[F]_(n, d)) (v : 'cV[F]_n) :
  ~~ (ones_d <= X)%MS -> in_col v (X *m P) = in_col v X.
Proof.
move=> H2; rewrite /in_col.
have sub : ((X *m P)^T <= X^T)%MS by rewrite trmx_mul submxMl.
have rk : \rank (X *m P)^T = \rank X^T.
  by rewrite !mxrank_tr -(rank_centred d_neq0 X) (negbTE H2) addn0.
have /eqmxP E : ((X *m P)^T == X^T)%MS by rewrite -(geq_leqif (mxrank_leqif_eq sub)) rk.
by rewrite E.
Qed.

(* RN.step1: "the affine span of {x~_i} is a subset of 1-perp. By H2,
   1 notin rowspace(X), so rank(XP) = rank(X). Hence arank(S~) = arank(S)" *)
Lemma step1_mean_subtraction (X : 'M[F]_(n, d)) :
  ~~ (ones_d <= X)%MS ->
  [/\ (X *m P) *m ones_d^T = 0, \rank (X *m P) = \rank X & arank (X *m P) = arank X].
Proof.
move=> H2; split; first by rewrite -mulmxA P_ones mulmx0.
  by rewrite -(rank_centred d_neq0 X) (negbTE H2) addn0.
rewrite /arank !rank_row_mx_cV; congr (_ + _)%N.-1.
  by rewrite -(rank_centred d_neq0 X) (negbTE H2) addn0.
by rewrite -!/(in_col _ _) in_col_centred.
Qed.

(* RN.step1, reading without-H2: "1 in row X => rank(XP) = rank X - 1" *)
Lemma step1_without_H2 (X : 'M[F]_(n, d)) :
  (ones_d <= X)%MS -> \rank (X *m P) = (\rank X - 1)%N.
Proof. by move=> H2; rewrite -(rank_centred d_neq0 X) H2 addnK. Qed.

End Step1.

Section Step3.
Variables (F : fieldType) (n d : nat).

Local Notation ones_n := (ones_n F n).

(* D 1_n = I: a row scaling by 1 *)
Lemma D_ones : D (ones_n) = 1%:M.
Proof.
by apply/matrixP => i j; rewrite !mxE invr1; case: (i == j); rewrite ?mulr1n ?mulr0n.
Qed.

(* RN.step3: "(3a) Right-multiplication by diag(gamma) is an invertible linear
   map (gamma_j != 0 by H3), hence preserves affine rank ... (3b) Adding the
   constant beta translates all points equally":
   H3 => arank(M diag(gamma) + 1 beta^T) = arank(M), for every M and beta *)
Lemma step3_affine_rescaling (M : 'M[F]_(n, d)) (gamma beta : 'rV[F]_d) :
  (forall j, gamma 0 j != 0) -> arank (M *m diag_mx gamma + ones_n *m beta) = arank M.
Proof.
move=> H3; rewrite /arank.
have := @rank_scaled_adjoin F n d ones_n (diag_mx gamma) beta M.
rewrite D_ones mul1mx => -> //; last exact: H3_diag_unit.
by move=> i; rewrite mxE oner_neq0.
Qed.

(* RN.step3, reading without-H3: "exists X: gamma_1 = 0 => arank(X diag
   gamma) < arank X": for n >= 2, d >= 1 and every gamma with gamma_1 = 0
   there is such an X (x_2 = e_1, every other row 0) *)
Lemma step3_without_H3 (gamma : 'rV[F]_d) (n_ge2 : (1 < n)%N) (d_gt0 : (0 < d)%N) :
  gamma 0 (Ordinal d_gt0) = 0 ->
  exists X : 'M[F]_(n, d), (arank (X *m diag_mx gamma) < arank X)%N.
Proof.
move=> g0; set i1 := Ordinal n_ge2; set j0 := Ordinal d_gt0.
have n_gt0 : (0 < n)%N by apply: ltnW.
pose X : 'M[F]_(n, d) := \matrix_(i, j) ((i == i1) && (j == j0))%:R.
exists X.
have -> : X *m diag_mx gamma = 0.
  apply/matrixP => i j; rewrite mul_mx_diag !mxE.
  by case: (j =P j0) => [->|_]; rewrite ?g0 ?mulr0 // andbF mul0r.
have rk0 : arank (0 : 'M[F]_(n, d)) = 0%N.
  apply: succn_inj; rewrite arank_succ // rank_row_mx_cV mxrank0 /= add0n.
  suff -> : ((ones_n)^T <= (0 : 'M[F]_(n, d))^T)%MS = false by [].
  apply/negbTE/negP => /submxP[c]; rewrite trmx0 mulmx0 => /matrixP/(_ 0 (Ordinal n_gt0)).
  by rewrite !mxE => /eqP; rewrite oner_eq0.
rewrite rk0 -ltnS arank_succ // rank_row_mx_cV.
have rX : \rank X = 1%N.
  apply/eqP; rewrite eqn_leq; apply/andP; split.
    have -> : X = delta_mx i1 j0 by apply/matrixP => i j; rewrite !mxE.
    by rewrite mxrank_delta.
  rewrite lt0n mxrank_eq0; apply/eqP => /matrixP/(_ i1 j0).
  by rewrite !mxE !eqxx; apply/eqP; rewrite oner_neq0.
suff -> : ((ones_n)^T <= X^T)%MS = false by rewrite rX.
apply/negbTE/negP => /submxP[c /matrixP/(_ 0 (Ordinal n_gt0))].
rewrite !mxE (eq_bigr (fun=> 0)) ?big1_eq => [|k _]; first by move/eqP; rewrite oner_eq0.
rewrite !mxE; have -> : (Ordinal n_gt0 == i1) = false by [].
by rewrite mulr0.
Qed.

End Step3.

Section AfterTheorem.
Variables (F : fieldType) (n d : nat).
Hypothesis d_neq0 : (d%:R : F) != 0.

(* RN.H4-unique: "This is the unique situation in which row-wise radial
   rescaling can collapse an affine independence relation":
   H1, arank(D X~) < arank(X~) => sigma in col(X~), for every X~ *)
Lemma H4_unique (sigma : 'cV[F]_n) (Xt : 'M[F]_(n, d)) :
  (0 < n)%N -> (forall i, sigma i 0 != 0) ->
  (arank (D sigma *m Xt) < arank Xt)%N -> in_col sigma Xt.
Proof.
move=> n_gt0 H1 /ltP drop; have := arank_row_scaling Xt n_gt0 H1.
by case: (in_col sigma Xt); case: (in_col (ones_n F n) Xt) => //= E; rewrite -!plusE in E; lia.
Qed.

(* RN.neither-helps-nor-hinders, reading never-hinders:
   "H1-H4 => arank(LN(X)) >= arank(X)" *)
Lemma arank_LN_never_hinders (sigma : 'cV[F]_n) (Gamma : 'M[F]_d) (beta : 'rV[F]_d)
    (X : 'M[F]_(n, d)) :
  (0 < n)%N -> (forall i, sigma i 0 != 0) -> ~~ (ones_d F d <= X)%MS ->
  Gamma \in unitmx -> ~~ in_col sigma (X *m P F d) ->
  (arank X <= arank (rank_neutrality.LN sigma Gamma beta X))%N.
Proof.
move=> n_gt0 H1 H2 H3 H4.
have := arank_LN_characterisation d_neq0 beta X n_gt0 H1 H3.
rewrite (negbTE H2) H4 addn0 addn1.
by case: (in_col (ones_n F n) X) => /= E; apply/leP; rewrite -!plusE in E; lia.
Qed.

End AfterTheorem.
