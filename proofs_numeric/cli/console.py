"""The streams the command line writes to, prepared once by :func:`proofs_numeric.cli.main` for every subcommand.

* **A closed pipe is a normal end** (``collapse-verify show RN.main | head -3``): the reader has what it wanted, so
  the command ends at once, silently, with exit 0, as every Unix tool does (:func:`closed_pipe`); the final flush
  of the output happens inside ``main`` (:func:`flush`), so a reader that has gone is noticed there and not by the
  interpreter at exit.
* **A terminal that cannot show a character gets an ASCII spelling instead of a crash**
  (``PYTHONIOENCODING=ascii``, a ``C`` locale): :func:`prepare_streams` installs the error handler
  :data:`ERRORS` on ``sys.stdout`` and ``sys.stderr`` when their encoding cannot write the suite's characters, and
  the handler spells each character it cannot encode in ASCII (:func:`ascii_spelling`: ``§`` -> ``Sec.``, curly
  quotes -> straight ones, ``α`` -> ``alpha``, ``≤`` -> ``<=``, ...). Every ``print`` and every rich console writes
  through these streams, so no subcommand has its own fallback (rich draws its tables with ASCII boxes on such a
  stream by itself).
* **One kind of rich console** (:func:`terminal`): as wide as the terminal (or ``COLUMNS``), never wider, and a
  closed pipe raises :class:`BrokenPipeError` for ``main`` (rich's own default exits 1 instead).
"""
from __future__ import annotations

import codecs
import os
import sys
import unicodedata

__all__ = ["terminal", "table", "print_table", "short_labels", "prepare_streams", "flush", "closed_pipe",
           "is_closed_pipe", "ascii_spelling", "ERRORS", "SPELLING"]

#: the name of the codec error handler that spells a character in ASCII
ERRORS = "collapse_verify_ascii"

#: characters the suite prints, spelled in ASCII (everything else: :func:`ascii_spelling`'s rules)
SPELLING = {
    "§": "Sec. ", "¶": "para. ", "“": '"', "”": '"', "„": '"', "‘": "'", "’": "'", "‚": "'", "«": '"', "»": '"',
    "—": "--", "–": "-", "−": "-", "‐": "-", "‑": "-", "…": "...", "·": "*", "•": "*", "×": "x", "÷": "/",
    "≤": "<=", "≥": ">=", "⩽": "<=", "⩾": ">=", "≠": "!=", "≈": "~=", "≡": "==", "±": "+/-", "∓": "-/+",
    "→": "->", "←": "<-", "↦": "|->", "⇒": "=>", "⇐": "<=", "⇔": "<=>", "↔": "<->", "⟹": "=>", "⟺": "<=>",
    "∈": " in ", "∉": " not in ", "∋": " contains ", "⊆": " subseteq ", "⊂": " subset ", "⊇": " supseteq ",
    "⊃": " supset ", "∪": " cup ", "∩": " cap ", "∅": "{}", "∞": "inf", "∀": "for all ", "∃": "exists ",
    "∧": " and ", "∨": " or ", "¬": "not ", "√": "sqrt", "∑": "sum", "∏": "prod", "∫": "int", "∂": "d",
    "∇": "nabla", "⊗": " (x) ", "⊕": " (+) ", "⊥": "_|_", "∥": "||", "∘": " o ", "⟨": "<", "⟩": ">",
    "‖": "||", "°": " deg", "′": "'", "″": "''", "✓": "ok", "✔": "ok", "✗": "x", "✘": "x", "€": "EUR",
    "\u00a0": " ", "\u2009": " ", "\u202f": " ", "\u200b": "",
}
_SUPER = {"SUPERSCRIPT": "^", "SUBSCRIPT": "_"}
_DIGITS = {"ZERO": "0", "ONE": "1", "TWO": "2", "THREE": "3", "FOUR": "4", "FIVE": "5", "SIX": "6", "SEVEN": "7",
           "EIGHT": "8", "NINE": "9", "MINUS": "-", "PLUS": "+", "EQUALS SIGN": "=", "LATIN SMALL LETTER I": "i",
           "LATIN SMALL LETTER N": "n", "LATIN SMALL LETTER T": "T", "LATIN CAPITAL LETTER T": "T"}


