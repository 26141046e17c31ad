"""The paper's claims: one module per theorem (slug), siblings on one floor.

Each module declares its claims with :func:`theorems.framework.claim` and stands only on
:mod:`theorems.exact` (kernels) and :mod:`theorems.framework`; what two of them share is a kernel and lives in
``exact/`` (a layering test refuses an import between two modules of this package). ``theorems`` imports every
module here.
"""
