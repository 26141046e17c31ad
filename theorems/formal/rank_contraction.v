(* Cirrincione (2026), section 6.1.  The paper states
     rank(MHA(X)) = dim(R_1 + ... + R_H),  R_h = rowspace(Y^(h) W_O^(h)).
   What always holds (reading `corrected` of RC.rank-equals-sum) is the
   inequality rank(MHA(X)) <= dim(R_1 + ... + R_H); with it, the
   subadditivity bound rank(MHA(X)) <= H d_k of the same section. *)
From mathcomp Require Import all_ssreflect all_algebra.
Set Implicit Arguments.
Unset Strict Implicit.
Unset Printing Implicit Defensive.
Import GRing.Theory.
Local Open Scope ring_scope.

Section MultiHeadRank.
Variables (F : fieldType) (n d_model d_k H : nat).
(* Y h = Y^(h) (n x d_k), the output of head h; W_O h = W_O^(h) (d_k x d_model) *)
Variables (Y : 'I_H -> 'M[F]_(n, d_k)) (W_O : 'I_H -> 'M[F]_(d_k, d_model)).

(* MHA(X) = sum_h Y^(h) W_O^(h) *)
Definition MHA : 'M[F]_(n, d_model) := \sum_(h < H) Y h *m W_O h.

(* R_h = rowspace(Y^(h) W_O^(h)); MathComp writes the row space of a matrix
   A as <<A>> (a square matrix with the same row space) *)
Definition R (h : 'I_H) : 'M[F]_(n, d_model) := Y h *m W_O h.

(* "rank(MHA(X)) <= dim(R_1 + ... + R_H)", the sum a sum of subspaces *)
Lemma rank_MHA_le_dim_sum_R : (\rank MHA <= \rank (\sum_(h < H) <<R h>>)%MS)%N.
Proof. by apply/mxrankS/summx_sub_sums => h _; rewrite genmxE. Qed.

(* "dim(R_1 + ... + R_H) <= sum_h rank(Y^(h) W_O^(h))" *)
Lemma dim_sum_R_le_sum_rank :
  (\rank (\sum_(h < H) <<R h>>)%MS <= \sum_(h < H) \rank (R h))%N.
Proof.
elim/big_rec2: _ => [|h r M _ IH]; first by rewrite mxrank0.
apply: leq_trans (mxrank_adds_leqif _ _) _.
by rewrite genmxE leq_add2l.
Qed.

(* "Each summand Y^(h) W_O^(h) has rank <= d_k. By subadditivity,
    rank(MHA(X)) <= H d_k" *)
Lemma rank_MHA_le_H_dk : (\rank MHA <= H * d_k)%N.
Proof.
apply: leq_trans rank_MHA_le_dim_sum_R _.
apply: leq_trans dim_sum_R_le_sum_rank _.
rewrite -[H in (_ <= H * _)%N]card_ord -sum_nat_const.
by apply: leq_sum => h _; exact: leq_trans (mxrankM_maxr _ _) (rank_leq_row _).
Qed.

End MultiHeadRank.

(* Proposition 6.3, "dim(R_h) = min(rank(X), d_k)", with its genericity
   stated algebraically: the attention matrix A^(h) is invertible (softmax
   attention is generically invertible), rank(X W_V^(h)) = min(rank X, d_k)
   (generic W_V^(h)), and W_O^(h) has full row rank d_k (generic W_O^(h)).
   A^(h) enters only through its invertibility, so the conclusion does not
   depend on which invertible A^(h) (any alpha_h) the head uses. *)
Section Prop63.
Variables (F : fieldType) (n d_model d_k : nat).
Variables (A : 'M[F]_n) (X : 'M[F]_(n, d_model)) (W_V : 'M[F]_(d_model, d_k))
          (W_O : 'M[F]_(d_k, d_model)).

Lemma dim_R_h_generic :
  A \in unitmx -> \rank (X *m W_V) = minn (\rank X) d_k -> row_free W_O ->
  \rank (A *m X *m W_V *m W_O) = minn (\rank X) d_k.
Proof.
move=> uA rXV fO; rewrite mxrankMfree // -mulmxA -mxrank_tr trmx_mul.
by rewrite mxrankMfree ?row_free_unit ?unitmx_tr // mxrank_tr.
Qed.

End Prop63.