def ascii_spelling(ch: str) -> str:
    """One character in ASCII: :data:`SPELLING`; a Greek letter by its name (``α`` -> ``alpha``, ``Δ`` -> ``Delta``);
    a superscript or subscript as ``^2`` / ``_2``; a letter with accents without them (``é`` -> ``e``); anything else
    by its Unicode name in angle brackets (``<circled plus>``), or ``?`` if it has none.

    >>> "".join(ascii_spelling(c) for c in "§4 “x” α≤β")
    'Sec. 4 "x" alpha<=beta'
    >>> "".join(ascii_spelling(c) for c in "┌─┬│")
    '+-+|'
    """
    if ch.isascii():
        return ch
    if ch in SPELLING:
        return SPELLING[ch]
    name = unicodedata.name(ch, "")
    for word, mark in _SUPER.items():
        if name.startswith(word + " "):
            rest = name[len(word) + 1:]
            return mark + _DIGITS.get(rest, rest.lower())
    if name.startswith(("GREEK SMALL LETTER ", "GREEK CAPITAL LETTER ", "MATHEMATICAL ITALIC SMALL ",
                        "MATHEMATICAL ITALIC CAPITAL ")):
        word = name.split(" ", 3)[3].split(" ")[0].lower()
        return word.capitalize() if "CAPITAL" in name else word
    if name.startswith("BOX DRAWINGS "):  # a rule, or a corner or junction of one
        if " AND " not in name and name.endswith("HORIZONTAL"):
            return "-"
        if " AND " not in name and name.endswith("VERTICAL"):
            return "|"
        return "+"
    plain = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode("ascii")
    if plain:
        return plain
    return f"<{name.lower()}>" if name else "?"


def _spell(err: UnicodeError) -> tuple[str, int]:
    if not isinstance(err, UnicodeEncodeError):
        raise err
    return "".join(ascii_spelling(c) for c in err.object[err.start:err.end]), err.end


codecs.register_error(ERRORS, _spell)

#: characters the suite's output holds: a stream that cannot encode them gets the ASCII spelling
_PROBE = "§“”‘’—–…≤≥≠αβγΔ×→∈"


def _cannot_write(stream) -> bool:
    enc = getattr(stream, "encoding", None)
    if not enc:
        return False
    try:
        _PROBE.encode(enc)
    except (UnicodeEncodeError, LookupError):
        return True
    return False


def prepare_streams() -> None:
    """Give ``sys.stdout`` and ``sys.stderr`` the ASCII spelling (:data:`ERRORS`) when their encoding cannot write
    the suite's characters (an ASCII or Latin-1 terminal); a stream that can is left as it is."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None and _cannot_write(stream) and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors=ERRORS)
            except (ValueError, OSError):  # a closed or detached stream: nothing to prepare
                pass


def is_closed_pipe(e: BaseException | None) -> bool:
    """True if ``e``, or an exception it was raised from or while handling, is a closed pipe (EPIPE)."""
    seen = set()
    while e is not None and id(e) not in seen:
        if isinstance(e, BrokenPipeError):
            return True
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return False


def flush() -> None:
    """The final flush of ``sys.stdout`` and ``sys.stderr``, inside ``main`` (a closed pipe raises here, where
    ``main`` handles it, not in the interpreter's exit)."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()


def closed_pipe() -> int:
    """The reader of the output has gone: end silently with exit 0. Whatever is still buffered for it is dropped (the
    standard output is pointed at ``os.devnull``, so the interpreter's own flush at exit finds nothing to fail on)."""
    for k, stream in enumerate((sys.stdout, sys.stderr)):
        if stream is None:
            continue
        if k:  # the standard error is left alone unless it is the closed pipe too (`2>&1 | head`)
            try:
                stream.flush()
                continue
            except (BrokenPipeError, ValueError):
                pass
        try:
            fd = stream.fileno()
        except (AttributeError, OSError, ValueError):  # not a real file (a test's capture): nothing to redirect
            continue
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, fd)
            os.close(devnull)
        except OSError:
            pass
    return 0


