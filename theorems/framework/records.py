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
from typing import Any, Callable, Iterable, Mapping, Sequence, Union

from .aliases import Instance, JSONObject, Predicate
from .breaking import Breaking, breaking_of
from .evidence import Evidence, StepLike, evidence_from_record
from .formal_gap import FormalGap, check_formal_gap
from .generic import Generic, Notion, check_notion
from .instance import Declaration
from .off_instance import OffInstance, check_off_instance
from .run_record import note_seed, recording
from .storage import CounterexampleError
from .verdict import FORMS, ContradictionError, assess

__all__ = ["CLAIM_REGIMES", "ORIGINS", "TALLY_PARTS", "stable_seed", "CheckContext", "Check", "Reading", "Claim",
           "ReadingResult", "ClaimResult", "PredicateError", "Provider", "GroupOf", "run_claim_with"]

#: Regimes a claim is checked in: token count n against width d, and weights.
CLAIM_REGIMES = ("n<d", "n=d", "n>d", "all", "generic-weights", "degenerate-weights")


# --- seeds -------------------------------------------------------------------------------

def stable_seed(name: str) -> int:
    """A seed that depends only on ``name`` (CRC-32; never Python's per-process salted hash), noted in the open
    :func:`~theorems.framework.run_record.recording` s (the run's result carries it: ``ClaimResult.seeds``).

    >>> stable_seed("RN.stress") == stable_seed("RN.stress")
    True
    """
    s = zlib.crc32(name.encode("utf-8"))
    note_seed(name, s)
    return s



class PredicateError(RuntimeError):
    """A declared predicate (a hypothesis or a conclusion) raised or returned something other than
    True / False / None on an instance: the claim is an ERROR, with the predicate and the instance named."""




# --- claims -------------------------------------------------------------------------------

#: whose statements the ledger tallies separately (Claim.origin -> how the tally names them)
ORIGINS = {"paper": "the paper (Cirrincione 2026)", "explainer": "the Dong et al. 2021 explainer",
           "suite": "the suite's own framing", "user": "users' conjectures"}
