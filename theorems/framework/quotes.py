r"""The paper's words: is a claim's quotation a verbatim passage of its source text?

A claim's ``quote`` is the paper's (or its abstract's, or the Dong explainer's) own words, in quotation marks
wherever it is shown. This module compares a quote with the source texts the way a careful reader would: blind
to whitespace, to how LaTeX is written (``\operatorname{rank}`` and ``rank``, ``\le`` and ``≤`` and ``<=``,
``\alpha`` and ``α``, ``\|`` and ``‖``, braces, ``$``), to curly and straight quotation marks and to dashes; but
not blind to words. A quote may contain

* ``...`` (or ``…``): an omission. The parts around it must appear in this order in one source text, each
  within :data:`MAX_GAP` characters of the previous one (an omission stays inside one passage);
* ``[text]`` after a space (or at the start): the suite's insertion (``[H1–H4]``), skipped like an omission;
* ``[label:]``: the start of a second passage, which may come from anywhere (``[§3:]``, ``[Abstract:]``,
  ``[Explainer:]``; a label naming the abstract or the explainer restricts the search to that text).

Parts joined without ``...`` must be contiguous in the source, so a quote spliced from two places, or words the
source does not contain, fail, naming the part that was not found.

The source texts are not in the repository (their licence is not ours): the short verbatim quotes are, in the
claims, and :data:`SOURCE_SHA256` holds the SHA-256 of each text the quotes were checked against. Where the texts are
is a setting (:func:`source_dir`): ``verify --sources DIR``, else the environment variable
``COLLAPSE_VERIFY_SOURCES``, else ``../shared/paper/`` beside the repository (the developers' machines and CI).
:func:`load_sources` checks each text's SHA-256 and refuses another text (another version or conversion of the
paper) with a message naming the file and both hashes, so that a quote is never judged against a text it was not
written from.

>>> src = {"paper": r"LN is exactly neutral — it preserves $\operatorname{rank}(X)$ precisely, neither helping "
...                  "nor hindering."}
>>> check_quote("it preserves rank(X) precisely", src).ok
True
>>> check_quote("LN is exactly neutral ... neither helping nor hindering", src).ok
True
>>> check_quote("LN is exactly neutral, neither helping nor hindering", src).ok  # spliced without "..."
False
"""
from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from .storage import REPO_ROOT

__all__ = ["SOURCE_DIR", "SOURCE_FILES", "SOURCE_SHA256", "SOURCES_ENV", "HOW_TO_GET_SOURCES", "SourceMismatch",
           "source_dir", "set_source_dir", "sources_available", "load_sources", "canonical", "Passage", "passages",
           "QuoteCheck", "check_quote", "SUITE_READING"]

def _source_dir() -> Path:
    """``shared/paper/`` in the nearest folder above the repository that has one (beside the main checkout, or two
    levels up from a worktree under ``wt/``); ``../shared/paper`` when none has (a user's clone: absent)."""
    for parent in REPO_ROOT.parents:
        if (parent / "shared" / "paper").is_dir():
            return parent / "shared" / "paper"
    return REPO_ROOT.parent / "shared" / "paper"


#: where the source texts live: ``shared/paper/`` above the repository (absent in a user's clone)
SOURCE_DIR = _source_dir()
#: the environment variable that names the folder of the source texts
SOURCES_ENV = "COLLAPSE_VERIFY_SOURCES"
#: the source texts by name
SOURCE_FILES = {"paper": "cirrincione-2026-rank-head-channel.md", "abstract": "cirrincione-2026-abstract.md",
                "explainer": "dong-2021-rank-collapse-explainer.md"}
