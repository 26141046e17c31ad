"""``make formal``'s lemma-by-lemma queries (2026-12-07; ``make bench``): every registered lemma asked with ``Print
Assumptions`` one by one (``formal.check(per_lemma_axioms=True)``, what ``make formal`` asks), the modules already
compiled, the stored verdicts removed, in one coqc per group (``COLLAPSE_VERIFY_COQ_JOBS=1``, as before) against the
lemmas dealt to up to one coqc per core (the default). ``Print Assumptions`` walks a lemma's dependencies afresh for
every lemma (about 1.8 s per lemma of a file that loads MathComp-Analysis), so one coqc did most of the work alone.
Each round copies ``theorems/formal`` with its compiled ``_build`` (minus the stored verdicts) into a folder of its
own and runs the check in a fresh process. One round each (about a minute): the ratio is from this run.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from theorems import formal
from theorems.framework import REPO_ROOT

pytestmark = pytest.mark.benchmark

_FORMAL = REPO_ROOT / "theorems" / "formal"
_CHECK = ("import sys; from theorems import formal; r = formal.check(source_dir=sys.argv[1], per_lemma_axioms=True, "
          "coqchk=False); print(sum(bool(x.accepted) for x in r.values()), len(r))")


def _ask(jobs: str | None, info: dict) -> None:
    with tempfile.TemporaryDirectory(prefix="collapse-verify-formal-") as tmp:
        src = Path(tmp) / "formal"
        shutil.copytree(_FORMAL, src, ignore=shutil.ignore_patterns("__pycache__", "check-results-*", "coqchk-*",
                                                                   "*.lock"))
        env = {k: v for k, v in os.environ.items() if k != "COLLAPSE_VERIFY_COQ_JOBS"}
        if jobs is not None:
            env["COLLAPSE_VERIFY_COQ_JOBS"] = jobs
        out = subprocess.run([sys.executable, "-c", _CHECK, str(src)], cwd=REPO_ROOT, env=env, capture_output=True,
                             text=True, timeout=1800)
        assert out.returncode == 0, out.stderr[-2000:]
        info["lemmas accepted / asked"] = out.stdout.strip()


def _ready() -> None:
    if shutil.which("coqc") is None or not formal.mathcomp_available():
        pytest.skip("coqc or MathComp not installed")
    errors = formal.compile_sources()  # the copies reuse this build: only the queries are timed
    if any(errors.values()):
        pytest.skip(f"the Coq sources do not compile here: {', '.join(m for m, e in errors.items() if e)}")


def test_bench_formal_per_lemma_one_coqc(benchmark):
    """Every lemma asked one by one in one coqc per group (before 2026-12-07)."""
    _ready()
    benchmark.extra_info["as_baseline"] = "per-lemma queries in parallel coqc / in one coqc"
    benchmark.pedantic(_ask, args=("1", benchmark.extra_info), rounds=1, iterations=1)


def test_bench_formal_per_lemma_parallel(benchmark):
    """The same lemmas dealt to up to one coqc per core (at most 4): what ``make formal`` does."""
    _ready()
    benchmark.extra_info["baseline"] = "test_bench_formal_per_lemma_one_coqc"
    benchmark.pedantic(_ask, args=(None, benchmark.extra_info), rounds=1, iterations=1)
