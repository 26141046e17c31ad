"""collapse-verify, numeric layer: one transformer definition over float64, mpmath
``mp`` and mpmath ``iv`` (:mod:`proofs_numeric.transformer`), certified rank
bounds (:mod:`proofs_numeric.certify`), one witness module per theorem, and the
``collapse-verify`` command line (:mod:`proofs_numeric.cli`)."""

from theorems.framework.memo import add_deciding as _add_deciding

#: what of this layer decides verdicts (every module but the command line and the renderings of results): part of
#: the key of the ledger and of every stored result (:mod:`theorems.framework.memo`)
DECIDING = (("proofs_numeric", (".py",)),)
NOT_DECIDING = ("proofs_numeric/cli/", "proofs_numeric/ledger/render.py", "proofs_numeric/ledger/report.py",
                "proofs_numeric/ledger/scaffold.py", "proofs_numeric/ledger/cache.py")
_add_deciding(DECIDING, NOT_DECIDING)
