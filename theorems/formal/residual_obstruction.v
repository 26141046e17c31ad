(* Cirrincione (2026), section 5.1, Proposition 5.1: the rank inequalities
     |rank(A) - rank(B)| <= rank(A + B) <= rank(A) + rank(B)
   for any two n x d_model matrices over any field.  Stretch: remark (iii),
   corrected (rank additivity when row and column spaces meet only in 0). *)
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix ssrint fingroup perm mxalgebra.
From CollapseVerify Require Import preamble.
Import GRing.Theory.
Local Open Scope ring_scope.

Section RankOfASum.
Variables (F : fieldType) (n d_model : nat).
Implicit Types A B : 'M[F]_(n, d_model).

(* "rank(A + B) <= rank(A) + rank(B)" *)
Lemma rank_add_le A B : (\rank (A + B)%R <= \rank A + \rank B)%N.
Proof. exact: mxrank_add. Qed.

(* "|rank(A) - rank(B)| <= rank(A + B)", one side: rank(A) <= rank(A + B) + rank(B) *)
Lemma rank_sub_le A B : (\rank A <= \rank (A + B)%R + \rank B)%N.
Proof.
have := mxrank_add (A + B) (- B).
by rewrite addrK mxrank_opp.
Qed.

(* "|rank(A) - rank(B)| <= rank(A + B) <= rank(A) + rank(B)", on integers *)
Lemma rank_add_bounds A B :
  (`|(\rank A)%:Z - (\rank B)%:Z| <= \rank (A + B)%R <= \rank A + \rank B)%N.
Proof.
rewrite rank_add_le andbT.
case: (leqP (\rank B) (\rank A)) => [le_BA | /ltnW le_AB].
  by rewrite distnEl // leq_subLR addnC rank_sub_le.
by rewrite distnEr // leq_subLR addnC addrC rank_sub_le.
Qed.

End RankOfASum.

(* ------------------------------------------------------------------ *)
(* RRO.rowspace-remark, reading corrected (remark (iii), repaired; the
   Marsaglia-Styan rank additivity):
     rank(X + Delta) = rank X + rank Delta
       <=> row(X) :&: row(Delta) = 0  and  col(X) :&: col(Delta) = 0.
   Column spaces are the row spaces of the transposes. *)
Section RankAdditivity.
Variables (F : fieldType) (n d_model : nat).
Implicit Types X Delta : 'M[F]_(n, d_model).

Lemma rank_row_mx_disjoint X Delta : (X^T :&: Delta^T)%MS = 0 ->
  \rank (row_mx X Delta) = (\rank X + \rank Delta)%N.
Proof.
move=> cols0; rewrite -mxrank_tr tr_row_mx -(mxrank_tr X) -(mxrank_tr Delta).
rewrite -(mxrank_disjoint_sum cols0).
by apply/esym/eqmx_rank/eqmxP/addsmxE.
Qed.

Lemma ker_add_disjoint X Delta : (X :&: Delta)%MS = 0 ->
  (kermx (X + Delta)%R :=: kermx (row_mx X Delta))%MS.
Proof.
move=> rows0; apply/eqmxP/andP; split; apply/sub_kermxP.
  set K := kermx _; have := mulmx_ker (X + Delta)%R; rewrite -/K mulmxDr.
  move/eqP; rewrite addr_eq0 => /eqP KX.
  have KX0 : K *m X = 0.
    apply/eqP; rewrite -submx0 -rows0 sub_capmx submxMl KX.
    by rewrite -mulNmx submxMl.
  have KD0 : K *m Delta = 0 by apply/eqP; rewrite -oppr_eq0 -KX KX0.
  by rewrite mul_mx_row KX0 KD0 row_mx0.
set K := kermx _; have := mulmx_ker (row_mx X Delta); rewrite -/K mul_mx_row.
by move/eqP; rewrite -row_mx0 => /eqP /eq_row_mx[KX KD]; rewrite mulmxDr KX KD addr0.
Qed.

Lemma rows_disjoint_of_additive m k (A B : 'M[F]_(m, k)) :
  \rank (A + B)%R = (\rank A + \rank B)%N -> (A :&: B)%MS = 0.
Proof.
move=> eq_rank; apply/eqP; rewrite -mxrank_eq0 -leqn0.
have le : (\rank (A + B)%R <= \rank (A + B)%MS)%N.
  by apply/mxrankS/addmx_sub_adds; apply: submx_refl.
have := mxrank_sum_cap A B; rewrite -eq_rank => E.
by move: (leq_trans (eq_leq E) le); rewrite -{2}[\rank (A + B)%MS]addn0 leq_add2l.
Qed.

(* "rank(X + Delta) = rank X + rank Delta iff both the row spaces and the
   column spaces of X and Delta meet only in 0" *)
Lemma rank_additivity_iff X Delta :
  \rank (X + Delta)%R = (\rank X + \rank Delta)%N
  <-> (X :&: Delta)%MS = 0 /\ (X^T :&: Delta^T)%MS = 0.
Proof.
split=> [eq_rank | [rows0 cols0]].
  split; apply: rows_disjoint_of_additive => //.
  by rewrite -linearD /= !mxrank_tr.
have := mxrank_ker (X + Delta)%R.
rewrite (eqmx_rank (introT eqmxP (ker_add_disjoint rows0))) mxrank_ker.
rewrite rank_row_mx_disjoint // => E.
rewrite -(subKn (rank_leq_row (X + Delta)%R)) -E subKn //.
by rewrite -rank_row_mx_disjoint // rank_leq_row.
Qed.

End RankAdditivity.

(* ------------------------------------------------------------------ *)
(* MLP.span, reading invariant-hull: a stack of attention + residual layers
     X_(l+1) = X_l + sum_h A_(l,h)(X_l) X_l W_(l,h),   W_(l,h) = W_V W_O,
   keeps its rows in every subspace S that contains row(X_0) and is invariant
   under every W_(l,h) (so in the smallest one, S(X, W)).  The attention
   matrices A_(l,h) are arbitrary functions of the current state. *)
Section InvariantHull.
Variables (F : fieldType) (n d H : nat).
Variable A : nat -> 'I_H -> 'M[F]_(n, d) -> 'M[F]_n.   (* A_(l,h)(X) *)
Variable W : nat -> 'I_H -> 'M[F]_d.                    (* W_(l,h) = W_V^(l,h) W_O^(l,h) *)

Definition layer (l : nat) (X : 'M[F]_(n, d)) : 'M[F]_(n, d) :=
  X + \sum_(h < H) A l h X *m X *m W l h.

Fixpoint stack (L : nat) (X : 'M[F]_(n, d)) : 'M[F]_(n, d) :=
  if L is L'.+1 then layer L' (stack L' X) else X.

(* "row Phi(X) is contained in S(X, W), the smallest W_h-invariant subspace
   containing row X": true for every invariant S containing row X *)
Lemma stack_rows_in_invariant_hull (S : 'M[F]_d) (X : 'M[F]_(n, d)) :
  (X <= S)%MS -> (forall l h, (S *m W l h <= S)%MS) ->
  forall L, (stack L X <= S)%MS.
Proof.
move=> XS inv; elim=> [|L IH] //=; rewrite /layer addmx_sub // summx_sub // => h _.
apply: submx_trans (inv L h); apply: submxMr.
exact: submx_trans (submxMl _ _) IH.
Qed.

End InvariantHull.


(* MLP.bilinear-attention, reading scores-bilinear: "the bilinear attention
   mechanism": the scores S(X, Y) = X W_Q W_K^T Y^T, before the softmax, are
   linear in X for fixed Y and linear in Y for fixed X *)
Section BilinearScores.
Variables (F : fieldType) (n m d d_k : nat) (W_Q W_K : 'M[F]_(d, d_k)).

Definition scores (X : 'M[F]_(n, d)) (Y : 'M[F]_(m, d)) : 'M[F]_(n, m) :=
  X *m W_Q *m W_K^T *m Y^T.

Lemma scores_bilinear (X Z : 'M[F]_(n, d)) (Y Z' : 'M[F]_(m, d)) (c : F) :
  scores (X + c *: Z) Y = scores X Y + c *: scores Z Y /\
  scores X (Y + c *: Z') = scores X Y + c *: scores X Z'.
Proof.
rewrite /scores; split; first by rewrite !mulmxDl !scalemxAl.
by rewrite linearD linearZ /= mulmxDr scalemxAr.
Qed.

End BilinearScores.
