"""Running the ledger: every claim, its verdicts, and the provenance of the run.

``ledger.json`` is reproducible: every random choice is seeded from a stable hash of a name
(:func:`theorems.framework.stable_seed`), and timings live only in keys whose names contain
``seconds``. Two runs on the same commit give the same JSON apart from those keys and the
``started`` time.
"""
from __future__ import annotations

import collections
import contextlib
import dataclasses
import datetime as _dt
import os
import signal
import sys
import threading
import time
import traceback
from typing import Callable, Collection, Sequence

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
from theorems.framework.memo import computing_fresh, head_commit, library_versions, reading_store

__all__ = ["provenance", "run_ledger", "ledger_json", "seeds_of", "referenced_counterexamples", "claim_task",
           "group_task", "signals_handled_by"]

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
               workers: int = 1, say: Callable[[str], None] | None = None,
               together: Sequence[Collection[str]] = (), families: bool = False
               ) -> tuple[list[ClaimResult], list[str]]:
    """Run every claim; returns the results (in the order of ``claims``) and the errors (a check raised, a stored
    counterexample no longer refutes, evidence contradicts itself, or a stored counterexample file is never re-read).

    A cold run used to be dominated by compiling the Coq proofs, whose results only the formal evidence reads: when a
    claim has formal lemmas, their check (:func:`theorems.formal.start_check`: coqc compiles what is stale, then the
    queries, or both read from ``_build/`` where ``make verify``'s ``formal-prepare`` stored them) starts at once in
    the background, the claims without formal lemmas run first, and each claim's formal evidence is asked for after
    its other evidence (``late``); ``progress`` sees the claims in the order they run (with ``workers``: as they
    finish). The claims run on one BLAS thread each (:class:`~theorems.exact.blas_runtime.single_threaded_blas`):
    two BLAS threads on a busy 2-core machine made a 384 x 384 SVD 20 times slower (0.9 s against 0.04 s, measured
    2026-12-06 at load 6). An interrupted run ends the background compile (its coqc processes) before it returns.

    ``workers`` > 1: the claims run in that many worker processes (:class:`~.model_check.DaskPool`, the suite's one
    executor of parallel runs), each looked up by id in the worker's own registry (tasks: see ``together`` and
    ``families``); a claim with
    formal lemmas is handed out only once the background check has ended, so the workers read its stored verdicts
    instead of asking Coq again. ``together``: groups of claim ids that read the same expensive part (the trained
    model's measurement, :func:`proofs_numeric.witnesses.real_model.claims_sharing_parts`): each group present is
    one task, run in one worker, which computes the part once; the groups go first (a few tasks are in flight
    at a time, so a group held back for Coq runs next once the check has ended, not after every other claim).
    ``families``: the other claims in one task per family (``RN``, ``DONG``, ...), whose claims share cached work
    (two workers running claims one by one spent 67.5 s of CPU where one process spent 47.3 s). A
    claim a worker does not know (registered only in this process), or whose worker died, runs here afterwards; a
    pool that cannot start leaves the whole run to this process (``say`` tells why).
    Verdicts do not depend on which process ran a claim: every seed comes from a stable hash of a name
    (property_tests/framework/test_claims.py compares the two ways)."""
    with_formal = {lm.claim for lm in formal.LEMMAS}
    background = formal.start_check() if any(c.id in with_formal for c in claims) else None
    order = sorted(range(len(claims)), key=lambda k: claims[k].id in with_formal)  # stable
    first_formal = next((i for i, k in enumerate(order) if claims[k].id in with_formal), len(order))
    try:
        done = _run_in_pool(claims, ctx, order, first_formal, progress, workers, background, say, together,
                            families) if workers > 1 and len(claims) > 1 else None
        if done is None:
            with single_threaded_blas():
                done = _run_in_order(claims, ctx, order, progress)
    finally:
        if background is not None:
            formal.cancel_check()  # a no-op once it has ended (every formal claim waited for it)
    results = [done[k][0] for k in range(len(claims))]
    errors = [e for k in range(len(claims)) for e in done[k][1]]
    if len(claims) and {c.id for c in claims} >= _paper_claim_ids(claims):
        unread = sorted(set(counterexample_files()) - referenced_counterexamples(results))
        ran_all = all(not r.error for r in results)
        if unread and ran_all:
            errors.append("stored counterexample files never re-read by any claim: " + ", ".join(unread))
    return results, errors


