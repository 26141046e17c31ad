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
From mathcomp Require Import all_ssreflect all_algebra.
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
