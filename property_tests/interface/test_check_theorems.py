"""`collapse-verify check CLAIM`: any claim's own declaration on the user's input, through the one exact reader.

One truth: the predicates check evaluates are the ones the ledger decides the claim with (kept on Claim.decl and
Reading.decl), the statement, hypothesis names and truth words are those of `show` and `verify --json`, every claim
declared on instances is listed by `check --list`, and the argument defects of the old hand-written paths each have
a test here (each of them failed before this module was written)."""
from __future__ import annotations

import json
import re
import time

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from proofs_numeric.cli import main
from proofs_numeric.ledger import get, registry
from proofs_numeric.ledger.check import checkable
from property_tests.documents import document, one_claim
from theorems.exact.blocks import centred, row_variances, sqrt_decomposition
from theorems.framework import ON_THIS_INSTANCE, TRUTH, TRUTH_VALUE, decode_instance


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _json(capsys, *argv):
    """The --json output, validated against its schema; a check document's one claim record (its list of records
    when the name stands for several claims)."""
    code, out, err = _run(capsys, *argv, "--json")
    assert code == 0, err
    doc = document(out)
    if doc["collapse_verify"]["kind"] == "check":
        return doc["claims"][0] if len(doc["claims"]) == 1 else doc["claims"]
    return doc


def _reading(rec, key="literal"):
    return next(r for r in rec["readings"] if r["key"] == key)


# --- the wrong answer of the second world, and the acceptance examples ---------------------------------------

def test_check_head_channel_reads_decimals_exactly(capsys):
    """Decimals were rounded to float64 before the 'exact' rank: [[0.1, 0.3], [1, 3]] was certified rank 2."""
    code, out, _ = _run(capsys, "check", "head-channel", "--W-O", "[[0.1,0.3],[1,3]]", "--heads", "1")
    assert code == 0
    assert "rank W_O = 1" in out and "not recoverable" in out and "rank W_O = 2" not in out
    lit = _reading(_json(capsys, "check", "head-channel", "--W-O", "[[0.1,0.3],[1,3]]", "--heads", "1"))
    assert lit["conclusion"]["value"] == "holds" and "rank W_O = 1 < H d_k = 2" in lit["conclusion"]["how"]
    code, out, _ = _run(capsys, "rank", "[[0.1,0.3],[1,3]]")
    assert "rank = 1" in out  # the same reader, the same answer


def test_check_rn_main_counterexample_with_h1_to_h4_holding(capsys):
    lit = _reading(_json(capsys, "check", "RN.main", "--X", "[[1,0,0],[1,1,0],[1,2,0]]"))
    assert lit["on_this_instance"] == "counterexample"
    assert {k: v["value"] for k, v in lit["hypotheses"].items()} == dict.fromkeys(("H1", "H2", "H3", "H4"), "holds")


def test_check_one_true_instance_one_counterexample_one_premise_failure(capsys):
    """The three answers of the README's examples."""
    X_ok, X_bad, X_h2 = "[[0,0,1],[0,1,0],[0,1,1]]", "[[1,0,0],[1,1,0],[1,2,0]]", "[[1,0,0],[0,1,0],[0,0,1]]"
    assert _reading(_json(capsys, "check", "RN.main", "--X", X_ok))["on_this_instance"] == "holds"
    assert _reading(_json(capsys, "check", "RN.main", "--X", X_bad))["on_this_instance"] == "counterexample"
    r = _reading(_json(capsys, "check", "RN.main", "--X", X_h2))
    assert r["on_this_instance"] == "premise-fails" and r["reason"] == "H2 fails"
    r = _json(capsys, "check", "RRO.rowspace-remark", "--X", "[[1,0],[0,1]]", "--Delta", "[[0,0],[0,0]]")
    assert _reading(r)["on_this_instance"] == "premise-fails"
    r = _json(capsys, "check", "HC.main", "--W-O", "[[1,0,0],[0,1,0]]", "--heads", "2")
    assert _reading(r)["on_this_instance"] == "counterexample"  # full row rank: every head is recoverable
    r = _json(capsys, "check", "RN.exceeds-by-at-most-one", "--X", "[[1,0,0],[0,1,0],[0,0,2]]")
    assert _reading(r)["on_this_instance"] == "holds"


