r"""The head channel through a deployed block, as studies returning plain records (issue 57): the kernel HC.main's and
RA.main's per-block readings share (theorems.paper.head_channel and recovery_ambiguity turn the records into evidence).

What is observed is the attention sub-layer's output, not the sum :math:`S=\sum_hY_hW_O^h`
(:mod:`theorems.exact.deployed`): pre-LN / pre-RMSNorm add S to the un-normalised X (:math:`S=Z-X`: the fibre is
:math:`Y+\ker\Phi_a`, as in §7; the causal mask changes :math:`A_h`, not the summation map); post-LN observes
:math:`\mathrm{LN}(X+S)`, which loses a shift and a scale per row (eps = 0) or the shift only (eps > 0).

Each record is a dict: ``{"type": "instances", regime, met, held, first, drawn?, recovered?}``,
``{"type": "box", regime, what, box}`` (a failure certified on a box: the fibre dimension constant there) or
``{"type": "complete", what, holds}``.
"""
from __future__ import annotations

from sympy import Matrix, Rational

from . import deployed
from .heads import Phi_a, map_nullity
from .instances import random_int_matrix
from .linalg import rank
from .qinterval import box, minor_certificate

__all__ = ["POST_LN_SHAPES", "POST_LN_EPS_SHAPES", "HEAD_CHANNEL_SHAPES", "RA_POST_LN_SHAPES", "RA_POST_LN_EPS_SHAPES",
           "RA_POST_LN_HOLDS", "RA_POST_LN_FAILS", "RA_POST_LN_EPS_HOLDS", "RA_POST_LN_EPS_FAILS",
           "ra_post_ln_fibre_is_papers", "ra_post_ln_regime",
           "PRENORM_SHAPES", "BERT_EPS", "post_ln_rows", "post_ln_study", "post_ln_count_study",
           "post_ln_head_channel_study", "post_ln_head_channel_count_study", "prenorm_rows", "prenorm_study"]

#: post-LN shapes (n, d, H, d_k) per regime, eps = 0: H d_k >= d - 1 (BERT: H d_k = d) and H d_k <= d - 2
POST_LN_SHAPES = {"Hd_k>=d-1": [(3, 4, 2, 2), (2, 4, 3, 1), (3, 3, 2, 2), (2, 6, 3, 2)],
                  "Hd_k<=d-2": [(2, 4, 1, 2), (3, 5, 1, 2), (2, 5, 1, 3), (2, 6, 2, 2)]}
#: with eps > 0 only the shift is lost: the regimes split at H d_k = d
POST_LN_EPS_SHAPES = {"Hd_k>=d": [(3, 4, 2, 2), (3, 3, 2, 2), (2, 4, 3, 2)],
                      "Hd_k<=d-1": [(2, 4, 3, 1), (2, 4, 1, 2), (2, 6, 2, 2), (3, 5, 2, 2)]}
#: the head channel through post-LN (the fibre beyond LayerNorm's own loss, n (H d_k - rank W_O) whatever eps): the
#: regimes of §7, generic W_O of full row rank (H d_k <= d) or rank-deficient (H d_k > d); H = 1 included
HEAD_CHANNEL_SHAPES = {"Hd_k<=d": [(3, 4, 2, 2), (2, 6, 2, 2), (3, 5, 2, 2), (2, 4, 1, 4)],
                       "Hd_k>d": [(3, 3, 2, 2), (2, 4, 3, 2), (2, 2, 3, 1)]}
#: RA.main's post-LN equation (fibre = n (H - 1) d_k): the generic fibre n (H d_k - rho) + n max(0, rho + k - d)
#: (rho = min(H d_k, d), k = 2 at eps = 0, 1 at eps > 0) equals n (H - 1) d_k iff d = d_k + k (a coincidence of
#: LayerNorm's loss with the paper's count) or H = 1 and d > d_k + k (both sides 0: W_O of full row rank d_k <= d - k
#: leaves LayerNorm nothing to lose; review s4: (n, d, H, d_k) = (2, 4, 1, 1) holds), so these are the regimes
RA_POST_LN_HOLDS, RA_POST_LN_FAILS = "d=d_k+2 or (H=1 and d>d_k+2)", "d!=d_k+2 and not (H=1 and d>d_k+2)"
RA_POST_LN_EPS_HOLDS, RA_POST_LN_EPS_FAILS = "d=d_k+1 or (H=1 and d>d_k+1)", "d!=d_k+1 and not (H=1 and d>d_k+1)"
RA_POST_LN_SHAPES = {RA_POST_LN_HOLDS: [(3, 4, 2, 2), (2, 4, 3, 2), (2, 5, 2, 3), (2, 4, 1, 1)],
                     RA_POST_LN_FAILS: [(2, 4, 3, 1), (3, 3, 2, 2), (2, 6, 3, 2), (2, 6, 2, 2), (2, 4, 1, 4)]}
