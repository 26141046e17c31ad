(* The MLP acts on each token, attention mixes tokens, over the real
   numbers (MathComp-Analysis's realType and expR).
     DONG.mlp-per-token: the feed-forward network in matrix form,
     FFN(X) = act(X W_1 + 1 b_1) W_2 + 1 b_2 (act any entrywise map: GELU,
     ReLU, ...), satisfies FFN(X)_i = FFN(x_i) for every token i
     (ffn_per_token); one attention head A X W_V W_O, A = softmax(X W_Q
     (X W_K)^T / sqrt d_k), with W_V W_O != 0 mixes tokens: for every tokens
     i and j, inputs differing only in row j (0 and e_j e_a^T, where
     (W_V W_O)_ac != 0) give outputs differing in row i, because the weight
     A_ij is positive (attention_mixes_tokens).  With W_V W_O = 0 the head's
     output is 0 for every X: the hypothesis is needed.
   MathComp-Analysis rests on three classical axioms (propositional and
   functional extensionality, constructive indefinite description). *)
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix ssrint rat poly mxpoly mxalgebra fingroup perm zmodp interval.
From mathcomp.analysis Require Import reals sequences exp.
From CollapseVerify Require Import dong_collapse softmax_attention softmax_real attention_graph preamble.
Import GRing.Theory Num.Theory Order.POrderTheory.
Local Open Scope ring_scope.

Section TokenMixing.
Variable R : realType.

(* the feed-forward network on the rows of X: act(X W_1 + 1 b_1) W_2 + 1 b_2,
   act any map applied entrywise (GELU, ReLU, ...) *)
Definition FFN n d dff (act : R -> R) (W1 : 'M[R]_(d, dff)) (b1 : 'rV[R]_dff)
    (W2 : 'M[R]_(dff, d)) (b2 : 'rV[R]_d) (X : 'M[R]_(n, d)) : 'M[R]_(n, d) :=
  map_mx act (X *m W1 + const_mx 1 *m b1) *m W2 + const_mx 1 *m b2.

Lemma row_const1_mul n p (b : 'rV[R]_p) (i : 'I_n) : row i (const_mx 1 *m b) = b.
Proof. by apply/rowP => j; rewrite !mxE big_ord1 !mxE mul1r. Qed.

(* DONG.mlp-per-token, first half: FFN(X)_i = FFN(x_i) for every token i *)
Lemma ffn_per_token n d dff (act : R -> R) (W1 : 'M[R]_(d, dff)) (b1 : 'rV[R]_dff)
    (W2 : 'M[R]_(dff, d)) (b2 : 'rV[R]_d) (X : 'M[R]_(n, d)) (i : 'I_n) :
  row i (FFN act W1 b1 W2 b2 X) = FFN act W1 b1 W2 b2 (row i X).
Proof.
rewrite /FFN linearD /= row_mul -map_row linearD /= row_mul !row_const1_mul.
have C1 : (const_mx 1 : 'M[R]_1) = 1%:M by apply/matrixP => a c; rewrite !mxE (ord1 a) (ord1 c).
by rewrite C1 !mul1mx.
Qed.

(* DONG.mlp-per-token, second half: one attention head A X W_V W_O (A =
   softmax(X W_Q (X W_K)^T / sqrt d_k)) with W_V W_O != 0 mixes tokens: for
   every token i and every token j there are inputs X, X' that differ only in
   row j whose outputs differ in row i *)
Lemma attention_mixes_tokens n d dk (W_Q W_K W_V : 'M[R]_(d, dk)) (W_O : 'M[R]_(dk, d)) :
  W_V *m W_O != 0 -> forall i j : 'I_n, exists X X' : 'M[R]_(n, d),
    (forall k, k != j -> row k X = row k X') /\
    row i (attnR X W_Q W_K *m X *m W_V *m W_O) != row i (attnR X' W_Q W_K *m X' *m W_V *m W_O).
Proof.
move=> VO i j.
have [a [c Mac]] : exists a c, (W_V *m W_O) a c != 0 by apply/matrix0Pn.
pose X' : 'M[R]_(n, d) := delta_mx j a.
exists 0, X'; split.
  by move=> k kj; apply/rowP => l; rewrite !mxE (negbTE kj).
have XM k : (X' *m (W_V *m W_O)) k c = (k == j)%:R * (W_V *m W_O) a c.
  rewrite mxE (bigD1 a) //= big1 ?addr0 => [|l la]; first by rewrite mxE eqxx andbT.
  by rewrite mxE (negbTE la) andbF mul0r.
have E : (attnR X' W_Q W_K *m X' *m W_V *m W_O) i c = attnR X' W_Q W_K i j * (W_V *m W_O) a c.
  rewrite -!mulmxA mxE (bigD1 j) //= XM eqxx mul1r big1 ?addr0 // => k kj.
  by rewrite XM (negbTE kj) mul0r mulr0.
(* mulmx0 only on the left: on the right its pattern meets attnR X' and Coq unfolds expR (7 s) *)
apply/negP => /eqP /rowP /(_ c); rewrite [in X in X = _]mxE [in X in X = _]mulmx0 !mul0mx mxE [X in _ = X]mxE E.
have [P _] := attention_fully_connected_dynamic n W_Q W_K.
by move/esym/eqP; rewrite mulf_eq0 (negbTE Mac) orbF; apply/negP; rewrite lt0r_neq0 ?P.
Qed.
End TokenMixing.
