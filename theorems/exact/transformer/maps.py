"""The transformer maps, written once: LayerNorm, RMSNorm, row softmax (optionally causal), attention, MHA,
GeLU, the FFN and a block, over any context (they call only its methods)."""
from __future__ import annotations

from fractions import Fraction

import sympy

from .base import ARCHITECTURES, BLOCK_TYPES, Block, Head

__all__ = ["layer_norm", "rms_norm", "causal_keep", "softmax_rows", "scores", "attention", "uniform_heads", "mha",
           "gelu", "ffn", "block_forward", "deployed_block"]


def _vector(ctx, v, length: int, what: str):
    """A parameter vector of the context, of exactly ``length`` entries (ValueError naming it otherwise:
    the entrywise contexts would ignore extra entries and numpy would broadcast a single one)."""
    out = ctx.asvector(v)
    if len(out) != length:
        raise ValueError(f"{what} has {len(out)} entries; it needs {length}")
    return out


def _require_H1(ctx, var, what: str, quantity: str, norm: str, constant=()):
    """ValueError naming H1 when a row's variance is certainly 0, or (enclosures) not certainly non-zero.

    ``constant``: rows whose entries are all equal (exactly): their variance is 0 even where rounding in the
    mean left a tiny non-zero residue (float64 [0.1, 0.1, 0.1])."""
    bad = sorted(set(ctx.zero_rows(var)) | set(constant))
    if bad:
        raise ValueError(f"H1 fails: row {bad[0]} of X is {what}; {norm} is undefined")
    unsure = ctx.unsure_rows(var)
    if unsure:
        raise ValueError(f"H1 undecided: row {unsure[0]} of X may be {what}: the enclosure of its {quantity} "
                         f"contains 0 at this precision, so {norm} is not certified to be defined")


def layer_norm(ctx, X, gamma=None, beta=None, eps=0):
    """LN(x_i) = (x_i - mean_i) / sigma_i * gamma + beta, row-wise.  # [n, d] -> [n, d]

    Population standard deviation, as in the paper; ``eps`` (default 0, the paper's map) is added to
    the variance as in BERT. A row with sigma certainly 0 (and eps = 0) raises ValueError naming H1.
    """
    with ctx.local():
        X = ctx.asmatrix(X)
        Xt = ctx.sub_rows(X, ctx.row_mean(X))
        var = ctx.row_mean(ctx.hadamard(Xt, Xt))
        if eps != 0:
            var = ctx.vadd_scalar(var, ctx.const(eps))
        _require_H1(ctx, var, "constant (sigma = 0)", "sigma^2", "LayerNorm", ctx.constant_rows(X) if eps == 0 else ())
        Y = ctx.div_rows(Xt, ctx.vsqrt(var))
        d = ctx.shape(X)[1]
        if gamma is not None:
            Y = ctx.mul_cols(Y, _vector(ctx, gamma, d, "gamma (one entry per column of X)"))
        if beta is not None:
            Y = ctx.add_cols(Y, _vector(ctx, beta, d, "beta (one entry per column of X)"))
        return Y


def rms_norm(ctx, X, gamma=None, eps=0):
    """RMSNorm(x_i) = x_i / sqrt(mean_j x_ij^2 + eps) * gamma.  # [n, d] -> [n, d]

    A row with rms certainly 0 (and eps = 0) raises ValueError naming H1.
    """
    with ctx.local():
        X = ctx.asmatrix(X)
        q = ctx.row_mean(ctx.hadamard(X, X))
        if eps != 0:
            q = ctx.vadd_scalar(q, ctx.const(eps))
        _require_H1(ctx, q, "zero (rms = 0)", "rms^2", "RMSNorm")
        Y = ctx.div_rows(X, ctx.vsqrt(q))
        return Y if gamma is None else ctx.mul_cols(Y, _vector(ctx, gamma, ctx.shape(X)[1],
                                                               "gamma (one entry per column of X)"))


def causal_keep(n: int, m: int | None = None) -> list:
    """The causal mask: position i attends to j <= i."""
    return [[j <= i for j in range(n if m is None else m)] for i in range(n)]


def softmax_rows(ctx, S, causal: bool = False, keep=None):
    """Row-wise softmax.  # [n, m] -> [n, m]

    Each row is shifted by a point constant first (softmax is exactly invariant under it).
    ``causal`` (or an explicit boolean ``keep``) masks entries: a masked entry is exactly 0 and
    takes no part in its row's sum.
    """
    with ctx.local():
        S = ctx.asmatrix(S)
        n, m = ctx.shape(S)
        if causal:
            keep = causal_keep(n, m)
        if keep is not None:
            keep = ctx.keep_matrix(keep)
        E = ctx.exp(ctx.sub_rows(S, ctx.row_shift(S, keep)), keep)
        return ctx.div_rows(E, ctx.row_sum(E))


