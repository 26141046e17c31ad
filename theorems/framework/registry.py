"""The registry: every declared claim by id, and the providers of evidence attached by id (Coq lemmas,
numeric witnesses) that the framework asks for every claim and reading it runs."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:  # annotations only: the records import nothing from here at run time but EVIDENCE_PROVIDERS
    from .evidence import Evidence
    from .records import CheckContext, Claim

__all__ = ["REGISTRY", "DuplicateClaim", "register", "unregister", "EVIDENCE_PROVIDERS"]

#: every registered claim by id (the top floor loads and lists them)
REGISTRY: dict[str, Claim] = {}


class DuplicateClaim(ValueError):
    """Two different claims registered under one id (the second would silently replace the first)."""


def register(claim: Claim) -> Claim:
    """Add a claim to the registry; a second, different claim with the same id raises :class:`DuplicateClaim`."""
    old = REGISTRY.get(claim.id)
    if old is not None and old is not claim:
        raise DuplicateClaim(f"claim id {claim.id!r} is already registered (section {old.section!r}, from "
                             f"{old.source}); choose another id")
    REGISTRY[claim.id] = claim
    return claim


def unregister(claim_id: str) -> None:
    """Remove a claim from the registry (tests, and a user renaming a conjecture)."""
    REGISTRY.pop(claim_id, None)


#: providers of extra evidence for any claim and reading (e.g. the formal proofs of theorems.formal);
#: each is called as provider(claim_id, reading_key, ctx) -> list[Evidence] ("literal" is the headline)
EVIDENCE_PROVIDERS: list[Callable[[str, str, CheckContext], list[Evidence]]] = []
