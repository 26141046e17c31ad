"""How the command line reads its inputs, and the limits it enforces (one place for both).

Every bad input becomes a :class:`UsageError` naming the problem (exit 2), before any long
computation starts.

How a MATRIX / VEC argument is read
===================================
* text starting with ``[`` (after blanks) is JSON text;
* otherwise it is a path. A file that starts with the ``.npy`` magic bytes (or whose name ends in
  ``.npy``) is read as ``.npy`` (``allow_pickle=False``: object arrays are refused, since loading
  them needs pickle); any other file is read as JSON text.
* JSON: integers are exact; decimals such as ``0.1`` or ``1e-3`` are read as the exact decimal
  fractions they spell (``0.1`` is 1/10, not the double nearest to it); strings ``"p/q"`` and
  ``"0.25"`` are exact too. ``NaN``/``Infinity``, booleans and nested lists are refused.
* ``.npy``: bool, signed and unsigned integers (every width, either byte order) are exact; floats
  (float16/32/64 and long double) are taken as the exact dyadic rationals they store (a float64
  ``0.1`` is 3602879701896397/2^55), at the dtype's own precision; complex, structured, object,
  string and datetime arrays are refused, and so are NaN and infinities.

Limits
======
Each limit below can be changed with the environment variable ``COLLAPSE_VERIFY_<NAME>`` (for
example ``COLLAPSE_VERIFY_CHECK_MAX_ENTRIES=4000000``); some also have a command-line option.
The digit and exponent limits live in :mod:`theorems.exact.input` (re-exported by :mod:`theorems.linalg`) (they also guard the Python API).
"""
from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

from theorems.exact.input import LIMITS as EXACT_LIMITS
from theorems.exact.input import BadInput, check_literal, env_int, exact_entries, int_digits_unlimited

__all__ = ["UsageError", "LIMITS", "read_matrix", "read_vector", "read_how", "check_writable", "write_text",
           "limits_text"]


class UsageError(Exception):
    """Bad input or arguments: the command exits 2 with this message."""


#: name -> (default, what it bounds). Overridable with COLLAPSE_VERIFY_<NAME>.
_LIMIT_DOCS = {
    "JSON_MAX_BYTES": (64 * 2 ** 20, "bytes of JSON text (argument or file)"),
    "JSON_MAX_TOTAL_DIGITS": (50_000_000, "digits plus decimal exponents summed over one JSON input (bounds the "
                                          "exact numbers it expands to, e.g. a million entries of 1e4999)"),
    "CHECK_MAX_ENTRIES": (2 ** 20, "entries of X for `check` (2^20: admits 1024 x 1024, so 1024 x 768)"),
    "RANK_MAX_ENTRIES": (2 ** 24, "entries of the matrix for `rank` (2^24: e.g. 4096 x 4096)"),
    "RANK_SVD_MAX_ENTRIES": (2 ** 22, "entries up to which `rank` also shows the float64 numerical rank"),
    "VERIFY_MAX_DPS": (5000, "digits of `verify --dps` (at least 15)"),
    "DEPTH_MAX_DPS": (10000, "digits of `depth --dps` (at least 30)"),
    "DEPTH_MAX_LAYERS": (200, "layers of `depth --layers` (and the float64 range: see below)"),
    "DEPTH_MAX_SIDE": (64, "tokens n, width d and head width d_k of `depth`"),
    "DEPTH_MAX_HEADS": (16, "heads of `depth --heads`"),
    "DEPTH_MAX_WORK": (2_000_000, "estimated work of `depth`: layers*n*d*(n+d+heads*d_k)*(dps/1000)^2 "
                                  "(2e6: about a minute on 2 cores)"),
    "TEXT_MAX_CHARS": (100_000, "characters of one `real-model --text`"),
    "MAX_TEXTS": (16, "number of `real-model --text` options"),
}


