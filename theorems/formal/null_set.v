(* The null-set lemma: the zero set of a non-zero real polynomial in k + 1
   variables is null for the Lebesgue measure on R^(k+1), for every k.

   The pinned form of the statement:
     for R MathComp-Analysis's reals (realType) and every k : nat,
     Rk k   = R^(k+1), the iterated product (...(L * L) * ...) * L of L, the
              measurable type of lebesgue_measure (lebesgue_measure.v);
     lebk k = its measure: lebk 0 = lebesgue_measure,
              lebk (k+1) = product_measure1 (lebk k) lebesgue_measure
              (lebesgue_integral.v; it needs the second factor sigma-finite:
              lebesgue_sigma_finite); lebk k is sigma-finite for every k
              (lebk_sigma_finite) and is the product on rectangles
              (lebk_rectangle), so it is the product measure
              (product_measure_unique);
     Pk k   = R[x_0][x_1]...[x_k], polynomials in k + 1 variables, and
     ev k P x their evaluation at x in Rk k;
     poly_zero_set_null_k : P != 0 -> lebk k [set x | ev k P x = 0] = 0
     (and the set is measurable: measurable_zero_set).
   The proof: Tonelli's, by induction on k.  lebk (k+1) Z is the integral
   over x of lebesgue_measure of the slice {y | P_x(y) = 0} (P with x
   substituted in its coefficients); the slice is null by the univariate
   lemma (null_set_1d.v) unless P_x = 0, which forces P's leading
   coefficient, a non-zero polynomial in k + 1 variables, to vanish at x: a
   null set by induction; so the integrand is 0 almost everywhere.
   The bridge: poly_bad_set_null (a set inside {P = 0} with P(w) <> 0 at one
   w is negligible) and poly_bad_set_null_ac (also for every measure
   absolutely continuous with respect to lebk).  k = 2 in MathComp's own
   bivariate notation: bivariate_zero_set_null.
   Axioms: the three classical ones MathComp-Analysis rests on. *)
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix ssrint rat poly mxpoly mxalgebra fingroup perm zmodp interval.
From mathcomp.classical Require Import boolp classical_sets functions.
From mathcomp.analysis Require Import reals ereal measure lebesgue_measure lebesgue_integral.
From CollapseVerify Require Import preamble null_set_1d.
Import GRing.Theory Num.Theory.
Local Open Scope ring_scope.
Local Open Scope classical_set_scope.

Section NullSetK.
Variable R : realType.

Definition L := [the measurableType _ of
  salgebraType (@measurable _ [the semiRingOfSetsType _ of ocitv_type R])].
Definition dL : measure_display :=
  ltac:(let t := type of L in match t with Measurable.type ?d => exact d end).

Lemma lebesgue_sigma_finite : sigma_finite setT (@lebesgue_measure R).
Proof.
exact: (Hahn_ext_sigma_finite (@hlength_sigma_sub_additive R)
                              (@hlength_sigma_finite R)).
Qed.

Fixpoint dispk (k : nat) : measure_display :=
  if k is k'.+1 then measure_prod_display (dispk k', dL) else dL.

Fixpoint Rk (k : nat) : measurableType (dispk k) :=
  match k return measurableType (dispk k) with
  | k'.+1 => [the measurableType _ of (Rk k' * L)%type]
  | 0 => L
  end.

Fixpoint lebk (k : nat) : {measure set (Rk k) -> \bar R} :=
  match k return {measure set (Rk k) -> \bar R} with
  | k'.+1 => [the measure _ _ of product_measure1 (lebk k') lebesgue_sigma_finite]
  | 0 => [the measure _ _ of @lebesgue_measure R]
  end.

Fixpoint Pk (k : nat) : ringType :=
  if k is k'.+1 then [ringType of {poly Pk k'}] else [ringType of {poly R}].

Fixpoint ev (k : nat) : Pk k -> Rk k -> R :=
  match k return Pk k -> Rk k -> R with
  | k'.+1 => fun P z => (map_poly (fun q => @ev k' q z.1) P).[z.2]
  | 0 => fun p x => p.[x]
  end.
Arguments ev : clear implicits.

Lemma ev0 k x : ev k 0 x = 0.
Proof. by case: k x => [|k] x /=; rewrite ?map_poly0 horner0. Qed.

Lemma measurable_L : measurable_fun setT (fun y : L => (y : R)).
Proof. by move=> _ A mA; rewrite setTI; exact: mA. Qed.

Section Step.
Context d (T : measurableType d).

Lemma measurable_fst' : measurable_fun setT (@fst T L).
Proof.
have mid : measurable_fun setT (@id (T * L)) by exact: measurable_fun_id.
by have [] := (prod_measurable_funP _).1 mid.
Qed.

