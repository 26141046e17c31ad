"""A ledger computed once, reused where nothing that decides a verdict has changed.

``verify --json`` writes, beside the verdicts, a **key**: a SHA-256 of everything that decides them — the
contents of every source file of the exact layer and of the numeric layer that computes evidence (``theorems/``
with its Coq files and stored counterexamples; ``proofs_numeric/`` but its command line and the renderings),
the library versions, whether Coq checked the proofs (and which Coq), the installed plug-ins, and the run's
options (``--dps``, ``--quick``, which claims). A ledger is reused only when its key is the key of the run that
would compute it now: a changed claim module, a stale file, a partial (``--claims``), quick or differently
parametrised (``--dps``) ledger is recomputed, never silently reused; and each reused verdict is recomputed from
its stored evidence by the verdict rule (:meth:`theorems.framework.ClaimResult.from_json`).

The book (:mod:`proofs_numeric.ledger.report`) reads the ledger ``make verify`` wrote (``ledger.json`` at the
repository root, or the file ``COLLAPSE_VERIFY_LEDGER`` names); without one, its first page computes the whole
ledger once and leaves it in ``book/_build/ledger-cache.json`` for the other pages.
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
from pathlib import Path

from theorems.formal import coq_version, mathcomp_available
from theorems.framework import REPO_ROOT, memo
from theorems.framework.memo import library_versions

__all__ = ["DECIDING", "NOT_DECIDING", "source_digest", "ledger_key", "read_ledger", "LedgerMismatch",
           "default_ledger_paths"]


#: what decides verdicts: (folder, suffixes), relative to the repository; and inside those folders, what does not
#: (the command line and the renderings of results)
DECIDING, NOT_DECIDING = memo.deciding()


def source_digest(root: Path = REPO_ROOT) -> str:
    """SHA-256 over (path, SHA-256 of the contents) of every file that decides a verdict, in path order."""
    return memo.source_digest(root, DECIDING, NOT_DECIDING)


class LedgerMismatch(ValueError):
    """A ledger file that cannot be reused here (the message says why)."""


def ledger_key(*, dps: int, quick: bool, claim_ids, root: Path = REPO_ROOT) -> str:
    """The key of a ledger computed now with these options over these claims."""
    plugins = sorted(f"{ep.name}={ep.value}" for ep in importlib.metadata.entry_points(group="collapse_verify.claims"))
    data = {
        "sources": source_digest(root),
        "versions": library_versions(),
        "coq": coq_version() if mathcomp_available() else None,
        "plugins": plugins,
        "options": {"dps": int(dps), "quick": bool(quick)},
        "claims": sorted(claim_ids),
    }
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def default_ledger_paths() -> list[Path]:
    """Where the book looks for a ledger to reuse, in order."""
    env = os.environ.get("COLLAPSE_VERIFY_LEDGER")
    return ([Path(env)] if env else []) + [REPO_ROOT / "ledger.json",
                                           REPO_ROOT / "book" / "_build" / "ledger-cache.json"]


def read_ledger(path: Path, key: str) -> dict:
    """The ledger at ``path`` if its key is ``key``; LedgerMismatch naming the reason otherwise."""
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise LedgerMismatch(f"{path}: no such file") from None
    except (OSError, json.JSONDecodeError) as e:
        raise LedgerMismatch(f"{path}: not a readable ledger ({e})") from None
    if not isinstance(data, dict) or "claims" not in data:
        raise LedgerMismatch(f"{path}: not a ledger written by collapse-verify verify --json")
    stored = (data.get("provenance") or {}).get("key")
    if stored != key:
        why = "it has no key (written by an older version)" if stored is None else \
            "its key differs: a source file, a library version, Coq, a plug-in or an option (--dps, --quick, " \
            "--claims) is not what it was when it was written"
        raise LedgerMismatch(f"{path}: not reused: {why}")
    return data
