"""The depth study: certified residuals deep into the collapse, and the float64 contrast."""
from __future__ import annotations

import json

import flint
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from proofs_numeric.cli import main
from proofs_numeric.witnesses import dong_collapse as D
from theorems.exact.transformer import FP, Head, layer_norm, mha
from theorems.framework import CheckContext

#: the premise "rho has converged": two consecutive deep log-ratios (log10 rho < -30) agree to this
_CONVERGED = 1e-2


def test_depth_pure_attention_is_cubic(counts):
    """Once rho is deep (< 1e-30) and the log-ratio has converged, the converged ratio is 3."""
    @settings(max_examples=8)
    @given(st.integers(0, 10 ** 6), st.sampled_from([(8, 6, 2, 3), (4, 6, 1, 6), (6, 4, 2, 2)]))
    def prop(seed, shape):
        n, d, H, dk = shape
        try:
            r = D.run(D.DepthConfig(n=n, d=d, H=H, d_k=dk, layers=10, dps=300, seed=seed), "pure_attention")
        except D.DepthRangeError:  # the float64 companion run left the float64 range: outside the premise
            counts["float64 out of range"] += 1
            r = None
        assume(r is not None)
        late = [x["log_ratio"] for x in r["layers"]
                if x["log_ratio"] and x["log10_rho"] is not None and x["log10_rho"] < -30]
        counts["drawn"] += 1
        if len(late) >= 2 and abs(late[-1] - late[-2]) < _CONVERGED:  # premise: converged (some seeds are slow)
            counts["converged"] += 1
            assert abs(late[-1] - 3) < D.EXPONENT_TOL
    prop()


def test_depth_delta_form_matches_plain_form_where_both_resolve():
    cfg = D.DepthConfig(n=5, d=4, H=1, d_k=4, layers=4, dps=200, seed=3)
    heads, _, X0 = D.draw_weights(cfg)
    ctx = D.arb_context(cfg.dps)
    with ctx.local():
        A = ctx.asmatrix
        heads_a = [(A(q) * A(k).transpose(), A(v) * A(o)) for q, k, v, o in heads]
        heads_p = [Head(*(A(w) for w in h)) for h in heads]
        R, m = D.center_rows(A(X0))
        X = A(X0)
        for _ in range(3):
            m, R = D.attention_delta(m, R, heads_a, cfg.d_k, ctx)
            X = mha(ctx, X, heads_p)  # the one definition of MHA
        Xd = D.ones_times(m, cfg.n) + R
        for i in range(cfg.n):
            for j in range(cfg.d):
                assert Xd[i, j].overlaps(X[i, j])


def test_depth_float64_reports_collapse_that_is_not_exact():
    r = D.run(D.DepthConfig(layers=8, dps=200), "pure_attention")
    last = r["layers"][-1]
    assert last["float64"]["numerical_rank"] == 1  # float64: "rank 1"
    assert last["certified_rank"][0] == 6  # certified: still full rank
    assert last["log10_rho"] < -100


def test_depth_skip_connection_keeps_residual():
    r = D.run(D.DepthConfig(layers=12, dps=100), "attention_skip")
    assert min(x["log10_norm_R"] for x in r["layers"]) > -1


@pytest.mark.parametrize("kwargs", [{"n": 0}, {"layers": 0}, {"dps": -1}])
def test_depth_bad_config(kwargs):
    with pytest.raises(ValueError):
        D.DepthConfig(**kwargs)


def test_depth_cli_json(tmp_path, capsys):
    p = tmp_path / "depth.json"
    assert main(["depth", "--regime", "pure_attention", "--layers", "6", "--dps", "100", "--json", str(p)]) == 0
    data = json.loads(p.read_text())
    assert set(data["regimes"]["pure_attention"]) >= {"layers", "exponent"}
    assert main(["depth", "--regime", "nope"]) == 2


# --- the attention + LayerNorm regime (issue 33: §3's "LN neither prevents collapse ... nor accelerates it") ---

