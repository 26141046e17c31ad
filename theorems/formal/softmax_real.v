(* Softmax and multi-head attention over the real numbers: MathComp-Analysis's
   realType with its exponential expR, and the paper's scaling
   tau = 1 / sqrt(d_k) (Num.sqrt).  The lemmas are the general ones of
   softmax_attention.v and dong_collapse.v instantiated to exp = expR; only
   expR's own properties (expR_gt0: expR x > 0, expRD: expR (x + y) =
   expR x * expR y) are used.  MathComp-Analysis rests on three classical
   axioms (propositional and functional extensionality, constructive
   indefinite description), so every lemma here does; the general lemmas they
   instantiate rest on none.
     DONG.row-stochastic, DONG.softmax-shift (corrected), SYM.token-permutation,
     SYM.query-key-gauge, RRO.witness (a-witness-exists). *)
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix fingroup perm mxalgebra.
From mathcomp.analysis Require Import reals sequences exp.
From CollapseVerify Require Import dong_collapse softmax_attention residual_witness preamble.
Import GRing.Theory Num.Theory.
Local Open Scope ring_scope.

Section RealSoftmax.
Variable R : realType.

(* softmax(S)_ij = expR(S_ij) / sum_k expR(S_ik) *)
Definition softmaxR n m (S : 'M[R]_(n, m)) : 'M[R]_(n, m) := softmax (@expR R) S.

(* DONG.row-stochastic: "P = softmax(S): P_ij > 0, P 1 = 1" (rows of m > 0 entries) *)
Lemma softmaxR_row_stochastic n m (S : 'M[R]_(n, m)) : (0 < m)%N ->
  (forall i j, 0 < softmaxR S i j) /\ softmaxR S *m const_mx 1 = const_mx 1 :> 'cV_n.
Proof. by move=> m_gt0; apply: softmax_row_stochastic => // a; apply: expR_gt0. Qed.

(* DONG.softmax-shift, reading corrected: "softmax(S + c 1^T) = softmax(S)" *)
Lemma softmaxR_shift n m (S : 'M[R]_(n, m)) (c : 'cV[R]_n) :
  softmaxR (S + c *m const_mx 1) = softmaxR S.
Proof.
by apply: softmax_shift => [a b | a]; [apply: expRD | apply: lt0r_neq0; apply: expR_gt0].
Qed.

(* MHA(X) = sum_h softmax(X W_Q^h (X W_K^h)^T / sqrt d_k) X W_V^h W_O^h *)
Definition MHA_real n d_model d_k H (X : 'M[R]_(n, d_model))
    (W_Q W_K W_V : 'I_H -> 'M[R]_(d_model, d_k)) (W_O : 'I_H -> 'M[R]_(d_k, d_model)) :=
  MHA (@expR R) (Num.sqrt (d_k%:R))^-1 X W_Q W_K W_V W_O.

(* SYM.token-permutation: "MHA(Pi X) = Pi MHA(X)" for every permutation matrix Pi *)
Lemma MHA_real_token_permutation n d_model d_k H (s : 'S_n) (X : 'M[R]_(n, d_model))
    (W_Q W_K W_V : 'I_H -> 'M[R]_(d_model, d_k)) (W_O : 'I_H -> 'M[R]_(d_k, d_model)) :
  MHA_real (perm_mx s *m X) W_Q W_K W_V W_O = perm_mx s *m MHA_real X W_Q W_K W_V W_O.
Proof. exact: MHA_token_permutation. Qed.

(* SYM.query-key-gauge: "(W_Q^h, W_K^h) -> (W_Q^h N, W_K^h N^-T) leaves MHA
   invariant", one invertible N_h per head *)
Lemma MHA_real_query_key_gauge n d_model d_k H (N : 'I_H -> 'M[R]_d_k) (X : 'M[R]_(n, d_model))
    (W_Q W_K W_V : 'I_H -> 'M[R]_(d_model, d_k)) (W_O : 'I_H -> 'M[R]_(d_k, d_model)) :
  (forall h, N h \in unitmx) ->
  MHA_real X (fun h => W_Q h *m N h) (fun h => W_K h *m (invmx (N h))^T) W_V W_O
  = MHA_real X W_Q W_K W_V W_O.
Proof. exact: MHA_query_key_gauge. Qed.

(* RRO.witness, reading a-witness-exists, with the real softmax:
   rank(X0 + MHA(X0)) = 2 for some weights, every shape n >= 2, d >= 2 *)
Lemma residual_witness_real n d dk H :
  exists (W_Q W_K W_V : 'I_H.+1 -> 'M[R]_(d.+2, dk.+1)) (W_O : 'I_H.+1 -> 'M[R]_(dk.+1, d.+2)),
    \rank (Xstar R n.+1 d.+1 + MHA_real (Xstar R n.+1 d.+1) W_Q W_K W_V W_O)%R = 2%N.
Proof. by apply: residual_witness; rewrite expR0 oner_neq0. Qed.

End RealSoftmax.
