(* Softmax attention with H heads, for every size (n tokens, d_model, d_k, H
   heads), over any field, with softmax built from an abstract exponential:
     softmax(S)_ij = exp(S_ij) / sum_k exp(S_ik)      (dong_collapse.softmax)
     MHA(X) = sum_h softmax(tau X W_Q^h (X W_K^h)^T) X W_V^h W_O^h,
   tau = 1 / sqrt(d_k) in the paper (any scalar here).  No property of exp is
   needed for the symmetries; row-stochasticity needs exp > 0 (an ordered
   field).  softmax_real.v instantiates exp to MathComp-Analysis's expR on a
   realType and tau to 1 / Num.sqrt d_k.
     DONG.row-stochastic    P = softmax(S): P_ij > 0, P 1 = 1;
     SYM.token-permutation  MHA(Pi X) = Pi MHA(X);
     SYM.query-key-gauge    (W_Q^h, W_K^h) -> (W_Q^h N_h, W_K^h N_h^-T)
                            leaves MHA unchanged;
     SYM.framework          the group S_H x| prod_h (GL(d_k) x GL(d_k))
                            (head relabelling, query-key and value-output
                            gauges together) leaves MHA unchanged, and its
                            action on the weights is a group action
                            (identity, the semidirect-product law,
                            inverses; act_id, act_comp, act_inv). *)
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix fingroup perm.
From CollapseVerify Require Import dong_collapse preamble.
Import GRing.Theory Num.Theory.
Local Open Scope ring_scope.

(* ------------------------------------------------------------------ *)
(* DONG.row-stochastic: "all entries are non-negative, and each row sums
   exactly to one" (strictly: all entries positive), for softmax built from
   any exp with exp(a) > 0, on an ordered field; rows need m > 0 entries. *)
Section RowStochastic.
Variables (R : numFieldType) (exp : R -> R).
Hypothesis exp_gt0 : forall a, 0 < exp a.
Variables (n m : nat).
Hypothesis m_gt0 : (0 < m)%N.

