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
           "causal_stack", "rho_squared", "post_ln_fibre_formula", "ln_jacobian_identity",
           "post_ln_jacobian_nullity", "row_basis", "post_ln_sum_nullity",
           "post_ln_head_channel_nullity", "head_channel_fibre_formula", "post_ln_collision", "post_ln_fibre_box",
           "prenorm_heads"]

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



# --- the head channel through a deployed block (issue 57: HC.main, RA.main per block type) --------------------------
#
# What the observer sees is the sub-layer's output, not the sum S = sum_h Y_h W_O^h. A pre-norm block (pre_ln,
# pre_rms) normalises the heads' input and adds the sum to X itself: S = Z - X, so with X known the fibre of
# (Y_h) -> Z is Y + ker Phi_a, as in §7 (the causal mask changes A_h, not the summation map). A post-LN block observes
# LN(X + S): LayerNorm (eps = 0) identifies y only up to y -> a 1 + s y (s > 0), so the fibre of (Y_h) -> LN(X + S) at
# Y is (locally) Y + Phi_a^{-1}(W), W = the rows (a_i 1 + t_i y_i), of dimension
#     n (H d_k - rank W_O) + sum_i dim(span(1, y_i) ∩ row W_O)
#   = n (H d_k - rank W_O) + sum_i (2 + rank W_O - rank [1; x_i; W_O])         (y_i - x_i lies in row W_O)
# (post_ln_fibre_formula), checked against the nullity of the exact Jacobian (post_ln_jacobian_nullity).


def _phi(Ys, W_O: Matrix) -> Matrix:
    return Matrix.hstack(*Ys) * W_O


def post_ln_fibre_formula(X: Matrix, W_O: Matrix, eps=0) -> int:
    """dim of the fibre of (Y_h)_h -> LN(X + sum_h Y_h W_O^h) (gamma without zero entries, any beta): with eps = 0
    (every row of X + S non-constant) n (H d_k - rank W_O) + sum_i (2 + rank W_O - rank [1; x_i; W_O]) (a shift and a
    scale lost per row); with eps > 0 n (H d_k - rank W_O) + n (1 + rank W_O - rank [1; W_O]) (the shift only: the
    scale is recoverable, var(LN_eps y) = v / (v + eps))."""
    n, d = X.shape
    rho = rank(W_O)
    if eps != 0:
        return n * (W_O.shape[0] - rho) + n * (1 + rho - rank(Matrix.vstack(ones(1, d), W_O)))
    extra = sum(2 + rho - rank(Matrix.vstack(ones(1, d), X.row(i), W_O)) for i in range(n))
    return n * (W_O.shape[0] - rho) + extra


@lru_cache(maxsize=None)
def ln_jacobian_identity(d: int = 3, eps: bool = False) -> bool:
    """sigma * dLN(y) = (P - c^T c / |c|^2) diag(gamma) for a symbolic row y of length d and symbolic gamma (zero eps,
    zero beta; c = y P, P = I - J/d, sigma^2 = |c|^2 / d): the Jacobian of the suite's layer_norm, symbolically. Its
    kernel is span(1, y): LayerNorm loses exactly a shift and a scale per row."""
    ys = sympy.symbols(f"y0:{d}", real=True)
    gs = sympy.symbols(f"g0:{d}", positive=True)
    e = sympy.Symbol("epsilon", positive=True) if eps else 0
    Y = Matrix([list(ys)])
    L = Matrix(T.layer_norm(T.SYMPY, Y, list(gs), eps=e))
    J = L.jacobian(ys)  # J[j, k] = d LN_j / d y_k
    P = centring_projector(d)
    c = Y * P
    c2 = (c * c.T)[0, 0]
    sigma = sympy.sqrt(c2 / d + e)
    want = ((P - c.T * c / (c2 + d * e)) * sympy.diag(*gs)).T  # as a map dy -> dy M; J is its transpose
    return all(sympy.simplify(sigma * J[i, j] - want[i, j]) == 0 for i in range(d) for j in range(d))


