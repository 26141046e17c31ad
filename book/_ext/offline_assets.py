"""Keep the built book fully offline.

Jupyter Book 1 always loads sphinx-thebe, which writes a script tag holding a
CDN URL (``THEBE_JS_URL``) into every page. We never launch live kernels, so
drop thebe's scripts from each page's context. MathJax is served locally by
``sphinx-mathjax-offline``.

It also lets ``make book`` read (and so execute) the pages in parallel (``book/_ext/parallel_build.py``):
Sphinx reads serially when one extension does not declare itself parallel-safe. Three loaded here do not declare,
and none keeps state across pages while they are read: ``sphinx_multitoc_numbering`` 0.1.x (added by Jupyter Book)
only replaces ``TocTreeCollector.assign_section_numbers``, which Sphinx runs in the main process after every page is
read; ``sphinx-mathjax-offline`` 0.0.2 sets ``mathjax_path`` at set-up and copies MathJax when the build has
finished; ``sphinx_jupyterbook_latex`` 1.x's read-time transforms change only the page being read (its doctree's
nodes) and the rest of it acts for the LaTeX builder only; for the same reasons none of them writes anything shared
while a page is written, so they are declared parallel-safe for writing too. ``sphinx_proof`` declares itself
parallel-safe and merges what it keeps (``env.proof_list``) on ``env-merge-info``, but its domain has no
``merge_domaindata``, which Sphinx calls for every domain after a parallel read: the domain keeps no data of its
own (``initial_data`` is Sphinx's empty default), so merging it is doing nothing, which is what is added here.
"""
from __future__ import annotations


def _is_thebe(js) -> bool:
    name = str(getattr(js, "filename", js) or "")
    body = str(getattr(js, "attributes", {}).get("body", ""))
    return "thebe" in name.lower() or "THEBE" in body


def _strip(app, pagename, templatename, context, doctree):
    if "script_files" in context:
        context["script_files"] = [js for js in context["script_files"] if not _is_thebe(js)]


#: extensions known to do nothing while a page is read (see above), declared parallel-safe for reading
_READ_SAFE = ("sphinx_multitoc_numbering", "sphinx-mathjax-offline", "sphinx_jupyterbook_latex")


def _declare_read_safe(app):
    for name in _READ_SAFE:
        ext = app.extensions.get(name)
        if ext is not None and ext.parallel_read_safe is None:
            ext.parallel_read_safe = True
        if ext is not None and ext.parallel_write_safe is None:  # the same three write nothing shared either
            ext.parallel_write_safe = True


def _proof_domain_mergeable() -> None:
    try:
        from sphinx.domains import Domain
        from sphinx_proof.domain import ProofDomain
    except ImportError:
        return
    if ProofDomain.merge_domaindata is Domain.merge_domaindata and not ProofDomain.initial_data:
        ProofDomain.merge_domaindata = lambda self, docnames, otherdata: None


def setup(app):
    app.connect("html-page-context", _strip, priority=900)
    app.connect("builder-inited", _declare_read_safe)
    _proof_domain_mergeable()
    return {"parallel_read_safe": True, "parallel_write_safe": True}
