"""``collapse-verify new NAME``: scaffold a conjecture in one module, with tests and a chapter.

Creates, relative to the project root (the folder holding ``pyproject.toml``):

* ``theorems/conjectures/<slug>.py``: one :func:`theorems.conjecture.conjecture` call with the
  statement, named hypotheses, a conclusion and an instance builder (fill them in);
* ``property_tests/user/test_<slug>.py``: one test that reads the predicates from the registered
  conjecture (:func:`property_tests.conjectures.stress_conjecture`), so it needs no edit;
* ``book/chapters/<slug>.md``: a chapter rendering statement, algebra, stress, counterexample and
  verdict (:func:`proofs_numeric.ledger.report.conjecture_markdown`), added to ``book/_toc.yml`` under
  "Conjectures".

``proofs_numeric/<slug>.py``, the fourth place of a slug, is not written: the theorem module's docstring
says why (a conjecture is decided exactly). ``theorems/__init__.py`` imports every module of
``theorems/conjectures/``, and ``property_tests/test_registry.py`` stresses every registered conjecture, so nothing
else needs an edit.
"""
from __future__ import annotations

import ast
import datetime as _dt
import keyword
import re
import unicodedata
from pathlib import Path

from proofs_numeric.output import SCAFFOLD_MARKER, UsageError, write_output

__all__ = ["scaffold", "remove", "slugify", "render", "ScaffoldError", "MARKER", "BACKUPS", "title_of"]

THEOREM = '''"""A user conjecture ({marker}).

Module: theorems.conjectures.{slug}
Claim: {claim_id}

The display name is ``TITLE`` below. Edit this one file: ``STATEMENT`` (LaTeX), the hypotheses (any
number, any names) and the conclusion, then set ``PLACEHOLDER = False`` (until then the conjecture is
not-checkable, "not filled in yet"). The generated test and chapter read them from the registered
conjecture, so renaming or adding predicates needs no other edit. Instances are exact (sympy
``Rational``); predicates return True, False or None (undecided: never turn None into False).

A false conjecture is a result, not a failure: `collapse-verify verify --claims CLAIM` (the claim above)
shows the smallest counterexample Hypothesis finds, `--store` keeps it under theorems/counterexamples/, and
`make test` stays green (its test asserts what was found). `collapse-verify new --remove TITLE` removes what
`new` wrote.

No numeric module: a conjecture is decided exactly, on its instances and by Hypothesis (to attach numeric
evidence by id, add a module of the same name with an ``EVIDENCE`` table to the numeric layer and list it in
its evidence registry).
"""
from __future__ import annotations

from sympy import Matrix, Rational

from theorems.blocks import rank  # exact building blocks: centred, layer_norm_ranks, rms_norm_ranks, ...
from theorems.conjecture import InstanceForm, conjecture

#: the name given to `collapse-verify new`, as a Python string literal
TITLE = {title_lines}
#: the placeholder marker: while it is True the ledger shows this conjecture as not-checkable ("not filled in yet")
#: and checks nothing. Set it to False once the statement, the hypotheses and the conclusion below are yours.
PLACEHOLDER = True
STATEMENT = r"\\text{{for every }}X\\text{{ meeting the hypotheses: }}\\operatorname{{rank}}X\\ge1"


def build_instance(draw, regime: str) -> Matrix:
    """An exact n x d matrix; ``draw(lo, hi)`` returns an integer (Hypothesis or a seeded RNG).

    Draw the rows first, then the columns, then the entries: counterexamples then shrink to few rows.
    """
    n = draw(1, 4)
    d = {{"n<d": n + draw(1, 2), "n=d": n, "n>d": max(1, n - draw(1, 2))}}[regime]
    if regime == "n>d" and n == 1:
        n, d = 2, 1
    return Matrix(n, d, lambda i, j: Rational(draw(-5, 5)))


def from_user(user) -> Matrix:
    """The instance from a user's input (`collapse-verify check CLAIM --X ...`), read exactly by the one exact
    reader: decimals are the fractions they spell, floats the dyadic rationals they store."""
    return user.matrix("X").sympy(limit=40_000, who=CLAIM.id)


def {h1}(X: Matrix) -> bool | None:
    """Hypothesis (replace with yours): some entry of X is non-zero."""
    return any(v != 0 for v in X)


def conclusion(X: Matrix) -> bool | None:
    """Conclusion (replace with yours): X has rank at least 1, computed exactly."""
    return rank(X) >= 1


CLAIM = conjecture(
    id="{claim_id}",
    section="user conjecture",
    quote=TITLE,
    statement=STATEMENT,
    hypotheses={{"{h1}": {h1}}},
    conclusion=conclusion,
    instances=build_instance,
    instance_from=InstanceForm(takes=("X",), build=from_user),
    regimes=("n<d", "n=d", "n>d"),
    chapter="{slug}",
    placeholder=PLACEHOLDER,
)
'''