def _run_one(c: Claim, ctx: CheckContext) -> tuple[ClaimResult, list[str]]:
    """One claim's result and its errors (a crash of the suite on it is kept as the result's error)."""
    with recording() as rec:  # what a claim that crashed drew and read is kept with its error
        try:
            r = run_claim(c, ctx)
        except Exception as e:  # the suite itself failed on this claim
            r = ClaimResult(c, [], 0.0, error=f"{type(e).__name__}: {e}", seeds=rec.seeds,
                            referenced_counterexamples=rec.counterexamples)
            print(traceback.format_exc(), file=sys.stderr)
    return r, [f"{c.id}: {r.error}"] if r.error else []


def _run_in_order(claims: list[Claim], ctx: CheckContext, order: list[int],
                  progress: Callable[[int, int, Claim, ClaimResult | None], None] | None, start: int = 0
                  ) -> dict[int, tuple[ClaimResult, list[str]]]:
    """{index in claims: (its result, its errors)}, running claims[k] for k in ``order`` (numbered from ``start``)."""
    done: dict[int, tuple[ClaimResult, list[str]]] = {}
    for i, k in enumerate(order, start):
        c = claims[k]
        if progress:
            progress(i, len(claims), c, None)
        done[k] = _run_one(c, ctx)
        if progress:
            progress(i + 1, len(claims), c, done[k][0])
    return done


def claim_task(claim_id: str, ctx: CheckContext, fresh: bool = True, int_digits: int | None = None
               ) -> tuple[ClaimResult, list[str]] | None:
    """A worker's task: the claim with this id in the worker's registry, run on one BLAS thread, in the caller's
    conditions: ``fresh`` inside :func:`~theorems.framework.memo.computing_fresh` (every value computed by this run,
    none read from the results store), ``int_digits`` Python's limit on int/str conversions (0: none; ``verify``
    lifts it, so that witnesses at ``--dps`` 5000 print). Its result without the claim object (the caller puts its
    own back), or None when the worker knows no such claim."""
    from proofs_numeric.ledger.load import get
    try:
        c = get(claim_id)
    except KeyError:
        return None
    old_digits = sys.get_int_max_str_digits()
    if int_digits is not None:
        sys.set_int_max_str_digits(int_digits)
    try:
        with single_threaded_blas(), (computing_fresh() if fresh else contextlib.nullcontext()):
            r, errors = _run_one(c, ctx)
    finally:
        sys.set_int_max_str_digits(old_digits)
    return dataclasses.replace(r, claim=None), errors  # type: ignore[arg-type]  # the caller restores it


def group_task(claim_ids: tuple[str, ...], ctx: CheckContext, fresh: bool = True, int_digits: int | None = None
               ) -> list[tuple[ClaimResult, list[str]] | None]:
    """:func:`claim_task` of each id in turn, in one worker (claims that read the same expensive part compute it
    once)."""
    return [claim_task(i, ctx, fresh, int_digits) for i in claim_ids]


def _units(claims, order, first_formal, together, families: bool = False
           ) -> tuple[list[list[int]], list[list[int]]]:
    """The tasks (lists of indices into ``claims``) handed out at once and those handed out once the Coq check has
    ended. Each group of ``together`` present is one task, whole (its claims share an expensive part), first. The
    other claims: with ``families``, one task per family (the id's prefix: ``RN``, ``DONG``, ...; claims of a family
    share cached work), split into its claims without and with formal lemmas, the larger families first; else one
    task per claim. A task is held back when any of its claims has formal lemmas (``order[first_formal:]``)."""
    late = set(order[first_formal:])
    place = {claims[k].id: k for k in order}
    groups = [sorted((place[i] for i in g if i in place), key=order.index) for g in together]
    groups = [g for g in groups if len(g) > 1]
    grouped = {k for g in groups for k in g}
    rest = [k for k in order if k not in grouped]
    if families:
        by_family: dict[str, list[int]] = {}
        for k in rest:
            by_family.setdefault(claims[k].id.split(".")[0], []).append(k)
        parts = [[k for k in fam if (k in late) == held] for fam in by_family.values() for held in (False, True)]
        singles = sorted((p for p in parts if p), key=len, reverse=True)
    else:
        singles = [[k] for k in rest]
    units = groups + singles
    return [u for u in units if not late & set(u)], [u for u in units if late & set(u)]


