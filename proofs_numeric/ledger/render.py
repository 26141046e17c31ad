"""The ledger as plain text for a terminal: one block per claim (the paper's words, section, verdict with its
strength, every piece of evidence compactly, conditions and reasons, each reading), wrapped to a width."""
from __future__ import annotations

import re
from collections import Counter

from proofs_numeric.core.float_hints import describe_hint
from theorems.framework import SUITE_READING, TALLY_PARTS, TRUTH, ClaimResult
from theorems.framework.evidence import counterexample_file, store_command

__all__ = ["VERDICT_STYLE", "render_claim", "render_summary", "tally", "SAID", "said", "claim_header", "render_check",
           "ON_THIS_WORDS", "wrap_tex", "tex_cuts"]

VERDICT_STYLE = {"proved": "bold green", "certified": "green", "supported": "cyan", "conditional": "yellow",
                 "refuted": "bold red", "unsupported": "magenta", "not-checkable": "dim", "error": "bold magenta"}


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


def tex_cuts(tok: str) -> list[int]:
    r"""Where a word of TeX may be cut: before a command (``\alpha``) or after ``=``, ``,``, ``)``, ``+``, each outside
    every ``{...}`` group, so no command name and no group is ever cut."""
    cuts, depth = [], 0
    for i, ch in enumerate(tok):
        if ch == "{" and (i == 0 or tok[i - 1] != "\\"):
            depth += 1
        elif ch == "}" and (i == 0 or tok[i - 1] != "\\") and depth:
            depth -= 1
            continue
        if depth or i == 0:
            continue
        if ch == "\\" and tok[i - 1] not in "\\ ":
            cuts.append(i)
        elif ch in "=,)+" and i + 1 < len(tok):
            cuts.append(i + 1)
    return sorted(set(cuts))


def _split_long(tok: str, room: int) -> list[str]:
    """A word longer than a line, cut where TeX would not mind (:func:`tex_cuts`): the last such place within
    ``room``; if there is none, the first one after it (the line is then wider than ``room``: a command or a group
    is never cut to fit); a word with no such place is kept whole."""
    pieces = []
    while len(tok) > room:
        if "\\" not in tok and "{" not in tok:  # a plain word (a path, a number): cut where the line ends
            cut = room
        else:
            cuts = [c for c in tex_cuts(tok) if c > 0]
            inside = [c for c in cuts if c <= room]
            cut = inside[-1] if inside else (cuts[0] if cuts else len(tok))
            while not inside and any(cut < c <= cut + 2 for c in cuts):  # no stub such as "=" on a line of its own
                cut = max(c for c in cuts if cut < c <= cut + 2)
        pieces.append(tok[:cut])
        tok = tok[cut:]
    return pieces + ([tok] if tok else [])


def wrap_tex(text: str, width: int, first: str = "", indent: str = "  ") -> list[str]:
    r"""Wrap text that may hold LaTeX: breaks only at spaces outside ``{...}`` (never inside ``\command{...}``),
    continuation lines indented by ``indent``; a word longer than a line is cut only where :func:`tex_cuts` allows (a
    plain word without TeX where the line ends). No line is wider than ``width``, unless one TeX command or group
    is: it is then kept whole, never cut.

    >>> wrap_tex(r"a \operatorname{rank}(X)=\operatorname{rank}(Y)", 20)
    ['a', '  \\operatorname{rank}(X)=', '  \\operatorname{rank}(Y)']
    """
    lines, cur, fresh = [], first, True  # fresh: nothing but the first prefix or the indent on the current line
    room = max(8, width - len(indent))
    for tok in _tex_tokens(str(text)):
        sep = "" if fresh else " "
        if len(cur) + len(sep) + len(tok) <= width:
            cur, fresh = cur + sep + tok, False
            continue
        left = width - len(cur) - len(sep)
        head = _split_long(tok, left)[0] if len(tok) > room and left >= 20 else ""
        if head and len(head) <= left:  # a long formula starts on this line, cut where TeX allows
            cur, tok = cur + sep + head, tok[len(head):]
            fresh = False
        if cur.strip() and (not fresh or len(cur) > len(indent)):  # a new line gives the word more room
            lines.append(cur.rstrip())
            cur = indent
        for k, piece in enumerate(_split_long(tok, room) if len(tok) > room else [tok]):
            if k:
                lines.append(cur.rstrip())
                cur = indent
            cur += piece
        fresh = False
    lines.append(cur.rstrip())
    return lines


def _wrap(text: str, width: int, indent: str, first: str | None = None) -> list[str]:
    """``text`` on lines of ``width``, its spaces folded, continuation lines indented by ``indent``; LaTeX in it is
    never cut inside a command or a ``{...}`` group (:func:`wrap_tex`)."""
    return wrap_tex(" ".join(str(text).split()), width, first if first is not None else indent, indent)


