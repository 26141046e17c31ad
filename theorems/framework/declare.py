r"""The one declarative form of a claim: the paper's claims and users' conjectures alike (the public API).

:func:`claim` is the only way a :class:`~theorems.framework.records.Claim` is built (a test scans the sources
for any other); :func:`conjecture` is the same call with a user's defaults. A duplicate id raises
:class:`~theorems.framework.registry.DuplicateClaim`. Where a claim is a predicate on an instance it is data —
``hypotheses={name: predicate}``, a ``conclusion`` predicate, ``instances`` (a builder or a
:class:`Pool`), stored ``counterexamples`` — and the checks are derived from it; explicit ``checks``
carry what is not a predicate on one instance (proofs, derivations, witnesses, studies).

A conjecture in one file (true or false, the suite stays green):

>>> from theorems.conjecture import conjecture
>>> from sympy import Rational
>>> def nonzero(x): return x != 0
>>> c = conjecture(
...     id="USER.square-positive", section="example", quote="squares of non-zero rationals are positive",
...     statement=r"x\neq0\Rightarrow x^2>0",
...     hypotheses={"nonzero": nonzero},
...     conclusion=lambda x: x * x > 0,
...     instances=lambda draw, regime: Rational(draw(-9, 9), draw(1, 9)),
...     regimes=("all",), register_claim=False)
>>> from theorems.framework import run_claim
>>> run_claim(c).verdict
'supported'

What you get from one call
==========================
* a :class:`~theorems.framework.records.Claim` in the registry (shown by ``collapse-verify verify``, ``show`` and
  the book's ledger page) whose evidence is an exact seeded stress per regime (how many drawn
  instances met every hypothesis, and whether the conclusion held on each);
* a counterexample search: an instance meeting every hypothesis and breaking the conclusion is
  **shrunk** by Hypothesis (no example database, derandomized: the same instance on every run and
  machine) towards fewest rows, then fewest columns, then smallest entries, re-checked exactly,
  and reported as a ``counterexample`` with its file under ``theorems/counterexamples/``
  (``collapse-verify verify --store`` writes it; plain ``verify`` never writes into the source tree,
  and its evidence is the same whether the counterexample was just found or read from the file);
  a stored counterexample is re-checked exactly on every run, and one that no longer refutes stops
  the run;
* a Hypothesis strategy (:meth:`Conjecture.strategy`) drawing from the same builder, used by
  ``property_tests/test_registry.py`` (and the test ``collapse-verify new`` writes) to stress
  every conjecture with no test code of its own;
* optional ``proof_steps`` ((LaTeX, words, kind, check) tuples, as in the theorem modules): a
  *derivation* (fixed sizes, spot-checked lemmas), which supports but does not prove.

Hypotheses and the conclusion are predicates on an instance returning True, False or None
(undecided; never turn None into False). ``instances(draw, regime)`` builds an instance from
``draw(lo, hi)`` integers (exact data: use sympy ``Rational``); draw the sizes first (rows, then
columns) so that shrinking makes counterexamples small.
"""
from __future__ import annotations

import dataclasses
import json
import random
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

import numpy as np
import sympy

from .aliases import Builder, Instance, JSONObject, Numbers, Predicate
from .breaking import set_labeller
from .evidence import (
    Evidence,
    StepLike,
    derivation,
    exact_instances,
    found_counterexample,
    not_checkable,
    perturbation_probe,
    stored_counterexample,
)
from .evidence import tri as _tri
from .formal_gap import FormalGap
from .generic import Generic, Notion, probe_failure
from .instance import Decided, Declaration, InstanceForm
from .off_instance import OffInstance
from .predicate import Predicate as PredicateObject
from .records import (
    Check,
    CheckContext,
    Claim,
    Conclusion,
    CounterexampleRef,
    Hypotheses,
    PredicateError,
    Reading,
    stable_seed,
)
from .registry import register
from .run_record import note_found
from .storage import (
    CounterexampleError,
    counterexample_path,
    decode_instance,
    encode_instance,
    load_counterexample,
    plain,
    relative_path,
    typeset,
)

if TYPE_CHECKING:  # annotations only: hypothesis is imported where a conjecture draws (see strategy())
    from hypothesis.strategies import DrawFn, SearchStrategy

__all__ = ["claim", "Pool", "conjecture", "Conjecture", "CONJECTURES", "label_failure"]

#: one instance of a Pool with the family it was drawn from (its label, shown in the evidence)
Labelled = tuple[str, Instance]
#: a Pool row: (regime, family label, instance)
PoolRow = tuple[str, str, Instance]
#: a check derived from a declaration (it returns its evidence as a list)
DerivedCheck = Callable[[CheckContext], list[Evidence]]
#: one line naming an instance
Describe = Callable[[Instance], str]

#: every conjecture made through this API, by claim id
CONJECTURES: dict[str, "Conjecture"] = {}

_ARITH = "exact (as the conjecture's predicates compute it)"


def _decide(pred: Predicate, what: str, x: Instance, describe: Describe | None = None) -> bool | None:
    """A declared predicate on one instance, three-valued; one that raises or returns something other than
    True / False / None is a PredicateError naming the predicate and the instance."""
    try:
        got = pred(x)
        return _tri(got.value if isinstance(got, Decided) else got)
    except PredicateError:
        raise
    except Exception as e:
        raise PredicateError(f"{what} failed on the instance {str((describe or plain)(x))[:300]}: "
                             f"{type(e).__name__}: {e}") from e