@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10 ** 6), st.sampled_from([(5, 4, 1, 4), (3, 6, 2, 3), (6, 3, 1, 3)]),
       st.sampled_from([1, 4]))
def test_depth_layer_norm_delta_matches_the_one_layer_norm(seed, shape, steps):
    """LN in (m, R) form (expm1 / log1p, no cancellation) against the one LayerNorm of theorems.transformer, on the
    same enclosures after a few attention layers: the balls overlap, and the new R is centred over tokens."""
    n, d, H, dk = shape
    cfg = D.DepthConfig(n=n, d=d, H=H, d_k=dk, dps=120, seed=seed)
    heads, _, X0 = D.draw_weights(cfg)
    ctx = D.arb_context(cfg.dps)
    with ctx.local():
        A = ctx.asmatrix
        heads_a = [(A(q) * A(k).transpose(), A(v) * A(o)) for q, k, v, o in heads]
        R, m = D.center_rows(A(X0))
        for _ in range(steps):
            m, R = D.attention_delta(m, R, heads_a, dk, ctx)
        X = D.ones_times(m, n) + R
        m2, R2 = D.layer_norm_delta(m, R, ctx)
        Y = D.ones_times(m2, n) + R2
        Z = layer_norm(ctx, X)  # the one definition
        for i in range(n):
            for j in range(d):
                assert Y[i, j].overlaps(Z[i, j])
        for j in range(d):
            assert sum((R2[i, j] for i in range(n)), flint.arb(0)).contains(0)


def test_depth_layer_norm_delta_keeps_digits_deep_in_the_collapse():
    """At rho ~ 1e-1900 the (m, R) LayerNorm still resolves rho (a plain LN at 1000 digits would give 0 +- 1e-1000)."""
    r = D.run(D.DepthConfig(layers=9, dps=1000), "attention_ln")
    assert r["layers"][-1]["log10_rho"] is not None and r["layers"][-1]["log10_rho"] < -1500
    assert r["exponent"] is not None and abs(r["exponent"] - 3) < D.EXPONENT_TOL
    assert all(x["certified_rank"][1] <= 5 for x in r["layers"][1:])  # post-LN rows lie in 1-perp: rank <= d - 1


def test_depth_layer_norm_delta_refuses_a_constant_mean_token():
    ctx = D.arb_context(60)
    with ctx.local():
        m = [flint.arb(2)] * 3
        R = flint.arb_mat(2, 3)
        with pytest.raises(ValueError, match="H1"):
            D.layer_norm_delta(m, R, ctx)


def test_depth_attention_ln_is_pure_attention_followed_by_layer_norm_in_float64():
    """The float64 companion run of attention_ln is LN(MHA(X)) of the same weights as pure_attention."""
    cfg = D.DepthConfig(n=5, d=4, H=1, d_k=4, layers=2, dps=60, seed=1)
    heads, _, X0 = D.draw_weights(cfg)
    f = D.float64_run(cfg, "attention_ln")
    M = mha(FP, X0, [Head(*h) for h in heads])
    Y = layer_norm(FP, M)
    R = Y - Y.mean(axis=0, keepdims=True)
    assert abs(f[1]["rho"] - float(np.linalg.norm(R) / np.linalg.norm(Y))) < 1e-12
    cert = D.run(cfg, "attention_ln")
    assert abs(10 ** cert["layers"][1]["log10_rho"] - f[1]["rho"]) < 1e-12


def test_depth_orthogonal_value_maps_sum_to_an_orthogonal_matrix():
    for (n, d, H, dk) in D.DEPTH_SHAPES:
        heads, _, _ = D.draw_weights(D.DepthConfig(n=n, d=d, H=H, d_k=dk, weights="orthogonal"))
        W = sum(v @ o for _, _, v, o in heads)
        assert np.allclose(W.T @ W, np.eye(d), atol=1e-12)
    with pytest.raises(ValueError, match="H d_k = d"):
        D.draw_weights(D.DepthConfig(n=4, d=6, H=1, d_k=3, weights="orthogonal"))
    with pytest.raises(ValueError, match="weights"):
        D.draw_weights(D.DepthConfig(weights="nope"))


