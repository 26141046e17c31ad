(* RRO.witness-wo-choice's corrected reading in its Lebesgue form: for
   generic head weights (W_V^h, W_O^h)_h, row MHA(X* ) leaves span(f_1).

   The pinned form: for R MathComp-Analysis's reals, n.+1 tokens, d_model =
   d.+2, d_k = dk.+1, H.+1 heads, any fixed W_Q, W_K (W_Q = 0, uniform
   attention, among them), any positive exp (expR among them) and any tau,
   the tuple of head weights is one matrix M : 'M_(H.+1, a + b) (row h holds
   mxvec W_V^h then mxvec W_O^h; WV_of, WO_of read them back, heads_mx writes
   them: every entry of every W_V^h, W_O^h is one coordinate, so mx_null on M
   is Lebesgue-null on the tuple), and
     wo_choice_null : mx_null [set M | row MHA(X* ) inside span(f_1)]
   (MHA(X* ) built from WV_of M, WO_of M).  A fortiori null among the tuples
   with (W_O^(1))_12 <> 0.  The polynomial is MHA(X* )_12 (entries of W_V,
   W_O; the attention is fixed), non-zero at the witness of
   residual_witness.v's wo_choice_generic. *)
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix ssrint rat poly mxpoly mxalgebra fingroup perm zmodp interval.
From mathcomp.classical Require Import mathcomp_extra boolp classical_sets functions.
From mathcomp.analysis Require Import reals ereal signed topology normedtype sequences esum measure lebesgue_measure lebesgue_integral.
From CollapseVerify Require Import preamble genericity zero_set null_set null_set_mx dong_collapse softmax_attention residual_witness.
Import GRing.Theory Num.Theory.
Local Open Scope ring_scope.
Local Open Scope classical_set_scope.

Section Heads.
Variable R : realType.

Lemma pfmx_sum m n p q (I : finType) (F : I -> 'M[R]_(m, n) -> 'M[R]_(p, q)) :
  (forall i, pfmx (F i)) -> pfmx (fun W => \sum_i F i W).
Proof.
move=> pF i j.
have := @polyfun_sum _ _ _ _ (index_enum I) xpredT (fun k W => F k W i j) (fun k => pF k i j).
by move/pf_ext; apply => W; rewrite summxE.
Qed.

Section Tuple.
Variables (d dk H : nat).
Local Notation a := ((d.+2) * (dk.+1))%N.
Local Notation b := ((dk.+1) * (d.+2))%N.

(* the tuple of head weights (W_V^h, W_O^h)_h as one matrix: row h holds
   mxvec W_V^h, then mxvec W_O^h; its entries are the entries of all the
   W_V^h and W_O^h, each once, so mx_null on it is Lebesgue-null on the
   tuple *)
Definition WV_of (M : 'M[R]_(H.+1, a + b)) (h : 'I_H.+1) : 'M[R]_(d.+2, dk.+1) :=
  vec_mx (lsubmx (row h M)).
Definition WO_of (M : 'M[R]_(H.+1, a + b)) (h : 'I_H.+1) : 'M[R]_(dk.+1, d.+2) :=
  vec_mx (rsubmx (row h M)).
Definition heads_mx (W_V : 'I_H.+1 -> 'M[R]_(d.+2, dk.+1)) (W_O : 'I_H.+1 -> 'M[R]_(dk.+1, d.+2)) :
  'M[R]_(H.+1, a + b) := \matrix_(h, k) row_mx (mxvec (W_V h)) (mxvec (W_O h)) 0 k.

Lemma heads_mxK W_V W_O : WV_of (heads_mx W_V W_O) = W_V /\ WO_of (heads_mx W_V W_O) = W_O.
Proof.
have E h : row h (heads_mx W_V W_O) = row_mx (mxvec (W_V h)) (mxvec (W_O h)).
  by apply/rowP => k; rewrite !mxE.
split; apply/funext => h; rewrite /WV_of /WO_of E.
  by rewrite row_mxKl mxvecK.
by rewrite row_mxKr mxvecK.
Qed.

Lemma pfmx_WV h : pfmx (fun M : 'M[R]_(H.+1, a + b) => WV_of M h).
Proof.
move=> i j; have := @pf_coord R H.+1 (a + b) h (lshift b (mxvec_index i j)).
move/pf_ext; apply => M /=.
by rewrite /WV_of -[in RHS](mxvecE (vec_mx _)) vec_mxK !mxE.
Qed.

Lemma pfmx_WO h : pfmx (fun M : 'M[R]_(H.+1, a + b) => WO_of M h).
Proof.
move=> i j; have := @pf_coord R H.+1 (a + b) h (rshift a (mxvec_index i j)).
move/pf_ext; apply => M /=.
by rewrite /WO_of -[in RHS](mxvecE (vec_mx _)) vec_mxK !mxE.
Qed.

(* RRO.witness-wo-choice, corrected: with W_Q, W_K fixed (W_Q = 0, uniform
   attention, among them) and any positive exp (expR among them), the head
   weights (W_V^h, W_O^h)_h for which every row of MHA(X* ) lies in span(f_1)
   form a Lebesgue-null set of the tuple; a fortiori among the tuples with
   (W_O^(1))_12 <> 0 *)
Lemma wo_choice_null n (exp : R -> R) (tau : R) (W_Q W_K : 'I_H.+1 -> 'M[R]_(d.+2, dk.+1)) :
  (forall x, 0 < exp x) ->
  mx_null [set M : 'M[R]_(H.+1, a + b) |
    (MHA exp tau (Xstar R n d.+1) W_Q W_K (WV_of M) (WO_of M) <= (delta_mx 0 0 : 'rV[R]_d.+2))%MS].
Proof.
move=> exp_gt0.
have [van [W_V0 [W_O0 [_ nz]]]] := wo_choice_generic tau n W_Q W_K exp_gt0.
have pM : pfmx (fun M : 'M[R]_(H.+1, a + b) =>
                  MHA exp tau (Xstar R n d.+1) W_Q W_K (WV_of M) (WO_of M)).
  rewrite /MHA; apply: pfmx_sum => h; apply: pfmx_mul; last exact: pfmx_WO.
  by apply: pfmx_mul; [exact: pfmx_cst | apply: pfmx_mul; [exact: pfmx_cst | exact: pfmx_WV]].
apply: (@polyfun_bad_set_null _ _ _
  (fun M => MHA exp tau (Xstar R n d.+1) W_Q W_K (WV_of M) (WO_of M) 0 (lift 0 0))
  (heads_mx W_V0 W_O0)).
- exact: pM.
- by case: (heads_mxK W_V0 W_O0) => -> ->.
- by move=> M /= sub; exact: van.
Qed.

End Tuple.
End Heads.
