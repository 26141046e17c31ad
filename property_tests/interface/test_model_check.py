"""Claims at the sites of a model (``check CLAIM --model DIR``): records, resume, what a verdict is about, workers.

Tiny checkpoints of each family are written here with the independent safetensors writer of
``test_checkpoints.py`` (deterministic: fixed seeds, d = 32-48, 2 layers). The per-site decision is the claims' own
predicates; these tests check what the driver adds: one record per (site, claim, reading, about.level) with the
fixed fields (each validated against model-record.schema.json), the same set of records after an interruption
and ``--resume``, on local worker processes and on a Dask LocalCluster
(marker slow), with a worker killed mid-run; what a record is about (float computation vs the network), and that
rounding noise is not called a rank.
"""
from __future__ import annotations

import json
import os
import re
import signal

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from proofs_numeric.cli import main
from proofs_numeric.core.schemas import validate
from proofs_numeric.ledger import get, registry
from proofs_numeric.ledger import model_check as MC
from proofs_numeric.model import network as NW
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
from theorems.exact.input import BadInput
from theorems.exact.norm_exact import analyse_array

FIELDS = {"checkpoint", "site", "claim", "reading", "on_this_instance", "hypotheses", "conclusion", "about",
          "arithmetic", "seconds", "token_ids", "config_hash", "input"}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("sites")
    W = write_checkpoint
    return {"bert": W(root / "bert", bert_config(), bert_tensors(np.random.default_rng(1))),
            "gpt2": W(root / "gpt2", gpt2_config(), gpt2_tensors(np.random.default_rng(2)), shards=2),
            "llama": W(root / "llama", llama_config(), llama_tensors(np.random.default_rng(3)), dt="BF16")}


def _records(path) -> list[dict]:
    """The stream's records, the marker line and every record validated against model-record.schema.json."""
    recs = MC.read_records(path)
    lines = [ln for ln in open(path).read().splitlines() if ln.strip()]
    for ln in lines[:len(recs)]:  # each line as written: the marker is in every record (a torn last line is not)
        validate(json.loads(ln), "model-record")
    return recs


def _canon(records) -> list[str]:
    return MC.canonical_records(records)


def _run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


NORM_SITES = {"bert": 5, "gpt2": 5, "llama": 5}  # post-LN: embeddings + 2 per layer; pre-LN: 2 per layer + final


def _svd_basis(M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The reference: the numerical row space of M from M's own SVD (what `layer_measurements` computed before)."""
    _, s, Vt = np.linalg.svd(M, full_matrices=False)
    k = int(np.sum(s > S.RANK_RTOL * s[0])) if s.size and s[0] > 0 else 0
    return Vt[:k].T, s


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), k=st.integers(1, 8), d=st.integers(1, 24),
       ry=st.integers(0, 8), rw=st.integers(0, 8), scale=st.integers(-6, 6))
def test_model_check_product_basis_is_the_row_space_of_the_product(seed, n, k, d, ry, rw, scale):
    """`product_basis(Y, W)` (QR of W^T, then the SVD of the small Y R^T) spans the numerical row space of Y W that
    the SVD of the product gives: the same dimension, the same orthogonal projector (to 1e-8), orthonormal columns,
    wherever no singular value lies within a factor 1e3 of the threshold (the threshold itself: the next test);
    Y and W are drawn of full, deficient or zero rank (ry, rw: rank caps, 0 a zero matrix), W scaled by 10^scale."""
    rng = np.random.default_rng(seed)
    ry, rw = min(ry, n, k), min(rw, k, d)
    Y = rng.standard_normal((n, ry)) @ rng.standard_normal((ry, k))
    W = rng.standard_normal((k, rw)) @ rng.standard_normal((rw, d)) * 10.0 ** scale
    B = S.product_basis(Y, W)
    ref, s = _svd_basis(Y @ W)
    r = ref.shape[1]
    # away from the threshold only: a singular value within a factor 1e3 of RANK_RTOL * s_max may round either way
    assume(all(not (S.RANK_RTOL * 1e-3 < v / s[0] < S.RANK_RTOL * 1e3) for v in s) if s[0] > 0 else True)
    assert B.shape == (d, r)
    assert np.allclose(B.T @ B, np.eye(r), atol=1e-10)
    if r:
        assert np.linalg.norm(B @ B.T - ref @ ref.T, 2) < 1e-8


def test_model_check_product_basis_counts_singular_values_at_the_threshold():
    """Y W = U diag(s) V^T with s = (1, 0.5, 3 RANK_RTOL, RANK_RTOL / 3): three directions count, the fourth does not,
    and the basis spans the first three columns of V."""
    rng = np.random.default_rng(7)
    n, k, d = 9, 4, 11
    U = np.linalg.qr(rng.standard_normal((n, k)))[0]
    V = np.linalg.qr(rng.standard_normal((d, k)))[0]
    s = np.array([1.0, 0.5, 3 * S.RANK_RTOL, S.RANK_RTOL / 3])
    B = S.product_basis(U * s, V.T)
    assert B.shape == (d, 3)
    assert np.linalg.norm(B @ B.T - V[:, :3] @ V[:, :3].T, 2) < 1e-6