#: a truth word as a terminal prints it (``fails`` stands out); the words themselves are theorems.framework.TRUTH
SAID = {"holds": "holds", "fails": "FAILS", "undecided": "undecided"}


def said(value) -> str:
    """True / False / None (or a truth word) as the terminal prints it: holds, FAILS, undecided."""
    return SAID[value if isinstance(value, str) else TRUTH[value]]


def _evidence_line(e) -> str:
    holds = said(e.holds)
    if e.label:
        holds += f" ({e.label})"
    text = f"{e.kind}/{e.scope} [{e.regime}] {holds}: {e.summary}"
    if e.holds is None and e.reason and e.reason not in e.summary:
        text += f" (undecided: {e.reason})"
    if e.kind == "counterexample" and e.counterexample:
        stored = counterexample_file(e)
        if stored is None:  # found on this run: no file to name yet
            text += f" — found on this run, not stored: `{store_command(e.counterexample)}` stores it"
        elif stored not in e.summary:
            text += f" — file {stored}"
    return text


def render_claim(r: ClaimResult, width: int = 80) -> list[tuple[str, str | None]]:
    """Lines (text, style) for one claim: header, the paper's words, every piece of evidence compactly,
    the counterexample file, the condition or the reason, and each reading's verdict. No line is wider
    than ``width``; no line repeats."""
    c = r.claim
    out: list[tuple[str, str | None]] = []
    verdict = "ERROR" if r.error else r.verdict
    head = f"{c.id}  {verdict}" + ("" if r.error else f" ({r.strength})")
    sec = f"{c.section}"
    if len(head) + 2 + len(sec) <= width:
        out.append((head + " " * (width - len(head) - len(sec)) + sec, VERDICT_STYLE.get(r.verdict if not r.error
                                                                                          else "error")))
    else:
        out.append((head, VERDICT_STYLE.get(r.verdict if not r.error else "error")))
        out += [(ln, "dim") for ln in _wrap(sec, width, "  ")]
    words = f"“{c.quote}”" if c.quoted else (f"a user's conjecture (their words, in no source): {c.quote}"
                                              if c.origin == "user" else
                                              f"{SUITE_READING} (no quotation): {c.source}")
    out += [(ln, None if c.quoted else "italic") for ln in _wrap(words, width, "  ")]
    if r.error:
        out += [(ln, "bold magenta") for ln in _wrap(f"error: {r.error}", width, "    ", "  ")]
        return out
    lit = r.literal
    items: list[tuple[str, str, str, str | None]] = []  # (text, first indent, indent, style): deduplicated
    if lit.generic is not None:
        items.append((f"generic: for almost every point of {lit.generic.space} ({lit.generic.measure})", "  ", "    ",
                      None))
    if c.argument:
        items.append((f"the verdict rests on: {c.argument}", "  ", "    ", "dim"))
    if lit.verdict in ("conditional", "unsupported") and lit.condition:
        items.append((f"condition: {lit.condition}", "  ", "    ", "yellow"))
    elif lit.reason:
        items.append((f"why: {lit.reason}", "  ", "    ", None))
    for e in lit.evidence:
        if e.kind == "none" and e.reason == lit.reason:
            continue  # already said as the claim's reason
        items.append((_evidence_line(e), "    - ", "      ", "dim"))
    for rr in r.readings[1:]:
        text = f"reading {rr.key}: {rr.verdict} ({rr.strength})"
        extra = rr.condition or (rr.reason if rr.verdict == "not-checkable" else None)
        if extra:
            text += f" — {extra}"
        files = sorted({f for e in rr.evidence if (f := counterexample_file(e))})
        found = sorted({store_command(e.counterexample) for e in rr.evidence
                        if e.counterexample and counterexample_file(e) is None})
        if files:
            text += f" — counterexample: {'; '.join(files)}"
        if found:
            text += f" — counterexample found on this run, not stored: `{found[0]}` stores it"
        items.append((text, "  ", "    ", None))
    seen = set()
    for text, first, indent, style in items:
        if text in seen:
            continue
        seen.add(text)
        out += [(ln, style) for ln in _wrap(text, width, indent, first)]
    return out


_ORDER = ["proved", "certified", "supported", "conditional", "refuted", "unsupported", "not-checkable", "error"]


def _counts(results: list[ClaimResult]) -> str:
    counts = Counter("error" if r.error else r.verdict for r in results)
    return ", ".join(f"{counts[v]} {v}" for v in _ORDER if counts[v])


def tally(results: list[ClaimResult]) -> list[dict]:
    """The tally in three parts (:data:`theorems.framework.TALLY_PARTS`): the paper's claims, the Dong explainer's,
    and the suite's own framing with users' conjectures; each {"part", "origins", "claims", "verdicts"}."""
    out = []
    for name, origins in TALLY_PARTS:
        rs = [r for r in results if r.claim.origin in origins]
        out.append({"part": name, "origins": list(origins), "claims": len(rs),
                    "verdicts": {v: n for v in _ORDER
                                 if (n := sum(("error" if r.error else r.verdict) == v for r in rs))}})
    return out


