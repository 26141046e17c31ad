r"""The one exact reader of user input: every matrix, vector and weights file a user gives becomes exact numbers
once, here, and says how it was read.

``rank``, every ``check``, the instance adapters of the claims (``instance_from`` beside a Pool's ``decode``)
and the conjecture API read user data only through this module. The fast numeric conversions inside the rank
kernels (``dyadic_scale``, ``_exact_ints``, ``_float_exact`` ...) are kernels, not readers: they receive what
this module returns, whose values are already exactly the numbers the input spells.

How a MATRIX / VEC argument is read
===================================
* text starting with ``[`` (after blanks) is JSON text; otherwise it is a path. A file that starts with the
  ``.npy`` magic bytes (or whose name ends in ``.npy``) is read as ``.npy`` (``allow_pickle=False``); any other
  regular file as JSON text (devices, FIFOs and ``/proc`` are refused before they are opened for reading).
* JSON: integers are exact; decimals such as ``0.1`` or ``1e-3`` are the exact decimal fractions they spell
  (``0.1`` is 1/10, never the double nearest to it); strings ``"p/q"`` and ``"0.25"`` are exact too. ``NaN``,
  ``Infinity``, booleans, ``null`` and nested lists are refused.
* ``.npy``: bool (0 and 1), signed and unsigned integers of every width and either byte order (uint64 at or
  above 2^63 included) are exact integers; float16/32/64 and long double are the exact dyadic rationals they
  store, at the dtype's own precision; complex, structured, object, string and datetime arrays, NaN and
  infinities are refused.
* ``.npz`` weights (:func:`read_weights`): ``W_Q``, ``W_K``, ``W_V`` of shape (H, d, d_k) and ``W_O`` of shape
  (H, d_k, d), each read by the ``.npy`` rules.

What comes back
===============
:class:`ExactMatrix` / :class:`ExactVector` hold the exact values in the cheapest exact form (an ``int64`` or
``float64`` numpy array whose entries *are* the values, or rows of Python ``int`` / ``Fraction``), the shape and
the sentence ``how`` it was read (the ``input`` line of every output). :class:`UserInput` gathers one command's
inputs by name (``X``, ``gamma``, ``beta``, ``Delta``, ``W_O``, ``weights``, ``heads``, ``n``) for the claims'
adapters.

>>> M = read_matrix("[[0.1, 0.3], [1, 3]]", "--X")
>>> M.rows()
[[Fraction(1, 10), Fraction(3, 10)], [1, 3]]
>>> M.how
'JSON text: integers exact, decimals read as the exact decimal fractions they spell (0.1 = 1/10); 2 x 2'
"""
from __future__ import annotations

import json
import math
import os
import re
import stat
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import flint
import numpy as np
import sympy
from sympy import QQ, ZZ
from sympy.polys.matrices import DomainMatrix

from .input import BadInput, check_literal, classify_array, env_int, exact_number, int_digits_unlimited
from .linalg import product_frobenius_parts, to_fmpq_mat
from .shared import array_key, register, shared

__all__ = ["READER_LIMITS", "ExactMatrix", "ExactVector", "ExactWeights", "UserInput", "read_matrix", "read_vector",
           "read_weights", "gaussian_weights", "matrix_from", "INPUT_NAMES", "input_flag", "SYMPY_MAX_ENTRIES",
           "RANK_MAX_ENTRIES",
           "read_stochastic", "ROW_STOCHASTIC"]

#: an adapter that computes on sympy matrices takes inputs up to this many entries (larger: a named refusal)
SYMPY_MAX_ENTRIES = 40_000
#: an adapter whose sympy matrices are only added, joined and ranked (ranks, minors and determinants in FLINT, full
#: rank met modulo 2^61 - 1: :func:`theorems.exact.linalg.rank_of_fmpq`) takes inputs up to this many entries: a
#: 512 x 768 site matrix (393,216) and BERT-base's 128 x 768 pass; a float64 entry held exactly costs about 100 bytes
RANK_MAX_ENTRIES = 1_000_000

#: name -> (value, what it bounds); each can be changed with the environment variable COLLAPSE_VERIFY_<NAME>
READER_LIMITS = {
    "JSON_MAX_BYTES": (env_int("JSON_MAX_BYTES", 64 * 2 ** 20), "bytes of JSON text (argument or file)"),
    "JSON_MAX_TOTAL_DIGITS": (env_int("JSON_MAX_TOTAL_DIGITS", 50_000_000),
                              "digits plus decimal exponents summed over one JSON input (bounds the exact numbers it "
                              "expands to, e.g. a million entries of 1e4999)"),
}

#: the inputs a claim's adapter may take, and the command-line flag of each
INPUT_NAMES = {"X": "--X", "gamma": "--gamma", "beta": "--beta", "Delta": "--Delta", "W_O": "--W-O",
               "weights": "--weights", "n": "--n", "P": "--P"}


