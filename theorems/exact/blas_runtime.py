"""The process-wide BLAS runtime of the exact layer: the thread count of the BLAS numpy loaded, OpenBLAS's idle
workers, LAPACK's pivoted Cholesky from the same library, and the one pool of threads the certified rank runs its
side work and its lifting on.

None of it decides a result: the p-adic certificate (:mod:`~theorems.exact.padic_rank`) is exact in any summation
order and on any number of threads, and a pivot search that LAPACK does not serve falls back to numpy. What is here
is speed on a small shared machine, and the care that speed needs in a process that may have other threads, fork,
or be interrupted.

* **Finding the library.** threadpoolctl (:class:`threadpoolctl.ThreadpoolController`) finds the BLAS libraries
  loaded in this process (``dl_iterate_phdr`` on Linux, whatever the file is called and whichever symbol prefix and
  suffix the build uses: ``openblas_``, scipy-openblas64's ``scipy_openblas_..64_``) and reads and sets their
  thread count; :func:`openblas_libraries` gives the OpenBLAS ones as ``ctypes`` libraries, for the two symbols
  threadpoolctl does not wrap: OpenBLAS's ``blas_thread_shutdown_`` (:func:`park_blas_workers`) and
  ``LAPACKE_dpstrf`` (:func:`lapack_dpstrf`).
* **One BLAS thread** inside :class:`single_threaded_blas`; the count found is restored on the way out.
* **Parking OpenBLAS's idle workers** (:func:`park_blas_workers`), which spin for about 0.1 s after each
  multi-threaded call and would take a core from the pool's threads.
* **The pool** (:func:`submit`): a process-wide :class:`~concurrent.futures.ThreadPoolExecutor` whose threads are
  named ``LIFT_POOL_PREFIX``, with a count of the work in flight (parking waits for 0) and a fork handler (a child
  forgets the parent's pool, whose threads it does not have).

The thread count is set through threadpoolctl's OpenBLAS controller, which lets one Python thread at a time own
OpenBLAS's process-wide setting (another thread's call does nothing while the owner lives): every set here gives
that ownership back at once (:func:`_set_threads`), so any thread of this process may enter
:class:`single_threaded_blas`, as before threadpoolctl; while a caller's own ``threadpool_limits`` block runs in
another thread, the block leaves the count to it (and says so: its ``before`` is 1).
"""
from __future__ import annotations

import ctypes
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from threadpoolctl import ThreadpoolController

__all__ = ["openblas_libraries", "single_threaded_blas", "park_blas_workers", "submit", "lapack_dpstrf",
           "lapack_pivoted_cholesky", "LIFT_POOL_PREFIX", "update_kernels", "UpdateKernels", "kernels_are_exact"]


def _openblas_controllers() -> list:
    """threadpoolctl's controllers of the OpenBLAS libraries loaded in this process, in load order ([] when none)."""
    return ThreadpoolController().select(internal_api="openblas").lib_controllers


def openblas_libraries() -> list[ctypes.CDLL]:
    """The OpenBLAS libraries loaded in this process as ``ctypes`` libraries (found by threadpoolctl; opening one
    again only adds a reference), or [] (another BLAS)."""
    return [lc.dynlib for lc in _openblas_controllers()]


_OPENBLAS: list = []


def _set_threads(lc):
    """A setter of the thread count of OpenBLAS controller ``lc`` that gives threadpoolctl's ownership of the
    process-wide setting back after each call (see the module docstring)."""
    def set_(n: int) -> None:
        lc.set_num_threads(n)
        type(lc).clear_controlling_thread()
    return set_


def _openblas():
    """(get, set, shutdown) for the OpenBLAS numpy loaded (the first one threadpoolctl finds; shutdown: its
    ``blas_thread_shutdown_``, or None), or None (another BLAS). Looked up once per process."""
    if _OPENBLAS:
        return _OPENBLAS[0]
    api = None
    for lc in _openblas_controllers():
        if api is None and lc.get_num_threads() is not None:
            api = (lc.get_num_threads, _set_threads(lc), getattr(lc.dynlib, "blas_thread_shutdown_", None))
    _OPENBLAS.append(api)
    return api


