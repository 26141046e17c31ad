(* Cirrincione (2026), section 6.1, around Proposition 6.3: the index
   alpha_MHA, the dimension d_k of a head's output subspace, the lower bound
   on d_ff, and what alpha_h = 0 and alpha_h = 1 say about the scores.
   Notation of rank_contraction.v: MHA = sum_h Y_h W_O^h, R_h = Y_h W_O^h,
   alpha(M) = ||M_a||_F / ||M||_F with M_a = (M - M^T)/2 (x / 0 = 0).
     RC.alpha-mha       0 <= alpha_MHA <= 1 whenever some Y_h W_O^h != 0;
     RC.dim-dk          rank X >= d_k => dim R_h = d_k (Prop 6.3's
                        genericity stated algebraically, as in
                        rank_contraction.dim_R_h_generic);
     RC.dff-lower-bound necessary-rank   row FFN in row W_2 and k new
                        directions => d_ff >= k;
     RC.alpha-reciprocal symmetric-scores / antisymmetric-scores;
     RC.alpha-range attained   for d >= 2: every t in [0, 1] is
                        alpha(W_Q W_K^T) for some W_Q, W_K in R^(d x d_k)
                        exactly when d_k >= 2 (alpha_attained_scores). *)
From Coq Require Import Lia.
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix ssrint rat poly mxpoly mxalgebra fingroup perm zmodp interval.
From CollapseVerify Require Import rank_contraction preamble.
Import GRing.Theory Num.Theory.
Local Open Scope ring_scope.

(* ------------------------------------------------------------------ *)
Section AlphaMHA.
Variables (F : fieldType) (R : numFieldType) (n d_model d_k H : nat).
Variables (Y : 'I_H -> 'M[F]_(n, d_k)) (W_O : 'I_H -> 'M[F]_(d_k, d_model)).

(* alpha_MHA = 1 - rank(MHA(X)) / (H max_h rank(Y^(h) W_O^(h))), a number of R *)
Definition alpha_MHA : R :=
  1 - (\rank (MHA Y W_O))%:R / (H * \max_(h < H) \rank (Y h *m W_O h))%:R.

(* "rank MHA <= sum_h rank <= H max_h rank" *)
Lemma rank_MHA_le_H_max : (\rank (MHA Y W_O) <= H * \max_(h < H) \rank (Y h *m W_O h))%N.
Proof.
apply: leq_trans (rank_MHA_le_dim_sum_R Y W_O) _.
apply: leq_trans (dim_sum_R_le_sum_rank Y W_O) _.
rewrite -[H in (H * _)%N]card_ord -sum_nat_const; apply: leq_sum => h _.
exact: (@leq_bigmax _ (fun h => \rank (Y h *m W_O h)) h).
Qed.

(* RC.alpha-mha: "0 <= alpha_MHA <= 1 whenever some Y_h W_O^h != 0" *)
Lemma alpha_MHA_range : (exists h, Y h *m W_O h != 0) -> 0 <= alpha_MHA <= 1.
Proof.
case=> h0 nz.
have m_gt0 : (0 < H * \max_(h < H) \rank (Y h *m W_O h))%N.
  rewrite muln_gt0 (leq_ltn_trans (leq0n h0) (ltn_ord h0)) /=.
  apply: leq_trans (@leq_bigmax _ (fun h => \rank (Y h *m W_O h)) h0).
  by rewrite lt0n mxrank_eq0.
have pos : 0 < (H * \max_(h < H) \rank (Y h *m W_O h))%:R :> R by rewrite ltr0n.
rewrite /alpha_MHA subr_ge0 ler_pdivr_mulr // mul1r ler_nat rank_MHA_le_H_max /=.
by rewrite ler_subl_addr ler_addl divr_ge0 ?ler0n.
Qed.

End AlphaMHA.

(* ------------------------------------------------------------------ *)
(* RC.dim-dk, reading rank-X-at-least-d_k: "Prop 6.3 gives min(rank X, d_k):
   d_k needs rank X >= d_k", with Prop 6.3's generic weights stated
   algebraically (A^(h) invertible, rank(X W_V) = min(rank X, d_k), W_O of
   full row rank) *)