def post_ln_jacobian_nullity(X: Matrix, Ys, W_O: Matrix, gamma, eps=0) -> int | None:
    """The nullity of the exact Jacobian of (Y_h)_h -> LN(X + sum_h Y_h W_O^h) at Ys (zero eps; its row i scaled by
    sigma_i, which keeps it rational and its kernel unchanged): dY -> rows dS_i (P - c_i^T c_i / |c_i|^2) diag(gamma),
    dS = sum_h dY_h W_O^h, c_i = y_i P. None when a row of X + S is constant (LayerNorm undefined)."""
    n, d = X.shape
    H, dk = len(Ys), Ys[0].shape[1]
    Y = X + _phi(Ys, W_O)
    P = centring_projector(d)
    G = sympy.diag(*[Rational(v) for v in gamma])
    Ms = []
    for i in range(n):
        c = Y.row(i) * P
        c2 = (c * c.T)[0, 0] + d * Rational(eps)
        if c2 == 0:
            return None
        Ms.append((P - c.T * c / c2) * G)
    return n * H * dk - rank(Matrix.vstack(*[_map_column(Ms, W_O, n, H, dk, k) for k in range(n * H * dk)]).T)


def row_basis(W_O: Matrix) -> tuple[Matrix, list[int]]:
    """(B, pivots): a basis B of row W_O (the non-zero rows of its reduced row echelon form) and B's pivot columns,
    so a matrix S whose rows lie in row W_O is S = S[:, pivots] B."""
    R, piv = W_O.rref()
    return R[:len(piv), :], list(piv)


def post_ln_sum_nullity(X: Matrix, Ys, W_O: Matrix, gamma, eps=0) -> int | None:
    """The fibre dimension of the same post-LN observation with the heads' sum S = sum_h Y_h W_O^h as one variable
    (S ranging over the matrices whose rows lie in row W_O, all that W_O can write): LayerNorm's own loss, with no
    head channel. S = Z B (B a basis of row W_O), so it is the single-head map (H = 1, d_k = rank W_O, W_O = B) at Z
    = S[:, pivots]: post_ln_jacobian_nullity there. None when a row of X + S is constant."""
    n = X.shape[0]
    S = _phi(Ys, W_O)
    B, piv = row_basis(W_O)
    if not piv:  # W_O = 0: S = 0 is the only value, nothing is lost
        return 0
    Z = S.extract(list(range(n)), piv)
    if Z * B != S:
        raise ArithmeticError("S is not Z B: the rows of the heads' sum left row W_O")
    return post_ln_jacobian_nullity(X, [Z], B, gamma, eps)


def post_ln_head_channel_nullity(X: Matrix, Ys, W_O: Matrix, gamma, eps=0) -> int | None:
    """What the head channel loses beyond LayerNorm: the fibre dimension of (Y_h)_h -> LN(X + sum_h Y_h W_O^h)
    minus that of S -> LN(X + S) on S in row W_O (post_ln_sum_nullity). The map factors as S o Phi_a with Phi_a
    linear onto its image, so the fibre at Y is Phi_a^{-1}(the fibre at S) and the difference is dim ker Phi_a = n
    (H d_k - rank W_O), §7's count, whatever eps (head_channel_fibre_formula). None when LayerNorm is undefined."""
    f = post_ln_jacobian_nullity(X, Ys, W_O, gamma, eps)
    g = post_ln_sum_nullity(X, Ys, W_O, gamma, eps)
    return None if f is None or g is None else f - g


def head_channel_fibre_formula(n: int, W_O: Matrix) -> int:
    """n (H d_k - rank W_O): the dimension of ker Phi_a, what the head channel loses after any observation of S."""
    return n * (W_O.shape[0] - rank(W_O))


def _map_column(Ms, W_O, n, H, dk, k) -> Matrix:
    """The image of the k-th basis element (head by head, row-major) under the scaled Jacobian, as a row."""
    h, rest = divmod(k, n * dk)
    i, j = divmod(rest, dk)
    dS_row = W_O.row(h * dk + j)  # e_{ij} in head h contributes row i: W_O^h's row j
    out = zeros(n, W_O.shape[1])
    out[i, :] = dS_row * Ms[i]
    return out.reshape(1, n * W_O.shape[1])


