(* Cirrincione (2026), section 5.3, proof of the first-order proposition:
   the derivative of one attention + residual layer along a line,
     d/dt [X + A(X) X W]_(X = X0 + t V) at t = 0  =  V + (D[A](X0)[V]) X0 W + A(X0) V W,
   the product rule, entry by entry, over MathComp-Analysis's real numbers
   (is_derive: the derivative of a function R -> R at 0 in direction 1).
   A is any map of the input (softmax attention among them) whose entries are
   differentiable along the line, DA_ik their derivatives (DA = D[A](X0)[V]);
   W = W_V W_O.  MathComp-Analysis rests on three classical axioms
   (propositional and functional extensionality, constructive indefinite
   description), so this lemma does.
     MLP.layer-jacobian *)
From mathcomp Require Import all_ssreflect ssralg ssrnum matrix.
From mathcomp.classical Require Import boolp functions.
From mathcomp.analysis Require Import reals normedtype derive.
From CollapseVerify Require Import preamble.
Import GRing.Theory Num.Theory.
Local Open Scope ring_scope.

Section Jacobian.
Variable R : realType.
Implicit Types (f g : R^o -> R^o) (df dg : R^o).

Local Notation D f df := (is_derive (0 : R^o) (1 : R^o) f df).

Lemma D_add f g df dg : D f df -> D g dg -> D (fun t => f t + g t) (df + dg).
Proof. by move=> hf hg; exact: is_deriveD hf hg. Qed.

Lemma D_mul f g df dg : D f df -> D g dg -> D (fun t => f t * g t) (f 0 * dg + g 0 * df).
Proof. by move=> hf hg; exact: is_deriveM hf hg. Qed.

Lemma D_cst (c : R^o) : D (fun=> c) 0.
Proof. exact: is_derive_cst. Qed.

Lemma D_affine (p q : R^o) : D (fun t => p + t * q) q.
Proof.
have h : D (fun t => q * t) (q * 1) by exact: is_deriveZ (is_derive_id _ _).
rewrite mulr1 in h.
have -> : (fun t => p + t * q) = (fun t => p + q * t) by apply/funext => t; rewrite mulrC.
by apply: is_derive_eq (D_add (D_cst p) h) _; rewrite add0r.
Qed.

Lemma D_sum n (g : 'I_n -> R^o -> R^o) (dg : 'I_n -> R^o) :
  (forall l, D (g l) (dg l)) -> D (fun t => \sum_(l < n) g l t) (\sum_(l < n) dg l).
Proof.
move=> h; have -> : (fun t => \sum_(l < n) g l t) = \sum_(l < n) g l.
  by apply/funext => t; rewrite fct_sumE.
exact: is_derive_sum.
Qed.

Variables (n d : nat) (A : 'M[R]_(n, d) -> 'M[R]_n) (W : 'M[R]_d) (X0 V : 'M[R]_(n, d)).
(* DA = D[A](X0)[V], entrywise: the derivative of t |-> A(X0 + t V) at t = 0 *)
Variable DA : 'M[R]_n.
Hypothesis dA : forall i k, D (fun t : R^o => (A (X0 + t *: V) i k : R^o)) (DA i k).

(* MLP.layer-jacobian: "D[Y^(h) W_O^(h)](X_0)[dX] = (D[A^(h)](X_0)[dX]) X_0 W_V W_O
   + A_0^(h) (dX) W_V W_O", with the residual's identity term:
   d/dt [X + A(X) X W]_(X0 + t V) = V + (DA[V]) X0 W + A0 V W *)
Lemma layer_jacobian i j :
  D (fun t : R^o => ((X0 + t *: V + A (X0 + t *: V) *m (X0 + t *: V) *m W) i j : R^o))
    ((V + DA *m X0 *m W + A X0 *m V *m W) i j).
Proof.
pose a k (t : R^o) : R^o := A (X0 + t *: V) i k.
have E : (fun t : R^o => ((X0 + t *: V + A (X0 + t *: V) *m (X0 + t *: V) *m W) i j : R^o))
         = (fun t : R^o => (X0 i j + t * V i j : R^o)
                     + \sum_(l < d) ((\sum_(k < n) a k t * (X0 k l + t * V k l)) * W l j)).
  apply/funext => t; rewrite !mxE; congr (_ + _); apply: eq_bigr => l _; rewrite !mxE; congr (_ * _).
  by apply: eq_bigr => k _; rewrite !mxE.
have h2 l k : D (fun t => a k t * (X0 k l + t * V k l)) (a k 0 * V k l + (X0 k l + 0 * V k l) * DA i k).
  exact: D_mul (dA i k) (D_affine _ _).
have h4 l := D_mul (D_sum (h2 l)) (D_cst (W l j)).
rewrite E; apply: is_derive_eq (D_add (D_affine (X0 i j) (V i j)) (D_sum h4)) _.
have A0 : A (X0 + 0 *: V) = A X0 by rewrite scale0r addr0.
rewrite !mxE -addrA; congr (_ + _); rewrite -big_split; apply: eq_bigr => l _ /=.
rewrite mulr0 add0r !mxE -mulrDl mulrC; congr (_ * _); rewrite -big_split.
by apply: eq_bigr => k _; rewrite /a A0 mul0r addr0 addrC [X0 k l * _]mulrC.
Qed.

End Jacobian.
