"""Markdown renderings of claim results, for the book (chapters import these).

A chapter that shows a verdict reads it from the ledger computed from the same source: the ledger ``make
verify`` wrote when its key matches (:mod:`.cache`), else the whole ledger computed once during this build (by the
first page that needs a verdict) and shared by the others through ``book/_build/ledger-cache.json``. Either way
each verdict is recomputed from its evidence when it is read, and :func:`provenance_markdown` says when and from
which commit the verdicts were computed. What a page shows that the ledger does not hold (witnesses at several
precisions, stress tables, figures) the page computes itself.
"""
from __future__ import annotations

import contextlib
import html
import json
import os
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from proofs_numeric.ledger.cache import LedgerMismatch, default_ledger_paths, ledger_key, read_ledger
from proofs_numeric.ledger.graph import anchor
from proofs_numeric.ledger.load import get, registry
from proofs_numeric.ledger.render import tally
from proofs_numeric.ledger.run import ledger_json, run_ledger
from theorems import formal as F
from theorems.exact import layernorm as LN
from theorems.framework import (
    CONJECTURES,
    FORMAL_GAP_MEANING,
    REPO_ROOT,
    SUITE_READING,
    TRUTH,
    CheckContext,
    ClaimResult,
    FormalGap,
    decode_instance,
    relative_path,
    run_claim,
    step_outcome,
    typeset,
)
from theorems.framework.memo import locked as memo_locked
from theorems.framework.memo import provenance as memo_provenance
from theorems.framework.memo import reads as memo_reads
from theorems.paper import rank_neutrality as RN

__all__ = ["verdict_admonition", "words_markdown", "ledger_markdown", "evidence_markdown", "run", "book_ledger",
           "provenance_markdown", "proof_steps_markdown", "stored_markdown",
           "verdict_model_markdown", "VERDICT_MODEL", "GENERIC_EXAMPLES",
           "generic_examples_markdown", "conjecture_markdown", "findings_markdown", "tally_markdown", "CHAPTER_TITLES",
           "formal_lemmas_markdown", "formal_gaps", "formal_gaps_markdown",
           "VERDICT_ORDER", "verdicts_by_chapter", "chapter_title", "conjecture_title",
           "paper_proof_audit_markdown", "tex_with_text_markdown", "rank_neutrality_stress",
           "chapter_claims", "chapter_verdicts_markdown", "display_math", "breaking_markdown", "redundant_hypotheses",
           "redundancy_sentence"]

_ADMONITION = {"proved": "tip", "certified": "tip", "supported": "note", "conditional": "warning",
               "refuted": "danger", "unsupported": "warning", "not-checkable": "seealso", "error": "error"}

_CACHE: dict = {}
#: the ledger the book's verdicts come from: {"path", "provenance", "reused", "results": {id: ClaimResult}}
_LEDGER: dict = {}
#: the options the book's verdicts are computed with (the defaults of `collapse-verify verify`)
BOOK_DPS = 50
#: ``COLLAPSE_VERIFY_BOOK_QUICK=1``: a test build (``make test``'s book test) computes the quick ledger instead
#: (the quick Pools, as ``verify --quick``), and every page's provenance line says so; ``make book`` never sets it
BOOK_QUICK_ENV = "COLLAPSE_VERIFY_BOOK_QUICK"


def book_quick() -> bool:
    """Is this a test build of the book (verdicts from the quick ledger)?"""
    return os.environ.get(BOOK_QUICK_ENV, "") not in ("", "0")


def book_ledger() -> dict:
    """The ledger of every registered claim at the book's options: reused when a ledger with the same key exists
    (``ledger.json`` from ``make verify``, ``COLLAPSE_VERIFY_LEDGER``, or this build's cache), else computed now
    and written to ``book/_build/ledger-cache.json`` for the other pages. Computed once per process."""
    if _LEDGER:
        return _LEDGER
    claims = registry()
    quick = book_quick()
    key = ledger_key(dps=BOOK_DPS, quick=quick, claim_ids=[c.id for c in claims])
    by_id = {c.id: c for c in claims}
    cache = REPO_ROOT / "book" / "_build" / "ledger-cache.json"
    lock: contextlib.AbstractContextManager[None]
    try:  # pages read in parallel: the first to get here computes, the others wait for its ledger-cache.json
        cache.parent.mkdir(parents=True, exist_ok=True)
        lock = memo_locked(cache.with_suffix(".lock"))
    except OSError:
        lock = contextlib.nullcontext()
    with lock:
        return _book_ledger(claims, quick, key, by_id, cache)


def _book_ledger(claims, quick: bool, key: str, by_id: dict, cache: Path) -> dict:
    why = []
    for path in default_ledger_paths():
        try:
            data = read_ledger(path, key)
        except LedgerMismatch as e:
            why.append(str(e))
            continue
        try:  # a key that matches with content that is refused (a plug-in edited in place): compute instead
            results = {d["id"]: ClaimResult.from_json(d, by_id[d["id"]]) for d in data["claims"]}
        except (ValueError, KeyError) as e:
            why.append(f"{path}: not read back ({type(e).__name__}: {e})")
            continue
        _LEDGER.update(path=path, provenance=data["provenance"], reused=True, results=results, why=why)
        return _LEDGER
    started = time.time()
    ctx = CheckContext(dps=BOOK_DPS, quick=quick)
    reads_before = memo_reads()
    results_list, errors = run_ledger(claims, ctx)
    store_reads = memo_reads() - reads_before
    data = ledger_json(results_list, ctx, started, errors)
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1, default=str) + "\n")
        tmp.replace(cache)
    except OSError as e:  # a read-only tree: every page computes its own (slower, same verdicts)
        why.append(f"could not write {cache}: {e}")
    _LEDGER.update(path=None, provenance=data["provenance"], reused=False,
                   results={r.claim.id: r for r in results_list}, why=why, store_reads=store_reads)
    return _LEDGER


