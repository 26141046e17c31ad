"""Keep the built book fully offline.

Jupyter Book 1 always loads sphinx-thebe, which writes a script tag holding a
CDN URL (``THEBE_JS_URL``) into every page. We never launch live kernels, so
drop thebe's scripts from each page's context. MathJax is served locally by
``sphinx-mathjax-offline``.
"""
from __future__ import annotations


def _is_thebe(js) -> bool:
    name = str(getattr(js, "filename", js) or "")
    body = str(getattr(js, "attributes", {}).get("body", ""))
    return "thebe" in name.lower() or "THEBE" in body


def _strip(app, pagename, templatename, context, doctree):
    if "script_files" in context:
        context["script_files"] = [js for js in context["script_files"] if not _is_thebe(js)]


def setup(app):
    app.connect("html-page-context", _strip, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
