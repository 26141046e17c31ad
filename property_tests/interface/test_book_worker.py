"""verify's second process: the parts of the book's real-model measurement no claim of the ledger reads, computed
beside the claims (issue 59: the cold ledger's printed time), then joined in verify's own process."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from proofs_numeric.cli import main
from proofs_numeric.cli import verify as V
from proofs_numeric.witnesses import real_model as RM


def test_the_second_process_takes_exactly_the_parts_no_claim_reads():
    """The worker's parts and the ledger's trained-model readings' parts split the measurement: disjoint, together
    all of it, and the worker's include the two the book alone needs. (Planted: a part read by a claim given to the
    worker, so the ledger computes it twice: red here.)"""
    read = {p for parts in RM.PARTS_READ.values() for p in parts}
    unread = set(RM.unread_parts())
    assert unread and not unread & read and unread | read == set(RM.MEASURE_PARTS)
    assert {("RRO.only-increase",), ("RC.rank-equals-sum",)} <= unread


def _fake_ledger(monkeypatch, seen):
    def run(claims, ctx, progress, before_formal=None):
        seen.append(("hook", before_formal is not None))
        return [], (before_formal() if before_formal is not None else [])
    monkeypatch.setattr(V, "run_ledger", run)


def test_verify_joins_the_second_process_parts_and_falls_back_when_it_fails(capsys, monkeypatch):
    """With a second process, the ledger runs without the before-Coq hook, then the measurement is joined reading the
    worker's parts from the store (``stored``), on one ``[book]`` line naming the second process. A worker that did
    not finish is not an error: its parts are computed here, and the line says why; a part it did not store is not
    read back (an older entry of the store must not stand in for it). (Planted: the join reading every part the
    worker was given, or a dead worker ending the run with no measurement: red here.)"""
    seen: list = []
    _fake_ledger(monkeypatch, seen)
    monkeypatch.setattr(RM, "available", lambda: True)
    monkeypatch.setattr(V.BookWorker, "start", lambda self: setattr(self, "pid", 4242) or True)
    first, second = RM.unread_parts()  # a worker that stored one part only (its store could not keep the other)
    monkeypatch.setattr(V.BookWorker, "wait", lambda self: (setattr(self, "stored", [first]), (True, ""))[1])
    monkeypatch.setattr(RM, "part_origin", lambda p, quick=False: 4242 if p == first else os.getpid())
    calls: list = []
    monkeypatch.setattr(RM, "cached_measure", lambda quick=False, stored=(), computed_by=None:
                        calls.append((quick, tuple(stored), computed_by)) or {})
    assert main(["verify", "--quick"]) == 0
    _, err = capsys.readouterr()
    assert seen == [("hook", False)] and calls == [(True, (first,), 4242)]  # only what it stored is read back
    err = err.replace("\n  ", " ")
    assert "[book] the real-model page's measurement" in err
    assert f"{'+'.join(first)} computed in a second process beside the claims" in err
    assert f"{'+'.join(second)} computed here" in err

    seen.clear()
    calls.clear()
    monkeypatch.setattr(V.BookWorker, "wait", lambda self: (False, "RuntimeError: planted death"))
    monkeypatch.setattr(RM, "cached_measure", lambda quick=False: calls.append((quick,)) or {})  # the fallback's call
    assert main(["verify", "--quick"]) == 0
    _, err = capsys.readouterr()
    assert calls == [(True,)]
    err = err.replace("\n  ", " ")
    assert "did not finish its parts (RuntimeError: planted death); computing them here" in err
    assert "stored" in err

    seen.clear()
    calls.clear()  # no second process (no store): the measurement runs in the hook before Coq's wait, as before
    monkeypatch.setattr(V.BookWorker, "start", lambda self: False)
    assert main(["verify", "--quick"]) == 0
    assert seen == [("hook", True)] and calls == [(True,)]


def _untimed(records) -> str:
    """The records as JSON without their timings (``seconds``: how long a check took, not what it found)."""
    def strip(x):
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if not k.endswith("seconds")}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x
    return json.dumps(strip(records), sort_keys=True, default=str)


@pytest.mark.slow
def test_the_joined_measurement_equals_the_one_computed_in_one_process(tmp_path, monkeypatch):
    """The records joined from the second process's stored parts are those of one process computing everything
    (quick input, fresh stores), and the worker's parts were read from the store, not recomputed. (Planted: the
    worker run on the long input, or the join recomputing its parts: red here.)"""
    from theorems.exact.blas_runtime import single_threaded_blas
    from theorems.framework import CheckContext
    from theorems.framework.memo import clear_process_caches, computing_fresh
    monkeypatch.setenv("COLLAPSE_VERIFY_CACHE", str(tmp_path / "one"))
    clear_process_caches()
    t = time.perf_counter()
    with computing_fresh(), single_threaded_blas():  # as verify computes it (float diagnostics follow BLAS threads)
        one = _untimed(RM.cached_measure(quick=True)["records"])
    print(f"one process: {time.perf_counter() - t:.1f} s")
    monkeypatch.setenv("COLLAPSE_VERIFY_CACHE", str(tmp_path / "two"))
    clear_process_caches()
    w = V.BookWorker(True)
    assert w.start()
    lines: list[str] = []
    try:
        with computing_fresh():
            assert V.finish_book_measurement(CheckContext(dps=15, quick=True), w, lines.append) == []
            two = _untimed(RM.cached_measure(quick=True)["records"])
    finally:
        w.stop()
    assert one == two
    assert w.pid is not None and all(RM.part_origin(p, True) == w.pid for p in RM.unread_parts())  # read back
    assert "second process" in lines[-1] and " took " in lines[-1], lines  # the child's own time
    print(lines)
    clear_process_caches()


def _state(pid: int) -> str | None:
    """The process's state letter (Z: ended, not yet reaped), or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def _ended(pid: int, within: float) -> bool:
    end = time.monotonic() + within
    while time.monotonic() < end:
        if _state(pid) in (None, "Z"):
            return True
        time.sleep(0.1)
    return False


