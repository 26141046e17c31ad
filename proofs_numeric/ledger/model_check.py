r"""``check CLAIM --model DIR [DIR ...]``: every claim matching CLAIM at every site of the user's model(s), as JSON
Lines records, on local worker processes or a Dask cluster.

The forward pass of each (checkpoint, input) runs one layer at a time (:func:`proofs_numeric.model.sites.site_tasks`);
every site it yields, with the readings declared at that site's kind, is a task evaluated by
:func:`proofs_numeric.model.sites.evaluate` -- the claims' own predicates
(:func:`theorems.framework.decide_on_instance`), not a second implementation. Tasks run

* in this process (``workers=1``),
* on local worker processes (``concurrent.futures.ProcessPoolExecutor``; a worker that dies breaks the pool, which
  is replaced and the lost tasks resubmitted), or
* on a Dask distributed cluster (``scheduler=ADDRESS``, or ``"local"`` for a ``dask.distributed.LocalCluster``; the
  scheduler reschedules a task whose worker died).

Only a site's activations (a layer's ``W_O`` by reference: a worker on the same filesystem reads that layer by memory
map) and the readings' ids travel. Several checkpoints run their forward passes in parallel (threads: numpy releases
the GIL in its products), each holding one layer's weights and the activations of the sites in flight.

Records (one JSON object per line, appended, flushed and fsync'ed as each task finishes, so an interrupted run leaves
a valid file; the first line marks the file as this kind): ``checkpoint``, ``config_hash``, ``family``,
``token_ids``, ``input``, ``site`` (the typed site id, e.g. ``L0.ln1.input``: :mod:`proofs_numeric.model.site_ids`),
``site_label``, ``site_kind``, ``layer``, ``claim``, ``reading``, ``statement``,
``on_this_instance`` (holds / counterexample / premise-fails / undecided, or None with ``not_checked``: why the
instance could not be built at this site), ``reason``, ``hypotheses``, ``conclusion`` (the ``check --json`` words),
``about`` (``level``: float-computation or network, ``how``, numerical ranks beside exact ones, ``caution``),
``arithmetic``, ``instance`` (its scalar facts), ``numbers`` (labelled float measurements), ``seconds``. A record is
identified by :func:`proofs_numeric.model.sites.record_key` (checkpoint, input, site, claim, reading, level); ``resume``
skips the keys already written, so an interrupted run resumed gives the same set of records.
"""
from __future__ import annotations

import fnmatch
import json
import multiprocessing
import os
import queue
import sys
import threading
import time
from collections import Counter, defaultdict
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proofs_numeric.ledger.load import load, registry
from proofs_numeric.model import sites as S
from proofs_numeric.model.checkpoint import CheckpointError
from proofs_numeric.witnesses import real_model as RM
from theorems.framework import REGISTRY, instance_form

__all__ = ["canonical_records", "without_timings", "DEFAULT_CLAIMS",
           "RunSpec", "Summary", "select_claims", "plan_claims", "run", "run_task",
           "open_record_stream", "read_records", "RecordAppender", "RECORD_KIND", "VERDICT_COLUMNS", "LocalPool",
           "DaskPool", "SerialPool", "summary_json", "CheckpointFailure", "SchedulerError", "consume_task"]

#: the claims `real-model` runs (today's real-model measurements, now claims at sites)
DEFAULT_CLAIMS = RM.DEFAULT_CLAIMS
#: the marker line of a record stream (the same form as the write rule's RecordStream)
RECORD_KIND = "model-check"
#: the columns of the summary: what one site says about a reading
VERDICT_COLUMNS = ("holds", "counterexample", "exceptional-point", "premise-fails", "undecided", "not-checked")
#: tasks in flight per worker (bounds the activations held by queued tasks)
IN_FLIGHT_PER_WORKER = 2
#: a task whose worker died is resubmitted this many times before it is an error
MAX_ATTEMPTS = 3
#: seconds to wait for the Dask scheduler of --scheduler ADDRESS to answer
SCHEDULER_TIMEOUT = 30


def without_timings(rec):
    """``rec`` (a JSON value) without its timing keys (every key with "seconds" in it), at every depth."""
    if isinstance(rec, dict):
        return {k: without_timings(v) for k, v in rec.items() if "seconds" not in k}
    if isinstance(rec, list):
        return [without_timings(v) for v in rec]
    return rec