#: the three parts of the tally: the paper, the explainer, and the suite's own and users' conjectures together
TALLY_PARTS = (("the paper (Cirrincione 2026)", ("paper",)), ("the Dong et al. 2021 explainer", ("explainer",)),
               ("the suite's own statements (its framing, readings of Dong's figures) and users' conjectures",
                ("suite", "user")))


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
#: hypotheses as declared: names only (explicit checks decide them) or {name: predicate}
Hypotheses = Union[Sequence[str], Mapping[str, Predicate]]
#: a conclusion as declared: words only, a documented predicate, or (words, predicate)
Conclusion = Union[str, Predicate, tuple[str, Predicate], None]
#: a stored counterexample named by its file id "CLAIM.ID", or ("CLAIM.ID", "name") for a second file
CounterexampleRef = Union[str, tuple[str, str]]


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
    #: a generic reading's parameter space (None: the claim's, when the form is generic)
    generic: Generic | None = None
    #: "CLAIM.ID" or "CLAIM.ID:reading": the same mathematical statement registered there (shares its evidence)
    same_as: str | None = None
    #: which notion decides a rank or collapse statement (None: the claim's); see COLLAPSE_NOTIONS
    notion: Notion | None = None
    #: declared predicates on the claim's instances ({name: predicate}, a conclusion predicate, stored
    #: counterexample files): ``theorems.conjecture.claim`` turns them into checks
    hypotheses: Hypotheses = ()
    conclusion: Conclusion = None
    counterexamples: Sequence[CounterexampleRef] = ()
    #: None: the claim's instances; else a Pool or a builder (Any: both live in declare.py, which imports this
    #: module, and a layering test forbids the cycle even under TYPE_CHECKING)
    instances: Any = None
    #: the declared predicates, kept after ``claim()`` turned them into checks (a
    #: :class:`~theorems.framework.instance.Declaration`; None for a reading with explicit checks only)
    decl: Declaration | None = field(default=None, repr=False, compare=False)
    #: why this reading has no Coq proof when its verdict is supported (exact) (see theorems.framework.formal_gap)
    formal_gap: FormalGap | None = None
    #: why this reading is not decided on one instance (None: the claim's; see theorems.framework.off_instance)
    off_instance: OffInstance | None = None


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
    proof_steps: tuple[StepLike, ...] = ()
    #: a generic claim's parameter space (required with form "generic"; readings inherit it)
    generic: Generic | None = None
    #: the headline is the same statement as "CLAIM.ID[:reading]" (their evidence is shared)
    same_as: str | None = None
    #: which notion decides a rank or collapse statement (COLLAPSE_NOTIONS key, or {part: notion})
    notion: Notion | None = None
    #: the ids of the claims this one rests on (the steps of its proof, the premise of its inference): the edges
    #: of the book's dependency graph, declared here and never drawn by hand
    depends_on: tuple[str, ...] = ()
    #: the headline's declared predicates (a :class:`~theorems.framework.instance.Declaration`, or None)
    decl: Declaration | None = field(default=None, repr=False, compare=False)
    #: why the headline has no Coq proof when its verdict is supported (exact) (see theorems.framework.formal_gap)
    formal_gap: FormalGap | None = None
    #: why the headline (and each reading without its own) is not decided on one instance
    #: (see theorems.framework.off_instance)
    off_instance: OffInstance | None = None
    #: which argument the headline's verdict rests on when the paper's proof and the suite's repair differ ("" none)
    argument: str = ""

    def __post_init__(self) -> None:
        if self.form not in FORMS:
            raise ValueError(f"claim {self.id}: form {self.form!r} not in {FORMS}")
        if self.generic is not None and not isinstance(self.generic, Generic):
            raise TypeError(f"claim {self.id}: generic= is a Generic(space=..., variables=...), not "
                            f"{type(self.generic).__name__}")
        self.notion = check_notion(self.notion, f"claim {self.id}")
        self.formal_gap = check_formal_gap(self.formal_gap, f"claim {self.id}")
        self.off_instance = check_off_instance(self.off_instance, f"claim {self.id}")
        for r in self.all_readings():
            r.off_instance = check_off_instance(r.off_instance, f"claim {self.id} reading {r.key}")
            r.notion = check_notion(r.notion, f"claim {self.id} reading {r.key}")
            r.formal_gap = check_formal_gap(r.formal_gap, f"claim {self.id} reading {r.key}")
            if (r.form or self.form) == "generic" and (r.generic or self.generic) is None:
                raise ValueError(f"claim {self.id} reading {r.key}: a generic statement states its parameter space "
                                 "(generic=Generic(space=..., variables=...))")

    @property
    def quoted(self) -> bool:
        """True when the claim quotes a source's words (the paper, its abstract or the Dong explainer); False for the
        suite's own framing (an empty quote: ``source`` then says what the claim stands for) and for a user's
        conjecture (its words are the user's, in no source). A test compares every quoted claim with the sources."""
        return bool(self.quote.strip()) and self.source != "user"

    @property
    def origin(self) -> str:
        """Whose statement this is (:data:`ORIGINS`): ``paper`` (Cirrincione 2026, its abstract), ``explainer`` (the
        Dong et al. 2021 explainer: its section starts with "Dong"), ``suite`` (the suite's own framing, no quote)
        or ``user`` (a user's conjecture). A test checks it against where the quote is found in the sources."""
        if self.source == "user":
            return "user"
        if not self.quote.strip():
            return "suite"
        return "explainer" if self.section.startswith("Dong") else "paper"

    def all_readings(self) -> list[Reading]:
        lit = Reading("literal", self.statement, self.checks, generic=self.generic, same_as=self.same_as,
                      notion=self.notion, decl=self.decl, formal_gap=self.formal_gap, off_instance=self.off_instance)
        out = [lit, *self.readings]
        if self.corrected is not None:
            out.append(self.corrected)
        return out

    def reading_of(self, key: str) -> Reading:
        for r in self.all_readings():
            if r.key == key:
                return r
        raise KeyError(f"claim {self.id} has no reading {key!r}")

    def off_instance_of(self, r: Reading) -> OffInstance | None:
        """Why a reading is not decided on one instance: its own reason, else the claim's."""
        return r.off_instance if r.off_instance is not None else self.off_instance

    def spec_of(self, r: Reading) -> Generic | None:
        """The parameter space a reading is generic over (None unless its form is generic)."""
        return (r.generic or self.generic) if (r.form or self.form) == "generic" else None


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
    regimes: tuple[str, ...] = ()
    reason: str | None = None
    adds: str | None = None
    note: str = ""
    generic: Generic | None = None
    same_as: tuple[str, ...] = ()
    notion: Notion | None = None
    exceptional: tuple[str, ...] = ()
    cites: tuple[str, ...] = ()
    formal_gap: FormalGap | None = None
    #: each named hypothesis dropped in turn (:mod:`theorems.framework.breaking`): not evidence, never a verdict's
    breaking: Breaking | None = None

    @classmethod
    def from_json(cls, d: JSONObject) -> "ReadingResult":
        """A reading's result read back from a ledger; the verdict and strength are recomputed from the evidence
        by :func:`assess` and must agree with the stored ones (a stale or edited file raises ValueError)."""
        ev = [evidence_from_record(e) for e in d["evidence"]]
        regimes = tuple(d.get("regimes") or ("all",))
        form = d.get("form") or "universal"
        a = assess(ev, regimes, form)
        if (a.verdict, a.strength) != (d["verdict"], d["strength"]):
            raise ValueError(f"reading {d.get('key')!r}: the stored verdict {d['verdict']} ({d['strength']}) is not "
                             f"what its evidence earns ({a.verdict}, {a.strength})")
        return cls(d["key"], d["statement"], d["verdict"], ev, d.get("condition"), float(d.get("seconds") or 0.0),
                   d["strength"], form, regimes, d.get("reason"), d.get("adds"), d.get("note") or "",
                   same_as=tuple(d.get("same_as") or ()), notion=d.get("notion"),
                   exceptional=tuple(d.get("exceptional") or ()), cites=tuple(d.get("cites") or ()),
                   formal_gap=FormalGap.from_json(d.get("formal_gap")),
                   breaking=Breaking.from_json(d.get("breaking")))

    def to_json(self) -> JSONObject:
        return {"key": self.key, "statement": self.statement, "verdict": self.verdict, "strength": self.strength,
                "form": self.form, "regimes": list(self.regimes), "condition": self.condition,
                "adds": self.adds, "reason": self.reason, "note": self.note,
                "parameter_space": self.generic.to_json() if self.generic is not None else None,
                "same_as": list(self.same_as), "notion": self.notion, "exceptional": list(self.exceptional),
                "cites": list(self.cites),
                "formal_gap": self.formal_gap.to_json() if self.formal_gap is not None else None,
                "evidence": [e.to_json() for e in self.evidence], "seconds": round(self.seconds, 3),
                "breaking": self.breaking.to_json() if self.breaking is not None else None}


