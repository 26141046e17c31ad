r"""The blocks deployed Transformers use, exactly: the attention sub-layer of a post-LN (BERT), pre-LN (GPT-2) and
pre-RMSNorm (LLaMA's composition) block, on instances where every number stays rational, and the causal mask's
rank facts.

Theorem 5.3 is about :math:`F(X)=X+\mathrm{MHA}(X)`. In a deployed block the attention sub-layer is

``post_ln``  :math:`\mathrm{LN}(X+\mathrm{MHA}(X))`
``pre_ln``   :math:`X+\mathrm{MHA}(\mathrm{LN}\,X)`       (GPT-2: causal mask)
``pre_rms``  :math:`X+\mathrm{MHA}(\mathrm{RMSNorm}\,X)`  (LLaMA: causal mask)

computed by :func:`theorems.exact.transformer.deployed_block` in the sympy context (never a second formula).
Exactness without rounding:

* uniform attention (:math:`W_Q=0`): every score is 0, so softmax is :math:`J/n`, or with the causal mask the
  lower-triangular :math:`C_{ij}=1/i` (:math:`j\le i`): rational;
* LayerNorm / RMSNorm of a row :math:`m\,b` is :math:`\operatorname{sign}(m)` times that of :math:`b`; the witnesses'
  rows are non-zero integer multiples of base rows whose standard deviation (LN) or root mean square (RMSNorm) is
  rational (:func:`rational_norm_rows`), so the normalised rows are rational and the sympy context returns them as
  rationals; an irrational entry is refused (:class:`ValueError`), never rounded;
* post-LN with zero bias: :math:`\mathrm{LN}(Y)=D^{-1}Y P\Gamma` with :math:`D=\operatorname{diag}(\sigma_i)`,
  :math:`P=I-J/d`, :math:`\Gamma=\operatorname{diag}(\gamma)`; :math:`D` and :math:`\Gamma` are invertible when every
  :math:`\sigma_i\neq0` and :math:`\gamma_j\neq0`, so :math:`\operatorname{rank}\mathrm{LN}(Y)=\operatorname{rank}(YP)`,
  a rational matrix (:func:`post_ln_rank`), and :math:`\mathrm{LN}(Y)\,\Gamma^{-1}\mathbf 1=0`: the rank of a
  zero-bias LayerNorm output is at most :math:`d-1` for every :math:`Y` (:func:`post_ln_cap_identity`).

The causal mask (:func:`causal_attention_facts`): a causal softmax row :math:`i` is supported on :math:`j\le i` and
its diagonal entry :math:`e^{s_{ii}}/\sum_{j\le i}e^{s_{ij}}` is positive, so :math:`A` is lower-triangular with a
positive diagonal, :math:`\det A=\prod_iA_{ii}>0`, and :math:`\operatorname{rank}(AXW)=\operatorname{rank}(XW)` for
every :math:`X, W`: causal attention never lowers a rank by itself, and a product of causal attention matrices is
invertible at every depth. Uniform causal attention :math:`C` still drives every token to the first one:
:math:`C^L\to\mathbf 1e_1^\top` (its eigenvalues are :math:`1,1/2,\dots,1/n`), so Dong's residual
:math:`\rho` of :math:`C^LX` goes to 0 while the exact rank stays :math:`\operatorname{rank}X`
(:func:`causal_power_limit`, :func:`causal_stack`).

>>> X = stratum_witness(4, 4, 2, "pre_ln")
>>> int(rank(X)), all(any(v != row[0] for v in row) for row in X.tolist())
(2, True)
>>> F = attention_sublayer(X, [sympy.eye(4)], "pre_ln", causal=True, gamma=[1, 2, 1, 1], beta=[0, 1, 0, 0])
>>> all(v.is_Rational for v in F)
True
"""
from __future__ import annotations

import itertools
from functools import lru_cache

import sympy
from sympy import Matrix, Rational, ones, zeros

from . import transformer as T
from .linalg import centring_projector, rank

__all__ = ["BLOCK_NAMES", "rational_norm_rows", "stratum_witness", "attention_sublayer", "post_ln_rank",
           "sublayer_rank", "post_ln_cap_identity", "causal_attention_facts", "causal_uniform", "causal_power_limit",
           "causal_stack", "rho_squared"]

#: the block types in words (the readings' regimes use these names)
BLOCK_NAMES = {"post_ln": "post-LN (BERT)", "pre_ln": "pre-LN (GPT-2)", "pre_rms": "pre-RMSNorm (LLaMA)"}