def run(claim_id: str, dps: int = BOOK_DPS) -> ClaimResult:
    """The result of one claim: from the book's ledger at the book's options, else computed here."""
    if dps == BOOK_DPS:
        res = book_ledger()["results"].get(claim_id)
        if res is not None:
            return res
    key = (claim_id, dps)
    if key not in _CACHE:
        _CACHE[key] = run_claim(get(claim_id), CheckContext(dps=dps))
    return _CACHE[key]


def provenance_markdown() -> str:
    """One sentence: when, from which commit and how the verdicts on the page were computed."""
    led = book_ledger()
    p = led["provenance"]
    how = (f"read from `{relative_path(Path(led['path']))}` (its key matches this source)" if led["reused"]
           else "computed while this book was built" + (
               f" ({led['store_reads']} results of its evidence read from the results store, `.collapse-verify-cache/`"
               ", under the key of this source)" if led.get("store_reads") else ""))
    return (f"Verdicts computed {p.get('started', '?')} from commit `{str(p.get('commit', '?'))[:12]}` "
            f"(dps {BOOK_DPS}, every claim{', QUICK: a test build of the book' if book_quick() else ''}), {how}; "
            "each is recomputed from its evidence by the verdict rule when this page reads it.")


_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]<>$|"})


def _esc(s: str) -> str:
    """Plain text for a Markdown table cell or paragraph: every character Markdown (or MyST math) would read
    as syntax is escaped ("D[A](X_0)" is not a link, "$" does not open math, "|" does not end a cell)."""
    return str(s).translate(_MD_SPECIAL).replace("\n", " ")


def list_table(header: list[str], rows: list[list[str]], widths: list[int]) -> str:
    """A MyST list-table with relative column widths (a backtick fence, so it nests in colon-fenced blocks).

    Narrow columns keep whole words; long text wraps in the wide ones (a pipe table sizes columns by content,
    which breaks short words such as verdicts mid-word)."""
    out = ["```{list-table}", ":header-rows: 1", f":widths: {' '.join(map(str, widths))}", ""]
    for row in [header, *rows]:
        out.append(f"* - {row[0] or ' '}")
        out += [f"  - {cell or ' '}" for cell in row[1:]]
    out.append("```")
    return "\n".join(out)


#: in a long word of a table cell a line may break after these characters (and before a backslash): a <wbr> there,
#: so a path, an identifier or LaTeX source wraps at its punctuation and never between two letters
_BREAK_AFTER = set("/._,=);:-^}]")
_LONG_WORD = 12


_INLINE_MATH = re.compile(r"(\$[^$]+\$)")


def _cell(s) -> str:
    """Plain text for a table cell: escaped as :func:`_esc`, with a ``<wbr>`` break opportunity at the punctuation
    of every word longer than 12 characters (never between two letters or digits); inline math ``$...$`` is left
    whole (a ``<wbr>`` inside it would leave the formula as raw text)."""
    parts = _INLINE_MATH.split(str(s).replace("\n", " "))
    return "".join(p if i % 2 else _cell_text(p) for i, p in enumerate(parts))


def _cell_text(s) -> str:
    out = []
    for tok in re.split(r"(\s+)", str(s).replace("\n", " ")):
        if tok.isspace() or len(tok) <= _LONG_WORD:
            out.append(_esc(tok))
            continue
        pieces, cur = [], ""
        for i, ch in enumerate(tok):
            if ch == "\\" and cur:
                pieces.append(cur)
                cur = ""
            cur += ch
            if ch in _BREAK_AFTER and i + 1 < len(tok):
                pieces.append(cur)
                cur = ""
        if cur:
            pieces.append(cur)
        out.append("<wbr>".join(_esc(x) for x in pieces))
    return "".join(out)


def _path(path: str) -> str:
    """A file path in a table cell: code, breakable after each ``/`` and ``.``."""
    parts = re.split(r"(?<=[/.])", str(path))
    return '<code class="docutils literal notranslate">' + "<wbr>".join(html.escape(x) for x in parts if x) + "</code>"


def display_math(tex: str) -> str:
    """A statement as display math (``$$...$$`` on its own lines): a display formula wider than the column scrolls in
    its own box (the theme's ``div.math mjx-container``), where inline math in a line of words would be clipped."""
    return f"$$\n{tex}\n$$"


#: a formal proof's summary, ``Coq lemma NAME [formal, AXIOMS]: STATEMENT`` (``theorems.framework.formal_proof``,
#: the label from ``theorems.formal.evidence``), STATEMENT in LaTeX
_COQ_SUMMARY = re.compile(r"^Coq lemma (\S+)( \[[^\]]*\])?: (.*?)( — not accepted: .*)?$", re.S)


def _summary_cell(e, typeset: list) -> str:
    """An evidence summary for a table cell. A Coq lemma's LaTeX statement (shown raw before) is typeset below the
    table as display math (appended to ``typeset``): typeset math cannot wrap, and a long formula in a cell widened
    the table past its column."""
    m = _COQ_SUMMARY.match(e.summary) if e.kind == "formal" else None
    if m is None or "$" in m.group(3):
        return _cell(e.summary)
    name, label, statement, refusal = m.groups()
    typeset.append(f"Coq lemma {_path(name)}:\n\n{display_math(statement.strip())}")
    return f"Coq lemma {_path(name)}{_cell(label or '')}: its statement is typeset below the table" + (
        _cell(refusal) if refusal else "")


