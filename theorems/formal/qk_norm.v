(* QK-Norm bounds attention, over the real numbers (MathComp-Analysis's
   realType and expR).
     DONG.qk-norm: with the queries q_i and keys k_j L2-normalised
     (q_i / |q_i|, k_j / |k_j|, Num.sqrt norms; a zero vector normalises to
     0 under MathComp's x / 0 = 0, so no non-zero hypothesis is needed) and a
     fixed scale s >= 0, every logit s q^_i . k^_j lies in [-s, s]
     (Cauchy-Schwarz, proved here through Lagrange's identity:
     cauchy_schwarz_sum), so every softmax weight is at most
     1 / (1 + (m-1) e^(-2s)) (softmaxR_bounded_logits), which is < 1 when
     there are m >= 2 keys.
   MathComp-Analysis rests on three classical axioms (propositional and
   functional extensionality, constructive indefinite description). *)
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix ssrint rat poly mxpoly mxalgebra fingroup perm zmodp interval.
From mathcomp.analysis Require Import reals sequences exp.
From CollapseVerify Require Import dong_collapse softmax_real preamble.
Import GRing.Theory Num.Theory Order.POrderTheory.
Local Open Scope ring_scope.

Section CauchySchwarz.
Variable R : realFieldType.

(* Cauchy-Schwarz, through Lagrange's identity *)
Lemma cauchy_schwarz_sum m (a b : 'I_m -> R) :
  (\sum_l a l * b l) ^+ 2 <= (\sum_l a l ^+ 2) * (\sum_l b l ^+ 2).
Proof.
have L : \sum_(i < m) \sum_(j < m) (a i * b j - a j * b i) ^+ 2
       = ((\sum_l a l ^+ 2) * (\sum_l b l ^+ 2) - (\sum_l a l * b l) ^+ 2) *+ 2.
  have E i j : (a i * b j - a j * b i) ^+ 2
             = a i ^+ 2 * b j ^+ 2 + b i ^+ 2 * a j ^+ 2 - (a i * b i) * (a j * b j) *+ 2.
    rewrite sqrrB !exprMn addrAC [b i ^+ 2 * _]mulrC; congr (_ - _ *+ 2).
    by rewrite mulrACA [b j * _]mulrC -mulrACA.
  rewrite (eq_bigr (fun i => \sum_(j < m) (a i ^+ 2 * b j ^+ 2 + b i ^+ 2 * a j ^+ 2
                                              - (a i * b i) * (a j * b j) *+ 2))); last first.
    by move=> i _; apply: eq_bigr => j _; exact: E.
  under eq_bigr do rewrite big_split big_split /= sumrN sumrMnl -!mulr_sumr.
  rewrite big_split big_split /= sumrN sumrMnl -!mulr_suml.
  by rewrite [(\sum_(i < m) b i ^+ 2) * _]mulrC -expr2 -mulr2n mulrnBl.
rewrite -subr_ge0 -(pmulrn_lge0 _ (isT : (0 < 2)%N)) -L.
by apply: sumr_ge0 => i _; apply: sumr_ge0 => j _; apply: sqr_ge0.
Qed.
End CauchySchwarz.

Section QKNorm.
Variable R : realType.

(* with every logit in [-s, s], no softmax weight exceeds 1 / (1 + (m-1) e^(-2s)) *)
Lemma softmaxR_bounded_logits n m (S : 'M[R]_(n, m)) (s : R) i j :
  (forall l, `|S i l| <= s) -> softmaxR S i j <= (1 + m.-1%:R * expR (- (2 * s)))^-1.
Proof.
move=> Ss.
have D0 : 0 < \sum_(l < m) expR (S i l).
  rewrite (bigD1 j) //= ltr_paddr ?expR_gt0 //.
  by apply: sumr_ge0 => l _; apply: ltW; apply: expR_gt0.
have B0 : 0 < 1 + m.-1%:R * expR (- (2 * s)).
  by rewrite ltr_paddr ?ltr01 // mulr_ge0 ?ler0n // ltW ?expR_gt0.
rewrite /softmaxR /softmax mxE ler_pdivr_mulr // ler_pdivl_mull //.
rewrite mulrDl mul1r (bigD1 j) //= ler_add2l.
have Hl l : expR (- s) <= expR (S i l).
  by have := Ss l; rewrite ler_norml => /andP[h _]; rewrite ler_expR.
apply: le_trans (ler_sum _ (fun l _ => Hl l)).
have Cj : #|(fun l : 'I_m => l != j)| = m.-1.
  by have := cardC1 j; rewrite card_ord => <-; apply: eq_card => l; rewrite !inE.
rewrite sumr_const Cj -[expR (- s) *+ _]mulr_natl -mulrA ler_wpmul2l ?ler0n // -expRD ler_expR.
rewrite addrC ler_subl_addr mulr_natl mulr2n addKr.
by have := Ss j; rewrite ler_norml => /andP[_ h].
Qed.

(* the logits of QK-norm at scale s: s q_i.k_j / (|q_i| |k_j|) (L2 norms) *)
Definition qk_logits n m dk (s : R) (Q : 'M[R]_(n, dk)) (K : 'M[R]_(m, dk)) : 'M[R]_(n, m) :=
  \matrix_(i, j) (s * \sum_(l < dk) (Q i l / Num.sqrt (\sum_(l' < dk) Q i l' ^+ 2))
                                   * (K j l / Num.sqrt (\sum_(l' < dk) K j l' ^+ 2))).

(* DONG.qk-norm: with q_i and k_j L2-normalised and a fixed scale s >= 0,
   every logit lies in [-s, s], so every attention weight is at most
   1 / (1 + (m-1) e^(-2s)), which is < 1 for m >= 2 keys *)
Lemma qk_norm_bound n m dk (s : R) (Q : 'M[R]_(n, dk)) (K : 'M[R]_(m, dk)) : 0 <= s ->
  (forall i j, `|qk_logits s Q K i j| <= s) /\
  (forall i j, softmaxR (qk_logits s Q K) i j <= (1 + m.-1%:R * expR (- (2 * s)))^-1) /\
  ((1 < m)%N -> forall i j, softmaxR (qk_logits s Q K) i j < 1).
Proof.
move=> s0.
have Hb i j : `|qk_logits s Q K i j| <= s.
  rewrite mxE normrM ger0_norm // -[X in _ <= X]mulr1 ler_wpmul2l //.
  set nq := Num.sqrt _; set nk := Num.sqrt _.
  have -> : \sum_(l < dk) Q i l / nq * (K j l / nk) = (\sum_(l < dk) Q i l * K j l) / (nq * nk).
    by rewrite invfM mulr_suml; apply: eq_bigr => l _; rewrite mulrACA.
  case: (eqVneq (nq * nk) 0) => [->|nz]; first by rewrite invr0 mulr0 normr0 ler01.
  rewrite normrM normfV ler_pdivr_mulr ?normr_gt0 // mul1r.
  rewrite [`|nq * nk|]ger0_norm ?mulr_ge0 ?sqrtr_ge0 // -sqrtr_sqr /nq /nk -sqrtrM; last first.
    by apply: sumr_ge0 => l _; apply: sqr_ge0.
  by rewrite ler_wsqrtr // cauchy_schwarz_sum.
have Hs i j : softmaxR (qk_logits s Q K) i j <= (1 + m.-1%:R * expR (- (2 * s)))^-1.
  exact: softmaxR_bounded_logits.
split=> //; split=> // m1 i j; apply: le_lt_trans (Hs i j) _.
have B0 : 0 < m.-1%:R * expR (- (2 * s)) by rewrite mulr_gt0 ?expR_gt0 // ltr0n -ltnS prednK // ltnW.
by rewrite invf_lt1 ?ltr_addl // addr_gt0 ?ltr01.
Qed.
End QKNorm.