@dataclass
class ClaimResult:
    claim: Claim
    readings: list[ReadingResult]
    seconds: float
    error: str | None = None
    #: the seeds drawn while the claim ran (name -> seed; a result cached by an earlier claim draws none here)
    seeds: dict[str, int] = field(default_factory=dict)
    #: the stored counterexample files (repository-relative) re-checked while the claim ran
    referenced_counterexamples: set[str] = field(default_factory=set)
    #: a conjecture's counterexamples found (not read from a file) while it ran: regime -> minimal instance
    found_counterexamples: dict[str, Instance] = field(default_factory=dict)

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

    @classmethod
    def from_json(cls, d: JSONObject, claim: Claim) -> "ClaimResult":
        """A claim's result read back from a ledger (``verify --json``), for the registered ``claim`` it names."""
        if d.get("id") != claim.id:
            raise ValueError(f"the record is for {d.get('id')!r}, not {claim.id!r}")
        if d.get("error"):
            return cls(claim, [], float(d.get("seconds") or 0.0), error=d["error"])
        lit = {"key": "literal", "statement": d["statement"], "verdict": d["verdict"], "strength": d["strength"],
               "form": d.get("form"), "regimes": d.get("regimes"), "condition": d.get("condition"),
               "reason": d.get("reason"), "evidence": d["evidence"], "seconds": 0.0,
               "same_as": d.get("same_as"), "notion": d.get("notion"), "exceptional": d.get("exceptional"),
               "cites": d.get("cites"), "formal_gap": d.get("formal_gap"), "breaking": d.get("breaking")}
        if "parameter_space" in d:  # the literal's is written with the claim's fields
            lit["parameter_space"] = d["parameter_space"]
        stored = [lit, *d.get("readings", [])]
        readings = [ReadingResult.from_json(r) for r in stored]
        declared = {r.key: r for r in claim.all_readings()}
        for rr, rec in zip(readings, stored):  # the parameter space is the registered claim's (the ledger keeps
            if rr.key not in declared:         # only its text), and must be the one the run wrote
                raise ValueError(f"reading {rr.key!r}: the registered claim {claim.id} has no such reading")
            rr.generic = claim.spec_of(declared[rr.key])
            now = rr.generic.to_json() if rr.generic is not None else None
            if "parameter_space" not in rec:
                raise ValueError(f"reading {rr.key!r}: the record states no parameter space (not even null)")
            if rec["parameter_space"] != now:
                raise ValueError(f"reading {rr.key!r}: the stored parameter space {rec['parameter_space']!r} is "
                                 f"not the registered claim's {now!r}")
        return cls(claim, readings, float(d.get("seconds") or 0.0))

    def to_json(self) -> JSONObject:
        c = self.claim
        lit = self.readings[0] if self.readings else None
        return {
            "id": c.id, "section": c.section, "quote": c.quote, "quoted": c.quoted, "origin": c.origin,
            "argument": c.argument, "form": c.form,
            "verdict": None if self.error else self.verdict, "strength": self.strength,
            "statement": c.statement, "hypotheses": list(c.hypotheses), "conclusion": c.conclusion,
            "regimes": list(c.regimes),
            "parameter_space": c.generic.to_json() if c.generic is not None and c.form == "generic" else None,
            "same_as": list(lit.same_as) if lit else [], "notion": c.notion,
            "exceptional": list(lit.exceptional) if lit else [], "cites": list(lit.cites) if lit else [],
            "formal_gap": lit.formal_gap.to_json() if lit and lit.formal_gap is not None else None,
            "evidence": [e.to_json() for e in lit.evidence] if lit else [],
            "breaking": lit.breaking.to_json() if lit and lit.breaking is not None else None,
            "condition": lit.condition if lit else None,
            "reason": (lit.reason if lit else None) if not self.error else self.error,
            "readings": [r.to_json() for r in self.readings[1:]],
            "seconds": round(self.seconds, 3), "error": self.error, "source": c.source, "chapter": c.chapter,
            "depends_on": list(c.depends_on),
        }



