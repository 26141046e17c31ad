"""collapse-verify, numeric layer: one transformer definition over float64, mpmath
``mp`` and mpmath ``iv`` (:mod:`proofs_numeric.transformer`), certified rank
bounds (:mod:`proofs_numeric.certify`), one witness module per theorem, and the
``collapse-verify`` command line (:mod:`proofs_numeric.cli`)."""
