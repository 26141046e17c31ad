(* The null-set lemma, univariate step: the zero set of a non-zero real
   polynomial p is Lebesgue-null on R (MathComp-Analysis 0.6.0's
   lebesgue_measure).  It is the finite set of p's roots (real_closed's
   rootsR, every root of p != 0 is in it), a finite disjoint union of
   singletons, each of measure 0 (lebesgue_measure_set1).
   It is the base case of null_set.v's poly_zero_set_null_k (every number of
   variables, for the iterated product measure lebk).
   MathComp-Analysis rests on three classical axioms (propositional and
   functional extensionality, constructive indefinite description). *)
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix ssrint rat poly mxpoly mxalgebra fingroup perm zmodp interval.
From mathcomp.classical Require Import classical_sets cardinality fsbigop.
From mathcomp.analysis Require Import reals ereal measure lebesgue_measure.
From mathcomp.real_closed Require Import polyrcf.
From CollapseVerify Require Import preamble.
Import GRing.Theory Num.Theory.
Local Open Scope ring_scope.
Local Open Scope classical_set_scope.

Section NullSet1.
Variable R : realType.

(* the zero set of a non-zero real polynomial is Lebesgue-null on R *)
Lemma poly_zero_set_null (p : {poly R}) :
  p != 0 -> lebesgue_measure [set x : R | p.[x] = 0] = 0%E.
Proof.
move=> p0.
have H x : root p x = (x \in rootsR p).
  by apply: (roots_onP (roots_on_rootsR p0)); rewrite in_itv.
have E : [set x : R | p.[x] = 0] = \bigcup_(r in [set` rootsR p]) [set r].
  apply/seteqP; split => [x /= px | x [r /= rin ->]].
    by exists x => //=; rewrite -H; apply/rootP.
  by apply/rootP; rewrite H.
rewrite E measure_fin_bigcup //.
- by apply: fsbig1 => r _; exact: lebesgue_measure_set1.
- exact: finite_seq.
- apply/trivIsetP => i j _ _ ij; rewrite -subset0 => x [/= xi xj].
  by move: ij; rewrite -xi -xj eqxx.
Qed.
End NullSet1.
