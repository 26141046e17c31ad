"""Dong et al.'s Figure 2: the packaged numbers, the metric exactly, the surgeries, the certified answer at a 0.00
layer, the figure's claims and the ``fig2`` command's bad input."""
from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

from proofs_numeric.cli import main
from proofs_numeric.model import synthetic
from proofs_numeric.model.checkpoint import load_checkpoint
from proofs_numeric.model.dong_variants import VARIANTS, dong_ratio, variant_block, variant_hidden
from proofs_numeric.witnesses.dong_figure import ROUNDING_LEVEL, run_figure2, zero_layer_answer
from property_tests.paper.quick_runs import quick_run
from theorems.exact import dong_figure as F

# --- the packaged data ---------------------------------------------------------------------------------------------


def test_fig2_csv_is_packaged_whole():
    """Every curve of the figure is there: 3 models x 2 weights x 4 variants x 13 layers, values in [0, 1.05]."""
    rows = F.figure2()
    assert len(rows) == 3 * 2 * 4 * 13
    assert {(r.model, r.weights, r.variant) for r in rows} == {
        (m, w, v) for m in F.MODELS for w in ("pretrained", "init") for v in F.VARIANTS}
    # one value lies above the plot's ylim 1.01 (XLNet init SAN+MLP layer 0 = 1.0203, drawn clipped): kept as read
    assert all(0 <= r.mean <= Fraction(105, 100) and r.std >= 0 for r in rows)
    assert F.curve("BERT", "pretrained", "SAN")[5].mean == Fraction(35, 10000)  # the exact decimal, not a float


def test_fig2_first_layer_below_is_the_last_crossing():
    """'From layer k on': a curve that dips below and comes back is not counted from its first dip."""
    assert F.first_layer_below("BERT", "pretrained", "SAN") == 5
    assert F.first_layer_below("Albert", "pretrained", "SAN+skip") == 8
    assert F.first_layer_below("BERT", "pretrained", "transformer") is None
    # XLNet pretrained SAN: 0.0217, 0.0245 at layers 8, 9, then 0.0294 at 10: below 0.025 only from 11 on
    assert F.first_layer_below("XLNet", "pretrained", "SAN", Fraction(25, 1000)) == 11
    with pytest.raises(ValueError, match="no curve"):
        F.curve("GPT", "pretrained", "SAN")


def test_fig2_path_share_mode_is_exact():
    ks, top = F.path_share_mode(12, 12)
    assert ks == [11, 12] and top == Fraction(12 ** 12, 13 ** 12)
    assert sum(F.path_share(12, 12, k) for k in range(13)) == 1
    assert F.path_share_mode(3, 1) == ([1, 2], Fraction(3, 8))  # C(3, k) / 8: 1, 3, 3, 1


# --- the metric --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("X, ratio_sq", [
    ([[1, 0], [0, 1]], Fraction(1)),              # R = +-1/2 everywhere: (1 * 1) / (1 * 1)
    ([[2, 0], [0, 0]], Fraction(1, 2)),           # R = [[1, 0], [-1, 0]]: (2 * 1) / (2 * 2)
    ([[1, 2], [1, 2]], Fraction(0)),              # identical tokens
    # mean (2, 1, 1), R = [[1, 0, -1], [-1, 0, -1], [0, 0, 2]]: ||R||_1 = 4, ||R||_inf = 2; ||X||_1 = ||X||_inf = 6
    ([[3, 1, 0], [1, 1, 0], [2, 1, 3]], Fraction(4 * 2, 6 * 6)),
])
def test_fig2_metric_on_hand_made_matrices(X, ratio_sq):
    assert F.composite_ratio_sq(X) == ratio_sq
    assert dong_ratio(np.array(X, dtype=float)) == pytest.approx(float(ratio_sq) ** 0.5, rel=1e-15, abs=1e-300)


def test_fig2_metric_is_not_frobenius():
    """The composite norm, not Frobenius: on this matrix the two ratios differ (a bug swapping them goes red)."""
    X = np.array([[3.0, 1, 0], [1, 1, 0], [2, 1, 3]])
    R = X - X.mean(axis=0)
    assert abs(dong_ratio(X) - np.linalg.norm(R) / np.linalg.norm(X)) > 0.05


def test_fig2_float_metric_matches_the_exact_one_on_integer_matrices():
    rng = np.random.default_rng(5)
    for _ in range(20):
        X = rng.integers(-9, 10, size=(int(rng.integers(2, 7)), int(rng.integers(1, 6))))
        if not X.any():
            continue
        assert dong_ratio(X.astype(float)) == pytest.approx(float(F.composite_ratio_sq(X.tolist())) ** 0.5,
                                                            rel=1e-12, abs=1e-15)


# --- the surgeries ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    path = synthetic.write_random(tmp_path_factory.mktemp("bert"), synthetic.bert_config(
        layers=2, d=16, H=2, d_ff=32, vocab=50, max_pos=32), seed=3)
    return load_checkpoint(path)


