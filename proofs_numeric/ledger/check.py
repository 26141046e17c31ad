"""A claim on the user's own instance: its declared hypotheses and conclusion, the predicates the ledger uses.

:func:`check_claim` takes a registered claim and a :class:`theorems.exact.reader.UserInput` (every input read by the
one exact reader), adapts the input into the claim's instance type with each reading's
:class:`theorems.framework.InstanceForm` (beside the Pool's ``decode``, beside a builder, or registered by the numeric
layer by claim id for interval predicates) and decides the reading's own predicates on it
(:func:`theorems.framework.decide_on_instance`). :func:`checkable` lists, per claim, what can be checked on a user's
input and with which inputs; a claim not decided on instances says why (its ``off_instance`` reason), or that it is not
classified yet.

The record (``check --json``) has fixed keys: ``claim``, ``input`` (how each input was read), ``readings`` (per
reading: ``key``, ``statement``, ``hypotheses`` {name: {value, how, definition}}, ``conclusion`` {value, how, words},
``on_this_instance``, ``reason``, ``arithmetic``, ``numbers``: the instance's ranks and sizes as numbers, e.g.
``arank_X``, ``arank_LN_X``), ``not_checked`` (readings that could not be, with the reason),
``numerical`` (labelled float hints beside exact ranks of float data).
"""
from __future__ import annotations

import json
from pathlib import Path

from proofs_numeric.core.float_hints import numerical_rank
from proofs_numeric.ledger.load import registry
from proofs_numeric.model.sites import instance_summary
from proofs_numeric.output import create_output
from theorems.exact.instances import regime_of
from theorems.exact.reader import input_flag
from theorems.framework import (
    CONJECTURES,
    NO_FORM,
    Claim,
    InstanceForm,
    Reading,
    build_instance,
    decide_on_instance,
    encode_instance,
    instance_form,
    typeset,
    undecided_reading,
)

__all__ = ["check_claim", "checkable", "CheckableClaim", "NO_INSTANCE_FORM", "stored_instance", "save_instance"]

#: what a reading with neither an instance form nor a declared reason says
NO_INSTANCE_FORM = NO_FORM


class CheckableClaim:
    """What ``check --list`` says about one claim: each reading's instance form (or why there is none)."""

    def __init__(self, claim: Claim):
        self.claim = claim
        self.forms: dict[str, tuple[Reading, InstanceForm]] = {}
        self.reasons: dict[str, str] = {}
        for r in claim.all_readings():
            form, why = instance_form(claim, r)
            if form is not None:
                self.forms[r.key] = (r, form)
            else:
                assert why is not None  # instance_form says why whenever it gives no form
                self.reasons[r.key] = why

    def reason(self) -> str:
        """Why a claim is not checkable: the reason of a reading declared on instances first."""
        declared = [k for k in self.reasons for r in self.claim.all_readings() if r.key == k and r.decl is not None]
        return self.reasons[declared[0]] if declared else next(iter(self.reasons.values()))

    def off_instance(self):
        """Why the headline is not decided on one instance (an ``OffInstance``), or None."""
        return self.claim.off_instance

    @property
    def checkable(self) -> bool:
        return bool(self.forms)

    @property
    def declared_on_instances(self) -> bool:
        """Declared on instances (a Pool or a builder) for some reading, or given a form by the numeric layer."""
        return self.checkable or any(getattr(r, "decl", None) is not None for r in self.claim.all_readings())

    def inputs(self) -> str:
        """The inputs it takes, as flags (required first; optional in brackets), over its checkable readings."""
        req: list[str] = []
        opt: list[str] = []
        for _, form in self.forms.values():
            for k in form.takes:
                if k not in req:
                    req.append(k)
            for k in form.optional:
                if k not in opt:
                    opt.append(k)
        every = [k for k in req if all(k in f.takes for _, f in self.forms.values())]
        some = [k for k in req if k not in every]
        words = [input_flag(k) for k in every] + [f"[{input_flag(k)}]" for k in some + [o for o in opt if o not in req]]
        return " ".join(words)


def checkable() -> list[CheckableClaim]:
    """Every registered claim with what can be checked on a user's input."""
    return [CheckableClaim(c) for c in registry()]


def _float_hints(user) -> dict:
    """The float64 numerical rank of every float input matrix, beside the exact ranks it decides (labelled)."""
    out = {}
    for k, M in user.matrices.items():
        if not M.is_float_data:
            continue
        F, why = M.float64()
        out[k] = numerical_rank(F) if F is not None else {"skipped": why + "; the certified path does not use float64"}
    return out