# --- one truth: the same predicates, statements, names and words as the ledger ----------------------------------

def test_check_evaluates_the_declared_predicates_kept_on_the_claim():
    """Claim.decl / Reading.decl keep the predicates the ledger's derived checks were built from."""
    c = get("RN.main")
    lit = c.all_readings()[0]
    assert lit.decl is not None and tuple(lit.decl.names) == ("H1", "H2", "H3", "H4") == tuple(c.hypotheses)
    assert lit.decl.conclusion[0] == c.conclusion and lit.decl.pool is not None
    assert lit.decl.pool.instance_from is not None


def test_check_list_lists_every_claim_declared_on_instances(capsys):
    """A walk of the registry: every reading declared with a Pool or a builder (or given an instance form by the
    numeric layer) is listed, checkable or with the reason it is not; the rest say why they are not decided on one
    instance (their off_instance reason) or that they are not classified yet."""
    rec = _json(capsys, "check", "--list")
    listed = {c["claim"] for c in rec["checkable"]} | {c["claim"] for c in rec["not_checkable_on_user_input"]}
    declared = {c.id for c in registry() if any(getattr(r, "decl", None) is not None for r in c.all_readings())}
    assert declared <= listed
    assert len({c["claim"] for c in rec["checkable"]}) >= 50
    assert {"SYM.token-permutation", "SYM.query-key-gauge", "SYM.value-output-gauge", "SYM.head-permutation",
            "SYM.ln-shift-scale", "RC.alpha-range", "RC.alpha-reciprocal", "DONG.softmax-shift"} <= \
        {c["claim"] for c in rec["checkable"]}
    reasons = {c["reason"] for c in rec["not_on_instances"]}
    assert reasons == {"limit", "count", "positive-measure", "depth-study", "undefined", "empirical", "literature",
                       "inference"}, reasons
    off = {c["claim"] for c in rec["not_on_instances"]}
    assert set(rec["no_instance_form_yet"]).isdisjoint(listed) and off.isdisjoint(listed)
    assert off.isdisjoint(rec["no_instance_form_yet"]) and "DC.bert-config" in off
    assert len(listed) + len(off) + len(rec["no_instance_form_yet"]) == len(registry())
    for c in rec["checkable"]:
        assert c["inputs"].startswith(("--", "[--", "(--")), c


def test_check_instance_forms_decide_the_declared_names():
    """A form that supplies predicates by name (the numeric layer's interval forms) decides exactly the declared
    hypotheses: never one more, never one fewer."""
    for cc in checkable():
        for key, (r, form) in cc.forms.items():
            if form.hypotheses is None:
                assert r.decl is not None and all(k in r.decl.hypotheses for k in r.decl.names), (cc.claim.id, key)
                continue
            # declared by names only: the headline's names are the claim's; another reading's are its form's own (what
            # decide() reads, theorems.framework.instance._declaration_of_form), each a predicate
            names = r.decl.names if r.decl is not None else cc.claim.hypotheses if key == "literal" else form.hypotheses
            assert set(form.hypotheses) == set(names), (cc.claim.id, key)
            assert all(callable(p) for p in form.hypotheses.values()), (cc.claim.id, key)


