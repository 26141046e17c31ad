"""The type aliases the framework's signatures share (no behaviour: names for what a value is).

An *instance* is whatever a claim's builder or Pool makes (a sympy matrix, a dict of them, a dataclass of the exact
layer): the framework never looks inside one, it hands it to the claim's own predicates, so it is ``Any``. A
*predicate* takes an instance and returns True / False / None (or a sympy / numpy boolean, or a
:class:`~theorems.framework.instance.Decided`), which :func:`~theorems.framework.evidence.tri` reads; its result is
``object`` because the framework checks it rather than trusting an annotation. A JSON object is what
:func:`json.loads` gives for one (its values are whatever the file holds until they are validated).
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

__all__ = ["Instance", "Predicate", "JSONObject", "Draw", "Builder", "Numbers"]

#: one instance of a claim (opaque to the framework: only the claim's predicates read it)
Instance = Any
#: a hypothesis or a conclusion on one instance (its value is read by ``tri``, never trusted)
Predicate = Callable[[Instance], object]
#: a JSON object (a ledger record, a counterexample file, an encoded instance)
JSONObject = dict[str, Any]
#: ``draw(lo, hi)``: one integer in [lo, hi] (a builder's only source of randomness)
Draw = Callable[[int, int], int]
#: ``instances(draw, regime)``: a builder of a conjecture's instances
Builder = Callable[[Draw, str], Instance]
#: the ``numbers`` a piece of evidence records (JSON-able values: counts, seeds, shapes, words)
Numbers = Mapping[str, Any]
