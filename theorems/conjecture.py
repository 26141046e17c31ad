r"""The public API for a conjecture of your own (a façade over :mod:`theorems.framework`).

Declare it in one file under ``theorems/conjectures/`` (``collapse-verify new NAME`` writes one for you):

>>> from theorems.conjecture import conjecture, run_claim
>>> from sympy import Rational
>>> def nonzero(x): return x != 0
>>> c = conjecture(
...     id="USER.square-positive", section="example", quote="squares of non-zero rationals are positive",
...     statement=r"x\neq0\Rightarrow x^2>0",
...     hypotheses={"nonzero": nonzero},
...     conclusion=lambda x: x * x > 0,
...     instances=lambda draw, regime: Rational(draw(-9, 9), draw(1, 9)),
...     regimes=("all",), register_claim=False)
>>> run_claim(c).verdict
'supported'

:func:`conjecture` is :func:`claim` with a user's defaults; :class:`Pool` is a fixed set of exact instances;
:class:`InstanceForm` says how a user's input (read exactly by :mod:`theorems.exact.reader`:
``user.matrix("X").sympy()``) becomes an instance, so ``collapse-verify check ID --X ...`` decides your
predicates on it (``instance_from=`` beside the builder, or ``Pool(instance_from=...)``);
:class:`Reading` is an alternative reading; the evidence constructors (``exact_instances``, ``derivation``,
``interval_witness``, ...) label what an explicit check computed. See :mod:`theorems.framework.declare`
for what one call gives you. Exact building blocks are in :mod:`theorems.blocks` (centring, ranks,
LayerNorm / RMSNorm ranks), the one transformer in :mod:`theorems.transformer`.
"""
from __future__ import annotations

from .exact.reader import ExactMatrix, ExactVector, UserInput, matrix_from, read_matrix, read_vector
from .framework import (
                        CONJECTURES,
                        CheckContext,
                        Conjecture,
                        Decided,
                        Evidence,
                        InstanceForm,
                        Pool,
                        ProofStep,
                        Reading,
                        Undecidable,
                        claim,
                        conjecture,
                        decode_instance,
                        decoded,
                        derivation,
                        encode_instance,
                        exact_complete,
                        exact_instances,
                        float_statistic,
                        interval_instances,
                        interval_witness,
                        not_checkable,
                        not_on_user_input,
                        run_claim,
                        stable_seed,
                        symbolic_identity,
                        typeset,
)

__all__ = ["claim", "conjecture", "Pool", "Reading", "Conjecture", "CONJECTURES", "CheckContext", "Evidence",
           "ProofStep", "run_claim", "stable_seed", "exact_instances", "exact_complete", "derivation",
           "symbolic_identity", "interval_witness", "interval_instances", "float_statistic", "not_checkable",
           "encode_instance", "decode_instance", "typeset", "InstanceForm", "Decided", "Undecidable",
           "not_on_user_input", "decoded", "UserInput", "ExactMatrix", "ExactVector", "read_matrix", "read_vector",
           "matrix_from"]