def input_flag(name: str) -> str:
    """The flag that gives the input ``name`` (``weights``: ``--weights W.npz`` or ``--weights-seed N --heads H``)."""
    if name == "weights":
        return "(--weights W.npz | --heads H [--weights-seed N])"
    if name == "W_O":
        return "--W-O MATRIX --heads H"
    return INPUT_NAMES.get(name, f"--{name}")


# --------------------------------------------------------------------------------------------- exact values

_JSON_HOW = "integers exact, decimals read as the exact decimal fractions they spell (0.1 = 1/10)"


def _how_npy(dtype) -> str:
    k, name = dtype.kind, np.dtype(dtype).name
    if k == "f":
        return f"{name} .npy values taken as the exact dyadic rationals they store"
    if k == "b":
        return "bool .npy values taken as 0 and 1"
    return f"{name} .npy values taken as exact integers"


def _exact_array(a: np.ndarray, name: str):
    """The exact values of a numeric array in the cheapest exact form: an int64 or float64 array holding them,
    an object array of Python ints, or nested lists of ``Fraction`` (long double beyond float64)."""
    kind, v = classify_array(a, name)  # the one rule (bool as 0 and 1, refusals): theorems.exact.input
    if kind != "exact":
        return v
    k = a.dtype.kind
    if k in "iu":
        return np.array(a.tolist(), dtype=object)  # Python ints: exact above 2^63
    if k == "f":  # long double beyond float64
        flat = [Fraction(*map(int, x.as_integer_ratio())) for x in a.ravel()]
        return np.array(flat, dtype=object).reshape(a.shape).tolist()
    raise BadInput(f"{name}: dtype {a.dtype} is not a number type")


def _exact_json_rows(data, name: str) -> list[list]:
    rows = []
    for i, r in enumerate(data):
        try:
            rows.append([exact_number(v) for v in r])
        except BadInput as e:
            raise BadInput(f"{name}[{i}]: {e}") from None
    return rows


