r"""The claim registry, evidence records and the verdict rule.

A :class:`Claim` is one sentence of the paper made formal: a stable id, the
paper's words and section, a formal statement in LaTeX, named hypotheses, a
conclusion, its ``form`` (``universal``, ``existential`` or ``concrete``), the
regimes it is checked in, and the *checks* that produce :class:`Evidence`. A
claim may carry alternative :class:`Reading` s where the paper is ambiguous or
truncated; each reading gets its own verdict. Readings inherit the claim's
regimes and form unless they state their own.

Evidence is labelled by the framework, not by the claim's author
=================================================================
Every piece of evidence is built by one of the constructors below; each sets
``kind`` and ``scope`` from what was computed (an AST test checks that no other
module writes ``kind=`` or ``scope=``, and :class:`Evidence` refuses to be built
anywhere else).

=================================  =====================  ============  ==================================
constructor                        kind                   scope         what was computed
=================================  =====================  ============  ==================================
:func:`formal_proof`               ``formal``             general /     a lemma Coq's kernel accepted,
                                                          complete      "Closed under the global context"
:func:`symbolic_identity`          ``exact``              general       a sympy identity in matrix
                                                          or derivation expressions of *symbolic* size
                                                                        (general); explicit matrices or
                                                                        fixed-size sums: derivation
:func:`derivation`                 ``exact``              derivation    proof steps checked at fixed sizes
                                                                        or cited lemmas spot-checked
:func:`exact_instances`            ``exact``              instances     finitely many exact instances
:func:`exact_complete`             ``exact``              complete      a concrete statement computed
                                                                        exactly, or an existential witness
:func:`stored_counterexample`      ``counterexample``     complete      a stored instance re-read from its
                                                                        file and re-checked exactly
:func:`interval_witness`           ``interval-certified`` complete      an enclosure settling a concrete
                                                                        inequality / an existential witness
:func:`interval_instances`         ``interval-certified`` instances     enclosures on finitely many
                                                                        instances of a universal claim
:func:`float_statistic`            ``float-evidence``     instances     a fit, median, threshold,
                                                                        correlation, or float64 runs
:func:`not_checkable`              ``none``               none          nothing decides it (with a reason)
=================================  =====================  ============  ==================================

Verdicts (first match wins), per reading, over the regimes it lists
===================================================================
``refuted``
    the reading fails in every regime that has deciding evidence, and is
    established in none: an exact counterexample re-checked on this run, a
    rigorous interval certificate of failure, or an exact general negation.
``conditional``
    it is established (proved, certified or supported) in at least one listed
    regime and fails exactly or certifiably in another; the condition (where it
    holds and where it fails) is stated.
``proved``
    formal or exact evidence of scope ``general`` covering *every* regime listed
    on the reading; for a concrete or existential claim, formal or exact
    evidence of scope ``complete``.
``certified``
    interval evidence of scope ``complete`` (a certified witness of an
    existential claim; an enclosure that settles a concrete inequality) in
    every listed regime.
``supported``
    holds on everything checked and nothing settles it (derivations,
    instances, float statistics), or settles it only in some regimes.
``unsupported``
    float evidence (or a derivation) against, nothing exact or certified against.
``not-checkable``
    nothing decides it; ``reason`` says why.

``strength`` is the weakest kind within the strongest set of evidence sufficient
for the verdict: ``formal`` > ``exact`` > ``interval`` > ``float`` > ``none``.

A contradiction within one reading (general formal/exact evidence that holds
beside an exact failure in an overlapping regime) raises
:class:`ContradictionError`: the claim is an ERROR, never a verdict.

Examples
========
>>> e = exact_instances("x > 0 on 3 instances", met=3, held=3, arithmetic="QQ")
>>> (e.kind, e.scope, verdict_from([e]))
('exact', 'instances', 'supported')
>>> bad = exact_instances("x > 0", met=3, held=2, arithmetic="QQ")
>>> verdict_from([e, bad])
'refuted'
>>> assess([exact_instances("a", met=2, held=2, arithmetic="QQ", regime="n<d"),
...         exact_instances("b", met=2, held=1, arithmetic="QQ", regime="n>d")],
...        regimes=("n<d", "n>d")).verdict
'conditional'
"""
from __future__ import annotations

import fnmatch
import json
import time
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, NamedTuple, Sequence

__all__ = [
    "EVIDENCE_KINDS", "SCOPES", "FORMS", "VERDICTS", "STRENGTHS", "REGIMES",
    "Evidence", "Reading", "Claim", "ClaimResult", "ReadingResult", "Assessment", "CheckContext", "ProofStep",
    "ContradictionError", "CounterexampleError", "PredicateError", "DuplicateClaim",
    "formal_proof", "formal_not_run", "symbolic_identity", "derivation", "exact_instances", "exact_complete",
    "stored_counterexample", "found_counterexample", "interval_witness", "interval_instances", "float_statistic", "not_checkable",
    "predicted", "assess", "verdict_from", "strength_of",
    "register", "unregister", "REGISTRY", "run_claim",
    "COUNTEREXAMPLE_DIR", "REPO_ROOT", "counterexample_path", "relative_path", "save_counterexample", "load_counterexample", "counterexample_files",
    "REFERENCED_COUNTEREXAMPLES", "stable_seed", "SEEDS", "tri", "EVIDENCE_PROVIDERS",
]

