r"""The head-channel maps exactly: :math:`\Phi_a:(Y_h)\mapsto[Y_1\cdots Y_H]W_O` and
:math:`\Phi_b:(Y_h)\mapsto\sum_hY_h`, their kernels (from the maps' own matrices, built from a basis), exact head
recovery, the proof steps of the head-channel argument (sympy statements, checked when a claim runs) and the shapes the
claims are checked at.

Shared by :mod:`theorems.paper.head_channel`, :mod:`theorems.paper.recovery_ambiguity` and
:mod:`theorems.paper.symmetries` (the value-output gauge step).

>>> kernel_dim_a(n=2, H=2, d_k=1, W_O=[[1, 0], [0, 1]])
0
>>> kernel_dim_b(n=2, H=3, d_k=2)
8
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy
from sympy import Matrix, Rational, symbols

from .certified_rank import certified_rank
from .input import BadInput, exact_matrix
from .instances import Shape, random_int_matrix
from .linalg import all_identically_zero, left_kernel, nullspace, rank
from .qinterval import box, minor_certificate

__all__ = ["n", "H", "d_k", "d", "rho", "KERNEL_FORMULAS", "Phi_a", "kernel_dim_a", "kernel_dim_b", "kernel_basis_a",
           "recover_heads_exact", "map_matrix", "map_nullity", "step_kernel_a", "PROOF_STEPS", "deficient_witness",
           "HEAD_SHAPES", "sum_map_nullity_is_formula", "sum_shape_rows", "generic_wo_rows", "head_ambiguity",
           "single_head_ambiguity_formula", "weights_unknown_nullity", "weights_unknown_formula", "single_head_box",
           "head_wo_rows", "weights_unknown_rows", "BERT_W_O_SEED", "BERT_RANK_PRIME", "BertShapeRank",
           "bert_shape_w_o", "bert_shape_w_o_rank", "ARITHMETIC_MOD_P"]

n, H, d_k, d, rho = symbols("n H d_k d rho", positive=True, integer=True)


#: the one BERT-base-shape W_O (H d_k = d = 768) every claim ranks: random integers in [-9, 9], numpy seed below
BERT_W_O_SEED = 56_768
#: the prime its rank is computed modulo (the Mersenne prime 2^61 - 1)
BERT_RANK_PRIME = 2 ** 61 - 1


def bert_shape_w_o():
    """The shared random integer 768 x 768 W_O of BERT-base's shape (numpy array, entries in [-9, 9])."""
    import numpy as np
    return np.random.default_rng(BERT_W_O_SEED).integers(-9, 10, size=(768, 768))


@dataclass(frozen=True)
class BertShapeRank:
    """The exact rank of :func:`bert_shape_w_o` mod :data:`BERT_RANK_PRIME`, and what it proves over Q.

    rank mod p <= rank over Q (a minor that is non-zero mod p is a non-zero integer), so rank mod p = 768 proves
    rank over Q = 768; a smaller rank mod p proves only a lower bound (``rank_over_Q`` is then None)."""
    rank_mod_p: int
    prime: int
    seconds: float

    @property
    def rank_over_Q(self) -> int | None:
        return 768 if self.rank_mod_p == 768 else None

    def describe(self) -> str:
        if self.rank_over_Q is not None:
            return (f"a random integer 768 x 768 W_O has rank {self.rank_mod_p} mod p = 2^61 - 1 (python-flint "
                    "nmod_mat, exact arithmetic mod p); rank mod p <= rank over Q (a 768 x 768 minor non-zero "
                    "mod p is a non-zero integer), so rank W_O = 768 over Q exactly")
        return (f"a random integer 768 x 768 W_O has rank {self.rank_mod_p} mod p = 2^61 - 1, which proves only "
                f"rank W_O >= {self.rank_mod_p} over Q (undecided)")


