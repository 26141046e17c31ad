r"""The network itself, not its float computation: a checkpoint's forward pass in interval arithmetic (python-flint
``arb`` balls, through :func:`theorems.exact.transformer.arb`), and the LayerNorm claims decided on the enclosures.

A float64 forward stores rounded activations; an exact verdict on those numbers is about the float computation.
Here the weights enter exactly as the stored values (a bf16/f16/f32 value is a dyadic rational), every operation of
the layer -- sums, products, LayerNorm with the config's epsilon, the softmax's exponentials, the GELU's erf -- is
evaluated in ball arithmetic at ``dps`` digits, and every ball encloses the real number the network computes. The
LayerNorm sites are then analysed with the paper's map (epsilon = 0) by :func:`enclosure_analysis`, which fills the
fields of :class:`theorems.exact.norm_exact.NormAnalysis` that the enclosures *decide* (a rank is certified by a
minor whose determinant's enclosure excludes 0, against a structural upper bound) and leaves the others ``None``,
so the claims' own predicates (``RN.*``) decide what can be decided and say "undecided" elsewhere. A predicate that
computes on X itself in exact rationals is undecided there: the network's activations are irrational.

Families: ``bert`` (post-LN, bidirectional) and ``gpt2`` (pre-LN, causal) run layer by layer; ``llama`` (rotary
positions) is not in this forward yet, its embeddings are exact anyway (no sum). The query, key and value biases are
folded in exactly (``X' = [X | 1]``, ``W' = [W; b]``).
"""
from __future__ import annotations

import math
import threading
import time
from contextlib import contextmanager
from fractions import Fraction

import flint
import numpy as np
from sympy import Rational

from proofs_numeric.model.checkpoint import Checkpoint
from proofs_numeric.model.site_ids import LN_EMBED, LN_FINAL, SiteId, site_registry
from theorems.exact import transformer as T
from theorems.exact.norm_exact import NormAnalysis
from theorems.exact.padic_rank import single_threaded_blas
from theorems.exact.transformer.ctx_midrad import warm_tables
from theorems.framework import Undecidable
from theorems.paper.rank_neutrality import USER_INSTANCE as LN_INSTANCE

__all__ = ["forward_enclosures", "enclosure_analysis", "rank_bounds", "to_wire", "from_wire", "network_build",
           "NETWORK_FORMS", "NETWORK_FAMILIES", "NETWORK_MAX_TOKENS", "radius_stats", "ARITHMETICS", "midrad_to_arb",
           "NETWORK_MIDRAD_MAX_TOKENS", "EnclosureTooWide", "NETWORK_MIDRAD_LAYERS", "network_layers_for",
           "forward_arithmetic", "activation"]

#: families whose forward runs in interval arithmetic here
NETWORK_FAMILIES = ("bert", "gpt2")
#: the interval forward runs on inputs of at most this many tokens (its cost grows like n d (d + d_ff) per layer)
NETWORK_MAX_TOKENS = 64

#: python-flint's working precision (``flint.ctx.prec``) is one value for the whole process: every arb computation
#: here sets it under this lock and restores it before the lock is released, so two threads (two checkpoints'
#: forwards, or a Dask worker with several threads) never compute at each other's precision
_PREC_LOCK = threading.RLock()


@contextmanager
def _at_bits(bits: int):
    """``flint.ctx.prec = bits`` for the block, under :data:`_PREC_LOCK` (restored on exit)."""
    with _PREC_LOCK:
        old = flint.ctx.prec
        flint.ctx.prec = bits
        try:
            yield
        finally:
            flint.ctx.prec = old


# --------------------------------------------------------------------------------------------- arb matrices

def _arb_mat(A: np.ndarray) -> flint.arb_mat:
    """A float64 array as an exact arb matrix (a float is a dyadic rational)."""
    A = np.asarray(A, dtype=np.float64)
    if A.ndim == 1:
        A = A[None, :]
    return flint.arb_mat(A.shape[0], A.shape[1], A.ravel().tolist())


def _rows(M: flint.arb_mat) -> list[list]:
    m = M.ncols()
    e = M.entries()
    return [e[i * m:(i + 1) * m] for i in range(M.nrows())]


def _build(rows) -> flint.arb_mat:
    return flint.arb_mat(len(rows), len(rows[0]), [v for r in rows for v in r])


