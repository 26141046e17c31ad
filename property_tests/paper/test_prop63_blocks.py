"""RC.prop63 (dim R_h = min(rank X, d_k)) with the causal mask and per deployed block type (issue 57): the readings'
evidence (theorems.paper.rank_contraction.causal_prop63_evidence) holds where the statement is true and is refuted on a
certified box where it is not."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from theorems.paper import rank_contraction as rc

QUICK = SimpleNamespace(quick=True)


def _kinds(evidence):
    return [(e.regime, e.scope, e.holds) for e in evidence]


def test_causal_mask_prop63_holds_for_every_score_matrix_even_with_two_equal_tokens():
    ev = rc.causal_prop63_evidence(QUICK)
    inst = [e for e in ev if e.scope == "instances"]
    assert {e.regime for e in inst} == {"n<d", "n=d", "n>d"}
    assert all(e.holds is True and e.numbers["premise_met"] > 0 for e in inst)
    assert sum(e.scope == "generic" and e.holds is True for e in ev) == 3  # one polynomial witness per regime
    (contrast,) = rc.equal_tokens_contrast(QUICK)
    assert contrast.holds is True and "unmasked det A = 0" in contrast.summary


def test_pre_ln_prop63_holds_for_the_heads_input_and_fails_on_a_box_for_the_stream():
    heads_input = rc.causal_prop63_evidence(QUICK, "pre_ln")
    assert all(e.holds is True for e in heads_input)
    assert any(e.numbers.get("rank_N_differs_from_rank_X", 0) > 0 for e in heads_input)  # LN moved a rank
    stream = rc.causal_prop63_evidence(QUICK, "pre_ln", stream=True)
    boxes = [e for e in stream if e.scope == "positive-measure"]
    assert boxes and all(e.holds is False and e.label == "robust" for e in boxes)


def test_pre_rmsnorm_keeps_the_rank_so_prop63_holds_with_the_stream():
    ev = rc.causal_prop63_evidence(QUICK, "pre_rms", stream=True)
    inst = [e for e in ev if e.scope == "instances"]
    assert all(e.holds is True and e.numbers["rank_N_differs_from_rank_X"] == 0 for e in inst)
    assert not [e for e in ev if e.scope == "positive-measure"]


@pytest.mark.parametrize("key", ["causal-mask", "pre-LN-causal", "pre-LN-causal-stream", "pre-RMSNorm-causal",
                                 "post-LN"])
def test_prop63_has_a_reading_per_block_type(key):
    from proofs_numeric.ledger import registry
    claim = next(c for c in registry() if c.id == "RC.prop63")
    assert key in [r.key for r in claim.all_readings()]
