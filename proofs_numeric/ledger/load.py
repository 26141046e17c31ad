"""Loading the claims: the paper's (every module of :mod:`theorems`), the plug-ins' (the
``collapse_verify.claims`` entry point), and the suite (:class:`theorems.framework.Suite`: the evidence every layer
attaches by id, among them :mod:`proofs_numeric.witnesses.evidence`).

Every call of :func:`registry` first makes sure the suite is loaded (its parts found through their entry points, in
their declared order) and the plug-ins' claims imported, so the result does not depend on the order in which
modules happen to be imported.
"""
from __future__ import annotations

import fnmatch
import importlib.metadata  # called through the module: tests replace importlib.metadata.entry_points
import sys

import theorems
from theorems.framework import REGISTRY, Claim, Suite, current_suite

__all__ = ["load", "registry", "get", "select", "load_entry_points"]

_ENTRY_POINTS_LOADED = False


def load_entry_points() -> list[str]:
    """Import every module named under the ``collapse_verify.claims`` entry point (once per process)."""
    global _ENTRY_POINTS_LOADED
    loaded: list[str] = []
    if _ENTRY_POINTS_LOADED:
        return loaded


    # looked up on the module at call time, so a test (or a tool) that patches importlib.metadata.entry_points is seen
    for ep in importlib.metadata.entry_points(group="collapse_verify.claims"):
        try:
            ep.load()
        except (Exception, SystemExit) as e:  # a plug-in may raise anything (a duplicate id, a bad declaration)
            theorems.IMPORT_ERRORS[f"plug-in {ep.name} ({ep.value})"] = f"{type(e).__name__}: {str(e)[:300]}"
            print(f"collapse-verify: warning: the plug-in {ep.name} ({ep.value}) failed to load and is skipped "
                  f"({type(e).__name__}: {str(e)[:300]})", file=sys.stderr)
            continue
        loaded.append(ep.name)
    _ENTRY_POINTS_LOADED = True
    return loaded


def reset_entry_points() -> None:
    """Forget that the entry points were loaded (tests that install a plug-in)."""
    global _ENTRY_POINTS_LOADED
    _ENTRY_POINTS_LOADED = False


def load() -> Suite:
    """Load the suite (the paper's claims, the Coq lemmas, the numeric evidence: every installed part) and the
    plug-ins' claims (idempotent); the suite."""
    assert theorems.MODULES is not None  # importing theorems registered the paper's claims
    load_entry_points()
    return current_suite()


def registry() -> list[Claim]:
    """Every registered claim, the paper's and the plug-ins', in id order (numeric evidence attached)."""
    load()
    return [REGISTRY[k] for k in sorted(REGISTRY)]


def get(claim_id: str) -> Claim:
    """The claim with this id (KeyError naming the known ids otherwise)."""
    load()
    try:
        return REGISTRY[claim_id]
    except KeyError:
        raise KeyError(f"no claim {claim_id!r}; known: {', '.join(sorted(REGISTRY))}") from None


def select(pattern: str | None) -> list[Claim]:
    """Claims whose id matches a glob such as ``RN.*``, or any of a comma-separated list of them (``'RN.*,HC.main'``,
    as ``check --model`` takes)."""
    claims = registry()
    if not pattern:
        return claims
    pats = [p.strip() for p in str(pattern).split(",") if p.strip()]
    return [c for c in claims if any(fnmatch.fnmatchcase(c.id, p) for p in pats)]
