r"""Claims at the sites of a model: where a checkpoint's forward pass gives a claim's instance, and the claim's own
predicates decided there.

A *site* is a place in a forward pass whose activations or weights are the inputs a claim's instance form takes
(:data:`theorems.framework.SITE_KINDS`): each norm's input (``layernorm-input``, ``rmsnorm-input``), each layer's
output projection ``W_O`` split into its heads (``output-projection``), each head's output with its block of
``W_O`` (``head-output``), each layer's attention with its input (``attention``) and each residual update
``X -> X + Delta`` (``residual-update``). Each site has a typed id (:mod:`proofs_numeric.model.site_ids`:
``L0.ln1.input``, ``L3.attn.W_O``, ...), and the sites of a checkpoint are its config's registry (:func:`model_sites`),
which the forward and the plan (:func:`site_plan`) both walk. A claim's :class:`theorems.framework.InstanceForm`
declares the kinds it is evaluated at (``sites=``); :func:`forward_sites` runs the checkpoint one layer at a time and
yields the sites as they appear (nothing of an earlier layer is kept), and :func:`evaluate` decides a claim's
readings at one site with :func:`theorems.framework.decide_on_instance` -- the predicates ``check CLAIM`` and the
ledger use, on the site's inputs read by the one exact reader (:mod:`theorems.exact.reader`).

What a verdict at a site is about (``about`` in every record):

* ``float-computation``: the instance is the float64 forward's stored activations taken exactly (dyadic rationals).
  An exact rank of those numbers is the rank of the stored values, not of the network's real-valued activations:
  rounding alone can make identical rows distinct. Each matrix of the site therefore carries its numerical rank at
  relative tolerance :data:`RANK_RTOL` and the singular-value gap beside its exact rank, and a ``caution`` when the
  two differ (the excess is rounding noise).
* ``network``: the instance is the real-valued network itself: a checkpoint's stored weights (``W_O`` is the
  network's parameter), the embeddings when their float64 sum is exact (an error-free transformation shows every
  rounding error is 0), or enclosures of the activations from a forward pass in interval arithmetic
  (:mod:`proofs_numeric.model.network`), where only what the enclosures decide is decided.

Where a site's paper map differs from the layer's, the site says so or is not produced: the claims' MHA is the
paper's (bidirectional, no positions, no biases), so a causal or rotary layer has no ``attention`` site, and a
layer's query, key and value biases are folded in exactly (``X' = [X | 1]``, ``W' = [W; b]``: then
``MHA(X') = [MHA_layer(X) | 0]``, the output bias ``b_O`` not included).
"""
from __future__ import annotations

import copy
import hashlib
import itertools
import time
import zlib
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import numpy as np

from proofs_numeric.core.float_hints import RTOL_ACTIVATIONS, numerical_rank, rank_above
from proofs_numeric.core.quantities import alpha
from proofs_numeric.model import network as NW
from proofs_numeric.model.checkpoint import Checkpoint, CheckpointError, load_checkpoint
from proofs_numeric.model.site_ids import LN_EMBED, LN_FINAL, SiteId, SiteIdError, SiteSpec, site_of, site_registry
from theorems.exact.certified_rank import certified_rank
from theorems.exact.input import BadInput
from theorems.exact.norm_exact import analyse_array
from theorems.exact.reader import ExactVector, ExactWeights, UserInput, matrix_from
from theorems.exact.shared import array_key, shared, sharing
from theorems.framework import (
    REGISTRY,
    SITE_KINDS,
    Undecidable,
    decide_on_instance,
    instance_form,
    undecided_reading,
)
from theorems.framework.memo import kept, process_cache

__all__ = ["SITE_KINDS", "RANK_RTOL", "Site", "WeightRef", "config_hash", "forward_sites", "site_kinds_of",
           "product_basis", "applicable", "evaluate", "site_about", "matrix_about", "layer_measurements", "claim_items",
           "record_key", "LEVELS", "model_kinds", "NOT_A_SITE", "exact_ln_site", "exact_rms_site", "site_tasks",
           "site_plan", "run_serial", "network_builder", "common_fields", "group_items", "open_model", "NETWORK_LAYERS",
           "network_ok", "instance_summary", "embeddings_site", "model_sites", "network_sites", "SiteId", "SiteIdError",
           "items_by_kind", "NORM_KINDS", "RECORD_KEYS", "update_size", "rounded"]

#: numerical rank of float64 activations: singular values above RANK_RTOL * sigma_max (the named tolerance
#: proofs_numeric.core.float_hints.RTOL_ACTIVATIONS, with its reason there)
RANK_RTOL = RTOL_ACTIVATIONS
#: what a record is about
LEVELS = ("float-computation", "network")
#: exact ranks of stored values are computed for the ``about`` of a site up to this many entries
ABOUT_EXACT_RANK_MAX_ENTRIES = 4 * 2 ** 20


class WeightRef:
    """A layer's weight by reference (checkpoint folder, layer, role): a worker on the same filesystem reads it by
    memory map when it needs it, instead of receiving the array."""

    def __init__(self, folder: str | Path, layer: int, role: str, head: int | None = None):
        self.folder, self.layer, self.role, self.head = str(folder), int(layer), role, head

    def __repr__(self) -> str:
        return f"WeightRef({self.folder!r}, layer {self.layer}, {self.role})"

    def resolve(self) -> np.ndarray:
        m = _open(self.folder)
        if self.role == "W_O":
            return m.raw_Wo(self.layer).astype(np.float64)  # float32 (or F64) values, widened exactly
        raise ValueError(f"unknown weight role {self.role!r}")


@lru_cache(maxsize=4)
def _open(folder: str) -> Checkpoint:
    return load_checkpoint(folder)