ARITHMETIC_MOD_P = ("exact: rank mod p = 2^61 - 1 (python-flint nmod_mat), a lower bound on the rank over Q, equal "
                    "to it when full")


@lru_cache(maxsize=1)
def bert_shape_w_o_rank() -> BertShapeRank:
    """Rank :func:`bert_shape_w_o` exactly mod :data:`BERT_RANK_PRIME` (about 1 s; computed once per process)."""
    import time

    import flint
    W = bert_shape_w_o()
    t0 = time.perf_counter()
    r = int(flint.nmod_mat(flint.fmpz_mat(768, 768, W.ravel().tolist()), BERT_RANK_PRIME).rank())
    return BertShapeRank(rank_mod_p=r, prime=BERT_RANK_PRIME, seconds=time.perf_counter() - t0)


#: exact kernel dimensions of the three readings (rho = rank W_O)
KERNEL_FORMULAS = {"a": n * (H * d_k - rho), "b": n * (H - 1) * d_k, "c": H * d_k ** 2}


def Phi_a(Ys: list[Matrix], W_O: Matrix) -> Matrix:
    """[Y_1 ... Y_H] W_O  # [n, H d_k] x [H d_k, d] -> [n, d]."""
    return Matrix.hstack(*Ys) * W_O


def kernel_dim_a(n: int, H: int, d_k: int, W_O) -> int:
    """Exact dim ker Phi_a = n (H d_k - rank W_O)."""
    W = exact_matrix(W_O, "W_O")
    if W.shape[0] != H * d_k:
        raise ValueError(f"W_O has {W.shape[0]} rows, expected H d_k = {H * d_k}")
    return n * (H * d_k - rank(W))


def kernel_dim_b(n: int, H: int, d_k: int) -> int:
    return n * (H - 1) * d_k


def kernel_basis_a(W_O: Matrix) -> list[Matrix]:
    """Left-kernel basis of W_O: every row y with y W_O = 0 (each gives n kernel directions of Phi_a)."""
    return left_kernel(W_O)  # {c : c^T W_O = 0}


def recover_heads_exact(M: Matrix, W_O: Matrix, H: int) -> list[Matrix] | None:
    """Recover (Y_1..Y_H) from MHA output M = [Y_1..Y_H] W_O when W_O has full row rank (exact)."""
    if rank(W_O) < W_O.shape[0]:
        return None
    # right inverse: W_O^T (W_O W_O^T)^{-1}
    Wp = W_O.T * (W_O * W_O.T).inv()
    Y = M * Wp
    dk = W_O.shape[0] // H
    return [Y[:, h * dk:(h + 1) * dk] for h in range(H)]


def map_matrix(phi, n: int, H: int, d_k: int) -> Matrix:
    """The matrix [out_dim, n H d_k] of a linear map (Y_1..Y_H) -> phi(Ys): its columns are the images of the
    basis (head by head, row-major), so the coordinates of Y_1 come first."""
    cols = []
    for h in range(H):
        for i in range(n):
            for j in range(d_k):
                Ys = [Matrix.zeros(n, d_k) for _ in range(H)]
                Ys[h][i, j] = 1
                cols.append(list(phi(Ys)))
    return Matrix(cols).T


def map_nullity(phi, n: int, H: int, d_k: int) -> int:
    """dim ker of a linear map (Y_1..Y_H) -> phi(Ys), computed from its matrix (images of a basis), exactly."""
    return n * H * d_k - rank(map_matrix(phi, n, H, d_k))


def step_kernel_a() -> bool:
    # Phi_a acts row by row: row i of the output is y_i W_O with y_i in R^{H d_k}; kernel = n copies of leftker(W_O).
    # Checked against the nullity of the map's own matrix (built from a basis), not against the formula itself.
    W = Matrix([[1, 2], [2, 4], [0, 1]])  # H d_k = 3, rank 2
    return (map_nullity(lambda Ys: Phi_a(Ys, W), 2, 3, 1) == kernel_dim_a(2, 3, 1, W) == 2
            and len(kernel_basis_a(W)) == 1)


