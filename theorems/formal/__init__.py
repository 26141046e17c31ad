r"""Formal proofs in Coq + Mathematical Components: the lemma table and its runner.

The ``.v`` files beside this package state and prove, in MathComp notation over an arbitrary field (a real closed
field where order or square roots matter; MathComp-Analysis's ``realType`` only where a statement needs the real
exponential ``expR`` itself), the statements the suite calls ``formal``. Two modules:

* :mod:`theorems.formal.lemmas` -- the lemma table (data): :data:`LEMMAS`, one row per lemma and claim (or
  reading) it supports, and :data:`PENDING`;
* :mod:`theorems.formal.runner` -- the runner (stdlib only): compiles the ``.v`` files into ``_build/``, asks Coq
  ``About`` and ``Print Assumptions``, and applies the axiom policy (:data:`ALLOWED_AXIOMS`).

This package re-exports both, so ``from theorems.formal import check, LEMMAS`` keeps working. Run as a script
(``python3 theorems/formal/__init__.py``, what ``make formal`` does) it needs no virtualenv.
"""
from __future__ import annotations

import sys

if __package__:
    from .lemmas import LEMMAS, LOGICAL_ROOT, PENDING, FormalLemma, lemmas_for
    from .runner import (
        ALLOWED_AXIOMS,
        AXIOM_WORDS,
        FORBIDDEN_WORDS,
        NO_ANALYSIS,
        NO_MATHCOMP,
        NOT_INSTALLED,
        SOURCE_DIR,
        STATEMENTS_FILE,
        FormalResult,
        analysis_available,
        axiom_words,
        build_dir,
        cancel_check,
        check,
        clear_check_cache,
        compile_cost,
        compile_sources,
        coq_version,
        critical_path_order,
        load_statements,
        main,
        mathcomp_available,
        parse_assumptions,
        pin,
        results_path,
        scan_forbidden,
        start_check,
        statement_of,
        statements_path,
        strip_comments,
        write_statements,
    )

    __all__ = ["FormalLemma", "FormalResult", "LEMMAS", "PENDING", "SOURCE_DIR", "FORBIDDEN_WORDS",
               "ALLOWED_AXIOMS", "AXIOM_WORDS", "axiom_words", "parse_assumptions", "coq_version",
               "mathcomp_available", "build_dir", "check", "clear_check_cache", "compile_sources", "scan_forbidden",
               "lemmas_for", "main", "analysis_available", "NO_ANALYSIS", "NO_MATHCOMP", "NOT_INSTALLED",
               "results_path", "strip_comments", "LOGICAL_ROOT", "STATEMENTS_FILE", "statement_of",
               "statements_path", "load_statements", "write_statements", "pin", "start_check", "cancel_check",
               "compile_cost", "critical_path_order"]

if __name__ == "__main__":  # python3 theorems/formal/__init__.py: this folder is sys.path[0]
    from runner import main as _main

    sys.exit(_main(sys.argv[1:]))
