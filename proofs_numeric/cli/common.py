"""What every subcommand shares: versions, wrapping, the import-error report, the input-reading help text."""
from __future__ import annotations

import sys
import textwrap
from importlib.metadata import PackageNotFoundError, version

import flint
import mpmath
import numpy
import sympy

import theorems  # every claim module is imported here; one that fails is skipped and listed in IMPORT_ERRORS
from proofs_numeric.cli.inputs import limits_text
from proofs_numeric.ledger.render import wrap_tex  # re-exported: one TeX-aware wrapper for every command

__all__ = ["version_text", "wrap_plain", "wrap_tex", "report_import_errors", "READING", "EPILOG"]


def version_text() -> str:
    try:
        v = version("collapse-verify")
    except PackageNotFoundError:
        v = "source"
    gt = theorems.SYMPY_GROUND_TYPES
    warn = "" if gt == "flint" else "  (WARNING: not flint; exact algebra in sympy will be slow)"
    return (f"collapse-verify {v}\n"
            f"sympy {sympy.__version__} (ground types: {gt}){warn}\n"
            f"python-flint {flint.__version__}\nmpmath {mpmath.__version__}\nnumpy {numpy.__version__}")


def report_import_errors() -> bool:
    """Theorem modules that failed to import (skipped): named on stderr; True if there are any."""
    errs = getattr(theorems, "IMPORT_ERRORS", {})
    for name, err in errs.items():
        print(f"collapse-verify: error: {name} failed to import and was skipped ({err})",
              file=sys.stderr)
    return bool(errs)


def wrap_plain(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width=width, break_long_words=True) or [""]


READING = """how MATRIX / VEC is read:
  text starting with '[' is JSON; otherwise a path. A file starting with the .npy magic (or named
  *.npy) is read as .npy, any other regular file as JSON text (devices, FIFOs, /proc refused).
  JSON: integers exact; decimals read as the exact decimal fractions they spell (0.1 = 1/10, not
  the double nearest to it); strings "p/q" and "0.25" exact; NaN, Infinity, booleans refused.
  .npy: bool (0/1), every int and uint width (uint64 >= 2^63 exact), either byte order; float16,
  float32, float64 and long double taken as the exact dyadic rationals they store, at their own
  precision; object (needs pickle), complex, structured arrays, NaN and inf refused.
  The output says how the input was read. Limits: integers up to MAX_INT_DIGITS digits, decimal
  exponents up to MAX_EXPONENT, JSON text up to JSON_MAX_BYTES (see `collapse-verify --help`)."""


EPILOG = ("Exit codes: 0 success (a refuted claim is a result); 1 the suite itself failed; 2 bad input;\n"
          "130 interrupted (Ctrl-C or SIGTERM; `check --model` keeps every record written and prints the\n"
          "command that resumes it).\n\n"
          "limits (change with the environment variable COLLAPSE_VERIFY_<NAME>=value):\n" + limits_text())