def _step_gauge() -> bool:
    A = Matrix(2, 2, lambda i, j: sympy.Symbol(f"a{i}{j}"))
    X = Matrix(2, 2, lambda i, j: sympy.Symbol(f"x{i}{j}"))
    WV = Matrix(2, 2, lambda i, j: sympy.Symbol(f"v{i}{j}"))
    WO = Matrix(2, 2, lambda i, j: sympy.Symbol(f"o{i}{j}"))
    Mg = Matrix(2, 2, lambda i, j: sympy.Symbol(f"m{i}{j}"))
    lhs = A * X * (WV * Mg) * (Mg.inv() * WO)
    return all_identically_zero(lhs - A * X * WV * WO)


def _step_data_processing() -> bool:
    # g(Phi(Y + K)) = g(Phi(Y)) for every K in ker Phi and every map g (here a GELU-like polynomial)
    W = Matrix([[1, 0], [2, 0], [0, 1], [0, 2]])  # H = 2, d_k = 2, rank 2 < 4
    Ys = [Matrix([[1, 2]]), Matrix([[3, -1]])]
    K = kernel_basis_a(W)[0].T
    Ys2 = [Ys[0] + K[:, 0:2], Ys[1] + K[:, 2:4]]
    g = lambda M: M.applyfunc(lambda v: v ** 3 + v / 2)
    return g(Phi_a(Ys2, W)) == g(Phi_a(Ys, W)) and Ys2 != Ys


def _step_sum_onto() -> bool:
    # the sum map is onto (T = Phi_b(T, 0, ..., 0)), so by rank-nullity dim ker = n H d_k - n d_k
    T = Matrix(2, 2, lambda i, j: sympy.Symbol(f"t{i}{j}"))
    Ys = [T] + [Matrix.zeros(2, 2)] * 2
    return sum(Ys[1:], Ys[0]) == T


PROOF_STEPS = [
    (r"\dim\ker\Phi_a=n\,\dim\operatorname{leftker}W_O=n(Hd_k-\operatorname{rank}W_O)",
     "Phi_a acts on each token's row y_i independently: y_i W_O", "identity", step_kernel_a),
    (r"A X (W_VM)(M^{-1}W_O)=A X W_V W_O", "the value-output gauge leaves each head's contribution unchanged",
     "identity", _step_gauge),
    (r"\Phi(Y)=\Phi(Y')\Rightarrow g(\Phi(Y))=g(\Phi(Y'))", "no map of the mixed signal (an MLP) separates what "
     "the mixing identified", "identity", _step_data_processing),
    (r"\Phi_b(T,0,\dots,0)=T\Rightarrow\dim\ker\Phi_b=nHd_k-nd_k", "the sum map is onto; rank-nullity",
     "identity", _step_sum_onto),
]


def deficient_witness(n: int = 2, H: int = 2, d_k: int = 2, d: int = 3) -> dict:
    """H d_k > d forces rank W_O < H d_k: two different (Y_h) with the same MHA output, exactly."""
    W = Matrix(H * d_k, d, lambda i, j: Rational((i + 1) * (j + 2) % 5 - 2))
    K = kernel_basis_a(W)
    Ys = [Matrix(n, d_k, lambda i, j, h=h: Rational(i + 2 * j + h)) for h in range(H)]
    k = K[0].T
    Ys2 = [Ys[h] + Matrix.vstack(*([k[:, h * d_k:(h + 1) * d_k]] * n)) for h in range(H)]
    return {"W_O": W.tolist(), "rank_W_O": rank(W), "kernel_dim": kernel_dim_a(n, H, d_k, W),
            "kernel_basis": [list(v) for v in K], "Y": [y.tolist() for y in Ys], "Y_other": [y.tolist() for y in Ys2],
            "same_output": Phi_a(Ys, W) == Phi_a(Ys2, W), "different_heads": Ys != Ys2}