def scores(ctx, X, head: Head, scale=None):
    """S = X W_Q (X W_K)^T / sqrt(d_k)  # [n, n]; ``scale`` (a rational) replaces 1 / sqrt(d_k)."""
    with ctx.local():
        X = ctx.asmatrix(X)
        WQ, WK = ctx.asmatrix(head.W_Q), ctx.asmatrix(head.W_K)
        S = ctx.matmul(ctx.matmul(X, WQ), ctx.transpose(ctx.matmul(X, WK)))
        if scale is None:
            return ctx.div_scalar(S, ctx.sqrt(ctx.const(ctx.shape(WQ)[1])))
        return S if scale == 1 else ctx.scale(S, ctx.const(scale))


def attention(ctx, X, head: Head, causal: bool = False, scale=None):
    """Return (A, Y): A = softmax(X W_Q W_K^T X^T / sqrt(d_k))  # [n, n];  Y = A X W_V  # [n, d_k]."""
    with ctx.local():
        X = ctx.asmatrix(X)
        A = softmax_rows(ctx, scores(ctx, X, head, scale), causal=causal)
        return A, ctx.matmul(ctx.matmul(A, X), ctx.asmatrix(head.W_V))


def uniform_heads(d: int, WVs, WOs=None) -> list:
    """Heads with W_Q = W_K = 0 (d_k = 1): every score is 0, so softmax gives J/n (uniform attention).
    ``WOs`` defaults to identities (then W_V^h is the head's whole value-output map)."""
    z = [[0] for _ in range(d)]
    WOs = [sympy.eye(d) for _ in WVs] if WOs is None else WOs
    return [Head(z, z, V, O) for V, O in zip(WVs, WOs)]


def mha(ctx, X, heads, causal: bool = False, scale=None, gates=None, return_heads: bool = False):
    """MHA(X) = sum_h Y_h W_O^h  # [n, d_model] (no output bias, as in the paper).

    ``gates`` (one length-n vector per head): the position-gated sum_h diag(g_h) Y_h W_O^h.
    ``return_heads``: also the attention matrices and the per-head terms.
    """
    heads = list(heads)
    if not heads:
        raise ValueError("MHA needs at least one head (H >= 1)")
    if gates is not None and len(gates) != len(heads):
        raise ValueError(f"gates has {len(gates)} vectors; it needs one per head ({len(heads)})")
    with ctx.local():
        X = ctx.asmatrix(X)
        terms, As = [], []
        for h, head in enumerate(heads):
            A, Y = attention(ctx, X, head, causal, scale)
            if gates is not None:
                Y = ctx.scale_rows(Y, _vector(ctx, gates[h], ctx.shape(X)[0], f"gates[{h}] (one entry per token)"))
            terms.append(ctx.matmul(Y, ctx.asmatrix(head.W_O)))
            As.append(A)
        out = terms[0]
        for t in terms[1:]:
            out = ctx.add(out, t)
        return (out, As, terms) if return_heads else out


def gelu(ctx, X):
    """Exact (erf) GELU, entrywise: x/2 (1 + erf(x / sqrt 2))."""
    with ctx.local():
        X = ctx.asmatrix(X)
        e = ctx.erf(ctx.div_scalar(X, ctx.sqrt(ctx.const(2))))
        return ctx.hadamard(ctx.scale(X, ctx.const(Fraction(1, 2))), ctx.add_scalar(e, ctx.const(1)))


def ffn(ctx, X, W1, b1, W2, b2, act=gelu):
    """FFN(X) = act(X W1 + b1) W2 + b2  # [n, d_model] -> [n, d_model] (act: GELU by default)."""
    with ctx.local():
        H = ctx.matmul(ctx.asmatrix(X), ctx.asmatrix(W1))
        if b1 is not None:
            H = ctx.add_cols(H, _vector(ctx, b1, ctx.shape(H)[1], "b1 (one entry per column of W1)"))
        O = ctx.matmul(act(ctx, H), ctx.asmatrix(W2))
        if b2 is None:
            return O
        return ctx.add_cols(O, _vector(ctx, b2, ctx.shape(O)[1], "b2 (one entry per column of W2)"))