class ExactMatrix:
    """A user's matrix, exactly: ``data`` is an int64 / float64 array holding the values themselves, an object array
    of Python ints, or rows of ``int`` / ``Fraction``; ``how`` says how it was read."""

    def __init__(self, data, name: str, how: str, source: str = ""):
        self.data = data
        self.name = name
        self.how = how
        self.source = source
        if isinstance(data, np.ndarray):
            self.shape = tuple(int(s) for s in data.shape)
        else:
            self.shape = (len(data), len(data[0]) if data else 0)
        self._rows: list[list[int | Fraction]] | None = None

    def __repr__(self) -> str:
        return f"ExactMatrix({self.name}, {self.shape[0]} x {self.shape[1]})"

    @property
    def is_float_data(self) -> bool:
        """Binary floats (a float .npy) or decimals that are not integers: a float hint stands beside exact ranks."""
        if isinstance(self.data, np.ndarray) and self.data.dtype.kind == "f":
            return True
        return any(isinstance(v, Fraction) and v.denominator != 1 for v in self._flat_python())

    def _flat_python(self):
        if isinstance(self.data, np.ndarray):
            return [] if self.data.dtype.kind in "if" else self.data.ravel().tolist()
        return (v for r in self.data for v in r)

    def kernel(self):
        """What the exact kernels take (certified_rank, analyse_array, the transformer contexts): the array itself
        when it holds the values exactly, else the rows."""
        if isinstance(self.data, np.ndarray) and self.data.dtype.kind in "if":
            return self.data
        return self.rows()

    def rows(self) -> list[list]:
        """Rows of Python ``int`` and ``Fraction`` (floats as the dyadic rationals they store)."""
        if self._rows is None:
            if isinstance(self.data, np.ndarray):
                if self.data.dtype.kind == "f":
                    self._rows = [[(int(p) if q == 1 else Fraction(int(p), int(q)))
                                   for p, q in (v.as_integer_ratio() for v in row)] for row in self.data.tolist()]
                else:
                    self._rows = [[int(v) for v in row] for row in self.data.tolist()]
            else:
                self._rows = [[(v.numerator if isinstance(v, Fraction) and v.denominator == 1 else v) for v in row]
                              for row in self.data]
        return self._rows

    def fractions(self) -> tuple[tuple[Fraction, ...], ...]:
        """The values as a tuple of tuples of ``Fraction`` (one canonical form, for comparisons)."""
        return tuple(tuple(Fraction(v) for v in row) for row in self.rows())

    def fmpq(self, limit: int | None = None, who: str = "") -> flint.fmpq_mat:
        """The values as a python-flint ``fmpq_mat``, exactly (``limit``: refuse larger inputs by name, as
        :meth:`sympy`). A float array goes straight to ``fmpq`` from each value's exact ratio (no sympy matrix: 28
        against 53 ms at 769 x 64); anything else through :meth:`sympy`."""
        if isinstance(self.data, np.ndarray) and self.data.dtype.kind == "f":
            self._check_size(limit, who)
            r, c = self.shape
            return flint.fmpq_mat(r, c, [flint.fmpq(*v.as_integer_ratio()) for v in self.data.ravel().tolist()])
        return to_fmpq_mat(self.sympy(limit, who))

    def _check_size(self, limit: int | None, who: str) -> None:
        if limit is not None and self.shape[0] * self.shape[1] > limit:
            name = "SYMPY_MAX_ENTRIES" if limit == SYMPY_MAX_ENTRIES else \
                "RANK_MAX_ENTRIES, about 100 bytes an entry" if limit == RANK_MAX_ENTRIES else "its limit"
            how = "exactly (FLINT)" if limit == RANK_MAX_ENTRIES else "in sympy"  # RANK_MAX_ENTRIES forms: FLINT
            raise BadInput(f"{who + ' computes' if who else 'this claim computes'} {how} on inputs up to {limit} "
                           f"entries ({name}); {self.name} has {self.shape[0]} x {self.shape[1]}")

    def sympy(self, limit: int | None = None, who: str = "") -> sympy.Matrix:
        """The values as a sympy Matrix of Rationals (``limit``: refuse larger inputs by name)."""
        self._check_size(limit, who)
        if isinstance(self.data, np.ndarray) and self.data.dtype.kind == "f":
            # inside a sharing scope (one site): converted once per array content, each caller given its own copy
            # (DomainMatrix.to_Matrix copies), registered so that its ranks are kept too (theorems.exact.shared)
            key = array_key(self.data)
            dm = shared(None if key is None else ("sympy", key), self._float_domain_matrix)
            return register(dm.to_Matrix(), key)
        rows = self.rows()  # Python ints and Fractions: built through sympy's domain matrices (exact, no per-entry
        if all(type(v) is int for row in rows for v in row):  # sympify: about 8x faster at 12 x 384)
            dm = DomainMatrix([[ZZ(v) for v in row] for row in rows], self.shape, ZZ)
        else:
            fracs = ((v if type(v) in (int, Fraction) else Fraction(v) for v in row) for row in rows)  # lowest terms
            dm = DomainMatrix([[QQ(f.numerator, f.denominator) for f in row] for row in fracs], self.shape, QQ)
        return dm.to_Matrix()

    def _float_domain_matrix(self) -> DomainMatrix:
        # a float array straight into the domain's own elements (each value's exact ratio, already in lowest
        # terms), kept sparse as sympy keeps it: no Fraction per entry as rows() builds (22 -> 5.5 ms at
        # 24 x 384). The domain is ZZ when every value is an integer, as on the path through rows().
        ratios = [{j: v.as_integer_ratio() for j, v in enumerate(row) if v} for row in self.data.tolist()]
        dom = ZZ if all(q == 1 for row in ratios for _, q in row.values()) else QQ
        mk = (lambda p, q: ZZ.dtype(p)) if dom is ZZ else QQ.dtype
        return DomainMatrix({i: {j: mk(p, q) for j, (p, q) in row.items()} for i, row in enumerate(ratios) if row},
                            self.shape, dom)

    def float64(self) -> tuple[np.ndarray | None, str | None]:
        """(a float64 rounding of the values, for labelled float hints only) or (None, why it cannot be made)."""
        if isinstance(self.data, np.ndarray) and self.data.dtype.kind == "f":
            return self.data, None
        try:
            with np.errstate(all="ignore"):
                F = np.array([[float(v) for v in row] for row in self.rows()], dtype=np.float64)
        except OverflowError:
            return None, "an entry is beyond the float64 range (|x| > 1.8e308)"
        if not np.all(np.isfinite(F)):
            return None, "an entry is beyond the float64 range (|x| > 1.8e308)"
        return F, None

    def strings(self) -> list[list[str]]:
        """The exact values as strings (``"3/4"``), the stored-counterexample format."""
        return [[str(v) for v in row] for row in self.rows()]

    def is_zero(self) -> bool:
        return all(v == 0 for row in self.rows() for v in row)


class ExactVector:
    """A user's vector (gamma, beta), exactly: a list of ``int`` / ``Fraction``; ``how`` says how it was read."""

    def __init__(self, values: list, name: str, how: str):
        self.values = values
        self.name = name
        self.how = how

    def __len__(self) -> int:
        return len(self.values)

    def fractions(self) -> tuple[Fraction, ...]:
        return tuple(Fraction(v) for v in self.values)

    def strings(self) -> list[str]:
        return [str(v) for v in self.values]

    def require_length(self, d: int, what: str = "d_model, the number of columns of X") -> "ExactVector":
        if len(self.values) != d:
            raise BadInput(f"{self.name} has length {len(self.values)}, expected {d} (= {what})")
        return self


