r"""The MLP's role (Cirrincione 2026, §5.3, with the sentences of the abstract and §1 gap (ii) that say the same):
what attention with a residual connection cannot do, so that the MLP must.

:math:`F(X)=X+\mathrm{MHA}(X)=X+\sum_h A_h(X)\,X\,W_h` with :math:`W_h=W_V^hW_O^h`; "attention stack" is
:math:`L` such layers, no MLP.

* ``MLP.span`` (abstract): attention stacks keep their rows in the span of the input rows. Refuted by a stored
  one-layer instance; true with the span replaced by the smallest :math:`W_h`-invariant subspace containing it.
* ``MLP.curvature`` (§5.3): attention + residual is affine (no curvature). Refuted exactly: a non-zero second
  derivative at a stored point, the same computation that proves ``MLP.not-globally-affine``.
* ``MLP.first-order-form``, ``MLP.layer-jacobian`` (§5.3's proposition and its proof): the first-order term as a
  left matrix product :math:`\Phi\,\delta X`, and the product rule of one layer.
* ``MLP.tangent-space`` (not checkable: the sentence defines no tangent space) and ``MLP.bilinear-attention``
  (§1 gap (ii): attention is not bilinear in :math:`X`; its scores are).

With :math:`W_Q=0` attention is exactly uniform, :math:`A=J/n`, and :math:`F` is rational: the instances below
use it. ``MLP.function`` (an MLP alone prevents collapse) is a claim of the depth study
(:mod:`theorems.paper.dong_collapse`). The kernels (uniform attention, invariant hulls, second derivatives, the
proof steps of §5, the user's uniform-attention input) are :mod:`theorems.exact.residual`'s, shared with
:mod:`theorems.paper.residual_obstruction`.

No numeric module: every claim here is decided in exact arithmetic (rationals, sympy); none has float or interval
evidence.

Examples
========
>>> from sympy import Matrix
>>> imgs = jacobian_images(2, 2, Matrix([[1, 2], [0, 1]]))
>>> is_left_multiplication(imgs, 2, 2), is_right_multiplication(imgs, 2, 2)
(False, False)
"""
from __future__ import annotations

import random

import sympy
from sympy import Matrix, Rational, eye, zeros

from ..exact import transformer as T
from ..exact.attention import exact_softmax
from ..exact.input import BadInput
from ..exact.instances import random_int_matrix
from ..exact.linalg import all_identically_zero, in_rowspace, rank
from ..exact.residual import (
    PROOF_STEPS,
    F_uniform,
    attention_second_derivative,
    invariant_hull,
    recheck_curvature,
    recheck_span,
    uniform_input,
)
from ..framework import (
    Decided,
    Evidence,
    FormalGap,
    InstanceForm,
    OffInstance,
    Pool,
    ProofStep,
    Reading,
    claim,
    derivation,
    exact_complete,
    load_counterexample,
    not_checkable,
    predicted,
    stable_seed,
    stored_counterexample,
)

__all__ = ["not_affine_evidence", "jacobian_images", "is_left_multiplication", "is_right_multiplication",
           "layer_jacobian_matches"]

_ARITH = "exact over QQ (python-flint fmpq_mat)"
_USER_ARITH = "exact over QQ (python-flint fmpq_mat); the inputs read exactly (decimals as the fractions they spell)"


def proof_evidence(uses, what: str) -> Evidence:
    """The proof steps of §5 (:data:`theorems.exact.residual.PROOF_STEPS`) that ``uses`` names, run now."""
    return derivation(PROOF_STEPS, what, uses=uses, regime="all", concludes=True)


def _rand_matrix(rng, n, d, k=3):
    return random_int_matrix(rng, n, d, k)


def _low_rank(rng, n, d, r):
    return _rand_matrix(rng, n, r) * _rand_matrix(rng, r, d)


# --- a user's instance: X and uniform-attention weights (W_Q = 0) through the one exact reader --------------------

def _uniform_x_w(user) -> dict:
    X, Ws = uniform_input(user, "this claim")
    return {"X": X, "W": Ws}


