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
:func:`genericity_argument`        ``exact`` / ``formal``  generic /     failure forces a non-zero polynomial
                                   ``interval-certified`` general       (or real-analytic function) P to
                                                                        vanish, and P != 0 at a witness
:func:`failing_box`                ``exact`` /            positive-     every point of a box of parameters
                                   ``interval-certified`` measure       fails (rational or iv enclosures)
:func:`identical_failure`          ``exact``              positive-     the failure holds identically on an
                                                                        measure open set (a symbolic identity)
:func:`perturbation_probe`         ``exact`` /            instances     a failing instance of a generic
                                   ``interval-certified``               claim, re-decided at seeded random
                                                                        perturbations: exceptional or
                                                                        persistent
=================================  =====================  ============  ==================================

A stored counterexample (:func:`stored_counterexample`) is re-read from its file under
``theorems/counterexamples/`` (:mod:`theorems.framework.storage`) and re-checked on every run.

Failures of a generic claim ("for almost every point of a stated parameter space") carry a ``label``
(:data:`FAILURE_LABELS`): ``robust`` (failure on a set of positive measure: a certified box or an identity,
the only failure that decides a generic claim), ``persistent`` (a perturbation did not restore the conclusion,
but nothing certifies a box: evidence against) or ``exceptional-point`` (perturbations restore the
conclusion: a point of the exceptional null set, shown and never decisive).
"""
from __future__ import annotations

import random
import re
import zlib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, NamedTuple, Sequence

import sympy
from sympy.core.assumptions import check_assumptions
from sympy.matrices.expressions import MatrixExpr, MatrixSymbol, ZeroMatrix

from .aliases import JSONObject, Numbers
from .memo import memo, note_computed
from .memo import provenance as memo_provenance
from .run_record import note_counterexample
from .storage import REPO_ROOT, CounterexampleError, counterexample_path, load_counterexample, relative_path

__all__ = [
    "EVIDENCE_KINDS", "SCOPES", "STRENGTHS", "Evidence", "ProofStep", "tri",
    "formal_proof", "has_symbolic_size", "symbolic_identity", "derivation", "step_outcome", "exact_instances",
    "exact_complete",
    "stored_counterexample", "found_counterexample", "interval_witness", "interval_instances", "float_statistic",
    "not_checkable", "predicted", "evidence_from_record", "FAILURE_LABELS", "counterexample_file", "store_command",
    "NULL_SET_LEMMAS",
    "genericity_argument", "failing_box", "identical_failure", "perturbation_probe", "labelled_failure",
    "label_by_boxes",
]

EVIDENCE_KINDS = ("formal", "exact", "interval-certified", "float-evidence", "counterexample", "none")
#: ``generic``: a genericity argument resting on a cited lemma (the zero set of a non-zero polynomial, or of a
#: non-zero real-analytic function on a connected domain, is null); ``positive-measure``: a failure on a set of
#: positive measure (a certified box, or an identity on an open set)
SCOPES = ("general", "complete", "derivation", "instances", "generic", "positive-measure", "none")
#: how a failure of a generic claim is labelled (robust decides; persistent is evidence against; an
#: exceptional point is shown, never decisive)
FAILURE_LABELS = ("robust", "persistent", "exceptional-point")
#: the cited lemmas a genericity argument rests on (not in MathComp-Analysis 0.6.0: cited, not formal)
NULL_SET_LEMMAS = {
    "polynomial": "the zero set of a non-zero real polynomial on R^N is Lebesgue-null (cited: e.g. Caron and "
                  "Traynor 2005; not formal in MathComp-Analysis 0.6.0)",
    "analytic": "the zero set of a real-analytic function on a connected open set, not identically zero, is "
                "Lebesgue-null (identity theorem; cited: Krantz and Parks, A Primer of Real Analytic Functions, "
                "Ch. 1; not formal in MathComp-Analysis 0.6.0)",
}
#: strongest first
STRENGTHS = ("formal", "exact", "interval", "float", "none")
_KIND_STRENGTH = {"formal": "formal", "exact": "exact", "counterexample": "exact",
                  "interval-certified": "interval", "float-evidence": "float", "none": "none"}

_FRAMEWORK = object()  # only this module's constructors may build Evidence


def tri(v: object) -> bool | None:
    """A check's value as True / False / None (sympy and numpy booleans accepted; never None -> False)."""
    if v is None or isinstance(v, bool):
        return v
    dtype = getattr(v, "dtype", None) if type(v).__module__.startswith("numpy") else None
    if dtype is not None and dtype.kind == "b":  # numpy's one boolean dtype (np.bool_, or a 0-d bool array)
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
    numbers: dict[str, Any] = field(default_factory=dict)
    counterexample: str | None = None  # path of the stored exact instance, relative to the repository
    reason: str | None = None          # why it is undecided (holds is None)
    label: str | None = None           # a failure of a generic claim: robust / persistent / exceptional-point
    cites: str | None = None           # the lemma a genericity argument cites (not formal)
    _token: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
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
        if self.label is not None:
            if self.label not in FAILURE_LABELS:
                raise ValueError(f"failure label {self.label!r} not in {FAILURE_LABELS}")
            if self.holds is not False:
                raise ValueError("only a failure (holds=False) carries a failure label")
            if self.label == "robust" and self.scope != "positive-measure" and not self.numbers.get("certificate"):
                raise ValueError("a robust failure is a failure on a set of positive measure: a certified box or an "
                                 "identity (failing_box, identical_failure) or an instance carrying one")

    @property
    def strength(self) -> str:
        return _KIND_STRENGTH[self.kind]

    def to_json(self) -> JSONObject:
        """The record; a counterexample found on this run and not stored names no file (``"counterexample": null``)
        but says how to store it (``"store_with"``), so no reader looks for a file that does not exist."""
        d = asdict(self)
        d.pop("_token", None)
        if self.kind == "counterexample" and counterexample_file(self) is None and self.counterexample:
            d["counterexample"] = None
            d["store_with"] = store_command(self.counterexample)
        for k in ("label", "cites"):  # only where set (a generic claim's failures and arguments)
            if d[k] is None:
                d.pop(k)
        d["strength"] = self.strength
        return d


