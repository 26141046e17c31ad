(* Cirrincione (2026), section 4, the Rank-Neutrality Theorem.
   LN(x_i) = (x_i - mean(x_i)) / sigma_i (.) gamma + beta, row by row; as a
   matrix LN(X) = D X P Gamma + 1_n beta^T with
     P = I - (1/d) 1_d 1_d^T   (mean subtraction, X~ = X P),
     D = diag(1/sigma_1, ..., 1/sigma_n), Gamma = diag(gamma) (or any
     invertible d x d matrix).
   sigma is abstract: any vector of non-zero scalars (H1).  The field is
   arbitrary; P needs d != 0 in it.  Column-space membership v in col(A) is
   written (v^T <= A^T)%MS, row-space membership u in row(X) is (u <= X)%MS,
   and the affine rank is arank(M) = rank [M | 1_n] - 1.
   Hypotheses: H1 sigma_i != 0; H2 1_d notin row(X); H3 gamma_j != 0;
   H4 sigma notin col(X P). *)
From Coq Require Import Lia.
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix ssrint rat poly mxpoly mxalgebra fingroup perm zmodp interval.
From CollapseVerify Require Import residual_obstruction preamble.
Import GRing.Theory.
Local Open Scope ring_scope.

(* ------------------------------------------------------------------ *)
(* Rank facts over any field *)
Section RankFacts.
Variable F : fieldType.

(* rank (A + u) = rank A + [u notin A] for one row vector u *)
Lemma rank_adds_rV m k (A : 'M[F]_(m, k)) (u : 'rV[F]_k) :
  \rank (A + u)%MS = (\rank A + ~~ (u <= A)%MS)%N.
Proof.
case: (boolP (u <= A)%MS) => [uA | nuA].
  by rewrite addn0; apply/eqmx_rank/eqmxP/addsmx_idPl.
have le := mxrank_leqif_sup (addsmxSl A u).
have lt : (\rank A < \rank (A + u)%MS)%N.
  by rewrite (ltn_leqif le) addsmx_sub submx_refl.
apply/eqP; rewrite eqn_leq addn1 lt andbT.
apply: leq_trans (mxrank_adds_leqif A u) _.
by rewrite -[(\rank A).+1]addn1 leq_add2l rank_leq_row.
Qed.

(* rank (A :&: u) = [u in A] for one non-zero row vector u *)
Lemma rank_cap_rV m k (A : 'M[F]_(m, k)) (u : 'rV[F]_k) :
  u != 0 -> \rank (A :&: u)%MS = (u <= A)%MS.