def _inexact(x: object, depth: int = 0) -> str | None:
    """What in an instance is a float (so an exact verdict could not rest on it), or None."""

    if depth > 4:
        return None
    if isinstance(x, (float, np.floating, complex, np.complexfloating)):
        return f"the float {x!r}"
    if isinstance(x, np.ndarray):
        if x.dtype.kind in "fc":
            return f"a numpy array of dtype {x.dtype}"
        return next((w for w in (_inexact(v, depth + 1) for v in x.ravel()[:64]) if w), None) if x.dtype == object \
            else None
    if isinstance(x, sympy.MatrixBase):
        return next((f"the sympy Float {v}" for v in x if isinstance(v, sympy.Basic) and v.has(sympy.Float)), None)
    if isinstance(x, sympy.Basic):
        return f"a sympy Float in {x}" if x.has(sympy.Float) else None
    vals: Sequence[object]
    if isinstance(x, dict):
        vals = list(x.values())
    elif isinstance(x, (list, tuple)):
        vals = x
    elif dataclasses.is_dataclass(x) and not isinstance(x, type):
        vals = [getattr(x, f.name) for f in dataclasses.fields(x)]
    else:
        return None
    return next((w for w in (_inexact(v, depth + 1) for v in vals) if w), None)


def _require_exact(x: Instance, owner: str, describe: Describe | None = None) -> None:
    why = _inexact(x)
    if why:
        raise PredicateError(f"{owner}: instances must be exact (int, Fraction, sympy Rational or Matrix); {why} "
                             f"in {str((describe or plain)(x))[:200]} would make a float computation look exact "
                             "(give float evidence through an explicit check with float_statistic)")


def _size_key(inst: Instance) -> tuple[int, int, int, str]:
    """Order for minimal counterexamples: fewest rows, then fewest columns, then smallest entries."""
    if isinstance(inst, sympy.MatrixBase):
        return (inst.rows, inst.cols, sum(abs(v.p) + v.q for v in inst), str(inst))
    return (0, 0, len(str(inst)), str(inst))