def _uniform_first_order(user) -> dict:
    W = user.weights
    if W is None:
        raise BadInput("this claim needs weights: --weights W.npz (with W_Q = 0) or --heads H [--weights-seed N]")
    if user.n is None:
        raise BadInput("--n N (tokens) is needed")
    Ws = W.uniform_value_outputs("this claim")
    if user.n * W.d > 64:
        raise BadInput(f"the derivative is built from the images of the n d = {user.n * W.d} basis matrices; this claim "
                       "takes n d <= 64")
    return {"n": user.n, "d": W.d, "W": sum(Ws[1:], Ws[0])}  # uniform heads: MHA(X) = (J/n) X sum_h W_h


#: --X with uniform-attention weights (W_Q W_K^T = 0): {X, W = [W_V^h W_O^h]}
UNIFORM_X_W = InstanceForm(takes=("X", "weights"), build=_uniform_x_w, arithmetic=_USER_ARITH + ", uniform attention",
                           sites=("attention",),
                           explain=lambda x, name: f"{x['X'].shape[0]} x {x['X'].shape[1]}, rank X = {rank(x['X'])}, "
                                                   f"H = {len(x['W'])} uniform heads")
#: uniform-attention weights and --n: {n, d, W = sum_h W_V^h W_O^h}
UNIFORM_FIRST_ORDER = InstanceForm(takes=("weights", "n"), build=_uniform_first_order, sites=("attention",),
                                   arithmetic="exact over QQ (images of a basis), uniform attention")


def _attention_residual(v) -> Decided:
    """the map is attention + residual: F(X) = X + (J/n) X W (uniform attention)"""
    return Decided(True, "by construction: F(X) = X + (J/n) X W, uniform attention and the residual connection")


def _derivative_is_linear(v) -> Decided:
    """the derivative of X + (J/n) X W at X0 is a linear map of dX: D[E + 2E'] = D[E] + 2 D[E'] for every pair of basis
    matrices E, E' (exact)"""
    n, d, W = v["n"], v["d"], v["W"]
    basis = []
    for i in range(n):
        for j in range(d):
            E = zeros(n, d)
            E[i, j] = 1
            basis.append(E)
    D = lambda E: F_uniform(E, [W])  # noqa: E731  (F is linear: its derivative at any X0 is F itself)
    ok = all(D(E + 2 * E2) == D(E) + 2 * D(E2) for E in basis for E2 in basis)
    return Decided(ok, f"exact over Q: D[E + 2 E'] {'=' if ok else '!='} D[E] + 2 D[E'] on all {len(basis) ** 2} pairs of "
                       "basis matrices")


def _linear_rows(ctx):
    for regime, _label, v in _first_order_rows(ctx, "linear"):
        yield "all", regime, v


#: the same uniform-attention instances, one regime: the derivative's linearity
FIRST_ORDER_LINEAR = Pool(rows=_linear_rows, arithmetic="exact over QQ (images of a basis)",
                          instance_from=UNIFORM_FIRST_ORDER)


# --- the abstract and §5.3: the span of the embeddings, curvature -------------------------------------------------

def _mlp_span_counterexample(ctx) -> list[Evidence]:
    return [stored_counterexample("MLP.span", recheck_span, arithmetic=_ARITH)]


def _hull_rows(ctx):
    rng = random.Random(stable_seed("MLP.span:invariant hull"))
    for _ in range(4 if ctx.quick else 12):
        n, d = rng.randint(3, 5), rng.randint(4, 6)
        # weights with a common invariant subspace span(e_1..e_k) (row-vector convention: W[j, i] = 0 for
        # j < k <= i), and X with rows in it, so that S is proper and the test is not vacuous
        k = rng.randint(2, d - 1)
        X = _low_rank(rng, n, d, 1)
        for i in range(n):
            for j in range(k, d):
                X[i, j] = 0
        Ws = []
        for _ in range(2):
            W = _rand_matrix(rng, d, d)
            for j in range(k):
                for i in range(k, d):
                    W[j, i] = 0
            Ws.append(W)
        yield "all", "", {"X": X, "W": Ws}


def _stack_stays_in_hull(x) -> bool:
    """3-layer uniform-attention stacks stay in S(X, W)"""
    S = invariant_hull(x["X"], x["W"])
    Y = x["X"]
    for _ in range(3):
        Y = F_uniform(Y, x["W"])
    return all(in_rowspace(S, Y.row(i)) for i in range(Y.shape[0]))


