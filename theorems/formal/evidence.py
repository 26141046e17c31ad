"""Formal evidence for the ledger (the suite's part ``formal``): every lemma of :mod:`theorems.formal` becomes
``formal`` evidence on the claim (and reading) it is registered for.

Coq is asked once per process (:func:`theorems.formal.check`, cached). A lemma counts only when the axiom policy
accepts it: Coq reports it "Closed under the global context", or lists only the allowed classical axioms
(``theorems.formal.ALLOWED_AXIOMS``); the evidence names the axioms it rests on, in its summary
("[formal, no axioms]" or "[formal, classical: propositional and functional extensionality, choice]") and in
``numbers["axioms"]`` (full Coq names). The ledger asks in tuple mode (:func:`theorems.formal.check`'s default: one
``Print Assumptions`` of the tuple of the lemmas of the files that load MathComp-Analysis, about 2 s against 55 s of
CPU lemma by lemma): such a lemma's axioms are its tuple's, an upper bound of its own, and the evidence says so
("[formal, at most classical: ...]", ``numbers["axioms_upper_bound"]`` true); ``make formal`` lists each lemma's
own. Without ``coqc`` (or MathComp) the evidence says so (holds None) and the verdict falls to what the rest of the
evidence earns.
"""
from __future__ import annotations

from .. import formal
from ..framework import CheckContext, Evidence, SuitePart, formal_proof

__all__ = ["formal_evidence", "attached_readings", "SUITE_PART"]


def formal_evidence(claim_id: str, reading_key: str, ctx: CheckContext) -> list[Evidence]:
    """Formal evidence of every lemma registered for (claim, reading); "literal" is the headline."""
    lemmas = [lm for lm in formal.LEMMAS if lm.claim == claim_id and (lm.reading or "literal") == reading_key]
    if not lemmas:
        return []
    results = formal.check()
    version = formal.coq_version()
    out = []
    for lm in lemmas:
        r = results.get(lm.name)
        accepted = None if r is None else r.accepted
        reason = "not checked" if r is None else r.reason
        axioms = () if r is None else tuple(r.axioms)
        bound = r is not None and r.axioms_bound  # the axioms of the tuple it was asked in: it rests on at most these
        coqchk = None if r is None else r.coqchk  # the independent kernel re-check make formal stored, if any
        label = f"{lm.name} [formal, {formal.axiom_words(axioms, upper_bound=bound)}]" if accepted else lm.name
        out.append(formal_proof(label, accepted, statement=lm.statement, concrete=lm.scope == "complete",
                                reason=reason, coq=version,
                                numbers={"file": f"theorems/formal/{lm.file}", "scope_declared": lm.scope,
                                         "axioms": list(axioms), "axioms_upper_bound": bound,
                                         "coqchk": coqchk}))
    return out


#: called after the other evidence of a reading (theorems.framework.records): check() may wait for the background
#: compile the ledger started (theorems.formal.start_check), and the reading's other checks run meanwhile
formal_evidence.late = True  # type: ignore[attr-defined]


def attached_readings() -> set[tuple[str, str]]:
    """(claim id, reading key) of every registered lemma."""
    return {(lm.claim, lm.reading or "literal") for lm in formal.LEMMAS}


#: the formal layer's part of the suite (entry point ``collapse_verify.suite: formal``): its evidence comes after the
#: claims' own checks and before the numeric witnesses'
SUITE_PART = SuitePart("formal", 10, providers=(formal_evidence,))
