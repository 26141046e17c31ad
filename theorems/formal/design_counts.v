(* DC.ffn-flops, reading `matmul-convention`: Cirrincione (2026), section 5.3,
   "The canonical choice d_ff = 4 d_model (64.8% of FLOPs in BertBase)".
   Matmul convention (a multiply-add is 2 FLOPs): projections Q, K, V, O
   8 n d^2, scores Q K^T 2 n^2 d, weighted sum A V 2 n^2 d, FFN 4 n d d_ff.
   With d_ff = 4 d the FFN share of a layer's FLOPs is 4 d / (6 d + n). *)
From mathcomp Require Import all_ssreflect all_algebra.
Set Implicit Arguments.
Unset Strict Implicit.
Unset Printing Implicit Defensive.
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