@dataclass
class ExactWeights:
    """Attention weights, exactly: per head (W_Q [d, d_k], W_K [d, d_k], W_V [d, d_k], W_O [d_k, d]) as
    :class:`ExactMatrix`; ``how`` says where they came from."""

    heads: list
    how: str
    record: dict = field(default_factory=dict)  # what --save writes (the file's name, or the seed)

    @property
    def H(self) -> int:
        return len(self.heads)

    @property
    def d(self) -> int:
        return self.heads[0][0].shape[0]

    @property
    def d_k(self) -> int:
        return self.heads[0][0].shape[1]

    def kernel_heads(self) -> list[tuple]:
        """(W_Q, W_K, W_V, W_O) per head in the form the transformer contexts and kernels take."""
        return [tuple(M.kernel() for M in h) for h in self.heads]

    def scores_vanish(self) -> bool:
        """W_Q W_K^T = 0 in every head (attention exactly uniform, J/n), exactly: a zero factor, else
        ||W_Q W_K^T||_F^2 = tr(W_Q^T W_Q W_K^T W_K) = 0 from the d_k x d_k Gram matrices (non-zero factors can have a
        zero product: review s6 found such weights refused as W_Q W_K^T != 0).

        >>> I = [[1, 0], [0, 1]]
        >>> w = ExactWeights([(ExactMatrix([[1, 0], [0, 0]], "W_Q", "t"), ExactMatrix([[0, 0], [0, 1]], "W_K", "t"),
        ...                    ExactMatrix(I, "W_V", "t"), ExactMatrix(I, "W_O", "t"))], "t")
        >>> w.scores_vanish()  # W_Q W_K^T = [[1, 0], [0, 0]] [[0, 0], [0, 1]] = 0 with both factors non-zero
        True
        """
        for h in self.heads:
            if h[0].is_zero() or h[1].is_zero():
                continue
            if product_frobenius_parts(h[0].fmpq(RANK_MAX_ENTRIES), h[1].fmpq(RANK_MAX_ENTRIES))[0] != 0:
                return False
        return True

    def value_output(self) -> list[sympy.Matrix]:
        """W_V^h W_O^h per head, exactly (sympy)."""
        return [h[2].sympy(SYMPY_MAX_ENTRIES) * h[3].sympy(SYMPY_MAX_ENTRIES) for h in self.heads]

    def require_uniform(self, who: str) -> None:
        """:class:`BadInput` naming ``who`` unless W_Q W_K^T = 0 in every head (attention exactly uniform, J/n)."""
        if not self.scores_vanish():
            raise BadInput(f"{who} is decided with uniform attention (W_Q W_K^T = 0 in every head, so A = J/n "
                           "exactly); the weights given have W_Q W_K^T != 0 (give W_Q = 0 in the .npz)")

    def uniform_value_outputs(self, who: str) -> list[sympy.Matrix]:
        """W_V^h W_O^h per head, for a statement decided with uniform attention (W_Q W_K^T = 0: A = J/n exactly)."""
        self.require_uniform(who)
        return self.value_output()

    def float64_heads(self, who: str) -> list[tuple]:
        """(W_Q, W_K, W_V, W_O) per head as float64 arrays holding the exact values (for the interval layer)."""
        out = []
        for h in self.heads:
            mats = []
            for M in h:
                F, why = M.float64()
                if F is None or (not (isinstance(M.data, np.ndarray) and M.data.dtype.kind == "f")
                                 and any(Fraction(float(v)) != Fraction(v) for r in M.rows() for v in r)):
                    raise BadInput(f"{who}: {M.name} has entries float64 does not hold exactly (the interval layer "
                                   "reads the weights as float64 arrays); store them as float64")
                mats.append(F)
            out.append(tuple(mats))
        return out

    def strings(self) -> dict:
        return {k: [h[i].strings() for h in self.heads] for i, k in enumerate(("W_Q", "W_K", "W_V", "W_O"))}


# --------------------------------------------------------------------------------------------- files and text

_NPY_MAGIC = b"\x93NUMPY"
_EXP = re.compile(r"[eE][-+]?0*(\d+)")


def _is_npy(p: Path) -> bool:
    try:
        with open(p, "rb") as f:
            return f.read(6) == _NPY_MAGIC
    except OSError:
        return False


