"""The claim registry, evidence records and the verdict rule.

A :class:`Claim` is one sentence of the paper made formal: a stable id, the
paper's words and section, a formal statement in LaTeX, named hypotheses, a
conclusion, the regimes it is checked in, and the *checks* that produce
:class:`Evidence`. A claim may carry alternative :class:`Reading` s where the
paper is ambiguous or truncated; each reading gets its own verdict.

The verdict is never typed in: :func:`verdict_from` computes it from the
evidence each time the checks run.

Verdict rule (first match wins)
===============================
``refuted``
    some evidence is a counterexample, re-checked exactly (``kind ==
    "counterexample"``), or an exact general proof of the negation
    (``kind == "exact"``, ``scope == "general"``, ``holds is False``), or every
    piece of evidence that decides anything fails (for an empirical claim this
    is float evidence against it; the evidence kind in the ledger says so).
``conditional``
    no refutation, but the evidence holds in some regimes and fails in
    others; the regimes where it holds are the condition the ledger shows.
``proved``
    every piece of evidence holds and exact proofs for all instances
    (``kind == "exact"``, ``scope == "general"``) cover every regime the
    evidence speaks about (a proof for regime ``all``, or one per regime).
``certified``
    every piece holds and one is an interval-certified proof or witness (scope
    ``general`` or ``witness``); certified numbers on finitely many instances of a
    universal claim only *support* it.
``supported``
    every piece holds but none is a proof or a certificate (exact checks on
    finitely many instances, or float evidence).
``not-checkable``
    no evidence decides the claim (every ``holds`` is ``None``), with the
    reason recorded in the evidence.

Examples
========
>>> e = Evidence(kind="exact", holds=True, scope="instances", summary="3 instances",
...              arithmetic="QQ (python-flint)")
>>> verdict_from([e])
'supported'
>>> verdict_from([e, Evidence(kind="counterexample", holds=False, summary="x",
...                          arithmetic="QQ")])
'refuted'
"""
from __future__ import annotations

import fnmatch
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

__all__ = [
    "EVIDENCE_KINDS",
    "VERDICTS",
    "REGIMES",
    "Evidence",
    "Reading",
    "Claim",
    "ClaimResult",
    "register",
    "registry",
    "get",
    "select",
    "verdict_from",
    "run_claim",
    "load_entry_points",
    "COUNTEREXAMPLE_DIR",
    "save_counterexample",
    "load_counterexample",
    "steps_evidence",
]

EVIDENCE_KINDS = ("exact", "interval-certified", "float-evidence", "counterexample")
VERDICTS = ("proved", "certified", "supported", "conditional", "refuted", "not-checkable")
#: Regimes a claim is checked in: token count n against width d, and weights.
REGIMES = ("n<d", "n=d", "n>d", "all", "generic-weights", "degenerate-weights")

COUNTEREXAMPLE_DIR = Path(__file__).resolve().parent.parent / "proofs_numeric" / "counterexamples"


@dataclass
class Evidence:
    """One piece of evidence about one statement.

    ``holds``: True (the statement held), False (it failed), None (undecided).
    ``scope``: ``general`` (a proof for every instance), ``instances`` (checked
    on the instances counted in ``numbers``), ``witness`` (one instance).
    ``arithmetic``: which arithmetic and precision decided it, e.g.
    ``"QQ (python-flint fmpq_mat)"``, ``"mpmath iv, 60 digits"``,
    ``"float64 SVD, tol=1e-10"``.
    """

    kind: str
    holds: bool | None
    summary: str
    arithmetic: str
    scope: str = "instances"
    regime: str = "all"
    numbers: dict = field(default_factory=dict)
    counterexample: str | None = None  # path of the stored exact instance

    def __post_init__(self):
        if self.kind not in EVIDENCE_KINDS:
            raise ValueError(f"evidence kind {self.kind!r} not in {EVIDENCE_KINDS}")
        if self.scope not in ("general", "instances", "witness"):
            raise ValueError(f"evidence scope {self.scope!r} unknown")
        if self.kind == "counterexample" and self.holds is not False:
            raise ValueError("a counterexample is evidence that the statement fails (holds=False)")

    def to_json(self) -> dict:
        return asdict(self)


