"""The strategies of property_tests/strategies/ (a module per subject, every public name re-exported by the
package): bounds are keyword-only and validated when the strategy is built (a clear InvalidArgument naming the
argument, before anything is drawn), and what they draw respects the bounds."""
from __future__ import annotations

import inspect

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis.errors import InvalidArgument

from property_tests import strategies as S
from theorems.exact.linalg import rank

#: every public strategy builder (constants and the NamedTuple excluded)
BUILDERS = [name for name in S.__all__ if callable(getattr(S, name)) and name[0].islower()]


@pytest.mark.parametrize("name", BUILDERS)
def test_strategies_take_keyword_only_arguments(name):
    params = inspect.signature(getattr(S, name)).parameters.values()
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params), name


@pytest.mark.parametrize("build, argument", [
    (lambda: S.shapes(min_side=5, max_side=3), "min_side"),
    (lambda: S.shapes(min_side=0), "min_side"),
    (lambda: S.shapes(max_side=2.5), "max_side"),
    (lambda: S.shapes(regime="n<<d"), "regime"),
    (lambda: S.shapes(regime="n<d", min_side=4, max_side=4), "max_side"),
    (lambda: S.token_matrices(n=3), "n and d"),
    (lambda: S.token_matrices(n=-1, d=2), "n"),
    (lambda: S.token_matrices(families=("nope",)), "families"),
    (lambda: S.token_matrices(families=()), "families"),
    (lambda: S.gammas(d=0), "d"),
    (lambda: S.gammas(d=3, allow_zero="yes"), "allow_zero"),
    (lambda: S.betas(d=2, max_value=-1), "max_value"),
    (lambda: S.ln_inputs(regime="wide"), "regime"),
    (lambda: S.ln_inputs_breaking(hypothesis="H5"), "hypothesis"),
    (lambda: S.rms_inputs(max_rows=0), "max_rows"),
    (lambda: S.low_rank_matrices(min_side=4, max_side=2), "min_side"),
    (lambda: S.low_rank_matrices(n=2, d=3, max_rank=3), "max_rank"),
    (lambda: S.low_rank_matrices(max_entry=True), "max_entry"),
    (lambda: S.value_output_maps(d=3, min_heads=3, max_heads=1), "min_heads"),
    (lambda: S.value_output_maps(d=0), "d"),
    (lambda: S.w_o_of_rank(max_d=0), "max_d"),
    (lambda: S.integer_arrays(shape=(2, -1)), "shape"),
    (lambda: S.integer_arrays(shape="2x2"), "shape"),
    (lambda: S.integer_matrices_of_rank(min_side=3, max_side=2), "min_side"),
    (lambda: S.integer_matrices_of_rank(min_rank=20, max_side=12), "min_rank"),
    (lambda: S.integer_matrices_of_rank(entry_bits=(3.0,)), "entry_bits"),
    (lambda: S.deficient_integer_matrices(max_entry_bits=40), "max_entry_bits"),
    (lambda: S.adversarial_integer_matrices(max_side=1), "max_side"),
    (lambda: S.matrices_with_dependent_columns(min_rows=5, max_rows=4), "min_rows"),
    (lambda: S.matrices_with_pivots(min_side=1), "min_side"),
    (lambda: S.stored_matrices(dtypes=("complex128",)), "dtypes"),
    (lambda: S.longdouble_matrices(max_side=-1), "max_side"),
    (lambda: S.dyadic_low_rank(max_entry=2 ** 30), "max_entry"),
    (lambda: S.dyadic_low_rank(spans=(0, -3)), "spans"),
    (lambda: S.rational_low_rank(max_denominator=0), "max_denominator"),
    (lambda: S.attention_setups(min_n=4, max_n=3), "min_n"),
    (lambda: S.attention_setups(max_value=float("nan")), "max_value"),
    (lambda: S.attention_setups(max_dk=9), "max_dk"),
    (lambda: S.evidence_lists(min_size=3, max_size=1), "min_size"),
    (lambda: S.evidence_lists(constructors=("proof-by-intimidation",)), "constructors"),
    (lambda: S.float_vectors(min_size=4, max_size=2), "min_size"),
    (lambda: S.float_vectors(max_value=-1.0), "max_value"),
    (lambda: S.float_matrices(min_side=0), "min_side"),
    (lambda: S.check_argv(files="/nonexistent/hostile"), "files"),
    (lambda: S.depth_argv(outdir=3), "outdir"),
    (lambda: S.scaffold_names(max_size=-1), "max_size"),
])
def test_strategies_reject_bad_bounds_when_built(build, argument):
    """Raised by the call itself (not at the first draw), and the message names the argument."""
    with pytest.raises(InvalidArgument, match=argument.split()[0]):
        build()


def test_strategies_reject_positional_bounds():
    with pytest.raises(TypeError):
        S.shapes("n<d")  # a positional argument: keyword-only, like hypothesis.strategies
    with pytest.raises(TypeError):
        S.low_rank_matrices(3, 4)


@settings(max_examples=15)
@given(S.low_rank_matrices(n=3, d=5, max_rank=2, max_entry=2))
def test_low_rank_matrices_respect_their_bounds(M):
    assert M.shape == (3, 5) and rank(M) <= 2 and all(abs(v) <= 2 * 2 * 2 for v in M)


@settings(max_examples=15)
@given(S.integer_matrices_of_rank(min_side=2, max_side=6, min_rank=1, entry_bits=(4,)))
def test_integer_matrices_of_rank_respect_their_bounds(Ar):
    A, r = Ar
    n, d = A.shape
    assert 2 <= n <= 6 and 2 <= d <= 6 and 1 <= r <= min(n, d)
    assert np.linalg.matrix_rank(A) <= r


@settings(max_examples=15)
@given(S.w_o_of_rank(max_heads=2, max_dk=2, max_d=5, full_row_rank=True))
def test_w_o_of_rank_full_row_rank_is_exact(Hdw):
    H, dk, d, W = Hdw
    assert W.shape == (H * dk, d) and rank(W) == H * dk


@settings(max_examples=15)
@given(S.shapes(regime="n>d", min_side=2, max_side=4))
def test_shapes_respect_the_regime(nd):
    n, d = nd
    assert n > d >= 2