def _check_npy_header(dtype, shape, text: str, what: str, max_entries: int | None) -> None:
    if dtype.hasobject or dtype.kind == "O":
        raise BadInput(f"{what}: {text} holds Python objects (dtype object); loading them needs pickle, which "
                       "collapse-verify refuses. Save integers, floats or exact strings as JSON")
    if dtype.fields is not None:
        raise BadInput(f"{what}: {text} holds a structured array ({dtype}); give plain numbers")
    if dtype.kind == "c":
        raise BadInput(f"{what}: {text} holds complex numbers ({dtype}); the exact layer takes real numbers only")
    if dtype.kind not in "biuf":
        raise BadInput(f"{what}: {text} holds dtype {dtype}, expected numbers (bool, int, uint, float)")
    size = math.prod(int(s) for s in shape)
    if max_entries is not None and size > max_entries:
        raise BadInput(f"{what}: {text} has shape {tuple(shape)} = {size} entries, above the limit of {max_entries} "
                       "for this command (raise it with the option or environment variable named in --help)")


def _load_npy(p: Path, text: str, what: str, max_entries: int | None) -> np.ndarray:
    try:
        with open(p, "rb") as f:
            try:
                version = np.lib.format.read_magic(f)
                fmt = np.lib.format
                if version == (1, 0):
                    shape, _, dtype = fmt.read_array_header_1_0(f)
                elif version == (2, 0):
                    shape, _, dtype = fmt.read_array_header_2_0(f)
                else:
                    reader = getattr(fmt, "_read_array_header", None)
                    if reader is None:
                        raise ValueError(f"unsupported .npy format version {version}")
                    shape, _, dtype = reader(f, version)
            except (ValueError, OSError, SyntaxError, TypeError, EOFError) as e:
                raise BadInput(f"{what}: {text} is not a valid .npy file ({e})") from None
            _check_npy_header(dtype, shape, text, what, max_entries)
        return np.load(p, allow_pickle=False)
    except BadInput:
        raise
    except (ValueError, OSError, EOFError) as e:
        raise BadInput(f"{what}: {text} could not be read as .npy ({type(e).__name__}: {e})") from None


def _regular_file(text: str, what: str) -> Path:
    """The path ``text`` names, if it is an existing regular file that is safe to read (named errors otherwise)."""
    p = Path(text)
    try:
        exists = p.exists()
        is_dir = p.is_dir()
    except (OSError, ValueError) as e:
        raise BadInput(f"{what}: {text[:80]!r} is neither JSON text nor a readable path ({e})") from None
    if is_dir:
        raise BadInput(f"{what}: {text} is a directory, not a file")
    try:
        regular = (not exists) or stat.S_ISREG(p.stat().st_mode)
    except OSError as e:
        raise BadInput(f"{what}: cannot read {text} ({e.strerror or e})") from None
    if exists and str(p.resolve()).startswith(("/proc/", "/sys/", "/dev/")):
        raise BadInput(f"{what}: {text} is a kernel pseudo-file (reading it may block), not an input file")
    if not regular:  # a FIFO would block, /dev/zero would never end
        raise BadInput(f"{what}: {text} is not a regular file (a device, pipe or socket)")
    if not exists:
        if text.endswith((".npy", ".json", ".npz")) or os.sep in text:
            raise BadInput(f"{what}: file {text} not found")
        raise BadInput(f"{what} is not valid JSON and not an existing file: {text[:80]!r}")
    return p


def _parse_json(src: str, what: str):
    limit = READER_LIMITS["JSON_MAX_BYTES"][0]
    if len(src) > limit:
        raise BadInput(f"{what}: JSON text longer than JSON_MAX_BYTES = {limit}")
    budget = [READER_LIMITS["JSON_MAX_TOTAL_DIGITS"][0]]

    def spend(tok: str) -> None:
        m = _EXP.search(tok)
        budget[0] -= len(tok) + (min(int(m.group(1)[-12:]), 10 ** 12) if m else 0)
        if budget[0] < 0:
            raise BadInput(f"the numbers spell more than JSON_MAX_TOTAL_DIGITS = "
                           f"{READER_LIMITS['JSON_MAX_TOTAL_DIGITS'][0]} digits in all (digits plus decimal exponents)")

    def lit(tok: str) -> str:
        check_literal(tok)
        spend(tok)
        return tok  # a decimal stays its text until exact_number reads it as the fraction it spells

    def int_lit(tok: str) -> int:
        check_literal(tok)
        spend(tok)
        with int_digits_unlimited():
            return int(tok)

    def constant(tok: str):
        raise BadInput(f"entry {tok} is not a finite number (NaN or infinity)")

    try:
        return json.loads(src, parse_float=lit, parse_int=int_lit, parse_constant=constant)
    except json.JSONDecodeError as e:
        raise BadInput(f"{what} is not valid JSON ({e.msg} at column {e.colno}): give a JSON list, a .json file or "
                       "a .npy file") from None
    except RecursionError:
        raise BadInput(f"{what}: JSON nested too deeply (a matrix is a list of lists)") from None
    except BadInput as e:
        raise BadInput(f"{what}: {e}") from None


