(* RA.bert-figures: Cirrincione (2026), contribution 6, "For BertBase:
   360,448 per sequence (or 704 per token) per layer", the recovery ambiguity
   n (H - 1) d_k at n = 512, H = 12, d_k = 64 (scope: these figures).
   The arithmetic is on Coq's binary naturals N (unary nat is too slow for
   six-digit numbers). *)
From Coq Require Import NArith.
Local Open Scope N_scope.

(* the recovery ambiguity dimension n (H - 1) d_k *)
Definition recovery_ambiguity (n H d_k : N) : N := n * (H - 1) * d_k.

(* "360,448 per sequence": 512 (12 - 1) 64 = 360448 *)
Lemma bert_recovery_ambiguity_per_sequence : recovery_ambiguity 512 12 64 = 360448.
Proof. vm_compute. reflexivity. Qed.

(* "(or 704 per token)": (12 - 1) 64 = 704 *)
Lemma bert_recovery_ambiguity_per_token : recovery_ambiguity 1 12 64 = 704.
Proof. vm_compute. reflexivity. Qed.