@dataclass
class Conjecture:
    claim: Claim
    hypotheses: dict[str, Predicate]
    conclusion: Predicate
    instances: Builder
    regimes: tuple[str, ...]
    samples: int = 40
    search_examples: int = 1000
    #: regimes where the seeded stress met a failure (this run; read by :meth:`counterexample`, the next check of the
    #: same claim, which searches only then)
    failing: list[str] = field(default_factory=list)
    #: regime -> result of the derandomized search (None: nothing found)
    _shrunk: dict[str, Instance | None] = field(default_factory=dict, repr=False)

    def premise(self, inst: Instance) -> bool:
        return all(_decide(p, f"{self.claim.id}: hypothesis {k!r}", inst) is True for k, p in self.hypotheses.items())

    def concludes(self, inst: Instance) -> bool | None:
        return _decide(self.conclusion, f"{self.claim.id}: the conclusion", inst)

    def refutes(self, inst: Instance) -> bool:
        """Every hypothesis holds exactly and the conclusion fails exactly."""
        return self.premise(inst) and self.concludes(inst) is False

    def strategy(self, regime: str | None = None, meeting: bool = False) -> SearchStrategy[Instance]:
        """A Hypothesis strategy drawing instances from the same builder (``meeting``: only instances
        meeting every hypothesis, by rejection)."""
        # lazy: hypothesis costs 0.3-0.7 s to import, and only builder conjectures draw with it
        from hypothesis import assume
        from hypothesis import strategies as st

        @st.composite
        def draw_instance(draw: DrawFn) -> Instance:
            r = regime or draw(st.sampled_from(self.regimes))
            inst = self.instances(lambda lo, hi: draw(st.integers(lo, hi)), r)
            if meeting:
                assume(self.premise(inst))
            return inst
        return draw_instance()

    def shrink(self, regime: str) -> Instance | None:
        """A minimal instance refuting the conjecture in ``regime`` (Hypothesis, derandomized, no database),
        or None if none is found within the search budget. Deterministic, so cached per process."""
        if regime not in self._shrunk:
            self._shrunk[regime] = self._search(regime)
        return self._shrunk[regime]

    def _search(self, regime: str) -> Instance | None:
        # lazy: as in strategy(), only a conjecture that met a failure searches
        from hypothesis import HealthCheck, find, settings
        from hypothesis.errors import NoSuchExample
        try:
            best = find(self.strategy(regime), self.refutes,
                        settings=settings(database=None, derandomize=True, max_examples=self.search_examples,
                                          deadline=None, suppress_health_check=list(HealthCheck)))
        except NoSuchExample:
            return None
        return best

    def _recheck(self, stored: JSONObject, regime: str) -> tuple[str | None, str, Numbers]:
        """``stored``: the file's ``instance`` record, ``{"regimes": {regime: {"value": encoded, ...}}}``."""
        inst = decode_instance(stored["regimes"][regime]["value"])
        if not self.refutes(inst):
            return None, regime, {}
        return self._why(inst), regime, {"shape": list(getattr(inst, "shape", ()))}

    def _why(self, inst: Instance) -> str:
        return f"every hypothesis holds and the conclusion fails on {plain(inst)}"

    def _recheck_in(self, regime: str) -> Callable[[JSONObject], tuple[str | None, str, Numbers]]:
        """The re-check of a stored file's counterexample in ``regime`` (bound now, not when it is called)."""
        return lambda stored: self._recheck(stored, regime)

    def stored_path(self) -> Path:
        return counterexample_path(self.claim.id)

    def _stored_instance(self, data: JSONObject, regime: str) -> Instance:
        """The instance the stored file holds for ``regime``; an entry that cannot be read is a
        :class:`CounterexampleError` naming the file, the regime and the entry (not a bare ``TypeError``)."""
        try:
            return decode_instance(data["regimes"][regime]["value"])
        except (TypeError, ValueError, KeyError, ZeroDivisionError, sympy.SympifyError) as e:
            raise CounterexampleError(f"stored counterexample {relative_path(self.stored_path())}: the instance of "
                                      f"regime {regime!r} cannot be read ({type(e).__name__}: {e})") from None

    def stress(self, ctx: CheckContext) -> list[Evidence]:
        out: list[Evidence] = []
        rng = random.Random(stable_seed(f"{self.claim.id}:stress"))
        self.failing = []
        for regime in self.regimes:
            drawn = met = held = failed = 0
            for _ in range(self.samples):  # the same draws in quick mode: a verdict must not depend on it
                inst = self.instances(rng.randint, regime)
                _require_exact(inst, self.claim.id)
                drawn += 1
                if not self.premise(inst):
                    continue
                met += 1
                c = self.concludes(inst)
                held += c is True
                failed += c is False
            if failed:
                self.failing.append(regime)
            out.append(exact_instances(
                "the conclusion on seeded instances meeting every hypothesis"
                + (f" (undecided, left out: {met - held - failed})" if met - held - failed else ""),
                met=held + failed, held=held, drawn=drawn, regime=regime, arithmetic=_ARITH))
        return out

    def counterexample(self, ctx: CheckContext) -> list[Evidence]:
        """Stored counterexamples, re-checked exactly; else, once the seeded stress has met a failure, the
        minimal counterexample Hypothesis shrinks to in each regime (the same evidence as once stored)."""
        if self.stored_path().exists():
            data, _ = load_counterexample(self.claim.id)
            regimes = sorted((r for r in self.regimes if r in data.get("regimes", {})),
                             key=lambda r: _size_key(self._stored_instance(data, r)))
            if not regimes:
                raise CounterexampleError(f"{relative_path(self.stored_path())} holds no counterexample for the "
                                          f"regimes {self.regimes} of {self.claim.id}")
            return [stored_counterexample(self.claim.id, self._recheck_in(r), arithmetic=_ARITH) for r in regimes]
        if not self.failing:
            return []
        found: dict[str, Instance] = {}
        for regime in self.regimes:  # the claim is false somewhere: look for the smallest instance everywhere
            inst = self.shrink(regime)
            if inst is not None:
                found[regime] = inst
                note_found(self.claim.id, regime, inst)  # the run's result carries it (found_counterexamples)
        return [found_counterexample(self._why(inst), path=self.stored_path(), arithmetic=_ARITH, regime=regime,
                                     numbers={"shape": list(getattr(inst, "shape", ()))})
                for regime, inst in sorted(found.items(), key=lambda ri: _size_key(ri[1]))]

    @staticmethod
    def minimal(found: dict[str, Instance]) -> Instance | None:
        """The smallest of the counterexamples ``found`` (fewest rows, columns, smallest entries), or None."""
        return min(found.values(), key=_size_key) if found else None

    def stored_record(self, found: dict[str, Instance]) -> JSONObject:
        """The file ``verify --store`` writes for the counterexamples ``found`` on a run (regime -> instance: the
        run's ``ClaimResult.found_counterexamples``), marked as a counterexample collapse-verify wrote (the command
        line's write rule recognises the marker)."""
        return {"collapse_verify": {"kind": "counterexample", "version": 1}, "claim": self.claim.id,
                "note": f"minimal counterexamples to {self.claim.id}, found and shrunk by Hypothesis (per regime)",
                "instance": {"regimes": {r: {"value": encode_instance(i), "latex": typeset(i)}
                                         for r, i in found.items()}}}

    def store(self, found: dict[str, Instance], write: Callable[[Path, str], object] | None = None) -> list[Path]:
        """Write the counterexamples ``found`` on a run (``collapse-verify verify --store``), one per regime.

        ``write(path, text)`` writes the file (the command line passes its write rule: atomic, never over a file it
        did not write); without it the file is written directly."""
        if not found:
            return []
        p = self.stored_path()
        p.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(self.stored_record(found), indent=1) + "\n"
        if write is None:
            p.write_text(text)
        else:
            write(p, text)
        return [p]


# --- the one declarative form -----------------------------------------------------------------