def _load(text: str, what: str, max_entries: int | None):
    """(data, source): a numpy array (from .npy) or a parsed JSON value, and where it came from."""
    if text is None or not str(text).strip():
        raise BadInput(f"{what} is empty: give a JSON list, a .json file or a .npy file")
    if "\x00" in text:
        raise BadInput(f"{what} contains a NUL character")
    if text.lstrip().startswith(("[", "{")):
        return _parse_json(text, what), "JSON text"
    p = _regular_file(text, what)
    if _is_npy(p) or text.endswith(".npy"):
        return _load_npy(p, text, what, max_entries), f".npy file {text}"
    limit = READER_LIMITS["JSON_MAX_BYTES"][0]
    try:
        if p.stat().st_size > limit:
            raise BadInput(f"{what}: {text} is larger than JSON_MAX_BYTES = {limit} bytes")
        src = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise BadInput(f"{what}: {text} is neither a .npy file nor UTF-8 JSON text") from None
    except OSError as e:
        raise BadInput(f"{what}: cannot read {text} ({e.strerror or e})") from None
    return _parse_json(src, what), f"JSON file {text}"


def _shape_text(shape) -> str:
    return " x ".join(str(s) for s in shape)


def matrix_from(data, name: str, source: str = "", max_entries: int | None = None) -> ExactMatrix:
    """An :class:`ExactMatrix` from data already in memory: a numpy array (any dtype the reader accepts) or rows of
    exact numbers (ints, ``Fraction``, sympy rationals, ``"p/q"`` and decimal strings, floats as the dyadic
    rationals they store)."""
    if isinstance(data, sympy.MatrixBase):
        data = data.tolist()
    if isinstance(data, np.ndarray):
        if data.ndim != 2:
            raise BadInput(f"{name}{(': ' + source) if source else ''} must hold a 2-D array (got {data.ndim}-D, "
                           f"shape {data.shape})")
        if 0 in data.shape:
            raise BadInput(f"{name}{(': ' + source) if source else ''} is empty (shape {data.shape})")
        if max_entries is not None and data.size > max_entries:
            raise BadInput(f"{name} has {data.shape[0]} x {data.shape[1]} = {data.size} entries, above the limit of "
                           f"{max_entries} for this command")
        _check_npy_header(data.dtype, data.shape, source or "the array", name, None)
        how = f"{source}: {_how_npy(data.dtype)}" if source else _how_npy(data.dtype)
        return ExactMatrix(_exact_array(data, name), name, f"{how}; {_shape_text(data.shape)}", "npy")
    if not isinstance(data, (list, tuple)) or not data or not all(isinstance(r, (list, tuple)) for r in data):
        raise BadInput(f"{name} must be a non-empty list of rows, e.g. [[1, 2], [3, \"1/2\"]]")
    width = len(data[0])
    for i, r in enumerate(data):
        if len(r) != width:
            raise BadInput(f"{name} is ragged: row {i} has {len(r)} entries, row 0 has {width}")
        if any(isinstance(v, (list, tuple, dict)) for v in r):
            raise BadInput(f"{name}: row {i} holds a nested list or object; a matrix is a list of rows of numbers")
    if width == 0:
        raise BadInput(f"{name} has empty rows")
    if max_entries is not None and len(data) * width > max_entries:
        raise BadInput(f"{name} has {len(data)} x {width} = {len(data) * width} entries, above the limit of "
                       f"{max_entries} for this command")
    how = f"{source}: {_JSON_HOW}" if source else _JSON_HOW
    return ExactMatrix(_exact_json_rows(data, name), name, f"{how}; {_shape_text((len(data), width))}", "json")


def read_matrix(text: str, name: str = "--X", max_entries: int | None = None) -> ExactMatrix:
    """A matrix from JSON text, a .json file or a .npy file, exactly (see the module docstring).

    ``max_entries`` refuses larger inputs before they are read in full (.npy) or converted (JSON).
    """
    data, source = _load(text, name, max_entries)
    if isinstance(data, np.ndarray):
        return matrix_from(data, name, source, max_entries)
    return matrix_from(data, name, source, max_entries)


def read_vector(text: str, name: str, max_entries: int = 10 ** 7) -> ExactVector:
    """A vector from JSON text, a .json file or a 1-D .npy file, exactly."""
    if text is not None and not text.strip():
        raise BadInput(f"{name} is empty: give a JSON list of numbers or a .npy file (omit {name} for the default)")
    data, source = _load(text, name, max_entries)
    if isinstance(data, np.ndarray):
        if data.ndim != 1:
            raise BadInput(f"{name}: {text} must hold a 1-D array (got shape {data.shape})")
        _check_npy_header(data.dtype, data.shape, text, name, None)
        vals = _exact_array(data[None, :], name)
        rows = ExactMatrix(vals, name, "").rows() if len(data) else [[]]
        return ExactVector(rows[0], name, f"{source}: {_how_npy(data.dtype)}; length {len(data)}")
    if not isinstance(data, list) or any(isinstance(v, (list, dict)) for v in data):
        raise BadInput(f"{name} must be a flat list of numbers")
    try:
        vals = [exact_number(v) for v in data]
    except BadInput as e:
        raise BadInput(f"{name}: {e}") from None
    vals = [v.numerator if isinstance(v, Fraction) and v.denominator == 1 else v for v in vals]
    return ExactVector(vals, name, f"{source}: {_JSON_HOW}; length {len(vals)}")