EVIDENCE_KINDS = ("formal", "exact", "interval-certified", "float-evidence", "counterexample", "none")
SCOPES = ("general", "complete", "derivation", "instances", "none")
FORMS = ("universal", "existential", "concrete")
VERDICTS = ("proved", "certified", "supported", "conditional", "refuted", "unsupported", "not-checkable")
#: strongest first
STRENGTHS = ("formal", "exact", "interval", "float", "none")
_KIND_STRENGTH = {"formal": "formal", "exact": "exact", "counterexample": "exact",
                  "interval-certified": "interval", "float-evidence": "float", "none": "none"}
#: Regimes a claim is checked in: token count n against width d, and weights.
REGIMES = ("n<d", "n=d", "n>d", "all", "generic-weights", "degenerate-weights")

REPO_ROOT = Path(__file__).resolve().parent.parent
COUNTEREXAMPLE_DIR = Path(__file__).resolve().parent / "counterexamples"

_FRAMEWORK = object()  # only this module's constructors may build Evidence


def tri(v) -> bool | None:
    """A check's value as True / False / None (sympy and numpy booleans accepted; never None -> False)."""
    if v is None or isinstance(v, bool):
        return v
    if type(v).__module__.startswith("numpy") and getattr(v, "dtype", None) is not None and v.dtype == bool:
        return bool(v)
    import sympy
    if v is sympy.true or v is sympy.false:
        return bool(v)
    raise TypeError(f"a check returned {v!r} ({type(v).__name__}); return True, False or None")


# --- seeds -------------------------------------------------------------------------------

#: every seed drawn through :func:`stable_seed` in this process (name -> seed), for the ledger's provenance
SEEDS: dict[str, int] = {}


def stable_seed(name: str) -> int:
    """A seed that depends only on ``name`` (CRC-32; never Python's per-process salted hash).

    >>> stable_seed("RN.stress") == stable_seed("RN.stress")
    True
    """
    s = zlib.crc32(name.encode("utf-8"))
    SEEDS[name] = s
    return s


# --- evidence ---------------------------------------------------------------------------

@dataclass
class Evidence:
    """One piece of evidence about one statement; build it with the constructors of this module.

    ``holds``: True (the statement held), False (it failed), None (undecided: ``reason`` says why).
    ``arithmetic``: which arithmetic and precision decided it, e.g. ``"QQ (python-flint fmpq_mat)"``,
    ``"mpmath iv, 60 digits"``, ``"float64 SVD, tol=1e-10"``.
    """

    kind: str
    holds: bool | None
    summary: str
    arithmetic: str
    scope: str
    regime: str = "all"
    numbers: dict = field(default_factory=dict)
    counterexample: str | None = None  # path of the stored exact instance, relative to the repository
    reason: str | None = None          # why it is undecided (holds is None)
    _token: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        if self._token is not _FRAMEWORK:
            raise TypeError("Evidence is built only by the constructors of theorems.claims "
                            "(exact_instances, derivation, interval_witness, ...), which label it")
        if self.kind not in EVIDENCE_KINDS:
            raise ValueError(f"evidence kind {self.kind!r} not in {EVIDENCE_KINDS}")
        if self.scope not in SCOPES:
            raise ValueError(f"evidence scope {self.scope!r} not in {SCOPES}")
        if self.holds is not None and not isinstance(self.holds, bool):  # 1 == True, but 1 is not a verdict
            raise ValueError(f"holds must be True, False or None, not {self.holds!r}")
        if self.kind == "counterexample" and (self.holds is not False or not self.counterexample):
            raise ValueError("a counterexample is evidence that the statement fails (holds=False), read from "
                             "its stored file")
        if self.holds is None and not self.reason:
            self.reason = self.summary
        if not self.arithmetic:
            raise ValueError("every piece of evidence says which arithmetic decided it")

    @property
    def strength(self) -> str:
        return _KIND_STRENGTH[self.kind]

    def to_json(self) -> dict:
        d = asdict(self)
        d.pop("_token", None)
        d["strength"] = self.strength
        return d


def _ev(kind, scope, holds, summary, arithmetic, regime="all", numbers=None, counterexample=None,
        reason=None) -> Evidence:
    return Evidence(kind=kind, holds=holds, summary=summary, arithmetic=arithmetic, scope=scope,
                    regime=regime, numbers=dict(numbers or {}), counterexample=counterexample, reason=reason,
                    _token=_FRAMEWORK)