def _truth_md(value: bool | None) -> str:
    """The truth word of ``value`` (the one table, :data:`theorems.framework.TRUTH`), a failure in bold."""
    return f"**{TRUTH[value]}**" if value is False else TRUTH[value]


def evidence_markdown(evidence) -> str:
    """Every piece of evidence in three columns (what it is, where it decided what, and what was computed in which
    arithmetic): short headers, and no word in the table can be broken mid-word."""
    rows: list = []
    typeset: list[str] = []
    for e in evidence:
        holds = _truth_md(e.holds)
        if e.label:
            holds += f" ({e.label})"
        what = _summary_cell(e, typeset) + (f" ({_path(e.counterexample)})" if e.counterexample else "")
        if e.holds is None and e.reason and e.reason not in e.summary:
            what += f" — undecided: {_cell(e.reason)}"
        what += f"; *arithmetic*: {_cell(e.arithmetic)}"
        rows.append([f"{_esc(e.kind)} ({_esc(e.scope)})", f"{_cell(e.regime)}: {holds}", what])
    table = list_table(["evidence", "regime", "what was computed"], rows, [17, 13, 70])
    return "\n\n".join([table, *typeset])


def words_markdown(c) -> str:
    """The claim's words as the book shows them: the source's own words in quotation marks, or, for the suite's own
    framing (no quote), a visibly different label saying what it stands for, never in quotation marks."""
    if c.quoted:
        # the quote's inline math ($...$, the paper's LaTeX) is kept as math; the text around it is escaped
        return "“" + "".join(p if i % 2 else _esc(p) for i, p in enumerate(_INLINE_MATH.split(c.quote))) + "”"
    if c.origin == "user":
        return f"**A user's conjecture** (their words, in no source): {_esc(c.quote)}"
    return f"**{SUITE_READING.capitalize()}**, not the paper's words ({_esc(c.source)})"


def verdict_admonition(claim_id: str, dps: int = 50) -> str:
    """A MyST admonition with the computed verdict of every reading and its evidence."""
    r = run(claim_id, dps)
    c = r.claim
    if r.error:
        return f":::{{admonition}} {c.id}: ERROR\n:class: error\n\n{_esc(r.error)}\n:::"
    kind = _ADMONITION[r.verdict]
    lit = r.literal
    why = lit.condition or lit.reason
    parts = [f":::{{admonition}} {c.id}: {r.verdict} ({r.strength})", f":class: {kind}", "",
             f'<span id="{anchor(c.id)}"></span>'
             f"*{c.section}*, a {c.form} claim, verdict computed from its evidence (see the ledger page for when): "
             f"{words_markdown(c)}", "",
             "Formal statement:", "", display_math(c.statement), ""]
    if lit.generic is not None:
        parts += [f"For almost every point of: {_esc(lit.generic.space)} ({_esc(lit.generic.measure)})", ""]
    if lit.exceptional:
        parts += [f"Exceptional set met at {len(lit.exceptional)} point(s), never decisive.", ""]
    if why:
        parts += [f"{'Condition' if lit.verdict in ('conditional', 'unsupported') else 'Why'}: {_esc(why)}", ""]
    if c.argument:
        parts += [f"The verdict rests on: {_esc(c.argument)}", ""]
    if c.depends_on:
        parts += ["Rests on: " + ", ".join(f"`{d}`" for d in c.depends_on) + " (the paper as a graph)", ""]
    parts.append(evidence_markdown(lit.evidence))
    parts += _breaking_parts(c.id, lit)
    for rr in r.readings[1:]:
        parts += ["", f"Reading **{rr.key}** — **{rr.verdict}** ({rr.strength})"
                  + (f"; {_esc(rr.condition)}" if rr.condition else "") + ":", "", display_math(rr.statement), "",
                  evidence_markdown(rr.evidence)]
        parts += _breaking_parts(c.id, rr)
    parts.append(":::")
    return "\n".join(parts)


_DROPPED_WORDS = {"needed": "**needed**", "not-needed": "not needed on the search", "undecided": "undecided"}


def _breaking_parts(claim_id: str, rr) -> list[str]:
    """The reading's "each hypothesis dropped in turn" table (and its sentence when a hypothesis is redundant)."""
    if rr.breaking is None:
        return []
    out = ["", breaking_table(rr.breaking)]
    said = redundancy_sentence(claim_id, rr)
    return out + (["", said] if said else [])


def breaking_table(b) -> str:
    """One reading's table: per dropped hypothesis what the search found (a table of the ledger's data); a table
    that could not search is one sentence."""
    if not b.searched:
        return (f"*Each hypothesis dropped in turn* ({', '.join(_esc(d.hypothesis) for d in b.dropped)}): "
                f"undecided, not searched: {_esc(b.search.removeprefix('no search: '))}.")
    rows = []
    for d in b.dropped:
        found = _cell(d.instance) + (f" ({_esc(d.label)}, {_esc(d.regime)})" if d.label else "") if d.instance \
            else "—"
        if d.stored:
            found += f"; a stored instance: {_cell(d.stored)}, re-checked on this run"
        rows.append([f"{_cell(d.hypothesis)}: {_DROPPED_WORDS[d.result]}",
                     f"{d.met_others} met the others; {d.failed_it} of them fail it", found, _cell(d.reason)])
    head = (f"*Each hypothesis dropped in turn* (not evidence: it never changes a verdict), searched on "
            f"{_esc(b.search)}:\n\n")
    return head + list_table(["dropped", "search", "instance found", "what happens"], rows, [18, 17, 35, 30])