TEST = '''"""Property tests of a user conjecture ({marker}).

Claim: {claim_id}
Module: theorems/conjectures/{slug}.py

The hypotheses and the conclusion are read from the registered conjecture: edit its module, not this file.
A true conjecture must hold on every draw meeting its hypotheses; a false one must be refuted by its stored
counterexample and by a search from scratch.
"""
from __future__ import annotations

from property_tests.conjectures import stress_conjecture

# importing the module registers the conjecture
from theorems.conjectures import {slug}  # noqa: F401


def test_{slug}_holds_or_is_refuted(counts):
    stress_conjecture("{claim_id}", counts)
'''

CHAPTER = '''---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

<!-- {marker} -->
# {title_md}

A user conjecture, registered in `theorems/conjectures/{slug}.py` as `{claim_id}`. Everything below is computed
while this page is built: the statement, the exact algebra, the stress per regime, the counterexample
(typeset, with its file) and the verdict with its strength.

```{{code-cell}} ipython3
:tags: [remove-input]
from IPython.display import Markdown, display
from proofs_numeric.ledger import report
display(Markdown(report.conjecture_markdown("{claim_id}")))
```
'''


class ScaffoldError(ValueError):
    """A name or root that ``new`` refuses (the message names the problem)."""


#: a generated file carries this marker; ``--force`` overwrites only files that carry it
MARKER = SCAFFOLD_MARKER
#: where ``--force`` keeps a file before regenerating it (relative to the project root): one folder per run
BACKUPS = Path(".collapse-verify") / "backups"
#: the part of ``book/_toc.yml`` that lists the conjectures' chapters
_TOC_CAPTION = "  - caption: Conjectures\n    chapters:\n"
#: longest display name accepted, and longest module name derived from it
MAX_NAME_CHARS = 120
MAX_SLUG_CHARS = 60
#: top-level folders of the project (their names, and every module and package inside the code folders, are the
#: suite's own: a conjecture may not take them)
PROJECT_FOLDERS = ("theorems", "proofs_numeric", "property_tests", "benchmarks", "book")
_CODE_FOLDERS = ("theorems", "proofs_numeric", "property_tests")


def suite_names(root: Path) -> set[str]:
    """Every module and package name of the suite under ``root`` (derived from the tree, not a hand list):
    the project folders, and each ``.py`` file's stem and each package folder inside the code folders,
    except the conjectures users wrote under ``theorems/conjectures/`` (each may be regenerated)."""
    names = set(PROJECT_FOLDERS) | {"test", "tests", "conftest"}
    for top in _CODE_FOLDERS:
        base = root / top
        if not base.is_dir():
            continue
        for p in base.rglob("*"):
            if "_build" in p.parts or "__pycache__" in p.parts or p.name.startswith("."):
                continue
            rel = p.relative_to(root)
            if rel.parts[:2] == ("theorems", "conjectures") and len(rel.parts) == 3:
                continue  # a user's conjecture (or one `new` wrote): regenerating it is allowed
            if p.is_dir() and p.name != "theorems":
                names.add(p.name)
            elif p.suffix == ".py" and p.stem != "__init__":
                names.add(p.stem)
    return names