def verdict_from(evidence: Sequence[Evidence]) -> str:
    """The verdict the evidence supports (see the module docstring)."""
    ev = list(evidence)
    decided = [e for e in ev if e.holds is not None]
    if not decided:
        return "not-checkable"
    for e in decided:
        if e.kind == "counterexample":
            return "refuted"
        if e.kind == "exact" and e.scope == "general" and e.holds is False:
            return "refuted"
    if any(e.holds is False for e in decided):
        if any(e.holds is True for e in decided):
            return "conditional"
        return "refuted"
    general = {e.regime for e in decided if e.kind == "exact" and e.scope == "general"}
    if general and ("all" in general or general >= {e.regime for e in decided}):
        return "proved"
    if any(e.kind == "interval-certified" and e.scope != "instances" for e in decided):
        return "certified"
    return "supported"


def condition_from(evidence: Sequence[Evidence]) -> str | None:
    """For a conditional verdict: the regimes in which the statement held."""
    held_e = [e for e in evidence if e.holds is True]
    failed_e = [e for e in evidence if e.holds is False]
    held = sorted({e.regime for e in held_e})
    failed = sorted({e.regime for e in failed_e})
    if not (held and failed):
        return None
    if not set(held) & set(failed):
        return f"holds in {', '.join(held)}; fails in {', '.join(failed)}"
    where = "; ".join(e.summary.split(":")[0] for e in failed_e)
    return f"holds on {len(held_e)} of {len(held_e) + len(failed_e)} checks; fails on: {where}"


Check = Callable[["CheckContext"], Iterable[Evidence]]


@dataclass
class CheckContext:
    """What a check may use: the working precision and a time budget hint."""

    dps: int = 50
    quick: bool = False


@dataclass
class Reading:
    """One formal reading of a claim (``key`` like ``"literal"`` or ``"a"``)."""

    key: str
    statement: str  # LaTeX
    checks: Sequence[Check]
    note: str = ""
    condition: str | None = None  # extra condition this reading adds


@dataclass
class Claim:
    id: str
    section: str
    quote: str
    statement: str  # LaTeX, the claim as the paper states it (the literal reading)
    hypotheses: Sequence[str]
    conclusion: str
    regimes: Sequence[str]
    checks: Sequence[Check]
    readings: Sequence[Reading] = ()
    corrected: Reading | None = None  # a repaired statement, when the literal one fails
    chapter: str = ""  # book chapter slug
    source: str = "collapse-verify"

    def all_readings(self) -> list[Reading]:
        lit = Reading("literal", self.statement, self.checks)
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
    condition: str | None
    seconds: float


@dataclass
class ClaimResult:
    claim: Claim
    readings: list[ReadingResult]
    seconds: float
    error: str | None = None

    @property
    def verdict(self) -> str:
        return self.readings[0].verdict if self.readings else "not-checkable"

    @property
    def literal(self) -> ReadingResult:
        return self.readings[0]

    def reading(self, key: str) -> ReadingResult:
        for r in self.readings:
            if r.key == key:
                return r
        raise KeyError(key)

    def evidence_kinds(self) -> list[str]:
        return sorted({e.kind for e in self.literal.evidence})

    def regimes(self) -> list[str]:
        return sorted({e.regime for e in self.literal.evidence})

    def to_json(self) -> dict:
        c = self.claim
        return {
            "id": c.id,
            "section": c.section,
            "quote": c.quote,
            "verdict": self.verdict,
            "statement": c.statement,
            "hypotheses": list(c.hypotheses),
            "conclusion": c.conclusion,
            "regimes": list(c.regimes),
            "evidence": [e.to_json() for e in self.literal.evidence],
            "condition": self.literal.condition,
            "readings": [
                {
                    "key": r.key,
                    "statement": r.statement,
                    "verdict": r.verdict,
                    "condition": r.condition,
                    "evidence": [e.to_json() for e in r.evidence],
                }
                for r in self.readings[1:]
            ],
            "seconds": round(self.seconds, 3),
            "error": self.error,
            "source": c.source,
            "chapter": c.chapter,
        }


_REGISTRY: dict[str, Claim] = {}


def register(claim: Claim) -> Claim:
    """Add a claim to the registry (re-registering the same id replaces it)."""
    _REGISTRY[claim.id] = claim
    return claim


_ENTRY_POINTS_LOADED = False


