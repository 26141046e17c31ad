"""Ctrl-C ends a parallel ``check --model`` run (real signals, real processes).

SIGINT to the process group (what a terminal's Ctrl-C sends) or SIGTERM to the process, during a run on a Dask
LocalCluster (``--workers 2``, ``--scheduler local``): the run stops submitting, waits a bounded time for the running
tasks, closes the cluster and exits 130 with one line on stderr and no traceback; the count it prints is the number of
records in the file, no process of its group is left behind, and the ``--resume`` command it prints completes the run
with no duplicate and nothing lost. A second Ctrl-C exits at once, still in one line. The bounds are generous (60 s)
so that a loaded 2-core machine does not flake; on a quiet one each stop takes a few seconds.
"""
from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from proofs_numeric.ledger import model_check as MC
from proofs_numeric.ledger import registry
from proofs_numeric.model import sites as S
from property_tests.interface.test_checkpoints import (
    bert_config,
    bert_tensors,
    gpt2_config,
    gpt2_tensors,
    llama_config,
    llama_tensors,
    write_checkpoint,
)

pytestmark = pytest.mark.slow

CLAIMS = "RN.*,RRO.*,HC.*,RA.*"
BOUND = 60.0
#: the command line, without the installed script (the same interpreter as the tests)
CLI = [sys.executable, "-c", "import sys; from proofs_numeric.cli import main; sys.exit(main())"]


@pytest.fixture(scope="module")
def ckpts(tmp_path_factory):
    root = tmp_path_factory.mktemp("sigint")
    W = write_checkpoint
    return [W(root / "bert", bert_config(), bert_tensors(np.random.default_rng(1))),
            W(root / "gpt2", gpt2_config(), gpt2_tensors(np.random.default_rng(2)), shards=2),
            W(root / "llama", llama_config(), llama_tensors(np.random.default_rng(3)), dt="BF16")]


@pytest.fixture(scope="module")
def reference(ckpts, tmp_path_factory):
    """The records of an uninterrupted serial run (in this process)."""
    registry()
    p = tmp_path_factory.mktemp("ref") / "serial.jsonl"
    out = MC.run(MC.RunSpec(models=[str(c) for c in ckpts], claims=MC.select_claims(CLAIMS), length=16,
                            jsonl=str(p), workers=1, progress=False))
    assert not out.errors and not out.failures
    return MC.canonical_records(MC.read_records(p))


def _count(path) -> int:
    try:
        with open(path, "rb") as f:
            return sum(1 for line in f if line.endswith(b"\n"))
    except FileNotFoundError:
        return 0


def _group_gone(pgid: int, within: float = 30.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def _interrupt(ckpts, out, extra, signals=(signal.SIGINT,), to_group=True, after=20):
    """Start the run in its own process group, send ``signals`` (0.3 s apart) once ``after`` records are on disk;
    (exit code, stdout, stderr, seconds from the first signal to the exit)."""
    argv = ["check", CLAIMS, "--model", *map(str, ckpts), "--length", "16", "--jsonl", str(out), "--progress",
            "lines", *extra]
    p = subprocess.Popen(CLI + argv, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        deadline = time.monotonic() + 5 * BOUND
        while _count(out) < after and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert p.poll() is None, "the run ended before it could be interrupted: " + p.stderr.read()
        t0 = time.monotonic()
        for i, sig in enumerate(signals):
            if i:
                time.sleep(0.3)
            os.killpg(p.pid, sig) if to_group else os.kill(p.pid, sig)
        so, se = p.communicate(timeout=BOUND)
        took = time.monotonic() - t0
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
    assert _group_gone(p.pid), "a process of the run outlived it"
    return p.returncode, so, se, took


def _the_line(err: str, out) -> tuple[int, str]:
    """The interrupted run's one line (the only other lines are the progress lines of finished checkpoints): the
    record count it prints and the command it says resumes the run."""
    assert "Traceback" not in err and "Error" not in err and "WARNING" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    said = [ln for ln in lines if "interrupted" in ln]
    assert len(said) == 1 and lines[-1] == said[0], err
    assert all(" records (" in ln for ln in lines[:-1]), err  # "<checkpoint>: N records (...) in T s"
    head, _, command = said[0].partition("; continue with: ")
    count = int(head.rsplit(": ", 1)[1].split()[0])
    assert head.endswith(f"records in {out}")
    return count, command


def _resume(command: str, reference) -> None:
    words = shlex.split(command)
    assert words[0] == "collapse-verify" and "--resume" in words and "--jsonl" not in words
    done = subprocess.run(CLI + words[1:], capture_output=True, text=True, timeout=10 * BOUND)
    assert done.returncode == 0, done.stderr
    recs = MC.read_records(words[words.index("--resume") + 1])
    assert len(recs) == len({S.record_key(r) for r in recs})  # no duplicate
    assert MC.canonical_records(recs) == reference  # nothing lost


@pytest.mark.parametrize("extra", [("--workers", "2"), ("--workers", "2", "--scheduler", "local")],
                         ids=["workers-2", "scheduler-local"])
def test_interrupt_sigint_to_the_group_ends_the_run_and_resume_completes_it(ckpts, reference, tmp_path, extra):
    out = tmp_path / "run.jsonl"
    code, so, se, took = _interrupt(ckpts, out, extra)
    assert code == 130 and so == "" and took < BOUND
    count, command = _the_line(se, out)
    assert 0 < count == len(MC.read_records(out)) < len(reference)
    _resume(command, reference)


def test_interrupt_sigterm_ends_the_run_the_same_way(ckpts, reference, tmp_path):
    out = tmp_path / "run.jsonl"
    code, so, se, took = _interrupt(ckpts, out, ("--workers", "2"), signals=(signal.SIGTERM,), to_group=False)
    assert code == 130 and so == "" and took < BOUND
    count, _ = _the_line(se, out)
    assert 0 < count == len(MC.read_records(out))


def test_interrupt_a_second_ctrl_c_exits_at_once_in_one_line(ckpts, reference, tmp_path):
    out = tmp_path / "run.jsonl"
    code, so, se, took = _interrupt(ckpts, out, ("--workers", "2"), signals=(signal.SIGINT, signal.SIGINT))
    assert code == 130 and so == "" and took < BOUND
    count, command = _the_line(se, out)
    assert "interrupted again, stopped at once" in se
    assert 0 < count == len(MC.read_records(out))
    _resume(command, reference)
