"""One quick run per claim, shared by the paper tests in a worker (dps 30, quick Pools); the session's quick ledger
(``verify --quick --json`` in a fresh process), read back for the tests that look at every claim."""
from __future__ import annotations

import json
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


def verify_quick_in_fresh_process(path: Path, hash_seed: str) -> Path:
    """``collapse-verify verify --quick --json PATH`` in a new process with ``PYTHONHASHSEED=hash_seed`` (the
    session's quick ledger, and the hash-seed test's second run); fails the test with the end of its stderr."""
    exe = Path(sys.executable).parent / "collapse-verify"
    proc = subprocess.run([str(exe), "verify", "--quick", "--json", str(path)],
                          env={**os.environ, "PYTHONHASHSEED": hash_seed}, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return path


def ledger_results(path: Path) -> dict[str, ClaimResult]:
    """Every claim's result read back from the ledger at ``path`` (:meth:`ClaimResult.from_json`: each reading's
    verdict and strength are assessed again from its evidence and must agree with the stored ones), by claim id."""
    data = json.loads(Path(path).read_text())
    return {d["id"]: ClaimResult.from_json(d, get(d["id"])) for d in data["claims"]}


def verify_quick_in_this_process(path: Path) -> tuple[Path, dict[str, ClaimResult]]:
    """``collapse-verify verify --quick --json PATH`` run in this process by the command line's ``main`` (inside
    ``computing_fresh``: every value computed here, none read from the results store); also returns every claim's
    result as ``run_ledger`` got it, by claim id."""
    import pytest

    from proofs_numeric.cli import main
    from proofs_numeric.ledger import run as ledger_run
    kept: dict[str, ClaimResult] = {}
    compute = ledger_run.run_claim

    def keep(claim: Claim, ctx: CheckContext) -> ClaimResult:
        kept[claim.id] = r = compute(claim, ctx)
        return r

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ledger_run, "run_claim", keep)
        code = main(["verify", "--quick", "--json", str(path)])
    assert code == 0, f"verify --quick in this process exited {code}"
    return path, kept


_HASH_PROBE = "collapse-verify: which hash seed?"


def this_process_hash_seed() -> str | None:
    """The ``PYTHONHASHSEED`` this process hashes strings with, when that can be shown: the variable's value, if a
    child started with it hashes a probe string as this process does; None otherwise (unset or changed since this
    process started: its seed is unknown)."""
    seed = os.environ.get("PYTHONHASHSEED", "")
    if not seed.isdigit():
        return None
    child = subprocess.run([sys.executable, "-c", f"print(hash({_HASH_PROBE!r}))"],
                           env={**os.environ, "PYTHONHASHSEED": seed}, capture_output=True, text=True, timeout=120)
    return seed if child.stdout.strip() == str(hash(_HASH_PROBE)) else None