def test_model_check_product_basis_of_a_rank_one_product_and_of_zero():
    """Hand-made cases: Y W of rank one spans W's first row direction; Y = 0 gives an empty basis of d rows."""
    W = np.array([[1.0, 2.0, 2.0], [0.0, 1.0, 0.0]])
    Y = np.array([[3.0, 0.0], [-1.0, 0.0]])  # Y W = outer((3, -1), W[0])
    B = S.product_basis(Y, W)
    assert B.shape == (3, 1) and np.allclose(abs(B[:, 0]), np.array([1.0, 2.0, 2.0]) / 3.0)
    assert S.product_basis(np.zeros((4, 2)), W).shape == (3, 0)


@pytest.mark.parametrize("fam", ["bert", "gpt2", "llama"])
def test_model_check_one_record_per_norm_site_and_reading(tiny, tmp_path, capsys, fam):
    """`check 'RN.*' --model` gives, for every norm site, one record per RN reading with the fixed fields; at an
    RMSNorm site (llama) each says why it does not apply."""
    p = tmp_path / "rn.jsonl"
    code, out, err = _run(capsys, "check", "RN.main", "--model", str(tiny[fam]), "--length", "8", "--workers", "1",
                          "--jsonl", str(p), "--network-layers", "0")
    assert code == 0, err
    recs = _records(p)
    readings = [r.key for r in get("RN.main").all_readings() if r.key in S.site_kinds_of(get("RN.main"))]
    sites = {S.SiteId.parse(r["site"]) for r in recs}
    assert len(sites) == NORM_SITES[fam] and all(s.is_norm for s in sites)
    assert len(recs) == NORM_SITES[fam] * len(readings)
    for r in recs:
        assert FIELDS <= set(r), FIELDS - set(r)
        assert r["about"]["level"] in S.LEVELS and r["token_ids"] == recs[0]["token_ids"]
        assert r["config_hash"].startswith("sha256:") and len(r["config_hash"]) == 71
    if fam == "llama":
        assert all(r["on_this_instance"] is None and "rmsnorm-input" in r["not_checked"] for r in recs)
    else:
        assert all(r["on_this_instance"] in ("holds", "counterexample", "premise-fails", "undecided") for r in recs)
        # the trained-model reading's premise is where X comes from: met at every site of a checkpoint
        assert {h for r in recs for h in r["hypotheses"]} == {"H1", "H2", "H3", "H4", "1_n notin col(X)",
                                                              "a LayerNorm input of a trained model"}
        assert all(r["hypotheses"]["a LayerNorm input of a trained model"]["value"] == "holds" for r in recs
                   if r["reading"] == "trained-model")
    assert "claims at the sites" in out


def test_model_check_rmsnorm_claims_at_llama_norm_sites(tiny, tmp_path, capsys):
    p = tmp_path / "rms.jsonl"
    code, _, err = _run(capsys, "check", "USER.rmsnorm-*", "--model", str(tiny["llama"]), "--length", "4",
                        "--workers", "1", "--jsonl", str(p))
    assert code == 0, err
    recs = _records(p)
    assert len({r["site"] for r in recs}) == 5 and len(recs) == 10
    assert all(r["on_this_instance"] in ("holds", "counterexample", "premise-fails", "undecided") for r in recs)


def test_model_check_resume_after_an_interruption_gives_the_same_records(tiny, tmp_path, monkeypatch):
    """A run interrupted mid-way (Ctrl-C in a task) leaves a valid stream; a torn last line is dropped; --resume
    then writes exactly the missing records: the same set as an uninterrupted run."""
    registry()
    claims = MC.select_claims("RN.main,HC.main,RRO.only-increase")
    full = tmp_path / "full.jsonl"
    spec = lambda path, resume=False: MC.RunSpec(models=[str(tiny["bert"])], claims=claims, length=8, jsonl=str(path),
                                                resume=resume, workers=1, progress=False)
    MC.run(spec(full))
    want = _canon(_records(full))
    part = tmp_path / "part.jsonl"
    calls = {"n": 0}
    real = MC.consume_task

    def interrupted(*a, **k):  # Ctrl-C reaches the main thread while it writes the records of the 6th task
        calls["n"] += 1
        if calls["n"] == 6:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(MC, "consume_task", interrupted)
    out = MC.run(spec(part))
    monkeypatch.setattr(MC, "consume_task", real)
    assert out.interrupted and 0 < len(_records(part)) < len(want)
    with open(part, "a") as f:
        f.write('{"checkpoint": "torn')  # an interrupted write
    assert len(_records(part)) == out.written
    again = MC.run(spec(part, resume=True))
    assert again.skipped == out.written and again.written == len(want) - out.written
    assert _canon(_records(part)) == want
    assert MC.run(spec(part, resume=True)).written == 0  # nothing left to do; no forward pass either


