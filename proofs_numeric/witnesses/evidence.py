"""Numeric evidence attached to claims by id: the numeric layer's part of the suite (:data:`SUITE_PART`).

The exact layer (``theorems/``) states every claim and reading and checks what exact algebra can check; it
imports nothing numeric. Each numeric module ``proofs_numeric/<slug>.py`` names its checks in a module-level
table ``EVIDENCE = {(claim_id, reading_key): [check, ...]}`` ("literal" is the headline reading), where a check
is ``check(ctx) -> list[Evidence]`` built only with the constructors of :mod:`theorems.framework`. This module
collects those tables (:data:`NUMERIC_CHECKS`) and provides them to every reading through
:func:`numeric_evidence`, the provider of this layer's part of the suite, :data:`SUITE_PART` (named under the
``collapse_verify.suite`` entry point): :class:`theorems.framework.Suite` loads it with the others, so the numeric
evidence is there whatever the import order.
"""
from __future__ import annotations

from proofs_numeric.witnesses import (
    dong_collapse,
    dong_explainer,
    head_channel,
    rank_contraction,
    rank_neutrality,
    real_model,
    recovery_ambiguity,
    related_work,
    residual_obstruction,
    symmetries,
)
from theorems.framework import Check, CheckContext, Evidence, InstanceForm, SuitePart

__all__ = ["NUMERIC_MODULES", "NUMERIC_CHECKS", "NUMERIC_INSTANCE_FORMS", "numeric_evidence", "SUITE_PART",
           "attached_readings"]

#: the numeric modules whose ``EVIDENCE`` tables are attached, in the order their evidence is appended
NUMERIC_MODULES = (rank_neutrality, residual_obstruction, head_channel, recovery_ambiguity, rank_contraction,
                   symmetries, dong_collapse, real_model, related_work, dong_explainer)


def _collect() -> dict[tuple[str, str], list[Check]]:
    table: dict[tuple[str, str], list[Check]] = {}
    for mod in NUMERIC_MODULES:
        for key, checks in getattr(mod, "EVIDENCE", {}).items():
            table.setdefault(key, []).extend(checks)
    return table


#: (claim id, reading key) -> the numeric checks run for that reading, after the reading's own checks
NUMERIC_CHECKS: dict[tuple[str, str], list[Check]] = _collect()


def _collect_forms() -> dict[tuple[str, str], InstanceForm]:
    table: dict[tuple[str, str], InstanceForm] = {}
    for mod in NUMERIC_MODULES:
        for key, form in getattr(mod, "INSTANCE_FORMS", {}).items():
            if key in table:
                raise ValueError(f"two numeric modules give an instance form for {key}")
            table[key] = form
    return table


#: (claim id, reading key) -> how a user's input becomes an instance, with predicates decided in interval
#: arithmetic (``collapse-verify check``); the modules' ``INSTANCE_FORMS`` tables, given by :data:`SUITE_PART`
NUMERIC_INSTANCE_FORMS: dict[tuple[str, str], InstanceForm] = _collect_forms()


def numeric_evidence(claim_id: str, reading_key: str, ctx: CheckContext) -> list[Evidence]:
    """The evidence of every numeric check attached to (claim, reading); the provider of :func:`install`."""
    out: list[Evidence] = []
    for check in NUMERIC_CHECKS.get((claim_id, reading_key), ()):
        out.extend(check(ctx))
    return out


def attached_readings() -> set[tuple[str, str]]:
    """(claim id, reading key) of every attached numeric check (a test checks each names a registered reading)."""
    return set(NUMERIC_CHECKS)


def _deciding() -> tuple:
    import proofs_numeric  # the package names the folders of this layer that decide verdicts
    return proofs_numeric.DECIDING, proofs_numeric.NOT_DECIDING


#: the numeric layer's part of the suite (entry point ``collapse_verify.suite: numeric``): its evidence comes after
#: the claims' own checks and the Coq lemmas'; its instance forms decide predicates in interval arithmetic
SUITE_PART = SuitePart("numeric", 20, providers=(numeric_evidence,), instance_forms=NUMERIC_INSTANCE_FORMS,
                       deciding=_deciding())