def _limits() -> dict[str, int]:
    return {k: env_int(k, v[0]) for k, v in _LIMIT_DOCS.items()}


LIMITS = _limits()


def limits_text() -> str:
    """The limits as lines for ``--help`` and the README."""
    lines = [f"  {k} = {LIMITS[k]}: {_LIMIT_DOCS[k][1]}" for k in _LIMIT_DOCS]
    lines += [f"  {k} = {v}: {d}" for k, (v, d) in EXACT_LIMITS.items()]
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------- reading

_NPY_MAGIC = b"\x93NUMPY"


def _is_npy(p: Path) -> bool:
    try:
        with open(p, "rb") as f:
            return f.read(6) == _NPY_MAGIC
    except OSError:
        return False


def _load_npy(p: Path, text: str, what: str, max_entries: int | None):
    import numpy as np
    try:
        with open(p, "rb") as f:
            try:
                version = np.lib.format.read_magic(f)
                fmt = np.lib.format
                reader = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
                if version not in ((1, 0), (2, 0)):
                    reader = getattr(fmt, "_read_array_header", None)
                    if reader is None:
                        raise ValueError(f"unsupported .npy format version {version}")
                    shape, fortran, dtype = reader(f, version)
                else:
                    shape, fortran, dtype = reader(f)
            except (ValueError, OSError, SyntaxError, TypeError, EOFError) as e:
                raise UsageError(f"{what}: {text} is not a valid .npy file ({e})") from None
            if dtype.hasobject or dtype.kind == "O":
                raise UsageError(f"{what}: {text} holds Python objects (dtype object); loading them needs pickle, "
                                 "which collapse-verify refuses. Save integers, floats or exact strings as JSON")
            if dtype.fields is not None:
                raise UsageError(f"{what}: {text} holds a structured array ({dtype}); give plain numbers")
            if dtype.kind == "c":
                raise UsageError(f"{what}: {text} holds complex numbers ({dtype}); the rank over Q needs real entries")
            if dtype.kind not in "biuf":
                raise UsageError(f"{what}: {text} holds dtype {dtype}, expected numbers (bool, int, uint, float)")
            size = 1
            for s in shape:
                size *= int(s)
            if max_entries is not None and size > max_entries:
                raise UsageError(f"{what}: {text} has shape {tuple(shape)} = {size} entries, above the limit of "
                                 f"{max_entries} for this command (raise it with the option or environment "
                                 "variable named in --help)")
        arr = np.load(p, allow_pickle=False)
    except UsageError:
        raise
    except (ValueError, OSError, EOFError) as e:
        raise UsageError(f"{what}: {text} could not be read as .npy ({type(e).__name__}: {e})") from None
    return arr