def canonical_records(records) -> list[str]:
    """The records as sorted JSON texts without the keys that hold timings: two runs (serial, workers, Dask,
    resumed) gave the same records exactly when these lists are equal."""
    return sorted(json.dumps(without_timings(r), sort_keys=True) for r in records)


# --------------------------------------------------------------------------------------------- claims

def select_claims(pattern: str) -> list:
    """The registered claims whose id matches the glob(s) (comma-separated), in id order."""
    pats = [p.strip() for p in str(pattern).split(",") if p.strip()]
    claims = registry()
    return [c for c in claims if any(fnmatch.fnmatchcase(c.id, p) for p in pats)]


def plan_claims(claims) -> tuple[list, list]:
    """(claims with readings declared at site kinds, [(claim id, why it is not evaluated at sites)])."""
    at, not_at = [], []
    for c in claims:
        if S.site_kinds_of(c):
            at.append(c)
            continue
        whys = {why for _, why in (instance_form(c, r) for r in c.all_readings()) if why is not None}
        not_at.append((c.id, S.NOT_A_SITE if not whys else sorted(whys)[0]))
    return at, not_at


# --------------------------------------------------------------------------------------------- records on disk

class RecordAppender:
    """A JSON Lines record stream: a marker line ``{"collapse_verify": {"kind": "model-check", "version": 1}}`` first,
    then one record per line, each appended, flushed and fsync'ed (an interrupted run keeps every record written).
    An existing stream is continued (a torn last line, from an interrupted write, is dropped first)."""

    def __init__(self, path, resume: bool):
        self.path = Path(path)
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        if not fresh and not resume:
            raise FileExistsError(f"{path} exists; give --resume {path} to continue it, or another path")
        if not fresh:
            with open(self.path, "rb+") as f:
                data = f.read()
                if data and not data.endswith(b"\n"):
                    f.truncate(data.rfind(b"\n") + 1)
        self._f = open(self.path, "a", encoding="utf-8")
        if fresh:
            self._line({"collapse_verify": {"kind": RECORD_KIND, "version": 1}})

    def _line(self, obj) -> None:
        self._f.write(json.dumps(obj, default=str) + "\n")
        self._f.flush()
        os.fsync(self._f.fileno())

    def write(self, record: dict) -> None:
        self._line(record)

    def close(self) -> None:
        self._f.close()


def open_record_stream(path, resume: bool):
    """The record stream of ``--jsonl`` / ``--resume`` (one function, so that the write rule's stream can replace it):
    an object with ``write(record)`` and ``close()``."""
    return RecordAppender(path, resume)


def read_records(path) -> list[dict]:
    """The complete records of a stream (the marker line, blank lines and a torn last line are dropped)."""
    out = []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if not line.endswith("\n"):
                    break  # a torn last line
                try:
                    obj = json.loads(line)
                except ValueError:
                    continue
                if isinstance(obj, dict) and "claim" in obj and "site" in obj:
                    out.append(obj)
    except FileNotFoundError:
        pass
    return out


# --------------------------------------------------------------------------------------------- executors

def run_task(site, items, common, seed, dps) -> list[dict]:
    """One task, wherever it runs: the claims' readings ``items`` decided at ``site`` (the registry is loaded in the
    worker first: the paper's claims, the plug-ins, the numeric instance forms)."""
    load()
    return S.evaluate(site, items, common, seed=seed, dps=dps, network_build=S.network_builder)


def _init_worker() -> None:
    load()


class SerialPool:
    """Tasks run at once in the submitting thread (``--workers 1``)."""

    name = "serial (this process)"

    def submit(self, fn, *args) -> Future:
        f: Future = Future()
        try:
            f.set_result(fn(*args))
        except Exception as e:  # handed to the consumer as the task's error
            f.set_exception(e)
        return f

    def shutdown(self, cancel: bool = False) -> None:
        pass