def _ev(kind: str, scope: str, holds: bool | None, summary: str, arithmetic: str, regime: str = "all",
        numbers: Numbers | None = None, counterexample: str | None = None, reason: str | None = None,
        label: str | None = None, cites: str | None = None) -> Evidence:
    return Evidence(kind=kind, holds=holds, summary=summary, arithmetic=arithmetic, scope=scope,
                    regime=regime, numbers=dict(numbers or {}), counterexample=counterexample, reason=reason,
                    label=label, cites=cites, _token=_FRAMEWORK)


def counterexample_file(e: Evidence) -> str | None:
    """The file of a counterexample, repository-relative, when it exists; None for a counterexample found on this
    run and not stored yet (or evidence of another kind): a file is named only when there is one."""
    if e.kind != "counterexample" or not e.counterexample:
        return None
    p = Path(e.counterexample)
    return e.counterexample if (p if p.is_absolute() else REPO_ROOT / p).is_file() else None


def store_command(path: str) -> str:
    """How to store the counterexample found on this run whose file would be ``path`` (named by its claim)."""
    return f"collapse-verify verify --claims '{Path(path).stem}' --store"


_STORE_CLAIM = re.compile(r"--claims '([^']+)' --store")


def evidence_from_record(record: JSONObject) -> Evidence:
    """Evidence read back from a ledger this framework wrote (:meth:`Evidence.to_json`): the labels it was given
    when it was computed, validated again (an unknown kind or scope, or a malformed record, raises)."""
    store = record.get("store_with")
    if record.get("kind") == "counterexample" and not record.get("counterexample") and isinstance(store, str):
        m = _STORE_CLAIM.search(store)  # found, not stored when written: where it is (or will be) stored
        if m:
            record = {**record, "counterexample": relative_path(counterexample_path(m.group(1)))}
    names = [f.name for f in fields(Evidence) if f.name != "_token"]
    missing = [n for n in ("kind", "holds", "summary", "arithmetic", "scope") if n not in record]
    if missing:
        raise ValueError(f"not an evidence record: {missing} missing")
    return Evidence(**{n: record[n] for n in names if n in record}, _token=_FRAMEWORK)


def formal_proof(lemma: str, closed: bool | None, *, statement: str, concrete: bool = False,
                 regime: str = "all", reason: str | None = None, numbers: Numbers | None = None,
                 coq: str | None = None) -> Evidence:
    """A lemma checked by Coq's kernel: holds only if ``closed`` is True, which its callers pass as "the axiom policy
    accepted it" (Coq reported it closed under the global context, or resting only on the allowed classical axioms:
    :data:`theorems.formal.runner.ALLOWED_AXIOMS`)."""
    holds = True if closed is True else None
    why = None if holds else (reason or "Coq did not report the lemma closed under the global context")
    return _ev("formal", "complete" if concrete else "general", holds,
               f"Coq lemma {lemma}: {statement}" + ("" if holds else f" — not accepted: {why}"),
               f"Coq {coq or '(version unknown)'} + MathComp kernel", regime, numbers, reason=why)