RA_POST_LN_EPS_SHAPES = {RA_POST_LN_EPS_HOLDS: [(3, 3, 2, 2), (2, 4, 2, 3), (2, 3, 3, 2), (2, 4, 1, 1)],
                         RA_POST_LN_EPS_FAILS: [(3, 4, 2, 2), (2, 4, 3, 1), (2, 6, 2, 2), (3, 5, 2, 2), (2, 3, 1, 3)]}


def ra_post_ln_fibre_is_papers(shape: tuple[int, int, int, int], k: int) -> bool:
    """Whether the generic post-LN fibre n (H d_k - rho) + n max(0, rho + k - d), rho = min(H d_k, d), equals the
    paper's n (H - 1) d_k at (n, d, H, d_k) = ``shape`` (k = 2 at eps = 0, 1 at eps > 0)."""
    n, d, H, dk = shape
    rho = min(H * dk, d)
    return n * (H * dk - rho) + n * max(0, rho + k - d) == n * (H - 1) * dk


def ra_post_ln_regime(shape: tuple[int, int, int, int], k: int) -> str:
    """The regime of RA.main:post-LN (k = 2) or :post-LN-eps (k = 1) that ``shape`` = (n, d, H, d_k) lies in."""
    _, d, H, dk = shape
    holds = d == dk + k or (H == 1 and d > dk + k)
    if k == 2:
        return RA_POST_LN_HOLDS if holds else RA_POST_LN_FAILS
    return RA_POST_LN_EPS_HOLDS if holds else RA_POST_LN_EPS_FAILS


#: pre-norm shapes (n, d, H, d_k) per regime (d != 3: a rational LayerNorm row needs d != 3)
PRENORM_SHAPES = {"Hd_k<=d": [(3, 4, 2, 2), (4, 4, 1, 2), (2, 5, 2, 2)], "Hd_k>d": [(3, 2, 3, 1), (2, 4, 3, 2)]}
#: BERT's LayerNorm eps, exactly
BERT_EPS = Rational(1, 10 ** 12)


def post_ln_rows(rng, eps=0, shapes_by_regime=None):
    """(regime, (n, d, H, d_k), X, W_O, Ys, gamma): random integer instances of the post-LN observation (the shapes
    POST_LN_(EPS_)SHAPES unless given)."""
    if shapes_by_regime is None:
        shapes_by_regime = POST_LN_EPS_SHAPES if eps else POST_LN_SHAPES
    for regime, shapes in shapes_by_regime.items():
        for (nn, dd, HH, dk) in shapes:
            X, W = random_int_matrix(rng, nn, dd, 3), random_int_matrix(rng, HH * dk, dd, 3)
            Ys = [random_int_matrix(rng, nn, dk, 3) for _ in range(HH)]
            yield regime, (nn, dd, HH, dk), X, W, Ys, [rng.choice([1, 2, -1, 3]) for _ in range(dd)]


