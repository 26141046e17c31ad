(* Identities of sums for the Dong explainer, for every size, over any
   numeric field (MathComp's numFieldType, characteristic 0); no axioms.
     DONG.residual-variance: with R = X - (1/n) 1 1^T X (n >= 1 tokens, d
     features), ||R||_F^2 = n tr Cov(X) (the population covariance) and
     n tr Cov(X) = (1/n) sum_{i<k} ||x_i - x_k||^2.
   The pair sum is reduced to the full double sum by its symmetry
   (sum_pairs_sym: sum_{i,k} f = 2 sum_{i<k} f for a symmetric f with zero
   diagonal), one column at a time (column_variance_pairs). *)
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix.
From CollapseVerify Require Import preamble.
Import GRing.Theory Num.Theory.
Local Open Scope ring_scope.

Section Variance.
Variable R : numFieldType.

Lemma sum_pairs_sym n (f : 'I_n -> 'I_n -> R) :
  (forall i k, f i k = f k i) -> (forall i, f i i = 0) ->
  \sum_(i < n) \sum_(k < n) f i k = 2%:R * \sum_(i < n) \sum_(k < n | (i < k)%N) f i k.
Proof.
move=> fs f0.
have E : \sum_(i < n) \sum_(k < n) f i k =
   \sum_(i < n) \sum_(k < n) ((if (i < k)%N then f i k else 0) + (if (k < i)%N then f i k else 0)).
  apply: eq_bigr => i _; apply: eq_bigr => k _.
  case: ltngtP => [_|_|ik]; rewrite ?addr0 ?add0r //.
  by have -> : k = i by apply: val_inj.
rewrite E; under eq_bigr do rewrite big_split /=; rewrite big_split /=.
rewrite [X in _ + X]exchange_big /=.
under [X in _ + X]eq_bigr do under eq_bigr do rewrite fs.
rewrite mulr_natl mulr2n; congr (_ + _); apply: eq_bigr => i _; by rewrite [RHS]big_mkcond. Qed.

(* one column: sum_i (a_i - mean a)^2 = n^-1 sum_{i<k} (a_i - a_k)^2 *)
Lemma column_variance_pairs n (a : 'I_n -> R) : (0 < n)%N ->
  \sum_(i < n) (a i - (n%:R)^-1 * \sum_(k < n) a k) ^+ 2
  = (n%:R)^-1 * \sum_(i < n) \sum_(k < n | (i < k)%N) (a i - a k) ^+ 2.
Proof.
move=> n0; have nz : (n%:R : R) != 0 by rewrite pnatr_eq0 -lt0n.
set S := \sum_(k < n) a k; set Q := \sum_(k < n) a k ^+ 2.
have L : \sum_(i < n) (a i - (n%:R)^-1 * S) ^+ 2 = Q - (n%:R)^-1 * S ^+ 2.
  under eq_bigr do rewrite sqrrB.
  rewrite big_split /= sumrB -/Q sumrMnl -mulr_suml -/S sumr_const card_ord.
  have E1 : (n%:R^-1 * S) ^+ 2 *+ n = n%:R^-1 * S ^+ 2.
    by rewrite -mulr_natl exprMn expr2 !mulrA mulfV // mul1r.
  have E2 : S * (n%:R^-1 * S) = n%:R^-1 * S ^+ 2 by rewrite mulrCA expr2.
  by rewrite E1 E2 mulr2n opprD addrA addrNK.
have T : \sum_(i < n) \sum_(k < n) (a i - a k) ^+ 2 = (n%:R * Q - S ^+ 2) *+ 2.
  under eq_bigr do (under eq_bigr do rewrite sqrrB).
  under eq_bigr do rewrite big_split /= sumrB sumr_const card_ord sumrMnl -mulr_sumr -/S -/Q.
  rewrite big_split big_split /= sumrN sumrMnl sumrMnl -mulr_suml -/S -/Q sumr_const card_ord.
  by rewrite -expr2 mulr_natl addrAC -mulr2n mulrnBl.
have P : \sum_(i < n) \sum_(k < n | (i < k)%N) (a i - a k) ^+ 2 = n%:R * Q - S ^+ 2.
  have := @sum_pairs_sym n (fun i k => (a i - a k) ^+ 2).
  rewrite T -mulr_natl => H; apply: (mulfI (x := 2%:R)); first by rewrite pnatr_eq0.
  by rewrite -H // => [i k|i]; rewrite ?subrr ?expr0n // -sqrrN opprB.
by rewrite L P mulrBr mulKf.
Qed.

(* DONG.residual-variance: with R = X - (1/n) 1 1^T X (n >= 1 tokens, d
   features), ||R||_F^2 = n tr Cov(X) (population covariance) and
   n tr Cov(X) = (1/n) sum_{i<k} ||x_i - x_k||^2 *)
Lemma residual_variance n d (X : 'M[R]_(n, d)) : (0 < n)%N ->
  let Rm := X - (n%:R)^-1 *: (const_mx 1 *m X) in
  let trCov := \sum_(j < d) ((n%:R)^-1 * \sum_(i < n) (X i j - (n%:R)^-1 * \sum_(k < n) X k j) ^+ 2) in
  (\sum_(i < n) \sum_(j < d) Rm i j ^+ 2 = (n%:R * trCov)%R)
  /\ ((n%:R * trCov)%R = (n%:R)^-1 * \sum_(i < n) \sum_(k < n | (i < k)%N) \sum_(j < d) (X i j - X k j) ^+ 2).
Proof.
move=> n0 Rm trCov; have nz : (n%:R : R) != 0 by rewrite pnatr_eq0 -lt0n.
have E : n%:R * trCov = \sum_(j < d) \sum_(i < n) (X i j - (n%:R)^-1 * \sum_(k < n) X k j) ^+ 2.
  by rewrite /trCov mulr_sumr; apply: eq_bigr => j _; rewrite mulVKf.
rewrite E; split.
  rewrite exchange_big /=; apply: eq_bigr => j _; apply: eq_bigr => i _.
  rewrite /Rm !mxE; congr ((_ - _ * _) ^+ 2); apply: eq_bigr => k _.
  by rewrite !mxE mul1r.
under eq_bigr do rewrite column_variance_pairs //.
rewrite -mulr_sumr; congr (_ * _).
rewrite exchange_big /=; apply: eq_bigr => i _.
by rewrite exchange_big.
Qed.
End Variance.
