"""The command line: verify, check, bad input (exit 2), JSON shapes."""
from __future__ import annotations

import json

import numpy as np
import pytest

from proofs_numeric.cli import main
from property_tests.documents import document, one_claim
from theorems import formal as F


def _run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_version_names_ground_types(capsys):
    code, out, _ = _run(capsys, "--version")
    assert code == 0 and "ground types: flint" in out


@pytest.mark.slow
def test_cli_verify_json(tmp_path, capsys):
    """A glob selects exactly the claims it matches, and every entry has the JSON fields. ``RN.step[0-9]``: three
    claims, one refuted by a stored counterexample, in 3-5 s (``RN.*`` took 28 s: RN.main's trained-model reading
    measures the packaged model and the family runs the depth study, both covered by the ledger tests)."""
    path = tmp_path / "ledger.json"
    code, out, _ = _run(capsys, "verify", "--claims", "RN.step[0-9]", "--quick", "--dps", "30", "--json", str(path))
    assert code == 0  # refuted claims are results, not errors
    data = document(path.read_text(), "ledger")
    assert [c["id"] for c in data["claims"]] == ["RN.step1", "RN.step2", "RN.step3"]
    for c in data["claims"]:
        assert set(c) >= {"id", "verdict", "statement", "evidence"}
    verdicts = {c["id"]: c["verdict"] for c in data["claims"]}
    want = "proved" if F.mathcomp_available() else "supported"  # without Coq their formal evidence is "not run"
    assert verdicts == {"RN.step1": want, "RN.step2": "refuted", "RN.step3": want}
    step2 = next(c for c in data["claims"] if c["id"] == "RN.step2")
    assert [e["kind"] for e in step2["evidence"]] == ["counterexample"]
    assert "counterexample" in out and "RN.step2" in out


def test_cli_verify_unknown_glob_is_usage_error(capsys):
    code, _, err = _run(capsys, "verify", "--claims", "NOPE.*")
    assert code == 2 and "no claim matches" in err


def _reading(r, key="literal"):
    return next(x for x in r["readings"] if x["key"] == key)


def test_cli_check_json_on_counterexample(capsys):
    code, out, _ = _run(capsys, "check", "rank-neutrality", "--X", '[[0,2,-2],[1,1,-2],[2,0,-2]]', "--json")
    assert code == 0
    lit = _reading(one_claim(out))
    assert {k: v["value"] for k, v in lit["hypotheses"].items()} == {"H1": "holds", "H2": "holds", "H3": "holds",
                                                                      "H4": "holds"}
    assert lit["conclusion"]["value"] == "fails" and lit["on_this_instance"] == "counterexample"
    assert "arank X = 1, arank LN(X) = 2" in lit["conclusion"]["how"]
    assert all(v["how"] and v["definition"] for v in lit["hypotheses"].values())


def test_cli_check_exact_strings_and_gamma_beta(capsys):
    code, out, _ = _run(capsys, "check", "RN.main", "--X", '[["1/2", "0.25", 3], [1, 0, -1]]',
                        "--gamma", '[1, 2, "3/2"]', "--beta", "[0, 0, 1]", "--json")
    assert code == 0
    assert "arank X = 1," in _reading(one_claim(out))["conclusion"]["how"]


def test_cli_check_npy_float_matrix_taken_exactly(tmp_path, capsys):
    X = np.random.default_rng(0).normal(size=(4, 6))
    p = tmp_path / "X.npy"
    np.save(p, X)
    code, out, _ = _run(capsys, "check", "RN.main", "--X", str(p), "--json")
    assert code == 0
    r = one_claim(out)
    lit = _reading(r)
    assert "arank X = 3," in lit["conclusion"]["how"]
    assert lit["hypotheses"]["H4"]["value"] == "fails" and lit["on_this_instance"] == "premise-fails"  # n < d
    assert r["numerical"]["X"]["rank"] == 4  # float data: the numerical rank stands beside the exact one


