"""Reading exact input: the shared helpers of :mod:`theorems.linalg` and :mod:`theorems.exact.certified_rank`.

Every entry becomes an exact rational (an ``int``, a ``Fraction`` or a sympy ``Rational``): integers,
``"p/q"`` strings, decimals as written (``0.1`` is 1/10), and binary floats as the dyadic rationals they
store. Anything else is refused with :class:`BadInput`, never silently rounded. The limits on integer
digits and decimal exponents are read from the environment (:data:`LIMITS`).

Both :mod:`theorems.linalg` and :mod:`theorems.exact.certified_rank` import this module (it imports neither),
and :mod:`theorems.linalg` re-exports every name for its users.
"""
from __future__ import annotations

import contextlib
import decimal
import math
import os
import re
import sys
from fractions import Fraction
from numbers import Rational as _RationalABC

import numpy as np
import sympy
from sympy import Matrix, Rational

__all__ = ["BadInput", "env_int", "LIMITS", "MAX_INT_DIGITS", "MAX_EXPONENT", "check_literal",
           "int_digits_unlimited", "exact_number", "to_rational", "exact_entries", "exact_rows", "exact_matrix",
           "exact_vector", "cap_list", "classify_array"]


class BadInput(ValueError):
    """Input that the suite refuses rather than silently mis-handle."""


def cap_list(items, k: int = 5) -> str:
    """At most ``k`` items of a list for a message, then how many more: a message about a million rows stays one
    short line.

    >>> cap_list(range(10 ** 6))
    '0, 1, 2, 3, 4, … (999,995 more)'
    >>> cap_list([2, 7])
    '2, 7'
    """
    shown, more = [], 0
    for i, x in enumerate(items):
        if i < k:
            shown.append(str(x))
        else:
            more += 1
    if not shown:
        return "none"
    return ", ".join(shown) + (f", … ({more:,} more)" if more else "")


def env_int(name: str, default: int) -> int:
    """The limit ``name``, overridden by the environment variable ``COLLAPSE_VERIFY_<name>``.

    A value that is not a positive integer is ignored with a warning on stderr (the default is used).
    """
    raw = os.environ.get(f"COLLAPSE_VERIFY_{name}")
    if raw is None or not raw.strip():
        return default
    try:
        v = int(raw.strip()[:30])
    except ValueError:
        v = 0
    if v < 1:
        print(f"collapse-verify: warning: COLLAPSE_VERIFY_{name}={raw[:40]!r} is not a positive integer; "
              f"using the default {default}", file=sys.stderr)
        return default
    return v


#: limits on one exact literal (a JSON number or a string entry), name -> (value, what it bounds);
#: each can be changed with the environment variable COLLAPSE_VERIFY_<NAME>
LIMITS = {
    "MAX_INT_DIGITS": (env_int("MAX_INT_DIGITS", 10_000),
                       "decimal digits of one integer, numerator, denominator or decimal mantissa"),
    "MAX_EXPONENT": (env_int("MAX_EXPONENT", 5_000),
                     "|e| of a decimal exponent such as 1e-4000 (covers the long double range)"),
}
MAX_INT_DIGITS = LIMITS["MAX_INT_DIGITS"][0]
MAX_EXPONENT = LIMITS["MAX_EXPONENT"][0]

_P_OVER_Q = re.compile(r"([-+]?\d+)(?:/(\d+))?\Z")
_DECIMAL = re.compile(r"\s*[-+]?(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?\s*\Z")


def check_literal(s: str) -> None:
    """Refuse a numeric literal whose exact value would be too large to handle in bounded time.

    Integers, numerators and denominators may have up to ``MAX_INT_DIGITS`` digits and decimal
    exponents may reach ``MAX_EXPONENT`` in magnitude (so ``1e1000000`` is refused at once
    instead of building a million-digit integer).

    >>> check_literal("1e400"); check_literal("3/4")
    >>> check_literal("1e1000000")
    Traceback (most recent call last):
    ...
    theorems.exact.input.BadInput: entry '1e1000000' has exponent 1000000, beyond the limit 5000 (MAX_EXPONENT)
    """
    if len(s) > 2 * MAX_INT_DIGITS + 64:
        raise BadInput(f"entry {s[:20]!r}... has {len(s)} characters, beyond the limit of {MAX_INT_DIGITS} digits "
                       "(MAX_INT_DIGITS)")
    for part in s.split("/", 1):
        m = _DECIMAL.match(part)
        if m is None:
            return  # not a decimal: the parser refuses it with its own message
        digits = len(m.group(1) or "") + len(m.group(2) or "")
        if digits > MAX_INT_DIGITS:
            raise BadInput(f"entry {s[:20]!r}... has {digits} digits, beyond the limit {MAX_INT_DIGITS} "
                           "(MAX_INT_DIGITS)")
        e = m.group(3)
        if e is not None:
            mag = e.lstrip("+-").lstrip("0") or "0"
            if len(mag) > 9 or int(mag) > MAX_EXPONENT:
                raise BadInput(f"entry {s[:40]!r} has exponent {e.lstrip('+')}, beyond the limit {MAX_EXPONENT} "
                               "(MAX_EXPONENT)")