def test_model_check_jsonl_exists_without_resume_is_refused(tiny, tmp_path, capsys):
    p = tmp_path / "x.jsonl"
    p.write_text('{"collapse_verify": {"kind": "model-check", "version": 1}}\n')
    code, _, err = _run(capsys, "check", "RN.main", "--model", str(tiny["bert"]), "--length", "4", "--jsonl", str(p))
    assert code == 2 and "--resume" in err
    code, _, err = _run(capsys, "check", "RN.main", "--model", str(tiny["bert"]), "--X", "[[1]]")
    assert code == 2 and "--X" in err


def test_model_check_identical_rows_are_numerical_rank_one_not_a_rounding_rank(tiny, tmp_path):
    """LLaMA on one repeated token: every row of every activation is the same real vector (the values are identical,
    the attention rows sum to 1). The float forward's rows differ by rounding, so the stored values have a larger
    exact rank; the record says numerical rank 1 and that the excess is rounding noise, about the float computation."""
    registry()
    ids = [7] * 8
    m = S.open_model(tiny["llama"])
    recs = S.run_serial(m, "llama", {"same": ids}, [get("RN.main")], network_layers=0)  # records not checked here,
    # their `about` says what the site's values are
    site = {r["site"]: r for r in recs}
    emb = site["L0.ln1.input"]["about"]
    assert emb["level"] == "network" and "stored embedding rows" in emb["how"]  # identical rows, exactly
    mid = site["L0.ln2.input"]["about"]
    X = mid["matrices"]["X"]
    assert mid["level"] == "float-computation"
    assert X["numerical_rank"] == 1 and X["gap"] > 1e8
    assert X["exact_rank_of_stored_values"] > 1  # today's "rank 4": the rounding of the float forward
    assert "rounding noise" in mid["caution"] and "not a rank of the network" in mid["caution"]


def test_model_check_network_records_agree_with_the_float_ones_where_both_decide(tiny):
    """The interval forward's enclosures contain the float forward's values (to rounding), and every hypothesis the
    network-level record decides agrees with the float-level record at the same site."""
    registry()
    m = S.open_model(tiny["bert"])
    ids = list(range(3, 11))
    recs = S.run_serial(m, "bert", {"x": ids}, [get("RN.main")], network_layers=2)
    by = {}
    for r in recs:
        by.setdefault((r["site"], r["reading"]), {})[r["about"]["level"]] = r
    both = [v for v in by.values() if len(v) == 2]
    assert len(both) == 4 * 3  # 2 layers x 2 sites x 3 readings (the embeddings are exact: one record)
    for v in both:
        f, n = v["float-computation"], v["network"]
        for h, hv in n["hypotheses"].items():
            if hv["value"] != "undecided":
                assert hv["value"] == f["hypotheses"][h]["value"], h
        assert n["about"]["how"].startswith("the network itself")
    rec = m.forward(ids)
    fl = {w: X for w, X, _ in rec["ln_inputs"]}
    for where, _li, X, _, _ in NW.forward_enclosures(m, ids, 2):
        mid = np.array([[float(X[i, j].mid()) for j in range(X.ncols())] for i in range(X.nrows())])
        assert np.allclose(mid, fl[where], rtol=1e-12, atol=1e-12), where


def test_model_check_interleaved_interval_forwards_keep_their_precision(tiny):
    """python-flint's precision is one value per process. Two interval forwards advanced in turn (as two checkpoints'
    forward threads are) give the enclosures of a forward run alone, and leave the process's precision as it was, also
    when one is abandoned mid-way. (Before the fix, the first to finish reset the precision to 53 bits under the other:
    its radii grew from 1e-46 to 1e-9 and the records of `--workers 2` differed from the serial run's.)"""
    import flint
    m = S.open_model(tiny["bert"])
    ids = list(range(3, 11))
    before = flint.ctx.prec
    radii = lambda items: [(w, NW.radius_stats(X)["max_radius"]) for w, _, X, _, _ in items]
    solo = radii(NW.forward_enclosures(m, ids, 2))
    A, B = NW.forward_enclosures(m, ids, 2), NW.forward_enclosures(m, ids, 2)
    a, b = [next(A)], [next(B)]
    a += list(A)  # A finishes while B is suspended
    b += list(B)
    assert radii(a) == solo and radii(b) == solo
    assert max(r for _, r in solo) < 1e-40  # at 50 digits, not at float64's 53 bits
    assert flint.ctx.prec == before
    C = NW.forward_enclosures(m, ids, 2)
    next(C), next(C)
    C.close()  # abandoned mid-way
    assert flint.ctx.prec == before


def _mapped_kb(path) -> int:
    """Resident kB of this process's maps of ``path`` (Linux /proc/self/smaps)."""
    total, inside = 0, False
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split()
            if head and "-" in head[0] and len(head) >= 5:  # a mapping's header line
                inside = len(head) >= 6 and head[-1] == str(path)
            elif inside and line.startswith("Rss:"):
                total += int(head[1])
    return total