@dataclass(frozen=True)
class Pool:
    """A fixed, seeded set of exact instances on which a claim's predicates are decided, per regime.

    ``rows(ctx)``: iterable of ``(regime, label, instance)`` (``label``: the family an instance was drawn
    from, shown in the evidence); ``decode(data)``: the instance a stored counterexample file describes;
    ``describe(instance)``: one line naming it (shape and the quantities the claim talks about);
    ``regime(instance)``: its regime; ``arithmetic``: what decided the predicates; ``instance_from``: how a
    user's input becomes an instance (an :class:`~theorems.framework.instance.InstanceForm`; ``collapse-verify
    check CLAIM`` evaluates the claim's own predicates on it).
    """

    #: None: only the stored counterexamples decide (:meth:`only_stored`)
    rows: Callable[[CheckContext], Iterable[PoolRow]] | None
    arithmetic: str
    decode: Callable[[JSONObject], Instance] | None = None
    describe: Describe = plain
    regime: Callable[[Instance], str] | None = None  # needed to place a stored counterexample in a listed regime
    instance_from: InstanceForm | None = None

    def only_stored(self) -> "Pool":
        """The same instances, but a claim declared on it is decided on its stored counterexamples alone
        (for a statement the seeded instances do not speak to, e.g. one that fails on a null set)."""
        return replace(self, rows=None)

    def decide(self, hypotheses: Hypotheses, conclusion: Conclusion, generic: Generic | None = None) -> DerivedCheck:
        """A further statement decided on these instances, as an explicit check (e.g. the exact
        characterisation a corrected reading rests on beside its own conclusion); ``generic``: the statement
        is generic over that parameter space (its failures are probed and labelled)."""
        names, preds = _hypotheses(hypotheses)
        text, conclude = _named(conclusion)
        if conclude is None:
            raise ValueError("decide() needs a predicate conclusion")
        return _pool_check(self, names, preds, text, conclude, spec=generic)


def _named(conclusion: Conclusion, strict: bool = False) -> tuple[str, Predicate | None]:
    """(text, predicate) of a conclusion given as text, as ``(text, predicate)`` or as a documented function."""
    if conclusion is None or isinstance(conclusion, str):
        return conclusion or "conclusion", None
    if isinstance(conclusion, tuple) and len(conclusion) == 2 and isinstance(conclusion[0], str) \
            and callable(conclusion[1]):
        return conclusion
    if callable(conclusion):
        doc = (getattr(conclusion, "__doc__", None) or "").strip().splitlines()
        name = getattr(conclusion, "__name__", "<lambda>")
        if doc:
            return doc[0], conclusion
        if name != "<lambda>":
            return name, conclusion
        if strict:
            raise ValueError("a conclusion given as a lambda needs its words: conclusion=('words', predicate)")
        return "conclusion", conclusion  # a user's bare lambda: the statement's LaTeX says what it is
    raise TypeError(f"conclusion must be text, a documented predicate or ('text', predicate), not "
                    f"{type(conclusion).__name__}")


def _hypotheses(hypotheses: Hypotheses) -> tuple[tuple[str, ...], dict[str, Predicate]]:
    """(names, predicates) of hypotheses given as ``{name: predicate}`` or as names only."""
    if isinstance(hypotheses, dict):
        bad = [k for k, v in hypotheses.items() if not callable(v)]
        if bad:
            raise TypeError(f"hypotheses {bad} are not predicates (give {{name: predicate}} or names only)")
        return tuple(hypotheses), dict(hypotheses)
    if isinstance(hypotheses, str):
        raise TypeError("hypotheses: give a tuple of names or a {name: predicate} dict, not one string")
    names = tuple(hypotheses)
    if not all(isinstance(h, str) for h in names):
        raise TypeError("hypotheses: give a tuple of names or a {name: predicate} dict")
    return names, {}


def _require_predicates(names: Sequence[str], preds: Mapping[str, Predicate], owner: str) -> None:
    """Hypotheses beside a predicate conclusion must be predicates: named only, they would be shown and never
    checked."""
    if names and not preds:
        raise ValueError(f"{owner}: hypotheses {list(names)} are named but not given as predicates; a predicate "
                         "conclusion is decided on instances meeting {name: predicate} hypotheses")


def _premise(preds: Mapping[str, Predicate], x: Instance, owner: str = "", describe: Describe | None = None) -> bool:
    return all(_decide(p, f"{owner}: hypothesis {k!r}", x, describe) is True for k, p in preds.items())


def _given(names: Sequence[str]) -> str:
    return f" given {', '.join(names)}" if names else ""


def _rows_of(pool: Pool, ctx: CheckContext, owner: str) -> list[PoolRow]:
    if pool.rows is None:  # calling it raised this TypeError before, without the reason
        raise TypeError(f"{owner}: a Pool made by only_stored() has no rows to decide a statement on")
    got = pool.rows(ctx)
    try:
        rows = list(got)
    except TypeError:
        raise PredicateError(f"{owner}: Pool.rows(ctx) must return an iterable of (regime, label, instance) "
                             f"triples, not {type(got).__name__}") from None
    for r in rows:
        if not (isinstance(r, tuple) and len(r) == 3 and isinstance(r[0], str) and isinstance(r[1], str)):
            raise PredicateError(f"{owner}: a Pool row must be a (regime, label, instance) triple with regime and "
                                 f"label strings; got {str(r)[:120]}")
        _require_exact(r[2], owner, pool.describe)
    return rows


#: at most this many probe records are shown per regime (the counts cover every failure)
_SHOWN_PROBES = 5


