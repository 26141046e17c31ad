"""How the command line reads its inputs, and the limits it enforces (one place for both).

Every bad input becomes a :class:`UsageError` naming the problem (exit 2), before any long
computation starts.

How a MATRIX / VEC argument is read: by the one exact reader, :mod:`theorems.exact.reader` (JSON text or file,
``.npy`` of every numeric dtype, ``.npz`` weights), the same for every subcommand.

Limits
======
Each limit below can be changed with the environment variable ``COLLAPSE_VERIFY_<NAME>`` (for
example ``COLLAPSE_VERIFY_CHECK_MAX_ENTRIES=4000000``); some also have a command-line option.
The digit and exponent limits live in :mod:`theorems.exact.input` (re-exported by :mod:`theorems.linalg`) (they also
guard the Python API).
"""
from __future__ import annotations

import json
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Iterable, overload

from theorems.exact.input import LIMITS as EXACT_LIMITS
from theorems.exact.input import cap_list, env_int
from theorems.exact.reader import READER_LIMITS

__all__ = ["UsageError", "LIMITS", "check_range", "SEED_MAX", "check_writable", "write_text", "limits_text",
           "check_output", "write_output", "write_json_output", "RecordStream", "written_kind", "marked",
           "OUTPUT_MARKER", "cap_list"]

#: an output path as the command line gives it
PathArg = str | os.PathLike[str]


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
#
# One rule for every file the command line writes (``--json``, ``--store``, ``new``, and any writer added later):
#
# * a file that exists is overwritten only if collapse-verify wrote it, as the same kind of output (a ledger is
#   not replaced by a depth record): JSON output carries the marker ``{"collapse_verify": {"kind", "version"}}`` as
#   its first key, a file ``new`` generated carries :data:`SCAFFOLD_MARKER`; anything else is refused, exit 2,
#   naming the file and what it is, unless ``--force``;
# * nothing is written inside a folder (or over a file) the same run reads (``--model DIR``, an input file),
#   unless ``--force``;
# * a whole file is written to a temporary file beside it and renamed over the target, so an interrupted run never
#   leaves half a file; a record stream (JSON Lines, :class:`RecordStream`) appends and flushes each record instead.

#: the top-level key of every JSON file collapse-verify writes, ``{"collapse_verify": {"kind": ..., "version": 1}}``
OUTPUT_MARKER = "collapse_verify"
OUTPUT_VERSION = 1
#: the marker `collapse-verify new` writes into every file it generates (proofs_numeric.ledger.scaffold.MARKER)
SCAFFOLD_MARKER = "generated by `collapse-verify new`"
#: kind -> what it is, for messages
OUTPUT_KINDS = {
    "ledger": "a ledger (verify --json)",
    "depth": "a depth-study record (depth --json)",
    "real-model": "a real-model record (real-model --json)",
    "counterexample": "a stored counterexample (verify --store)",
    "scaffold": "a file `collapse-verify new` generated",
}
#: files written before the marker existed, recognised by their top-level keys (kind -> keys they all have)
_UNMARKED_SIGNATURES = {
    "ledger": {"claims", "dps", "quick", "errors", "provenance"},
    "depth": {"dps", "layers", "shape", "regimes", "shapes"},
    "real-model": {"model", "family", "ln_sites", "layers", "symmetries"},
}
_MARKER_RE = re.compile(r'^\s*\{\s*"collapse_verify"\s*:\s*\{\s*"kind"\s*:\s*"([A-Za-z0-9_.-]+)"')
_UNMARKED_MAX_BYTES = 256 * 2 ** 20


def _what_kind(kind: str | None) -> str:
    return OUTPUT_KINDS.get(kind, f"a {kind} record") if kind else "an output of collapse-verify"


def marked(kind: str, record: dict) -> dict:
    """``record`` with the marker as its first key (what :func:`written_kind` recognises)."""
    return {OUTPUT_MARKER: {"kind": kind, "version": OUTPUT_VERSION},
            **{k: v for k, v in record.items() if k != OUTPUT_MARKER}}


def written_kind(path) -> str | None:
    """The kind of output collapse-verify wrote at ``path`` (its marker, or the keys of an unmarked ledger, depth
    or real-model record written before the marker existed), or None for anything else."""
    p = Path(path)
    try:
        with open(p, "rb") as f:
            head = f.read(4096)
    except OSError:
        return None
    text = head.decode("utf-8", errors="replace")
    m = _MARKER_RE.match(text)
    if m:
        return m.group(1)
    if SCAFFOLD_MARKER in text[:2000]:
        return "scaffold"
    if not text.lstrip().startswith("{"):
        return None
    try:
        if p.stat().st_size > _UNMARKED_MAX_BYTES:
            return None
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if isinstance(data, dict):
        for kind, keys in _UNMARKED_SIGNATURES.items():
            if keys <= set(data):
                return kind
    return None


def _inside(child: Path, parent: Path) -> bool:
    try:
        child.relative_to(parent)
        return True
    except ValueError:
        return False


@overload
def check_output(path: None, *, what: str = ..., kind: str | None, force: bool = ...,
                 inputs: Iterable[PathArg | None] = ...) -> None: ...
@overload
def check_output(path: PathArg, *, what: str = ..., kind: str | None, force: bool = ...,
                 inputs: Iterable[PathArg | None] = ...) -> Path: ...