Proof.
move=> u0; have := mxrank_sum_cap A u.
rewrite rank_adds_rV rank_rV u0 -addnA => /addnI.
by case: (u <= A)%MS => /= [|[]//]; rewrite add0n => ->.
Qed.

(* rank [A | v] = rank A + [v notin col(A)] for one column vector v *)
Lemma rank_row_mx_cV m k (A : 'M[F]_(m, k)) (v : 'cV[F]_m) :
  \rank (row_mx A v) = (\rank A + ~~ (v^T <= A^T)%MS)%N.
Proof.
rewrite -mxrank_tr tr_row_mx -[\rank A]mxrank_tr -rank_adds_rV.
by apply/esym/eqmx_rank/eqmxP/addsmxE.
Qed.

(* left multiplication by an invertible matrix keeps the rank *)
Lemma mxrank_unitl m k (D : 'M[F]_m) (A : 'M[F]_(m, k)) :
  D \in unitmx -> \rank (D *m A) = \rank A.
Proof.
move=> uD; rewrite -mxrank_tr trmx_mul mxrankMfree ?mxrank_tr //.
by rewrite row_free_unit unitmx_tr.
Qed.

(* right multiplication by an invertible matrix keeps the rank *)
Lemma mxrank_unitr m k (A : 'M[F]_(m, k)) (G : 'M[F]_k) :
  G \in unitmx -> \rank (A *m G) = \rank A.
Proof. by move=> uG; rewrite mxrankMfree // row_free_unit. Qed.

End RankFacts.

(* ------------------------------------------------------------------ *)
Section RankNeutrality.
Variables (F : fieldType) (n d : nat).
Hypothesis d_neq0 : (d%:R : F) != 0.

(* 1_d (a row) and 1_n (a column) *)
Definition ones_d : 'rV[F]_d := const_mx 1.
Definition ones_n : 'cV[F]_n := const_mx 1.

(* P = I - (1/d) 1_d 1_d^T *)
Definition P : 'M[F]_d := 1%:M - (d%:R)^-1 *: (ones_d^T *m ones_d).

(* D = diag(1/sigma_1, ..., 1/sigma_n) *)
Definition D (sigma : 'cV[F]_n) : 'M[F]_n := diag_mx (\row_i (sigma i 0)^-1).

(* LN(X) = D X P Gamma + 1_n beta^T, Gamma any d x d matrix *)
Definition LN (sigma : 'cV[F]_n) (Gamma : 'M[F]_d) (beta : 'rV[F]_d)
    (X : 'M[F]_(n, d)) : 'M[F]_(n, d) :=
  D sigma *m (X *m P) *m Gamma + ones_n *m beta.

(* arank(M) = rank [M | 1_n] - 1 *)
Definition arank m (M : 'M[F]_(n, m)) : nat := (\rank (row_mx M ones_n)).-1.

(* [v in col(A)] *)
Definition in_col m (v : 'cV[F]_n) (A : 'M[F]_(n, m)) : bool := (v^T <= A^T)%MS.

Lemma ones_d_neq0 : ones_d != 0.
Proof.
have d_gt0 : (0 < d)%N by case: d d_neq0 => //; rewrite eqxx.
by apply/eqP => /rowP/(_ (Ordinal d_gt0)); rewrite !mxE; apply/eqP; rewrite oner_neq0.
Qed.

(* the kernel of P is the line spanned by 1_d *)
Lemma kermx_P : (kermx P :=: ones_d)%MS.
Proof.
have J (w : 'rV[F]_d) : w *m (ones_d^T *m ones_d) = (\sum_(k < d) w 0 k) *: ones_d.
  apply/rowP => j; rewrite !mxE mulr1; apply: eq_bigr => k _.
  by rewrite !mxE big_ord1 !mxE !mulr1.
apply/eqmxP/andP; split.
  apply/row_subP => i; have := mulmx_ker P; move/(congr1 (row i)).
  rewrite row_mul row0 /P mulmxBr mulmx1 -scalemxAr J => /subr0_eq ->.
  by rewrite scalemx_sub // scalemx_sub.
apply/sub_kermxP; rewrite /P mulmxBr mulmx1 -scalemxAr J.
have -> : \sum_(k < d) ones_d 0 k = d%:R.
  by rewrite (eq_bigr (fun=> 1)) => [|k _]; rewrite ?mxE // sumr_const card_ord.
by rewrite scalerA mulVf // scale1r subrr.
Qed.

(* Step 1: "rank(X P) = rank(X) - [1_d in row(X)]" *)
Lemma rank_centred (X : 'M[F]_(n, d)) :
  (\rank (X *m P) + (ones_d <= X)%MS)%N = \rank X.
Proof.
rewrite -(mxrank_mul_ker X P) -(rank_cap_rV X ones_d_neq0).
by congr (_ + _)%N; apply/eqmx_rank/eqmxP; exact: (eqmx_sym (cap_eqmx (eqmx_refl X) kermx_P)).
Qed.

(* H1 makes D invertible, and D sigma = 1_n *)
Lemma D_unit (sigma : 'cV[F]_n) : (forall i, sigma i 0 != 0) -> D sigma \in unitmx.
Proof.
move=> s0; rewrite unitmxE det_diag unitfE; apply/prodf_neq0 => i _.
by rewrite mxE invr_eq0.
Qed.

Lemma D_sigma (sigma : 'cV[F]_n) : (forall i, sigma i 0 != 0) -> D sigma *m sigma = ones_n.
Proof.
by move=> s0; apply/matrixP => i j; rewrite mul_diag_mx !mxE ord1 mulVf.
Qed.

(* H3: gamma_j != 0 for all j makes Gamma = diag(gamma) invertible; the
   lemmas below assume only that Gamma is invertible *)
Lemma H3_diag_unit (gamma : 'rV[F]_d) : (forall j, gamma 0 j != 0) -> diag_mx gamma \in unitmx.
Proof. by move=> g0; rewrite unitmxE det_diag unitfE; apply/prodf_neq0 => j _. Qed.

(* arank is the paper's affine rank: for n > 0,
   arank(M) = rank(M - 1_n x_1^T), x_1 the first row of M
   ("arank(S) = rank(X - x_1 1^T), the dimension of the affine span") *)
Lemma arank_first_row m (M : 'M[F]_(n, m)) (n_gt0 : (0 < n)%N) :
  arank M = \rank (M - ones_n *m row (Ordinal n_gt0) M).
Proof.
set i0 := Ordinal n_gt0; set M1 := M - ones_n *m row i0 M; rewrite /arank.
have -> : row_mx M ones_n = row_mx M1 ones_n *m block_mx 1%:M 0 (row i0 M) 1%:M.
  by rewrite mul_row_block !mulmx0 !mulmx1 !add0r /M1 subrK.
rewrite mxrank_unitr; last by rewrite unitmxE det_lblock !det1 mulr1 unitr1.
rewrite rank_row_mx_cV.
suff -> : (ones_n^T <= M1^T)%MS = false by rewrite addn1.
apply/negbTE/negP => /submxP[c /matrixP/(_ 0 i0)].
rewrite !mxE (eq_bigr (fun=> 0)) ?big1_eq => [|k _]; first by move/eqP; rewrite oner_eq0.
by rewrite !mxE big_ord1 !mxE mul1r subrr mulr0.
Qed.

(* ---------- RN.matrix-rank ---------- *)

(* "matrix rank is preserved in the zero-bias case":
   H1, H2, H3 (any invertible Gamma), beta = 0 => rank(LN(X)) = rank(X) *)
Lemma zero_bias_rank (sigma : 'cV[F]_n) (Gamma : 'M[F]_d) (X : 'M[F]_(n, d)) :
  (forall i, sigma i 0 != 0) -> ~~ (ones_d <= X)%MS -> Gamma \in unitmx ->
  \rank (LN sigma Gamma 0 X) = \rank X.
Proof.
move=> H1 H2 H3; rewrite /LN mulmx0 addr0 mxrank_unitr // mxrank_unitl ?D_unit //.
by rewrite -(rank_centred X) (negbTE H2) addn0.
Qed.

(* reading without-H2: H1, H3, beta = 0 => rank(LN X) = rank X - [1_d in row X] *)
Lemma zero_bias_rank_without_H2 (sigma : 'cV[F]_n) (Gamma : 'M[F]_d) (X : 'M[F]_(n, d)) :
  (forall i, sigma i 0 != 0) -> Gamma \in unitmx ->
  (\rank (LN sigma Gamma 0 X) + (ones_d <= X)%MS)%N = \rank X.
Proof.
move=> H1 H3; rewrite /LN mulmx0 addr0 mxrank_unitr // mxrank_unitl ?D_unit //.
exact: rank_centred.
Qed.

(* ---------- the exact characterisation ---------- *)

(* rank [D A Gamma + 1_n beta^T | 1_n] = rank [A | sigma] *)
Lemma rank_scaled_adjoin (sigma : 'cV[F]_n) (Gamma : 'M[F]_d) (beta : 'rV[F]_d)
    (A : 'M[F]_(n, d)) :
  (forall i, sigma i 0 != 0) -> Gamma \in unitmx ->
  \rank (row_mx (D sigma *m A *m Gamma + ones_n *m beta) ones_n)
  = \rank (row_mx A sigma).
Proof.
move=> H1 H3.
have -> : row_mx (D sigma *m A *m Gamma + ones_n *m beta) ones_n
          = D sigma *m row_mx A sigma *m block_mx Gamma 0 0 1%:M
            *m block_mx 1%:M 0 beta 1%:M.
  rewrite mul_mx_row D_sigma // !mul_row_block.
  by rewrite !mulmx0 !mulmx1 !addr0 !add0r.
rewrite !mxrank_unitr ?mxrank_unitl ?D_unit //.
  by rewrite unitmxE det_ublock det1 mulr1 -unitmxE.
by rewrite unitmxE det_lblock !det1 mulr1 unitr1.
Qed.

Lemma arank_succ m (M : 'M[F]_(n, m)) : (0 < n)%N ->
  (arank M).+1 = \rank (row_mx M ones_n).
Proof.
move=> n_gt0; rewrite /arank prednK // lt0n mxrank_eq0 row_mx_eq0 negb_and.
apply/orP; right; apply/eqP => /matrixP/(_ (Ordinal n_gt0) 0).
by rewrite !mxE; apply/eqP; rewrite oner_neq0.
Qed.

(* RN.main, reading corrected (the exact characterisation):
   arank(D X P Gamma + 1 beta^T) - arank(X)
     = [sigma notin col(X P)] - [1_d in row X] - [1_n notin col X],
   stated without subtraction:
   arank(LN X) + [1_d in row X] + [1_n notin col X]
     = arank(X) + [sigma notin col(X P)] *)
Lemma arank_LN_characterisation (sigma : 'cV[F]_n) (Gamma : 'M[F]_d) (beta : 'rV[F]_d)
    (X : 'M[F]_(n, d)) :
  (0 < n)%N -> (forall i, sigma i 0 != 0) -> Gamma \in unitmx ->
  (arank (LN sigma Gamma beta X) + (ones_d <= X)%MS + ~~ in_col ones_n X)%N
  = (arank X + ~~ in_col sigma (X *m P))%N.
Proof.
move=> n_gt0 H1 H3; apply: succn_inj.
rewrite -!addSn !arank_succ // /LN rank_scaled_adjoin //.
rewrite !rank_row_mx_cV -(rank_centred X) /in_col.
by rewrite -!plusE; lia.
Qed.

(* RN.main, reading corrected:
   H1-H4 and 1_n notin col(X) => arank(LN(X)) = arank(X) *)
Lemma arank_LN_eq_arank (sigma : 'cV[F]_n) (Gamma : 'M[F]_d) (beta : 'rV[F]_d)
    (X : 'M[F]_(n, d)) :
  (0 < n)%N -> (forall i, sigma i 0 != 0) -> ~~ (ones_d <= X)%MS ->
  Gamma \in unitmx -> ~~ in_col sigma (X *m P) -> ~~ in_col ones_n X ->
  arank (LN sigma Gamma beta X) = arank X.
Proof.
move=> n_gt0 H1 H2 H3 H4 H5.
have := arank_LN_characterisation beta X n_gt0 H1 H3.
by rewrite (negbTE H2) H4 H5 addn0 => /addIn.
Qed.

(* RN.main, reading what-LN-preserves:
   H1-H4 => arank(LN(X)) = rank(X) *)
Lemma arank_LN_eq_rank (sigma : 'cV[F]_n) (Gamma : 'M[F]_d) (beta : 'rV[F]_d)
    (X : 'M[F]_(n, d)) :
  (0 < n)%N -> (forall i, sigma i 0 != 0) -> ~~ (ones_d <= X)%MS ->
  Gamma \in unitmx -> ~~ in_col sigma (X *m P) ->
  arank (LN sigma Gamma beta X) = \rank X.
Proof.
move=> n_gt0 H1 H2 H3 H4; apply: succn_inj.
rewrite arank_succ // /LN rank_scaled_adjoin // rank_row_mx_cV.
by rewrite -/(in_col _ _) H4 -(rank_centred X) (negbTE H2) !addn0 addn1.
Qed.

(* RN.step2, reading corrected:
   arank(D X~) - arank(X~) = [1_n in col X~] - [sigma in col X~],
   stated without subtraction, for any X~ *)
Lemma arank_row_scaling (sigma : 'cV[F]_n) (Xt : 'M[F]_(n, d)) :
  (0 < n)%N -> (forall i, sigma i 0 != 0) ->
  (arank (D sigma *m Xt) + in_col sigma Xt)%N = (arank Xt + in_col ones_n Xt)%N.
Proof.
move=> n_gt0 H1; apply: succn_inj; rewrite -!addSn !arank_succ //.
have := rank_scaled_adjoin 0 Xt H1 (unitmx1 F d).
rewrite mulmx1 mulmx0 addr0 => ->.
rewrite !rank_row_mx_cV -!addnA /in_col.
by case: (sigma^T <= Xt^T)%MS; case: (ones_n^T <= Xt^T)%MS.
Qed.

(* ---------- RN.plus-one ---------- *)

(* reading bound-only: "H1 => rank(LN X) <= rank(X) + 1" *)
Lemma rank_LN_le_rank_succ (sigma : 'cV[F]_n) (Gamma : 'M[F]_d) (beta : 'rV[F]_d)
    (X : 'M[F]_(n, d)) :
  (\rank (LN sigma Gamma beta X) <= \rank X + 1)%N.
Proof.
rewrite /LN; apply: leq_trans (mxrank_add _ _) _; apply: leq_add.
  apply: leq_trans (mxrankM_maxl _ _) _; apply: leq_trans (mxrankM_maxr _ _) _.
  exact: mxrankM_maxl.
exact: leq_trans (mxrankM_maxl _ _) (rank_leq_col _).
Qed.

(* rank(A + sigma b) = rank(A) + [b notin row(A)] when sigma notin col(A) *)
Lemma rank_one_update (A : 'M[F]_(n, d)) (sigma : 'cV[F]_n) (b : 'rV[F]_d) :
  sigma != 0 -> ~~ in_col sigma A ->
  \rank (A + sigma *m b)%R = (\rank A + ~~ (b <= A)%MS)%N.
Proof.
move=> s0 H4; case: (boolP (b <= A)%MS) => [bA | nbA] /=.
  apply/eqP; rewrite addn0 eqn_leq mxrankS ?addmx_sub ?submx_refl ?(submx_trans (submxMl _ _) bA) //=.
  rewrite -(leq_add2r 1).
  have -> : (\rank A + 1 = \rank (row_mx A sigma))%N by rewrite rank_row_mx_cV H4.
  have -> : row_mx A sigma = row_mx (A + sigma *m b)%R sigma *m block_mx 1%:M 0 (- b) 1%:M.
    by rewrite mul_row_block !mulmx0 !mulmx1 !add0r mulmxN addrK.
  rewrite mxrank_unitr; last by rewrite unitmxE det_lblock !det1 mulr1 unitr1.
  by rewrite rank_row_mx_cV leq_add2l leq_b1.
have b0 : b != 0 by apply: contraNneq nbA => ->; rewrite sub0mx.
have sb0 : sigma *m b != 0.
  apply: contraNneq s0 => sb0; apply/eqP/matrixP => i k; rewrite ord1 [RHS]mxE.
  have := congr1 (row i) sb0; rewrite row_mul row0 (mx11_scalar (row i sigma)) mul_scalar_mx.
  by move/eqP; rewrite scaler_eq0 (negbTE b0) orbF mxE => /eqP.
have rank_sb : \rank (sigma *m b) = 1%N.
  apply/eqP; rewrite eqn_leq (leq_trans (mxrankM_maxr _ _) (rank_leq_row _)) /=.
  by rewrite lt0n mxrank_eq0.
have rows : (sigma *m b :=: b)%MS.
  apply/eqmxP; rewrite -(geq_leqif (mxrank_leqif_eq (submxMl _ _))).
  by rewrite rank_rV b0 rank_sb.
have cols : ((sigma *m b)^T :=: sigma^T)%MS.
  apply/eqmxP; rewrite trmx_mul -(geq_leqif (mxrank_leqif_eq (submxMl _ _))).
  by rewrite rank_rV trmx_eq0 s0 -trmx_mul mxrank_tr rank_sb.
rewrite (proj2 (rank_additivity_iff A (sigma *m b))) ?rank_sb //; split.
  apply/eqP; rewrite -mxrank_eq0 (eqmx_rank (introT eqmxP (cap_eqmx (eqmx_refl A) rows))).
  by rewrite rank_cap_rV // (negbTE nbA).
apply/eqP; rewrite -mxrank_eq0 (eqmx_rank (introT eqmxP (cap_eqmx (eqmx_refl A^T) cols))).
by rewrite rank_cap_rV ?trmx_eq0 // -/(in_col sigma A) (negbTE H4).
Qed.

(* reading corrected:
   H1-H4 => rank(LN(X)) = rank(X) + [beta (/) gamma notin row(X~)],
   beta (/) gamma = beta Gamma^-1 (entrywise beta_j / gamma_j for Gamma = diag gamma) *)
Lemma rank_LN_plus_one (sigma : 'cV[F]_n) (Gamma : 'M[F]_d) (beta : 'rV[F]_d)
    (X : 'M[F]_(n, d)) :
  (0 < n)%N -> (forall i, sigma i 0 != 0) -> ~~ (ones_d <= X)%MS ->
  Gamma \in unitmx -> ~~ in_col sigma (X *m P) ->
  \rank (LN sigma Gamma beta X) = (\rank X + ~~ (beta *m invmx Gamma <= X *m P)%MS)%N.
Proof.
move=> n_gt0 H1 H2 H3 H4.
have s0 : sigma != 0.
  by apply/eqP => /matrixP/(_ (Ordinal n_gt0) 0); rewrite mxE; apply/eqP/H1.
have -> : LN sigma Gamma beta X
          = D sigma *m (X *m P + sigma *m (beta *m invmx Gamma)) *m Gamma.
  by rewrite /LN mulmxDr mulmxDl [D sigma *m (sigma *m _)]mulmxA D_sigma // -!mulmxA mulVmx // mulmx1.
rewrite mxrank_unitr // mxrank_unitl ?D_unit // rank_one_update //.
by rewrite -(rank_centred X) (negbTE H2) addn0.
Qed.

End RankNeutrality.