def breaking_markdown(claim_id: str, key: str | None = None, dps: int = 50) -> str:
    """The tables of a claim's readings (``key``: one reading), from the ledger: what a chapter shows."""
    r = run(claim_id, dps)
    if r.error:
        return f"{claim_id}: ERROR ({_esc(r.error)})"
    parts = []
    for rr in r.readings:
        if rr.breaking is not None and (key is None or rr.key == key):
            parts += [f"**{claim_id}**, reading *{rr.key}*: ${rr.statement}$", "", breaking_table(rr.breaking), ""]
            said = redundancy_sentence(claim_id, rr)
            parts += [said, ""] if said else []
    return "\n".join(parts).strip() or f"{claim_id} has no reading with two or more hypotheses on instances"


def redundancy_sentence(claim_id: str, rr) -> str:
    """"H4 is not needed for ..." for each hypothesis the search found redundant (empty when none)."""
    if rr.breaking is None:
        return ""
    out = []
    for d in rr.breaking.dropped:
        if d.result == "not-needed":
            out.append(f"**{_esc(d.hypothesis)} is not needed** for `{claim_id}` (reading *{rr.key}*) on the "
                       f"search: {_esc(d.reason)} ({d.met_others} instances met the other hypotheses).")
    return " ".join(out)


def redundant_hypotheses(dps: int = 50) -> list[tuple[str, str, str, str]]:
    """(claim id, reading key, hypothesis, reason) of every hypothesis the ledger's search found not needed, for the
    paper's claims first."""
    out = []
    for c in registry():
        r = run(c.id, dps)
        if r.error:
            continue
        for rr in r.readings:
            for d in (rr.breaking.dropped if rr.breaking is not None else ()):
                if d.result == "not-needed":
                    out.append((c.origin != "paper", c.id, rr.key, d.hypothesis, d.reason))
    return [t[1:] for t in sorted(out)]


def chapter_claims(chapter: str) -> list[str]:
    """The ids of every registered claim whose chapter is ``chapter`` (the registry decides, not the page)."""
    return [c.id for c in registry() if c.chapter == chapter]


def chapter_verdicts_markdown(chapter: str, dps: int = 50) -> str:
    """Every claim of a chapter, selected from the registry, each as its verdict admonition."""
    return "\n\n".join(verdict_admonition(cid, dps) for cid in chapter_claims(chapter))


def ledger_markdown(dps: int = 50) -> str:
    """The whole ledger as a Markdown table, every verdict computed now."""
    claims = registry()
    head = tally_markdown(dps) + "\n\n"
    rows = []
    for c in claims:
        r = run(c.id, dps)
        name = f"[`{c.id}`](chapters/{c.chapter}.md)" if c.chapter else f"`{c.id}`"
        name += f" ({_esc(c.section)}" + (f": “{_esc(conjecture_title(c))}”)" if c.id in CONJECTURES else ")")
        name += "" if c.quoted else (" — *a user's conjecture*" if c.origin == "user" else f" — *{SUITE_READING}*")
        if r.error:
            rows.append([name, "**ERROR**", _esc(r.error)])
            continue
        extra = []
        ce = [e for e in r.literal.evidence if e.kind == "counterexample"]
        if ce:
            extra.append(f"counterexample: {_esc(ce[0].summary)} (`{ce[0].counterexample}`)")
        if r.literal.form == "generic" and r.literal.generic is not None:
            extra.append(f"generic, for almost every point of {_esc(r.literal.generic.space)}")
        if r.literal.condition:
            extra.append(f"condition: {_esc(r.literal.condition)}")
        elif r.verdict == "not-checkable" and r.literal.reason:
            extra.append(f"reason: {_esc(r.literal.reason)}")
        for rr in r.readings[1:]:
            extra.append(f"*{rr.key}*{' (generic)' if rr.form == 'generic' else ''}: {rr.verdict} ({rr.strength})")
        rows.append([name, f"**{r.verdict}** ({r.strength})", "; ".join(extra)])
    return head + list_table(["claim (section)", "verdict (strength)", "condition, counterexample, reason; readings"],
                             rows, [28, 17, 55])


def proof_steps_markdown(steps) -> str:
    """A module's PROOF_STEPS, each check's outcome (:func:`theorems.framework.step_outcome`: run now, or read from
    the store ``make verify`` filled, under the key of this source): one block per step, its formula as display
    math with the full column (a table cell cannot wrap typeset math), the words and the outcome as prose, and a
    last line saying where the outcomes came from."""
    out, read, ran = [], [], 0
    for k, (tex, words, kind, check) in enumerate(steps, 1):
        value, was_read = step_outcome((tex, words, kind, check), with_source=True)
        outcome = _truth_md(value)
        if was_read:
            read.append(memo_provenance("proof-step") or {})
        else:
            ran += 1
        out += [f"**{k}.** {_esc(words)} (*{_esc(kind)}*; checked: {outcome})", "", "$$", tex, "$$", ""]
    out.append(_outcomes_provenance(len(steps), ran, read))
    return "\n".join(out).rstrip() + "\n"


