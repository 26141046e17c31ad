(* The algebraic steps of the genericity arguments (sections 5.1, 5.2, 6.1):
   a failure of the rank statement forces a stated polynomial in the entries
   of the perturbation (or of the weights) to vanish, and one witness makes
   that polynomial non-zero.  The polynomial is always a minor after fixed
   changes of basis, p(M) = det(L M R) with L, R constant matrices, so it is a
   polynomial in the entries of M.  That the zero set of a non-zero
   polynomial is Lebesgue-null (what turns "off a proper algebraic set" into
   "almost every") is not proved here: MathComp-Analysis 0.6.0 lacks it.
     RRO.only-increase   rank(X + Delta) < rank X forces p(Delta) = 0, and
                         p(0) != 0;
     RC.generic-wv       rank(X W_V) != min(rank X, d_k) forces p(W_V) = 0,
                         and p(W0) != 0 at a witness W0;
     Prop 5.1 (algebraic step; no reading of its own yet)
                         rank(A + B) <= rank A = r < min(n, d) forces the
                         (r+1)-minor p(B) to vanish, and p(B0) != 0;
     RRO.remark-ii       rank A = min(n, d) => rank(A + B) <= rank A;
     RRO.strengthens     rank(X + Delta) > rank X => row Delta not in row X,
                         and not conversely;
     RRO.remark-iii-generic   rank X < min(n, d) => {Delta : row Delta in
                         row X} is a linear subspace of dimension n rank X <
                         n d;
     RC.generic-wo       rank W_O = d_k => rank(Y W_O) = rank Y. *)
From mathcomp Require Import all_ssreflect all_algebra.
From CollapseVerify Require Import preamble.
Import GRing.Theory.
Local Open Scope ring_scope.

Section Minors.
Variable F : fieldType.