# --- LAPACK's pivoted Cholesky from the same library ---------------------------------------------------------------

_LAPACK_COL_MAJOR = 102
_DPSTRF: list = []


def lapack_dpstrf():
    """LAPACKE_dpstrf of the OpenBLAS numpy loaded, with 64-bit integers (the symbols of an ILP64 build end in 64_,
    like scipy-openblas64's ``scipy_LAPACKE_dpstrf64_``), or None (another BLAS, an LP64 build).
    Looked up once per process, then tried on a 4 x 4 matrix whose pivots and rank are known: a library that does
    not reproduce them is not used."""
    if _DPSTRF:
        return _DPSTRF[0]
    found = None
    for lib in openblas_libraries():
        for name in ("scipy_LAPACKE_dpstrf64_", "LAPACKE_dpstrf64_"):
            f = getattr(lib, name, None)
            if f is not None and found is None:
                i64 = ctypes.c_int64
                f.argtypes = [ctypes.c_int, ctypes.c_char, i64, ctypes.c_void_p, i64, ctypes.c_void_p,
                              ctypes.POINTER(i64), ctypes.c_double]
                f.restype = i64
                found = f
    if found is not None:
        # the 4 x 4 G = V V^T of rank 3, rows v0 = (1, 0, 0), v1 = (0, 2, 0), v2 = (0, 0, 3), v3 = v0 + 2 v1:
        # squared norms 1, 4, 9, 17;
        # pivots v3, v2, then v0 (residual 272/289 against v1's 68/289), then v1's residual is 0: rank 3
        V = np.array([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0], [1.0, 4.0, 0.0]])
        G = np.asfortranarray(V @ V.T)
        piv, rank = np.zeros(4, dtype=np.int64), ctypes.c_int64(0)
        info = found(_LAPACK_COL_MAJOR, b"L", 4, G.ctypes.data, 4, piv.ctypes.data, ctypes.byref(rank), 1e-9)
        if not (info >= 0 and rank.value == 3 and piv[:3].tolist() == [4, 3, 1]):
            found = None
    _DPSTRF.append(found)
    return found


def lapack_pivoted_cholesky(S: np.ndarray, tol: float) -> list[int] | None:
    """The pivots of LAPACK's ``dpstrf`` on the symmetric positive semidefinite float64 matrix ``S`` (column-major or
    symmetric contiguous; overwritten), stopping when every residual diagonal entry is at most ``tol``: indices from
    0, in the order taken. None when :func:`lapack_dpstrf` found no usable routine or LAPACK refused an argument
    (nothing is then known about the pivots)."""
    dpstrf = lapack_dpstrf()
    if dpstrf is None:
        return None
    m = S.shape[0]
    piv = np.zeros(m, dtype=np.int64)
    rank = ctypes.c_int64(0)
    info = dpstrf(_LAPACK_COL_MAJOR, b"L", m, S.ctypes.data, m, piv.ctypes.data, ctypes.byref(rank), tol)
    if info < 0:
        return None
    return (piv[:rank.value] - 1).tolist()  # LAPACK counts from 1


# --- BLAS's in-place updates: C <- C - A B and y <- y + a x -------------------------------------------------------

