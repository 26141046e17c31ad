"""Issue 58, the libraries we declare, used: one exact array classifier and one numerical-rank function.

Before: four classifiers of numpy arrays disagreed on bool arrays (``certified_rank`` took a bool matrix as 0/1 and
gave its rank, ``analyse_array`` refused it), and four numerical ranks counted singular values four ways (numpy's
default, 1e-8, 1e-12, a wrapper of the same name). Now :func:`theorems.exact.input.classify_array` is the one rule
(a bool array is the 0/1 matrix it stores; a boolean *entry* is refused) and
:func:`proofs_numeric.core.float_hints.rank_above` the one count, at named tolerances with their reasons."""
from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from proofs_numeric.core import float_hints as FH
from proofs_numeric.model import sites as S
from proofs_numeric.witnesses import dong_collapse as DC
from theorems.exact.certified_rank import certified_rank
from theorems.exact.input import BadInput, classify_array, exact_entries, exact_rows
from theorems.exact.norm_exact import analyse_array
from theorems.exact.reader import read_matrix

ROOT = Path(__file__).resolve().parents[2]

_BASE = [[1, 0, 1], [0, 1, 1], [1, 1, 2], [0, 0, 0]]  # rank 2, entries 0, 1, 2


def _arrays():
    """(label, array) of every dtype family, all holding the values of _BASE (bool: its 0/1 pattern)."""
    b = np.array(_BASE)
    out = [("bool", b.astype(bool)), ("object ints", np.array(_BASE, dtype=object)),
           ("object Fractions", np.array([[Fraction(v) for v in r] for r in _BASE], dtype=object)),
           ("longdouble", b.astype(np.longdouble)), ("uint64 big", b.astype(np.uint64) * np.uint64(2 ** 63))]
    for dt in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
               "float64", ">i4", ">f8", ">u8"):
        out.append((dt, b.astype(dt)))
    return out


def _sympy_rank(rows) -> int:
    return sympy.Matrix([[sympy.Rational(Fraction(v).numerator, Fraction(v).denominator) for v in r]
                         for r in rows]).rank()


@pytest.mark.parametrize("label, A", _arrays(), ids=[a for a, _ in _arrays()])
def test_one_rule_every_classifier_reads_every_dtype_the_same(label, A, tmp_path):
    """exact_entries, the reader (.npy), the certified rank and the exact LayerNorm analysis take the same values from
    every dtype: the same rows, and the same rank (against sympy on the exact rows)."""
    rows = exact_entries(A)
    want = _sympy_rank(rows)
    assert certified_rank(A, seed=0).value == want
    assert analyse_array(A, seed=0).rank_X == want
    if A.dtype.kind != "O":  # .npy holds no object arrays
        p = tmp_path / "A.npy"
        np.save(p, A)
        M = read_matrix(str(p), "--X")
        assert M.rows() == [[int(v) if Fraction(v).denominator == 1 else Fraction(v) for v in r] for r in rows]
        assert certified_rank(M.kernel(), seed=0).value == want


def test_one_rule_a_bool_array_is_its_0_1_matrix_everywhere():
    """The defect: certified_rank of a bool array gave 2 while analyse_array refused it. Both take it as 0/1 now."""
    B = np.array([[True, False], [True, False], [False, True]])
    assert classify_array(B)[0] == "int" and classify_array(B)[1].tolist() == [[1, 0], [1, 0], [0, 1]]
    assert certified_rank(B).value == 2 == analyse_array(B, seed=0).rank_X
    assert exact_entries(B) == [[1, 0], [1, 0], [0, 1]]


@pytest.mark.parametrize("A", [np.array([[True, 1]], dtype=object), np.array([[1 + 2j, 0]]),
                               np.array([[np.nan, 1.0]]), np.zeros((1, 2), dtype=[("a", "f8")]),
                               np.array([["2020-01-01"]], dtype="datetime64[D]")],
                         ids=["bool entry", "complex", "nan", "structured", "datetime"])
def test_one_rule_every_classifier_refuses_the_same(A):
    """A boolean entry in an object array, complex, NaN, structured and datetime arrays: refused by each, by name."""
    for f in (lambda: certified_rank(A), lambda: analyse_array(A), lambda: exact_rows(exact_entries(A))):
        with pytest.raises((BadInput, TypeError)):
            f()


def test_one_rule_the_classifiers_call_the_one_function():
    """No module classifies a numpy dtype by itself any more (the four call classify_array)."""
    for rel in ("theorems/exact/certified_rank.py", "theorems/exact/norm_exact.py", "theorems/exact/reader.py"):
        text = (ROOT / rel).read_text()
        assert "classify_array(" in text, rel
        assert not re.search(r'kind == "b"', text), f"{rel} branches on bool itself"


# --- one numerical rank -------------------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), n=st.integers(1, 12), d=st.integers(1, 12), r=st.integers(0, 12),
       scale=st.integers(-30, 30))
def test_one_rule_rank_above_at_the_rounding_tolerance_is_numpys_matrix_rank(seed, n, d, r, scale):
    rng = np.random.default_rng(seed)
    r = min(r, n, d)
    A = rng.standard_normal((n, r)) @ rng.standard_normal((r, d)) * 10.0 ** scale
    s = np.linalg.svd(A, compute_uv=False)
    assert FH.rank_above(s, FH.rounding_rtol(A.shape)) == int(np.linalg.matrix_rank(A))
    assert FH.numerical_rank(A)["rank"] == FH.rank_above(s, FH.rounding_rtol(A.shape)) or \
        "Gram" in FH.numerical_rank(A)["arithmetic"]


def test_one_rule_the_tolerances_are_named_with_reasons():
    assert S.RANK_RTOL is FH.RTOL_ACTIVATIONS and DC.NUMERICAL_RANK_RTOL is FH.RTOL_DEPTH
    assert set(FH.RTOL_REASONS) == {"rounding", "activations", "head-subspaces", "depth"}
    assert all(len(why) > 40 for why in FH.RTOL_REASONS.values())
    s = np.array([1.0, 1e-9, 1e-11, 1e-13])
    assert [FH.rank_above(s, t) for t in (FH.RTOL_ACTIVATIONS, FH.RTOL_HEAD_SUBSPACES, FH.RTOL_DEPTH)] == [1, 2, 3]


def test_one_rule_no_numerical_rank_is_counted_outside_the_one_function():
    """No `matrix_rank(` call and no hand count `s > tol * s[0]` in the numeric layer outside float_hints."""
    for p in sorted((ROOT / "proofs_numeric").rglob("*.py")):
        if p.name == "float_hints.py":
            continue
        text = p.read_text()
        assert "matrix_rank(" not in text, p
        assert not re.search(r"np\.sum\(\s*\w+\s*>\s*[\w.]+\s*\*\s*\w+\[0\]\)", text), p