(* det M != 0 iff M has full rank *)
Lemma det_neq0_full_rank m (M : 'M[F]_m) : (\det M != 0) = (\rank M == m).
Proof. by rewrite -unitfE -unitmxE -row_free_unit. Qed.

(* a rank below m kills every m x m minor det(L M R) *)
Lemma minor_vanishes m n d (L : 'M[F]_(m, n)) (M : 'M[F]_(n, d)) (R : 'M[F]_(d, m)) :
  (\rank M < m)%N -> \det (L *m M *m R) = 0.
Proof.
move=> lt; apply/eqP; apply: contraTT lt; rewrite det_neq0_full_rank -leqNgt => /eqP <-.
exact: leq_trans (mxrankM_maxl _ _) (mxrankM_maxr _ _).
Qed.

(* L X R = I for the echelon bases of X *)
Lemma ebase_minor n d (X : 'M[F]_(n, d)) :
  ((pid_mx (\rank X) : 'M[F]_(\rank X, n)) *m invmx (col_ebase X)) *m X
    *m (invmx (row_ebase X) *m (pid_mx (\rank X) : 'M[F]_(d, \rank X))) = 1%:M.
Proof.
have rn := rank_leq_row X; have rd := rank_leq_col X; set r := \rank X in rn rd *.
have E : X = col_ebase X *m pid_mx r *m row_ebase X by rewrite mulmx_ebase.
rewrite {2}E !mulmxA mulmxKV ?col_ebase_unit // -!mulmxA.
rewrite mulKVmx ?row_ebase_unit // !mul_pid_mx !minnn (minn_idPr rd).
by rewrite minnn (minn_idPr rn) pid_mx_1.
Qed.

(* RRO.only-increase: "The residual update X + Delta can only increase rank
   in the generic case": rank(X + Delta) < rank X forces the polynomial
   p(Delta) = det(L (X + Delta) R) to vanish, and p(0) != 0 *)
Lemma residual_rank_generic n d (X : 'M[F]_(n, d)) :
  exists (L : 'M[F]_(\rank X, n)) (R : 'M[F]_(d, \rank X)),
    \det (L *m (X + 0) *m R) != 0 /\
    forall Delta, (\rank (X + Delta)%R < \rank X)%N -> \det (L *m (X + Delta) *m R) = 0.
Proof.
exists (pid_mx (\rank X) *m invmx (col_ebase X)), (invmx (row_ebase X) *m pid_mx (\rank X)).
split=> [|Delta]; last exact: minor_vanishes.
by rewrite addr0 ebase_minor det1 oner_neq0.
Qed.

(* the leading k x k minor of an n x d matrix *)
Definition leading_minor k n d (M : 'M[F]_(n, d)) : F :=
  \det ((pid_mx k : 'M[F]_(k, n)) *m M *m (pid_mx k : 'M[F]_(d, k))).

(* Proposition 5.1, the algebraic step: for rank A = r < min(n, d),
   rank(A + B) <= r forces the leading (r+1)-minor of A + B (a polynomial in
   the entries of B) to vanish, and the witness B0 = I_(r+1) - A (the
   (r+1) x (r+1) identity block minus A) makes it 1 *)
Lemma prop51_algebraic n d (A : 'M[F]_(n, d)) :
  (\rank A < minn n d)%N ->
  exists B0 : 'M[F]_(n, d),
    leading_minor (\rank A).+1 (A + B0) != 0 /\
    forall B, (\rank (A + B)%R <= \rank A)%N -> leading_minor (\rank A).+1 (A + B) = 0.
Proof.
rewrite leq_min => /andP[rn rd].
exists (pid_mx (\rank A).+1 - A); split=> [|B le]; last by apply: minor_vanishes; rewrite ltnS.
rewrite /leading_minor addrC subrK !mul_pid_mx !minnn (minn_idPr rn) minnn (minn_idPr rd).
by rewrite pid_mx_1 det1 oner_neq0.
Qed.

(* RC.generic-wv: "For generic W_V: rank(X W_V) = min(rank(X), d_k)":
   rank(X W_V) != min(rank X, d_k) forces the polynomial
   p(W_V) = det(L X W_V R) to vanish, and p(W0) != 0 at a witness W0 *)
Lemma generic_WV n d d_k (X : 'M[F]_(n, d)) :
  exists (L : 'M[F]_(minn (\rank X) d_k, n)) (R : 'M[F]_(d_k, minn (\rank X) d_k))
         (W0 : 'M[F]_(d, d_k)),
    \det (L *m (X *m W0) *m R) != 0 /\
    forall W_V : 'M[F]_(d, d_k), \rank (X *m W_V) != minn (\rank X) d_k ->
      \det (L *m (X *m W_V) *m R) = 0.
Proof.
set r := \rank X; set m := minn r d_k.
have mr : (m <= r)%N by rewrite geq_minl.
have md : (m <= d_k)%N by rewrite geq_minr.
have rn : (r <= n)%N by apply: rank_leq_row.
have rd : (r <= d)%N by apply: rank_leq_col.
exists (pid_mx m *m invmx (col_ebase X)), (pid_mx m), (invmx (row_ebase X) *m pid_mx m).
split=> [|W_V ne]; last first.
  apply: minor_vanishes; rewrite ltn_neqAle ne /= leq_min mxrankM_maxl /=.
  exact: leq_trans (mxrankM_maxr _ _) (rank_leq_col _).
have E : X = col_ebase X *m pid_mx r *m row_ebase X by rewrite mulmx_ebase.
rewrite {2}E !mulmxA mulmxKV ?col_ebase_unit // -!mulmxA.
rewrite mulKVmx ?row_ebase_unit // !mul_pid_mx.
rewrite minnn (minn_idPr md) (minn_idPr mr) (minn_idPr (leq_trans mr rd)) minnn.
by rewrite (minn_idPr (leq_trans mr rn)) pid_mx_1 det1 oner_neq0.
Qed.

End Minors.

(* ------------------------------------------------------------------ *)
Section RankRemarks.
Variables (F : fieldType) (n d : nat).

(* RRO.remark-ii: "If A is already full-rank, r = min(n, d_model) and ... the
   rank cannot increase further": rank A = min(n, d) => rank(A + B) <= rank A *)
Lemma full_rank_cannot_increase (A B : 'M[F]_(n, d)) :
  \rank A = minn n d -> (\rank (A + B)%R <= \rank A)%N.
Proof. by move=> ->; rewrite leq_min rank_leq_row rank_leq_col. Qed.

(* RRO.strengthens: "rank strictly increases, not merely rowspace not
   contained in rowspace": rank(X + Delta) > rank X => row Delta not in row X *)
Lemma rank_increase_leaves_rowspace (X Delta : 'M[F]_(n, d)) :
  (\rank X < \rank (X + Delta)%R)%N -> ~~ (Delta <= X)%MS.
Proof.
apply: contraTN => sub; rewrite -leqNgt; apply: mxrankS.
by rewrite addmx_sub ?submx_refl.
Qed.

(* ... "and not conversely": for n >= 1, d >= 2 some Delta leaves row X and
   yet does not raise the rank (X = e_1 f_1^T, Delta = e_1 (f_2 - f_1)^T) *)
Lemma rowspace_exit_without_increase (n_gt0 : (0 < n)%N) (d_ge2 : (1 < d)%N) :
  exists X Delta : 'M[F]_(n, d), ~~ (Delta <= X)%MS /\ (\rank (X + Delta)%R <= \rank X)%N.
Proof.
set i0 := Ordinal n_gt0; set j0 := Ordinal (ltnW d_ge2); set j1 := Ordinal d_ge2.
exists (delta_mx i0 j0), (delta_mx i0 j1 - delta_mx i0 j0); split; last first.
  by rewrite addrC subrK !mxrank_delta.
apply/negP => /submxP[c /matrixP/(_ i0 j1)].
rewrite !mxE !eqxx /= (eq_bigr (fun=> 0)) ?big1_eq => [|k _]; last by rewrite !mxE andbF mulr0.
by rewrite subr0 => /eqP; rewrite oner_eq0.
Qed.

(* RRO.remark-iii-generic: "its negation defines an algebraic variety of
   Lebesgue measure zero": for rank X < min(n, d) the set {Delta : row Delta
   in row X} is the linear subspace V of n x d matrices spanned by the rows
   of X, of dimension n rank X < n d (so a proper linear, hence algebraic,
   subset).  V is the image of C |-> C B, B a basis of row X. *)
Definition rowspace_perturbations (X : 'M[F]_(n, d)) : {vspace 'M[F]_(n, d)} :=
  (linfun (mulmxr (row_base X) : 'M[F]_(n, \rank X) -> 'M[F]_(n, d)) @: fullv)%VS.

Lemma rowspace_perturbations_proper (X : 'M[F]_(n, d)) :
  (\rank X < minn n d)%N ->
  [/\ forall Delta, (Delta \in rowspace_perturbations X) = (Delta <= X)%MS,
      \dim (rowspace_perturbations X) = (n * \rank X)%N
    & (n * \rank X < n * d)%N].
Proof.
rewrite leq_min => /andP[rn rd]; split.
- move=> Delta; apply/memv_imgP/idP => [[C _ ->] | sub].
    by rewrite lfunE /= (submx_trans (submxMl C _)) // eq_row_base.
  have /submxP[C ->] : (Delta <= row_base X)%MS by rewrite eq_row_base.
  by exists C; rewrite ?memvf // lfunE.
- rewrite limg_dim_eq ?dimvf //; apply/eqP; rewrite -subv0; apply/subvP => C.
  by rewrite memv_cap memv_ker lfunE /= mulmx_free_eq0 ?row_base_free // memv0 => /andP[_].
- by rewrite ltn_pmul2l // (leq_ltn_trans (leq0n _) rn).
Qed.

End RankRemarks.

(* RC.generic-wo: "For generic W_O^(h) of rank d_k, right-multiplication also
   preserves rank": rank W_O = d_k => rank(Y W_O) = rank Y for every Y *)
Lemma generic_WO (F : fieldType) (n d_k d_model : nat) (W_O : 'M[F]_(d_k, d_model)) :
  \rank W_O = d_k -> forall Y : 'M[F]_(n, d_k), \rank (Y *m W_O) = \rank Y.
Proof. by move=> r Y; apply: mxrankMfree; apply/eqP. Qed.