@pytest.fixture(scope="module")
def tiny_llama(tmp_path_factory):
    path = synthetic.write_random(tmp_path_factory.mktemp("llama"), synthetic.llama_config(
        layers=2, d=16, H=4, H_kv=2, d_ff=24, vocab=50, max_pos=32), seed=4)
    return load_checkpoint(path)


def _without_mlp(L, d_ff, d):
    """The layer with zero MLP weights and the identity affine in its second norm."""
    z = np.zeros
    out = replace(L, W1=z((d, d_ff)), b1=z(d_ff), W2=z((d_ff, d)), b2=z(d),
                  ln2=(np.ones(d), None if L.ln2[1] is None else z(d)))
    if L.Wg is not None:
        out = replace(out, Wg=z((d, d_ff)), bg=z(d_ff))
    return out


def test_fig2_san_skip_is_the_full_block_without_its_mlp(tiny_bert):
    """Post-LN: SAN+skip = LN1(X + MHA(X)), which is the full block with zero MLP weights once LN2 is the identity
    map on LN1's output (gamma_1 = 1, beta_1 = 0 make that output centred with unit variance, so LN2 = LN fixes it)."""
    m = tiny_bert
    X = variant_hidden(m, list(range(7)), "full", layers=0)[0]
    L = m.layers[0]
    d, d_ff = m.d, m.config.d_ff
    Lid = replace(_without_mlp(L, d_ff, d), ln1=(np.ones(d), np.zeros(d)))
    np.testing.assert_allclose(variant_block(m, X, Lid, "SAN+skip"), variant_block(m, X, Lid, "full"), atol=1e-9)
    # and the surgery really removes something: with the trained MLP the two differ
    assert np.abs(variant_block(m, X, L, "SAN+skip") - variant_block(m, X, L, "full")).max() > 1e-3
    # SAN+MLP with no MLP is SAN (up to the same idempotent LN2)
    np.testing.assert_allclose(variant_block(m, X, Lid, "SAN+MLP"), variant_block(m, X, Lid, "SAN"), atol=1e-9)


def test_fig2_san_drops_the_skip(tiny_bert):
    """SAN = LN1(MHA(X) + b_O): the same as SAN+skip on an input X = 0 (no skip to drop), different elsewhere."""
    m = tiny_bert
    L = m.layers[0]
    X = variant_hidden(m, list(range(5)), "full", layers=0)[0]
    assert np.abs(variant_block(m, X, L, "SAN") - variant_block(m, X, L, "SAN+skip")).max() > 1e-3
    Z = np.zeros_like(X)
    np.testing.assert_allclose(variant_block(m, Z, L, "SAN"), variant_block(m, Z, L, "SAN+skip"), atol=1e-12)


def test_fig2_pre_ln_surgery(tiny_llama):
    """Pre-LN: SAN+skip = X + SAN(X), and the full block with no MLP is SAN+skip exactly."""
    m = tiny_llama
    X = variant_hidden(m, list(range(6)), "full", layers=0)[0]
    L = m.layers[0]
    np.testing.assert_allclose(variant_block(m, X, L, "SAN+skip"), X + variant_block(m, X, L, "SAN"), atol=1e-12)
    Lz = _without_mlp(L, m.config.d_ff, m.d)
    np.testing.assert_allclose(variant_block(m, X, Lz, "full"), variant_block(m, X, L, "SAN+skip"), atol=1e-12)
    with pytest.raises(ValueError, match="not one of"):
        variant_block(m, X, L, "SAN+MLP+skip")


# --- the certified answer at a 0.00 layer -----------------------------------------------------------------------


def test_fig2_certified_answer_on_a_near_rank_one_float_matrix():
    """Rows v + 2^-50 e_i: numpy says rank 1 (the differences are below its tolerance), the stored rows are distinct
    and their exact rank is full (the leading block is 1 v^T + 2^-50 I, det = 2^-50 (n-1) (2^-50 + sum v) != 0)."""
    n, d = 24, 40
    v = np.random.default_rng(1).uniform(1, 2, size=d)
    X = np.tile(v, (n, 1))
    X[np.arange(n), np.arange(n)] += 2.0 ** -50
    assert len({r.tobytes() for r in X}) == n
    r = dong_ratio(X)
    assert r < ROUNDING_LEVEL
    a = zero_layer_answer(X, r, seed=0)
    assert a["numpy_rank"] == 1
    assert a["exact_rank"]["certified"] and a["exact_rank"]["lower"] == n
    assert a["distinct_rows"] == n and a["at_rounding_level"]
    assert "numpy's rank 1 is rounding" in a["rank_words"] and "exact rank 24" in a["rank_words"]
    # an exactly rank-1 matrix: both ranks 1, and the words say they agree
    b = zero_layer_answer(np.tile(v, (n, 1)) * 2.0 ** np.arange(n)[:, None], 1e-3, seed=0)  # exact multiples
    assert b["exact_rank"]["lower"] == b["exact_rank"]["upper"] == 1 and "agree" in b["rank_words"]
    assert not b["at_rounding_level"]


