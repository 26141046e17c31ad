r"""Public exact building blocks for conjectures about transformer maps (LayerNorm, RMSNorm, ranks).

Everything is exact: entries are rationals, square roots of rationals are handled by their
*square classes* (:math:`\sqrt{s_i}=f_i\sqrt{m_i}` with :math:`m_i` square-free; square roots of
distinct square-free integers are linearly independent over :math:`\mathbb Q`), and ranks of
matrices with such entries are computed *in the field* :math:`\mathbb Q(\sqrt{p_1},\dots,\sqrt{p_k})`
through its regular representation (an honest computation, not a formula that assumes the answer).

Building blocks
===============
``centred(X)``                     each row minus its mean, ``X P``
``row_variances(Xc)``              :math:`s_i=\sigma_i^2` of the centred rows (rational)
``row_mean_squares(X)``            :math:`\operatorname{ms}_i=\tfrac1d\sum_jx_{ij}^2` (RMSNorm's
                                   :math:`\mathrm{rms}_i^2`)
``sqrt_decomposition(s)``          :math:`(\sqrt{s_i})_i=\sum_k\sqrt{r_k}\tau_k` over square classes
``sigma_in_colspace(A, s)``        exact test of :math:`(\sqrt{s_i})_i\in\operatorname{col}(A)`
``sqrt_scaled_rank(M, s, ...)``    rank of :math:`\operatorname{diag}(1/\sqrt{s_i})M+\mathbf 1\beta^\top` (optionally
                                   bordered by :math:`\mathbf 1`) in the multiquadratic field
``layer_norm_ranks(X, g, b)``      (rank, affine rank) of LayerNorm(X), :math:`\varepsilon=0`
``rms_norm_ranks(X, g)``           (rank, affine rank) of RMSNorm(X) :math:`=x_i/\mathrm{rms}(x_i)\odot\gamma`,
                                   :math:`\varepsilon=0`

Examples
========
>>> from sympy import Matrix
>>> rms_norm_ranks(Matrix([[1], [2]]))   # both tokens map to 1: affine rank 1 -> 0
(1, 0)
>>> layer_norm_ranks(Matrix([[0, 2, -2], [1, 1, -2], [2, 0, -2]]))
(2, 2)
"""
from __future__ import annotations

import flint
import sympy
from sympy import QQ, Matrix, Rational
from sympy.polys.matrices import DomainMatrix

from .input import BadInput, exact_matrix, exact_vector, to_rational
from .linalg import in_colspace, is_rational_square, rank, rational_sqrt, to_fmpq, to_fmpq_mat

__all__ = ["centred", "row_variances", "row_mean_squares", "sqrt_decomposition", "sigma_in_colspace",
           "sqrt_scaled_rank", "FieldTooLarge", "layer_norm_ranks", "rms_norm_ranks", "rank", "exact_matrix"]


def centred(X: Matrix) -> Matrix:
    """Step 1: ``X~ = X P`` (each row minus its mean).

    A rational matrix is centred in its own domain representation (sympy's DomainMatrix over QQ: the row means are
    one product with a column of ones, then one rank-one subtraction; no sympy number per entry): the same exact
    entries as the sympy arithmetic below, 3.6-4 times faster (5296 calls in RN.H4-unique's stress, measured
    2026-12-06). Any other matrix (symbolic entries) takes the sympy arithmetic."""
    nn, dd = X.shape
    try:
        rep = X.to_DM()
    except (AttributeError, TypeError, ValueError):
        rep = None
    if rep is not None and (rep.domain.is_ZZ or rep.domain.is_QQ) and dd > 0:
        dm = rep.convert_to(QQ).to_dense()
        mean = dm.matmul(DomainMatrix.ones((dd, 1), QQ).to_dense()) * QQ(1, dd)
        return X._fromrep((dm - mean.matmul(DomainMatrix.ones((1, dd), QQ).to_dense())).to_sparse())
    return X - Matrix(nn, 1, [sum(X.row(i)) / dd for i in range(nn)]) * Matrix.ones(1, dd)


def row_variances(Xt: Matrix) -> list[Rational]:
    """``s_i = sigma_i^2 = (1/d) sum_j x~_ij^2`` (population variance, rational)."""
    dd = Xt.shape[1]
    return [sum(v * v for v in Xt.row(i)) / dd for i in range(Xt.shape[0])]


