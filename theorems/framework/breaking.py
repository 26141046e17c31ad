r"""Breaking a theorem: each named hypothesis dropped in turn, searched on the statement's own instances.

For a claim or reading declared with two or more hypotheses ``{name: predicate}``, a predicate conclusion and
instances (a :class:`~theorems.framework.declare.Pool` or a builder ``instances(draw, regime)``), the table
"each hypothesis dropped in turn" answers the question a reader of a theorem asks first: which hypotheses are
needed? For each hypothesis ``h`` the search looks, on the declaration's own instances (the Pool's rows of every
regime under the run's context; a builder's seeded draws, a bounded number per regime), for an instance where every
*other* hypothesis holds, ``h`` fails and the conclusion fails. Per hypothesis the result is

* ``needed``: such an instance was found (the smallest found: fewest entries, then smallest entries), named in the
  record; for a statement of generic form only when the failure is robust (a certified box or identity: the
  statement's :class:`~theorems.framework.generic.Generic` ``certify``), never on one point;
* ``not-needed``: not needed on the search: every instance meeting the others with ``h`` failing kept the
  conclusion (how many met the others, how many of those failed ``h``);
* ``undecided``: with the reason (no instance met the others with ``h`` failing; the conclusion undecided there;
  a generic statement's failure that is an exceptional point, not a set of positive measure).

The table is **not evidence**: it is computed beside the verdict (:attr:`ReadingResult.breaking
<theorems.framework.records.ReadingResult.breaking>`), written by ``verify --json`` per reading, printed by
``show CLAIM`` and rendered in each chapter, and never changes a verdict. A predicate that raises on an instance
where a hypothesis fails is undecided there (a hypothesis may be what makes the others defined).
"""
from __future__ import annotations

import dataclasses
import json
import random
import re
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import sympy

from .aliases import Instance, JSONObject, Predicate
from .evidence import tri as _tri
from .instance import Decided
from .run_record import note_seed
from .storage import decode_instance, encode_instance, relative_path

#: how a generic statement's failures are labelled (declare._label_failures, registered by declare on import: it
#: imports records, which imports this module)
_LABELLER: Callable[..., Any] | None = None


def set_labeller(fn: Callable[..., Any]) -> None:
    """Register the labelling of a generic statement's failures (robust / exceptional point / persistent)."""
    global _LABELLER
    _LABELLER = fn

__all__ = ["RESULTS", "BUILDER_SAMPLES", "Dropped", "Breaking", "breaking_of", "eligible", "unsearched",
           "hypothesis_names", "BREAKING_DIR", "breaking_path", "encode_needed", "decode_needed", "recheck",
           "read_needed", "store_needed"]

#: the results of one dropped hypothesis
RESULTS = ("needed", "not-needed", "undecided")
#: how many instances a builder's seeded search draws per regime (``thorough``: pass more to :func:`breaking_of`)
BUILDER_SAMPLES = 40
#: at most this many failures of a generic statement are labelled (probed, certified) per dropped hypothesis
_LABELLED = 3


@dataclass(frozen=True)
class Dropped:
    """One row of the table: what the search found with ``hypothesis`` dropped."""

    hypothesis: str
    result: str
    #: instances searched, instances meeting every other hypothesis, and of those how many failed ``hypothesis``
    searched: int
    met_others: int
    failed_it: int
    #: the (smallest) instance found, on one line (exact), its family label and regime; None unless found
    instance: str | None = None
    label: str | None = None
    regime: str | None = None
    #: in words: what happens on the instance, or why not needed / undecided
    reason: str = ""
    #: a needed entry's stored counterexample (repository-relative), re-checked on this run; None: not stored
    stored: str | None = None

    def __post_init__(self) -> None:
        if self.result not in RESULTS:
            raise ValueError(f"a dropped hypothesis is {' / '.join(RESULTS)}, not {self.result!r}")

    def to_json(self) -> JSONObject:
        return {"hypothesis": self.hypothesis, "result": self.result, "searched": self.searched,
                "met_others": self.met_others, "failed_it": self.failed_it, "instance": self.instance,
                "label": self.label, "regime": self.regime, "reason": self.reason, "stored": self.stored}

    @classmethod
    def from_json(cls, d: JSONObject) -> "Dropped":
        return cls(d["hypothesis"], d["result"], int(d["searched"]), int(d["met_others"]), int(d["failed_it"]),
                   d.get("instance"), d.get("label"), d.get("regime"), d.get("reason") or "", d.get("stored"))