#: the hypothesis --P is read under (a reader error names it)
ROW_STOCHASTIC = "P row-stochastic (square, entries >= 0, every row sums to 1)"


def read_stochastic(text: str, name: str = "--P", max_entries: int | None = None) -> ExactMatrix:
    """A row-stochastic matrix, exactly (read as :func:`read_matrix` reads any matrix), or a one-line
    :class:`BadInput` naming the violated hypothesis: not square, a negative entry, a row not summing to 1.

    >>> read_stochastic("[[0.5, 0.5], [1, 0]]").rows()
    [[Fraction(1, 2), Fraction(1, 2)], [1, 0]]
    >>> read_stochastic("[[0.5, 0.6], [1, 0]]")
    Traceback (most recent call last):
        ...
    theorems.exact.input.BadInput: --P: row 0 sums to 11/10, not 1: the hypothesis P row-stochastic (square, \
entries >= 0, every row sums to 1) fails
    """
    M = read_matrix(text, name, max_entries=max_entries)
    n, m = M.shape
    if n != m or n == 0:
        raise BadInput(f"{name} is {n} x {m}, not square: the hypothesis {ROW_STOCHASTIC} fails")
    for i, row in enumerate(M.fractions()):
        for j, v in enumerate(row):
            if v < 0:
                raise BadInput(f"{name}[{i}][{j}] = {v} is negative: the hypothesis {ROW_STOCHASTIC} fails")
        total = sum(row, Fraction(0))
        if total != 1:
            raise BadInput(f"{name}: row {i} sums to {total}, not 1: the hypothesis {ROW_STOCHASTIC} fails")
    M.how += "; row-stochastic (checked exactly)"
    return M


_WEIGHT_KEYS = ("W_Q", "W_K", "W_V", "W_O")


def read_weights(path: str, name: str = "--weights", max_entries: int | None = None) -> ExactWeights:
    """Heads from a ``.npz`` (W_Q, W_K, W_V: (H, d, d_k); W_O: (H, d_k, d)), exactly; named errors otherwise."""
    if path is None or not str(path).strip():
        raise BadInput(f"{name} is empty: give a .npz file holding W_Q, W_K, W_V, W_O")
    if "\x00" in path:
        raise BadInput(f"{name} contains a NUL character")
    p = _regular_file(path, name)
    try:
        z = np.load(p, allow_pickle=False)
        if not isinstance(z, np.lib.npyio.NpzFile):
            raise BadInput(f"{name}: {path} is a .npy array, not a .npz archive of W_Q, W_K, W_V, W_O")
        with z:
            missing = [k for k in _WEIGHT_KEYS if k not in z.files]
            if missing:
                raise BadInput(f"{name}: {path} lacks {', '.join(missing)} (expected W_Q, W_K, W_V of shape "
                               "(H, d, d_k) and W_O of shape (H, d_k, d))")
            data = {k: z[k] for k in _WEIGHT_KEYS}
    except BadInput:
        raise
    except (OSError, ValueError, EOFError) as e:
        raise BadInput(f"{name}: {path} is not a readable .npz file ({e})") from None
    for k, a in data.items():
        _check_npy_header(a.dtype, a.shape, f"{path}[{k}]", name, max_entries)
        if a.ndim != 3:
            raise BadInput(f"{name}: {k} has {a.ndim} dimensions; expected 3 (heads first)")
    H, d, dk = data["W_Q"].shape
    for k in ("W_K", "W_V"):
        if data[k].shape != (H, d, dk):
            raise BadInput(f"{name}: {k} has shape {data[k].shape}; W_Q has {(H, d, dk)} and they must agree")
    if data["W_O"].shape != (H, dk, d):
        raise BadInput(f"{name}: W_O has shape {data['W_O'].shape}; expected (H, d_k, d) = {(H, dk, d)}")
    if H < 1 or dk < 1 or d < 1:
        raise BadInput(f"{name}: at least one head of width d_k >= 1 is needed")
    heads = []
    for h in range(H):
        heads.append(tuple(matrix_from(data[k][h], f"{name} {k}[{h}]", f"{path}[{k}][{h}]") for k in _WEIGHT_KEYS))
    dt = data["W_Q"].dtype
    how = f".npz file {path}: {_how_npy(dt)}; H = {H}, d = {d}, d_k = {dk}"
    return ExactWeights(heads, how, {"file": str(path)})


