"""Claims at every site of a model (issues 30, 31; ``make bench``).

1. The default claims (``real-model``'s set) at every site of a BERT-base-shaped synthetic checkpoint (12 layers,
   d = 768, H = 12, d_ff = 3072, seeded random F32 weights; n = 128 seeded random tokens), in this process
   (``--workers 1``) and on 2 local worker processes (``--workers 2``): the ratio is printed by ``conftest.py`` (same
   run). Both runs must give the same records apart from ``seconds``. Then every RN / RRO / RC / HC / RA claim with a
   site form (issue 59) on the same checkpoint with ``--workers 2``: its time, the verdict counts, the seconds per
   claim and the readings still refused by a size limit, each with its reason (``extra_info``).
2. Peak memory against depth: LLaMA-shaped synthetic checkpoints (d = 4096, d_ff = 11008, 32 query / 8 key-value
   heads, bf16) with 2 and with 4 layers, written into a temporary folder here (never committed), each checked with
   the default claims by the command itself under ``/usr/bin/time -v`` (its "Maximum resident set size"): the peak
   must not grow from 2 to 4 layers (one layer's weights plus one forward's activations). The records' seconds per
   site are recorded beside it. ``COLLAPSE_BENCH_LLAMA_TOKENS`` sets n (default 512, the issue's size).

The checkpoints are written by :mod:`proofs_numeric.model.synthetic` (the safetensors library, in shards of at most
256 MB; BF16 by hand, one tensor at a time).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from proofs_numeric.ledger import model_check as MC
from proofs_numeric.ledger import registry
from proofs_numeric.model import synthetic as SY
from proofs_numeric.witnesses import real_model as RM

pytestmark = pytest.mark.benchmark

BERT_TOKENS = 128
LLAMA_TOKENS = int(os.environ.get("COLLAPSE_BENCH_LLAMA_TOKENS", "512"))
TIME = shutil.which("time") or "/usr/bin/time"


def _canon(records) -> list[str]:
    return MC.canonical_records(records)


@pytest.fixture(scope="module")
def bert_base(tmp_path_factory):
    return SY.write_random(tmp_path_factory.mktemp("bert-base") / "ckpt", SY.BERT_BASE, seed=0)


_RECORDS: dict = {}


def _run(folder, workers: int, jsonl) -> MC.Summary:
    registry()
    Path(jsonl).unlink(missing_ok=True)
    out = MC.run(MC.RunSpec(models=[str(folder)], claims=RM.default_claims(), length=BERT_TOKENS, token_seed=0,
                            jsonl=str(jsonl), workers=workers, network_layers=0, progress=False))
    assert not out.errors and not out.failures
    return out


@pytest.mark.parametrize("workers", [1, 2])
def test_bench_sites_bert_base(benchmark, bert_base, tmp_path, workers):
    """Default claims at every site of a BERT-base-shaped checkpoint, n = 128: serial, then 2 local workers."""
    if workers > 1:
        benchmark.extra_info["baseline"] = "test_bench_sites_bert_base[1]"
    out = benchmark.pedantic(_run, args=(bert_base, workers, tmp_path / "r.jsonl"), rounds=1, iterations=1)
    recs = MC.read_records(tmp_path / "r.jsonl")
    _RECORDS[workers] = _canon(recs)
    benchmark.extra_info["records"] = len(recs)
    benchmark.extra_info["sites"] = len({r["site"] for r in recs})
    benchmark.extra_info["checked_records"] = sum(r["on_this_instance"] is not None for r in recs)
    assert out.written == len(recs) > 0
    if 1 in _RECORDS and workers != 1:
        assert _RECORDS[workers] == _RECORDS[1]  # the same records as the serial run, apart from seconds


#: the claim families issue 59 asks for at every site of a BERT-base-shaped checkpoint
EVERY_CLAIM = "RN.*,RRO.*,RC.*,HC.*,RA.*"
#: the words of a size refusal (a record refused because an input is larger than a path's limit)
SIZE_REFUSAL = ("MAX_ENTRIES", "the interval checks accept at most")


def test_bench_sites_bert_base_every_claim(benchmark, bert_base, tmp_path):
    """Every RN / RRO / RC / HC / RA claim with a site form at every site of the BERT-base-shaped checkpoint, n = 128,
    on 2 local worker processes (issue 59). Records how many records each verdict has and, per reading, why the
    sites it did not check were not checked; the size refusals are counted apart (``size_refused``: the readings
    whose path still has a size limit below these shapes, each named)."""
    jsonl = tmp_path / "every.jsonl"

    def run():
        registry()
        jsonl.unlink(missing_ok=True)
        return MC.run(MC.RunSpec(models=[str(bert_base)], claims=MC.select_claims(EVERY_CLAIM), length=BERT_TOKENS,
                                 token_seed=0, jsonl=str(jsonl), workers=2, network_layers=0, progress=False))

    out = benchmark.pedantic(run, rounds=1, iterations=1)
    assert not out.errors and not out.failures, (out.errors[:3], out.failures)
    recs = MC.read_records(jsonl)
    verdicts: dict = defaultdict(int)
    refused: dict = {}
    for r in recs:
        verdicts[r["on_this_instance"] or "not-checked"] += 1
        why = r.get("not_checked") or ""
        if any(w in why for w in SIZE_REFUSAL):
            refused[f"{r['claim']}:{r['reading']}"] = why[:160]
    benchmark.extra_info["records"] = len(recs)
    benchmark.extra_info["claims"] = len({r["claim"] for r in recs})
    benchmark.extra_info["sites"] = len({r["site"] for r in recs})
    benchmark.extra_info["verdicts"] = dict(verdicts)
    benchmark.extra_info["size_refused"] = refused
    benchmark.extra_info["seconds_by_claim"] = {c: round(sum(r["seconds"] for r in recs if r["claim"] == c), 1)
                                                for c in sorted({r["claim"] for r in recs})}
    assert len(recs) > 0


def _command() -> list[str]:
    exe = Path(sys.executable).parent / "collapse-verify"
    if exe.exists():
        return [str(exe)]
    return [sys.executable, "-c", "import sys; from proofs_numeric.cli import main; sys.exit(main(sys.argv[1:]))"]


def peak_memory(folder, tokens: int, jsonl) -> dict:
    """``check DEFAULT --model folder --length tokens --workers 1`` under ``/usr/bin/time -v``: its peak resident set
    (kB), wall seconds, and the records' seconds per site kind (mean over the sites of that kind)."""
    Path(jsonl).unlink(missing_ok=True)
    cmd = [TIME, "-v", *_command(), "check", ",".join(RM.DEFAULT_CLAIMS), "--model", str(folder), "--length",
           str(tokens), "--workers", "1", "--network-layers", "0", "--jsonl", str(jsonl), "--progress", "lines"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr[-2000:]}")
    kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", p.stderr).group(1)
    secs = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall.split(":"))))
    user = float(re.search(r"User time \(seconds\): ([\d.]+)", p.stderr).group(1))
    per_site: dict = defaultdict(float)
    for r in MC.read_records(jsonl):
        per_site[(r["site_kind"], r["site"])] += r["seconds"]
    by_kind: dict = defaultdict(list)
    for (kind, _), s in per_site.items():
        by_kind[kind].append(s)
    checked = sorted({(r["claim"], r["reading"]) for r in MC.read_records(jsonl) if r["on_this_instance"] is not None})
    return {"peak_kb": kb, "wall_seconds": secs, "user_seconds": user,
            "seconds_per_site": {k: sum(v) / len(v) for k, v in by_kind.items()}, "checked": checked}