@dataclass(frozen=True)
class Breaking:
    """The table of a reading: ``search`` says on what (a Pool under the run's context, a builder's seeded draws)."""

    search: str
    dropped: tuple[Dropped, ...]
    #: how long the search took (not compared: a re-run finds the same table in another time)
    seconds: float = field(default=0.0, compare=False)

    def result(self, hypothesis: str) -> Dropped:
        for d in self.dropped:
            if d.hypothesis == hypothesis:
                return d
        raise KeyError(hypothesis)

    @property
    def searched(self) -> bool:
        """False for a table that could not search (:func:`unsearched`): every row undecided, the reason in
        ``search``."""
        return not self.search.startswith("no search: ")

    def redundant(self) -> list[str]:
        """The hypotheses not needed on the search."""
        return [d.hypothesis for d in self.dropped if d.result == "not-needed"]

    def to_json(self) -> JSONObject:
        return {"search": self.search, "not_evidence": True, "dropped": [d.to_json() for d in self.dropped],
                "seconds": round(self.seconds, 3)}

    @classmethod
    def from_json(cls, d: JSONObject | None) -> "Breaking | None":
        if d is None:
            return None
        return cls(d["search"], tuple(Dropped.from_json(x) for x in d["dropped"]), float(d.get("seconds") or 0.0))


def eligible(decl: Any) -> bool:
    """A declaration the table is made for: two or more named hypotheses with predicates, a predicate conclusion,
    and instances (a Pool with rows, or a builder)."""
    if decl is None or len(decl.names) < 2 or not decl.hypotheses or decl.conclusion[1] is None:
        return False
    if any(k not in decl.hypotheses for k in decl.names):
        return False
    return (decl.pool is not None and decl.pool.rows is not None) or decl.builder is not None


def _value(pred: Predicate, x: Instance) -> bool | None:
    """A predicate on one instance, three-valued; an exception is undecided (the search never errs a claim)."""
    try:
        got = pred(x)
        return _tri(got.value if isinstance(got, Decided) else got)
    except Exception:
        return None


def _matrix(x: Instance) -> Any:
    for obj in (x, getattr(x, "inst", None)):
        if isinstance(obj, sympy.MatrixBase):
            return obj
        m = getattr(obj, "X", None) if obj is not None else None
        if isinstance(m, sympy.MatrixBase):
            return m
    return None


def size_key(x: Instance) -> tuple[int, int, int, int, str]:
    """Smallest first: fewest entries, rows, columns, then the smallest entries (sum of |numerator| + denominator)."""
    m = _matrix(x)
    if m is None:
        return (1 << 30, 0, 0, len(str(x)), str(x))
    mag = sum(abs(sympy.Rational(v).p) + sympy.Rational(v).q for v in m if v.is_Rational)
    return (m.rows * m.cols, m.rows, m.cols, mag, str(m.tolist()))


def exact_line(x: Instance) -> str:
    """The instance on one line, exact: its matrix X (and gamma, beta when it has them), else its text."""
    from .storage import plain
    obj = getattr(x, "inst", None) or x
    m = _matrix(x)
    if m is None:
        return plain(x)[:400]
    parts = [f"X = {plain(m)}"]
    for k in ("gamma", "beta"):
        v = getattr(obj, k, None)
        if v is not None:
            parts.append(f"{k} = ({', '.join(str(t) for t in v)})")
    return ", ".join(parts)[:400]


def search_rows(decl: Any, ctx: Any, owner: str, samples: int) -> tuple[list[tuple[str, str, Instance]], str]:
    if decl.pool is not None:
        rows = [r for r in decl.pool.rows(ctx)]
        return rows, (f"the Pool's {len(rows)} seeded exact instances ({'quick' if ctx.quick else 'full'} run), "
                      f"every regime")
    name = f"{owner}:breaking"
    seed = zlib.crc32(name.encode("utf-8"))  # records.stable_seed (records imports this module)
    note_seed(name, seed)
    rng = random.Random(seed)
    rows = []
    for regime in decl.regimes or ("all",):
        for _ in range(samples):
            rows.append((regime, "", decl.builder(rng.randint, regime)))
    return rows, f"the builder's seeded draws ({samples} per regime, {len(rows)} in all)"


