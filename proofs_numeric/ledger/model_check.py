r"""``check CLAIM --model DIR [DIR ...]``: every claim matching CLAIM at every site of the user's model(s), as JSON
Lines records, on local worker processes or a Dask cluster.

The forward pass of each (checkpoint, input) runs one layer at a time (:func:`proofs_numeric.model.sites.site_tasks`);
every site it yields, with the readings declared at that site's kind, is a task evaluated by
:func:`proofs_numeric.model.sites.evaluate` -- the claims' own predicates
(:func:`theorems.framework.decide_on_instance`), not a second implementation. Tasks run

* in this process (``workers=1``), or
* on Dask, the one executor of parallel runs: a ``dask.distributed.LocalCluster`` of ``workers`` processes
  (``workers=N``, or ``scheduler="local"``), or an existing cluster (``scheduler=ADDRESS``); the scheduler
  reschedules the tasks of a worker that died.

SIGINT and SIGTERM stop a run within seconds (:class:`RunInterrupt`): nothing new is submitted, the running tasks get
:data:`INTERRUPT_GRACE` seconds, the rest is cancelled and the cluster closed; every record counted is in the stream.

Only a site's activations (a layer's ``W_O`` by reference: a worker on the same filesystem reads that layer by memory
map) and the readings' ids travel. Several checkpoints run their forward passes in parallel (threads: numpy releases
the GIL in its products), each holding one layer's weights and the activations of the sites in flight.

Records (one JSON object per line, appended, flushed and fsync'ed as each task finishes, so an interrupted run leaves
a valid file; written by the write rule's one stream, :class:`proofs_numeric.output.RecordStream`, which puts the
marker ``collapse_verify`` first in every record): ``checkpoint``, ``config_hash``, ``family``,
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
import logging
import os
import queue
import signal
import sys
import threading
import time
from collections import Counter, defaultdict
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proofs_numeric.ledger.load import load, registry
from proofs_numeric.model import sites as S
from proofs_numeric.model.checkpoint import CheckpointError
from proofs_numeric.output import RecordStream, read_stream
from proofs_numeric.witnesses import real_model as RM
from theorems.framework import REGISTRY, instance_form

__all__ = ["canonical_records", "without_timings", "DEFAULT_CLAIMS",
           "RunSpec", "Summary", "select_claims", "plan_claims", "run", "run_task",
           "open_record_stream", "read_records", "RECORD_KIND", "VERDICT_COLUMNS",
           "DaskPool", "SerialPool", "summary_json", "CheckpointFailure", "SchedulerError", "consume_task"]

#: the claims `real-model` runs (today's real-model measurements, now claims at sites)
DEFAULT_CLAIMS = RM.DEFAULT_CLAIMS
#: the kind in the marker of every record of a stream (proofs_numeric.output.RecordStream)
RECORD_KIND = "model-check"
#: the columns of the summary: what one site says about a reading
VERDICT_COLUMNS = ("holds", "counterexample", "exceptional-point", "premise-fails", "undecided", "not-checked")
#: tasks in flight per worker (bounds the activations held by queued tasks)
IN_FLIGHT_PER_WORKER = 2
#: seconds an interrupted run waits for the tasks already running (their records are kept), then cancels the rest
INTERRUPT_GRACE = 3.0
#: seconds the close of an interrupted cluster may take before its workers are killed
SHUTDOWN_TIMEOUT = 10
#: seconds between two looks at the stop flag of a waiting thread
POLL_SECONDS = 0.2
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

def open_record_stream(path, resume: bool, inputs=()) -> RecordStream:
    """The record stream of ``--jsonl`` / ``--resume``: the write rule's one stream
    (:class:`proofs_numeric.output.RecordStream`, kind :data:`RECORD_KIND`); ``inputs``: the ``--model`` folders,
    inside which it is never written."""
    return RecordStream(path, what="--resume" if resume else "--jsonl", kind=RECORD_KIND, resume=resume,
                        inputs=inputs)


def read_records(path) -> list[dict]:
    """The records of a stream (without their marker; none when there is no file). A line in the middle that does not
    parse, or a file that is not a stream of this kind, is a :class:`proofs_numeric.output.UsageError` naming it; a
    torn last line (an interrupted write) is left out."""
    if not Path(path).exists():
        return []
    return read_stream(path, kind=RECORD_KIND, what="record stream").records


# --------------------------------------------------------------------------------------------- executors

def run_task(site, items, common, seed, dps) -> list[dict]:
    """One task, wherever it runs: the claims' readings ``items`` decided at ``site`` (the registry is loaded in the
    worker first: the paper's claims, the plug-ins, the numeric instance forms)."""
    load()
    return S.evaluate(site, items, common, seed=seed, dps=dps, network_build=S.network_builder)


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

    def kill_now(self) -> None:
        pass


