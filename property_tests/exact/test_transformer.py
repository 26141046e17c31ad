"""The transformer maps are written once (theorems.transformer); every arithmetic context must agree.

On small exact rational inputs: float64 is close to mp; the iv and arb enclosures contain the
high-precision mp value and the exact (sympy) value evaluated at high precision; the causal mask
zeroes exactly the future; LayerNorm and RMSNorm refuse a sigma = 0 (rms = 0) row naming H1, in
every context; the depth study's centred attention agrees with the one MHA (arb balls overlap).
"""
from __future__ import annotations

import flint
import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import example, given, settings
from hypothesis import strategies as st

from proofs_numeric.core import transformer as PT
from proofs_numeric.witnesses import dong_collapse as D
from property_tests.strategies import rational_matrices, small_rationals, transformer_instances
from theorems.exact import transformer as T

HI = 80  # digits of the reference mp value
LO = 30  # digits of the enclosures
CONTEXTS = {"fp": T.FP, "mp": T.mp(HI), "iv": T.iv(LO), "arb": T.arb(LO)}


def _entries(ctx, M):
    if ctx is T.FP:
        return np.atleast_2d(M).tolist()
    return ctx.entries(M)


def _maps(inst):
    """name -> f(ctx) for each map of theorems.transformer on one drawn instance."""
    X, hs, (W1, b1, W2, b2) = inst
    heads = [T.Head(*h) for h in hs]
    d = len(X[0])
    gamma = [sympy.Rational(k + 1, 2) for k in range(d)]
    beta = [sympy.Rational(1 - k, 3) for k in range(d)]
    Xs = [[v + sympy.Rational(i * d + j, 7) for j, v in enumerate(r)] for i, r in enumerate(X)]  # no constant row
    blk = T.Block(heads, W1, b1, W2, b2, (gamma, beta), (None, None))
    return {
        "softmax": lambda c: T.softmax_rows(c, X),
        "softmax causal": lambda c: T.softmax_rows(c, T.scores(c, X, heads[0]), causal=True),
        "layer_norm": lambda c: T.layer_norm(c, Xs, gamma, beta),
        "layer_norm eps": lambda c: T.layer_norm(c, X, eps=sympy.Rational(1, 10)),
        "rms_norm": lambda c: T.rms_norm(c, Xs, gamma),
        "attention": lambda c: T.attention(c, X, heads[0])[1],
        "mha": lambda c: T.mha(c, X, heads),
        "mha causal": lambda c: T.mha(c, X, heads, causal=True),
        "gelu": lambda c: T.gelu(c, X),
        "ffn": lambda c: T.ffn(c, X, W1, b1, W2, b2),
        "block": lambda c: T.block_forward(c, Xs, blk, "full_block"),
    }


def _inside(ctx, enc, x) -> bool:
    """Does the enclosure ``enc`` (an iv interval or an arb ball) meet the reference ``x`` within its own error?

    ``x`` is the true value rounded to HI digits (mpmath at HI digits, or sympy.N(v, HI)): it is within
    |x| 10^(1 - HI) of the true value (plus 10^(-2 HI) when x = 0), so a sound enclosure must meet that ball, not
    contain the rounded point itself (Hypothesis found 19 - 1.6e-79, whose 80-digit rounding 19 lies outside the
    arb ball that tightly encloses the exact value)."""
    with mpmath.workdps(2 * HI):
        err = abs(x) * mpmath.mpf(10) ** (1 - HI) + mpmath.mpf(10) ** (-2 * HI)
        lo, hi = x - err, x + err
    if ctx.name == "iv":
        return enc.a <= hi and lo <= enc.b
    with T.arb(2 * HI).local():  # [lo, hi] as an exact arb (the conversion is exact: dyadic endpoints)
        ball = T.arb_from_mpf(lo._mpf_).union(T.arb_from_mpf(hi._mpf_))
        return enc.overlaps(ball)


@settings(max_examples=20)
@given(transformer_instances())
@example(inst=([[0, 0]], [([[0, 0], [0, 0]], [[0, 0], [0, 0]], [[0, 0], [0, 1]], [[0, 0], [0, -1]])],
               ([[0], [0]], [0], [[0, 0]], [0, 0])))  # the block's second LayerNorm meets a constant row