def breaking_of(claim: Any, reading: Any, ctx: Any, samples: int = BUILDER_SAMPLES) -> Breaking | None:
    """The table "each hypothesis dropped in turn" of one reading (None when its declaration is not
    :func:`eligible`). ``samples``: a builder's draws per regime (``ctx`` decides a Pool's rows)."""
    decl: Any = getattr(reading, "decl", None)
    if not eligible(decl):
        return unsearched(claim, reading)
    t0 = time.perf_counter()
    owner = f"{claim.id} reading {reading.key}"
    rows, search = search_rows(decl, ctx, owner, samples)
    preds: Mapping[str, Predicate] = decl.hypotheses
    conclude: Predicate = decl.conclusion[1]
    hyp: dict[tuple[int, str], bool | None] = {}
    con: dict[int, bool | None] = {}

    def h(i: int, k: str) -> bool | None:
        if (i, k) not in hyp:
            hyp[i, k] = _value(preds[k], rows[i][2])
        return hyp[i, k]

    def c(i: int) -> bool | None:
        if i not in con:
            con[i] = _value(conclude, rows[i][2])
        return con[i]

    spec = claim.spec_of(reading) if hasattr(claim, "spec_of") else None
    out = [_drop(k, [o for o in decl.names if o != k], rows, h, c, spec, preds, conclude, decl, owner)
           for k in decl.names]
    out = [_with_stored(claim.id, reading.key, decl, d) for d in out]
    return Breaking(search, tuple(out), time.perf_counter() - t0)


def hypothesis_names(claim: Any, reading: Any) -> tuple[str, ...]:
    """The reading's named hypotheses: its declaration's, else the words it (or, for the literal reading, the
    claim) was declared with."""
    decl = getattr(reading, "decl", None)
    if decl is not None and decl.names:
        return tuple(decl.names)
    hyps = getattr(claim, "hypotheses", ()) if reading.key == "literal" else getattr(reading, "hypotheses", ())
    if isinstance(hyps, Mapping):
        return tuple(str(k) for k in hyps)
    if isinstance(hyps, str):
        return (hyps,)
    return tuple(str(k) for k in (hyps or ()))


def unsearched(claim: Any, reading: Any) -> Breaking | None:
    """The table of a reading with two or more named hypotheses that the search cannot break: every hypothesis
    undecided, with why (a reader of the theorem still sees the question asked and why it is open). None for fewer
    than two hypotheses."""
    names = hypothesis_names(claim, reading)
    if len(names) < 2:
        return None
    decl = getattr(reading, "decl", None)
    off = claim.off_instance_of(reading) if hasattr(claim, "off_instance_of") else None
    if decl is None:
        why = ("decided by explicit checks, not by predicates on instances"
               + (f" ({off.words})" if off is not None else "") + ": no instance to search with a hypothesis dropped")
    elif not decl.hypotheses or any(k not in decl.hypotheses for k in decl.names):
        why = "its hypotheses are words, not predicates: nothing decides them on an instance"
    elif decl.conclusion[1] is None:
        why = "its conclusion is words, not a predicate: nothing decides it on an instance"
    else:
        why = ("its instances are not enumerated (decided on its stored counterexamples and explicit checks alone)"
               + (f"; {off.words}" if off is not None else "") + ": nothing to search")
    return Breaking(f"no search: {why}",
                    tuple(Dropped(k, "undecided", 0, 0, 0, reason=f"not searched: {why}") for k in names))


# --- the needed entries' stored counterexamples ------------------------------------------------------------------

#: where the needed entries' minimal instances are stored (one file per claim, reading and dropped hypothesis)
BREAKING_DIR = Path(__file__).resolve().parents[1] / "counterexamples" / "breaking"


def breaking_path(claim_id: str, key: str, hypothesis: str) -> Path:
    """The file of the needed entry (claim, reading, dropped hypothesis): readable words, and a checksum of the
    exact names so that two hypotheses whose words slug alike never share a file."""
    words = re.sub(r"[^A-Za-z0-9.]+", "-", f"{claim_id}--{key}--{hypothesis}").strip("-")[:120]
    tag = zlib.crc32(f"{claim_id}\0{key}\0{hypothesis}".encode("utf-8")) & 0xFFFFFFFF
    return BREAKING_DIR / f"{words}-{tag:08x}.json"