Lemma measurable_snd' : measurable_fun setT (@snd T L).
Proof.
have mid : measurable_fun setT (@id (T * L)) by exact: measurable_fun_id.
by have [] := (prod_measurable_funP _).1 mid.
Qed.

Lemma measurable_sum_pow d' (T' : measurableType d') (a : nat -> T' -> R) (g : T' -> R) n :
  (forall i, measurable_fun setT (a i)) -> measurable_fun setT g ->
  measurable_fun setT (fun z => \sum_(i < n) a i z * g z ^+ i).
Proof.
move=> ma mg; elim: n => [|n IH].
  by under eq_fun do rewrite big_ord0; exact: measurable_fun_cst.
under eq_fun do rewrite big_ord_recr /=.
apply: measurable_funD => //; apply: measurable_funM => //.
exact: measurable_fun_exprn.
Qed.

Lemma measurable_horner (c : T -> {poly R}) (n : nat) :
  (forall x, (size (c x) <= n)%N) -> (forall i, measurable_fun setT (fun x => (c x)`_i)) ->
  measurable_fun setT (fun z : T * L => (c z.1).[z.2]).
Proof.
move=> sz mc.
have -> : (fun z : T * L => (c z.1).[z.2]) =
          (fun z => \sum_(i < n) (c z.1)`_i * (z.2 : R) ^+ i).
  by apply/funext => z; rewrite (horner_coef_wide _ (sz _)).
apply: (measurable_sum_pow (a := fun i z => (c z.1)`_i) (g := fun z : T * L => (z.2 : R))).
  by move=> i; exact: (measurable_fun_comp (mc i) measurable_fst').
exact: (measurable_fun_comp measurable_L measurable_snd').
Qed.

Variable mu : {measure set T -> \bar R}.

Lemma null_step (c : T -> {poly R}) (n : nat) (N : set T) :
  (forall x, (size (c x) <= n)%N) -> (forall i, measurable_fun setT (fun x => (c x)`_i)) ->
  measurable N -> mu N = 0%E -> (forall x, c x = 0 -> N x) ->
  product_measure1 mu lebesgue_sigma_finite [set z : T * L | (c z.1).[z.2] = 0] = 0%E.
Proof.
move=> sz mc mN N0 cN.
set Z := [set z | _].
have mZ : measurable Z.
  have := measurable_horner sz mc measurableT (measurable_set1 0).
  by rewrite setTI.
rewrite /product_measure1.
transitivity (\int[mu]_x (cst 0%E x))%E; last exact: integral0.
apply: ge0_ae_eq_integral => //.
- apply: measurable_fun_xsection; first exact: lebesgue_sigma_finite.
  exact/mem_set.
- exact: measurable_fun_cst.
exists N; split => // x /= /not_implyP[_]; apply: contra_notP => Nx.
have cx : c x != 0 by apply/eqP => /cN.
have -> : xsection Z x = [set y : L | (c x).[y] = 0].
  by apply/seteqP; split => y; rewrite /xsection /= inE.
exact: poly_zero_set_null.
Qed.

End Step.

Lemma measurable_ev k (P : Pk k) : measurable_fun setT (ev k P).
Proof.
elim: k P => [|k IH] P /=.
  have -> : (fun x : L => P.[x]) = (fun x : L => \sum_(i < size P) P`_i * (x : R) ^+ i).
    by apply/funext => x; rewrite horner_coef.
  apply: (measurable_sum_pow (a := fun i (_ : L) => P`_i)) => //.
    by move=> i; exact: measurable_fun_cst.
  exact: measurable_L.
apply: (@measurable_horner _ (Rk k) (fun x => map_poly (fun q => ev k q x) P) (size P)).
  by move=> x; rewrite /map_poly; exact: size_poly.
by move=> i; under eq_fun do rewrite coef_map_id0 ?ev0//; exact: IH.
Qed.

Lemma measurable_zero_set k (P : Pk k) : measurable [set x : Rk k | ev k P x = 0].
Proof. by have := measurable_ev P measurableT (measurable_set1 0); rewrite setTI. Qed.

Lemma poly_zero_set_null_k k (P : Pk k) :
  P != 0 -> lebk k [set x : Rk k | ev k P x = 0] = 0%E.
Proof.
elim: k P => [|k IH] P P0 /=.
  exact: poly_zero_set_null.
apply: (@null_step _ (Rk k) (lebk k) (fun x => map_poly (fun q => ev k q x) P) (size P)
  [set x | ev k (lead_coef P) x = 0]).
- by move=> x; rewrite /map_poly; exact: size_poly.
- by move=> i; under eq_fun do rewrite coef_map_id0 ?ev0//; exact: measurable_ev.
- exact: measurable_zero_set.
- by apply: IH; rewrite lead_coef_eq0.
- move=> x /(congr1 (fun p : {poly R} => p`_(size P).-1)).
  by rewrite coef_map_id0 ?ev0// coef0.
Qed.

(* the iterated product is sigma-finite (what product_measure_unique and
   fubini_tonelli need of each factor), and it is the product measure:
   rectangles get the product of the measures *)
Lemma lebk_sigma_finite k : sigma_finite setT (lebk k).
Proof.
elim: k => [|k IH] /=; first exact: lebesgue_sigma_finite.
move/sigma_finiteP : IH => [F1 F1_T [F1_nd F1_oo]].
have := lebesgue_sigma_finite; move/sigma_finiteP => [F2 F2_T [F2_nd F2_oo]].
exists (fun n => F1 n `*` F2 n).
  rewrite -setMTT F1_T F2_T predeqE => -[x y]; split.
    move=> [/= [n _ F1nx] [j _ F2jy]]; exists (maxn n j) => //; split.
    - by move: x F1nx; apply/subsetPset/F1_nd; rewrite leq_maxl.
    - by move: y F2jy; apply/subsetPset/F2_nd; rewrite leq_maxr.
  by move=> [n _ []/= ? ?]; split; exists n.
move=> n; have [? ?] := F1_oo n; have [? ?] := F2_oo n.
split; first exact: measurableM.
by rewrite /= product_measure1E // lte_mul_pinfty// ge0_fin_numE.
Qed.

Lemma lebk_rectangle k (A : set (Rk k)) (B : set L) :
  measurable A -> measurable B ->
  lebk k.+1 (A `*` B) = (lebk k A * lebesgue_measure B)%E.
Proof. by move=> mA mB; rewrite /= product_measure1E. Qed.

(* the almost-everywhere form, and the bridge with a witness *)
Lemma ae_poly_neq0 k (P : Pk k) :
  P != 0 -> {ae lebk k, forall x, ev k P x != 0}.
Proof.
move=> P0; exists [set x | ev k P x = 0]; split.
- exact: measurable_zero_set.
- exact: poly_zero_set_null_k.
- by move=> x /= /negP; rewrite negbK => /eqP.
Qed.

Lemma poly_neq0_of_witness k (P : Pk k) (w : Rk k) : ev k P w != 0 -> P != 0.
Proof. by apply: contraNneq => ->; rewrite ev0. Qed.

Lemma poly_bad_set_null k (P : Pk k) (w : Rk k) (B : set (Rk k)) :
  ev k P w != 0 -> B `<=` [set x | ev k P x = 0] -> negligible (lebk k) B.
Proof.
move=> Pw BZ; exists [set x | ev k P x = 0]; split => //.
- exact: measurable_zero_set.
- exact/poly_zero_set_null_k/(poly_neq0_of_witness Pw).
Qed.

(* and so null for every measure absolutely continuous with respect to it
   (a probability law with a density, e.g.) *)
Lemma poly_bad_set_null_ac k (P : Pk k) (w : Rk k) (B : set (Rk k))
    (mu : {measure set (Rk k) -> \bar R}) :
  (forall A, measurable A -> lebk k A = 0%E -> mu A = 0%E) ->
  ev k P w != 0 -> B `<=` [set x | ev k P x = 0] -> negligible mu B.
Proof.
move=> ac Pw BZ; exists [set x | ev k P x = 0]; split => //.
- exact: measurable_zero_set.
- apply: ac; first exact: measurable_zero_set.
  exact/poly_zero_set_null_k/(poly_neq0_of_witness Pw).
Qed.

(* k = 2, in MathComp's bivariate notation: P in R[x][y] *)
Lemma bivariate_zero_set_null (P : {poly {poly R}}) :
  P != 0 ->
  product_measure1 (@lebesgue_measure R) lebesgue_sigma_finite
    [set z : L * L | P.[(z.2 : R)%:P].[z.1] = 0] = 0%E.
Proof.
move=> P0; have := @poly_zero_set_null_k 1 P P0; rewrite /=.
suff -> : [set z : L * L | P.[(z.2 : R)%:P].[z.1] = 0] =
          [set z : L * L | (map_poly (fun q : {poly R} => q.[z.1]) P).[z.2] = 0] by [].
have E (z : L * L) :
    P.[(z.2 : R)%:P].[z.1] = (map_poly (fun q : {poly R} => q.[z.1]) P).[z.2 : R].
  have := horner_map (horner_eval_rmorphism z.1) P (z.2 : R)%:P.
  by rewrite /= !horner_evalE hornerC => <-.
by apply/seteqP; split => z /=; rewrite E.
Qed.

End NullSetK.
Arguments ev {R} k _ _.