def test_depth_ln_comparison_uses_the_same_weights_and_inputs():
    """With and without LN: the same draw (so the comparison isolates LayerNorm); LN removes the value maps' scale."""
    for kw in ({}, {"vo_scale": 2.0}, {"weights": "orthogonal"}):
        cfg = D.DepthConfig(layers=3, dps=200, **kw)
        a, b = D.float64_run(cfg, "pure_attention"), D.float64_run(cfg, "attention_ln")
        assert a[0] == b[0]  # the same input
    r1 = D.run(D.DepthConfig(layers=5, dps=300), "attention_ln")
    r2 = D.run(D.DepthConfig(layers=5, dps=300, vo_scale=2.0), "attention_ln")
    assert [x["rho"] for x in r1["layers"]] == [x["rho"] for x in r2["layers"]]  # LN(2 Y) = LN(Y)


def _ln_pair(la, lb, ea=3.0, eb=3.0, stays=False):
    def rec(first, e, above=False):
        layers = [{"layer": k, "rho": "x", "rho_below_2^-52": (False if (above or first is None or k < first)
                                                                 else True)} for k in range(13)]
        return {"layers": layers, "machine_precision_layer_certified": None if above else first, "exponent": e}
    return {"ln_study": [({"n": 8, "d": 6, "H": 1, "d_k": 6}, "fabricated",
                          {"pure_attention": rec(la, ea), "attention_ln": rec(lb, eb, above=stays)})]}


def test_depth_ln_checks_can_fail(monkeypatch):
    """Each LN comparison returns False on a fabricated study where LN does what the sentence denies."""
    monkeypatch.setattr(D, "depth_results", lambda quick=False: _ln_pair(5, None, stays=True))
    assert [e.holds for e in D.ln_does_not_prevent(CheckContext())] == [False]  # LN stops the collapse
    assert [e.holds for e in D.ln_collapses(CheckContext())] == [False]
    monkeypatch.setattr(D, "depth_results", lambda quick=False: _ln_pair(6, 4))
    assert [e.holds for e in D.ln_does_not_accelerate(CheckContext())] == [False]
    assert [e.holds for e in D.ln_does_not_delay(CheckContext())] == [True]
    monkeypatch.setattr(D, "depth_results", lambda quick=False: _ln_pair(4, 6, eb=2.0))
    assert [e.holds for e in D.ln_does_not_delay(CheckContext())] == [False]
    assert [e.holds for e in D.ln_rate_unchanged(CheckContext())] == [False]
    assert D.ln_rate_unchanged(CheckContext())[0].kind == "float-evidence"  # a comparison of fits
    assert D.ln_does_not_prevent(CheckContext())[0].kind == "interval-certified"  # per-layer enclosures


# --- issue 56: "within 5 to 7 layers" read as an upper bound, with the weight scale as the regime -------------------