#: rank-one X inside a common invariant subspace of two random integer W_h (so that S(X, W) is proper)
HULL = Pool(rows=_hull_rows, arithmetic=_ARITH, instance_from=UNIFORM_X_W)


claim(
    id="MLP.span", section="Abstract",
    quote="generating feature directions outside the linear span of the original token embeddings, which no stack "
          "of attention layers can produce",
    statement=r"\text{for every attention stack }\Phi:\ \operatorname{row}\Phi(X^{(0)})\subseteq\operatorname{row}X^{(0)}",
    hypotheses=("attention + residual only",), conclusion="output rows in the span of the input rows",
    regimes=("all",),
    checks=[_mlp_span_counterexample],
    readings=[Reading("invariant-hull",
                      r"\operatorname{row}\Phi(X)\subseteq S(X,W)=\text{smallest }W_h\text{-invariant subspace}\supseteq\operatorname{row}X",
                      hypotheses={}, conclusion=_stack_stays_in_hull, instances=HULL,
                      checks=[lambda ctx: [proof_evidence((4,), "invariance of S under one attention + residual layer "
                                                          "(induction over layers)")]],
                      note="true, but S = R^d for generic weights (the Krylov space of row(X) fills R^d), "
                           "so 'directions outside S' exist only for structured weights")],
    chapter="mlp_role",
    notion="exact-rank: row spaces over Q",
)


def _curvature(ctx) -> list[Evidence]:
    return [stored_counterexample("MLP.curvature", recheck_curvature,
                                  arithmetic="exact (sympy; exp(0) = 1 at the base point)")]


claim(
    id="MLP.curvature", section="§5.3",
    quote="The GeLU non-linearity of the MLP introduces curvature that is unavailable to any composition of attention "
          "and residual connections",
    depends_on=("MLP.first-order-form",),
    statement=r"D^2[X\mapsto X+\mathrm{MHA}(X)]\equiv0\ \text{(attention + residual is affine)}",
    hypotheses=("no MLP",), conclusion="second derivative vanishes", regimes=("all",),
    checks=[_curvature],
    readings=[Reading("first-order", r"D[X\mapsto X+\mathrm{MHA}(X)](X_0)\ \text{is linear}",
                      checks=[lambda ctx: [proof_evidence((5,), "linearity of the first derivative in the direction")]],
                      hypotheses={}, conclusion=_derivative_is_linear, instances=FIRST_ORDER_LINEAR,
                      note="true but says nothing specific to attention",
                      formal_gap=FormalGap("not-yet-proved", "the Frechet derivative of attention on n x d matrices "
                                           "(expR entrywise through the row normalisation, then composed over layers) "
                                           "exists and is linear ('d f x is a linear map by type), but "
                                           "differentiability of that composition on matrices is not written in "
                                           "MathComp-Analysis 0.6.0's normed modules"))],
    chapter="mlp_role",
)


# §5.3: the global map is not affine; the form of the first-order term

def not_affine_evidence(ctx) -> list[Evidence]:
    d2, _ = attention_second_derivative(load_counterexample("MLP.curvature")[0])
    nz = [(i, j, d2[i, j]) for i in range(d2.shape[0]) for j in range(d2.shape[1]) if d2[i, j] != 0]
    return [exact_complete("F(X) = X + softmax(X M X^T) X W on the stored instance (MLP.curvature.json): "
                           + (f"d^2/dt^2 F(X0 + tV)[{nz[0][0]},{nz[0][1]}] = {nz[0][2]} != 0 at t = 0: not affine"
                              if nz else "every second derivative vanishes"), bool(nz),
                           arithmetic="exact (sympy; exp(0) = 1 at the base point)")]