@contextlib.contextmanager
def int_digits_unlimited():
    """Lift Python's int/str conversion limit (4300 digits) around a bounded conversion, then restore it."""
    get = getattr(sys, "get_int_max_str_digits", None)
    if get is None:
        yield
        return
    old = get()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(old)


def _exact_numpy_scalar(x):
    """An exact int or Fraction for a numpy scalar, or BadInput."""
    if isinstance(x, np.bool_):
        raise BadInput(f"entry {x!r} is a boolean, not a number")
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        if not np.isfinite(x):
            raise BadInput(f"entry {float(x)!r} is not a finite number (NaN or infinity)")
        p, q = x.as_integer_ratio()  # exact at the dtype's own precision (long double included)
        return Fraction(int(p), int(q))
    if isinstance(x, np.complexfloating):
        raise BadInput(f"entry {x!r} is complex; the exact layer takes real rationals only")
    raise BadInput(f"entry {x!r} of type {type(x).__name__} is not a number")


def exact_number(x) -> int | Fraction:
    """One entry as an exact Python ``int`` or ``Fraction`` (the rules of :func:`to_rational`,
    without building sympy objects: fast for large matrices)."""
    if isinstance(x, bool):
        raise BadInput(f"entry {x!r} is a boolean, not a number")
    if isinstance(x, int):
        return int(x)
    if isinstance(x, Fraction):
        return x
    if isinstance(x, sympy.Rational):
        return Fraction(int(x.p), int(x.q))
    if isinstance(x, float):
        if not math.isfinite(x):
            raise BadInput(f"entry {x!r} is not a finite number (NaN or infinity)")
        return Fraction(*x.as_integer_ratio())
    if type(x).__module__ == "numpy":
        return _exact_numpy_scalar(x)
    if isinstance(x, _RationalABC):
        return Fraction(int(x.numerator), int(x.denominator))
    if isinstance(x, decimal.Decimal):
        if not x.is_finite():
            raise BadInput(f"entry {x!r} is not a finite number (NaN or infinity)")
        check_literal(str(x))
        return Fraction(x)
    if isinstance(x, str):
        s = x.strip()
        check_literal(s)
        try:
            with int_digits_unlimited():
                m = _P_OVER_Q.match(s)
                if m:  # fast path for integers and "p/q" (Fraction's parser is ~10x slower)
                    p, q = int(m.group(1)), int(m.group(2) or 1)
                    return p if q == 1 else Fraction(p, q)
                return Fraction(s)
        except (ValueError, ZeroDivisionError):
            raise BadInput(f"entry {x[:60]!r} is not an exact number (use an integer, 'p/q' or a decimal)") from None
    if isinstance(x, complex):
        raise BadInput(f"entry {x!r} is complex; the exact layer takes real rationals only")
    if isinstance(x, sympy.Basic):
        if x.is_Rational:
            return Fraction(int(x.p), int(x.q))
        raise BadInput(f"entry {x!r} is not rational; the exact layer takes rationals only")
    raise BadInput(f"entry {str(x)[:60]!r} of type {type(x).__name__} is not a number")


def to_rational(x) -> Rational:
    """Convert one entry to an exact sympy ``Rational``.

    Accepts int, ``Fraction``, ``Decimal``, sympy ``Rational``, strings ``"p/q"`` or
    decimals ``"0.125"`` (exact), floats (taken as the exact dyadic rational they store) and
    numpy integer and float scalars of any width (long double at its own precision). Rejects
    NaN, infinities, bools, complex numbers, literals beyond the limits of :func:`check_literal`
    and anything else.

    >>> to_rational("3/4"), to_rational("0.1"), to_rational(0.5)
    (3/4, 1/10, 1/2)
    >>> to_rational(float("nan"))
    Traceback (most recent call last):
    ...
    theorems.exact.input.BadInput: entry nan is not a finite number (NaN or infinity)
    """
    if isinstance(x, sympy.Rational):
        return x
    v = exact_number(x)
    if isinstance(v, int):
        return Rational(v)
    return Rational(v.numerator, v.denominator)