def _norm_rational(row: tuple[int, ...], kind: str) -> bool:
    """Is the row's standard deviation (``ln``) or root mean square (``rms``) a non-zero rational?"""
    d = len(row)
    if kind == "ln":
        q = Rational(d * sum(v * v for v in row) - sum(row) ** 2, d * d)  # the variance
    else:
        q = Rational(sum(v * v for v in row), d)
    return q != 0 and sympy.sqrt(q).is_Rational


@lru_cache(maxsize=None)
def rational_norm_rows(d: int, kind: str, count: int) -> tuple[tuple[int, ...], ...]:
    """``count`` linearly independent integer rows of length ``d`` (entries in [-4, 4], enumerated in a fixed order)
    whose standard deviation (``kind="ln"``) or root mean square (``"rms"``) is a non-zero rational.

    ValueError when there are fewer (e.g. d = 3 for LayerNorm: 3 sum x^2 - (sum x)^2 is never a non-zero square,
    so no non-constant rational row of length 3 has a rational standard deviation)."""
    if kind not in ("ln", "rms"):
        raise ValueError(f"kind {kind!r} is 'ln' or 'rms'")
    found: list[tuple[int, ...]] = []
    for row in itertools.product(range(-4, 5), repeat=d):
        if len(found) == count:
            break
        if _norm_rational(row, kind) and rank(Matrix([*found, row])) == len(found) + 1:
            found.append(row)
    if len(found) < count:
        raise ValueError(f"only {len(found)} independent rows of length {d} with a rational "
                         f"{'standard deviation' if kind == 'ln' else 'root mean square'} in [-4, 4]^{d}; "
                         f"{count} needed")
    return tuple(found)


#: the non-zero multipliers of the witness rows after the first r (varied, so rows stay distinct)
_MULTIPLIERS = (2, -1, 3, -2, 5, -3, 4, 7)


def stratum_witness(n: int, d: int, r: int, block_type: str) -> Matrix:
    """An n x d integer matrix of rank exactly r whose every row is a non-zero multiple of one of r independent base
    rows with a rational normalisation for the block type (standard deviation for LN blocks, rms for pre_rms), so
    every norm the block applies to it is rational (pre_ln, pre_rms). Rows are non-zero and non-constant."""
    if not 1 <= r <= min(n, d):
        raise ValueError(f"rank r = {r} is outside 1..min(n, d) = {min(n, d)}")
    base = rational_norm_rows(d, "rms" if block_type == "pre_rms" else "ln", r)
    rows = [list(base[i]) for i in range(r)]
    for i in range(r, n):
        m = _MULTIPLIERS[(i - r) % len(_MULTIPLIERS)]
        rows.append([m * v for v in base[(i - r) % r]])
    return Matrix(rows)


def _block(d: int, Ws, gamma, beta, block_type: str) -> T.Block:
    heads = T.uniform_heads(d, Ws)
    ln = (gamma, None if block_type == "pre_rms" else beta)
    return T.Block(heads=heads, ln1=ln, ln2=ln)


def attention_sublayer(X: Matrix, Ws, block_type: str, causal: bool = False, gamma=None, beta=None) -> Matrix:
    """The attention sub-layer of the block, exactly, with uniform attention (W_Q = 0) and W_V^h W_O^h = Ws[h]:
    :func:`theorems.exact.transformer.deployed_block` in the sympy context. ValueError (naming the entry) when an
    entry is not rational: the instance's norms were irrational (a post_ln output is ranked by :func:`post_ln_rank`)."""
    out = Matrix(T.deployed_block(T.SYMPY, X, _block(X.shape[1], Ws, gamma, beta, block_type), block_type,
                                  causal=causal, sublayer="attention"))
    for (i, j), v in zip(itertools.product(range(out.shape[0]), range(out.shape[1])), out):
        if not v.is_Rational:
            raise ValueError(f"entry ({i}, {j}) of the {block_type} sub-layer is {v}, not rational: this instance "
                             "has an irrational norm (choose rows with a rational standard deviation / rms)")
    return out


