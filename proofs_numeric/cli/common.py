"""What every subcommand shares: versions, wrapping, the import-error report, the input-reading help text."""
from __future__ import annotations

import re
import sys
import textwrap
from importlib.metadata import PackageNotFoundError, version

import flint
import mpmath
import numpy
import sympy

import theorems  # every claim module is imported here; one that fails is skipped and listed in IMPORT_ERRORS
from proofs_numeric.cli.inputs import limits_text

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


#: commands whose argument may follow after a space (``\\mathbf 1``): a line never breaks between the two
_ARGUMENT_COMMANDS = ("mathbf", "mathrm", "mathit", "mathcal", "mathbb", "mathsf", "mathtt", "boldsymbol", "bm",
                      "bar", "hat", "tilde", "vec", "dot", "overline", "underline", "sqrt", "frac", "text")


def _tex_tokens(text: str) -> list[str]:
    r"""Words of ``text`` split at the spaces where a line may break: outside every ``{...}`` group and not after a
    backslash (``\ `` is TeX's control space), so ``\operatorname{arank}`` or ``\text{so H4}`` is never cut."""
    out: list[str] = []
    cur: list[str] = []
    depth, prev = 0, ""
    for ch in text:
        if ch.isspace() and depth == 0 and prev != "\\":
            if cur:
                out.append("".join(cur))
                cur = []
            prev = ch
            continue
        if ch == "{" and prev != "\\":
            depth += 1
        elif ch == "}" and prev != "\\" and depth:
            depth -= 1
        cur.append(ch)
        prev = ch if not (ch == "\\" and prev == "\\") else ""
    if cur:
        out.append("".join(cur))
    merged: list[str] = []  # a font or accent command keeps its argument ("\\mathbf 1"): no break between them
    for tok in out:
        if merged and re.search(r"\\(?:%s)$" % "|".join(_ARGUMENT_COMMANDS), merged[-1]):
            merged[-1] += " " + tok
        else:
            merged.append(tok)
    return merged


def _split_long(tok: str, room: int) -> list[str]:
    """A word longer than a line, cut where TeX would not mind: before a command or after ``=``, ``,``, ``)``
    outside braces; mid-word only if nothing else fits."""
    pieces = []
    while len(tok) > room:
        cut, depth = 0, 0
        for i, ch in enumerate(tok[:room + 1]):
            if ch == "{" and (i == 0 or tok[i - 1] != "\\"):
                depth += 1
            elif ch == "}" and (i == 0 or tok[i - 1] != "\\") and depth:
                depth -= 1
            if depth == 0 and i > 0:
                if ch == "\\" and tok[i - 1] != "\\" and tok[i - 1] != " ":
                    cut = i
                elif ch in "=,)+" and i + 1 <= room:
                    cut = i + 1
        if cut <= 0:
            cut = room
        pieces.append(tok[:cut])
        tok = tok[cut:]
    return pieces + ([tok] if tok else [])


def wrap_tex(text: str, width: int, first: str = "", indent: str = "  ") -> list[str]:
    r"""Wrap text that may hold LaTeX: breaks only at spaces outside ``{...}`` (never inside ``\command{...}``),
    continuation lines indented by ``indent``; no line wider than ``width``."""
    lines, cur, fresh = [], first, True  # fresh: nothing but the indent on the current line
    room = max(8, width - len(indent))
    for tok in _tex_tokens(str(text)):
        sep = "" if fresh else " "
        if len(cur) + len(sep) + len(tok) <= width:
            cur, fresh = cur + sep + tok, False
            continue
        left = width - len(cur) - len(sep)
        if len(tok) > room and left >= 20:  # a long formula starts on this line, cut where TeX allows
            head = _split_long(tok, left)[0]
            cur, tok = cur + sep + head, tok[len(head):]
            fresh = False
        pieces = _split_long(tok, room) if len(tok) > room else [tok]
        if not fresh:
            lines.append(cur.rstrip())
            cur = indent
        for k, piece in enumerate(pieces):
            if k:
                lines.append(cur.rstrip())
                cur = indent
            cur += piece
        fresh = False
    lines.append(cur.rstrip())
    return lines


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