def _mid(M: flint.arb_mat) -> np.ndarray:
    return np.array([float(v.mid()) for v in M.entries()], dtype=np.float64).reshape(M.nrows(), M.ncols())


def _bits(x) -> tuple[int, int]:
    m, e = x.man_exp()
    return int(m), int(e)


def to_wire(M: flint.arb_mat) -> dict:
    """An arb matrix as plain integers (exact midpoints and radii: mantissa, exponent), to travel to a worker."""
    ents = M.entries()
    return {"shape": (M.nrows(), M.ncols()), "mid": [_bits(v.mid()) for v in ents],
            "rad": [_bits(v.rad()) for v in ents]}


def _arb_of(me, re) -> flint.arb:
    m, e = me
    r, f = re
    mid = flint.arb(flint.fmpz(m)) * flint.arb(2) ** e if m else flint.arb(0)
    rad = flint.arb(flint.fmpz(r)) * flint.arb(2) ** f if r else flint.arb(0)
    return flint.arb(mid.mid(), rad.mid())


def from_wire(w: dict, bits: int = 256) -> flint.arb_mat:
    """The arb matrix :func:`to_wire` wrote (the same balls, exactly)."""
    with _at_bits(bits):
        n, m = w["shape"]
        return flint.arb_mat(n, m, [_arb_of(a, b) for a, b in zip(w["mid"], w["rad"])])


def midrad_to_arb(M) -> flint.arb_mat:
    """A midpoint-radius enclosure as an arb matrix containing it (midpoints exact; radii rounded up to arb's
    magnitudes), so the arb analysis (:func:`enclosure_analysis`, :func:`to_wire`) reads it."""
    n, d = M.shape
    return flint.arb_mat(n, d, [flint.arb(a, r) for a, r in zip(M.m.ravel().tolist(), M.r.ravel().tolist())])


def radius_stats(M: flint.arb_mat) -> dict:
    """The largest radius and the largest radius relative to |midpoint| of an enclosure (how tight it is)."""
    rad = [float(v.rad()) for v in M.entries()]
    mid = [abs(float(v.mid())) for v in M.entries()]
    rel = [r / m for r, m in zip(rad, mid) if m > 0]
    return {"max_radius": max(rad) if rad else 0.0, "max_relative_radius": max(rel) if rel else 0.0}


# --------------------------------------------------------------------------------------------- certified ranks

def _pivots(A: np.ndarray, k_max: int) -> list[tuple[int, int]]:
    """Complete pivoting on a float64 approximation: the (row, column) of each pivot, at most ``k_max``."""
    A = np.array(A, dtype=np.float64)
    scale = float(np.abs(A).max()) if A.size else 0.0
    piv = []
    rows, cols = list(range(A.shape[0])), list(range(A.shape[1]))
    for _ in range(min(k_max, *A.shape)):
        if A.size == 0:
            break
        i, j = np.unravel_index(int(np.argmax(np.abs(A))), A.shape)
        if scale == 0 or abs(A[i, j]) <= 1e-13 * scale:
            break
        piv.append((rows[i], cols[j]))
        A = A - np.outer(A[:, j], A[i, :]) / A[i, j]
        A = np.delete(np.delete(A, i, 0), j, 1)
        del rows[i], cols[j]
    return piv


