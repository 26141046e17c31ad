"""The registry: every declared claim by id (the top floor loads and lists them)."""
from __future__ import annotations

from .records import Claim

__all__ = ["REGISTRY", "DuplicateClaim", "register", "unregister"]

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