#: shapes checked exactly; H d_k <= d (as in BERT) and H d_k > d
#: edges included: n = 2, H = 1, d_k = 1
HEAD_SHAPES = [Shape(n=3, d=4, H=2, d_k=2), Shape(n=4, d=6, H=3, d_k=2), Shape(n=2, d=12, H=4, d_k=3),
          Shape(n=3, d=4, H=3, d_k=2), Shape(n=5, d=6, H=2, d_k=3), Shape(n=2, d=2, H=1, d_k=1),
          Shape(n=2, d=2, H=2, d_k=1)]


def sum_map_nullity_is_formula(v) -> bool | None:
    """nullity of the sum map (its matrix built from a basis) = n (H - 1) d_k"""
    nn, HH, dk = v["n"], v["H"], v["d_k"]
    if nn * HH * dk > MAP_MAX_COLUMNS:
        return None  # the map's matrix is too large to build here: undecided, never the formula against itself
    return map_nullity(lambda Ys: sum(Ys[1:], Ys[0]), nn, HH, dk) == KERNEL_FORMULAS["b"].subs({n: nn, H: HH, d_k: dk})


def generic_wo_rows(rng, keep_skipped: bool = False):
    """Pool rows ("generic-weights", "", {n, H, d_k, d, W_O}): a random integer W_O (H d_k x d) for each shape of
    HEAD_SHAPES with H d_k <= d and n H d_k <= 40 (the size of the exact nullity computation); the other shapes are
    left out, or kept with W_O = None when ``keep_skipped`` (so a claim can name those two hypotheses)."""
    for (nn, dd, HH, dk) in HEAD_SHAPES:
        small = HH * dk <= dd and nn * HH * dk <= 40
        if small or keep_skipped:
            yield "generic-weights", "", {"n": nn, "H": HH, "d_k": dk, "d": dd,
                                          "W_O": random_int_matrix(rng, HH * dk, dd) if small else None}


def sum_shape_rows(ctx=None):
    """Pool rows ("all", "", {n, H, d_k}) for the (n, H, d_k) of HEAD_SHAPES (reading b: heads summed, no W_O)."""
    return [("all", "", {"n": nn, "H": HH, "d_k": dk}) for (nn, _dd, HH, dk) in HEAD_SHAPES]


def head_ambiguity(phi, n: int, H: int, d_k: int) -> int:
    """dim {Y_1 : (Y_1, Y_2, ..., Y_H) in ker phi for some Y_2..Y_H}: the ambiguity left in head 1 when the mixed
    signal phi(Y) is observed, from the kernel of the map's own matrix (the coordinates of Y_1 come first)."""
    K = nullspace(map_matrix(phi, n, H, d_k))
    if not K:
        return 0
    return rank(Matrix.hstack(*K)[: n * d_k, :])


def single_head_ambiguity_formula(n: int, d_k: int, W_O: Matrix) -> int:
    """n (d_k - rank W_O + rank W_O^{2..H}): y_1 is ambiguous exactly when y_1 W_O^1 lies in the row space of the other
    heads' blocks (the ambiguity of head 1 with W_O known, per token, times n)."""
    return n * (d_k - rank(W_O) + rank(W_O[d_k:, :]))


def weights_unknown_nullity(Ys: list[Matrix], W_O: Matrix) -> int:
    """The nullity of the differential of (Y, W_O) -> [Y_1 ... Y_H] W_O at a point: (dY, dW) -> dY W_O + Y dW, its
    matrix built from a basis (exact). At a point where the rank is maximal this is the dimension of the fibre: the
    degrees of freedom left ambiguous when only the mixed output is observed and the weights are unknown."""
    Y = Matrix.hstack(*Ys)
    n, K = Y.shape
    d = W_O.shape[1]
    cols = []
    for i in range(n):
        for j in range(K):
            E = Matrix.zeros(n, K)
            E[i, j] = 1
            cols.append(list(E * W_O))
    for i in range(K):
        for j in range(d):
            E = Matrix.zeros(K, d)
            E[i, j] = 1
            cols.append(list(Y * E))
    return n * K + K * d - rank(Matrix(cols).T)


