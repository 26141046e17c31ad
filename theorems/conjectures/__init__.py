"""Users' conjectures: ``collapse-verify new NAME`` writes ``theorems/conjectures/<slug>.py`` here.

A conjecture imports the public façades (:mod:`theorems.conjecture`, :mod:`theorems.blocks`,
:mod:`theorems.transformer`, :mod:`theorems.linalg`), the kernels of :mod:`theorems.exact` and other
conjectures; never the paper's modules or the framework's internals (a layering test checks it).
``theorems`` imports every module here.
"""
