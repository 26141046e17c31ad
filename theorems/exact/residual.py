r"""The residual update :math:`F(X)=X+\sum_hA_hXW_V^hW_O^h` exactly: uniform-attention maps, invariant hulls,
second derivatives, the proof steps of §5 (sympy statements, checked when a claim runs) and the exact re-checks
of the stored counterexamples about residual attention.

The paper's §5 claims (:mod:`theorems.paper.residual_obstruction`) and Dong's (:mod:`theorems.paper.dong_collapse`)
both stand on these; neither imports the other.
"""
from __future__ import annotations

import sympy
from sympy import Matrix, eye, symbols, zeros

from . import transformer as T
from .attention import exact_softmax
from .input import BadInput, exact_matrix
from .instances import regime_of
from .linalg import all_identically_zero, in_rowspace, rank
from .reader import SYMPY_MAX_ENTRIES, ExactWeights

__all__ = ["F_uniform", "invariant_hull", "attention_second_derivative", "PROOF_STEPS", "recheck_span",
           "recheck_curvature", "recheck_one_layer_collapse", "uniform_input", "uniform_weights"]


def uniform_weights(user, who: str, limit: int = SYMPY_MAX_ENTRIES) -> tuple[Matrix, ExactWeights]:
    """A user's --X (exactly, as sympy, up to ``limit`` entries) and their uniform-attention weights (W_Q W_K^T = 0
    in every head: :class:`~theorems.exact.reader.ExactWeights`); :class:`~theorems.exact.input.BadInput` naming
    what is missing or does not fit. The weights are checked before X is converted (a model's site, W_Q != 0, is
    answered at once)."""
    given = user.matrix("X")
    W = user.weights
    if W is None:
        raise BadInput(f"{who} needs weights: --weights W.npz (with W_Q = 0) or --heads H [--weights-seed N]")
    if W.d != given.shape[1]:
        raise BadInput(f"--weights: d = {W.d} in the weights but X has d = {given.shape[1]} columns")
    W.require_uniform(who)
    return given.sympy(limit, who), W


def uniform_input(user, who: str) -> tuple[Matrix, list[Matrix]]:
    """A user's --X (exactly, as sympy) and uniform-attention weights (W_Q = 0) as the maps W_V^h W_O^h, one per head
    (:func:`uniform_weights`). The instance forms of the §5 claims (:mod:`theorems.paper.residual_obstruction`) and of
    the MLP's (:mod:`theorems.paper.mlp_role`) read it."""
    X, W = uniform_weights(user, who)
    return X, W.value_output()


def F_uniform(X: Matrix, Ws: list[Matrix]) -> Matrix:
    """F(X) = X + sum_h (J/n) X W_h: the residual MHA update with W_Q = 0 (uniform attention), exact.

    :func:`theorems.transformer.mha` in the sympy context with W_Q = 0, W_V^h = W_h, W_O^h = I.
    """
    if not Ws:
        return X
    return X + T.mha(T.SYMPY, X, T.uniform_heads(X.shape[1], Ws), scale=1)


def invariant_hull(X: Matrix, Ws: list[Matrix]) -> Matrix:
    """A basis (rows) of S = the smallest subspace containing row(X) and invariant under every W_h."""
    B = X
    r = rank(B)
    while True:
        B2 = Matrix.vstack(B, *[B * W for W in Ws])
        r2 = rank(B2)
        if r2 == r:
            return B
        B, r = B2, r2


def _softmax_row_shift_identity() -> bool:
    """softmax(M + c 1^T) = softmax(M), entrywise in symbols (a row-wise constant cancels)."""
    m = symbols("m0:3", real=True)
    c = symbols("c", real=True)
    lhs = list(T.softmax_rows(T.SYMPY, Matrix([[mi + c for mi in m]])))
    rhs = list(T.softmax_rows(T.SYMPY, Matrix([list(m)])))
    return all(sympy.simplify(a - b) == 0 for a, b in zip(lhs, rhs))