def _fields(x: Instance) -> dict[str, Any]:
    """An instance's exact fields: a dict as it is, a dataclass (or the dataclass behind an analysis, ``.inst``) by
    its fields."""
    obj = getattr(x, "inst", None) if dataclasses.is_dataclass(getattr(x, "inst", None)) else x
    if isinstance(obj, dict):
        return dict(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    raise TypeError(f"cannot store an instance of type {type(x).__name__}: a dict or a dataclass of exact fields")


def _strings(v: Any) -> Any:
    """A field in the stored-counterexample form a Pool's ``decode`` reads: nested lists of exact strings."""
    if isinstance(v, sympy.MatrixBase):
        return [[str(t) for t in v.row(i)] for i in range(v.rows)]
    if isinstance(v, (list, tuple)):
        return [_strings(t) for t in v]
    return str(v)


def encode_needed(decl: Any, x: Instance) -> JSONObject:
    """The instance as stored data: the counterexample-file form when the Pool decodes it (``format``
    ``pool-decode``), else the typed exact form of :func:`~theorems.framework.storage.encode_instance` (``typed``)."""
    fields = _fields(x)
    if decl.pool is not None and decl.pool.decode is not None:
        return {"format": "pool-decode", "instance": {k: _strings(v) for k, v in fields.items()}}
    return {"format": "typed", "instance": encode_instance(fields)}


def decode_needed(decl: Any, data: JSONObject) -> Instance:
    """The instance a stored needed entry describes, built afresh (the Pool's ``decode``, or the typed form)."""
    if data.get("format") == "pool-decode":
        if decl.pool is None or decl.pool.decode is None:
            raise ValueError("stored in the Pool's form, but the declaration has no Pool decode")
        return decl.pool.decode(data["instance"])
    if data.get("format") == "typed":
        return decode_instance(data["instance"])
    raise ValueError(f"unknown stored form {data.get('format')!r}")


def recheck(decl: Any, hypothesis: str, x: Instance) -> str | None:
    """None when, on ``x``, every other hypothesis holds, ``hypothesis`` fails and the conclusion fails (decided
    by the declared predicates); else what went wrong, in words."""
    bad = [o for o in decl.names if o != hypothesis and _value(decl.hypotheses[o], x) is not True]
    if bad:
        return f"the other hypotheses do not all hold ({', '.join(bad)})"
    if _value(decl.hypotheses[hypothesis], x) is not False:
        return f"{hypothesis} does not fail"
    if _value(decl.conclusion[1], x) is not False:
        return "the conclusion does not fail"
    return None


def read_needed(path: Path) -> JSONObject:
    data = json.loads(path.read_text())
    if not isinstance(data, dict):
        raise ValueError(f"{path.name}: not a stored needed entry (not a JSON object)")
    missing = [k for k in ("claim", "reading", "hypothesis", "format", "instance") if k not in data]
    if missing:
        raise ValueError(f"{path.name}: not a stored needed entry ({', '.join(missing)} missing)")
    return data


def store_needed(claim_id: str, key: str, decl: Any, d: Dropped, x: Instance) -> Path:
    """Write the needed entry's instance (re-checked first: a file that would not re-check is never written)."""
    why = recheck(decl, d.hypothesis, x)
    if why is not None:
        raise ValueError(f"{claim_id} reading {key} without {d.hypothesis}: {why}; not stored")
    path = breaking_path(claim_id, key, d.hypothesis)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"claim": claim_id, "reading": key, "hypothesis": d.hypothesis, "regime": d.regime, "label": d.label,
            "what": f"the others hold, {d.hypothesis} fails and the conclusion fails", "line": d.instance,
            **encode_needed(decl, x)}
    path.write_text(json.dumps(data, indent=1) + "\n")
    return path


def _with_stored(claim_id: str, key: str, decl: Any, d: Dropped) -> Dropped:
    """A needed entry with its stored file re-checked on this run (its path when it re-checks; the reason says so
    when it does not, or when none is stored)."""
    if d.result != "needed":
        return d
    path = breaking_path(claim_id, key, d.hypothesis)
    if not path.exists():
        return dataclasses.replace(d, reason=d.reason + "; not stored (`make store-breaking` stores it)")
    try:
        why = recheck(decl, d.hypothesis, decode_needed(decl, read_needed(path)))
    except Exception as e:  # a corrupt or undecodable file is reported on the row, and the tests refuse it
        why = f"cannot be read ({type(e).__name__}: {e})"
    rel = relative_path(path)
    if why is not None:
        return dataclasses.replace(d, reason=d.reason + f"; the stored instance {rel} no longer re-checks: {why}")
    return dataclasses.replace(d, stored=rel)