def _label_failures(spec: Generic, fails: list[Labelled], preds: Mapping[str, Predicate], conclude: Predicate,
                    owner: str, regime: str, describe: Describe, arithmetic: str
                    ) -> tuple[list[Labelled], list[Labelled], list[Evidence]]:
    """A generic statement's failing instances labelled: (persistent, set aside, evidence). A failure the spec's
    ``certify`` covers with a box or identity is robust (the certificate is the evidence); the others are probed
    at seeded perturbations: exceptional points (set aside, shown) or persistent (kept as failures, shown)."""
    persistent: list[Labelled] = []
    aside: list[Labelled] = []
    out: list[Evidence] = []
    shown = boxes = 0
    for k, (lab, x) in enumerate(fails):
        point = f"{lab} {describe(x)}".strip()
        cert = spec.certify(x) if spec.certify is not None else None
        if cert is not None:
            if not isinstance(cert, Evidence) or cert.scope != "positive-measure":
                raise PredicateError(f"{owner}: Generic.certify must return a failing_box or identical_failure "
                                     f"(positive-measure evidence) or None, not {cert!r}")
            if cert.holds is False:
                aside.append((lab, x))
                boxes += 1
                if boxes <= _SHOWN_PROBES:  # the counts of the instances check cover the rest
                    out.append(cert)
                continue
        seed = stable_seed(f"{owner}:probe:{regime}:{k}")
        pr = probe_failure(spec, x, lambda y: _premise(preds, y, owner, describe),
                           lambda y: _decide(conclude, f"{owner}: the conclusion (probe)", y, describe), seed)
        if pr.label == "exceptional-point":
            aside.append((lab, x))
        else:
            persistent.append((lab, x))
        if pr.label == "exceptional-point" or shown < _SHOWN_PROBES:
            shown += pr.label != "exceptional-point"
            out.append(perturbation_probe(
                owner, point=point[:400], probes=pr.probes, restored=pr.restored, failed=pr.failed, seed=pr.seed,
                scale=str(spec.scale), regime=regime, certified=spec.certified,
                arithmetic=arithmetic + (f" (probes: {spec.probe_arithmetic})" if spec.probe_arithmetic else
                                         " (probes: certified enclosures)" if spec.certified else "")))
    if boxes > _SHOWN_PROBES:
        first = next(e for e in out if e.scope == "positive-measure")
        first.summary += f" [{boxes} failures certified on boxes or identities; the first {_SHOWN_PROBES} shown]"
    return persistent, aside, out


set_labeller(_label_failures)  # the dropped-hypothesis table labels a generic statement's failures the same way


def label_failure(spec: Generic, x: Instance, hypotheses: Mapping[str, Predicate], conclusion: Predicate,
                  owner: str = "", describe: Describe = plain, arithmetic: str = "exact") -> tuple[str, Evidence]:
    """How one failing instance of a generic statement is labelled — ``robust`` (its box or identity),
    ``exceptional-point`` or ``persistent`` (the seeded perturbation probe) — with the evidence that says so: what
    ``collapse-verify check`` reports for a user's instance of a generic claim (``on_this_instance``)."""
    _, aside, out = _label_failures(spec, [("", x)], dict(hypotheses), conclusion, owner or "check", "all", describe,
                                    arithmetic)
    e = out[0]
    if e.scope == "positive-measure":
        return "robust", e
    assert e.label is not None  # otherwise a perturbation probe, which always labels the failure
    return e.label, e


def _pool_check(pool: Pool, names: Sequence[str], preds: Mapping[str, Predicate], text: str, conclude: Predicate,
                owner: str = "", spec: Generic | None = None) -> DerivedCheck:
    """The derived check: per regime, how many pool instances meet every hypothesis and how many of
    those satisfy the conclusion (three-valued: an undecided conclusion is left out and said). For a generic
    statement (``spec``) each failure is labelled: robust (a certified box or identity), an exceptional point
    (set aside, shown) or persistent (a failure, evidence against)."""
    def check(ctx: CheckContext) -> list[Evidence]:
        by: dict[str, list[Labelled]] = {}
        for regime, label, x in _rows_of(pool, ctx, owner):
            by.setdefault(regime, []).append((label, x))
        out: list[Evidence] = []
        for regime, rows in by.items():
            met = [(lab, x) for lab, x in rows if _premise(preds, x, owner, pool.describe)]
            val = [(lab, x, _decide(conclude, f"{owner}: the conclusion", x, pool.describe)) for lab, x in met]
            fails = [(lab, x) for lab, x, v in val if v is False]
            undecided = sum(v is None for _, _, v in val)
            labels = sorted({lab for lab, _ in met if lab})
            extra: list[Evidence] = []
            aside: list[Labelled] = []
            if spec is not None and fails:
                fails, aside, extra = _label_failures(spec, fails, preds, conclude, owner, regime, pool.describe,
                                                      pool.arithmetic)
            counted = len(met) - undecided - len(aside)
            if counted > 0 or not aside:
                out.append(exact_instances(
                    f"{text}{_given(names)}"
                    + (f" (families: {', '.join(labels) or 'none'})" if any(lab for lab, _ in rows) else "")
                    + (f" (undecided, left out: {undecided})" if undecided else "")
                    + (f" ({len(aside)} failure(s) set aside as exceptional points or robust failures; the first "
                       f"{_SHOWN_PROBES} of each kind shown below)" if aside else ""),
                    met=counted, held=counted - len(fails), drawn=len(rows), regime=regime,
                    arithmetic=pool.arithmetic,
                    first_failure=(f"{fails[0][0]} {pool.describe(fails[0][1])}".strip() if fails else None),
                    label="persistent" if spec is not None and fails else None,
                    numbers={"set_aside": len(aside)} if aside else None))
            out.extend(extra)
        return out
    return check