def weights_unknown_formula(n: int, K: int, d: int) -> int:
    """n K + K d - m (n + d - m), m = min(n, d, K): domain dimension minus the dimension of the n x d matrices of rank
    at most m (the generic fibre of (Y, W) -> Y W, K = H d_k)."""
    m = min(n, d, K)
    return n * K + K * d - m * (n + d - m)


def single_head_box(n: int, d_k: int, W_O: Matrix) -> tuple[int, str, str] | None:
    """(value, box, why) when the ambiguity of head 1 is certified constant on a box around W_O: rank W_O and rank of
    the other heads' blocks W_O^{2..H} are maximal at every point of the box (minor enclosures excluding 0, exact
    rational intervals), so :func:`single_head_ambiguity_formula` takes one value there; None otherwise."""
    K, d = W_O.shape
    rest = W_O[d_k:, :]
    r1, r2 = rank(W_O), rank(rest) if rest.shape[0] else 0
    if r1 != min(K, d) or r2 != (min(rest.shape) if rest.shape[0] else 0):
        return None
    for e in (3, 6, 9, 12):
        rad = Rational(1, 10 ** e)
        c1 = minor_certificate(box(W_O, rad), r1)
        c2 = minor_certificate(box(rest, rad), r2) if r2 else (None, None, None)
        if c1 is not None and c2 is not None:
            return (n * (d_k - r1 + r2), f"|W_O' - W_O|_max <= 1/10^{e}",
                    f"rank W_O' = {r1} and rank W_O'^(2..H) = {r2} at every point (minors certified non-zero), so the "
                    f"ambiguity of head 1 is n (d_k - {r1} + {r2}) = {n * (d_k - r1 + r2)} on the whole box")
    return None


def head_wo_rows(rng):
    """Pool rows (regime "Hd_k<=d" or "Hd_k>d", "", {n, H, d_k, d, W_O}): a random integer W_O per shape of
    HEAD_SHAPES."""
    for (nn, dd, HH, dk) in HEAD_SHAPES:
        yield ("Hd_k<=d" if HH * dk <= dd else "Hd_k>d"), "", {"n": nn, "H": HH, "d_k": dk, "d": dd,
                                                               "W_O": random_int_matrix(rng, HH * dk, dd)}


def weights_unknown_rows(rng):
    """Pool rows ("all", "", {n, H, d_k, d, Y, W_O}): random integer head outputs and W_O per shape of HEAD_SHAPES."""
    for (nn, dd, HH, dk) in HEAD_SHAPES:
        yield "all", "", {"n": nn, "H": HH, "d_k": dk, "d": dd,
                          "Y": [random_int_matrix(rng, nn, dk) for _ in range(HH)],
                          "W_O": random_int_matrix(rng, HH * dk, dd)}
# --- a user's W_O (one exact reader) and what the head-channel predicates read from it -----------------------------

#: a map's matrix (images of a basis) is built only up to n H d_k columns; beyond, what needs it is undecided
MAP_MAX_COLUMNS = 400
#: a user's W_O is also made a sympy matrix (for the predicates that multiply by it) up to this many entries
W_O_SYMPY_MAX_ENTRIES = 10_000


def rank_of_W_O(v) -> int | None:
    """rank W_O of an instance: the certified rank a user's instance carries, else the exact rank of its matrix."""
    if "rank_W_O" in v:
        return v["rank_W_O"]
    return rank(v["W_O"])


def _map_ok(v) -> bool:
    return v["n"] * v["H"] * v["d_k"] <= MAP_MAX_COLUMNS and v.get("W_O") is not None