Lemma dim_R_h_eq_dk (F : fieldType) (n d_model d_k : nat) (A : 'M[F]_n)
    (X : 'M[F]_(n, d_model)) (W_V : 'M[F]_(d_model, d_k)) (W_O : 'M[F]_(d_k, d_model)) :
  A \in unitmx -> \rank (X *m W_V) = minn (\rank X) d_k -> row_free W_O ->
  (d_k <= \rank X)%N -> \rank (A *m X *m W_V *m W_O) = d_k.
Proof. by move=> uA rXV fO le; rewrite dim_R_h_generic // (minn_idPr le). Qed.

(* RC.dff-lower-bound, reading necessary-rank: "row FFN(Z) in row W_2 =>
   spanning k missing directions needs d_ff >= k": if the FFN output Phi
   has its rows in row(W_2) (W_2 : d_ff x d) and adding it to M gains k
   dimensions, rank(M + Phi) >= rank M + k, then d_ff >= k *)
Lemma dff_lower_bound (F : fieldType) (n d d_ff k : nat) (M Phi : 'M[F]_(n, d))
    (W_2 : 'M[F]_(d_ff, d)) :
  (Phi <= W_2)%MS -> (\rank M + k <= \rank (M + Phi)%R)%N -> (k <= d_ff)%N.
Proof.
move=> sub gain; rewrite -(leq_add2l (\rank M)).
apply: leq_trans gain (leq_trans (mxrank_add _ _) _); rewrite leq_add2l.
exact: leq_trans (mxrankS sub) (rank_leq_row W_2).
Qed.

(* ------------------------------------------------------------------ *)
Section Reciprocity.
Variables (R : rcfType) (d : nat).
Implicit Types M : 'M[R]_d.

Definition sym M : 'M[R]_d := 2%:R^-1 *: (M + M^T).

Lemma frob2_ge0 M : 0 <= frob2 M.
Proof. by apply: sumr_ge0 => i _; apply: sumr_ge0 => j _; apply: sqr_ge0. Qed.

Lemma frob2_eq0 M : (frob2 M == 0) = (M == 0).
Proof.
apply/eqP/eqP => [E | ->]; last by rewrite /frob2 big1 // => i _; rewrite big1 // => j _; rewrite mxE expr0n.
have rows i : \sum_j M i j ^+ 2 = 0.
  by apply: (psumr_eq0P _ E) => // k _; apply: sumr_ge0 => j _; apply: sqr_ge0.
apply/matrixP => i j; rewrite mxE; apply/eqP; rewrite -sqrf_eq0; apply/eqP.
by apply: (psumr_eq0P _ (rows i)) => // k _; apply: sqr_ge0.
Qed.

Lemma frob_eq0 M : (frob M == 0) = (M == 0).
Proof.
by rewrite /frob sqrtr_eq0 -frob2_eq0 Order.POrderTheory.eq_le frob2_ge0 andbT.
Qed.

Lemma half_neq0 : (2%:R^-1 : R) != 0.
Proof. by rewrite invr_eq0 pnatr_eq0. Qed.

(* ((a + b) / 2)^2 + ((a - b) / 2)^2 = (a^2 + b^2) / 2 *)
Lemma sqr_half_sum_diff (a b : R) :
  (2%:R^-1 * (a + b)) ^+ 2 + (2%:R^-1 * (a - b)) ^+ 2 = 2%:R^-1 * (a ^+ 2 + b ^+ 2).
Proof.
have H2 : (a + b) ^+ 2 + (a - b) ^+ 2 = (a ^+ 2 + b ^+ 2) *+ 2.
  rewrite sqrrD sqrrB [_ + _ * _ *+ 2 + _]addrAC [_ - _ * _ *+ 2 + _]addrAC addrACA.
  by rewrite subrr addr0 -mulr2n.
rewrite !exprMn -mulrDr H2 expr2 -mulrA; congr (_ * _).
by rewrite -[(_ + _) *+ 2]mulr_natr mulrCA mulVf ?pnatr_eq0 // mulr1.
Qed.

(* Pythagoras: ||M||^2 = ||M_s||^2 + ||M_a||^2 *)
Lemma frob2_sym_antisym M : frob2 (sym M) + frob2 (antisym M) = frob2 M.
Proof.
rewrite /frob2 -big_split /=.
have -> : \sum_i \sum_j (M i j ^+ 2) = 2%:R^-1 * \sum_i \sum_j (M i j ^+ 2 + M j i ^+ 2).
  under [in RHS]eq_bigr do rewrite big_split /=.
  rewrite big_split /= [X in _ + X](exchange_big _ _ _ _ _ (fun i j => M j i ^+ 2)) /= -mulr2n.
  by rewrite -[(\sum_(i < d) _) *+ 2]mulr_natr mulrCA mulVf ?pnatr_eq0 // mulr1.
rewrite mulr_sumr; apply: eq_bigr => i _; rewrite -big_split mulr_sumr /=; apply: eq_bigr => j _.
by rewrite !mxE sqr_half_sum_diff.
Qed.

(* RC.alpha-reciprocal, reading symmetric-scores:
   "alpha_h = 0 <=> M = M^T => X M X^T symmetric" *)
Lemma alpha_eq0_symmetric M :
  (alpha M = 0 <-> M = M^T) /\ (M = M^T -> forall n (X : 'M[R]_(n, d)), (X *m M *m X^T)^T = X *m M *m X^T).
Proof.
split; last by move=> E n X; rewrite !trmx_mul trmxK -E mulmxA.
rewrite /alpha; split => [/eqP | E].
  rewrite mulf_eq0 invr_eq0 !frob_eq0 => /orP[/eqP Ma | /eqP ->]; last by rewrite trmx0.
  by apply/eqP; rewrite -subr_eq0; move/eqP: Ma; rewrite scaler_eq0 (negbTE half_neq0).
have -> : antisym M = 0 by rewrite /antisym -E subrr scaler0.
by rewrite /frob /frob2 big1 ?sqrtr0 ?mul0r // => i _; rewrite big1 // => j _; rewrite mxE expr0n.
Qed.

(* RC.alpha-reciprocal, reading antisymmetric-scores:
   "alpha_h = 1 <=> M = -M^T => X M X^T antisymmetric", for M != 0: at M = 0
   alpha = 0 (the quotient 0/0 read as 0) while 0 = -0^T, so the equivalence
   needs M != 0 *)
Lemma alpha_eq1_antisymmetric M : M != 0 ->
  (alpha M = 1 <-> M = - M^T) /\ (M = - M^T -> forall n (X : 'M[R]_(n, d)), (X *m M *m X^T)^T = - (X *m M *m X^T)).
Proof.
move=> M0; split=> [|E n X]; last first.
  have Et : M^T = - M by rewrite {1}E linearN /= trmxK.
  by rewrite !trmx_mul trmxK Et mulNmx mulmxN mulmxA.
have f0 : frob M != 0 by rewrite frob_eq0.
have E1 : (alpha M == 1) = (frob2 (antisym M) == frob2 M).
  have div1 (a : R) : (a / frob M == 1) = (a == frob M).
    by apply/eqP/eqP => [h | ->]; [rewrite -(divfK f0 a) h mul1r | apply: divff].
  by rewrite /alpha div1 /frob eqr_sqrt ?frob2_ge0.
have E2 : (frob2 (antisym M) == frob2 M) = (sym M == 0).
  by rewrite -frob2_eq0 -(frob2_sym_antisym M) eq_sym -subr_eq0 addrK.
have E3 : (sym M == 0) = (M == - M^T).
  by rewrite /sym scaler_eq0 (negbTE half_neq0) /= addr_eq0.
have E : (alpha M == 1) = (M == - M^T) by rewrite E1 E2 E3.
by split=> h; apply/eqP; [rewrite -E; apply/eqP | rewrite E; apply/eqP].
Qed.

End Reciprocity.

(* ------------------------------------------------------------------ *)
(* RC.alpha-range, reading attained: "{alpha_h} = [0, 1] <=> d_k >= 2":
   every t in [0, 1] is alpha(M) for some d x d matrix M exactly when d >= 2
   (for d <= 1 every M is symmetric and alpha = 0). *)
Section AlphaAttained.
Variables (R : rcfType) (d : nat).

Lemma alpha_small (M : 'M[R]_d) : (d <= 1)%N -> alpha M = 0.
Proof.
move=> d1; apply: (proj2 (proj1 (alpha_eq0_symmetric M))); apply/matrixP => i j; rewrite mxE.
have -> // : i = j.
by apply: ord_inj; move: (ltn_ord i) (ltn_ord j) d1 => /ltP hi /ltP hj /leP hd; lia.
Qed.

Lemma sum_two (f : 'I_d -> R) (i0 i1 : 'I_d) : i0 != i1 ->
  (forall j, j != i0 -> j != i1 -> f j = 0) -> \sum_j f j = f i0 + f i1.
Proof.
move=> ne z; rewrite (bigD1 i0) //= (bigD1 i1) 1?eq_sym //= big1 ?addr0 // => j /andP[? ?].
exact: z.
Qed.

(* the witness M = a E_11 + b (E_12 - E_21) *)
Definition alpha_witness (i0 i1 : 'I_d) (a b : R) : 'M[R]_d :=
  \matrix_(i, j) (if (i == i0) && (j == i0) then a else if (i == i0) && (j == i1) then b
                  else if (i == i1) && (j == i0) then - b else 0).

Lemma frob2_witness (i0 i1 : 'I_d) (a b : R) : i0 != i1 ->
  frob2 (alpha_witness i0 i1 a b) = a ^+ 2 + b ^+ 2 *+ 2
  /\ frob2 (antisym (alpha_witness i0 i1 a b)) = b ^+ 2 *+ 2.
Proof.
move=> ne; have en : (i1 == i0) = false by rewrite eq_sym; apply/negbTE.
have ne' := negbTE ne.
have zero (M : 'M[R]_d) i : (forall j, M i j = 0) -> \sum_j M i j ^+ 2 = 0.
  by move=> z; rewrite big1 // => j _; rewrite z expr0n.
split.
  rewrite /frob2 (sum_two ne) => [|i ni0 ni1]; last first.
    by apply: zero => j; rewrite mxE (negbTE ni0) (negbTE ni1).
  rewrite !(sum_two ne) => [|j nj0 nj1|j nj0 nj1];
    rewrite !mxE ?eqxx ?en ?ne' ?(negbTE nj0) ?(negbTE nj1) ?andbF ?expr0n //=.
  by rewrite addr0 sqrrN -addrA -mulr2n.
rewrite /frob2 (sum_two ne) => [|i ni0 ni1]; last first.
  by apply: zero => j; rewrite !mxE (negbTE ni0) (negbTE ni1) !andbF /= subr0 mulr0.
rewrite !(sum_two ne) => [|j nj0 nj1|j nj0 nj1];
  rewrite !mxE ?eqxx ?en ?ne' ?(negbTE nj0) ?(negbTE nj1) ?andbF /= ?subrr ?mulr0 ?expr0n //.
have h : (2%:R^-1 : R) * (b *+ 2) = b by rewrite -[b *+ 2]mulr_natr mulrCA mulVf ?pnatr_eq0 // mulr1.
by rewrite /= add0r addr0 opprK -mulr2n -opprD -mulr2n mulrN sqrrN h -mulr2n.
Qed.

(* "{alpha_h} = [0, 1] <=> d_k >= 2" *)
Lemma alpha_attained :
  (forall t : R, 0 <= t <= 1 -> exists M : 'M[R]_d, alpha M = t) <-> (2 <= d)%N.
Proof.
split=> [all | d2]; last first.
  move=> t /andP[t0 t1]; set i0 : 'I_d := Ordinal (ltnW d2); set i1 : 'I_d := Ordinal d2.
  have ne : i0 != i1 by [].
  exists (alpha_witness i0 i1 (Num.sqrt ((1 - t ^+ 2) *+ 2)) t).
  have [E E'] := frob2_witness (Num.sqrt ((1 - t ^+ 2) *+ 2)) t ne.
  have t2 : 0 <= 1 - t ^+ 2 by rewrite subr_ge0 exprn_ile1.
  rewrite /alpha /frob E E' sqr_sqrtr ?mulrn_wge0 // -mulrnDl subrK.
  rewrite -mulr_natr sqrtrM ?sqr_ge0 // sqrtr_sqr ger0_norm // mulfK //.
  by rewrite lt0r_neq0 // sqrtr_gt0 ltr0n.
rewrite ltnNge; apply/negP => d1; have := all 1; rewrite ler01 Order.POrderTheory.lexx /= => /(_ isT) [M].
by rewrite alpha_small // => /eqP; rewrite eq_sym oner_eq0.
Qed.

(* The same for the paper's score matrix M = W_Q W_K^T with W_Q, W_K in
   R^(d x d_k) (so of rank <= d_k; the scale 1/sqrt d_k does not change
   alpha): for d >= 2, every t in [0, 1] is attained exactly when d_k >= 2.
   For d_k >= 2 the witness above factors through d_k columns; for d_k <= 1,
   M = q k^T and an antisymmetric q k^T is 0, so alpha = 1 is never reached. *)
Lemma sum_two_k (k : nat) (f : 'I_k -> R) (k0 k1 : 'I_k) : k0 != k1 ->
  (forall j, j != k0 -> j != k1 -> f j = 0) -> \sum_j f j = f k0 + f k1.
Proof.
move=> ne z; rewrite (bigD1 k0) //= (bigD1 k1) 1?eq_sym //= big1 ?addr0 // => j /andP[? ?].
exact: z.
Qed.

Lemma witness_factors (dk : nat) (i0 i1 : 'I_d) (k0 k1 : 'I_dk) (a b : R) : i0 != i1 -> k0 != k1 ->
  exists W_Q W_K : 'M[R]_(d, dk), W_Q *m W_K^T = alpha_witness i0 i1 a b.
Proof.
move=> ne kne; set M := alpha_witness i0 i1 a b.
exists (\matrix_(i, k) (((i == i0) && (k == k0))%:R + ((i == i1) && (k == k1))%:R)),
       (\matrix_(j, k) (if k == k0 then M i0 j else if k == k1 then M i1 j else 0)).
have kn : (k1 == k0) = false by rewrite eq_sym; apply/negbTE.
apply/matrixP => i j; rewrite !mxE (sum_two_k kne) => [|k nk0 nk1]; last first.
  by rewrite !mxE (negbTE nk0) (negbTE nk1) !andbF add0r mul0r.
rewrite !mxE !eqxx kn (negbTE kne) /= !andbT !andbF /= !addr0 !add0r.
have en : (i1 == i0) = false by rewrite eq_sym; apply/negbTE.
have [-> | n0] := eqVneq i i0.
  by rewrite ?eqxx ?(negbTE ne) /= ?mul1r ?mul0r ?addr0.
have [_ | n1] := eqVneq i i1.
  by rewrite ?eqxx ?en /= ?mul0r ?mul1r ?add0r.
by rewrite /= ?mul0r ?addr0.
Qed.

Lemma rank_one_antisym_eq0 (q k : 'cV[R]_d) : q *m k^T = - (q *m k^T)^T -> q *m k^T = 0.
Proof.
move=> E; have e i j : (q *m k^T) i j = q i 0 * k j 0 by rewrite !mxE big_ord1 mxE.
have anti i j : q i 0 * k j 0 = - (q j 0 * k i 0) by rewrite -!e {1}E !mxE.
have diag i : q i 0 * k i 0 = 0.
  by apply/eqP; move/eqP: (anti i i); rewrite -subr_eq0 opprK -mulr2n mulrn_eq0.
apply/matrixP => i j; rewrite e mxE; apply/eqP; rewrite -sqrf_eq0 expr2 {2}anti.
by rewrite mulrN [q j 0 * _]mulrC mulrACA diag mul0r oppr0.
Qed.

Lemma alpha_attained_scores (dk : nat) : (2 <= d)%N ->
  (forall t : R, 0 <= t <= 1 -> exists W_Q W_K : 'M[R]_(d, dk), alpha (W_Q *m W_K^T) = t) <-> (2 <= dk)%N.
Proof.
move=> d2; split=> [all | dk2]; last first.
  move=> t t01.
  set i0 : 'I_d := Ordinal (ltnW d2); set i1 : 'I_d := Ordinal d2.
  set k0 : 'I_dk := Ordinal (ltnW dk2); set k1 : 'I_dk := Ordinal dk2.
  have [t0 t1] := andP t01.
  have [W_Q [W_K E]] := witness_factors (Num.sqrt ((1 - t ^+ 2) *+ 2)) t (isT : i0 != i1) (isT : k0 != k1).
  exists W_Q, W_K; rewrite E.
  have [F2 F2'] := frob2_witness (Num.sqrt ((1 - t ^+ 2) *+ 2)) t (isT : i0 != i1).
  have t2 : 0 <= 1 - t ^+ 2 by rewrite subr_ge0 exprn_ile1.
  rewrite /alpha /frob F2 F2' sqr_sqrtr ?mulrn_wge0 // -mulrnDl subrK.
  rewrite -mulr_natr sqrtrM ?sqr_ge0 // sqrtr_sqr ger0_norm // mulfK //.
  by rewrite lt0r_neq0 // sqrtr_gt0 ltr0n.
rewrite ltnNge; apply/negP => dk1; have := all 1; rewrite ler01 Order.POrderTheory.lexx /= => /(_ isT) [W_Q [W_K]].
have [q [k E]] : exists q k : 'cV[R]_d, W_Q *m W_K^T = q *m k^T.
  move: W_Q W_K; clear all; case: dk dk1 => [|[|//]] _ W_Q W_K.
    by exists 0, 0; rewrite (thinmx0 W_Q) !mul0mx.
  by exists W_Q, W_K.
rewrite E; have [-> | M0] := eqVneq (q *m k^T) 0.
  have a0 : alpha (0 : 'M[R]_d) = 0 by apply: (proj2 (proj1 (alpha_eq0_symmetric 0))); rewrite trmx0.
  by rewrite a0 => /eqP; rewrite eq_sym oner_eq0.
move/(proj1 (proj1 (alpha_eq1_antisymmetric M0))) => /rank_one_antisym_eq0 Z.
by move: M0; rewrite Z eqxx.
Qed.

End AlphaAttained.
