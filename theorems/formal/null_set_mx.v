(* The null-set lemma on matrices, and the paper's generic statements in
   their Lebesgue form.

   The pinned form: for R MathComp-Analysis's reals and sizes m, n,
     matk : Rk ((m n).-1) -> 'M[R]_(m, n) reads a point of R^(m n) as a matrix
            (entry (i, j) is coordinate mxvec_index i j; onto: matk_onto);
     mx_null B  :=  negligible (lebk ((m n).-1)) (matk @^-1` B)
            (B's coordinates lie in a measurable lebk-null set: B is
            Lebesgue-null in R^(m x n));
     polyfun_bad_set_null : polyfun P -> P w <> 0 -> B `<=` {P = 0} -> mx_null B
            (polyfun: zero_set.v's polynomial functions of the entries; each
            is ev of a polynomial in the coordinates, polyfun_ev);
     mx_null_ac : mx_null B -> B is negligible for every measure on R^(m n)
            absolutely continuous with respect to lebk.
   With the polynomials and witnesses of genericity.v (as in zero_set.v):
     generic_WV_null              RC.generic-wv
     residual_rank_null           RRO.only-increase
     prop51_null, prop51_almost_surely   RRO.prop51 (a.s. for every
                                  absolutely continuous law of B)
     rank_r_increments_null       RRO.rank-r-witness, in the increments
     rowspace_perturbations_null  RRO.remark-iii-generic
     rank_deficient_null, rank_stratum_null, lebesgue_all_matrices_vacuous
                                  {rank X < min(n, d)} and each stratum
                                  {rank X = r} are null (RRO.main,
                                  RRO.thm53-argument).
   NOT covered: real-analytic functions (softmax in the weights), and spaces
   of several matrices (a tuple of head weights) with their product measure. *)
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix ssrint rat poly mxpoly mxalgebra fingroup perm zmodp interval.
From mathcomp.classical Require Import mathcomp_extra boolp classical_sets functions.
From mathcomp.analysis Require Import reals ereal signed topology normedtype sequences esum measure lebesgue_measure lebesgue_integral.
From CollapseVerify Require Import preamble genericity zero_set null_set.
Import GRing.Theory Num.Theory.
Local Open Scope ring_scope.
Local Open Scope classical_set_scope.

Section Coordinates.
Variable R : realType.
Local Notation Rk := (Rk R).
Local Notation Pk := (Pk R).

(* the i-th coordinate of a point of R^(k+1) = Rk k (0 past the last) *)
Fixpoint coord (k : nat) : nat -> Rk k -> R :=
  match k return nat -> Rk k -> R with
  | k'.+1 => fun i z => if i == k'.+1 then (z.2 : R) else @coord k' i z.1
  | 0 => fun i x => if i == 0%N then (x : R) else 0
  end.
Arguments coord : clear implicits.

(* the point with coordinates f 0, ..., f k *)
Fixpoint mk (k : nat) (f : nat -> R) : Rk k :=
  match k return Rk k with
  | k'.+1 => (mk k' f, f k'.+1 : L R)
  | 0 => (f 0%N : L R)
  end.

Lemma coord_mk k f i : (i <= k)%N -> coord k i (mk k f) = f i.
Proof.
elim: k => [|k IH] /=; first by rewrite leqn0 => /eqP ->.
by case: eqP => [-> //|/eqP ik]; rewrite leq_eqVlt (negPf ik) ltnS; exact: IH.
Qed.

(* constants and variables as polynomials in k + 1 variables *)
Fixpoint pC (k : nat) (c : R) : Pk k :=
  match k return Pk k with k'.+1 => (pC k' c)%:P | 0 => c%:P end.

Fixpoint pX (k : nat) (i : nat) : Pk k :=
  match k return Pk k with
  | k'.+1 => if i == k'.+1 then 'X else (pX k' i)%:P
  | 0 => if i == 0%N then 'X else 0
  end.

(* evaluation at a point is a ring morphism *)
Lemma ev_rmorph k x : rmorphism (fun q : Pk k => ev k q x).
Proof.
elim: k x => [|k IH] x.
  split; first by move=> p q /=; rewrite hornerD hornerN.
  by split; [move=> p q /=; rewrite hornerM | rewrite /= hornerC].
pose F := RMorphism (IH x.1).
have E P : ev k.+1 P x = (map_poly F P).[x.2] by [].
split; first by move=> P Q; rewrite !E rmorphB hornerD hornerN.
split; first by move=> P Q; rewrite !E rmorphM hornerM.
by rewrite E rmorph1 hornerC.
Qed.

Lemma evD k (P Q : Pk k) x : ev k (P + Q) x = ev k P x + ev k Q x.
Proof. exact: (rmorphD (RMorphism (@ev_rmorph k x)) P Q). Qed.

Lemma evM k (P Q : Pk k) x : ev k (P * Q) x = ev k P x * ev k Q x.
Proof. exact: (rmorphM (RMorphism (@ev_rmorph k x)) P Q). Qed.

Lemma ev_pC k c x : ev k (pC k c) x = c.
Proof.
elim: k x => [|k IH] x /=; first by rewrite hornerC.
by rewrite (map_polyC (RMorphism (@ev_rmorph k x.1))) hornerC; exact: IH.
Qed.

Lemma ev_pX k i x : ev k (pX k i) x = coord k i x.
Proof.
elim: k x => [|k IH] x /=; first by case: eqP => _; rewrite ?hornerX ?horner0.
case: eqP => _.
  by rewrite (map_polyX (RMorphism (@ev_rmorph k x.1))) hornerX.
by rewrite (map_polyC (RMorphism (@ev_rmorph k x.1))) hornerC; exact: IH.
Qed.

(* R^(m x n) in coordinates: entry (i, j) is coordinate mxvec_index i j of a
   point of R^(m n) = Rk (m n).-1 *)
Definition matk m n (x : Rk (m * n).-1) : 'M[R]_(m, n) :=
  \matrix_(i, j) coord (m * n).-1 (mxvec_index i j) x.

Lemma matk_onto m n (w : 'M[R]_(m, n)) : exists x, matk x = w.
Proof.
exists (mk (m * n).-1 (fun l => if insub l is Some o then mxvec w 0 o else 0)).
apply/matrixP => i j; rewrite mxE coord_mk; first by rewrite valK mxvecE.
by rewrite -ltnS (ltn_predK (ltn_ord (mxvec_index i j))) ltn_ord.
Qed.

(* a polynomial function of the entries (zero_set.v's polyfun) is, in
   coordinates, the evaluation of a polynomial in m n variables *)
Lemma polyfun_ev m n (P : 'M[R]_(m, n) -> R) :
  polyfun P -> exists Q : Pk (m * n).-1, forall x, P (matk x) = ev _ Q x.
Proof.
elim=> {P} [c|i j|f g _ [Qf Hf] _ [Qg Hg]|f g _ [Qf Hf] _ [Qg Hg]|f g _ [Q HQ] fg].
- by exists (pC _ c) => x; rewrite ev_pC.
- by exists (pX _ (mxvec_index i j)) => x; rewrite ev_pX mxE.
- by exists (Qf + Qg) => x; rewrite evD Hf Hg.
- by exists (Qf * Qg) => x; rewrite evM Hf Hg.
- by exists Q => x; rewrite -fg HQ.
Qed.

(* a set of m x n matrices is Lebesgue-null: its coordinates form a null set
   of the product measure lebk on R^(m n) *)
Definition mx_null m n (B : set 'M[R]_(m, n)) :=
  negligible (lebk R (m * n).-1) (@matk m n @^-1` B).

(* ... and then it is null for every law absolutely continuous with respect
   to the Lebesgue measure (a law with a density) *)
Lemma mx_null_ac m n (B : set 'M[R]_(m, n)) (mu : {measure set (Rk (m * n).-1) -> \bar R}) :
  (forall A, measurable A -> lebk R (m * n).-1 A = 0%E -> mu A = 0%E) ->
  mx_null B -> negligible mu (@matk m n @^-1` B).
Proof. by move=> ac [A [mA A0 BA]]; exists A; split => //; exact: ac. Qed.

(* the bridge: a bad set inside the zero set of a polynomial function of the
   entries that is non-zero at a witness is Lebesgue-null *)
Lemma polyfun_bad_set_null m n (P : 'M[R]_(m, n) -> R) (w : 'M[R]_(m, n))
    (B : set 'M[R]_(m, n)) :
  polyfun P -> P w != 0 -> B `<=` P @^-1` [set 0] -> mx_null B.
Proof.
move=> pP Pw BZ; have [Q HQ] := polyfun_ev pP; have [x0 x0w] := matk_onto w.
apply: (@poly_bad_set_null _ _ Q x0); first by rewrite -HQ x0w.
by move=> x /BZ; rewrite /preimage /= HQ.
Qed.

Lemma polyfun_zero_set_null m n (P : 'M[R]_(m, n) -> R) (w : 'M[R]_(m, n)) :
  polyfun P -> P w != 0 -> mx_null (P @^-1` [set 0]).
Proof. by move=> pP Pw; exact: polyfun_bad_set_null pP Pw _. Qed.

End Coordinates.

(* ------------------------------------------------------------------ *)
(* The paper's generic statements, in the Lebesgue form: each bad set lies
   in the zero set of the polynomial of genericity.v, non-zero at the
   witness proved there (the same polynomials as zero_set.v's
   nowhere-dense forms), so it is null.  R is MathComp-Analysis's reals. *)
Section NullBridge.
Variable R : realType.

(* RC.generic-wv: {W_V : rank(X W_V) <> min(rank X, d_k)} is null *)
Lemma generic_WV_null n d d_k (X : 'M[R]_(n, d)) :
  mx_null [set W_V : 'M[R]_(d, d_k) | \rank (X *m W_V) != minn (\rank X) d_k].
Proof.
have [L [Rb [W0 [nz van]]]] := generic_WV d_k X.
apply: (@polyfun_bad_set_null _ _ _ (fun W => \det (L *m (X *m W) *m Rb)) W0);
  [|exact: nz|move=> W /= H; exact: van].
apply: polyfun_det; apply: pfmx_mul; last exact: pfmx_cst.
by apply: pfmx_mul; [exact: pfmx_cst | apply: pfmx_mul; [exact: pfmx_cst | exact: pfmx_id]].
Qed.

(* RRO.only-increase: {Delta : rank(X + Delta) < rank X} is null *)
Lemma residual_rank_null n d (X : 'M[R]_(n, d)) :
  mx_null [set Delta : 'M[R]_(n, d) | (\rank (X + Delta)%R < \rank X)%N].
Proof.
have [L [Rb [nz van]]] := residual_rank_generic X.
apply: (@polyfun_bad_set_null _ _ _ (fun D => \det (L *m (X + D) *m Rb)) 0);
  [|exact: nz|move=> D /= H; exact: van].
apply: polyfun_det; apply: pfmx_mul; last exact: pfmx_cst.
by apply: pfmx_mul; [exact: pfmx_cst | apply: pfmx_add; [exact: pfmx_cst | exact: pfmx_id]].
Qed.

(* RRO.prop51, the bad set: {B : rank(A + B) <= rank A} is null for
   rank A < min(n, d) *)
Lemma prop51_null n d (A : 'M[R]_(n, d)) :
  (\rank A < minn n d)%N ->
  mx_null [set B : 'M[R]_(n, d) | (\rank (A + B)%R <= \rank A)%N].
Proof.
move=> lt; have [B0 [nz van]] := prop51_algebraic lt.
apply: (@polyfun_bad_set_null _ _ _ (fun B => leading_minor (\rank A).+1 (A + B)) B0);
  [|exact: nz|move=> B /= H; exact: van].
rewrite /leading_minor; apply: polyfun_det; apply: pfmx_mul; last exact: pfmx_cst.
by apply: pfmx_mul; [exact: pfmx_cst | apply: pfmx_add; [exact: pfmx_cst | exact: pfmx_id]].
Qed.

(* RRO.prop51, as the paper states it: for a random B whose law mu on the
   n d entries is absolutely continuous with respect to the Lebesgue
   measure, rank(A + B) > rank A almost surely *)
Lemma prop51_almost_surely n d (A : 'M[R]_(n, d))
    (mu : {measure set (Rk R (n * d).-1) -> \bar R}) :
  (\rank A < minn n d)%N ->
  (forall S, measurable S -> lebk R (n * d).-1 S = 0%E -> mu S = 0%E) ->
  {ae mu, forall x, (\rank A < \rank (A + matk x)%R)%N}.
Proof.
move=> lt ac; have [S [mS S0 sub]] := mx_null_ac ac (prop51_null lt).
exists S; split => // x /= H; apply: sub; rewrite /= leqNgt; exact/negP.
Qed.

(* RRO.rank-r-witness, in the increments: for rank X = r < min(n, d) the
   increments Delta with rank(X + Delta) <= r form a null set (the weights
   behind Delta = MHA(X) enter through softmax and are not covered) *)
Lemma rank_r_increments_null n d r (X : 'M[R]_(n, d)) :
  \rank X = r -> (r < minn n d)%N ->
  mx_null [set Delta : 'M[R]_(n, d) | (\rank (X + Delta)%R <= r)%N].
Proof. by move=> <-; apply: prop51_null. Qed.

(* RRO.remark-iii-generic: for rank X < min(n, d) the perturbations whose
   rows lie in row X form a null set *)
Lemma rowspace_perturbations_null n d (X : 'M[R]_(n, d)) :
  (\rank X < minn n d)%N -> mx_null [set Delta : 'M[R]_(n, d) | (Delta <= X)%MS].
Proof.
move=> lt; set r := \rank X.
have [rn rd] : (minn n d <= n)%N /\ (minn n d <= d)%N by rewrite geq_minl geq_minr.
pose D0 : 'M[R]_(n, d) := pid_mx (minn n d).
have nD0 : ~~ (D0 <= X)%MS.
  by apply: contraTN lt => /mxrankS; rewrite rank_pid_mx // -leqNgt.
pose Y0 := col_mx X D0.
have rY0 : (r < \rank Y0)%N.
  rewrite /Y0 -(addsmxE X D0).1; apply: rank_ltmx.
  by rewrite ltmxE addsmxSl /= addsmx_sub submx_refl.
set k := r.+1.
have kY : (k <= \rank Y0)%N by [].
have kn : (k <= n + n)%N by apply: leq_trans kY (rank_leq_row _).
have kd : (k <= d)%N by apply: leq_trans kY (rank_leq_col _).
pose L : 'M[R]_(k, n + n) := pid_mx k *m invmx (col_ebase Y0).
pose Rb : 'M[R]_(d, k) := invmx (row_ebase Y0) *m pid_mx k.
apply: (@polyfun_bad_set_null _ _ _ (fun D => \det (L *m col_mx X D *m Rb)) D0);
  last first.
- move=> D /= sub; apply: minor_vanishes.
  by rewrite -(addsmxE X D).1 (addsmx_idPl sub).1.
- have E : Y0 = col_ebase Y0 *m pid_mx (\rank Y0) *m row_ebase Y0 by rewrite mulmx_ebase.
  rewrite /L /Rb -/Y0 {2}E !mulmxA mulmxKV ?col_ebase_unit // -!mulmxA.
  rewrite mulKVmx ?row_ebase_unit // !mul_pid_mx.
  by rewrite (minn_idPr kY) (minn_idPr kd) minnn (minn_idPr kn) pid_mx_1 det1 oner_neq0.
apply: polyfun_det; apply: pfmx_mul; last exact: pfmx_cst.
by apply: pfmx_mul; [exact: pfmx_cst | apply: pfmx_col; exact: pfmx_id].
Qed.

(* the rank-deficient matrices, {X : rank X < min(n, d)}, form a null set
   (inside the zero set of the leading minor of order min(n, d), which is 1
   at pid_mx); so does every stratum {rank X = r}, r < min(n, d) *)
Lemma mx_nullS m n (B C : set 'M[R]_(m, n)) : B `<=` C -> mx_null C -> mx_null B.
Proof. by move=> BC [S [mS S0 CS]]; exists S; split => // x /BC /CS. Qed.

Lemma rank_deficient_null n d :
  mx_null [set X : 'M[R]_(n, d) | (\rank X < minn n d)%N].
Proof.
apply: (@polyfun_bad_set_null _ _ _ (fun X => leading_minor (minn n d) X) (pid_mx (minn n d))).
- rewrite /leading_minor; apply: polyfun_det; apply: pfmx_mul; last exact: pfmx_cst.
  by apply: pfmx_mul; [exact: pfmx_cst | exact: pfmx_id].
- rewrite /leading_minor !mul_pid_mx !minnn (minn_idPr (geq_minl n d)).
  by rewrite minnn (minn_idPr (geq_minr n d)) pid_mx_1 det1 oner_neq0.
- by move=> X /= lt; rewrite /leading_minor; exact: minor_vanishes.
Qed.

Lemma rank_stratum_null n d r :
  (r < minn n d)%N -> mx_null [set X : 'M[R]_(n, d) | \rank X = r].
Proof.
move=> lt; apply: (mx_nullS _ (rank_deficient_null n d)).
by move=> X /= ->.
Qed.

(* RRO.main read with X Lebesgue-distributed on all of R^(n x d): for every
   map F, almost every X satisfies "rank X < min(n, d) -> rank F(X) >
   rank X", vacuously: its premise fails off a null set *)
Lemma lebesgue_all_matrices_vacuous n d (F : 'M[R]_(n, d) -> 'M[R]_(n, d)) :
  {ae lebk R (n * d).-1, forall x,
     (\rank (matk x) < minn n d)%N -> (\rank (matk x) < \rank (F (matk x)))%N}.
Proof.
have [S [mS S0 sub]] := rank_deficient_null n d.
exists S; split => // x /= /not_implyP[lt _]; exact: sub.
Qed.

End NullBridge.
