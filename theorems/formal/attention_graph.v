(* The attention matrix as a graph, and its gradient at a collapsed input,
   over the real numbers (MathComp-Analysis's realType and expR), with the
   paper's A = softmax(X W_Q (X W_K)^T / sqrt d_k) (attnR).
     DONG.fully-connected-graph: every weight A_ij is positive (a complete
     graph with self-loops), and for n >= 2 tokens and W_Q W_K^T != 0 the
     weights depend on X: two inputs with different attention matrices
     (X = 0 gives J/n; rows e_a and s e_b, where (W_Q W_K^T)_ab != 0, give
     A_11 != A_12).  Both hypotheses are needed: at n = 1, A = [1]; with
     W_Q W_K^T = 0, A = J/n for every X.
     RW.noci-vanishing-gradients: at a collapsed input X = 1 x^T the scores
     are constant, so A = J/n for every W_Q, W_K (collapsed_attention_uniform)
     and A has derivative 0 in every direction, as a function of W_Q and of
     W_K (MathComp-Analysis's is_derive; matrices of positive sizes are its
     normed modules).
   MathComp-Analysis rests on three classical axioms (propositional and
   functional extensionality, constructive indefinite description). *)
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix ssrint rat poly mxpoly mxalgebra fingroup perm zmodp interval.
From mathcomp.classical Require Import boolp functions.
From mathcomp.analysis Require Import reals topology normedtype sequences exp derive.
From CollapseVerify Require Import dong_collapse softmax_attention softmax_real preamble.
Import GRing.Theory Num.Theory numFieldTopology.Exports numFieldNormedType.Exports.
Local Open Scope ring_scope.

Section AttentionGraph.
Variable R : realType.

(* the attention matrix of one head, A = softmax(X W_Q (X W_K)^T / sqrt d_k) *)
Definition attnR n d dk (X : 'M[R]_(n, d)) (W_Q W_K : 'M[R]_(d, dk)) : 'M[R]_n :=
  softmaxR (scores (Num.sqrt (dk%:R))^-1 X W_Q W_K).

(* scores whose entries are all equal give the uniform matrix J/n *)
Lemma softmaxR_const_uniform n (S : 'M[R]_n.+1) (c : R) :
  (forall i j, S i j = c) -> softmaxR S = const_mx (n.+1%:R)^-1.
Proof.
move=> Sc; apply/matrixP => i j; rewrite /softmaxR /softmax !mxE Sc.
under eq_bigr do rewrite Sc.
rewrite sumr_const card_ord -[expR c *+ _]mulr_natr invfM mulrA mulfV ?mul1r //.
by apply: lt0r_neq0; apply: expR_gt0.
Qed.

(* RW.noci-vanishing-gradients, the algebra: at a collapsed input X = 1 x^T
   the attention matrix is J/n for every W_Q, W_K *)
Lemma collapsed_attention_uniform n d dk (x : 'rV[R]_d) (W_Q W_K : 'M[R]_(d, dk)) :
  attnR (const_mx 1 *m x : 'M_(n.+1, d)) W_Q W_K = const_mx (n.+1%:R)^-1.
Proof.
apply: (@softmaxR_const_uniform _ _
  ((Num.sqrt (dk%:R))^-1 * (x *m W_Q *m (x *m W_K)^T) 0 0)) => i j.
rewrite /scores mxE; congr (_ * _).
have -> : const_mx 1 *m x *m W_Q *m (const_mx 1 *m x *m W_K)^T
        = (const_mx 1 : 'M_(n.+1, 1)) *m (x *m W_Q *m (x *m W_K)^T) *m (const_mx 1 : 'M_(n.+1, 1))^T.
  by rewrite !trmx_mul !mulmxA.
by rewrite mxE big_ord1 mxE big_ord1 !mxE mul1r mulr1.
Qed.


(* RW.noci-vanishing-gradients: at a collapsed input X = 1 x^T (n >= 1
   tokens) the attention matrix A = softmax(X W_Q (X W_K)^T / sqrt d_k), as a
   function of W_Q (of W_K), has derivative 0 in every direction V *)
Lemma noci_vanishing_gradients n d dk (x : 'rV[R]_d.+1) (W_Q W_K V : 'M[R]_(d.+1, dk.+1)) :
  is_derive W_Q V (fun W => attnR (const_mx 1 *m x : 'M_(n.+1, d.+1)) W W_K) 0 /\
  is_derive W_K V (fun W => attnR (const_mx 1 *m x : 'M_(n.+1, d.+1)) W_Q W) 0.
Proof.
split.
  have -> : (fun W => attnR (const_mx 1 *m x : 'M_(n.+1, d.+1)) W W_K)
            = cst (const_mx (n.+1%:R)^-1) by apply: funext => W; exact: collapsed_attention_uniform.
  exact: is_derive_cst.
have -> : (fun W => attnR (const_mx 1 *m x : 'M_(n.+1, d.+1)) W_Q W)
          = cst (const_mx (n.+1%:R)^-1) by apply: funext => W; exact: collapsed_attention_uniform.
exact: is_derive_cst.
Qed.

(* the (p, q) score entry of a matrix X, as a double sum *)
Lemma XMXt_entry n d (X : 'M[R]_(n, d)) (M : 'M[R]_d) p q :
  (X *m M *m X^T) p q = \sum_(l < d) (\sum_(k < d) X p k * M k l) * X q l.
Proof. by rewrite mxE; apply: eq_bigr => l _; rewrite !mxE. Qed.

Lemma sum_delta_l d (a : 'I_d) (F : 'I_d -> R) : \sum_(k < d) (k == a)%:R * F k = F a.
Proof.
rewrite (bigD1 a) //= eqxx mul1r big1 ?addr0 // => k /negbTE ->; by rewrite mul0r.
Qed.

(* DONG.fully-connected-graph: every attention weight is positive (each token
   is joined to every token), and for n >= 2 tokens and W_Q W_K^T != 0 the
   weights depend on X (two inputs with different attention matrices) *)
Lemma attention_fully_connected_dynamic n d dk (W_Q W_K : 'M[R]_(d, dk)) :
  (forall (X : 'M[R]_(n, d)) i j, 0 < attnR X W_Q W_K i j) /\
  ((1 < n)%N -> W_Q *m W_K^T != 0 ->
     exists X1 X2 : 'M[R]_(n, d), attnR X1 W_Q W_K != attnR X2 W_Q W_K).
Proof.
split=> [X i j | n1 MN0].
  have m0 : (0 < n)%N by apply: leq_ltn_trans (leq0n j) (ltn_ord j).
  by have [+ _] := softmaxR_row_stochastic (scores (Num.sqrt (dk%:R))^-1 X W_Q W_K) m0; apply.
case: dk W_Q W_K MN0 => [|dk] W_Q W_K MN0.
  by move: MN0; rewrite [W_Q]thinmx0 mul0mx eqxx.
case: n n1 => [|[|n]] // _.
set M := W_Q *m W_K^T.
have [a [b Mab]] : exists a b, M a b != 0 by apply/matrix0Pn.
pose tau : R := (Num.sqrt (dk.+1%:R))^-1.
have tau0 : tau != 0 by rewrite invr_eq0 sqrtr_eq0 -real_ltNge ?real0 ?realn // ltr0n.
pose i0 : 'I_n.+2 := ord0. pose i1 : 'I_n.+2 := lift ord0 ord0.
pose s : R := M a a / M a b + 1.
pose X2 : 'M[R]_(n.+2, d) := \matrix_(i, j) (if i == i0 then (j == a)%:R
                                             else if i == i1 then s * (j == b)%:R else 0).
have SE (X : 'M[R]_(n.+2, d)) p q : scores tau X W_Q W_K p q = tau * (X *m M *m X^T) p q.
  by rewrite /scores mxE /M trmx_mul !mulmxA.
have r0 l : \sum_(k < d) X2 i0 k * M k l = M a l.
  by rewrite -(sum_delta_l a (fun k => M k l)); apply: eq_bigr => k _; rewrite /X2 mxE eqxx.
have S00 : (X2 *m M *m X2^T) i0 i0 = M a a.
  rewrite XMXt_entry; under eq_bigr do rewrite r0.
  by rewrite -[RHS](sum_delta_l a (M a)); apply: eq_bigr => l _; rewrite /X2 [X in _ * X = _]mxE eqxx mulrC.
have S01 : (X2 *m M *m X2^T) i0 i1 = s * M a b.
  rewrite XMXt_entry; under eq_bigr do rewrite r0.
  rewrite -(sum_delta_l b (fun l => s * M a l)); apply: eq_bigr => l _.
  by rewrite /X2 [X in _ * X = _]mxE /= mulrA [M a l * s]mulrC [RHS]mulrC.
exists 0, X2; apply/negP => /eqP E.
have A1 : attnR (0 : 'M[R]_(n.+2, d)) W_Q W_K = const_mx (n.+2%:R)^-1.
  by apply: (@softmaxR_const_uniform _ _ 0) => p q; rewrite SE !mul0mx mxE mulr0.
have : attnR X2 W_Q W_K i0 i0 = attnR X2 W_Q W_K i0 i1 by rewrite -E A1 !mxE.
have D0 : (\sum_(k < n.+2) expR (scores tau X2 W_Q W_K i0 k))^-1 != 0.
  (* every step explicit: with `//` (done) here this line took 12 s of the file's 17 s *)
  rewrite invr_eq0; apply: lt0r_neq0; apply: (softmax_denominator_gt0 (exp := expR)); [exact: expR_gt0 | by []].
rewrite /attnR /softmaxR -/tau [softmax _ _ i0 i0]mxE [softmax _ _ i0 i1]mxE => /(mulIf D0) /expR_inj.
rewrite !SE S00 S01 => /(mulfI tau0) /eqP.
rewrite /s mulrDl (divfK Mab) mul1r addrC -subr_eq addrN eq_sym.
by rewrite (negbTE Mab).
Qed.
End AttentionGraph.
