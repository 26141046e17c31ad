r"""The suite: every claim with every piece of evidence the installed layers attach to it, loaded explicitly.

A verdict must not depend on what a process happened to import first. The layers that attach evidence or instance
forms by claim id (the Coq lemmas of ``theorems.formal``, the numeric witnesses of ``proofs_numeric``) used to append
themselves to module-global lists when imported, so ``run_claim`` gave one verdict in a process that had loaded the
numeric layer and another in one that had not. Now each layer declares one :class:`SuitePart` and names it under the
``collapse_verify.suite`` entry point of its package (``pyproject.toml``); :meth:`Suite.load` finds every part
through the installed metadata, orders them by their declared ``order`` (then name), and holds what they give:

* the claims (every part's ``load()`` is called: importing ``theorems`` registers the paper's claims and users'
  conjectures),
* the evidence providers, in the parts' order (so the evidence of a reading is in the suite's declared order, not
  the order modules were imported in),
* the instance forms by (claim id, reading key) (two parts giving one form is an error),
* the folders whose source decides verdicts (the cache key of :mod:`theorems.framework.memo`).

:func:`run_claim` and :func:`instance_form` use the suite loaded once per process (:func:`current_suite`); a worker
process receives :meth:`Suite.spec` (the part names) and loads the same parts. The framework still imports nothing
of the project: the parts are plug-ins found by name in the package metadata, as third-party claims are
(``collapse_verify.claims``).
"""
from __future__ import annotations

import importlib.metadata
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from . import memo
from .instance import InstanceForm, form_of
from .records import CheckContext, Claim, ClaimResult, Provider, run_claim_with
from .registry import REGISTRY, same_as_group

__all__ = ["SuitePart", "Suite", "SuiteError", "ENTRY_POINT_GROUP", "current_suite", "run_claim", "instance_form"]

#: the entry-point group under which each layer names its :class:`SuitePart` (``module:ATTRIBUTE``)
ENTRY_POINT_GROUP = "collapse_verify.suite"


class SuiteError(RuntimeError):
    """The suite cannot be loaded (no part installed, a part that fails to load, two parts giving one form)."""


@dataclass(frozen=True)
class SuitePart:
    """One layer's contribution to the suite.

    ``name``: unique; ``order``: where its evidence goes (lower first); ``load``: called once when the suite loads
    (e.g. to register claims); ``providers``: evidence attached by (claim id, reading key); ``instance_forms``: how a
    user's input (or a model's site) becomes an instance of a reading, by (claim id, reading key); ``deciding``:
    ``(folders, not_deciding)`` whose source is part of every stored result's key (:func:`memo.add_deciding`)."""

    name: str
    order: int
    load: Callable[[], None] | None = None
    providers: tuple[Provider, ...] = ()
    instance_forms: Mapping[tuple[str, str], InstanceForm] = field(default_factory=dict)
    deciding: tuple[Any, tuple[str, ...]] | None = None


@dataclass(frozen=True)
class Suite:
    """The loaded parts, and what they give (see the module docstring). Build it with :meth:`load`."""

    parts: tuple[SuitePart, ...]
    providers: tuple[Provider, ...]
    instance_forms: Mapping[tuple[str, str], InstanceForm]

    @classmethod
    def from_parts(cls, parts: Sequence[SuitePart]) -> Suite:
        """The suite of these parts (ordered by ``order``, then ``name``; each part's ``load`` is called)."""
        ordered = tuple(sorted(parts, key=lambda p: (p.order, p.name)))
        names = [p.name for p in ordered]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise SuiteError(f"two parts of the suite are named {', '.join(dup)}")
        forms: dict[tuple[str, str], InstanceForm] = {}
        for p in ordered:
            if p.load is not None:
                p.load()
            if p.deciding is not None:
                memo.add_deciding(*p.deciding)
            for key, form in p.instance_forms.items():
                if key in forms:
                    raise SuiteError(f"two parts of the suite give an instance form for {key[0]} reading {key[1]}")
                forms[key] = form
        providers = tuple(pr for p in ordered for pr in p.providers)
        return cls(ordered, providers, forms)

    @classmethod
    def load(cls, names: Sequence[str] | None = None) -> Suite:
        """The suite of the parts installed under :data:`ENTRY_POINT_GROUP` (only ``names``, when given: a worker
        process loads the parts its caller's :meth:`spec` names)."""
        found = {}
        for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
            if names is not None and ep.name not in names:
                continue
            try:
                part = ep.load()
            except Exception as e:  # a broken install: say which part, never a silent smaller suite
                raise SuiteError(f"the suite's part {ep.name} ({ep.value}) failed to load: "
                                 f"{type(e).__name__}: {str(e)[:300]}") from e
            if not isinstance(part, SuitePart) or part.name != ep.name:
                raise SuiteError(f"the entry point {ep.name} = {ep.value} is not a SuitePart named {ep.name!r}")
            found[ep.name] = part
        if names is not None and set(names) - set(found):
            raise SuiteError(f"the suite's parts {sorted(set(names) - set(found))} are not installed here")
        if not found:
            raise SuiteError(f"no part of the suite is installed (entry points {ENTRY_POINT_GROUP!r}): install the "
                             "project (`make venv`, or `pip install -e .`) so its layers can be found")
        return cls.from_parts(list(found.values()))

    def spec(self) -> tuple[str, ...]:
        """What a worker process needs to load the same suite: the part names, in order."""
        return tuple(p.name for p in self.parts)

    def claims(self) -> list[Claim]:
        """Every registered claim, in id order."""
        return [REGISTRY[k] for k in sorted(REGISTRY)]

    def run(self, claim: Claim, ctx: CheckContext | None = None) -> ClaimResult:
        """Every reading of ``claim`` with every piece of evidence the suite attaches, and its verdicts."""
        return run_claim_with(claim, ctx, self.providers, same_as_group)

    def instance_form(self, claim: Any, reading: Any) -> tuple[InstanceForm | None, str | None]:
        """(the form a reading's instance is read with, or None; why not, when None): a part's form for
        (claim id, reading key), else the declaration's own."""
        return form_of(claim, reading, self.instance_forms.get((claim.id, reading.key)))


_CURRENT: list[Suite] = []
_LOCK = threading.Lock()


def current_suite() -> Suite:
    """The suite of every installed part, loaded once per process."""
    with _LOCK:
        if not _CURRENT:
            _CURRENT.append(Suite.load())
        return _CURRENT[0]


def run_claim(claim: Claim, ctx: CheckContext | None = None) -> ClaimResult:
    """Run every check of every reading of a claim, with every piece of evidence the installed suite attaches, and
    compute the verdicts (:meth:`Suite.run` of :func:`current_suite`: one claim, one verdict, whatever was imported
    before).

    A check that raises, a stored counterexample that no longer refutes, or a contradiction
    between pieces of evidence makes the claim an ERROR (``error`` set), never a quiet verdict.
    """
    return current_suite().run(claim, ctx)


def instance_form(claim: Any, reading: Any) -> tuple[InstanceForm | None, str | None]:
    """:meth:`Suite.instance_form` of :func:`current_suite`."""
    return current_suite().instance_form(claim, reading)
