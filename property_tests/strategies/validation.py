"""Argument checks shared by the strategies (each raises InvalidArgument naming the argument) and the
small entry strategies the builders share."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.extra import numpy as nps
from sympy import Rational


def check_int(name: str, value, *, min_value: int | None = 0, allow_none: bool = False) -> None:
    """An integer (never a bool or a float) at least ``min_value``."""
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InvalidArgument(f"{name}={value!r} must be an integer, not {type(value).__name__}")
    if min_value is not None and value < min_value:
        raise InvalidArgument(f"{name}={value!r} must be at least {min_value}")


def check_order(lo_name: str, lo, hi_name: str, hi) -> None:
    if lo is not None and hi is not None and lo > hi:
        raise InvalidArgument(f"{lo_name}={lo!r} is greater than {hi_name}={hi!r}")


def check_bool(name: str, value) -> None:
    if not isinstance(value, bool):
        raise InvalidArgument(f"{name}={value!r} must be a bool, not {type(value).__name__}")


def check_choice(name: str, value, allowed, *, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if value not in allowed:
        raise InvalidArgument(f"{name}={value!r} must be one of {sorted(allowed)!r}")


def check_subset(name: str, values, allowed) -> tuple:
    if isinstance(values, str) or not hasattr(values, "__iter__"):
        raise InvalidArgument(f"{name}={values!r} must be a collection, not {type(values).__name__}")
    values = tuple(values)
    if not values:
        raise InvalidArgument(f"{name}=() must not be empty")
    bad = [v for v in values if v not in allowed]
    if bad:
        raise InvalidArgument(f"{name} contains {bad!r}; allowed: {sorted(allowed)!r}")
    return values


def check_float(name: str, value, *, min_value: float | None = None, exclusive: bool = False) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidArgument(f"{name}={value!r} must be a finite number")
    if min_value is not None and (value <= min_value if exclusive else value < min_value):
        raise InvalidArgument(f"{name}={value!r} must be {'greater than' if exclusive else 'at least'} {min_value}")


def ints(lo: int, hi: int, size: int):
    """``size`` integers in [lo, hi] as Rationals."""
    return st.lists(st.integers(lo, hi).map(Rational), min_size=size, max_size=size)


def int_arrays(shape, max_abs: int):
    """An int64 array of drawn entries in [-max_abs, max_abs] (hypothesis.extra.numpy: a drawn fill value
    plus drawn entries, so large arrays stay cheap and shrink to a constant array)."""
    return nps.arrays(np.int64, shape, elements=st.integers(-max_abs, max_abs))


def check_sides(min_side, max_side, *, smallest=0):
    check_int("min_side", min_side, min_value=smallest)
    check_int("max_side", max_side, min_value=max(smallest, 1))
    check_order("min_side", min_side, "max_side", max_side)


def floats(m: float):
    return st.floats(-m, m, allow_nan=False, allow_infinity=False)


def check_dir(name: str, value) -> Path:
    if not isinstance(value, (str, Path)):
        raise InvalidArgument(f"{name}={value!r} must be a path, not {type(value).__name__}")
    path = Path(value)
    if not path.is_dir():
        raise InvalidArgument(f"{name}={value!r} is not a directory")
    return path