@pytest.mark.slow
def test_the_second_process_ends_when_stopped_and_when_its_parent_dies(tmp_path, monkeypatch):
    """Ctrl-C in verify ends its second process (``stop``: within WORKER_GRACE), and a verify killed outright leaves
    no orphan computing on (the child watches its parent). Generous bounds: a loaded 2-core CI. (Planted: ``stop``
    not ending the child, or the watch thread not started: red here.)"""
    monkeypatch.setenv("COLLAPSE_VERIFY_CACHE", str(tmp_path / "store"))
    w = V.BookWorker(True)
    assert w.start()
    assert w.proc is not None
    pid = w.proc.pid
    time.sleep(1.0)
    t = time.monotonic()
    w.stop()
    assert _ended(pid, 60) and time.monotonic() - t < V.WORKER_GRACE + 30
    w.stop()  # twice: a no-op

    # a parent that starts a worker whose job would take two minutes (store_parts patched to sleep), then dies
    child_code = ("import sys, time; from proofs_numeric.witnesses import real_model as RM; "
                  "RM.store_parts = lambda *a, **k: time.sleep(120); "
                  "from proofs_numeric.cli.verify import book_worker_main; sys.exit(book_worker_main(sys.argv[1:]))")
    code = ("import os, subprocess, sys, time; "
            f"p = subprocess.Popen([sys.executable, '-c', {child_code!r}, str(os.getpid())], start_new_session=True); "
            "print(p.pid, flush=True); time.sleep(2.0); os._exit(0)")
    parent = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "COLLAPSE_VERIFY_CACHE": str(tmp_path / "store2")})
    child = int(parent.stdout.split()[0])
    try:
        assert _ended(child, 60), f"the orphaned worker {child} still runs"
    finally:
        if _state(child) not in (None, "Z"):
            os.kill(child, 9)


def test_a_part_is_read_back_only_when_its_stored_entry_is_the_workers(tmp_path, monkeypatch):
    """``part_records(..., computed_by=pid)`` takes the stored entry only when that process computed it; an entry of
    another process (an earlier run, another verify) is not taken for this run's value: the part is computed here,
    with the same records. (Planted: the pid not compared, so any stored entry is read: red here.)"""
    from theorems.exact.blas_runtime import single_threaded_blas
    from theorems.framework.memo import clear_process_caches, computing_fresh, provenance
    part = ("HC.main", "RA.main")  # the cheapest part (under a second at the short input)
    monkeypatch.setenv("COLLAPSE_VERIFY_CACHE", str(tmp_path / "store"))
    clear_process_caches()
    try:
        with computing_fresh(), single_threaded_blas():
            stored = _untimed(RM.part_records(part, True))  # stored by this process
            assert RM.part_origin(part, True) == os.getpid()
            clear_process_caches()
            other = _untimed(RM.part_records(part, True, computed_by=os.getpid() + 1))  # not that process's entry
            assert RM.part_origin(part, True) == os.getpid() and provenance(RM.PART_MEMO)["reused"] is False
            clear_process_caches()
            mine = _untimed(RM.part_records(part, True, computed_by=os.getpid()))  # this process's entry: read
            assert RM.part_origin(part, True) == os.getpid() and provenance(RM.PART_MEMO)["reused"] is True
        assert stored == other == mine
    finally:
        clear_process_caches()
