r"""Claims, readings and their results, the seeds a run draws, and :func:`run_claim`.

A :class:`Claim` is one sentence of the paper made formal: a stable id, the paper's words and section,
a formal statement in LaTeX, named hypotheses, a conclusion, its ``form`` (``universal``, ``existential``
or ``concrete``), the regimes it is checked in, and the *checks* that produce
:class:`~theorems.framework.evidence.Evidence`. A claim may carry alternative :class:`Reading` s where
the paper is ambiguous or truncated; each reading gets its own verdict. Readings inherit the claim's
regimes and form unless they state their own. Declare claims with
:func:`theorems.framework.declare.claim`, never by calling :class:`Claim` directly.
"""
from __future__ import annotations

import time
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from .evidence import Evidence
from .storage import CounterexampleError
from .verdict import FORMS, ContradictionError, assess

__all__ = ["REGIMES", "SEEDS", "stable_seed", "CheckContext", "Check", "Reading", "Claim", "ReadingResult",
           "ClaimResult", "PredicateError", "EVIDENCE_PROVIDERS", "run_claim"]

#: Regimes a claim is checked in: token count n against width d, and weights.
REGIMES = ("n<d", "n=d", "n>d", "all", "generic-weights", "degenerate-weights")


# --- seeds -------------------------------------------------------------------------------

#: every seed drawn through :func:`stable_seed` in this process (name -> seed), for the ledger's provenance
SEEDS: dict[str, int] = {}


def stable_seed(name: str) -> int:
    """A seed that depends only on ``name`` (CRC-32; never Python's per-process salted hash).

    >>> stable_seed("RN.stress") == stable_seed("RN.stress")
    True
    """
    s = zlib.crc32(name.encode("utf-8"))
    SEEDS[name] = s
    return s



class PredicateError(RuntimeError):
    """A declared predicate (a hypothesis or a conclusion) raised or returned something other than
    True / False / None on an instance: the claim is an ERROR, with the predicate and the instance named."""




# --- claims -------------------------------------------------------------------------------

@dataclass
class CheckContext:
    """What a check may use: the working precision, a time budget hint, and the claim being run."""

    dps: int = 50
    quick: bool = False
    claim_id: str = ""

    def seed(self, salt: str = "") -> int:
        """A stable seed for this claim (CRC-32 of its id and ``salt``)."""
        return stable_seed(f"{self.claim_id}:{salt}" if salt else self.claim_id)


Check = Callable[[CheckContext], Iterable[Evidence]]


@dataclass
class Reading:
    """One formal reading of a claim (``key`` like ``"literal"`` or ``"corrected"``).

    ``condition``: the extra hypothesis this reading adds (shown next to its verdict).
    ``regimes`` / ``form``: None inherits the claim's.
    """

    key: str
    statement: str  # LaTeX
    checks: Sequence[Check] = ()
    note: str = ""
    condition: str | None = None
    regimes: Sequence[str] | None = None
    form: str | None = None
    #: declared predicates on the claim's instances ({name: predicate}, a conclusion predicate, stored
    #: counterexample files): ``theorems.conjecture.claim`` turns them into checks
    hypotheses: Any = ()
    conclusion: Any = None
    counterexamples: Sequence = ()
    instances: Any = None  # None: the claim's instances
    #: the declared predicates, kept after ``claim()`` turned them into checks (a
    #: :class:`~theorems.framework.instance.Declaration`; None for a reading with explicit checks only)
    decl: Any = field(default=None, repr=False, compare=False)


@dataclass
class Claim:
    id: str
    section: str
    quote: str
    statement: str  # LaTeX, the claim as the paper states it (the headline reading)
    hypotheses: Sequence[str]
    conclusion: str
    regimes: Sequence[str]
    checks: Sequence[Check]
    readings: Sequence[Reading] = ()
    corrected: Reading | None = None  # a repaired statement, when the headline fails
    chapter: str = ""  # book chapter slug
    source: str = "collapse-verify"
    form: str = "universal"
    #: the derivation's steps ((LaTeX, words, kind, check) tuples), shown by ``show`` and the book
    proof_steps: tuple = ()
    #: the headline's declared predicates (a :class:`~theorems.framework.instance.Declaration`, or None)
    decl: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        if self.form not in FORMS:
            raise ValueError(f"claim {self.id}: form {self.form!r} not in {FORMS}")

    def all_readings(self) -> list[Reading]:
        lit = Reading("literal", self.statement, self.checks, decl=self.decl)
        out = [lit, *self.readings]
        if self.corrected is not None:
            out.append(self.corrected)
        return out


