"""The ledger as plain text for a terminal: one block per claim (the paper's words, section, verdict with its
strength, every piece of evidence compactly, conditions and reasons, each reading), wrapped to a width."""
from __future__ import annotations

import textwrap
from collections import Counter

from proofs_numeric.core.float_hints import describe_hint
from theorems.framework import SUITE_READING, TALLY_PARTS, TRUTH, ClaimResult

__all__ = ["VERDICT_STYLE", "render_claim", "render_summary", "tally", "SAID", "said", "claim_header", "render_check",
           "ON_THIS_WORDS"]

VERDICT_STYLE = {"proved": "bold green", "certified": "green", "supported": "cyan", "conditional": "yellow",
                 "refuted": "bold red", "unsupported": "magenta", "not-checkable": "dim", "error": "bold magenta"}


def _wrap(text: str, width: int, indent: str, first: str | None = None) -> list[str]:
    return textwrap.wrap(" ".join(str(text).split()), width=width,
                         initial_indent=first if first is not None else indent, subsequent_indent=indent,
                         break_long_words=True, break_on_hyphens=False) or [indent.rstrip()]


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
    if e.counterexample and e.counterexample not in e.summary:
        text += f" — file {e.counterexample}"
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
        files = sorted({e.counterexample for e in rr.evidence if e.counterexample})
        if files:
            text += f" — counterexample: {'; '.join(files)}"
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
        why = f"{rr['reason']}: " if rr.get("reason") and verdict in ("premise-fails", "undecided") else ""
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