_TERMINAL_CLASS = None


def terminal(*, stderr: bool = False, width: int | None = None, file=None, highlight: bool = False):
    """A rich console for the command line's output: the terminal's width (``COLUMNS`` when set, 80 when the output
    is not a terminal) unless ``width`` is given; a closed pipe raises :class:`BrokenPipeError` (a normal end,
    handled once in ``main``), where rich would exit 1."""
    global _TERMINAL_CLASS
    if _TERMINAL_CLASS is None:
        from rich.console import Console  # lazy: rich only when printing (CLI start-up time)

        class Terminal(Console):
            def on_broken_pipe(self) -> None:
                self.quiet = True
                raise BrokenPipeError

        _TERMINAL_CLASS = Terminal
    return _TERMINAL_CLASS(stderr=stderr, width=width, file=file, highlight=highlight)


def table(title: str | None = None, caption: str | None = None):
    """A rich table that fits the terminal: light rules, one space between columns, no outer border; the title and
    caption wrap; columns added with ``overflow="fold"`` wrap within the width instead of widening the table."""
    from rich import box
    from rich.table import Table

    return Table(title=title, caption=caption, box=box.SIMPLE_HEAD, padding=(0, 1), show_edge=False,
                 title_justify="left", caption_justify="left", collapse_padding=True)


def short_labels(paths) -> dict[str, str]:
    """For each path, its shortest final part that no other path of ``paths`` ends with (``runA/ckpt`` and
    ``runB/ckpt``, not ``ckpt`` twice); a path that is a suffix of another keeps its whole spelling.

    >>> short_labels(["/x/runA/ckpt", "/x/runB/ckpt", "/y/other"])
    {'/x/runA/ckpt': 'runA/ckpt', '/x/runB/ckpt': 'runB/ckpt', '/y/other': 'other'}
    """
    from pathlib import PurePath

    parts = {str(p): PurePath(str(p)).parts for p in paths}
    out = {}
    for p, ps in parts.items():
        label = p
        for k in range(1, len(ps) + 1):
            tail = ps[-k:]
            if not any(q != p and qs[-k:] == tail for q, qs in parts.items()):
                label = str(PurePath(*tail))
                break
        out[p] = label
    return out


def print_table(console, t, key_columns: int = 1) -> None:
    """Print ``t`` as a table when it fits the console with every cell whole (headers may wrap at their spaces);
    otherwise as one wrapped line per row (its first ``key_columns`` cells, then each other column as
    ``header value``), so no number and no word is cut to fit a narrow terminal."""
    from rich.cells import cell_len
    from rich.markup import escape
    from rich.measure import Measurement

    from proofs_numeric.ledger.render import wrap_tex

    for col in t.columns:  # as wide as its widest cell and its header's longest word, and the padding: nothing is cut
        col.width = 1 + max([1, *(cell_len(str(x)) for x in col.cells), *map(cell_len, str(col.header).split())])
    if Measurement.get(console, console.options.update_width(10 ** 6), t).maximum <= console.width:
        console.print(t)
        return
    if t.title:
        console.print(escape(str(t.title)))
    cols = t.columns
    cells = [list(c.cells) for c in cols]
    for i in range(t.row_count):
        key = ", ".join(f"{cols[k].header} {cells[k][i]}" if str(cols[k].header) == "n" else str(cells[k][i])
                        for k in range(min(key_columns, len(cols))))
        rest = "; ".join(f"{cols[k].header} {cells[k][i]}" for k in range(key_columns, len(cols)))
        for line in wrap_tex(f"{key}: {rest}", console.width, "  ", "      "):
            console.print(escape(line), soft_wrap=True)
    if t.caption:
        console.print(escape(str(t.caption)))
