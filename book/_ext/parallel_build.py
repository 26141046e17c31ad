"""``make book``: ``jupyter-book build`` with Sphinx reading, and so executing, the pages in parallel.

Jupyter Book 1's command line has no ``-j``; its ``build_sphinx`` takes ``jobs``. This runs the same command
(``python book/_ext/parallel_build.py build -W -n --keep-going book/``, any ``jupyter-book`` arguments) with
``jobs`` set: ``BOOK_JOBS`` (default: the number of CPUs). Every extension the book uses (myst-nb, sphinx-proof, the
book theme, ``offline_assets``, which declares the three that do not say and explains why that is safe) declares
itself parallel-safe; each page still runs in its own kernel, start to end, as ``jupyter-book build`` runs it.
Sphinx hands each process a batch of about a third of the pages in alphabetical order, so one batch holding the
slowest pages decides the time; here each page is its own batch, taken by the next free process.

With more than one process, each page's kernel computes with one BLAS / OpenMP thread (``OPENBLAS_NUM_THREADS``,
``OMP_NUM_THREADS``, ``MKL_NUM_THREADS`` = 1 unless you set them): two pages each starting two BLAS threads on two cores
made the related-work page (128 SVDs of up to 512 x 512) take 13.8 s instead of 2.5 s, and ``make book`` after
``make verify`` 45 s instead of 33 s (measured 2026-12-02). Results do not depend on it.
"""
from __future__ import annotations

import functools
import os
import sys


def jobs() -> int:
    env = os.environ.get("BOOK_JOBS", "")
    if env:
        if not env.isdigit() or int(env) < 1:
            sys.exit(f"BOOK_JOBS={env!r}: give a positive whole number of processes (unset: one per CPU)")
        return int(env)
    return max(1, os.cpu_count() or 1)


#: thread counts the kernels inherit when pages run in parallel (each is set only if the caller did not set it)
ONE_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def main(argv: list[str] | None = None) -> int:
    import jupyter_book.sphinx as jbs  # lazy: only when building
    import sphinx.builders  # lazy: only when building
    from jupyter_book.cli.main import main as jupyter_book

    n = jobs()
    if n > 1:  # the kernels inherit this process's environment
        for var in ONE_THREAD:
            os.environ.setdefault(var, "1")
    jbs.build_sphinx = functools.partial(jbs.build_sphinx, jobs=n)
    sphinx.builders.make_chunks = lambda docnames, nproc, maxbatch=10: [[d] for d in docnames]
    try:
        jupyter_book.main(args=sys.argv[1:] if argv is None else argv, prog_name="jupyter-book")
    except SystemExit as e:
        return int(e.code or 0) if not isinstance(e.code, str) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