def test_transformer_contexts_agree(inst):
    """fp ~ mp (float tolerance); the iv and arb enclosures contain the mp value at 80 digits. Where a LayerNorm
    inside the block meets a constant row (attention can make one from rows that were not), every context refuses
    it, naming H1: fp and mp as failing, the enclosures as failing or undecided (found by the dev profile's random
    draws: X = [[0, 0]] and a head whose output cancels the offset)."""
    for name, f in _maps(inst).items():
        try:
            ref = _entries(CONTEXTS["mp"], f(CONTEXTS["mp"]))
        except ValueError as e:
            assert name == "block" and str(e).startswith("H1 fails"), (name, e)
            with pytest.raises(ValueError, match="^H1 fails"):
                f(T.FP)
            if len(inst[0]) * len(inst[0][0]) <= 4:  # the exact context says the row is constant (small sizes: fast)
                with pytest.raises(ValueError, match="^H1 fails"):
                    f(T.SYMPY)
            for key in ("iv", "arb"):  # an enclosure of sigma^2 that contains 0 cannot certify the row is not constant
                with pytest.raises(ValueError, match="^H1 (fails|undecided)"):
                    f(CONTEXTS[key])
            continue
        with mpmath.workdps(HI):
            assert np.allclose(np.array(_entries(T.FP, f(T.FP))), np.array(ref, dtype=float), rtol=1e-9,
                               atol=1e-12), name
        for key in ("iv", "arb"):
            ctx = CONTEXTS[key]
            enc = _entries(ctx, f(ctx))
            for r_enc, r_ref in zip(enc, ref):
                for e, x in zip(r_enc, r_ref):
                    assert _inside(ctx, e, x), (name, key, e, x)


@settings(max_examples=10)
@given(transformer_instances(max_n=2, max_d=2, max_heads=1))
def test_transformer_sympy_exact_value_inside_enclosures(inst):
    """The exact sympy value (exp, erf and sqrt kept symbolic), evaluated at 80 digits, lies in both enclosures."""
    for name, f in _maps(inst).items():
        if name == "block":
            continue  # LayerNorm of erf expressions: exact, but too large to evaluate in a property test
        exact = _entries(T.SYMPY, f(T.SYMPY))
        with mpmath.workdps(HI):
            ref = [[mpmath.mpf(sympy.N(v, HI)) for v in r] for r in exact]
        for key in ("iv", "arb"):
            ctx = CONTEXTS[key]
            enc = _entries(ctx, f(ctx))
            assert all(_inside(ctx, e, x) for re_, rr in zip(enc, ref) for e, x in zip(re_, rr)), (name, key)


@given(st.integers(1, 4).flatmap(lambda n: rational_matrices(n=n, d=n)))
def test_transformer_causal_mask_is_exact(S):
    """Causal softmax: the future gets exactly 0 in every context, and row i is the softmax of S[i, :i+1]."""
    n = len(S)
    for ctx in (T.FP, T.mp(40), T.iv(40), T.arb(40), T.SYMPY):
        A = _entries(ctx, T.softmax_rows(ctx, S, causal=True))
        for i in range(n):
            assert all(A[i][j] == 0 for j in range(i + 1, n))
            head = _entries(ctx, T.softmax_rows(ctx, [S[i][: i + 1]]))[0]
            assert all(_agree(ctx, a, b) for a, b in zip(A[i][: i + 1], head))


def _agree(ctx, a, b) -> bool:
    """Two values of one context agree: exactly (fp, sympy), to 30 digits (mp), or overlapping (iv, arb)."""
    if ctx.name == "sympy":
        return sympy.simplify(a - b) == 0
    if ctx.name == "fp":
        return a == b
    if ctx.name == "mp":
        return abs(a - b) <= mpmath.mpf(10) ** -30 * (1 + abs(b))
    if ctx.name == "iv":
        return a.a <= b.b and b.a <= a.b
    return a.overlaps(b)


#: dyadic constants: a constant row of them is constant in float64 and mp too (its mean is exact)
_dyadic = st.builds(lambda p, k: sympy.Rational(p, 2 ** k), st.integers(-8, 8), st.integers(0, 3))


@given(st.integers(1, 3), st.integers(2, 4), _dyadic, small_rationals(), st.data())
def test_transformer_norms_refuse_sigma_zero_naming_H1(n, d, c, q, data):
    """A constant row (LayerNorm) or a zero row (RMSNorm), eps = 0: ValueError naming H1 and the row, everywhere.

    A constant row of a non-dyadic q (1/3): exact contexts say "fails"; enclosures cannot certify sigma = 0
    from the rounded input, so they say "undecided" (still naming H1); float64 and mp may round to sigma > 0.
    """
    i = data.draw(st.integers(0, n - 1))
    X = [[v + 10 * j for j, v in enumerate(r)] for r in data.draw(rational_matrices(n=n, d=d))]  # rows not constant
    X[i] = [c] * d
    Z = [r[:] for r in X]
    Z[i] = [0] * d
    for ctx in (T.FP, T.mp(30), T.iv(30), T.arb(30), T.SYMPY):
        with pytest.raises(ValueError, match=rf"H1 fails: row {i} of X is constant \(sigma = 0\); LayerNorm"):
            T.layer_norm(ctx, X)
        with pytest.raises(ValueError, match=rf"H1 fails: row {i} of X is zero \(rms = 0\); RMSNorm"):
            T.rms_norm(ctx, Z)
        T.layer_norm(ctx, X, eps=sympy.Rational(1, 100))  # eps > 0: defined
        T.rms_norm(ctx, Z, eps=sympy.Rational(1, 100))
    X[i] = [q] * d
    for ctx in (T.iv(30), T.arb(30), T.SYMPY):
        with pytest.raises(ValueError, match=rf"H1 (fails|undecided): row {i} of X"):
            T.layer_norm(ctx, X)


