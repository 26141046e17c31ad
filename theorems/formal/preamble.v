(* The implicit-argument settings every MathComp proof of the suite uses (the
   MathComp conventions), set once here: `From CollapseVerify Require Import
   preamble.` sets them in the importing file. *)
#[export] Set Implicit Arguments.
#[export] Unset Strict Implicit.
#[export] Unset Printing Implicit Defensive.