def formal_proof(lemma: str, closed: bool | None, *, statement: str, concrete: bool = False,
                 regime: str = "all", reason: str | None = None, numbers=None,
                 coq: str | None = None) -> Evidence:
    """A lemma checked by Coq's kernel: holds only if Coq reported it closed under the global context."""
    holds = True if closed is True else None
    why = None if holds else (reason or "Coq did not report the lemma closed under the global context")
    return _ev("formal", "complete" if concrete else "general", holds,
               f"Coq lemma {lemma}: {statement}" + ("" if holds else f" — not accepted: {why}"),
               f"Coq {coq or '(version unknown)'} + MathComp kernel", regime, numbers, reason=why)


def formal_not_run(lemma: str, reason: str, *, regime: str = "all") -> Evidence:
    """The formal proof exists but could not be checked here (e.g. coqc is not installed)."""
    return _ev("formal", "general", None, f"Coq lemma {lemma}: not run: {reason}", "none", regime,
               reason=f"not run: {reason}")


def has_symbolic_size(expr) -> bool | None:
    """True if expr is built from matrix symbols of symbolic size and no explicit matrix; None if no matrix."""
    import sympy
    from sympy.matrices.expressions import MatrixExpr, MatrixSymbol

    if isinstance(expr, sympy.MatrixBase):
        return False
    if not isinstance(expr, (MatrixExpr, sympy.Basic)):
        return False
    explicit = [a for a in sympy.preorder_traversal(expr) if isinstance(a, sympy.MatrixBase)]
    if explicit:
        return False
    syms = list(expr.atoms(MatrixSymbol)) if isinstance(expr, sympy.Basic) else []
    if not syms and not isinstance(expr, MatrixExpr):
        # a scalar identity is general in the sizes only if every free symbol is a size
        # (a positive integer symbol such as n, d, H, d_k); entries make it a fixed-size identity
        free = expr.free_symbols if isinstance(expr, sympy.Basic) else set()
        if free and all(x.is_integer and x.is_positive for x in free):
            return True
        return None
    shapes = [s.shape for s in syms] or [expr.shape]
    return any(not (getattr(dim, "is_Integer", False) or isinstance(dim, int)) for sh in shapes for dim in sh)


def symbolic_identity(lhs, rhs, what: str, *, regime: str = "all") -> Evidence:
    """Check ``lhs == rhs`` in sympy; ``general`` only for matrix expressions of symbolic size.

    The framework decides the scope from the expressions: matrix symbols whose shape holds a free
    size symbol (``MatrixSymbol("A", n, d)``) make the identity valid for every size; explicit
    matrices, fixed-size symbols or scalars make it a ``derivation``. It FAILS (holds False) only at
    an exact instance where ``lhs - rhs`` is non-zero (:func:`_refuting_instance`, recorded in
    ``numbers["refuted_at"]``); when sympy does not reduce ``lhs - rhs`` to zero and no instance
    refutes it, it is undecided (holds None), never a failure.

    >>> from sympy import MatrixSymbol, Matrix, symbols, Identity
    >>> n = symbols("n", integer=True, positive=True)
    >>> A, B = MatrixSymbol("A", n, n), MatrixSymbol("B", n, n)
    >>> symbolic_identity((A + B).T, A.T + B.T, "transpose of a sum").scope
    'general'
    >>> a, b = symbols("a b")
    >>> symbolic_identity(Matrix([[a, b]]).T, Matrix([[a], [b]]), "2 x 1 transpose").scope
    'derivation'
    """
    import sympy

    diff = lhs - rhs
    if isinstance(diff, sympy.MatrixBase):
        ok = diff.applyfunc(sympy.simplify) == sympy.zeros(*diff.shape)
    else:
        d2 = diff.doit() if hasattr(diff, "doit") else diff
        from sympy.matrices.expressions import MatrixExpr, ZeroMatrix
        if isinstance(d2, MatrixExpr):
            d3 = sympy.expand(d2) if not isinstance(d2, ZeroMatrix) else d2
            ok = isinstance(d3, ZeroMatrix) or d3 == 0 or sympy.simplify(d3) == sympy.ZeroMatrix(*d2.shape)
        else:
            ok = sympy.simplify(d2) == 0
    general = has_symbolic_size(lhs) is True and has_symbolic_size(rhs) in (True, None)
    scope = "general" if general else "derivation"
    # sympy not reducing lhs - rhs to zero is no proof that it is non-zero (it does not expand
    # (A + B)**2, say): the identity FAILS only at an exact instance where lhs - rhs is non-zero
    at = None if ok else _refuting_instance(diff)
    holds = True if ok else (False if at else None)
    verdict = "holds" if ok else (f"FAILS at {at}" if at else "undecided")
    numbers = {"symbolic_size": general, **({"refuted_at": at} if at else {})}
    return _ev("exact", scope, holds,
               f"{what}: sympy identity {verdict}"
               + (" for matrices of symbolic size" if general else " (fixed size)"),
               "sympy symbolic", regime, numbers,
               reason=None if holds is not None else
               "sympy did not reduce lhs - rhs to zero, and an exact instance did not refute it")