def test_cli_check_human_output(capsys):
    code, out, _ = _run(capsys, "check", "rank-neutrality", "--X", "[[0,2,-2],[1,1,-2],[2,0,-2]]")
    assert code == 0 and "conclusion «arank(LN X) = arank(X)»: FAILS" in out
    assert "on this instance: counterexample" in out
    assert "rank([X; 1^T]) = 3 != rank(X) = 2, so 1_d is not in row(X)" in out  # the numbers that decided H2


def test_cli_check_constant_row_is_a_premise_failure_not_an_error(capsys):
    code, out, _ = _run(capsys, "check", "RN.main", "--X", "[[1, 2, 3], [4, 4, 4]]", "--json")
    lit = _reading(one_claim(out))
    assert code == 0 and lit["hypotheses"]["H1"]["value"] == "fails" and lit["on_this_instance"] == "premise-fails"
    assert "row(s) [1] of X are constant" in lit["hypotheses"]["H1"]["how"]


@pytest.mark.parametrize("X, needle", [
    ('[[1, NaN], [2, 3]]', "not a finite number"),
    ('[[1, 2], [3, 4]', "not valid JSON"),
    ('[[1, 2], [3]]', "ragged"),
    ('[]', "non-empty"),
    ('[[1, "abc"], [2, 3]]', "not an exact number"),
    ('[[1, true], [2, 3]]', "boolean"),
    ('{"a": 1}', "non-empty list of rows"),
])
def test_cli_bad_input_exits_2_with_a_clear_message(capsys, X, needle):
    code, out, err = _run(capsys, "check", "rank-neutrality", "--X", X)
    assert code == 2
    assert needle in out + err


def test_cli_nan_in_npy_is_rejected(tmp_path, capsys):
    p = tmp_path / "X.npy"
    np.save(p, np.array([[1.0, np.nan], [2.0, 3.0]]))
    code, _, err = _run(capsys, "check", "rank-neutrality", "--X", str(p))
    assert code == 2 and "not a finite number" in err


def test_cli_gamma_wrong_length(capsys):
    code, _, err = _run(capsys, "check", "rank-neutrality", "--X", "[[1,2,3],[0,1,5]]", "--gamma", "[1,1]")
    assert code == 2 and "gamma has length 2, expected 3" in err


def test_cli_missing_file(capsys):
    code, _, err = _run(capsys, "check", "rank-neutrality", "--X", "nope.npy")
    assert code == 2 and "not found" in err


def test_cli_rank_certifies_a_deficient_integer_npy(tmp_path, capsys):
    rng = np.random.default_rng(5)
    p = tmp_path / "m.npy"
    np.save(p, rng.integers(-9, 10, size=(60, 25)) @ rng.integers(-9, 10, size=(25, 90)))
    code, out, _ = _run(capsys, "rank", str(p), "--json", "--seed", "3")
    r = document(out, "rank")
    assert code == 0 and (r["lower"], r["upper"], r["certified"], r["rank"]) == (25, 25, True, 25)
    assert r["upper_method"].startswith("p-adic bordering certificate") and r["primes"]
    code, out2, _ = _run(capsys, "rank", str(p), "--json", "--seed", "3")
    assert document(out2, "rank")["primes"] == r["primes"]  # --seed reproduces the primes


def test_cli_rank_prints_an_interval_it_cannot_close(tmp_path, capsys):
    """Rank 10 from factors with 30-bit entries: no float or p-adic room, kernel too large."""
    rng = np.random.default_rng(0)
    U = [[int(v) for v in row] for row in rng.integers(-2 ** 30, 2 ** 30, size=(40, 10))]
    V = [[int(v) for v in row] for row in rng.integers(-2 ** 30, 2 ** 30, size=(10, 50))]
    p = tmp_path / "big.json"
    p.write_text(json.dumps([[sum(U[i][k] * V[k][j] for k in range(10)) for j in range(50)] for i in range(40)]))
    code, out, _ = _run(capsys, "rank", str(p), "--exact", "never")
    assert code == 0 and "10 <= rank <= 40" in out and "interval" in out
    code, out, _ = _run(capsys, "rank", str(p))
    assert code == 0 and "rank = 10" in out  # small: FLINT's exact rank closes it