def _regime_study(rows, tag: str, measure, conclusion, first_words, boxer) -> list[dict]:
    """Per regime of ``rows`` ((regime, shape, X, W, Ys, gamma) tuples): ``measure(X, Ys, W, gamma)`` (None: not
    measured) against ``conclusion(value, shape)``; ``first_words(shape, value)`` names the first failure and
    ``boxer(regime, shape, X, W)`` gives a box record for the first failure it can certify (or None)."""
    by: dict[str, list] = {}
    for regime, shape, X, W, Ys, g in rows:
        by.setdefault(regime, []).append((shape, X, W, Ys, g))
    out: list[dict] = []
    for regime, rs in by.items():
        met = held = 0
        first = boxed = None
        for shape, X, W, Ys, g in rs:
            f = measure(X, Ys, W, g)
            if f is None:
                continue
            met += 1
            ok = conclusion(f, shape)
            held += ok
            if not ok and first is None:
                first = first_words(shape, f)
            if not ok and boxed is None:
                boxed = boxer(regime, shape, X, W)
        out.append({"type": "instances", "regime": regime, "met": met, "held": held, "first": first, "tag": tag})
        if boxed is not None:
            out.append(boxed)
    return out


def post_ln_study(rng, conclusion, eps=0, shapes_by_regime=None) -> list[dict]:
    """Per regime: the fibre of the post-LN observation (the exact Jacobian's nullity) against ``conclusion(fibre,
    shape)``, and a box record (the fibre constant on it, by the certified ranks) for the first failure."""
    tag = f"post-LN (eps = {eps})" if eps else "post-LN"

    def boxer(regime, shape, X, W):
        b = deployed.post_ln_fibre_box(X, W, eps)
        if b is None or conclusion(b[0], shape):
            return None
        return {"type": "box", "regime": regime, "box": b[1],
                "what": f"{tag}, (n, d, H, d_k) = {shape}, X = {X.tolist()}, W_O = {W.tolist()}: rank W_O and every "
                        "rank [1; (x_i;) W_O] certified maximal, so by the fibre formula (RA.main:post-LN-count / "
                        f":post-LN-eps-count) the fibre dimension is {b[0]} at every point"}
    return _regime_study(post_ln_rows(rng, eps, shapes_by_regime), tag,
                         lambda X, Ys, W, g: deployed.post_ln_jacobian_nullity(X, Ys, W, g, eps), conclusion,
                         lambda shape, f: f"(n, d, H, d_k) = {shape}: fibre dimension {f}", boxer)


def post_ln_count_study(rng, eps=0) -> dict:
    """The fibre formula against the exact Jacobian's nullity over post_ln_rows: {met, held, first}."""
    met = held = 0
    first = None
    for _regime, shape, X, W, Ys, g in post_ln_rows(rng, eps):
        f = deployed.post_ln_jacobian_nullity(X, Ys, W, g, eps)
        if f is None:
            continue
        met += 1
        want = deployed.post_ln_fibre_formula(X, W, eps)
        held += f == want
        if f != want and first is None:
            first = f"{shape}: Jacobian nullity {f}, formula {want}"
    return {"met": met, "held": held, "first": first}


def post_ln_head_channel_study(rng, conclusion, eps=0) -> list[dict]:
    """Per regime of HEAD_CHANNEL_SHAPES: what the heads lose beyond LayerNorm (the exact Jacobian's nullity of
    (Y_h) -> LN(X + sum_h Y_h W_O^h) minus that of S -> LN(X + S), S in row W_O) against ``conclusion(loss,
    shape)``; a failure boxed by rank W_O certified maximal on a box of W_O (the loss, n (H d_k - rank W_O), is
    constant there)."""
    tag = f"post-LN (eps = {eps})" if eps else "post-LN"

    def boxer(regime, shape, X, W):
        nn, dd, HH, dk = shape
        rk = rank(W)
        want = nn * (HH * dk - min(HH * dk, dd))
        if rk != min(HH * dk, dd) or conclusion(want, shape):
            return None
        for e in (3, 6, 9):
            if minor_certificate(box(W, Rational(1, 10 ** e)), rk) is not None:
                return {"type": "box", "regime": regime, "box": f"|W_O' - W_O|_max <= 1/10^{e}",
                        "what": f"{tag}, (n, d, H, d_k) = {shape}, W_O = {W.tolist()}: rank W_O = {rk} (maximal) at "
                                "every point, so the fibre beyond LayerNorm's, n (H d_k - rank W_O) "
                                f"(RA.main:post-LN-heads-count), is {want} on the box, whatever X"}
        return None
    return _regime_study(post_ln_rows(rng, eps, HEAD_CHANNEL_SHAPES), tag,
                         lambda X, Ys, W, g: deployed.post_ln_head_channel_nullity(X, Ys, W, g, eps), conclusion,
                         lambda shape, f: f"(n, d, H, d_k) = {shape}: fibre beyond LayerNorm's {f}", boxer)