def stored_markdown(name: str, what: str) -> str:
    """One sentence: whether this page's ``what`` (the store entries ``name``, :mod:`theorems.framework.memo`) were
    computed while the page was built or read from the store, and when and from which commit the last one read was
    computed."""
    p = memo_provenance(name)
    what = what[0].upper() + what[1:]
    if p is None:
        return f"*{what}: not computed on this page.*"
    read, computed = p["read_count"], p["computed_count"]
    if not read:
        return f"*{what}: computed while this page was built ({computed} result{'s' * (computed != 1)}).*"
    where = ("read from the results store (`.collapse-verify-cache/`, keyed by this source, the options and the "
             "library versions)")
    lr = p["last_read"] or {}
    last = f"the last one read computed {lr.get('computed', '?')} from commit `{str(lr.get('commit') or '?')[:12]}`"
    return (f"*{what}: {read} of {read + computed} {where}; {last}"
            + (f"; {computed} computed while this page was built" if computed else "") + ".*")


def _outcomes_provenance(total: int, ran: int, read: list[dict]) -> str:
    if not read:
        return f"*Every check above was run while this page was built ({total} step{'s' * (total != 1)}).*"
    commits = sorted({str(p.get("commit") or "?")[:12] for p in read})
    times = sorted(str(p.get("computed", "?")) for p in read)
    when = times[0] if times[0] == times[-1] else f"between {times[0]} and {times[-1]}"
    return (f"*{len(read)} of these {total} outcomes were read from the results store "
            f"(`.collapse-verify-cache/`, its key: this source and library versions), computed {when} from commit "
            f"{', '.join(f'`{c}`' for c in commits)}" + (f"; {ran} run while this page was built" if ran else "")
            + ".*")


def conjecture_markdown(claim_id: str, dps: int = 50) -> str:
    """A user conjecture's whole chapter body, computed now: statement, hypotheses and conclusion, the
    exact algebra (its derivation steps, if any), the stress per regime, the counterexample typeset as
    a matrix with its file, and the verdict with its strength. `collapse-verify new` chapters call this."""

    conj = CONJECTURES[claim_id]
    c = conj.claim
    r = run(claim_id, dps)
    parts = [f"**Statement** (`{c.id}`, {_esc(c.section)}): ${c.statement}$", "",
             "**Hypotheses**: "
             + ", ".join(f"`{h}` ({_esc((p.__doc__ or '').strip().splitlines()[0] if p.__doc__ else h)})"
                         for h, p in conj.hypotheses.items()) + ".",
             f"**Conclusion**: `{getattr(conj.conclusion, '__name__', 'conclusion')}` "
             f"({_esc(c.conclusion.strip().splitlines()[0])}).", ""]
    steps = c.proof_steps
    parts += ["### Exact algebra", ""]
    parts += [proof_steps_markdown(steps), "",
              "These steps are checked at fixed sizes (a *derivation*): evidence, not a proof."] if steps else \
        ["No derivation is attached: the evidence below is the exact stress and the counterexample search."]
    parts += ["", "### Stress, per regime", "", "| regime | drawn | met every hypothesis | conclusion held |",
              "|---|---:|---:|---:|"]
    if not r.error:
        for e in r.literal.evidence:
            if e.kind == "exact" and e.scope == "instances":
                n = e.numbers
                parts.append(f"| {e.regime} | {n.get('drawn', '')} | {n.get('premise_met', 0)} | {n.get('held', 0)} |")
    ces = [e for e in (r.literal.evidence if not r.error else []) if e.kind == "counterexample"]
    if ces:
        parts += ["", "### Counterexample", ""]
        path = conj.stored_path()
        stored = json.loads(path.read_text())["instance"]["regimes"] if path.exists() else None
        for e in ces:
            inst = decode_instance(stored[e.regime]["value"]) if stored else r.found_counterexamples.get(e.regime)
            shown = f"${typeset(inst)}$"
            parts.append(f"- {e.regime}: {shown} — stored in `{e.counterexample}`"
                         + ("" if stored else " (found on this run; `collapse-verify verify --store` writes it)"))
        parts += ["", f"Re-checked exactly from `{relative_path(path)}` on every run."] if stored else []
    parts += ["", "### Verdict", "", verdict_admonition(claim_id, dps)]
    return "\n".join(parts)


def _coq_statement(about: str) -> str:
    """The statement part of Coq's ``About`` output (up to the first blank line)."""
    return about.split("\n\n", 1)[0].strip()


