r"""The verdict rule: what a reading's evidence earns, per regime, and how strongly.

Verdicts (first match wins), per reading, over the regimes it lists
===================================================================
``refuted``
    the reading fails in every regime that has deciding evidence, and is
    established in none: an exact counterexample re-checked on this run, a
    rigorous interval certificate of failure, or an exact general negation.
``conditional``
    it is established (proved, certified or supported) in at least one listed
    regime and fails exactly or certifiably in another; the condition (where it
    holds and where it fails) is stated.
``proved``
    formal or exact evidence of scope ``general`` covering *every* regime listed
    on the reading; for a concrete or existential claim, formal or exact
    evidence of scope ``complete``.
``certified``
    interval evidence of scope ``complete`` (a certified witness of an
    existential claim; an enclosure that settles a concrete inequality) in
    every listed regime.
``supported``
    holds on everything checked and nothing settles it (derivations,
    instances, float statistics), or settles it only in some regimes.
``unsupported``
    float evidence (or a derivation) against, nothing exact or certified against.
``not-checkable``
    nothing decides it; ``reason`` says why.

``strength`` is the weakest kind within the strongest set of evidence sufficient
for the verdict: ``formal`` > ``exact`` > ``interval`` > ``float`` > ``none``.

Generic claims ("for almost every point of a stated parameter space")
=====================================================================
Form ``generic``: a failure decides only if it holds on a set of positive measure — a certified box or an
identity (scope ``positive-measure``), a failure labelled ``robust``, or a general negation. A failure labelled
``exceptional-point`` (perturbations restore the conclusion) is shown (``Assessment.exceptional``, "exceptional
set met at ...") and never decisive; an instance labelled ``robust`` is shown beside the box or identity that
decides; any other failing instance (``persistent``, or unlabelled) is evidence against, so at most
``unsupported``. A genericity argument (scope ``generic``: failure forces a non-zero P to
vanish, the null-set lemma cited) supports; with that lemma formal it is scope ``general`` and proves. A
witness at one point never proves or certifies a generic claim.

A contradiction within one reading (general formal/exact evidence that holds
beside an exact failure in an overlapping regime) raises
:class:`ContradictionError`: the claim is an ERROR, never a verdict.

Examples
========
>>> from theorems.framework.evidence import exact_instances
>>> e = exact_instances("x > 0 on 3 instances", met=3, held=3, arithmetic="QQ")
>>> (e.kind, e.scope, verdict_from([e]))
('exact', 'instances', 'supported')
>>> bad = exact_instances("x > 0", met=3, held=2, arithmetic="QQ")
>>> verdict_from([e, bad])
'refuted'
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

from .evidence import STRENGTHS, Evidence

__all__ = ["FORMS", "VERDICTS", "Assessment", "ContradictionError", "assess", "verdict_from"]

FORMS = ("universal", "existential", "concrete", "generic")
VERDICTS = ("proved", "certified", "supported", "conditional", "refuted", "unsupported", "not-checkable")


class ContradictionError(RuntimeError):
    """General evidence holds beside an exact failure in an overlapping regime: the suite is wrong somewhere."""


@dataclass
class Assessment:
    verdict: str
    strength: str
    condition: str | None = None
    reason: str | None = None
    by_regime: dict[str, str] = field(default_factory=dict)
    #: a generic claim's exceptional points met (failures perturbations restore): shown, never decisive
    exceptional: list[str] = field(default_factory=list)


_LEVEL = {"proved": 3, "certified": 2, "supported": 1}


def _strongest(evs: Iterable[Evidence]) -> str:
    return min((e.strength for e in evs), key=STRENGTHS.index, default="none")


def _weakest(strengths: Iterable[str]) -> str:
    return max(strengths, key=STRENGTHS.index, default="none")


def _decisive_failure(e: Evidence, form: str) -> bool:
    if e.holds is not False:
        return False
    if form == "existential":  # only a general negation refutes "there is an instance"
        return e.kind in ("formal", "exact") and e.scope == "general"
    if form == "generic":  # only a failure on a set of positive measure refutes "for almost every point"
        if e.kind not in ("formal", "exact", "interval-certified"):
            return False
        return e.scope == "positive-measure" or (e.kind in ("formal", "exact") and e.scope == "general")
    if e.kind == "counterexample":
        return True
    if e.kind in ("formal", "exact"):  # a failing box (scope positive-measure) is a set of counterexamples
        return e.scope in ("general", "complete", "instances", "positive-measure")
    if e.kind == "interval-certified":
        return True  # a rigorous certificate of failure (overlap is reported as holds=None)
    return False


def _exceptional(e: Evidence, form: str) -> bool:
    """A generic claim's failure at a point of its exceptional set: shown, never evidence either way."""
    return form == "generic" and e.holds is False and e.label == "exceptional-point"


def _set_aside(e: Evidence, form: str) -> bool:
    """A generic claim's failing instance that is not itself decisive and not evidence against: an exceptional
    point, or an instance labelled robust (its box or identity, a separate piece of evidence, decides)."""
    return form == "generic" and e.holds is False and e.label in ("exceptional-point", "robust") \
        and e.scope != "positive-measure"