#: a provider of evidence attached by id (a layer of the suite: the Coq lemmas, the numeric witnesses), called as
#: provider(claim_id, reading_key, ctx) -> list[Evidence] ("literal" is the headline)
Provider = Callable[[str, str, CheckContext], list[Evidence]]
#: the same-as group of a (claim, reading): every (Claim, Reading) stating the same statement, itself first
GroupOf = Callable[[Claim, Reading], list[tuple[Claim, Reading]]]


def _alone(claim: Claim, r: Reading) -> list[tuple[Claim, Reading]]:
    return [(claim, r)]


def _own_evidence(claim: Claim, r: Reading, ctx: CheckContext, providers: Sequence[Provider]) -> list[Evidence]:
    """The reading's checks, then the providers' evidence, in this order; a provider marked ``late`` (an attribute
    set to True: the formal layer's, which may wait for Coq compiling in the background) is called after all the
    others, its evidence still put in its place."""
    calls = [*((check, False) for check in r.checks),
             *((lambda c, p=p: p(claim.id, r.key, c), bool(getattr(p, "late", False))) for p in providers)]
    got_at: list[list[Evidence]] = [[] for _ in calls]
    for k in sorted(range(len(calls)), key=lambda k: calls[k][1]):  # stable: the late ones last, in their order
        got = list(calls[k][0](ctx))
        for e in got:
            if not isinstance(e, Evidence):
                raise TypeError(f"{claim.id} reading {r.key}: a check returned {type(e).__name__}, not Evidence")
        got_at[k] = got
    return [e for got in got_at for e in got]