class LocalPool:
    """Local worker processes (``concurrent.futures.ProcessPoolExecutor``, forkserver start: no fork of a threaded
    parent). A worker process that dies breaks the pool: the pool is replaced and every task it lost is resubmitted,
    up to :data:`MAX_ATTEMPTS` times."""

    def __init__(self, workers: int):
        self.workers = workers
        self.name = f"{workers} local worker processes"
        self._lock = threading.Lock()
        self._gen = 0
        self._closed = False
        self.restarts = 0
        self._ex = self._new()

    def _new(self) -> ProcessPoolExecutor:
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        return ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context(method),
                                   initializer=_init_worker)

    def pids(self) -> list[int]:
        procs = getattr(self._ex, "_processes", None) or {}
        return list(procs)

    def _renew(self, gen: int) -> None:
        with self._lock:
            if gen != self._gen or self._closed:
                return
            old, self._ex = self._ex, self._new()
            self._gen += 1
            self.restarts += 1
        old.shutdown(wait=False, cancel_futures=True)

    def submit(self, fn, *args) -> Future:
        outer: Future = Future()
        self._submit(outer, fn, args, 1)
        return outer

    def _submit(self, outer, fn, args, attempt) -> None:
        while True:
            with self._lock:
                ex, gen = self._ex, self._gen
            try:
                inner = ex.submit(fn, *args)
                break
            except (BrokenProcessPool, RuntimeError) as e:
                if self._closed:
                    outer.set_exception(e)
                    return
                self._renew(gen)
        inner.add_done_callback(lambda f: self._done(f, outer, fn, args, attempt, gen))

    def _done(self, f, outer, fn, args, attempt, gen) -> None:
        if f.cancelled():
            if not outer.done():
                outer.cancel()
            return
        exc = f.exception()
        if isinstance(exc, BrokenProcessPool) and attempt < MAX_ATTEMPTS and not self._closed:
            self._renew(gen)
            self._submit(outer, fn, args, attempt + 1)
            return
        if exc is not None:
            outer.set_exception(exc)
        else:
            outer.set_result(f.result())

    def shutdown(self, cancel: bool = False) -> None:
        self._closed = True
        self._ex.shutdown(wait=not cancel, cancel_futures=cancel)


class DaskPool:
    """An existing Dask distributed cluster (``address``), or a ``LocalCluster`` of ``workers`` single-threaded worker
    processes (``address="local"``). The scheduler reschedules the tasks of a worker that died."""

    def __init__(self, address: str, workers: int, timeout: float | None = None):
        # lazy: dask.distributed costs ~0.8 s to import and only a --scheduler run uses it
        from dask.distributed import Client, LocalCluster
        timeout = SCHEDULER_TIMEOUT if timeout is None else timeout
        self.cluster = None
        if address == "local":
            self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                        dashboard_address=None)
            self.client = Client(self.cluster)
            self.name = f"a Dask LocalCluster of {workers} workers"
        else:
            try:
                self.client = Client(address, timeout=timeout)
            except (OSError, TimeoutError, ValueError, TypeError) as e:  # unreachable, refused, not an address
                raise SchedulerError(f"--scheduler {address}: no Dask scheduler answered within {timeout:g} s "
                                     f"({type(e).__name__}: {str(e)[:200]}); start one with `dask scheduler` and "
                                     "workers with `dask worker ADDRESS`, or give --scheduler local") from None
            self.name = f"the Dask cluster at {address}"

    def submit(self, fn, *args) -> Future:
        outer: Future = Future()
        fut = self.client.submit(fn, *args, pure=False)

        def done(f):
            try:
                outer.set_result(f.result())
            except BaseException as e:  # noqa: B902 - handed to the consumer as the task's error
                outer.set_exception(e)
        fut.add_done_callback(done)
        outer._dask = fut  # type: ignore[attr-defined]  # a private attribute keeps the dask future alive until done
        return outer

    def shutdown(self, cancel: bool = False) -> None:
        try:
            self.client.close()
        finally:
            if self.cluster is not None:
                self.cluster.close()


# --------------------------------------------------------------------------------------------- the run

class SchedulerError(Exception):
    """The Dask scheduler of ``--scheduler ADDRESS`` could not be reached (a usage error: nothing ran)."""


class CheckpointFailure(Exception):
    """A checkpoint that could not be read or run (named in the summary; the other checkpoints still run)."""


@dataclass
class RunSpec:
    """What one ``check --model`` run does."""

    models: list                 # checkpoint folders (None: the packaged all-MiniLM-L6-v2)
    claims: list                 # registered claims
    texts: dict | None = None
    ids: list | None = None
    length: int | None = None
    token_seed: int | None = None
    jsonl: str | None = None
    resume: bool = False
    workers: int = 1
    scheduler: str | None = None
    seed: int = 0
    dps: int = 50
    network_layers: int = S.NETWORK_LAYERS
    measure: bool = False
    progress: bool | None = None  # None: a bar on a terminal, one line per checkpoint otherwise
    readings: tuple | None = None