def test_dong_machine_precision_upper_bound_is_conditional_on_the_weight_scale():
    """The headline (first crossing <= 7) holds on every standard-scale draw of the depth study's shapes and fails
    certifiably on sharp attention: Gaussian weights with the logits scaled by 4 (a draw whose rho is certainly above
    2^-52 at layers 1..7: audit 56 found the failing regime was wider than near-identity attention) and near-identity
    attention (certainly above at every layer); the exact window {5, 6, 7} is refuted by the crossings at layer 4."""
    from property_tests.paper.quick_runs import quick_run
    r = quick_run("DONG.machine-precision-5-7")
    lit = r.reading("literal")
    assert lit.verdict == "conditional", lit.condition
    assert lit.condition.startswith("holds in standard-scale") and "fails in sharp-attention" in lit.condition
    std = [e for e in lit.evidence if e.regime == "standard-scale"]
    assert len(std) == 4 and all(e.holds is True and e.numbers["layer"] <= 7 and e.numbers["draws"] >= 3
                                 for e in std)
    sharp = [e for e in lit.evidence if e.regime == "sharp-attention" and e.holds is False]
    gauss = [e for e in sharp if e.numbers.get("weights") != "negative-identity"]
    assert gauss and all(e.numbers["failed_seeds"] and e.numbers["qk_scale"] == 4.0 for e in gauss)
    assert any(e.numbers.get("weights") == "negative-identity" and e.numbers["layer"] is None for e in sharp)
    win = r.reading("exact-window")
    assert win.verdict == "refuted"
    assert sorted(e.numbers["layer"] for e in win.evidence if e.holds is False) == [4] * len(
        [e for e in win.evidence if e.holds is False])


def test_dong_machine_precision_within_decides_on_layers_one_to_seven():
    """'By layer 7' reads the certified flags of layers 1..7 only: a crossing at 8 fails, a straddle is undecided,
    layer 0 never counts."""
    from proofs_numeric.witnesses import dong_collapse as D

    def recs(flags):
        return [{"layer": i, "rho_below_2^-52": f} for i, f in enumerate(flags)]
    assert D.within(recs([True] + [False] * 7 + [True])) is False  # layer 0 below, crossing at 8
    assert D.within(recs([False] * 7 + [True])) is True  # crossing at 7
    assert D.within(recs([False] * 3 + [None] + [False] * 5)) is None
    assert D.within(recs([False] * 5)) is None  # too few layers to decide


def test_dong_machine_precision_sharp_runs_can_cross():
    """The sharp-attention check can succeed: a sharp run whose rho does cross by layer 7 counts as holding (n = 4,
    scale 4 crosses at layer 6 in the full study; most Gaussian draws at logit scale 4 cross by 7), so 'fails' is a
    measurement, not a default."""
    from proofs_numeric.witnesses import dong_collapse as D

    class Full:
        quick, dps = False, 30
    ev = [e for e in D.machine_precision_upper_bound(Full()) if e.regime == "sharp-attention"]
    assert any(e.holds is True for e in ev) and any(e.holds is False for e in ev)
    gauss = [e for e in ev if e.numbers.get("weights") != "negative-identity"]
    assert all(len(e.numbers["failed_seeds"]) < e.numbers["draws"] for e in gauss)


def test_dong_attributions_decided_in_dongs_setting():
    """What the paper says Dong said: the attributions themselves are about a text not in the sources (not
    checkable; audit 56: the headlines had answered an easier question); the mathematics beside the MLP ones fails in
    Dong's own setting (attention + MLP without skips collapses in the certified depth study); residual connections
    as a remedy hold."""
    from property_tests.paper.quick_runs import quick_run
    for cid, key in (("DONG.attr-mlp-remedy", "mlp-without-skip-prevents-collapse"),
                     ("DONG.attr-tug-of-war", "mlp-restores-rank")):
        r = quick_run(cid)
        assert r.verdict == "not-checkable" and "attribution" in r.literal.reason
        assert r.reading(key).verdict == "refuted"
        fails = [e for e in r.reading(key).evidence if e.holds is False]
        assert fails and all(e.kind == "interval-certified" for e in fails)
    assert quick_run("DONG.attr-residual-remedy").verdict == "supported"
    for cid in ("DONG.attr-ln-no-role", "DONG.attr-wo-not-discussed"):
        assert quick_run(cid).verdict == "not-checkable"


