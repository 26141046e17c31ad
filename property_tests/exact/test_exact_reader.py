"""The one exact reader: the same exact instance, written in every accepted form, is read as the same exact values by
every entry point (rank, check, the conjecture API), and check's answer for the RN claims agrees with the
independent sympy path (:func:`theorems.exact.layernorm.analyse`) on every draw."""
from __future__ import annotations

import json
import os
import tempfile
from fractions import Fraction

import flint
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy import QQ, ZZ, Matrix, Rational, sqrt

from proofs_numeric.cli import build_parser, main
from proofs_numeric.cli.check import read_user_input
from proofs_numeric.ledger import get
from proofs_numeric.ledger.check import check_claim
from property_tests.documents import document
from theorems import conjecture as api
from theorems.conjectures.ln_sphere import from_user as ln_sphere_instance
from theorems.exact.input import BadInput
from theorems.exact.layernorm import analyse, instance
from theorems.exact.linalg import to_fmpq_mat
from theorems.exact.reader import ExactMatrix, read_matrix, read_vector
from theorems.framework import TRUTH


def _decimal(q: Fraction) -> str:
    """The exact decimal of a dyadic rational (p / 2^k = p 5^k / 10^k), as a JSON number literal."""
    k = 0
    while (q.denominator >> k) > 1:
        k += 1
    m = q.numerator * 5 ** k
    s = str(abs(m)).rjust(k + 1, "0")
    body = (s[:-k] + "." + s[-k:]) if k else s
    return ("-" if m < 0 else "") + body


@st.composite
def _instances(draw):
    """An exact dyadic matrix A / 2^k (2 <= n, d <= 4), so that every form below can spell it exactly."""
    n, d = draw(st.integers(2, 4)), draw(st.integers(2, 4))
    zero_one = draw(st.booleans())
    lo, hi = (0, 1) if zero_one else (-6, 6)
    A = [[draw(st.integers(lo, hi)) for _ in range(d)] for _ in range(n)]
    k = 0 if zero_one else draw(st.integers(0, 3))
    return [[Fraction(v, 2 ** k) for v in row] for row in A], k


def _forms(M, k, folder) -> dict[str, str]:
    """The instance in every accepted form: decimal JSON text, "p/q" strings, a .json file, float .npy (float64,
    float32, float16, big-endian, long double), integer .npy and bool .npy where the values allow them."""
    out = {"decimal text": "[" + ", ".join("[" + ", ".join(_decimal(v) for v in r) + "]" for r in M) + "]",
           "p/q strings": json.dumps([[f"{v.numerator}/{v.denominator}" for v in r] for r in M])}
    path = os.path.join(folder, "m.json")
    with open(path, "w") as f:
        f.write(out["p/q strings"])
    out["json file"] = path
    F = np.array([[float(v) for v in r] for r in M])
    for name, dt in (("float64", np.float64), ("float32", np.float32), ("float16", np.float16), (">f8", ">f8"),
                     ("longdouble", np.longdouble)):
        p = os.path.join(folder, f"m_{name}.npy")
        np.save(p, F.astype(dt))
        out[f"{name} .npy"] = p
    if k == 0:
        for name, dt in (("int8", np.int8), ("int64", np.int64), (">i4", ">i4")):
            p = os.path.join(folder, f"m_{name}.npy")
            np.save(p, F.astype(dt))
            out[f"{name} .npy"] = p
        if all(v in (0, 1) for r in M for v in r):
            p = os.path.join(folder, "m_bool.npy")
            np.save(p, F.astype(bool))
            out["bool .npy"] = p
            p = os.path.join(folder, "m_u64.npy")
            np.save(p, F.astype(np.uint64))
            out["uint64 .npy"] = p
    return out


def _check_args(X: str):
    return build_parser().parse_args(["check", "RN.main", "--X", X, "--seed", "0"])