@dataclass
class Site:
    """One site of one forward pass: its typed id (:class:`proofs_numeric.model.site_ids.SiteId`) with the registry's
    label and kind, the inputs it gives (``data``) and what its values are (``level``, ``how``). ``numbers``:
    labelled float measurements of the site (condition numbers, errors)."""

    checkpoint: str
    input: str
    id: SiteId
    kind: str
    layer: int | None
    data: dict
    level: str = "float-computation"
    how: str = ""
    meta: dict = field(default_factory=dict)
    numbers: dict = field(default_factory=dict)
    enclosure: bool = False  # the inputs are interval enclosures (network.to_wire), not stored values
    label: str = ""  # the registry's label for tables ("layer 0 attention output"); never parsed

    def get(self, name):
        v = self.data[name]
        return v.resolve() if isinstance(v, WeightRef) else v

    def inputs(self) -> set:
        """The input names this site gives (what a claim's form may take)."""
        return set(self.data) - {"_"}


def config_hash(folder) -> str:
    """sha256 of the checkpoint's config.json bytes (what reproduces a record, with the token ids)."""
    p = Path(folder) / "config.json"
    try:
        return "sha256:" + hashlib.sha256(p.read_bytes()).hexdigest()
    except OSError:
        return "sha256:unavailable"


def record_key(rec: dict) -> tuple:
    """What identifies a record (resume skips records whose key is already written): its site as the typed id.
    A record whose ``site`` is not a site id (a stream written before ids were typed) is refused with
    :class:`proofs_numeric.model.site_ids.SiteIdError`, never keyed by its words."""
    about = rec.get("about") or {}
    try:
        sid = site_of(rec)
    except SiteIdError:
        raise SiteIdError(f"a record's site {rec.get('site')!r} is not a site id such as L0.ln1.input (a stream "
                          "written before site ids were typed, or not a record of this program): start a new "
                          "stream") from None
    return (rec.get("checkpoint"), rec.get("input"), sid, rec.get("claim"), rec.get("reading"),
            about.get("level") if isinstance(about, dict) else about)


# --------------------------------------------------------------------------------------------- which claims where

def site_kinds_of(claim) -> dict:
    """{reading key: (form, site kinds)} of the claim's readings that declare site kinds."""
    out = {}
    for r in claim.all_readings():
        form, _ = instance_form(claim, r)
        if form is not None and form.sites:
            out[r.key] = (form, tuple(form.sites))
    return out


def claim_items(claims, kind: str) -> list[tuple[str, str]]:
    """[(claim id, reading key)] of the readings of ``claims`` declared at sites of ``kind``."""
    out = []
    for c in claims:
        for key, (_, kinds) in site_kinds_of(c).items():
            if kind in kinds:
                out.append((c.id, key))
    return out


def model_kinds(m: Checkpoint) -> dict:
    """{site kind: None if this model has sites of that kind, else why not}."""
    c = m.config
    out: dict[str, str | None] = {k: None for k in SITE_KINDS}
    out["layernorm-input" if c.norm == "rmsnorm" else "rmsnorm-input"] = (
        f"a {c.family} model has {c.norm} sites, no {'LayerNorm' if c.norm == 'rmsnorm' else 'RMSNorm'} sites")
    if c.causal or c.rotary:
        what = " and ".join(w for w, on in (("causal", c.causal), ("rotary", c.rotary)) if on)
        out["attention"] = (f"the claims' MHA is the paper's (bidirectional, no positions); a {c.family} layer's "
                            f"attention is {what}, so it is not an instance of that map")
    return out


#: site kinds no checkpoint gives (a claim declared only there is listed with this reason)
NOT_A_SITE = "its instance form declares no site kind (InstanceForm(sites=...)): it is not evaluated at a model's sites"


#: the norm-input kinds: a claim declared at one is listed, with the reason, at the other's sites (one record per
#: norm site, whichever norm the family has)
NORM_KINDS = ("layernorm-input", "rmsnorm-input")


def items_by_kind(claims) -> dict:
    """{site kind: [(claim id, reading key)] evaluated at sites of that kind}: the readings declared there, and at a
    norm site also those declared at the other norm's sites (their records say why they do not apply)."""
    kinds = {k for c in claims for _, ks in site_kinds_of(c).values() for k in ks}
    out = {k: claim_items(claims, k) for k in kinds}
    for k in NORM_KINDS:
        other = NORM_KINDS[1 - NORM_KINDS.index(k)]
        if other in out:
            out[k] = out.get(k, []) + [it for it in out[other] if it not in out.get(k, [])]
    return out


def applicable(site: Site, form) -> str | None:
    """None if ``form`` can be built from this site's inputs, else why not."""
    if site.kind not in form.sites:
        return f"declared at {', '.join(form.sites)} sites; this site is of kind {site.kind}"
    missing = [k for k in form.takes if k not in site.inputs()]
    if missing:
        return f"needs {', '.join(missing)}, which a {site.kind} site does not give"
    return None


# --------------------------------------------------------------------------------------------- site -> user input

def _vector(values, name: str, how: str) -> ExactVector:
    a = np.ascontiguousarray(values, dtype=np.float64)
    return ExactVector(list(_exact_values(a.tobytes())), name, how)


#: a site's gamma / beta as exact values, once per content in a run (a LayerNorm's are read at every input and by
#: every form at its site); emptied with the other process caches, and when it holds _EXACT_VALUES_MAX vectors
_EXACT_VALUES: dict = process_cache()
_EXACT_VALUES_MAX = 256


def _exact_values(raw: bytes) -> tuple:
    """The float64 values of ``raw`` as exact ints / Fractions (an immutable tuple: callers copy it into a list)."""
    def compute() -> tuple:
        vals = [Fraction(v) for v in np.frombuffer(raw, dtype=np.float64).tolist()]
        return tuple(v.numerator if v.denominator == 1 else v for v in vals)
    return kept(_EXACT_VALUES, raw, compute, _EXACT_VALUES_MAX)


def _weights(heads: list, how: str) -> ExactWeights:
    out = []
    for h, mats in enumerate(heads):
        out.append(tuple(matrix_from(np.asarray(M, dtype=np.float64), f"{k}[{h}]")
                         for k, M in zip(("W_Q", "W_K", "W_V", "W_O"), mats)))
    return ExactWeights(out, how, {"site": True})