def test_check_show_and_verify_use_the_same_statement_names_and_words(tmp_path, capsys):
    cid = "RRO.rowspace-remark"
    rec = _json(capsys, "check", cid, "--X", "[[1,0],[0,0]]", "--Delta", "[[-1,1],[0,0]]")
    show = _json(capsys, "show", cid, "--quick")
    path = tmp_path / "l.json"
    assert main(["verify", "--claims", cid, "--quick", "--json", str(path)]) == 0
    capsys.readouterr()
    entry = json.loads(path.read_text())["claims"][0]
    statements = {"literal": entry["statement"], **{r["key"]: r["statement"] for r in entry["readings"]}}
    assert {"literal": show["statement"], **{r["key"]: r["statement"] for r in show["readings"]}} == statements
    for r in rec["readings"]:
        assert r["statement"] == statements[r["key"]]
        assert set(v["value"] for v in r["hypotheses"].values()) | {r["conclusion"]["value"]} <= set(TRUTH.values())
        assert r["on_this_instance"] in ON_THIS_INSTANCE
    assert list(_reading(rec)["hypotheses"]) == entry["hypotheses"] == show["hypotheses"]
    assert _reading(rec)["conclusion"]["words"] == entry["conclusion"] == show["conclusion"]
    for e in entry["evidence"]:  # the fixed mapping: verify --json writes true / false / null for the same words
        assert e["holds"] == TRUTH_VALUE[TRUTH[e["holds"]]]
    code, out, _ = _run(capsys, "show", cid, "--quick")
    assert code == 0 and ("holds" in out or "FAILS" in out)
    code, out, _ = _run(capsys, "check", cid, "--X", "[[1,0],[0,0]]", "--Delta", "[[-1,1],[0,0]]")
    assert "FAILS" in out and "holds" in out  # the words show prints


# --- the defects of the old paths, each a test that failed before ----------------------------------------------

@pytest.mark.parametrize("argv, needle", [
    (["check", "RRO.main", "--X", "[[1,0],[0,0]]", "--heads", "1", "--dps", "0"], "--dps 0 is outside [15,"),
    (["check", "RRO.main", "--X", "[[1,0],[0,0]]", "--heads", "1", "--dps", "100000"], "--dps 100000 is outside"),
    (["check", "residual-obstruction", "--X", "[[1,0],[0,0]]", "--heads", "0"], "--heads 0 is outside [1,"),
    (["check", "recovery-ambiguity", "--W-O", "[[1,0],[0,1]]", "--heads", "1", "--n", "0"], "--n 0 is outside [1,"),
    (["check", "head-channel", "--W-O", "[[1,0],[0,1]]", "--heads", "-2"], "--heads -2 is outside [1,"),
    (["check", "RN.main", "--X", "[[1,2],[3,4]]", "--seed", "-1"], "--seed -1 is outside [0,"),
    (["check", "RN.main", "--X", "[[1,2],[3,4]]", "--max-entries", "0"], "--max-entries 0 is outside [1,"),
])
def test_check_numeric_arguments_validated_in_the_words_verify_and_depth_use(capsys, argv, needle):
    t0 = time.perf_counter()
    code, _, err = _run(capsys, *argv)
    assert code == 2 and needle in err, err
    assert time.perf_counter() - t0 < 10  # refused before computing (--dps 100000 ran past a minute)


def test_check_bool_npy_is_read_as_0_1_by_rank_and_check(tmp_path, capsys):
    p = tmp_path / "b.npy"
    np.save(p, np.array([[True, False, False], [True, True, False], [True, False, True]]))
    r = _json(capsys, "rank", str(p))
    assert r["lower"] == r["upper"] == 3 and "bool .npy values taken as 0 and 1" in r["input"]
    rec = _json(capsys, "check", "RN.main", "--X", str(p))
    assert "bool .npy values taken as 0 and 1" in rec["input"]["X"]
    assert "rank X = 3" in _reading(rec)["conclusion"]["how"]


def test_check_rank_contraction_reads_x_exactly_not_its_float64_rounding(capsys):
    """[[0.1, 0.3], [1, 3]] has rank 1; its float64 rounding has rank 2 (the old path rounded, and its
    `input_rounded_to_float64` flag was computed after the rounding, so it was always false)."""
    rec = _json(capsys, "check", "RC.dim-dk", "--X", "[[0.1, 0.3], [1, 3]]", "--heads", "1", "--seed", "2",
                "--reading", "rank-X-at-least-d_k")
    assert "exact: rank X = 1" in _reading(rec, "rank-X-at-least-d_k")["hypotheses"]["rank X >= d_k"]["how"]