def _quiet_forkserver() -> str:
    """The start method of the LocalCluster's worker processes: ``forkserver``, started here with SIGINT ignored, so
    that every worker forked from it (at the start, and when a nanny restarts a worker that died) ignores the Ctrl-C
    sent to the terminal's process group: this process alone handles it (no worker prints a traceback). The module
    that runs the tasks is preloaded into the server, so a worker starts without importing it. ``spawn`` where there
    is no forkserver (the workers then see Ctrl-C too)."""
    import multiprocessing
    import multiprocessing.forkserver as fs
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return "spawn"
    multiprocessing.get_context("forkserver").set_forkserver_preload(["distributed", __name__])
    import multiprocessing.resource_tracker as rt
    main = threading.current_thread() is threading.main_thread()
    if main:  # block first (a Ctrl-C now waits), then ignore while the server starts: it inherits "ignore"
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    # the resource tracker (started with the server) unlinks the semaphores of workers ended by a second Ctrl-C; its
    # warning about them would be the only line after ours
    env = os.environ.get("PYTHONWARNINGS")
    os.environ["PYTHONWARNINGS"] = ",".join(w for w in (env, "ignore:resource_tracker:UserWarning") if w)
    try:
        rt.ensure_running()
        fs.ensure_running()
    finally:
        if env is None:
            os.environ.pop("PYTHONWARNINGS", None)
        else:
            os.environ["PYTHONWARNINGS"] = env
        if main:
            signal.signal(signal.SIGINT, old)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    return "forkserver"


class DaskPool:
    """The one executor of parallel runs: a Dask ``LocalCluster`` of ``workers`` single-threaded worker processes
    (``address="local"``: ``--workers N``, ``--scheduler local``), or an existing Dask distributed cluster
    (``address``). The scheduler reschedules the tasks of a worker that died (its nanny starts a new one)."""

    def __init__(self, address: str, workers: int, timeout: float | None = None):
        # lazy: dask.distributed costs ~0.8 s to import and only a parallel run uses it
        import dask
        from dask.distributed import Client, LocalCluster
        timeout = SCHEDULER_TIMEOUT if timeout is None else timeout
        self.cluster = None
        self._live: set = set()
        if address == "local":
            method = _quiet_forkserver()
            dask.config.set({"distributed.worker.multiprocessing-method": method,
                             "distributed.worker.daemon": True})
            # no dashboard, and the scheduler's HTTP server (always started) on a free port: its default 8787 taken
            # by another cluster printed "Port 8787 is already in use" into the one-line Ctrl-C message
            self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                        dashboard_address=None, silence_logs=logging.ERROR,
                                        scheduler_kwargs={"dashboard": False, "dashboard_address": ":0"})
            self.client = Client(self.cluster)
            self.name = f"a Dask LocalCluster of {workers} worker processes"
        else:
            try:
                self.client = Client(address, timeout=timeout)
            except (OSError, TimeoutError, ValueError, TypeError) as e:  # unreachable, refused, not an address
                raise SchedulerError(f"--scheduler {address}: no Dask scheduler answered within {timeout:g} s "
                                     f"({type(e).__name__}: {str(e)[:200]}); start one with `dask scheduler` and "
                                     "workers with `dask worker ADDRESS`, or give --scheduler local") from None
            self.name = f"the Dask cluster at {address}"

    def pids(self) -> list[int]:
        """The worker processes' ids (a LocalCluster's; for a test that kills one)."""
        return sorted(self.client.run(os.getpid).values())

    def submit(self, fn, *args) -> Future:
        outer: Future = Future()
        fut = self.client.submit(fn, *args, pure=False)
        self._live.add(fut)

        def done(f):
            self._live.discard(f)
            try:
                outer.set_result(f.result())
            except BaseException as e:  # noqa: B902 - handed to the consumer as the task's error
                if not outer.done():
                    outer.set_exception(e)
        fut.add_done_callback(done)
        return outer

    def shutdown(self, cancel: bool = False) -> None:
        """Close the client and the LocalCluster; ``cancel``: the tasks not yet done are cancelled first, and the
        close waits a bounded time (an interrupted run)."""
        logging.getLogger("distributed").setLevel(logging.CRITICAL)  # a closing cluster's warnings say nothing new
        try:
            if cancel and self._live:
                try:
                    self.client.cancel(list(self._live), force=True)
                except Exception:  # noqa: BLE001 - closing anyway
                    pass
            self.client.close(timeout=SHUTDOWN_TIMEOUT)
        except Exception:  # noqa: BLE001 - a cluster that does not close in time is left to the nanny's watchdog
            pass
        finally:
            if self.cluster is not None:
                try:
                    self.cluster.close(timeout=SHUTDOWN_TIMEOUT)
                except Exception:  # noqa: BLE001
                    self.kill_now()

    def kill_now(self) -> None:
        """End the LocalCluster's worker processes at once (a second Ctrl-C: this process exits right after)."""
        for nanny in list(getattr(self.cluster, "workers", {}).values()):
            pid = getattr(getattr(nanny, "process", None), "pid", None)
            if pid:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass


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
    interrupt_line: Any = None    # (records in the stream, second signal) -> the line an interrupted run prints
    #: the command line: once a signal has stopped the run, this process only prints its line and exits, so another
    #: signal, even after :func:`run` returned, ends it at once (exit 130, still one line; see :func:`say_interrupted`)
    process_exits_after: bool = False


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
    in_stream: int | None = None  # records in the stream when the run ended (the ones it held before included)


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


