"""The verdict model: lists of Evidence, one piece per framework constructor, holding, failing or undecided."""
from __future__ import annotations

from hypothesis import strategies as st

from theorems.exact.instances import SHAPE_REGIMES
from theorems.framework import (
    ProofStep,
    derivation,
    exact_complete,
    exact_instances,
    failing_box,
    float_statistic,
    formal_proof,
    genericity_argument,
    identical_failure,
    interval_instances,
    interval_witness,
    not_checkable,
    perturbation_probe,
)

from .validation import check_int, check_order, check_subset

#: the framework's evidence constructors :func:`evidence_lists` draws from, one label each (not Evidence.kind values:
#: ``"general"`` is a formal proof or a failing derivation, ``"none"`` not checkable)
EVIDENCE_CONSTRUCTORS = ("general", "derivation", "instances", "complete", "interval-witness", "interval-instances",
                         "float", "none", "genericity", "box", "interval-box", "identity", "exceptional", "persistent")


def _evidence(constructor: str, holds, regime="all"):
    """One piece of evidence of each constructor."""
    a = "QQ"
    if constructor == "general":
        return formal_proof("L", holds, statement="s", regime=regime) if holds is not False else \
            derivation([ProofStep("x", "y", "lemma", lambda: False)], "s", regime=regime)
    if constructor == "derivation":
        return derivation([ProofStep("x", "y", "lemma", lambda h=holds: h)], "s", regime=regime)
    if constructor == "instances":
        return exact_instances("s", met=0 if holds is None else 3, held=3 if holds else (0 if holds is None else 2),
                               arithmetic=a, regime=regime)
    if constructor == "complete":
        return exact_complete("s", holds, arithmetic=a, regime=regime)
    if constructor == "interval-witness":
        return interval_witness("s", holds, arithmetic=a, regime=regime)
    if constructor == "interval-instances":
        return interval_instances("s", holds, arithmetic=a, regime=regime)
    if constructor == "float":
        return float_statistic("s", holds, arithmetic=a, regime=regime)
    if constructor == "genericity":  # holds True or undecided (an argument never fails)
        return genericity_argument("s", vanishing=derivation([ProofStep("x", "y", "lemma", lambda: True)], "v"),
                                   witness=exact_complete("w", True if holds is not None else None, arithmetic=a),
                                   regime=regime)
    if constructor in ("box", "interval-box"):  # fails on a box, or undecided
        return failing_box("s", certified=True if holds is False else None, box="[0, 1]", arithmetic=a,
                           exact=constructor == "box", regime=regime)
    if constructor == "identity":
        return identical_failure("s", identity_holds=True if holds is False else None, regime=regime)
    if constructor in ("exceptional", "persistent"):  # a failing instance of a generic claim, probed
        return perturbation_probe("s", point="p", probes=4, restored=4 if constructor == "exceptional" else 1,
                                  failed=0 if constructor == "exceptional" else 3, seed=0, scale="1/1000", arithmetic=a,
                                  regime=regime)
    return not_checkable("s", regime=regime)


def evidence_lists(*, min_size: int = 0, max_size: int = 6, constructors=EVIDENCE_CONSTRUCTORS,
                   regimes=("all", *SHAPE_REGIMES)):
    """Lists of :class:`theorems.framework.Evidence`: each piece from a drawn constructor
    (:data:`EVIDENCE_CONSTRUCTORS`), holding, failing or undecided, labelled with a drawn regime."""
    check_int("min_size", min_size, min_value=0)
    check_int("max_size", max_size, min_value=0)
    check_order("min_size", min_size, "max_size", max_size)
    constructors = check_subset("constructors", constructors, EVIDENCE_CONSTRUCTORS)
    regimes = check_subset("regimes", regimes, ("all", *SHAPE_REGIMES))
    return st.lists(st.builds(_evidence, constructor=st.sampled_from(constructors),
                              holds=st.sampled_from([True, False, None]), regime=st.sampled_from(regimes)),
                    min_size=min_size, max_size=max_size)
