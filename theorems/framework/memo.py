"""Results computed once, kept on disk under a key of the code that computed them.

``make verify`` computes, besides the ledger, a few results the book's pages also show (the trained model's
site measurements, the depth study, the proof steps' outcomes); without a store each page would compute them
again. :func:`memo` keeps such a result in ``.collapse-verify-cache/`` (or the folder ``COLLAPSE_VERIFY_CACHE``
names; ``off`` turns the store off) under a **key**: a SHA-256 of the result's name and parameters, of every source
file that decides a verdict (:func:`deciding`: ``theorems/`` with its Coq files and stored counterexamples, and
the folders a layer above registers with :func:`add_deciding` — the numeric layer registers its own, minus its
command line and renderings) and of the versions of the libraries that compute (and of any ``extra`` one, e.g. a
model package). A changed source file, library or parameter gives a new key: the result is recomputed, never
reused stale. Each entry also records when, from which commit and by which process it was computed, which a page
can show (:func:`provenance`).

Values are pickled: the store is a cache of this checkout's own results, read only by this checkout's code (never
point ``COLLAPSE_VERIFY_CACHE`` at a folder someone else can write). An unreadable or corrupt entry is recomputed;
an unwritable folder only costs the time. Concurrent processes (``pytest -n 2``, the book's kernels) computing the
same entry wait for the first one (an OS file lock, released if that process dies) and then read its result.
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, TypeVar

from .storage import REPO_ROOT

__all__ = ["DECIDING", "NOT_DECIDING", "CACHE_ENV", "add_deciding", "deciding", "deciding_files", "source_digest",
           "library_versions", "cache_dir", "memo_key", "memo", "computing_fresh", "reading_store", "provenance",
           "current_commit", "process_cache", "kept", "clear_process_caches",
           "head_commit", "locked", "reads", "note_computed"]

T = TypeVar("T")

Folders = tuple[tuple[str, tuple[str, ...]], ...]

#: what decides verdicts in this layer: (folder, suffixes), relative to the repository
DECIDING: Folders = (("theorems", (".py", ".v", ".json", "_CoqProject")),)
#: inside the deciding folders, what does not (path prefixes)
NOT_DECIDING: tuple[str, ...] = ()
#: ``COLLAPSE_VERIFY_CACHE=<folder>`` moves the store, ``=off`` turns it off (every result computed in-process)
CACHE_ENV = "COLLAPSE_VERIFY_CACHE"
_LIBRARIES = ("sympy", "python-flint", "mpmath", "numpy", "hypothesis")
_REGISTERED: list[tuple[Folders, tuple[str, ...]]] = []


def add_deciding(folders: Folders, not_deciding: tuple[str, ...] = ()) -> None:
    """A layer above adds its folders (and the prefixes inside them that do not decide) to :func:`deciding`."""
    if (folders, not_deciding) not in _REGISTERED:
        _REGISTERED.append((folders, not_deciding))


def deciding() -> tuple[Folders, tuple[str, ...]]:
    """The deciding folders and the non-deciding prefixes: this layer's and every registered one's."""
    folders, skip = DECIDING, NOT_DECIDING
    for f, n in _REGISTERED:
        folders, skip = folders + tuple(x for x in f if x not in folders), skip + n
    return folders, skip


def deciding_files(root: Path = REPO_ROOT, folders: Folders | None = None,
                   not_deciding: tuple[str, ...] | None = None) -> list[Path]:
    """Every file under ``root`` that decides a verdict (default: :func:`deciding`), in path order."""
    if folders is None or not_deciding is None:
        d_folders, d_skip = deciding()
        folders = d_folders if folders is None else folders
        not_deciding = d_skip if not_deciding is None else not_deciding
    out = []
    for folder, suffixes in folders:
        found = []
        # os.walk, pruning __pycache__ and _build (Coq's build folder) instead of walking them
        for dirpath, dirnames, filenames in os.walk(root / folder):
            dirnames[:] = [d for d in dirnames if d not in ("__pycache__", "_build")]
            rel_dir = Path(dirpath).relative_to(root)
            for name in filenames:
                if name.endswith(suffixes) and not (rel_dir / name).as_posix().startswith(not_deciding):
                    p = Path(dirpath, name)
                    if p.is_file():
                        found.append(p)
        out.extend(sorted(found))  # Path order within a folder, as before (the digests of stored results stay)
    return out


_DIGESTS: dict[tuple[tuple[str, int, int], ...], str] = {}


def source_digest(root: Path = REPO_ROOT, folders: Folders | None = None,
                  not_deciding: tuple[str, ...] | None = None) -> str:
    """SHA-256 over (path, SHA-256 of the contents) of every file that decides a verdict, in path order.

    Cached per process on the files' (path, size, mtime) when every file is more than two seconds old (an edit
    after that gives a new mtime; two edits within one clock tick could not be told apart, so recent files are
    always hashed)."""
    files = deciding_files(root, folders, not_deciding)
    stats = [(p.as_posix(), st.st_size, st.st_mtime_ns) for p in files for st in [p.stat()]]
    stamp = tuple(stats)
    if stamp in _DIGESTS:
        return _DIGESTS[stamp]
    h = hashlib.sha256()
    for p in files:
        h.update(p.relative_to(root).as_posix().encode())
        h.update(b"\0")
        h.update(hashlib.sha256(p.read_bytes()).hexdigest().encode())
        h.update(b"\n")
    digest = h.hexdigest()
    if all(m < time.time_ns() - 2_000_000_000 for _, _, m in stats):
        _DIGESTS.clear()
        _DIGESTS[stamp] = digest
    return digest


#: distribution -> version, found once per process (the libraries this process loaded cannot change under it); a
#: missing one is looked up again, so a package installed while a kernel runs is not keyed as missing
_VERSIONS: dict[str, str] = {}


def _version(dist: str) -> str | None:
    if dist not in _VERSIONS:
        try:
            _VERSIONS[dist] = version(dist)
        except PackageNotFoundError:
            return None
    return _VERSIONS[dist]


def library_versions(extra: tuple[str, ...] = ()) -> dict[str, str | None]:
    """Python's version and the computing libraries' (plus ``extra`` distributions)."""
    return {"python": sys.version.split()[0], **{d: _version(d) for d in (*_LIBRARIES, *extra)}}


#: set by mutmut for the mutant under test: the mutants share one source tree (a switch picks the mutant at run
#: time), so a stored result would hide the mutant's effect; the store is off for them
_MUTANT_ENV = "MUTANT_UNDER_TEST"


def cache_dir() -> Path | None:
    """The store's folder (None: turned off by ``COLLAPSE_VERIFY_CACHE=off``, or under mutation testing).

    The key sees the files, not code patched in memory: a process that patches the code it runs (a test's
    monkeypatch, a mutant switched on at run time) must use a store of its own or none (the test suite uses a fresh
    one per session, mutation testing none)."""
    if os.environ.get(_MUTANT_ENV):
        return None
    env = os.environ.get(CACHE_ENV, "")
    if env.lower() in ("off", "0", "no", "false"):
        return None
    if env:
        return Path(env)
    # by default only in a checkout (an installed package has no pyproject.toml beside it: nothing is kept in
    # site-packages)
    return REPO_ROOT / ".collapse-verify-cache" if (REPO_ROOT / "pyproject.toml").is_file() else None


def memo_key(name: str, params: dict[str, Any], extra: tuple[str, ...] = (), sources: str | None = None) -> str:
    """The key of ``name`` computed now with ``params`` (JSON-able) by this source and these libraries
    (``sources``: the :func:`source_digest` the caller has just computed, else computed here)."""
    data = {"name": name, "params": params, "sources": source_digest() if sources is None else sources,
            "versions": library_versions(extra)}
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


def head_commit() -> str | None:
    """The checkout's commit (None outside a git checkout)."""
    try:
        out = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def current_commit() -> str | None:
    """:func:`head_commit`, with ``+dirty`` when a deciding file differs from it."""
    head = head_commit()
    if head is None:
        return None
    try:
        dirty = subprocess.run(["git", "-C", str(REPO_ROOT), "status", "--porcelain", "--",
                                *[f for f, _ in deciding()[0]]], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return head
    return head + ("+dirty" if dirty.returncode == 0 and dirty.stdout.strip() else "")


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive OS lock on the file ``path`` for the block (``filelock``: released when the holder dies).
    OSError when the lock file cannot be opened."""
    from filelock import FileLock  # lazy: only a computation that stores its result takes the lock
    with FileLock(str(path), thread_local=False):
        yield


def _read(path: Path, key: str) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as fh:
            entry = pickle.load(fh)
    except Exception:  # noqa: BLE001 - missing, truncated or from another version: recompute
        return None
    if not isinstance(entry, dict) or entry.get("key") != key:
        return None
    return entry


#: name -> the provenance of the entry this process last read or wrote (see :func:`provenance`)
_PROVENANCE: dict[str, dict[str, Any]] = {}
#: name -> [entries read from the store, entries computed] in this process
_COUNTS: dict[str, list[int]] = {}
#: name -> the provenance of the entry this process last read from the store
_LAST_READ: dict[str, dict[str, Any]] = {}
#: False inside :func:`computing_fresh`: every memo computes (and stores) instead of reading
_READING = [True]
#: one dict per :func:`computing_fresh` block (innermost last): key -> (pickled entry, provenance) of every value the
#: block computed and stored; a second memo of the same key in the same block gets a fresh copy of that value
#: (unpickled, as a read from the store would give) instead of computing it again: the run that reports it computed
#: it (a 157-claim ledger asked 152 distinct keys 295 times, 3.3 s of proof steps computed twice, 2026-12-07)
_RUN_VALUES: list[dict[str, tuple[bytes, dict[str, Any]]]] = []
#: the source digest when this process first used the store: the code it imported. A file edited later (a
#: long book build, a kernel left open) would give a key of code this process is not running: from then on
#: nothing is read or stored
_FIRST_DIGEST: list[str] = []


def note_computed(name: str) -> None:
    """Record that a value of ``name`` was computed here without the store (for :func:`provenance`)."""
    _note(name, {"reused": False, "stored": False})


def _note(name: str, prov: dict[str, Any]) -> None:
    _PROVENANCE[name] = prov
    if prov.get("reused"):
        _LAST_READ[name] = prov
    c = _COUNTS.setdefault(name, [0, 0])
    c[0 if prov.get("reused") else 1] += 1


#: every dict :func:`process_cache` handed out
_PROCESS_CACHES: list[dict[Any, Any]] = []


def process_cache() -> dict[Any, Any]:
    """A dict in which a module keeps results it computes once per process (keyed by their options), so the claims
    of one run share them (the trained model's measurement, the depth study); :func:`clear_process_caches` empties
    every such dict."""
    d: dict[Any, Any] = {}
    _PROCESS_CACHES.append(d)
    return d


def kept(cache: dict[Any, Any], key: Any, compute: Callable[[], T], limit: int | None = None) -> T:
    """``cache[key]``, computed by ``compute()`` the first time (``cache``: a :func:`process_cache`). With ``limit``,
    a cache that holds that many values is emptied before a new one is kept. The value is returned from a local, so
    another thread emptying the cache meanwhile cannot make the read fail."""
    try:
        got: T = cache[key]
        return got
    except KeyError:
        pass
    value = compute()
    if limit is not None and len(cache) >= limit:
        cache.clear()
    cache[key] = value
    return value


def clear_process_caches() -> None:
    """Forget every result kept by :func:`process_cache`: the next run in this process computes them again (a test
    that compares a run here with one in a fresh process, after other tests filled them, perhaps from the store)."""
    for d in _PROCESS_CACHES:
        d.clear()


@contextmanager
def computing_fresh() -> Iterator[None]:
    """Within this block every :func:`memo` computes its value (and stores it for later readers): ``verify`` runs
    its claims in one, so each verdict's evidence is computed by the run that reports it."""
    _READING.append(False)
    _RUN_VALUES.append({})
    try:
        yield
    finally:
        _RUN_VALUES.pop()
        _READING.pop()


def reading_store() -> bool:
    """Whether a :func:`memo` here may read its stored value (False inside :func:`computing_fresh`): what a process
    that hands work to others passes on, so that they compute what it would (``verify``'s worker processes)."""
    return _READING[-1]


def _source_unchanged(d: str | None = None) -> bool:
    """Whether the deciding files are those of this process's first use of the store (``d``: their digest now)."""
    d = source_digest() if d is None else d
    if not _FIRST_DIGEST:
        _FIRST_DIGEST.append(d)
    return d == _FIRST_DIGEST[0]


def memo(name: str, params: dict[str, Any], compute: Callable[[], T], *, extra: tuple[str, ...] = (),
         read: bool | None = None) -> T:
    """``compute()``, or its stored result under :func:`memo_key` (``name``, ``params``, this source).

    ``read=False`` (the default inside :func:`computing_fresh`) computes anyway and stores the result.
    :func:`provenance` then says where the value came from. Without a usable store (off, not writable, a deciding
    file edited since this process first used it) the value is computed and nothing is stored."""
    read = _READING[-1] if read is None else read
    folder = cache_dir()
    digest = source_digest() if folder is not None else None
    if folder is None or not _source_unchanged(digest):
        note_computed(name)
        return compute()
    key = memo_key(name, params, extra, digest)  # one digest for the check and the key: the same moment
    if not read and _RUN_VALUES and key in _RUN_VALUES[-1]:  # computed earlier in this computing_fresh block
        data, prov = _RUN_VALUES[-1][key]
        try:
            again: T = pickle.loads(data)["value"]
        except Exception:  # noqa: BLE001 - stored but not rebuilt (as a store read that fails): compute again
            _RUN_VALUES[-1].pop(key, None)
        else:
            _note(name, prov)
            return again
    path = folder / f"{name}-{key[:24]}.pickle"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with locked(folder / f"{name}-{key[:24]}.lock"):
            return _memo_locked(name, key, path, compute, read)
    except OSError:  # a folder that cannot be written: read what is there, else compute
        found = _read_back(name, path, key) if read else None
        if found is not None:
            value: T = found[0]
            return value
        note_computed(name)
        return compute()


def _read_back(name: str, path: Path, key: str) -> tuple[Any] | None:
    """``(value,)`` of the entry under ``key`` (noted as read), or None."""
    entry = _read(path, key)
    if entry is None:
        return None
    _note(name, {**entry["provenance"], "reused": True, "path": str(path)})
    return (entry["value"],)


def _memo_locked(name: str, key: str, path: Path, compute: Callable[[], T], read: bool) -> T:
    found = _read_back(name, path, key) if read else None
    if found is not None:
        value: T = found[0]
        return value
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    t0 = time.perf_counter()
    value = compute()
    prov = {"computed": started, "seconds": round(time.perf_counter() - t0, 3), "commit": current_commit(),
            "pid": os.getpid()}
    stored = False
    if _source_unchanged():  # the source did not change while it was computed
        try:
            data = pickle.dumps({"key": key, "provenance": prov, "value": value}, protocol=pickle.HIGHEST_PROTOCOL)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            with open(tmp, "wb") as fh:
                fh.write(data)
            tmp.replace(path)
            stored = True
        except (OSError, pickle.PicklingError, TypeError, AttributeError):
            stored = False
    full = {**prov, "reused": False, "stored": stored, "path": str(path)}
    if stored and not read and _RUN_VALUES:
        _RUN_VALUES[-1][key] = (data, full)  # the entry as stored
    _note(name, full)
    return value


def reads() -> int:
    """How many values this process has read from the store so far (every name)."""
    return sum(c[0] for c in _COUNTS.values())


def provenance(name: str) -> dict[str, Any] | None:
    """Where this process's last value of ``name`` came from: ``reused`` (read from the store) or computed here,
    with ``computed`` (time), ``commit`` and ``seconds``; ``read_count`` / ``computed_count`` over every value of
    ``name`` this process asked for and ``last_read`` (the provenance of the last one read, or None); None when it
    has asked for none."""
    if name not in _PROVENANCE:
        return None
    read, computed = _COUNTS.get(name, [0, 0])
    return {**_PROVENANCE[name], "read_count": read, "computed_count": computed, "last_read": _LAST_READ.get(name)}