def post_ln_rank(X: Matrix, Ws, causal: bool = False, gamma=None) -> tuple[int | None, Matrix]:
    """rank LN(Y), Y = X + MHA(X) (uniform attention, zero LN bias), as rank(Y (I - J/d) diag(gamma)): LN(Y) =
    diag(1/sigma_i) Y (I - J/d) diag(gamma) and both diagonals are invertible. Returns (None, Y) when some row of Y
    is constant (sigma_i = 0: LayerNorm is undefined, H1 fails) or some gamma_j is 0 (the lemma needs it non-zero)."""
    n, d = X.shape
    Y = Matrix(X + T.mha(T.SYMPY, X, T.uniform_heads(d, Ws), causal=causal))
    g = [Rational(1)] * d if gamma is None else [Rational(v) for v in gamma]
    if any(v == 0 for v in g) or any(all(Y[i, j] == Y[i, 0] for j in range(d)) for i in range(n)):
        return None, Y
    return rank(Y * centring_projector(d) * sympy.diag(*g)), Y


def sublayer_rank(X: Matrix, Ws, block_type: str, causal: bool = False, gamma=None, beta=None) -> int | None:
    """The exact rank of the attention sub-layer's output (None: outside the norm's domain)."""
    if block_type == "post_ln":
        if beta is not None and any(Rational(v) != 0 for v in beta):
            raise ValueError("post_ln_rank is the zero-bias case: a non-zero beta is not covered")
        return post_ln_rank(X, Ws, causal, gamma)[0]
    return rank(attention_sublayer(X, Ws, block_type, causal, gamma, beta))


def post_ln_cap_identity(d: int = 3) -> bool:
    """LN(y) Gamma^{-1} 1 = 0 identically for a symbolic row y of length d and symbolic non-zero gamma (zero bias):
    the d columns of a zero-bias LayerNorm output are dependent, so its rank is at most d - 1 for every input."""
    ys = sympy.symbols(f"y0:{d}", real=True)
    gs = sympy.symbols(f"g0:{d}", positive=True)
    Y = Matrix([list(ys)])
    L = Matrix(T.layer_norm(T.SYMPY, Y, list(gs)))
    return sympy.simplify((L * Matrix([1 / g for g in gs]))[0, 0]) == 0


def causal_uniform(n: int) -> Matrix:
    """The causal softmax of the zero score matrix, exactly: C_ij = 1/i for j <= i (1-based), 0 above."""
    return Matrix(T.softmax_rows(T.SYMPY, zeros(n, n), causal=True))


def causal_attention_facts(S: Matrix) -> dict:
    """For an integer score matrix S, the causal softmax A = softmax(log 2 * S) (exact rationals, SYMPY_LOG2):
    lower-triangular, its diagonal, det A against the product of the diagonal, row sums."""
    A = Matrix(T.softmax_rows(T.SYMPY_LOG2, S, causal=True))
    n = A.shape[0]
    diag = [A[i, i] for i in range(n)]
    return {"A": A, "lower": all(A[i, j] == 0 for i in range(n) for j in range(i + 1, n)),
            "diag_positive": all(v > 0 for v in diag), "det": A.det(), "diag_product": sympy.prod(diag),
            "stochastic": all(sum(A.row(i)) == 1 for i in range(n))}


def causal_power_limit(n: int) -> tuple[Matrix, Matrix]:
    """(C^L symbolic in L, its limit as L -> oo), exactly: C is diagonalisable with eigenvalues 1, 1/2, ..., 1/n."""
    L = sympy.Symbol("L", positive=True, integer=True)
    C = causal_uniform(n)
    Pm, Dm = C.diagonalize()
    CL = (Pm * sympy.diag(*[Dm[i, i] ** L for i in range(n)]) * Pm.inv()).applyfunc(sympy.simplify)
    return CL, CL.applyfunc(lambda e: sympy.limit(e, L, sympy.oo))


def rho_squared(X: Matrix) -> Rational:
    """Dong's residual squared, rho^2 = ||X - 1 xbar^T||_F^2 / ||X||_F^2, exactly (X != 0)."""
    n = X.shape[0]
    R = X - ones(n, 1) * (ones(1, n) * X) / n
    return sum(v * v for v in R) / sum(v * v for v in X)


def causal_stack(X: Matrix, W: Matrix, depth: int) -> list[tuple[int, Rational]]:
    """Pure causal attention, uniform scores: X_{l+1} = C X_l W for l < depth; per layer (exact rank, rho^2)."""
    C = causal_uniform(X.shape[0])
    out = []
    for _ in range(depth):
        X = C * X * W
        out.append((rank(X), rho_squared(X)))
    return out

