r"""The public API for adding a conjecture in one file.

>>> from theorems.conjecture import conjecture
>>> from sympy import Rational
>>> def nonzero(x): return x != 0
>>> c = conjecture(
...     id="USER.square-positive", section="example", quote="squares of non-zero rationals are positive",
...     statement=r"x\neq0\Rightarrow x^2>0",
...     hypotheses={"nonzero": nonzero},
...     conclusion=lambda x: x * x > 0,
...     instances=lambda draw, regime: Rational(draw(-9, 9), draw(1, 9)),
...     register_claim=False)
>>> from theorems.claims import run_claim
>>> run_claim(c).verdict
'supported'

What you get from one call
==========================
* a :class:`~theorems.claims.Claim` in the registry (shown by ``collapse-verify verify`` and the
  book's ledger page), whose evidence is an exact seeded stress per regime: how many drawn
  instances met every hypothesis, and whether the conclusion held on each;
* a counterexample search: the first instance meeting the hypotheses and breaking the
  conclusion makes the verdict ``refuted`` and is reported (and can be stored with
  :func:`theorems.claims.save_counterexample`);
* a Hypothesis strategy (:meth:`Conjecture.strategy`) that draws from the same builder, used by
  ``property_tests/test_registry.py`` to stress every conjecture with no extra test code;
* optional ``proof_steps`` ((LaTeX, words, kind, check) tuples, as in the theorem modules): if
  all check, the conjecture's evidence includes an exact general proof (verdict ``proved``).

Hypotheses and the conclusion are predicates on an instance returning True, False or None
(undecided; never turn None into False). ``instances(draw, regime)`` builds an instance from
``draw(lo, hi)`` integers (exact data: use sympy ``Rational``).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable

from .claims import CheckContext, Claim, Evidence, derivation, exact_instances, register, stable_seed, tri as _tri

__all__ = ["conjecture", "Conjecture", "CONJECTURES"]

#: every conjecture made through this API, by claim id
CONJECTURES: dict[str, "Conjecture"] = {}


@dataclass
class Conjecture:
    claim: Claim
    hypotheses: dict
    conclusion: Callable[[Any], bool | None]
    instances: Callable[[Callable[[int, int], int], str], Any]
    regimes: tuple
    samples: int = 40
    found: list = field(default_factory=list)

    def premise(self, inst) -> bool:
        return all(_tri(p(inst)) is True for p in self.hypotheses.values())

    def strategy(self, regime: str | None = None):
        """A Hypothesis strategy drawing instances from the same builder."""
        from hypothesis import strategies as st

        @st.composite
        def draw_instance(draw):
            r = regime or draw(st.sampled_from(self.regimes))
            return self.instances(lambda lo, hi: draw(st.integers(lo, hi)), r)
        return draw_instance()

    def stress(self, ctx: CheckContext) -> list[Evidence]:
        out = []
        rng = random.Random(stable_seed(f"{self.claim.id}:stress"))
        for regime in self.regimes:
            drawn = met = held = failed = 0
            first_bad = None
            for _ in range(max(5, self.samples // (4 if ctx.quick else 1))):
                inst = self.instances(rng.randint, regime)
                drawn += 1
                if not self.premise(inst):
                    continue
                met += 1
                c = _tri(self.conclusion(inst))
                if c is True:
                    held += 1
                elif c is False:
                    failed += 1
                    first_bad = inst if first_bad is None else first_bad
            if first_bad is not None:
                self.found.append(first_bad)
            out.append(exact_instances(
                "the conclusion on drawn instances meeting every hypothesis (undecided ones left out: "
                f"{met - held - failed})", met=held + failed, held=held, drawn=drawn, regime=regime, arithmetic="exact (as the conjecture's predicates compute it)",
                first_failure=None if first_bad is None else repr(first_bad)[:300]))
        return out


def conjecture(*, id: str, statement: str, hypotheses: dict, conclusion: Callable, instances: Callable,
               regimes=("n<d", "n=d", "n>d"), section: str = "user conjecture", quote: str = "",
               proof_steps=(), chapter: str = "", samples: int = 40, register_claim: bool = True,
               source: str = "user") -> Claim:
    """Register a conjecture and return its claim (see the module docstring)."""
    holder: dict = {}

    def stress_check(ctx):
        return holder["c"].stress(ctx)

    def proof_check(ctx):
        return [derivation(proof_steps, id)]

    checks = [stress_check] + ([proof_check] if proof_steps else [])
    claim = Claim(id=id, section=section, quote=quote or statement, statement=statement,
                  hypotheses=tuple(hypotheses), conclusion=getattr(conclusion, "__doc__", None) or "conclusion",
                  regimes=tuple(regimes), checks=checks, chapter=chapter, source=source)
    c = Conjecture(claim, dict(hypotheses), conclusion, instances, tuple(regimes), samples)
    holder["c"] = c
    claim.proof_steps = tuple(proof_steps)  # type: ignore[attr-defined]
    if register_claim:
        register(claim)
        CONJECTURES[id] = c
    return claim