def test_check_residual_obstruction_float_hint_overflow_is_omitted_not_an_error(capsys):
    """Finite entries near 1e200: the float64 hint overflows; it is omitted with the reason, the certified path
    carries on (it used to exit 1 with 'internal error')."""
    code, out, err = _run(capsys, "check", "residual-obstruction", "--X", "[[1e200, 0, 0], [0, 0, 0], [0, 0, 0]]",
                          "--heads", "1", "--json")
    assert code == 0, err
    rec = one_claim(out)
    hint = rec["numerical"]["X + MHA(X)"]
    assert "skipped" in hint and "overflow" in hint["skipped"]
    assert _reading(rec, "for-all-weights")["hypotheses"]["rank X < min(n, d)"]["value"] == "holds"


def test_check_residual_obstruction_certifies_the_paper_counterexample(tmp_path, capsys):
    """W_V W_O = c I: row(X + MHA(X)) lies in row[X; X W_V W_O] = row X, an exact upper bound, so the conclusion
    is certified to fail, with softmax attention too (it used to say 'undecided')."""
    d = 3
    rng = np.random.default_rng(4)
    W = {"W_Q": rng.normal(size=(1, d, d)), "W_K": rng.normal(size=(1, d, d)), "W_V": 2 * np.eye(d)[None],
         "W_O": np.eye(d)[None]}
    p = tmp_path / "W.npz"
    np.savez(p, **W)
    rec = _json(capsys, "check", "residual-obstruction", "--X", "[[1,0,0],[2,0,0],[0,0,0]]", "--weights", str(p))
    r = _reading(rec, "for-all-weights")
    # the reading is generic (almost every X of the stratum): one failing instance is an exceptional point, never a
    # counterexample of it; the ledger's refutation rests on the stored file and the identity that covers the stratum
    assert r["on_this_instance"] == "exceptional-point" and r["conclusion"]["value"] == "fails"
    assert "exceptional point, never a counterexample" in r["reason"]
    assert "certified: rank F(X) <= 1" in r["conclusion"]["how"]
    lit = _reading(rec)  # the headline assumes generic weights: W_V W_O = c I is the exceptional set
    assert lit["hypotheses"]["generic weights (as the proof's step (b) assumes)"]["value"] == "fails"
    stored = json.loads(open("theorems/counterexamples/RRO.main.json").read())["instance"]
    np.savez(tmp_path / "paper.npz", W_Q=np.zeros((1, 3, 3)), W_K=np.zeros((1, 3, 3)),
             W_V=np.array([[[float(sympy.Rational(v)) for v in r] for r in stored["W_VO"][0]]]), W_O=np.eye(3)[None])
    rec = _json(capsys, "check", "RRO.main", "--X", json.dumps(stored["X"]), "--weights", str(tmp_path / "paper.npz"))
    assert _reading(rec, "for-all-weights")["on_this_instance"] == "exceptional-point"


def test_check_rank_neutrality_h4_numbers_are_the_bordered_ranks(capsys):
    """The README's example explained H4 with 'rank([XP | tau_1..tau_c]) >= 4 > rank(XP) = 2' for a 3 x 3 X: the
    bordered matrix's constraint row was counted. Every rank in a 'how' is at most the rows of its matrix, and
    this one is the exact rank of [XP | tau_1 .. tau_c]."""
    X = [[0, 2, -2], [1, 1, -2], [2, 0, -2]]
    rec = _json(capsys, "check", "rank-neutrality", "--X", json.dumps(X))
    how = _reading(rec)["hypotheses"]["H4"]["how"]
    m = re.search(r"rank\(\[XP \| tau_1\.\.tau_(\d+)\]\) >= (\d+) > rank\(XP\) = (\d+)", how)
    assert m, how
    c, k, r = map(int, m.groups())
    Xt = centred(sympy.Matrix(X))
    T = sympy.Matrix.hstack(*[t for _, t in sqrt_decomposition(row_variances(Xt))])
    assert c == T.shape[1] and r == Xt.rank()
    assert k <= 3 and k == Xt.row_join(T).rank()
    for h in _reading(rec)["hypotheses"].values():
        for num in re.findall(r"rank\([^)]*\) = (\d+)", h["how"]):
            assert int(num) <= 4, h["how"]