def _stored_check(pool: Pool, ref: CounterexampleRef, names: Sequence[str], preds: Mapping[str, Predicate],
                  text: str, conclude: Predicate, owner: str = "", spec: Generic | None = None) -> DerivedCheck:
    """The derived re-check of a stored counterexample: it meets every hypothesis and breaks the conclusion.
    A generic statement's stored failure is labelled (robust with its box or identity, shown beside it; else
    probed: exceptional point or persistent)."""
    if isinstance(ref, str):
        cid, name = ref, ""
    elif isinstance(ref, tuple) and len(ref) == 2 and all(isinstance(v, str) for v in ref):
        cid, name = ref
    else:
        raise TypeError(f"{owner}: each stored counterexample is a file id 'CLAIM.ID' or a pair ('CLAIM.ID', "
                        f"'name'), not {ref!r}")
    decode = pool.decode
    if decode is None:
        raise ValueError(f"{owner}: stored counterexample {cid}: the claim's Pool has no decode()")

    def recheck(data: JSONObject) -> tuple[str | None, str, Numbers]:
        x = decode(data)
        _require_exact(x, owner, pool.describe)
        ok = _premise(preds, x, owner, pool.describe) and \
            _decide(conclude, f"{owner}: the conclusion", x, pool.describe) is False
        why = (f"{pool.describe(x)}: every hypothesis ({', '.join(names) or 'none'}) holds and the conclusion "
               f"«{text}» fails") if ok else None
        return why, (pool.regime(x) if pool.regime is not None else "all"), {}

    if spec is None:
        return lambda ctx: [stored_counterexample(cid, recheck, name=name, arithmetic=pool.arithmetic)]

    def generic_check(ctx: CheckContext) -> list[Evidence]:
        found: dict[str, list[Evidence]] = {}

        def label(data: JSONObject) -> tuple[str, str]:
            x = decode(data)
            regime = pool.regime(x) if pool.regime is not None else "all"
            _, aside, extra = _label_failures(spec, [("stored", x)], preds, conclude, f"{owner} [{cid}]", regime,
                                              pool.describe, pool.arithmetic)
            found["extra"] = extra
            cert = next((e for e in extra if e.scope == "positive-measure"), None)
            if cert is not None:
                return "robust", cert.summary
            probe = extra[0]
            assert probe.label is not None  # a perturbation probe always labels the failure
            return probe.label, probe.summary.split(": ", 1)[-1]

        e = stored_counterexample(cid, recheck, name=name, arithmetic=pool.arithmetic, label=label)
        return [e, *[x for x in found.get("extra", []) if x.scope == "positive-measure"]]
    return generic_check


def _derived(pool: Pool | None, hypotheses: Hypotheses, conclusion: Conclusion,
             counterexamples: Sequence[CounterexampleRef], owner: str, regimes: Sequence[str] = ("all",),
             spec: Generic | None = None) -> tuple[tuple[str, ...], str, list[DerivedCheck]]:
    """(hypothesis names, conclusion text, derived checks) of one statement."""
    names, preds = _hypotheses(hypotheses)
    if isinstance(counterexamples, str):
        raise TypeError(f"{owner}: counterexamples is a tuple of file ids, e.g. ({counterexamples!r},)")
    text, conclude = _named(conclusion, strict=pool is not None)
    if conclude is not None:
        _require_predicates(names, preds, owner)
    if conclude is None and (preds or counterexamples):
        raise ValueError(f"{owner}: predicates for the hypotheses or stored counterexamples need a predicate "
                         "conclusion")
    if conclude is None:
        return names, text, []
    if pool is None and _objects_only(preds, conclude) and not counterexamples:
        return names, text, []  # predicate objects decided by their handlers on the instances other layers give
    if pool is None:
        raise ValueError(f"{owner}: a predicate conclusion needs instances (a Pool, or a builder "
                         "instances(draw, regime)); without instances, give Predicate objects (theorems.framework."
                         "Predicate), whose handlers other layers register")
    if counterexamples and pool.regime is None and tuple(regimes) != ("all",):
        raise ValueError(f"{owner}: a stored counterexample must be placed in one of the regimes {tuple(regimes)}: "
                         "give the Pool a regime(instance) function")
    checks = [_pool_check(pool, names, preds, text, conclude, owner, spec)] if pool.rows is not None else []
    checks += [_stored_check(pool, ref, names, preds, text, conclude, owner, spec) for ref in counterexamples]
    return names, text, checks


def _declaration(pool: object, hypotheses: Hypotheses, conclusion: Conclusion, regimes: Sequence[str]
                 ) -> Declaration | None:
    """The declaration of a statement decided on a Pool (None when it has no predicate conclusion)."""
    names, preds = _hypotheses(hypotheses)
    text, conclude = _named(conclusion)
    if conclude is not None and pool is None and _objects_only(preds, conclude):
        return Declaration(names, dict(preds), (text, conclude), regimes=tuple(regimes))
    if conclude is None or not isinstance(pool, Pool):
        return None
    return Declaration(names, dict(preds), (text, conclude), pool=pool, arithmetic=pool.arithmetic,
                       regimes=tuple(regimes))