#: without a bar, a ``progress:`` line at the start and then at most every this many seconds (a task finishing)
PROGRESS_EVERY = 10.0


class _Progress:
    """A bar on a terminal (tasks done / total, ETA), else plain lines: one at the start (how many site tasks), one
    at most every :data:`PROGRESS_EVERY` seconds as tasks finish (done / total, elapsed, the time left at the mean
    rate so far), and one per finished checkpoint."""

    def __init__(self, total: int, on: bool | None, stream=None):
        self.stream = stream or sys.stderr
        self.bar = self.stream.isatty() if on is None else on
        self.total, self.done = total, 0
        self._p = None
        self.t0 = self._last = time.perf_counter()
        if not self.bar and total:
            self.line(f"progress: {total} site tasks to run (a line at most every {PROGRESS_EVERY:g} s)")
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
            return
        now = time.perf_counter()
        if self.bar or self.done >= self.total or now - self._last < PROGRESS_EVERY:
            return
        self._last = now
        took = now - self.t0
        left = took / self.done * (self.total - self.done)
        self.line(f"progress: {self.done}/{self.total} site tasks done in {took:.0f} s, about {left:.0f} s left "
                  "at the rate so far")

    def line(self, text: str) -> None:
        if self._p is not None:
            self._p.console.print(text, markup=False, highlight=False)
        else:
            print(text, file=self.stream, flush=True)

    def close(self) -> None:
        if self._p is not None:
            self._p.stop()


class _Interrupted(Exception):
    """The run was asked to stop (SIGINT or SIGTERM)."""


