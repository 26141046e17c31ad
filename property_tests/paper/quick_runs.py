"""One quick run per claim, shared by the paper tests in a worker (dps 30, quick Pools); the session's quick ledger
(``verify --quick --json`` in a fresh process), read back for the tests that look at every claim."""
from __future__ import annotations

import os
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

from proofs_numeric.ledger import get
from theorems.framework import CheckContext, Claim, ClaimResult, run_claim

QUICK = CheckContext(dps=30, quick=True)

#: the xdist group of the tests that read the session's quick ledger (the ``quick_ledger_file`` fixture of
#: property_tests/conftest.py: ``verify --quick --json`` in a fresh process with PYTHONHASHSEED=1): the book's test
#: build, the hash-seed test, the tests of every claim's verdict and ``show``. One worker computes it once and every
#: one of them reads it (until 2026-12 a second worker computed the same verdicts again in-process)
LEDGER_GROUP = "quick-ledger"


@lru_cache(maxsize=None)
def quick_run(cid: str) -> ClaimResult:
    """The claim's result at :data:`QUICK`, computed once per process."""
    return run_claim(get(cid), QUICK)


#: how each ledger these helpers computed ended (path -> (exit status, the end of its stderr; "" in-process)):
#: ``verify`` exits 1 when its ledger lists an error, and still writes the ledger, which the tests read (each failing
#: claim fails its own tests)
EXIT_STATUS: dict[Path, tuple[int, str]] = {}


def verify_quick_in_fresh_process(path: Path, hash_seed: str) -> Path:
    """``collapse-verify verify --quick --json PATH`` in a new process with ``PYTHONHASHSEED=hash_seed`` (the
    session's quick ledger, and the hash-seed test's second ledger when no worker of another seed computes one);
    fails the test with the end of its stderr when no ledger was written."""
    exe = Path(sys.executable).parent / "collapse-verify"
    path.unlink(missing_ok=True)
    proc = subprocess.run([str(exe), "verify", "--quick", "--json", str(path)],
                          env={**os.environ, "PYTHONHASHSEED": hash_seed}, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, timeout=900)
    assert path.is_file(), f"verify --quick exited {proc.returncode} and wrote no ledger:\n{proc.stderr[-2000:]}"
    EXIT_STATUS[path] = (proc.returncode, proc.stderr[-2000:])
    return path


def ledger_results(records: dict[str, dict]) -> dict[str, ClaimResult]:
    """Every claim's result read back from a ledger's records (claim id -> record, as ``verify --json`` wrote it;
    :meth:`ClaimResult.from_json`: each reading's verdict and strength are assessed again from its evidence and must
    agree with the stored ones), by claim id."""
    return {cid: ClaimResult.from_json(rec, get(cid)) for cid, rec in records.items()}


def verify_quick_in_this_process(path: Path) -> tuple[Path, dict[str, ClaimResult]]:
    """``collapse-verify verify --quick --workers 1 --json PATH`` run in this process by the command line's ``main``
    (no worker processes; the session's quick ledger, :func:`verify_quick_in_fresh_process`, uses the default
    workers, so the hash-seed test also compares a ledger run in workers with one run in one process): every value
    computed here (``main`` runs inside ``computing_fresh``, which reads nothing from the results store, and the
    results this process kept from earlier tests are forgotten first: ``clear_process_caches``); also returns every
    claim's result as ``run_ledger`` got it, by claim id."""
    import pytest

    from proofs_numeric.cli import main
    from proofs_numeric.ledger import run as ledger_run
    from theorems.framework.memo import clear_process_caches
    clear_process_caches()
    kept: dict[str, ClaimResult] = {}
    compute = ledger_run.run_claim

    def keep(claim: Claim, ctx: CheckContext) -> ClaimResult:
        kept[claim.id] = r = compute(claim, ctx)
        return r

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ledger_run, "run_claim", keep)
        EXIT_STATUS[path] = (main(["verify", "--quick", "--workers", "1", "--json", str(path)]), "")
    assert path.is_file(), f"verify --quick in this process exited {EXIT_STATUS[path][0]} and wrote no ledger"
    return path, kept


#: hash() of a string differs between processes unless PYTHONHASHSEED fixes it; that difference is what the two
#: functions below observe, to learn which seed this process runs with. No seed of any computation is taken from
#: hash(): the suite's seeds are stable_seed's (theorems.framework), the same in every process.
_HASH_PROBE = "collapse-verify: which hash seed?"


def hashes_like(seed: str) -> bool:
    """Whether a child process started with ``PYTHONHASHSEED=seed`` hashes a probe string as this process does."""
    child = subprocess.run([sys.executable, "-c", f"print(hash({_HASH_PROBE!r}))"],
                           env={**os.environ, "PYTHONHASHSEED": seed}, capture_output=True, text=True, timeout=120)
    return child.returncode == 0 and child.stdout.strip() == str(hash(_HASH_PROBE))


def this_process_hash_seed() -> str | None:
    """The ``PYTHONHASHSEED`` this process hashes strings with, when that can be shown: the variable's value, if a
    child started with it hashes a probe string as this process does; None otherwise (unset, not a number, or changed
    since this process started: its seed is unknown). Python reads ``01`` as 1: compare seeds with
    :func:`hashes_like`, never as strings."""
    seed = os.environ.get("PYTHONHASHSEED", "")
    return seed if seed.isdigit() and hashes_like(seed) else None