def test_cli_rank_bad_input_exit_2(tmp_path, capsys):
    p = tmp_path / "nan.npy"
    np.save(p, np.array([[1.0, np.nan], [0.0, 1.0]]))
    code, _, err = _run(capsys, "rank", str(p))
    assert code == 2 and "NaN" in err
    code, _, err = _run(capsys, "rank", "[[1, 0], [0, 1]]", "--upper", "1")
    assert code == 2 and "structural bound you supplied is wrong" in err


def test_cli_verify_fits_80_columns_and_shows_counterexample_files(capsys, monkeypatch):
    """At COLUMNS=80 no line of the ledger (stdout or stderr) is wider than 80, and every counterexample's file
    is shown (rich must not eat '[path]' as markup)."""
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["verify", "--quick", "--claims", "RRO.*"]) == 0
    out, err = capsys.readouterr()
    for line in (out + err).splitlines():
        assert len(line) <= 80, line
    for f in ("theorems/counterexamples/RRO.rowspace-remark.json", "theorems/counterexamples/RRO.main.json"):
        assert f in out.replace("\n    ", "").replace("\n      ", "") or f.split("/")[-1] in out
    assert "refuted" in out and "(exact)" in out


class _InlinePool:
    """A stand-in for DaskPool that runs each task here at submit time and records the order of the submits; its
    ``start`` may raise (a pool that cannot start), and ``fail`` names claims whose task raises (a worker that
    died on it)."""

    submitted: list = []
    tasks: list = []
    fail: set = set()
    start_error: Exception | None = None

    def __init__(self, address, workers):
        if _InlinePool.start_error is not None:
            raise _InlinePool.start_error

    def submit(self, fn, *args):
        from concurrent.futures import Future
        _InlinePool.submitted.extend(args[0])  # a task's claim ids
        _InlinePool.tasks.append(tuple(args[0]))
        f: Future = Future()
        if set(args[0]) & _InlinePool.fail:
            f.set_exception(RuntimeError("planted worker death"))
        else:
            f.set_result(fn(*args))
        return f

    def shutdown(self, cancel=False):
        pass


class _Background:
    """A background Coq check that is alive for its first ``polls`` questions."""

    def __init__(self, polls):
        self.polls = polls

    def is_alive(self):
        self.polls -= 1
        return self.polls >= 0


def _picked_claims():
    from proofs_numeric.ledger import registry
    from theorems import formal
    with_formal = {lm.claim for lm in formal.LEMMAS}
    claims = registry()
    picked = [c for c in claims if c.id in with_formal][:2] + [c for c in claims if c.id not in with_formal][:3]
    return [picked[0], picked[2], picked[1], picked[3], picked[4]], with_formal  # formal claims first as given