def check_claim(claim: Claim, user, readings=None) -> dict:
    """The ``check --json`` record of one claim on the user's input (see the module docstring).

    ``readings``: keys to check (default: every reading with an instance form whose inputs are given). A reading whose
    required inputs are missing is listed under ``not_checked``; if none can be checked, ``ValueError`` names what is
    missing. An input no checked reading takes is refused by name.
    """
    cc = CheckableClaim(claim)
    given = user.given()
    wanted = list(readings) if readings else [r.key for r in claim.all_readings()]
    unknown = [k for k in wanted if k not in {r.key for r in claim.all_readings()}]
    if unknown:
        raise ValueError(f"{claim.id} has no reading {unknown[0]!r}; its readings: "
                         f"{', '.join(r.key for r in claim.all_readings())}")
    todo, not_checked, missing_of = [], [], {}
    for key in wanted:
        if key not in cc.forms:
            not_checked.append({"key": key, "reason": cc.reasons[key]})
            continue
        r, form = cc.forms[key]
        missing = [k for k in form.takes if k not in given]
        if missing:
            missing_of[key] = missing
            not_checked.append({"key": key, "reason": "needs " + ", ".join(input_flag(k) for k in missing)})
            continue
        todo.append((r, form))
    if not todo:
        if not cc.forms:
            raise ValueError(f"{claim.id} is not checkable on a user's input: {cc.reason()}")
        key = next((k for k in wanted if k in missing_of), None)
        if key is None:
            raise ValueError(f"{claim.id}: none of the readings asked for can be checked on a user's input")
        raise ValueError(f"{claim.id} needs {', '.join(input_flag(k) for k in missing_of[key])} (it takes "
                         f"{cc.inputs()})")
    taken = {k for _, f in todo for k in f.inputs()}
    extra = sorted(given - taken)
    if extra:
        raise ValueError(f"{claim.id} does not take {', '.join(input_flag(k) for k in extra)} (it takes "
                         f"{cc.inputs()})")
    built: dict[int, tuple] = {}  # one instance per form: readings sharing a form share the instance
    out_readings = []
    hints: dict = {}
    for r, form in todo:
        if id(form) not in built:
            try:
                inst, why = build_instance(form, user)
            except ValueError as e:  # a named input error (BadInput): say which claim refused it
                raise ValueError(str(e) if str(e).startswith(claim.id) else f"{claim.id}: {e}") from None
            built[id(form)] = (inst, why)
            if why is None and form.hints is not None:
                hints.update(form.hints(user, inst))
        inst, why = built[id(form)]
        if why is not None:
            out_readings.append({**undecided_reading(claim, r, form, why), "note": form.note, "numbers": {}})
            continue
        # the instance's numbers (ranks, sizes, the hypotheses' values) as numbers, not only inside the `how` words
        out_readings.append({**decide_on_instance(claim, r, form, inst), "numbers": instance_summary(inst) or {}})
    order = {r.key: i for i, r in enumerate(claim.all_readings())}
    not_checked.sort(key=lambda nc: order[nc["key"]])
    for nc in not_checked:
        nc["statement"] = next(r.statement for r in claim.all_readings() if r.key == nc["key"])
    rec = {"claim": claim.id, "input": user.how(), "readings": out_readings, "not_checked": not_checked,
           "numerical": {**_float_hints(user), **hints}}
    rec["_instances"] = {r.key: built[id(f)][0] for r, f in todo}  # for --save; dropped before printing
    rec["_forms"] = {r.key: f for r, f in todo}
    return rec


def stored_instance(claim: Claim, rec: dict, user) -> dict:
    """The instance of the first checked reading as a stored-counterexample ``instance`` record (what ``decode``
    or a builder conjecture's stored file reads)."""
    key = rec["readings"][0]["key"]
    inst, form = rec["_instances"][key], rec["_forms"][key]
    r = next(r for r in claim.all_readings() if r.key == key)
    if r.decl is not None and r.decl.builder is not None:
        conj = CONJECTURES.get(claim.id)
        regimes = tuple(conj.regimes) if conj is not None else tuple(claim.regimes)
        if form.regime is not None:
            regime = form.regime(inst)
        else:
            X = inst.get("X") if isinstance(inst, dict) else inst
            shape = getattr(X, "shape", None)
            regime = regime_of(*shape) if shape and len(shape) == 2 else regimes[0]
        if regime not in regimes:
            regime = regimes[0]
        return {"regimes": {regime: {"value": encode_instance(inst), "latex": typeset(inst)}}}
    if form.save is not None:
        return form.save(user, inst)
    return user.record(form.inputs())


def save_instance(path: str, claim: Claim, rec: dict, user) -> Path:
    """Write the instance in the stored-counterexample format, never over an existing file."""
    data = {"claim": claim.id,
            "note": f"saved by `collapse-verify check {claim.id}` ("
                    + "; ".join(f"{r['key']}: {r['on_this_instance']}" for r in rec["readings"]) + ")",
            "instance": stored_instance(claim, rec, user)}
    return create_output(path, json.dumps(data, indent=1) + "\n")  # never over an existing file