#: the SHA-256 of each source text the quotes were checked against (file name -> hex digest); the texts themselves
#: are not shipped
SOURCE_SHA256 = {
    "cirrincione-2026-rank-head-channel.md": "97ef3c109342fd67b420dd298352d2302c928b3307c915a9f374adcfdc3aea87",
    "cirrincione-2026-abstract.md": "a9660be09e05e0a569689e72389469144265a4416f7d022090bdf73a515959ef",
    "dong-2021-rank-collapse-explainer.md": "f92f012bf9bd89b654fb87f3341665c84b1760417babfee612fb9483b110a621",
}
#: how a user gets the source texts (README, "The paper's words")
HOW_TO_GET_SOURCES = (
    "the source texts are the Markdown text of arXiv 2604.23681 (Cirrincione, 'Rank, Head-Channel "
    f"Non-Identifiability, and Symmetry Breaking': {SOURCE_FILES['paper']} and its abstract, "
    f"{SOURCE_FILES['abstract']}) and the Dong et al. 2021 explainer ({SOURCE_FILES['explainer']}); they are not "
    "in the repository (their "
    "licence is not ours). Put the three files in one folder and give it with `collapse-verify verify --sources DIR` "
    f"or {SOURCES_ENV}=DIR (default: ../shared/paper beside the repository); their SHA-256 must be those of "
    "theorems.framework.quotes.SOURCE_SHA256")
_CHOSEN: list[Path] = []


class SourceMismatch(ValueError):
    """A source text is present but is not the text the quotes were checked against (its SHA-256 differs)."""


def set_source_dir(directory: str | os.PathLike[str] | None) -> None:
    """Choose the folder of the source texts for this process (``verify --sources DIR``); None: back to the default."""
    _CHOSEN.clear()
    if directory is not None:
        _CHOSEN.append(Path(directory))


def source_dir() -> Path:
    """Where the source texts are read from: ``verify --sources DIR`` (:func:`set_source_dir`), else
    ``$COLLAPSE_VERIFY_SOURCES``, else :data:`SOURCE_DIR`."""
    if _CHOSEN:
        return _CHOSEN[0]
    env = os.environ.get(SOURCES_ENV, "").strip()
    return Path(env).expanduser() if env else SOURCE_DIR
#: the longest omission ``...`` may stand for, in canonical characters of the source (about a paragraph)
MAX_GAP = 700
#: how a claim with no quotation (the suite's own framing) is shown instead of quoted words
SUITE_READING = "the suite's reading"


def sources_available(directory: Path | None = None) -> bool:
    """Whether every source text is present in ``directory`` (default :func:`source_dir`): on the developers'
    machines and in CI, not in a user's clone. Their hashes are :func:`load_sources`'s to check."""
    d = source_dir() if directory is None else Path(directory)
    return all((d / f).is_file() for f in SOURCE_FILES.values())


def load_sources(directory: Path | None = None) -> dict[str, str]:
    """The source texts by name (:data:`SOURCE_FILES`) from ``directory`` (default :func:`source_dir`), each checked
    against :data:`SOURCE_SHA256`: a missing file is ``FileNotFoundError``, another text :class:`SourceMismatch`,
    each naming the file and saying how to get the right one."""
    d = source_dir() if directory is None else Path(directory)
    out = {}
    for name, f in SOURCE_FILES.items():
        path = d / f
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise FileNotFoundError(f"source text {path} not found; {HOW_TO_GET_SOURCES}") from None
        got = hashlib.sha256(data).hexdigest()
        if got != SOURCE_SHA256[f]:
            raise SourceMismatch(f"source text {path} has SHA-256 {got}, not {SOURCE_SHA256[f]}: it is not the text "
                                 "the quotes were checked against (another version or conversion of it?); "
                                 + HOW_TO_GET_SOURCES)
        out[name] = data.decode("utf-8")
    return out


# --- the canonical form -----------------------------------------------------------------------------------

#: LaTeX commands that only choose a font or a size: dropped (their argument stays)
_DROP = {"operatorname", "mathrm", "mathbf", "mathcal", "mathbb", "mathit", "mathsf", "mathscr", "mathfrak",
         "text", "textrm", "textit", "textbf", "boldsymbol", "bm", "left", "right", "bigl", "bigr", "Bigl", "Bigr",
         "biggl", "biggr", "big", "Big", "displaystyle", "textstyle", "quad", "qquad", "ldots", "cdots", "dots",
         "limits", "nolimits", "mkern", "hspace"}