def user_input(site: Site, form, seed: int | None, dps: int) -> UserInput:
    """The site's inputs that ``form`` takes, read by the one exact reader (floats as the dyadic rationals they
    store)."""
    names = set(form.takes) | (set(form.optional) & site.inputs())
    src = f"{site.checkpoint}, {site.input}, {site.id}"
    user = UserInput(seed=seed, dps=dps, site=src)
    for k in ("X", "Delta", "W_O"):
        if k in names:
            user.matrices[k] = matrix_from(np.asarray(site.get(k), dtype=np.float64), k, f"{src}: {k}")
    for k in ("gamma", "beta"):
        if k in names and site.data.get(k) is not None:
            user.vectors[k] = _vector(site.get(k), k, f"{src}: {k} (stored values, exactly)")
    if "W_O" in names or "weights" in names:
        user.heads = site.data.get("heads")
    if "weights" in names:
        user.weights = _weights(site.get("weights"), f"{src}: the layer's heads (stored values, exactly)")
    if "n" in names:
        user.n = site.data.get("n")
    return user


# --------------------------------------------------------------------------------------------- what a record is about

def matrix_about(M: np.ndarray, seed: int = 0) -> dict:
    """The numerical rank of a float64 matrix at :data:`RANK_RTOL` with its singular-value gap, beside the exact rank
    of its stored values (certified), and a caution when they differ (the excess is rounding noise)."""
    num = numerical_rank(np.asarray(M, dtype=np.float64), rtol=RANK_RTOL)
    out = {"numerical_rank": num.get("rank"), "rtol": RANK_RTOL, "gap": _rounded(num.get("gap")),
           "sigma_last": _rounded(num.get("sigma_last")), "sigma_next": _rounded(num.get("sigma_next"))}
    if "skipped" in num:
        out["numerical_rank_skipped"] = num["skipped"]
    if M.size <= ABOUT_EXACT_RANK_MAX_ENTRIES:
        cr = certified_rank(np.asarray(M, dtype=np.float64), seed=seed)
        out["exact_rank_of_stored_values"] = int(cr.lower) if cr.certified else None
        if not cr.certified:
            out["exact_rank_how"] = str(cr)
    else:
        out["exact_rank_of_stored_values"] = None
        out["exact_rank_how"] = f"not computed above {ABOUT_EXACT_RANK_MAX_ENTRIES} entries"
    e, r = out.get("exact_rank_of_stored_values"), out.get("numerical_rank")
    if e is not None and r is not None and e > r:
        g = out["gap"]
        out["caution"] = (f"the stored float64 values have exact rank {e}, their numerical rank is {r} (relative "
                          f"tolerance {RANK_RTOL:g}, singular-value gap {'inf' if g is None else f'{g:.2g}'}): the "
                          f"{e - r} further direction{'s' if e - r > 1 else ''} are rounding noise of the float "
                          "forward, not a rank of the network's activations; an exact verdict here is about the "
                          "float computation")
    return out


def _shared_about(M: np.ndarray, seed: int) -> dict:
    """:func:`matrix_about`, once per array content in a sharing scope (every group of readings at one site asks for
    the same one); each caller gets its own copy."""
    k = array_key(M)
    return copy.deepcopy(shared(None if k is None else ("matrix_about", k, seed), lambda: matrix_about(M, seed)))


def site_about(site: Site, seed: int = 0) -> dict:
    """What a verdict at this site is about (see the module docstring)."""
    base: dict[str, object] = {"level": site.level, "how": site.how}
    if site.level == "network" or site.kind == "output-projection":
        return base
    mats = {}
    for k in ("X", "Delta"):
        if k in site.data and isinstance(site.data[k], np.ndarray):
            mats[k] = _shared_about(site.data[k], seed)
    if site.kind == "residual-update":
        mats["X + Delta"] = _shared_about(site.data["X"] + site.data["Delta"], seed)
    base["matrices"] = mats
    cautions = [f"{k}: {v['caution']}" for k, v in mats.items() if "caution" in v]
    if cautions:
        base["caution"] = "; ".join(cautions)
    return base


# -------------------------------------------------------------------------------------- exact norm sites (measurements)

def exact_ln_site(X: np.ndarray, gamma: np.ndarray, beta: np.ndarray) -> dict:
    """H1-H4, arank(X), arank(LN X) for float data taken exactly: :func:`theorems.exact.norm_exact.analyse_array`.

    Every field is decided exactly (or ``None`` with the reason in ``how``); the primes are drawn
    from a fixed seed so the record is reproducible.
    """
    a = analyse_array(X, gamma, beta, seed=0)
    return {"n": a.n, **a.hypotheses, "how": a.how,
            "arank_X": a.arank_X, "arank_LN_X": a.arank_LN_X, "min_abs_gamma": float(np.min(np.abs(gamma))),
            "rank_X": a.rank_X, "rank_XP": a.rank_Xt, "rank_LN_X": a.rank_LN_X,
            "ones_d_in_rowspace": a.ones_d_in_rowspace, "ones_n_in_colspace": a.ones_n_in_colspace,
            "sigma_in_colspace_XP": a.sigma_in_colspace_Xt, "sqrt_classes": a.sqrt_classes,
            "conclusion_holds": a.conclusion_holds, "seconds": a.seconds,
            "arithmetic": "exact (float64 values as dyadic rationals; theorems.exact.norm_exact: certified ranks, "
                          "square classes of exact integer variances)"}