def test_bench_sites_llama_peak_memory_2_vs_4_layers(benchmark, tmp_path_factory):
    """LLaMA-shaped bf16 checkpoints of 2 and 4 layers: the peak resident set of the command must not grow with the
    layers (5% and 64 MB of slack for the allocator)."""
    if not Path(TIME).exists():
        pytest.skip("/usr/bin/time not found (Debian: apt-get install time)")
    root = tmp_path_factory.mktemp("llama")
    folders = {L: SY.write_random(root / f"llama-{L}", SY.llama_config(layers=L), seed=0, dtype="BF16") for L in (2, 4)}
    res = {}

    def both():
        for L, f in folders.items():
            res[L] = peak_memory(f, LLAMA_TOKENS, root / f"{L}.jsonl")
        return res

    benchmark.pedantic(both, rounds=1, iterations=1)
    for L, r in res.items():
        benchmark.extra_info[f"peak_MB_{L}_layers"] = r["peak_kb"] / 1024
        benchmark.extra_info[f"wall_s_{L}_layers"] = r["wall_seconds"]
        for kind, s in r["seconds_per_site"].items():
            benchmark.extra_info[f"s_per_{kind}_site_{L}_layers"] = s
    benchmark.extra_info["tokens"] = LLAMA_TOKENS
    benchmark.extra_info["peak_ratio_4_over_2"] = res[4]["peak_kb"] / res[2]["peak_kb"]
    assert res[4]["peak_kb"] <= 1.05 * res[2]["peak_kb"] + 64 * 1024