#: LaTeX commands written as the character they print (the same character a plain-text quote would use)
_SYMBOL = {"le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "neq": "≠", "ne": "≠", "in": "∈", "notin": "∉",
           "subseteq": "⊆", "subset": "⊂", "perp": "⊥", "top": "T", "intercal": "T", "cdot": "·", "times": "×",
           "odot": "⊙", "otimes": "⊗", "oplus": "⊕", "to": "→", "rightarrow": "→", "mapsto": "↦",
           "Rightarrow": "⇒", "implies": "⇒", "iff": "⇔", "approx": "≈", "sim": "~", "ll": "≪", "gg": "≫",
           "infty": "∞", "sqrt": "√", "sum": "sum", "prod": "prod", "cap": "∩", "cup": "∪", "forall": "∀",
           "exists": "∃", "partial": "∂", "nabla": "∇", "circ": "∘", "star": "*", "ast": "*", "prime": "'",
           "langle": "⟨", "rangle": "⟩", "colon": ":", "mid": "|", "vert": "|", "Vert": "‖", "lVert": "‖",
           "rVert": "‖", "varepsilon": "epsilon", "epsilon": "epsilon", "varphi": "phi", "vartheta": "theta",
           "varrho": "rho", "emptyset": "∅", "setminus": "∖", "pm": "±", "wedge": "∧", "vee": "∨", "neg": "¬"}
#: characters a plain-text quote writes for the same thing
_CHARS = {"—": "-", "–": "-", "−": "-", "‐": "-", "‑": "-", "’": "'", "‘": "'", "`": "'", "∑": "sum", "∏": "prod",
          "⋆": "*", "′": "'", "⊤": "T", "ϵ": "epsilon", "ε": "epsilon", "ϕ": "phi", "φ": "phi", "ϑ": "theta",
          "∣": "|", "•": "", "⋯": "", "⋮": "", "&": ""}
_GREEK = {"α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ζ": "zeta", "η": "eta", "θ": "theta",
          "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu", "ν": "nu", "ξ": "xi", "π": "pi", "ρ": "rho",
          "σ": "sigma", "ς": "sigma", "τ": "tau", "υ": "upsilon", "χ": "chi", "ψ": "psi", "ω": "omega",
          "Γ": "gamma", "Δ": "delta", "Θ": "theta", "Λ": "lambda", "Ξ": "xi", "Π": "pi", "Σ": "sigma",
          "Φ": "phi", "Ψ": "psi", "Ω": "omega"}
#: ASCII spellings, longest first
_ASCII = (("|->", "↦"), ("<=>", "⇔"), ("<=", "≤"), (">=", "≥"), ("!=", "≠"), ("->", "→"), ("=>", "⇒"),
          ("||", "‖"))
_DELETE = set('${}#"“”„«»\\') | {" ", "\t", "\n", "\r", "\u00a0"}

_COMMAND = re.compile(r"\\([A-Za-z]+)\*?|\\(.)", re.S)


def _command(m: re.Match[str]) -> str:
    name, char = m.group(1), m.group(2)
    if name is not None:
        if name in _DROP:
            return " "
        return f" {_SYMBOL.get(name, name)} "
    return {"|": "‖", "{": "", "}": "", "%": "%", "&": "&", "_": "_", "#": "#", "$": "$"}.get(char, " ")


_NEGATED = ((r"\\not\s*\\subseteq", "⊈"), (r"\\not\s*\\in(?![A-Za-z])", "∉"), (r"\\not\s*=", "≠"))


def canonical(text: str) -> str:
    """The text as a string of what it says: no whitespace, LaTeX written as the characters it prints, Greek
    letters by name, one spelling of each operator, dashes and quotation marks unified, case folded."""
    t = unicodedata.normalize("NFKC", text)
    for pat, ch in _NEGATED:
        t = re.sub(pat, ch, t)
    t = _COMMAND.sub(_command, t)
    t = "".join(_GREEK.get(ch, _CHARS.get(ch, ch)) for ch in t)
    t = "".join(ch for ch in t if ch not in _DELETE and not ch.isspace())
    for a, b in _ASCII:
        t = t.replace(a, b)
    return t.casefold()


