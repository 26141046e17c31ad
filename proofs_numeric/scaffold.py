"""``collapse-verify new NAME``: scaffold a conjecture in one module, with tests and a chapter.

Creates, relative to the project root (the folder holding ``pyproject.toml``):

* ``theorems/<slug>.py``: one :func:`theorems.conjecture.conjecture` call with the
  statement, named hypotheses, a conclusion and an instance builder (fill them in);
* ``property_tests/test_<slug>.py``: Hypothesis strategies named after the hypotheses
  and one property per hypothesis set;
* ``book/chapters/<slug>.md``: a chapter that renders the conjecture's computed verdict,
  added to ``book/_toc.yml`` under "Conjectures".

``theorems/__init__.py`` imports every module of the package, and
``property_tests/test_registry.py`` stresses every registered conjecture, so nothing else
needs an edit.
"""
from __future__ import annotations

import re
from pathlib import Path

__all__ = ["scaffold", "slugify"]

THEOREM = '''r"""{title} (user conjecture).

Statement: fill in ``STATEMENT`` (LaTeX), the hypotheses and the conclusion below.
Instances are exact (sympy ``Rational``); predicates return True, False or None.
"""
from __future__ import annotations

from sympy import Matrix, Rational

from theorems.conjecture import conjecture

STATEMENT = r"\\text{{for every }}X\\text{{ meeting the hypotheses: conclusion}}"


def build_instance(draw, regime: str) -> Matrix:
    """An exact n x d matrix; ``draw(lo, hi)`` returns an integer (Hypothesis or a seeded RNG)."""
    d = draw(2, 5)
    n = {{"n<d": draw(1, d - 1), "n=d": d, "n>d": draw(d + 1, d + 3)}}[regime]
    return Matrix(n, d, lambda i, j: Rational(draw(-5, 5)))


def {h1}(X: Matrix) -> bool | None:
    """Hypothesis: every row is non-constant (replace with yours)."""
    return all(len(set(X.row(i))) > 1 for i in range(X.shape[0]))


def conclusion(X: Matrix) -> bool | None:
    """Conclusion (replace with yours): X has at least one non-zero entry."""
    return any(v != 0 for v in X)


CLAIM = conjecture(
    id="{claim_id}",
    section="user conjecture",
    quote="{title}",
    statement=STATEMENT,
    hypotheses={{"{h1}": {h1}}},
    conclusion=conclusion,
    instances=build_instance,
    regimes=("n<d", "n=d", "n>d"),
    chapter="{slug}",
)
'''

TEST = '''"""Property tests for the conjecture {claim_id} (theorems/{slug}.py)."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from theorems import {slug} as C


@st.composite
def instances_meeting_{h1}(draw):
    X = C.build_instance(lambda lo, hi: draw(st.integers(lo, hi)), draw(st.sampled_from(["n<d", "n=d", "n>d"])))
    return X


@given(instances_meeting_{h1}())
def test_{slug}_conclusion_under_hypotheses(X):
    if C.{h1}(X) is True:
        assert C.conclusion(X) is not False
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

# {title}

A user conjecture, registered in `theorems/{slug}.py` as `{claim_id}`.

```{{code-cell}} ipython3
from IPython.display import Markdown, display
from theorems import {slug} as C
from proofs_numeric import report
display(Markdown(f"Statement: ${{C.STATEMENT}}$"))
display(Markdown(report.verdict_admonition("{claim_id}")))
```
'''


def slugify(name: str) -> str:
    s = re.sub(r"[^0-9a-zA-Z]+", "_", name).strip("_").lower()
    if not s or s[0].isdigit():
        raise ValueError(f"{name!r} does not make a module name (start with a letter)")
    return s


def _root(start: Path) -> Path:
    for p in [start, *start.parents]:
        if (p / "pyproject.toml").exists() and (p / "theorems").is_dir():
            return p
    raise FileNotFoundError("run `collapse-verify new` inside the collapse-verify project (no pyproject.toml found)")


def scaffold(name: str, root: Path | None = None, force: bool = False) -> list[Path]:
    slug = slugify(name)
    import theorems
    if slug in getattr(theorems, "MODULES", []) and not force:
        raise FileExistsError(f"theorems/{slug}.py already exists")
    root = _root(Path(root or Path.cwd()).resolve())
    fields = {"slug": slug, "title": name.strip(), "claim_id": f"USER.{slug.replace('_', '-')}",
              "h1": "has_nonconstant_rows"}
    files = {root / "theorems" / f"{slug}.py": THEOREM, root / "property_tests" / f"test_{slug}.py": TEST,
             root / "book" / "chapters" / f"{slug}.md": CHAPTER}
    for path in files:
        if path.exists() and not force:
            raise FileExistsError(f"{path.relative_to(root)} already exists (use --force to overwrite)")
    for path, text in files.items():
        path.write_text(text.format(**fields))
    toc = root / "book" / "_toc.yml"
    t = toc.read_text()
    entry = f"      - file: chapters/{slug}\n"
    if entry not in t:
        if "  - caption: Conjectures\n    chapters:\n" not in t:
            t = t.rstrip("\n") + "\n  - caption: Conjectures\n    chapters:\n"
        head, tail = t.split("  - caption: Conjectures\n    chapters:\n", 1)
        t = head + "  - caption: Conjectures\n    chapters:\n" + entry + tail
        toc.write_text(t)
    return list(files) + [toc]