def rank_bounds(M: flint.arb_mat, upper: int, mid: np.ndarray | None = None) -> dict:
    """Certified bounds on the rank of every real matrix in the enclosure ``M``: ``lower`` from a minor (chosen by
    complete pivoting on the midpoints) whose determinant's enclosure excludes 0, ``upper`` the structural bound the
    caller gives. ``exact`` when they meet."""
    A = _mid(M) if mid is None else mid
    piv = _pivots(A, upper)
    rows = _rows(M)
    lower, how = 0, "no certified minor"
    k = len(piv)
    while k > 0:
        ri = sorted(p[0] for p in piv[:k])
        cj = sorted(p[1] for p in piv[:k])
        det = _build([[rows[i][j] for j in cj] for i in ri]).det()
        if not det.contains(0):
            lower, how = k, f"a {k} x {k} minor's determinant encloses {det.mid().str(3, radius=False)} != 0"
            break
        k -= 1 if k <= 8 else max(1, k // 8)
    return {"lower": lower, "upper": upper, "exact": lower == upper,
            "how": f"rank in [{lower}, {upper}]: {how}; upper bound from the shape"}


def _fmt(b: dict) -> str:
    return str(b["lower"]) if b["exact"] else f"[{b['lower']}, {b['upper']}]"


# --------------------------------------------------------------------------------------------- LayerNorm sites

class NetworkLNInstance:
    """The instance of a LayerNorm site of the network: n, d, gamma, beta exactly; X only as enclosures."""

    def __init__(self, n: int, d: int, gamma, beta):
        self.n, self.d = n, d
        self.gamma = tuple(Rational(*float(v).as_integer_ratio()) for v in gamma)
        self.beta = tuple(Rational(*float(v).as_integer_ratio()) for v in beta) if beta is not None else \
            (Rational(0),) * d

    @property
    def X(self):
        raise Undecidable("the network's activations at this site are known as enclosures (real numbers with square "
                          "roots, exponentials and erf in them), not as exact rationals; this predicate computes on X "
                          "itself")


def enclosure_analysis(X: flint.arb_mat, gamma, beta, bits: int = 256) -> NormAnalysis:
    """What the enclosures ``X`` of a LayerNorm input decide (the paper's map, eps = 0), as the analysis the ``RN.*``
    predicates read; undecided fields are None with the reason in ``how``."""
    t0 = time.perf_counter()
    with _at_bits(bits):
        return _enclosure_analysis(X, np.asarray(gamma, dtype=np.float64),
                                   None if beta is None else np.asarray(beta, dtype=np.float64), t0)


def _enclosure_analysis(X, g, b, t0) -> NormAnalysis:
    n, d = X.nrows(), X.ncols()
    rows = _rows(X)
    one = flint.arb(1)
    how = {}
    mean = [sum(r, flint.arb(0)) / d for r in rows]
    Xc = [[v - mu for v in r] for r, mu in zip(rows, mean)]
    var = [sum((v * v for v in r), flint.arb(0)) / d for r in Xc]
    h1 = True if all(v > 0 for v in var) else None
    how["H1"] = ("certified (arb): every sigma_i^2 encloses a positive number" if h1 else
                 f"undecided: sigma_{next(i for i, v in enumerate(var) if not v > 0)}^2 encloses 0")
    h3 = bool(np.all(g != 0))
    how["H3"] = "exact: each stored gamma_j compared with 0"
    Xm = _mid(X)
    rX = rank_bounds(X, min(n, d), Xm)
    rRow = rank_bounds(_build(rows + [[one] * d]), min(n + 1, d), np.vstack([Xm, np.ones((1, d))]))
    rCol = rank_bounds(_build([r + [one] for r in rows]), min(n, d + 1), np.hstack([Xm, np.ones((n, 1))]))
    how["rank_X"] = f"rank(X) {rX['how']}"
    rank_X = rX["lower"] if rX["exact"] else None
    # H2: 1_d notin row(X)  <=>  rank [X; 1^T] = rank X + 1
    if rank_X is not None and rank_X == d:
        h2, how["H2"] = False, f"certified (arb): rank X = d = {d}, so row(X) = R^d contains 1_d"
    elif rank_X is not None and rRow["lower"] >= rank_X + 1:
        h2, how["H2"] = True, f"certified (arb): rank [X; 1^T] >= {rRow['lower']} > rank X = {rank_X}"
    else:
        h2, how["H2"] = None, f"undecided: rank X {_fmt(rX)}, rank [X; 1^T] {_fmt(rRow)}"
    if rRow["exact"]:
        rank_Xt = rRow["lower"] - 1
    elif rank_X is not None and h2 is not None:
        rank_Xt = rank_X - 1 + (1 if h2 else 0)
    else:
        rank_Xt = None
    # 1_n in col(X)  <=>  rank [X | 1] = rank X
    if rank_X is not None and rank_X == n:
        ones_n, why = True, f"rank X = n = {n}: col(X) = R^n"
    elif rank_X is not None and rCol["lower"] >= rank_X + 1:
        ones_n, why = False, f"rank [X | 1] >= {rCol['lower']} > rank X = {rank_X}"
    else:
        ones_n, why = None, f"rank X {_fmt(rX)}, rank [X | 1] {_fmt(rCol)}"
    if rCol["exact"]:
        arank_X = rCol["lower"] - 1
    elif rank_X is not None and ones_n is not None:
        arank_X = rank_X - 1 + (0 if ones_n else 1)
    else:
        arank_X = None
    how["arank_X"] = f"rank([X | 1]) - 1 with rank([X | 1]) {rCol['how']}; 1_n in col(X): {ones_n} ({why})"
    # H4: sigma notin col(XP)
    sig_in = h4 = None
    sigma = [v.sqrt() for v in var] if h1 else None
    if h1 is None:
        how["H4"] = "undecided: sigma is not certified to be defined (H1 undecided)"
    elif rank_Xt is None:
        how["H4"] = "undecided: rank XP is not certified"
    elif rank_Xt == n:
        sig_in, h4 = True, False
        how["H4"] = f"certified (arb): rank XP = n = {n}, so col(XP) = R^n contains sigma"
    else:
        assert sigma is not None  # h1 is True here (it is True or None)
        rs = rank_bounds(_build([r + [s] for r, s in zip(Xc, sigma)]), min(n, rank_Xt + 1))
        if rs["lower"] >= rank_Xt + 1:
            sig_in, h4 = False, True
            how["H4"] = f"certified (arb): rank [XP | sigma] >= {rs['lower']} > rank XP = {rank_Xt}"
        else:
            how["H4"] = f"undecided: rank [XP | sigma] {_fmt(rs)} against rank XP = {rank_Xt}"
    how["sigma_in_colspace_Xt"] = how["H4"]
    # LN(X) with eps = 0: arank and rank
    arank_LN = rank_LN = None
    if h1:
        assert sigma is not None  # set whenever h1 is
        gg = [flint.arb(float(v)) for v in g]
        bb = [flint.arb(float(v)) for v in b] if b is not None else [flint.arb(0)] * d
        LN = [[v / s * gj + bj for v, gj, bj in zip(r, gg, bb)] for r, s in zip(Xc, sigma)]
        t_up = rank_Xt if rank_Xt is not None else min(n, d - 1)
        lm = _mid(_build(LN))
        rA1 = rank_bounds(_build([r + [one] for r in LN]), min(n, t_up + 1), np.hstack([lm, np.ones((n, 1))]))
        if rA1["exact"]:
            arank_LN = rA1["lower"] - 1
        how["arank_LN_X"] = (f"{'certified (arb)' if rA1['exact'] else 'undecided'}: rank([LN X | 1]) - 1, "
                             f"rank([LN X | 1]) {rA1['how']} (LN X = D XP Gamma + 1 beta^T: rank [LN X | 1] <= "
                             f"rank XP + 1)")
        rL = rank_bounds(_build(LN), min(n, d, t_up + 1), lm)
        rank_LN = rL["lower"] if rL["exact"] else None
        how["rank_LN_X"] = f"rank(LN X) {rL['how']}"
    else:
        how["arank_LN_X"] = how["rank_LN_X"] = "undecided: LN(X) is not certified to be defined (H1 undecided)"
    hyp = {"H1": h1, "H2": h2, "H3": h3, "H4": h4}
    a = NormAnalysis(n=n, d=d, hypotheses=hyp, rank_X=rank_X, arank_X=arank_X, rank_Xt=rank_Xt,
                     arank_LN_X=arank_LN, rank_LN_X=rank_LN, ones_d_in_rowspace=None if h2 is None else not h2,
                     ones_n_in_colspace=ones_n, sigma_in_colspace_Xt=sig_in, sqrt_classes=None, how=how,
                     norm="layernorm", seconds=time.perf_counter() - t0)
    a.inst = NetworkLNInstance(n, d, g, b)
    return a


def _ln_network_build(form, site) -> NormAnalysis:
    X = from_wire(site.data["X"])
    return enclosure_analysis(X, site.data["gamma"], site.data.get("beta"))


#: id(instance form) -> how a network-level instance of that form is built from a site's enclosures
NETWORK_FORMS = {id(LN_INSTANCE): _ln_network_build}


def network_build(form, site):
    """The network-level instance of ``form`` at an enclosure site (KeyError when the form has none)."""
    return NETWORK_FORMS[id(form)](form, site)


# --------------------------------------------------------------------------------------------- the interval forward

def _ctx_mat(ctx, A):
    """A float64 array (the stored weights, exactly) as a matrix of the forward's arithmetic."""
    if ctx is T.MIDRAD:
        A = np.asarray(A, dtype=np.float64)
        return T.Midrad(A[None, :] if A.ndim == 1 else A)
    return _arb_mat(A)


def _heads(L, c, fold: bool, ctx=None) -> list:
    dk, rep = c.d_k, c.H // c.H_kv
    out = []
    for h in range(c.H):
        s, t = slice(h * dk, (h + 1) * dk), slice((h // rep) * dk, (h // rep + 1) * dk)
        Wq, Wk, Wv = L.Wq[:, s], L.Wk[:, t], L.Wv[:, t]
        if fold:
            Wq, Wk, Wv = (np.vstack([W, bias[None, :]]) for W, bias in ((Wq, L.bq[s]), (Wk, L.bk[t]), (Wv, L.bv[t])))
        out.append(T.Head(*(_ctx_mat(ctx, W) for W in (Wq, Wk, Wv, L.Wo[s]))))
    return out


def _append_ones(X, ctx=None):
    if ctx is T.MIDRAD:
        n = X.shape[0]
        return T.Midrad(np.hstack([X.m, np.ones((n, 1))]), np.hstack([X.r, np.zeros((n, 1))]))
    return _build([r + [flint.arb(1)] for r in _rows(X)])


def _add_row_vector(X, v, ctx=None):
    if ctx is T.MIDRAD:
        return X + T.Midrad(np.asarray(v, dtype=np.float64))
    vv = [flint.arb(float(x)) for x in np.asarray(v, dtype=np.float64)]
    return _build([[a + b for a, b in zip(r, vv)] for r in _rows(X)])


def activation(name: str, ctx=None):
    if name == "gelu":
        return T.gelu
    if name == "gelu_new" and ctx is T.MIDRAD:
        def gelu_new_midrad(ctx, H):
            with _at_bits(128):
                c = ctx.from_arb((2 / flint.arb.pi()).sqrt())
            k = ctx.const(Fraction(44715, 1000000))
            inner = ctx.scale(ctx.add(H, ctx.scale(ctx.hadamard(ctx.hadamard(H, H), H), k)), c)
            return ctx.hadamard(ctx.div_scalar(H, 2), ctx.add_scalar(ctx.tanh(inner), 1))
        return gelu_new_midrad
    if name == "gelu_new":  # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        def gelu_new(ctx, H):
            c = (2 / flint.arb.pi()).sqrt()
            k = flint.arb(44715) / 1000000
            return _build([[v / 2 * (1 + (c * (v + k * v * v * v)).tanh()) for v in r] for r in _rows(H)])
        return gelu_new
    raise ValueError(f"activation {name!r} is not in the interval forward")


#: the arithmetics of the interval forward: python-flint ``arb`` balls at ``dps`` digits, midpoint-radius intervals
#: of float64 on BLAS (:mod:`theorems.exact.transformer.ctx_midrad`: double precision, rigorous, 20-30 times faster
#: on a MiniLM layer at 128 tokens; it refuses with ``MidradRangeError`` beyond the double range), or ``auto``: arb up
#: to :data:`NETWORK_MAX_TOKENS` tokens, midrad above (up to :data:`NETWORK_MIDRAD_MAX_TOKENS`), where arb is too slow
ARITHMETICS = ("arb", "midrad", "auto")
#: the midpoint-radius forward's limit in the record stream: the forward itself runs at BERT's 512 positions (layer 0
#: and its two sites' conversion to arb: 60 s at load 25), but the arb analysis of its enclosures (certified minors
#: of up to min(n, d) rows, :func:`enclosure_analysis`) took 7-17 s per site at 128 tokens, and a real-model run
#: whose long input (512 tokens) had them had not finished them 4 minutes after its other records (load 20-25,
#: 2026-12-06); 128 is the size the issue times
NETWORK_MIDRAD_MAX_TOKENS = 128


#: layers of the midpoint-radius forward that decide something (double precision carries about one: the radius grows
#: by about 10^8 per layer, see :func:`_midrad_forward`); network records above NETWORK_MAX_TOKENS cover these
NETWORK_MIDRAD_LAYERS = 1


def network_layers_for(n: int, asked: int) -> int:
    """The layers of the interval forward on ``n`` tokens when ``asked`` are asked for: all of them in arb (up to
    :data:`NETWORK_MAX_TOKENS` tokens), at most :data:`NETWORK_MIDRAD_LAYERS` in double precision above."""
    return asked if n <= NETWORK_MAX_TOKENS else min(asked, NETWORK_MIDRAD_LAYERS)


def forward_arithmetic(n: int, dps: int) -> str:
    """How the forward of ``auto`` on ``n`` tokens encloses the network (for the records' ``how``)."""
    if n <= NETWORK_MAX_TOKENS:
        return f"a python-flint arb forward at {dps} digits"
    return ("a midpoint-radius float64 forward on BLAS (rigorous a-priori bounds on every rounding; "
            "theorems.exact.transformer.ctx_midrad)")


class EnclosureTooWide(ValueError):
    """The double-precision forward cannot go on: an enclosure no longer decides that a norm is defined (H1), or a
    result left the double range; the message names the site and the largest radius so far."""


def forward_enclosures(m: Checkpoint, ids, layers: int, dps: int = 50, arithmetic: str = "arb"):
    """Yield ``(site id, layer, X, (gamma, beta), seconds)`` for every LayerNorm input of the first ``layers`` layers,
    ``X`` an enclosure of the network's real activation there (the forward's LayerNorms use the config's epsilon, as
    the network does): an arb matrix (``arithmetic="arb"``) or a :class:`theorems.exact.transformer.Midrad` pair
    (``"midrad"``; ``dps`` is then unused); ``"auto"`` runs arb up to :data:`NETWORK_MAX_TOKENS` tokens and midrad
    above, and yields arb matrices either way (:func:`midrad_to_arb`), so a consumer of arb enclosures reads both.
    Stops early, with a ``ValueError`` naming the site, when an enclosure no longer certifies that a norm is defined
    (H1 undecided; :class:`EnclosureTooWide` in double precision, with the largest radius so far).

    Each arb step of the forward runs at ``dps`` digits under :data:`_PREC_LOCK`; between two steps (while the caller
    holds a yielded site) the process's precision is what it was, so interleaved forwards (threads, or two of these
    generators advanced in turn) each compute at their own precision and leave none behind."""
    if arithmetic not in ARITHMETICS:
        raise ValueError(f"unknown arithmetic {arithmetic!r}; choose from {ARITHMETICS}")
    if arithmetic == "auto" and len(ids) > NETWORK_MAX_TOKENS:
        if len(ids) > NETWORK_MIDRAD_MAX_TOKENS:
            raise ValueError(f"the interval forward runs on inputs of at most {NETWORK_MIDRAD_MAX_TOKENS} tokens; this "
                             f"one has {len(ids)}")
        for where, li, X, gb, secs in _midrad_forward(m, ids, layers):
            yield where, li, midrad_to_arb(X), gb, secs
        return
    if arithmetic == "midrad":
        yield from _midrad_forward(m, ids, layers)
        return
    gen = _forward_enclosures(m, ids, layers, T.arb(dps))
    bits = T.arb(dps).bits
    try:
        while True:
            with _at_bits(bits):
                try:
                    item = next(gen)
                except StopIteration:
                    return
            yield item
    finally:
        with _at_bits(bits):  # a forward abandoned mid-way restores its precision here, not when collected
            gen.close()


def _midrad_forward(m: Checkpoint, ids, layers: int):
    """The midpoint-radius forward; where double precision no longer decides (H1 undecided, the double range) it
    stops with :class:`EnclosureTooWide` naming the site and the largest radius so far (arb at 50 digits carries
    about 10^9 of growth per layer before it loses a digit; double precision carries one layer: measured on MiniLM at
    128 tokens, radius 4e-9 at layer 0's attention output, 7e-6 at its output, H1 undecided at layer 1's attention
    output).

    One BLAS thread per step (not across a yield): the products are small (128 x 385 by 385 x 32 per head), and two
    OpenBLAS threads on this 2-core machine under load made the layer 3-4 times slower (7.2-12.5 s against 1.7-2.6 s
    at load 17-20, 2026-12-06); the enclosures do not depend on it (bound (1) of ctx_midrad holds in any summation
    order)."""
    with _at_bits(128):  # the tables are computed in arb once: under the lock, as every arb step here
        warm_tables()
    gen = _forward_enclosures(m, ids, layers, T.MIDRAD)
    labels = {s.id: s.label for s in site_registry(m.config)}  # the message names a site in words and by its id
    last, radius = "the embeddings", 0.0
    while True:
        with single_threaded_blas():
            try:
                item = next(gen)
            except StopIteration:
                return
            except T.MidradRangeError as e:
                raise EnclosureTooWide(f"the midpoint-radius forward stops after {last} (largest radius {radius:.2g}): "
                                       f"{e}") from None
            except ValueError as e:
                if "H1 undecided" not in str(e):
                    raise
                raise EnclosureTooWide(f"the midpoint-radius forward stops after {last} (largest radius {radius:.2g}): "
                                       f"{e}; arb at higher precision decides further") from None
        last, radius = f"{labels.get(item[0], 'site')} ({item[0]})", float(item[2].r.max())
        yield item


def _forward_enclosures(m: Checkpoint, ids, layers: int, ctx):
    c = m.config
    if c.family not in NETWORK_FAMILIES:
        raise ValueError(f"the interval forward covers {', '.join(NETWORK_FAMILIES)}; a {c.family} layer "
                         f"({'rotary positions' if c.rotary else c.family}) is not in it yet")
    eps = c.eps
    t0 = time.perf_counter()
    with ctx.local():
        parts = m.embedding_parts(ids)
        X = _ctx_mat(ctx, parts[0])
        for p in parts[1:]:
            X = X + _ctx_mat(ctx, p)  # arb: exact (a few dyadic rationals); midrad: TwoSum's exact error as radius
        if c.post_ln:
            g, b = m.embedding_norm()
            yield LN_EMBED, None, X, (g, b), time.perf_counter() - t0
            X = T.layer_norm(ctx, X, g, b, eps=eps)
        last = min(layers, c.n_layers) - 1
        for li in range(last + 1):
            t0 = time.perf_counter()
            L = m.layers[li]
            fold = any(np.any(v != 0) for v in (L.bq, L.bk, L.bv))
            heads = _heads(L, c, fold, ctx)
            act = activation(c.act, ctx)
            W1, W2 = _ctx_mat(ctx, L.W1), _ctx_mat(ctx, L.W2)

            def attn(A, fold=fold, heads=heads):
                return T.mha(ctx, _append_ones(A, ctx) if fold else A, heads, causal=c.causal)

            def mlp(Z, W1=W1, W2=W2, L=L, act=act):
                return T.ffn(ctx, Z, W1, list(L.b1), W2, list(L.b2), act=act)

            if c.post_ln:
                pre1 = _add_row_vector(X + attn(X), L.bo, ctx)
                yield SiteId(li, "ln1", "input"), li, pre1, L.ln1, time.perf_counter() - t0
                t0 = time.perf_counter()
                Z = T.layer_norm(ctx, pre1, *L.ln1, eps=eps)
                pre2 = Z + mlp(Z)
                yield SiteId(li, "ln2", "input"), li, pre2, L.ln2, time.perf_counter() - t0
                if li == last:
                    break  # no site after this one: its LayerNorm is not needed (nor a failure to certify it)
                X = T.layer_norm(ctx, pre2, *L.ln2, eps=eps)
            else:
                yield SiteId(li, "ln1", "input"), li, X, L.ln1, time.perf_counter() - t0
                t0 = time.perf_counter()
                X = _add_row_vector(X + attn(T.layer_norm(ctx, X, *L.ln1, eps=eps)), L.bo, ctx)
                yield SiteId(li, "ln2", "input"), li, X, L.ln2, time.perf_counter() - t0
                if li == last and layers < c.n_layers:
                    break  # no site after this one (the final norm needs every layer)
                X = X + mlp(T.layer_norm(ctx, X, *L.ln2, eps=eps))
        if not c.post_ln and layers >= c.n_layers:
            g = m.final_norm()
            yield LN_FINAL, None, X, g, 0.0


def digits_lost(M: flint.arb_mat) -> float:
    """-log10 of the largest relative radius (how many digits the enclosure still certifies)."""
    r = radius_stats(M)["max_relative_radius"]
    return math.inf if r == 0 else -math.log10(r)
