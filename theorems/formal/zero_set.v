(* The zero set of a non-zero real polynomial, topologically: closed and with
   empty interior (nowhere dense); and the bridge the generic statements of
   the paper use: "P is a polynomial in the weights, P(w* ) <> 0 at a witness,
   so the bad set {P = 0} is nowhere dense".

   The pinned form of the statement (what is proved, and what is not):
     for R a real field (realFieldType: the reals of MathComp-Analysis among
     them), m, n any sizes, and P : 'M[R]_(m, n) -> R a polynomial function
     of the m n entries (polyfun: built from constants and the entries W i j
     by + and times), if P w <> 0 at one w then the zero set
     Z = {W | P W = 0} is closed and its interior is empty, so every set B
     inside Z is nowhere dense: (closure B)^o = set0.
   NOT proved here: that Z is Lebesgue-null.  "Nowhere dense" is not "null"
   (a fat Cantor set is nowhere dense with positive measure); for the zero set
   of a polynomial both hold, but the measure form needs the Lebesgue measure
   on R^k (k = m n) as the k-fold product of the Lebesgue measure on R, the
   sigma-finiteness of a product measure (to iterate measure.v's
   product_measure1) and Fubini-Tonelli on R^k (fubini_tonelli1 is stated for
   two sigma-finite factors): MathComp-Analysis 0.6.0 has the Lebesgue measure
   on R only (lebesgue_measure.v), and the iterated product is not built here.

   The generic readings this file proves (nowhere-dense bad sets):
     RC.generic-wv        {W_V : rank(X W_V) <> min(rank X, d_k)}
     RRO.only-increase    {Delta : rank(X + Delta) < rank X}
     RRO.prop51           {B : rank(A + B) <= rank A}, rank A < min(n, d)
     RRO.rank-r-witness   {Delta : rank(X + Delta) <= r}, rank X = r < min(n, d)
                          (the increments Delta, not the weights)
     RRO.remark-iii-generic  {Delta : row Delta in row X}, rank X < min(n, d)
   each with the polynomial of genericity.v (a minor of a fixed change of
   basis), non-zero at the witness proved there. *)
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix ssrint rat poly mxpoly mxalgebra fingroup perm zmodp interval.
From mathcomp.classical Require Import boolp classical_sets.
From mathcomp.analysis Require Import reals topology normedtype.
From CollapseVerify Require Import preamble genericity.
Import GRing.Theory Num.Theory numFieldTopology.Exports numFieldNormedType.Exports.
Local Open Scope ring_scope.
Local Open Scope classical_set_scope.

Section PolyFun.
Variables (R : numFieldType) (m n : nat).
Local Notation M := 'M[R]_(m, n).

Inductive polyfun : (M -> R) -> Prop :=
| pf_cst c : polyfun (fun _ => c)
| pf_coord i j : polyfun (fun W => W i j)
| pf_add f g : polyfun f -> polyfun g -> polyfun (fun W => f W + g W)
| pf_mul f g : polyfun f -> polyfun g -> polyfun (fun W => f W * g W)
| pf_ext f g : polyfun f -> f =1 g -> polyfun g.

Lemma polyfun_line P : polyfun P -> forall x v : M,
  exists q : {poly R}, forall t, P (x + t *: v) = q.[t].