#: symbols whose meaning a module name keeps as a word (longest first): "n > d" and "n < d" never share a module
SYMBOL_WORDS = (("<=", "le"), (">=", "ge"), ("!=", "ne"), ("==", "eq"), ("≤", "le"), ("≥", "ge"), ("≠", "ne"),
                ("⩽", "le"), ("⩾", "ge"), ("<", "lt"), (">", "gt"), ("=", "eq"), ("+", "plus"), ("∉", "notin"),
                ("∈", "in"), ("⊆", "subseteq"), ("⊂", "subset"), ("≈", "approx"), ("∞", "inf"))


def _symbol_words(name: str) -> str:
    for sym, word in SYMBOL_WORDS:
        name = name.replace(sym, f" {word} ")
    return name


def slugify(name: str) -> str:
    """A safe module name from a display name: ASCII letters, digits and ``_``; never a keyword.

    Accented letters lose their accents (``"Élan"`` -> ``elan``); comparison and set symbols become words
    (``<`` lt, ``>`` gt, ``<=``/``≤`` le, ``>=``/``≥`` ge, ``=`` eq, ``!=``/``≠`` ne, ``+`` plus, ``∈`` in, ...),
    so names that differ only by a symbol never share a module; anything else becomes ``_``.
    Names that leave no letter, start with a digit, are Python keywords (``class``, ``lambda``,
    soft keywords too) or names the suite uses itself are refused with :class:`ScaffoldError`.

    >>> slugify("LayerNorm sphere")
    'layernorm_sphere'
    >>> slugify("LayerNorm preserves matrix rank when n > d")
    'layernorm_preserves_matrix_rank_when_n_gt_d'
    >>> slugify("x' + str(__import__('os')) + '")
    'x_plus_str_import_os_plus'
    >>> slugify("class")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    proofs_numeric.ledger.scaffold.ScaffoldError: 'class' makes the module name 'class', a Python keyword; ...
    """
    if not isinstance(name, str) or not name.strip():
        raise ScaffoldError("the name is empty: give a name with at least one letter, e.g. 'LayerNorm sphere'")
    if len(name) > MAX_NAME_CHARS:
        raise ScaffoldError(f"the name has {len(name)} characters, above the limit of {MAX_NAME_CHARS}")
    bad = [c for c in name if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")]
    if bad:
        raise ScaffoldError("the name contains control or invisible characters "
                            f"({', '.join(repr(c) for c in bad[:3])})")
    ascii_name = unicodedata.normalize("NFKD", _symbol_words(name)).encode("ascii", "ignore").decode("ascii")
    s = re.sub(r"[^0-9a-zA-Z]+", "_", ascii_name).strip("_").lower()
    s = re.sub(r"_+", "_", s)
    if not s:
        raise ScaffoldError(f"{name!r} has no ASCII letter or digit to make a module name from; "
                            "give a name with ASCII letters (the display name may keep other characters)")
    if s[0].isdigit():
        raise ScaffoldError(f"{name!r} makes the module name {s!r}, which starts with a digit; start with a letter")
    if len(s) > MAX_SLUG_CHARS:
        raise ScaffoldError(f"{name!r} makes a module name of {len(s)} characters, above the limit of {MAX_SLUG_CHARS}")
    if keyword.iskeyword(s) or keyword.issoftkeyword(s):
        raise ScaffoldError(f"{name!r} makes the module name {s!r}, a Python keyword; choose another name")
    if s.startswith("test_"):
        raise ScaffoldError(f"{name!r} makes the module name {s!r}, a test module's name; choose another name")
    if not s.isidentifier():  # cannot happen after the substitutions; kept as the last guard
        raise ScaffoldError(f"{name!r} does not make a module name")
    return s


def _root(start: Path) -> Path:
    for p in [start, *start.parents]:
        if (p / "pyproject.toml").exists() and (p / "theorems").is_dir():
            return p
    raise ScaffoldError("run `collapse-verify new` inside the collapse-verify project (no pyproject.toml with a "
                        "theorems/ folder found), or give --root DIR")


def _inside(root: Path, path: Path) -> Path:
    """``path`` if it resolves inside ``root`` and is not a symlink, else ScaffoldError."""
    if path.is_symlink():
        raise ScaffoldError(f"{path} is a symbolic link; refusing to write through it")
    rp = path.resolve()
    try:
        rp.relative_to(root)
    except ValueError:
        raise ScaffoldError(f"{path} resolves outside the project root {root}; refusing to write") from None
    return rp


def render(name: str) -> tuple[str, dict[str, str]]:
    """(slug, {relative path: text}) for a display name; every Python file is compiled first."""
    slug = slugify(name)
    title = " ".join(name.split())  # one line: newlines and tabs were refused or folded
    fields = {"slug": slug, "title_lines": _literal_lines(title), "title_md": _md_escape(title),
              "claim_id": f"USER.{slug.replace('_', '-')}", "h1": "has_a_nonzero_entry", "marker": MARKER}
    files = {f"theorems/conjectures/{slug}.py": THEOREM.format(**fields),
             f"property_tests/user/test_{slug}.py": TEST.format(**fields),
             f"book/chapters/{slug}.md": CHAPTER.format(**fields)}
    for rel, text in files.items():
        if rel.endswith(".py"):
            try:
                compile(text, rel, "exec")
            except SyntaxError as e:  # a template defect, never the user's name
                raise ScaffoldError(f"internal error: the generated {rel} does not compile ({e})") from None
    return slug, files


#: the widest line of a string literal ``new`` writes (the project's line length is 120; a character of East Asian
#: width counts twice, as ruff counts it)
_LITERAL_WIDTH = 100


def _width(s: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in s)


def _literal_lines(text: str) -> str:
    """``text`` as a Python expression whose lines fit the project's line length: one literal, or adjacent literals
    in parentheses (Python joins them into the same string, and :func:`title_of` reads it back).

    >>> _literal_lines("LayerNorm sphere")
    "'LayerNorm sphere'"
    >>> eval(_literal_lines("x" * 150)) == "x" * 150
    True
    """
    if _width(repr(text)) <= _LITERAL_WIDTH:
        return repr(text)
    parts, cur = [], ""
    for ch in text:
        if cur and _width(repr(cur + ch)) > _LITERAL_WIDTH - 4:
            parts.append(cur)
            cur = ""
        cur += ch
    parts.append(cur)
    return "(\n" + "".join(f"    {p!r}\n" for p in parts) + ")"


def _md_escape(s: str) -> str:
    """Markdown/MyST-inert text for a heading: every punctuation character backslash-escaped."""
    return "".join("\\" + c if (c in "\\`*_{}[]()<>#+-.!|$%:~=\"'&@^;,/?" ) else c for c in s)


def title_of(module: Path) -> str | None:
    """The ``TITLE`` a conjecture module declares (read from its syntax tree, never run), or None."""
    try:
        tree = ast.parse(module.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "TITLE" for t in node.targets):
            try:
                v = ast.literal_eval(node.value)
            except ValueError:
                return None
            return v if isinstance(v, str) else None
    return None


def _write(path: Path, text: str, force: bool = False) -> None:
    try:
        write_output(path, text, what="new", kind="scaffold", force=force)
    except UsageError as e:
        raise ScaffoldError(str(e)) from None


def _backup_dir(root: Path) -> Path:
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    base = root / BACKUPS / stamp
    k = 1
    while base.exists():
        k += 1
        base = root / BACKUPS / f"{stamp}-{k}"
    return base


def scaffold(name: str, root: Path | str | None = None, force: bool = False,
             backups: list | None = None) -> list[Path]:
    """Write the three files of a new conjecture (and its table-of-contents entry) inside ``root``.

    ``force`` regenerates files an earlier ``new`` wrote for the same title: a file that differs from what would be
    written now (edited by hand) is first copied under :data:`BACKUPS`, and the stored counterexample of the claim
    (the regenerated placeholder reads none) is moved there; ``backups`` collects ``(original, backup)`` pairs.
    A module of the same name holding another title is refused even with ``force``."""
    slug, files = render(name)
    title = " ".join(name.split())
    root = _project_root(root)
    taken = suite_names(root)
    if slug in taken:
        raise ScaffoldError(f"{name!r} makes the module name {slug!r}, which the suite uses itself (a module or "
                            "package of theorems/, proofs_numeric/ or property_tests/); choose another name")
    module_rel = f"theorems/conjectures/{slug}.py"
    module = root / module_rel
    if module.is_file() and not module.is_symlink():
        head = module.read_text(encoding="utf-8", errors="replace")[:2000]
        if MARKER in head:
            other = title_of(module)
            if other != title:
                held = (f"the conjecture titled {other!r}" if other is not None
                        else "a conjecture whose TITLE cannot be read")
                raise ScaffoldError(f"{module_rel} already holds {held}; {title!r} makes the same module name "
                                    f"{slug!r}: choose another name (--force never replaces another conjecture)")
    targets, edited = {}, []
    for rel, text in files.items():
        path = root / rel
        if not path.parent.is_dir():
            if path.parent.exists():
                raise ScaffoldError(f"{path.parent} is not a folder")
            _inside(root, path.parent.parent)
            path.parent.mkdir(parents=False, exist_ok=True)
        target = _inside(root, path)
        if path.exists():
            if not force:
                raise FileExistsError(f"{rel} already exists (use --force to overwrite a file `new` generated)")
            head = path.read_text(encoding="utf-8", errors="replace")[:2000]
            if MARKER not in head:
                raise ScaffoldError(f"{rel} exists and was not generated by `collapse-verify new`; --force never "
                                    "overwrites it")
            if path.read_text(encoding="utf-8", errors="replace") != text:
                edited.append((rel, target))
        targets[target] = text
    claim_id = f"USER.{slug.replace('_', '-')}"
    stored = root / "theorems" / "counterexamples" / f"{claim_id}.json"
    moved = [("theorems/counterexamples/" + stored.name, _inside(root, stored))] if force and stored.is_file() else []
    if edited or moved:
        base = _backup_dir(root)
        for rel, src in [*edited, *moved]:
            dst = base / f"{rel}.bak"
            dst.parent.mkdir(parents=True, exist_ok=True)
            _write(dst, src.read_text(encoding="utf-8", errors="replace"))
            if backups is not None:
                backups.append((src, dst))
        for _, src in moved:
            src.unlink()
    for target, text in targets.items():
        _write(target, text)
    written = list(targets)
    toc = root / "book" / "_toc.yml"
    if toc.is_file() and not toc.is_symlink():
        _inside(root, toc)
        t = toc.read_text(encoding="utf-8")
        entry = f"      - file: chapters/{slug}\n"
        if entry not in t:
            if _TOC_CAPTION not in t:
                t = t.rstrip("\n") + "\n" + _TOC_CAPTION
            head, tail = t.split(_TOC_CAPTION, 1)
            t = head + _TOC_CAPTION + entry + tail
            _write(toc, t, force=True)  # an entry added to the project's own table of contents (not a replacement)
        written.append(toc)
    return written


def remove(name: str, root: Path | str | None = None, backups: list | None = None) -> list[Path]:
    """Undo ``new NAME``: remove the three files it wrote and its ``book/_toc.yml`` entry; the paths removed.

    ``NAME`` is the title given to ``new`` (or the module name, or the claim id). Only files that carry
    :data:`MARKER` are removed, and the module only if it holds this title: anything else is refused with
    :class:`ScaffoldError` before anything is removed. A generated file edited since (the conjecture filled in) and
    the claim's stored counterexample (``verify --store``) are first copied under :data:`BACKUPS` (``backups``
    collects ``(original, backup)`` pairs), so nothing is lost. The "Conjectures" part of the table of contents is
    removed too when this was its last chapter."""
    raw = " ".join(str(name).split())
    slug = None
    if raw.startswith("USER.") and re.fullmatch(r"USER\.[a-z0-9-]+", raw):
        slug = raw[len("USER."):].replace("-", "_")
    elif re.fullmatch(r"[a-z][a-z0-9_]*", raw):
        slug = raw
    if slug is None:
        slug, files = render(raw)
    else:
        files = None
    root = _project_root(root)
    module_rel = f"theorems/conjectures/{slug}.py"
    module = root / module_rel
    title = title_of(module) if module.is_file() else None
    if files is None:  # named by its module or claim id: the title is the module's own
        if title is None:
            if module.exists() and not module.is_symlink():
                raise ScaffoldError(f"{module_rel} declares no TITLE: it was not generated by `collapse-verify new`; "
                                    "nothing removed")
            raise ScaffoldError(f"no conjecture {raw!r}: {module_rel} does not exist; nothing removed")
        slug2, files = render(title)
        if slug2 != slug:
            raise ScaffoldError(f"{module_rel} holds the title {title!r}, which makes the module name {slug2!r}, not "
                                f"{slug!r}: not a module `collapse-verify new` generated; nothing removed")
    elif title is not None and title != raw:
        raise ScaffoldError(f"{module_rel} holds the conjecture titled {title!r}, not {raw!r}; nothing removed "
                            f"(give its title, its module name {slug!r}, or its claim id)")
    present, edited = [], []
    for rel, text in files.items():
        path = root / rel
        if not path.exists() and not path.is_symlink():
            continue
        if path.is_symlink() or not path.is_file():
            raise ScaffoldError(f"{rel} is not a regular file (a link or a folder): `collapse-verify new` did not "
                                "write it; nothing removed")
        target = _inside(root, path)
        body = target.read_text(encoding="utf-8", errors="replace")
        if MARKER not in body[:2000]:
            raise ScaffoldError(f"{rel} was not generated by `collapse-verify new` (no marker); refusing to remove it; "
                                "nothing removed")
        present.append(target)
        if body != text:
            edited.append((rel, target))
    toc = root / "book" / "_toc.yml"
    entry = f"      - file: chapters/{slug}\n"
    toc_text = toc.read_text(encoding="utf-8") if toc.is_file() and not toc.is_symlink() else None
    in_toc = toc_text is not None and entry in toc_text
    if not present and not in_toc:
        raise ScaffoldError(f"nothing of {raw!r} to remove: none of {', '.join(files)} exists and book/_toc.yml has "
                            "no entry for it")
    claim_id = f"USER.{slug.replace('_', '-')}"
    stored = root / "theorems" / "counterexamples" / f"{claim_id}.json"
    moved = [("theorems/counterexamples/" + stored.name, _inside(root, stored))] if stored.is_file() else []
    if edited or moved:
        base = _backup_dir(root)
        for rel, src in [*edited, *moved]:
            dst = base / f"{rel}.bak"
            dst.parent.mkdir(parents=True, exist_ok=True)
            _write(dst, src.read_text(encoding="utf-8", errors="replace"))
            if backups is not None:
                backups.append((src, dst))
    removed = []
    for target in present:
        target.unlink()
        removed.append(target)
    for _, src in moved:
        src.unlink()
    if in_toc and toc_text is not None:
        t = toc_text.replace(entry, "", 1)
        if _TOC_CAPTION in t:  # the part has no chapter left: an empty part would break the book
            head, tail = t.split(_TOC_CAPTION, 1)
            if not tail.startswith("      - "):
                t = head + tail
        _write(toc, t, force=True)  # an entry removed from the project's own table of contents
        removed.append(toc)
    return removed


def _project_root(root: Path | str | None) -> Path:
    if root is None:
        return _root(Path.cwd().resolve())
    r = Path(root)
    if not r.is_dir():
        raise ScaffoldError(f"--root {r} is not a directory")
    r = r.resolve()
    if not (r / "theorems").is_dir():
        raise ScaffoldError(f"--root {r} has no theorems/ folder: it is not a collapse-verify project")
    return r
