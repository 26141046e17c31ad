"""Hard inputs for the certified rank: products made hard for float pivoting, every stored dtype with its
extremes, long doubles beyond float64."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as nps

from .ranks import deficient_integer_matrices
from .validation import check_int, check_sides, check_subset

_ADVERSARIAL_KINDS = ("row-scale", "near-dependent", "duplicate", "zero-rows", "mixed")


def adversarial_integer_matrices(*, max_side: int = 24):
    """Low-rank products made hard for float pivoting: huge row scales, near-dependence (rank r plus
    a unit perturbation of entries ~2^30), duplicated columns and zero rows (rows and entries drawn)."""
    check_int("max_side", max_side, min_value=2)
    return _adversarial_integer_matrices(max_side)


@st.composite
def _adversarial_integer_matrices(draw, max_side):
    A, r = draw(deficient_integer_matrices(max_side=max_side, max_entry_bits=8))
    A = A.astype(np.int64)
    n, d = A.shape
    kind = draw(st.sampled_from(_ADVERSARIAL_KINDS))
    if kind in ("row-scale", "mixed"):
        A[draw(st.integers(0, n - 1))] *= 2 ** 24
    if kind in ("near-dependent", "mixed"):
        A = A * 2 ** 16
        A[draw(st.integers(0, n - 1)), draw(st.integers(0, d - 1))] += 1  # rank up by at most one, invisible
    if kind == "duplicate" and d > 1:
        A[:, -1] = A[:, 0]
    if kind == "zero-rows":
        A[draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=max(1, n // 3)))] = 0
    return A


DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", ">i8", ">u8", ">f8", ">f4", "<u4")


def stored_matrices(*, min_side: int = 0, max_side: int = 6, dtypes=DTYPES):
    """(dtype, shape incl. 0 x N, 1 x N, N x 1, values incl. the dtype's extremes) with rank
    deficiency made likely: duplicated rows or columns, zero rows, extreme values."""
    check_sides(min_side, max_side)
    dtypes = check_subset("dtypes", dtypes, DTYPES)
    return _stored_matrices(min_side, max_side, dtypes)


@st.composite
def _stored_matrices(draw, min_side, max_side, dtypes):
    dtype = np.dtype(draw(st.sampled_from(dtypes)))
    n, d = draw(st.integers(min_side, max_side)), draw(st.integers(min_side, max_side))
    kw = {"allow_nan": False, "allow_infinity": False} if dtype.kind == "f" else {}
    elements = nps.from_dtype(dtype.newbyteorder("="), **kw)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        elements = st.one_of(elements, st.sampled_from([info.min, info.max, info.max - 1, 0, 1]))
    elif dtype.kind == "f":
        info = np.finfo(dtype)
        elements = st.one_of(elements, st.sampled_from([float(info.max), -float(info.max), float(info.tiny),
                                                        float(info.smallest_subnormal), 0.0, 1.0]))
    A = draw(nps.arrays(dtype, (n, d), elements=elements))
    if n >= 2 and d >= 1 and draw(st.booleans()):
        A[1] = A[0]  # a repeated row
    if d >= 2 and n >= 1 and draw(st.booleans()):
        A[:, -1] = A[:, 0]
    if n >= 3 and draw(st.booleans()):
        A[2] = 0
    return A


def longdouble_matrices(*, min_side: int = 1, max_side: int = 5):
    """Long double values beyond float64: extra mantissa bits (1 + k 2^-60) and exponents far
    outside float64's range (2^+-16000), plus repeated rows so that the rank is often deficient."""
    check_sides(min_side, max_side, smallest=1)
    return _longdouble_matrices(min_side, max_side)


@st.composite
def _longdouble_matrices(draw, min_side, max_side):
    n, d = draw(st.integers(min_side, max_side)), draw(st.integers(min_side, max_side))
    base = draw(nps.arrays(np.float64, (n, d), elements=st.floats(-1e3, 1e3, allow_nan=False)))
    A = base.astype(np.longdouble)
    for i in range(n):
        for j in range(d):
            k = draw(st.integers(-3, 3))
            e = draw(st.sampled_from([0, 0, 0, 1000, -1000, 16000, -16000]))
            A[i, j] = (A[i, j] * (1 + np.longdouble(k) * np.longdouble(2) ** -60)) * np.longdouble(2) ** e
    if n >= 2 and draw(st.booleans()):
        A[1] = A[0] * 2
    return A