# --- inputs by flag: missing, extra, refused by name -----------------------------------------------------------

@pytest.mark.parametrize("argv, needle", [
    (["check", "RN.main"], "RN.main needs --X"),
    (["check", "RN.main", "--X", "[[1,2],[3,4]]", "--W-O", "[[1]]", "--heads", "1"], "does not take --W-O"),
    (["check", "RN.main", "--X", "[[1,2],[3,4]]", "--heads", "2"], "does not take (--weights W.npz | --heads H"),
    (["check", "RRO.rowspace-remark", "--X", "[[1,0],[0,0]]"], "needs --Delta"),
    (["check", "RRO.rowspace-remark", "--X", "[[1,0],[0,0]]", "--Delta", "[[1,0,0]]"], "must agree"),
    (["check", "HC.main", "--W-O", "[[1,0],[0,1],[1,1]]", "--heads", "2"], "does not divide"),
    (["check", "HC.main", "--W-O", "[[1,0],[0,1]]"], "needs --heads"),
    (["check", "RA.main", "--W-O", "[[1,0],[0,1]]", "--heads", "2"], "needs --n"),
    (["check", "RRO.main", "--X", "[[1,0,0],[0,0,0]]", "--heads", "2"], "does not divide"),
    (["check", "DC.bert-config", "--X", "[[1]]"], "not a predicate on an instance"),
    (["check", "DONG.path-expansion", "--X", "[[1]]"], "no way to read an instance from your input"),
    (["check", "DONG.markov-geometric", "--X", "[[1]]"], "needs --P"),
    (["check", "nope", "--X", "[[1]]"], "unknown claim"),
    (["check", "RN.mian", "--X", "[[1]]"], "did you mean RN.main"),
    (["check", "RN.main", "--X", "[[1,2],[3,4]]", "--norm", "rmsnorm"], "--norm applies to the alias"),
    (["check", "RN.main", "--X", "[[1,2],[3,4]]", "--reading", "nope"], "has no reading 'nope'"),
    (["check", "MLP.span", "--X", "[[1,0],[0,1]]", "--heads", "1", "--seed", "3"], "uniform attention"),
])
def test_check_inputs_are_named_errors(capsys, argv, needle):
    code, _, err = _run(capsys, *argv)
    assert code == 2 and needle in err, err
    assert "Traceback" not in err


def test_check_rmsnorm_alias_runs_the_rmsnorm_conjectures(capsys):
    recs = _json(capsys, "check", "rank-neutrality", "--norm", "rmsnorm", "--X", "[[1],[2]]")
    assert [r["claim"] for r in recs] == ["USER.rmsnorm-matrix-rank", "USER.rmsnorm-affine-rank"]
    assert [_reading(r)["on_this_instance"] for r in recs] == ["holds", "counterexample"]


# --- --save: the stored-counterexample format, never over a file ----------------------------------------------

def test_check_save_writes_a_stored_counterexample_that_decodes_and_refutes(tmp_path, capsys):
    from theorems.paper.rank_neutrality import HYPOTHESIS, POOL
    p = tmp_path / "ce.json"
    code, out, err = _run(capsys, "check", "RN.main", "--X", "[[0, 2, -2], [1, 1, -2], [2, 0, -2]]",
                          "--gamma", '["1/2", 1, 1]', "--save", str(p))
    assert code == 0, err
    data = json.loads(p.read_text())
    assert data["claim"] == "RN.main" and set(data["instance"]) == {"X", "gamma"}
    a = POOL.decode(data["instance"])  # what a Pool's decode reads: ready to be stored for the claim
    assert all(HYPOTHESIS[k](a) for k in HYPOTHESIS) and a.conclusion_holds is False
    before = p.read_text()
    code, _, err = _run(capsys, "check", "RN.main", "--X", "[[1,0],[0,1]]", "--save", str(p))
    assert code == 2 and "exists" in err and p.read_text() == before  # never over an existing file


