"""``check RN.main`` on a user's 512 x 768 float32 ``.npy`` against ``check rank-neutrality`` as it was before
issue 28 (same run; ratio = figure / baseline; target <= 1.2, end to end).

End to end (the target): both commands run as real processes, interpreter start included, as a user runs them
(book/reference/performance.md measures commands the same way). The baseline is the command of the commit this
work started from (:data:`BASE`, extracted with ``git archive`` into a temporary folder and run with the same
interpreter); skipped when git or that commit is not at hand.

In process (the same target, stricter: no interpreter start to share): the new command through ``main`` against the
old path's work (parse, ``np.load``, :func:`theorems.exact.norm_exact.analyse_array`, the JSON record). The new command
also computes the float64 numerical rank and singular-value gap beside the exact ranks (for this well-conditioned X
from the Gram matrix's eigenvalues, 0.1 s; an SVD would be 0.35 s) and decides three readings on the one analysis.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import numpy as np
import pytest

from proofs_numeric.cli import build_parser, main
from proofs_numeric.ledger import registry
from theorems.exact.norm_exact import analyse_array

pytestmark = pytest.mark.benchmark
ROOT = Path(__file__).resolve().parents[1]
#: the commit before issue 28 (the hand-written `check rank-neutrality`)
BASE = "675a13c"


@pytest.fixture(scope="module")
def x_npy(tmp_path_factory):
    p = tmp_path_factory.mktemp("check") / "X.npy"
    np.save(p, np.random.default_rng(28).normal(0, 0.02, size=(512, 768)).astype(np.float32))
    registry()  # the claims are loaded once per process, as by the command's own import
    return str(p)


@pytest.fixture(scope="module")
def old_tree(tmp_path_factory):
    git = shutil.which("git")
    if git is None:
        pytest.skip("git not found: the command before issue 28 cannot be extracted")
    out = tmp_path_factory.mktemp("before")
    p = subprocess.run([git, "-C", str(ROOT), "archive", BASE, "theorems", "proofs_numeric"], capture_output=True)
    if p.returncode != 0:
        pytest.skip(f"commit {BASE} is not in this repository ({p.stderr.decode()[:200]})")
    with tarfile.open(fileobj=io.BytesIO(p.stdout)) as t:
        t.extractall(out, filter="data")
    return str(out)


def _run(argv, pythonpath=None):
    env = {**os.environ, **({"PYTHONPATH": pythonpath} if pythonpath else {})}
    p = subprocess.run([sys.executable, "-m", "proofs_numeric", *argv], capture_output=True, text=True, env=env,
                       cwd=pythonpath or str(ROOT), timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    return json.loads(p.stdout)


def test_bench_check_rn_main_512x768_float32_end_to_end(benchmark, x_npy):
    benchmark.extra_info.update(baseline="test_bench_check_rank_neutrality_before_end_to_end_baseline",
                                target_ratio=1.2)
    rec = benchmark.pedantic(_run, args=(["check", "RN.main", "--X", x_npy, "--json", "--seed", "0"],), rounds=3,
                             iterations=1)["claims"][0]  # the check document's one claim record
    lit = rec["readings"][0]
    assert lit["on_this_instance"] == "premise-fails" and lit["hypotheses"]["H4"]["value"] == "fails"  # n < d
    assert rec["numerical"]["X"]["rank"] == 512


def test_bench_check_rank_neutrality_before_end_to_end_baseline(benchmark, x_npy, old_tree):
    rec = benchmark.pedantic(_run, args=(["check", "rank-neutrality", "--X", x_npy, "--json", "--seed", "0"],),
                             kwargs={"pythonpath": old_tree}, rounds=3, iterations=1)
    assert rec["hypotheses"]["H4"]["holds"] is False  # the same answer, in the old record


def _old_check_rank_neutrality(path: str) -> str:
    build_parser().parse_args(["check", "rank-neutrality", "--X", path, "--json"])
    a = analyse_array(np.load(path, allow_pickle=False), seed=0)
    return json.dumps(a.to_json(), indent=1)


def _check_rn_main(path: str) -> dict:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["check", "RN.main", "--X", path, "--json", "--seed", "0"]) == 0
    return json.loads(buf.getvalue())["claims"][0]  # the check document's one claim record


def test_bench_check_rn_main_512x768_float32_in_process(benchmark, x_npy):
    benchmark.extra_info.update(baseline="test_bench_check_rank_neutrality_before_in_process_baseline",
                                target_ratio=1.2)
    rec = benchmark.pedantic(_check_rn_main, args=(x_npy,), rounds=5, iterations=1, warmup_rounds=1)
    assert rec["readings"][0]["on_this_instance"] == "premise-fails"


def test_bench_check_rank_neutrality_before_in_process_baseline(benchmark, x_npy):
    benchmark.pedantic(_old_check_rank_neutrality, args=(x_npy,), rounds=5, iterations=1, warmup_rounds=1)