class UpdateKernels:
    """``gemm_sub(A, B, C)``: C <- C - A B, and ``axpy(a, x, y)``: y <- y + a x, in place on float64 arrays.

    With ``blas`` (OpenBLAS's ``cblas_dgemm`` with beta = 1 and ``cblas_daxpy``, through ctypes, which releases the
    GIL): no temporary and no separate elementwise pass, for column-major (Fortran-contiguous) operands whose memory
    cannot overlap C or y (``np.may_share_memory``: bounds only, a microsecond); other layouts, possibly overlapping
    operands, and ``blas=None``, take numpy (a product or a scaled copy, then a subtraction). On
    integers the result is exact whenever every partial sum of the terms (C's entry included) is an integer below
    2^53, in any summation order (a classical dgemm, as :func:`~theorems.exact.padic_rank.blas_is_exact` checks for
    numpy's products; :func:`update_kernels` checks these two calls the same way)."""

    def __init__(self, blas=None):
        self.blas = blas   # (dgemm, daxpy) ctypes functions, or None

    def gemm_sub(self, A: np.ndarray, B: np.ndarray, C: np.ndarray) -> None:
        m, k = A.shape
        n = B.shape[1]
        if (self.blas is None or not (A.flags.f_contiguous and B.flags.f_contiguous and C.flags.f_contiguous
                                      and C.flags.writeable) or A.dtype != np.float64 or B.dtype != np.float64
                or C.dtype != np.float64 or B.shape[0] != k or C.shape != (m, n) or m == 0 or n == 0 or k == 0
                or np.may_share_memory(C, A) or np.may_share_memory(C, B)):
            np.subtract(C, A @ B, out=C)
            return
        self.blas[0](_CBLAS_COL_MAJOR, _CBLAS_NO_TRANS, _CBLAS_NO_TRANS, m, n, k, -1.0, A.ctypes.data, m,
                     B.ctypes.data, k, 1.0, C.ctypes.data, m)

    def axpy(self, a: float, x: np.ndarray, y: np.ndarray) -> None:
        if (self.blas is None or x.shape != y.shape or not (x.flags.f_contiguous and y.flags.f_contiguous
                                                            and y.flags.writeable)
                or x.dtype != np.float64 or y.dtype != np.float64 or y.size == 0 or np.may_share_memory(x, y)):
            np.add(y, a * x, out=y)
            return
        self.blas[1](y.size, float(a), x.ctypes.data, 1, y.ctypes.data, 1)


_CBLAS_COL_MAJOR, _CBLAS_NO_TRANS = 102, 111
_KERNELS: list = []


def update_kernels() -> UpdateKernels:
    """The :class:`UpdateKernels` of this process: OpenBLAS's ``cblas_dgemm`` and ``cblas_daxpy`` (64-bit integers,
    as numpy's scipy-openblas64 names them) when found and when they reproduce exact integer results near 2^53
    (a product whose partial sums reach about 2^52 added to a matrix of such integers, checked against numpy's exact
    int64 arithmetic, and an axpy of the same size), else numpy's. Looked up and checked once per process."""
    if _KERNELS:
        return _KERNELS[0]
    found = None
    for lib in openblas_libraries():
        for prefix in ("scipy_", ""):
            gemm, axpy = getattr(lib, prefix + "cblas_dgemm64_", None), getattr(lib, prefix + "cblas_daxpy64_", None)
            if found is None and gemm is not None and axpy is not None:
                i64, dbl, ptr = ctypes.c_int64, ctypes.c_double, ctypes.c_void_p
                gemm.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, i64, i64, i64, dbl, ptr, i64, ptr, i64,
                                 dbl, ptr, i64]
                gemm.restype = None
                axpy.argtypes = [i64, dbl, ptr, i64, ptr, i64]
                axpy.restype = None
                found = (gemm, axpy)
    kernels = UpdateKernels(found)
    if found is not None and not kernels_are_exact(kernels):
        kernels = UpdateKernels(None)
    _KERNELS.append(kernels)
    return kernels