def _level_of(e: Evidence, form: str) -> int:
    if e.holds is not True:
        return 0
    if form == "generic":  # only a general argument proves "almost every"; one point never certifies it
        return 3 if e.kind in ("formal", "exact") and e.scope == "general" else 1
    if e.kind in ("formal", "exact") and (e.scope == "general" or (form != "universal" and e.scope == "complete")):
        return 3
    if e.kind == "interval-certified" and form != "universal" and e.scope == "complete":
        return 2
    return 1


def assess(evidence: Sequence[Evidence], regimes: Sequence[str] = ("all",), form: str = "universal") -> Assessment:
    """The verdict, strength and condition the evidence earns (see the module docstring)."""
    if form not in FORMS:
        raise ValueError(f"form {form!r} not in {FORMS}")
    exceptional = [e.summary for e in evidence if _exceptional(e, form)]
    ev = [e for e in evidence if e.holds is not None and not _set_aside(e, form)]
    listed = [r for r in regimes if r != "all"] or ["all"]
    if not ev:
        reasons = [e.reason for e in evidence if e.reason] + [f"only exceptional points met: {x}" for x in exceptional]
        return Assessment("not-checkable", "none", reason="; ".join(dict.fromkeys(reasons)) or "no evidence",
                          exceptional=exceptional)
    a = _assess(ev, listed, form)
    a.exceptional = exceptional
    if exceptional and a.verdict in ("supported", "proved", "certified", "unsupported", "not-checkable"):
        met = (f"exceptional set met at {len(exceptional)} point(s), never decisive (perturbations restore the "
               "conclusion)")
        a.reason = f"{a.reason}; {met}" if a.reason else met
    return a


def _assess(ev: list[Evidence], listed: list[str], form: str) -> Assessment:
    universe = list(listed)
    if listed != ["all"]:
        universe += sorted({e.regime for e in ev if e.regime not in listed and e.regime != "all"})

    def applies(e: Evidence, r: str) -> bool:
        return listed == ["all"] or e.regime == "all" or e.regime == r

    status: dict[str, str] = {}
    strength: dict[str, str] = {}
    for r in universe:
        here = [e for e in ev if applies(e, r)]
        fails = [e for e in here if _decisive_failure(e, form)]
        general = [e for e in here if e.kind in ("formal", "exact") and e.scope == "general" and e.holds is True]
        # an exact failure (exact instances or an exact failing box, stored, formal) beside a general proof; an
        # interval-certified failure beside one refutes (the failure wins; see test_only_general_evidence...)
        exact_fail = [e for e in fails if e.kind in ("exact", "counterexample", "formal")]
        if general and exact_fail:
            raise ContradictionError(f"regime {r}: general evidence «{general[0].summary}» holds, but exact "
                                     f"evidence «{exact_fail[0].summary}» fails")
        if fails:
            status[r], strength[r] = "fails", _strongest(fails)
            continue
        best = max((_level_of(e, form) for e in here), default=0)
        contrary = [e for e in here if e.holds is False]
        if best >= 2 or (best == 1 and not contrary):
            name = {3: "proved", 2: "certified", 1: "supported"}[best]
            status[r] = name
            strength[r] = _strongest([e for e in here if _level_of(e, form) == best])
        elif contrary:
            status[r], strength[r] = "against", _strongest(contrary)
        else:
            status[r], strength[r] = "none", "none"

    failed = [r for r in universe if status[r] == "fails"]
    est = [r for r in universe if status[r] in _LEVEL]
    against = [r for r in universe if status[r] == "against"]
    unchecked = [r for r in universe if status[r] == "none"]

    def where(rs: list[str]) -> str:
        return ", ".join(rs) if rs != ["all"] else "every regime"

    if failed:
        if est:
            cond = f"holds in {where(est)} ({', '.join(status[r] for r in est)}); fails in {where(failed)}"
            if unchecked:
                cond += f"; unchecked in {where(unchecked)}"
            return Assessment("conditional", _weakest(strength[r] for r in failed + est), cond, by_regime=status)
        reason = f"fails in {where(failed)}" + (f"; unchecked in {where(unchecked)}" if unchecked else "")
        return Assessment("refuted", _weakest(strength[r] for r in failed), reason=reason, by_regime=status)
    if against:
        cond = f"evidence against in {where(against)}" + (f"; holds in {where(est)}" if est else "")
        return Assessment("unsupported", _weakest(strength[r] for r in against), cond, by_regime=status)
    if not est:
        return Assessment("not-checkable", "none", reason="no evidence decides any regime", by_regime=status)
    if unchecked:
        return Assessment("supported", _weakest(strength[r] for r in est),
                          reason=f"no deciding evidence in {where(unchecked)}", by_regime=status)
    level = min(_LEVEL[status[r]] for r in est)
    verdict = {3: "proved", 2: "certified", 1: "supported"}[level]
    # the sufficient set: per regime, the evidence at the level the verdict rests on
    need = []
    for r in est:
        here = [e for e in ev if applies(e, r) and _level_of(e, form) >= level]
        need.append(_strongest(here))
    return Assessment(verdict, _weakest(need), by_regime=status)


def verdict_from(evidence: Sequence[Evidence], regimes: Sequence[str] = ("all",), form: str = "universal") -> str:
    """The verdict the evidence supports (see the module docstring)."""
    return assess(evidence, regimes, form).verdict