def _load(text: str, what: str, max_entries: int | None):
    """(data, how): a numpy array (from .npy) or a parsed JSON value, and how it was read."""
    if text is None or not text.strip():
        raise UsageError(f"{what} is empty: give a JSON list, a .json file or a .npy file")
    if "\x00" in text:
        raise UsageError(f"{what} contains a NUL character")
    s = text.lstrip()
    if s.startswith("[") or s.startswith("{"):
        src = text
        how = "JSON text"
    else:
        p = Path(text)
        try:
            exists = p.exists()
            is_dir = p.is_dir()
        except (OSError, ValueError) as e:
            raise UsageError(f"{what}: {text[:80]!r} is neither JSON text nor a readable path ({e})") from None
        if is_dir:
            raise UsageError(f"{what}: {text} is a directory, not a file")
        try:
            regular = (not exists) or stat.S_ISREG(p.stat().st_mode)
        except OSError as e:
            raise UsageError(f"{what}: cannot read {text} ({e.strerror or e})") from None
        if exists and str(p.resolve()).startswith(("/proc/", "/sys/", "/dev/")):
            raise UsageError(f"{what}: {text} is a kernel pseudo-file (reading it may block), not an input file")
        if not regular:  # a FIFO would block, /dev/zero would never end
            raise UsageError(f"{what}: {text} is not a regular file (a device, pipe or socket)")
        if not exists:
            if text.endswith((".npy", ".json")) or os.sep in text:
                raise UsageError(f"{what}: file {text} not found")
            raise UsageError(f"{what} is not valid JSON and not an existing file: {text[:80]!r}")
        if _is_npy(p) or text.endswith(".npy"):
            return _load_npy(p, text, what, max_entries), f".npy file {text}"
        try:
            if p.stat().st_size > LIMITS["JSON_MAX_BYTES"]:
                raise UsageError(f"{what}: {text} is larger than JSON_MAX_BYTES = {LIMITS['JSON_MAX_BYTES']} bytes")
            src = p.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise UsageError(f"{what}: {text} is neither a .npy file nor UTF-8 JSON text") from None
        except OSError as e:
            raise UsageError(f"{what}: cannot read {text} ({e.strerror or e})") from None
        how = f"JSON file {text}"
    if len(src) > LIMITS["JSON_MAX_BYTES"]:
        raise UsageError(f"{what}: JSON text longer than JSON_MAX_BYTES = {LIMITS['JSON_MAX_BYTES']}")
    budget = [LIMITS["JSON_MAX_TOTAL_DIGITS"]]

    def spend(tok: str) -> None:
        m = _EXP.search(tok)
        cost = len(tok) + (min(int(m.group(1)[-12:]), 10 ** 12) if m else 0)
        budget[0] -= cost
        if budget[0] < 0:
            raise BadInput(f"the numbers spell more than JSON_MAX_TOTAL_DIGITS = {LIMITS['JSON_MAX_TOTAL_DIGITS']} "
                           "digits in all (digits plus decimal exponents)")

    def lit(tok: str) -> str:
        check_literal(tok)
        spend(tok)
        return tok

    def int_lit(tok: str) -> int:
        check_literal(tok)
        spend(tok)
        with int_digits_unlimited():
            return int(tok)

    try:
        data = json.loads(src, parse_float=lit, parse_int=int_lit)
    except json.JSONDecodeError as e:
        raise UsageError(f"{what} is not valid JSON ({e.msg} at column {e.colno}): give a JSON list, "
                         f"a .json file or a .npy file") from None
    except RecursionError:
        raise UsageError(f"{what}: JSON nested too deeply (a matrix is a list of lists)") from None
    except BadInput as e:
        raise UsageError(f"{what}: {e}") from None
    return data, how


_EXP = re.compile(r"[eE][-+]?0*(\d+)")


def _how_npy(arr) -> str:
    k, name = arr.dtype.kind, arr.dtype.name
    if k == "f":
        return f"{name} .npy values taken as the exact dyadic rationals they store"
    if k == "b":
        return "bool .npy values taken as 0 and 1"
    return f"{name} .npy values taken as exact integers"


def read_how(data, how: str) -> str:
    """One sentence saying how the input was read (printed with the result)."""
    if hasattr(data, "dtype"):
        return f"{how}: {_how_npy(data)}"
    return f"{how}: integers exact, decimals read as the exact decimal fractions they spell (0.1 = 1/10)"