def test_check_save_of_a_builder_conjecture_is_its_stored_format(tmp_path, capsys):
    p = tmp_path / "u.json"
    assert main(["check", "USER.rmsnorm-affine-rank", "--X", "[[1],[2]]", "--save", str(p)]) == 0
    capsys.readouterr()
    data = json.loads(p.read_text())
    (regime, rec), = data["instance"]["regimes"].items()
    assert regime == "n>d" and decode_instance(rec["value"])["X"] == sympy.Matrix([[1], [2]])


# --- every checkable claim on a small valid input: an answer in the fixed vocabulary ------------------------

def _valid_argv(cc, tmp_path):
    inputs = {k for _, f in cc.forms.values() for k in f.takes}
    argv = ["check", cc.claim.id]
    if "X" in inputs and cc.claim.id in ("DONG.one-hot-softmax", "DONG.non-attended-gradients",
                                         "DONG.breaks-affine-invariance"):
        argv += ["--X", "[[1,0,2]]"]  # --X is one row: the logit vector z, or the points x_j
    elif cc.claim.id == "RRO.rank-r-witness":
        argv += ["--X", "[[1,0,0,0],[0,0,0,0],[0,0,0,0]]"]  # --X is X*_r (here r = 1)
    elif cc.claim.id == "DONG.gnn-oversmoothing":
        argv += ["--X", "[[0,1,0],[1,0,1],[0,1,0]]"]  # --X is the adjacency matrix of a graph
    elif "X" in inputs:
        argv += ["--X", "[[1,0,2,1],[0,1,1,0],[1,1,3,1]]" if "weights" in inputs else "[[1,0,0],[1,1,0],[1,2,0]]"]
    if "Delta" in inputs:
        argv += ["--Delta", "[[0,0,1],[0,0,0],[1,0,0]]"]
    if "P" in inputs:  # a row-stochastic P, one row per row of --X
        argv += ["--P", "[[0.5,0.5,0],[0.25,0.5,0.25],[0,0.5,0.5]]"]
    if "W_O" in inputs:
        if "X" in inputs:  # RC.generic-wo: X is Y (n x d_k), one head
            argv = ["check", cc.claim.id, "--X", "[[1,2],[0,1],[2,4]]", "--W-O", "[[1,0,2],[0,1,1]]", "--heads", "1"]
        else:
            argv += ["--W-O", "[[1,0,0],[0,1,0],[0,0,1],[1,1,0]]", "--heads", "2"]
    if "n" in inputs:
        argv += ["--n", "2"]
    if "weights" in inputs:
        one_head = cc.claim.id in ("RC.generic-wv", "RC.dim-dk")
        name = "W1.npz" if one_head else ("W0.npz" if "X" not in inputs or cc.claim.id.startswith(
            ("MLP", "DONG", "RRO.witness-wo")) else "W2.npz")
        argv += ["--weights", str(tmp_path / name)]
    return argv


def test_check_every_checkable_claim_answers_in_the_fixed_vocabulary(tmp_path, capsys):
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "W0.npz", W_Q=np.zeros((2, 4, 2)), W_K=np.zeros((2, 4, 2)), W_V=rng.normal(size=(2, 4, 2)),
             W_O=rng.normal(size=(2, 2, 4)))
    np.savez(tmp_path / "W1.npz", **{k: rng.normal(size=s) for k, s in (("W_Q", (1, 4, 2)), ("W_K", (1, 4, 2)),
                                                                          ("W_V", (1, 4, 2)), ("W_O", (1, 2, 4)))})
    np.savez(tmp_path / "W2.npz", **{k: rng.normal(size=s) for k, s in (("W_Q", (2, 4, 2)), ("W_K", (2, 4, 2)),
                                                                          ("W_V", (2, 4, 2)), ("W_O", (2, 2, 4)))})
    seen = 0
    for cc in checkable():
        if not cc.checkable:
            continue
        argv = _valid_argv(cc, tmp_path)
        if cc.claim.id == "MLP.first-order-form":
            argv = ["check", cc.claim.id, "--weights", str(tmp_path / "W0.npz"), "--n", "2"]
        code, out, err = _run(capsys, *argv, "--json")
        assert code == 0, (argv, err)
        rec = one_claim(out)
        assert rec["claim"] == cc.claim.id and rec["readings"]
        for r in rec["readings"]:
            assert r["on_this_instance"] in ON_THIS_INSTANCE and r["arithmetic"]
            assert all(h["value"] in TRUTH.values() and h["definition"] for h in r["hypotheses"].values())
        seen += 1
    assert seen >= 33


