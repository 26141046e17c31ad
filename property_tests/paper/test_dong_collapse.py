"""The depth study: certified residuals deep into the collapse, and the float64 contrast."""
from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from proofs_numeric import dong_collapse as D
from proofs_numeric.cli import main
from theorems.exact.transformer import Head, mha

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