@pytest.mark.skipif(not os.path.exists("/proc/self/smaps"), reason="reads /proc/self/smaps (Linux)")
@pytest.mark.xfail(strict=False, reason="since the tests' checkpoints are written by the safetensors library, 896 kB "
                   "of the map stay resident (limit 308 kB): W_Q/W_K 16 pages per layer and layer 0's W_O; the "
                   "release now covers the kernel's fault-around window (2112 -> 896 kB); see QUARANTINES.md")
def test_model_check_forward_keeps_no_earlier_layer_resident(tmp_path):
    """Bounded memory: after a forward through every layer (one at a time), the checkpoint's memory map holds none of
    the layers' pages (each tensor's pages are released once it is widened), so the resident size does not grow with
    the number of layers. 4 layers of 3 MB (d = 256, F32); before the release all 12 MB stayed resident."""
    registry()
    folder = write_checkpoint(tmp_path / "b4", bert_config(d=256, f=1024, layers=4),
                              bert_tensors(np.random.default_rng(4), d=256, f=1024, layers=4))
    m = S.open_model(folder)
    sites = list(S.forward_sites(m, list(range(3, 19)), "x", "b4"))
    assert len({s.layer for s in sites if s.layer is not None}) == 4
    per_layer_kb = sum(m.store.raw(n).nbytes for n in m.store.names() if ".layer.0." in n) / 1024
    assert per_layer_kb > 3000
    assert _mapped_kb(folder / "model.safetensors") < 0.1 * per_layer_kb


def test_model_check_enclosure_analysis_of_exact_points_is_the_exact_analysis():
    """On enclosures of radius 0 (exact float data), whatever the interval analysis decides is what the exact analysis
    of the same numbers says (it may leave more undecided, never decide differently)."""
    import flint
    rng = np.random.default_rng(0)
    for n, d in [(3, 5), (5, 5), (7, 4), (4, 6)]:
        X = rng.standard_normal((n, d))
        X[:, 0] = X[:, 1] if n == 5 else X[:, 0]
        g = rng.standard_normal(d)
        b = rng.standard_normal(d)
        A = flint.arb_mat(n, d, X.ravel().tolist())
        a = NW.enclosure_analysis(A, g, b)
        e = analyse_array(X, g, b, seed=0)
        for h in ("H1", "H2", "H3", "H4"):
            assert a.hypotheses[h] in (e.hypotheses[h], None)
        for k in ("rank_X", "arank_X", "rank_LN_X", "arank_LN_X"):
            assert getattr(a, k) in (getattr(e, k), None), k
        if n != 5:
            assert a.rank_X == e.rank_X  # full-rank random data: certified against the shape's bound


def test_model_check_wire_form_keeps_the_balls():
    import flint
    old = flint.ctx.prec
    flint.ctx.prec = 200
    try:
        M = flint.arb_mat(2, 2, [flint.arb(1) / 3, flint.arb(2).sqrt(), -flint.arb(7) / 11, 0])
    finally:
        flint.ctx.prec = old
    back = NW.from_wire(NW.to_wire(M))
    assert all(b.contains(a) for a, b in zip(M.entries(), back.entries()))
    assert max(float(b.rad()) for b in back.entries()) < 1e-55


@pytest.mark.parametrize("fam", ["bert", "gpt2", "llama"])
def test_model_check_site_plan_is_what_the_forward_yields(tiny, fam):
    registry()
    m = S.open_model(tiny[fam])
    claims = MC.select_claims("RN.main,HC.main,RA.main,RC.rank-equals-sum,RRO.only-increase,USER.rmsnorm-*")
    ids = [3, 1, 4, 1, 5, 9]
    got = [(s.id, s.kind, s.level, items) for s, items in S.site_tasks(m, "x", "in", ids, claims)]
    assert got == S.site_plan(m, ids, claims)


@pytest.mark.slow
def test_model_check_workers_give_the_serial_records(tiny, tmp_path):
    """--workers 2 (a Dask LocalCluster) gives the same set of records as the serial run, apart from timings."""
    registry()
    claims = MC.select_claims("RN.main,HC.main,RA.main,RRO.only-increase")
    models = [str(tiny["bert"]), str(tiny["gpt2"]), str(tiny["llama"])]
    runs = {}
    for w in (1, 2):
        p = tmp_path / f"w{w}.jsonl"
        out = MC.run(MC.RunSpec(models=models, claims=claims, length=6, jsonl=str(p), workers=w, progress=False))
        assert not out.errors and not out.failures
        runs[w] = _canon(_records(p))
    assert runs[1] == runs[2] and len(runs[1]) > 50