def test_cli_verify_workers_hand_out_formal_claims_only_after_the_coq_check(monkeypatch):
    """With workers, the claims without formal lemmas are handed out first and the claims with formal lemmas only once
    the background Coq check has ended (a worker would otherwise ask Coq again instead of reading the stored
    verdicts); results come back in the claims' order, numbered as they finish; a claim the workers do not know
    (registered only here) and a claim whose worker died run in this process. (Planted: every claim submitted at
    once, or a failed task dropped: red here.)"""
    from proofs_numeric.ledger import model_check as MC
    from proofs_numeric.ledger import run as RUN
    from theorems import formal
    from theorems.framework import CheckContext, ClaimResult
    picked, with_formal = _picked_claims()
    ran_here: list[str] = []
    monkeypatch.setattr(RUN, "run_claim", lambda c, ctx: ran_here.append(c.id) or ClaimResult(c, [], 0.0))
    background = _Background(polls=3)
    monkeypatch.setattr(formal, "start_check", lambda *a, **k: background)
    monkeypatch.setattr(formal, "cancel_check", lambda *a, **k: None)
    monkeypatch.setattr(MC, "DaskPool", _InlinePool)
    _InlinePool.submitted, _InlinePool.fail, _InlinePool.start_error = [], {picked[3].id}, None
    numbers: list[int] = []
    results, errors = RUN.run_ledger(picked, CheckContext(dps=15, quick=True),
                                     lambda k, total, c, r: numbers.append(k) if r is not None else None, workers=2)
    sub = _InlinePool.submitted
    assert [i in with_formal for i in sub] == [False, False, False, True, True], sub  # formal ones last
    assert background.polls < 0  # handed out only once the check said it had ended
    assert picked[3].id in ran_here  # its worker died: run here
    assert [r.claim.id for r in results] == [c.id for c in picked] and errors == []
    assert sorted(numbers) == numbers == [1, 2, 3, 4, 5]


def test_cli_verify_workers_that_cannot_start_leave_the_run_to_this_process(monkeypatch):
    """A pool that cannot start (a sandbox without sockets or forkserver) is said on one line, and every claim runs
    in this process with the same results. (Planted: the exception propagated: red here.)"""
    from proofs_numeric.ledger import model_check as MC
    from proofs_numeric.ledger import run as RUN
    from theorems import formal
    from theorems.framework import CheckContext, ClaimResult
    picked, _ = _picked_claims()
    ran_here: list[str] = []
    monkeypatch.setattr(RUN, "run_claim", lambda c, ctx: ran_here.append(c.id) or ClaimResult(c, [], 0.0))
    monkeypatch.setattr(formal, "start_check", lambda *a, **k: None)
    monkeypatch.setattr(formal, "cancel_check", lambda *a, **k: None)
    monkeypatch.setattr(MC, "DaskPool", _InlinePool)
    _InlinePool.submitted, _InlinePool.fail, _InlinePool.start_error = [], set(), OSError("planted: no sockets")
    said: list[str] = []
    try:
        results, errors = RUN.run_ledger(picked, CheckContext(dps=15, quick=True), workers=2, say=said.append)
    finally:
        _InlinePool.start_error = None
    assert _InlinePool.submitted == [] and sorted(ran_here) == sorted(c.id for c in picked)
    assert len(said) == 1 and "could not start" in said[0] and "planted: no sockets" in said[0]
    assert [r.claim.id for r in results] == [c.id for c in picked] and errors == []


def test_cli_verify_workers_option_is_checked(capsys):
    """``--workers 0`` is a usage error naming the option and its range (exit 2), before anything runs."""
    assert main(["verify", "--workers", "0"]) == 2
    assert "--workers 0 is outside [1, 1024]" in capsys.readouterr().err


def test_cli_verify_workers_run_each_claim_in_the_callers_conditions(monkeypatch):
    """A worker's task runs its claim with the caller's limit on int/str conversions (verify lifts it: at --dps 5000
    every claim run in a worker was an ERROR, 'Exceeds the limit (4300 digits)', and only there) and inside
    computing_fresh when asked, and restores both after. (Planted: the limit not passed on: red here.)"""
    import sys

    from proofs_numeric.ledger import run as RUN
    from theorems.framework import CheckContext, ClaimResult
    from theorems.framework.memo import reading_store
    seen = []
    monkeypatch.setattr(RUN, "run_claim", lambda c, ctx: seen.append((sys.get_int_max_str_digits(), reading_store()))
                        or ClaimResult(c, [], 0.0))
    before = sys.get_int_max_str_digits()
    out = RUN.claim_task("DC.dff-heuristic", CheckContext(dps=15, quick=True), True, 0)
    assert out is not None and out[0].claim is None and seen == [(0, False)]
    assert sys.get_int_max_str_digits() == before and reading_store()
    assert RUN.claim_task("NO.such-claim", CheckContext(dps=15, quick=True)) is None