Proof.
elim=> {P} [c|i j|f g _ IHf _ IHg|f g _ IHf _ IHg|f g _ IH fg] x v.
- by exists c%:P => t; rewrite hornerC.
- exists ((x i j)%:P + (v i j)%:P * 'X) => t.
  by rewrite hornerD hornerC hornerCM hornerX !mxE mulrC.
- have [p Hp] := IHf x v; have [q Hq] := IHg x v.
  by exists (p + q) => t; rewrite hornerD Hp Hq.
- have [p Hp] := IHf x v; have [q Hq] := IHg x v.
  by exists (p * q) => t; rewrite hornerM Hp Hq.
- have [p Hp] := IH x v; by exists p => t; rewrite -fg.
Qed.

(* closure under finite sums and products, and the matrix operations *)
Lemma polyfun_sum (I : Type) (r : seq I) (Pr : pred I) (F : I -> M -> R) :
  (forall i, polyfun (F i)) -> polyfun (fun W => \sum_(i <- r | Pr i) F i W).
Proof.
move=> pF; elim: r => [|a r IH].
  by apply: (pf_ext (pf_cst 0)) => W; rewrite big_nil.
case Pa: (Pr a).
  by apply: (pf_ext (pf_add (pF a) IH)) => W; rewrite big_cons Pa.
by apply: (pf_ext IH) => W; rewrite big_cons Pa.
Qed.

Lemma polyfun_prod (I : Type) (r : seq I) (Pr : pred I) (F : I -> M -> R) :
  (forall i, polyfun (F i)) -> polyfun (fun W => \prod_(i <- r | Pr i) F i W).
Proof.
move=> pF; elim: r => [|a r IH].
  by apply: (pf_ext (pf_cst 1)) => W; rewrite big_nil.
case Pa: (Pr a).
  by apply: (pf_ext (pf_mul (pF a) IH)) => W; rewrite big_cons Pa.
by apply: (pf_ext IH) => W; rewrite big_cons Pa.
Qed.

(* a matrix-valued map whose entries are polynomial functions *)
Definition pfmx p q (F : M -> 'M[R]_(p, q)) := forall i j, polyfun (fun W => F W i j).

Lemma pfmx_id : pfmx id.
Proof. by move=> i j; apply: pf_coord. Qed.

Lemma pfmx_cst p q (A : 'M[R]_(p, q)) : pfmx (fun=> A).
Proof. by move=> i j; apply: pf_cst. Qed.

Lemma pfmx_add p q (F G : M -> 'M[R]_(p, q)) : pfmx F -> pfmx G -> pfmx (fun W => F W + G W).
Proof. by move=> pF pG i j; apply: (pf_ext (pf_add (pF i j) (pG i j))) => W; rewrite mxE. Qed.

Lemma pfmx_mul p q s (F : M -> 'M[R]_(p, q)) (G : M -> 'M[R]_(q, s)) :
  pfmx F -> pfmx G -> pfmx (fun W => F W *m G W).
Proof.
move=> pF pG i j.
have := @polyfun_sum _ (index_enum (ordinal_finType q)) xpredT (fun k W => F W i k * G W k j)
                    (fun k => pf_mul (pF i k) (pG k j)).
by move/pf_ext; apply => W; rewrite mxE.
Qed.

Lemma pfmx_col p1 p2 q (A : 'M[R]_(p1, q)) (F : M -> 'M[R]_(p2, q)) :
  pfmx F -> pfmx (fun W => col_mx A (F W)).
Proof.
move=> pF i j; rewrite -(splitK i); case: (split i) => k /=.
  by apply: (pf_ext (pf_cst (A k j))) => W; rewrite col_mxEu.
by apply: (pf_ext (pF k j)) => W; rewrite col_mxEd.
Qed.

Lemma polyfun_det p (F : M -> 'M[R]_p) : pfmx F -> polyfun (fun W => \det (F W)).
Proof.
move=> pF.
have := @polyfun_sum _ (index_enum (perm_finType (ordinal_finType p))) xpredT
  (fun (s : 'S_p) W => (-1) ^+ s * \prod_(i <- index_enum (ordinal_finType p) | xpredT i) F W i (s i))
  (fun s => pf_mul (pf_cst _) (@polyfun_prod _ _ _ _ (fun i => pF i (s i)))).
by move/pf_ext; apply.
Qed.

Lemma polyfun_continuous P : polyfun P -> continuous P.
Proof.
elim=> {P} [c|i j|f g _ IHf _ IHg|f g _ IHf _ IHg|f g _ IH fg].
- exact: cst_continuous.
- exact: coord_continuous.
- by move=> x; apply: (continuousD (IHf x) (IHg x)).
- by move=> x; apply: (continuousM (IHf x) (IHg x)).
- by rewrite -(funext fg).
Qed.

End PolyFun.

Section Interior.
Variable R : numFieldType.

(* a polynomial vanishing at the distinct points d / (i + 2), i < size q, is 0 *)
Lemma poly_vanishing_near0 (q : {poly R}) (d : R) : 0 < d ->
  (forall t : R, `|t| < d -> q.[t] = 0) -> q = 0.
Proof.
move=> d0 van; apply/eqP; apply: contraT => qn0.
pose rs := [seq d / (i.+2)%:R | i <- iota 0 (size q)].
have := max_poly_roots qn0 _ _; move=> /(_ rs).
rewrite size_map size_iota ltnn; apply.
- apply/allP => _ /mapP[i _ ->]; apply/rootP/van.
  rewrite normrM normfV normr_nat (gtr0_norm d0).
  by rewrite ltr_pdivr_mulr ?ltr0n // ltr_pmulr // ltr1n.
- rewrite map_inj_uniq ?iota_uniq // => i j.
  have dn0 : d != 0 by move: d0; rewrite lt0r => /andP[].
  move=> /(mulfI dn0) /invr_inj /eqP.
  by rewrite eqr_nat !eqSS => /eqP.
Qed.

End Interior.

Section ZeroSet.
Variables (R : realFieldType) (m n : nat).

Lemma line_coord_continuous (a b : R) : {for 0, continuous (fun t : R => a + t * b)}.
Proof.
apply: (continuousD (f := fun=> a) (g := fun t => t * b)); first exact: cst_continuous.
apply: (continuousM (s := id) (t := fun=> b)); [exact: cvg_id | exact: cst_continuous].
Qed.

Lemma polyfun_zero_set_nowhere_dense (P : 'M[R]_(m, n) -> R) (w : 'M[R]_(m, n)) :
  polyfun P -> P w != 0 ->
  closed (P @^-1` [set 0]) /\ (P @^-1` [set 0])^° = set0.
Proof.
move=> pP Pw; split.
  apply: closed_comp => [y _|]; [exact: polyfun_continuous | exact: closed_eq].
apply/seteqP; split=> // x xin; apply/(negP Pw)/eqP.
have [q Hq] := polyfun_line pP x (w - x).
case: xin => Q Qn QA.
have near_ij : forall i j, \forall t \near (0 : R), Q i j (x i j + t * (w - x) i j).
  move=> i j; have := @line_coord_continuous (x i j) ((w - x) i j).
  rewrite forE /= mul0r addr0; apply; exact: Qn.
have : \forall t \near (0 : R), forall i j, Q i j (x i j + t * (w - x) i j).
  exact: (@filter_forall _ _ _ (nbhs (0 : R)) _
            (fun i => @filter_forall _ _ _ (nbhs (0 : R)) _ (near_ij i))).
move=> /nbhs_ballP[e e0 eS].
have q0 : q = 0.
  apply: (poly_vanishing_near0 e0) => t te; rewrite -Hq; apply: QA => i j.
  have tb : ball 0 e t by rewrite /ball /= sub0r normrN.
  by have := eS t tb i j; rewrite !mxE.
by rewrite -[w](addrNK x) addrC -[w - x]scale1r Hq q0 horner0.
Qed.

End ZeroSet.

(* ------------------------------------------------------------------ *)
(* The bridge: a set inside the zero set of a polynomial function that is
   non-zero at one witness is nowhere dense (its closure has empty interior). *)
Section Bridge.
Variable R : realFieldType.

Lemma polyfun_bad_set_nowhere_dense m n (P : 'M[R]_(m, n) -> R) (w : 'M[R]_(m, n))
    (B : set 'M[R]_(m, n)) :
  polyfun P -> P w != 0 -> B `<=` P @^-1` [set 0] -> (closure B)^° = set0.
Proof.
move=> pP Pw BZ; have [Zc Zi] := polyfun_zero_set_nowhere_dense pP Pw.
apply/seteqP; split=> // x xin; rewrite -Zi.
have cBZ : closure B `<=` P @^-1` [set 0].
  by rewrite ((closure_id _).1 Zc); apply: closure_subset.
exact: (filterS cBZ xin).
Qed.

(* RC.generic-wv, nowhere-dense: {W_V : rank(X W_V) <> min(rank X, d_k)} *)
Lemma generic_WV_nowhere_dense n d d_k (X : 'M[R]_(n, d)) :
  (closure [set W_V : 'M[R]_(d, d_k) | \rank (X *m W_V) != minn (\rank X) d_k])^° = set0.
Proof.
have [L [Rb [W0 [nz van]]]] := generic_WV d_k X.
apply: (@polyfun_bad_set_nowhere_dense _ _ (fun W => \det (L *m (X *m W) *m Rb)) W0);
  [|exact: nz|move=> W /= H; exact: van].
apply: polyfun_det; apply: pfmx_mul; last exact: pfmx_cst.
by apply: pfmx_mul; [exact: pfmx_cst | apply: pfmx_mul; [exact: pfmx_cst | exact: pfmx_id]].
Qed.

(* RRO.only-increase, nowhere-dense: {Delta : rank(X + Delta) < rank X} *)
Lemma residual_rank_nowhere_dense n d (X : 'M[R]_(n, d)) :
  (closure [set Delta : 'M[R]_(n, d) | (\rank (X + Delta)%R < \rank X)%N])^° = set0.
Proof.
have [L [Rb [nz van]]] := residual_rank_generic X.
apply: (@polyfun_bad_set_nowhere_dense _ _ (fun D => \det (L *m (X + D) *m Rb)) 0);
  [|exact: nz|move=> D /= H; exact: van].
apply: polyfun_det; apply: pfmx_mul; last exact: pfmx_cst.
by apply: pfmx_mul; [exact: pfmx_cst | apply: pfmx_add; [exact: pfmx_cst | exact: pfmx_id]].
Qed.

(* RRO.prop51, nowhere-dense: {B : rank(A + B) <= rank A} for rank A < min(n, d) *)
Lemma prop51_nowhere_dense n d (A : 'M[R]_(n, d)) :
  (\rank A < minn n d)%N ->
  (closure [set B : 'M[R]_(n, d) | (\rank (A + B)%R <= \rank A)%N])^° = set0.
Proof.
move=> lt; have [B0 [nz van]] := prop51_algebraic lt.
apply: (@polyfun_bad_set_nowhere_dense _ _ (fun B => leading_minor (\rank A).+1 (A + B)) B0);
  [|exact: nz|move=> B /= H; exact: van].
rewrite /leading_minor; apply: polyfun_det; apply: pfmx_mul; last exact: pfmx_cst.
by apply: pfmx_mul; [exact: pfmx_cst | apply: pfmx_add; [exact: pfmx_cst | exact: pfmx_id]].
Qed.

(* RRO.rank-r-witness, in the increments: for rank X = r < min(n, d) the
   increments Delta with rank(X + Delta) <= r form a nowhere dense set (the
   weights behind Delta = MHA(X) are not covered) *)
Lemma rank_r_increments_nowhere_dense n d r (X : 'M[R]_(n, d)) :
  \rank X = r -> (r < minn n d)%N ->
  (closure [set Delta : 'M[R]_(n, d) | (\rank (X + Delta)%R <= r)%N])^° = set0.
Proof. by move=> <-; apply: prop51_nowhere_dense. Qed.

(* RRO.remark-iii-generic, nowhere-dense: for rank X < min(n, d) the
   perturbations whose rows lie in row X form a nowhere dense set *)
Lemma rowspace_perturbations_nowhere_dense n d (X : 'M[R]_(n, d)) :
  (\rank X < minn n d)%N -> (closure [set Delta : 'M[R]_(n, d) | (Delta <= X)%MS])^° = set0.
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
apply: (@polyfun_bad_set_nowhere_dense _ _ (fun D => \det (L *m col_mx X D *m Rb)) D0);
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

End Bridge.