def gaussian_weights(d: int, heads: int, seed: int, d_k: int | None = None) -> ExactWeights:
    """Seeded Gaussian heads (numpy ``default_rng(seed)``; W_Q, W_K, W_V ~ N(0, 1/d), W_O ~ N(0, 1/d_k)), the float64
    values taken exactly; d_k = d / H by default, which must divide."""
    if heads < 1:
        raise BadInput(f"--heads {heads} must be at least 1")
    if d_k is None:
        if d % heads:
            raise BadInput(f"--heads {heads} does not divide d = {d} (seeded weights have d_k = d / H); give weights "
                           "with --weights")
        d_k = d // heads
    rng = np.random.default_rng(seed)
    out = []
    for h in range(heads):
        mats = (rng.normal(0, 1 / math.sqrt(d), (d, d_k)), rng.normal(0, 1 / math.sqrt(d), (d, d_k)),
                rng.normal(0, 1 / math.sqrt(d), (d, d_k)), rng.normal(0, 1 / math.sqrt(d_k), (d_k, d)))
        out.append(tuple(matrix_from(M, f"{k}[{h}]") for k, M in zip(_WEIGHT_KEYS, mats, strict=True)))
    how = (f"seeded Gaussian weights (numpy default_rng({seed}); W_Q, W_K, W_V ~ N(0, 1/d), W_O ~ N(0, 1/d_k)), "
           f"float64 values taken exactly; H = {heads}, d = {d}, d_k = {d_k}")
    return ExactWeights(out, how, {"seed": seed, "heads": heads})


# --------------------------------------------------------------------------------------------- one command's inputs

@dataclass
class UserInput:
    """One command's inputs by name, each read exactly (what a claim's ``instance_from`` adapter receives).

    ``matrices``: ``X``, ``Delta``, ``W_O``, ``P`` (row-stochastic: :func:`read_stochastic`)
    (:class:`ExactMatrix`); ``vectors``: ``gamma``, ``beta``
    (:class:`ExactVector`); ``weights`` (:class:`ExactWeights`, from ``--weights`` or seeded); ``heads`` (H: how W_O's
    rows split, or the seeded weights' H), ``n`` (tokens per sequence), ``seed``, ``dps`` (interval digits), ``site``
    (the model site the inputs come from, or None).
    """

    matrices: dict = field(default_factory=dict)
    vectors: dict = field(default_factory=dict)
    weights: ExactWeights | None = None
    heads: int | None = None
    n: int | None = None
    seed: int | None = None
    dps: int = 50
    #: the model site the inputs were read from ("checkpoint, input, site id"), or None for a command line's inputs
    site: str | None = None

    def given(self) -> set[str]:
        """The names of the inputs given (``weights`` also when seeded; ``W_O`` implies ``heads``)."""
        out = set(self.matrices) | set(self.vectors)
        if self.weights is not None:
            out.add("weights")
        if self.n is not None:
            out.add("n")
        return out

    def matrix(self, name: str) -> ExactMatrix:
        try:
            return self.matrices[name]
        except KeyError:
            raise BadInput(f"{input_flag(name)} is needed") from None

    def vector(self, name: str, length: int) -> ExactVector | None:
        v = self.vectors.get(name)
        return None if v is None else v.require_length(length)

    def heads_of_W_O(self) -> tuple[int, int]:
        """(H, d_k) of --W-O: H = --heads must divide its rows (W_O is H d_k x d)."""
        W = self.matrix("W_O")
        H = self.heads
        if H is None:
            raise BadInput("--W-O needs --heads H (W_O is H d_k x d)")
        if W.shape[0] % H:
            raise BadInput(f"--heads {H} does not divide the {W.shape[0]} rows of W_O (W_O is H d_k x d)")
        return H, W.shape[0] // H

    def how(self) -> dict:
        out = {k: v.how for k, v in self.matrices.items()}
        out.update({k: v.how for k, v in self.vectors.items()})
        if self.weights is not None:
            out["weights"] = self.weights.how
        if self.heads is not None and "W_O" in self.matrices:
            out["heads"] = f"H = {self.heads} (W_O is H d_k x d)"
        if self.n is not None:
            out["n"] = f"n = {self.n} tokens per sequence"
        return out

    def record(self, names) -> dict:
        """The named inputs as exact strings (the stored-counterexample format)."""
        out = {}
        for k in names:
            if k in self.matrices:
                out[k] = self.matrices[k].strings()
            elif k in self.vectors:
                out[k] = self.vectors[k].strings()
            elif k == "weights" and self.weights is not None:
                out.update(self.weights.strings())
            elif k == "n" and self.n is not None:
                out["n"] = str(self.n)
        if "W_O" in names and self.heads is not None:
            out["heads"] = str(self.heads)
        return out
