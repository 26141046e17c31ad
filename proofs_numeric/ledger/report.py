"""Markdown renderings of claim results, for the book (chapters import these).

Everything is computed when called: a chapter that shows a verdict runs the
claim's checks at build time.
"""
from __future__ import annotations

import json
import re
import sys
from collections import Counter, defaultdict

from theorems import formal as F
from theorems.framework import (
    CONJECTURES,
    CheckContext,
    ClaimResult,
    decode_instance,
    relative_path,
    run_claim,
    tri,
    typeset,
)

from .load import get, registry

__all__ = ["verdict_admonition", "ledger_markdown", "evidence_markdown", "run", "proof_steps_markdown",
           "verdict_model_markdown", "VERDICT_MODEL", "conjecture_markdown", "findings_markdown", "CHAPTER_TITLES",
           "formal_lemmas_markdown", "VERDICT_ORDER", "verdicts_by_chapter", "chapter_title", "conjecture_title",
           "paper_proof_audit_markdown", "tex_with_text_markdown", "rank_neutrality_stress",
           "chapter_claims", "chapter_verdicts_markdown"]

_ADMONITION = {"proved": "tip", "certified": "tip", "supported": "note", "conditional": "warning",
               "refuted": "danger", "unsupported": "warning", "not-checkable": "seealso", "error": "error"}

_CACHE: dict = {}


def run(claim_id: str, dps: int = 50) -> ClaimResult:
    key = (claim_id, dps)
    if key not in _CACHE:
        _CACHE[key] = run_claim(get(claim_id), CheckContext(dps=dps))
    return _CACHE[key]


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


def _cell(s) -> str:
    """Plain text for a table cell: escaped as :func:`_esc`, with a ``<wbr>`` break opportunity at the punctuation
    of every word longer than 12 characters (never between two letters or digits)."""
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
    import html
    parts = re.split(r"(?<=[/.])", str(path))
    return '<code class="docutils literal notranslate">' + "<wbr>".join(html.escape(x) for x in parts if x) + "</code>"


def evidence_markdown(evidence) -> str:
    """Every piece of evidence in three columns (what it is, where it decided what, and what was computed in which
    arithmetic): short headers, and no word in the table can be broken mid-word."""
    rows = []
    for e in evidence:
        holds = {True: "holds", False: "**fails**", None: "undecided"}[e.holds]
        what = _cell(e.summary) + (f" ({_path(e.counterexample)})" if e.counterexample else "")
        if e.holds is None and e.reason and e.reason not in e.summary:
            what += f" — undecided: {_cell(e.reason)}"
        what += f"; *arithmetic*: {_cell(e.arithmetic)}"
        rows.append([f"{_esc(e.kind)} ({_esc(e.scope)})", f"{_cell(e.regime)}: {holds}", what])
    return list_table(["evidence", "regime", "what was computed"], rows, [17, 13, 70])


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
             f"*{c.section}*, a {c.form} claim, verdict computed while this page was built: “{_esc(c.quote)}”", "",
             f"Formal statement: ${c.statement}$", ""]
    if why:
        parts += [f"{'Condition' if lit.verdict in ('conditional', 'unsupported') else 'Why'}: {_esc(why)}", ""]
    parts.append(evidence_markdown(lit.evidence))
    for rr in r.readings[1:]:
        parts += ["", f"Reading **{rr.key}**: ${rr.statement}$ — **{rr.verdict}** ({rr.strength})"
                  + (f"; {_esc(rr.condition)}" if rr.condition else ""), "", evidence_markdown(rr.evidence)]
    parts.append(":::")
    return "\n".join(parts)


def chapter_claims(chapter: str) -> list[str]:
    """The ids of every registered claim whose chapter is ``chapter`` (the registry decides, not the page)."""
    return [c.id for c in registry() if c.chapter == chapter]


def chapter_verdicts_markdown(chapter: str, dps: int = 50) -> str:
    """Every claim of a chapter, selected from the registry, each as its verdict admonition."""
    return "\n\n".join(verdict_admonition(cid, dps) for cid in chapter_claims(chapter))


def ledger_markdown(dps: int = 50) -> str:
    """The whole ledger as a Markdown table, every verdict computed now."""
    claims = registry()
    counts = Counter(run(c.id, dps).verdict for c in claims)
    head = (f"**{len(claims)} claims**: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1]))
            + ".\n\n")
    rows = []
    for c in claims:
        r = run(c.id, dps)
        name = f"[`{c.id}`](chapters/{c.chapter}.md)" if c.chapter else f"`{c.id}`"
        name += f" ({_esc(c.section)}" + (f": “{_esc(conjecture_title(c))}”)" if c.id in CONJECTURES else ")")
        if r.error:
            rows.append([name, "**ERROR**", _esc(r.error)])
            continue
        extra = []
        ce = [e for e in r.literal.evidence if e.kind == "counterexample"]
        if ce:
            extra.append(f"counterexample: {_esc(ce[0].summary)} (`{ce[0].counterexample}`)")
        if r.literal.condition:
            extra.append(f"condition: {_esc(r.literal.condition)}")
        elif r.verdict == "not-checkable" and r.literal.reason:
            extra.append(f"reason: {_esc(r.literal.reason)}")
        for rr in r.readings[1:]:
            extra.append(f"*{rr.key}*: {rr.verdict} ({rr.strength})")
        rows.append([name, f"**{r.verdict}** ({r.strength})", "; ".join(extra)])
    return head + list_table(["claim (section)", "verdict (strength)", "condition, counterexample, reason; readings"],
                             rows, [28, 17, 55])


