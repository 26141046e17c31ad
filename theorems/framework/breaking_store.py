"""``make store-breaking``: store the minimal instance of every "needed" hypothesis of the breaking tables
(:mod:`theorems.framework.breaking`), for the tests and every run to re-check. A maintainer's command, never run by
``verify`` (it writes into the source tree)."""
from __future__ import annotations

from typing import Sequence

from .breaking import BUILDER_SAMPLES, breaking_of, eligible, exact_line, search_rows, store_needed
from .records import CheckContext
from .registry import REGISTRY
from .storage import relative_path
from .suite import current_suite

__all__ = ["store_all", "main"]



def store_all(samples: int = BUILDER_SAMPLES, rewrite: bool = False) -> list[str]:
    """Store the instance of every needed entry of every eligible reading (the quick run's tables, the ones the
    tests re-derive) that has no file yet or whose file no longer re-checks (``rewrite``: every one). Lines saying
    what was written; a maintainer's command (``make store-breaking``), never run by ``verify``."""
    current_suite()
    said = []
    for c in sorted(REGISTRY.values(), key=lambda c: c.id):
        for r in c.all_readings():
            if not eligible(r.decl):
                continue
            ctx = CheckContext(quick=True, claim_id=c.id)
            b = breaking_of(c, r, ctx, samples)
            if b is None:
                continue
            rows, _ = search_rows(r.decl, ctx, f"{c.id} reading {r.key}", samples)
            for d in b.dropped:
                if d.result != "needed" or (d.stored and not rewrite):
                    continue
                x = next(x for reg, _, x in rows if reg == d.regime and exact_line(x) == d.instance)
                path = store_needed(c.id, r.key, r.decl, d, x)
                said.append(f"{c.id} reading {r.key} without {d.hypothesis}: {relative_path(path)}")
    return said


def main(argv: Sequence[str] | None = None) -> int:
    """``make store-breaking`` (``--rewrite``: every file written again)."""
    import sys
    lines = store_all(rewrite="--rewrite" in (sys.argv[1:] if argv is None else argv))
    print("\n".join(lines) if lines else "every needed entry is stored and re-checks")
    return 0