@given(st.integers(0, 2 ** 16))
def test_transformer_precision_is_local(seed):
    """No context leaves a changed global precision behind (mpmath mp/iv, python-flint)."""
    before = (mpmath.mp.prec, mpmath.iv.prec, flint.ctx.prec)
    X = np.random.default_rng(seed).normal(size=(3, 3))
    heads = [T.Head(np.eye(3), np.eye(3), np.eye(3), np.eye(3))]
    for ctx in (T.mp(77), T.iv(77), T.arb(77)):
        T.block_forward(ctx, X, T.Block(heads, np.eye(3), None, np.eye(3), None), "full_block")
    assert (mpmath.mp.prec, mpmath.iv.prec, flint.ctx.prec) == before


@settings(max_examples=10)
@given(st.integers(0, 1000), st.sampled_from([(4, 3, 1, 3), (5, 4, 2, 2), (3, 4, 1, 4)]))
def test_transformer_centred_attention_overlaps_the_one_mha(seed, shape):
    """The depth study's (m, R) attention is a different algorithm for the same map: the balls overlap."""
    n, d, H, dk = shape
    cfg = D.DepthConfig(n=n, d=d, H=H, d_k=dk, layers=2, dps=60, seed=seed)
    heads, _, X0 = D.draw_weights(cfg)
    ctx = D.arb_context(cfg.dps)
    with ctx.local():
        A = ctx.asmatrix
        heads_a = [(A(q) * A(k).transpose(), A(v) * A(o)) for q, k, v, o in heads]
        R, m = D.center_rows(A(X0))
        X = A(X0)
        for _ in range(2):
            m, R = D.attention_delta(m, R, heads_a, dk, ctx)
            X = T.mha(ctx, X, [T.Head(*h) for h in heads])
        Xd = D.ones_times(m, n) + R
        assert all(Xd[i, j].overlaps(X[i, j]) for i in range(n) for j in range(d))


def test_transformer_log2_context_is_softmax_of_log2_scores():
    """SYMPY_LOG2 reads logits in units of log 2: softmax(log 2 * S) in the plain sympy context, exactly."""
    S = sympy.Matrix([[0, 1, 3], [2, -1, 0]])
    assert T.softmax_rows(T.SYMPY_LOG2, S) == T.softmax_rows(T.SYMPY, S * sympy.log(2)).applyfunc(sympy.simplify)
    with pytest.raises(ValueError, match="integer logits"):
        T.softmax_rows(T.SYMPY_LOG2, sympy.Matrix([[sympy.Rational(1, 2), 0]]))


def test_transformer_backend_table_has_no_unknowns():
    for b in PT.BACKENDS + ("arb", "sympy"):
        assert T.context(b, 20) is not None
    with pytest.raises(ValueError, match="unknown backend"):
        PT.layer_norm([[1, 2]], backend="float32")


def _mp_rows(M):
    return [[mpmath.mpf(v.p) / v.q if hasattr(v, "q") else mpmath.mpf(v) for v in r] for r in M]