def _refuting_instance(diff) -> str | None:
    """An exact instance at which ``diff`` (lhs - rhs) is non-zero, described; None if none was found.

    Sizes (the free symbols of matrix shapes) become 3, 4, ... (or all 3, when the expression needs
    equal sizes), matrix symbols fixed integer matrices, other symbols rationals meeting their
    assumptions; all drawn from a seed that depends only on the expression.
    """
    import random

    import sympy
    from sympy.core.assumptions import check_assumptions
    from sympy.matrices.expressions import MatrixExpr, MatrixSymbol

    if not isinstance(diff, (sympy.Basic, sympy.MatrixBase)):
        return None if sympy.sympify(diff) == 0 else f"the value {diff}"
    mats = sorted(diff.atoms(MatrixSymbol), key=str)
    sizes = sorted(set().union(*(dim.free_symbols for m in mats for dim in m.shape)), key=str)
    others = sorted((s for s in diff.free_symbols if isinstance(s, sympy.Symbol) and s not in sizes), key=str)
    for equal in (False, True):
        rng = random.Random(zlib.crc32(sympy.srepr(diff).encode("utf-8")))
        values: dict = {s: 3 if equal else 3 + i for i, s in enumerate(sizes)}
        for s in others:
            pool = [rng.randint(2, 9), -rng.randint(2, 9), sympy.Rational(1, rng.randint(2, 9)), 0]
            fit = [v for v in pool if check_assumptions(sympy.Integer(v) if isinstance(v, int) else v, s) is True]
            if not fit:
                return None
            values[s] = fit[0]
        try:
            e = diff.xreplace({k: sympy.sympify(v) for k, v in values.items()})
            explicit = {m: sympy.ImmutableMatrix(*m.shape, lambda i, j: rng.randint(-5, 5))
                        for m in e.atoms(MatrixSymbol)}
            val = e.xreplace(explicit).doit()
            if isinstance(val, MatrixExpr):
                val = val.as_explicit()
            entries = list(val) if isinstance(val, sympy.MatrixBase) else [val]
            if any(sympy.simplify(x).is_zero is False for x in entries):
                shown = {str(k): str(v) for k, v in values.items()}
                shown.update({str(m): str(M.tolist()) for m, M in explicit.items()})
                return ", ".join(f"{k} = {v}" for k, v in shown.items()) or "its only value"
            return None
        except (sympy.ShapeError, ValueError, TypeError):
            continue
    return None


class ProofStep(NamedTuple):
    """One step of a derivation: LaTeX, words, ``"identity"`` (sympy, fixed size) or ``"lemma"``
    (a cited result spot-checked exactly), and a check returning True / False / None."""

    latex: str
    words: str
    kind: str
    check: Callable[[], bool | None]


def derivation(steps, what: str, *, uses: Sequence[int] | None = None, regime: str = "all",
               arithmetic: str = "sympy symbolic / QQ", concludes: bool = True) -> Evidence:
    """Run proof steps (three-valued): all True -> holds; a False step -> holds False; else None.

    ``concludes=False`` for a derivation of the statement's *negation* (it then holds False when
    every step checks). A derivation is evidence, not a proof: scope ``derivation`` always.
    """
    chosen = [ProofStep(*s) for s in (steps if uses is None else [steps[i] for i in uses])]
    idx = list(range(len(steps))) if uses is None else list(uses)
    results = [tri(s.check()) for s in chosen]
    failed = [i for i, r in zip(idx, results) if r is False]
    undecided = [i for i, r in zip(idx, results) if r is None]
    if failed:
        # a broken derivation of the statement is evidence against it; a broken derivation of the
        # negation establishes nothing either way
        holds = False if concludes else None
        verb = f"step(s) {[i + 1 for i in failed]} FAILED"
        reason = None if concludes else verb
    elif undecided or not results:
        holds, reason = None, f"step(s) {[i + 1 for i in undecided]} undecided" if results else "no step"
        verb = reason
    else:
        holds, reason = (True if concludes else False), None
        verb = "every step checked"
    kinds = [s.kind for s in chosen]
    return _ev("exact", "derivation", holds,
               f"derivation of {what}: {sum(r is True for r in results)}/{len(results)} steps checked "
               f"({kinds.count('identity')} sympy identities at fixed sizes, {kinds.count('lemma')} cited lemmas "
               f"spot-checked); {verb}" + ("" if concludes else " (it derives the negation)"),
               arithmetic, regime,
               {"steps": len(results), "checked": sum(r is True for r in results),
                "failed_steps": [i + 1 for i in failed], "step_numbers": [i + 1 for i in idx]}, reason=reason)


def exact_instances(what: str, *, met: int, held: int, arithmetic: str, regime: str = "all",
                    drawn: int | None = None, numbers=None, first_failure: str | None = None) -> Evidence:
    """Finitely many exact instances: ``met`` met the premise, ``held`` of them satisfied the statement."""
    if held > met or met < 0:
        raise ValueError("held <= met")
    nums = {"premise_met": met, "held": held, **({"drawn": drawn} if drawn is not None else {}), **(numbers or {})}
    if met == 0:
        return _ev("exact", "instances", None, f"{what}: no instance met the premise"
                   + (f" ({drawn} drawn)" if drawn is not None else ""), arithmetic, regime, nums,
                   reason="vacuous: no instance met the premise")
    ok = held == met
    return _ev("exact", "instances", ok,
               f"{what}: held on {held}/{met} instances meeting the premise"
               + (f" ({drawn} drawn)" if drawn is not None else "")
               + ("" if ok or not first_failure else f"; first failure: {first_failure}"),
               arithmetic, regime, nums)