def test_cli_verify_without_loopback_or_with_more_workers_than_cpus_says_so(monkeypatch, capsys):
    """No TCP connection to 127.0.0.1 (a network namespace without loopback): no pool is tried (Dask waited 30 s for
    it), one line says why and every claim runs here; more workers than CPUs are allowed and said, at 80 columns."""
    from proofs_numeric.cli import verify as V
    from proofs_numeric.ledger import model_check as MC
    from proofs_numeric.ledger import run as RUN
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setattr(MC, "DaskPool", _InlinePool)
    monkeypatch.setattr(RUN, "_no_loopback", lambda: "no TCP connection on 127.0.0.1 (planted)")
    _InlinePool.submitted, _InlinePool.fail, _InlinePool.start_error = [], set(), None
    monkeypatch.setattr(V, "available_cpus", lambda: 1)
    assert main(["verify", "--claims", "DC.*", "--quick", "--workers", "2"]) == 0
    err = capsys.readouterr().err
    assert _InlinePool.submitted == []
    assert "verify: 2 worker processes on 1 CPU: they share the CPUs" in err
    assert "verify: no worker processes: no TCP connection on 127.0.0.1 (planted); running every claim" in \
        " ".join(x.strip() for x in err.splitlines())
    assert all(len(line) <= 80 for line in err.splitlines())


def test_cli_verify_workers_run_claims_that_share_a_part_in_one_task(monkeypatch):
    """The claims whose trained-model evidence reads the MiniLM measurement form a group (claims_sharing_parts: the
    parts share the model's float forward, and RN.main, RN.hypotheses-at-init and RN.hypotheses-in-training read the
    RN.main part, about 8 s of CPU that two workers computed twice); verify hands each group to one worker as one
    task, before the single claims, and a group with a claim that has formal lemmas waits for the Coq check like
    that claim. (Planted: the groups ignored, or a group with a formal claim handed out at once: red here.)"""
    from proofs_numeric.ledger import get, registry
    from proofs_numeric.ledger import model_check as MC
    from proofs_numeric.ledger import run as RUN
    from proofs_numeric.witnesses.real_model import claims_sharing_parts
    from theorems import formal
    from theorems.framework import CheckContext, ClaimResult
    registry()
    groups = claims_sharing_parts()
    assert len(groups) == 1 and groups[0] >= {"RN.main", "RN.hypotheses-at-init", "RN.hypotheses-in-training",
                                              "HC.main", "RC.alignment", "RRO.main"}
    with_formal = {lm.claim for lm in formal.LEMMAS}
    singles = [c for c in registry() if c.id not in with_formal and c.id not in groups[0]][:8]
    picked = [get(i) for i in ("RN.main", "HC.main", "RN.hypotheses-at-init", "RC.alignment")] + singles
    monkeypatch.setattr(RUN, "run_claim", lambda c, ctx: ClaimResult(c, [], 0.0))
    monkeypatch.setattr(formal, "start_check", lambda *a, **k: _Background(polls=2))
    monkeypatch.setattr(formal, "cancel_check", lambda *a, **k: None)
    monkeypatch.setattr(MC, "DaskPool", _InlinePool)
    _InlinePool.submitted, _InlinePool.tasks, _InlinePool.fail, _InlinePool.start_error = [], [], set(), None
    results, errors = RUN.run_ledger(picked, CheckContext(dps=15, quick=True), workers=2, together=groups)
    assert [r.claim.id for r in results] == [c.id for c in picked] and errors == []
    tasks = _InlinePool.tasks
    assert sorted(len(t) for t in tasks) == [1] * 8 + [4], tasks
    group = next(t for t in tasks if len(t) == 4)
    assert set(group) <= groups[0]
    # held back while the check ran (the first two rounds handed out three singles each), then next: not after the
    # other singles handed out before the check ended
    assert 2 <= tasks.index(group) < 8, tasks
