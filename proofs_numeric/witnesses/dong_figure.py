r"""Dong et al.'s Figure 2 protocol re-run on a checkpoint, and the certified answer at every layer that prints 0.00.

The protocol (``theorems/data/README.md``): the four surgeries of :mod:`proofs_numeric.model.dong_variants`, the
ratio ||X - 1 mean|| / ||X|| in the composite norm sqrt(||.||_1 ||.||_inf) per hidden state (layer 0 = the embedding
output). Dong averages 32 ``wiki_bio`` texts of 128 tokens; that data set is not available offline, so the re-run
takes one input (text, token ids or seeded ids) and compares the *shapes* of the curves.

At a layer whose ratio prints as 0.00 (below :data:`theorems.exact.dong_figure.PRINTS_AS_ZERO`), two ranks answer
two questions about the same stored float64 rows:

* the float64 SVD's rank at numpy's ``matrix_rank`` tolerance max(n, d) eps sigma_1
  (:func:`proofs_numeric.core.float_hints.rank_above`): the rank *up to rounding* (float evidence);
* the exact rank of the stored numbers, each read as the dyadic rational it is
  (:func:`theorems.exact.certified_rank.certified_rank`: certified).

They disagree exactly when the rows differ by less than the SVD's tolerance: then numpy's low rank is rounding, and
the rows are still distinct. Whether the *network* (its real-number activations, not their float64 rounding) has
collapsed in rank is a third question, which only the interval forward decides; at a residual near rounding level
(:data:`ROUNDING_LEVEL`) the float rows' differences are roundings themselves, so neither float rank is the network's.
"""
from __future__ import annotations

import time

import numpy as np

from proofs_numeric.core.float_hints import rank_above, rounding_rtol
from proofs_numeric.model.checkpoint import Checkpoint
from proofs_numeric.model.dong_variants import VARIANT_WORDS, VARIANTS, dong_ratio, variant_hidden
from theorems.exact.certified_rank import certified_rank
from theorems.exact.dong_figure import PRINTS_AS_ZERO

__all__ = ["run_figure2", "zero_layer_answer", "ROUNDING_LEVEL", "EVIDENCE", "PROTOCOL_NOTE"]

#: a ratio below this is at the level of float64 rounding of the rows (1000 unit roundoffs): the stored rows'
#: differences are then mostly rounding errors
ROUNDING_LEVEL = 1000 * 2.0 ** -53
#: this module attaches no evidence to a claim (the figure's claims are decided exactly in theorems/)
EVIDENCE: dict = {}
PROTOCOL_NOTE = ("Dong's protocol averages 32 wiki_bio texts of 128 tokens on BERT, ALBERT and XLNet; wiki_bio and "
                 "their checkpoints are not available offline, so this is one input on the given checkpoint: compare "
                 "the shapes of the curves, not the values")


def zero_layer_answer(X: np.ndarray, ratio: float, seed: int = 0) -> dict:
    """The certified answer at a layer whose ratio prints as 0.00: numpy's rank and sigma_2 / sigma_1 (float), the
    exact rank of the stored rows (certified), the number of distinct rows, and which collapse is real, in words."""
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    s = np.linalg.svd(X, compute_uv=False)
    num = rank_above(s, rounding_rtol((n, d)))  # numpy's matrix_rank rule: sigma > max(n, d) eps sigma_1
    t0 = time.perf_counter()
    cr = certified_rank(X, seed=seed)
    secs = time.perf_counter() - t0
    distinct = len({row.tobytes() for row in X})
    exact = cr.value
    ex = str(exact) if exact is not None else f"in [{cr.lower}, {cr.upper}]"
    if exact is not None and num < exact:
        rank_words = (f"numpy's rank {num} is rounding: the {n} stored rows ({distinct} distinct) have exact rank {ex} "
                      f"(certified); numpy drops the singular values below its tolerance max(n, d) eps sigma_1 = "
                      f"{max(n, d) * np.finfo(np.float64).eps * s[0]:.1e} (sigma_2 / sigma_1 = {s[1] / s[0]:.1e})")
    else:
        rank_words = f"numpy's rank {num} and the exact rank of the stored rows ({ex}, certified) agree"
    if ratio < ROUNDING_LEVEL:
        real = (f"the ratio {ratio:.1e} is at rounding level (< {ROUNDING_LEVEL:.1e}): the metric's collapse is real "
                "(the network's tokens agree to float64 precision), and the stored rows' differences are roundings, "
                "so neither float rank is the network's; the network's own rank needs the interval forward")
    else:
        real = (f"the ratio {ratio:.1e} is far above rounding level: the metric's collapse is real (the tokens are "
                f"within {ratio:.0e} of their mean, float evidence) and the tokens are still distinct: no rank "
                "collapse")
    return {"numpy_rank": num, "sigma2_over_sigma1": float(s[1] / s[0]) if len(s) > 1 else 0.0,
            "numpy_tolerance": float(max(n, d) * np.finfo(np.float64).eps * s[0]),
            "exact_rank": {"lower": cr.lower, "upper": cr.upper, "certified": cr.certified, "method": cr.method,
                           "seconds": secs, "primes": list(cr.primes)},
            "distinct_rows": distinct, "n": n, "d": d, "at_rounding_level": bool(ratio < ROUNDING_LEVEL),
            "rank_words": rank_words, "real_words": real}


def run_figure2(m: Checkpoint, ids, variants=VARIANTS, seed: int = 0, certify: bool = True) -> dict:
    """Dong's protocol on ``m`` with the token ids ``ids``: per variant, the ratio at every hidden state, and at every
    layer that prints 0.00 the certified answer (:func:`zero_layer_answer`; ``certify=False`` skips it)."""
    for v in variants:
        if v not in VARIANTS:
            raise ValueError(f"variant {v!r} is not one of {', '.join(VARIANTS)}")
    t0 = time.perf_counter()
    out: dict = {"model": m.name, "family": m.config.family, "norm": m.config.norm, "post_ln": m.config.post_ln,
                 "n_tokens": len(ids), "d": m.d, "n_layers": m.config.n_layers, "ids": [int(i) for i in ids],
                 "metric": "||X - 1 mean||_c / ||X||_c, ||A||_c = sqrt(||A||_1 ||A||_inf), mean over tokens (float64)",
                 "prints_as_zero": float(PRINTS_AS_ZERO), "rounding_level": ROUNDING_LEVEL, "note": PROTOCOL_NOTE,
                 "variants": {}, "zero_layers": []}
    forward = 0.0
    for v in variants:
        t1 = time.perf_counter()
        H = variant_hidden(m, ids, v)
        ratios = [dong_ratio(X) for X in H]
        forward += time.perf_counter() - t1
        out["variants"][v] = {"words": VARIANT_WORDS[v], "ratio": ratios}
        for layer, (X, r) in enumerate(zip(H, ratios)):
            if r < float(PRINTS_AS_ZERO):
                rec = {"variant": v, "layer": layer, "ratio": r}
                if certify:
                    rec.update(zero_layer_answer(X, r, seed=seed))
                out["zero_layers"].append(rec)
    out["seconds"] = {"forwards": forward, "total": time.perf_counter() - t0}
    out["network"] = ("the interval forward of the variants is not run by this command: at a ratio near rounding level "
                      "the certified rank of the network's real activations needs about -log10(ratio) digits per "
                      "token row (the arb forward of proofs_numeric.model.network affords a few dozen tokens at 50 "
                      "digits); the ranks above are of the stored float64 rows")
    return out