Lemma softmax_denominator_gt0 (S : 'M[R]_(n, m)) i : 0 < \sum_(k < m) exp (S i k).
Proof.
rewrite (bigD1 (Ordinal m_gt0)) //= ltr_paddr ?exp_gt0 //.
by apply: sumr_ge0 => k _; apply: Order.POrderTheory.ltW.
Qed.

(* "P = softmax(S): P_ij > 0 and P 1 = 1" *)
Lemma softmax_row_stochastic (S : 'M[R]_(n, m)) :
  (forall i j, 0 < softmax exp S i j) /\ softmax exp S *m const_mx 1 = const_mx 1 :> 'cV_n.
Proof.
split=> [i j | ]; first by rewrite mxE divr_gt0 ?exp_gt0 ?softmax_denominator_gt0.
apply/matrixP => i j; rewrite !mxE.
under eq_bigr do rewrite !mxE mulr1.
by rewrite -mulr_suml divff // lt0r_neq0 // softmax_denominator_gt0.
Qed.

End RowStochastic.

(* ------------------------------------------------------------------ *)
Section MultiHeadSoftmax.
Variables (F : fieldType) (exp : F -> F) (tau : F) (n d_model d_k H : nat).

(* the scores of one head, tau X W_Q (X W_K)^T *)
Definition scores (X : 'M[F]_(n, d_model)) (W_Q W_K : 'M[F]_(d_model, d_k)) : 'M[F]_n :=
  tau *: ((X *m W_Q) *m (X *m W_K)^T).

(* MHA(X) = sum_h softmax(tau X W_Q^h (X W_K^h)^T) X W_V^h W_O^h *)
Definition MHA (X : 'M[F]_(n, d_model)) (W_Q W_K W_V : 'I_H -> 'M[F]_(d_model, d_k))
    (W_O : 'I_H -> 'M[F]_(d_k, d_model)) : 'M[F]_(n, d_model) :=
  \sum_(h < H) softmax exp (scores X (W_Q h) (W_K h)) *m (X *m W_V h) *m W_O h.

(* softmax(Pi S Pi^T) = Pi softmax(S) Pi^T for every permutation matrix Pi *)
Lemma softmax_perm (s : 'S_n) (S : 'M[F]_n) :
  softmax exp (perm_mx s *m S *m (perm_mx s)^T) = perm_mx s *m softmax exp S *m (perm_mx s)^T.
Proof.
rewrite tr_perm_mx -row_permE -col_permE -row_permE -col_permE.
apply/matrixP => i j; rewrite !mxE; congr (_ / _).
rewrite [RHS](reindex_inj (@perm_inj _ s)); apply: eq_bigr => k _.
by rewrite !mxE.
Qed.

(* SYM.token-permutation, H heads: "MHA(Pi X) = Pi MHA(X)" *)
Lemma MHA_token_permutation (s : 'S_n) (X : 'M[F]_(n, d_model)) W_Q W_K W_V W_O :
  MHA (perm_mx s *m X) W_Q W_K W_V W_O = perm_mx s *m MHA X W_Q W_K W_V W_O.
Proof.
rewrite /MHA mulmx_sumr; apply: eq_bigr => h _.
have -> : scores (perm_mx s *m X) (W_Q h) (W_K h)
          = perm_mx s *m scores X (W_Q h) (W_K h) *m (perm_mx s)^T.
  by rewrite /scores -scalemxAr -scalemxAl !trmx_mul !mulmxA.
rewrite softmax_perm tr_perm_mx -!mulmxA; congr (_ *m _); congr (_ *m _).
by rewrite mulmxA -perm_mxM mulVg perm_mx1 mul1mx.
Qed.

(* the query-key gauge leaves the scores of a head unchanged *)
Lemma scores_query_key_gauge (X : 'M[F]_(n, d_model)) (W_Q W_K : 'M[F]_(d_model, d_k))
    (N : 'M[F]_d_k) :
  N \in unitmx -> scores X (W_Q *m N) (W_K *m (invmx N)^T) = scores X W_Q W_K.
Proof.
move=> uN; rewrite /scores !trmx_mul trmxK !mulmxA; congr (_ *: _).
by rewrite -[X *m W_Q *m N *m invmx N]mulmxA mulmxV // mulmx1.
Qed.

(* SYM.query-key-gauge, H heads: one invertible N_h per head,
   (W_Q^h, W_K^h) -> (W_Q^h N_h, W_K^h N_h^-T), leaves MHA(X) unchanged *)
Lemma MHA_query_key_gauge (N : 'I_H -> 'M[F]_d_k) (X : 'M[F]_(n, d_model)) W_Q W_K W_V W_O :
  (forall h, N h \in unitmx) ->
  MHA X (fun h => W_Q h *m N h) (fun h => W_K h *m (invmx (N h))^T) W_V W_O
  = MHA X W_Q W_K W_V W_O.
Proof.
by move=> uN; apply: eq_bigr => h _; rewrite scores_query_key_gauge.
Qed.

(* SYM.framework, reading G-is-a-symmetry-group: an element (s, (N_h, G_h)_h)
   of S_H x| prod_h (GL(d_k) x GL(d_k)) acts by relabelling the heads with s
   and applying the query-key gauge N_h and the value-output gauge G_h to the
   head now at h; every such element leaves MHA(X) unchanged *)
Definition act (s : 'S_H) (N G : 'I_H -> 'M[F]_d_k) (W_Q W_K W_V : 'I_H -> 'M[F]_(d_model, d_k))
    (W_O : 'I_H -> 'M[F]_(d_k, d_model)) :=
  (fun h => W_Q (s h) *m N h, fun h => W_K (s h) *m (invmx (N h))^T,
   fun h => W_V (s h) *m G h, fun h => invmx (G h) *m W_O (s h)).

Lemma MHA_symmetry_group (s : 'S_H) (N G : 'I_H -> 'M[F]_d_k) (X : 'M[F]_(n, d_model))
    W_Q W_K W_V W_O :
  (forall h, N h \in unitmx) -> (forall h, G h \in unitmx) ->
  let: (W_Q', W_K', W_V', W_O') := act s N G W_Q W_K W_V W_O in
  MHA X W_Q' W_K' W_V' W_O' = MHA X W_Q W_K W_V W_O.
Proof.
move=> uN uG /=; rewrite /MHA [RHS](reindex_inj (@perm_inj _ s)) /=.
apply: eq_bigr => h _; rewrite scores_query_key_gauge //.
by rewrite -!mulmxA mulKVmx.
Qed.

(* ... and these transformations form a group acting on the weights (the
   group law of S_H x| prod_h (GL(d_k) x GL(d_k)), componentwise, so no
   functional extensionality is needed): the identity (1, (I)_h, (I)_h) acts
   trivially; acting by (s2, N2, G2) and then by (s1, N1, G1) is acting by
   the product (s1 s2, (N2_(s1 h) N1_h)_h, (G2_(s1 h) G1_h)_h), whose matrices
   are invertible again; (s^-1, (N_(s^-1 h)^-1)_h, (G_(s^-1 h)^-1)_h) is an
   inverse on both sides. *)
Lemma invmx_mulmx m (A B : 'M[F]_m) :
  A \in unitmx -> B \in unitmx -> invmx (A *m B) = invmx B *m invmx A.
Proof.
move=> uA uB; have uAB : A *m B \in unitmx by rewrite unitmx_mul uA.
rewrite -[RHS](mulKmx uAB) -!mulmxA (mulmxA B) mulmxV // mul1mx mulmxV //.
by rewrite mulmx1.
Qed.

(* two weight tuples are equal head by head *)
Definition same_weights (W W' : ('I_H -> 'M[F]_(d_model, d_k)) * ('I_H -> 'M[F]_(d_model, d_k))
                                 * ('I_H -> 'M[F]_(d_model, d_k)) * ('I_H -> 'M[F]_(d_k, d_model))) :=
  let: (Q, K, V, Wo) := W in let: (Q', K', V', Wo') := W' in
  forall h, [/\ Q h = Q' h, K h = K' h, V h = V' h & Wo h = Wo' h].

Lemma act_id W_Q W_K W_V W_O :
  same_weights (act 1 (fun=> 1%:M) (fun=> 1%:M) W_Q W_K W_V W_O) (W_Q, W_K, W_V, W_O).
Proof. by move=> h; rewrite perm1 invmx1 trmx1 !mulmx1 mul1mx. Qed.

Lemma act_comp (s1 s2 : 'S_H) (N1 G1 N2 G2 : 'I_H -> 'M[F]_d_k) W_Q W_K W_V W_O :
  (forall h, N1 h \in unitmx) -> (forall h, G1 h \in unitmx) ->
  (forall h, N2 h \in unitmx) -> (forall h, G2 h \in unitmx) ->
  (forall h, N2 (s1 h) *m N1 h \in unitmx /\ G2 (s1 h) *m G1 h \in unitmx) /\
  let: (Q, K, V, Wo) := act s2 N2 G2 W_Q W_K W_V W_O in
  same_weights (act s1 N1 G1 Q K V Wo)
               (act (s1 * s2) (fun h => N2 (s1 h) *m N1 h) (fun h => G2 (s1 h) *m G1 h) W_Q W_K W_V W_O).
Proof.
move=> uN1 uG1 uN2 uG2; split=> [h | h]; first by rewrite !unitmx_mul uN1 uG1 uN2 uG2.
rewrite permM !mulmxA invmx_mulmx // invmx_mulmx // trmx_mul; split=> //.
by rewrite mulmxA.
Qed.

Lemma act_inv (s : 'S_H) (N G : 'I_H -> 'M[F]_d_k) W_Q W_K W_V W_O :
  (forall h, N h \in unitmx) -> (forall h, G h \in unitmx) ->
  (forall h, invmx (N ((s^-1)%g h)) \in unitmx /\ invmx (G ((s^-1)%g h)) \in unitmx) /\
  (let: (Q, K, V, Wo) := act (s^-1)%g (fun h => invmx (N ((s^-1)%g h))) (fun h => invmx (G ((s^-1)%g h)))
                            W_Q W_K W_V W_O in
   same_weights (act s N G Q K V Wo) (W_Q, W_K, W_V, W_O)) /\
  (let: (Q, K, V, Wo) := act s N G W_Q W_K W_V W_O in
   same_weights (act (s^-1)%g (fun h => invmx (N ((s^-1)%g h))) (fun h => invmx (G ((s^-1)%g h))) Q K V Wo)
                (W_Q, W_K, W_V, W_O)).
Proof.
move=> uN uG; split; first by move=> h; rewrite !unitmx_inv.
split=> h; rewrite ?permK ?permKV !invmxK; split.
- by rewrite mulmxKV.
- by rewrite -mulmxA -trmx_mul mulVmx ?trmx1 ?mulmx1.
- by rewrite mulmxKV.
- by rewrite mulKmx.
- by rewrite mulmxK.
- by rewrite -mulmxA -trmx_mul mulmxV ?trmx1 ?mulmx1.
- by rewrite mulmxK.
- by rewrite mulKVmx.
Qed.

End MultiHeadSoftmax.
