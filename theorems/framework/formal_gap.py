"""Why a true-looking statement has no Coq proof: the ``formal_gap`` note of a claim or reading.

Every claim or reading whose verdict is ``supported`` (at any strength: exact, or interval or float numerics) and
which is not ``proved (formal)`` says why, with one reason from the fixed list :data:`FORMAL_GAP_REASONS`, declared
where the claim is declared (``claim(formal_gap=FormalGap(...))``, ``Reading(..., formal_gap=FormalGap(...))``).
The note is not evidence: it never enters a verdict. ``show`` prints it, the ledger JSON carries it, the book's
formal-proofs page lists every one, and a registry test (property_tests/formal/test_formal_gaps.py) fails on a
supported statement with neither a proof nor a gap, and on a gap left on a statement that is proved (formal).

>>> FormalGap("needs-null-set").words
'needs the null-set lemma: the zero set of a non-zero polynomial is Lebesgue-null (not in MathComp-Analysis 0.6.0)'
>>> FormalGap("false-in-general", "fails at n = 2", counterexample="RN.main").counterexample
'RN.main'
>>> FormalGap("proved-later")
Traceback (most recent call last):
    ...
ValueError: formal_gap reason 'proved-later' is not one of: false-in-general, needs-analysis, needs-null-set, \
not-mathematical, finite-instance, not-yet-proved, numerical-only
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Protocol

from .aliases import JSONObject

__all__ = ["FORMAL_GAP_REASONS", "FORMAL_GAP_MEANING", "FormalGap", "check_formal_gap", "formal_gap_problems"]

#: the reasons a supported (exact) statement may lack a Coq proof, and what each means
FORMAL_GAP_MEANING: dict[str, str] = {
    "false-in-general": "false in general: a counterexample (registered on the claim named) refutes the statement "
                        "for some size or input, so no proof for every size exists; what is checked here is a "
                        "restricted instance",
    "needs-analysis": "needs real analysis that MathComp-Analysis 0.6.0 lacks (named in the detail)",
    "needs-null-set": "needs the null-set lemma: the zero set of a non-zero polynomial is Lebesgue-null "
                      "(not in MathComp-Analysis 0.6.0)",
    "not-mathematical": "not a mathematical statement (prose: a description, a design remark, a count of words)",
    "finite-instance": "a statement about finitely many concrete objects (given matrices, checkpoint floats, a "
                       "depth study's runs): a Coq proof would restate the exact computation that decides it",
    "not-yet-proved": "true for every size, but not proved here (the detail says what a proof needs)",
    "numerical-only": "numerical-only: the statement is about a computed quantity (a rate, a cosine, a trained or "
                      "random network's numbers), decided by certified or float numerics, not a theorem for every "
                      "size (the detail names the quantity)",
}
#: how :attr:`FormalGap.words` opens, before the detail, for the reasons whose detail is required
_LEAD = {"needs-analysis": "needs analysis that MathComp-Analysis 0.6.0 lacks",
         "numerical-only": "numerical-only: about a computed quantity",
         "finite-instance": "a statement about finitely many concrete objects",
         "not-yet-proved": "true for every size, not proved here"}
FORMAL_GAP_REASONS: tuple[str, ...] = tuple(FORMAL_GAP_MEANING)
#: reasons whose detail is required (what the library lacks; what the finite objects are; why not yet)
_NEEDS_DETAIL = ("needs-analysis", "finite-instance", "not-yet-proved", "false-in-general", "numerical-only")
_CLAIM_REF = re.compile(r"[A-Z][A-Z0-9]*\.[A-Za-z0-9][A-Za-z0-9.-]*(?::[A-Za-z0-9][A-Za-z0-9-]*)?")


@dataclass(frozen=True)
class FormalGap:
    """One reason from :data:`FORMAL_GAP_REASONS`, a detail in words, and for ``false-in-general`` the claim (or
    ``CLAIM.ID:reading``) whose counterexample shows it. A bad reason is a ValueError naming it."""

    reason: str
    detail: str = ""
    counterexample: str | None = None

    def __post_init__(self) -> None:
        if self.reason not in FORMAL_GAP_MEANING:
            raise ValueError(f"formal_gap reason {self.reason!r} is not one of: {', '.join(FORMAL_GAP_REASONS)}")
        if not isinstance(self.detail, str):
            raise TypeError(f"formal_gap {self.reason}: detail is words (a str), not {type(self.detail).__name__}")
        if self.reason in _NEEDS_DETAIL and not self.detail.strip():
            raise ValueError(f"formal_gap {self.reason} needs a detail: "
                             + ("what MathComp-Analysis 0.6.0 lacks" if self.reason == "needs-analysis" else
                                "which concrete objects" if self.reason == "finite-instance" else
                                "where it fails" if self.reason == "false-in-general" else
                                "which computed quantity" if self.reason == "numerical-only" else
                                "why it is not proved"))
        if self.reason == "false-in-general":
            if not isinstance(self.counterexample, str) or not _CLAIM_REF.fullmatch(self.counterexample):
                raise ValueError("formal_gap false-in-general names the claim whose counterexample shows it: "
                                 f"counterexample='CLAIM.ID' or 'CLAIM.ID:reading', not {self.counterexample!r}")
        elif self.counterexample is not None:
            raise ValueError(f"formal_gap {self.reason}: counterexample= belongs to false-in-general only")

    @property
    def claim_ref(self) -> tuple[str, str] | None:
        """(claim id, reading key) of the counterexample named by a false-in-general gap ("literal": headline)."""
        if self.counterexample is None:
            return None
        cid, _, key = self.counterexample.partition(":")
        return cid, key or "literal"

    @property
    def words(self) -> str:
        """The reason's meaning, then the detail (and the counterexample's claim)."""
        if self.reason == "false-in-general":
            out = f"false in general (counterexample: {self.counterexample})"
        else:
            out = _LEAD.get(self.reason, FORMAL_GAP_MEANING[self.reason])
        return f"{out}: {self.detail}" if self.detail else out

    def to_json(self) -> JSONObject:
        return {"reason": self.reason, "detail": self.detail, "counterexample": self.counterexample}

    @classmethod
    def from_json(cls, d: object) -> "FormalGap | None":
        if d is None:
            return None
        if not isinstance(d, dict):
            raise ValueError(f"a formal_gap record is an object, not {type(d).__name__}")
        return cls(str(d.get("reason")), str(d.get("detail") or ""), d.get("counterexample"))


def check_formal_gap(gap: object, owner: str) -> FormalGap | None:
    """The gap as declared (a :class:`FormalGap` or None); anything else is a TypeError naming the owner."""
    if gap is None or isinstance(gap, FormalGap):
        return gap
    raise TypeError(f"{owner}: formal_gap is a FormalGap(reason, detail) with reason one of "
                    f"{', '.join(FORMAL_GAP_REASONS)}, not {type(gap).__name__} {gap!r}")


class _ReadingLike(Protocol):
    """What :func:`formal_gap_problems` reads of a reading's result (a ReadingResult has it)."""

    key: str
    verdict: str
    strength: str
    formal_gap: FormalGap | None


