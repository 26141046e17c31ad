"""collapse-verify, numeric layer, in rooms (top to bottom; an arrow never points up, enforced by
``property_tests/framework/test_layering.py``):

* :mod:`proofs_numeric.cli` -- the ``collapse-verify`` command line, one module per subcommand;
* :mod:`proofs_numeric.ledger` -- load the claims with their numeric evidence, run, render, report, check at sites;
* :mod:`proofs_numeric.witnesses` -- one module per slug with its ``EVIDENCE`` table, and their collector;
* :mod:`proofs_numeric.model` -- checkpoint reading, the sites, the float and interval forwards, synthetic
  checkpoints, the model service;
* core -- :mod:`proofs_numeric.core` (the transformer's numeric contexts, certified rank bounds, float hints, shared
  quantities) and :mod:`proofs_numeric.output` (the one write rule of every file the command line writes).
"""

from theorems.framework.memo import add_deciding as _add_deciding

#: what of this layer decides verdicts (every module but the command line, the write rule and the renderings of
#: results): part of the key of the ledger and of every stored result (:mod:`theorems.framework.memo`)
DECIDING = (("proofs_numeric", (".py",)),)
NOT_DECIDING = ("proofs_numeric/cli/", "proofs_numeric/ledger/render.py", "proofs_numeric/ledger/report.py",
                "proofs_numeric/ledger/scaffold.py", "proofs_numeric/ledger/cache.py", "proofs_numeric/output.py")
_add_deciding(DECIDING, NOT_DECIDING)
