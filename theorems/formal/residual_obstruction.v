(* Cirrincione (2026), section 5.1, Proposition 5.1: the rank inequalities
     |rank(A) - rank(B)| <= rank(A + B) <= rank(A) + rank(B)
   for any two n x d_model matrices over any field.  Stretch: remark (iii),
   corrected (rank additivity when row and column spaces meet only in 0). *)
From mathcomp Require Import all_ssreflect all_algebra.
Set Implicit Arguments.
Unset Strict Implicit.
Unset Printing Implicit Defensive.
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