@dataclass
class ReadingResult:
    key: str
    statement: str
    verdict: str
    evidence: list[Evidence]
    condition: str | None  # where it holds and fails (conditional), or the extra hypothesis it adds
    seconds: float
    strength: str = "none"
    form: str = "universal"
    regimes: tuple = ()
    reason: str | None = None
    adds: str | None = None
    note: str = ""

    def to_json(self) -> dict:
        return {"key": self.key, "statement": self.statement, "verdict": self.verdict, "strength": self.strength,
                "form": self.form, "regimes": list(self.regimes), "condition": self.condition,
                "adds": self.adds, "reason": self.reason, "note": self.note,
                "evidence": [e.to_json() for e in self.evidence], "seconds": round(self.seconds, 3)}


@dataclass
class ClaimResult:
    claim: Claim
    readings: list[ReadingResult]
    seconds: float
    error: str | None = None

    @property
    def verdict(self) -> str:
        if self.error:
            return "error"
        return self.readings[0].verdict if self.readings else "not-checkable"

    @property
    def strength(self) -> str:
        return self.readings[0].strength if self.readings and not self.error else "none"

    @property
    def literal(self) -> ReadingResult:
        return self.readings[0]

    def reading(self, key: str) -> ReadingResult:
        for r in self.readings:
            if r.key == key:
                return r
        raise KeyError(key)

    def evidence_kinds(self) -> list[str]:
        return sorted({e.kind for e in self.literal.evidence}) if self.readings else []

    def regimes(self) -> list[str]:
        return sorted({e.regime for e in self.literal.evidence}) if self.readings else []

    def to_json(self) -> dict:
        c = self.claim
        lit = self.readings[0] if self.readings else None
        return {
            "id": c.id, "section": c.section, "quote": c.quote, "form": c.form,
            "verdict": None if self.error else self.verdict, "strength": self.strength,
            "statement": c.statement, "hypotheses": list(c.hypotheses), "conclusion": c.conclusion,
            "regimes": list(c.regimes),
            "evidence": [e.to_json() for e in lit.evidence] if lit else [],
            "condition": lit.condition if lit else None,
            "reason": (lit.reason if lit else None) if not self.error else self.error,
            "readings": [r.to_json() for r in self.readings[1:]],
            "seconds": round(self.seconds, 3), "error": self.error, "source": c.source, "chapter": c.chapter,
        }



#: providers of extra evidence for any claim and reading (e.g. the formal proofs of theorems.formal);
#: each is called as provider(claim_id, reading_key, ctx) -> list[Evidence] ("literal" is the headline)
EVIDENCE_PROVIDERS: list[Callable[[str, str, CheckContext], list[Evidence]]] = []


def _run_reading(claim: Claim, r: Reading, ctx: CheckContext) -> ReadingResult:
    t0 = time.perf_counter()
    ev: list[Evidence] = []
    for check in [*r.checks, *(lambda c, p=p: p(claim.id, r.key, c) for p in EVIDENCE_PROVIDERS)]:
        got = list(check(ctx))
        for e in got:
            if not isinstance(e, Evidence):
                raise TypeError(f"{claim.id} reading {r.key}: a check returned {type(e).__name__}, not Evidence")
        ev.extend(got)
    regimes = tuple(r.regimes) if r.regimes is not None else tuple(claim.regimes)
    form = r.form or claim.form
    a = assess(ev, regimes, form)
    cond = a.condition if a.verdict in ("conditional", "unsupported") else r.condition
    return ReadingResult(r.key, r.statement, a.verdict, ev, cond, time.perf_counter() - t0, a.strength, form,
                         regimes, a.reason, r.condition, r.note)


def run_claim(claim: Claim, ctx: CheckContext | None = None) -> ClaimResult:
    """Run every check of every reading of a claim and compute the verdicts.

    A check that raises, a stored counterexample that no longer refutes, or a contradiction
    between pieces of evidence makes the claim an ERROR (``error`` set), never a quiet verdict.
    """
    base = ctx or CheckContext()
    ctx = CheckContext(dps=base.dps, quick=base.quick, claim_id=claim.id)
    t0 = time.perf_counter()
    try:
        results = [_run_reading(claim, r, ctx) for r in claim.all_readings()]
    except (ContradictionError, CounterexampleError, PredicateError) as e:
        return ClaimResult(claim, [], time.perf_counter() - t0, error=f"{type(e).__name__}: {e}")
    return ClaimResult(claim, results, time.perf_counter() - t0)