def sqrt_decomposition(s: list[Rational]) -> list[tuple[Rational, Matrix]]:
    r"""Write :math:`(\sqrt{s_i})_i = \sum_k \sqrt{r_k}\,\tau_k` with rational :math:`\tau_k`.

    Indices i, j share a class iff :math:`s_i/s_j` is a rational square; the
    class of rational squares gets :math:`r_k = 1`. The :math:`\sqrt{r_k}` are then
    linearly independent over Q. Zero entries contribute nothing.

    >>> [(r, list(t)) for r, t in sqrt_decomposition([Rational(2), Rational(8), Rational(9, 4)])]
    [(1, [0, 0, 3/2]), (2, [1, 2, 0])]
    """
    nn = len(s)
    reps: list[Rational] = []
    taus: list[list[Rational]] = []
    for i, si in enumerate(s):
        if si == 0:
            continue
        if si < 0:
            raise ValueError("variances are non-negative")
        for k, r in enumerate(reps):
            if is_rational_square(si / r):
                taus[k][i] = rational_sqrt(si / r)
                break
        else:
            r = Rational(1) if is_rational_square(si) else si
            reps.append(r)
            t = [Rational(0)] * nn
            t[i] = rational_sqrt(si / r)
            taus.append(t)
    out = sorted(zip(reps, taus), key=lambda rt: (rt[0] != 1, rt[0]))
    return [(r, Matrix(t)) for r, t in out]


def sigma_in_colspace(A: Matrix, s: list[Rational]) -> bool:
    """Exact test of ``sigma = sqrt(s) in colspace(A)`` for rational A and s."""
    return all(in_colspace(A, tau) for _, tau in sqrt_decomposition(s))


def row_mean_squares(X: Matrix) -> list[Rational]:
    """``ms_i = (1/d) sum_j x_ij^2``: RMSNorm divides row i by ``sqrt(ms_i)`` (epsilon = 0)."""
    dd = X.shape[1]
    return [sum(v * v for v in X.row(i)) / dd for i in range(X.shape[0])]


class FieldTooLarge(ValueError):
    """The multiquadratic field needed is too large for the embedding method."""