def attention_second_derivative(data: dict):
    """d^2/dt^2 at t = 0 of one entry of F(X0 + t V), single head, exact (rational).

    ``data`` holds X0, V, M, W (the stored counterexample ``MLP.curvature``); X0 is chosen with X0 M X0^T = 0, so
    every exponential is exp(0) = 1 at t = 0 and the derivative is a rational number: non-zero means attention +
    residual is curved.
    """
    t = sympy.Symbol("t", real=True)
    X0, V, M, W = (exact_matrix(data[k], k) for k in ("X0", "V", "M", "W"))  # M = W_Q W_K^T / sqrt(d_k)
    X = X0 + t * V
    A = T.softmax_rows(T.SYMPY, X * M * X.T)
    F = X + A * X * W
    d2 = F.applyfunc(lambda e: sympy.nsimplify(sympy.simplify(sympy.diff(e, t, 2).subs(t, 0))))
    return d2, {"X0": X0, "V": V, "M": M, "W": W}


def _rank_deficient_set_is_null() -> bool:
    # det of a k x k minor is a polynomial in the entries; it is not identically zero
    # (its value at the identity minor is 1), so {rank < k} lies in its zero set: Lebesgue-null.
    return all(sympy.det(Matrix(k, k, lambda i, j: sympy.Symbol(f"a{i}_{j}"))).subs(
        {sympy.Symbol(f"a{i}_{j}"): (1 if i == j else 0) for i in range(k) for j in range(k)}) == 1
        for k in range(1, 5))


def _scalar_value_output_never_increases() -> bool:
    # F(X) = (I + sum_h c_h A_h) X: symbolic check that the residual map with W_h = c_h I factors so
    n, d = 3, 2
    X = Matrix(n, d, lambda i, j: sympy.Symbol(f"x{i}{j}"))
    A = Matrix(n, n, lambda i, j: sympy.Symbol(f"a{i}{j}"))
    c = sympy.Symbol("c")
    return sympy.expand(X + A * X * (c * eye(d)) - (eye(n) + c * A) * X) == zeros(n, d)


def _marsaglia_styan_spot_check() -> bool:
    # rank(X + D) = rank X + rank D when row spaces and column spaces meet only in 0
    X = Matrix([[1, 0, 0], [0, 0, 0], [0, 0, 0]])
    D = Matrix([[0, 0, 0], [0, 1, 0], [0, 0, 0]])
    return rank(X + D) == rank(X) + rank(D)


def _step_hull() -> bool:
    """X = U B, B W_h = C_h B  =>  X + sum_h A_h X W_h = (U + sum_h A_h U C_h) B: rows stay in row(B)."""
    n, k, d = 3, 2, 4
    U = Matrix(n, k, lambda i, j: sympy.Symbol(f"u{i}{j}"))
    B = Matrix(k, d, lambda i, j: sympy.Symbol(f"b{i}{j}"))
    out = sympy.zeros(n, d)
    rhs = U
    for h in range(2):
        A = Matrix(n, n, lambda i, j, h=h: sympy.Symbol(f"a{h}{i}{j}"))
        C = Matrix(k, k, lambda i, j, h=h: sympy.Symbol(f"c{h}{i}{j}"))
        out += A * U * (C * B)  # A X W with B W replaced by C B
        rhs = rhs + A * U * C
    return sympy.expand(U * B + out - rhs * B) == sympy.zeros(n, d)


def _step_first_order_linear() -> bool:
    """d/dt F(X0 + t(a V1 + b V2)) at 0 equals a D[V1] + b D[V2] (symbolic, one head, 2 x 2)."""
    t, a, b = sympy.symbols("t a b", real=True)
    x = Matrix(2, 2, lambda i, j: sympy.Symbol(f"x{i}{j}", real=True))
    V1, V2 = Matrix([[1, 0], [0, 2]]), Matrix([[0, 1], [1, 0]])
    M, W = Matrix([[1, 0], [2, 1]]), Matrix([[1, 1], [0, 2]])

    def D(V):
        X = x + t * V
        A = T.softmax_rows(T.SYMPY, X * M * X.T)
        return (X + A * X * W).diff(t).subs(t, 0)

    return all_identically_zero(D(a * V1 + b * V2) - a * D(V1) - b * D(V2))