def proof_steps_markdown(steps) -> str:
    """A module's PROOF_STEPS, each check run now: one block per step, its formula as display math with the full
    column (a table cell cannot wrap typeset math), the words and the outcome as prose."""
    out = []
    for k, (tex, words, kind, check) in enumerate(steps, 1):
        outcome = {True: "holds", False: "**fails**", None: "undecided"}[tri(check())]
        out += [f"**{k}.** {_esc(words)} (*{_esc(kind)}*; checked now: {outcome})", "", "$$", tex, "$$", ""]
    return "\n".join(out).rstrip() + "\n"


def conjecture_markdown(claim_id: str, dps: int = 50) -> str:
    """A user conjecture's whole chapter body, computed now: statement, hypotheses and conclusion, the
    exact algebra (its derivation steps, if any), the stress per regime, the counterexample typeset as
    a matrix with its file, and the verdict with its strength. `collapse-verify new` chapters call this."""

    conj = CONJECTURES[claim_id]
    c = conj.claim
    r = run(claim_id, dps)
    parts = [f"**Statement** (`{c.id}`, {_esc(c.section)}): ${c.statement}$", "",
             "**Hypotheses**: " + ", ".join(f"`{h}` ({_esc((p.__doc__ or '').strip().splitlines()[0] if p.__doc__ else h)})"
                                          for h, p in conj.hypotheses.items()) + ".",
             f"**Conclusion**: `{getattr(conj.conclusion, '__name__', 'conclusion')}` "
             f"({_esc(c.conclusion.strip().splitlines()[0])}).", ""]
    steps = c.proof_steps
    parts += ["### Exact algebra", ""]
    parts += [proof_steps_markdown(steps), "",
              "These steps are checked at fixed sizes (a *derivation*): evidence, not a proof."] if steps else         ["No derivation is attached: the evidence below is the exact stress and the counterexample search."]
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
            inst = decode_instance(stored[e.regime]["value"]) if stored else conj.found.get(e.regime)
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
    """Every registered Coq lemma (or those of one claim): the LaTeX statement beside Coq's own ``About`` output
    (not a hand-copied statement), its claim and reading, and the assumptions check, run now."""
    results = F.check()
    version = F.coq_version()
    lemmas = [lm for lm in F.LEMMAS if claim_id is None or lm.claim == claim_id]
    if not lemmas:
        return ""
    parts = [f"Checked now by Coq {version} with MathComp." if version else
             "**coqc is not installed here**: the lemmas below were not checked on this build (install Coq and "
             "MathComp: `apt-get install coq libcoq-mathcomp-algebra`)."]
    for lm in lemmas:
        r = results.get(lm.name)
        status = ("closed under the global context" if r and r.closed else
                  f"NOT accepted: {_esc(r.reason)}" if r and r.closed is False else
                  f"not checked: {_esc(r.reason) if r else 'no result'}")
        where = f"`{lm.claim}`" + (f", reading `{lm.reading}`" if lm.reading else " (headline)")
        parts += ["", f"**`{lm.name}`** — {where}; scope *{lm.scope}*; assumptions: **{status}**", "",
                  f"$${lm.statement}$$", "", f"{_esc(lm.words)}", ""]
        if r and r.about:
            parts += ["```coq", _coq_statement(r.about), "```"]
    return "\n".join(parts)


#: chapter slug -> the title the front page uses for it
CHAPTER_TITLES = {
    "rank_neutrality": "Rank-Neutrality of LayerNorm (§4)",
    "residual_obstruction": "Residual Rank Obstruction and the MLP's role (§5)",
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


def findings_markdown(dps: int = 50) -> str:
    """The front page's findings: per chapter, how many claims earned each verdict (computed now), linked; then
    every claim with its verdict and strength in a collapsible block."""
    total = Counter()
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
    head = (f"**{sum(total.values())} claims**: " + ", ".join(f"{n} {v}" for v, n in total.most_common()) + ".")
    return "\n".join([head, "", *rows, "", ":::{admonition} Every claim, with its verdict and strength",
                      ":class: dropdown", "", *detail, ":::"])


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
    from theorems.exact import layernorm as LN
    from theorems.paper import rank_neutrality as RN
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
               "concrete or existential claim, formal or exact evidence of scope *complete*", "formal or exact"),
    ("certified", "interval evidence of scope *complete*: a certified witness of an existential claim, or an "
                  "enclosure settling a concrete inequality", "interval"),
    ("supported", "holds on everything checked, nothing settles it (derivations at fixed sizes, instances, "
                  "float statistics), or settled only in some regimes", "the weakest kind used"),
    ("conditional", "established in some listed regime and failing exactly or certifiably in another; the "
                    "condition says where", "the weakest kind used"),
    ("refuted", "fails in every regime with deciding evidence: an exact counterexample re-checked on this run, a "
                "rigorous interval certificate of failure, or an exact general negation", "exact or interval"),
    ("unsupported", "float evidence (or a derivation) against, nothing exact or certified against", "float"),
    ("not-checkable", "nothing decides it; the reason is recorded", "none"),
]


def verdict_model_markdown() -> str:
    rows = ["| verdict | what earns it | strength |", "|---|---|---|"]
    rows += [f"| **{v}** | {w} | {s} |" for v, w, s in VERDICT_MODEL]
    return "\n".join(rows)