def exact_complete(what: str, holds: bool | None, *, arithmetic: str, regime: str = "all", numbers=None,
                   reason: str | None = None) -> Evidence:
    """An exact computation that settles a concrete statement, or an exact witness of an existential one."""
    return _ev("exact", "complete", tri(holds), what, arithmetic, regime, numbers, reason=reason)


def interval_witness(what: str, holds: bool | None, *, arithmetic: str, regime: str = "all", numbers=None,
                     reason: str | None = None) -> Evidence:
    """Interval enclosures that settle a concrete inequality or certify an existential witness.

    Pass ``holds=None`` when the enclosures overlap the threshold (consistency, not certification).
    """
    return _ev("interval-certified", "complete", tri(holds), what, arithmetic, regime, numbers, reason=reason)


def interval_instances(what: str, holds: bool | None, *, arithmetic: str, regime: str = "all", numbers=None,
                       reason: str | None = None) -> Evidence:
    """Certified enclosures on finitely many instances of a universal statement (support, not proof).

    ``holds=False`` is a certified failure on an instance: a rigorous counterexample.
    """
    return _ev("interval-certified", "instances", tri(holds), what, arithmetic, regime, numbers, reason=reason)


def float_statistic(what: str, holds: bool | None, *, arithmetic: str, regime: str = "all", numbers=None,
                    reason: str | None = None) -> Evidence:
    """A float computation, fit, median, threshold or correlation: float evidence whatever its inputs."""
    return _ev("float-evidence", "instances", tri(holds), what, arithmetic, regime, numbers, reason=reason)


def not_checkable(reason: str, *, regime: str = "all") -> Evidence:
    """Nothing here decides the statement; ``reason`` says why."""
    return _ev("none", "none", None, f"not checkable: {reason}", "none", regime, reason=reason)


def predicted(e: Evidence, what: str = "predicted") -> Evidence:
    """The same computation read for a statement that predicts its failure (holds negated, same labels)."""
    h = None if e.holds is None else (not e.holds)
    if e.scope == "derivation" and e.numbers.get("failed_steps"):
        h = None  # a derivation with a failed step predicts nothing
    if e.kind == "counterexample":
        raise ValueError("a counterexample cannot be read as a prediction")
    return _ev(e.kind, e.scope, h, f"{what}: {e.summary}", e.arithmetic, e.regime, e.numbers, reason=e.reason)


# --- stored counterexamples --------------------------------------------------------------

class CounterexampleError(RuntimeError):
    """A stored counterexample no longer refutes its claim (or its file is missing or corrupt)."""


class PredicateError(RuntimeError):
    """A declared predicate (a hypothesis or a conclusion) raised or returned something other than
    True / False / None on an instance: the claim is an ERROR, with the predicate and the instance named."""


#: stored counterexample files (repository-relative paths) re-checked in this process
REFERENCED_COUNTEREXAMPLES: set[str] = set()


def counterexample_path(claim_id: str, name: str = "") -> Path:
    """Where the stored counterexample of ``claim_id`` lives (``name``: a second one for the same claim)."""
    return COUNTEREXAMPLE_DIR / f"{claim_id.replace('/', '_')}{('-' + name) if name else ''}.json"


def relative_path(path: Path) -> str:
    """``path`` relative to the repository (as written into the ledger), when it is inside it."""
    try:
        return path.resolve().relative_to(REPO_ROOT).as_posix()
    except ValueError:
        return str(path)


def save_counterexample(claim_id: str, instance: dict, note: str, name: str = "",
                        directory: Path | None = None) -> Path:
    """Store an exact instance (rationals as strings) for ``claim_id``."""
    base = Path(directory) if directory is not None else COUNTEREXAMPLE_DIR
    base.mkdir(parents=True, exist_ok=True)
    path = base / counterexample_path(claim_id, name).name

    def enc(v):
        if isinstance(v, (list, tuple)):
            return [enc(x) for x in v]
        if hasattr(v, "tolist") and not isinstance(v, (int, str)):
            return enc(v.tolist())
        return str(v)

    path.write_text(json.dumps({"claim": claim_id, "note": note,
                                "instance": {k: enc(v) for k, v in instance.items()}}, indent=1) + "\n")
    return path


def load_counterexample(claim_id: str, name: str = "") -> tuple[dict, Path]:
    path = counterexample_path(claim_id, name)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise CounterexampleError(f"stored counterexample {relative_path(path)} is missing") from None
    except json.JSONDecodeError as e:
        raise CounterexampleError(f"stored counterexample {relative_path(path)} is not valid JSON: {e.msg}") from None
    if not isinstance(data, dict) or data.get("claim") != claim_id or not isinstance(data.get("instance"), dict):
        raise CounterexampleError(f"{relative_path(path)} is not a counterexample record for {claim_id!r}")
    return data["instance"], path