@settings(max_examples=30)
@given(_instances())
def test_exact_reader_every_form_every_entry_point_same_values(drawn):
    M, k = drawn
    want = tuple(tuple(r) for r in M)
    ref = analyse(instance([[str(v) for v in r] for r in M]))  # the independent sympy path
    with tempfile.TemporaryDirectory() as folder:
        forms = _forms(M, k, folder)
        ranks = set()
        for form, text in forms.items():
            assert read_matrix(text, "--X").fractions() == want, form
            user = read_user_input(_check_args(text))  # what `check` reads
            assert user.matrices["X"].fractions() == want, form
            assert api.read_matrix(text, "X").fractions() == want, form  # the conjecture API
            assert tuple(tuple(Fraction(int(v.p), int(v.q)) for v in ln_sphere_instance(user).row(i))
                         for i in range(len(M))) == want, form  # a conjecture's instance_from
            rec = check_claim(get("RN.main"), user)
            lit = next(r for r in rec["readings"] if r["key"] == "literal")
            assert {h: v["value"] for h, v in lit["hypotheses"].items()} == {
                h: TRUTH[ref.hypotheses[h]] for h in ("H1", "H2", "H3", "H4")}, form
            assert lit["conclusion"]["value"] == TRUTH[ref.conclusion_holds], form
            wlp = next(r for r in rec["readings"] if r["key"] == "what-LN-preserves")
            assert wlp["conclusion"]["value"] == TRUTH[None if ref.arank_LN_X is None else
                                                       ref.arank_LN_X == ref.rank_X], form
            out = _rank_json(text)
            assert out["certified"] and out["lower"] == ref.rank_X, form
            ranks.add(out["lower"])
        assert ranks == {ref.rank_X}


def _rank_json(text: str) -> dict:
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["rank", text, "--json", "--seed", "0"]) == 0
    return document(buf.getvalue(), "rank")


@pytest.mark.parametrize("text, needle", [
    ("[[true, 1]]", "boolean"), ("[[null, 1]]", "not a number"), ("[[NaN, 1]]", "not a finite number"),
    ('[["1/0", 1]]', "not an exact number"), ("[[1e1000000, 1]]", "MAX_EXPONENT"), ("[[1, 2], [3]]", "ragged"),
])
def test_exact_reader_refuses_by_name(text, needle):
    with pytest.raises(BadInput, match=needle.replace("(", r"\(")):
        read_matrix(text, "--X")


def test_exact_reader_decimals_are_the_fractions_they_spell():
    assert read_matrix("[[0.1, 1e-3, -2.5e2]]").rows() == [[Fraction(1, 10), Fraction(1, 1000), -250]]
    assert read_vector('["1/3", 0.5, 2]', "--gamma").values == [Fraction(1, 3), Fraction(1, 2), 2]


def test_exact_reader_uint64_above_2_63_and_long_double_are_exact(tmp_path):
    p = tmp_path / "u.npy"
    np.save(p, np.array([[2 ** 64 - 1, 1], [2 ** 63, 0]], dtype=np.uint64))
    assert read_matrix(str(p)).rows() == [[2 ** 64 - 1, 1], [2 ** 63, 0]]
    q = tmp_path / "ld.npy"
    x = np.longdouble(1) + np.longdouble(2) ** -60
    np.save(q, np.array([[x, 1]], dtype=np.longdouble))
    got = read_matrix(str(q)).rows()[0][0]
    assert got == Fraction(*map(int, x.as_integer_ratio())) and (got != 1) == (np.finfo(np.longdouble).nmant > 52)


# ----------------------------------------------------------------- exact conversions: the reader's sympy, to_fmpq_mat

def _entry_by_entry_fmpq(M):
    """The reference conversion: every entry as a sympy Rational, then its numerator and denominator."""
    return flint.fmpq_mat(M.shape[0], M.shape[1], [flint.fmpq(int(e.p), int(e.q)) for e in M])


_ENTRY = st.one_of(st.just(0), st.integers(-10**30, 10**30),
                   st.fractions(max_denominator=10**12).map(lambda f: Fraction(f)),
                   st.floats(allow_nan=False, allow_infinity=False, width=64).map(Fraction))


@given(st.integers(1, 6).flatmap(lambda r: st.integers(1, 6).flatmap(
    lambda c: st.lists(st.lists(_ENTRY, min_size=c, max_size=c), min_size=r, max_size=r))),
       st.sampled_from(["as read", "T", "plus itself", "col_join", "row_join", "extract"]))