def kernels_are_exact(kernels: UpdateKernels) -> bool:
    """Do the kernels' gemm_sub and axpy give exact integer results with partial sums near 2^52?"""
    g = np.random.default_rng(12345)
    k = 96
    bound = int((2 ** 51 / k) ** 0.5)
    A = g.integers(-bound, bound + 1, size=(80, k))
    B = g.integers(-bound, bound + 1, size=(k, 70))
    C = g.integers(-2 ** 51, 2 ** 51, size=(80, 70))
    A[0], B[:, 0], C[0, 0] = bound, bound, -2 ** 51  # one entry with partial sums up to about 2^52
    Cf = np.asfortranarray(C.astype(np.float64))
    kernels.gemm_sub(np.asfortranarray(A.astype(np.float64)), np.asfortranarray(B.astype(np.float64)), Cf)
    x, y = g.integers(-2 ** 20, 2 ** 20, size=(80, 70)), g.integers(-2 ** 51, 2 ** 51, size=(80, 70))
    yf = np.asfortranarray(y.astype(np.float64))
    kernels.axpy(-float(2 ** 31 - 1), np.asfortranarray(x.astype(np.float64)), yf)
    return bool(np.array_equal(Cf.astype(np.int64), C - A @ B)
                and np.array_equal(yf.astype(np.int64), y - (2 ** 31 - 1) * x))


# --- OpenBLAS's idle workers and the thread count -----------------------------------------------------------------

def _parking_is_safe() -> bool:
    """No Python thread but the calling one and the pool's exists, and no work of the pool's is in flight (queued or
    running): then no thread of this process is inside a BLAS call but the caller."""
    me = threading.current_thread()
    if any(t is not me and not t.name.startswith(LIFT_POOL_PREFIX) for t in threading.enumerate()):
        return False
    with _INFLIGHT_LOCK[0]:
        return _INFLIGHT[0] == 0


def park_blas_workers() -> bool:
    """End OpenBLAS's worker threads, which spin for about 0.1 s after every multi-threaded BLAS call (2^28 cycles,
    OpenBLAS's THREAD_TIMEOUT) and would take a core from the lifting's threads: a certified rank called just after
    numpy's ``matrix_rank`` took 0.19-0.20 s against 0.16 s (512 x 768, rank 300, measured 2026-12-04, fourth
    session). OpenBLAS starts them again at its next multi-threaded call or its next change of the thread count
    (its server is started anew, as after a fork: OpenBLAS's own fork handler ends them the same way).

    Only inside :class:`single_threaded_blas` (OpenBLAS at one thread: nothing this process computes needs the
    workers), only when no Python thread but the calling one and the pool exists (another one could be
    inside a multi-threaded BLAS call, whose workers' end would hang it) and only when no work is on the pool.
    Threads made by C code are not seen: a program whose native threads call OpenBLAS while it computes a
    certified rank should not call it (single_threaded_blas already sets one BLAS thread for the whole process).
    IPython (its history thread) and Jupyter kernels always run other threads: there it always refuses. Returns
    whether it ended them (False: not OpenBLAS, no such function, more than one thread set, another thread alive or
    pool work in flight). Speed only: no result depends on it."""
    api = _openblas()
    return api is not None and api[0]() == 1 and _end_workers(api)


def _end_workers(api) -> bool:
    """OpenBLAS's ``blas_thread_shutdown_`` when it exists and :func:`_parking_is_safe`; whether it was called."""
    if api[2] is None or not _parking_is_safe():
        return False
    api[2]()
    _PARKED[0] += 1
    return True