def load_entry_points() -> list[str]:
    """Import every module named under the ``collapse_verify.claims`` entry point."""
    global _ENTRY_POINTS_LOADED
    loaded = []
    if _ENTRY_POINTS_LOADED:
        return loaded
    from importlib.metadata import entry_points

    for ep in entry_points(group="collapse_verify.claims"):
        ep.load()
        loaded.append(ep.name)
    _ENTRY_POINTS_LOADED = True
    return loaded


def registry() -> list[Claim]:
    """Every registered claim, the paper's and the plug-ins', in id order."""
    import theorems  # noqa: F401  (registers the paper's claims)

    load_entry_points()
    return [ _REGISTRY[k] for k in sorted(_REGISTRY) ]


def get(claim_id: str) -> Claim:
    registry()
    try:
        return _REGISTRY[claim_id]
    except KeyError:
        raise KeyError(f"no claim {claim_id!r}; known: {', '.join(sorted(_REGISTRY))}") from None


def select(pattern: str | None) -> list[Claim]:
    """Claims whose id matches a glob such as ``RN.*``."""
    claims = registry()
    if not pattern:
        return claims
    return [c for c in claims if fnmatch.fnmatchcase(c.id, pattern)]


def _run_reading(r: Reading, ctx: CheckContext) -> ReadingResult:
    t0 = time.perf_counter()
    ev: list[Evidence] = []
    for check in r.checks:
        ev.extend(check(ctx))
    v = verdict_from(ev)
    cond = r.condition if r.condition else (condition_from(ev) if v == "conditional" else None)
    return ReadingResult(r.key, r.statement, v, ev, cond, time.perf_counter() - t0)


def run_claim(claim: Claim, ctx: CheckContext | None = None) -> ClaimResult:
    """Run every check of every reading of a claim and compute the verdicts."""
    ctx = ctx or CheckContext()
    t0 = time.perf_counter()
    results = [_run_reading(r, ctx) for r in claim.all_readings()]
    return ClaimResult(claim, results, time.perf_counter() - t0)


def steps_evidence(steps, uses=None, what: str = "", regime: str = "all",
                   arithmetic: str = "sympy symbolic / QQ") -> Evidence:
    """Run a module's PROOF_STEPS (all, or the indices in ``uses``); all true gives an exact general proof.

    Each step is ``(latex, words, kind, check)``; ``kind`` is "identity" (a sympy identity in symbolic
    entries) or "lemma" (a cited standard result, spot-checked exactly).
    """
    chosen = list(steps) if uses is None else [steps[i] for i in uses]
    ok = [bool(step[-1]()) for step in chosen]
    kinds = [step[-2] for step in chosen]
    return Evidence(kind="exact", holds=True if ok and all(ok) else None, scope="general", regime=regime,
                    arithmetic=arithmetic,
                    summary=f"proof of {what}: {sum(ok)}/{len(ok)} steps checked ({kinds.count('identity')} sympy "
                            f"identities, {kinds.count('lemma')} cited lemmas spot-checked)",
                    numbers={"steps": len(ok), "checked": sum(ok)})


# --- counterexamples: exact instances stored as JSON -------------------------------

def _slug(claim_id: str) -> str:
    return claim_id.replace("/", "_")


def save_counterexample(claim_id: str, instance: dict, note: str, name: str = "") -> Path:
    """Store an exact instance (rationals as strings) for ``claim_id``."""
    COUNTEREXAMPLE_DIR.mkdir(parents=True, exist_ok=True)
    path = COUNTEREXAMPLE_DIR / f"{_slug(claim_id)}{('-' + name) if name else ''}.json"

    def enc(v):
        if isinstance(v, (list, tuple)):
            return [enc(x) for x in v]
        if hasattr(v, "tolist") and not isinstance(v, (int, str)):
            return enc(v.tolist())
        return str(v)

    path.write_text(json.dumps({"claim": claim_id, "note": note,
                                "instance": {k: enc(v) for k, v in instance.items()}}, indent=1) + "\n")
    return path


def load_counterexample(claim_id: str, name: str = "") -> tuple[dict, Path]:
    path = COUNTEREXAMPLE_DIR / f"{_slug(claim_id)}{('-' + name) if name else ''}.json"
    data = json.loads(path.read_text())
    if data.get("claim") != claim_id:
        raise ValueError(f"{path} is a counterexample for {data.get('claim')!r}, not {claim_id!r}")
    return data["instance"], path
