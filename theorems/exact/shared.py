"""One site's exact facts computed once: a scope in which the readings evaluated at one site share the exact
conversion of the same float arrays and the exact ranks of the same matrices.

At a model's site several readings (several claims, several instance forms) read the same float64 arrays: at a
residual update of MiniLM's 512-token input, RRO.only-increase's four readings converted the same X and Delta to
exact rationals and ranked X, Delta, X + Delta, [X; Delta] and [X | Delta] about twenty times (3.8 s of CPU a site).
Inside :func:`sharing` (entered by the numeric layer around one site task) the first computation of a fact is kept
and the others read it:

* values are kept under a **key of their content**: an array's dtype, shape and the SHA-256 of its bytes
  (:func:`array_key`, about 2 ms for 512 x 384 float64), never its identity, so an array changed in place has a new
  key; a fact of matrices derived from such arrays is keyed by the operation and its operands' keys;
* a matrix the exact reader converts inside the scope is **registered** with the key of the array it was read from
  (:func:`register`, :func:`key_of`): :func:`theorems.exact.linalg.rank` of it, or of the sum or stack of two such
  matrices, is then kept under (operation, keys). A registered matrix is one the reader handed out for this site; the
  callers read it and build new matrices (``X + Delta``), never write into it (the registry holds it, so its
  identity is not reused within the scope);
* the scope holds at most :data:`MAX_ENTRIES` values (least recently used dropped first) and is emptied when it
  ends: nothing leaks from one site to the next or grows without bound. Outside a scope nothing is kept.

Every fact kept is exact (a rank over Q, a conversion, an exact analysis): a value read back is the value that would
be computed again. Scopes are per thread; a nested scope is the enclosing one.

>>> import numpy as np
>>> with sharing():
...     a = shared(("rank", array_key(np.eye(2))), lambda: 2)
...     b = shared(("rank", array_key(np.eye(2))), lambda: 99)  # the same content: read back
>>> a, b, shared(("rank", array_key(np.eye(2))), lambda: 7)  # outside a scope: computed
(2, 2, 7)
"""
from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import numpy as np

__all__ = ["MAX_ENTRIES", "sharing", "active", "array_key", "shared", "register", "key_of", "registered", "size"]

T = TypeVar("T")

#: the most values (and registered matrices) one scope keeps; a site's facts are a few dozen
MAX_ENTRIES = 64


class _Scope:
    def __init__(self) -> None:
        self.values: OrderedDict[Hashable, Any] = OrderedDict()
        self.sources: OrderedDict[int, tuple[Any, Hashable]] = OrderedDict()  # id(obj) -> (obj, key)


_LOCAL = threading.local()


def _scope() -> _Scope | None:
    return getattr(_LOCAL, "scope", None)


@contextmanager
def sharing() -> Iterator[None]:
    """A scope in which :func:`shared` keeps values (one site task); nested: the enclosing scope; emptied at the
    end."""
    if _scope() is not None:
        yield
        return
    _LOCAL.scope = _Scope()
    try:
        yield
    finally:
        _LOCAL.scope = None


def active() -> bool:
    """Whether a :func:`sharing` scope is open in this thread."""
    return _scope() is not None


def size() -> int:
    """How many values and registered matrices the open scope holds (0 outside a scope)."""
    s = _scope()
    return 0 if s is None else len(s.values) + len(s.sources)


def array_key(a: Any) -> tuple | None:
    """The content key of a numpy array (dtype, shape, SHA-256 of its C-order bytes), or None for anything else."""
    if not isinstance(a, np.ndarray) or a.dtype.hasobject:
        return None
    return ("array", a.dtype.str, tuple(int(s) for s in a.shape),
            hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest())


def shared(key: Hashable | None, compute: Callable[[], T]) -> T:
    """``compute()``, kept in the open scope under ``key`` (a key of content: :func:`array_key` and the operation);
    None, or no scope: computed and not kept."""
    s = _scope()
    if s is None or key is None:
        return compute()
    if key in s.values:
        s.values.move_to_end(key)
        value: T = s.values[key]
        return value
    value = compute()
    s.values[key] = value
    while len(s.values) > MAX_ENTRIES:
        s.values.popitem(last=False)
    return value


def register(obj: T, key: Hashable | None) -> T:
    """Record in the open scope that ``obj`` (a matrix the reader made) holds the values of the content ``key``;
    returns ``obj``. No scope or no key: nothing recorded."""
    s = _scope()
    if s is not None and key is not None:
        s.sources[id(obj)] = (obj, key)
        while len(s.sources) > MAX_ENTRIES:
            s.sources.popitem(last=False)
    return obj


def key_of(obj: Any) -> Hashable | None:
    """The content key :func:`register` recorded for this very object in the open scope, or None."""
    s = _scope()
    if s is None:
        return None
    got = s.sources.get(id(obj))
    return got[1] if got is not None and got[0] is obj else None


def registered() -> list[tuple[Any, Hashable]]:
    """The (matrix, content key) pairs :func:`register` recorded in the open scope ([] outside a scope): what a test
    compares with the arrays they were read from (the callers never write into them)."""
    s = _scope()
    return [] if s is None else list(s.sources.values())