@dataclass
class Summary:
    """The outcome of a run: every record (the resumed ones included), the checkpoints and what was left out."""

    records: list = field(default_factory=list)
    checkpoints: list = field(default_factory=list)
    not_at_sites: list = field(default_factory=list)
    failures: dict = field(default_factory=dict)
    errors: list = field(default_factory=list)
    written: int = 0
    skipped: int = 0
    seconds: float = 0.0
    depth: dict = field(default_factory=dict)
    executor: str = ""
    interrupted: bool = False


def _label(folder) -> str:
    return RM.DEFAULT_MODEL if folder is None else str(folder)


def _open(folder):
    if folder is None:
        return RM.load()
    try:
        return S.open_model(folder)
    except CheckpointError as e:
        raise CheckpointFailure(str(e)) from None


def _keys_of(label, input_name, plan) -> set:
    return {(label, input_name, sid, cid, key, level) for sid, _, level, items in plan for cid, key in items}


class _Progress:
    """A bar on a terminal (tasks done / total, ETA), else one plain line per finished checkpoint."""

    def __init__(self, total: int, on: bool | None, stream=None):
        self.stream = stream or sys.stderr
        self.bar = self.stream.isatty() if on is None else on
        self.total, self.done = total, 0
        self._p = None
        if self.bar and total:
            # lazy: rich only when a progress bar is drawn (a terminal, or --progress bar)
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
            self._p = Progress(TextColumn("sites"), BarColumn(), MofNCompleteColumn(), TextColumn("ETA"),
                               TimeRemainingColumn(), console=Console(file=self.stream), transient=True)
            self._task = self._p.add_task("sites", total=total)
            self._p.start()

    def advance(self) -> None:
        self.done += 1
        if self._p is not None:
            self._p.advance(self._task)

    def line(self, text: str) -> None:
        if self._p is not None:
            self._p.console.print(text, markup=False, highlight=False)
        else:
            print(text, file=self.stream, flush=True)

    def close(self) -> None:
        if self._p is not None:
            self._p.stop()


