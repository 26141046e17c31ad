"""Exact kernels, no claims: the exact input reader (:mod:`~theorems.exact.input`), linear algebra over Q
(:mod:`~theorems.exact.linalg`), certified rank of large matrices (:mod:`~theorems.exact.certified_rank`,
:mod:`~theorems.exact.padic_rank`, on the BLAS runtime of :mod:`~theorems.exact.blas_runtime`), LayerNorm and
RMSNorm exactly (:mod:`~theorems.exact.blocks`,
:mod:`~theorems.exact.layernorm`, :mod:`~theorems.exact.norm_exact`), exact softmax, heads and the residual
update (:mod:`~theorems.exact.attention`, :mod:`~theorems.exact.heads`, :mod:`~theorems.exact.residual`),
instance families (:mod:`~theorems.exact.instances`) and the one transformer over arithmetic contexts
(:mod:`~theorems.exact.transformer`).

Nothing here imports the framework or a claim: the paper's modules and users' conjectures stand on it.
"""
