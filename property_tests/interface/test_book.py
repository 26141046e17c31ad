"""The book builds offline, every chapter executes, math is typeset locally.

``test_book_builds_offline`` builds the book once per session into a temporary
folder (``make book``'s command, ``python book/_ext/parallel_build.py build -W -n --keep-going``: a failing cell
or a warning fails it) and checks the HTML. ``test_book_in_headless_chromium`` opens the
pages in Debian's ``chromium`` (installed by ``.ci/run``) through
playwright-python at 1400 px and checks that MathJax typeset every math element,
every image loaded, every table, code block and display formula fits the text
column (no horizontal scrolling), at 1400 and 800 px no formula is clipped without a scrollbar and no element is
wider than its column (issue 58; ``test_book_browser_test_catches_a_clipped_formula_and_a_wide_element`` shows the
check failing on the theme's clipping and on a raw sympy string), and no word in a table cell is broken across lines
between two letters or digits; ``test_book_browser_test_catches_a_word_broken_in_a_table`` shows that last check
failing on a planted table. It saves a screenshot of each page's first screen (1400 x 1000: what a reader sees
first) under ``book/_build/screenshots/``; ``COLLAPSE_VERIFY_FULL_SCREENSHOTS=1`` saves whole pages instead (about
30 s more: Chromium renders pages up to 55000 px tall). Without Chromium it is skipped with the reason.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from proofs_numeric.ledger import registry, report
from property_tests.paper.quick_runs import LEDGER_GROUP

BOOK = Path(__file__).resolve().parents[2] / "book"
#: whole-page screenshots (set COLLAPSE_VERIFY_FULL_SCREENSHOTS=1); by default the first screen of each page
FULL_SCREENSHOTS = os.environ.get("COLLAPSE_VERIFY_FULL_SCREENSHOTS", "") not in ("", "0")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
_OUTSIDE = re.compile(r"""(?:src|href)\s*=\s*["'](?:https?:)?//""", re.I)
_CDN = re.compile(r"unpkg|jsdelivr|cdnjs|googleapis|mathjax\.org|cdn\.", re.I)

# one worker builds the book once for all of them (make test runs pytest -n 2 --dist loadgroup), the worker that
# computes the session's quick ledger the build reads
pytestmark = [pytest.mark.book, pytest.mark.xdist_group(LEDGER_GROUP)]