claim(
    id="MLP.not-globally-affine", section="§5.3",
    quote="The global map X^(0) ↦ X^(L) is not globally affine: softmax attention is non-linear in X^(0)",
    statement=r"\exists X_0,V:\ \tfrac{d^2}{dt^2}\bigl[X+\mathrm{MHA}(X)\bigr]_{X=X_0+tV}\neq0",
    hypotheses=("attention + residual, no MLP",), conclusion="not affine", regimes=("all",), form="existential",
    checks=[not_affine_evidence],
    readings=[Reading("consistent-with-curvature-claim",
                      r"\text{(this sentence contradicts MLP.curvature's 'curvature unavailable to attention')}",
                      checks=[not_affine_evidence], form="existential",
                      note="the same computation that proves this sentence refutes MLP.curvature's headline",
                      off_instance=OffInstance("inference", "whether two sentences of §5.3 agree"))],
    chapter="mlp_role",
)


def jacobian_images(n: int, d: int, W: Matrix) -> dict:
    """Images of the basis E_ij under the derivative of F(X) = X + (J/n) X W (uniform attention), exactly."""
    out = {}
    for i in range(n):
        for j in range(d):
            E = zeros(n, d)
            E[i, j] = 1
            out[(i, j)] = F_uniform(E, [W])  # F is linear: its derivative at any X is F itself
    return out


def is_left_multiplication(imgs: dict, n: int, d: int) -> bool:
    """Is the linear map dX -> L(dX) of the form Phi dX (Phi n x n)? Then L(E_ij) = Phi[:, i] e_j^T."""
    for (i, j), M in imgs.items():
        for k in range(d):
            if k != j and any(M[r, k] != 0 for r in range(n)):
                return False
        if M.col(j) != imgs[(i, 0)].col(0):
            return False
    return True


def is_right_multiplication(imgs: dict, n: int, d: int) -> bool:
    """Of the form dX Phi (Phi d x d)? Then L(E_ij) = e_i Phi[j, :]."""
    for (i, j), M in imgs.items():
        for r in range(n):
            if r != i and any(M[r, k] != 0 for k in range(d)):
                return False
        if M.row(i) != imgs[(0, j)].row(0):
            return False
    return True


def _first_order_rows(ctx, side: str):
    rng = random.Random(stable_seed(f"MLP.first-order-form:{side}"))
    for regime, Wgen in (("generic-weights", lambda d: _rand_matrix(rng, d, d, k=5)),
                         ("degenerate-weights", lambda d: Rational(rng.randint(-3, 3)) * eye(d))):
        for (n, d) in ((2, 2), (2, 3), (3, 2), (3, 3)):
            yield regime, "", {"n": n, "d": d, "W": Wgen(d)}


def _is_left_product(v) -> bool:
    """the derivative of X + (J/n) X W (uniform attention) is a left multiplication Phi dX"""
    return is_left_multiplication(jacobian_images(v["n"], v["d"], v["W"]), v["n"], v["d"])


def _is_right_product(v) -> bool:
    """the derivative of X + (J/n) X W (uniform attention) is a right multiplication dX Phi"""
    return is_right_multiplication(jacobian_images(v["n"], v["d"], v["W"]), v["n"], v["d"])


_JACOBIAN_ARITH = "exact over QQ (images of a basis)"
#: random integer W (generic) and W = c I (degenerate), n, d in {2, 3}; one Pool per reading (own seeds)
FIRST_ORDER_LEFT = Pool(rows=lambda ctx: _first_order_rows(ctx, "left"), arithmetic=_JACOBIAN_ARITH,
                        instance_from=UNIFORM_FIRST_ORDER)


FIRST_ORDER_RIGHT = Pool(rows=lambda ctx: _first_order_rows(ctx, "right"), arithmetic=_JACOBIAN_ARITH,
                         instance_from=UNIFORM_FIRST_ORDER)