def _run_in_pool(claims, ctx, order, first_formal, progress, workers, background, say, together=(),
                 families=False) -> dict[int, tuple[ClaimResult, list[str]]] | None:
    """``_run_in_order``'s result with the claims run by ``workers`` worker processes (see :func:`run_ledger`);
    None when the pool cannot start."""
    from concurrent.futures import FIRST_COMPLETED, wait
    why = _no_loopback()
    if why is not None:  # Dask's scheduler would wait 30 s for a connection that cannot be made
        if say:
            say(f"verify: no worker processes: {why}; running every claim in this process")
        return None
    try:
        pool = _start_pool(workers)
    except Exception as e:  # noqa: BLE001 - a sandbox that refuses processes or sockets: the serial run still works
        if say:
            say(f"verify: the {workers} worker processes could not start ({type(e).__name__}: {str(e)[:200]}); "
                "running every claim in this process")
        return None
    fresh = not reading_store()  # the workers compute as this process would (verify: every value afresh)
    digits = sys.get_int_max_str_digits()
    done: dict[int, tuple[ClaimResult, list[str]]] = {}
    here: list[int] = []  # claims a worker did not know or could not run: run in this process afterwards
    futures: dict = {}
    # the pool took about 2.5 s to start: a Coq check reading stored verdicts has ended by now (0.7 s), and then
    # nothing is held back (a family is not split by formal lemmas)
    held = background is not None and background.is_alive()
    now, waiting = _units(claims, order, first_formal if held else len(order), together, families)
    pending = collections.deque(now)
    finished = 0
    try:
        while futures or pending or waiting:
            if waiting and (background is None or not background.is_alive()):
                pending.extendleft(reversed(waiting))  # next: a group (the longest task) must not wait behind the rest
                waiting = []
            # a few tasks in flight at a time (one more than the workers, so none idles between two), the rest held
            # here: a task put ahead of the others (above) then runs next, not after everything handed out before it
            while pending and len(futures) <= workers:
                u = pending.popleft()
                futures[pool.submit(group_task, tuple(claims[k].id for k in u), ctx, fresh, digits)] = u
            if not futures:
                time.sleep(0.2)  # every task held back waits for the Coq check
                continue
            ready, _ = wait(list(futures), timeout=0.2, return_when=FIRST_COMPLETED)
            for f in ready:
                unit = futures.pop(f)
                try:
                    outs = f.result()
                except Exception as e:  # noqa: BLE001 - a worker that died on it (rescheduled, died again)
                    if say:
                        ids = [claims[k].id for k in unit]
                        named = ", ".join(ids[:4]) + (f" and {len(ids) - 4} more" if len(ids) > 4 else "")
                        say(f"verify: {named}: the worker failed ({type(e).__name__}); running "
                            f"{'them' if len(unit) > 1 else 'it'} here")
                    here.extend(unit)
                    continue
                for k, out in zip(unit, outs, strict=True):
                    if out is None:
                        here.append(k)
                        continue
                    r, errors = out
                    done[k] = (dataclasses.replace(r, claim=claims[k]), errors)
                    finished += 1
                    if progress:
                        progress(finished, len(claims), claims[k], done[k][0])
        pool.shutdown()
    except BaseException:
        _shut_down_interrupted(pool)
        raise
    if here:
        with single_threaded_blas():
            done.update(_run_in_order(claims, ctx, here, progress, finished))
    return done


def _no_loopback() -> str | None:
    """Why this process cannot open a TCP connection to itself on 127.0.0.1 (the local Dask cluster needs one), or
    None when it can."""
    import socket
    try:
        with socket.create_server(("127.0.0.1", 0)) as server:
            with socket.create_connection(server.getsockname(), timeout=2):
                return None
    except OSError as e:
        return f"no TCP connection on 127.0.0.1 ({type(e).__name__}: {e})"


@contextlib.contextmanager
def signals_handled_by(handler, signals=(signal.SIGINT, signal.SIGTERM)):
    """Within the block, ``handler(signum, frame)`` handles ``signals``; the previous handlers come back after it. Off
    the main thread (where Python cannot set a handler) nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {sig: signal.signal(sig, handler) for sig in signals}
    try:
        yield
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)


def _start_pool(workers: int):
    """A :class:`~.model_check.DaskPool` of ``workers`` local processes, started with Ctrl-C and SIGTERM held back
    (in the main thread): a signal during the start-up (about 2.5 s) would leave a cluster half made, which prints
    tracebacks at exit. A held signal is acted on once the pool exists: the pool is closed, then KeyboardInterrupt."""
    from proofs_numeric.ledger.model_check import DaskPool
    held: list[int] = []
    with signals_handled_by(lambda n, f: held.append(n)):
        pool = DaskPool("local", workers)
    if held:
        _shut_down_interrupted(pool)
        raise KeyboardInterrupt
    return pool


def _shut_down_interrupted(pool) -> None:
    """Close the pool of an interrupted run (its tasks cancelled, the close bounded); a further Ctrl-C or SIGTERM
    meanwhile ends the workers and this process at once, with one line (exit 130)."""
    def now(n, f):
        pool.kill_now()
        print("collapse-verify: interrupted again, stopped at once", file=sys.stderr, flush=True)
        os._exit(130)
    with signals_handled_by(now):
        pool.shutdown(cancel=True)


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
