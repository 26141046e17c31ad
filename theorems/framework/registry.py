"""The registry: every declared claim by id (the top floor loads and lists them)."""
from __future__ import annotations

from .records import Claim, Reading

__all__ = ["REGISTRY", "DuplicateClaim", "register", "unregister", "parse_ref", "same_as_groups", "same_as_group"]

#: (claim id, reading key): one reading of a registered claim
Ref = tuple[str, str]

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


def parse_ref(ref: str) -> Ref:
    """("CLAIM.ID", "reading") of a same-as reference "CLAIM.ID" (the headline) or "CLAIM.ID:reading"."""
    if not isinstance(ref, str) or not ref.strip():
        raise ValueError(f"a same-as reference is 'CLAIM.ID' or 'CLAIM.ID:reading', not {ref!r}")
    cid, _, key = ref.partition(":")
    return cid, key or "literal"


def same_as_groups() -> list[list[Ref]]:
    """Every group of registered (claim id, reading key) that state one statement (``same_as=`` declarations,
    closed under symmetry and transitivity); groups of one are left out. An unresolved reference is a
    KeyError naming it."""
    parent: dict[Ref, Ref] = {}

    def find(x: Ref) -> Ref:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for c in REGISTRY.values():
        for r in c.all_readings():
            if r.same_as:
                target = parse_ref(r.same_as)
                other = REGISTRY.get(target[0])
                if other is None or target[1] not in [m.key for m in other.all_readings()]:
                    raise KeyError(f"{c.id}:{r.key} same_as {r.same_as!r}: no such registered claim and reading")
                parent[find((c.id, r.key))] = find(target)
    groups: dict[Ref, list[Ref]] = {}
    for x in list(parent):
        groups.setdefault(find(x), []).append(x)
    return sorted(sorted(g) for g in groups.values() if len(g) > 1)


def same_as_group(claim: Claim, reading: Reading) -> list[tuple[Claim, Reading]]:
    """The (Claim, Reading) pairs stating the same statement as this one, itself first."""
    me = (claim.id, reading.key)
    if REGISTRY.get(claim.id) is not claim:
        return [(claim, reading)]  # an unregistered claim (a test's, a user's draft) stands alone
    for g in same_as_groups():
        if me in g:
            return [(claim, reading)] + [(REGISTRY[c], REGISTRY[c].reading_of(k)) for c, k in g if (c, k) != me]
    return [(claim, reading)]
