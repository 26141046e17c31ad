"""The ledger as plain text for a terminal: one block per claim (the paper's words, section, verdict with its
strength, every piece of evidence compactly, conditions and reasons, each reading), wrapped to a width."""
from __future__ import annotations

import textwrap
from collections import Counter

from theorems.framework import SUITE_READING, ClaimResult

__all__ = ["VERDICT_STYLE", "render_claim", "render_summary"]

VERDICT_STYLE = {"proved": "bold green", "certified": "green", "supported": "cyan", "conditional": "yellow",
                 "refuted": "bold red", "unsupported": "magenta", "not-checkable": "dim", "error": "bold magenta"}


def _wrap(text: str, width: int, indent: str, first: str | None = None) -> list[str]:
    return textwrap.wrap(" ".join(str(text).split()), width=width, initial_indent=first if first is not None else indent,
                         subsequent_indent=indent, break_long_words=True, break_on_hyphens=False) or [indent.rstrip()]


def _evidence_line(e) -> str:
    holds = {True: "holds", False: "FAILS", None: "undecided"}[e.holds]
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
    words = f"“{c.quote}”" if c.quoted else f"{SUITE_READING} (no quotation): {c.source}"
    out += [(ln, None if c.quoted else "italic") for ln in _wrap(words, width, "  ")]
    if r.error:
        out += [(ln, "bold magenta") for ln in _wrap(f"error: {r.error}", width, "    ", "  ")]
        return out
    lit = r.literal
    items: list[tuple[str, str, str, str | None]] = []  # (text, first indent, indent, style): deduplicated
    if lit.generic is not None:
        items.append((f"generic: for almost every point of {lit.generic.space} ({lit.generic.measure})", "  ", "    ",
                      None))
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


def render_summary(results: list[ClaimResult]) -> str:
    counts = Counter("error" if r.error else r.verdict for r in results)
    order = ["proved", "certified", "supported", "conditional", "refuted", "unsupported", "not-checkable", "error"]
    return ", ".join(f"{counts[v]} {v}" for v in order if counts[v])
