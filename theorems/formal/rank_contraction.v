(* Cirrincione (2026), section 6.1.  The paper states
     rank(MHA(X)) = dim(R_1 + ... + R_H),  R_h = rowspace(Y^(h) W_O^(h)).
   What always holds (reading `corrected` of RC.rank-equals-sum) is the
   inequality rank(MHA(X)) <= dim(R_1 + ... + R_H); with it, the
   subadditivity bound rank(MHA(X)) <= H d_k of the same section, beside
   its first step rank(Y^(h) W_O^(h)) <= d_k (lemma subadditivity). *)
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix mxalgebra.
From CollapseVerify Require Import preamble.
Import GRing.Theory Num.Theory.
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

(* RC.subadditivity, both conjuncts: "Each summand Y^(h) W_O^(h) has rank
   <= d_k. By subadditivity, rank(MHA(X)) <= H d_k" *)
Lemma subadditivity :
  (forall h, \rank (Y h *m W_O h) <= d_k)%N /\ (\rank MHA <= H * d_k)%N.
Proof.
split; last exact: rank_MHA_le_H_dk.
by move=> h; exact: leq_trans (mxrankM_maxr _ _) (rank_leq_row _).
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

(* RC.alpha-range: "alpha_h = ||M_a||_F / ||M||_F in [0, 1]" for the score
   matrix M = W_Q W_K^T (any square matrix here) and its antisymmetric part
   M_a = (M - M^T) / 2, over a real closed field (square roots).  At M = 0 the
   paper's quotient is undefined; MathComp's x / 0 = 0 gives alpha = 0. *)
Section DirectionalAsymmetry.
Variables (R : rcfType) (d : nat).

(* (a - b)^2 <= 2 (a^2 + b^2) *)
Lemma sq_diff_le (a b : R) : (a - b) ^+ 2 <= (a ^+ 2 + b ^+ 2) *+ 2.
Proof.
rewrite sqrrB -subr_ge0 [_ - _ + _]addrAC mulr2n opprB addrC.
rewrite (addrA (a * b *+ 2 - _)) subrK.
have -> : a * b *+ 2 + (a ^+ 2 + b ^+ 2) = (a + b) ^+ 2 by rewrite sqrrD addrAC addrC.
exact: sqr_ge0.
Qed.

(* ||M||_F^2, ||M||_F, M_a = (M - M^T) / 2 and alpha = ||M_a||_F / ||M||_F *)
Definition frob2 (M : 'M[R]_d) : R := \sum_i \sum_j M i j ^+ 2.
Definition frob (M : 'M[R]_d) : R := Num.sqrt (frob2 M).
Definition antisym (M : 'M[R]_d) : 'M[R]_d := 2%:R^-1 *: (M - M^T).
Definition alpha (M : 'M[R]_d) : R := frob (antisym M) / frob M.

Lemma frob2_antisym_le (M : 'M[R]_d) : frob2 (antisym M) <= frob2 M.
Proof.
have E : frob2 (antisym M) = 2%:R^-1 ^+ 2 * \sum_i \sum_j (M i j - M j i) ^+ 2.
  rewrite /frob2 mulr_sumr; apply: eq_bigr => i _; rewrite mulr_sumr; apply: eq_bigr => j _.
  by rewrite !mxE exprMn.
have S4 : \sum_i \sum_j (M i j ^+ 2 + M j i ^+ 2) *+ 2 = frob2 M *+ 4.
  under eq_bigr do rewrite sumrMnl big_split /=.
  rewrite sumrMnl big_split /= [X in _ + X](exchange_big _ _ _ _ _ (fun i j => M j i ^+ 2)).
  by rewrite -mulr2n -mulrnA.
have q : (2%:R^-1 : R) ^+ 2 * 4%:R = 1.
  by rewrite -[4%N]/(2 ^ 2)%N natrX -exprMn mulVf ?expr1n // pnatr_eq0.
rewrite E; apply: Order.POrderTheory.le_trans (_ : 2%:R^-1 ^+ 2 * (frob2 M *+ 4) <= _).
  rewrite ler_pmul2l ?exprn_gt0 ?invr_gt0 ?ltr0n // -S4.
  by apply: ler_sum => i _; apply: ler_sum => j _; apply: sq_diff_le.
by rewrite -[frob2 M *+ 4]mulr_natr mulrCA q mulr1.
Qed.

(* "alpha_h in [0, 1]" *)
Lemma alpha_range (M : 'M[R]_d) : 0 <= alpha M <= 1.
Proof.
rewrite /alpha divr_ge0 ?sqrtr_ge0 //=.
have [->|f0] := eqVneq (frob M) 0; first by rewrite invr0 mulr0 ler01.
have fpos : 0 < frob M by rewrite Order.POrderTheory.lt_def f0 sqrtr_ge0.
rewrite ler_pdivr_mulr // mul1r; apply: ler_wsqrtr; exact: frob2_antisym_le.
Qed.
End DirectionalAsymmetry.