def has_symbolic_size(expr: object) -> bool | None:
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


def symbolic_identity(lhs: Any, rhs: Any, what: str, *, regime: str = "all") -> Evidence:
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


def _refuting_instance(diff: Any) -> str | None:
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
        values: dict[sympy.Symbol, Any] = {s: 3 if equal else 3 + i for i, s in enumerate(sizes)}
        for s in others:
            pool = [rng.randint(2, 9), -rng.randint(2, 9), sympy.Rational(1, rng.randint(2, 9)), 0]
            fit = [v for v in pool if check_assumptions(sympy.Integer(v) if isinstance(v, int) else v, s) is True]
            if not fit:
                return None
            values[s] = fit[0]
        try:
            e = diff.xreplace({k: sympy.sympify(v) for k, v in values.items()})
            explicit = {m: sympy.ImmutableMatrix(*m.shape, lambda i, j, rng=rng: rng.randint(-5, 5))
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
    check: Callable[[], object]  # True / False / None (or a sympy / numpy boolean): read by tri()


#: a proof step as declared: a :class:`ProofStep` or a plain ``(latex, words, kind, check)`` tuple
StepLike = tuple[str, str, str, Callable[[], object]]


def _plain(v: object) -> bool:
    """Data whose ``repr`` names it completely (what a proof step's check may close over and still be stored)."""
    if v is None or isinstance(v, (bool, int, float, complex, str, bytes)):
        return True
    if isinstance(v, (tuple, list, frozenset)):
        return all(_plain(x) for x in v)
    if isinstance(v, sympy.Basic):  # a sympy expression's repr is the whole expression
        return True
    return isinstance(v, sympy.MatrixBase) and v.shape[0] * v.shape[1] <= 10_000


def step_outcome(step: StepLike, *, with_source: bool = False) -> Any:
    """A proof step's check, three-valued (:func:`tri`), computed once per source: kept on disk under the key of
    the source, the step's words and formula and its check's code (:func:`theorems.framework.memo.memo`), so the
    book's pages read the outcomes ``verify`` computed. Only a plain function whose defaults and closure values are
    plain data (numbers, strings, sympy objects, tuples of them) is stored: a bound method, a ``partial``, a closure
    over a function or an array is checked every time. The key names those values by ``sympy.srepr``, which keeps a
    symbol's assumptions (``repr`` prints ``x`` for both ``Symbol('x')`` and ``Symbol('x', positive=True)``, so two
    such steps shared one outcome). ``with_source``: ``(outcome, read_from_store)``."""
    s = ProofStep(*step)
    code = getattr(s.check, "__code__", None)
    bound = [*(getattr(s.check, "__defaults__", None) or ())]
    cells = getattr(s.check, "__closure__", None) or ()
    plain = code is not None and getattr(s.check, "__module__", None) is not None \
        and not hasattr(s.check, "__self__") and all(_plain(v) for v in bound)
    values = []
    for cell in cells:
        try:
            values.append(cell.cell_contents)
        except ValueError:  # an empty cell (a name bound later)
            plain = False
    plain = plain and all(_plain(v) for v in values)
    if not plain or code is None:
        note_computed("proof-step")
        out = tri(s.check())
        return (out, False) if with_source else out
    where = [s.check.__module__, s.check.__qualname__, code.co_filename.rsplit("/", 1)[-1], code.co_firstlineno,
             [sympy.srepr(v) for v in bound], [sympy.srepr(v) for v in values]]  # srepr: assumptions too
    out = memo("proof-step", {"latex": s.latex, "words": s.words, "kind": s.kind, "check": where},
               lambda: tri(s.check()))
    prov = memo_provenance("proof-step") or {}
    return (out, bool(prov.get("reused"))) if with_source else out


def derivation(steps: Sequence[StepLike], what: str, *, uses: Sequence[int] | None = None, regime: str = "all",
               arithmetic: str = "sympy symbolic / QQ", concludes: bool = True) -> Evidence:
    """Run proof steps (three-valued): all True -> holds; a False step -> holds False; else None.

    ``concludes=False`` for a derivation of the statement's *negation* (it then holds False when
    every step checks). A derivation is evidence, not a proof: scope ``derivation`` always.
    """
    chosen = [ProofStep(*s) for s in (steps if uses is None else [steps[i] for i in uses])]
    idx = list(range(len(steps))) if uses is None else list(uses)
    results = [step_outcome(s) for s in chosen]
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
                    drawn: int | None = None, numbers: Numbers | None = None, first_failure: str | None = None,
                    label: str | None = None) -> Evidence:
    """Finitely many exact instances: ``met`` met the premise, ``held`` of them satisfied the statement.

    ``label`` labels the failures of a generic claim (``persistent``: perturbing them did not restore the
    conclusion); it is dropped when every instance held."""
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
               + ("" if ok or not first_failure else f"; first failure: {first_failure}")
               + ("" if ok or not label else f" ({label}: {_LABEL_WORDS[label]})"),
               arithmetic, regime, nums, label=None if ok else label)


