(* Cirrincione (2026), section 7 and the abstract: the rank condition of the
   Recovery Ambiguity Theorem and what the MLP sees on the residual stream.
   Notation of head_channel.v: W_O_stacked = [W_O^(1); ...; W_O^(H)]
   (H d_k x d_model), Phi_a(Y) = [Y^(1) ... Y^(H)] W_O.
     RA.main a-rank-condition   n > 0, H > 0:
                       dim ker Phi_a = n (H - 1) d_k  <=>  rank W_O = d_k;
     HC.mlp-cannot-remedy residual-stream   heads summed and the MLP fed
                       X + sum_h Y_h (X fixed, the Y_h free): distinct
                       tuples with one sum exist (H >= 2), so no map of
                       X + sum_h Y_h recovers every tuple
                       (residual_stream_no_recovery; that tuples with the
                       same sum give the same MLP output is congruence). *)
From Coq Require Import Lia.
From mathcomp Require Import all_ssreflect all_algebra.
From CollapseVerify Require Import head_channel preamble.
Import GRing.Theory.
Local Open Scope ring_scope.

Section RankCondition.
Variables (F : fieldType) (n d_model d_k H : nat).

(* RA.main, reading a-rank-condition:
   "dim ker Phi_a = n (H - 1) d_k  <=>  rank W_O = d_k" (n > 0, H > 0) *)
Lemma dim_ker_Phi_a_iff (W_O : 'I_H -> 'M[F]_(d_k, d_model)) : (0 < n)%N -> (0 < H)%N ->
  \dim (lker (linfun (mulmxr (W_O_stacked W_O)
                      : 'M[F]_(n, \sum_(h < H) d_k) -> 'M[F]_(n, d_model))))
    = (n * ((H - 1) * d_k))%N
  <-> \rank (W_O_stacked W_O) = d_k.
Proof.
move=> n_gt0 H_gt0; rewrite dim_ker_Phi_a.
have r_le : (\rank (W_O_stacked W_O) <= H * d_k)%N.
  by rewrite -(sum_dk d_k H); apply: rank_leq_row.
have dk_le : (d_k <= H * d_k)%N by rewrite leq_pmull.
move: r_le dk_le; rewrite mulnBl mul1n; set r := \rank _; set a := (H * d_k)%N => r_le dk_le.
split=> [/eqP | ->]; last by [].
by rewrite eqn_pmul2l // => /eqP E; apply/eqP; rewrite eqn_leq; apply/andP; split;
   apply/leP; move/leP: r_le; move/leP: dk_le; rewrite -!minusE in E *; lia.
Qed.

End RankCondition.

Section ResidualStream.
Variables (F : fieldType) (n d H : nat).

(* HC.mlp-cannot-remedy, reading residual-stream: "heads summed, MLP sees
   X + sum_h Y_h: pairs identified by the sum give equal MLP outputs", for
   every map MLP : n x d -> n x d *)
Lemma residual_stream_same_sum (MLP : 'M[F]_(n, d) -> 'M[F]_(n, d)) (X : 'M[F]_(n, d))
    (Y Y' : 'I_H -> 'M[F]_(n, d)) :
  \sum_(h < H) Y h = \sum_(h < H) Y' h -> MLP (X + \sum_(h < H) Y h) = MLP (X + \sum_(h < H) Y' h).
Proof. by move=> ->. Qed.

(* ... and with H >= 2 heads and non-empty outputs the sum identifies
   distinct tuples: Y = (E, -E, 0, ...) and Y' = 0 *)
Lemma residual_stream_ambiguous : (1 < H)%N -> (0 < n)%N -> (0 < d)%N ->
  exists Y Y' : 'I_H -> 'M[F]_(n, d), (exists h, Y h != Y' h) /\ \sum_(h < H) Y h = \sum_(h < H) Y' h.
Proof.
move=> H2 n0 d0; set h0 := Ordinal (ltnW H2); set h1 := Ordinal H2.
pose E : 'M[F]_(n, d) := delta_mx (Ordinal n0) (Ordinal d0).
have E0 : E != 0.
  by apply/eqP => /matrixP/(_ (Ordinal n0) (Ordinal d0)); rewrite !mxE !eqxx => /eqP; rewrite oner_eq0.
exists (fun h => if h == h0 then E else if h == h1 then - E else 0), (fun=> 0); split.
  by exists h0; rewrite eqxx.
rewrite big1_eq (bigD1 h0) //= (bigD1 h1) //= big1 => [|h /andP[hh0 hh1]]; last first.
  by rewrite (negbTE hh0) (negbTE hh1).
by rewrite addr0 subrr.
Qed.

(* HC.mlp-cannot-remedy, reading residual-stream, without the vacuous step:
   for H >= 2 heads and non-empty outputs, no map g of the residual stream
   X + sum_h Y_h (X fixed, the Y_h free) recovers the tuple (Y_h) for every
   tuple; the MLP is such a map *)
Lemma residual_stream_no_recovery (X : 'M[F]_(n, d)) : (1 < H)%N -> (0 < n)%N -> (0 < d)%N ->
  ~ exists g : 'M[F]_(n, d) -> 'I_H -> 'M[F]_(n, d),
      forall Y : 'I_H -> 'M[F]_(n, d), forall h, g (X + \sum_(h' < H) Y h') h = Y h.
Proof.
move=> H2 n0 d0 [g rec]; have [Y [Y' [[h ne] same]]] := residual_stream_ambiguous H2 n0 d0.
by move: ne; rewrite -(rec Y h) -(rec Y' h) same eqxx.
Qed.

End ResidualStream.