def run(spec: RunSpec) -> Summary:
    """Run ``spec`` (see the module docstring); records go to ``spec.jsonl`` as they finish."""
    t_start = time.perf_counter()
    load()
    out = Summary()
    claims, out.not_at_sites = plan_claims(spec.claims)
    if spec.readings:
        keep = set(spec.readings)
        claims = [c for c in claims if keep & set(S.site_kinds_of(c))]
    existing = read_records(spec.jsonl) if (spec.jsonl and spec.resume) else []
    written = {S.record_key(r) for r in existing}
    # open every checkpoint and its inputs first: a failure is named and the others still run
    jobs = []
    for folder in spec.models:
        label = _label(folder)
        info: dict[str, Any] = {"checkpoint": label, "path": None, "error": None, "inputs": {}, "capped": {}}
        out.checkpoints.append(info)
        try:
            m = _open(folder)
            runs, capped = RM.prepare_inputs(m, spec.texts, spec.ids, spec.token_seed, spec.length)
        except (CheckpointFailure, CheckpointError, ValueError) as e:
            info["error"] = str(e)
            out.failures[label] = str(e)
            continue
        info.update(path=str(m.path), config_hash=S.config_hash(m.path), family=m.config.family,
                    norm=m.config.norm, n_layers=m.config.n_layers, d=m.config.d, H=m.config.H,
                    inputs={k: list(v) for k, v in runs.items()}, capped=capped,
                    kinds_absent={k: v for k, v in S.model_kinds(m).items() if v},
                    network={k: S.network_ok(m, v, spec.network_layers) for k, v in runs.items()})
        for name, ids in runs.items():
            plan = S.site_plan(m, ids, claims, spec.network_layers)
            if spec.readings:
                plan = [(sid, kind, level, [it for it in items if it[1] in spec.readings])
                        for sid, kind, level, items in plan]
                plan = [p for p in plan if p[3]]
            jobs.append((m, label, name, ids, plan))
    chosen = {c.id for c in claims}
    labels = {c["checkpoint"] for c in out.checkpoints}
    out.records = [r for r in existing if r.get("checkpoint") in labels and r.get("claim") in chosen
                   and (not spec.readings or r.get("reading") in spec.readings)]
    todo_keys = set().union(*[_keys_of(lb, nm, pl) for _, lb, nm, _, pl in jobs]) if jobs else set()
    out.skipped = len(todo_keys & written)
    total = sum(1 for _, lb, nm, _, pl in jobs for sid, _, level, items in pl
                if not all((lb, nm, sid, c, k, level) in written for c, k in items))
    pool = _pool(spec)  # before the stream: a scheduler that cannot be reached leaves no file behind
    sink = open_record_stream(spec.jsonl, spec.resume) if spec.jsonl else None
    out.executor = pool.name
    progress = _Progress(total, spec.progress)
    results: queue.Queue = queue.Queue()
    slots = threading.BoundedSemaphore(max(1, spec.workers) * IN_FLIGHT_PER_WORKER)
    stop = threading.Event()
    per_ckpt: dict = defaultdict(lambda: {"pending": 0, "forwards": 0, "records": Counter(), "t0": time.perf_counter()})
    for _, lb, *_ in jobs:
        per_ckpt[lb]["forwards"] += 1
    lock = threading.Lock()

    def forward(job) -> None:
        m, label, name, ids, plan = job
        try:
            if all(all((label, name, sid, c, k, level) in written for c, k in items) for sid, _, level, items in plan):
                return  # every record of this forward is written already: no forward pass
            common = S.common_fields(m, label, ids)
            depth: dict = {}
            for site, items in S.site_tasks(m, label, name, ids, claims, measure=spec.measure,
                                            network_layers=spec.network_layers, dps=spec.dps,
                                            weight_refs=not isinstance(pool, SerialPool), depth=depth):
                if stop.is_set():
                    return
                if spec.readings:
                    items = [it for it in items if it[1] in spec.readings]
                    if not items:
                        continue
                if all((label, name, site.id, c, k, site.level) in written for c, k in items):
                    continue
                slots.acquire()
                with lock:
                    per_ckpt[label]["pending"] += 1
                fut = pool.submit(run_task, site, items, common, spec.seed, spec.dps)
                fut.add_done_callback(lambda f, lb=label, s=site.id, it=items: results.put(("task", lb, s, it, f)))
            out.depth[(label, name)] = depth
        except BaseException as e:  # noqa: B902 - a checkpoint that fails to run is named, the others go on
            results.put(("failure", label, name, None, e))
        finally:
            results.put(("forward-done", label, name, None, None))

    threads = ThreadPoolExecutor(max(1, min(len(jobs), max(1, spec.workers)))) if jobs else None
    try:
        if isinstance(pool, SerialPool):  # one thread: forward and evaluation interleave in this process
            for job in jobs:
                forward_inline(job, forward, results, progress, out, sink, written, per_ckpt, slots, lock)
        else:
            for job in jobs:
                assert threads is not None  # made whenever there are jobs
                threads.submit(forward, job)
            outstanding_forwards = len(jobs)
            while outstanding_forwards or any(v["pending"] for v in per_ckpt.values()):
                kind, label, name, items, payload = results.get()
                if kind == "forward-done":
                    outstanding_forwards -= 1
                    per_ckpt[label]["forwards"] -= 1
                    _maybe_finished(label, per_ckpt, progress)
                    continue
                consume_task(kind, label, name, items, payload, progress, out, sink, written, per_ckpt, slots, lock)
                _maybe_finished(label, per_ckpt, progress)
    except KeyboardInterrupt:
        stop.set()
        out.interrupted = True
        pool.shutdown(cancel=True)
        pool = None
    finally:
        if threads is not None:
            threads.shutdown(wait=not out.interrupted, cancel_futures=True)
        if pool is not None:
            pool.shutdown()
        progress.close()
        if sink is not None:
            sink.close()
    out.seconds = time.perf_counter() - t_start
    return out


def forward_inline(job, forward, results, progress, out, sink, written, per_ckpt, slots, lock) -> None:
    """The serial path: the forward thread is this thread; each task's result is consumed as soon as it is made."""
    m, label, name, ids, plan = job
    th = threading.Thread(target=forward, args=(job,), daemon=True)
    th.start()
    while True:
        kind, lb, nm, items, payload = results.get()
        if kind == "forward-done":
            per_ckpt[lb]["forwards"] -= 1
            _maybe_finished(lb, per_ckpt, progress)
            break
        consume_task(kind, lb, nm, items, payload, progress, out, sink, written, per_ckpt, slots, lock)
        _maybe_finished(lb, per_ckpt, progress)
    th.join()