def counterexample_files() -> list[str]:
    """Every stored counterexample file, repository-relative."""
    return sorted(relative_path(p) for p in COUNTEREXAMPLE_DIR.glob("*.json"))


def found_counterexample(what: str, *, path: Path, arithmetic: str, regime: str = "all", numbers=None) -> Evidence:
    """An exact counterexample found and re-checked on this run, whose stored form is (or will be) ``path``.

    Gives the same evidence :func:`stored_counterexample` gives once the instance is stored there
    (``collapse-verify verify --store``), so a run never depends on whether the file was written.
    """
    return _ev("counterexample", "complete", False, what, arithmetic, regime, numbers, counterexample=relative_path(path))


def stored_counterexample(claim_id: str, recheck: Callable[[dict], tuple[str | None, str, dict]], *,
                          name: str = "", arithmetic: str) -> Evidence:
    """Load a stored counterexample and re-check it exactly from the file's data, on every run.

    ``recheck(instance)`` returns ``(why, regime, numbers)``; ``why`` is None when the stored data no
    longer refutes the claim, which raises :class:`CounterexampleError` (the run fails loudly; a
    counterexample never quietly disappears from the evidence).
    """
    data, path = load_counterexample(claim_id, name)
    rel = relative_path(path)
    try:
        why, regime, numbers = recheck(data)
    except CounterexampleError:
        raise
    except Exception as e:  # corrupt data: a named error, not a traceback deep in a check
        raise CounterexampleError(f"stored counterexample {rel} could not be re-checked: "
                                  f"{type(e).__name__}: {e}") from e
    if why is None:
        raise CounterexampleError(f"stored counterexample {rel} no longer refutes {claim_id}")
    REFERENCED_COUNTEREXAMPLES.add(rel)
    return _ev("counterexample", "complete", False, why, arithmetic, regime, numbers, counterexample=rel)


# --- the verdict rule ---------------------------------------------------------------------

class ContradictionError(RuntimeError):
    """General evidence holds beside an exact failure in an overlapping regime: the suite is wrong somewhere."""


@dataclass
class Assessment:
    verdict: str
    strength: str
    condition: str | None = None
    reason: str | None = None
    by_regime: dict = field(default_factory=dict)


_LEVEL = {"proved": 3, "certified": 2, "supported": 1}


def _strongest(evs) -> str:
    return min((e.strength for e in evs), key=STRENGTHS.index, default="none")


def _weakest(strengths) -> str:
    return max(strengths, key=STRENGTHS.index, default="none")


def _decisive_failure(e: Evidence, form: str) -> bool:
    if e.holds is not False:
        return False
    if form == "existential":  # only a general negation refutes "there is an instance"
        return e.kind in ("formal", "exact") and e.scope == "general"
    if e.kind == "counterexample":
        return True
    if e.kind in ("formal", "exact"):
        return e.scope in ("general", "complete", "instances")
    if e.kind == "interval-certified":
        return True  # a rigorous certificate of failure (overlap is reported as holds=None)
    return False


def _level_of(e: Evidence, form: str) -> int:
    if e.holds is not True:
        return 0
    if e.kind in ("formal", "exact") and (e.scope == "general" or (form != "universal" and e.scope == "complete")):
        return 3
    if e.kind == "interval-certified" and form != "universal" and e.scope == "complete":
        return 2
    return 1