def check_output(path: PathArg | None, *, what: str = "--json", kind: str | None, force: bool = False,
                 inputs: Iterable[PathArg | None] = ()) -> Path | None:
    """Refuse, before any computation, an output path the write rule (above) forbids; returns the path to write
    (a symbolic link's target) or None when ``path`` is None. ``inputs``: files and folders this run reads."""
    if path is None:
        return None
    p = check_writable(path, what)
    if force:
        return p.resolve()
    target = p.resolve()
    for src in inputs or ():
        if src is None:
            continue
        s = Path(src).resolve()
        if target == s or (s.is_dir() and _inside(target, s)):
            where = "is" if target == s else "lies inside"
            raise UsageError(f"{what} {path} {where} {'the input folder' if s.is_dir() else 'the input file'} {src} "
                             "that this run reads: refusing to write there (give a path outside it, or --force)")
    if p.exists():
        got = written_kind(p)
        if got is None:
            raise UsageError(f"{what} {path} exists and is not a file collapse-verify wrote (no "
                             f"\"{OUTPUT_MARKER}\" marker): refusing to overwrite it (give another path, or --force "
                             "to replace it)")
        if kind is not None and got != kind:
            raise UsageError(f"{what} {path} is {_what_kind(got)}, not {_what_kind(kind)}: refusing to overwrite it "
                             "(give another path, or --force to replace it)")
    return target


def _atomic_write(target: Path, text: str) -> None:
    """``text`` into a temporary file beside ``target``, flushed to disk, then renamed over it (an interrupted run
    leaves the old file or the new one, never half of one). The new file keeps the old one's permissions."""
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mask = os.umask(0)
        os.umask(mask)
        mode = 0o666 & ~mask
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_output(path: PathArg, text: str, *, what: str = "--json", kind: str | None, force: bool = False,
                 inputs: Iterable[PathArg | None] = ()) -> Path:
    """Write a whole output file under the write rule (checked again now: the run may have taken a while).

    Refusals and failures (disk full, ...) are :class:`UsageError` naming the path, never a traceback."""
    target = check_output(path, what=what, kind=kind, force=force, inputs=inputs)
    try:
        _atomic_write(target, text)
    except OSError as e:
        raise UsageError(f"{what} {path}: could not write ({e.strerror or e})") from None
    return target


def write_json_output(path, record: dict, *, what: str = "--json", kind: str, force: bool = False,
                      inputs=()) -> Path:
    """``record`` as JSON with the marker of ``kind`` first (so a later run recognises it), under the write rule."""
    return write_output(path, json.dumps(marked(kind, record), indent=1, default=str) + "\n", what=what, kind=kind,
                        force=force, inputs=inputs)


class RecordStream:
    """A JSON Lines output under the write rule: a first line ``{"collapse_verify": {"kind": ..., "version": 1}}``,
    then one JSON record per line, each appended and flushed to disk as it is written (an interrupted run keeps
    every record written so far). An existing stream of the same kind is appended to (a partial last line, from
    an interrupted write, is dropped first); ``force`` replaces any other file with a new stream.

    >>> import tempfile, json; d = tempfile.mkdtemp()
    >>> with RecordStream(d + "/runs.jsonl", kind="example") as s:
    ...     s.write({"layer": 0})
    >>> [json.loads(x) for x in open(d + "/runs.jsonl")][1]
    {'layer': 0}
    """

    def __init__(self, path: PathArg, *, what: str = "--json", kind: str, force: bool = False,
                 inputs: Iterable[PathArg | None] = ()):
        self.path, self.what, self.kind = path, what, kind
        target = check_output(path, what=what, kind=kind, force=force, inputs=inputs)
        try:
            fresh = force or not target.exists() or target.stat().st_size == 0
            if fresh:
                self._f = open(target, "w", encoding="utf-8")
                self._line(marked(kind, {}))
            else:
                with open(target, "rb+") as f:  # drop a partial last line left by an interrupted write
                    data = f.read()
                    if not data.endswith(b"\n"):
                        f.truncate(data.rfind(b"\n") + 1)
                self._f = open(target, "a", encoding="utf-8")
        except OSError as e:
            raise UsageError(f"{what} {path}: could not write ({e.strerror or e})") from None

    def _line(self, obj) -> None:
        self._f.write(json.dumps(obj, default=str) + "\n")
        self._f.flush()
        os.fsync(self._f.fileno())

    def write(self, record: dict) -> None:
        """Append one record and flush it to disk."""
        try:
            self._line(record)
        except OSError as e:
            raise UsageError(f"{self.what} {self.path}: could not write ({e.strerror or e})") from None

    def close(self) -> None:
        self._f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def check_writable(path: PathArg, what: str = "--json") -> Path:
    """Refuse an output path that cannot be written, before any computation (a directory, a device, a missing or
    read-only folder). Whether an existing file may be replaced is :func:`check_output`'s question."""
    if path is None:
        return None
    if not str(path).strip():
        raise UsageError(f"{what}: empty path")
    path = str(path)
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
            parent = p.resolve().parent
            if not os.access(parent, os.W_OK | os.X_OK):  # the rename needs the folder
                raise UsageError(f"{what} {path}: folder {parent} is not writable")
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


def write_text(path: str, text: str, what: str = "--json", *, kind: str | None = None, force: bool = False,
               inputs=()) -> Path:
    """:func:`write_output` under its older name (``kind=None``: an existing file must be any output of this tool)."""
    return write_output(path, text, what=what, kind=kind, force=force, inputs=inputs)
