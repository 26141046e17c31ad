(* Cirrincione (2026), section 7 (Head-Channel Non-Identifiability), reading
   `corrected` of HC.main: when the output projection W_O = [W_O^(1); ...;
   W_O^(H)] (H d_k x d_model) is known and of full row rank, the map
   (Y^(1), ..., Y^(H)) |-> sum_h Y^(h) W_O^(h) has kernel 0, i.e. the per-head
   outputs are determined by MHA(X); and the per-head outputs are determined
   for every input only if W_O has full row rank (for n > 0). *)
From mathcomp Require Import all_ssreflect all_algebra.
Set Implicit Arguments.
Unset Strict Implicit.
Unset Printing Implicit Defensive.
Import GRing.Theory.
Local Open Scope ring_scope.

Section HeadChannel.
Variables (F : fieldType) (n d_model d_k H : nat).
(* W_O h = W_O^(h), the d_k x d_model block of head h *)
Variable W_O : 'I_H -> 'M[F]_(d_k, d_model).

(* the stacked output projection W_O = [W_O^(1); ...; W_O^(H)]
   (H d_k x d_model; MathComp writes the row count as \sum_(h < H) d_k) *)
Definition W_O_stacked : 'M[F]_(\sum_(h < H) d_k, d_model) := \mxcol_h W_O h.

(* MHA output from the head outputs Y h = Y^(h) (n x d_k) *)
Definition MHA (Y : 'I_H -> 'M[F]_(n, d_k)) : 'M[F]_(n, d_model) :=
  \sum_(h < H) Y h *m W_O h.

(* "MHA(X) = [Y^(1) ... Y^(H)] W_O": the sum over heads is one product *)
Lemma MHA_concat (Y : 'I_H -> 'M[F]_(n, d_k)) :
  MHA Y = \mxrow_h Y h *m W_O_stacked.
Proof. by rewrite mul_mxrow_mxcol. Qed.

(* "with W_O known and of full row rank the per-head outputs are determined":
   Y |-> Y W_O is injective *)
Lemma per_head_outputs_determined (Y Y' : 'I_H -> 'M[F]_(n, d_k)) :
  row_free W_O_stacked -> MHA Y = MHA Y' -> forall h, Y h = Y' h.
Proof.
move=> free; rewrite !MHA_concat => /(row_free_inj free) eqY.
exact/eq_mxrowP.
Qed.

(* the same as "kernel 0" *)
Lemma MHA_kernel_trivial (Y : 'I_H -> 'M[F]_(n, d_k)) :
  row_free W_O_stacked -> MHA Y = 0 -> forall h, Y h = 0.
Proof.
move=> free Y0 h; apply: (@per_head_outputs_determined Y (fun=> 0) free).
by rewrite Y0 /MHA big1 // => i _; rewrite mul0mx.
Qed.

(* "(a) is ambiguous iff rank W_O < H d_k": for n > 0 the per-head outputs
   are determined by MHA for every input iff W_O has full row rank *)
Lemma per_head_outputs_determined_iff : (0 < n)%N ->
  (forall Y Y' : 'I_H -> 'M[F]_(n, d_k), MHA Y = MHA Y' -> forall h, Y h = Y' h)
  <-> row_free W_O_stacked.
Proof.
move=> n_gt0; split => [det | free]; last by move=> Y Y'; exact: per_head_outputs_determined.
apply: contraT; rewrite -kermx_eq0 => /rowV0Pn[v /sub_kermxP vW v0].
pose Yall : 'M[F]_(n, \sum_(h < H) d_k) := const_mx 1 *m v.
have := det (fun h => submxrow Yall h) (fun h => 0).
rewrite !MHA_concat submxrowK mxrow0 !mul0mx -mulmxA vW mulmx0.
move=> /(_ erefl) Y0; case/eqP: v0; apply/rowP => j.
have /matrixP/(_ (Ordinal n_gt0) j) : \mxrow_h submxrow Yall h = \mxrow_h (0 : 'M_(n, d_k)).
  exact: eq_mxrow.
by rewrite submxrowK mxrow0 !mxE big_ord1 mxE mul1r.
Qed.

End HeadChannel.