def _toc_files() -> list[str]:
    toc = yaml.safe_load((BOOK / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc.get("parts", []):
        files += [c["file"] for c in part.get("chapters", [])]
    files += [c["file"] for c in toc.get("chapters", [])]
    return files


@pytest.fixture(scope="session")
def built_book(tmp_path_factory, quick_ledger_file) -> Path:
    out = tmp_path_factory.mktemp("book")
    cmd = [sys.executable, str(BOOK / "_ext" / "parallel_build.py"), "build", "-W", "-n", "--keep-going", str(BOOK),
           "--path-output", str(out)]
    proc = subprocess.run(cmd,
                          capture_output=True, text=True, timeout=1800,
                          # the quick ledger (the pages' provenance says so): this build checks that every page
                          # executes and renders; `make book` computes the full one (or reuses make verify's)
                          env={**os.environ, "PYDEVD_DISABLE_FILE_VALIDATION": "1", report.BOOK_QUICK_ENV: "1",
                               # the session's quick ledger (its key matches the test build's): the pages read it
                               "COLLAPSE_VERIFY_LEDGER": str(quick_ledger_file)})
    if proc.returncode != 0:
        pytest.fail(f"book build failed:\n{proc.stdout[-6000:]}\n{proc.stderr[-6000:]}")
    return out / "_build" / "html"


class _TextOutsideMath(HTMLParser):
    """Collects text that is not inside math, code, scripts or styles."""
    SKIP = {"script", "style", "pre", "code", "math"}

    def __init__(self):
        super().__init__()
        self.stack: list[bool] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in ("br", "img", "meta", "link", "input", "hr"):
            return
        cls = dict(attrs).get("class") or ""
        skip = tag in self.SKIP or "math" in cls.split() or "highlight" in cls
        self.stack.append(skip or (bool(self.stack) and self.stack[-1]))

    def handle_endtag(self, tag):
        if tag in ("br", "img", "meta", "link", "input", "hr"):
            return
        if self.stack:
            self.stack.pop()

    def handle_data(self, data):
        if not (self.stack and self.stack[-1]):
            self.text.append(data)


def test_book_builds_offline(built_book):
    html_files = list(built_book.rglob("*.html"))
    assert (built_book / "_static" / "mathjax" / "tex-chtml.js").is_file(), "MathJax must be served locally"
    for f in _toc_files():
        assert (built_book / f"{f}.html").is_file(), f"chapter {f} missing from the build"
    for page in html_files:
        html = page.read_text(errors="replace")
        assert not _OUTSIDE.search(html), f"{page.name} loads something from outside: {_OUTSIDE.search(html).group(0)}"
        assert not _CDN.search(html), f"{page.name} references a CDN: {_CDN.search(html).group(0)}"
        p = _TextOutsideMath()
        p.feed(html)
        text = "".join(p.text)
        raw = re.search(r"\$[^$\s][^$]*\$", text)
        assert raw is None, f"{page.name}: raw math left in text: {raw.group(0)[:80]!r}"
    index = re.sub(r"<[^>]+>", "", (built_book / "index.html").read_text())
    # the test build read the session's quick ledger (its key matched) and says it is a quick test build
    assert "QUICK: a test build of the book" in index and "(its key matches this source)" in index
    chapter = (built_book / "chapters" / "rank_neutrality.html").read_text()
    assert "<img" in chapter, "the chapter's figure is missing"
    assert "Traceback" not in chapter


def test_book_ledger_page_is_rendered_from_the_registry(built_book):
    html = (built_book / "ledger.html").read_text()
    for c in registry():
        assert c.id in html


#: every table, code block and display formula: its right edge within the article's, and no horizontal scrolling
_OVERFLOW_JS = r"""
(() => {
  const art = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
  const right = art.getBoundingClientRect().right + 1;
  const out = [];
  for (const m of art.querySelectorAll('td mjx-container, th mjx-container')) {  // typeset math cannot wrap
    const cell = m.closest('td, th'), r = m.getBoundingClientRect(), c = cell.getBoundingClientRect();
    let scrolls = false;  // in its own scrolling box inside the cell (the book's span.math): read by scrolling
    for (let b = m.parentElement; b && b !== cell; b = b.parentElement) {
      const ox = getComputedStyle(b).overflowX;
      if (ox === 'auto' || ox === 'scroll') { scrolls = b.getBoundingClientRect().right <= c.right + 1; break; }
    }
    if (r.width > 0 && r.right > c.right + 1 && !scrolls) {
      out.push('math in a table cell ' + Math.round(r.right - c.right) + ' px past its cell: '
               + (cell.textContent || '').trim().slice(0, 60).replace(/\s+/g, ' '));
    }
  }
  const els = art.querySelectorAll('table, pre, mjx-container[display="true"], div.math');
  for (const el of els) {
    const r = el.getBoundingClientRect();
    if (r.width === 0) continue;
    const wide = r.right > right, scroll = el.scrollWidth > el.clientWidth + 1;
    let box = el.parentElement, clipped = false;
    while (box && box !== art) {
      if (box.scrollWidth > box.clientWidth + 1 && getComputedStyle(box).overflowX !== 'visible') {
        clipped = true; break;
      }
      box = box.parentElement;
    }
    if (wide || (scroll && el.tagName !== 'MJX-CONTAINER') || clipped) {
      out.push(el.tagName.toLowerCase() + ' ' + Math.round(r.right - right) + ' px past the column'
               + (scroll ? ', scrolls' : '') + (clipped ? ', clipped by ' + box.className : '')
               + ': ' + (el.textContent || '').trim().slice(0, 60).replace(/\s+/g, ' '));
    }
  }
  return out;
})()
"""


#: issue 58: a formula clipped without a scrollbar (MathJax output inside a box whose overflow is hidden: the theme's
#: ``span.math``), and any element wider than its column that no scrolling box holds (a raw sympy string, a drawing
#: at its own size): each offending element once (the outermost), with how far it reaches past
_CLIPPED_JS = r"""
(() => {
  const art = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
  const right = art.getBoundingClientRect().right + 1;
  const out = [];
  const text = el => (el.textContent || '').trim().slice(0, 60).replace(/\s+/g, ' ');
  // the nearest box between el and the column that does not let its content overflow (or null)
  const holder = el => {  // el: an element or a text node
    for (let b = el.parentElement; b && b !== art; b = b.parentElement) {
      if (getComputedStyle(b).overflowX !== 'visible') return b;
    }
    return null;
  };
  for (const m of art.querySelectorAll('mjx-container')) {  // the typeset formula's own box (not the invisible
    const b = holder(m);                                       // assistive MathML beside it, which may be wider)
    if (!b || !['hidden', 'clip'].includes(getComputedStyle(b).overflowX)) continue;
    const r = m.getBoundingClientRect(), c = b.getBoundingClientRect();
    const hidden = Math.max(r.right - (c.left + b.clientLeft + b.clientWidth), c.left + b.clientLeft - r.left);
    if (r.width > 0 && hidden > 1) {
      out.push('formula clipped without a scrollbar by ' + b.tagName.toLowerCase() + '.' + b.className.split(' ')[0]
               + ' (' + Math.round(hidden) + ' px hidden): ' + text(m));
    }
  }
  const wide = [];
  const report = (el, reach, what) => {
    if (wide.some(w => w.contains(el))) return;
    wide.push(el);
    out.push(el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ')[0] : '') + ' '
             + Math.round(reach - right) + ' px wider than its column (' + what + '): ' + text(el));
  };
  for (const el of art.querySelectorAll('*')) {  // boxes
    const st = getComputedStyle(el);
    if (st.position === 'absolute' || st.position === 'fixed' || st.display === 'none') continue;
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > right + 1 && !holder(el)) report(el, r.right, Math.round(r.width) + ' px wide');
  }
  const walker = document.createTreeWalker(art, NodeFilter.SHOW_TEXT, {  // text overflowing its box
    acceptNode: n => n.parentElement.closest('mjx-container, script, style') ? NodeFilter.FILTER_REJECT
                                                                              : NodeFilter.FILTER_ACCEPT});
  const range = document.createRange();
  let node;
  while ((node = walker.nextNode())) {
    if (!node.textContent.trim()) continue;
    range.selectNodeContents(node);
    const r = range.getBoundingClientRect();
    if (r.width > 0 && r.right > right + 1 && !holder(node)) report(node.parentElement, r.right, 'its text');
  }
  return out;
})()
"""


#: every word of a table cell that the browser broke across two lines between two letters or digits ("ki/nd",
#: "100/0"): per text node, the characters' line boxes (a Range per character); a break after a hyphen, a slash, a
#: dot or any other non-alphanumeric character is where a line may break, and is not reported
_BROKEN_WORD_JS = r"""
(() => {
  const art = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
  const out = [];
  const alnum = /[\p{L}\p{N}]/u;
  for (const cell of art.querySelectorAll('td, th')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT, {
      acceptNode: n => n.parentElement.closest('mjx-container, script, style') ? NodeFilter.FILTER_REJECT
                                                                                : NodeFilter.FILTER_ACCEPT});
    let node, prev = null, prevCh = '', word = '';
    const range = document.createRange();
    while ((node = walker.nextNode())) {
      const t = node.textContent;
      for (let i = 0; i < t.length; i++) {
        const ch = t[i];
        if (/\s/.test(ch)) { prev = null; prevCh = ''; word = ''; continue; }
        range.setStart(node, i); range.setEnd(node, i + 1);
        const rs = range.getClientRects();
        if (!rs.length) continue;
        const r = rs[rs.length - 1];  // on a later line: below the previous character and left of it
        if (prev !== null && r.top >= prev.bottom - 1 && r.left < prev.left && alnum.test(prevCh) && alnum.test(ch)) {
          let j = i; let rest = '';
          while (j < t.length && !/\s/.test(t[j]) && rest.length < 30) rest += t[j++];
          out.push('word broken across lines in a table cell: "' + word + '/' + rest + '" in: '
                   + (cell.textContent || '').trim().slice(0, 60).replace(/\s+/g, ' '));
        }
        prev = r; prevCh = ch; word = (word + ch).slice(-30);
      }
    }
  }
  return out;
})()
"""


def _launch(sync_api, p):
    return p.chromium.launch(executable_path=CHROMIUM, args=[
        "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"])


@pytest.mark.browser
def test_book_browser_test_catches_a_word_broken_in_a_table(tmp_path):
    """The detector fails on a planted table whose narrow column breaks a word mid-letters (the book's own CSS once
    did this: overflow-wrap anywhere gave "ki/nd", "regim/e", "100/0"), and passes on one that only wraps at spaces
    and after punctuation."""
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium; .ci/run does this)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright-python not installed")
    planted = tmp_path / "planted.html"
    planted.write_text("""<html><body><article class="bd-article" style="width: 600px">
      <table style="table-layout: fixed; width: 300px"><tr>
        <td style="width: 40px; overflow-wrap: anywhere">counterexample</td>
        <td style="width: 260px">kind regime identity</td></tr></table></article></body></html>""")
    fine = tmp_path / "fine.html"
    fine.write_text("""<html><body><article class="bd-article" style="width: 600px">
      <table style="width: 120px"><tr><td>kind regime identity of a claim, wrapped only at spaces;
        theorems/counterexamples/RN.main.json</td></tr></table></article></body></html>""")
    with sync_api.sync_playwright() as p:
        browser = _launch(sync_api, p)
        try:
            page = browser.new_page()
            page.set_viewport_size({"width": 1400, "height": 1000})
            page.goto(planted.as_uri())
            found = page.evaluate(_BROKEN_WORD_JS)
            assert found and "counterexample" in found[0].replace("/", ""), found
            page.goto(fine.as_uri())
            assert page.evaluate(_BROKEN_WORD_JS) == []
        finally:
            browser.close()


_THEME_MATH = "span.math { align-items: baseline; display: inline-flex; max-width: 100%; overflow: hidden }"
_LONG_FORMULA = ('<span class="math"><mjx-container style="display: inline-block; white-space: nowrap">'
                 + "x + " * 400 + "y</mjx-container></span>")


@pytest.mark.browser
def test_book_browser_test_catches_a_clipped_formula_and_a_wide_element(tmp_path):
    """Issue 58: the detector fails on a long inline formula cut by the theme's ``span.math { overflow: hidden }``
    (what the book did in its "Reading ...:" lines at 1400 and 800 px) and on a raw unbreakable string wider than the
    column, and passes on the same formula with the book's own stylesheet, which lets it scroll."""
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium; .ci/run does this)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright-python not installed")
    css = (BOOK / "_static" / "collapse-verify.css").as_uri()
    page_of = lambda body, ours: (f"<html><head><style>{_THEME_MATH}</style>"
                                  + (f'<link rel="stylesheet" href="{css}">' if ours else "")
                                  + f'</head><body><article class="bd-article" style="width: 600px"><p>Reading '
                                    f"<strong>literal</strong>: {body}</p></article></body></html>")
    clipped, fixed, raw = tmp_path / "clipped.html", tmp_path / "fixed.html", tmp_path / "raw.html"
    clipped.write_text(page_of(_LONG_FORMULA, False))
    fixed.write_text(page_of(_LONG_FORMULA, True))
    raw.write_text(page_of("(exp(-3355*sqrt(5)/" + "7" * 600 + ")", True))
    with sync_api.sync_playwright() as p:
        browser = _launch(sync_api, p)
        try:
            page = browser.new_page()
            for width in (1400, 800):
                page.set_viewport_size({"width": width, "height": 1000})
                page.goto(clipped.as_uri())
                found = page.evaluate(_CLIPPED_JS)
                assert any("clipped without a scrollbar" in f for f in found), found
                page.goto(fixed.as_uri())
                assert page.evaluate(_CLIPPED_JS) == []
                page.goto(raw.as_uri())
                found = page.evaluate(_CLIPPED_JS)
                assert any("wider than its column" in f and "exp(-3355" in f for f in found), found
        finally:
            browser.close()