def test_exact_reader_sympy_and_to_fmpq_mat_are_the_entries_exactly(rows, op):
    """`ExactMatrix.sympy()` gives every entry as the Rational it is (ints, Fractions, float64 values as the dyadic
    rationals they store; many zeros), and `to_fmpq_mat` (from the sparse domain representation every sympy 1.14
    Matrix keeps) gives the same matrix as the entry-by-entry conversion, also after the operations the claims apply
    (T, +, joins, extract) and for a matrix built entry by entry from a list."""
    exact = ExactMatrix([[(v.numerator if isinstance(v, Fraction) and v.denominator == 1 else v) for v in r]
                         for r in rows], "X", "test")
    M = exact.sympy()
    assert M.shape == (len(rows), len(rows[0]))
    assert all(M[i, j] == Rational(Fraction(v).numerator, Fraction(v).denominator)
               for i, r in enumerate(rows) for j, v in enumerate(r))
    N = {"as read": lambda: M, "T": lambda: M.T, "plus itself": lambda: M + M, "col_join": lambda: M.col_join(M),
         "row_join": lambda: M.row_join(2 * M), "extract": lambda: M.extract([0], list(range(M.shape[1])))}[op]()
    before, rep_before, copy = N.tolist(), ({i: dict(r) for i, r in N._rep.rep.items()}, N._rep.domain), N.copy()
    assert to_fmpq_mat(N) == _entry_by_entry_fmpq(N)
    assert to_fmpq_mat(N, transpose=True) == _entry_by_entry_fmpq(N.T)  # transposed while converting
    assert to_fmpq_mat(Matrix(N.tolist())) == _entry_by_entry_fmpq(N)  # built from a list of sympy numbers
    assert to_fmpq_mat(Matrix(N.tolist()), transpose=True) == _entry_by_entry_fmpq(N.T)
    # read in place, never changed: values, sparse structure and domain
    assert N.tolist() == before and N == copy
    assert ({i: dict(r) for i, r in N._rep.rep.items()}, N._rep.domain) == rep_before


_FLOAT = st.one_of(st.just(0.0), st.just(-0.0), st.integers(-2 ** 60, 2 ** 60).map(float),
                   st.floats(allow_nan=False, allow_infinity=False, width=64),
                   st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=True, min_value=-1e-300,
                             max_value=1e-300))


@given(st.integers(1, 5).flatmap(lambda r: st.integers(1, 5).flatmap(
    lambda c: st.lists(st.lists(_FLOAT, min_size=c, max_size=c), min_size=r, max_size=r))))
def test_exact_reader_float_array_to_sympy_is_the_path_through_rows(rows):
    """A float64 array goes straight into the domain's elements: the same matrix, entry for entry and in the same
    domain (ZZ when every value is an integer, else QQ), as the path through rows() (Python ints and Fractions), with
    no zero stored in the sparse representation (-0.0 and subnormals included)."""
    X = np.array(rows, dtype=np.float64)
    direct = ExactMatrix(X, "X", "test").sympy()
    via_rows = ExactMatrix(ExactMatrix(X, "X", "test").rows(), "X", "test").sympy()
    assert direct == via_rows and direct._rep.domain == via_rows._rep.domain
    assert direct.tolist() == [[Rational(*v.as_integer_ratio()) for v in row] for row in X.tolist()]
    assert all(e != 0 for r in direct._rep.rep.values() for e in r.values())
    assert direct._rep.domain == (ZZ if all(v == int(v) for row in X.tolist() for v in row) else QQ)


@pytest.mark.parametrize("data", [np.array([[0.5, 1.0], [2.0, 3.0]]), np.array([[1, 2], [3, 4]])])
def test_exact_reader_sympy_refuses_inputs_above_its_limit_by_name(data):
    """`sympy(limit=...)` refuses a matrix with more entries than the claim computes on, naming both, float or not."""
    M = ExactMatrix(data, "X", "test")
    with pytest.raises(BadInput, match=r"w computes in sympy on inputs up to 3 entries .*X has 2 x 2"):
        M.sympy(limit=3, who="w")
    assert M.sympy(limit=4, who="w").shape == (2, 2)


