"""The cold ledger (issue 59; ``make bench``): ``collapse-verify verify`` in a fresh copy of the source, the Coq build
and the results store empty, against the same work done the way it was before this round: the Coq proofs compiled
and queried first, then the claims.

Each run copies ``theorems/``, ``proofs_numeric/`` and ``pyproject.toml`` into a folder of its own (no ``_build``, no
``__pycache__``), points ``COLLAPSE_VERIFY_CACHE`` at an empty folder and runs the command line there with this
virtualenv's Python (``PYTHONPATH`` = the copy). ``serial``: one process compiles and checks every lemma
(:func:`theorems.formal.check`, what the first formal claim did), then ``verify`` runs (its formal check reads the
verdicts the first process stored); ``overlapped``: ``verify`` alone, which compiles in the background while the
claims without formal lemmas run. Both run the claims on one BLAS thread (the ledger does since this round), so the
ratio is the overlap's own gain; the figure records each run's printed ledger time (``collapse-verify ledger: N
claims, T s``) and its slowest claim. One round each (minutes): the ratio is from this run.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from theorems.framework import REPO_ROOT

pytestmark = pytest.mark.benchmark

_IGNORE = shutil.ignore_patterns("_build", "__pycache__", "*.pyc", ".collapse-verify-cache")
_COMPILE_AND_CHECK = "from theorems import formal; r = formal.check(); print(sum(bool(x.accepted) for x in r.values()))"


def _copy(root: Path) -> Path:
    dest = root / "src"
    dest.mkdir()
    for name in ("theorems", "proofs_numeric"):
        shutil.copytree(REPO_ROOT / name, dest / name, ignore=_IGNORE)
    shutil.copy2(REPO_ROOT / "pyproject.toml", dest / "pyproject.toml")
    return dest


def _run(args: list[str], cwd: Path, store: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(cwd), "COLLAPSE_VERIFY_CACHE": str(store), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=3600)


def _cold(serial: bool, info: dict) -> float:
    with tempfile.TemporaryDirectory(prefix="collapse-verify-cold-") as tmp:
        src, store = _copy(Path(tmp)), Path(tmp) / "store"
        t0 = time.perf_counter()
        if serial:
            pre = _run(["-c", _COMPILE_AND_CHECK], src, store)
            assert pre.returncode == 0, pre.stderr[-2000:]
            info["formal first (s)"] = round(time.perf_counter() - t0, 1)
        out = _run(["-m", "proofs_numeric", "verify", "--json", str(Path(tmp) / "ledger.json")], src, store)
        wall = time.perf_counter() - t0
        assert out.returncode == 0, out.stderr[-2000:]
        head = re.search(r"collapse-verify ledger: (\d+) claims, ([\d.]+) s", out.stdout)
        assert head, out.stdout[:2000]
        info["printed ledger time (s)"] = float(head.group(2))
        times = [(float(s), cid) for cid, s in re.findall(r"^\[\d+/\d+\] (\S+): \S+ \(([\d.]+) s\)$", out.stderr,
                                                          re.M)]
        info["slowest claim"] = "%s %.1f s" % max(times)[::-1] if times else None
        return wall


def test_bench_cold_ledger_serial_baseline(benchmark):
    """The Coq proofs compiled and checked first, then the ledger (the order before this round)."""
    if shutil.which("coqc") is None:
        pytest.skip("coqc not installed: the cold ledger has no Coq build to overlap")
    benchmark.extra_info["as_baseline"] = "cold verify, Coq overlapped / Coq first"
    benchmark.pedantic(_cold, args=(True, benchmark.extra_info), rounds=1, iterations=1)


def test_bench_cold_ledger(benchmark):
    """``verify`` in a cold copy: the Coq check in the background, the claims without formal lemmas meanwhile."""
    if shutil.which("coqc") is None:
        pytest.skip("coqc not installed: the cold ledger has no Coq build to overlap")
    benchmark.extra_info["baseline"] = "test_bench_cold_ledger_serial_baseline"
    benchmark.extra_info["meaning"] = "cold verify, Coq overlapped / Coq first (issue 59 asks 1/3 of the old ledger)"
    benchmark.pedantic(_cold, args=(False, benchmark.extra_info), rounds=1, iterations=1)