def block_forward(ctx, X, blk: Block, regime: str, causal: bool = False):
    """One layer in one of the four regimes of the Dong explainer, or attention with LayerNorm.

    ``pure_attention``  X -> MHA(X)
    ``attention_skip``  X -> X + MHA(X)
    ``attention_mlp``   X -> FFN(MHA(X))            (no skip)
    ``full_block``      X -> LN2(Z + FFN(Z)), Z = LN1(X + MHA(X))   (post-LN BERT block)
    ``attention_ln``    X -> LN1(MHA(X))            (no skip, no MLP: pure attention with LayerNorm, §3)

    ``causal``: every attention is masked (position i attends to j <= i). The deployed pre-LN and pre-RMSNorm
    blocks are :func:`deployed_block`.
    """
    if regime not in ARCHITECTURES:
        raise ValueError(f"regime {regime!r} not in {ARCHITECTURES}")
    with ctx.local():
        X = ctx.asmatrix(X)
        M = mha(ctx, X, blk.heads, causal=causal)
        if regime == "pure_attention":
            return M
        if regime == "attention_skip":
            return ctx.add(X, M)
        if regime == "attention_mlp":
            return ffn(ctx, M, blk.W1, blk.b1, blk.W2, blk.b2)
        if regime == "attention_ln":
            return layer_norm(ctx, M, *blk.ln1, eps=blk.eps)
        Z = layer_norm(ctx, ctx.add(X, M), *blk.ln1, eps=blk.eps)
        F = ffn(ctx, Z, blk.W1, blk.b1, blk.W2, blk.b2)
        return layer_norm(ctx, ctx.add(Z, F), *blk.ln2, eps=blk.eps)


def _norm(ctx, X, blk: Block, which: int, rms: bool):
    gamma, beta = blk.ln1 if which == 1 else blk.ln2
    if rms:
        if beta is not None:
            raise ValueError(f"RMSNorm has no bias: ln{which} of a pre_rms block gives gamma only (beta is None), "
                             "not a beta")
        return rms_norm(ctx, X, gamma, eps=blk.eps)
    return layer_norm(ctx, X, gamma, beta, eps=blk.eps)


def deployed_block(ctx, X, blk: Block, block_type: str, causal: bool = False, sublayer: str = "block"):
    """One block as deployed Transformers compose it (the causal mask an option of each).  # [n, d] -> [n, d]

    ``post_ln``  Z = LN1(X + MHA(X)),        out = LN2(Z + FFN(Z))      (BERT; block_forward's ``full_block``)
    ``pre_ln``   Z = X + MHA(LN1(X)),        out = Z + FFN(LN2(Z))      (GPT-2: with ``causal=True``)
    ``pre_rms``  Z = X + MHA(RMSNorm1(X)),   out = Z + FFN(RMSNorm2(Z)) (LLaMA's composition: with ``causal=True``;
                 RMSNorm has gamma only, a beta is refused; GELU FFN, no GQA, no rotary positions)

    ``sublayer="attention"`` stops after the attention sub-layer (Z: the map Theorem 5.3 is about in each block);
    ``"block"`` (default) needs the FFN's weights. A block type not in :data:`BLOCK_TYPES` is refused by name.
    """
    if block_type not in BLOCK_TYPES:
        raise ValueError(f"unsupported block type {block_type!r}: choose from {', '.join(BLOCK_TYPES)}")
    if sublayer not in ("attention", "block"):
        raise ValueError(f"sublayer {sublayer!r} is not 'attention' or 'block'")
    if sublayer == "block" and (blk.W1 is None or blk.W2 is None):
        raise ValueError(f"the {block_type} block needs the FFN weights W1 and W2 (or sublayer='attention')")
    rms = block_type == "pre_rms"
    with ctx.local():
        X = ctx.asmatrix(X)
        if block_type == "post_ln":
            Z = _norm(ctx, ctx.add(X, mha(ctx, X, blk.heads, causal=causal)), blk, 1, False)
            if sublayer == "attention":
                return Z
            return _norm(ctx, ctx.add(Z, ffn(ctx, Z, blk.W1, blk.b1, blk.W2, blk.b2)), blk, 2, False)
        Z = ctx.add(X, mha(ctx, _norm(ctx, X, blk, 1, rms), blk.heads, causal=causal))
        if sublayer == "attention":
            return Z
        return ctx.add(Z, ffn(ctx, _norm(ctx, Z, blk, 2, rms), blk.W1, blk.b1, blk.W2, blk.b2))
