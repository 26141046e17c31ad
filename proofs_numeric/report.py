"""Markdown renderings of claim results, for the book (chapters import these).

Everything is computed when called: a chapter that shows a verdict runs the
claim's checks at build time.
"""
from __future__ import annotations

from theorems.claims import CheckContext, ClaimResult, get, registry, run_claim

__all__ = ["verdict_admonition", "ledger_markdown", "evidence_markdown", "run", "proof_steps_markdown"]

_ADMONITION = {"proved": "tip", "certified": "tip", "supported": "note", "conditional": "warning",
               "refuted": "danger", "not-checkable": "seealso"}

_CACHE: dict = {}


def run(claim_id: str, dps: int = 50) -> ClaimResult:
    key = (claim_id, dps)
    if key not in _CACHE:
        _CACHE[key] = run_claim(get(claim_id), CheckContext(dps=dps))
    return _CACHE[key]


def _esc(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def evidence_markdown(evidence) -> str:
    rows = ["| kind | regime | holds | arithmetic | what |", "|---|---|---|---|---|"]
    for e in evidence:
        holds = {True: "yes", False: "**no**", None: "undecided"}[e.holds]
        what = _esc(e.summary) + (f" (`{e.counterexample}`)" if e.counterexample else "")
        rows.append(f"| {e.kind} | {e.regime} | {holds} | {_esc(e.arithmetic)} | {what} |")
    return "\n".join(rows)


def verdict_admonition(claim_id: str, dps: int = 50) -> str:
    """A MyST admonition with the computed verdict of every reading and its evidence."""
    r = run(claim_id, dps)
    c = r.claim
    kind = _ADMONITION[r.verdict]
    parts = [f":::{{{kind}}} {c.id}: **{r.verdict}** (computed at build time)",
             f"*{c.section}*: “{_esc(c.quote)}”", "",
             f"Formal statement: ${c.statement}$", "",
             evidence_markdown(r.literal.evidence)]
    for rr in r.readings[1:]:
        parts += ["", f"Reading **{rr.key}**: ${rr.statement}$ — **{rr.verdict}**"
                  + (f"; {rr.condition}" if rr.condition else ""), "", evidence_markdown(rr.evidence)]
    parts.append(":::")
    return "\n".join(parts)


def ledger_markdown(dps: int = 50) -> str:
    """The whole ledger as a Markdown table, every verdict computed now."""
    from collections import Counter
    claims = registry()
    counts = Counter(run(c.id, dps).verdict for c in claims)
    head = (f"**{len(claims)} claims**: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1]))
            + ".\n\n")
    rows = ["| claim | verdict | evidence | condition, counterexample or readings | chapter | § |",
            "|---|---|---|---|---|---|"]
    for c in claims:
        r = run(c.id, dps)
        extra = []
        ce = [e for e in r.literal.evidence if e.kind == "counterexample"]
        if ce:
            extra.append(f"counterexample: {_esc(ce[0].summary)} (`{ce[0].counterexample}`)")
        if r.literal.condition:
            extra.append(f"condition: {_esc(r.literal.condition)}")
        for rr in r.readings[1:]:
            extra.append(f"*{rr.key}*: {rr.verdict}" + (f" ({_esc(rr.condition)})" if rr.condition else ""))
        link = f"[{c.chapter}](chapters/{c.chapter}.md)" if c.chapter else ""
        rows.append(f"| `{c.id}` | **{r.verdict}** | {', '.join(r.evidence_kinds())} | "
                    f"{'<br>'.join(extra)} | {link} | {_esc(c.section)} |")
    return head + "\n".join(rows)


def proof_steps_markdown(steps) -> str:
    """A table of a module's PROOF_STEPS, each check run now."""
    rows = ["| # | step | why | kind | checked now |", "|---|---|---|---|---|"]
    for k, (tex, words, kind, check) in enumerate(steps, 1):
        tex = tex.replace("|", r"\vert ")  # a bar would end the table cell
        rows.append(f"| {k} | ${tex}$ | {words} | {kind} | {'yes' if check() else '**no**'} |")
    return "\n".join(rows)