PROOF_STEPS = [
    (r"\{\operatorname{rank}<k\}\subset\{\det(\text{a }k\times k\text{ minor})=0\},\ \det\not\equiv0",
     "the rank-deficient set is a proper algebraic set, hence Lebesgue-null", "identity", _rank_deficient_set_is_null),
    (r"X+\sum_h A_hX(c_hI)=(I+\sum_hc_hA_h)X", "scalar value-output maps factor through X", "identity",
     _scalar_value_output_never_increases),
    (r"\operatorname{softmax}(M+c\mathbf 1^\top)=\operatorname{softmax}(M)",
     "row-wise softmax ignores a constant added to a row", "identity", _softmax_row_shift_identity),
    (r"\operatorname{row}D\cap\operatorname{row}X=0=\operatorname{col}D\cap\operatorname{col}X\Rightarrow\operatorname{rank}(X+D)=\operatorname{rank}X+\operatorname{rank}D",
     "Marsaglia-Styan (1972)", "lemma", _marsaglia_styan_spot_check),
    (r"X=UB,\ BW_h=C_hB\Rightarrow X+\sum_hA_hXW_h=(U+\sum_hA_hUC_h)B",
     "attention + residual keeps rows in any W-invariant subspace containing row(X)", "identity", _step_hull),
    (r"D F(X_0)[aV_1+bV_2]=a\,DF(X_0)[V_1]+b\,DF(X_0)[V_2]",
     "the first derivative of softmax attention + residual is linear in the direction", "identity",
     _step_first_order_linear),
]


def recheck_span(data):
    X, W = exact_matrix(data["X"]), exact_matrix(data["W_VO"], "W_VO")
    FX = F_uniform(X, [W])
    outside = [i for i in range(FX.shape[0]) if not in_rowspace(X, FX.row(i))]
    why = ("one attention layer with residual (W_Q = 0, W_V W_O a permutation) maps X = e1 f1^T to rows "
           f"{outside} outside row(X) = span(f1): attention alone leaves the span of the embeddings"
           ) if outside else None
    return why, regime_of(*X.shape), {"rows_outside": outside}


def recheck_curvature(data):
    d2, _ = attention_second_derivative(data)
    nz = [(i, j, d2[i, j]) for i in range(d2.shape[0]) for j in range(d2.shape[1]) if d2[i, j] != 0]
    if nz and all(v.is_Rational for *_, v in nz):
        i, j, v = nz[0]
        return (f"attention + residual F(X) = X + softmax(X M X^T) X W has d^2/dt^2 F(X0 + tV)[{i},{j}] = {v} != 0 "
                "at t = 0: it is curved without any MLP"), "all", {"entry": [i, j], "value": str(v)}
    return None, "all", {}


def recheck_one_layer_collapse(data):
    """X + A X W with A = exact_softmax(X, M0) and W = W_V W_O, exactly; identical rows = Dong's residual R = 0."""
    X, M0, W = (exact_matrix(data[k], k) for k in ("X", "M0", "W_VO"))
    FX = X + exact_softmax(X, M0) * X * W
    same = all(FX.row(i) == FX.row(0) for i in range(FX.shape[0]))
    if same and rank(FX) < rank(X):
        return (f"softmax attention (W_Q W_K^T / sqrt(d_k) = log 2 M0) with skip connection and W_V W_O = "
                f"{W.tolist()}: X of rank {rank(X)} maps to F(X) = {FX.tolist()} (identical rows, rank {rank(FX)}, "
                f"||R|| = 0) in one layer"), regime_of(*X.shape), {"rank_X": rank(X), "rank_F": rank(FX)}
    return None, regime_of(*X.shape), {}
