r"""The framework: typed evidence, the verdict rule, claim records, the registry, counterexample storage and
the one declarative form (:func:`claim`, :func:`conjecture`, :class:`Pool`).

It imports nothing else of the project (a layering test checks it), so everything above it — the exact kernels,
the paper's claims, users' conjectures, the numeric witnesses — stands on it and nothing stands under it.

============================================  ==============================================================
module                                        what it holds
============================================  ==============================================================
:mod:`~theorems.framework.evidence`           :class:`Evidence` and its typed constructors (the only way to
                                              build it: kind and scope are set by what was computed)
:mod:`~theorems.framework.verdict`            :func:`assess`: verdict, strength and condition per reading
:mod:`~theorems.framework.records`            :class:`Claim`, :class:`Reading`, their results,
                                              :func:`run_claim_with`, :func:`stable_seed`
:mod:`~theorems.framework.suite`              :class:`Suite`: the claims and what every installed layer
                                              attaches (Coq lemmas, numeric witnesses, instance forms),
                                              loaded explicitly; :func:`run_claim`, :func:`instance_form`
:mod:`~theorems.framework.run_record`         what one run drew and read (seeds, stored counterexamples),
                                              returned in its result
:mod:`~theorems.framework.registry`           every declared claim by id
:mod:`~theorems.framework.storage`            counterexample files and the exact instance codec
:mod:`~theorems.framework.declare`            :func:`claim`, :func:`conjecture`, :class:`Pool` (the public API)
:mod:`~theorems.framework.generic`            a generic claim's parameter space (:class:`Generic`), the
                                              perturbation probe, searches that state their region, the
                                              collapse notions
:mod:`~theorems.framework.formal_gap`        :class:`FormalGap`: why a supported (exact) statement has no
                                              Coq proof, one reason from :data:`FORMAL_GAP_REASONS`
:mod:`~theorems.framework.quotes`             :func:`check_quote`: is a claim's quotation verbatim in its source?
:mod:`~theorems.framework.instance`           one claim on one instance: the kept declaration, how a user's
                                              input becomes an instance (:class:`InstanceForm`), the truth words
:mod:`~theorems.framework.off_instance`         :class:`OffInstance`: why a statement is not decided on one
                                              instance, one reason from :data:`OFF_INSTANCE_REASONS`
:mod:`~theorems.framework.predicate`            :class:`Predicate`: a hypothesis or conclusion as an object, with
                                              handlers per instance type (no handler: undecided)
:mod:`~theorems.framework.aliases`            the type aliases the signatures share (an instance, a predicate,
                                              a JSON object, a builder)
============================================  ==============================================================

Everything public is importable from here: ``from theorems.framework import claim, Pool, exact_instances``.
"""
from __future__ import annotations

from .declare import CONJECTURES, Conjecture, Pool, claim, conjecture, label_failure
from .evidence import (
                       EVIDENCE_KINDS,
                       FAILURE_LABELS,
                       NULL_SET_LEMMAS,
                       SCOPES,
                       STRENGTHS,
                       Evidence,
                       ProofStep,
                       derivation,
                       evidence_from_record,
                       exact_complete,
                       exact_instances,
                       failing_box,
                       float_statistic,
                       formal_proof,
                       found_counterexample,
                       genericity_argument,
                       has_symbolic_size,
                       identical_failure,
                       interval_instances,
                       interval_witness,
                       label_by_boxes,
                       labelled_failure,
                       not_checkable,
                       perturbation_probe,
                       predicted,
                       step_outcome,
                       stored_counterexample,
                       symbolic_identity,
                       tri,
)
from .formal_gap import FORMAL_GAP_MEANING, FORMAL_GAP_REASONS, FormalGap, check_formal_gap, formal_gap_problems
from .generic import (
                       COLLAPSE_NOTIONS,
                       DETERMINANTAL_STEP,
                       SEARCHES,
                       Generic,
                       Probe,
                       Search,
                       check_notion,
                       perturb_value,
                       probe_failure,
                       rank_genericity,
                       register_search,
)
from .instance import (
                       NO_FORM,
                       ON_THIS_INSTANCE,
                       SITE_KINDS,
                       TRUTH,
                       TRUTH_VALUE,
                       Decided,
                       Declaration,
                       InstanceForm,
                       RobustSet,
                       Undecidable,
                       build_instance,
                       decide,
                       decide_on_instance,
                       decoded,
                       definition_of,
                       not_on_user_input,
                       undecided_reading,
)
from .off_instance import OFF_INSTANCE_MEANING, OFF_INSTANCE_REASONS, OffInstance
from .predicate import Predicate
from .quotes import (
    HOW_TO_GET_SOURCES,
    SOURCE_DIR,
    SOURCE_FILES,
    SOURCE_SHA256,
    SOURCES_ENV,
    SUITE_READING,
    QuoteCheck,
    SourceMismatch,
    check_quote,
    load_sources,
    set_source_dir,
    source_dir,
    sources_available,
)
from .records import (
                       CLAIM_REGIMES,
                       ORIGINS,
                       TALLY_PARTS,
                       Check,
                       CheckContext,
                       Claim,
                       ClaimResult,
                       PredicateError,
                       Reading,
                       ReadingResult,
                       run_claim_with,
                       stable_seed,
)
from .registry import REGISTRY, DuplicateClaim, parse_ref, register, same_as_group, same_as_groups, unregister
from .run_record import RunRecord, recording
from .storage import (
                       COUNTEREXAMPLE_DIR,
                       REPO_ROOT,
                       CounterexampleError,
                       counterexample_files,
                       counterexample_path,
                       decode_instance,
                       encode_instance,
                       load_counterexample,
                       plain,
                       relative_path,
                       save_counterexample,
                       typeset,
)
from .suite import ENTRY_POINT_GROUP, Suite, SuiteError, SuitePart, current_suite, instance_form, run_claim
from .verdict import FORMS, VERDICTS, Assessment, ContradictionError, assess, verdict_from

