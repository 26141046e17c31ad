"""Numeric evidence attached to claims by id: the registry behind :data:`theorems.framework.EVIDENCE_PROVIDERS`.

The exact layer (``theorems/``) states every claim and reading and checks what exact algebra can check; it
imports nothing numeric. Each numeric module ``proofs_numeric/<slug>.py`` names its checks in a module-level
table ``EVIDENCE = {(claim_id, reading_key): [check, ...]}`` ("literal" is the headline reading), where a check
is ``check(ctx) -> list[Evidence]`` built only with the constructors of :mod:`theorems.framework`. This module
collects those tables (:data:`NUMERIC_CHECKS`) and provides them to every reading through
:func:`numeric_evidence`; the top floor (:mod:`proofs_numeric.ledger`) calls :func:`install` when it loads the
claims, so the numeric evidence is there whatever the import order.
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
from theorems.framework import EVIDENCE_PROVIDERS, INSTANCE_FORMS, Check, CheckContext, Evidence, InstanceForm

__all__ = ["NUMERIC_MODULES", "NUMERIC_CHECKS", "NUMERIC_INSTANCE_FORMS", "numeric_evidence", "install",
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
#: arithmetic (``collapse-verify check``); the modules' ``INSTANCE_FORMS`` tables, registered by :func:`install`
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


def install() -> None:
    """Register :func:`numeric_evidence` in :data:`theorems.framework.EVIDENCE_PROVIDERS` and the numeric instance
    forms in :data:`theorems.framework.INSTANCE_FORMS` (idempotent)."""
    if numeric_evidence not in EVIDENCE_PROVIDERS:
        EVIDENCE_PROVIDERS.append(numeric_evidence)
    INSTANCE_FORMS.update(NUMERIC_INSTANCE_FORMS)