def post_ln_collision(X: Matrix, Ys, W_O: Matrix, gamma, beta, shift=1, scale=2):
    """(Ys', same): head outputs Ys' != Ys with LN(X + sum_h Y'_h W_O^h) = LN(X + sum_h Y_h W_O^h), exactly (the suite's
    layer_norm in the sympy context, square roots kept), when W_O is square and invertible (H d_k = d): sum_h Y'_h
    W_O^h = shift 1 + scale (X + S) - X. None when W_O is not invertible or a row is constant."""
    n, d = X.shape
    if W_O.shape[0] != d or rank(W_O) < d:
        return None
    Y = X + _phi(Ys, W_O)
    target = Rational(shift) * ones(n, d) + Rational(scale) * Y - X
    flat = target * W_O.inv()
    dk = Ys[0].shape[1]
    Ys2 = [flat[:, h * dk:(h + 1) * dk] for h in range(len(Ys))]
    try:
        a = Matrix(T.layer_norm(T.SYMPY, Y, gamma, beta))
        b = Matrix(T.layer_norm(T.SYMPY, X + _phi(Ys2, W_O), gamma, beta))
    except ValueError:
        return None
    same = all(sympy.simplify(u - v) == 0 for u, v in zip(a, b))
    return Ys2, same and Ys2 != list(Ys)


def post_ln_fibre_box(X: Matrix, W_O: Matrix, eps=0) -> tuple[int, str] | None:
    """(value, box): a box of (X, W_O) (exact rational intervals) on which rank W_O = min(H d_k, d) and every rank
    [1; x_i; W_O] = min(rank W_O + 2, d) (eps > 0: rank [1; W_O] = min(rank W_O + 1, d)) at their maximal values
    (minors certified non-zero at every point), so post_ln_fibre_formula takes one value there, whatever Y, gamma,
    beta. None when not maximal or not certified."""
    from .qinterval import box, identity, minor_certificate
    K, d = W_O.shape
    rho = min(K, d)
    top = min(rho + (1 if eps else 2), d)
    stacks = [zeros(0, d)] if eps else [X.row(i) for i in range(X.shape[0])]  # what sits between 1 and W_O
    if rank(W_O) < rho or any(rank(Matrix.vstack(ones(1, d), m, W_O)) < top for m in stacks):
        return None
    for e in (3, 6, 9):
        rad = Rational(1, 10 ** e)
        ok = minor_certificate(box(W_O, rad), rho) is not None
        for m in stacks:
            if not ok:
                break
            ok = minor_certificate(identity(ones(1, d)) + box(Matrix.vstack(m, W_O), rad), top) is not None
        if ok:
            return post_ln_fibre_formula(X, W_O, eps), f"|X' - X|_max, |W_O' - W_O|_max <= 1/10^{e}"
    return None


def prenorm_heads(X: Matrix, WVs, WOs, block_type: str, causal: bool = True, gamma=None, beta=None):
    """(Z, Ys): the attention sub-layer Z of a pre-norm block (uniform attention, W_Q = 0) and the heads' outputs Y_h =
    A_h N(X) W_V^h, computed separately by the suite's maps (attention on the normalised input), exactly."""
    if block_type not in ("pre_ln", "pre_rms"):
        raise ValueError(f"prenorm_heads is for pre_ln / pre_rms, not {block_type!r}")
    d = X.shape[1]
    blk = T.Block(heads=T.uniform_heads(d, WVs, WOs), ln1=(gamma, None if block_type == "pre_rms" else beta))
    Z = Matrix(T.deployed_block(T.SYMPY, X, blk, block_type, causal=causal, sublayer="attention"))
    N = Matrix(T.rms_norm(T.SYMPY, X, gamma) if block_type == "pre_rms" else T.layer_norm(T.SYMPY, X, gamma, beta))
    Ys = [Matrix(T.attention(T.SYMPY, N, head, causal)[1]) for head in blk.heads]
    return Z, Ys