def formal_lemmas_markdown(claim_id: str | None = None) -> str:
    """Every registered Coq lemma (or those of one claim): a summary table (claim, reading, the axioms each rests
    on), then each lemma's LaTeX statement beside Coq's own ``About`` output (not a hand-copied statement) and the
    assumptions check, run now (lemma by lemma: each lemma's own axioms, as make formal lists them, not the upper
    bound verify's tuple query gives); last, proved lemmas still waiting for a reading to attach to."""
    results = F.check(per_lemma_axioms=True)
    version = F.coq_version()
    lemmas = [lm for lm in F.LEMMAS if claim_id is None or lm.claim == claim_id]
    if not lemmas:
        return ""
    parts = [f"Checked now by Coq {version} with MathComp." if version else
             "**coqc is not installed here**: the lemmas below were not checked on this build (install Coq and "
             "MathComp: `apt-get install coq libcoq-mathcomp-algebra libcoq-mathcomp-analysis`)."]
    rs = [results.get(lm.name) for lm in lemmas]
    names = {lm.name for lm in lemmas}
    n_closed = sum(bool(r and r.closed) for r in rs)
    n_classical = sum(bool(r and r.accepted and r.axioms) for r in rs)
    parts.append(f"{len(names)} lemmas, {len(lemmas)} claim attachments: {n_closed} closed under the global "
                 f"context (no axioms), {n_classical} resting on the allowed classical axioms only, "
                 f"{sum(r is not None and r.accepted is False for r in rs)} refused, "
                 f"{sum(r is None or r.accepted is None for r in rs)} not run.")
    rows = []
    for lm, r in zip(lemmas, rs, strict=True):
        axioms = ("none (closed under the global context)" if r and r.closed else
                  f"classical: {len(r.axioms)} allowed MathComp axiom{'s' if len(r.axioms) != 1 else ''} "
                  "(named below)" if r and r.accepted else
                  f"REFUSED: {_esc(r.reason.splitlines()[0])}" if r and r.accepted is False else
                  f"not run: {_esc(r.reason) if r else 'no result'}")
        rows.append([f"`{lm.name.removeprefix('CollapseVerify.')}`",
                     f"`{lm.claim}`" + (f" (`{lm.reading}`)" if lm.reading else ""), axioms])
    parts += ["", list_table(["lemma (CollapseVerify. ...)", "claim (reading)", "axioms it rests on"], rows,
                             [40, 30, 30])]
    for lm, r in zip(lemmas, rs, strict=True):
        status = ("closed under the global context: no axioms" if r and r.closed else
                  f"accepted, resting on {_esc(r.axiom_words)} (" + ", ".join(f"`{a}`" for a in r.axioms) + ")"
                  if r and r.accepted else f"NOT accepted: {_esc(r.reason)}" if r and r.accepted is False else
                  f"not checked: {_esc(r.reason) if r else 'no result'}")
        where = f"`{lm.claim}`" + (f", reading `{lm.reading}`" if lm.reading else " (headline)")
        parts += ["", f"**`{lm.name}`** — {where}; scope *{lm.scope}*; axioms: **{status}**", "",
                  f"$${lm.statement}$$", "", f"{_esc(lm.words)}", ""]
        if r and r.about:
            parts += ["```coq", _coq_statement(r.about), "```"]
    pending = [lm for lm in getattr(F, "PENDING", ()) if claim_id is None or lm.claim == claim_id]
    if pending:
        pr = F.check(tuple(pending), per_lemma_axioms=True)
        parts += ["", "**Proved, awaiting a reading to attach to** (checked, not evidence yet):", ""]
        for lm in pending:
            r = pr.get(lm.name)
            state = "closed, no axioms" if r and r.closed else "accepted" if r and r.accepted else "not accepted"
            parts.append(f"- `{lm.name}` ({state}) for `{lm.claim}`, proposed reading `{lm.reading}`: "
                         f"{_esc(lm.words)}")
    return "\n".join(parts)


def formal_gaps() -> list[tuple[str, str, FormalGap]]:
    """Every declared ``formal_gap``: (claim id, reading key, gap), in registry order ("literal": the headline)."""
    return [(c.id, r.key, r.formal_gap) for c in registry() for r in c.all_readings() if r.formal_gap is not None]


def formal_gaps_markdown() -> str:
    """The formal gaps, read from the claims' declarations: a count per reason (with what it means), then one row
    per claim or reading with its verdict (from the book's ledger), its reason and the detail."""
    gaps = formal_gaps()
    counts = Counter(g.reason for _, _, g in gaps)
    verdicts = {(cid, key): run(cid).reading(key) for cid, key, _ in gaps}
    exact = sum((rr.verdict, rr.strength) == ("supported", "exact") for rr in verdicts.values())
    parts = [f"{len(gaps)} formal gaps: {exact} on the claims or readings that are supported (exact) without a Coq "
             "proof (each of them has one)"
             + (f", {len(gaps) - exact} on {'a statement' if len(gaps) - exact == 1 else 'statements'} supported "
                "(exact) only on a smaller run (`--quick`: fewer sites of a checkpoint) and decided otherwise here"
                if len(gaps) > exact else "")
             + ". Each gives one reason from `theorems.framework.FORMAL_GAP_REASONS`:", ""]
    parts += [f"- **{reason}** ({counts.get(reason, 0)}): {_esc(meaning)}"
              for reason, meaning in FORMAL_GAP_MEANING.items()]
    rows = []
    for cid, key, gap in gaps:
        rr = verdicts[(cid, key)]
        detail = gap.detail + (f" (counterexample: `{gap.counterexample}`)" if gap.counterexample else "")
        rows.append([f"`{cid}`" + ("" if key == "literal" else f" (`{key}`)"), f"{rr.verdict} ({rr.strength})",
                     f"`{gap.reason}`", _cell(detail)])
    parts += ["", list_table(["claim (reading)", "verdict", "reason", "detail"], rows, [26, 16, 16, 42])]
    return "\n".join(parts)


#: chapter slug -> the title the front page uses for it
CHAPTER_TITLES = {
    "rank_neutrality": "Rank-Neutrality of LayerNorm (§4)",
    "residual_obstruction": "Residual Rank Obstruction (§5.1-5.2)",
    "mlp_role": "The MLP's role (§5.3)",
    "dong_collapse": "Dong's collapse, layer by layer",
    "head_channel": "Head-Channel Non-Identifiability (§7)",
    "recovery_ambiguity": "Recovery Ambiguity and PG-OP (§7.3, §8)",
    "symmetries": "Symmetries (§9)",
    "rank_contraction": "Rank Contraction and design counts (§6)",
    "real_model": "A trained model",
}