def exact_complete(what: str, holds: bool | None, *, arithmetic: str, regime: str = "all",
                   numbers: Numbers | None = None, reason: str | None = None) -> Evidence:
    """An exact computation that settles a concrete statement, or an exact witness of an existential one."""
    return _ev("exact", "complete", tri(holds), what, arithmetic, regime, numbers, reason=reason)


def interval_witness(what: str, holds: bool | None, *, arithmetic: str, regime: str = "all",
                     numbers: Numbers | None = None, reason: str | None = None) -> Evidence:
    """Interval enclosures that settle a concrete inequality or certify an existential witness.

    Pass ``holds=None`` when the enclosures overlap the threshold (consistency, not certification).
    """
    return _ev("interval-certified", "complete", tri(holds), what, arithmetic, regime, numbers, reason=reason)


def interval_instances(what: str, holds: bool | None, *, arithmetic: str, regime: str = "all",
                       numbers: Numbers | None = None, reason: str | None = None) -> Evidence:
    """Certified enclosures on finitely many instances of a universal statement (support, not proof).

    ``holds=False`` is a certified failure on an instance: a rigorous counterexample.
    """
    return _ev("interval-certified", "instances", tri(holds), what, arithmetic, regime, numbers, reason=reason)


def float_statistic(what: str, holds: bool | None, *, arithmetic: str, regime: str = "all",
                    numbers: Numbers | None = None, reason: str | None = None) -> Evidence:
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



def found_counterexample(what: str, *, path: Path, arithmetic: str, regime: str = "all",
                         numbers: Numbers | None = None, label: str | None = None) -> Evidence:
    """An exact counterexample found and re-checked on this run, whose stored form is (or will be) ``path``.

    Gives the same evidence :func:`stored_counterexample` gives once the instance is stored there
    (``collapse-verify verify --store``), so a run never depends on whether the file was written.
    """
    return _ev("counterexample", "complete", False, what, arithmetic, regime, numbers,
               counterexample=relative_path(path), label=label)


