r"""Evidence: what one computation found about one statement, labelled by the framework, not by the author.

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

A stored counterexample (:func:`stored_counterexample`) is re-read from its file under
``theorems/counterexamples/`` (:mod:`theorems.framework.storage`) and re-checked on every run.
"""
from __future__ import annotations

import random
import zlib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, NamedTuple, Sequence

import sympy
from sympy.core.assumptions import check_assumptions
from sympy.matrices.expressions import MatrixExpr, MatrixSymbol, ZeroMatrix

from .storage import CounterexampleError, load_counterexample, relative_path

__all__ = [
    "EVIDENCE_KINDS", "SCOPES", "STRENGTHS", "Evidence", "ProofStep", "tri",
    "formal_proof", "has_symbolic_size", "symbolic_identity", "derivation", "exact_instances", "exact_complete",
    "stored_counterexample", "found_counterexample", "interval_witness", "interval_instances", "float_statistic",
    "not_checkable", "predicted", "REFERENCED_COUNTEREXAMPLES", "evidence_from_record",
]

EVIDENCE_KINDS = ("formal", "exact", "interval-certified", "float-evidence", "counterexample", "none")
SCOPES = ("general", "complete", "derivation", "instances", "none")
#: strongest first
STRENGTHS = ("formal", "exact", "interval", "float", "none")
_KIND_STRENGTH = {"formal": "formal", "exact": "exact", "counterexample": "exact",
                  "interval-certified": "interval", "float-evidence": "float", "none": "none"}

_FRAMEWORK = object()  # only this module's constructors may build Evidence


def tri(v) -> bool | None:
    """A check's value as True / False / None (sympy and numpy booleans accepted; never None -> False)."""
    if v is None or isinstance(v, bool):
        return v
    if type(v).__module__.startswith("numpy") and getattr(v, "dtype", None) is not None and v.dtype == bool:
        return bool(v)
    if v is sympy.true or v is sympy.false:
        return bool(v)
    raise TypeError(f"a check returned {v!r} ({type(v).__name__}); return True, False or None")



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
            raise TypeError("Evidence is built only by the constructors of theorems.framework "
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


def evidence_from_record(record: dict) -> Evidence:
    """Evidence read back from a ledger this framework wrote (:meth:`Evidence.to_json`): the labels it was given
    when it was computed, validated again (an unknown kind or scope, or a malformed record, raises)."""
    names = [f.name for f in fields(Evidence) if f.name != "_token"]
    missing = [n for n in ("kind", "holds", "summary", "arithmetic", "scope") if n not in record]
    if missing:
        raise ValueError(f"not an evidence record: {missing} missing")
    return Evidence(**{n: record[n] for n in names if n in record}, _token=_FRAMEWORK)


def formal_proof(lemma: str, closed: bool | None, *, statement: str, concrete: bool = False,
                 regime: str = "all", reason: str | None = None, numbers=None,
                 coq: str | None = None) -> Evidence:
    """A lemma checked by Coq's kernel: holds only if Coq reported it closed under the global context."""
    holds = True if closed is True else None
    why = None if holds else (reason or "Coq did not report the lemma closed under the global context")
    return _ev("formal", "complete" if concrete else "general", holds,
               f"Coq lemma {lemma}: {statement}" + ("" if holds else f" — not accepted: {why}"),
               f"Coq {coq or '(version unknown)'} + MathComp kernel", regime, numbers, reason=why)


def has_symbolic_size(expr) -> bool | None:
    """True if expr is built from matrix symbols of symbolic size and no explicit matrix; None if no matrix."""

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

    diff = lhs - rhs
    if isinstance(diff, sympy.MatrixBase):
        ok = diff.applyfunc(sympy.simplify) == sympy.zeros(*diff.shape)
    else:
        d2 = diff.doit() if hasattr(diff, "doit") else diff
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



#: stored counterexample files (repository-relative paths) re-checked in this process
REFERENCED_COUNTEREXAMPLES: set[str] = set()


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