#: verdicts in the order the front page lists them (worst news first)
VERDICT_ORDER = ("refuted", "conditional", "unsupported", "proved", "certified", "supported", "not-checkable",
                 "error")


def conjecture_title(c) -> str:
    """A user conjecture's display name: its module's ``TITLE`` (what was given to `collapse-verify new`), else its
    quote; the module name is never used (it drops what symbols mean)."""
    conj = CONJECTURES.get(c.id)
    mod = sys.modules.get(getattr(getattr(conj, "instances", None), "__module__", "") or "")
    title = getattr(mod, "TITLE", None)
    return title if isinstance(title, str) and title.strip() else c.quote


def chapter_title(chapter: str, claims=()) -> str:
    """The front page's title for a chapter: the paper's chapters by name; a conjecture's chapter by the
    conjecture's title."""
    if chapter in CHAPTER_TITLES:
        return CHAPTER_TITLES[chapter]
    conj = [c for c in claims if c.id in CONJECTURES]
    if conj:
        return conjecture_title(conj[0])
    return chapter.replace("_", " ").capitalize()


def _chapters(dps: int):
    """[(chapter slug, title, [(claim, result)])] in the front page's order, every verdict computed now."""
    by_chapter = defaultdict(list)
    for c in registry():
        by_chapter[c.chapter or "other"].append(c)
    order = [k for k in CHAPTER_TITLES if k in by_chapter] + sorted(k for k in by_chapter if k not in CHAPTER_TITLES)
    return [(ch, chapter_title(ch, by_chapter[ch]), [(c, run(c.id, dps)) for c in by_chapter[ch]]) for ch in order]


def verdicts_by_chapter(dps: int = 50) -> list[tuple[str, dict]]:
    """[(chapter title, {verdict: how many of its claims earned it})], computed now (the front page's figure)."""
    return [(title, dict(Counter("error" if r.error else r.verdict for _, r in results)))
            for _, title, results in _chapters(dps)]


def tally_markdown(dps: int = 50) -> str:
    """The tally in three parts, computed now: the paper's claims, the Dong explainer's, and the suite's own framing
    with users' conjectures (never counted as the paper's), one line each, then the total."""
    results = [run(c.id, dps) for c in registry()]
    lines = []
    for part in tally(results):
        if part["claims"]:
            lines.append(f"- **{_esc(part['part'])}**, {part['claims']} claims: "
                         + ", ".join(f"{n} {v}" for v, n in part["verdicts"].items()))
    return "\n".join([f"**{len(results)} claims**, in three parts:", "", *lines])


def findings_markdown(dps: int = 50) -> str:
    """The front page's findings: per chapter, how many claims earned each verdict (computed now), linked; then
    every claim with its verdict and strength in a collapsible block."""
    total: Counter[str] = Counter()
    rows = ["| chapter | verdicts (computed now) |", "|---|---|"]
    detail = []
    rank = {v: k for k, v in enumerate(VERDICT_ORDER)}
    for ch, title, results in _chapters(dps):
        verdicts = Counter("error" if r.error else r.verdict for _, r in results)
        total.update(verdicts)
        link = f"[{_esc(title)}](chapters/{ch}.md)" if ch != "other" else _esc(title)
        rows.append(f"| {link} | " + ", ".join(f"{n} **{v}**" for v, n in sorted(verdicts.items(),
                                                                                 key=lambda vn: rank[vn[0]])) + " |")
        detail.append(f"- {link}: " + "; ".join(f"`{c.id}` {'ERROR' if r.error else r.verdict} ({r.strength})"
                                               for c, r in results))
    head = tally_markdown(dps)
    red = redundant_hypotheses(dps)
    said = ["", "**Hypotheses the search found not needed** (each hypothesis dropped in turn on the claim's own "
                "instances; not evidence, a finding to read on the claim's page):", "",
            *[f"- {_esc(h)} is not needed for [`{cid}`]({_claim_link(cid)}) (reading *{key}*): {_esc(why)}"
              for cid, key, h, why in red]] if red else []
    return "\n".join([head, "", *rows, *said, "", ":::{admonition} Every claim, with its verdict and strength",
                      ":class: dropdown", "", *detail, ":::"])


def _claim_link(cid: str) -> str:
    """The claim's chapter page. Not ``#anchor``: a claim's anchor is an HTML id inside a cell's output, which
    MyST's cross-reference check cannot see (``-W -n`` fails the build with xref_missing)."""
    c = get(cid)
    return f"chapters/{c.chapter}.md" if c.chapter else "ledger.md"


def _text_groups(tex: str) -> list[tuple[str, str]]:
    """``[("math" | "text", piece)]``: the top-level ``\\text{...}`` groups of a LaTeX string as prose, the rest as
    math (``\\ `` spacing around the prose dropped)."""
    out, i, start = [], 0, 0
    while True:
        j = tex.find("\\text{", i)
        if j < 0:
            break
        depth, k = 0, j + 5
        while k < len(tex):
            if tex[k] == "{":
                depth += 1
            elif tex[k] == "}":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        out.append(("math", tex[start:j]))
        out.append(("text", tex[j + 6:k]))
        i = start = k + 1
    out.append(("math", tex[start:]))
    cleaned = []
    for kind, piece in out:
        if kind == "math":
            piece = piece.strip()
            while piece.endswith("\\ ") or piece.endswith("\\"):
                piece = piece[:-2].rstrip() if piece.endswith("\\ ") else piece[:-1].rstrip()
            while piece.startswith("\\ "):
                piece = piece[2:].lstrip()
        if piece.strip():
            cleaned.append((kind, piece.strip()))
    return cleaned