class RunInterrupt:
    """SIGINT and SIGTERM during a run (in the main thread; elsewhere a KeyboardInterrupt still stops it): the first
    asks the run to stop (no new task, the running ones waited for :data:`INTERRUPT_GRACE` seconds, the cluster
    closed); a second ends the process at once, after the record being written, with one line and exit 130."""

    def __init__(self, stop: threading.Event, line, keep: bool = False):
        self.stop, self.line, self.keep = stop, line, keep
        self.sink = None
        self.pool = None
        self.out: Summary | None = None
        self._old: dict = {}
        self.signalled = False
        self.said = False  # the interrupted run's one line is on stderr (a later signal adds none)

    def count(self) -> int:
        if self.sink is not None:
            return self.sink.total
        return self.out.written if self.out is not None else 0

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._old[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc):
        global STOPPED
        if self.keep and self.signalled and self._old:  # the process ends next: another signal ends it at once
            STOPPED = self
            return False
        for sig, old in self._old.items():
            signal.signal(sig, old)
        return False

    def _handle(self, signum, frame) -> None:
        if not self.signalled:
            self.signalled = True
            self.stop.set()
            return
        if self.said:
            os._exit(130)
        if self.sink is not None:  # a closed stream is idle: at once
            self.sink.when_idle(self._exit_now)
        else:
            self._exit_now()

    def _exit_now(self) -> None:
        if self.pool is not None:
            self.pool.kill_now()
        if self.said:
            os._exit(130)
        text = self.line(self.count(), True) if self.line is not None else "collapse-verify: interrupted"
        try:
            sys.stderr.write(text + "\n")
            sys.stderr.flush()
        finally:
            os._exit(130)


#: the handler of a command-line run a signal stopped (``RunSpec.process_exits_after``): it stays installed until
#: the process exits, so a second Ctrl-C during the close, the printing or the interpreter's exit ends it at once
STOPPED: RunInterrupt | None = None


def say_interrupted(text: str) -> None:
    """Print an interrupted run's one line on stderr. Signals are blocked while it is written, so that a second
    Ctrl-C arriving meanwhile neither cuts it nor adds another: from then on a signal ends the process silently,
    exit 130."""
    main = threading.current_thread() is threading.main_thread()
    sigs = {signal.SIGINT, signal.SIGTERM}
    if main:
        signal.pthread_sigmask(signal.SIG_BLOCK, sigs)
    try:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
        if STOPPED is not None:
            STOPPED.said = True
    finally:
        if main:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, sigs)


def run(spec: RunSpec) -> Summary:
    """Run ``spec`` (see the module docstring); records go to ``spec.jsonl`` as they finish. SIGINT or SIGTERM stops
    the run (``interrupted``) within seconds: every record counted is in the stream."""
    t_start = time.perf_counter()
    load()
    out = Summary()
    stop = threading.Event()
    with RunInterrupt(stop, spec.interrupt_line, keep=spec.process_exits_after) as intr:
        intr.out = out
        sink = pool = None
        try:
            if spec.jsonl and spec.resume:  # read (and locked) before the plan: the plan skips what it holds
                sink = intr.sink = open_record_stream(spec.jsonl, True, inputs=spec.models)
                for note in sink.notes:
                    print(f"collapse-verify: note: {note}", file=sys.stderr)
            jobs, claims, written = _prepare(spec, out, sink.records if sink is not None else [])
            if stop.is_set():
                raise _Interrupted
            pool = intr.pool = _pool(spec)  # before a new stream: a scheduler that cannot be reached leaves no file
            if spec.jsonl and sink is None:
                sink = intr.sink = open_record_stream(spec.jsonl, False, inputs=spec.models)
            out.executor = pool.name
            if stop.is_set():
                raise _Interrupted
            _run_jobs(spec, out, jobs, claims, written, pool, sink, stop)
        except (_Interrupted, KeyboardInterrupt):
            stop.set()
            out.interrupted = True
        finally:
            stop.set()
            if pool is not None:
                pool.shutdown(cancel=out.interrupted)
            intr.pool = None
            out.in_stream = sink.total if sink is not None else None
            if sink is not None:
                sink.close()
    out.seconds = time.perf_counter() - t_start
    return out


def _prepare(spec: RunSpec, out: Summary, existing: list) -> tuple[list, list, set]:
    """Open every checkpoint and its inputs (a failure is named and the others still run) and plan their sites:
    (jobs, the claims at sites, the keys already written)."""
    claims, out.not_at_sites = plan_claims(spec.claims)
    if spec.readings:
        keep = set(spec.readings)
        claims = [c for c in claims if keep & set(S.site_kinds_of(c))]
    written = {S.record_key(r) for r in existing}
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
    return jobs, claims, written