def stored_counterexample(claim_id: str, recheck: Callable[[JSONObject], tuple[str | None, str, Numbers | None]], *,
                          name: str = "", arithmetic: str, label: Callable[[JSONObject], tuple[str, str]] | None = None
                          ) -> Evidence:
    """Load a stored counterexample and re-check it exactly from the file's data, on every run.

    ``recheck(instance)`` returns ``(why, regime, numbers)``; ``why`` is None when the stored data no
    longer refutes the claim, which raises :class:`CounterexampleError` (the run fails loudly; a
    counterexample never quietly disappears from the evidence).

    ``label(instance)`` (a generic claim's stored failure) returns ``(label, words)``: how the failure is
    labelled (:data:`FAILURE_LABELS`) and why (the box or identity, or the perturbation probe); a ``robust``
    label needs ``numbers["certificate"]`` from ``recheck`` (the box or the identity, re-checked).
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
    note_counterexample(rel)  # the run's result lists it (ClaimResult.referenced_counterexamples)
    tag = None
    if label is not None:
        tag, words = label(data)
        why = f"{why} [{tag}: {words}]"
        if tag == "robust":
            numbers = {**(numbers or {}), "certificate": words}
    return _ev("counterexample", "complete", False, why, arithmetic, regime, numbers, counterexample=rel, label=tag)




# --- generic claims: "for almost every point of a stated parameter space" ---------------------------------

_LABEL_WORDS = {
    "robust": "the failure holds on a set of positive measure",
    "persistent": "seeded perturbations did not restore the conclusion, but no box is certified",
    "exceptional-point": "seeded perturbations restore the conclusion: a point of the exceptional null set",
}


def genericity_argument(what: str, *, vanishing: Evidence, witness: Evidence,
                        null_set: str | Evidence = "polynomial", regime: str = "all",
                        numbers: Numbers | None = None) -> Evidence:
    """A genericity argument for a generic claim: failure forces a function P to vanish, and P != 0 at a witness.

    ``vanishing``: formal or exact evidence (scope ``general``, or a ``derivation`` citing e.g. the determinantal
    characterisation of rank) that the failure set lies in the zero set of P; ``witness``: formal, exact or
    interval evidence that P != 0 at one point (so P is not identically zero); ``null_set``: ``"polynomial"``
    or ``"analytic"`` (the cited lemma of :data:`NULL_SET_LEMMAS`), or a closed :func:`formal_proof` of it.

    The argument is a proof (scope ``general``) only when the vanishing step is general, the witness exact or
    formal, and the null-set lemma formal; until then (MathComp-Analysis 0.6.0 has no such lemma) it is scope
    ``generic`` — it supports, with the strength of its witness (exact, or interval for a certified analytic
    witness), and names the lemma it cites. It holds only if both steps hold; otherwise it is undecided.
    """
    for e, role in ((vanishing, "vanishing"), (witness, "witness")):
        if not isinstance(e, Evidence):
            raise TypeError(f"the {role} step of a genericity argument is Evidence, not {type(e).__name__}")
    if vanishing.kind not in ("formal", "exact") or vanishing.scope not in ("general", "derivation"):
        raise ValueError("the vanishing step (failure forces P = 0) is formal or exact evidence of scope general or "
                         f"derivation, not {vanishing.kind}/{vanishing.scope}")
    if witness.kind not in ("formal", "exact", "interval-certified") or witness.scope not in ("complete", "general"):
        raise ValueError("the witness (P != 0 at one point) is formal, exact or interval evidence of scope complete, "
                         f"not {witness.kind}/{witness.scope}")
    if isinstance(null_set, Evidence):
        if null_set.kind != "formal":
            raise ValueError("the null-set lemma is cited by name or proved formally")
        lemma, formal_null = null_set.summary, null_set.holds is True
        analytic = "analytic" in null_set.summary
    elif null_set in NULL_SET_LEMMAS:
        lemma, formal_null, analytic = NULL_SET_LEMMAS[null_set], False, null_set == "analytic"
    else:
        raise ValueError(f"null_set is {sorted(NULL_SET_LEMMAS)} or a formal proof, not {null_set!r}")
    steps_hold = vanishing.holds is True and witness.holds is True
    interval = witness.kind == "interval-certified"
    proves = steps_hold and formal_null and vanishing.scope == "general" and not interval
    kind = "formal" if proves and vanishing.kind == witness.kind == "formal" else (
        "interval-certified" if interval else "exact")
    why = None
    if vanishing.holds is not True:
        why = f"the vanishing step did not check: {vanishing.reason or vanishing.summary}"
    elif witness.holds is not True:
        why = f"the witness does not show P != 0: {witness.reason or witness.summary}"
    arith = f"{vanishing.arithmetic}; witness: {witness.arithmetic}"
    summary = (f"{what}: failure forces P = 0 ({vanishing.summary}); P != 0 at a witness ({witness.summary}); "
               f"so the failure set is null: {lemma}" + ("" if formal_null else " [cited, not formal]"))
    nums = {"vanishing": vanishing.summary, "witness": witness.summary, "null_set_lemma": lemma,
            "null_set_formal": formal_null, "P": "real-analytic" if analytic else "polynomial", **(numbers or {})}
    return _ev(kind, "general" if proves else "generic", True if steps_hold else None, summary, arith, regime, nums,
               reason=why, cites=None if formal_null else lemma)


def failing_box(what: str, *, certified: bool | None, box: str, arithmetic: str, exact: bool, regime: str = "all",
                numbers: Numbers | None = None, reason: str | None = None) -> Evidence:
    """A certified failure on a box of parameters: at every point of ``box`` the statement fails.

    For an open failure condition (a strict inequality, a non-zero minor): the enclosures of the failure's
    witness function over the whole box exclude the boundary value. ``exact``: the enclosures were computed in
    exact rational interval arithmetic (a polynomial, or rational bounds on 2^t): kind ``exact``; otherwise
    (mpmath ``iv``, arb): ``interval-certified``. A box has positive Lebesgue measure, so this decides a generic
    claim (label ``robust``). ``certified=None``: the enclosure did not settle it (undecided).
    """
    ok = tri(certified)
    holds = False if ok is True else None
    return _ev("exact" if exact else "interval-certified", "positive-measure", holds,
               f"{what}: fails at every point of the box {box}" if holds is False else f"{what}: box {box} not "
               "certified", arithmetic, regime, {"box": box, **(numbers or {})},
               reason=None if holds is False else (reason or "the enclosure over the box did not settle the failure"),
               label="robust" if holds is False else None)


def identical_failure(what: str, *, identity_holds: bool | None, arithmetic: str = "sympy symbolic",
                      regime: str = "all", numbers: Numbers | None = None) -> Evidence:
    """A failure that holds identically on an open set of the parameter space: an exact symbolic identity.

    E.g. every (r+1)-minor of F(X) vanishes as a polynomial in the parameters of the rank-r stratum, so the
    rank never rises there. ``identity_holds``: the identity checked (True), refuted (False, no evidence of
    failure) or undecided (None). Kind ``exact``, scope ``positive-measure``, label ``robust``.
    """
    ok = tri(identity_holds)
    holds = False if ok is True else None
    return _ev("exact", "positive-measure", holds,
               f"{what}: the failure holds identically (symbolic identity)" if holds is False else
               f"{what}: the identity did not check", arithmetic, regime, numbers,
               reason=None if holds is False else "the symbolic identity did not reduce to zero",
               label="robust" if holds is False else None)


def perturbation_probe(what: str, *, point: str, probes: int, restored: int, failed: int, seed: int,
                       scale: str, arithmetic: str, regime: str = "all", certified: bool = False) -> Evidence:
    """A failing instance of a generic claim, re-decided at ``probes`` seeded random perturbations of its generic
    variables (``restored`` of them satisfy the conclusion, ``failed`` fail, the rest were undecided or left the
    premise). Every decided probe restored the conclusion (at least one): an ``exceptional-point``; otherwise
    ``persistent``. Either way a failure at one point: it never decides a generic claim (only a box or an
    identity does); a persistent one is evidence against.

    Kind ``exact`` (re-decided exactly) or ``interval-certified`` (``certified``: the restored conclusion is
    certified by interval enclosures), scope ``instances``.
    """
    if min(probes, restored, failed) < 0 or restored + failed > probes:
        raise ValueError("restored + failed <= probes, all non-negative")
    label = "exceptional-point" if restored >= 1 and failed == 0 and restored == probes else "persistent"
    words = (f"exceptional set met at {point}: the conclusion fails there, and every one of {probes} seeded random "
             f"perturbations (scale {scale}, seed {seed}) restores it" if label == "exceptional-point" else
             f"persistent failure at {point}: {failed} of {probes} seeded random perturbations (scale {scale}, seed "
             f"{seed}) still fail, {restored} restore it, {probes - restored - failed} undecided or off the premise; "
             "no box is certified")
    return _ev("interval-certified" if certified else "exact", "instances", False, f"{what}: {words}", arithmetic,
               regime, {"probes": probes, "restored": restored, "failed": failed, "seed": seed, "scale": scale},
               label=label)


def label_by_boxes(evidence: list[Evidence]) -> list[Evidence]:
    """A study's evidence with each failing aggregate of exact instances labelled ``robust`` by the certified box
    (or identity) its regime carries: the studies that use this draw the box around a failure of that aggregate.
    A failing aggregate in a regime without one is left unlabelled (the ledger test refuses it)."""
    boxes = {e.regime: e for e in evidence if e.scope == "positive-measure" and e.holds is False}
    return [labelled_failure(e, boxes[e.regime]) if e.holds is False and e.kind == "exact" and e.scope == "instances"
            and e.label is None and e.regime in boxes else e for e in evidence]


def labelled_failure(e: Evidence, certificate: Evidence) -> Evidence:
    """An exact failing instance (or counterexample) labelled ``robust`` by a positive-measure certificate
    (:func:`failing_box` or :func:`identical_failure` that fails) around it."""
    if e.holds is not False:
        raise ValueError("only a failure is labelled")
    if certificate.scope != "positive-measure" or certificate.holds is not False:
        raise ValueError("a robust label needs a certified box or identity (a positive-measure failure)")
    return _ev(e.kind, e.scope, False, f"{e.summary} [robust: {certificate.summary}]", e.arithmetic, e.regime,
               {**e.numbers, "certificate": certificate.summary}, counterexample=e.counterexample, label="robust")