def classify_array(a: np.ndarray, name: str = "matrix") -> tuple[str, np.ndarray]:
    """The one rule by which a numpy array's dtype becomes exact numbers (the reader, the certified rank, the exact
    LayerNorm analysis and :func:`exact_entries` all classify through it).

    * ``("int", int64 array)``: **bool** (False and True are 0 and 1: a bool array is the 0/1 matrix it stores),
      every signed integer dtype, unsigned integers whose values are below 2^63; either byte order;
    * ``("float", float64 array)``: float16 / float32 / float64 (exact in float64), and long double when every value
      survives the round trip through float64;
    * ``("exact", the array)``: values that need Python integers or ``Fraction`` (uint64 at or above 2^63, long
      double beyond float64, object and string arrays): the caller converts them entry by entry
      (:func:`exact_number`, which refuses a boolean *entry*: ``True`` in a list or an object array is a mistake
      more often than a 1);
    * refused (:class:`BadInput` naming ``name``): structured, complex and any other non-number dtype, NaN and
      infinities.

    >>> classify_array(np.array([[True, False]]))[1].tolist()
    [[1, 0]]
    >>> classify_array(np.array([[2 ** 64 - 1]], dtype=np.uint64))[0]
    'exact'
    """
    a = np.asarray(a)
    k = a.dtype.kind
    if a.dtype.fields is not None:
        raise BadInput(f"{name} is a structured array ({a.dtype}); give plain numbers")
    if k == "c":
        raise BadInput(f"{name} has complex entries ({a.dtype}); the exact layer takes real numbers only")
    if k == "b":
        return "int", a.astype(np.int64)
    if k in "iu":
        if k == "i" or a.dtype.itemsize < 8 or a.size == 0 or int(a.max()) < 2 ** 63:
            return "int", a.astype(np.int64)
        return "exact", a
    if k == "f":
        if not np.all(np.isfinite(a)):
            raise BadInput(f"{name} has an entry that is not a finite number (NaN or infinite)")
        if a.dtype.itemsize <= 8:
            return "float", a.astype(np.float64)
        with np.errstate(all="ignore"):
            f64 = a.astype(np.float64)
        if np.all(np.isfinite(f64)) and np.array_equal(f64.astype(a.dtype), a):
            return "float", f64
        return "exact", a
    if k in "OU":
        return "exact", a
    raise BadInput(f"{name} has dtype {a.dtype}, which is not a number type")


def exact_entries(arr) -> list:
    """The entries of a numpy array as exact Python ints / floats / Fractions (nested lists).

    bool is 0/1; every integer dtype (uint64 values at or above 2^63 included) gives Python ints;
    float16/32/64 give Python floats (exactly the stored values); long double gives ``Fraction``
    at its own precision. Complex, structured, datetime and NaN/inf-holding arrays are refused.

    >>> import numpy as np
    >>> exact_entries(np.array([[2 ** 64 - 1, 1]], dtype=np.uint64))
    [[18446744073709551615, 1]]
    """
    a = np.asarray(arr)
    kind, v = classify_array(a, "the array")
    if kind != "exact":
        return v.tolist()  # Python ints / floats holding exactly the values
    if a.dtype.kind in "iu":
        return a.tolist()  # Python ints, exact for every width and sign
    if a.dtype.kind == "f":  # long double beyond float64: Fractions at its own precision
        flat = [Fraction(*map(int, x.as_integer_ratio())) for x in a.ravel()]
        return np.array(flat, dtype=object).reshape(a.shape).tolist()
    return a.tolist()  # object / str: validated entry by entry by exact_number


def exact_rows(rows, name: str = "X") -> list[list]:
    """Non-empty rectangular rows of exact ``int``/``Fraction`` entries, or :class:`BadInput`
    (the checks of :func:`exact_matrix`, without sympy)."""
    if isinstance(rows, Matrix):
        rows = rows.tolist()
    if hasattr(rows, "dtype") and hasattr(rows, "ndim"):
        rows = exact_entries(rows)  # numpy array: exact for every dtype
    elif hasattr(rows, "tolist") and not isinstance(rows, list):
        rows = rows.tolist()
    if not isinstance(rows, (list, tuple)) or len(rows) == 0:
        raise BadInput(f"{name} must be a non-empty list of rows")
    out = []
    width = None
    for i, row in enumerate(rows):
        if not isinstance(row, (list, tuple)):
            raise BadInput(f"{name} row {i} is not a list")
        if width is None:
            width = len(row)
            if width == 0:
                raise BadInput(f"{name} has empty rows")
        elif len(row) != width:
            raise BadInput(f"{name} is ragged: row {i} has {len(row)} entries, row 0 has {width}")
        try:
            out.append([exact_number(v) for v in row])
        except BadInput as e:
            raise BadInput(f"{name}[{i}]: {e}") from None
    return out


def exact_matrix(rows, name: str = "X") -> Matrix:
    """A non-empty, rectangular sympy Matrix of Rationals, or :class:`BadInput`.

    >>> exact_matrix([[1, 2], [3]])
    Traceback (most recent call last):
    ...
    theorems.exact.input.BadInput: X is ragged: row 1 has 1 entries, row 0 has 2
    """
    return Matrix([[Rational(v.numerator, v.denominator) for v in row] for row in exact_rows(rows, name)])


def exact_vector(vals, length: int, name: str) -> list[Rational]:
    """A list of Rationals of the given length, or :class:`BadInput`."""
    if isinstance(vals, Matrix):  # before tolist, which a sympy Matrix also has (and which nests a column's entries)
        vals = list(vals)
    elif hasattr(vals, "dtype") and hasattr(vals, "ndim"):
        vals = exact_entries(vals)
    elif hasattr(vals, "tolist") and not isinstance(vals, list):
        vals = vals.tolist()
    if not isinstance(vals, (list, tuple)):
        raise BadInput(f"{name} must be a list of numbers")
    if len(vals) != length:
        raise BadInput(f"{name} has length {len(vals)}, expected {length} (= d_model, the number of columns of X)")
    try:
        return [to_rational(v) for v in vals]
    except BadInput as e:
        raise BadInput(f"{name}: {e}") from None