@settings(max_examples=15)
@given(transformer_instances())
def test_transformer_definitions_match_the_formulas(inst):
    """The one definition against the paper's formulas, written out entry by entry in plain mpmath (not through
    a context): agreement between contexts cannot catch a wrong definition, this can."""
    X, hs, (W1, b1, W2, b2) = inst
    heads = [T.Head(*h) for h in hs]
    ctx = T.mp(40)
    with mpmath.workdps(40):
        x = _mp_rows(X)
        n, d = len(x), len(x[0])
        mm = lambda A, B: [[mpmath.fsum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))]
                           for i in range(len(A))]
        close = lambda A, B: all(abs(a - b) <= mpmath.mpf(10) ** -30 * (1 + abs(b)) for ra, rb in zip(A, B)
                                 for a, b in zip(ra, rb))
        # GeLU(x) = x Phi(x), Phi the standard normal cdf
        assert close(ctx.entries(T.gelu(ctx, X)), [[v * mpmath.ncdf(v) for v in r] for r in x])
        # MHA = sum_h softmax(X W_Q (X W_K)^T / sqrt d_k) X W_V W_O, the softmax entry by entry
        total = [[mpmath.mpf(0)] * d for _ in range(n)]
        for h in hs:
            WQ, WK, WV, WO = (_mp_rows(w) for w in h)
            q, k = mm(x, WQ), mm(x, WK)
            s = [[mpmath.fsum(a * b for a, b in zip(q[i], k[j])) / mpmath.sqrt(len(WQ[0])) for j in range(n)]
                 for i in range(n)]
            A = [[mpmath.exp(s[i][j]) / mpmath.fsum(mpmath.exp(v) for v in s[i]) for j in range(n)] for i in range(n)]
            Ac = [[mpmath.exp(s[i][j]) / mpmath.fsum(mpmath.exp(v) for v in s[i][: i + 1]) if j <= i else 0
                   for j in range(n)] for i in range(n)]
            assert close(ctx.entries(T.softmax_rows(ctx, s, causal=True)), Ac)
            term = mm(mm(mm(A, x), WV), WO)
            total = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(total, term)]
        assert close(ctx.entries(T.mha(ctx, X, heads)), total)
        # FFN = GeLU(X W1 + b1) W2 + b2
        H = [[v + mpmath.mpf(b.p) / b.q for v, b in zip(r, b1)] for r in mm(x, _mp_rows(W1))]
        F = [[v + mpmath.mpf(b.p) / b.q for v, b in zip(r, b2)]
             for r in mm([[v * mpmath.ncdf(v) for v in r] for r in H], _mp_rows(W2))]
        assert close(ctx.entries(T.ffn(ctx, X, W1, b1, W2, b2)), F)
        # LayerNorm: (x - mean) / population std; RMSNorm: x / rms
        for r in x:
            mu = mpmath.fsum(r) / d
            var = mpmath.fsum((v - mu) ** 2 for v in r) / d
            rms2 = mpmath.fsum(v * v for v in r) / d
            if var != 0:
                assert close(ctx.entries(T.layer_norm(ctx, [r])), [[(v - mu) / mpmath.sqrt(var) for v in r]])
            if rms2 != 0:
                assert close(ctx.entries(T.rms_norm(ctx, [r])), [[v / mpmath.sqrt(rms2) for v in r]])


_CONTEXTS = [("fp", lambda: T.FP), ("mp", lambda: T.mp(30)), ("iv", lambda: T.iv(30)), ("arb", lambda: T.arb(30)),
             ("sympy", lambda: T.SYMPY)]


@pytest.mark.parametrize("name, make", _CONTEXTS, ids=[c[0] for c in _CONTEXTS])
@pytest.mark.parametrize("X, message", [
    ([[0.1, 0.1, 0.1]], "H1 fails: row 0"),            # float64 centring leaves ~1e-17: still constant
    ([[1, 2, 3], [5, 5, 5]], "H1 fails: row 1"),
    ([[1.0, float("nan"), 3.0]], "non-finite"),          # the exact context used to read NaN as 0
    ([[0.0, float("-inf"), 1.0]], "non-finite"),
    ([[1, 2, 3], [1, 2]], "ragged input: row 1"),        # mpmath used to pad the short row with 0
], ids=["float-constant-row", "constant-row", "nan", "inf", "ragged"])
def test_transformer_every_context_refuses_bad_input_by_name(name, make, X, message):
    with pytest.raises(ValueError, match=message):
        T.layer_norm(make(), X)


@pytest.mark.parametrize("name, make", _CONTEXTS, ids=[c[0] for c in _CONTEXTS])
def test_transformer_every_context_refuses_parameters_of_the_wrong_length(name, make):
    """Review finding: the entrywise contexts ignored extra gamma entries and numpy broadcast a single one."""
    ctx = make()
    X = [[1, 2, 3], [0, 0, 1]]
    for bad in ([1, 2, 3, 4], [2]):
        with pytest.raises(ValueError, match="gamma .* needs 3"):
            T.layer_norm(ctx, X, gamma=bad)
        with pytest.raises(ValueError, match="gamma .* needs 3"):
            T.rms_norm(ctx, X, gamma=bad)
    with pytest.raises(ValueError, match="beta .* needs 3"):
        T.layer_norm(ctx, X, beta=[0, 0])
    with pytest.raises(ValueError, match="at least one head"):
        T.mha(ctx, X, [])