def exact_rms_site(X: np.ndarray, gamma: np.ndarray) -> dict:
    r"""Rank and affine rank of X and of RMSNorm(X) = diag(1/rms(x_i)) X diag(gamma), eps = 0, decided exactly.

    Hypotheses: R1 every row of X is non-zero (rms(x_i) > 0), R2 every gamma_j != 0. Decided by
    :func:`theorems.exact.norm_exact.analyse_array` (``norm="rmsnorm"``): certified ranks of the exactly scaled
    integer matrix and the square classes of the exact integer mean squares; undecided fields are
    ``None`` with the reason in ``how``.
    """
    X = np.asarray(X, dtype=np.float64)
    gamma = np.asarray(gamma, dtype=np.float64)
    n, d = X.shape
    a = analyse_array(X, gamma, None, norm="rmsnorm", seed=zlib.crc32(repr(("rms site", n, d)).encode()))
    rename = {"H1": "R1", "H3": "R2", "rank_LN_X": "rank_RMS_X", "arank_LN_X": "arank_RMS_X"}
    how = {rename.get(k, k): v for k, v in a.how.items()}
    if a.hypotheses.get("H1") is False:
        how["rank_RMS_X"] = how["arank_RMS_X"] = "undefined: a row of X is zero (rms = 0, eps = 0)"
    elif a.hypotheses.get("H3") is False:
        for k in ("rank_RMS_X", "arank_RMS_X"):
            how[k] = f"{how.get(k, '')} (R2 fails: some gamma_j = 0; RMSNorm is still defined)".strip()
    return {"n": n, "norm": "rmsnorm", "R1": a.hypotheses.get("H1"), "R2": a.hypotheses.get("H3"), "how": how,
            "rank_X": a.rank_X, "rank_RMS_X": a.rank_LN_X, "arank_X": a.arank_X, "arank_RMS_X": a.arank_LN_X,
            "min_abs_gamma": float(np.min(np.abs(gamma))),
            "conclusion_holds": a.conclusion_holds,
            "arithmetic": "exact (float64 values as dyadic rationals; theorems.exact.norm_exact: certified ranks, "
                          "square classes of the exact integer mean squares); eps = 0"}


# --------------------------------------------------------------------------------------------- evaluating a site

def _reading(claim, key: str):
    return next(r for r in claim.all_readings() if r.key == key)


def evaluate(site: Site, items, common: dict, seed: int | None = None, dps: int = 50,
             network_build=None) -> list[dict]:
    """The records of ``items`` ([(claim id, reading key)]) at ``site``: each reading's own hypotheses and conclusion
    decided on the instance built from the site's inputs (one instance per form, shared by the readings that use
    it). ``common``: fields every record carries (checkpoint, config hash, token ids). ``network_build(form, site)``
    builds a network-level instance from enclosures (:mod:`proofs_numeric.model.network`). A reading whose instance
    cannot be built from this site (its size is beyond the claim's certified path, its weights must be uniform, ...) is
    a record with ``on_this_instance`` None and the reason under ``not_checked``.

    Inside one :func:`theorems.exact.shared.sharing` scope (the caller's, spanning every group of readings at the site,
    else its own): the exact conversions and ranks of the site's arrays are computed once for all the readings."""
    with sharing():
        return _evaluate(site, items, common, seed, dps, network_build)


def _evaluate(site: Site, items, common: dict, seed: int | None, dps: int, network_build) -> list[dict]:
    t_about = time.perf_counter()
    about = site_about(site, seed if seed is not None else 0)
    t_about = time.perf_counter() - t_about
    built: dict = {}
    hinted: dict = {}  # (build key, hints function) -> the hints: readings sharing an instance share its float hints
    out = []
    for cid, key in items:
        t0 = time.perf_counter()
        claim = REGISTRY[cid]
        r = _reading(claim, key)
        form, why = instance_form(claim, r)
        base = {**common, "input": site.input, "site": str(site.id), "site_label": site.label, "site_kind": site.kind,
                "layer": site.layer,
                "claim": cid, "reading": key, "statement": r.statement}
        if form is None:
            out.append(_record(base, None, about, "", {}, 0.0, not_checked=why))
            continue
        bkey = _build_key(form)
        if bkey not in built:
            reason: str | tuple[str, str] | None = applicable(site, form)
            inst = None
            if reason is None:
                try:
                    if site.enclosure:
                        inst = network_build(form, site)
                    else:
                        assert form.build is not None  # a form that applies to a site's inputs builds from them
                        inst = form.build(user_input(site, form, seed, dps))
                except Undecidable as e:
                    inst, reason = None, ("undecidable", str(e))
                except BadInput as e:  # a named refusal: sizes beyond the certified path, uniform weights, ...
                    inst, reason = None, str(e)
            built[bkey] = (inst, reason, time.perf_counter() - t0)
        inst, reason, t_build = built[bkey]
        if isinstance(reason, tuple):
            rec = undecided_reading(claim, r, form, reason[1])
        elif reason is not None:
            out.append(_record(base, None, about, form.arithmetic, site.numbers, time.perf_counter() - t0,
                               not_checked=reason))
            continue
        else:
            rec = decide_on_instance(claim, r, form, inst)
        numbers = dict(site.numbers)
        if form.hints is not None and not site.enclosure and inst is not None:
            hkey = (bkey, id(form.hints))
            if hkey not in hinted:  # once per instance (RRO.main's three readings at a MiniLM site: 1.9 -> 0.6 s)
                try:
                    hinted[hkey] = form.hints(user_input(site, form, seed, dps), inst)
                except Exception as e:  # a float hint never decides anything: omitted with the reason
                    hinted[hkey] = {"hints_skipped": f"{type(e).__name__}: {str(e)[:200]}"}
            numbers.update(hinted[hkey])
        secs = time.perf_counter() - t0 + (t_about if not out else 0.0)
        out.append(_record(base, rec, about, rec["arithmetic"], numbers, secs, instance=instance_summary(inst)))
    return out


#: the keys of every record, in order
RECORD_KEYS = ("checkpoint", "config_hash", "family", "token_ids", "input", "site", "site_label", "site_kind", "layer",
               "claim", "reading", "statement", "on_this_instance", "reason", "not_checked", "hypotheses", "conclusion",
               "about", "arithmetic", "instance", "numbers", "seconds")


def _record(base: dict, rec: dict | None, about: dict, arithmetic: str | None, numbers: dict, seconds: float,
            instance=None, not_checked: str | None = None) -> dict:
    """A record with the fixed keys :data:`RECORD_KEYS` (a reading not checked at this site has ``on_this_instance``
    None, empty ``hypotheses``, no ``conclusion`` and the reason in ``not_checked``)."""
    out = {**base, "on_this_instance": rec["on_this_instance"] if rec else None,
           "reason": rec["reason"] if rec else None, "not_checked": not_checked,
           "hypotheses": rec["hypotheses"] if rec else {}, "conclusion": rec["conclusion"] if rec else None,
           "about": about, "arithmetic": arithmetic or "", "instance": instance, "numbers": _rounded(dict(numbers)),
           "seconds": round(seconds, 6)}
    return {k: out[k] for k in RECORD_KEYS}