def formal_gap_problems(results: Iterable[tuple[str, _ReadingLike]], known: Iterable[str]) -> dict[str, list[str]]:
    """What is wrong with the formal gaps of these (claim id, reading result) pairs, by kind:

    * ``missing``: supported (at any strength: exact, interval, float), not proved (formal), and no gap;
    * ``stale``: a gap on a statement proved (formal) (its reason no longer holds: remove it);
    * ``unknown_counterexample``: a false-in-general gap naming no claim (or reading) in ``known`` ("CLAIM.ID" or
      "CLAIM.ID:reading").

    A gap is required on supported (any strength: a statement resting on interval or float numerics says so with
    ``numerical-only``) and allowed on any other verdict but proved (formal): a statement whose
    verdict depends on the run's size (a checkpoint's sites, ``--quick``) may be supported (exact) on one run and
    conditional on another, and keeps its reason on both."""
    names = set(known)
    out: dict[str, list[str]] = {"missing": [], "stale": [], "unknown_counterexample": []}
    for cid, rr in results:
        where = cid if rr.key == "literal" else f"{cid}:{rr.key}"
        gap = rr.formal_gap
        proved = (rr.verdict, rr.strength) == ("proved", "formal")
        supported = rr.verdict == "supported"
        if gap is None:
            if supported:
                out["missing"].append(where)
            continue
        if proved:
            out["stale"].append(f"{where} (proved (formal), gap {gap.reason})")
        if gap.counterexample is not None and gap.counterexample not in names:
            out["unknown_counterexample"].append(f"{where} names {gap.counterexample}")
    return out
