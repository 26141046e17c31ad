"""How the command line reads its inputs, and the limits it enforces (one place for both).

Every bad input becomes a :class:`UsageError` naming the problem (exit 2), before any long
computation starts.

How a MATRIX / VEC argument is read: by the one exact reader, :mod:`theorems.exact.reader` (JSON text or file,
``.npy`` of every numeric dtype, ``.npz`` weights), the same for every subcommand.

Limits
======
Each limit below can be changed with the environment variable ``COLLAPSE_VERIFY_<NAME>`` (for
example ``COLLAPSE_VERIFY_CHECK_MAX_ENTRIES=4000000``); some also have a command-line option.
The digit and exponent limits live in :mod:`theorems.exact.input` (re-exported by :mod:`theorems.linalg`) (they also guard the Python API).
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from theorems.exact.input import LIMITS as EXACT_LIMITS
from theorems.exact.input import env_int
from theorems.exact.reader import READER_LIMITS

__all__ = ["UsageError", "LIMITS", "check_range", "SEED_MAX", "check_writable", "write_text", "limits_text"]


class UsageError(Exception):
    """Bad input or arguments: the command exits 2 with this message."""


#: name -> (default, what it bounds). Overridable with COLLAPSE_VERIFY_<NAME>.
_LIMIT_DOCS = {
    "CHECK_MAX_ENTRIES": (2 ** 20, "entries of each matrix for `check` (2^20: admits 1024 x 1024, so 1024 x 768)"),
    "CHECK_MAX_HEADS": (4096, "heads of `check --heads`"),
    "CHECK_MAX_N": (2 ** 24, "tokens per sequence of `check --n`"),
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
    lines += [f"  {k} = {v}: {d}" for k, (v, d) in {**READER_LIMITS, **EXACT_LIMITS}.items()]
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------- arguments

def check_range(opt: str, value, lo: int, hi: int, why: str, limit: str | None = None) -> None:
    """Refuse a numeric argument outside [lo, hi], in the words every subcommand uses (``verify``, ``depth``,
    ``check``, ``rank``, ``show``): ``--dps 0 is outside [15, 5000] (digits; the upper limit is VERIFY_MAX_DPS,
    see --help)``."""
    if value is None:
        return
    if not lo <= value <= hi:
        tail = f"; the upper limit is {limit}, see --help" if limit else ""
        raise UsageError(f"{opt} {value} is outside [{lo}, {hi}] ({why}{tail})")


#: seeds of every subcommand: 0 <= seed < 2^63
SEED_MAX = 2 ** 63 - 1


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