def _drop(k: str, others: Sequence[str], rows: list[tuple[str, str, Instance]], h: Any, c: Any, spec: Any,
          preds: Mapping[str, Predicate], conclude: Predicate, decl: Any, owner: str) -> Dropped:
    met = [i for i in range(len(rows)) if all(h(i, o) is True for o in others)]
    cands = [i for i in met if h(i, k) is False]
    fails = sorted((i for i in cands if c(i) is False), key=lambda i: size_key(rows[i][2]))
    undecided = sum(c(i) is None for i in cands)
    n, m, f = len(rows), len(met), len(cands)
    given = ", ".join(others)
    if fails and spec is None:
        i = fails[0]
        return Dropped(k, "needed", n, m, f, exact_line(rows[i][2]), rows[i][1] or None, rows[i][0],
                       f"{given} hold, {k} fails and the conclusion fails ({len(fails)} such instance(s); the "
                       "smallest shown)")
    if fails:  # generic: needed only on a set of positive measure
        return _generic(k, fails, rows, spec, {o: preds[o] for o in others}, conclude, decl, owner, n, m, f, given)
    if not met:
        return Dropped(k, "undecided", n, m, f, reason=f"no instance of the search met the others ({given})")
    if not cands:
        off = [i for i in range(n) if h(i, k) is False]
        if not off:
            why = f"no instance of the search fails {k} (its instances do not vary it)"
        else:
            stuck = sorted({o for i in off for o in others if h(i, o) is not True},
                           key=lambda o: -sum(h(i, o) is None for i in off))
            open_ = [o for o in stuck if any(h(i, o) is None for i in off)]
            why = (f"{k} fails on {len(off)} instance(s), where the others are not all met"
                   + (f" ({', '.join(open_)} undecided there: not defined without {k})" if open_ else ""))
        return Dropped(k, "undecided", n, m, f, reason=why)
    if undecided == f:
        return Dropped(k, "undecided", n, m, f, reason=f"the conclusion is undecided on all {f} instances meeting "
                                                        f"the others where {k} fails")
    return Dropped(k, "not-needed", n, m, f,
                   reason=f"the conclusion held on all {f - undecided} instance(s) meeting {given} where {k} fails"
                          + (f" ({undecided} undecided)" if undecided else ""))


def _generic(k: str, fails: list[int], rows: list[tuple[str, str, Instance]], spec: Any,
             others: Mapping[str, Predicate], conclude: Predicate, decl: Any, owner: str, n: int, m: int, f: int,
             given: str) -> Dropped:
    if _LABELLER is None:
        raise RuntimeError("no failure labeller registered (theorems.framework.declare registers it on import)")
    describe = decl.pool.describe if decl.pool is not None else exact_line
    arith = decl.arithmetic or "exact"
    labels = []
    for i in fails[:_LABELLED]:
        regime, lab, x = rows[i]
        try:
            _, aside, ev = _LABELLER(spec, [(lab, x)], others, conclude, f"{owner} without {k}", regime,
                                           describe, arith)
        except Exception as e:  # a probe that cannot run here leaves the row undecided, never an error
            labels.append(f"not labelled ({type(e).__name__})")
            continue
        cert = next((e for e in ev if e.scope == "positive-measure" and e.holds is False), None)
        if cert is not None:
            return Dropped(k, "needed", n, m, f, exact_line(x), lab or None, regime,
                           f"{given} hold, {k} fails and the conclusion fails on a set of positive measure: "
                           f"{cert.summary[:300]}")
        labels.append(ev[0].label or "unlabelled" if ev else "unlabelled")
    i = fails[0]
    what = ("an exceptional point, not a set of positive measure" if all(lb == "exceptional-point" for lb in labels)
            else f"failures labelled {', '.join(sorted(set(labels)))} at seeded perturbations, none certified on a "
                 "box")
    return Dropped(k, "undecided", n, m, f, exact_line(rows[i][2]), rows[i][1] or None, rows[i][0],
                   f"{len(fails)} failure(s) with {given} holding and {k} failing: {what}")