claim(
    id="MLP.first-order-form", section="§5.3, Prop (first-order behaviour)",
    quote="X^(L)(X^(0) + δX) = X^(L)(X^(0)) + Φ(X^(0)) δX + O(‖δX‖^2) [§5.3, the displayed form:] X^(L) ≈ "
          "X^(0) Φ(X^(0)) + B(X^(0))",
    depends_on=("MLP.layer-jacobian",),
    statement=r"D X^{(L)}(X^{(0)})[\delta X]=\Phi(X^{(0)})\,\delta X\ \text{for a matrix }\Phi\in\mathbb R^{n\times n}",
    hypotheses={"attention + residual": _attention_residual},
    conclusion=("the first-order term is a left matrix product", _is_left_product), instances=FIRST_ORDER_LEFT,
    regimes=("generic-weights", "degenerate-weights"),
    readings=[Reading("right-product", r"D X^{(L)}[\delta X]=\delta X\,\Phi\ \ (\text{as in }X^{(0)}\Phi(X^{(0)}))",
                      hypotheses={}, conclusion=_is_right_product, instances=FIRST_ORDER_RIGHT),
              Reading("linear-operator", r"D X^{(L)}(X^{(0)})\ \text{is a linear map of }\delta X",
                      checks=[lambda ctx: [proof_evidence((5,), "linearity of the first derivative in the direction")]],
                      hypotheses={}, conclusion=_derivative_is_linear, instances=FIRST_ORDER_LINEAR,
                      regimes=("all",), note="true, with Φ read as an operator, not a matrix",
                      formal_gap=FormalGap("not-yet-proved", "the Frechet derivative of attention on n x d matrices "
                                           "(expR entrywise through the row normalisation, then composed over layers) "
                                           "exists and is linear ('d f x is a linear map by type), but "
                                           "differentiability of that composition on matrices is not written in "
                                           "MathComp-Analysis 0.6.0's normed modules"))],
    chapter="mlp_role",
)


def layer_jacobian_matches(n: int = 2, d: int = 2, product_rule=True) -> bool:
    """d/dt f(X0 + tV) at t = 0 for f(X) = X + A(X) X W, one head, against V + (dA/dt) X0 W + A0 V W (symbolic)."""
    t = sympy.Symbol("t", real=True)
    x = Matrix(n, d, lambda i, j: sympy.Symbol(f"x{i}{j}", real=True))
    V = Matrix(n, d, lambda i, j: sympy.Symbol(f"v{i}{j}", real=True))
    M, W = Matrix([[1, 0], [2, 1]]), Matrix([[1, 1], [0, 2]])

    def attn(X):
        return T.softmax_rows(T.SYMPY, X * M * X.T)

    X = x + t * V
    lhs = (X + attn(X) * X * W).diff(t).subs(t, 0)
    dA = attn(X).diff(t).subs(t, 0)
    rhs = V + (dA * x * W if product_rule else zeros(n, d)) + attn(x) * V * W
    return all_identically_zero(lhs - rhs)


def _one_head(v) -> Decided:
    """attention + residual with one head (H = 1)"""
    return Decided(len(v["heads"]) == 1, f"exact: H = {len(v['heads'])}")


def _product_rule_holds(v) -> Decided:
    """d/dt [X + A(X) X W] at X0 + tV, t = 0, equals V + (DA[V]) X0 W + A0 V W (sympy, exp kept symbolic)"""
    X0, V = v["X"], v["V"]
    WQ, WK, WV, WO = v["heads"][0]
    M, W = WQ * WK.T / sympy.sqrt(WQ.shape[1]), WV * WO
    t = sympy.Symbol("t", real=True)

    def attn(X):
        return T.softmax_rows(T.SYMPY, X * M * X.T)
    X = X0 + t * V
    lhs = (X + attn(X) * X * W).diff(t).subs(t, 0)
    rhs = V + attn(X).diff(t).subs(t, 0) * X0 * W + attn(X0) * V * W
    ok = all_identically_zero(lhs - rhs)
    return Decided(ok, "exact (sympy, exp kept symbolic): the derivative along V = the matrix of ones "
                       + ("equals" if ok else "differs from") + " V + (DA[V]) X0 W + A0 V W")


#: a symbolic derivative: decided last, and not at all once the premise (one head) fails
_product_rule_holds.cost = 10  # type: ignore[attr-defined]


def _jacobian_from_user(user) -> dict:
    X = user.matrix("X").sympy(12, "MLP.layer-jacobian (a symbolic derivative)")
    W = user.weights
    if W is None:
        raise BadInput("MLP.layer-jacobian needs weights: --weights W.npz or --heads H [--weights-seed N]")
    if W.d != X.shape[1]:
        raise BadInput(f"--weights: d = {W.d} in the weights but X has d = {X.shape[1]} columns")
    return {"X": X, "V": sympy.ones(*X.shape), "heads": [tuple(M.sympy(64) for M in h) for h in W.heads]}


