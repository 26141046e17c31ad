"""What one run drew and read: the seeds drawn through :func:`~theorems.framework.records.stable_seed`, the
stored counterexample files re-checked, and the counterexamples a conjecture found (not stored yet), returned
with the run's result (:class:`RunRecord`), never read back from a module global afterwards.

:func:`~theorems.framework.records.run_claim` opens a :func:`recording` around a claim's checks and puts what it
noted into the :class:`~theorems.framework.records.ClaimResult` (``seeds``, ``referenced_counterexamples``,
``found_counterexamples``); the
ledger's provenance and its "every stored counterexample is re-read" check are the union over its results.
Recordings nest (a claim run inside another run notes into both); outside any recording nothing is noted.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from .aliases import Instance

__all__ = ["RunRecord", "recording", "note_seed", "note_counterexample", "note_found"]


@dataclass
class RunRecord:
    """The seeds (name -> seed) a run drew, the stored counterexample files (repository-relative) it re-checked,
    and the counterexamples it found (claim id -> regime -> minimal instance; ``verify --store`` writes them)."""
    seeds: dict[str, int] = field(default_factory=dict)
    counterexamples: set[str] = field(default_factory=set)
    found: dict[str, dict[str, Instance]] = field(default_factory=dict)


# The open recordings of this thread / task, innermost last. A context variable rather than a plain global: it is
# the scope of the runs in progress (set on entry, reset on exit), not a store of results; nothing reads it after
# a run, the run's result carries what was noted.
_OPEN: ContextVar[tuple[RunRecord, ...]] = ContextVar("theorems_framework_open_recordings", default=())


@contextmanager
def recording() -> Iterator[RunRecord]:
    """Note the seeds and stored counterexamples drawn inside the block into a fresh :class:`RunRecord`.

    >>> from theorems.framework import stable_seed
    >>> with recording() as rec:
    ...     s = stable_seed("doc.example")
    >>> rec.seeds == {"doc.example": s}
    True
    """
    rec = RunRecord()
    token = _OPEN.set((*_OPEN.get(), rec))
    try:
        yield rec
    finally:
        _OPEN.reset(token)


def note_seed(name: str, seed: int) -> None:
    for rec in _OPEN.get():
        rec.seeds[name] = seed


def note_counterexample(path: str) -> None:
    for rec in _OPEN.get():
        rec.counterexamples.add(path)


def note_found(claim_id: str, regime: str, instance: Instance) -> None:
    for rec in _OPEN.get():
        rec.found.setdefault(claim_id, {})[regime] = instance