def _evidence(claim: Claim, r: Reading, ctx: CheckContext, providers: Sequence[Provider],
              group_of: GroupOf) -> tuple[list[Evidence], tuple[str, ...]]:
    """The reading's evidence, and the other members of its same-as group: one statement, one evidence (the
    union of every member's checks and attached evidence, each piece once, in one order for every member;
    recomputed per member, so a spoiled stored file fails every member loudly)."""
    group = group_of(claim, r)
    others = tuple(f"{c.id}:{m.key}" for c, m in group[1:])
    if len(group) == 1:
        return _own_evidence(claim, r, ctx, providers), others
    ev: list[Evidence] = []
    seen: set[str] = set()
    for c, m in sorted(group, key=lambda cm: (cm[0].id, cm[1].key)):  # one order for every member
        for e in _own_evidence(c, m, CheckContext(dps=ctx.dps, quick=ctx.quick, claim_id=c.id), providers):
            sig = repr(sorted(e.to_json().items(), key=lambda kv: kv[0]))
            if sig not in seen:
                seen.add(sig)
                ev.append(e)
    return ev, others


def _run_reading(claim: Claim, r: Reading, ctx: CheckContext, providers: Sequence[Provider],
                 group_of: GroupOf) -> ReadingResult:
    t0 = time.perf_counter()
    ev, others = _evidence(claim, r, ctx, providers, group_of)
    regimes = tuple(r.regimes) if r.regimes is not None else tuple(claim.regimes)
    form = r.form or claim.form
    a = assess(ev, regimes, form)
    cond = a.condition if a.verdict in ("conditional", "unsupported") else r.condition
    cites = tuple(dict.fromkeys(e.cites for e in ev if e.cites and e.holds is True))
    breaking = breaking_of(claim, r, ctx)  # after the verdict, from the declaration alone: never evidence
    return ReadingResult(r.key, r.statement, a.verdict, ev, cond, time.perf_counter() - t0, a.strength, form,
                         regimes, a.reason, r.condition, r.note, generic=claim.spec_of(r), same_as=others,
                         notion=r.notion if r.notion is not None else claim.notion,
                         exceptional=tuple(a.exceptional), cites=cites, formal_gap=r.formal_gap, breaking=breaking)


def run_claim_with(claim: Claim, ctx: CheckContext | None, providers: Sequence[Provider] = (),
                   group_of: GroupOf = _alone) -> ClaimResult:
    """Run every check of every reading of a claim, with the evidence of ``providers`` (in this order) and the
    same-as groups of ``group_of``, and compute the verdicts. The suite calls it (:meth:`Suite.run
    <theorems.framework.suite.Suite.run>`, and :func:`theorems.framework.run_claim` with the loaded suite): a
    direct call with other providers is a test's or a tool's, and says so by passing them.

    A check that raises, a stored counterexample that no longer refutes, or a contradiction
    between pieces of evidence makes the claim an ERROR (``error`` set), never a quiet verdict.
    """
    base = ctx or CheckContext()
    ctx = CheckContext(dps=base.dps, quick=base.quick, claim_id=claim.id)
    t0 = time.perf_counter()
    with recording() as rec:
        try:
            results = [_run_reading(claim, r, ctx, providers, group_of) for r in claim.all_readings()]
        except (ContradictionError, CounterexampleError, PredicateError) as e:
            return ClaimResult(claim, [], time.perf_counter() - t0, error=f"{type(e).__name__}: {e}",
                               seeds=rec.seeds, referenced_counterexamples=rec.counterexamples,
                               found_counterexamples=rec.found.get(claim.id, {}))
    return ClaimResult(claim, results, time.perf_counter() - t0, seeds=rec.seeds,
                       referenced_counterexamples=rec.counterexamples,
                       found_counterexamples=rec.found.get(claim.id, {}))
