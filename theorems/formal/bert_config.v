(* The BERT-base figures of sections 2 and 6.1 (concrete, complete).
     DC.bert-config          d_k = d_model / H = 64, d_ff = 4 d_model = 3072;
     RC.subadditivity H-d_k-equals-d_model   H d_k = d_model (12 x 64 = 768);
     RC.dff-lower-bound bert-values   d_model - rank MHA(X) <= d_ff = 3072 for
                             every n x 768 matrix (so for every MHA(X)). *)
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix mxalgebra.
From CollapseVerify Require Import preamble.
Import GRing.Theory.
Local Open Scope ring_scope.

(* DC.bert-config: "L=12, H=12, d_model=768, d_k=64, d_ff=3072":
   d_k = d_model / H = 64 and d_ff = 4 d_model = 3072 *)
Lemma bert_config : (768 %/ 12 = 64)%N /\ (12 * 64 = 768)%N /\ (4 * 768 = 3072)%N.
Proof. by []. Qed.

(* RC.subadditivity, reading H-d_k-equals-d_model: "H d_k = d_model (BERT-base)" *)
Lemma bert_H_dk : (12 * 64 = 768)%N.
Proof. by []. Qed.

(* RC.dff-lower-bound, reading bert-values:
   "d - rank MHA(X) <= d_ff = 3072 (BERT-base)", for every output matrix *)
Lemma bert_dff_bound (F : fieldType) (n : nat) (M : 'M[F]_(n, 768)) : (768 - \rank M <= 3072)%N.
Proof. exact: leq_trans (leq_subr _ _) _. Qed.
