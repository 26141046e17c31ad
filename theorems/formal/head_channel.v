(* Cirrincione (2026), section 7 (Head-Channel Non-Identifiability), reading
   `corrected` of HC.main: when the output projection W_O = [W_O^(1); ...;
   W_O^(H)] (H d_k x d_model) is known and of full row rank, the map
   (Y^(1), ..., Y^(H)) |-> sum_h Y^(h) W_O^(h) has kernel 0, i.e. the per-head
   outputs are determined by MHA(X); and the per-head outputs are determined
   for every input only if W_O has full row rank (for n > 0). *)
From mathcomp Require Import all_ssreflect all_algebra.
From CollapseVerify Require Import preamble.
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

(* HC.mlp-cannot-remedy: "The MLP cannot remedy this because it acts on the
   post-summation signal".  When the sum loses information (W_O not of full
   row rank, n > 0), no map g of the post-summation signal, with or without a
   residual term R added to it, recovers the per-head outputs of every input. *)
Lemma no_recovery_after_sum : (0 < n)%N -> ~~ row_free W_O_stacked ->
  forall (R : 'M[F]_(n, d_model)) (g : 'M[F]_(n, d_model) -> 'I_H -> 'M[F]_(n, d_k)),
  ~ (forall Y : 'I_H -> 'M[F]_(n, d_k), forall h, g (R + MHA Y) h = Y h).
Proof.
move=> n_gt0 not_free R g recovers; move/negP: not_free; apply.
apply/(per_head_outputs_determined_iff n_gt0) => Y Y' eqMHA h.
by rewrite -recovers eqMHA recovers.
Qed.

End HeadChannel.

(* ------------------------------------------------------------------ *)
(* Kernel dimensions.  'M_(n, m) is a vector space (MathComp vectType);
   lker (linfun f) is the kernel of the linear map f and \dim its dimension. *)
Section KernelDimension.
Variables (F : fieldType) (n m p : nat).

(* {Y : Y W = 0} has dimension n (m - rank W) *)
Lemma dim_ker_mulmxr (W : 'M[F]_(m, p)) :
  \dim (lker (linfun (mulmxr W : 'M[F]_(n, m) -> 'M[F]_(n, p)))) = (n * (m - \rank W))%N.
Proof.
pose B := row_base (kermx W).
pose psi := linfun (mulmxr B : 'M[F]_(n, \rank (kermx W)) -> 'M[F]_(n, m)).
have -> : lker (linfun (mulmxr W : 'M[F]_(n, m) -> 'M[F]_(n, p))) = (psi @: fullv)%VS.
  apply/vspaceP => Y; rewrite memv_ker lfunE /= -sub_kermx.
  have /eqmxP/andP[sBK sKB] := eq_row_base (kermx W).
  apply/idP/memv_imgP => [YK | [C _ ->]].
    have /submxP[C ->] := submx_trans YK sKB.
    by exists C; rewrite ?memvf // lfunE.
  by rewrite lfunE /= (submx_trans (submxMl C B) sBK).
rewrite limg_dim_eq ?dimvf ?mxrank_ker //.
apply/eqP; rewrite -subv0; apply/subvP => C; rewrite memv_cap memv_ker lfunE /=.
by rewrite mulmx_free_eq0 ?row_base_free // memv0 => /andP[_].
Qed.

End KernelDimension.

Section HeadKernels.
Variables (F : fieldType) (n d_model d_k H : nat).

(* the concatenation [Y^(1) ... Y^(H)] has H d_k columns *)
Lemma sum_dk : (\sum_(h < H) d_k)%N = (H * d_k)%N.
Proof. by rewrite sum_nat_const card_ord. Qed.

(* HC.main, reading corrected: "dim ker Phi_a = n (H d_k - rank W_O)",
   Phi_a(Y) = [Y^(1) ... Y^(H)] W_O = sum_h Y^(h) W_O^(h) *)
Lemma dim_ker_Phi_a (W_O : 'I_H -> 'M[F]_(d_k, d_model)) :
  \dim (lker (linfun (mulmxr (W_O_stacked W_O)
                      : 'M[F]_(n, \sum_(h < H) d_k) -> 'M[F]_(n, d_model))))
  = (n * (H * d_k - \rank (W_O_stacked W_O)))%N.
Proof. by rewrite dim_ker_mulmxr; congr (n * (_ - _))%N; apply: sum_dk. Qed.

(* without output projection the heads are summed: [Y^(1) ... Y^(H)] times
   the stacked identities [I; ...; I] is sum_h Y^(h) *)
Definition I_stacked : 'M[F]_(\sum_(h < H) d_k, d_k) := \mxcol_(h < H) 1%:M.

Lemma sum_heads_concat (Y : 'I_H -> 'M[F]_(n, d_k)) :
  \mxrow_h Y h *m I_stacked = \sum_(h < H) Y h.
Proof. by rewrite mul_mxrow_mxcol; apply: eq_bigr => h _; rewrite mulmx1. Qed.

Lemma rank_I_stacked : (0 < H)%N -> \rank I_stacked = d_k.
Proof.
move=> H_gt0; apply/eqP; rewrite eqn_leq rank_leq_col /=.
apply: leq_trans (eq_leq (esym (mxrank1 F d_k))) (mxrankS _). rewrite /I_stacked (eqmx_col (fun h : 'I_H => (1%:M : 'M[F]_d_k))).
by rewrite (sumsmx_sup (Ordinal H_gt0)) // genmxE.
Qed.

(* HC.main / RA.main, reading b-no-output-projection:
   "dim ker [(Y_h)_h |-> sum_h Y_h] = n (H - 1) d_k" *)
Lemma dim_ker_sum_heads : (0 < H)%N ->
  \dim (lker (linfun (mulmxr I_stacked : 'M[F]_(n, \sum_(h < H) d_k) -> 'M[F]_(n, d_k))))
  = (n * ((H - 1) * d_k))%N.
Proof.
by move=> H_gt0; rewrite dim_ker_mulmxr rank_I_stacked // sum_dk mulnBl mul1n.
Qed.

End HeadKernels.

(* HC.main, reading c-gauge: "Y_h is identifiable only up to Y_h |-> Y_h M_h,
   M_h in GL(d_k)": with W_O learned, Y_h M_h and the re-gauged block
   M_h^-1 W_O^(h) give the same projected sum as Y_h and W_O^(h), so nothing
   observed fixes Y_h's coordinates (that the gauge is the only ambiguity is
   not stated: with W_O unknown the fibre is larger, reading ii) *)
Section HeadGauge.
Variables (F : fieldType) (n d_model d_k H : nat).

Lemma head_output_gauge (Y : 'I_H -> 'M[F]_(n, d_k))
    (W_O : 'I_H -> 'M[F]_(d_k, d_model)) (M : 'I_H -> 'M[F]_d_k) :
  (forall h, M h \in unitmx) ->
  \sum_(h < H) (Y h *m M h) *m (invmx (M h) *m W_O h) = \sum_(h < H) Y h *m W_O h.
Proof.
by move=> uM; apply: eq_bigr => h _; rewrite -mulmxA [M h *m _]mulmxA mulmxV // mul1mx.
Qed.

End HeadGauge.