@pytest.mark.slow
def test_model_check_a_killed_local_worker_loses_nothing(tiny, tmp_path):
    """--workers 2 (a Dask LocalCluster): a worker process killed by its PID mid-run is replaced by its nanny, its tasks
    are rescheduled, and every record is written exactly once (the records of the serial run)."""
    registry()
    claims = MC.select_claims("RN.main,HC.main,RRO.only-increase")
    models = [str(tiny["bert"]), str(tiny["gpt2"])]
    want_p = tmp_path / "serial.jsonl"
    MC.run(MC.RunSpec(models=models, claims=claims, length=6, jsonl=str(want_p), workers=1, progress=False))
    want = _canon(_records(want_p))
    p = tmp_path / "killed.jsonl"
    pools, killed = [], {}
    real_pool = MC.DaskPool

    class Spy(real_pool):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            pools.append(self)

    from proofs_numeric.output import RecordStream
    real_write = RecordStream.write

    def write_then_kill(self, record):  # deterministic: the kill follows the 3rd record, in the writing thread
        real_write(self, record)
        if "at" not in killed and pools and str(self.path) == str(p) and self.written >= 3:
            pid = pools[0].pids()[0]
            os.kill(pid, signal.SIGKILL)
            killed.update(pid=pid, at=self.written)

    MC.DaskPool = Spy
    RecordStream.write = write_then_kill
    try:
        out = MC.run(MC.RunSpec(models=models, claims=claims, length=6, jsonl=str(p), workers=2, progress=False))
    finally:
        MC.DaskPool = real_pool
        RecordStream.write = real_write
    recs = _records(p)
    assert not out.errors and killed["at"] < len(want)  # killed mid-run
    assert len(recs) == len({S.record_key(r) for r in recs})  # exactly once
    assert _canon(recs) == want


