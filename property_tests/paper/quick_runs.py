"""One quick run per claim, shared by the paper tests in a worker (dps 30, quick Pools); the quick ledger in a
fresh process."""
from __future__ import annotations

import os
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

from proofs_numeric.ledger import get
from theorems.framework import CheckContext, Claim, ClaimResult, run_claim

QUICK = CheckContext(dps=30, quick=True)

#: the xdist group of the tests that read every claim's quick run (and of the Coq tests, whose build cache the formal
#: gaps test shares): one worker computes the in-process quick ledger once, not each worker its own
LEDGER_GROUP = "formal-and-ledger"


@lru_cache(maxsize=None)
def quick_run(cid: str) -> ClaimResult:
    """The claim's result at :data:`QUICK`, computed once per process."""
    return run_claim(get(cid), QUICK)


def run_claim_reusing_quick(claim: Claim, ctx: CheckContext) -> ClaimResult:
    """``run_claim(claim, ctx)``, reusing :func:`quick_run` when ``ctx`` is :data:`QUICK` and ``claim`` is the
    registered one (tests that drive the CLI patch it in, so the CLI renders the results the paper tests use)."""
    if (ctx.dps, ctx.quick) == (QUICK.dps, QUICK.quick) and ctx.claim_id in ("", claim.id) and get(claim.id) is claim:
        return quick_run(claim.id)
    return run_claim(claim, ctx)


def verify_quick_in_fresh_process(path: Path, hash_seed: str) -> Path:
    """``collapse-verify verify --quick --json PATH`` in a new process with ``PYTHONHASHSEED=hash_seed`` (the
    session's quick ledger, and the hash-seed test's second run); fails the test with the end of its stderr."""
    exe = Path(sys.executable).parent / "collapse-verify"
    proc = subprocess.run([str(exe), "verify", "--quick", "--json", str(path)],
                          env={**os.environ, "PYTHONHASHSEED": hash_seed}, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return path
