"""The one transformer (a façade over :mod:`theorems.exact.transformer`): LayerNorm, RMSNorm, softmax, attention,
MHA, GeLU, FFN and a block, written once over an arithmetic context (``FP``, ``mp(dps)``, ``iv(dps)``,
``arb(dps)``, ``SYMPY``, ``SYMPY_LOG2``)."""
from __future__ import annotations

from .exact.transformer import *  # noqa: F403  (the façade re-exports the package's public names)
from .exact.transformer import __all__  # noqa: F401  (the façade's public names are the package's)