def assess(evidence: Sequence[Evidence], regimes: Sequence[str] = ("all",), form: str = "universal") -> Assessment:
    """The verdict, strength and condition the evidence earns (see the module docstring)."""
    if form not in FORMS:
        raise ValueError(f"form {form!r} not in {FORMS}")
    ev = [e for e in evidence if e.holds is not None]
    listed = [r for r in regimes if r != "all"] or ["all"]
    universe = list(listed)
    if listed != ["all"]:
        universe += sorted({e.regime for e in ev if e.regime not in listed and e.regime != "all"})

    def applies(e: Evidence, r: str) -> bool:
        return listed == ["all"] or e.regime == "all" or e.regime == r

    if not ev:
        reasons = [e.reason for e in evidence if e.reason]
        return Assessment("not-checkable", "none", reason="; ".join(dict.fromkeys(reasons)) or "no evidence")

    status: dict[str, str] = {}
    strength: dict[str, str] = {}
    for r in universe:
        here = [e for e in ev if applies(e, r)]
        fails = [e for e in here if _decisive_failure(e, form)]
        general = [e for e in here if e.kind in ("formal", "exact") and e.scope == "general" and e.holds is True]
        exact_fail = [e for e in fails if e.kind in ("exact", "counterexample", "formal")]
        if general and exact_fail:
            raise ContradictionError(f"regime {r}: general evidence «{general[0].summary}» holds, but exact "
                                     f"evidence «{exact_fail[0].summary}» fails")
        if fails:
            status[r], strength[r] = "fails", _strongest(fails)
            continue
        best = max((_level_of(e, form) for e in here), default=0)
        against = [e for e in here if e.holds is False]
        if best >= 2 or (best == 1 and not against):
            name = {3: "proved", 2: "certified", 1: "supported"}[best]
            status[r] = name
            strength[r] = _strongest([e for e in here if _level_of(e, form) == best])
        elif against:
            status[r], strength[r] = "against", _strongest(against)
        else:
            status[r], strength[r] = "none", "none"

    failed = [r for r in universe if status[r] == "fails"]
    est = [r for r in universe if status[r] in _LEVEL]
    against = [r for r in universe if status[r] == "against"]
    unchecked = [r for r in universe if status[r] == "none"]

    def where(rs):
        return ", ".join(rs) if rs != ["all"] else "every regime"

    if failed:
        if est:
            cond = f"holds in {where(est)} ({', '.join(status[r] for r in est)}); fails in {where(failed)}"
            if unchecked:
                cond += f"; unchecked in {where(unchecked)}"
            return Assessment("conditional", _weakest(strength[r] for r in failed + est), cond, by_regime=status)
        reason = f"fails in {where(failed)}" + (f"; unchecked in {where(unchecked)}" if unchecked else "")
        return Assessment("refuted", _weakest(strength[r] for r in failed), reason=reason, by_regime=status)
    if against:
        cond = f"evidence against in {where(against)}" + (f"; holds in {where(est)}" if est else "")
        return Assessment("unsupported", _weakest(strength[r] for r in against), cond, by_regime=status)
    if not est:
        return Assessment("not-checkable", "none", reason="no evidence decides any regime", by_regime=status)
    if unchecked:
        return Assessment("supported", _weakest(strength[r] for r in est),
                          reason=f"no deciding evidence in {where(unchecked)}", by_regime=status)
    level = min(_LEVEL[status[r]] for r in est)
    verdict = {3: "proved", 2: "certified", 1: "supported"}[level]
    # the sufficient set: per regime, the evidence at the level the verdict rests on
    need = []
    for r in est:
        here = [e for e in ev if applies(e, r) and _level_of(e, form) >= level]
        need.append(_strongest(here))
    return Assessment(verdict, _weakest(need), by_regime=status)


def verdict_from(evidence: Sequence[Evidence], regimes: Sequence[str] = ("all",), form: str = "universal") -> str:
    """The verdict the evidence supports (see the module docstring)."""
    return assess(evidence, regimes, form).verdict


def strength_of(evidence: Sequence[Evidence], regimes: Sequence[str] = ("all",), form: str = "universal") -> str:
    return assess(evidence, regimes, form).strength


# --- claims -------------------------------------------------------------------------------

@dataclass
class CheckContext:
    """What a check may use: the working precision, a time budget hint, and the claim being run."""

    dps: int = 50
    quick: bool = False
    claim_id: str = ""

    def seed(self, salt: str = "") -> int:
        """A stable seed for this claim (CRC-32 of its id and ``salt``)."""
        return stable_seed(f"{self.claim_id}:{salt}" if salt else self.claim_id)


Check = Callable[[CheckContext], Iterable[Evidence]]


@dataclass
class Reading:
    """One formal reading of a claim (``key`` like ``"literal"`` or ``"corrected"``).

    ``condition``: the extra hypothesis this reading adds (shown next to its verdict).
    ``regimes`` / ``form``: None inherits the claim's.
    """

    key: str
    statement: str  # LaTeX
    checks: Sequence[Check] = ()
    note: str = ""
    condition: str | None = None
    regimes: Sequence[str] | None = None
    form: str | None = None
    #: declared predicates on the claim's instances ({name: predicate}, a conclusion predicate, stored
    #: counterexample files): ``theorems.conjecture.claim`` turns them into checks
    hypotheses: Any = ()
    conclusion: Any = None
    counterexamples: Sequence = ()
    instances: Any = None  # None: the claim's instances


@dataclass
class Claim:
    id: str
    section: str
    quote: str
    statement: str  # LaTeX, the claim as the paper states it (the headline reading)
    hypotheses: Sequence[str]
    conclusion: str
    regimes: Sequence[str]
    checks: Sequence[Check]
    readings: Sequence[Reading] = ()
    corrected: Reading | None = None  # a repaired statement, when the headline fails
    chapter: str = ""  # book chapter slug
    source: str = "collapse-verify"
    form: str = "universal"

    def __post_init__(self):
        if self.form not in FORMS:
            raise ValueError(f"claim {self.id}: form {self.form!r} not in {FORMS}")

    def all_readings(self) -> list[Reading]:
        lit = Reading("literal", self.statement, self.checks)
        out = [lit, *self.readings]
        if self.corrected is not None:
            out.append(self.corrected)
        return out