def test_fig2_protocol_on_a_checkpoint(tiny_bert):
    res = run_figure2(tiny_bert, list(range(9)), seed=0)
    assert set(res["variants"]) == set(VARIANTS)
    for v in VARIANTS:
        r = res["variants"][v]["ratio"]
        assert len(r) == tiny_bert.config.n_layers + 1
        assert r[0] == res["variants"]["full"]["ratio"][0]  # layer 0 is the embedding output for every variant
    assert all(z["ratio"] < 0.005 and "exact_rank" in z for z in res["zero_layers"])
    json.dumps(res)  # a JSON record


# --- the claims --------------------------------------------------------------------------------------------------


def test_fig2_path_mode_is_proved_exactly():
    r = quick_run("DONG.path-length-mode")
    assert (r.verdict, r.strength) == ("proved", "exact")


@pytest.mark.parametrize("cid", ["DONG.fig2-bert-san", "DONG.fig2-albert-san-skip"])
def test_fig2_readings_of_the_plotted_numbers_are_measured_data_not_proofs(cid):
    """Audit 62: the plotted values are a reading of a published figure (4 decimals), so the readings are supported
    by measured data, never 'proved'; each margin to 0.005 is above the reading's last digit."""
    r = quick_run(cid)
    assert (r.verdict, r.strength) == ("supported", "float")
    [e] = r.literal.evidence
    assert "measured data" in e.arithmetic and Fraction(e.numbers["margin"]) > Fraction(1, 10_000)


def test_fig2_claim_is_undecided_within_the_readings_last_digit(monkeypatch):
    """A plotted value within 1e-4 of the threshold leaves the reading undecided, not held."""
    from proofs_numeric.ledger import get
    from theorems.framework import CheckContext, run_claim
    rows = [replace(r, mean=Fraction(49995, 10_000_000)) if (r.model, r.weights, r.variant, r.layer) ==
            ("BERT", "pretrained", "SAN", 5) else r for r in F.figure2()]
    monkeypatch.setattr(F, "figure2", lambda: tuple(rows))
    r = run_claim(get("DONG.fig2-bert-san"), CheckContext(quick=True))
    assert r.literal.evidence[0].holds is None and "last digit" in r.literal.evidence[0].reason


def test_fig2_claim_goes_red_on_other_numbers(monkeypatch):
    """The verdict is computed from the CSV: move BERT's layer-5 value above 0.005 and the reading fails (measured
    data failing makes it unsupported; the verdict model refutes only on exact or certified evidence)."""
    from proofs_numeric.ledger import get
    from theorems.framework import CheckContext, run_claim
    rows = [replace(r, mean=Fraction(6, 1000)) if (r.model, r.weights, r.variant, r.layer) ==
            ("BERT", "pretrained", "SAN", 5) else r for r in F.figure2()]
    monkeypatch.setattr(F, "figure2", lambda: tuple(rows))
    r = run_claim(get("DONG.fig2-bert-san"), CheckContext(quick=True))
    assert r.verdict == "unsupported" and r.literal.evidence[0].holds is False


# --- the command's bad input -------------------------------------------------------------------------------------


@pytest.mark.parametrize("argv, words", [
    (["fig2", "--model", "/nonexistent/model"], "not found"),
    (["fig2", "--variants", "SAN,SAN+attn"], "'SAN+attn' not among"),
    (["fig2", "--ids", "[1, 2"], "--ids is not valid JSON"),
    (["fig2", "--ids", "[1, -4]"], "token id 1 is -4"),
    (["fig2", "--ids", "[7]"], "needs at least 2 tokens"),
    (["fig2", "--length", "0"], "--length"),
    (["fig2", "--text", "a", "--text", "b"], "one input"),
    (["fig2", "--plot", "fig.txt"], ".png, .svg or .pdf"),
    (["fig2", "--prime-seed", "-1"], "--prime-seed"),
])
def test_fig2_bad_input_is_one_line(argv, words, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err and err.startswith("collapse-verify: error:")


def test_fig2_plot_replaces_only_its_own_figure(tiny_bert, tmp_path, capsys):
    """--plot over the user's own file is refused before the run (the file unchanged); over a figure it drew, and
    with --force over anything, it writes."""
    mine = tmp_path / "mine.png"
    mine.write_bytes(b"my own picture")
    argv = ["fig2", "--model", str(tiny_bert.path), "--length", "6", "--no-certify", "--plot", str(mine)]
    assert main(argv) == 2
    assert "not a figure collapse-verify drew" in capsys.readouterr().err and mine.read_bytes() == b"my own picture"
    assert main(argv + ["--force"]) == 0 and mine.read_bytes()[:4] == b"\x89PNG"
    assert main(argv) == 0  # now it is one it drew
    capsys.readouterr()


def test_fig2_command_on_a_checkpoint_without_tokenizer(tiny_bert, tmp_path, capsys):
    out = tmp_path / "fig2.json"
    assert main(["fig2", "--model", str(tiny_bert.path), "--length", "6", "--token-seed", "2", "--json",
                 str(out)]) == 0
    rec = json.loads(out.read_text())
    assert rec["collapse_verify"]["kind"] == "fig2" and rec["n_tokens"] == 6
    assert "SAN+skip" in capsys.readouterr().out