def tex_with_text_markdown(tex: str) -> str:
    """A LaTeX string holding prose (``\\text{...}``) as Markdown prose with inline math: prose is never typeset as
    math and no ``$`` is left unpaired."""
    parts = []
    for kind, piece in _text_groups(tex):
        if kind == "text":
            parts.append(_esc(piece))
        elif piece.endswith(",") and not piece.endswith("\\,"):  # the sentence's comma, outside the math
            parts.append(f"${piece[:-1]}$,")
        else:
            parts.append(f"${piece}$")
    return " ".join(parts)


def paper_proof_audit_markdown(audit) -> str:
    """The paper's proof audited step by step (``(step, what the paper says in LaTeX, the audit)``): one paragraph per
    step, the paper's formula as inline math with its prose as prose."""
    return "\n\n".join(f"**{_esc(step)}.** The paper says: {tex_with_text_markdown(says)}. *Audit*: {_esc(audit)}."
                        for step, says, audit in audit)


def rank_neutrality_stress(seed: int = 20260426, per_shape: int = 6) -> dict:
    """The Rank-Neutrality chapter's stress counts, ``{(regime, family): {count: value}}`` (seeded, exact)."""
    stats: dict = defaultdict(lambda: defaultdict(int))
    for regime, fam, _inst, an in RN.stress(seed=seed, per_shape=per_shape):
        st = stats[(regime, fam)]
        st["drawn"] += 1
        if an.hypotheses["H1"]:
            st["H1-H4"] += an.all_hypotheses
            st["H1-H4, conclusion fails"] += an.all_hypotheses and not an.conclusion_holds
            st["characterisation holds"] += ((not an.hypotheses["H3"])
                                             or an.arank_LN_X - an.arank_X == LN.characterisation(an))
            st["LN defined"] += 1
    return {k: dict(v) for k, v in stats.items()}


#: the verdict model as a table (README and book): verdict, what earns it, its strength
VERDICT_MODEL = [
    ("proved", "formal (Coq kernel) or exact evidence of scope *general* covering every listed regime; for a "
               "concrete or existential claim, formal or exact evidence of scope *complete*; for a *generic* claim, "
               "only a general argument (a genericity argument whose null-set lemma is formal)", "formal or exact"),
    ("certified", "interval evidence of scope *complete*: a certified witness of an existential claim, or an "
                  "enclosure settling a concrete inequality", "interval"),
    ("supported", "holds on everything checked, nothing settles it (derivations at fixed sizes, instances, "
                  "float statistics), or settled only in some regimes; a *generic* claim's genericity argument "
                  "(failure forces a non-zero P to vanish, the null-set lemma cited) and its exceptional points "
                  "(failures that perturbations restore, shown) land here", "the weakest kind used"),
    ("conditional", "established in some listed regime and failing exactly or certifiably in another; the "
                    "condition says where", "the weakest kind used"),
    ("refuted", "fails in every regime with deciding evidence: an exact counterexample re-checked on this run, a "
                "rigorous interval certificate of failure, or an exact general negation; for a *generic* claim only a "
                "failure on a set of positive measure (a certified box, or an identity on an open set)",
     "exact or interval"),
    ("unsupported", "float evidence (or a derivation) against, nothing exact or certified against; for a "
                    "*generic* claim, a persistent failure (perturbations did not restore it, no box certified)",
     "float (or exact, for a persistent failure)"),
    ("not-checkable", "nothing decides it; the reason is recorded", "none"),
]


def verdict_model_markdown() -> str:
    rows = ["| verdict | what earns it | strength |", "|---|---|---|"]
    rows += [f"| **{v}** | {w} | {s} |" for v, w, s in VERDICT_MODEL]
    return "\n".join(rows)


#: one ledger reading per outcome of the generic form, and the evidence that earns it (the verdict-model page)
GENERIC_EXAMPLES = [
    ("failures only on a null set: exceptional points shown, supported", "RRO.bad-set-nowhere-dense", "corrected",
     "exceptional-point"),
    ("a certified failing box: refuted", "RC.attention-rank", "literal", "positive-measure"),
    ("an identity on the whole parameter space: refuted (exact)", "RRO.main", "for-all-weights", "positive-measure"),
    ("a genericity argument with a witness: supported, the null-set lemma named", "RRO.prop51", "literal", "generic"),
]


def generic_examples_markdown(dps: int = 50) -> str:
    """The four outcomes of the generic form on the suite's own readings, each with the evidence that earns it."""
    rows = []
    for what, cid, key, marker in GENERIC_EXAMPLES:
        r = run(cid, dps)
        rr = r.reading(key)
        pick = next((e for e in rr.evidence if (e.label == marker if marker == "exceptional-point" else
                                                 e.scope == marker)), None)
        ev = "" if pick is None else f"{pick.kind} / {pick.scope}: {_esc(pick.summary)[:600]}"
        space = _esc(rr.generic.space) if rr.generic is not None else ""
        cited = f" Cited: {_esc(rr.cites[0])}" if rr.cites and (pick is None or rr.cites[0] not in pick.summary) else ""
        rows.append([_esc(what), f"`{cid}` *{key}*", f"**{rr.verdict}** ({rr.strength})", space, ev + cited])
    return list_table(["outcome", "reading", "verdict", "parameter space", "the deciding evidence"], rows,
                      [16, 14, 10, 18, 42])
