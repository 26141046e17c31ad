(* LayerNorm and RMSNorm with the paper's sigma: the row standard deviation
   sigma_i = Num.sqrt(var(x_i)) over a real closed field (rank_neutrality.v
   abstracts sigma to any vector of non-zero scalars; here it is the real
   thing, and H1 is sigma_i > 0, i.e. var(x_i) > 0).
     LN_std_row            the matrix form D X P diag(gamma) + 1 beta^T with
                           sigma = sqrt(var) is, row by row, the LayerNorm
                           (x - mean x) / sqrt(var x) (.) gamma + beta of
                           symmetries.v;
     RN.exceeds-by-at-most-one   H1 => rank LN(X) <= rank X + 1;
     USER.rmsnorm-matrix-rank    rows non-zero, gamma_j != 0 =>
                           rank RMSNorm(X) = rank X, RMSNorm(x) =
                           x / rms(x) (.) gamma, rms(x) = sqrt(mean(x^2)). *)
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix ssrint rat poly mxpoly mxalgebra fingroup perm zmodp interval.
From CollapseVerify Require Import symmetries rank_neutrality preamble.
Import GRing.Theory Num.Theory.
Local Open Scope ring_scope.

Section RealLayerNorm.
Variables (R : rcfType) (n d : nat).

(* sigma_i = sqrt(var(x_i)), the standard deviation of row i *)
Definition sigma_std (X : 'M[R]_(n, d)) : 'cV[R]_n := \col_i Num.sqrt (var (row i X)).

(* LN(X) = D X P diag(gamma) + 1 beta^T with D = diag(1 / sigma_std X) *)
Definition LN_std (gamma beta : 'rV[R]_d) (X : 'M[R]_(n, d)) : 'M[R]_(n, d) :=
  rank_neutrality.LN (sigma_std X) (diag_mx gamma) beta X.

(* X P is X with each row's mean subtracted *)
Lemma centred_entry (X : 'M[R]_(n, d)) i j : (X *m P R d) i j = X i j - mean (row i X).
Proof.
rewrite /rank_neutrality.P mulmxBr mulmx1 -scalemxAr !mxE /mean; congr (_ - _).
congr (_ * _); apply: eq_bigr => k _.
by rewrite !mxE big_ord1 !mxE !mulr1.
Qed.

(* the matrix form is the paper's row-wise LayerNorm *)
Lemma LN_std_row (gamma beta : 'rV[R]_d) (X : 'M[R]_(n, d)) i :
  row i (LN_std gamma beta X) = symmetries.LN gamma beta (row i X).
Proof.
apply/rowP => j; rewrite /LN_std /rank_neutrality.LN mxE [in LHS]mxE mul_mx_diag mul_diag_mx.
rewrite [in X in X + _]mxE [in X in X * _]mxE [in X in X * _ * _]mxE centred_entry.
rewrite /symmetries.LN [in RHS]mxE [in X in _ + X]mxE big_ord1 !mxE mul1r.
by rewrite [_^-1 * _]mulrC.
Qed.

(* H1 as the paper states it, sigma_i > 0, gives the abstract H1 sigma_i != 0 *)
Lemma sigma_std_H1 (X : 'M[R]_(n, d)) :
  (forall i, 0 < var (row i X)) -> forall i, sigma_std X i 0 != 0.
Proof. by move=> v i; rewrite mxE lt0r_neq0 // sqrtr_gt0. Qed.

(* RN.exceeds-by-at-most-one: "The matrix rank rank(LN(X)) can exceed rank(X)
   by at most one", H1 => rank(LN X) <= rank X + 1 for every gamma, beta *)
Lemma rank_LN_std_le (gamma beta : 'rV[R]_d) (X : 'M[R]_(n, d)) :
  (forall i, 0 < var (row i X)) -> (\rank (LN_std gamma beta X) <= \rank X + 1)%N.
Proof. by move=> _; apply: rank_LN_le_rank_succ. Qed.

(* ------------------------------------------------------------------ *)
(* RMSNorm with epsilon = 0 *)
Definition rms (x : 'rV[R]_d) : R := Num.sqrt ((d%:R)^-1 * \sum_(j < d) x 0 j ^+ 2).

Definition RMSNorm (gamma : 'rV[R]_d) (X : 'M[R]_(n, d)) : 'M[R]_(n, d) :=
  \matrix_(i, j) (X i j / rms (row i X) * gamma 0 j).

Lemma rms_gt0 (x : 'rV[R]_d) : x != 0 -> 0 < rms x.
Proof.
move=> x0; rewrite sqrtr_gt0.
have d_gt0 : (0 < d)%N.
  rewrite lt0n; apply: contraNneq x0 => d0; apply/eqP/rowP => j.
  by have := ltn_ord j; rewrite {2}d0.
rewrite mulr_gt0 ?invr_gt0 ?ltr0n // Order.POrderTheory.lt_def sumr_ge0 ?andbT => [|j _]; last exact: sqr_ge0.
apply: contraNneq x0 => /psumr_eq0P S; apply/eqP/rowP => j; rewrite mxE.
by apply/eqP; rewrite -sqrf_eq0; apply/eqP/S => // k _; apply: sqr_ge0.
Qed.

(* USER.rmsnorm-matrix-rank: "RMSNorm x -> x / rms(x) * gamma (epsilon = 0)
   preserves the matrix rank of X when every row is non-zero and gamma has no
   zero entry" *)
Lemma RMSNorm_rank (gamma : 'rV[R]_d) (X : 'M[R]_(n, d)) :
  (forall i, row i X != 0) -> (forall j, gamma 0 j != 0) -> \rank (RMSNorm gamma X) = \rank X.
Proof.
move=> rows0 g0.
have -> : RMSNorm gamma X = diag_mx (\row_i (rms (row i X))^-1) *m X *m diag_mx gamma.
  by apply/matrixP => i j; rewrite mul_mx_diag mul_diag_mx !mxE [_^-1 * _]mulrC.
rewrite mxrank_unitr ?H3_diag_unit // mxrank_unitl //.
rewrite unitmxE det_diag unitfE; apply/prodf_neq0 => i _.
by rewrite mxE invr_eq0 lt0r_neq0 // rms_gt0.
Qed.

End RealLayerNorm.