def _objects_only(preds: Mapping[str, Predicate], conclude: Predicate | None) -> bool:
    """Every hypothesis and the conclusion are :class:`~theorems.framework.predicate.Predicate` objects (their
    handlers decide them on whatever instances the suite's layers give; no Pool of the claim's own)."""
    return isinstance(conclude, PredicateObject) and all(isinstance(p, PredicateObject) for p in preds.values())


def claim(*, id: str, statement: str, regimes: Sequence[str] = ("all",), hypotheses: Hypotheses = (),
          conclusion: Conclusion = None, instances: Pool | Builder | None = None, checks: Sequence[Check] = (),
          counterexamples: Sequence[CounterexampleRef] = (), readings: Sequence[Reading] = (),
          corrected: Reading | None = None, section: str = "", quote: str = "", chapter: str = "",
          source: str = "collapse-verify", form: str = "universal", proof_steps: Sequence[StepLike] = (),
          samples: int = 40, search_examples: int = 1000, register_claim: bool = True,
          generic: Generic | None = None, same_as: str | None = None, notion: Notion | None = None,
          depends_on: Sequence[str] = (), instance_from: InstanceForm | None = None,
          placeholder: bool = False, formal_gap: FormalGap | None = None,
          off_instance: OffInstance | None = None, argument: str = "") -> Claim:
    """Declare a claim: the one form for the paper's claims and users' conjectures (see the module docstring).

    * ``hypotheses``: ``{name: predicate}`` on an instance, or names only (when the checks are explicit);
    * ``conclusion``: a predicate (documented, or ``("text", predicate)``), or text (explicit checks);
    * ``instances``: a builder ``instances(draw, regime)`` (seeded stress and a Hypothesis counterexample
      search, shrunk and stored per regime), or a :class:`Pool` of seeded exact instances per regime
      (a per-regime check, plus a re-check of each stored file named in ``counterexamples``);
    * ``checks``: explicit checks (proofs, witnesses, studies), run beside the derived ones;
    * ``readings`` / ``corrected``: :class:`~theorems.framework.records.Reading` s; a reading's own ``hypotheses``,
      ``conclusion`` and ``counterexamples`` are decided on the same instances;
    * ``form="generic"`` with ``generic=Generic(space=..., variables=...)``: "for almost every point of" that
      parameter space; failures on the Pool are probed and labelled (:mod:`theorems.framework.generic`), and
      only a failure on a set of positive measure refutes;
    * ``argument``: which argument the headline's verdict rests on, when the paper's proof and the suite's repair of
      it differ (shown beside the verdict);
    * ``same_as="CLAIM.ID[:reading]"``: the headline states the same statement as that one (they share their
      evidence, hence their verdict); ``notion``: which notion decides a rank or collapse statement.
    * ``quote``: the source's own words, verbatim (``...`` for an omission, ``[label:]`` for a second passage); empty
      for the suite's own framing, which is never given quotation marks (``source`` then says what it stands for);
    * ``depends_on``: the ids of the claims this one rests on (its proof steps, the premise of its inference).
    * ``formal_gap``: why the headline has no Coq proof, when its verdict is supported (exact):
      ``FormalGap(reason, detail)`` with reason one of ``FORMAL_GAP_REASONS`` (readings take their own).
    * ``instance_from``: for a builder, how a user's input becomes an instance (a Pool carries its own).
    * ``off_instance``: why the headline (and each reading without its own) is not decided on one instance:
      ``OffInstance(reason, detail)`` with reason one of ``OFF_INSTANCE_REASONS`` (``check`` prints it).

    The declaration is kept on ``Claim.decl`` and ``Reading.decl`` (:class:`~theorems.framework.instance.Declaration`),
    so ``collapse-verify check`` decides one instance with the predicates the ledger uses.

    * ``placeholder``: the statement and predicates are still the template ``collapse-verify new`` wrote: nothing
      is checked and the claim is not-checkable, "not filled in yet" (the module's ``PLACEHOLDER = True``).

    A second claim with an id already registered raises :class:`~theorems.framework.registry.DuplicateClaim`.
    """
    if isinstance(regimes, str) or not regimes or not all(isinstance(r, str) for r in regimes):
        raise TypeError(f"{id}: regimes is a non-empty tuple of regime names, e.g. ('n<d', 'n=d', 'n>d'), "
                        f"not {regimes!r}")
    keys = ["literal", *(r.key for r in readings), *(["corrected"] if corrected is not None else [])]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        raise ValueError(f"{id}: reading keys {twice} appear twice ('literal' is the headline's key)")
    if isinstance(depends_on, str) or not all(isinstance(x, str) and x for x in depends_on):
        raise TypeError(f"{id}: depends_on is a tuple of claim ids, e.g. ('RN.step1', 'RN.step2'), not {depends_on!r}")
    if id in depends_on:
        raise ValueError(f"{id}: a claim cannot rest on itself")
    pool = instances if isinstance(instances, Pool) else None
    builder = None if isinstance(instances, Pool) else instances
    if generic is not None and not isinstance(generic, Generic):
        raise TypeError(f"{id}: generic= is a Generic(space=..., variables=...), not {type(generic).__name__}")
    if form == "generic" and generic is None:
        raise ValueError(f"{id}: a generic claim states its parameter space (generic=Generic(space=..., "
                         "variables=...))")
    if builder is not None and "generic" in (form, *(r.form for r in (*readings, *([corrected] if corrected else []))
                                                    if r.form)):
        raise ValueError(f"{id}: a generic statement is decided on a Pool (its failures are probed at perturbations "
                         "of the Pool's instances); a builder claim is universal")

    def spec_of(r: Reading | None) -> Generic | None:
        f = form if r is None or r.form is None else r.form
        return ((r.generic if r is not None and r.generic is not None else None) or generic) if f == "generic" \
            else None

    if instance_from is not None and builder is None:
        raise ValueError(f"{id}: instance_from= is a builder's adapter; a Pool carries its own "
                         "(Pool(instance_from=...))")
    if instance_from is not None and not isinstance(instance_from, InstanceForm):
        raise TypeError(f"{id}: instance_from is an InstanceForm, not {type(instance_from).__name__}")
    if builder is not None:  # a user's builder: seeded stress and a Hypothesis counterexample search
        if not callable(builder):
            raise TypeError(f"{id}: instances is a builder instances(draw, regime) or a Pool, not "
                            f"{type(builder).__name__}")
        names, preds = _hypotheses(hypotheses)
        text, conclude = _named(conclusion)
        if conclude is None:
            raise ValueError(f"{id}: a builder instances(draw, regime) needs a predicate conclusion")
        _require_predicates(names, preds, id)
        if counterexamples:
            raise ValueError(f"{id}: a builder claim finds, shrinks and stores its own counterexamples "
                             "(collapse-verify verify --store); counterexamples= names files for a Pool")
        bad = [r.key for r in (*readings, *([corrected] if corrected else []))
               if r.conclusion is not None or r.hypotheses]
        if bad:
            raise ValueError(f"{id}: readings {bad} declare predicates, which are decided on a Pool of instances; "
                             "a builder claim's readings take explicit checks")
        derived: list[DerivedCheck] = []
        decl: Declaration | None = Declaration(names, dict(preds), (text, conclude), builder=builder,
                                               instance_from=instance_from, arithmetic=_ARITH, regimes=tuple(regimes))
    else:
        names, text, derived = _derived(pool, hypotheses, conclusion, counterexamples, id, regimes, spec_of(None))
        decl = _declaration(pool, hypotheses, conclusion, regimes)
    all_checks = [*derived, *checks]

    def build(r: Reading) -> Reading:
        if r.conclusion is None and not r.hypotheses:
            return r
        inst = pool if r.instances is None else r.instances
        regs = regimes if r.regimes is None else r.regimes
        _, _, more = _derived(inst, r.hypotheses, r.conclusion, r.counterexamples, f"{id} reading {r.key}", regs,
                              spec_of(r))
        return replace(r, checks=(*more, *r.checks), hypotheses=(), conclusion=None, counterexamples=(),
                       instances=None, decl=_declaration(inst, r.hypotheses, r.conclusion, regs))

    c = Claim(id=id, section=section, quote=quote, statement=statement, hypotheses=names,
              conclusion=text, regimes=tuple(regimes), checks=all_checks,
              readings=[build(r) for r in readings], corrected=build(corrected) if corrected is not None else None,
              chapter=chapter, source=source,
              form=form, generic=generic, same_as=same_as, notion=notion,
              depends_on=tuple(dict.fromkeys(depends_on)), decl=decl, formal_gap=formal_gap,
              off_instance=off_instance, argument=argument)
    if builder is not None:
        assert conclude is not None  # the builder branch above refused a conclusion in words only
        conj = Conjecture(c, preds, conclude, builder, tuple(regimes), samples, search_examples)
        c.checks = [conj.stress, conj.counterexample, *checks]
    if placeholder:
        why = _placeholder_reason(id, builder or conclusion)
        c.checks = [lambda ctx: [not_checkable(why)]]
    if proof_steps:
        c.checks = [*c.checks, lambda ctx: [derivation(proof_steps, id)]]
    c.proof_steps = tuple(proof_steps)
    if register_claim:
        register(c)  # a duplicate id raises here, before anything else is recorded
        if builder is not None:
            CONJECTURES[id] = conj
    return c


def _placeholder_reason(id: str, owner: object) -> str:
    """Why a claim still holding ``collapse-verify new``'s template is not checked, naming its module's file."""
    mod = sys.modules.get(getattr(owner, "__module__", "") or "")
    where = Path(getattr(mod, "__file__", "") or "").name or "its module"
    return (f"not filled in yet: {where} still holds the placeholder statement and predicates `collapse-verify new` "
            f"wrote; write yours and set PLACEHOLDER = False there, then `collapse-verify verify --claims '{id}'`")


def conjecture(*, id: str, statement: str, hypotheses: Mapping[str, Predicate], conclusion: Conclusion,
               instances: Builder, regimes: Sequence[str] = ("n<d", "n=d", "n>d"), section: str = "user conjecture",
               source: str = "user", **kw: Any) -> Claim:
    """:func:`claim` with a user's defaults (regimes n < d, n = d, n > d; section "user conjecture")."""
    return claim(id=id, statement=statement, hypotheses=hypotheses, conclusion=conclusion, instances=instances,
                 regimes=regimes, section=section, source=source, **kw)