def _build_key(form) -> tuple:
    """Forms that build their instance with the same function from the same inputs share one instance at a site (the
    interval forms of the RC claims differ only in their predicates)."""
    return (id(form.build), tuple(form.takes), tuple(form.optional), tuple(form.sites))


def instance_summary(inst) -> dict | None:
    """The scalar facts of an instance, for the record: an analysis's ranks and hypotheses, or a dict instance's
    numbers and words (matrices are left out)."""
    if inst is None:
        return None
    if hasattr(inst, "hypotheses") and hasattr(inst, "arank_X"):
        return {"n": inst.n, "d": inst.d, "hypotheses": dict(inst.hypotheses), "rank_X": inst.rank_X,
                "arank_X": inst.arank_X, "rank_XP": inst.rank_Xt, "rank_LN_X": inst.rank_LN_X,
                "arank_LN_X": inst.arank_LN_X, "ones_n_in_colspace": inst.ones_n_in_colspace,
                "conclusion_holds": inst.conclusion_holds}
    if isinstance(inst, dict):
        return {k: v for k, v in inst.items() if isinstance(v, (bool, int, str)) or v is None}
    return None


def _rounded(x, digits: int = 12):
    """Floats of a labelled measurement to ``digits`` significant digits (a record does not depend on the last bits
    of a BLAS reduction order, which differ between processes with different thread counts)."""
    if isinstance(x, float):
        return float(f"{x:.{digits}g}") if np.isfinite(x) else x
    if isinstance(x, dict):
        return {k: _rounded(v, digits) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_rounded(v, digits) for v in x]
    return x


#: the rounding a record's ``numbers`` get (:func:`_rounded`), for a reader that takes a site's numbers directly
rounded = _rounded


# --------------------------------------------------------------------------------------------- the forward pass

def _exact_sum(*arrays) -> bool:
    """Whether the float64 sum a_1 + ... + a_k (left to right) of these arrays is exact in every entry: an
    error-free transformation (Knuth's TwoSum) gives each addition's rounding error exactly; all must be 0."""
    s = np.asarray(arrays[0], dtype=np.float64)
    for b in arrays[1:]:
        b = np.asarray(b, dtype=np.float64)
        t = s + b
        bb = t - s
        err = (s - (t - bb)) + (b - bb)
        if np.any(err != 0):
            return False
        s = t
    return True