def _sqrt_parts(s: list[Rational]) -> list[tuple[Rational, int]]:
    """``1 / sqrt(s_i) = c_i sqrt(m_i)`` with rational ``c_i`` and square-free integer ``m_i``."""
    out = []
    for si in s:
        if si <= 0:
            raise BadInput("square roots of non-positive numbers are not scaled here (a zero row: the map is "
                           "undefined)")
        a, b = int(si.p), int(si.q)
        f, m = 1, 1
        for p, e in sympy.factorint(a * b).items():
            f *= p ** (e // 2)
            m *= p ** (e % 2)
        out.append((Rational(b, f * m), m))
    return out


def sqrt_scaled_rank(M: Matrix, s: list[Rational], beta=None, bordered: bool = False, max_degree: int = 32) -> int:
    """Rank over R of ``Y = diag(1/sqrt(s_i)) M + 1 beta^T`` (``[Y | 1]`` when ``bordered``), computed exactly.

    Each ``1/sqrt(s_i) = c_i sqrt(m_i)`` with ``m_i`` square-free; with p_1..p_k the primes dividing the
    ``m_i``, ``K = Q(sqrt p_1, ..., sqrt p_k)`` has degree 2^k and basis ``e_S = prod_{p in S} sqrt p``. An
    n x c matrix over K becomes a (n 2^k) x (c 2^k) rational matrix whose rank is 2^k times the rank over K
    (= over R). Needs integer factorisation of the ``s_i``: small sizes only (``max_degree`` bounds 2^k).
    """
    if not isinstance(M, sympy.MatrixBase):  # numbers the caller typed: the suite's one exact reader
        M = exact_matrix(M, "M")
    n, d = M.shape
    s = list(s)
    if len(s) != n:
        raise BadInput(f"s has {len(s)} entries: give one per row of M ({n})")
    sq = _sqrt_parts([to_rational(v) for v in s])
    primes = sorted({p for _, m in sq for p in sympy.primefactors(m)})
    dim = 1 << len(primes)
    if dim > max_degree:
        raise FieldTooLarge(f"needs Q(sqrt p) for {len(primes)} primes (degree {dim} > {max_degree})")
    beta = exact_vector(beta, d, "beta") if beta is not None else [Rational(0)] * d

    def mask(m):
        return sum(1 << k for k, p in enumerate(primes) if m % p == 0)

    def prod_sq(S, T):
        out = 1
        for k, p in enumerate(primes):
            if (S >> k) & 1 and (T >> k) & 1:
                out *= p
        return out

    zero = flint.fmpq(0)

    def block(elem: dict) -> list[list]:
        B = [[zero] * dim for _ in range(dim)]
        for T in range(dim):
            for S, a in elem.items():
                if a != 0:
                    B[S ^ T][T] += a * prod_sq(S, T)
        return B

    # the regular representation is built in FLINT rationals (fmpq) and ranked by FLINT: no sympy number per entry
    # and no sympy Matrix of up to (n 2^k) x (c 2^k) entries (building that Matrix took 11 of 13 ms per call on the
    # small RMSNorm instances of the counterexample search, 2026-12-04)
    F = to_fmpq_mat(M)
    beta_q = [to_fmpq(b) for b in beta]
    cols = d + (1 if bordered else 0)
    big = [[zero] * (cols * dim) for _ in range(n * dim)]
    for i in range(n):
        coef, m = sq[i]
        cq = to_fmpq(coef)
        for j in range(cols):
            if j < d:
                elem = {mask(m): F[i, j] * cq}
                elem[0] = elem.get(0, zero) + beta_q[j]
            else:
                elem = {0: flint.fmpq(1)}
            B = block(elem)
            for r in range(dim):
                for c in range(dim):
                    big[i * dim + r][j * dim + c] = B[r][c]
    r = int(flint.fmpq_mat(n * dim, cols * dim, [e for row in big for e in row]).rank())
    assert r % dim == 0, "the regular representation has rank a multiple of the degree"
    return r // dim


def _ranks_by_square_classes(A: Matrix, s: list[Rational], beta=None) -> tuple[int, int]:
    """(rank, arank) of diag(1/sqrt(s)) A + 1 beta^T from the square classes of s (Besicovitch), exactly.

    ``diag(sqrt s) [Y | 1] C = [A | sqrt s]`` (row scaling, and a unimodular C removing beta), so
    ``arank Y = rank A - 1 + [sqrt s notin col A]``; ``rank Y`` by the rank-one update with beta.
    """
    rA = rank(A)
    inside = sigma_in_colspace(A, s)
    arank = rA - 1 + (0 if inside else 1)
    if beta is None or all(b == 0 for b in beta):
        return rA, arank
    return sqrt_scaled_rank(A, s, beta), arank  # the beta update needs the field; small inputs only


def _norm_ranks(A: Matrix, s: list[Rational], beta, method: str, max_degree: int) -> tuple[int, int]:
    if method not in ("auto", "field", "square-classes"):
        raise ValueError("method is 'auto', 'field' or 'square-classes'")
    if method != "square-classes":
        try:
            return (sqrt_scaled_rank(A, s, beta, max_degree=max_degree),
                    sqrt_scaled_rank(A, s, beta, bordered=True, max_degree=max_degree) - 1)
        except FieldTooLarge:
            if method == "field":
                raise
    return _ranks_by_square_classes(A, s, beta)


def layer_norm_ranks(X, gamma=None, beta=None, method: str = "auto", max_degree: int = 32) -> tuple[int, int]:
    """(rank, affine rank) of LayerNorm(X) with epsilon = 0 (every row non-constant, else BadInput: H1).

    ``method``: ``"field"`` computes the ranks of LN(X) itself in Q(sqrt p_1, ...) (raises FieldTooLarge
    past ``max_degree``); ``"square-classes"`` uses the exact square-class formula; ``"auto"`` the field
    when small enough, else the square classes.
    """
    X = exact_matrix(X, "X")
    d = X.shape[1]
    g = exact_vector(gamma, d, "gamma") if gamma is not None else [Rational(1)] * d
    b = exact_vector(beta, d, "beta") if beta is not None else [Rational(0)] * d
    Xc = centred(X)
    s = row_variances(Xc)
    if any(v == 0 for v in s):
        raise BadInput("H1 fails: a row is constant (sigma = 0), so LayerNorm without epsilon is undefined")
    return _norm_ranks(Xc * sympy.diag(*g), s, b, method, max_degree)


def rms_norm_ranks(X, gamma=None, method: str = "auto", max_degree: int = 32) -> tuple[int, int]:
    """(rank, affine rank) of RMSNorm(X) = x_i / rms(x_i) * gamma with epsilon = 0 (``method`` as for
    :func:`layer_norm_ranks`); a zero row is refused (rms = 0: RMSNorm is undefined)."""
    X = exact_matrix(X, "X")
    d = X.shape[1]
    g = exact_vector(gamma, d, "gamma") if gamma is not None else [Rational(1)] * d
    ms = row_mean_squares(X)
    if any(v == 0 for v in ms):
        raise BadInput("a row is zero (rms = 0): RMSNorm without epsilon is undefined")
    return _norm_ranks(X * sympy.diag(*g), ms, None, method, max_degree)