def test_exact_reader_a_flint_form_refusal_does_not_say_sympy():
    """Above RANK_MAX_ENTRIES the refusal says the form computes exactly in FLINT (those forms rank in FLINT), not
    "in sympy" as it did (review s6)."""
    from theorems.exact.reader import RANK_MAX_ENTRIES
    big = ExactMatrix(np.zeros((RANK_MAX_ENTRIES // 1000 + 1, 1000)), "X", "test")
    with pytest.raises(BadInput, match=r"w computes exactly \(FLINT\) on inputs up to .*RANK_MAX_ENTRIES"):
        big.fmpq(RANK_MAX_ENTRIES, "w")


def test_exact_reader_float_array_through_sympy_and_fmpq_is_exact():
    """A float64 array (what a model site hands a claim): 2^-60 and 1e300 survive both conversions exactly."""
    X = np.array([[2.0 ** -60, 0.0, -1.5], [1e300, 3.0, 0.1]])
    M = ExactMatrix(X, "X", "test").sympy()
    A = to_fmpq_mat(M)
    assert A == _entry_by_entry_fmpq(M)
    assert [A[i, j] for i in range(2) for j in range(3)] == [flint.fmpq(*Fraction(v).as_integer_ratio())
                                                             for v in X.ravel().tolist()]


_OTHER_GROUND_TYPES = """
import warnings
from fractions import Fraction
import flint, numpy as np
warnings.simplefilter("ignore", RuntimeWarning)  # theorems warns that sympy's ground types are not flint
from theorems.exact.linalg import rank, to_fmpq_mat, to_sympy
from theorems.exact.reader import ExactMatrix
from sympy import QQ, Rational
X = np.array([[2.0 ** -60, 0.0, -1.5, 1e300], [0.1, 3.0, -0.0, 7.0], [0.3, 6.0, 0.0, 14.0]])
M = ExactMatrix(X, "X", "test").sympy()
want = [[flint.fmpq(*Fraction(v).as_integer_ratio()) for v in row] for row in X.tolist()]
A, AT = to_fmpq_mat(M), to_fmpq_mat(M, transpose=True)
big = flint.fmpq(2 ** 60 + 1, 7)  # not a double: a conversion through float loses it (review s6)
back = to_sympy(flint.fmpq_mat(1, 2, [big, flint.fmpq(-1, 3)]))
ok = (A == flint.fmpq_mat(want) and AT == flint.fmpq_mat(want).transpose() and rank(M) == rank(M.T) == 3
      and to_fmpq_mat(M.row_join(M)) == flint.fmpq_mat([w + w for w in want])
      and back[0, 0] == Rational(2 ** 60 + 1, 7) and back[0, 1] == Rational(-1, 3) and to_sympy(A) == M)
print(QQ.dtype.__name__, ok)
"""


@pytest.mark.slow
def test_exact_reader_conversions_are_exact_with_sympy_ground_types_other_than_flint():
    """With SYMPY_GROUND_TYPES=python (sympy's own rationals, not FLINT's) the reader's sympy matrix, to_fmpq_mat and
    to_sympy (FLINT back to sympy: through float it lost (2^60 + 1)/7, review s6) give the same exact values and ranks
    as with FLINT's (the values are checked, not which code path gave them;
    gmpy2, the third kind, is not installed here)."""
    import subprocess
    import sys
    env = {**os.environ, "SYMPY_GROUND_TYPES": "python"}
    out = subprocess.run([sys.executable, "-c", _OTHER_GROUND_TYPES], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["PythonMPQ", "True"]


def test_exact_reader_to_fmpq_mat_of_a_dense_or_irrational_matrix_goes_entry_by_entry():
    """A dense domain representation (not what sympy 1.14 keeps, but a Matrix can be made from one) and a matrix with
    an irrational entry take the entry-by-entry path: the first converts exactly, the second refuses loudly."""
    M = Matrix([[1, Rational(-2, 3)], [0, 10**40]])
    dense = Matrix._fromrep(M.to_DM().to_dense())
    assert not isinstance(dense.to_DM().rep, dict)
    assert to_fmpq_mat(dense) == _entry_by_entry_fmpq(M)
    assert to_fmpq_mat(dense, transpose=True) == _entry_by_entry_fmpq(M.T)
    with pytest.raises((TypeError, AttributeError, ValueError)):
        to_fmpq_mat(Matrix([[1, sqrt(2)]]))
    with pytest.raises((TypeError, AttributeError, ValueError)):
        to_fmpq_mat(Matrix([[1, sqrt(2)]]), transpose=True)
