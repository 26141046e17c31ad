(* Dong et al. (2021), as the explainer states it: the solution of the cubic
   recurrence, the max-norm contraction of a row-stochastic matrix and the
   rank of one layer of uniform attention.
     DONG.cubic-solution   r_(l+1) <= C r_l^3 (C > 0, r_l >= 0 as norms are)
                           => r_l <= C^(-1/2) (sqrt C r_0)^(3^l), by induction
                           over a real closed field (Num.sqrt);
     DONG.non-expansive max-norm   P row-stochastic => ||P D||_max <=
                           ||D||_max (every bound on the entries of D bounds
                           those of P D);
     DONG.setup-stochastic-product uniform-attention
                           A = J / n => rank(sum_h A X W_h) <= 1. *)
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix ssrint rat poly mxpoly mxalgebra fingroup perm zmodp interval.
From CollapseVerify Require Import preamble.
Import GRing.Theory Num.Theory.
Local Open Scope ring_scope.

Section Cubic.
Variables (R : rcfType) (C : R) (r : nat -> R).
Hypothesis C_gt0 : 0 < C.
Hypothesis r_ge0 : forall l, 0 <= r l.
Hypothesis cubic : forall l, r l.+1 <= C * r l ^+ 3.

(* DONG.cubic-solution: "Solving this cubic recurrence demonstrates that the
   residual norm decays according to ||R^(l)|| <= (1/sqrt C) (sqrt C ||R^(0)||)^(3^l)" *)
Lemma cubic_solution l : r l <= (Num.sqrt C)^-1 * (Num.sqrt C * r 0) ^+ (3 ^ l).
Proof.
have sC : 0 < Num.sqrt C by rewrite sqrtr_gt0.
rewrite -(ler_pmul2l sC) mulrA divff ?lt0r_neq0 // mul1r.
elim: l => [|l IH]; first by rewrite expn0 expr1.
apply: Order.POrderTheory.le_trans (_ : Num.sqrt C * (C * r l ^+ 3) <= _).
  by rewrite ler_pmul2l.
have -> : Num.sqrt C * (C * r l ^+ 3) = (Num.sqrt C * r l) ^+ 3.
  have eC : C = Num.sqrt C ^+ 2 by rewrite sqr_sqrtr // Order.POrderTheory.ltW.
  by rewrite exprMn mulrA {2}eC -exprS.
rewrite expnSr exprM; apply: ler_expn2r; rewrite ?nnegrE ?mulr_ge0 ?exprn_ge0 ?sqrtr_ge0 //.
by rewrite mulr_ge0 ?sqrtr_ge0.
Qed.

End Cubic.

Section RowStochasticContraction.
Variables (R : numFieldType) (n m : nat).
Variables (P : 'M[R]_n) (D : 'M[R]_(n, m)).
Hypothesis P_ge0 : forall i j, 0 <= P i j.
Hypothesis P_rows : forall i, \sum_(j < n) P i j = 1.

(* DONG.non-expansive, reading max-norm: "||P D||_max <= ||D||_max": whatever
   bound b the entries of D obey, the entries of P D obey it too *)
Lemma row_stochastic_max_norm (b : R) :
  (forall j k, `|D j k| <= b) -> forall i k, `|(P *m D) i k| <= b.
Proof.
move=> bD i k; rewrite mxE; apply: Order.POrderTheory.le_trans (ler_norm_sum _ _ _) _.
apply: Order.POrderTheory.le_trans (_ : \sum_(j < n) P i j * b <= _); last by rewrite -mulr_suml P_rows mul1r.
by apply: ler_sum => j _; rewrite normrM ger0_norm // ler_wpmul2l.
Qed.

End RowStochasticContraction.

(* DONG.setup-stochastic-product, reading uniform-attention:
   "A = J/n: rank(A X W) <= 1 after one layer", with H heads summed *)
Lemma uniform_attention_rank_one (F : fieldType) (n d H : nat) (X : 'M[F]_(n, d))
    (W : 'I_H -> 'M[F]_d) :
  (\rank (\sum_(h < H) ((n%:R)^-1 *: const_mx 1 : 'M[F]_n) *m X *m W h)%R <= 1)%N.
Proof.
have J : (const_mx (1 : F) : 'M[F]_n) = (const_mx (1 : F) : 'cV[F]_n) *m (const_mx (1 : F) : 'rV[F]_n).
  by apply/matrixP => i j; rewrite !mxE big_ord1 !mxE mulr1.
have -> : \sum_(h < H) ((n%:R)^-1 *: const_mx (1 : F) : 'M[F]_n) *m X *m W h
          = (const_mx (1 : F) : 'cV[F]_n) *m \sum_(h < H) (((n%:R)^-1 *: (const_mx (1 : F) : 'rV[F]_n)) *m X *m W h).
  by rewrite mulmx_sumr; apply: eq_bigr => h _; rewrite J -!scalemxAl -scalemxAr !mulmxA.
exact: leq_trans (mxrankM_maxl _ _) (rank_leq_col _).
Qed.

(* DONG.markov-geometric, reading two-by-two: "n = 2: the bound holds with
   equality": for every 2 x 2 row-stochastic P = [[1 - a, a], [b, 1 - b]]
   with a + b != 0, stationary row pi = (b, a) / (a + b), subdominant
   eigenvalue lambda = 1 - a - b and every X0 (2 x m), x^T = pi^T X0:
     P^l X0 - 1 x^T = lambda^l (X0 - 1 x^T),
   so ||P^l X0 - 1 x^T||_F^2 = lambda^(2l) ||X0 - 1 x^T||_F^2 for every l. *)
Section TwoByTwoMarkov.
Variables (F : fieldType) (a b : F).
Hypothesis s0 : a + b != 0.

Definition P2 : 'M[F]_2 :=
  \matrix_(i, j) (if i == 0%N :> nat then (if j == 0%N :> nat then 1 - a else a)
                  else (if j == 0%N :> nat then b else 1 - b)).
Definition pi2 : 'rV[F]_2 := (a + b)^-1 *: \row_j (if j == 0%N :> nat then b else a).
Definition lambda2 : F := 1 - a - b.
(* C = 1 pi^T: every row is the stationary row *)
Definition C2 : 'M[F]_2 := const_mx 1 *m pi2.

Lemma ord2 (i : 'I_2) : i = ord0 \/ i = ord_max.
Proof. by case: i => [[|[|]]] // ?; [left | right]; apply/val_inj. Qed.

Lemma sum2 (f : 'I_2 -> F) : \sum_(j < 2) f j = f ord0 + f ord_max.
Proof. by rewrite big_ord_recl big_ord1; congr (_ + f _); apply/val_inj. Qed.

Lemma ord0_is0 : ((ord0 : 'I_2) == 0%N :> nat) = true. Proof. by []. Qed.
Lemma ordmax_isn0 : ((ord_max : 'I_2) == 0%N :> nat) = false. Proof. by []. Qed.

Lemma P2_ones : P2 *m const_mx 1 = const_mx 1 :> 'cV_2.
Proof.
apply/matrixP => i j; rewrite !mxE sum2 !mxE !mulr1 ord0_is0 ordmax_isn0.
by case: (ord2 i) => ->; rewrite ?ord0_is0 ?ordmax_isn0; [rewrite subrK | rewrite addrC subrK].
Qed.

Lemma pi2_ones : pi2 *m const_mx 1 = 1 :> 'M_1.
Proof.
apply/matrixP => i j; rewrite !ord1 !mxE sum2 !mxE !mulr1 ord0_is0 ordmax_isn0.
by rewrite -mulrDr [b + a]addrC mulVf.
Qed.

Lemma P2_C2 : P2 *m C2 = C2.
Proof. by rewrite /C2 mulmxA P2_ones. Qed.

Lemma C2_C2 : C2 *m C2 = C2.
Proof. by rewrite /C2 mulmxA -[_ *m pi2 *m _]mulmxA pi2_ones mulmx1. Qed.

(* P = lambda I + C (a + b), the whole spectral fact *)
Lemma P2_split : P2 = lambda2 *: 1%:M + (a + b) *: C2.
Proof.
apply/matrixP => i j; rewrite /C2 /pi2 -scalemxAr scalerA divff // scale1r !mxE big_ord1 !mxE mul1r.
rewrite /lambda2; case: (ord2 i) => ->; case: (ord2 j) => ->;
  rewrite ?ord0_is0 ?ordmax_isn0 ?eqxx ?mulr1 ?mulr0 ?add0r ?addr0 //=.
  by rewrite subrK.
by rewrite addrAC subrK.
Qed.

Lemma P2_contracts : P2 *m (1%:M - C2) = lambda2 *: (1%:M - C2).
Proof.
rewrite {1}P2_split mulmxDl -!scalemxAl mul1mx mulmxBr mulmx1 C2_C2 subrr scaler0 addr0.
by [].
Qed.

Lemma markov_two_by_two m (X0 : 'M[F]_(2, m)) l :
  P2 ^+ l *m X0 - C2 *m X0 = lambda2 ^+ l *: (X0 - C2 *m X0).
Proof.
have PC k : P2 ^+ k *m C2 = C2.
  by elim: k => [|k IH]; rewrite ?expr0 ?mul1mx // exprS -mulmxA IH P2_C2.
have PQ k : P2 ^+ k *m (1%:M - C2) = lambda2 ^+ k *: (1%:M - C2).
  elim: k => [|k IH]; first by rewrite expr0 mul1mx scale1r.
  by rewrite exprS -mulmxA IH -scalemxAr P2_contracts scalerA -exprSr.
have -> : X0 - C2 *m X0 = (1%:M - C2) *m X0 by rewrite mulmxBl mul1mx.
by rewrite scalemxAl -PQ mulmxBr mulmx1 PC mulmxBl.
Qed.

End TwoByTwoMarkov.

Section TwoByTwoNorm.
Variables (R : rcfType) (a b : R).
Hypothesis s0 : a + b != 0.

Definition frob2_rect m k (M : 'M[R]_(m, k)) : R := \sum_i \sum_j M i j ^+ 2.

Lemma markov_two_by_two_equality k (X0 : 'M[R]_(2, k)) l :
  frob2_rect (P2 a b ^+ l *m X0 - C2 a b *m X0)
  = lambda2 a b ^+ (2 * l) * frob2_rect (X0 - C2 a b *m X0).
Proof.
rewrite markov_two_by_two // /frob2_rect mulr_sumr; apply: eq_bigr => i _.
rewrite mulr_sumr; apply: eq_bigr => j _; rewrite mxE exprMn -exprM mulnC.
by [].
Qed.

End TwoByTwoNorm.

(* DONG.convex-combination: "When X is multiplied on the left by a
   row-stochastic matrix P, the i-th row of the resulting matrix is a convex
   combination (weighted average) of all row vectors in X": row i of P X is
   sum_j P_ij X_j, with weights P_ij >= 0 summing to 1 *)
Section ConvexCombination.
Variables (R : numDomainType) (n d : nat).

Lemma row_stochastic_convex_combination (P : 'M[R]_n) (X : 'M[R]_(n, d)) :
  (forall i j, 0 <= P i j) -> (forall i, \sum_(j < n) P i j = 1) ->
  forall i, row i (P *m X) = \sum_(j < n) P i j *: row j X
            /\ (forall j, 0 <= P i j) /\ \sum_(j < n) P i j = 1.
Proof.
move=> P_ge0 P_rows i; split; last by split.
by rewrite row_mul mulmx_sum_row; apply: eq_bigr => j _; rewrite mxE.
Qed.

End ConvexCombination.

(* DONG.skip-lower-bound: "||R^(l)||_F >= (1 - gamma)^l ||R^(0)||_F > 0 where
   gamma < 1 is an upper bound on the contraction introduced by attention":
   with a skip connection the residual obeys R^(l+1) = R^(l) + a_l (a_l the
   residual of the attention branch, R linear); if ||a_l|| <= gamma ||R^(l)||
   at every layer, the reverse triangle inequality gives the bound, in any
   normed Z-module (the Frobenius norm among them). *)
Section SkipLowerBound.
Variables (R : numDomainType) (V : normedZmodType R) (g : R) (r a : nat -> V).
Hypothesis g_le1 : g <= 1.
Hypothesis skip_step : forall l, r l.+1 = r l + a l.
Hypothesis contraction : forall l, `|a l| <= g * `|r l|.

Lemma skip_lower_bound l : (1 - g) ^+ l * `|r 0| <= `|r l|.
Proof.
have g1 : 0 <= 1 - g by rewrite subr_ge0.
elim: l => [|l IH]; first by rewrite expr0 mul1r.
rewrite exprS -mulrA skip_step.
apply: Order.POrderTheory.le_trans (_ : (1 - g) * `|r l| <= _); first by rewrite ler_wpmul2l.
apply: Order.POrderTheory.le_trans (ler_sub_norm_add _ _).
by rewrite mulrBl mul1r ler_sub.
Qed.

Lemma skip_lower_bound_pos l : g < 1 -> r 0 != 0 -> 0 < `|r l|.
Proof.
move=> g1 r0; apply: Order.POrderTheory.lt_le_trans (skip_lower_bound l).
by rewrite mulr_gt0 ?normr_gt0 // exprn_gt0 // subr_gt0.
Qed.

End SkipLowerBound.