class single_threaded_blas:
    """One BLAS thread inside the block: on this 2-core machine, shared with other jobs, the p-adic
    lifting ran 5x faster on one thread than on two (0.7-0.9 s against 3.7-5.2 s at load 3); the
    results do not depend on it (the lifting is exact in any summation order). The lifting itself
    runs column blocks on ``LIFT_THREADS`` Python threads inside this block. A block entered at one thread leaves
    OpenBLAS alone (nested blocks; and setting the count would start the workers :func:`park_blas_workers` ended).
    When :func:`park_blas_workers` ended the workers inside the block, restoring the count starts them again, idle
    and spinning for 0.1 s: the block then ends them once more (when that is still safe), so that they start only
    when the caller next asks OpenBLAS for more than one thread. (OpenBLAS's set_num_threads starts an ended server
    even when it sets one thread, so the next block's entry starts them again; they are not ended there: that cost
    a small call 0.2-0.6 ms of its 12 ms (384 x 384, measured 2026-12-04), a small call runs on one thread beside
    them, and a large one's pool ends them before its work.) A count the block could not set (another Python
    thread owns it through threadpoolctl) is left alone, in and after the block."""

    def __enter__(self):
        self.api = _openblas()
        self.before = self.api[0]() if self.api is not None else 1
        self.parked = _PARKED[0]
        if self.before != 1:
            self.api[1](1)
            if self.api[0]() != 1:  # threadpoolctl gave the setting to another thread: leave it to that one
                self.before = 1
        return self

    def __exit__(self, *exc):
        if self.before != 1:
            self.api[1](self.before)
            if _PARKED[0] != self.parked:
                _end_workers(self.api)
        return False


# --- the pool ------------------------------------------------------------------------------------------------------

_EXECUTOR: list = []
#: the name prefix of the pool's threads (park_blas_workers counts them as this module's)
LIFT_POOL_PREFIX = "padic-lift"
#: work submitted to the pool by :func:`submit` and not yet ended, under its lock (park_blas_workers waits for 0)
_INFLIGHT = [0]
_INFLIGHT_LOCK = [threading.Lock()]
#: how many times park_blas_workers ended OpenBLAS's workers in this process (single_threaded_blas reads it)
_PARKED = [0]


def _forget_pool_after_fork() -> None:
    """A child made by fork (multiprocessing's default start on Linux before Python 3.14, mutmut's runner) inherits
    the pool object but not its threads: work submitted there would wait forever. The child forgets the pool (and
    the parent's work in flight, and a lock another thread may have held) and makes its own."""
    _EXECUTOR.clear()
    _INFLIGHT[0] = 0
    _INFLIGHT_LOCK[0] = threading.Lock()


os.register_at_fork(after_in_child=_forget_pool_after_fork)


def _executor(nt: int) -> ThreadPoolExecutor:
    """A process-wide pool of nt worker threads (created once per process; threads idle between calls; a forked
    child starts without one)."""
    if not _EXECUTOR or _EXECUTOR[0][0] != nt:
        _EXECUTOR[:] = [(nt, ThreadPoolExecutor(max_workers=nt, thread_name_prefix=LIFT_POOL_PREFIX))]
    return _EXECUTOR[0][1]


def _ended() -> None:
    with _INFLIGHT_LOCK[0]:
        _INFLIGHT[0] -= 1


def _counted(fn, args):
    """fn(*args) on a pool thread; the task leaves the count in flight before its future is done (a done-callback
    runs after the future's waiters are woken: a caller could see its result and still a count of 1)."""
    try:
        return fn(*args)
    finally:
        _ended()


def _ended_unrun(future) -> None:
    if future.cancelled():  # never ran: _counted did not end it
        _ended()


def submit(nt: int, fn, *args):
    """fn(*args) on the pool of nt threads, counted in flight until it ends; OpenBLAS's idle workers are
    ended first when that is safe (:func:`park_blas_workers`: they would spin on a core the pool needs).

    An error or an interruption (Ctrl-C) inside ``submit`` keeps the count: it may come after the task is queued
    (``ThreadPoolExecutor.submit`` queues the task before it starts a thread), and the task would then leave the
    count itself. At worst the count stays above the tasks in flight and parking refuses from then on (safe, only
    slower)."""
    park_blas_workers()
    ex = _executor(nt)
    with _INFLIGHT_LOCK[0]:
        _INFLIGHT[0] += 1
    fut = ex.submit(_counted, fn, args)
    fut.add_done_callback(_ended_unrun)
    return fut