def render_summary(results: list[ClaimResult]) -> str:
    """The verdict counts, in three parts (the paper, the explainer, the suite's own and users'), one line each."""
    lines = []
    for name, origins in TALLY_PARTS:
        rs = [r for r in results if r.claim.origin in origins]
        if rs:
            lines.append(f"{name}, {len(rs)} claim{'s' if len(rs) != 1 else ''}: {_counts(rs)}")
    return "\n".join(lines)


def claim_header(rec: dict) -> list[tuple[str, str | None]]:
    """The head of one claim's record (``show`` and ``check``): id, section and form, the quote, the statement, the
    hypotheses and the conclusion, the regimes. ``rec``: a claim's ``verify --json`` entry (or its first keys)."""
    return [(f"{rec['id']} ({rec['section']}), {rec['form']} claim", "bold"),
            ((f"quote: “{rec['quote']}”" if rec.get("quoted", bool(rec.get("quote"))) else
              f"a user's conjecture (their words, in no source): {rec['quote']}" if rec.get("origin") == "user" else
              f"quote: none — {SUITE_READING}, not the paper's words: {rec.get('source', '')}"), None),
            (f"statement: {rec['statement']}", None),
            (f"hypotheses: {', '.join(rec['hypotheses']) or '(none)'}; conclusion: {rec['conclusion']}", None),
            (f"regimes: {', '.join(rec['regimes'])}", None)] + \
        ([(f"the verdict rests on: {rec['argument']}", "dim")] if rec.get("argument") else [])


#: what each answer on one instance means, in words
ON_THIS_WORDS = {
    "holds": "every hypothesis holds and so does the conclusion",
    "counterexample": "every hypothesis holds and the conclusion fails: this instance refutes the reading",
    "premise-fails": "the reading says nothing about this instance",
    "undecided": "not decided on this instance",
    "exceptional-point": "a failure of an almost-everywhere statement not shown to be robust (a point, not a set)",
}
_ON_THIS_STYLE = {"holds": "green", "counterexample": "bold red", "premise-fails": "yellow", "undecided": "magenta",
                  "exceptional-point": "yellow"}


def render_check(rec: dict, header: dict, width: int = 80) -> list[tuple[str, str | None]]:
    """Lines (text, style) for ``check CLAIM`` on one instance: the claim's head (as ``show`` prints it), how each
    input was read, then per reading each hypothesis with its definition and how it was decided, the conclusion, the
    answer on this instance and the arithmetic; float hints last."""
    out: list[tuple[str, str | None]] = []

    def add(text, style=None, indent="", first=None):
        out.extend((ln, style) for ln in _wrap(text, width, indent, first))

    for text, style in claim_header(header):
        add(text, style, "  ", "")
    for k, how in rec["input"].items():
        add(f"input {k}: {how}", "dim", "    ", "")
    seen: set = set()
    for rr in rec["readings"]:
        out.append(("", None))
        add(f"reading {rr['key']}: {rr['statement']}", "bold", "    ", "")
        for name, h in rr["hypotheses"].items():
            if (name, h["value"], h["how"]) in seen:
                add(f"{name}: {said(h['value'])} (as above)", None, "      ", "  ")
                continue
            seen.add((name, h["value"], h["how"]))
            meaning = "" if h["definition"] == name else f" ({h['definition']})"
            add(f"{name}{meaning}: {said(h['value'])}", None, "      ", "  ")
            if h["how"]:
                add(h["how"], "dim", "      ", "      ")
        c = rr["conclusion"]
        add(f"conclusion «{c['words']}»: {said(c['value'])}", None, "      ", "  ")
        if c["how"]:
            add(c["how"], "dim", "      ", "      ")
        verdict = rr["on_this_instance"]
        # a counterexample carries a reason only when it is a generic reading's robust failure (ROBUST_FAILURE)
        why = f"{rr['reason']}: " if rr.get("reason") and verdict in ("premise-fails", "undecided", "counterexample") \
            else ""
        add(f"on this instance: {verdict} ({why}{ON_THIS_WORDS[verdict]})", _ON_THIS_STYLE[verdict], "      ", "  ")
        add(f"arithmetic: {rr['arithmetic']}", "dim", "      ", "  ")
        if rr.get("note"):
            add(f"note: {rr['note']}", "dim", "      ", "  ")
    if rec.get("not_checked"):
        out.append(("", None))
        for nc in rec["not_checked"]:
            add(f"reading {nc['key']} not checked on this instance: {nc['reason']}", "dim", "    ", "")
    for k, num in (rec.get("numerical") or {}).items():
        add(f"{k}: {describe_hint(num)}", "dim", "    ", "")
    if rec.get("saved"):
        add(f"saved the instance to {rec['saved']} (stored-counterexample format)", None, "    ", "")
    return out