def post_ln_head_channel_count_study(rng, eps=0) -> dict:
    """The head channel's loss beyond LayerNorm (two exact Jacobian nullities) against n (H d_k - rank W_O) over
    HEAD_CHANNEL_SHAPES: {met, held, first}."""
    met = held = 0
    first = None
    for _regime, shape, X, W, Ys, g in post_ln_rows(rng, eps, HEAD_CHANNEL_SHAPES):
        f = deployed.post_ln_head_channel_nullity(X, Ys, W, g, eps)
        if f is None:
            continue
        met += 1
        want = deployed.head_channel_fibre_formula(X.shape[0], W)
        held += f == want
        if f != want and first is None:
            first = f"{shape}: Jacobian nullities' difference {f}, n (H d_k - rank W_O) = {want}"
    return {"met": met, "held": held, "first": first}


def prenorm_rows(rng, block_type: str):
    """(regime, (n, d, H, d_k), X, W_V's, W_O's, gamma, beta) with X a rational-norm witness of full rank."""
    for regime, shapes in PRENORM_SHAPES.items():
        for (nn, dd, HH, dk) in shapes:
            X = deployed.stratum_witness(nn, dd, min(nn, dd), block_type)
            WVs = [random_int_matrix(rng, dd, dk, 2) for _ in range(HH)]
            WOs = [random_int_matrix(rng, dk, dd, 3) for _ in range(HH)]
            gamma = [rng.choice([1, 2, -1]) for _ in range(dd)]
            beta = [rng.randint(-2, 2) for _ in range(dd)] if block_type == "pre_ln" else None
            yield regime, (nn, dd, HH, dk), X, WVs, WOs, gamma, beta


def prenorm_study(rng, block_type: str, conclusion) -> list[dict]:
    """Per regime: the sub-layer's output minus X is sum_h Y_h W_O^h with Y_h the heads' outputs on the normalised
    input (causal mask), so the fibre is Y + ker Phi_a; its dimension (from Phi_a's matrix) against ``conclusion``;
    a failure certified on a box of W_O (rank W_O maximal there: the dimension is constant)."""
    by: dict[str, list] = {}
    for regime, shape, *rest in prenorm_rows(rng, block_type):
        by.setdefault(regime, []).append((shape, *rest))
    name = deployed.BLOCK_NAMES[block_type]
    out: list[dict] = []
    for regime, rows in by.items():
        met = held = recovered = 0
        first = boxed = None
        for shape, X, WVs, WOs, gamma, beta in rows:
            nn, dd, HH, dk = shape
            Z, Ys = deployed.prenorm_heads(X, WVs, WOs, block_type, True, gamma, beta)
            W = Matrix.vstack(*WOs)
            if Z - X != Phi_a(Ys, W):
                continue  # the sum is not what the block adds: not this reading's premise (a bug would show here)
            recovered += 1
            k = map_nullity(lambda Y, W=W: Phi_a(Y, W), nn, HH, dk)
            met += 1
            ok = conclusion(k, shape)
            held += ok
            if not ok and first is None:
                first = f"(n, d, H, d_k) = {shape}: dim ker Phi_a = {k}"
            rk = rank(W)
            if not ok and boxed is None and rk == min(HH * dk, dd):
                for e in (3, 6, 9):
                    if minor_certificate(box(W, Rational(1, 10 ** e)), rk) is not None:
                        boxed = {"type": "box", "regime": regime, "box": f"|W_O' - W_O|_max <= 1/10^{e}",
                                 "what": f"{name}, (n, d, H, d_k) = {shape}, W_O = {W.tolist()}: rank W_O = {rk} "
                                         f"(maximal) at every point, so the fibre dimension n (H d_k - rank W_O) = "
                                         f"{k} on the box"}
                        break
        out.append({"type": "instances", "regime": regime, "met": met, "held": held, "first": first,
                    "recovered": recovered, "drawn": len(rows), "tag": name})
        if boxed is not None:
            out.append(boxed)
    return out