def test_model_check_corrupted_shard_is_a_named_error_and_the_others_run(tiny, tmp_path, capsys):
    import shutil
    bad = tmp_path / "gpt2-bad"
    shutil.copytree(tiny["gpt2"], bad)
    shard = sorted(bad.glob("model-*.safetensors"))[1]
    data = shard.read_bytes()
    shard.write_bytes(data[: len(data) // 2])  # a truncated download
    p = tmp_path / "r.jsonl"
    code, out, err = _run(capsys, "check", "RN.main", "--model", str(bad), str(tiny["bert"]), "--length", "4",
                          "--workers", "1", "--jsonl", str(p), "--json")
    assert code == 2
    summary = json.loads(out)
    assert str(bad) in summary["failures"] and "inconsistent" in summary["failures"][str(bad)]
    assert {r["checkpoint"] for r in _records(p)} == {str(tiny["bert"])}


def test_model_check_progress_lines_when_piped(tiny, tmp_path, capsys, monkeypatch):
    """Without a terminal: a line at once with the task count (a long run is never silent from its start), then
    progress lines as tasks finish (here every task: PROGRESS_EVERY = 0), and one line per finished checkpoint."""
    monkeypatch.setattr(MC, "PROGRESS_EVERY", 0.0)
    code, _, err = _run(capsys, "check", "RN.main", "--model", str(tiny["bert"]), str(tiny["gpt2"]), "--length", "4",
                        "--workers", "1", "--progress", "lines", "--network-layers", "0")
    assert code == 0
    lines = [ln for ln in err.splitlines() if " records (" in ln]
    assert len(lines) == 2 and all(" in " in ln for ln in lines)
    said = [ln for ln in err.splitlines() if ln.startswith("progress: ")]
    total = int(re.match(r"progress: (\d+) site tasks to run", said[0]).group(1))
    steps = [tuple(map(int, re.match(r"progress: (\d+)/(\d+) site tasks done in", ln).groups())) for ln in said[1:]]
    assert total > 1 and steps and all(t == total and 0 < k < total for k, t in steps), err
    assert [k for k, _ in steps] == sorted(k for k, _ in steps)


def test_model_check_unreachable_scheduler_is_a_usage_error_and_writes_nothing(tiny, tmp_path, capsys, monkeypatch):
    """--scheduler at an address where no Dask scheduler listens: exit 2 naming the address, no traceback, and no
    record stream left behind (the pool is opened before the stream)."""
    monkeypatch.setattr(MC, "SCHEDULER_TIMEOUT", 2)
    p = tmp_path / "r.jsonl"
    code, _, err = _run(capsys, "check", "RN.main", "--model", str(tiny["bert"]), "--length", "4", "--scheduler",
                        "tcp://127.0.0.1:1", "--jsonl", str(p))
    assert code == 2 and "tcp://127.0.0.1:1" in err and "no Dask scheduler answered" in err
    assert "Traceback" not in err and not p.exists()


@pytest.mark.slow
def test_model_check_dask_local_cluster_gives_the_serial_records_even_when_a_worker_dies(tiny, tmp_path):
    """--scheduler on a 2-worker LocalCluster: the same records as the serial run; a worker killed mid-run is replaced
    by its nanny and its tasks rescheduled, and every record is written exactly once."""
    from dask.distributed import Client, LocalCluster
    registry()
    claims = MC.select_claims("RN.main,HC.main,RRO.only-increase")
    models = [str(tiny["bert"]), str(tiny["gpt2"])]
    sp = tmp_path / "serial.jsonl"
    MC.run(MC.RunSpec(models=models, claims=claims, length=6, jsonl=str(sp), workers=1, progress=False))
    want = _canon(_records(sp))
    p1 = tmp_path / "local.jsonl"
    out = MC.run(MC.RunSpec(models=models, claims=claims, length=6, jsonl=str(p1), workers=2, scheduler="local",
                            progress=False))
    assert not out.errors and _canon(_records(p1)) == want
    from proofs_numeric.output import RecordStream
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        p2 = tmp_path / "killed.jsonl"
        killed = {}
        real_write = RecordStream.write

        def write_then_kill(self, record):  # deterministic: the kill follows the 3rd record, in the writing thread
            real_write(self, record)        # (a thread polling the file raced a run that sites53 made fast)
            if "at" not in killed and str(self.path) == str(p2) and self.written >= 3:
                pid = next(iter(client.run(os.getpid).values()))
                os.kill(pid, signal.SIGKILL)
                killed["at"] = self.written

        RecordStream.write = write_then_kill
        try:
            out = MC.run(MC.RunSpec(models=models, claims=claims, length=6, jsonl=str(p2), workers=2,
                                    scheduler=cluster.scheduler_address, progress=False))
        finally:
            RecordStream.write = real_write
    recs = _records(p2)
    assert not out.errors and killed["at"] < len(want)  # the worker died mid-run
    assert len(recs) == len({S.record_key(r) for r in recs}) and _canon(recs) == want


def test_model_check_claim_by_site_figure_is_the_records(tiny):
    """The chapter's claim x site figure: one cell per record, coloured by its own `on_this_instance`; the columns in
    the order of the forward whatever order the records arrived in (workers deliver them in any order); the legend
    counts every record; several checkpoints draw in one figure."""
    import random

    import matplotlib
    matplotlib.use("Agg")
    from proofs_numeric.ledger import figures as F
    from proofs_numeric.witnesses import real_model as RM
    registry()
    m = S.open_model(tiny["bert"])
    runs = {"x": list(range(3, 11))}
    recs = S.run_serial(m, "bert", runs, RM.default_claims(), measure=True, network_layers=1)
    rows, cols, cells = F.site_matrix(recs)
    assert sum(v != "none" for row in cells for v in row) == len(recs) == len({S.record_key(r) for r in recs})
    for r in recs:
        i = rows.index((r["claim"], r["reading"]))
        j = cols.index((S.SiteId.parse(r["site"]), r["about"]["level"]))
        assert cells[i][j] == r["on_this_instance"]
    forward = []
    for s in S.site_plan(m, runs["x"], RM.default_claims(), network_layers=0):
        if s[0] not in forward:
            forward.append(s[0])
    assert [c for c in dict.fromkeys(c for c, _ in cols)] == forward  # the forward's order
    shuffled = recs[:]
    random.Random(0).shuffle(shuffled)
    assert F.site_matrix(shuffled) == (rows, cols, cells)
    fig = F.claims_at_sites(recs, "tiny")
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert sum(int(t.rsplit("(", 1)[1].rstrip(")")) for t in labels) == len(recs)
    assert any(lb.endswith("[arb]") for lb in (t.get_text() for t in fig.axes[0].get_xticklabels()))
    layers = RM.layer_rows(recs, "x")
    assert [L["layer"] for L in layers] == [0, 1]
    fig2 = F.across_checkpoints([("a", recs, layers), ("b", recs[: len(recs) // 2], layers)])
    # outcomes; the attention update's ||Delta||/||X|| (one line per layer); cond(W_O) and head recovery (one line
    # per checkpoint)
    assert len(fig2.axes) == 4 and len(fig2.axes[1].get_lines()) == len(layers) and len(fig2.axes[2].get_lines()) == 2


def test_model_check_interval_claims_refuse_sizes_that_take_minutes():
    """The interval claims (RRO.main, RC.*) at an attention site of a d = 384 model (MiniLM: H d_k = 384) took 38-121 s
    of CPU per site at n = 3 and several minutes at n = 7 (every layer of `real-model --text "A short test sentence."`),
    inside the old estimate's budget. The estimate now counts the d^2 H d_k products W_V^h W_O^h: those sizes are
    refused by name (the record says not checked, at once); the sizes measured at about a minute or less still run."""
    from proofs_numeric.core.certify import interval_size_check
    for n in (2, 3, 7):
        with pytest.raises(BadInput, match="would take too long"):
            interval_size_check(n, 384, 12, 32, 50)
    for n, d, H, dk in [(63, 64, 4, 16), (64, 64, 4, 16), (16, 128, 4, 32), (3, 3, 1, 3)]:
        interval_size_check(n, d, H, dk, 50)  # measured 5-53 s, or tiny


def test_model_check_default_claims_are_at_their_sites_in_a_fresh_process():
    """`real_model.default_claims()` in a process that never loaded the ledger (the book's chapter calls
    `cached_measure()` first): every default claim declares its site kinds, RC.rank-equals-sum and RRO.main at
    `attention` (their interval instance forms come from the numeric layer; before, the chapter's records had none)."""
    import subprocess
    import sys
    code = ("import json; from proofs_numeric.witnesses import real_model as RM; "
            "from proofs_numeric.model import sites as S; print(json.dumps("
            "{c.id: sorted({k for _, ks in S.site_kinds_of(c).values() for k in ks}) for c in RM.default_claims()}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    kinds = json.loads(out.stdout)
    assert set(kinds) == {"RN.main", "HC.main", "RA.main", "RC.rank-equals-sum", "RRO.main", "RRO.only-increase"}
    assert kinds["RC.rank-equals-sum"] == kinds["RRO.main"] == ["attention"]
    assert all(kinds.values())



def test_model_check_a_failed_premise_at_a_site_is_said_before_any_costly_predicate(tiny, monkeypatch):
    """At an attention site X has full rank (n < d tokens of a trained or random model), so RRO.main's premise
    (rank X < min(n, d)) already fails: the record is premise-fails, and nothing costly runs. Before, `generic
    weights` was decided first by forming every head's W_V^h W_O^h exactly (d x d rationals: 187 s per site of the
    packaged MiniLM, d = 385) although the cheap rank of X had already failed the premise."""
    from theorems.exact.reader import ExactWeights
    formed = []
    real = ExactWeights.value_output
    monkeypatch.setattr(ExactWeights, "value_output", lambda self: formed.append(1) or real(self))
    m = S.open_model(tiny["bert"])
    recs = S.run_serial(m, "tiny", {"x": list(range(1, 7))}, [get("RRO.main")], network_layers=0)
    assert recs and all(r["site_kind"] == "attention" for r in recs)
    for r in recs:
        assert r["not_checked"] is None and r["on_this_instance"] == "premise-fails", r
        assert r["hypotheses"]["rank X < min(n, d)"]["value"] == "fails"
        if r["reading"] == "literal":
            gw = r["hypotheses"]["generic weights (as the proof's step (b) assumes)"]
            assert gw["value"] == "undecided" and gw["how"].startswith("not evaluated: the premise already fails")
        assert r["conclusion"]["how"].startswith("not evaluated")
    assert not formed, "the weights' exact products were formed at a site whose premise already fails"


def test_model_check_rro_trained_model_reading_aggregates_its_site_records(tiny):
    """RRO.main's trained-model reading is decided at each attention site by the claim's own predicates, and its
    evidence is computed from those records: full-rank X at every site makes it vacuous (never supported); a site
    where the premise holds counts, and its conclusion decides. ||Delta||/||X|| per layer comes from the attention
    updates' records (float64 context)."""
    import copy

    from proofs_numeric.witnesses import real_model as RM
    m = S.open_model(tiny["bert"])
    recs = S.run_serial(m, "tiny", {"x": list(range(1, 7))}, [get("RRO.main"), get("RRO.only-increase")],
                        network_layers=0)
    tm = [r for r in recs if r["claim"] == "RRO.main" and r["reading"] == "trained-model"]
    assert len(tm) == m.config.n_layers and all(r["on_this_instance"] == "premise-fails" for r in tm)
    assert set(tm[0]["hypotheses"]) == {"rank X < min(n, d)"}  # the trained weights are given: no genericity
    [ev] = RM.rro_site_evidence(recs, "tiny", m.config.d)
    assert ev.holds is None and "no instance met the premise" in ev.summary, ev.summary
    assert ev.numbers["premise_failed"] == m.config.n_layers and ev.numbers["rank_X"] == [6] * m.config.n_layers
    ratios = ev.numbers["delta_over_x"]
    assert len(ratios) == m.config.n_layers and all(v > 0 for v in ratios)
    # a site whose premise holds decides by its conclusion
    for value, expected in (("holds", True), ("fails", False)):
        planted = copy.deepcopy(recs)
        r0 = next(r for r in planted if r["claim"] == "RRO.main" and r["reading"] == "trained-model")
        r0["hypotheses"]["rank X < min(n, d)"]["value"] = "holds"
        r0["conclusion"]["value"] = value
        [ev] = RM.rro_site_evidence(planted, "tiny", m.config.d)
        assert ev.holds is expected and ev.numbers["premise_met"] == 1, ev.summary
    # biases folded in (the site has d + 1 columns): the words name X' = [X | 1]; rank X' = d + 1 at n > d forces
    # rank X = d (audit 62: "rank X = 385" at d = 384 was X''s rank)
    d = m.config.d
    planted = copy.deepcopy(recs)
    for r in planted:
        if r["claim"] == "RRO.main" and r["reading"] == "trained-model":
            r["instance"] = {**(r["instance"] or {}), "n": 4 * d, "d": d + 1, "rank_X": d + 1}
    [ev] = RM.rro_site_evidence(planted, "tiny", d)
    assert "X' = [X | 1]" in ev.summary and f"forces rank X = {d}" in ev.summary, ev.summary
    assert "rank X < min" not in ev.summary and "rank X' < min(n, d + 1)" in ev.summary
    for r in planted:  # not folded: plain X, nothing forced
        r["instance"] = {**(r["instance"] or {}), "d": d, "rank_X": d}
    [ev] = RM.rro_site_evidence(planted, "tiny", d)
    assert "X' = [X | 1]" not in ev.summary and "rank X < min(n, d)" in ev.summary, ev.summary


@pytest.mark.slow
def test_measurement_parts_joined_are_one_joint_run_and_ratios_come_from_the_forward(tiny):
    """The real-model measurement is run in parts (issue 59: each trained-model reading computes only the parts it
    reads, no ledger claim pays for all of it): the parts cover the default claims once each, and joined by
    ``joint_order`` they are record for record, in order, what one run of every default claim gives (network-level
    records included); the attention updates' ||Delta||/||X|| read from the forward alone equal those of the records.
    (Planted: joint_order without the network-level records last, or the ratios read at the FFN's update: red here.)"""
    from proofs_numeric.ledger.model_check import without_timings
    from proofs_numeric.witnesses import real_model as RM
    assert sorted(c for p in RM.MEASURE_PARTS for c in p) == sorted(RM.DEFAULT_CLAIMS)
    assert all(p in RM.MEASURE_PARTS for parts in RM.PARTS_READ.values() for p in parts)
    m = S.open_model(tiny["bert"])
    m.name = "tiny"  # the records' checkpoint label (run_part labels them with m.name)
    runs = {"short": [1, 5, 9, 2, 7], "other": [3, 1, 4]}
    claims = RM.default_claims()
    nl = {"short": S.NETWORK_LAYERS}
    joint = S.run_serial(m, "tiny", runs, claims, measure=True, network_layers=nl)
    assert any((r.get("numbers") or {}).get("enclosure") for r in joint)  # network-level records are in the test
    kinds = set(S.items_by_kind(claims))
    forward = {k: list(S.forward_sites(m, ids, k, "tiny", kinds, measure=True, weight_refs=False))
               for k, ids in runs.items()}  # one forward, shared by the parts
    split = [r for p in RM.MEASURE_PARTS
             for r in RM.run_part(m, runs, [c for c in claims if c.id in p], forward.__getitem__, nl)]
    text = lambda recs: [json.dumps(without_timings(r), sort_keys=True) for r in recs]  # noqa: E731
    assert text(RM.joint_order(split, list(runs))) == text(joint)
    for ratios in (RM.forward_update_ratios(m, runs), RM.forward_update_ratios(m, runs, forward.__getitem__)):
        for inp in runs:
            assert ratios[inp] == RM.update_ratios(joint, inp) and len(ratios[inp]) == m.config.n_layers


def test_layer_measurements_read_each_layers_weights_once_per_run(tiny, tmp_path, monkeypatch):
    """The weight-only measurements of a layer (the certified rank of W_O, cond W_O, alpha_h) are computed once per
    layer in a run, however many inputs read them, and each input's numbers are those of a run that computed them
    afresh; a caller that edits its numbers does not edit another's. (Planted: the cache keyed without the weights'
    content, or handing out the kept dict itself: red.)"""
    from theorems.framework.memo import clear_process_caches
    m = S.open_model(tiny["bert"])
    runs = {"a": [1, 5, 9, 2, 7], "b": [3, 1, 4]}
    calls: list[tuple] = []
    real = S.certified_rank

    def counted(M, *a, **k):
        calls.append(M.shape)
        return real(M, *a, **k)
    monkeypatch.setattr(S, "certified_rank", counted)

    def numbers(ids) -> list[dict]:
        return [s.numbers for s in S.forward_sites(m, ids, "x", "tiny", {"output-projection"}, measure=True,
                                                   weight_refs=False) if s.numbers]
    clear_process_caches()
    fresh = {k: numbers(ids) for k, ids in runs.items() if clear_process_caches() is None}
    clear_process_caches()
    calls.clear()
    shared = {k: numbers(ids) for k, ids in runs.items()}
    w_o = [s for s in calls if s == (m.config.H * m.config.d_k, m.config.d)]
    assert len(w_o) == m.config.n_layers  # once per layer, not once per layer and input
    assert shared == fresh and len(shared["a"]) == m.config.n_layers
    shared["a"][0]["alpha"][0] = -1.0
    assert numbers(runs["b"]) == fresh["b"]
    def of(model) -> list[dict]:
        return [s.numbers for s in S.forward_sites(model, runs["a"], "x", "tiny", {"output-projection"}, measure=True,
                                                   weight_refs=False) if s.numbers]
    assert of(S.open_model(tiny["bert"])) == fresh["a"]  # the same weights, another object: the same facts
    t = bert_tensors(np.random.default_rng(1))  # tiny's weights, W_Q of every layer redrawn: alpha_h changes
    for k in [k for k in t if k.endswith("attention.self.query.weight")]:
        t[k] = np.random.default_rng(5).normal(size=t[k].shape).astype(t[k].dtype)
    requeried = S.open_model(write_checkpoint(tmp_path / "b2", bert_config(), t))
    got = of(requeried)  # other weights of the same shapes: their own facts, not the kept ones
    clear_process_caches()
    assert got == of(requeried) and [r["alpha"] for r in got] != [r["alpha"] for r in fresh["a"]]
    assert [r["W_O_exact_rank"] for r in got] == [r["W_O_exact_rank"] for r in fresh["a"]]
