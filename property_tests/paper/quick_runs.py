"""One quick run per claim, shared by the paper tests in a worker (dps 30, quick Pools)."""
from __future__ import annotations

from functools import lru_cache

from proofs_numeric.ledger import get
from theorems.framework import CheckContext, ClaimResult, run_claim

QUICK = CheckContext(dps=30, quick=True)


@lru_cache(maxsize=None)
def quick_run(cid: str) -> ClaimResult:
    """The claim's result at :data:`QUICK`, computed once per process."""
    return run_claim(get(cid), QUICK)