# --- quotes: passages and fragments -------------------------------------------------------------------------

@dataclass
class Passage:
    """One passage of a quote: its label (``"§3"`` for ``[§3:]``; ``""`` for the first) and the fragments
    between its omissions, as written."""

    label: str
    fragments: list[str] = field(default_factory=list)


_MARK = re.compile(r"(?:(?<=\s)|^)\[([^\[\]]*)\]|\.\.\.|…")


def passages(quote: str) -> list[Passage]:
    """Split a quote into passages (at ``[label:]``) and fragments (at ``...`` and ``[insertions]``)."""
    out = [Passage("")]
    pos = 0
    for m in _MARK.finditer(quote):
        out[-1].fragments.append(quote[pos:m.start()])
        label = m.group(1)
        if label is not None and label.strip().endswith(":"):
            out.append(Passage(label.strip()[:-1].strip()))
        pos = m.end()
    out[-1].fragments.append(quote[pos:])
    for p in out:
        p.fragments = [f for f in p.fragments if canonical(f)]
    return [p for p in out if p.fragments]


@dataclass
class QuoteCheck:
    """Whether a quote is verbatim: ``ok``; per passage the source it was found in (``found``); ``problem`` names
    the first part not found (with the longest beginning of it the source does contain)."""

    ok: bool
    found: list[str]
    problem: str | None = None


def _sources_for(label: str, names: Iterable[str]) -> list[str]:
    low = label.casefold()
    if "abstract" in low:
        return [n for n in names if n in ("abstract", "paper")]
    if "explainer" in low or "dong" in low:
        return [n for n in names if n == "explainer"]
    return list(names)


def _match(frags: list[str], text: str, start: int | None, gap: int) -> bool:
    """Fragments in order in ``text``, the first anywhere (start None) and each next within ``gap`` of the last."""
    if not frags:
        return True
    f = frags[0]
    lo = 0 if start is None else start
    hi = len(text) if start is None else min(len(text), start + gap + len(f))
    i = text.find(f, lo, hi)
    while i != -1:
        if _match(frags[1:], text, i + len(f), gap):
            return True
        i = text.find(f, i + 1, hi)
    return False


def _longest_prefix(frag: str, texts: list[str]) -> str:
    lo, hi = 0, len(frag)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if any(frag[:mid] in t for t in texts):
            lo = mid
        else:
            hi = mid - 1
    return frag[:lo]


def check_quote(quote: str, sources: dict[str, str], max_gap: int = MAX_GAP) -> QuoteCheck:
    """Is ``quote`` a verbatim passage (or labelled passages) of ``sources`` ({name: text})? See the module text."""
    canon = {k: canonical(v) for k, v in sources.items()}
    ps = passages(quote)
    if not ps:
        return QuoteCheck(False, [], "the quote has no words")
    found = []
    for k, p in enumerate(ps):
        names = _sources_for(p.label, canon)
        frags = [canonical(f) for f in p.fragments]
        hit = next((n for n in names if _match(frags, canon[n], None, max_gap)), None)
        if hit is not None:
            found.append(hit)
            continue
        where = f"passage {k + 1}" + (f" [{p.label}:]" if p.label else "")
        texts = [canon[n] for n in names]
        for j in range(len(frags)):  # the first fragment that breaks the chain
            if not any(_match(frags[: j + 1], t, None, max_gap) for t in texts):
                pre = _longest_prefix(frags[j], texts)
                alone = any(frags[j] in t for t in texts)
                why = ("found, but not within " f"{max_gap} characters after the part before it (a splice: start a "
                       "new passage with a [label:])") if alone else \
                      f"not in {' or '.join(names)}; the longest beginning of it that is: «{pre}»"
                return QuoteCheck(False, found, f"{where}, part {j + 1} «{p.fragments[j].strip()}»: {why}")
    return QuoteCheck(True, found)
