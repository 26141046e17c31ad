"""Numeric evidence per slug (the ``EVIDENCE`` tables) and its collector, :mod:`proofs_numeric.witnesses.evidence`."""