@dataclass
class ReadingResult:
    key: str
    statement: str
    verdict: str
    evidence: list[Evidence]
    condition: str | None  # where it holds and fails (conditional), or the extra hypothesis it adds
    seconds: float
    strength: str = "none"
    form: str = "universal"
    regimes: tuple = ()
    reason: str | None = None
    adds: str | None = None
    note: str = ""

    def to_json(self) -> dict:
        return {"key": self.key, "statement": self.statement, "verdict": self.verdict, "strength": self.strength,
                "form": self.form, "regimes": list(self.regimes), "condition": self.condition,
                "adds": self.adds, "reason": self.reason, "note": self.note,
                "evidence": [e.to_json() for e in self.evidence], "seconds": round(self.seconds, 3)}


@dataclass
class ClaimResult:
    claim: Claim
    readings: list[ReadingResult]
    seconds: float
    error: str | None = None

    @property
    def verdict(self) -> str:
        if self.error:
            return "error"
        return self.readings[0].verdict if self.readings else "not-checkable"

    @property
    def strength(self) -> str:
        return self.readings[0].strength if self.readings and not self.error else "none"

    @property
    def literal(self) -> ReadingResult:
        return self.readings[0]

    def reading(self, key: str) -> ReadingResult:
        for r in self.readings:
            if r.key == key:
                return r
        raise KeyError(key)

    def evidence_kinds(self) -> list[str]:
        return sorted({e.kind for e in self.literal.evidence}) if self.readings else []

    def regimes(self) -> list[str]:
        return sorted({e.regime for e in self.literal.evidence}) if self.readings else []

    def to_json(self) -> dict:
        c = self.claim
        lit = self.readings[0] if self.readings else None
        return {
            "id": c.id, "section": c.section, "quote": c.quote, "form": c.form,
            "verdict": None if self.error else self.verdict, "strength": self.strength,
            "statement": c.statement, "hypotheses": list(c.hypotheses), "conclusion": c.conclusion,
            "regimes": list(c.regimes),
            "evidence": [e.to_json() for e in lit.evidence] if lit else [],
            "condition": lit.condition if lit else None,
            "reason": (lit.reason if lit else None) if not self.error else self.error,
            "readings": [r.to_json() for r in self.readings[1:]],
            "seconds": round(self.seconds, 3), "error": self.error, "source": c.source, "chapter": c.chapter,
        }


#: every registered claim by id (the top floor loads and lists them)
REGISTRY: dict[str, Claim] = {}


class DuplicateClaim(ValueError):
    """Two different claims registered under one id (the second would silently replace the first)."""


def register(claim: Claim) -> Claim:
    """Add a claim to the registry; a second, different claim with the same id raises :class:`DuplicateClaim`."""
    old = REGISTRY.get(claim.id)
    if old is not None and old is not claim:
        raise DuplicateClaim(f"claim id {claim.id!r} is already registered (section {old.section!r}, from "
                             f"{old.source}); choose another id")
    REGISTRY[claim.id] = claim
    return claim


def unregister(claim_id: str) -> None:
    """Remove a claim from the registry (tests, and a user renaming a conjecture)."""
    REGISTRY.pop(claim_id, None)


#: providers of extra evidence for any claim and reading (e.g. the formal proofs of theorems.formal);
#: each is called as provider(claim_id, reading_key, ctx) -> list[Evidence] ("literal" is the headline)
EVIDENCE_PROVIDERS: list[Callable[[str, str, "CheckContext"], list[Evidence]]] = []


def _run_reading(claim: Claim, r: Reading, ctx: CheckContext) -> ReadingResult:
    t0 = time.perf_counter()
    ev: list[Evidence] = []
    for check in [*r.checks, *(lambda c, p=p: p(claim.id, r.key, c) for p in EVIDENCE_PROVIDERS)]:
        got = list(check(ctx))
        for e in got:
            if not isinstance(e, Evidence):
                raise TypeError(f"{claim.id} reading {r.key}: a check returned {type(e).__name__}, not Evidence")
        ev.extend(got)
    regimes = tuple(r.regimes) if r.regimes is not None else tuple(claim.regimes)
    form = r.form or claim.form
    a = assess(ev, regimes, form)
    cond = a.condition if a.verdict in ("conditional", "unsupported") else r.condition
    return ReadingResult(r.key, r.statement, a.verdict, ev, cond, time.perf_counter() - t0, a.strength, form,
                         regimes, a.reason, r.condition, r.note)


def run_claim(claim: Claim, ctx: CheckContext | None = None) -> ClaimResult:
    """Run every check of every reading of a claim and compute the verdicts.

    A check that raises, a stored counterexample that no longer refutes, or a contradiction
    between pieces of evidence makes the claim an ERROR (``error`` set), never a quiet verdict.
    """
    base = ctx or CheckContext()
    ctx = CheckContext(dps=base.dps, quick=base.quick, claim_id=claim.id)
    t0 = time.perf_counter()
    try:
        results = [_run_reading(claim, r, ctx) for r in claim.all_readings()]
    except (ContradictionError, CounterexampleError, PredicateError) as e:
        return ClaimResult(claim, [], time.perf_counter() - t0, error=f"{type(e).__name__}: {e}")
    return ClaimResult(claim, results, time.perf_counter() - t0)