# --- the float hint: the Gram shortcut never disagrees with the SVD -------------------------------------------

@settings(max_examples=40)
@given(st.integers(1, 12), st.integers(1, 12), st.integers(0, 12), st.integers(0, 2 ** 32 - 1), st.integers(-30, 30))
def test_check_float_hint_gram_shortcut_agrees_with_the_svd(n, d, r, seed, e):
    """The hint takes the Gram matrix's eigenvalues only for well-conditioned data (full numerical rank); there it
    gives the SVD's numerical rank and sigma_min to 1e-4 relative, at every scale."""
    from proofs_numeric.core.float_hints import numerical_rank, well_conditioned_sigma_min
    rng = np.random.default_rng(seed)
    r = min(r, n, d)
    F = (rng.normal(size=(n, r)) @ rng.normal(size=(r, d)) if r < min(n, d) else rng.normal(size=(n, d))) * 2.0 ** e
    got = numerical_rank(F)
    s = np.linalg.svd(F, compute_uv=False)
    want = int(np.sum(s > got["rtol"] * s[0])) if s[0] > 0 else 0
    assert got["rank"] == want
    if "Gram" in got["arithmetic"]:
        assert got["rank"] == min(n, d) and abs(got["sigma_last"] - s[-1]) <= 1e-4 * s[-1]
    assert well_conditioned_sigma_min(np.ones((3, 3))) is None  # rank one: the SVD path


def test_check_readme_and_book_examples_give_the_answers_they_state(capsys):
    """Each `check` example in the README and the book's command-line page that names its answer in a comment
    (holds, counterexample, premise-fails) gives that answer on its literal reading."""
    import shlex
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    seen = 0
    for page in (root / "README.md", root / "book" / "cli.md"):
        for line in page.read_text().splitlines():
            m = re.search(r"collapse-verify (check [^#]*)#\s*(?:literal:\s*)?(holds|counterexample|premise-fails)",
                          line)
            if not m:
                continue
            rec = _json(capsys, *shlex.split(m.group(1)))
            assert rec["readings"][0]["on_this_instance"] == m.group(2), line
            seen += 1
    assert seen >= 6


def test_check_a_pool_based_plugin_gets_check_from_its_decode():
    """A conjecture on a Pool with a decode is checkable with `decoded(decode, takes)`: the user's inputs decode as a
    stored file would, and its own predicates decide them."""
    from proofs_numeric.cli import build_parser
    from proofs_numeric.cli.check import read_user_input
    from proofs_numeric.ledger.check import check_claim
    from theorems.conjecture import Pool, claim, decoded
    from theorems.exact.linalg import rank

    def decode(data):
        return sympy.Matrix([[sympy.Rational(v) for v in r] for r in data["X"]])

    def square(X):
        """X is square"""
        return X.shape[0] == X.shape[1]

    c = claim(id="PLUGIN.square-full-rank", statement=r"X\\ \\text{square}\\Rightarrow\\operatorname{rank}X=n",
              hypotheses={"square": square}, conclusion=("rank X = n", lambda X: rank(X) == X.shape[0]),
              instances=Pool(rows=lambda ctx: [("all", "", sympy.eye(2))], arithmetic="exact", decode=decode,
                             instance_from=decoded(decode, ("X",))), register_claim=False)
    user = read_user_input(build_parser().parse_args(["check", "x", "--X", "[[0.5, 1], [1, 2]]"]))
    lit = check_claim(c, user)["readings"][0]
    assert lit["hypotheses"]["square"] == {"value": "holds", "how": "", "definition": "X is square"}
    assert lit["on_this_instance"] == "counterexample"  # rank [[1/2, 1], [1, 2]] = 1: read exactly