def _heads_of(m: Checkpoint, L) -> tuple[list, bool]:
    """The layer's heads (W_Q, W_K, W_V, W_O per query head, x @ W layout) with the query, key and value biases folded
    in (an extra input row b, so X' = [X | 1]); True when a bias was folded."""
    c = m.config
    dk, rep = c.d_k, c.H // c.H_kv
    fold = any(np.any(b != 0) for b in (L.bq, L.bk, L.bv))
    out = []
    for h in range(c.H):
        s, t = slice(h * dk, (h + 1) * dk), slice((h // rep) * dk, (h // rep + 1) * dk)
        Wq, Wk, Wv, Wo = L.Wq[:, s], L.Wk[:, t], L.Wv[:, t], L.Wo[s]
        if fold:
            Wq, Wk, Wv = (np.vstack([W, b[None, :]]) for W, b in ((Wq, L.bq[s]), (Wk, L.bk[t]), (Wv, L.bv[t])))
            Wo = np.hstack([Wo, np.zeros((dk, 1))])
        out.append((Wq, Wk, Wv, Wo))
    return out, fold


#: a layer's measurements that read its weights only (the certified rank of W_O, cond W_O, alpha_h), kept per content
#: of the weights and seed: every input of a run reads the same ones (3 inputs x 6 layers of MiniLM: 6, not 18)
_WEIGHT_FACTS: dict = process_cache()
_WEIGHT_FACTS_MAX = 1024


def _layer_weight_facts(m: Checkpoint, L, li: int, seed: int) -> dict:
    c = m.config
    dk, H, rep = c.d_k, c.H, c.H // c.H_kv
    Wraw = m.raw_Wo(li).astype(np.float64)
    key = (array_key(Wraw), array_key(np.asarray(L.Wo)), array_key(np.asarray(L.Wq)), array_key(np.asarray(L.Wk)),
           dk, H, rep, seed)
    def compute() -> dict:
        cr = certified_rank(Wraw, seed=seed)
        if not cr.certified:
            cr = certified_rank(Wraw, exact="always", seed=seed)
        assert cr.value is not None  # exact="always" computes the exact rank
        s = np.linalg.svd(L.Wo, compute_uv=False)
        return {
            "W_O_exact_rank": int(cr.value), "W_O_shape": list(Wraw.shape), "W_O_rank_method": cr.method,
            "W_O_condition": float(s[0] / s[-1]) if s[-1] > 0 else None,
            "alpha": [alpha(L.Wq[:, h * dk:(h + 1) * dk], L.Wk[:, (h // rep) * dk:(h // rep + 1) * dk])
                      for h in range(H)]}
    return copy.deepcopy(kept(_WEIGHT_FACTS, key, compute, _WEIGHT_FACTS_MAX))


def layer_measurements(m: Checkpoint, L, layer_rec: dict, li: int, seed: int = 0, alignment: bool = True) -> dict:
    """The labelled float measurements of a layer (today's real-model table): the exact rank of the stored W_O
    (certified), cond(W_O), the head-recovery error from the MHA output, rank MHA against dim sum R_h, alpha_h of
    every query head and the alignment of the head subspaces (float64, numerical ranks at :data:`RANK_RTOL`)."""
    c = m.config
    dk, H = c.d_k, c.H
    weights = _layer_weight_facts(m, L, li, seed)
    Y = np.hstack(layer_rec["Y"])
    if L.Wo.shape[0] == L.Wo.shape[1] == weights["W_O_exact_rank"]:
        Yhat = np.linalg.solve(L.Wo.T, layer_rec["mha"].T).T  # W_O square and invertible: Y = MHA W_O^{-1}
    else:  # least squares: exact recovery iff W_O has full row rank H d_k
        Yhat = np.linalg.lstsq(L.Wo.T, layer_rec["mha"].T, rcond=None)[0].T
    rel = float(np.linalg.norm(Yhat - Y) / np.linalg.norm(Y))
    out = {"W_O_exact_rank": weights["W_O_exact_rank"], "W_O_shape": weights["W_O_shape"],
           "W_O_rank_method": weights["W_O_rank_method"], "W_O_condition": weights["W_O_condition"],
           "head_recovery_rel_error": rel, "alpha": weights["alpha"],
           "n": int(Y.shape[0]), "arithmetic": "W_O rank exact over Q (certified); the rest float64 (numerical ranks "
                                                 f"at rtol {RANK_RTOL:g})"}
    if alignment:
        bases = [product_basis(layer_rec["Y"][h], L.Wo[h * dk:(h + 1) * dk]) for h in range(H)]
        out["mha_rank"] = _numrank(layer_rec["mha"])
        out["sum_rowspace_dim"] = _numrank(np.hstack(bases).T) if bases else 0
        out["head_dims"] = [int(b.shape[1]) for b in bases]
        align = []
        for h in range(H):
            cs = [float(np.mean(np.linalg.svd(bases[h].T @ bases[g], compute_uv=False) ** 2))
                  for g in range(H) if g != h and bases[h].size and bases[g].size]
            align.append(float(np.mean(cs)) if cs else 0.0)
        out["alignment"] = align
    return out


def _count_above_rtol(s: np.ndarray) -> int:
    """How many of the singular values ``s`` (largest first) exceed :data:`RANK_RTOL` times the largest."""
    return rank_above(s, RANK_RTOL)


def _numrank(M: np.ndarray) -> int:
    return _count_above_rtol(np.linalg.svd(M, compute_uv=False))


def product_basis(Y: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Orthonormal columns spanning the numerical row space of ``Y @ W`` (singular values above :data:`RANK_RTOL`
    times the largest), found without forming the n x d product's SVD.

    With the reduced QR factorisation ``W.T = Q R`` (``Q``'s columns orthonormal), ``Y W = (Y R^T) Q^T``: the small
    matrix ``Y R^T`` (n x k, k = W's rows: a head's d_k) has the singular values of ``Y W`` and, if ``V`` are its right
    singular vectors, ``Q V`` are those of ``Y W``. Float64, like the SVD of the product it replaces (the same
    subspace and count up to rounding; ``property_tests/interface/test_model_check.py`` compares the two). It pays
    for long inputs (n in the hundreds: an n x 384 SVD against an n x 32 one), not for short ones.
    """
    Q, R = np.linalg.qr(W.T)  # W [k, d]: Q [d, min(d, k)], R [min(d, k), k]
    _, s, Vt = np.linalg.svd(Y @ R.T, full_matrices=False)
    return Q @ Vt[:_count_above_rtol(s)].T


def model_sites(m: Checkpoint, kinds=None) -> tuple[SiteSpec, ...]:
    """The site registry of ``m`` (:func:`proofs_numeric.model.site_ids.site_registry` of its config, in the order of
    the forward) without the kinds the model does not give (:func:`model_kinds`), and only ``kinds`` if given. The
    forward (:func:`forward_sites`) and the plan (:func:`site_plan`) both walk this list."""
    have = model_kinds(m)
    return tuple(s for s in site_registry(m.config)
                 if have.get(s.kind) is None and (kinds is None or s.kind in kinds))


def embeddings_site(m: Checkpoint) -> SiteId:
    """The norm site whose input is the embeddings themselves."""
    return LN_EMBED if m.config.post_ln else SiteId(0, "ln1", "input")


def forward_sites(m: Checkpoint, ids, input_name: str, label: str, kinds=None, measure: bool = False,
                  weight_refs: bool = True, layers=None, depth: dict | None = None):
    """Run the checkpoint on ``ids`` one layer at a time and yield its :class:`Site` objects as they appear (only the
    current layer's weights and activations are held), one per entry of :func:`model_sites`, in its order: each
    site's values are looked up by its typed id in what the forward recorded. ``kinds``: the site kinds to produce
    (default all the model has). ``measure``: attach :func:`layer_measurements` to each output-projection site.
    ``weight_refs``: W_O travels as a :class:`WeightRef` (read by memory map where it is used). ``depth``: a dict
    filled with the residual ``rho_l = ||X - 1 mean||_F / ||X||_F`` of every layer's output (the residual across
    depth)."""
    c = m.config
    specs = model_sites(m, set(kinds or SITE_KINDS))
    outside: dict[int, list[SiteSpec]] = {-1: [], 1: []}
    per_layer: dict[int, list[SiteSpec]] = {}
    for spec in specs:
        if spec.id.layer is None:
            outside[spec.id.order_key()[0]].append(spec)
        else:
            per_layer.setdefault(spec.id.layer, []).append(spec)
    n = len(ids)
    meta = {"family": c.family, "norm": c.norm, "d": c.d, "H": c.H, "d_k": c.d_k, "n": n}
    float_how = "the float64 forward's stored activations, taken exactly (dyadic rationals)"
    emb_site = embeddings_site(m)

    def norm_site(spec, X, params, layer):
        g, b = params
        data = {"X": X, "gamma": g}
        if b is not None:
            data["beta"] = b
        numbers = {"min_abs_gamma": float(np.min(np.abs(g)))}
        if measure and b is None:
            numbers["rms_analysis"] = exact_rms_site(X, g)
        s = Site(label, input_name, spec.id, spec.kind, layer, data, "float-computation", float_how, meta, numbers,
                 label=spec.label)
        if spec.id == emb_site:  # the embeddings: the network's values where their float64 sum is exact
            s.level, s.how = emb_level, emb_how
        return s

    if depth is not None:
        depth.setdefault("residual", [])
    with np.errstate(over="ignore", invalid="ignore"):
        X = m.embeddings(ids)
    emb_parts = m.embedding_parts(ids)
    exact_emb = _exact_sum(*emb_parts)
    emb_level = "network" if exact_emb else "float-computation"
    emb_how = ("the embeddings: the sum of the stored embedding rows is exact in float64 (TwoSum: every rounding "
               "error is 0), so these are the network's values" if exact_emb and len(emb_parts) > 1 else
               "the embeddings: the stored embedding rows themselves (the network's values)" if exact_emb else
               "the embeddings: the float64 sum of the stored embedding rows (rounded)")
    if c.post_ln:
        ln_emb = m.embedding_norm()
        recorded = {LN_EMBED: (X, ln_emb)}
        for spec in outside[-1]:
            yield norm_site(spec, *recorded[spec.id], None)
        X = m.norm_apply(X, ln_emb, where=str(LN_EMBED))
    if depth is not None:
        depth["residual"].append(_rho(X))
    todo = range(c.n_layers) if layers is None else [li for li in layers if 0 <= li < c.n_layers]
    for li in range(c.n_layers):
        L = m.layers[li]
        rec: dict[str, list] = {"ln_inputs": [], "layers": [], "updates": []}
        with np.errstate(over="ignore", invalid="ignore"):
            X_next = m.block(X, L, li, rec)
        if li not in todo:
            X = X_next
            continue
        norms = {sid: (Xs, params) for sid, Xs, params in rec["ln_inputs"]}
        updates = {sid: (Xu, D) for sid, Xu, D in rec["updates"]}
        lr = rec["layers"][0]
        for spec in per_layer.get(li, ()):
            sid = spec.id
            if sid.is_norm:
                yield norm_site(spec, *norms[sid], li)
            elif spec.kind == "output-projection":
                data = {"W_O": WeightRef(m.path, li, "W_O") if weight_refs else m.raw_Wo(li).astype(np.float64),
                        "heads": c.H, "n": n}
                s = Site(label, input_name, sid, spec.kind, li, data, "network",
                         "the checkpoint's stored W_O (the network's parameter, exactly; x @ W layout, H d_k x d)",
                         meta, label=spec.label)
                if measure:
                    s.numbers = layer_measurements(m, L, lr, li, seed=zlib.crc32(repr(("W_O", li)).encode()))
                yield s
            elif spec.kind == "head-output":
                h, dk = sid.head, c.d_k
                assert h is not None  # a head-output id carries its head
                yield Site(label, input_name, sid, spec.kind, li,
                           {"X": lr["Y"][h], "W_O": L.Wo[h * dk:(h + 1) * dk].copy(), "heads": 1}, "float-computation",
                           "Y_h from the float64 forward (taken exactly) and the stored block W_O^h", meta,
                           label=spec.label)
            elif spec.kind == "attention":
                heads, fold = _heads_of(m, L)
                Xin = lr["X_in"]
                if fold:
                    Xin = np.hstack([Xin, np.ones((n, 1))])
                WO = np.vstack([h[3] for h in heads])
                yield Site(label, input_name, sid, spec.kind, li,
                           {"X": Xin, "weights": heads, "W_O": WO, "heads": c.H, "n": n}, "float-computation",
                           float_how + ("; the query, key and value biases folded in exactly: X' = [X | 1], W' = [W; b]"
                                        if fold else ""), meta, label=spec.label)
            elif spec.kind == "residual-update":
                Xu, D = updates[sid]
                yield Site(label, input_name, sid, spec.kind, li, {"X": Xu, "Delta": D}, "float-computation",
                           float_how + " (X and Delta = the sublayer's output as the float forward computed it)", meta,
                           update_size(Xu, D), label=spec.label)
            else:  # a kind the registry lists and this forward does not make: a bug, never a silent omission
                raise AssertionError(f"the forward makes no site {sid} of kind {spec.kind}")
        del rec, lr, norms, updates
        X = X_next
        if depth is not None:
            depth["residual"].append(_rho(X))
    fin = m.final_norm()
    if fin is not None and (c.n_layers - 1) in todo:
        recorded = {LN_FINAL: (X, fin)}
        for spec in outside[1]:
            yield norm_site(spec, *recorded[spec.id], None)


def update_size(X: np.ndarray, Delta: np.ndarray) -> dict:
    """How large a residual update X -> X + Delta is against the stream it is added to: ||Delta||_F / ||X||_F
    (float64, labelled; context for the rank claims at the update, never a decision)."""
    nx = float(np.linalg.norm(X))
    return {"delta_over_x": float(np.linalg.norm(Delta)) / nx if nx > 0 else None,
            "delta_over_x_arithmetic": "float64 Frobenius norms of the stored values"}


def _rho(X: np.ndarray) -> float:
    return float(np.linalg.norm(X - X.mean(axis=0, keepdims=True)) / np.linalg.norm(X))


def open_model(folder) -> Checkpoint:
    """A checkpoint folder, or CheckpointError naming the problem."""
    p = Path(folder)
    if not p.exists():
        raise CheckpointError(f"{folder}: not found (give a folder holding config.json and model.safetensors)")
    if not p.is_dir():
        raise CheckpointError(f"{folder}: not a directory (give the checkpoint folder)")
    return load_checkpoint(p)


# --------------------------------------------------------------------------------------------- tasks

#: network-level records: the interval forward runs this many layers by default (0: none)
NETWORK_LAYERS = 2


def group_items(items) -> list[list[tuple[str, str]]]:
    """``items`` grouped by the instance form their readings use (a group shares one instance at a site)."""
    groups: dict = {}
    for cid, key in items:
        claim = REGISTRY[cid]
        form, _ = instance_form(claim, _reading(claim, key))
        groups.setdefault(_build_key(form) if form is not None else None, []).append((cid, key))
    return list(groups.values())


def site_tasks(m: Checkpoint, label: str, input_name: str, ids, claims, measure: bool = False,
               network_layers: int = NETWORK_LAYERS, dps: int = 50, weight_refs: bool = True, depth=None):
    """Yield ``(site, items)`` for every site of the forward pass of ``ids`` where some reading of ``claims`` is
    declared, ``items`` the readings [(claim id, reading key)] that share one instance form; then, for a short input
    of a family the interval forward covers, the network-level LayerNorm sites of its first ``network_layers``
    layers (:mod:`proofs_numeric.model.network`)."""
    by_kind = items_by_kind(claims)
    kinds = set(by_kind)
    for site in forward_sites(m, ids, input_name, label, kinds, measure=measure, weight_refs=weight_refs,
                              depth=depth):
        for group in group_items(by_kind.get(site.kind, [])):
            yield site, group
    for site, group in network_tasks(m, label, input_name, ids, by_kind, network_layers, dps, NW):
        yield site, group


def network_ok(m: Checkpoint, ids, network_layers: int) -> str | None:
    """None when network-level sites are produced for this input, else why not."""
    if network_layers <= 0:
        return "network-level records not asked for (--network-layers 0)"
    if m.config.family not in NW.NETWORK_FAMILIES:
        return (f"the interval forward covers {', '.join(NW.NETWORK_FAMILIES)}; a {m.config.family} layer is not in it "
                "yet (rotary positions)")
    if len(ids) > NW.NETWORK_MIDRAD_MAX_TOKENS:
        return (f"the interval forward runs on inputs of at most {NW.NETWORK_MIDRAD_MAX_TOKENS} tokens; this one has "
                f"{len(ids)}")
    return None


def _network_items(by_kind) -> list:
    """The LayerNorm readings whose instance form the interval forward builds (network-level records)."""
    return [it for it in by_kind.get("layernorm-input", [])
            if id(instance_form(REGISTRY[it[0]], _reading(REGISTRY[it[0]], it[1]))[0]) in NW.NETWORK_FORMS]


def network_sites(m: Checkpoint, ids, network_layers: int) -> list[SiteSpec]:
    """The registry's LayerNorm sites the interval forward reaches in its first ``network_layers`` layers (the final
    norm only when it runs through every layer), in the order of the forward, without the embeddings' site when the
    float site there already holds the network's values (an exact sum: one record); [] when :func:`network_ok` says
    no."""
    if network_ok(m, ids, network_layers) is not None:
        return []
    c = m.config
    skip = embeddings_site(m) if _exact_sum(*m.embedding_parts(ids)) else None
    network_layers = NW.network_layers_for(len(ids), network_layers)  # double precision carries fewer layers
    out = []
    for spec in model_sites(m, {"layernorm-input"}):
        sid = spec.id
        reached = (sid == LN_EMBED or (sid == LN_FINAL and network_layers >= c.n_layers)
                   or (sid.layer is not None and sid.layer < min(network_layers, c.n_layers)))
        if reached and sid != skip:
            out.append(spec)
    return out


def network_tasks(m, label, input_name, ids, by_kind, network_layers, dps, NW):
    items = _network_items(by_kind)
    if not items or network_ok(m, ids, network_layers) is not None:
        return
    meta = {"family": m.config.family, "norm": m.config.norm, "d": m.config.d, "H": m.config.H, "d_k": m.config.d_k,
            "n": len(ids)}
    layers = NW.network_layers_for(len(ids), network_layers)
    specs = {spec.id: spec for spec in network_sites(m, ids, network_layers)}
    for sid, li, X, (g, b), secs in NW.forward_enclosures(m, ids, layers, dps, arithmetic="auto"):
        if sid not in specs:
            continue  # the embeddings' float site holds the network's values already (an exact sum): one record
        rs = NW.radius_stats(X)
        how = (f"the network itself: its real activation enclosed by {NW.forward_arithmetic(len(ids), dps)} from "
               f"the stored weights (exactly), LayerNorm epsilon as in the config; largest radius "
               f"{rs['max_radius']:.2g}, largest radius relative to |value| {rs['max_relative_radius']:.2g}")
        data = {"X": NW.to_wire(X), "gamma": np.asarray(g, dtype=np.float64)}
        if b is not None:
            data["beta"] = np.asarray(b, dtype=np.float64)
        site = Site(label, input_name, sid, "layernorm-input", li, data, "network", how, meta,
                    {"enclosure": rs, "forward_seconds": round(secs, 3)}, enclosure=True, label=specs[sid].label)
        for group in group_items(items):
            yield site, group


def network_builder(form, site):
    """The network-level instance of ``form`` at an enclosure site (see :mod:`proofs_numeric.model.network`)."""
    return NW.network_build(form, site)


def common_fields(m: Checkpoint, label: str, ids) -> dict:
    """What every record of one forward carries: the checkpoint, its config hash and the token ids."""
    return {"checkpoint": label, "config_hash": config_hash(m.path), "family": m.config.family,
            "token_ids": [int(i) for i in ids]}


def run_serial(m: Checkpoint, label: str, runs: dict, claims, measure: bool = False,
               network_layers: int | dict = NETWORK_LAYERS, dps: int = 50, seed: int = 0) -> list[dict]:
    """Every record of ``claims`` at every site of ``m`` on the inputs ``runs`` ({name: token ids}), in one process
    (the ledger's trained-model readings read these; ``check --model`` runs the same tasks on workers).
    ``network_layers``: layers of the interval forward, or {input name: layers} (missing inputs: none)."""
    out = []
    for name, ids in runs.items():
        common = common_fields(m, label, ids)
        nl = network_layers.get(name, 0) if isinstance(network_layers, dict) else network_layers
        tasks = site_tasks(m, label, name, ids, claims, measure=measure, network_layers=nl, dps=dps, weight_refs=False)
        for _, at_site in itertools.groupby(tasks, key=lambda t: id(t[0])):  # one sharing scope per site
            with sharing():
                for site, items in at_site:
                    out.extend(evaluate(site, items, common, seed=seed, dps=dps, network_build=network_builder))
    return out


def site_plan(m: Checkpoint, ids, claims, network_layers: int = NETWORK_LAYERS) -> list[tuple]:
    """The (site id, kind, level, items) of every task :func:`site_tasks` yields for the input ``ids``, in the same
    order, without running the forward (progress totals and resume use it): the same registry walk
    (:func:`model_sites`, then :func:`network_sites`)."""
    by_kind = items_by_kind(claims)
    exact = _exact_sum(*m.embedding_parts(ids))
    emb_site = embeddings_site(m)
    out = []
    for spec in model_sites(m, set(by_kind)):
        level = ("network" if spec.kind == "output-projection" else
                 "network" if spec.id == emb_site and exact else "float-computation")
        for g in group_items(by_kind.get(spec.kind, [])):
            out.append((spec.id, spec.kind, level, g))
    items = _network_items(by_kind)
    if items:
        for spec in network_sites(m, ids, network_layers):
            for g in group_items(items):
                out.append((spec.id, "layernorm-input", "network", g))
    return out
