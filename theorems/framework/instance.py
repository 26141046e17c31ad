r"""One claim on one instance: the declared hypotheses and conclusion of a claim (or of one of its readings)
evaluated on a single instance, in the vocabulary ``show`` and ``verify --json`` use.

A claim declared on instances keeps its declaration (:class:`Declaration`: the hypotheses ``{name: predicate}``,
the conclusion ``(words, predicate)``, the Pool or builder) on ``Claim.decl`` / ``Reading.decl``: the ledger
derives its checks from it, and :func:`decide_on_instance` evaluates *the same predicates* on one instance. An
:class:`InstanceForm` says how a user's input becomes an instance: declared beside a Pool's ``decode``
(``Pool(instance_from=...)``) or a builder (``claim(instance_from=...)``), or registered by the numeric layer
by claim id in its part of the suite (:class:`~theorems.framework.suite.SuitePart`: interval-based predicates, like
the EVIDENCE tables), so that arrows still point down.

Truth words (fixed; the mapping to ``verify --json`` evidence ``holds`` is true / false / null):
:data:`TRUTH` ``{True: "holds", False: "fails", None: "undecided"}``. On one instance a reading is
``holds`` (premise met, conclusion holds), ``counterexample`` (premise met, conclusion fails),
``premise-fails`` (which hypothesis), ``undecided`` (with the reason; also an existential reading's instance that is
not a witness: :data:`NOT_A_WITNESS`), or ``exceptional-point`` (a failure of an almost-everywhere claim not shown to
be robust; a failure whose predicate names a positive-measure certificate, :attr:`Decided.robust`, is a
``counterexample``: :data:`ROBUST_FAILURE`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol, Sequence

from .aliases import Builder, Instance, JSONObject, Predicate
from .evidence import tri as _tri

__all__ = ["TRUTH", "TRUTH_VALUE", "ON_THIS_INSTANCE", "SITE_KINDS", "Decided", "RobustSet", "Declaration",
           "InstanceForm", "Undecidable", "not_on_user_input", "form_of",
           "decide", "decide_on_instance",
           "COSTLY", "GENERIC_POINT", "ROBUST_FAILURE", "NOT_A_WITNESS", "NO_FORM", "definition_of", "build_instance",
           "decoded",
           "undecided_reading"]

#: a user's input: a :class:`theorems.exact.reader.UserInput` (Any: the framework does not import the exact layer)
UserInput = Any

#: the truth words of every output (check, show, real-model); verify --json writes the same as true / false / null
TRUTH = {True: "holds", False: "fails", None: "undecided"}
#: a truth word back to the value verify --json writes
TRUTH_VALUE = {v: k for k, v in TRUTH.items()}
#: what one instance says about a reading
ON_THIS_INSTANCE = ("holds", "counterexample", "exceptional-point", "premise-fails", "undecided")
#: the kinds of site of a model a claim's instance form may declare (``InstanceForm(sites=...)``), with the inputs
#: each gives; the numeric layer enumerates them on a checkpoint's forward pass
SITE_KINDS = {
    "layernorm-input": "the input X of a LayerNorm with its gamma and beta (X, gamma, beta)",
    "rmsnorm-input": "the input X of an RMSNorm with its gamma (X, gamma)",
    "output-projection": "a layer's output projection W_O (H d_k x d) split into its H query heads, and the n tokens "
                         "of the input (W_O, heads, n)",
    "head-output": "one head's output Y_h (n x d_k) and its block W_O^h of the output projection (X = Y_h, W_O = "
                   "W_O^h, heads = 1)",
    "attention": "a layer's attention input X and its heads W_Q, W_K, W_V, W_O (X, weights, W_O, heads, n)",
    "residual-update": "a residual update X -> X + Delta of the residual stream (X, Delta)",
}


@dataclass(frozen=True)
class RobustSet:
    """A failure's positive-measure certificate (:attr:`Decided.robust`), naming its set and the measure in which it
    is positive (review s4: "a set of positive measure" alone hides, e.g., that a positive-measure subset of one
    alpha_h slice is a null set of the whole weight space). ``where``: the set (containing the instance);
    ``measure``: the measure under which it is positive, and, when that is a slice's, what the set is in the full
    parameter space; ``why``: the certificate (a symbolic identity, a certified box)."""

    where: str
    measure: str
    why: str

    def __post_init__(self) -> None:
        if not (self.where.strip() and self.measure.strip() and self.why.strip()):
            raise ValueError("a robust failure names its set, its measure and its certificate")

    def words(self) -> str:
        return f"the set is {self.where}; its measure: {self.measure}; certificate: {self.why}"


@dataclass(frozen=True)
class Decided:
    """A predicate's value with the words saying how it was decided (a predicate may return one instead of a
    bare True / False / None; the ledger reads ``value``, ``check`` prints ``how``)."""

    value: bool | None
    how: str = ""
    #: a failure's positive-measure certificate (a symbolic identity or a certified box covering the instance, e.g. a
    #: whole slice of the parameter space), naming its set and measure: a generic reading's failure with one is a
    #: counterexample of it (the verdict model's robust failure), without one an exceptional point (not in the repr)
    robust: RobustSet | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.robust is not None and not isinstance(self.robust, RobustSet):
            raise TypeError("Decided.robust is a RobustSet (its set, its measure, its certificate), not "
                            f"{type(self.robust).__name__}")


class Undecidable(Exception):
    """Raised by an instance adapter when the instance cannot be decided at all (e.g. enclosures that did not close):
    every predicate of the reading is undecided, with this reason."""


@dataclass(frozen=True)
class InstanceForm:
    """How a user's input becomes one instance of a claim (the adapter beside a Pool's ``decode``).

    ``takes`` / ``optional``: input names (``X``, ``gamma``, ``beta``, ``Delta``, ``W_O`` (with ``--heads``),
    ``weights`` (``--weights`` or seeded), ``n``); ``build(user)``: the instance, from a
    :class:`theorems.exact.reader.UserInput`; ``explain(instance, name)``: how the named hypothesis (or
    ``"conclusion"``) was decided on it, in words (optional); ``hints(user, instance)``: labelled float hints
    ``{name: record}`` shown beside exact results (optional); ``save(user, instance)``: the ``instance`` record of a
    stored-counterexample file (default: the inputs taken, as exact strings).

    The numeric layer may also give ``hypotheses`` (``{name: predicate}``) and ``conclusion`` (a predicate) for a
    declaration whose names it decides in interval arithmetic; their names are the declaration's own.
    ``unavailable``: why this claim's instances cannot be read from user input (then it is listed, not checked).
    ``sites``: the kinds of model site whose activations or weights give these inputs (``check CLAIM --model DIR``
    evaluates the claim at every site of those kinds; :data:`SITE_KINDS` names them); none: not checked at sites.
    """

    takes: tuple[str, ...] = ()
    build: Callable[[UserInput], Instance] | None = None
    optional: tuple[str, ...] = ()
    explain: Callable[[Instance, str], str | None] | None = None
    hints: Callable[[UserInput, Instance], JSONObject] | None = None
    save: Callable[[UserInput, Instance], JSONObject] | None = None
    hypotheses: Mapping[str, Predicate] | None = None
    conclusion: Predicate | None = None
    arithmetic: str | None = None
    regime: Callable[[Instance], str] | None = None
    unavailable: str | None = None
    note: str = ""
    sites: tuple[str, ...] = ()

    def inputs(self) -> tuple[str, ...]:
        return tuple(self.takes) + tuple(self.optional)


def decoded(decode: Callable[[JSONObject], Instance], takes: tuple[str, ...], optional: tuple[str, ...] = (),
            **kw: Any) -> InstanceForm:
    """The instance form of a Pool with a ``decode``: the user's inputs, as exact strings under their names (the
    stored-counterexample format, ``user.record(...)``), decoded as a stored file would be. A Pool-based conjecture or
    plug-in gets ``check`` from its ``decode`` this way: ``Pool(..., decode=d, instance_from=decoded(d, ("X",)))``."""
    names = tuple(takes) + tuple(optional)
    return InstanceForm(takes=tuple(takes), optional=tuple(optional),
                        build=lambda user: decode(user.record([k for k in names if k in user.given()])), **kw)


def not_on_user_input(reason: str) -> InstanceForm:
    """An instance form saying why the claim's instances cannot be read from a user's input."""
    return InstanceForm(unavailable=reason)


@dataclass
class Declaration:
    """What a claim or reading was declared with, kept so that one instance can be decided by the same predicates.

    ``names``: the hypothesis names (in order); ``hypotheses``: ``{name: predicate}`` (empty when named only);
    ``conclusion``: ``(words, predicate or None)``; ``pool`` / ``builder``: the instances it is decided on;
    ``instance_from``: a builder's adapter (a Pool carries its own).
    """

    names: tuple[str, ...]
    hypotheses: dict[str, Predicate]
    conclusion: tuple[str, Predicate | None]
    #: a :class:`~theorems.framework.declare.Pool` (Any: declare.py imports this module, not the reverse)
    pool: Any = None
    builder: Builder | None = None
    instance_from: InstanceForm | None = None
    arithmetic: str = ""
    regimes: tuple[str, ...] = ()

    @property
    def form(self) -> InstanceForm | None:
        if self.pool is not None:
            form: InstanceForm | None = getattr(self.pool, "instance_from", None)
            return form
        return self.instance_from


class ClaimLike(Protocol):
    """What this module reads of a :class:`~theorems.framework.records.Claim` (records.py imports this module)."""

    id: str
    hypotheses: Sequence[str]
    conclusion: str


class ReadingLike(Protocol):
    """What this module reads of a :class:`~theorems.framework.records.Reading`."""

    key: str
    statement: str
    decl: Declaration | None


def form_of(claim: ClaimLike, reading: ReadingLike,
            registered: InstanceForm | None) -> tuple[InstanceForm | None, str | None]:
    """(the form a reading's instance is read with, or None; why not, when None). ``registered``: the form a layer of
    the suite gives for this reading (:meth:`Suite.instance_form <theorems.framework.suite.Suite.instance_form>`
    looks it up), which takes precedence over the declaration's own."""
    decl: Declaration | None = getattr(reading, "decl", None)
    if registered is not None:
        if registered.unavailable:
            return None, registered.unavailable
        return registered, None
    off = claim.off_instance_of(reading) if hasattr(claim, "off_instance_of") else None
    if decl is None and off is not None:
        return None, off.words
    if decl is None:
        return None, NO_FORM
    form = decl.form
    if form is None:
        what = "a fixed set of rows" if decl.pool is not None else "instances it draws itself"
        return None, (f"not checkable on your input: this claim is checked on {what}, and no way to read an "
                      "instance from your input is declared for it")
    if form.unavailable:
        return None, form.unavailable
    if decl.conclusion[1] is None and form.conclusion is None:
        return None, "no instance form yet (the conclusion is words only)"
    return form, None


def undecided_reading(claim: Any, r: Any, form: Any, why: str) -> dict[str, Any]:
    """One reading's record on an instance where nothing could be decided (``why``): every hypothesis and the
    conclusion undecided, in the words of ``check`` and of the records at a model's sites."""
    decl = r.decl
    if decl is None:
        names = list(claim.hypotheses) if r.key == "literal" else list(form.hypotheses or ())
        words, arith = (claim.conclusion if r.key == "literal" else "conclusion"), ""
    else:
        names, words, arith = list(decl.names), decl.conclusion[0], decl.arithmetic
    return {"key": r.key, "statement": r.statement,
            "hypotheses": {k: {"value": TRUTH[None], "how": f"undecided: {why}", "definition": k} for k in names},
            "conclusion": {"value": TRUTH[None], "how": f"undecided: {why}", "words": words},
            "on_this_instance": "undecided", "reason": why, "arithmetic": form.arithmetic or arith}


def definition_of(pred: object, name: str) -> str:
    """What a named hypothesis means, from its declaration: the predicate's docstring, else its name."""
    doc = (getattr(pred, "__doc__", None) or "").strip().splitlines()
    if doc and getattr(pred, "__name__", "") != "<lambda>" and not doc[0].startswith(("Built-in", "bool(")):
        return doc[0]
    return name


def _evaluate(pred: Predicate, inst: Instance, explain: Callable[[Instance, str], str | None] | None, name: str,
              strict: bool) -> tuple[bool | None, str, str]:
    """(value, how, robust) of one predicate on the instance (robust: a failure's positive-measure certificate, see
    :class:`Decided`); ``strict``: an exception is an error, else undecided."""
    try:
        got = pred(inst)
    except Undecidable as e:
        return None, f"undecided: {e}", ""
    except Exception as e:
        # a predicate may be undefined where the premise fails (ValueError: the exact layer's BadInput, e.g. a norm
        # of a constant row); where the premise holds any other exception is the suite's error, not the input's
        if strict and not isinstance(e, ValueError):
            raise
        return None, f"undecided: not defined on this instance ({type(e).__name__}: {str(e)[:200]})", ""
    robust = ""
    if isinstance(got, Decided):
        value, how = _tri(got.value), got.how
        robust = got.robust.words() if value is False and got.robust is not None else ""
    else:
        value, how = _tri(got), ""
    if not how and explain is not None:
        how = explain(inst, name) or ""
    return value, how, robust


def _declaration_of_form(claim: ClaimLike, reading: ReadingLike, form: InstanceForm) -> Declaration:
    """The declaration of a statement declared by names only, whose predicates the numeric layer gives by name:
    the names and words are the claim's (headline) or the form's."""
    if form.hypotheses is None or form.conclusion is None:
        raise ValueError(f"{claim.id} reading {reading.key}: declared by names only, so its instance form must give "
                         "the hypotheses and the conclusion as predicates")
    if reading.key == "literal":
        names, words = tuple(claim.hypotheses), claim.conclusion
    else:
        names, words = tuple(form.hypotheses), definition_of(form.conclusion, "conclusion")
    return Declaration(names, {}, (words, None), arithmetic=form.arithmetic or "")


#: why one failing instance of a generic reading is not a counterexample of it (the verdict model's rule)
GENERIC_POINT = ("the reading is generic (it holds for almost every point of its parameter space): one failing point "
                 "is an exceptional point, never a counterexample; only a failure on a set of positive measure (a "
                 "certified box) refutes it")


def _is_generic(claim: object, reading: object) -> bool:
    """The reading's form (its own, else its claim's) is ``generic``."""
    return (getattr(reading, "form", None) or getattr(claim, "form", None)) == "generic"


#: why one failing instance of a generic reading is a counterexample of it when the failure carries a
#: positive-measure certificate (:attr:`Decided.robust`): the verdict model's robust failure
ROBUST_FAILURE = ("the reading is generic, and this failure is not an exceptional point: it holds on a set containing "
                  "this instance that has positive measure in the measure named next (a robust failure, which refutes "
                  "a generic reading in the space that measure is on)")


#: why one instance of an existential reading where the conclusion fails is not a counterexample of it
NOT_A_WITNESS = ("the reading is existential: this instance is not a witness, which is no evidence against it (one "
                 "witness proves an existential statement; no single instance refutes it)")


def _is_existential(claim: object, reading: object) -> bool:
    """The reading's form (its own, else its claim's) is ``existential``."""
    return (getattr(reading, "form", None) or getattr(claim, "form", None)) == "existential"


#: what a reading with neither an instance form nor a declared reason says (a registry test keeps their list from
#: growing: every new reading is decided on instances or says why not)
NO_FORM = "not classified yet: no instance form, and no declared reason why it is not decided on one instance"


#: a predicate's cost at or above which :func:`decide` skips it once a cheaper hypothesis fails
#: (:attr:`theorems.framework.Predicate.COSTLY`)
COSTLY = 10


def cost_on(pred: object, inst: Instance) -> int:
    """What deciding ``pred`` on ``inst`` costs: a :class:`~theorems.framework.Predicate`'s handler's declared cost
    (:meth:`~theorems.framework.Predicate.cost_on`), a plain function's ``cost`` attribute, else 1 (cheap)."""
    on = getattr(pred, "cost_on", None)
    return int(on(inst)) if callable(on) else int(getattr(pred, "cost", 1))


def decide(claim: ClaimLike, reading: ReadingLike, form: InstanceForm, inst: Instance) -> JSONObject:
    """The reading's declared hypotheses and conclusion on one instance, as the ``check --json`` reading record:
    the one evaluation of a statement on an instance (``check`` on a user's input, the claims at a model's sites).

    Each predicate is called on the instance; a :class:`~theorems.framework.Predicate` object dispatches to the
    handler registered for the instance's type (undecided, with the reason, when there is none). Hypotheses whose
    predicate is costly on this instance (:func:`cost_on` ``>= COSTLY``: the predicate's cost, or its handler's for
    the instance's type) are evaluated last, and not at all once a cheaper one fails."""
    decl = reading.decl or _declaration_of_form(claim, reading, form)
    names = tuple(decl.names)
    preds = dict(decl.hypotheses)
    if form.hypotheses is not None:
        if set(form.hypotheses) != set(names):
            raise ValueError(f"{claim.id} reading {reading.key}: the instance form decides hypotheses "
                             f"{sorted(form.hypotheses)}, the declaration names {sorted(names)}")
        preds = dict(form.hypotheses)
    missing = [k for k in names if k not in preds]
    if missing:
        raise ValueError(f"{claim.id} reading {reading.key}: hypotheses {missing} have no predicate on an instance")
    words, conclude = decl.conclusion
    if form.conclusion is not None:
        conclude = form.conclusion
    if conclude is None:  # instance_form() offers no such form; a direct call is the caller's error
        raise ValueError(f"{claim.id} reading {reading.key}: the conclusion has no predicate on an instance")
    hyps: dict[str, dict[str, str]] = {}
    # the cheap hypotheses first: a costly one (a size-limited certified computation) is not run once the premise
    # already fails, so a failed premise is reported before any size or cost refusal
    costly = {k for k in names if cost_on(preds[k], inst) >= COSTLY}
    for k in [k for k in names if k not in costly] + [k for k in names if k in costly]:
        failed_before = [h for h, rec in hyps.items() if rec["value"] == "fails"]
        if k in costly and failed_before:
            hyps[k] = {"value": TRUTH[None], "how": f"not evaluated: the premise already fails ({failed_before[0]})",
                       "definition": definition_of(preds[k], k)}
            continue
        # strict while every earlier hypothesis holds (the ledger evaluates them in order, lazily)
        strict = all(h["value"] == "holds" for h in hyps.values())
        v, how, _ = _evaluate(preds[k], inst, form.explain, k, strict=strict)
        hyps[k] = {"value": TRUTH[v], "how": how, "definition": definition_of(preds[k], k)}
    hyps = {k: hyps[k] for k in names}  # in the declared order
    failed = [k for k in names if hyps[k]["value"] == "fails"]
    open_ = [k for k in names if hyps[k]["value"] == "undecided" and not hyps[k]["how"].startswith("not evaluated")]
    met = not failed and not open_
    robust = ""
    if failed and cost_on(conclude, inst) >= COSTLY:
        cv, chow = None, f"not evaluated: the premise already fails ({failed[0]})"
    else:
        cv, chow, robust = _evaluate(conclude, inst, form.explain, "conclusion", strict=met)
    if failed:
        verdict, reason = "premise-fails", f"{', '.join(failed)} {'fails' if len(failed) == 1 else 'fail'}"
    elif open_:
        verdict, reason = "undecided", f"{', '.join(open_)} undecided"
    elif cv is True:
        verdict, reason = "holds", None
    elif cv is False and _is_generic(claim, reading) and robust:
        verdict, reason = "counterexample", f"{ROBUST_FAILURE}: {robust}"
    elif cv is False and _is_generic(claim, reading):
        verdict, reason = "exceptional-point", GENERIC_POINT
    elif cv is False and _is_existential(claim, reading):
        verdict, reason = "undecided", NOT_A_WITNESS
    elif cv is False:
        verdict, reason = "counterexample", None
    else:
        verdict, reason = "undecided", "the conclusion is undecided"
    return {"key": reading.key, "statement": reading.statement,
            "hypotheses": hyps,
            "conclusion": {"value": TRUTH[cv], "how": chow, "words": words},
            "on_this_instance": verdict, "reason": reason,
            "arithmetic": form.arithmetic or decl.arithmetic, "note": form.note}


def build_instance(form: InstanceForm, user: UserInput) -> tuple[Instance, str | None]:
    """(instance, None), or (None, why it cannot be decided) when the adapter raises :class:`Undecidable`."""
    if form.build is None:  # what calling None raised before, with the reason
        raise TypeError("this instance form has no build(user): its claim is not read from user input")
    try:
        return form.build(user), None
    except Undecidable as e:
        return None, str(e)



#: the earlier name of :func:`decide`
decide_on_instance = decide