def read_matrix(text: str, what: str = "--X", as_array: bool = False, max_entries: int | None = None,
                with_how: bool = False):
    """A matrix from JSON text, a .json file or a .npy file.

    ``as_array``: keep a .npy as a numpy array (else ``tolist`` of its exact values). ``max_entries``
    refuses larger inputs before they are read in full (.npy) or converted (JSON).
    ``with_how``: return ``(matrix, how it was read)``.
    """
    data, how = _load(text, what, max_entries)
    how_text = read_how(data, how)
    if hasattr(data, "ndim"):
        if data.ndim != 2:
            raise UsageError(f"{what}: {text} must hold a 2-D array (got {data.ndim}-D, shape {data.shape})")
        if not as_array:
            if 0 in data.shape:
                raise UsageError(f"{what}: {text} is empty (shape {data.shape})")
            try:
                data = exact_entries(data)
            except BadInput as e:
                raise UsageError(f"{what}: {e}") from None
        return (data, how_text) if with_how else data
    if not isinstance(data, list) or not data or not all(isinstance(r, list) for r in data):
        raise UsageError(f"{what} must be a non-empty list of rows, e.g. [[1, 2], [3, \"1/2\"]]")
    width = len(data[0])
    for i, r in enumerate(data):
        if len(r) != width:
            raise UsageError(f"{what} is ragged: row {i} has {len(r)} entries, row 0 has {width}")
        if any(isinstance(v, (list, dict)) for v in r):
            raise UsageError(f"{what}: row {i} holds a nested list or object; a matrix is a list of rows of numbers")
    if width == 0:
        raise UsageError(f"{what} has empty rows")
    if max_entries is not None and len(data) * width > max_entries:
        raise UsageError(f"{what} has {len(data)} x {width} = {len(data) * width} entries, above the limit of "
                         f"{max_entries} for this command")
    return (data, how_text) if with_how else data


def read_vector(text: str, what: str):
    if text is not None and not text.strip():
        raise UsageError(f"{what} is empty: give a JSON list of numbers or a .npy file (omit {what} for the default)")
    data, _ = _load(text, what, 10 ** 7)
    if hasattr(data, "ndim"):
        if data.ndim != 1:
            raise UsageError(f"{what}: {text} must hold a 1-D array (got shape {data.shape})")
        try:
            return exact_entries(data[None, :])[0]
        except BadInput as e:
            raise UsageError(f"{what}: {e}") from None
    if not isinstance(data, list) or any(isinstance(v, (list, dict)) for v in data):
        raise UsageError(f"{what} must be a flat list of numbers")
    return data


# --------------------------------------------------------------------------------------------- writing

def check_writable(path: str, what: str = "--json") -> Path:
    """Refuse an output path that cannot be written, before any computation."""
    if path is None:
        return None
    if not str(path).strip():
        raise UsageError(f"{what}: empty path")
    if "\x00" in path:
        raise UsageError(f"{what}: path contains a NUL character")
    p = Path(path)
    try:
        parent = p.parent if str(p.parent) else Path(".")
        if p.exists():
            st = p.stat()
            if stat.S_ISDIR(st.st_mode):
                raise UsageError(f"{what} {path} is a directory")
            if not stat.S_ISREG(st.st_mode):
                raise UsageError(f"{what} {path} is not a regular file (a device or pipe); give a file path")
            real = str(p.resolve())
            if real.startswith(("/proc/", "/sys/", "/dev/")):
                raise UsageError(f"{what} {path} is a kernel pseudo-file, not a file for output")
            with open(p, "a", encoding="utf-8"):  # really opens it for writing; changes nothing
                pass
        else:
            if not parent.exists():
                raise UsageError(f"{what} {path}: folder {parent} does not exist")
            if not parent.is_dir():
                raise UsageError(f"{what} {path}: {parent} is not a folder")
            if str(parent.resolve()).startswith(("/proc", "/sys", "/dev")):
                raise UsageError(f"{what} {path}: {parent} is a kernel pseudo-filesystem, not a folder for output")
            if not os.access(parent, os.W_OK | os.X_OK):
                raise UsageError(f"{what} {path}: folder {parent} is not writable")
    except OSError as e:
        raise UsageError(f"{what} {path[:200]}: cannot write there ({e.strerror or e})") from None
    return p


def write_text(path: str, text: str, what: str = "--json") -> None:
    """Write an output file; a failure (disk full, ...) is an error naming the path, not a traceback."""
    check_writable(path, what)
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise UsageError(f"{what} {path}: could not write ({e.strerror or e})") from None