def test_setup_stochastic_product_headline_answers_the_sentence_under_its_own_condition():
    """"row-stochastic (uniform attention) ... Under these conditions, the product ... converges to a rank-1 matrix
    doubly-exponentially": the headline is decided under uniform attention (rank 1 after one layer: true, trivially),
    the parenthesis dropped is the reading arbitrary-stochastic-product, refuted by P = [[3/4, 1/4], [1/4, 3/4]]
    (sigma_2(P^L) = 2^-L) (issue 56, audit 62)."""
    from property_tests.paper.quick_runs import quick_run
    r = quick_run("DONG.setup-stochastic-product")
    assert r.error is None, r.error
    assert r.verdict in ("supported", "proved")  # proved where coqc checks uniform_attention_rank_one
    assert "uniform attention" in r.claim.quote and "Under these conditions" in r.claim.quote
    exact = [e for e in r.literal.evidence if e.kind == "exact"]
    assert exact and all(e.holds is True for e in exact) and exact[0].numbers["premise_met"] == 4
    other = next(rr for rr in r.readings if rr.key == "arbitrary-stochastic-product")
    assert other.verdict == "refuted"
    assert any(e.kind == "counterexample" and e.holds is False for e in other.evidence)


def test_contribution_2_headline_decides_every_part_in_one_notion():
    """RRO.contribution-2's headline reads (a), (b), (c) all in Dong's rho (certified rho >= 2^-52 for 12 layers), the
    reading exact-rank all three in certified exact rank; what was found: (b) fails in rho (refuted), and in exact rank
    (b) is undecided at every shape, so that reading decides nothing (issue 56, audit 62)."""
    from property_tests.paper.quick_runs import quick_run
    r = quick_run("RRO.contribution-2")
    assert r.error is None, r.error
    lit = r.literal.evidence
    assert lit and all("in Dong's sense" in e.summary for e in lit), [e.summary[:80] for e in lit]
    assert {"full block", "attention skip", "attention mlp"} <= {p for e in lit for p in
                                                               ("full block", "attention skip", "attention mlp")
                                                               if p in e.summary}
    assert (r.verdict, r.strength) == ("refuted", "interval")
    ex = next(rr for rr in r.readings if rr.key == "exact-rank")
    assert ex.evidence and all("(a), (b), (c) in exact rank" in e.summary for e in ex.evidence)
    assert all(e.holds is not True for e in ex.evidence)  # (b) open: never supported on (a) and (c) alone
    assert ex.verdict != "supported"


def test_depth_study_runs_only_the_regimes_a_claim_reads(monkeypatch):
    """The depth study is lazy (issue 59: its first reader in the ledger paid for every regime of every shape): reading
    one regime of one shape runs that one, the shape's ``ln_study`` pair without extra weights shares the shape's own
    runs, and iterating a shape's runs gives every regime in order. (Planted: depth_results running every regime up
    front, or the pair running its own copies: red here.)"""
    calls = []

    def fake_run(cfg, regime):
        calls.append((cfg.n, cfg.d, cfg.H, cfg.d_k, cfg.weights, regime))
        return {"regime": regime, "cfg": cfg}
    monkeypatch.setattr(D, "run", fake_run)
    monkeypatch.setattr(D, "_CACHE", {})
    res = D.depth_results(False)
    assert calls == []
    shape, runs = res["shapes"][1]
    assert runs["attention_mlp"]["regime"] == "attention_mlp"
    assert runs["attention_mlp"] is runs["attention_mlp"]
    assert calls == [(shape["n"], shape["d"], shape["H"], shape["d_k"], "gaussian", "attention_mlp")]
    same = [pair for s, label, pair in res["ln_study"] if s == shape and not dict(D.LN_CONFIGS)[label]]
    assert same and same[0]["pure_attention"] is runs["pure_attention"]
    assert [c[-1] for c in calls] == ["attention_mlp", "pure_attention"]
    assert list(runs) == list(D.DEPTH_REGIMES) and [r["regime"] for r in runs.values()] == list(D.DEPTH_REGIMES)
    assert res["adversarial_skip"]["cfg"].weights == "negative-identity"
    with pytest.raises(KeyError):
        runs["no-such-regime"]
