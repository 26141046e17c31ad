(* DONG.softmax-shift, reading `corrected`: adding a constant c_i to every
   entry of row i of the score matrix M leaves the row-wise softmax unchanged,
     softmax(M + c 1^T) = softmax(M).
   exp is abstract: any map with exp(a + b) = exp(a) exp(b) and exp(a) != 0;
   shift invariance is proved, not assumed. *)
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix ssrint rat poly mxpoly mxalgebra fingroup perm zmodp interval.
From CollapseVerify Require Import preamble.
Import GRing.Theory.
Local Open Scope ring_scope.

Section SoftmaxShift.
Variables (F : fieldType) (exp : F -> F).
Hypothesis expD : forall a b, exp (a + b) = exp a * exp b.
Hypothesis exp_neq0 : forall a, exp a != 0.
Variables (n m : nat).

(* softmax(M)_ij = exp(M_ij) / sum_k exp(M_ik) *)
Definition softmax (M : 'M[F]_(n, m)) : 'M[F]_(n, m) :=
  \matrix_(i, j) (exp (M i j) / \sum_(k < m) exp (M i k)).

(* "softmax(M + c 1^T) = softmax(M)" for every column vector c *)
Lemma softmax_shift (M : 'M[F]_(n, m)) (c : 'cV[F]_n) :
  softmax (M + c *m const_mx 1) = softmax M.
Proof.
have E i k : (M + c *m const_mx 1) i k = M i k + c i 0.
  by rewrite !mxE big_ord1 mxE mulr1.
apply/matrixP => i j; rewrite [LHS]mxE [RHS]mxE E expD.
under eq_bigr do rewrite E expD.
by rewrite -mulr_suml invfM mulrACA divff // mulr1.
Qed.

End SoftmaxShift.
