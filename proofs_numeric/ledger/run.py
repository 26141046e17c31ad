"""Running the ledger: every claim, its verdicts, and the provenance of the run.

``ledger.json`` is reproducible: every random choice is seeded from a stable hash of a name
(:func:`theorems.framework.stable_seed`), and timings live only in keys whose names contain
``seconds``. Two runs on the same commit give the same JSON apart from those keys and the
``started`` time.
"""
from __future__ import annotations

import datetime as _dt
import sys
import time
import traceback
from typing import Callable

from proofs_numeric.ledger.cache import ledger_key
from proofs_numeric.ledger.load import registry
from proofs_numeric.ledger.render import tally
from theorems import formal
from theorems.exact.blas_runtime import single_threaded_blas
from theorems.formal import coq_version
from theorems.framework import (
    CheckContext,
    Claim,
    ClaimResult,
    counterexample_files,
    recording,
    run_claim,
)
from theorems.framework.memo import head_commit, library_versions

__all__ = ["provenance", "run_ledger", "ledger_json", "seeds_of", "referenced_counterexamples"]

def provenance(started: float, duration: float, seeds: dict[str, int]) -> dict:
    """Where this ledger came from: commit, library versions, the seeds its claims drew, start time, duration."""
    return {
        "commit": head_commit() or "unknown",
        "versions": {**library_versions(), "coq": coq_version()},
        "seeds": dict(sorted(seeds.items())),
        "started": _dt.datetime.fromtimestamp(started, _dt.timezone.utc).isoformat(timespec="seconds"),
        "duration_seconds": round(duration, 3),
    }


def run_ledger(claims: list[Claim], ctx: CheckContext,
               progress: Callable[[int, int, Claim, ClaimResult | None], None] | None = None,
               before_formal: Callable[[], list[str]] | None = None) -> tuple[list[ClaimResult], list[str]]:
    """Run every claim; returns the results (in the order of ``claims``) and the errors (a check raised, a stored
    counterexample no longer refutes, evidence contradicts itself, or a stored counterexample file is never re-read).

    A cold run is dominated by compiling the Coq proofs, whose results only the formal evidence reads: when a
    claim has formal lemmas, their check (:func:`theorems.formal.start_check`: coqc compiles, then the queries)
    starts at once in the background, the claims without formal lemmas run first, and each claim's formal evidence
    is asked for after its other evidence (``late``); ``progress`` sees the claims in the order they run. The claims
    run on one BLAS thread (:class:`~theorems.exact.blas_runtime.single_threaded_blas`): coqc has the other core, and
    two BLAS threads on a busy 2-core machine made a 384 x 384 SVD 20 times slower (0.9 s against 0.04 s, measured
    2026-12-06 at load 6). An interrupted run ends the background compile (its coqc processes) before it returns.

    ``before_formal``: work to run once the claims without formal lemmas are done and before the first claim that
    waits for Coq (verify's measurement for the book), so that it overlaps the background compile instead of
    following the whole ledger; its errors join the ledger's."""
    with_formal = {lm.claim for lm in formal.LEMMAS}
    background = formal.start_check() if any(c.id in with_formal for c in claims) else None
    order = sorted(range(len(claims)), key=lambda k: claims[k].id in with_formal)  # stable
    first_formal = next((i for i, k in enumerate(order) if claims[k].id in with_formal), len(order))
    hook_errors: list[str] = []
    try:
        with single_threaded_blas():
            done = _run_in_order(claims, ctx, order[:first_formal], progress)
            if before_formal is not None:
                hook_errors = before_formal()
            done.update(_run_in_order(claims, ctx, order[first_formal:], progress, first_formal))
    finally:
        if background is not None:
            formal.cancel_check()  # a no-op once it has ended (every formal claim waited for it)
    results = [done[k][0] for k in range(len(claims))]
    errors = [e for k in range(len(claims)) for e in done[k][1]] + hook_errors
    if len(claims) and {c.id for c in claims} >= _paper_claim_ids(claims):
        unread = sorted(set(counterexample_files()) - referenced_counterexamples(results))
        ran_all = all(not r.error for r in results)
        if unread and ran_all:
            errors.append("stored counterexample files never re-read by any claim: " + ", ".join(unread))
    return results, errors


def _run_in_order(claims: list[Claim], ctx: CheckContext, order: list[int],
                  progress: Callable[[int, int, Claim, ClaimResult | None], None] | None, start: int = 0
                  ) -> dict[int, tuple[ClaimResult, list[str]]]:
    """{index in claims: (its result, its errors)}, running claims[k] for k in ``order`` (numbered from ``start``)."""
    done: dict[int, tuple[ClaimResult, list[str]]] = {}
    for i, k in enumerate(order, start):
        c = claims[k]
        if progress:
            progress(i, len(claims), c, None)
        with recording() as rec:  # what a claim that crashed drew and read is kept with its error
            try:
                r = run_claim(c, ctx)
            except Exception as e:  # the suite itself failed on this claim
                r = ClaimResult(c, [], 0.0, error=f"{type(e).__name__}: {e}", seeds=rec.seeds,
                                referenced_counterexamples=rec.counterexamples)
                print(traceback.format_exc(), file=sys.stderr)
        done[k] = (r, [f"{c.id}: {r.error}"] if r.error else [])
        if progress:
            progress(i + 1, len(claims), c, r)
    return done


def seeds_of(results: list[ClaimResult]) -> dict[str, int]:
    """The seeds the results' claims drew (name -> seed; a name gives one seed, so the union is well defined)."""
    return {name: s for r in results for name, s in r.seeds.items()}


def referenced_counterexamples(results: list[ClaimResult]) -> set[str]:
    """The stored counterexample files the results' claims re-checked."""
    return {p for r in results for p in r.referenced_counterexamples}


def _paper_claim_ids(claims: list[Claim]) -> set:
    return {c.id for c in registry()}


def ledger_json(results: list[ClaimResult], ctx: CheckContext, started: float, errors: list[str]) -> dict:
    """The ledger as JSON; ``provenance.key`` says what decided it (:func:`.cache.ledger_key`), so the book can
    reuse it exactly when nothing has changed."""
    prov = provenance(started, time.time() - started, seeds_of(results))
    prov["key"] = ledger_key(dps=ctx.dps, quick=ctx.quick, claim_ids=[r.claim.id for r in results])
    return {"summary": tally(results), "claims": [r.to_json() for r in results], "dps": ctx.dps, "quick": ctx.quick,
            "errors": errors, "provenance": prov}


# --- the terminal ledger -------------------------------------------------------------------
