"""Recovery ambiguity (§7.3, §8): the BERT-base figures, PG-OP's overheads, its gated kernels (exact), and the
numeric PG-OP map (proofs_numeric.witnesses.recovery_ambiguity) against plain MHA."""
from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from sympy import Matrix, Rational

from proofs_numeric.core.transformer import Head, mha
from proofs_numeric.witnesses.recovery_ambiguity import mha_pg_op
from theorems.exact import heads as HEADS
from theorems.paper import recovery_ambiguity as RA


def test_recovery_ambiguity_bert_figures():
    f = RA.bert_figures()
    assert (f["per_sequence"], f["per_token"]) == (360448, 704)
    assert f["reading_a_generic"] == 0


def test_recovery_ambiguity_pgop_overheads_exact():
    rows = {(r["construction"], r["relative_to"]): r for r in RA.pgop_overhead()}
    lin = rows[("linear gate from the input", "weights + bias")]
    assert lin["fraction"] == Rational(1, 64)  # H (d + 1) / (d (d + 1)) = H / d
    assert rows[("per-position-per-channel", "weights only")]["below_1.6%"] is False


@given(st.integers(1, 3), st.integers(2, 3), st.integers(1, 2), st.data())
def test_recovery_ambiguity_pgop_nonzero_gates_leave_kernel_unchanged(n, H, dk, data):
    d = data.draw(st.integers(1, 5))
    W = Matrix(H * dk, d, data.draw(st.lists(st.integers(-3, 3).map(Rational), min_size=H * dk * d,
                                             max_size=H * dk * d)))
    gates = [[Rational(data.draw(st.sampled_from([-2, -1, 1, 2, 3]))) for _ in range(n)] for _ in range(H)]
    base = HEADS.map_nullity(lambda Ys: HEADS.Phi_a(Ys, W), n, H, dk)
    assert HEADS.map_nullity(lambda Ys: RA.Phi_a_gated(Ys, W, gates), n, H, dk) == base
    assert HEADS.map_nullity(lambda Ys: RA.Phi_b_gated(Ys, gates), n, H, dk) == n * (H - 1) * dk


def test_recovery_ambiguity_pgop_numeric_matches_mha_with_unit_gates():
    rng = np.random.default_rng(0)
    heads = [Head(*(rng.normal(size=s) for s in [(4, 2), (4, 2), (4, 2), (2, 4)])) for _ in range(2)]
    X = rng.normal(size=(3, 4))
    assert np.allclose(mha_pg_op(X, heads, [[1, 1, 1], [1, 1, 1]]), mha(X, heads), atol=1e-12)


# --- issue 56: RA.bert-figures decides the dimension the sentence names ---------------------------------------

def test_recovery_ambiguity_bert_figures_headline_is_the_dimension():
    """The headline is dim ker Phi_a at BERT-base's shape (W_O known): 0 for a W_O of certified rank 768, so refuted;
    the arithmetic 512 * 11 * 64 = 360448 is a reading (proved)."""
    from proofs_numeric.ledger import get
    from theorems.framework import CheckContext, run_claim
    r = run_claim(get("RA.bert-figures"), CheckContext(dps=30, quick=False))
    assert r.verdict == "refuted"
    fail = [e for e in r.literal.evidence if e.holds is False]
    assert [e.numbers["dimension"] for e in fail] == [0] and fail[0].numbers["rank_W_O"] == 768
    assert r.reading("arithmetic").verdict == "proved"
    # audit 56, defect 7: the Coq arithmetic lemmas are evidence for the arithmetic reading, not the refuted headline
    assert not [e for e in r.literal.evidence if e.kind.startswith("formal")]
    coq = [e for e in r.reading("arithmetic").evidence if e.kind.startswith("formal")]
    assert len(coq) == 2 and all(e.holds is True for e in coq)