def nullity_a(v) -> tuple[int | None, str]:
    """(dim ker Phi_a, how): from the map's own matrix when it is small enough, else n times the nullity of the
    per-token map y -> y W_O (Phi_a acts on each token's row independently), with rank W_O exact."""
    nn, HH, dk = v["n"], v["H"], v["d_k"]
    if _map_ok(v):
        W = v["W_O"]
        return map_nullity(lambda Ys: Phi_a(Ys, W), nn, HH, dk), "from the matrix of Phi_a (images of a basis)"
    r = rank_of_W_O(v)
    if r is None:
        return None, f"undecided: rank W_O not certified ({v.get('rank_how', '')})"
    return nn * (HH * dk - r), (f"n x (nullity of y -> y W_O) = {nn} x ({HH * dk} - rank W_O) with rank W_O = {r} "
                                f"exact (Phi_a acts on each token's row; the map's matrix, {nn * HH * dk} columns, is "
                                f"above {MAP_MAX_COLUMNS})")


def standard_mha(v) -> bool:
    """W_O stacks the H heads' output projections: H d_k rows (standard multi-head attention)"""
    shape = v["W_O"].shape if v.get("W_O") is not None else v.get("W_O_shape")
    return shape is not None and shape[0] == v["H"] * v["d_k"]


def w_o_known(v) -> bool:
    """W_O is known (given), so the per-head outputs Y_h are to be recovered from MHA(X) = [Y_1 ... Y_H] W_O"""
    return v.get("W_O") is not None or v.get("rank_W_O") is not None or "rank_how" in v


def w_o_instance(user, need_n: bool = False) -> dict:
    """{n, H, d_k, d, W_O, rank_W_O, rank_how} from the user's --W-O and --heads (and --n): rank W_O certified on the
    exact values (never a float64 rounding); W_O as a sympy matrix when it is small enough to multiply by."""
    W = user.matrix("W_O")
    H, dk = user.heads_of_W_O()
    if need_n and user.n is None:
        raise BadInput("--n N (tokens per sequence) is needed")
    n = user.n if user.n is not None else 1
    r = certified_rank(W.kernel(), seed=user.seed if user.seed is not None else 0)
    small = W.shape[0] * W.shape[1] <= W_O_SYMPY_MAX_ENTRIES
    return {"n": n, "H": H, "d_k": dk, "d": W.shape[1], "W_O": W.sympy() if small else None,
            "W_O_shape": W.shape, "rank_W_O": r.lower if r.certified else None, "rank_how": str(r),
            "n_given": user.n is not None}


def w_o_instance_with_n(user) -> dict:
    return w_o_instance(user, need_n=True)


def explain_w_o(v, name: str) -> str:
    """How a head-channel predicate was decided on a W_O instance: the shape, and the certified rank of W_O."""
    shape = v["W_O"].shape if v.get("W_O") is not None else v.get("W_O_shape")
    sizes = f"H = {v['H']}, d_k = {v['d_k']}" + (f", n = {v['n']}" if v.get("n_given", True) else "")
    if name == "standard MHA":
        return f"W_O is {shape[0]} x {shape[1]}: {shape[0]} rows = H d_k ({sizes})" if shape else sizes
    if name == "W_O known":
        return "W_O given" + (f" ({shape[0]} x {shape[1]})" if shape else "")
    parts = [sizes]
    if "rank_how" in v:
        parts.append(f"rank W_O: {v['rank_how']}")
    elif v.get("W_O") is not None:
        parts.append(f"rank W_O = {rank(v['W_O'])}")
    if v["n"] * v["H"] * v["d_k"] > MAP_MAX_COLUMNS:
        parts.append(f"the map's matrix would have n H d_k = {v['n'] * v['H'] * v['d_k']} columns, above "
                     f"{MAP_MAX_COLUMNS}")
    return "; ".join(parts)
