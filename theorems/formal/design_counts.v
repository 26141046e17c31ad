(* DC.ffn-flops, reading `matmul-convention`: Cirrincione (2026), section 5.3,
   "The canonical choice d_ff = 4 d_model (64.8% of FLOPs in BertBase)".
   Matmul convention (a multiply-add is 2 FLOPs): projections Q, K, V, O
   8 n d^2, scores Q K^T 2 n^2 d, weighted sum A V 2 n^2 d, FFN 4 n d d_ff.
   With d_ff = 4 d the FFN share of a layer's FLOPs is 4 d / (6 d + n); at
   BERT-base (d = 768) it rounds to 64.8% (0.6475 <= share < 0.6485) exactly
   for the sequence lengths 130 <= n <= 136. *)
From Coq Require Import QArith ZArith Lia.
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix.
From CollapseVerify Require Import preamble.
Import GRing.Theory Num.Theory.
Local Open Scope ring_scope.

Section FlopShare.
Variable F : numFieldType.
Implicit Types n d d_ff : F.

Definition flops_projections n d := 8 * n * d ^+ 2.
Definition flops_scores n d := 2 * n ^+ 2 * d.
Definition flops_weighted_sum n d := 2 * n ^+ 2 * d.
Definition flops_ffn n d d_ff := 4 * n * d * d_ff.
Definition flops_layer n d d_ff :=
  flops_projections n d + flops_scores n d + flops_weighted_sum n d + flops_ffn n d d_ff.

(* the layer's FLOPs with d_ff = 4 d: 4 n d (6 d + n) *)
Lemma flops_layer_4d n d : flops_layer n d (4 * d) = (6 * d + n) * (4 * n * d).
Proof.
rewrite /flops_layer /flops_projections /flops_scores /flops_weighted_sum /flops_ffn.
rewrite !mulr_natl !mulrnAl !mulrnAr mulrDl mulrnAl mulrnDl -!mulrnA.
rewrite !expr2 [d * (n * d)]mulrCA !mulrA.
by rewrite -[n * d * d *+ 8 + _ + _]addrA -mulrnDr addrAC -mulrnDr.
Qed.

(* "d_ff = 4 d_model": with n, d > 0 the FFN share of a layer's FLOPs is
   FLOPs_FFN / FLOPs_layer = 4 d / (6 d + n) *)
Lemma ffn_flops_share n d : 0 < n -> 0 < d ->
  flops_ffn n d (4 * d) / flops_layer n d (4 * d) = 4 * d / (6 * d + n).
Proof.
move=> n_gt0 d_gt0.
have k0 : 4 * n * d != 0 by rewrite !mulf_neq0 ?pnatr_eq0 ?lt0r_neq0.
rewrite flops_layer_4d /flops_ffn [4 * n * d * _]mulrC.
by rewrite invfM mulrACA divff // mulr1.
Qed.

End FlopShare.

(* The reading's numbers, in Coq's binary rationals Q (exact arithmetic):
   "4d / (6d + n) = 0.648 +- 0.0005 iff n in [n_lo, n_hi]" at d = 768,
   with n_lo = 130 and n_hi = 136 (n a natural number, the sequence length). *)
Section BertShare.
Local Open Scope Q_scope.

(* 4 d / (6 d + n), the FFN share of the FLOPs under the matmul convention *)
Definition ffn_share_Q (d n : Z) : Q := inject_Z (4 * d) / inject_Z (6 * d + n).

Lemma bert_ffn_share_648 (n : nat) :
  (6475 # 10000 <= ffn_share_Q 768 (Z.of_nat n) /\ ffn_share_Q 768 (Z.of_nat n) < 6485 # 10000)
  <-> Z.le 130 (Z.of_nat n) /\ Z.le (Z.of_nat n) 136.
Proof.
unfold ffn_share_Q.
set (den := inject_Z (6 * 768 + Z.of_nat n)).
assert (pos : 0 < den).
{ unfold den. change 0 with (inject_Z 0). rewrite <- Zlt_Qlt. lia. }
split.
- intros [lo hi].
  assert (lo' : (6475 # 10000) * den <= inject_Z (4 * 768)).
  { destruct (Qlt_le_dec (inject_Z (4 * 768)) ((6475 # 10000) * den)) as [c|c]; [|exact c].
    exfalso. exact (Qlt_not_le _ _ (Qlt_shift_div_r _ _ _ pos c) lo). }
  assert (hi' : inject_Z (4 * 768) < (6485 # 10000) * den).
  { destruct (Qlt_le_dec (inject_Z (4 * 768)) ((6485 # 10000) * den)) as [c|c]; [exact c|].
    exfalso. exact (Qlt_not_le _ _ hi (Qle_shift_div_l _ _ _ pos c)). }
  unfold den, Qle, Qlt, Qmult, inject_Z in *; cbn [Qnum Qden Pos.mul] in *.
  lia.
- intros H. split.
  + apply Qle_shift_div_l; [exact pos|].
    unfold den, Qle, Qlt, Qmult, inject_Z in *; cbn [Qnum Qden Pos.mul] in *.
    lia.
  + apply Qlt_shift_div_r; [exact pos|].
    unfold den, Qle, Qlt, Qmult, inject_Z in *; cbn [Qnum Qden Pos.mul] in *.
    lia.
Qed.

End BertShare.