def consume_task(kind, label, name, items, payload, progress, out, sink, written, per_ckpt, slots, lock) -> None:
    """The main thread's handling of one finished task (or a checkpoint's failure): its records written once each
    (by record key), counted, the slot released. Public so that a test can interrupt a run while it writes."""
    if kind == "failure":
        msg = f"{type(payload).__name__}: {payload}" if not isinstance(payload, (CheckpointError, ValueError)) \
            else str(payload)
        out.failures[label] = msg
        for c in out.checkpoints:
            if c["checkpoint"] == label:
                c["error"] = msg
        return
    fut = payload
    with lock:
        per_ckpt[label]["pending"] -= 1
    slots.release()
    progress.advance()
    try:
        recs = fut.result()
    except BaseException as e:  # noqa: B902 - a task error is named with its site, the run goes on
        out.errors.append({"checkpoint": label, "site": name, "items": items,
                           "error": f"{type(e).__name__}: {str(e)[:500]}"})
        return
    for r in recs:
        k = S.record_key(r)
        if k in written:
            continue  # exactly once, even if a retried task delivered twice
        written.add(k)
        if sink is not None:
            sink.write(r)
        out.records.append(r)
        out.written += 1
        per_ckpt[label]["records"][r.get("on_this_instance") or "not-checked"] += 1


def _maybe_finished(label, per_ckpt, progress) -> None:
    st = per_ckpt[label]
    if st["forwards"] == 0 and st["pending"] == 0 and not st.get("reported"):
        st["reported"] = True
        if progress.bar:
            return
        counts = ", ".join(f"{k} {v}" for k, v in sorted(st["records"].items()))
        progress.line(f"{label}: {sum(st['records'].values())} records ({counts or 'none new'}) in "
                      f"{time.perf_counter() - st['t0']:.1f} s")


def _pool(spec: RunSpec):
    if spec.scheduler:
        return DaskPool(spec.scheduler, max(1, spec.workers))
    if spec.workers <= 1:
        return SerialPool()
    return LocalPool(spec.workers)


# --------------------------------------------------------------------------------------------- the summary

def _verdict(rec: dict) -> str:
    return rec.get("on_this_instance") or "not-checked"


def summary_rows(records) -> list[dict]:
    """Per (claim, reading, checkpoint, level): how many sites say holds / counterexample / premise-fails / undecided
    / not-checked, in claim order."""
    table: dict = defaultdict(Counter)
    for r in records:
        table[(r["claim"], r["reading"], r["checkpoint"], (r.get("about") or {}).get("level"))][_verdict(r)] += 1
    order = {c: i for i, c in enumerate(sorted(REGISTRY))}
    rows = []
    for (cid, key, ck, level), cnt in sorted(table.items(), key=lambda kv: (order.get(kv[0][0], 0), kv[0][1],
                                                                            str(kv[0][2]), str(kv[0][3]))):
        rows.append({"claim": cid, "reading": key, "checkpoint": ck, "level": level, "sites": sum(cnt.values()),
                     **{v: cnt.get(v, 0) for v in VERDICT_COLUMNS}})
    return rows


def summary_json(out: Summary, spec: RunSpec) -> dict:
    """The summary (``--json``): checkpoints, per-claim counts, what was not checked and why, errors."""
    reasons: dict = defaultdict(Counter)
    for r in out.records:
        if r.get("not_checked"):
            reasons[(r["claim"], r["reading"])][r["not_checked"]] += 1
    return {"checkpoints": out.checkpoints, "claims": summary_rows(out.records),
            "not_checked": [{"claim": c, "reading": k, "sites": n, "reason": why}
                            for (c, k), cnt in sorted(reasons.items()) for why, n in cnt.items()],
            "not_at_sites": [{"claim": c, "reason": why} for c, why in out.not_at_sites],
            "failures": out.failures, "errors": out.errors, "records": len(out.records), "written": out.written,
            "skipped_already_written": out.skipped, "jsonl": spec.jsonl, "executor": out.executor,
            "interrupted": out.interrupted, "seconds": round(out.seconds, 3)}