def _jacobian_rows(ctx):
    rng = random.Random(stable_seed("MLP.layer-jacobian:instances"))
    for (n, d) in ((2, 2), (3, 2)):
        X = random_int_matrix(rng, n, d, 2)
        m = lambda r, c: Matrix(r, c, lambda i, j: Rational(rng.randint(-2, 2)))
        yield "all", f"{n} x {d}", {"X": X, "V": sympy.ones(n, d), "heads": [(m(d, 1), m(d, 1), m(d, 1), m(1, d))]}


claim(
    id="MLP.layer-jacobian", section="§5.3, proof of the first-order proposition",
    quote="Df_l(X_0) = I + D[MHA](X_0), ... D[Y^(h) W_O^(h)](X_0)[δX] = (D[A^(h)](X_0)[δX]) X_0 W_V^(h) "
          "W_O^(h) + A_0^(h) (δX) W_V^(h) W_O^(h)",
    # one head (W = W_V W_O): the quoted per-head term D[Y^(h) W_O^(h)], inside Df_l = I + D[MHA] for H = 1; the
    # sum over H heads (linearity of D) is not what is checked or proved
    statement=r"H=1:\ \tfrac{d}{dt}\bigl[X+A(X)XW\bigr]_{X_0+tV}=V+(DA[V])X_0W+A_0VW,\ W=W_VW_O",
    hypotheses={"attention + residual, one head": _one_head}, conclusion=("the product rule", _product_rule_holds),
    instances=Pool(rows=_jacobian_rows, arithmetic="sympy symbolic (exp kept exact)", instance_from=InstanceForm(
        takes=("X", "weights"), build=_jacobian_from_user, arithmetic="sympy symbolic (exp kept exact)",
        note="X0 = --X, V = the matrix of ones; scores X W_Q W_K^T X^T / sqrt(d_k)")),
    regimes=("all",),
    checks=[lambda ctx: [derivation([ProofStep(r"\tfrac{d}{dt}[X+A(X)XW]=V+(DA[V])X_0W+A_0VW",
                                               "symbolic in X0 and V (2 x 2, one head, softmax kept as exp)",
                                               "identity", layer_jacobian_matches)], "the layer Jacobian")]],
    chapter="mlp_role",
)

claim(
    id="MLP.tangent-space", section="§5.3",
    quote="the GeLU activation generates feature directions that lie outside the tangent space of the current "
          "representation, which attention layers alone cannot do efficiently",
    depends_on=("MLP.first-order-form",),
    statement=r"\text{(no formal content available)}",
    hypotheses=(), conclusion="", regimes=("all",),
    checks=[lambda ctx: [not_checkable("'the tangent space of the current representation' is not defined and "
                                       "'efficiently' is not quantified; the checkable neighbours are MLP.span, "
                                       "MLP.curvature and MLP.not-globally-affine")]],
    chapter="mlp_role",
    off_instance=OffInstance("undefined", "'cannot do efficiently' and the tangent space of a representation are not "
                             "defined in the text"),
)


# --- §1, gap (ii): bilinear attention ---

def _not_bilinear(ctx) -> list[Evidence]:
    """MHA(2X) against 2 MHA(X) and 4 MHA(X): softmax attention is homogeneous of neither degree (2^k softmax)."""
    X = Matrix([[1, 0], [0, 1], [1, 1]])
    M0, W = Matrix([[1, 0], [0, -1]]), Matrix([[1, 2], [0, 1]])
    f = lambda Y: exact_softmax(Y, M0) * Y * W
    a, b = f(2 * X), f(X)
    return [exact_complete(f"MHA(2X) = {a.tolist()}, while 2 MHA(X) = {(2 * b).tolist()} and 4 MHA(X) = "
                           f"{(4 * b).tolist()}: attention is neither linear nor bilinear (quadratic) in X",
                           a == 2 * b or a == 4 * b, arithmetic="exact (2^k softmax)")]


def _attention_makes_non_linear_features(ctx) -> list[Evidence]:
    return [predicted(e, "attention + residual generates a non-linear feature") for e in not_affine_evidence(ctx)]