def test_book_every_claim_is_shown_in_its_chapter(built_book):
    """Chapters select their claims from the registry: a claim registered later appears by itself."""
    for c in registry():
        if c.chapter:
            html = (built_book / "chapters" / f"{c.chapter}.html").read_text()
            assert c.id in html, f"{c.id} is not shown in chapters/{c.chapter}"


@pytest.mark.browser
def test_book_in_headless_chromium(built_book, tmp_path):
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium; .ci/run does this)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright-python not installed")
    pages = [built_book / f"{f}.html" for f in _toc_files()]
    with sync_api.sync_playwright() as p:
        browser = _launch(sync_api, p)
        try:
            page = browser.new_page()
            outside = []
            page.on("request", lambda r: outside.append(r.url)
                    if not r.url.startswith(("file:", "data:", "blob:", "about:")) else None)
            width = 1400
            page.set_viewport_size({"width": width, "height": 1000})
            shots = BOOK / "_build" / "screenshots"
            shots.mkdir(parents=True, exist_ok=True)
            overflow, broken_words, clipped = [], [], []
            for f in pages:
                page.goto(f.as_uri())
                n_math = page.evaluate("document.querySelectorAll('.math').length")
                if n_math == 0:  # Sphinx loads MathJax only on pages with math
                    n_typeset = 0
                else:
                    page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise",
                                           timeout=30000)
                    page.evaluate("MathJax.startup.promise")
                    n_typeset = page.evaluate("document.querySelectorAll('mjx-container').length")
                assert n_typeset >= n_math, f"{f.name}: {n_math} math elements, {n_typeset} typeset"
                errors = page.evaluate("document.querySelectorAll('mjx-merror').length")
                assert errors == 0, f"{f.name}: {errors} MathJax errors"
                broken = page.evaluate("[...document.images].filter(i => !(i.complete && i.naturalWidth > 0))"
                                       ".map(i => i.src)")
                assert broken == [], f"{f.name}: images not loaded: {broken}"
                # each page at 1400 px and in a narrow window (800 px: the column is narrower), starting at the width
                # the last page ended at (one re-layout per page instead of two; 2026-12-07: 4.5 s of the 48 s)
                for w in ((1400, 800) if width == 1400 else (800, 1400)):
                    if w != width:
                        page.set_viewport_size({"width": w, "height": 1000})
                        width = w
                    where = f.relative_to(built_book)
                    clipped += [f"{where} at {w} px: {o}" for o in page.evaluate(_CLIPPED_JS)]
                    if w == 1400:
                        overflow += [f"{where}: {o}" for o in page.evaluate(_OVERFLOW_JS)]
                        broken_words += [f"{where}: {o}" for o in page.evaluate(_BROKEN_WORD_JS)]
                        page.screenshot(path=str(shots / (where.as_posix().replace("/", "__").removesuffix(".html")
                                                          + ".png")), full_page=FULL_SCREENSHOTS)
            assert outside == [], f"requests to outside hosts: {outside[:5]}"
            assert overflow == [], "content wider than the text column at 1400 px:\n" + "\n".join(overflow[:20])
            assert broken_words == [], (f"{len(broken_words)} words broken mid-word at 1400 px:\n"
                                        + "\n".join(broken_words[:30]))
            assert clipped == [], (f"{len(clipped)} formulas clipped or elements wider than their column:\n"
                                   + "\n".join(clipped[:30]))
        finally:
            browser.close()