def _run_jobs(spec: RunSpec, out: Summary, jobs, claims, written, pool, sink, stop: threading.Event) -> None:
    """The forwards (daemon threads: one per worker, at most one per job) submit their sites' tasks to ``pool``; this
    thread writes each task's records as it finishes. On ``stop`` (raises :class:`_Interrupted`), no new task is
    submitted and the running ones are waited for :data:`INTERRUPT_GRACE` seconds at most."""
    total = sum(1 for _, lb, nm, _, pl in jobs for sid, _, level, items in pl
                if not all((lb, nm, sid, c, k, level) in written for c, k in items))
    progress = _Progress(total, spec.progress)
    results: queue.Queue = queue.Queue()
    slots = threading.BoundedSemaphore(max(1, spec.workers) * IN_FLIGHT_PER_WORKER)
    per_ckpt: dict = defaultdict(lambda: {"pending": 0, "forwards": 0, "records": Counter(), "t0": time.perf_counter()})
    for _, lb, *_ in jobs:
        per_ckpt[lb]["forwards"] += 1
    lock = threading.Lock()
    serial = isinstance(pool, SerialPool)

    def forward(job) -> None:
        m, label, name, ids, plan = job
        try:
            if all(all((label, name, sid, c, k, level) in written for c, k in items) for sid, _, level, items in plan):
                return  # every record of this forward is written already: no forward pass
            common = S.common_fields(m, label, ids)
            depth: dict = {}
            for site, items in S.site_tasks(m, label, name, ids, claims, measure=spec.measure,
                                            network_layers=spec.network_layers, dps=spec.dps,
                                            weight_refs=not serial, depth=depth):
                if stop.is_set():
                    return
                if spec.readings:
                    items = [it for it in items if it[1] in spec.readings]
                    if not items:
                        continue
                if all((label, name, site.id, c, k, site.level) in written for c, k in items):
                    continue
                while not slots.acquire(timeout=POLL_SECONDS):  # a stopped run does not wait for a slot
                    if stop.is_set():
                        return
                if stop.is_set():
                    slots.release()
                    return
                with lock:
                    per_ckpt[label]["pending"] += 1
                fut = pool.submit(run_task, site, items, common, spec.seed, spec.dps)
                fut.add_done_callback(lambda f, lb=label, s=site.id, it=items: results.put(("task", lb, s, it, f)))
            out.depth[(label, name)] = depth
        except BaseException as e:  # noqa: B902 - a checkpoint that fails to run is named, the others go on
            results.put(("failure", label, name, None, e))
        finally:
            results.put(("forward-done", label, name, None, None))

    todo: queue.Queue = queue.Queue()
    for job in jobs:
        todo.put(job)

    def forwards() -> None:
        while not stop.is_set():
            try:
                job = todo.get_nowait()
            except queue.Empty:
                return
            forward(job)

    # daemon threads: a forward still inside a layer when the run stops does not keep the process alive
    for i in range(max(1, min(len(jobs), max(1, spec.workers)))) if jobs else ():
        threading.Thread(target=forwards, name=f"forward-{i}", daemon=True).start()

    def pending() -> int:
        with lock:
            return sum(v["pending"] for v in per_ckpt.values())

    def handle(item) -> None:
        kind, label, name, items, payload = item
        if kind == "forward-done":
            per_ckpt[label]["forwards"] -= 1
        else:
            consume_task(kind, label, name, items, payload, progress, out, sink, written, per_ckpt, slots, lock)
        if not stop.is_set():  # a stopped forward has not finished its checkpoint
            _maybe_finished(label, per_ckpt, progress)

    outstanding = len(jobs)
    try:
        while outstanding or pending():
            if stop.is_set():
                raise _Interrupted
            try:
                item = results.get(timeout=POLL_SECONDS)
            except queue.Empty:
                continue
            outstanding -= item[0] == "forward-done"
            handle(item)
    except (_Interrupted, KeyboardInterrupt):
        stop.set()
        deadline = time.monotonic() + INTERRUPT_GRACE  # the tasks already running: their records are kept
        while pending() and time.monotonic() < deadline:
            try:
                item = results.get(timeout=min(POLL_SECONDS, max(0.0, deadline - time.monotonic())))
            except queue.Empty:
                continue
            if item[0] == "task":
                handle(item)
        raise _Interrupted from None
    finally:
        progress.close()


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
    return DaskPool("local", spec.workers)


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