def _scores_bilinear(ctx) -> list[Evidence]:
    X, Y, Z = (Matrix(2, 2, lambda i, j, s=s: sympy.Symbol(f"{s}{i}{j}", real=True)) for s in "xyz")
    M = Matrix(2, 2, lambda i, j: sympy.Symbol(f"m{i}{j}", real=True))
    c = sympy.Symbol("c", real=True)
    S = lambda A, B: A * M * B.T
    return [exact_complete("S(X, Y) = X M Y^T is linear in each argument (sympy, 2 x 2 symbolic): S(X + cZ, Y) = "
                           "S(X, Y) + c S(Z, Y) and S(X, Y + cZ) = S(X, Y) + c S(X, Z)",
                           (S(X + c * Z, Y) - S(X, Y) - c * S(Z, Y)).expand() == zeros(2, 2)
                           and (S(X, Y + c * Z) - S(X, Y) - c * S(X, Z)).expand() == zeros(2, 2),
                           arithmetic="sympy symbolic")]


def _scores_are_bilinear(v) -> Decided:
    """S(X, Y) = X M Y^T (M = W_Q W_K^T of the head) is linear in each argument, as an identity in symbolic X, Y, Z"""
    n, M = v["n"], v["M"]
    d = M.shape[0]
    X, Y, Z = (Matrix(n, d, lambda i, j, s=s: sympy.Symbol(f"{s}{i}{j}", real=True)) for s in "xyz")
    c = sympy.Symbol("c", real=True)
    S = lambda A, B: A * M * B.T  # noqa: E731
    ok = (S(X + c * Z, Y) - S(X, Y) - c * S(Z, Y)).expand() == zeros(n, n) \
        and (S(X, Y + c * Z) - S(X, Y) - c * S(X, Z)).expand() == zeros(n, n)
    return Decided(ok, f"exact (sympy, symbolic {n} x {d} X, Y, Z and c): S(X + cZ, Y) = S(X, Y) + c S(Z, Y) and "
                       f"S(X, Y + cZ) = S(X, Y) + c S(X, Z): {ok}")


def _scores_from_user(user) -> dict:
    X = user.matrix("X")
    W = user.weights
    if W is None:
        raise BadInput("MLP.bilinear-attention needs weights: --weights W.npz or --heads H [--weights-seed N]")
    if W.d != X.shape[1] or X.shape[0] * X.shape[1] > 16:
        raise BadInput(f"MLP.bilinear-attention: X ({X.shape[0]} x {X.shape[1]}, up to 16 entries) and the weights "
                       f"(d = {W.d}) must agree in d")
    WQ, WK = (M.sympy(256) for M in W.heads[0][:2])
    return {"n": X.shape[0], "M": WQ * WK.T}


def _scores_rows(ctx):
    rng = random.Random(stable_seed("MLP.bilinear-attention:scores"))
    for (n, d) in ((2, 2), (3, 2)):
        yield "all", f"{n} x {d}", {"n": n, "M": Matrix(d, d, lambda i, j: Rational(rng.randint(-3, 3)))}


claim(
    id="MLP.bilinear-attention", section="§1, gap (ii)",
    quote="The MLP’s necessary function is therefore something else entirely: generating non-linear features that "
          "the bilinear attention mechanism cannot reach",
    statement=r"X\mapsto X+\mathrm{MHA}(X)\ \text{is bilinear in }X\text{ and generates no non-linear feature}",
    hypotheses=("attention + residual, no MLP",), conclusion="no non-linear feature", regimes=("all",),
    checks=[_not_bilinear, _attention_makes_non_linear_features],
    readings=[Reading("scores-bilinear", r"S(X,Y)=XW_QW_K^\top Y^\top\ \text{is bilinear}", checks=[_scores_bilinear],
                      hypotheses={}, conclusion=_scores_are_bilinear, instances=Pool(
                          rows=_scores_rows, arithmetic="sympy symbolic", instance_from=InstanceForm(
                              takes=("X", "weights"), build=_scores_from_user, arithmetic="sympy symbolic",
                              note="X gives n and d; M = W_Q W_K^T of the first head; X, Y, Z symbolic")),
                      note="what is bilinear: the scores, before the softmax")],
    depends_on=("MLP.not-globally-affine", "MLP.curvature"), chapter="mlp_role",
)
