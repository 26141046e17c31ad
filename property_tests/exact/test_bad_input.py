"""Bad input gets a clear error naming the problem, never a silent wrong answer."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sympy import Rational

from proofs_numeric.core.transformer import layer_norm
from theorems.exact import layernorm as LN
from theorems.exact.input import BadInput


@given(st.sampled_from([math.nan, math.inf, -math.inf]), st.integers(0, 2), st.integers(0, 2))
def test_bad_input_non_finite_entries_rejected(bad, i, j):
    X = [[1.0, 2.0, 3.0] for _ in range(3)]
    X[i][j] = bad
    with pytest.raises(BadInput, match=r"X\[%d\].*not a finite number" % i):
        LN.instance(X)


def test_bad_input_constant_row_names_H1():
    inst = LN.instance([[1, 2, 3], [5, 5, 5]])
    assert LN.is_H1_nonconstant_rows(inst) is False
    assert LN.has_H4_sigma_not_in_colspace(inst) is None  # undefined, not False
    with pytest.raises(LN.HypothesisViolation, match=r"H1 fails: row\(s\) \[1\]"):
        LN.arank_LN(inst)
    for backend in ("float64", "mp", "iv"):
        with pytest.raises(ValueError, match="H1 fails"):
            layer_norm([[1, 2, 3], [5, 5, 5]], backend=backend, dps=20)


@pytest.mark.parametrize("kwargs, needle", [
    ({"X": [[1, 2], [3]]}, "ragged"),
    ({"X": []}, "non-empty"),
    ({"X": [[]]}, "empty rows"),
    ({"X": [[1, 2]], "gamma": [1]}, "gamma has length 1, expected 2"),
    ({"X": [[1, 2]], "beta": [1, 2, 3]}, "beta has length 3, expected 2"),
    ({"X": [[1, object()]]}, "not a number"),
])
def test_bad_input_shapes_and_types(kwargs, needle):
    with pytest.raises(BadInput, match=needle):
        LN.instance(**kwargs)


def test_bad_input_float_entries_are_exact_dyadics():
    inst = LN.instance(np.array([[0.1, 0.2, 0.7]]))
    assert inst.X[0, 0] == Rational(3602879701896397, 36028797018963968)