__all__ = [
    "claim", "conjecture", "Pool", "Conjecture", "CONJECTURES", "label_failure",
    "Evidence", "ProofStep", "tri", "EVIDENCE_KINDS", "SCOPES", "STRENGTHS",
    "formal_proof", "has_symbolic_size", "symbolic_identity", "derivation", "exact_instances", "exact_complete",
    "stored_counterexample", "found_counterexample", "interval_witness", "interval_instances", "float_statistic",
    "not_checkable", "predicted", "evidence_from_record", "step_outcome",
    "FAILURE_LABELS", "NULL_SET_LEMMAS", "genericity_argument", "failing_box", "identical_failure",
    "perturbation_probe", "labelled_failure", "label_by_boxes",
    "Generic", "Probe", "probe_failure", "Search", "SEARCHES", "register_search", "COLLAPSE_NOTIONS", "check_notion",
    "DETERMINANTAL_STEP", "rank_genericity", "perturb_value",
    "FormalGap", "FORMAL_GAP_REASONS", "FORMAL_GAP_MEANING", "check_formal_gap", "formal_gap_problems",
    "parse_ref", "same_as_groups", "same_as_group",
    "CLAIM_REGIMES", "ORIGINS", "TALLY_PARTS",
    "stable_seed", "Check", "CheckContext", "Claim", "ClaimResult", "PredicateError",
    "Reading", "ReadingResult", "run_claim", "run_claim_with", "RunRecord", "recording",
    "Suite", "SuitePart", "SuiteError", "ENTRY_POINT_GROUP", "current_suite",
    "REGISTRY", "DuplicateClaim", "register", "unregister",
    "COUNTEREXAMPLE_DIR", "REPO_ROOT", "CounterexampleError", "counterexample_files", "counterexample_path",
    "decode_instance", "encode_instance", "load_counterexample", "plain", "relative_path", "save_counterexample",
    "typeset",
    "FORMS", "VERDICTS", "Assessment", "ContradictionError", "assess", "verdict_from",
    "SOURCE_DIR", "SOURCE_FILES", "SUITE_READING", "QuoteCheck", "check_quote", "load_sources", "sources_available",
    "SOURCE_SHA256", "SOURCES_ENV", "HOW_TO_GET_SOURCES", "SourceMismatch", "set_source_dir", "source_dir",
    "TRUTH", "TRUTH_VALUE", "ON_THIS_INSTANCE", "SITE_KINDS", "Decided", "Declaration", "InstanceForm", "Undecidable",
    "RobustSet", "instance_form", "decide", "decide_on_instance", "Predicate",
    "OffInstance", "OFF_INSTANCE_REASONS", "OFF_INSTANCE_MEANING", "NO_FORM", "definition_of",
    "build_instance", "not_on_user_input", "decoded", "undecided_reading",
]
